/* scatter_expander.c: "scatter_expander", "scatter_expander:simple" and
 * "scatter_expander:indeterministic", xla's
 * ScatterExpander(kEliminateAllScatters), (kEliminateSimpleScatters) and
 * (kEliminateIndeterministicScatters)
 * (xla/service/scatter_expander.cc, scatter_utils.cc and
 * gather_scatter_utils.cc at openxla/xla c4cbd3c, March 2025).
 *
 * Every scatter of a non-fusion computation (simple: only one whose
 * indices name a single window, ScatterIndicesCount == 1;
 * indeterministic: only one whose result may depend on the order of its
 * updates: not unique_indices, more than one index, and a combiner that
 * is not a lone min/max or integer add/multiply/or/xor of its parameters,
 * IsScatterDeterministic) without control dependencies becomes a counted
 * while loop:
 *   - updates of zero elements: the operands (a tuple of them) instead;
 *   - the indices are canonicalized to [N] (scalar indices) or [N, K]:
 *     the index vector dimension transposed last, the others collapsed
 *     into one (a leading 1 when there are none); each update is
 *     transposed scatter dimensions first (always a transpose, identity
 *     or not) and its scatter dimensions collapsed into one (a leading 1
 *     when there are none);
 *   - WhileUtil::MakeCountedLoop: state (s32 counter, operands...,
 *     indices, updates...), condition counter < N, body counter + 1;
 *   - the body picks index vector `counter` (dynamic-slice), spreads it
 *     into operand space (scatter_dims_to_operand_dims, zeros elsewhere,
 *     batching dimensions from the counter by division and remainder),
 *     slices update window `counter`, reshapes it to the operand's rank
 *     (inserted and batching dimensions as 1), slices the operand window,
 *     combines the two with a map of the update computation (for a
 *     variadic scatter one computation per output: "<name>.dup.<i>", the
 *     original inlined, get-tuple-element i), keeps the old window where
 *     the index is out of bounds (0 <= index <= dim - window, reduced
 *     with and) and writes the window back with dynamic-update-slice.
 * Updates are applied in index order, one window after the other, as the
 * evaluator defines scatter with repeated indices.
 *
 * Left alone (xla fails the pass there): more than 2^31-1 indices; the
 * loop counter is s32, and explicit batching dimensions with indices of
 * another type get a convert xla does not write (xla's concatenate of
 * s32 and the index type would not verify).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "scatter_util.h"
#include "wutil.h"

typedef struct {
	PassSxScatter s;
	uint32_t c;		/* the scatter's computation */
	uint32_t ishape;	/* the original indices' shape */
	int orank;		/* operand rank */
} Scat;

/* CanonicalizeScatterIndices */
static uint32_t
canon_indices(PassSxB *b, uint32_t idx, int64_t ivd)
{
	int r = pass_sx_rank(b, idx), rr = r, k, j = 0;
	int64_t perm[PASS_SX_MAXR], d[PASS_SX_MAXR];
	uint32_t t = idx;
	int nidx;

	if (ivd < r - 1) {
		for (k = 0; k < r; k++)
			if (k != ivd)
				perm[j++] = k;
		perm[j] = ivd;
		t = pass_sx_transpose(b, idx, perm);
	}
	if (r - 1 == ivd && pass_sx_dims(b, idx)[ivd] == 1) {
		/* xla reshapes the indices here and then uses only the
		 * rank of the result: the reshape stays, unused */
		memcpy(d, pass_sx_dims(b, idx), (r - 1) * sizeof *d);
		pass_sx_reshape(b, idx, r - 1, d);
		rr = r - 1;
	}
	nidx = ivd == rr ? 0 : 1;
	if (pass_sx_rank(b, t) == nidx)
		return pass_sx_prepend1(b, t);
	return pass_sx_collapse(b, t, pass_sx_rank(b, t) - nidx);
}

