/* gather_expander.c: "gather_expander" and "gather_expander:simple",
 * xla's GatherExpander in its modes kEliminateAllGathers and
 * kEliminateSimpleGathers (xla/service/gather_expander.cc and
 * gather_scatter_utils.cc, openxla/xla as of March 2025, with operand
 * and start-indices batching dimensions).
 *
 * An OpExpanderPass over the non-fusion computations. A gather whose
 * result has elements is rewritten (kEliminateAllGathers: every one;
 * kEliminateSimpleGathers: the ones whose loop would run once, the
 * product of the indices dims but index_vector_dim being 1, and the
 * broadcasts):
 *
 *  - slice_sizes equal to the operand's dims (the gather is a broadcast):
 *    a reshape of the operand without its collapsed and batching dims,
 *    broadcast into the result along offset_dims (a zero-element operand:
 *    a broadcast zero);
 *  - else WhileUtil::MakeCountedLoop: the indices transposed so that the
 *    index vector dim is last and reshaped to [trip count, index vector]
 *    (or [1] / [trip count] for scalar indices), an s32 counter from 0 to
 *    the trip count over the state (counter, operand, indices, an
 *    accumulator of zeros [trip count, offset slice dims]); the body
 *    dynamic-slices index vector i out of the indices, spreads it over
 *    the operand's dims (zeros for the dims start_index_map leaves out,
 *    i's digit for a batching dim), dynamic-slices the operand there,
 *    drops the collapsed and batching dims and dynamic-update-slices the
 *    slice into row i of the accumulator; after the loop the accumulator
 *    is reshaped into the indices' batch dims and transposed into the
 *    result's order. Every reshape and transpose xla makes is made, even
 *    an identity, and so are the get-tuple-elements of the loop's
 *    operand and indices that nothing reads (dce removes them).
 *
 * Not as xla: a gather of more than 2^31 - 1 index vectors is left alone
 * (xla fails the compilation); so is one with batching dims whose
 * indices are not s32 (xla's concatenate of the s32 batch digits with
 * the index vector would fail shape inference), and ranks above 32.
 * Instructions with control dependencies are left alone (pass_expand).
 */
#include <stdint.h>
#include <string.h>

#include "gather_util.h"

enum { GE_ALL, GE_SIMPLE };

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	int mode = *(const int *)arg;
	int64_t trip;
	GuGather g;

	if (pass_ins(ed, i)->op != HOP_GATHER || gu_load(ed, i, &g) < 0)
		return 0;
	if (hlo_shape_elems(ed->m, pass_ins(ed, i)->shape) == 0)
		return 0;
	trip = gu_trip_count(&g);
	if (gu_is_broadcast(&g))
		return 1;
	if (trip < 0 || trip > INT32_MAX)
		return 0;
	if (g.nsibd && g.itype != TY_S32)
		return 0;
	return mode == GE_ALL || trip == 1;
}

/* the broadcast form: slice_sizes cover the whole operand */
static uint32_t
expand_broadcast(PassEdit *ed, uint32_t i, const GuGather *g)
{
	int64_t drop[2 * GU_MAXR];
	uint32_t r, b;

	if (hlo_shape_elems(ed->m, pass_ins(ed, g->operand)->shape) == 0)
		return pass_b_like(ed, i, 0);
	memcpy(drop, g->col, g->ncol * sizeof *drop);
	memcpy(drop + g->ncol, g->obd, g->nobd * sizeof *drop);
	r = gu_elide(ed, g->operand, drop, g->ncol + g->nobd);
	gu_copy_meta(ed, r, i, 1);
	b = pass_b_bcast(ed, r, pass_ins(ed, i)->shape, g->noff, g->off);
	gu_copy_meta(ed, b, i, 1);
	return b;
}

/* CanonicalizeGatherIndices: [trip, index vector] or [trip] */
static uint32_t
canon_indices(PassEdit *ed, const GuGather *g)
{
	uint32_t x = g->indices;
	int64_t perm[GU_MAXR];
	int k, n = 0, scalar = g->ivd == g->irank, rank = g->irank;

	if (!scalar && g->ivd != rank - 1) {
		for (k = 0; k < rank; k++)
			if (k != g->ivd)
				perm[n++] = k;
		perm[n] = g->ivd;
		x = gu_transpose(ed, x, perm);
	}
	if (rank == (scalar ? 0 : 1))
		return gu_prepend1(ed, x);
	return gu_collapse_first(ed, x, rank - (scalar ? 0 : 1));
}

