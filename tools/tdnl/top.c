// SPDX-License-Identifier: GPL-2.0
/*
 * tdnl top: a full-screen live view (ncurses), one row per CPU: Level 1 as
 * a bar, the dominant Level 2 node and, at level 3, the dominant Level 3
 * one (a share of clock ticks), the state and the share counted.
 *
 * Keys: q quit; s and S sort by the next or previous node (CPU, the Level
 * 1 and Level 2 nodes); c a CPU list to show; 1 2 3 the level, + and -
 * the interval (set-config: the privilege the module asks); the terminal
 * may be resized.  Ctrl-C and SIGTERM leave it as q does: the terminal is
 * given back as it was.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <curses.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include "linux/topdown.h"
#include "tdnl.h"

#define TOP_REDRAW_MS	200

static volatile sig_atomic_t top_stop;

static void on_signal(int sig)
{
	top_stop = 1;
}

struct top {
	struct tdnl_info info;
	struct tdnl_nl nl, sock;
	struct tdnl_sample **last;	/* by CPU: the latest sample */
	unsigned char cpus[TDNL_MAX_CPUS / 8];
	int sort;			/* 0: CPU, 1..: a node (see key_name) */
	char status[160];		/* the last message, on the bottom line */
	bool gone;
};

/* sort keys: the CPU, then every Level 1 and Level 2 node */
#define TOP_KEYS	(1 + TD_NR_L1 + TD_NR_L2)

static const char *sort_name(int k)
{
	if (!k)
		return "cpu";
	if (k <= TD_NR_L1)
		return td_l1_names[k - 1];
	return td_l2_names[k - 1 - TD_NR_L1];
}

/* a sample's value for a sort key, in ppm; -1 when it has none */
static double key_of(const struct tdnl_sample *s, int k)
{
	if (!k)
		return -(double)s->cpu;		/* ascending CPU numbers */
	if (k <= TD_NR_L1)
		return s->has_l1 && s->l1_set[k - 1] ? (double)s->l1[k - 1] : -1;
	k -= 1 + TD_NR_L1;
	return s->has_l2 && s->l2_set[k] ? (double)s->l2[k] : -1;
}

static int sample_cb(const struct nlmsghdr *nlh, void *data)
{
	struct top *t = data;
	struct tdnl_sample s;
	int ret;

	ret = tdnl_sample_ntf(nlh, &t->sock, 0, &s, &t->gone);
	if (ret != TDNL_CB_SAMPLE)
		return ret;
	tdnl_calc_after(&s, t->last[s.cpu], &t->info);
	tdnl_keep(&t->last[s.cpu], &s);	/* ENOMEM: the next one has no span */
	return MNL_CB_OK;
}

/*
 * A row's columns: "cpuN   " 7, the model 12, the bar, the dominant Level 2
 * node (a space, its name, a space, "%5.1f") and Level 3's; the state gets
 * what is left: at least TOP_STATE less its leading space and the last
 * column, which is never written.  perf's names (--perf-names) are longer.
 */
#define TOP_STATE	25

static int l2_width(void)
{
	return tdnl_perf_names ? 22 : 18;
}

static int l3_width(void)
{
	return tdnl_perf_names ? 15 : 11;
}

/*
 * printw() clipped before the last column: a long row never wraps onto
 * the next (writing the last column moves the cursor to the next line)
 */
static void put(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int room = COLS - 1 - getcurx(stdscr);

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (room > 0)
		addnstr(buf, room);
}

/* Level 1 as one bar of @w cells: R retiring, B bad speculation, F, K */
static void bar(const struct tdnl_sample *s, int w)
{
	static const char mark[] = { 'R', 'B', 'F', 'K', 'S', 'N' };
	int i, x, used = 0, cells[TD_NR_L1] = {};
	double acc = 0;

	if (!s->has_l1) {
		put("%-*s", w, " n/a");
		return;
	}
	/* cumulative rounding: the cells add up to the bar */
	for (i = 0; i < TD_NR_L1; i++) {
		if (!s->l1_set[i])
			continue;
		acc += s->l1[i] / 1e6 * w;
		cells[i] = (int)lround(acc) - used;
		used += cells[i];
	}
	for (i = 0; i < TD_NR_L1; i++) {
		if (has_colors())
			attron(COLOR_PAIR(1 + i));
		for (x = 0; x < cells[i]; x++)
			put("%c", mark[i]);
		if (has_colors())
			attroff(COLOR_PAIR(1 + i));
	}
	put("%*s", w - used, "");
}

static void dominant_l2(const struct tdnl_sample *s, int *node)
{
	unsigned int i;

	*node = -1;
	for (i = 0; s->has_l2 && i < TD_NR_L2; i++)
		if (s->l2_set[i] && (*node < 0 || s->l2[i] > s->l2[*node]))
			*node = i;
}

