// SPDX-License-Identifier: GPL-2.0
/*
 * The seed corpus of the message fuzzer (tdnl_msg.c), one file per input
 * in DIR: for each of a few models (from the module's own tables), a
 * GET_INFO reply with its events, a GET_CPU reply, and two consecutive
 * samples with Level 1/2 and every event's counts, then the same with an
 * interval lost between them.  libFuzzer mutates from these.
 *
 *   seeds DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include "linux/topdown.h"
#include "td_model.h"

static char buf[1 << 16];

static struct nlmsghdr *msg(char *at, uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(at);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

	nlh->nlmsg_type = 0x20;
	g->cmd = cmd;
	g->version = TOPDOWN_FAMILY_VERSION;
	return nlh;
}

static char *info(char *at, const struct td_model *m)
{
	struct nlmsghdr *nlh = msg(at, TOPDOWN_CMD_GET_INFO);
	struct nlattr *nest, *ev;
	unsigned int i;

	mnl_attr_put_strz(nlh, TOPDOWN_A_INFO_VERSION, "0.5");
	mnl_attr_put_u32(nlh, TOPDOWN_A_INFO_LEVEL, 3);
	mnl_attr_put_u32(nlh, TOPDOWN_A_INFO_INTERVAL_MS, 100);
	mnl_attr_put_u32(nlh, TOPDOWN_A_INFO_RUNNING, 1);
	nest = mnl_attr_nest_start(nlh, TOPDOWN_A_INFO_MODEL);
	mnl_attr_put_strz(nlh, TOPDOWN_A_MODEL_NAME, m->name);
	mnl_attr_put_u32(nlh, TOPDOWN_A_MODEL_WIDTH, m->width);
	for (i = 0; i < m->nr_events; i++) {
		ev = mnl_attr_nest_start(nlh, TOPDOWN_A_MODEL_EVENT);
		mnl_attr_put_u32(nlh, TOPDOWN_A_EVENT_ID, i);
		mnl_attr_put_strz(nlh, TOPDOWN_A_EVENT_NAME, m->events[i].name);
		mnl_attr_put_u64(nlh, TOPDOWN_A_EVENT_CONFIG, m->events[i].config);
		mnl_attr_put_u32(nlh, TOPDOWN_A_EVENT_LEVEL, m->events[i].level);
		mnl_attr_nest_end(nlh, ev);
	}
	mnl_attr_nest_end(nlh, nest);
	return at + nlh->nlmsg_len;
}

static char *cpu(char *at, const struct td_model *m)
{
	struct nlmsghdr *nlh = msg(at, TOPDOWN_CMD_GET_CPU);

	mnl_attr_put_u32(nlh, TOPDOWN_A_CPU_INFO_CPU, 0);
	mnl_attr_put_strz(nlh, TOPDOWN_A_CPU_INFO_MODEL, m->name);
	mnl_attr_put_u32(nlh, TOPDOWN_A_CPU_INFO_WIDTH, m->width);
	mnl_attr_put_u32(nlh, TOPDOWN_A_CPU_INFO_STATE, 0);
	return at + nlh->nlmsg_len;
}

static char *sample(char *at, const struct td_model *m, uint64_t seq)
{
	struct nlmsghdr *nlh = msg(at, TOPDOWN_CMD_SAMPLE_NTF);
	static const uint32_t l1[] = { 300000, 100000, 200000, 400000 };
	struct nlattr *nest, *c;
	unsigned int i;

	mnl_attr_put_u32(nlh, TOPDOWN_A_SAMPLE_CPU, 0);
	mnl_attr_put_u64(nlh, TOPDOWN_A_SAMPLE_SEQ, seq);
	mnl_attr_put_u64(nlh, TOPDOWN_A_SAMPLE_START_NS, seq * 100000000ULL);
	mnl_attr_put_u64(nlh, TOPDOWN_A_SAMPLE_END_NS, (seq + 1) * 100000000ULL);
	mnl_attr_put_u32(nlh, TOPDOWN_A_SAMPLE_STATE, 0);
	mnl_attr_put_strz(nlh, TOPDOWN_A_SAMPLE_MODEL, m->name);
	nest = mnl_attr_nest_start(nlh, TOPDOWN_A_SAMPLE_LEVEL1);
	for (i = 0; i < 4; i++)
		mnl_attr_put_u32(nlh, TOPDOWN_A_LEVEL1_RETIRING + i, l1[i]);
	mnl_attr_nest_end(nlh, nest);
	for (i = 0; i < m->nr_events; i++) {
		c = mnl_attr_nest_start(nlh, TOPDOWN_A_SAMPLE_COUNT);
		mnl_attr_put_u32(nlh, TOPDOWN_A_COUNT_ID, i);
		mnl_attr_put_u64(nlh, TOPDOWN_A_COUNT_DELTA, 1000000 + 7919 * i);
		mnl_attr_put_u64(nlh, TOPDOWN_A_COUNT_TOTAL, seq * (1000000 + 7919 * i));
		mnl_attr_put_u64(nlh, TOPDOWN_A_COUNT_ENABLED, 100000000);
		mnl_attr_put_u64(nlh, TOPDOWN_A_COUNT_RUNNING, 100000000 - 1000 * i);
		mnl_attr_nest_end(nlh, c);
	}
	mnl_attr_put_u32(nlh, TOPDOWN_A_SAMPLE_SETS, 2);
	mnl_attr_put_u32(nlh, TOPDOWN_A_SAMPLE_LEVEL1_COUNTED, 1000000);
	/* the cumulative totals: the slots, then each Level 1 node's share */
	nest = mnl_attr_nest_start(nlh, TOPDOWN_A_SAMPLE_TOTALS);
	mnl_attr_put_u64(nlh, TOPDOWN_A_TOTALS_SLOTS, seq * 6000000);
	for (i = 0; i < 4; i++)
		mnl_attr_put_u64(nlh, TOPDOWN_A_TOTALS_RETIRING + i, seq * 6 * l1[i]);
	mnl_attr_nest_end(nlh, nest);
	return at + nlh->nlmsg_len;
}

int main(int argc, char **argv)
{
	static const char *const models[] = { "spr", "skl", "icl", "zen4", "neoverse-n1" };
	unsigned int i, lost;
	char path[4096];

	if (argc != 2)
		return 2;
	for (i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		const struct td_model *m = td_model_find(models[i]);

		for (lost = 0; m && lost < 2; lost++) {
			char *end = sample(sample(cpu(info(buf, m), m), m, 3), m, 4 + 5 * lost);
			FILE *f;

			snprintf(path, sizeof(path), "%s/%s-%u", argv[1], models[i], lost);
			f = fopen(path, "w");
			if (!f || fwrite(buf, 1, end - buf, f) != (size_t)(end - buf) || fclose(f))
				return 1;
		}
	}
	return 0;
}
