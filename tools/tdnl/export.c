// SPDX-License-Identifier: GPL-2.0
/*
 * tdnl export: topdown.ko's samples as Prometheus metrics on /metrics,
 * served by libmicrohttpd (its own thread) while this one listens to the
 * samples group.
 *
 * The counters are cumulative, so that any window and any set of CPUs
 * gives exact fractions in PromQL (the average of per-CPU ratios is not
 * the machine's ratio):
 *   sum(rate(topdown_node_slots_total{node="backend_bound"}[5m]))
 *     / sum(rate(topdown_slots_total[5m]))
 * is the backend bound share of those CPUs' slots over those 5 minutes.
 * The slot (or cycle) totals are the module's own (TOPDOWN_A_SAMPLE_TOTALS),
 * so nothing between scrapes, nor across a restart of the exporter, is
 * lost; the Level 3/4 clock-tick totals are worked out here from the raw
 * counts, and start at 0 with the exporter (a counter reset to PromQL).
 *
 * libmicrohttpd is opened here, when export runs (dlopen): linked into tdnl
 * it brings GnuTLS and its libraries into every tdnl, and tdnl watch's
 * resident memory went from 1.7 to 4.4 MiB.
 */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <microhttpd.h>
#include "linux/topdown.h"
#include "tdnl.h"

#define EXPORT_RETRY_MS	1000	/* looking for the module again after an unload */
#define OPENMETRICS	"application/openmetrics-text"

/* one CPU as last seen */
struct exp_cpu {
	struct tdnl_sample s;		/* the latest sample, worked out */
	uint64_t lost;			/* intervals missed since the exporter started */
	double clk, clk_node[TD_NR_L34];	/* Level 3/4: clock ticks, each node's */
	bool clk_seen;
};

static struct {
	pthread_mutex_t lock;		/* everything below */
	bool up;			/* the module is there, its group joined */
	struct tdnl_info info;		/* while up */
	struct exp_cpu *cpu[TDNL_MAX_CPUS];
} ex = { .lock = PTHREAD_MUTEX_INITIALIZER };

static volatile sig_atomic_t ex_stop;

#define MHD_SONAME	"libmicrohttpd.so.12"

/* the libmicrohttpd functions export uses, from dlopen() */
static struct {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
	__typeof__(MHD_lookup_connection_value) *lookup_connection_value;
} mhd;

