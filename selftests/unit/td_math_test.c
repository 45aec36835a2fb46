// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of kmod/td_math.c (the kernel's fixed-point topdown
 * arithmetic, built here in userspace), with the kselftest harness.
 */
#include <stdlib.h>
#include "kselftest_harness.h"
#include "td_math.h"

static u32 sum(const u32 *v, int n)
{
	u32 s = 0;

	while (n--)
		s += v[n];
	return s;
}

TEST(frac_basic)
{
	EXPECT_EQ(333333, td_frac(1, 3));
	EXPECT_EQ(500000, td_frac(3, 6));
	EXPECT_EQ(TD_PPM, td_frac(7, 7));
	EXPECT_EQ(0, td_frac(0, 7));
}

TEST(frac_clamps_and_guards)
{
	EXPECT_EQ(TD_PPM, td_frac(8, 7));	/* multiplexing noise: > 100 % */
	EXPECT_EQ(0, td_frac(5, 0));		/* no slots: no division */
	EXPECT_EQ(0, td_frac_diff(3, 5, 10));	/* X - Y < 0 is 0, never negative */
	EXPECT_EQ(200000, td_frac_diff(5, 3, 10));
}

TEST(frac_huge_counts)
{
	/* a year of slots at 8 per cycle and 5 GHz does not overflow */
	u64 den = 8ULL * 5000000000ULL * 3600 * 24 * 365;

	EXPECT_EQ(250000, td_frac(den / 4, den));
	EXPECT_EQ(999999, td_frac(den - 1, den));
	EXPECT_EQ(0, td_frac(1, den));
	EXPECT_EQ(333333, td_frac(~0ULL / 3, ~0ULL));
}

TEST(fit_thirds_add_up)
{
	u32 v[3] = { 1, 1, 1 };

	td_fit(v, 3, TD_PPM);
	EXPECT_EQ(TD_PPM, sum(v, 3));
	EXPECT_EQ(333334, v[0]);
	EXPECT_EQ(333333, v[1]);
	EXPECT_EQ(333333, v[2]);
}

TEST(fit_scales_down_an_oversum)
{
	u32 v[4] = { 600000, 300000, 300000, 0 };

	td_fit(v, 4, TD_PPM);
	EXPECT_EQ(TD_PPM, sum(v, 4));
	EXPECT_EQ(500000, v[0]);
	EXPECT_EQ(250000, v[1]);
	EXPECT_EQ(250000, v[2]);
	EXPECT_EQ(0, v[3]);
}

TEST(fit_keeps_zero_and_exact)
{
	u32 z[4] = { 0, 0, 0, 0 };
	u32 e[4] = { 100000, 200000, 300000, 400000 };

	td_fit(z, 4, TD_PPM);
	EXPECT_EQ(0, sum(z, 4));
	td_fit(e, 4, TD_PPM);
	EXPECT_EQ(100000, e[0]);
	EXPECT_EQ(400000, e[3]);
}

TEST(split_clamps_child)
{
	u32 a, b;

	td_split(300000, 450000, &a, &b);
	EXPECT_EQ(300000, a);
	EXPECT_EQ(0, b);
	td_split(300000, 100000, &a, &b);
	EXPECT_EQ(100000, a);
	EXPECT_EQ(200000, b);
}

TEST(centi_rounds_to_exactly_100)
{
	u32 thirds[3] = { 333333, 333333, 333334 }, c[3];
	u32 all[4] = { TD_PPM, 0, 0, 0 }, d[4];
	u32 tiny[2] = { 49, 999951 }, t[2];

	td_to_centi(thirds, 3, c);
	EXPECT_EQ(TD_CENTI_PCT, sum(c, 3));
	td_to_centi(all, 4, d);
	EXPECT_EQ(10000, d[0]);
	EXPECT_EQ(0, d[1]);
	td_to_centi(tiny, 2, t);
	EXPECT_EQ(0, t[0]);			/* 0.0049 % prints as 0.00 */
	EXPECT_EQ(10000, t[1]);
}

TEST(centi_random_vectors)
{
	int round, i;

	srandom(42);
	for (round = 0; round < 100000; round++) {
		u32 v[5], c[5], left = TD_PPM;
		int n = 2 + random() % 4;

		for (i = 0; i < n - 1; i++) {
			v[i] = random() % (left + 1);
			left -= v[i];
		}
		v[n - 1] = left;
		td_to_centi(v, n, c);
		ASSERT_EQ(TD_CENTI_PCT, sum(c, n));
		for (i = 0; i < n; i++) {
			/* each is its true value rounded down or up */
			ASSERT_LE(c[i] * 100, v[i] + 100);
			ASSERT_GE(c[i] * 100 + 100, v[i]);
		}
	}
}

TEST_HARNESS_MAIN
