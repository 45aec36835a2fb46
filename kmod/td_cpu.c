// SPDX-License-Identifier: GPL-2.0
/*
 * topdown: each CPU's counters, its event sets and its sampling.
 *
 * Counters are created, disabled, in the CPU hotplug online callback and
 * released in the offline one.  A level whose events do not fit the free
 * counters is counted in sets (td_sets.c) that take turns in time slices:
 * a pinned hrtimer ends each slice and queues a work on the CPU, because
 * perf_event_enable() and perf_event_disable() sleep.  Every interval has
 * the same number of slices of each set, spread over it: rounds in which
 * each set takes one turn, in a new random order every round.
 *
 * At each slice end the work reads all the CPU's counting events in one
 * section with interrupts off (perf_event_read_local()), so the counts of
 * a window belong to one moment; then it switches sets and reads the new
 * set's starting values the same way.  The normalizers and most of Level 1
 * stay enabled across switches and count all the time.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/topology.h>
#include <linux/irqflags.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/bitfield.h>
#include <linux/bitops.h>
#include <linux/gfp.h>
#ifdef CONFIG_X86
#include <asm/processor.h>
#include <asm/cpufeature.h>
#endif
#ifdef CONFIG_ARM64
#include <asm/cputype.h>
#ifdef TD_HAVE_ARM_PMUV3_H
#include <linux/perf/arm_pmuv3.h>
#endif
#endif
#include "topdown.h"
#include "td_compat.h"

/* This CPU's model from its identity; called on the CPU itself. */
static const struct td_model *td_identify(unsigned int cpu)
{
#ifdef CONFIG_X86
	struct cpuinfo_x86 *c = &cpu_data(cpu);
	int core_type = TD_NOT_HYBRID;
	const struct td_model *m;
	bool unchecked;

	if (c->x86_vendor != X86_VENDOR_INTEL && c->x86_vendor != X86_VENDOR_AMD)
		return NULL;
	/* CPUID 0x1a says which kind of core this is, on hybrid parts only */
	if (boot_cpu_has(X86_FEATURE_HYBRID_CPU) && c->cpuid_level >= 0x1a)
		core_type = cpuid_eax(0x1a);
	m = td_model_x86(c->x86_vendor == X86_VENDOR_INTEL ? TD_X86_INTEL : TD_X86_AMD,
			 c->x86, c->x86_model, core_type, &unchecked);
	if (m && unchecked)
		pr_info_once("cpu%u: family %#x model %#x counted with %s's events and formulas, which perf 7.3 has no metric table to check against\n",
			     cpu, c->x86, c->x86_model, m->name);
	return m;
#endif
#ifdef CONFIG_ARM64
	u32 midr = read_cpuid_id();

	/* hybrid parts differ per CPU, so this reads the CPU's own MIDR_EL1 */
	return td_model_arm(midr);
#endif
	return NULL;
}

#ifdef CONFIG_ARM64
static void td_read_pmceid(void *id)
{
	((u64 *)id)[0] = read_sysreg(pmceid0_el0);
	((u64 *)id)[1] = read_sysreg(pmceid1_el0);
}

/*
 * Whether @cpu's PMUv3 implements the common event @config.  A raw event
 * it does not implement is created all the same and counts nothing (the
 * kernel's armv8pmu maps any raw number), so the module asks the PMU:
 * PMCEID0/1_EL0 have a bit for each of events 0x0-0x3f in their low
 * halves and 0x4000-0x403f in their high halves, the bits the kernel's
 * sysfs events/ directory is made from.  Other numbers are
 * IMPLEMENTATION DEFINED and cannot be asked about: taken as counted.
 */
static bool td_pmu_implements(unsigned int cpu, u64 config)
{
	unsigned int reg, bit;
	u64 id[2];

	if (config < 0x40) {
		reg = config / 32;
		bit = config % 32;
	} else if (config >= 0x4000 && config < 0x4040) {
		reg = (config - 0x4000) / 32;
		bit = 32 + (config - 0x4000) % 32;
	} else {
		return true;
	}
	smp_call_function_single(cpu, td_read_pmceid, id, 1);
	return id[reg] >> bit & 1;
}
#else
static bool td_pmu_implements(unsigned int cpu, u64 config)
{
	return true;
}
#endif

#ifdef CONFIG_ARM64
/*
 * PMMIR_EL1 as the kernel's arm_pmuv3 driver reads it for its caps/slots
 * (linux-source-6.12: drivers/perf/arm_pmuv3.c __armv8pmu_probe_pmu() and
 * slots_show(), asm/arm_pmuv3.h read_pmuver(), pmuv3_implemented(),
 * is_pmuv3p4(); include/linux/perf/arm_pmuv3.h ARMV8_PMU_SLOTS): the
 * register exists from PMUv3p4 on, ID_AA64DFR0_EL1.PMUVer (bits [11:8])
 * 5 or more, where 0xf is an IMPLEMENTATION DEFINED PMU and not PMUv3;
 * its bits [7:0] are the slots per cycle that STALL_SLOT counts, which
 * perf's metrics take as #slots.  The driver reads it on one CPU of each
 * PMU; the module reads each CPU's own.
 */
#define TD_DFR0_PMUVER		GENMASK_ULL(11, 8)
#define TD_PMUVER_V3P4		0x5
#define TD_PMUVER_IMP_DEF	0xf
#define TD_PMMIR_SLOTS		GENMASK_ULL(7, 0)

static void td_read_pmmir_slots(void *slots)
{
	u64 ver = FIELD_GET(TD_DFR0_PMUVER, read_sysreg(id_aa64dfr0_el1));

	*(unsigned int *)slots = 0;
	if (ver >= TD_PMUVER_V3P4 && ver != TD_PMUVER_IMP_DEF)
		*(unsigned int *)slots = FIELD_GET(TD_PMMIR_SLOTS,
						   read_sysreg_s(SYS_PMMIR_EL1));
}

/* @cpu's PMMIR_EL1.SLOTS, 0 where it has no PMMIR_EL1 */
static unsigned int td_pmmir_slots(unsigned int cpu)
{
	unsigned int slots;

	smp_call_function_single(cpu, td_read_pmmir_slots, &slots, 1);
	return slots;
}
#else
static unsigned int td_pmmir_slots(unsigned int cpu)
{
	return 0;
}
#endif

/*
 * The slots per cycle the PMU of @ev says in its caps/slots, 0 if none:
 * the attribute arm_pmuv3 shows PMMIR_EL1.SLOTS in ("0x%08x\n") and
 * perf's #slots reads.  For pmu_type= (tdsim emulates it), whose PMU has
 * no registers of its own; its show() is called as sysfs calls it, on a
 * page (sysfs_emit() wants one).  The event holds the PMU's module.
 */
static unsigned int td_caps_slots(struct perf_event *ev)
{
	const struct attribute_group **g;
	struct device_attribute *da;
	struct attribute **a;
	unsigned int slots = 0;
	char *page;

	for (g = ev->pmu->attr_groups; g && *g; g++) {
		if (!(*g)->name || strcmp((*g)->name, "caps"))
			continue;
		for (a = (*g)->attrs; a && *a; a++) {
			if (strcmp((*a)->name, "slots"))
				continue;
			da = container_of(*a, struct device_attribute, attr);
			if (!da->show || !ev->pmu->dev)
				return 0;
			page = (char *)get_zeroed_page(GFP_KERNEL);
			if (!page)
				return 0;
			if (da->show(ev->pmu->dev, da, page) <= 0 ||
			    kstrtouint(strim(page), 0, &slots))
				slots = 0;
			free_page((unsigned long)page);
			return slots;
		}
	}
	return 0;
}

/*
 * The width @tc's slot-based Arm model is counted with: the PMU's slots
 * per cycle where it says them, as perf's #slots, else the model's
 * constant.  Only PMMIR_EL1.SLOTS (8 bits) or caps/slots can be larger
 * than 0; a value the PMU gives that is above 255 is not a PMMIR field.
 */
static void td_set_slots(struct td_cpu *tc, const struct td_model *m)
{
	unsigned int slots = 0;

	tc->slots_from = TD_SLOTS_MODEL;
	if (m->vendor != TD_ARM || m->cycle_based)
		return;
	if (td_pmu_type < 0) {
		slots = td_pmmir_slots(tc->cpu);
		tc->slots_from = TD_SLOTS_PMMIR;
	} else if (tc->nr && tc->ctr[0].event) {
		slots = td_caps_slots(tc->ctr[0].event);
		tc->slots_from = TD_SLOTS_CAPS;
	}
	if (!slots || slots > 255) {
		if (slots)
			pr_info_ratelimited("cpu%u: the PMU says %u slots per cycle, not a PMMIR_EL1.SLOTS value: %s's %u taken\n",
					    tc->cpu, slots, m->name, m->width);
		tc->slots_from = TD_SLOTS_MODEL;
		return;
	}
	tc->own.width = slots;
	if (slots != m->width)
		pr_info_ratelimited("cpu%u: %u slots per cycle from %s, not %s's %u\n",
				    tc->cpu, slots,
				    td_slots_from_name(tc->slots_from),
				    m->name, m->width);
}

static void td_describe(unsigned int cpu, char *buf, size_t len)
{
#ifdef CONFIG_X86
	struct cpuinfo_x86 *c = &cpu_data(cpu);

	scnprintf(buf, len, "%s family %#x model %#x", c->x86_vendor_id,
		  c->x86, c->x86_model);
#elif defined(CONFIG_ARM64)
	u32 midr = read_cpuid_id();

	scnprintf(buf, len, "MIDR %#010x (implementer %#x part %#x)", midr,
		  MIDR_IMPLEMENTOR(midr), MIDR_PARTNUM(midr));
#else
	scnprintf(buf, len, "unknown");
#endif
}

static void td_release(struct td_cpu *tc)
{
	unsigned int i;

	for (i = 0; i < tc->nr; i++) {
		if (tc->ctr[i].event)
			perf_event_release_kernel(tc->ctr[i].event);
		tc->ctr[i].event = NULL;
	}
}

/* the events counting now: the ones counted all the time and the set's */
static u32 td_on(const struct td_cpu *tc)
{
	return tc->sets.every | tc->sets.set[tc->cur];
}

/*
 * A snapshot's tries (td_snapshot()): at most TD_SNAP_MAX_TRIES; on the
 * last, a read that a stall stretched is read again alone, up to
 * TD_SNAP_REREADS times
 */
#define TD_SNAP_MAX_TRIES	4
#define TD_SNAP_REREADS		3
/*
 * A slice's end, or a turn's start, whose tries all met stalls is put off
 * TD_SNAP_WAIT_US, again and again for TD_SNAP_WAIT_MAX_US from its first
 * try (td_work()), before it is taken as it is
 */
#define TD_SNAP_WAIT_US		250
#define TD_SNAP_WAIT_MAX_US	5000
#define TD_MIN_ROUNDS		4
#define TD_SNAP_SLACK_NS	2000
#define TD_TURN_MIN_US		2000	/* td_arm() */
/*
 * Calm: Level 1, counted all the time, stayed within a range of
 * TD_CALM_PPM over the interval's judged spans (windows of at least half
 * TD_SLICE_MIN_US, added up: TD_CALM_JUDGES), for TD_CALM_INTERVALS
 * intervals in a row.  A calm CPU's sets take TD_CALM_ROUNDS turns each
 * an interval (td_plan_span()).
 */
#define TD_CALM_PPM		2000
#define TD_CALM_INTERVALS	2
#define TD_CALM_ROUNDS		1
#define TD_CALM_SPAN_NS		(TD_SLICE_MIN_US * NSEC_PER_USEC / 2)
/*
 * Level 1 is judged over windows added up to three quarters of an eighth
 * of the interval at least (td_calm_span(): a calm interval's one turn of
 * each of 8 sets, less its switches, is one span): a window's count is
 * off by its reads' offsets, a microsecond or two each, and at 100 ms
 * (spr Level 3, 96 windows of 1 ms) one window in a hundred was 0.2
 * points off under TCG, so a steady CPU was never calm.
 */
