/* prng_build.c: xla's Philox4x32-10 and ThreeFry2x32-20 bit generators
 * (xla/hlo/builder/lib/prng.cc, openxla/xla 4ead6719e6f2) built as HLO
 * into a computation, op for op as XlaBuilder emits them (scalars
 * broadcast where combined with arrays; instructions XlaBuilder would
 * leave dead, such as the eleventh Philox key raise, are not emitted).
 * src/eval/eval_prng.c computes the same bits directly; the two agree
 * (tests/golden/rng-bit-generator-expander). */
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "prng_build.h"

/* x broadcast to y's dims when x is a scalar and y is not */
static uint32_t
implicit(PassEdit *b, uint32_t x, uint32_t y)
{
	int64_t d[64];
	int ry = pass_b_dims(b, y, d);

	if (hlo_sh(b->m, pass_b_shape(b, x))->rank || !ry)
		return x;
	return pass_b_broadcast(b, x, ry, d);
}

uint32_t
prng_bin(PassEdit *b, int op, uint32_t x, uint32_t y)
{
	uint32_t bx = implicit(b, x, y);

	return pass_b_binary(b, op, bx, implicit(b, y, x));
}

uint32_t
prng_cmp(PassEdit *b, uint32_t x, uint32_t y, const char *dir)
{
	uint32_t bx = implicit(b, x, y);

	return pass_b_compare(b, bx, implicit(b, y, x), dir);
}

int
prng_bits_type(int type)
{
	switch (hlo_typeinfo[type].bits) {
	case 8: return TY_U8;
	case 16: return TY_U16;
	case 32: return TY_U32;
	case 64: return TY_U64;
	}
	return -1;
}

/* ConvertElementType */
static uint32_t
cvt(PassEdit *b, uint32_t x, int type)
{
	return pass_b_xconvert(b, HOP_CONVERT, x, type);
}

/* Uint64ToUint32s */
static void
u64_to_u32s(PassEdit *b, uint32_t x, uint32_t out[2])
{
	uint32_t k = pass_b_scalar_bits(b, TY_U64, 32);

	out[0] = cvt(b, x, TY_U32);
	out[1] = cvt(b, prng_bin(b, HOP_SHRL, x, k), TY_U32);
}

/* Uint32sToUint64 */
static uint32_t
u32s_to_u64(PassEdit *b, uint32_t lo, uint32_t hi)
{
	uint32_t l = cvt(b, lo, TY_U64);
	uint32_t h = cvt(b, hi, TY_U64);

	return prng_bin(b, HOP_OR, l, prng_bin(b, HOP_SHL, h,
		pass_b_scalar_bits(b, TY_U64, 32)));
}

/* Uint128AddUint64 of (lo, hi) and x, the high word broadcast to dims
 * (rank 0: the identity Broadcast XlaBuilder still emits) */
static void
u128_add(PassEdit *b, uint32_t lo, uint32_t hi, uint32_t x, int rank,
	const int64_t *dims, uint32_t out[2])
{
	uint32_t nl = prng_bin(b, HOP_ADD, lo, x);
	uint32_t one = pass_b_scalar_bits(b, TY_U64, 1);
	uint32_t up = pass_b_broadcast(b, prng_bin(b, HOP_ADD, hi, one), rank,
		dims);
	uint32_t same = pass_b_broadcast(b, hi, rank, dims), o[3];

	o[0] = prng_cmp(b, nl, lo, "LT");
	o[1] = up;
	o[2] = same;
	out[0] = nl;
	out[1] = pass_b_select(b, o[0], o[1], o[2]);
}

/* Uint128ToOp: concatenate of the two words reshaped to [1] */
static uint32_t
u128_to_op(PassEdit *b, const uint32_t w[2])
{
	int64_t one = 1;
	uint32_t r[2];

	r[0] = pass_b_reshape(b, w[0], 1, &one);
	r[1] = pass_b_reshape(b, w[1], 1, &one);
	return pass_b_concat(b, 2, r, 0);
}

/* x * k as the high and low 32 bits */
static void
mul_hi_lo(PassEdit *b, uint32_t x, uint32_t k, uint32_t *hi, uint32_t *lo)
{
	uint32_t p = prng_bin(b, HOP_MUL, cvt(b, x, TY_U64),
		pass_b_scalar_bits(b, TY_U64, k));

	*lo = cvt(b, p, TY_U32);
	*hi = cvt(b, prng_bin(b, HOP_SHRL, p, pass_b_scalar_bits(b, TY_U64,
		32)), TY_U32);
}

