/* algsimp_shape.c: the algebraic simplifier's data-movement handlers:
 * constant, iota, broadcast, reshape, transpose, bitcast, copy, slice,
 * pad, concatenate, reverse, dynamic-slice, dynamic-update-slice and
 * get-tuple-element, after the handlers of the same names in xla's
 * algebraic_simplifier.cc. */
#include <string.h>

#include "algsimp.h"

static int64_t *
dims_copy(Alg *a, uint32_t i)
{
	int r = rank(a, i);
	int64_t *v = alg_tmp(a, ((size_t)r + 1) * 8);

	memcpy(v, dims(a, i), (size_t)r * 8);
	return v;
}

static void
invert(const int64_t *p, uint32_t n, int64_t *inv)
{
	uint32_t k;

	for (k = 0; k < n; k++)
		if (p[k] >= 0 && (uint64_t)p[k] < n)
			inv[p[k]] = k;
}

static uint32_t bitcasting_operand(Alg *a, uint32_t i);

static int
dead(Alg *a, uint32_t i)
{
	return a->ed.nuse[i] == 0 && a->m->comps[a->c].root != i;
}

/* constant */

static int
bitseq(const unsigned char *p, const unsigned char *q, int n)
{
	return !memcmp(p, q, n);
}

/* Literal::IsR1Iota */
static int
r1_iota(Alg *a, uint32_t i, const unsigned char *p, int64_t n)
{
	int t = ety(a, i), esz = hlo_type_bytes(t), ct;
	int64_t k;

	if (rank(a, i) != 1 || t == TY_PRED)
		return 0;
	for (k = 0; k < n; k++, p += esz) {
		if (alg_t_int(t)) {
			if (alg_int_at(t, p) != k)
				return 0;
		} else if (alg_t_float(t)) {
			if (hlo_float_decode(t, alg_bits_at(p, esz)) !=
			    hlo_float_decode(t, hlo_float_encode(t, (double)k)))
				return 0;
		} else if (alg_t_cplx(t)) {
			ct = t == TY_C64 ? TY_F32 : TY_F64;
			if (hlo_float_decode(ct, alg_bits_at(p, esz / 2)) !=
			    hlo_float_decode(ct, hlo_float_encode(ct,
			    (double)k)) || hlo_float_decode(ct, alg_bits_at(p +
			    esz / 2, esz / 2)) != 0)
				return 0;
		} else {
			return 0;
		}
	}
	return 1;
}

/* Literal::IsR1StridedIota: the stride, 0 if not */
static int64_t
r1_strided(Alg *a, uint32_t i, const unsigned char *p, int64_t n)
{
	int t = ety(a, i), esz = hlo_type_bytes(t);
	int64_t k, stride;

	if (rank(a, i) != 1 || n <= 1 || !alg_t_int(t))
		return 0;
	stride = alg_int_at(t, p + esz);
	if (stride == 0)
		return 0;
	for (k = 0; k < n; k++, p += esz)
		if ((uint64_t)alg_int_at(t, p) !=
		    (uint64_t)k * (uint64_t)stride)
			return 0;
	return stride;
}

/* a tuple of constants for the tuple literal at *p */
static uint32_t
tuple_const(Alg *a, uint32_t shape, const unsigned char **p,
	const unsigned char *end, int depth)
{
	const HloShape *s = &a->m->shapes[shape];
	uint32_t n, k, *el, es;
	int64_t cnt, nb;

	if (depth > 64)
		return HLO_NONE;
	if (s->type != TY_TUPLE) {
		cnt = hlo_shape_elems(a->m, shape);
		if (cnt < 0)
			return HLO_NONE;
		nb = cnt * hlo_type_bytes(s->type);
		if (nb > end - *p)
			return HLO_NONE;
		k = alg_mk_const(a, shape, *p, (uint32_t)nb);
		*p += nb;
		return k;
	}
	n = s->ntuple;
	el = alg_tmp(a, (n + 1) * 4u);
	for (k = 0; k < n; k++) {
		es = a->m->ids[a->m->shapes[shape].tuple + k];
		if ((el[k] = tuple_const(a, es, p, end, depth + 1)) == HLO_NONE)
			return HLO_NONE;
	}
	return alg_mk(a, HOP_TUPLE, shape, n, el);
}

/* bytes of the leaves of tuple shape s, -1 on overflow */
static int64_t
tuple_bytes(Alg *a, uint32_t s, int depth)
{
	const HloShape *sh = &a->m->shapes[s];
	int64_t n = 0, e;
	uint32_t k;

	if (depth > 64)
		return -1;
	if (sh->type != TY_TUPLE) {
		e = hlo_shape_elems(a->m, s);
		return e < 0 ? -1 : e * hlo_type_bytes(sh->type);
	}
	for (k = 0; k < sh->ntuple; k++) {
		e = tuple_bytes(a, a->m->ids[a->m->shapes[s].tuple + k],
			depth + 1);
		if (e < 0 || n > INT64_MAX - e)
			return -1;
		n += e;
		sh = &a->m->shapes[s];
	}
	return n;
}

int
alg_h_constant(Alg *a, uint32_t i)
{
	uint32_t nb, sc, io;
	const unsigned char *p;
	int t = ety(a, i), esz;
	int64_t n, k, stride;

	if (t == TY_TUPLE) {
		p = hlo_literal(a->m, INS(a, i), &nb);
		if (!p || tuple_bytes(a, shape_of(a, i), 0) != (int64_t)nb)
			return 0;
		{
			unsigned char *cp = alg_tmp(a, nb + 1);
			const unsigned char *q = cp;

			memcpy(cp, p, nb);
			sc = tuple_const(a, shape_of(a, i), &q, cp + nb, 0);
		}
		return sc != HLO_NONE && alg_rep(a, i, sc);
	}
	if (t == TY_TOKEN || !(p = alg_lit(a, i, &nb)))
		return 0;
	n = alg_elems(a, i);
	esz = hlo_type_bytes(t);
	if (n > 1) {
		for (k = 1; k < n; k++)
			if (!bitseq(p, p + k * esz, esz))
				break;
		if (k == n) {
			sc = alg_mk_const(a, alg_shp_scalar(a, t), p, esz);
			return alg_rep(a, i, alg_mk_bcast(a, shape_of(a, i), sc, NULL,
				0));
		}
		if (r1_iota(a, i, p, n))
			return alg_rep(a, i, alg_mk_iota(a, shape_of(a, i), 0));
	}
	stride = r1_strided(a, i, p, n);
	if (stride) {
		sc = alg_scalar_like_i(a, i, stride);
		io = alg_mk_iota(a, shape_of(a, i), 0);
		return alg_rep(a, i, alg_mk_bin(a, HOP_MUL, shape_of(a, i), io, sc));
	}
	return 0;
}

int
alg_h_iota(Alg *a, uint32_t i)
{
	int64_t d = alg_int_attr(a, i, A_IOTA_DIM, 0);

	if (d < 0 || d >= rank(a, i) || dim(a, i, d) > 1)
		return 0;
	return alg_rep(a, i, alg_scalar_like_i(a, i, 0));
}

/* broadcast */

static int
scalar_bcast(Alg *a, uint32_t x)
{
	return is_op(a, x, HOP_BROADCAST) && alg_is_scalar(a, op0(a, x));
}

static int
equal_bcast(Alg *a, uint32_t b, uint32_t x)
{
	uint32_t n1, n2;
	const int64_t *d1, *d2;

	if (!is_op(a, x, HOP_BROADCAST) ||
	    shape_of(a, op0(a, b)) != shape_of(a, op0(a, x)))
		return 0;
	d1 = alg_ints_attr(a, b, A_DIMENSIONS, &n1);
	d2 = alg_ints_attr(a, x, A_DIMENSIONS, &n2);
	return n1 == n2 && (!n1 || !memcmp(d1, d2, n1 * 8u));
}

/* TryToSinkBroadcastAfterElementwiseOps */
static int
sink_bcast(Alg *a, uint32_t b)
{
	uint32_t x = op0(a, b), *us, nu, k, j, u, n, *ops, nd, uo, nw;
	int64_t *bd;
	int changed = 0, op;

	if (alg_is_scalar(a, b))
		return 0;
	nu = alg_users(a, b, &us);
	{
		uint32_t *cp = alg_tmp(a, (nu + 1) * 4u);

		memcpy(cp, us, nu * 4u);
		us = cp;
	}
	bd = alg_ints_copy(a, b, A_DIMENSIONS, &nd);
	for (k = 0; k < nu; k++) {
		u = us[k];
		if (INS(a, u)->flags & HI_DEAD || dead(a, u))
			continue;
		op = opc(a, u);
		if (op == HOP_COPY || op == HOP_FUSION ||
		    !(hlo_opinfo[op].flags & OPF_ELEM))
			continue;
		n = nops(a, u);
		for (j = 0; j < n; j++) {
			uo = opnd(a, u, j);
			if (!scalar_bcast(a, uo) && !equal_bcast(a, b, uo))
				break;
		}
		if (j < n || n == 0)
			continue;
		ops = alg_tmp(a, (n + 1) * 4u);
		for (j = 0; j < n; j++) {
			uo = opnd(a, u, j);
			if (scalar_bcast(a, uo))
				ops[j] = alg_mk_bcast(a, alg_shp_type(a, shape_of(a, x),
					ety(a, uo)), op0(a, uo), NULL, 0);
			else
				ops[j] = op0(a, uo);
		}
		nw = alg_mk_clone(a, u, alg_shp_type(a, shape_of(a, x), ety(a, u)), n,
			ops);
		nw = alg_mk_bcast(a, shape_of(a, u), nw, bd, nd);
		alg_rep_uses(a, u, nw);
		changed = 1;
	}
	return changed;
}

static int
permutes_or_subsets(Alg *a, uint32_t u, uint32_t b)
{
	uint32_t k, cnt = 0, idx = 0;

	switch (opc(a, u)) {
	case HOP_RESHAPE:
	case HOP_REVERSE:
	case HOP_TRANSPOSE:
		return 1;
	case HOP_SORT:
		return !is_tuple(a, u);
	case HOP_SLICE:
	case HOP_DYNSLICE:
		for (k = 0; k < nops(a, u); k++)
			if (opnd(a, u, k) == b)
				cnt++, idx = k;
		return cnt == 1 && idx == 0;
	default:
		return 0;
	}
}