#define TD_CALM_JUDGES		8
/*
 * and each event that took turns kept its ratio to its reference within
 * 1/TD_CALM_EVENT_DIV of itself over its judged spans: a phase that moves
 * only such events (Level 3 memory nodes under a steady Level 1) is not
 * calm.  (In a calm interval, one turn each, an event has one span: its
 * ratio is held to the last calm interval's range instead, and a break
 * makes the interval not calm: td_calm_end().)
 */
#define TD_CALM_EVENT_DIV	100

/*
 * An event's count now, on its CPU with interrupts off: what
 * perf_event_read_local() does for the count, which modules cannot call
 * (it is not exported: Module.symvers of 6.1 and 6.12).  An event on a
 * counter is read from its PMU; one that is not holds its count.
 */
static u64 td_read_local(struct perf_event *ev)
{
	if (READ_ONCE(ev->oncpu) == smp_processor_id())
		ev->pmu->read(ev);
	return local64_read(&ev->count);
}

/*
 * How long @ev has been enabled but off its counter, ns: perf's enabled
 * less its running time.  Both advance together while the event counts,
 * neither while it is disabled, so perf's totals hold the gap as of now
 * except while the event waits for a counter (INACTIVE): the gap then
 * grows with perf's clock, and only perf_event_read_value() brings it up to
 * date.  On the event's CPU with interrupts off, as perf_event_read_local()
 * reads it: the totals and the state change only there, with interrupts
 * off (scheduling the event in or out, rotation, IPIs).  Returns false
 * when the event is INACTIVE.
 */
static bool td_gap_local(struct perf_event *ev, u64 *gap)
{
	if (READ_ONCE(ev->state) == PERF_EVENT_STATE_INACTIVE)
		return false;
	*gap = ev->total_time_enabled - ev->total_time_running;
	return true;
}

/* whether Level 1's events are all counted all the time, with other sets */
static bool td_l1_always(const struct td_cpu *tc)
{
	unsigned int i;

	if (tc->sets.nr < 2)
		return false;
	for (i = 0; i < tc->nr; i++)
		if ((tc->open & ~tc->sets.every & BIT(i)) &&
		    tc->model->events[i].level <= 1)
			return false;
	return true;
}

/* how long the windows judged together are at least, ns (TD_CALM_JUDGES) */
static u64 td_calm_span(const struct td_cpu *tc)
{
	return div64_u64(tc->interval_ns * 3, 4 * TD_CALM_JUDGES);
}

/*
 * Level 1 of one window, @node in normalizer units over @norm and @span
 * ns: added to the windows not yet judged; once they are long enough
 * (TD_CALM_JUDGES), their Level 1 widens the interval's range of each
 * node (td_cpu.calm_lo/hi) for td_calm_end()
 */
static void td_calm_window(struct td_cpu *tc, const u64 *node, u64 norm,
			   u64 span)
{
	unsigned int j;

	for (j = 0; j < TD_NR_L1; j++)
		tc->calm_node[j] += node[j];
	tc->calm_norm += norm;
	tc->calm_ns += span;
	if (tc->calm_ns < td_calm_span(tc))
		return;
	norm = tc->calm_norm;
	for (j = 0; j < TD_NR_L1 && norm; j++) {
		u32 f = td_frac(tc->calm_node[j], norm);

		tc->calm_lo[j] = min(tc->calm_lo[j], f);
		tc->calm_hi[j] = max(tc->calm_hi[j], f);
		/* planned calm: still within the last calm interval's range? */
		if (tc->calm_plan &&
		    max(tc->calm_ref_hi[j], f) - min(tc->calm_ref_lo[j], f) > TD_CALM_PPM)
			tc->calm_broken = true;
	}
	if (norm)
		tc->calm_windows++;
	memset(tc->calm_node, 0, sizeof(tc->calm_node));
	tc->calm_norm = 0;
	tc->calm_ns = 0;
}

/*
 * An event that took turns, over one window of @span ns: added to its
 * windows not yet judged; once they are long enough (as Level 1's, but of
 * its own turns: an eighth of its share of the interval), their ratio
 * widens its range
 */
static void td_calm_event(struct td_cpu *tc, struct td_counter *k, u64 count,
			  u64 ref, u64 span)
{
	u64 r;
	u32 q, hi;

	k->calm_count += count;
	k->calm_ref += ref;
	k->calm_ns += span;
	if (k->calm_ns * tc->sets.nr < td_calm_span(tc))
		return;
	r = mul_u64_u64_div_u64(k->calm_count, TD_PPM, k->calm_ref);
	q = min_t(u64, r, U32_MAX);
	k->calm_count = 0;
	k->calm_ref = 0;
	k->calm_ns = 0;
	k->calm_lo = min(k->calm_lo, q);
	k->calm_hi = max(k->calm_hi, q);
	/* (an event that counted 0 in every window was measured too) */
	if (tc->calm_plan && k->calm_ref_lo != U32_MAX) {
		hi = max(k->calm_ref_hi, q);
		if (hi - min(k->calm_ref_lo, q) > hi / TD_CALM_EVENT_DIV)
			tc->calm_broken = true;
	}
}

/*
 * The interval is over: were its windows calm?  Counts the calm intervals
 * in a row (td_cpu.calm); any other resets them, as does an interval of
 * fewer than two spans judged, and a planned calm one that a span left
 * (td_cpu.calm_broken): with one turn each, an event's one span cannot
 * widen its own range, and a break seen at the last turn, or with too
 * little of the interval left, slices nothing again in it (td_work())
 */
static void td_calm_end(struct td_cpu *tc)
{
	bool calm = tc->calm_windows >= 2 && !tc->calm_broken;
	u32 spread = 0;
	unsigned int j;

	for (j = 0; j < TD_NR_L1 && calm; j++)
		spread = max(spread, tc->calm_hi[j] - tc->calm_lo[j]);
	calm = calm && spread <= TD_CALM_PPM;
	for (j = 0; j < tc->nr && calm; j++) {
		const struct td_counter *k = &tc->ctr[j];

		if (k->calm_lo != U32_MAX &&
		    k->calm_hi - k->calm_lo > k->calm_hi / TD_CALM_EVENT_DIV)
			calm = false;
	}
	tc->calm = calm ? min(tc->calm + 1, 255U) : 0;
	tc->calm_spread = tc->calm_windows >= 2 ? spread : 0;
	if (!calm)
		return;
	/* the range the next interval's windows are held to while calm */
	memcpy(tc->calm_ref_lo, tc->calm_lo, sizeof(tc->calm_ref_lo));
	memcpy(tc->calm_ref_hi, tc->calm_hi, sizeof(tc->calm_ref_hi));
	for (j = 0; j < tc->nr; j++) {
		tc->ctr[j].calm_ref_lo = tc->ctr[j].calm_lo;
		tc->ctr[j].calm_ref_hi = tc->ctr[j].calm_hi;
	}
}

/*
 * Read every counting event in one section with interrupts off: one moment
 * for all.  Each event that was counting since the last snapshot adds its
 * count, and its reference's and the normalizer's over the same span, to
 * its interval's accumulators, and the span's length to its counted time.
 * @switched: the span since the last snapshot was a switch of sets or a
 * (re)start, the events enabled in it: not a window calm judges.
 * @may_wait: a snapshot whose reads were not one moment after all its
 * tries may be left, nothing of it taken, for the caller to try later.
 * Returns -EAGAIN so, -ENXIO off the CPU (never expected: the work is bound
 * and is cancelled before the CPU goes), else 0.
 */
