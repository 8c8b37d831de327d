/* algsimp_misc.c: the algebraic simplifier's handlers for reductions,
 * windows, dot, convolution, gather, scatter, sort, collectives,
 * custom-call and opt-barrier, after xla's algebraic_simplifier.cc. */
#include <string.h>

#include "algsimp.h"
#include "build.h"

static uint32_t
tuple_elem(Alg *a, uint32_t s, uint32_t k)
{
	return a->m->ids[a->m->shapes[s].tuple + k];
}

/* the shape s without dimensions d (sorted or not) */
static uint32_t
delete_dims(Alg *a, uint32_t s, const int64_t *d, uint32_t nd)
{
	const HloShape *sh = &a->m->shapes[s];
	int r = sh->rank, k;
	int64_t *v = alg_tmp(a, ((size_t)r + 1) * 8);
	uint32_t m = 0;

	for (k = 0; k < r; k++)
		if (!hlo_ints_has(d, nd, k))
			v[m++] = a->m->ints[a->m->shapes[s].dims + k];
	return alg_shp(a, sh->type, m, v, s);
}

/* reduce */

static int
equiv_reducers(Alg *a, uint32_t x, uint32_t y)
{
	int kx, ky;

	if (x == y)
		return 1;
	if (hlo_param_count(a->m, x) != 2 || hlo_param_count(a->m, y) != 2)
		return 0;
	kx = alg_reduce_kind(a, x);
	ky = alg_reduce_kind(a, y);
	if (kx != ky || (kx != HOP_ADD && kx != HOP_MUL && kx != HOP_AND &&
	    kx != HOP_OR))
		return 0;
	return 1;
}

/* root of comp: op(parameter(0), parameter(1)) in either order */
static int
root_is(Alg *a, uint32_t comp, int op)
{
	const HloComp *cp;
	const HloInstr *r;
	int64_t nx, ny;

	if (alg_reduce_kind(a, comp) != op)
		return 0;
	cp = &a->m->comps[comp];
	r = &cp->ins[cp->root];
	nx = cp->ins[a->m->ids[r->ops]].num;
	ny = cp->ins[a->m->ids[r->ops + 1]].num;
	return (nx == 0 && ny == 1) || (nx == 1 && ny == 0);
}

static int
same_instr(Alg *a, uint32_t x, uint32_t y)
{
	const HloInstr *p = INS(a, x), *q = INS(a, y);
	static const uint8_t ign[A_COUNT] = {
		[A_METADATA] = 1, [A_ORIGIN] = 1, [A_STATISTICS] = 1,
		[A_FRONTEND_ATTRIBUTES] = 1, [A_SHARDING] = 1,
		[A_BACKEND_CONFIG] = 1,
	};
	uint32_t k;

	if (x == y)
		return 1;
	if (p->op != q->op || p->nops != q->nops || p->shape != q->shape ||
	    p->ncalled || q->ncalled || p->op == HOP_PARAMETER)
		return 0;
	for (k = 0; k < p->nops; k++)
		if (opnd(a, x, k) != opnd(a, y, k))
			return 0;
	return hlo_attrs_equal(a->m, p, q, ign);
}

/* a parameter of comp numbered num at instruction x of comp */
static int
cparam(const HloComp *cp, uint32_t x, int64_t num)
{
	return x < cp->nins && cp->ins[x].op == HOP_PARAMETER &&
		cp->ins[x].num == num;
}

static int
cdir(Alg *a, const HloInstr *in, const char *d)
{
	return in->op == HOP_COMPARE && hlo_attr_is(a->m, in, A_DIRECTION, d);
}

static uint32_t
cop(Alg *a, const HloInstr *in, uint32_t k)
{
	return a->m->ids[in->ops + k];
}

static int
ccompare(Alg *a, const HloComp *cp, uint32_t x, const char *d, int64_t p,
	int64_t q)
{
	const HloInstr *in;

	if (x >= cp->nins)
		return 0;
	in = &cp->ins[x];
	return cdir(a, in, d) && in->nops == 2 && cparam(cp, cop(a, in, 0), p)
		&& cparam(cp, cop(a, in, 1), q);
}

static int
value_pred(Alg *a, const HloComp *cp, uint32_t x, int is_max)
{
	const HloInstr *in;
	uint32_t l, r;

	if (x >= cp->nins || cp->ins[x].op != HOP_OR || cp->ins[x].nops != 2)
		return 0;
	in = &cp->ins[x];
	l = cop(a, in, 0), r = cop(a, in, 1);
	return (ccompare(a, cp, l, is_max ? "GT" : "LT", 0, 2) &&
		ccompare(a, cp, r, "NE", 0, 0)) ||
		(ccompare(a, cp, r, is_max ? "GT" : "LT", 0, 2) &&
		ccompare(a, cp, l, "NE", 0, 0));
}

static int
cselect(Alg *a, const HloComp *cp, uint32_t x, uint32_t *pred, int64_t p,
	int64_t q)
{
	const HloInstr *in;

	if (x >= cp->nins || cp->ins[x].op != HOP_SELECT ||
	    cp->ins[x].nops != 3)
		return 0;
	in = &cp->ins[x];
	*pred = cop(a, in, 0);
	return cparam(cp, cop(a, in, 1), p) && cparam(cp, cop(a, in, 2), q);
}

/* MatchArgMinMax on the root of comp */
static int
argminmax_comp(Alg *a, uint32_t comp, int is_max)
{
	const HloComp *cp;
	const HloInstr *r, *o, *an;
	uint32_t p1, p2, l, rr;

	if (!(r = alg_comp_root(a, comp)))
		return 0;
	cp = &a->m->comps[comp];
	if (r->op != HOP_TUPLE || r->nops != 2)
		return 0;
	if (!cselect(a, cp, cop(a, r, 0), &p1, 0, 2) ||
	    !value_pred(a, cp, p1, is_max))
		return 0;
	if (!cselect(a, cp, cop(a, r, 1), &p2, 1, 3) || p2 >= cp->nins)
		return 0;
	o = &cp->ins[p2];
	if (o->op != HOP_OR || o->nops != 2)
		return 0;
	for (l = 0; l < 2; l++) {
		uint32_t v = cop(a, o, l), w = cop(a, o, 1 - l);

		if (!value_pred(a, cp, v, is_max) || w >= cp->nins)
			continue;
		an = &cp->ins[w];
		if (an->op != HOP_AND || an->nops != 2)
			continue;
		rr = cop(a, an, 1);
		if (ccompare(a, cp, cop(a, an, 0), "EQ", 0, 2) &&
		    ccompare(a, cp, rr, "LT", 1, 3))
			return 1;
	}
	return 0;
}

static int
match_argminmax(Alg *a, uint32_t i, int is_max)
{
	if (!is_op(a, i, HOP_REDUCE) || nops(a, i) != 4 || !is_tuple(a, i) ||
	    !is_op(a, opnd(a, i, 1), HOP_IOTA) ||
	    !alg_scalar_inf(a, opnd(a, i, 2), is_max) ||
	    !alg_scalar_zero(a, opnd(a, i, 3)))
		return 0;
	return argminmax_comp(a, called(a, i), is_max);
}

/* a copy of the reducer comp whose root is a tuple of one element,
 * rooted at that element instead; HLO_NONE if the tuple has not one */
static uint32_t
untupled_reducer(Alg *a, uint32_t comp)
{
	const HloComp *cp = &a->m->comps[comp];
	uint32_t nc, nr;

	if (cp->ins[cp->root].op != HOP_TUPLE || cp->ins[cp->root].nops != 1)
		return HLO_NONE;
	nc = hlo_comp_clone(a->m, comp, ".clone");
	nr = a->m->ids[a->m->comps[nc].ins[a->m->comps[nc].root].ops];
	a->m->comps[nc].ins[a->m->comps[nc].root].flags |= HI_DEAD;
	a->m->comps[nc].root = nr;
	hlo_comp_compact(a->m, nc);
	return nc;
}

static int
reduce_multi(Alg *a, uint32_t i, uint32_t rs)
{
	uint32_t n = nops(a, i) / 2, k, comp = called(a, i);
	uint32_t arg = op0(a, i), init = opnd(a, i, n), nd;
	int64_t *d;

	/* a variadic reduce of one input with a tuple root: a plain reduce
	 * of a copy of the reducer without the tuple */
	if (a->m->shapes[shape_of(a, i)].ntuple == 1 && n == 1 &&
	    alg_comp_root_op(a, comp) == HOP_TUPLE) {
		uint32_t nc = untupled_reducer(a, comp);

		if (nc == HLO_NONE)
			return 0;
		d = alg_ints_copy(a, i, A_DIMENSIONS, &nd);
		k = alg_mk_reduce(a, rs, arg, init, d, nd, nc);
		return alg_rep(a, i, alg_mk_tuple(a, 1, &k));
	}
	/* xla makes a variadic reduce of as many elements as results a
	 * tuple of reshapes, assuming the inits are an identity of the
	 * reducer; not provable for a variadic reducer (an arg-max of -inf
	 * at index 1 gives index 0): not done */
	return 0;
}

static int
reduce_argminmax_bcast(Alg *a, uint32_t i, uint32_t rs)
{
	uint32_t arg = op0(a, i), io = opnd(a, i, 1), nd, v, z, vb, zb;
	int64_t *d = alg_ints_copy(a, i, A_DIMENSIONS, &nd);
	int it;

	if (!(match_argminmax(a, i, 1) || match_argminmax(a, i, 0)) ||
	    !is_op(a, arg, HOP_BROADCAST) || !alg_is_const(a, op0(a, arg)) ||
	    !alg_is_scalar(a, op0(a, arg)))
		return 0;
	if (!hlo_ints_has(d, nd, alg_int_attr(a, io, A_IOTA_DIM, 0)))
		return 0;
	it = a->m->shapes[tuple_elem(a, shape_of(a, i), 1)].type;
	v = op0(a, arg);
	z = alg_mk_scalar_i(a, it, 0);
	vb = alg_mk_bcast(a, rs, v, NULL, 0);
	zb = alg_mk_bcast(a, alg_shp_type(a, rs, it), z, NULL, 0);
	{
		uint32_t el[2] = {vb, zb};

		return alg_rep(a, i, alg_mk_tuple(a, 2, el));
	}
}

static int
reduce_transpose(Alg *a, uint32_t i, uint32_t arg, const int64_t *d,
	uint32_t nd, uint32_t comp)
{
	uint32_t np, k, *us, nu, m = 0, nr;
	int64_t *p = alg_ints_copy(a, arg, A_DIMENSIONS, &np), *rd, *td;
	int ok;

	ok = a->o->uncond_reduce_tr || rank(a, i) < 2 || alg_one_user(a, arg);
	if (!ok) {
		nu = alg_users(a, arg, &us);
		for (ok = 1, k = 0; k < nu; k++)
			if (!is_op(a, us[k], HOP_REDUCE))
				ok = 0;
	}
	if (!ok)
		return 0;
	if (!(rd = alg_ints_pick(a, p, np, d, nd)))
		return 0;
	nr = alg_mk_reduce(a, delete_dims(a, shape_of(a, op0(a, arg)), rd, nd),
		op0(a, arg), opnd(a, i, 1), rd, nd, comp);
	td = alg_tmp(a, (np + 1) * 8u);
	for (k = 0; k < np; k++)
		if (!hlo_ints_has(rd, nd, p[k]))
			td[m++] = p[k];
	if (hlo_ints_ascending(td, m))
		return alg_rep(a, i, nr);
	for (k = 0; k < m; k++) {
		int64_t old = td[k];
		uint32_t j;

		for (j = 0; j < nd; j++)
			if (old > rd[j])
				td[k]--;
	}
	return alg_rep(a, i, alg_mk_transpose_infer(a, nr, td));
}

static int
reduce_reduce(Alg *a, uint32_t i, uint32_t arg, const int64_t *d,
	uint32_t nd, uint32_t comp, uint32_t rs)
{
	uint32_t na, k, j, m = 0, x = 0, y = 0;
	int64_t *ad = alg_ints_copy(a, arg, A_DIMENSIONS, &na), *rd, *md;

	rd = alg_tmp(a, (nd + 1) * 8u);
	md = alg_tmp(a, (nd + na + 1) * 8u);
	memcpy(rd, d, nd * 8u);
	for (k = 1; k < na; k++)	/* sort both */
		for (j = k; j > 0 && ad[j - 1] > ad[j]; j--) {
			int64_t t = ad[j];

			ad[j] = ad[j - 1], ad[j - 1] = t;
		}
	for (k = 1; k < nd; k++)
		for (j = k; j > 0 && rd[j - 1] > rd[j]; j--) {
			int64_t t = rd[j];

			rd[j] = rd[j - 1], rd[j - 1] = t;
		}
	for (k = 0; k < na; k++)
		for (j = 0; j < nd; j++)
			if (rd[j] >= ad[k])
				rd[j]++;
	while (x < na || y < nd) {
		if (y == nd || (x < na && ad[x] <= rd[y]))
			md[m++] = ad[x++];
		else
			md[m++] = rd[y++];
	}
	return alg_rep(a, i, alg_mk_reduce(a, rs, op0(a, arg), opnd(a, i, 1), md, m,
		comp));
}