static int
bcast_scalar_users(Alg *a, uint32_t b)
{
	uint32_t x = op0(a, b), *us, nu, k, u, nb;

	nu = alg_users(a, b, &us);
	{
		uint32_t *cp = alg_tmp(a, (nu + 1) * 4u);

		memcpy(cp, us, nu * 4u);
		us = cp;
	}
	for (k = 0; k < nu; k++) {
		u = us[k];
		if (dead(a, u) || !permutes_or_subsets(a, u, b))
			continue;
		nb = alg_mk_bcast(a, shape_of(a, u), x, NULL, 0);
		alg_rep_uses(a, u, nb);
		alg_mark_changed(a);
		return 1;
	}
	return 0;
}

int
alg_h_broadcast(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i), nd, ndel, nins, k, j, nn;
	int64_t *d = alg_ints_copy(a, i, A_DIMENSIONS, &nd), *del, *ins, *v, *inv;
	int rx = rank(a, x), ri = rank(a, i);

	if (is_tuple(a, x) || (uint32_t)rx != nd)
		return 0;
	if (hlo_ints_ascending(d, nd) && alg_elems(a, i) == alg_elems(a, x))
		return alg_rep(a, i, alg_mk_reshape(a, shape_of(a, i), x));
	if (ri == rx && alg_elems(a, i) == alg_elems(a, x)) {
		inv = alg_tmp(a, (nd + 1) * 8u);
		invert(d, nd, inv);
		return alg_rep(a, i, alg_mk_transpose(a, shape_of(a, i), x, inv));
	}
	/* broadcast(reshape inserting 1-sized dims) => broadcast */
	if (is_op(a, x, HOP_RESHAPE)) {
		uint32_t y = op0(a, x);
		int ry = rank(a, y);

		del = alg_tmp(a, ((size_t)ry + rx + 1) * 8);
		ins = alg_tmp(a, ((size_t)ry + rx + 1) * 8);
		if (!is_tuple(a, y) && alg_reshape_degenerate(a, y, x, del, &ndel,
		    ins, &nins) && ndel == 0) {
			for (k = nins; k-- > 0;) {
				for (j = ins[k]; j + 1 < nd; j++)
					d[j] = d[j + 1];
				nd--;
			}
			return alg_rep(a, i, alg_mk_bcast(a, shape_of(a, i), y, d, nd));
		}
	}
	if (a->o->sink_bcast && sink_bcast(a, i)) {
		alg_mark_changed(a);
		return 1;
	}
	if (alg_is_scalar(a, x))
		return bcast_scalar_users(a, i);
	if (is_op(a, x, HOP_IOTA)) {
		int64_t id = alg_int_attr(a, x, A_IOTA_DIM, 0);

		if (id < 0 || (uint64_t)id >= nd)
			return 0;
		return alg_rep(a, i, alg_mk_iota(a, shape_of(a, i), d[id]));
	}
	if (is_op(a, x, HOP_BROADCAST)) {
		int64_t *od = alg_ints_copy(a, x, A_DIMENSIONS, &nn);

		v = alg_tmp(a, (nn + 1) * 8u);
		for (k = 0; k < nn; k++) {
			if (od[k] < 0 || (uint64_t)od[k] >= nd)
				return 0;
			v[k] = d[od[k]];
		}
		return alg_rep(a, i, alg_mk_bcast(a, shape_of(a, i), op0(a, x), v,
			nn));
	}
	if (!a->lay && a->o->bcast_degenerate) {
		int64_t *nd2 = alg_tmp(a, ((size_t)rx + 1) * 8);
		int64_t *ndims = alg_tmp(a, ((size_t)rx + 1) * 8);
		uint32_t cnt = 0, r;
		int q;

		for (q = 0; q < rx; q++)
			if (dim(a, x, q) == 1)
				break;
		if (q == rx)
			return 0;
		for (q = 0; q < rx; q++)
			if (dim(a, x, q) != 1) {
				nd2[cnt] = dim(a, x, q);
				ndims[cnt++] = d[q];
			}
		r = alg_mk_reshape(a, alg_shp(a, ety(a, x), cnt, nd2, shape_of(a, x)),
			x);
		return alg_rep(a, i, alg_mk_bcast(a, shape_of(a, i), r, ndims, cnt));
	}
	return 0;
}

/* reshape */

static int
ndegenerate(const int64_t *d, int r)
{
	int k, n = 0;

	for (k = 0; k < r; k++)
		n += d[k] == 1;
	return n;
}

static int
chain_reshape_ok(Alg *a, uint32_t x)
{
	uint32_t y, nd, ni;
	int64_t *del, *ins;

	if (!is_op(a, x, HOP_RESHAPE))
		return 0;	/* bitcasts are not reshapes when layouts are
				 * ignored */
	y = op0(a, x);
	if (is_tuple(a, y) || ndegenerate(dims(a, x), rank(a, x)) > 1 ||
	    ndegenerate(dims(a, y), rank(a, y)) > 1)
		return 0;
	del = alg_tmp(a, ((size_t)rank(a, x) + rank(a, y) + 1) * 8);
	ins = alg_tmp(a, ((size_t)rank(a, x) + rank(a, y) + 1) * 8);
	return alg_reshape_degenerate(a, y, x, del, &nd, ins, &ni);
}

/* the permutation of transpose t ignoring its one degenerate dimension */
static uint32_t
eff_perm(Alg *a, uint32_t t, int64_t *out)
{
	uint32_t n, k, m = 0;
	int64_t *p = alg_ints_copy(a, t, A_DIMENSIONS, &n), dg = -1;
	uint32_t y = op0(a, t);
	int q;

	if (ndegenerate(dims(a, y), rank(a, y)) == 1)
		for (q = 0; q < rank(a, y); q++)
			if (dim(a, y, q) == 1)
				dg = q;
	for (k = 0; k < n; k++) {
		if (dg >= 0 && p[k] == dg)
			continue;
		out[m++] = dg >= 0 && p[k] > dg ? p[k] - 1 : p[k];
	}
	return m;
}

/* TryRemovingBitcastOrReshapeTransposeChain */
static int
chain_removed(Alg *a, uint32_t i)
{
	uint32_t cur, start = HLO_NONE, n, k, m, steps = 0;
	int64_t *perm, *ep, *tmp;
	int r = rank(a, i), q, eff = 0;

	if (is_tuple(a, i))
		return 0;
	if (is_op(a, i, HOP_TRANSPOSE)) {
		int64_t *p = alg_ints_copy(a, i, A_DIMENSIONS, &n);

		if (hlo_ints_is_iota(p, n))
			return 0;
	} else if (!chain_reshape_ok(a, i)) {
		return 0;
	}
	for (q = 0; q < r; q++)
		eff += dim(a, i, q) != 1;
	perm = alg_tmp(a, ((size_t)r + 1) * 8);
	ep = alg_tmp(a, ((size_t)r + 1) * 8);
	tmp = alg_tmp(a, ((size_t)r + 1) * 8);
	for (q = 0; q < eff; q++)
		perm[q] = q;
	n = eff;
	if (is_op(a, i, HOP_TRANSPOSE))
		n = eff_perm(a, i, perm);
	cur = op0(a, i);
	while ((is_op(a, cur, HOP_RESHAPE) || is_op(a, cur, HOP_TRANSPOSE) ||
	    is_op(a, cur, HOP_BITCAST)) && steps++ < 4096) {
		if (!is_op(a, cur, HOP_TRANSPOSE) && !chain_reshape_ok(a, cur))
			return 0;
		if (is_op(a, cur, HOP_TRANSPOSE)) {
			int64_t *p = alg_ints_copy(a, cur, A_DIMENSIONS, &k);

			if (hlo_ints_is_iota(p, k))
				return 0;
			m = eff_perm(a, cur, ep);
			if (m != n)
				return 0;
			for (k = 0; k < n; k++) {
				if (perm[k] < 0 || (uint64_t)perm[k] >= m)
					return 0;
				tmp[k] = ep[perm[k]];
			}
			memcpy(perm, tmp, n * 8u);
		}
		start = cur;
		cur = op0(a, cur);
	}
	if (start == HLO_NONE || !hlo_ints_is_iota(perm, n))
		return 0;
	cur = op0(a, start);
	if (!alg_same_shape(a, i, cur))
		return 0;
	return alg_rep(a, i, cur);
}

/* ReshapeLeavesDimensionsUnmodified: the output dims of sorted input
 * dims d, or 0 */
static int
leaves_unmodified(Alg *a, uint32_t from, uint32_t to, const int64_t *d,
	uint32_t nd, int64_t *out)
{
	int ra = rank(a, from), rb = rank(a, to);
	int64_t *u = alg_tmp(a, ((size_t)ra + rb + 4) * 16);
	uint32_t n, k, j = 0;

	if (!hlo_ints_ascending(d, nd))
		return 0;
	n = alg_unmodified_dims(dims(a, from), ra, dims(a, to), rb, u);
	for (k = 0; k < nd; k++) {
		while (j < n && u[2 * j] < d[k])
			j++;
		if (j >= n || u[2 * j] != d[k])
			return 0;
		out[k] = u[2 * j + 1];
	}
	return 1;
}

static int
reshape_iota(Alg *a, uint32_t i, uint32_t x)
{
	int ra = rank(a, x), rb = rank(a, i);
	int64_t *f = alg_tmp(a, ((size_t)ra + rb + 4) * 16), id, mult = 1;
	uint32_t n, k, fi = HLO_NONE, fn = HLO_NONE, nw = HLO_NONE, io, t;
	int64_t d, lo, hi;

	id = alg_int_attr(a, x, A_IOTA_DIM, 0);
	n = alg_common_factors(dims(a, x), ra, dims(a, i), rb, f);
	for (k = 0; k < n; k++)
		if (f[2 * k] == id && f[2 * k + 1] < rb &&
		    dim(a, i, f[2 * k + 1]) > 1) {
			fi = k;
			break;
		}
	for (k = 0; k < n; k++)
		if (f[2 * k] == id + 1) {
			fn = k;
			break;
		}
	if (fi == HLO_NONE || fn == HLO_NONE || fi + 1 >= n)
		return 0;
	lo = f[2 * fi + 1];
	hi = f[2 * (fi + 1) + 1] - 1;
	for (d = hi; d >= lo; d--) {
		io = alg_mk_iota(a, shape_of(a, i), d);
		if (nw != HLO_NONE) {
			t = alg_mk_bin(a, HOP_MUL, shape_of(a, i), io,
				alg_scalar_like_i(a, i, mult));
			nw = alg_mk_bin(a, HOP_ADD, shape_of(a, i), nw, t);
		} else {
			nw = io;
		}
		mult *= dim(a, i, d);
	}
	return nw != HLO_NONE && alg_rep(a, i, nw);
}

