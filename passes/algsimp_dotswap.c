/* algsimp_dotswap.c: xla's transpose(dot(a, b)) => dot(b, a) for any
 * dot, the rule of HandleTranspose under supports_non_canonical_dots
 * (xla's default options, algsimp:default; XLA:CPU turns it off and has
 * the canonical rule, algsimp_shape.c, instead). The transpose must keep
 * the batch dims first (in any order among themselves), then put the
 * rhs's free dims before the lhs's, each in order; the dot then swaps its
 * operands, contracting dims and operand precisions and takes the batch
 * dims in the transpose's order. Exact for every type: each output
 * element is the same sum of the same products (x * y = y * x). */
#include "algsimp.h"

/* i = transpose(d) with permutation perm (n dims) */
int
alg_transpose_of_dot_nc(Alg *a, uint32_t i, uint32_t d, const int64_t *perm,
	uint32_t n)
{
	uint32_t l, r, k, id;
	int64_t nlo, nro, *lb, *rb;
	AlgDnums o, nd;

	if (!a->o->non_canonical || !is_op(a, d, HOP_DOT) || nops(a, d) != 2 ||
	    !alg_one_user(a, d) || n != (uint32_t)rank(a, d))
		return 0;
	l = op0(a, d);
	r = op1(a, d);
	/* consider_swapping_dot_operands */
	if (a->o->move_dot_param && alg_param_like(a, r) &&
	    !alg_param_like(a, l))
		return 0;
	alg_dnums(a, d, &o);
	if (o.nlb != o.nrb || o.nlc != o.nrc)
		return 0;
	nlo = rank(a, l) - (int64_t)(o.nlb + o.nlc);
	nro = rank(a, r) - (int64_t)(o.nrb + o.nrc);
	if (nlo < 0 || nro < 0 || (int64_t)o.nlb + nlo + nro != (int64_t)n)
		return 0;
	for (k = 0; k < o.nlb; k++)
		if (perm[k] < 0 || perm[k] >= (int64_t)o.nlb)
			return 0;
	for (k = 0; k < (uint32_t)nro; k++)
		if (perm[o.nlb + k] != (int64_t)o.nlb + nlo + k)
			return 0;
	for (k = 0; k < (uint32_t)nlo; k++)
		if (perm[o.nlb + nro + k] != (int64_t)(o.nlb + k))
			return 0;
	lb = alg_tmp(a, ((size_t)o.nlb + 1) * 8);
	rb = alg_tmp(a, ((size_t)o.nlb + 1) * 8);
	for (k = 0; k < o.nlb; k++) {
		lb[k] = o.rb[perm[k]];
		rb[k] = o.lb[perm[k]];
	}
	nd.lb = lb;
	nd.rb = rb;
	nd.nlb = nd.nrb = o.nlb;
	nd.lc = o.rc;
	nd.rc = o.lc;
	nd.nlc = nd.nrc = o.nlc;
	id = alg_mk_dot(a, d, r, l, &nd);
	INS(a, id)->shape = shape_of(a, i);	/* the transpose's layout */
	alg_swap_precision(a, id);
	return alg_rep(a, i, id);
}