static int td_snapshot(struct td_cpu *tc, u64 *now, bool switched,
		       bool may_wait)
{
	u64 v[TD_MAX_EVENTS], d[TD_MAX_EVENTS], node[TD_NR_L1] = { 0 };
	u64 ts[TD_MAX_EVENTS], w[TD_MAX_EVENTS], gap[TD_MAX_EVENTS], norm_ns = 0;
	const struct td_sets *s = &tc->sets;
	u32 on = td_on(tc), had = 0, running, whole = 0, aligned = 0;
	unsigned int i, n, tries;
	unsigned long flags;
	u64 t0, t1, after, span, best, limit, lo, hi, first, end, spread = 0;
	bool stretched, calm_window, last, cut;

	tc->snap_spread_ns = 0;	/* none taken yet */
	for (tries = 1; ; tries++) {
		last = tries == TD_SNAP_MAX_TRIES;
		cut = false;
		running = 0;
		local_irq_save(flags);
		if (smp_processor_id() != tc->cpu) {
			local_irq_restore(flags);
			return -ENXIO;
		}
		t0 = ktime_get_ns();
		t1 = t0;
		lo = U64_MAX;
		hi = 0;
		first = U64_MAX;
		end = 0;
		stretched = false;
		for (i = 0; i < tc->nr && !cut; i++) {
			if (!(on & BIT(i)) || !tc->ctr[i].event)
				continue;
			best = U64_MAX;
			for (n = 1; ; n++) {
				u64 r = td_read_local(tc->ctr[i].event);

				after = ktime_get_ns();
				/*
				 * read between t1 and now: taken as the
				 * middle; of reads that were all stretched,
				 * the shortest (the last of three, taken as
				 * it was, once took 5 ms under TCG: a 17 ms
				 * interval's frontend bound 3 points off)
				 */
				if (after - t1 < best) {
					best = after - t1;
					v[i] = r;
					ts[i] = t1 + best / 2;
				}
				if (after - t1 <= TD_SNAP_SLACK_NS + tc->snap_min_ns)
					break;
				/*
				 * A read that took longer than a whole pass
				 * should (a stall before it or in it: an NMI,
				 * an SMI, a vCPU the host descheduled) leaves
				 * the counts before it at another moment than
				 * those after: the pass is cut and done again,
				 * or left for later (@may_wait).  Only on the
				 * last try of a snapshot that cannot wait is
				 * the read done again alone, so that its count
				 * has a moment of its own whatever stretched
				 * the others: taken as the middle of a long
				 * one, the count of a 0.5 ms window was 5 %
				 * off.
				 */
				if (!last || may_wait) {
					cut = true;
					break;
				}
				if (n == TD_SNAP_REREADS) {
					stretched = true;
					break;
				}
				tc->snap_rereads++;
				t1 = after;
			}
			lo = min(lo, ts[i]);
			hi = max(hi, ts[i]);
			/* the read kept: from ts - best / 2 to ts + best / 2 */
			first = min(first, ts[i] - best / 2);
			end = max(end, ts[i] - best / 2 + best);
			if (td_gap_local(tc->ctr[i].event, &gap[i]))
				running |= BIT(i);
			else
				gap[i] = 0;
			t1 = after;
		}
		local_irq_restore(flags);
		/*
		 * The first pass is the floor: one read of all the counters,
		 * as any reader pays it once an interval (cold, when the CPU
		 * was idle); the passes after it, and those of a slice's end
		 * put off (td_work()), are the module's own cost
		 */
		if (tries == 1 && !tc->snap_wait_ns)
			tc->cost.read_ns += t1 - t0;
		else
			tc->cost.reread_ns += t1 - t0;
		if (cut && last)
			return -EAGAIN;	/* (@may_wait) */
		if (cut) {
			tc->snap_retries++;
			continue;
		}
		/*
		 * The reads are one moment only if nothing stopped the CPU
		 * between them: read again when they took much longer than
		 * the fastest read seen, with interrupts allowed between the
		 * tries.  If the last try is still long, a slice's end is
		 * left for later (@may_wait: td_work()), any other snapshot
		 * taken as it is, each read alone (above).
		 */
		if (!tc->snap_min_ns || t1 - t0 < tc->snap_min_ns)
			tc->snap_min_ns = t1 - t0;
		limit = 2 * tc->snap_min_ns + TD_SNAP_SLACK_NS;
		if (t1 - t0 <= limit)
			break;
		if (last && may_wait)
			return -EAGAIN;
		if (last) {
			/*
			 * taken as it is: slow if a read stayed stretched, or
			 * the reads kept lie further apart than a pass may
			 * take (a slice's end put off for all of
			 * TD_SNAP_WAIT_MAX_US in tdsim's crawls: its reads
			 * kept up to 1.3 ms apart, the 10 ms intervals it
			 * bounded up to 7 points off, and not counted so)
			 */
			if (stretched || hi - lo > limit) {
				tc->snap_slow++;
				tc->snap_max_ns = max(tc->snap_max_ns, t1 - t0);
				spread = end > first ? end - first : 0;
			}
			break;
		}
		tc->snap_retries++;
	}
	tc->cost.reads++;
	tc->snap_spread_ns = spread;
	tc->ival_spread_ns = max(tc->ival_spread_ns, spread);
	tc->snap_reads_ns = end > first ? end - first : 0;
	tc->ival_reads_ns = max(tc->ival_reads_ns, tc->snap_reads_ns);
	/*
	 * The moment of the snapshot is the normalizer's read: the window
	 * each count is taken over (below) and so the interval's bounds.  A
	 * slow section (a vCPU preempted in the middle) otherwise puts the
	 * bounds tens of microseconds after the counts.
	 */
	*now = (on & BIT(s->norm)) && tc->ctr[s->norm].event ? ts[s->norm] : t1;
	span = t1 - tc->snap_ns;

	for (i = 0; i < tc->nr; i++) {
		struct td_counter *k = &tc->ctr[i];

		if (!(on & BIT(i)) || !k->event || !k->based)
			continue;
		had |= BIT(i);
		d[i] = v[i] - k->last;
		if (k->snap_on && (running & BIT(i)) && gap[i] == k->snap_gap)
			whole |= BIT(i);
	}
	if (had & BIT(s->norm)) {
		tc->en_ns += span;
		norm_ns = ts[s->norm] - tc->ctr[s->norm].last_ns;
	}
	/*
	 * Each event's count of the window, taken over the normalizer's
	 * window: the reads are spread over the section (a stall between two
	 * of them, an NMI or a descheduled vCPU, spreads them further), and a
	 * child and its parent divided over a short slice must cover the same
	 * time.
	 *
	 * An event counted all the time and read after the normalizer
	 * (@aligned) also ends its window at the normalizer's moment: its
	 * count there, its read less its rate times the time between, is
	 * where its next window starts.  So its windows still add up to its
	 * raw count, without a gap or an overlap, and an interval's count is
	 * over the normalizer's interval.  Taken raw, a section that a stall
	 * stretched after the first reads left such counts of a 10 ms
	 * interval up to 3.5 % off the slots', and the next interval's as far
	 * the other way (TCG with the host loaded: 4-8 intervals in 18,000 more
	 * than 0.3 points off, the snapshot's third try 20-350 us long).
	 * One read before the normalizer's moment (or whose window began
	 * later) keeps its raw count: its rate would have to be run forwards
	 * past its read.  So does the span of a switch (@switched): perf
	 * held the PMU disabled for most of it, so the rate over the span is
	 * not the rate between the two reads, and a baseline moved by it
	 * carried the error into the next window (a steady spr Level 3 CPU
	 * at 100 ms under TCG: its windows' Level 1 a median 0.024-0.039
	 * points off the windows' median, 0.008-0.010 without).
	 */
	for (i = 0; i < tc->nr; i++) {
		u64 ns = ts[i] - tc->ctr[i].last_ns;

		if (!(had & BIT(i)))
			continue;
		w[i] = d[i];
		if (norm_ns && ns && ns != norm_ns)
			w[i] = mul_u64_u64_div_u64(d[i], norm_ns, ns);
		if (norm_ns && ns >= norm_ns && (s->every & BIT(i)) && !switched)
			aligned |= BIT(i);
	}
	/* the Level 1 nodes of the span, for the events scaled by one */
	for (i = 0; i < tc->nr; i++)
		if ((had & ~s->every & BIT(i)) && s->node[i] != TD_NO_NODE)
			break;
	/*
	 * (For calm alone, only over a window long enough to judge, and not
	 * the span of a switch (@switched), whose snapshot then skips the
	 * model: perf held the PMU disabled for most of it, rescheduling the
	 * events enabled, and tdsim's counters stood still as hardware's do,
	 * so the microseconds between two reads weighed as much as the span's
	 * counting.  Under TCG a switch takes 250 us or more, and a steady
	 * spr Level 3 CPU's Level 1 then spread 0.35-3.5 points over its
	 * windows: never calm.)
	 */
	calm_window = span >= TD_CALM_SPAN_NS && !switched;
	if ((i < tc->nr || (calm_window && td_l1_always(tc))) &&
	    (had & s->every) == (s->every & tc->open)) {
		u64 c[TD_MAX_EVENTS] = { 0 };

		for (i = 0; i < tc->nr; i++)
			if (s->every & BIT(i))
				c[i] = w[i];
		td_sets_nodes(tc->model, c, tc->core_wide, d[s->norm], node);
		if (calm_window && td_l1_always(tc))
			td_calm_window(tc, node, d[s->norm], span);
	}
	if (tc->reg && s->nr > 1)
		td_reg_add(tc->reg, s, tc->cur, had, w);
	for (i = 0; i < tc->nr; i++) {
		struct td_counter *k = &tc->ctr[i];
		struct td_acc a = { 0 };

		if (!(had & BIT(i)))
			continue;
		a.count = s->every & BIT(i) && !(aligned & BIT(i)) ? d[i] : w[i];
		if (s->node[i] != TD_NO_NODE)
			a.ref = node[s->node[i]];
		else if (had & BIT(s->ref[i]))
			a.ref = w[s->ref[i]];
		if (had & BIT(s->norm))
			a.norm = d[s->norm];
		k->acc.count += a.count;
		k->acc.ref += a.ref;
		k->acc.norm += a.norm;
		k->acc_run += span;
		if (!(s->every & BIT(i)) && a.ref && calm_window)
			td_calm_event(tc, k, a.count, a.ref, span);
		if (whole & BIT(i)) {
			k->whole.count += a.count;
			k->whole.ref += a.ref;
			k->whole.norm += a.norm;
			k->whole_run += span;
		}
	}
	for (i = 0; i < tc->nr; i++) {
		struct td_counter *k = &tc->ctr[i];

		if (!(on & BIT(i)) || !k->event)
			continue;
		if (aligned & BIT(i)) {
			k->last += w[i];	/* at most v[i]: ns >= norm_ns */
			k->last_ns = ts[s->norm];
		} else {
			k->last = v[i];
			k->last_ns = ts[i];
		}
		k->based = true;
		k->snap_on = running & BIT(i);
		k->snap_gap = gap[i];
	}
	tc->snap_ns = t1;
	return 0;
}

/*
 * Each open event's enabled less running time now (td_gap_local()); perf's
 * own reckoning, which sleeps, for one waiting for its counter.
 */
static void td_read_gaps(struct td_cpu *tc, u64 *gap)
{
	u32 stale = 0;
	unsigned long flags;
	unsigned int i;

	local_irq_save(flags);
	for (i = 0; i < tc->nr; i++) {
		struct perf_event *ev = tc->ctr[i].event;

		if ((tc->open & BIT(i)) && ev &&
		    (smp_processor_id() != tc->cpu || !td_gap_local(ev, &gap[i])))
			stale |= BIT(i);
	}
	local_irq_restore(flags);
	for (i = 0; i < tc->nr; i++) {
		u64 en, run;

		if (stale & BIT(i)) {
			perf_event_read_value(tc->ctr[i].event, &en, &run);
			gap[i] = en - run;
		}
	}
}

/* the time each event was off its counter so far is not the next interval's */
static void td_base_gaps(struct td_cpu *tc)
{
	u64 gap[TD_MAX_EVENTS];
	unsigned int i;

	td_read_gaps(tc, gap);
	for (i = 0; i < tc->nr; i++)
		if ((tc->open & BIT(i)) && tc->ctr[i].event)
			tc->ctr[i].last_gap = gap[i];
}

/*
 * Once an interval: did another perf user take a counter from an event for
 * part of its windows?  The growth of its enabled-but-not-running time
 * says, and the interval is flagged multiplexed.  Such a count is taken
 * from the windows it counted whole (td_counter.whole), a ratio to its
 * reference over the same windows, as the windows of a set are; only when
 * it had none is it scaled as perf scales it, by perf's running time,
 * which assumes it counted at one rate while off: under QEMU's TCG a
 * Level 2 event running 19 % of a 100 ms interval in perf's turns of 4 ms
 * was scaled 27 % high.  A window is whole when the event was on its
 * counter at both ends and the gap did not grow: while perf moves events
 * (a rotation, a reschedule) it holds the PMU disabled, which stops every
 * counter, and its clock stands still for the events moved.
 * perf_event_read_value() (which sleeps and IPIs, and took half of an
 * interval's work when read for every event) is read only for an event
 * waiting for its counter now.
 */
static void td_foreign(struct td_cpu *tc)
{
	u64 gap[TD_MAX_EVENTS];
	unsigned int i;

	td_read_gaps(tc, gap);
	for (i = 0; i < tc->nr; i++) {
		struct td_counter *k = &tc->ctr[i];
		u64 lost;

		k->foreign_ppm = TD_PPM;
		if (!(tc->open & BIT(i)) || !k->event)
			continue;
		lost = gap[i] - k->last_gap;
		k->last_gap = gap[i];
		/* its windows' time is what it was enabled for in the interval */
		if (lost)
			k->foreign_ppm = lost < k->acc_run ?
					 TD_PPM - td_frac(lost, k->acc_run) : 0;
	}
	tc->foreign = false;
	tc->time_scaled = 0;
	for (i = 0; i < tc->nr; i++) {
		struct td_counter *k = &tc->ctr[i];
		u32 r = tc->ctr[tc->sets.ref[i]].foreign_ppm;
		u32 n = tc->ctr[tc->sets.norm].foreign_ppm;

		k->by_whole = false;
		k->by_time = false;
		if (k->foreign_ppm < TD_PPM)
			tc->foreign = true;
		/* the events counted all the time give the interval's own counts */
		if (k->foreign_ppm < TD_PPM && k->whole_run && r == TD_PPM &&
		    n == TD_PPM && !(tc->sets.every & BIT(i))) {
			k->acc = k->whole;
			k->acc_run = k->whole_run;
			k->by_whole = true;
			continue;
		}

		if (k->foreign_ppm < TD_MUX_BELOW_PPM && !(tc->sets.every & BIT(i))) {
			k->by_time = true;
			tc->time_scaled++;
		}
		if (k->foreign_ppm < TD_PPM && k->foreign_ppm)
			k->acc.count = mul_u64_u64_div_u64(k->acc.count, TD_PPM,
							   k->foreign_ppm);
		if (r < TD_PPM && r)
			k->acc.ref = mul_u64_u64_div_u64(k->acc.ref, TD_PPM, r);
		if (n < TD_PPM && n)
			k->acc.norm = mul_u64_u64_div_u64(k->acc.norm, TD_PPM, n);
	}
}

/* enable or disable the events of @mask; disabled ones start a new window */
static void td_enable(struct td_cpu *tc, u32 mask, bool on)
{
	unsigned int i;

	for (i = 0; i < tc->nr; i++) {
		struct perf_event *ev = tc->ctr[i].event;

		if (!(mask & BIT(i)) || !ev)
			continue;
		if (on) {
			perf_event_enable(ev);
		} else {
			perf_event_disable(ev);
			tc->ctr[i].based = false;
		}
	}
}

