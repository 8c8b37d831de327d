/* while_expensive_licm.c: "while-loop-expensive-invariant-code-motion",
 * xla's WhileLoopExpensiveInvariantCodeMotion
 * (xla/service/while_loop_expensive_invariant_code_motion.cc, jpli02/xla
 * c4cbd3c), with worth_hoisting_individually = dot or convolution (xla
 * has no default: its tests use dot) and sizes in bytes
 * (ShapeUtil::ByteSizeOfElements).
 *
 * For every while with a tuple state (computations callees first) whose
 * trip count is not known to be at most 1, and whose body holds no
 * domain nor the custom calls SPMDFullToShardShape/SPMDShardShapeToFull:
 * the invariant values start as the array get-tuple-elements of the body
 * parameter passed through unchanged to the same root position, each
 * with its byte size as transitive input size. In the body's post order,
 * an instruction without side effect, not a parameter, not the root,
 * without control dependencies, whose operands are all invariant, becomes
 * invariant; its transitive input size is the sum of its distinct
 * operands', and each distinct operand loses one remaining user (the root
 * does not count as one). It is hoisted when its output is no larger than
 * its transitive input, it is a dot or convolution, and every operand has
 * no remaining user in the body that stays there; otherwise it waits for
 * its blocking operands (their later users) and is hoisted when the last
 * one is resolved. A hoisted instruction is copied in front of the loop
 * with the invariant operands it needs (wu_licm_hoist, shared with
 * while-loop-invariant-code-motion), appended to the loop state
 * (wu_licm_live_in) and removed from the body with the operands nothing
 * else uses (ReplaceInstruction). No dce or tuple simplification
 * follows, unlike while-loop-invariant-code-motion.
 *
 * Must not fire: non-tuple loops, loops running at most once, bodies
 * with domains or SPMD shape conversions, groups whose result is larger
 * than their inputs or that contain no dot/convolution, instructions
 * with side effects or control dependencies (never hoisted, duplicated
 * or removed: a collective with a channel, an rng, a send stays in the
 * body). The work per loop is linear in the body (a user is blocked and
 * released once per operand slot).
 */
#include <stdlib.h>
#include <string.h>

#include "wutil.h"

typedef struct {
	int64_t size;		/* transitive input size */
	int64_t remaining;	/* users left in the body (root excluded) */
	uint32_t *blocked;	/* users waiting on this one */
	uint32_t nblocked, capblocked;
	int32_t waiting;	/* blocking operands left, -1 not waiting */
	uint8_t inv;		/* in invariant_instructions */
} Info;

typedef struct {
	WuLicm *s;
	uint32_t c, w, body;
	Info *info;
	uint32_t *repl, *body_x, nrep;
} Ex;

static int
bail(const HloModule *m, uint32_t b)
{
	const HloComp *cp = &m->comps[b];
	uint32_t i;

	for (i = 0; i < cp->nins; i++)
		if (!(cp->ins[i].flags & HI_DEAD) &&
		    (cp->ins[i].op == HOP_DOMAIN ||
		    pass_is_custom_call(m, &cp->ins[i], "SPMDFullToShardShape") ||
		    pass_is_custom_call(m, &cp->ins[i], "SPMDShardShapeToFull")))
			return 1;
	return 0;
}

static int64_t
out_size(const HloModule *m, uint32_t shape)
{
	const HloShape *sh = hlo_sh(m, shape);
	int64_t n = 0, b;
	uint32_t k;

	if (sh->type == TY_TUPLE) {
		for (k = 0; k < sh->ntuple; k++)
			n += out_size(m, hlo_tuple_elems(m, sh)[k]);
		return n;
	}
	if (sh->type == TY_TOKEN || sh->type == TY_OPAQUE)
		return 0;
	b = hlo_shape_bytes(m, shape);
	return b < 0 ? INT64_MAX / 4 : b;
}

static void
hoist(Ex *x, uint32_t i)
{
	if (x->s->hoisted[i] != HLO_NONE)
		return;
	wu_licm_hoist(x->s, x->c, x->w, x->body, i);
	x->body_x[x->nrep] = i;
	x->repl[x->nrep++] = x->s->hoisted[i];
}

static void
block(Info *op, uint32_t user)
{
	if (op->nblocked && op->blocked[op->nblocked - 1] == user)
		return;
	op->blocked = hlo_grow(op->blocked, op->nblocked, &op->capblocked, 2,
		sizeof *op->blocked);
	op->blocked[op->nblocked++] = user;
}

static void
release(Ex *x, Info *op)
{
	uint32_t k, u;

	for (k = 0; k < op->nblocked; k++) {
		u = op->blocked[k];
		if (x->info[u].waiting > 0 && --x->info[u].waiting == 0) {
			x->info[u].waiting = -1;
			hoist(x, u);
		}
	}
	op->nblocked = 0;
}

