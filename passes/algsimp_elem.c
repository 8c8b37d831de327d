/* algsimp_elem.c: the algebraic simplifier's elementwise handlers:
 * identities of arithmetic, logic, comparison, selection and the unary
 * math functions, canonicalization of constants, converts. Each handler
 * mirrors the one of the same name in xla's algebraic_simplifier.cc and
 * returns 1 when it rewrote something. */
#include <math.h>
#include <string.h>

#include "algsimp.h"

static int
is_array_type_elem(int t)
{
	return t != TY_TUPLE && t != TY_TOKEN && t != TY_OPAQUE &&
		t != TY_BUFFER && t != TY_INVALID;
}

static int
bcast_scalar_const(Alg *a, uint32_t x, uint32_t *c)
{
	if (!is_op(a, x, HOP_BROADCAST))
		return 0;
	*c = op0(a, x);
	return alg_is_const(a, *c) && alg_is_scalar(a, *c);
}

static int
dir_is(Alg *a, uint32_t i, const char *d)
{
	return hlo_attr_is(a->m, INS(a, i), A_DIRECTION, d);
}

/* c1 and c2 folded by op into the shape of i (MakeBinaryHlo, then a
 * broadcast when the result is a scalar and i is not) */
static uint32_t
fold_consts(Alg *a, int op, uint32_t c1, uint32_t c2, uint32_t i)
{
	uint32_t s = alg_mk_bin_infer(a, op, c1, c2);

	if (alg_is_scalar(a, s) && !alg_is_scalar(a, i))
		s = alg_mk_bcast(a, shape_of(a, i), s, NULL, 0);
	return s;
}

/* IsAllFpConstantPowerOf2 */
static int
fp_pow2(Alg *a, uint32_t x)
{
	uint32_t c = x;
	double v, mant;
	int e;

	if (is_op(a, x, HOP_BROADCAST))
		c = op0(a, x);
	if (!alg_is_const(a, c) || !alg_is_eff_scalar(a, c) || !alg_const_value(a, c, &v))
		return 0;
	mant = frexp(v, &e);
	return mant == 0.5 || mant == -0.5;
}

/* the constant under broadcasts, or x */
static uint32_t
unbcast_const(Alg *a, uint32_t x)
{
	int steps = 0;

	while (is_op(a, x, HOP_BROADCAST) && steps++ < 64)
		x = op0(a, x);
	return x;
}

/* x + z is x for every x when z is zero: floats need z = -0 or an x that
 * is never -0 (-0 + +0 is +0) */
static int
adds_nothing(Alg *a, uint32_t x, uint32_t z)
{
	return alg_is_all(a, z, 0) && (alg_t_int(ety(a, x)) ||
		ety(a, x) == TY_PRED || alg_is_all_zero(a, z, 1) ||
		alg_no_negzero(a, x));
}

/* add */

static int
add_reassoc(Alg *a, uint32_t i, uint32_t lhs, uint32_t rhs)
{
	uint32_t x, c1, c2, s;
	int sub;

	/* (A + C1) + C2 => A + (C1 + C2), (C1 - A) + C2 => (C1 + C2) - A */
	for (sub = 0; sub < 2; sub++) {
		int op = sub ? HOP_SUBTRACT : HOP_ADD;
		uint32_t av, cv;

		if (!is_op(a, lhs, op))
			continue;
		av = opnd(a, lhs, sub ? 1 : 0);
		cv = opnd(a, lhs, sub ? 0 : 1);
		if (!alg_is_const(a, av) && alg_is_const(a, cv) && alg_is_const(a, rhs)) {
			x = av, c1 = cv, c2 = rhs;
		} else if (!alg_is_const(a, av) && bcast_scalar_const(a, cv, &c1) &&
		    bcast_scalar_const(a, rhs, &c2)) {
			x = av;
		} else {
			continue;
		}
		s = fold_consts(a, HOP_ADD, c1, c2, i);
		if (sub)
			return alg_rep(a, i, alg_mk_bin(a, HOP_SUBTRACT, shape_of(a, i),
				s, x));
		return alg_rep(a, i, alg_mk_bin(a, HOP_ADD, shape_of(a, i), x, s));
	}
	return 0;
}

/* A + (B - A) => B for integers */
static int
add_sub_same(Alg *a, uint32_t i, uint32_t lhs, uint32_t rhs)
{
	uint32_t x, sub;

	if (!alg_t_int(ety(a, i)) && !a->o->fast_math)
		return 0;
	if (is_op(a, rhs, HOP_SUBTRACT))
		x = lhs, sub = rhs;
	else if (is_op(a, lhs, HOP_SUBTRACT))
		x = rhs, sub = lhs;
	else
		return 0;
	return op1(a, sub) == x && alg_rep_compat(a, i, op0(a, sub));
}

/* A + dus(broadcast(0), U, idx) => dus(A, ds(A, idx) + U, idx) */
static int
add_sparse_dus(Alg *a, uint32_t i, uint32_t lhs, uint32_t rhs)
{
	uint32_t d, x, z, n, k, *idx, upd, sl, sum;
	int64_t *sz;
	int r;

	for (k = 0; k < 2; k++) {
		d = k ? lhs : rhs;
		x = k ? rhs : lhs;
		if (!is_op(a, d, HOP_DYNUPDSLICE) || nops(a, d) < 2)
			continue;
		z = op0(a, d);
		if (is_op(a, z, HOP_BROADCAST) &&
		    alg_const_scalar_is(a, op0(a, z), 1, 0) &&
		    adds_nothing(a, x, z))
			break;
	}
	if (k == 2)
		return 0;
	upd = op1(a, d);
	n = nops(a, d) - 2;
	r = rank(a, upd);
	idx = alg_tmp(a, (n + 1) * 4u);
	sz = alg_tmp(a, (size_t)(r + 1) * 8);
	for (k = 0; k < n; k++)
		idx[k] = opnd(a, d, k + 2);
	memcpy(sz, dims(a, upd), (size_t)r * 8);
	sl = alg_mk_dynslice(a, shape_of(a, upd), x, n, idx, sz);
	sum = alg_mk_bin(a, HOP_ADD, shape_of(a, upd), sl, upd);
	return alg_rep(a, i, alg_mk_dus(a, shape_of(a, x), x, sum, n, idx));
}

/* A*C + B*C => (A+B)*C */
static int
add_distribute(Alg *a, uint32_t i, uint32_t lhs, uint32_t rhs)
{
	uint32_t x, c, b = HLO_NONE, sum;
	int alt;

	if (!is_op(a, lhs, HOP_MUL) || !is_op(a, rhs, HOP_MUL))
		return 0;
	for (alt = 0; alt < 2; alt++) {
		x = opnd(a, lhs, alt ? 1 : 0);
		c = opnd(a, lhs, alt ? 0 : 1);
		if (op0(a, rhs) == c)
			b = op1(a, rhs);
		else if (op1(a, rhs) == c)
			b = op0(a, rhs);
		else
			continue;
		break;
	}
	if (alt == 2)
		return 0;
	if (!alg_one_user(a, lhs) || !alg_one_user(a, rhs))
		return 0;
	if (!alg_t_int(ety(a, i)) && !fp_pow2(a, c))
		return 0;
	sum = alg_mk_bin(a, HOP_ADD, shape_of(a, i), x, b);
	return alg_rep(a, i, alg_mk_bin(a, HOP_MUL, shape_of(a, i), sum, c));
}

static int
add_is_scatter(Alg *a, uint32_t x)
{
	uint32_t comp;

	if (!is_op(a, x, HOP_SCATTER) || nops(a, x) != 3 || !alg_one_use(a, x) ||
	    INS(a, x)->ncalled != 1)
		return 0;
	comp = a->m->ids[INS(a, x)->called];
	return alg_reduce_kind(a, comp) == HOP_ADD;
}

static int
same_ints(Alg *a, uint32_t x, uint32_t y, int key)
{
	uint32_t n1, n2;
	const int64_t *p = alg_ints_attr(a, x, key, &n1);
	const int64_t *q = alg_ints_attr(a, y, key, &n2);

	return n1 == n2 && (!n1 || !memcmp(p, q, n1 * 8u));
}

/* the dimensions of u's window (update_window_dims) are equal in x, y */
static int
same_windows(Alg *a, uint32_t su, uint32_t ru, uint32_t ls, uint32_t rs)
{
	uint32_t nl, nr, k, j = 0;
	const int64_t *wl = alg_ints_attr(a, ls, A_UPDATE_WINDOW_DIMS, &nl);
	const int64_t *wr = alg_ints_attr(a, rs, A_UPDATE_WINDOW_DIMS, &nr);
	int64_t *dl = alg_tmp(a, (size_t)(rank(a, su) + 1) * 8);
	int r = rank(a, ru), d;

	for (d = 0; d < rank(a, su); d++)
		if (hlo_ints_has(wl, nl, d))
			dl[j++] = dim(a, su, d);
	for (d = 0, k = 0; d < r; d++)
		if (hlo_ints_has(wr, nr, d)) {
			if (k >= j || dl[k] != dim(a, ru, d))
				return 0;
			k++;
		}
	return k == j;
}

