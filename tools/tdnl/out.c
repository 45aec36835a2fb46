// SPDX-License-Identifier: GPL-2.0
/*
 * tdnl: output as text (a tree per CPU, or a line per sample), JSON (the
 * same numbers, percent with 4 decimals, null when n/a) or CSV (a header,
 * then the same fields flattened, n/a when missing).
 *
 * Text rounds Level 1/2 to hundredths as debugfs does (Level 1 adding up
 * to exactly 100.00, each Level 2 pair to its printed parent), so the two
 * print the same numbers for the same interval.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "linux/topdown.h"
#include "tdnl.h"

/* show_text() and watch_text() walk Level 2 as the children of Level 1 */
_Static_assert(TD_LIGHT_OPERATIONS == 2 * TD_RETIRING &&
	       TD_BRANCH_MISPREDICTS == 2 * TD_BAD_SPECULATION &&
	       TD_FETCH_LATENCY == 2 * TD_FRONTEND_BOUND &&
	       TD_MEMORY_BOUND == 2 * TD_BACKEND_BOUND, "Level 2 order");

static bool first;	/* no sample printed yet (JSON array commas) */
static const struct tdnl_info *out_info;	/* the models, for the events' names */
static bool out_raw;				/* show --raw, watch --raw */

/**
 * tdnl_out_use() - what the samples' output may take from GET_INFO
 * @info: the module's models (the raw events' names), or NULL
 * @raw:  print the raw counts in text, one CSV row per event
 */
void tdnl_out_use(const struct tdnl_info *info, bool raw)
{
	out_info = info;
	out_raw = raw;
}

/* the events of a sample's model, or NULL */
static const struct tdnl_model *events_of(const struct tdnl_sample *s)
{
	return out_info ? tdnl_find_model(out_info, s->model) : NULL;
}

/*
 * watch prints a line per sample per interval, for as long as it runs: the
 * line is put together in a buffer and written with one call, and its
 * integers by hand, rather than a dozen printf()s (under QEMU's TCG, printf
 * was 40 % of watch's CPU time at 10 ms; a JSON sample took about sixty).
 * A JSON sample with all its events may outgrow the buffer: what is in it
 * is then written out first.
 */
struct line {
	char b[1024];
	size_t n;
};

static void put_flush(struct line *l)
{
	fwrite(l->b, 1, l->n, stdout);
	l->n = 0;
}

/* room for @len more bytes, if the buffer has that much at all */
static void put_room(struct line *l, size_t len)
{
	if (len > sizeof(l->b) - l->n)
		put_flush(l);
}

static void put_mem(struct line *l, const char *s, size_t len)
{
	put_room(l, len);
	if (len > sizeof(l->b)) {
		fwrite(s, 1, len, stdout);
		return;
	}
	memcpy(l->b + l->n, s, len);
	l->n += len;
}

static void put_str(struct line *l, const char *s)
{
	put_mem(l, s, strlen(s));
}

static void put_char(struct line *l, char c)
{
	put_room(l, 1);
	l->b[l->n++] = c;
}

/*
 * @v in decimal, right-aligned in @width (or wider), padded with @pad; two
 * digits a division (a JSON sample has some eighty numbers, totals of
 * twelve digits and more: a digit a division was a third of its work)
 */
static void put_uint(struct line *l, unsigned long long v, int width, char pad)
{
	char d[24], *p = d + sizeof(d);
	int n;

	while (v >= 100) {
		unsigned int r = v % 100;

		v /= 100;
		*--p = '0' + r % 10;
		*--p = '0' + r / 10;
	}
	*--p = '0' + v % 10;
	if (v >= 10)
		*--p = '0' + v / 10;
	n = d + sizeof(d) - p;
	while (width-- > n)
		put_char(l, pad);
	put_room(l, n);
	memcpy(l->b + l->n, p, n);
	l->n += n;
}

