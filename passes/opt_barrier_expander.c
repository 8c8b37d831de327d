/* opt_barrier_expander.c: "cse_barrier_expander", xla's
 * OptimizationBarrierExpander.
 *
 * In every non-fusion, non-composite computation each opt-barrier is
 * removed: its operand takes over its control dependencies and its users
 * (the root included).
 */
#include <string.h>

#include <stdlib.h>

#include "pass.h"

static void
expand(PassEdit *ed, uint32_t b)
{
	HloModule *m = ed->m;
	uint32_t arg, k, n, npred, *pred, *succ;
	const HloInstr *in = &m->comps[ed->c].ins[b];

	if (!in->nops)
		return;
	arg = pass_res(ed, m->ids[in->ops]);
	if (ed->ctl[b]) {
		npred = in->nctrl;
		pred = pass_alloc(ed->ctx, (npred + 1) * sizeof *pred);
		for (k = 0; k < npred; k++)
			pred[k] = pass_res(ed, m->ids[in->ctrl + k]);
		pass_ctrl_succs(ed, b, &succ, &n);
		for (k = 0; k < npred; k++)
			pass_add_ctrl(ed, pred[k], arg);
		for (k = 0; k < n; k++)
			pass_add_ctrl(ed, arg, succ[k]);
	}
	pass_replace_uses(ed, b, arg);
	if (ed->ctl[b])
		pass_drop_ctrl(ed, b);
	pass_remove(ed, b);
}

int
pass_opt_barrier_expander(HloModule *m, PassCtx *ctx)
{
	PassEdit ed;
	uint32_t c, i, nins;
	uint8_t *skip = pass_skipped_comps(m, 1);
	int changed = 0;

	pass_edit_init(&ed, m, ctx, NULL, 0);
	for (c = 0; c < m->ncomps; c++) {
		nins = m->comps[c].nins;
		for (i = 0; i < nins; i++)
			if (m->comps[c].ins[i].op == HOP_OPTBARRIER)
				break;
		if (skip[c] || i == nins)
			continue;
		pass_edit_begin(&ed, c);
		for (; i < nins; i++)
			if (m->comps[c].ins[i].op == HOP_OPTBARRIER &&
			    !(m->comps[c].ins[i].flags & HI_DEAD)) {
				expand(&ed, i);
				ctx->stats.rewrites++;
			}
		changed |= ed.changed;
		if (pass_edit_end(&ed) < 0) {
			changed = -1;
			break;
		}
	}
	pass_edit_free(&ed);
	free(skip);
	return changed;
}