static int mhd_open(void)
{
	static const char *const names[] = {
		"MHD_start_daemon", "MHD_stop_daemon",
		"MHD_create_response_from_buffer", "MHD_add_response_header",
		"MHD_queue_response", "MHD_destroy_response",
		"MHD_lookup_connection_value",
	};
	void **fn = (void **)&mhd;
	void *lib = dlopen(MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
	unsigned int i;

	_Static_assert(sizeof(mhd) == sizeof(names) / sizeof(names[0]) * sizeof(void *),
		       "one name per function");
	for (i = 0; lib && i < sizeof(names) / sizeof(names[0]); i++)
		if (!(fn[i] = dlsym(lib, names[i])))
			break;
	if (lib && i == sizeof(names) / sizeof(names[0]))
		return 0;
	fprintf(stderr, "tdnl: export: needs libmicrohttpd (Debian: apt-get install libmicrohttpd12): %s\n",
		dlerror());
	return -1;
}

static void on_signal(int sig)
{
	ex_stop = 1;
}

/* ---- /metrics ---- */

struct out {
	FILE *f;
	bool om;			/* OpenMetrics, not the text format 0.0.4 */
};

/*
 * A family's HELP and TYPE (and UNIT in OpenMetrics).  @name is without
 * "_total" or "_info": OpenMetrics names a counter's or an info's family
 * so and its samples with the suffix; the text format, which has no info
 * type (an info is a gauge of 1 there), names both with it.
 */
static void family(struct out *o, const char *name, const char *type,
		   const char *unit, const char *help)
{
	const char *suffix = "";

	if (!o->om && !strcmp(type, "counter"))
		suffix = "_total";
	if (!o->om && !strcmp(type, "info")) {
		suffix = "_info";
		type = "gauge";
	}
	fprintf(o->f, "# HELP %s%s %s\n# TYPE %s%s %s\n", name, suffix, help,
		name, suffix, type);
	if (o->om && unit)
		fprintf(o->f, "# UNIT %s %s\n", name, unit);
}

/* a label value, escaped as both formats want */
static void label(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

static const char *core_type(const char *model)
{
	return !strcmp(model, "gracemont") || !strcmp(model, "crestmont") ||
	       !strcmp(model, "skymont") ? "atom" : "core";
}

static const struct tdnl_model *cpu_model(unsigned int cpu)
{
	const struct exp_cpu *c = ex.cpu[cpu];

	return c && c->s.model[0] ? tdnl_find_model(&ex.info, c->s.model) : NULL;
}

/* each CPU with a sample: the latest's gauges */
static void gauges(struct out *o)
{
	unsigned int cpu, i, b;

	family(o, "topdown_node_ratio", "gauge", "ratio",
	       "Share of the slots (cycles for cycle-based models) of each Level 1/2 node in the CPU's latest interval.");
	for (cpu = 0; cpu < TDNL_MAX_CPUS; cpu++) {
		const struct exp_cpu *c = ex.cpu[cpu];

		if (!c || !c->s.has_l1)
			continue;
		for (i = 0; i < TD_NR_L1; i++)
			if (c->s.l1_set[i])
				fprintf(o->f, "topdown_node_ratio{cpu=\"%u\",level=\"1\",node=\"%s\"} %.6f\n",
					cpu, td_l1_names[i], c->s.l1[i] / 1e6);
		for (i = 0; c->s.has_l2 && i < TD_NR_L2; i++)
			if (c->s.l2_set[i])
				fprintf(o->f, "topdown_node_ratio{cpu=\"%u\",level=\"2\",node=\"%s\"} %.6f\n",
					cpu, td_l2_names[i], c->s.l2[i] / 1e6);
	}
	family(o, "topdown_node_clockticks_ratio", "gauge", "ratio",
	       "Share of the clock ticks of each Level 3/4 memory node in the CPU's latest interval (tdnl's, from the raw counts at level 3).");
	for (cpu = 0; cpu < TDNL_MAX_CPUS; cpu++) {
		const struct exp_cpu *c = ex.cpu[cpu];

		for (i = 0; c && i < TD_NR_L34; i++)
			if (!isnan(c->s.l34[i]))
				fprintf(o->f, "topdown_node_clockticks_ratio{cpu=\"%u\",level=\"%d\",node=\"%s\"} %.6f\n",
					cpu, i < TD_FIRST_L4 ? 3 : 4, td_l34_names[i],
					c->s.l34[i] / 100);
	}
	family(o, "topdown_counted_ratio", "gauge", "ratio",
	       "Share of the latest interval that the least counted event of each level counted: below 1 when event sets took turns or another perf user took counters.");
	for (cpu = 0; cpu < TDNL_MAX_CPUS; cpu++)
		for (i = 0; ex.cpu[cpu] && i < 3; i++)
			if (ex.cpu[cpu]->s.counted_set[i])
				fprintf(o->f, "topdown_counted_ratio{cpu=\"%u\",level=\"%u\"} %.6f\n",
					cpu, i + 1, ex.cpu[cpu]->s.counted[i] / 1e6);
	family(o, "topdown_event_sets", "gauge", NULL,
	       "Event sets that took turns in the CPU's latest interval (1: all counted at once).");
	for (cpu = 0; cpu < TDNL_MAX_CPUS; cpu++)
		if (ex.cpu[cpu] && ex.cpu[cpu]->s.sets)
			fprintf(o->f, "topdown_event_sets{cpu=\"%u\"} %u\n", cpu,
				ex.cpu[cpu]->s.sets);
	family(o, "topdown_state", "gauge", NULL,
	       "The state flags of the CPU's latest sample, 1 when set (ok: it has fractions, whatever multiplexed, smt-core or skewed say; multiplexed: the level's events took turns; skewed: a snapshot's reads spread over more than 0.1 % of the interval).");
	for (cpu = 0; cpu < TDNL_MAX_CPUS; cpu++) {
		const struct exp_cpu *c = ex.cpu[cpu];

		if (!c)
			continue;
		fprintf(o->f, "topdown_state{cpu=\"%u\",state=\"ok\"} %d\n", cpu,
			c->s.has_l1 && !(c->s.state & ~(TOPDOWN_STATE_MULTIPLEXED |
							TOPDOWN_STATE_SMT_CORE |
							TOPDOWN_STATE_SKEWED)));
		for (b = 0; tdnl_state_name(b); b++)
			fprintf(o->f, "topdown_state{cpu=\"%u\",state=\"%s\"} %d\n", cpu,
				tdnl_state_name(b), !!(c->s.state & (1U << b)));
	}
}

/* the cumulative counters */
static void counters(struct out *o)
{
	static const struct {
		const char *name, *unit, *help;
		bool cycles;
	} fam[2] = {
		{ "topdown_slots", "slots", "Pipeline slots counted in the intervals with fractions, since the module loaded (slot-based models; the cycles times the slots per cycle where the model counts cycles).", false },
		{ "topdown_cycles", "cycles", "Cycles counted in the intervals with fractions, since the module loaded (cycle-based models, whose Level 1 is in cycles).", true },
	};
	unsigned int cpu, i, k;

	for (k = 0; k < 2; k++) {
		char node[48];

		family(o, fam[k].name, "counter", fam[k].unit, fam[k].help);
		for (cpu = 0; cpu < TDNL_MAX_CPUS; cpu++) {
			const struct tdnl_totals *t = ex.cpu[cpu] ? &ex.cpu[cpu]->s.tot : NULL;

			if (t && t->present && t->cycles == fam[k].cycles)
				fprintf(o->f, "%s_total{cpu=\"%u\"} %llu\n", fam[k].name,
					cpu, (unsigned long long)t->units);
		}
		snprintf(node, sizeof(node), "topdown_node_%s", fam[k].unit);
		family(o, node, "counter", fam[k].unit, k ?
		       "Each Level 1 node's share of topdown_cycles_total: the sum of each interval's fraction times its cycles." :
		       "Each Level 1/2 node's share of topdown_slots_total: the sum of each interval's fraction times its slots.");
		for (cpu = 0; cpu < TDNL_MAX_CPUS; cpu++) {
			const struct tdnl_totals *t = ex.cpu[cpu] ? &ex.cpu[cpu]->s.tot : NULL;

			if (!t || !t->present || t->cycles != fam[k].cycles)
				continue;
			for (i = 0; i < TD_NR_L1; i++)
				if (t->l1_set[i])
					fprintf(o->f, "%s_total{cpu=\"%u\",level=\"1\",node=\"%s\"} %llu\n",
						node, cpu, td_l1_names[i],
						(unsigned long long)t->l1[i]);
			for (i = 0; i < TD_NR_L2; i++)
				if (t->l2_set[i])
					fprintf(o->f, "%s_total{cpu=\"%u\",level=\"2\",node=\"%s\"} %llu\n",
						node, cpu, td_l2_names[i],
						(unsigned long long)t->l2[i]);
		}
	}
	family(o, "topdown_clockticks", "counter", NULL,
	       "Clock ticks of the intervals with Level 3/4 memory nodes, since the exporter started (tdnl's, from the raw counts at level 3).");
	for (cpu = 0; cpu < TDNL_MAX_CPUS; cpu++)
		if (ex.cpu[cpu] && ex.cpu[cpu]->clk_seen)
			fprintf(o->f, "topdown_clockticks_total{cpu=\"%u\"} %.0f\n", cpu,
				ex.cpu[cpu]->clk);
	family(o, "topdown_node_clockticks", "counter", NULL,
	       "Each Level 3/4 memory node's share of topdown_clockticks_total.");
	for (cpu = 0; cpu < TDNL_MAX_CPUS; cpu++) {
		const struct exp_cpu *c = ex.cpu[cpu];

		for (i = 0; c && c->clk_seen && i < TD_NR_L34; i++)
			fprintf(o->f, "topdown_node_clockticks_total{cpu=\"%u\",level=\"%d\",node=\"%s\"} %.0f\n",
				cpu, i < TD_FIRST_L4 ? 3 : 4, td_l34_names[i],
				c->clk_node[i]);
	}
	family(o, "topdown_event_count", "counter", NULL,
	       "Each raw event's count since the module loaded, scaled where it did not count all the time.");
	for (cpu = 0; cpu < TDNL_MAX_CPUS; cpu++) {
		const struct tdnl_model *m = cpu_model(cpu);

		for (i = 0; m && i < m->nr_events && i < TDNL_MAX_EVENTS; i++) {
			if (!m->events[i].name || !ex.cpu[cpu]->s.cnt[i].present)
				continue;
			fprintf(o->f, "topdown_event_count_total{cpu=\"%u\",event=\"", cpu);
			label(o->f, m->events[i].name);
			fprintf(o->f, "\"} %llu\n",
				(unsigned long long)ex.cpu[cpu]->s.cnt[i].total);
		}
	}
	family(o, "topdown_lost_intervals", "counter", NULL,
	       "Intervals whose notification the exporter missed (the totals still cover them).");
	for (cpu = 0; cpu < TDNL_MAX_CPUS; cpu++)
		if (ex.cpu[cpu])
			fprintf(o->f, "topdown_lost_intervals_total{cpu=\"%u\"} %llu\n",
				cpu, (unsigned long long)ex.cpu[cpu]->lost);
}

static void metrics(struct out *o)
{
	unsigned int i;

	family(o, "topdown_up", "gauge", NULL,
	       "1 while the topdown module is loaded and its samples are received.");
	fprintf(o->f, "topdown_up %d\n", ex.up);
	if (ex.up) {
		family(o, "topdown_running", "gauge", NULL,
		       "1 while the module counts (started), 0 while stopped.");
		fprintf(o->f, "topdown_running %u\n", ex.info.running);
		family(o, "topdown_level", "gauge", NULL, "The deepest level the module counts.");
		fprintf(o->f, "topdown_level %u\n", ex.info.level);
		family(o, "topdown_interval_seconds", "gauge", "seconds",
		       "The module's sampling interval.");
		fprintf(o->f, "topdown_interval_seconds %.3f\n", ex.info.interval_ms / 1e3);
		family(o, "topdown_cpu", "info", NULL, "Each CPU's model and core type.");
		for (i = 0; i < ex.info.nr_cpus; i++) {
			const struct tdnl_cpu_info *c = &ex.info.cpus[i];

			if (!c->model[0])
				continue;
			fprintf(o->f, "topdown_cpu_info{cpu=\"%u\",model=\"", c->cpu);
			label(o->f, c->model);
			fprintf(o->f, "\",core_type=\"%s\",width=\"%u\"} 1\n",
				core_type(c->model), c->width);
		}
	}
	counters(o);
	gauges(o);
	if (o->om)
		fputs("# EOF\n", o->f);
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int status,
			     char *body, size_t len, const char *type)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = mhd.create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = mhd.queue_response(conn, status, r);
	mhd.destroy_response(r);
	return ret;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *conn,
			       const char *url, const char *method,
			       const char *version, const char *upload,
			       size_t *upload_size, void **req)
{
	const char *accept;
	struct out o = {};
	char *body = NULL;
	size_t len = 0;

	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
			     strdup("GET /metrics\n"), 13, "text/plain");
	if (strcmp(url, "/metrics")) {
		body = strdup("topdown: the metrics are at /metrics\n");
		return reply(conn, strcmp(url, "/") ? MHD_HTTP_NOT_FOUND : MHD_HTTP_OK,
			     body, body ? strlen(body) : 0, "text/plain");
	}
	accept = mhd.lookup_connection_value(conn, MHD_HEADER_KIND,
					     MHD_HTTP_HEADER_ACCEPT);
	o.om = accept && strstr(accept, OPENMETRICS);
	o.f = open_memstream(&body, &len);
	if (!o.f)
		return MHD_NO;
	pthread_mutex_lock(&ex.lock);
	metrics(&o);
	pthread_mutex_unlock(&ex.lock);
	if (fclose(o.f)) {
		free(body);
		return MHD_NO;
	}
	return reply(conn, MHD_HTTP_OK, body, len, o.om ?
		     OPENMETRICS "; version=1.0.0; charset=utf-8" :
		     "text/plain; version=0.0.4; charset=utf-8");
}

