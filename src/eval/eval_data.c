/* eval_data.c: data movement: broadcast, reshape, transpose, slice,
 * dynamic-slice, dynamic-update-slice, concatenate, pad, iota, reverse,
 * copy, bitcast, gather and the identity-like opcodes. Everything is a
 * strided N-d copy (ev_copy_nd) or a view of the operand's bytes. */
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "eval.h"

#define MAXR 64

/* merges dimensions that are contiguous in both source and destination */
static int
merge_dims(int64_t *dstr, int64_t *sstr, int64_t *count, int rank)
{
	int d, o = 0;

	for (d = 0; d < rank; d++) {
		if (count[d] == 1)
			continue;
		if (o > 0 && dstr[o - 1] == dstr[d] * count[d] &&
		    sstr[o - 1] == sstr[d] * count[d]) {
			count[o - 1] *= count[d];
			dstr[o - 1] = dstr[d];
			sstr[o - 1] = sstr[d];
			continue;
		}
		dstr[o] = dstr[d];
		sstr[o] = sstr[d];
		count[o] = count[d];
		o++;
	}
	return o;
}

static void
copy_row(unsigned char *d, int64_t ds, const unsigned char *s, int64_t ss,
	int64_t n, int64_t esz)
{
	int64_t k;

	if (ds == esz && ss == esz) {
		memcpy(d, s, n * esz);
		return;
	}
	if (ss == 0 && ds == esz && n > 8) {
		int64_t done, w;

		memcpy(d, s, esz);
		for (done = 1; done < n; done += w) {
			w = done < n - done ? done : n - done;
			memcpy(d + done * esz, d, w * esz);
		}
		return;
	}
	switch (esz) {
	case 1:
		for (k = 0; k < n; k++)
			d[k * ds] = s[k * ss];
		return;
	case 2:
		for (k = 0; k < n; k++)
			memcpy(d + k * ds, s + k * ss, 2);
		return;
	case 4:
		for (k = 0; k < n; k++)
			memcpy(d + k * ds, s + k * ss, 4);
		return;
	case 8:
		for (k = 0; k < n; k++)
			memcpy(d + k * ds, s + k * ss, 8);
		return;
	}
	for (k = 0; k < n; k++)
		memcpy(d + k * ds, s + k * ss, esz);
}

/* dst[sum i_d dstr_d] = src[sum i_d sstr_d] for i < count (byte strides,
 * possibly 0 or negative on the source) */
void
ev_copy_nd(unsigned char *dst, const int64_t *dstr0, const unsigned char *src,
	const int64_t *sstr0, const int64_t *count0, int rank, int64_t esz)
{
	int64_t dstr[MAXR], sstr[MAXR], count[MAXR], idx[MAXR];
	int64_t k;
	int d, r;

	for (d = 0; d < rank; d++) {
		if (count0[d] <= 0)
			return;
		dstr[d] = dstr0[d];
		sstr[d] = sstr0[d];
		count[d] = count0[d];
	}
	r = merge_dims(dstr, sstr, count, rank);
	if (r == 0) {
		memcpy(dst, src, esz);
		return;
	}
	if (r == 1) {
		copy_row(dst, dstr[0], src, sstr[0], count[0], esz);
		return;
	}
	memset(idx, 0, sizeof idx);
	for (;;) {
		copy_row(dst, dstr[r - 1], src, sstr[r - 1], count[r - 1],
			esz);
		for (d = r - 2; d >= 0; d--) {
			dst += dstr[d];
			src += sstr[d];
			if (++idx[d] < count[d])
				break;
			k = idx[d];
			dst -= dstr[d] * k;
			src -= sstr[d] * k;
			idx[d] = 0;
		}
		if (d < 0)
			return;
	}
}

typedef struct {
	int rank;
	const int64_t *dims;
	int64_t str[MAXR];
	int64_t esz;
} Geo;

static int
geo(const HloEval *ev, uint32_t shape, Geo *g)
{
	g->dims = ev_dims(ev, shape, &g->rank);
	if (g->rank > MAXR)
		return -1;
	g->esz = ev_esz(hlo_sh(ev->m, shape)->type);
	ev_strides(g->dims, g->rank, g->esz, g->str);
	return 0;
}

