/* eval_input.c: what surrounds an evaluation: deterministic inputs for
 * the entry parameters, the per-output report of `hlopt run`, and the
 * differential comparison of two modules behind `hlopt verify`.
 *
 * Inputs depend only on the seed, the position of each leaf among the
 * entry parameters' leaves, its type, its size and its hints, so two
 * modules with the same signature get byte-identical inputs. Hints come
 * from the users of each parameter: an integer reaching the start
 * indices of a gather, scatter, dynamic-slice or dynamic-update-slice
 * (directly or through converts, reshapes, broadcasts, slices and called
 * computations) gets values in range for that use; a float reaching a
 * log, sqrt, rsqrt, power base, divisor or batch-norm variance gets
 * positive values; a float used as a dot's rhs or a convolution's
 * kernel is scaled by 1/sqrt(fan-in), so deep networks stay finite. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "eval.h"

#define MAXVISIT 20000

typedef struct {
	const HloModule *m;
	HloUsers *users;	/* per computation, built on demand */
	uint8_t *built;
	int64_t bound;		/* smallest index bound found, 0 none */
	int positive;
	double fanin;		/* largest fan-in of a dot or convolution
				 * weight use, 0 none */
	int visits;
} Trace;

static const HloUsers *
users(Trace *t, uint32_t c)
{
	if (!t->built[c]) {
		hlo_users(t->m, c, &t->users[c]);
		t->built[c] = 1;
	}
	return &t->users[c];
}

static void
setbound(Trace *t, int64_t b)
{
	if (b < 1)
		b = 1;
	if (!t->bound || b < t->bound)
		t->bound = b;
}

static const int64_t *
dimsof(const HloModule *m, uint32_t c, uint32_t i, int *rank)
{
	const HloShape *sh = hlo_sh(m, hlo_ins(m, c, i)->shape);

	*rank = sh->type == TY_TUPLE ? 0 : sh->rank;
	return hlo_dims(m, sh);
}

/* the bound an index operand in slot k of u must respect, 0 if none */
static void
index_use(Trace *t, uint32_t c, uint32_t u, uint32_t k)
{
	const HloModule *m = t->m;
	const HloInstr *in = hlo_ins(m, c, u);
	const uint32_t *ops = hlo_ops(m, in);
	const int64_t *od, *sd, *map, *ss;
	uint32_t n, j, nmap, nss;
	int orank, srank;

	switch (in->op) {
	case HOP_DYNSLICE:
		if (k < 1)
			return;
		od = dimsof(m, c, ops[0], &orank);
		sd = dimsof(m, c, u, &srank);
		if ((int)k - 1 < orank && srank == orank)
			setbound(t, od[k - 1] - sd[k - 1] + 1);
		else if (orank)
			setbound(t, od[0]);
		return;
	case HOP_DYNUPDSLICE:
		if (k < 2)
			return;
		od = dimsof(m, c, ops[0], &orank);
		sd = dimsof(m, c, ops[1], &srank);
		if ((int)k - 2 < orank && srank == orank)
			setbound(t, od[k - 2] - sd[k - 2] + 1);
		return;
	case HOP_GATHER:
		if (k != 1)
			return;
		od = dimsof(m, c, ops[0], &orank);
		map = hlo_attr_ints(m, in, A_START_INDEX_MAP, &nmap);
		ss = hlo_attr_ints(m, in, A_SLICE_SIZES, &nss);
		for (j = 0; map && j < nmap; j++)
			if (map[j] >= 0 && map[j] < orank)
				setbound(t, od[map[j]] - (ss && map[j] <
					(int64_t)nss ? ss[map[j]] : 1) + 1);
		return;
	case HOP_SCATTER:
		n = (in->nops - 1) / 2;
		if (k != n)
			return;
		od = dimsof(m, c, ops[0], &orank);
		map = hlo_attr_ints(m, in, A_SCATTER_DIMS_TO_OPERAND_DIMS,
			&nmap);
		for (j = 0; map && j < nmap; j++)
			if (map[j] >= 0 && map[j] < orank)
				setbound(t, od[map[j]]);
		return;
	}
}

static void trace(Trace *t, uint32_t c, uint32_t i, int depth);

