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

/* AssociativeReorderNestedDot: dimension numbers under construction */
typedef struct {
	AlgDnums d;
	uint32_t cap;
} Dn;

static void
dn_init(Alg *a, Dn *n, uint32_t cap)
{
	memset(n, 0, sizeof *n);
	n->cap = cap;
	n->d.lb = alg_tmp(a, ((size_t)cap + 1) * 8);
	n->d.rb = alg_tmp(a, ((size_t)cap + 1) * 8);
	n->d.lc = alg_tmp(a, ((size_t)cap + 1) * 8);
	n->d.rc = alg_tmp(a, ((size_t)cap + 1) * 8);
}

static void
dn_copy(Dn *n, const AlgDnums *d)
{
	memcpy(n->d.lb, d->lb, d->nlb * 8u);
	memcpy(n->d.rb, d->rb, d->nrb * 8u);
	memcpy(n->d.lc, d->lc, d->nlc * 8u);
	memcpy(n->d.rc, d->rc, d->nrc * 8u);
	n->d.nlb = n->d.nrb = d->nlb;
	n->d.nlc = n->d.nrc = d->nlc;
}

/* a batch (c 0) or contracting (c 1) pair; 0 if it does not fit */
static int
dn_add(Dn *n, int c, int64_t l, int64_t r)
{
	uint32_t *k = c ? &n->d.nlc : &n->d.nlb;

	if (*k >= n->cap || l < 0 || r < 0)
		return 0;
	(c ? n->d.lc : n->d.lb)[*k] = l;
	(c ? n->d.rc : n->d.rb)[*k] = r;
	(*k)++;
	if (c)
		n->d.nrc = n->d.nlc;
	else
		n->d.nrb = n->d.nlb;
	return 1;
}

/* the output dims of a dot with dims d of operands of dims ld, rd
 * (batch, lhs free, rhs free); returns the rank */
static int
dot_dims(const int64_t *ld, int rl, const int64_t *rd, int rr,
	const AlgDnums *d, int64_t *out)
{
	uint32_t k;
	int q, n = 0;

	for (k = 0; k < d->nlb; k++)
		out[n++] = ld[d->lb[k]];
	for (q = 0; q < rl; q++)
		if (!hlo_ints_has(d->lb, d->nlb, q) &&
		    !hlo_ints_has(d->lc, d->nlc, q))
			out[n++] = ld[q];
	for (q = 0; q < rr; q++)
		if (!hlo_ints_has(d->rb, d->nrb, q) &&
		    !hlo_ints_has(d->rc, d->nrc, q))
			out[n++] = rd[q];
	return n;
}

/* xla's GetDotFlops on dims: 2 * output elements * the lhs's
 * contracting dims */
static double
flops_dims(const int64_t *ld, const int64_t *od, int ro, const AlgDnums *d)
{
	double f = 2.0;
	uint32_t k;
	int q;

	for (q = 0; q < ro; q++)
		f *= (double)od[q];
	for (k = 0; k < d->nlc; k++)
		f *= (double)ld[d->lc[k]];
	return f;
}

/* the nested dot's operands: inner = dot(A, B) is the lhs of outer =
 * dot(inner, C) (olhs), or outer = dot(A, inner) with inner = dot(B, C);
 * ab, ac, bc: the dimension numbers between each pair */
typedef struct {
	uint32_t outer, inner, A, B, C;
	int olhs;
	AlgDnums di, dout;
	int64_t *fl, *fr;	/* inner's dims -> its lhs's, rhs's */
	Dn ab, ac, bc;
} Nest;

/* ab, ac and bc from the outer dot's batch and contracting dims; 0: no
 * rewrite, 2: a batch dim of inner is contracted (xla's
 * kStopRewrites) */
static int
nest_pairs(Alg *a, Nest *n)
{
	const AlgDnums *o = &n->dout;
	uint32_t k, cap = (uint32_t)(rank(a, n->A) + rank(a, n->B) +
		rank(a, n->C));
	int q, ri = rank(a, n->inner);
	int64_t ii, oi, mi, *map;
	Dn *t;

	dn_init(a, &n->ab, cap);
	dn_init(a, &n->ac, cap);
	dn_init(a, &n->bc, cap);
	dn_copy(n->olhs ? &n->ab : &n->bc, &n->di);
	for (k = 0; k < o->nlb; k++) {
		ii = n->olhs ? o->lb[k] : o->rb[k];
		oi = n->olhs ? o->rb[k] : o->lb[k];
		for (q = 0; q < 2; q++) {
			map = q ? n->fr : n->fl;
			if (ii < 0 || ii >= ri || (mi = map[ii]) < 0)
				continue;
			t = n->olhs ? (q ? &n->bc : &n->ac) :
				(q ? &n->ac : &n->ab);
			if (!dn_add(t, 0, n->olhs ? mi : oi,
			    n->olhs ? oi : mi))
				return 0;
		}
	}
	for (k = 0; k < o->nlc; k++) {
		ii = n->olhs ? o->lc[k] : o->rc[k];
		oi = n->olhs ? o->rc[k] : o->lc[k];
		if (ii < 0 || ii >= ri)
			return 0;
		if (n->fl[ii] >= 0 && n->fr[ii] >= 0)
			return 2;
		map = n->fl[ii] >= 0 ? n->fl : n->fr;
		t = n->olhs ? (map == n->fl ? &n->ac : &n->bc) :
			(map == n->fl ? &n->ab : &n->ac);
		if (!dn_add(t, 1, n->olhs ? map[ii] : oi,
		    n->olhs ? oi : map[ii]))
			return 0;
	}
	return 1;
}

