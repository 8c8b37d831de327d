/* eval_ctrl.c: opcodes that call computations: call, fusion, while,
 * conditional, async wrappers, map, reduce, reduce-window,
 * select-and-scatter, scatter, sort, and topk.
 *
 * Computations applied per element (reducers, comparators, combiners,
 * mapped functions) are compiled, when every instruction in them is a
 * scalar elementwise operation, into an EvProg: a list of steps over
 * registers of EV_CHUNK lanes each, so one run applies the computation to
 * up to EV_CHUNK independent element groups. Other computations fall back
 * to the full evaluator, one element group at a time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "eval.h"

#define MAXR 64
#define W EV_CHUNK

enum { S_EW, S_COPY, S_BITCAST };

typedef struct {
	EwOp o;
	uint8_t kind;
	uint32_t dst, a, b, c;
} PStep;

struct EvProg {
	uint32_t nregs, nsteps, np, no, nconst;
	PStep *steps;
	uint32_t *preg, *oreg, *creg;
	uint8_t *ptype, *otype;
	Lane *cval;
};

void
ev_prog_free(EvProg *p)
{
	if (!p)
		return;
	free(p->steps);
	free(p->preg);
	free(p->oreg);
	free(p->creg);
	free(p->ptype);
	free(p->otype);
	free(p->cval);
	free(p);
}

static int
scalar_shape(const HloModule *m, uint32_t s)
{
	const HloShape *sh = hlo_sh(m, s);

	return sh->type < TY_TUPLE && hlo_typeinfo[sh->type].cls != C_OTHER &&
		hlo_shape_elems(m, s) == 1;
}

static int
compile_instr(const HloModule *m, uint32_t c, uint32_t i, EvProg *p)
{
	const HloInstr *in = hlo_ins(m, c, i);
	const uint32_t *ops = hlo_ops(m, in);
	PStep *s = &p->steps[p->nsteps];
	uint32_t k, nl;
	const void *lit;

	if (in->op == HOP_PARAMETER)
		return scalar_shape(m, in->shape) ? 0 : -1;
	if (!scalar_shape(m, in->shape))
		return in->op == HOP_TUPLE && i == m->comps[c].root ? 0 : -1;
	for (k = 0; k < in->nops; k++)
		if (ops[k] >= m->comps[c].nins ||
		    !scalar_shape(m, hlo_ins(m, c, ops[k])->shape))
			return -1;
	memset(s, 0, sizeof *s);
	s->dst = i;
	s->a = s->b = s->c = in->nops ? ops[0] : i;
	if (in->nops > 1)
		s->b = ops[1];
	if (in->nops > 2)
		s->c = ops[2];
	switch (in->op) {
	case HOP_CONSTANT:
		lit = hlo_literal(m, in, &nl);
		if (!lit || (int)nl <
		    hlo_type_bytes(hlo_sh(m, in->shape)->type))
			return -1;
		p->creg[p->nconst] = i;
		ev_lane_load(hlo_sh(m, in->shape)->type, lit, 1,
			&p->cval[p->nconst]);
		p->nconst++;
		return 0;
	case HOP_COPY: case HOP_RESHAPE: case HOP_BITCAST:
	case HOP_BROADCAST: case HOP_OPTBARRIER:
		if (in->nops != 1 || hlo_sh(m, in->shape)->type !=
		    hlo_sh(m, hlo_ins(m, c, ops[0])->shape)->type)
			return -1;
		s->kind = S_COPY;
		break;
	case HOP_BITCASTCVT:
		s->kind = S_BITCAST;
		s->o.t0 = hlo_sh(m, hlo_ins(m, c, ops[0])->shape)->type;
		s->o.type = hlo_sh(m, in->shape)->type;
		if (in->nops != 1 || hlo_type_bytes(s->o.t0) !=
		    hlo_type_bytes(s->o.type) || hlo_type_bytes(s->o.t0) > 8)
			return -1;
		break;
	case HOP_MAP: case HOP_RNG:
		return -1;
	default:
		if (!(hlo_opinfo[in->op].flags & OPF_ELEM) ||
		    ev_ew_bind(m, c, i, &s->o) < 0)
			return -1;
		s->kind = S_EW;
	}
	p->nsteps++;
	return 0;
}

static EvProg *
compile(HloEval *ev, uint32_t c)
{
	const HloModule *m = ev->m;
	const HloComp *cp = &m->comps[c];
	const uint32_t *order;
	uint32_t n, k, r = cp->root;
	const HloInstr *root;
	EvProg *p;

	if (ev_plan(ev, c, &order, &n) < 0)
		return NULL;
	p = xcalloc(1, sizeof *p);
	p->nregs = cp->nins;
	p->steps = xcalloc(n + 1, sizeof *p->steps);
	p->creg = xcalloc(n + 1, sizeof *p->creg);
	p->cval = xcalloc(n + 1, sizeof *p->cval);
	for (k = 0; k < n; k++)
		if (compile_instr(m, c, order[k], p) < 0)
			goto fail;
	p->np = hlo_param_count(m, c);
	p->preg = xcalloc(p->np + 1, sizeof *p->preg);
	p->ptype = xcalloc(p->np + 1, 1);
	for (k = 0; k < p->np; k++) {
		p->preg[k] = hlo_param(m, c, k);
		if (p->preg[k] == HLO_NONE ||
		    !scalar_shape(m, hlo_ins(m, c, p->preg[k])->shape))
			goto fail;
		p->ptype[k] = hlo_sh(m, hlo_ins(m, c, p->preg[k])->shape)->type;
	}
	root = hlo_ins(m, c, r);
	p->no = root->op == HOP_TUPLE ? root->nops : 1;
	p->oreg = xcalloc(p->no + 1, sizeof *p->oreg);
	p->otype = xcalloc(p->no + 1, 1);
	for (k = 0; k < p->no; k++) {
		p->oreg[k] = root->op == HOP_TUPLE ? hlo_ops(m, root)[k] : r;
		if (p->oreg[k] >= cp->nins)
			goto fail;
		p->otype[k] = hlo_sh(m, hlo_ins(m, c, p->oreg[k])->shape)->type;
	}
	return p;
fail:
	ev_prog_free(p);
	return NULL;
}

static EvProg *
prog(HloEval *ev, uint32_t c)
{
	if (c >= ev->m->ncomps)
		return NULL;
	if (!ev->progs[c]) {
		ev->progs[c] = compile(ev, c);
		if (!ev->progs[c])
			ev->progs[c] = (EvProg *)1;
	}
	return ev->progs[c] == (EvProg *)1 ? NULL : ev->progs[c];
}

static void
prog_run(const EvProg *p, Lane *R, int64_t w)
{
	const PStep *s;
	unsigned char buf[16];
	uint32_t k;
	int64_t l;

	for (k = 0; k < p->nsteps; k++) {
		s = &p->steps[k];
		switch (s->kind) {
		case S_EW:
			ev_ew_run(&s->o, w, R + s->dst * W, R + s->a * W,
				R + s->b * W, R + s->c * W);
			ev_lane_round(s->o.type, R + s->dst * W, w);
			break;
		case S_COPY:
			memcpy(R + s->dst * W, R + s->a * W, w * sizeof *R);
			break;
		case S_BITCAST:
			for (l = 0; l < w; l++) {
				ev_lane_store(s->o.t0, R + s->a * W + l, 1, buf);
				ev_lane_load(s->o.type, buf, 1,
					R + s->dst * W + l);
			}
			break;
		}
	}
}

/* an applier: a computation over scalars, run on up to W lanes */

typedef struct {
	HloEval *ev;
	uint32_t comp;
	EvProg *p;
	uint32_t np, no;
	Lane *R;		/* prog registers */
	Lane *pb, *ob;		/* fallback parameter and output lanes */
	uint32_t *pshape;
	uint8_t *ptype, *otype;
} App;

