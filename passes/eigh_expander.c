/* eigh_expander.c: "eigh_expander", xla's EighExpander
 * (xla/hlo/transforms/expanders/eigh_expander.cc, jpli02/xla c4cbd3c;
 * matrix helpers from lib/matrix.cc as linalg_build.c reproduces them).
 *
 * Every custom-call "Eigh"(a [..., n, n]) of a non-fusion computation
 * without control dependencies, with backend_config "lower,sort,max_iter,
 * tol", becomes call(a), to_apply=xla.Eigh_<a's shape> (without layout,
 * sanitized; one computation per shape: the first call's configuration
 * wins, as xla caches by name), built as BuildEigh builds it: the
 * Hermitian matrix of a's lower (upper) triangle split into quadrants
 * of k = ceil(n / 2) (padded with a zero row and column when n is odd);
 * the parallel two-sided Jacobi method of Brent and Luk: a while loop
 * "EighJacobiSweeps" (at most max_iter sweeps, while some matrix's
 * off-diagonal squared norm exceeds tol^2 times its Frobenius squared
 * norm) of sweeps, each a ForEachIndex loop "ApplyRotations" of 2k - 1
 * rounds: the 2x2 eigendecompositions of the quadrants' diagonals
 * applied to rows and columns, the diagonals set, rows and columns
 * permuted in the tournament order; the eigenvectors accumulated alike.
 * The result is (v, w): v the conjugate transpose of the accumulated
 * rotations, w the diagonal; with sort, both ordered by w (a sort with
 * xla's compare-less-than, total order). n <= 1: (ones, a's real
 * diagonal).
 *
 * Differences from xla's output: names and numbering, the order of
 * independent instructions. Left alone (where xla fails): a backend_config
 * that does not parse, non-square or non-float operands, a result shape
 * other than (a's, w [..., n] of the real type).
 */
#include <float.h>
#include <stdio.h>
#include <string.h>

#include "build.h"
#include "eval.h"
#include "linalg_build.h"

/* quadrants w (tl, tr, bl, br) and v */
typedef struct {
	uint32_t w[4], v[4];
} Quads;

typedef struct {
	uint32_t rt1, rt2, c, s;
} Rot;

static int
is_complex(PassEdit *b, uint32_t x)
{
	return hlo_typeinfo[pass_b_type(b, x)].cls == C_CPLX;
}

static uint32_t
like(PassEdit *b, uint32_t x, double v)
{
	return pass_b_scalar(b, pass_b_type(b, x), v);
}

static uint32_t
bin(PassEdit *b, int op, uint32_t x, uint32_t y)
{
	return pass_la_bin(b, op, x, y, 0, NULL);
}

static uint32_t
zeros_like(PassEdit *b, uint32_t x)
{
	return pass_la_full_like(b, x, 0);
}

/* Abs, of the real type for complex x */
static uint32_t
absv(PassEdit *b, uint32_t x)
{
	uint32_t s = hlo_shape_with_type(b->m, hlo_shape_no_layout(b->m,
		pass_b_shape(b, x)), pass_la_real_type(pass_b_type(b, x)));

	return pass_b_op(b, HOP_ABS, s, 1, &x);
}

/* GetDiagonalMask(x, 0) */
static uint32_t
diag_mask(PassEdit *b, uint32_t x)
{
	int64_t d[PASS_LA_MAXR], zero = 0;
	int r = pass_b_dims(b, x, d);
	uint32_t ia = pass_la_iota(b, TY_S32, d[r - 1]), ib;

	ib = pass_la_iota(b, TY_S32, d[r - 2]);
	ib = bin(b, HOP_ADD, ib, pass_b_scalar(b, TY_S32, 0));
	ia = pass_b_broadcast(b, ia, 1, &d[r - 2]);
	return pass_b_broadcast(b, pass_la_cmp(b, ib, ia, "EQ", 1, &zero),
		r - 2, d);
}

/* GetMatrixDiagonal(x, 0) */
static uint32_t
get_diag(PassEdit *b, uint32_t x)
{
	int64_t d[PASS_LA_MAXR], rd;
	int r = pass_b_dims(b, x, d), t = pass_b_type(b, x);
	uint32_t sel;

	rd = d[r - 2] >= d[r - 1] ? r - 2 : r - 1;
	sel = pass_la_select(b, diag_mask(b, x), x, pass_la_zeros(b, t, r,
		d));
	return pass_la_reduce(b, sel, like(b, x, 0), pass_la_add_comp(b->m,
		t), 1, &rd);
}