static void draw(struct top *t)
{
	const struct tdnl_sample **rows;
	int rows_max = LINES - 5, n = 0, i, j, w, node;
	unsigned int c;

	erase();
	move(0, 0);
	put("tdnl top  topdown %s  level %u  interval %u ms  %s  sort: %s",
	    t->info.version[0] ? t->info.version : "?",
	    t->info.level, t->info.interval_ms, t->info.running ? "running" : "stopped",
	    sort_name(t->sort));
	move(1, 0);
	put("q quit  s/S sort  c CPUs  1 2 3 level  +/- interval   "
	    "R retiring B bad spec F frontend K backend");
	w = COLS - (7 + 12 + l2_width() + 7 + l3_width() + 7) - TOP_STATE;
	if (w < 10)
		w = 10;
	move(2, 0);
	put("%-6s %-11s %-*s %-*s %-*s %s", "cpu", "model", w, "level 1", l2_width() + 6,
	    "level 2 (dominant)", l3_width() + 6, "level 3 (ticks)", "state");
	rows = calloc(TDNL_MAX_CPUS, sizeof(*rows));
	if (!rows)
		return;
	for (c = 0; c < TDNL_MAX_CPUS; c++)
		if (t->last[c] && tdnl_selected(t->cpus, c))
			rows[n++] = t->last[c];
	/* largest first (CPU: ascending), a stable insertion sort */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && key_of(rows[j], t->sort) > key_of(rows[j - 1], t->sort); j--) {
			const struct tdnl_sample *x = rows[j];

			rows[j] = rows[j - 1];
			rows[j - 1] = x;
		}
	for (i = 0; i < n && i < rows_max; i++) {
		const struct tdnl_sample *s = rows[i];
		int l3 = -1, k;

		move(3 + i, 0);
		put("cpu%-3u %-11.11s ", s->cpu, s->model[0] ? s->model : "-");
		bar(s, w);
		dominant_l2(s, &node);
		if (node >= 0)
			put(" %-*.*s %5.1f", l2_width(), l2_width(),
			    tdnl_name(s->model, td_l2_names[node]), s->l2[node] / 1e4);
		else
			put(" %-*s", l2_width() + 6, "");
		for (k = 0; k < TD_FIRST_L4; k++)
			if (!isnan(s->l34[k]) && (l3 < 0 || s->l34[k] > s->l34[l3]))
				l3 = k;
		if (l3 >= 0)
			put(" %-*.*s %5.1f", l3_width(), l3_width(),
			    tdnl_name(s->model, td_l34_names[l3]), s->l34[l3]);
		else
			put(" %-*s", l3_width() + 6, "");
		put(" ");
		for (k = 0; k < 32; k++) {
			const char *name = tdnl_state_name(k);

			if (!(s->state & (1u << k)))
				continue;
			if (name)
				put("%s ", name);
			else
				put("0x%x ", 1u << k);
		}
		if (!s->state)
			put("ok");
		if (s->counted_set[0] && s->counted[0] < 1000000)
			put(" counted %.0f%%", s->counted[0] / 1e4);
	}
	/* the line above the status line: the status never hides it */
	move(n ? LINES - 2 : 3, 0);
	if (n > rows_max)
		put("%d more CPUs: make the terminal taller", n - rows_max);
	else if (!n)
		put("waiting for samples...");
	move(LINES - 1, 0);
	if (t->status[0])
		put("%s", t->status);
	free(rows);
	refresh();
}

/* set-config from a key; the kernel's answer goes on the status line */
static void set(struct top *t, const unsigned long *interval, const unsigned long *level)
{
	struct nlmsghdr *nlh = tdnl_nl_msg(&t->nl, TOPDOWN_CMD_SET_CONFIG, NLM_F_ACK);

	if (interval)
		mnl_attr_put_u32(nlh, TOPDOWN_A_CONFIG_INTERVAL_MS, *interval);
	if (level)
		mnl_attr_put_u32(nlh, TOPDOWN_A_CONFIG_LEVEL, *level);
	if (tdnl_nl_talk(&t->nl, nlh, NULL, NULL)) {
		snprintf(t->status, sizeof(t->status), "set-config: %s%s", strerror(errno),
			 errno == EPERM ? " (needs CAP_PERFMON or CAP_SYS_ADMIN)" : "");
		return;
	}
	tdnl_free_info(&t->info);
	memset(&t->info, 0, sizeof(t->info));
	tdnl_get_info(&t->nl, &t->info, true);
	snprintf(t->status, sizeof(t->status), "level %u, interval %u ms", t->info.level,
		 t->info.interval_ms);
}