static int
reduce_reshape(Alg *a, uint32_t i, uint32_t arg, const int64_t *d,
	uint32_t nd, uint32_t comp, uint32_t rs)
{
	uint32_t x = op0(a, arg), n, k, m = 0, j;
	int ra = rank(a, arg), rx = rank(a, x), q;
	int64_t *u = alg_tmp(a, ((size_t)ra + rx + 4) * 16), *nr;
	uint8_t *inout = alg_tmp(a, (size_t)ra + 1);
	uint8_t *unmod = alg_tmp(a, (size_t)ra + 1);
	int can = 1;

	if (is_tuple(a, x))
		return 0;
	n = alg_unmodified_dims(dims(a, x), rx, dims(a, arg), ra, u);
	memset(inout, 1, ra);
	memset(unmod, 0, ra);
	for (k = 0; k < nd; k++)
		if (d[k] >= 0 && d[k] < ra)
			inout[d[k]] = 0;
	for (k = 0; k < n; k++)
		unmod[u[2 * k + 1]] = 1;
	for (q = 0; q < ra; q++)
		if (inout[q] && !unmod[q])
			can = 0;
	nr = alg_tmp(a, ((size_t)rx + ra + 1) * 8);
	if (can) {
		uint8_t *keep = alg_tmp(a, (size_t)rx + 1);

		memset(keep, 0, rx);
		for (k = 0; k < n; k++)
			if (inout[u[2 * k + 1]])
				keep[u[2 * k]] = 1;
		for (q = 0; q < rx; q++)
			if (!keep[q])
				nr[m++] = q;
		return alg_rep(a, i, alg_mk_reduce(a, rs, x, opnd(a, i, 1), nr, m,
			comp));
	}
	if (!(alg_one_user(a, arg) || a->o->uncond_reduce_tr))
		return 0;
	for (k = 0; k < nd; k++)
		if (!unmod[d[k]])
			return 0;
	for (k = 0; k < nd; k++)
		for (j = 0; j < n; j++)
			if (u[2 * j + 1] == d[k]) {
				nr[m++] = u[2 * j];
				break;
			}
	{
		uint32_t r = alg_mk_reduce(a, delete_dims(a, shape_of(a, x), nr, m),
			x, opnd(a, i, 1), nr, m, comp);

		return alg_rep(a, i, alg_mk_reshape(a, shape_of(a, i), r));
	}
}

/* the result of reducing with comp does not change when init is applied
 * once more: comp idempotent (max, min, and, or) or init its identity
 * (0 for add, 1 for multiply). xla assumes it for reduce of concatenate,
 * which reduces every operand from init */
static int
init_repeatable(Alg *a, uint32_t comp, uint32_t init)
{
	switch (alg_reduce_kind(a, comp)) {
	case HOP_MAX: case HOP_MIN: case HOP_AND: case HOP_OR:
		return 1;
	case HOP_ADD:
		return alg_is_all(a, init, 0);
	case HOP_MUL:
		return alg_is_all(a, init, 1);
	}
	return 0;
}

/* init is an identity of comp for every element of x: init (+) x is x.
 * xla assumes it where a reduce of as many elements as it has results
 * becomes a reshape */
static int
init_is_identity(Alg *a, uint32_t comp, uint32_t init, uint32_t x)
{
	int t = ety(a, init);

	switch (alg_reduce_kind(a, comp)) {
	case HOP_ADD:
		if (!alg_t_float(t) && !alg_t_cplx(t))
			return alg_is_all(a, init, 0);
		/* +0 + -0 is +0 */
		return alg_is_all_zero(a, init, 1) || (alg_is_all(a, init, 0) &&
			alg_no_negzero(a, x));
	case HOP_MUL:
		return alg_is_all(a, init, 1);
	case HOP_MAX:
		return alg_is_all_min(a, init, t);
	case HOP_MIN:
		return alg_is_all_max(a, init, t);
	case HOP_AND:
		return t == TY_PRED ? alg_is_all(a, init, 1) :
			alg_t_uint(t) ? alg_is_all_max(a, init, t) :
			alg_is_all(a, init, -1);
	case HOP_OR:
		return alg_is_all(a, init, 0);
	}
	return 0;
}

static int
reduce_concat(Alg *a, uint32_t i, uint32_t arg, const int64_t *d,
	uint32_t nd, uint32_t comp, uint32_t rs)
{
	uint32_t n = nops(a, arg), k, old = HLO_NONE, nw, z;
	const int64_t *cd = alg_ints_attr(a, arg, A_DIMENSIONS, &z);
	int same = 1;

	if (!cd || z != 1 || !hlo_ints_has(d, nd, cd[0]))
		return 0;
	if (!init_repeatable(a, comp, opnd(a, i, 1)))
		return 0;
	for (k = 1; k < n; k++)
		if (!alg_same_shape(a, opnd(a, arg, k), op0(a, arg)))
			same = 0;
	if (!a->o->reduce_concat && !same && rank(a, i) != 0)
		return 0;
	for (k = 0; k < n; k++) {
		nw = alg_mk_reduce(a, rs, opnd(a, arg, k), opnd(a, i, 1), d, nd,
			comp);
		if (old != HLO_NONE) {
			uint32_t ops[2] = {old, nw};

			nw = alg_mk(a, HOP_MAP, rs, 2, ops);
			hlo_set_called(a->m, a->c, nw, 1, &comp);
			{
				int64_t *dd = alg_tmp(a, ((size_t)rank(a, nw) +
					1) * 8);
				int q;

				for (q = 0; q < rank(a, nw); q++)
					dd[q] = q;
				alg_set_ints(a, nw, A_DIMENSIONS, dd, rank(a, nw));
			}
		}
		old = nw;
	}
	return alg_rep(a, i, old);
}

static int
reduce_argmax_user(Alg *a, uint32_t i, uint32_t arg, int is_max)
{
	uint32_t *us, nu, k, u, n1, n2;
	const int64_t *d1, *d2;

	if (nops(a, i) != 2 ||
	    !root_is(a, called(a, i), is_max ? HOP_MAX : HOP_MIN) ||
	    !alg_scalar_inf(a, opnd(a, i, 1), is_max))
		return 0;	/* the cheap test first */
	nu = alg_users(a, arg, &us);
	for (k = 0; k < nu; k++) {
		u = us[k];
		if (u == i || op0(a, u) != arg || !match_argminmax(a, u, is_max))
			continue;
		d1 = alg_ints_attr(a, i, A_DIMENSIONS, &n1);
		d2 = alg_ints_attr(a, u, A_DIMENSIONS, &n2);
		if (n1 != n2 || (n1 && memcmp(d1, d2, n1 * 8u)))
			continue;
		return alg_rep(a, i, alg_mk_gte(a, u, 0));
	}
	return 0;
}

static int
reduce_bcast(Alg *a, uint32_t i, uint32_t arg, const int64_t *d,
	uint32_t nd, uint32_t comp, uint32_t rs)
{
	uint32_t x = op0(a, arg), nb, k, j, m = 0, nr;
	int64_t *bd = alg_ints_copy(a, arg, A_DIMENSIONS, &nb), *rd, *nbd;
	int root = alg_comp_root_op(a, comp), ra = rank(a, arg), q;

	if ((root_is(a, comp, HOP_MAX) || root_is(a, comp, HOP_MIN) ||
	    root_is(a, comp, HOP_AND) || root_is(a, comp, HOP_OR)) &&
	    alg_is_scalar(a, x) && nd == (uint32_t)ra)
		/* the init first, as the reduction starts from it (max and
		 * min keep their first operand on -0 == +0) */
		return alg_rep(a, i, alg_mk_bin(a, root, rs, opnd(a, i, 1), x));
	rd = alg_tmp(a, (nd + 1) * 8u);
	for (k = 0; k < nd; k++) {
		for (j = 0; j < nb; j++)
			if (bd[j] == d[k])
				break;
		if (j == nb)
			break;
		rd[k] = j;
	}
	if (k == nd) {
		nr = alg_mk_reduce(a, delete_dims(a, shape_of(a, x), rd, nd), x,
			opnd(a, i, 1), rd, nd, comp);
		nbd = alg_tmp(a, (nb + 1) * 8u);
		for (q = 0; q < rank(a, x); q++) {
			int64_t b, sh = 0;

			if (hlo_ints_has(rd, nd, q))
				continue;
			b = bd[q];
			for (k = 0; k < nd; k++)
				sh += d[k] < b;
			nbd[m++] = b - sh;
		}
		return alg_rep(a, i, alg_mk_bcast(a, rs, nr, nbd, m));
	}
	/* reduce(broadcast(x), add) over added dimensions: x * n + init */
	if (!root_is(a, comp, HOP_ADD) || !hlo_ints_ascending(bd, nb))
		return 0;
	{
		int64_t prod = 1, ncommon = 0, *sd = alg_tmp(a,
			((size_t)ra + 1) * 8);
		uint32_t ns = 0, mul, add, ib;

		nbd = alg_tmp(a, ((size_t)ra + 1) * 8);
		m = 0;
		for (q = 0; q < ra; q++) {
			int added = !hlo_ints_has(bd, nb, q);
			int red = hlo_ints_has(d, nd, q);

			if (red && !added)
				return 0;
			if (red && added) {
				prod *= dim(a, arg, q);
				ncommon++;
			} else {
				sd[ns++] = dim(a, arg, q);
				if (!added)
					nbd[m++] = q - ncommon;
			}
		}
		mul = alg_mk_bin_infer(a, HOP_MUL, x, alg_scalar_like_i(a, x, prod));
		ib = alg_mk_bcast(a, shape_of(a, mul), opnd(a, i, 1), NULL, 0);
		add = alg_mk_bin_infer(a, HOP_ADD, ib, mul);
		return alg_rep(a, i, alg_mk_bcast(a, alg_shp(a, ety(a, arg), ns, sd, rs),
			add, nbd, m));
	}
}

static int reduce_batch_dot(Alg *a, uint32_t i, uint32_t x, const int64_t *d,
	uint32_t nd, uint32_t comp);

