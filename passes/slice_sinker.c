/* slice_sinker.c: "slice-sinker", xla's SliceSinker.
 *
 * In every computation, in xla's post order: an elementwise instruction
 * with users whose operands are all slices with the same starts, limits
 * and strides of sources of equal dimensions starts a group: every
 * instruction with users, the same opcode, attributes and result type,
 * whose k-th operand is a slice of the same k-th source and whose slices
 * share one configuration (found through the users of the slices of the
 * first source). When the group's elements add up to at least the first
 * source's, the operation is done once on the sources and each member's
 * uses take a slice of that result instead. Members are left in place
 * without users (no deletion, as in xla); instructions without users are
 * never transformed.
 */
#include <stdlib.h>
#include <string.h>

#include "pass.h"

typedef struct {
	PassEdit *ed;
	HloUsers u;
	uint32_t *grp;
	uint32_t ngrp;
} Sink;

static int
is_slice(PassEdit *ed, uint32_t i)
{
	return pass_ins(ed, i)->op == HOP_SLICE && pass_ins(ed, i)->nops == 1;
}

static int
same_config(PassEdit *ed, uint32_t a, uint32_t b)
{
	const HloAttr *x = hlo_attr(ed->m, pass_ins(ed, a), A_SLICE);
	const HloAttr *y = hlo_attr(ed->m, pass_ins(ed, b), A_SLICE);

	if (!x || !y)
		return !x && !y;
	return x->n == y->n && (!x->n || !memcmp(ed->m->ints + x->v,
		ed->m->ints + y->v, x->n * 8u));
}

/* IsElementwiseOperationOnSimilarSlices */
static int
on_similar_slices(PassEdit *ed, uint32_t i)
{
	const HloInstr *in = pass_ins(ed, i);
	uint32_t k, s0 = pass_opnd(ed, i, 0), s;

	for (k = 0; k < in->nops; k++)
		if (!is_slice(ed, pass_opnd(ed, i, k)))
			return 0;
	for (k = 1; k < in->nops; k++) {
		s = pass_opnd(ed, i, k);
		if (!hlo_shape_compatible(ed->m, pass_ins(ed, pass_opnd(ed, s0, 0))->shape,
		    pass_ins(ed, pass_opnd(ed, s, 0))->shape) || !same_config(ed, s0, s))
			return 0;
	}
	return 1;
}

static const uint8_t *
meta_keys(void)
{
	static const uint8_t ign[A_COUNT] = {
		[A_METADATA] = 1, [A_ORIGIN] = 1, [A_STATISTICS] = 1,
		[A_FRONTEND_ATTRIBUTES] = 1, [A_SHARDING] = 1,
		[A_BACKEND_CONFIG] = 1,
	};

	return ign;
}

/* HloInstruction::SameOp */
static int
same_op(PassEdit *ed, uint32_t a, uint32_t b)
{
	HloModule *m = ed->m;
	const HloInstr *x = pass_ins(ed, a), *y = pass_ins(ed, b);

	return x->op == y->op && x->nops == y->nops &&
		x->ncalled == y->ncalled && (!x->ncalled ||
		!memcmp(m->ids + x->called, m->ids + y->called,
		x->ncalled * 4u)) && hlo_attrs_equal(m, x, y, meta_keys());
}

/* IsSimilarOperationOnSlices(op, cand) */
static int
similar(PassEdit *ed, uint32_t op, uint32_t cand)
{
	HloModule *m = ed->m;
	uint32_t k, s0, s;

	if (pass_res(ed, cand) != cand || ed->nuse[cand] == 0 ||
	    !same_op(ed, op, cand) || hlo_sh(m, pass_ins(ed, op)->shape)->type !=
	    hlo_sh(m, pass_ins(ed, cand)->shape)->type)
		return 0;
	s0 = pass_opnd(ed, cand, 0);
	for (k = 0; k < pass_ins(ed, cand)->nops; k++) {
		s = pass_opnd(ed, cand, k);
		if (!is_slice(ed, s) || pass_opnd(ed, s, 0) !=
		    pass_opnd(ed, pass_opnd(ed, op, k), 0) || !same_config(ed, s0, s))
			return 0;
	}
	return 1;
}