static void put_int(struct line *l, long long v)
{
	if (v < 0)
		put_char(l, '-');
	put_uint(l, v < 0 ? -(unsigned long long)v : (unsigned long long)v, 0, ' ');
}

/*
 * @v as printf()'s "%*.*f" of @width and @prec (2 or 4) decimals would
 * print it.  In integers where that is exact: printf() rounds the double's
 * exact value, and @v scaled by 10^@prec is off that value by a few units
 * in its last place, which moves the rounding only within far less than
 * TIE of a half; a value there, a negative one or a large one goes through
 * snprintf() (one in thousands at most).  Under QEMU's TCG, the seven
 * Level 3/4 cells' snprintf() were half of watch's work per Level 3 sample.
 */
#define TIE	1e-4

static void put_fixed(struct line *l, double v, int width, int prec)
{
	double scale = prec == 2 ? 1e2 : 1e4, c = v * scale, frac;
	unsigned long long n, unit = prec == 2 ? 100 : 10000;
	char num[64];
	int len;

	frac = c - floor(c);
	if (v >= 0 && v < 1e9 && fabs(frac - 0.5) > TIE) {
		n = (unsigned long long)(c + 0.5);
		put_uint(l, n / unit, width > prec + 1 ? width - prec - 1 : 0, ' ');
		put_char(l, '.');
		put_uint(l, n % unit, prec, '0');
		return;
	}
	len = snprintf(num, sizeof(num), "%*.*f", width, prec, v);
	put_mem(l, num, len < 0 ? 0 : (size_t)len < sizeof(num) ? (size_t)len : sizeof(num) - 1);
}

/* a JSON string */
static void put_json_str(struct line *l, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	put_char(l, '"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\') {
			put_char(l, '\\');
			put_char(l, c);
		} else if (c < 0x20) {
			put_str(l, "\\u00");
			put_char(l, hex[c >> 4]);
			put_char(l, hex[c & 15]);
		} else {
			put_char(l, c);
		}
	}
	put_char(l, '"');
}

static void json_str(const char *s)
{
	struct line l = { .n = 0 };

	put_json_str(&l, s);
	put_flush(&l);
}

/* a cell of n/a: " %8s" */
static void put_na(struct line *l)
{
	put_str(l, "      n/a");
}

/* flags as names joined by @sep, quoted unless @ok; "ok" for none if @ok */
static void put_state(struct line *l, uint32_t state, const char *sep, bool ok)
{
	const char *pre = "", *q = ok ? "" : "\"";
	unsigned int bit;

	if (!state && ok)
		put_str(l, "ok");
	for (bit = 0; bit < 32; bit++) {
		const char *name = tdnl_state_name(bit);
		char hex[16];

		if (!(state & (1U << bit)))
			continue;
		if (!name) {
			snprintf(hex, sizeof(hex), "0x%x", 1U << bit);
			name = hex;
		}
		put_str(l, pre);
		put_str(l, q);
		put_str(l, name);
		put_str(l, q);
		pre = sep;
	}
}

/* put_state() to stdout (text, CSV, JSON) */
static void state_str(uint32_t state, const char *sep, bool ok)
{
	struct line l = { .n = 0 };

	put_state(&l, state, sep, ok);
	fwrite(l.b, 1, l.n, stdout);
}

/* ppm as percent, exactly, with 4 decimals */
static void put_ppm(struct line *l, uint32_t v)
{
	put_uint(l, v / 10000, 0, ' ');
	put_char(l, '.');
	put_uint(l, v % 10000, 4, '0');
}

/* put_ppm() to stdout (info, CSV) */
static void ppm(uint32_t v)
{
	struct line l = { .n = 0 };

	put_ppm(&l, v);
	put_flush(&l);
}

/* ---- info ---- */

