// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of tdnl's number printing (tools/tdnl/out.c, included
 * here for its static helpers): put_fixed() writes a double in integers
 * where that is exact, and must print what printf()'s "%*.*f" prints for
 * every value, the decimal halves (ties) the doubles land near included;
 * put_uint() as "%*llu".
 */
#include "out.c"
#include <stdlib.h>
#include "kselftest_harness.h"

/* how many of @n values from @gen put_fixed() printed unlike printf() */
static unsigned long fixed_differ(double (*gen)(unsigned long), unsigned long n)
{
	unsigned long i, bad = 0;

	for (i = 0; i < n; i++) {
		static const int fmt[][2] = { { 8, 2 }, { 0, 4 }, { 0, 2 }, { 12, 4 } };
		const int *f = fmt[i % 4];
		double v = gen(i);
		struct line l = { .n = 0 };
		char want[64];

		put_fixed(&l, v, f[0], f[1]);
		snprintf(want, sizeof(want), "%*.*f", f[0], f[1], v);
		if (l.n != strlen(want) || memcmp(l.b, want, l.n)) {
			if (bad++ < 5)
				fprintf(stderr, "# %.17g as %%%d.%df: '%.*s', printf '%s'\n",
					v, f[0], f[1], (int)l.n, l.b, want);
		}
	}
	return bad;
}

static double uniform(unsigned long i)
{
	return drand48() * 100;
}

/* k / 20000: every decimal half of the fourth place, 0..100 */
static double ties4(unsigned long i)
{
	return (double)(i % 2000001) / 20000;
}

/* k / 1000 + 0.005: the halves of the second place */
static double ties2(unsigned long i)
{
	return (double)(i % 100001) / 1000 + 0.005;
}

/* small, large, negative, huge, and the ends of 0..100 */
static double edges(unsigned long i)
{
	static const double v[] = { 0, 100, 1e-12, 0.00005, 0.005, 99.995, 99.99995,
				    -0.004, -0.006, -12.345, 1e9, 1e12, 1e300, 4.9e-324 };

	return v[i % (sizeof(v) / sizeof(v[0]))] * (i < 14 ? 1 : 1 + drand48() * 1e-3);
}

TEST(fixed_as_printf)
{
	srand48(1);
	EXPECT_EQ(0, fixed_differ(uniform, 1000000));
	EXPECT_EQ(0, fixed_differ(ties4, 2000001));
	EXPECT_EQ(0, fixed_differ(ties2, 400004));
	EXPECT_EQ(0, fixed_differ(edges, 10000));
}

TEST(uint_as_printf)
{
	static const unsigned long long v[] = { 0, 9, 10, 99, 100, 101, 999, 1000,
						12345678901234567890ULL, ~0ULL };
	unsigned int i, w;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		for (w = 0; w < 24; w += 5) {
			struct line l = { .n = 0 };
			char want[64];

			put_uint(&l, v[i], w, ' ');
			snprintf(want, sizeof(want), "%*llu", w, v[i]);
			ASSERT_EQ(strlen(want), l.n);
			EXPECT_EQ(0, memcmp(l.b, want, l.n));
		}
	}
}

TEST_HARNESS_MAIN
