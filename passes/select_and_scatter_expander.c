/* select_and_scatter_expander.c: "select_and_scatter_expander", xla's
 * SelectAndScatterExpander (xla/service/select_and_scatter_expander.cc
 * at openxla/xla c4cbd3c, March 2025).
 *
 * Every select-and-scatter of a non-fusion computation without control
 * dependencies becomes a variadic reduce-window and a scatter:
 *   - one s32 iota per operand dimension, of the operand's shape;
 *   - a reduce-window over (operand, iotas...) with the select-and-
 *     scatter's window, initial values (init, -1, ...), and a new
 *     computation "<select>.reduce_window" that keeps the left
 *     (value, position) when select(lhs, rhs) holds and the left one is
 *     a real element (its first iota is not -1), or when the right one
 *     is padding (its first iota is -1); the select computation is
 *     inlined into it;
 *   - the reduced positions, each reshaped to [source dims..., 1] and
 *     concatenated on the last dimension, are the indices of a scatter
 *     of the source into a broadcast of init with the scatter
 *     computation (update_window_dims={}, inserted_window_dims and
 *     scatter_dims_to_operand_dims all operand dimensions,
 *     index_vector_dim the source's rank).
 * Left alone: a scalar operand (xla would concatenate no indices).
 */
#include <stdio.h>
#include <string.h>

#include "build.h"
#include "scatter_util.h"
#include "wutil.h"

