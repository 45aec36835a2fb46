// SPDX-License-Identifier: GPL-2.0
/*
 * topdown fixed-point arithmetic: ratios in ppm, and the rounding that keeps
 * every published set of fractions adding up to exactly its whole, at ppm
 * and at the two decimals debugfs prints.
 */
#include "td_math.h"

/**
 * td_frac() - @num / @den in ppm, rounded down
 * @num: numerator
 * @den: denominator
 *
 * Return: the ratio clamped to [0, TD_PPM]; 0 when @den is 0 (callers flag
 * an empty interval themselves).
 */
u32 td_frac(u64 num, u64 den)
{
	if (!den)
		return 0;
	if (num >= den)
		return TD_PPM;
	return (u32)mul_u64_u64_div_u64(num, TD_PPM, den);
}

/**
 * td_frac_diff() - (@a - @b) / @den in ppm, for perf's "X - Y" numerators
 * @a:   minuend
 * @b:   subtrahend
 * @den: denominator
 *
 * Return: the ratio, 0 when multiplexing noise makes @b >= @a.
 */
u32 td_frac_diff(u64 a, u64 b, u64 den)
{
	return a > b ? td_frac(a - b, den) : 0;
}

/**
 * td_share() - @part / @whole of @parent, as perf's d_ratio()
 * @part:   numerator, clamped to @whole
 * @whole:  denominator
 * @parent: the fraction (ppm) to take the share of
 *
 * Return: the share in ppm, 0 when @whole is 0.
 */
u32 td_share(u64 part, u64 whole, u32 parent)
{
	if (!whole)
		return 0;
	if (part >= whole)
		return parent;
	return (u32)mul_u64_u64_div_u64(part, parent, whole);
}

/**
 * td_fit() - make @n fractions add up to exactly @total
 * @v:     the fractions; rewritten
 * @n:     how many (at most 8)
 * @total: what they must add up to
 *
 * Each is scaled by total / sum (largest-remainder rounding), so the
 * proportions hold and none goes negative.  All zero stays all zero.
 */
void td_fit(u32 *v, unsigned int n, u32 total)
{
	u64 rem[8], sum = 0, given = 0;
	unsigned int i, j;

	if (n > 8)
		n = 8;
	for (i = 0; i < n; i++)
		sum += v[i];
	if (!sum || sum == total)
		return;
	for (i = 0; i < n; i++) {
		u64 scaled = (u64)v[i] * total;

		v[i] = (u32)div64_u64(scaled, sum);
		rem[i] = scaled - (u64)v[i] * sum;
		given += v[i];
	}
	/* hand the units lost to rounding to the largest remainders */
	while (given < total) {
		for (i = 0, j = 0; i < n; i++)
			if (rem[i] > rem[j])
				j = i;
		v[j]++;
		rem[j] = 0;
		given++;
	}
}

/**
 * td_split() - divide @parent into a @child and the rest
 * @parent: the Level 1 fraction
 * @child:  the measured child; clamped to @parent
 * @first:  the child
 * @second: @parent - child, never negative
 */
void td_split(u32 parent, u32 child, u32 *first, u32 *second)
{
	*first = child < parent ? child : parent;
	*second = parent - *first;
}

/**
 * td_to_centi() - ppm fractions to hundredths of a percent, same total
 * @ppm:   fractions adding up to TD_PPM
 * @n:     how many (at most 8)
 * @centi: out: the same in 0.01 % units, adding up to exactly TD_CENTI_PCT
 *
 * Rounding each on its own could print 33.33 + 33.33 + 33.33; the largest
 * remainders get the missing hundredth instead.
 */
void td_to_centi(const u32 *ppm, unsigned int n, u32 *centi)
{
	unsigned int i;

	if (n > 8)
		n = 8;
	for (i = 0; i < n; i++)
		centi[i] = ppm[i];
	td_fit(centi, n, TD_CENTI_PCT);
}
