/* float_normalization.c: "float-normalization-TYPE", xla's
 * FloatNormalization (xla/hlo/transforms/simplifiers/float_normalization.cc,
 * openxla/xla 3d6d865; tests float_normalization_test.cc 2ff73de) with the
 * base FloatSupport(low, high) (xla/service/float_support.cc), as XLA:CPU
 * runs it for bf16 (to f32), f8e5m2, f8e4m3, f8e4m3fn, f8e4m3b11fnuz,
 * f8e5m2fnuz, f8e4m3fnuz, f8e3m4 and f4e2m1fn (to f16), s4 (to s8), u4
 * (to u8) and f8e8m0fnu (to f32): one action per type, named as XLA's
 * name(). For bf16 XLA:CPU (cpu_compiler.cc) uses this base
 * FloatSupport(BF16) in every build without oneDNN (INTEL_MKL) and in
 * every thunk-runtime or AOT build; only a oneDNN JIT build uses
 * CpuFloatSupport, which also keeps bf16 in data movement, collectives
 * and the dots and convolutions oneDNN rewrites (target dependent).
 *
 * Contract. The base FloatSupport supports the low type nowhere but in
 * count-leading-zeros and the right shifts (whose results would change
 * in the wider type) and in the instructions the visitor leaves alone:
 * tuple, get-tuple-element, constant, domain, parameter, fusion, convert,
 * call, custom-call, while, conditional, bitcast-convert, bitcast,
 * async-start/-done, opt-barrier and side-effecting instructions. Every
 * computation (callees first; fusion computations too) is visited in
 * post order, and each other instruction using the low type L gets:
 *  - each operand with L leaves converted to the high type H (a tuple
 *    operand through get-tuple-elements, converts and a tuple), even an
 *    operand that is convert(x) of an H x (H -> L -> H rounds; xla's
 *    ConvertType drops a convert pair only for convert(L x -> H) -> L);
 *  - its L result leaves changed to H and a convert back to L for its
 *    users (a tuple through get-tuple-elements); a user that converts it
 *    to H reads it directly (excess precision again);
 *  - its called computations with L parameters or root (reduce, map,
 *    sort, scatter, reduce-window, select-and-scatter) cloned as
 *    NAME.clone with H parameters (converts back inside) and an H root.
 * If anything changed, tuple-simplifier and dce run over the module, as
 * XLA's pass ends. Computations called only by all-reduces and
 * reduce-scatters are not visited (a shared one is cloned for them first).
 * Where hlopt departs: all-reduce and reduce-scatter themselves are left
 * alone (XLA would give them H operands and keep their L reducer, a mixed
 * precision hlopt's verifier and evaluator reject); popcnt of s4/u4 is
 * left alone (in s8 it would count the sign-extension bits); a sub-byte
 * layout's E(n) is dropped when its type is widened.
 * Must not fire: modules without L; bitcast-convert and bitcast (xla's
 * DoNotChangeBitcastConvert, DoNotChangeBitcast); converts; shifts and
 * count-leading-zeros of s4/u4; collectives are neither merged,
 * duplicated nor deleted (only their operands and results converted).
 */
#include <stdlib.h>
#include <string.h>

#include "pass.h"

typedef struct {
	HloModule *m;
	PassCtx *ctx;
	int lo, hi;
	int changed;
} Norm;

static int
count_type(const HloModule *m, uint32_t s, int t)
{
	const HloShape *sh = hlo_sh(m, s);
	uint32_t k;
	int n = 0;

	if (sh->type != TY_TUPLE)
		return sh->type == t;
	for (k = 0; k < sh->ntuple; k++)
		n += count_type(m, m->ids[m->shapes[s].tuple + k], t);
	return n;
}

/* the layout tail without its E(n) element size */
static uint32_t
tail_without_esize(HloModule *m, uint32_t tail)
{
	char buf[256];
	const char *t = hlo_cstr(m, tail), *e = strstr(t, "E("), *z;
	size_t a;

	if (!e || !(z = strchr(e, ')')) || strlen(t) >= sizeof buf)
		return tail;
	a = (size_t)(e - t);
	memcpy(buf, t, a);
	strcpy(buf + a, z + 1);
	return buf[0] ? hlo_strz(m, buf) : 0;
}

