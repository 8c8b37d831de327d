/* tuple_simplifier.c: "tuple-simplifier", xla's TupleSimplifier.
 *
 * In xla's post order of every computation:
 *   tuple(gte(x,0), ..., gte(x,n-1)) -> x when x's shape is compatible;
 *   gte(...gte(tuple(...)...)) -> the element the chain selects, as far
 *   as every step is a tuple.
 * Replacements go through ReplaceInstruction with preserve_sharding (two
 * different shardings block it) after relaying control dependencies
 * (RelayControlDependenciesSafely); the replaced instruction and the
 * operands only it used are deleted.
 */
#include <stdlib.h>
#include <string.h>

#include "pass.h"

static uint32_t
op(PassEdit *ed, const HloInstr *in, uint32_t k)
{
	return pass_res(ed, ed->m->ids[in->ops + k]);
}

/* RelayControlDependenciesSafely(i, repl) */
static void
relay(PassEdit *ed, uint32_t i, uint32_t repl)
{
	HloModule *m = ed->m;
	uint32_t k, j, n, npred, *pred, *succ, *users, nusers = 0;
	const HloComp *cp = &m->comps[ed->c];

	if (!ed->ctl[i])
		return;
	npred = pass_ins(ed, i)->nctrl;
	pred = pass_alloc(ed->ctx, (npred + 1) * sizeof *pred);
	for (k = 0; k < npred; k++)
		pred[k] = pass_res(ed, m->ids[pass_ins(ed, i)->ctrl + k]);
	pass_ctrl_succs(ed, i, &succ, &n);
	users = pass_alloc(ed->ctx, (ed->nuse[i] + 1) * sizeof *users);
	for (j = 0; j < cp->nins && nusers < ed->nuse[i]; j++) {
		const HloInstr *u = &cp->ins[j];

		if (u->flags & HI_DEAD)
			continue;
		for (k = 0; k < u->nops; k++)
			if (op(ed, u, k) == i) {
				users[nusers++] = j;
				break;
			}
	}
	for (k = 0; k < npred; k++) {
		if (nusers)
			for (j = 0; j < nusers; j++)
				pass_add_ctrl(ed, pred[k], users[j]);
		else
			for (j = 0; j < n; j++)
				pass_add_ctrl(ed, pred[k], succ[j]);
	}
	for (j = 0; j < n; j++)
		pass_add_ctrl(ed, repl, succ[j]);
	pass_drop_ctrl(ed, i);
}

/* RemoveWholeTuple */
static int
whole_tuple(PassEdit *ed, uint32_t t)
{
	HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, t);
	uint32_t k, top = HLO_NONE, g;

	for (k = 0; k < in->nops; k++) {
		const HloInstr *gi;

		g = op(ed, in, k);
		gi = pass_ins(ed, g);
		if (gi->op != HOP_GTE || hlo_attr_int(m, gi, A_INDEX, -1) !=
		    (int64_t)k || !gi->nops)
			return 0;
		if (top == HLO_NONE) {
			top = op(ed, gi, 0);
			if (!pass_shape_same(m, ed->lay, pass_ins(ed, top)->shape,
			    in->shape))
				return 0;
		} else if (top != op(ed, gi, 0)) {
			return 0;
		}
	}
	if (top == HLO_NONE)
		return 0;
	relay(ed, t, top);
	return pass_replace(ed, t, top, 1, 0);
}

/* LatestNonGteAncestorAndIndex, then down through tuples */
static int
gte_chain(PassEdit *ed, uint32_t g)
{
	HloModule *m = ed->m;
	uint32_t x = g, depth = 0, k;
	int64_t *path, idx;
	const HloInstr *in;

	while ((in = pass_ins(ed, x))->op == HOP_GTE && in->nops) {
		depth++;
		x = op(ed, in, 0);
	}
	if (x == g)
		return 0;
	path = pass_alloc(ed->ctx, depth * sizeof *path);
	for (k = depth, x = g; k-- > 0;) {
		in = pass_ins(ed, x);
		path[k] = hlo_attr_int(m, in, A_INDEX, -1);
		x = op(ed, in, 0);
	}
	for (k = 0; k < depth; k++) {
		in = pass_ins(ed, x);
		idx = path[k];
		if (in->op != HOP_TUPLE || idx < 0 || idx >= in->nops)
			return 0;
		x = op(ed, in, idx);
	}
	relay(ed, g, x);
	return pass_replace(ed, g, x, 1, 0);
}

int
pass_tuple_simplifier(HloModule *m, PassCtx *ctx)
{
	PassEdit ed;
	uint8_t *fx = xmalloc(m->ncomps + 1);
	uint32_t c, i, cnt, *order, x;
	int changed = 0;

	memcpy(fx, pass_comp_effects(m, ctx), m->ncomps);
	pass_reset(ctx);
	pass_edit_init(&ed, m, ctx, fx, m->ncomps);
	for (c = 0; c < m->ncomps; c++) {
		pass_edit_begin(&ed, c);
		order = pass_alloc(ctx, (m->comps[c].nins + 1) *
			sizeof *order);
		cnt = pass_post_order(m, c, order, ctx);
		for (i = 0; i < cnt; i++) {
			x = order[i];
			if (m->comps[c].ins[x].flags & HI_DEAD)
				continue;
			if (m->comps[c].ins[x].op == HOP_TUPLE)
				ctx->stats.rewrites += whole_tuple(&ed, x);
			else if (m->comps[c].ins[x].op == HOP_GTE)
				ctx->stats.rewrites += gte_chain(&ed, x);
		}
		changed |= ed.changed;
		if (pass_edit_end(&ed) < 0) {
			pass_edit_free(&ed);
			free(fx);
			return -1;
		}
		pass_reset(ctx);
	}
	pass_edit_free(&ed);
	free(fx);
	return changed;
}
