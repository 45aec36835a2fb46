// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of kmod/td_reg.c: an event that takes turns, estimated
 * over an interval from the events counted all the time.  Windows mix
 * profiles whose rates are known, so each interval's truth is exact.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "kselftest_harness.h"
#include "td_reg.h"

#define NEV	6	/* 0: normalizer; 1-3 counted all the time; 4, 5 turns */

/* per profile, each event's count per normalizer count */
static const double rates[3][NEV] = {
	{ 1, 0.60, 0.15, 0.20, 0.080, 0.010 },
	{ 1, 0.15, 0.10, 0.70, 0.550, 0.002 },
	{ 1, 0.25, 0.40, 0.10, 0.050, 0.030 },
};

static struct td_sets two_sets(void)
{
	struct td_sets s = { .every = 0xf, .nr = 2, .norm = 0 };

	s.set[0] = 1U << 4;
	s.set[1] = 1U << 5;
	return s;
}

/* one window of @n normalizer counts, @mix the profiles' shares of it */
static void window(const double *mix, u64 n, u64 *w)
{
	unsigned int i, k;

	for (i = 0; i < NEV; i++) {
		double c = 0;

		for (k = 0; k < 3; k++)
			c += mix[k] * rates[k][i];
		w[i] = (u64)(c * n + 0.5);
	}
}

static void random_mix(double *mix)
{
	double a = rand() / (double)RAND_MAX, b = rand() / (double)RAND_MAX;

	if (a + b > 1) {
		a = 1 - a;
		b = 1 - b;
	}
	mix[0] = a;
	mix[1] = b;
	mix[2] = 1 - a - b;
}

/*
 * An interval of @nw windows taking turns: returns event 4's estimate
 * (prediction plus residual scaled by the normalizer) and its truth
 */
static void interval(struct td_reg *r, const struct td_sets *s, int nw,
		     int steady, double *est, double *truth, u32 *got)
{
	u64 w[NEV], total[NEV] = { 0 }, y = 0, ns = 0, all4 = 0;
	double mix[3] = { 0.2, 0.5, 0.3 };
	unsigned int i, set;
	int t;

	td_reg_begin(r);
	for (t = 0; t < nw; t++) {
		set = t % 2;
		if (!steady)
			random_mix(mix);
		window(mix, 1000000 + rand() % 100000, w);
		for (i = 0; i < NEV; i++)
			total[i] += i < 4 ? w[i] : 0;
		all4 += w[4];
		if (set == 0) {
			y += w[4];
			ns += w[0];
		}
		td_reg_add(r, s, set, s->every | s->set[set], w);
	}
	*got = td_reg_predict(r, s, 0, 1U << 4, total, r->pred);
	if (!*got)	/* scaled alone */
		r->pred[4] = (struct td_pred){ 0 };
	*truth = all4;
	*est = r->pred[4].whole +
	       ((double)y - r->pred[4].part) * total[0] / (double)ns;
}

TEST(mixed_windows_are_predicted_exactly)
{
	struct td_sets s = two_sets();
	struct td_reg *r = malloc(td_reg_size(s.nr, NEV));
	double est, truth, worst = 0;
	u32 got;
	int k;

	srand(1);
	td_reg_init(r, &s, NEV);
	EXPECT_EQ(4, r->nx);
	for (k = 0; k < 100; k++) {
		interval(r, &s, 4, 0, &est, &truth, &got);
		if (k < 10)
			continue;	/* learning */
		ASSERT_EQ(1U << 4, got);
		if (fabs(est - truth) / truth > worst)
			worst = fabs(est - truth) / truth;
	}
	/* rounding of Q16 rates and of integer counts only */
	TH_LOG("worst %g", worst);
	EXPECT_LT(worst, 2e-4);
	free(r);
}

TEST(steady_windows_give_the_ratio)
{
	struct td_sets s = two_sets();
	struct td_reg *r = malloc(td_reg_size(s.nr, NEV));
	double est, truth;
	u32 got;
	int k;

	srand(2);
	td_reg_init(r, &s, NEV);
	for (k = 0; k < 20; k++) {
		interval(r, &s, 6, 1, &est, &truth, &got);
		if (k >= 3)	/* 9 windows of set 0 learnt */
			ASSERT_EQ(1U << 4, got);
		/* the windows differ in length only: scaling is exact too */
		EXPECT_LT(fabs(est - truth) / truth, 1e-5);
	}
	free(r);
}

