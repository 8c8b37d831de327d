/* fusion_wrapper.c: "fusion-wrapper", xla:GPU's FusionWrapper
 * (xla/service/gpu/transforms/fusion_wrapper.cc and
 * xla/codegen/emitters/fusion_wrapper_base.cc at jpli02/xla
 * c4cbd3c3453569a9c3c1cfdc8a9105b442aab38f, March 2025; tests
 * fusion_wrapper_test.cc there), which XLA:GPU runs after fusion, late
 * in its post-scheduling pipeline (gpu_compiler.cc: "fusion-wrapper",
 * after rematerialization), so that every instruction left unfused that
 * would launch a kernel is emitted as a fusion.
 *
 * Contract. The entry computation is visited in post order; at a while
 * or a conditional, the computations it calls are visited in their post
 * order first (recursively: a while in a while body too), nothing else
 * (not the computations of calls, fusions, async ops, reducers). Every
 * instruction whose opcode is in xla's MustWrapInstruction list (abs, add,
 * and, atan2, bitcast-convert, broadcast, ceil, cbrt, clamp,
 * count-leading-zeros, compare, complex, concatenate, convolution,
 * convert, cosine, divide, dot, dynamic-slice, dynamic-update-slice, erf,
 * exponential, exponential-minus-one, floor, gather, imag, iota,
 * is-finite, log, log-plus-one, map, maximum, minimum, multiply, negate,
 * not, or, pad, popcnt, power, real, reshape, reduce, reduce-precision,
 * reduce-window, remainder, reverse, round-nearest-afz,
 * round-nearest-even, rsqrt, scatter, select, shift-left,
 * shift-right-logical, shift-right-arithmetic, sign, sine, slice, sqrt,
 * subtract, stochastic-convert, tan, tanh, transpose, xor) becomes a
 * fusion named wrapped_OPCODE calling wrapped_OPCODE_computation, whose
 * parameters param_N read its distinct operands in order and whose root
 * is a copy of it; the fusion takes over its uses (the root too) and
 * its control predecessors and successors. Kind (ChooseFusionKind of the
 * instruction with itself): kInput for a reduce from or to contiguous
 * dimensions, a scatter, and a transpose the tiled transpose emitter
 * takes (GetDescriptionForTiledTransposeEmitter), kLoop otherwise.
 * Never wrapped: copy (openxla/xla PR 18152, "Avoid fusion-wrapping
 * copies": the rematerialization pass must recognise copy-insertion's
 * copies; older xla wrapped them), fusion, parameter, constant, tuple,
 * get-tuple-element, bitcast, custom-call, collectives, rng, sort,
 * while, conditional, call and every other opcode outside the list.
 *
 * Not done as xla: names are hlopt's fresh names (wrapped_add.N, the
 * copy inside named after the original with a fresh suffix, parameters
 * param_N or a fresh variant), where xla numbers each base from .1;
 * computations reached from the entry are visited after it, where xla
 * visits a while's body in the middle of its caller's post order (only
 * which fusion gets which suffix differs); a computation reached twice
 * is visited once (xla's second visit finds nothing left to wrap); the
 * tiled transpose test reads the logical dimensions as xla does after
 * layout normalization, also on modules with other layouts.
 */
#include <stdlib.h>
#include <string.h>

#include "fusion_edit.h"

enum { MIN_TILED = 16, MIN_TILED2 = 8, MIN_TILED_TOTAL = 64 * 128,
	MAX_MINOR_BYTES = 8 };

#define WRAPPED(X) \
	X(ABS) X(ADD) X(AND) X(ATAN2) X(BITCASTCVT) X(BROADCAST) X(CEIL) \
	X(CBRT) X(CLAMP) X(CLZ) X(COMPARE) X(COMPLEX) X(CONCAT) X(CONV) \
	X(CONVERT) X(COS) X(DIVIDE) X(DOT) X(DYNSLICE) X(DYNUPDSLICE) \
	X(ERF) X(EXP) X(EXPM1) X(FLOOR) X(GATHER) X(IMAG) X(IOTA) \
	X(ISFINITE) X(LOG) X(LOG1P) X(MAP) X(MAX) X(MIN) X(MUL) X(NEGATE) \
	X(NOT) X(OR) X(PAD) X(POPCNT) X(POWER) X(REAL) X(RESHAPE) \
	X(REDUCE) X(REDUCEPRECISION) X(REDUCEWINDOW) X(REMAINDER) \
	X(REVERSE) X(ROUNDAFZ) X(ROUNDEVEN) X(RSQRT) X(SCATTER) X(SELECT) \
	X(SHL) X(SHRL) X(SHRA) X(SIGN) X(SIN) X(SLICE) X(SQRT) X(SUBTRACT) \
	X(STOCHCONVERT) X(TAN) X(TANH) X(TRANSPOSE) X(XOR)