static HloVal *
newout(HloEval *ev, const HloInstr *in, Geo *g)
{
	HloVal *v = hlo_val_array(ev, in->shape);

	if (v && geo(ev, in->shape, g) < 0) {
		hlo_val_unref(ev, v);
		ev_fail(ev, EV_NOEVAL, "not evaluable: rank over %d", MAXR);
		return NULL;
	}
	return v;
}

static int
bad(HloEval *ev, uint32_t c, uint32_t i, HloVal *v, const char *why)
{
	hlo_val_unref(ev, v);
	return ev_unsupported(ev, c, i, why);
}

static int
broadcast(HloEval *ev, uint32_t c, uint32_t i, HloVal *a, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	const int64_t *dm;
	uint32_t nd, k;
	int64_t sstr[MAXR];
	Geo go, gi;
	HloVal *v = newout(ev, in, &go);

	if (!v)
		return -1;
	dm = hlo_attr_ints(ev->m, in, A_DIMENSIONS, &nd);
	if (geo(ev, a->shape, &gi) < 0 || (int)nd != gi.rank ||
	    a->type != v->type)
		return bad(ev, c, i, v, "bad dimensions");
	memset(sstr, 0, sizeof sstr);
	for (k = 0; k < nd; k++) {
		if (dm[k] < 0 || dm[k] >= go.rank ||
		    go.dims[dm[k]] != gi.dims[k])
			return bad(ev, c, i, v, "bad dimensions");
		sstr[dm[k]] = gi.str[k];
	}
	ev_copy_nd(v->data, go.str, a->data, sstr, go.dims, go.rank, go.esz);
	*out = v;
	return 0;
}

static int
transpose(HloEval *ev, uint32_t c, uint32_t i, HloVal *a, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	const int64_t *pm;
	uint32_t np, k;
	int64_t sstr[MAXR];
	Geo go, gi;
	HloVal *v = newout(ev, in, &go);

	if (!v)
		return -1;
	pm = hlo_attr_ints(ev->m, in, A_DIMENSIONS, &np);
	if (geo(ev, a->shape, &gi) < 0 || (int)np != gi.rank ||
	    go.rank != gi.rank || a->type != v->type)
		return bad(ev, c, i, v, "bad permutation");
	for (k = 0; k < np; k++) {
		if (pm[k] < 0 || pm[k] >= gi.rank ||
		    go.dims[k] != gi.dims[pm[k]])
			return bad(ev, c, i, v, "bad permutation");
		sstr[k] = gi.str[pm[k]];
	}
	ev_copy_nd(v->data, go.str, a->data, sstr, go.dims, go.rank, go.esz);
	*out = v;
	return 0;
}

static int
slice(HloEval *ev, uint32_t c, uint32_t i, HloVal *a, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	const HloAttr *at = hlo_attr(ev->m, in, A_SLICE);
	const int64_t *t;
	int64_t sstr[MAXR], off = 0, cnt;
	Geo go, gi;
	HloVal *v = newout(ev, in, &go);
	int d;

	if (!v)
		return -1;
	if (!at || geo(ev, a->shape, &gi) < 0 || (int)at->n != 3 * gi.rank ||
	    go.rank != gi.rank || a->type != v->type)
		return bad(ev, c, i, v, "bad slice");
	t = hlo_ints_at(ev->m, at->v);
	for (d = 0; d < gi.rank; d++) {
		int64_t s = t[3 * d], l = t[3 * d + 1], st = t[3 * d + 2];

		if (s < 0 || l > gi.dims[d] || s > l || st < 1)
			return bad(ev, c, i, v, "slice out of bounds");
		cnt = (l - s + st - 1) / st;
		if (cnt != go.dims[d])
			return bad(ev, c, i, v, "slice size differs from the "
				"result shape");
		off += s * gi.str[d];
		sstr[d] = gi.str[d] * st;
	}
	ev_copy_nd(v->data, go.str, a->data + off, sstr, go.dims, go.rank,
		go.esz);
	*out = v;
	return 0;
}