/* PermuteScatterAndWindowDims, then AdjustScatterDims */
static uint32_t
canon_update(PassSxB *b, const Scat *sc, uint32_t u)
{
	const PassSxScatter *s = &sc->s;
	int ir, nsc;
	int64_t perm[PASS_SX_MAXR];
	uint32_t t;

	pass_sx_window_last(s, pass_sx_rank(b, u), perm);
	t = pass_sx_transpose(b, u, perm);
	ir = hlo_sh(b->m, sc->ishape)->rank;
	nsc = ir - (s->ivd < ir ? 1 : 0);
	if (nsc == 0)
		return pass_sx_prepend1(b, t);
	return pass_sx_collapse(b, t, nsc);
}

/* GenerateExplicitBatchDimIndices: out[k] pairs with sibd[k] */
static void
batch_indices(PassSxB *b, const Scat *sc, uint32_t iv, uint32_t *out)
{
	const PassSxScatter *s = &sc->s;
	const HloShape *sh = hlo_sh(b->m, sc->ishape);
	int rank = sh->rank, i, nb = rank == s->ivd ? rank : rank - 1;
	uint32_t div = iv, dv, k;
	int64_t dim;

	for (i = rank - 1; i >= 0; i--) {
		if (i == s->ivd)
			continue;
		for (k = 0; k < s->nsibd && s->sibd[k] != i; k++)
			;
		if (--nb == 0) {
			if (k < s->nsibd)
				out[k] = div;
			break;
		}
		dim = hlo_dims(b->m, hlo_sh(b->m, sc->ishape))[i];
		dv = pass_sx_const(b, TY_S32, 0, &dim, 1);
		if (k < s->nsibd)
			out[k] = pass_sx_binary(b, HOP_REMAINDER, div, dv);
		div = pass_sx_binary(b, HOP_DIVIDE, div, dv);
	}
}

/* ExpandIndexVectorIntoOperandSpace */
static uint32_t
operand_start(PassSxB *b, const Scat *sc, uint32_t vec, uint32_t iv)
{
	const PassSxScatter *s = &sc->s;
	int type = pass_sx_type(b, vec), i;
	int64_t zero = 0, one = 1;
	uint32_t z, parts[PASS_SX_MAXR], bat[PASS_SX_MAXR], k, seen = 0, x;

	if (sc->orank == 0)
		return pass_sx_const(b, type, 1, &zero, 0);
	z = pass_sx_const(b, type, 1, &zero, 1);
	if (s->nsibd)
		batch_indices(b, sc, iv, bat);
	for (i = 0; i < sc->orank; i++) {
		for (k = 0; k < s->nsdod && s->sdod[k] != i; k++)
			;
		if (k < s->nsdod) {
			parts[i] = pass_sx_slice1(b, vec, k, k + 1);
		} else if (hlo_ints_has(s->ibd, s->nibd, i)) {
			x = bat[seen++];
			if (pass_sx_type(b, x) != type)
				x = pass_sx_op(b, HOP_CONVERT,
					hlo_shape_scalar(b->m, type), 1, &x);
			parts[i] = pass_sx_bcast(b, x, 1, &one, NULL, 0);
		} else {
			parts[i] = z;
		}
	}
	return pass_sx_concat(b, parts, sc->orank, 0);
}

