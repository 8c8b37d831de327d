/* while_licm.c: "while-loop-invariant-code-motion", xla's
 * WhileLoopInvariantCodeMotion with its default options (constants and
 * reshapes hoisted only to enable others, everything else hoisted, no
 * size-inflation limit).
 *
 * For every while with a tuple state (computations callees first), unless
 * the frontend attribute _xla_disable_loop_instr_hoisting is set or the
 * trip count is known to be at most 1: the invariant values are the
 * array get-tuple-elements of the body parameter passed through
 * unchanged (root operand i is get-tuple-element(param, i)), the
 * constants and what is hoisted. Bodies holding a domain, or the custom
 * calls SPMDFullToShardShape, SPMDShardShapeToFull, MoveToDevice or
 * MoveToHost, are left alone. In the body's post order, an instruction
 * with invariant operands, no side effect, no control dependencies, not a
 * parameter or after-all, is hoisted: copied in front of the loop
 * together with the invariant operands it needs (a passed-through element
 * becomes get-tuple-element of the loop's init), unless it is not worth
 * hoisting alone (constant, reshape, bitcast, broadcast, iota, reverse,
 * slice, transpose, tuple, the Sharding custom call), in which case it
 * only joins the invariant set. The hoisted values are appended to the
 * loop state (init, body and condition parameters, body root) and the
 * body uses the new elements instead (WhileUtil::MakeInstructionsLiveIn).
 * Then, if anything changed, dce and tuple-simplifier run on the module,
 * as in xla. A body or condition shared with other loops is cloned for
 * this loop first.
 */
#include <stdlib.h>
#include <string.h>

#include "wutil.h"

static int
not_worth_alone(const HloModule *m, const HloInstr *in)
{
	switch (in->op) {
	case HOP_CONSTANT: case HOP_RESHAPE: case HOP_BITCAST:
	case HOP_BROADCAST: case HOP_IOTA: case HOP_REVERSE: case HOP_SLICE:
	case HOP_TRANSPOSE: case HOP_TUPLE:
		return 1;
	}
	return pass_is_custom_call(m, in, "Sharding");
}

static int
invariant(WuLicm *s, uint32_t body, uint32_t d)
{
	return s->m->comps[body].ins[d].op == HOP_CONSTANT ||
		s->hoisted[d] != HLO_NONE || s->inv[d];
}

static int
try_hoist(WuLicm *s, uint32_t c, uint32_t w)
{
	HloModule *m = s->m;
	const HloInstr *wi = &m->comps[c].ins[w];
	uint32_t body, broot, bparam, n, i, k, cnt, x, *order, nrep = 0;
	uint32_t *repl, *body_x;
	uint8_t *ctl;
	int any = 0;

	if (pass_frontend_attr(m, wi, "_xla_disable_loop_instr_hoisting", &k))
		return 0;
	body = wu_licm_body(m, c, w, &bparam);
	if (body == HLO_NONE)
		return 0;
	broot = m->comps[body].root;
	n = m->comps[body].nins;
	s->hoisted = pass_alloc(s->ctx, (n + 1) * sizeof *s->hoisted);
	s->inv = pass_zalloc(s->ctx, n + 1, 1);
	ctl = pass_zalloc(s->ctx, n + 1, 1);
	for (i = 0; i < n; i++)
		s->hoisted[i] = HLO_NONE;
	for (i = 0; i < m->comps[body].ins[broot].nops; i++) {
		const HloInstr *g;

		x = m->ids[m->comps[body].ins[broot].ops + i];
		g = &m->comps[body].ins[x];
		if (g->op == HOP_GTE && g->nops && m->ids[g->ops] == bparam &&
		    hlo_attr_int(m, g, A_INDEX, -1) == i &&
		    hlo_sh(m, g->shape)->type != TY_TUPLE &&
		    hlo_sh(m, g->shape)->type != TY_TOKEN)
			s->inv[x] = any = 1;
	}
	if (!any || wu_licm_bail_body(m, body))
		return 0;
	pass_mark_ctrl(m, body, ctl);
	order = pass_alloc(s->ctx, (n + 1) * sizeof *order);
	repl = pass_alloc(s->ctx, (n + 1) * sizeof *repl);
	body_x = pass_alloc(s->ctx, (n + 1) * sizeof *body_x);
	cnt = pass_post_order(m, body, order, s->ctx);
	for (i = 0; i < cnt; i++) {
		const HloInstr *in;

		x = order[i];
		in = &m->comps[body].ins[x];
		if (pass_has_effect(m, in, s->fx, m->ncomps) ||
		    in->op == HOP_AFTERALL || in->op == HOP_PARAMETER ||
		    ctl[x])
			continue;
		for (k = 0; k < in->nops; k++)
			if (!invariant(s, body, m->ids[in->ops + k]))
				break;
		if (k < in->nops)
			continue;
		if (not_worth_alone(m, in)) {
			if (in->op != HOP_CONSTANT)
				s->inv[x] = 1;
			continue;
		}
		wu_licm_hoist(s, c, w, body, x);
		body_x[nrep] = x;
		repl[nrep++] = s->hoisted[x];
	}
	if (!nrep)
		return 0;
	wu_licm_live_in(s, c, w, repl, body_x, nrep);
	return 1;
}

int
pass_while_licm(HloModule *m, PassCtx *ctx)
{
	WuLicm s;
	uint32_t *order, *wl, nw, k;
	int n, changed = 0, r;

	if (!(order = pass_comps_in_post_order(m, ctx, &n)))
		return -1;
	wu_licm_init(&s, m, ctx);
	nw = wu_while_loops(m, order, n, 0, wu_while_regular,
	    &wl);
	for (k = 0; k < nw; k++) {
		r = try_hoist(&s, wl[2 * k], wl[2 * k + 1]);
		ctx->stats.rewrites += r;
		changed |= r;
		pass_reset(ctx);
	}
	changed = pass_compact_touched(m, ctx, s.touched, changed);
	if (changed > 0 && (pass_dce_module(m, ctx) < 0 ||
	    pass_tuple_simplifier(m, ctx) < 0))
		changed = -1;
	free(order);
	free(wl);
	wu_licm_free(&s);
	return changed;
}
