/* scatter_simplifier.c: "scatter_simplifier", xla's ScatterSimplifier
 * (xla/service/scatter_simplifier.cc and gather_scatter_utils.cc at
 * openxla/xla c4cbd3c, March 2025).
 *
 * Every scatter of a non-fusion computation without control dependencies
 * that is not simple already (IsSimplifiedScatter: operand of rank > 0,
 * index_vector_dim last, at most one scatter dimension in the updates,
 * scatter_dims_to_operand_dims the identity, update window dimensions
 * sorted and not including 0, no inserted window dimensions) is
 * rewritten into a simple one:
 *   - indices (TransformStartIndices): an implicit index vector dimension
 *     made explicit, the index vector dimension transposed last, the
 *     other dimensions collapsed into one (or a leading 1 added) - [M, n];
 *   - updates: scatter dimensions transposed in front of the window
 *     dimensions (no transpose for the identity), collapsed into one (a
 *     leading 1 when there is none), inserted window dimensions added as
 *     1, then transposed like the operand - [M, d_1, ..., d_N];
 *   - operands transposed so that scatter_dims_to_operand_dims becomes
 *     0..n-1 (the mapped dimensions first, the others in order), and the
 *     result transposed back (per output of a variadic scatter);
 *   - the new scatter: update_window_dims={1..N}, inserted_window_dims={},
 *     scatter_dims_to_operand_dims={0..n-1}, index_vector_dim=1, the same
 *     update computation, indices_are_sorted and unique_indices.
 * A scatter into a scalar (operand rank 0) becomes its update computation
 * inlined on (operands, updates).
 *
 * Left alone, where xla's rewrite would not verify: scatters with
 * explicit batching dimensions (XLA:CPU rewrites them first with
 * BatchedGatherScatterNormalizer), and scatters into a scalar whose
 * updates are not scalars.
 */
#include <string.h>

#include "build.h"
#include "scatter_util.h"
#include "wutil.h"

static int
is_simplified(const HloModule *m, uint32_t c, const PassSxScatter *s)
{
	const HloShape *o = hlo_sh(m, m->comps[c].ins[s->ops[0]].shape);
	const HloShape *x = hlo_sh(m, m->comps[c].ins[s->idx].shape);
	const HloShape *u = hlo_sh(m, m->comps[c].ins[s->upd[0]].shape);
	uint32_t k;

	if (o->rank == 0 || s->ivd != x->rank - 1 ||
	    (int)u->rank - (int)s->nuwd > 1 || s->niwd ||
	    hlo_ints_has(s->uwd, s->nuwd, 0))
		return 0;
	for (k = 0; k < s->nsdod; k++)
		if (s->sdod[k] != k)
			return 0;
	for (k = 1; k < s->nuwd; k++)
		if (s->uwd[k] < s->uwd[k - 1])
			return 0;
	return 1;
}

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	const HloModule *m = ed->m;
	PassSxScatter s;
	uint32_t k;

	(void)arg;
	if (m->comps[ed->c].ins[i].op != HOP_SCATTER ||
	    pass_sx_scatter(m, ed->c, i, &s) < 0 || s.nibd ||
	    is_simplified(m, ed->c, &s))
		return 0;
	for (k = 0; k < 2 * s.n + 1; k++) {
		uint32_t x = k < s.n ? s.ops[k] : k == s.n ? s.idx :
			s.upd[k - s.n - 1];
		const HloShape *sh = hlo_sh(m, m->comps[ed->c].ins[x].shape);

		if (sh->type >= TY_TUPLE || sh->rank >= PASS_SX_MAXR ||
		    (s.nuwd + s.niwd == 0 && k > s.n && sh->rank))
			return 0;
	}
	return 1;
}

/* TransformStartIndices */
static uint32_t
start_indices(PassSxB *b, uint32_t idx, int64_t ivd)
{
	int r = pass_sx_rank(b, idx), k, j = 0;
	int64_t perm[PASS_SX_MAXR], at = 0;

	if (ivd == r) {
		at = ivd;
		idx = pass_sx_insert1(b, idx, &at, 1);
		r++;
	} else if (ivd < r - 1) {
		for (k = 0; k < r; k++)
			if (k != ivd)
				perm[j++] = k;
		perm[j] = ivd;
		idx = pass_sx_maybe_transpose(b, idx, perm);
	}
	if (r > 2)
		return pass_sx_collapse(b, idx, r - 1);
	if (r == 1) {
		at = 0;
		return pass_sx_insert1(b, idx, &at, 1);
	}
	return idx;
}

