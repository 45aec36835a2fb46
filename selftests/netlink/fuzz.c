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
 * Up to 8 go in one datagram, with an end mark after them (see talk()):
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
	bool broken;	/* a send or receive failed */
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
 * Messages go in batches, one datagram each: on the debug kernel (KASAN,
 * lockdep, under emulation) the system calls cost more than the messages,
 * and a GET_INFO as every message's end mark doubled root's time.  A batch
 * ends after a dump request (a second dump while one runs is refused with
 * EBUSY, which would hide the dump paths) or after a SET_CONFIG (root reads
 * the configuration back after each), and with an end mark: a request for
 * no command (0), answered EOPNOTSUPP by genetlink itself, for root and
 * nobody alike.  Netlink answers a datagram's messages in order.
 */
#define BATCH		8
#define BATCH_ROOM	(1 << 16)	/* a batch stops growing past this */
#define RECV_BUFS	8

struct sent {
	int answers, err;
	bool ext;	/* its error carried an extack message */
};

struct batch {
	char buf[BATCH_ROOM + BUF];	/* a message is never near BUF */
	size_t len;
	uint32_t seq0;		/* the first message's; the rest follow */
	int n;
	size_t off[BATCH + 1];	/* where each message starts in buf */
	struct sent sent[BATCH + 1];
};

static void batch_start(struct batch *b, struct nl *nl)
{
	b->len = 0;
	b->n = 0;
	b->seq0 = nl->seq + 1;
}

/* room for the next message, at the batch's end (its seq is nl->seq + 1) */
static char *batch_next(struct batch *b)
{
	return b->buf + b->len;
}

static void batch_add(struct batch *b, struct nl *nl, const struct nlmsghdr *nlh)
{
	b->off[b->n] = b->len;
	b->len += NLMSG_ALIGN(nlh->nlmsg_len);
	b->sent[b->n++] = (struct sent){ 0 };
	nl->seq++;
}

/*
 * Send @b and an end mark in one datagram; read until the mark's answer,
 * counting each message's answers (a reply, an ack, an error, a dump's
 * parts and DONE) and keeping its error.  @cb gets every reply to the
 * batch's message @cb_idx (-1: none).  Returns -1 on a socket error.
 */
static int talk(struct nl *nl, uint16_t family, struct batch *b, int cb_idx,
		void (*cb)(const struct nlmsghdr *, void *), void *data)
{
	static char bufs[RECV_BUFS][BUF];
	struct mmsghdr msgs[RECV_BUFS];
	struct iovec iov[RECV_BUFS];
	uint32_t mark = nl->seq + 1;
	struct nlmsghdr *m;
	bool done = false;
	int i;

	m = put_req(batch_next(b), family, NLM_F_REQUEST | NLM_F_ACK, mark, 0,
		    TOPDOWN_FAMILY_VERSION);
	nl->seq++;
	if (send(nl->fd, b->buf, b->len + m->nlmsg_len, 0) < 0) {
		nl->broken = true;
		return -1;
	}
	for (i = 0; i < RECV_BUFS; i++) {
		iov[i] = (struct iovec){ bufs[i], BUF };
		msgs[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i], .msg_iovlen = 1 } };
	}
	while (!done) {
		int got = recvmmsg(nl->fd, msgs, RECV_BUFS, MSG_WAITFORONE, NULL);

		if (got < 0) {
			nl->broken = true;
			return -1;
		}
		for (i = 0; i < got; i++) {
			const struct nlmsghdr *r = (void *)bufs[i];
			int len = msgs[i].msg_len;

			for (; mnl_nlmsg_ok(r, len); r = mnl_nlmsg_next(r, &len)) {
				uint32_t k = r->nlmsg_seq - b->seq0;
				struct sent *s;

				if (r->nlmsg_seq == mark) {
					done |= r->nlmsg_type == NLMSG_ERROR;
					continue;
				}
				if (k >= (uint32_t)b->n)
					continue;	/* a dump's rest, from before */
				s = &b->sent[k];
				s->answers++;
				/* a dump's end carries its error too */
				if (r->nlmsg_type == NLMSG_DONE &&
				    mnl_nlmsg_get_payload_len(r) >= sizeof(int))
					s->err = *(const int *)mnl_nlmsg_get_payload(r);
				if (r->nlmsg_type == NLMSG_ERROR) {
					const struct nlmsgerr *e = mnl_nlmsg_get_payload(r);
					const struct nlattr *a;

					s->err = e->error;
					s->ext = false;
					if (r->nlmsg_flags & NLM_F_ACK_TLVS)
						mnl_attr_for_each(a, r, sizeof(*e))
							s->ext |= mnl_attr_get_type(a) ==
								  NLMSGERR_ATTR_MSG;
				} else if ((int)k == cb_idx && cb && r->nlmsg_type != NLMSG_DONE) {
					cb(r, data);
				}
			}
		}
	}
	return 0;
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

/* GET_INFO at @b's end (@b may hold more before it), read into @c */
static int get_config(struct nl *nl, uint16_t family, struct batch *b, struct config *c)
{
	int idx = b->n;

	put_req(batch_next(b), family, NLM_F_REQUEST, nl->seq + 1, TOPDOWN_CMD_GET_INFO,
		TOPDOWN_FAMILY_VERSION);
	batch_add(b, nl, (struct nlmsghdr *)batch_next(b));
	*c = (struct config){ -1, -1, -1 };
	return talk(nl, family, b, idx, config_cb, c) < 0 || b->sent[idx].err ||
	       c->level < 0 ? -1 : 0;
}