static void
philox4x32(PassEdit *b, uint32_t x[4], uint32_t key[2])
{
	uint32_t h0, l0, h1, l1, k0 = key[0], k1 = key[1];
	int r;

	for (r = 0; r < 10; r++) {
		if (r) {
			k0 = prng_bin(b, HOP_ADD, k0, pass_b_scalar_bits(b,
				TY_U32, 0x9E3779B9u));
			k1 = prng_bin(b, HOP_ADD, k1, pass_b_scalar_bits(b,
				TY_U32, 0xBB67AE85u));
		}
		mul_hi_lo(b, x[0], 0xD2511F53u, &h0, &l0);
		mul_hi_lo(b, x[2], 0xCD9E8D57u, &h1, &l1);
		x[0] = prng_bin(b, HOP_XOR, prng_bin(b, HOP_XOR, h1, x[1]), k0);
		x[1] = l1;
		x[2] = prng_bin(b, HOP_XOR, prng_bin(b, HOP_XOR, h0, x[3]), k1);
		x[3] = l0;
	}
}

/* GeneratePhiloxBits: the four words of blocks counter + 0..nv-1 */
static void
philox_blocks(PassEdit *b, uint32_t state, uint32_t key64, int64_t nv,
	uint32_t x[4], uint32_t *new_state)
{
	int64_t z = 0, one = 1, two = 2;
	uint32_t w[2], s[4], lo, hi, it, in[2], ns[2], key[2];

	u64_to_u32s(b, key64, key);
	lo = pass_b_reshape(b, pass_b_slice(b, state, &z, &one, NULL), 0,
		NULL);
	hi = pass_b_reshape(b, pass_b_slice(b, state, &one, &two, NULL), 0,
		NULL);
	u64_to_u32s(b, lo, s);
	u64_to_u32s(b, hi, s + 2);
	it = pass_b_iota(b, pass_b_array(b->m, TY_U64, 1, &nv), 0);
	w[0] = u32s_to_u64(b, s[0], s[1]);
	w[1] = u32s_to_u64(b, s[2], s[3]);
	u128_add(b, w[0], w[1], it, 1, &nv, in);
	u64_to_u32s(b, in[0], x);
	u64_to_u32s(b, in[1], x + 2);
	u128_add(b, w[0], w[1], pass_b_scalar_bits(b, TY_U64, (uint64_t)nv), 0,
		NULL, ns);
	*new_state = u128_to_op(b, ns);
	philox4x32(b, x, key);
}

/* the words of the blocks interleaved, the first n, reshaped to shape */
static uint32_t
interleave(PassEdit *b, uint32_t nw, uint32_t *w, int64_t len, int64_t n,
	uint32_t shape)
{
	const HloShape *sh = hlo_sh(b->m, shape);
	int64_t d[2] = {len, 1}, z = 0, dims[64];
	int rank = sh->rank;
	uint32_t k, x;

	/* copied now: new shapes may move the shape pool */
	memcpy(dims, hlo_dims(b->m, sh), rank * sizeof *dims);
	for (k = 0; k < nw; k++)
		w[k] = pass_b_reshape(b, w[k], 2, d);
	x = pass_b_concat(b, nw, w, 1);
	d[0] = len * nw;
	x = pass_b_reshape(b, x, 1, d);
	x = pass_b_slice(b, x, &z, &n, NULL);
	return pass_b_reshape(b, x, rank, dims);
}

uint32_t
prng_philox(PassEdit *b, uint32_t key, uint32_t state, uint32_t shape,
	uint32_t *new_state)
{
	const HloShape *sh = hlo_sh(b->m, shape);
	int type = sh->type, bits = hlo_typeinfo[type].bits, k;
	int64_t n = 1, len;
	uint32_t x[4], w[2], s;

	for (k = 0; k < sh->rank; k++)
		n *= hlo_dims(b->m, sh)[k];
	if (bits == 64) {
		len = (n + 1) / 2;
		philox_blocks(b, state, key, (2 * n + 3) / 4, x, new_state);
		w[0] = u32s_to_u64(b, x[0], x[1]);
		w[1] = u32s_to_u64(b, x[2], x[3]);
		return interleave(b, 2, w, len, n, hlo_shape_with_type(b->m,
			shape, TY_U64));
	}
	len = (n + 3) / 4;
	philox_blocks(b, state, key, len, x, new_state);
	s = interleave(b, 4, x, len, n, hlo_shape_with_type(b->m, shape,
		TY_U32));
	return bits < 32 ? cvt(b, s, prng_bits_type(type)) : s;
}

static uint32_t
rotl(PassEdit *b, uint32_t v, int d)
{
	uint32_t l = prng_bin(b, HOP_SHL, v, pass_b_scalar_bits(b, TY_U32, d));
	uint32_t r = prng_bin(b, HOP_SHRL, v, pass_b_scalar_bits(b, TY_U32,
		32 - d));

	return prng_bin(b, HOP_OR, l, r);
}

