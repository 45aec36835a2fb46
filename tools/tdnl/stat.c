// SPDX-License-Identifier: GPL-2.0
/*
 * tdnl stat: the topdown of some CPUs over exactly one command's run, as
 * perf stat gives its counts.
 *
 * Nothing is sampled: the module keeps cumulative totals, and a
 * set-config end-interval makes every CPU end its interval at once and
 * publish them.  One cut just before the command starts and one just after
 * it ends bracket the run; the differences of the two samples' totals are
 * the window's.  Levels 1/2: the module's node totals, the slot-weighted
 * sums of the fractions it published (the same numbers as show and watch);
 * Levels 3/4: the raw event totals through tdnl's clock-tick formulas
 * (l34.c).  The samples in between are only counted: intervals, not
 * counted, multiplexed, skewed, lost.  CPUs of one model are added up;
 * CPUs of different models (hybrid) make one group each.
 */
#define _GNU_SOURCE	/* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include "linux/topdown.h"
#include "tdnl.h"

/* how long a cut's samples may take to come, ms */
#define STAT_CUT_WAIT_MS	5000
/* the states of an interval whose slots are not in the totals (idle has none) */
#define STAT_MISSING	(TOPDOWN_STATE_NOT_COUNTED | TOPDOWN_STATE_ERROR | \
			 TOPDOWN_STATE_OFFLINE | TOPDOWN_STATE_WAITING | \
			 TOPDOWN_STATE_STOPPED | TOPDOWN_STATE_NO_PMU | \
			 TOPDOWN_STATE_UNSUPPORTED)

struct stat_cpu {
	bool want;			/* selected and counting: a sample is due */
	bool have[2];			/* the cuts' samples came */
	struct tdnl_sample cut[2];	/* before and after */
	uint64_t last_seq;
	unsigned int intervals, not_counted, multiplexed, skewed;
	uint64_t lost;
};

struct stat_run {
	struct tdnl_info info;
	struct tdnl_nl nl, sock;
	unsigned char cpus[TDNL_MAX_CPUS / 8];
	struct stat_cpu *c;		/* by index in info.cpus */
	int phase;			/* 0: waiting for the first cut, 1: running, 2: the second */
	uint64_t cut_ns;		/* when the current cut was asked for */
	bool gone;
	struct tdnl_sample s;
};

static volatile sig_atomic_t child_done;

static void on_child(int sig)
{
	child_done = 1;
}

static struct stat_cpu *cpu_of(struct stat_run *r, unsigned int cpu)
{
	unsigned int i;

	for (i = 0; i < r->info.nr_cpus; i++)
		if (r->info.cpus[i].cpu == cpu)
			return &r->c[i];
	return NULL;
}

static int sample_cb(const struct nlmsghdr *nlh, void *data)
{
	struct stat_run *r = data;
	struct tdnl_sample *s = &r->s;
	struct stat_cpu *k;
	int which, ret;

	ret = tdnl_sample_ntf(nlh, &r->sock, 0, s, &r->gone);
	if (ret != TDNL_CB_SAMPLE)
		return ret;
	if (!tdnl_selected(r->cpus, s->cpu))
		return MNL_CB_OK;
	k = cpu_of(r, s->cpu);
	if (!k || !k->want)
		return MNL_CB_OK;
	which = r->phase ? 1 : 0;
	/* the intervals of the window: after the first cut's, up to the second's */
	if (k->have[0] && !k->have[1] && s->end_ns > k->cut[0].end_ns) {
		k->intervals++;
		k->not_counted += !!(s->state & STAT_MISSING);
		k->multiplexed += !!(s->state & TOPDOWN_STATE_MULTIPLEXED);
		k->skewed += !!(s->state & TOPDOWN_STATE_SKEWED);
		if (s->seq > k->last_seq + 1)
			k->lost += s->seq - k->last_seq - 1;
	}
	k->last_seq = s->seq;
	if (r->phase == 1 || k->have[which] || s->end_ns < r->cut_ns)
		return MNL_CB_OK;
	k->cut[which] = *s;
	k->have[which] = true;
	return MNL_CB_OK;
}

