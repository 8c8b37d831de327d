/* algsimp_reorder.c: xla's use_associative_reordering rules of the
 * algebraic simplifier (off in xla's defaults and on every backend; the
 * action "algsimp:associative-reordering", threshold 2.0 as xla's
 * option has it): AssociativeReorderDotOperator moves a reverse, pad or
 * broadcast on one dot operand to its mirror on the other when the dot
 * gets cheaper.
 *
 * Exactness: a reverse only permutes the terms each output sums, so it
 * is taken for every type (the order of a sum is rounding hlopt accepts,
 * man/hlopt.1). Dropping a pad's zero terms or summing the other operand
 * before multiplying (broadcast) is exact only in wrapping integer
 * arithmetic: in floats 0 * inf is NaN, a * b + a * c is not a * (b + c)
 * for an infinite a or a negative a with b = -c (+0 against -0). hlopt
 * takes those two for integer dots only, a pad only with a zero padding
 * value (xla takes any type and any padding value), a broadcast only
 * without batch dims and with the operands of the dot's type (a reduce in
 * a narrower operand type would wrap where the dot does not). */
#include <string.h>

#include "algsimp.h"
#include "build.h"

/* xla's HloCostAnalysis::GetDotFlops: 2 * output elements * the product
 * of the lhs's contracting dims */
static double
dot_flops(Alg *a, uint32_t lhs_shape, uint32_t out_shape,
	const int64_t *lc, uint32_t nlc)
{
	const HloShape *l = &a->m->shapes[lhs_shape];
	double w = 1;
	uint32_t k;

	for (k = 0; k < nlc; k++)
		w *= (double)a->m->ints[l->dims + lc[k]];
	return 2.0 * (double)hlo_shape_elems(a->m, out_shape) * w;
}

static int
reorderable(int op)
{
	return op == HOP_BROADCAST || op == HOP_PAD || op == HOP_REVERSE;
}

/* the reverse of from (an operand of the dot) becomes a reverse of the
 * matching contracting dims of to; the rest stays on from's operand.
 * Sets *un (from's side) and *re (to's side); 0 if nothing moves */
static int
move_reverse(Alg *a, uint32_t from, uint32_t to, const int64_t *fwd,
	uint32_t *un, uint32_t *re, double *mult)
{
	uint32_t nd, k, nr = 0, nu = 0;
	const int64_t *d = alg_ints_attr(a, from, A_DIMENSIONS, &nd);
	int64_t *rd = alg_tmp(a, ((size_t)nd + 1) * 8);
	int64_t *ud = alg_tmp(a, ((size_t)nd + 1) * 8);

	for (k = 0; k < nd; k++) {
		if (fwd[d[k]] >= 0)
			rd[nr++] = fwd[d[k]];
		else
			ud[nu++] = d[k];
	}
	if (!nr)
		return 0;
	*re = alg_mk_reverse(a, to, rd, nr);
	*un = op0(a, from);
	if (nu) {
		*mult = 2.0;
		*un = alg_mk_reverse(a, *un, ud, nu);
	}
	return 1;
}

/* the padding of from's contracting dims becomes a strided slice of the
 * matching dims of to */
static int
move_pad(Alg *a, uint32_t from, uint32_t to, const int64_t *bwd,
	uint32_t *un, uint32_t *re, double *mult, int build)
{
	int rt = rank(a, to), rf = rank(a, from), q, make = 0, rest = 0;
	uint32_t np;
	int64_t *cfg = alg_ints_copy(a, from, A_PADDING, &np);
	int64_t *st = alg_tmp(a, ((size_t)rt + 1) * 8);
	int64_t *li = alg_tmp(a, ((size_t)rt + 1) * 8);
	int64_t *sd = alg_tmp(a, ((size_t)rt + 1) * 8);

	if (np != 3u * rf || !alg_is_all(a, opnd(a, from, 1), 0))
		return 0;
	for (q = 0; q < rt; q++) {
		int64_t *c = bwd[q] >= 0 ? cfg + 3 * bwd[q] : NULL;

		st[q] = 0;
		li[q] = dim(a, to, q);
		sd[q] = 1;
		if (!c || (!(c[0] > 0) && !(c[1] > 0) && !(c[2] > 0)))
			continue;
		if (c[0] < 0 || c[1] < 0)
			return 0;	/* xla would make a slice past the end */
		make = 1;
		st[q] += c[0];
		li[q] -= c[1];
		sd[q] += c[2];
		c[0] = c[1] = c[2] = 0;
	}
	if (!make)
		return 0;
	for (q = 0; q < 3 * rf; q++)
		rest |= cfg[q] != 0;
	if (rest)
		*mult = 2.0;
	if (!build)
		return 1;
	*re = alg_mk_slice_infer(a, to, st, li, sd);
	*un = op0(a, from);
	if (rest)
		*un = alg_mk_pad_infer(a, *un, opnd(a, from, 1), cfg);
	return 1;
}

