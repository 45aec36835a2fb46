// SPDX-License-Identifier: GPL-2.0
/*
 * tdnl: show and watch topdown.ko's per-CPU Top-Down analysis over
 * generic netlink, with the Level 3/4 memory nodes worked out from the raw
 * counts; start and stop it, change its interval and level.
 *
 *   tdnl [-j|--json] [--csv] COMMAND [ARGS]
 *
 * Exit status: 0 done, 1 the kernel or the module said no, 2 usage.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include "linux/topdown.h"
#include "tdnl.h"

static enum tdnl_fmt fmt = TDNL_TEXT;
static volatile sig_atomic_t stop;

/* the output format the global options chose, for the other files' commands */
enum tdnl_fmt tdnl_format(void)
{
	return fmt;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tdnl [OPTIONS] COMMAND [ARGS]\n"
		"\n"
		"Commands:\n"
		"  info                          module version, level, interval, CPUs, models\n"
		"  show [-c CPULIST] [--raw]     each CPU's latest interval (--raw: its counts)\n"
		"  watch [-c CPULIST] [-n COUNT] [--raw]\n"
		"                                each interval as it completes\n"
		"  set interval MS               sampling interval, 10..60000 ms\n"
		"  set level N                   deepest level counted, 1..3\n"
		"  start                         open the counters (the module loads stopped)\n"
		"  stop                          close them: the module holds no counter\n"
		"  stat [-c CPULIST] [-o FILE] [--] CMD [ARGS]\n"
		"                                the topdown of the CPUs over exactly CMD's run\n"
		"                                (-o: save it as JSON, for diff)\n"
		"  diff A.json B.json            two saved stat results side by side\n"
		"  explain [-c CPULIST] [-t MS] [--from A.json]\n"
		"                                the bottleneck in plain words: the dominant path\n"
		"                                over MS (1000) or in a saved stat result\n"
		"  top [-c CPULIST]              a live full-screen view (ncurses)\n"
		"  export [--listen ADDR:PORT]   Prometheus metrics on ADDR:PORT/metrics\n"
		"                                (" TDNL_EXPORT_LISTEN " unless given)\n"
		"  help                          this text\n"
		"\n"
		"Options:\n"
		"  -j, --json      JSON output\n"
		"      --csv       CSV output\n"
		"      --perf-names  nodes under perf's metric names (tma_retiring, ...)\n"
		"  -h, --help      this text\n"
		"  -V, --version   tdnl's version\n"
		"\n"
		"CPULIST is like 0-3,8.  Level 3/4 needs the module at level 3.\n");
}

/* a usage error: one line, the hint, exit status 2 */
int tdnl_bad(const char *f, ...)
{
	va_list ap;

	fputs("tdnl: ", stderr);
	va_start(ap, f);
	vfprintf(stderr, f, ap);
	va_end(ap);
	fputs("\nTry 'tdnl --help'.\n", stderr);
	return TDNL_EXIT_USAGE;
}

/* a decimal number, digits only, at most @max */
static bool number(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return !*end && !errno && *v <= max;
}

/* "0-3,8" into a bitmap of TDNL_MAX_CPUS bits */
bool tdnl_cpulist(const char *s, unsigned char *map)
{
	char buf[4096], *item, *save = NULL;

	if (strlen(s) >= sizeof(buf) || !*s || s[strlen(s) - 1] == ',')
		return false;
	strcpy(buf, s);
	for (item = strtok_r(buf, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		unsigned long lo, hi, c;
		char *dash = strchr(item, '-');

		if (dash)
			*dash = '\0';
		if (!number(item, TDNL_MAX_CPUS - 1, &lo))
			return false;
		hi = lo;
		if (dash && (!number(dash + 1, TDNL_MAX_CPUS - 1, &hi) || hi < lo))
			return false;
		for (c = lo; c <= hi; c++)
			map[c / 8] |= 1 << (c % 8);
	}
	return !strstr(s, ",,") && s[0] != ',';
}

bool tdnl_selected(const unsigned char *map, unsigned int cpu)
{
	return cpu < TDNL_MAX_CPUS && (map[cpu / 8] & (1 << (cpu % 8)));
}

/* an argument after the command; global options go before it */
static int unexpected(const char *cmd, const char *a)
{
	if (!strcmp(a, "-j") || !strcmp(a, "--json") || !strcmp(a, "--csv") ||
	    !strcmp(a, "--perf-names"))
		return tdnl_bad("%s: %s goes before the command: tdnl %s %s", cmd,
			   a, a, cmd);
	if (a[0] == '-')
		return tdnl_bad("%s: unknown option '%s'", cmd, a);
	return tdnl_bad("%s: unexpected argument '%s'", cmd, a);
}

/* the options of show and watch */
struct opts {
	unsigned char cpus[TDNL_MAX_CPUS / 8];
	unsigned long count;	/* 0: forever */
	bool raw;		/* --raw: the raw counts too */
};

static int parse_opts(const char *cmd, int argc, char **argv, struct opts *o,
		      bool watch)
{
	int i;

	memset(o->cpus, 0xff, sizeof(o->cpus));
	o->count = 0;
	o->raw = false;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-c")) {
			if (++i == argc)
				return tdnl_bad("%s: -c needs a CPU list", cmd);
			memset(o->cpus, 0, sizeof(o->cpus));
			if (!tdnl_cpulist(argv[i], o->cpus))
				return tdnl_bad("%s: bad CPU list '%s'", cmd, argv[i]);
		} else if (!strcmp(a, "--raw")) {
			o->raw = true;
		} else if (watch && !strcmp(a, "-n")) {
			if (++i == argc)
				return tdnl_bad("%s: -n needs a count", cmd);
			if (!number(argv[i], ~0UL, &o->count) || !o->count)
				return tdnl_bad("%s: bad count '%s'", cmd, argv[i]);
		} else {
			return unexpected(cmd, a);
		}
	}
	return 0;
}