/* CheckIndexValidity: a pred of the window's shape */
static uint32_t
index_valid(PassSxB *b, uint32_t start, const int64_t *odims,
	const int64_t *wdims, int rank)
{
	int type = pass_sx_type(b, start), k;
	int64_t zero = 0, one = 1, n = rank, max[PASS_SX_MAXR], red = 0;
	uint32_t z, lo, mx, hi, v, init, o[2], r, comp;
	char name[300];

	z = pass_sx_const(b, type, 0, &zero, 1);
	z = pass_sx_bcast(b, z, 1, &n, NULL, 0);
	lo = pass_sx_compare(b, z, start, "LE");
	for (k = 0; k < rank; k++)
		max[k] = odims[k] - wdims[k];
	mx = pass_sx_const(b, type, 1, max, rank);
	hi = pass_sx_compare(b, mx, start, "GE");
	v = pass_sx_binary(b, HOP_AND, lo, hi);
	init = pass_sx_const(b, TY_PRED, 0, &one, 1);
	snprintf(name, sizeof name, "%.200s.reduce_sub_computation",
		hlo_cstr(b->m, b->m->comps[b->c].ins[v].name));
	comp = pass_sx_binary_comp(b->m, HOP_AND, TY_PRED, name);
	o[0] = v;
	o[1] = init;
	r = pass_sx_op(b, HOP_REDUCE, hlo_shape_scalar(b->m, TY_PRED), 2, o);
	pass_sx_ints(b, r, A_DIMENSIONS, &red, 1);
	hlo_set_called(b->m, b->c, r, 1, &comp);
	return pass_sx_bcast(b, r, rank, wdims, NULL, 0);
}

/* CallAndGetOutput: the update computation of output i */
static uint32_t
output_comp(HloModule *m, uint32_t comp, uint32_t i)
{
	uint32_t root = m->comps[comp].root, nc, np, k, *args, r;
	char name[300];
	PassSxB b;

	if (hlo_sh(m, m->comps[comp].ins[root].shape)->type != TY_TUPLE)
		return comp;
	snprintf(name, sizeof name, "%.200s.dup.%u",
		hlo_cstr(m, m->comps[comp].name), i);
	nc = pass_sx_comp(m, name);
	np = (uint32_t)hlo_param_count(m, comp);
	args = xreallocarray(NULL, np + 1, sizeof *args);
	for (k = 0; k < np; k++) {
		uint32_t p = hlo_param(m, comp, k);

		args[k] = pass_sx_param(m, nc, k, m->comps[comp].ins[p].shape,
			hlo_cstr(m, m->comps[comp].ins[p].name));
	}
	r = wu_inline(m, nc, comp, args, np, NULL);
	free(args);
	b.m = m;
	b.c = nc;
	b.ed = NULL;
	m->comps[nc].root = pass_sx_gte(&b, r, i);
	return nc;
}

/* ScatterLoopBody: the next state of the loop (s->n operands, the
 * indices, s->n updates) */
static void
loop_body(PassSxB *b, const Scat *sc, uint32_t iv, const uint32_t *st,
	uint32_t *next)
{
	const PassSxScatter *s = &sc->s;
	HloModule *m = b->m;
	uint32_t n = s->n, idx = st[n], ivv, vec, start, into, k, j;
	uint32_t mapops[64], valid, comp, mp, root;
	int64_t one = 1, bounds[PASS_SX_MAXR], deg[2 * PASS_SX_MAXR];
	int64_t w[PASS_SX_MAXR], odims[PASS_SX_MAXR], mdims[PASS_SX_MAXR];
	int ur, ndeg = 0, d, wr = 0;

	ivv = pass_sx_bcast(b, iv, 1, &one, NULL, 0);
	if (pass_sx_rank(b, idx) == 1) {
		vec = pass_sx_ds(b, idx, ivv, &one);
	} else {
		int64_t sz[2] = {1, pass_sx_dims(b, idx)[1]};

		into = pass_sx_pad_vec(b, ivv, 0, 1);
		vec = pass_sx_elide0(b, pass_sx_ds(b, idx, into, sz));
	}
	start = operand_start(b, sc, vec, iv);
	ur = pass_sx_rank(b, st[n + 1]);
	into = pass_sx_pad_vec(b, ivv, 0, ur - 1);
	memcpy(bounds, pass_sx_dims(b, st[n + 1]), ur * sizeof *bounds);
	bounds[0] = 1;
	for (d = 0; d < sc->orank; d++)
		if (hlo_ints_has(s->iwd, s->niwd, d) ||
		    hlo_ints_has(s->ibd, s->nibd, d))
			deg[ndeg++] = d;
	for (k = 0; k < n; k++) {
		uint32_t us = pass_sx_ds(b, st[n + 1 + k], into, bounds);

		us = pass_sx_insert1(b, pass_sx_elide0(b, us), deg, ndeg);
		mapops[n + k] = us;
		if (k == 0) {
			wr = pass_sx_rank(b, us);
			memcpy(w, pass_sx_dims(b, us), wr * sizeof *w);
		}
		mapops[k] = pass_sx_ds(b, st[k], start, w);
	}
	memcpy(odims, pass_sx_dims(b, st[0]), wr * sizeof *odims);
	valid = index_valid(b, start, odims, w, wr);
	for (k = 0; k < n; k++) {
		comp = output_comp(m, s->comp, k);
		root = m->comps[comp].root;
		mp = pass_sx_op(b, HOP_MAP, hlo_shape(m, hlo_sh(m,
			m->comps[comp].ins[root].shape)->type, wr, w, NULL, 0, 0),
			2 * n, mapops);
		for (d = 0; d < wr; d++)
			mdims[d] = d;
		pass_sx_ints(b, mp, A_DIMENSIONS, mdims, wr);
		hlo_set_called(m, b->c, mp, 1, &comp);
		mp = pass_sx_select(b, valid, mp, mapops[k]);
		next[k] = pass_sx_dus(b, st[k], mp, start);
	}
	for (j = n; j < 2 * n + 1; j++)
		next[j] = st[j];
}