/* how many of the events that should count did not get a counter */
static unsigned int td_missing(const struct td_cpu *tc)
{
	u32 on = td_on(tc);
	unsigned int i, n = 0;

	for (i = 0; i < tc->nr; i++)
		if ((on & BIT(i)) && tc->ctr[i].event &&
		    READ_ONCE(tc->ctr[i].event->state) != PERF_EVENT_STATE_ACTIVE)
			n++;
	return n;
}

static void td_clear_acc(struct td_cpu *tc)
{
	unsigned int i;

	for (i = 0; i < tc->nr; i++) {
		tc->ctr[i].acc = (struct td_acc){ 0 };
		tc->ctr[i].acc_run = 0;
		tc->ctr[i].whole = (struct td_acc){ 0 };
		tc->ctr[i].whole_run = 0;
		tc->ctr[i].calm_lo = U32_MAX;
		tc->ctr[i].calm_hi = 0;
		tc->ctr[i].calm_count = 0;
		tc->ctr[i].calm_ref = 0;
		tc->ctr[i].calm_ns = 0;
	}
	tc->en_ns = 0;
	for (i = 0; i < TD_NR_L1; i++) {
		tc->calm_lo[i] = U32_MAX;
		tc->calm_hi[i] = 0;
	}
	tc->calm_windows = 0;
	tc->calm_broken = false;
	memset(tc->calm_node, 0, sizeof(tc->calm_node));
	tc->calm_norm = 0;
	tc->calm_ns = 0;
	if (tc->reg)
		td_reg_begin(tc->reg);
}

static u64 td_ival_ns(void)
{
	return (u64)READ_ONCE(td_interval_ms) * NSEC_PER_MSEC;
}

/*
 * The length of an interval that starts at @now, off the grid: every
 * CPU's intervals end on the same grid, the multiples of the interval in
 * CLOCK_MONOTONIC, so the samples of all CPUs cover the same windows (as
 * perf stat -I's lines do) and come out together, and a listener wakes
 * once for all of them.  It runs to the next point of the grid, or to the
 * one after when that is less than half an interval away.
 */
static u64 td_grid_len(u64 now)
{
	u64 ival = td_ival_ns(), rem, len;

	div64_u64_rem(now, ival, &rem);
	len = ival - rem;
	return len < ival / 2 ? len + ival : len;
}

/*
 * What td_budget_rounds() plans by: an eighth of each new switch's time,
 * that time taken as at most twice the average, so that one switch a
 * hypervisor or an interrupt stretched moves it by an eighth at most,
 * while a CPU that stays slow doubles it within six switches.
 */
static void td_switch_avg(struct td_cpu *tc, u64 sw)
{
	u64 avg = tc->switch_avg_ns;

	if (!avg) {
		tc->switch_avg_ns = sw;
		return;
	}
	sw = min(sw, 2 * avg);
	tc->switch_avg_ns = avg - (avg >> 3) + (sw >> 3);
}

static unsigned long td_budget_said;	/* bit 0: dmesg said it this load */

/*
 * At most as many rounds of @tc's sets in @len ns as switch_budget_pct of
 * it allows, at what a switch has cost here lately; at least one.  Where
 * a switch costs about as much as a slice (an emulated or overcommitted
 * CPU: on 64 vCPUs emulated on one host thread a switch took longer than
 * the 1 ms slice, and the CPUs did little but switch), the turns get
 * longer instead of the machine slower.
 */
static u64 td_budget_rounds(struct td_cpu *tc, u64 len, u64 rounds)
{
	u64 most;

	if (!tc->switch_avg_ns)
		return rounds;
	most = div64_u64(len * READ_ONCE(td_switch_pct),
			 100 * tc->sets.nr * tc->switch_avg_ns);
	if (rounds <= max_t(u64, most, 1))
		return rounds;
	tc->budget_cuts++;
	/* once a load: pr_info_once() may print twice, CPUs planning together */
	if (!test_and_set_bit(0, &td_budget_said))
		pr_info("cpu%u: a switch of event sets takes %llu us: fewer rounds of turns, switch_budget_pct=%u (info's budget_cuts counts them)\n",
			tc->cpu, div_u64(tc->switch_avg_ns, NSEC_PER_USEC),
			READ_ONCE(td_switch_pct));
	return max_t(u64, most, 1);
}

/*
 * How many slices the span of @len ns from @from has: whole rounds of
 * every set.  The span is an interval, or its rest once a calm window
 * broke (td_work()).
 */
static void td_plan_span(struct td_cpu *tc, u64 from, u64 len)
{
	u64 slice = (u64)READ_ONCE(td_slice_us) * NSEC_PER_USEC;
	unsigned int n = tc->sets.nr;
	u64 rounds = 1;

	/*
	 * Slices of slice_us, but at least TD_MIN_ROUNDS turns of each set
	 * per interval while the slices stay TD_SLICE_MIN_US or longer: a set
	 * seen in a single window misses the phases of a short interval.
	 * And at most TD_REG_WINDOWS turns, longer slices beyond: that is all
	 * a set's regression remembers (td_reg.h), so more windows would
	 * only fit it to the interval's end, and each switch costs a
	 * rescheduling of the CPU's events per event enabled (1 ms slices
	 * were 6 % of each emulated CPU at 1 s intervals, spr Level 3).
	 */
	tc->calm_plan = false;
	if (n > 1) {
		u64 floor = min_t(u64, TD_MIN_ROUNDS,
				  div64_u64(len, n * TD_SLICE_MIN_US * NSEC_PER_USEC));

		rounds = min_t(u64, div64_u64(len, n * slice), TD_REG_WINDOWS);
		rounds = max3(rounds, floor, (u64)1);
		/*
		 * A calm CPU, one turn each: its windows agree, so more of
		 * them only cost switches (each a rescheduling of the CPU's
		 * events per event enabled; a steady spr Level 3 CPU at 100
		 * ms, TCG: the module's work per sample 2496 us with two
		 * turns, 1371 with one).  A phase that starts in such an
		 * interval has only that interval's turns and the regression
		 * on Level 1 for the events that took turns; the next is
		 * sliced again, its windows no longer calm.  Not while
		 * another perf user takes counters: its rotation cuts windows,
		 * and the counts come from the ones it did not cut.
		 */
		tc->calm_plan = tc->calm >= TD_CALM_INTERVALS && !tc->foreign &&
				rounds > TD_CALM_ROUNDS;
		if (tc->calm_plan)
			rounds = TD_CALM_ROUNDS;
		rounds = td_budget_rounds(tc, len, rounds);
	} else if (tc->foreign) {
		/* one set, but windows that perf's rotation does not cut */
		rounds = max_t(u64, div64_u64(len, slice), 1);
	}
	tc->ticks = n * rounds;
	tc->tick = 0;
	tc->span_t0 = from;
	tc->span_ns = len;
}

/* the coming interval, @len ns from td_cpu.t0 */
static void td_plan(struct td_cpu *tc, u64 len)
{
	tc->interval_ns = len;
	tc->planned_foreign = tc->foreign;
	td_plan_span(tc, tc->t0, len);
}

/*
 * The end of the slice that starts at @now: as planned on the grid, but a
 * turn at least half its slice (TD_TURN_MIN_US at most) however late the
 * last slice ended.  A timer late by most of a slice left the next turn a
 * few hundred microseconds, the set's only window of a calm interval, and
 * a window's count is off by its reads' offsets, a microsecond or so
 * under TCG: steady spr Level 3 CPUs at 10 ms, 6 intervals of ~38,000, 2-7
 * ms long, whose Level 2 set ran 0.18-0.29 ms, 0.10-0.14 points off.  The
 * interval then ends that much after its grid point, the next one on it.
 */
static void td_arm(struct td_cpu *tc, u64 now)
{
	u64 at = tc->span_t0 + div64_u64(tc->span_ns * (tc->tick + 1), tc->ticks);
	u64 turn = min_t(u64, div64_u64(tc->span_ns, 2 * tc->ticks),
			 TD_TURN_MIN_US * NSEC_PER_USEC);

	hrtimer_start(&tc->timer, ns_to_ktime(max(at, now + turn)),
		      HRTIMER_MODE_ABS_PINNED);
}

/*
 * A new order for the sets' turns in the next round.  Each set still gets
 * exactly one slice per round, but its place in the round is random: in a
 * fixed order each set would see the same part of any workload whose
 * period is a multiple of the round's (a loop of 24 ms against two sets of
 * 4 ms), and its counts would be those of that part alone.
 *
 * Letting the set that ended a round start the next (one switch fewer a
 * round with three sets or more) was tried: make bench-accuracy's p90s
 * were about twice as large at 100 ms (spr Level 3 0.013 -> 0.025 pp, icl
 * 0.021 -> 0.038, skl Level 2 0.041 -> 0.072; one run each): a set's two
 * turns then lie side by side and see less of the interval's phases.
 */
static void td_shuffle(struct td_cpu *tc)
{
	unsigned int i, j;

	for (i = 0; i < tc->sets.nr; i++)
		tc->order[i] = i;
	for (i = tc->sets.nr; i > 1; i--) {
		j = get_random_u32() % i;	/* swap() evaluates it twice */
		swap(tc->order[i - 1], tc->order[j]);
	}
}

/*
 * A calm interval's one round starts with the set counting as it begins,
 * which goes on counting: n - 1 switches an interval for n sets, not
 * n - 1/n (spr Level 3, steady, 10 ms, in instructions on 1 vCPU: 2.68 ->
 * 2.00 switches and 132 -> 110 us of work a sample).  The set's two turns
 * then lie side by side across the grid point, which a calm CPU's
 * windows, agreeing, do not mind; a phase that breaks the calm re-plans
 * the rest of the interval in rounds of free order (td_work()).
 */
static void td_calm_first(struct td_cpu *tc)
{
	unsigned int i;

	for (i = 1; i < tc->sets.nr; i++)
		if (tc->order[i] == tc->cur) {
			swap(tc->order[0], tc->order[i]);
			return;
		}
}

/*
 * Whether event @i of @tc is a fixed-counter-only event counted on its
 * fixed counter that has a general-purpose form (TOPDOWN.SLOTS, fixed
 * counter 3 of Ice Lake and later): the module can give that counter up.
 */
static bool td_yields_fixed(const struct td_cpu *tc, unsigned int i)
{
	const struct td_event *e = &tc->model->events[i];

	return e->gp_form && e->fixed >= 0 && (unsigned int)e->fixed < tc->fixed;
}

/* pinned: the events counted all the time */
static bool td_want_pinned(const struct td_cpu *tc, unsigned int i)
{
	return tc->sets.every & BIT(i);
}

/*
 * The events counted all the time pinned, the others not: pinned-ness is
 * fixed when a counter is created, and the sets change with the counters
 * found free.  A pinned event of a set would make perf schedule every
 * pinned event out and in again at each of its turns, and the events
 * counted all the time would miss that time each (zen4's Level 1 made on 6
 * counters, then counted on 5 as under the NMI watchdog, was a point off
 * at 10 ms).  So an event whose place changed is created again, disabled;
 * so is one whose form changed (a fixed counter given up or taken back).
 */
static void td_reform(struct td_cpu *tc)
{
	unsigned int i;

	for (i = 0; i < tc->nr; i++) {
		struct td_counter *k = &tc->ctr[i];
		const struct td_event *e;
		struct perf_event_attr attr;
		struct perf_event *ev;
		bool want;

		if (!k->event)
			continue;
		want = td_want_pinned(tc, i);
		e = td_event_form(&tc->model->events[i], tc->fixed);
		if (k->event->attr.pinned == want && k->event->attr.config == e->config)
			continue;
		attr = k->event->attr;
		attr.pinned = want;
		attr.config = e->config;
		attr.disabled = 1;
		ev = perf_event_create_kernel_counter(&attr, tc->cpu, NULL, NULL, NULL);
		if (IS_ERR(ev)) {
			pr_info_ratelimited("cpu%u: %s not created again %s: %ld\n",
					    tc->cpu, e->name,
					    want ? "pinned" : "unpinned", PTR_ERR(ev));
			continue;
		}
		perf_event_release_kernel(k->event);
		k->event = ev;
		k->based = false;
		k->last_gap = 0;
	}
}

