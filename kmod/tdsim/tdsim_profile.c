// SPDX-License-Identifier: GPL-2.0
/*
 * tdsim ground-truth profiles: parsing, checking and printing the text of
 * /sys/kernel/debug/tdsim/cpuN/profile.
 *
 * The text is "key=value" pairs separated by spaces or newlines, values in
 * percent with up to four decimals (freq_mhz in MHz).  A write may name only
 * some keys; the others keep their value, and the result is checked as a
 * whole: a bad write changes nothing.
 *
 * A schedule (cpuN/schedule) is up to TDSIM_MAX_PHASES such texts, each with
 * its "ms=N", separated by ';'; each phase starts from the steady profile.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/ctype.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "tdsim.h"

static const char * const tdsim_key_names[TDSIM_NR_KEYS] = {
	[TDSIM_RETIRING]		= "retiring",
	[TDSIM_BAD_SPECULATION]		= "bad_speculation",
	[TDSIM_FRONTEND_BOUND]		= "frontend_bound",
	[TDSIM_BACKEND_BOUND]		= "backend_bound",
	[TDSIM_SMT_CONTENTION]		= "smt_contention",
	[TDSIM_HEAVY_OPERATIONS]	= "heavy_operations",
	[TDSIM_BRANCH_MISPREDICTS]	= "branch_mispredicts",
	[TDSIM_FETCH_LATENCY]		= "fetch_latency",
	[TDSIM_MEMORY_BOUND]		= "memory_bound",
	[TDSIM_L1_BOUND]		= "l1_bound",
	[TDSIM_L2_BOUND]		= "l2_bound",
	[TDSIM_L3_BOUND]		= "l3_bound",
	[TDSIM_DRAM_BOUND]		= "dram_bound",
	[TDSIM_STORE_BOUND]		= "store_bound",
	[TDSIM_MEM_BANDWIDTH]		= "mem_bandwidth",
	[TDSIM_MEM_LATENCY]		= "mem_latency",
	[TDSIM_FREQ_MHZ]		= "freq_mhz",
};

/* Level 2 nodes and their Level 1 parents. */
static const u8 tdsim_parent[][2] = {
	{ TDSIM_HEAVY_OPERATIONS, TDSIM_RETIRING },
	{ TDSIM_BRANCH_MISPREDICTS, TDSIM_BAD_SPECULATION },
	{ TDSIM_FETCH_LATENCY, TDSIM_FRONTEND_BOUND },
	{ TDSIM_MEMORY_BOUND, TDSIM_BACKEND_BOUND },
};

#define FREQ_MIN_MHZ	100
#define FREQ_MAX_MHZ	10000

/**
 * tdsim_scale() - @frac (ppm) of @mul
 * @frac: fraction in parts per million
 * @mul:  quantity to scale
 *
 * Return: the scaled quantity.
 */
u32 tdsim_scale(u32 frac, u32 mul)
{
	return div_u64((u64)frac * mul, TDSIM_PPM);
}

/**
 * tdsim_ratio() - @num / @den of @mul, 0 when @den is 0, saturating at U32_MAX
 * @num: numerator
 * @den: denominator
 * @mul: quantity to scale
 *
 * Return: the scaled quantity.
 */
u32 tdsim_ratio(u64 num, u64 den, u32 mul)
{
	if (!den)
		return 0;
	return min_t(u64, div64_u64(num * mul, den), U32_MAX);
}

/**
 * tdsim_profile_default() - the profile every CPU has at load
 * @m: the emulated model
 * @p: filled in
 */
