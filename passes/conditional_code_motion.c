/* conditional_code_motion.c: "conditional-code-motion", xla's
 * ConditionalCodeMotion (xla/service/conditional_code_motion.cc, openxla/xla
 * as mirrored by jpli02/xla c4cbd3c3453569a9c3c1cfdc8a9105b442aab38f) with
 * the options every unit test and pipeline constructs it with:
 * is_layout_sensitive = true, pursue_full_conditional_code_motion = true,
 * search_config = 0 (no tuning), memory_increase_allowance = 5000.
 * XLA:CPU and XLA:GPU do not run it (no OSS pipeline does; it is TPU's).
 *
 * Contract. First HloCSE(layout sensitive) and HloDCE over the module.
 * Then the conditionals, in computation post order and instruction post
 * order, whose users are all get-tuple-elements (or whose result is an
 * array), are analysed one at a time as xla does, boundary by boundary:
 *   - seeds: the branch roots (one boundary inside the branches), each
 *     user of the conditional, each branch operand;
 *   - from a seed, a breadth-first group of connected boundaries that may
 *     move: inside the branches an instruction identical in every branch
 *     (opcode, layout-sensitive shapes of it and its operands, attributes
 *     but metadata/sharding, called computations equal; cross-module
 *     all-reduces with any channel id), outside any user (or operand);
 *     an instruction with several users (inside) or several non-constant
 *     operands (outside users) joins only once all of them were reached;
 *     xla's move table decides (WorthHoisting: elementwise ops, reshape,
 *     reduce, constants, all-reduce, reduce-scatter; convert only after
 *     all-reduce, reshape or get-tuple-element; tuples and
 *     get-tuple-elements not of a parameter); never a parameter, never the
 *     root tuple of the conditional's computation, never a collective or
 *     send/recv (channel instruction) into a branch; an operand with
 *     several users, a side effect, a sharded tuple or a get-tuple-element
 *     never moves into the branches;
 *   - its benefit by xla's reuse model (ReusesCarriedBy per opcode pair,
 *     divided by the users and non-constant operands on either side; the
 *     copy folding bonus); refused when negative or when the average
 *     memory growth exceeds 5000 << 9 bytes per moved instruction;
 *   - the direction with the larger summed benefit wins (ties: out).
 * Moving out: the identical instructions are cloned after the
 * conditional, whose branches return the values they needed (a new root
 * tuple); the old get-tuple-elements are replaced. Moving in: users of
 * the conditional are cloned into every branch, the root tuples return
 * their results and get-tuple-elements replace them outside. When
 * nothing moves and no branch computation is shared: converts at the
 * same root index of every branch (not fed by or feeding a convert, not
 * repeated in the root) are hoisted after the conditional. A branch
 * computation something else calls is cloned before it changes. After a
 * change: HloDCE, TupleSimplifier, HloDCE.
 *
 * Left out, as stated: moving operands of the conditional into its
 * branches (MoveOperandInstructionsIn): the analysis weighs those groups
 * as xla does (so a winning move-in decision is the same), but only the
 * user groups of that decision are carried out; the search_config tuning
 * (not the default). Refused where xla would stop on a check failure:
 * conditionals in a computation with control dependencies, moving out of
 * branches whose roots are not tuples. The conditional keeps its name and
 * attributes where xla makes a new one (convert hoisting); its sharding is
 * dropped when its shape changes, as xla's copy from the new root tuple.
 * Returns 1 when the module changed, the cleanup included.
 */
#include <stdlib.h>
#include <string.h>

#include "pass.h"

enum { B_IN, B_USER, B_OPND, B_SEED };	/* Boundary::Position, and the
					 * conditional itself as the seed */
enum { D_NONE, D_OUT, D_IN };		/* Decision::Direction */

typedef struct {
	uint32_t off;		/* ids in Ccm.pool: one per branch (B_IN),
				 * else one instruction of the parent */
	uint16_t n;
	uint8_t pos;
} Bnd;

typedef struct {
	Bnd *v;
	uint32_t n, cap, head;
} BVec;

/* a set or map of boundaries by their instructions */
typedef struct {
	Bnd *key;
	uint32_t *val;
	uint8_t *used;
	uint32_t cap, n;
} BMap;

typedef struct {
	uint32_t *start, *list;	/* distinct users, in instruction order */
	uint32_t n;
	int built;
} Users;

typedef struct {
	HloModule *m;
	PassCtx *ctx;
	uint8_t *fx;		/* side effects per computation */
	uint8_t *touched;	/* computations changed */
	uint8_t *ctrl;		/* computation has control dependencies */
	Users *us;
	uint32_t capc;		/* of fx, touched, ctrl, us */
	uint32_t *pool;		/* boundary ids */
	uint32_t npool, cappool;
	/* the conditional being analysed */
	uint32_t P, X, nb, *br;
	/* visited_count: key (side << 32 | instr) -> count; side 0 the
	 * parent, 1 the first branch */
	uint64_t *vk;
	int32_t *vv;
	uint8_t *vu;
	uint32_t vcap, vn;
	int64_t rewrites;
} Ccm;

/* computations: growable per-computation arrays */
static void
grow_comps(Ccm *s)
{
	uint32_t n = s->m->ncomps + 1, old = s->capc;

	if (n <= s->capc)
		return;
	s->capc = n * 2;
	s->fx = xreallocarray(s->fx, s->capc, 1);
	s->touched = xreallocarray(s->touched, s->capc, 1);
	s->ctrl = xreallocarray(s->ctrl, s->capc, 1);
	s->us = xreallocarray(s->us, s->capc, sizeof *s->us);
	memset(s->fx + old, 0, s->capc - old);
	memset(s->touched + old, 0, s->capc - old);
	memset(s->ctrl + old, 0, s->capc - old);
	memset(s->us + old, 0, (s->capc - old) * sizeof *s->us);
}

static const HloInstr *
ins(const Ccm *s, uint32_t c, uint32_t i)
{
	return &s->m->comps[c].ins[i];
}

static uint32_t
opnd(const Ccm *s, uint32_t c, uint32_t i, uint32_t k)
{
	return s->m->ids[ins(s, c, i)->ops + k];
}

static int
opc(const Ccm *s, uint32_t c, uint32_t i)
{
	return ins(s, c, i)->op;
}

static void
invalidate(Ccm *s, uint32_t c)
{
	Users *u = &s->us[c];

	free(u->start);
	free(u->list);
	memset(u, 0, sizeof *u);
	s->touched[c] = 1;
}

static Users *
users(Ccm *s, uint32_t c)
{
	Users *u = &s->us[c];
	HloUsers hu;
	uint32_t i, k, n, w;

	if (u->built)
		return u;
	hlo_users(s->m, c, &hu);
	n = hu.n;
	u->n = n;
	u->start = xcalloc(n + 1, sizeof *u->start);
	u->list = xreallocarray(NULL, hu.start[n] + 1, sizeof *u->list);
	for (i = w = 0; i < n; i++) {
		u->start[i] = w;
		for (k = hu.start[i]; k < hu.start[i + 1]; k++)
			if (k == hu.start[i] || hu.list[k] != hu.list[k - 1])
				u->list[w++] = hu.list[k];
	}
	u->start[n] = w;
	hlo_users_free(&hu);
	u->built = 1;
	return u;
}

static uint32_t
nusers(Ccm *s, uint32_t c, uint32_t i)
{
	Users *u = users(s, c);

	return i < u->n ? u->start[i + 1] - u->start[i] : 0;
}

static uint32_t
user_at(Ccm *s, uint32_t c, uint32_t i, uint32_t k)
{
	Users *u = users(s, c);

	return u->list[u->start[i] + k];
}

/* boundaries */
static Bnd
bnew(Ccm *s, int pos, uint32_t n)
{
	Bnd b;

	if (s->npool + n > s->cappool) {
		s->cappool = (s->npool + n) * 2 + 64;
		s->pool = xreallocarray(s->pool, s->cappool, sizeof *s->pool);
	}
	b.off = s->npool;
	b.n = (uint16_t)n;
	b.pos = (uint8_t)pos;
	s->npool += n;
	return b;
}

static Bnd
bone(Ccm *s, int pos, uint32_t x)
{
	Bnd b = bnew(s, pos, 1);

	s->pool[b.off] = x;
	return b;
}

#define BID(s, b, j) ((s)->pool[(b).off + (j)])

/* the computation of instruction j of b */
static uint32_t
bcomp(const Ccm *s, Bnd b, uint32_t j)
{
	return b.pos == B_IN ? s->br[j] : s->P;
}