static int64_t
clampi(int64_t x, int64_t lo, int64_t hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

/* the start indices of dynamic-slice (from operand first) */
static int
starts(HloVal **ops, uint32_t nops, uint32_t first, int rank, int64_t *s)
{
	int d;

	if (nops == first + 1 && ops[first]->type < TY_TUPLE &&
	    ops[first]->n == rank && rank != 1) {
		for (d = 0; d < rank; d++)
			s[d] = ev_get_i(ops[first]->type, ops[first]->data +
				d * ev_esz(ops[first]->type));
		return 0;
	}
	if (nops != first + (uint32_t)rank)
		return -1;
	for (d = 0; d < rank; d++) {
		if (ops[first + d]->type >= TY_TUPLE || ops[first + d]->n != 1)
			return -1;
		s[d] = ev_get_i(ops[first + d]->type, ops[first + d]->data);
	}
	return 0;
}

static int
dynslice(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	int64_t s[MAXR], off = 0;
	Geo go, gi;
	HloVal *v = newout(ev, in, &go), *a = ops[0];
	int d;

	if (!v)
		return -1;
	if (geo(ev, a->shape, &gi) < 0 || go.rank != gi.rank ||
	    a->type != v->type || starts(ops, in->nops, 1, gi.rank, s) < 0)
		return bad(ev, c, i, v, "bad operands");
	for (d = 0; d < gi.rank; d++) {
		if (go.dims[d] > gi.dims[d])
			return bad(ev, c, i, v, "slice larger than operand");
		off += clampi(s[d], 0, gi.dims[d] - go.dims[d]) * gi.str[d];
	}
	ev_copy_nd(v->data, go.str, a->data + off, gi.str, go.dims, go.rank,
		go.esz);
	*out = v;
	return 0;
}

/* the operand's buffer if it may be updated in place, else a copy */
static HloVal *
mutable_copy(HloEval *ev, HloVal *a, uint32_t shape, int consumable)
{
	HloVal *v;

	if (consumable && a->refs == 1 && !a->base && a->type < TY_TUPLE) {
		a->shape = shape;
		return hlo_val_ref(a);
	}
	v = hlo_val_array(ev, shape);
	if (v)
		memcpy(v->data, a->data, v->nbytes);
	return v;
}

static int
dus(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	int64_t s[MAXR], off = 0;
	Geo go, gu;
	HloVal *a = ops[0], *u = ops[1], *v;
	int d;

	if (a->type >= TY_TUPLE || u->type != a->type ||
	    a->type != hlo_sh(ev->m, in->shape)->type ||
	    a->n != hlo_shape_elems(ev->m, in->shape))
		return ev_unsupported(ev, c, i, "bad operands");
	if (geo(ev, in->shape, &go) < 0 || geo(ev, u->shape, &gu) < 0 ||
	    go.rank != gu.rank || starts(ops, in->nops, 2, go.rank, s) < 0)
		return ev_unsupported(ev, c, i, "bad operands");
	for (d = 0; d < go.rank; d++)
		if (gu.dims[d] > go.dims[d])
			return ev_unsupported(ev, c, i, "update larger than "
				"operand");
	v = mutable_copy(ev, a, in->shape, ev->consume & 1);
	if (!v)
		return -1;
	for (d = 0; d < go.rank; d++)
		off += clampi(s[d], 0, go.dims[d] - gu.dims[d]) * go.str[d];
	ev_copy_nd(v->data + off, go.str, u->data, gu.str, gu.dims, gu.rank,
		go.esz);
	*out = v;
	return 0;
}

static int
concat(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	int64_t dim = -1, off = 0;
	const int64_t *dm;
	uint32_t nd, k;
	Geo go, ga;
	HloVal *v = newout(ev, in, &go);
	int d;

	if (!v)
		return -1;
	dm = hlo_attr_ints(ev->m, in, A_DIMENSIONS, &nd);
	if (dm && nd == 1)
		dim = dm[0];
	if (dim < 0 || dim >= go.rank)
		return bad(ev, c, i, v, "bad dimension");
	for (k = 0; k < in->nops; k++) {
		if (ops[k]->type != v->type ||
		    geo(ev, ops[k]->shape, &ga) < 0 || ga.rank != go.rank)
			return bad(ev, c, i, v, "bad operand");
		for (d = 0; d < go.rank; d++)
			if (d != dim && ga.dims[d] != go.dims[d])
				return bad(ev, c, i, v, "bad operand");
		if (ga.dims[dim] > go.dims[dim] - off)
			return bad(ev, c, i, v, "operands exceed the result");
		ev_copy_nd(v->data + off * go.str[dim], go.str, ops[k]->data,
			ga.str, ga.dims, ga.rank, go.esz);
		off += ga.dims[dim];
	}
	if (off != go.dims[dim])
		return bad(ev, c, i, v, "operands do not fill the result");
	*out = v;
	return 0;
}

static void
fill(unsigned char *p, int64_t n, const unsigned char *val, int64_t esz)
{
	int64_t k, done;

	if (n <= 0)
		return;
	memcpy(p, val, esz);
	for (done = 1; done < n; done += k) {
		k = done < n - done ? done : n - done;
		memcpy(p + done * esz, p, k * esz);
	}
}

static int64_t
cdiv(int64_t a, int64_t b)	/* ceil(a / b), b > 0 */
{
	return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

static int64_t
fdiv(int64_t a, int64_t b)	/* floor(a / b), b > 0 */
{
	return a >= 0 ? a / b : -((-a + b - 1) / b);
}

static int
pad(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	const HloAttr *at = hlo_attr(ev->m, in, A_PADDING);
	const int64_t *t;
	int64_t sstr[MAXR], dstr[MAXR], cnt[MAXR], soff = 0, doff = 0;
	Geo go, gi;
	HloVal *v = newout(ev, in, &go), *a = ops[0];
	int d;

	if (!v)
		return -1;
	if (!at || geo(ev, a->shape, &gi) < 0 || (int)at->n != 3 * gi.rank ||
	    go.rank != gi.rank || a->type != v->type ||
	    ops[1]->type != v->type || ops[1]->n != 1)
		return bad(ev, c, i, v, "bad padding");
	t = hlo_ints_at(ev->m, at->v);
	fill(v->data, v->n, ops[1]->data, go.esz);
	for (d = 0; d < gi.rank; d++) {
		int64_t lo = t[3 * d], hi = t[3 * d + 1], it = t[3 * d + 2];
		int64_t n = gi.dims[d], step, first, last;
		int64_t want = n ? lo + hi + n + (n - 1) * it : lo + hi;

		if (it < 0 || want != go.dims[d])
			return bad(ev, c, i, v, "padded size differs from the "
				"result shape");
		step = it + 1;
		first = lo < 0 ? cdiv(-lo, step) : 0;
		last = fdiv(go.dims[d] - 1 - lo, step);
		if (last > n - 1)
			last = n - 1;
		cnt[d] = last - first + 1;
		if (cnt[d] <= 0) {
			*out = v;
			return 0;
		}
		soff += first * gi.str[d];
		doff += (lo + first * step) * go.str[d];
		sstr[d] = gi.str[d];
		dstr[d] = go.str[d] * step;
	}
	ev_copy_nd(v->data + doff, dstr, a->data + soff, sstr, cnt, gi.rank,
		go.esz);
	*out = v;
	return 0;
}

/* p's first unit bytes repeated count times, by doubling copies */
static void
repeat(unsigned char *p, size_t unit, int64_t count)
{
	size_t have = unit, all = unit * (size_t)count, n;

	while (have < all) {
		n = all - have < have ? all - have : have;
		memcpy(p + have, p, n);
		have += n;
	}
}

/* each of the dims[dim] values once, repeated over its run of inner
 * elements, and that period over the outer dimensions */
static int
iota(HloEval *ev, uint32_t c, uint32_t i, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	int64_t dim = hlo_attr_int(ev->m, in, A_IOTA_DIM, 0), inner = 1, x;
	Lane l;
	Geo go;
	HloVal *v = newout(ev, in, &go);
	int d, cl;

	if (!v)
		return -1;
	if (dim < 0 || dim >= go.rank)
		return bad(ev, c, i, v, "bad iota_dimension");
	for (d = dim + 1; d < go.rank; d++)
		inner *= go.dims[d];
	cl = hlo_typeinfo[v->type].cls;
	if (v->n > 0) {
		for (x = 0; x < go.dims[dim]; x++) {
			unsigned char *p = v->data + x * inner * go.esz;

			memset(&l, 0, sizeof l);
			ev_lane_int(cl, x, &l);
			ev_lane_store(v->type, &l, 1, p);
			repeat(p, go.esz, inner);
		}
		repeat(v->data, (size_t)(go.dims[dim] * inner * go.esz),
			v->n / (go.dims[dim] * inner));
	}
	*out = v;
	return 0;
}

static int
reverse(HloEval *ev, uint32_t c, uint32_t i, HloVal *a, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	const int64_t *dm;
	uint32_t nd, k;
	int64_t sstr[MAXR], off = 0;
	Geo go;
	HloVal *v = newout(ev, in, &go);

	if (!v)
		return -1;
	if (a->type != v->type || a->n != v->n)
		return bad(ev, c, i, v, "bad operand");
	dm = hlo_attr_ints(ev->m, in, A_DIMENSIONS, &nd);
	memcpy(sstr, go.str, sizeof sstr);
	for (k = 0; k < nd; k++) {
		if (dm[k] < 0 || dm[k] >= go.rank)
			return bad(ev, c, i, v, "bad dimensions");
		if (sstr[dm[k]] < 0)
			continue;
		off += (go.dims[dm[k]] - 1) * go.str[dm[k]];
		sstr[dm[k]] = -go.str[dm[k]];
	}
	if (v->n)
		ev_copy_nd(v->data, go.str, a->data + off, sstr, go.dims,
			go.rank, go.esz);
	*out = v;
	return 0;
}

/* the physical order of a shape's dimensions, major first */
static void
physorder(const HloModule *m, uint32_t shape, int64_t *perm)
{
	const HloShape *sh = hlo_sh(m, shape);
	int d;

	for (d = 0; d < sh->rank; d++)
		perm[d] = (sh->flags & SH_LAYOUT) ?
			hlo_m2m(m, sh)[sh->rank - 1 - d] : d;
}

/* bitcast: the bytes reinterpreted physically, through both layouts:
 * the operand's as its instruction declares it (a value keeps the
 * shape it was made with, which a caller's layout may have set) */
static int
bitcast(HloEval *ev, uint32_t c, uint32_t i, HloVal *a, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	uint32_t as = hlo_ins(ev->m, c, hlo_ops(ev->m, in)[0])->shape;
	int64_t pi[MAXR], po[MAXR], dst[MAXR], src[MAXR], cnt[MAXR];
	Geo gi, go;
	HloVal *p, *v;
	int d;

	if (a->type < TY_TUPLE && (ev_tiled(ev->m, as) ||
	    ev_tiled(ev->m, in->shape)))
		return ev_bitcast_tiled(ev, c, i, a, out);
	if (a->type >= TY_TUPLE || geo(ev, as, &gi) < 0 ||
	    geo(ev, in->shape, &go) < 0 || gi.esz != go.esz ||
	    a->n != hlo_shape_elems(ev->m, in->shape) ||
	    a->n != hlo_shape_elems(ev->m, as))
		return ev_unsupported(ev, c, i, "sizes differ");
	physorder(ev->m, as, pi);
	physorder(ev->m, in->shape, po);
	if (hlo_ints_is_iota(pi, gi.rank) && hlo_ints_is_iota(po, go.rank)) {
		*out = ev_view(ev, a, in->shape);
		return 0;
	}
	p = hlo_val_array(ev, as);
	if (!p)
		return -1;
	for (d = 0; d < gi.rank; d++) {
		cnt[d] = gi.dims[pi[d]];
		src[d] = gi.str[pi[d]];
	}
	ev_strides(cnt, gi.rank, gi.esz, dst);
	ev_copy_nd(p->data, dst, a->data, src, cnt, gi.rank, gi.esz);
	v = hlo_val_array(ev, in->shape);
	if (!v) {
		hlo_val_unref(ev, p);
		return -1;
	}
	for (d = 0; d < go.rank; d++)
		cnt[d] = go.dims[po[d]];
	ev_strides(cnt, go.rank, go.esz, src);
	for (d = 0; d < go.rank; d++)
		dst[d] = go.str[po[d]];
	ev_copy_nd(v->data, dst, p->data, src, cnt, go.rank, go.esz);
	hlo_val_unref(ev, p);
	*out = v;
	return 0;
}

static int
reshape(HloEval *ev, uint32_t c, uint32_t i, HloVal *a, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);

	if (a->type >= TY_TUPLE || a->type != hlo_sh(ev->m, in->shape)->type ||
	    a->n != hlo_shape_elems(ev->m, in->shape))
		return ev_unsupported(ev, c, i, "element counts differ");
	*out = ev_view(ev, a, in->shape);
	return 0;
}

static int
getdimsize(HloEval *ev, uint32_t c, uint32_t i, HloVal *a, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	int64_t dim = hlo_attr_int(ev->m, in, A_DIMENSIONS, -1);
	const int64_t *dm;
	uint32_t nd;
	Lane l;
	HloVal *v;
	Geo gi;

	dm = hlo_attr_ints(ev->m, in, A_DIMENSIONS, &nd);
	if (dm && nd == 1)
		dim = dm[0];
	if (geo(ev, a->shape, &gi) < 0 || dim < 0 || dim >= gi.rank)
		return ev_unsupported(ev, c, i, "bad dimension");
	v = hlo_val_array(ev, in->shape);
	if (!v)
		return -1;
	if (v->n != 1 || hlo_typeinfo[v->type].cls == C_FLOAT)
		return bad(ev, c, i, v, "result is not an integer scalar");
	l.s = gi.dims[dim];
	ev_lane_store(v->type, &l, 1, v->data);
	*out = v;
	return 0;
}

int
ev_data(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);

	if (in->op != HOP_IOTA && in->op != HOP_AFTERALL &&
	    (in->nops < 1 || (in->op != HOP_OPTBARRIER &&
	    in->op != HOP_DOMAIN && in->op != HOP_ADDDEP &&
	    ops[0]->type >= TY_TUPLE)))
		return ev_unsupported(ev, c, i, "operand is not an array");
	switch (in->op) {
	case HOP_BROADCAST:
		return broadcast(ev, c, i, ops[0], out);
	case HOP_RESHAPE: case HOP_DYNRESHAPE: case HOP_COPY:
		return reshape(ev, c, i, ops[0], out);
	case HOP_BITCAST:
		return bitcast(ev, c, i, ops[0], out);
	case HOP_TRANSPOSE:
		return transpose(ev, c, i, ops[0], out);
	case HOP_SLICE:
		return slice(ev, c, i, ops[0], out);
	case HOP_DYNSLICE:
		return dynslice(ev, c, i, ops, out);
	case HOP_DYNUPDSLICE:
		return dus(ev, c, i, ops, out);
	case HOP_CONCAT:
		return concat(ev, c, i, ops, out);
	case HOP_PAD:
		return pad(ev, c, i, ops, out);
	case HOP_IOTA:
		return iota(ev, c, i, out);
	case HOP_REVERSE:
		return reverse(ev, c, i, ops[0], out);
	case HOP_GETDIMSIZE:
		return getdimsize(ev, c, i, ops[0], out);
	case HOP_SETDIMSIZE:
		return reshape(ev, c, i, ops[0], out);
	case HOP_DOMAIN: case HOP_OPTBARRIER: case HOP_ADDDEP:
		*out = hlo_val_ref(ops[0]);
		return 0;
	}
	return ev_unsupported(ev, c, i, "opcode not supported by the "
		"evaluator");
}

