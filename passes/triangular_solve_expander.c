/* triangular_solve_expander.c: "triangular_solve_expander", xla's
 * TriangularSolveExpander with its default block size 128, as XLA:CPU
 * constructs it (xla/service/triangular_solve_expander.cc and its test,
 * jpli02/xla c4cbd3c; the builder helpers of xla/hlo/builder/lib as
 * linalg_build.c reproduces them).
 *
 * Every triangular-solve(a, b) of a non-fusion computation without
 * control dependencies becomes
 *   call(a, b), to_apply=xla.triangular_solve_<a>_<b>_<left|right>_
 *     <lower|upper>_<transpose_a>_<unit|nonunit>
 * one computation per signature (a's and b's shapes without layout and
 * the options), built as xla's BuildTriangularSolve builds it:
 *   - b of zero elements: b; 1x1 matrices: b, or b / a (conjugated for
 *     ADJOINT) without a unit diagonal;
 *   - a batch of more than 8 (block size / 16) matrices smaller than 32
 *     (block size / 4): SolveDirectly, one row or column of b at a time,
 *     unrolled: b_row - a_chunk . b_chunk (BatchDot), divided by the
 *     diagonal element, written back with dynamic-update-slice;
 *   - otherwise SolveByInvertingDiagonalBlocks (MAGMA's algorithm): a
 *     masked to its triangle (with a unit diagonal: the strict triangle
 *     plus the identity), its diagonal blocks of min(128, n) (gathered,
 *     the last one padded with the identity) inverted together by a while
 *     loop of block-size trips (one row of every inverse per trip: the
 *     blocks scaled to a unit diagonal, -row . inverse so far), then the
 *     solution block by block, unrolled: x_j = inv_j . (b_j - a_j,<j .
 *     x_<j), forward or backward as left_side ^ lower ^ transpose_a says.
 * Dots are HIGHEST precision; BatchDot's carry Einsum's grad_x/grad_y
 * frontend attributes and an identity transpose, as XlaBuilder emits.
 *
 * Differences from xla's output: instruction names and numbering (hlopt
 * names after the opcode: xla's sub-builders' numbering does not
 * survive); parameters named a and b keep the first operand's layout,
 * every other shape is without layout (xla's builder gives the
 * transposes layouts that make them bitcasts); instructions xla's builder
 * leaves unused (the loop counter's get-tuple-element) are kept, as xla
 * keeps them. Types: any floating-point or complex a; ranks up to
 * PASS_LA_MAXR - 1 (higher ones are left alone).
 */
#include <stdio.h>
#include <string.h>

#include "build.h"
#include "linalg_build.h"

#define TS_BLOCK 128		/* TriangularSolveExpander's block_size_ */

typedef struct {
	int left, lower, trans, conj, unit;
} TsOpt;

/* GetMatrixDiagonal(x, 0) of square matrices */
static uint32_t
matrix_diagonal(PassEdit *b, uint32_t x)
{
	int64_t d[PASS_LA_MAXR], rd[PASS_LA_MAXR], zero = 0;
	int r = pass_b_dims(b, x, d), t = pass_b_type(b, x), k, n = 0;
	uint32_t ia, ib, mask, sel, init, comp, o[2], red;
	int64_t rdim = r - 2;

	ia = pass_la_iota(b, TY_S32, d[r - 1]);
	ib = pass_la_iota(b, TY_S32, d[r - 2]);
	ib = pass_la_bin(b, HOP_ADD, ib, pass_b_scalar(b, TY_S32, 0), 0,
		NULL);
	ia = pass_b_broadcast(b, ia, 1, &d[r - 2]);
	mask = pass_la_cmp(b, ib, ia, "EQ", 1, &zero);
	mask = pass_b_broadcast(b, mask, r - 2, d);
	sel = pass_la_select(b, mask, x, pass_la_zeros(b, t, r, d));
	init = pass_b_scalar(b, t, 0);
	comp = pass_la_add_comp(b->m, t);
	for (k = 0; k < r; k++)
		if (k != rdim)
			rd[n++] = d[k];
	o[0] = sel;
	o[1] = init;
	red = pass_b_op(b, HOP_REDUCE, pass_b_array(b->m, t, n, rd), 2, o);
	{
		HloAttr a = hlo_mk_ints(b->m, A_DIMENSIONS, &rdim, 1);

		hlo_attr_set(b->m, b->c, red, &a);
	}
	hlo_set_called(b->m, b->c, red, 1, &comp);
	return red;
}