void tdsim_profile_default(const struct tdsim_model *m, struct tdsim_profile *p)
{
	static const u32 pct[TDSIM_NR_KEYS] = {
		[TDSIM_RETIRING] = 30, [TDSIM_BAD_SPECULATION] = 10,
		[TDSIM_FRONTEND_BOUND] = 20, [TDSIM_BACKEND_BOUND] = 40,
		[TDSIM_HEAVY_OPERATIONS] = 5, [TDSIM_BRANCH_MISPREDICTS] = 8,
		[TDSIM_FETCH_LATENCY] = 12, [TDSIM_MEMORY_BOUND] = 25,
		[TDSIM_L1_BOUND] = 8, [TDSIM_L2_BOUND] = 4, [TDSIM_L3_BOUND] = 3,
		[TDSIM_DRAM_BOUND] = 6, [TDSIM_STORE_BOUND] = 2,
		[TDSIM_MEM_BANDWIDTH] = 2, [TDSIM_MEM_LATENCY] = 3,
	};
	int i;

	for (i = 0; i < TDSIM_NR_FRACTIONS; i++)
		p->v[i] = pct[i] * (TDSIM_PPM / 100);
	if (m->smt_contention) {
		p->v[TDSIM_BACKEND_BOUND] -= 5 * (TDSIM_PPM / 100);
		p->v[TDSIM_SMT_CONTENTION] = 5 * (TDSIM_PPM / 100);
	}
	p->v[TDSIM_FREQ_MHZ] = 2000;
}

/* "12", "12.5", "0.0001" percent -> ppm; at most 4 decimals, at most 100 %. */
static int tdsim_parse_percent(const char *s, u32 *ppm)
{
	u32 whole = 0, frac = 0, scale = 10000;
	const char *c = s;

	if (!isdigit(*c))
		return -EINVAL;
	while (isdigit(*c)) {
		whole = whole * 10 + (*c++ - '0');
		if (whole > 100)
			return -EINVAL;
	}
	if (*c == '.') {
		c++;
		if (!isdigit(*c))
			return -EINVAL;
		while (isdigit(*c)) {
			if (scale == 1)
				return -EINVAL;
			scale /= 10;
			frac += (*c++ - '0') * scale;
		}
	}
	if (*c)
		return -EINVAL;
	*ppm = whole * 10000 + frac;
	return *ppm > TDSIM_PPM ? -EINVAL : 0;
}

static int tdsim_key_lookup(const struct tdsim_model *m, const char *key)
{
	int i;

	for (i = 0; i < TDSIM_NR_KEYS; i++) {
		if (strcmp(key, tdsim_key_names[i]))
			continue;
		if (i == TDSIM_SMT_CONTENTION && !m->smt_contention)
			return -EINVAL;
		return i;
	}
	return -EINVAL;
}

static int tdsim_profile_check(const struct tdsim_model *m,
			       const struct tdsim_profile *p, const char *what)
{
	u32 l1, mem;
	int i;

	l1 = p->v[TDSIM_RETIRING] + p->v[TDSIM_BAD_SPECULATION] +
	     p->v[TDSIM_FRONTEND_BOUND] + p->v[TDSIM_BACKEND_BOUND] +
	     p->v[TDSIM_SMT_CONTENTION];
	if (l1 != TDSIM_PPM) {
		pr_info("%s: level 1 adds up to %u.%04u %%, not 100\n", what,
			l1 / 10000, l1 % 10000);
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(tdsim_parent); i++) {
		if (p->v[tdsim_parent[i][0]] > p->v[tdsim_parent[i][1]]) {
			pr_info("%s: %s is larger than its parent %s\n", what,
				tdsim_key_names[tdsim_parent[i][0]],
				tdsim_key_names[tdsim_parent[i][1]]);
			return -EINVAL;
		}
	}
	mem = p->v[TDSIM_L1_BOUND] + p->v[TDSIM_L2_BOUND] +
	      p->v[TDSIM_L3_BOUND] + p->v[TDSIM_DRAM_BOUND] +
	      p->v[TDSIM_STORE_BOUND];
	if (mem > TDSIM_PPM) {
		pr_info("%s: l1..store_bound add up to more than 100 %%\n", what);
		return -EINVAL;
	}
	if (p->v[TDSIM_MEM_BANDWIDTH] + p->v[TDSIM_MEM_LATENCY] >
	    p->v[TDSIM_DRAM_BOUND]) {
		pr_info("%s: mem_bandwidth + mem_latency is larger than their parent dram_bound\n",
			what);
		return -EINVAL;
	}
	/*
	 * Skylake and Ice Lake derive memory_bound from the memory stall
	 * cycles, so one cannot be zero while the other is not.
	 */
	if (m->mem_from_stalls && p->v[TDSIM_BACKEND_BOUND] &&
	    !p->v[TDSIM_MEMORY_BOUND] != !mem) {
		pr_info("%s: on %s memory_bound > 0 needs some l1..store_bound > 0, and the other way round\n",
			what, m->name);
		return -EINVAL;
	}
	if (p->v[TDSIM_FREQ_MHZ] < FREQ_MIN_MHZ ||
	    p->v[TDSIM_FREQ_MHZ] > FREQ_MAX_MHZ) {
		pr_info("%s: freq_mhz must be %u..%u\n", what,
			FREQ_MIN_MHZ, FREQ_MAX_MHZ);
		return -EINVAL;
	}
	return 0;
}

