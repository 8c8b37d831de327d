/* multi_output_fusion.c: xla:GPU's MultiOutputFusion
 * (xla/service/gpu/transforms/multi_output_fusion.cc and gpu_fusible.cc
 * at jpli02/xla c4cbd3c3453569a9c3c1cfdc8a9105b442aab38f; its cases in
 * multi_output_fusion_test.cc), as two actions sharing gpu_fusible.cc's
 * questions: "multi_output_fusion:producer-consumer" (its
 * producer-consumer half) and "multi_output_fusion" (its sibling half,
 * at the end of this file). xla runs both in one walk, per producer;
 * the xla-gpu strategy runs the sibling action, then the other.
 *
 * Producer-consumer contract. In every computation xla fuses in, producers are taken from
 * the end of the post order. A producer fuses into one of its consumers
 * while keeping its own output when it is not a constant, custom fusion or
 * multi-output fusion; is loop-fusible (elementwise with operands, not a
 * copy; bitcast, broadcast, concatenate, dynamic-slice, gather, iota, pad,
 * reduce-window, reshape, reverse, slice, transpose, a non-variadic
 * reduce, a kLoop fusion) with no side effect and no in-place operation
 * (dynamic-update-slice, scatter); does not transpose physically (copy,
 * non-bitcast transpose); and has several users (or one multi-output
 * fusion). The consumer must be fusible as a multi-output root (an
 * elementwise instruction, a kLoop fusion, a reduction from or to
 * contiguous dimensions or a fusion rooted in one); its loop shape (a
 * reduction's input, else its output) must equal the producer's,
 * element type aside, or be a bitcast of it; no other operand of the
 * consumer may be reachable from the producer (a cycle); together they
 * have at most 8 unnested reductions, 48 KiB of shared memory and 96
 * operands and outputs. Of the consumers that pass, multi-output
 * fusions are preferred, then fusions, then the first. A plain consumer
 * first becomes a fusion (kInput for a reduction, else kLoop); the
 * producer is cloned into the consumer's fused computation, its operands
 * become operands of the fusion, and, when other users remain, the root
 * becomes a tuple with the producer's value last, which the other users
 * read through a get-tuple-element (and the consumer's old users through
 * index 0).
 *
 * Not done as xla: the cost model (GpuPerformanceModel, huge-IR check)
 * is left out: every legal fusion is made; tiled transposes are not
 * recognised (a copy or transposing producer never fuses anyway);
 * instructions with control dependencies never fuse; a consumer fusion
 * whose computation another fusion also calls, a multi-output consumer
 * read other than through get-tuple-elements and a plain tuple-shaped
 * consumer are passed over.
 */
#include <stdlib.h>
#include <string.h>

#include "fusion_edit.h"

enum { MAX_OPERANDS = 96, MAX_UNNESTED = 8, SHARED_BYTES = 48 * 1024,
	WARP = 32, REACH_BUDGET = 4096 };

typedef struct {
	FuEdit e;
	uint32_t *mark;		/* per instruction: reached from the producer */
	unsigned char *big;	/* per instruction: reaches > REACH_BUDGET */
	uint32_t capmark, stamp;
	uint32_t *stack;
	uint32_t *from;		/* per instruction: whose user reach found it */
	uint32_t capstack;
} Mp;

#define M(p) ((p)->e.m)
#define INS(p, x) (&M(p)->comps[(p)->e.c].ins[x])

/* reductions */

/* FindNonTrivialHero, for reductions: from x of fc down through
 * bitcasts, reshapes and converts with one operand */
static uint32_t
reduce_hero(const HloModule *m, uint32_t fc, uint32_t x)
{
	const HloInstr *in = hlo_ins(m, fc, x);
	int row;

	while ((in->op == HOP_BITCAST || in->op == HOP_RESHAPE ||
	    in->op == HOP_CONVERT || in->op == HOP_BITCASTCVT) &&
	    in->nops == 1) {
		x = hlo_ops(m, in)[0];
		in = hlo_ins(m, fc, x);
	}
	return fu_contiguous_reduce(m, fc, x, &row) ? x : HLO_NONE;
}

/* GetRealHeroForMultiOutputFusion: its computation in *hc */
static uint32_t
hero(const HloModule *m, uint32_t c, uint32_t x, uint32_t *hc)
{
	uint32_t fc, r, k, h;
	const HloInstr *ri;

	*hc = c;
	if (hlo_ins(m, c, x)->op != HOP_FUSION)
		return x;
	fc = fu_fused_comp(m, c, x);
	*hc = fc;
	r = m->comps[fc].root;
	ri = &m->comps[fc].ins[r];
	if (ri->op != HOP_TUPLE)
		return (h = reduce_hero(m, fc, r)) != HLO_NONE ? h : r;
	for (k = 0; k < ri->nops; k++)
		if ((h = reduce_hero(m, fc, hlo_ops(m, ri)[k])) != HLO_NONE)
			return h;
	return ri->nops ? hlo_ops(m, ri)[0] : r;
}

/* IsInputFusibleReduction */
static int
input_reduction(const HloModule *m, uint32_t c, uint32_t x)
{
	uint32_t hc, h = hero(m, c, x, &hc);
	int row;

	return fu_contiguous_reduce(m, hc, h, &row);
}