/* a dot's rhs or a convolution's kernel: the product of the contracting
 * dims (kernel: every dim but the output feature) */
static void
weight_use(Trace *t, uint32_t c, uint32_t u, uint32_t k)
{
	const HloModule *m = t->m;
	const HloInstr *in = hlo_ins(m, c, u);
	const int64_t *d, *cd;
	uint32_t n, j;
	const char *lab;
	int r, q;
	double f = 1;

	if (k != 1 || in->nops < 2)
		return;
	d = dimsof(m, c, hlo_ops(m, in)[1], &r);
	if (in->op == HOP_DOT) {
		cd = hlo_attr_ints(m, in, A_RHS_CONTRACT, &n);
		for (j = 0; cd && j < n; j++)
			if (cd[j] >= 0 && cd[j] < r)
				f *= d[cd[j]];
	} else if (in->op == HOP_CONV) {
		lab = hlo_attr_word(m, in, A_DIM_LABELS, &n);
		if (!lab || !memchr(lab, '_', n))
			return;
		lab = memchr(lab, '_', n) + 1;
		for (q = 0; q < r && lab[q] && lab[q] != '-'; q++)
			if (lab[q] != 'o')
				f *= d[q];
	} else {
		return;
	}
	if (f > t->fanin)
		t->fanin = f;
}

static void
float_use(Trace *t, int op, uint32_t k)
{
	switch (op) {
	case HOP_LOG: case HOP_SQRT: case HOP_RSQRT: case HOP_LOG1P:
		t->positive = 1;
		break;
	case HOP_POWER:
		if (k == 0)
			t->positive = 1;
		break;
	case HOP_DIVIDE: case HOP_REMAINDER:
		if (k == 1)
			t->positive = 1;
		break;
	case HOP_BNINFER:
		if (k == 4)
			t->positive = 1;
		break;
	case HOP_BNGRAD:
		if (k == 3)
			t->positive = 1;
		break;
	}
}

static void
into_callee(Trace *t, uint32_t c, uint32_t u, uint32_t k, int depth)
{
	const HloModule *m = t->m;
	const HloInstr *in = hlo_ins(m, c, u);
	uint32_t callee, p;

	if (in->ncalled < 1)
		return;
	callee = hlo_called(m, in)[0];
	if (callee >= m->ncomps)
		return;
	p = hlo_param(m, callee, k);
	if (p != HLO_NONE)
		trace(t, callee, p, depth + 1);
}

static void
trace(Trace *t, uint32_t c, uint32_t i, int depth)
{
	const HloUsers *us;
	const HloInstr *in;
	uint32_t j, u, k, n;

	if (depth > 24 || ++t->visits > MAXVISIT)
		return;
	us = users(t, c);
	for (j = us->start[i]; j < us->start[i + 1]; j++) {
		u = us->list[j];
		in = hlo_ins(t->m, c, u);
		n = in->nops;
		for (k = 0; k < n; k++) {
			if (hlo_ops(t->m, in)[k] != i)
				continue;
			index_use(t, c, u, k);
			float_use(t, in->op, k);
			weight_use(t, c, u, k);
			switch (in->op) {
			case HOP_CONVERT: case HOP_RESHAPE: case HOP_BITCAST:
			case HOP_COPY: case HOP_BROADCAST: case HOP_TRANSPOSE:
			case HOP_SLICE: case HOP_CONCAT: case HOP_REVERSE:
			case HOP_DYNRESHAPE: case HOP_CLAMP:
				trace(t, c, u, depth + 1);
				break;
			case HOP_FUSION: case HOP_CALL: case HOP_ASYNCSTART:
				into_callee(t, c, u, k, depth);
				break;
			}
		}
	}
}

static uint32_t
leaves(const HloModule *m, uint32_t s)
{
	const HloShape *sh = hlo_sh(m, s);
	uint32_t n = 0, k;

	if (sh->type != TY_TUPLE)
		return 1;
	for (k = 0; k < sh->ntuple; k++)
		n += leaves(m, hlo_tuple_elems(m, sh)[k]);
	return n;
}