static void info_text(const struct tdnl_info *info)
{
	unsigned int i, j;

	printf("topdown %s  level %u  interval %u ms  %s\n", info->version,
	       info->level, info->interval_ms,
	       info->running ? "running" : "stopped (tdnl start)");
	for (i = 0; i < info->nr_cpus; i++) {
		const struct tdnl_cpu_info *c = &info->cpus[i];

		printf("cpu%-4u %-12s width %u from %-5s  ", c->cpu,
		       c->model[0] ? c->model : "-", c->width,
		       tdnl_slots_from_name(c->slots_from));
		state_str(c->state, ",", true);
		putchar('\n');
	}
	for (i = 0; i < info->nr_models; i++) {
		const struct tdnl_model *m = &info->models[i];

		printf("\nmodel %s  width %u%s\n", m->name, m->width,
		       m->cycle_based ? "  cycle-based" : "");
		for (j = 0; j < m->nr_events; j++) {
			const struct td_event *e = &m->events[j];

			if (e->name)
				printf("  %2u  %-50s %#12llx  level %u\n", j,
				       e->name, e->config, e->level);
		}
	}
}

static void info_json(const struct tdnl_info *info)
{
	unsigned int i, j;

	printf("{\"version\":");
	json_str(info->version);
	printf(",\"level\":%u,\"interval_ms\":%u,\"running\":%s,\"cpus\":[",
	       info->level, info->interval_ms,
	       info->running ? "true" : "false");
	for (i = 0; i < info->nr_cpus; i++) {
		const struct tdnl_cpu_info *c = &info->cpus[i];

		printf("%s{\"cpu\":%u,\"model\":", i ? "," : "", c->cpu);
		if (c->model[0])
			json_str(c->model);
		else
			printf("null");
		printf(",\"width\":%u,\"slots_from\":\"%s\",\"state\":[", c->width,
		       tdnl_slots_from_name(c->slots_from));
		state_str(c->state, ",", false);
		printf("]}");
	}
	printf("],\"models\":[");
	for (i = 0; i < info->nr_models; i++) {
		const struct tdnl_model *m = &info->models[i];
		const char *sep = "";

		printf("%s{\"name\":", i ? "," : "");
		json_str(m->name);
		printf(",\"width\":%u,\"cycle_based\":%s,\"events\":[", m->width,
		       m->cycle_based ? "true" : "false");
		for (j = 0; j < m->nr_events; j++) {
			const struct td_event *e = &m->events[j];

			if (!e->name)
				continue;
			printf("%s{\"id\":%u,\"name\":", sep, j);
			json_str(e->name);
			printf(",\"config\":\"%#llx\",\"level\":%u}", e->config,
			       e->level);
			sep = ",";
		}
		printf("]}");
	}
	printf("]}\n");
}

/**
 * tdnl_out_info() - print a GET_INFO reply
 * @info: the reply
 * @fmt:  text, JSON, or CSV (the CPU table only)
 */
void tdnl_out_info(const struct tdnl_info *info, enum tdnl_fmt fmt)
{
	unsigned int i;

	switch (fmt) {
	case TDNL_TEXT:
		info_text(info);
		break;
	case TDNL_JSON:
		info_json(info);
		break;
	case TDNL_CSV:
		printf("cpu,model,width,slots_from,state\n");
		for (i = 0; i < info->nr_cpus; i++) {
			const struct tdnl_cpu_info *c = &info->cpus[i];

			printf("%u,%s,%u,%s,", c->cpu,
			       c->model[0] ? c->model : "n/a", c->width,
			       tdnl_slots_from_name(c->slots_from));
			state_str(c->state, "|", true);
			putchar('\n');
		}
		break;
	}
}

/* ---- samples ---- */

/*
 * The two Level 2 nodes of @parent the sample has, @child the one the
 * model measures (its pairs, where tdnl knows the model; else the first)
 */