/* reshape(dus(x, u, idx)) => dus(reshape(x), reshape(u), idx') when the
 * reshape only inserts or deletes 1-sized dimensions */
static int
reshape_dus(Alg *a, uint32_t i, uint32_t x)
{
	uint32_t nd, ni, nidx, k, *ops, zero, no, ns, upd;
	int64_t *del, *ins, *sz;
	int r = rank(a, i), rx = rank(a, x), ru, q;
	uint32_t cnt = 0, nsz = 0;

	if (!is_op(a, x, HOP_DYNUPDSLICE) || nops(a, x) < 2)
		return 0;
	del = alg_tmp(a, ((size_t)r + rx + 1) * 8);
	ins = alg_tmp(a, ((size_t)r + rx + 1) * 8);
	if (!alg_reshape_degenerate(a, x, i, del, &nd, ins, &ni))
		return 0;
	if (!alg_one_user(a, x) || hlo_attr(a->m, INS(a, x), A_SHARDING) ||
	    hlo_attr(a->m, INS(a, op0(a, x)), A_SHARDING))
		return 0;
	upd = opnd(a, x, 1);
	ru = rank(a, upd);
	nidx = nops(a, x) - 2;
	if (nidx == 0)
		return 0;
	no = alg_mk_reshape(a, shape_of(a, i), op0(a, x));
	zero = alg_scalar_like_i(a, opnd(a, x, 2), 0);
	ops = alg_tmp(a, ((size_t)r + 3) * 4);
	sz = alg_tmp(a, ((size_t)r + ru + 2) * 8);
	ops[cnt++] = no;
	ops[cnt++] = HLO_NONE;
	for (q = 0; q <= ru; q++) {
		for (k = 0; k < nd; k++)
			if (del[k] == q)
				break;
		if (k < nd)
			continue;
		for (;;) {
			for (k = 0; k < ni; k++)
				if (ins[k] == (int64_t)nsz)
					break;
			if (k == ni)
				break;
			sz[nsz++] = 1;
			ops[cnt++] = zero;
		}
		if (q < ru) {
			sz[nsz++] = dim(a, upd, q);
			ops[cnt++] = opnd(a, x, 2 + q);
		}
	}
	if ((int)nsz != r)
		return 0;
	ns = alg_mk_reshape(a, alg_shp(a, ety(a, upd), nsz, sz, shape_of(a, upd)),
		upd);
	ops[1] = ns;
	return alg_rep(a, i, alg_mk_clone(a, x, shape_of(a, i), cnt, ops));
}

int
alg_h_reshape(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i), nd;
	int64_t *d, *out;

	if (is_tuple(a, i) || is_tuple(a, x))
		return 0;
	if (alg_is_zero_elems(a, i)) {
		uint32_t s = hlo_shape_default_layout(a->m, shape_of(a, i));

		return alg_rep(a, i, alg_mk_const(a, s, "", 0));
	}
	if (alg_same_shape(a, i, x))
		return alg_rep(a, i, x);
	if (is_op(a, x, HOP_RESHAPE))
		return alg_rep(a, i, alg_mk_reshape(a, shape_of(a, i), op0(a, x)));

	if (is_op(a, x, HOP_RNG) && alg_one_user(a, x)) {
		INS(a, x)->shape = shape_of(a, i);
		return alg_rep(a, i, x);
	}
	if (chain_removed(a, i))
		return 1;
	if (is_op(a, x, HOP_BROADCAST)) {
		d = alg_ints_copy(a, x, A_DIMENSIONS, &nd);
		out = alg_tmp(a, (nd + 1) * 8u);
		if (leaves_unmodified(a, x, i, d, nd, out))
			return alg_rep(a, i, alg_mk_bcast(a, shape_of(a, i), op0(a, x),
				out, nd));
	}
	if (is_op(a, x, HOP_IOTA) && reshape_iota(a, i, x))
		return 1;
	if (!a->lay)
		return reshape_dus(a, i, x);
	if ((x = bitcasting_operand(a, i)) != HLO_NONE)
		return alg_rep(a, i, alg_mk_un(a, HOP_BITCAST, shape_of(a, i), x));
	return 0;
}

/* transpose */

/* appends w (n bytes) to buf at m without its leading and trailing
 * blanks; returns the new length */
static uint32_t
put_word(char *buf, uint32_t m, const char *w, uint32_t n)
{
	while (n && (*w == ' ' || *w == '\t'))
		w++, n--;
	while (n && (w[n - 1] == ' ' || w[n - 1] == '\t'))
		n--;
	memcpy(buf + m, w, n);
	return m + n;
}

/* swaps the two entries of operand_precision={a,b} */
void
alg_swap_precision(Alg *a, uint32_t i)
{
	uint32_t n, k, c = HLO_NONE, m;
	const char *s = hlo_attr_word(a->m, INS(a, i), A_OPERAND_PRECISION, &n);
	char *buf;
	HloAttr at;

	if (!s || n < 3 || s[0] != '{' || s[n - 1] != '}')
		return;
	for (k = 1; k + 1 < n; k++)
		if (s[k] == ',') {
			if (c != HLO_NONE)
				return;
			c = k;
		}
	if (c == HLO_NONE)
		return;
	/* {x, y} -> {y,x}, the blanks around each word dropped */
	buf = alg_tmp(a, n + 1);
	m = 0;
	buf[m++] = '{';
	m = put_word(buf, m, s + c + 1, n - c - 2);
	buf[m++] = ',';
	m = put_word(buf, m, s + 1, c - 1);
	buf[m++] = '}';
	at = hlo_mk_bytes(a->m, A_OPERAND_PRECISION, K_RAW, buf, m);
	hlo_attr_set(a->m, a->c, i, &at);
}

static int
perm_of_iota(const int64_t *v, uint32_t n)
{
	uint8_t seen[64] = {0};
	uint32_t k;

	if (n > 64)
		return 0;
	for (k = 0; k < n; k++) {
		if (v[k] < 0 || (uint64_t)v[k] >= n || seen[v[k]])
			return 0;
		seen[v[k]] = 1;
	}
	return 1;
}

/* transpose(dot(a, b)) => dot(b, a) for canonical dots */
static int
transpose_of_dot(Alg *a, uint32_t i, uint32_t d, const int64_t *perm,
	uint32_t np)
{
	uint32_t lb, rb, lc, rc, k, nd;
	int64_t *lbv = alg_ints_copy(a, d, A_LHS_BATCH, &lb);
	int64_t *rbv = alg_ints_copy(a, d, A_RHS_BATCH, &rb);
	int64_t *lcv = alg_ints_copy(a, d, A_LHS_CONTRACT, &lc);
	int64_t *rcv = alg_ints_copy(a, d, A_RHS_CONTRACT, &rc);
	uint32_t l = op0(a, d), r = opnd(a, d, 1), ops[2];
	int rk = rank(a, d);

	if (a->o->non_canonical || !is_op(a, d, HOP_DOT) ||
	    !alg_one_user(a, d) || INS(a, d)->nops != 2)
		return 0;
	/* xla's consider_swapping_dot_operands: with
	 * enable_move_dot_param_to_rhs a dot whose rhs alone is
	 * parameter-like keeps its order */
	if (a->o->move_dot_param && alg_param_like(a, r) && !alg_param_like(a, l))
		return 0;
	if (lb != rb || (lb && memcmp(lbv, rbv, lb * 8u)) ||
	    !perm_of_iota(lbv, lb) || lc == 0 ||
	    lc + lb + 1 != (uint32_t)rank(a, l) || rc == 0 ||
	    rc + rb + 1 != (uint32_t)rank(a, r))
		return 0;
	if (rk < 2 || np != (uint32_t)rk)
		return 0;
	for (k = 0; k < np; k++) {
		int64_t want = k == np - 2 ? rk - 1 : k == np - 1 ? rk - 2 :
			(int64_t)k;

		if (perm[k] != want)
			return 0;
	}
	ops[0] = r, ops[1] = l;
	nd = alg_mk_clone(a, d, shape_of(a, i), 2, ops);
	alg_set_ints(a, nd, A_LHS_CONTRACT, rcv, rc);
	alg_set_ints(a, nd, A_RHS_CONTRACT, lcv, lc);
	alg_swap_precision(a, nd);
	return alg_rep(a, i, nd);
}

static int
only_degenerate(Alg *a, uint32_t i, const int64_t *perm, uint32_t n)
{
	uint32_t k, cnt = 0;
	int64_t last = -1;

	for (k = 0; k < n; k++) {
		if (dim(a, i, k) == 1) {
			cnt++;
			continue;
		}
		if (perm[k] < last)
			return 0;
		last = perm[k];
	}
	return cnt > 0;
}

/* reshape(transpose(reshape(x))) as a space-to-depth: a concatenate of
 * slices */
