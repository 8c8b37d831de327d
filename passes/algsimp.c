/* algsimp.c: xla's AlgebraicSimplifier ("algsimp"): the driver, which
 * runs the visitor over every non-fusion computation until it stops
 * changing (at most max_runs sweeps), the depth-first visit order of
 * xla's HloComputation::Accept, users, literals and the builders the
 * handlers (algsimp_*.c) share. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algsimp.h"

/* XLA:CPU's simplification pipeline (cpu_compiler.cc) */
static const AlgOpts cpu_opts = {
	.fast_math = 0,
	.minmax_nan = 1,
	.dot_strength = 0,
	.dot_to_mul = 1,
	.non_canonical = 0,
	.cpu = 0,
	.sink_bcast = 1,
	.bcast_degenerate = 1,
	.reduce_of_reshape = 1,
	.reduce_concat = 1,
	.window_to_reduce = 1,
	.neg_pad = 1,
	.conv_swap = 1,
	.assoc_threshold = 2.0,
	.raise_threshold = 2.0,
	.fold_conv_pad = 1,
	.dus_to_pad = 1,
	.reshape_transpose_concat = 1,
	.uncond_reduce_tr = 0,
	.small_gather = 4,
	.max_runs = 50,
	.limit = -1,
};

/* xla's default AlgebraicSimplifierOptions, which its unit tests use:
 * XLA:CPU's but for dot strength reduction and non-canonical dots (the
 * rest of hlopt's XLA:CPU set already has xla's default values) */
static const AlgOpts default_opts = {
	.fast_math = 0,
	.minmax_nan = 1,
	.dot_strength = 1,
	.dot_to_mul = 1,
	.non_canonical = 1,
	.cpu = 0,
	.sink_bcast = 1,
	.bcast_degenerate = 1,
	.reduce_of_reshape = 1,
	.reduce_concat = 1,
	.window_to_reduce = 1,
	.neg_pad = 1,
	.conv_swap = 1,
	.assoc_threshold = 2.0,
	.raise_threshold = 2.0,
	.fold_conv_pad = 1,
	.dus_to_pad = 1,
	.reshape_transpose_concat = 1,
	.uncond_reduce_tr = 0,
	.small_gather = 4,
	.max_runs = 50,
	.limit = -1,
};

const AlgOpts *
algsimp_cpu_opts(void)
{
	return &cpu_opts;
}

const AlgOpts *
algsimp_default_opts(void)
{
	return &default_opts;
}

/* accessors */

int64_t
alg_elems(Alg *a, uint32_t i)
{
	if (is_tuple(a, i))
		return -1;
	return hlo_shape_elems(a->m, INS(a, i)->shape);
}

static int
is_array_type(int t)
{
	return t != TY_TUPLE && t != TY_TOKEN && t != TY_OPAQUE &&
		t != TY_BUFFER && t != TY_INVALID;
}

int
alg_same_shape(Alg *a, uint32_t x, uint32_t y)
{
	return alg_same_shape_id(a, INS(a, x)->shape, INS(a, y)->shape);
}

int
alg_same_shape_id(Alg *a, uint32_t s, uint32_t t)
{
	return pass_shape_same(a->m, a->lay, s, t);
}

int
alg_is_scalar(Alg *a, uint32_t i)
{
	return is_array_type(ety(a, i)) && SH(a, i)->rank == 0;
}

int
alg_is_eff_scalar(Alg *a, uint32_t i)
{
	int d;

	if (!is_array_type(ety(a, i)))
		return 0;
	for (d = 0; d < SH(a, i)->rank; d++)
		if (dim(a, i, d) != 1)
			return 0;
	return 1;
}

int
alg_is_zero_elems(Alg *a, uint32_t i)
{
	int d;

	if (!is_array_type(ety(a, i)))
		return 0;
	for (d = 0; d < SH(a, i)->rank; d++)
		if (dim(a, i, d) == 0)
			return 1;
	return 0;
}

const int64_t *
alg_ints_attr(Alg *a, uint32_t i, int key, uint32_t *n)
{
	return hlo_attr_ints(a->m, INS(a, i), key, n);
}

/* a scratch copy of an integer-list attribute (n 0 if absent) */
int64_t *
alg_ints_copy(Alg *a, uint32_t i, int key, uint32_t *n)
{
	const int64_t *p = alg_ints_attr(a, i, key, n);
	int64_t *v = alg_tmp(a, (*n + 1) * 8u);

	if (p && *n)
		memcpy(v, p, *n * 8u);
	else
		*n = 0;
	return v;
}

int64_t
alg_int_attr(Alg *a, uint32_t i, int key, int64_t dflt)
{
	return hlo_attr_int(a->m, INS(a, i), key, dflt);
}

int
alg_ctl(Alg *a, uint32_t i)
{
	return a->ed.ctl[i] != 0;
}

int
alg_has_effect(Alg *a, uint32_t i)
{
	return pass_has_effect(a->m, INS(a, i), a->fx, a->ed.nfx);
}

int
alg_t_int(int t)
{
	int c = hlo_typeinfo[t].cls;

	return c == C_SINT || c == C_UINT;
}

int
alg_t_sint(int t)
{
	return hlo_typeinfo[t].cls == C_SINT;
}

int
alg_t_uint(int t)
{
	return hlo_typeinfo[t].cls == C_UINT;
}

int
alg_t_float(int t)
{
	return hlo_typeinfo[t].cls == C_FLOAT;
}

int
alg_t_cplx(int t)
{
	return hlo_typeinfo[t].cls == C_CPLX;
}

int
alg_t_bits(int t)
{
	return hlo_typeinfo[t].bits;
}

/* scratch for one handler: reset before every visit */
void *
alg_tmp(Alg *a, size_t n)
{
	return pass_arena_alloc(&a->tmp, n);
}

/* side arrays */

static void
growarr(void **p, uint32_t cap, size_t size)
{
	*p = xreallocarray(*p, cap, size);
}

static void
grow(Alg *a, uint32_t n)
{
	uint32_t cap = a->cap ? a->cap : 64, i;

	if (n <= a->cap)
		return;
	while (cap < n)
		cap *= 2;
	growarr((void **)&a->state, cap, 1);
	growarr((void **)&a->xhead, cap, 4);
	growarr((void **)&a->xtail, cap, 4);
	growarr((void **)&a->gnext, cap, 4);
	growarr((void **)&a->glast, cap, 4);
	growarr((void **)&a->mark, cap, 4);
	for (i = a->cap; i < cap; i++)
		a->mark[i] = 0;
	a->cap = cap;
}

static void
initslot(Alg *a, uint32_t i)
{
	a->state[i] = 0;
	a->xhead[i] = a->xtail[i] = HLO_NONE;
	a->gnext[i] = HLO_NONE;
	a->glast[i] = i;
}

/* users */

static void
addextra(Alg *a, uint32_t x, uint32_t u)
{
	uint32_t k;

	if (!a->uvalid || x >= a->m->comps[a->c].nins)
		return;
	if (a->nx == a->capx) {
		a->capx = a->capx ? 2 * a->capx : 1024;
		a->xuser = xreallocarray(a->xuser, a->capx, 4);
		a->xnext = xreallocarray(a->xnext, a->capx, 4);
	}
	k = a->nx++;
	a->xuser[k] = u;
	a->xnext[k] = HLO_NONE;
	if (a->xtail[x] == HLO_NONE)
		a->xhead[x] = k;
	else
		a->xnext[a->xtail[x]] = k;
	a->xtail[x] = k;
}

