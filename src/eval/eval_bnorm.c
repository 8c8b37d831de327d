/* eval_bnorm.c: batch-norm-training, batch-norm-inference and
 * batch-norm-grad, evaluated as XLA's BatchNormExpander expansion.
 *
 * No XLA backend executes these opcodes: every compiler rewrites them
 * with BatchNormExpander (xla/service/batchnorm_expander.cc; hlopt's
 * action batchnorm_expander, passes/batchnorm_expander.c, which the
 * default pipeline runs) and XLA's HloEvaluator refuses them, so their
 * meaning is that expansion's. The evaluator computes exactly it: the
 * same formulas (the variance as E[x^2] - E[x]^2), in the operand's
 * element type T, every step with the kernels the evaluator runs on the
 * expanded module (ev_ew_span for the elementwise ops, ev_reduce_add for
 * the add-reductions over every dimension but feature_index), the element
 * count N as the s32 product of the other dimensions converted to T, and
 * epsilon as xla's float converted to T (ev_bn_epsilon, which the pass
 * shares). An original and its expansion therefore evaluate bit for bit
 * alike (tests/check_passes.c, bnorm_is_expansion). With
 * B(v) v broadcast along feature_index and sum() the add-reduction:
 *   training:  mean = sum(x) / N, var = sum(x * x) / N - mean * mean,
 *              y = ((x - B(mean)) * B(rsqrt(var + eps)) * B(scale))
 *              + B(offset); result (y, mean, var)
 *   inference: s = scale * rsqrt(var + eps), t = offset - mean * s,
 *              y = x * B(s) + B(t)
 *   grad:      r = rsqrt(var + eps), xm = x - B(mean),
 *              sdxm = sum(dy * xm), gb = sum(dy),
 *              dx = B((scale * r) / N) * ((dy * N - B(gb))
 *                   - (B(sdxm) * xm) / B(var + eps)),
 *              result (dx, sdxm * r, gb)
 * An elementwise op on broadcasts of per-feature vectors gives the same
 * value per feature, so such steps run once per feature; the steps over
 * the operand's shape run a chunk at a time, split over threads, with
 * the broadcasts filled in per chunk. */
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "eval.h"

#define MAXR 64
#define CH 512		/* elements per chunk */

/* the registers of the per-element steps: the operand, the gradient,
 * two temporaries, the result, per-feature vectors (broadcast) and N */
enum { R_X, R_DY, R_T0, R_T1, R_OUT, R_F0, R_F1, R_F2, R_F3, R_F4, R_N,
	R_COUNT };

typedef struct {
	uint16_t op;
	uint8_t dst, a, b;	/* b: R_COUNT for a unary op */
} BnStep;

/* training: y = ((x - mean) * rsqrt(var + eps) * scale) + offset */
static const BnStep train_y[] = {
	{HOP_SUBTRACT, R_T0, R_X, R_F0}, {HOP_MUL, R_T0, R_T0, R_F1},
	{HOP_MUL, R_T0, R_T0, R_F2}, {HOP_ADD, R_OUT, R_T0, R_F3},
};
static const BnStep train_sq[] = {{HOP_MUL, R_OUT, R_X, R_X}};
/* inference: y = x * s + t */
static const BnStep infer_y[] = {
	{HOP_MUL, R_T0, R_X, R_F0}, {HOP_ADD, R_OUT, R_T0, R_F1},
};
/* grad: dy * (x - mean), then dx */
static const BnStep grad_dxm[] = {
	{HOP_SUBTRACT, R_T0, R_X, R_F0}, {HOP_MUL, R_OUT, R_DY, R_T0},
};
static const BnStep grad_dx[] = {
	{HOP_SUBTRACT, R_T0, R_X, R_F0}, {HOP_MUL, R_T0, R_F1, R_T0},
	{HOP_DIVIDE, R_T0, R_T0, R_F2}, {HOP_MUL, R_T1, R_DY, R_N},
	{HOP_SUBTRACT, R_T1, R_T1, R_F3}, {HOP_SUBTRACT, R_T1, R_T1, R_T0},
	{HOP_MUL, R_OUT, R_F4, R_T1},
};

typedef struct {
	int type;		/* T */
	int64_t esz, F, inner, n;	/* features, elements per feature
				 * run, operand elements */
	const BnStep *steps;
	int nsteps;
	const unsigned char *x, *dy, *nval;
	unsigned char *out;
	const unsigned char *fv[5];	/* per-feature vectors, F each */
} BnRun;

static HloVal
view(int type, int64_t n, const void *data)
{
	HloVal v;

	memset(&v, 0, sizeof v);
	v.refs = 1;
	v.type = type;
	v.n = n;
	v.data = (unsigned char *)data;
	return v;
}