/* ShapeUtil::ChangeElementType on every leaf of type from */
static uint32_t
retype(HloModule *m, uint32_t s, int from, int to)
{
	HloShape sh = m->shapes[s];
	uint32_t k, *el, r, tail;
	int64_t buf[128];
	int n;

	if (sh.type == TY_TUPLE) {
		el = xreallocarray(NULL, sh.ntuple ? sh.ntuple : 1, 4);
		for (k = 0; k < sh.ntuple; k++)
			el[k] = retype(m, m->ids[m->shapes[s].tuple + k], from,
			    to);
		r = hlo_shape_tuple(m, sh.ntuple, el);
		free(el);
		return r;
	}
	if (sh.type != from)
		return s;
	n = sh.rank * (sh.flags & SH_LAYOUT ? 2 : 1);
	if (!sh.tail || hlo_typeinfo[from].bits >= 8 || n > 128)
		return hlo_shape_with_type(m, s, to);
	memcpy(buf, m->ints + sh.dims, n * 8u);
	tail = tail_without_esize(m, sh.tail);
	sh = m->shapes[s];
	return hlo_shape(m, to, sh.rank, buf, sh.flags & SH_LAYOUT ?
	    buf + sh.rank : NULL, sh.dynmask, tail);
}

static uint32_t
add(HloModule *m, uint32_t c, int op, uint32_t shape, uint32_t nops,
	const uint32_t *ops)
{
	return hlo_instr_add(m, c, op, shape,
	    hlo_fresh_name(m, hlo_opinfo[op].name), nops, ops);
}

/* DeepCopyInstructionWithCustomCopier: x (of shape have) as shape want,
 * a convert for each leaf whose type differs, get-tuple-elements and a
 * tuple around tuples */
static uint32_t
deep_convert(HloModule *m, uint32_t c, uint32_t x, uint32_t have,
	uint32_t want)
{
	uint32_t n, k, g, *el, r, hs, ws;
	HloAttr a;

	if (hlo_sh(m, have)->type != TY_TUPLE)
		return have == want ? x : add(m, c, HOP_CONVERT, want, 1, &x);
	n = hlo_sh(m, have)->ntuple;
	el = xreallocarray(NULL, n ? n : 1, 4);
	for (k = 0; k < n; k++) {
		hs = m->ids[m->shapes[have].tuple + k];
		ws = m->ids[m->shapes[want].tuple + k];
		g = add(m, c, HOP_GTE, hs, 1, &x);
		a = hlo_mk_int(A_INDEX, k);
		hlo_set_attrs(m, c, g, 1, &a);
		el[k] = deep_convert(m, c, g, hs, ws);
	}
	r = add(m, c, HOP_TUPLE, want, n, el);
	free(el);
	return r;
}

/* ConvertType(x, from, to) */
static uint32_t
convert_type(Norm *f, uint32_t c, uint32_t x, int from, int to)
{
	HloModule *m = f->m;
	const HloInstr *in = hlo_ins(m, c, x);
	uint32_t s = in->shape;

	if (!count_type(m, s, from))
		return x;
	/* only a lossless reversal: convert(L x -> H) back to L is x;
	 * H -> L -> H rounds and must keep its converts (xla's ConvertType) */
	if (in->op == HOP_CONVERT && in->nops == 1 && to == f->lo &&
	    from == f->hi &&
	    hlo_sh(m, hlo_ins(m, c, hlo_ops(m, in)[0])->shape)->type == to)
		return hlo_ops(m, in)[0];
	return deep_convert(m, c, x, s, retype(m, s, from, to));
}

/* the first part of ChangeOutputTypeThenInsertConvertBack: x gets H
 * leaves; returns what its users read instead */
static uint32_t
change_output(Norm *f, uint32_t c, uint32_t x)
{
	HloModule *m = f->m;
	uint32_t orig = hlo_ins(m, c, x)->shape;
	uint32_t ns = retype(m, orig, f->lo, f->hi);

	m->comps[c].ins[x].shape = ns;
	return deep_convert(m, c, x, ns, orig);
}

/* ConvertCalledComputations for computation d of x: a clone with H
 * parameters and root */