static int
app_init(HloEval *ev, uint32_t comp, uint32_t np, uint32_t no, App *a)
{
	const HloModule *m = ev->m;
	const HloShape *rs;
	uint32_t k, pi;

	memset(a, 0, sizeof *a);
	a->ev = ev;
	a->comp = comp;
	if (comp >= m->ncomps || hlo_param_count(m, comp) != (int)np)
		return ev_fail(ev, EV_BAD, "applied computation has the wrong "
			"parameter count");
	a->p = prog(ev, comp);
	a->np = np;
	a->no = no;
	if (a->p) {
		if (a->p->no != no)
			return ev_fail(ev, EV_BAD, "applied computation has "
				"the wrong result count");
		a->R = xcalloc((size_t)a->p->nregs * W + 1, sizeof *a->R);
		for (k = 0; k < a->p->nconst; k++) {
			int64_t l;

			for (l = 0; l < W; l++)
				a->R[a->p->creg[k] * W + l] = a->p->cval[k];
		}
		a->ptype = a->p->ptype;
		a->otype = a->p->otype;
		return 0;
	}
	a->pb = xcalloc((size_t)np * W + 1, sizeof *a->pb);
	a->ob = xcalloc((size_t)no * W + 1, sizeof *a->ob);
	a->pshape = xcalloc(np + 1, sizeof *a->pshape);
	a->ptype = xcalloc(np + 1, 1);
	a->otype = xcalloc(no + 1, 1);
	for (k = 0; k < np; k++) {
		pi = hlo_param(m, comp, k);
		if (pi == HLO_NONE || !scalar_shape(m, hlo_ins(m, comp,
		    pi)->shape))
			return ev_fail(ev, EV_NOEVAL, "not evaluable: applied "
				"computation %s takes a non-scalar",
				hlo_cstr(m, m->comps[comp].name));
		a->pshape[k] = hlo_ins(m, comp, pi)->shape;
		a->ptype[k] = hlo_sh(m, a->pshape[k])->type;
	}
	rs = hlo_sh(m, hlo_ins(m, comp, m->comps[comp].root)->shape);
	if (rs->type == TY_TUPLE ? rs->ntuple != no : no != 1)
		return ev_fail(ev, EV_BAD, "applied computation has the wrong "
			"result count");
	for (k = 0; k < no; k++)
		a->otype[k] = rs->type == TY_TUPLE ?
			hlo_sh(m, hlo_tuple_elems(m, rs)[k])->type : rs->type;
	return 0;
}

static void
app_fini(App *a)
{
	free(a->R);
	free(a->pb);
	free(a->ob);
	free(a->pshape);
	if (!a->p) {
		free(a->ptype);
		free(a->otype);
	}
	memset(a, 0, sizeof *a);
}

static Lane *
app_param(App *a, uint32_t k)
{
	return a->p ? a->R + a->p->preg[k] * W : a->pb + k * W;
}

static Lane *
app_out(App *a, uint32_t k)
{
	return a->p ? a->R + a->p->oreg[k] * W : a->ob + k * W;
}

static int
app_run(App *a, int64_t w)
{
	HloEval *ev = a->ev;
	HloVal *args[64], *r, *e;
	int64_t l;
	uint32_t k;
	int rc;

	if (a->p) {
		prog_run(a->p, a->R, w);
		return 0;
	}
	if (a->np > 64)
		return ev_fail(ev, EV_NOEVAL, "not evaluable: applied "
			"computation has over 64 parameters");
	for (l = 0; l < w; l++) {
		for (k = 0; k < a->np; k++) {
			args[k] = hlo_val_array(ev, a->pshape[k]);
			if (!args[k]) {
				while (k--)
					hlo_val_unref(ev, args[k]);
				return -1;
			}
			ev_lane_store(a->ptype[k], a->pb + k * W + l, 1,
				args[k]->data);
		}
		rc = hlo_eval_comp(ev, a->comp, args, a->np, &r);
		for (k = 0; k < a->np; k++)
			hlo_val_unref(ev, args[k]);
		if (rc < 0)
			return -1;
		for (k = 0; k < a->no; k++) {
			e = r->type == TY_TUPLE ? r->elems[k] : r;
			ev_lane_load(a->otype[k], e->data, 1, a->ob + k * W + l);
		}
		hlo_val_unref(ev, r);
	}
	return 0;
}

/* the binary operation a two-parameter computation is, if it is one:
 * root = op(p0, p1) or op(p1, p0) on one type; -1 if not */
static int
binop(App *a, int *type)
{
	const EvProg *p = a->p;
	const PStep *s;

	if (!p || p->np != 2 || p->no != 1 || p->nsteps != 1)
		return -1;
	s = &p->steps[0];
	if (s->kind != S_EW || p->oreg[0] != s->dst ||
	    !((s->a == p->preg[0] && s->b == p->preg[1]) ||
	    (s->a == p->preg[1] && s->b == p->preg[0])))
		return -1;
	if (s->o.t0 != s->o.type || s->o.t1 != s->o.type ||
	    hlo_typeinfo[s->o.type].cls == C_CPLX)
		return -1;
	switch (s->o.op) {
	case HOP_ADD: case HOP_MUL: case HOP_MAX: case HOP_MIN:
		*type = s->o.type;
		return s->o.op;
	case HOP_AND: case HOP_OR: case HOP_XOR:
		if (hlo_typeinfo[s->o.type].cls == C_FLOAT)
			return -1;
		*type = s->o.type;
		return s->o.op;
	}
	return -1;
}

/* 1 if a two-parameter computation returns its second parameter */
static int
is_second(App *a)
{
	return a->p && a->p->np == 2 && a->p->no == 1 &&
		a->p->oreg[0] == a->p->preg[1];
}

static double
fround(int type, double x)
{
	Lane l;

	switch (type) {
	case TY_F64:
		return x;
	case TY_F32:
		return (float)x;
	}
	l.f = x;
	ev_lane_round(type, &l, 1);
	return l.f;
}

/* acc = op(acc, x), as the evaluated computation would; a bf16
 * accumulator is kept in f32 and rounded to bf16 only where the caller
 * stores it (the end of a reduce or reduce-window, each scatter update):
 * XLA:CPU runs FloatNormalization(bf16) before its simplification
 * pipeline, so a bf16 reduce is an f32 reduce of the converted operand
 * whose result is converted back (a sum of 64000 ones in bf16 is 64000,
 * not the 256 where a bf16 accumulator stops) */
static void
fold1(int op, int type, Lane *acc, const Lane *x)
{
	int cl = hlo_typeinfo[type].cls;
	double a, b;

	if (cl == C_FLOAT) {
		a = acc->f;
		b = x->f;
		switch (op) {
		case HOP_ADD: a = a + b; break;
		case HOP_MUL: a = a * b; break;
		case HOP_MAX:
			a = a != a ? a : b != b ? b : a < b ? b : a;
			break;
		case HOP_MIN:
			a = a != a ? a : b != b ? b : b < a ? b : a;
			break;
		}
		acc->f = fround(type == TY_BF16 ? TY_F32 : type, a);
		return;
	}
	if (cl == C_PRED) {
		switch (op) {
		case HOP_ADD: case HOP_OR: case HOP_MAX:
			acc->u |= x->u;
			return;
		case HOP_XOR:
			acc->u ^= x->u;
			return;
		}
		acc->u &= x->u;
		return;
	}
	switch (op) {
	case HOP_ADD: acc->u += x->u; break;
	case HOP_MUL: acc->u *= x->u; break;
	case HOP_AND: acc->u &= x->u; break;
	case HOP_OR: acc->u |= x->u; break;
	case HOP_XOR: acc->u ^= x->u; break;
	case HOP_MAX:
		if (cl == C_SINT ? acc->s < x->s : acc->u < x->u)
			*acc = *x;
		break;
	case HOP_MIN:
		if (cl == C_SINT ? x->s < acc->s : x->u < acc->u)
			*acc = *x;
		break;
	}
	ev_lane_round(type, acc, 1);
}

static void
fold_f32_add(float *acc, const float *x, int64_t n, int vec)
{
	int64_t k;
	float a;

	if (vec) {
		for (k = 0; k < n; k++)
			acc[k] += x[k];
		return;
	}
	a = *acc;
	for (k = 0; k < n; k++)
		a += x[k];
	*acc = a;
}

/* a double sum rounded to f32 as HloEval.acc64 asks: to nearest (1),
 * down (2) or up (3) */
static float
round_sum(int mode, double d)
{
	float f = (float)d;

	if (mode == 2 && (double)f > d)
		f = nextafterf(f, -INFINITY);
	else if (mode == 3 && (double)f < d)
		f = nextafterf(f, INFINITY);
	return f;
}

/* the same sum with a double accumulator (HloEval.acc64) */
static void
fold_f32_add64(double *acc, const float *x, int64_t n, int vec)
{
	int64_t k;
	double a;

	if (vec) {
		for (k = 0; k < n; k++)
			acc[k] += x[k];
		return;
	}
	a = *acc;
	for (k = 0; k < n; k++)
		a += x[k];
	*acc = a;
}

/* call, fusion, while, conditional, async */

static int
called(HloEval *ev, uint32_t c, uint32_t i, uint32_t k, uint32_t *comp)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);

	if (k >= in->ncalled || hlo_called(ev->m, in)[k] >= ev->m->ncomps)
		return ev_unsupported(ev, c, i, "missing called computation");
	*comp = hlo_called(ev->m, in)[k];
	return 0;
}

static int
truth(HloEval *ev, uint32_t c, uint32_t i, HloVal *p, int *t)
{
	if (p->type >= TY_TUPLE || p->n != 1)
		return ev_unsupported(ev, c, i, "predicate is not a scalar");
	*t = ev_get_i(p->type, p->data) != 0;
	return 0;
}

/* the shape of operand 0 of instruction i */
static uint32_t
opshape(const HloModule *m, uint32_t c, uint32_t i)
{
	return hlo_ins(m, c, m->ids[hlo_ins(m, c, i)->ops])->shape;
}

