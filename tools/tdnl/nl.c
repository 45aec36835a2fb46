// SPDX-License-Identifier: GPL-2.0
/*
 * tdnl: generic netlink plumbing.  The family and its multicast group are
 * resolved by name through the controller; requests ask for extended acks,
 * so a refused command comes back with the kernel's own words.
 */
#define _GNU_SOURCE		/* recvmmsg */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include "linux/topdown.h"
#include "tdnl.h"

/*
 * Replies: GET_INFO for 1024 CPUs is about 30 KB, and one reply must fit
 * one read.  A dump sends at most 32 KB per read.
 */
#define TDNL_BUF_SIZE		(1U << 20)
/* notifications: one per CPU per interval, about 1.5 KB each at level=3 */
#define TDNL_WATCH_RCVBUF	(8 << 20)
/*
 * A watch socket reads up to TDNL_BATCH notifications per system call, each
 * into its own slot of the socket's buffer (a notification is under 4 KB)
 */
#define TDNL_BATCH		32
#define TDNL_SLOT		(TDNL_BUF_SIZE / TDNL_BATCH)

/* what the kernel's extended ack said of a request */
struct tdnl_ext {
	char msg[256];		/* its message; "" when none */
	unsigned int attr;	/* the type of the attribute it named; 0: none */
	bool range;		/* the policy's range of that attribute: */
	uint64_t min, max;
};

struct tdnl_req {
	tdnl_cb_t cb;
	void *data;
	struct tdnl_ext ext;
	/* the request as sent (NETLINK_CAP_ACK: the error does not echo it) */
	char sent[512];
	uint32_t sent_len;
};

/* of the last failed request */
static struct tdnl_ext tdnl_ext;

/* a policy's unsigned range (NLMSGERR_ATTR_POLICY), as a failed check gives it */
static void policy_range(const struct nlattr *nest, struct tdnl_ext *ext)
{
	const struct nlattr *a;
	unsigned int seen = 0;

	mnl_attr_for_each_nested(a, nest) {
		if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
			continue;
		if (mnl_attr_get_type(a) == NL_POLICY_TYPE_ATTR_MIN_VALUE_U) {
			ext->min = mnl_attr_get_u64(a);
			seen |= 1;
		} else if (mnl_attr_get_type(a) == NL_POLICY_TYPE_ATTR_MAX_VALUE_U) {
			ext->max = mnl_attr_get_u64(a);
			seen |= 2;
		}
	}
	ext->range = seen == 3;
}

/* NLMSGERR_ATTR_OFFS points into the request, as sent */
static void extack(const struct nlmsghdr *nlh, unsigned int off,
		   struct tdnl_req *req)
{
	const char *req_msg = req->sent;
	uint32_t req_len = req->sent_len;
	const struct nlattr *a;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	mnl_attr_for_each(a, nlh, off) {
		switch (mnl_attr_get_type(a)) {
		case NLMSGERR_ATTR_MSG:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
				snprintf(req->ext.msg, sizeof(req->ext.msg), "%s",
					 mnl_attr_get_str(a));
			break;
		case NLMSGERR_ATTR_OFFS:
			if (mnl_attr_validate(a, MNL_TYPE_U32) == 0 && req_msg &&
			    mnl_attr_get_u32(a) + sizeof(struct nlattr) <= req_len) {
				const struct nlattr *bad = (const void *)
					(req_msg + mnl_attr_get_u32(a));

				req->ext.attr = mnl_attr_get_type(bad);
			}
			break;
		case NLMSGERR_ATTR_POLICY:
			if (mnl_attr_validate(a, MNL_TYPE_NESTED) == 0)
				policy_range(a, &req->ext);
			break;
		}
	}
}

static int err_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	struct tdnl_req *req = data;
	unsigned int off = sizeof(*err);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*err))) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	/* without NETLINK_CAP_ACK, the request itself comes back too */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += err->msg.nlmsg_len - sizeof(struct nlmsghdr);
	extack(nlh, off, req);
	if (!err->error) {
		if (req->ext.msg[0])	/* an ack with a warning */
			fprintf(stderr, "Warning: %s%s\n", req->ext.msg,
				req->ext.msg[strlen(req->ext.msg) - 1] == '.' ? "" : ".");
		return MNL_CB_STOP;
	}
	errno = -err->error;
	return MNL_CB_ERROR;
}