static int
transpose_s2d(Alg *a, uint32_t i, uint32_t x, const int64_t *perm)
{
	uint32_t *us, outer, ro, nch, k, *sl, c;
	int rr, rx, split = -1, td = -1, q;
	int64_t chunk, *st, *li, off;

	if (!is_op(a, x, HOP_RESHAPE) || alg_nusers(a, i, 2) != 1)
		return 0;
	alg_users(a, i, &us);
	outer = us[0];
	if (!is_op(a, outer, HOP_RESHAPE))
		return 0;
	ro = op0(a, x);
	rr = rank(a, ro);
	rx = rank(a, x);
	if (rx != rr + 1 || is_tuple(a, ro))
		return 0;
	for (q = 0; q < rr; q++)
		if (dim(a, x, q) != dim(a, ro, q)) {
			if (dim(a, ro, q) == dim(a, x, q) * dim(a, x, q + 1)) {
				split = q;
				break;
			}
			return 0;
		}
	if (split < 0)
		return 0;
	for (q = split + 1; q < rr; q++)
		if (dim(a, x, q + 1) != dim(a, ro, q))
			return 0;
	nch = dim(a, x, split);
	chunk = dim(a, x, split + 1);
	if (nch > 5)
		return 0;
	for (q = 0; q < rx; q++)
		if (perm[q] == split) {
			td = q;
			break;
		}
	if (td < 0 || td == split || td == split + 1)
		return 0;
	for (q = 0; q < rx; q++) {
		int64_t o = 0;

		if (q > td)
			o--;
		if (q > split)
			o++;
		if (q != td && perm[q] != q + o)
			return 0;
	}
	if (rank(a, outer) < rr)
		return 0;
	for (q = 0; q < rr; q++) {
		if (q == td - 1) {
			if (dim(a, outer, q) != dim(a, ro, q) * nch)
				return 0;
		} else if (q == split) {
			if (dim(a, outer, q) != dim(a, ro, q) / (int64_t)nch)
				return 0;
		} else if (dim(a, outer, q) != dim(a, ro, q)) {
			return 0;
		}
	}
	sl = alg_tmp(a, (nch + 1) * 4u);
	st = alg_tmp(a, ((size_t)rr + 1) * 8);
	li = alg_tmp(a, ((size_t)rr + 1) * 8);
	for (k = 0; k < nch; k++) {
		for (q = 0; q < rr; q++) {
			off = q == split ? (int64_t)k * chunk : 0;
			st[q] = off;
			li[q] = q == split ? off + chunk : dim(a, ro, q);
		}
		sl[k] = alg_mk_slice_infer(a, ro, st, li, NULL);
	}
	c = alg_mk_concat_infer(a, nch, sl, td);
	alg_set_opnd(a, outer, 0, c);
	alg_mark_changed(a);
	return 1;
}

int
alg_h_transpose(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i), n, nx, k, nd;
	int64_t *p = alg_ints_copy(a, i, A_DIMENSIONS, &n), *q, *c, *inv, *bd, *nbd;

	if (hlo_ints_ascending(p, n))
		return alg_rep(a, i, x);
	if (is_op(a, x, HOP_TRANSPOSE)) {
		q = alg_ints_copy(a, x, A_DIMENSIONS, &nx);
		if (nx != n)
			return 0;
		if (!(c = alg_ints_pick(a, q, n, p, n)))
			return 0;
		return alg_rep(a, i, alg_mk_transpose(a, shape_of(a, i), op0(a, x), c));
	}
	if (chain_removed(a, i))
		return 1;
	if (is_op(a, x, HOP_DOT) && (transpose_of_dot(a, i, x, p, n) ||
	    alg_transpose_of_dot_nc(a, i, x, p, n)))
		return 1;
	if (only_degenerate(a, i, p, n))
		return alg_rep(a, i, alg_mk_reshape(a, shape_of(a, i), x));
	if (is_op(a, x, HOP_RNG) && alg_one_user(a, x)) {
		INS(a, x)->shape = shape_of(a, i);
		return alg_rep(a, i, x);
	}
	if (a->lay && pass_transpose_is_bitcast(a->m, shape_of(a, x),
	    shape_of(a, i), p, n))
		return alg_rep(a, i, alg_mk_un(a, HOP_BITCAST, shape_of(a, i), x));
	if (!a->lay && a->o->reshape_transpose_concat &&
	    transpose_s2d(a, i, x, p))
		return 1;
	/* transpose(broadcast(x)) => broadcast(x) keeping the order of x
	 * (not with layouts, where it may hide a transpose in the
	 * broadcast) */
	if (a->lay || !is_op(a, x, HOP_BROADCAST))
		return 0;
	bd = alg_ints_copy(a, x, A_DIMENSIONS, &nd);
	if (!hlo_ints_ascending(bd, nd))
		return 0;
	inv = alg_tmp(a, (n + 1) * 8u);
	nbd = alg_tmp(a, (nd + 1) * 8u);
	invert(p, n, inv);
	for (k = 0; k < nd; k++) {
		if (bd[k] < 0 || (uint64_t)bd[k] >= n)
			return 0;
		nbd[k] = inv[bd[k]];
	}
	if (!hlo_ints_ascending(nbd, nd))
		return 0;
	return alg_rep(a, i, alg_mk_bcast(a, shape_of(a, i), op0(a, x), nbd, nd));
}

/* bitcast, copy */

/* the memory order of a value of shape from read as shape to */
static int
is_bitcast(Alg *a, uint32_t from, uint32_t to)
{
	if (hlo_shape_eq_nolayout(a->m, from, to))
		return pass_copy_is_bitcast(a->m, from, to);
	return pass_reshape_is_bitcast(a->m, from, to);
}

/* BitcastingOperandOfReshapeOrCopyChain (layout-sensitive): the operand
 * down a chain of reshapes and copies from i whose memory holds i's value
 * in i's order, or HLO_NONE */
static uint32_t
bitcasting_operand(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i), steps = 0;

	while (!is_tuple(a, x) && steps++ < 4096) {
		if (is_bitcast(a, shape_of(a, x), shape_of(a, i)))
			return x;
		if (!is_op(a, x, HOP_RESHAPE) && !is_op(a, x, HOP_COPY))
			break;
		x = op0(a, x);
	}
	return HLO_NONE;
}

static int
untiled(Alg *a, uint32_t i)
{
	return a->m->shapes[shape_of(a, i)].tail == 0;
}

int
alg_h_bitcast(Alg *a, uint32_t i)
{
	uint32_t u = op0(a, i), ib, nu;

	if (alg_ctl(a, i))
		return 0;
	/* bitcast(unary(bitcast(x))) => bitcast(unary(x)) */
	if ((hlo_opinfo[opc(a, u)].flags & OPF_ELEM) && !is_op(a, u,
	    HOP_FUSION) && nops(a, u) == 1 && alg_nusers(a, u, 2) == 1 &&
	    is_op(a, ib = op0(a, u), HOP_BITCAST) && ety(a, i) == ety(a, u) &&
	    ety(a, u) == ety(a, ib) && ety(a, ib) == ety(a, op0(a, ib)) &&
	    untiled(a, ib) && untiled(a, op0(a, ib)) &&
	    pass_shape_equal(a->m, shape_of(a, u), shape_of(a, ib))) {
		/* u keeps ib's memory order, so unary(x) in x's order holds
		 * the same bytes */
		uint32_t y = op0(a, ib);

		nu = alg_mk_clone(a, u, shape_of(a, y), 1, &y);
		return alg_rep(a, i, alg_mk_un(a, HOP_BITCAST, shape_of(a, i), nu));
	}
	if (is_op(a, u, HOP_BITCAST)) {
		alg_h_bitcast(a, u);
		u = op0(a, i);
		if (is_op(a, u, HOP_BITCAST)) {
			nu = alg_mk_un(a, HOP_BITCAST, shape_of(a, i), op0(a, u));
			alg_rep(a, i, nu);
			i = nu;
			u = op0(a, i);
		}
	}
	if (ety(a, i) != ety(a, u))
		return a->changed;
	return alg_rep_compat(a, i, u);
}

int
alg_h_copy(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i);
	HloComp *e;

	if (a->lay && alg_swap_copy_bitcast_copy(a, i))
		return 1;
	if (is_op(a, x, HOP_COPY)) {
		uint32_t y = op0(a, x);

		if (shape_of(a, y) == shape_of(a, i))
			return alg_rep(a, i, y);
		return alg_rep(a, i, alg_mk_un(a, HOP_COPY, shape_of(a, i), y));
	}
	e = &a->m->comps[a->m->entry];
	if (hlo_attr(a->m, INS(a, i), A_SHARDING) && a->c == a->m->entry &&
	    e->root == i)
		return 0;
	if (alg_rep_compat(a, i, x))
		return 1;
	if (!a->lay)
		return 0;
	if ((x = bitcasting_operand(a, i)) != HLO_NONE)
		return alg_rep(a, i, alg_mk_un(a, HOP_BITCAST, shape_of(a, i), x));
	/* copy(reshape(y)) => reshape(y) when the copy keeps memory order */
	x = op0(a, i);
	if (is_op(a, x, HOP_RESHAPE) && alg_one_user(a, x) &&
	    pass_copy_is_bitcast(a->m, shape_of(a, x), shape_of(a, i)))
		return alg_rep(a, i, alg_mk_reshape(a, shape_of(a, i), op0(a, x)));
	return 0;
}

/* slice */

typedef struct {
	int64_t *st, *li, *sd;
} Sl;

static int
get_slice(Alg *a, uint32_t i, Sl *s)
{
	uint32_t n, k;
	const int64_t *p = alg_ints_attr(a, i, A_SLICE, &n);
	int r = rank(a, i);

	if (!p || n != 3u * r)
		return 0;
	s->st = alg_tmp(a, ((size_t)r + 1) * 8);
	s->li = alg_tmp(a, ((size_t)r + 1) * 8);
	s->sd = alg_tmp(a, ((size_t)r + 1) * 8);
	for (k = 0; k < (uint32_t)r; k++) {
		s->st[k] = p[3 * k];
		s->li[k] = p[3 * k + 1];
		s->sd[k] = p[3 * k + 2];
	}
	return 1;
}

static int
unstrided(Sl *s, int r)
{
	int k;

	for (k = 0; k < r; k++)
		if (s->sd[k] != 1)
			return 0;
	return 1;
}

static int
slice_of_pad(Alg *a, uint32_t i, Sl *s)
{
	uint32_t p = op0(a, i), po, n;
	int r = rank(a, i), k, undoes = 1, inside = 1;
	int64_t *cfg, lo, hi, in, edge, *ns, *nl;

	cfg = alg_ints_copy(a, p, A_PADDING, &n);
	if (n != 3u * r)
		return 0;
	po = op0(a, p);
	ns = alg_tmp(a, ((size_t)r + 1) * 8);
	nl = alg_tmp(a, ((size_t)r + 1) * 8);
	for (k = 0; k < r; k++) {
		lo = cfg[3 * k], hi = cfg[3 * k + 1], in = cfg[3 * k + 2];
		edge = dim(a, p, k) - hi;
		if (s->li[k] <= lo || s->st[k] >= edge)
			return alg_rep(a, i, alg_mk_bcast(a, shape_of(a, i),
				opnd(a, p, 1), NULL, 0));
		if (s->st[k] != lo || s->sd[k] - 1 != in)
			undoes = 0;
		if (s->st[k] < lo || s->li[k] > edge || in != 0 || s->sd[k] != 1)
			inside = 0;
		ns[k] = s->st[k] - lo;
		nl[k] = s->li[k] - lo;
	}
	if (undoes && alg_rep_compat(a, i, po))
		return 1;
	if (inside)
		return alg_rep(a, i, alg_mk_slice(a, shape_of(a, i), po, ns, nl,
			s->sd));
	return 0;
}

