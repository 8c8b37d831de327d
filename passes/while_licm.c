/* while_licm.c: "while-loop-invariant-code-motion", xla's
 * WhileLoopInvariantCodeMotion with its default options (constants and
 * reshapes hoisted only to enable others, everything else hoisted, no
 * size-inflation limit).
 *
 * For every while with a tuple state (computations callees first), unless
 * the frontend attribute _xla_disable_loop_instr_hoisting is set or the
 * trip count is known to be at most 1: the invariant values are the
 * array get-tuple-elements of the body parameter passed through
 * unchanged (root operand i is get-tuple-element(param, i)), the
 * constants and what is hoisted. Bodies holding a domain, or the custom
 * calls SPMDFullToShardShape, SPMDShardShapeToFull, MoveToDevice or
 * MoveToHost, are left alone. In the body's post order, an instruction
 * with invariant operands, no side effect, no control dependencies, not a
 * parameter or after-all, is hoisted: copied in front of the loop
 * together with the invariant operands it needs (a passed-through element
 * becomes get-tuple-element of the loop's init), unless it is not worth
 * hoisting alone (constant, reshape, bitcast, broadcast, iota, reverse,
 * slice, transpose, tuple, the Sharding custom call), in which case it
 * only joins the invariant set. The hoisted values are appended to the
 * loop state (init, body and condition parameters, body root) and the
 * body uses the new elements instead (WhileUtil::MakeInstructionsLiveIn).
 * Then, if anything changed, dce and tuple-simplifier run on the module,
 * as in xla. A body or condition shared with other loops is cloned for
 * this loop first.
 */
#include <stdlib.h>
#include <string.h>

#include "wutil.h"

typedef struct {
	HloModule *m;
	PassCtx *ctx;
	uint8_t *fx;
	uint32_t *ncallers;
	uint8_t *touched;
	uint32_t cap;
	/* per body instruction, for the loop being worked on */
	uint32_t *hoisted;	/* copy in the caller, HLO_NONE if none */
	uint8_t *inv;		/* invariant but not hoisted */
} Licm;

static void
grow(Licm *s)
{
	uint32_t n = s->m->ncomps + 1, old = s->cap;

	if (n <= s->cap)
		return;
	s->cap = 2 * n;
	s->fx = xreallocarray(s->fx, s->cap, 1);
	s->ncallers = xreallocarray(s->ncallers, s->cap, sizeof *s->ncallers);
	s->touched = xreallocarray(s->touched, s->cap, 1);
	memset(s->fx + old, 0, s->cap - old);
	memset(s->ncallers + old, 0, (s->cap - old) * sizeof *s->ncallers);
	memset(s->touched + old, 0, s->cap - old);
}

static int
bail_body(const HloModule *m, uint32_t b)
{
	const HloComp *cp = &m->comps[b];
	uint32_t i;

	for (i = 0; i < cp->nins; i++) {
		const HloInstr *in = &cp->ins[i];

		if (in->flags & HI_DEAD)
			continue;
		if (in->op == HOP_DOMAIN ||
		    pass_is_custom_call(m, in, "SPMDFullToShardShape") ||
		    pass_is_custom_call(m, in, "SPMDShardShapeToFull") ||
		    pass_is_custom_call(m, in, "MoveToDevice") ||
		    pass_is_custom_call(m, in, "MoveToHost"))
			return 1;
	}
	return 0;
}

static int
not_worth_alone(const HloModule *m, const HloInstr *in)
{
	switch (in->op) {
	case HOP_CONSTANT: case HOP_RESHAPE: case HOP_BITCAST:
	case HOP_BROADCAST: case HOP_IOTA: case HOP_REVERSE: case HOP_SLICE:
	case HOP_TRANSPOSE: case HOP_TUPLE:
		return 1;
	}
	return pass_is_custom_call(m, in, "Sharding");
}

/* WhileUtil::CreateLoopInvariantCopy: copies x and the invariant
 * operands it needs into the caller c */