/* the configuration alone */
static int read_config(struct nl *nl, uint16_t family, struct config *c)
{
	static struct batch b;

	batch_start(&b, nl);
	return get_config(nl, family, &b, c);
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
	unsigned long sent, batches, unanswered, silent, accepted, errnos[MAX_ERRNO], extacks;
	unsigned long sets, sets_refused, refused_changed, changed;
	double secs;
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* the messages of @b but the last @extra (a config read), counted in @res */
static void tally(const struct batch *b, int extra, bool set, struct result *res)
{
	int i, n = b->n - extra;

	for (i = 0; i < n; i++) {
		const struct nlmsghdr *nlh = (const void *)(b->buf + b->off[i]);
		const struct sent *s = &b->sent[i];

		res->sent++;
		if (s->err < 0 && -s->err < MAX_ERRNO)
			res->errnos[-s->err]++;
		res->extacks += s->err < 0 && s->ext;
		res->accepted += s->answers && !s->err;
		if (s->answers)
			continue;
		/* taken, and not asked to ack: as root only, where it shows */
		if (set && i == n - 1 && !(nlh->nlmsg_flags & NLM_F_ACK) && getuid() == 0) {
			res->silent++;
			res->accepted++;
			continue;
		}
		if (res->unanswered++ < 5)
			dump_msg("unanswered", nlh);
	}
}

static int run(struct nl *nl, uint16_t family, unsigned long count, struct result *res)
{
	static struct batch b;
	unsigned long next_report = count / 10;
	struct config before, after;
	bool root = getuid() == 0;
	double t0 = now();

	memset(res, 0, sizeof(*res));
	if (read_config(nl, family, &before) && root)
		return -1;
	while (res->sent < count) {
		bool set = false, read;

		batch_start(&b, nl);
		while (b.n < BATCH && res->sent + b.n < count && b.len < BATCH_ROOM) {
			uint8_t cmd;
			struct nlmsghdr *nlh = make(batch_next(&b), family, nl->seq + 1, &cmd);
			bool dump = nlh->nlmsg_flags & NLM_F_DUMP;

			batch_add(&b, nl, nlh);
			set = cmd == TOPDOWN_CMD_SET_CONFIG && !dump;
			if (set || dump)
				break;
		}
		/* as root: the configuration read back after a set-config */
		read = set && root;
		if (read)
			get_config(nl, family, &b, &after);
		else
			talk(nl, family, &b, -1, NULL, NULL);
		if (nl->broken)
			return -1;
		res->batches++;
		tally(&b, read, set, res);
		/* what a set-config did, or did not do */
		if (read && after.level >= 0) {
			int err = b.sent[b.n - 2].err;

			res->sets++;
			if (err) {
				res->sets_refused++;
				res->refused_changed += !same(&before, &after);
			}
			res->changed += !same(&before, &after);
			before = after;
		}
		/* a long run says how far it is: the debug kernel's 10^6 takes an hour */
		if (count >= 100000 && res->sent >= next_report) {
			next_report += count / 10;
			/* root's config too: level 3 at short intervals slows a slow kernel */
			printf("# %s: %lu of %lu sent in %.0f s", root ? "root" : "nobody",
			       res->sent, count, now() - t0);
			if (root)
				printf(" (level %lld, interval %lld ms)", (long long)before.level,
				       (long long)before.interval);
			printf("\n");
			fflush(stdout);
		}
	}
	res->secs = now() - t0;
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
	static struct batch b;
	struct nlmsghdr *nlh;
	struct config c;
	bool ok;

	batch_start(&b, nl);
	nlh = put_req(batch_next(&b), family, NLM_F_REQUEST | NLM_F_ACK, nl->seq + 1,
		      TOPDOWN_CMD_SET_CONFIG, TOPDOWN_FAMILY_VERSION);
	mnl_attr_put_u32(nlh, TOPDOWN_A_CONFIG_INTERVAL_MS, 100);
	mnl_attr_put_u32(nlh, TOPDOWN_A_CONFIG_LEVEL, 2);
	mnl_attr_put_u32(nlh, TOPDOWN_A_CONFIG_RUNNING, 1);
	batch_add(&b, nl, nlh);
	ok = !get_config(nl, family, &b, &c) && b.sent[0].answers == 1 && !b.sent[0].err &&
	     c.level == 2 && c.interval == 100 && c.running == 1;
	tap(ok, "afterwards: set-config interval 100 level 2 running 1 is taken (err %d)",
	    b.sent[0].err);
}

static void report(const char *who, const struct result *r)
{
	char errs[1024];

	errno_list(r, errs, sizeof(errs));
	tap(r->sent && !r->unanswered, "%s: %lu messages in %lu datagrams, %.0f s (%.0f/s), "
	    "every one answered "
	    "(%lu unanswered) but %lu set-config taken without an ack: %lu accepted; "
	    "refused: %s (%lu with an extack message)",
	    who, r->sent, r->batches, r->secs, r->sent / (r->secs ?: 1), r->unanswered, r->silent,
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
	if (nl_open(&nl) || resolve(&nl, &family) || read_config(&nl, family, &start)) {
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
	read_config(&nl, family, &start);
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
	ok = !read_config(&nl, family, &end) && same(&start, &end);
	tap(ok, "nobody changed nothing: level %lld interval %lld running %lld",
	    (long long)end.level, (long long)end.interval, (long long)end.running);
	return failed ? 1 : 0;
}
