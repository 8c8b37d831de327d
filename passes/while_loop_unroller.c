/* while_loop_unroller.c: "while_loop_unroller", xla's WhileLoopUnroller
 * with its default options (full unrolling, UnrollConfig's thresholds),
 * and "while_loop_unroller:wrapped" (wrap_in_trivial_loop=true).
 */
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "wutil.h"

/* UnrollConfig's defaults */
enum {
	TRIP_LIMIT = 64,	/* trip_count_threshold */
	BODY_LIMIT = 800,	/* instruction_count_threshold */
	EXPAND_LIMIT = 10000	/* expand_factor_threshold: trips * body */
};

typedef struct {
	uint32_t c, w;
	WuLoop lp;
} Unroll;

typedef struct {
	HloModule *m;
	PassCtx *ctx;
	uint8_t *fx;		/* pass_comp_effects */
	uint32_t nfx;
	uint8_t *sr;		/* per computation: 1 no send/recv, 2 some */
	uint8_t *succ;		/* of the computation being scanned: the
				 * instruction has control successors */
	uint32_t nsucc;
	int64_t channel;	/* the next free channel_id */
	int64_t group;		/* the largest _scheduling_group_id, -1
				 * none; INT64_MIN not looked for yet */
	/* pending replacements of unrolled loops, per computation: a list
	 * through next[], applied before the computation is copied and at
	 * the end */
	uint32_t *head;		/* per computation, index + 1 into rep */
	uint32_t (*rep)[3];	/* (while, replacement, next + 1) */
	uint32_t nrep, caprep;
	uint8_t *touched;	/* computations to compact */
	uint32_t ncomps;	/* head and touched cover these */
} Unroller;

/* hlo_query::ContainsInstrWithOpcode(comp, {send, send-done, recv,
 * recv-done}), through called computations */
static int
has_sendrecv(Unroller *u, uint32_t c)
{
	const HloComp *cp = &u->m->comps[c];
	uint32_t i, k;

	if (u->sr[c])
		return u->sr[c] == 2;
	u->sr[c] = 1;
	for (i = 0; i < cp->nins; i++) {
		const HloInstr *in = &cp->ins[i];

		if (in->flags & HI_DEAD)
			continue;
		if (in->op == HOP_SEND || in->op == HOP_SENDDONE ||
		    in->op == HOP_RECV || in->op == HOP_RECVDONE)
			return (u->sr[c] = 2) == 2;
		for (k = 0; k < in->ncalled; k++)
			if (u->m->ids[in->called + k] < u->m->ncomps &&
			    has_sendrecv(u, u->m->ids[in->called + k]))
				return (u->sr[c] = 2) == 2;
	}
	return 0;
}

/* u->succ for computation c */
static void
scan_succ(Unroller *u, uint32_t c)
{
	const HloComp *cp = &u->m->comps[c];
	uint32_t i, k, d;

	u->succ = xreallocarray(u->succ, cp->nins + 1, 1);
	memset(u->succ, 0, cp->nins + 1);
	u->nsucc = cp->nins;
	for (i = 0; i < cp->nins; i++)
		for (k = 0; !(cp->ins[i].flags & HI_DEAD) &&
		    k < cp->ins[i].nctrl; k++)
			if ((d = u->m->ids[cp->ins[i].ctrl + k]) < cp->nins)
				u->succ[d] = 1;
}

static int
is_custom(const HloModule *m, const HloInstr *in, const char *t)
{
	return in->op == HOP_CUSTOMCALL && pass_is_custom_call(m, in, t);
}

static uint32_t
live_count(const HloModule *m, uint32_t c)
{
	const HloComp *cp = &m->comps[c];
	uint32_t i, n = 0;

	for (i = 0; i < cp->nins; i++)
		n += !(cp->ins[i].flags & HI_DEAD);
	return n;
}

/* IsLoopUnrollable and InitialFeasibilityCheck: 1 if loop w of c is
 * unrolled, its analysis in lp */