/* reductions and shared memory (SharedMemoryUsage) of x */
static void
reduce_usage(const HloModule *m, uint32_t c, uint32_t x, int64_t *nred,
	int64_t *shmem)
{
	uint32_t fc, i, n = 1, at = x;
	const HloInstr *in;
	int row;

	if (hlo_ins(m, c, x)->op == HOP_FUSION) {
		fc = fu_fused_comp(m, c, x);
		c = fc;
		at = 0;
		n = m->comps[fc].nins;
	}
	for (i = at; i < at + n; i++) {
		in = hlo_ins(m, c, i);
		if ((in->flags & HI_DEAD) || !fu_contiguous_reduce(m, c, i,
		    &row))
			continue;
		(*nred)++;
		*shmem += (row ? WARP : 2 * WARP * (WARP + 1)) *
			(int64_t)hlo_type_bytes(hlo_sh(m, hlo_ins(m, c,
			hlo_ops(m, in)[0])->shape)->type) * (in->nops / 2);
	}
}

/* opcode classes */

/* HloInstruction::IsFusible (and no control dependencies) */
static int
fusible(Mp *p, uint32_t x)
{
	const HloInstr *in = INS(p, x);

	if (p->e.ctl[x])
		return 0;
	switch (in->op) {
	case HOP_DOMAIN: case HOP_PARAMETER: case HOP_WHILE:
	case HOP_CONDITIONAL: case HOP_CALL:
		return 0;
	case HOP_FUSION:
		return fu_is_fusion(M(p), p->e.c, x, -1);
	case HOP_MAP: case HOP_REDUCE: case HOP_REDUCEWINDOW:
		return 1;
	case HOP_RNG:
		return p->e.usr[x].n <= 1;
	default:
		return !pass_has_effect(M(p), in, p->e.fx, p->e.nfx);
	}
}

static int
universally_loop_fusible(Mp *p, uint32_t x)
{
	const HloInstr *in = INS(p, x);

	if (fu_elementwise(in) && in->nops > 0 && in->op != HOP_COPY)
		return 1;
	switch (in->op) {
	case HOP_COPY:
		return pass_copy_is_bitcast(M(p), INS(p, hlo_ops(M(p),
			in)[0])->shape, in->shape);
	case HOP_FUSION:
		return fu_kind(M(p), in) == FK_LOOP;
	case HOP_BITCAST: case HOP_BROADCAST: case HOP_CONCAT:
	case HOP_DYNSLICE: case HOP_DYNUPDSLICE: case HOP_GATHER:
	case HOP_PAD: case HOP_REDUCEWINDOW: case HOP_RESHAPE:
	case HOP_REVERSE: case HOP_SLICE: case HOP_TRANSPOSE:
		return 1;
	default:
		return 0;
	}
}

static int
transposing(const HloModule *m, uint32_t c, uint32_t x)
{
	const HloInstr *in = hlo_ins(m, c, x);
	uint32_t n, fc, i;
	const int64_t *perm;

	if (in->op == HOP_FUSION) {
		fc = fu_fused_comp(m, c, x);
		for (i = 0; i < m->comps[fc].nins; i++)
			if (!(m->comps[fc].ins[i].flags & HI_DEAD) &&
			    transposing(m, fc, i))
				return 1;
		return 0;
	}
	if (in->op == HOP_COPY)
		return 1;
	if (in->op != HOP_TRANSPOSE)
		return 0;
	perm = hlo_attr_ints(m, in, A_DIMENSIONS, &n);
	return !perm || !pass_transpose_is_bitcast(m, hlo_ins(m, c,
		hlo_ops(m, in)[0])->shape, in->shape, perm, n);
}

/* GetInPlaceInputOutputPairs is not empty */
static int
in_place(const HloModule *m, uint32_t c, uint32_t x)
{
	const HloInstr *in = hlo_ins(m, c, x);
	uint32_t fc, r, k;

	if (in->op == HOP_DYNUPDSLICE || in->op == HOP_SCATTER)
		return 1;
	if (in->op != HOP_FUSION)
		return 0;
	fc = fu_fused_comp(m, c, x);
	r = m->comps[fc].root;
	in = &m->comps[fc].ins[r];
	if (in->op != HOP_TUPLE)
		return in_place(m, fc, r);
	for (k = 0; k < in->nops; k++)
		if (in_place(m, fc, hlo_ops(m, in)[k]))
			return 1;
	return 0;
}

/* IsProducerMultiOutputFusible */
static int
producer_ok(Mp *p, uint32_t x)
{
	HloModule *m = M(p);
	const HloInstr *in = INS(p, x);
	int loop;

	if (in->op == HOP_CONSTANT || !fusible(p, x))
		return 0;
	if (in->op == HOP_FUSION && (fu_kind(m, in) > FK_OUTPUT ||
	    fu_multi_output(m, p->e.c, x)))
		return 0;
	if (in_place(m, p->e.c, x))
		return 0;
	loop = in->op == HOP_IOTA || (in->op == HOP_REDUCE &&
		hlo_sh(m, in->shape)->type < TY_TUPLE) ||
		universally_loop_fusible(p, x);
	return loop && !transposing(m, p->e.c, x);
}

