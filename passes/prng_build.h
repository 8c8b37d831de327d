/* prng_build.h: building xla's random bit generators (xla/hlo/builder/
 * lib/prng.cc) as HLO into a new computation, for rng-expander and
 * rng-bit-generator-expander (prng_build.c), with build.h's builder
 * (pass_b_fresh). Ops are emitted as XlaBuilder emits them, scalars
 * broadcast implicitly where an operation mixes a scalar with an
 * array (prng_bin, prng_cmp). */
#ifndef PRNG_BUILD_H
#define PRNG_BUILD_H

#include "build.h"

int prng_split(int r, const int64_t *d, int64_t *hd);
				/* how xla's generators halve a shape of dims
				 * d[0..r): the dimension split (the first
				 * even one, else the largest; -1 for a
				 * scalar) and in hd the r + 1 dims of the
				 * halves, its half and a new 1 after it
				 * ({1} for a scalar) */
uint32_t prng_join(PassEdit *b, const uint32_t h[2], int r,
	const int64_t *d, int split);
				/* the halves h (of prng_split's hd)
				 * concatenated back to dims d[0..r) */

/* with XlaBuilder's implicit broadcast of a scalar to the other's dims */
uint32_t prng_bin(PassEdit *b, int op, uint32_t x, uint32_t y);
uint32_t prng_cmp(PassEdit *b, uint32_t x, uint32_t y, const char *dir);

/* the bits and new state of PhiloxBitGenerator(key u64[], counter u64[2]
 * low first, shape) and ThreeFryBitGenerator(key u64[], counter u64[1],
 * shape); shape's type unsigned 8, 16, 32 or 64 bits (or the same widths
 * signed or float: the bits come as the unsigned type of that width) */
uint32_t prng_philox(PassEdit *b, uint32_t key, uint32_t state,
	uint32_t shape, uint32_t *new_state);
uint32_t prng_threefry(PassEdit *b, uint32_t key, uint32_t state,
	uint32_t shape, uint32_t *new_state);
int prng_bits_type(int type);	/* the unsigned type of type's width or -1 */

#endif