static void
hoist(Licm *s, uint32_t c, uint32_t w, uint32_t body, uint32_t x)
{
	HloModule *m = s->m;
	uint32_t top = 0, cap = 64, *stack, k, y, d, *ops = NULL, nops = 0, j;
	uint32_t bparam = wu_param0(m, body);

	stack = xreallocarray(NULL, cap, sizeof *stack);
	stack[top++] = x;
	while (top) {
		HloInstr in;
		int ready = 1;

		y = stack[top - 1];
		if (s->hoisted[y] != HLO_NONE) {
			top--;
			continue;
		}
		in = m->comps[body].ins[y];
		if (in.op == HOP_GTE && in.nops && m->ids[in.ops] == bparam) {
			uint32_t init = m->ids[m->comps[c].ins[w].ops];

			s->hoisted[y] = wu_gte(m, c, init, hlo_attr_int(m, &in,
				A_INDEX, 0), NULL);
			s->inv[y] = 0;
			top--;
			continue;
		}
		for (k = 0; k < in.nops; k++) {
			d = m->ids[in.ops + k];
			if (s->hoisted[d] != HLO_NONE)
				continue;
			ready = 0;
			if (top == cap) {
				cap *= 2;
				stack = xreallocarray(stack, cap, sizeof *stack);
			}
			stack[top++] = d;
		}
		if (!ready)
			continue;
		if (in.nops > nops) {
			nops = in.nops;
			ops = xreallocarray(ops, nops, sizeof *ops);
		}
		for (k = 0; k < in.nops; k++)
			ops[k] = s->hoisted[m->ids[in.ops + k]];
		j = pass_copy_instr(m, c, body, y, in.nops, ops);
		for (k = 0; k < in.ncalled; k++)
			if (m->ids[in.called + k] < m->ncomps)
				s->ncallers[m->ids[in.called + k]]++;
		s->hoisted[y] = j;
		s->inv[y] = 0;
		top--;
	}
	free(stack);
	free(ops);
}

static int
invariant(Licm *s, uint32_t body, uint32_t d)
{
	return s->m->comps[body].ins[d].op == HOP_CONSTANT ||
		s->hoisted[d] != HLO_NONE || s->inv[d];
}

/* uses of p that are not get-tuple-elements take prefix(p) instead */
static void
prefix_uses(HloModule *m, uint32_t c, uint32_t p, uint32_t n)
{
	uint32_t i, k, *g, t, cnt = m->comps[c].nins;
	int other = m->comps[c].root == p;

	for (i = 0; i < cnt && !other; i++) {
		const HloInstr *in = &m->comps[c].ins[i];

		if ((in->flags & HI_DEAD) || in->op == HOP_GTE)
			continue;
		for (k = 0; k < in->nops; k++)
			if (m->ids[in->ops + k] == p)
				other = 1;
	}
	if (!other)
		return;
	g = xreallocarray(NULL, n + 1, sizeof *g);
	for (k = 0; k < n; k++)
		g[k] = wu_gte(m, c, p, k, NULL);
	t = wu_tuple(m, c, n, g, NULL);
	for (i = 0; i < cnt; i++) {
		HloInstr *in = &m->comps[c].ins[i];

		if ((in->flags & HI_DEAD) || in->op == HOP_GTE)
			continue;
		for (k = 0; k < in->nops; k++)
			if (m->ids[in->ops + k] == p)
				m->ids[in->ops + k] = t;
	}
	if (m->comps[c].root == p)
		m->comps[c].root = t;
	free(g);
}

/* loop computation which (0 body, 1 condition) of w, cloned if shared */
static uint32_t
own(Licm *s, uint32_t c, uint32_t w, int which)
{
	HloModule *m = s->m;
	uint32_t comp = m->ids[m->comps[c].ins[w].called + which], cl, v[2];

	if (s->ncallers[comp] <= 1)
		return comp;
	cl = hlo_comp_clone(m, comp, ".licm");
	grow(s);
	s->fx[cl] = s->fx[comp];
	s->ncallers[comp]--;
	s->ncallers[cl] = 1;
	memcpy(v, m->ids + m->comps[c].ins[w].called, sizeof v);
	v[which] = cl;
	hlo_set_called(m, c, w, 2, v);
	return cl;
}

