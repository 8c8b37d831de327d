/* dynamic_dimension_simplifier.c: "dynamic-dimension-simplifier", xla's
 * DynamicDimensionSimplifier (xla/hlo/transforms/simplifiers/
 * dynamic_dimension_simplifier.cc, jpli02/xla c4cbd3c).
 *
 * Six rules, each run over every non-fusion computation in post order
 * before the next (operands read as already rewritten):
 *   1. concatenate(concatenate(a, b), c) on the same dimension becomes
 *      concatenate(a, b, c) (ReplaceInstruction: the inner one goes when
 *      nothing else uses it);
 *   2. a rank-1, stride-1 slice [s:s+n] of a concatenate whose operand
 *      starting at s has n elements is replaced by that operand;
 *   3. reshape to rank 0 of a rank-1 broadcast of a scalar is the scalar;
 *   4. reshape(reshape(a)) with a's shape is a;
 *   5. convert to its operand's shape is its operand;
 *   6. reshape to its operand's shape is its operand.
 * Shapes compare as xla's Shape::Equal (layouts and dynamic dimensions
 * included). Rules 2-6 only redirect the uses (ReplaceAllUsesWith): the
 * replaced instruction stays, without users, as in xla.
 *
 * Must not fire: concatenates on another dimension, slices of rank > 1
 * or with a stride, slices that do not line up with one operand,
 * reshapes to anything but the original shape, converts that change the
 * type or layout; a concatenate with control dependencies is left alone
 * (ReplaceInstruction would refuse). No instruction is duplicated and
 * none with a side effect is involved (the rules match shape ops only).
 */
#include <stdlib.h>
#include <string.h>

#include "build.h"

static int
shape_eq(const HloModule *m, uint32_t a, uint32_t b)
{
	return pass_shape_equal(m, a, b) &&
		hlo_sh(m, a)->dynmask == hlo_sh(m, b)->dynmask;
}

static int64_t
concat_dim(PassEdit *ed, uint32_t i)
{
	uint32_t n;
	const int64_t *d = hlo_attr_ints(ed->m, pass_ins(ed, i),
		A_DIMENSIONS, &n);

	return d && n == 1 ? d[0] : -1;
}

/* ConcatForwarding */
static int
concat_fwd(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	uint32_t k, j, x, n = 0, cap, *ops, nw;
	int64_t dim;
	int changed = 0;
	HloAttr a;

	(void)arg;
	if (pass_ins(ed, i)->op != HOP_CONCAT || ed->ctl[i])
		return 0;
	dim = concat_dim(ed, i);
	cap = pass_ins(ed, i)->nops;
	for (k = 0; k < pass_ins(ed, i)->nops; k++) {
		x = pass_opnd(ed, i, k);
		if (pass_ins(ed, x)->op == HOP_CONCAT &&
		    concat_dim(ed, x) == dim)
			cap += pass_ins(ed, x)->nops;
	}
	ops = xreallocarray(NULL, cap + 1, sizeof *ops);
	for (k = 0; k < pass_ins(ed, i)->nops; k++) {
		x = pass_opnd(ed, i, k);
		if (pass_ins(ed, x)->op != HOP_CONCAT ||
		    concat_dim(ed, x) != dim) {
			ops[n++] = x;
			continue;
		}
		changed = 1;
		for (j = 0; j < pass_ins(ed, x)->nops; j++)
			ops[n++] = pass_opnd(ed, x, j);
	}
	if (changed) {
		nw = pass_b_op(ed, HOP_CONCAT, pass_ins(ed, i)->shape, n, ops);
		a = hlo_mk_ints(m, A_DIMENSIONS, &dim, 1);
		hlo_set_attrs(m, ed->c, nw, 1, &a);
		changed = pass_replace(ed, i, nw, 0, 0);
	}
	free(ops);
	return changed;
}

/* SliceConcatForwarding */
static int
slice_concat(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	const HloShape *sh;
	uint32_t c, k, x, n;
	const int64_t *sl;
	int64_t dim, size, sofar = 0;

	(void)arg;
	if (pass_ins(ed, i)->op != HOP_SLICE)
		return 0;
	c = pass_opnd(ed, i, 0);
	sh = hlo_sh(m, pass_ins(ed, i)->shape);
	if (pass_ins(ed, c)->op != HOP_CONCAT || sh->rank != 1)
		return 0;
	dim = concat_dim(ed, c);
	sl = hlo_attr_ints(m, pass_ins(ed, i), A_SLICE, &n);
	if (dim != 0 || !sl || n != 3)
		return 0;
	size = hlo_dims(m, sh)[0];
	if (size != sl[1] - sl[0] || sl[2] != 1)
		return 0;
	for (k = 0; k < pass_ins(ed, c)->nops; k++) {
		x = pass_opnd(ed, c, k);
		sh = hlo_sh(m, pass_ins(ed, x)->shape);
		if (sh->rank != 1)
			return 0;
		if (sofar == sl[0] && hlo_dims(m, sh)[0] == size) {
			pass_replace_uses(ed, i, x);
			return 1;
		}
		sofar += hlo_dims(m, sh)[0];
	}
	return 0;
}