/* a scalar slice of an R1 concatenate: the operand holding it */
static int
scalar_slice_concat(Alg *a, uint32_t i, Sl *s)
{
	uint32_t c = op0(a, i), k, o;
	int64_t start = 0, next, one;

	if (!alg_is_eff_scalar(a, i) || !is_op(a, c, HOP_CONCAT) || rank(a, i) != 1)
		return 0;
	for (k = 0; k < nops(a, c); k++) {
		o = opnd(a, c, k);
		next = start + dim(a, o, 0);
		if (next > s->st[0])
			break;
		start = next;
	}
	if (k == nops(a, c))
		return 0;
	o = opnd(a, c, k);
	if (alg_rep_compat(a, i, o))
		return 1;
	{
		int64_t st = s->st[0] - start, li = st + 1;

		one = s->sd[0];
		return alg_rep(a, i, alg_mk_slice(a, shape_of(a, i), o, &st, &li, &one));
	}
}

static int
slice_of_concat(Alg *a, uint32_t i, Sl *s)
{
	uint32_t c = op0(a, i), n, k, so = HLO_NONE, lo = HLO_NONE, o;
	int64_t cd, ps = 0, sz, cs = 0, *st, *li;
	uint32_t nd;
	const int64_t *dd = alg_ints_attr(a, c, A_DIMENSIONS, &nd);
	int r = rank(a, i);

	if (!dd || nd != 1)
		return 0;
	cd = dd[0];
	if (cd < 0 || cd >= r)
		return 0;
	n = nops(a, c);
	for (k = 0; k < n; k++) {
		sz = dim(a, opnd(a, c, k), cd);
		if (so == HLO_NONE && ps <= s->st[cd] && sz + ps > s->st[cd]) {
			so = k;
			cs = ps;
		}
		ps += sz;
		if (lo == HLO_NONE && ps >= s->li[cd]) {
			lo = k + 1;
			break;
		}
	}
	if (so == HLO_NONE || lo == HLO_NONE)
		return 0;
	if (so + 1 == lo && alg_same_shape(a, opnd(a, c, so), i))
		return alg_rep(a, i, opnd(a, c, so));
	if (lo - so >= n)
		return 0;
	st = alg_tmp(a, ((size_t)r + 1) * 8);
	li = alg_tmp(a, ((size_t)r + 1) * 8);
	memcpy(st, s->st, (size_t)r * 8);
	memcpy(li, s->li, (size_t)r * 8);
	st[cd] -= cs;
	li[cd] = st[cd] + dim(a, i, cd);
	o = opnd(a, c, so);
	if (so + 1 != lo) {
		uint32_t *ops = alg_tmp(a, (lo - so + 1) * 4u);

		for (k = so; k < lo; k++)
			ops[k - so] = opnd(a, c, k);
		o = alg_mk_concat_infer(a, lo - so, ops, cd);
	}
	return alg_rep(a, i, alg_mk_slice(a, shape_of(a, i), o, st, li, s->sd));
}

static int
slice_of_bcast(Alg *a, uint32_t i, Sl *s)
{
	uint32_t b = op0(a, i), x = op0(a, b), nd, k;
	int64_t *bd = alg_ints_copy(a, b, A_DIMENSIONS, &nd), *st, *li, *sd;
	int only = 1;

	for (k = 0; k < nd; k++)
		if (s->st[bd[k]] != 0 || s->sd[bd[k]] != 1 ||
		    s->li[bd[k]] != dim(a, b, bd[k]))
			only = 0;
	if (only)
		return alg_rep(a, i, alg_mk_bcast(a, shape_of(a, i), x, bd, nd));
	st = alg_tmp(a, (nd + 1) * 8u);
	li = alg_tmp(a, (nd + 1) * 8u);
	sd = alg_tmp(a, (nd + 1) * 8u);
	for (k = 0; k < nd; k++) {
		st[k] = s->st[bd[k]];
		li[k] = s->li[bd[k]];
		sd[k] = s->sd[bd[k]];
	}
	x = alg_mk_slice_infer(a, x, st, li, sd);
	return alg_rep(a, i, alg_mk_bcast(a, shape_of(a, i), x, bd, nd));
}

/* slice(reduce-window(x)) => reshape(reduce(x)) */
static int
slice_of_window(Alg *a, uint32_t i, Sl *s)
{
	uint32_t w = op0(a, i), n, cnt = 0, comp;
	const int64_t *win;
	int64_t *rd, *rs;
	int r = rank(a, w), k, pad = 0;

	if (!is_op(a, w, HOP_REDUCEWINDOW) || nops(a, w) != 2 ||
	    !alg_one_use(a, w) || !unstrided(s, r) || INS(a, w)->ncalled != 1)
		return 0;
	win = alg_ints_attr(a, w, A_WINDOW, &n);
	if (!win || n != 7u * r)
		return 0;
	for (k = 0; k < r; k++) {
		const int64_t *wd = win + 7 * k;

		if (wd[1] != 1 || wd[4] != 1 || wd[5] != 1)
			return 0;
		if (wd[2] || wd[3])
			pad = 1;
	}
	if (!pad)
		return 0;
	rd = alg_tmp(a, ((size_t)r + 1) * 8);
	rs = alg_tmp(a, ((size_t)r + 1) * 8);
	for (k = 0; k < r; k++) {
		const int64_t *wd = win + 7 * k;
		int64_t rwd = dim(a, w, k), sdim = dim(a, i, k);

		if (rwd != s->li[k] || wd[2] != s->st[k] || wd[3] != 0)
			return 0;
		if (wd[0] == 1 && rwd == sdim && s->st[k] == 0)
			continue;
		if (sdim == 1 && rwd == wd[0] && s->li[k] - s->st[k] == 1)
			rd[cnt++] = k;
		else
			return 0;
	}
	if (!cnt)
		return 0;
	{
		uint32_t m = 0, j, red;

		for (k = 0; k < r; k++) {
			for (j = 0; j < cnt; j++)
				if (rd[j] == k)
					break;
			if (j == cnt)
				rs[m++] = dim(a, w, k);
		}
		comp = a->m->ids[INS(a, w)->called];
		red = alg_mk_reduce(a, alg_shp(a, ety(a, w), m, rs, shape_of(a, w)),
			op0(a, w), opnd(a, w, 1), rd, cnt, comp);
		return alg_rep(a, i, alg_mk_reshape(a, shape_of(a, i), red));
	}
}

/* slice(reshape(x)) => reshape(slice(x)) when only dimension 0 is sliced
 * and the slice is contiguous in x */
static int
slice_of_reshape(Alg *a, uint32_t i, Sl *s)
{
	uint32_t rs = op0(a, i), x;
	int r = rank(a, i), rx, k, nsl = 0, first = -1;
	int64_t sub = 1, off, cnt, osub = 1, *st, *li, *nd, d, in;

	if (!is_op(a, rs, HOP_RESHAPE))	/* before reading its operand */
		return 0;
	x = op0(a, rs);
	rx = rank(a, x);
	if (!unstrided(s, r) || is_tuple(a, x))
		return 0;
	for (k = 0; k < r; k++)
		if (s->st[k] != 0 || s->li[k] != dim(a, rs, k)) {
			nsl++;
			if (first < 0)
				first = k;
		}
	if (nsl != 1 || first != 0)
		return 0;
	for (k = 0; k < rx; k++)
		if (dim(a, x, k) == 0)
			return 0;
	for (k = 1; k < r; k++)
		sub *= dim(a, rs, k);
	off = s->st[0] * sub;
	cnt = alg_elems(a, i);
	for (k = 1; k < rx; k++)
		osub *= dim(a, x, k);
	if (osub == 0 || off % osub || cnt % osub)
		return 0;
	st = alg_tmp(a, ((size_t)rx + 1) * 8);
	li = alg_tmp(a, ((size_t)rx + 1) * 8);
	nd = alg_tmp(a, ((size_t)rx + 1) * 8);
	for (k = 0; k < rx; k++) {
		st[k] = 0;
		li[k] = dim(a, x, k);
	}
	for (k = rx - 1; k >= 0; k--) {
		d = dim(a, x, k);
		if (cnt >= d) {
			if (cnt % d || off % d)
				return 0;
			cnt /= d;
			off /= d;
		} else {
			in = off % d;
			if (in + cnt > d)
				return 0;
			st[k] = in;
			li[k] = in + cnt;
			off /= d;
			cnt = 1;
		}
	}
	if (off != 0 || cnt != 1)
		return 0;
	for (k = 0; k < rx; k++)
		nd[k] = li[k] - st[k];
	x = alg_mk_slice(a, alg_shp(a, ety(a, x), rx, nd, shape_of(a, x)), x, st, li,
		NULL);
	return alg_rep(a, i, alg_mk_reshape(a, shape_of(a, i), x));
}

static int
slice_of_reverse(Alg *a, uint32_t i, Sl *s)
{
	uint32_t rv = op0(a, i), nd, k;
	int64_t *rd = alg_ints_copy(a, rv, A_DIMENSIONS, &nd), *st, *li;
	int r = rank(a, i), q;
	int64_t lo, lim, sd, nth, dd;

	if (alg_is_zero_elems(a, i))
		return 0;
	st = alg_tmp(a, ((size_t)r + 1) * 8);
	li = alg_tmp(a, ((size_t)r + 1) * 8);
	memcpy(st, s->st, (size_t)r * 8);
	memcpy(li, s->li, (size_t)r * 8);
	for (k = 0; k < nd; k++) {
		q = rd[k];
		if (q < 0 || q >= r)
			return 0;
		lo = s->st[q], lim = s->li[q], sd = s->sd[q];
		nth = lo + (lim - lo - 1) / sd * sd;
		lim = nth + 1;
		dd = dim(a, rv, q);
		st[q] = (dd - lo) - (lim - lo);
		li[q] = dd - lo;
	}
	k = alg_mk_slice(a, shape_of(a, i), op0(a, rv), st, li, s->sd);
	return alg_rep(a, i, alg_mk_reverse(a, k, rd, nd));
}