/* users as they are now: a fresh table, no history */
static void
rebuild_users(Alg *a)
{
	HloComp *cp = &a->m->comps[a->c];
	uint32_t n = cp->nins, i, k, d, *fill, tot = 0;

	grow(a, n + 1);
	if (a->capu0 < n + 2) {
		a->capu0 = n + 2;
		a->ustart = xreallocarray(a->ustart, a->capu0, 4);
	}
	memset(a->ustart, 0, (n + 2) * 4u);
	for (i = 0; i < n; i++) {
		a->xhead[i] = a->xtail[i] = HLO_NONE;
		a->gnext[i] = HLO_NONE;
		a->glast[i] = i;
		if (cp->ins[i].flags & HI_DEAD)
			continue;
		for (k = 0; k < cp->ins[i].nops; k++)
			if ((d = opnd(a, i, k)) < n) {
				a->ustart[d + 1]++;
				tot++;
			}
	}
	for (i = 0; i < n; i++)
		a->ustart[i + 1] += a->ustart[i];
	if (a->capul < tot + 1) {
		a->capul = tot + 1;
		a->ulist = xreallocarray(a->ulist, a->capul, 4);
	}
	if (a->capfill < n + 1) {
		a->capfill = n + 1;
		a->fill = xreallocarray(a->fill, a->capfill, 4);
	}
	fill = a->fill;
	memcpy(fill, a->ustart, n * 4u);
	for (i = 0; i < n; i++) {
		if (cp->ins[i].flags & HI_DEAD)
			continue;
		for (k = 0; k < cp->ins[i].nops; k++)
			if ((d = opnd(a, i, k)) < n)
				a->ulist[fill[d]++] = i;
	}
	a->n0 = n;
	a->nx = 0;
	a->uvalid = 1;
}

static int
uses(Alg *a, uint32_t u, uint32_t x)
{
	uint32_t k, n = nops(a, u);

	for (k = 0; k < n; k++)
		if (opnd(a, u, k) == x)
			return 1;
	return 0;
}

static uint32_t
collect(Alg *a, uint32_t x, uint32_t limit, uint32_t *out)
{
	HloComp *cp = &a->m->comps[a->c];
	uint32_t z, k, u, cnt = 0, j;

	if (x >= cp->nins)
		return 0;
	if (!a->uvalid)
		rebuild_users(a);
	if (++a->epoch == 0) {
		memset(a->mark, 0, a->cap * 4u);
		a->epoch = 1;
	}
	for (z = x; z != HLO_NONE && cnt < limit; z = a->gnext[z]) {
		for (j = 0; ; j++) {
			if (z < a->n0 && j < a->ustart[z + 1] - a->ustart[z])
				u = a->ulist[a->ustart[z] + j];
			else
				break;
			if (u < cp->nins && !(cp->ins[u].flags & HI_DEAD) &&
			    a->mark[u] != a->epoch && uses(a, u, x)) {
				a->mark[u] = a->epoch;
				if (out)
					out[cnt] = u;
				if (++cnt >= limit)
					return cnt;
			}
		}
		for (k = a->xhead[z]; k != HLO_NONE; k = a->xnext[k]) {
			u = a->xuser[k];
			if (u < cp->nins && !(cp->ins[u].flags & HI_DEAD) &&
			    a->mark[u] != a->epoch && uses(a, u, x)) {
				a->mark[u] = a->epoch;
				if (out)
					out[cnt] = u;
				if (++cnt >= limit)
					return cnt;
			}
		}
	}
	return cnt;
}

uint32_t
alg_users(Alg *a, uint32_t x, uint32_t **out)
{
	uint32_t need = a->ed.nuse[x] + 1;

	if (a->capubuf < need) {
		a->capubuf = need > 64 ? need : 64;
		a->ubuf = xreallocarray(a->ubuf, a->capubuf, 4);
	}
	*out = a->ubuf;
	return collect(a, x, need, a->ubuf);
}

uint32_t
alg_nusers(Alg *a, uint32_t x, uint32_t limit)
{
	if (a->ed.nuse[x] <= 1)
		return a->ed.nuse[x] < limit ? a->ed.nuse[x] : limit;
	return collect(a, x, limit, NULL);
}

int
alg_one_use(Alg *a, uint32_t x)
{
	return a->ed.nuse[x] == 1;
}

int
alg_one_user(Alg *a, uint32_t x)
{
	return a->ed.nuse[x] >= 1 && alg_nusers(a, x, 2) == 1;
}

/* literals */

const unsigned char *
alg_lit(Alg *a, uint32_t i, uint32_t *nbytes)
{
	const unsigned char *p;
	int64_t n;
	int t = ety(a, i);

	if (opc(a, i) != HOP_CONSTANT || !is_array_type(t))
		return NULL;
	p = hlo_literal(a->m, INS(a, i), nbytes);
	n = alg_elems(a, i);
	if (!p || n < 0 || (uint64_t)*nbytes < (uint64_t)n *
	    (uint64_t)hlo_type_bytes(t))
		return NULL;
	return p;
}

int
alg_is_const(Alg *a, uint32_t i)
{
	return opc(a, i) == HOP_CONSTANT;
}

uint64_t
alg_bits_at(const unsigned char *p, int n)
{
	uint64_t v = 0;
	int k;

	for (k = n > 8 ? 8 : n; k-- > 0;)
		v = v << 8 | p[k];
	return v;
}

int64_t
alg_int_at(int t, const unsigned char *p)
{
	int bits = alg_t_bits(t);
	uint64_t v = alg_bits_at(p, hlo_type_bytes(t));

	if (t == TY_PRED)
		return p[0] != 0;
	if (bits < 64)
		v &= ((uint64_t)1 << bits) - 1;
	if (alg_t_sint(t) && bits < 64 && (v >> (bits - 1) & 1))
		v |= ~(((uint64_t)1 << bits) - 1);
	return (int64_t)v;
}

static double
elem_f(int t, const unsigned char *p)
{
	if (alg_t_float(t))
		return hlo_float_decode(t, alg_bits_at(p, hlo_type_bytes(t)));
	if (alg_t_cplx(t))
		return hlo_float_decode(t == TY_C64 ? TY_F32 : TY_F64,
			alg_bits_at(p, hlo_type_bytes(t) / 2));
	if (alg_t_uint(t))
		return (double)(uint64_t)alg_int_at(t, p);
	return (double)alg_int_at(t, p);
}

static double
elem_imag(int t, const unsigned char *p)
{
	int h = hlo_type_bytes(t) / 2;

	return hlo_float_decode(t == TY_C64 ? TY_F32 : TY_F64,
		alg_bits_at(p + h, h));
}

static int
fits(int t, int64_t v)
{
	int bits = alg_t_bits(t);

	if (t == TY_PRED)
		return v == 0 || v == 1;
	if (alg_t_uint(t))
		return v >= 0 && (bits >= 64 || v < ((int64_t)1 << bits));
	if (bits >= 64)
		return 1;
	return v >= -((int64_t)1 << (bits - 1)) &&
		v < ((int64_t)1 << (bits - 1));
}

/* the constant under a chain of broadcasts, HLO_NONE if none */
static uint32_t
unbcast(Alg *a, uint32_t i)
{
	uint32_t steps = 0;

	while (opc(a, i) == HOP_BROADCAST && nops(a, i) == 1 && steps++ < 64)
		i = opnd(a, i, 0);
	return opc(a, i) == HOP_CONSTANT ? i : HLO_NONE;
}

/* every element of constant c equals v (mode 0: int8 value as IsAll,
 * 1: float value, 2: the type's minimum, 3: its maximum, 4: +0, 5: -0,
 * both parts of complex numbers; integers: 0) */