/* the end of a dump: an error code, and since 6.0 maybe an extack too */
static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	int err;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(int))
		return MNL_CB_STOP;
	err = *(const int *)mnl_nlmsg_get_payload(nlh);
	if (err >= 0)
		return MNL_CB_STOP;
	extack(nlh, sizeof(int), data);
	errno = -err;
	return MNL_CB_ERROR;
}

static int data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct tdnl_req *req = data;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	return req->cb ? req->cb(nlh, req->data) : MNL_CB_OK;
}

static struct nlmsghdr *msg(struct tdnl_nl *nl, uint16_t type, uint8_t cmd,
			    uint8_t version, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl->buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++nl->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = version;
	return nlh;
}

/**
 * tdnl_nl_msg() - start a request to topdown
 * @nl:    the socket
 * @cmd:   enum topdown_cmd
 * @flags: NLM_F_ACK for a do, NLM_F_DUMP for a dump
 *
 * Return: the message, in @nl's buffer; add attributes, then talk.
 */
struct nlmsghdr *tdnl_nl_msg(struct tdnl_nl *nl, uint8_t cmd, uint16_t flags)
{
	return msg(nl, nl->family, cmd, TOPDOWN_FAMILY_VERSION, flags);
}

/**
 * tdnl_nl_talk() - send a request, pass each reply to @cb until the ack
 * @nl:   the socket
 * @nlh:  the request
 * @cb:   called for each reply message (MNL_CB_OK to go on)
 * @data: for @cb
 *
 * Return: 0, or -1 with errno set; the kernel's message, if it sent one,
 * is kept for tdnl_nl_error().
 */
int tdnl_nl_talk(struct tdnl_nl *nl, struct nlmsghdr *nlh, tdnl_cb_t cb,
		 void *data)
{
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = err_cb,
		[NLMSG_DONE] = done_cb,
	};
	struct tdnl_req req = { .cb = cb, .data = data };
	unsigned int seq = nlh->nlmsg_seq;
	ssize_t len;
	int ret;

	memset(&tdnl_ext, 0, sizeof(tdnl_ext));
	req.sent_len = nlh->nlmsg_len < sizeof(req.sent) ? nlh->nlmsg_len : sizeof(req.sent);
	memcpy(req.sent, nlh, req.sent_len);
	if (mnl_socket_sendto(nl->sk, nlh, nlh->nlmsg_len) < 0)
		return -1;
	do {
		len = mnl_socket_recvfrom(nl->sk, nl->buf, nl->bufsz);
		if (len < 0)
			return -1;
		ret = mnl_cb_run2(nl->buf, len, seq, nl->portid, data_cb, &req,
				  ctl, NLMSG_MIN_TYPE);
	} while (ret > MNL_CB_STOP);
	if (ret < 0) {
		int err = errno;

		tdnl_ext = req.ext;
		errno = err;
		return -1;
	}
	return 0;
}

/**
 * tdnl_nl_error() - say why a request failed
 * @err:  its errno
 * @what: what tdnl was doing, for the plain errno case
 *
 * Return: the exit status, TDNL_EXIT_ERR.
 */
int tdnl_nl_error(int err, const char *what)
{
	return tdnl_nl_error_attrs(err, what, NULL, 0);
}

/**
 * tdnl_nl_error_attrs() - tdnl_nl_error(), naming the attribute the kernel named
 * @err:   its errno
 * @what:  what tdnl was doing, for the plain errno case
 * @names: the request's attribute names by type (NULL: none)
 * @n:     how many
 *
 * A policy's check gives only its message ("integer out of range"), the
 * attribute and the range: "Error: level: integer out of range (1..3).".
 *
 * Return: the exit status, TDNL_EXIT_ERR.
 */