static int
add_two_scatters(Alg *a, uint32_t i, uint32_t lhs, uint32_t rhs)
{
	uint32_t li = opnd(a, lhs, 1), ri = opnd(a, rhs, 1);
	uint32_t lu = opnd(a, lhs, 2), ru = opnd(a, rhs, 2), nw, ni, nu;
	uint32_t ops[2], ops3[3], nupd;
	int64_t ivd = alg_int_attr(a, lhs, A_INDEX_VECTOR_DIM, -1), d, ud;
	int64_t fid = rank(a, li), fud = rank(a, lu), icd = -1, ucd = -1;
	const int64_t *uwd, *sib;
	uint32_t nuwd, nsib;
	int same, safe;

	if (rank(a, li) != rank(a, ri))
		return 0;
	uwd = alg_ints_attr(a, lhs, A_UPDATE_WINDOW_DIMS, &nuwd);
	sib = alg_ints_attr(a, lhs, A_SCATTER_INDICES_BATCHING_DIMS, &nsib);
	for (d = rank(a, li) - 1, ud = rank(a, lu) - 1; d >= 0; d--) {
		if (d == ivd)
			continue;
		while (hlo_ints_has(uwd, nuwd, ud))
			ud--;
		if (hlo_ints_has(sib, nsib, d)) {
			if (dim(a, li, d) != dim(a, ri, d))
				return 0;
			ud--;
			continue;
		}
		if (dim(a, li, d) == dim(a, ri, d)) {
			fid = d;
			fud = ud--;
			continue;
		}
		if (icd >= 0)
			return 0;
		icd = d;
		ucd = ud--;
	}
	if (icd < 0) {
		icd = fid;
		ucd = fud;
	}
	if (icd == rank(a, li))
		return 0;
	if (alg_elems(a, lu) + alg_elems(a, ru) >= alg_elems(a, lhs))
		return 0;
	same = alg_int_attr(a, lhs, A_INDEX_VECTOR_DIM, -1) ==
		alg_int_attr(a, rhs, A_INDEX_VECTOR_DIM, -1) &&
		same_ints(a, lhs, rhs, A_SCATTER_DIMS_TO_OPERAND_DIMS) &&
		same_ints(a, lhs, rhs, A_INSERTED_WINDOW_DIMS) &&
		same_ints(a, lhs, rhs, A_UPDATE_WINDOW_DIMS) &&
		same_ints(a, lhs, rhs, A_SCATTER_INDICES_BATCHING_DIMS) &&
		same_ints(a, lhs, rhs, A_INPUT_BATCHING_DIMS);
	safe = !alg_int_attr(a, lhs, A_UNIQUE_INDICES, 0) &&
		!alg_int_attr(a, rhs, A_UNIQUE_INDICES, 0) &&
		!alg_int_attr(a, lhs, A_INDICES_ARE_SORTED, 0) &&
		!alg_int_attr(a, rhs, A_INDICES_ARE_SORTED, 0);
	if (safe && same && ety(a, li) == ety(a, ri) &&
	    same_windows(a, lu, ru, lhs, rhs) && ucd >= 0) {
		nw = alg_mk_bin_infer(a, HOP_ADD, op0(a, lhs), op0(a, rhs));
		ops[0] = li, ops[1] = ri;
		ni = alg_mk_concat_infer(a, 2, ops, icd);
		ops[0] = lu, ops[1] = ru;
		nu = alg_mk_concat_infer(a, 2, ops, ucd);
		ops3[0] = nw, ops3[1] = ni, ops3[2] = nu;
		nupd = alg_mk_clone(a, lhs, shape_of(a, i), 3, ops3);
		hlo_attr_del(a->m, a->c, nupd, A_INDICES_ARE_SORTED);
		hlo_attr_del(a->m, a->c, nupd, A_UNIQUE_INDICES);
		return alg_rep(a, i, nupd);
	}
	nw = alg_mk_bin_infer(a, HOP_ADD, op0(a, lhs), op0(a, rhs));
	alg_set_opnd(a, rhs, 0, nw);
	alg_set_opnd(a, lhs, 0, rhs);
	return alg_rep(a, i, lhs);
}

static int
add_scatter(Alg *a, uint32_t i, uint32_t lhs, uint32_t rhs)
{
	int ls = add_is_scatter(a, lhs), rs = add_is_scatter(a, rhs);
	uint32_t nw;

	if (ls && rs)
		return add_two_scatters(a, i, lhs, rhs);
	if (rs) {
		nw = alg_mk_bin_infer(a, HOP_ADD, lhs, op0(a, rhs));
		alg_set_opnd(a, rhs, 0, nw);
		return alg_rep(a, i, rhs);
	}
	if (ls) {
		nw = alg_mk_bin_infer(a, HOP_ADD, op0(a, lhs), rhs);
		alg_set_opnd(a, lhs, 0, nw);
		return alg_rep(a, i, lhs);
	}
	return 0;
}

int
alg_h_add(Alg *a, uint32_t i)
{
	uint32_t lhs = op0(a, i), rhs = op1(a, i);

	if (adds_nothing(a, lhs, rhs) && alg_rep_compat(a, i, lhs))
		return 1;
	if (adds_nothing(a, rhs, lhs) && alg_rep_compat(a, i, rhs))
		return 1;
	if (alg_is_const(a, lhs) && !alg_is_const(a, rhs))
		return alg_rep(a, i, alg_mk_bin(a, HOP_ADD, shape_of(a, i), rhs, lhs));
	if (add_reassoc(a, i, lhs, rhs))
		return 1;
	if (add_sub_same(a, i, lhs, rhs))
		return 1;
	if (add_sparse_dus(a, i, lhs, rhs))
		return 1;
	if (add_distribute(a, i, lhs, rhs))
		return 1;
	return !a->lay && add_scatter(a, i, lhs, rhs);
}

/* logic */

/* (x < c1) && (x < c2) => x < min(c1, c2) */
static int
lt_info(Alg *a, uint32_t cmp, uint32_t *var, int64_t *k)
{
	uint32_t l, r;

	if (!is_op(a, cmp, HOP_COMPARE))
		return 0;
	l = op0(a, cmp), r = op1(a, cmp);
	if (dir_is(a, cmp, "LT") && alg_is_const(a, r) && alg_is_eff_scalar(a, r) &&
	    ety(a, r) == TY_S32 && alg_const_int(a, r, k)) {
		*var = l;
		return 1;
	}
	if (dir_is(a, cmp, "GT") && alg_is_const(a, l) && alg_is_eff_scalar(a, l) &&
	    ety(a, l) == TY_S32 && alg_const_int(a, l, k)) {
		*var = r;
		return 1;
	}
	return 0;
}

static int
tautological_compare(Alg *a, uint32_t i)
{
	uint32_t lhs = op0(a, i), rhs = op1(a, i), v1, v2;
	int64_t k1, k2;

	if (!lt_info(a, lhs, &v1, &k1) || !lt_info(a, rhs, &v2, &k2) ||
	    v1 != v2)
		return 0;
	return alg_rep(a, i, alg_mk_compare(a, shape_of(a, lhs), v1,
		alg_scalar_like_i(a, v1, k1 < k2 ? k1 : k2), "LT"));
}

/* and (is_and) or or of two operands: between preds, an operand of all
 * ones gives the other (and) or itself (or); an operand of all zeros
 * gives itself (and) or the other (or); rhs looked at first */
int
alg_h_and_or(Alg *a, uint32_t i, int is_and)
{
	uint32_t lhs = op0(a, i), rhs = op1(a, i);
	uint32_t l1 = is_and ? rhs : lhs, r1 = is_and ? lhs : rhs;

	if (ety(a, lhs) == TY_PRED && ety(a, rhs) == TY_PRED) {
		if (alg_is_all(a, rhs, 1) && alg_rep_compat(a, i, r1))
			return 1;
		if (alg_is_all(a, lhs, 1) && alg_rep_compat(a, i, l1))
			return 1;
	}
	if (alg_is_all(a, rhs, 0) && alg_rep_compat(a, i, l1))
		return 1;
	if (alg_is_all(a, lhs, 0) && alg_rep_compat(a, i, r1))
		return 1;
	return is_and && tautological_compare(a, i);
}

/* xla's Identical(), layout and sharding sensitive, for operands of an
 * xor: same opcode, operands, shape and attributes */
static int
identical(Alg *a, uint32_t x, uint32_t y)
{
	static const uint8_t ign[A_COUNT] = {
		[A_METADATA] = 1, [A_ORIGIN] = 1, [A_STATISTICS] = 1,
		[A_FRONTEND_ATTRIBUTES] = 1, [A_BACKEND_CONFIG] = 1,
	};
	const HloInstr *p = INS(a, x), *q = INS(a, y);
	uint32_t k;

	if (p->op != q->op || p->nops != q->nops || p->shape != q->shape ||
	    p->ncalled != q->ncalled || p->op == HOP_PARAMETER ||
	    p->op == HOP_AFTERALL || p->op == HOP_ADDDEP)
		return 0;
	for (k = 0; k < p->nops; k++)
		if (opnd(a, x, k) != opnd(a, y, k))
			return 0;
	for (k = 0; k < p->ncalled; k++)
		if (!pass_comp_equal(a->m, a->m->ids[p->called + k],
		    a->m->ids[q->called + k], 1, a->ctx))
			return 0;
	return hlo_attrs_equal(a->m, p, q, ign);
}

int
alg_h_xor(Alg *a, uint32_t i)
{
	uint32_t lhs = op0(a, i), rhs = op1(a, i);

	if (lhs == rhs || (!alg_has_effect(a, lhs) && identical(a, lhs, rhs)))
		return alg_rep(a, i, alg_scalar_like_i(a, i, 0));
	if (alg_is_all(a, rhs, 0) && alg_rep_compat(a, i, lhs))
		return 1;
	return alg_is_all(a, lhs, 0) && alg_rep_compat(a, i, rhs);
}

int
alg_h_not(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i);

	return is_op(a, x, HOP_NOT) && alg_rep_compat(a, i, op0(a, x));
}

int
alg_h_negate(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i);

	return is_op(a, x, HOP_NEGATE) && alg_rep_compat(a, i, op0(a, x));
}

int
alg_h_abs(Alg *a, uint32_t i)
{
	return alg_is_nonneg(a, op0(a, i)) && alg_rep(a, i, op0(a, i));
}

/* subtract */