static int
all_equal(Alg *a, uint32_t c, int mode, double v)
{
	uint32_t nb;
	const unsigned char *p = alg_lit(a, c, &nb);
	int t = ety(a, c), esz = hlo_type_bytes(t);
	int64_t n = alg_elems(a, c), k, iv = (int64_t)v;
	double want = v;

	if (!p)
		return 0;
	if (mode == 1 && !alg_t_float(t))
		return 0;
	if (mode >= 4) {
		for (k = 0; k < n; k++, p += esz) {
			if (alg_t_float(t) || alg_t_cplx(t)) {
				double x = elem_f(t, p), y = alg_t_cplx(t) ?
					elem_imag(t, p) : 0;

				if (x != 0 || y != 0 || !!signbit(x) != (mode ==
				    5) || (alg_t_cplx(t) && !!signbit(y) !=
				    (mode == 5)))
					return 0;
			} else if (alg_int_at(t, p) != 0) {
				return 0;
			}
		}
		return 1;
	}
	if (mode == 0 && !alg_t_float(t) && !alg_t_cplx(t) && !fits(t, iv))
		return 0;
	if (mode >= 2) {
		if (alg_t_cplx(t))
			return 0;
		if (alg_t_float(t)) {
			if (!hlo_float_has_inf(t))
				return 0;
			want = mode == 2 ? -INFINITY : INFINITY;
		} else if (t == TY_PRED) {
			iv = mode == 3;
		} else if (alg_t_uint(t)) {
			iv = mode == 2 ? 0 : (alg_t_bits(t) >= 64 ? -1 :
				(int64_t)(((uint64_t)1 << alg_t_bits(t)) - 1));
		} else {
			int b = alg_t_bits(t);

			iv = mode == 2 ? (b >= 64 ? INT64_MIN :
				-((int64_t)1 << (b - 1))) : (b >= 64 ?
				INT64_MAX : ((int64_t)1 << (b - 1)) - 1);
		}
	}
	for (k = 0; k < n; k++, p += esz) {
		if (alg_t_float(t)) {
			if (elem_f(t, p) != want)
				return 0;
		} else if (alg_t_cplx(t)) {
			if (elem_f(t, p) != want || elem_imag(t, p) != 0)
				return 0;
		} else if (alg_int_at(t, p) != iv) {
			return 0;
		}
	}
	return 1;
}

int
alg_is_all(Alg *a, uint32_t i, int v)
{
	uint32_t c = unbcast(a, i);

	return c != HLO_NONE && all_equal(a, c, 0, v);
}

int
alg_is_all_zero(Alg *a, uint32_t i, int neg)
{
	uint32_t c = unbcast(a, i);

	return c != HLO_NONE && all_equal(a, c, neg ? 5 : 4, 0);
}

int
alg_is_all_float(Alg *a, uint32_t i, double v)
{
	uint32_t c = unbcast(a, i);

	return c != HLO_NONE && all_equal(a, c, 1, v);
}

int
alg_is_all_min(Alg *a, uint32_t i, int type)
{
	uint32_t c = unbcast(a, i);

	return c != HLO_NONE && ety(a, c) == type && all_equal(a, c, 2, 0);
}

int
alg_is_all_max(Alg *a, uint32_t i, int type)
{
	uint32_t c = unbcast(a, i);

	return c != HLO_NONE && ety(a, c) == type && all_equal(a, c, 3, 0);
}

int
alg_const_value(Alg *a, uint32_t i, double *v)
{
	uint32_t nb;
	const unsigned char *p;
	int t = ety(a, i);

	if (!alg_is_const(a, i) || !alg_is_eff_scalar(a, i) ||
	    !(alg_t_float(t) || alg_t_int(t)) || !(p = alg_lit(a, i, &nb)))
		return 0;
	if (alg_t_float(t))
		*v = elem_f(t, p);
	else
		*v = (double)alg_int_at(t, p);
	return 1;
}

int
alg_const_int(Alg *a, uint32_t i, int64_t *v)
{
	uint32_t nb;
	const unsigned char *p;
	int t = ety(a, i);

	if (!alg_is_const(a, i) || !alg_t_int(t) || alg_elems(a, i) < 1 ||
	    !(p = alg_lit(a, i, &nb)))
		return 0;
	*v = alg_int_at(t, p);
	if (alg_t_uint(t) && *v < 0)
		return 0;	/* GetFirstInteger fails over int64 */
	return 1;
}

int
alg_const_first(Alg *a, uint32_t i, int64_t *v)
{
	uint32_t nb;
	const unsigned char *p;
	int t = ety(a, i);

	if (!alg_is_const(a, i) || !alg_t_int(t) || alg_elems(a, i) < 1 ||
	    !(p = alg_lit(a, i, &nb)))
		return 0;
	*v = alg_int_at(t, p);
	return 1;
}

int
alg_const_scalar_is(Alg *a, uint32_t i, int eff, int v)
{
	if (!alg_is_const(a, i) || !(eff ? alg_is_eff_scalar(a, i) :
	    alg_is_scalar(a, i)))
		return 0;
	return all_equal(a, i, 0, v);
}

int
alg_scalar_zero(Alg *a, uint32_t i)
{
	uint32_t nb;
	const unsigned char *p;
	int t = ety(a, i);

	if (!alg_is_const(a, i) || !alg_is_eff_scalar(a, i) || !(p = alg_lit(a, i, &nb)))
		return 0;
	if (alg_t_float(t))
		return elem_f(t, p) == 0;
	if (alg_t_cplx(t))
		return elem_f(t, p) == 0 && elem_imag(t, p) == 0;
	return alg_int_at(t, p) == 0;
}

int
alg_scalar_inf(Alg *a, uint32_t i, int neg)
{
	int t = ety(a, i);

	if (!alg_is_const(a, i) || !alg_is_eff_scalar(a, i) || alg_t_cplx(t))
		return 0;
	return all_equal(a, i, neg ? 2 : 3, 0);
}

/* shapes */

uint32_t
alg_shp(Alg *a, int type, int r, const int64_t *d, uint32_t like)
{
	int64_t buf[2 * 16], *v = buf;
	int k, lay = like != HLO_NONE &&
		(a->m->shapes[like].flags & SH_LAYOUT);

	if (r > 16)
		v = alg_tmp(a, 2 * (size_t)r * 8);
	memcpy(v, d, (size_t)r * 8);
	for (k = 0; k < r; k++)
		v[r + k] = r - 1 - k;
	return hlo_shape(a->m, type, r, v, lay ? v + r : NULL, 0, 0);
}

uint32_t
alg_shp_type(Alg *a, uint32_t s, int type)
{
	return hlo_shape_with_type(a->m, s, type);
}

uint32_t
alg_shp_scalar(Alg *a, int type)
{
	return hlo_shape_scalar(a->m, type);
}

/* instruction id gets the shape hlo's shape inference gives it (hlo/
 * infer.c), made as alg_shp makes shapes: no dynamic bounds, the default
 * layout when like has a layout. a builder calls it once the operands and
 * attributes are set; should inference refuse the instruction, it keeps
 * its provisional shape and the verifier reports it */
static uint32_t
inferred(Alg *a, uint32_t id, uint32_t like)
{
	const HloShape *sh;
	HloError e;
	uint32_t s;

	if (hlo_infer_shape(a->m, a->c, id, &s, &e) < 0)
		return id;
	sh = &a->m->shapes[s];
	INS(a, id)->shape = alg_shp(a, sh->type, sh->rank, hlo_dims(a->m, sh),
		like);
	return id;
}

/* building */

