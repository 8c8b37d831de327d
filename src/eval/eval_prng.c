/* eval_prng.c: rng-bit-generator evaluated exactly, as XLA:CPU computes
 * it: the bit generators of xla/hlo/builder/lib/prng.cc that
 * RngBitGeneratorExpander builds (openxla/xla 4ead6719e6f2), with
 * rng_default meaning Philox (XLA:CPU constructs the expander with
 * RNG_PHILOX).
 *
 *   Philox4x32-10: key = state[0] (low word first); the 128-bit counter
 *     is (state[1], state[2]) for a u64[3] state, (state[1], state[0])
 *     for u64[2] (xla reverses it); block i runs on counter + i and its
 *     four words are elements 4i..4i+3 (u64 data: two blocks' halves per
 *     pair of elements, element 2i+j = word 2j | word 2j+1 << 32); the new
 *     state is the key and the counter plus the blocks used (u64[2]: its
 *     low word only).
 *   ThreeFry2x32-20 (u64[2] state only): key = state[0], counter
 *     c = state[1]; 32-bit data: the shape split in halves along its first
 *     even dimension (else its largest), element j of the half at linear
 *     index h comes from word (j) of threefry(c + h); u64 data: element
 *     at linear index h is threefry(c + h) as one word; the new state is
 *     c plus the inputs used.
 * Narrower unsigned data takes the low bits of the 32-bit words.
 *
 * ev_rngbits_exact returns 1 with *out set, 0 when the state or data type
 * is one XLA's expander would not take (the caller keeps its opaque
 * model), -1 on error. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "eval.h"

void
ev_philox4x32(uint32_t x[4], uint32_t k0, uint32_t k1)
{
	uint64_t p0, p1;
	int r;

	for (r = 0; r < 10; r++) {
		p0 = (uint64_t)x[0] * 0xD2511F53u;
		p1 = (uint64_t)x[2] * 0xCD9E8D57u;
		x[0] = (uint32_t)(p1 >> 32) ^ x[1] ^ k0;
		x[1] = (uint32_t)p1;
		x[2] = (uint32_t)(p0 >> 32) ^ x[3] ^ k1;
		x[3] = (uint32_t)p0;
		k0 += 0x9E3779B9u;
		k1 += 0xBB67AE85u;
	}
}

static uint32_t
rotl(uint32_t v, int d)
{
	return v << d | v >> (32 - d);
}

void
ev_threefry2x32(uint32_t x[2], uint32_t k0, uint32_t k1)
{
	static const int rot[8] = {13, 15, 26, 6, 17, 29, 16, 24};
	uint32_t ks[3];
	int b, r;

	ks[0] = k0;
	ks[1] = k1;
	ks[2] = 0x1BD11BDAu ^ k0 ^ k1;
	x[0] += ks[0];
	x[1] += ks[1];
	for (b = 0; b < 5; b++) {
		for (r = 0; r < 4; r++) {
			x[0] += x[1];
			x[1] = rotl(x[1], rot[(b & 1) * 4 + r]);
			x[1] ^= x[0];
		}
		x[0] += ks[(b + 1) % 3];
		x[1] += ks[(b + 2) % 3] + (uint32_t)(b + 1);
	}
}

static void
put(unsigned char *p, int esz, int64_t k, uint64_t v)
{
	switch (esz) {
	case 1: p[k] = (unsigned char)v; break;
	case 2: { uint16_t w = (uint16_t)v; memcpy(p + 2 * k, &w, 2); }
		break;
	case 4: { uint32_t w = (uint32_t)v; memcpy(p + 4 * k, &w, 4); }
		break;
	default: memcpy(p + 8 * k, &v, 8);
	}
}

static void
philox(unsigned char *d, int esz, int64_t n, uint64_t key, uint64_t *lo,
	uint64_t *hi)
{
	int64_t words = esz == 8 ? 2 * n : n, nv = (words + 3) / 4, i, j;
	uint64_t l, h;
	uint32_t x[4];

	for (i = 0; i < nv; i++) {
		l = *lo + (uint64_t)i;
		h = l < *lo ? *hi + 1 : *hi;
		x[0] = (uint32_t)l;
		x[1] = (uint32_t)(l >> 32);
		x[2] = (uint32_t)h;
		x[3] = (uint32_t)(h >> 32);
		ev_philox4x32(x, (uint32_t)key, (uint32_t)(key >> 32));
		if (esz == 8) {
			for (j = 0; j < 2 && 2 * i + j < n; j++)
				put(d, 8, 2 * i + j, x[2 * j] |
					(uint64_t)x[2 * j + 1] << 32);
		} else {
			for (j = 0; j < 4 && 4 * i + j < n; j++)
				put(d, esz, 4 * i + j, x[j]);
		}
	}
	l = *lo + (uint64_t)nv;
	*hi = l < *lo ? *hi + 1 : *hi;
	*lo = l;
}

/* how xla's generators halve dims (passes/prng_build.c's prng_split):
 * the dimension split, the first even one, else the largest (-1 for a
 * scalar), and the element counts before and after it */