int
alg_h_subtract(Alg *a, uint32_t i)
{
	uint32_t lhs = op0(a, i), rhs = op1(a, i), c, neg, x, y;
	int intg = alg_t_int(ety(a, i)) || a->o->fast_math;

	if (intg && lhs == rhs)
		return alg_rep(a, i, alg_scalar_like_i(a, i, 0));
	/* x - 0: floats need +0 or an x that is never -0 (-0 - -0 is +0) */
	if (alg_is_all(a, rhs, 0) && (alg_t_int(ety(a, i)) ||
	    alg_is_all_zero(a, rhs, 0) || alg_no_negzero(a, lhs)) &&
	    alg_rep_compat(a, i, lhs))
		return 1;
	/* A - C => A + (-C) */
	if (!alg_is_const(a, lhs) && (alg_is_const(a, rhs) ||
	    (is_op(a, rhs, HOP_BROADCAST) && alg_is_const(a, op0(a, rhs))))) {
		c = alg_is_const(a, rhs) ? rhs : op0(a, rhs);
		neg = alg_mk_un(a, HOP_NEGATE, shape_of(a, c), c);
		if (is_op(a, rhs, HOP_BROADCAST)) {
			uint32_t n;
			const int64_t *d = alg_ints_attr(a, rhs, A_DIMENSIONS, &n);
			int64_t *v = alg_tmp(a, (n + 1) * 8u);

			memcpy(v, d, n * 8u);
			neg = alg_mk_bcast(a, shape_of(a, rhs), neg, v, n);
		}
		return alg_rep(a, i, alg_mk_bin(a, HOP_ADD, shape_of(a, i), lhs, neg));
	}
	if (!intg)
		return 0;
	/* A - (A - B) => B */
	if (is_op(a, rhs, HOP_SUBTRACT) && op0(a, rhs) == lhs &&
	    alg_rep_compat(a, i, op1(a, rhs)))
		return 1;
	/* A - (A + B) => -B */
	if (is_op(a, rhs, HOP_ADD) && (op0(a, rhs) == lhs ||
	    op1(a, rhs) == lhs)) {
		y = op0(a, rhs) == lhs ? op1(a, rhs) : op0(a, rhs);
		return alg_rep(a, i, alg_mk_un(a, HOP_NEGATE, shape_of(a, i), y));
	}
	/* (A + B) - A => B */
	if (is_op(a, lhs, HOP_ADD)) {
		x = op0(a, lhs), y = op1(a, lhs);
		if (x == rhs || y == rhs)
			return alg_rep_compat(a, i, y == rhs ? x : y);
	}
	return 0;
}

/* multiply */

static int
mul_one_const(Alg *a, uint32_t m, uint32_t *x, uint32_t *c)
{
	if (!is_op(a, m, HOP_MUL))
		return 0;
	if (!alg_is_const(a, op0(a, m)) && alg_is_const(a, op1(a, m))) {
		*x = op0(a, m), *c = op1(a, m);
		return 1;
	}
	if (!alg_is_const(a, op1(a, m)) && alg_is_const(a, op0(a, m))) {
		*x = op1(a, m), *c = op0(a, m);
		return 1;
	}
	return 0;
}

/* Mul(Mul(a, bcast?(const)), op) with op a broadcast of a non-constant */
static int
mul_sink_const(Alg *a, uint32_t i, uint32_t lhs, uint32_t rhs)
{
	uint32_t x = HLO_NONE, c = HLO_NONE, op = HLO_NONE, b, nm, k, in;
	uint32_t n, side[2] = {lhs, rhs};
	int variant, found = 0;
	const int64_t *d;
	int64_t *v;

	for (variant = 0; variant < 2 && !found; variant++)
		for (k = 0; k < 2 && !found; k++) {
			in = side[k];
			if (!is_op(a, in, HOP_MUL))
				continue;
			if (variant == 0) {
				if (!mul_one_const(a, in, &x, &c))
					continue;
			} else {
				uint32_t p = op0(a, in), q = op1(a, in);

				if (!alg_is_const(a, p) && is_op(a, q,
				    HOP_BROADCAST) && alg_is_const(a, op0(a, q)))
					x = p, c = op0(a, q);
				else if (!alg_is_const(a, q) && is_op(a, p,
				    HOP_BROADCAST) && alg_is_const(a, op0(a, p)))
					x = q, c = op0(a, p);
				else
					continue;
			}
			op = side[1 - k];
			found = 1;
		}
	if (!found || !alg_is_scalar(a, c) || !is_op(a, op, HOP_BROADCAST) ||
	    alg_is_const(a, op0(a, op)))
		return 0;
	b = op0(a, op);
	if (!alg_is_scalar(a, b))
		c = alg_mk_bcast(a, shape_of(a, b), c, NULL, 0);
	nm = alg_mk_bin(a, HOP_MUL, shape_of(a, b), b, c);
	d = alg_ints_attr(a, op, A_DIMENSIONS, &n);
	v = alg_tmp(a, (n + 1) * 8u);
	memcpy(v, d, n * 8u);
	nm = alg_mk_bcast(a, shape_of(a, i), nm, v, n);
	return alg_rep(a, i, alg_mk_bin(a, HOP_MUL, shape_of(a, i), x, nm));
}

static int
mul_reassoc(Alg *a, uint32_t i, uint32_t lhs, uint32_t rhs)
{
	uint32_t x, y, c1, c2, p;

	/* (x * c1) * (y * c2) => (x * y) * (c1 * c2) */
	if (mul_one_const(a, lhs, &x, &c1) && mul_one_const(a, rhs, &y, &c2)) {
		p = fold_consts(a, HOP_MUL, c1, c2, i);
		return alg_rep(a, i, alg_mk_bin(a, HOP_MUL, shape_of(a, i),
			alg_mk_bin(a, HOP_MUL, shape_of(a, i), x, y), p));
	}
	/* (x * c1) * c2 => x * (c1 * c2) */
	if ((alg_is_const(a, rhs) && mul_one_const(a, lhs, &x, &c1) &&
	    (c2 = rhs, 1)) || (alg_is_const(a, lhs) &&
	    mul_one_const(a, rhs, &x, &c1) && (c2 = lhs, 1))) {
		p = fold_consts(a, HOP_MUL, c1, c2, i);
		return alg_rep(a, i, alg_mk_bin(a, HOP_MUL, shape_of(a, i), x, p));
	}
	if (mul_sink_const(a, i, lhs, rhs))
		return 1;
	/* (A * bcast(c1)) * bcast(c2) => A * bcast(c1 * c2) */
	if (is_op(a, lhs, HOP_MUL) && bcast_scalar_const(a, op1(a, lhs), &c1) &&
	    bcast_scalar_const(a, rhs, &c2)) {
		p = fold_consts(a, HOP_MUL, c1, c2, i);
		return alg_rep(a, i, alg_mk_bin(a, HOP_MUL, shape_of(a, i), op0(a, lhs),
			p));
	}
	return 0;
}

/* every element of the float constant c is finite and > 0 */
static int
const_pos_finite(Alg *a, uint32_t c)
{
	uint32_t nb;
	const unsigned char *p = alg_lit(a, c, &nb);
	int t = ety(a, c), esz = hlo_type_bytes(t);
	int64_t n = alg_elems(a, c), j;

	if (!p || n < 0 || !alg_t_float(t) || esz < 1 ||
	    (uint64_t)n * esz > nb)
		return 0;
	for (j = 0; j < n; j++, p += esz) {
		double v = hlo_float_decode(t, alg_bits_at(p, esz));

		if (!isfinite(v) || !(v > 0))
			return 0;
	}
	return 1;
}

/* xla's TryToReorderConvAddMultiply (enable_conv_add_multiply_reorder,
 * which XLA:GPU sets: "algsimp:conv-add-multiply-reorder"):
 * (conv(x, filter) + bias) * broadcast(c), the filter a constant, c a
 * constant vector broadcast along the output feature dim, conv, bias and
 * broadcast with one user each, becomes conv(x, filter * broadcast(c))
 * + bias * broadcast(c), which constant folding finishes. Integers wrap
 * alike either way; for floats hlopt requires every element of c finite
 * and > 0 (xla does not): an inf or NaN scale turns a finite x * 0 into
 * NaN, and a negative one the +0 of x + (-x) into -0 */
static int
conv_add_mul(Alg *a, uint32_t i, uint32_t lhs, uint32_t rhs)
{
	uint32_t ad, bc, cv, bias, f, c, nl, fb, fm, nc, bm, ops[2], k, nd;
	const int64_t *bd;
	const char *lab;
	HloConvDnums dn;
	int t = ety(a, i);

	if (!a->o->conv_add_mul || !(alg_t_int(t) || alg_t_float(t)))
		return 0;
	for (k = 0; k < 2; k++) {
		ad = k ? rhs : lhs;
		bc = k ? lhs : rhs;
		if (is_op(a, ad, HOP_ADD) && is_op(a, bc, HOP_BROADCAST))
			break;
	}
	if (k == 2 || !alg_one_user(a, bc) || !alg_is_const(a, op0(a, bc)) ||
	    rank(a, op0(a, bc)) != 1)
		return 0;
	c = op0(a, bc);
	for (k = 0; k < 2; k++) {
		cv = opnd(a, ad, k);
		bias = opnd(a, ad, !k);
		if (is_op(a, cv, HOP_CONV) && nops(a, cv) == 2 &&
		    alg_is_const(a, opnd(a, cv, 1)) && alg_one_user(a, cv) &&
		    alg_one_user(a, bias))
			break;
	}
	if (k == 2)
		return 0;
	f = opnd(a, cv, 1);
	lab = hlo_attr_word(a->m, INS(a, cv), A_DIM_LABELS, &nl);
	bd = alg_ints_attr(a, bc, A_DIMENSIONS, &nd);
	if (!lab || hlo_conv_dnums(lab, nl, rank(a, cv), &dn) < 0 || !bd ||
	    nd != 1 || bd[0] != dn.out_feature || ety(a, f) != t ||
	    ety(a, c) != t || ety(a, cv) != t || ety(a, bias) != t ||
	    (alg_t_float(t) && !const_pos_finite(a, c)))
		return 0;
	{
		int64_t kd = dn.k_out;

		fb = alg_mk_bcast(a, shape_of(a, f), c, &kd, 1);
	}
	fm = alg_mk_bin(a, HOP_MUL, shape_of(a, f), f, fb);
	ops[0] = op0(a, cv);
	ops[1] = fm;
	nc = alg_mk_clone(a, cv, shape_of(a, cv), 2, ops);
	bm = alg_mk_bin(a, HOP_MUL, shape_of(a, bias), bias, bc);
	ops[0] = nc;
	ops[1] = bm;
	return alg_rep(a, i, alg_mk_clone(a, ad, shape_of(a, ad), 2, ops));
}