/* gather */

typedef struct {
	const int64_t *offd, *coll, *sim, *obd, *sibd, *ss;
	uint32_t noffd, ncoll, nsim, nobd, nsibd, nss;
	int64_t ivd;
} GatherDn;

/* a gather whose window is empty (a slice size 0) reads nothing and
 * gives zeros, as xla's simplifiers make of it */
int
ev_gather(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloModule *m = ev->m;
	const HloInstr *in = hlo_ins(m, c, i);
	HloVal *a = ops[0], *ix = ops[1], *v;
	GatherDn g;
	Geo ga, gx, go;
	int64_t wstr[MAXR], wcnt[MAXR], bdim[MAXR], bidx[MAXR], xdim[MAXR];
	int64_t bsrc[MAXR];
	int64_t s[MAXR], xstr[MAXR], off, doff, xoff, ixe;
	int nw = 0, nb = 0, d, k, q;

	g.offd = hlo_attr_list(m, in, A_OFFSET_DIMS, &g.noffd);
	g.coll = hlo_attr_list(m, in, A_COLLAPSED_SLICE_DIMS, &g.ncoll);
	g.sim = hlo_attr_list(m, in, A_START_INDEX_MAP, &g.nsim);
	g.obd = hlo_attr_list(m, in, A_OPERAND_BATCHING_DIMS, &g.nobd);
	g.sibd = hlo_attr_list(m, in, A_START_INDICES_BATCHING_DIMS, &g.nsibd);
	g.ss = hlo_attr_list(m, in, A_SLICE_SIZES, &g.nss);
	g.ivd = hlo_attr_int(m, in, A_INDEX_VECTOR_DIM, 0);
	if (a->type >= TY_TUPLE || ix->type >= TY_TUPLE ||
	    hlo_typeinfo[ix->type].cls == C_FLOAT ||
	    geo(ev, a->shape, &ga) < 0 || geo(ev, ix->shape, &gx) < 0 ||
	    (int)g.nss != ga.rank || g.ivd < 0 || g.ivd > gx.rank ||
	    g.nobd != g.nsibd)
		return ev_unsupported(ev, c, i, "bad gather dimensions");
	v = newout(ev, in, &go);
	if (!v)
		return -1;
	if (v->type != a->type)
		return bad(ev, c, i, v, "result type differs from operand");
	if (hlo_ints_has(g.ss, g.nss, 0))	/* an empty window: zeros */
		return memset(v->data, 0, (size_t)v->n * go.esz), *out = v, 0;
	/* window dims of the operand and where they land in the output */
	for (d = 0; d < ga.rank; d++) {
		if (g.ss[d] < 0 || g.ss[d] > ga.dims[d])
			return bad(ev, c, i, v, "bad slice_sizes");
		if (hlo_ints_has(g.coll, g.ncoll, d) ||
		    hlo_ints_has(g.obd, g.nobd, d)) {
			if (g.ss[d] > 1)
				return bad(ev, c, i, v, "collapsed slice size "
					"over 1");
			continue;
		}
		if (nw >= (int)g.noffd || g.offd[nw] < 0 ||
		    g.offd[nw] >= go.rank || go.dims[g.offd[nw]] != g.ss[d])
			return bad(ev, c, i, v, "offset_dims do not match");
		wstr[nw] = go.str[g.offd[nw]];
		wcnt[nw] = g.ss[d];
		xdim[nw] = d;
		nw++;
	}
	if (nw != (int)g.noffd)
		return bad(ev, c, i, v, "offset_dims do not match");
	/* batch dims of the output, in order, and their index dims */
	for (d = 0, k = 0; d < go.rank; d++) {
		if (hlo_ints_has(g.offd, g.noffd, d))
			continue;
		if (k == g.ivd)
			k++;
		if (k >= gx.rank || gx.dims[k] != go.dims[d])
			return bad(ev, c, i, v, "batch dims do not match the "
				"indices");
		bdim[nb] = d;
		xstr[nb] = gx.str[k];
		bsrc[nb] = k;
		nb++;
		k++;
	}
	ixe = g.ivd < gx.rank ? gx.dims[g.ivd] : 1;
	if (ixe != (int64_t)g.nsim)
		return bad(ev, c, i, v, "index vector size differs from "
			"start_index_map");
	for (k = 0; k < (int)g.nsim; k++)
		if (g.sim[k] < 0 || g.sim[k] >= ga.rank)
			return bad(ev, c, i, v, "bad start_index_map");
	for (k = 0; k < (int)g.nobd; k++)
		if (g.obd[k] < 0 || g.obd[k] >= ga.rank || g.sibd[k] < 0 ||
		    g.sibd[k] >= gx.rank || g.sibd[k] == g.ivd)
			return bad(ev, c, i, v, "bad batching dims");
	memset(bidx, 0, sizeof bidx);
	if (v->n == 0) {
		*out = v;
		return 0;
	}
	for (;;) {
		xoff = 0;
		doff = 0;
		for (k = 0; k < nb; k++) {
			xoff += bidx[k] * xstr[k];
			doff += bidx[k] * go.str[bdim[k]];
		}
		memset(s, 0, sizeof(int64_t) * ga.rank);
		for (k = 0; k < (int)g.nsim; k++)
			s[g.sim[k]] = ev_get_i(ix->type, ix->data + xoff +
				(g.ivd < gx.rank ? k * gx.str[g.ivd] : 0));
		for (k = 0; k < (int)g.nobd; k++)
			for (q = 0; q < nb; q++)
				if (bsrc[q] == g.sibd[k])
					s[g.obd[k]] = bidx[q];
		off = 0;
		for (d = 0; d < ga.rank; d++)
			off += clampi(s[d], 0, ga.dims[d] - g.ss[d]) *
				ga.str[d];
		{
			int64_t sstr[MAXR];

			for (k = 0; k < nw; k++)
				sstr[k] = ga.str[xdim[k]];
			ev_copy_nd(v->data + doff, wstr, a->data + off, sstr,
				wcnt, nw, go.esz);
		}
		for (k = nb - 1; k >= 0; k--) {
			if (++bidx[k] < go.dims[bdim[k]])
				break;
			bidx[k] = 0;
		}
		if (k < 0)
			break;
	}
	*out = v;
	return 0;
}
