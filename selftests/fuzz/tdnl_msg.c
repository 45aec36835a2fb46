// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: tdnl's netlink message parser and what it feeds.  The
 * input is a buffer of netlink messages, as one recv() gives them; each is
 * taken as the genl command its header names (GET_INFO, GET_CPU, a sample)
 * and parsed as tdnl does, a sample then worked out against the info seen
 * so far and the previous sample (Level 1/2 over lost intervals, Level
 * 3/4) and printed in text, JSON and CSV to /dev/null.  ASan and UBSan
 * make any out-of-bounds access, overflow or division by zero a crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include "linux/topdown.h"
#include "tdnl.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* the outputs are exercised, not read */
	if (!freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum tdnl_fmt fmts[] = { TDNL_TEXT, TDNL_JSON, TDNL_CSV };
	struct tdnl_sample *s = calloc(2, sizeof(*s));
	struct tdnl_info info = {};
	const struct nlmsghdr *nlh;
	bool have_prev = false;
	void *buf = malloc(size);	/* aligned, and exactly the input's size */
	int len = size, n = 0;

	if (!s || !buf)
		abort();
	memcpy(buf, data, size);
	/*
	 * libmnl's mnl_nlmsg_ok() compares (int)nlmsg_len: a length of 2^31 or
	 * more passes it and mnl_nlmsg_next() then walks off the buffer (found
	 * here).  The kernel never sends one; the walk here checks unsigned.
	 */
	for (nlh = buf; len >= (int)sizeof(*nlh) && nlh->nlmsg_len >= sizeof(*nlh) &&
	     nlh->nlmsg_len <= (unsigned int)len; nlh = mnl_nlmsg_next(nlh, &len), n++) {
		const struct genlmsghdr *g;
		enum tdnl_fmt fmt = fmts[n % 3];

		if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*g))
			continue;
		g = mnl_nlmsg_get_payload(nlh);
		switch (g->cmd) {
		case TOPDOWN_CMD_GET_INFO:
			tdnl_parse_info(nlh, &info);
			break;
		case TOPDOWN_CMD_GET_CPU:
			tdnl_parse_cpu(nlh, &info);
			break;
		default: {
			struct tdnl_sample *cur = &s[1];
			const struct tdnl_model *m;

			memset(cur, 0, sizeof(*cur));
			if (tdnl_parse_sample(nlh, cur))
				break;
			m = tdnl_find_model(&info, cur->model);
			tdnl_calc(cur, have_prev && s[0].cpu == cur->cpu ? &s[0] : NULL, m,
				  tdnl_cpu_width(&info, cur->cpu));
			tdnl_out_begin(fmt, true, NULL);
			tdnl_out_sample(cur, fmt, true);
			tdnl_out_flush();
			s[0] = *cur;
			have_prev = true;
		}
		}
	}
	tdnl_out_info(&info, fmts[n % 3]);
	fflush(stdout);
	tdnl_free_info(&info);
	free(buf);
	free(s);
	return 0;
}