int
alg_h_multiply(Alg *a, uint32_t i)
{
	uint32_t lhs = op0(a, i), rhs = op1(a, i), x, cv, k, s;
	int zero_ok = a->o->fast_math || alg_t_int(ety(a, i));

	if (alg_is_all(a, rhs, 1) && alg_rep_compat(a, i, lhs))
		return 1;
	if (alg_is_all(a, lhs, 1) && alg_rep_compat(a, i, rhs))
		return 1;
	if (zero_ok && alg_is_all(a, lhs, 0) && alg_rep_compat(a, i, lhs))
		return 1;
	if (zero_ok && alg_is_all(a, rhs, 0) && alg_rep_compat(a, i, rhs))
		return 1;
	if (is_op(a, lhs, HOP_NEGATE) && is_op(a, rhs, HOP_NEGATE)) {
		x = op0(a, lhs);
		s = op0(a, rhs);
		alg_set_opnd(a, i, 0, x);
		alg_set_opnd(a, i, 1, s);
		alg_mark_changed(a);
		return 1;
	}
	if (lhs == rhs && is_op(a, lhs, HOP_ABS) &&
	    !alg_t_cplx(ety(a, op0(a, lhs)))) {
		x = op0(a, lhs);
		alg_set_opnd(a, i, 0, x);
		alg_set_opnd(a, i, 1, x);
		alg_mark_changed(a);
		return 1;
	}
	/* x * convert(pred) => select(pred, x, 0); for integers only: a
	 * float x * 0 is -0 for negative x and NaN for inf and NaN */
	for (k = 0; k < 2 && (alg_t_int(ety(a, i)) || a->o->fast_math); k++) {
		cv = k ? lhs : rhs;
		x = k ? rhs : lhs;
		if (is_op(a, cv, HOP_CONVERT) && ety(a, op0(a, cv)) == TY_PRED) {
			s = alg_mk_scalar_i(a, ety(a, i), 0);
			s = alg_mk_bcast(a, shape_of(a, i), s, NULL, 0);
			return alg_rep(a, i, alg_mk_tern(a, HOP_SELECT, shape_of(a, i),
				op0(a, cv), x, s));
		}
	}
	if (mul_reassoc(a, i, lhs, rhs))
		return 1;
	if (a->o->fast_math && is_op(a, lhs, HOP_EXP) && is_op(a, rhs,
	    HOP_EXP)) {
		s = alg_mk_bin(a, HOP_ADD, shape_of(a, i), op0(a, lhs),
			op0(a, rhs));
		return alg_rep(a, i, alg_mk_un(a, HOP_EXP, shape_of(a, i), s));
	}
	/* sqrt(x) * sqrt(x) => x, rsqrt(x) * rsqrt(x) => 1/x for x >= 0 */
	if (is_op(a, lhs, HOP_SQRT) && is_op(a, rhs, HOP_SQRT) &&
	    op0(a, lhs) == op0(a, rhs) && alg_is_nonneg(a, op0(a, lhs)))
		return alg_rep(a, i, op0(a, lhs));
	if (is_op(a, lhs, HOP_RSQRT) && is_op(a, rhs, HOP_RSQRT) &&
	    op0(a, lhs) == op0(a, rhs) && alg_is_nonneg(a, op0(a, lhs))) {
		x = op0(a, lhs);
		return alg_rep(a, i, alg_mk_bin(a, HOP_DIVIDE, shape_of(a, i),
			alg_scalar_like(a, x, 1), x));
	}
	return conv_add_mul(a, i, lhs, rhs);
}

/* divide */

static int
log2u(uint64_t v)
{
	int k = 0;

	while (v >>= 1)
		k++;
	return k;
}

static int
div_shift(Alg *a, uint32_t i, uint32_t x, uint32_t b)
{
	uint32_t c = b, neg, negd, absd, q;
	int t = ety(a, i);
	int64_t v;

	if (!alg_t_int(t))
		return 0;
	if (is_op(a, b, HOP_BROADCAST))
		c = op0(a, b);
	if (!alg_is_const(a, c) || !alg_is_eff_scalar(a, c) || !alg_const_first(a, c, &v))
		return 0;
	if (alg_t_sint(t)) {
		if (v <= 0 || (v & (v - 1)))
			return 0;
		neg = alg_mk_compare(a, alg_shp_type(a, shape_of(a, x), TY_PRED), x,
			alg_scalar_like_i(a, x, 0), "LT");
		negd = alg_mk_un(a, HOP_NEGATE, shape_of(a, x), x);
		absd = alg_mk_tern(a, HOP_SELECT, shape_of(a, x), neg, negd, x);
		q = alg_mk_bin(a, HOP_SHRL, shape_of(a, i), absd,
			alg_scalar_like_i(a, absd, log2u((uint64_t)v)));
		negd = alg_mk_un(a, HOP_NEGATE, shape_of(a, q), q);
		return alg_rep(a, i, alg_mk_tern(a, HOP_SELECT, shape_of(a, i), neg,
			negd, q));
	}
	if (v == 0 || ((uint64_t)v & ((uint64_t)v - 1)))
		return 0;
	return alg_rep(a, i, alg_mk_bin(a, HOP_SHRL, shape_of(a, i), x,
		alg_scalar_like_i(a, x, log2u((uint64_t)v))));
}

/* the constant 1 / c, elementwise, in c's type, when every reciprocal
 * is exact (c a power of two), so that x * (1 / c) rounds exactly as
 * x / c does; else HLO_NONE. xla also inverts inexact constants; we do
 * not, because the rewrite saves no instruction and an inexact one
 * changes results (an iterative solver in the corpus diverges on it). */
static uint32_t
invert_const(Alg *a, uint32_t c)
{
	uint32_t nb;
	const unsigned char *p = alg_lit(a, c, &nb);
	int t = ety(a, c), esz = hlo_type_bytes(t), k, ex;
	int64_t n = alg_elems(a, c), j;
	unsigned char *out;
	uint64_t bits;
	double v, r;

	if (!p || n < 0 || !alg_t_float(t))
		return HLO_NONE;	/* complex reciprocals are inexact */
	out = alg_tmp(a, (size_t)n * esz + 1);
	for (j = 0; j < n; j++, p += esz) {
		bits = 0;
		for (k = esz; k-- > 0;)
			bits = bits << 8 | p[k];
		v = hlo_float_decode(t, bits);
		if (!isfinite(v) || v == 0 || fabs(frexp(v, &ex)) != 0.5)
			return HLO_NONE;
		r = 1.0 / v;
		bits = hlo_float_encode(t, r);
		if (hlo_float_decode(t, bits) != r)
			return HLO_NONE;	/* 1 / v out of range */
		for (k = 0; k < esz; k++, bits >>= 8)
			out[j * esz + k] = (unsigned char)bits;
	}
	return alg_mk_const(a, shape_of(a, c), out, (uint32_t)(n * esz));
}

static uint32_t
copy_bcast(Alg *a, uint32_t bc, uint32_t shape, uint32_t x)
{
	uint32_t n;
	const int64_t *d = alg_ints_attr(a, bc, A_DIMENSIONS, &n);
	int64_t *v = alg_tmp(a, (n + 1) * 8u);

	memcpy(v, d, n * 8u);
	return alg_mk_bcast(a, shape, x, v, n);
}

static int
div_float(Alg *a, uint32_t i, uint32_t x, uint32_t b)
{
	uint32_t c = HLO_NONE, inv, r, p, q, s = shape_of(a, i);
	int t = ety(a, i);

	/* A / Const => A * (1 / Const) */
	if (!alg_is_const(a, x) && (alg_is_const(a, b) || (is_op(a, b,
	    HOP_BROADCAST) && alg_is_const(a, op0(a, b))))) {
		c = alg_is_const(a, b) ? b : op0(a, b);
		if (!alg_t_float(ety(a, c)) && !alg_t_cplx(ety(a, c)))
			return 0;
		if ((inv = invert_const(a, c)) == HLO_NONE)
			return 0;
		if (b != c)
			inv = copy_bcast(a, b, shape_of(a, b), inv);
		return alg_rep(a, i, alg_mk_bin_infer(a, HOP_MUL, x, inv));
	}
	/* A / broadcast(B) => A * broadcast(1 / B) */
	if (a->o->cpu && a->o->sink_bcast && (!alg_t_cplx(t) ||
	    a->o->fast_math) && is_op(a, b, HOP_BROADCAST) &&
	    alg_one_use(a, op0(a, b))) {
		p = op0(a, b);
		r = alg_mk_bin(a, HOP_DIVIDE, shape_of(a, p), alg_scalar_like(a, p, 1),
			p);
		r = copy_bcast(a, b, s, r);
		return alg_rep(a, i, alg_mk_bin(a, HOP_MUL, s, x, r));
	}
	/* (A / B) / (C / D) => (A * D) / (B * C) */
	if (is_op(a, x, HOP_DIVIDE) && is_op(a, b, HOP_DIVIDE)) {
		p = alg_mk_bin_infer(a, HOP_MUL, op0(a, x), op1(a, b));
		q = alg_mk_bin_infer(a, HOP_MUL, op1(a, x), op0(a, b));
		return alg_rep(a, i, alg_mk_bin_infer(a, HOP_DIVIDE, p, q));
	}
	/* (A / B) / C => A / (B * C) */
	if (is_op(a, x, HOP_DIVIDE)) {
		q = alg_mk_bin_infer(a, HOP_MUL, op1(a, x), b);
		return alg_rep(a, i, alg_mk_bin_infer(a, HOP_DIVIDE, op0(a, x), q));
	}
	/* A / (B / C) => (A * C) / B */
	if (is_op(a, b, HOP_DIVIDE)) {
		p = alg_mk_bin_infer(a, HOP_MUL, x, op1(a, b));
		return alg_rep(a, i, alg_mk_bin_infer(a, HOP_DIVIDE, p, op0(a, b)));
	}
	/* convert(pred) / broadcast(scalar y) => broadcast(1/y) * x */
	if (is_op(a, x, HOP_CONVERT) && ety(a, op0(a, x)) == TY_PRED &&
	    is_op(a, b, HOP_BROADCAST) && alg_is_scalar(a, op0(a, b))) {
		p = op0(a, b);
		r = alg_mk_bin_infer(a, HOP_DIVIDE, alg_scalar_like(a, p, 1), p);
		r = alg_mk_bcast(a, s, r, NULL, 0);
		return alg_rep(a, i, alg_mk_bin_infer(a, HOP_MUL, r, x));
	}
	return 0;
}