static bool l2_pair(const struct tdnl_sample *s, const struct td_model *m,
		    unsigned int parent, unsigned int *child, unsigned int *sibling)
{
	unsigned int i, n = 0, node[2];

	for (i = 0; i < TD_NR_L2 && n < 2; i++)
		if (s->l2_set[i] && td_l2_parent[i] == parent)
			node[n++] = i;
	if (n < 2)
		return false;
	*child = node[0];
	*sibling = node[1];
	for (i = 0; m && i < m->nr_pairs; i++) {
		if (m->pairs[i].parent == parent && m->pairs[i].child == node[1]) {
			*child = node[1];
			*sibling = node[0];
		}
	}
	return true;
}

/* Level 1/2 in hundredths of a percent, as debugfs prints them */
static void centi(const struct tdnl_sample *s, u32 *c1, u32 *c2)
{
	/* the model's pairs say which child is which; none below Level 2 */
	const struct td_model *m = s->has_l2 ? td_model_find(s->model) : NULL;
	u32 l1[TD_NR_L1];
	unsigned int i, child, sibling;

	for (i = 0; i < TD_NR_L1; i++)
		l1[i] = s->l1_set[i] ? s->l1[i] : 0;
	td_to_centi(l1, TD_NR_L1, c1);
	for (i = 0; i < TD_NR_L1 && s->has_l2; i++)
		if (l2_pair(s, m, i, &child, &sibling))
			td_split(c1[i], (s->l2[child] + 50) / 100, &c2[child],
				 &c2[sibling]);
}

/*
 * The nodes over perf's thresholds (flags.c), to colour them: only when
 * colours are on, so that a pipe pays no floating point per sample
 */
static void flags(const struct tdnl_sample *s, struct tdnl_flags *f)
{
	struct tdnl_tree t;
	unsigned int i;

	memset(f, 0, sizeof(*f));
	if (!tdnl_colour() || !s->has_l1)
		return;
	for (i = 0; i < TD_NR_L1; i++)
		t.l1[i] = s->l1_set[i] ? s->l1[i] / 1e4 : NAN;
	for (i = 0; i < TD_NR_L2; i++)
		t.l2[i] = s->has_l2 && s->l2_set[i] ? s->l2[i] / 1e4 : NAN;
	memcpy(t.l34, s->l34, sizeof(t.l34));
	tdnl_flag(s->model, &t, f);
}

static void row(int depth, const char *name, bool valid, double pct, bool flagged)
{
	printf("%s%*s%-*s", tdnl_hi(flagged), 2 * depth, "", 24 - 2 * depth, name);
	if (valid && !isnan(pct))
		printf("%6.2f %%", pct);
	else
		printf("%6s", "n/a");
	printf("%s\n", tdnl_lo(flagged));
}

static void row_centi(int depth, const char *name, bool valid, u32 v, bool flagged)
{
	row(depth, name, valid, v / 100.0, flagged);
}

/* raw event @i's name (GET_INFO's), or NULL where tdnl does not know it */
static const char *event_name(const struct tdnl_model *m, unsigned int i)
{
	return m && i < m->nr_events ? m->events[i].name : NULL;
}

/* the raw counts of the interval, as the module publishes them */
static void raw_text(const struct tdnl_sample *s)
{
	const struct tdnl_model *m = events_of(s);
	unsigned int i;

	printf("  %-40s %14s %16s %12s %12s\n", "event", "delta", "total", "enabled_ns",
	       "running_ns");
	for (i = 0; i < TDNL_MAX_EVENTS; i++) {
		const struct tdnl_count *k = &s->cnt[i];

		if (!k->present)
			continue;
		if (event_name(m, i))
			printf("  %-40s", event_name(m, i));
		else
			printf("  event %-34u", i);
		printf(" %14llu %16llu %12llu %12llu\n", (unsigned long long)k->delta,
		       (unsigned long long)k->total, (unsigned long long)k->enabled,
		       (unsigned long long)k->running);
	}
}

