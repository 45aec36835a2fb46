// SPDX-License-Identifier: GPL-2.0
/*
 * topdown regression estimates.
 *
 * A set that takes turns counts its events for a share of the interval.
 * Scaling such a count by its parent node (td_sets_scale()) takes the event
 * to be the same share of its parent all the interval long.  When the
 * workload changes phase within the interval that is wrong by as much as
 * the phases differ, and a set seen in one or two windows of a short
 * interval sees one phase only.
 *
 * The events counted all the time (Level 1 and the normalizer) say which
 * phase the CPU is in at every moment.  So each event of a set is
 * regressed, over the set's recent windows, on their rates:
 * v = sum_a beta_a * u_a, with u and v counts per normalizer count in the
 * window (u_0 = 1: the intercept).  Its count over the interval is the
 * regression's prediction from the whole interval's counts of those
 * events, plus the residual of its own windows scaled as before (survey
 * sampling's "generalized regression estimator").  When the regression is
 * right, the residual is 0 and the estimate exact whatever the phases;
 * when the event is a constant share of its parent, the prediction and the
 * residual's scaling agree and the estimate is scaling's.
 *
 * Older windows weigh less as newer ones come (1/32 less per window of the
 * set), so the regression follows a workload that changes; a ridge of
 * 1/65536 of each diagonal keeps it solvable when regressors move together
 * (in a steady profile none moves); a larger one biases it.  Fixed point
 * throughout: no FPU in the kernel.
 */
#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <string.h>
#endif
#include "td_reg.h"

#define TD_REG_Q		16		/* rates are Q16 */
#define TD_REG_RATE_MAX		(BIT_ULL(24) - 1)	/* rates below 256 */
#define TD_REG_PROD_SHIFT	8		/* products of rates: Q24 */
#define TD_REG_RIDGE_SHIFT	16
#define TD_REG_SOLVE_BITS	24		/* solved on values below 2^24 */
#define TD_REG_BETA_MAX		((s64)BIT_ULL(34))	/* |beta| below 2^18, Q16 */

static unsigned int td_tri(unsigned int a, unsigned int b)
{
	return a >= b ? a * (a + 1) / 2 + b : b * (b + 1) / 2 + a;
}

/* @c per @n, Q16, at most TD_REG_RATE_MAX */
static u64 td_rate(u64 c, u64 n)
{
	if (c >= n << 8)	/* c and n are below 2^48: no overflow */
		return TD_REG_RATE_MAX;
	return mul_u64_u64_div_u64(c, BIT_ULL(TD_REG_Q), n);
}

/* decay then add: a sum in which each older term weighs 1/32 less */
static void td_decay_add(u64 *sum, u64 v)
{
	*sum -= *sum >> TD_REG_DECAY_SHIFT;
	*sum += v;
}

/* the shift that brings @v below 2^TD_REG_SOLVE_BITS */
static unsigned int td_solve_shift(u64 v)
{
	unsigned int sh = 0;

	while ((v >> sh) >= BIT_ULL(TD_REG_SOLVE_BITS))
		sh++;
	return sh;
}

/* @beta (Q16) times @x, rounded toward 0 */
static s64 td_mul_beta(s64 beta, u64 x)
{
	u64 m = mul_u64_u64_shr(beta < 0 ? -beta : beta, x, TD_REG_Q);

	return beta < 0 ? -(s64)m : (s64)m;
}

/**
 * td_reg_size() - the bytes a struct td_reg for some sets and events takes
 * @nr_sets:   the sets (at most TD_MAX_SETS are learnt)
 * @nr_events: the events (at most TD_MAX_EVENTS)
 *
 * Sized by need, not for the most sets and events there could be.
 *
 * Return: the bytes.
 */
size_t td_reg_size(unsigned int nr_sets, unsigned int nr_events)
{
	nr_sets = nr_sets < TD_MAX_SETS ? nr_sets : TD_MAX_SETS;
	nr_events = nr_events < TD_MAX_EVENTS ? nr_events : TD_MAX_EVENTS;
	return sizeof(struct td_reg) + nr_sets * sizeof(struct td_reg_set) +
	       nr_events * (sizeof(u64[TD_REG_MAX]) + sizeof(struct td_pred));
}