int
alg_h_divide(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i), b = op1(a, i), n, r, s = shape_of(a, i);

	if (alg_is_all(a, b, 1) && alg_rep_compat(a, i, x))
		return 1;
	if (div_shift(a, i, x, b))
		return 1;
	if (a->o->fast_math && is_op(a, x, HOP_EXP) && is_op(a, b, HOP_EXP)) {
		n = alg_mk_bin(a, HOP_SUBTRACT, s, op0(a, x), op0(a, b));
		return alg_rep(a, i, alg_mk_un(a, HOP_EXP, s, n));
	}
	if (a->o->fast_math && is_op(a, b, HOP_EXP)) {
		n = alg_mk_un(a, HOP_NEGATE, s, op0(a, b));
		n = alg_mk_un(a, HOP_EXP, s, n);
		return alg_rep(a, i, alg_mk_bin(a, HOP_MUL, s, x, n));
	}
	/* A / pow(B, C) => A * pow(B, -C); integer powers with negative
	 * exponents are not reciprocals, so floats only */
	if (is_op(a, b, HOP_POWER) && !alg_t_int(ety(a, i))) {
		uint32_t pb = op0(a, b), pc = op1(a, b);

		n = alg_mk_un(a, HOP_NEGATE, shape_of(a, pc), pc);
		n = alg_mk_bin(a, HOP_POWER, shape_of(a, pb), pb, n);
		return alg_rep(a, i, alg_mk_bin(a, HOP_MUL, s, x, n));
	}
	/* A / sqrt(B) => A * rsqrt(B), A / rsqrt(B) => A * sqrt(B) */
	if ((is_op(a, b, HOP_SQRT) || is_op(a, b, HOP_RSQRT)) &&
	    alg_one_use(a, b)) {
		r = alg_mk_un(a, is_op(a, b, HOP_SQRT) ? HOP_RSQRT : HOP_SQRT, s,
			op0(a, b));
		return alg_rep(a, i, alg_mk_bin(a, HOP_MUL, s, x, r));
	}
	if (alg_t_int(ety(a, i)))
		return 0;
	return div_float(a, i, x, b);
}

/* remainder */

static int
rem_and(Alg *a, uint32_t i, uint32_t x, uint32_t b)
{
	uint32_t c = b, z, neg, negd, absd, q, mask;
	int t = ety(a, i);
	int64_t v;

	if (!alg_t_int(t))
		return 0;
	if (is_op(a, b, HOP_BROADCAST))
		c = op0(a, b);
	if (!alg_is_const(a, c) || !alg_is_eff_scalar(a, c) || !alg_const_first(a, c, &v))
		return 0;
	if (alg_t_sint(t)) {
		if (v <= 0 || (v & (v - 1)))
			return 0;
		z = alg_mk_bcast(a, shape_of(a, x), alg_mk_scalar_i(a, ety(a, x), 0),
			NULL, 0);
		neg = alg_mk_compare(a, alg_shp_type(a, shape_of(a, x), TY_PRED), x, z,
			"LT");
		negd = alg_mk_un(a, HOP_NEGATE, shape_of(a, x), x);
		absd = alg_mk_tern(a, HOP_SELECT, shape_of(a, x), neg, negd, x);
		q = alg_mk_bin(a, HOP_AND, shape_of(a, i), absd,
			alg_scalar_like_i(a, absd, v - 1));
		negd = alg_mk_un(a, HOP_NEGATE, shape_of(a, q), q);
		return alg_rep(a, i, alg_mk_tern(a, HOP_SELECT, shape_of(a, i), neg,
			negd, q));
	}
	if (v == 0 || ((uint64_t)v & ((uint64_t)v - 1)))
		return 0;
	mask = alg_mk_scalar_i(a, t, v - 1);
	if (!alg_is_scalar(a, b))
		mask = alg_mk_bcast(a, shape_of(a, b), mask, NULL, 0);
	return alg_rep(a, i, alg_mk_bin(a, HOP_AND, shape_of(a, i), x, mask));
}

int
alg_h_remainder(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i), b = op1(a, i), io, ad, dv, bc;
	int64_t ub, dval, lim;
	int k;

	if (is_op(a, x, HOP_REMAINDER) && op1(a, x) == b)
		return alg_rep(a, i, x);
	if (rem_and(a, i, x, b))
		return 1;
	/* {0, ..., M} % N => {0, ..., M} when M < N */
	if (is_op(a, x, HOP_IOTA) && is_op(a, b, HOP_BROADCAST) &&
	    alg_is_const(a, dv = op0(a, b)) && alg_is_eff_scalar(a, dv) &&
	    alg_t_int(ety(a, dv)) && alg_const_int(a, dv, &dval)) {
		ub = dim(a, x, alg_int_attr(a, x, A_IOTA_DIM, 0));
		if (dval >= ub)
			return alg_rep(a, i, x);
	}
	/* (iota + N) % N => iota % N when iota + N does not overflow */
	if (is_op(a, x, HOP_ADD) && is_op(a, b, HOP_BROADCAST)) {
		bc = b;
		dv = op0(a, bc);
		for (k = 0; k < 2; k++) {
			io = opnd(a, x, k);
			ad = opnd(a, x, 1 - k);
			if (is_op(a, io, HOP_IOTA) && is_op(a, ad,
			    HOP_BROADCAST))
				break;
		}
		if (k == 2)
			return 0;
		ad = op0(a, ad);
		if (ad != dv || !alg_is_const(a, dv) || !alg_is_eff_scalar(a, dv) ||
		    !alg_t_int(ety(a, dv)) || !alg_const_int(a, dv, &dval))
			return 0;
		ub = dim(a, io, alg_int_attr(a, io, A_IOTA_DIM, 0));
		if (__builtin_add_overflow(dval, ub, &lim))
			return 0;
		{
			int t = ety(a, io), bits = alg_t_bits(t);
			int64_t mx = alg_t_uint(t) ? (bits >= 63 ? INT64_MAX :
				((int64_t)1 << bits) - 1) : (bits >= 64 ?
				INT64_MAX : ((int64_t)1 << (bits - 1)) - 1);

			if (lim > mx || lim < 0)
				return 0;
		}
		return alg_rep(a, i, alg_mk_bin(a, HOP_REMAINDER, shape_of(a, i), io,
			bc));
	}
	return 0;
}

/* compare */

static int
cmp_const(Alg *a, uint32_t i, int v)
{
	return alg_rep(a, i, alg_scalar_like_i(a, i, v));
}

int
alg_h_compare(Alg *a, uint32_t i)
{
	uint32_t lhs = op0(a, i), rhs = op1(a, i), c0, x, y;
	int lt = dir_is(a, i, "LT"), le = dir_is(a, i, "LE");
	int gt = dir_is(a, i, "GT"), ge = dir_is(a, i, "GE");
	int eq = dir_is(a, i, "EQ"), ne = dir_is(a, i, "NE");
	int t = ety(a, lhs);

	if (alg_t_uint(t)) {
		if (lt && alg_is_all(a, rhs, 0))
			return cmp_const(a, i, 0);
		if (ge && alg_is_all(a, rhs, 0))
			return cmp_const(a, i, 1);
		if (gt && alg_is_all(a, lhs, 0))
			return cmp_const(a, i, 0);
		if (le && alg_is_all(a, lhs, 0))
			return cmp_const(a, i, 1);
	}
	if (lt && alg_is_nonneg(a, lhs) && alg_is_all(a, rhs, 0))
		return cmp_const(a, i, 0);
	if (gt && alg_is_all(a, lhs, 0) && alg_is_nonneg(a, rhs))
		return cmp_const(a, i, 0);
	/* x >= 0 is false for NaN */
	if (ge && alg_is_nonneg(a, lhs) && alg_no_nan(a, lhs) &&
	    alg_is_all(a, rhs, 0))
		return cmp_const(a, i, 1);
	if (le && alg_is_all(a, lhs, 0) && alg_is_nonneg(a, rhs) &&
	    alg_no_nan(a, rhs))
		return cmp_const(a, i, 1);
	if (lhs == rhs && alg_t_int(t))
		return cmp_const(a, i, eq || ge || le);
	if (t == TY_PRED && ety(a, rhs) == TY_PRED) {
		if (ne && alg_is_all(a, rhs, 0))
			return alg_rep(a, i, lhs);
		if (ne && alg_is_all(a, lhs, 0))
			return alg_rep(a, i, rhs);
		if (eq && alg_is_all(a, rhs, 1))
			return alg_rep(a, i, lhs);
		if (eq && alg_is_all(a, lhs, 1))
			return alg_rep(a, i, rhs);
	}
	/* ne(select(ge(a, b), 1, 0), 0) => ge(a, b) */
	if (ne && alg_is_all(a, rhs, 0) && is_op(a, lhs, HOP_SELECT)) {
		c0 = op0(a, lhs);
		if (is_op(a, c0, HOP_COMPARE) && dir_is(a, c0, "GE") &&
		    alg_is_all(a, opnd(a, lhs, 1), 1) &&
		    alg_is_all(a, opnd(a, lhs, 2), 0) && alg_same_shape(a, i, c0))
			return alg_rep(a, i, c0);
	}
	if (gt) {
		if (is_op(a, lhs, HOP_MAX)) {
			x = op0(a, lhs), y = op1(a, lhs);
			if (rhs == x || rhs == y) {
				alg_set_opnd(a, i, 0, rhs == x ? y : x);
				alg_mark_changed(a);
				return 1;
			}
		} else if (is_op(a, rhs, HOP_MIN)) {
			x = op0(a, rhs), y = op1(a, rhs);
			if (lhs == x || lhs == y) {
				alg_set_opnd(a, i, 1, lhs == x ? y : x);
				alg_mark_changed(a);
				return 1;
			}
		}
	}
	return 0;
}

/* select */

