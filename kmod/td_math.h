/* SPDX-License-Identifier: GPL-2.0 */
/*
 * topdown fixed-point arithmetic.  No floating point in the kernel: every
 * fraction is in parts per million (ppm) of its whole.  This file and
 * td_math.c build both in the kernel and in userspace (host unit tests,
 * tools), so they use only the types and helpers of td_types.h.
 */
#ifndef _TD_MATH_H
#define _TD_MATH_H

#include "td_types.h"

#define TD_PPM		1000000U	/* the whole, in parts per million */
#define TD_CENTI_PCT	10000U		/* the whole, in hundredths of a percent */

u32 td_frac(u64 num, u64 den);
u32 td_frac_diff(u64 a, u64 b, u64 den);
u32 td_share(u64 part, u64 whole, u32 parent);
void td_fit(u32 *v, unsigned int n, u32 total);
void td_split(u32 parent, u32 child, u32 *first, u32 *second);
void td_to_centi(const u32 *ppm, unsigned int n, u32 *centi);

#endif /* _TD_MATH_H */
