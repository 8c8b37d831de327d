/* reduce_decomposer.c: "reduce-decomposer", xla's ReduceDecomposer with
 * no custom_layout_allowed predicate, as XLA:CPU runs it after layout
 * assignment (xla/hlo/transforms/expanders/reduce_decomposer.cc,
 * openxla/xla as of 2025-03).
 *
 * Layouts: a shape without one has the default (descending) layout.
 * For each reduce of a non-fusion computation:
 *  1. (VariadicReductionLayoutEqualizer) inputs whose layout differs from
 *     the first input's are copied to the first input's layout;
 *  2. when the output layout is not the input layout with the reduced
 *     dimensions deleted, the reduce gets that expected layout and a
 *     copy to the old output layout follows it (a get-tuple-element and
 *     a copy per output, then a tuple, for variadic reduces).
 * A module without layouts is never changed. Deviations, where xla fails
 * a RET_CHECK or drops a layout: step 1 keeps the reduce's output shape
 * (xla re-infers it with the default layout), the reduce of step 2 gets
 * the expected layout even when it is not the default, and variadic
 * outputs with different layouts are each copied to their own.
 */
#include <stdlib.h>
#include <string.h>

#include "build.h"

/* the layout of shape s (minor to major; the default if none) */
static void
layout(const HloModule *m, uint32_t s, int64_t *m2m)
{
	const HloShape *sh = hlo_sh(m, s);
	int k;

	for (k = 0; k < sh->rank; k++)
		m2m[k] = (sh->flags & SH_LAYOUT) ? hlo_m2m(m, sh)[k] :
			sh->rank - 1 - k;
}

static int
same_layout(const HloModule *m, uint32_t a, uint32_t b)
{
	int64_t x[64], y[64];
	int r = hlo_sh(m, a)->rank;

	if (r != hlo_sh(m, b)->rank || r > 64)
		return r == hlo_sh(m, b)->rank;
	layout(m, a, x);
	layout(m, b, y);
	return !memcmp(x, y, r * sizeof *x);
}

static uint32_t
with_layout(HloModule *m, uint32_t s, const int64_t *m2m)
{
	const HloShape *sh = hlo_sh(m, s);
	int64_t d[64];

	memcpy(d, hlo_dims(m, sh), sh->rank * sizeof *d);
	return hlo_shape(m, sh->type, sh->rank, d, m2m, sh->dynmask, 0);
}

/* ShapeUtil::DeleteDimensions(dims, operand shape) */
static uint32_t
expected(HloModule *m, uint32_t s, const int64_t *dims, uint32_t n)
{
	const HloShape *sh = hlo_sh(m, s);
	int64_t d[64], l[64], out[64], ol[64];
	uint64_t dyn = 0;
	int r = sh->rank, k, j, nd = 0, nl = 0;

	memcpy(d, hlo_dims(m, sh), r * sizeof *d);
	layout(m, s, l);
	for (k = 0; k < r; k++)
		if (!hlo_ints_has(dims, n, k)) {
			if (sh->dynmask & ((uint64_t)1 << k))
				dyn |= (uint64_t)1 << nd;
			out[nd++] = d[k];
		}
	for (k = 0; k < r; k++) {
		int64_t x = l[k], below = 0;

		if (hlo_ints_has(dims, n, x))
			continue;
		for (j = 0; j < (int)n; j++)
			below += dims[j] < x;
		ol[nl++] = x - below;
	}
	return hlo_shape(m, sh->type, nd, out, ol, dyn, 0);
}

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	const HloInstr *in = pass_ins(ed, i);
	uint32_t k, n;

	(void)arg;
	if (in->op != HOP_REDUCE || in->nops < 2 || in->nops % 2 ||
	    in->ncalled != 1)
		return 0;
	n = in->nops / 2;
	for (k = 0; k < n; k++)
		if (hlo_sh(ed->m, pass_b_shape(ed, pass_opnd(ed, i, k)))->rank >
		    64)
			return 0;
	return 1;
}

static uint32_t
out_shape(HloModule *m, uint32_t s, uint32_t n, uint32_t k)
{
	return n == 1 && hlo_sh(m, s)->type != TY_TUPLE ? s :
		hlo_tuple_elems(m, hlo_sh(m, s))[k];
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	uint32_t n = pass_ins(ed, i)->nops / 2, shape = pass_ins(ed, i)->shape;
	uint32_t *ops = xmalloc(2 * n * sizeof *ops), *exp = xmalloc(n * 4u);
	uint32_t k, nd, r = HLO_NONE, comp = m->ids[pass_ins(ed, i)->called];
	int64_t first[64], *dims;
	int equalized = 0, differs = 0;
	HloAttr a;

	(void)arg;
	dims = xmalloc((hlo_sh(m, pass_b_shape(ed, pass_opnd(ed, i, 0)))->rank
		+ 1) * sizeof *dims);
	{
		const int64_t *d = hlo_attr_list(m, pass_ins(ed, i),
			A_DIMENSIONS, &nd);

		memcpy(dims, d, nd * sizeof *dims);
	}
	for (k = 0; k < 2 * n; k++)
		ops[k] = pass_opnd(ed, i, k);
	layout(m, pass_b_shape(ed, ops[0]), first);
	for (k = 1; k < n; k++)
		if (!same_layout(m, pass_b_shape(ed, ops[k]), pass_b_shape(ed,
		    ops[0]))) {
			ops[k] = pass_b_op(ed, HOP_COPY, with_layout(m,
				pass_b_shape(ed, ops[k]), first), 1, &ops[k]);
			equalized = 1;
		}
	for (k = 0; k < n; k++) {
		exp[k] = expected(m, pass_b_shape(ed, ops[k]), dims, nd);
		if (!same_layout(m, exp[k], out_shape(m, shape, n, k)))
			differs = 1;
	}
	if (!equalized && !differs)
		goto out;
	r = pass_b_op(ed, HOP_REDUCE, !differs ? shape : n == 1 ? exp[0] :
		hlo_shape_tuple(m, n, exp), 2 * n, ops);
	a = hlo_mk_ints(m, A_DIMENSIONS, dims, nd);
	hlo_set_attrs(m, ed->c, r, 1, &a);
	hlo_set_called(m, ed->c, r, 1, &comp);
	if (!differs)
		goto out;
	if (n == 1 && hlo_sh(m, shape)->type != TY_TUPLE) {
		r = pass_b_op(ed, HOP_COPY, shape, 1, &r);
		goto out;
	}
	for (k = 0; k < n; k++) {
		ops[k] = pass_b_gte(ed, r, k);
		ops[k] = pass_b_op(ed, HOP_COPY, out_shape(m, shape, n, k), 1,
			&ops[k]);
	}
	r = pass_b_op(ed, HOP_TUPLE, shape, n, ops);
out:
	free(ops);
	free(exp);
	free(dims);
	return r;
}

int
pass_reduce_decomposer(HloModule *m, PassCtx *ctx)
{
	return pass_expand(m, ctx, match, expand, NULL);
}
