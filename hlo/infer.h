/* infer.h: the interface between hlo/infer.c (xla's shape inference) and
 * hlo/verify.c (structure, and the check that each instruction's shape is
 * the inferred one). Nothing outside hlo/ includes it; the rest of hlopt
 * calls hlo_infer_shape and hlo_verify (hlo.h). */
#ifndef HLO_INFER_H
#define HLO_INFER_H

#include <stdarg.h>

#include "hlo.h"

typedef struct HloInferNode HloInferNode;	/* an inferred shape (infer.c) */

/* the state of one inference or verification run: the instruction in
 * hand, for messages, and scratch for the inferred shape trees */
typedef struct {
	const HloModule *m;
	HloError *e;
	uint32_t c, i;		/* the instruction being checked */
	HloInferNode *nodes;
	uint32_t nn, capn;
	int64_t *ints;
	uint32_t ni, capi;
	uint32_t *kids;
	uint32_t nk, capk;
	uint32_t *pstart, *pidx;	/* parameters of computation c:
				 * pidx[pstart[c] + k] is parameter k; NULL
				 * when not built (hlo_infer_shape) */
	int *types;		/* scratch for variadic reductions */
	uint32_t capt;
} HloInfer;

/* hlo/infer.c */
int inf_bad(HloInfer *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
				/* "error: verify: computation C, instruction
				 * I: ..." for instruction v->c, v->i; -1 */
int hlo_infer_check(HloInfer *v, const HloInstr *in);
				/* in (instruction v->c, v->i) has the shape
				 * its operands and attributes give; -1 and a
				 * message if not */
void hlo_infer_free(HloInfer *v);

/* hlo/verify.c */
int hlo_verify_instr(HloInfer *v, uint32_t c, uint32_t i);
				/* ids, operands, attributes and called
				 * computations of one instruction in range */

#endif