/* xla's FusionWrapper::MustWrapInstruction */
static int
must_wrap(int op)
{
	switch (op) {
#define CASE(o) case HOP_##o:
	WRAPPED(CASE)
#undef CASE
		return 1;
	default:
		return 0;
	}
}

/* GetDescriptionForTiledTransposeEmitter has a description for x */
static int
tiled_transpose(const HloModule *m, uint32_t c, uint32_t x)
{
	const HloInstr *in = hlo_ins(m, c, x);
	const HloShape *out = hlo_sh(m, in->shape), *op;
	const int64_t *perm, *d, *od;
	int64_t inner, bw;
	uint32_t np, r;

	if (in->op != HOP_TRANSPOSE || in->nops != 1)
		return 0;
	perm = hlo_attr_list(m, in, A_DIMENSIONS, &np);
	op = hlo_sh(m, hlo_ins(m, c, hlo_ops(m, in)[0])->shape);
	r = out->rank;
	if (np < 2 || np != r || op->rank != r || out->type >= TY_TUPLE)
		return 0;
	d = hlo_dims(m, out);
	od = hlo_dims(m, op);
	if (perm[np - 1] == (int64_t)r - 1) {
		inner = od[r - 2] < d[r - 2] ? od[r - 2] : d[r - 2];
		bw = (hlo_typeinfo[out->type].bits + 7) / 8;
		return bw * d[r - 1] <= MAX_MINOR_BYTES &&
			bw * d[r - 1] * inner >= MIN_TILED;
	}
	return (od[r - 1] >= MIN_TILED && d[r - 1] >= MIN_TILED) ||
		(od[r - 1] >= MIN_TILED2 && d[r - 1] >= MIN_TILED2 &&
		od[r - 1] * d[r - 1] >= MIN_TILED_TOTAL);
}

/* ChooseFusionKind(x, x): IsInputFusible(x) */
static int
kind_of(const HloModule *m, uint32_t c, uint32_t x)
{
	int row;

	if (fu_contiguous_reduce(m, c, x, &row) ||
	    hlo_ins(m, c, x)->op == HOP_SCATTER || tiled_transpose(m, c, x))
		return FK_INPUT;
	return FK_LOOP;
}

/* x of the edited computation wrapped into a new fusion (CreateFusion):
 * returns the fusion */
static uint32_t
wrap(FuEdit *e, uint32_t x)
{
	HloModule *m = e->m;
	uint32_t c = e->c, n = hlo_ins(m, c, x)->nops, *ops, *prm, *mo, *ctl,
		k, j, cnt = 0, fc, r, f;
	int kind = kind_of(m, c, x);
	const char *opname = hlo_opinfo[hlo_ins(m, c, x)->op].name;
	char buf[96];
	HloAttr a;
	uint32_t small[3 * 8];	/* most instructions have few operands */

	if (n < 8) {
		ops = small;
		prm = small + 8;
		mo = small + 16;
	} else {
		ops = xreallocarray(NULL, n + 1, sizeof *ops);
		prm = xreallocarray(NULL, n + 1, sizeof *prm);
		mo = xreallocarray(NULL, n + 1, sizeof *mo);
	}
	fc = fu_edit_new_comp(e, pass_name_cat(buf, sizeof buf,
		"wrapped_", opname, "_computation", ""));
	for (k = 0; k < n; k++) {
		uint32_t o = hlo_ops(m, hlo_ins(m, c, x))[k];

		for (j = 0; j < cnt && ops[j] != o; j++)
			;
		if (j == cnt) {
			prm[cnt] = hlo_instr_add(m, fc, HOP_PARAMETER,
				hlo_ins(m, c, o)->shape,
				fu_edit_name(m, pass_name_num(buf, sizeof buf,
				"param_", cnt)), 0, NULL);
			m->comps[fc].ins[prm[cnt]].num = cnt;
			ops[cnt++] = o;
		}
		mo[k] = prm[j];
	}
	r = pass_copy_instr(m, fc, c, x, n, mo);
	m->comps[fc].root = r;
	f = fu_edit_add(e, HOP_FUSION, hlo_ins(m, c, x)->shape,
		pass_name_cat(buf, sizeof buf, "wrapped_", opname, "", ""), cnt,
		ops);
	a = hlo_mk_bytes(m, A_FUSION_KIND, K_WORD, fu_kind_names[kind],
		strlen(fu_kind_names[kind]));
	hlo_attr_set(m, c, f, &a);
	hlo_set_called(m, c, f, 1, &fc);
	if ((n = hlo_ins(m, c, x)->nctrl) > 0) {	/* predecessors */
		ctl = xreallocarray(NULL, n, sizeof *ctl);
		memcpy(ctl, hlo_ctrl(m, hlo_ins(m, c, x)), n * sizeof *ctl);
		hlo_set_ctrl(m, c, f, n, ctl);
		hlo_set_ctrl(m, c, x, 0, NULL);
		free(ctl);
	}
	fu_edit_replace(e, x, f);
	fu_edit_kill(e, x);
	e->done++;
	if (ops != small) {
		free(ops);
		free(prm);
		free(mo);
	}
	return f;
}