/* IsFusibleAsMultiOutputFusionRoot */
static int
root_ok(Mp *p, uint32_t x)
{
	HloModule *m = M(p);
	const HloInstr *in = INS(p, x);

	if (!fusible(p, x))
		return 0;
	if (in->op == HOP_FUSION && fu_kind(m, in) > FK_OUTPUT)
		return 0;
	return input_reduction(m, p->e.c, x) || (in->op == HOP_FUSION &&
		fu_kind(m, in) == FK_LOOP) || (fu_elementwise(in) &&
		in->op != HOP_FUSION);
}

static uint32_t
loop_shape(const HloModule *m, uint32_t hc, uint32_t h)
{
	const HloInstr *in = hlo_ins(m, hc, h);
	int row;

	if (fu_contiguous_reduce(m, hc, h, &row))
		return hlo_ins(m, hc, hlo_ops(m, in)[0])->shape;
	return in->shape;
}

/* ShapesCompatibleForMultiOutputFusion */
static int
shapes_ok(Mp *p, uint32_t a, uint32_t b)
{
	HloModule *m = M(p);
	uint32_t ca, cb, ha = hero(m, p->e.c, a, &ca), hb = hero(m, p->e.c, b,
		&cb), la, lb;
	int ra, rb, row;
	uint32_t na, nb;
	const int64_t *da, *db;

	ra = fu_contiguous_reduce(m, ca, ha, &row);
	rb = fu_contiguous_reduce(m, cb, hb, &row);
	if (ra && rb) {		/* AreReductionsMultiOutputFusionCompatible */
		const HloInstr *ia = hlo_ins(m, ca, ha), *ib = hlo_ins(m, cb, hb);

		da = hlo_attr_list(m, ia, A_DIMENSIONS, &na);
		db = hlo_attr_list(m, ib, A_DIMENSIONS, &nb);
		if (na != nb || memcmp(da, db, na * sizeof *da) ||
		    !pass_shape_same(m, 1, hlo_shape_with_type(m, ia->shape,
		    TY_F32), hlo_shape_with_type(m, ib->shape, TY_F32)))
			return 0;
	}
	la = loop_shape(m, ca, ha);
	lb = loop_shape(m, cb, hb);
	if (hlo_sh(m, la)->type == TY_TUPLE || hlo_sh(m, lb)->type == TY_TUPLE)
		return la == lb;
	la = hlo_shape_with_type(m, la, TY_F32);
	lb = hlo_shape_with_type(m, lb, TY_F32);
	return pass_shape_same(m, 1, la, lb) || pass_reshape_is_bitcast(m, la,
		lb);
}

static int64_t
subshapes(const HloModule *m, uint32_t s)
{
	const HloShape *sh = hlo_sh(m, s);
	int64_t n = 1;
	uint32_t k;

	if (sh->type == TY_TUPLE)
		for (k = 0; k < sh->ntuple; k++)
			n += subshapes(m, hlo_tuple_elems(m, sh)[k]);
	return n;
}

/* FusionFitsInBudget(producer, consumer) */
static int
budget_ok(Mp *p, uint32_t a, uint32_t b)
{
	HloModule *m = M(p);
	const HloInstr *ia = INS(p, a), *ib = INS(p, b);
	int64_t nred = 0, shm = 0, outs, n = 0;
	uint32_t k, j, o;

	reduce_usage(m, p->e.c, a, &nred, &shm);
	reduce_usage(m, p->e.c, b, &nred, &shm);
	if (shm > SHARED_BYTES || nred > MAX_UNNESTED)
		return 0;
	outs = subshapes(m, ia->shape) + subshapes(m, ib->shape);
	if (ia->nops + ib->nops - 1 + outs <= MAX_OPERANDS)
		return 1;
	for (k = 0; k < ia->nops + ib->nops; k++) {	/* the slow path:
				 * over 96 already, so at most quadratic in
				 * the operands of two instructions */
		o = k < ia->nops ? hlo_ops(m, ia)[k] : hlo_ops(m, ib)[k -
			ia->nops];
		if (o == a || o == b)
			continue;
		for (j = 0; j < k; j++)
			if ((j < ia->nops ? hlo_ops(m, ia)[j] : hlo_ops(m,
			    ib)[j - ia->nops]) == o)
				break;
		n += j == k;
	}
	return n + outs <= MAX_OPERANDS;
}

/* marks what x reaches (stamp); 0 if more than REACH_BUDGET.
 * Producers are taken from the end of the post order, and a fusion only
 * adds edges into the consumer's users and the producer's users, so
 * nothing x reaches reaches an instruction still to come, and what it
 * reaches never shrinks (a consumer it reaches becomes the fusion, which
 * reaches all the consumer did). Hence big[u], once set, stays true, and
 * a search that meets u reaches more than REACH_BUDGET too: it stops
 * there, and so do x and the instructions on its way to u (without this,
 * every producer early in a training step walks the budget's 4,096
 * instructions). */
static int
reach(Mp *p, uint32_t x)
{
	uint32_t n = 0, seen = 0, y, k, u;

	p->stamp++;
	p->stack[n++] = x;
	while (n > 0) {
		y = p->stack[--n];
		for (k = 0; k < p->e.usr[y].n; k++) {
			u = p->e.usr[y].v[k];
			if (p->mark[u] == p->stamp)
				continue;
			if (p->big[u])
				for (; y != x; y = p->from[y])
					p->big[y] = 1;
			if (++seen > REACH_BUDGET || p->big[u]) {
				p->big[x] = 1;
				return 0;
			}
			p->mark[u] = p->stamp;
			p->from[u] = y;
			p->stack[n++] = u;
		}
	}
	return 1;
}

