/* dynamic_index_splitter.c: "dynamic-index-splitter", xla's
 * DynamicIndexSplitter.
 *
 * In every non-fusion computation, in post order: a dynamic-slice or
 * dynamic-update-slice of a scalar operand becomes its operand (the
 * update for dynamic-update-slice); one whose start indices come as a
 * single vector (the old form) gets one scalar index per dimension, each
 * a slice of the vector reshaped to a scalar. Scalar-index forms of
 * higher rank are left alone.
 */
#include <stdlib.h>

#include "build.h"

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	const HloInstr *in = &ed->m->comps[ed->c].ins[i];

	(void)arg;
	return (in->op == HOP_DYNSLICE && in->nops >= 1) ||
		(in->op == HOP_DYNUPDSLICE && in->nops >= 2);
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	const HloInstr *in = &m->comps[ed->c].ins[i];
	int upd = in->op == HOP_DYNUPDSLICE;
	uint32_t op0 = pass_res(ed, m->ids[in->ops]), first = upd ? 2 : 1;
	uint32_t idx, k, *ops, r;
	uint32_t nops = in->nops, shape = in->shape, upd1 = HLO_NONE;
	const HloShape *ish;
	int rank = hlo_sh(m, pass_b_shape(ed, op0))->rank;
	int64_t one = 1, lo, hi;

	(void)arg;
	if (upd)
		upd1 = pass_res(ed, m->ids[in->ops + 1]);
	if (rank == 0)
		return upd ? upd1 : op0;
	if (nops != first + 1)
		return HLO_NONE;
	idx = pass_res(ed, m->ids[in->ops + first]);
	ish = hlo_sh(m, pass_b_shape(ed, idx));
	if (ish->rank != 1 || hlo_dims(m, ish)[0] != rank)
		return HLO_NONE;
	ops = xreallocarray(NULL, first + rank, sizeof *ops);
	ops[0] = op0;
	if (upd)
		ops[1] = upd1;
	for (k = 0; k < (uint32_t)rank; k++) {
		lo = k;
		hi = k + 1;
		r = pass_b_slice(ed, idx, &lo, &hi, &one);
		ops[first + k] = pass_b_reshape(ed, r, 0, NULL);
	}
	r = pass_b_op(ed, upd ? HOP_DYNUPDSLICE : HOP_DYNSLICE, shape,
		first + rank, ops);
	free(ops);
	return pass_b_set_attrs_like(ed, r, i);
}

int
pass_dynamic_index_splitter(HloModule *m, PassCtx *ctx)
{
	return pass_expand(m, ctx, match, expand, NULL);
}