/* WhileUtil::MakeCountedLoop around loop_body; returns the while */
static uint32_t
counted_loop(PassEdit *ed, const Scat *sc, uint32_t scatter, int64_t trip,
	uint32_t ninit, const uint32_t *init)
{
	HloModule *m = ed->m;
	uint32_t shapes[66], st[66], next[66], ls, cond, body, p, x, k, w;
	uint32_t called[2];
	PassSxB cb, bb, eb = {m, ed->c, ed};
	int64_t zero = 0, one = 1;
	const HloAttr *md;

	shapes[0] = hlo_shape_scalar(m, TY_S32);
	for (k = 0; k < ninit; k++)
		shapes[k + 1] = pass_sx_shape(&eb, init[k]);
	ls = hlo_shape_tuple(m, ninit + 1, shapes);

	cond = pass_sx_comp(m, "while_cond");
	cb.m = m;
	cb.c = cond;
	cb.ed = NULL;
	x = pass_sx_const(&cb, TY_S32, 0, &trip, 1);
	p = pass_sx_param(m, cond, 0, ls, "param_0");
	m->comps[cond].root = pass_sx_compare(&cb, pass_sx_gte(&cb, p, 0), x,
		"LT");

	body = pass_sx_comp(m, "while_body");
	bb.m = m;
	bb.c = body;
	bb.ed = NULL;
	x = pass_sx_const(&bb, TY_S32, 0, &one, 1);
	p = pass_sx_param(m, body, 0, ls, "param_0");
	st[0] = pass_sx_gte(&bb, p, 0);
	next[0] = pass_sx_binary(&bb, HOP_ADD, st[0], x);
	for (k = 0; k < ninit; k++)
		st[k + 1] = pass_sx_gte(&bb, p, k + 1);
	loop_body(&bb, sc, st[0], st + 1, next + 1);
	m->comps[body].root = pass_sx_tuple(&bb, ninit + 1, next);

	st[0] = pass_sx_const(&eb, TY_S32, 0, &zero, 1);
	memcpy(st + 1, init, ninit * sizeof *init);
	x = pass_sx_tuple(&eb, ninit + 1, st);
	w = pass_sx_op(&eb, HOP_WHILE, ls, 1, &x);
	called[0] = body;
	called[1] = cond;
	hlo_set_called(m, ed->c, w, 2, called);
	md = hlo_attr(m, &m->comps[ed->c].ins[scatter], A_METADATA);
	if (md) {
		HloAttr a = *md;

		hlo_attr_set(m, ed->c, w, &a);
	}
	return w;
}