static int
bsame(const Ccm *s, Bnd a, Bnd b)
{
	if ((a.pos == B_IN) != (b.pos == B_IN) || a.n != b.n)
		return 0;
	return !memcmp(s->pool + a.off, s->pool + b.off, a.n * 4u);
}

static uint32_t
bhash(const Ccm *s, Bnd b)
{
	uint32_t h = b.pos == B_IN, j;

	for (j = 0; j < b.n; j++)
		h = pass_hash_mix(h, BID(s, b, j));
	return h;
}

static void
bpush(BVec *v, Bnd b)
{
	if (v->n == v->cap) {
		v->cap = v->cap * 2 + 8;
		v->v = xreallocarray(v->v, v->cap, sizeof *v->v);
	}
	v->v[v->n++] = b;
}

static void
bvfree(BVec *v)
{
	free(v->v);
	memset(v, 0, sizeof *v);
}

static int
bfind(const Ccm *s, const BVec *v, Bnd b)
{
	uint32_t i;

	for (i = 0; i < v->n; i++)
		if (bsame(s, v->v[i], b))
			return (int)i;
	return -1;
}

static void
bmfree(BMap *mp)
{
	free(mp->key);
	free(mp->val);
	free(mp->used);
	memset(mp, 0, sizeof *mp);
}

static uint32_t *
bmslot(Ccm *s, BMap *mp, Bnd b, int add)
{
	uint32_t i, mask;

	if (add && 2 * (mp->n + 1) > mp->cap) {
		BMap nm;
		uint32_t k;

		memset(&nm, 0, sizeof nm);
		nm.cap = mp->cap ? mp->cap * 2 : 16;
		nm.key = xreallocarray(NULL, nm.cap, sizeof *nm.key);
		nm.val = xreallocarray(NULL, nm.cap, sizeof *nm.val);
		nm.used = xcalloc(nm.cap, 1);
		for (k = 0; k < mp->cap; k++)
			if (mp->used[k])
				*bmslot(s, &nm, mp->key[k], 1) = mp->val[k];
		bmfree(mp);
		*mp = nm;
	}
	if (!mp->cap)
		return NULL;
	mask = mp->cap - 1;
	for (i = bhash(s, b) & mask; mp->used[i]; i = (i + 1) & mask)
		if (bsame(s, mp->key[i], b))
			return &mp->val[i];
	if (!add)
		return NULL;
	mp->used[i] = 1;
	mp->key[i] = b;
	mp->val[i] = HLO_NONE;
	mp->n++;
	return &mp->val[i];
}

/* visited_count, keyed by the first instruction of a boundary */
static uint64_t
vkey(const Ccm *s, uint32_t c, uint32_t i)
{
	return (uint64_t)(c != s->P) << 32 | i;
}

static int32_t *
vslot(Ccm *s, uint64_t k, int add)
{
	uint32_t i, mask;

	if (add && 2 * (s->vn + 1) > s->vcap) {
		uint64_t *ok = s->vk;
		int32_t *ov = s->vv;
		uint8_t *ou = s->vu;
		uint32_t oc = s->vcap, j;

		s->vcap = oc ? oc * 2 : 64;
		s->vk = xreallocarray(NULL, s->vcap, sizeof *s->vk);
		s->vv = xreallocarray(NULL, s->vcap, sizeof *s->vv);
		s->vu = xcalloc(s->vcap, 1);
		s->vn = 0;
		for (j = 0; j < oc; j++)
			if (ou[j])
				*vslot(s, ok[j], 1) = ov[j];
		free(ok);
		free(ov);
		free(ou);
	}
	if (!s->vcap)
		return NULL;
	mask = s->vcap - 1;
	for (i = pass_hash_mix(0, k) & mask; s->vu[i]; i = (i + 1) & mask)
		if (s->vk[i] == k)
			return &s->vv[i];
	if (!add)
		return NULL;
	s->vu[i] = 1;
	s->vk[i] = k;
	s->vv[i] = 0;
	s->vn++;
	return &s->vv[i];
}

/* erase by backward shift (linear probing) */
static void
vdel(Ccm *s, uint64_t k)
{
	uint32_t i, j, h, mask;

	if (!s->vcap)
		return;
	mask = s->vcap - 1;
	for (i = pass_hash_mix(0, k) & mask; s->vu[i]; i = (i + 1) & mask)
		if (s->vk[i] == k)
			break;
	if (!s->vu[i])
		return;
	s->vu[i] = 0;
	s->vn--;
	for (j = (i + 1) & mask; s->vu[j]; j = (j + 1) & mask) {
		h = pass_hash_mix(0, s->vk[j]) & mask;
		/* move j to i when its home h is not in (i, j] */
		if ((j > i && (h <= i || h > j)) ||
		    (j < i && (h <= i && h > j))) {
			s->vk[i] = s->vk[j];
			s->vv[i] = s->vv[j];
			s->vu[i] = 1;
			s->vu[j] = 0;
			i = j;
		}
	}
}

static int
vhas(Ccm *s, uint32_t c, uint32_t i)
{
	return vslot(s, vkey(s, c, i), 0) != NULL;
}

static void
vclear(Ccm *s)
{
	if (s->vcap)
		memset(s->vu, 0, s->vcap);
	s->vn = 0;
}

/* xla's cost tables */
static int
elementwise(int op)
{
	switch (op) {
	case HOP_ABS: case HOP_ROUNDAFZ: case HOP_ROUNDEVEN: case HOP_CEIL:
	case HOP_CLZ: case HOP_CONVERT: case HOP_BITCASTCVT: case HOP_COPY:
	case HOP_COS: case HOP_ERF: case HOP_EXP: case HOP_EXPM1:
	case HOP_FLOOR: case HOP_IMAG: case HOP_ISFINITE: case HOP_LOG:
	case HOP_LOG1P: case HOP_NOT: case HOP_NEGATE: case HOP_POPCNT:
	case HOP_REAL: case HOP_REDUCEPRECISION: case HOP_RSQRT:
	case HOP_LOGISTIC: case HOP_SIGN: case HOP_SIN: case HOP_SQRT:
	case HOP_CBRT: case HOP_TAN: case HOP_TANH:
	case HOP_ADD: case HOP_ATAN2: case HOP_COMPARE: case HOP_COMPLEX:
	case HOP_DIVIDE: case HOP_MAX: case HOP_MIN: case HOP_MUL:
	case HOP_POWER: case HOP_REMAINDER: case HOP_SUBTRACT: case HOP_AND:
	case HOP_OR: case HOP_XOR: case HOP_SHL: case HOP_SHRA: case HOP_SHRL:
	case HOP_STOCHCONVERT: case HOP_SELECT: case HOP_CLAMP:
		return 1;
	default:
		return 0;
	}
}

/* HloChannelInstruction: collectives and send/recv */
static int
channel_op(int op)
{
	switch (op) {
	case HOP_ALLGATHER: case HOP_ALLGATHERSTART: case HOP_ALLREDUCE:
	case HOP_ALLREDUCESTART: case HOP_ALLTOALL: case HOP_RAGGEDALLTOALL:
	case HOP_REDUCESCATTER: case HOP_COLLPERMUTE:
	case HOP_COLLPERMUTESTART: case HOP_COLLBCAST: case HOP_COLLREDUCE:
	case HOP_SEND: case HOP_SENDDONE: case HOP_RECV: case HOP_RECVDONE:
		return 1;
	default:
		return 0;
	}
}

/* WorthHoisting(op, child_op); child -1: no operand (xla's column 0) */
static int
worth_table(int op, int child)
{
	switch (op) {
	case HOP_CONVERT:
		return child == HOP_ALLREDUCE || child == HOP_RESHAPE ||
			child == HOP_GTE;
	case HOP_GTE:
	case HOP_TUPLE:
		return child != HOP_PARAMETER;
	case HOP_ALLREDUCE: case HOP_REDUCESCATTER: case HOP_REDUCE:
	case HOP_CONSTANT: case HOP_RESHAPE:
		return 1;
	default:
		return elementwise(op);
	}
}