static const uint32_t *
copyids(Alg *a, const uint32_t *v, uint32_t n, uint32_t *buf, uint32_t cap)
{
	uint32_t *d = n <= cap ? buf : alg_tmp(a, (size_t)n * 4);

	if (n)
		memcpy(d, v, (size_t)n * 4);
	return d;
}

uint32_t
alg_mk(Alg *a, int op, uint32_t shape, uint32_t n, const uint32_t *ops)
{
	uint32_t buf[16], name, id, k;
	const uint32_t *v = copyids(a, ops, n, buf, 16);

	name = hlo_fresh_name(a->m, hlo_opinfo[op].name);
	id = hlo_instr_add(a->m, a->c, op, shape, name, n, v);
	grow(a, id + 1);
	initslot(a, id);
	pass_edit_added(&a->ed, id);
	for (k = 0; k < n; k++)
		addextra(a, v[k], id);
	return id;
}

void
alg_set_ints(Alg *a, uint32_t i, int key, const int64_t *v, uint32_t n)
{
	int64_t buf[16], *d = n <= 16 ? buf : alg_tmp(a, (size_t)n * 8);
	HloAttr at;

	if (n)
		memcpy(d, v, (size_t)n * 8);
	at = hlo_mk_ints(a->m, key, d, n);
	hlo_attr_set(a->m, a->c, i, &at);
}

void
alg_set_word(Alg *a, uint32_t i, int key, const char *w)
{
	HloAttr at = hlo_mk_bytes(a->m, key, hlo_attrinfo[key].kind, w,
		strlen(w));

	hlo_attr_set(a->m, a->c, i, &at);
}

uint32_t
alg_mk_un(Alg *a, int op, uint32_t shape, uint32_t x)
{
	return alg_mk(a, op, shape, 1, &x);
}

uint32_t
alg_mk_bin(Alg *a, int op, uint32_t shape, uint32_t x, uint32_t y)
{
	uint32_t v[2] = {x, y};

	return alg_mk(a, op, shape, 2, v);
}

/* elementwise operands have one shape: the result keeps x's layout and
 * takes the inferred element type */
uint32_t
alg_mk_bin_infer(Alg *a, int op, uint32_t x, uint32_t y)
{
	uint32_t id = alg_mk_bin(a, op, INS(a, x)->shape, x, y), s;
	HloError e;

	if (hlo_infer_shape(a->m, a->c, id, &s, &e) == 0 &&
	    a->m->shapes[s].type != SH(a, x)->type)
		INS(a, id)->shape = alg_shp_type(a, INS(a, x)->shape,
			a->m->shapes[s].type);
	return id;
}

uint32_t
alg_mk_tern(Alg *a, int op, uint32_t shape, uint32_t x, uint32_t y, uint32_t z)
{
	uint32_t v[3] = {x, y, z};

	return alg_mk(a, op, shape, 3, v);
}

uint32_t
alg_mk_const(Alg *a, uint32_t shape, const void *bytes, uint32_t n)
{
	void *d = alg_tmp(a, n);
	uint32_t id;
	HloAttr at;

	memcpy(d, bytes, n);
	id = alg_mk(a, HOP_CONSTANT, shape, 0, NULL);
	at = hlo_mk_bytes(a->m, A_LITERAL, K_LITERAL, d, n);
	hlo_attr_set(a->m, a->c, id, &at);
	return id;
}

static void
putbits(unsigned char *p, uint64_t v, int n)
{
	int k;

	for (k = 0; k < n; k++, v >>= 8)
		p[k] = (unsigned char)v;
}

/* one element of type t holding v (integers from iv when isint) */
static void
encode(int t, double v, int64_t iv, int isint, unsigned char *p)
{
	int esz = hlo_type_bytes(t);

	memset(p, 0, esz);
	if (alg_t_float(t)) {
		putbits(p, hlo_float_encode(t, isint ? (double)iv : v), esz);
	} else if (alg_t_cplx(t)) {
		int h = esz / 2, ct = t == TY_C64 ? TY_F32 : TY_F64;

		putbits(p, hlo_float_encode(ct, isint ? (double)iv : v), h);
		putbits(p + h, hlo_float_encode(ct, 0), h);
	} else if (t == TY_PRED) {
		p[0] = isint ? iv != 0 : v != 0;
	} else {
		int64_t x = isint ? iv : (int64_t)v;
		int bits = alg_t_bits(t);

		if (!isint && v != v)
			x = 0;
		if (bits < 64)
			x = (int64_t)((uint64_t)x & (((uint64_t)1 << bits) -
				1));
		if (alg_t_sint(t) && bits < 64 && bits > 8 - 0 &&
		    (x >> (bits - 1) & 1))
			x |= (int64_t)~(((uint64_t)1 << bits) - 1);
		putbits(p, (uint64_t)x, esz);
	}
}

uint32_t
alg_mk_scalar(Alg *a, int type, double v)
{
	unsigned char b[16];

	encode(type, v, 0, 0, b);
	return alg_mk_const(a, alg_shp_scalar(a, type), b, hlo_type_bytes(type));
}

uint32_t
alg_mk_scalar_i(Alg *a, int type, int64_t v)
{
	unsigned char b[16];

	encode(type, 0, v, 1, b);
	return alg_mk_const(a, alg_shp_scalar(a, type), b, hlo_type_bytes(type));
}

static uint32_t
like(Alg *a, uint32_t base, double v, int64_t iv, int isint)
{
	unsigned char b[16];
	int t = ety(a, base);
	uint32_t k;

	encode(t, v, iv, isint, b);
	if (SH(a, base)->rank == 0)
		return alg_mk_const(a, INS(a, base)->shape, b, hlo_type_bytes(t));
	k = alg_mk_const(a, alg_shp_scalar(a, t), b, hlo_type_bytes(t));
	return alg_mk_bcast(a, INS(a, base)->shape, k, NULL, 0);
}

uint32_t
alg_scalar_like(Alg *a, uint32_t base, double v)
{
	return like(a, base, v, 0, 0);
}

uint32_t
alg_scalar_like_i(Alg *a, uint32_t base, int64_t v)
{
	return like(a, base, 0, v, 1);
}

uint32_t
alg_mk_bcast(Alg *a, uint32_t shape, uint32_t x, const int64_t *d, uint32_t nd)
{
	uint32_t id = alg_mk_un(a, HOP_BROADCAST, shape, x);

	alg_set_ints(a, id, A_DIMENSIONS, d, nd);
	return id;
}

uint32_t
alg_mk_reshape(Alg *a, uint32_t shape, uint32_t x)
{
	return alg_mk_un(a, HOP_RESHAPE, shape, x);
}

uint32_t
alg_mk_transpose(Alg *a, uint32_t shape, uint32_t x, const int64_t *perm)
{
	uint32_t id = alg_mk_un(a, HOP_TRANSPOSE, shape, x);

	alg_set_ints(a, id, A_DIMENSIONS, perm, a->m->shapes[shape].rank);
	return id;
}

uint32_t
alg_mk_transpose_infer(Alg *a, uint32_t x, const int64_t *perm)
{
	uint32_t like = INS(a, x)->shape;

	return inferred(a, alg_mk_transpose(a, like, x, perm), like);
}

uint32_t
alg_mk_slice(Alg *a, uint32_t shape, uint32_t x, const int64_t *start,
	const int64_t *limit, const int64_t *stride)
{
	int r = rank(a, x), k;
	int64_t *t = alg_tmp(a, (size_t)(3 * r + 1) * 8);
	uint32_t id;

	for (k = 0; k < r; k++) {
		t[3 * k] = start[k];
		t[3 * k + 1] = limit[k];
		t[3 * k + 2] = stride ? stride[k] : 1;
	}
	id = alg_mk_un(a, HOP_SLICE, shape, x);
	alg_set_ints(a, id, A_SLICE, t, 3 * r);
	return id;
}