static int
ranks_ok(const HloModule *m, uint32_t c, const PassSxScatter *s)
{
	uint32_t k, x[3] = {s->ops[0], s->idx, s->upd[0]};

	for (k = 0; k < 3; k++)
		if (hlo_sh(m, m->comps[c].ins[x[k]].shape)->rank >=
		    PASS_SX_MAXR || hlo_sh(m, m->comps[c].ins[x[k]].shape)->type
		    >= TY_TUPLE)
			return 0;
	return 1;
}

/* IsScatterCombinerAssociative: a parameter-parameter min or max, or an
 * integer add, multiply, or, xor */
static int
associative(const HloModule *m, uint32_t comp)
{
	const HloComp *cp = &m->comps[comp];
	const HloInstr *r;
	uint32_t i, n = 0;
	int cls;

	for (i = 0; i < cp->nins; i++)
		n += !(cp->ins[i].flags & HI_DEAD);
	if (n != 3 || cp->root >= cp->nins)
		return 0;
	r = &cp->ins[cp->root];
	if (r->op == HOP_MIN || r->op == HOP_MAX)
		return 1;
	if (r->op != HOP_ADD && r->op != HOP_MUL && r->op != HOP_OR &&
	    r->op != HOP_XOR)
		return 0;
	cls = hlo_typeinfo[hlo_sh(m, r->shape)->type].cls;
	return hlo_sh(m, r->shape)->type < TY_TUPLE &&
		(cls == C_SINT || cls == C_UINT);
}

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	const int *mode = arg;
	PassSxScatter s;
	int64_t cnt;

	if (ed->m->comps[ed->c].ins[i].op != HOP_SCATTER ||
	    pass_sx_scatter(ed->m, ed->c, i, &s) < 0 ||
	    !ranks_ok(ed->m, ed->c, &s) ||
	    (cnt = pass_sx_indices_count(ed->m, ed->c, &s)) > INT32_MAX)
		return 0;
	if (*mode == 1)
		return cnt == 1;
	if (*mode == 2)	/* !IsScatterDeterministic */
		return !s.unique && !associative(ed->m, s.comp) && cnt != 1;
	return 1;
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	PassSxB b = {m, ed->c, ed};
	Scat sc;
	uint32_t k, init[65], w, res[32], n;
	int64_t trip;

	(void)arg;
	pass_sx_scatter(m, ed->c, i, &sc.s);
	n = sc.s.n;
	for (k = 0; k < n; k++) {
		sc.s.ops[k] = pass_res(ed, sc.s.ops[k]);
		sc.s.upd[k] = pass_res(ed, sc.s.upd[k]);
	}
	sc.s.idx = pass_res(ed, sc.s.idx);
	sc.c = ed->c;
	sc.ishape = pass_sx_shape(&b, sc.s.idx);
	sc.orank = pass_sx_rank(&b, sc.s.ops[0]);
	if (wu_elems(m, pass_sx_shape(&b, sc.s.upd[0])) == 0)
		return n == 1 ? sc.s.ops[0] : pass_sx_tuple(&b, n, sc.s.ops);
	trip = pass_sx_indices_count(m, ed->c, &sc.s);
	for (k = 0; k < n; k++)
		init[k] = sc.s.ops[k];
	init[n] = canon_indices(&b, sc.s.idx, sc.s.ivd);
	for (k = 0; k < n; k++)
		init[n + 1 + k] = canon_update(&b, &sc, sc.s.upd[k]);
	w = counted_loop(ed, &sc, i, trip, 2 * n + 1, init);
	for (k = 0; k < n; k++)
		res[k] = pass_sx_gte(&b, w, k + 1);
	return n == 1 ? res[0] : pass_sx_tuple(&b, n, res);
}

int
pass_scatter_expander(HloModule *m, PassCtx *ctx)
{
	int mode = ctx->opt.scatter_mode;

	return pass_expand(m, ctx, match, expand, &mode);
}
