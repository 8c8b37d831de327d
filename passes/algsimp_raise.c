/* algsimp_raise.c: xla's raise_slice_and_reduce_through_dot rules of the
 * algebraic simplifier (off in xla's defaults and on every backend; the
 * action "algsimp:raise-slice-and-reduce-through-dot", threshold 2.0 as
 * xla's option has it), and the dimension maps of a dot they share with
 * AssociativeReorderNestedDot (algsimp_reorder.c).
 *
 * HandleSlice: slice(dot(A, B)) => dot(slice(A), slice(B)), each operand
 * sliced along its dims that reach the output (a batch dim on both).
 * Exact for every type: each remaining output element is the same sum of
 * the same products.
 *
 * HandleReduce: reduce(dot(A, B), 0, add) over output dims =>
 * dot(reduce(A), reduce(B)), each operand add-reduced over its dims the
 * reduce removes, when xla's flop estimate drops by the threshold. This
 * is distributivity: in floats 0 * inf is NaN where a sum of products
 * need not be, overflow and -0 differ, so hlopt takes it only in
 * wrapping integer arithmetic, with the reduce, the dot and both
 * operands of one integer type (a reduce in a narrower operand type
 * would wrap where the dot does not); xla takes any type. */
#include <string.h>

#include "algsimp.h"

/* xla's ConstructToDotMaps: ml[q] (mr[q]) is the output dim of the lhs
 * (rhs) dim q of a dot with dims d, -1 for a contracting dim */
void
alg_dot_to_maps(const AlgDnums *d, int rl, int rr, int64_t *ml, int64_t *mr)
{
	int64_t o = 0;
	uint32_t k;
	int q;

	for (q = 0; q < rl; q++)
		ml[q] = -1;
	for (q = 0; q < rr; q++)
		mr[q] = -1;
	for (k = 0; k < d->nlb; k++, o++)
		ml[d->lb[k]] = mr[d->rb[k]] = o;
	for (q = 0; q < rl; q++)
		if (!hlo_ints_has(d->lb, d->nlb, q) &&
		    !hlo_ints_has(d->lc, d->nlc, q))
			ml[q] = o++;
	for (q = 0; q < rr; q++)
		if (!hlo_ints_has(d->rb, d->nrb, q) &&
		    !hlo_ints_has(d->rc, d->nrc, q))
			mr[q] = o++;
}

/* xla's ConstructFromDotMaps: fl[o] (fr[o]) is the lhs (rhs) dim output
 * dim o of dot i comes from, -1 if none */
void
alg_dot_from_maps(Alg *a, uint32_t i, const AlgDnums *d, int64_t *fl,
	int64_t *fr)
{
	int rl = rank(a, op0(a, i)), rr = rank(a, op1(a, i)), ro = rank(a, i);
	int64_t *ml = alg_tmp(a, ((size_t)rl + 1) * 8);
	int64_t *mr = alg_tmp(a, ((size_t)rr + 1) * 8);
	int q;

	alg_dot_to_maps(d, rl, rr, ml, mr);
	for (q = 0; q < ro; q++)
		fl[q] = fr[q] = -1;
	for (q = 0; q < rl; q++)
		if (ml[q] >= 0 && ml[q] < ro)
			fl[ml[q]] = q;
	for (q = 0; q < rr; q++)
		if (mr[q] >= 0 && mr[q] < ro)
			fr[mr[q]] = q;
}

/* the slice of operand x of a dot (map: x's dims to output dims) that
 * slice i of the dot takes; *cut: it takes less than all of x. Returns
 * the true rank (dims not of size 1) of the sliced operand */
static int
operand_slice(Alg *a, uint32_t x, const int64_t *map, const int64_t *p,
	int64_t *st, int64_t *li, int64_t *sd, int *cut)
{
	int q, tr = 0;
	int64_t n;

	*cut = 0;
	for (q = 0; q < rank(a, x); q++) {
		int64_t o = map[q];

		st[q] = o >= 0 ? p[3 * o] : 0;
		li[q] = o >= 0 ? p[3 * o + 1] : dim(a, x, q);
		sd[q] = o >= 0 ? p[3 * o + 2] : 1;
		*cut |= st[q] != 0 || li[q] < dim(a, x, q) || sd[q] != 1;
		n = li[q] > st[q] ? (li[q] - st[q] + sd[q] - 1) / sd[q] : 0;
		tr += n != 1;
	}
	return tr;
}

