// SPDX-License-Identifier: GPL-2.0
/*
 * Generated and mutated generic netlink messages to the family "topdown",
 * in the guest, as root and as an unprivileged user (nobody, no
 * capabilities).  Every message has consistent netlink framing (the kernel
 * drops a datagram whose nlmsg_len does not fit it, and answers nothing)
 * and anything after it: every command (and unknown ones), dump and other
 * flags, genl versions and the reserved byte, attributes of every type up
 * to past the largest, the nested and byte-order flags, lengths from 0 to
 * 40 bytes, interesting and random values, nests 3 deep, messages cut
 * short, and valid requests with random bytes flipped.
 *
 * After each one a GET_INFO with NLM_F_ACK marks the end of its answers:
 * every message must be answered (a reply, an ack, an error or a dump's
 * DONE), except a SET_CONFIG without NLM_F_ACK that was taken (netlink
 * answers a taken request only when asked to; as root the configuration
 * read back tells it was taken).  A refused SET_CONFIG must leave the
 * configuration (level, interval, running) as it was; an unprivileged one
 * must never change it, and nobody has nothing taken (every command needs
 * CAP_PERFMON or CAP_SYS_ADMIN).
 * Afterwards the module must sample normally (run.sh checks it).  A WARN,
 * BUG or Oops fails the VM run: selftests/vm/run reads the guest's kernel
 * log at the end.
 *
 *   fuzz N SEED      N messages as root and N as nobody (run.sh gives them)
 *
 * TAP lines; exit 1 after a failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <libmnl/libmnl.h>
#include "linux/topdown.h"

#define NOBODY		65534
#define BUF		(1 << 16)
#define MAX_ERRNO	160

static int tests, failed;

static void tap(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tap(bool ok, const char *fmt, ...)
{
	va_list ap;

	failed += !ok;
	printf("%sok %d - netlink_fuzz: ", ok ? "" : "not ", ++tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* ------------------------------------------------------------ random --- */

static uint64_t rnd_state;

static uint64_t rnd(void)	/* xorshift64* */
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545f4914f6cdd1dULL;
}

static uint32_t pick(uint32_t n)
{
	return rnd() % n;
}

/* values near every limit the family has */
static uint32_t interesting(void)
{
	static const uint32_t v[] = {
		0, 1, 2, 3, 4, 9, 10, 11, 100, 59999, 60000, 60001, 8191, 8192,
		0x7fffffff, 0x80000000, 0xffffffff,
	};

	return pick(4) ? v[pick(sizeof(v) / sizeof(v[0]))] : (uint32_t)rnd();
}

/* ----------------------------------------------------------- netlink --- */

struct nl {
	int fd;
	uint32_t seq;
	char *buf;
};