static uint32_t
convert_called(Norm *f, uint32_t d)
{
	HloModule *m = f->m;
	uint32_t e = hlo_comp_clone(m, d, ".clone"), n0, n, i, k, r, v, o;
	uint32_t *dp, *cvt;
	uint8_t *made;

	n0 = m->comps[e].nins;
	/* InsertConvertAfterOutput on the root: its users read v */
	r = m->comps[e].root;
	v = convert_type(f, e, r, f->lo, f->hi);
	if (v != r) {
		for (i = 0; i < n0; i++) {
			HloInstr *in = &m->comps[e].ins[i];

			for (k = 0; k < in->nops && !(in->flags & HI_DEAD);
			    k++)
				if (m->ids[in->ops + k] == r)
					m->ids[in->ops + k] = v;
		}
		m->comps[e].root = v;
	}
	/* ChangeOutputTypeThenInsertConvertBack on each L parameter */
	dp = xreallocarray(NULL, n0 + 1, sizeof *dp);
	for (i = 0; i < n0; i++)
		dp[i] = HLO_NONE;
	n = m->comps[e].nins;
	for (i = 0; i < n0; i++) {
		const HloInstr *p = &m->comps[e].ins[i];
		uint32_t orig, ns;

		if (p->op != HOP_PARAMETER || (p->flags & HI_DEAD) ||
		    !count_type(m, p->shape, f->lo))
			continue;
		orig = p->shape;
		ns = retype(m, orig, f->lo, f->hi);
		m->comps[e].ins[i].shape = ns;
		dp[i] = deep_convert(m, e, i, ns, orig);
	}
	made = xcalloc(m->comps[e].nins + 1, 1);
	for (i = n; i < m->comps[e].nins; i++)
		made[i] = 1;
	n = m->comps[e].nins;
	cvt = xreallocarray(NULL, n + 1, sizeof *cvt);
	for (i = 0; i < n; i++)
		cvt[i] = HLO_NONE;
	for (i = 0; i < n; i++) {
		HloInstr *in = &m->comps[e].ins[i];

		if ((in->flags & HI_DEAD) || made[i])
			continue;
		for (k = 0; k < in->nops; k++) {
			o = m->ids[in->ops + k];
			if (o >= n0 || dp[o] == HLO_NONE)
				continue;
			/* a user converting it to H reads it directly */
			if (in->op == HOP_CONVERT &&
			    hlo_sh(m, in->shape)->type == f->hi)
				cvt[i] = o;
			else
				m->ids[in->ops + k] = dp[o];
		}
	}
	for (i = 0; i < n; i++) {
		HloInstr *in = &m->comps[e].ins[i];

		for (k = 0; k < in->nops && !(in->flags & HI_DEAD); k++) {
			o = m->ids[in->ops + k];
			if (o < n && cvt[o] != HLO_NONE)
				m->ids[in->ops + k] = cvt[o];
		}
	}
	if (cvt[m->comps[e].root] != HLO_NONE)
		m->comps[e].root = cvt[m->comps[e].root];
	free(dp);
	free(cvt);
	free(made);
	return e;
}

/* DefaultAction's instructions left alone */
static int
left_alone(const HloModule *m, const HloInstr *in)
{
	switch (in->op) {
	case HOP_TUPLE: case HOP_GTE: case HOP_CONSTANT: case HOP_DOMAIN:
	case HOP_PARAMETER: case HOP_FUSION: case HOP_CONVERT: case HOP_CALL:
	case HOP_CUSTOMCALL: case HOP_WHILE: case HOP_CONDITIONAL:
	case HOP_BITCASTCVT: case HOP_BITCAST: case HOP_ASYNCSTART:
	case HOP_ASYNCDONE:
		return 1;
	/* supported by the base FloatSupport (and mixed precision for the
	 * barrier): nothing to resolve */
	case HOP_CLZ: case HOP_SHRL: case HOP_SHRA: case HOP_OPTBARRIER:
		return 1;
	/* hlopt: see the contract */
	case HOP_ALLREDUCE: case HOP_REDUCESCATTER: case HOP_POPCNT:
		return 1;
	}
	return hlo_has_side_effect(m, in);
}

/* the L leaves of called computation d's parameters and root */
static int
comp_low(const HloModule *m, uint32_t d, int t)
{
	const HloComp *cp = &m->comps[d];
	uint32_t i;
	int n = count_type(m, cp->ins[cp->root].shape, t);

	for (i = 0; i < cp->nins; i++)
		if (cp->ins[i].op == HOP_PARAMETER &&
		    !(cp->ins[i].flags & HI_DEAD))
			n += count_type(m, cp->ins[i].shape, t);
	return n;
}