/* ask every CPU to end its interval now */
static int cut(struct stat_run *r)
{
	struct nlmsghdr *nlh = tdnl_nl_msg(&r->nl, TOPDOWN_CMD_SET_CONFIG, NLM_F_ACK);
	static const char *const names[] = {
		[TOPDOWN_A_CONFIG_END_INTERVAL] = "end-interval",
	};

	mnl_attr_put(nlh, TOPDOWN_A_CONFIG_END_INTERVAL, 0, NULL);
	r->cut_ns = mono_ns();
	if (tdnl_nl_talk(&r->nl, nlh, NULL, NULL))
		return tdnl_nl_error_attrs(errno, "stat: set-config end-interval",
					   names, ARRAY_SIZE(names));
	return 0;
}

/* read samples until every CPU's cut came (or @ms passed, or a signal) */
static int wait_cut(struct stat_run *r, int which, int ms)
{
	struct pollfd pfd = { .fd = mnl_socket_get_fd(r->sock.sk), .events = POLLIN };
	uint64_t end = mono_ns() + (uint64_t)ms * 1000000;
	unsigned int i;

	for (;;) {
		bool all = true;
		int left = (int)((int64_t)(end - mono_ns()) / 1000000);

		for (i = 0; i < r->info.nr_cpus; i++)
			if (r->c[i].want && !r->c[i].have[which])
				all = false;
		if (all)
			return 0;
		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, left) < 0 && errno != EINTR)
			return -errno;
		if (tdnl_nl_drain(&r->sock, sample_cb, r) < 0 &&
		    errno != EINTR && errno != ENOBUFS)
			return -errno;
		if (r->gone)
			return -ENOENT;
	}
}