static int open_nl(struct tdnl_nl *nl)
{
	int err;

	if (!tdnl_nl_open(nl))
		return 0;
	err = errno;	/* ENOENT: the family is not registered */
	tdnl_nl_close(nl);
	return tdnl_nl_error(err, "reaching the kernel's generic netlink");
}

static int info_cb(const struct nlmsghdr *nlh, void *data)
{
	return tdnl_parse_info(nlh, data) ? MNL_CB_ERROR : MNL_CB_OK;
}

static int cpu_cb(const struct nlmsghdr *nlh, void *data)
{
	return tdnl_parse_cpu(nlh, data) ? MNL_CB_ERROR : MNL_CB_OK;
}

/*
 * The module's configuration and models, then a dump of its CPUs; an
 * error is said unless @quiet.  On failure @info may hold a part.
 */
int tdnl_get_info(struct tdnl_nl *nl, struct tdnl_info *info, bool quiet)
{
	struct nlmsghdr *nlh = tdnl_nl_msg(nl, TOPDOWN_CMD_GET_INFO, NLM_F_ACK);

	if (tdnl_nl_talk(nl, nlh, info_cb, info))
		return quiet ? TDNL_EXIT_ERR : tdnl_nl_error(errno, "get-info");
	nlh = tdnl_nl_msg(nl, TOPDOWN_CMD_GET_CPU, NLM_F_DUMP);
	if (tdnl_nl_talk(nl, nlh, cpu_cb, info))
		return quiet ? TDNL_EXIT_ERR : tdnl_nl_error(errno, "get-cpu");
	return 0;
}

/* what info, show and watch all start with; on failure both are released */
int tdnl_open_with_info(struct tdnl_nl *nl, struct tdnl_info *info)
{
	int ret = open_nl(nl);

	if (ret)
		return ret;
	ret = tdnl_get_info(nl, info, false);
	if (ret) {
		tdnl_free_info(info);
		tdnl_nl_close(nl);
	}
	return ret;
}

static int cmd_info(int argc, char **argv)
{
	struct tdnl_info info = {};
	struct tdnl_nl nl;
	int ret;

	if (argc)
		return unexpected("info", argv[0]);
	ret = tdnl_open_with_info(&nl, &info);
	if (ret)
		return ret;
	tdnl_out_info(&info, fmt);
	tdnl_free_info(&info);
	tdnl_nl_close(&nl);
	return ret;
}

void tdnl_no_pmu(void)
{
	fprintf(stderr, "tdnl: no PMU: topdown.ko cannot count on this machine (a VM without PMU passthrough?)\n");
}

struct show {
	const struct opts *o;
	const struct tdnl_info *info;
	unsigned int shown, no_pmu;
	struct tdnl_sample s;
};

static int show_cb(const struct nlmsghdr *nlh, void *data)
{
	struct show *sh = data;
	struct tdnl_sample *s = &sh->s;

	if (tdnl_parse_sample(nlh, s))
		return MNL_CB_ERROR;
	if (!tdnl_selected(sh->o->cpus, s->cpu))
		return MNL_CB_OK;
	tdnl_calc_after(s, NULL, sh->info);
	if (!sh->shown++)
		tdnl_out_begin(fmt, false, s->model);
	tdnl_out_sample(s, fmt, false);
	sh->no_pmu += !!(s->state & TOPDOWN_STATE_NO_PMU);
	return MNL_CB_OK;
}

