/* constant_folding.c: "constant_folding", xla's HloConstantFolding at its
 * default level, evaluating with hlopt's reference evaluator (src/eval/);
 * "constant_folding:aggressive" (variants.c) at its kAgressive level.
 *
 * In every non-fusion, non-composite computation, in xla's post order, an
 * instruction with users (or the root) is folded into a constant when
 * some operand is a constant and every operand is a constant, a
 * broadcast of a constant, an iota or a tuple of those (looked through
 * recursively), unless it is a parameter, constant or tuple, or:
 *   a broadcast, iota, fft or while; asynchronous; has a side effect,
 *   control dependencies, or calls a computation holding anything
 *   unfoldable; is or calls an rng or after-all; a pad of a broadcast
 *   with a constant padding value; has a result or operands of more
 *   than 45,000,000 elements.
 * Not in xla's list but not evaluable by xla's evaluator either, so left
 * alone: custom calls, collectives, send/recv, infeed/outfeed,
 * rng-bit-generator, partition/replica ids, copy-start/done, domains and
 * optimization barriers; operands holding an elided constant ({...}) are
 * never folded. The folded instruction's uses take the new constant and
 * it is deleted with the operands that died with it.
 * kAgressive (ctx->opt.cf_aggressive): while loops are folded too (xla's
 * evaluator then runs loops without an iteration limit; hlopt's stops at
 * 2^20 evaluated instructions for an instruction that calls computations
 * and leaves it) and no operand need be a
 * constant; xla also lifts the 45,000,000-element limit, which hlopt
 * keeps (its evaluator holds every value in memory).
 */
#include <stdlib.h>
#include <string.h>

#include "eval.h"
#include "wutil.h"

#define MAX_ELEMS 45000000
#define EVAL_LIMIT ((uint64_t)2 << 30)
#define LOOP_STEPS ((uint64_t)1 << 20)	/* kAgressive, an instruction
					 * that calls computations: the
					 * instructions evaluated at most (a
					 * loop that never ends is given up
					 * in about a second) */

typedef struct {
	HloModule *m;
	PassCtx *ctx;
	PassEdit *ed;
	uint8_t *fx;
	uint8_t *compok;	/* per computation: 0 unknown, 1 foldable,
				 * 2 not */
	int aggressive;		/* kAgressive */
	uint32_t ncomps;	/* real computations (the scratch one
				 * excluded) */
	HloEval ev;		/* one per pass, rebound for every fold
				 * (its freed big blocks are reused) */
	int evok;		/* ev initialized */
	HloError everr;
	uint32_t base;		/* bytes of the pool when the pass began */
	struct {
		uint32_t off, n;
	} *spare;		/* the pool's bytes of literals this pass
				 * made whose constants died since: a
				 * later literal goes there (a chain of
				 * folds grew the pool by every link) */
	uint32_t nspare, capspare;
} Cf;

static int
not_evaluable(int op)
{
	if (hlo_op_external_family(op) || op == HOP_DOMAIN ||
	    op == HOP_OPTBARRIER || op == HOP_ADDDEP)
		return 1;
	return (hlo_opinfo[op].flags & OPF_ASYNC) != 0;
}

static int foldable_comp(Cf *s, uint32_t c, int depth);

/* IsFoldable for instruction in of computation c */
static int
foldable(Cf *s, uint32_t c, const HloInstr *in, int depth)
{
	HloModule *m = s->m;
	int64_t out, opel = 0;
	uint32_t k;

	switch (in->op) {
	case HOP_BROADCAST: case HOP_IOTA: case HOP_FFT:
		return 0;
	case HOP_WHILE:
		if (!s->aggressive)
			return 0;
		break;
	}
	if (not_evaluable(in->op) || depth > 32)
		return 0;
	for (k = 0; k < in->ncalled; k++)
		if (!foldable_comp(s, m->ids[in->called + k], depth + 1))
			return 0;
	if (pass_has_effect(m, in, s->fx, s->ncomps) || in->nctrl)
		return 0;
	if (hlo_sh(m, in->shape)->type != TY_TUPLE) {
		const HloComp *cp = &m->comps[c];

		for (k = 0; k < in->nops; k++) {
			uint32_t d = m->ids[in->ops + k];
			int64_t e;

			if (d >= cp->nins)
				return 0;
			e = wu_elems(m, cp->ins[d].shape);
			opel = opel > INT64_MAX - e ? INT64_MAX : opel + e;
		}
		out = wu_elems(m, in->shape);
		if (out > MAX_ELEMS || opel > MAX_ELEMS)
			return 0;
	}
	return 1;
}