/* r = op(a, b) (b NULL: op(a)) on n elements, operands of type t0 and
 * the result of type: ev_elementwise's kernels */
static void
ew(int op, int type, int t0, HloVal *r, HloVal *a, HloVal *b, int64_t n)
{
	EwOp o;
	HloVal *ops[2];

	memset(&o, 0, sizeof o);
	o.op = op;
	o.type = type;
	o.t0 = t0;
	o.t1 = b ? t0 : TY_INVALID;
	o.t2 = TY_INVALID;
	ops[0] = a;
	ops[1] = b;
	ev_ew_span(&o, ops, r, n);
}

/* per-feature: r = op(x, y) on F elements of T; y NULL for a unary
 * op, y of one element (N) read as all when ny is 1 */
static void
fop(const BnRun *b, int op, void *r, const void *x, const void *y,
	int64_t ny)
{
	HloVal vr = view(b->type, b->F, r), vx = view(b->type, b->F, x);
	HloVal vy = view(b->type, ny, y);

	ew(op, b->type, b->type, &vr, &vx, y ? &vy : NULL, b->F);
}

/* fills dst with w elements of the broadcast of v from element k on;
 * one element when they all belong to one feature (read as all) */
static int64_t
bcast(const BnRun *b, const unsigned char *v, int64_t k, int64_t w,
	unsigned char *dst, const unsigned char **p)
{
	int64_t run = k / b->inner, j = k % b->inner, q = 0, m;

	if ((k + w - 1) / b->inner == run) {
		*p = v + run % b->F * b->esz;
		return 1;
	}
	while (q < w) {
		m = b->inner - j < w - q ? b->inner - j : w - q;
		for (; m > 0; m--, q++)
			memcpy(dst + q * b->esz, v + run % b->F * b->esz,
				b->esz);
		j = 0;
		run++;
	}
	*p = dst;
	return w;
}

/* chunks [lo, hi) of the per-element steps */
static void
run_chunks(void *ctx, int part, int64_t lo, int64_t hi)
{
	const BnRun *b = ctx;
	unsigned char fb[5][CH * 8], tb[2][CH * 8];
	const unsigned char *fp;
	HloVal reg[R_COUNT];
	int64_t c, k, w, nf;
	int s, f;

	(void)part;
	for (c = lo; c < hi; c++) {
		k = c * CH;
		w = b->n - k < CH ? b->n - k : CH;
		reg[R_X] = view(b->type, w, b->x + k * b->esz);
		reg[R_DY] = view(b->type, w, b->dy ? b->dy + k * b->esz :
			NULL);
		reg[R_T0] = view(b->type, w, tb[0]);
		reg[R_T1] = view(b->type, w, tb[1]);
		reg[R_OUT] = view(b->type, w, b->out + k * b->esz);
		reg[R_N] = view(b->type, 1, b->nval);
		for (f = 0; f < 5; f++) {
			if (!b->fv[f])
				continue;
			nf = bcast(b, b->fv[f], k, w, fb[f], &fp);
			reg[R_F0 + f] = view(b->type, nf, fp);
		}
		for (s = 0; s < b->nsteps; s++) {
			const BnStep *st = &b->steps[s];

			ew(st->op, b->type, b->type, &reg[st->dst],
				&reg[st->a], st->b < R_COUNT ? &reg[st->b] :
				NULL, w);
		}
	}
}

static void
run_steps(HloEval *ev, BnRun *b, const BnStep *steps, int n,
	unsigned char *out)
{
	b->steps = steps;
	b->nsteps = n;
	b->out = out;
	ev_par(ev, (b->n + CH - 1) / CH, 16, run_chunks, b);
}

float
ev_bn_epsilon(const HloModule *m, const HloInstr *in)
{
	uint32_t n;
	const char *e = hlo_attr_word(m, in, A_EPSILON, &n);
	char buf[64];

	if (!e || n >= sizeof buf)
		return 0;
	memcpy(buf, e, n);
	buf[n] = 0;
	return strtof(buf, NULL);	/* xla keeps epsilon as a float */
}

typedef struct {
	HloEval *ev;
	uint32_t c, i;
	const int64_t *dims;
	int rank;
	int64_t fi;
	uint8_t red[MAXR];
	unsigned char *eps, *cnt;	/* scalars of T */
} BnOp;

/* v (the operand's shape) add-reduced to F elements at out */
static void
sum(BnOp *o, const BnRun *b, const unsigned char *v, unsigned char *out)
{
	HloVal x = view(b->type, b->n, v), r = view(b->type, b->F, out);

	ev_reduce_add(o->ev, &x, o->dims, o->rank, o->red, &r);
}