int
alg_h_reduce(Alg *a, uint32_t i)
{
	uint32_t arg, init, rs, nd, comp = called(a, i), n = nops(a, i) / 2;
	int multi = is_tuple(a, i);
	int64_t *d;

	if (n == 0 || nops(a, i) != 2 * n || comp == HLO_NONE)
		return 0;
	arg = op0(a, i);
	init = opnd(a, i, n);
	rs = multi ? tuple_elem(a, shape_of(a, i), 0) : shape_of(a, i);
	d = alg_ints_copy(a, i, A_DIMENSIONS, &nd);
	if (alg_is_zero_elems(a, arg) || hlo_shape_elems(a->m, rs) == 0) {
		uint32_t k, *el;

		if (!multi)
			return alg_rep(a, i, alg_mk_bcast(a, rs, init, NULL, 0));
		el = alg_tmp(a, (n + 1) * 4u);
		for (k = 0; k < n; k++)
			el[k] = alg_mk_bcast(a, tuple_elem(a, shape_of(a, i), k),
				opnd(a, i, n + k), NULL, 0);
		return alg_rep(a, i, alg_mk_tuple(a, n, el));
	}
	if (multi) {
		if (reduce_multi(a, i, rs))
			return 1;
	} else if (alg_elems(a, arg) == hlo_shape_elems(a->m, rs) &&
	    init_is_identity(a, comp, init, arg) &&
	    (!a->lay || pass_reshape_is_bitcast(a->m, shape_of(a, arg), rs))) {
		return alg_rep(a, i, alg_mk_reshape(a, rs, arg));
	}
	if (a->lay)
		return 0;
	/* reduce(negate(x), +, z) => negate(reduce(x, +, -z)) for a zero z:
	 * with xla's unchanged z, a sum of zeros would change sign */
	if (!multi && alg_t_float(ety(a, i)) &&
	    is_op(a, arg, HOP_NEGATE) && alg_scalar_zero(a, init) &&
	    root_is(a, comp, HOP_ADD)) {
		uint32_t ng, nz;

		nz = alg_mk_scalar(a, ety(a, init), alg_is_all_zero(a, init,
			1) ? 0.0 : -0.0);
		alg_set_opnd(a, i, 0, op0(a, arg));
		alg_set_opnd(a, i, 1, nz);
		ng = alg_mk_un(a, HOP_NEGATE, shape_of(a, i), i);
		alg_rep_uses(a, i, ng);
		return 1;
	}
	if (!multi && alg_reduce_through_dot(a, i))
		return 1;
	if (multi && reduce_argminmax_bcast(a, i, rs))
		return 1;
	if (multi)
		return 0;
	if (is_op(a, arg, HOP_TRANSPOSE) &&
	    reduce_transpose(a, i, arg, d, nd, comp))
		return 1;
	if (is_op(a, arg, HOP_REDUCE) && nops(a, arg) == 2 &&
	    same_instr(a, init, opnd(a, arg, 1)) &&
	    equiv_reducers(a, comp, called(a, arg)) &&
	    init_repeatable(a, comp, init))
		return reduce_reduce(a, i, arg, d, nd, comp, rs);
	if (a->o->reduce_of_reshape && is_op(a, arg, HOP_RESHAPE) &&
	    reduce_reshape(a, i, arg, d, nd, comp, rs))
		return 1;
	if (is_op(a, arg, HOP_CONCAT) &&
	    reduce_concat(a, i, arg, d, nd, comp, rs))
		return 1;
	if (is_op(a, arg, HOP_DOT) && reduce_batch_dot(a, i, arg, d, nd, comp))
		return 1;
	if (reduce_argmax_user(a, i, arg, 1) || reduce_argmax_user(a, i, arg, 0))
		return 1;
	if (is_op(a, arg, HOP_BROADCAST))
		return reduce_bcast(a, i, arg, d, nd, comp, rs);
	return 0;
}

/* reduce-window */

typedef struct {
	int64_t size, stride, lo, hi, wdil, bdil, rev;
} WDim;

static int
window(Alg *a, uint32_t i, WDim *w, int r)
{
	uint32_t n;
	const int64_t *p = alg_ints_attr(a, i, A_WINDOW, &n);
	int k;

	if (!p || n != 7u * r)
		return 0;
	for (k = 0; k < r; k++) {
		w[k].size = p[7 * k];
		w[k].stride = p[7 * k + 1];
		w[k].lo = p[7 * k + 2];
		w[k].hi = p[7 * k + 3];
		w[k].wdil = p[7 * k + 4];
		w[k].bdil = p[7 * k + 5];
		w[k].rev = p[7 * k + 6];
	}
	return 1;
}

static void
set_window(Alg *a, uint32_t i, const WDim *w, int r)
{
	int64_t *v = alg_tmp(a, ((size_t)r + 1) * 56);
	int k;

	for (k = 0; k < r; k++) {
		v[7 * k] = w[k].size;
		v[7 * k + 1] = w[k].stride;
		v[7 * k + 2] = w[k].lo;
		v[7 * k + 3] = w[k].hi;
		v[7 * k + 4] = w[k].wdil;
		v[7 * k + 5] = w[k].bdil;
		v[7 * k + 6] = w[k].rev;
	}
	alg_set_ints(a, i, A_WINDOW, v, 7 * r);
}

/* the scalar constant c converted to type t */
static uint32_t
convert_const(Alg *a, uint32_t c, int t)
{
	double v;
	int64_t iv;

	if (alg_t_int(ety(a, c)) && alg_const_first(a, c, &iv))
		return alg_t_float(t) ? alg_mk_scalar(a, t, (double)iv) :
			alg_mk_scalar_i(a, t, iv);
	if (!alg_const_value(a, c, &v))
		return HLO_NONE;
	return alg_mk_scalar(a, t, v);
}

static int
rw_cumsum(Alg *a, uint32_t i, uint32_t x, uint32_t init, uint32_t comp,
	const WDim *w, int r)
{
	uint32_t ro = x, vc, io, one, cnt, vb;
	int k, steps = 0, rd = -1, it, vt;

	while ((is_op(a, ro, HOP_RESHAPE) || is_op(a, ro, HOP_BITCAST) ||
	    is_op(a, ro, HOP_CONVERT) || is_op(a, ro, HOP_SLICE) ||
	    is_op(a, ro, HOP_COPY)) && steps++ < 256)
		ro = op0(a, ro);
	if (!is_op(a, ro, HOP_BROADCAST) || !alg_is_scalar(a, op0(a, ro)) ||
	    !alg_scalar_zero(a, init) || !root_is(a, comp, HOP_ADD))
		return 0;
	vc = op0(a, ro);
	steps = 0;
	while ((is_op(a, vc, HOP_CONVERT) || is_op(a, vc, HOP_RESHAPE) ||
	    is_op(a, vc, HOP_BITCAST)) && steps++ < 256)
		vc = op0(a, vc);
	if (!alg_is_const(a, vc) || !alg_is_eff_scalar(a, vc))
		return 0;
	{
		double dv;
		int64_t iv;

		if (ety(a, vc) != ety(a, i) && !(alg_t_int(ety(a, vc)) &&
		    alg_const_first(a, vc, &iv)) && !alg_const_value(a, vc, &dv))
			return 0;
	}
	for (k = 0; k < r; k++) {
		if (w[k].size > 1) {
			if (rd != -1)
				return 0;
			rd = k;
			if (w[k].size != dim(a, x, k) || w[k].stride != 1 ||
			    w[k].lo != w[k].size - 1 || w[k].hi != 0 ||
			    w[k].wdil != 1 || w[k].bdil != 1 || w[k].rev)
				return 0;
		} else if (w[k].lo || w[k].hi || w[k].bdil != 1) {
			return 0;
		}
	}
	if (rd < 0)
		return 0;
	if (!alg_is_scalar(a, vc))
		vc = alg_mk_reshape(a, alg_shp_scalar(a, ety(a, vc)), vc);
	if (ety(a, vc) != ety(a, i)) {
		vc = convert_const(a, vc, ety(a, i));
		if (vc == HLO_NONE)
			return 0;
	}
	vt = ety(a, vc);
	it = vt == TY_S64 ? TY_S64 : TY_S32;
	io = alg_mk_iota(a, alg_shp_type(a, shape_of(a, i), it), rd);
	one = alg_mk_scalar_i(a, it, 1);
	one = alg_mk_bcast(a, shape_of(a, io), one, NULL, 0);
	cnt = alg_mk_bin(a, HOP_ADD, shape_of(a, io), io, one);
	if (vt != it)
		cnt = alg_mk_convert(a, alg_shp_type(a, shape_of(a, io), vt), cnt);
	vb = alg_mk_bcast(a, shape_of(a, i), vc, NULL, 0);
	return alg_rep(a, i, alg_mk_bin(a, HOP_MUL, shape_of(a, i), vb, cnt));
}

/* a pad of x folded into the reduce-window's window */
static int
rw_fold_pad(Alg *a, uint32_t i, uint32_t x, uint32_t init, uint32_t comp,
	WDim *w, int r)
{
	uint32_t pad, cv = HLO_NONE, po, pv, n, nw;
	int64_t *cfg;
	int k, eff = 1, interior = 0;

	if (is_op(a, x, HOP_PAD)) {
		pad = x;
	} else if (is_op(a, x, HOP_CONVERT) && is_op(a, op0(a, x), HOP_PAD)) {
		int nontriv = 0, d = -1;

		cv = x;
		pad = op0(a, x);
		for (k = 0; k < r; k++)
			if (!(w[k].size == 1 && w[k].stride == 1 &&
			    w[k].lo == 0 && w[k].hi == 0 && w[k].wdil == 1 &&
			    w[k].bdil == 1 && !w[k].rev))
				nontriv++, d = k;
		if (nontriv == 1) {
			uint32_t m;
			const int64_t *pc = alg_ints_attr(a, pad, A_PADDING, &m);
			double ratio;

			if (!pc || m != 3u * r || dim(a, x, d) == 0)
				return 0;
			ratio = (double)(pc[3 * d] + pc[3 * d + 1]) /
				dim(a, x, d);
			if (ratio < 0.1)
				return 0;
		}
	} else {
		return 0;
	}
	cfg = alg_ints_copy(a, pad, A_PADDING, &n);
	if (n != 3u * r)
		return 0;
	for (k = 0; k < r; k++)
		interior |= cfg[3 * k + 2] != 0;
	for (k = 0; k < r; k++)
		if (interior && w[k].bdil != 1)
			return 0;
	pv = opnd(a, pad, 1);
	if (pv != init) {
		double p, q;
		int64_t pi, qi;

		if (!alg_is_const(a, pv) || !alg_is_const(a, init))
			return 0;
		if (alg_t_int(ety(a, pv)) && alg_t_int(ety(a, init))) {
			if (!alg_const_first(a, pv, &pi) || !alg_const_first(a, init,
			    &qi) || pi != qi)
				return 0;
		} else if (!alg_const_value(a, pv, &p) || !alg_const_value(a, init,
		    &q) || p != q) {
			return 0;
		}
	}
	po = op0(a, pad);
	/* is it an effective broadcast? */
	for (k = 0; k < r; k++)
		if (w[k].stride != 1 || cfg[3 * k] != cfg[3 * k + 1] ||
		    cfg[3 * k + 2] != 0)
			eff = 0;
	for (k = 0; k < r && eff; k++)
		if ((cfg[3 * k] || cfg[3 * k + 1]) && dim(a, po, k) != 1)
			eff = 0;
	for (k = 0; k < r && eff; k++) {
		int hasp = cfg[3 * k] || cfg[3 * k + 1];

		if (hasp && w[k].size < cfg[3 * k] + 1)
			eff = 0;
		if (dim(a, po, k) != 1 && w[k].size != 1)
			eff = 0;
	}
	nw = po;
	if (cv != HLO_NONE)
		nw = alg_mk_convert(a, alg_shp_type(a, shape_of(a, po), ety(a, cv)), po);
	if (eff) {
		/* CreateBroadcastSequence */
		int64_t *bd = alg_tmp(a, ((size_t)r + 1) * 8);
		int64_t *rd = alg_tmp(a, ((size_t)r + 1) * 8);
		uint32_t m = 0, rs;

		if (alg_is_scalar(a, nw))
			return alg_rep(a, i, alg_mk_bcast(a, shape_of(a, i), nw, NULL,
				0));
		for (k = 0; k < r; k++)
			if (dim(a, nw, k) == dim(a, i, k)) {
				bd[m] = k;
				rd[m++] = dim(a, nw, k);
			}
		rs = alg_mk_reshape(a, alg_shp(a, ety(a, nw), m, rd, HLO_NONE), nw);
		return alg_rep(a, i, alg_mk_bcast(a, alg_shp_type(a, shape_of(a, i),
			ety(a, nw)), rs, bd, m));
	}
	for (k = 0; k < r; k++) {
		w[k].lo += w[k].bdil * cfg[3 * k];
		w[k].hi += w[k].bdil * cfg[3 * k + 1];
		if (cfg[3 * k + 2])
			w[k].bdil = 1 + cfg[3 * k + 2];
	}
	{
		uint32_t ops[2] = {nw, init}, id;

		id = alg_mk(a, HOP_REDUCEWINDOW, shape_of(a, i), 2, ops);
		set_window(a, id, w, r);
		hlo_set_called(a->m, a->c, id, 1, &comp);
		return alg_rep(a, i, id);
	}
}

/* xla's "trivial variadic reduce windows into normal reduce windows": a
 * variadic reduce-window of one input whose reducer returns a tuple
 * becomes tuple(reduce-window) with a copy of the reducer rooted at the
 * tuple's element */
static int
rw_untuple(Alg *a, uint32_t i, uint32_t n, uint32_t comp)
{
	uint32_t nc, nw, ops[2];

	if (n != 1 || alg_comp_root_op(a, comp) != HOP_TUPLE)
		return 0;
	nc = untupled_reducer(a, comp);
	if (nc == HLO_NONE)
		return 0;
	ops[0] = op0(a, i);
	ops[1] = opnd(a, i, 1);
	nw = alg_mk_clone(a, i, tuple_elem(a, shape_of(a, i), 0), 2, ops);
	hlo_set_called(a->m, a->c, nw, 1, &nc);
	return alg_rep(a, i, alg_mk_tuple(a, 1, &nw));
}