static int nl_open(struct nl *nl)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1;

	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl->fd < 0)
		return -1;
	nl->buf = malloc(BUF);
	if (!nl->buf || bind(nl->fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -1;
	setsockopt(nl->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	return 0;
}

static struct nlmsghdr *put_req(char *buf, uint16_t type, uint16_t flags,
				uint32_t seq, uint8_t cmd, uint8_t version)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	return nlh;
}

/*
 * Send @nlh, then GET_INFO with an ack as the end mark; read until the
 * mark's NLMSG_ERROR.  Returns how many messages answered @nlh (its
 * error, if any, in *err; 0 for none or an ack) and calls @cb on each
 * reply to the mark; -1 on a socket error.
 */
static bool last_ext;	/* the last error answered carried an extack message */

static int talk(struct nl *nl, uint16_t family, struct nlmsghdr *nlh, int *err,
		void (*cb)(const struct nlmsghdr *, void *), void *data)
{
	char mark_buf[64];
	uint32_t seq = nlh->nlmsg_seq, mark = ++nl->seq;
	struct nlmsghdr *m;
	int answers = 0;

	*err = 0;
	m = put_req(mark_buf, family, NLM_F_REQUEST | NLM_F_ACK, mark,
		    TOPDOWN_CMD_GET_INFO, TOPDOWN_FAMILY_VERSION);
	if (send(nl->fd, nlh, nlh->nlmsg_len, 0) < 0 ||
	    send(nl->fd, m, m->nlmsg_len, 0) < 0)
		return -1;
	for (;;) {
		ssize_t n = recv(nl->fd, nl->buf, BUF, 0);
		const struct nlmsghdr *r;
		int len = n;

		if (n < 0)
			return -1;
		for (r = (void *)nl->buf; mnl_nlmsg_ok(r, len); r = mnl_nlmsg_next(r, &len)) {
			if (r->nlmsg_seq == seq) {
				answers++;
				/* a dump's end carries its error too */
				if (r->nlmsg_type == NLMSG_DONE &&
				    mnl_nlmsg_get_payload_len(r) >= sizeof(int))
					*err = *(const int *)mnl_nlmsg_get_payload(r);
				if (r->nlmsg_type == NLMSG_ERROR) {
					const struct nlmsgerr *e = mnl_nlmsg_get_payload(r);
					const struct nlattr *a;

					*err = e->error;
					last_ext = false;
					if (r->nlmsg_flags & NLM_F_ACK_TLVS)
						mnl_attr_for_each(a, r, sizeof(*e))
							last_ext |= mnl_attr_get_type(a) ==
								    NLMSGERR_ATTR_MSG;
				}
				continue;
			}
			if (r->nlmsg_seq != mark)
				continue;
			if (r->nlmsg_type == NLMSG_ERROR)
				return answers;
			if (cb)
				cb(r, data);
		}
	}
}

static int resolve(struct nl *nl, uint16_t *family)
{
	char buf[256];
	struct nlmsghdr *nlh = put_req(buf, GENL_ID_CTRL, NLM_F_REQUEST, ++nl->seq,
				       CTRL_CMD_GETFAMILY, 1);
	const struct nlattr *a;
	ssize_t n;

	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, TOPDOWN_FAMILY_NAME);
	if (send(nl->fd, nlh, nlh->nlmsg_len, 0) < 0)
		return -1;
	n = recv(nl->fd, nl->buf, BUF, 0);
	nlh = (void *)nl->buf;
	if (n < 0 || !mnl_nlmsg_ok(nlh, n) || nlh->nlmsg_type == NLMSG_ERROR)
		return -1;
	mnl_attr_for_each(a, nlh, GENL_HDRLEN)
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID)
			*family = mnl_attr_get_u16(a);
	return 0;
}

/* the module's configuration, as GET_INFO (the end mark) gives it */
struct config {
	int64_t level, interval, running;
};

static void config_cb(const struct nlmsghdr *nlh, void *data)
{
	struct config *c = data;
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN) {
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			continue;
		switch (mnl_attr_get_type(a)) {
		case TOPDOWN_A_INFO_LEVEL:
			c->level = mnl_attr_get_u32(a);
			break;
		case TOPDOWN_A_INFO_INTERVAL_MS:
			c->interval = mnl_attr_get_u32(a);
			break;
		case TOPDOWN_A_INFO_RUNNING:
			c->running = mnl_attr_get_u32(a);
			break;
		}
	}
}

static int get_config(struct nl *nl, uint16_t family, struct config *c)
{
	char buf[64];
	struct nlmsghdr *nlh = put_req(buf, family, NLM_F_REQUEST, ++nl->seq,
				       TOPDOWN_CMD_GET_INFO, TOPDOWN_FAMILY_VERSION);
	int err;

	*c = (struct config){ -1, -1, -1 };
	return talk(nl, family, nlh, &err, config_cb, c) < 0 || err ? -1 : 0;
}

static bool same(const struct config *a, const struct config *b)
{
	return a->level == b->level && a->interval == b->interval &&
	       a->running == b->running;
}

/* ---------------------------------------------------------- messages --- */