void
hlo_eval_hints(const HloModule *m, HloInputHints *h)
{
	uint32_t e = m->entry, p, np, leaf = 0, i;
	Trace t;

	memset(h, 0, sizeof *h);
	if (e >= m->ncomps)
		return;
	np = hlo_param_count(m, e);
	for (p = 0; p < np; p++) {
		i = hlo_param(m, e, p);
		if (i != HLO_NONE)
			h->n += leaves(m, hlo_ins(m, e, i)->shape);
	}
	h->bound = xcalloc(h->n + 1, sizeof *h->bound);
	h->positive = xcalloc(h->n + 1, 1);
	h->scale = xcalloc(h->n + 1, sizeof *h->scale);
	for (i = 0; i < h->n; i++)
		h->scale[i] = 1;
	memset(&t, 0, sizeof t);
	t.m = m;
	t.users = xcalloc(m->ncomps + 1, sizeof *t.users);
	t.built = xcalloc(m->ncomps + 1, 1);
	for (p = 0; p < np; p++) {
		i = hlo_param(m, e, p);
		if (i == HLO_NONE)
			continue;
		if (hlo_sh(m, hlo_ins(m, e, i)->shape)->type == TY_TUPLE) {
			leaf += leaves(m, hlo_ins(m, e, i)->shape);
			continue;
		}
		t.bound = 0;
		t.positive = 0;
		t.fanin = 0;
		t.visits = 0;
		trace(&t, e, i, 0);
		h->bound[leaf] = t.bound;
		h->positive[leaf] = t.positive;
		if (t.fanin > 1)
			h->scale[leaf] = 1 / sqrt(t.fanin);
		leaf++;
	}
	for (i = 0; i < m->ncomps; i++)
		if (t.built[i])
			hlo_users_free(&t.users[i]);
	free(t.users);
	free(t.built);
}

void
hlo_eval_hints_merge(HloInputHints *h, const HloInputHints *o)
{
	uint32_t k;

	for (k = 0; k < h->n && k < o->n; k++) {
		if (o->bound[k] && (!h->bound[k] || o->bound[k] < h->bound[k]))
			h->bound[k] = o->bound[k];
		h->positive[k] |= o->positive[k];
		if (o->scale[k] < h->scale[k])
			h->scale[k] = o->scale[k];
	}
}

void
hlo_eval_hints_free(HloInputHints *h)
{
	free(h->bound);
	free(h->positive);
	free(h->scale);
	memset(h, 0, sizeof *h);
}

static void
fill_leaf(HloVal *v, uint64_t seed, int64_t bound, int positive,
	double scale)
{
	int cl = hlo_typeinfo[v->type].cls;
	uint64_t s = seed, r;
	Lane l[EV_CHUNK];
	int64_t k, j, w;

	if (bound <= 0 || (cl != C_SINT && cl != C_UINT)) {
		ev_fill_random(v->type, v->data, v->n, seed, positive ?
			FILL_POSITIVE : FILL_SMALL);
		if (cl != C_FLOAT || scale == 1 || positive)
			return;
		for (k = 0; k < v->n; k += w) {
			w = v->n - k < EV_CHUNK ? v->n - k : EV_CHUNK;
			ev_lane_load(v->type, v->data + k * ev_esz(v->type), w, l);
			for (j = 0; j < w; j++)
				l[j].f *= scale;
			ev_lane_store(v->type, l, w, v->data + k *
				ev_esz(v->type));
		}
		return;
	}
	for (k = 0; k < v->n; k += w) {
		w = v->n - k < EV_CHUNK ? v->n - k : EV_CHUNK;
		for (j = 0; j < w; j++) {
			s += 0x9e3779b97f4a7c15ull;
			r = ev_mix64(s);
			l[j].u = r % (uint64_t)bound;
		}
		ev_lane_store(v->type, l, w, v->data + k * ev_esz(v->type));
	}
}

static HloVal *
make_input(HloEval *ev, uint32_t shape, uint64_t seed,
	const HloInputHints *h, uint32_t *leaf)
{
	const HloShape *sh = hlo_sh(ev->m, shape);
	HloVal *v;
	uint32_t k, at;

	if (sh->type == TY_TUPLE) {
		v = hlo_val_tuple(ev, shape);
		for (k = 0; k < v->n; k++) {
			v->elems[k] = make_input(ev, hlo_tuple_elems(ev->m,
				hlo_sh(ev->m, shape))[k], seed, h, leaf);
			if (!v->elems[k]) {
				hlo_val_unref(ev, v);
				return NULL;
			}
		}
		return v;
	}
	at = (*leaf)++;
	v = hlo_val_array(ev, shape);
	if (v && v->type < TY_TUPLE)
		fill_leaf(v, ev_mix64(seed ^ ev_mix64(at + 1)),
			at < h->n ? h->bound[at] : 0,
			at < h->n ? h->positive[at] : 0,
			at < h->n ? h->scale[at] : 1);
	return v;
}

