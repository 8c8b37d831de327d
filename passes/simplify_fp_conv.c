/* simplify_fp_conv.c: "simplify-fp-conversions", xla's
 * SimplifyFPConversions.
 *
 * In every computation (callees first), in xla's post order: a chain of
 * two or more converts whose results are all floating point,
 * x -> convert -> ... -> convert, collapses to x when the chain ends in
 * x's element type, else to one convert of x. This allows excess
 * precision (f32 -> bf16 -> f32 becomes f32), as xla does. The dropped
 * converts are deleted when nothing else uses them
 * (ReplaceInstruction); an instruction with control dependencies is left
 * alone.
 */
#include <stdlib.h>
#include <string.h>

#include "pass.h"

static const HloInstr *
ins(PassEdit *ed, uint32_t i)
{
	return &ed->m->comps[ed->c].ins[i];
}

static int
float_convert(PassEdit *ed, uint32_t i)
{
	const HloInstr *in = ins(ed, i);

	return in->op == HOP_CONVERT && in->nops == 1 &&
		hlo_typeinfo[hlo_sh(ed->m, in->shape)->type].cls == C_FLOAT;
}

static int
simplify(PassEdit *ed, uint32_t x)
{
	HloModule *m = ed->m;
	uint32_t y = x, len = 0, old;

	while (float_convert(ed, y) && len <= m->comps[ed->c].nins) {
		y = pass_res(ed, m->ids[ins(ed, y)->ops]);
		len++;
	}
	if (len < 2 || ed->ctl[x])
		return 0;
	if (hlo_sh(m, ins(ed, x)->shape)->type ==
	    hlo_sh(m, ins(ed, y)->shape)->type)
		return pass_replace(ed, x, y, 0, 0);
	old = pass_res(ed, m->ids[ins(ed, x)->ops]);
	pass_edit_set_operands(ed, x, 1, &y);
	pass_remove_cascade(ed, old);
	return 1;
}

int
pass_simplify_fp_conv(HloModule *m, PassCtx *ctx)
{
	PassEdit ed;
	uint32_t *corder, *order, cnt, i, x;
	uint8_t *fx;
	int nc, k, changed = 0;

	fx = xmalloc(m->ncomps + 1);
	memcpy(fx, pass_comp_effects(m, ctx), m->ncomps);
	corder = xreallocarray(NULL, m->ncomps + 1, sizeof *corder);
	nc = pass_comp_post_order(m, corder);
	if (nc < 0) {
		free(fx);
		free(corder);
		return hlo_err(&ctx->err, "the call graph has a cycle");
	}
	pass_reset(ctx);
	pass_edit_init(&ed, m, ctx, fx, m->ncomps);
	for (k = 0; k < nc; k++) {
		uint32_t c = corder[k];

		pass_edit_begin(&ed, c);
		order = pass_alloc(ctx, (m->comps[c].nins + 1) * sizeof *order);
		cnt = pass_post_order(m, c, order, ctx);
		for (i = 0; i < cnt; i++) {
			x = order[i];
			if ((m->comps[c].ins[x].flags & HI_DEAD) ||
			    pass_res(&ed, x) != x)
				continue;
			ctx->stats.rewrites += simplify(&ed, x);
		}
		changed |= ed.changed;
		if (pass_edit_end(&ed) < 0) {
			changed = -1;
			break;
		}
		pass_reset(ctx);
	}
	pass_edit_free(&ed);
	free(fx);
	free(corder);
	return changed;
}