/* N and epsilon as the expansion computes them */
static void
constants(BnOp *o, const BnRun *b)
{
	const HloInstr *in = hlo_ins(o->ev->m, o->c, o->i);
	uint64_t bits = hlo_float_encode(b->type,
		ev_bn_epsilon(o->ev->m, in));
	uint32_t acc = 1;
	int32_t s;
	HloVal vs, vn;
	int d;

	memcpy(o->eps, &bits, b->esz);	/* little-endian */
	for (d = 0; d < o->rank; d++)
		if (d != o->fi)
			acc = (uint32_t)o->dims[d] * acc;	/* s32 wraps */
	s = (int32_t)acc;
	vs = view(TY_S32, 1, &s);
	vn = view(b->type, 1, o->cnt);
	ew(HOP_CONVERT, b->type, TY_S32, &vn, &vs, NULL, 1);
}

/* eps broadcast to F elements at dst */
static void
fill_eps(const BnOp *o, const BnRun *b, unsigned char *dst)
{
	int64_t f;

	for (f = 0; f < b->F; f++)
		memcpy(dst + f * b->esz, o->eps, b->esz);
}

/* tuple(y, mean, var) into res[0..2] */
static int
training(BnOp *o, BnRun *b, HloVal **ops, HloVal **res)
{
	int64_t fb = b->F * b->esz + 8;
	uint64_t qb = (uint64_t)b->n * b->esz + 8;
	unsigned char *s1 = xcalloc(4, fb), *s2 = s1 + fb, *v = s2 + fb;
	unsigned char *e = v + fb, *mn = res[1]->data, *var = res[2]->data;
	unsigned char *sq = ev_scratch(o->ev, qb);

	if (!sq) {
		free(s1);
		return -1;
	}
	run_steps(o->ev, b, train_sq, 1, sq);
	sum(o, b, b->x, s1);
	sum(o, b, sq, s2);
	ev_scratch_free(o->ev, sq, qb);
	fop(b, HOP_DIVIDE, mn, s1, o->cnt, 1);
	fop(b, HOP_DIVIDE, s2, s2, o->cnt, 1);		/* E[x^2] */
	fop(b, HOP_MUL, s1, mn, mn, b->F);		/* E[x]^2 */
	fop(b, HOP_SUBTRACT, var, s2, s1, b->F);
	fill_eps(o, b, e);
	fop(b, HOP_ADD, v, var, e, b->F);
	fop(b, HOP_RSQRT, v, v, NULL, 0);
	b->fv[0] = mn;
	b->fv[1] = v;
	b->fv[2] = ops[1]->data;
	b->fv[3] = ops[2]->data;
	run_steps(o->ev, b, train_y, 4, res[0]->data);
	free(s1);
	return 0;
}

/* y into res[0] */
static int
inference(BnOp *o, BnRun *b, HloVal **ops, HloVal **res)
{
	int64_t fb = b->F * b->esz + 8;
	unsigned char *s = xcalloc(3, fb), *t = s + fb, *e = t + fb;

	fill_eps(o, b, e);
	fop(b, HOP_ADD, s, ops[4]->data, e, b->F);
	fop(b, HOP_RSQRT, s, s, NULL, 0);
	fop(b, HOP_MUL, s, ops[1]->data, s, b->F);
	fop(b, HOP_MUL, t, ops[3]->data, s, b->F);
	fop(b, HOP_SUBTRACT, t, ops[2]->data, t, b->F);
	b->fv[0] = s;
	b->fv[1] = t;
	run_steps(o->ev, b, infer_y, 2, res[0]->data);
	free(s);
	return 0;
}

/* tuple(dx, sum(dy (x - mean)) rsqrt(var + eps), sum(dy)) into
 * res[0..2] */