int
hlo_eval_inputs(HloEval *ev, uint64_t seed, const HloInputHints *h,
	HloVal ***args, uint32_t *nargs)
{
	const HloModule *m = ev->m;
	uint32_t e = m->entry, p, np, leaf = 0, i;
	HloVal **a;

	*args = NULL;
	*nargs = 0;
	if (e >= m->ncomps)
		return ev_fail(ev, EV_BAD, "module has no entry computation");
	np = hlo_param_count(m, e);
	a = xcalloc(np + 1, sizeof *a);
	for (p = 0; p < np; p++) {
		i = hlo_param(m, e, p);
		if (i == HLO_NONE) {
			hlo_eval_free_args(ev, a, np);
			return ev_fail(ev, EV_BAD, "entry parameter %u is "
				"missing", p);
		}
		a[p] = make_input(ev, hlo_ins(m, e, i)->shape, seed, h, &leaf);
		if (!a[p]) {
			hlo_eval_free_args(ev, a, np);
			return -1;
		}
	}
	*args = a;
	*nargs = np;
	return 0;
}

void
hlo_eval_free_args(HloEval *ev, HloVal **args, uint32_t nargs)
{
	uint32_t k;

	for (k = 0; args && k < nargs; k++)
		hlo_val_unref(ev, args[k]);
	free(args);
}

/* the report */

typedef struct {
	uint64_t sum;
	double min, max, mean;
	int64_t nonfinite, finite;
} Stats;

static void
stats(const HloVal *v, Stats *s)
{
	int cl = hlo_typeinfo[v->type].cls, b = hlo_typeinfo[v->type].bits;
	int64_t k, j, w, esz = ev_esz(v->type);
	Lane l[EV_CHUNK];
	double x, total = 0;
	unsigned char byte;

	memset(s, 0, sizeof *s);
	s->sum = 1469598103934665603ull;
	for (k = 0; k < v->n * esz; k++) {
		byte = v->data[k];
		if (b < 8)
			byte &= (1u << b) - 1;
		s->sum = (s->sum ^ byte) * 1099511628211ull;
	}
	for (k = 0; k < v->n; k += w) {
		w = v->n - k < EV_CHUNK ? v->n - k : EV_CHUNK;
		ev_lane_load(v->type, v->data + k * esz, w, l);
		for (j = 0; j < w; j++) {
			switch (cl) {
			case C_FLOAT: x = l[j].f; break;
			case C_CPLX: x = isfinite(l[j].c[1]) ? l[j].c[0] :
				NAN; break;
			case C_SINT: x = (double)l[j].s; break;
			default: x = (double)l[j].u;
			}
			if (!isfinite(x)) {
				s->nonfinite++;
				continue;
			}
			if (!s->finite || x < s->min)
				s->min = x;
			if (!s->finite || x > s->max)
				s->max = x;
			total += x;
			s->finite++;
		}
	}
	s->mean = s->finite ? total / s->finite : 0;
}