static void show_text(const struct tdnl_sample *s)
{
	static const unsigned int l1_order[] = {
		TD_RETIRING, TD_BAD_SPECULATION, TD_FRONTEND_BOUND,
		TD_BACKEND_BOUND, TD_SMT_CONTENTION, TD_NOT_STALLED,
	};
	const struct td_model *m = td_model_find(s->model);
	u32 c1[TD_NR_L1], c2[TD_NR_L2];
	unsigned int i, j, k, node, pair[2];
	struct tdnl_flags f;

	printf("cpu%u  %s  seq %llu  ", s->cpu, s->model[0] ? s->model : "-",
	       (unsigned long long)s->seq);
	state_str(s->state, ",", true);
	if (s->has_errno)
		printf(" %d", s->err);
	putchar('\n');
	if (!s->has_l1)
		return;
	centi(s, c1, c2);
	flags(s, &f);
	for (i = 0; i < TD_NR_L1; i++) {
		node = l1_order[i];
		/* the four common nodes always; the others where they exist */
		if (node >= TD_SMT_CONTENTION && !s->l1_set[node])
			continue;
		row_centi(1, tdnl_name(s->model, td_l1_names[node]), s->l1_set[node], c1[node],
			  f.l1[node]);
		if (!s->has_l2 ||
		    !l2_pair(s, m, node, &pair[0], &pair[1]))
			continue;
		for (j = 0; j < 2; j++) {
			/* in node order, as debugfs prints them */
			node = pair[j ^ (pair[0] > pair[1])];
			row_centi(2, tdnl_name(s->model, td_l2_names[node]), true, c2[node],
				  f.l2[node]);
			if (node != TD_MEMORY_BOUND)
				continue;
			for (k = 0; k < TD_NR_L34; k++) {
				unsigned int l = td_l34_tree[k];

				row(l >= TD_FIRST_L4 ? 4 : 3,
				    tdnl_name(s->model, td_l34_names[l]), true,
				    s->l34[l], f.l34[l]);
			}
		}
	}
	if (out_raw)
		raw_text(s);
}

/* watch, text: one line per sample */
static const char * const cols[] = {
	"retiring", "bad_spec", "frontend", "backend", "memory", "l1_bound",
	"l2_bound", "l3_bound", "dram", "store", "mem_bw", "mem_lat",
};

static void cell(struct line *l, bool valid, double pct, bool flagged)
{
	if (!valid || isnan(pct)) {
		put_na(l);
		return;
	}
	put_str(l, " ");
	put_str(l, tdnl_hi(flagged));
	put_fixed(l, pct, 8, 2);
	put_str(l, tdnl_lo(flagged));
}

/* the same as cell() of @v / 100, in integers: no floating point per sample */
static void centi_cell(struct line *l, bool valid, u32 v, bool flagged)
{
	if (!valid) {
		put_na(l);
		return;
	}
	put_str(l, " ");
	put_str(l, tdnl_hi(flagged));
	put_uint(l, v / 100, 5, ' ');
	put_str(l, ".");
	put_uint(l, v % 100, 2, '0');
	put_str(l, tdnl_lo(flagged));
}

