/* conditional_code_motion.h: what conditional_code_motion.c (the
 * contract, the motions and the driver) and conditional_code_motion_cost.c
 * (xla's boundary analysis and cost model) share: the boundaries, the
 * state of one run and the analysis of one conditional. */
#ifndef CONDITIONAL_CODE_MOTION_H
#define CONDITIONAL_CODE_MOTION_H

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
	int64_t *nonleaf;	/* CountNonLeafOps of the operands, -1 not
				 * yet counted */
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

/* a worklist with a visited set (BoundaryVisitor) */
typedef struct {
	BVec work;
	BMap seen;
} Visitor;

#define BID(s, b, j) ((s)->pool[(b).off + (j)])

static inline const HloInstr *
ins(const Ccm *s, uint32_t c, uint32_t i)
{
	return &s->m->comps[c].ins[i];
}

static inline uint32_t
opnd(const Ccm *s, uint32_t c, uint32_t i, uint32_t k)
{
	return s->m->ids[ins(s, c, i)->ops + k];
}

static inline int
opc(const Ccm *s, uint32_t c, uint32_t i)
{
	return ins(s, c, i)->op;
}

/* the computation of instruction j of b */
static inline uint32_t
bcomp(const Ccm *s, Bnd b, uint32_t j)
{
	return b.pos == B_IN ? s->br[j] : s->P;
}

static inline uint32_t
b0(const Ccm *s, Bnd b)
{
	return BID(s, b, 0);
}

static inline uint32_t
c0(const Ccm *s, Bnd b)
{
	return bcomp(s, b, 0);
}

/* conditional_code_motion_cost.c */
void pass_ccm_grow_comps(Ccm *s);	/* per-computation arrays cover
					 * m->ncomps */
void pass_ccm_invalidate(Ccm *s, uint32_t c);	/* c changed: its users
					 * are recomputed when next asked */
uint32_t pass_ccm_nusers(Ccm *s, uint32_t c, uint32_t i);
uint32_t pass_ccm_user_at(Ccm *s, uint32_t c, uint32_t i, uint32_t k);
				/* distinct users, in instruction order */
Bnd pass_ccm_bnew(Ccm *s, int pos, uint32_t n);	/* n ids to fill */
Bnd pass_ccm_bone(Ccm *s, int pos, uint32_t x);
void pass_ccm_bpush(BVec *v, Bnd b);
void pass_ccm_bvfree(BVec *v);
uint32_t *pass_ccm_bmslot(Ccm *s, BMap *mp, Bnd b, int add);
				/* the value of b, NULL if absent and not
				 * add (added: HLO_NONE) */
void pass_ccm_bmfree(BMap *mp);
void pass_ccm_vclear(Ccm *s);	/* visited counts emptied */
int pass_ccm_vis_next(Ccm *s, Visitor *v, Bnd *out);
				/* the next boundary not yet visited */
void pass_ccm_vis_free(Visitor *v);
int pass_ccm_consider(Ccm *s, Bnd cur, BVec *to_move, BVec *next,
	int64_t *gain);		/* ConsiderCodeMotion: D_OUT, D_IN (the
				 * group in to_move, its frontier in next,
				 * its benefit in gain) or D_NONE (next: the
				 * boundaries to visit) */

#endif