static int
foldable_comp(Cf *s, uint32_t c, int depth)
{
	const HloComp *cp;
	uint32_t i;

	if (c >= s->ncomps)
		return 0;
	if (s->compok[c])
		return s->compok[c] == 1;
	cp = &s->m->comps[c];
	s->compok[c] = 2;	/* a call cycle is not foldable */
	for (i = 0; i < cp->nins; i++)
		if (!(cp->ins[i].flags & HI_DEAD) &&
		    !foldable(s, c, &cp->ins[i], depth))
			return 0;
	s->compok[c] = 1;
	return 1;
}

/* AnyOperandsConstant (all == 0) or AllOperandsConstantOrBroadcast
 * Constant (all == 1), through tuples */
static int
operands_constant(PassEdit *ed, uint32_t x, int all, int depth)
{
	uint32_t k, o;

	for (k = 0; k < pass_ins(ed, x)->nops; k++) {
		const HloInstr *oi;

		o = pass_opnd(ed, x, k);
		oi = pass_ins(ed, o);
		if (oi->op == HOP_TUPLE && depth < 32) {
			if (operands_constant(ed, o, all, depth + 1) != all)
				return !all;
		} else if (oi->op == HOP_CONSTANT) {
			if (!all)
				return 1;
		} else if (all && !(oi->op == HOP_IOTA ||
		    (oi->op == HOP_BROADCAST && oi->nops &&
		    pass_ins(ed, pass_opnd(ed, o, 0))->op == HOP_CONSTANT))) {
			return 0;
		}
	}
	return all;
}

/* copies instruction x of ed's computation into t with operands ops, name
 * "" (nothing is interned) */
static uint32_t
scratch_copy(PassEdit *ed, uint32_t t, uint32_t x, uint32_t n,
	const uint32_t *ops)
{
	HloModule *m = ed->m;
	HloInstr src = m->comps[ed->c].ins[x];
	uint32_t j = hlo_instr_add(m, t, src.op, src.shape, 0, n, ops);

	m->comps[t].ins[j].attrs = src.attrs;
	m->comps[t].ins[j].nattrs = src.nattrs;
	m->comps[t].ins[j].called = src.called;
	m->comps[t].ins[j].ncalled = src.ncalled;
	m->comps[t].ins[j].num = src.num;
	return j;
}

/* copies the constant subtree rooted at x into t; -1 on an elided
 * constant */
static int
copy_tree(PassEdit *ed, uint32_t t, uint32_t x, uint32_t *out, int depth)
{
	HloModule *m = ed->m;
	uint32_t k, n = pass_ins(ed, x)->nops, *ops, nb;
	int op = pass_ins(ed, x)->op;

	if (op == HOP_CONSTANT && !hlo_literal(m, pass_ins(ed, x), &nb))
		return -1;
	if (depth > 64)
		return -1;
	ops = xreallocarray(NULL, n + 1, sizeof *ops);
	for (k = 0; k < n; k++)
		if (copy_tree(ed, t, pass_opnd(ed, x, k), &ops[k], depth + 1) < 0) {
			free(ops);
			return -1;
		}
	*out = scratch_copy(ed, t, x, n, ops);
	free(ops);
	return 0;
}

/* the bytes of value v's arrays, in order; -1 past 2^32 */
static int64_t
val_bytes(const HloVal *v, int depth)
{
	int64_t k, n = 0, b;

	if (v->type == TY_TUPLE) {
		for (k = 0; k < v->n && depth < 64; k++) {
			if ((b = val_bytes(v->elems[k], depth + 1)) < 0)
				return -1;
			n += b;
		}
		return n <= UINT32_MAX ? n : -1;
	}
	if (v->type == TY_TOKEN)
		return 0;
	return v->n <= (int64_t)UINT32_MAX ? v->n * hlo_type_bytes(v->type) :
		-1;
}

/* writes v's arrays to dst, in order: its only copy. A view of a literal
 * of the pool that moved from old (its bytes then) to m->bytes reads
 * there */
static char *
put_val(const HloVal *v, char *dst, const HloModule *m, uintptr_t old,
	uint32_t nold, int depth)
{
	const char *src = (const char *)v->data;
	int64_t k;
	size_t n;

	if (v->type == TY_TUPLE) {
		for (k = 0; k < v->n && depth < 64; k++)
			dst = put_val(v->elems[k], dst, m, old, nold, depth + 1);
		return dst;
	}
	if (v->type == TY_TOKEN || !v->n)
		return dst;
	n = (size_t)v->n * hlo_type_bytes(v->type);
	if ((uintptr_t)src >= old && (uintptr_t)src - old < nold)
		src = m->bytes + ((uintptr_t)src - old);
	memcpy(dst, src, n);
	return dst + n;
}