/* OperandReachableFromProducer; reach(x) was called */
static int
cycle(Mp *p, uint32_t x, uint32_t u)
{
	const HloInstr *in = INS(p, u);
	uint32_t k, o;

	for (k = 0; k < in->nops; k++) {
		o = hlo_ops(M(p), INS(p, u))[k];
		if (o != x && p->mark[o] == p->stamp)
			return 1;
	}
	return 0;
}

static int
priority(Mp *p, uint32_t u)
{
	if (INS(p, u)->op != HOP_FUSION)
		return 0;
	return fu_multi_output(M(p), p->e.c, u) ? 2 : 1;
}

/* the consumer's fusion is ours to change */
static int
consumer_shape_ok(Mp *p, uint32_t u)
{
	HloModule *m = M(p);
	uint32_t k;

	if (INS(p, u)->op != HOP_FUSION)
		return hlo_sh(m, INS(p, u)->shape)->type != TY_TUPLE;
	if (p->e.ncalls[fu_fused_comp(m, p->e.c, u)] != 1)
		return 0;
	if (fu_multi_output(m, p->e.c, u))
		for (k = 0; k < p->e.usr[u].n; k++)
			if (INS(p, p->e.usr[u].v[k])->op != HOP_GTE)
				return 0;
	return 1;
}

/* GetProducerConsumerMultiOutputFusionCandidates and
 * SelectPreferredFusionCandidate: the consumer, HLO_NONE if none */
static uint32_t
choose(Mp *p, uint32_t x)
{
	const FuList *l;
	uint32_t k, u, best = HLO_NONE;
	int reached = 0, pr, bp = -1;

	if (!producer_ok(p, x))
		return HLO_NONE;
	l = &p->e.usr[x];
	if (l->n == 0 || (l->n == 1 && !fu_multi_output(M(p), p->e.c,
	    l->v[0])))
		return HLO_NONE;
	for (k = 0; k < p->e.usr[x].n; k++) {
		u = p->e.usr[x].v[k];
		if (!root_ok(p, u) || !consumer_shape_ok(p, u) ||
		    !shapes_ok(p, u, x))
			continue;
		if (!reached) {
			reached = reach(p, x) ? 1 : -1;
			if (reached < 0)
				return HLO_NONE;
		}
		if (cycle(p, x, u))
			continue;
		if (!budget_ok(p, x, u))
			continue;
		pr = priority(p, u);
		if (pr > bp) {
			bp = pr;
			best = u;
		}
	}
	return best;
}

/* a fusion in place of the plain consumer u (CreateFusion) */
static uint32_t
wrap(Mp *p, uint32_t u, uint32_t x)
{
	HloModule *m = M(p);
	uint32_t n = INS(p, u)->nops, *ops, *prm, *mo, k, j, cnt = 0, fc, r, f;
	char buf[32];
	int kind = input_reduction(m, p->e.c, u) || input_reduction(m,
		p->e.c, x) ? FK_INPUT : FK_LOOP;

	ops = xreallocarray(NULL, n + 1, sizeof *ops);
	prm = xreallocarray(NULL, n + 1, sizeof *prm);
	mo = xreallocarray(NULL, n + 1, sizeof *mo);
	fc = fu_edit_new_comp(&p->e, "fused_computation");
	for (k = 0; k < n; k++) {
		uint32_t o = hlo_ops(m, INS(p, u))[k];

		for (j = 0; j < cnt && ops[j] != o; j++)
			;
		if (j == cnt) {
			snprintf(buf, sizeof buf, "param_%u", cnt);
			prm[cnt] = hlo_instr_add(m, fc, HOP_PARAMETER, INS(p,
				o)->shape, fu_edit_name(m, buf), 0, NULL);
			m->comps[fc].ins[prm[cnt]].num = cnt;
			ops[cnt++] = o;
		}
		mo[k] = prm[j];
	}
	r = pass_copy_instr(m, fc, p->e.c, u, n, mo);
	m->comps[fc].ins[r].name = INS(p, u)->name;
	m->comps[fc].root = r;
	f = fu_edit_fusion(&p->e, fc, kind, cnt, ops);
	fu_edit_replace(&p->e, u, f);
	fu_edit_kill(&p->e, u);
	free(ops);
	free(prm);
	free(mo);
	return f;
}

/* the fusion's operands and their parameters, growable */
typedef struct {
	uint32_t *ops, *prm;
	uint32_t n, cap;
} MpOps;

static void
ops_push(MpOps *o, uint32_t op, uint32_t prm)
{
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 8;
		o->ops = xreallocarray(o->ops, o->cap, sizeof *o->ops);
		o->prm = xreallocarray(o->prm, o->cap, sizeof *o->prm);
	}
	o->ops[o->n] = op;
	o->prm[o->n++] = prm;
}

/* the parameter of fc reading q, a new one if none (AddCallOperand) */
static uint32_t
param_for(Mp *p, MpOps *o, uint32_t fc, uint32_t q, uint32_t x)
{
	HloModule *m = M(p);
	uint32_t k, i;
	char buf[32];

	for (k = 0; k < o->n; k++)
		if (o->ops[k] == q && q != x)
			return o->prm[k];
	snprintf(buf, sizeof buf, "param_%u", o->n);
	i = hlo_instr_add(m, fc, HOP_PARAMETER, INS(p, q)->shape,
		fu_edit_name(m, buf), 0, NULL);
	m->comps[fc].ins[i].num = o->n;
	ops_push(o, q, i);
	return i;
}