/* every use of from[j] in c (the root included) takes to[j] */
static void
replace_all(HloModule *m, uint32_t c, const uint32_t *from,
	const uint32_t *to, uint32_t k)
{
	HloComp *cp = &m->comps[c];
	uint32_t n = cp->nins, *map = xreallocarray(NULL, n + 1, sizeof *map);
	uint32_t i, j, d;

	for (i = 0; i < n; i++)
		map[i] = HLO_NONE;
	for (j = 0; j < k; j++)
		map[from[j]] = to[j];
	for (i = 0; i < n; i++) {
		HloInstr *in = &cp->ins[i];

		if (in->flags & HI_DEAD)
			continue;
		for (j = 0; j < in->nops; j++) {
			d = m->ids[in->ops + j];
			if (d < n && map[d] != HLO_NONE)
				m->ids[in->ops + j] = map[d];
		}
	}
	if (cp->root < n && map[cp->root] != HLO_NONE)
		cp->root = map[cp->root];
	free(map);
}

/* MakeInstructionsLiveIn, then the body uses the new elements */
static void
live_in(Licm *s, uint32_t c, uint32_t w, const uint32_t *repl,
	const uint32_t *body_x, uint32_t k)
{
	HloModule *m = s->m;
	uint32_t body = own(s, c, w, 0), cond = own(s, c, w, 1);
	const HloShape *sh = hlo_sh(m, m->comps[c].ins[w].shape);
	uint32_t n = sh->ntuple, j, *el, *ops, init, wide, p, root, *thr;
	HloInstr *ii;

	el = xreallocarray(NULL, n + k + 1, sizeof *el);
	ops = xreallocarray(NULL, n + k + 1, sizeof *ops);
	thr = xreallocarray(NULL, k + 1, sizeof *thr);
	memcpy(el, hlo_tuple_elems(m, sh), n * sizeof *el);
	for (j = 0; j < k; j++)
		el[n + j] = m->comps[c].ins[repl[j]].shape;
	wide = hlo_shape_tuple(m, n + k, el);
	init = m->ids[m->comps[c].ins[w].ops];
	ii = &m->comps[c].ins[init];
	for (j = 0; j < n; j++)
		ops[j] = ii->op == HOP_TUPLE && ii->nops == n ?
			m->ids[ii->ops + j] : wu_gte(m, c, init, j, NULL);
	memcpy(ops + n, repl, k * sizeof *ops);
	init = wu_tuple(m, c, n + k, ops, NULL);
	p = wu_param0(m, cond);
	m->comps[cond].ins[p].shape = wide;
	prefix_uses(m, cond, p, n);
	p = wu_param0(m, body);
	m->comps[body].ins[p].shape = wide;
	prefix_uses(m, body, p, n);
	root = m->comps[body].root;
	for (j = 0; j < n; j++)
		ops[j] = m->comps[body].ins[root].op == HOP_TUPLE ?
			m->ids[m->comps[body].ins[root].ops + j] :
			wu_gte(m, body, root, j, NULL);
	for (j = 0; j < k; j++)
		ops[n + j] = thr[j] = wu_gte(m, body, p, n + j, NULL);
	m->comps[body].root = wu_tuple(m, body, n + k, ops, NULL);
	replace_all(m, body, body_x, thr, k);
	prefix_uses(m, c, w, n);
	m->comps[c].ins[w].shape = wide;
	m->ids[m->comps[c].ins[w].ops] = init;
	s->touched[c] = s->touched[body] = s->touched[cond] = 1;
	free(el);
	free(ops);
	free(thr);
}