/* the new outer dot's dimension numbers from the pairs (ab, ac) or (ac,
 * bc) through the new inner dot's maps ml, mr */
static int
nest_outer_dnums(Nest *n, const int64_t *ml, const int64_t *mr, Dn *no)
{
	const AlgDnums *pr;
	int p, c;
	uint32_t k, cnt;
	int64_t nii, oth, li, ri;

	for (p = 0; p < 2; p++) {
		pr = n->olhs ? (p ? &n->ac.d : &n->ab.d) :
			(p ? &n->bc.d : &n->ac.d);
		for (c = 0; c < 2; c++) {
			cnt = c ? pr->nlc : pr->nlb;
			for (k = 0; k < cnt; k++) {
				const int64_t *l = c ? pr->lc : pr->lb;
				const int64_t *r = c ? pr->rc : pr->rb;

				nii = n->olhs ? r[k] : l[k];
				oth = n->olhs ? l[k] : r[k];
				li = n->olhs ? oth : (p ? mr : ml)[nii];
				ri = n->olhs ? (p ? mr : ml)[nii] : oth;
				if (!c && hlo_ints_has(no->d.lb, no->d.nlb,
				    li))
					continue;
				if (!dn_add(no, c, li, ri))
					return 0;
			}
		}
	}
	return 1;
}

/* outer dim q's position in the new outer dot (xla's permutation), -1
 * if a map says nothing */
static int64_t
nest_perm(Alg *a, const Nest *n, int q, const int64_t *mol, const int64_t *mor,
	const int64_t *ml, const int64_t *mr, const int64_t *mlo,
	const int64_t *mro)
{
	const int64_t *m_inner = n->olhs ? mol : mor;
	const int64_t *m_other = n->olhs ? mor : mol;
	const int64_t *m_in_new_other = n->olhs ? n->fl : n->fr;
	const int64_t *m_other_ni = n->olhs ? mr : ml;
	const int64_t *m_ni_no = n->olhs ? mro : mlo;
	const int64_t *m_nother_no = n->olhs ? mlo : mro;
	int64_t ii, x;

	if (m_other[q] >= 0) {
		x = m_other_ni[m_other[q]];
		return x >= 0 ? m_ni_no[x] : -1;
	}
	if ((ii = m_inner[q]) < 0 || ii >= rank(a, n->inner))
		return -1;
	if (m_in_new_other[ii] >= 0)
		return m_nother_no[m_in_new_other[ii]];
	x = n->olhs ? n->fr[ii] : n->fl[ii];
	if (x < 0)
		return -1;
	x = n->olhs ? ml[x] : mr[x];
	return x >= 0 ? m_ni_no[x] : -1;
}

/* xla's AssociativeReorderNestedDot: dot(dot(A, B), C) =>
 * dot(A, dot(B, C)) and dot(A, dot(B, C)) => dot(dot(A, B), C), then a
 * transpose back to the old dim order, when xla's flop estimate drops
 * by the threshold. Exact only in wrapping integer arithmetic (a
 * product's overflow to inf, 0 * inf and -0 in floats), so hlopt takes
 * it for A, B, C and both dots of one integer type; xla takes any.
 * Returns 0, 1 rewritten, or 2 when xla stops trying dot rules (a
 * batch dim of the inner dot is contracted by the outer one) */