static int
unrollable(Unroller *u, uint32_t c, uint32_t w, WuLoop *lp)
{
	HloModule *m = u->m;
	const HloInstr *in = &m->comps[c].ins[w];
	uint32_t body = m->ids[in->called], cond = m->ids[in->called + 1];
	uint32_t i, n;
	int64_t last;

	if (u->succ[w] || in->nctrl || has_sendrecv(u, body) ||
	    has_sendrecv(u, cond) ||
	    m->comps[c].ins[m->ids[in->ops]].op != HOP_TUPLE ||
	    (cond < u->nfx && u->fx[cond]) || wu_trivial_loop(m, c, w, lp) < 0)
		return 0;
	for (i = 0; i < m->comps[body].nins; i++) {
		const HloInstr *b = &m->comps[body].ins[i];

		if (!(b->flags & HI_DEAD) && (is_custom(m, b, "DynamicGte") ||
		    is_custom(m, b, "DynamicTuple")))
			return 0;
	}
	n = live_count(m, body);
	if (n > BODY_LIMIT || lp->trips > TRIP_LIMIT ||
	    lp->trips * n > EXPAND_LIMIT || lp->trips == 0)
		return 0;
	return !__builtin_mul_overflow(lp->trips - 1, lp->step, &last) &&
		!__builtin_add_overflow(lp->init, last, &last);
}

/* the pending replacements of computation c applied */
static void
flush(Unroller *u, uint32_t c)
{
	HloModule *m = u->m;
	uint32_t n = m->comps[c].nins, *map, i, r;

	if (!u->head[c])
		return;
	map = xreallocarray(NULL, n + 1, sizeof *map);
	for (i = 0; i < n; i++)
		map[i] = i;
	for (r = u->head[c]; r; r = u->rep[r - 1][2])
		map[u->rep[r - 1][0]] = u->rep[r - 1][1];
	hlo_forward(m, c, map);
	free(map);
	u->head[c] = 0;
}

static void
pend(Unroller *u, uint32_t c, uint32_t w, uint32_t r)
{
	u->rep = hlo_grow(u->rep, u->nrep, &u->caprep, 16, sizeof *u->rep);
	u->rep[u->nrep][0] = w;
	u->rep[u->nrep][1] = r;
	u->rep[u->nrep][2] = u->head[c];
	u->head[c] = ++u->nrep;
}

/* MakeScalarConstantWithShape(shape, v) added to c */
static uint32_t
iv_constant(HloModule *m, uint32_t c, uint32_t shape, int64_t v)
{
	unsigned char buf[8];
	int n = hlo_type_bytes(hlo_sh(m, shape)->type), k;
	uint32_t i;
	HloAttr a;

	for (k = 0; k < n && k < 8; k++)
		buf[k] = (unsigned char)((uint64_t)v >> (8 * k));
	a = hlo_mk_bytes(m, A_LITERAL, K_LITERAL, buf, n);
	i = hlo_instr_add(m, c, HOP_CONSTANT, shape,
		hlo_fresh_name(m, "constant"), 0, NULL);
	hlo_set_attrs(m, c, i, 1, &a);
	return i;
}

/* per body instruction: 1 a get-tuple-element(parameter(0)) of the
 * induction variable, 2 an add(get-tuple-element index=idx, constant),
 * whose operands ReplaceInductionVarUses leaves alone */
static uint8_t *
iv_marks(const HloModule *m, uint32_t body, int64_t idx)
{
	const HloComp *cp = &m->comps[body];
	uint32_t n = cp->nins, i, p = wu_param0(m, body);
	uint8_t *mk = xcalloc(n + 1, 1);

	for (i = 0; i < n; i++) {
		const HloInstr *in = &cp->ins[i];
		const HloInstr *a, *b;

		if (in->flags & HI_DEAD)
			continue;
		if (in->op == HOP_GTE && in->nops == 1 &&
		    m->ids[in->ops] == p &&
		    hlo_attr_int(m, in, A_INDEX, -1) == idx)
			mk[i] = 1;
		if (in->op != HOP_ADD || in->nops != 2)
			continue;
		a = &cp->ins[m->ids[in->ops]];
		b = &cp->ins[m->ids[in->ops + 1]];
		if (a->op == HOP_GTE && hlo_attr_int(m, a, A_INDEX, -1) == idx &&
		    b->op == HOP_CONSTANT)
			mk[i] = 2;
	}
	return mk;
}