/**
 * tdsim_profile_parse() - apply "key=value ..." to a copy of a profile
 * @m:   the emulated model
 * @buf: NUL-terminated text; it is modified
 * @p:   in: the current profile; out: the new one, only if 0 is returned
 * @what: what the text is, for the kernel log ("profile")
 *
 * Return: 0, or -EINVAL with a line in the kernel log saying why.
 */
int tdsim_profile_parse(const struct tdsim_model *m, const char *buf,
			struct tdsim_profile *p, const char *what)
{
	struct tdsim_profile next = *p;
	char *text, *cur, *tok;
	int ret = 0, key;
	u32 val;

	text = kstrdup(buf, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	cur = text;
	while ((tok = strsep(&cur, " \t\n")) != NULL) {
		char *eq;

		if (!*tok)
			continue;
		eq = strchr(tok, '=');
		if (!eq) {
			pr_info("%s: '%s' is not key=value\n", what, tok);
			ret = -EINVAL;
			break;
		}
		*eq++ = '\0';
		key = tdsim_key_lookup(m, tok);
		if (key < 0) {
			pr_info("%s: unknown key '%s' for model %s\n", what,
				tok, m->name);
			ret = -EINVAL;
			break;
		}
		if (key == TDSIM_FREQ_MHZ)
			ret = kstrtou32(eq, 10, &val);
		else
			ret = tdsim_parse_percent(eq, &val);
		if (ret) {
			pr_info("%s: bad value '%s' for %s\n", what, eq, tok);
			ret = -EINVAL;
			break;
		}
		next.v[key] = val;
	}
	kfree(text);
	if (!ret)
		ret = tdsim_profile_check(m, &next, what);
	if (!ret)
		*p = next;
	return ret;
}

/**
 * tdsim_profile_print() - the profile as "key=value" items
 * @m:   the emulated model
 * @p:   the profile
 * @sep: what follows each item: '\n' (one a line) or ' '
 * @buf: output
 * @len: size of @buf
 *
 * Return: the length written.
 */
int tdsim_profile_print(const struct tdsim_model *m,
			const struct tdsim_profile *p, char sep, char *buf,
			size_t len)
{
	int i, n = 0;

	for (i = 0; i < TDSIM_NR_KEYS; i++) {
		u32 v = p->v[i];
		u32 frac = v % 10000;
		int digits = 4;

		if (i == TDSIM_SMT_CONTENTION && !m->smt_contention)
			continue;
		if (i == TDSIM_FREQ_MHZ) {
			n += scnprintf(buf + n, len - n, "%s=%u%c",
				       tdsim_key_names[i], v, sep);
			continue;
		}
		/* shortest exact form: 12, 12.5, 12.25 */
		while (digits && frac % 10 == 0) {
			frac /= 10;
			digits--;
		}
		if (digits)
			n += scnprintf(buf + n, len - n, "%s=%u.%0*u%c",
				       tdsim_key_names[i], v / 10000, digits,
				       frac, sep);
		else
			n += scnprintf(buf + n, len - n, "%s=%u%c",
				       tdsim_key_names[i], v / 10000, sep);
	}
	return n;
}

/*
 * One phase of a schedule: take out its "ms=N" (exactly one), leave the
 * rest, with blanks for the taken text, to tdsim_profile_parse().
 */
static int tdsim_phase_ms(char *text, const char *what, u32 *ms)
{
	char *cur = text, *tok, *found = NULL;
	size_t len;

	while (*cur) {
		cur = skip_spaces(cur);
		len = strcspn(cur, " \t\n");
		if (len >= 3 && !strncmp(cur, "ms=", 3)) {
			if (found) {
				pr_info("%s: ms= given twice\n", what);
				return -EINVAL;
			}
			found = cur;
		}
		cur += len;
	}
	if (!found) {
		pr_info("%s: no ms=\n", what);
		return -EINVAL;
	}
	len = strcspn(found, " \t\n");
	tok = kstrndup(found + 3, len - 3, GFP_KERNEL);
	if (!tok)
		return -ENOMEM;
	if (kstrtou32(tok, 10, ms) || !*ms || *ms > TDSIM_PHASE_MS_MAX) {
		pr_info("%s: bad value '%s' for ms (1..%u)\n", what, tok,
			TDSIM_PHASE_MS_MAX);
		kfree(tok);
		return -EINVAL;
	}
	kfree(tok);
	memset(found, ' ', len);
	return 0;
}

/**
 * tdsim_schedule_parse() - parse the text of cpuN/schedule
 * @m:      the emulated model
 * @buf:    NUL-terminated text: phases "ms=N key=value ..." separated by ';'
 * @steady: the steady profile, which gives each phase its unnamed keys
 * @p:      out: the profile of each phase (%TDSIM_MAX_PHASES of room)
 * @ms:     out: the duration of each phase (%TDSIM_MAX_PHASES of room)
 *
 * "off", or only blanks, is no schedule.  Blank phases (a trailing ';') are
 * skipped.  Each phase is checked as a profile is; a bad one fails it all.
 *
 * Return: the number of phases (0: off), or -EINVAL with a line in the
 * kernel log naming the phase and saying why.
 */
int tdsim_schedule_parse(const struct tdsim_model *m, const char *buf,
			 const struct tdsim_profile *steady,
			 struct tdsim_profile *p, u32 *ms)
{
	char *text, *cur, *phase, what[32];
	int nr = 0, ret = 0;

