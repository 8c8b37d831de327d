/* stochastic_convert_decomposer.c: "stochastic_convert_decomposer", xla's
 * StochasticConvertDecomposer (xla/hlo/transforms/expanders/
 * stochastic_convert_decomposer.cc, openxla/xla as of 2025-03).
 *
 * In every non-fusion computation, stochastic-convert(x, random) of a
 * float x to a signed integer type becomes: t = floor(|x|), f = |x| - t
 * (f16 upcast to f32), rounded up (t + 1) when random < convert(f *
 * 2^bits(random)), negated where sign(x) < 0, and clamped: x <= min gives
 * min, x >= max gives max (the comparisons in x's type, as xla). The
 * pass fails, as xla's does, on a stochastic-convert it cannot decompose:
 * a result that is not a signed integer ("Unsupported stochastic
 * convert"), a random operand that is not unsigned or of another width
 * than x. Instructions with control dependencies are left alone.
 */
#include <math.h>
#include <stdlib.h>

#include "build.h"

static int
check(const HloModule *m, const HloInstr *in, uint32_t c, char *why,
	size_t n)
{
	int tx = hlo_sh(m, hlo_ins(m, c, m->ids[in->ops])->shape)->type;
	int tr = hlo_sh(m, hlo_ins(m, c, m->ids[in->ops + 1])->shape)->type;
	int to = hlo_sh(m, in->shape)->type;

	if (hlo_typeinfo[tx].cls != C_FLOAT) {
		snprintf(why, n, "the operand must be a float, not %s",
			hlo_typeinfo[tx].name);
		return -1;
	}
	if (hlo_typeinfo[tr].cls != C_UINT) {
		snprintf(why, n, "random numbers must be unsigned integers, "
			"not %s", hlo_typeinfo[tr].name);
		return -1;
	}
	if (hlo_typeinfo[tr].bits != hlo_typeinfo[tx].bits) {
		snprintf(why, n, "the random numbers (%s) and the operand (%s) "
			"must have same bits", hlo_typeinfo[tr].name,
			hlo_typeinfo[tx].name);
		return -1;
	}
	if (hlo_typeinfo[to].cls != C_SINT) {
		snprintf(why, n, "Unsupported stochastic convert: from %s to "
			"%s", hlo_typeinfo[tx].name, hlo_typeinfo[to].name);
		return -1;
	}
	return 0;
}

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	(void)arg;
	return pass_ins(ed, i)->op == HOP_STOCHCONVERT &&
		pass_ins(ed, i)->nops == 2;
}

/* MakeScalarLike(x, v) for an integer v */
static uint32_t
like_int(PassEdit *ed, uint32_t x, int64_t v)
{
	int t = pass_b_type(ed, x);
	uint32_t k, s = pass_b_shape(ed, x);

	if (hlo_typeinfo[t].cls == C_FLOAT)
		k = pass_b_scalar(ed, t, (double)v);
	else
		k = pass_b_scalar_bits(ed, t, (uint64_t)v);
	if (hlo_sh(ed->m, s)->rank == 0)
		return k;
	return pass_b_bcast(ed, k, s, 0, NULL);
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	uint32_t x = pass_opnd(ed, i, 0), rnd = pass_opnd(ed, i, 1);
	int to = hlo_sh(m, pass_ins(ed, i)->shape)->type;
	int tr = pass_b_type(ed, rnd), bits = hlo_typeinfo[to].bits;
	uint32_t sg, neg, ab, tf, fr, fx, up, ti, r, o[2];
	int64_t mn = (int64_t)((uint64_t)-1 << (bits - 1));
	int64_t mx = (int64_t)(((uint64_t)1 << (bits - 1)) - 1);

	(void)arg;
	sg = pass_b_unary(ed, HOP_SIGN, x);
	neg = pass_b_compare(ed, sg, pass_b_like(ed, sg, 0), "LT");
	ab = pass_b_unary(ed, HOP_ABS, x);
	tf = pass_b_unary(ed, HOP_FLOOR, ab);
	fr = pass_b_binary(ed, HOP_SUBTRACT, ab, tf);
	if (pass_b_type(ed, x) == TY_F16)
		fr = pass_b_convert(ed, fr, TY_F32);
	fx = pass_b_binary(ed, HOP_MUL, fr, pass_b_like(ed, fr,
		ldexp(1.0, hlo_typeinfo[tr].bits)));
	up = pass_b_compare(ed, rnd, pass_b_convert(ed, fx, tr), "LT");
	ti = pass_b_convert(ed, tf, to);
	o[0] = ti;
	o[1] = like_int(ed, ti, 1);
	ti = pass_b_select(ed, up, pass_b_op(ed, HOP_ADD, pass_b_shape(ed, ti),
		2, o), ti);
	r = pass_b_select(ed, neg, pass_b_unary(ed, HOP_NEGATE, ti), ti);
	r = pass_b_select(ed, pass_b_compare(ed, x, like_int(ed, x, mn), "LE"),
		like_int(ed, r, mn), r);
	return pass_b_select(ed, pass_b_compare(ed, x, like_int(ed, x, mx),
		"GE"), like_int(ed, r, mx), r);
}

int
pass_stochastic_convert_decomposer(HloModule *m, PassCtx *ctx)
{
	uint8_t *skip = pass_skipped_comps(m, 0);
	uint32_t c, i;
	char why[256];

	for (c = 0; c < m->ncomps; c++) {
		if (skip[c])
			continue;
		for (i = 0; i < m->comps[c].nins; i++) {
			const HloInstr *in = &m->comps[c].ins[i];

			if ((in->flags & HI_DEAD) || in->op != HOP_STOCHCONVERT)
				continue;
			if (in->nops != 2 || check(m, in, c, why,
			    sizeof why) < 0) {
				free(skip);
				return hlo_err(&ctx->err, "%s: %s", hlo_cstr(m,
					in->name), in->nops != 2 ?
					"requires 2 operands" : why);
			}
		}
	}
	free(skip);
	return pass_expand(m, ctx, match, expand, NULL);
}
