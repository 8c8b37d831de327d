/* eval_input.c: what surrounds an evaluation: deterministic inputs for
 * the entry parameters, the per-output report of `hlopt run`, and the
 * differential comparison of two modules behind `hlopt verify`.
 *
 * Inputs depend only on the seed, the position of each leaf among the
 * entry parameters' leaves, its type, its size, its hints and the
 * distribution asked for, so two modules given the same hints get
 * byte-identical inputs. Hints come from the live users of each
 * parameter: an integer reaching the start indices of a gather, scatter,
 * dynamic-slice or dynamic-update-slice (directly or through converts,
 * reshapes, broadcasts, slices and called computations) gets values in
 * range for that use; a float reaching a log, sqrt, rsqrt, power base,
 * divisor or batch-norm variance, also through elementwise arithmetic
 * (trace() below), gets positive values (or negative ones through a
 * negation); a float used as a dot's rhs or a convolution's kernel is
 * scaled by 1/sqrt(fan-in), so deep networks stay finite; the matrix of
 * a triangular-solve or cholesky is made diagonally dominant, so that the
 * system is well conditioned (a random unit triangular 256x256 matrix has
 * solutions up to 1e13, where any two correct orders of summation
 * differ) and a cholesky's matrix is positive definite. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "eval.h"

/* the analysis walks forward from each entry parameter over (computation,
 * instruction, sign, through-arithmetic) states, each visited once per
 * parameter: data movement keeps the state; add, multiply, maximum,
 * minimum, select, divide's dividend, reduce and the like keep the sign
 * but mark the walk as through arithmetic (index bounds and weight scales
 * then no longer apply); negate and subtract's subtrahend flip the sign;
 * a square (multiply of a value by itself), abs or exp stop it. A value
 * reaching an operand that must be positive (log, sqrt, rsqrt, a power's
 * base, a divisor, a variance) asks for a positive parameter at sign +1
 * and a negative one at -1. Called computations are entered (fusion, call,
 * async) and left again at their root. Only instructions that reach the
 * root count, so deleting dead code does not change the inputs. */

typedef struct {
	uint32_t c, i;
	uint8_t neg, arith;
	uint32_t rc, ru;	/* call site to return to, rc = -1: none */
} Item;

typedef struct {
	const HloModule *m;
	HloUsers *users;	/* per computation, built on demand */
	uint8_t *built;
	uint8_t **live;		/* per computation: reaches the root */
	uint32_t **mark;	/* per computation: 4 states per
				 * instruction, stamp of the last visit */
	uint32_t stamp;
	Item *stack;
	uint32_t nstack, capstack;
	int64_t bound;		/* smallest index bound found, 0 none */
	int positive, negative;
	double fanin;		/* largest fan-in of a dot or convolution
				 * weight use, 0 none */
	const HloShape *psh;	/* the parameter's shape */
	int64_t matrix;		/* size of a linear-algebra matrix use, 0
				 * none */
	int bits;		/* reaches a sparse dot's metadata */
} Trace;

static const HloUsers *
users(Trace *t, uint32_t c)
{
	const HloModule *m = t->m;
	uint32_t n = m->comps[c].nins, *st, top = 0, i, k;
	const HloInstr *in;
	uint8_t *lv;

	if (t->built[c])
		return &t->users[c];
	hlo_users(m, c, &t->users[c]);
	t->built[c] = 1;
	lv = t->live[c] = xcalloc(n + 1, 1);
	t->mark[c] = xcalloc(4 * (size_t)n + 1, sizeof **t->mark);
	st = xreallocarray(NULL, n + 1, sizeof *st);
	for (i = 0; i < n; i++) {
		in = hlo_ins(m, c, i);
		if (!(in->flags & HI_DEAD) && (i == m->comps[c].root ||
		    (hlo_opinfo[in->op].flags & OPF_SIDE))) {
			lv[i] = 1;
			st[top++] = i;
		}
	}
	while (top) {
		in = hlo_ins(m, c, st[--top]);
		for (k = 0; k < in->nops; k++) {
			i = hlo_ops(m, in)[k];
			if (i < n && !lv[i]) {
				lv[i] = 1;
				st[top++] = i;
			}
		}
	}
	free(st);
	return &t->users[c];
}

