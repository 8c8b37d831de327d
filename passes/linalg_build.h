/* linalg_build.h: building HLO as xla's XlaBuilder and its lib/ helpers
 * (xla/hlo/builder/xla_builder.cc, lib/matrix.cc, lib/slicing.cc,
 * lib/loops.cc, lib/constants.cc, lib/math.cc) emit it, into a
 * computation being built (build.h's builder, pass_b_fresh), for the
 * linear-algebra expanders (triangular_solve_expander.c,
 * cholesky_expander.c, qr_expander.c, eigh_expander.c; linalg_build.c).
 * The plain ops (constants, reshape, transpose, slice, concatenate,
 * tuple, get-tuple-element, Broadcast) are build.h's pass_b_ functions.
 *
 * Every helper emits what its xla namesake emits, op for op: an identity
 * broadcast, transpose or slice stays, a scalar or degenerate operand of
 * a binary op is broadcast explicitly (AddBroadcastSequence: a reshape
 * dropping the 1s, then a broadcast), constants are not shared. Shapes
 * carry no layout. Ranks are at most PASS_LA_MAXR. */
#ifndef LINALG_BUILD_H
#define LINALG_BUILD_H

#include "build.h"

#define PASS_LA_MAXR 16
#define PASS_LA_MAXV 12		/* loop values of pass_la_for_each */

/* shapes and leaves */
int pass_la_real_type(int type);	/* c64 -> f32, c128 -> f64, else type */
const HloShape *pass_la_operand(PassEdit *ed, uint32_t i, uint32_t k);
				/* operand k of i if an expander can take
				 * it: a float or complex array of rank 2 to
				 * PASS_LA_MAXR - 1 without dynamic dims;
				 * else NULL */
uint32_t pass_la_comp(HloModule *m, const char *name);
				/* a new computation named name (unique) */
uint32_t pass_la_param(PassEdit *b, int64_t num, uint32_t shape,
	const char *name);	/* named name (unique) */
uint32_t pass_la_iota(PassEdit *b, int type, int64_t n);
				/* Iota(type, n) */

/* data movement */
uint32_t pass_la_in_dim_bcast(PassEdit *b, uint32_t x, int rank,
	const int64_t *dims, const int64_t *bdims);	/* one broadcast */
uint32_t pass_la_bcast_in_dim(PassEdit *b, uint32_t x, int rank,
	const int64_t *dims, const int64_t *bdims);	/* BroadcastInDim */
uint32_t pass_la_transpose_minor(PassEdit *b, uint32_t x);
				/* TransposeInMinorDims */
uint32_t pass_la_slice_minor(PassEdit *b, uint32_t x, int n,
	const int64_t *start, const int64_t *end);	/* SliceInMinorDims */
uint32_t pass_la_ds(PassEdit *b, uint32_t x, const uint32_t *idx,
	const int64_t *sizes);	/* DynamicSlice, one index per dim */
uint32_t pass_la_ds_minor(PassEdit *b, uint32_t x, int n,
	const uint32_t *idx, const int64_t *sizes);
				/* DynamicSliceInMinorDims */
uint32_t pass_la_dus(PassEdit *b, uint32_t x, uint32_t u,
	const uint32_t *idx);	/* DynamicUpdateSlice */
uint32_t pass_la_update_minor(PassEdit *b, uint32_t x, uint32_t u, int n,
	const int64_t *start);	/* UpdateSliceInMinorDims */
uint32_t pass_la_dus_minor(PassEdit *b, uint32_t x, uint32_t u, int n,
	const uint32_t *idx);	/* DynamicUpdateSliceInMinorDims */
uint32_t pass_la_pad(PassEdit *b, uint32_t x, uint32_t v,
	const int64_t *cfg);	/* cfg: low, high, interior per dim */

/* arithmetic, with XlaBuilder's implicit broadcasts; bd (n of them):
 * broadcast_dimensions of the lower-rank operand, or NULL */
uint32_t pass_la_bin(PassEdit *b, int op, uint32_t x, uint32_t y, int n,
	const int64_t *bd);
uint32_t pass_la_cmp(PassEdit *b, uint32_t x, uint32_t y, const char *dir,
	int n, const int64_t *bd);
uint32_t pass_la_unary(PassEdit *b, int op, uint32_t x);
				/* same shape; real/imag: the real type */
uint32_t pass_la_complex(PassEdit *b, uint32_t re, uint32_t im);
uint32_t pass_la_select(PassEdit *b, uint32_t p, uint32_t x, uint32_t y);
				/* scalars among arrays broadcast */
uint32_t pass_la_zeros(PassEdit *b, int type, int rank, const int64_t *d);
uint32_t pass_la_full_like(PassEdit *b, uint32_t x, double v);
				/* FullLike: a constant broadcast to x's
				 * shape; ZerosLike with v = 0 */
uint32_t pass_la_conj(PassEdit *b, uint32_t x, int conjugate);
				/* MaybeConjugate */
uint32_t pass_la_is_nan(PassEdit *b, uint32_t x);	/* Ne(x, x) */

/* matrices */
uint32_t pass_la_identity(PassEdit *b, int type, int64_t m, int64_t n);
uint32_t pass_la_triangle_mask(PassEdit *b, uint32_t x, int64_t diagonal);
uint32_t pass_la_triangle(PassEdit *b, uint32_t x, int lower);
uint32_t pass_la_dot(PassEdit *b, uint32_t x, uint32_t y, int nbatch,
	int64_t lc, int64_t rc, int grads);
				/* DotGeneral: batch dims 0..nbatch-1 on both
				 * sides, one contracting dim each, precision
				 * HIGHEST; grads: Einsum's frontend
				 * attributes grad_x/grad_y "false" */
uint32_t pass_la_batch_dot(PassEdit *b, uint32_t x, int tx, uint32_t y,
	int ty);		/* BatchDot(x, tx, y, ty, HIGHEST): the
				 * Einsum dot and its identity transpose */

uint32_t pass_la_reduce(PassEdit *b, uint32_t x, uint32_t init,
	uint32_t comp, int n, const int64_t *dims);	/* Reduce over dims */
uint32_t pass_la_add_comp(HloModule *m, int type);
				/* CreateScalarAddComputation: add_<TYPE>
				 * (lhs, rhs) */

/* loops: ForEachIndex(n, S32, body, init, name); body(bb, i, vars, out,
 * arg) builds in bb the next values of the nvars loop values vars; the
 * loop's results (without the counter) go to out */
typedef void (*PassLaBodyFn)(PassEdit *bb, uint32_t i,
	const uint32_t *vars, uint32_t *out, void *arg);
void pass_la_for_each(PassEdit *b, int64_t n, uint32_t nvars,
	const uint32_t *init, const char *name, PassLaBodyFn body, void *arg,
	uint32_t *out);

#endif