uint32_t
alg_mk_slice_infer(Alg *a, uint32_t x, const int64_t *start,
	const int64_t *limit, const int64_t *stride)
{
	uint32_t like = INS(a, x)->shape;

	return inferred(a, alg_mk_slice(a, like, x, start, limit, stride),
		like);
}

uint32_t
alg_mk_pad(Alg *a, uint32_t shape, uint32_t x, uint32_t v, const int64_t *cfg)
{
	uint32_t id = alg_mk_bin(a, HOP_PAD, shape, x, v);

	alg_set_ints(a, id, A_PADDING, cfg, 3 * rank(a, x));
	return id;
}

uint32_t
alg_mk_pad_infer(Alg *a, uint32_t x, uint32_t v, const int64_t *cfg)
{
	uint32_t like = INS(a, x)->shape;

	return inferred(a, alg_mk_pad(a, like, x, v, cfg), like);
}

uint32_t
alg_mk_concat(Alg *a, uint32_t shape, uint32_t n, const uint32_t *ops,
	int64_t d)
{
	uint32_t id = alg_mk(a, HOP_CONCAT, shape, n, ops);

	alg_set_ints(a, id, A_DIMENSIONS, &d, 1);
	return id;
}

uint32_t
alg_mk_concat_infer(Alg *a, uint32_t n, const uint32_t *ops, int64_t d)
{
	uint32_t like = INS(a, ops[0])->shape;

	return inferred(a, alg_mk_concat(a, like, n, ops, d), like);
}

uint32_t
alg_mk_compare(Alg *a, uint32_t shape, uint32_t x, uint32_t y, const char *dir)
{
	uint32_t id = alg_mk_bin(a, HOP_COMPARE, shape, x, y);

	alg_set_word(a, id, A_DIRECTION, dir);
	return id;
}

uint32_t
alg_mk_iota(Alg *a, uint32_t shape, int64_t d)
{
	uint32_t id = alg_mk(a, HOP_IOTA, shape, 0, NULL);
	HloAttr at = hlo_mk_int(A_IOTA_DIM, d);

	hlo_attr_set(a->m, a->c, id, &at);
	return id;
}

uint32_t
alg_mk_convert(Alg *a, uint32_t shape, uint32_t x)
{
	return alg_mk_un(a, HOP_CONVERT, shape, x);
}

uint32_t
alg_mk_reverse(Alg *a, uint32_t x, const int64_t *d, uint32_t nd)
{
	uint32_t id = alg_mk_un(a, HOP_REVERSE, INS(a, x)->shape, x);

	alg_set_ints(a, id, A_DIMENSIONS, d, nd);
	return id;
}

uint32_t
alg_mk_reduce(Alg *a, uint32_t shape, uint32_t x, uint32_t init,
	const int64_t *d, uint32_t nd, uint32_t comp)
{
	uint32_t id = alg_mk_bin(a, HOP_REDUCE, shape, x, init);

	alg_set_ints(a, id, A_DIMENSIONS, d, nd);
	hlo_set_called(a->m, a->c, id, 1, &comp);
	return id;
}

uint32_t
alg_mk_gte(Alg *a, uint32_t x, int64_t index)
{
	const HloShape *s = SH(a, x);
	uint32_t id, es = a->m->ids[s->tuple + index];
	HloAttr at = hlo_mk_int(A_INDEX, index);

	id = alg_mk_un(a, HOP_GTE, es, x);
	hlo_attr_set(a->m, a->c, id, &at);
	return id;
}

uint32_t
alg_mk_tuple(Alg *a, uint32_t n, const uint32_t *ops)
{
	uint32_t *el = alg_tmp(a, (size_t)(n + 1) * 4), k;

	for (k = 0; k < n; k++)
		el[k] = INS(a, ops[k])->shape;
	return alg_mk(a, HOP_TUPLE, hlo_shape_tuple(a->m, n, el), n, ops);
}

/* same opcode, attributes and called computations as i; new operands */
uint32_t
alg_mk_clone(Alg *a, uint32_t i, uint32_t shape, uint32_t n, const uint32_t *ops)
{
	HloInstr src = *INS(a, i);
	uint32_t id = alg_mk(a, src.op, shape, n, ops);
	HloAttr *at;
	uint32_t *cl;

	if (src.nattrs) {
		at = alg_tmp(a, src.nattrs * sizeof *at);
		memcpy(at, a->m->attrv + src.attrs, src.nattrs * sizeof *at);
		hlo_set_attrs(a->m, a->c, id, src.nattrs, at);
	}
	if (src.ncalled) {
		cl = alg_tmp(a, src.ncalled * 4u);
		memcpy(cl, a->m->ids + src.called, src.ncalled * 4u);
		hlo_set_called(a->m, a->c, id, src.ncalled, cl);
	}
	INS(a, id)->num = src.num;
	INS(a, id)->flags = src.flags & ~HI_DEAD;
	return id;
}

uint32_t
alg_mk_dynslice(Alg *a, uint32_t shape, uint32_t x, uint32_t nidx,
	const uint32_t *idx, const int64_t *sizes)
{
	uint32_t *v = alg_tmp(a, (size_t)(nidx + 1) * 4), id;

	v[0] = x;
	memcpy(v + 1, idx, nidx * 4u);
	id = alg_mk(a, HOP_DYNSLICE, shape, nidx + 1, v);
	alg_set_ints(a, id, A_DYN_SLICE_SIZES, sizes, nidx);
	return id;
}

uint32_t
alg_mk_dus(Alg *a, uint32_t shape, uint32_t x, uint32_t upd, uint32_t nidx,
	const uint32_t *idx)
{
	uint32_t *v = alg_tmp(a, (size_t)(nidx + 2) * 4);

	v[0] = x;
	v[1] = upd;
	memcpy(v + 2, idx, nidx * 4u);
	return alg_mk(a, HOP_DYNUPDSLICE, shape, nidx + 2, v);
}

/* rewriting */

void
alg_mark_changed(Alg *a)
{
	a->changed = 1;
}

/* after old's uses moved to new: its users are new's now */
static void
merged(Alg *a, uint32_t old, uint32_t new)
{
	if (!a->uvalid)
		return;
	if (a->ed.fwd[old] == old) {
		rebuild_users(a);	/* replaced eagerly: rare */
		return;
	}
	if (old < a->cap && new < a->cap) {
		a->gnext[a->glast[new]] = old;
		a->glast[new] = a->glast[old];
	}
}

/* layout-sensitive: new takes old's layout when it was built by this
 * rewrite (its value does not depend on its layout unless it is a
 * bitcast), else a copy gives it old's layout */
static uint32_t
keep_layout(Alg *a, uint32_t old, uint32_t new)
{
	uint32_t so = INS(a, old)->shape;

	if (!a->lay || pass_shape_equal(a->m, so, INS(a, new)->shape) ||
	    !hlo_shape_eq_nolayout(a->m, so, INS(a, new)->shape))
		return new;
	if (new >= a->fresh && a->ed.nuse[new] == 0 && !is_tuple(a, new) &&
	    opc(a, new) != HOP_BITCAST && opc(a, new) != HOP_PARAMETER) {
		INS(a, new)->shape = so;
		return new;
	}
	return alg_mk_un(a, HOP_COPY, so, new);
}

