/* while_const_sinking.c: "while-loop-constant-sinking", xla's
 * WhileLoopConstantSinking with its default options (no broadcasts of
 * constants).
 *
 * Loops are visited outer first (callers before callees). For a while
 * whose init is a tuple instruction and whose body root is a tuple, each
 * state element i passed through unchanged (root operand i is
 * get-tuple-element(param, i)) and initialised by a constant gets that
 * constant cloned into the body (named <constant>.sunk) for every use of
 * the get-tuple-element but the root's slot i, when there are such uses,
 * and into the condition for every get-tuple-element of index i that has
 * users. The element itself stays, loop invariant; simplify-while-loops
 * removes it later. Not in xla: a body or condition shared with another
 * caller is cloned for this loop first, so the other callers keep theirs.
 * With sink_scalar_or_bcast (as while_loop_unroller runs it:
 * sink_broadcast_of_constants and sink_only_scalar_constants), a
 * broadcast of a constant is sunk too (the constant copied with it), and
 * only scalar inits are.
 */
#include <stdlib.h>
#include <string.h>

#include "wutil.h"

typedef struct {
	HloModule *m;
	PassCtx *ctx;
	uint32_t *ncallers;	/* per computation */
	uint8_t *touched;
	uint32_t ntouched;
} Sinker;

/* body (0) or condition (1) of w, cloned when someone else calls it */
static uint32_t
own(Sinker *s, uint32_t c, uint32_t w, int which)
{
	HloModule *m = s->m;
	uint32_t comp = m->ids[m->comps[c].ins[w].called + which], cl, *v;

	if (s->ncallers[comp] <= 1)
		return comp;
	cl = hlo_comp_clone(m, comp, ".sunk");
	s->ncallers[comp]--;
	v = xreallocarray(NULL, 2, sizeof *v);
	memcpy(v, m->ids + m->comps[c].ins[w].called, 2 * sizeof *v);
	v[which] = cl;
	hlo_set_called(m, c, w, 2, v);
	free(v);
	s->ncallers = xreallocarray(s->ncallers, m->ncomps + 1,
		sizeof *s->ncallers);
	s->touched = xreallocarray(s->touched, m->ncomps + 1, 1);
	s->ncallers[cl] = 1;
	s->touched[cl] = 0;
	return cl;
}

/* distinct users of x in c */
static uint32_t
nusers(const HloUsers *u, uint32_t x)
{
	uint32_t j, n = 0;

	for (j = u->start[x]; j < u->start[x + 1]; j++)
		n += j == u->start[x] || u->list[j] != u->list[j - 1];
	return n;
}

/* CloneHelper: the constant konst of c (named <name>.sunk), or the
 * broadcast konst and its constant, copied into d */
static uint32_t
sink_copy(HloModule *m, uint32_t d, uint32_t c, uint32_t konst)
{
	uint32_t k;

	if (m->comps[c].ins[konst].op != HOP_BROADCAST)
		return wu_copy_named(m, d, c, konst, 0, NULL, ".sunk");
	k = wu_copy_named(m, d, c, m->ids[m->comps[c].ins[konst].ops], 0,
		NULL, ".sunk");
	return pass_copy_instr(m, d, c, konst, 1, &k);
}

/* the init value may be sunk: a constant; with sink_scalar_or_bcast
 * (sink_broadcast_of_constants, sink_only_scalar_constants) also a
 * broadcast of a constant, and only scalars */
static int
sinkable(const HloModule *m, uint32_t c, uint32_t konst, int opt)
{
	const HloInstr *in = &m->comps[c].ins[konst];
	const HloShape *sh;

	if (in->op != HOP_CONSTANT && (!opt || in->op != HOP_BROADCAST ||
	    in->nops != 1 || m->comps[c].ins[m->ids[in->ops]].op !=
	    HOP_CONSTANT))
		return 0;
	sh = hlo_sh(m, in->shape);
	return !opt || (sh->type != TY_TUPLE && sh->type != TY_TOKEN &&
		sh->type != TY_OPAQUE && sh->rank == 0);
}

static void
sink_body(Sinker *s, uint32_t c, uint32_t body, uint32_t konst, uint32_t g,
	int64_t idx)
{
	HloModule *m = s->m;
	HloComp *cp;
	uint32_t k, i, j = sink_copy(m, body, c, konst);

	cp = &m->comps[body];
	for (i = 0; i < cp->nins; i++) {
		HloInstr *in = &cp->ins[i];

		if ((in->flags & HI_DEAD) || i == j)
			continue;
		for (k = 0; k < in->nops; k++)
			if (m->ids[in->ops + k] == g &&
			    !(i == cp->root && k == idx))
				m->ids[in->ops + k] = j;
	}
	s->touched[body] = 1;
}