static void watch_text(const struct tdnl_sample *s)
{
	static const unsigned int l34_order[] = {
		TD_L1_BOUND, TD_L2_BOUND, TD_L3_BOUND, TD_DRAM_BOUND,
		TD_STORE_BOUND, TD_MEM_BANDWIDTH, TD_MEM_LATENCY,
	};
	u32 c1[TD_NR_L1] = {}, c2[TD_NR_L2] = {};
	struct line l = { .n = 0 };
	struct tdnl_flags f;
	unsigned int i;

	/* "cpu%-4u %8llu" */
	put_str(&l, "cpu");
	i = l.n;
	put_uint(&l, s->cpu, 0, ' ');
	while (l.n < i + 4)
		l.b[l.n++] = ' ';
	put_str(&l, " ");
	put_uint(&l, s->seq, 8, ' ');
	if (s->has_l1)
		centi(s, c1, c2);
	flags(s, &f);
	for (i = TD_RETIRING; i <= TD_BACKEND_BOUND; i++)
		centi_cell(&l, s->has_l1 && s->l1_set[i], c1[i], f.l1[i]);
	centi_cell(&l, s->has_l1 && s->has_l2 && s->l2_set[TD_MEMORY_BOUND],
		   c2[TD_MEMORY_BOUND], f.l2[TD_MEMORY_BOUND]);
	for (i = 0; i < TD_NR_L34; i++)
		cell(&l, true, s->l34[l34_order[i]], f.l34[l34_order[i]]);
	put_str(&l, " ");
	put_state(&l, s->state, ",", true);
	put_str(&l, "\n");
	fwrite(l.b, 1, l.n, stdout);
	if (out_raw)
		raw_text(s);
}

/* ,"key": */
static void put_key(struct line *l, const char *sep, const char *key)
{
	put_str(l, sep);
	put_char(l, '"');
	put_str(l, key);
	put_str(l, "\":");
}

/* @pre (",\"key\":"), then @v */
static void put_num(struct line *l, const char *pre, unsigned long long v)
{
	put_str(l, pre);
	put_uint(l, v, 0, ' ');
}

static void json_level(struct line *l, const char *model, const char *key, bool valid,
		       const uint32_t *v, const bool *set, const char * const *names,
		       unsigned int n, unsigned int always)
{
	const char *sep = "";
	unsigned int i;

	put_key(l, ",", key);
	if (!valid) {
		put_str(l, "null");
		return;
	}
	put_char(l, '{');
	for (i = 0; i < n; i++) {
		if (i >= always && !set[i])
			continue;
		put_key(l, sep, tdnl_name(model, names[i]));
		sep = ",";
		if (set && !set[i])
			put_str(l, "null");
		else
			put_ppm(l, v[i]);
	}
	put_char(l, '}');
}

static void json_l34(struct line *l, const char *key, const struct tdnl_sample *s,
		     unsigned int from, unsigned int to)
{
	unsigned int i;

	put_key(l, ",", key);
	put_char(l, '{');
	for (i = from; i < to; i++) {
		put_key(l, i > from ? "," : "", tdnl_name(s->model, td_l34_names[i]));
		if (isnan(s->l34[i]))
			put_str(l, "null");
		else
			put_fixed(l, s->l34[i], 0, 4);
	}
	put_char(l, '}');
}

/* how the interval was counted: event sets, each level's counted share */
static void json_counted(struct line *l, const struct tdnl_sample *s)
{
	static const char * const key[] = { "level1", "level2", "level3" };
	const char *sep = "";
	unsigned int i;

	if (!s->sets)
		return;
	put_num(l, ",\"sets\":", s->sets);
	put_str(l, ",\"counted\":{");
	for (i = 0; i < 3; i++) {
		if (!s->counted_set[i])
			continue;
		put_key(l, sep, key[i]);
		/* ppm as a fraction, as "%.6f" of it / 1e6 */
		put_uint(l, s->counted[i] / 1000000, 0, ' ');
		put_char(l, '.');
		put_uint(l, s->counted[i] % 1000000, 6, '0');
		sep = ",";
	}
	put_char(l, '}');
}

/* each raw event's delta, total, enabled and running (ns), by name */
static void json_events(struct line *l, const struct tdnl_sample *s)
{
	const struct tdnl_model *m = events_of(s);
	const char *sep = "";
	unsigned int i;

	put_str(l, ",\"events\":{");
	for (i = 0; i < TDNL_MAX_EVENTS; i++) {
		const struct tdnl_count *k = &s->cnt[i];

		if (!k->present)
			continue;
		put_str(l, sep);
		if (event_name(m, i)) {
			put_json_str(l, event_name(m, i));
		} else {
			put_char(l, '"');
			put_uint(l, i, 0, ' ');
			put_char(l, '"');
		}
		put_num(l, ":{\"delta\":", k->delta);
		put_num(l, ",\"total\":", k->total);
		put_num(l, ",\"enabled\":", k->enabled);
		put_num(l, ",\"running\":", k->running);
		put_char(l, '}');
		sep = ",";
	}
	put_char(l, '}');
}

