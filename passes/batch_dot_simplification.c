/* batch_dot_simplification.c: "batch-dot-simplification", xla's
 * BatchDotSimplification (xla/hlo/transforms/simplifiers/
 * batch_dot_simplification.cc, openxla/xla as of jpli02/xla c4cbd3c).
 *
 * Contract: in every non-fusion computation, a dot whose lhs and rhs
 * batch dimensions are equal and 0, 1, ..., n-1, with exactly one
 * contracting dimension, and with some batch dimension of size 1, loses
 * those degenerate batch dimensions: both operands are reshaped without
 * them, the new dot (batch dims 0..n-k-1, contracting dims shifted down
 * by k, the old dot's precision config and result type) is reshaped back
 * to the old dot's shape, and that reshape replaces the dot.
 * It does not fire on a dot without a size-1 batch dimension, with zero
 * or several contracting dimensions (algsimp turns the former into a
 * multiply), with batch dimensions that are not leading or differ
 * between the sides, on sparse dots, or on a dot with control
 * dependencies (ReplaceInstruction refuses it).
 */
#include "dotutil.h"

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	const HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);
	const HloShape *ls;
	PassDnums d;
	uint32_t k;
	int deg = 0;

	(void)arg;
	if (!pass_dot_plain(m, in) || pass_dot_dnums(m, in, &d) < 0 ||
	    d.nlb != d.nrb || d.nlc != 1)
		return 0;
	for (k = 0; k < d.nlb; k++)
		if (d.lb[k] != k || d.rb[k] != k)
			return 0;
	ls = hlo_sh(m, pass_b_shape(ed, pass_opnd(ed, i, 0)));
	for (k = 0; k < d.nlb; k++)
		deg += hlo_dims(m, ls)[d.lb[k]] == 1;
	return deg > 0;
}

/* x without its dimensions in the leading n that have size 1 */
static uint32_t
elide(PassEdit *ed, uint32_t x, const int64_t *ldims, uint32_t n)
{
	const HloShape *s = hlo_sh(ed->m, pass_b_shape(ed, x));
	int64_t d[PASS_DOT_MAXDIMS];
	int r = 0, q;

	for (q = 0; q < s->rank; q++)
		if (q >= (int)n || ldims[q] != 1)
			d[r++] = hlo_dims(ed->m, s)[q];
	return pass_b_reshape(ed, x, r, d);
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	uint32_t lhs = pass_opnd(ed, i, 0), rhs = pass_opnd(ed, i, 1);
	uint32_t shape = pass_ins(ed, i)->shape, nl, nr, nd, k;
	int64_t ld[PASS_DOT_MAXDIMS], dims[PASS_DOT_MAXDIMS];
	const HloShape *ls = hlo_sh(m, pass_b_shape(ed, lhs));
	PassDnums d;
	int deg = 0, rank;

	(void)arg;
	pass_dot_dnums(m, pass_ins(ed, i), &d);
	for (k = 0; k < ls->rank && k < PASS_DOT_MAXDIMS; k++)
		ld[k] = hlo_dims(m, ls)[k];
	for (k = 0; k < d.nlb; k++)
		deg += ld[k] == 1;
	nl = elide(ed, lhs, ld, d.nlb);
	nr = elide(ed, rhs, ld, d.nlb);
	d.nlb -= deg;
	d.nrb -= deg;
	d.lc[0] -= deg;
	d.rc[0] -= deg;
	rank = pass_dot_dims(m, pass_b_shape(ed, nl), pass_b_shape(ed, nr), &d,
		dims);
	nd = pass_dot_like(ed, i, nl, nr, &d, pass_b_array(m,
		hlo_sh(m, shape)->type, rank, dims));
	return pass_b_op(ed, HOP_RESHAPE, shape, 1, &nd);
}

int
pass_batch_dot_simplification(HloModule *m, PassCtx *ctx)
{
	return pass_expand(m, ctx, match, expand, NULL);
}
