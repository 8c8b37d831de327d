/* wutil_licm.c: the machinery of the loop-invariant code motion passes
 * (while_licm.c, while_expensive_licm.c): xla's
 * WhileUtil::CreateLoopInvariantCopy (copying an invariant instruction
 * and the invariant operands it needs in front of the loop) and
 * WhileUtil::MakeInstructionsLiveIn (appending values to the loop state
 * so that the body reads them from its parameter), with the
 * bookkeeping they share: side effects per computation, callers per
 * computation (a shared body or condition is cloned for the loop being
 * changed), the computations touched.
 */
#include <stdlib.h>
#include <string.h>

#include "wutil.h"

void
wu_licm_grow(WuLicm *s)
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

uint32_t
wu_licm_body(const HloModule *m, uint32_t c, uint32_t w, uint32_t *bparam)
{
	const HloInstr *wi = &m->comps[c].ins[w];
	int64_t ub;
	uint32_t body;

	if (wi->nops != 1 || wi->ncalled != 2 ||
	    hlo_sh(m, wi->shape)->type != TY_TUPLE)
		return HLO_NONE;
	ub = wu_trip_upper(m, c, w);
	if (ub >= 0 && ub <= 1)
		return HLO_NONE;
	body = m->ids[wi->called];
	*bparam = wu_param0(m, body);
	if (*bparam == HLO_NONE || !wu_is_tuple_op(m, body,
	    m->comps[body].root) || wu_param0(m, m->ids[wi->called + 1]) ==
	    HLO_NONE)
		return HLO_NONE;
	return body;
}

int
wu_licm_bail_body(const HloModule *m, uint32_t b)
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

/* WhileUtil::CreateLoopInvariantCopy: copies x and the invariant
 * operands it needs into the caller c */
void
wu_licm_hoist(WuLicm *s, uint32_t c, uint32_t w, uint32_t body, uint32_t x)
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

/* uses of p that are not get-tuple-elements take prefix(p) instead */
static void
prefix_uses(HloModule *m, uint32_t c, uint32_t p, uint32_t n)
{
	uint32_t i, k, *g, t, cnt = m->comps[c].nins;
	int other = m->comps[c].root == p;

	for (i = 0; i < cnt && !other; i++)
		other = m->comps[c].ins[i].op != HOP_GTE &&
			wu_uses(m, &m->comps[c].ins[i], p);
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
own(WuLicm *s, uint32_t c, uint32_t w, int which)
{
	HloModule *m = s->m;
	uint32_t comp = m->ids[m->comps[c].ins[w].called + which], cl, v[2];

	if (s->ncallers[comp] <= 1)
		return comp;
	cl = hlo_comp_clone(m, comp, ".licm");
	wu_licm_grow(s);
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
void
wu_licm_live_in(WuLicm *s, uint32_t c, uint32_t w, const uint32_t *repl,
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

void
wu_licm_init(WuLicm *s, HloModule *m, PassCtx *ctx)
{
	PassCallers cg;
	uint32_t c;

	memset(s, 0, sizeof *s);
	s->m = m;
	s->ctx = ctx;
	wu_licm_grow(s);
	memcpy(s->fx, pass_comp_effects(m, ctx), m->ncomps);
	pass_callers(m, &cg, ctx);
	for (c = 0; c < m->ncomps; c++)
		s->ncallers[c] = cg.start[c + 1] - cg.start[c];
	pass_reset(ctx);
}

void
wu_licm_free(WuLicm *s)
{
	free(s->fx);
	free(s->ncallers);
	free(s->touched);
}
