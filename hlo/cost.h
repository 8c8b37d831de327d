/* cost.h: instruction counts and xla's HloCostAnalysis figures for a module
 * (hlo/cost.c).
 *
 * what is counted: every instruction without HI_DEAD in every computation
 * reachable from the entry through the called computations of live
 * instructions (fusion bodies, while bodies and conditions, branches,
 * reducers and comparators all included); computations reachable from
 * nowhere, or only through dead instructions, are not counted.
 *
 * flops, transcendentals and bytes accessed are xla's HloCostAnalysis of
 * the entry computation (rules in cost.c). shapes without a layout are
 * sized as if they had the default one.
 */
#ifndef COST_H
#define COST_H

#include "hlo.h"

typedef struct {
	int64_t instructions;		/* live, reachable computations */
	int64_t computations;		/* reachable, the entry included */
	int64_t opcount[HOP_COUNT];	/* instructions per HOP_* */
	double flops;
	double transcendentals;
	double bytes_accessed;
	int64_t kernels;		/* hlo_cost_kernels */
} HloCost;

int hlo_cost(const HloModule *m, HloCost *out, HloError *e);
				/* -1 on a malformed module or a call cycle */
int64_t hlo_cost_count(const HloModule *m);
				/* instructions only, as hlo_cost counts them;
				 * -1 on a malformed module */
int64_t hlo_cost_counts(const HloModule *m, int64_t *opcount);
				/* the same, and fills opcount[HOP_COUNT]
				 * when not NULL */
int64_t hlo_cost_kernels(const HloModule *m);
				/* instructions that would launch work: live
				 * ones of the entry and of the computations
				 * while, conditional, call and async-start
				 * run (transitively), but parameters,
				 * constants, tuples, get-tuple-elements and
				 * bitcasts; a fusion is one kernel */
void hlo_cost_text(const HloModule *m, const HloCost *c, HloBuf *b);
				/* header, then "%-30s %lld" per opcode by
				 * count descending, then name */
void hlo_cost_json(const HloModule *m, const HloCost *c, HloBuf *b);
				/* one JSON object, opcodes sorted by name */
#endif