static void
threefry2x32(PassEdit *b, uint32_t x[2], uint32_t key64)
{
	static const int rot[8] = {13, 15, 26, 6, 17, 29, 16, 24};
	uint32_t k[2], ks[3];
	int i, r;

	u64_to_u32s(b, key64, k);
	k[0] = pass_b_xconvert(b, HOP_BITCASTCVT, k[0], TY_U32);
	k[1] = pass_b_xconvert(b, HOP_BITCASTCVT, k[1], TY_U32);
	ks[2] = pass_b_scalar_bits(b, TY_U32, 0x1BD11BDAu);
	for (i = 0; i < 2; i++) {
		ks[i] = k[i];
		ks[2] = prng_bin(b, HOP_XOR, ks[2], k[i]);
	}
	x[0] = prng_bin(b, HOP_ADD, x[0], ks[0]);
	x[1] = prng_bin(b, HOP_ADD, x[1], ks[1]);
	for (i = 0; i < 5; i++) {
		for (r = 0; r < 4; r++) {
			x[0] = prng_bin(b, HOP_ADD, x[0], x[1]);
			x[1] = rotl(b, x[1], rot[(i & 1) * 4 + r]);
			x[1] = prng_bin(b, HOP_XOR, x[0], x[1]);
		}
		x[0] = prng_bin(b, HOP_ADD, x[0], ks[(i + 1) % 3]);
		x[1] = prng_bin(b, HOP_ADD, prng_bin(b, HOP_ADD, x[1],
			ks[(i + 2) % 3]), pass_b_scalar_bits(b, TY_U32, i + 1));
	}
}

/* GetThreeFryInputsAndUpdatedState over dims, then ThreeFry2x32 */
static void
threefry_run(PassEdit *b, uint32_t key, uint32_t state, int rank,
	const int64_t *dims, uint32_t x[2], uint32_t *new_state)
{
	int64_t trailing = 1, n = 1;
	uint32_t in;
	int k;

	in = pass_b_broadcast(b, pass_b_reshape(b, state, 0, NULL), rank,
		dims);
	for (k = rank - 1; k >= 0; k--) {
		n *= dims[k];
		if (dims[k] < 2)
			continue;
		in = prng_bin(b, HOP_ADD, in, prng_bin(b, HOP_MUL,
			pass_b_iota(b, pass_b_array(b->m, TY_U64, rank, dims),
			k), pass_b_scalar_bits(b, TY_U64,
			(uint64_t)trailing)));
		trailing *= dims[k];
	}
	*new_state = prng_bin(b, HOP_ADD, state, pass_b_scalar_bits(b, TY_U64,
		(uint64_t)n));
	u64_to_u32s(b, in, x);
	threefry2x32(b, x, key);
}

int
prng_split(int r, const int64_t *d, int64_t *hd)
{
	int k, split = -1;

	if (r == 0) {
		hd[0] = 1;
		return -1;
	}
	for (k = 0; k < r && split < 0; k++)
		if (d[k] % 2 == 0)
			split = k;
	if (split < 0) {
		split = 0;
		for (k = 1; k < r; k++)
			if (d[k] > d[split])
				split = k;
	}
	for (k = 0; k <= r; k++)
		hd[k] = k < split ? d[k] : k == split ? (d[k] + 1) / 2 :
			k == split + 1 ? 1 : d[k - 1];
	return split;
}

uint32_t
prng_join(PassEdit *b, const uint32_t h[2], int r, const int64_t *d,
	int split)
{
	int64_t e[64], z[64] = {0};
	uint32_t s;

	if (r == 0)
		return pass_b_reshape(b, h[0], 0, NULL);
	s = pass_b_concat(b, 2, h, split + 1);
	memcpy(e, d, r * sizeof *e);
	e[split] += e[split] % 2;
	s = pass_b_reshape(b, s, r, e);
	if (e[split] != d[split])
		s = pass_b_slice(b, s, z, d, NULL);
	return s;
}

uint32_t
prng_threefry(PassEdit *b, uint32_t key, uint32_t state, uint32_t shape,
	uint32_t *new_state)
{
	const HloShape *sh = hlo_sh(b->m, shape);
	int type = sh->type, bits = hlo_typeinfo[type].bits, r = sh->rank;
	int split;
	int64_t d[65], hd[65];
	uint32_t x[2], s;

	memcpy(d, hlo_dims(b->m, sh), r * sizeof *d);
	if (bits == 64) {
		threefry_run(b, key, state, r, d, x, new_state);
		return u32s_to_u64(b, x[0], x[1]);
	}
	split = prng_split(r, d, hd);
	threefry_run(b, key, state, r ? r + 1 : 1, hd, x, new_state);
	s = prng_join(b, x, r, d, split);
	return bits < 32 ? cvt(b, s, prng_bits_type(type)) : s;
}

