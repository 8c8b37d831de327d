/* eval_verify.c: the differential check of two modules (ev_verify),
 * behind `hlopt verify`, `optimize --verify` and `search`.
 *
 * Both modules run on the same inputs, drawn from the hints of the first
 * module (the original) unless the caller passes its own. When the first
 * module's outputs are not all finite, the trial is retried with other
 * input distributions (ev_inputs' EV_DIST_*) and the one with the fewest
 * non-finite elements is kept. Per output it counts the elements compared
 * on finite values, the mismatches beyond tolerance, the largest absolute
 * and relative errors and the non-finite elements on each side; an
 * output non-finite somewhere in every trial makes the verdict
 * "partially verified", never "equal". On a difference, ev_verify can
 * look for the first instruction of the first module whose value differs
 * from the instruction of the same name in the second. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "eval.h"

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
		    !hlo_shape_eq_across(a, hlo_ins(a, ea, ia)->shape, b,
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
	    !hlo_shape_eq_across(a, hlo_ins(a, ea, ia)->shape, b,
	    hlo_ins(b, eb, ib)->shape)) {
		snprintf(why, n, "entry result shapes differ");
		return 0;
	}
	return 1;
}

/* the per-type defaults */
static void
type_floor(int type, double *r, double *a)
{
	switch (type) {
	case TY_F64: case TY_F32: case TY_C64: case TY_C128:
		*r = EV_VERIFY_RTOL;
		*a = EV_VERIFY_ATOL;
		break;
	case TY_F16:
		*r = 1e-2;
		*a = 1e-3;
		break;
	case TY_BF16:
		*r = 3e-2;
		*a = 1e-2;
		break;
	default:
		*r = 0.25;
		*a = 0.1;
	}
}

void
ev_tolerance(int type, double rtol, double atol, double *r, double *a)
{
	double fr, fa;

	type_floor(type, &fr, &fa);
	*r = rtol >= 0 ? rtol : fr;
	*a = atol >= 0 ? atol : fa;
}

void
hlo_eval_tolerance(int type, double rtol, double atol, double *r, double *a)
{
	double fr, fa;

	type_floor(type, &fr, &fa);
	if (type == TY_F64 || type == TY_F32 || type == TY_C64 ||
	    type == TY_C128)
		fr = fa = 0;
	*r = rtol > fr ? rtol : fr;
	*a = atol > fa ? atol : fa;
}

const char *
ev_verdict_name(int verdict)
{
	static const char *const names[] = {
#define X(id, name) name,
		EV_VERDICTS(X)
#undef X
	};

	return verdict >= 0 && verdict < EV_NVERDICTS ? names[verdict] : "?";
}

const char *
ev_verify_verdict(const EvVerifyReport *r)
{
	if (r->excess && r->verdict == EV_EQUAL)
		return "equal (excess precision)";
	if (r->excess && r->verdict == EV_PARTIAL)
		return "partially verified (excess precision)";
	return ev_verdict_name(r->verdict);
}

void
ev_verify_defaults(EvVerifyOpts *o)
{
	memset(o, 0, sizeof *o);
	o->trials = EV_VERIFY_TRIALS;
	o->rtol = -1;
	o->atol = -1;
	o->limit = EV_DEFAULT_LIMIT;
	o->retries = EV_VERIFY_RETRIES;
	o->locate = 1;
	o->excess = 1;
}