/* the "<select>.reduce_window" computation for rank r and element type t */
static uint32_t
window_comp(HloModule *m, uint32_t sel, int r, int t)
{
	char name[300];
	uint32_t c, s32 = hlo_shape_scalar(m, TY_S32), st = hlo_shape_scalar(m, t);
	uint32_t neg, il, ir, lf, rf, rnf, ol, orr, call, pred, args[2];
	uint32_t res[PASS_SX_MAXR + 1], o[2];
	int64_t m1 = -1;
	int rb = r + 1, i;
	PassSxB b;

	snprintf(name, sizeof name, "%.200s.reduce_window",
		hlo_cstr(m, m->comps[sel].name));
	c = pass_sx_comp(m, name);
	b.m = m;
	b.c = c;
	b.ed = NULL;
	neg = pass_sx_const(&b, TY_S32, 0, &m1, 1);
	il = pass_sx_param(m, c, 1, s32, "iota_lhs");
	ir = pass_sx_param(m, c, 1 + rb, s32, "iota_lhs");
	lf = pass_sx_compare(&b, il, neg, "NE");
	rf = pass_sx_compare(&b, ir, neg, "NE");
	rnf = pass_sx_op(&b, HOP_NOT, pass_sx_shape(&b, rf), 1, &rf);
	ol = pass_sx_param(m, c, 0, st, "operand_lhs");
	orr = pass_sx_param(m, c, rb, st, "operand_rhs");
	args[0] = ol;
	args[1] = orr;
	call = wu_inline(m, c, sel, args, 2, NULL);
	if (call == HLO_NONE)
		return HLO_NONE;
	o[0] = call;
	o[1] = lf;
	pred = pass_sx_op(&b, HOP_AND, pass_sx_shape(&b, call), 2, o);
	o[0] = pred;
	o[1] = rnf;
	pred = pass_sx_op(&b, HOP_OR, pass_sx_shape(&b, call), 2, o);
	res[0] = pass_sx_select(&b, pred, ol, orr);
	for (i = 1; i < rb; i++) {
		if (i > 1) {
			il = pass_sx_param(m, c, i, s32, "iota_lhs");
			ir = pass_sx_param(m, c, i + rb, s32, "iota_rhs");
		}
		res[i] = pass_sx_select(&b, pred, il, ir);
	}
	m->comps[c].root = pass_sx_tuple(&b, rb, res);
	return c;
}

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	const HloModule *m = ed->m;
	const HloInstr *in = &m->comps[ed->c].ins[i];
	const HloShape *sh;

	(void)arg;
	if (in->op != HOP_SELECTANDSCATTER || in->nops != 3 ||
	    in->ncalled != 2 || !hlo_attr(m, in, A_WINDOW))
		return 0;
	sh = hlo_sh(m, m->comps[ed->c].ins[m->ids[in->ops]].shape);
	return sh->type < TY_TUPLE && sh->rank > 0 && sh->rank < PASS_SX_MAXR;
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	PassSxB b = {m, ed->c, ed};
	const HloInstr *in = &m->comps[ed->c].ins[i];
	uint32_t x = pass_res(ed, m->ids[in->ops]);
	uint32_t src = pass_res(ed, m->ids[in->ops + 1]);
	uint32_t init = pass_res(ed, m->ids[in->ops + 2]);
	uint32_t sel = m->ids[in->called], scat = m->ids[in->called + 1];
	uint32_t shape = in->shape, ishape, rshape, comp, neg, rw, sc, bi, idx;
	uint32_t ops[2 * PASS_SX_MAXR + 2], shapes[PASS_SX_MAXR + 1];
	uint32_t iotas[PASS_SX_MAXR], inds[PASS_SX_MAXR];
	int r = pass_sx_rank(&b, x), sr = pass_sx_rank(&b, src), k;
	int64_t m1 = -1, d[PASS_SX_MAXR + 1], dims[PASS_SX_MAXR];
	HloAttr win = *hlo_attr(m, in, A_WINDOW);

	(void)arg;
	if (sr != r)
		return HLO_NONE;
	ishape = hlo_shape_with_type(m, pass_sx_shape(&b, x), TY_S32);
	rshape = hlo_shape_with_type(m, pass_sx_shape(&b, src), TY_S32);
	for (k = 0; k < r; k++) {
		iotas[k] = pass_sx_op(&b, HOP_IOTA, ishape, 0, NULL);
		pass_sx_int(&b, iotas[k], A_IOTA_DIM, k);
	}
	comp = window_comp(m, sel, r, pass_sx_type(&b, x));
	if (comp == HLO_NONE)
		return HLO_NONE;
	neg = pass_sx_const(&b, TY_S32, 0, &m1, 1);
	ops[0] = x;
	memcpy(ops + 1, iotas, r * sizeof *ops);
	ops[r + 1] = init;
	shapes[0] = pass_sx_shape(&b, src);
	for (k = 0; k < r; k++) {
		ops[r + 2 + k] = neg;
		shapes[k + 1] = rshape;
	}
	rw = pass_sx_op(&b, HOP_REDUCEWINDOW, hlo_shape_tuple(m, r + 1, shapes),
		2 * r + 2, ops);
	hlo_attr_set(m, ed->c, rw, &win);
	hlo_set_called(m, ed->c, rw, 1, &comp);
	memcpy(d, pass_sx_dims(&b, src), r * sizeof *d);
	d[r] = 1;
	for (k = 0; k < r; k++)
		inds[k] = pass_sx_reshape(&b, pass_sx_gte(&b, rw, k + 1), r + 1,
			d);
	bi = pass_sx_op(&b, HOP_BROADCAST, shape, 1, &init);
	pass_sx_ints(&b, bi, A_DIMENSIONS, NULL, 0);
	idx = pass_sx_concat(&b, inds, r, r);
	ops[0] = bi;
	ops[1] = idx;
	ops[2] = src;
	sc = pass_sx_op(&b, HOP_SCATTER, shape, 3, ops);
	for (k = 0; k < r; k++)
		dims[k] = k;
	pass_sx_ints(&b, sc, A_UPDATE_WINDOW_DIMS, NULL, 0);
	pass_sx_ints(&b, sc, A_INSERTED_WINDOW_DIMS, dims, r);
	pass_sx_ints(&b, sc, A_SCATTER_DIMS_TO_OPERAND_DIMS, dims, r);
	pass_sx_int(&b, sc, A_INDEX_VECTOR_DIM, sr);
	hlo_set_called(m, ed->c, sc, 1, &scat);
	return sc;
}

int
pass_select_and_scatter_expander(HloModule *m, PassCtx *ctx)
{
	return pass_expand(m, ctx, match, expand, NULL);
}
