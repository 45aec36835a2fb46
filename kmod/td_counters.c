// SPDX-License-Identifier: GPL-2.0
/*
 * topdown: creating, enabling and releasing a CPU's counters.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/overflow.h>
#include "topdown.h"
#include "td_internal.h"
#include "td_perf.h"

void td_release(struct td_cpu *tc)
{
	unsigned int i;

	for (i = 0; i < tc->nr; i++) {
		if (tc->ctr[i].event)
			perf_event_release_kernel(tc->ctr[i].event);
		tc->ctr[i].event = NULL;
	}
}

/* enable or disable the events of @mask; disabled ones start a new window */
void td_enable(struct td_cpu *tc, u32 mask, bool on)
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
unsigned int td_missing(const struct td_cpu *tc)
{
	u32 on = td_on(tc);
	unsigned int i, n = 0;

	for (i = 0; i < tc->nr; i++)
		if ((on & BIT(i)) && tc->ctr[i].event &&
		    !td_perf_active(tc->ctr[i].event))
			n++;
	return n;
}

/* pinned: the events counted all the time */
static bool td_want_pinned(const struct td_cpu *tc, unsigned int i)
{
	return tc->sets.every & BIT(i);
}

/*
 * Pin the events counted all the time, and no others: a pinned event in a
 * set would make perf reschedule every pinned event at each of its turns.
 * Pinned-ness is fixed at creation, so an event whose place or form changed
 * is created again, disabled.
 */
void td_reform(struct td_cpu *tc)
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
		if (td_perf_attr(k->event)->pinned == want &&
		    td_perf_attr(k->event)->config == e->config)
			continue;
		attr = *td_perf_attr(k->event);
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
 * The PMU that the CPU's PERF_TYPE_HARDWARE cycles reach, if not @type:
 * perf_init_event() offers an event the raw PMU refused to every PMU, and
 * on a hybrid part only the one that has the CPU takes it (x86 refuses the
 * others with -ENOENT).  So E-cores find cpu_atom, and tdsim's atom_cpus=
 * find tdsim_atom.  If found, @type and @tc->pmu_name say which.
 */
static bool td_own_pmu(struct td_cpu *tc, u32 *type)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.disabled = 1,
		.exclude_guest = !tc->cfg->count_guest,
	};
	struct perf_event *ev;
	bool found;

	ev = perf_event_create_kernel_counter(&attr, tc->cpu, NULL, NULL, NULL);
	if (IS_ERR(ev))
		return false;
	found = td_perf_pmu(ev)->type != *type;
	if (found) {
		*type = td_perf_pmu(ev)->type;
		strscpy(tc->pmu_name, td_perf_pmu(ev)->name, sizeof(tc->pmu_name));
	}
	perf_event_release_kernel(ev);
	return found;
}

/* the models whose counters held were logged since the start */
static DECLARE_BITMAP(td_logged, 64);

/* room for the pinned events' names in td_log_held()'s line */
#define TD_HELD_NAMES	384

/* at a start: log each model's counters once again */
void td_cpu_log_reset(void)
{
	bitmap_zero(td_logged, 64);
}

/*
 * Once per model and start, as the NMI watchdog logs its counter: the
 * events held on each CPU of the model, and which are pinned (a perf user
 * of the same counters is then multiplexed).
 */
static void td_log_held(const struct td_cpu *tc)
{
	const struct td_model *m = tc->model;
	unsigned int i, n = 0, pinned = 0;
	size_t len = 0;
	char *names;

	for (i = 0; i < td_nr_models && td_models[i] != m; i++)
		;
	if (i < 64 && test_and_set_bit(i, td_logged))
		return;
	names = kzalloc(TD_HELD_NAMES, GFP_KERNEL);
	for (i = 0; i < tc->nr; i++) {
		if (!tc->ctr[i].event)
			continue;
		n++;
		if (!(tc->sets.every & BIT(i)))
			continue;
		pinned++;
		if (names)
			len += scnprintf(names + len, TD_HELD_NAMES - len, "%s%s",
					 len ? " " : "",
					 td_event_form(&m->events[i], tc->fixed)->name);
	}
	pr_info("%s from cpu%u on: %u events per CPU, %u of them pinned (%s), %u taking turns on the counters left\n",
		m->name, tc->cpu, n, pinned, names ?: "?", n - pinned);
	kfree(names);
}