/* the instructions of c that are control successors of a wrapped one
 * wait for its fusion instead (*fwd: wrapped -> fusion, else itself) */
static void
forward_ctrl(HloModule *m, uint32_t c, const uint32_t *fwd, uint32_t n)
{
	uint32_t i, k, *v;
	HloInstr *in;

	for (i = 0; i < m->comps[c].nins; i++) {
		in = &m->comps[c].ins[i];
		if ((in->flags & HI_DEAD) || !in->nctrl)
			continue;
		v = hlo_ctrl(m, in);
		for (k = 0; k < in->nctrl; k++)
			if (v[k] < n)
				v[k] = fwd[v[k]];
	}
}

/* wraps what c holds; the while and conditional callees it finds are
 * pushed on *todo (once: seen) */
static int
wrap_comp(FuEdit *e, uint32_t c, uint32_t **todo, uint32_t *ntodo,
	uint8_t *seen)
{
	HloModule *m = e->m;
	uint32_t n = m->comps[c].nins, *po, *fwd, cnt, t, x, k, d;
	int changed = 0;

	fu_edit_begin(e, c);
	po = xreallocarray(NULL, n + 1, sizeof *po);
	fwd = xreallocarray(NULL, n + 1, sizeof *fwd);
	for (x = 0; x < n; x++)
		fwd[x] = x;
	cnt = pass_post_order(m, c, po, e->ctx);
	for (t = 0; t < cnt; t++) {
		const HloInstr *in = hlo_ins(m, c, x = po[t]);

		if (in->flags & HI_DEAD)
			continue;
		if (in->op == HOP_WHILE || in->op == HOP_CONDITIONAL) {
			for (k = 0; k < in->ncalled; k++)
				if ((d = hlo_called(m, in)[k]) < e->nfx &&
				    !seen[d]) {
					seen[d] = 1;
					(*todo)[(*ntodo)++] = d;
				}
			continue;
		}
		if (!must_wrap(in->op))
			continue;
		fwd[x] = wrap(e, x);
		changed = 1;
	}
	if (changed)
		forward_ctrl(m, c, fwd, n);
	free(po);
	free(fwd);
	return fu_edit_end(e) < 0 ? -1 : changed;
}

int
pass_fusion_wrapper(HloModule *m, PassCtx *ctx)
{
	FuEdit e;
	uint32_t *todo, ntodo = 0, t, n0 = m->ncomps;
	uint8_t *seen;
	int r = 0, changed = 0;

	if (m->entry >= m->ncomps)
		return 0;
	fu_edit_init(&e, m, ctx);
	todo = xreallocarray(NULL, n0 + 1, sizeof *todo);
	seen = xcalloc(n0 + 1, 1);
	seen[m->entry] = 1;
	todo[ntodo++] = m->entry;
	for (t = 0; t < ntodo && r >= 0; t++) {
		r = wrap_comp(&e, todo[t], &todo, &ntodo, seen);
		changed |= r > 0;
	}
	free(todo);
	free(seen);
	if (r < 0) {
		fu_edit_free(&e);
		return -1;
	}
	return fu_edit_finish(&e, changed);
}