int
alg_rep(Alg *a, uint32_t old, uint32_t new)
{
	old = pass_res(&a->ed, old);
	new = keep_layout(a, old, pass_res(&a->ed, new));
	if (!pass_replace(&a->ed, old, new, 0, 0))
		return 0;
	merged(a, old, new);
	a->changed = 1;
	return 1;
}

int
alg_rep_compat(Alg *a, uint32_t old, uint32_t new)
{
	old = pass_res(&a->ed, old);
	new = pass_res(&a->ed, new);
	if ((a->ed.ctl[old] & CTL_PRED) || !alg_same_shape(a, old, new))
		return 0;
	if (!pass_replace(&a->ed, old, new, 1, 0))
		return 0;
	merged(a, old, new);
	a->changed = 1;
	return 1;
}

/* ReplaceAllUsesWith, done eagerly: old stays a distinct (dead)
 * instruction that later handlers may visit and remove, as in xla */
void
alg_rep_uses(Alg *a, uint32_t old, uint32_t new)
{
	uint32_t *us, nu, k, j, u, cnt = 0, *copy;
	HloComp *cp;

	old = pass_res(&a->ed, old);
	new = pass_res(&a->ed, new);
	if (old == new)
		return;
	new = keep_layout(a, old, new);
	nu = alg_users(a, old, &us);
	copy = alg_tmp(a, (nu + 1) * 4u);
	memcpy(copy, us, nu * 4u);
	for (k = 0; k < nu; k++) {
		u = copy[k];
		if (u == new)
			continue;
		for (j = 0; j < nops(a, u); j++)
			if (opnd(a, u, j) == old) {
				a->m->ids[INS(a, u)->ops + j] = new;
				cnt++;
			}
		addextra(a, new, u);
	}
	a->ed.nuse[new] += cnt;
	a->ed.nuse[old] -= cnt < a->ed.nuse[old] ? cnt : a->ed.nuse[old];
	cp = &a->m->comps[a->c];
	if (cp->root == old)
		cp->root = new;
	a->ed.changed = 1;
	a->changed = 1;
}

void
alg_set_opnd(Alg *a, uint32_t i, uint32_t k, uint32_t x)
{
	uint32_t n = nops(a, i), j;
	uint32_t *v = alg_tmp(a, (size_t)(n + 1) * 4);

	for (j = 0; j < n; j++)
		v[j] = opnd(a, i, j);
	v[k] = x;
	pass_edit_set_operands(&a->ed, i, n, v);
	addextra(a, x, i);
}

/* shared analyses */

static int
positive(Alg *a, uint32_t i, int *budget)
{
	uint32_t k;
	int t = ety(a, i);

	if (--*budget < 0 || !is_array_type(t))
		return 0;
	for (k = 0; k < nops(a, i); k++)
		if (alg_t_cplx(ety(a, opnd(a, i, k))))
			return 0;
	switch (opc(a, i)) {
	case HOP_POWER:
		return !alg_t_sint(t) && positive(a, opnd(a, i, 0), budget);
	case HOP_ABS:
	case HOP_RSQRT:
	case HOP_SQRT:
		return positive(a, opnd(a, i, 0), budget);
	case HOP_MUL:
		return !alg_t_sint(t) && opnd(a, i, 0) == opnd(a, i, 1) &&
			positive(a, opnd(a, i, 0), budget);
	default:
		return 0;	/* a get-tuple-element of the cudnn batch
				 * norm: no such target on CPU */
	}
}

static int
nonneg(Alg *a, uint32_t i, int *budget)
{
	uint32_t k;
	int t = ety(a, i), bits;
	double v;

	if (--*budget < 0 || !is_array_type(t))
		return 0;
	for (k = 0; k < nops(a, i); k++)
		if (alg_t_cplx(ety(a, opnd(a, i, k))))
			return 0;
	switch (opc(a, i)) {
	case HOP_MUL:
		return opnd(a, i, 0) == opnd(a, i, 1) && !alg_t_sint(t);
	case HOP_EXP:
		return 1;
	case HOP_IOTA:
		if (!alg_t_sint(t))
			return 1;
		bits = alg_t_bits(t);
		if (bits >= 64)
			return 1;
		return (uint64_t)dim(a, i, alg_int_attr(a, i, A_IOTA_DIM, 0)) <=
			(uint64_t)1 << (bits - 1);
	case HOP_ABS:
		return !alg_t_sint(t) || nonneg(a, opnd(a, i, 0), budget);
	case HOP_BROADCAST:
		return nonneg(a, opnd(a, i, 0), budget);
	case HOP_CONSTANT:
		return alg_const_value(a, i, &v) && !signbit(v) && !isnan(v);
	case HOP_MIN:
		return nonneg(a, opnd(a, i, 0), budget) &&
			nonneg(a, opnd(a, i, 1), budget);
	case HOP_MAX:
		return nonneg(a, opnd(a, i, 0), budget) ||
			nonneg(a, opnd(a, i, 1), budget);
	case HOP_POWER:
		return !alg_t_sint(t) && nonneg(a, opnd(a, i, 0), budget);
	case HOP_SELECT:
		return nonneg(a, opnd(a, i, 1), budget) &&
			nonneg(a, opnd(a, i, 2), budget);
	default:
		return positive(a, i, budget);
	}
}

int
alg_is_nonneg(Alg *a, uint32_t i)
{
	int budget = 256;

	return nonneg(a, i, &budget);
}

int64_t *
alg_ints_pick(Alg *a, const int64_t *v, uint32_t nv, const int64_t *idx,
	uint32_t n)
{
	int64_t *r = alg_tmp(a, (n + 1) * 8u);
	uint32_t k;

	for (k = 0; k < n; k++) {
		if (idx[k] < 0 || (uint64_t)idx[k] >= nv)
			return NULL;
		r[k] = v[idx[k]];
	}
	return r;
}

const HloInstr *
alg_comp_root(Alg *a, uint32_t comp)
{
	const HloComp *cp;

	if (comp >= a->m->ncomps)
		return NULL;
	cp = &a->m->comps[comp];
	return cp->root < cp->nins ? &cp->ins[cp->root] : NULL;
}

int
alg_comp_root_op(Alg *a, uint32_t comp)
{
	const HloInstr *r = alg_comp_root(a, comp);

	return r ? r->op : -1;
}

/* the root of comp is op(parameter, parameter) */
int
alg_reduce_kind(Alg *a, uint32_t comp)
{
	const HloComp *cp;
	const HloInstr *r = alg_comp_root(a, comp);
	uint32_t x, y;

	if (!r || r->nops != 2)
		return -1;
	cp = &a->m->comps[comp];
	x = a->m->ids[r->ops];
	y = a->m->ids[r->ops + 1];
	if (x >= cp->nins || y >= cp->nins ||
	    cp->ins[x].op != HOP_PARAMETER || cp->ins[y].op != HOP_PARAMETER)
		return -1;
	return r->op;
}

static int64_t
product(const int64_t *v, int n)
{
	int64_t p = 1;
	int k;

	for (k = 0; k < n; k++)
		p *= v[k];
	return p;
}

/* CommonFactors: boundaries (i, j) of the shortest runs of a and b with
 * equal products, from (0, 0) to (ra, rb); pairs holds 2 * (ra + rb + 2) */