static uint32_t
gte(PassEdit *ed, uint32_t t, int64_t k)
{
	HloModule *m = ed->m;
	const HloShape *sh = hlo_sh(m, pass_b_shape(ed, t));
	uint32_t i = pass_b_op(ed, HOP_GTE, hlo_tuple_elems(m, sh)[k], 1, &t);
	HloAttr a = hlo_mk_int(A_INDEX, k);

	hlo_set_attrs(m, ed->c, i, 1, &a);
	return i;
}

/* a new computation NAME with one parameter of shape ps, edited by eb */
static uint32_t
new_comp(PassEdit *ed, PassEdit *eb, const char *name, uint32_t ps,
	uint32_t *param)
{
	HloModule *m = ed->m;
	uint32_t c = hlo_comp_add(m, hlo_fresh_name(m, name));

	m->comps[c].thread = m->comps[ed->c].thread;
	/* as pass_edit_init, without its scan of the module for bitcasts
	 * (once per loop would make the pass quadratic) */
	memset(eb, 0, sizeof *eb);
	eb->m = m;
	eb->ctx = ed->ctx;
	eb->lay = ed->lay;
	pass_edit_begin(eb, c);
	*param = pass_b_op(eb, HOP_PARAMETER, ps, 0, NULL);
	m->comps[c].ins[*param].num = 0;
	m->comps[c].ins[*param].name = hlo_fresh_name(m, "param");
	return c;
}

static int
end_comp(PassEdit *eb, uint32_t root)
{
	int r;

	eb->m->comps[eb->c].root = root;
	r = pass_edit_end(eb);
	pass_edit_free(eb);
	return r;
}

/* MakeCountedLoopConditionComputation: state[0] < trip */
static uint32_t
make_cond(PassEdit *ed, uint32_t ps, int64_t trip)
{
	PassEdit eb;
	uint32_t p, c, k, iv;

	c = new_comp(ed, &eb, "while_cond", ps, &p);
	k = pass_b_scalar(&eb, TY_S32, (double)trip);
	iv = gte(&eb, p, 0);
	if (end_comp(&eb, pass_b_compare(&eb, iv, k, "LT")) < 0)
		return HLO_NONE;
	return c;
}

/* a vector's elements as scalars, as MakeDynamicSliceHlo and
 * MakeDynamicUpdateSliceHlo split it: into ops[first ..] */
static void
split_vector(PassEdit *ed, uint32_t v, int64_t n, uint32_t *ops)
{
	int64_t k, lo, hi, one = 1;

	for (k = 0; k < n; k++) {
		lo = k;
		hi = k + 1;
		ops[k] = pass_b_reshape(ed, pass_b_slice(ed, v, &lo, &hi,
			&one), 0, NULL);
	}
}

/* MakeDynamicSliceHlo(x, vector v, sizes) */
static uint32_t
dynslice(PassEdit *ed, uint32_t x, uint32_t v, int n, const int64_t *sizes)
{
	uint32_t ops[GU_MAXR + 1], i;
	HloAttr a;

	ops[0] = x;
	split_vector(ed, v, n, ops + 1);
	i = pass_b_op(ed, HOP_DYNSLICE, pass_b_array(ed->m, pass_b_type(ed, x),
		n, sizes), n + 1, ops);
	a = hlo_mk_ints(ed->m, A_DYN_SLICE_SIZES, sizes, n);
	hlo_set_attrs(ed->m, ed->c, i, 1, &a);
	return i;
}

/* PadVectorWithZeros(v, 0, after) */
static uint32_t
pad_after(PassEdit *ed, uint32_t v, int64_t after)
{
	HloModule *m = ed->m;
	int64_t cfg[3] = {0, after, 0}, d;
	uint32_t ops[2], i;
	HloAttr a;

	ops[0] = v;
	ops[1] = pass_b_scalar(ed, pass_b_type(ed, v), 0);
	d = hlo_dims(m, hlo_sh(m, pass_b_shape(ed, v)))[0] + after;
	i = pass_b_op(ed, HOP_PAD, pass_b_array(m, pass_b_type(ed, v), 1, &d),
		2, ops);
	a = hlo_mk_ints(m, A_PADDING, cfg, 3);
	a.kind = K_PAD;
	hlo_set_attrs(m, ed->c, i, 1, &a);
	return i;
}