static int
split_dims(const int64_t *dims, int rank, int64_t *outer, int64_t *inner)
{
	int k, split = -1;

	for (k = 0; k < rank && split < 0; k++)
		if (dims[k] % 2 == 0)
			split = k;
	if (split < 0 && rank > 0) {
		split = 0;
		for (k = 1; k < rank; k++)
			if (dims[k] > dims[split])
				split = k;
	}
	for (k = 0; k < rank; k++)
		if (k < split)
			*outer *= dims[k];
		else if (k > split)
			*inner *= dims[k];
	return split;
}

/* ThreeFry over dims; returns the inputs used */
static int64_t
threefry(unsigned char *d, int esz, const int64_t *dims, int rank,
	uint64_t key, uint64_t c)
{
	int64_t n = 1, split = -1, half, outer = 1, inner = 1, o, j, t, e;
	uint32_t x[2];
	int k;

	for (k = 0; k < rank; k++)
		n *= dims[k];
	if (esz == 8) {
		for (e = 0; e < n; e++) {
			x[0] = (uint32_t)(c + (uint64_t)e);
			x[1] = (uint32_t)((c + (uint64_t)e) >> 32);
			ev_threefry2x32(x, (uint32_t)key, (uint32_t)(key >> 32));
			put(d, 8, e, x[0] | (uint64_t)x[1] << 32);
		}
		return n;
	}
	if (rank == 0) {
		x[0] = (uint32_t)c;
		x[1] = (uint32_t)(c >> 32);
		ev_threefry2x32(x, (uint32_t)key, (uint32_t)(key >> 32));
		put(d, esz, 0, x[0]);
		return 1;
	}
	split = split_dims(dims, rank, &outer, &inner);
	half = (dims[split] + 1) / 2;
	for (o = 0; o < outer; o++)
		for (j = 0; j < half; j++)
			for (t = 0; t < inner; t++) {
				uint64_t h = c + (uint64_t)((o * half + j) *
					inner + t);

				x[0] = (uint32_t)h;
				x[1] = (uint32_t)(h >> 32);
				ev_threefry2x32(x, (uint32_t)key,
					(uint32_t)(key >> 32));
				for (k = 0; k < 2 && 2 * j + k < dims[split];
				     k++)
					put(d, esz, (o * dims[split] + 2 * j +
						k) * inner + t, x[k]);
			}
	return outer * half * inner;
}

/* the algorithm of in: 0 philox, 1 three_fry, -1 other */
static int
algorithm(const HloModule *m, const HloInstr *in)
{
	if (hlo_attr_is(m, in, A_ALGORITHM, "rng_three_fry"))
		return 1;
	if (hlo_attr_is(m, in, A_ALGORITHM, "rng_philox") ||
	    hlo_attr_is(m, in, A_ALGORITHM, "rng_default") ||
	    !hlo_attr(m, in, A_ALGORITHM))
		return 0;
	return -1;
}