static int
select_dus(Alg *a, uint32_t i)
{
	uint32_t p = op0(a, i), t = op1(a, i), f = opnd(a, i, 2), d, xs;
	uint32_t x, n, k, *idx, np, nx, nx2;
	int left;
	int64_t *sz;

	if (is_op(a, f, HOP_DYNUPDSLICE) && alg_one_use(a, f) && op0(a, f) == t)
		left = 1, d = f, xs = t;
	else if (is_op(a, t, HOP_DYNUPDSLICE) && alg_one_use(a, t) &&
	    op0(a, t) == f)
		left = 0, d = t, xs = f;
	else
		return 0;
	x = op1(a, d);
	n = nops(a, d) - 2;
	idx = alg_tmp(a, (n + 1) * 4u);
	for (k = 0; k < n; k++)
		idx[k] = opnd(a, d, k + 2);
	sz = alg_tmp(a, ((size_t)rank(a, x) + 1) * 8);
	memcpy(sz, dims(a, x), (size_t)rank(a, x) * 8);
	np = p;
	if (!alg_is_scalar(a, p))
		np = alg_mk_dynslice(a, alg_shp_type(a, shape_of(a, x), ety(a, p)), p,
			n, idx, sz);
	nx = alg_mk_dynslice(a, shape_of(a, x), xs, n, idx, sz);
	nx2 = alg_mk_tern(a, HOP_SELECT, shape_of(a, x), np, left ? nx : x,
		left ? x : nx);
	return alg_rep(a, i, alg_mk_dus(a, shape_of(a, i), xs, nx2, n, idx));
}

int
alg_h_select(Alg *a, uint32_t i)
{
	uint32_t p = op0(a, i), t = op1(a, i), f = opnd(a, i, 2), l, r;

	if (t == f && alg_rep_compat(a, i, t))
		return 1;
	if (alg_is_all(a, p, 1) && alg_rep_compat(a, i, t))
		return 1;
	if (alg_is_all(a, p, 0) && alg_rep_compat(a, i, f))
		return 1;
	if (is_op(a, p, HOP_NOT))
		return alg_rep(a, i, alg_mk_tern(a, HOP_SELECT, shape_of(a, i),
			op0(a, p), f, t));
	if (ety(a, i) == TY_PRED) {
		if (alg_is_all(a, t, 1) && alg_is_all(a, f, 0))
			return alg_rep(a, i, p);
		if (alg_is_all(a, t, 0) && alg_is_all(a, f, 1))
			return alg_rep(a, i, alg_mk_un(a, HOP_NOT, shape_of(a, p), p));
		if (is_op(a, p, HOP_COMPARE) && op0(a, p) == t &&
		    op1(a, p) == f) {
			l = t, r = f;
			if (dir_is(a, p, "GT") || dir_is(a, p, "GE"))
				return alg_rep(a, i, alg_mk_bin(a, HOP_OR,
					shape_of(a, i), l, r));
			if (dir_is(a, p, "LT") || dir_is(a, p, "LE"))
				return alg_rep(a, i, alg_mk_bin(a, HOP_AND,
					shape_of(a, i), l, r));
			if (dir_is(a, p, "EQ"))
				return alg_rep(a, i, r);
			if (dir_is(a, p, "NE"))
				return alg_rep(a, i, l);
		}
	}
	return select_dus(a, i);
}

/* minimum, maximum, clamp */

/* c1 < c2 for two effective-scalar constants of one type */
static int
const_less(Alg *a, uint32_t c1, uint32_t c2)
{
	double x, y;
	int64_t p, q;
	int t = ety(a, c1);

	if (t != ety(a, c2))
		return 0;
	if (alg_t_float(t))
		return alg_const_value(a, c1, &x) && alg_const_value(a, c2, &y) &&
			x < y;
	if (alg_t_uint(t)) {
		uint32_t n1, n2;
		const unsigned char *u = alg_lit(a, c1, &n1), *v = alg_lit(a, c2, &n2);
		uint64_t uu = 0, vv = 0;
		int k, esz = hlo_type_bytes(t);

		if (!u || !v)
			return 0;
		for (k = esz; k-- > 0;) {
			uu = uu << 8 | u[k];
			vv = vv << 8 | v[k];
		}
		return uu < vv;
	}
	if (alg_t_sint(t))
		return alg_const_int(a, c1, &p) && alg_const_int(a, c2, &q) && p < q;
	if (t == TY_PRED) {
		uint32_t n1, n2;
		const unsigned char *u = alg_lit(a, c1, &n1), *v = alg_lit(a, c2, &n2);

		return u && v && !u[0] && v[0];
	}
	return 0;
}

static int
bcast_eff_const(Alg *a, uint32_t x)
{
	uint32_t c;

	if (!is_op(a, x, HOP_BROADCAST))
		return 0;
	c = op0(a, x);
	return alg_is_const(a, c) && alg_is_eff_scalar(a, c);
}

/* two effective-scalar integer or pred constants of one value */
static int
same_const_value(Alg *a, uint32_t c1, uint32_t c2)
{
	int64_t p, q;

	return ety(a, c1) == ety(a, c2) && !alg_t_float(ety(a, c1)) &&
		alg_const_first(a, c1, &p) && alg_const_first(a, c2, &q) &&
		p == q;
}

/* outer(bcast lo|hi, inner(x, bcast hi|lo)) => clamp(lo, x, hi) */
static int
minmax_clamp(Alg *a, uint32_t i, int inner)
{
	uint32_t l = op0(a, i), r = op1(a, i), b1, mm, x, b2, lo, hi;
	int k;

	for (k = 0; k < 2; k++) {
		b1 = k ? r : l;
		mm = k ? l : r;
		if (bcast_eff_const(a, b1) && is_op(a, mm, inner))
			break;
	}
	if (k == 2)
		return 0;
	if (bcast_eff_const(a, op1(a, mm)))
		x = op0(a, mm), b2 = op1(a, mm);
	else if (bcast_eff_const(a, op0(a, mm)))
		x = op1(a, mm), b2 = op0(a, mm);
	else
		return 0;
	lo = inner == HOP_MIN ? b1 : b2;
	hi = inner == HOP_MIN ? b2 : b1;
	if (!const_less(a, op0(a, lo), op0(a, hi)))
		return 0;
	/* the evaluator's max and min keep their first operand on -0 ==
	 * +0, so zero float bounds could change the sign of a zero */
	if (alg_t_float(ety(a, i)) && (alg_is_all(a, lo, 0) ||
	    alg_is_all(a, hi, 0)))
		return 0;
	return alg_rep(a, i, alg_mk_tern(a, HOP_CLAMP, shape_of(a, x), lo, x, hi));
}

static int
minmax_common(Alg *a, uint32_t i, int op)
{
	uint32_t lhs = op0(a, i), rhs = op1(a, i);
	int t = ety(a, i), lt = ety(a, lhs), rt = ety(a, rhs);
	int (*ext)(Alg *, uint32_t, int) = op == HOP_MAX ? alg_is_all_min :
		alg_is_all_max;

	if (lhs == rhs)
		return alg_rep(a, i, lhs);
	if (alg_t_int(t) || (alg_t_float(t) && a->o->minmax_nan)) {
		if (rt == t && ext(a, lhs, lt))
			return alg_rep(a, i, rhs);
		if (lt == t && ext(a, rhs, rt))
			return alg_rep(a, i, lhs);
	}
	/* op(op(x, y), y) => op(x, y) */
	if (is_op(a, lhs, op) && (op0(a, lhs) == rhs || op1(a, lhs) == rhs))
		return alg_rep(a, i, lhs);
	/* op(x, op(x, y)) => op(x, y) */
	if (is_op(a, rhs, op) && op0(a, rhs) == lhs)
		return alg_rep(a, i, rhs);
	/* op(y, op(x, y)) => op(y, x) */
	if (is_op(a, rhs, op) && op1(a, rhs) == lhs) {
		alg_set_opnd(a, i, 1, op0(a, rhs));
		alg_mark_changed(a);
		return 1;
	}
	return minmax_clamp(a, i, op == HOP_MAX ? HOP_MIN : HOP_MAX);
}

/* the bounds of clamp cl are constants lo <= hi: max(lo, clamp(lo, x,
 * hi)) is then the clamp (xla assumes it; for lo > hi the max is lo).
 * Float bounds must not be zero: the evaluator's max and min keep their
 * first operand on -0 == +0 */
static int
clamp_bounds_ok(Alg *a, uint32_t cl)
{
	uint32_t lo = unbcast_const(a, op0(a, cl));
	uint32_t hi = unbcast_const(a, opnd(a, cl, 2));
	double x, y;

	if (!alg_is_const(a, lo) || !alg_is_const(a, hi) ||
	    !alg_is_eff_scalar(a, lo) || !alg_is_eff_scalar(a, hi))
		return 0;
	if (alg_t_float(ety(a, lo)))
		return alg_const_value(a, lo, &x) &&
			alg_const_value(a, hi, &y) && x <= y && x != 0 &&
			y != 0;
	return const_less(a, lo, hi) || same_const_value(a, lo, hi);
}

static int
sublinear(int op)
{
	return op == HOP_CBRT || op == HOP_ERF || op == HOP_LOGISTIC ||
		op == HOP_TANH;
}

int
alg_h_maximum(Alg *a, uint32_t i)
{
	uint32_t lhs, rhs, cl, m, k;

	if (minmax_common(a, i, HOP_MAX))
		return 1;
	lhs = op0(a, i), rhs = op1(a, i);
	/* max(lo, clamp(lo, x, hi)) => clamp(lo, x, hi) */
	for (k = 0; k < 2; k++) {
		cl = k ? lhs : rhs;
		m = k ? rhs : lhs;
		if (is_op(a, cl, HOP_CLAMP))
			break;
	}
	if (k < 2 && m == op0(a, cl) && clamp_bounds_ok(a, cl) &&
	    alg_rep_compat(a, i, cl))
		return 1;
	if (opc(a, lhs) == opc(a, rhs) && sublinear(opc(a, lhs))) {
		m = alg_mk_bin_infer(a, HOP_MAX, op0(a, lhs), op0(a, rhs));
		return alg_rep(a, i, alg_mk_un(a, opc(a, lhs), shape_of(a, i), m));
	}
	return 0;
}

int
alg_h_minimum(Alg *a, uint32_t i)
{
	return minmax_common(a, i, HOP_MIN);
}

