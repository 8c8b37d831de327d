/* tree_reduction_rewriter.c: "tree_reduction_rewriter", xla's generic
 * (CPU) TreeReductionRewriter (xla/hlo/transforms/simplifiers/
 * tree_reduction_rewriter.cc, openxla/xla as of jpli02/xla c4cbd3c) with
 * its default reduce_window_size of 32, as XLA:CPU runs it.
 *
 * Contract: in every non-fusion computation, a reduce with an array
 * result (one operand and one init value) in which some reduced
 * dimension is longer than 32 becomes a reduce-window and a reduce: the
 * window covers min(size, 32) elements, with the same stride, of every
 * reduced dimension and 1 of the others, padded as kSame (the padding
 * reads the init value); the reduce then reduces the reduce-window's
 * result over the same dimensions with the same init value and
 * computation. Run to a fixed point this is a pairwise summation.
 * It does not fire on variadic (tuple) reductions, when every reduced
 * dimension has at most 32 elements, or on a reduce with control
 * dependencies. An operand with a zero-sized dimension is left alone
 * (xla would build a window of size 0, which shape inference refuses;
 * zero_sized_hlo_elimination removes such reductions).
 */
#include "build.h"

#define WINDOW 32

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	const HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);
	const HloShape *s;
	const int64_t *rd;
	uint32_t n, k;

	(void)arg;
	if (in->op != HOP_REDUCE || in->nops != 2 || in->ncalled != 1 ||
	    hlo_sh(m, in->shape)->type == TY_TUPLE)
		return 0;
	s = hlo_sh(m, pass_b_shape(ed, pass_opnd(ed, i, 0)));
	for (k = 0; k < s->rank; k++)
		if (hlo_dims(m, s)[k] == 0)
			return 0;
	rd = hlo_attr_list(m, in, A_DIMENSIONS, &n);
	for (k = 0; k < n; k++)
		if (rd[k] >= 0 && rd[k] < s->rank &&
		    hlo_dims(m, s)[rd[k]] > WINDOW)
			return 1;
	return 0;
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	uint32_t x = pass_opnd(ed, i, 0), init = pass_opnd(ed, i, 1), nd;
	uint32_t ops[2] = {x, init}, rw, r, comp, shape = pass_ins(ed, i)->shape;
	const HloShape *s = hlo_sh(m, pass_b_shape(ed, x));
	int64_t dims[64], win[7 * 64], *rd;
	const int64_t *p;
	int rank = s->rank, k;
	HloAttr a;

	(void)arg;
	p = hlo_attr_list(m, pass_ins(ed, i), A_DIMENSIONS, &nd);
	rd = pass_alloc(ed->ctx, (nd + 1) * sizeof *rd);
	for (k = 0; k < (int)nd; k++)
		rd[k] = p[k];
	for (k = 0; k < rank && k < 64; k++) {
		int64_t d = hlo_dims(m, s)[k], w = 1, out, need;

		if (hlo_ints_has(rd, nd, k))
			w = d < WINDOW ? d : WINDOW;
		out = (d + w - 1) / w;
		need = (out - 1) * w + w - d;
		if (need < 0)
			need = 0;
		win[7 * k] = w;
		win[7 * k + 1] = w;
		win[7 * k + 2] = need / 2;
		win[7 * k + 3] = need - need / 2;
		win[7 * k + 4] = win[7 * k + 5] = 1;
		win[7 * k + 6] = 0;
		dims[k] = out;
	}
	comp = m->ids[pass_ins(ed, i)->called];
	rw = pass_b_op(ed, HOP_REDUCEWINDOW, pass_b_array(m, s->type, rank,
		dims), 2, ops);
	a = hlo_mk_ints(m, A_WINDOW, win, 7 * (uint32_t)rank);
	a.kind = K_WINDOW;
	hlo_set_attrs(m, ed->c, rw, 1, &a);
	hlo_set_called(m, ed->c, rw, 1, &comp);
	ops[0] = rw;
	r = pass_b_op(ed, HOP_REDUCE, shape, 2, ops);
	a = hlo_mk_ints(m, A_DIMENSIONS, rd, nd);
	hlo_set_attrs(m, ed->c, r, 1, &a);
	hlo_set_called(m, ed->c, r, 1, &comp);
	return r;
}

int
pass_tree_reduction_rewriter(HloModule *m, PassCtx *ctx)
{
	return pass_expand(m, ctx, match, expand, NULL);
}