static void
report_leaf(HloEval *ev, const HloVal *v, int64_t *idx, int json,
	HloBuf *b)
{
	HloBuf sh = {0};
	Stats s;
	int64_t k;

	if (v->type == TY_TUPLE) {
		for (k = 0; k < v->n; k++)
			report_leaf(ev, v->elems[k], idx, json, b);
		return;
	}
	hlo_print_shape(ev->m, v->shape, &sh);
	if (v->type >= TY_TUPLE) {
		if (json)
			hlo_buf_printf(b, "%s{\"index\":%lld,\"shape\":\"%s\"}",
				*idx ? "," : "", (long long)*idx,
				sh.buf ? sh.buf : "");
		else
			hlo_buf_printf(b, "output %lld: %s\n", (long long)*idx,
				sh.buf ? sh.buf : "");
		hlo_buf_free(&sh);
		(*idx)++;
		return;
	}
	stats(v, &s);
	if (json) {
		hlo_buf_printf(b, "%s{\"index\":%lld,\"shape\":\"%s\","
			"\"count\":%lld,\"checksum\":\"%016llx\",",
			*idx ? "," : "", (long long)*idx, sh.buf ? sh.buf : "",
			(long long)v->n, (unsigned long long)s.sum);
		if (s.finite)
			hlo_buf_printf(b, "\"min\":%.9g,\"max\":%.9g,"
				"\"mean\":%.9g,", s.min, s.max, s.mean);
		else
			hlo_buf_puts(b, "\"min\":null,\"max\":null,"
				"\"mean\":null,");
		hlo_buf_printf(b, "\"nonfinite\":%lld}",
			(long long)s.nonfinite);
	} else {
		hlo_buf_printf(b, "output %lld: %s count=%lld checksum=%016llx",
			(long long)*idx, sh.buf ? sh.buf : "", (long long)v->n,
			(unsigned long long)s.sum);
		if (s.finite)
			hlo_buf_printf(b, " min=%.9g max=%.9g mean=%.9g",
				s.min, s.max, s.mean);
		hlo_buf_printf(b, " nonfinite=%lld\n",
			(long long)s.nonfinite);
	}
	hlo_buf_free(&sh);
	(*idx)++;
}

void
hlo_eval_report(HloEval *ev, const HloVal *out, int json, HloBuf *b)
{
	int64_t idx = 0;

	if (json)
		hlo_buf_puts(b, "{\"outputs\":[");
	report_leaf(ev, out, &idx, json, b);
	if (json)
		hlo_buf_puts(b, "]}\n");
}

/* comparison */

static int
shape_eq(const HloModule *a, uint32_t sa, const HloModule *b, uint32_t sb)
{
	const HloShape *x = hlo_sh(a, sa), *y = hlo_sh(b, sb);
	uint32_t k;

	if (x->type != y->type)
		return 0;
	if (x->type == TY_TUPLE) {
		if (x->ntuple != y->ntuple)
			return 0;
		for (k = 0; k < x->ntuple; k++)
			if (!shape_eq(a, hlo_tuple_elems(a, x)[k], b,
			    hlo_tuple_elems(b, y)[k]))
				return 0;
		return 1;
	}
	return x->rank == y->rank && (!x->rank || !memcmp(hlo_dims(a, x),
		hlo_dims(b, y), x->rank * sizeof(int64_t)));
}

static void
shapetext(const HloModule *m, uint32_t s, char *buf, size_t n)
{
	HloBuf b = {0};

	hlo_print_shape(m, s, &b);
	snprintf(buf, n, "%s", b.buf ? b.buf : "?");
	hlo_buf_free(&b);
}

/* 1 if the entry computations take and return the same shapes (layouts
 * aside); else 0 with the reason in why */
int
hlo_eval_signature_eq(const HloModule *a, const HloModule *b, char *why,
	size_t n)
{
	uint32_t ea = a->entry, eb = b->entry, p, ia, ib;
	int na, nb;
	char x[256], y[256];

	if (ea >= a->ncomps || eb >= b->ncomps) {
		snprintf(why, n, "a module has no entry computation");
		return 0;
	}
	na = hlo_param_count(a, ea);
	nb = hlo_param_count(b, eb);
	if (na != nb) {
		snprintf(why, n, "entry parameter counts differ: %d vs %d", na,
			nb);
		return 0;
	}
	for (p = 0; p < (uint32_t)na; p++) {
		ia = hlo_param(a, ea, p);
		ib = hlo_param(b, eb, p);
		if (ia == HLO_NONE || ib == HLO_NONE ||
		    !shape_eq(a, hlo_ins(a, ea, ia)->shape, b,
		    hlo_ins(b, eb, ib)->shape)) {
			if (ia != HLO_NONE && ib != HLO_NONE) {
				shapetext(a, hlo_ins(a, ea, ia)->shape, x,
					sizeof x);
				shapetext(b, hlo_ins(b, eb, ib)->shape, y,
					sizeof y);
			} else {
				strcpy(x, "?");
				strcpy(y, "?");
			}
			snprintf(why, n, "entry parameter %u differs: %s vs %s",
				p, x, y);
			return 0;
		}
	}
	ia = a->comps[ea].root;
	ib = b->comps[eb].root;
	if (ia >= a->comps[ea].nins || ib >= b->comps[eb].nins ||
	    !shape_eq(a, hlo_ins(a, ea, ia)->shape, b,
	    hlo_ins(b, eb, ib)->shape)) {
		snprintf(why, n, "entry result shapes differ");
		return 0;
	}
	return 1;
}