/* GenerateExplicitBatchDimIndices: the digit of the counter iv for each
 * start_indices_batching_dims entry, into bd */
static void
batch_digits(PassEdit *ed, const GuGather *g, uint32_t iv, uint32_t *bd)
{
	int64_t nb = g->ivd == g->irank ? g->irank : g->irank - 1, k;
	uint32_t div = iv, dvs, pos;
	int i;

	for (i = g->irank - 1; i >= 0; i--) {
		if (i == g->ivd)
			continue;
		for (pos = 0; pos < g->nsibd && g->sibd[pos] != i; pos++)
			;
		if (--nb == 0) {
			if (pos < g->nsibd)
				bd[pos] = div;
			break;
		}
		k = g->idims[i];
		dvs = pass_b_scalar(ed, TY_S32, (double)k);
		if (pos < g->nsibd)
			bd[pos] = pass_b_binary(ed, HOP_REMAINDER, div, dvs);
		div = pass_b_binary(ed, HOP_DIVIDE, div, dvs);
	}
}

/* ExpandIndexVectorIntoOperandSpace: the operand start vector */
static uint32_t
operand_start(PassEdit *ed, const GuGather *g, uint32_t index_vector,
	uint32_t iv)
{
	uint32_t comp[GU_MAXR], bd[GU_MAXR], zero, pos, b;
	int64_t lo, hi, one = 1, d = 1, n = 0;
	HloAttr a;
	int i;

	zero = gu_const_zeros(ed, g->itype, 1);
	if (g->nsibd)
		batch_digits(ed, g, iv, bd);
	for (i = 0; i < g->orank; i++) {
		for (pos = 0; pos < g->nsim && g->sim[pos] != i; pos++)
			;
		if (pos < g->nsim) {
			lo = pos;
			hi = pos + 1;
			comp[i] = pass_b_slice(ed, index_vector, &lo, &hi, &one);
			continue;
		}
		for (pos = 0; pos < g->nobd && g->obd[pos] != i; pos++)
			;
		if (pos < g->nobd) {
			b = bd[pos];
			comp[i] = pass_b_bcast(ed, b, pass_b_array(ed->m,
				pass_b_type(ed, b), 1, &d), 0, NULL);
		} else {
			comp[i] = zero;
		}
	}
	for (i = 0; i < g->orank; i++)
		n += hlo_dims(ed->m, hlo_sh(ed->m, pass_b_shape(ed,
			comp[i])))[0];
	b = pass_b_op(ed, HOP_CONCAT, pass_b_array(ed->m, g->itype, 1, &n),
		g->orank, comp);
	d = 0;
	a = hlo_mk_ints(ed->m, A_DIMENSIONS, &d, 1);
	hlo_set_attrs(ed->m, ed->c, b, 1, &a);
	return b;
}

/* GatherLoopBody inside MakeCountedLoopBodyComputation */
static uint32_t
make_body(PassEdit *ed, const GuGather *g, uint32_t ps)
{
	PassEdit eb;
	int64_t one = 1, sz[2], drop[2 * GU_MAXR], n;
	uint32_t p, c, k1, iv, next, op, idx, acc, ivv, iv2, vec, st, sl;
	uint32_t ops[GU_MAXR + 3], t;
	int ir, sr;

	c = new_comp(ed, &eb, "while_body", ps, &p);
	k1 = pass_b_scalar(&eb, TY_S32, 1);
	iv = gte(&eb, p, 0);
	next = pass_b_binary(&eb, HOP_ADD, iv, k1);
	op = gte(&eb, p, 1);
	idx = gte(&eb, p, 2);
	acc = gte(&eb, p, 3);
	ivv = pass_b_bcast(&eb, iv, pass_b_array(ed->m, TY_S32, 1, &one), 0,
		NULL);
	ir = hlo_sh(ed->m, pass_b_shape(&eb, idx))->rank;
	if (ir == 1) {
		vec = dynslice(&eb, idx, ivv, 1, &one);
	} else {
		sz[0] = 1;
		sz[1] = hlo_dims(ed->m, hlo_sh(ed->m, pass_b_shape(&eb,
			idx)))[1];
		iv2 = dynslice(&eb, idx, pad_after(&eb, ivv, 1), 2, sz);
		n = 0;
		vec = gu_elide(&eb, iv2, &n, 1);
	}
	st = operand_start(&eb, g, vec, iv);
	sl = dynslice(&eb, op, st, g->orank, g->ss);
	memcpy(drop, g->col, g->ncol * sizeof *drop);
	memcpy(drop + g->ncol, g->obd, g->nobd * sizeof *drop);
	sl = gu_elide(&eb, sl, drop, g->ncol + g->nobd);
	sr = hlo_sh(ed->m, pass_b_shape(&eb, sl))->rank;
	ops[0] = acc;
	ops[1] = gu_prepend1(&eb, sl);
	split_vector(&eb, pad_after(&eb, ivv, sr), sr + 1, ops + 2);
	ops[0] = pass_b_op(&eb, HOP_DYNUPDSLICE, pass_b_shape(&eb, acc),
		sr + 3, ops);
	ops[3] = ops[0];
	ops[0] = next;
	ops[1] = op;
	ops[2] = idx;
	t = pass_b_op(&eb, HOP_TUPLE, ps, 4, ops);
	if (end_comp(&eb, t) < 0)
		return HLO_NONE;
	return c;
}