/* HandleInstruction for instruction x of computation c; cur and hiv as
 * in visit() */
static void
handle(Norm *f, uint32_t c, uint32_t x, uint32_t *cur, uint32_t *hiv)
{
	HloModule *m = f->m;
	uint32_t k, nops = hlo_ins(m, c, x)->nops, nc, o, v, *called;
	int low = 0, high = 0, cnt;

	for (k = 0; k < nops; k++) {
		o = hlo_ops(m, hlo_ins(m, c, x))[k];
		low += count_type(m, hlo_ins(m, c, o)->shape, f->lo);
		high += count_type(m, hlo_ins(m, c, o)->shape, f->hi);
	}
	low += count_type(m, hlo_ins(m, c, x)->shape, f->lo);
	high += count_type(m, hlo_ins(m, c, x)->shape, f->hi);
	nc = hlo_ins(m, c, x)->ncalled;
	for (k = 0; k < nc; k++) {
		uint32_t d = hlo_called(m, hlo_ins(m, c, x))[k];
		const HloComp *dp = &m->comps[d];
		uint32_t i;

		low += comp_low(m, d, f->lo);
		high += count_type(m, dp->ins[dp->root].shape, f->hi);
		for (i = 0; i < dp->nins; i++)
			if (dp->ins[i].op == HOP_PARAMETER &&
			    !(dp->ins[i].flags & HI_DEAD))
				high += count_type(m, dp->ins[i].shape, f->hi);
	}
	if (low == 0)
		return;
	/* unsupported L operands */
	for (k = 0; k < nops; k++) {
		o = hlo_ops(m, hlo_ins(m, c, x))[k];
		cnt = count_type(m, hlo_ins(m, c, o)->shape, f->lo);
		if (!cnt)
			continue;
		v = convert_type(f, c, o, f->lo, f->hi);
		m->ids[hlo_ins(m, c, x)->ops + k] = v;
		low -= cnt;
		high += cnt;
		f->changed = 1;
	}
	/* unsupported L result */
	cnt = count_type(m, hlo_ins(m, c, x)->shape, f->lo);
	if (cnt) {
		cur[x] = change_output(f, c, x);
		hiv[x] = x;
		low -= cnt;
		high += cnt;
		f->changed = 1;
	}
	if (low == 0 || high == 0)
		return;
	/* mixed precision left in called computations: clones in H */
	called = xreallocarray(NULL, nc ? nc : 1, sizeof *called);
	memcpy(called, hlo_called(m, hlo_ins(m, c, x)), nc * 4u);
	for (k = 0; k < nc; k++) {
		uint32_t j, d = called[k], e;

		if (!comp_low(m, d, f->lo))
			continue;
		for (j = 0; j < k && called[j] != d; j++)
			;
		if (j < k)
			continue;
		e = convert_called(f, d);
		for (j = k; j < nc; j++)
			if (called[j] == d)
				called[j] = e;
		f->changed = 1;
	}
	hlo_set_called(m, c, x, nc, called);
	free(called);
}

/* one computation: every instruction in post order reads its operands
 * through cur (what replaced each original instruction for its users);
 * hiv[x] is x itself once its result was widened to H */
static int
visit(Norm *f, uint32_t c)
{
	HloModule *m = f->m;
	uint32_t n0 = m->comps[c].nins, *order, *cur, *hiv, cnt, j, k, x, o;

	order = pass_zalloc(f->ctx, n0 + 1, sizeof *order);
	cur = pass_zalloc(f->ctx, n0 + 1, sizeof *cur);
	hiv = pass_zalloc(f->ctx, n0 + 1, sizeof *hiv);
	for (x = 0; x < n0; x++) {
		cur[x] = x;
		hiv[x] = HLO_NONE;
	}
	cnt = pass_post_order(m, c, order, f->ctx);
	for (j = 0; j < cnt; j++) {
		HloInstr *in;

		x = order[j];
		in = hlo_ins(m, c, x);
		if (in->op == HOP_CONVERT && in->nops == 1 &&
		    (o = hlo_ops(m, in)[0]) < n0 && hiv[o] != HLO_NONE &&
		    hlo_sh(m, in->shape)->type == f->hi) {
			/* reads the widened operand directly */
			cur[x] = hiv[o];
			continue;
		}
		for (k = 0; k < in->nops; k++) {
			o = m->ids[in->ops + k];
			if (o < n0)
				m->ids[in->ops + k] = cur[o];
		}
		if (!left_alone(m, in))
			handle(f, c, x, cur, hiv);
	}
	if (m->comps[c].root < n0)
		m->comps[c].root = cur[m->comps[c].root];
	return 0;
}