/* SetMatrixDiagonal(x, diag, 0), diag as long as x's rows */
static uint32_t
set_diag(PassEdit *b, uint32_t x, uint32_t diag)
{
	int64_t d[PASS_LA_MAXR], bd[PASS_LA_MAXR];
	int r = pass_b_dims(b, x, d), k;

	for (k = 0; k < r - 1; k++)
		bd[k] = k;
	return pass_la_select(b, diag_mask(b, x), pass_la_bcast_in_dim(b,
		diag, r, d, bd), x);
}

/* HermitianEigenDecomposition2x2 of the quadrants' diagonals */
static Rot
eigh2x2(PassEdit *b, uint32_t wtl, uint32_t wtr, uint32_t wbr)
{
	int cplx = is_complex(b, wtl);
	uint32_t zero, one, two, w = HLO_NONE, at, tau, t, tiny, odt, c, s;
	Rot r;

	wtl = get_diag(b, pass_la_unary(b, HOP_REAL, wtl));
	wtr = get_diag(b, wtr);
	wbr = get_diag(b, pass_la_unary(b, HOP_REAL, wbr));
	zero = like(b, wtl, 0);
	one = like(b, wtl, 1);
	two = like(b, wtl, 2);
	if (cplx) {
		at = absv(b, wtr);
		w = pass_la_select(b, pass_la_cmp(b, at, zeros_like(b, at),
			"EQ", 0, NULL), pass_la_full_like(b, wtr, 1), bin(b,
			HOP_DIVIDE, pass_la_conj(b, wtr, 1), pass_la_complex(b,
			at, zeros_like(b, at))));
		wtr = at;
	}
	tau = bin(b, HOP_DIVIDE, bin(b, HOP_SUBTRACT, wbr, wtl), bin(b,
		HOP_MUL, two, wtr));
	t = pass_la_unary(b, HOP_SQRT, bin(b, HOP_ADD, one, bin(b, HOP_MUL,
		tau, tau)));
	t = pass_la_select(b, pass_la_cmp(b, tau, zero, "GE", 0, NULL), t,
		pass_la_unary(b, HOP_NEGATE, t));
	t = bin(b, HOP_ADD, tau, t);
	t = bin(b, HOP_DIVIDE, like(b, t, 1), t);
	tiny = like(b, wtr, (double)(0.1f * FLT_EPSILON));
	odt = pass_la_cmp(b, absv(b, wtr), bin(b, HOP_MUL, tiny, bin(b,
		HOP_MIN, absv(b, wtl), absv(b, wbr))), "LE", 0, NULL);
	t = pass_la_select(b, odt, zeros_like(b, t), t);
	c = pass_la_unary(b, HOP_RSQRT, bin(b, HOP_ADD, one, bin(b, HOP_MUL,
		t, t)));
	s = bin(b, HOP_MUL, t, c);
	r.rt1 = bin(b, HOP_SUBTRACT, wtl, bin(b, HOP_MUL, t, wtr));
	r.rt2 = bin(b, HOP_ADD, wbr, bin(b, HOP_MUL, t, wtr));
	r.c = c;
	r.s = s;
	if (cplx) {
		r.rt1 = pass_la_complex(b, r.rt1, zeros_like(b, r.rt1));
		r.rt2 = pass_la_complex(b, r.rt2, zeros_like(b, r.rt2));
		r.c = pass_la_complex(b, c, zeros_like(b, c));
		r.s = bin(b, HOP_MUL, pass_la_complex(b, s, zeros_like(b, s)),
			w);
	}
	return r;
}

/* ApplyJacobiRotationOverRows (cols 0) or OverCols (cols 1) */
static void
rotate(PassEdit *b, const Rot *r, uint32_t *q, int cols)
{
	int64_t d[PASS_LA_MAXR], bd[PASS_LA_MAXR];
	int n = pass_b_dims(b, q[0], d), k;
	uint32_t c, s, sc, o[4];

	for (k = 0; k < n - 1; k++)
		bd[k] = k;
	if (cols)
		bd[n - 2] = n - 1;
	c = pass_la_bcast_in_dim(b, r->c, n, d, bd);
	s = pass_la_bcast_in_dim(b, r->s, n, d, bd);
	sc = pass_la_conj(b, s, 1);
#define M(x, y) bin(b, HOP_MUL, x, y)
	if (!cols) {
		o[0] = bin(b, HOP_SUBTRACT, M(q[0], c), M(q[2], sc));
		o[1] = bin(b, HOP_SUBTRACT, M(q[1], c), M(q[3], sc));
		o[2] = bin(b, HOP_ADD, M(q[0], s), M(q[2], c));
		o[3] = bin(b, HOP_ADD, M(q[1], s), M(q[3], c));
	} else {
		o[0] = bin(b, HOP_SUBTRACT, M(q[0], c), M(q[1], s));
		o[1] = bin(b, HOP_ADD, M(q[0], sc), M(q[1], c));
		o[2] = bin(b, HOP_SUBTRACT, M(q[2], c), M(q[3], s));
		o[3] = bin(b, HOP_ADD, M(q[2], sc), M(q[3], c));
	}
#undef M
	memcpy(q, o, sizeof o);
}