int tdnl_nl_error_attrs(int err, const char *what, const char *const *names,
			unsigned int n)
{
	const struct tdnl_ext *x = &tdnl_ext;
	const char *m = x->msg;
	size_t len = strlen(m);

	if (err == ENOENT && !m[0]) {	/* the family went away */
		fprintf(stderr, "tdnl: the topdown module is not loaded (no generic netlink family \"%s\"): sudo modprobe topdown\n",
			TOPDOWN_FAMILY_NAME);
	} else if (err == EPERM) {
		fprintf(stderr, "tdnl: permission denied: topdown needs CAP_PERFMON or CAP_SYS_ADMIN\n");
	} else if (m[0]) {
		fputs("Error: ", stderr);
		/* the module's own messages name it already */
		if (names && x->attr < n && names[x->attr] &&
		    strncmp(m, names[x->attr], strlen(names[x->attr])))
			fprintf(stderr, "%s: ", names[x->attr]);
		fprintf(stderr, "%.*s", (int)(m[len - 1] == '.' ? len - 1 : len), m);
		if (x->range)
			fprintf(stderr, " (%llu..%llu)", (unsigned long long)x->min,
				(unsigned long long)x->max);
		fputs(".\n", stderr);
	} else {
		fprintf(stderr, "tdnl: %s: %s\n", what, strerror(err));
	}
	return TDNL_EXIT_ERR;
}

struct family {
	const char *group;	/* the multicast group wanted */
	uint16_t id;
	uint32_t grp;		/* 0 when not found */
};

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	struct family *f = data;
	const struct nlattr *a, *g, *x;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case CTRL_ATTR_FAMILY_ID:
			if (mnl_attr_validate(a, MNL_TYPE_U16) < 0)
				goto bad;
			f->id = mnl_attr_get_u16(a);
			break;
		case CTRL_ATTR_MCAST_GROUPS:
			/* an array of nests: name and id of each group */
			mnl_attr_for_each_nested(g, a) {
				const char *name = NULL;
				uint32_t id = 0;

				mnl_attr_for_each_nested(x, g) {
					int t = mnl_attr_get_type(x);

					if (t == CTRL_ATTR_MCAST_GRP_NAME &&
					    !mnl_attr_validate(x, MNL_TYPE_NUL_STRING))
						name = mnl_attr_get_str(x);
					else if (t == CTRL_ATTR_MCAST_GRP_ID &&
						 !mnl_attr_validate(x, MNL_TYPE_U32))
						id = mnl_attr_get_u32(x);
				}
				if (name && !strcmp(name, f->group))
					f->grp = id;
			}
			break;
		}
	}
	return MNL_CB_OK;
bad:
	errno = EBADMSG;
	return MNL_CB_ERROR;
}

/* a family's id and one of its groups, by name, from the controller */
static int resolve(struct tdnl_nl *nl, const char *name, struct family *f)
{
	struct nlmsghdr *nlh;

	nlh = msg(nl, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, NLM_F_ACK);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	return tdnl_nl_talk(nl, nlh, family_cb, f);
}

/*
 * A socket's buffer: its own mapping, never backed by huge pages.  Only the
 * pages a read writes become resident (a few of each 32 KiB slot), but
 * malloc() mapped the two sockets' buffers side by side and the kernel
 * merged them into one 2 MiB mapping; where that happened to hold an
 * aligned 2 MiB range, khugepaged (transparent_hugepage=always, Debian's
 * kernel default) made it one huge page: `tdnl watch` 2.6 -> 4.6 MiB
 * resident, in 6 of 400 starts in the guest with khugepaged scanning every
 * 10 ms (make bench's one 4468 KiB reading in nine looked the same).
 */
static void *buf_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, size, MADV_NOHUGEPAGE);	/* old kernels: no THP, no error */
	return p;
}

static int open_socket(struct tdnl_nl *nl, size_t bufsz)
{
	int one = 1;

	memset(nl, 0, sizeof(*nl));
	nl->buf = buf_alloc(bufsz);
	if (!nl->buf)
		return -1;
	nl->bufsz = bufsz;
	nl->sk = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sk)
		return -1;
	if (mnl_socket_bind(nl->sk, 0, MNL_SOCKET_AUTOPID) < 0)
		return -1;
	nl->portid = mnl_socket_get_portid(nl->sk);
	/* the kernel's error messages, without the request echoed back */
	mnl_socket_setsockopt(nl->sk, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sk, NETLINK_CAP_ACK, &one, sizeof(one));
	return 0;
}

/**
 * tdnl_nl_open() - a socket for requests to the topdown family
 * @nl: out
 *
 * Return: 0, or -1 with errno set: ENOENT when the module is not loaded.
 */