/*
 * An event of ours on a fixed counter it could give up (td_yields_fixed()):
 * its index, or -1.
 */
static int td_fixed_held(const struct td_cpu *tc)
{
	unsigned int i;

	for (i = 0; i < tc->nr; i++)
		if ((tc->open & BIT(i)) && tc->ctr[i].event && td_yields_fixed(tc, i))
			return i;
	return -1;
}

/*
 * An event of ours on a fixed counter that it should give up, or -1 (its
 * index).  Fixed counter 3 of Ice Lake and later is the one perf's own
 * topdown needs (perf stat's default metrics, --topdown, -M TopdownL1:
 * TOPDOWN.SLOTS and the PERF_METRICS events have no other counter), and a
 * pinned TOPDOWN.SLOTS of ours would leave those "<not counted>" for as
 * long as the module runs.  So the module gives such a counter up, and
 * counts the event's general-purpose form (TOPDOWN.SLOTS_P) pinned
 * instead, when, @missing of its enabled events being off their counters:
 * - none is, and a flexible group waits for counters on the PMU (perf's
 *   rotate_necessary): another perf user's, as all of ours are on.  It may
 *   need that counter; giving it up costs one general-purpose counter,
 *   which perf's rotation shares anyway.
 * - or it is the only one off: another perf user holds it pinned.
 * (A flexible group that cannot go on keeps every later flexible group
 * off, ours included: td_start_sets() gives the counter up too before it
 * finds no counter for the normalizer.)
 */
static int td_fixed_wanted(const struct td_cpu *tc, unsigned int missing)
{
	int i = td_fixed_held(tc);
	struct perf_event *ev;

	if (i < 0)
		return -1;
	ev = tc->ctr[i].event;
	if (!missing)
		return td_group_waits(ev) ? i : -1;
	return missing == 1 && READ_ONCE(ev->state) != PERF_EVENT_STATE_ACTIVE ? i : -1;
}

/*
 * Whether the fixed counters given up are free again: a flexible event on
 * each, created and enabled last, gets it only if no other perf group
 * has it or waits before it.
 */
static bool td_fixed_free(struct td_cpu *tc)
{
	unsigned int i;

	for (i = 0; i < tc->nr; i++) {
		const struct td_event *e = &tc->model->events[i];
		struct perf_event_attr attr;
		struct perf_event *ev;
		bool got;

		if (!tc->ctr[i].event || !e->gp_form || e->fixed < 0 ||
		    (unsigned int)e->fixed < tc->fixed ||
		    (unsigned int)e->fixed >= tc->fixed_max)
			continue;
		attr = tc->ctr[i].event->attr;
		attr.config = e->config;
		attr.pinned = 0;
		attr.disabled = 1;
		ev = perf_event_create_kernel_counter(&attr, tc->cpu, NULL, NULL, NULL);
		if (IS_ERR(ev))
			return false;
		perf_event_enable(ev);
		got = READ_ONCE(ev->state) == PERF_EVENT_STATE_ACTIVE;
		perf_event_release_kernel(ev);
		if (!got)
			return false;
	}
	return true;
}

/*
 * perf's hw.idx of fixed counter @n, to see whether an event got it: on x86
 * INTEL_PMC_IDX_FIXED + n (32 + n in 6.1 and 6.12), and tdsim numbers its
 * own counters so for every model; on arm64's PMUv3 the cycle counter,
 * ARMV8_PMU_CYCLE_IDX (31) since include/linux/perf/arm_pmuv3.h has it,
 * ARMV8_IDX_CYCLE_COUNTER (0, private to arch/arm64/kernel/perf_event.c)
 * in 6.1.
 */
static int td_fixed_idx(unsigned int n)
{
#ifdef CONFIG_ARM64
	if (td_pmu_type < 0)
#ifdef ARMV8_PMU_CYCLE_IDX
		return ARMV8_PMU_CYCLE_IDX;
#else
		return 0;
#endif
#endif
	return 32 + n;
}

/*
 * Which counters others hold, for info: a fixed counter whose event perf
 * placed on a general-purpose one instead (the NMI watchdog's cycles event
 * sits on fixed counter 1 of Intel CPUs, on the cycle counter of Arm
 * ones), then the general-purpose counters the sets were made without
 * beyond those events'.  A fixed counter none of the level's events uses
 * is not seen.
 */
static void td_find_held(struct td_cpu *tc)
{
	const struct td_model *m = tc->model;
	unsigned int i, moved = 0;
	u32 held = 0;

	for (i = 0; i < tc->nr; i++) {
		const struct td_event *e = &m->events[i];
		struct perf_event *ev = tc->ctr[i].event;
		int idx;

		/* given up to another perf user: counted in its other form */
		if (ev && e->gp_form && e->fixed >= 0 &&
		    (unsigned int)e->fixed >= tc->fixed &&
		    (unsigned int)e->fixed < tc->fixed_max)
			held |= BIT(e->fixed);
		if (!ev || e->fixed < 0 || (unsigned int)e->fixed >= tc->fixed ||
		    READ_ONCE(ev->state) != PERF_EVENT_STATE_ACTIVE)
			continue;
		idx = READ_ONCE(ev->hw.idx);
		if (idx >= 0 && idx != td_fixed_idx(e->fixed)) {
			held |= BIT(e->fixed);
			moved++;
		}
	}
	tc->held_fixed = held;
	tc->held_gp = m->gp_counters > tc->gp + moved ?
		m->gp_counters - tc->gp - moved : 0;
}

/*
 * Enable the counters of the first set with the ones counted all the time.
 * Where some do not get a counter (the NMI watchdog or another perf user
 * holds one), fewer counters are taken to be free and the sets are made
 * again, until they fit.  Returns 0 or -ENOSPC.
 */
static int td_start_sets(struct td_cpu *tc)
{
	unsigned int missing, used;
	int ret = 0, i;

	for (;;) {
		if (!ret) {
			td_reform(tc);
			td_shuffle(tc);
			tc->cur = tc->order[0];
			td_enable(tc, td_on(tc), true);
			missing = td_missing(tc);
			i = td_fixed_wanted(tc, missing);
			if (!missing && i < 0) {
				td_find_held(tc);
				return 0;
			}
			td_enable(tc, tc->open, false);
			/*
			 * Free: the counters the set tried took, not all it
			 * assumed (a set of 7 of 8, one missing, found 6:
			 * taken as 7, the next set of 7 made the sets again
			 * and its regression started over)
			 */
			used = td_sets_gp_used(tc->model, td_on(tc), tc->fixed);
			if (i < 0 && used > missing) {
				pr_info_ratelimited("cpu%u: %u of its events found no counter: %u general-purpose counters taken as free, not %u\n",
						    tc->cpu, missing, used - missing, tc->gp);
				tc->gp = used - missing;
				tc->restarts++;
				ret = td_sets_build(tc->model, tc->open, tc->gp,
						    tc->fixed, &tc->sets);
				continue;
			}
		} else {
			/* no sets fit: a fixed counter given up may free ours */
			i = -1;
		}
		if (i < 0)
			i = td_fixed_held(tc);
		if (i < 0)
			return ret ?: -ENOSPC;
		pr_info_ratelimited("cpu%u: fixed counter %d left to other perf users: counting %s instead of %s\n",
				    tc->cpu, tc->model->events[i].fixed,
				    tc->model->events[i].gp_form->name,
				    tc->model->events[i].name);
		tc->fixed = tc->model->events[i].fixed;
		tc->gp = tc->model->gp_counters;
		tc->restarts++;
		ret = td_sets_build(tc->model, tc->open, tc->gp, tc->fixed,
				    &tc->sets);
	}
}

/*
 * (Re)start counting from now with @gp general-purpose counters taken as
 * free: a new interval, nothing accumulated.  When not even the normalizer
 * with one more event gets counters, the CPU is "starved": its intervals
 * are not counted, and each one tries again with every counter.
 */
static void td_begin(struct td_cpu *tc, unsigned int gp, u64 *now)
{
	struct td_sets old = tc->sets;
	int ret;

	td_enable(tc, tc->open, false);
	tc->gp = gp;
	tc->snap_wait_ns = 0;	/* a snapshot put off: not this one's */
	tc->base_wait = false;
	tc->calm = 0;	/* new sets, or the same after a change: slices again */
	tc->calm_plan = false;
	ret = td_sets_build(tc->model, tc->open, tc->gp, tc->fixed, &tc->sets);
	if (!ret)
		ret = td_start_sets(tc);
	*now = ktime_get_ns();
	tc->starved = ret != 0;
	/*
	 * What the regression learnt stays while the sets do: a CPU short of
	 * a counter tries them all again every TD_REGROW_INTERVALS and comes
	 * back to the same sets.  (struct td_sets has no padding.)
	 */
	if (!tc->starved && tc->sets.nr > 1 &&
	    (!tc->reg || memcmp(&old, &tc->sets, sizeof(old)))) {
		size_t size = td_reg_size(tc->sets.nr, tc->nr);

		if (tc->reg_size < size) {
			kvfree(tc->reg);
			tc->reg = kvmalloc(size, GFP_KERNEL);
			tc->reg_size = tc->reg ? size : 0;
		}
		if (tc->reg)
			td_reg_init(tc->reg, &tc->sets, tc->nr);
	}
	if (tc->starved) {
		td_enable(tc, tc->open, false);
		tc->sets.nr = 1;
		tc->sets.every = 0;
		tc->sets.set[0] = 0;
		tc->cur = 0;
		pr_info_ratelimited("cpu%u: no counters free for %s's normalizer and one more event: not counted\n",
				    tc->cpu, tc->model->name);
	} else {
		td_snapshot(tc, now, true, false);
	}
	/*
	 * The interval starts here, so does the time off counters it counts
	 * (td_foreign()): an attempt above that left events waiting for a
	 * counter is not another perf user's.  (A CPU short of a counter
	 * tries them all every TD_REGROW_INTERVALS; counted in the next
	 * interval, its events missing from the attempt made it multiplexed
	 * and unregressed: 1 in 16.  spr on 6 counters at 10 ms, a phased
	 * CPU's Level 2 in 2 sets, TCG: worst interval of 120 0.7-1.6
	 * points off in three runs, 0.08-0.10 since.)
	 */
	td_base_gaps(tc);
	tc->ival_spread_ns = tc->starved ? 0 : tc->snap_spread_ns;
	tc->ival_reads_ns = tc->starved ? 0 : tc->snap_reads_ns;
	td_clear_acc(tc);
	tc->t0 = *now;
	td_plan(tc, td_grid_len(*now));
}

/*
 * The cumulative totals of an interval with fractions: its slots (cycles
 * for a cycle-based model) and each node's share of them.  Where the
 * normalizer counts cycles, the slots are those cycles times the slots
 * per cycle the CPU is counted with, as the formulas take them.
 */
static void td_add_totals(struct td_cpu *tc, u64 norm)
{
	const struct td_model *m = tc->model;
	u64 units = norm;
	unsigned int i;

	if (!m->cycle_based && !m->events[tc->sets.norm].slots)
		units = norm * m->width;
	tc->units_total += units;
	for (i = 0; i < TD_NR_L1; i++)
		tc->l1_total[i] += mul_u64_u32_div(units, tc->result.l1[i], TD_PPM);
	for (i = 0; tc->result.has_l2 && i < TD_NR_L2; i++)
		tc->l2_total[i] += mul_u64_u32_div(units, tc->result.l2[i], TD_PPM);
}