void
hlo_eval_tolerance(int type, double rtol, double atol, double *r, double *a)
{
	double fr = 0, fa = 0;

	switch (type) {
	case TY_F64: case TY_F32: case TY_C64: case TY_C128:
		break;
	case TY_F16:
		fr = 1e-2;
		fa = 1e-3;
		break;
	case TY_BF16:
		fr = 3e-2;
		fa = 1e-2;
		break;
	default:
		fr = 0.25;
		fa = 0.1;
	}
	*r = rtol > fr ? rtol : fr;
	*a = atol > fa ? atol : fa;
}

static int
feq(double x, double y, double r, double a)
{
	if (isnan(x) || isnan(y))
		return isnan(x) && isnan(y);
	if (isinf(x) || isinf(y))
		return x == y;
	return fabs(x - y) <= a + r * fabs(y);
}

static void
fmtlane(int type, const Lane *l, char *buf, size_t n)
{
	switch (hlo_typeinfo[type].cls) {
	case C_FLOAT:
		snprintf(buf, n, "%.9g", l->f);
		break;
	case C_CPLX:
		snprintf(buf, n, "(%.9g, %.9g)", l->c[0], l->c[1]);
		break;
	case C_SINT:
		snprintf(buf, n, "%lld", (long long)l->s);
		break;
	default:
		snprintf(buf, n, "%llu", (unsigned long long)l->u);
	}
}

/* compares two array values of one type; the index of the first
 * difference or -1 */
static int64_t
diff_arrays(const HloVal *x, const HloVal *y, const HloVerifyOpts *o,
	Lane *lx, Lane *ly)
{
	int cl = hlo_typeinfo[x->type].cls;
	int64_t k, j, w, esz = ev_esz(x->type);
	Lane a[EV_CHUNK], b[EV_CHUNK];
	double r = 0, at = 0;
	int eq;

	if (!o->exact)
		hlo_eval_tolerance(x->type, o->rtol, o->atol, &r, &at);
	for (k = 0; k < x->n; k += w) {
		w = x->n - k < EV_CHUNK ? x->n - k : EV_CHUNK;
		ev_lane_load(x->type, x->data + k * esz, w, a);
		ev_lane_load(y->type, y->data + k * esz, w, b);
		for (j = 0; j < w; j++) {
			switch (cl) {
			case C_FLOAT:
				eq = feq(a[j].f, b[j].f, r, at);
				break;
			case C_CPLX:
				eq = feq(a[j].c[0], b[j].c[0], r, at) &&
					feq(a[j].c[1], b[j].c[1], r, at);
				break;
			default:
				eq = a[j].u == b[j].u;
			}
			if (!eq) {
				*lx = a[j];
				*ly = b[j];
				return k + j;
			}
		}
	}
	return -1;
}

static int
compare_vals(const HloVal *x, const HloVal *y, const HloVerifyOpts *o,
	int64_t *idx, HloVerifyResult *r)
{
	int64_t k, e;
	Lane a, b;

	if (x->type == TY_TUPLE) {
		for (k = 0; k < x->n; k++)
			if (compare_vals(x->elems[k], y->elems[k], o, idx, r))
				return 1;
		return 0;
	}
	if (x->type >= TY_TUPLE) {
		(*idx)++;
		return 0;
	}
	e = x->type == y->type && x->n == y->n ? diff_arrays(x, y, o, &a,
		&b) : 0;
	if (e >= 0) {
		r->verdict = 1;
		r->output = *idx;
		r->elem = e;
		r->type = x->type;
		if (x->type != y->type || x->n != y->n) {
			snprintf(r->a, sizeof r->a, "?");
			snprintf(r->b, sizeof r->b, "?");
		} else {
			fmtlane(x->type, &a, r->a, sizeof r->a);
			fmtlane(y->type, &b, r->b, sizeof r->b);
		}
		return 1;
	}
	(*idx)++;
	return 0;
}