int
alg_h_reduce_window(Alg *a, uint32_t i)
{
	uint32_t n = nops(a, i) / 2, k, *el, comp = called(a, i), x, init;
	int multi = is_tuple(a, i), r, root;
	WDim *w;

	if (n == 0 || nops(a, i) != 2 * n || comp == HLO_NONE)
		return 0;
	x = op0(a, i);
	if (alg_is_zero_elems(a, x) || hlo_shape_elems(a->m, multi ?
	    tuple_elem(a, shape_of(a, i), 0) : shape_of(a, i)) == 0) {
		el = alg_tmp(a, (n + 1) * 4u);
		for (k = 0; k < n; k++)
			el[k] = alg_mk_bcast(a, multi ? tuple_elem(a, shape_of(a, i),
				k) : shape_of(a, i), opnd(a, i, n + k), NULL, 0);
		return alg_rep(a, i, multi ? alg_mk_tuple(a, n, el) : el[0]);
	}
	if (alg_is_scalar(a, x) && (!multi || alg_comp_root_op(a, comp) == HOP_TUPLE)) {
		el = alg_tmp(a, (n + 1) * 4u);
		for (k = 0; k < n; k++)
			el[k] = opnd(a, i, k);
		return multi ? alg_rep(a, i, alg_mk_tuple(a, n, el)) : alg_rep(a, i, el[0]);
	}
	if (multi)
		return rw_untuple(a, i, n, comp);
	init = opnd(a, i, 1);
	r = rank(a, x);
	w = alg_tmp(a, ((size_t)r + 1) * sizeof *w);
	if (!window(a, i, w, r))
		return 0;
	if (rw_cumsum(a, i, x, init, comp, w, r))
		return 1;
	/* a 1x1 window: an elementwise op with the init value, plus pad */
	root = alg_comp_root_op(a, comp);
	for (k = 0; k < (uint32_t)r; k++)
		if (w[k].size != 1 || w[k].stride != 1 || w[k].wdil != 1 ||
		    w[k].bdil != 1 || w[k].rev)
			break;
	if (k == (uint32_t)r && (root_is(a, comp, HOP_ADD) ||
	    root_is(a, comp, HOP_MIN) || root_is(a, comp, HOP_MAX))) {
		uint32_t b = alg_mk_bcast(a, alg_shp_type(a, shape_of(a, x),
			ety(a, init)), init, NULL, 0), no;
		int pad = 0;

		no = alg_mk_bin_infer(a, root, x, b);
		for (k = 0; k < (uint32_t)r; k++)
			pad |= w[k].lo > 0 || w[k].hi > 0;
		if (pad) {
			int64_t *cfg = alg_tmp(a, ((size_t)r + 1) * 24);

			for (k = 0; k < (uint32_t)r; k++) {
				cfg[3 * k] = w[k].lo;
				cfg[3 * k + 1] = w[k].hi;
				cfg[3 * k + 2] = 0;
			}
			no = alg_mk_pad_infer(a, no, init, cfg);
		}
		return alg_rep(a, i, no);
	}
	if (a->o->window_to_reduce) {
		int64_t *rd = alg_tmp(a, ((size_t)r + 1) * 8);
		uint32_t m = 0, red;
		int ok = 1;

		for (k = 0; k < (uint32_t)r; k++)
			if (w[k].stride != 1 || w[k].wdil != 1 ||
			    w[k].bdil != 1 || w[k].lo || w[k].hi)
				ok = 0;
		for (k = 0; k < (uint32_t)r && ok; k++) {
			if (w[k].size == 1)
				continue;
			if (dim(a, i, k) == 1)
				rd[m++] = k;
			else
				ok = 0;
		}
		if (ok && m) {
			red = alg_mk_reduce(a, delete_dims(a, shape_of(a, i), rd, m),
				x, init, rd, m, comp);
			return alg_rep(a, i, alg_mk_reshape(a, shape_of(a, i), red));
		}
	}
	return rw_fold_pad(a, i, x, init, comp, w, r);
}

/* dot */

typedef AlgDnums Dnums;

static void
dnums(Alg *a, uint32_t i, Dnums *d)
{
	d->lb = alg_ints_copy(a, i, A_LHS_BATCH, &d->nlb);
	d->rb = alg_ints_copy(a, i, A_RHS_BATCH, &d->nrb);
	d->lc = alg_ints_copy(a, i, A_LHS_CONTRACT, &d->nlc);
	d->rc = alg_ints_copy(a, i, A_RHS_CONTRACT, &d->nrc);
}

void
alg_dnums(Alg *a, uint32_t i, AlgDnums *d)
{
	dnums(a, i, d);
}

/* a dot of x and y with the attributes of dot i and dimension numbers d,
 * its shape inferred (batch, lhs free, rhs free) */
uint32_t
alg_mk_dot_meta(Alg *a, uint32_t i, uint32_t x, uint32_t y, const AlgDnums *d,
	const HloSparsity *sp, const uint32_t *meta)
{
	int rx = rank(a, x), ry = rank(a, y), q;
	int64_t *v = alg_tmp(a, ((size_t)rx + ry + 1) * 8);
	uint32_t m = 0, k, id, n = nops(a, i), ops[4] = {x, y};
	char txt[64];

	for (k = 2; k < n && k < 4; k++)
		ops[k] = meta ? meta[k - 2] : opnd(a, i, k);
	for (k = 0; k < d->nlb; k++)
		v[m++] = dim(a, x, d->lb[k]);
	for (q = 0; q < rx; q++)
		if (!hlo_ints_has(d->lb, d->nlb, q) && !hlo_ints_has(d->lc, d->nlc, q))
			v[m++] = dim(a, x, q);
	for (q = 0; q < ry; q++)
		if (!hlo_ints_has(d->rb, d->nrb, q) && !hlo_ints_has(d->rc, d->nrc, q))
			v[m++] = dim(a, y, q);
	id = alg_mk_clone(a, i, alg_shp(a, ety(a, i), m, v, shape_of(a, i)),
		n < 4 ? n : 4, ops);
	alg_set_ints(a, id, A_LHS_BATCH, d->lb, d->nlb);
	alg_set_ints(a, id, A_RHS_BATCH, d->rb, d->nrb);
	alg_set_ints(a, id, A_LHS_CONTRACT, d->lc, d->nlc);
	alg_set_ints(a, id, A_RHS_CONTRACT, d->rc, d->nrc);
	if (!d->nlb)
		hlo_attr_del(a->m, a->c, id, A_LHS_BATCH);
	if (!d->nrb)
		hlo_attr_del(a->m, a->c, id, A_RHS_BATCH);
	if (!d->nlc)
		hlo_attr_del(a->m, a->c, id, A_LHS_CONTRACT);
	if (!d->nrc)
		hlo_attr_del(a->m, a->c, id, A_RHS_CONTRACT);
	if (sp && n > 2 && hlo_sparsity_format(sp, (int)n - 2, txt,
	    sizeof txt) > 0)
		alg_set_word(a, id, A_SPARSITY, txt);
	return id;
}

uint32_t
alg_mk_dot(Alg *a, uint32_t i, uint32_t x, uint32_t y, const AlgDnums *d)
{
	return alg_mk_dot_meta(a, i, x, y, d, NULL, NULL);
}

/* NormalizeDotOperandToBatchMajorAndContractingMinor */
static uint32_t
normalize_operand(Alg *a, uint32_t x, const int64_t *b, uint32_t nb,
	const int64_t *c, uint32_t nc)
{
	int r = rank(a, x), q;
	int64_t *p = alg_tmp(a, ((size_t)r + 1) * 8);
	uint32_t m = 0, k;

	for (k = 0; k < nb; k++)
		p[m++] = b[k];
	for (q = 0; q < r; q++)
		if (!hlo_ints_has(b, nb, q) && !hlo_ints_has(c, nc, q))
			p[m++] = q;
	for (k = 0; k < nc; k++)
		p[m++] = c[k];
	if (hlo_ints_ascending(p, m))
		return x;
	return alg_mk_transpose_infer(a, x, p);
}

static int
supported_precision(Alg *a, uint32_t i)
{
	uint32_t n;
	const char *s = hlo_attr_word(a->m, INS(a, i), A_ALGORITHM, &n);

	return !s || (n == 9 && !memcmp(s, "alg_unset", 9)) ||
		(n == 15 && !memcmp(s, "dot_f32_f32_f32", 15));
}

static int
dot_to_multiply(Alg *a, uint32_t i, uint32_t l, uint32_t r, Dnums *d)
{
	uint32_t nl, nr, k;
	int t = ety(a, i), rk = rank(a, i), rl = rank(a, l), q;
	int64_t *bd;

	nl = normalize_operand(a, l, d->lb, d->nlb, d->lc, d->nlc);
	if (ety(a, nl) != t)
		nl = alg_mk_convert(a, alg_shp_type(a, shape_of(a, nl), t), nl);
	nr = normalize_operand(a, r, d->rb, d->nrb, d->rc, d->nrc);
	if (ety(a, nr) != t)
		nr = alg_mk_convert(a, alg_shp_type(a, shape_of(a, nr), t), nr);
	bd = alg_tmp(a, ((size_t)rk + 1) * 8);
	if (rk != rl) {
		for (q = 0; q < rl; q++)
			bd[q] = q;
		nl = alg_mk_bcast(a, shape_of(a, i), nl, bd, rl);
	}
	if (rk != rank(a, r)) {
		uint32_t m = 0;

		for (k = 0; k < d->nlb; k++)
			bd[m++] = k;
		for (q = rl; q < rk; q++)
			bd[m++] = q;
		nr = alg_mk_bcast(a, shape_of(a, i), nr, bd, m);
	}
	return alg_rep(a, i, alg_mk_bin(a, HOP_MUL, shape_of(a, i), nl, nr));
}

/* operand_precision={packed_nibble,...} */
static int
packed_nibble(Alg *a, uint32_t i)
{
	uint32_t n, k;
	const char *s = hlo_attr_word(a->m, INS(a, i), A_OPERAND_PRECISION, &n);

	for (k = 0; s && k + 13 <= n; k++)
		if (!strncmp(s + k, "packed_nibble", 13) ||
		    !strncmp(s + k, "PACKED_NIBBLE", 13))
			return 1;
	return 0;
}

/* x converted to type t unless it has it (xla's AsType) */
static uint32_t
as_type(Alg *a, uint32_t x, int t)
{
	if (ety(a, x) == t)
		return x;
	return alg_mk_convert(a, alg_shp_type(a, shape_of(a, x), t), x);
}

/* broadcast x (batch dims, then nb.. its other dims) into shape s, whose
 * dims are batch, outer (no dims of x), then x's other dims */
static uint32_t
bcast_past_outer(Alg *a, uint32_t x, uint32_t s, uint32_t nb, int outer)
{
	int r = rank(a, x), q;
	int64_t *bd = alg_tmp(a, ((size_t)r + 1) * 8);

	for (q = 0; q < r; q++)
		bd[q] = q < (int)nb ? q : q + outer;
	return alg_mk_bcast(a, s, x, bd, (uint32_t)r);
}

/* xla's RewriteBatchPlusContractingAsReduce (enable_dot_strength_reduction,
 * off on XLA:CPU, on with xla's default options): a dot one of whose
 * operands has only batch and contracting dims becomes the reduce-add over
 * the contracting dims of the product of the operands, both made batch
 * major and contracting minor, the smaller one broadcast over the other's
 * free dims; floats other than f64 are multiplied in the dot's type and
 * summed in f32 (xla's rounding), integers and complex in their type */
