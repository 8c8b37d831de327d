/* batched_gather_scatter_normalizer.c: "gather_scatter_normalizer", xla's
 * BatchedGatherScatterNormalizer (xla/service/
 * batched_gather_scatter_normalizer.cc and its _test.cc, openxla/xla as
 * of March 2025, jpli02/xla c4cbd3c; its name() is
 * "gather_scatter_normalizer").
 *
 * An OpExpanderPass over the non-fusion computations. Every gather with
 * operand_batching_dims, and every scatter with input_batching_dims,
 * becomes one without batching dims:
 *
 *  - the indices' element type is promoted when a batching dim's size
 *    (the size itself, not size - 1, as xla's FitsInIntegralType) does
 *    not fit in it: to s32, or s64 past s32 (a convert of the indices);
 *    other integral types are kept;
 *  - with index_vector_dim equal to the indices' rank, the indices are
 *    reshaped to a trailing dim of 1 (default layout, as MakeShape);
 *  - per indices batching dim, in the order of
 *    start_indices_batching_dims (scatter_indices_batching_dims), an
 *    iota of the indices' shape with 1 at index_vector_dim, counting
 *    along that batching dim; the iotas and the indices are
 *    concatenated along index_vector_dim;
 *  - start_index_map (scatter_dims_to_operand_dims) becomes the operand
 *    batching dims followed by the old map; the operand batching dims
 *    join collapsed_slice_dims (inserted_window_dims), sorted; offset
 *    dims, slice sizes, index_vector_dim, the update computation and
 *    unique_indices are kept;
 *  - indices_are_sorted stays only when the indices batching dims and
 *    the new start_index_map are both sorted (ascending).
 * New shapes keep the indices' layout where the rank is the same; a
 * shape without layout gets none. The new gather or scatter carries no
 * metadata, as xla's CreateGather/CreateScatter.
 *
 * Must not fire: gathers and scatters without batching dims. Left alone
 * where xla would fail a CHECK or the text cannot hold the result:
 * batching dim lists of unequal length, ranks above 63, an operand
 * (input) batching dim that is also in start_index_map
 * (scatter_dims_to_operand_dims: the new map would repeat it, which
 * xla's shape inference rejects; the verifier accepts the input, as in
 * xla's GatherOfPadWithBatchDims); instructions
 * with control dependencies (pass_expand; xla's ReplaceInstruction skips
 * them too, but leaves the iotas and concatenate it built, dead).
 * Gathers and scatters inside fusion computations are not visited.
 */
#include <string.h>

#include "gather_util.h"
#include "scatter_util.h"

#define NB_MAXR 64

/* xla's FitsInIntegralType for a non-negative size */
static int
fits(int64_t v, int type)
{
	int bits = hlo_typeinfo[type].bits;

	if (hlo_typeinfo[type].cls == C_SINT)
		return bits >= 64 || v <= ((int64_t)1 << (bits - 1)) - 1;
	return bits >= 64 || v <= (int64_t)(((uint64_t)1 << bits) - 1);
}

/* PromoteTypeForSize */
static int
promote(int type, int64_t size)
{
	int cls = hlo_typeinfo[type].cls;

	if ((cls != C_SINT && cls != C_UINT) || fits(size, type))
		return type;
	return fits(size, TY_S32) ? TY_S32 : TY_S64;
}

/* an array shape of type and dims with the layout of s (same rank), the
 * default layout (other rank) or none (s has none) */
static uint32_t
ishape(HloModule *m, uint32_t s, int type, int rank, const int64_t *dims)
{
	const HloShape *sh = hlo_sh(m, s);
	int64_t m2m[NB_MAXR];
	uint32_t tail = sh->tail;

	if (!(sh->flags & SH_LAYOUT))
		return hlo_shape(m, type, rank, dims, NULL, 0, 0);
	if (sh->rank != rank)
		return hlo_shape_default_layout(m,
			hlo_shape(m, type, rank, dims, NULL, 0, 0));
	memcpy(m2m, hlo_m2m(m, sh), rank * sizeof *m2m);
	return hlo_shape(m, type, rank, dims, m2m, 0, tail);
}

