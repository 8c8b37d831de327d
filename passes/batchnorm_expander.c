/* batchnorm_expander.c: "batchnorm_expander", xla's BatchNormExpander
 * with training, inference and grad rewriting on (as XLA:CPU runs it;
 * xla/service/batchnorm_expander.cc, openxla/xla as of 2025-03).
 *
 * In every non-fusion computation, each batch-norm-training,
 * batch-norm-inference and batch-norm-grad becomes elementwise ops,
 * broadcasts along feature_index and add-reductions over the other
 * dimensions (each expansion gets its own scalar_add_computation):
 *   training:  mean = sum(x)/N, var = sum(x*x)/N - mean^2,
 *              y = (x - mean) * rsqrt(var + eps) * scale + offset,
 *              tuple(y, mean, var)
 *   inference: s = scale * rsqrt(var + eps), y = x * s + (offset - mean*s)
 *   grad:      tuple(scale*rsqrt(var+eps)/N * (N*dy - sum(dy) -
 *              (x-mean)*sum(dy*(x-mean))/(var+eps)),
 *              sum(dy*(x-mean)) * rsqrt(var+eps), sum(dy))
 * N, the elements per feature, is computed as xla does: get-dimension-size
 * of every other dimension multiplied into an s32 and converted. epsilon
 * is xla's float, converted to the element type. Every added instruction
 * takes the batch norm's metadata; with a sharding, those of the
 * operand's shape take the operand's sharding (element 0 of a tuple
 * sharding), the others a maximal device when the sharding has a unique
 * one, else replicated. Instructions with control dependencies are left
 * alone (PassEdit cannot relay them onto a tuple of new instructions).
 */
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "eval.h"

typedef struct {
	uint32_t bn;		/* the batch norm */
	uint32_t first;		/* first instruction added */
	int type;		/* element type */
	int64_t fi;		/* feature_index */
	int rank;
	int64_t dims[64];	/* every dimension but fi */
	uint32_t addc;		/* the scalar add computation */
	uint32_t zero;
} Bn;

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	const HloInstr *in = pass_ins(ed, i);
	int t;

	(void)arg;
	if (!((in->op == HOP_BNTRAIN && in->nops == 3) ||
	    ((in->op == HOP_BNINFER || in->op == HOP_BNGRAD) &&
	    in->nops == 5)))
		return 0;
	t = pass_b_type(ed, pass_opnd(ed, i, 0));
	return hlo_typeinfo[t].cls == C_FLOAT &&
		hlo_sh(ed->m, pass_b_shape(ed, pass_opnd(ed, i, 0)))->rank <= 64;
}

static uint32_t
static_shape(HloModule *m, uint32_t s)
{
	const HloShape *sh = hlo_sh(m, s);
	uint32_t tail;

	if (!sh->dynmask)
		return s;
	tail = sh->tail;
	return hlo_shape(m, sh->type, sh->rank, hlo_dims(m, sh),
		(sh->flags & SH_LAYOUT) ? hlo_m2m(m, sh) : NULL, 0, tail);
}

/* x broadcast along fi to the operand's (static) shape; dynamic in fi
 * when x's dimension is */
static uint32_t
fbcast(PassEdit *ed, Bn *b, uint32_t x, uint32_t opshape)
{
	HloModule *m = ed->m;
	uint32_t s = static_shape(m, opshape);
	const HloShape *sh;

	if (hlo_sh(m, pass_b_shape(ed, x))->dynmask & 1) {
		sh = hlo_sh(m, s);
		s = hlo_shape(m, sh->type, sh->rank, hlo_dims(m, sh),
			(sh->flags & SH_LAYOUT) ? hlo_m2m(m, sh) : NULL,
			(uint64_t)1 << b->fi, sh->tail);
	}
	return pass_b_bcast(ed, x, s, 1, &b->fi);
}

static uint32_t
scalar_bcast(PassEdit *ed, uint32_t x, uint32_t shape)
{
	return pass_b_bcast(ed, x, static_shape(ed->m, shape), 0, NULL);
}