/* DiagonalBlocks(a, bs): [..., n/bs rounded up, bs, bs] */
static uint32_t
diagonal_blocks(PassEdit *b, uint32_t a, int64_t bs)
{
	int64_t d[PASS_LA_MAXR], e[PASS_LA_MAXR], perm[PASS_LA_MAXR];
	int64_t cfg[3 * PASS_LA_MAXR], two = 2, tp[2] = {1, 0}, one = 1;
	int r = pass_b_dims(b, a, d), t = pass_b_type(b, a), k;
	int64_t n = d[r - 1], nb = n / bs, rem = n % bs, pad = bs - rem;
	uint32_t blocks = HLO_NONE, idx, g, last, eye, xs[2];

	if (n == bs) {
		for (k = 0; k < r - 2; k++)
			perm[k] = k + 1;
		perm[r - 2] = 0;
		perm[r - 1] = r - 1;
		perm[r] = r;
		return pass_b_transpose(b, pass_b_broadcast(b, a, 1, &one),
			r + 1, perm);
	}
	if (n > bs) {
		idx = pass_la_bin(b, HOP_MUL, pass_la_iota(b, TY_S32, nb),
			pass_b_scalar(b, TY_S32, (double)bs), 0, NULL);
		idx = pass_b_transpose(b, pass_b_broadcast(b, idx, 1, &two),
			2, tp);
		for (k = 0; k < r - 2; k++) {
			perm[k] = k;	/* offset dims */
			e[k] = d[k];	/* slice sizes */
		}
		perm[r - 2] = r - 1;
		perm[r - 1] = r;
		e[r - 2] = e[r - 1] = bs;
		memcpy(cfg, d, (r - 2) * sizeof *cfg);	/* result dims */
		cfg[r - 2] = nb;
		cfg[r - 1] = cfg[r] = bs;
		xs[0] = a;
		xs[1] = idx;
		g = pass_b_op(b, HOP_GATHER, pass_b_array(b->m, t, r + 1, cfg),
			2, xs);
		{
			HloAttr at[5];
			int64_t sim[2] = {r - 2, r - 1};

			at[0] = hlo_mk_ints(b->m, A_OFFSET_DIMS, perm, r);
			at[1] = hlo_mk_ints(b->m, A_COLLAPSED_SLICE_DIMS, NULL, 0);
			at[2] = hlo_mk_ints(b->m, A_START_INDEX_MAP, sim, 2);
			at[3] = hlo_mk_int(A_INDEX_VECTOR_DIM, 1);
			at[4] = hlo_mk_ints(b->m, A_SLICE_SIZES, e, r);
			hlo_set_attrs(b->m, b->c, g, 5, at);
		}
		blocks = g;
	}
	if (rem) {
		int64_t st[2] = {n - rem, n - rem}, en[2] = {n, n};

		last = pass_la_slice_minor(b, a, 2, st, en);
		memset(cfg, 0, sizeof cfg);
		cfg[3 * (r - 2) + 1] = pad;
		last = pass_la_pad(b, last, pass_b_scalar(b, t, 0), cfg);
		eye = pass_la_identity(b, t, pad, pad);
		memset(cfg, 0, sizeof cfg);
		cfg[0] = rem;
		eye = pass_la_pad(b, eye, pass_b_scalar(b, t, 0), cfg);
		eye = pass_b_broadcast(b, eye, r - 2, d);
		xs[0] = last;
		xs[1] = eye;
		last = pass_b_concat(b, 2, xs, r - 1);
		pass_b_dims(b, last, e);
		memmove(e + r - 1, e + r - 2, 2 * sizeof *e);
		e[r - 2] = 1;
		last = pass_b_reshape(b, last, r + 1, e);
		if (n > bs) {
			xs[0] = blocks;
			xs[1] = last;
			blocks = pass_b_concat(b, 2, xs, r - 2);
		} else {
			blocks = last;
		}
	}
	return blocks;
}