/* one instruction of the body's post order */
static void
visit(Ex *x, uint32_t i, const HloUsers *u, const uint8_t *ctl,
	uint32_t *stamp)
{
	HloModule *m = x->s->m;
	const HloInstr *in = &m->comps[x->body].ins[i];
	Info *inf = &x->info[i];
	uint32_t k, d, nblock = 0, prev = HLO_NONE;

	if (pass_has_effect(m, in, x->s->fx, m->ncomps) ||
	    in->op == HOP_PARAMETER || ctl[i] || i == m->comps[x->body].root)
		return;
	for (k = 0; k < in->nops; k++)
		if (!x->info[m->ids[in->ops + k]].inv)
			return;
	inf->inv = 1;
	for (k = u->start[i]; k < u->start[i + 1]; k++)
		if (u->list[k] != prev) {
			prev = u->list[k];
			inf->remaining++;
			if (prev == m->comps[x->body].root)
				inf->remaining--;
		}
	for (k = 0; k < in->nops; k++) {
		Info *op;

		d = m->ids[in->ops + k];
		op = &x->info[d];
		if (stamp[d] != i + 1) {
			stamp[d] = i + 1;
			inf->size += op->size;
			op->remaining--;
		}
		if (op->remaining == 0) {
			release(x, op);
		} else if (op->remaining > 0) {
			nblock++;
			block(op, i);
		}
	}
	if (out_size(m, in->shape) > inf->size ||
	    (in->op != HOP_DOT && in->op != HOP_CONV))
		return;
	if (nblock) {
		inf->waiting = (int32_t)nblock;
		return;
	}
	hoist(x, i);
}

static int
try_hoist(WuLicm *s, uint32_t c, uint32_t w)
{
	HloModule *m = s->m;
	uint32_t body, broot, bparam, n, i, k, cnt, *order, *stamp, g;
	uint8_t *ctl;
	HloUsers u;
	PassEdit ed;
	Ex x;
	int r = 0;

	body = wu_licm_body(m, c, w, &bparam);
	if (body == HLO_NONE || bail(m, body))
		return 0;
	broot = m->comps[body].root;
	n = m->comps[body].nins;
	memset(&x, 0, sizeof x);
	x.s = s;
	x.c = c;
	x.w = w;
	x.body = body;
	x.info = xcalloc(n + 1, sizeof *x.info);
	s->hoisted = pass_alloc(s->ctx, (n + 1) * sizeof *s->hoisted);
	s->inv = pass_zalloc(s->ctx, n + 1, 1);
	ctl = pass_zalloc(s->ctx, n + 1, 1);
	stamp = pass_zalloc(s->ctx, n + 1, sizeof *stamp);
	order = pass_alloc(s->ctx, (n + 1) * sizeof *order);
	x.repl = pass_alloc(s->ctx, (n + 1) * sizeof *x.repl);
	x.body_x = pass_alloc(s->ctx, (n + 1) * sizeof *x.body_x);
	hlo_users(m, body, &u);
	for (i = 0; i < n; i++) {
		s->hoisted[i] = HLO_NONE;
		x.info[i].waiting = -1;
	}
	pass_mark_ctrl(m, body, ctl);
	/* GetInvariantGTEsForWhileBody, arrays only */
	for (k = 0; k < m->comps[body].ins[broot].nops; k++) {
		const HloInstr *gi;
		uint32_t j, prev = HLO_NONE;

		g = m->ids[m->comps[body].ins[broot].ops + k];
		gi = &m->comps[body].ins[g];
		if (gi->op != HOP_GTE || !gi->nops || m->ids[gi->ops] != bparam ||
		    hlo_attr_int(m, gi, A_INDEX, -1) != k ||
		    hlo_sh(m, gi->shape)->type >= TY_TUPLE || x.info[g].inv)
			continue;
		x.info[g].inv = 1;
		x.info[g].size = out_size(m, gi->shape);
		for (j = u.start[g]; j < u.start[g + 1]; j++)
			if (u.list[j] != prev) {
				prev = u.list[j];
				x.info[g].remaining++;
			}
		x.info[g].remaining--;
	}
	cnt = pass_post_order(m, body, order, s->ctx);
	for (i = 0; i < cnt; i++)
		visit(&x, order[i], &u, ctl, stamp);
	hlo_users_free(&u);
	for (i = 0; i < n; i++)
		free(x.info[i].blocked);
	free(x.info);
	if (!x.nrep)
		return 0;
	wu_licm_live_in(s, c, w, x.repl, x.body_x, x.nrep);
	/* ReplaceInstruction in the (possibly cloned) body: each replaced
	 * instruction goes with the operands nothing else uses */
	body = m->ids[m->comps[c].ins[w].called];
	pass_edit_init(&ed, m, s->ctx, s->fx, m->ncomps);
	pass_edit_begin(&ed, body);
	for (i = 0; i < x.nrep; i++)
		pass_remove_cascade(&ed, x.body_x[i]);
	r = pass_edit_end(&ed) < 0 ? -1 : 1;
	pass_edit_free(&ed);
	return r;
}

int
pass_while_expensive_licm(HloModule *m, PassCtx *ctx)
{
	WuLicm s;
	uint32_t *order, *wl, nw, k;
	int n, changed = 0, r;

	order = xreallocarray(NULL, m->ncomps + 1, sizeof *order);
	n = pass_comp_post_order(m, order);
	if (n < 0) {
		free(order);
		return pass_err_cycle(ctx, m, HLO_NONE);
	}
	wu_licm_init(&s, m, ctx);
	nw = wu_while_loops(m, order, n, 0, wu_while_regular,
	    &wl);
	for (k = 0; k < nw && changed >= 0; k++) {
		r = try_hoist(&s, wl[2 * k], wl[2 * k + 1]);
		if (r < 0) {
			changed = -1;
			break;
		}
		ctx->stats.rewrites += r;
		changed |= r;
		pass_reset(ctx);
	}
	if (changed >= 0)
		changed = pass_compact_touched(m, ctx, s.touched, changed);
	free(order);
	free(wl);
	wu_licm_free(&s);
	return changed;
}