static int
grad(BnOp *o, BnRun *b, HloVal **ops, HloVal **res)
{
	int64_t fb = b->F * b->esz + 8;
	uint64_t qb = (uint64_t)b->n * b->esz + 8;
	unsigned char *ve = xcalloc(4, fb), *r = ve + fb, *st = r + fb;
	unsigned char *e = st + fb, *gs = res[1]->data, *gb = res[2]->data;
	unsigned char *dxm = ev_scratch(o->ev, qb), *sdxm;

	if (!dxm) {
		free(ve);
		return -1;
	}
	fill_eps(o, b, e);
	fop(b, HOP_ADD, ve, ops[3]->data, e, b->F);	/* var + eps */
	fop(b, HOP_RSQRT, r, ve, NULL, 0);
	b->fv[0] = ops[2]->data;
	run_steps(o->ev, b, grad_dxm, 2, dxm);
	sum(o, b, dxm, gs);
	ev_scratch_free(o->ev, dxm, qb);
	sum(o, b, b->dy, gb);
	sdxm = e;		/* eps is no longer needed */
	memcpy(sdxm, gs, b->F * b->esz);
	fop(b, HOP_MUL, gs, sdxm, r, b->F);
	fop(b, HOP_MUL, st, ops[1]->data, r, b->F);
	fop(b, HOP_DIVIDE, st, st, o->cnt, 1);
	b->fv[1] = sdxm;
	b->fv[2] = ve;
	b->fv[3] = gb;
	b->fv[4] = st;
	run_steps(o->ev, b, grad_dx, 7, res[0]->data);
	free(ve);
	return 0;
}

/* the operands and results all arrays of T with the sizes the opcode
 * needs; results allocated into res (and the tuple into *out) */
static int
check_and_alloc(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops,
	const BnRun *b, HloVal **res, HloVal **out)
{
	const HloModule *m = ev->m;
	const HloInstr *in = hlo_ins(m, c, i);
	const HloShape *sh = hlo_sh(m, in->shape);
	uint32_t k, nres = in->op == HOP_BNINFER ? 1 : 3;

	for (k = 0; k < in->nops; k++)
		if (ops[k]->type != b->type || ops[k]->n != (k == 0 ||
		    (in->op == HOP_BNGRAD && k == 4) ? b->n : b->F))
			return ev_unsupported(ev, c, i, "bad batch-norm "
				"operands");
	if (nres == 3 && (sh->type != TY_TUPLE || sh->ntuple != 3))
		return ev_unsupported(ev, c, i, "result is not a 3-tuple");
	if (nres == 1) {
		res[0] = *out = hlo_val_array(ev, in->shape);
		if (!res[0])
			return -1;
	} else {
		*out = hlo_val_tuple(ev, in->shape);
		if (!*out)
			return -1;
		for (k = 0; k < 3; k++) {
			res[k] = (*out)->elems[k] = hlo_val_array(ev,
				hlo_tuple_elems(m, sh)[k]);
			if (!res[k])
				return -1;
		}
	}
	for (k = 0; k < nres; k++)
		if (res[k]->type != b->type || res[k]->n != (k ? b->F : b->n))
			return ev_unsupported(ev, c, i, "batch-norm result "
				"shape differs");
	return 0;
}

int
ev_batchnorm(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops,
	HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	unsigned char eps[16], cnt[16];
	HloVal *res[3] = {NULL, NULL, NULL};
	BnRun b;
	BnOp o;
	int d, rc;

	*out = NULL;
	memset(&b, 0, sizeof b);
	memset(&o, 0, sizeof o);
	o.ev = ev;
	o.c = c;
	o.i = i;
	o.eps = eps;
	o.cnt = cnt;
	o.fi = hlo_attr_int(ev->m, in, A_FEATURE_INDEX, -1);
	if ((int)in->nops != (in->op == HOP_BNTRAIN ? 3 : 5) ||
	    ops[0]->type >= TY_TUPLE ||
	    hlo_typeinfo[ops[0]->type].cls != C_FLOAT)
		return ev_unsupported(ev, c, i, "bad batch-norm operands");
	o.dims = ev_dims(ev, ops[0]->shape, &o.rank);
	if (o.fi < 0 || o.fi >= o.rank || o.rank > MAXR)
		return ev_unsupported(ev, c, i, "bad feature_index");
	b.type = ops[0]->type;
	b.esz = ev_esz(b.type);
	b.n = ops[0]->n;
	b.F = o.dims[o.fi];
	b.inner = 1;
	for (d = 0; d < o.rank; d++) {
		o.red[d] = d != o.fi;
		if (d > o.fi)
			b.inner *= o.dims[d];
	}
	if (check_and_alloc(ev, c, i, ops, &b, res, out) < 0) {
		hlo_val_unref(ev, *out);
		*out = NULL;
		return -1;
	}
	b.x = ops[0]->data;
	b.dy = in->op == HOP_BNGRAD ? ops[4]->data : NULL;
	b.nval = cnt;
	constants(&o, &b);
	if (in->op == HOP_BNTRAIN)
		rc = training(&o, &b, ops, res);
	else if (in->op == HOP_BNINFER)
		rc = inference(&o, &b, ops, res);
	else
		rc = grad(&o, &b, ops, res);
	if (rc < 0) {
		hlo_val_unref(ev, *out);
		*out = NULL;
	}
	return rc;
}