/* the body of InvertDiagonalBlocks' loop: one row j of every inverse */
static void
invert_body(PassEdit *bb, uint32_t ls, int64_t nbk, int64_t bs, int lower)
{
	uint32_t p, i, out, in, zero, j, row, upd, idx[3], xs[3];
	int64_t sz[3] = {nbk, 1, bs};

	p = pass_la_param(bb, 0, ls, "InvertDiagBodyTuple");
	i = pass_b_gte(bb, p, 0);
	out = pass_b_gte(bb, p, 1);
	in = pass_b_gte(bb, p, 2);
	zero = pass_b_scalar(bb, TY_S32, 0);
	j = lower ? i : pass_la_bin(bb, HOP_SUBTRACT, pass_b_scalar(bb,
		TY_S32, (double)(bs - 1)), i, 0, NULL);
	idx[0] = zero;
	idx[1] = j;
	idx[2] = zero;
	row = pass_la_ds(bb, in, idx, sz);
	upd = pass_la_unary(bb, HOP_NEGATE, pass_la_dot(bb, row, out, 1, 2, 1,
		0));
	out = pass_la_dus(bb, out, upd, idx);
	xs[0] = pass_la_bin(bb, HOP_ADD, i, pass_b_scalar(bb, TY_S32, 1), 0,
		NULL);
	xs[1] = out;
	xs[2] = in;
	pass_b_root(bb, pass_b_tuple(bb, 3, xs));
}

/* TriangularSolveExpander::InvertDiagonalBlocks */
static uint32_t
invert_blocks(PassEdit *b, uint32_t db, int lower)
{
	int64_t d[PASS_LA_MAXR], bd3[3], oo[2] = {1, 1}, b02[2] = {0, 2};
	int64_t b01[2] = {0, 1};
	int r = pass_b_dims(b, db, d), t = pass_b_type(b, db), k;
	int64_t bs = d[r - 1], nbk = 1;
	uint32_t diags, scaled, ob, st, idx[2], xs[3], sh[3], ls, w, called[2];
	PassEdit cb, bb;

	for (k = 0; k < r - 2; k++)
		nbk *= d[k];
	bd3[0] = nbk;
	bd3[1] = bd3[2] = bs;
	db = pass_b_reshape(b, db, 3, bd3);
	db = pass_la_triangle(b, db, lower);
	diags = matrix_diagonal(b, db);
	scaled = pass_la_bin(b, HOP_DIVIDE, db, diags, 2, b02);
	ob = pass_la_unary(b, HOP_NEGATE, pass_la_identity(b, t, bs, bs));
	xs[0] = pass_b_reshape(b, pass_b_scalar(b, t, 1), 2, oo);
	st = pass_b_scalar(b, TY_S32, lower ? 0 : (double)(bs - 1));
	idx[0] = idx[1] = st;
	ob = pass_la_dus(b, ob, xs[0], idx);
	xs[1] = pass_b_broadcast(b, ob, 1, &nbk);
	xs[0] = pass_b_scalar(b, TY_S32, 1);
	xs[2] = scaled;
	for (k = 0; k < 3; k++)
		sh[k] = pass_b_shape(b, xs[k]);
	ls = hlo_shape_tuple(b->m, 3, sh);
	w = pass_b_tuple(b, 3, xs);

	pass_b_fresh(&cb, b->m, pass_la_comp(b->m, "InvertDiagCond"));
	xs[0] = pass_b_gte(&cb, pass_la_param(&cb, 0, ls,
		"InvertDiagCondTuple"), 0);
	pass_b_root(&cb, pass_la_cmp(&cb, xs[0], pass_b_scalar(&cb, TY_S32,
		(double)bs), "LT", 0, NULL));
	pass_b_fresh(&bb, b->m, pass_la_comp(b->m, "InvertDiagBody"));
	invert_body(&bb, ls, nbk, bs, lower);

	w = pass_b_op(b, HOP_WHILE, ls, 1, &w);
	called[0] = bb.c;
	called[1] = cb.c;
	hlo_set_called(b->m, b->c, w, 2, called);
	w = pass_la_bin(b, HOP_DIVIDE, pass_b_gte(b, w, 1), diags, 2, b01);
	return pass_b_reshape(b, w, r, d);
}