static int cmd_show(int argc, char **argv)
{
	struct tdnl_info info = {};
	struct nlmsghdr *nlh;
	struct tdnl_nl nl;
	struct opts o;
	struct show sh = { .o = &o, .info = &info };
	int ret;

	ret = parse_opts("show", argc, argv, &o, false);
	if (ret)
		return ret;
	ret = tdnl_open_with_info(&nl, &info);
	if (ret)
		return ret;
	tdnl_out_use(&info, o.raw);
	nlh = tdnl_nl_msg(&nl, TOPDOWN_CMD_GET_SAMPLE, NLM_F_DUMP);
	if (tdnl_nl_talk(&nl, nlh, show_cb, &sh)) {
		if (sh.shown)
			tdnl_out_end(fmt, false);
		ret = tdnl_nl_error(errno, "get-sample");
		goto out;
	}
	if (!sh.shown) {
		fprintf(stderr, "tdnl: show: no CPU of the list exists\n");
		ret = TDNL_EXIT_ERR;
		goto out;
	}
	tdnl_out_end(fmt, false);
	if (sh.no_pmu == sh.shown) {
		tdnl_no_pmu();
		ret = TDNL_EXIT_ERR;
	}
out:
	tdnl_free_info(&info);
	tdnl_nl_close(&nl);
	return ret;
}

struct watch {
	const struct opts *o;
	const struct tdnl_info *info;
	const struct tdnl_nl *nl;
	struct tdnl_sample **prev;	/* by CPU: the last sample received */
	unsigned long printed;
	bool gone;			/* the family was unregistered */
	struct tdnl_sample s;
};

static int watch_cb(const struct nlmsghdr *nlh, void *data)
{
	struct watch *w = data;
	struct tdnl_sample *s = &w->s, *prev;
	int ret;

	ret = tdnl_sample_ntf(nlh, w->nl, TDNL_NTF_STRICT, s, &w->gone);
	if (ret != TDNL_CB_SAMPLE)
		return ret;
	if (!tdnl_selected(w->o->cpus, s->cpu))
		return MNL_CB_OK;
	prev = w->prev[s->cpu];
	tdnl_calc_after(s, prev, w->info);
	if (s->lost)	/* so prev was there, and older */
		fprintf(stderr, "tdnl: cpu%u: lost %llu intervals (seq %llu -> %llu)\n",
			s->cpu, (unsigned long long)s->lost,
			(unsigned long long)prev->seq,
			(unsigned long long)s->seq);
	tdnl_out_sample(s, fmt, true);
	if (tdnl_keep(&w->prev[s->cpu], s))
		return MNL_CB_ERROR;
	if (++w->printed == w->o->count)
		return MNL_CB_STOP;
	return MNL_CB_OK;
}

static void on_signal(int sig)
{
	stop = 1;
}

/*
 * Paced reading.  Waiting in poll() on the socket, tdnl is woken by every
 * datagram, and the module's multicast pays for the wake-up (under QEMU's
 * TCG about 80 us, half the notification).  So after each read tdnl
 * sleeps before it waits on the socket again: datagrams that come
 * meanwhile find no one waiting and are only queued, and one read takes
 * them all.  The pause is WATCH_PACE_MS, or less: the time the
 * notifications, at the rate the last read found, take to fill an eighth
 * of the receive buffer (many CPUs at short intervals); none after an
 * overrun.  Samples are printed up to the pause late; an interval as long
 * or longer is read as it comes, as before.  A rate that jumps more than
 * eightfold within one pause (a much shorter interval set) can still
 * overrun a small buffer once: reported, as any overrun.
 */
#define WATCH_PACE_MS	250

struct pace {
	size_t rcvbuf;		/* the socket's receive buffer, bytes */
	uint64_t last_ns;	/* when the last read ended */
};

static void pace_init(struct tdnl_nl *sock, struct pace *p)
{
	int size = 0;
	socklen_t len = sizeof(size);

	if (getsockopt(mnl_socket_get_fd(sock->sk), SOL_SOCKET, SO_RCVBUF,
		       &size, &len) || size < 0)
		size = 0;	/* then no pause */
	p->rcvbuf = size;
	p->last_ns = mono_ns();
	sock->drained = 0;
}