/* xla's DynamicElementCountPerFeature: the product of the other
 * dimensions' sizes, as a scalar of the element type */
static uint32_t
count(PassEdit *ed, Bn *b, uint32_t x)
{
	HloModule *m = ed->m;
	uint32_t s32 = hlo_shape_scalar(m, TY_S32);
	uint32_t acc = pass_b_scalar(ed, TY_S32, 1), g, o[2];
	int64_t d;
	HloAttr a;
	int k;

	for (k = 0; k < b->rank - 1; k++) {
		d = b->dims[k];
		g = pass_b_op(ed, HOP_GETDIMSIZE, s32, 1, &x);
		a = hlo_mk_ints(m, A_DIMENSIONS, &d, 1);
		hlo_set_attrs(m, ed->c, g, 1, &a);
		o[0] = g;
		o[1] = acc;
		acc = pass_b_op(ed, HOP_MUL, s32, 2, o);
	}
	return pass_b_convert(ed, acc, b->type);
}

/* xla's Mean: x / broadcast(n) */
static uint32_t
mean(PassEdit *ed, uint32_t n, uint32_t x)
{
	return pass_b_binary(ed, HOP_DIVIDE, x, scalar_bcast(ed, n,
		pass_b_shape(ed, x)));
}

static uint32_t
sum(PassEdit *ed, Bn *b, uint32_t x, uint32_t fshape)
{
	return pass_b_reduce(ed, x, b->zero, static_shape(ed->m, fshape),
		(uint32_t)(b->rank - 1), b->dims, b->addc);
}

/* xla's float epsilon converted to the element type; the evaluator
 * reads it the same way (it evaluates batch norms as this expansion) */
static uint32_t
epsilon(PassEdit *ed, Bn *b)
{
	return pass_b_scalar(ed, b->type, ev_bn_epsilon(ed->m,
		pass_ins(ed, b->bn)));
}

static uint32_t
add_comp(PassEdit *ed, Bn *b)
{
	return pass_b_scalar_comp(ed->m, "scalar_add_computation", HOP_ADD,
		b->type, "scalar_lhs", "scalar_rhs");
}

static uint32_t
training(PassEdit *ed, Bn *b)
{
	uint32_t x = pass_opnd(ed, b->bn, 0), sc = pass_opnd(ed, b->bn, 1);
	uint32_t off = pass_opnd(ed, b->bn, 2), xs = pass_b_shape(ed, x);
	uint32_t fs = pass_b_shape(ed, sc), eps, n, scb, offb, x2, s, s2, mn;
	uint32_t mnb, sqm, msq, var, varb, r, o[3];

	b->zero = pass_b_scalar(ed, b->type, 0);
	eps = scalar_bcast(ed, epsilon(ed, b), xs);
	n = count(ed, b, x);
	scb = fbcast(ed, b, sc, xs);
	offb = fbcast(ed, b, off, xs);
	b->addc = add_comp(ed, b);
	x2 = pass_b_binary(ed, HOP_MUL, x, x);
	s = sum(ed, b, x, fs);
	s2 = sum(ed, b, x2, fs);
	mn = mean(ed, n, s);
	mnb = fbcast(ed, b, mn, xs);
	sqm = mean(ed, n, s2);
	msq = pass_b_binary(ed, HOP_MUL, mn, mn);
	var = pass_b_binary(ed, HOP_SUBTRACT, sqm, msq);
	varb = fbcast(ed, b, var, xs);
	r = pass_b_unary(ed, HOP_RSQRT, pass_b_binary(ed, HOP_ADD, varb, eps));
	r = pass_b_binary(ed, HOP_MUL, pass_b_binary(ed, HOP_SUBTRACT, x, mnb),
		r);
	r = pass_b_binary(ed, HOP_MUL, r, scb);
	o[0] = pass_b_binary(ed, HOP_ADD, r, offb);
	o[1] = mn;
	o[2] = var;
	return pass_b_op(ed, HOP_TUPLE, pass_ins(ed, b->bn)->shape, 3, o);
}

