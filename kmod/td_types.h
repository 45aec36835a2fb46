/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel types and helpers the shared topdown math needs, so that
 * td_math.c also builds in userspace.
 */
#ifndef _TD_TYPES_H
#define _TD_TYPES_H

/* the project's version: the module's MODULE_VERSION, tdnl -V, DKMS's */
#define TD_VERSION	"0.5"

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/stddef.h>
#include <linux/math64.h>
#include <linux/bits.h>
#include <linux/kernel.h>
#else
#include <stdbool.h>
#include <stddef.h>
typedef unsigned char u8;
typedef signed char s8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long s64;
#define BIT_ULL(n)	(1ULL << (n))
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

static inline u64 div64_u64(u64 a, u64 b) { return a / b; }
static inline s64 div64_s64(s64 a, s64 b) { return a / b; }
static inline u64 mul_u64_u64_shr(u64 a, u64 mul, unsigned int shift)
{
	return (u64)(((__uint128_t)a * mul) >> shift);
}

static inline u64 mul_u64_u64_div_u64(u64 a, u64 mul, u64 div)
{
	return (u64)((__uint128_t)a * mul / div);
}
#endif

#endif /* _TD_TYPES_H */
