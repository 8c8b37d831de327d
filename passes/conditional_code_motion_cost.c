/* conditional_code_motion_cost.c: the analysis half of
 * "conditional-code-motion" (contract in conditional_code_motion.c):
 * xla's boundaries and their visitor, the users and visited counts it
 * keeps, its move and reuse tables (WorthHoisting, ReusesCarriedBy), the
 * grouping of connected boundaries (GroupConnectedBoundaries) and the
 * benefit of moving a group (ConsiderCodeMotion). */
#include <stdlib.h>
#include <string.h>

#include "conditional_code_motion.h"

/* computations: growable per-computation arrays */
void
pass_ccm_grow_comps(Ccm *s)
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

void
pass_ccm_invalidate(Ccm *s, uint32_t c)
{
	Users *u = &s->us[c];

	free(u->start);
	free(u->list);
	free(u->nonleaf);
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
	u->nonleaf = xreallocarray(NULL, n + 1, sizeof *u->nonleaf);
	for (i = 0; i < n; i++)
		u->nonleaf[i] = -1;
	hlo_users_free(&hu);
	u->built = 1;
	return u;
}

uint32_t
pass_ccm_nusers(Ccm *s, uint32_t c, uint32_t i)
{
	Users *u = users(s, c);

	return i < u->n ? u->start[i + 1] - u->start[i] : 0;
}

uint32_t
pass_ccm_user_at(Ccm *s, uint32_t c, uint32_t i, uint32_t k)
{
	Users *u = users(s, c);

	return u->list[u->start[i] + k];
}

/* boundaries */
Bnd
pass_ccm_bnew(Ccm *s, int pos, uint32_t n)
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

Bnd
pass_ccm_bone(Ccm *s, int pos, uint32_t x)
{
	Bnd b = pass_ccm_bnew(s, pos, 1);

	s->pool[b.off] = x;
	return b;
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

void
pass_ccm_bpush(BVec *v, Bnd b)
{
	if (v->n == v->cap) {
		v->cap = v->cap * 2 + 8;
		v->v = xreallocarray(v->v, v->cap, sizeof *v->v);
	}
	v->v[v->n++] = b;
}

void
pass_ccm_bvfree(BVec *v)
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

void
pass_ccm_bmfree(BMap *mp)
{
	free(mp->key);
	free(mp->val);
	free(mp->used);
	memset(mp, 0, sizeof *mp);
}

uint32_t *
pass_ccm_bmslot(Ccm *s, BMap *mp, Bnd b, int add)
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
				*pass_ccm_bmslot(s, &nm, mp->key[k], 1) = mp->val[k];
		pass_ccm_bmfree(mp);
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

void
pass_ccm_vclear(Ccm *s)
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
	Users *u = users(s, c);
	uint32_t buf[16], *v, k, n = 0;
	int64_t cnt = 0;

	if (i < u->n && u->nonleaf[i] >= 0)
		return u->nonleaf[i];
	v = in->nops <= 16 ? buf : xreallocarray(NULL, in->nops, sizeof *v);
	for (k = 0; k < in->nops; k++)
		if (opc(s, c, opnd(s, c, i, k)) != HOP_CONSTANT)
			v[n++] = opnd(s, c, i, k);
	qsort(v, n, sizeof *v, cmp_u32);
	for (k = 0; k < n; k++)
		cnt += k == 0 || v[k] != v[k - 1];
	if (v != buf)
		free(v);
	if (i < u->n)
		u->nonleaf[i] = cnt;
	return cnt;
}

/* GroupConnectedBoundaries::ReusesCarriedBy: op in ca, user in cb */
static int64_t
reuses_by(Ccm *s, uint32_t ca, uint32_t a, uint32_t cb, uint32_t b)
{
	int64_t cfg = reuse_table(opc(s, ca, a), opc(s, cb, b)), c1, c2;

	if (cfg >= 0)
		return cfg;
	c1 = pass_ccm_nusers(s, ca, a);
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
	pass_ccm_bvfree(&g->conn);
	pass_ccm_bvfree(&g->newb);
}