/**
 * td_reg_init() - forget everything; take the regressors of some sets
 * @r: the state, of td_reg_size(@s->nr, @nr_events) bytes
 * @s: the sets: the normalizer and the other events of @s->every, in
 *     their order, as far as TD_REG_MAX goes
 * @nr_events: the events, of which the sets are made
 */
void td_reg_init(struct td_reg *r, const struct td_sets *s,
		 unsigned int nr_events)
{
	unsigned int i, nr_sets = s->nr;

	nr_sets = nr_sets < TD_MAX_SETS ? nr_sets : TD_MAX_SETS;
	nr_events = nr_events < TD_MAX_EVENTS ? nr_events : TD_MAX_EVENTS;
	memset(r, 0, td_reg_size(nr_sets, nr_events));
	r->nr_sets = nr_sets;
	r->nr_events = nr_events;
	r->xy = (void *)(r->set + nr_sets);
	r->pred = (void *)(r->xy + nr_events);
	r->xi[r->nx++] = s->norm;
	for (i = 0; i < TD_MAX_EVENTS && r->nx < TD_REG_MAX; i++)
		if ((s->every & (1U << i)) && i != s->norm)
			r->xi[r->nx++] = i;
}

/* a new interval: each set's windows so far are of the last one */
void td_reg_begin(struct td_reg *r)
{
	unsigned int j;

	for (j = 0; j < r->nr_sets; j++) {
		memset(r->set[j].x, 0, sizeof(r->set[j].x));
		r->set[j].broken = false;
	}
}

/**
 * td_reg_add() - learn from one window of a set
 * @r:   the state
 * @s:   the sets
 * @set: the set that counted in the window
 * @had: the events that counted all of the window
 * @w:   per event, its count of the window (over the normalizer's window)
 */
void td_reg_add(struct td_reg *r, const struct td_sets *s, unsigned int set,
		u32 had, const u64 *w)
{
	u64 u[TD_REG_MAX], n = w[s->norm], v;
	struct td_reg_set *rs;
	unsigned int a, b, i;
	u32 mine;

	if (set >= r->nr_sets)
		return;
	rs = &r->set[set];
	mine = had & s->set[set];
	if (!mine)
		return;
	for (a = 0; a < r->nx; a++)
		if (!(had & (1U << r->xi[a]))) {
			rs->broken = true;	/* its events' counts and x differ */
			return;
		}
	for (a = 0; a < r->nx; a++)
		rs->x[a] += w[r->xi[a]];
	if (!n)
		return;		/* an idle window: no rates */
	if (rs->seen < TD_REG_SEEN_MAX)
		rs->seen++;
	for (a = 0; a < r->nx; a++)
		u[a] = td_rate(w[r->xi[a]], n);
	for (a = 0; a < r->nx; a++)
		for (b = 0; b <= a; b++)
			td_decay_add(&rs->gram[td_tri(a, b)],
				     (u[a] * u[b]) >> TD_REG_PROD_SHIFT);
	for (i = 0; i < r->nr_events; i++) {
		if (!(mine & (1U << i)))
			continue;
		v = td_rate(w[i], n);
		for (a = 0; a < r->nx; a++)
			td_decay_add(&r->xy[i][a], (u[a] * v) >> TD_REG_PROD_SHIFT);
	}
}

/*
 * Solve (gram + ridge) beta = xy for one event: Gaussian elimination of
 * the symmetric positive matrix @m (done once per set), then substitution.
 * A regressor with no pivot left (it never moved apart from the others)
 * gets beta 0.  Returns false when a beta comes out too large to trust.
 */