/*
 * The listening socket, made here so that its errors (port in use, no such
 * address) are this program's clear messages; libmicrohttpd serves on it.
 */
static int listen_on(const char *spec)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE };
	struct addrinfo *ai, *a;
	char host[256];
	const char *port = strrchr(spec, ':');
	size_t n;
	int fd = -1, one = 1, err;

	if (!port || !port[1] || (size_t)(port - spec) >= sizeof(host)) {
		fprintf(stderr, "tdnl: export: --listen %s: want ADDR:PORT (ADDR may be empty: all addresses)\n",
			spec);
		return -2;
	}
	n = port - spec;
	memcpy(host, spec, n);
	host[n] = 0;
	if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {	/* [v6]:port */
		memmove(host, host + 1, n - 2);
		host[n - 2] = 0;
	}
	err = getaddrinfo(host[0] ? host : NULL, port + 1, &hints, &ai);
	if (err) {
		fprintf(stderr, "tdnl: export: --listen %s: %s\n", spec, gai_strerror(err));
		return -2;
	}
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (!bind(fd, a->ai_addr, a->ai_addrlen) && !listen(fd, 64))
			break;
		err = errno;
		close(fd);
		fd = -1;
		errno = err;
	}
	freeaddrinfo(ai);
	if (fd < 0)
		fprintf(stderr, "tdnl: export: cannot listen on %s: %s\n", spec,
			strerror(errno));
	return fd;
}