static uint32_t
inference(PassEdit *ed, Bn *b)
{
	uint32_t x = pass_opnd(ed, b->bn, 0), sc = pass_opnd(ed, b->bn, 1);
	uint32_t off = pass_opnd(ed, b->bn, 2), mn = pass_opnd(ed, b->bn, 3);
	uint32_t var = pass_opnd(ed, b->bn, 4), xs = pass_b_shape(ed, x);
	uint32_t fs = pass_b_shape(ed, sc), eps, ts, tsh;

	eps = scalar_bcast(ed, epsilon(ed, b), fs);
	b->first = ed->m->comps[ed->c].nins;	/* eps is not in xla's list */
	ts = pass_b_binary(ed, HOP_ADD, var, eps);
	ts = pass_b_binary(ed, HOP_MUL, sc, pass_b_unary(ed, HOP_RSQRT, ts));
	tsh = pass_b_binary(ed, HOP_SUBTRACT, off, pass_b_binary(ed, HOP_MUL,
		mn, ts));
	return pass_b_binary(ed, HOP_ADD, pass_b_binary(ed, HOP_MUL, x,
		fbcast(ed, b, ts, xs)), fbcast(ed, b, tsh, xs));
}

static uint32_t
grad(PassEdit *ed, Bn *b)
{
	uint32_t x = pass_opnd(ed, b->bn, 0), sc = pass_opnd(ed, b->bn, 1);
	uint32_t mn = pass_opnd(ed, b->bn, 2), var = pass_opnd(ed, b->bn, 3);
	uint32_t dy = pass_opnd(ed, b->bn, 4), xs = pass_b_shape(ed, x);
	uint32_t fs = pass_b_shape(ed, sc), n, e, ex, ef, scb, varb, mnb, rb;
	uint32_t rf, xm, dxm, sdxm, gb, gs, i1, i2, i3, i5, st, o[3];

	n = count(ed, b, x);
	b->zero = pass_b_scalar(ed, b->type, 0);
	e = epsilon(ed, b);
	ex = scalar_bcast(ed, e, xs);
	ef = scalar_bcast(ed, e, fs);
	scb = fbcast(ed, b, sc, xs);
	varb = fbcast(ed, b, var, xs);
	mnb = fbcast(ed, b, mn, xs);
	rb = pass_b_unary(ed, HOP_RSQRT, pass_b_binary(ed, HOP_ADD, varb, ex));
	rf = pass_b_unary(ed, HOP_RSQRT, pass_b_binary(ed, HOP_ADD, var, ef));
	xm = pass_b_binary(ed, HOP_SUBTRACT, x, mnb);
	dxm = pass_b_binary(ed, HOP_MUL, dy, xm);
	b->addc = add_comp(ed, b);
	sdxm = sum(ed, b, dxm, fs);
	gb = sum(ed, b, dy, fs);
	gs = pass_b_binary(ed, HOP_MUL, sdxm, rf);
	i2 = fbcast(ed, b, gb, xs);
	i3 = fbcast(ed, b, sdxm, xs);
	i5 = pass_b_binary(ed, HOP_MUL, i3, xm);
	i5 = pass_b_binary(ed, HOP_DIVIDE, i5, pass_b_binary(ed, HOP_ADD,
		varb, ex));
	st = mean(ed, n, pass_b_binary(ed, HOP_MUL, scb, rb));
	i1 = pass_b_binary(ed, HOP_MUL, dy, scalar_bcast(ed, n, xs));
	i1 = pass_b_binary(ed, HOP_SUBTRACT, pass_b_binary(ed, HOP_SUBTRACT,
		i1, i2), i5);
	o[0] = pass_b_binary(ed, HOP_MUL, st, i1);
	o[1] = gs;
	o[2] = gb;
	return pass_b_op(ed, HOP_TUPLE, pass_ins(ed, b->bn)->shape, 3, o);
}

