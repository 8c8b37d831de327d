/* prng_build.h: building xla's random bit generators (xla/hlo/builder/
 * lib/prng.cc) as HLO into a new computation, for rng-expander and
 * rng-bit-generator-expander (prng_build.c). Ops are emitted as
 * XlaBuilder emits them, scalars broadcast implicitly where an operation
 * mixes a scalar with an array. The builder (PrngB, prng_op, ...) also
 * serves bitcast_dtypes_expander, which builds its computations the same
 * way. */
#ifndef PRNG_BUILD_H
#define PRNG_BUILD_H

#include "pass.h"

typedef struct {
	HloModule *m;
	uint32_t c;	/* the computation being built */
} PrngB;

int prng_split(int r, const int64_t *d, int64_t *hd);
				/* how xla's generators halve a shape of dims
				 * d[0..r): the dimension split (the first
				 * even one, else the largest; -1 for a
				 * scalar) and in hd the r + 1 dims of the
				 * halves, its half and a new 1 after it
				 * ({1} for a scalar) */

uint32_t prng_param(PrngB *b, int num, uint32_t shape, const char *name);
uint32_t prng_shape(PrngB *b, uint32_t x);
uint32_t prng_op(PrngB *b, int op, uint32_t shape, uint32_t n,
	const uint32_t *ops);
uint32_t prng_const(PrngB *b, int type, uint64_t bits);
uint32_t prng_fconst(PrngB *b, int type, double v);	/* float constant */
uint32_t prng_bin(PrngB *b, int op, uint32_t x, uint32_t y);
				/* the scalar one broadcast to the other */
uint32_t prng_unary(PrngB *b, int op, uint32_t x);
uint32_t prng_cmp(PrngB *b, uint32_t x, uint32_t y, const char *dir);
uint32_t prng_convert(PrngB *b, uint32_t x, int type);
uint32_t prng_bitcast_convert(PrngB *b, uint32_t x, int type);
uint32_t prng_reshape(PrngB *b, uint32_t x, int rank, const int64_t *dims);
uint32_t prng_slice(PrngB *b, uint32_t x, const int64_t *start,
	const int64_t *limit);
uint32_t prng_concat(PrngB *b, uint32_t n, const uint32_t *xs, int64_t dim);
uint32_t prng_bcast(PrngB *b, uint32_t x, int rank, const int64_t *dims);
				/* a scalar x to dims (Broadcast) */

/* the bits and new state of PhiloxBitGenerator(key u64[], counter u64[2]
 * low first, shape) and ThreeFryBitGenerator(key u64[], counter u64[1],
 * shape); shape's type unsigned 8, 16, 32 or 64 bits (or the same widths
 * signed or float: the bits come as the unsigned type of that width) */
uint32_t prng_philox(PrngB *b, uint32_t key, uint32_t state, uint32_t shape,
	uint32_t *new_state);
uint32_t prng_threefry(PrngB *b, uint32_t key, uint32_t state,
	uint32_t shape, uint32_t *new_state);
int prng_bits_type(int type);	/* the unsigned type of type's width or -1 */

#endif