/* ReshapeBroadcastForwarding */
static int
reshape_bcast(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	uint32_t b, s;

	(void)arg;
	if (pass_ins(ed, i)->op != HOP_RESHAPE ||
	    hlo_sh(m, pass_ins(ed, i)->shape)->rank != 0)
		return 0;
	b = pass_opnd(ed, i, 0);
	if (pass_ins(ed, b)->op != HOP_BROADCAST ||
	    hlo_sh(m, pass_ins(ed, b)->shape)->rank != 1)
		return 0;
	s = pass_opnd(ed, b, 0);
	if (hlo_sh(m, pass_ins(ed, s)->shape)->rank != 0)
		return 0;
	pass_replace_uses(ed, i, s);
	return 1;
}

/* i's uses take a instead when they have one shape */
static int
forward_same_shape(PassEdit *ed, uint32_t i, uint32_t a)
{
	if (!shape_eq(ed->m, pass_ins(ed, i)->shape, pass_ins(ed, a)->shape))
		return 0;
	pass_replace_uses(ed, i, a);
	return 1;
}

/* ReshapeReshapeForwarding */
static int
reshape_reshape(PassEdit *ed, uint32_t i, void *arg)
{
	uint32_t r;

	(void)arg;
	if (pass_ins(ed, i)->op != HOP_RESHAPE)
		return 0;
	r = pass_opnd(ed, i, 0);
	if (pass_ins(ed, r)->op != HOP_RESHAPE)
		return 0;
	return forward_same_shape(ed, i, pass_opnd(ed, r, 0));
}

/* IdentityConvertRemoving, IdentityReshapeRemoving */
static int
identity(PassEdit *ed, uint32_t i, void *arg)
{
	if (pass_ins(ed, i)->op != *(const int *)arg)
		return 0;
	return forward_same_shape(ed, i, pass_opnd(ed, i, 0));
}

/* skip[c] for rule op: set where fskip is (fusion computations) and
 * where c holds no live instruction of opcode op (the rule, which only
 * looks at instructions of op, would visit it for nothing) */
static void
skip_without(const HloModule *m, const uint8_t *fskip, int op, uint8_t *skip)
{
	uint32_t c, i;

	for (c = 0; c < m->ncomps; c++) {
		const HloComp *cp = &m->comps[c];

		skip[c] = 1;
		if (fskip[c])
			continue;
		for (i = 0; i < cp->nins && skip[c]; i++)
			if (cp->ins[i].op == op && !(cp->ins[i].flags & HI_DEAD))
				skip[c] = 0;
	}
}

int
pass_dynamic_dimension_simplifier(HloModule *m, PassCtx *ctx)
{
	static const int convert = HOP_CONVERT, reshape = HOP_RESHAPE;
	int (*const rule[])(PassEdit *, uint32_t, void *) = {
		concat_fwd, slice_concat, reshape_bcast, reshape_reshape,
		identity, identity,
	};
	static const int ruleop[] = {
		HOP_CONCAT, HOP_SLICE, HOP_RESHAPE, HOP_RESHAPE, HOP_CONVERT,
		HOP_RESHAPE,
	};
	const void *args[] = {NULL, NULL, NULL, NULL, &convert, &reshape};
	uint8_t *fskip = pass_skipped_comps(m, 0), *skip;
	PassEdit ed;
	PassVisit v;
	int changed = 0, r = 0;
	size_t k;

	skip = xmalloc(m->ncomps + 1);
	for (k = 0; k < sizeof rule / sizeof rule[0] && r >= 0; k++) {
		skip_without(m, fskip, ruleop[k], skip);
		memset(&v, 0, sizeof v);
		v.skip = skip;
		v.instr = rule[k];
		v.arg = (void *)args[k];
		r = pass_visit(m, ctx, &ed, &v);
		changed |= r > 0;
	}
	free(skip);
	free(fskip);
	return r < 0 ? -1 : changed;
}