static void put_attr(struct nlmsghdr *nlh, int depth)
{
	uint16_t type = pick(12);
	char bytes[40];
	unsigned int i, len;

	if (!pick(8))
		type |= NLA_F_NESTED;
	if (!pick(16))
		type |= NLA_F_NET_BYTEORDER;
	switch (pick(10)) {
	case 0: case 1: case 2: case 3: case 4:
		mnl_attr_put_u32(nlh, type, interesting());
		break;
	case 5:
		mnl_attr_put_u64(nlh, type, pick(2) ? interesting() : rnd());
		break;
	case 6:
		mnl_attr_put(nlh, type, 0, NULL);
		break;
	case 7:
		len = pick(sizeof(bytes) + 1);
		for (i = 0; i < len; i++)
			bytes[i] = rnd();
		mnl_attr_put(nlh, type, len, bytes);
		break;
	case 8:		/* a string, NUL-terminated or not */
		len = pick(sizeof(bytes)) + 1;
		for (i = 0; i < len; i++)
			bytes[i] = 'a' + pick(26);
		if (pick(2))
			bytes[len - 1] = '\0';
		mnl_attr_put(nlh, type, len, bytes);
		break;
	default:
		if (depth < 3) {
			struct nlattr *nest = mnl_attr_nest_start(nlh, type & NLA_TYPE_MASK);
			unsigned int n = pick(4);

			if (pick(2))
				nest->nla_type |= NLA_F_NESTED;
			while (n--)
				put_attr(nlh, depth + 1);
			mnl_attr_nest_end(nlh, nest);
		} else {
			mnl_attr_put_u32(nlh, type, interesting());
		}
	}
}

/* a request that would pass: the base of a mutation */
static void put_valid(struct nlmsghdr *nlh, uint8_t cmd)
{
	switch (cmd) {
	case TOPDOWN_CMD_GET_SAMPLE:
	case TOPDOWN_CMD_GET_CPU:
		if (!(nlh->nlmsg_flags & NLM_F_DUMP))
			mnl_attr_put_u32(nlh, 1, pick(2));
		break;
	case TOPDOWN_CMD_SET_CONFIG:
		if (pick(2))
			mnl_attr_put_u32(nlh, TOPDOWN_A_CONFIG_INTERVAL_MS, 50 + pick(200));
		if (pick(2))
			mnl_attr_put_u32(nlh, TOPDOWN_A_CONFIG_LEVEL, 1 + pick(3));
		if (pick(4))	/* starts more often than it stops */
			mnl_attr_put_u32(nlh, TOPDOWN_A_CONFIG_RUNNING, !!pick(4));
		if (!pick(4))
			mnl_attr_put(nlh, TOPDOWN_A_CONFIG_END_INTERVAL, 0, NULL);
		break;
	}
}

static const uint8_t cmds[] = {
	0, TOPDOWN_CMD_GET_INFO, TOPDOWN_CMD_GET_SAMPLE, TOPDOWN_CMD_SET_CONFIG,
	TOPDOWN_CMD_SAMPLE_NTF, TOPDOWN_CMD_GET_CPU, TOPDOWN_CMD_GET_CPU + 1,
	99, 255,
};

/* one message in @buf; returns it with its command in *cmd */
static struct nlmsghdr *make(char *buf, uint16_t family, uint32_t seq, uint8_t *cmd)
{
	uint16_t flags = NLM_F_REQUEST;
	struct nlmsghdr *nlh;
	unsigned int i, n;