int
alg_h_clamp(Alg *a, uint32_t i)
{
	uint32_t lo = op0(a, i), x = op1(a, i), hi = opnd(a, i, 2);
	int64_t h, bound;

	if (is_op(a, x, HOP_CLAMP) && op0(a, x) == lo &&
	    opnd(a, x, 2) == hi && alg_rep_compat(a, i, x))
		return 1;
	/* clamp(0, partition-id, h) => partition-id when the module runs on
	 * at most h + 1 partitions (replica-id: replicas); a count of 1 is
	 * taken as unknown, as in xla */
	if (!(is_op(a, x, HOP_PARTITIONID) || is_op(a, x, HOP_REPLICAID)) ||
	    !alg_const_scalar_is(a, lo, 0, 0) || !alg_is_const(a, hi) ||
	    !alg_is_scalar(a, hi) || !alg_const_int(a, hi, &h))
		return 0;
	bound = hlo_header_int(a->m, is_op(a, x, HOP_PARTITIONID) ?
		"num_partitions" : "replica_count", 1);
	return bound > 1 && h >= 0 && bound <= h + 1 && alg_rep(a, i, x);
}

/* power */

int
alg_h_power(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i), y = op1(a, i), s = shape_of(a, i), t;

	if (alg_is_all(a, y, 0))
		return alg_rep(a, i, alg_scalar_like(a, i, 1));
	if (alg_is_all(a, y, 1) && alg_rep_compat(a, i, x))
		return 1;
	if (a->o->fast_math && is_op(a, x, HOP_EXP)) {
		t = alg_mk_bin(a, HOP_MUL, s, op0(a, x), y);
		return alg_rep(a, i, alg_mk_un(a, HOP_EXP, s, t));
	}
	if (alg_is_all(a, y, 2))
		return alg_rep(a, i, alg_mk_bin(a, HOP_MUL, s, x, x));
	if (alg_is_all(a, y, 3)) {
		t = alg_mk_bin(a, HOP_MUL, s, x, x);
		return alg_rep(a, i, alg_mk_bin(a, HOP_MUL, s, x, t));
	}
	/* integer pow(0, -1) is 0 but 1 / 0 is -1: floats only */
	if (alg_is_all(a, y, -1) && !alg_t_int(ety(a, i)))
		return alg_rep(a, i, alg_mk_bin(a, HOP_DIVIDE, s, alg_scalar_like(a, x, 1),
			x));
	if (alg_is_all_float(a, y, 0.5) && alg_is_nonneg(a, x))
		return alg_rep(a, i, alg_mk_un(a, HOP_SQRT, s, x));
	return 0;
}

/* exp, log, sqrt, rsqrt */

int
alg_h_exp(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i);

	if (alg_const_scalar_is(a, x, 0, 0) || (is_op(a, x, HOP_BROADCAST) &&
	    alg_const_scalar_is(a, op0(a, x), 0, 0)))
		return alg_rep(a, i, alg_scalar_like(a, i, 1));
	return 0;
}

int
alg_h_log(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i), s = shape_of(a, i), b, p, nl, nz, bz;
	double bv;

	if (a->o->fast_math && is_op(a, x, HOP_EXP) &&
	    alg_rep_compat(a, i, op0(a, x)))
		return 1;
	/* log(pow(A, B)) => select(B == 0, 0, B * log(|A|)); only for A >= 0
	 * (or NaN) and B a finite positive constant: xla's rule is wrong
	 * for A < 0 (pow is NaN for B fractional or odd), for A = 1 with B
	 * inf or NaN (pow(1, B) = 1), and gives -0 for A = 1, B < 0 */
	if (is_op(a, x, HOP_POWER) && !alg_t_cplx(ety(a, x)) &&
	    alg_is_nonneg(a, op0(a, x)) && alg_const_value(a,
	    unbcast_const(a, op1(a, x)), &bv) && isfinite(bv) && bv > 0) {
		p = op0(a, x);
		b = op1(a, x);
		if (!alg_t_cplx(ety(a, p)))
			p = alg_mk_un(a, HOP_ABS, s, p);
		nl = alg_mk_un(a, HOP_LOG, s, p);
		nz = alg_mk_bin(a, HOP_MUL, s, nl, b);
		bz = alg_mk_compare(a, alg_shp_type(a, shape_of(a, b), TY_PRED), b,
			alg_scalar_like(a, b, 0), "EQ");
		return alg_rep(a, i, alg_mk_tern(a, HOP_SELECT, s, bz,
			alg_scalar_like(a, i, 0), nz));
	}
	/* log(rsqrt(x)) => -0.5 * log(x) is -0 for x = 1 and inf for
	 * x = -0 (log(rsqrt(-0)) = log(-inf) = NaN): sqrt only */
	if (is_op(a, x, HOP_SQRT)) {
		nl = alg_mk_un(a, HOP_LOG, s, op0(a, x));
		return alg_rep(a, i, alg_mk_bin(a, HOP_MUL, s, nl, alg_scalar_like(a, i,
			is_op(a, x, HOP_SQRT) ? 0.5 : -0.5)));
	}
	return 0;
}

int
alg_h_sqrt(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i);
	int t;

	if (!is_op(a, x, HOP_MUL) || op0(a, x) != op1(a, x))
		return 0;
	t = ety(a, x);
	/* sqrt(x * x) is |x| for real x but for its overflow; for complex
	 * z it is +-z, not |z| (sqrt(i * i) = i): no complex form */
	if (alg_t_cplx(t))
		return 0;
	return alg_rep(a, i, alg_mk_un(a, HOP_ABS, shape_of(a, op0(a, x)),
		op0(a, x)));
}

int
alg_h_rsqrt(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i);

	if (is_op(a, x, HOP_POWER) && alg_is_all(a, op1(a, x), -2) &&
	    alg_is_nonneg(a, op0(a, x)))
		return alg_rep(a, i, op0(a, x));
	if (is_op(a, x, HOP_DIVIDE) && alg_is_all(a, op0(a, x), 1) &&
	    alg_is_nonneg(a, op1(a, x)))
		return alg_rep(a, i, alg_mk_un(a, HOP_SQRT, shape_of(a, i), op1(a, x)));
	return 0;
}

/* convert */

/* numeric_limits of the float types: min_exponent, max_exponent,
 * digits, and whether they have inf, NaN and -0 */
typedef struct {
	int type, emin, emax, digits, inf, nan, negzero;
} FloatLim;

static const FloatLim flims[] = {
	{TY_F16, -13, 16, 11, 1, 1, 1},
	{TY_BF16, -125, 128, 8, 1, 1, 1},
	{TY_F32, -125, 128, 24, 1, 1, 1},
	{TY_F64, -1021, 1024, 53, 1, 1, 1},
	{TY_F8E5M2, -13, 16, 3, 1, 1, 1},
	{TY_F8E4M3, -5, 8, 4, 1, 1, 1},
	{TY_F8E4M3FN, -5, 9, 4, 0, 1, 1},
	{TY_F8E4M3B11FNUZ, -9, 5, 4, 0, 1, 0},
	{TY_F8E3M4, -1, 4, 5, 1, 1, 1},
	{TY_F8E5M2FNUZ, -14, 16, 3, 0, 1, 0},
	{TY_F8E4M3FNUZ, -6, 8, 4, 0, 1, 0},
	{TY_F4E2M1FN, 1, 3, 2, 0, 0, 1},
	{TY_F8E8M0FNU, -126, 128, 1, 0, 1, 0},
	{TY_F6E3M2FN, -1, 5, 3, 0, 0, 1},
	{TY_F6E2M3FN, 1, 3, 4, 0, 0, 1},
};

static const FloatLim *
flim(int t)
{
	size_t k;

	for (k = 0; k < sizeof flims / sizeof flims[0]; k++)
		if (flims[k].type == t)
			return &flims[k];
	return NULL;
}

/* primitive_util::CastPreservesValues */
static int
cast_preserves(int from, int to)
{
	const FloatLim *f, *g;
	int fb, tb;

	if (from == to)
		return 1;
	if (to == TY_F8E8M0FNU)
		return 0;
	if (from == TY_PRED)
		return 1;
	if (to == TY_PRED)
		return 0;
	if (alg_t_cplx(to))
		return cast_preserves(alg_t_cplx(from) ? (from == TY_C64 ? TY_F32 :
			TY_F64) : from, to == TY_C64 ? TY_F32 : TY_F64);
	if (alg_t_cplx(from))
		return 0;
	if (alg_t_float(from) && alg_t_float(to)) {
		f = flim(from), g = flim(to);
		if (!f || !g)
			return 0;
		return (!f->inf || g->inf) && (!f->nan || g->nan) &&
			(!f->negzero || g->negzero) && f->emin >= g->emin &&
			f->emax <= g->emax && f->digits <= g->digits;
	}
	if (!alg_t_int(from))
		return 0;
	fb = alg_t_bits(from) - alg_t_sint(from);
	tb = alg_t_bits(to) - alg_t_sint(to);
	if (alg_t_sint(from) && alg_t_uint(to))
		return 0;
	if (alg_t_int(to))
		return fb <= tb;
	if (alg_t_float(to)) {
		g = flim(to);
		return g && fb <= g->digits && alg_t_bits(from) - 1 < g->emax;
	}
	return 0;
}

static int
subbyte(int t)
{
	return t != TY_PRED && alg_t_bits(t) < 8;
}

/* convert(op(convert(a), convert(b))) => op(a, b) for integer types */
static int
narrow_binop(Alg *a, uint32_t i)
{
	uint32_t b = op0(a, i), c1, c2, x, y, ops[2];
	int op = opc(a, b), ft = ety(a, i), bt;

	if (op != HOP_ADD && op != HOP_SUBTRACT && op != HOP_MUL &&
	    op != HOP_DIVIDE && op != HOP_REMAINDER)
		return 0;
	if (!alg_one_user(a, b))
		return 0;
	bt = ety(a, b);
	if ((op == HOP_DIVIDE || op == HOP_REMAINDER) && !alg_t_uint(bt))
		return 0;
	c1 = op0(a, b), c2 = op1(a, b);
	if (!is_op(a, c1, HOP_CONVERT) || !is_op(a, c2, HOP_CONVERT) ||
	    !alg_one_user(a, c1) || !alg_one_user(a, c2))
		return 0;
	x = op0(a, c1), y = op0(a, c2);
	if (ety(a, x) != ft || ety(a, y) != ft)
		return 0;
	if (!alg_t_int(ft) || !alg_t_int(bt) || subbyte(ft) || subbyte(bt) ||
	    alg_t_sint(ft) != alg_t_sint(bt) || !cast_preserves(ft, bt))
		return 0;
	ops[0] = x, ops[1] = y;
	return alg_rep(a, i, alg_mk_clone(a, b, alg_shp_type(a, shape_of(a, b), ft), 2,
		ops));
}