/* PermuteRowsInColumn(x, y) (rows 1) or PermuteColumnsInRow(x, y) */
static void
permute(PassEdit *b, uint32_t *x, uint32_t *y, int rows)
{
	int64_t d[PASS_LA_MAXR], k, s[2], e[2];
	int r = pass_b_dims(b, *x, d), n = rows ? 2 : 1;
	uint32_t p[3], nx, ny;

	k = d[r - 1];
	if (k <= 1)
		return;
#define SL(v, a, z) (s[0] = (a), e[0] = (z), s[1] = 0, e[1] = k, \
	pass_la_slice_minor(b, v, n, s, e))
	p[0] = SL(*x, 0, 1);
	p[1] = SL(*y, 0, 1);
	p[2] = SL(*x, 1, k - 1);
	nx = pass_b_concat(b, 3, p, r - n);
	p[0] = SL(*y, 1, k);
	p[1] = SL(*x, k - 1, k);
	ny = pass_b_concat(b, 2, p, r - n);
#undef SL
	*x = nx;
	*y = ny;
}

static void
apply_rotations(PassEdit *b, Quads *q)
{
	Rot r = eigh2x2(b, q->w[0], q->w[1], q->w[3]);

	rotate(b, &r, q->w, 0);
	rotate(b, &r, q->w, 1);
	q->w[0] = set_diag(b, q->w[0], r.rt1);
	q->w[1] = set_diag(b, q->w[1], zeros_like(b, r.rt1));
	q->w[2] = set_diag(b, q->w[2], zeros_like(b, r.rt1));
	q->w[3] = set_diag(b, q->w[3], r.rt2);
	permute(b, &q->w[0], &q->w[1], 0);
	permute(b, &q->w[2], &q->w[3], 0);
	permute(b, &q->w[0], &q->w[2], 1);
	permute(b, &q->w[1], &q->w[3], 1);
	rotate(b, &r, q->v, 0);
	permute(b, &q->v[0], &q->v[2], 1);
	permute(b, &q->v[1], &q->v[3], 1);
}

/* one round of the sweep: vars tol, w[4], v[4] */
static void
round_body(PassEdit *b, uint32_t i, const uint32_t *vars, uint32_t *out,
	void *arg)
{
	Quads q;

	(void)i;
	(void)arg;
	memcpy(q.w, vars + 1, sizeof q.w);
	memcpy(q.v, vars + 5, sizeof q.v);
	apply_rotations(b, &q);
	out[0] = vars[0];
	memcpy(out + 1, q.w, sizeof q.w);
	memcpy(out + 5, q.v, sizeof q.v);
}

static uint32_t
sq_norm(PassEdit *b, uint32_t x)
{
	return pass_la_unary(b, HOP_REAL, bin(b, HOP_MUL, x, pass_la_conj(b,
		x, 1)));
}

static uint32_t
off_diag(PassEdit *b, uint32_t x)
{
	return pass_la_select(b, diag_mask(b, x), zeros_like(b, x), x);
}

/* ComputeFrobeniusNorms: *off and the return, squared, per matrix */
static uint32_t
norms(PassEdit *b, const uint32_t *w, uint32_t *off)
{
	int64_t d[PASS_LA_MAXR], rd[2];
	int r = pass_b_dims(b, w[0], d);
	int nt = pass_la_real_type(pass_b_type(b, w[0]));
	uint32_t zero, f, o;

	rd[0] = r - 2;
	rd[1] = r - 1;
	zero = like(b, pass_la_unary(b, HOP_REAL, w[0]), 0);
	f = bin(b, HOP_ADD, bin(b, HOP_ADD, bin(b, HOP_ADD, sq_norm(b, w[0]),
		sq_norm(b, w[1])), sq_norm(b, w[2])), sq_norm(b, w[3]));
	f = pass_la_reduce(b, f, zero, pass_la_add_comp(b->m, nt), 2, rd);
	o = bin(b, HOP_ADD, bin(b, HOP_ADD, bin(b, HOP_ADD, sq_norm(b,
		off_diag(b, w[0])), sq_norm(b, w[1])), sq_norm(b, w[2])),
		sq_norm(b, off_diag(b, w[3])));
	*off = pass_la_reduce(b, o, zero, pass_la_add_comp(b->m, nt), 2, rd);
	return f;
}