/* the integer _scheduling_group_id of in, -1 if none */
static int64_t
group_of(const HloModule *m, const HloInstr *in)
{
	uint32_t n, k;
	const char *v;
	int64_t g = 0;

	if (!in->nattrs || !(v = pass_frontend_attr(m, in,
	    "_scheduling_group_id", &n)) || n == 0 || n > 18)
		return -1;
	for (k = 0; k < n; k++) {
		if (v[k] < '0' || v[k] > '9')
			return -1;
		g = 10 * g + (v[k] - '0');
	}
	return g;
}

/* instruction j of c (a copy) gets _scheduling_group_id g */
static void
set_group(HloModule *m, uint32_t c, uint32_t j, int64_t g)
{
	const HloInstr *in = &m->comps[c].ins[j];
	uint32_t n, len;
	const char *v = pass_frontend_attr(m, in, "_scheduling_group_id", &n);
	const char *s = hlo_attr_word(m, in, A_FRONTEND_ATTRIBUTES, &len);
	char num[24], *buf;
	int k = snprintf(num, sizeof num, "%lld", (long long)g);
	size_t pre = (size_t)(v - s);
	HloAttr a;

	buf = xmalloc(len + sizeof num);
	memcpy(buf, s, pre);
	memcpy(buf + pre, num, k);
	memcpy(buf + pre + k, v + n, len - pre - n);
	a = hlo_mk_bytes(m, A_FRONTEND_ATTRIBUTES, K_RAW, buf,
		len - n + k);
	free(buf);
	hlo_attr_set(m, c, j, &a);
}

/* per body instruction with a _scheduling_group_id, in the body's order:
 * how many distinct groups were seen up to it (its own included); 0
 * without one. *ngroups: the distinct groups */
static uint32_t *
group_ranks(const HloModule *m, uint32_t body, uint32_t *ngroups)
{
	const HloComp *cp = &m->comps[body];
	uint32_t *rk = xcalloc(cp->nins + 1, sizeof *rk), i, k, nseen = 0;
	int64_t *seen = xreallocarray(NULL, cp->nins + 1, sizeof *seen), g;

	for (i = 0; i < cp->nins; i++) {
		if ((cp->ins[i].flags & HI_DEAD) ||
		    (g = group_of(m, &cp->ins[i])) < 0)
			continue;
		for (k = 0; k < nseen && seen[k] != g; k++)
			;
		if (k == nseen)
			seen[nseen++] = g;
		rk[i] = nseen;
	}
	free(seen);
	*ngroups = nseen;
	return rk;
}

/* the largest _scheduling_group_id in the module, -1 if none
 * (NextSchedulingGroupId - 1) */
static int64_t
max_group(const HloModule *m)
{
	uint32_t c, i;
	int64_t mx = -1, g;

	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++)
			if (!(m->comps[c].ins[i].flags & HI_DEAD) &&
			    (g = group_of(m, &m->comps[c].ins[i])) > mx)
				mx = g;
	return mx;
}

/* one iteration: every live instruction of body copied into c in
 * topological order, parameter 0 standing for arg and the uses of the
 * induction variable (but by its increment) for the constant v; collectives
 * get fresh channel ids. Returns the copy of the root. */
static uint32_t
iteration(Unroller *u, uint32_t c, uint32_t body, const uint32_t *order,
	int cnt, const uint8_t *mk, const uint32_t *rk, uint32_t arg,
	uint32_t ivshape, int64_t v)
{
	HloModule *m = u->m;
	uint32_t n = m->comps[body].nins, *map, *buf, cap = 16, k, d, x, j;
	uint32_t konst = HLO_NONE;
	int i;

	map = xreallocarray(NULL, n + 1, sizeof *map);
	buf = xreallocarray(NULL, cap, sizeof *buf);
	for (i = 0; i < cnt; i++) {
		HloInstr in;

		x = order[i];
		in = m->comps[body].ins[x];
		if (in.op == HOP_PARAMETER) {
			map[x] = arg;
			continue;
		}
		if (in.nops + in.nctrl > cap) {
			cap = in.nops + in.nctrl;
			buf = xreallocarray(buf, cap, sizeof *buf);
		}
		for (k = 0; k < in.nops; k++) {
			d = m->ids[in.ops + k];
			if (mk[d] == 1 && mk[x] != 2) {
				if (konst == HLO_NONE)
					konst = iv_constant(m, c, ivshape, v);
				buf[k] = konst;
			} else {
				buf[k] = map[d];
			}
		}
		j = pass_copy_instr(m, c, body, x, in.nops, buf);
		for (k = 0; k < in.nctrl; k++)
			buf[k] = map[m->ids[in.ctrl + k]];
		if (in.nctrl)
			hlo_set_ctrl(m, c, j, in.nctrl, buf);
		map[x] = j;
	}
	/* channel ids in the body's instruction order */
	for (x = 0; x < n; x++) {
		const HloInstr *in = &m->comps[body].ins[x];
		HloAttr a;

		if ((in->flags & HI_DEAD) ||
		    !(hlo_opinfo[in->op].flags & OPF_COLL) ||
		    !hlo_attr(m, in, A_CHANNEL_ID))
			continue;
		a = hlo_mk_int(A_CHANNEL_ID, u->channel++);
		hlo_attr_set(m, c, map[x], &a);
	}
	/* scheduling groups: xla counts from NextSchedulingGroupId, one up
	 * at each group first seen in the trip */
	for (x = 0; x < n; x++)
		if (rk[x] && !(m->comps[body].ins[x].flags & HI_DEAD))
			set_group(m, c, map[x], u->group + 1 + rk[x]);
	j = map[m->comps[body].root];
	free(map);
	free(buf);
	return j;
}