/* the producer x cloned into fc (operands read through parameters);
 * returns the clone of its value */
static uint32_t
clone_producer(Mp *p, MpOps *o, uint32_t fc, uint32_t x)
{
	HloModule *m = M(p);
	uint32_t n, *ops, k, t, cnt, sc, *map, *order, r;
	int keep;

	if (INS(p, x)->op != HOP_FUSION) {
		n = INS(p, x)->nops;
		ops = xreallocarray(NULL, n + 1, sizeof *ops);
		for (k = 0; k < n; k++)
			ops[k] = param_for(p, o, fc, hlo_ops(m, INS(p, x))[k], x);
		r = pass_copy_instr(m, fc, p->e.c, x, n, ops);
		m->comps[fc].ins[r].name = INS(p, x)->name;
		free(ops);
		return r;
	}
	sc = fu_fused_comp(m, p->e.c, x);
	keep = p->e.ncalls[sc] == 1;
	n = m->comps[sc].nins;
	map = xreallocarray(NULL, n + 1, sizeof *map);
	order = xreallocarray(NULL, n + 1, sizeof *order);
	cnt = hlo_topo(m, sc, order);
	for (t = 0; t < cnt; t++) {
		const HloInstr *in = &m->comps[sc].ins[order[t]];

		if (in->op == HOP_PARAMETER) {
			map[order[t]] = param_for(p, o, fc, hlo_ops(m, INS(p,
				x))[in->num], x);
			continue;
		}
		ops = xreallocarray(NULL, in->nops + 1, sizeof *ops);
		for (k = 0; k < in->nops; k++)
			ops[k] = map[hlo_ops(m, in)[k]];
		map[order[t]] = pass_copy_instr(m, fc, sc, order[t], in->nops,
			ops);
		if (keep)
			m->comps[fc].ins[map[order[t]]].name =
				m->comps[sc].ins[order[t]].name;
		free(ops);
	}
	r = map[m->comps[sc].root];
	free(map);
	free(order);
	return r;
}

/* the root of fc becomes a tuple with v last: its index */
static uint32_t
add_output(Mp *p, uint32_t f, uint32_t fc, uint32_t v)
{
	HloModule *m = M(p);
	uint32_t r = m->comps[fc].root, n, *el, *sh, k, t, g0;
	const HloInstr *ri = &m->comps[fc].ins[r];

	n = ri->op == HOP_TUPLE ? ri->nops : 1;
	el = xreallocarray(NULL, n + 2, sizeof *el);
	sh = xreallocarray(NULL, n + 2, sizeof *sh);
	for (k = 0; k < n; k++)
		el[k] = ri->op == HOP_TUPLE ? hlo_ops(m, ri)[k] : r;
	el[n] = v;
	for (k = 0; k <= n; k++)
		sh[k] = m->comps[fc].ins[el[k]].shape;
	t = hlo_instr_add(m, fc, HOP_TUPLE, hlo_shape_tuple(m, n + 1, sh),
		fu_edit_name(m, "tuple"), n + 1, el);
	if (m->comps[fc].ins[r].op == HOP_TUPLE)
		m->comps[fc].ins[r].flags |= HI_DEAD;
	m->comps[fc].root = t;
	INS(p, f)->shape = m->comps[fc].ins[t].shape;
	if (n == 1 && m->comps[fc].ins[r].op != HOP_TUPLE) {
		g0 = fu_edit_gte(&p->e, f, sh[0], 0);
		fu_edit_replace(&p->e, f, g0);
	}
	free(el);
	free(sh);
	return n;
}

/* MergeFusionInstructionIntoMultiOutput / FuseInstructionIntoMultiOutput
 * of producer x into consumer u */
static void
fuse(Mp *p, uint32_t x, uint32_t u)
{
	HloModule *m = M(p);
	uint32_t f = INS(p, u)->op == HOP_FUSION ? u : wrap(p, u, x), fc, k,
		v, i, j, idx, g;
	MpOps o = { NULL, NULL, 0, 0 }, keep = { NULL, NULL, 0, 0 };
	HloComp *cp;

	fc = fu_fused_comp(m, p->e.c, f);
	for (k = 0; k < INS(p, f)->nops; k++)
		ops_push(&o, hlo_ops(m, INS(p, f))[k], hlo_param(m, fc, k));
	v = clone_producer(p, &o, fc, x);
	cp = &m->comps[fc];
	for (k = 0; k < o.n; k++) {
		if (o.ops[k] != x) {
			ops_push(&keep, o.ops[k], o.prm[k]);
			continue;
		}
		for (i = 0; i < cp->nins; i++) {	/* the parameter's uses */
			HloInstr *in = &cp->ins[i];

			for (j = 0; j < in->nops && !(in->flags & HI_DEAD); j++)
				if (m->ids[in->ops + j] == o.prm[k])
					m->ids[in->ops + j] = v;
		}
		if (cp->root == o.prm[k])
			cp->root = v;
		cp->ins[o.prm[k]].flags |= HI_DEAD;
	}
	for (k = 0; k < keep.n; k++)
		cp->ins[keep.prm[k]].num = k;
	fu_edit_set_ops(&p->e, f, keep.n, keep.ops);
	if (p->e.usr[x].n > 0 || m->comps[p->e.c].root == x) {
		idx = add_output(p, f, fc, v);
		g = fu_edit_gte(&p->e, f, INS(p, x)->shape, idx);
		fu_edit_replace(&p->e, x, g);
	}
	if (INS(p, x)->op == HOP_FUSION)
		fu_edit_unfuse(&p->e, x);
	fu_edit_kill(&p->e, x);
	p->e.done++;
	free(o.ops);
	free(o.prm);
	free(keep.ops);
	free(keep.prm);
}