int
ev_rngbits_exact(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops,
	HloVal **out)
{
	const HloModule *m = ev->m;
	const HloInstr *in = hlo_ins(m, c, i);
	const HloShape *sh = hlo_sh(m, in->shape), *ss, *ds;
	int alg = algorithm(m, in), esz, rank;
	uint64_t st[3], lo, hi;
	const int64_t *dims;
	HloVal *t;

	if (alg < 0 || sh->type != TY_TUPLE || sh->ntuple != 2 ||
	    in->nops != 1 || ops[0]->type != TY_U64 || ops[0]->n < 2 ||
	    ops[0]->n > (alg ? 2 : 3))
		return 0;
	ss = hlo_sh(m, hlo_tuple_elems(m, sh)[0]);
	ds = hlo_sh(m, hlo_tuple_elems(m, sh)[1]);
	if (ss->type != TY_U64 || ss->rank != 1 || hlo_dims(m, ss)[0] !=
	    ops[0]->n || (ds->type != TY_U8 && ds->type != TY_U16 &&
	    ds->type != TY_U32 && ds->type != TY_U64))
		return 0;
	memcpy(st, ops[0]->data, (size_t)ops[0]->n * 8);
	t = hlo_val_tuple(ev, in->shape);
	t->elems[0] = hlo_val_array(ev, hlo_tuple_elems(m, sh)[0]);
	t->elems[1] = t->elems[0] ? hlo_val_array(ev, hlo_tuple_elems(m,
		hlo_sh(m, in->shape))[1]) : NULL;
	if (!t->elems[1]) {
		hlo_val_unref(ev, t);
		return -1;
	}
	ds = hlo_sh(m, hlo_tuple_elems(m, hlo_sh(m, in->shape))[1]);
	esz = (int)ev_esz(ds->type);
	dims = ev_dims(ev, hlo_tuple_elems(m, hlo_sh(m, in->shape))[1],
		&rank);
	if (alg == 1) {
		st[1] += (uint64_t)threefry(t->elems[1]->data, esz, dims, rank,
			st[0], st[1]);
	} else {
		lo = st[1];
		hi = ops[0]->n == 3 ? st[2] : st[0];
		philox(t->elems[1]->data, esz, t->elems[1]->n, st[0], &lo,
			&hi);
		st[1] = lo;
		st[2] = hi;
	}
	memcpy(t->elems[0]->data, st, (size_t)ops[0]->n * 8);
	*out = t;
	return 1;
}

/* rng: what rng-expander's expansion computes (passes/rng_expander.c):
 * key 0, the 128-bit counter the evaluator's rng-get-and-update-state
 * model returns for delta = the result's 32-bit words, Philox bits, and
 * prng.cc's uniform or Box-Muller normal conversion, every float op
 * rounded to the type as the evaluator rounds the expansion's ops (f16
 * and bf16 in f32, rounded at the end) */

static double
rnd(int type, double v)
{
	return type == TY_F64 ? v : (double)(float)v;
}

/* the uniform [0, 1) float of element k of bits */
static double
unit(int type, const unsigned char *bits, int64_t k)
{
	uint64_t w;
	uint32_t h;

	if (type == TY_F64) {
		memcpy(&w, bits + 8 * k, 8);
		return (double)(w >> 12) * ldexp(1., -52);
	}
	memcpy(&h, bits + 4 * k, 4);
	return (double)(h >> 9) * ldexp(1., -23);
}

/* n standard normals of dims into out, from the bits of the split
 * shape's 2 * half elements */
static void
normals(int type, const unsigned char *bits, const int64_t *dims, int rank,
	double *out)
{
	int64_t outer = 1, inner = 1, half, o, j, t, d = 1;
	int k, split = split_dims(dims, rank, &outer, &inner);
	double x0, x1, u1, v1, u2, z[2];

	if (rank)
		d = dims[split];
	half = (d + 1) / 2;
	for (o = 0; o < outer; o++)
		for (j = 0; j < half; j++)
			for (t = 0; t < inner; t++) {
				int64_t b = ((o * half + j) * 2) * inner + t;

				x0 = unit(type, bits, b);
				x1 = unit(type, bits, b + inner);
				u1 = x0 > rnd(type, 1.0e-7f) ? x0 :
					rnd(type, 1.0e-7f);
				v1 = rnd(type, rnd(type, 2.0f * M_PI) * x1);
				u2 = rnd(type, sqrt(rnd(type, -2.0 * rnd(type,
					log(u1)))));
				z[0] = rnd(type, rnd(type, sin(v1)) * u2);
				z[1] = rnd(type, rnd(type, cos(v1)) * u2);
				for (k = 0; k < 2 && 2 * j + k < d; k++)
					out[(o * d + 2 * j + k) * inner + t] =
						z[k];
			}
}