static int
whileloop(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	uint32_t body, cond;
	HloVal *s, *p, *ns, *arg;
	int t;

	if (called(ev, c, i, 0, &body) < 0 || called(ev, c, i, 1, &cond) < 0)
		return -1;
	/* xla's verifier lets the body return another shape than the loop
	 * state (the while then has the body's); no loop can run on it */
	if (!hlo_infer_compatible(ev->m, opshape(ev->m, c, i),
	    ev->m->comps[body].ins[ev->m->comps[body].root].shape))
		return ev_unsupported(ev, c, i, "the body returns another "
			"shape than the loop state");
	s = hlo_val_ref(ops[0]);
	for (;;) {
		if (hlo_eval_comp(ev, cond, &s, 1, &p) < 0)
			goto fail;
		t = 0;
		if (truth(ev, c, i, p, &t) < 0) {
			hlo_val_unref(ev, p);
			goto fail;
		}
		hlo_val_unref(ev, p);
		if (!t)
			break;
		arg = s;
		s = NULL;
		if (ev_call_donate(ev, body, &arg, 1, &ns) < 0)
			goto fail;
		s = ns;
	}
	*out = s;
	return 0;
fail:
	hlo_val_unref(ev, s);
	return -1;
}

static int
conditional(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	int64_t b;
	uint32_t comp;

	if (ops[0]->type >= TY_TUPLE || ops[0]->n != 1 || in->ncalled < 1 ||
	    in->nops != in->ncalled + 1)
		return ev_unsupported(ev, c, i, "bad conditional");
	b = ev_get_i(ops[0]->type, ops[0]->data);
	if (ops[0]->type == TY_PRED)
		b = b ? 0 : 1;
	else if (b < 0 || b >= in->ncalled)
		b = in->ncalled - 1;
	if (called(ev, c, i, b, &comp) < 0)
		return -1;
	return hlo_eval_comp(ev, comp, &ops[b + 1], 1, out);
}

static int
asyncstart(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloModule *m = ev->m;
	const HloInstr *in = hlo_ins(m, c, i);
	const HloShape *sh = hlo_sh(m, in->shape);
	uint32_t comp, k;
	HloVal *r, *t, *a;

	if (called(ev, c, i, 0, &comp) < 0)
		return -1;
	if (hlo_eval_comp(ev, comp, ops, in->nops, &r) < 0)
		return -1;
	if (sh->type != TY_TUPLE || sh->ntuple < 2) {
		hlo_val_unref(ev, r);
		return ev_unsupported(ev, c, i, "result is not a tuple");
	}
	t = hlo_val_tuple(ev, in->shape);
	if (hlo_sh(m, hlo_tuple_elems(m, sh)[0])->type == TY_TUPLE) {
		a = hlo_val_tuple(ev, hlo_tuple_elems(m, sh)[0]);
		for (k = 0; k < a->n && k < in->nops; k++)
			a->elems[k] = hlo_val_ref(ops[k]);
		t->elems[0] = a;
	} else {
		t->elems[0] = in->nops ? hlo_val_ref(ops[0]) :
			ev_zero(ev, hlo_tuple_elems(m, sh)[0]);
	}
	t->elems[1] = r;
	if (!ev_zero_from(ev, t, in->shape, 2))
		return -1;
	*out = t;
	return 0;
}

/* map */

static int
map(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	uint32_t comp, k;
	HloVal *v;
	App a;
	int64_t o, w;

	if (called(ev, c, i, 0, &comp) < 0)
		return -1;
	v = hlo_val_array(ev, in->shape);
	if (!v)
		return -1;
	for (k = 0; k < in->nops; k++)
		if (ops[k]->type >= TY_TUPLE || ops[k]->n != v->n) {
			hlo_val_unref(ev, v);
			return ev_unsupported(ev, c, i, "operand shapes "
				"differ");
		}
	if (app_init(ev, comp, in->nops, 1, &a) < 0) {
		app_fini(&a);
		hlo_val_unref(ev, v);
		return -1;
	}
	for (o = 0; o < v->n; o += w) {
		w = v->n - o < W ? v->n - o : W;
		for (k = 0; k < in->nops; k++)
			ev_lane_load(a.ptype[k], ops[k]->data + o *
				ev_esz(ops[k]->type), w, app_param(&a, k));
		if (app_run(&a, w) < 0) {
			app_fini(&a);
			hlo_val_unref(ev, v);
			return -1;
		}
		ev_lane_store(v->type, app_out(&a, 0), w, v->data + o *
			ev_esz(v->type));
	}
	app_fini(&a);
	*out = v;
	return 0;
}

/* dst = comp(x, y) element by element: comp takes two scalars (of x's
 * and y's types) and returns one of dst's; x, y and dst have equally many
 * elements (the collectives' model in eval_opaque.c applies reducers) */
int
ev_apply2(HloEval *ev, uint32_t comp, const HloVal *x, const HloVal *y,
	HloVal *dst)
{
	App a;
	int64_t o, w;

	if (x->type >= TY_TUPLE || y->type >= TY_TUPLE || x->n != dst->n ||
	    y->n != dst->n)
		return ev_fail(ev, EV_BAD, "applied computation's operands "
			"differ in size");
	if (app_init(ev, comp, 2, 1, &a) < 0) {
		app_fini(&a);
		return -1;
	}
	for (o = 0; o < dst->n; o += w) {
		w = dst->n - o < W ? dst->n - o : W;
		ev_lane_load(x->type, x->data + o * ev_esz(x->type), w,
			app_param(&a, 0));
		ev_lane_load(y->type, y->data + o * ev_esz(y->type), w,
			app_param(&a, 1));
		if (app_run(&a, w) < 0) {
			app_fini(&a);
			return -1;
		}
		ev_lane_store(dst->type, app_out(&a, 0), w, dst->data + o *
			ev_esz(dst->type));
	}
	app_fini(&a);
	return 0;
}

/* results: one array or a tuple of n arrays */
static int
results(HloEval *ev, const HloInstr *in, uint32_t n, HloVal **vs,
	HloVal **out)
{
	const HloShape *sh = hlo_sh(ev->m, in->shape);
	uint32_t k;

	*out = NULL;
	if (n == 1 && sh->type != TY_TUPLE) {
		vs[0] = hlo_val_array(ev, in->shape);
		*out = vs[0];
		return vs[0] ? 0 : -1;
	}
	if (sh->type != TY_TUPLE || sh->ntuple != n)
		return ev_fail(ev, EV_BAD, "result arity differs");
	*out = hlo_val_tuple(ev, in->shape);
	for (k = 0; k < n; k++) {
		uint32_t es = hlo_tuple_elems(ev->m, hlo_sh(ev->m,
			in->shape))[k];

		if (hlo_sh(ev->m, es)->type >= TY_TUPLE)
			return ev_fail(ev, EV_BAD, "result element is a tuple");
		vs[k] = (*out)->elems[k] = hlo_val_array(ev, es);
		if (!vs[k])
			return -1;
	}
	return 0;
}

/* reduce */

typedef struct {
	int rank;
	const int64_t *dims;
	int64_t str[MAXR];
	uint8_t red[MAXR];
	int64_t O, R;
} RedGeo;

static void
fast_reduce(HloEval *ev, const RedGeo *g, int op, int type, HloVal *x,
	const Lane *init, HloVal *v)
{
	int64_t ostr[MAXR], idx[MAXR], n = g->dims[g->rank - 1], k, base, w;
	int64_t esz = ev_esz(type), s, rows, row, j;
	Lane *acc = NULL, buf[W];
	float *facc = NULL;
	double *dacc = NULL;
	const float *fx;
	int d, vec = !g->red[g->rank - 1], f32add = type == TY_F32 &&
		op == HOP_ADD;

	if (f32add && ev->acc64) {
		dacc = xcalloc(g->O + 1, sizeof *dacc);
		for (k = 0; k < g->O; k++)
			dacc[k] = init->f;
	} else if (f32add) {
		facc = xcalloc(g->O + 1, sizeof *facc);
		for (k = 0; k < g->O; k++)
			facc[k] = init->f;
	} else {
		acc = xcalloc(g->O + 1, sizeof *acc);
		for (k = 0; k < g->O; k++)
			acc[k] = *init;
	}
	for (s = 1, d = g->rank - 1; d >= 0; d--) {
		ostr[d] = g->red[d] ? 0 : s;
		if (!g->red[d])
			s *= g->dims[d];
	}
	memset(idx, 0, sizeof idx);
	rows = n ? x->n / n : 0;
	for (row = 0; row < rows; row++) {
		base = 0;
		for (d = 0; d < g->rank - 1; d++)
			base += idx[d] * ostr[d];
		if (f32add) {
			fx = (const float *)(x->data + row * n * 4);
			if (dacc)
				fold_f32_add64(dacc + base, fx, n, vec);
			else
				fold_f32_add(facc + base, fx, n, vec);
		} else {
			for (k = 0; k < n; k += w) {
				w = n - k < W ? n - k : W;
				ev_lane_load(type, x->data + (row * n + k) * esz,
					w, buf);
				for (j = 0; j < w; j++)
					fold1(op, type, &acc[base + (vec ?
						k + j : 0)], &buf[j]);
			}
		}
		hlo_index_next(idx, g->dims, g->rank - 1);
	}
	if (dacc)
		for (k = 0; k < g->O; k++)
			((float *)v->data)[k] = round_sum(ev->acc64,
				dacc[k]);
	else if (f32add)
		memcpy(v->data, facc, g->O * 4);
	else
		ev_lane_store(type, acc, g->O, v->data);
	free(acc);
	free(facc);
	free(dacc);
}

