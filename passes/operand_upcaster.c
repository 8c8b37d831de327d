/* operand_upcaster.c: "operand_upcaster", xla's OperandUpcaster
 * (xla/hlo/transforms/operand_upcaster.cc, openxla/xla as of jpli02/xla
 * c4cbd3c), an OpExpanderPass.
 *
 * Contract: a dot or convolution whose result type R is not the type T
 * shape inference gives it (the higher of its operands' types) or whose
 * operands are not both T, where R is at least as precise as T
 * (ShapeUtil::ElementCanUpcast(T, R)), gets a convert to R in front of
 * each operand whose type is not R (in place; the layout of the operand
 * is kept). A dot or convolution with operand_precision
 * {packed_nibble,packed_nibble} is always expanded: each s8/u8 operand
 * splits into its low nibble (shift left 4, then right 4, arithmetic for
 * signed types) and high nibble (shift right 4), each converted to R, and
 * the result is the sum of the op on the low and on the high nibbles,
 * both with default precision.
 * It does not fire when everything already has type R, when R is less
 * precise than T (f32 x f32 -> bf16, s32 x s32 -> u32), on sparse dots
 * or on an instruction with control dependencies.
 */
#include <string.h>

#include "dotutil.h"

static int
packed_nibble(PassEdit *ed, uint32_t i)
{
	uint32_t n, k, cnt = 0;
	const char *s = hlo_attr_word(ed->m, pass_ins(ed, i),
		A_OPERAND_PRECISION, &n);

	for (k = 0; s && k + 13 <= n; k++)
		if (!strncmp(s + k, "packed_nibble", 13) ||
		    !strncmp(s + k, "PACKED_NIBBLE", 13))
			cnt++;
	return cnt == 2;
}

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	int r, t = pass_accum_result(ed, i, &r);

	(void)arg;
	if (t < 0)
		return 0;
	if (packed_nibble(ed, i))
		return 1;
	if (r == t && pass_b_type(ed, pass_opnd(ed, i, 0)) == t &&
	    pass_b_type(ed, pass_opnd(ed, i, 1)) == t)
		return 0;
	return pass_type_higher(t, r) == r;
}

/* x's nibble (0 low, 1 high) converted to type */
static uint32_t
nibble(PassEdit *ed, uint32_t x, int high, int type)
{
	int shr = hlo_typeinfo[pass_b_type(ed, x)].cls == C_UINT ?
		HOP_SHRL : HOP_SHRA;

	if (!high)
		x = pass_b_binary(ed, HOP_SHL, x, pass_b_like(ed, x, 4));
	x = pass_b_binary(ed, shr, x, pass_b_like(ed, x, 4));
	return pass_b_convert(ed, x, type);
}

static uint32_t
expand_nibbles(PassEdit *ed, uint32_t i, int type)
{
	HloModule *m = ed->m;
	uint32_t lhs = pass_opnd(ed, i, 0), rhs = pass_opnd(ed, i, 1);
	uint32_t n0[2], n1[2], l0, l1;

	n0[0] = nibble(ed, lhs, 0, type);
	n1[0] = nibble(ed, lhs, 1, type);
	n0[1] = nibble(ed, rhs, 0, type);
	n1[1] = nibble(ed, rhs, 1, type);
	l0 = pass_copy_instr(m, ed->c, ed->c, i, 2, n0);
	pass_edit_added(ed, l0);
	hlo_attr_del(m, ed->c, l0, A_OPERAND_PRECISION);
	l1 = pass_copy_instr(m, ed->c, ed->c, l0, 2, n1);
	pass_edit_added(ed, l1);
	return pass_b_binary(ed, HOP_ADD, l0, l1);
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	int type = hlo_sh(m, pass_ins(ed, i)->shape)->type;
	uint32_t ops[2], k;

	(void)arg;
	if (packed_nibble(ed, i))
		return expand_nibbles(ed, i, type);
	for (k = 0; k < 2; k++) {
		ops[k] = pass_opnd(ed, i, k);
		if (pass_b_type(ed, ops[k]) != type)
			ops[k] = pass_b_convert(ed, ops[k], type);
	}
	pass_edit_set_operands(ed, i, 2, ops);
	return i;
}

int
pass_operand_upcaster(HloModule *m, PassCtx *ctx)
{
	return pass_expand(m, ctx, match, expand, NULL);
}