	*cmd = cmds[pick(sizeof(cmds))];
	if (pick(2))
		flags |= NLM_F_ACK;
	if (!pick(4))
		flags |= NLM_F_DUMP;
	if (!pick(8))
		flags |= rnd() & 0xffe0;	/* the rest: EXCL, CREATE, ... */
	nlh = put_req(buf, family, flags, seq, *cmd,
		      pick(8) ? TOPDOWN_FAMILY_VERSION : pick(256));
	if (!pick(32))
		((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->reserved = rnd();
	if (!pick(4)) {
		/* a valid request with a few bytes after the header flipped */
		put_valid(nlh, *cmd);
		n = pick(4) + 1;
		for (i = 0; i < n && nlh->nlmsg_len > NLMSG_HDRLEN; i++)
			((uint8_t *)nlh)[NLMSG_HDRLEN + pick(nlh->nlmsg_len - NLMSG_HDRLEN)] ^=
				1 << pick(8);
	} else {
		n = pick(7);
		while (n--)
			put_attr(nlh, 0);
	}
	if (!pick(16))	/* cut short, and sent so: the framing stays right */
		nlh->nlmsg_len = NLMSG_HDRLEN + pick(nlh->nlmsg_len - NLMSG_HDRLEN + 1);
	/*
	 * The command as sent: a flipped bit may have made another of it (a
	 * GET_SAMPLE a SET_CONFIG), and one cut short has none (0: no such
	 * command).  Counting by the command drawn, a SET_CONFIG made so and
	 * taken without an ack looked unanswered, and the next refused
	 * SET_CONFIG seemed to have changed the configuration.
	 */
	*cmd = nlh->nlmsg_len >= NLMSG_HDRLEN + GENL_HDRLEN ?
	       ((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->cmd : 0;
	return nlh;
}

/* --------------------------------------------------------------- run --- */

static void dump_msg(const char *what, const struct nlmsghdr *nlh)
{
	unsigned int i;

	printf("# %s: len %u flags %#x cmd %u:", what, nlh->nlmsg_len, nlh->nlmsg_flags,
	       ((const struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->cmd);
	for (i = NLMSG_HDRLEN; i < nlh->nlmsg_len; i++)
		printf(" %02x", ((const uint8_t *)nlh)[i]);
	putchar('\n');
}

struct result {
	unsigned long sent, unanswered, silent, accepted, errnos[MAX_ERRNO], extacks;
	unsigned long sets, sets_refused, refused_changed, changed;
	double secs;
};

static int run(struct nl *nl, uint16_t family, unsigned long count, struct result *res)
{
	struct config before, after;
	struct timespec t0, t1;
	char buf[BUF];
	unsigned long i;

	memset(res, 0, sizeof(*res));
	if (get_config(nl, family, &before) && getuid() == 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < count; i++) {
		uint8_t cmd;
		struct nlmsghdr *nlh = make(buf, family, ++nl->seq, &cmd);
		int err, answers = talk(nl, family, nlh, &err, NULL, NULL);

		bool set = cmd == TOPDOWN_CMD_SET_CONFIG && !(nlh->nlmsg_flags & NLM_F_DUMP);

		if (answers < 0)
			return -1;
		res->sent++;
		/* a long run says how far it is: the debug kernel's 10^6 takes hours */
		if (count >= 100000 && res->sent % (count / 10) == 0) {
			clock_gettime(CLOCK_MONOTONIC, &t1);
			/* root's config too: level 3 at short intervals slows a slow kernel */
			printf("# %s: %lu of %lu sent in %.0f s", getuid() ? "nobody" : "root",
			       res->sent, count,
			       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
			if (!getuid())
				printf(" (level %lld, interval %lld ms)", (long long)before.level,
				       (long long)before.interval);
			printf("\n");
			fflush(stdout);
		}
		if (err < 0 && -err < MAX_ERRNO)
			res->errnos[-err]++;
		res->extacks += err < 0 && last_ext;
		res->accepted += answers && !err;
		/* as root: what a set-config did, or did not do */
		if (set && getuid() == 0 && !get_config(nl, family, &after)) {
			res->sets++;
			if (err) {
				res->sets_refused++;
				res->refused_changed += !same(&before, &after);
			}
			res->changed += !same(&before, &after);
			before = after;
		}
		if (answers)
			continue;
		/* taken, and not asked to ack: as root only, where it shows */
		if (set && !(nlh->nlmsg_flags & NLM_F_ACK) && getuid() == 0) {
			res->silent++;
			res->accepted++;
			continue;
		}
		if (res->unanswered++ < 5)
			dump_msg("unanswered", nlh);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	res->secs = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	return 0;
}

static void errno_list(const struct result *r, char *out, size_t size)
{
	size_t len = 0;
	int e;

	out[0] = '\0';
	for (e = 1; e < MAX_ERRNO; e++)
		if (r->errnos[e])
			len += snprintf(out + len, size - len, "%s%s %lu", len ? ", " : "",
					strerrorname_np(e) ?: "?", r->errnos[e]);
}

/* root, after everything: the module set back to work, and sampling */
static void works(struct nl *nl, uint16_t family)
{
	char buf[256];
	struct nlmsghdr *nlh = put_req(buf, family, NLM_F_REQUEST | NLM_F_ACK, ++nl->seq,
				       TOPDOWN_CMD_SET_CONFIG, TOPDOWN_FAMILY_VERSION);
	struct config c;
	int err, ok;

	mnl_attr_put_u32(nlh, TOPDOWN_A_CONFIG_INTERVAL_MS, 100);
	mnl_attr_put_u32(nlh, TOPDOWN_A_CONFIG_LEVEL, 2);
	mnl_attr_put_u32(nlh, TOPDOWN_A_CONFIG_RUNNING, 1);
	ok = talk(nl, family, nlh, &err, NULL, NULL) == 1 && !err &&
	     !get_config(nl, family, &c) && c.level == 2 && c.interval == 100 && c.running == 1;
	tap(ok, "afterwards: set-config interval 100 level 2 running 1 is taken (err %d)", err);
}

static void report(const char *who, const struct result *r)
{
	char errs[1024];

	errno_list(r, errs, sizeof(errs));
	tap(r->sent && !r->unanswered, "%s: %lu messages in %.0f s (%.0f/s), every one answered "
	    "(%lu unanswered) but %lu set-config taken without an ack: %lu accepted; "
	    "refused: %s (%lu with an extack message)",
	    who, r->sent, r->secs, r->sent / (r->secs ?: 1), r->unanswered, r->silent,
	    r->accepted, errs, r->extacks);
}

int main(int argc, char **argv)
{
	unsigned long count = argc > 1 ? strtoul(argv[1], NULL, 0) : 10000;
	struct config start, end;
	struct result root, nobody;
	uint16_t family = 0;
	struct nl nl = {};
	pid_t pid;
	int status;
	bool ok;

	rnd_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	rnd_state = rnd_state ?: 1;
	if (nl_open(&nl) || resolve(&nl, &family) || get_config(&nl, family, &start)) {
		tap(false, "the family resolves and answers GET_INFO (is topdown.ko loaded?)");
		return 1;
	}
	printf("# %lu messages each as root and as nobody, seed %s\n", count,
	       argc > 2 ? argv[2] : "1");

	if (run(&nl, family, count, &root)) {
		tap(false, "root: the socket works throughout (%s)", strerror(errno));
		return 1;
	}
	report("root", &root);
	tap(!root.refused_changed, "root: the %lu refused set-config changed nothing "
	    "(%lu changed it); of %lu set-config, %lu changed it", root.sets_refused,
	    root.refused_changed, root.sets, root.changed);
	works(&nl, family);

	/* nobody, no capabilities: a child, so the parent can check after */
	get_config(&nl, family, &start);
	fflush(stdout);
	pid = fork();
	if (!pid) {
		struct nl u = {};

		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY) || nl_open(&u)) {
			tap(false, "nobody: drop privileges, open a socket");
			_exit(1);
		}
		rnd_state ^= 0x9e3779b97f4a7c15ULL;
		if (run(&u, family, count, &nobody)) {
			tap(false, "nobody: the socket works throughout (%s)", strerror(errno));
			_exit(1);
		}
		report("nobody", &nobody);
		tap(nobody.sent && !nobody.accepted && nobody.errnos[EPERM],
		    "nobody: nothing accepted (%lu), EPERM for %lu (the rest refused by the "
		    "policies first)", nobody.accepted, nobody.errnos[EPERM]);
		_exit(failed ? 1 : 0);
	}
	waitpid(pid, &status, 0);
	tests += 2;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		failed++;
	/* (read before the tap: its arguments are evaluated in no set order) */
	ok = !get_config(&nl, family, &end) && same(&start, &end);
	tap(ok, "nobody changed nothing: level %lld interval %lld running %lld",
	    (long long)end.level, (long long)end.interval, (long long)end.running);
	return failed ? 1 : 0;
}
