/* dotutil.h: what the dot passes share (dotutil.c): a dot's dimension
 * numbers, building a dot like another one, and xla's ordering of
 * element types by precision (primitive_util::HigherPrecisionType). */
#ifndef DOTUTIL_H
#define DOTUTIL_H

#include "build.h"

#define PASS_DOT_MAXDIMS 64

typedef struct {
	int64_t lb[PASS_DOT_MAXDIMS], rb[PASS_DOT_MAXDIMS];
	int64_t lc[PASS_DOT_MAXDIMS], rc[PASS_DOT_MAXDIMS];
	uint32_t nlb, nrb, nlc, nrc;
} PassDnums;

int pass_dot_dnums(const HloModule *m, const HloInstr *in, PassDnums *d);
				/* -1 if a list is too long */
int pass_dnums_equal(const PassDnums *a, const PassDnums *b);
int pass_dot_plain(const HloModule *m, const HloInstr *in);
				/* a dense two-operand dot (no sparsity) */
int pass_dot_dims(const HloModule *m, uint32_t lshape, uint32_t rshape,
	const PassDnums *d, int64_t *dims);
				/* xla's dot result dims (batch, lhs free,
				 * rhs free); returns the rank */
uint32_t pass_dot_like(PassEdit *ed, uint32_t like, uint32_t lhs,
	uint32_t rhs, const PassDnums *d, uint32_t shape);
				/* a dot of lhs and rhs with dimension
				 * numbers d, the precision config and
				 * algorithm of dot like (not its metadata,
				 * sharding or other annotations) */
int pass_type_higher(int a, int b);
int pass_accum_type(PassEdit *ed, uint32_t i);
				/* a dot's or convolution's element type as
				 * xla's shape inference gives it without a
				 * preferred type (the higher of its operands');
				 * -1 for other instructions and sparse dots */
				/* primitive_util::HigherPrecisionType */
int pass_accum_result(PassEdit *ed, uint32_t i, int *r);
				/* pass_accum_type, and i's own element type
				 * in *r when it is not -1 (operand_upcaster,
				 * result_caster) */

#endif
