/* zero_sized.c: "zero_sized_hlo_elimination", xla's
 * ZeroSizedHloElimination.
 *
 * In every non-fusion, non-composite computation, an instruction of a
 * static array shape with zero elements that has no side effect and is
 * not a constant is replaced by a constant with no elements (default
 * layout when the shape has none) through ReplaceInstruction, unless it
 * has control dependencies; a used zero-sized parameter keeps its place
 * but its users (and the root) take the new constant instead.
 */
#include <stdlib.h>
#include <string.h>

#include "pass.h"

static uint32_t
empty_constant(PassEdit *ed, uint32_t shape)
{
	HloModule *m = ed->m;
	HloAttr lit = hlo_mk_bytes(m, A_LITERAL, K_LITERAL, NULL, 0);
	uint32_t k;

	k = hlo_instr_add(m, ed->c, HOP_CONSTANT, shape,
		hlo_fresh_name(m, "constant"), 0, NULL);
	hlo_set_attrs(m, ed->c, k, 1, &lit);
	pass_edit_added(ed, k);
	return k;
}

static int
zero_sized(const HloModule *m, const HloInstr *in)
{
	const HloShape *sh = hlo_sh(m, in->shape);

	return sh->type != TY_TUPLE && sh->type != TY_TOKEN &&
		sh->type != TY_OPAQUE && !sh->dynmask &&
		hlo_shape_elems(m, in->shape) == 0;
}

static int
rewrite(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	const HloInstr *in = &m->comps[ed->c].ins[i];
	uint32_t shape = in->shape, k;

	if (!zero_sized(m, in) || in->op == HOP_CONSTANT ||
	    pass_has_effect(m, in, ed->fx, ed->nfx))
		return 0;
	if (pass_removable(ed, i)) {
		if (!(hlo_sh(m, shape)->flags & SH_LAYOUT))
			shape = hlo_shape_default_layout(m, shape);
		k = empty_constant(ed, shape);
		return pass_replace(ed, i, k, 0, 0);
	}
	if (in->op == HOP_PARAMETER && !ed->ctl[i] && !pass_is_dead(ed, i)) {
		k = empty_constant(ed, shape);
		pass_replace_uses(ed, i, k);
		return 1;
	}
	return 0;
}

/* computations called as fusions or composite calls are left alone */
int
pass_zero_sized(HloModule *m, PassCtx *ctx)
{
	return pass_visit_instrs(m, ctx, PASS_VISIT_EFFECTS |
		PASS_SKIP_FUSION_COMPOSITE, rewrite, NULL);
}
