// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: tdnl's command line.  The input, split at its NUL
 * bytes, is argv (at most 32 arguments); tools/tdnl/tdnl.c's main() runs on
 * it, compiled as tdnl_main(), with the netlink layer replaced by one that
 * finds no module (so nothing here can reach a real one): options,
 * commands, CPU lists, counts and settings are parsed, and every path ends
 * in a message and an exit status.  Output goes to /dev/null.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include "tdnl.h"

#define MAX_ARGS	32

int tdnl_main(int argc, char **argv);
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the netlink layer (nl.c) with no module there */
int tdnl_nl_open(struct tdnl_nl *nl)
{
	memset(nl, 0, sizeof(*nl));
	errno = ENOENT;
	return -1;
}

int tdnl_nl_watch(struct tdnl_nl *nl, struct tdnl_nl *from)
{
	errno = ENOENT;
	return -1;
}

void tdnl_nl_close(struct tdnl_nl *nl)
{
}

struct nlmsghdr *tdnl_nl_msg(struct tdnl_nl *nl, uint8_t cmd, uint16_t flags)
{
	abort();	/* never reached: no socket opens */
}

int tdnl_nl_talk(struct tdnl_nl *nl, struct nlmsghdr *nlh, tdnl_cb_t cb, void *data)
{
	abort();
}

int tdnl_nl_drain(struct tdnl_nl *nl, tdnl_cb_t cb, void *data)
{
	abort();
}

int tdnl_nl_error_attrs(int err, const char *what, const char *const *names,
			unsigned int n)
{
	fprintf(stderr, "tdnl: %s: %s\n", what, strerror(err));
	return TDNL_EXIT_ERR;
}

int tdnl_nl_error(int err, const char *what)
{
	return tdnl_nl_error_attrs(err, what, NULL, 0);
}

/* stderr is libFuzzer's too: tdnl's goes to /dev/null for each run only */
static int null_fd, err_fd;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	null_fd = open("/dev/null", O_WRONLY);
	err_fd = dup(2);
	if (null_fd < 0 || err_fd < 0 || !freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *argv[MAX_ARGS + 2];
	int argc = 0;
	size_t i = 0;

	if (!buf)
		abort();
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[argc++] = "tdnl";
	while (i <= size && argc <= MAX_ARGS) {
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	argv[argc] = NULL;
	fflush(stderr);
	dup2(null_fd, 2);
	tdnl_main(argc, argv);
	fflush(stderr);
	dup2(err_fd, 2);
	free(buf);
	return 0;
}