static int
dot_strength(Alg *a, uint32_t i, uint32_t l, uint32_t r, Dnums *d)
{
	int t = ety(a, i), at, lo, ro, q;
	uint32_t nl, nr, pr, cmp, rs;
	int64_t *rd;

	lo = rank(a, l) - (int)(d->nlb + d->nlc);
	ro = rank(a, r) - (int)(d->nrb + d->nrc);
	if (!a->o->dot_strength || packed_nibble(a, i) ||
	    !supported_precision(a, i) || (lo && ro))
		return 0;
	nl = as_type(a, normalize_operand(a, l, d->lb, d->nlb, d->lc, d->nlc),
		t);
	nr = as_type(a, normalize_operand(a, r, d->rb, d->nrb, d->rc, d->nrc),
		t);
	if (ro > 0)
		nl = bcast_past_outer(a, nl, shape_of(a, nr), d->nlb, ro);
	else if (lo > 0)
		nr = bcast_past_outer(a, nr, shape_of(a, nl), d->nrb, lo);
	pr = alg_mk_bin(a, HOP_MUL, shape_of(a, nl), nl, nr);
	at = alg_t_float(t) ? (t == TY_F64 ? TY_F64 : TY_F32) : t;
	pr = as_type(a, pr, at);
	rd = alg_tmp(a, ((size_t)d->nlc + 1) * 8);
	for (q = 0; q < (int)d->nlc; q++)
		rd[q] = (lo > ro ? lo : ro) + (int)d->nlb + q;
	cmp = pass_b_scalar_comp(a->m, "scalar_add_computation", HOP_ADD, at,
		"scalar_lhs", "scalar_rhs");
	rs = alg_mk_reduce(a, alg_shp_type(a, shape_of(a, i), at), pr,
		alg_mk_scalar_i(a, at, 0), rd, d->nlc, cmp);
	return alg_rep(a, i, as_type(a, rs, t));
}

/* the operands of a reordered dot: the lhs free of its transpose, the
 * constant with the inverse reorder (see dot_reorder) */
typedef struct {
	uint32_t in, tr, rs, cst;	/* input, transpose, reshape, constant */
	int64_t *cd;		/* contracting dims of the transpose's output */
	uint32_t n;
	int64_t rc;		/* the constant's contracting dim */
} Reorder;

/* the constant side: reshape its contracting dim into the transpose's
 * contracting dims, transpose them back to the input's order, reshape
 * to the constant's shape */
static uint32_t
reorder_const(Alg *a, const Reorder *o)
{
	uint32_t np;
	const int64_t *p = alg_ints_attr(a, o->tr, A_DIMENSIONS, &np);
	int rc = rank(a, o->cst), ru = rc - 1 + (int)o->n, k, m = 0;
	int64_t *ud = alg_tmp(a, (size_t)ru * 8), *td = alg_tmp(a, (size_t)ru * 8);
	int64_t *perm = alg_tmp(a, (size_t)ru * 8), *inv;
	uint32_t j, rr, t;

	inv = alg_tmp(a, (size_t)rank(a, o->tr) * 8);
	for (k = 0; k < rank(a, o->tr); k++)
		inv[p[k]] = k;
	for (k = 0; k < rc; k++) {
		if (k != o->rc) {
			ud[m] = td[m] = dim(a, o->cst, k);
			perm[m] = m;
			m++;
			continue;
		}
		for (j = 0; j < o->n; j++, m++) {
			ud[m] = dim(a, o->tr, o->cd[j]);
			td[m] = dim(a, o->in, o->cd[j]);
			perm[m] = inv[o->cd[j]] - o->cd[0] + o->rc;
		}
	}
	rr = alg_mk_reshape(a, alg_shp(a, ety(a, o->cst), ru, ud, HLO_NONE),
		o->cst);
	t = alg_mk_transpose(a, alg_shp(a, ety(a, o->cst), ru, td, HLO_NONE),
		rr, perm);
	return alg_mk_reshape(a, shape_of(a, o->cst), t);
}

/* xla's OptimizeDotOfReorderContractingDims: dot(reshape(transpose(x)),
 * constant) where the reshape merges the dims the transpose permutes
 * into the one contracting dim becomes dot(reshape(x), reshape(transpose(
 * reshape(constant)))): the sum over the contracting dim does not care
 * in which order it visits the elements, as long as both sides agree;
 * constant folding then folds the constant side. Either operand may be
 * the constant; one contracting dim; not in layout-sensitive mode */
static int
dot_reorder(Alg *a, uint32_t i, uint32_t l, uint32_t r, Dnums *d)
{
	int sw = alg_is_const(a, l), rt, k;
	uint32_t x = sw ? r : l, nu, j, nl, ops[2];
	int64_t lc = sw ? d->rc[0] : d->lc[0], *u;
	const int64_t *p;
	Reorder o;

	if (d->nlc != 1 || !is_op(a, x, HOP_RESHAPE) ||
	    !is_op(a, op0(a, x), HOP_TRANSPOSE) ||
	    !alg_is_const(a, sw ? l : r))
		return 0;
	o.rs = x;
	o.tr = op0(a, x);
	o.in = op0(a, o.tr);
	o.cst = sw ? l : r;
	o.rc = sw ? d->lc[0] : d->rc[0];
	rt = rank(a, o.tr);
	u = alg_tmp(a, 2 * ((size_t)rt + rank(a, x) + 4) * 8);
	nu = alg_unmodified_dims(dims(a, o.tr), rt, dims(a, x), rank(a, x), u);
	if ((int)nu != rank(a, x) - 1)
		return 0;
	for (j = 0; j < nu; j++)
		if (u[2 * j + 1] == lc)
			return 0;
	o.cd = alg_tmp(a, ((size_t)rt + 1) * 8);
	for (o.n = 0, k = 0; k < rt; k++) {
		for (j = 0; j < nu && u[2 * j] != k; j++)
			;
		if (j == nu)
			o.cd[o.n++] = k;
	}
	for (j = 1; j < o.n; j++)
		if (o.cd[j] != o.cd[j - 1] + 1)
			return 0;
	p = alg_ints_attr(a, o.tr, A_DIMENSIONS, &j);
	if (!p || j != (uint32_t)rt)
		return 0;
	for (k = 0; k < rt; k++)
		if (p[k] != k && !hlo_ints_has(o.cd, o.n, k))
			return 0;
	nl = alg_mk_reshape(a, shape_of(a, x), o.in);
	ops[sw] = nl;
	ops[!sw] = reorder_const(a, &o);
	return alg_rep(a, i, alg_mk_dot(a, i, ops[0], ops[1], d));
}

/* a sparse dot's descriptors and metadata without the degenerate dims
 * (ml, mr: the operands' dims to their new numbers, -1 dropped): each
 * metadata operand drops the dims its operand drops (xla drops the
 * metadata's own size-1 dims, which differ when the packed sparse dim
 * is 1 and its operand's is not, giving a metadata of the wrong rank); a
 * degenerate sparse dim is left alone (-1) */
static int
degenerate_meta(Alg *a, uint32_t i, uint32_t l, uint32_t r,
	const int64_t *ml, const int64_t *mr, HloSparsity *sp, int ns,
	uint32_t *meta)
{
	const int64_t *map;
	int64_t *sd;
	uint32_t x;
	int k, q, m, rk;

	for (k = 0; k < ns; k++) {	/* checked before anything is built */
		map = sp[k].index ? mr : ml;
		x = sp[k].index ? r : l;
		if (sp[k].dim >= rank(a, x) || map[sp[k].dim] < 0 ||
		    rank(a, opnd(a, i, 2 + (uint32_t)k)) != rank(a, x))
			return -1;
	}
	for (k = 0; k < ns; k++) {
		map = sp[k].index ? mr : ml;
		x = sp[k].index ? r : l;
		rk = rank(a, x);
		meta[k] = opnd(a, i, 2 + (uint32_t)k);
		sp[k].dim = map[sp[k].dim];
		sd = alg_tmp(a, ((size_t)rk + 1) * 8);
		for (q = 0, m = 0; q < rk; q++)
			if (map[q] >= 0)
				sd[m++] = dim(a, meta[k], q);
		if (m < rk)
			meta[k] = alg_mk_reshape(a, alg_shp(a, ety(a, meta[k]),
				m, sd, shape_of(a, meta[k])), meta[k]);
	}
	return 0;
}

static int
dot_degenerate(Alg *a, uint32_t i, uint32_t l, uint32_t r, Dnums *d)
{
	int rl = rank(a, l), rr = rank(a, r), q, nl1 = 0, nr1 = 0, ns;
	HloSparsity sp[2];
	uint32_t meta[2];
	int64_t *ml = alg_tmp(a, ((size_t)rl + 1) * 8);
	int64_t *mr = alg_tmp(a, ((size_t)rr + 1) * 8);
	int64_t *sd = alg_tmp(a, ((size_t)rl + rr + 1) * 8);
	Dnums n;
	uint32_t k, m, nd;

	for (q = 0; q < rl; q++) {
		if (dim(a, l, q) == 1)
			nl1++, ml[q] = -1;
		else
			ml[q] = q - nl1;
	}
	for (q = 0; q < rr; q++) {
		if (dim(a, r, q) == 1)
			nr1++, mr[q] = -1;
		else
			mr[q] = q - nr1;
	}
	if (!nl1 && !nr1)
		return 0;
	n.lb = alg_tmp(a, (d->nlb + 1) * 8u);
	n.rb = alg_tmp(a, (d->nrb + 1) * 8u);
	n.lc = alg_tmp(a, (d->nlc + 1) * 8u);
	n.rc = alg_tmp(a, (d->nrc + 1) * 8u);
	n.nlb = n.nrb = n.nlc = n.nrc = 0;
	for (k = 0; k < d->nlb; k++)
		if (ml[d->lb[k]] >= 0)
			n.lb[n.nlb++] = ml[d->lb[k]];
	for (k = 0; k < d->nlc; k++)
		if (ml[d->lc[k]] >= 0)
			n.lc[n.nlc++] = ml[d->lc[k]];
	for (k = 0; k < d->nrb; k++)
		if (mr[d->rb[k]] >= 0)
			n.rb[n.nrb++] = mr[d->rb[k]];
	for (k = 0; k < d->nrc; k++)
		if (mr[d->rc[k]] >= 0)
			n.rc[n.nrc++] = mr[d->rc[k]];
	if (n.nlb != n.nrb || n.nlc != n.nrc)
		return 0;	/* a batch or contracting pair of size 1 and
				 * not 1: the verifier rejects such a dot */
	if ((ns = hlo_dot_sparsity(a->m, INS(a, i), sp)) < 0 ||
	    (ns && degenerate_meta(a, i, l, r, ml, mr, sp, ns, meta) < 0))
		return 0;
	if (nl1) {
		for (q = 0, m = 0; q < rl; q++)
			if (dim(a, l, q) != 1)
				sd[m++] = dim(a, l, q);
		l = alg_mk_reshape(a, alg_shp(a, ety(a, l), m, sd, shape_of(a, l)), l);
	}
	if (nr1) {
		for (q = 0, m = 0; q < rr; q++)
			if (dim(a, r, q) != 1)
				sd[m++] = dim(a, r, q);
		r = alg_mk_reshape(a, alg_shp(a, ety(a, r), m, sd, shape_of(a, r)), r);
	}
	nd = alg_mk_dot_meta(a, i, l, r, &n, ns ? sp : NULL, ns ? meta : NULL);
	if (alg_same_shape(a, i, nd))
		return alg_rep(a, i, nd);
	return alg_rep(a, i, alg_mk_reshape(a, shape_of(a, i), nd));
}

/* xla's reduce of a batch dot (supports_non_canonical_dots and
 * enable_dot_strength_reduction, both off on XLA:CPU): an add-reduce over
 * some batch dims of a dot with one user makes those dims contracting
 * dims of a new dot, reduced over the remaining dims if any. xla drops
 * the init value when no dim remains; hlopt then requires it to be zero */
static int
reduce_batch_dot(Alg *a, uint32_t i, uint32_t x, const int64_t *d,
	uint32_t nd, uint32_t comp)
{
	Dnums o, n;
	uint32_t k, m = 0, nb = 0, nx, init = opnd(a, i, 1);
	int64_t *rd;

	if (!a->o->dot_strength || !a->o->non_canonical ||
	    !alg_one_user(a, x) || !root_is(a, comp, HOP_ADD))
		return 0;
	dnums(a, x, &o);
	for (k = 0; k < nd; k++)
		nb += d[k] < (int64_t)o.nlb;
	if (!nb || o.nlb != o.nrb)
		return 0;
	if (nb == nd && !alg_scalar_zero(a, init))
		return 0;
	n.lb = alg_tmp(a, ((size_t)o.nlb + 1) * 8);
	n.rb = alg_tmp(a, ((size_t)o.nlb + 1) * 8);
	n.lc = alg_tmp(a, ((size_t)o.nlc + o.nlb + 1) * 8);
	n.rc = alg_tmp(a, ((size_t)o.nlc + o.nlb + 1) * 8);
	memcpy(n.lc, o.lc, o.nlc * 8u);
	memcpy(n.rc, o.rc, o.nrc * 8u);
	n.nlb = n.nrb = 0;
	n.nlc = o.nlc;
	n.nrc = o.nrc;
	for (k = 0; k < o.nlb; k++) {
		if (hlo_ints_has(d, nd, k)) {
			n.lc[n.nlc++] = o.lb[k];
			n.rc[n.nrc++] = o.rb[k];
		} else {
			n.lb[n.nlb++] = o.lb[k];
			n.rb[n.nrb++] = o.rb[k];
		}
	}
	nx = alg_mk_dot(a, x, op0(a, x), opnd(a, x, 1), &n);
	if (nb == nd)
		return alg_rep(a, i, nx);
	rd = alg_tmp(a, ((size_t)nd + 1) * 8);
	for (k = 0; k < nd; k++)
		if (d[k] >= (int64_t)o.nlb)
			rd[m++] = d[k] - nb;
	return alg_rep(a, i, alg_mk_reduce(a, shape_of(a, i), nx, init, rd, m,
		comp));
}