/* SolveWithInvertedDiagonalBlocks: one block of the solution at a time */
static uint32_t
solve_blocks(PassEdit *b, uint32_t a, uint32_t rhs, uint32_t inv,
	const TsOpt *o)
{
	int64_t ad[PASS_LA_MAXR], bd[PASS_LA_MAXR], id[PASS_LA_MAXR];
	int64_t st[3], en[3], s2[2], e2[2], tmp, cd[PASS_LA_MAXR];
	int nd = pass_b_dims(b, a, ad), br = pass_b_dims(b, rhs, bd);
	int ir = pass_b_dims(b, inv, id), back = o->left ^ o->lower ^ o->trans;
	int64_t bs = id[ir - 1], n = ad[nd - 1], nb = n / bs + (n % bs != 0);
	int64_t mm = o->left ? bd[br - 1] : bd[br - 2], i, j, blk, k;
	int64_t bdim = o->left ? br - 2 : br - 1;
	uint32_t x = HLO_NONE, ib, row, rem, ar, upd, xs[2];

	for (i = 0; i < nb; i++) {
		j = back ? nb - 1 - i : i;
		blk = n % bs && j + 1 == nb ? n % bs : bs;
		st[0] = j;
		st[1] = st[2] = 0;
		en[0] = j + 1;
		en[1] = en[2] = blk;
		ib = pass_la_slice_minor(b, inv, 3, st, en);
		memcpy(cd, ad, (nd - 2) * sizeof *cd);
		cd[nd - 2] = cd[nd - 1] = blk;
		ib = pass_la_conj(b, pass_b_reshape(b, ib, nd, cd), o->conj);
		k = (j + 1) * bs < n ? (j + 1) * bs : n;
		s2[0] = j * bs;
		s2[1] = 0;
		e2[0] = k;
		e2[1] = mm;
		if (!o->left) {
			tmp = s2[0], s2[0] = s2[1], s2[1] = tmp;
			tmp = e2[0], e2[0] = e2[1], e2[1] = tmp;
		}
		row = pass_la_slice_minor(b, rhs, 2, s2, e2);
		rem = row;
		if (i > 0) {
			s2[0] = j * bs;
			e2[0] = k;
			s2[1] = back ? ((nb - i) * bs > 0 ? (nb - i) * bs : 0) : 0;
			e2[1] = back ? n : (i * bs < n ? i * bs : n);
			if (!o->left ^ o->trans) {
				tmp = s2[0], s2[0] = s2[1], s2[1] = tmp;
				tmp = e2[0], e2[0] = e2[1], e2[1] = tmp;
			}
			ar = pass_la_conj(b, pass_la_slice_minor(b, a, 2, s2, e2),
				o->conj);
			ar = o->left ? pass_la_batch_dot(b, ar, o->trans, x, 0) :
				pass_la_batch_dot(b, x, 0, ar, o->trans);
			rem = pass_la_bin(b, HOP_SUBTRACT, row, ar, 0, NULL);
		}
		upd = o->left ? pass_la_batch_dot(b, ib, o->trans, rem, 0) :
			pass_la_batch_dot(b, rem, 0, ib, o->trans);
		if (i == 0) {
			x = upd;
			continue;
		}
		xs[0] = back ? upd : x;
		xs[1] = back ? x : upd;
		x = pass_b_concat(b, 2, xs, bdim);
	}
	return x;
}

