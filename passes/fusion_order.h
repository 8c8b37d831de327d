/* fusion_order.h: what multi_output_fusion (fusion.c) keeps up to date
 * as it merges sibling fusions, instead of setting its computation up
 * anew after each merge: the instruction order a compaction would give
 * (a list with labels), the post order as a depth-first search taken one
 * instruction at a time (rewound where a merge changed what it had
 * walked), and the users of every instruction. */
#ifndef FUSION_ORDER_H
#define FUSION_ORDER_H

#include "pass.h"

typedef struct {
	uint32_t *v;
	uint32_t n, cap;
} FuOrdVec;

typedef struct {
	uint32_t x, k, out;	/* node, next child, out.n when entered */
} FuOrdFrame;

typedef struct {
	HloModule *m;
	uint32_t c;		/* the computation */
	uint8_t *const *dead;	/* per instruction: merged away */
	uint32_t cap;		/* of the per-instruction arrays */
	FuOrdVec *usr;		/* users once per operand; dead ones left in */
	uint64_t *lab;		/* position in the order */
	uint32_t *prv, *nxt, head, tail;
	uint32_t *fpos;		/* frame of an instruction on the stack */
	uint8_t *state;		/* search: 0 new, 1 on the stack, 2 done */
	uint32_t *mark, *markb, stamp, stampb;	/* for fu_ord_desc */
	uint8_t *over;		/* more than 4096 descendants */
	uint32_t *stk;
	FuOrdVec sinks, out;
	uint32_t cur;		/* next of sinks to start from */
	FuOrdFrame *st, *cst;	/* the search's stack, closure's */
	uint32_t nst, capst, capcst;
	uint32_t *use;		/* fu_ord_users' answer */
	uint32_t capuse;
} FuOrd;

/* instructions of c in topological order, no operand dead: what the
 * rest needs (true after any compaction) */
int fu_ord_sorted(const HloModule *m, uint32_t c);
void fu_ord_init(FuOrd *o, HloModule *m, uint32_t c, uint8_t *const *dead);
void fu_ord_free(FuOrd *o);
/* the next instruction of pass_post_order's order, HLO_NONE at its end */
uint32_t fu_ord_next(FuOrd *o);
/* p has at most 4096 descendants (marked with stamp in mark) */
int fu_ord_desc(FuOrd *o, uint32_t *mark, uint32_t stamp, uint32_t p);
/* p's live users each once, in the order; o->use holds them */
uint32_t fu_ord_users(FuOrd *o, uint32_t p);
/* a and b were merged: fi = the operand of g0 and g1, which replace them
 * (their users rewired here); 1 if the search went on as it was (the
 * producer it gave last is to be tried again), 0 if it was rewound */
int fu_ord_merged(FuOrd *o, uint32_t a, uint32_t b, uint32_t g0,
	uint32_t g1);
/* c's instructions put in the order (the dead ones dropped) */
void fu_ord_apply(FuOrd *o);

#endif