TEST(no_estimate_before_enough_windows_or_after_a_broken_one)
{
	struct td_sets s = two_sets();
	struct td_reg *r = malloc(td_reg_size(s.nr, NEV));
	double mix[3] = { 1, 0, 0 };
	u64 w[NEV], total[NEV] = { 0 };
	int t;

	td_reg_init(r, &s, NEV);
	window(mix, 1000000, w);
	/* twice as many windows as regressors before any estimate */
	for (t = 0; t < 8; t++) {
		EXPECT_EQ(0, td_reg_predict(r, &s, 0, 1U << 4, total, r->pred));
		td_reg_add(r, &s, 0, s.every | s.set[0], w);
	}
	EXPECT_EQ(1U << 4, td_reg_predict(r, &s, 0, 1U << 4, total, r->pred));
	/* event 2 did not count all of this window */
	td_reg_add(r, &s, 0, (s.every & ~(1U << 2)) | s.set[0], w);
	EXPECT_EQ(0, td_reg_predict(r, &s, 0, 1U << 4, total, r->pred));
	/* until the next interval */
	td_reg_begin(r);
	EXPECT_EQ(1U << 4, td_reg_predict(r, &s, 0, 1U << 4, total, r->pred));
	/* nothing learnt: no estimate */
	td_reg_init(r, &s, NEV);
	EXPECT_EQ(0, td_reg_predict(r, &s, 0, 1U << 4, total, r->pred));
	free(r);
}

TEST(regressors_that_move_together_still_solve)
{
	struct td_sets s = two_sets();
	struct td_reg *r = malloc(td_reg_size(s.nr, NEV));
	u64 w[NEV], total[NEV] = { 0 }, y = 0, ns = 0, all4 = 0;
	double mix[3], est;
	int t;

	srand(3);
	td_reg_init(r, &s, NEV);
	for (t = 0; t < 400; t++) {
		random_mix(mix);
		mix[2] = 0;	/* two profiles: regressors 1-3 on one line */
		mix[1] = 1 - mix[0];
		window(mix, 1000000, w);
		if (t >= 392) {
			int i;

			for (i = 0; i < 4; i++)
				total[i] += w[i];
			all4 += w[4];
			if (t % 2 == 0) {
				y += w[4];
				ns += w[0];
			}
		}
		if (t == 392)
			td_reg_begin(r);
		td_reg_add(r, &s, t % 2, s.every | s.set[t % 2], w);
	}
	ASSERT_EQ(1U << 4, td_reg_predict(r, &s, 0, 1U << 4, total, r->pred));
	est = r->pred[4].whole + ((double)y - r->pred[4].part) * total[0] / ns;
	EXPECT_LT(fabs(est - all4) / all4, 1e-3);
	free(r);
}

TEST_HARNESS_MAIN

/*
 * Level 1's nodes add up to the slots: with the normalizer (the intercept)
 * they are regressors on one plane whatever the workload, and after one
 * change of profile on one line.  Counts read a little apart (a slow read
 * section: the interval's totals of two events cover a few microseconds
 * more or less) must then move the estimate by about as little as they
 * move the counts, not by that times a coefficient found along the
 * direction that never moved (the ridge's).
 */
TEST(skewed_totals_along_a_direction_that_never_moved)
{
	static const double prof[2][NEV] = {
		{ 1, 1.0, 0, 0, 0, 0 },		/* all retiring */
		{ 1, 0, 0, 1.0, 0.6, 0.2 },	/* all backend, 60 % memory */
	};
	struct td_sets s = two_sets();
	struct td_reg *r = malloc(td_reg_size(s.nr, NEV));
	double worst = 0;
	int k, t, p;
	unsigned int i;

	srand(4);
	td_reg_init(r, &s, NEV);
	for (k = 0; k < 40; k++) {
		u64 w[NEV], total[NEV] = { 0 }, y = 0, ns = 0, all4 = 0;
		double est, skew;

		p = k >= 20;
		td_reg_begin(r);
		for (t = 0; t < 10; t++) {
			u64 n = 1000000 + rand() % 100000;

			for (i = 0; i < NEV; i++)
				w[i] = (u64)(prof[p][i] * n + 0.5);
			for (i = 0; i < 4; i++)
				total[i] += w[i];
			all4 += w[4];
			if (t % 2 == 0) {
				y += w[4];
				ns += w[0];
			}
			td_reg_add(r, &s, t % 2, s.every | s.set[t % 2], w);
		}
		/* each total of Level 1 up to 2e-4 off the normalizer's span */
		for (i = 1; i < 4; i++) {
			skew = (rand() / (double)RAND_MAX - 0.5) * 4e-4;
			total[i] = (u64)(total[i] * (1 + skew));
		}
		if (!td_reg_predict(r, &s, 0, 1U << 4, total, r->pred) || !all4)
			continue;
		est = r->pred[4].whole + ((double)y - r->pred[4].part) * total[0] / ns;
		if (fabs(est - all4) / all4 > worst)
			worst = fabs(est - all4) / all4;
	}
	TH_LOG("worst %g", worst);
	EXPECT_LT(worst, 1e-3);
	free(r);
}