static int
reorder_nested(Alg *a, uint32_t i)
{
	Nest n;
	Dn no;
	uint32_t nil, nir, nol, nor, ni, nout, cap;
	int q, rl, rr, rni, rno, t = ety(a, i), r;
	int64_t *ml, *mr, *mlo, *mro, *mol, *mor, *nid, *nod, *perm, *ld;
	uint8_t *seen;
	const AlgDnums *nd;
	double oldf, newf;

	memset(&n, 0, sizeof n);
	n.outer = i;
	if (is_op(a, op0(a, i), HOP_DOT))
		n.olhs = 1, n.inner = op0(a, i);
	else if (is_op(a, op1(a, i), HOP_DOT))
		n.olhs = 0, n.inner = op1(a, i);
	else
		return 0;
	if (nops(a, n.inner) != 2)
		return 0;
	n.A = n.olhs ? op0(a, n.inner) : op0(a, i);
	n.B = n.olhs ? op1(a, n.inner) : op0(a, n.inner);
	n.C = n.olhs ? op1(a, i) : op1(a, n.inner);
	if (is_tuple(a, n.A) || is_tuple(a, n.B) || is_tuple(a, n.C))
		return 0;
	alg_dnums(a, n.inner, &n.di);
	alg_dnums(a, i, &n.dout);
	if (n.di.nlb != n.di.nrb || n.di.nlc != n.di.nrc)
		return 0;
	n.fl = alg_tmp(a, ((size_t)rank(a, n.inner) + 1) * 8);
	n.fr = alg_tmp(a, ((size_t)rank(a, n.inner) + 1) * 8);
	alg_dot_from_maps(a, n.inner, &n.di, n.fl, n.fr);
	if ((r = nest_pairs(a, &n)) != 1)
		return r;
	/* hlopt's condition: one integer type throughout */
	if (!alg_t_int(t) || ety(a, n.inner) != t || ety(a, n.A) != t ||
	    ety(a, n.B) != t || ety(a, n.C) != t)
		return 0;
	nil = n.olhs ? n.B : n.A;
	nir = n.olhs ? n.C : n.B;
	rl = rank(a, nil);
	rr = rank(a, nir);
	ml = alg_tmp(a, ((size_t)rl + 1) * 8);
	mr = alg_tmp(a, ((size_t)rr + 1) * 8);
	nid = alg_tmp(a, ((size_t)rl + rr + 1) * 8);
	nd = n.olhs ? &n.bc.d : &n.ab.d;
	alg_dot_to_maps(nd, rl, rr, ml, mr);
	rni = dot_dims(dims(a, nil), rl, dims(a, nir), rr, nd, nid);
	cap = (uint32_t)(rank(a, n.A) + rni + 1);
	dn_init(a, &no, cap);
	if (!nest_outer_dnums(&n, ml, mr, &no))
		return 0;
	/* the new outer: A and the new inner, or the new inner and C */
	nod = alg_tmp(a, ((size_t)cap + rank(a, n.C) + 1) * 8);
	ld = n.olhs ? (int64_t *)dims(a, n.A) : nid;
	rno = n.olhs ? dot_dims(dims(a, n.A), rank(a, n.A), nid, rni, &no.d, nod) :
		dot_dims(nid, rni, dims(a, n.C), rank(a, n.C), &no.d, nod);
	if (rno != rank(a, i))
		return 0;
	oldf = dot_flops(a, shape_of(a, op0(a, n.inner)), shape_of(a, n.inner),
		n.di.lc, n.di.nlc) + dot_flops(a, shape_of(a, op0(a, i)),
		shape_of(a, i), n.dout.lc, n.dout.nlc);
	newf = flops_dims(dims(a, nil), nid, rni, nd) +
		flops_dims(ld, dims(a, i), rank(a, i), &no.d);
	if (!(oldf / newf > a->o->assoc_threshold))
		return 0;
	/* the transpose back to the outer dot's dim order */
	nol = n.olhs ? n.A : HLO_NONE;
	nor = n.olhs ? HLO_NONE : n.C;
	mol = alg_tmp(a, ((size_t)rank(a, i) + 1) * 8);
	mor = alg_tmp(a, ((size_t)rank(a, i) + 1) * 8);
	mlo = alg_tmp(a, ((size_t)(n.olhs ? rank(a, n.A) : rni) + 1) * 8);
	mro = alg_tmp(a, ((size_t)(n.olhs ? rni : rank(a, n.C)) + 1) * 8);
	perm = alg_tmp(a, ((size_t)rank(a, i) + 1) * 8);
	seen = alg_tmp(a, (size_t)rank(a, i) + 1);
	memset(seen, 0, (size_t)rank(a, i) + 1);
	alg_dot_from_maps(a, i, &n.dout, mol, mor);
	alg_dot_to_maps(&no.d, n.olhs ? rank(a, n.A) : rni,
		n.olhs ? rni : rank(a, n.C), mlo, mro);
	for (q = 0; q < rno; q++) {
		perm[q] = nest_perm(a, &n, q, mol, mor, ml, mr, mlo, mro);
		if (perm[q] < 0 || perm[q] >= rno || seen[perm[q]] ||
		    nod[perm[q]] != dim(a, i, q))
			return 0;
		seen[perm[q]] = 1;
	}
	ni = alg_mk_dot(a, i, nil, nir, nd);
	nout = alg_mk_dot(a, i, n.olhs ? nol : ni, n.olhs ? ni : nor, &no.d);
	if (!hlo_ints_ascending(perm, (uint32_t)rno))
		nout = alg_mk_transpose(a, shape_of(a, i), nout, perm);
	return alg_rep(a, i, nout);
}

/* the use_associative_reordering rules of xla's HandleDot, in its
 * order: 1 rewritten, 2 no other rule of HandleDot may fire */
int
alg_dot_assoc(Alg *a, uint32_t i)
{
	int r;

	if (!a->o->assoc_reorder)
		return 0;
	if ((r = reorder_nested(a, i)))
		return r;
	return reorder_operator(a, i);
}