int
alg_h_slice(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i);
	int r = rank(a, i), k, any = 0;
	Sl s, t;

	if (alg_rep_compat(a, i, x))
		return 1;
	if (is_tuple(a, x) || !get_slice(a, i, &s))
		return 0;
	if (is_op(a, x, HOP_PAD) && slice_of_pad(a, i, &s))
		return 1;
	if (is_op(a, x, HOP_SLICE) && unstrided(&s, r) &&
	    get_slice(a, x, &t) && unstrided(&t, r)) {
		for (k = 0; k < r; k++) {
			s.st[k] += t.st[k];
			s.li[k] += t.st[k];
		}
		return alg_rep(a, i, alg_mk_slice(a, shape_of(a, i), op0(a, x), s.st,
			s.li, s.sd));
	}
	if (is_op(a, x, HOP_BROADCAST) && slice_of_bcast(a, i, &s))
		return 1;
	if (alg_slice_through_dot(a, i))
		return 1;
	if (scalar_slice_concat(a, i, &s))
		return 1;
	if (is_op(a, x, HOP_CONCAT) && unstrided(&s, r) &&
	    slice_of_concat(a, i, &s))
		return 1;
	if (a->o->window_to_reduce && slice_of_window(a, i, &s))
		return 1;
	if (!a->lay && slice_of_reshape(a, i, &s))
		return 1;
	if (is_op(a, x, HOP_REVERSE) && slice_of_reverse(a, i, &s))
		return 1;
	/* RemoveRedundantStride */
	for (k = 0; k < r; k++) {
		if (s.sd[k] == 1 || s.li[k] <= s.st[k])
			continue;
		if (s.sd[k] >= s.li[k] || s.st[k] + s.sd[k] >= s.li[k]) {
			s.li[k] = s.st[k] + 1;
			s.sd[k] = 1;
			any = 1;
		}
	}
	if (!any)
		return 0;
	return alg_rep(a, i, alg_mk_slice(a, shape_of(a, i), x, s.st, s.li, s.sd));
}

/* pad */

static int
pad_of_bcast(Alg *a, uint32_t i, const int64_t *cfg, int r)
{
	uint32_t b = op0(a, i), nbd, k, np = 0, *pd, m, p2;
	int64_t *bd = alg_ints_copy(a, b, A_DIMENSIONS, &nbd), *nbdv, *ps, *bs, *c2;
	int q;

	pd = alg_tmp(a, ((size_t)r + 1) * 4);
	for (q = 0; q < r; q++)
		if (cfg[3 * q] || cfg[3 * q + 1] || cfg[3 * q + 2])
			pd[np++] = q;
	if (np >= (uint32_t)r || !is_op(a, b, HOP_BROADCAST) ||
	    alg_nusers(a, b, 2) != 1 || (uint32_t)rank(a, op0(a, b)) > np)
		return 0;
	nbdv = alg_tmp(a, (nbd + 1) * 8u);
	for (k = 0; k < nbd; k++) {
		for (m = 0; m < np; m++)
			if (bd[k] == pd[m])
				break;
		if (m == np)
			return 0;
		nbdv[k] = m;
	}
	ps = alg_tmp(a, ((size_t)np + 1) * 8);
	bs = alg_tmp(a, ((size_t)np + 1) * 8);
	c2 = alg_tmp(a, ((size_t)np + 1) * 24);
	for (m = 0; m < np; m++) {
		ps[m] = dim(a, i, pd[m]);
		bs[m] = dim(a, b, pd[m]);
		memcpy(c2 + 3 * m, cfg + 3 * pd[m], 24);
	}
	/* the broadcast shrinks to the padded dimensions, in place */
	INS(a, b)->shape = alg_shp(a, ety(a, b), np, bs, shape_of(a, b));
	alg_set_ints(a, b, A_DIMENSIONS, nbdv, nbd);
	hlo_attr_del(a->m, a->c, b, A_SHARDING);
	p2 = alg_mk_clone(a, i, alg_shp(a, ety(a, i), np, ps, shape_of(a, i)), 2,
		(uint32_t[]){b, opnd(a, i, 1)});
	alg_set_ints(a, p2, A_PADDING, c2, 3 * np);
	{
		int64_t *pdv = alg_tmp(a, ((size_t)np + 1) * 8);

		for (m = 0; m < np; m++)
			pdv[m] = pd[m];
		return alg_rep(a, i, alg_mk_bcast(a, shape_of(a, i), p2, pdv, np));
	}
}

int
alg_h_pad(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i), v = opnd(a, i, 1), n, np;
	int r = rank(a, i), q, cleared = 0, allzero = 1, neg = 0;
	int64_t *cfg, *c2, *st, *li, *nd;

	if (alg_is_zero_elems(a, x))
		return alg_rep(a, i, alg_mk_bcast(a, shape_of(a, i), v, NULL, 0));
	cfg = alg_ints_copy(a, i, A_PADDING, &n);
	if (n != 3u * r || rank(a, x) != r)
		return 0;
	for (q = 0; q < r; q++)
		if (cfg[3 * q + 2] > 0 && dim(a, x, q) == 1) {
			cfg[3 * q + 2] = 0;
			cleared = 1;
		}
	if (cleared) {
		np = alg_mk_pad(a, shape_of(a, i), x, v, cfg);
		return alg_rep(a, i, np);
	}
	for (q = 0; q < r; q++) {
		if (cfg[3 * q] < 0 || cfg[3 * q + 1] < 0)
			neg = 1;
		if (cfg[3 * q] || cfg[3 * q + 1])
			allzero = 0;
	}
	if (allzero && alg_rep_compat(a, i, x))
		return 1;
	if (pad_of_bcast(a, i, cfg, r))
		return 1;
	if (!neg || !a->o->neg_pad)
		return 0;
	c2 = alg_tmp(a, ((size_t)r + 1) * 24);
	memcpy(c2, cfg, (size_t)r * 24);
	for (q = 0; q < r; q++) {
		int64_t d = dim(a, x, q), w;

		if (c2[3 * q] < 0)
			c2[3 * q] = 0;
		if (c2[3 * q + 1] < 0)
			c2[3 * q + 1] = 0;
		w = c2[3 * q] + c2[3 * q + 1] + d + (d > 0 ? (d - 1) *
			c2[3 * q + 2] : 0);
		if (w + (cfg[3 * q] < 0 ? cfg[3 * q] : 0) +
		    (cfg[3 * q + 1] < 0 ? cfg[3 * q + 1] : 0) != dim(a, i, q))
			return 0;
	}
	np = alg_mk_pad_infer(a, x, v, c2);
	INS(a, np)->shape = alg_shp_type(a, shape_of(a, np), ety(a, i));
	st = alg_tmp(a, ((size_t)r + 1) * 8);
	li = alg_tmp(a, ((size_t)r + 1) * 8);
	nd = alg_tmp(a, ((size_t)r + 1) * 8);
	for (q = 0; q < r; q++) {
		st[q] = cfg[3 * q] < 0 ? -cfg[3 * q] : 0;
		li[q] = dim(a, np, q) + (cfg[3 * q + 1] < 0 ? cfg[3 * q + 1] :
			0);
		nd[q] = li[q] - st[q];
		if (nd[q] != dim(a, i, q))
			return 0;
	}
	return alg_rep(a, i, alg_mk_slice(a, shape_of(a, i), np, st, li, NULL));
}

/* concatenate */

static int
concat_slices(Alg *a, uint32_t i, int64_t cd)
{
	uint32_t n = nops(a, i), k = 0, j, o, *nw, cnt = 0, so;
	int r = rank(a, i), q;
	Sl s, t;
	int64_t end, *li, *nd;

	nw = alg_tmp(a, (n + 1) * 4u);
	while (k < n) {
		o = opnd(a, i, k);
		if (!is_op(a, o, HOP_SLICE) || !get_slice(a, o, &s) ||
		    !unstrided(&s, r)) {
			nw[cnt++] = o;
			k++;
			continue;
		}
		end = s.li[cd];
		so = op0(a, o);
		for (j = k + 1; j < n; j++) {
			uint32_t p = opnd(a, i, j);

			if (!is_op(a, p, HOP_SLICE) || !get_slice(a, p, &t) ||
			    !unstrided(&t, r) || op0(a, p) != so ||
			    t.st[cd] != end)
				break;
			for (q = 0; q < r; q++)
				if (q != cd && t.st[q] != s.st[q])
					break;
			if (q < r)
				break;
			end = t.li[cd];
		}
		if (j - k > 1) {
			li = alg_tmp(a, ((size_t)r + 1) * 8);
			nd = dims_copy(a, o);
			memcpy(li, s.li, (size_t)r * 8);
			li[cd] = end;
			nd[cd] = end - s.st[cd];
			nw[cnt++] = alg_mk_slice(a, alg_shp(a, ety(a, o), r, nd,
				shape_of(a, o)), so, s.st, li, s.sd);
		} else {
			nw[cnt++] = o;
		}
		k = j;
	}
	if (cnt >= n)
		return 0;
	return alg_rep_compat(a, i, alg_mk_clone(a, i, shape_of(a, i), cnt, nw));
}