static void
grow_marks(Mp *p, uint32_t need)
{
	uint32_t cap;

	if (need <= p->capmark)
		return;
	cap = 2 * need + 16;
	p->mark = xreallocarray(p->mark, cap, sizeof *p->mark);
	memset(p->mark + p->capmark, 0, (cap - p->capmark) * sizeof *p->mark);
	p->big = xreallocarray(p->big, cap, sizeof *p->big);
	memset(p->big + p->capmark, 0, cap - p->capmark);
	p->capmark = cap;
	p->stack = xreallocarray(p->stack, cap, sizeof *p->stack);
	p->from = xreallocarray(p->from, cap, sizeof *p->from);
	p->capstack = cap;
}

/* the live producers of computation c from the end of its post order,
 * made once (instructions made meanwhile are not visited), each given
 * to visit (1: it changed the module); both halves of the pass */
static int
walk_comp(Mp *p, uint32_t c, int (*visit)(Mp *p, uint32_t x))
{
	HloModule *m = M(p);
	uint32_t n = m->comps[c].nins, *po, cnt, t, x;
	int changed = 0;

	fu_edit_begin(&p->e, c);
	if (p->capmark)
		memset(p->big, 0, p->capmark);
	po = xreallocarray(NULL, n + 1, sizeof *po);
	cnt = pass_post_order(m, c, po, p->e.ctx);
	for (t = cnt; t-- > 0;) {
		x = po[t];
		grow_marks(p, m->comps[c].nins + 1);
		if (!(INS(p, x)->flags & HI_DEAD))
			changed |= visit(p, x);
	}
	free(po);
	return fu_edit_end(&p->e) < 0 ? -1 : changed;
}

static int
mp_run(HloModule *m, PassCtx *ctx, int (*comp)(void *arg, uint32_t c))
{
	Mp p;
	int r;

	memset(&p, 0, sizeof p);
	fu_edit_init(&p.e, m, ctx);
	r = fu_edit_run(&p.e, comp, &p);
	free(p.mark);
	free(p.big);
	free(p.stack);
	free(p.from);
	return r;
}

/* producer x fuses into the user choose picks */
static int
pc_visit(Mp *p, uint32_t x)
{
	uint32_t u = choose(p, x);

	if (u == HLO_NONE)
		return 0;
	fuse(p, x, u);
	return 1;
}

static int
run_comp(void *arg, uint32_t c)
{
	return walk_comp(arg, c, pc_visit);
}

int
pass_multi_output_fusion_pc(HloModule *m, PassCtx *ctx)
{
	return mp_run(m, ctx, run_comp);
}

/* the sibling half ("multi_output_fusion").
 *
 * Contract (FuseSiblings, DoMultiOutputFusion's first half). In every
 * computation xla fuses in, producers are taken from the end of the post
 * order computed once (instructions made meanwhile are not visited), but
 * constants, custom fusions and effective scalars (IsProfitableOperand).
 * Their users that are sibling candidates (IsSiblingFusionCandidate: has
 * users, fusible as a multi-output root, not a nestable variadic
 * reduction, a multi-output fusion read only through get-tuple-elements)
 * are ordered multi-output fusions first, then fusions, then plain
 * instructions (stable). Each fusion among them, in that order, takes
 * every later sibling that passes CanFuseSiblings: not connected to it
 * (neither reaches the other; a search past REACH_BUDGET counts as
 * connected), compatible loop shapes, slices that may overlap
 * (ParameterSlicesAreNonOverlapping, strides ignored as xla does),
 * neither rooted in a dynamic-update-slice, FusionFitsInBudget. The
 * sibling's instructions are cloned into the fusion (a plain one reads
 * its operands through new parameters; MergeFusionInstructionInto-
 * MultiOutput or FuseInstructionIntoMultiOutput), its outputs appended to
 * the fusion's root tuple (each element of a multi-output sibling's), its
 * users read them through new get-tuple-elements, the fusion's own old
 * users through index 0; kInput if the sibling was.
 *
 * Not done as xla: the cost model and tiled transposes (a physically
 * transposing hero needs the other's shape and no reduction beside it,
 * sib_shapes_ok); instructions with control dependencies never
 * fuse; a fusion whose computation is called elsewhere and a plain
 * tuple-shaped instruction are passed over. */

/* ShapeUtil::IsEffectiveScalar */
static int
eff_scalar(const HloModule *m, uint32_t s)
{
	const HloShape *sh = hlo_sh(m, s);
	uint32_t d;

	if (sh->type == TY_TUPLE)
		return 0;
	for (d = 0; d < sh->rank; d++)
		if (hlo_dims(m, sh)[d] != 1)
			return 0;
	return 1;
}