/* dim q of broadcast b comes from its operand */
static int
bcast_kept(Alg *a, uint32_t b, int64_t q)
{
	uint32_t nb;
	const int64_t *bd = alg_ints_attr(a, b, A_DIMENSIONS, &nb);

	return hlo_ints_has(bd, nb, q);
}

/* the contracting dims from's broadcast adds become an add-reduce of the
 * matching dims of to; nd gets the new contracting dims */
static int
move_bcast(Alg *a, uint32_t from, uint32_t to, int lhs_to_rhs,
	const AlgDnums *d, AlgDnums *nd, uint32_t *un, uint32_t *re,
	double *mult, int build)
{
	int rf = rank(a, from), rt = rank(a, to), q, nk = 0, fsh = 0;
	uint32_t nb, k, nrd = 0, x = op0(a, from), cmp, m = 0;
	const int64_t *bd = alg_ints_attr(a, from, A_DIMENSIONS, &nb);
	const int64_t *fc = lhs_to_rhs ? d->lc : d->rc;
	const int64_t *tc = lhs_to_rhs ? d->rc : d->lc;
	int64_t *pre = alg_tmp(a, ((size_t)rf + 1) * 8);	/* bcast dim ->
				 * operand dim, -1 */
	int64_t *del = alg_tmp(a, ((size_t)rf + 1) * 8);	/* deleted? */
	int64_t *fmap = alg_tmp(a, ((size_t)rf + 1) * 8);	/* bcast dim ->
				 * dim of *un */
	int64_t *tmap = alg_tmp(a, ((size_t)rt + 1) * 8);
	int64_t *rd = alg_tmp(a, ((size_t)rt + 1) * 8);
	int64_t *nsh = alg_tmp(a, ((size_t)rf + 1) * 8);
	int64_t *ndims = alg_tmp(a, ((size_t)nb + 1) * 8);
	int64_t *zc = alg_tmp(a, ((size_t)d->nlc + 1) * 8);
	int64_t *oc = alg_tmp(a, ((size_t)d->nlc + 1) * 8);

	if (d->nlb || !bd || nb != (uint32_t)rank(a, x))
		return 0;
	for (q = 0; q < rf; q++)
		pre[q] = -1, del[q] = 0;
	for (k = 0; k < nb; k++)
		pre[bd[k]] = k;
	for (k = 0; k < d->nlc; k++)
		if (pre[fc[k]] < 0) {
			del[fc[k]] = 1;
			rd[nrd++] = tc[k];
		}
	if (!nrd)
		return 0;
	for (q = 0; q < rf; q++) {
		fmap[q] = del[q] ? -1 : q - fsh;
		fsh += (int)del[q];
		if (!del[q])
			nsh[nk++] = dim(a, from, q);
	}
	if (nk != rank(a, x))
		*mult = 2.0;
	if (!build)
		return 1;
	*un = x;
	if (nk != rank(a, x)) {
		/* still a broadcast, into from's shape less the deleted dims */
		for (k = 0; k < nb; k++)
			ndims[k] = fmap[bd[k]];
		*un = alg_mk_bcast(a, alg_shp(a, ety(a, x), nk, nsh,
			shape_of(a, x)), x, ndims, nb);
	} else {
		for (q = 0; q < rf; q++)
			fmap[q] = pre[q];
	}
	for (q = 0, fsh = 0; q < rt; q++) {
		int r = 0;

		for (k = 0; k < nrd; k++)
			r |= rd[k] == q;
		tmap[q] = r ? -1 : q - fsh;
		fsh += r;
	}
	for (k = 0; k < d->nlc; k++) {
		if (del[fc[k]])
			continue;
		zc[m] = fmap[fc[k]];
		oc[m++] = tmap[tc[k]];
	}
	nd->lb = nd->rb = NULL;
	nd->nlb = nd->nrb = 0;
	nd->lc = lhs_to_rhs ? zc : oc;
	nd->rc = lhs_to_rhs ? oc : zc;
	nd->nlc = nd->nrc = m;
	cmp = pass_b_scalar_comp(a->m, "scalar_add_computation", HOP_ADD,
		ety(a, to), "scalar_lhs", "scalar_rhs");
	{
		int64_t *ks = alg_tmp(a, ((size_t)rt + 1) * 8);
		int nks = 0;

		for (q = 0; q < rt; q++)
			if (tmap[q] >= 0)
				ks[nks++] = dim(a, to, q);
		*re = alg_mk_reduce(a, alg_shp(a, ety(a, to), nks, ks,
			shape_of(a, to)), to, alg_mk_scalar_i(a, ety(a, to), 0),
			rd, nrd, cmp);
	}
	return 1;
}