int
alg_h_concat(Alg *a, uint32_t i)
{
	uint32_t n = nops(a, i), k, j, cnt = 0, *ne, o, nd;
	const int64_t *dd = alg_ints_attr(a, i, A_DIMENSIONS, &nd);
	int64_t cd, *cfg;
	int r = rank(a, i), q, low, high;

	if (n == 1)
		return alg_rep_compat(a, i, op0(a, i));
	if (!dd || nd != 1 || n == 0)
		return 0;
	cd = dd[0];
	if (cd < 0 || cd >= r)
		return 0;
	ne = alg_tmp(a, (n + 1) * 4u);
	for (k = 0; k < n; k++)
		if (!alg_is_zero_elems(a, o = opnd(a, i, k)))
			ne[cnt++] = o;
	if (cnt < n) {
		o = cnt == 0 ? op0(a, i) : cnt == 1 ? ne[0] :
			alg_mk_clone(a, i, shape_of(a, i), cnt, ne);
		return alg_rep_compat(a, i, o);
	}
	if (a->lay)
		return 0;
	/* concat(x, concat(y, z)) => concat(x, y, z) */
	cnt = 0;
	for (k = 0; k < n; k++) {
		o = opnd(a, i, k);
		if (is_op(a, o, HOP_CONCAT)) {
			uint32_t m;
			const int64_t *od = alg_ints_attr(a, o, A_DIMENSIONS, &m);

			if (od && m == 1 && od[0] == cd) {
				cnt += nops(a, o);
				continue;
			}
		}
		cnt++;
	}
	if (cnt != n) {
		uint32_t *un = alg_tmp(a, (cnt + 1) * 4u), m = 0, z;

		for (k = 0; k < n; k++) {
			const int64_t *od;

			o = opnd(a, i, k);
			if (is_op(a, o, HOP_CONCAT) && (od = alg_ints_attr(a, o,
			    A_DIMENSIONS, &z)) && z == 1 && od[0] == cd) {
				for (j = 0; j < nops(a, o); j++)
					un[m++] = opnd(a, o, j);
			} else {
				un[m++] = o;
			}
		}
		return alg_rep(a, i, alg_mk_concat(a, shape_of(a, i), m, un, cd));
	}
	if (concat_slices(a, i, cd))
		return 1;
	if (n == 2) {
		uint32_t l = op0(a, i), rr = opnd(a, i, 1);

		low = is_op(a, l, HOP_BROADCAST) && alg_is_scalar(a, op0(a, l));
		high = is_op(a, rr, HOP_BROADCAST) && alg_is_scalar(a, op0(a, rr));
		if (!low && !high)
			return 0;
		cfg = alg_tmp(a, ((size_t)r + 1) * 24);
		memset(cfg, 0, (size_t)r * 24);
		if (low)
			cfg[3 * cd] = dim(a, l, cd);
		else
			cfg[3 * cd + 1] = dim(a, rr, cd);
		return alg_rep(a, i, alg_mk_pad(a, shape_of(a, i), low ? rr : l,
			op0(a, low ? l : rr), cfg));
	}
	o = op0(a, i);
	for (k = 1; k < n; k++)
		if (opnd(a, i, k) != o)
			return 0;
	if (dim(a, o, cd) != 1)
		return 0;
	{
		int64_t *sd = alg_tmp(a, ((size_t)r + 1) * 8);
		int64_t *bd = alg_tmp(a, ((size_t)r + 1) * 8);
		uint32_t m = 0, rs;

		for (q = 0; q < r; q++)
			if (q != cd) {
				sd[m] = dim(a, o, q);
				bd[m++] = q;
			}
		rs = alg_mk_reshape(a, alg_shp(a, ety(a, o), m, sd, shape_of(a, o)), o);
		return alg_rep(a, i, alg_mk_bcast(a, shape_of(a, i), rs, bd, m));
	}
}

/* reverse */

int
alg_h_reverse(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i), nd, ni, k, j, m = 0, s, o;
	int64_t *rd = alg_ints_copy(a, i, A_DIMENSIONS, &nd), *id, *sd;
	int r = rank(a, i), bin;

	for (k = 0; k < nd; k++)
		if (rd[k] < 0 || rd[k] >= r || dim(a, i, rd[k]) != 1)
			break;
	if (k == nd)
		return alg_rep(a, i, x);
	if (a->lay)
		return 0;
	if (is_op(a, x, HOP_REVERSE)) {
		id = alg_ints_copy(a, x, A_DIMENSIONS, &ni);
		hlo_ints_sort(rd, nd);
		hlo_ints_sort(id, ni);
		alg_set_ints(a, i, A_DIMENSIONS, rd, nd);
		alg_set_ints(a, x, A_DIMENSIONS, id, ni);
		sd = alg_tmp(a, (nd + ni + 1) * 8u);
		for (k = 0, j = 0; k < nd || j < ni;) {
			if (j == ni || (k < nd && rd[k] < id[j]))
				sd[m++] = rd[k++];
			else if (k == nd || id[j] < rd[k])
				sd[m++] = id[j++];
			else
				k++, j++;
		}
		if (m == 0)
			return alg_rep(a, i, op0(a, x));
		return alg_rep(a, i, alg_mk_reverse(a, op0(a, x), sd, m));
	}
	bin = (hlo_opinfo[opc(a, x)].flags & OPF_ELEM) && nops(a, x) == 2 &&
		!is_op(a, x, HOP_COMPARE) && !is_op(a, x, HOP_MAP) &&
		!is_op(a, x, HOP_RNG);
	if (bin) {
		uint32_t p = op0(a, x), q = opnd(a, x, 1);

		for (k = 0; k < 2; k++) {
			s = k ? q : p;
			o = k ? p : q;
			if (is_op(a, s, HOP_BROADCAST) && alg_is_scalar(a, op0(a, s))
			    && (alg_ints_attr(a, s, A_DIMENSIONS, &ni), ni == 0))
				break;
		}
		if (k == 2)
			return 0;
		o = alg_mk_reverse(a, o, rd, nd);
		return alg_rep(a, i, alg_mk_bin(a, opc(a, x), shape_of(a, x),
			k ? o : s, k ? s : o));
	}
	if (is_op(a, x, HOP_RESHAPE)) {
		uint32_t y = op0(a, x), ndel, nins;
		int64_t *del, *ins, *nrd;

		if (is_tuple(a, y))
			return 0;
		del = alg_tmp(a, ((size_t)r + rank(a, y) + 1) * 8);
		ins = alg_tmp(a, ((size_t)r + rank(a, y) + 1) * 8);
		if (!alg_reshape_degenerate(a, y, x, del, &ndel, ins, &nins) ||
		    ndel != 0)
			return 0;
		nrd = alg_tmp(a, (nd + 1) * 8u);
		for (k = 0; k < nd; k++) {
			int64_t below = 0;

			if (dim(a, x, rd[k]) == 1)
				continue;
			for (j = 0; j < nins; j++)
				below += ins[j] < rd[k];
			nrd[m++] = rd[k] - below;
		}
		o = alg_mk_reverse(a, y, nrd, m);
		return alg_rep(a, i, alg_mk_reshape(a, shape_of(a, x), o));
	}
	return 0;
}

/* dynamic-slice */

static int
ds_same_size(Alg *a, uint32_t i, uint32_t x, int upd)
{
	uint32_t n = nops(a, i), k, *ops, z = HLO_NONE, base = upd ? 2 : 1;
	uint32_t ref = upd ? opnd(a, i, 1) : i;
	int any = 0, r = rank(a, x), q;

	ops = alg_tmp(a, (n + 1) * 4u);
	for (k = 0; k < n; k++)
		ops[k] = opnd(a, i, k);
	if (n != base + (uint32_t)r)
		return 0;
	for (q = 0; q < rank(a, ref); q++) {
		uint32_t ix = opnd(a, i, base + q);

		if (alg_is_const(a, ix) && alg_is_all(a, ix, 0))
			continue;
		if (dim(a, x, q) != dim(a, ref, q))
			continue;
		if (z == HLO_NONE)
			z = alg_scalar_like_i(a, opnd(a, i, base), 0);
		ops[base + q] = z;
		any = 1;
	}
	if (!any)
		return 0;
	return alg_rep(a, i, alg_mk_clone(a, i, shape_of(a, i), n, ops));
}

static int
ds_of_iota(Alg *a, uint32_t i, uint32_t x)
{
	uint32_t mult = HLO_NONE, ix, lo, hi, cl, res;
	int et = ety(a, i), it;
	int64_t sz;

	if (rank(a, x) != 1 || rank(a, i) != 1 || dim(a, i, 0) != 1 ||
	    (et != TY_S32 && et != TY_U32))
		return 0;
	if (is_op(a, x, HOP_MUL)) {
		uint32_t b = opnd(a, x, 1), nd;

		if (is_op(a, b, HOP_BROADCAST) && (alg_ints_attr(a, b, A_DIMENSIONS,
		    &nd), nd == 0) && alg_is_scalar(a, op0(a, b))) {
			mult = op0(a, b);
			x = op0(a, x);
		}
	}
	if (!is_op(a, x, HOP_IOTA))
		return 0;
	ix = opnd(a, i, 1);
	it = ety(a, ix);
	if (it != TY_S32 && it != TY_U32)
		return 0;
	sz = dim(a, x, 0);
	lo = alg_scalar_like_i(a, ix, 0);
	hi = alg_scalar_like_i(a, ix, sz - 1);
	cl = alg_mk_tern(a, HOP_CLAMP, shape_of(a, ix), lo, ix, hi);
	res = cl;
	if (it != et)
		res = alg_mk_convert(a, alg_shp_type(a, shape_of(a, cl), et), cl);
	if (mult != HLO_NONE)
		res = alg_mk_bin(a, HOP_MUL, shape_of(a, res), res, mult);
	return alg_rep(a, i, alg_mk_reshape(a, shape_of(a, i), res));
}

/* dynamic-slice of a broadcast: the broadcast of a smaller slice */
static int
ds_of_bcast(Alg *a, uint32_t i, uint32_t x, const uint32_t *idx,
	const int64_t *sz)
{
	uint32_t nd, y = op0(a, x), d, k, *ni;
	int64_t *bd = alg_ints_copy(a, x, A_DIMENSIONS, &nd), *s2, *dd;

	ni = alg_tmp(a, (nd + 1) * 4u);
	s2 = alg_tmp(a, (nd + 1) * 8u);
	for (k = 0; k < nd; k++) {
		ni[k] = idx[bd[k]];
		s2[k] = sz[bd[k]];
	}
	d = y;
	if (nd) {
		dd = alg_tmp(a, (nd + 1) * 8u);
		memcpy(dd, s2, nd * 8u);
		d = alg_mk_dynslice(a, alg_shp(a, ety(a, y), nd, dd,
			shape_of(a, y)), y, nd, ni, s2);
	}
	return alg_rep(a, i, alg_mk_bcast(a, shape_of(a, i), d, bd, nd));
}

/* dynamic-slice of a reshape that only adds or drops 1-sized dimensions:
 * the reshape of a slice of its operand; -1 if it does more */