/* SolveByInvertingDiagonalBlocks */
static uint32_t
solve_inverting(PassEdit *b, uint32_t a, uint32_t rhs, const TsOpt *o)
{
	int64_t d[PASS_LA_MAXR], bd[2];
	int r = pass_b_dims(b, a, d), t = pass_b_type(b, a);
	int64_t n = d[r - 1], bs = TS_BLOCK < n ? TS_BLOCK : n;
	uint32_t mask, inv;

	if (o->unit) {
		if (o->lower) {
			mask = pass_la_triangle_mask(b, a, -1);
			a = pass_la_select(b, mask, a, pass_la_full_like(b, a,
				0));
		} else {
			mask = pass_la_triangle_mask(b, a, 0);
			a = pass_la_select(b, mask, pass_la_full_like(b, a, 0),
				a);
		}
		bd[0] = r - 2;
		bd[1] = r - 1;
		a = pass_la_bin(b, HOP_ADD, a, pass_la_identity(b, t, n, n), 2,
			bd);
	} else {
		a = pass_la_triangle(b, a, o->lower);
	}
	inv = invert_blocks(b, diagonal_blocks(b, a, bs), o->lower);
	return solve_blocks(b, a, rhs, inv, o);
}

/* SolveDirectly: row by row (left) or column by column (right) */
static uint32_t
solve_directly(PassEdit *b, uint32_t a, uint32_t rhs, const TsOpt *o)
{
	int64_t ad[PASS_LA_MAXR], bd[PASS_LA_MAXR], rs[2], re[2], as[2], ae[2];
	int64_t cs[2], ce[2], tmp, i, j;
	int nd = pass_b_dims(b, a, ad), back = o->trans ^ o->lower ^ !o->left;
	int which;
	int64_t m, n, sz = ad[nd - 1];
	uint32_t row, chunk, bch, dg;

	pass_b_dims(b, rhs, bd);
	m = bd[nd - 2];
	n = bd[nd - 1];
	a = pass_la_conj(b, a, o->conj);
	for (i = 0; i < sz; i++) {
		j = back ? i : sz - i - 1;
		rs[0] = o->left ? j : 0;
		rs[1] = o->left ? 0 : j;
		re[0] = o->left ? j + 1 : m;
		re[1] = o->left ? n : j + 1;
		row = pass_la_slice_minor(b, rhs, 2, rs, re);
		as[0] = j;
		as[1] = back ? 0 : j + 1;
		ae[0] = j + 1;
		ae[1] = back ? j : sz;
		if (o->trans ^ !o->left) {
			tmp = as[0], as[0] = as[1], as[1] = tmp;
			tmp = ae[0], ae[0] = ae[1], ae[1] = tmp;
		}
		chunk = pass_la_slice_minor(b, a, 2, as, ae);
		if (o->left) {
			which = o->trans ^ o->lower;
			cs[0] = which ? 0 : j + 1;
			cs[1] = 0;
			ce[0] = which ? j : m;
			ce[1] = n;
			bch = pass_la_slice_minor(b, rhs, 2, cs, ce);
			bch = pass_la_batch_dot(b, chunk, o->trans, bch, 0);
		} else {
			which = o->trans ^ !o->lower;
			cs[0] = 0;
			cs[1] = which ? 0 : j + 1;
			ce[0] = m;
			ce[1] = which ? j : n;
			bch = pass_la_slice_minor(b, rhs, 2, cs, ce);
			bch = pass_la_batch_dot(b, bch, 0, chunk, o->trans);
		}
		row = pass_la_bin(b, HOP_SUBTRACT, row, bch, 0, NULL);
		if (!o->unit) {
			cs[0] = cs[1] = j;
			ce[0] = ce[1] = j + 1;
			dg = pass_la_slice_minor(b, a, 2, cs, ce);
			row = pass_la_bin(b, HOP_DIVIDE, row, dg, 0, NULL);
		}
		rhs = pass_la_update_minor(b, rhs, row, 2, rs);
	}
	return rhs;
}