static int
rng_type_ok(int t, int normal)
{
	if (t == TY_F16 || t == TY_BF16 || t == TY_F32 || t == TY_F64)
		return 1;
	return !normal && (t == TY_S32 || t == TY_U32 || t == TY_S64 ||
		t == TY_U64);
}

static void
uniform_ints(HloVal *v, const unsigned char *bits, HloVal **ops)
{
	int w = hlo_typeinfo[v->type].bits, sgn = v->type == TY_S32 ||
		v->type == TY_S64;
	uint64_t mask = w == 64 ? ~0ull : (1ull << w) - 1, a = 0, b = 0, rg;
	uint64_t x, dist, h;
	uint32_t x32;
	int64_t k;
	Lane l;

	memcpy(&a, ops[0]->data, w / 8);
	memcpy(&b, ops[1]->data, w / 8);
	rg = (b - a) & mask;
	for (k = 0; k < v->n; k++) {
		if (w == 64) {
			memcpy(&x, bits + 8 * k, 8);
		} else {
			memcpy(&x32, bits + 4 * k, 4);
			x = x32;
		}
		dist = rg ? x % rg : x;
		h = dist >> 1;
		x = (a + h + (dist - h)) & mask;
		if (sgn) {
			l.s = w == 64 ? (int64_t)x : (int64_t)(int32_t)x;
			l.u = (uint64_t)l.s;
		} else {
			l.u = x;
		}
		ev_lane_store(v->type, &l, 1, v->data + k * ev_esz(v->type));
	}
}

int
ev_rng_exact(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops,
	HloVal **out)
{
	const HloModule *m = ev->m;
	const HloInstr *in = hlo_ins(m, c, i);
	int normal = hlo_attr_is(m, in, A_DISTRIBUTION, "rng_normal"), rank;
	int type, ft, k;
	int64_t n, words, n2, j;
	uint64_t st[2];
	const int64_t *dims;
	unsigned char *bits;
	double *z, a, b;
	HloVal *v;
	Lane l;

	if (in->nops < 2 || (!normal && !hlo_attr_is(m, in, A_DISTRIBUTION,
	    "rng_uniform")))
		return 0;
	type = hlo_sh(m, in->shape)->type;
	if (type >= TY_TUPLE || !rng_type_ok(type, normal) ||
	    ops[0]->type != type || ops[1]->type != type || ops[0]->n != 1 ||
	    ops[1]->n != 1 || hlo_sh(m, in->shape)->dynmask)
		return 0;
	ft = type == TY_F16 || type == TY_BF16 ? TY_F32 : type;
	v = hlo_val_array(ev, in->shape);
	if (!v)
		return -1;
	n = v->n;
	words = n * (hlo_typeinfo[ft].bits / 32);
	ev_rng_state_model(words, st);
	dims = ev_dims(ev, in->shape, &rank);
	n2 = n;
	if (normal && rank == 0) {
		n2 = 2;
	} else if (normal) {
		int64_t dmax = 0, even = 0;

		for (k = 0; k < rank; k++) {
			even |= dims[k] % 2 == 0;
			dmax = dims[k] > dmax ? dims[k] : dmax;
		}
		if (!even)
			n2 = n / dmax * (dmax + 1);
	}
	bits = xcalloc((size_t)n2 + 1, 8);
	z = xcalloc((size_t)n + 1, sizeof *z);
	philox(bits, hlo_typeinfo[ft].bits / 8, n2, 0, &st[0], &st[1]);
	if (ft != TY_F32 && ft != TY_F64) {
		uniform_ints(v, bits, ops);
	} else {
		a = ev_get_f(ops[0]->type, ops[0]->data);
		b = ev_get_f(ops[1]->type, ops[1]->data);
		if (normal)
			normals(ft, bits, dims, rank, z);
		for (j = 0; j < n; j++) {
			if (normal)
				l.f = rnd(ft, a + rnd(ft, b * z[j]));
			else
				l.f = rnd(ft, rnd(ft, unit(ft, bits, j) *
					rnd(ft, b - a)) + a);
			ev_lane_store(v->type, &l, 1, v->data + j *
				ev_esz(v->type));
		}
	}
	free(bits);
	free(z);
	*out = v;
	return 1;
}