/* The interval is over: scale, compute, publish. */
static void td_end_interval(struct td_cpu *tc, u64 now)
{
	const struct td_model *m = tc->model;
	struct td_acc acc[TD_MAX_EVENTS];
	u64 c[TD_MAX_EVENTS] = { 0 }, node[TD_NR_L1] = { 0 }, t;
	bool not_counted = false, l2_by_time = false;
	u32 mux = TD_PPM, predicted = 0;
	unsigned int i;
	int ret;

	td_foreign(tc);
	for (i = 0; i < tc->nr; i++)
		acc[i] = tc->ctr[i].acc;
	/* Level 1 first, from the events counted all the time */
	for (i = 0; i < tc->nr; i++)
		if (tc->sets.every & tc->open & BIT(i))
			c[i] = acc[i].count;
	/* the nodes scale the events that took turns: none when all fit */
	if (tc->open & ~tc->sets.every)
		td_sets_nodes(m, c, tc->core_wide, c[tc->sets.norm], node);
	/*
	 * The events that took turns, from the regression on the ones counted
	 * all the time; not when another perf user took counters (their
	 * counts are then scaled as perf's, and not of the windows learnt),
	 * as the multiplexed flag counts that: a few microseconds of perf's
	 * own scheduling are not
	 */
	for (i = 0; i < tc->nr; i++)
		if (tc->ctr[i].foreign_ppm < TD_MUX_BELOW_PPM)
			break;
	if (tc->reg && tc->sets.nr > 1 && i == tc->nr)
		for (i = 0; i < tc->sets.nr; i++)
			predicted |= td_reg_predict(tc->reg, &tc->sets, i,
						    tc->open & ~tc->sets.every,
						    c, tc->reg->pred);
	td_sets_scale(m, &tc->sets, tc->open, acc, node, predicted,
		      tc->reg ? tc->reg->pred : NULL, c);
	tc->turns = tc->sets.nr > 1 ? hweight32(tc->open & ~tc->sets.every) : 0;
	tc->regressed = hweight32(predicted);
	tc->scaled_alone += tc->regressed < tc->turns;
	for (i = 0; i < 3; i++)
		tc->counted[i] = TD_PPM;
	for (i = 0; i < tc->nr; i++) {
		struct td_counter *k = &tc->ctr[i];
		unsigned int lvl = m->events[i].level;
		u32 share;

		if (!(tc->open & BIT(i)))
			continue;
		k->delta = c[i];
		k->total += c[i];
		k->d_enabled = tc->en_ns;
		/* the time its windows took, less what another perf user took */
		k->d_running = min(k->acc_run, tc->en_ns);
		if (k->foreign_ppm < TD_PPM && !k->by_whole)
			k->d_running = mul_u64_u64_div_u64(k->d_running,
							   k->foreign_ppm, TD_PPM);
		share = td_frac(k->d_running, tc->en_ns);
		if (lvl >= 1 && lvl <= 3)
			tc->counted[lvl - 1] = min(tc->counted[lvl - 1], share);
		mux = min(mux, share);
		if (!k->d_running && lvl <= 2)
			not_counted = true;	/* flagged, never taken for 0 */
		/*
		 * Planned before another perf user was seen, the interval
		 * gave each set one window or a few: one that perf came in
		 * the middle of has no window it did not cut, and perf's
		 * running time is all that scales it.  That time runs on
		 * while perf holds the PMU disabled, which stops the
		 * counters: in a VM such sections are long (a Level 2 event
		 * 27 % low, 6 pp, in one such interval of 30 under host
		 * load).  Its level is not published for that interval; the
		 * next is read in slices, whose whole windows count it.
		 */
		if (!tc->planned_foreign && k->by_time && lvl <= 2) {
			if (lvl <= 1)
				not_counted = true;
			else
				l2_by_time = true;
		}
	}
	td_calm_end(tc);
	td_clear_acc(tc);
	tc->start_ns = tc->from_ns;
	tc->end_ns = now;
	tc->from_ns = now;
	/*
	 * Skewed when a snapshot of it read its counters spread over more
	 * than TD_SKEW_DIV-th of it; the snapshot that ends it starts the
	 * next (a restart's own snapshot replaces it: td_begin()).  A
	 * snapshot that passed counts as one moment in an interval of its
	 * length, but the interval after an end put off still ends on the
	 * grid, and what is left of it can be short: under half its length
	 * its passes' spreads count too (12 us apart in a 1.6 ms interval
	 * left Level 1 0.3 points off under TCG, unflagged).
	 */
	tc->skew_ns = tc->ival_spread_ns;
	if (2 * (now - tc->start_ns) < td_ival_ns())
		tc->skew_ns = max(tc->skew_ns, tc->ival_reads_ns);
	tc->skewed = tc->skew_ns * TD_SKEW_DIV > now - tc->start_ns;
	tc->skewed_intervals += tc->skewed;
	tc->ival_spread_ns = tc->snap_spread_ns;
	tc->ival_reads_ns = tc->snap_reads_ns;
	tc->seq++;
	tc->mux_ppm = mux;
	tc->nr_sets = tc->sets.nr;
	tc->sample_core_wide = tc->core_wide;
	if (not_counted || tc->starved || tc->cut) {
		tc->state = TD_STATE_NOT_COUNTED;
	} else {
		ret = m->compute(m, c, tc->core_wide, &tc->result);
		tc->state = ret ? TD_STATE_IDLE : TD_STATE_OK;
		if (td_level < 2)	/* its events were not opened */
			tc->result.has_l2 = false;
		if (l2_by_time)
			tc->result.has_l2 = false;
		/* the totals are of intervals counted at every level opened */
		if (!ret && !l2_by_time)
			td_add_totals(tc, c[tc->sets.norm]);
	}
	t = ktime_get_ns();
	td_nl_notify(tc);
	tc->cost.notify_ns += ktime_get_ns() - t;
}

/*
 * every 16 intervals, a CPU short of counters (general-purpose, or a fixed
 * one given up) tries all of them again
 */
#define TD_REGROW_INTERVALS	16

/* whether a snapshot first tried at tc->snap_wait_ns may still be put off */
static bool td_may_wait(const struct td_cpu *tc, u64 t)
{
	return !tc->snap_wait_ns ||
	       t - tc->snap_wait_ns < TD_SNAP_WAIT_MAX_US * NSEC_PER_USEC;
}

/* a snapshot put off (td_snapshot(): -EAGAIN) at @t: tried again later */
static void td_wait(struct td_cpu *tc, u64 t)
{
	if (!tc->snap_wait_ns)
		tc->snap_wait_ns = t;
	tc->snap_waits++;
	tc->snap_turn_waits += tc->base_wait;
	hrtimer_start(&tc->timer,
		      ns_to_ktime(ktime_get_ns() + TD_SNAP_WAIT_US * NSEC_PER_USEC),
		      HRTIMER_MODE_ABS_PINNED);
}

static void td_work(struct work_struct *work)
{
	struct td_cpu *tc = container_of(work, struct td_cpu, work);
	u64 t = ktime_get_ns(), now, sw = 0;
	struct td_stats cost;
	unsigned int gen, full;
	bool sample = false, regrow, waited = false;
	int ret;

	mutex_lock(&tc->lock);
	/* under the lock: a kick queued after this read finds the new one */
	gen = READ_ONCE(td_gen);
	if (!tc->active)
		goto unlock;
	full = tc->model->gp_counters;
	if (!tc->started) {
		tc->started = true;
		tc->gen = gen;
		td_begin(tc, full, &now);
		tc->from_ns = now;
		goto arm;
	}
	if (tc->starved) {
		/* an interval with nothing counted: say so, and try again */
		now = ktime_get_ns();
		td_end_interval(tc, now);
		sample = true;
		tc->gen = gen;
		tc->fixed = tc->fixed_max;
		td_begin(tc, full, &now);
		goto arm;
	}
	/*
	 * A turn's start put off (below): the set enabled counts from now on,
	 * its turn shorter by the wait, and ends as planned (td_arm(): but at
	 * least half a slice)
	 */
	if (tc->base_wait) {
		waited = true;	/* not a slice's end */
		ret = td_snapshot(tc, &now, true, td_may_wait(tc, t));
		if (ret == -EAGAIN)
			td_wait(tc, t);
		if (ret)
			goto unlock;
		tc->base_wait = false;
		tc->snap_wait_ns = 0;
		goto arm;
	}
	/*
	 * A slice's end whose reads met stalls in every try (a vCPU the host
	 * keeps descheduling: under TCG on a loaded host, every read 30 us for
	 * a millisecond or more) is tried again a little later rather than
	 * spun on: the window being ended is longer, and its counts and the
	 * next one's are of one moment.  Taken spread, one 10 ms interval in
	 * a few hundred was a point or more off, a steady CPU's as well.
	 */
	ret = td_snapshot(tc, &now, false, td_may_wait(tc, t));
	if (ret == -EAGAIN) {
		td_wait(tc, t);
		waited = true;
		goto unlock;
	}
	if (ret)
		goto unlock;
	tc->snap_wait_ns = 0;
	tc->tick++;
	/*
	 * Planned calm, but the span judged as the window ended left the last
	 * calm interval's range: the phase changed.  The rest of the interval,
	 * from this tick's time to its end on the grid, is sliced as any
	 * other, so that the new phase is seen in many windows of each set
	 * and not in one or two; unless too little of it is left for a turn
	 * of TD_SLICE_MIN_US per set (the interval is not calm then either:
	 * td_calm_end()).
	 */
	if (tc->calm_plan && tc->calm_broken && tc->tick < tc->ticks &&
	    gen == tc->gen) {
		u64 end = tc->t0 + tc->interval_ns;
		u64 due = tc->span_t0 + div64_u64(tc->span_ns * tc->tick, tc->ticks);

		if (end - due >= (u64)tc->sets.nr * TD_SLICE_MIN_US * NSEC_PER_USEC) {
			tc->calm = 0;
			tc->calm_breaks++;
			td_plan_span(tc, due, end - due);
		}
	}
	/*
	 * A new interval length or an end-interval request ends this one
	 * now, but not before every set has had its turn: cut in its first
	 * round, an interval had sets that never counted (not counted; a
	 * cut just after a grid point did so in tdnl stat's window).  It
	 * ends with the round instead, its sets' turns then slice_us each
	 * (at arm: below), whatever the interval's own slices.
	 */
	if (tc->tick >= tc->ticks ||
	    (gen != tc->gen && tc->tick >= tc->sets.nr)) {
		unsigned int missing;

		td_end_interval(tc, now);
		sample = true;
		/*
		 * The next interval on the grid; from now, to the grid, after
		 * a change of the interval or when (much) late
		 */
		if (gen != tc->gen || now > tc->t0 + 2 * tc->interval_ns) {
			tc->t0 = now;
			td_plan(tc, td_grid_len(now));
		} else {
			tc->t0 += tc->interval_ns;
			td_plan(tc, td_ival_ns());
		}
		tc->gen = gen;
		/* a counter taken since, or maybe given back: make the sets again */
		missing = td_missing(tc);
		regrow = !missing && !(tc->seq % TD_REGROW_INTERVALS) &&
			 (tc->gp < full || tc->fixed < tc->fixed_max);
		if (regrow && tc->fixed < tc->fixed_max && td_fixed_free(tc))
			tc->fixed = tc->fixed_max;
		if (missing || regrow || td_fixed_wanted(tc, 0) >= 0) {
			td_begin(tc, regrow ? full : tc->gp, &now);
			tc->from_ns = now;
			goto arm;
		}
	}
	if (tc->sets.nr > 1) {
		u64 s0 = ktime_get_ns();
		unsigned int pos = tc->tick % tc->sets.nr;

		if (!pos)
			td_shuffle(tc);
		if (!tc->tick && tc->calm_plan)
			td_calm_first(tc);
		if (tc->order[pos] == tc->cur)
			goto arm;	/* its turn again: it goes on counting */
		td_enable(tc, tc->sets.set[tc->cur], false);
		tc->cur = tc->order[pos];
		td_enable(tc, tc->sets.set[tc->cur], true);
		if (td_missing(tc)) {
			/* a counter was taken: make the sets again, from now */
			td_begin(tc, tc->gp, &now);
			tc->from_ns = now;
		} else if (td_snapshot(tc, &now, true, true) == -EAGAIN) {
			/*
			 * The new set's starting counts, put off as a slice's
			 * end is: taken spread, at other moments than the
			 * normalizer's, they were the one failure left of
			 * topdown/phases.py at 10 ms on a loaded host (an icl
			 * Level 3 interval 0.82 points off)
			 */
			tc->base_wait = true;
		}
		sw = ktime_get_ns() - s0;
		td_switch_avg(tc, sw);
		if (tc->base_wait) {
			td_wait(tc, s0);
			goto unlock;
		}
	}
arm:
	if (gen != tc->gen)	/* a cut waits for the round: short turns */
		hrtimer_start(&tc->timer,
			      ns_to_ktime(now + (u64)READ_ONCE(td_slice_us) * NSEC_PER_USEC),
			      HRTIMER_MODE_ABS_PINNED);
	else
		td_arm(tc, now);
unlock:
	cost = tc->cost;
	tc->cost = (struct td_stats){};
	mutex_unlock(&tc->lock);

	cost.samples = sample;
	cost.ticks = !waited;
	cost.cost_ns = ktime_get_ns() - t;
	cost.switch_ns = sw;
	cost.switches = !!sw;
	td_stats_add(&cost);
}

