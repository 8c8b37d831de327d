/* comparison_expander.c: "comparison-expander", xla's ComparisonExpander
 * with its default options (no upcasts).
 *
 * An OpExpanderPass: a compare with type=TOTALORDER of floating-point
 * operands becomes a compare of the same direction of signed integers of
 * the same width: each operand is bitcast to the integer type and, where
 * negative, flipped (xor with the largest integer for types with a
 * negative zero; else min - x, with NaN's pattern, min itself, kept).
 * f8e8m0fnu compares its bytes as u8. Types of a width without a signed
 * integer type (the 6-bit floats) are left alone.
 */
#include <string.h>

#include "build.h"

static int
signed_type(int bits)
{
	switch (bits) {
	case 1: return TY_S1;
	case 2: return TY_S2;
	case 4: return TY_S4;
	case 8: return TY_S8;
	case 16: return TY_S16;
	case 32: return TY_S32;
	case 64: return TY_S64;
	}
	return -1;
}

static int
has_negative_zero(int t)
{
	return t != TY_F8E4M3FNUZ && t != TY_F8E5M2FNUZ &&
		t != TY_F8E4M3B11FNUZ && t != TY_F8E8M0FNU;
}

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	const HloInstr *in = &ed->m->comps[ed->c].ins[i];
	int t;

	(void)arg;
	if (in->op != HOP_COMPARE || in->nops != 2 ||
	    !hlo_attr_is(ed->m, in, A_CMP_TYPE, "TOTALORDER"))
		return 0;
	t = pass_b_type(ed, ed->m->ids[in->ops]);
	return hlo_typeinfo[t].cls == C_FLOAT && (t == TY_F8E8M0FNU ||
		signed_type(hlo_typeinfo[t].bits) >= 0);
}

/* the integer whose order is the total order of the float x */
static uint32_t
to_integral(PassEdit *ed, uint32_t x, int ft, uint32_t zero, uint32_t mn,
	uint32_t mx)
{
	int st = pass_b_type(ed, mx);
	uint32_t v = pass_b_bitcast_convert(ed, x, st), flip, isnan, neg;

	if (has_negative_zero(ft)) {
		flip = pass_b_binary(ed, HOP_XOR, mx, v);
	} else {
		flip = pass_b_binary(ed, HOP_SUBTRACT, mn, v);
		isnan = pass_b_compare(ed, v, mn, "EQ");
		flip = pass_b_select(ed, isnan, mn, flip);
	}
	neg = pass_b_compare(ed, v, zero, "LT");
	return pass_b_select(ed, neg, flip, v);
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	const HloInstr *in = &m->comps[ed->c].ins[i];
	uint32_t lhs = pass_res(ed, m->ids[in->ops]);
	uint32_t rhs = pass_res(ed, m->ids[in->ops + 1]), n, shape, r, z, lo, hi;
	uint32_t sshape;
	const char *d = hlo_attr_word(m, in, A_DIRECTION, &n);
	char dir[8];
	int ft = pass_b_type(ed, lhs), st, bits;

	(void)arg;
	if (!d || n >= sizeof dir)
		return HLO_NONE;
	memcpy(dir, d, n);
	dir[n] = 0;
	shape = in->shape;
	if (ft == TY_F8E8M0FNU) {
		lhs = pass_b_bitcast_convert(ed, lhs, TY_U8);
		rhs = pass_b_bitcast_convert(ed, rhs, TY_U8);
	} else {
		bits = hlo_typeinfo[ft].bits;
		st = signed_type(bits);
		sshape = hlo_shape_with_type(m, pass_b_shape(ed, lhs), st);
		z = pass_b_bcast(ed, pass_b_scalar(ed, st, 0), sshape, 0, NULL);
		lo = pass_b_bcast(ed, pass_b_scalar_bits(ed, st,
			(uint64_t)-1 << (bits - 1)), sshape, 0, NULL);
		hi = pass_b_bcast(ed, pass_b_scalar_bits(ed, st,
			bits == 64 ? INT64_MAX : ((uint64_t)1 << (bits - 1)) -
			1), sshape, 0, NULL);
		lhs = to_integral(ed, lhs, ft, z, lo, hi);
		rhs = to_integral(ed, rhs, ft, z, lo, hi);
	}
	r = pass_b_compare(ed, lhs, rhs, dir);
	m->comps[ed->c].ins[r].shape = shape;
	return r;
}

int
pass_comparison_expander(HloModule *m, PassCtx *ctx)
{
	return pass_expand(m, ctx, match, expand, NULL);
}