/* after a read: the pause the bytes it took allow, and take it */
static void watch_pace(struct tdnl_nl *sock, struct pace *p)
{
	uint64_t now = mono_ns();
	double took = (now - p->last_ns) / 1e6, ms = WATCH_PACE_MS;
	size_t got = sock->drained;
	struct timespec ts;

	sock->drained = 0;
	p->last_ns = now;
	if (got && took > 0 && ms * got / took > p->rcvbuf / 8.0)
		ms = p->rcvbuf / 8.0 * took / got;
	if (ms < 1)
		return;
	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)((ms - ts.tv_sec * 1000.0) * 1e6);
	nanosleep(&ts, NULL);	/* a signal ends it: the loop looks at stop */
}

static int watch_loop(struct tdnl_nl *sock, struct watch *w)
{
	struct pollfd pfd = { .fd = mnl_socket_get_fd(sock->sk), .events = POLLIN };
	struct pace pace;
	int ret;

	pace_init(sock, &pace);
	while (!stop) {
		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "tdnl: watch: %s\n", strerror(errno));
			return TDNL_EXIT_ERR;
		}
		/* the module sends a grid point's samples in one datagram */
		ret = tdnl_nl_drain(sock, watch_cb, w);
		tdnl_out_flush();
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				/* the gaps in seq say how many, per CPU */
				fprintf(stderr, "tdnl: notifications lost (socket receive buffer overrun)\n");
				pace_init(sock, &pace);	/* read on at once */
				continue;
			}
			fprintf(stderr, "tdnl: watch: %s\n", strerror(errno));
			return TDNL_EXIT_ERR;
		}
		if (w->gone) {
			fprintf(stderr, "tdnl: the topdown module was unloaded\n");
			return TDNL_EXIT_ERR;
		}
		if (ret == MNL_CB_STOP)
			break;
		watch_pace(sock, &pace);
	}
	return 0;
}

/* the model of the first selected CPU that has one, for a CSV header */
static const char *first_model(const struct tdnl_info *info, const unsigned char *cpus)
{
	unsigned int i;

	for (i = 0; i < info->nr_cpus; i++)
		if (tdnl_selected(cpus, info->cpus[i].cpu) && info->cpus[i].model[0])
			return info->cpus[i].model;
	return NULL;
}

static int cmd_watch(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART */
	struct tdnl_nl nl, sock = {};
	struct tdnl_info info = {};
	unsigned int i, sel = 0, nopmu = 0, idle = 0;
	struct watch w = {};
	struct opts o;
	int ret;

	ret = parse_opts("watch", argc, argv, &o, true);
	if (ret)
		return ret;
	ret = tdnl_open_with_info(&nl, &info);
	if (ret)
		return ret;
	for (i = 0; i < info.nr_cpus; i++) {
		uint32_t st = info.cpus[i].state;

		if (!tdnl_selected(o.cpus, info.cpus[i].cpu))
			continue;
		sel++;
		nopmu += !!(st & TOPDOWN_STATE_NO_PMU);
		/* these never sample; an offline CPU may come online */
		idle += !!(st & (TOPDOWN_STATE_NO_PMU | TOPDOWN_STATE_ERROR |
				 TOPDOWN_STATE_UNSUPPORTED));
	}
	ret = TDNL_EXIT_ERR;
	if (!sel) {
		fprintf(stderr, "tdnl: watch: no CPU of the list exists\n");
		goto out;
	}
	if (!info.running) {
		fprintf(stderr, "tdnl: watch: topdown is stopped: start it with 'tdnl start'\n");
		goto out;
	}
	/* nothing would ever come: say so rather than wait forever */
	if (nopmu == sel) {
		tdnl_no_pmu();
		goto out;
	}
	if (idle == sel) {
		fprintf(stderr, "tdnl: watch: no selected CPU samples (unsupported, no-pmu or error: see tdnl info)\n");
		goto out;
	}
	if (tdnl_nl_watch(&sock, &nl)) {
		/* the commands took CAP_PERFMON; the group wants more */
		if (errno == EPERM)
			fprintf(stderr, "tdnl: permission denied: watching needs CAP_SYS_ADMIN (CAP_PERFMON is enough for show)\n");
		else
			ret = tdnl_nl_error(errno, "watch: joining the samples group");
		goto out;
	}
	w.prev = calloc(TDNL_MAX_CPUS, sizeof(*w.prev));
	if (!w.prev) {
		fprintf(stderr, "tdnl: out of memory\n");
		goto out;
	}
	w.o = &o;
	w.info = &info;
	w.nl = &sock;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	tdnl_out_use(&info, o.raw);
	tdnl_out_begin(fmt, true, first_model(&info, o.cpus));
	ret = watch_loop(&sock, &w);
	tdnl_out_end(fmt, true);
out:
	if (w.prev)
		for (i = 0; i < TDNL_MAX_CPUS; i++)
			free(w.prev[i]);
	free(w.prev);
	tdnl_free_info(&info);
	tdnl_nl_close(&sock);
	tdnl_nl_close(&nl);
	return ret;
}

