/* result_caster.c: "result_caster", xla's ResultCaster
 * (xla/hlo/transforms/simplifiers/result_caster.cc, openxla/xla as of
 * jpli02/xla c4cbd3c), an OpExpanderPass.
 *
 * Contract: a dot or convolution whose result type R differs from the
 * type T shape inference gives it (the higher of its operands' types)
 * and is less precise than T (HigherPrecisionType(T, R) == T) is computed
 * in T (a copy of it with T as element type, layout kept) and converted
 * to R; the convert replaces it.
 * It does not fire when R is T or more precise than T (bf16 x f32 -> f64,
 * the case operand_upcaster handles), on sparse dots or on an
 * instruction with control dependencies.
 */
#include "dotutil.h"

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	int r, t = pass_accum_result(ed, i, &r);

	(void)arg;
	return t >= 0 && t != r && pass_type_higher(t, r) == t;
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	uint32_t ops[2] = {pass_opnd(ed, i, 0), pass_opnd(ed, i, 1)}, x;
	int t = pass_accum_type(ed, i);

	(void)arg;
	x = pass_copy_instr(m, ed->c, ed->c, i, 2, ops);
	m->comps[ed->c].ins[x].shape = hlo_shape_with_type(m,
		m->comps[ed->c].ins[i].shape, t);
	pass_edit_added(ed, x);
	return pass_b_op(ed, HOP_CONVERT, pass_ins(ed, i)->shape, 1, &x);
}

int
pass_result_caster(HloModule *m, PassCtx *ctx)
{
	return pass_expand(m, ctx, match, expand, NULL);
}