/* fork and exec the command; -1 (said) when it could not be run */
static pid_t run_cmd(char **argv)
{
	int p[2], err = 0;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC)) {
		perror("tdnl: stat: pipe");
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		perror("tdnl: stat: fork");
		return -1;
	}
	if (!pid) {
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		execvp(argv[0], argv);
		err = errno;
		if (write(p[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(p[1]);
	/* the exec worked when the pipe closes empty */
	if (read(p[0], &err, sizeof(err)) == sizeof(err)) {
		fprintf(stderr, "tdnl: stat: cannot run '%s': %s\n", argv[0], strerror(err));
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

static void add_up(struct stat_run *r, struct tdnl_group *g)
{
	struct tdnl_sample *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	uint64_t l1[TD_NR_L1] = {}, l2[TD_NR_L2] = {};
	unsigned int i, e;
	bool first = true;

	if (!a || !b)
		goto out;
	for (e = 0; e < TDNL_MAX_EVENTS; e++)
		a->cnt[e].present = b->cnt[e].present = true;
	for (i = 0; i < r->info.nr_cpus; i++) {
		const struct stat_cpu *k = &r->c[i];
		const struct tdnl_totals *t0 = &k->cut[0].tot, *t1 = &k->cut[1].tot;

		if (!k->have[0] || !k->have[1] || strcmp(k->cut[1].model, g->model))
			continue;
		g->nr++;
		g->intervals += k->intervals;
		g->not_counted += k->not_counted;
		g->multiplexed += k->multiplexed;
		g->skewed += k->skewed;
		g->lost += k->lost;
		if (t0->present && t1->present && t1->units >= t0->units) {
			g->units += t1->units - t0->units;
			g->cycles = t1->cycles;
			for (e = 0; e < TD_NR_L1; e++) {
				g->l1_set[e] = t1->l1_set[e];
				l1[e] += t1->l1[e] - t0->l1[e];
			}
			/* below level 2 Level 2's totals stand still: not 0, n/a */
			for (e = 0; e < TD_NR_L2; e++) {
				g->l2_set[e] = t1->l2_set[e] && t0->l2_set[e] &&
					       r->info.level >= 2;
				l2[e] += t1->l2[e] - t0->l2[e];
			}
		}
		/* the raw totals, for Level 3/4 and the counts */
		for (e = 0; e < TDNL_MAX_EVENTS; e++) {
			const struct tdnl_count *c0 = &k->cut[0].cnt[e], *c1 = &k->cut[1].cnt[e];
			bool ok = c0->present && c1->present && c1->total >= c0->total;

			g->ev_set[e] = (first || g->ev_set[e]) && ok;
			if (!ok)
				continue;
			g->ev[e] += c1->total - c0->total;
			a->cnt[e].total += c0->total;
			b->cnt[e].total += c1->total;
			a->cnt[e].running = b->cnt[e].running = 1;
		}
		if (first)	/* which formulas (SMT) the module used */
			b->state = k->cut[1].state;
		first = false;
	}
	for (e = 0; e < TD_NR_L1; e++)
		g->l1[e] = g->units ? 100.0 * l1[e] / g->units : NAN;
	for (e = 0; e < TD_NR_L2; e++)
		g->l2[e] = g->units ? 100.0 * l2[e] / g->units : NAN;
	/* Level 3/4 over the window: one span from the first cut to the second */
	for (e = 0; e < TDNL_MAX_EVENTS; e++)
		if (!g->ev_set[e])
			a->cnt[e].present = b->cnt[e].present = false;
	a->seq = 1;
	b->seq = 3;
	strcpy(b->model, g->model);
	tdnl_calc(b, a, g->m, g->width);
	memcpy(g->l34, b->l34, sizeof(g->l34));
	g->clocks = b->clocks;
out:
	free(a);
	free(b);
}

/* ---- output ---- */

static void json_nodes(FILE *f, const char *model, const char *name, const char *const *names,
		       const double *v, const bool *set, unsigned int n)
{
	unsigned int i;
	bool any = false;

	fprintf(f, ",\"%s\":", name);
	for (i = 0; i < n; i++) {
		if (!set[i])
			continue;
		fprintf(f, "%s\"%s\":", any ? "," : "{", tdnl_name(model, names[i]));
		if (isnan(v[i]))
			fputs("null", f);
		else
			fprintf(f, "%.4f", v[i]);
		any = true;
	}
	fputs(any ? "}" : "null", f);
}

static void json_out(FILE *f, struct stat_run *r, struct tdnl_group *g, unsigned int ng,
		     char **argv, int status, double secs)
{
	bool l34_set[TD_NR_L34];
	unsigned int i, e, n;

	fputs("{\"command\":[", f);
	for (i = 0; argv[i]; i++) {
		const char *p;

		fputs(i ? ",\"" : "\"", f);
		for (p = argv[i]; *p; p++)
			fprintf(f, *p == '"' || *p == '\\' ? "\\%c" :
				(unsigned char)*p < 0x20 ? "\\u%04x" : "%c", *p);
		fputc('"', f);
	}
	fprintf(f, "],\"status\":%d,\"elapsed_s\":%.6f,\"level\":%u,\"interval_ms\":%u,\"groups\":[",
		status, secs, r->info.level, r->info.interval_ms);
	for (i = 0; i < ng; i++) {
		for (e = 0; e < TD_NR_L34; e++)
			l34_set[e] = !isnan(g[i].l34[e]);
		fprintf(f, "%s{\"model\":\"%s\",\"cpus\":%u,\"%s\":%llu,\"clockticks\":",
			i ? "," : "", g[i].model, g[i].nr, g[i].cycles ? "cycles" : "slots",
			(unsigned long long)g[i].units);
		if (isnan(g[i].clocks))
			fputs("null", f);
		else
			fprintf(f, "%.0f", g[i].clocks);
		fprintf(f, ",\"intervals\":%u,\"not_counted\":%u,\"multiplexed\":%u,"
			"\"skewed\":%u,\"lost\":%llu",
			g[i].intervals, g[i].not_counted, g[i].multiplexed,
			g[i].skewed, (unsigned long long)g[i].lost);
		json_nodes(f, g[i].model, "level1", td_l1_names, g[i].l1, g[i].l1_set, TD_NR_L1);
		json_nodes(f, g[i].model, "level2", td_l2_names, g[i].l2, g[i].l2_set, TD_NR_L2);
		json_nodes(f, g[i].model, "level3", td_l34_names, g[i].l34, l34_set, TD_FIRST_L4);
		json_nodes(f, g[i].model, "level4", td_l34_names + TD_FIRST_L4, g[i].l34 + TD_FIRST_L4,
			   l34_set + TD_FIRST_L4, TD_NR_L34 - TD_FIRST_L4);
		fputs(",\"events\":{", f);
		for (e = 0, n = 0; g[i].m && e < g[i].m->nr_events; e++)
			if (g[i].ev_set[e] && g[i].m->events[e].name)
				fprintf(f, "%s\"%s\":%llu", n++ ? "," : "",
					g[i].m->events[e].name, (unsigned long long)g[i].ev[e]);
		fputs("}}", f);
	}
	fputs("],\"per_cpu\":[", f);
	for (i = 0, e = 0; i < r->info.nr_cpus; i++) {
		const struct stat_cpu *k = &r->c[i];

		if (!k->have[0] || !k->have[1])
			continue;
		fprintf(f, "%s{\"cpu\":%u,\"model\":\"%s\",\"start_ns\":%llu,\"end_ns\":%llu,\"%s\":%llu,\"intervals\":%u}",
			e++ ? "," : "", r->info.cpus[i].cpu, k->cut[1].model,
			(unsigned long long)k->cut[0].end_ns, (unsigned long long)k->cut[1].end_ns,
			k->cut[1].tot.cycles ? "cycles" : "slots",
			(unsigned long long)(k->cut[1].tot.units - k->cut[0].tot.units),
			k->intervals);
	}
	fputs("]}\n", f);
}

static void text_pct(const char *name, int depth, double v, const char *unit)
{
	if (isnan(v))
		printf("  %*s%-*s %8s\n", 2 * depth, "", 24 - 2 * depth, name, "n/a");
	else
		printf("  %*s%-*s %8.2f %%%s\n", 2 * depth, "", 24 - 2 * depth, name, v, unit);
}

static void text_out(struct stat_run *r, struct tdnl_group *g, unsigned int ng,
		     char **argv, int status, double secs)
{
	unsigned int i, n, c;

	printf("\n Topdown of %s over '", ng ? "the CPUs" : "no CPU");
	for (i = 0; argv[i]; i++)
		printf("%s%s", i ? " " : "", argv[i]);
	printf("':\n");
	for (i = 0; i < ng; i++) {
		const struct tdnl_group *x = &g[i];

		printf("\n %u CPU%s, %s, level %u: %% of %s\n", x->nr, x->nr == 1 ? "" : "s",
		       x->model, r->info.level, x->cycles ? "cycles" : "slots");
		if (!x->units) {
			printf("  nothing counted in the window (idle, or not counted)\n");
			continue;
		}
		for (n = 0; n < TD_NR_L1; n++) {
			if (!x->l1_set[n])
				continue;
			text_pct(tdnl_name(x->model, td_l1_names[n]), 0, x->l1[n], "");
			for (c = 0; c < TD_NR_L2; c++) {
				if (!x->l2_set[c] || td_l2_parent[c] != n)
					continue;
				text_pct(tdnl_name(x->model, td_l2_names[c]), 1, x->l2[c], "");
				if (c != TD_MEMORY_BOUND || isnan(x->l34[0]))
					continue;
				for (unsigned int k = 0; k < TD_NR_L34; k++) {
					unsigned int l = td_l34_tree[k];

					text_pct(tdnl_name(x->model, td_l34_names[l]),
						 l >= TD_FIRST_L4 ? 3 : 2,
						 x->l34[l], " of clock ticks");
				}
			}
		}
		if (!isnan(x->l34[0]))
			printf("  (Levels 3/4 are shares of clock ticks and can overlap:\n"
			       "   not parts of their parent's slots)\n");
		printf("\n  %llu %s in %u interval%s: %u not counted, %u multiplexed, %u skewed, %llu lost\n",
		       (unsigned long long)x->units, x->cycles ? "cycles" : "slots",
		       x->intervals, x->intervals == 1 ? "" : "s", x->not_counted,
		       x->multiplexed, x->skewed, (unsigned long long)x->lost);
		if (x->not_counted)
			printf("  (the not counted intervals are missing from these figures)\n");
	}
	printf("\n %12.6f seconds time elapsed", secs);
	if (status)
		printf(" (exit status %d)", status);
	printf("\n\n");
}

static void csv_out(struct tdnl_group *g, unsigned int ng)
{
	unsigned int i, n;

	printf("model,cpus,level,node,percent\n");
	for (i = 0; i < ng; i++) {
		for (n = 0; n < TD_NR_L1; n++)
			if (g[i].l1_set[n] && !isnan(g[i].l1[n]))
				printf("%s,%u,1,%s,%.4f\n", g[i].model, g[i].nr,
				       tdnl_name(g[i].model, td_l1_names[n]), g[i].l1[n]);
		for (n = 0; n < TD_NR_L2; n++)
			if (g[i].l2_set[n] && !isnan(g[i].l2[n]))
				printf("%s,%u,2,%s,%.4f\n", g[i].model, g[i].nr,
				       tdnl_name(g[i].model, td_l2_names[n]), g[i].l2[n]);
		for (n = 0; n < TD_NR_L34; n++)
			if (!isnan(g[i].l34[n]))
				printf("%s,%u,%d,%s,%.4f\n", g[i].model, g[i].nr,
				       n < TD_FIRST_L4 ? 3 : 4, tdnl_name(g[i].model, td_l34_names[n]),
				       g[i].l34[n]);
	}
}

/* ---- the command ---- */

static int parse(int argc, char **argv, unsigned char *cpus, const char **out, int *cmd)
{
	int i;

	memset(cpus, 0xff, TDNL_MAX_CPUS / 8);
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (!strcmp(argv[i], "-c")) {
			if (++i == argc)
				return tdnl_bad("stat: -c needs a CPU list");
			memset(cpus, 0, TDNL_MAX_CPUS / 8);
			if (!tdnl_cpulist(argv[i], cpus))
				return tdnl_bad("stat: bad CPU list '%s'", argv[i]);
		} else if (!strcmp(argv[i], "-o")) {
			if (++i == argc)
				return tdnl_bad("stat: -o needs a file");
			*out = argv[i];
		} else if (argv[i][0] == '-') {
			return tdnl_bad("stat: unknown option '%s' (the command goes after --)", argv[i]);
		} else {
			break;
		}
	}
	if (i == argc)
		return tdnl_bad("stat: no command: tdnl stat [-c CPULIST] [-o FILE] -- CMD [ARGS]");
	*cmd = i;
	return 0;
}

/* which CPUs a sample is due from: selected, online and counting */
static unsigned int pick(struct stat_run *r)
{
	unsigned int i, n = 0;
	uint32_t never = TOPDOWN_STATE_OFFLINE | TOPDOWN_STATE_NO_PMU | TOPDOWN_STATE_ERROR |
			 TOPDOWN_STATE_UNSUPPORTED | TOPDOWN_STATE_STOPPED;

	for (i = 0; i < r->info.nr_cpus; i++) {
		r->c[i].want = tdnl_selected(r->cpus, r->info.cpus[i].cpu) &&
			       !(r->info.cpus[i].state & never);
		n += r->c[i].want;
	}
	return n;
}

static unsigned int groups(struct stat_run *r, struct tdnl_group *g)
{
	unsigned int i, j, ng = 0;

	for (i = 0; i < r->info.nr_cpus; i++) {
		const struct stat_cpu *k = &r->c[i];

		if (!k->have[0] || !k->have[1] || !k->cut[1].model[0])
			continue;
		for (j = 0; j < ng; j++)
			if (!strcmp(g[j].model, k->cut[1].model))
				break;
		if (j < ng)
			continue;
		snprintf(g[ng].model, sizeof(g[ng].model), "%s", k->cut[1].model);
		g[ng].m = tdnl_find_model(&r->info, g[ng].model);
		g[ng].width = tdnl_cpu_width(&r->info, r->info.cpus[i].cpu);
		add_up(r, &g[ng]);
		ng++;
	}
	return ng;
}

/*
 * The window: the first cut, @argv's run (or @ms of waiting when @argv is
 * NULL), the second cut, then the groups.  0, or an exit status with the
 * reason said; *status is @argv's.
 */
static int window(struct stat_run *r, char **argv, unsigned int ms, const char *who,
		  struct tdnl_group *g, unsigned int *ng, int *status, double *secs)
{
	struct sigaction sa = { .sa_handler = on_child, .sa_flags = SA_NOCLDSTOP };
	uint64_t t0, t1;
	pid_t pid = 0;
	int ret, wst = 0;

	if (!r->info.running) {
		fprintf(stderr, "tdnl: %s: topdown is stopped: start it with 'tdnl start'\n", who);
		return TDNL_EXIT_ERR;
	}
	if (!pick(r)) {
		fprintf(stderr, "tdnl: %s: no selected CPU counts (offline, no-pmu, unsupported or error: see tdnl info)\n",
			who);
		return TDNL_EXIT_ERR;
	}
	if (tdnl_nl_watch(&r->sock, &r->nl)) {
		if (errno == EPERM) {
			fprintf(stderr, "tdnl: permission denied: %s receives the samples, which needs CAP_SYS_ADMIN\n",
				who);
			return TDNL_EXIT_ERR;
		}
		return tdnl_nl_error(errno, "joining the samples group");
	}
	/* the first cut: every CPU's totals just before */
	ret = cut(r);
	if (ret)
		return ret;
	if (wait_cut(r, 0, STAT_CUT_WAIT_MS)) {
		fprintf(stderr, "tdnl: %s: not every selected CPU sent its sample at the start\n", who);
		return TDNL_EXIT_ERR;
	}
	r->phase = 1;
	t0 = mono_ns();
	if (argv) {
		/* Ctrl-C reaches the command; tdnl stays to say what it measured */
		signal(SIGINT, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		sigaction(SIGCHLD, &sa, NULL);
		pid = run_cmd(argv);
		if (pid < 0)
			return 127;
	}
	for (;;) {
		struct pollfd pfd = { .fd = mnl_socket_get_fd(r->sock.sk), .events = POLLIN };
		int wait = 100;

		if (argv && waitpid(pid, &wst, WNOHANG) != 0)
			break;
		if (!argv) {
			uint64_t now = mono_ns();

			if (now >= t0 + (uint64_t)ms * 1000000)
				break;
			wait = (int)((t0 + (uint64_t)ms * 1000000 - now) / 1000000) + 1;
		} else if (child_done) {
			wait = 0;
		}
		/* read as they come: a full socket would drop the cut's */
		if (poll(&pfd, 1, wait) > 0)
			tdnl_nl_drain(&r->sock, sample_cb, r);
	}
	t1 = mono_ns();
	*status = !argv ? 0 : WIFEXITED(wst) ? WEXITSTATUS(wst) : 128 + WTERMSIG(wst);
	*secs = (t1 - t0) / 1e9;
	/* the second cut: just after */
	r->phase = 2;
	ret = cut(r);
	if (ret)
		return ret;
	if (wait_cut(r, 1, STAT_CUT_WAIT_MS))
		fprintf(stderr, "tdnl: %s: not every selected CPU sent its sample at the end: those are left out\n",
			who);
	*ng = groups(r, g);
	if (!*ng) {
		fprintf(stderr, "tdnl: %s: no CPU gave both samples\n", who);
		return TDNL_EXIT_ERR;
	}
	return 0;
}

static struct stat_run *run_new(const unsigned char *cpus, struct tdnl_group **g)
{
	struct stat_run *r = calloc(1, sizeof(*r));

	*g = NULL;
	if (!r)
		return NULL;
	memcpy(r->cpus, cpus, sizeof(r->cpus));
	if (tdnl_open_with_info(&r->nl, &r->info)) {
		free(r);
		return NULL;	/* said */
	}
	r->c = calloc(r->info.nr_cpus, sizeof(*r->c));
	*g = calloc(r->info.nr_cpus + 1, sizeof(**g));
	if (!r->c || !*g)
		fprintf(stderr, "tdnl: out of memory\n");
	return r;
}

static void run_free(struct stat_run *r)
{
	if (!r)
		return;
	free(r->c);
	tdnl_free_info(&r->info);
	tdnl_nl_close(&r->sock);
	tdnl_nl_close(&r->nl);
	free(r);
}

/**
 * tdnl_measure() - the topdown of some CPUs over the next @ms
 * @cpus:  a CPU bitmap (tdnl_cpulist())
 * @ms:    how long
 * @g:     out: the groups (free() them), one per model
 * @ng:    out: how many
 * @level: out: the module's level
 * @secs:  out: the window, s
 *
 * Return: 0, or an exit status with the reason said.
 */
int tdnl_measure(const unsigned char *cpus, unsigned int ms, struct tdnl_group **g,
		 unsigned int *ng, unsigned int *level, double *secs)
{
	struct stat_run *r = run_new(cpus, g);
	int ret = TDNL_EXIT_ERR, status;

	if (r && r->c && *g) {
		ret = window(r, NULL, ms, "explain", *g, ng, &status, secs);
		*level = r->info.level;
	}
	if (!r) {
		free(*g);
		*g = NULL;
	}
	run_free(r);
	return ret;
}

/**
 * tdnl_cmd_stat() - tdnl stat [-c CPULIST] [-o FILE] [--] CMD [ARGS]
 * @argc: the arguments after "stat"
 * @argv: them
 *
 * Return: CMD's exit status (128 + the signal that killed it, 127 when it
 * could not be run), 1 when topdown could not measure, 2 on bad usage.
 */
int tdnl_cmd_stat(int argc, char **argv)
{
	unsigned char cpus[TDNL_MAX_CPUS / 8];
	struct tdnl_group *g = NULL;
	const char *out = NULL;
	struct stat_run *r;
	unsigned int ng = 0;
	int cmd = 0, ret, status = 0;
	double secs = 0;

	ret = parse(argc, argv, cpus, &out, &cmd);
	if (ret)
		return ret;
	r = run_new(cpus, &g);
	if (!r || !r->c || !g) {
		ret = TDNL_EXIT_ERR;
		goto out;
	}
	ret = window(r, argv + cmd, 0, "stat", g, &ng, &status, &secs);
	if (ret)
		goto out;
	if (tdnl_format() == TDNL_JSON)
		json_out(stdout, r, g, ng, argv + cmd, status, secs);
	else if (tdnl_format() == TDNL_CSV)
		csv_out(g, ng);
	else
		text_out(r, g, ng, argv + cmd, status, secs);
	ret = status;
	if (out) {
		FILE *f = fopen(out, "w");

		if (!f) {
			fprintf(stderr, "tdnl: stat: cannot write '%s': %s\n", out, strerror(errno));
			ret = TDNL_EXIT_ERR;
			goto out;
		}
		json_out(f, r, g, ng, argv + cmd, status, secs);
		if (fclose(f)) {
			fprintf(stderr, "tdnl: stat: writing '%s': %s\n", out, strerror(errno));
			ret = TDNL_EXIT_ERR;
		}
	}
out:
	free(g);
	run_free(r);
	return ret;
}
