/* gather_simplifier.c: "gather_simplifier", xla's GatherSimplifier
 * (xla/hlo/transforms/simplifiers/gather_simplifier.cc and
 * gather_scatter_utils.cc, openxla/xla as of March 2025).
 *
 * An OpExpanderPass over the non-fusion computations. Every gather not
 * yet in canonical form (indices of rank 2 with index_vector_dim 1, an
 * identity start_index_map, no collapsed_slice_dims, offset_dims
 * 1..n) becomes one:
 *
 *  - a slice size of 0: a broadcast zero of the gather's shape;
 *  - else the operand is transposed so that the start_index_map dims
 *    come first (no transpose for the identity), the indices get an
 *    explicit index vector dim, moved last (a transpose unless it is
 *    last already), and are flattened to [N, index vector] (reshapes);
 *    the canonical gather [N, permuted slice sizes] is transposed back
 *    into the operand's dim order, reshaped without the collapsed dims,
 *    reshaped to split N into the indices' batch dims (or to drop it for
 *    a single index vector) and transposed to put the offset dims where
 *    the original had them (no transpose for the identity).
 *
 * Not as xla: gathers with operand batching dims are left alone (xla
 * runs its batched-gather normalizer first and this pass assumes there
 * are none); ranks above 32 too. A gather with no offset dims counts
 * as canonical in that respect (xla reads the first and last of an
 * empty list there). Instructions with control dependencies are left
 * alone (pass_expand).
 */
#include <string.h>

#include "gather_util.h"

/* GatherSimplifier::IsSimplifiedGather */
static int
simplified(const GuGather *g)
{
	uint32_t k;

	if (g->irank != 2 || g->ivd != 1 || g->ncol)
		return 0;
	for (k = 0; k < g->nsim; k++)
		if (g->sim[k] != (int64_t)k)
			return 0;
	return g->noff == 0 || (g->off[0] == 1 &&
		g->off[g->noff - 1] == (int64_t)g->noff);
}

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	GuGather g;

	(void)arg;
	if (pass_ins(ed, i)->op != HOP_GATHER || gu_load(ed, i, &g) < 0)
		return 0;
	return !g.nobd && !g.nsibd && !simplified(&g);
}

/* TransformStartIndices: [N, index vector] */
static uint32_t
transform_indices(PassEdit *ed, const GuGather *g)
{
	uint32_t x = g->indices;
	int64_t d[GU_MAXR + 1], perm[GU_MAXR];
	int rank = g->irank, k, n = 0;

	if (g->ivd == rank) {
		memcpy(d, g->idims, rank * sizeof *d);
		d[rank++] = 1;
		x = gu_reshape(ed, x, rank, d);
	} else if (g->ivd < rank - 1) {
		for (k = 0; k < rank; k++)
			if (k != g->ivd)
				perm[n++] = k;
		perm[n] = g->ivd;
		x = gu_maybe_transpose(ed, x, perm);
	}
	if (rank > 2)
		return gu_collapse_first(ed, x, rank - 1);
	if (rank == 1) {
		d[0] = 1;
		d[1] = hlo_dims(ed->m, hlo_sh(ed->m, pass_b_shape(ed, x)))[0];
		return gu_reshape(ed, x, 2, d);
	}
	return x;
}

/* the canonical gather of operand x (dims in perm order) and indices
 * ix: [N, slice sizes permuted] */
static uint32_t
canonical(PassEdit *ed, const GuGather *g, uint32_t x,
	uint32_t ix, const int64_t *perm, int orank)
{
	HloModule *m = ed->m;
	int64_t d[GU_MAXR + 1], ss[GU_MAXR], off[GU_MAXR], sim[GU_MAXR];
	uint32_t ops[2] = {x, ix}, r;
	HloAttr a[6];
	int k, na = 0;

	d[0] = hlo_dims(m, hlo_sh(m, pass_b_shape(ed, ix)))[0];
	for (k = 0; k < orank; k++) {
		ss[k] = g->ss[perm[k]];
		d[k + 1] = ss[k];
		off[k] = k + 1;
	}
	for (k = 0; k < (int)g->nsim; k++)
		sim[k] = k;
	r = pass_b_op(ed, HOP_GATHER, pass_b_array(m, g->otype, orank + 1, d),
		2, ops);
	a[na++] = hlo_mk_ints(m, A_OFFSET_DIMS, off, orank);
	a[na++] = hlo_mk_ints(m, A_COLLAPSED_SLICE_DIMS, NULL, 0);
	a[na++] = hlo_mk_ints(m, A_START_INDEX_MAP, sim, g->nsim);
	a[na++] = hlo_mk_int(A_INDEX_VECTOR_DIM, 1);
	a[na++] = hlo_mk_ints(m, A_SLICE_SIZES, ss, orank);
	if (g->sorted)
		a[na++] = hlo_mk_int(A_INDICES_ARE_SORTED, 1);
	hlo_set_attrs(m, ed->c, r, na, a);
	return r;
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	int64_t perm[GU_MAXR], inv[GU_MAXR], op[GU_MAXR + 1], b[GU_MAXR];
	int64_t col[GU_MAXR], zero = 0;
	uint32_t x, ix, r;
	int orank, k, n = 0, nb = 0, bi = 0, oi;
	GuGather g;

	(void)arg;
	if (gu_load(ed, i, &g) < 0)
		return HLO_NONE;
	if (gu_has(g.ss, g.nss, 0))
		return pass_b_bcast(ed, pass_b_scalar(ed, g.type, 0),
			pass_ins(ed, i)->shape, 0, NULL);
	orank = (int)(g.ncol + g.noff);
	if (orank != g.orank)
		return HLO_NONE;
	for (k = 0; k < (int)g.nsim; k++)
		perm[n++] = g.sim[k];
	for (k = 0; k < orank; k++)
		if (!gu_has(g.sim, g.nsim, k))
			perm[n++] = k;
	for (k = 0; k < orank; k++)
		inv[perm[k]] = k;
	x = gu_maybe_transpose(ed, g.operand, perm);
	ix = transform_indices(ed, &g);
	r = canonical(ed, &g, x, ix, perm, orank);
	op[0] = 0;
	for (k = 0; k < orank; k++)
		op[k + 1] = inv[k] + 1;
	r = gu_maybe_transpose(ed, r, op);
	if (g.ncol) {
		for (k = 0; k < (int)g.ncol; k++)
			col[k] = g.col[k] + 1;
		r = gu_elide(ed, r, col, g.ncol);
	}
	for (k = 0; k < g.irank; k++)
		if (k != g.ivd)
			b[nb++] = g.idims[k];
	if (nb > 1)
		r = gu_expand_first(ed, r, nb, b);
	else if (nb == 0)
		r = gu_elide(ed, r, &zero, 1);
	oi = nb;
	for (k = 0; k < nb + (int)g.noff; k++)
		op[k] = gu_has(g.off, g.noff, k) ? oi++ : bi++;
	return gu_maybe_transpose(ed, r, op);
}

int
pass_gather_simplifier(HloModule *m, PassCtx *ctx)
{
	pass_fresh_names(m);
	return pass_expand(m, ctx, match, expand, NULL);
}