	text = kstrdup(buf, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	if (!strcmp(strim(text), "off")) {
		kfree(text);
		return 0;
	}
	cur = text;
	while ((phase = strsep(&cur, ";")) != NULL) {
		if (!*skip_spaces(phase))
			continue;
		if (nr == TDSIM_MAX_PHASES) {
			pr_info("schedule: more than %u phases\n",
				TDSIM_MAX_PHASES);
			ret = -EINVAL;
			break;
		}
		snprintf(what, sizeof(what), "schedule phase %d", nr + 1);
		ret = tdsim_phase_ms(phase, what, &ms[nr]);
		if (ret)
			break;
		p[nr] = *steady;
		ret = tdsim_profile_parse(m, phase, &p[nr], what);
		if (ret)
			break;
		nr++;
	}
	kfree(text);
	return ret ? ret : nr;
}

/**
 * tdsim_truth_valid() - whether truth quantity @t exists on model @m
 * @m: the emulated model
 * @t: index, TDSIM_TRUTH_*
 *
 * Return: true if it does.
 */
bool tdsim_truth_valid(const struct tdsim_model *m, u64 t)
{
	if (t >= TDSIM_NR_TRUTH)
		return false;
	return t != TDSIM_TRUTH_KEY(TDSIM_SMT_CONTENTION) || m->smt_contention;
}

/**
 * tdsim_truth_name() - the name of truth quantity @t
 * @t: index, below %TDSIM_NR_TRUTH
 *
 * Return: "cycles", "slots" or the profile key it integrates.
 */
const char *tdsim_truth_name(unsigned int t)
{
	if (t == TDSIM_TRUTH_CYCLES)
		return "cycles";
	if (t == TDSIM_TRUTH_SLOTS)
		return "slots";
	return tdsim_key_names[t - TDSIM_TRUTH_KEY(0)];
}