void
ev_verify_free(EvVerifyReport *r)
{
	free(r->outputs);
	r->outputs = NULL;
	r->noutputs = 0;
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

/* elements [k, k + w) of an array value (a splat repeats its first) */
static void
load(const HloVal *v, int64_t k, int64_t w, Lane *l)
{
	int64_t esz = ev_esz(v->type), j;

	if (!v->splat) {
		ev_lane_load(v->type, v->data + k * esz, w, l);
		return;
	}
	ev_lane_load(v->type, v->data, 1, l);
	for (j = 1; j < w; j++)
		l[j] = l[0];
}

/* output values of the two modules (x the first), and, for the
 * allowance for sum rounding, the same with every f32 add-reduction
 * accumulated in double and rounded to nearest (sx, sy), down (dx, dy)
 * and up (ux, uy); NULL: none */
typedef struct {
	const HloVal *x, *y, *sx, *sy;
	const HloVal *dx, *ux, *dy, *uy;	/* sums rounded down, up */
} Vals;

/* one element pair: finite on both sides (or an integer)? */
typedef struct {
	double rt, at;
	int exact;
	int64_t compared, mismatches, nfa, nfb, first;
	int64_t rounding;	/* matched only within sum rounding */
	double max_abs, max_rel;
	Lane fa, fb;
} Cmp;

/* an element's allowance for the rounding of f32 sums. A legal change
 * of summation order (tree_reduction_rewriter, reassociation; xla leaves
 * a reduction's order unspecified) changes every f32 sum by its
 * accumulation error and by the rounding of the partial sums it stores
 * (a reduce-window's, a reduce's result), up to a unit in the last
 * place. Both are measured on each module: x64 is x with every f32
 * add-reduction accumulated in double and rounded once, so |x - x64| is
 * the effect of the first module's accumulation errors; xd and xu are
 * the same with every sum's result rounded down and up instead, so
 * |xd - xu| is the effect of one unit in the last place of every sum,
 * which an output amplifies when it cancels (a dot of layer-normed
 * activations). Each can turn into as much again on the other side. */
#define SUM_SLACK 2.0

typedef struct {
	double x64, y64, spread;	/* spread: max(|xd - xu|, |yd - yu|) */
} Sums;

static int
cmp_float(Cmp *c, double x, double y, const Sums *s)
{
	int fx = isfinite(x), fy = isfinite(y);
	double d, tol, sl;

	c->nfa += !fx;
	c->nfb += !fy;
	if (!fx || !fy) {
		if (c->exact)
			c->compared++;
		return (isnan(x) && isnan(y)) || x == y;
	}
	c->compared++;
	d = fabs(x - y);
	if (d > c->max_abs)
		c->max_abs = d;
	if (x != 0 && d / fabs(x) > c->max_rel)
		c->max_rel = d / fabs(x);
	else if (x == 0 && d > 0)
		c->max_rel = INFINITY;
	tol = c->at + c->rt * fabs(y);
	if (d <= tol)
		return 1;
	if (!s)
		return 0;
	sl = SUM_SLACK * fmax(fmax(fabs(x - s->x64), fabs(y - s->y64)),
		s->spread);
	if (isfinite(sl) && d <= tol + sl) {
		c->rounding++;
		return 1;
	}
	return 0;
}

/* the allowance of part p (0 real, 1 imaginary) of element j of a chunk;
 * l[0..5]: the chunks of sx, sy, dx, ux, dy, uy */
static const Sums *
sums(Sums *s, Lane l[6][EV_CHUNK], int64_t j, int cplx, int p)
{
	double v[6];
	int k;

	for (k = 0; k < 6; k++)
		v[k] = cplx ? l[k][j].c[p] : l[k][j].f;
	s->x64 = v[0];
	s->y64 = v[1];
	s->spread = fmax(fabs(v[2] - v[3]), fabs(v[4] - v[5]));
	if (s->spread != s->spread)
		s->spread = 0;
	return s;
}

/* compares two arrays of one type and element count into c, with the
 * allowance for sum rounding when v has the runs it needs */
static void
cmp_arrays(Cmp *c, const Vals *v)
{
	const HloVal *x = v->x, *y = v->y;
	const HloVal *sv[6] = {v->sx, v->sy, v->dx, v->ux, v->dy, v->uy};
	int cl = hlo_typeinfo[x->type].cls, eq, q, all = 1;
	int64_t k, j, w;
	Lane a[EV_CHUNK], b[EV_CHUNK], l[6][EV_CHUNK];
	double d;
	Sums s, *sp;

	for (q = 0; q < 6; q++)
		all &= sv[q] && sv[q]->type == x->type && sv[q]->n == x->n;
	for (k = 0; k < x->n; k += w) {
		w = x->n - k < EV_CHUNK ? x->n - k : EV_CHUNK;
		load(x, k, w, a);
		load(y, k, w, b);
		for (q = 0; all && q < 6; q++)
			load(sv[q], k, w, l[q]);
		for (j = 0; j < w; j++) {
			switch (cl) {
			case C_FLOAT:
				sp = all ? &s : NULL;
				eq = cmp_float(c, a[j].f, b[j].f, sp ?
					sums(sp, l, j, 0, 0) : NULL);
				break;
			case C_CPLX:
				sp = all ? &s : NULL;
				eq = cmp_float(c, a[j].c[0], b[j].c[0], sp ?
					sums(sp, l, j, 1, 0) : NULL);
				eq &= cmp_float(c, a[j].c[1], b[j].c[1], sp ?
					sums(sp, l, j, 1, 1) : NULL);
				break;
			default:
				c->compared++;
				eq = a[j].u == b[j].u;
				d = cl == C_SINT ? fabs((double)a[j].s -
					(double)b[j].s) : fabs((double)a[j].u -
					(double)b[j].u);
				if (d > c->max_abs)
					c->max_abs = d;
			}
			if (!eq && c->mismatches++ == 0) {
				c->first = k + j;
				c->fa = a[j];
				c->fb = b[j];
			}
		}
	}
}

/* the largest finite magnitude of a float value */
static double
max_magnitude(const HloVal *v)
{
	int cl = hlo_typeinfo[v->type].cls;
	int64_t k, j, w;
	Lane l[EV_CHUNK];
	double m = 0, x;

	for (k = 0; k < v->n; k += w) {
		w = v->n - k < EV_CHUNK ? v->n - k : EV_CHUNK;
		load(v, k, w, l);
		for (j = 0; j < w; j++) {
			x = cl == C_CPLX ? fabs(l[j].c[0]) + fabs(l[j].c[1]) :
				fabs(l[j].f);
			if (isfinite(x) && x > m)
				m = x;
		}
	}
	return m;
}

/* the tolerances for comparing x (the first module's value) with
 * another: the default absolute one shrinks with x's largest magnitude
 * below 1 (down to 1/1000 of it), so that outputs much smaller than one
 * are not compared against an absolute floor as large as themselves */
static void
cmp_init(Cmp *c, const HloVal *x, const EvVerifyOpts *o, int floors)
{
	int cl = hlo_typeinfo[x->type].cls;
	double m;

	memset(c, 0, sizeof *c);
	c->first = -1;
	c->exact = o->exact;
	if (o->exact)
		return;
	if (floors) {
		hlo_eval_tolerance(x->type, o->rtol, o->atol, &c->rt, &c->at);
		return;
	}
	ev_tolerance(x->type, o->rtol, o->atol, &c->rt, &c->at);
	if (o->atol < 0 && (cl == C_FLOAT || cl == C_CPLX)) {
		m = max_magnitude(x);
		c->at *= m > 1 ? 1 : m < 1e-3 ? 1e-3 : m;
	}
}

/* the output leaves of the first module's entry, in order */
static void
add_outputs(EvVerifyReport *r, const HloModule *m, uint32_t s)
{
	const HloShape *sh = hlo_sh(m, s);
	EvOutputCheck *oc;
	uint32_t k;

	if (sh->type == TY_TUPLE) {
		for (k = 0; k < sh->ntuple; k++)
			add_outputs(r, m, hlo_tuple_elems(m, sh)[k]);
		return;
	}
	r->outputs = xreallocarray(r->outputs, r->noutputs + 1,
		sizeof *r->outputs);
	oc = &r->outputs[r->noutputs];
	memset(oc, 0, sizeof *oc);
	oc->index = r->noutputs++;
	shapetext(m, s, oc->shape, sizeof oc->shape);
	oc->type = sh->type;
	oc->count = sh->type < TY_TUPLE ? hlo_shape_elems(m, s) : 0;
	oc->first_trial = -1;
	oc->first_elem = -1;
}

/* compares output leaf values */
static void
check_leaf(EvOutputCheck *oc, const Vals *v, const EvVerifyOpts *o,
	int floors, int trial)
{
	const HloVal *x = v->x, *y = v->y;
	Cmp c;

	if (x->type >= TY_TUPLE) {
		oc->finite_trials++;
		return;
	}
	cmp_init(&c, x, o, floors);
	oc->rtol = c.rt;
	oc->atol = c.at;
	if (x->type != y->type || x->n != y->n) {
		c.mismatches = x->n ? x->n : 1;
		c.first = 0;
		memset(&c.fa, 0, sizeof c.fa);
		memset(&c.fb, 0, sizeof c.fb);
	} else {
		cmp_arrays(&c, v);
	}
	oc->compared += c.compared;
	oc->rounding += c.rounding;
	oc->nonfinite_a += c.nfa;
	oc->nonfinite_b += c.nfb;
	if (c.max_abs > oc->max_abs)
		oc->max_abs = c.max_abs;
	if (c.max_rel > oc->max_rel)
		oc->max_rel = c.max_rel;
	if (o->exact || (!c.nfa && !c.nfb))
		oc->finite_trials++;
	if (!c.mismatches)
		return;
	if (!oc->mismatches) {
		oc->first_trial = trial;
		oc->first_elem = c.first;
		if (x->type != y->type || x->n != y->n) {
			snprintf(oc->a, sizeof oc->a, "?");
			snprintf(oc->b, sizeof oc->b, "?");
		} else {
			fmtlane(x->type, &c.fa, oc->a, sizeof oc->a);
			fmtlane(y->type, &c.fb, oc->b, sizeof oc->b);
		}
	}
	oc->mismatches += c.mismatches;
}

/* element k of tuple t, NULL if t is not a tuple that long */
static const HloVal *
elem(const HloVal *t, int64_t k)
{
	return t && t->type == TY_TUPLE && k < t->n ? t->elems[k] : NULL;
}

static void
check_vals(EvVerifyReport *r, const Vals *v, const EvVerifyOpts *o,
	int floors, int trial, uint32_t *leaf)
{
	Vals e;
	int64_t k;

	if (v->x->type == TY_TUPLE) {
		for (k = 0; k < v->x->n; k++) {
			if (v->y->type != TY_TUPLE || k >= v->y->n)
				return;
			e.x = v->x->elems[k];
			e.y = v->y->elems[k];
			e.sx = elem(v->sx, k);
			e.sy = elem(v->sy, k);
			e.dx = elem(v->dx, k);
			e.ux = elem(v->ux, k);
			e.dy = elem(v->dy, k);
			e.uy = elem(v->uy, k);
			check_vals(r, &e, o, floors, trial, leaf);
		}
		return;
	}
	if (*leaf < r->noutputs)
		check_leaf(&r->outputs[*leaf], v, o, floors, trial);
	(*leaf)++;
}

/* non-finite float elements of a value */
static int64_t
nonfinite(const HloVal *v)
{
	int cl = hlo_typeinfo[v->type < TY_TUPLE ? v->type : TY_PRED].cls;
	int64_t k, j, w, n = 0;
	Lane l[EV_CHUNK];

	if (v->type == TY_TUPLE) {
		for (k = 0; k < v->n; k++)
			n += nonfinite(v->elems[k]);
		return n;
	}
	if (v->type >= TY_TUPLE || (cl != C_FLOAT && cl != C_CPLX))
		return 0;
	for (k = 0; k < v->n; k += w) {
		w = v->n - k < EV_CHUNK ? v->n - k : EV_CHUNK;
		load(v, k, w, l);
		for (j = 0; j < w; j++)
			n += cl == C_FLOAT ? !isfinite(l[j].f) :
				!isfinite(l[j].c[0]) || !isfinite(l[j].c[1]);
	}
	return n;
}

void
ev_verify_limits(HloEval *ev, const EvVerifyOpts *o)
{
	if (o->maxsteps)
		ev->maxsteps = o->maxsteps;
	if (o->maxelems)
		ev->maxelems = o->maxelems;
	if (o->maxflops > 0)
		ev->maxflops = o->maxflops;
}

/* one evaluation of m on the inputs (seed, dist); ev stays initialised
 * (hlo_eval_fini after *out is released) */
typedef void Hook(void *ctx, uint32_t ins, HloVal *v);

static int
run_hooked(const HloModule *m, const EvVerifyOpts *o, uint64_t seed,
	int dist, const HloInputHints *h, HloEval *ev, HloError *e,
	HloVal **out, Hook *hook, void *ctx, int acc64)
{
	HloVal **args;
	uint32_t nargs;
	int r;

	*out = NULL;
	hlo_eval_init(ev, m, o->limit, e);
	ev_verify_limits(ev, o);
	if (o->threads > 0 && o->threads <= EV_MAX_THREADS)
		ev->threads = o->threads;
	ev->hook = hook;
	ev->hookctx = ctx;
	ev->acc64 = acc64;
	if (ev_inputs(ev, seed, h, dist, &args, &nargs) < 0)
		return -1;
	r = hlo_eval_entry(ev, args, nargs, out);
	hlo_eval_free_args(ev, args, nargs);
	ev->hook = NULL;
	return r;
}

static int
run_one(const HloModule *m, const EvVerifyOpts *o, uint64_t seed, int dist,
	const HloInputHints *h, HloEval *ev, HloError *e, HloVal **out)
{
	return run_hooked(m, o, seed, dist, h, ev, e, out, NULL, NULL, 0);
}

static int
failed(EvVerifyReport *r, const char *which, HloEval *ev, HloError *e)
{
	r->verdict = ev->status == EV_NOEVAL ? EV_NOT_EVALUABLE : EV_FAILED;
	snprintf(r->msg, sizeof r->msg, "%s: %.900s", which, e->msg);
	return r->verdict;
}

static uint64_t
dist_seed(uint64_t seed, int dist)
{
	return dist ? ev_mix64(seed + 0x2545f4914f6cdd1dull * dist) : seed;
}

/* the first module on the inputs of trial seed: the distribution with the
 * fewest non-finite outputs, tried in order while some remain. On
 * success ea[*which] holds *out and the other context is finished. */
static int
run_first(const HloModule *a, const EvVerifyOpts *o, uint64_t seed,
	const HloInputHints *h, HloEval ea[2], int *which, int *dist,
	HloVal **out, EvVerifyReport *r)
{
	HloError e[2];
	HloVal *v;
	int64_t nf, best = -1;
	int d, cur = 0, retries = o->retries < EV_NDIST ? o->retries :
		EV_NDIST - 1;

	*out = NULL;
	for (d = 0; d <= retries; d++) {
		r->evaluations++;
		if (run_one(a, o, dist_seed(seed, d), d, h, &ea[cur], &e[cur],
		    &v) < 0) {
			if (d == 0) {
				hlo_eval_fini(&ea[cur]);
				return failed(r, o->name_a ? o->name_a :
					"first module", &ea[cur], &e[cur]);
			}
			hlo_eval_fini(&ea[cur]);
			break;	/* keep the best so far */
		}
		nf = nonfinite(v);
		if (best < 0 || nf < best) {
			if (*out) {
				hlo_val_unref(&ea[!cur], *out);
				hlo_eval_fini(&ea[!cur]);
			}
			*out = v;
			*which = cur;
			*dist = d;
			best = nf;
			cur = !cur;
		} else {
			hlo_val_unref(&ea[cur], v);
			hlo_eval_fini(&ea[cur]);
		}
		if (best == 0)
			break;
	}
	return 0;
}

static void locate(const HloModule *a, const HloModule *b,
	const EvVerifyOpts *o, const HloInputHints *h, uint64_t seed,
	int dist, EvDivergence *dv);

static void
finish(EvVerifyReport *r)
{
	uint32_t k;
	EvOutputCheck *oc;

	for (k = 0; k < r->noutputs; k++) {
		oc = &r->outputs[k];
		oc->verdict = oc->mismatches ? EV_DIFFERENT : oc->finite_trials ?
			EV_EQUAL : EV_PARTIAL;
		if (oc->verdict == EV_DIFFERENT && r->first_output < 0)
			r->first_output = k;
		if (oc->verdict == EV_DIFFERENT)
			r->verdict = EV_DIFFERENT;
		else if (oc->verdict == EV_PARTIAL && r->verdict == EV_EQUAL)
			r->verdict = EV_PARTIAL;
	}
	if (r->first_output >= 0) {
		oc = &r->outputs[r->first_output];
		snprintf(r->msg, sizeof r->msg, "output %lld element %lld "
			"differs in trial %d: %s vs %s",
			(long long)r->first_output, (long long)oc->first_elem,
			oc->first_trial, oc->a, oc->b);
	} else if (r->verdict == EV_PARTIAL) {
		for (k = 0; k < r->noutputs; k++)
			if (r->outputs[k].verdict == EV_PARTIAL)
				break;
		oc = &r->outputs[k];
		snprintf(r->msg, sizeof r->msg, "output %lld (%s) is "
			"non-finite in every trial (%lld of %lld element "
			"comparisons on finite values)", (long long)k,
			oc->shape, (long long)oc->compared,
			(long long)(oc->count * r->trials));
	}
}

/* whether some float or complex output has mismatches */
static int
float_mismatch(const EvVerifyReport *r)
{
	uint32_t k;
	int cl;

	for (k = 0; k < r->noutputs; k++) {
		cl = r->outputs[k].type < TY_TUPLE ?
			hlo_typeinfo[r->outputs[k].type].cls : C_PRED;
		if (r->outputs[k].mismatches && (cl == C_FLOAT || cl == C_CPLX))
			return 1;
	}
	return 0;
}

/* a trial whose float outputs differ: both modules run again on its
 * inputs with every f32 add-reduction accumulated in double, rounded to
 * nearest, down and up, and the trial is compared anew (from the state
 * saved before it) with the allowance for the rounding of sums
 * (cmp_float) */
static void
recheck_sums(EvVerifyReport *r, const EvOutputCheck *saved,
	const HloModule *a, const HloModule *b, const EvVerifyOpts *o,
	int floors, const HloInputHints *h, uint64_t seed, int dist, int t,
	const HloVal *oa, const HloVal *ob)
{
	HloEval ev[6];
	HloError e;
	HloVal *out[6] = {NULL};
	Vals v;
	uint32_t leaf = 0;
	int k, n, ok = 1;

	/* a, b to nearest; a, b down; a, b up */
	for (n = 0; ok && n < 6; n++) {
		r->evaluations++;
		ok = run_hooked(n % 2 ? b : a, o, seed, dist, h, &ev[n], &e,
			&out[n], NULL, NULL, 1 + n / 2) == 0;
	}
	if (ok) {
		memcpy(r->outputs, saved, r->noutputs * sizeof *saved);
		v.x = oa;
		v.y = ob;
		v.sx = out[0];
		v.sy = out[1];
		v.dx = out[2];
		v.dy = out[3];
		v.ux = out[4];
		v.uy = out[5];
		check_vals(r, &v, o, floors, t, &leaf);
	}
	for (k = 0; k < n; k++) {
		hlo_val_unref(&ev[k], out[k]);
		hlo_eval_fini(&ev[k]);
	}
}

/* trial t on the inputs of seed: 0, 1 when the outputs differ, -1 when
 * a module cannot be evaluated (r says why) */
static int
trial(const HloModule *a, const HloModule *b, const EvVerifyOpts *o,
	int floors, const HloInputHints *h, int t, uint64_t *dseed,
	int *dist, EvVerifyReport *r, EvOutputCheck *saved)
{
	HloEval ea[2], eb;
	HloError e;
	HloVal *oa, *ob;
	Vals v;
	uint64_t seed = ev_mix64(o->seed + 0x51ed270b27a3d5c1ull * (t + 1));
	uint32_t leaf = 0;
	int which = 0, rc = 0;

	if (run_first(a, o, seed, h, ea, &which, dist, &oa, r))
		return -1;
	if (t < 8)
		r->dist[t] = *dist;
	if (run_one(b, o, dist_seed(seed, *dist), *dist, h, &eb, &e,
	    &ob) < 0) {
		failed(r, o->name_b ? o->name_b : "second module", &eb, &e);
		hlo_val_unref(&ea[which], oa);
		hlo_eval_fini(&ea[which]);
		hlo_eval_fini(&eb);
		return -1;
	}
	r->trials++;
	memcpy(saved, r->outputs, r->noutputs * sizeof *saved);
	v.x = oa;
	v.y = ob;
	memset(&v, 0, sizeof v);
	v.x = oa;
	v.y = ob;
	check_vals(r, &v, o, floors, t, &leaf);
	if (!o->exact && (o->rtol != 0 || o->atol != 0) && float_mismatch(r))
		recheck_sums(r, saved, a, b, o, floors, h, dist_seed(seed,
			*dist), *dist, t, oa, ob);
	hlo_val_unref(&ea[which], oa);
	hlo_val_unref(&eb, ob);
	hlo_eval_fini(&ea[which]);
	hlo_eval_fini(&eb);
	for (leaf = 0; leaf < r->noutputs; leaf++)
		if (r->outputs[leaf].mismatches)
			break;
	if (leaf < r->noutputs) {
		*dseed = dist_seed(seed, *dist);
		rc = 1;
	}
	return rc;
}

static int verify(const HloModule *a, const HloModule *b,
	const EvVerifyOpts *o, int floors, const HloInputHints *hin,
	EvVerifyReport *r);

/* the strict comparison found a difference: b against a's
 * excess-precision reference (ev_excess_module), on the same inputs (a's
 * hints h). When it matches, its report replaces r's and says so;
 * otherwise r keeps the strict report, its message extended. */
static void
excess(const HloModule *a, const HloModule *b, const EvVerifyOpts *o,
	int floors, const HloInputHints *h, EvVerifyReport *r)
{
	EvVerifyOpts xo = *o;
	EvVerifyReport xr;
	HloModule *x;
	int64_t n;
	char msg[sizeof r->msg];
	size_t k;

	x = ev_excess_module(a, &n);
	r->round_trips = n;
	if (!x)
		return;
	xo.excess = 0;
	xo.locate = 0;
	verify(x, b, &xo, floors, h, &xr);
	hlo_module_free(x);
	if (xr.verdict == EV_EQUAL || xr.verdict == EV_PARTIAL) {
		snprintf(msg, sizeof msg, "%s", r->msg);
		xr.evaluations += r->evaluations;
		ev_verify_free(r);
		*r = xr;
		r->excess = 1;
		r->round_trips = n;
		snprintf(r->strict, sizeof r->strict, "%s", msg);
		return;
	}
	r->evaluations += xr.evaluations;
	k = strlen(r->msg);
	snprintf(r->msg + k, sizeof r->msg - k, "; with %lld convert round "
		"trips exact (excess precision): %s", (long long)n,
		xr.verdict == EV_DIFFERENT ? xr.msg : ev_verdict_name(
		xr.verdict));
	ev_verify_free(&xr);
}

static int
verify(const HloModule *a, const HloModule *b, const EvVerifyOpts *o,
	int floors, const HloInputHints *hin, EvVerifyReport *r)
{
	HloInputHints own;
	const HloInputHints *h = hin;
	EvOutputCheck *saved;
	int t, dist = 0, trials = o->trials > 0 ? o->trials : 1;
	uint64_t dseed = 0;

	memset(r, 0, sizeof *r);
	r->first_output = -1;
	r->div.found = -1;
	r->round_trips = -1;
	r->seed = o->seed;
	if (!hlo_eval_signature_eq(a, b, r->msg, sizeof r->msg))
		return r->verdict = EV_DIFFERENT;
	add_outputs(r, a, hlo_ins(a, a->entry, a->comps[a->entry].root)->shape);
	if (!h) {
		hlo_eval_hints(a, &own);
		h = &own;
	}
	saved = xcalloc(r->noutputs + 1, sizeof *saved);
	for (t = 0; t < trials; t++)
		if (trial(a, b, o, floors, h, t, &dseed, &dist, r, saved))
			break;
	free(saved);
	if (r->verdict == EV_EQUAL) {
		finish(r);
		if (r->verdict == EV_DIFFERENT && o->excess)
			excess(a, b, o, floors, h, r);
		if (r->verdict == EV_DIFFERENT && o->locate)
			locate(a, b, o, h, dseed, dist, &r->div);
	}
	if (h == &own)
		hlo_eval_hints_free(&own);
	return r->verdict;
}

int
ev_verify(const HloModule *a, const HloModule *b, const EvVerifyOpts *o,
	EvVerifyReport *r)
{
	return verify(a, b, o, 0, o->hints, r);
}

/* the older interface: per-type floors, hints of both modules merged */
int
hlo_eval_verify(const HloModule *a, const HloModule *b,
	const HloVerifyOpts *o, HloVerifyResult *r)
{
	EvVerifyOpts vo;
	EvVerifyReport vr;
	HloInputHints ha, hb;
	const EvOutputCheck *oc;
	int v;

	ev_verify_defaults(&vo);
	vo.trials = o->trials;
	vo.seed = o->seed;
	vo.rtol = o->rtol;
	vo.atol = o->atol;
	vo.limit = o->limit;
	vo.exact = o->exact;
	vo.maxsteps = o->maxsteps;
	vo.threads = o->threads;
	vo.locate = 0;
	vo.excess = 0;
	memset(r, 0, sizeof *r);
	r->output = -1;
	r->elem = -1;
	hlo_eval_hints(a, &ha);
	hlo_eval_hints(b, &hb);
	hlo_eval_hints_merge(&ha, &hb);
	v = verify(a, b, &vo, 1, &ha, &vr);
	hlo_eval_hints_free(&ha);
	hlo_eval_hints_free(&hb);
	snprintf(r->msg, sizeof r->msg, "%s", vr.msg);
	switch (v) {
	case EV_EQUAL: case EV_PARTIAL:
		r->verdict = 0;
		break;
	case EV_DIFFERENT:
		r->verdict = 1;
		if (vr.first_output < 0)
			break;
		oc = &vr.outputs[vr.first_output];
		r->output = vr.first_output;
		r->elem = oc->first_elem;
		r->trial = oc->first_trial;
		r->type = oc->type;
		snprintf(r->a, sizeof r->a, "%s", oc->a);
		snprintf(r->b, sizeof r->b, "%s", oc->b);
		break;
	case EV_NOT_EVALUABLE:
		r->verdict = 3;
		break;
	default:
		r->verdict = 4;
	}
	ev_verify_free(&vr);
	return r->verdict;
}

/* the first divergence: the values of the instructions of the first
 * module's entry computation against those of the same name (and the
 * same dims and type) in the second's, in the first module's evaluation
 * order, both modules run on the inputs of the trial that differed.
 * The second module's matched values are held while the first runs, up
 * to a budget of bytes; past it, further rounds take the next ones. */

#define LOCATE_ROUNDS 4

typedef struct {
	const HloModule *a, *b;
	const EvVerifyOpts *o;
	int32_t *amap, *bmap;	/* instruction -> slot, -1 none */
	HloVal **held;		/* per slot: the second module's value */
	EvDivergence *dv;
	int64_t round_lo, round_hi;	/* slots of this round */
} Loc;

typedef struct {
	const char *name;
	uint32_t i;
} Named;

static int
named_cmp(const void *x, const void *y)
{
	return strcmp(((const Named *)x)->name, ((const Named *)y)->name);
}

static void
hold_b(void *ctx, uint32_t i, HloVal *v)
{
	Loc *l = ctx;
	int32_t s = l->bmap[i];

	if (s >= l->round_lo && s < l->round_hi && !l->held[s])
		l->held[s] = hlo_val_ref(v);
}

static void
compare_a(void *ctx, uint32_t i, HloVal *v)
{
	Loc *l = ctx;
	EvDivergence *dv = l->dv;
	int32_t s = l->amap[i];
	const HloVal *y;
	const HloInstr *in;
	Vals vs;
	Cmp c;

	if (s < l->round_lo || s >= l->round_hi || dv->found == 1 ||
	    !(y = l->held[s]) || v->type >= TY_TUPLE || v->type != y->type ||
	    v->n != y->n)
		return;
	dv->compared++;
	cmp_init(&c, v, l->o, 0);
	memset(&vs, 0, sizeof vs);
	vs.x = v;
	vs.y = y;
	cmp_arrays(&c, &vs);
	if (!c.mismatches)
		return;
	in = hlo_ins(l->a, l->a->entry, i);
	dv->found = 1;
	snprintf(dv->name, sizeof dv->name, "%s", hlo_cstr(l->a, in->name));
	snprintf(dv->opcode, sizeof dv->opcode, "%s",
		hlo_opinfo[in->op].name);
	shapetext(l->a, in->shape, dv->shape, sizeof dv->shape);
	dv->count = v->n;
	dv->mismatches = c.mismatches;
	dv->elem = c.first;
	dv->max_abs = c.max_abs;
	dv->max_rel = c.max_rel;
	fmtlane(v->type, &c.fa, dv->a, sizeof dv->a);
	fmtlane(y->type, &c.fb, dv->b, sizeof dv->b);
}

/* maps the instructions of a's entry to slots, in a's topological order,
 * when b's entry has one of the same name, dims and type; the slot count */
static int32_t
match_names(Loc *l, uint64_t *bytes)
{
	const HloModule *a = l->a, *b = l->b;
	uint32_t ea = a->entry, eb = b->entry, na = a->comps[ea].nins,
		nb = b->comps[eb].nins, k, n = 0, *order;
	Named *bn, key, *hit;
	const HloInstr *x, *y;
	int32_t slots = 0;

	l->amap = xreallocarray(NULL, na + 1, sizeof *l->amap);
	l->bmap = xreallocarray(NULL, nb + 1, sizeof *l->bmap);
	for (k = 0; k < na; k++)
		l->amap[k] = -1;
	for (k = 0; k < nb; k++)
		l->bmap[k] = -1;
	bn = xreallocarray(NULL, nb + 1, sizeof *bn);
	for (k = 0; k < nb; k++) {
		if (b->comps[eb].ins[k].flags & HI_DEAD)
			continue;
		bn[n].name = hlo_cstr(b, b->comps[eb].ins[k].name);
		bn[n++].i = k;
	}
	qsort(bn, n, sizeof *bn, named_cmp);
	order = xreallocarray(NULL, na + 1, sizeof *order);
	if (hlo_topo(a, ea, order) < 0) {
		free(bn);
		free(order);
		return 0;
	}
	for (k = 0; k < na; k++) {
		x = hlo_ins(a, ea, order[k]);
		if ((x->flags & HI_DEAD) || x->op == HOP_PARAMETER ||
		    hlo_sh(a, x->shape)->type >= TY_TUPLE)
			continue;
		key.name = hlo_cstr(a, x->name);
		hit = n ? bsearch(&key, bn, n, sizeof *bn, named_cmp) : NULL;
		if (!hit)
			continue;
		y = hlo_ins(b, eb, hit->i);
		if (hlo_sh(b, y->shape)->type != hlo_sh(a, x->shape)->type ||
		    !hlo_shape_eq_across(a, x->shape, b, y->shape))
			continue;
		bytes[slots] = (uint64_t)hlo_shape_elems(a, x->shape) *
			ev_esz(hlo_sh(a, x->shape)->type);
		l->amap[order[k]] = slots;
		l->bmap[hit->i] = slots++;
	}
	free(bn);
	free(order);
	return slots;
}

static void
locate(const HloModule *a, const HloModule *b, const EvVerifyOpts *o,
	const HloInputHints *h, uint64_t seed, int dist, EvDivergence *dv)
{
	Loc l;
	HloEval ea, eb;
	HloError e;
	HloVal *oa, *ob;
	uint64_t *bytes, budget = (o->limit ? o->limit : EV_DEFAULT_LIMIT) / 4,
		sum;
	int32_t slots, s;
	int round;

	memset(&l, 0, sizeof l);
	l.a = a;
	l.b = b;
	l.o = o;
	l.dv = dv;
	dv->found = 0;
	bytes = xreallocarray(NULL, a->comps[a->entry].nins + 1,
		sizeof *bytes);
	slots = match_names(&l, bytes);
	dv->matched = slots;
	l.held = xcalloc(slots + 1, sizeof *l.held);
	for (round = 0; l.round_hi < slots && dv->found != 1; round++) {
		if (round == LOCATE_ROUNDS) {
			snprintf(dv->note, sizeof dv->note, "stopped after %d "
				"rounds of %d pairs of evaluations",
				LOCATE_ROUNDS, LOCATE_ROUNDS);
			break;
		}
		l.round_lo = l.round_hi;
		for (sum = 0, s = l.round_lo; s < slots && (s == l.round_lo ||
		    sum + bytes[s] <= budget); s++)
			sum += bytes[s];
		l.round_hi = s;
		if (run_hooked(b, o, seed, dist, h, &eb, &e, &ob, hold_b,
		    &l, 0) < 0) {
			snprintf(dv->note, sizeof dv->note, "second module: "
				"%.140s", e.msg);
			for (s = l.round_lo; s < l.round_hi; s++)
				hlo_val_unref(&eb, l.held[s]);
			hlo_eval_fini(&eb);
			break;
		}
		hlo_val_unref(&eb, ob);
		if (run_hooked(a, o, seed, dist, h, &ea, &e, &oa, compare_a,
		    &l, 0) < 0)
			snprintf(dv->note, sizeof dv->note, "first module: "
				"%.140s", e.msg);
		else
			hlo_val_unref(&ea, oa);
		hlo_eval_fini(&ea);
		for (s = l.round_lo; s < l.round_hi; s++) {
			hlo_val_unref(&eb, l.held[s]);
			l.held[s] = NULL;
		}
		hlo_eval_fini(&eb);
		if (dv->note[0])
			break;
	}
	free(bytes);
	free(l.held);
	free(l.amap);
	free(l.bmap);
}

/* the report */

static void
jnum(HloBuf *b, const char *key, double x)
{
	if (isfinite(x))
		hlo_buf_printf(b, ",\"%s\":%.9g", key, x);
	else
		hlo_buf_printf(b, ",\"%s\":null", key);
}

static void
jstr(HloBuf *b, const char *key, const char *s)
{
	hlo_buf_printf(b, ",\"%s\":", key);
	hlo_buf_json(b, s);
}

static void
json_output(const EvOutputCheck *oc, HloBuf *b)
{
	hlo_buf_printf(b, "{\"index\":%lld", (long long)oc->index);
	jstr(b, "shape", oc->shape);
	hlo_buf_printf(b, ",\"count\":%lld,\"compared\":%lld,"
		"\"mismatches\":%lld,\"within_sum_rounding\":%lld",
		(long long)oc->count, (long long)oc->compared,
		(long long)oc->mismatches, (long long)oc->rounding);
	jnum(b, "max_abs_error", oc->max_abs);
	jnum(b, "max_rel_error", oc->max_rel);
	hlo_buf_printf(b, ",\"nonfinite_a\":%lld,\"nonfinite_b\":%lld,"
		"\"finite_trials\":%d", (long long)oc->nonfinite_a,
		(long long)oc->nonfinite_b, oc->finite_trials);
	jnum(b, "rtol", oc->rtol);
	jnum(b, "atol", oc->atol);
	jstr(b, "verdict", ev_verdict_name(oc->verdict));
	if (oc->first_trial >= 0) {
		hlo_buf_printf(b, ",\"first_mismatch\":{\"trial\":%d,"
			"\"element\":%lld", oc->first_trial,
			(long long)oc->first_elem);
		jstr(b, "a", oc->a);
		jstr(b, "b", oc->b);
		hlo_buf_puts(b, "}");
	}
	hlo_buf_puts(b, "}");
}

void
ev_verify_json(const EvVerifyReport *r, HloBuf *b)
{
	const EvDivergence *dv = &r->div;
	uint32_t k;

	hlo_buf_puts(b, "{\"verdict\":\"");
	hlo_buf_puts(b, ev_verdict_name(r->verdict));
	hlo_buf_printf(b, "\",\"trials\":%d,\"seed\":%llu,"
		"\"evaluations\":%d", r->trials, (unsigned long long)r->seed,
		r->evaluations);
	jstr(b, "message", r->msg);
	jstr(b, "reference", r->excess ? "excess precision" : "strict");
	hlo_buf_printf(b, ",\"round_trips\":%lld", (long long)r->round_trips);
	if (r->excess)
		jstr(b, "strict_message", r->strict);
	hlo_buf_puts(b, ",\"outputs\":[");
	for (k = 0; k < r->noutputs; k++) {
		if (k)
			hlo_buf_puts(b, ",");
		json_output(&r->outputs[k], b);
	}
	hlo_buf_puts(b, "],\"first_divergence\":");
	if (dv->found < 0) {
		hlo_buf_puts(b, "null}");
		return;
	}
	hlo_buf_printf(b, "{\"found\":%s,\"matched\":%lld,\"compared\":%lld",
		dv->found == 1 ? "true" : "false", (long long)dv->matched,
		(long long)dv->compared);
	if (dv->found == 1) {
		jstr(b, "instruction", dv->name);
		jstr(b, "opcode", dv->opcode);
		jstr(b, "shape", dv->shape);
		hlo_buf_printf(b, ",\"elements\":%lld,\"mismatches\":%lld,"
			"\"element\":%lld", (long long)dv->count,
			(long long)dv->mismatches, (long long)dv->elem);
		jnum(b, "max_abs_error", dv->max_abs);
		jnum(b, "max_rel_error", dv->max_rel);
		jstr(b, "a", dv->a);
		jstr(b, "b", dv->b);
	}
	jstr(b, "note", dv->note);
	hlo_buf_puts(b, "}}");
}

static void
num(char *buf, size_t n, double x)
{
	snprintf(buf, n, "%.3g", x);
}

void
ev_verify_text(const EvVerifyReport *r, HloBuf *b)
{
	const EvDivergence *dv = &r->div;
	const EvOutputCheck *oc;
	char ma[32], mr[32], rt[32], at[32];
	uint32_t k;

	hlo_buf_printf(b, "verdict: %s", ev_verify_verdict(r));
	if (r->msg[0])
		hlo_buf_printf(b, ": %s", r->msg);
	if (r->excess)
		hlo_buf_printf(b, "\nreference: excess precision (%lld convert "
			"round trips of the first module exact, as "
			"xla_allow_excess_precision allows); strictly: %s",
			(long long)r->round_trips, r->strict);
	hlo_buf_printf(b, "\ntrials: %d (seed %llu), first module evaluated "
		"%d times\n", r->trials, (unsigned long long)r->seed,
		r->evaluations);
	if (r->noutputs && r->trials)
		hlo_buf_printf(b, "%6s  %-24s %12s %10s %10s %10s %12s "
			"%14s  %s\n", "output", "shape", "compared",
			"mismatches", "max-abs", "max-rel", "nonfinite-a/b",
			"rtol/atol", "result");
	for (k = 0; r->trials && k < r->noutputs; k++) {
		oc = &r->outputs[k];
		num(ma, sizeof ma, oc->max_abs);
		num(mr, sizeof mr, oc->max_rel);
		num(rt, sizeof rt, oc->rtol);
		num(at, sizeof at, oc->atol);
		hlo_buf_printf(b, "%6lld  %-24s %12lld %10lld %10s %10s "
			"%6lld/%-5lld %6s/%-7s  %s", (long long)oc->index,
			oc->shape, (long long)oc->compared,
			(long long)oc->mismatches, ma, mr,
			(long long)oc->nonfinite_a, (long long)oc->nonfinite_b,
			rt, at, oc->verdict == EV_PARTIAL ? (oc->compared ?
			"partial: non-finite in every trial" :
			"never compared on finite values") :
			ev_verdict_name(oc->verdict));
		if (oc->rounding)
			hlo_buf_printf(b, " (%lld within sum rounding)",
				(long long)oc->rounding);
		hlo_buf_puts(b, "\n");
	}
	if (dv->found == 1) {
		num(ma, sizeof ma, dv->max_abs);
		num(mr, sizeof mr, dv->max_rel);
		hlo_buf_printf(b, "first divergence: %s (%s %s) of the first "
			"module: %lld of %lld elements beyond tolerance, max "
			"abs %s, max rel %s; element %lld: %s vs %s (%lld "
			"instructions matched by name, %lld compared)\n",
			dv->name, dv->opcode, dv->shape,
			(long long)dv->mismatches, (long long)dv->count, ma, mr,
			(long long)dv->elem, dv->a, dv->b,
			(long long)dv->matched, (long long)dv->compared);
	} else if (dv->found == 0) {
		hlo_buf_printf(b, "first divergence: none among the %lld "
			"instructions compared (of %lld matched by name)%s%s\n",
			(long long)dv->compared, (long long)dv->matched,
			dv->note[0] ? ": " : "", dv->note);
	}
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