/* IsSafeToMoveBoundary */
static int
safe_to_move(Ccm *s, Group *g, Bnd nb)
{
	uint32_t c = c0(s, nb), x = b0(s, nb);
	int64_t cnt = nb.pos == B_USER ? nonleaf_operands(s, c, x) :
		(int64_t)pass_ccm_nusers(s, c, x);
	uint64_t k = vkey(s, c, x);
	int32_t *v;
	int pos;

	if (cnt <= 1) {
		if (nb.pos == B_OPND && pass_ccm_nusers(s, c, x) > 0 &&
		    pass_ccm_user_at(s, c, x, 0) == s->X && opnd(s, s->P, s->X, 0) == x)
			return 0;
		return 1;
	}
	v = vslot(s, k, 0);
	if (!v) {
		*vslot(s, k, 1) = 1;
		pass_ccm_bpush(&g->newb, nb);
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
		if (pass_ccm_nusers(s, c, x) > 1)
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
	Bnd nb = pass_ccm_bnew(s, b.pos, b.n);
	uint32_t j;

	for (j = 0; j < b.n; j++)
		BID(s, nb, j) = b.pos == B_USER ?
			pass_ccm_user_at(s, s->P, BID(s, b, j), k) :
			opnd(s, bcomp(s, b, j), BID(s, b, j), k);
	return nb;
}


int
pass_ccm_vis_next(Ccm *s, Visitor *v, Bnd *out)
{
	while (v->work.head < v->work.n) {
		Bnd b = v->work.v[v->work.head++];

		if (pass_ccm_bmslot(s, &v->seen, b, 0))
			continue;
		*pass_ccm_bmslot(s, &v->seen, b, 1) = 1;
		*out = b;
		return 1;
	}
	return 0;
}

void
pass_ccm_vis_free(Visitor *v)
{
	pass_ccm_bvfree(&v->work);
	pass_ccm_bmfree(&v->seen);
}

/* AddBoundaries */
static void
add_boundaries(Ccm *s, Group *g, Bnd start)
{
	Visitor v;
	Bnd b, nb, last;
	uint32_t k, cnt, c, x, j;

	memset(&v, 0, sizeof v);
	pass_ccm_bpush(&v.work, start);
	while (pass_ccm_vis_next(s, &v, &b)) {
		c = c0(s, b);
		x = b0(s, b);
		if ((b.pos != B_IN || identical(s, b)) &&
		    safe_to_move(s, g, b) && worth(s, b)) {
			pass_ccm_bpush(&g->conn, b);
			g->mem -= msize(s, c, x);
			cnt = b.pos == B_USER ? pass_ccm_nusers(s, c, x) :
				ins(s, c, x)->nops;
			for (k = 0; k < cnt; k++) {
				nb = next_bnd(s, b, k);
				pass_ccm_bpush(&v.work, nb);
				g->mem += msize(s, c0(s, nb), b0(s, nb));
			}
			continue;
		}
		if (b.pos == B_OPND && opc(s, c, x) == HOP_BROADCAST &&
		    g->conn.n > 1) {
			last = g->conn.v[g->conn.n - 1];
			for (j = 0; j < pass_ccm_nusers(s, c, x); j++)
				if (pass_ccm_user_at(s, c, x, j) == b0(s, last))
					break;
			if (j < pass_ccm_nusers(s, c, x) &&
			    opc(s, s->P, b0(s, last)) != HOP_TUPLE) {
				/* replicate the broadcast in the branches */
				pass_ccm_bpush(&g->conn, b);
				g->mem -= msize(s, c, x) -
					msize(s, c, opnd(s, c, x, 0));
				continue;
			}
		}
		*vslot(s, vkey(s, c, x), 1) = 1;
		pass_ccm_bpush(&g->newb, b);
	}
	pass_ccm_vis_free(&v);
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
			if (pass_ccm_nusers(s, c, user))
				r += reuses_by(s, oc, op, c,
					pass_ccm_user_at(s, c, user, 0));
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
	n = pass_ccm_nusers(s, c, user);
	if (tuple_idx < 0 && n > 1)
		return 0;
	if (!n)
		return 0;
	op = pass_ccm_user_at(s, c, user, 0);
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
				    != TY_TUPLE && pass_ccm_nusers(s, bc, par) > 0) {
					cnt++;
					continue;
				}
				for (k = 0; k < pass_ccm_nusers(s, bc, par); k++) {
					uint32_t pu = pass_ccm_user_at(s, bc, par, k);

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
		for (k = 0; k < pass_ccm_nusers(s, s->P, s->X); k++) {
			uint32_t g = pass_ccm_user_at(s, s->P, s->X, k);

			if (opc(s, s->P, g) == HOP_GTE &&
			    hlo_attr_int(s->m, ins(s, s->P, g), A_INDEX, -1) ==
			    index && pass_ccm_nusers(s, s->P, g)) {
				r += reuses_by(s, c, user, s->P,
					pass_ccm_user_at(s, s->P, g, 0));
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
int
pass_ccm_consider(Ccm *s, Bnd cur, BVec *to_move, BVec *next, int64_t *gain)
{
	Group g;
	uint32_t i;
	int64_t ben;
	int d = D_NONE;

	memset(&g, 0, sizeof g);
	*gain = 0;
	if (cur.pos == B_SEED) {
		Bnd r = pass_ccm_bnew(s, B_IN, s->nb);

		for (i = 0; i < s->nb; i++)
			BID(s, r, i) = s->m->comps[s->br[i]].root;
		pass_ccm_bpush(&g.newb, r);
		for (i = 0; i < pass_ccm_nusers(s, s->P, s->X); i++)
			pass_ccm_bpush(&g.newb, pass_ccm_bone(s, B_USER,
				pass_ccm_user_at(s, s->P, s->X, i)));
		for (i = 1; i < ins(s, s->P, s->X)->nops; i++)
			pass_ccm_bpush(&g.newb, pass_ccm_bone(s, B_OPND,
				opnd(s, s->P, s->X, i)));
	} else {
		add_boundaries(s, &g, cur);
	}
	if (!g.conn.n) {
		for (i = 0; i < g.newb.n; i++)
			pass_ccm_bpush(next, g.newb.v[i]);
		gfree(&g);
		return D_NONE;
	}
	ben = benefit(s, &g.conn);
	if (ben >= 0 && g.mem > 0 && g.mem / (int64_t)g.conn.n > 5000)
		ben = -1;
	if (ben >= 0) {
		for (i = 0; i < g.newb.n; i++)
			pass_ccm_bpush(next, g.newb.v[i]);
		for (i = 0; i < g.conn.n; i++)
			pass_ccm_bpush(to_move, g.conn.v[i]);
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
