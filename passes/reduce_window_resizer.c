/* reduce_window_resizer.c: "reduce-window-resizer", xla's
 * ReduceWindowResizer (xla/hlo/transforms/simplifiers/
 * reduce_window_resizer.cc with reduce_window_util.cc, openxla/xla
 * e9d7bd3d8f9708814f74e144627898f0a79381a9, the version XLA:CPU at
 * 353a6d6c runs after HloPassFix(ReduceWindowRewriter)), and the rank-1
 * to rank-2 rewrite both passes share (reduce_window.h).
 *
 * Contract: in every computation (fusion computations included, as xla
 * walks module->computations()), in post order, each reduce-window whose
 * first input has rank 1 becomes a reduce-window over its inputs
 * reshaped to [n,1]: the window gains a last dimension of size 1, stride
 * 1, no padding or dilation; its results (f32[m,1], or a tuple of them)
 * are reshaped back to the old shapes, through get-tuple-elements and a
 * tuple when the reduce-window is variadic. The old reduce-window's
 * users read the new value and it is removed (ReplaceAllUsesWith,
 * RemoveInstruction: its name is not carried over).
 * It never fires on a reduce-window of any other rank. A reduce-window
 * with control dependencies is left alone (xla's RemoveInstruction
 * fails on it and the pass returns an error). New shapes carry no
 * layout (xla appends the new dimension as the most major one,
 * f32[n,1]{0,1}: the same memory order as f32[n]).
 */
#include <string.h>

#include "reduce_window.h"

uint32_t
pass_rw_at(PassEdit *ed, uint32_t x, uint32_t j)
{
	if (hlo_sh(ed->m, pass_b_shape(ed, x))->type != TY_TUPLE)
		return x;
	return pass_b_gte(ed, x, j);
}

/* the shape s with a dimension of size d appended (its dynamic
 * dimensions kept, as xla's AppendMajorDimension) */
static uint32_t
append_dim(HloModule *m, uint32_t s, int64_t d)
{
	const HloShape *sh = hlo_sh(m, s);
	int64_t dims[65];
	int r = sh->rank;

	memcpy(dims, hlo_dims(m, sh), (size_t)r * sizeof *dims);
	dims[r] = d;
	return hlo_shape(m, sh->type, r + 1, dims, NULL, sh->dynmask, 0);
}

void
pass_rw_to_rank2(PassEdit *ed, uint32_t i)
{
	HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);
	uint32_t n = in->nops / 2, shape = in->shape, comp, j, rw, r;
	uint32_t *ops = pass_alloc(ed->ctx, 2 * (n + 1) * sizeof *ops);
	uint32_t *outs = pass_alloc(ed->ctx, (n + 1) * sizeof *outs);
	const int64_t *w;
	int64_t win[14];
	uint32_t nw;
	HloAttr a;

	comp = m->ids[in->called];
	w = hlo_attr_list(m, in, A_WINDOW, &nw);
	memset(win, 0, sizeof win);
	memcpy(win, w, (nw < 7 ? nw : 7) * sizeof *win);
	win[7] = 1;
	win[8] = 1;
	win[11] = 1;
	win[12] = 1;
	for (j = 0; j < 2 * n; j++)
		ops[j] = pass_opnd(ed, i, j);
	for (j = 0; j < n; j++) {
		uint32_t x = ops[j];

		ops[j] = pass_b_op(ed, HOP_RESHAPE, append_dim(m,
			pass_b_shape(ed, x), 1), 1, &x);
	}
	if (hlo_sh(m, shape)->type == TY_TUPLE) {
		for (j = 0; j < n; j++)
			outs[j] = append_dim(m, hlo_tuple_elems(m,
				hlo_sh(m, shape))[j], 1);
		r = hlo_shape_tuple(m, n, outs);
	} else {
		r = append_dim(m, shape, 1);
	}
	rw = pass_b_op(ed, HOP_REDUCEWINDOW, r, 2 * n, ops);
	a = hlo_mk_ints(m, A_WINDOW, win, 14);
	a.kind = K_WINDOW;
	hlo_set_attrs(m, ed->c, rw, 1, &a);
	hlo_set_called(m, ed->c, rw, 1, &comp);
	for (j = 0; j < n; j++) {
		uint32_t x = pass_rw_at(ed, rw, j);
		uint32_t s = hlo_sh(m, shape)->type == TY_TUPLE ?
			hlo_tuple_elems(m, hlo_sh(m, shape))[j] : shape;

		outs[j] = pass_b_op(ed, HOP_RESHAPE, s, 1, &x);
	}
	r = hlo_sh(m, shape)->type == TY_TUPLE ? pass_b_op(ed, HOP_TUPLE,
		shape, n, outs) : outs[0];
	pass_replace_uses(ed, i, r);
	pass_remove(ed, i);
}

static int
resize_one(PassEdit *ed, uint32_t i, void *arg)
{
	const HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);

	(void)arg;
	if (in->op != HOP_REDUCEWINDOW || in->nops < 2 || in->ncalled != 1 ||
	    ed->ctl[i] ||
	    hlo_sh(m, pass_b_shape(ed, pass_opnd(ed, i, 0)))->rank != 1)
		return 0;
	pass_rw_to_rank2(ed, i);
	return 1;
}

int
pass_reduce_window_resizer(HloModule *m, PassCtx *ctx)
{
	return pass_visit_instrs(m, ctx, PASS_SKIP_NONE |
		PASS_VISIT_UNFORWARDED, resize_one, NULL);
}