/* xla's AssociativeReorderDotOperator: a reverse, pad or broadcast on the
 * lhs (else the rhs) of dot i moved to the other operand's contracting
 * dims (see the head of the file for hlopt's conditions) */
static int
reorder_operator(Alg *a, uint32_t i)
{
	uint32_t l = op0(a, i), r = opnd(a, i, 1), from, to, un = 0, re = 0;
	uint32_t nd, k, ops[2];
	int lhs_to_rhs, op, t = ety(a, i), ok = 0, q;
	double mult = 1.0, oldf, newf;
	int64_t *fwd, *bwd;
	AlgDnums d, n;

	if (reorderable(opc(a, l)))
		lhs_to_rhs = 1, from = l, to = r;
	else if (reorderable(opc(a, r)))
		lhs_to_rhs = 0, from = r, to = l;
	else
		return 0;
	op = opc(a, from);
	alg_dnums(a, i, &d);
	n = d;
	fwd = alg_tmp(a, ((size_t)rank(a, from) + 1) * 8);
	bwd = alg_tmp(a, ((size_t)rank(a, to) + 1) * 8);
	for (q = 0; q < rank(a, from); q++)
		fwd[q] = -1;
	for (q = 0; q < rank(a, to); q++)
		bwd[q] = -1;
	for (k = 0; k < d.nlc; k++) {
		int64_t fi = lhs_to_rhs ? d.lc[k] : d.rc[k];
		int64_t ti = lhs_to_rhs ? d.rc[k] : d.lc[k];

		fwd[fi] = ti;
		bwd[ti] = fi;
	}
	if (op == HOP_REVERSE) {
		if ((double)alg_elems(a, from) / (double)alg_elems(a, to) <
		    a->o->assoc_threshold ||
		    !move_reverse(a, from, to, fwd, &un, &re, &mult))
			return 0;
	} else {
		/* exact in wrapping integer arithmetic only */
		if (!alg_t_int(t) || !alg_t_int(ety(a, l)) ||
		    !alg_t_int(ety(a, r)))
			return 0;
		if (op == HOP_PAD)
			ok = move_pad(a, from, to, bwd, &un, &re, &mult, 0);
		else
			ok = ety(a, l) == t && ety(a, r) == t &&
				move_bcast(a, from, to, lhs_to_rhs, &d, &n, &un,
				&re, &mult, 0);
		if (!ok)
			return 0;
		/* xla's flops test, on the shapes before anything is built:
		 * the output keeps its shape; the new lhs contracts over
		 * from's contracting dims but for the moved ones (a pad's
		 * become its operand's size, a broadcast's disappear) */
		oldf = dot_flops(a, shape_of(a, l), shape_of(a, i), d.lc, d.nlc);
		newf = 2.0 * (double)alg_elems(a, i);
		for (k = 0; k < d.nlc; k++) {
			int64_t fi = lhs_to_rhs ? d.lc[k] : d.rc[k];
			const int64_t *c = op == HOP_PAD ?
				alg_ints_attr(a, from, A_PADDING, &nd) : NULL;

			if (op == HOP_PAD)
				newf *= (double)(c[3 * fi] > 0 ||
					c[3 * fi + 1] > 0 || c[3 * fi + 2] > 0 ?
					dim(a, op0(a, from), fi) : dim(a, from, fi));
			else if (bcast_kept(a, from, fi))
				newf *= (double)dim(a, from, fi);
		}
		if (!(oldf / newf > mult * a->o->assoc_threshold))
			return 0;
		if (op == HOP_PAD)
			move_pad(a, from, to, bwd, &un, &re, &mult, 1);
		else
			move_bcast(a, from, to, lhs_to_rhs, &d, &n, &un, &re,
				&mult, 1);
	}
	ops[0] = lhs_to_rhs ? un : re;
	ops[1] = lhs_to_rhs ? re : un;
	return alg_rep(a, i, alg_mk_dot(a, i, ops[0], ops[1], &n));
}

/* the use_associative_reordering rules of xla's HandleDot, in its order
 * (AssociativeReorderNestedDot is not done) */
int
alg_dot_assoc(Alg *a, uint32_t i)
{
	if (!a->o->assoc_reorder)
		return 0;
	return reorder_operator(a, i);
}