/* CreateScalarOrComputation(PRED): "or" */
static uint32_t
or_comp(HloModule *m)
{
	PassEdit b;
	uint32_t p[2], s = hlo_shape_scalar(m, TY_PRED);

	pass_b_fresh(&b, m, pass_la_comp(m, "or"));
	p[0] = pass_la_param(&b, 0, s, "lhs");
	p[1] = pass_la_param(&b, 1, s, "rhs");
	pass_b_root(&b, pass_b_op(&b, HOP_OR, s, 2, p));
	return b.c;
}

/* WhileLoopHelper "EighJacobiSweeps" over vals[10]: iter, tol, w, v */
static void
sweeps(PassEdit *b, uint32_t *vals, int64_t n, int64_t max_iter)
{
	HloModule *m = b->m;
	uint32_t shapes[10], st[10], nx[10], ls, p, w, called[2], off, f, c;
	int64_t d[PASS_LA_MAXR], all[PASS_LA_MAXR];
	int k, r;
	PassEdit cb, bb;

	for (k = 0; k < 10; k++)
		shapes[k] = pass_b_shape(b, vals[k]);
	ls = hlo_shape_tuple(m, 10, shapes);
	pass_b_fresh(&cb, m, pass_la_comp(m, "EighJacobiSweeps_condition"));
	p = pass_la_param(&cb, 0, ls, "parameter");
	for (k = 0; k < 10; k++)
		st[k] = pass_b_gte(&cb, p, k);
	c = pass_la_cmp(&cb, st[0], like(&cb, st[0], (double)max_iter), "LT",
		0, NULL);
	f = norms(&cb, st + 2, &off);
	f = bin(&cb, HOP_MUL, f, bin(&cb, HOP_MUL, st[1], st[1]));
	f = pass_la_cmp(&cb, f, off, "LT", 0, NULL);
	r = pass_b_dims(&cb, f, d);
	for (k = 0; k < r; k++)
		all[k] = k;
	f = pass_la_reduce(&cb, f, pass_b_scalar(&cb, TY_PRED, 0), or_comp(m),
		r, all);
	pass_b_root(&cb, bin(&cb, HOP_AND, c, f));

	pass_b_fresh(&bb, m, pass_la_comp(m, "EighJacobiSweeps_body"));
	p = pass_la_param(&bb, 0, ls, "parameter");
	for (k = 0; k < 10; k++)
		st[k] = pass_b_gte(&bb, p, k);
	pass_la_for_each(&bb, n - 1, 9, st + 1, "ApplyRotations", round_body,
		NULL, nx + 1);
	nx[0] = bin(&bb, HOP_ADD, st[0], like(&bb, st[0], 1));
	pass_b_root(&bb, pass_b_tuple(&bb, 10, nx));

	w = pass_b_tuple(b, 10, vals);
	w = pass_b_op(b, HOP_WHILE, ls, 1, &w);
	called[0] = bb.c;
	called[1] = cb.c;
	hlo_set_called(m, b->c, w, 2, called);
	for (k = 0; k < 10; k++)
		vals[k] = pass_b_gte(b, w, k);
}

/* Symmetrize(x, lower) */
static uint32_t
symmetrize(PassEdit *b, uint32_t x, int lower)
{
	uint32_t mask, re, im, imask;

	mask = lower ? pass_la_triangle_mask(b, x, 0) : pass_la_unary(b,
		HOP_NOT, pass_la_triangle_mask(b, x, -1));
	if (!is_complex(b, x))
		return pass_la_select(b, mask, x, pass_la_transpose_minor(b,
			x));
	re = pass_la_unary(b, HOP_REAL, x);
	re = pass_la_select(b, mask, re, pass_la_transpose_minor(b,
		pass_la_unary(b, HOP_REAL, x)));
	imask = lower ? pass_la_triangle_mask(b, x, -1) : pass_la_unary(b,
		HOP_NOT, pass_la_triangle_mask(b, x, 0));
	im = pass_la_select(b, imask, pass_la_unary(b, HOP_IMAG, x),
		zeros_like(b, pass_la_unary(b, HOP_IMAG, x)));
	im = pass_la_select(b, mask, im, pass_la_unary(b, HOP_NEGATE,
		pass_la_transpose_minor(b, im)));
	return pass_la_complex(b, re, im);
}