/* ---- the samples ---- */

struct conn {
	struct tdnl_nl nl, sock;
	bool gone;
};

static void forget(void)
{
	unsigned int i;

	for (i = 0; i < TDNL_MAX_CPUS; i++) {
		free(ex.cpu[i]);
		ex.cpu[i] = NULL;
	}
	tdnl_free_info(&ex.info);
	memset(&ex.info, 0, sizeof(ex.info));
	ex.up = false;
}

/*
 * One sample, multicast or from the GET_SAMPLE dump made at connect:
 * worked out against the CPU's last one, then kept.  One no newer than the
 * last (seen twice, or multicast before the dump that gave a later one) is
 * dropped; a module loaded again without our noticing numbers from 1 anew
 * but ends later, and is taken.
 */
static int sample_cb(const struct nlmsghdr *nlh, void *data)
{
	struct conn *c = data;
	struct exp_cpu *e, *prev;
	struct tdnl_sample s;
	unsigned int i;
	int ret;

	ret = tdnl_sample_ntf(nlh, &c->sock, TDNL_NTF_DUMP, &s, &c->gone);
	if (ret != TDNL_CB_SAMPLE)
		return ret;
	pthread_mutex_lock(&ex.lock);
	prev = ex.cpu[s.cpu];
	if (prev && s.seq <= prev->s.seq && s.end_ns <= prev->s.end_ns) {
		pthread_mutex_unlock(&ex.lock);
		return MNL_CB_OK;
	}
	tdnl_calc_after(&s, prev ? &prev->s : NULL, &ex.info);
	e = prev ? prev : calloc(1, sizeof(*e));
	if (e) {
		e->s = s;
		e->lost += s.lost;
		if (!isnan(s.clocks)) {
			e->clk_seen = true;
			e->clk += s.clocks;
			for (i = 0; i < TD_NR_L34; i++)
				if (!isnan(s.l34[i]))
					e->clk_node[i] += s.l34[i] / 100 * s.clocks;
		}
		ex.cpu[s.cpu] = e;
	}
	pthread_mutex_unlock(&ex.lock);
	return MNL_CB_OK;
}