/* the iterations of loop (c, w) chained from arg, copied into d; the
 * copy of the last root */
static uint32_t
iterations(Unroller *u, uint32_t c, uint32_t w, const WuLoop *lp,
	uint32_t d, uint32_t arg)
{
	HloModule *m = u->m;
	uint32_t body = m->ids[m->comps[c].ins[w].called], init, ivshape;
	uint32_t *order;
	uint8_t *mk;
	int64_t t;
	uint32_t *rk, ng;
	int cnt;

	flush(u, body);
	init = m->ids[m->comps[c].ins[w].ops];
	ivshape = m->comps[c].ins[m->ids[m->comps[c].ins[init].ops +
		lp->idx]].shape;
	order = xreallocarray(NULL, m->comps[body].nins + 1, sizeof *order);
	cnt = hlo_topo(m, body, order);
	mk = iv_marks(m, body, lp->idx);
	rk = group_ranks(m, body, &ng);
	if (ng && u->group == INT64_MIN)
		u->group = max_group(m);
	for (t = 0; t < lp->trips; t++) {
		arg = iteration(u, d, body, order, cnt, mk, rk, arg, ivshape,
			lp->init + t * lp->step);
		u->group += ng;
	}
	/* the next loop's NextSchedulingGroupId is one past the last */
	u->group += ng ? 1 : 0;
	free(order);
	free(mk);
	free(rk);
	return arg;
}

/* a computation named base<name of w><tail>, fresh */
static uint32_t
new_comp(HloModule *m, const char *base, uint32_t c, uint32_t w,
	const char *tail)
{
	char buf[300];

	snprintf(buf, sizeof buf, "%s%.200s%s", base,
		hlo_cstr(m, m->comps[c].ins[w].name), tail);
	return hlo_comp_add(m, pass_unique_name(m, buf));
}

/* a parameter 0 of computation d shaped as parameter 0 of s */
static uint32_t
param_like(HloModule *m, uint32_t d, uint32_t s)
{
	uint32_t p = wu_param0(m, s), j;

	j = hlo_instr_add(m, d, HOP_PARAMETER, m->comps[s].ins[p].shape,
		hlo_fresh_name(m, hlo_cstr(m, m->comps[s].ins[p].name)), 0,
		NULL);
	m->comps[d].ins[j].num = 0;
	return j;
}

/* UnrollInternalWrapped: a while with the same init whose body is the
 * unrolled iterations and whose condition is i <= init (one trip) */