/* dot(transpose(a), transpose(b)) => transpose(dot(b, a)) */
static int
dot_transposes(Alg *a, uint32_t i, uint32_t l, uint32_t r, Dnums *d)
{
	uint32_t nl, nr, np, k, nd;
	int64_t *pl, *pr, *sd;
	int rk = rank(a, i), swap;

	if (!is_op(a, l, HOP_TRANSPOSE) || !is_op(a, r, HOP_TRANSPOSE))
		return 0;
	pl = alg_ints_copy(a, l, A_DIMENSIONS, &nl);
	pr = alg_ints_copy(a, r, A_DIMENSIONS, &nr);
	if (nl != nr || (nl && memcmp(pl, pr, nl * 8u)))
		return 0;
	np = nl;
	if (d->nlb != d->nrb || (d->nlb && memcmp(d->lb, d->rb, d->nlb * 8u))
	    || d->nlc != 1 || d->nrc != 1 || d->lc[0] != rk - 1 ||
	    d->rc[0] != rk - 2 || (uint32_t)rk != d->nlb + 2 ||
	    np != (uint32_t)rk)
		return 0;
	if (pl[rk - 2] == rk - 2 && pl[rk - 1] == rk - 1)
		swap = 0;
	else if (pl[rk - 2] == rk - 1 && pl[rk - 1] == rk - 2)
		swap = 1;
	else
		return 0;
	sd = alg_tmp(a, ((size_t)rk + 1) * 8);
	for (k = 0; k < np; k++)
		sd[k] = dim(a, i, pl[k]);
	{
		uint32_t ops[2];

		ops[0] = swap ? op0(a, r) : op0(a, l);
		ops[1] = swap ? op0(a, l) : op0(a, r);
		nd = alg_mk_clone(a, i, alg_shp(a, ety(a, i), rk, sd, shape_of(a, i)),
			2, ops);
		if (swap) {
			uint32_t nn;
			const char *s = hlo_attr_word(a->m, INS(a, nd),
				A_OPERAND_PRECISION, &nn);

			if (s && nn > 2) {
				/* swap the two precisions */
				char *b = alg_tmp(a, nn + 1);
				uint32_t c = 0, j;

				for (j = 1; j + 1 < nn; j++)
					if (s[j] == ',')
						c = j;
				if (c) {
					HloAttr at;

					b[0] = '{';
					memcpy(b + 1, s + c + 1, nn - c - 2);
					b[nn - c - 1] = ',';
					memcpy(b + nn - c, s + 1, c - 1);
					b[nn - 1] = '}';
					at = hlo_mk_bytes(a->m,
						A_OPERAND_PRECISION, K_RAW, b,
						nn);
					hlo_attr_set(a->m, a->c, nd, &at);
				}
			}
		}
	}
	return alg_rep(a, i, alg_mk_transpose(a, shape_of(a, i), nd, pl));
}

static int
has_text(const char *s, uint32_t n, const char *w)
{
	uint32_t k, m = strlen(w);

	for (k = 0; s && k + m <= n; k++)
		if (!memcmp(s + k, w, m))
			return 1;
	return 0;
}

static int
sharding_unreduced(Alg *a, uint32_t i)
{
	uint32_t *us, n;
	const char *s;

	if (alg_nusers(a, i, 2) != 1)
		return 0;
	alg_users(a, i, &us);
	if (!pass_is_custom_call(a->m, INS(a, us[0]), "Sharding"))
		return 0;
	s = hlo_attr_word(a->m, INS(a, us[0]), A_SHARDING, &n);
	if (has_text(s, n, "unreduced"))
		return 1;
	s = hlo_attr_word(a->m, INS(a, us[0]), A_FRONTEND_ATTRIBUTES, &n);
	return has_text(s, n, "unreduced");
}

/* xla's IsParameterLike: a parameter, or one reached through operand 0
 * of instructions with one operand */
int
alg_param_like(Alg *a, uint32_t x)
{
	while (!is_op(a, x, HOP_PARAMETER)) {
		if (nops(a, x) != 1)
			return 0;
		x = op0(a, x);
	}
	return 1;
}

/* xla's MoveDotParamToRhs (enable_move_dot_param_to_rhs, off in xla's
 * defaults and on no backend: "algsimp:move-dot-param-to-rhs"): a dot
 * whose lhs is parameter-like and whose rhs is not becomes a transpose of
 * the dot of the swapped operands (batch, then the old lhs's free dims
 * moved back before the old rhs's); the same products summed in the same
 * order, so exact */
static int
move_dot_param(Alg *a, uint32_t i, uint32_t l, uint32_t r, const Dnums *d)
{
	Dnums n;
	int64_t *perm;
	uint32_t nd, k, m = 0;
	int lo, ro, q;

	if (!a->o->move_dot_param || !alg_param_like(a, l) || alg_param_like(a, r))
		return 0;
	n.lb = d->rb, n.nlb = d->nrb;
	n.rb = d->lb, n.nrb = d->nlb;
	n.lc = d->rc, n.nlc = d->nrc;
	n.rc = d->lc, n.nrc = d->nlc;
	nd = alg_mk_dot(a, i, r, l, &n);
	alg_swap_precision(a, nd);
	lo = rank(a, r) - (int)(n.nlb + n.nlc);	/* free dims of the new lhs */
	ro = rank(a, l) - (int)(n.nrb + n.nrc);
	perm = alg_tmp(a, ((size_t)rank(a, i) + 1) * 8);
	for (k = 0; k < n.nlb; k++)
		perm[m++] = k;
	for (q = 0; q < ro; q++)
		perm[m++] = (int64_t)n.nlb + lo + q;
	for (q = 0; q < lo; q++)
		perm[m++] = (int64_t)n.nlb + q;
	return alg_rep(a, i, alg_mk_transpose(a, shape_of(a, i), nd, perm));
}

int
alg_h_dot(Alg *a, uint32_t i)
{
	uint32_t l = op0(a, i), r = opnd(a, i, 1), z;
	Dnums d;

	if (a->lay || is_tuple(a, l) || is_tuple(a, r))
		return 0;
	if (alg_is_zero_elems(a, i) || alg_is_zero_elems(a, l) || alg_is_zero_elems(a, r)) {
		z = alg_mk_scalar_i(a, ety(a, i), 0);
		return alg_rep(a, i, alg_mk_bcast(a, shape_of(a, i), z, NULL, 0));
	}
	dnums(a, i, &d);
	if (d.nlb != d.nrb || d.nlc != d.nrc)
		return 0;
	/* a sparse dot (metadata operands after lhs and rhs): of the rules
	 * below xla rewrites it only by dropping degenerate dims (its other
	 * dot rules skip sparse dots, or would drop the metadata) */
	if (INS(a, i)->nops != 2)
		return dot_degenerate(a, i, l, r, &d);
	if (supported_precision(a, i) && a->o->dot_to_mul && d.nlc == 0)
		return dot_to_multiply(a, i, l, r, &d);
	if ((z = (uint32_t)alg_dot_assoc(a, i)))
		return z == 1;
	if (sharding_unreduced(a, i))
		return 0;
	if (dot_strength(a, i, l, r, &d))
		return 1;
	if (dot_reorder(a, i, l, r, &d))
		return 1;
	if (dot_degenerate(a, i, l, r, &d))
		return 1;
	if (dot_transposes(a, i, l, r, &d))
		return 1;
	return move_dot_param(a, i, l, r, &d);
}

/* convolution */

static int conv_fold_pads(Alg *a, uint32_t i);

/* SwapConvOperands: conv(input, kernel) => conv(reverse(kernel), input)
 * with the window over the input's spatial extent, when a naive
 * convolution then multiplies fewer elements per output */
static int
conv_swap(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i), k = opnd(a, i, 1), n, nr = 0, nc;
	int r = rank(a, i), sp, q;
	int64_t kp = 1, skp = 1, *rev;
	WDim *w, *sw;
	HloConvDnums dn;
	const char *lab;
	char *nl;
	uint32_t ops[2];

	if (alg_int_attr(a, i, A_FEATURE_GROUP_COUNT, 1) > 1 ||
	    alg_int_attr(a, i, A_BATCH_GROUP_COUNT, 1) > 1)
		return 0;
	lab = hlo_attr_word(a->m, INS(a, i), A_DIM_LABELS, &n);
	if (!lab || hlo_conv_dnums(lab, n, r, &dn) < 0 || r < 2 ||
	    r > HLO_CONV_MAXSP + 2)
		return 0;
	sp = dn.nsp;
	w = alg_tmp(a, ((size_t)sp + 1) * sizeof *w);
	sw = alg_tmp(a, ((size_t)sp + 1) * sizeof *sw);
	rev = alg_tmp(a, ((size_t)sp + 1) * 8);
	if (!window(a, i, w, sp))
		return 0;
	for (q = 0; q < sp; q++) {
		int64_t ks = w[q].size, is = dim(a, x, dn.in_spatial[q]);
		int plain = !w[q].rev && w[q].lo == 0 && w[q].hi == 0 &&
			w[q].wdil == 1;
		int64_t dk, di;

		if ((plain && w[q].bdil == ks && w[q].stride == ks - 1) ||
		    (plain && ks == is && w[q].bdil == 1 && w[q].stride == 1)) {
			sw[q] = w[q];	/* a group or contraction dimension */
			continue;
		}
		dk = 1 + (ks - 1) * w[q].wdil;
		di = 1 + (is - 1) * w[q].bdil;
		kp *= ks;
		skp *= is == 1 && w[q].stride == 1 && w[q].wdil == 1 &&
			w[q].hi == ks - 1 && w[q].lo == ks - 1 ? ks : is;
		sw[q].size = is;
		if (!w[q].rev)
			rev[nr++] = dn.k_spatial[q];
		sw[q].rev = 1;
		sw[q].bdil = w[q].wdil;
		sw[q].wdil = w[q].bdil;
		sw[q].stride = w[q].stride;
		sw[q].lo = di + w[q].lo - dk;
		sw[q].hi = di + w[q].hi - dk;
	}
	if (kp <= skp)
		return 0;
	/* the new dim_labels: the kernel is the input (batch: its output
	 * feature, feature: its input feature), the input the kernel, and
	 * the output's batch and feature trade places */
	nl = alg_tmp(a, 3 * (size_t)r + 8);
	for (q = 0; q < r; q++)
		nl[q] = 'x';
	nl[dn.k_out] = 'b';
	nl[dn.k_in] = 'f';
	for (q = 0; q < sp; q++)
		nl[dn.k_spatial[q]] = (char)('0' + q);
	nl[r] = '_';
	for (q = 0; q < r; q++)
		nl[r + 1 + q] = 'x';
	nl[r + 1 + dn.in_batch] = 'o';
	nl[r + 1 + dn.in_feature] = 'i';
	for (q = 0; q < sp; q++)
		nl[r + 1 + dn.in_spatial[q]] = (char)('0' + q);
	memcpy(nl + 2 * r + 1, "->", 2);
	for (q = 0; q < r; q++)
		nl[2 * r + 3 + q] = 'x';
	nl[2 * r + 3 + dn.out_feature] = 'b';
	nl[2 * r + 3 + dn.out_batch] = 'f';
	for (q = 0; q < sp; q++)
		nl[2 * r + 3 + dn.out_spatial[q]] = (char)('0' + q);
	nl[3 * r + 3] = 0;
	if (nr)
		k = alg_mk_reverse(a, k, rev, nr);
	ops[0] = k;
	ops[1] = x;
	nc = alg_mk_clone(a, i, shape_of(a, i), 2, ops);
	set_window(a, nc, sw, sp);
	alg_set_word(a, nc, A_DIM_LABELS, nl);
	alg_swap_precision(a, nc);
	return alg_rep(a, i, nc);
}