/* CloneComputationsForNonNormalizingInstructions: marks in skip the
 * computations only all-reduces and reduce-scatters call; a computation
 * others call too gets a clone for those */
static int
skip_collective_comps(Norm *f, uint8_t *skip)
{
	HloModule *m = f->m;
	PassCallers cg;
	uint32_t d, s, n = m->ncomps, e;
	int cloned = 0;

	pass_callers(m, &cg, f->ctx);
	for (d = 0; d < n; d++) {
		int avoid = 0, norm = 0;

		for (s = cg.start[d]; s < cg.start[d + 1]; s++) {
			int op = m->comps[cg.site[s].comp].ins[
			    cg.site[s].instr].op;

			if (op == HOP_ALLREDUCE || op == HOP_REDUCESCATTER)
				avoid = 1;
			else
				norm = 1;
		}
		if (!avoid)
			continue;
		if (!norm) {
			skip[d] = 1;
			continue;
		}
		e = hlo_comp_clone(m, d, ".clone");
		cloned = 1;
		for (s = cg.start[d]; s < cg.start[d + 1]; s++) {
			HloInstr *in = &m->comps[cg.site[s].comp].ins[
			    cg.site[s].instr];
			uint32_t k;

			if (in->op != HOP_ALLREDUCE &&
			    in->op != HOP_REDUCESCATTER)
				continue;
			for (k = 0; k < in->ncalled; k++)
				if (m->ids[in->called + k] == d)
					m->ids[in->called + k] = e;
		}
	}
	return cloned;
}

/* any live instruction with an L leaf */
static int
has_type(const HloModule *m, int t)
{
	uint32_t c, i;

	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++)
			if (!(m->comps[c].ins[i].flags & HI_DEAD) &&
			    count_type(m, m->comps[c].ins[i].shape, t))
				return 1;
	return 0;
}

static int
normalize(HloModule *m, PassCtx *ctx, int lo, int hi)
{
	Norm f = {m, ctx, lo, hi, 0};
	uint32_t *order, k, n0 = m->ncomps;
	uint8_t *skip;
	int n;

	if (!has_type(m, lo))
		return 0;
	order = pass_comps_in_post_order(m, ctx, &n);
	if (!order)
		return -1;
	skip = xcalloc(n0 + 1, 1);
	/* the clones change the module even when nothing else does */
	f.changed = skip_collective_comps(&f, skip);
	for (k = 0; k < (uint32_t)n; k++)
		if (!skip[order[k]])
			visit(&f, order[k]);
	free(order);
	free(skip);
	pass_reset(ctx);
	if (!f.changed)
		return 0;
	for (k = 0; k < m->ncomps; k++)
		if (hlo_comp_compact(m, k) < 0)
			return pass_err_cycle(ctx, m, k);
	if (pass_tuple_simplifier(m, ctx) < 0 || pass_dce_module(m, ctx) < 0)
		return -1;
	return 1;
}

#define FLOAT_NORMALIZATION(X) \
	X(bf16, TY_BF16, TY_F32) \
	X(f8e5m2, TY_F8E5M2, TY_F16) \
	X(f8e4m3, TY_F8E4M3, TY_F16) \
	X(f8e4m3fn, TY_F8E4M3FN, TY_F16) \
	X(f8e4m3b11fnuz, TY_F8E4M3B11FNUZ, TY_F16) \
	X(f8e5m2fnuz, TY_F8E5M2FNUZ, TY_F16) \
	X(f8e4m3fnuz, TY_F8E4M3FNUZ, TY_F16) \
	X(f8e3m4, TY_F8E3M4, TY_F16) \
	X(s4, TY_S4, TY_S8) \
	X(u4, TY_U4, TY_U8) \
	X(f4e2m1fn, TY_F4E2M1FN, TY_F16) \
	X(f8e8m0fnu, TY_F8E8M0FNU, TY_F32)

#define X(name, lo, hi) \
int \
pass_float_normalization_##name(HloModule *m, PassCtx *ctx) \
{ \
	return normalize(m, ctx, lo, hi); \
}
FLOAT_NORMALIZATION(X)
#undef X