/* instruction x evaluated in a scratch computation: *out, alive in ev
 * until eval_end (called also when this fails); -1 if it cannot be
 * evaluated */
static int
evaluate(Cf *s, uint32_t x, uint64_t steps, HloVal **out)
{
	PassEdit *ed = s->ed;
	HloModule *m = ed->m;
	HloEval *ev = &s->ev;
	uint32_t t, n = pass_ins(ed, x)->nops, k, *ops, root;
	int r = -1;

	*out = NULL;
	t = hlo_comp_add(m, 0);
	ops = xreallocarray(NULL, n + 1, sizeof *ops);
	if (s->evok) {
		hlo_eval_rebind(ev, m);
	} else {
		hlo_eval_init(ev, m, EVAL_LIMIT, &s->everr);
		hlo_eval_adopt(ev, &s->ctx->evkeep);
		s->evok = 1;
	}
	if (s->ctx->threads > 0)
		ev->threads = s->ctx->threads;
	for (k = 0; k < n; k++)
		if (copy_tree(ed, t, pass_opnd(ed, x, k), &ops[k], 0) < 0)
			goto out;
	root = scratch_copy(ed, t, x, n, ops);
	m->comps[t].root = root;
	if (steps)
		ev->maxsteps = steps;
	if (hlo_eval_comp(ev, t, NULL, 0, out) == 0 && *out)
		r = 0;
out:
	free(ops);
	return r;
}

/* releases out and what ev holds for the module, and drops the scratch
 * computation (the last) */
static void
eval_end(HloModule *m, HloEval *ev, HloVal *out)
{
	hlo_val_unref(ev, out);
	hlo_eval_release(ev);
	free(m->comps[m->ncomps - 1].ins);
	m->ncomps--;
}

static int
literal_fits(const HloModule *m, uint32_t shape, size_t n)
{
	const HloShape *sh = hlo_sh(m, shape);
	uint32_t k;
	size_t sum = 0;

	if (sh->type == TY_TUPLE) {
		for (k = 0; k < sh->ntuple; k++) {
			uint32_t e = hlo_tuple_elems(m, sh)[k];
			int64_t b = hlo_shape_bytes(m, e);

			if (hlo_sh(m, e)->type == TY_TUPLE ||
			    hlo_sh(m, e)->type == TY_TOKEN || b < 0)
				return 0;
			sum += b;
		}
		return sum == n;
	}
	return hlo_shape_bytes(m, shape) == (int64_t)n;
}

/* the literal bytes of constant y, made by this pass (at or past
 * s->base: nothing else refers to them), become spare */
static void
spare_add(Cf *s, const HloInstr *y)
{
	const HloAttr *a;

	if (y->op != HOP_CONSTANT ||
	    !(a = hlo_attr(s->m, y, A_LITERAL)) || a->v == HLO_ELIDED ||
	    a->v < s->base || !a->n)
		return;
	s->spare = hlo_grow(s->spare, s->nspare, &s->capspare, 16,
		sizeof *s->spare);
	s->spare[s->nspare].off = (uint32_t)a->v;
	s->spare[s->nspare++].n = a->n;
}

/* the offset of n spare bytes (the smallest run that holds them; its
 * rest stays spare, 8-aligned), UINT32_MAX if none */
static uint32_t
spare_take(Cf *s, uint32_t n)
{
	uint32_t k, best = UINT32_MAX, off, used;

	for (k = 0; k < s->nspare; k++)
		if (s->spare[k].n >= n && (best == UINT32_MAX ||
		    s->spare[k].n < s->spare[best].n))
			best = k;
	if (best == UINT32_MAX)
		return UINT32_MAX;
	off = s->spare[best].off;
	used = (n + 7) & ~7u;
	if (used < s->spare[best].n) {
		s->spare[best].off += used;
		s->spare[best].n -= used;
	} else {
		s->spare[best] = s->spare[--s->nspare];
	}
	return off;
}

