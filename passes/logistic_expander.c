/* logistic_expander.c: "logistic-expander", xla's LogisticExpander.
 *
 * An OpExpanderPass: logistic(x) becomes 1 / (1 + exp(-x)), the ones a
 * scalar constant of x's type broadcast to x's shape (MakeScalarLike;
 * one for the numerator, one for the sum, as xla shares a single one).
 */
#include "build.h"

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	(void)arg;
	return ed->m->comps[ed->c].ins[i].op == HOP_LOGISTIC &&
		ed->m->comps[ed->c].ins[i].nops == 1;
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	uint32_t x = pass_res(ed, ed->m->ids[ed->m->comps[ed->c].ins[i].ops]);
	uint32_t one = pass_b_like(ed, x, 1.0), e, den;

	(void)arg;
	e = pass_b_unary(ed, HOP_EXP, pass_b_unary(ed, HOP_NEGATE, x));
	den = pass_b_binary(ed, HOP_ADD, one, e);
	return pass_b_binary(ed, HOP_DIVIDE, one, den);
}

int
pass_logistic_expander(HloModule *m, PassCtx *ctx)
{
	return pass_expand(m, ctx, match, expand, NULL);
}