/* out = x add-reduced over the dimensions red marks, from +0: bit for
 * bit what reduce computes with an add computation of x's type (the
 * batch norms, eval_bnorm.c, evaluate XLA's expansion of them with it) */
void
ev_reduce_add(HloEval *ev, HloVal *x, const int64_t *dims, int rank,
	const uint8_t *red, HloVal *out)
{
	RedGeo g;
	Lane zero;
	int d;

	memset(&g, 0, sizeof g);
	memset(&zero, 0, sizeof zero);
	g.rank = rank;
	g.dims = dims;
	memcpy(g.red, red, rank);
	ev_strides(g.dims, g.rank, 1, g.str);
	g.O = g.R = 1;
	for (d = 0; d < rank; d++) {
		if (red[d])
			g.R *= dims[d];
		else
			g.O *= dims[d];
	}
	fast_reduce(ev, &g, HOP_ADD, x->type, x, &zero, out);
}

/* the input reordered as [reduced dims..][kept dims..] */
static unsigned char *
red_order(HloEval *ev, const RedGeo *g, HloVal *x, int *own)
{
	int64_t perm[MAXR], cnt[MAXR], sstr[MAXR], dstr[MAXR];
	int64_t esz = ev_esz(x->type);
	int d, p = 0, ident = 1;
	unsigned char *t;

	for (d = 0; d < g->rank; d++)
		if (g->red[d])
			perm[p++] = d;
	for (d = 0; d < g->rank; d++)
		if (!g->red[d])
			perm[p++] = d;
	for (d = 0; d < g->rank; d++) {
		if (perm[d] != d)
			ident = 0;
		cnt[d] = g->dims[perm[d]];
		sstr[d] = g->str[perm[d]] * esz;
	}
	*own = 0;
	if (ident)
		return x->data;
	t = ev_scratch(ev, (uint64_t)x->n * esz);
	if (!t)
		return NULL;
	*own = 1;
	ev_strides(cnt, g->rank, esz, dstr);
	ev_copy_nd(t, dstr, x->data, sstr, cnt, g->rank, esz);
	return t;
}

static int
general_reduce(HloEval *ev, const RedGeo *g, App *a, uint32_t n,
	HloVal **xs, HloVal **inits, HloVal **vs)
{
	unsigned char *t[32];
	int own[32];
	Lane *acc;
	int64_t o, r, w;
	uint32_t j;
	int rc = -1;

	if (n > 32)
		return ev_fail(ev, EV_NOEVAL, "not evaluable: reduce of over "
			"32 operands");
	memset(own, 0, sizeof own);
	for (j = 0; j < n; j++) {
		t[j] = red_order(ev, g, xs[j], &own[j]);
		if (!t[j]) {
			while (j--)
				if (own[j])
					ev_scratch_free(ev, t[j], (uint64_t)
						xs[j]->n * ev_esz(xs[j]->type));
			return -1;
		}
	}
	acc = xcalloc((size_t)n * W + 1, sizeof *acc);
	for (o = 0; o < g->O; o += w) {
		w = g->O - o < W ? g->O - o : W;
		for (j = 0; j < n; j++) {
			int64_t l;

			ev_lane_load(a->ptype[j], inits[j]->data, 1, &acc[j * W]);
			for (l = 1; l < w; l++)
				acc[j * W + l] = acc[j * W];
		}
		for (r = 0; r < g->R; r++) {
			for (j = 0; j < n; j++) {
				memcpy(app_param(a, j), acc + j * W,
					w * sizeof *acc);
				ev_lane_load(a->ptype[n + j], t[j] +
					(r * g->O + o) * ev_esz(xs[j]->type),
					w, app_param(a, n + j));
			}
			if (app_run(a, w) < 0)
				goto done;
			for (j = 0; j < n; j++)
				memcpy(acc + j * W, app_out(a, j),
					w * sizeof *acc);
		}
		for (j = 0; j < n; j++)
			ev_lane_store(vs[j]->type, acc + j * W, w, vs[j]->data +
				o * ev_esz(vs[j]->type));
	}
	rc = 0;
done:
	free(acc);
	for (j = 0; j < n; j++)
		if (own[j])
			ev_scratch_free(ev, t[j], (uint64_t)xs[j]->n *
				ev_esz(xs[j]->type));
	return rc;
}

static const int64_t scalar_dim = 1;

static int
reduce(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloModule *m = ev->m;
	const HloInstr *in = hlo_ins(m, c, i);
	uint32_t n = in->nops / 2, comp, nd, j;
	const int64_t *dm = hlo_attr_ints(m, in, A_DIMENSIONS, &nd);
	HloVal *vs[32];
	RedGeo g;
	App a;
	Lane init;
	int d, op, type, rc;

	if (in->nops % 2 || n == 0 || n > 32 || called(ev, c, i, 0, &comp) < 0)
		return in->nops % 2 || n == 0 || n > 32 ?
			ev_unsupported(ev, c, i, "bad operand count") : -1;
	for (j = 0; j < 2 * n; j++)
		if (ops[j]->type >= TY_TUPLE || (j >= n && ops[j]->n != 1) ||
		    (j < n && (ops[j]->n != ops[0]->n ||
		    !hlo_shape_compatible(m, ops[j]->shape, ops[0]->shape))))
			return ev_unsupported(ev, c, i, "bad operands");
	g.dims = ev_dims(ev, ops[0]->shape, &g.rank);
	if (g.rank == 0) {	/* a scalar: one element, reduced over no
				 * dimension, so reducer(init, x) as xla */
		g.dims = &scalar_dim;
		g.rank = 1;
	}
	if (g.rank > MAXR)
		return ev_unsupported(ev, c, i, "rank too high");
	memset(g.red, 0, sizeof g.red);
	for (j = 0; j < nd; j++) {
		if (dm[j] < 0 || dm[j] >= g.rank)
			return ev_unsupported(ev, c, i, "bad dimensions");
		g.red[dm[j]] = 1;
	}
	ev_strides(g.dims, g.rank, 1, g.str);
	g.O = g.R = 1;
	for (d = 0; d < g.rank; d++) {
		if (g.red[d])
			g.R *= g.dims[d];
		else
			g.O *= g.dims[d];
	}
	if (results(ev, in, n, vs, out) < 0) {
		hlo_val_unref(ev, *out);
		*out = NULL;
		return -1;
	}
	for (j = 0; j < n; j++)
		if (vs[j]->n != g.O || vs[j]->type != ops[j]->type) {
			hlo_val_unref(ev, *out);
			*out = NULL;
			return ev_unsupported(ev, c, i, "result shape differs");
		}
	if (app_init(ev, comp, 2 * n, n, &a) < 0) {
		app_fini(&a);
		hlo_val_unref(ev, *out);
		*out = NULL;
		return -1;
	}
	op = n == 1 ? binop(&a, &type) : -1;
	if (op >= 0 && type == ops[0]->type) {
		ev_lane_load(type, ops[1]->data, 1, &init);
		fast_reduce(ev, &g, op, type, ops[0], &init, vs[0]);
		rc = 0;
	} else {
		rc = general_reduce(ev, &g, &a, n, ops, ops + n, vs);
	}
	app_fini(&a);
	if (rc < 0) {
		hlo_val_unref(ev, *out);
		*out = NULL;
	}
	return rc;
}

/* reduce-window and select-and-scatter */

typedef struct {
	int rank;
	const int64_t *idims, *odims;
	int64_t istr[MAXR];
	int64_t size[MAXR], stride[MAXR], lo[MAXR], wdil[MAXR], bdil[MAXR];
	int64_t nwin;
} WinGeo;

static int
wingeo(HloEval *ev, const HloInstr *in, uint32_t xshape, uint32_t oshape,
	WinGeo *g)
{
	const HloAttr *wa = hlo_attr(ev->m, in, A_WINDOW);
	const int64_t *wv;
	int orank, d;

	g->idims = ev_dims(ev, xshape, &g->rank);
	g->odims = ev_dims(ev, oshape, &orank);
	if (!wa || (int)wa->n != 7 * g->rank || orank != g->rank ||
	    g->rank > MAXR)
		return -1;
	wv = hlo_ints_at(ev->m, wa->v);
	ev_strides(g->idims, g->rank, 1, g->istr);
	g->nwin = 1;
	for (d = 0; d < g->rank; d++) {
		int64_t hi, dil, pad, ws, cnt;

		g->size[d] = wv[7 * d];
		g->stride[d] = wv[7 * d + 1];
		g->lo[d] = wv[7 * d + 2];
		hi = wv[7 * d + 3];
		g->wdil[d] = wv[7 * d + 4];
		g->bdil[d] = wv[7 * d + 5];
		if (g->size[d] < 0 || g->stride[d] < 1 || g->wdil[d] < 1 ||
		    g->bdil[d] < 1)
			return -1;
		dil = g->idims[d] ? (g->idims[d] - 1) * g->bdil[d] + 1 : 0;
		pad = dil + g->lo[d] + hi;
		ws = g->size[d] ? (g->size[d] - 1) * g->wdil[d] + 1 : 0;
		cnt = pad < ws ? 0 : (pad - ws) / g->stride[d] + 1;
		if (cnt != g->odims[d])
			return -1;
		g->nwin *= g->size[d];
	}
	return 0;
}