/* a sparse operand's metadata sliced as the operand (st, li, sd) is,
 * but whole along the sparse dim, which is contracting and so never
 * sliced */
static uint32_t
meta_slice(Alg *a, uint32_t meta, const HloSparsity *sp, const int64_t *st,
	const int64_t *li, const int64_t *sd)
{
	int q, r = rank(a, meta);
	int64_t *ml = alg_tmp(a, ((size_t)r + 1) * 8);

	for (q = 0; q < r; q++)
		ml[q] = q == sp->dim ? dim(a, meta, q) : li[q];
	return alg_mk_slice_infer(a, meta, st, ml, sd);
}

/* slice(dot(A, B)) => dot(slice(A), slice(B)) (see the head of the
 * file); as xla, only when both sliced operands keep a free dim (else
 * the dot becomes a multiply, which this would undo) */
int
alg_slice_through_dot(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i), l, r, n;
	const int64_t *p;
	int64_t *ml, *mr, *ls, *ll, *lsd, *rs, *rl, *rsd;
	int rkl, rkr, cl, cr, tl, tr, ns, k;
	HloSparsity sp[2];
	uint32_t meta[2];
	AlgDnums d;

	if (a->lay || !a->o->raise_slice_reduce || !is_op(a, x, HOP_DOT) ||
	    (ns = hlo_dot_sparsity(a->m, INS(a, x), sp)) < 0 ||
	    nops(a, x) != 2u + (uint32_t)ns)
		return 0;
	l = op0(a, x);
	r = op1(a, x);
	p = alg_ints_attr(a, i, A_SLICE, &n);
	if (!p || n != 3u * rank(a, i) || is_tuple(a, l) || is_tuple(a, r))
		return 0;
	alg_dnums(a, x, &d);
	if (d.nlb != d.nrb || d.nlc != d.nrc)
		return 0;
	rkl = rank(a, l);
	rkr = rank(a, r);
	ml = alg_tmp(a, ((size_t)rkl + 1) * 8);
	mr = alg_tmp(a, ((size_t)rkr + 1) * 8);
	ls = alg_tmp(a, ((size_t)rkl + 1) * 24);
	ll = ls + rkl + 1;
	lsd = ll + rkl + 1;
	rs = alg_tmp(a, ((size_t)rkr + 1) * 24);
	rl = rs + rkr + 1;
	rsd = rl + rkr + 1;
	alg_dot_to_maps(&d, rkl, rkr, ml, mr);
	tl = operand_slice(a, l, ml, p, ls, ll, lsd, &cl);
	tr = operand_slice(a, r, mr, p, rs, rl, rsd, &cr);
	/* DotHasOnlyBatchAndContractingOnOneOperand on the true ranks */
	if ((int)(d.nlb + d.nlc) == tl || (int)(d.nrb + d.nrc) == tr)
		return 0;
	for (k = 0; k < ns; k++)
		meta[k] = sp[k].index ? (cr ? meta_slice(a, opnd(a, x, 2 + k),
			&sp[k], rs, rl, rsd) : opnd(a, x, 2 + k)) :
			(cl ? meta_slice(a, opnd(a, x, 2 + k), &sp[k], ls, ll,
			lsd) : opnd(a, x, 2 + k));
	if (cl)
		l = alg_mk_slice_infer(a, l, ls, ll, lsd);
	if (cr)
		r = alg_mk_slice_infer(a, r, rs, rl, rsd);
	return alg_rep(a, i, alg_mk_dot_meta(a, x, l, r, &d, ns ? sp : NULL,
		ns ? meta : NULL));
}

/* xla's GetReduceFlops: output elements times (reduced elements - 1) */
static double
reduce_flops(Alg *a, uint32_t x, const int64_t *rd, uint32_t nrd)
{
	double n = 1, out = (double)alg_elems(a, x);
	uint32_t k;

	for (k = 0; k < nrd; k++) {
		n *= (double)dim(a, x, (int)rd[k]);
		out /= (double)dim(a, x, (int)rd[k]);
	}
	return nrd && n > 0 ? out * (n - 1) : 0;
}

/* the dims of operand x (from: output dim -> x's dim) that reduce i
 * removes; their count in *nrd, the kept contracting dims renumbered
 * into nc (count returned) */