/*
 * Room for @nr counters and their sample, as many as the CPU's model has,
 * kept with the totals until unload; a hybrid CPU moved to its own PMU may
 * need more, and growing keeps the counts so far.
 */
static int td_ctr_reserve(struct td_cpu *tc, unsigned int nr)
{
	struct td_counter *ctr;
	struct td_sample *sample;

	nr = min_t(unsigned int, nr, TD_MAX_EVENTS);
	if (nr <= tc->nr_ctr)
		return 0;
	ctr = kcalloc(nr, sizeof(*ctr), GFP_KERNEL);
	sample = kzalloc(struct_size(sample, counts, nr), GFP_KERNEL);
	if (!ctr || !sample || td_scratch_alloc(tc, nr)) {
		kfree(ctr);
		kfree(sample);
		return -ENOMEM;
	}
	if (tc->ctr)
		memcpy(ctr, tc->ctr, tc->nr_ctr * sizeof(*ctr));
	kfree(tc->ctr);
	kfree(tc->sample);
	tc->ctr = ctr;
	tc->sample = sample;
	tc->nr_ctr = nr;
	return 0;
}

/* how creating a level's counters went */
struct td_opening {
	unsigned int nr;	/* the level's events */
	unsigned int failed;	/* the event whose counter failed (tc->err) */
	bool guest_refused;	/* a mediated VM refused guest time */
};

enum td_created {
	TD_CREATED,		/* every counter, or tc->err says why not */
	TD_AGAIN_PER_THREAD,	/* AnyThread refused: again, per thread */
	TD_AGAIN_FEWER_FIXED,	/* no such fixed counter: again, fewer */
};

/*
 * Level 1 and 2 open one form of an SMT-dependent event, so Level 1 fits;
 * Level 3 opens both, as tdnl's per-thread formulas need
 * CPU_CLK_UNHALTED.THREAD.  Where the PMU refused AnyThread, the
 * per-thread form alone.
 */
static void td_open_mask(struct td_cpu *tc, unsigned int nr)
{
	const struct td_model *m = tc->model;
	u32 skip;

	if (tc->any_refused)
		skip = m->smt_only;
	else
		skip = tc->cfg->level >= 3 ? 0 : tc->smt ? m->nosmt_only : m->smt_only;
	tc->core_wide = m->smt_only && tc->smt && !tc->any_refused;
	tc->open = (nr >= 32 ? ~0U : BIT(nr) - 1) & ~skip;
	tc->gp = m->gp_counters;
	tc->fixed = m->fixed_counters;
}

/* a counter's interval state, before its event is created */
static void td_ctr_reset(struct td_counter *k)
{
	k->based = false;
	k->acc = (struct td_acc){ 0 };
	k->acc_run = 0;
	k->last_gap = 0;
	k->delta = 0;
	k->d_enabled = 0;
	k->d_running = 0;
}

/*
 * Event @i's counter, pinned if it is counted all the time (switching sets
 * then never stops it: td_reform()).  A refusal the PMU of a KVM guest
 * gives asks for another try: no AnyThread (intel_pmu_hw_config() refuses
 * it on a PMU of version < 3, as kvm_init_pmu_capability() gives), or no
 * such fixed counter (validate_event(); a guest has 3).
 */