static uint32_t
concat(PassEdit *ed, uint32_t shape, const uint32_t *ops, uint32_t n,
	int64_t dim)
{
	uint32_t i = pass_b_op(ed, HOP_CONCAT, shape, n, ops);
	HloAttr a = hlo_mk_ints(ed->m, A_DIMENSIONS, &dim, 1);

	hlo_set_attrs(ed->m, ed->c, i, 1, &a);
	return i;
}

/* CreateConcatIndices: the iotas of the batching dims, then the
 * indices (converted, reshaped), concatenated along ivd */
static uint32_t
concat_indices(PassEdit *ed, uint32_t idx, int64_t ivd, const int64_t *bd,
	uint32_t nb)
{
	HloModule *m = ed->m;
	uint32_t s = pass_b_shape(ed, idx), is, ops[NB_MAXR + 1], k;
	int rank = hlo_sh(m, s)->rank, type = hlo_sh(m, s)->type;
	int last = ivd == rank;
	int64_t d[NB_MAXR + 1], n;

	memcpy(d, hlo_dims(m, hlo_sh(m, s)), rank * sizeof *d);
	for (k = 0; k < nb; k++)
		type = promote(type, d[bd[k]]);
	if (last)
		d[rank++] = 1;
	n = d[ivd];
	d[ivd] = 1;
	is = ishape(m, s, type, rank, d);
	for (k = 0; k < nb; k++)
		ops[k] = pass_b_iota(ed, is, bd[k]);
	if (type != hlo_sh(m, s)->type)
		idx = pass_b_op(ed, HOP_CONVERT, hlo_shape_with_type(m, s,
			type), 1, &idx);
	if (last)
		idx = pass_b_op(ed, HOP_RESHAPE, is, 1, &idx);
	ops[nb] = idx;
	d[ivd] = nb + n;
	return concat(ed, ishape(m, s, type, rank, d), ops, nb + 1, ivd);
}

/* a ++ b into out; returns the length */
static uint32_t
join(int64_t *out, const int64_t *a, uint32_t na, const int64_t *b,
	uint32_t nb)
{
	memcpy(out, a, na * sizeof *a);
	memcpy(out + na, b, nb * sizeof *b);
	return na + nb;
}