/* FindElementwiseOperationGroup, with ShouldTransform */
static int
find_group(Sink *sk, uint32_t op)
{
	PassEdit *ed = sk->ed;
	uint32_t src = pass_opnd(ed, pass_opnd(ed, op, 0), 0), j, k, s, u, prev;
	int64_t sum = 0, e;

	sk->ngrp = 0;
	if (src >= sk->u.n)
		return 0;
	for (j = sk->u.start[src]; j < sk->u.start[src + 1]; j++) {
		s = sk->u.list[j];
		if ((j > sk->u.start[src] && sk->u.list[j - 1] == s) ||
		    !is_slice(ed, s) || pass_res(ed, s) != s)
			continue;
		prev = HLO_NONE;
		for (k = sk->u.start[s]; k < sk->u.start[s + 1]; k++) {
			u = sk->u.list[k];
			if (u == prev)
				continue;
			prev = u;
			if (similar(ed, op, u))
				sk->grp[sk->ngrp++] = u;
		}
	}
	for (j = 0; j < sk->ngrp; j++) {
		e = hlo_shape_elems(ed->m, pass_ins(ed, sk->grp[j])->shape);
		if (e < 0 || __builtin_add_overflow(sum, e, &sum))
			sum = INT64_MAX;
	}
	e = hlo_shape_elems(ed->m, pass_ins(ed, src)->shape);
	return sk->ngrp && e >= 0 && sum >= e;
}

static void
sink(Sink *sk, uint32_t op)
{
	PassEdit *ed = sk->ed;
	HloModule *m = ed->m;
	uint32_t n = pass_ins(ed, op)->nops, k, j, first = sk->grp[0], big, sl, s;
	uint32_t *srcs = pass_alloc(ed->ctx, (n + 1) * sizeof *srcs);

	for (k = 0; k < n; k++)
		srcs[k] = pass_opnd(ed, pass_opnd(ed, op, k), 0);
	big = pass_copy_instr(m, ed->c, ed->c, first, n, srcs);
	m->comps[ed->c].ins[big].shape = hlo_shape_with_type(m,
		pass_ins(ed, srcs[0])->shape, hlo_sh(m, pass_ins(ed, first)->shape)->type);
	pass_edit_added(ed, big);
	for (j = 0; j < sk->ngrp; j++) {
		uint32_t user = sk->grp[j];

		if (ed->nuse[user] == 0 && m->comps[ed->c].root != user)
			continue;
		s = pass_opnd(ed, user, 0);
		sl = pass_copy_instr(m, ed->c, ed->c, s, 1, &big);
		m->comps[ed->c].ins[sl].shape = pass_ins(ed, user)->shape;
		pass_edit_added(ed, sl);
		pass_replace_uses(ed, user, sl);
	}
}

static int
visit_comp(PassEdit *ed, void *arg)
{
	HloModule *m = ed->m;
	PassCtx *ctx = ed->ctx;
	Sink sk;
	uint32_t c = ed->c, *order, cnt, i, x, n = m->comps[c].nins;

	sk.ed = ed;
	order = pass_alloc(ctx, (n + 1) * sizeof *order);
	cnt = pass_post_order(m, c, order, ctx);
	hlo_users(m, c, &sk.u);
	sk.grp = pass_alloc(ctx, (sk.u.start[n] + 1) * sizeof *sk.grp);
	for (i = 0; i < cnt; i++) {
		const HloInstr *in;

		x = order[i];
		in = &m->comps[c].ins[x];
		if ((in->flags & HI_DEAD) || !in->nops ||
		    !(hlo_opinfo[in->op].flags & OPF_ELEM) ||
		    ed->nuse[x] == 0 || pass_res(ed, x) != x ||
		    !on_similar_slices(ed, x) || !find_group(&sk, x))
			continue;
		sink(&sk, x);
		ctx->stats.rewrites++;
	}
	hlo_users_free(&sk.u);
	return ed->changed;
}

int
pass_slice_sinker(HloModule *m, PassCtx *ctx)
{
	return pass_visit_comps(m, ctx, PASS_SKIP_NONE, visit_comp, NULL);
}