/* ReusesCarriedBy(op, user) */
static int64_t
reuse_table(int op, int user)
{
	if (user == HOP_GTE)
		return 0;
	if (user == HOP_CONVERT && (op == HOP_CONV || op == HOP_DOT))
		return 0;
	switch (op) {
	case HOP_PARAMETER: case HOP_CONSTANT: case HOP_GTE:
		return 0;
	case HOP_CONDITIONAL:
		return 10;
	default:
		return -10;
	}
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* CountNonLeafOps of the operands of i */
static int64_t
nonleaf_operands(Ccm *s, uint32_t c, uint32_t i)
{
	const HloInstr *in = ins(s, c, i);
	uint32_t buf[16], *v = in->nops <= 16 ? buf :
		xreallocarray(NULL, in->nops, sizeof *v), k, n = 0;
	int64_t cnt = 0;

	for (k = 0; k < in->nops; k++)
		if (opc(s, c, opnd(s, c, i, k)) != HOP_CONSTANT)
			v[n++] = opnd(s, c, i, k);
	qsort(v, n, sizeof *v, cmp_u32);
	for (k = 0; k < n; k++)
		cnt += k == 0 || v[k] != v[k - 1];
	if (v != buf)
		free(v);
	return cnt;
}

/* GroupConnectedBoundaries::ReusesCarriedBy: op in ca, user in cb */
static int64_t
reuses_by(Ccm *s, uint32_t ca, uint32_t a, uint32_t cb, uint32_t b)
{
	int64_t cfg = reuse_table(opc(s, ca, a), opc(s, cb, b)), c1, c2;

	if (cfg >= 0)
		return cfg;
	c1 = nusers(s, ca, a);
	c2 = nonleaf_operands(s, cb, b);
	if (!c1 || !c2)
		return 0;
	return -cfg / c1 / c2;
}

/* ShapeUtil::ByteSizeOf(shape, 1) >> 9, 0 for tuples */
static int64_t
msize(Ccm *s, uint32_t c, uint32_t i)
{
	const HloShape *sh = hlo_sh(s->m, ins(s, c, i)->shape);
	int64_t e;

	if (sh->type == TY_TUPLE || sh->type == TY_TOKEN)
		return 0;
	e = hlo_shape_elems(s->m, ins(s, c, i)->shape);
	if (e < 0)
		return INT64_MAX >> 12;
	return e * hlo_type_bytes(sh->type) >> 9;
}

static const uint8_t *
ignored_attrs(int channel)
{
	static const uint8_t ign[2][A_COUNT] = {
		{ [A_METADATA] = 1, [A_ORIGIN] = 1, [A_STATISTICS] = 1,
		  [A_FRONTEND_ATTRIBUTES] = 1, [A_SHARDING] = 1 },
		{ [A_METADATA] = 1, [A_ORIGIN] = 1, [A_STATISTICS] = 1,
		  [A_FRONTEND_ATTRIBUTES] = 1, [A_SHARDING] = 1,
		  [A_CHANNEL_ID] = 1 },
	};

	return ign[channel];
}

static int
cross_module_ar(const Ccm *s, uint32_t c, uint32_t i)
{
	const HloInstr *in = ins(s, c, i);

	return (in->op == HOP_ALLREDUCE || in->op == HOP_ALLREDUCESTART) &&
		hlo_attr(s->m, in, A_CHANNEL_ID) != NULL;
}

/* Identical(eq_operand: shapes equal with layout, eq_computations) */
static int
ident(Ccm *s, uint32_t ca, uint32_t a, uint32_t cb, uint32_t b, int chan)
{
	HloModule *m = s->m;
	const HloInstr *x = ins(s, ca, a), *y = ins(s, cb, b);
	uint32_t k;

	if (ca == cb && a == b)
		return 1;
	if (x->op != y->op || !pass_shape_equal(m, x->shape, y->shape) ||
	    x->nops != y->nops || x->ncalled != y->ncalled)
		return 0;
	for (k = 0; k < x->nops; k++)
		if (!pass_shape_equal(m, ins(s, ca, opnd(s, ca, a, k))->shape,
		    ins(s, cb, opnd(s, cb, b, k))->shape))
			return 0;
	if (x->op == HOP_PARAMETER && x->num != y->num)
		return 0;
	if (!hlo_attrs_equal(m, x, y, ignored_attrs(chan)))
		return 0;
	for (k = 0; k < x->ncalled; k++)
		if (!pass_comp_equal(m, m->ids[x->called + k],
		    m->ids[y->called + k], 1, s->ctx))
			return 0;
	return 1;
}

/* InstructionWithinBranchIdentical */
static int
identical(Ccm *s, Bnd b)
{
	uint32_t j, c0 = s->br[0], x0 = BID(s, b, 0);
	int chan = cross_module_ar(s, c0, x0);

	for (j = 0; j < b.n; j++) {
		if (chan && !cross_module_ar(s, s->br[j], BID(s, b, j)))
			return 0;
		if (!ident(s, c0, x0, s->br[j], BID(s, b, j), chan))
			return 0;
	}
	return 1;
}

/* GroupConnectedBoundaries: one seed's group */
typedef struct {
	BVec conn;		/* connected_boundaries_ */
	BVec newb;		/* new_boundaries_ */
	int64_t mem;		/* connected_boundaries_memory_increase_ */
} Group;

static void
gfree(Group *g)
{
	bvfree(&g->conn);
	bvfree(&g->newb);
}

static uint32_t
b0(const Ccm *s, Bnd b)
{
	return BID(s, b, 0);
}

static uint32_t
c0(const Ccm *s, Bnd b)
{
	return bcomp(s, b, 0);
}

/* IsSafeToMoveBoundary */
static int
safe_to_move(Ccm *s, Group *g, Bnd nb)
{
	uint32_t c = c0(s, nb), x = b0(s, nb);
	int64_t cnt = nb.pos == B_USER ? nonleaf_operands(s, c, x) :
		(int64_t)nusers(s, c, x);
	uint64_t k = vkey(s, c, x);
	int32_t *v;
	int pos;

	if (cnt <= 1) {
		if (nb.pos == B_OPND && nusers(s, c, x) > 0 &&
		    user_at(s, c, x, 0) == s->X && opnd(s, s->P, s->X, 0) == x)
			return 0;
		return 1;
	}
	v = vslot(s, k, 0);
	if (!v) {
		*vslot(s, k, 1) = 1;
		bpush(&g->newb, nb);
		return 0;
	}
	pos = bfind(s, &g->newb, nb);
	if (pos >= 0 || nb.n == 1) {
		if (++*v == cnt) {
			vdel(s, k);
			if (pos >= 0) {
				memmove(g->newb.v + pos, g->newb.v + pos + 1,
					(g->newb.n - pos - 1) *
					sizeof *g->newb.v);
				g->newb.n--;
			}
			return 1;
		}
	}
	return 0;
}

/* GroupConnectedBoundaries::WorthHoisting */
static int
worth(Ccm *s, Bnd b)
{
	uint32_t c = c0(s, b), x = b0(s, b);
	const HloInstr *in = ins(s, c, x);
	int op = in->op;

	if (op == HOP_TUPLE && c == s->P && s->m->comps[c].root == x)
		return 0;
	if (b.pos == B_OPND) {
		if (op == HOP_TUPLE && hlo_attr(s->m, in, A_SHARDING))
			return 0;
		if (nusers(s, c, x) > 1)
			return 0;
		if (pass_has_effect(s->m, in, s->fx, s->m->ncomps))
			return 0;
		if (op == HOP_GTE)
			return 0;
	}
	if (channel_op(op) && b.pos != B_IN)
		return 0;
	if (op == HOP_PARAMETER)
		return 0;
	return worth_table(op, in->nops ? opc(s, c, opnd(s, c, x, 0)) : -1);
}

/* GetNextBoundary */
static Bnd
next_bnd(Ccm *s, Bnd b, uint32_t k)
{
	Bnd nb = bnew(s, b.pos, b.n);
	uint32_t j;

	for (j = 0; j < b.n; j++)
		BID(s, nb, j) = b.pos == B_USER ?
			user_at(s, s->P, BID(s, b, j), k) :
			opnd(s, bcomp(s, b, j), BID(s, b, j), k);
	return nb;
}

/* a worklist with a visited set (BoundaryVisitor) */
typedef struct {
	BVec work;
	BMap seen;
} Visitor;

static int
vis_next(Ccm *s, Visitor *v, Bnd *out)
{
	while (v->work.head < v->work.n) {
		Bnd b = v->work.v[v->work.head++];

		if (bmslot(s, &v->seen, b, 0))
			continue;
		*bmslot(s, &v->seen, b, 1) = 1;
		*out = b;
		return 1;
	}
	return 0;
}

static void
vis_free(Visitor *v)
{
	bvfree(&v->work);
	bmfree(&v->seen);
}

/* AddBoundaries */
static void
add_boundaries(Ccm *s, Group *g, Bnd start)
{
	Visitor v;
	Bnd b, nb, last;
	uint32_t k, cnt, c, x, j;

	memset(&v, 0, sizeof v);
	bpush(&v.work, start);
	while (vis_next(s, &v, &b)) {
		c = c0(s, b);
		x = b0(s, b);
		if ((b.pos != B_IN || identical(s, b)) &&
		    safe_to_move(s, g, b) && worth(s, b)) {
			bpush(&g->conn, b);
			g->mem -= msize(s, c, x);
			cnt = b.pos == B_USER ? nusers(s, c, x) :
				ins(s, c, x)->nops;
			for (k = 0; k < cnt; k++) {
				nb = next_bnd(s, b, k);
				bpush(&v.work, nb);
				g->mem += msize(s, c0(s, nb), b0(s, nb));
			}
			continue;
		}
		if (b.pos == B_OPND && opc(s, c, x) == HOP_BROADCAST &&
		    g->conn.n > 1) {
			last = g->conn.v[g->conn.n - 1];
			for (j = 0; j < nusers(s, c, x); j++)
				if (user_at(s, c, x, j) == b0(s, last))
					break;
			if (j < nusers(s, c, x) &&
			    opc(s, s->P, b0(s, last)) != HOP_TUPLE) {
				/* replicate the broadcast in the branches */
				bpush(&g->conn, b);
				g->mem -= msize(s, c, x) -
					msize(s, c, opnd(s, c, x, 0));
				continue;
			}
		}
		*vslot(s, vkey(s, c, x), 1) = 1;
		bpush(&g->newb, b);
	}
	vis_free(&v);
}

/* ReusesBeforeBoundary */
static int64_t
reuses_before(Ccm *s, uint32_t c, uint32_t user)
{
	const HloInstr *u = ins(s, c, user);
	uint32_t k, op, r0;
	int64_t r = 0;

	for (k = 0; k < u->nops; k++) {
		op = opnd(s, c, user, k);
		if (!vhas(s, c, op) && !(c == s->P && op == s->X))
			continue;
		if (u->op == HOP_GTE) {
			uint32_t oc = c;

			if (opc(s, c, op) == HOP_CONDITIONAL &&
			    c == s->P && op == s->X) {
				r0 = s->m->comps[s->br[0]].root;
				if (opc(s, s->br[0], r0) == HOP_TUPLE) {
					int64_t idx = hlo_attr_int(s->m, u,
						A_INDEX, 0);

					if (idx < ins(s, s->br[0], r0)->nops) {
						op = opnd(s, s->br[0], r0,
							(uint32_t)idx);
						oc = s->br[0];
					}
				}
			}
			if (nusers(s, c, user))
				r += reuses_by(s, oc, op, c,
					user_at(s, c, user, 0));
		} else {
			r += reuses_by(s, c, op, c, user);
		}
	}
	return r;
}

/* ReusesAfterBoundary; tuple_idx < 0 but for operands */
static int64_t
reuses_after(Ccm *s, uint32_t c, uint32_t user, int64_t tuple_idx)
{
	uint32_t op, j, k, n, par, root0 = s->m->comps[s->br[0]].root;
	int64_t r = 0, cnt;

	if (opc(s, c, user) == HOP_CONSTANT)
		return 0;
	n = nusers(s, c, user);
	if (tuple_idx < 0 && n > 1)
		return 0;
	if (!n)
		return 0;
	op = user_at(s, c, user, 0);
	if (tuple_idx >= 0) {
		if (opc(s, c, op) == HOP_CONDITIONAL) {
			cnt = 0;
			for (j = 0; j < s->nb; j++) {
				uint32_t bc = s->br[j];

				if (opnd(s, s->P, s->X, j + 1) != user)
					continue;
				par = hlo_param(s->m, bc, 0);
				if (par == HLO_NONE)
					continue;
				if (par == s->m->comps[bc].root) {
					cnt++;
					continue;
				}
				if (hlo_sh(s->m, ins(s, bc, par)->shape)->type
				    != TY_TUPLE && nusers(s, bc, par) > 0) {
					cnt++;
					continue;
				}
				for (k = 0; k < nusers(s, bc, par); k++) {
					uint32_t pu = user_at(s, bc, par, k);

					if (opc(s, bc, pu) == HOP_GTE &&
					    hlo_attr_int(s->m, ins(s, bc, pu),
					    A_INDEX, -1) == tuple_idx) {
						cnt++;
						break;
					}
				}
			}
			if (cnt < s->nb)
				r += 10;
		} else if (opc(s, c, op) == HOP_TUPLE) {
			for (k = 0; opnd(s, c, op, k) != user; k++)
				;
			return reuses_after(s, c, op, k);
		} else {
			return reuses_after(s, c, op, tuple_idx);
		}
	} else if (c == s->br[0] && op == root0) {
		int64_t index;

		for (k = 0; opnd(s, c, op, k) != user; k++)
			;
		index = k;
		for (k = 0; k < nusers(s, s->P, s->X); k++) {
			uint32_t g = user_at(s, s->P, s->X, k);

			if (opc(s, s->P, g) == HOP_GTE &&
			    hlo_attr_int(s->m, ins(s, s->P, g), A_INDEX, -1) ==
			    index && nusers(s, s->P, g)) {
				r += reuses_by(s, c, user, s->P,
					user_at(s, s->P, g, 0));
				break;
			}
		}
	} else if (vhas(s, c, op)) {
		r += reuses_by(s, c, user, c, op);
	}
	return r;
}

/* the copy folding bonus: copy(gte(conditional)) of a copy root operand */
static int64_t
copy_folding(Ccm *s, uint32_t x)
{
	uint32_t g, j, r;
	int64_t idx, benefit = 0;

	if (opc(s, s->P, x) != HOP_COPY)
		return 0;
	g = opnd(s, s->P, x, 0);
	if (opc(s, s->P, g) != HOP_GTE || opnd(s, s->P, g, 0) != s->X)
		return 0;
	idx = hlo_attr_int(s->m, ins(s, s->P, g), A_INDEX, 0);
	for (j = 0; j < s->nb; j++) {
		uint32_t bc = s->br[j];

		r = s->m->comps[bc].root;
		if (opc(s, bc, r) != HOP_TUPLE || idx >= ins(s, bc, r)->nops)
			continue;
		r = opnd(s, bc, r, (uint32_t)idx);
		if (opc(s, bc, r) == HOP_COPY &&
		    pass_shape_equal(s->m, ins(s, bc, opnd(s, bc, r, 0))->shape,
		    ins(s, s->P, x)->shape))
			benefit += 10;
	}
	return benefit;
}

/* BenefitForMovingBoundaries */
static int64_t
benefit(Ccm *s, const BVec *bs)
{
	int64_t before = 0, after = 0, copy = 0;
	uint32_t i, root0 = s->m->comps[s->br[0]].root;
	int pos = bs->v[0].pos;

	if (pos != B_USER) {
		for (i = 0; i < bs->n; i++)
			if (opc(s, c0(s, bs->v[i]), b0(s, bs->v[i])) !=
			    HOP_TUPLE)
				break;
		if (i == bs->n)
			return -1;
	}
	if (bs->n == 1 && pos == B_USER &&
	    opc(s, s->P, b0(s, bs->v[0])) == HOP_GTE)
		return -1;
	for (i = 0; i < bs->n; i++) {
		Bnd b = bs->v[i];
		uint32_t c = c0(s, b), x = b0(s, b);

		if (c == s->br[0] && x == root0)
			continue;
		before += reuses_before(s, c, x);
		after += reuses_after(s, c, x, pos == B_OPND ? 0 : -1);
	}
	if (pos == B_USER)
		for (i = 0; i < bs->n; i++)
			copy += copy_folding(s, b0(s, bs->v[i]));
	if (!after && !before && !copy)
		return -1;
	if (pos == B_IN)
		return after - before;
	if (pos == B_USER)
		return before - after - 1 + copy;
	return after > 0;
}

/* ConsiderCodeMotion: the decision for one boundary; to_move and next
 * filled (owned by the caller) */
static int
consider(Ccm *s, Bnd cur, BVec *to_move, BVec *next, int64_t *gain)
{
	Group g;
	uint32_t i;
	int64_t ben;
	int d = D_NONE;

	memset(&g, 0, sizeof g);
	*gain = 0;
	if (cur.pos == B_SEED) {
		Bnd r = bnew(s, B_IN, s->nb);

		for (i = 0; i < s->nb; i++)
			BID(s, r, i) = s->m->comps[s->br[i]].root;
		bpush(&g.newb, r);
		for (i = 0; i < nusers(s, s->P, s->X); i++)
			bpush(&g.newb, bone(s, B_USER,
				user_at(s, s->P, s->X, i)));
		for (i = 1; i < ins(s, s->P, s->X)->nops; i++)
			bpush(&g.newb, bone(s, B_OPND,
				opnd(s, s->P, s->X, i)));
	} else {
		add_boundaries(s, &g, cur);
	}
	if (!g.conn.n) {
		for (i = 0; i < g.newb.n; i++)
			bpush(next, g.newb.v[i]);
		gfree(&g);
		return D_NONE;
	}
	ben = benefit(s, &g.conn);
	if (ben >= 0 && g.mem > 0 && g.mem / (int64_t)g.conn.n > 5000)
		ben = -1;
	if (ben >= 0) {
		for (i = 0; i < g.newb.n; i++)
			bpush(next, g.newb.v[i]);
		for (i = 0; i < g.conn.n; i++)
			bpush(to_move, g.conn.v[i]);
		d = g.conn.v[0].pos == B_IN ? D_OUT : D_IN;
		*gain = ben;
	} else {
		for (i = 0; i < g.newb.n; i++)
			vdel(s, vkey(s, c0(s, g.newb.v[i]),
				b0(s, g.newb.v[i])));
	}
	gfree(&g);
	return d;
}

/* building */
static uint32_t
add_op(Ccm *s, uint32_t c, int op, uint32_t shape, uint32_t n,
	const uint32_t *ops)
{
	s->touched[c] = 1;
	return hlo_instr_add(s->m, c, op, shape,
		hlo_fresh_name(s->m, hlo_opinfo[op].name), n, ops);
}

static uint32_t
add_gte(Ccm *s, uint32_t c, uint32_t t, int64_t idx)
{
	const HloShape *sh = hlo_sh(s->m, ins(s, c, t)->shape);
	uint32_t g = add_op(s, c, HOP_GTE, hlo_tuple_elems(s->m, sh)[idx], 1,
		&t);
	HloAttr a = hlo_mk_int(A_INDEX, idx);

	hlo_set_attrs(s->m, c, g, 1, &a);
	return g;
}

static uint32_t
add_gte_sh(Ccm *s, uint32_t c, uint32_t t, int64_t idx, uint32_t shape)
{
	uint32_t g = add_op(s, c, HOP_GTE, shape, 1, &t);
	HloAttr a = hlo_mk_int(A_INDEX, idx);

	hlo_set_attrs(s->m, c, g, 1, &a);
	return g;
}

static uint32_t
add_tuple(Ccm *s, uint32_t c, uint32_t n, const uint32_t *ops)
{
	uint32_t *sh = xreallocarray(NULL, n + 1, sizeof *sh), k, t;

	for (k = 0; k < n; k++)
		sh[k] = ins(s, c, ops[k])->shape;
	t = hlo_shape_tuple(s->m, n, sh);
	free(sh);
	return add_op(s, c, HOP_TUPLE, t, n, ops);
}

/* the conditional takes the shape of its first branch's root; its
 * sharding follows the new root tuple's (none) */
static void
reshape_cond(Ccm *s)
{
	HloModule *m = s->m;

	m->comps[s->P].ins[s->X].shape =
		ins(s, s->br[0], m->comps[s->br[0]].root)->shape;
	hlo_attr_del(m, s->P, s->X, A_SHARDING);
	s->touched[s->P] = 1;
}

/* marks dead, in order, the instructions of list (in c) that nothing
 * live uses once the earlier ones are gone (RemoveInstruction of the
 * dead); never the root */
static void
kill_unused(Ccm *s, uint32_t c, const uint32_t *list, uint32_t n)
{
	HloComp *cp = &s->m->comps[c];
	uint32_t *cnt = xcalloc(cp->nins + 1, sizeof *cnt), i, k, x;
	int any = 0;

	for (i = 0; i < cp->nins; i++)
		if (!(cp->ins[i].flags & HI_DEAD))
			for (k = 0; k < cp->ins[i].nops; k++)
				cnt[s->m->ids[cp->ins[i].ops + k]]++;
	for (i = 0; i < n; i++) {
		x = list[i];
		if ((cp->ins[x].flags & HI_DEAD) || cp->root == x || cnt[x])
			continue;
		cp->ins[x].flags |= HI_DEAD;
		any = 1;
		for (k = 0; k < cp->ins[x].nops; k++)
			cnt[s->m->ids[cp->ins[x].ops + k]]--;
	}
	free(cnt);
	if (any)
		invalidate(s, c);
}

/* replace the operands of c's live instructions (and the root) by map */
static void
forward(Ccm *s, uint32_t c, uint32_t *map, uint32_t nmap)
{
	uint32_t n = s->m->comps[c].nins, i;

	map = xreallocarray(map, n + 1, sizeof *map);
	for (i = nmap; i < n; i++)
		map[i] = i;
	hlo_forward(s->m, c, map);
	free(map);
	invalidate(s, c);
}

static uint32_t *
idmap(Ccm *s, uint32_t c)
{
	uint32_t n = s->m->comps[c].nins, i,
		*map = xreallocarray(NULL, n + 1, sizeof *map);

	for (i = 0; i < n; i++)
		map[i] = i;
	return map;
}

/* MoveInstructionOut */
static int
move_out(Ccm *s, const BVec *tm, const BVec *nbs)
{
	HloModule *m = s->m;
	BMap hoisted;
	uint32_t i, j, k, *ops, *map, nmap, nu, *gtes, n, x;
	int ok = 1;

	if (hlo_sh(m, ins(s, s->P, s->X)->shape)->type != TY_TUPLE)
		return 0;
	for (j = 0; j < s->nb; j++)
		if (opc(s, s->br[j], m->comps[s->br[j]].root) != HOP_TUPLE)
			return 0;
	memset(&hoisted, 0, sizeof hoisted);
	for (k = 0; k < nbs->n; k++) {
		x = add_gte_sh(s, s->P, s->X, k, ins(s, s->br[0],
			b0(s, nbs->v[k]))->shape);
		*bmslot(s, &hoisted, nbs->v[k], 1) = x;
	}
	for (i = tm->n; i-- > 0 && ok;) {
		Bnd b = tm->v[i];
		uint32_t x0 = b0(s, b), no = ins(s, s->br[0], x0)->nops;

		ops = xreallocarray(NULL, no + 1, sizeof *ops);
		for (k = 0; k < no && ok; k++) {
			Bnd ob = bnew(s, B_IN, s->nb);
			uint32_t *h;

			for (j = 0; j < s->nb; j++)
				BID(s, ob, j) = opnd(s, s->br[j],
					BID(s, b, j), k);
			h = bmslot(s, &hoisted, ob, 0);
			if (!h || *h == HLO_NONE)
				ok = 0;
			else
				ops[k] = *h;
		}
		if (ok)
			*bmslot(s, &hoisted, b, 1) = pass_copy_instr(m, s->P,
				s->br[0], x0, no, ops);
		free(ops);
	}
	if (!ok) {
		bmfree(&hoisted);
		return hlo_err(&s->ctx->err, "conditional-code-motion: "
			"an operand of a hoisted instruction was not hoisted");
	}
	s->touched[s->P] = 1;
	/* the old users of the conditional read the hoisted values */
	nu = nusers(s, s->P, s->X);
	gtes = xreallocarray(NULL, nu + 1, sizeof *gtes);
	for (k = 0; k < nu; k++)
		gtes[k] = user_at(s, s->P, s->X, k);
	nmap = s->m->comps[s->P].nins;
	map = idmap(s, s->P);
	for (k = 0; k < nu; k++) {
		int64_t idx = hlo_attr_int(m, ins(s, s->P, gtes[k]), A_INDEX,
			0);
		Bnd ob = bnew(s, B_IN, s->nb);
		uint32_t *h;

		for (j = 0; j < s->nb; j++)
			BID(s, ob, j) = opnd(s, s->br[j],
				m->comps[s->br[j]].root, (uint32_t)idx);
		h = bmslot(s, &hoisted, ob, 0);
		if (h && *h != HLO_NONE)
			map[gtes[k]] = *h;
	}
	forward(s, s->P, map, nmap);
	kill_unused(s, s->P, gtes, nu);
	free(gtes);
	/* each branch returns the values the hoisted code needs */
	n = nbs->n > tm->n ? nbs->n : tm->n;
	ops = xreallocarray(NULL, n + 1, sizeof *ops);
	for (j = 0; j < s->nb; j++) {
		uint32_t c = s->br[j];

		for (k = 0; k < nbs->n; k++)
			ops[k] = BID(s, nbs->v[k], j);
		m->comps[c].root = add_tuple(s, c, nbs->n, ops);
		invalidate(s, c);
		for (i = 0; i < tm->n; i++)
			ops[i] = BID(s, tm->v[i], j);
		kill_unused(s, c, ops, tm->n);
	}
	free(ops);
	reshape_cond(s);
	bmfree(&hoisted);
	s->rewrites += tm->n;
	return 1;
}

/* appends x (of c) to the root tuple of c */
static void
root_append(Ccm *s, uint32_t c, uint32_t x)
{
	HloModule *m = s->m;
	uint32_t r = m->comps[c].root, n = ins(s, c, r)->nops, k;
	uint32_t *ops = xreallocarray(NULL, n + 2, sizeof *ops);

	for (k = 0; k < n; k++)
		ops[k] = opnd(s, c, r, k);
	ops[n] = x;
	hlo_set_operands(m, c, r, n + 1, ops);
	for (k = 0; k <= n; k++)
		ops[k] = ins(s, c, ops[k])->shape;
	m->comps[c].ins[r].shape = hlo_shape_tuple(m, n + 1, ops);
	free(ops);
}

/* CopyIntoConditional's operands, checked before anything changes: each
 * operand of a moved user is hoisted (the conditional, the used
 * get-tuple-element, an earlier moved user), a constant or a
 * get-tuple-element of the conditional */
static int
move_in_ok(Ccm *s, const BVec *tm, uint32_t from, uint32_t tuse,
	int64_t use_index)
{
	uint32_t i, k, o;

	for (i = from; i < tm->n; i++) {
		uint32_t x = b0(s, tm->v[i]);

		for (k = 0; k < ins(s, s->P, x)->nops; k++) {
			uint32_t q;

			o = opnd(s, s->P, x, k);
			if (o == s->X || (use_index >= 0 && o == tuse))
				continue;
			for (q = from; q < i; q++)
				if (b0(s, tm->v[q]) == o)
					break;
			if (q < i || opc(s, s->P, o) == HOP_CONSTANT)
				continue;
			if (opc(s, s->P, o) != HOP_GTE ||
			    opnd(s, s->P, o, 0) != s->X)
				return 0;
		}
	}
	return 1;
}

/* the branch values standing for outside instruction o: hoisted[o] */
typedef struct {
	uint32_t key;		/* instruction of the parent */
	uint32_t off;		/* nb ids in the pool */
} Hoist;

static int
hoist_find(const Hoist *h, uint32_t n, uint32_t key)
{
	uint32_t i;

	for (i = n; i-- > 0;)
		if (h[i].key == key)
			return (int)i;
	return -1;
}

/* MoveUserInstructionsIn's new branch roots: every old root entry but
 * use_index (which goes to bu), the old roots in bo */
static void
move_in_roots(Ccm *s, int64_t use_index, Bnd bo, Bnd bu)
{
	HloModule *m = s->m;
	uint32_t j, k, *ops;

	for (j = 0; j < s->nb; j++) {
		uint32_t c = s->br[j], r = m->comps[c].root, n, w = 0;
		const HloShape *rs = hlo_sh(m, ins(s, c, r)->shape);

		BID(s, bo, j) = r;
		BID(s, bu, j) = HLO_NONE;
		if (opc(s, c, r) == HOP_TUPLE) {
			n = ins(s, c, r)->nops;
			ops = xreallocarray(NULL, n + 1, sizeof *ops);
			for (k = 0; k < n; k++) {
				if ((int64_t)k == use_index)
					BID(s, bu, j) = opnd(s, c, r, k);
				else
					ops[w++] = opnd(s, c, r, k);
			}
		} else if (rs->type == TY_TUPLE) {
			n = rs->ntuple;
			ops = xreallocarray(NULL, n + 1, sizeof *ops);
			for (k = 0; k < n; k++) {
				uint32_t g = add_gte(s, c, r, k);

				if ((int64_t)k == use_index)
					BID(s, bu, j) = g;
				else
					ops[w++] = g;
			}
		} else {
			ops = xreallocarray(NULL, 1, sizeof *ops);
		}
		m->comps[c].root = add_tuple(s, c, w, ops);
		free(ops);
		if (opc(s, c, r) == HOP_TUPLE)
			kill_unused(s, c, &r, 1);
		invalidate(s, c);
	}
}

/* MoveUserInstructionsIn */
static int
move_user_in(Ccm *s, const BVec *tm)
{
	HloModule *m = s->m;
	uint32_t tuse = HLO_NONE, from, i, j, k, nh = 0, *ops, *map, nmap;
	uint32_t *dead;
	int64_t use_index = -1, op_index;
	int tup = hlo_sh(m, ins(s, s->P, s->X)->shape)->type == TY_TUPLE;
	Hoist *h;
	Bnd bu, bo;

	if (!tm->n || (!tup && nusers(s, s->P, s->X) > 1))
		return 0;
	if (opc(s, s->P, b0(s, tm->v[0])) == HOP_GTE)
		tuse = b0(s, tm->v[0]);
	if (tuse != HLO_NONE && nusers(s, s->P, tuse) == 1)
		use_index = hlo_attr_int(m, ins(s, s->P, tuse), A_INDEX, 0);
	from = tuse != HLO_NONE;
	if (!move_in_ok(s, tm, from, tuse, use_index))
		return 0;
	op_index = tup ? (int64_t)hlo_sh(m, ins(s, s->P, s->X)->shape)->ntuple
		- (use_index >= 0) : 0;
	bo = bnew(s, B_IN, s->nb);	/* b_old_root */
	bu = bnew(s, B_IN, s->nb);	/* b_opd_use */
	move_in_roots(s, use_index, bo, bu);
	if (use_index != -1)
		for (k = 0; k < nusers(s, s->P, s->X); k++) {
			uint32_t g = user_at(s, s->P, s->X, k);
			int64_t idx = hlo_attr_int(m, ins(s, s->P, g),
				A_INDEX, -1);

			if (opc(s, s->P, g) == HOP_GTE && idx > use_index) {
				HloAttr a = hlo_mk_int(A_INDEX, idx - 1);

				hlo_attr_set(m, s->P, g, &a);
			}
		}
	h = xreallocarray(NULL, tm->n + 3, sizeof *h);
	h[nh].key = s->X;
	h[nh++].off = bo.off;
	if (use_index >= 0) {
		h[nh].key = tuse;
		h[nh++].off = bu.off;
	}
	nmap = s->m->comps[s->P].nins;
	map = idmap(s, s->P);
	ops = xreallocarray(NULL, 1, sizeof *ops);
	for (i = from; i < tm->n; i++) {
		uint32_t x = b0(s, tm->v[i]), no = ins(s, s->P, x)->nops;
		Bnd nw = bnew(s, B_IN, s->nb);
		int out = !(i + 1 < tm->n && nusers(s, s->P, x) == 1 &&
			user_at(s, s->P, x, 0) == b0(s, tm->v[i + 1]));

		ops = xreallocarray(ops, no + 1, sizeof *ops);
		for (j = 0; j < s->nb; j++) {
			uint32_t c = s->br[j];

			for (k = 0; k < no; k++) {
				uint32_t o = opnd(s, s->P, x, k);
				int hi = hoist_find(h, nh, o);

				if (hi >= 0)
					ops[k] = s->pool[h[hi].off + j];
				else if (opc(s, s->P, o) == HOP_CONSTANT)
					ops[k] = pass_copy_instr(m, c, s->P,
						o, 0, NULL);
				else
					ops[k] = opnd(s, c, m->comps[c].root,
						(uint32_t)hlo_attr_int(m,
						ins(s, s->P, o), A_INDEX, 0));
			}
			BID(s, nw, j) = pass_copy_instr(m, c, s->P, x, no,
				ops);
			s->touched[c] = 1;
		}
		h[nh].key = x;
		h[nh++].off = nw.off;
		if (!out)
			continue;
		for (j = 0; j < s->nb; j++)
			root_append(s, s->br[j], BID(s, nw, j));
		map[x] = add_gte_sh(s, s->P, s->X, op_index++,
			ins(s, s->P, x)->shape);
	}
	free(ops);
	free(h);
	reshape_cond(s);
	if (use_index != -1)
		for (k = 0; k < nusers(s, s->P, s->X); k++) {
			uint32_t g = user_at(s, s->P, s->X, k);
			const HloShape *cs = hlo_sh(m, ins(s, s->P, s->X)->shape);
			int64_t idx = hlo_attr_int(m, ins(s, s->P, g),
				A_INDEX, -1);

			if (opc(s, s->P, g) == HOP_GTE && idx >= 0 &&
			    idx < cs->ntuple)
				m->comps[s->P].ins[g].shape =
					hlo_tuple_elems(m, cs)[idx];
		}
	forward(s, s->P, map, nmap);
	dead = xreallocarray(NULL, tm->n + 1, sizeof *dead);
	for (i = 0; i < tm->n; i++)
		dead[i] = b0(s, tm->v[tm->n - 1 - i]);
	kill_unused(s, s->P, dead, tm->n);
	free(dead);
	for (j = 0; j < s->nb; j++)
		invalidate(s, s->br[j]);
	s->rewrites += tm->n;
	return 1;
}

/* FindSpecialConverts' convert_invalid: fed by or feeding a convert */
static int
convert_invalid(Ccm *s, uint32_t c, uint32_t x)
{
	uint32_t k;

	for (k = 0; k < nusers(s, c, x); k++)
		if (opc(s, c, user_at(s, c, x, k)) == HOP_CONVERT)
			return 1;
	for (k = 0; k < ins(s, c, x)->nops; k++)
		if (opc(s, c, opnd(s, c, x, k)) == HOP_CONVERT)
			return 1;
	return 0;
}

/* FindSpecialConverts: special[k] for root index k */
static int
find_converts(Ccm *s, uint8_t *special)
{
	uint32_t c = s->br[0], r = s->m->comps[c].root, n = ins(s, c, r)->nops;
	uint32_t k, q, j, x, y, cnt;
	int any = 0;

	for (k = 0; k < n; k++) {
		special[k] = 0;
		x = opnd(s, c, r, k);
		if (opc(s, c, x) != HOP_CONVERT)
			continue;
		for (q = cnt = 0; q < n; q++)
			cnt += opnd(s, c, r, q) == x;
		if (convert_invalid(s, c, x) || cnt > 1)
			continue;
		for (j = 1; j < s->nb; j++) {
			uint32_t bc = s->br[j], br = s->m->comps[bc].root;

			if (k >= ins(s, bc, br)->nops)
				break;
			y = opnd(s, bc, br, k);
			if (opc(s, bc, y) != HOP_CONVERT ||
			    convert_invalid(s, bc, y))
				break;
			if (!pass_shape_equal(s->m, ins(s, bc, y)->shape,
			    ins(s, c, x)->shape) ||
			    !pass_shape_equal(s->m,
			    ins(s, bc, opnd(s, bc, y, 0))->shape,
			    ins(s, c, opnd(s, c, x, 0))->shape))
				break;
		}
		if (j == s->nb)
			special[k] = any = 1;
	}
	return any;
}

/* ConvertSpecialMove: converts at the same root index of every branch
 * hoisted after the conditional */
static int
convert_special(Ccm *s)
{
	HloModule *m = s->m;
	uint32_t j, k, n, r, *ops, *gtes, *map, nmap, nu, t, c, x, *olduse;
	uint8_t *special;
	uint32_t *hoist;

	for (j = 0; j < s->nb; j++)
		if (opc(s, s->br[j], m->comps[s->br[j]].root) != HOP_TUPLE)
			return 0;
	r = m->comps[s->br[0]].root;
	n = ins(s, s->br[0], r)->nops;
	special = xcalloc(n + 1, 1);
	if (!find_converts(s, special)) {
		free(special);
		return 0;
	}
	/* RestructureConditionalInstruction */
	nu = nusers(s, s->P, s->X);
	olduse = xreallocarray(NULL, nu + 1, sizeof *olduse);
	for (k = 0; k < nu; k++)
		olduse[k] = user_at(s, s->P, s->X, k);
	t = hlo_sh(m, ins(s, s->P, s->X)->shape)->ntuple;
	gtes = xreallocarray(NULL, t + 1, sizeof *gtes);
	for (k = 0; k < t; k++)
		gtes[k] = add_gte(s, s->P, s->X, k);
	t = add_tuple(s, s->P, hlo_sh(m, ins(s, s->P, s->X)->shape)->ntuple,
		gtes);
	if (m->comps[s->P].root == s->X)
		m->comps[s->P].root = t;
	for (k = 0; k < nu; k++) {
		HloInstr *u = &m->comps[s->P].ins[olduse[k]];
		uint32_t q;

		for (q = 0; q < u->nops; q++)
			if (m->ids[u->ops + q] == s->X)
				m->ids[u->ops + q] = t;
	}
	free(olduse);
	/* the branches return the converts' operands */
	hoist = xreallocarray(NULL, n + 1, sizeof *hoist);
	ops = xreallocarray(NULL, n + 1, sizeof *ops);
	for (j = 0; j < s->nb; j++) {
		c = s->br[j];
		r = m->comps[c].root;
		for (k = 0; k < n; k++) {
			x = opnd(s, c, r, k);
			if (j == 0)
				hoist[k] = x;
			ops[k] = special[k] ? opnd(s, c, x, 0) : x;
		}
		m->comps[c].root = add_tuple(s, c, n, ops);
		kill_unused(s, c, &r, 1);
		invalidate(s, c);
	}
	free(ops);
	reshape_cond(s);
	/* the converts after the conditional */
	nmap = s->m->comps[s->P].nins;
	map = idmap(s, s->P);
	for (k = 0; k < n; k++) {
		uint32_t g, cv;

		if (!special[k])
			continue;
		m->comps[s->P].ins[gtes[k]].shape = hlo_tuple_elems(m,
			hlo_sh(m, ins(s, s->P, s->X)->shape))[k];
		g = add_gte(s, s->P, s->X, k);
		cv = pass_copy_instr(m, s->P, s->br[0], hoist[k], 1, &g);
		map[gtes[k]] = cv;
		s->rewrites++;
	}
	forward(s, s->P, map, nmap);
	kill_unused(s, s->P, gtes, n);
	free(gtes);
	free(hoist);
	free(special);
	return 1;
}

/* the conditionals to analyse (in computation and instruction post
 * order) and how many times each branch computation is called as one */
typedef struct {
	uint32_t c, i;
} Site;

static Site *
collect(Ccm *s, uint32_t *nsites, uint32_t **shared)
{
	HloModule *m = s->m;
	uint32_t *corder = xreallocarray(NULL, m->ncomps + 1, sizeof *corder);
	uint32_t *order, *seen, n = 0, cap = 8, k, q, j;
	int nc = pass_comp_post_order(m, corder), ci;
	Site *v = xreallocarray(NULL, cap, sizeof *v);

	*shared = xcalloc(m->ncomps + 1, sizeof **shared);
	seen = xcalloc(m->ncomps + 1, sizeof *seen);
	for (ci = 0; ci < nc; ci++) {
		uint32_t c = corder[ci], cnt;

		order = pass_alloc(s->ctx, (m->comps[c].nins + 1) *
			sizeof *order);
		cnt = pass_post_order(m, c, order, s->ctx);
		for (k = 0; k < cnt; k++) {
			const HloInstr *in = ins(s, c, order[k]);
			int ok = 1;

			if (in->op != HOP_CONDITIONAL)
				continue;
			for (j = 0; j < in->ncalled; j++) {
				uint32_t b = m->ids[in->called + j];

				if (seen[b])
					(*shared)[b]++;
				seen[b] = 1;
			}
			if (hlo_sh(m, in->shape)->type == TY_TUPLE)
				for (q = 0; q < nusers(s, c, order[k]); q++)
					if (opc(s, c, user_at(s, c, order[k],
					    q)) != HOP_GTE)
						ok = 0;
			if (!ok)
				continue;
			if (n == cap) {
				cap *= 2;
				v = xreallocarray(v, cap, sizeof *v);
			}
			v[n].c = c;
			v[n++].i = order[k];
		}
	}
	free(seen);
	free(corder);
	*nsites = n;
	return v;
}

/* the branches of s->X that others share are cloned (xla's clone_i) */
static void
own_branches(Ccm *s, uint32_t *shared)
{
	HloModule *m = s->m;
	uint32_t j, cl;

	for (j = 0; j < s->nb; j++) {
		uint32_t b = s->br[j];

		if (b >= m->ncomps || !shared[b])
			continue;
		cl = hlo_comp_clone(m, b, ".clone");
		grow_comps(s);
		s->fx[cl] = s->fx[b];
		s->ctrl[cl] = s->ctrl[b];
		shared[b]--;
		s->br[j] = cl;
		hlo_set_called(m, s->P, s->X, s->nb, s->br);
		s->touched[cl] = 1;
	}
}

/* the analysis and motion of one conditional; 1 changed, -1 error */
static int
one_conditional(Ccm *s, uint32_t *shared, uint32_t nshared)
{
	HloModule *m = s->m;
	Visitor v;
	Bnd b;
	BVec outs, ins_, nout, nin, tm, nx;
	uint32_t *gstart_in, ngin = 0, *gstart_out, ngout = 0, i, j, k;
	int64_t gain, bout = 0, bin = 0;
	int d, final = D_NONE, is_shared = 0, changed = 0, r;

	for (j = 0; j < s->nb; j++)
		if (s->br[j] < nshared && shared[s->br[j]])
			is_shared = 1;
	memset(&v, 0, sizeof v);
	memset(&outs, 0, sizeof outs);
	memset(&ins_, 0, sizeof ins_);
	memset(&nout, 0, sizeof nout);
	memset(&nin, 0, sizeof nin);
	memset(&tm, 0, sizeof tm);
	memset(&nx, 0, sizeof nx);
	/* groups: boundaries of group g in [gstart[g], gstart[g + 1]) of
	 * outs/ins_, their new boundaries likewise in nout/nin */
	gstart_in = xreallocarray(NULL, 2, sizeof *gstart_in);
	gstart_out = xreallocarray(NULL, 2, sizeof *gstart_out);
	vclear(s);
	bpush(&v.work, bone(s, B_SEED, s->X));
	while (vis_next(s, &v, &b)) {
		tm.n = nx.n = 0;
		d = consider(s, b, &tm, &nx, &gain);
		if (d == D_NONE) {
			for (i = 0; i < nx.n; i++)
				bpush(&v.work, nx.v[i]);
			continue;
		}
		if (d == D_OUT) {
			gstart_out = xreallocarray(gstart_out, 2 * ngout + 4,
				sizeof *gstart_out);
			gstart_out[2 * ngout] = outs.n;
			gstart_out[2 * ngout + 1] = nout.n;
			ngout++;
			for (i = 0; i < tm.n; i++)
				bpush(&outs, tm.v[i]);
			for (i = 0; i < nx.n; i++)
				bpush(&nout, nx.v[i]);
			bout += gain;
			if (bout >= bin)
				final = D_OUT;
		} else {
			gstart_in = xreallocarray(gstart_in, 2 * ngin + 4,
				sizeof *gstart_in);
			gstart_in[2 * ngin] = ins_.n;
			gstart_in[2 * ngin + 1] = nin.n;
			ngin++;
			for (i = 0; i < tm.n; i++)
				bpush(&ins_, tm.v[i]);
			for (i = 0; i < nx.n; i++)
				bpush(&nin, nx.v[i]);
			bin += gain;
			if (bout < bin)
				final = D_IN;
		}
	}
	gstart_out[2 * ngout] = outs.n;
	gstart_out[2 * ngout + 1] = nout.n;
	gstart_in[2 * ngin] = ins_.n;
	gstart_in[2 * ngin + 1] = nin.n;
	if (final != D_NONE && is_shared)
		own_branches(s, shared);
	r = 0;
	if (final == D_OUT) {
		for (k = 0; k < ngout && r >= 0; k++) {
			BVec a = { outs.v + gstart_out[2 * k],
				gstart_out[2 * k + 2] - gstart_out[2 * k], 0, 0 };
			BVec c = { nout.v + gstart_out[2 * k + 1],
				gstart_out[2 * k + 3] - gstart_out[2 * k + 1],
				0, 0 };

			r = move_out(s, &a, &c);
			changed |= r > 0;
		}
	} else if (final == D_IN) {
		for (k = 0; k < ngin && r >= 0; k++) {
			BVec a = { ins_.v + gstart_in[2 * k],
				gstart_in[2 * k + 2] - gstart_in[2 * k], 0, 0 };

			/* operands into the branches: not done (contract) */
			if (!a.n || a.v[0].pos != B_USER)
				continue;
			r = move_user_in(s, &a);
			changed |= r > 0;
		}
	} else if (!is_shared) {
		r = convert_special(s);
		changed |= r > 0;
	}
	(void)m;
	vis_free(&v);
	bvfree(&outs);
	bvfree(&ins_);
	bvfree(&nout);
	bvfree(&nin);
	bvfree(&tm);
	bvfree(&nx);
	free(gstart_in);
	free(gstart_out);
	return r < 0 ? -1 : changed;
}

/* HloCSE(layout sensitive) and HloDCE, as xla's before-pipeline */
static int
cleanup_before(HloModule *m, PassCtx *ctx)
{
	int save = ctx->opt.cse_layout_sensitive, a, b;

	ctx->opt.cse_layout_sensitive = 1;
	a = pass_cse(m, ctx);
	ctx->opt.cse_layout_sensitive = save;
	if (a < 0)
		return -1;
	b = pass_dce_module(m, ctx);
	if (b < 0)
		return -1;
	pass_reset(ctx);
	return a || b;
}

static int
cleanup_after(HloModule *m, PassCtx *ctx)
{
	int a, b, c;

	if ((a = pass_dce_module(m, ctx)) < 0 ||
	    (b = pass_tuple_simplifier(m, ctx)) < 0 ||
	    (c = pass_dce_module(m, ctx)) < 0)
		return -1;
	return a || b || c;
}

static void
ccm_free(Ccm *s)
{
	uint32_t c;

	for (c = 0; c < s->capc; c++) {
		free(s->us[c].start);
		free(s->us[c].list);
	}
	free(s->us);
	free(s->fx);
	free(s->touched);
	free(s->ctrl);
	free(s->pool);
	free(s->vk);
	free(s->vv);
	free(s->vu);
	free(s->br);
}

int
pass_conditional_code_motion(HloModule *m, PassCtx *ctx)
{
	Ccm s;
	Site *sites;
	uint32_t nsites, *shared, nshared, i, c, k;
	int before, changed = 0, r = 0;
	uint8_t *fx;

	before = cleanup_before(m, ctx);
	if (before < 0)
		return -1;
	memset(&s, 0, sizeof s);
	s.m = m;
	s.ctx = ctx;
	grow_comps(&s);
	fx = pass_comp_effects(m, ctx);
	memcpy(s.fx, fx, m->ncomps);
	for (c = 0; c < m->ncomps; c++)
		for (k = 0; k < m->comps[c].nins; k++)
			if (m->comps[c].ins[k].nctrl)
				s.ctrl[c] = 1;
	pass_fresh_names(m);
	nshared = m->ncomps;
	sites = collect(&s, &nsites, &shared);
	for (i = 0; i < nsites && r >= 0; i++) {
		const HloInstr *x = ins(&s, sites[i].c, sites[i].i);
		uint32_t j;
		int skip = s.ctrl[sites[i].c];

		s.P = sites[i].c;
		s.X = sites[i].i;
		s.nb = x->ncalled;
		if (!s.nb || (x->flags & HI_DEAD))
			continue;
		s.br = xreallocarray(s.br, s.nb, sizeof *s.br);
		memcpy(s.br, m->ids + x->called, s.nb * sizeof *s.br);
		for (j = 0; j < s.nb; j++)
			if (s.ctrl[s.br[j]] ||
			    hlo_param_count(m, s.br[j]) != 1)
				skip = 1;
		if (skip)
			continue;
		r = one_conditional(&s, shared, nshared);
		if (r > 0)
			changed = 1;
		s.npool = 0;
	}
	free(sites);
	free(shared);
	if (r < 0) {
		ccm_free(&s);
		return -1;
	}
	ctx->stats.rewrites += s.rewrites;
	if (changed) {
		for (c = 0; c < m->ncomps; c++)
			if (s.touched[c] && hlo_comp_compact(m, c) < 0) {
				ccm_free(&s);
				return pass_err_cycle(ctx, m, c);
			}
		ccm_free(&s);
		pass_reset(ctx);
		if (cleanup_after(m, ctx) < 0)
			return -1;
		return 1;
	}
	ccm_free(&s);
	return before;
}