int
alg_h_convolution(Alg *a, uint32_t i)
{
	if (conv_fold_pads(a, i))
		return 1;
	return a->o->conv_swap && !a->lay && conv_swap(a, i);
}

static int
conv_fold_pads(Alg *a, uint32_t i)
{
	uint32_t l = op0(a, i), k = opnd(a, i, 1), n, np;
	int r = rank(a, i), sp, q;
	WDim *w;
	HloConvDnums dn;
	const char *lab;
	int64_t *cfg;

	if (alg_is_zero_elems(a, l) || alg_is_zero_elems(a, k))
		return alg_rep(a, i, alg_scalar_like_i(a, i, 0));
	lab = hlo_attr_word(a->m, INS(a, i), A_DIM_LABELS, &n);
	if (!lab || hlo_conv_dnums(lab, n, r, &dn) < 0 || !a->o->fold_conv_pad)
		return 0;
	sp = dn.nsp;
	w = alg_tmp(a, ((size_t)sp + 1) * sizeof *w);
	if (!window(a, i, w, sp))
		return 0;
	/* conv(pad(x, 0), k): the padding into the window */
	if (is_op(a, l, HOP_PAD) && alg_const_scalar_is(a, opnd(a, l, 1), 0, 0)) {
		cfg = alg_ints_copy(a, l, A_PADDING, &np);
		if (np != 3u * r)
			return 0;
		for (q = 0; q < 2; q++) {
			int64_t dd = q ? dn.in_feature : dn.in_batch;

			if (cfg[3 * dd] || cfg[3 * dd + 1] || cfg[3 * dd + 2])
				goto filter;
		}
		for (q = 0; q < sp; q++) {
			int64_t *p = cfg + 3 * dn.in_spatial[q];

			if (p[2] && (w[q].lo || w[q].hi || w[q].bdil != 1))
				goto filter;
			if (w[q].bdil != 1 && (p[0] || p[1] || p[2]))
				goto filter;
		}
		for (q = 0; q < sp; q++) {
			int64_t *p = cfg + 3 * dn.in_spatial[q];

			w[q].lo += p[0];
			w[q].hi += p[1];
			if (p[2])
				w[q].bdil = 1 + p[2];
		}
		{
			uint32_t ops[2] = {op0(a, l), k}, nc;

			nc = alg_mk_clone(a, i, shape_of(a, i), 2, ops);
			set_window(a, nc, w, sp);
			return alg_rep(a, i, nc);
		}
	}
filter:
	if (!window(a, i, w, sp))
		return 0;
	/* conv(x, pad(k, 0) with interior padding only): window dilation */
	if (is_op(a, k, HOP_PAD) && alg_is_all(a, opnd(a, k, 1), 0)) {
		cfg = alg_ints_copy(a, k, A_PADDING, &np);
		if (np != 3u * r)
			return 0;
		for (q = 0; q < 2; q++) {
			int64_t dd = q ? dn.k_out : dn.k_in;

			if (cfg[3 * dd] || cfg[3 * dd + 1] || cfg[3 * dd + 2])
				return 0;
		}
		for (q = 0; q < sp; q++) {
			int64_t *p = cfg + 3 * dn.k_spatial[q];

			if (p[0] || p[1])
				return 0;
			if (!p[2])
				continue;
			if (w[q].wdil > 1)
				return 0;
			w[q].wdil = 1 + p[2];
			w[q].size = dim(a, op0(a, k), dn.k_spatial[q]);
		}
		{
			uint32_t ops[2] = {l, op0(a, k)}, nc;

			nc = alg_mk_clone(a, i, shape_of(a, i), 2, ops);
			set_window(a, nc, w, sp);
			return alg_rep(a, i, nc);
		}
	}
	return 0;
}

/* gather, scatter, sort */

/* the output dimension of start-indices dimension s (not the index
 * vector dim): the dims not in offset_dims, in order, follow the indices'
 * dims without the index vector dim */
static int64_t
batch_out_dim(int64_t s, int64_t ivd, const int64_t *off, uint32_t no,
	int ro)
{
	int64_t j = s - (s > ivd), q;

	for (q = 0; q < ro; q++)
		if (!hlo_ints_has(off, no, q) && j-- == 0)
			return q;
	return -1;
}

/* a padded operand batching dim q of gather i (operand pad p): the
 * indices are a pad padding the matching batching dim alike; returns
 * the output dim, -1 if not */
static int64_t
padded_batch(Alg *a, uint32_t i, uint32_t q, const int64_t *cfg)
{
	uint32_t ix = opnd(a, i, 1), nb, ns, no, ni, k;
	const int64_t *bat, *sib, *off;
	int64_t *icfg, ivd = alg_int_attr(a, i, A_INDEX_VECTOR_DIM, -1), s;

	if (!is_op(a, ix, HOP_PAD))
		return -1;
	bat = alg_ints_attr(a, i, A_OPERAND_BATCHING_DIMS, &nb);
	sib = alg_ints_attr(a, i, A_START_INDICES_BATCHING_DIMS, &ns);
	off = alg_ints_attr(a, i, A_OFFSET_DIMS, &no);
	icfg = alg_ints_copy(a, ix, A_PADDING, &ni);
	for (k = 0; k < nb && bat[k] != q; k++)
		;
	if (k == nb || k >= ns || ni != 3u * rank(a, ix))
		return -1;
	s = sib[k];
	if (s < 0 || s >= rank(a, ix) || s == ivd ||
	    memcmp(icfg + 3 * s, cfg + 3 * q, 24))
		return -1;
	return batch_out_dim(s, ivd, off, no, rank(a, i));
}

/* the indices' pad pads exactly n dims */
static int
pads_only(Alg *a, uint32_t ix, uint32_t n)
{
	uint32_t ni, k, c = 0;
	int64_t *icfg = alg_ints_copy(a, ix, A_PADDING, &ni);

	for (k = 0; k + 2 < ni; k += 3)
		c += icfg[k] || icfg[k + 1] || icfg[k + 2];
	return c == n;
}

/* gather(pad(x), idx) => pad(gather(x, idx)) when every padded dimension
 * passes through whole (its slice is the whole dimension: the start index
 * along it clamps to 0 either way) or is an operand batching dimension
 * whose start-indices batching dimension is padded alike by a pad of the
 * indices that pads nothing else (gather(pad(x), pad(idx)) =>
 * pad(gather(x, idx)) along the output's batch dimension); xla's
 * GatherOfPad and CheckPaddedDimsForGatherOfPad */
static int
gather_of_pad(Alg *a, uint32_t i)
{
	uint32_t p = op0(a, i), x, no, nc, nb, ns, k, g, np, nbp = 0;
	int r, ro = rank(a, i), q;
	const int64_t *off, *col, *bat, *ss;
	int64_t *cfg, *nss, *ocfg, *od, out;
	int any = 0;

	if (!is_op(a, p, HOP_PAD) || is_tuple(a, i))
		return 0;
	x = op0(a, p);
	r = rank(a, p);
	off = alg_ints_attr(a, i, A_OFFSET_DIMS, &no);
	col = alg_ints_attr(a, i, A_COLLAPSED_SLICE_DIMS, &nc);
	bat = alg_ints_attr(a, i, A_OPERAND_BATCHING_DIMS, &nb);
	ss = alg_ints_attr(a, i, A_SLICE_SIZES, &ns);
	cfg = alg_ints_copy(a, p, A_PADDING, &np);
	if (!ss || ns != (uint32_t)r || np != 3u * r)
		return 0;
	nss = alg_tmp(a, ((size_t)r + 1) * 8);
	ocfg = alg_tmp(a, ((size_t)ro + 1) * 24);
	od = alg_tmp(a, ((size_t)ro + 1) * 8);
	memcpy(nss, ss, (size_t)r * 8);
	memset(ocfg, 0, (size_t)ro * 24);
	memcpy(od, dims(a, i), (size_t)ro * 8);
	for (q = 0, g = 0; q < r; q++) {
		int isbat = hlo_ints_has(bat, nb, q);
		int dropped = hlo_ints_has(col, nc, q) || isbat;

		out = -1;
		if (!dropped) {
			if (g >= no)
				return 0;
			out = off[g++];
			if (out < 0 || out >= ro)
				return 0;
		}
		if (!cfg[3 * q] && !cfg[3 * q + 1] && !cfg[3 * q + 2])
			continue;
		if (isbat) {
			/* a padded batching dim: the indices padded alike */
			if ((out = padded_batch(a, i, q, cfg)) < 0)
				return 0;
			nbp++;
		} else if (out < 0 || ss[q] != dim(a, p, q)) {
			return 0;	/* not passed through whole */
		} else {
			nss[q] = dim(a, x, q);
		}
		od[out] = dim(a, x, q);
		for (k = 0; k < 3; k++)
			ocfg[3 * out + k] = cfg[3 * q + k];
		any = 1;
	}
	if (!any || (nbp && !pads_only(a, opnd(a, i, 1), nbp)))
		return 0;
	{
		uint32_t ops[2] = {x, nbp ? op0(a, opnd(a, i, 1)) :
			opnd(a, i, 1)}, ng;

		ng = alg_mk_clone(a, i, alg_shp(a, ety(a, i), ro, od,
			shape_of(a, i)), 2, ops);
		alg_set_ints(a, ng, A_SLICE_SIZES, nss, r);
		return alg_rep(a, i, alg_mk_pad(a, shape_of(a, i), ng,
			opnd(a, p, 1), ocfg));
	}
}

/* gather(reshape(pad(x)), idx) => pad(gather(reshape(x), idx)) when the
 * reshape is a bitcast, leaves every padded dim of the pad unmodified and
 * every such dim passes through the gather whole; xla's
 * GatherOfReshapeOfPad (a slice or any other op between the pad and the
 * reshape stops it, GatherOfReshapeOfPad3) */
static int
gather_of_reshape_pad(Alg *a, uint32_t i)
{
	uint32_t rs = op0(a, i), p, x, no, nc, nb, ns, np, nu, k, g, pt;
	int r, rp, ro = rank(a, i), q;
	const int64_t *off, *col, *bat, *ss;
	int64_t *cfg, *u, *nss, *ocfg, *od, *rd, *ptout;
	int any = 0;

	if (!is_op(a, rs, HOP_RESHAPE) || is_tuple(a, i) ||
	    !is_op(a, op0(a, rs), HOP_PAD))
		return 0;
	p = op0(a, rs);
	x = op0(a, p);
	r = rank(a, rs);
	rp = rank(a, p);
	if (!pass_reshape_is_bitcast(a->m, shape_of(a, p), shape_of(a, rs)))
		return 0;
	off = alg_ints_attr(a, i, A_OFFSET_DIMS, &no);
	col = alg_ints_attr(a, i, A_COLLAPSED_SLICE_DIMS, &nc);
	bat = alg_ints_attr(a, i, A_OPERAND_BATCHING_DIMS, &nb);
	ss = alg_ints_attr(a, i, A_SLICE_SIZES, &ns);
	cfg = alg_ints_copy(a, p, A_PADDING, &np);
	if (!ss || ns != (uint32_t)r || np != 3u * rp)
		return 0;
	/* the gather's pass-through dims: operand dim -> output dim */
	ptout = alg_tmp(a, ((size_t)r + 1) * 8);
	for (q = 0, g = 0; q < r; q++) {
		ptout[q] = -1;
		if (hlo_ints_has(col, nc, q) || hlo_ints_has(bat, nb, q))
			continue;
		if (g >= no || off[g] < 0 || off[g] >= ro)
			return 0;
		if (ss[q] == dim(a, rs, q))
			ptout[q] = off[g];
		g++;
	}
	u = alg_tmp(a, 2 * ((size_t)rp + r + 4) * 8);
	nu = alg_unmodified_dims(dims(a, p), rp, dims(a, rs), r, u);
	nss = alg_tmp(a, ((size_t)r + 1) * 8);
	rd = alg_tmp(a, ((size_t)r + 1) * 8);
	ocfg = alg_tmp(a, ((size_t)ro + 1) * 24);
	od = alg_tmp(a, ((size_t)ro + 1) * 8);
	memcpy(nss, ss, (size_t)r * 8);
	memcpy(rd, dims(a, rs), (size_t)r * 8);
	memset(ocfg, 0, (size_t)ro * 24);
	memcpy(od, dims(a, i), (size_t)ro * 8);
	for (q = 0; q < rp; q++) {
		if (!cfg[3 * q] && !cfg[3 * q + 1] && !cfg[3 * q + 2])
			continue;
		for (k = 0; k < nu && u[2 * k] != q; k++)
			;
		if (k == nu)
			return 0;	/* the reshape changes a padded dim */
		pt = (uint32_t)u[2 * k + 1];
		if (ptout[pt] < 0)
			return 0;	/* not passed through whole */
		rd[pt] = nss[pt] = dim(a, x, q);
		od[ptout[pt]] = dim(a, x, q);
		memcpy(ocfg + 3 * ptout[pt], cfg + 3 * q, 24);
		any = 1;
	}
	if (!any)
		return 0;
	{
		uint32_t ops[2], ng;

		ops[0] = alg_mk_reshape(a, alg_shp(a, ety(a, rs), r, rd,
			shape_of(a, rs)), x);
		ops[1] = opnd(a, i, 1);
		ng = alg_mk_clone(a, i, alg_shp(a, ety(a, i), ro, od,
			shape_of(a, i)), 2, ops);
		alg_set_ints(a, ng, A_SLICE_SIZES, nss, r);
		return alg_rep(a, i, alg_mk_pad(a, shape_of(a, i), ng,
			opnd(a, p, 1), ocfg));
	}
}