static enum hrtimer_restart td_tick(struct hrtimer *timer)
{
	struct td_cpu *tc = container_of(timer, struct td_cpu, timer);

	queue_work_on(tc->cpu, system_highpri_wq, &tc->work);
	return HRTIMER_NORESTART;
}

/**
 * td_cpu_kick_all() - make every counting CPU take a new interval now
 *
 * After a change of the interval: each CPU ends the interval it is in and
 * starts one of the new length at once, rather than when the old timer
 * would have run out.
 */
void td_cpu_kick_all(void)
{
	unsigned int cpu;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct td_cpu *tc = td_cpu(cpu);

		mutex_lock(&tc->lock);
		if (tc->active)
			queue_work_on(cpu, system_highpri_wq, &tc->work);
		mutex_unlock(&tc->lock);
	}
	cpus_read_unlock();
}

/*
 * The PMU a CPU's PERF_TYPE_HARDWARE cycles reach, when it is not the one
 * its raw events went to (@type): perf_init_event() offers such an event
 * that the PERF_TYPE_RAW PMU refused to every PMU, and the hybrid one
 * that has the CPU takes it (x86_pmu_event_init() refuses the others'
 * CPUs with -ENOENT).  So E-cores find cpu_atom, and tdsim's atom_cpus=
 * find tdsim_atom, with no parameter.  Returns whether it found one; then
 * @type is its type and @tc->pmu_name its name.
 */
static bool td_own_pmu(struct td_cpu *tc, u32 *type)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.disabled = 1,
		.exclude_guest = !td_count_guest,
	};
	struct perf_event *ev;
	bool found;

	ev = perf_event_create_kernel_counter(&attr, tc->cpu, NULL, NULL, NULL);
	if (IS_ERR(ev))
		return false;
	found = ev->pmu->type != *type;
	if (found) {
		*type = ev->pmu->type;
		strscpy(tc->pmu_name, ev->pmu->name, sizeof(tc->pmu_name));
	}
	perf_event_release_kernel(ev);
	return found;
}

/* @tc's copy of @m, with @m's width until the PMU says otherwise */
static const struct td_model *td_cpu_model(struct td_cpu *tc,
					   const struct td_model *m)
{
	if (!m)
		return NULL;
	tc->own = *m;
	tc->base = m;
	return &tc->own;
}

static void td_smt_work(struct work_struct *work);

/**
 * td_cpu_init() - set up the state of a possible CPU, offline
 * @tc:  its state
 * @cpu: the CPU
 */
void td_cpu_init(struct td_cpu *tc, unsigned int cpu)
{
	mutex_init(&tc->lock);
	tc->cpu = cpu;
	tc->state = TD_STATE_OFFLINE;
	/* a CPU never online has no identity yet; model= applies to it */
	tc->model = td_cpu_model(tc, td_forced_model);
	tc->slots_from = TD_SLOTS_MODEL;
	td_hrtimer_setup(&tc->timer, td_tick, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED);
	INIT_WORK(&tc->work, td_work);
	INIT_WORK(&tc->smt_work, td_smt_work);
}

/**
 * td_cpu_stopped() - a CPU's state as the module stops or starts
 * @tc:      the CPU, its counters closed
 * @stopped: stopped, or offline until it is set up again
 */
void td_cpu_stopped(struct td_cpu *tc, bool stopped)
{
	mutex_lock(&tc->lock);
	if (stopped)
		tc->state = TD_STATE_STOPPED;
	else if (tc->state == TD_STATE_STOPPED)
		tc->state = TD_STATE_OFFLINE;
	mutex_unlock(&tc->lock);
}

/* the models whose counters held were logged since the start */
static DECLARE_BITMAP(td_logged, 64);

/** td_cpu_log_reset() - at a start: log each model's counters once again */
void td_cpu_log_reset(void)
{
	bitmap_zero(td_logged, 64);
}

/*
 * Once per model and start, as the NMI watchdog says it takes a counter:
 * which events the module holds on each CPU of that model, the pinned ones
 * (a perf user of the same counters is then multiplexed) and the ones that
 * take turns on what is left.
 */
static void td_log_held(const struct td_cpu *tc)
{
	const struct td_model *m = tc->model;
	unsigned int i, n = 0, pinned = 0;
	char names[384] = "";
	size_t len = 0;

	for (i = 0; i < td_nr_models && td_models[i] != m; i++)
		;
	if (i < 64 && test_and_set_bit(i, td_logged))
		return;
	for (i = 0; i < tc->nr; i++) {
		if (!tc->ctr[i].event)
			continue;
		n++;
		if (!(tc->sets.every & BIT(i)))
			continue;
		pinned++;
		len += scnprintf(names + len, sizeof(names) - len, "%s%s",
				 len ? " " : "",
				 td_event_form(&m->events[i], tc->fixed)->name);
	}
	pr_info("%s from cpu%u on: %u events per CPU, %u of them pinned (%s), %u taking turns on the counters left\n",
		m->name, tc->cpu, n, pinned, names, n - pinned);
}

/*
 * Whether another SMT thread of @cpu's core is online, @gone (nr_cpu_ids:
 * none) aside: the CPU whose offline callback runs.  That CPU leaves
 * topology_sibling_cpumask() and cpu_online_mask only after the
 * CPUHP_AP_ONLINE_DYN callbacks, in take_cpu_down() -> __cpu_disable()
 * (x86: native_cpu_disable() -> cpu_disable_common() ->
 * remove_siblinginfo(), arch/x86/kernel/smpboot.c, 6.1 and 6.12).  A CPU
 * coming online is in its siblings' masks before its online callbacks
 * run (set_cpu_sibling_map(), from smp_callin() in 6.1 and ap_starting()
 * in 6.12).
 */
static bool td_smt(unsigned int cpu, unsigned int gone)
{
	unsigned int t;

	for_each_cpu(t, topology_sibling_cpumask(cpu))
		if (t != cpu && t != gone && cpu_online(t))
			return true;
	return false;
}

/*
 * Room for @nr counters (at most TD_MAX_EVENTS), what the CPU's model has
 * rather than the most any model has: allocated at the CPU's first open and
 * kept, with the totals, until unload (a hybrid CPU moved to its own PMU
 * may come to a model with more events: the counts so far are kept).
 */
static int td_ctr_reserve(struct td_cpu *tc, unsigned int nr)
{
	struct td_counter *ctr;

	nr = min_t(unsigned int, nr, TD_MAX_EVENTS);
	if (nr <= tc->nr_ctr)
		return 0;
	ctr = kcalloc(nr, sizeof(*ctr), GFP_KERNEL);
	if (!ctr)
		return -ENOMEM;
	if (tc->ctr)
		memcpy(ctr, tc->ctr, tc->nr_ctr * sizeof(*ctr));
	kfree(tc->ctr);
	tc->ctr = ctr;
	tc->nr_ctr = nr;
	return 0;
}

/*
 * Create the counters of @tc's level for its model and SMT setting, with
 * tc->lock held; returns with the CPU active, or with its state saying
 * why not (and a line in the kernel log).  Its sampling work starts them.
 */