/* IsNestableVariadicReduction */
static int
nestable_variadic(Mp *p, uint32_t x)
{
	HloModule *m = M(p);
	const HloInstr *in = INS(p, x);
	uint32_t fc;
	int row;

	if (hlo_sh(m, in->shape)->type != TY_TUPLE)
		return 0;
	if (in->op == HOP_REDUCE)
		return !fu_contiguous_reduce(m, p->e.c, x, &row);
	if (in->op != HOP_FUSION || fu_kind(m, in) != FK_LOOP)
		return 0;
	fc = fu_fused_comp(m, p->e.c, x);
	return m->comps[fc].ins[m->comps[fc].root].op == HOP_REDUCE;
}

/* IsSiblingFusionCandidate, and ours to change: a fusion whose
 * computation nothing else calls; no plain tuple-shaped instruction */
static int
sib_candidate(Mp *p, uint32_t x)
{
	HloModule *m = M(p);
	const HloInstr *in = INS(p, x);
	uint32_t k;

	if (p->e.usr[x].n == 0 || !root_ok(p, x) || nestable_variadic(p, x))
		return 0;
	if (in->op != HOP_FUSION)
		return hlo_sh(m, in->shape)->type != TY_TUPLE;
	if (p->e.ncalls[fu_fused_comp(m, p->e.c, x)] != 1)
		return 0;
	if (fu_multi_output(m, p->e.c, x))
		for (k = 0; k < p->e.usr[x].n; k++)
			if (INS(p, p->e.usr[x].v[k])->op != HOP_GTE)
				return 0;
	return 1;
}

/* the hero of x is a physically transposing copy or transpose */
static int
hero_transposes(Mp *p, uint32_t x)
{
	uint32_t hc, h = hero(M(p), p->e.c, x, &hc);
	const HloInstr *in = hlo_ins(M(p), hc, h);

	return (in->op == HOP_COPY || in->op == HOP_TRANSPOSE) &&
		transposing(M(p), hc, h);
}

/* ShapesCompatibleForMultiOutputFusion with tiled transposes told apart:
 * a physically transposing hero needs the
 * same output shape as the other and no reduction beside it */
static int
sib_shapes_ok(Mp *p, uint32_t a, uint32_t b)
{
	int ta = hero_transposes(p, a), tb = hero_transposes(p, b);

	if (ta || tb) {
		uint32_t ca, cb, ha = hero(M(p), p->e.c, a, &ca),
			hb = hero(M(p), p->e.c, b, &cb);
		int row;

		return !fu_contiguous_reduce(M(p), ca, ha, &row) &&
			!fu_contiguous_reduce(M(p), cb, hb, &row) &&
			pass_shape_same(M(p), 0, hlo_ins(M(p), ca, ha)->shape,
			hlo_ins(M(p), cb, hb)->shape);
	}
	return shapes_ok(p, a, b);
}

/* FindUniqueSlice(x, s): the slice s itself, or the slice that is the
 * only user of the one parameter fusion s reads x through (*sc its
 * computation); HLO_NONE if none */
static uint32_t
unique_slice(Mp *p, uint32_t x, uint32_t s, uint32_t *sc)
{
	HloModule *m = M(p);
	const HloInstr *in = INS(p, s);
	uint32_t k, prm = HLO_NONE;

	*sc = p->e.c;
	if (in->op == HOP_SLICE)
		return s;
	if (in->op != HOP_FUSION)
		return HLO_NONE;
	for (k = 0; k < in->nops; k++) {
		if (hlo_ops(m, in)[k] != x)
			continue;
		if (prm != HLO_NONE)
			return HLO_NONE;
		prm = k;
	}
	*sc = fu_fused_comp(m, p->e.c, s);
	return prm == HLO_NONE ? HLO_NONE : fu_param_slice(m, *sc,
		hlo_param(m, *sc, prm));
}

/* ParameterSlicesAreNonOverlapping: 0 when a and b each read their own
 * slice of x (an array of 1024 bytes or more), disjoint in some
 * dimension (strides ignored, as xla does) */
static int
slices_ok(Mp *p, uint32_t x, uint32_t a, uint32_t b)
{
	HloModule *m = M(p);
	uint32_t sa, sb, ca, cb;

	if (hlo_sh(m, INS(p, x)->shape)->type == TY_TUPLE ||
	    hlo_shape_bytes(m, INS(p, x)->shape) < 1024)
		return 1;
	if ((sa = unique_slice(p, x, a, &ca)) == HLO_NONE ||
	    (sb = unique_slice(p, x, b, &cb)) == HLO_NONE)
		return 1;
	return fu_slices_overlap(m, ca, sa, cb, sb);
}

static int
dus_root(Mp *p, uint32_t x)
{
	uint32_t fc;

	if (INS(p, x)->op != HOP_FUSION)
		return 0;
	fc = fu_fused_comp(M(p), p->e.c, x);
	return M(p)->comps[fc].ins[M(p)->comps[fc].root].op == HOP_DYNUPDSLICE;
}

/* CanFuseSiblings(a, b, common producer x): not connected, compatible
 * shapes, slices that may overlap, no dynamic-update-slice root
 * (LegalToFuse), within FusionFitsInBudget; a search past REACH_BUDGET
 * counts as connected */
