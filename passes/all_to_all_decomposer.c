/* all_to_all_decomposer.c: "all_to_all_decomposer", xla's
 * AllToAllDecomposer as XLA:CPU constructs it (defaults:
 * decompose_to_tuple=true, min_array_rank=0; xla/service/
 * all_to_all_decomposer.cc and its test, jpli02/xla c4cbd3c, the same
 * rewrite at openxla/xla 001918b).
 *
 * Contract. In every non-fusion computation, in post order, an array-
 * shaped all-to-all with a split dimension (dimensions={d}), no
 * constrain_layout=true and no control dependencies becomes
 *     slice_k = slice(x) of block k along d, k < g (block size
 *               shape[d] / g), the all-to-all's shape (layout kept)
 *               with dimension d the block size;
 *     a2a     = all-to-all(slice_0, ..., slice_{g-1}), the tuple form:
 *               the same replica_groups and channel_id, no split
 *               dimension, no constrain_layout;
 *     concatenate(gte(a2a, 0), ..., gte(a2a, g-1)), dimensions={d}
 * where g, the group size, is the first replica group's size, or the
 * module's replica_count (1 when the header gives none) without groups.
 * As SetupDerivedInstruction, the slices and the concatenate take the
 * all-to-all's metadata, frontend attributes and sharding, the new
 * all-to-all its metadata, frontend attributes and backend_config (not
 * the array sharding: a tuple cannot take it); the get-tuple-elements
 * nothing. The collective is replaced, never duplicated or merged.
 *
 * Must not fire: tuple-shaped all-to-alls (already decomposed),
 * ragged-all-to-all (min_array_rank 0: no rank is below it), layout-
 * constrained ones. Where xla would fail (no split dimension, a group
 * of 0, a dimension not divisible by the group size) the instruction is
 * left alone instead.
 */
#include <stdlib.h>
#include <string.h>

#include "build.h"

static void
copy_attr(PassEdit *ed, uint32_t from, uint32_t to, int key)
{
	const HloAttr *a = hlo_attr(ed->m, pass_ins(ed, from), key);
	HloAttr v;

	if (!a)
		return;
	v = *a;
	hlo_attr_set(ed->m, ed->c, to, &v);
}

/* SetupDerivedInstruction from the all-to-all x onto an array (arr) or
 * the tuple all-to-all */
static void
derived(PassEdit *ed, uint32_t x, uint32_t to, int arr)
{
	copy_attr(ed, x, to, A_METADATA);
	copy_attr(ed, x, to, A_FRONTEND_ATTRIBUTES);
	if (arr)
		copy_attr(ed, x, to, A_SHARDING);
	else
		copy_attr(ed, x, to, A_BACKEND_CONFIG);
}

/* the group size g, or 0 when xla's would be unusable */
static int64_t
group_size(PassEdit *ed, const HloInstr *in)
{
	uint32_t n;
	const char *t = hlo_attr_word(ed->m, in, A_REPLICA_GROUPS, &n);
	int64_t g;

	if (!t || (n == 2 && t[0] == '{' && t[1] == '}'))
		g = hlo_header_int(ed->m, "replica_count", 1);
	else
		g = hlo_replica_group_size(ed->m, in);
	return g > 0 ? g : 0;
}

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);
	const HloShape *s;
	const int64_t *d;
	uint32_t nd;
	int64_t g;

	(void)arg;
	if (in->op != HOP_ALLTOALL || in->nops != 1 ||
	    hlo_attr_int(m, in, A_CONSTRAIN_LAYOUT, 0))
		return 0;
	s = hlo_sh(m, in->shape);
	if (s->type >= TY_TUPLE || s->dynmask)
		return 0;
	d = hlo_attr_ints(m, in, A_DIMENSIONS, &nd);
	if (!d || nd != 1 || d[0] < 0 || d[0] >= s->rank)
		return 0;
	g = group_size(ed, in);
	return g > 0 && hlo_dims(m, s)[d[0]] % g == 0;
}

/* shape s with dimension dim of size n, layout kept */
static uint32_t
with_dim(HloModule *m, uint32_t s, int64_t dim, int64_t n)
{
	const HloShape *sh = hlo_sh(m, s);
	int64_t *d = xreallocarray(NULL, 2 * (size_t)sh->rank + 1, sizeof *d);
	int r = sh->rank, lay = (sh->flags & SH_LAYOUT) != 0;
	uint32_t t;

	memcpy(d, hlo_dims(m, sh), (size_t)r * (lay ? 2 : 1) * sizeof *d);
	d[dim] = n;
	t = hlo_shape(m, sh->type, r, d, lay ? d + r : NULL, sh->dynmask,
		sh->tail);
	free(d);
	return t;
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);
	uint32_t nd, shape = in->shape, x = pass_opnd(ed, i, 0), ss, a2a, r;
	int64_t dim = hlo_attr_ints(m, in, A_DIMENSIONS, &nd)[0];
	int64_t g = group_size(ed, in), size, *st, *lim, k;
	uint32_t *parts, *shapes;
	int rank = hlo_sh(m, shape)->rank;
	HloAttr a;

	(void)arg;
	size = hlo_dims(m, hlo_sh(m, shape))[dim] / g;
	ss = with_dim(m, shape, dim, size);
	st = xreallocarray(NULL, 2 * (size_t)rank + 1, sizeof *st);
	lim = st + rank;
	memset(st, 0, (size_t)rank * sizeof *st);
	memcpy(lim, hlo_dims(m, hlo_sh(m, shape)), (size_t)rank * sizeof *lim);
	parts = xreallocarray(NULL, (size_t)g, sizeof *parts);
	shapes = xreallocarray(NULL, (size_t)g, sizeof *shapes);
	for (k = 0; k < g; k++) {
		st[dim] = k * size;
		lim[dim] = st[dim] + size;
		r = pass_b_slice(ed, x, st, lim, NULL);
		m->comps[ed->c].ins[r].shape = ss;
		derived(ed, i, r, 1);
		parts[k] = r;
		shapes[k] = ss;
	}
	a2a = pass_b_op(ed, HOP_ALLTOALL, hlo_shape_tuple(m, (uint32_t)g,
		shapes), (uint32_t)g, parts);
	copy_attr(ed, i, a2a, A_REPLICA_GROUPS);
	copy_attr(ed, i, a2a, A_CHANNEL_ID);
	derived(ed, i, a2a, 0);
	for (k = 0; k < g; k++)
		parts[k] = pass_b_gte(ed, a2a, k);
	r = pass_b_op(ed, HOP_CONCAT, shape, (uint32_t)g, parts);
	a = hlo_mk_ints(m, A_DIMENSIONS, &dim, 1);
	hlo_attr_set(m, ed->c, r, &a);
	derived(ed, i, r, 1);
	free(st);
	free(parts);
	free(shapes);
	return r;
}

int
pass_all_to_all_decomposer(HloModule *m, PassCtx *ctx)
{
	return pass_expand(m, ctx, match, expand, NULL);
}