static void td_open(struct td_cpu *tc)
{
	struct perf_event_attr attr = {
		.type = tc->pmu_type,
		.size = sizeof(attr),
		.disabled = 1,		/* the sets enable them in turn */
		.exclude_guest = !td_count_guest,
	};
	const struct td_model *m = tc->model;
	unsigned int i, nr, cpu = tc->cpu;
	bool moved = false, guest_refused = false;
	u32 skip;

	tc->err = 0;
	tc->err_event = NULL;
	tc->held_fixed = 0;
	tc->held_gp = 0;
	tc->pmu_name[0] = '\0';
	/*
	 * What the regression learnt was of the events being replaced (an
	 * SMT sibling came or went): td_begin() sizes it anew for the sets
	 */
	kvfree(tc->reg);
	tc->reg = NULL;
	tc->reg_size = 0;
again_pmu:
	tc->nr = 0;
	tc->open = 0;
	if (td_ctr_reserve(tc, m->nr_events)) {
		tc->state = TD_STATE_ERROR;
		tc->err = -ENOMEM;
		td_stats_add(&(struct td_stats){ .errors = 1 });
		pr_info_ratelimited("cpu%u: no memory for %s's %u counters\n",
				    cpu, m->name, m->nr_events);
		return;
	}
	nr = min_t(unsigned int, td_model_nr_events(m, td_level), TD_MAX_EVENTS);
again:
	/*
	 * Level 1 and 2 open one form of an SMT-dependent event, so Level 1
	 * fits; Level 3 multiplexes anyway and opens both, as tdnl's
	 * per-thread formulas need CPU_CLK_UNHALTED.THREAD.  Where the PMU
	 * refused an AnyThread event, the per-thread form alone.
	 */
	if (tc->any_refused)
		skip = m->smt_only;
	else
		skip = td_level >= 3 ? 0 : tc->smt ? m->nosmt_only : m->smt_only;
	tc->core_wide = m->smt_only && tc->smt && !tc->any_refused;
	tc->open = (nr >= 32 ? ~0U : BIT(nr) - 1) & ~skip;
	tc->gp = m->gp_counters;
	tc->fixed = m->fixed_counters;
again_fixed:
	tc->fixed_max = tc->fixed;
	tc->err = td_sets_build(m, tc->open, tc->gp, tc->fixed, &tc->sets);
	for (i = 0; i < nr && !tc->err; i++) {
		struct td_counter *k = &tc->ctr[i];
		struct perf_event *ev;

		k->based = false;
		k->acc = (struct td_acc){ 0 };
		k->acc_run = 0;
		k->last_gap = 0;
		k->delta = 0;
		k->d_enabled = 0;
		k->d_running = 0;
		tc->nr = i + 1;
		if (!(tc->open & BIT(i)))
			continue;
		/*
		 * The events counted all the time are pinned: enabling the
		 * next set's (flexible) events then reschedules only those,
		 * and never stops the normalizers and Level 1.
		 */
		attr.pinned = td_want_pinned(tc, i);
		attr.config = td_event_form(&m->events[i], tc->fixed)->config;
		/* the hardware PMU's own events only (tdsim is not PMUv3) */
		if (td_pmu_type < 0 && !td_pmu_implements(cpu, attr.config)) {
			tc->err = -EOPNOTSUPP;
			break;
		}
		ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
		if (IS_ERR(ev) && PTR_ERR(ev) == -EINVAL && (m->smt_only & BIT(i))) {
			/*
			 * No AnyThread: intel_pmu_hw_config() refuses the bit
			 * with -EINVAL on a PMU of version < 3, and KVM gives
			 * its guests version 2 (kvm_init_pmu_capability()).
			 * Count per thread: the events and formulas without
			 * SMT (perf's, which name the AnyThread events
			 * whenever SMT is on, compute no Level 1 there).
			 */
			pr_info("cpu%u: %s refused (AnyThread, as in a KVM guest): counting per thread, SMT %s\n",
				cpu, m->events[i].name, tc->smt ? "on" : "off");
			tc->any_refused = true;
			td_release(tc);
			goto again;
		}
		if (IS_ERR(ev) && PTR_ERR(ev) == -EINVAL && m->events[i].gp_form &&
		    m->events[i].fixed >= 0 &&
		    (unsigned int)m->events[i].fixed < tc->fixed) {
			/*
			 * The PMU has no such fixed counter (x86's
			 * validate_event() refuses its pseudo-encoding; a KVM
			 * guest has 3): count its general-purpose form, with
			 * the sets made again for fewer fixed counters.
			 */
			pr_info_ratelimited("cpu%u: %s refused (no fixed counter %d, as in a KVM guest): counting %s\n",
					    cpu, m->events[i].name, m->events[i].fixed,
					    m->events[i].gp_form->name);
			tc->fixed = m->events[i].fixed;
			td_release(tc);
			goto again_fixed;
		}
		if (IS_ERR(ev)) {
			tc->err = PTR_ERR(ev);
			/* 7.0+: a VM with a mediated PMU refuses guest time */
			guest_refused = tc->err == -EOPNOTSUPP && !attr.exclude_guest;
			break;
		}
		k->event = ev;
	}
	if (tc->err == -ENOENT && td_pmu_type < 0 && !moved &&
	    td_own_pmu(tc, &attr.type)) {
		/*
		 * The CPU's own PMU is another one (a hybrid part's E-core:
		 * PERF_TYPE_RAW is cpu_core's type): open them there, as
		 * model= says, atom_model= on that PMU or the CPU's identity.
		 * (A pmu_type= that refuses the CPU is not second-guessed.)
		 */
		td_release(tc);
		moved = true;
		tc->err = 0;
		tc->pmu_type = attr.type;
		if (td_forced_atom_model)
			tc->model = td_cpu_model(tc, td_forced_atom_model);
		m = tc->model;
		pr_info_ratelimited("cpu%u: its events are %s's (type %d), not the raw PMU's: counted there as %s\n",
				    cpu, tc->pmu_name, attr.type, m->name);
		goto again_pmu;
	}
	if (tc->err) {
		if (i < nr && tc->nr)
			tc->err_event = td_event_form(&m->events[i], tc->fixed)->name;
		td_release(tc);
		tc->nr = 0;
		tc->open = 0;
		/*
		 * -ENOENT: no PMU claims the event type (PERF_TYPE_RAW with no
		 * hardware PMU, as in a VM without PMU passthrough, or a
		 * pmu_type that does not exist).  The module stays loaded and
		 * says so; every other error is the counter's own.
		 */
		tc->state = tc->err == -ENOENT ? TD_STATE_NO_PMU : TD_STATE_ERROR;
		td_stats_add(&(struct td_stats){ .errors = 1 });
		if (tc->err == -ENOENT)
			pr_info_ratelimited("cpu%u: no PMU takes %s events (a VM without PMU passthrough?): state no-pmu\n",
					    cpu, td_pmu_type >= 0 ? "pmu_type's" : "raw");
		else if (guest_refused)
			pr_info_ratelimited("cpu%u: %s refused (%d): a VM with a mediated PMU runs, and count_guest=1 asks for guest time; load with count_guest=0 to count beside it\n",
					    cpu, m->events[i].name, tc->err);
		else if (tc->err == -EOPNOTSUPP)
			pr_info_ratelimited("cpu%u: %s (%#llx) is not implemented by its PMU (PMCEID): not counted\n",
					    cpu, m->events[i].name,
					    m->events[i].config);
		else if (i < nr && tc->nr)
			pr_info_ratelimited("cpu%u: cannot count %s (%#llx): %d\n",
					    cpu, m->events[i].name,
					    m->events[i].config, tc->err);
		else
			pr_info_ratelimited("cpu%u: %s's events fit no counters: %d\n",
					    cpu, m->name, tc->err);
		return;
	}
	td_set_slots(tc, tc->base);
	for (i = 0; i < tc->nr && !tc->pmu_name[0]; i++)
		if (tc->ctr[i].event)
			strscpy(tc->pmu_name, tc->ctr[i].event->pmu->name,
				sizeof(tc->pmu_name));
	tc->state = TD_STATE_WAITING;
	tc->mux_ppm = TD_PPM;
	tc->cur = 0;
	tc->started = false;
	/* one more CPU its group's bursts wait for */
	if (!tc->active)
		td_nl_sampling(tc->cpu, true);
	tc->active = true;
	td_log_held(tc);
}

/*
 * A sibling of this CPU came or went: with the other SMT setting, the
 * SMT-dependent events (skl's AnyThread forms) and formulas change.  The
 * interval being counted ends, published as not counted (its counts are
 * of the old formulas, and the simulated or real core changed under them),
 * and the counters are opened again for the new setting, on this CPU: its
 * counters are read and switched only from here.
 */
static void td_smt_work(struct work_struct *work)
{
	struct td_cpu *tc = container_of(work, struct td_cpu, smt_work);
	u64 now;

	mutex_lock(&tc->lock);
	if (!tc->active || tc->smt == tc->smt_want)
		goto unlock;
	if (!tc->model->smt_only || tc->any_refused) {
		tc->smt = tc->smt_want;	/* the same events and formulas */
		goto unlock;
	}
	/* the sampling work finds no timer armed: it runs after this */
	hrtimer_cancel(&tc->timer);
	if (tc->started) {
		if (tc->starved || td_snapshot(tc, &now, false, false))
			now = ktime_get_ns();
		tc->cut = true;
		td_end_interval(tc, now);
		tc->cut = false;
	}
	td_enable(tc, tc->open, false);
	td_release(tc);
	tc->smt = tc->smt_want;
	pr_info("cpu%u: SMT sibling %s: counting %s\n", tc->cpu,
		tc->smt ? "online" : "offline",
		tc->smt ? "with AnyThread (core-wide)" : "per thread");
	td_open(tc);
	if (tc->active)
		queue_work_on(tc->cpu, system_highpri_wq, &tc->work);
unlock:
	mutex_unlock(&tc->lock);
}

/*
 * A CPU came or goes (@gone when it goes): each SMT sibling of @cpu
 * re-evaluates its SMT setting in a work on itself, never from here.
 * Nothing when the hotplug state itself is removed (unload, a level
 * change): every CPU is closed then anyway.
 */
static void td_kick_siblings(unsigned int cpu, unsigned int gone)
{
	unsigned int t;

	if (READ_ONCE(td_closing))
		return;
	for_each_cpu(t, topology_sibling_cpumask(cpu)) {
		struct td_cpu *tc = td_cpu(t);

		if (t == cpu || t == gone || !cpu_online(t))
			continue;
		mutex_lock(&tc->lock);
		tc->smt_want = td_smt(t, gone);
		if (tc->active)
			queue_work_on(t, system_highpri_wq, &tc->smt_work);
		else
			tc->smt = tc->smt_want;	/* no counters to change */
		mutex_unlock(&tc->lock);
	}
}

/**
 * td_cpu_memory() - the bytes of per-CPU state the module allocated
 *
 * Every possible CPU's struct td_cpu, its counters and its regression
 * state, and the notification bursts of each group of CPUs, as asked of
 * the allocator (which rounds up); debugfs files and the perf events are
 * not in it.
 *
 * Return: the sum over the possible CPUs.
 */
size_t td_cpu_memory(void)
{
	size_t sum = num_possible_cpus() * sizeof(struct td_cpu);
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct td_cpu *tc = td_cpu(cpu);

		mutex_lock(&tc->lock);
		sum += tc->nr_ctr * sizeof(*tc->ctr) + tc->reg_size;
		sum += td_nl_cpu_memory(tc);
		mutex_unlock(&tc->lock);
	}
	return sum + td_nl_memory();
}

/**
 * td_cpu_free() - at unload, a CPU's counters
 * @tc: the CPU, its events released (offline or never online)
 */
void td_cpu_free(struct td_cpu *tc)
{
	td_nl_cpu_release(tc);
	kfree(tc->ctr);
	tc->ctr = NULL;
	tc->nr_ctr = 0;
}

/**
 * td_cpu_online() - CPU hotplug: create the counters, start sampling
 * @cpu: the CPU coming online; this runs on it
 *
 * Never fails: a CPU without counters comes online all the same, and says
 * why in its info file.  Its SMT siblings count with AnyThread from now on.
 *
 * Return: 0.
 */
int td_cpu_online(unsigned int cpu)
{
	struct td_cpu *tc = td_cpu(cpu);
	const struct td_model *m;
	bool active;
	char who[64];

	m = td_forced_model ? td_forced_model : td_identify(cpu);
	mutex_lock(&tc->lock);
	tc->model = td_cpu_model(tc, m);
	tc->slots_from = TD_SLOTS_MODEL;
	tc->pmu_type = td_pmu_type >= 0 ? td_pmu_type : PERF_TYPE_RAW;
	tc->smt = td_smt(cpu, nr_cpu_ids);
	tc->smt_want = tc->smt;
	if (!m) {
		tc->state = TD_STATE_UNSUPPORTED;
		tc->nr = 0;
		tc->open = 0;
		mutex_unlock(&tc->lock);
		td_describe(cpu, who, sizeof(who));
		pr_info_once("cpu%u: %s is not supported (give model=)\n", cpu, who);
		return 0;
	}
	td_open(tc);
	active = tc->active;
	mutex_unlock(&tc->lock);
	/* the work enables the counters, on this CPU */
	if (active)
		queue_work_on(cpu, system_highpri_wq, &tc->work);
	td_kick_siblings(cpu, nr_cpu_ids);
	return 0;
}

/**
 * td_cpu_offline() - CPU hotplug: stop sampling, release the counters
 * @cpu: the CPU going offline
 *
 * Cumulative totals stay; the next online continues them.
 *
 * Return: 0.
 */
int td_cpu_offline(unsigned int cpu)
{
	struct td_cpu *tc = td_cpu(cpu);
	bool was;

	mutex_lock(&tc->lock);
	was = tc->active;
	tc->active = false;
	mutex_unlock(&tc->lock);
	if (was)
		td_nl_sampling(cpu, false);
	/* a work that runs now sees !active and arms nothing */
	cancel_work_sync(&tc->smt_work);
	hrtimer_cancel(&tc->timer);
	cancel_work_sync(&tc->work);
	mutex_lock(&tc->lock);
	td_release(tc);		/* nr and the totals stay, for raw */
	td_nl_cpu_release(tc);
	kvfree(tc->reg);
	tc->reg = NULL;
	tc->reg_size = 0;
	tc->state = TD_STATE_OFFLINE;
	tc->started = false;
	mutex_unlock(&tc->lock);
	/* its siblings count without it, from before it leaves their masks */
	td_kick_siblings(cpu, cpu);
	return 0;
}