static uint32_t
wrapped(Unroller *u, uint32_t c, uint32_t w, const WuLoop *lp)
{
	HloModule *m = u->m;
	const HloInstr *win = &m->comps[c].ins[w];
	uint32_t oldcond = m->ids[win->called + 1], ops[2], called[2];
	uint32_t body, cond, p, g, k, cmp, nw;
	HloAttr a;

	body = new_comp(m, "unrolled-body-", c, w, "");
	p = param_like(m, body, m->ids[m->comps[c].ins[w].called]);
	m->comps[body].root = iterations(u, c, w, lp, body, p);
	cond = new_comp(m, "unrolled", c, w, "-cond");
	p = param_like(m, cond, oldcond);
	g = wu_gte(m, cond, p, lp->idx, NULL);
	k = iv_constant(m, cond, m->comps[cond].ins[g].shape, lp->init);
	ops[0] = g;
	ops[1] = k;
	cmp = hlo_instr_add(m, cond, HOP_COMPARE, hlo_shape_scalar(m, TY_PRED),
		hlo_fresh_name(m, "compare"), 2, ops);
	a = hlo_mk_bytes(m, A_DIRECTION, K_WORD, "LE", 2);
	hlo_set_attrs(m, cond, cmp, 1, &a);
	m->comps[cond].root = cmp;
	win = &m->comps[c].ins[w];
	ops[0] = m->ids[win->ops];
	called[0] = body;
	called[1] = cond;
	nw = hlo_instr_add(m, c, HOP_WHILE, win->shape,
		hlo_fresh_name(m, "while"), 1, ops);
	hlo_set_called(m, c, nw, 2, called);
	win = &m->comps[c].ins[w];
	for (k = 0; k < win->nattrs; k++) {
		a = m->attrv[win->attrs + k];
		if (a.key == A_METADATA || a.key == A_FRONTEND_ATTRIBUTES ||
		    a.key == A_SHARDING || a.key == A_STATISTICS)
			hlo_attr_set(m, c, nw, &a);
		win = &m->comps[c].ins[w];
	}
	return nw;
}

/* the loops of every computation but fusions, callees first, decided
 * before any is unrolled (GetUnrollableLoops) */
static uint32_t
collect(Unroller *u, Unroll **out)
{
	HloModule *m = u->m;
	uint32_t *order, *wl, nw, k, nl = 0, last = HLO_NONE;
	Unroll *l;
	int n;

	if (!(order = pass_comps_in_post_order(m, u->ctx, &n)))
		return UINT32_MAX;
	nw = wu_while_loops(m, order, n, 0, wu_while_regular,
	    &wl);
	l = xreallocarray(NULL, nw + 1, sizeof *l);
	for (k = 0; k < nw; k++) {
		if (wl[2 * k] != last)
			scan_succ(u, last = wl[2 * k]);
		if (!unrollable(u, wl[2 * k], wl[2 * k + 1], &l[nl].lp))
			continue;
		l[nl].c = wl[2 * k];
		l[nl++].w = wl[2 * k + 1];
	}
	free(order);
	free(wl);
	*out = l;
	return nl;
}

/* HloCSE(layout sensitive, only scalars), TupleSimplifier and
 * HloPassFix<WhileLoopConstantSinking(true, true)> */
static int
prepare(HloModule *m, PassCtx *ctx)
{
	PassOptions save = ctx->opt;
	int changed = 0, r, k;

	ctx->opt.cse_layout_sensitive = 1;
	ctx->opt.cse_only_scalars = 1;
	r = pass_cse(m, ctx);
	ctx->opt = save;
	pass_reset(ctx);
	if (r < 0)
		return -1;
	changed |= r;
	if ((r = pass_tuple_simplifier(m, ctx)) < 0)
		return -1;
	pass_reset(ctx);
	changed |= r;
	ctx->opt.sink_scalar_or_bcast = 1;
	for (k = 0; k < PASS_FIX_LIMIT; k++) {
		r = pass_while_const_sinking(m, ctx);
		pass_reset(ctx);
		if (r <= 0)
			break;
		changed = 1;
	}
	ctx->opt = save;
	return r < 0 ? -1 : changed;
}

/* the largest channel_id */
static int64_t
max_channel(const HloModule *m)
{
	uint32_t c, i;
	int64_t mx = 0, v;

	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++) {
			const HloInstr *in = &m->comps[c].ins[i];

			if (!(in->flags & HI_DEAD) && in->nattrs &&
			    hlo_attr(m, in, A_CHANNEL_ID) &&
			    (v = hlo_attr_int(m, in, A_CHANNEL_ID, 0)) > mx)
				mx = v;
		}
	return mx;
}

/* head and touched grown to the computations there are now */
static void
grow(Unroller *u)
{
	uint32_t n = u->m->ncomps;

	if (n <= u->ncomps)
		return;
	u->head = xreallocarray(u->head, n + 1, sizeof *u->head);
	u->touched = xreallocarray(u->touched, n + 1, 1);
	memset(u->head + u->ncomps, 0, (n + 1 - u->ncomps) * sizeof *u->head);
	memset(u->touched + u->ncomps, 0, n + 1 - u->ncomps);
	u->ncomps = n;
}