static int
sib_can_fuse(Mp *p, uint32_t x, uint32_t a, uint32_t b)
{
	if (!sib_shapes_ok(p, a, b) || !slices_ok(p, x, a, b) ||
	    dus_root(p, a) || dus_root(p, b) || !budget_ok(p, a, b))
		return 0;
	if (!reach(p, a) || p->mark[b] == p->stamp)
		return 0;
	return reach(p, b) && p->mark[a] != p->stamp;
}

/* MergeFusionInstructionIntoMultiOutput / FuseInstructionIntoMultiOutput
 * of sibling b into fusion a: b's outputs (each element of a tuple root)
 * appended to a's, b's users rewired to get-tuple-elements of a */
static void
sib_merge(Mp *p, uint32_t a, uint32_t b)
{
	HloModule *m = M(p);
	uint32_t fc = fu_fused_comp(m, p->e.c, a), k, v, base, n, *el, *us,
		g, nu;
	MpOps o = { NULL, NULL, 0, 0 };
	HloAttr at;
	int mo = fu_multi_output(m, p->e.c, b);

	for (k = 0; k < INS(p, a)->nops; k++)
		ops_push(&o, hlo_ops(m, INS(p, a))[k], hlo_param(m, fc, k));
	v = clone_producer(p, &o, fc, b);
	n = mo ? m->comps[fc].ins[v].nops : 1;
	el = xreallocarray(NULL, n + 1, sizeof *el);
	for (k = 0; k < n; k++)
		el[k] = mo ? hlo_ops(m, &m->comps[fc].ins[v])[k] : v;
	if (mo)
		m->comps[fc].ins[v].flags |= HI_DEAD;
	base = add_output(p, a, fc, el[0]);
	for (k = 1; k < n; k++)
		add_output(p, a, fc, el[k]);
	fu_edit_set_ops(&p->e, a, o.n, o.ops);
	if (INS(p, b)->op == HOP_FUSION && fu_kind(m, INS(p, b)) == FK_INPUT &&
	    fu_kind(m, INS(p, a)) != FK_INPUT) {
		at = hlo_mk_bytes(m, A_FUSION_KIND, K_WORD,
			fu_kind_names[FK_INPUT], strlen(fu_kind_names[FK_INPUT]));
		hlo_attr_set(m, p->e.c, a, &at);
	}
	if (mo) {
		nu = p->e.usr[b].n;
		us = xreallocarray(NULL, nu + 1, sizeof *us);
		memcpy(us, p->e.usr[b].v, nu * sizeof *us);
		for (k = 0; k < nu; k++) {
			g = fu_edit_gte(&p->e, a, INS(p, us[k])->shape, base +
				hlo_attr_int(m, INS(p, us[k]), A_INDEX, 0));
			fu_edit_replace(&p->e, us[k], g);
			fu_edit_kill(&p->e, us[k]);
		}
		free(us);
	} else {
		g = fu_edit_gte(&p->e, a, INS(p, b)->shape, base);
		fu_edit_replace(&p->e, b, g);
	}
	if (INS(p, b)->op == HOP_FUSION)
		fu_edit_unfuse(&p->e, b);
	fu_edit_kill(&p->e, b);
	p->e.done++;
	free(el);
	free(o.ops);
	free(o.prm);
}

/* FuseSiblings under producer x: its candidate users, multi-output
 * fusions first, then fusions, then the rest (stable); each fusion
 * takes every later sibling it can, in turn */
static int
fuse_siblings(Mp *p, uint32_t x)
{
	const FuList *l = &p->e.usr[x];
	uint32_t *s, n = 0, i, j, k;
	int pr, changed = 0;

	if (eff_scalar(M(p), INS(p, x)->shape) || l->n < 2)
		return 0;
	s = xreallocarray(NULL, l->n + 1, sizeof *s);
	for (pr = 2; pr >= 0; pr--)
		for (k = 0; k < l->n; k++)
			if (priority(p, l->v[k]) == pr && sib_candidate(p,
			    l->v[k]))
				s[n++] = l->v[k];
	for (i = 0; i < n; i++) {
		if (INS(p, s[i])->op != HOP_FUSION)
			continue;
		for (j = i + 1; j < n;) {
			if (!sib_can_fuse(p, x, s[i], s[j])) {
				j++;
				continue;
			}
			grow_marks(p, M(p)->comps[p->e.c].nins + 64);
			sib_merge(p, s[i], s[j]);
			grow_marks(p, M(p)->comps[p->e.c].nins + 1);
			memmove(s + j, s + j + 1, (n - j - 1) * sizeof *s);
			n--;
			changed = 1;
		}
	}
	free(s);
	return changed;
}

/* producer x (but a constant or custom fusion) takes its siblings */
static int
sib_visit(Mp *p, uint32_t x)
{
	const HloInstr *in = INS(p, x);

	if (in->op == HOP_CONSTANT || (in->op == HOP_FUSION &&
	    fu_kind(M(p), in) == FK_CUSTOM))
		return 0;
	return fuse_siblings(p, x);
}

static int
sib_comp(void *arg, uint32_t c)
{
	return walk_comp(arg, c, sib_visit);
}

int
pass_multi_output_fusion(HloModule *m, PassCtx *ctx)
{
	return mp_run(m, ctx, sib_comp);
}