static enum td_created td_create(struct td_cpu *tc, struct perf_event_attr *attr,
				 unsigned int i, struct td_opening *op)
{
	const struct td_event *e = &tc->model->events[i];
	struct perf_event *ev;

	attr->pinned = td_want_pinned(tc, i);
	attr->config = td_event_form(e, tc->fixed)->config;
	/* the hardware PMU's own events only (tdsim is not PMUv3) */
	if (tc->cfg->pmu_type < 0 && !td_arch_implements(tc->cpu, attr->config)) {
		tc->err = -EOPNOTSUPP;
		return TD_CREATED;
	}
	ev = perf_event_create_kernel_counter(attr, tc->cpu, NULL, NULL, NULL);
	if (IS_ERR(ev) && PTR_ERR(ev) == -EINVAL && (tc->model->smt_only & BIT(i))) {
		pr_info("cpu%u: %s refused (AnyThread, as in a KVM guest): counting per thread, SMT %s\n",
			tc->cpu, e->name, tc->smt ? "on" : "off");
		tc->any_refused = true;
		return TD_AGAIN_PER_THREAD;
	}
	if (IS_ERR(ev) && PTR_ERR(ev) == -EINVAL && e->gp_form && e->fixed >= 0 &&
	    (unsigned int)e->fixed < tc->fixed) {
		pr_info_ratelimited("cpu%u: %s refused (no fixed counter %d, as in a KVM guest): counting %s\n",
				    tc->cpu, e->name, e->fixed, e->gp_form->name);
		tc->fixed = e->fixed;
		return TD_AGAIN_FEWER_FIXED;
	}
	if (IS_ERR(ev)) {
		tc->err = PTR_ERR(ev);
		/* 7.0+: a VM with a mediated PMU refuses guest time */
		op->guest_refused = tc->err == -EOPNOTSUPP && !attr->exclude_guest;
		return TD_CREATED;
	}
	tc->ctr[i].event = ev;
	return TD_CREATED;
}

/* every counter of the level, tried again where the PMU asks (td_create()) */
static void td_create_all(struct td_cpu *tc, struct perf_event_attr *attr,
			  struct td_opening *op)
{
	enum td_created r = TD_AGAIN_PER_THREAD;
	unsigned int i;

	for (;;) {
		if (r == TD_AGAIN_PER_THREAD)
			td_open_mask(tc, op->nr);
		tc->fixed_max = tc->fixed;
		tc->err = td_sets_build(tc->model, tc->open, tc->gp, tc->fixed, &tc->sets);
		r = TD_CREATED;
		for (i = 0; i < op->nr && !tc->err && r == TD_CREATED; i++) {
			td_ctr_reset(&tc->ctr[i]);
			tc->nr = i + 1;
			if (tc->open & BIT(i))
				r = td_create(tc, attr, i, op);
		}
		if (r == TD_CREATED) {
			op->failed = tc->err && i ? i - 1 : i;
			return;
		}
		td_release(tc);
	}
}

/*
 * The CPU's own PMU is another one (a hybrid part's E-core: PERF_TYPE_RAW
 * is cpu_core's type): its events are opened there, as model= says,
 * atom_model= on that PMU, or the CPU's identity.  A pmu_type= that
 * refuses the CPU is not second-guessed.
 */
static bool td_open_moved(struct td_cpu *tc, struct perf_event_attr *attr)
{
	if (tc->err != -ENOENT || tc->cfg->pmu_type >= 0 || !td_own_pmu(tc, &attr->type))
		return false;
	td_release(tc);
	tc->err = 0;
	tc->pmu_type = attr->type;
	if (tc->cfg->atom_model)
		tc->model = td_cpu_model(tc, tc->cfg->atom_model);
	pr_info_ratelimited("cpu%u: its events are %s's (type %d), not the raw PMU's: counted there as %s\n",
			    tc->cpu, tc->pmu_name, attr->type, tc->model->name);
	return true;
}

/* the room for the model's counters, or the CPU's error state */
static int td_open_reserve(struct td_cpu *tc, struct td_opening *op)
{
	const struct td_model *m = tc->model;

	tc->nr = 0;
	tc->open = 0;
	if (td_ctr_reserve(tc, m->nr_events)) {
		tc->state = TD_STATE_ERROR;
		tc->err = -ENOMEM;
		td_stats_add(&(struct td_stats){ .errors = 1 });
		pr_info_ratelimited("cpu%u: no memory for %s's %u counters\n",
				    tc->cpu, m->name, m->nr_events);
		return -ENOMEM;
	}
	op->nr = min_t(unsigned int, td_model_nr_events(m, tc->cfg->level), TD_MAX_EVENTS);
	return 0;
}