static int
try_hoist(Licm *s, uint32_t c, uint32_t w)
{
	HloModule *m = s->m;
	const HloInstr *wi = &m->comps[c].ins[w];
	uint32_t body, broot, bparam, n, i, k, cnt, x, *order, nrep = 0;
	uint32_t *repl, *body_x;
	uint8_t *ctl;
	int64_t ub;
	int any = 0;

	if (wi->nops != 1 || wi->ncalled != 2 ||
	    hlo_sh(m, wi->shape)->type != TY_TUPLE ||
	    pass_frontend_attr(m, wi, "_xla_disable_loop_instr_hoisting", &k))
		return 0;
	ub = wu_trip_upper(m, c, w);
	if (ub >= 0 && ub <= 1)
		return 0;
	body = m->ids[wi->called];
	broot = m->comps[body].root;
	bparam = wu_param0(m, body);
	if (bparam == HLO_NONE || !wu_is_tuple_op(m, body, broot) ||
	    wu_param0(m, m->ids[wi->called + 1]) == HLO_NONE)
		return 0;
	n = m->comps[body].nins;
	s->hoisted = pass_alloc(s->ctx, (n + 1) * sizeof *s->hoisted);
	s->inv = pass_zalloc(s->ctx, n + 1, 1);
	ctl = pass_zalloc(s->ctx, n + 1, 1);
	for (i = 0; i < n; i++)
		s->hoisted[i] = HLO_NONE;
	for (i = 0; i < m->comps[body].ins[broot].nops; i++) {
		const HloInstr *g;

		x = m->ids[m->comps[body].ins[broot].ops + i];
		g = &m->comps[body].ins[x];
		if (g->op == HOP_GTE && g->nops && m->ids[g->ops] == bparam &&
		    hlo_attr_int(m, g, A_INDEX, -1) == i &&
		    hlo_sh(m, g->shape)->type != TY_TUPLE &&
		    hlo_sh(m, g->shape)->type != TY_TOKEN)
			s->inv[x] = any = 1;
	}
	if (!any || bail_body(m, body))
		return 0;
	for (i = 0; i < n; i++) {
		const HloInstr *in = &m->comps[body].ins[i];

		if (in->flags & HI_DEAD)
			continue;
		if (in->nctrl)
			ctl[i] = 1;
		for (k = 0; k < in->nctrl; k++)
			if (m->ids[in->ctrl + k] < n)
				ctl[m->ids[in->ctrl + k]] = 1;
	}
	order = pass_alloc(s->ctx, (n + 1) * sizeof *order);
	repl = pass_alloc(s->ctx, (n + 1) * sizeof *repl);
	body_x = pass_alloc(s->ctx, (n + 1) * sizeof *body_x);
	cnt = pass_post_order(m, body, order, s->ctx);
	for (i = 0; i < cnt; i++) {
		const HloInstr *in;

		x = order[i];
		in = &m->comps[body].ins[x];
		if (pass_has_effect(m, in, s->fx, m->ncomps) ||
		    in->op == HOP_AFTERALL || in->op == HOP_PARAMETER ||
		    ctl[x])
			continue;
		for (k = 0; k < in->nops; k++)
			if (!invariant(s, body, m->ids[in->ops + k]))
				break;
		if (k < in->nops)
			continue;
		if (not_worth_alone(m, in)) {
			if (in->op != HOP_CONSTANT)
				s->inv[x] = 1;
			continue;
		}
		hoist(s, c, w, body, x);
		body_x[nrep] = x;
		repl[nrep++] = s->hoisted[x];
	}
	if (!nrep)
		return 0;
	live_in(s, c, w, repl, body_x, nrep);
	return 1;
}

int
pass_while_licm(HloModule *m, PassCtx *ctx)
{
	Licm s;
	PassCallers cg;
	uint32_t *order, *wl, nw, c, k;
	int n, changed = 0, r;

	memset(&s, 0, sizeof s);
	s.m = m;
	s.ctx = ctx;
	order = xreallocarray(NULL, m->ncomps + 1, sizeof *order);
	n = pass_comp_post_order(m, order);
	if (n < 0) {
		free(order);
		return pass_err_cycle(ctx, m, HLO_NONE);
	}
	grow(&s);
	memcpy(s.fx, pass_comp_effects(m, ctx), m->ncomps);
	pass_callers(m, &cg, ctx);
	for (c = 0; c < m->ncomps; c++)
		s.ncallers[c] = cg.start[c + 1] - cg.start[c];
	pass_reset(ctx);
	nw = wu_while_loops(m, order, n, 0, &wl);
	for (k = 0; k < nw; k++) {
		r = try_hoist(&s, wl[2 * k], wl[2 * k + 1]);
		ctx->stats.rewrites += r;
		changed |= r;
		pass_reset(ctx);
	}
	changed = pass_compact_touched(m, ctx, s.touched, changed);
	if (changed > 0 && (pass_dce_module(m, ctx) < 0 ||
	    pass_tuple_simplifier(m, ctx) < 0))
		changed = -1;
	free(order);
	free(wl);
	free(s.fx);
	free(s.ncallers);
	free(s.touched);
	return changed;
}