/* FlattenAndTransposeUpdates, then the operand's permutation */
static uint32_t
updates(PassSxB *b, const PassSxScatter *s, uint32_t u, const int64_t *uperm)
{
	int r = pass_sx_rank(b, u), k, nsd = r - (int)s->nuwd;
	int64_t perm[PASS_SX_MAXR], at[PASS_SX_MAXR], zero = 0;

	pass_sx_window_last(s, r, perm);
	u = pass_sx_maybe_transpose(b, u, perm);
	if (nsd > 1)
		u = pass_sx_collapse(b, u, nsd);
	else if (nsd == 0)
		u = pass_sx_insert1(b, u, &zero, 1);
	if (s->niwd) {
		for (k = 0; k < (int)s->niwd; k++)
			at[k] = s->iwd[k] + 1;
		u = pass_sx_insert1(b, u, at, s->niwd);
	}
	return pass_sx_maybe_transpose(b, u, uperm);
}

static uint32_t
simplify(PassEdit *ed, const PassSxScatter *s, uint32_t i)
{
	HloModule *m = ed->m;
	PassSxB b = {m, ed->c, ed};
	int orank = (int)(s->nuwd + s->niwd), k, j = 0, ident = 1;
	int64_t perm[PASS_SX_MAXR], inv[PASS_SX_MAXR], uperm[PASS_SX_MAXR + 1];
	int64_t uwd[PASS_SX_MAXR], sdod[PASS_SX_MAXR];
	uint32_t ops[65], shapes[32], res[32], n = s->n, x, sc;

	for (k = 0; k < (int)s->nsdod; k++)
		perm[j++] = s->sdod[k];
	for (k = 0; k < orank; k++)
		if (!hlo_ints_has(s->sdod, s->nsdod, k))
			perm[j++] = k;
	for (k = 0; k < orank; k++) {
		inv[perm[k]] = k;
		ident &= perm[k] == k;
		uperm[k + 1] = perm[k] + 1;
		uwd[k] = k + 1;
	}
	uperm[0] = 0;
	x = start_indices(&b, s->idx, s->ivd);
	for (k = 0; k < (int)n; k++)
		ops[n + 1 + k] = updates(&b, s, s->upd[k], uperm);
	for (k = 0; k < (int)n; k++) {
		ops[k] = pass_sx_maybe_transpose(&b, s->ops[k], perm);
		shapes[k] = pass_sx_shape(&b, ops[k]);
	}
	ops[n] = x;
	for (k = 0; k < (int)s->nsdod; k++)
		sdod[k] = k;
	sc = pass_sx_op(&b, HOP_SCATTER, n == 1 ? shapes[0] :
		hlo_shape_tuple(m, n, shapes), 2 * n + 1, ops);
	pass_sx_ints(&b, sc, A_UPDATE_WINDOW_DIMS, uwd, orank);
	pass_sx_ints(&b, sc, A_INSERTED_WINDOW_DIMS, NULL, 0);
	pass_sx_ints(&b, sc, A_SCATTER_DIMS_TO_OPERAND_DIMS, sdod, s->nsdod);
	pass_sx_int(&b, sc, A_INDEX_VECTOR_DIM, 1);
	if (s->sorted) {
		HloAttr a = hlo_mk_int(A_INDICES_ARE_SORTED, 1);

		a.kind = K_BOOL;
		hlo_attr_set(m, ed->c, sc, &a);
	}
	if (s->unique) {
		HloAttr a = hlo_mk_int(A_UNIQUE_INDICES, 1);

		a.kind = K_BOOL;
		hlo_attr_set(m, ed->c, sc, &a);
	}
	hlo_set_called(m, ed->c, sc, 1, &s->comp);
	(void)i;
	if (ident)
		return sc;
	if (n == 1)
		return pass_sx_maybe_transpose(&b, sc, inv);
	for (k = 0; k < (int)n; k++)
		res[k] = pass_sx_maybe_transpose(&b, pass_sx_gte(&b, sc, k), inv);
	return pass_sx_tuple(&b, n, res);
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	PassSxScatter s;
	uint32_t k, args[64];

	(void)arg;
	pass_sx_scatter(m, ed->c, i, &s);
	for (k = 0; k < s.n; k++) {
		s.ops[k] = pass_res(ed, s.ops[k]);
		s.upd[k] = pass_res(ed, s.upd[k]);
	}
	s.idx = pass_res(ed, s.idx);
	if (s.nuwd + s.niwd == 0) {
		/* into a scalar: the update computation, inlined */
		for (k = 0; k < s.n; k++) {
			args[k] = s.ops[k];
			args[s.n + k] = s.upd[k];
		}
		return wu_inline(m, ed->c, s.comp, args, 2 * s.n, ed);
	}
	return simplify(ed, &s, i);
}

int
pass_scatter_simplifier(HloModule *m, PassCtx *ctx)
{
	return pass_expand(m, ctx, match, expand, NULL);
}