uint32_t
alg_common_factors(const int64_t *a, int ra, const int64_t *b, int rb,
	int64_t *pairs)
{
	int64_t i = 0, j = 0, pi = -1, pj = -1, sa = 1, sb = 1;
	uint32_t n = 0;
	int k, ina, inb, na, nb;

	if (ra == rb && (!ra || !memcmp(a, b, (size_t)ra * 8))) {
		for (k = 0; k <= ra; k++) {
			pairs[2 * n] = pairs[2 * n + 1] = k;
			n++;
		}
		return n;
	}
	if (product(a, ra) == 0) {
		pairs[0] = pairs[1] = 0;
		pairs[2] = ra;
		pairs[3] = rb;
		return 2;
	}
	for (;;) {
		if (sa == sb && (i > pi || j > pj)) {
			pi = i, pj = j;
			pairs[2 * n] = i;
			pairs[2 * n + 1] = j;
			n++;
			continue;
		}
		ina = i < ra;
		inb = j < rb;
		if (!ina && !inb)
			break;
		na = sa < sb || (ina && (!inb || (sa == sb && a[i] <= b[j])));
		nb = sb < sa || (inb && (!ina || (sa == sb && b[j] <= a[i])));
		if (!na && !nb)
			break;		/* products differ: not a reshape */
		if (na)
			sa *= a[i++];
		if (nb)
			sb *= b[j++];
	}
	return n;
}

/* up to this many dimensions in both shapes, the dimension pairs below
 * live on the stack (no allocation per reshape looked at) */
#define SMALL_RANKS 28

/* DimensionsUnmodifiedByReshape: (input, output) dimension pairs */
uint32_t
alg_unmodified_dims(const int64_t *a, int ra, const int64_t *b, int rb,
	int64_t *pairs)
{
	int64_t fbuf[2 * (SMALL_RANKS + 4)];
	int64_t *f = ra + rb <= SMALL_RANKS ? fbuf :
		xreallocarray(NULL, 2 * ((size_t)ra + rb + 4), sizeof *f);
	uint32_t n, k, m = 0;

	n = alg_common_factors(a, ra, b, rb, f);
	for (k = 0; k + 1 < n; k++)
		if (f[2 * k + 2] - f[2 * k] == 1 &&
		    f[2 * k + 3] - f[2 * k + 1] == 1) {
			pairs[2 * m] = f[2 * k];
			pairs[2 * m + 1] = f[2 * k + 1];
			m++;
		}
	if (f != fbuf)
		free(f);
	return m;
}

/* InsertedOrDeleted1SizedDimensions from shape s to shape t */
static int
degenerate(const int64_t *a, int ra, const int64_t *b, int rb, int64_t *del,
	uint32_t *ndel, int64_t *ins, uint32_t *nins)
{
	int64_t ubuf[2 * (SMALL_RANKS + 4)];
	int64_t *u = ra + rb <= SMALL_RANKS ? ubuf :
		xreallocarray(NULL, 2 * ((size_t)ra + rb + 4), sizeof *u);
	int64_t p0, p1, q0, q1, d;
	uint32_t n, k;
	int ok = 1;

	n = alg_unmodified_dims(a, ra, b, rb, u);
	*ndel = *nins = 0;
	for (k = 0; k <= n && ok; k++) {
		p0 = k > 0 ? u[2 * k - 2] : -1;
		p1 = k > 0 ? u[2 * k - 1] : -1;
		q0 = k < n ? u[2 * k] : ra;
		q1 = k < n ? u[2 * k + 1] : rb;
		for (d = p0 + 1; d < q0 && ok; d++) {
			if (a[d] > 1)
				ok = 0;
			else
				del[(*ndel)++] = d;
		}
		for (d = p1 + 1; d < q1 && ok; d++) {
			if (b[d] > 1)
				ok = 0;
			else
				ins[(*nins)++] = d;
		}
	}
	if (u != ubuf)
		free(u);
	return ok;
}

int
alg_reshape_degenerate(Alg *a, uint32_t from, uint32_t to, int64_t *del,
	uint32_t *ndel, int64_t *ins, uint32_t *nins)
{
	if (is_tuple(a, from) || is_tuple(a, to))
		return 0;
	return degenerate(dims(a, from), rank(a, from), dims(a, to),
		rank(a, to), del, ndel, ins, nins);
}

/* the visitor */

static int
dispatch(Alg *a, uint32_t i);

static void
visit(Alg *a, uint32_t i)
{
	if (alg_ctl(a, i))
		return;		/* xla refuses to replace these */
	if (a->o->limit >= 0 && a->nrw >= a->o->limit)
		return;
	pass_arena_reset(&a->tmp);
	if (dispatch(a, i))
		a->nrw++;
}

static int
dispatch(Alg *a, uint32_t i)
{
	switch (opc(a, i)) {
	case HOP_ABS: return alg_h_abs(a, i);
	case HOP_ADD: return alg_h_add(a, i);
	case HOP_AND: return alg_h_and_or(a, i, 1);
	case HOP_OR: return alg_h_and_or(a, i, 0);
	case HOP_XOR: return alg_h_xor(a, i);
	case HOP_NOT: return alg_h_not(a, i);
	case HOP_NEGATE: return alg_h_negate(a, i);
	case HOP_SUBTRACT: return alg_h_subtract(a, i);
	case HOP_MUL: return alg_h_multiply(a, i);
	case HOP_DIVIDE: return alg_h_divide(a, i);
	case HOP_REMAINDER: return alg_h_remainder(a, i);
	case HOP_COMPARE: return alg_h_compare(a, i);
	case HOP_SELECT: return alg_h_select(a, i);
	case HOP_MAX: return alg_h_maximum(a, i);
	case HOP_MIN: return alg_h_minimum(a, i);
	case HOP_CLAMP: return alg_h_clamp(a, i);
	case HOP_POWER: return alg_h_power(a, i);
	case HOP_EXP: return alg_h_exp(a, i);
	case HOP_LOG: return alg_h_log(a, i);
	case HOP_SQRT: return alg_h_sqrt(a, i);
	case HOP_RSQRT: return alg_h_rsqrt(a, i);
	case HOP_CONVERT: return alg_h_convert(a, i);
	case HOP_REAL: return alg_h_real(a, i);
	case HOP_IMAG: return alg_h_imag(a, i);
	case HOP_COMPLEX: return alg_h_complex(a, i);
	case HOP_BITCASTCVT: return alg_h_bitcast_convert(a, i);
	case HOP_REDUCEPRECISION: return alg_h_reduce_precision(a, i);
	case HOP_MAP: return alg_h_map(a, i);
	case HOP_CONSTANT: return alg_h_constant(a, i);
	case HOP_IOTA: return alg_h_iota(a, i);
	case HOP_BROADCAST: return alg_h_broadcast(a, i);
	case HOP_RESHAPE: return alg_h_reshape(a, i);
	case HOP_TRANSPOSE: return alg_h_transpose(a, i);
	case HOP_BITCAST: return alg_h_bitcast(a, i);
	case HOP_COPY: return alg_h_copy(a, i);
	case HOP_SLICE: return alg_h_slice(a, i);
	case HOP_PAD: return alg_h_pad(a, i);
	case HOP_CONCAT: return alg_h_concat(a, i);
	case HOP_REVERSE: return alg_h_reverse(a, i);
	case HOP_DYNSLICE: return alg_h_dynslice(a, i);
	case HOP_DYNUPDSLICE: return alg_h_dus(a, i);
	case HOP_GTE: return alg_h_gte(a, i);
	case HOP_REDUCE: return alg_h_reduce(a, i);
	case HOP_REDUCEWINDOW: return alg_h_reduce_window(a, i);
	case HOP_DOT: return alg_h_dot(a, i);
	case HOP_CONV: return alg_h_convolution(a, i);
	case HOP_GATHER: return alg_h_gather(a, i);
	case HOP_SCATTER: return alg_h_scatter(a, i);
	case HOP_SORT: return alg_h_sort(a, i);
	case HOP_ALLREDUCE:
	case HOP_REDUCESCATTER: return alg_h_all_reduce(a, i);
	case HOP_ALLGATHER: return alg_h_all_gather(a, i);
	case HOP_ALLTOALL: return alg_h_all_to_all(a, i);
	case HOP_CUSTOMCALL: return alg_h_custom_call(a, i);
	case HOP_OPTBARRIER: return alg_h_opt_barrier(a, i);
	default: return 0;
	}
}