static int
run_one(const HloModule *m, const HloVerifyOpts *o, uint64_t seed,
	const HloInputHints *h, HloEval *ev, HloError *e, HloVal **out)
{
	HloVal **args;
	uint32_t nargs;
	int r;

	hlo_eval_init(ev, m, o->limit, e);
	if (o->maxsteps)
		ev->maxsteps = o->maxsteps;
	if (o->threads > 0 && o->threads <= EV_MAX_THREADS)
		ev->threads = o->threads;
	if (hlo_eval_inputs(ev, seed, h, &args, &nargs) < 0)
		return -1;
	r = hlo_eval_entry(ev, args, nargs, out);
	hlo_eval_free_args(ev, args, nargs);
	return r;
}

static int
noeval(HloVerifyResult *r, const char *which, HloEval *ev, HloError *e)
{
	r->verdict = ev->status == EV_NOEVAL ? 3 : 4;
	snprintf(r->msg, sizeof r->msg, "%s: %.900s", which, e->msg);
	return r->verdict;
}

int
hlo_eval_verify(const HloModule *a, const HloModule *b,
	const HloVerifyOpts *o, HloVerifyResult *r)
{
	HloInputHints ha, hb;
	HloEval ea, eb;
	HloError e;
	HloVal *oa = NULL, *ob = NULL;
	int t, trials = o->trials > 0 ? o->trials : 1;
	uint64_t seed;
	int64_t idx;

	memset(r, 0, sizeof *r);
	r->output = -1;
	r->elem = -1;
	if (!hlo_eval_signature_eq(a, b, r->msg, sizeof r->msg)) {
		r->verdict = 1;
		return 1;
	}
	hlo_eval_hints(a, &ha);
	hlo_eval_hints(b, &hb);
	hlo_eval_hints_merge(&ha, &hb);
	for (t = 0; t < trials && !r->verdict; t++) {
		seed = ev_mix64(o->seed + 0x51ed270b27a3d5c1ull * (t + 1));
		if (run_one(a, o, seed, &ha, &ea, &e, &oa) < 0) {
			noeval(r, "first module", &ea, &e);
			hlo_eval_fini(&ea);
			break;
		}
		if (run_one(b, o, seed, &ha, &eb, &e, &ob) < 0) {
			noeval(r, "second module", &eb, &e);
			hlo_val_unref(&ea, oa);
			hlo_eval_fini(&ea);
			hlo_eval_fini(&eb);
			break;
		}
		idx = 0;
		if (compare_vals(oa, ob, o, &idx, r)) {
			r->trial = t;
			snprintf(r->msg, sizeof r->msg, "output %lld element "
				"%lld differs in trial %d: %s vs %s",
				(long long)r->output, (long long)r->elem, t,
				r->a, r->b);
		}
		hlo_val_unref(&ea, oa);
		hlo_val_unref(&eb, ob);
		hlo_eval_fini(&ea);
		hlo_eval_fini(&eb);
	}
	hlo_eval_hints_free(&ha);
	hlo_eval_hints_free(&hb);
	return r->verdict;
}

int
hlo_parse_u64(const char *s, int suffix, uint64_t *v)
{
	uint64_t x = 0, mul = 1;
	const char *p = s;

	if (!*p)
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (x > (UINT64_MAX - (*p - '0')) / 10)
			return -1;
		x = x * 10 + (*p - '0');
	}
	if (p == s)
		return -1;
	if (suffix && *p) {
		switch (*p) {
		case 'k': case 'K': mul = (uint64_t)1 << 10; break;
		case 'm': case 'M': mul = (uint64_t)1 << 20; break;
		case 'g': case 'G': mul = (uint64_t)1 << 30; break;
		case 't': case 'T': mul = (uint64_t)1 << 40; break;
		default: return -1;
		}
		p++;
		if (*p == 'i' && p[1] == 'B')
			p += 2;
		else if (*p == 'B')
			p++;
	}
	if (*p || (x && mul > UINT64_MAX / x))
		return -1;
	*v = x * mul;
	return 0;
}