/* the module's family and info, and the samples group; quiet: 0 or -errno */
static int connect_module(struct conn *c, bool quiet)
{
	struct tdnl_info info = {};
	int err;

	memset(c, 0, sizeof(*c));
	if (tdnl_nl_open(&c->nl)) {
		err = errno;
		tdnl_nl_close(&c->nl);
		return -err;
	}
	if (tdnl_get_info(&c->nl, &info, quiet)) {
		tdnl_nl_close(&c->nl);
		return -EIO;
	}
	if (tdnl_nl_watch(&c->sock, &c->nl)) {
		err = errno;
		tdnl_free_info(&info);
		tdnl_nl_close(&c->sock);
		tdnl_nl_close(&c->nl);
		return -err;
	}
	pthread_mutex_lock(&ex.lock);
	forget();
	ex.info = info;
	ex.up = true;
	pthread_mutex_unlock(&ex.lock);
	/*
	 * Every CPU's latest sample now, after joining the group so that none
	 * falls between: a scrape just after (re)start has every CPU's totals
	 * rather than none until the next interval.  A failed dump only
	 * leaves them to the next samples.
	 */
	tdnl_nl_talk(&c->nl, tdnl_nl_msg(&c->nl, TOPDOWN_CMD_GET_SAMPLE, NLM_F_DUMP),
		     sample_cb, c);
	return 0;
}