static int
ds_of_reshape(Alg *a, uint32_t i, uint32_t x, const uint32_t *idx,
	const int64_t *sz)
{
	uint32_t y = op0(a, x), nd, nn, m, z, k, *ni;
	int r = rank(a, x), ry = rank(a, y), q;
	int64_t *del = alg_tmp(a, ((size_t)r + ry + 1) * 8);
	int64_t *ins = alg_tmp(a, ((size_t)r + ry + 1) * 8);
	int64_t *u = alg_tmp(a, ((size_t)r + ry + 4) * 16), *s2;

	if (is_tuple(a, y) || !alg_reshape_degenerate(a, y, x, del, &nd,
	    ins, &nn))
		return -1;
	m = alg_unmodified_dims(dims(a, y), ry, dims(a, x), r, u);
	z = alg_scalar_like_i(a, idx[0], 0);
	ni = alg_tmp(a, ((size_t)ry + 1) * 4);
	s2 = alg_tmp(a, ((size_t)ry + 1) * 8);
	for (q = 0; q < ry; q++) {
		ni[q] = z;
		s2[q] = 1;
	}
	for (k = 0; k < m; k++) {
		if (dim(a, y, u[2 * k]) == 1)
			continue;
		ni[u[2 * k]] = idx[u[2 * k + 1]];
		s2[u[2 * k]] = sz[u[2 * k + 1]];
	}
	k = alg_mk_dynslice(a, alg_shp(a, ety(a, i), ry, s2, HLO_NONE), y,
		ry, ni, s2);
	return alg_rep(a, i, alg_mk_reshape(a, shape_of(a, i), k));
}

/* dynamic-slice of a transpose: the transpose of a slice */
static int
ds_of_transpose(Alg *a, uint32_t i, uint32_t x, const uint32_t *idx,
	const int64_t *sz)
{
	uint32_t np, k, *ni;
	int r = rank(a, x), q;
	int64_t *p = alg_ints_copy(a, x, A_DIMENSIONS, &np), *inv, *s2, *sd;

	if (np != (uint32_t)r)
		return 0;
	inv = alg_tmp(a, ((size_t)r + 1) * 8);
	s2 = alg_tmp(a, ((size_t)r + 1) * 8);
	sd = alg_tmp(a, ((size_t)r + 1) * 8);
	ni = alg_tmp(a, ((size_t)r + 1) * 4);
	invert(p, np, inv);
	for (q = 0; q < r; q++) {
		ni[q] = idx[inv[q]];
		s2[q] = sz[inv[q]];
		sd[q] = dim(a, i, inv[q]);
	}
	k = alg_mk_dynslice(a, alg_shp(a, ety(a, i), r, sd, shape_of(a, i)),
		op0(a, x), r, ni, s2);
	return alg_rep(a, i, alg_mk_transpose(a, shape_of(a, i), k, p));
}

/* constant offsets: a slice; -1 if an offset is not a constant */
static int
ds_constant(Alg *a, uint32_t i, uint32_t x, const uint32_t *idx,
	uint32_t nidx)
{
	uint32_t k;
	int r = rank(a, x), q;
	int64_t *st, *li, off, mx;

	for (k = 0; k < nidx; k++)
		if (!is_op(a, idx[k], HOP_CONSTANT) ||
		    !alg_t_int(ety(a, idx[k])))
			return -1;
	st = alg_tmp(a, ((size_t)r + 1) * 8);
	li = alg_tmp(a, ((size_t)r + 1) * 8);
	for (q = 0; q < r; q++) {
		if (!alg_const_int(a, idx[q], &off) || off < 0)
			return 0;
		mx = dim(a, x, q) - dim(a, i, q);
		st[q] = off < mx ? off : mx;
		li[q] = st[q] + dim(a, i, q);
	}
	return alg_rep(a, i, alg_mk_slice(a, shape_of(a, i), x, st, li, NULL));
}

/* the start index id + clamp(0, in, hi), in id's type */
static uint32_t
add_clamped(Alg *a, uint32_t id, uint32_t in, int64_t hi)
{
	uint32_t lo = alg_scalar_like_i(a, in, 0), c;

	c = alg_mk_tern(a, HOP_CLAMP, shape_of(a, in), lo, in,
		alg_scalar_like_i(a, in, hi));
	if (ety(a, c) != ety(a, id))
		c = alg_mk_convert(a, shape_of(a, id), c);
	return alg_mk_bin(a, HOP_ADD, shape_of(a, id), id, c);
}

/* ds(ds(x, id), inner) => ds(x, id + clamp(inner)) */
static int
ds_of_ds(Alg *a, uint32_t i, uint32_t x, const int64_t *sz)
{
	uint32_t y = op0(a, x), n = nops(a, i), k;

	alg_set_opnd(a, i, 0, y);
	for (k = 1; k < n; k++)
		alg_set_opnd(a, i, k, add_clamped(a, opnd(a, i, k),
			opnd(a, x, k), dim(a, y, k - 1) - sz[k - 1]));
	alg_mark_changed(a);
	return 1;
}

int
alg_h_dynslice(Alg *a, uint32_t i)
{
	uint32_t x = op0(a, i), n = nops(a, i), k, ns, nidx, *idx;
	int r = rank(a, x), v;
	int64_t *sz;

	if (is_tuple(a, x) || n != 1u + r)
		return 0;
	if (alg_is_scalar(a, i))
		return alg_rep(a, i, x);
	if (alg_same_shape(a, x, i))
		return alg_rep(a, i, x);
	if (ds_same_size(a, i, x, 0))
		return 1;
	sz = alg_ints_copy(a, i, A_DYN_SLICE_SIZES, &ns);
	if (ns != (uint32_t)r)
		return 0;
	nidx = n - 1;
	idx = alg_tmp(a, (nidx + 1) * 4u);
	for (k = 0; k < nidx; k++)
		idx[k] = opnd(a, i, 1 + k);
	if (is_op(a, x, HOP_BROADCAST))
		return ds_of_bcast(a, i, x, idx, sz);
	if (!a->lay && is_op(a, x, HOP_RESHAPE) &&
	    (v = ds_of_reshape(a, i, x, idx, sz)) >= 0)
		return v;
	if (!a->lay && is_op(a, x, HOP_TRANSPOSE))
		return ds_of_transpose(a, i, x, idx, sz);
	if (!is_op(a, x, HOP_CONSTANT) &&
	    (v = ds_constant(a, i, x, idx, nidx)) >= 0)
		return v;
	if (ds_of_iota(a, i, x))
		return 1;
	if (is_op(a, x, HOP_DYNSLICE) && nops(a, x) == n)
		return ds_of_ds(a, i, x, sz);
	return 0;
}

/* dynamic-update-slice */

static int
host_offload(Alg *a, uint32_t x)
{
	int steps = 0;

	for (;;) {
		if (pass_is_custom_call(a->m, INS(a, x), "MoveToHost"))
			return 1;
		if (!(is_op(a, x, HOP_RESHAPE) || is_op(a, x, HOP_BITCAST) ||
		    is_op(a, x, HOP_COPY)) || steps++ > 256)
			return 0;
		x = op0(a, x);
	}
}

static int
dus_to_pad(Alg *a, uint32_t i, uint32_t up, uint32_t u)
{
	uint32_t pv = op0(a, up), src = i, off = 2, ix;
	int r = rank(a, up), q;
	int64_t *cfg, st, bw, uw;

	if (!alg_is_scalar(a, pv))
		return 0;
	if (nops(a, i) < 3)
		return 0;
	ix = opnd(a, i, 2);
	if (!alg_is_scalar(a, ix)) {
		if (!is_op(a, ix, HOP_TUPLE) && !is_op(a, ix, HOP_CONCAT))
			return 0;
		src = ix;
		off = 0;
	}
	if (host_offload(a, u))
		return 0;
	cfg = alg_tmp(a, ((size_t)r + 1) * 24);
	for (q = 0; q < r; q++) {
		if (off + q >= nops(a, src))
			return 0;
		ix = opnd(a, src, off + q);
		if (!alg_is_const(a, ix) || !alg_is_scalar(a, ix) ||
		    !alg_const_int(a, ix, &st))
			return 0;
		uw = dim(a, u, q);
		bw = dim(a, up, q);
		if (st < 0)
			st = 0;
		if (st > bw - uw)
			st = bw - uw;
		cfg[3 * q] = st;
		cfg[3 * q + 1] = bw - (st + uw);
		cfg[3 * q + 2] = 0;
	}
	return alg_rep(a, i, alg_mk_pad(a, shape_of(a, up), u, pv, cfg));
}

int
alg_h_dus(Alg *a, uint32_t i)
{
	uint32_t up = op0(a, i), u, n = nops(a, i), k;

	if (n < 2 || is_tuple(a, up))
		return 0;
	u = opnd(a, i, 1);
	if (a->o->dus_to_pad && is_op(a, up, HOP_BROADCAST) &&
	    dus_to_pad(a, i, up, u))
		return 1;
	if (alg_same_shape(a, i, u))
		return alg_rep(a, i, u);
	if (ds_same_size(a, i, up, 1))
		return 1;
	if (alg_is_zero_elems(a, u))
		return alg_rep(a, i, up);
	/* dus(a, dus(ds(a, id), c, inner), id) => dus(a, c, id + inner) */
	if (is_op(a, u, HOP_DYNUPDSLICE) && nops(a, u) == n &&
	    is_op(a, op0(a, u), HOP_DYNSLICE)) {
		uint32_t d = op0(a, u);

		if (op0(a, d) != up || nops(a, d) != n - 1)
			return 0;
		for (k = 2; k < n; k++)
			if (opnd(a, i, k) != opnd(a, d, k - 1))
				return 0;
		alg_set_opnd(a, i, 1, opnd(a, u, 1));
		for (k = 2; k < n; k++)
			alg_set_opnd(a, i, k, add_clamped(a, opnd(a, i, k),
				opnd(a, u, k), dim(a, u, k - 2) -
				dim(a, opnd(a, u, 1), k - 2)));
		alg_mark_changed(a);
		return 1;
	}
	return 0;
}

int
alg_h_gte(Alg *a, uint32_t i)
{
	uint32_t t = op0(a, i);
	int64_t k = alg_int_attr(a, i, A_INDEX, -1);

	if (!is_op(a, t, HOP_TUPLE) || k < 0 || (uint64_t)k >= nops(a, t))
		return 0;
	return alg_rep_compat(a, i, opnd(a, t, k));
}