static void
push(Trace *t, uint32_t c, uint32_t i, int neg, int arith, uint32_t rc,
	uint32_t ru)
{
	uint32_t *mk;

	users(t, c);
	mk = &t->mark[c][4 * i + 2 * neg + arith];
	if (*mk == t->stamp)
		return;
	*mk = t->stamp;
	if (t->nstack == t->capstack) {
		t->capstack = t->capstack ? 2 * t->capstack : 64;
		t->stack = xreallocarray(t->stack, t->capstack,
			sizeof *t->stack);
	}
	t->stack[t->nstack++] = (Item){c, i, (uint8_t)neg, (uint8_t)arith,
		rc, ru};
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

/* operand 0 of a triangular-solve or cholesky with the parameter's own
 * dims (reached by data movement alone): a square matrix to condition;
 * a sparse dot's metadata operand: every bit random */
static void
matrix_use(Trace *t, uint32_t c, uint32_t u, uint32_t k)
{
	const HloModule *m = t->m;
	const HloInstr *in = hlo_ins(m, c, u);
	const int64_t *d;
	int r;

	if (in->op == HOP_DOT && k >= 2)
		t->bits = 1;	/* sparse dot metadata: packed indices */
	if (k != 0 || (in->op != HOP_TRISOLVE && in->op != HOP_CHOLESKY))
		return;
	d = dimsof(m, c, hlo_ops(m, in)[0], &r);
	if (r < 2 || d[r - 1] != d[r - 2] || r != t->psh->rank ||
	    memcmp(d, hlo_dims(m, t->psh), (size_t)r * sizeof *d))
		return;
	t->matrix = d[r - 1];
}

/* operand k of op must be positive */
static int
needs_positive(int op, uint32_t k)
{
	switch (op) {
	case HOP_LOG: case HOP_SQRT: case HOP_RSQRT: case HOP_LOG1P:
		return 1;
	case HOP_POWER:
		return k == 0;
	case HOP_DIVIDE: case HOP_REMAINDER:
		return k == 1;
	case HOP_BNINFER:
		return k == 4;
	case HOP_BNGRAD:
		return k == 3;
	}
	return 0;
}

/* how a value in operand k of u passes to u's result: 0 not at all, 1
 * unchanged (data movement), 2 through arithmetic with its sign, 3 with
 * its sign flipped */
static int
passes(const HloModule *m, const HloInstr *u, uint32_t k)
{
	const uint32_t *ops = hlo_ops(m, u);

	switch (u->op) {
	case HOP_CONVERT: case HOP_RESHAPE: case HOP_BITCAST: case HOP_COPY:
	case HOP_BROADCAST: case HOP_TRANSPOSE: case HOP_SLICE:
	case HOP_CONCAT: case HOP_REVERSE: case HOP_DYNRESHAPE:
	case HOP_CLAMP: case HOP_OPTBARRIER:
		return 1;
	case HOP_DYNSLICE: case HOP_GATHER: case HOP_PAD:
		return k == 0 ? 1 : 0;
	case HOP_DYNUPDSLICE:
		return k < 2 ? 1 : 0;
	case HOP_SELECT:
		return k > 0 ? 1 : 0;
	case HOP_ADD: case HOP_MAX: case HOP_MIN: case HOP_REDUCE:
	case HOP_REDUCEWINDOW:
		return 2;
	case HOP_MUL:
		return u->nops == 2 && ops[0] == ops[1] ? 0 : 2;
	case HOP_DIVIDE:
		return k == 0 ? 2 : 0;
	case HOP_SUBTRACT:
		return k == 0 ? 2 : 3;
	case HOP_NEGATE:
		return 3;
	}
	return 0;
}

static void
into_callee(Trace *t, const Item *it, uint32_t u, uint32_t k)
{
	const HloModule *m = t->m;
	const HloInstr *in = hlo_ins(m, it->c, u);
	uint32_t callee, p;

	if (in->ncalled < 1)
		return;
	callee = hlo_called(m, in)[0];
	if (callee >= m->ncomps)
		return;
	p = hlo_param(m, callee, k);
	if (p != HLO_NONE)
		push(t, callee, p, it->neg, it->arith, it->c, u);
}

/* the value of it reaches its computation's root: on to the users of the
 * call site (through get-tuple-element of a tuple root's slot) */
static void
leave(Trace *t, const Item *it, uint32_t slot)
{
	const HloModule *m = t->m;
	const HloUsers *us;
	const HloInstr *g;
	uint32_t j;

	if (it->rc == UINT32_MAX)
		return;
	if (slot == UINT32_MAX) {
		push(t, it->rc, it->ru, it->neg, it->arith, UINT32_MAX, 0);
		return;
	}
	us = users(t, it->rc);
	for (j = us->start[it->ru]; j < us->start[it->ru + 1]; j++) {
		g = hlo_ins(m, it->rc, us->list[j]);
		if (g->op == HOP_GTE && g->num == (int64_t)slot)
			push(t, it->rc, us->list[j], it->neg, it->arith,
				UINT32_MAX, 0);
	}
}

static void
visit(Trace *t, const Item *it)
{
	const HloModule *m = t->m;
	const HloUsers *us = users(t, it->c);
	const HloInstr *in;
	uint32_t j, u, k, root = m->comps[it->c].root;
	int p;

	if (it->i == root)
		leave(t, it, UINT32_MAX);
	for (j = us->start[it->i]; j < us->start[it->i + 1]; j++) {
		u = us->list[j];
		if (!t->live[it->c][u])
			continue;
		in = hlo_ins(m, it->c, u);
		for (k = 0; k < in->nops; k++) {
			if (hlo_ops(m, in)[k] != it->i)
				continue;
			if (!it->arith) {
				index_use(t, it->c, u, k);
				weight_use(t, it->c, u, k);
				matrix_use(t, it->c, u, k);
			}
			if (needs_positive(in->op, k)) {
				if (it->neg)
					t->negative = 1;
				else
					t->positive = 1;
			}
			if (u == root && in->op == HOP_TUPLE)
				leave(t, it, k);
			switch (in->op) {
			case HOP_FUSION: case HOP_CALL: case HOP_ASYNCSTART:
				into_callee(t, it, u, k);
				continue;
			}
			p = passes(m, in, k);
			if (p)
				push(t, it->c, u, p == 3 ? !it->neg : it->neg,
					it->arith || p > 1, it->rc, it->ru);
		}
	}
}

static void
trace(Trace *t, uint32_t c, uint32_t i)
{
	Item it;

	t->stamp++;
	t->nstack = 0;
	push(t, c, i, 0, 0, UINT32_MAX, 0);
	while (t->nstack) {
		it = t->stack[--t->nstack];
		visit(t, &it);
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
	h->matrix = xcalloc(h->n + 1, sizeof *h->matrix);
	h->bits = xcalloc(h->n + 1, 1);
	for (i = 0; i < h->n; i++)
		h->scale[i] = 1;
	memset(&t, 0, sizeof t);
	t.m = m;
	t.users = xcalloc(m->ncomps + 1, sizeof *t.users);
	t.built = xcalloc(m->ncomps + 1, 1);
	t.live = xcalloc(m->ncomps + 1, sizeof *t.live);
	t.mark = xcalloc(m->ncomps + 1, sizeof *t.mark);
	for (p = 0; p < np; p++) {
		i = hlo_param(m, e, p);
		if (i == HLO_NONE)
			continue;
		if (hlo_sh(m, hlo_ins(m, e, i)->shape)->type == TY_TUPLE) {
			leaf += leaves(m, hlo_ins(m, e, i)->shape);
			continue;
		}
		t.bound = 0;
		t.positive = t.negative = 0;
		t.fanin = 0;
		t.matrix = 0;
		t.bits = 0;
		t.psh = hlo_sh(m, hlo_ins(m, e, i)->shape);
		trace(&t, e, i);
		h->bound[leaf] = t.bound;
		h->positive[leaf] = t.positive ? EV_POSITIVE : t.negative ?
			EV_NEGATIVE : EV_ANY;
		if (t.fanin > 1)
			h->scale[leaf] = 1 / sqrt(t.fanin);
		h->matrix[leaf] = t.matrix;
		h->bits[leaf] = (uint8_t)t.bits;
		leaf++;
	}
	for (i = 0; i < m->ncomps; i++)
		if (t.built[i]) {
			hlo_users_free(&t.users[i]);
			free(t.live[i]);
			free(t.mark[i]);
		}
	free(t.users);
	free(t.built);
	free(t.live);
	free(t.mark);
	free(t.stack);
}

void
hlo_eval_hints_merge(HloInputHints *h, const HloInputHints *o)
{
	uint32_t k;

	for (k = 0; k < h->n && k < o->n; k++) {
		if (o->bound[k] && (!h->bound[k] || o->bound[k] < h->bound[k]))
			h->bound[k] = o->bound[k];
		if (o->positive[k] == EV_POSITIVE || !h->positive[k])
			h->positive[k] = o->positive[k];
		if (o->scale[k] < h->scale[k])
			h->scale[k] = o->scale[k];
		if (!h->matrix[k])
			h->matrix[k] = o->matrix[k];
		h->bits[k] |= o->bits[k];
	}
}

void
hlo_eval_hints_free(HloInputHints *h)
{
	free(h->bound);
	free(h->positive);
	free(h->scale);
	free(h->matrix);
	free(h->bits);
	memset(h, 0, sizeof *h);
}

/* a leaf's values: sign EV_ANY, EV_POSITIVE or EV_NEGATIVE, times scale */
static void
fill_leaf(HloVal *v, uint64_t seed, int64_t bound, int sign, double scale)
{
	int cl = hlo_typeinfo[v->type].cls;
	uint64_t s = seed, r;
	Lane l[EV_CHUNK];
	int64_t k, j, w;

	if (bound <= 0 || (cl != C_SINT && cl != C_UINT)) {
		ev_fill_random(v->type, v->data, v->n, seed, sign ?
			FILL_POSITIVE : FILL_SMALL);
		if (cl != C_FLOAT || (scale == 1 && sign != EV_NEGATIVE))
			return;
		for (k = 0; k < v->n; k += w) {
			w = v->n - k < EV_CHUNK ? v->n - k : EV_CHUNK;
			ev_lane_load(v->type, v->data + k * ev_esz(v->type), w, l);
			for (j = 0; j < w; j++)
				l[j].f *= sign == EV_NEGATIVE ? -scale : scale;
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

/* a matrix leaf of square minor dims size x size made diagonally
 * dominant: the diagonal's magnitudes in [1, 2) (negative for a negative
 * leaf; complex diagonals real), every other value divided by size, so a
 * row's off-diagonal sum stays below 1 */
static void
condition(HloVal *v, int64_t size, int sign)
{
	int cl = hlo_typeinfo[v->type].cls;
	Lane l[EV_CHUNK];
	int64_t k, j, w, at;
	double d, *x;

	if (cl != C_FLOAT && cl != C_CPLX)
		return;
	for (k = 0; k < v->n; k += w) {
		w = v->n - k < EV_CHUNK ? v->n - k : EV_CHUNK;
		ev_lane_load(v->type, v->data + k * ev_esz(v->type), w, l);
		for (j = 0; j < w; j++) {
			at = (k + j) % (size * size);
			x = cl == C_CPLX ? l[j].c : &l[j].f;
			if (at / size != at % size) {
				x[0] /= size;
				if (cl == C_CPLX)
					x[1] /= size;
				continue;
			}
			d = 1 + fabs(x[0]);
			x[0] = sign == EV_NEGATIVE ? -d : d;
			if (cl == C_CPLX)
				x[1] = 0;
		}
		ev_lane_store(v->type, l, w, v->data + k * ev_esz(v->type));
	}
}

/* the distribution dist applied to a leaf's hints */
static void
leaf_dist(const HloInputHints *h, uint32_t at, int dist, int64_t *bound,
	int *sign, double *scale)
{
	*bound = at < h->n ? h->bound[at] : 0;
	*sign = at < h->n ? h->positive[at] : EV_ANY;
	*scale = at < h->n ? h->scale[at] : 1;
	switch (dist) {
	case EV_DIST_SMALL:
		*scale *= 0.1;
		break;
	case EV_DIST_POSITIVE:
		if (*sign == EV_ANY)
			*sign = EV_POSITIVE;
		break;
	case EV_DIST_TINY:
		if (*sign == EV_ANY)
			*sign = EV_POSITIVE;
		*scale *= 0.1;
		break;
	}
}

static HloVal *
make_input(HloEval *ev, uint32_t shape, uint64_t seed,
	const HloInputHints *h, int dist, uint32_t *leaf)
{
	const HloShape *sh = hlo_sh(ev->m, shape);
	HloVal *v;
	uint32_t k, at;
	int64_t bound;
	int sign;
	double scale;

	if (sh->type == TY_TUPLE) {
		v = hlo_val_tuple(ev, shape);
		for (k = 0; k < v->n; k++) {
			v->elems[k] = make_input(ev, hlo_tuple_elems(ev->m,
				hlo_sh(ev->m, shape))[k], seed, h, dist, leaf);
			if (!v->elems[k]) {
				hlo_val_unref(ev, v);
				return NULL;
			}
		}
		return v;
	}
	at = (*leaf)++;
	v = hlo_val_array(ev, shape);
	leaf_dist(h, at, dist, &bound, &sign, &scale);
	if (v && v->type < TY_TUPLE) {
		fill_leaf(v, ev_mix64(seed ^ ev_mix64(at + 1)), bound, sign,
			scale);
		if (at < h->n && h->matrix[at] > 0)
			condition(v, h->matrix[at], sign);
		if (at < h->n && h->bits[at] && !bound &&
		    hlo_typeinfo[v->type].cls == C_UINT)
			ev_fill_random(v->type, v->data, v->n, ev_mix64(seed ^
				ev_mix64(at + 1)), FILL_BITS);
	}
	return v;
}

int
ev_inputs(HloEval *ev, uint64_t seed, const HloInputHints *h, int dist,
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
		a[p] = make_input(ev, hlo_ins(m, e, i)->shape, seed, h, dist,
			&leaf);
		if (!a[p]) {
			hlo_eval_free_args(ev, a, np);
			return -1;
		}
	}
	*args = a;
	*nargs = np;
	return 0;
}

int
hlo_eval_inputs(HloEval *ev, uint64_t seed, const HloInputHints *h,
	HloVal ***args, uint32_t *nargs)
{
	return ev_inputs(ev, seed, h, EV_DIST_HINTS, args, nargs);
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