/* RecursivelyRemoveDeadInstructionAndDeadOperands */
static void
remove_dead(Cf *s, uint32_t x)
{
	PassEdit *ed = s->ed;
	uint32_t top = 0, cap = 16, *stack = xreallocarray(NULL, cap,
		sizeof *stack), k, y;

	stack[top++] = x;
	while (top) {
		y = stack[--top];
		if (pass_ins(ed, y)->flags & HI_DEAD)
			continue;
		spare_add(s, pass_ins(ed, y));
		pass_remove(ed, y);
		for (k = 0; k < pass_ins(ed, y)->nops; k++) {
			uint32_t o = pass_opnd(ed, y, k);

			if ((pass_ins(ed, o)->flags & HI_DEAD) || !pass_is_dead(ed, o) ||
			    pass_ins(ed, o)->op == HOP_PARAMETER)
				continue;
			if (top == cap) {
				cap *= 2;
				stack = xreallocarray(stack, cap, sizeof *stack);
			}
			stack[top++] = o;
		}
	}
	free(stack);
}

static int
fold(Cf *s, uint32_t x)
{
	PassEdit *ed = s->ed;
	HloModule *m = s->m;
	const HloInstr *in = pass_ins(ed, x);
	uint32_t k, shape = in->shape, nold, pad;
	HloAttr a;
	HloVal *out;
	int64_t len;
	uintptr_t old;

	if (pass_is_dead(ed, x) || (!s->aggressive &&
	    !operands_constant(ed, x, 0, 0)) ||
	    !operands_constant(ed, x, 1, 0) || in->op == HOP_PARAMETER ||
	    in->op == HOP_CONSTANT || in->op == HOP_TUPLE || ed->ctl[x] ||
	    hlo_sh(m, shape)->dynmask || !foldable(s, ed->c, in, 0))
		return 0;
	if (in->op == HOP_PAD && in->nops == 2 &&
	    pass_ins(ed, pass_opnd(ed, x, 0))->op == HOP_BROADCAST &&
	    pass_ins(ed, pass_opnd(ed, x, 1))->op == HOP_CONSTANT)
		return 0;
	if (evaluate(s, x, s->aggressive && in->ncalled ? LOOP_STEPS : 0,
	    &out) < 0 || (len = val_bytes(out, 0)) < 0 ||
	    !literal_fits(m, shape, len) || m->nbytes > UINT32_MAX / 2 ||
	    len > UINT32_MAX / 2 - m->nbytes) {
		eval_end(m, &s->ev, out);
		return 0;
	}
	old = (uintptr_t)m->bytes;
	nold = m->nbytes;
	k = wu_add(m, ed->c, HOP_CONSTANT, shape, 0, NULL, ed);
	a = hlo_mk_bytes(m, A_LITERAL, K_LITERAL, NULL, 0);
	a.n = (uint32_t)len;
	if ((a.v = spare_take(s, a.n)) == UINT32_MAX) {
		/* 8-aligned: the evaluator reads it in place */
		if ((pad = (8 - m->nbytes % 8) % 8))
			memset(m->bytes + hlo_push_bytes(m, NULL, pad), 0,
				pad);
		a.v = hlo_push_bytes(m, NULL, a.n);
	}
	put_val(out, m->bytes + a.v, m, old, nold, 0);
	eval_end(m, &s->ev, out);
	hlo_set_attrs(m, ed->c, k, 1, &a);
	pass_replace_uses(ed, x, k);
	remove_dead(s, x);
	return 1;
}

static int
fold_visit(PassEdit *ed, uint32_t x, void *arg)
{
	return fold(arg, x);
}

int
pass_constant_folding(HloModule *m, PassCtx *ctx)
{
	PassEdit ed;
	PassVisit v = {0};
	Cf s;
	int changed;

	memset(&s, 0, sizeof s);
	s.m = m;
	s.ctx = ctx;
	s.ed = &ed;
	s.ncomps = m->ncomps;
	s.fx = xmalloc(m->ncomps + 1);
	memcpy(s.fx, pass_comp_effects(m, ctx), m->ncomps);
	s.compok = xcalloc(m->ncomps + 1, 1);
	s.aggressive = ctx->opt.cf_aggressive;
	s.base = m->nbytes;
	v.fx = s.fx;
	v.nfx = m->ncomps;
	v.skips = PASS_SKIP_FUSION_COMPOSITE;
	v.instr = fold_visit;
	v.unforwarded = 1;
	v.arg = &s;
	changed = pass_visit(m, ctx, &ed, &v);
	if (s.evok)
		hlo_eval_fini_keep(&s.ev, &ctx->evkeep, ctx->keep_bytes);
	free(s.spare);
	free(s.fx);
	free(s.compok);
	return changed;
}