static int
try_sink(Sinker *s, uint32_t c, uint32_t w)
{
	HloModule *m = s->m;
	uint32_t init = m->ids[m->comps[c].ins[w].ops], body, cond, broot;
	uint32_t bparam, cparam, i, k, g, konst, n, *sinkb, *sinkc;
	HloUsers ub, uc;
	int changed = 0, needb = 0, needc = 0;

	if (m->comps[c].ins[w].nops != 1 || m->comps[c].ins[w].ncalled != 2 ||
	    !wu_is_tuple_op(m, c, init))
		return 0;
	body = m->ids[m->comps[c].ins[w].called];
	cond = m->ids[m->comps[c].ins[w].called + 1];
	broot = m->comps[body].root;
	bparam = wu_param0(m, body);
	cparam = wu_param0(m, cond);
	if (bparam == HLO_NONE || cparam == HLO_NONE ||
	    !wu_is_tuple_op(m, body, broot))
		return 0;
	/* a root slot past the loop state (xla's verifier lets a body
	 * return more elements than its parameter has) is never a
	 * pass-through of the parameter: only the first slots can be */
	n = m->comps[body].ins[broot].nops;
	if (n > m->comps[c].ins[init].nops)
		n = m->comps[c].ins[init].nops;
	sinkb = xcalloc(n + 1, sizeof *sinkb);
	sinkc = xcalloc(n + 1, sizeof *sinkc);
	hlo_users(m, body, &ub);
	hlo_users(m, cond, &uc);
	for (i = 0; i < n; i++) {
		const HloInstr *gi;

		g = m->ids[m->comps[body].ins[broot].ops + i];
		gi = &m->comps[body].ins[g];
		konst = m->ids[m->comps[c].ins[init].ops + i];
		if (gi->op != HOP_GTE || !gi->nops || m->ids[gi->ops] != bparam ||
		    hlo_attr_int(m, gi, A_INDEX, -1) != i ||
		    !sinkable(m, c, konst, s->ctx->opt.sink_scalar_or_bcast))
			continue;
		if (nusers(&ub, g) > 1)
			sinkb[i] = needb = 1;
		for (k = uc.start[cparam]; k < uc.start[cparam + 1]; k++) {
			const HloInstr *ci = &m->comps[cond].ins[uc.list[k]];

			if (ci->op == HOP_GTE && hlo_attr_int(m, ci, A_INDEX,
			    -1) == i && nusers(&uc, uc.list[k]) > 0)
				sinkc[i] = needc = 1;
		}
	}
	hlo_users_free(&ub);
	hlo_users_free(&uc);
	if (needb)
		body = own(s, c, w, 0);
	if (needc)
		cond = own(s, c, w, 1);
	hlo_users(m, cond, &uc);
	for (i = 0; i < n; i++) {
		konst = m->ids[m->comps[c].ins[init].ops + i];
		if (sinkb[i]) {
			broot = m->comps[body].root;
			g = m->ids[m->comps[body].ins[broot].ops + i];
			sink_body(s, c, body, konst, g, i);
			changed = 1;
		}
		if (!sinkc[i])
			continue;
		cparam = wu_param0(m, cond);
		for (k = uc.start[cparam]; k < uc.start[cparam + 1]; k++) {
			uint32_t gc = uc.list[k], j;
			const HloInstr *ci = &m->comps[cond].ins[gc];

			if ((k > uc.start[cparam] && uc.list[k - 1] == gc) ||
			    ci->op != HOP_GTE || hlo_attr_int(m, ci, A_INDEX,
			    -1) != i || nusers(&uc, gc) == 0)
				continue;
			j = sink_copy(m, cond, c, konst);
			wu_replace_uses(m, cond, gc, j, j);
			s->touched[cond] = 1;
			changed = 1;
		}
	}
	hlo_users_free(&uc);
	free(sinkb);
	free(sinkc);
	return changed;
}

/* the loops while_const_sinking takes (wu_while_loops' filter). Unlike
 * wu_while_regular, a body whose root has more elements than the loop
 * state is taken (xla's verifier accepts it; its test
 * DontCreateDeadConstant has one): try_sink only looks at the slots the
 * state has */
static int
sinkable_loop(const HloModule *m, uint32_t c, uint32_t i)
{
	const HloInstr *in = &m->comps[c].ins[i];

	return in->op == HOP_WHILE && in->nops == 1 && in->ncalled == 2;
}

int
pass_while_const_sinking(HloModule *m, PassCtx *ctx)
{
	Sinker s;
	PassCallers cg;
	uint32_t *order, *wl, nw, c, k;
	int n, changed = 0;

	s.m = m;
	s.ctx = ctx;
	if (!(order = pass_comps_in_post_order(m, ctx, &n)))
		return -1;
	pass_callers(m, &cg, ctx);
	s.ncallers = xcalloc(m->ncomps + 1, sizeof *s.ncallers);
	s.touched = xcalloc(m->ncomps + 1, 1);
	for (c = 0; c < m->ncomps; c++)
		s.ncallers[c] = cg.start[c + 1] - cg.start[c];
	pass_reset(ctx);
	nw = wu_while_loops(m, order, (uint32_t)n, 1, sinkable_loop, &wl);
	for (k = 0; k < nw; k++) {
		int r = try_sink(&s, wl[2 * k], wl[2 * k + 1]);

		ctx->stats.rewrites += r;
		changed |= r;
		pass_reset(ctx);
	}
	for (c = 0; c < m->ncomps && changed; c++)
		if (s.touched[c] && hlo_comp_compact(m, c) < 0) {
			changed = pass_err_cycle(ctx, m, c);
			break;
		}
	free(order);
	free(wl);
	free(s.ncallers);
	free(s.touched);
	return changed;
}