/* the c key: a CPU list, read on the bottom line */
static void ask_cpus(struct top *t)
{
	char buf[256] = "";

	mvprintw(LINES - 1, 0, "CPUs (empty: all): ");
	clrtoeol();
	echo();
	curs_set(1);
	timeout(-1);
	getnstr(buf, sizeof(buf) - 1);
	noecho();
	curs_set(0);
	timeout(0);
	if (!buf[0]) {
		memset(t->cpus, 0xff, sizeof(t->cpus));
		t->status[0] = '\0';
	} else {
		unsigned char map[TDNL_MAX_CPUS / 8] = {};

		if (tdnl_cpulist(buf, map)) {
			memcpy(t->cpus, map, sizeof(map));
			snprintf(t->status, sizeof(t->status), "CPUs %s", buf);
		} else {
			snprintf(t->status, sizeof(t->status), "bad CPU list '%s'", buf);
		}
	}
}

static bool key(struct top *t, int ch)
{
	unsigned long v;

	switch (ch) {
	case 'q':
	case 'Q':
		return false;
	case 's':
		t->sort = (t->sort + 1) % TOP_KEYS;
		break;
	case 'S':
		t->sort = (t->sort + TOP_KEYS - 1) % TOP_KEYS;
		break;
	case 'c':
		ask_cpus(t);
		break;
	case '1':
	case '2':
	case '3':
		v = ch - '0';
		set(t, NULL, &v);
		break;
	case '+':
		v = t->info.interval_ms * 2 > TOPDOWN_INTERVAL_MAX_MS ?
		    TOPDOWN_INTERVAL_MAX_MS : t->info.interval_ms * 2;
		set(t, &v, NULL);
		break;
	case '-':
		v = t->info.interval_ms / 2 < TOPDOWN_INTERVAL_MIN_MS ?
		    TOPDOWN_INTERVAL_MIN_MS : t->info.interval_ms / 2;
		set(t, &v, NULL);
		break;
	default:
		break;		/* KEY_RESIZE and the rest: a redraw */
	}
	return true;
}

/**
 * tdnl_cmd_top() - tdnl top [-c CPULIST]
 * @argc: the arguments after "top"
 * @argv: them
 *
 * Return: 0 after q, Ctrl-C or SIGTERM; 1 when it cannot watch; 2 on bad
 * usage.
 */
int tdnl_cmd_top(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART */
	struct top *t = calloc(1, sizeof(*t));
	int i, ret = TDNL_EXIT_ERR;
	bool run = true;

	if (!t)
		return TDNL_EXIT_ERR;
	memset(t->cpus, 0xff, sizeof(t->cpus));
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-c") && i + 1 < argc) {
			memset(t->cpus, 0, sizeof(t->cpus));
			if (!tdnl_cpulist(argv[++i], t->cpus)) {
				free(t);
				return tdnl_bad("top: bad CPU list '%s'", argv[i]);
			}
		} else {
			free(t);
			return tdnl_bad("top: unexpected '%s'", argv[i]);
		}
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "tdnl: top: needs a terminal (tdnl watch is for pipes)\n");
		free(t);
		return TDNL_EXIT_ERR;
	}
	t->last = calloc(TDNL_MAX_CPUS, sizeof(*t->last));
	if (!t->last || tdnl_open_with_info(&t->nl, &t->info)) {
		free(t->last);
		free(t);
		return TDNL_EXIT_ERR;
	}
	if (tdnl_nl_watch(&t->sock, &t->nl)) {
		if (errno == EPERM)
			fprintf(stderr, "tdnl: permission denied: top receives the samples, which needs CAP_SYS_ADMIN\n");
		else
			tdnl_nl_error(errno, "top: joining the samples group");
		goto out;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	initscr();
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	timeout(0);
	if (has_colors()) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_GREEN, -1);
		init_pair(2, COLOR_RED, -1);
		init_pair(3, COLOR_YELLOW, -1);
		init_pair(4, COLOR_BLUE, -1);
		init_pair(5, COLOR_MAGENTA, -1);
		init_pair(6, COLOR_CYAN, -1);
	}
	draw(t);
	while (run && !top_stop && !t->gone) {
		struct pollfd pfd[2] = {
			{ .fd = mnl_socket_get_fd(t->sock.sk), .events = POLLIN },
			{ .fd = STDIN_FILENO, .events = POLLIN },
		};
		int ch;

		if (poll(pfd, 2, TOP_REDRAW_MS) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents & POLLIN)
			tdnl_nl_drain(&t->sock, sample_cb, t);
		while (run && (ch = getch()) != ERR)
			run = key(t, ch);
		draw(t);
	}
	endwin();
	if (t->gone)
		fprintf(stderr, "tdnl: the topdown module was unloaded\n");
	ret = t->gone ? TDNL_EXIT_ERR : 0;
out:
	for (i = 0; i < TDNL_MAX_CPUS; i++)
		free(t->last[i]);
	free(t->last);
	tdnl_free_info(&t->info);
	tdnl_nl_close(&t->sock);
	tdnl_nl_close(&t->nl);
	free(t);
	return ret;
}