int tdnl_nl_open(struct tdnl_nl *nl)
{
	struct family f = { .group = TOPDOWN_MCGRP_SAMPLES };

	if (open_socket(nl, TDNL_BUF_SIZE) || resolve(nl, TOPDOWN_FAMILY_NAME, &f))
		return -1;
	nl->family = f.id;
	nl->mcgrp = f.grp;
	return 0;
}

/**
 * tdnl_nl_watch() - a second socket, subscribed to the "samples" group
 * @nl:   out
 * @from: the request socket, which resolved the family
 *
 * Also joins the controller's "notify" group, to notice the module going
 * away.  The receive buffer is made large, so that a burst of one message
 * per CPU fits; an overrun is then reported as ENOBUFS by recv.
 *
 * Return: 0, or -1 with errno set (EPERM: not allowed to join).
 */
int tdnl_nl_watch(struct tdnl_nl *nl, struct tdnl_nl *from)
{
	struct family ctrl = { .group = "notify" };
	int size = TDNL_WATCH_RCVBUF, fd;

	if (!from->mcgrp) {
		errno = ENOENT;
		return -1;
	}
	if (resolve(from, "nlctrl", &ctrl))
		ctrl.grp = 0;	/* then no notice of an unload */
	if (open_socket(nl, TDNL_BUF_SIZE))
		return -1;
	nl->family = from->family;
	nl->mcgrp = from->mcgrp;
	nl->ctrl_family = ctrl.id;
	nl->ctrl_mcgrp = ctrl.grp;
	fd = mnl_socket_get_fd(nl->sk);
	/* beyond rmem_max needs CAP_NET_ADMIN: try that first */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (mnl_socket_setsockopt(nl->sk, NETLINK_ADD_MEMBERSHIP, &nl->mcgrp,
				  sizeof(nl->mcgrp)) < 0)
		return -1;
	if (nl->ctrl_mcgrp)
		mnl_socket_setsockopt(nl->sk, NETLINK_ADD_MEMBERSHIP,
				      &nl->ctrl_mcgrp, sizeof(nl->ctrl_mcgrp));
	return 0;
}

/**
 * tdnl_nl_drain() - every message waiting on a watch socket
 * @nl:   from tdnl_nl_watch()
 * @cb:   run on each message
 * @data: its argument
 *
 * Reads without waiting, TDNL_BATCH messages per recvmmsg(), until none is
 * left or @cb stops: a burst of one notification per CPU costs a few
 * system calls, not one each.
 *
 * Return: MNL_CB_OK when the socket is empty, MNL_CB_STOP when @cb stopped,
 * or -1 with errno set (ENOBUFS: notifications were lost; the socket can
 * be drained on).
 */
int tdnl_nl_drain(struct tdnl_nl *nl, tdnl_cb_t cb, void *data)
{
	struct mmsghdr mm[TDNL_BATCH];
	struct iovec iov[TDNL_BATCH];
	int fd = mnl_socket_get_fd(nl->sk), n, i, ret;

	for (;;) {
		memset(mm, 0, sizeof(mm));
		for (i = 0; i < TDNL_BATCH; i++) {
			iov[i].iov_base = nl->buf + (size_t)i * TDNL_SLOT;
			iov[i].iov_len = TDNL_SLOT;
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
		}
		n = recvmmsg(fd, mm, TDNL_BATCH, MSG_DONTWAIT, NULL);
		if (n < 0)
			return errno == EAGAIN ? MNL_CB_OK : -1;
		for (i = 0; i < n; i++) {
			nl->drained += mm[i].msg_len;
			if (mm[i].msg_hdr.msg_flags & MSG_TRUNC) {
				errno = ENOSPC;
				return -1;
			}
			ret = mnl_cb_run(iov[i].iov_base, mm[i].msg_len, 0, 0,
					 cb, data);
			if (ret <= MNL_CB_STOP)
				return ret;
		}
		if (n < TDNL_BATCH)
			return MNL_CB_OK;
	}
}

/** tdnl_nl_close() - close a socket from tdnl_nl_open() or tdnl_nl_watch() */
void tdnl_nl_close(struct tdnl_nl *nl)
{
	if (nl->sk)
		mnl_socket_close(nl->sk);
	if (nl->buf)
		munmap(nl->buf, nl->bufsz);
	memset(nl, 0, sizeof(*nl));
}