/* the accumulator: its batch dims split out, then transposed into the
 * result's order (AdjustBatchDimsInAccumulator,
 * PermuteBatchAndOffsetDims) */
static uint32_t
finish(PassEdit *ed, const GuGather *g, uint32_t acc)
{
	int64_t b[GU_MAXR], perm[GU_MAXR], zero = 0, nb = 0, bi = 0, oi;
	int k;

	for (k = 0; k < g->irank; k++)
		if (k != g->ivd)
			b[nb++] = g->idims[k];
	if (nb == 0)
		acc = gu_elide(ed, acc, &zero, 1);
	else
		acc = gu_expand_first(ed, acc, nb, b);
	oi = g->rank - g->noff;
	for (k = 0; k < g->rank; k++)
		perm[k] = gu_has(g->off, g->noff, k) ? oi++ : bi++;
	return gu_transpose(ed, acc, perm);
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	int64_t trip, ad[GU_MAXR + 1];
	uint32_t canon, init, el[4], ps, cond, body, w, acc, cl[2];
	GuGather g;
	int k, na = 0;

	(void)arg;
	if (gu_load(ed, i, &g) < 0)
		return HLO_NONE;
	if (gu_is_broadcast(&g))
		return expand_broadcast(ed, i, &g);
	trip = gu_trip_count(&g);
	canon = canon_indices(ed, &g);
	ad[na++] = trip;
	for (k = 0; k < g.orank; k++)
		if (!gu_has(g.col, g.ncol, k) && !gu_has(g.obd, g.nobd, k))
			ad[na++] = g.ss[k];
	init = pass_b_bcast(ed, pass_b_scalar(ed, g.type, 0),
		pass_b_array(m, g.type, na, ad), 0, NULL);
	el[0] = hlo_shape_scalar(m, TY_S32);
	el[1] = pass_b_shape(ed, g.operand);
	el[2] = pass_b_shape(ed, canon);
	el[3] = pass_b_shape(ed, init);
	ps = hlo_shape_tuple(m, 4, el);
	cond = make_cond(ed, ps, trip);
	body = make_body(ed, &g, ps);
	if (cond == HLO_NONE || body == HLO_NONE)
		return HLO_NONE;
	el[0] = pass_b_scalar(ed, TY_S32, 0);
	el[1] = g.operand;
	el[2] = canon;
	el[3] = init;
	w = pass_b_op(ed, HOP_TUPLE, ps, 4, el);
	w = pass_b_op(ed, HOP_WHILE, ps, 1, &w);
	cl[0] = body;
	cl[1] = cond;
	hlo_set_called(m, ed->c, w, 2, cl);
	gu_copy_meta(ed, w, i, 0);
	gte(ed, w, 1);
	gte(ed, w, 2);
	acc = gte(ed, w, 3);
	return finish(ed, &g, acc);
}

/* ctx->opt.gather_simple: kEliminateSimpleGathers (variants.c) */
int
pass_gather_expander(HloModule *m, PassCtx *ctx)
{
	int mode = ctx->opt.gather_simple ? GE_SIMPLE : GE_ALL;

	pass_fresh_names(m);
	return pass_expand(m, ctx, match, expand, &mode);
}