int
alg_h_convert(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i);
	int src = ety(a, x), dst = ety(a, i);

	if (src == dst)
		return alg_rep(a, i, x);
	if (is_op(a, x, HOP_CONVERT) && ety(a, op0(a, x)) == dst &&
	    cast_preserves(dst, src))
		return alg_rep(a, i, op0(a, x));
	return narrow_binop(a, i);
}

/* complex parts */

int
alg_h_real(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i);

	if (is_op(a, x, HOP_COMPLEX))
		return alg_rep(a, i, op0(a, x));
	if (!alg_t_cplx(ety(a, x)))
		return alg_rep(a, i, x);
	return 0;
}

int
alg_h_imag(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i), z;

	if (is_op(a, x, HOP_COMPLEX))
		return alg_rep(a, i, op1(a, x));
	if (!alg_t_cplx(ety(a, x))) {
		z = alg_mk_scalar_i(a, ety(a, i), 0);
		return alg_rep(a, i, alg_mk_bcast(a, shape_of(a, i), z, NULL, 0));
	}
	return 0;
}

int
alg_h_complex(Alg *a, uint32_t i)
{
	uint32_t r = op0(a, i), m = op1(a, i);

	return is_op(a, r, HOP_REAL) && is_op(a, m, HOP_IMAG) &&
		op0(a, r) == op0(a, m) && alg_rep(a, i, op0(a, r));
}

/* bitcast-convert */

int
alg_h_bitcast_convert(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i), n, k, *in, c;
	int to = ety(a, i);

	if (is_op(a, x, HOP_BITCASTCVT))
		return alg_rep(a, i, alg_mk_un(a, HOP_BITCASTCVT, shape_of(a, i),
			op0(a, x)));
	if (is_op(a, x, HOP_CONCAT)) {
		n = nops(a, x);
		in = alg_tmp(a, (n + 1) * 4u);
		for (k = 0; k < n; k++) {
			c = opnd(a, x, k);
			if (!is_op(a, c, HOP_BITCASTCVT) ||
			    ety(a, op0(a, c)) != to)
				break;
			in[k] = op0(a, c);
		}
		if (k == n && n > 0) {
			uint32_t nd;
			const int64_t *dd = alg_ints_attr(a, x, A_DIMENSIONS, &nd);
			int64_t tot = 0, d = nd == 1 ? dd[0] : -1;

			for (k = 0; k < n; k++) {
				int q;

				if (rank(a, in[k]) != rank(a, i) || d < 0 ||
				    d >= rank(a, i) || ety(a, in[k]) != to)
					return 0;
				for (q = 0; q < rank(a, i); q++)
					if (q != d && dim(a, in[k], q) !=
					    dim(a, i, q))
						return 0;
				tot += dim(a, in[k], d);
			}
			if (tot != dim(a, i, d))
				return 0;
			return alg_rep(a, i, alg_mk_concat_infer(a, n, in, d));
		}
	}
	return alg_rep_compat(a, i, x);
}

int
alg_h_reduce_precision(Alg *a, uint32_t i)
{
	(void)a, (void)i;
	return 0;	/* enable_remove_no_op_reduce_precision is off */
}

/* map */

int
alg_h_map(Alg *a, uint32_t i)
{
	HloModule *m = a->m;
	uint32_t comp, k, n, *ops, p, cl;
	const HloComp *cp;
	const HloInstr *root;
	int64_t num;

	if (INS(a, i)->ncalled != 1)
		return 0;
	comp = m->ids[INS(a, i)->called];
	if (comp >= m->ncomps)
		return 0;
	cp = &m->comps[comp];
	if (cp->root >= cp->nins)
		return 0;
	root = &cp->ins[cp->root];
	if (root->op == HOP_PARAMETER) {
		if (root->num < 0 || root->num >= nops(a, i))
			return 0;
		return alg_rep_compat(a, i, opnd(a, i, root->num));
	}
	if (root->op == HOP_CONSTANT) {
		const HloShape *rs = &m->shapes[root->shape];
		uint32_t nb;
		const unsigned char *lp = hlo_literal(m, root, &nb);

		if (rs->type == TY_TUPLE || rs->rank != 0 || !lp)
			return 0;
		cl = alg_mk_const(a, root->shape, lp, nb);
		if (alg_is_scalar(a, i))
			return alg_rep(a, i, cl);
		return alg_rep(a, i, alg_mk_bcast(a, shape_of(a, i), cl, NULL, 0));
	}
	if (root->op == HOP_FUSION || !(hlo_opinfo[root->op].flags & OPF_ELEM))
		return 0;
	n = root->nops;
	ops = alg_tmp(a, (n + 1) * 4u);
	for (k = 0; k < n; k++) {
		p = m->ids[root->ops + k];
		if (p >= cp->nins || cp->ins[p].op != HOP_PARAMETER)
			return 0;
		num = cp->ins[p].num;
		if (num < 0 || num >= nops(a, i))
			return 0;
		ops[k] = opnd(a, i, num);
	}
	/* CloneWithNewOperands of the root, with the map's shape */
	{
		HloInstr src = *root;
		uint32_t id = alg_mk(a, src.op, shape_of(a, i), n, ops);
		HloAttr *at;
		uint32_t *cc;

		if (src.nattrs) {
			at = alg_tmp(a, src.nattrs * sizeof *at);
			memcpy(at, m->attrv + src.attrs,
				src.nattrs * sizeof *at);
			hlo_set_attrs(m, a->c, id, src.nattrs, at);
		}
		if (src.ncalled) {
			cc = alg_tmp(a, src.ncalled * 4u);
			memcpy(cc, m->ids + src.called, src.ncalled * 4u);
			hlo_set_called(m, a->c, id, src.ncalled, cc);
		}
		return alg_rep(a, i, id);
	}
}

/* special values: -0 and NaN. A rule that would differ from the original
 * on them applies only where these analyses prove they cannot occur
 * (man/hlopt.1, "Floating-point special values"). */

/* every element of constant c satisfies bad() false */
static int
const_avoids(Alg *a, uint32_t c, int negzero)
{
	uint32_t nb;
	const unsigned char *p = alg_lit(a, c, &nb);
	int t = ety(a, c), parts = alg_t_cplx(t) ? 2 : 1, esz, ft, q, k;
	int64_t n = alg_elems(a, c), j;

	if (!p || n < 0)
		return 0;
	ft = !alg_t_cplx(t) ? t : t == TY_C64 ? TY_F32 : TY_F64;
	esz = hlo_type_bytes(ft);
	if ((uint64_t)n * parts * esz > nb)
		return 0;
	for (j = 0; j < n * parts; j++, p += esz) {
		uint64_t bits = 0;
		double v;

		for (k = esz; k-- > 0;)
			bits = bits << 8 | p[k];
		v = hlo_float_decode(ft, bits);
		q = negzero ? v == 0 && signbit(v) : isnan(v);
		if (q)
			return 0;
	}
	return 1;
}

/* operations whose elements all come from operand 0 (and, for pad,
 * select and concatenate, from the other data operands) */
static int
moves_data(int op)
{
	switch (op) {
	case HOP_BROADCAST: case HOP_RESHAPE: case HOP_TRANSPOSE:
	case HOP_SLICE: case HOP_COPY: case HOP_REVERSE: case HOP_DYNSLICE:
	case HOP_PAD: case HOP_CONCAT: case HOP_MAX: case HOP_MIN:
		return 1;
	}
	return 0;
}

static int
avoids(Alg *a, uint32_t i, int negzero, int *budget)
{
	int t = ety(a, i), op = opc(a, i);
	uint32_t k;

	if (!alg_t_float(t) && !alg_t_cplx(t))
		return is_array_type_elem(t);
	if (--*budget < 0)
		return 0;
	if (op == HOP_CONSTANT)
		return const_avoids(a, i, negzero);
	if (op == HOP_IOTA)
		return 1;
	if (op == HOP_CONVERT) {
		int from = ety(a, op0(a, i));

		/* narrowing may round a tiny negative to -0, or overflow
		 * to NaN in types without infinity */
		if (!alg_t_float(from) && !alg_t_cplx(from))
			return 1;
		return cast_preserves(from, t) &&
			avoids(a, op0(a, i), negzero, budget);
	}
	if (op == HOP_SELECT)
		return avoids(a, op1(a, i), negzero, budget) &&
			avoids(a, opnd(a, i, 2), negzero, budget);
	if (op == HOP_PAD)
		return avoids(a, op0(a, i), negzero, budget) &&
			avoids(a, op1(a, i), negzero, budget);
	if (moves_data(op)) {
		uint32_t n = op == HOP_DYNSLICE ? 1 : nops(a, i);

		for (k = 0; k < n; k++)
			if (!avoids(a, opnd(a, i, k), negzero, budget))
				return 0;
		return n > 0;
	}
	if (negzero) {
		/* abs and exp are never -0; a sum is -0 only if both terms
		 * are, a difference only if its left side is */
		if (op == HOP_ABS || op == HOP_EXP)
			return 1;
		if (op == HOP_ADD)
			return avoids(a, op0(a, i), 1, budget) ||
				avoids(a, op1(a, i), 1, budget);
		if (op == HOP_SUBTRACT || op == HOP_SQRT)
			return avoids(a, op0(a, i), 1, budget);
		return 0;
	}
	if (op == HOP_ABS || op == HOP_NEGATE || op == HOP_EXP)
		return avoids(a, op0(a, i), 0, budget);
	return 0;
}

int
alg_no_negzero(Alg *a, uint32_t i)
{
	int budget = 64;

	return avoids(a, i, 1, &budget);
}

int
alg_no_nan(Alg *a, uint32_t i)
{
	int budget = 64;

	return avoids(a, i, 0, &budget);
}