int
alg_h_gather(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i), ix = opnd(a, i, 1), nc;
	int64_t ivd, n, k;

	if (alg_is_zero_elems(a, x))
		return alg_rep(a, i, alg_scalar_like_i(a, i, 0));
	if (alg_is_eff_scalar(a, x)) {
		if (rank(a, x))
			x = alg_mk_reshape(a, alg_shp_scalar(a, ety(a, x)), x);
		return alg_rep(a, i, alg_mk_bcast(a, shape_of(a, i), x, NULL, 0));
	}
	ivd = alg_int_attr(a, i, A_INDEX_VECTOR_DIM, -1);
	alg_ints_attr(a, i, A_COLLAPSED_SLICE_DIMS, &nc);
	if (rank(a, x) != 1 || dim(a, x, 0) > a->o->small_gather ||
	    ivd != rank(a, ix) || nc != 1 || is_tuple(a, ix))
		return gather_of_pad(a, i) || gather_of_reshape_pad(a, i);
	n = dim(a, x, 0);
	{
		uint32_t ps = alg_shp_type(a, shape_of(a, i), TY_PRED), res = 0, m;
		int64_t one = 1;

		for (k = 0; k < n; k++) {
			int64_t st = k, li = k + 1;
			uint32_t s1, s0, v;

			s1 = alg_mk_slice(a, alg_shp(a, ety(a, x), 1, &one, HLO_NONE), x,
				&st, &li, NULL);
			s0 = alg_mk_reshape(a, alg_shp_scalar(a, ety(a, x)), s1);
			v = alg_mk_bcast(a, shape_of(a, i), s0, NULL, 0);
			if (k == 0) {
				res = v;
				/* xla makes value 0 twice: once for the
				 * start, once in the loop */
				st = 0, li = 1;
				s1 = alg_mk_slice(a, alg_shp(a, ety(a, x), 1, &one,
					HLO_NONE), x, &st, &li, NULL);
				s0 = alg_mk_reshape(a, alg_shp_scalar(a, ety(a, x)), s1);
				v = alg_mk_bcast(a, shape_of(a, i), s0, NULL, 0);
			}
			m = alg_mk_compare(a, ps, ix, alg_scalar_like_i(a, ix, k), "GE");
			res = alg_mk_tern(a, HOP_SELECT, shape_of(a, i), m, v, res);
		}
		return alg_rep(a, i, res);
	}
}

int
alg_h_scatter(Alg *a, uint32_t i)
{
	uint32_t n = nops(a, i), ns, k, *ops;

	if (n < 3 || (n - 1) % 2)
		return 0;
	ns = (n - 1) / 2;
	for (k = 0; k < ns; k++)
		if (!alg_is_zero_elems(a, opnd(a, i, ns + 1 + k)))
			break;
	if (k == ns) {
		if (ns == 1)
			return alg_rep_compat(a, i, op0(a, i));
		if (is_tuple(a, i) && a->m->shapes[shape_of(a, i)].ntuple ==
		    ns) {
			for (k = 0; k < ns; k++)
				if (!alg_same_shape_id(a, tuple_elem(a,
				    shape_of(a, i), k), shape_of(a, opnd(a, i,
				    k))))
					return 0;
			ops = alg_tmp(a, (ns + 1) * 4u);
			for (k = 0; k < ns; k++)
				ops[k] = opnd(a, i, k);
			return alg_rep_compat(a, i, alg_mk_tuple(a, ns, ops));
		}
		return 0;
	}
	if (ns == 1 && alg_is_zero_elems(a, opnd(a, i, 1)) &&
	    alg_same_shape(a, i, op0(a, i)) && alg_same_shape(a, i, opnd(a, i, 2))) {
		uint32_t v[2] = {op0(a, i), opnd(a, i, 2)}, id, c = called(a, i);
		int64_t *dd = alg_tmp(a, ((size_t)rank(a, i) + 1) * 8);
		int q;

		id = alg_mk(a, HOP_MAP, shape_of(a, i), 2, v);
		hlo_set_called(a->m, a->c, id, 1, &c);
		for (q = 0; q < rank(a, i); q++)
			dd[q] = q;
		alg_set_ints(a, id, A_DIMENSIONS, dd, rank(a, i));
		return alg_rep(a, i, id);
	}
	return 0;
}

int
alg_h_sort(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i), n = nops(a, i), k, *ops, nd;
	const int64_t *d = alg_ints_attr(a, i, A_DIMENSIONS, &nd);

	if (!d || nd < 1 || d[0] < 0 || d[0] >= rank(a, x))
		return 0;
	if (!alg_is_zero_elems(a, x) && dim(a, x, d[0]) > 1)
		return 0;
	if (n == 1)
		return alg_rep(a, i, x);
	ops = alg_tmp(a, (n + 1) * 4u);
	for (k = 0; k < n; k++)
		ops[k] = opnd(a, i, k);
	return alg_rep(a, i, alg_mk_tuple(a, n, ops));
}

/* collectives */

static int
bcast_of_scalar_const(Alg *a, uint32_t x)
{
	return is_op(a, x, HOP_BROADCAST) && alg_is_const(a, op0(a, x)) &&
		alg_is_scalar(a, op0(a, x));
}

/* the size of the replica groups {{0,1},{2,3}}; 0 if not explicit */
static int64_t
group_size(Alg *a, uint32_t i)
{
	uint32_t n, k;
	const char *s = hlo_attr_word(a->m, INS(a, i), A_REPLICA_GROUPS, &n);
	int64_t cnt = 0, first = -1, depth = 0, items = 0;

	if (!s || n < 4 || s[0] != '{')
		return 0;
	for (k = 0; k < n; k++) {
		if (s[k] == '{') {
			depth++;
			items = 0;
		} else if (s[k] == '}') {
			if (depth == 2) {
				if (first < 0)
					first = items + 1;
				else if (first != items + 1)
					return 0;
				cnt++;
			}
			depth--;
		} else if (s[k] == ',') {
			if (depth == 2)
				items++;
		} else if (!(s[k] >= '0' && s[k] <= '9') && s[k] != ' ') {
			return 0;
		}
	}
	return cnt > 0 ? first : 0;
}

int
alg_h_all_reduce(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i), c, comp = called(a, i), nc;
	int kind, t;
	int64_t gs, iv;
	double v;

	if (is_tuple(a, i) || nops(a, i) != 1 || !bcast_of_scalar_const(a, x))
		return 0;
	kind = alg_reduce_kind(a, comp);
	c = op0(a, x);
	t = ety(a, c);
	if (kind == HOP_MIN || kind == HOP_MAX || (t == TY_PRED &&
	    (kind == HOP_AND || kind == HOP_OR)))
		return alg_rep(a, i, alg_mk_bcast(a, shape_of(a, i), c, NULL, 0));
	if (kind != HOP_ADD || !(gs = group_size(a, i)))
		return 0;
	if (alg_t_int(t) && alg_const_first(a, c, &iv))
		nc = alg_mk_scalar_i(a, t, (int64_t)((uint64_t)iv * (uint64_t)gs));
	else if (alg_t_float(t) && alg_const_value(a, c, &v))
		nc = alg_mk_scalar(a, t, t == TY_F64 ? v * (double)gs :
			(double)(float)v * (double)gs);
	else
		return 0;
	return alg_rep(a, i, alg_mk_bcast(a, shape_of(a, i), nc, NULL, 0));
}

int
alg_h_all_gather(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i), c;

	if (is_tuple(a, i) || nops(a, i) != 1 || !is_op(a, x, HOP_BROADCAST) ||
	    !alg_is_const(a, op0(a, x)) || !alg_is_scalar(a, op0(a, x)))
		return 0;
	c = op0(a, x);
	return alg_rep(a, i, alg_mk_clone(a, x, shape_of(a, i), 1, &c));
}

int
alg_h_all_to_all(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i);

	if (is_tuple(a, i) || nops(a, i) != 1 || !is_op(a, x, HOP_BROADCAST) ||
	    !alg_is_const(a, op0(a, x)) || !alg_is_scalar(a, op0(a, x)))
		return 0;
	return alg_rep(a, i, x);
}

/* custom-call, opt-barrier */

int
alg_h_custom_call(Alg *a, uint32_t i)
{
	uint32_t g0, g1, p0, p1;

	if (!pass_is_custom_call(a->m, INS(a, i), "SliceToDynamic") ||
	    nops(a, i) != 2)
		return 0;
	g0 = op0(a, i), g1 = opnd(a, i, 1);
	if (!is_op(a, g0, HOP_GTE) || !is_op(a, g1, HOP_GTE) ||
	    alg_int_attr(a, g0, A_INDEX, -1) != 0 || alg_int_attr(a, g1, A_INDEX, -1) != 1)
		return 0;
	p0 = op0(a, g0), p1 = op0(a, g1);
	if (p0 != p1 || !pass_is_custom_call(a->m, INS(a, p0), "PadToStatic") ||
	    nops(a, p0) != 1 || !alg_same_shape(a, i, op0(a, p0)))
		return 0;
	return alg_rep(a, i, op0(a, p0));
}

int
alg_h_opt_barrier(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i), n, *us, nu, k, j, *ops, *el, cnt = 0, nt;
	uint8_t *used;
	int64_t *map, ix;
	int tup;

	if (!is_tuple(a, i) || a->m->comps[a->c].root == i)
		return 0;
	n = a->m->shapes[shape_of(a, i)].ntuple;
	used = alg_tmp(a, n + 1);
	memset(used, 0, n);
	nu = alg_users(a, i, &us);
	for (k = 0; k < nu; k++) {
		if (!is_op(a, us[k], HOP_GTE))
			return 0;
		ix = alg_int_attr(a, us[k], A_INDEX, -1);
		if (ix < 0 || (uint64_t)ix >= n)
			return 0;
		used[ix] = 1;
	}
	for (k = 0; k < n; k++)
		if (a->m->shapes[tuple_elem(a, shape_of(a, i), k)].type ==
		    TY_TOKEN)
			used[k] = 1;
	tup = is_op(a, x, HOP_TUPLE) && nops(a, x) == n;
	if (tup)
		for (k = 0; k < n; k++) {
			uint32_t e = opnd(a, x, k);

			if (!used[k] && (alg_nusers(a, e, 2) > 1 ||
			    a->m->comps[a->c].root == e || alg_has_effect(a, e)))
				used[k] = 1;
		}
	for (k = 0; k < n; k++)
		cnt += used[k];
	if (cnt == n)
		return 0;
	ops = alg_tmp(a, (n + 1) * 4u);
	map = alg_tmp(a, (n + 1) * 8u);
	for (k = 0, j = 0; k < n; k++) {
		map[k] = -1;
		if (!used[k])
			continue;
		map[k] = j;
		ops[j++] = tup ? opnd(a, x, k) : alg_mk_gte(a, x, k);
	}
	nt = alg_mk_tuple(a, cnt, ops);
	alg_set_opnd(a, i, 0, nt);
	INS(a, i)->shape = shape_of(a, nt);
	nu = alg_users(a, i, &us);
	el = alg_tmp(a, (nu + 1) * 4u);
	memcpy(el, us, nu * 4u);
	for (k = 0; k < nu; k++) {
		HloAttr at;

		ix = alg_int_attr(a, el[k], A_INDEX, 0);
		at = hlo_mk_int(A_INDEX, map[ix]);
		hlo_attr_set(a->m, a->c, el[k], &at);
	}
	alg_mark_changed(a);
	return 1;
}