/* a ++ b, sorted (both lists are small) */
static uint32_t
sorted_union(int64_t *out, const int64_t *a, uint32_t na, const int64_t *b,
	uint32_t nb)
{
	uint32_t n = join(out, a, na, b, nb), k, j;
	int64_t t;

	for (k = 1; k < n; k++)
		for (j = k; j > 0 && out[j] < out[j - 1]; j--) {
			t = out[j];
			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return n;
}

static void
set_bool(PassEdit *ed, uint32_t i, int key)
{
	HloAttr a = hlo_mk_int(key, 1);

	hlo_attr_set(ed->m, ed->c, i, &a);
}

/* does a hold one of b's values? */
static int
overlap(const int64_t *a, uint32_t na, const int64_t *b, uint32_t nb)
{
	uint32_t i, j;

	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			if (a[i] == b[j])
				return 1;
	return 0;
}

/* NormalizeBatchGather */
static uint32_t
gather(PassEdit *ed, uint32_t i)
{
	HloModule *m = ed->m;
	int64_t sim[2 * GU_MAXR], col[2 * GU_MAXR];
	uint32_t nsim, ncol, ops[2], r;
	HloAttr a[5];
	GuGather g;

	if (gu_load(ed, i, &g) < 0 || g.nobd != g.nsibd ||
	    overlap(g.obd, g.nobd, g.sim, g.nsim))
		return HLO_NONE;
	nsim = join(sim, g.obd, g.nobd, g.sim, g.nsim);
	ncol = sorted_union(col, g.col, g.ncol, g.obd, g.nobd);
	ops[0] = g.operand;
	ops[1] = concat_indices(ed, g.indices, g.ivd, g.sibd, g.nsibd);
	r = pass_b_op(ed, HOP_GATHER, pass_ins(ed, i)->shape, 2, ops);
	a[0] = hlo_mk_ints(m, A_OFFSET_DIMS, g.off, g.noff);
	a[1] = hlo_mk_ints(m, A_COLLAPSED_SLICE_DIMS, col, ncol);
	a[2] = hlo_mk_ints(m, A_START_INDEX_MAP, sim, nsim);
	a[3] = hlo_mk_int(A_INDEX_VECTOR_DIM, g.ivd);
	a[4] = hlo_mk_ints(m, A_SLICE_SIZES, g.ss, g.nss);
	hlo_set_attrs(m, ed->c, r, 5, a);
	if (g.sorted && hlo_ints_ascending(g.sibd, g.nsibd) &&
	    hlo_ints_ascending(sim, nsim))
		set_bool(ed, r, A_INDICES_ARE_SORTED);
	return r;
}

/* NormalizeBatchScatter */
static uint32_t
scatter(PassEdit *ed, uint32_t i)
{
	HloModule *m = ed->m;
	int64_t sdod[2 * PASS_SX_MAXR], iwd[2 * PASS_SX_MAXR];
	uint32_t nsdod, niwd, ops[65], r, k, n;
	HloAttr a[4];
	PassSxScatter s;

	if (pass_sx_scatter(m, ed->c, i, &s) < 0 ||
	    hlo_sh(m, pass_ins(ed, s.idx)->shape)->rank >= NB_MAXR ||
	    overlap(s.ibd, s.nibd, s.sdod, s.nsdod))
		return HLO_NONE;
	n = s.n;
	nsdod = join(sdod, s.ibd, s.nibd, s.sdod, s.nsdod);
	niwd = sorted_union(iwd, s.iwd, s.niwd, s.ibd, s.nibd);
	for (k = 0; k < n; k++) {
		ops[k] = pass_res(ed, s.ops[k]);
		ops[n + 1 + k] = pass_res(ed, s.upd[k]);
	}
	ops[n] = concat_indices(ed, pass_res(ed, s.idx), s.ivd, s.sibd,
		s.nsibd);
	r = pass_b_op(ed, HOP_SCATTER, pass_ins(ed, i)->shape, 2 * n + 1, ops);
	a[0] = hlo_mk_ints(m, A_UPDATE_WINDOW_DIMS, s.uwd, s.nuwd);
	a[1] = hlo_mk_ints(m, A_INSERTED_WINDOW_DIMS, iwd, niwd);
	a[2] = hlo_mk_ints(m, A_SCATTER_DIMS_TO_OPERAND_DIMS, sdod, nsdod);
	a[3] = hlo_mk_int(A_INDEX_VECTOR_DIM, s.ivd);
	hlo_set_attrs(m, ed->c, r, 4, a);
	if (s.sorted && hlo_ints_ascending(s.sibd, s.nsibd) &&
	    hlo_ints_ascending(sdod, nsdod))
		set_bool(ed, r, A_INDICES_ARE_SORTED);
	if (s.unique)
		set_bool(ed, r, A_UNIQUE_INDICES);
	hlo_set_called(m, ed->c, r, 1, &s.comp);
	return r;
}

/* IsBatchGather / IsBatchScatter */
static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	const HloInstr *in = pass_ins(ed, i);
	uint32_t n = 0;

	(void)arg;
	if (in->op == HOP_GATHER)
		hlo_attr_list(ed->m, in, A_OPERAND_BATCHING_DIMS, &n);
	else if (in->op == HOP_SCATTER)
		hlo_attr_list(ed->m, in, A_INPUT_BATCHING_DIMS, &n);
	return n > 0;
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	(void)arg;
	return pass_ins(ed, i)->op == HOP_GATHER ? gather(ed, i) :
		scatter(ed, i);
}

int
pass_gather_scatter_normalizer(HloModule *m, PassCtx *ctx)
{
	pass_fresh_names(m);
	return pass_expand(m, ctx, match, expand, NULL);
}