/* the module's cumulative totals, in slots (or cycles) */
static void json_totals(struct line *l, const struct tdnl_totals *t)
{
	unsigned int i;

	if (!t->present)
		return;
	put_str(l, ",\"totals\":{");
	put_key(l, "", t->cycles ? "cycles" : "slots");
	put_uint(l, t->units, 0, ' ');
	for (i = 0; i < TD_NR_L1; i++) {
		if (!t->l1_set[i])
			continue;
		put_key(l, ",", td_l1_names[i]);
		put_uint(l, t->l1[i], 0, ' ');
	}
	for (i = 0; i < TD_NR_L2; i++) {
		if (!t->l2_set[i])
			continue;
		put_key(l, ",", td_l2_names[i]);
		put_uint(l, t->l2[i], 0, ' ');
	}
	put_char(l, '}');
}

static void sample_json(struct line *l, const struct tdnl_sample *s, bool watch)
{
	put_num(l, "{\"cpu\":", s->cpu);
	put_num(l, ",\"seq\":", s->seq);
	put_num(l, ",\"start_ns\":", s->start_ns);
	put_num(l, ",\"end_ns\":", s->end_ns);
	put_str(l, ",\"model\":");
	if (s->model[0])
		put_json_str(l, s->model);
	else
		put_str(l, "null");
	put_str(l, ",\"state\":[");
	put_state(l, s->state, ",", false);
	put_char(l, ']');
	if (s->has_errno && (s->state & TOPDOWN_STATE_ERROR)) {
		put_str(l, ",\"errno\":");
		put_int(l, s->err);
	}
	json_level(l, s->model, "level1", s->has_l1, s->l1, s->l1_set, td_l1_names, TD_NR_L1,
		   TD_SMT_CONTENTION);
	/* the model's own nodes */
	json_level(l, s->model, "level2", s->has_l1 && s->has_l2, s->l2, s->l2_set,
		   td_l2_names, TD_NR_L2, 0);
	json_l34(l, "level3", s, 0, TD_FIRST_L4);
	json_l34(l, "level4", s, TD_FIRST_L4, TD_NR_L34);
	json_counted(l, s);
	json_totals(l, &s->tot);
	json_events(l, s);
	if (watch) {
		put_num(l, ",\"lost\":", s->lost);
	}
	put_char(l, '}');
}

static void na_or_ppm(bool valid, uint32_t v)
{
	putchar(',');
	if (valid)
		ppm(v);
	else
		fputs("n/a", stdout);
}

/* --raw: one row per event */
static void raw_csv(const struct tdnl_sample *s)
{
	const struct tdnl_model *m = events_of(s);
	unsigned int i;

	for (i = 0; i < TDNL_MAX_EVENTS; i++) {
		const struct tdnl_count *k = &s->cnt[i];

		if (!k->present)
			continue;
		printf("%u,%llu,%llu,%llu,%s,", s->cpu, (unsigned long long)s->seq,
		       (unsigned long long)s->start_ns, (unsigned long long)s->end_ns,
		       s->model[0] ? s->model : "n/a");
		if (event_name(m, i))
			printf("%s", event_name(m, i));
		else
			printf("%u", i);
		printf(",%llu,%llu,%llu,%llu\n", (unsigned long long)k->delta,
		       (unsigned long long)k->total, (unsigned long long)k->enabled,
		       (unsigned long long)k->running);
	}
}

