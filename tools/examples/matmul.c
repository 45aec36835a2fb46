// SPDX-License-Identifier: GPL-2.0
/*
 * matmul: a small workload for the README's workflow (tdnl stat, explain,
 * diff).  C = A x B for N x N doubles, two ways:
 *
 *   naive  i, j, k: B is walked down its columns, a cache line per
 *          multiply-add once N rows of B no longer fit the caches, so the
 *          loop waits on memory (Backend bound, Memory bound);
 *   tiled  the same sums in blocks of TILE x TILE that stay in L1/L2, so
 *          each line loaded is reused TILE times.
 *
 * Usage: matmul naive|tiled [N] (N: 1024 unless given, 16..8192).  It
 * prints the time and a checksum of C, each cell weighted by its place;
 * both ways give the same checksum (the sums are exact: small integers),
 * which selftests/tdnl/cli.sh checks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TILE	32

static void naive(const double *a, const double *b, double *c, size_t n)
{
	size_t i, j, k;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			double s = 0;

			for (k = 0; k < n; k++)
				s += a[i * n + k] * b[k * n + j];
			c[i * n + j] = s;
		}
}

/* every c[i][j] sums k in ascending order, as naive() does */
static void tiled(const double *a, const double *b, double *c, size_t n)
{
	size_t i0, j0, k0, i, j, k;

	memset(c, 0, n * n * sizeof(*c));
	for (i0 = 0; i0 < n; i0 += TILE)
		for (k0 = 0; k0 < n; k0 += TILE)
			for (j0 = 0; j0 < n; j0 += TILE)
				for (i = i0; i < i0 + TILE && i < n; i++)
					for (k = k0; k < k0 + TILE && k < n; k++) {
						double x = a[i * n + k];

						for (j = j0; j < j0 + TILE && j < n; j++)
							c[i * n + j] += x * b[k * n + j];
					}
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	double *a, *b, *c, sum = 0;
	size_t n = 1024, i;
	char *end;

	if (argc < 2 || argc > 3 || (strcmp(argv[1], "naive") && strcmp(argv[1], "tiled"))) {
		fprintf(stderr, "usage: matmul naive|tiled [N]\n");
		return 2;
	}
	if (argc == 3) {
		n = strtoul(argv[2], &end, 10);
		if (*end || n < 16 || n > 8192) {
			fprintf(stderr, "matmul: N '%s' is not 16..8192\n", argv[2]);
			return 2;
		}
	}
	a = malloc(n * n * sizeof(*a));
	b = malloc(n * n * sizeof(*b));
	c = malloc(n * n * sizeof(*c));
	if (!a || !b || !c) {
		fprintf(stderr, "matmul: out of memory for N %zu\n", n);
		return 1;
	}
	/* small integers: every product and sum is exact, whatever the order */
	for (i = 0; i < n * n; i++) {
		a[i] = (double)(i % 7);
		b[i] = (double)(i % 5);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!strcmp(argv[1], "naive"))
		naive(a, b, c, n);
	else
		tiled(a, b, c, n);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* weighted by place: a result in the wrong cell changes it */
	for (i = 0; i < n * n; i++)
		sum += c[i] * (double)(i % 13 + 1);
	printf("%s N=%zu: %.3f s, checksum %.0f\n", argv[1], n,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9, sum);
	free(a);
	free(b);
	free(c);
	return 0;
}