static void disconnect(struct conn *c)
{
	pthread_mutex_lock(&ex.lock);
	forget();
	pthread_mutex_unlock(&ex.lock);
	tdnl_nl_close(&c->sock);
	tdnl_nl_close(&c->nl);
}

/* the module's info again (a set-config changed level or interval) */
static void refresh_info(struct conn *c)
{
	struct tdnl_info info = {};

	if (tdnl_get_info(&c->nl, &info, true))
		return;
	pthread_mutex_lock(&ex.lock);
	tdnl_free_info(&ex.info);
	ex.info = info;
	pthread_mutex_unlock(&ex.lock);
}

static int serve(struct conn *c)
{
	unsigned int idle = 0;

	while (!ex_stop) {
		struct pollfd pfd = { .fd = mnl_socket_get_fd(c->sock.sk), .events = POLLIN };
		int n = poll(&pfd, 1, EXPORT_RETRY_MS);

		if (n < 0 && errno != EINTR) {
			fprintf(stderr, "tdnl: export: %s\n", strerror(errno));
			return TDNL_EXIT_ERR;
		}
		if (n <= 0) {
			/* a quiet second: the level or interval may have changed */
			if (++idle % 5 == 0)
				refresh_info(c);
			continue;
		}
		if (tdnl_nl_drain(&c->sock, sample_cb, c) < 0 &&
		    errno != ENOBUFS && errno != EINTR) {
			fprintf(stderr, "tdnl: export: %s\n", strerror(errno));
			return TDNL_EXIT_ERR;
		}
		if (c->gone) {
			fprintf(stderr, "tdnl: export: the topdown module was unloaded; waiting for it\n");
			disconnect(c);
			while (!ex_stop && connect_module(c, true))
				poll(NULL, 0, EXPORT_RETRY_MS);
			if (!ex_stop)
				fprintf(stderr, "tdnl: export: the topdown module is back\n");
		}
	}
	return 0;
}

/**
 * tdnl_cmd_export() - tdnl export [--listen ADDR:PORT]
 * @argc: the arguments after "export"
 * @argv: them
 *
 * Return: the exit status: 0 after SIGINT or SIGTERM, 1 on an error (the
 * module not loaded, no permission, the address in use), 2 on bad usage.
 */
int tdnl_cmd_export(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART */
	const char *listen = TDNL_EXPORT_LISTEN;
	struct MHD_Daemon *d;
	struct conn c;
	int fd, i, ret;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--listen") && i + 1 < argc)
			listen = argv[++i];
		else
			return tdnl_bad("export: unexpected '%s'", argv[i]);
	}
	if (mhd_open())
		return TDNL_EXIT_ERR;
	fd = listen_on(listen);
	if (fd < 0)
		return fd == -2 ? TDNL_EXIT_USAGE : TDNL_EXIT_ERR;
	ret = connect_module(&c, false);
	if (ret) {
		if (ret == -ENOENT)
			fprintf(stderr, "tdnl: export: the topdown module is not loaded (modprobe topdown)\n");
		else if (ret == -EPERM)
			fprintf(stderr, "tdnl: export: permission denied: receiving the samples needs CAP_SYS_ADMIN\n");
		else if (ret != -EIO)
			fprintf(stderr, "tdnl: export: %s\n", strerror(-ret));
		close(fd);
		return TDNL_EXIT_ERR;
	}
	d = mhd.start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG,
			     0, NULL, NULL, handler, NULL,
			     MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_CONNECTION_TIMEOUT, 30U,
			     MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "tdnl: export: the HTTP server did not start on %s\n", listen);
		disconnect(&c);
		close(fd);
		return TDNL_EXIT_ERR;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	fprintf(stderr, "tdnl: export: serving /metrics on %s\n", listen);
	ret = serve(&c);
	mhd.stop_daemon(d);
	close(fd);
	disconnect(&c);
	return ret;
}
