/* scatter_util.h: building blocks of the scatter passes
 * (scatter_expander.c, scatter_simplifier.c,
 * select_and_scatter_expander.c): xla's hlo_creation_utils as far as
 * they need them (MakeDynamicSliceHlo with a vector of start indices,
 * PadVectorWithZeros, CollapseFirstNDims, ...), new computations and
 * parameters, and the scatter dimension numbers read from an
 * instruction. Instructions are added to b->c; b->ed, when not NULL,
 * is the PassEdit of that computation and is told about each one. */
#ifndef SCATTER_UTIL_H
#define SCATTER_UTIL_H

#include "pass.h"

#define PASS_SX_MAXR 64		/* ranks above this are left alone */

typedef struct {
	HloModule *m;
	uint32_t c;
	PassEdit *ed;		/* or NULL (a computation being built) */
} PassSxB;

/* a scatter's operands and dimension numbers; the lists are copies (the
 * instruction's own live in m->ints, which moves whenever a pass adds
 * instructions or attributes) */
typedef struct {
	uint32_t n;		/* scatter operands (= updates) */
	uint32_t ops[32], idx, upd[32];
	int64_t uwd[PASS_SX_MAXR], iwd[PASS_SX_MAXR], sdod[PASS_SX_MAXR];
	int64_t ibd[PASS_SX_MAXR], sibd[PASS_SX_MAXR];
	uint32_t nuwd, niwd, nsdod, nibd, nsibd;
	int64_t ivd;
	int sorted, unique;	/* indices_are_sorted, unique_indices */
	uint32_t comp;		/* to_apply */
} PassSxScatter;

int pass_sx_scatter(const HloModule *m, uint32_t c, uint32_t i,
	PassSxScatter *s);	/* -1 if malformed, too many operands or a
				 * list longer than PASS_SX_MAXR */
int64_t pass_sx_indices_count(const HloModule *m, uint32_t c,
	const PassSxScatter *s);	/* xla's ScatterIndicesCount */

/* shape helpers */
int pass_sx_rank(const PassSxB *b, uint32_t x);
const int64_t *pass_sx_dims(const PassSxB *b, uint32_t x);
int pass_sx_type(const PassSxB *b, uint32_t x);
uint32_t pass_sx_shape(const PassSxB *b, uint32_t x);

/* instructions */
uint32_t pass_sx_op(PassSxB *b, int op, uint32_t shape, uint32_t nops,
	const uint32_t *ops);
void pass_sx_ints(PassSxB *b, uint32_t i, int key, const int64_t *v,
	uint32_t n);
void pass_sx_int(PassSxB *b, uint32_t i, int key, int64_t v);
uint32_t pass_sx_const(PassSxB *b, int type, int rank, const int64_t *v,
	int64_t n);		/* rank 0: v[0]; rank 1: n elements */
uint32_t pass_sx_reshape(PassSxB *b, uint32_t x, int rank,
	const int64_t *dims);
uint32_t pass_sx_transpose(PassSxB *b, uint32_t x, const int64_t *perm);
uint32_t pass_sx_maybe_transpose(PassSxB *b, uint32_t x,
	const int64_t *perm);	/* x itself for the identity */
void pass_sx_window_last(const PassSxScatter *s, int r, int64_t *perm);
				/* the permutation of updates of rank r
				 * that puts the update window dims last */
uint32_t pass_sx_slice1(PassSxB *b, uint32_t x, int64_t lo, int64_t hi);
uint32_t pass_sx_bcast(PassSxB *b, uint32_t x, int rank, const int64_t *dims,
	const int64_t *bdims, uint32_t nb);
uint32_t pass_sx_concat(PassSxB *b, const uint32_t *ops, uint32_t n,
	int64_t dim);
uint32_t pass_sx_binary(PassSxB *b, int op, uint32_t x, uint32_t y);
uint32_t pass_sx_compare(PassSxB *b, uint32_t x, uint32_t y,
	const char *dir);
uint32_t pass_sx_select(PassSxB *b, uint32_t p, uint32_t x, uint32_t y);
uint32_t pass_sx_gte(PassSxB *b, uint32_t x, int64_t k);
uint32_t pass_sx_tuple(PassSxB *b, uint32_t n, const uint32_t *ops);
uint32_t pass_sx_collapse(PassSxB *b, uint32_t x, int n);
				/* CollapseFirstNDims (always a reshape) */
uint32_t pass_sx_prepend1(PassSxB *b, uint32_t x);
				/* PrependDegenerateDims(x, 1) */
uint32_t pass_sx_elide0(PassSxB *b, uint32_t x);
				/* ElideDegenerateDims(x, {0}) */
uint32_t pass_sx_insert1(PassSxB *b, uint32_t x, const int64_t *at,
	uint32_t n);		/* InsertDegenerateDims, at sorted */
uint32_t pass_sx_pad_vec(PassSxB *b, uint32_t x, int64_t lo, int64_t hi);
				/* PadVectorWithZeros */
uint32_t pass_sx_ds(PassSxB *b, uint32_t x, uint32_t start,
	const int64_t *sizes);	/* MakeDynamicSliceHlo, start a vector */
uint32_t pass_sx_dus(PassSxB *b, uint32_t x, uint32_t upd, uint32_t start);
				/* MakeDynamicUpdateSliceHlo, start a vector */

/* computations */
uint32_t pass_sx_comp(HloModule *m, const char *name);
				/* a new computation, a fresh name from name */
uint32_t pass_sx_param(HloModule *m, uint32_t c, int64_t num,
	uint32_t shape, const char *name);
uint32_t pass_sx_binary_comp(HloModule *m, int op, int type,
	const char *name);	/* MakeBinaryScalarComputation */

#endif
