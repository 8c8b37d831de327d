/* map_inline.c: "map-inline", xla's MapInliner.
 *
 * In every computation, for the maps reachable from the root (operands
 * and control predecessors, depth first as xla's Accept): when every
 * operand of the root of the mapped computation is a parameter, the map
 * becomes that root applied to the map's operands: a parameter root
 * forwards the map's operand of that number, a constant root becomes the
 * constant broadcast to the map's shape, an elementwise root is copied
 * with the map's shape and the map's operands in its parameters' places
 * (ReplaceInstruction). Fusion roots, roots that are not elementwise and
 * maps with control dependencies are left alone.
 */
#include <string.h>

#include "build.h"

static uint8_t *
reachable(const HloModule *m, uint32_t c, PassCtx *ctx)
{
	const HloComp *cp = &m->comps[c];
	uint8_t *seen = pass_zalloc(ctx, cp->nins + 1, 1);
	uint32_t *st = pass_alloc(ctx, (cp->nins + 1) * sizeof *st), n = 0, x, k;

	if (cp->root >= cp->nins)
		return seen;
	st[n++] = cp->root;
	seen[cp->root] = 1;
	while (n) {
		const HloInstr *in = &cp->ins[st[--n]];

		for (k = 0; k < in->nops + in->nctrl; k++) {
			x = k < in->nops ? m->ids[in->ops + k] :
				m->ids[in->ctrl + k - in->nops];
			if (x < cp->nins && !seen[x]) {
				seen[x] = 1;
				st[n++] = x;
			}
		}
	}
	return seen;
}

static int
inline_map(PassEdit *ed, uint32_t i)
{
	HloModule *m = ed->m;
	const HloInstr *in = &m->comps[ed->c].ins[i];
	uint32_t f, root, k, ops[8], shape = in->shape, r, x;
	const HloInstr *rt;

	if (in->op != HOP_MAP || in->ncalled != 1 || ed->ctl[i])
		return 0;
	f = m->ids[in->called];
	root = m->comps[f].root;
	rt = &m->comps[f].ins[root];
	for (k = 0; k < rt->nops; k++)
		if (m->comps[f].ins[m->ids[rt->ops + k]].op != HOP_PARAMETER)
			return 0;
	if (rt->op == HOP_PARAMETER) {
		if (rt->num < 0 || (uint64_t)rt->num >= in->nops)
			return 0;
		x = pass_res(ed, m->ids[in->ops + rt->num]);
		pass_replace_uses(ed, i, x);
		pass_remove(ed, i);
		return 1;
	}
	if (rt->op == HOP_CONSTANT) {
		x = pass_copy_instr(m, ed->c, f, root, 0, NULL);
		pass_edit_added(ed, x);
		r = pass_b_bcast(ed, x, shape, 0, NULL);
		return pass_replace(ed, i, r, 0, 0);
	}
	if (!(hlo_opinfo[rt->op].flags & OPF_ELEM) || rt->ncalled ||
	    rt->nops > 8)
		return 0;
	for (k = 0; k < rt->nops; k++) {
		int64_t num = m->comps[f].ins[m->ids[rt->ops + k]].num;

		if (num < 0 || (uint64_t)num >= in->nops)
			return 0;
		ops[k] = pass_res(ed, m->ids[in->ops + num]);
	}
	r = pass_copy_instr(m, ed->c, f, root, rt->nops, ops);
	m->comps[ed->c].ins[r].shape = shape;
	pass_edit_added(ed, r);
	return pass_replace(ed, i, r, 0, 0);
}

static int
visit_comp(PassEdit *ed, void *arg)
{
	HloModule *m = ed->m;
	PassCtx *ctx = ed->ctx;
	uint32_t c = ed->c, j, cnt, *order;
	uint8_t *seen;

	if (!hlo_comp_has_op(m, c, HOP_MAP))
		return 0;
	seen = reachable(m, c, ctx);
	order = pass_alloc(ctx, (m->comps[c].nins + 1) * sizeof *order);
	cnt = pass_post_order(m, c, order, ctx);
	for (j = 0; j < cnt; j++)
		if (seen[order[j]] &&
		    !(m->comps[c].ins[order[j]].flags & HI_DEAD))
			ctx->stats.rewrites += inline_map(ed, order[j]);
	return ed->changed;
}

int
pass_map_inline(HloModule *m, PassCtx *ctx)
{
	return pass_visit_comps(m, ctx, PASS_SKIP_NONE, visit_comp, NULL);
}