static void sample_csv(const struct tdnl_sample *s, bool watch)
{
	unsigned int i;

	if (out_raw) {
		raw_csv(s);
		return;
	}

	printf("%u,%llu,%llu,%llu,%s,", s->cpu, (unsigned long long)s->seq,
	       (unsigned long long)s->start_ns, (unsigned long long)s->end_ns,
	       s->model[0] ? s->model : "n/a");
	state_str(s->state, "|", true);
	if (s->has_errno && (s->state & TOPDOWN_STATE_ERROR))
		printf(",%d", s->err);
	else
		printf(",n/a");
	for (i = 0; i < TD_NR_L1; i++)
		na_or_ppm(s->has_l1 && s->l1_set[i], s->l1[i]);
	for (i = 0; i < TD_NR_L2; i++)
		na_or_ppm(s->has_l1 && s->has_l2 && s->l2_set[i], s->l2[i]);
	for (i = 0; i < TD_NR_L34; i++) {
		if (isnan(s->l34[i]))
			printf(",n/a");
		else
			printf(",%.4f", s->l34[i]);
	}
	if (watch)
		printf(",%llu", (unsigned long long)s->lost);
	putchar('\n');
}

/**
 * tdnl_out_begin() - before the samples of show or watch
 * @fmt:   the format
 * @watch: samples as they come (one JSON object per line) rather than one
 *         array of the latest
 * @model: the model the CSV header names the nodes for (--perf-names), or NULL
 */
void tdnl_out_begin(enum tdnl_fmt fmt, bool watch, const char *model)
{
	unsigned int i;

	first = true;
	switch (fmt) {
	case TDNL_TEXT:
		if (!watch)
			break;
		printf("%-7s %8s", "cpu", "seq");
		for (i = 0; i < ARRAY_SIZE(cols); i++)
			printf(" %8s", cols[i]);
		printf(" state\n");
		break;
	case TDNL_JSON:
		if (!watch)
			putchar('[');
		break;
	case TDNL_CSV:
		if (out_raw) {
			printf("cpu,seq,start_ns,end_ns,model,event,delta,total,enabled,running\n");
			break;
		}
		printf("cpu,seq,start_ns,end_ns,model,state,errno");
		for (i = 0; i < TD_NR_L1; i++)
			printf(",%s", tdnl_name(model, td_l1_names[i]));
		for (i = 0; i < TD_NR_L2; i++)
			printf(",%s", tdnl_name(model, td_l2_names[i]));
		for (i = 0; i < TD_NR_L34; i++)
			printf(",%s", tdnl_name(model, td_l34_names[i]));
		printf("%s\n", watch ? ",lost" : "");
		break;
	}
}

/**
 * tdnl_out_sample() - print one sample
 * @s:     the sample, with what tdnl_calc() added
 * @fmt:   the format
 * @watch: as a line of watch (JSON: one object per line, with "lost")
 */
void tdnl_out_sample(const struct tdnl_sample *s, enum tdnl_fmt fmt,
		     bool watch)
{
	switch (fmt) {
	case TDNL_TEXT:
		if (watch)
			watch_text(s);
		else
			show_text(s);
		break;
	case TDNL_JSON: {
		struct line l = { .n = 0 };

		if (!watch && !first)
			put_char(&l, ',');
		sample_json(&l, s, watch);
		if (watch)
			put_char(&l, '\n');
		put_flush(&l);
		break;
	}
	case TDNL_CSV:
		sample_csv(s, watch);
		break;
	}
	first = false;
}

/** tdnl_out_flush() - write out what watch printed of a burst */
void tdnl_out_flush(void)
{
	fflush(stdout);
}

/**
 * tdnl_out_end() - after the samples
 * @fmt:   the format
 * @watch: as for tdnl_out_begin()
 */
void tdnl_out_end(enum tdnl_fmt fmt, bool watch)
{
	if (fmt == TDNL_JSON && !watch)
		printf("]\n");
}