/* set-config's attributes as the spec names them, for the kernel's errors */
static const char *const config_names[] = {
	[TOPDOWN_A_CONFIG_INTERVAL_MS] = "interval-ms",
	[TOPDOWN_A_CONFIG_LEVEL] = "level",
	[TOPDOWN_A_CONFIG_RUNNING] = "running",
};

/* one set-config with the attributes given (NULL: left as it is) */
static int set_config(const unsigned long *interval, const unsigned long *level,
		      const unsigned long *running)
{
	struct nlmsghdr *nlh;
	struct tdnl_nl nl;
	int ret;

	ret = open_nl(&nl);
	if (ret)
		return ret;
	nlh = tdnl_nl_msg(&nl, TOPDOWN_CMD_SET_CONFIG, NLM_F_ACK);
	if (interval)
		mnl_attr_put_u32(nlh, TOPDOWN_A_CONFIG_INTERVAL_MS, *interval);
	if (level)
		mnl_attr_put_u32(nlh, TOPDOWN_A_CONFIG_LEVEL, *level);
	if (running)
		mnl_attr_put_u32(nlh, TOPDOWN_A_CONFIG_RUNNING, *running);
	if (tdnl_nl_talk(&nl, nlh, NULL, NULL))
		ret = tdnl_nl_error_attrs(errno, "set-config", config_names,
					  ARRAY_SIZE(config_names));
	tdnl_nl_close(&nl);
	return ret;
}

static int cmd_set(int argc, char **argv)
{
	unsigned long interval = 0, level = 0;
	bool has_interval = false, has_level = false;
	int i;

	if (!argc)
		return tdnl_bad("set: what? interval MS or level N");
	for (i = 0; i < argc; i += 2) {
		const char *key = argv[i], *val = argv[i + 1];

		if (strcmp(key, "interval") && strcmp(key, "level"))
			return tdnl_bad("set: unknown setting '%s'", key);
		if (i + 1 == argc)
			return tdnl_bad("set %s: missing %s", key,
				   key[0] == 'i' ? "MS" : "N");
		if (key[0] == 'i') {
			if (!number(val, ~0U, &interval))
				return tdnl_bad("set interval: '%s' is not a number of milliseconds",
					   val);
			has_interval = true;
		} else {
			if (!number(val, ~0U, &level))
				return tdnl_bad("set level: '%s' is not a number", val);
			has_level = true;
		}
	}
	return set_config(has_interval ? &interval : NULL,
			  has_level ? &level : NULL, NULL);
}

static int cmd_start(int argc, char **argv)
{
	unsigned long on = 1;

	if (argc)
		return unexpected("start", argv[0]);
	return set_config(NULL, NULL, &on);
}

static int cmd_stop(int argc, char **argv)
{
	unsigned long off = 0;

	if (argc)
		return unexpected("stop", argv[0]);
	return set_config(NULL, NULL, &off);
}

static int cmd_help(int argc, char **argv)
{
	if (argc)
		return unexpected("help", argv[0]);
	usage(stdout);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} cmds[] = {
	{ "info", cmd_info },
	{ "show", cmd_show },
	{ "watch", cmd_watch },
	{ "set", cmd_set },
	{ "start", cmd_start },
	{ "stop", cmd_stop },
	{ "export", tdnl_cmd_export },
	{ "stat", tdnl_cmd_stat },
	{ "diff", tdnl_cmd_diff },
	{ "explain", tdnl_cmd_explain },
	{ "top", tdnl_cmd_top },
	{ "help", cmd_help },
};

int main(int argc, char **argv)
{
	bool json = false, csv = false;
	unsigned int c;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--csv")) {
			csv = true;
		} else if (!strcmp(a, "--perf-names")) {
			tdnl_perf_names = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			printf("tdnl %s\n", TD_VERSION);
			return 0;
		} else if (!strcmp(a, "--")) {
			i++;
			break;
		} else {
			return tdnl_bad("unknown option '%s'", a);
		}
	}
	if (json && csv)
		return tdnl_bad("-j and --csv: choose one");
	fmt = json ? TDNL_JSON : csv ? TDNL_CSV : TDNL_TEXT;
	if (i == argc)
		return tdnl_bad("no command");
	for (c = 0; c < ARRAY_SIZE(cmds); c++)
		if (!strcmp(argv[i], cmds[c].name))
			return cmds[c].fn(argc - i - 1, argv + i + 1);
	return tdnl_bad("unknown command '%s'", argv[i]);
}