/* the input element of output position o and window position k, or -1 */
static int64_t
winpos(const WinGeo *g, const int64_t *o, const int64_t *k)
{
	int64_t off = 0, p;
	int d;

	for (d = 0; d < g->rank; d++) {
		p = o[d] * g->stride[d] - g->lo[d] + k[d] * g->wdil[d];
		if (g->bdil[d] > 1) {
			if (p < 0 || p % g->bdil[d])
				return -1;
			p /= g->bdil[d];
		}
		if (p < 0 || p >= g->idims[d])
			return -1;
		off += p * g->istr[d];
	}
	return off;
}

static void
unflat(int64_t x, const int64_t *dims, int rank, int64_t *idx)
{
	int d;

	for (d = rank - 1; d >= 0; d--) {
		idx[d] = dims[d] ? x % dims[d] : 0;
		x = dims[d] ? x / dims[d] : 0;
	}
}

static int
reducewindow(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloModule *m = ev->m;
	const HloInstr *in = hlo_ins(m, c, i);
	uint32_t n = in->nops / 2, comp, j;
	HloVal *vs[32];
	WinGeo g;
	App a;
	Lane *acc = NULL, *xv = NULL;
	int64_t *oidx = NULL, *off = NULL, kidx[MAXR], o, w, l, k;
	int op, type = 0, any, rc = -1, sum64;

	if (in->nops % 2 || n == 0 || n > 32)
		return ev_unsupported(ev, c, i, "bad operand count");
	if (called(ev, c, i, 0, &comp) < 0)
		return -1;
	for (j = 0; j < 2 * n; j++)
		if (ops[j]->type >= TY_TUPLE || (j >= n && ops[j]->n != 1) ||
		    (j < n && ops[j]->n != ops[0]->n))
			return ev_unsupported(ev, c, i, "bad operands");
	if (results(ev, in, n, vs, out) < 0) {
		hlo_val_unref(ev, *out);
		*out = NULL;
		return -1;
	}
	if (wingeo(ev, in, ops[0]->shape, vs[0]->shape, &g) < 0) {
		hlo_val_unref(ev, *out);
		*out = NULL;
		return ev_unsupported(ev, c, i, "bad window");
	}
	if (app_init(ev, comp, 2 * n, n, &a) < 0)
		goto done;
	op = n == 1 ? binop(&a, &type) : -1;
	if (op >= 0 && type != ops[0]->type)
		op = -1;
	sum64 = ev->acc64 && op == HOP_ADD && type == TY_F32;
	acc = xcalloc((size_t)n * W + 1, sizeof *acc);
	xv = xcalloc((size_t)n * W + 1, sizeof *xv);
	oidx = xcalloc((size_t)W * g.rank + 1, sizeof *oidx);
	off = xcalloc(W + 1, sizeof *off);
	for (o = 0; o < vs[0]->n; o += w) {
		w = vs[0]->n - o < W ? vs[0]->n - o : W;
		for (j = 0; j < n; j++) {
			ev_lane_load(a.ptype[j], ops[n + j]->data, 1, &acc[j * W]);
			for (l = 1; l < w; l++)
				acc[j * W + l] = acc[j * W];
		}
		for (l = 0; l < w; l++)
			unflat(o + l, g.odims, g.rank, oidx + l * g.rank);
		for (k = 0; k < g.nwin; k++) {
			unflat(k, g.size, g.rank, kidx);
			any = 0;
			for (l = 0; l < w; l++) {
				off[l] = winpos(&g, oidx + l * g.rank, kidx);
				any |= off[l] >= 0;
			}
			if (!any)
				continue;
			for (j = 0; j < n; j++)
				for (l = 0; l < w; l++)
					if (off[l] >= 0)
						ev_lane_load(ops[j]->type,
							ops[j]->data + off[l] *
							ev_esz(ops[j]->type), 1,
							&xv[j * W + l]);
			if (sum64) {
				for (l = 0; l < w; l++)
					if (off[l] >= 0)
						acc[l].f += xv[l].f;
				continue;
			}
			if (op >= 0) {
				for (l = 0; l < w; l++)
					if (off[l] >= 0)
						fold1(op, type, &acc[l],
							&xv[l]);
				continue;
			}
			for (j = 0; j < n; j++) {
				memcpy(app_param(&a, j), acc + j * W,
					w * sizeof *acc);
				memcpy(app_param(&a, n + j), xv + j * W,
					w * sizeof *xv);
			}
			if (app_run(&a, w) < 0)
				goto done;
			for (j = 0; j < n; j++)
				for (l = 0; l < w; l++)
					if (off[l] >= 0)
						acc[j * W + l] =
							app_out(&a, j)[l];
		}
		if (sum64)
			for (l = 0; l < w; l++)
				acc[l].f = round_sum(ev->acc64, acc[l].f);
		if (sum64)
			for (l = 0; l < w; l++)
				acc[l].f = round_sum(ev->acc64, acc[l].f);
		for (j = 0; j < n; j++)
			ev_lane_store(vs[j]->type, acc + j * W, w, vs[j]->data +
				o * ev_esz(vs[j]->type));
	}
	rc = 0;
done:
	app_fini(&a);
	free(acc);
	free(xv);
	free(oidx);
	free(off);
	if (rc < 0) {
		hlo_val_unref(ev, *out);
		*out = NULL;
	}
	return rc;
}

static int
selectscatter(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops,
	HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	HloVal *x = ops[0], *src = ops[1], *v;
	uint32_t csel, csc;
	WinGeo g;
	App as, ac;
	int64_t oidx[MAXR], kidx[MAXR], o, k, p, best, esz;
	Lane bv, cv, sv;
	int op, type, rc = -1;

	if (x->type >= TY_TUPLE || src->type >= TY_TUPLE ||
	    ops[2]->type != x->type || ops[2]->n != 1 || in->nops != 3)
		return ev_unsupported(ev, c, i, "bad operands");
	if (called(ev, c, i, 0, &csel) < 0 || called(ev, c, i, 1, &csc) < 0)
		return -1;
	if (wingeo(ev, in, x->shape, src->shape, &g) < 0)
		return ev_unsupported(ev, c, i, "bad window");
	v = hlo_val_array(ev, in->shape);
	if (!v)
		return -1;
	if (v->n != x->n || v->type != x->type) {
		hlo_val_unref(ev, v);
		return ev_unsupported(ev, c, i, "result shape differs");
	}
	esz = ev_esz(x->type);
	for (o = 0; o < v->n; o++)
		memcpy(v->data + o * esz, ops[2]->data, esz);
	memset(&ac, 0, sizeof ac);
	if (app_init(ev, csel, 2, 1, &as) < 0 ||
	    app_init(ev, csc, 2, 1, &ac) < 0)
		goto done;
	op = binop(&ac, &type);
	if (op >= 0 && type != x->type)
		op = -1;
	for (o = 0; o < src->n; o++) {
		unflat(o, g.odims, g.rank, oidx);
		best = -1;
		for (k = 0; k < g.nwin; k++) {
			unflat(k, g.size, g.rank, kidx);
			p = winpos(&g, oidx, kidx);
			if (p < 0)
				continue;
			ev_lane_load(x->type, x->data + p * esz, 1, &cv);
			if (best >= 0) {
				app_param(&as, 0)[0] = bv;
				app_param(&as, 1)[0] = cv;
				if (app_run(&as, 1) < 0)
					goto done;
				if (app_out(&as, 0)[0].u)
					continue;
			}
			best = p;
			bv = cv;
		}
		if (best < 0)
			continue;
		ev_lane_load(src->type, src->data + o * ev_esz(src->type), 1, &sv);
		ev_lane_load(v->type, v->data + best * esz, 1, &cv);
		if (op >= 0) {
			fold1(op, type, &cv, &sv);
		} else {
			app_param(&ac, 0)[0] = cv;
			app_param(&ac, 1)[0] = sv;
			if (app_run(&ac, 1) < 0)
				goto done;
			cv = app_out(&ac, 0)[0];
		}
		ev_lane_store(v->type, &cv, 1, v->data + best * esz);
	}
	rc = 0;
done:
	app_fini(&as);
	app_fini(&ac);
	if (rc < 0)
		hlo_val_unref(ev, v);
	else
		*out = v;
	return rc;
}

/* scatter */