static uint32_t
reduced_dims(Alg *a, uint32_t x, const int64_t *from, const int64_t *d,
	uint32_t nd, const int64_t *c, uint32_t ncx, int64_t *rd,
	uint32_t *nrd, int64_t *nc)
{
	uint32_t k, m = 0;
	int q, kept = 0;

	*nrd = 0;
	for (k = 0; k < nd; k++)
		if (from[d[k]] >= 0)
			rd[(*nrd)++] = from[d[k]];
	for (q = 0; q < rank(a, x); q++) {
		if (hlo_ints_has(rd, *nrd, q))
			continue;
		if (hlo_ints_has(c, ncx, q))
			nc[m++] = kept;
		kept++;
	}
	return m;
}

/* the add-reduce of x over rd (x itself when rd is empty) */
static uint32_t
mk_sum(Alg *a, uint32_t x, uint32_t init, const int64_t *rd, uint32_t nrd,
	uint32_t comp)
{
	int64_t *ks = alg_tmp(a, ((size_t)rank(a, x) + 1) * 8);
	int q, n = 0;

	if (!nrd)
		return x;
	for (q = 0; q < rank(a, x); q++)
		if (!hlo_ints_has(rd, nrd, q))
			ks[n++] = dim(a, x, q);
	return alg_mk_reduce(a, alg_shp(a, ety(a, x), n, ks, shape_of(a, x)),
		x, init, rd, nrd, comp);
}

/* reduce(dot(A, B), 0, add) => dot(reduce(A), reduce(B)) (see the head
 * of the file); the dot has no batch dims */
int
alg_reduce_through_dot(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i), init = opnd(a, i, 1), comp = called(a, i);
	uint32_t l, r, nd, nrl, nrr, ncl, ncr, k;
	const int64_t *d = alg_ints_attr(a, i, A_DIMENSIONS, &nd);
	int64_t *fl, *fr, *rdl, *rdr, *lc, *rc;
	int t = ety(a, i), ro;
	double oldf, newf, w = 1;
	AlgDnums dn, nn;

	if (a->lay || !a->o->raise_slice_reduce || nops(a, i) != 2 ||
	    !is_op(a, x, HOP_DOT) || nops(a, x) != 2 || !d ||
	    !alg_scalar_zero(a, init) || alg_reduce_kind(a, comp) != HOP_ADD)
		return 0;
	l = op0(a, x);
	r = op1(a, x);
	if (!alg_t_int(t) || ety(a, x) != t || ety(a, l) != t ||
	    ety(a, r) != t || ety(a, init) != t)
		return 0;
	alg_dnums(a, x, &dn);
	if (dn.nlb || dn.nrb || dn.nlc != dn.nrc)
		return 0;
	ro = rank(a, x);
	fl = alg_tmp(a, ((size_t)ro + 1) * 8);
	fr = alg_tmp(a, ((size_t)ro + 1) * 8);
	alg_dot_from_maps(a, x, &dn, fl, fr);
	rdl = alg_tmp(a, ((size_t)rank(a, l) + 1) * 8);
	rdr = alg_tmp(a, ((size_t)rank(a, r) + 1) * 8);
	lc = alg_tmp(a, ((size_t)dn.nlc + 1) * 8);
	rc = alg_tmp(a, ((size_t)dn.nrc + 1) * 8);
	ncl = reduced_dims(a, l, fl, d, nd, dn.lc, dn.nlc, rdl, &nrl, lc);
	ncr = reduced_dims(a, r, fr, d, nd, dn.rc, dn.nrc, rdr, &nrr, rc);
	if (ncl != ncr)
		return 0;
	/* xla's flops: the dot and the reduce against the two operand
	 * reduces and the smaller dot (its output is the reduce's) */
	for (k = 0; k < dn.nlc; k++)
		w *= (double)dim(a, l, (int)dn.lc[k]);
	oldf = 2.0 * (double)alg_elems(a, x) * w + reduce_flops(a, x, d, nd);
	newf = reduce_flops(a, l, rdl, nrl) + reduce_flops(a, r, rdr, nrr) +
		2.0 * (double)alg_elems(a, i) * w;
	if (!(oldf / newf > a->o->raise_threshold))
		return 0;
	memset(&nn, 0, sizeof nn);
	nn.lc = lc;
	nn.rc = rc;
	nn.nlc = nn.nrc = ncl;
	l = mk_sum(a, l, init, rdl, nrl, comp);
	r = mk_sum(a, r, init, rdr, nrr, comp);
	return alg_rep(a, i, alg_mk_dot(a, x, l, r, &nn));
}