static bool td_reg_solve(s64 m[TD_REG_MAX][TD_REG_MAX], unsigned int nx,
			 int sa, const u64 *xy, s64 *beta)
{
	s64 b[TD_REG_MAX], t;
	u64 bmax = 0;
	unsigned int j, k, l;
	int sb, sh;

	for (j = 0; j < nx; j++)
		bmax = xy[j] > bmax ? xy[j] : bmax;
	sb = td_solve_shift(bmax);
	for (j = 0; j < nx; j++)
		b[j] = xy[j] >> sb;
	for (j = 0; j < nx; j++) {
		if (m[j][j] <= 0)
			continue;
		for (k = j + 1; k < nx; k++)
			b[k] -= div64_s64(m[k][j] * b[j], m[j][j]);
	}
	/* beta = (m / 2^sa)^-1 (xy / 2^sb) * 2^(sb - sa), in Q16 */
	sh = sb - sa;
	for (j = nx; j-- > 0;) {
		beta[j] = 0;
		if (m[j][j] <= 0)
			continue;
		t = b[j] * (1LL << TD_REG_Q);
		for (l = j + 1; l < nx; l++)
			t -= m[j][l] * beta[l];
		t = div64_s64(t, m[j][j]);
		if (t >= TD_REG_BETA_MAX || t <= -TD_REG_BETA_MAX)
			return false;
		beta[j] = t;
	}
	for (j = 0; j < nx; j++) {
		if (sh > 0 && (beta[j] >= TD_REG_BETA_MAX >> sh ||
			       beta[j] <= -(TD_REG_BETA_MAX >> sh)))
			return false;
		beta[j] = sh >= 0 ? beta[j] * (1LL << sh) : beta[j] / (1LL << -sh);
	}
	return true;
}

/**
 * td_reg_predict() - the regression's estimates of a set's events
 * @r:      the state
 * @s:      the sets
 * @set:    the set
 * @events: the events wanted (of @set)
 * @total:  per event, its count over the interval (those of @s->every)
 * @p:      out: per event, its estimates
 *
 * Return: the events of @events that have an estimate; none when a window
 * of the set lacked a regressor in this interval, or the regression is
 * too ill-conditioned to trust.
 */
u32 td_reg_predict(struct td_reg *r, const struct td_sets *s,
		   unsigned int set, u32 events, const u64 *total,
		   struct td_pred *p)
{
	s64 (*m)[TD_REG_MAX] = r->m, beta[TD_REG_MAX];
	const struct td_reg_set *rs;
	unsigned int a, b, j, k, l, nx = r->nx;
	u64 d, dmax = 0;
	u32 done = 0;
	int sa;

	if (set >= r->nr_sets)
		return 0;
	rs = &r->set[set];
	events &= s->set[set];
	/*
	 * Fewer windows than twice the regressors fit anything exactly and
	 * say nothing of where the others lie: the first intervals are
	 * scaled alone.
	 */
	if (rs->broken || !events || !nx || rs->seen < 2 * nx)
		return 0;
	for (a = 0; a < nx; a++) {
		d = rs->gram[td_tri(a, a)];
		d += d >> TD_REG_RIDGE_SHIFT;
		dmax = d > dmax ? d : dmax;
	}
	if (!dmax)
		return 0;
	sa = td_solve_shift(dmax);
	for (a = 0; a < nx; a++)
		for (b = 0; b < nx; b++) {
			d = rs->gram[td_tri(a, b)];
			if (a == b)
				d += d >> TD_REG_RIDGE_SHIFT;
			m[a][b] = d >> sa;
		}
	/* elimination: below the diagonal, each column's multipliers stay */
	for (j = 0; j < nx; j++) {
		if (m[j][j] <= 0)
			continue;
		for (k = j + 1; k < nx; k++)
			for (l = j + 1; l < nx; l++)
				m[k][l] -= div64_s64(m[k][j] * m[j][l], m[j][j]);
	}
	for (j = 0; j < r->nr_events; j++) {
		s64 whole = 0, part = 0;

		if (!(events & (1U << j)) || !td_reg_solve(m, nx, sa, r->xy[j], beta))
			continue;
		for (a = 0; a < nx; a++) {
			whole += td_mul_beta(beta[a], total[r->xi[a]]);
			part += td_mul_beta(beta[a], rs->x[a]);
		}
		p[j].whole = whole;
		p[j].part = part;
		done |= 1U << j;
	}
	return done;
}