/* BuildTriangularSolve */
static uint32_t
build_solve(PassEdit *b, uint32_t a, uint32_t rhs, const TsOpt *o)
{
	int64_t d[PASS_LA_MAXR], batch = 1;
	int r = pass_b_dims(b, a, d), k;

	if (hlo_shape_elems(b->m, pass_b_shape(b, rhs)) == 0)
		return rhs;
	if (d[r - 1] == 1)
		return o->unit ? rhs : pass_la_bin(b, HOP_DIVIDE, rhs,
			pass_la_conj(b, a, o->conj), 0, NULL);
	for (k = 0; k < r - 2; k++)
		batch *= d[k];
	if (batch > TS_BLOCK / 16 && d[r - 1] < TS_BLOCK / 4)
		return solve_directly(b, a, rhs, o);
	return solve_inverting(b, a, rhs, o);
}

/* the computation's name: xla's, with NameUniquer's sanitizing */
static void
comp_name(HloModule *m, uint32_t sa, uint32_t sb, const TsOpt *o,
	const char *tr, HloBuf *nb)
{
	hlo_buf_puts(nb, "xla.triangular_solve_");
	pass_shape_name(m, sa, nb);
	hlo_buf_put(nb, "_", 1);
	pass_shape_name(m, sb, nb);
	hlo_buf_printf(nb, "_%s_%s_%s_%s", o->left ? "left" : "right",
		o->lower ? "lower" : "upper", tr, o->unit ? "unit" : "nonunit");
	hlo_buf_put(nb, "", 1);
}

static uint32_t
build(HloModule *m, uint32_t sa, uint32_t sb, const TsOpt *o, const char *tr)
{
	HloBuf name = {0};
	PassEdit b;
	uint32_t a, rhs;

	comp_name(m, hlo_shape_no_layout(m, sa), hlo_shape_no_layout(m, sb), o,
		tr, &name);
	pass_b_fresh(&b, m, pass_la_comp(m, name.buf));
	hlo_buf_free(&name);
	a = pass_la_param(&b, 0, sa, "a");
	rhs = pass_la_param(&b, 1, sb, "b");
	pass_b_root(&b, build_solve(&b, a, rhs, o));
	return b.c;
}

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);
	const HloShape *a, *b;

	(void)arg;
	if (in->op != HOP_TRISOLVE || in->nops != 2 ||
	    !(a = pass_la_operand(ed, i, 0)))
		return 0;
	b = hlo_sh(m, pass_b_shape(ed, pass_opnd(ed, i, 1)));
	return b->type == a->type && b->rank == a->rank && !b->dynmask;
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);
	uint32_t o[2], k[3], *slot, shape = in->shape;
	const char *tr = "NO_TRANSPOSE";
	TsOpt opt;
	int fresh;

	opt.left = hlo_attr_int(m, in, A_LEFT_SIDE, 0) != 0;
	opt.lower = hlo_attr_int(m, in, A_LOWER, 0) != 0;
	opt.unit = hlo_attr_int(m, in, A_UNIT_DIAGONAL, 0) != 0;
	if (hlo_attr_is(m, in, A_TRANSPOSE_A, "TRANSPOSE"))
		tr = "TRANSPOSE";
	else if (hlo_attr_is(m, in, A_TRANSPOSE_A, "ADJOINT"))
		tr = "ADJOINT";
	opt.trans = tr[0] != 'N';
	opt.conj = tr[0] == 'A';
	o[0] = pass_opnd(ed, i, 0);
	o[1] = pass_opnd(ed, i, 1);
	k[0] = hlo_shape_no_layout(m, pass_b_shape(ed, o[0])) + 1;
	k[1] = hlo_shape_no_layout(m, pass_b_shape(ed, o[1]));
	k[2] = (uint32_t)(opt.left | opt.lower << 1 | opt.unit << 2 |
		opt.trans << 3 | opt.conj << 4);
	slot = pass_cache_slot(arg, k, &fresh);
	if (fresh)
		*slot = build(m, pass_b_shape(ed, o[0]), pass_b_shape(ed, o[1]),
			&opt, tr);
	return pass_b_call(ed, *slot, shape, 2, o);
}

int
pass_triangular_solve_expander(HloModule *m, PassCtx *ctx)
{
	return pass_expand_cached(m, ctx, match, expand, 3);
}