/* WhileLoopUnroller::Run (xla/service/while_loop_unroller.cc at openxla/xla
 * 0991d9f18dd3, with while_loop_unroller_test.cc), unroll_factor -1:
 *
 * First PrepareModuleForUnrolling: cse (layout sensitive, scalars only),
 * tuple-simplifier and a fixed point of while-loop-constant-sinking
 * sinking scalar constants and scalar broadcasts of constants; what they
 * change counts as a change. Then, deciding every loop first (callees'
 * loops before their callers', fusion computations passed over), a while
 * is fully unrolled when: no instruction has it as a control predecessor;
 * neither body nor condition (nor anything they call) has a send, recv,
 * send-done or recv-done; its operand is a tuple instruction; its
 * condition has no side effect; it has an induction variable whose init
 * evaluates from constant operands and a trip count and step by
 * MatchTrivialLoopTripCount / MatchTrivialLoopInductionStep (i += k,
 * k > 0, against a constant with LT or LE); and (UnrollConfig) the trip
 * count is at most 64, the body at most 800 instructions and their
 * product at most 10000. Unrolling copies the body once per trip into the
 * loop's computation, chained from the init tuple, with every use of
 * get-tuple-element(parameter(0)) of the induction variable but an
 * add(get-tuple-element, constant) replaced by the trip's value init +
 * t * step (a constant of the induction variable's shape); collectives
 * with a channel_id get fresh ones (side effects and collectives are
 * duplicated once per trip, as the loop ran them); the last copy of the
 * root replaces the while. If anything changed, dce runs over the module.
 *
 * Where hlopt differs: a while with control predecessors is left (xla's
 * ReplaceInstruction fails on it), and so is one with a trip count of 0
 * (xla replaces it with an uninitialised instruction) and one whose body
 * has DynamicGte/DynamicTuple custom-calls (xla rewrites them with its
 * evaluator); collectives inside fusions keep their channel_id (the
 * fused computation is shared by the copies, xla clones it). Integer
 * _scheduling_group_id frontend attributes are renumbered as xla does:
 * from one past NextSchedulingGroupId (the largest id + 1), one up per
 * group first seen in a trip. */
int
pass_while_loop_unroller(HloModule *m, PassCtx *ctx)
{
	Unroller u;
	Unroll *l = NULL;
	uint32_t nl, k, c, r;
	int changed;

	if ((changed = prepare(m, ctx)) < 0)
		return -1;
	memset(&u, 0, sizeof u);
	u.m = m;
	u.ctx = ctx;
	u.nfx = m->ncomps;
	u.fx = xmalloc(m->ncomps + 1);
	memcpy(u.fx, pass_comp_effects(m, ctx), m->ncomps);
	pass_reset(ctx);
	u.sr = xcalloc(m->ncomps + 1, 1);
	nl = collect(&u, &l);
	if (nl == UINT32_MAX) {
		changed = -1;
		goto out;
	}
	u.channel = max_channel(m) + 1;
	u.group = INT64_MIN;
	grow(&u);
	for (k = 0; k < nl; k++) {
		c = l[k].c;
		r = ctx->opt.unroll_wrap ? wrapped(&u, c, l[k].w, &l[k].lp) :
			iterations(&u, c, l[k].w, &l[k].lp, c,
			m->ids[m->comps[c].ins[l[k].w].ops]);
		grow(&u);
		pend(&u, c, l[k].w, r);
		m->comps[c].ins[l[k].w].flags |= HI_DEAD;
		u.touched[c] = 1;
		ctx->stats.rewrites++;
		changed = 1;
	}
	for (c = 0; c < m->ncomps && nl; c++) {
		flush(&u, c);
		if (u.touched[c] && hlo_comp_compact(m, c) < 0) {
			changed = pass_err_cycle(ctx, m, c);
			goto out;
		}
	}
	if (changed && pass_dce_module(m, ctx) < 0)
		changed = -1;
out:
	free(l);
	free(u.fx);
	free(u.sr);
	free(u.succ);
	free(u.head);
	free(u.rep);
	free(u.touched);
	return changed;
}