typedef struct {
	const int64_t *uwd, *iwd, *sdod, *ibd, *sibd;
	uint32_t nuwd, niwd, nsdod, nibd, nsibd;
	int64_t ivd;
	int orank, xrank, urank;
	const int64_t *od, *xd, *ud;
	int64_t ostr[MAXR], xstr[MAXR], ustr[MAXR];
	int nsc, nwd;
	int64_t scd[MAXR];	/* update scatter dims */
	int64_t scx[MAXR];	/* their index dims */
	int64_t wd[MAXR];	/* update window dims */
	int64_t wo[MAXR];	/* their operand dims */
	int64_t wsz[MAXR];	/* window size per operand dim */
} ScatGeo;

static int
scatgeo(HloEval *ev, const HloInstr *in, HloVal *x, HloVal *ix, HloVal *u,
	ScatGeo *g)
{
	const HloModule *m = ev->m;
	int d, k, q;

	g->uwd = hlo_attr_list(m, in, A_UPDATE_WINDOW_DIMS, &g->nuwd);
	g->iwd = hlo_attr_list(m, in, A_INSERTED_WINDOW_DIMS, &g->niwd);
	g->sdod = hlo_attr_list(m, in, A_SCATTER_DIMS_TO_OPERAND_DIMS, &g->nsdod);
	g->ibd = hlo_attr_list(m, in, A_INPUT_BATCHING_DIMS, &g->nibd);
	g->sibd = hlo_attr_list(m, in, A_SCATTER_INDICES_BATCHING_DIMS, &g->nsibd);
	g->ivd = hlo_attr_int(m, in, A_INDEX_VECTOR_DIM, 0);
	g->od = ev_dims(ev, x->shape, &g->orank);
	g->xd = ev_dims(ev, ix->shape, &g->xrank);
	g->ud = ev_dims(ev, u->shape, &g->urank);
	if (g->orank > MAXR || g->xrank > MAXR || g->urank > MAXR ||
	    g->ivd < 0 || g->ivd > g->xrank || g->nibd != g->nsibd)
		return -1;
	ev_strides(g->od, g->orank, 1, g->ostr);
	ev_strides(g->xd, g->xrank, 1, g->xstr);
	ev_strides(g->ud, g->urank, 1, g->ustr);
	g->nsc = g->nwd = 0;
	for (d = 0, k = 0; d < g->urank; d++) {
		if (hlo_ints_has(g->uwd, g->nuwd, d)) {
			g->wd[g->nwd++] = d;
			continue;
		}
		if (k == g->ivd)
			k++;
		if (k >= g->xrank || g->xd[k] != g->ud[d])
			return -1;
		g->scd[g->nsc] = d;
		g->scx[g->nsc++] = k++;
	}
	for (d = 0; d < g->orank; d++)
		g->wsz[d] = 1;
	for (d = 0, q = 0; d < g->orank; d++) {
		if (hlo_ints_has(g->iwd, g->niwd, d) || hlo_ints_has(g->ibd, g->nibd, d))
			continue;
		if (q >= g->nwd)
			return -1;
		g->wo[q] = d;
		g->wsz[d] = g->ud[g->wd[q]];
		if (g->wsz[d] > g->od[d])
			return -1;
		q++;
	}
	if (q != g->nwd)
		return -1;
	if ((g->ivd < g->xrank ? g->xd[g->ivd] : 1) != (int64_t)g->nsdod)
		return -1;
	for (k = 0; k < (int)g->nsdod; k++)
		if (g->sdod[k] < 0 || g->sdod[k] >= g->orank)
			return -1;
	for (k = 0; k < (int)g->nibd; k++)
		if (g->ibd[k] < 0 || g->ibd[k] >= g->orank || g->sibd[k] < 0 ||
		    g->sibd[k] >= g->xrank || g->sibd[k] == g->ivd)
			return -1;
	return 0;
}

/* operand and update element offsets of one update window */
static int64_t
scat_window(const ScatGeo *g, const HloVal *ix, const int64_t *sidx,
	int64_t *obase, int64_t *ubase)
{
	int64_t s[MAXR], xoff = 0;
	int k, q;

	*ubase = 0;
	for (k = 0; k < g->nsc; k++) {
		xoff += sidx[k] * g->xstr[g->scx[k]];
		*ubase += sidx[k] * g->ustr[g->scd[k]];
	}
	memset(s, 0, sizeof(int64_t) * g->orank);
	for (k = 0; k < (int)g->nsdod; k++)
		s[g->sdod[k]] = ev_get_i(ix->type, ix->data + (xoff +
			(g->ivd < g->xrank ? k * g->xstr[g->ivd] : 0)) *
			ev_esz(ix->type));
	for (k = 0; k < (int)g->nibd; k++)
		for (q = 0; q < g->nsc; q++)
			if (g->scx[q] == g->sibd[k])
				s[g->ibd[k]] = sidx[q];
	*obase = 0;
	for (k = 0; k < g->orank; k++) {
		if (s[k] < 0 || s[k] > g->od[k] - g->wsz[k])
			return -1;
		*obase += s[k] * g->ostr[k];
	}
	return 0;
}

static HloVal *
scat_copy(HloEval *ev, HloVal *x, uint32_t shape, int consumable)
{
	HloVal *v;

	if (consumable && x->refs == 1 && !x->base) {
		x->shape = shape;
		return hlo_val_ref(x);
	}
	v = hlo_val_array(ev, shape);
	if (v)
		memcpy(v->data, x->data, v->nbytes);
	return v;
}

static int
scatter_apply(HloEval *ev, const ScatGeo *g, App *a, uint32_t n,
	HloVal **us, HloVal **vs, int op, int type, int assign,
	int64_t obase, int64_t ubase, int64_t nw)
{
	int64_t widx[MAXR], oo[W], uo[W], e, w, l, rem;
	uint32_t j;
	int k;

	for (e = 0; e < nw; e += w) {
		w = nw - e < W ? nw - e : W;
		for (l = 0; l < w; l++) {
			rem = e + l;
			for (k = g->nwd - 1; k >= 0; k--) {
				widx[k] = rem % g->ud[g->wd[k]];
				rem /= g->ud[g->wd[k]];
			}
			oo[l] = obase;
			uo[l] = ubase;
			for (k = 0; k < g->nwd; k++) {
				oo[l] += widx[k] * g->ostr[g->wo[k]];
				uo[l] += widx[k] * g->ustr[g->wd[k]];
			}
		}
		if (assign && n == 1 && vs[0]->type == us[0]->type) {
			int64_t vz = ev_esz(vs[0]->type);

			for (l = 0; l < w; l++)
				memcpy(vs[0]->data + oo[l] * vz,
					us[0]->data + uo[l] * vz, vz);
			continue;
		}
		for (j = 0; j < n; j++) {
			int64_t vz = ev_esz(vs[j]->type);
			int64_t uz = ev_esz(us[j]->type);
			Lane *pa = app_param(a, j), *pb = app_param(a, n + j);

			for (l = 0; l < w; l++) {
				ev_lane_load(vs[j]->type, vs[j]->data + oo[l] * vz,
					1, &pa[l]);
				ev_lane_load(us[j]->type, us[j]->data + uo[l] * uz,
					1, &pb[l]);
			}
			if (op >= 0) {
				for (l = 0; l < w; l++)
					fold1(op, type, &pa[l], &pb[l]);
				for (l = 0; l < w; l++)
					ev_lane_store(vs[j]->type, &pa[l], 1,
						vs[j]->data + oo[l] * vz);
			}
		}
		if (op >= 0)
			continue;
		if (app_run(a, w) < 0)
			return -1;
		for (j = 0; j < n; j++)
			for (l = 0; l < w; l++)
				ev_lane_store(vs[j]->type, app_out(a, j) + l, 1,
					vs[j]->data + oo[l] *
					ev_esz(vs[j]->type));
	}
	return 0;
}