/* the first element of a tuple sharding "{{...}, ...}", else s itself */
static void
elem0(const char *s, uint32_t n, uint32_t *off, uint32_t *len)
{
	uint32_t k, depth = 0;

	*off = 0;
	*len = n;
	if (n < 4 || s[0] != '{' || s[1] != '{')
		return;
	for (k = 1; k < n; k++) {
		if (s[k] == '{')
			depth++;
		else if (s[k] == '}' && --depth == 0)
			break;
	}
	if (k < n) {
		*off = 1;
		*len = k;
	}
}

/* xla's sharding_unique_device: every leaf "maximal device=N" with one
 * N; -1 if none */
static long
unique_device(const char *s, uint32_t n)
{
	const char *p = s, *end = s + n, *q;
	long dev = -1, d;
	int leaves = 0, maximal = 0;

	for (; p < end; p++) {
		if (*p != '{' || (p + 1 < end && p[1] == '{'))
			continue;
		leaves++;
		q = p + 1;
		while (q < end && *q == ' ')
			q++;
		if ((size_t)(end - q) < 15 || memcmp(q, "maximal device=", 15))
			return -1;
		d = strtol(q + 15, NULL, 10);
		if (maximal++ && d != dev)
			return -1;
		dev = d;
	}
	return leaves ? dev : -1;
}

static void
annotate(PassEdit *ed, Bn *b, uint32_t result, uint32_t opshape, int tuple)
{
	HloModule *m = ed->m;
	const HloAttr *pa = hlo_attr(m, pass_ins(ed, b->bn), A_METADATA);
	HloAttr meta = pa ? *pa : (HloAttr){0}, sh = {0}, a;
	uint32_t i, end = m->comps[ed->c].nins, off, len;
	int hasmeta = pa != NULL;
	char dflt[64];
	long dev;

	for (i = b->first; hasmeta && i < end; i++)
		if (i != result || !tuple)
			hlo_attr_set(m, ed->c, i, &meta);
	pa = hlo_attr(m, pass_ins(ed, b->bn), A_SHARDING);
	if (pa)
		sh = *pa;
	if (!pa)
		return;
	dev = unique_device(m->bytes + sh.v, sh.n);
	if (dev >= 0)
		snprintf(dflt, sizeof dflt, "{maximal device=%ld}", dev);
	else
		snprintf(dflt, sizeof dflt, "{replicated}");
	elem0(m->bytes + sh.v, sh.n, &off, &len);
	for (i = b->first; i < end; i++) {
		if (i == result) {
			a = sh;
		} else if (pass_shape_equal(m, pass_ins(ed, i)->shape,
		    opshape)) {
			char *t = xmalloc(len + 1);

			memcpy(t, m->bytes + sh.v + off, len);
			a = hlo_mk_bytes(m, A_SHARDING, K_RAW, t, len);
			free(t);
		} else {
			a = hlo_mk_bytes(m, A_SHARDING, K_RAW, dflt,
				strlen(dflt));
		}
		hlo_attr_set(m, ed->c, i, &a);
	}
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);
	uint32_t x = pass_opnd(ed, i, 0), r, opshape;
	const HloShape *sh = hlo_sh(m, pass_b_shape(ed, x));
	int op = in->op, k;
	Bn b;

	(void)arg;
	memset(&b, 0, sizeof b);
	b.bn = i;
	b.type = sh->type;
	b.rank = sh->rank;
	b.fi = hlo_attr_int(m, in, A_FEATURE_INDEX, 0);
	if (b.fi < 0 || b.fi >= b.rank)
		return HLO_NONE;
	for (k = 0; k < b.rank; k++)
		if (k != b.fi)
			b.dims[k - (k > b.fi)] = k;
	opshape = pass_b_shape(ed, x);
	b.first = m->comps[ed->c].nins;
	if (op == HOP_BNTRAIN)
		r = training(ed, &b);
	else if (op == HOP_BNINFER)
		r = inference(ed, &b);
	else
		r = grad(ed, &b);
	annotate(ed, &b, r, opshape, op != HOP_BNINFER);
	return r;
}

int
pass_batchnorm_expander(HloModule *m, PassCtx *ctx)
{
	return pass_expand(m, ctx, match, expand, NULL);
}
