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

static int
float_convert(PassEdit *ed, uint32_t i)
{
	const HloInstr *in = pass_ins(ed, i);

	return in->op == HOP_CONVERT && in->nops == 1 &&
		hlo_typeinfo[hlo_sh(ed->m, in->shape)->type].cls == C_FLOAT;
}

static int
simplify(PassEdit *ed, uint32_t x, void *arg)
{
	HloModule *m = ed->m;
	uint32_t y = x, len = 0, old;

	while (float_convert(ed, y) && len <= m->comps[ed->c].nins) {
		y = pass_res(ed, m->ids[pass_ins(ed, y)->ops]);
		len++;
	}
	if (len < 2 || ed->ctl[x])
		return 0;
	if (hlo_sh(m, pass_ins(ed, x)->shape)->type ==
	    hlo_sh(m, pass_ins(ed, y)->shape)->type)
		return pass_replace(ed, x, y, 0, 0);
	old = pass_res(ed, m->ids[pass_ins(ed, x)->ops]);
	pass_edit_set_operands(ed, x, 1, &y);
	pass_remove_cascade(ed, old);
	return 1;
}

int
pass_simplify_fp_conv(HloModule *m, PassCtx *ctx)
{
	return pass_visit_instrs(m, ctx, PASS_VISIT_EFFECTS |
		PASS_VISIT_UNFORWARDED | PASS_VISIT_CALLEES_FIRST, simplify,
		NULL);
}