static int
scatter(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloModule *m = ev->m;
	const HloInstr *in = hlo_ins(m, c, i);
	const HloShape *sh = hlo_sh(m, in->shape);
	uint32_t n = (in->nops - 1) / 2, comp, j;
	HloVal *vs[32], *ix, **us;
	ScatGeo g;
	App a;
	int64_t sidx[MAXR], obase, ubase, nw = 1;
	int op = -1, type = 0, assign, k, rc = -1;

	if (in->nops < 3 || in->nops % 2 == 0 || n > 32)
		return ev_unsupported(ev, c, i, "bad operand count");
	if (called(ev, c, i, 0, &comp) < 0)
		return -1;
	ix = ops[n];
	us = ops + n + 1;
	for (j = 0; j < n; j++)
		if (ops[j]->type >= TY_TUPLE || us[j]->type >= TY_TUPLE ||
		    ops[j]->n != ops[0]->n || us[j]->n != us[0]->n)
			return ev_unsupported(ev, c, i, "bad operands");
	if (ix->type >= TY_TUPLE || hlo_typeinfo[ix->type].cls == C_FLOAT ||
	    scatgeo(ev, in, ops[0], ix, us[0], &g) < 0)
		return ev_unsupported(ev, c, i, "bad scatter dimensions");
	if (n > 1 && (sh->type != TY_TUPLE || sh->ntuple != n))
		return ev_unsupported(ev, c, i, "result arity differs");
	for (j = 0; j < n; j++) {
		uint32_t es = n > 1 ? hlo_tuple_elems(m, sh)[j] : in->shape;

		vs[j] = scat_copy(ev, ops[j], es, (ev->consume >> j) & 1);
		if (!vs[j] || vs[j]->type != ops[j]->type ||
		    vs[j]->n != ops[j]->n) {
			int bad = vs[j] != NULL;

			if (vs[j])
				j++;
			while (j--)
				hlo_val_unref(ev, vs[j]);
			return bad ? ev_unsupported(ev, c, i, "result shape "
				"differs") : -1;
		}
	}
	if (n > 1) {
		*out = hlo_val_tuple(ev, in->shape);
		for (j = 0; j < n; j++)
			(*out)->elems[j] = vs[j];
	} else {
		*out = vs[0];
	}
	if (app_init(ev, comp, 2 * n, n, &a) < 0)
		goto done;
	if (n == 1) {
		op = binop(&a, &type);
		if (op >= 0 && type != vs[0]->type)
			op = -1;
	}
	assign = is_second(&a);
	for (k = 0; k < g.nwd; k++)
		nw *= g.ud[g.wd[k]];
	memset(sidx, 0, sizeof sidx);
	if (us[0]->n > 0)
		for (;;) {
			if (scat_window(&g, ix, sidx, &obase, &ubase) == 0 &&
			    scatter_apply(ev, &g, &a, n, us, vs, op, type,
			    assign, obase, ubase, nw) < 0)
				goto done;
			for (k = g.nsc - 1; k >= 0; k--) {
				if (++sidx[k] < g.ud[g.scd[k]])
					break;
				sidx[k] = 0;
			}
			if (k < 0)
				break;
		}
	rc = 0;
done:
	app_fini(&a);
	if (rc < 0) {
		hlo_val_unref(ev, *out);
		*out = NULL;
	}
	return rc;
}

/* sort */

typedef struct {
	App *a;
	uint32_t n;
	Lane **vals;		/* per operand, the row's elements */
	const Lane *keys;	/* key fast path: per element of the row */
	EwOp cmp;
	int err;
} SortCtx;

static int
less(SortCtx *s, int64_t x, int64_t y)
{
	Lane r;
	uint32_t k;

	if (s->keys) {
		ev_ew_run(&s->cmp, 1, &r, &s->keys[x], &s->keys[y], NULL);
		return r.u != 0;
	}
	if (s->err)
		return 0;
	for (k = 0; k < s->n; k++) {
		app_param(s->a, 2 * k)[0] = s->vals[k][x];
		app_param(s->a, 2 * k + 1)[0] = s->vals[k][y];
	}
	if (app_run(s->a, 1) < 0) {
		s->err = 1;
		return 0;
	}
	return app_out(s->a, 0)[0].u != 0;
}

static void
mergesort_idx(SortCtx *s, int64_t *v, int64_t *tmp, int64_t n)
{
	int64_t width, lo, mid, hi, a, b, k;

	for (width = 1; width < n; width *= 2) {
		for (lo = 0; lo < n; lo += 2 * width) {
			mid = lo + width < n ? lo + width : n;
			hi = lo + 2 * width < n ? lo + 2 * width : n;
			a = lo;
			b = mid;
			k = lo;
			while (a < mid && b < hi)
				tmp[k++] = less(s, v[b], v[a]) ? v[b++] :
					v[a++];
			while (a < mid)
				tmp[k++] = v[a++];
			while (b < hi)
				tmp[k++] = v[b++];
		}
		memcpy(v, tmp, n * sizeof *v);
	}
}

/* the parameters register r depends on, as a bit set */
static uint64_t
deps(const EvProg *p, uint32_t r)
{
	uint64_t *dep = xcalloc(p->nregs + 1, sizeof *dep), m;
	uint32_t k;

	for (k = 0; k < p->np && k < 64; k++)
		dep[p->preg[k]] = (uint64_t)1 << k;
	for (k = 0; k < p->nsteps; k++) {
		const PStep *s = &p->steps[k];

		dep[s->dst] = dep[s->a] | dep[s->b] | dep[s->c];
	}
	m = dep[r];
	free(dep);
	return m;
}

/* the key fast path: the comparator is compare(f(p0), g(p1)) where f
 * reads only p0 and g only p1; keys f(x) for every element of operand 0,
 * used when f and g agree on all of them */
static Lane *
sort_keys(HloEval *ev, App *a, uint32_t n, HloVal **ops, EwOp *cmp)
{
	const EvProg *p = a->p;
	const PStep *root;
	uint32_t x, y, k;
	int64_t o, w, l;
	size_t ksz;
	Lane *keys;

	if (!p || p->nsteps == 0 || p->no != 1 || p->np > 64)
		return NULL;
	root = &p->steps[p->nsteps - 1];
	if (root->kind != S_EW || root->o.op != HOP_COMPARE ||
	    root->dst != p->oreg[0])
		return NULL;
	x = root->a;
	y = root->b;
	ksz = hlo_typeinfo[root->o.t0].cls == C_CPLX ? 16 : 8;
	if ((deps(p, x) & ~(uint64_t)1) || (deps(p, y) & ~(uint64_t)2))
		return NULL;
	keys = ev_scratch(ev, (uint64_t)ops[0]->n * sizeof *keys);
	if (!keys)
		return NULL;
	for (o = 0; o < ops[0]->n; o += w) {
		w = ops[0]->n - o < W ? ops[0]->n - o : W;
		for (k = 1; k < 2 * n; k++)
			memset(app_param(a, k), 0, w * sizeof(Lane));
		ev_lane_load(a->ptype[0], ops[0]->data + o *
			ev_esz(ops[0]->type), w, app_param(a, 0));
		memcpy(app_param(a, 1), app_param(a, 0), w * sizeof(Lane));
		prog_run(p, a->R, w);
		for (l = 0; l < w; l++) {
			if (memcmp(&a->R[x * W + l], &a->R[y * W + l], ksz)) {
				ev_scratch_free(ev, keys, (uint64_t)ops[0]->n *
					sizeof *keys);
				return NULL;
			}
			keys[o + l] = a->R[x * W + l];
		}
	}
	*cmp = root->o;
	return keys;
}

static int
sortop(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloModule *m = ev->m;
	const HloInstr *in = hlo_ins(m, c, i);
	uint32_t n = in->nops, comp, j, nd;
	const int64_t *dm = hlo_attr_ints(m, in, A_DIMENSIONS, &nd);
	HloVal *vs[32];
	SortCtx s;
	App a;
	Lane *keys = NULL, *rowkeys = NULL, *vals[32];
	int64_t *idx = NULL, *tmp = NULL, len, inner, outer, o, t, e, q;
	int rank, d, rc = -1;
	const int64_t *dims;

	if (n == 0 || n > 32 || !dm || nd != 1)
		return ev_unsupported(ev, c, i, "bad sort operands");
	if (called(ev, c, i, 0, &comp) < 0)
		return -1;
	dims = ev_dims(ev, ops[0]->shape, &rank);
	if (dm[0] < 0 || dm[0] >= rank)
		return ev_unsupported(ev, c, i, "bad dimension");
	for (j = 0; j < n; j++)
		if (ops[j]->type >= TY_TUPLE || ops[j]->n != ops[0]->n)
			return ev_unsupported(ev, c, i, "bad sort operands");
	if (results(ev, in, n, vs, out) < 0) {
		hlo_val_unref(ev, *out);
		*out = NULL;
		return -1;
	}
	for (j = 0; j < n; j++)
		if (vs[j]->n != ops[j]->n || vs[j]->type != ops[j]->type) {
			hlo_val_unref(ev, *out);
			*out = NULL;
			return ev_unsupported(ev, c, i, "result shape differs");
		}
	memset(vals, 0, sizeof vals);
	if (app_init(ev, comp, 2 * n, 1, &a) < 0)
		goto done;
	len = dims[dm[0]];
	inner = 1;
	for (d = dm[0] + 1; d < rank; d++)
		inner *= dims[d];
	outer = (len * inner) != 0 ? ops[0]->n / (len * inner) : 0;
	memset(&s, 0, sizeof s);
	s.a = &a;
	s.n = n;
	s.vals = vals;
	keys = sort_keys(ev, &a, n, ops, &s.cmp);
	if (ev->status)
		goto done;
	idx = xcalloc(len + 1, sizeof *idx);
	tmp = xcalloc(len + 1, sizeof *tmp);
	if (keys)
		rowkeys = xcalloc(len + 1, sizeof *rowkeys);
	else
		for (j = 0; j < n; j++)
			vals[j] = xcalloc(len + 1, sizeof(Lane));
	for (o = 0; o < outer; o++)
		for (t = 0; t < inner; t++) {
			int64_t base = o * len * inner + t;

			for (e = 0; e < len; e++) {
				idx[e] = e;
				if (keys)
					rowkeys[e] = keys[base + e * inner];
				else
					for (j = 0; j < n; j++)
						ev_lane_load(ops[j]->type,
							ops[j]->data + (base +
							e * inner) *
							ev_esz(ops[j]->type), 1,
							&vals[j][e]);
			}
			s.keys = rowkeys;
			mergesort_idx(&s, idx, tmp, len);
			if (s.err)
				goto done;
			for (j = 0; j < n; j++) {
				int64_t z = ev_esz(ops[j]->type);

				for (e = 0; e < len; e++) {
					q = base + idx[e] * inner;
					memcpy(vs[j]->data + (base +
						e * inner) * z,
						ops[j]->data + q * z, z);
				}
			}
		}
	rc = 0;
done:
	app_fini(&a);
	if (keys)
		ev_scratch_free(ev, keys, (uint64_t)ops[0]->n * sizeof *keys);
	free(rowkeys);
	free(idx);
	free(tmp);
	for (j = 0; j < n; j++)
		free(vals[j]);
	if (rc < 0) {
		hlo_val_unref(ev, *out);
		*out = NULL;
	}
	return rc;
}