static void
push(Alg *a, uint32_t *top, uint32_t x)
{
	a->stack = hlo_grow(a->stack, *top, &a->capstack, 256, 4);
	a->stack[(*top)++] = x;
}

/* xla's HloInstruction::Accept: post order, operands first (left to
 * right), then control predecessors; operands are read when an
 * instruction is first reached, so instructions added by earlier
 * rewrites can be visited too */
static void
dfs(Alg *a, uint32_t start)
{
	HloComp *cp;
	uint32_t top = 0, x, k, n, d;

	push(a, &top, start);
	while (top) {
		cp = &a->m->comps[a->c];
		x = a->stack[top - 1];
		if (x >= cp->nins || (cp->ins[x].flags & HI_DEAD) ||
		    a->state[x] == 2) {
			top--;
			continue;
		}
		if (a->state[x] == 1) {
			top--;
			visit(a, x);
			a->state[x] = 2;
			continue;
		}
		a->state[x] = 1;
		n = cp->ins[x].nctrl;
		for (k = n; k-- > 0;) {
			d = pass_res(&a->ed, a->m->ids[cp->ins[x].ctrl + k]);
			if (d < cp->nins && !a->state[d])
				push(a, &top, d);
		}
		n = cp->ins[x].nops;
		for (k = n; k-- > 0;) {
			cp = &a->m->comps[a->c];
			d = opnd(a, x, k);
			if (d < cp->nins && !a->state[d])
				push(a, &top, d);
		}
	}
}

/* one sweep over computation c, which simplify has begun editing; 1 if
 * it changed anything. Between sweeps nothing is renumbered: dead
 * instructions stay marked and new ones follow the old, as in xla's
 * instruction list */
static int
sweep(Alg *a, uint32_t c)
{
	HloComp *cp = &a->m->comps[c];
	uint32_t n = cp->nins, i, nroots = 0, *roots;

	a->changed = 0;
	a->fresh = n;
	memset(a->state, 0, n);
	if (a->caproots < n + 1) {
		a->caproots = n + 1;
		a->roots = xreallocarray(a->roots, a->caproots, 4);
	}
	roots = a->roots;
	for (i = 0; i < n; i++)
		if (!(cp->ins[i].flags & HI_DEAD) && a->ed.nuse[i] == 0 &&
		    i != cp->root && !(a->ed.ctl[i] & CTL_SUCC))
			roots[nroots++] = i;
	for (i = 0; i < nroots; i++)
		dfs(a, roots[i]);
	if (a->m->comps[c].root < a->m->comps[c].nins)
		dfs(a, a->m->comps[c].root);
	return a->changed;
}

/* sweeps over c until one changes nothing (at most max_runs that do) */
static int
simplify(Alg *a, uint32_t c)
{
	int r, runs = 0, changed = 0;

	pass_edit_begin(&a->ed, c);
	a->c = c;
	a->uvalid = 0;
	grow(a, a->m->comps[c].nins + 1);
	do {
		r = sweep(a, c);
		changed |= r;
	} while (r && ++runs < a->o->max_runs);
	changed |= a->ed.changed;	/* instructions added by a rule that
				 * then did not fire still change c */
	if (pass_edit_end(&a->ed) < 0)
		return -1;
	return changed;
}

static void
alg_free(Alg *a)
{
	pass_edit_free(&a->ed);
	free(a->state);
	free(a->xhead);
	free(a->xtail);
	free(a->gnext);
	free(a->glast);
	free(a->mark);
	free(a->ustart);
	free(a->ulist);
	free(a->xuser);
	free(a->xnext);
	free(a->stack);
	free(a->ubuf);
	free(a->fill);
	free(a->roots);
	pass_arena_free(&a->tmp);
}

int
algsimp_run(HloModule *m, PassCtx *ctx, const AlgOpts *o)
{
	Alg a;
	uint32_t *order, nc, k, c;
	int n, r, changed = 0, rc = 0;

	memset(&a, 0, sizeof a);
	a.m = m;
	a.ctx = ctx;
	a.o = o;
	a.lay = pass_layout_sensitive(m);
	nc = m->ncomps;
	order = xreallocarray(NULL, nc + 1, 4);
	n = hlo_comp_order_all(m, order);
	if (n < 0) {
		free(order);
		return hlo_err(&ctx->err, "algsimp: computations call each "
			"other in a cycle");
	}
	a.fx = pass_comp_effects(m, ctx);
	pass_edit_init(&a.ed, m, ctx, a.fx, nc);
	for (k = 0; k < (uint32_t)n && rc == 0; k++) {
		c = order[k];
		if (c >= m->ncomps || (m->comps[c].flags & HC_FUSION))
			continue;
		r = simplify(&a, c);
		if (r < 0)
			rc = -1;
		changed |= r > 0;
	}
	ctx->stats.rewrites += a.nrw;
	alg_free(&a);
	free(order);
	return rc < 0 ? -1 : changed;
}

int
pass_algsimp(HloModule *m, PassCtx *ctx)
{
	return algsimp_run(m, ctx, &cpu_opts);
}

/* "algsimp:default": the simplifier with xla's default options (its unit
 * tests' AlgebraicSimplifierOptions): dot strength reduction and the
 * reduce of a batch dot fire, which XLA:CPU turns off */
int
pass_algsimp_default(HloModule *m, PassCtx *ctx)
{
	return algsimp_run(m, ctx, &default_opts);
}

/* "algsimp:move-dot-param-to-rhs": xla's defaults with
 * enable_move_dot_param_to_rhs (set by no backend; its test
 * SwapDotOperands): a dot with a parameter-like lhs and a rhs that is not
 * swaps its operands behind a transpose */
int
pass_algsimp_move_dot_param(HloModule *m, PassCtx *ctx)
{
	AlgOpts o = default_opts;

	o.move_dot_param = 1;
	return algsimp_run(m, ctx, &o);
}

/* "algsimp:conv-add-multiply-reorder": xla's defaults with
 * enable_conv_add_multiply_reorder (XLA:GPU's setting; its test
 * ReorderConvAddMul): (conv(x, constant) + bias) * broadcast(constant)
 * becomes conv(x, constant * broadcast) + bias * broadcast */
int
pass_algsimp_conv_add_mul(HloModule *m, PassCtx *ctx)
{
	AlgOpts o = default_opts;

	o.conv_add_mul = 1;
	return algsimp_run(m, ctx, &o);
}

/* "algsimp:associative-reordering": xla's defaults with
 * use_associative_reordering (set by no backend) at its default
 * threshold 2.0 (algsimp_reorder.c) */
int
pass_algsimp_assoc(HloModule *m, PassCtx *ctx)
{
	AlgOpts o = default_opts;

	o.assoc_reorder = 1;
	return algsimp_run(m, ctx, &o);
}

/* "algsimp:raise-slice-and-reduce-through-dot": xla's defaults with
 * raise_slice_and_reduce_through_dot (set by no backend) at its default
 * threshold 2.0 (algsimp_raise.c) */
int
pass_algsimp_raise(HloModule *m, PassCtx *ctx)
{
	AlgOpts o = default_opts;

	o.raise_slice_reduce = 1;
	return algsimp_run(m, ctx, &o);
}
