/* conditional_to_select.c: "conditional-to-select", xla's
 * ConditionalToSelect (xla/service/conditional_to_select.cc, openxla/xla
 * 16569562 and jpli02/xla c4cbd3c).
 *
 * Only computations whose call context is purely embedded (xla's
 * CallGraph: reached only through map, reduce, reduce-window, scatter,
 * select-and-scatter, sort, top-k, fusion, custom-call or all-reduce
 * computations, never as control flow from the entry) are visited,
 * callees first, and in them the conditionals that were there when the
 * pass started. A conditional becomes select(p, T, F), with T and F the
 * two branches inlined at the conditional (CallInliner::Inline): with a
 * pred[] predicate T is the true and F the false branch; with an s32[]
 * index and exactly two branches, T is branch 1, F branch 0 and p is
 * convert(index) to pred (an index out of range runs the last branch, as
 * a nonzero index selects T). A scalar p is broadcast to a non-scalar
 * result (MakeSelectHlo).
 *
 * Must not fire: a tuple (or token) result, a predicate of any other
 * type or shape, another branch count, a branch with a side effect
 * (HasSideEffect, called computations included), a conditional with
 * control dependencies (ReplaceInstruction would refuse), and any
 * conditional of a computation also reached as control flow (the entry,
 * while bodies, branches of entry conditionals...). The branch
 * computations stay in the module, as in xla (dce removes them).
 */
#include <stdlib.h>

#include "build.h"
#include "wutil.h"

enum { CTX_FLOW = 1, CTX_EMBED = 2 };

static int
embedded_call(int op)
{
	switch (op) {
	case HOP_ALLREDUCE: case HOP_REDUCESCATTER: case HOP_ALLREDUCESTART:
	case HOP_MAP: case HOP_REDUCE: case HOP_REDUCEWINDOW: case HOP_SCATTER:
	case HOP_SELECTANDSCATTER: case HOP_SORT: case HOP_TOPK:
	case HOP_FUSION: case HOP_CUSTOMCALL:
		return 1;
	default:
		return 0;
	}
}

/* CallGraph::SetCallContexts: per computation, CTX_FLOW | CTX_EMBED;
 * order is callees first, so it is walked backwards (callers first) */
static uint8_t *
call_contexts(const HloModule *m, const uint32_t *order, int n, PassCtx *ctx)
{
	uint8_t *cx = pass_zalloc(ctx, m->ncomps + 1, 1);
	uint32_t *called = pass_zalloc(ctx, m->ncomps + 1, sizeof *called);
	uint32_t c, i, k, d;
	int j;

	pass_count_calls(m, called);
	for (c = 0; c < m->ncomps; c++)
		if (!called[c])
			cx[c] = CTX_FLOW;
	for (j = n - 1; j >= 0; j--) {
		c = order[j];
		for (i = 0; i < m->comps[c].nins; i++) {
			const HloInstr *in = &m->comps[c].ins[i];
			uint8_t add = embedded_call(in->op) ? CTX_EMBED : cx[c];

			if (in->flags & HI_DEAD)
				continue;
			for (k = 0; k < in->ncalled; k++)
				if ((d = m->ids[in->called + k]) < m->ncomps)
					cx[d] |= add;
		}
	}
	return cx;
}

/* DoConditionalToSelect on conditional x of the computation ed edits */
static int
to_select(PassEdit *ed, uint32_t x)
{
	HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, x);
	uint32_t shape = in->shape, p, t, f, tc, fc, pshape, bshape, ops[3];
	const HloShape *psh, *sh = hlo_sh(m, shape);
	int form2, rank;
	HloAttr a;

	if (sh->type == TY_TUPLE || sh->type == TY_TOKEN ||
	    sh->type == TY_BUFFER || in->ncalled != 2 || in->nops != 3 ||
	    ed->ctl[x])
		return 0;
	p = pass_opnd(ed, x, 0);
	psh = hlo_sh(m, pass_ins(ed, p)->shape);
	if (psh->rank != 0 || (psh->type != TY_PRED && psh->type != TY_S32))
		return 0;
	form2 = psh->type == TY_S32;
	rank = sh->rank;	/* sh is stale once the inlining or a convert
				 * grows the shape pool */
	tc = m->ids[in->called + (form2 ? 1 : 0)];
	fc = m->ids[in->called + (form2 ? 0 : 1)];
	if (tc >= m->ncomps || fc >= m->ncomps || !ed->fx || ed->fx[tc] ||
	    ed->fx[fc] || hlo_param_count(m, tc) != 1 ||
	    hlo_param_count(m, fc) != 1)
		return 0;
	ops[0] = pass_opnd(ed, x, form2 ? 2 : 1);
	t = wu_inline(m, ed->c, tc, ops, 1, ed);
	ops[0] = pass_opnd(ed, x, form2 ? 1 : 2);
	f = wu_inline(m, ed->c, fc, ops, 1, ed);
	if (t == HLO_NONE || f == HLO_NONE)
		return 0;
	if (form2)
		p = pass_b_convert(ed, p, TY_PRED);
	if (rank) {
		bshape = hlo_shape_with_type(m, shape, TY_PRED);
		p = pass_b_op(ed, HOP_BROADCAST, bshape, 1, &p);
		a = hlo_mk_ints(m, A_DIMENSIONS, NULL, 0);
		hlo_set_attrs(m, ed->c, p, 1, &a);
	}
	pshape = shape;
	ops[0] = p;
	ops[1] = t;
	ops[2] = f;
	return pass_replace(ed, x, pass_b_op(ed, HOP_SELECT, pshape, 3, ops),
		0, 0);
}

int
pass_conditional_to_select(HloModule *m, PassCtx *ctx)
{
	uint32_t *order = xreallocarray(NULL, m->ncomps + 1, sizeof *order);
	uint32_t *conds, ncond, c, i, ncomps = m->ncomps;
	int n = hlo_comp_order_all(m, order), j, changed = 0;
	uint8_t *fx, *cx;
	PassEdit ed;

	if (n < 0) {
		free(order);
		return pass_err_cycle(ctx, m, HLO_NONE);
	}
	fx = xreallocarray(NULL, ncomps + 1, 1);
	cx = xreallocarray(NULL, ncomps + 1, 1);
	pass_edit_init(&ed, m, ctx, NULL, 0);
	{
		uint8_t *f0 = pass_comp_effects(m, ctx);
		uint8_t *c0 = call_contexts(m, order, n, ctx);

		for (c = 0; c < ncomps; c++) {
			fx[c] = f0[c];
			cx[c] = c0[c];
		}
		pass_reset(ctx);
	}
	ed.fx = fx;
	ed.nfx = ncomps;
	for (j = 0; j < n && changed >= 0; j++) {
		c = order[j];
		if (cx[c] != CTX_EMBED)
			continue;
		ncond = 0;
		conds = pass_alloc(ctx, (m->comps[c].nins + 1) * sizeof *conds);
		for (i = 0; i < m->comps[c].nins; i++)
			if (m->comps[c].ins[i].op == HOP_CONDITIONAL &&
			    !(m->comps[c].ins[i].flags & HI_DEAD))
				conds[ncond++] = i;
		if (!ncond) {
			pass_reset(ctx);
			continue;
		}
		pass_edit_begin(&ed, c);
		for (i = 0; i < ncond; i++)
			ctx->stats.rewrites += to_select(&ed, conds[i]);
		changed |= ed.changed;
		if (pass_edit_end(&ed) < 0)
			changed = -1;
		pass_reset(ctx);
	}
	pass_edit_free(&ed);
	free(order);
	free(fx);
	free(cx);
	return changed;
}