/* topk: the k largest (or smallest) along the last dim, stable, in the
 * float total order */
static int
topk(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloModule *m = ev->m;
	const HloInstr *in = hlo_ins(m, c, i);
	int64_t k = hlo_attr_int(m, in, A_K, -1), len, rows, r, e;
	int largest = hlo_attr_int(m, in, A_LARGEST, 1) != 0, rank;
	const int64_t *dims;
	HloVal *vs[2], *x = ops[0];
	SortCtx s;
	Lane *keys;
	int64_t *idx, *tmp, z;
	Lane l;

	if (x->type >= TY_TUPLE || in->nops != 1 ||
	    hlo_typeinfo[x->type].cls == C_CPLX)
		return ev_unsupported(ev, c, i, "bad operand");
	dims = ev_dims(ev, x->shape, &rank);
	if (rank < 1 || k < 0 || k > dims[rank - 1])
		return ev_unsupported(ev, c, i, "bad k");
	if (results(ev, in, 2, vs, out) < 0) {
		hlo_val_unref(ev, *out);
		*out = NULL;
		return -1;
	}
	len = dims[rank - 1];
	rows = len ? x->n / len : 0;
	if (vs[0]->type != x->type || vs[0]->n != rows * k ||
	    vs[1]->n != rows * k || hlo_typeinfo[vs[1]->type].cls == C_FLOAT) {
		hlo_val_unref(ev, *out);
		*out = NULL;
		return ev_unsupported(ev, c, i, "result shape differs");
	}
	memset(&s, 0, sizeof s);
	s.cmp.op = HOP_COMPARE;
	s.cmp.type = TY_PRED;
	s.cmp.t0 = s.cmp.t1 = x->type;
	s.cmp.dir = largest ? CMP_GT : CMP_LT;
	s.cmp.total = 1;
	keys = xcalloc(len + 1, sizeof *keys);
	idx = xcalloc(len + 1, sizeof *idx);
	tmp = xcalloc(len + 1, sizeof *tmp);
	z = ev_esz(x->type);
	for (r = 0; r < rows; r++) {
		ev_lane_load(x->type, x->data + r * len * z, len, keys);
		for (e = 0; e < len; e++)
			idx[e] = e;
		s.keys = keys;
		mergesort_idx(&s, idx, tmp, len);
		for (e = 0; e < k; e++) {
			memcpy(vs[0]->data + (r * k + e) * z,
				x->data + (r * len + idx[e]) * z, z);
			l.s = idx[e];
			ev_lane_store(vs[1]->type, &l, 1, vs[1]->data +
				(r * k + e) * ev_esz(vs[1]->type));
		}
	}
	free(keys);
	free(idx);
	free(tmp);
	return 0;
}

/* the TopK custom-call (xla's TopkRewriter output): per row of the last
 * dimension, a stable sort by the call's comparator (values, and s32
 * positions when it takes four parameters), the first k of each row, k
 * from the result shape; (values, s32 indices) */
int
ev_topk_call(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloModule *m = ev->m;
	const HloInstr *in = hlo_ins(m, c, i);
	HloVal *vs[2], *x = ops[0];
	int64_t len, rows, r, e, k, z, *idx = NULL, *tmp = NULL;
	const int64_t *dims;
	uint32_t comp, np;
	int rank, rc = -1;
	Lane *vals[2] = {NULL, NULL}, l;
	SortCtx s;
	App a;

	if (in->nops != 1 || x->type >= TY_TUPLE)
		return ev_unsupported(ev, c, i, "bad TopK operand");
	if (called(ev, c, i, 0, &comp) < 0)
		return -1;
	np = (uint32_t)hlo_param_count(m, comp);
	if (np != 2 && np != 4)
		return ev_unsupported(ev, c, i, "TopK comparator arity");
	dims = ev_dims(ev, x->shape, &rank);
	if (rank < 1 || results(ev, in, 2, vs, out) < 0) {
		hlo_val_unref(ev, *out);
		*out = NULL;
		return rank < 1 ? ev_unsupported(ev, c, i, "rank 0") : -1;
	}
	len = dims[rank - 1];
	rows = len ? x->n / len : 0;
	k = rows ? vs[0]->n / rows : 0;
	if (vs[0]->type != x->type || k > len || vs[1]->n != vs[0]->n ||
	    hlo_typeinfo[vs[1]->type].cls == C_FLOAT) {
		hlo_val_unref(ev, *out);
		*out = NULL;
		return ev_unsupported(ev, c, i, "result shape differs");
	}
	if (app_init(ev, comp, np, 1, &a) < 0)
		goto done;
	memset(&s, 0, sizeof s);
	s.a = &a;
	s.n = np / 2;
	s.vals = vals;
	idx = xcalloc(len + 1, sizeof *idx);
	tmp = xcalloc(len + 1, sizeof *tmp);
	vals[0] = xcalloc(len + 1, sizeof(Lane));
	vals[1] = xcalloc(len + 1, sizeof(Lane));
	z = ev_esz(x->type);
	for (r = 0; r < rows; r++) {
		ev_lane_load(x->type, x->data + r * len * z, len, vals[0]);
		for (e = 0; e < len; e++) {
			idx[e] = e;
			vals[1][e].s = e;
		}
		mergesort_idx(&s, idx, tmp, len);
		if (s.err)
			goto done;
		for (e = 0; e < k; e++) {
			memcpy(vs[0]->data + (r * k + e) * z,
				x->data + (r * len + idx[e]) * z, z);
			l.s = idx[e];
			ev_lane_store(vs[1]->type, &l, 1, vs[1]->data +
				(r * k + e) * ev_esz(vs[1]->type));
		}
	}
	rc = 0;
done:
	app_fini(&a);
	free(idx);
	free(tmp);
	free(vals[0]);
	free(vals[1]);
	if (rc < 0) {
		hlo_val_unref(ev, *out);
		*out = NULL;
	}
	return rc;
}

int
ev_ctrl(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	uint32_t comp;

	switch (in->op) {
	case HOP_CALL: case HOP_FUSION:
		if (called(ev, c, i, 0, &comp) < 0)
			return -1;
		if (in->op == HOP_FUSION && !ev->untiled) {
			int r = ev_fused(ev, c, i, comp, ops, out);

			if (r)
				return r < 0 ? -1 : 0;
		}
		return hlo_eval_comp(ev, comp, ops, in->nops, out);
	case HOP_WHILE:
		return in->nops == 1 ? whileloop(ev, c, i, ops, out) :
			ev_unsupported(ev, c, i, "bad operands");
	case HOP_CONDITIONAL:
		return conditional(ev, c, i, ops, out);
	case HOP_ASYNCSTART:
		return asyncstart(ev, c, i, ops, out);
	case HOP_ASYNCUPDATE:
		*out = hlo_val_ref(ops[0]);
		return 0;
	case HOP_ASYNCDONE:
		if (ops[0]->type != TY_TUPLE || ops[0]->n < 2)
			return ev_unsupported(ev, c, i, "operand is not an "
				"async tuple");
		*out = hlo_val_ref(ops[0]->elems[1]);
		return 0;
	case HOP_MAP:
		return map(ev, c, i, ops, out);
	case HOP_REDUCE:
		return reduce(ev, c, i, ops, out);
	case HOP_REDUCEWINDOW:
		return reducewindow(ev, c, i, ops, out);
	case HOP_SELECTANDSCATTER:
		return selectscatter(ev, c, i, ops, out);
	case HOP_SCATTER:
		return scatter(ev, c, i, ops, out);
	case HOP_SORT:
		return sortop(ev, c, i, ops, out);
	case HOP_TOPK:
		return topk(ev, c, i, ops, out);
	}
	return ev_unsupported(ev, c, i, "opcode not supported by the "
		"evaluator");
}