/* the comparator compare-less-than over (w, v): LtTotalOrder of w */
static uint32_t
lt_comp(HloModule *m, int tw, int tv)
{
	PassEdit b;
	uint32_t p[4], r;
	HloAttr a[2];

	pass_b_fresh(&b, m, pass_la_comp(m, "compare-less-than"));
	p[0] = pass_la_param(&b, 0, hlo_shape_scalar(m, tw), "p.0.lhs");
	p[1] = pass_la_param(&b, 1, hlo_shape_scalar(m, tw), "p.0.rhs");
	p[2] = pass_la_param(&b, 2, hlo_shape_scalar(m, tv), "p.1.lhs");
	p[3] = pass_la_param(&b, 3, hlo_shape_scalar(m, tv), "p.1.rhs");
	r = pass_b_op(&b, HOP_COMPARE, hlo_shape_scalar(m, TY_PRED), 2, p);
	a[0] = hlo_mk_bytes(m, A_DIRECTION, K_WORD, "LT", 2);
	a[1] = hlo_mk_bytes(m, A_CMP_TYPE, K_WORD, "TOTALORDER", 10);
	hlo_set_attrs(m, b.c, r, 2, a);
	pass_b_root(&b, r);
	return b.c;
}

/* SortByEigenvalues */
static void
sort_eig(PassEdit *b, uint32_t *v, uint32_t *w)
{
	int64_t d[PASS_LA_MAXR], bd[PASS_LA_MAXR], dim;
	int r = pass_b_dims(b, *v, d), k;
	uint32_t o[2], s[2], st;
	HloAttr a;

	for (k = 0; k < r - 1; k++)
		bd[k] = k;
	bd[r - 2] = r - 1;
	o[0] = pass_la_bcast_in_dim(b, *w, r, d, bd);
	o[1] = *v;
	s[0] = pass_b_shape(b, o[0]);
	s[1] = pass_b_shape(b, o[1]);
	st = pass_b_op(b, HOP_SORT, hlo_shape_tuple(b->m, 2, s), 2, o);
	dim = r - 1;
	a = hlo_mk_ints(b->m, A_DIMENSIONS, &dim, 1);
	hlo_attr_set(b->m, b->c, st, &a);
	k = (int)lt_comp(b->m, pass_b_type(b, o[0]), pass_b_type(b, o[1]));
	hlo_set_called(b->m, b->c, st, 1, (uint32_t *)&k);
	*w = get_diag(b, pass_b_gte(b, st, 0));
	*v = pass_b_gte(b, st, 1);
}

/* BuildEigh: the tuple (v, w) */
static uint32_t
build_eigh(PassEdit *b, uint32_t a, const EvEighCfg *cfg)
{
	int64_t d[PASS_LA_MAXR], n, k, s[2], e[2], pad[3 * PASS_LA_MAXR];
	int r = pass_b_dims(b, a, d), t = pass_b_type(b, a), j;
	uint32_t vals[10], zero, wv[2], x[2];

	n = d[r - 1];
	if (n <= 1) {
		wv[0] = pass_la_full_like(b, a, 1);
		wv[1] = get_diag(b, pass_la_unary(b, HOP_REAL, a));
		return pass_b_tuple(b, 2, wv);
	}
	a = symmetrize(b, a, cfg->lower);
	k = (n + 1) / 2;
#define SL(r0, c0, r1, c1) (s[0] = (r0), s[1] = (c0), e[0] = (r1), \
	e[1] = (c1), pass_la_slice_minor(b, a, 2, s, e))
	vals[2] = SL(0, 0, k, k);
	vals[4] = SL(k, 0, n, k);
	vals[3] = SL(0, k, k, n);
	vals[5] = SL(k, k, n, n);