/*
 * A counter could not be created: none is kept, and the state says why.
 * -ENOENT: no PMU claims the event type (PERF_TYPE_RAW with no hardware
 * PMU, as in a VM without PMU passthrough, or a pmu_type that does not
 * exist); every other error is the counter's own.
 */
static void td_open_failed(struct td_cpu *tc, const struct td_opening *op)
{
	const struct td_model *m = tc->model;
	unsigned int i = op->failed, cpu = tc->cpu;
	bool named = i < op->nr && tc->nr;

	if (named)
		tc->err_event = td_event_form(&m->events[i], tc->fixed)->name;
	td_release(tc);
	tc->nr = 0;
	tc->open = 0;
	tc->state = tc->err == -ENOENT ? TD_STATE_NO_PMU : TD_STATE_ERROR;
	td_stats_add(&(struct td_stats){ .errors = 1 });
	if (tc->err == -ENOENT)
		pr_info_ratelimited("cpu%u: no PMU takes %s events (a VM without PMU passthrough?): state no-pmu\n",
				    cpu, tc->cfg->pmu_type >= 0 ? "pmu_type's" : "raw");
	else if (op->guest_refused)
		pr_info_ratelimited("cpu%u: %s refused (%d): a VM with a mediated PMU runs, and count_guest=1 asks for guest time; load with count_guest=0 to count beside it\n",
				    cpu, m->events[i].name, tc->err);
	else if (tc->err == -EOPNOTSUPP)
		pr_info_ratelimited("cpu%u: %s (%#llx) is not implemented by its PMU (PMCEID): not counted\n",
				    cpu, m->events[i].name, m->events[i].config);
	else if (named)
		pr_info_ratelimited("cpu%u: cannot count %s (%#llx): %d\n",
				    cpu, m->events[i].name, m->events[i].config, tc->err);
	else
		pr_info_ratelimited("cpu%u: %s's events fit no counters: %d\n",
				    cpu, m->name, tc->err);
}

/*
 * Create the counters of @tc's level for its model and SMT setting, with
 * tc->lock held; returns with the CPU active, or with its state saying
 * why not (and a line in the kernel log).  Its sampling work starts them.
 */
void td_open(struct td_cpu *tc)
{
	struct perf_event_attr attr = {
		.type = tc->pmu_type,
		.size = sizeof(attr),
		.disabled = 1,		/* the sets enable them in turn */
		.exclude_guest = !tc->cfg->count_guest,
	};
	struct td_opening op = {};
	bool moved = false;
	unsigned int i;

	tc->err = 0;
	tc->err_event = NULL;
	tc->held_fixed = 0;
	tc->held_gp = 0;
	tc->pmu_name[0] = '\0';
	/* what the regression learnt was of the events being replaced */
	kvfree(tc->reg);
	tc->reg = NULL;
	tc->reg_size = 0;
	do {
		if (td_open_reserve(tc, &op))
			return;
		td_create_all(tc, &attr, &op);
	} while (!moved && (moved = td_open_moved(tc, &attr)));
	if (tc->err) {
		td_open_failed(tc, &op);
		return;
	}
	td_set_slots(tc, tc->base);
	for (i = 0; i < tc->nr && !tc->pmu_name[0]; i++)
		if (tc->ctr[i].event)
			strscpy(tc->pmu_name, td_perf_pmu(tc->ctr[i].event)->name,
				sizeof(tc->pmu_name));
	tc->state = TD_STATE_WAITING;
	tc->mux_ppm = TD_PPM;
	tc->plan.cur = 0;
	tc->started = false;
	tc->active = true;
	td_log_held(tc);
}
