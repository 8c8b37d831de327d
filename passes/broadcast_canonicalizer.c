/* broadcast_canonicalizer.c: "broadcast_canonicalizer", xla's
 * BroadcastCanonicalizer (xla/hlo/transforms/simplifiers/
 * broadcast_canonicalizer.cc, openxla/xla as of 2025-03).
 *
 * In every non-fusion computation, a broadcast whose dimensions are not
 * sorted becomes a broadcast with the dimensions sorted (result
 * dimensions sorted[i] take operand dimension i) followed by the
 * transpose that restores the old result shape. Sorted broadcasts are
 * left alone. Instructions with control dependencies are left alone.
 */
#include <stdlib.h>
#include <string.h>

#include "build.h"

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	const HloInstr *in = pass_ins(ed, i);
	const int64_t *d;
	uint32_t n, k;

	(void)arg;
	if (in->op != HOP_BROADCAST || in->nops != 1 ||
	    hlo_sh(ed->m, in->shape)->type >= TY_TUPLE)
		return 0;
	d = hlo_attr_list(ed->m, in, A_DIMENSIONS, &n);
	for (k = 1; k < n; k++)
		if (d[k] < d[k - 1])
			return 1;
	return 0;
}

static int
cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	uint32_t x = pass_opnd(ed, i, 0), shape = pass_ins(ed, i)->shape, n, k;
	const HloShape *sh = hlo_sh(m, shape);
	int rank = sh->rank, j;
	int64_t *orig, *sorted, *bd, *perm;
	uint32_t nb, r;

	(void)arg;
	hlo_attr_list(m, pass_ins(ed, i), A_DIMENSIONS, &n);
	orig = xmalloc((n + 1) * sizeof *orig);
	sorted = xmalloc((n + 1) * sizeof *sorted);
	bd = xmalloc((rank + 1) * sizeof *bd);
	perm = xmalloc((rank + 1) * sizeof *perm);
	memcpy(orig, hlo_attr_list(m, pass_ins(ed, i), A_DIMENSIONS, &k),
		n * sizeof *orig);
	memcpy(sorted, orig, n * sizeof *sorted);
	qsort(sorted, n, sizeof *sorted, cmp64);
	memcpy(bd, hlo_dims(m, sh), rank * sizeof *bd);
	for (k = 0; k < n; k++)
		bd[sorted[k]] = hlo_dims(m, hlo_sh(m, pass_b_shape(ed, x)))[k];
	for (j = 0; j < rank; j++)
		perm[j] = j;
	/* as xla: perm[sorted[k]] = sorted[position of sorted[k] in orig] */
	for (k = 0; k < n; k++) {
		uint32_t p = 0;

		while (p < n && orig[p] != sorted[k])
			p++;
		perm[sorted[k]] = sorted[p < n ? p : k];
	}
	nb = pass_b_bcast(ed, x, pass_b_array(m, pass_b_type(ed, x), rank, bd),
		n, sorted);
	r = pass_b_op(ed, HOP_TRANSPOSE, shape, 1, &nb);
	{
		HloAttr a = hlo_mk_ints(m, A_DIMENSIONS, perm, (uint32_t)rank);

		hlo_set_attrs(m, ed->c, r, 1, &a);
	}
	free(orig);
	free(sorted);
	free(bd);
	free(perm);
	return r;
}

int
pass_broadcast_canonicalizer(HloModule *m, PassCtx *ctx)
{
	return pass_expand(m, ctx, match, expand, NULL);
}