#undef SL
	if (n % 2) {
		zero = pass_b_scalar(b, t, 0);
		memset(pad, 0, sizeof pad);
		pad[3 * (r - 1) + 1] = 1;
		vals[3] = pass_la_pad(b, vals[3], zero, pad);
		memset(pad, 0, sizeof pad);
		pad[3 * (r - 2) + 1] = 1;
		vals[4] = pass_la_pad(b, vals[4], zero, pad);
		pad[3 * (r - 1) + 1] = 1;
		vals[5] = pass_la_pad(b, vals[5], zero, pad);
	}
	vals[6] = pass_b_broadcast(b, pass_la_identity(b, t, k, k), r - 2, d);
	vals[9] = vals[6];
	vals[7] = zeros_like(b, vals[6]);
	vals[8] = vals[7];
	vals[0] = pass_b_scalar(b, TY_S32, 0);
	vals[1] = pass_b_scalar(b, pass_la_real_type(t), (double)cfg->tol);
	pass_la_unary(b, HOP_REAL, a);	/* ScalarLike(Real(a), tol) */
	sweeps(b, vals, 2 * k, cfg->max_iter);
	x[0] = get_diag(b, pass_la_unary(b, HOP_REAL, vals[2]));
	x[1] = get_diag(b, pass_la_unary(b, HOP_REAL, vals[5]));
	wv[1] = pass_b_concat(b, 2, x, r - 2);
	x[0] = pass_b_concat(b, 2, vals + 6, r - 1);
	x[1] = pass_b_concat(b, 2, vals + 8, r - 1);
	wv[0] = pass_b_concat(b, 2, x, r - 2);
	if (n % 2) {
		s[0] = s[1] = 0;
		e[0] = e[1] = n;
		wv[1] = pass_la_slice_minor(b, wv[1], 1, s, e);
		wv[0] = pass_la_slice_minor(b, wv[0], 2, s, e);
	}
	wv[0] = pass_la_conj(b, pass_la_transpose_minor(b, wv[0]), 1);
	if (cfg->sort)
		sort_eig(b, &wv[0], &wv[1]);
	(void)j;
	return pass_b_tuple(b, 2, wv);
}

static uint32_t
build(HloModule *m, uint32_t sa, const EvEighCfg *cfg)
{
	HloBuf name = {0};
	PassEdit b;

	hlo_buf_puts(&name, "xla.Eigh_");
	pass_shape_name(m, sa, &name);
	hlo_buf_put(&name, "", 1);
	pass_b_fresh(&b, m, pass_la_comp(m, name.buf));
	hlo_buf_free(&name);
	pass_b_root(&b, build_eigh(&b, pass_la_param(&b, 0, sa, "a"), cfg));
	return b.c;
}

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);
	const HloShape *a, *r, *v, *w;
	const int64_t *ad;
	uint32_t n;
	const char *t = hlo_attr_word(m, in, A_CUSTOM_CALL_TARGET, &n);
	EvEighCfg cfg;

	(void)arg;
	if (in->op != HOP_CUSTOMCALL || !t || n != 4 || memcmp(t, "Eigh", 4) ||
	    in->nops != 1 || !ev_eigh_cfg(m, in, &cfg) ||
	    !(a = pass_la_operand(ed, i, 0)))
		return 0;
	ad = hlo_dims(m, a);
	if (ad[a->rank - 1] != ad[a->rank - 2])
		return 0;
	r = hlo_sh(m, in->shape);
	if (r->type != TY_TUPLE || r->ntuple != 2)
		return 0;
	v = hlo_sh(m, hlo_tuple_elems(m, r)[0]);
	w = hlo_sh(m, hlo_tuple_elems(m, r)[1]);
	return v->type == a->type && v->rank == a->rank && !v->dynmask &&
		!memcmp(hlo_dims(m, v), ad, a->rank * sizeof *ad) &&
		w->type == pass_la_real_type(a->type) && w->rank == a->rank -
		1 && !w->dynmask && !memcmp(hlo_dims(m, w), ad, (a->rank - 1) *
		sizeof *ad);
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);
	uint32_t o = pass_opnd(ed, i, 0), k[1], *slot, shape = in->shape;
	EvEighCfg cfg;
	int fresh;

	if (!ev_eigh_cfg(m, in, &cfg))
		return HLO_NONE;
	k[0] = hlo_shape_no_layout(m, pass_b_shape(ed, o)) + 1;
	slot = pass_cache_slot(arg, k, &fresh);
	if (fresh)
		*slot = build(m, pass_b_shape(ed, o), &cfg);
	return pass_b_call(ed, *slot, shape, 1, &o);
}

int
pass_eigh_expander(HloModule *m, PassCtx *ctx)
{
	return pass_expand_cached(m, ctx, match, expand, 1);
}
