/* rng_expander.c: "rng-expander", xla's RngExpander (xla/service/
 * rng_expander.cc, openxla/xla 46ed88134478; distributions from
 * xla/hlo/builder/lib/prng.cc 4ead6719e6f2).
 *
 * Every rng(a, b) becomes
 *   call(key, rng-get-and-update-state(delta), a, b), to_apply=rng
 * with key a u64 constant and delta the result's count of 32-bit words;
 * the computation "rng" (key, state, a_or_mean, b_or_sigma), made once
 * per (distribution, result shape, operand shapes), draws Philox bits
 * from key and the 128-bit counter state (prng_build.c) and turns them
 * into
 *   rng_uniform, float: the top mantissa-width bits as a float in [0, 1),
 *     times (b - a), plus a;
 *   rng_uniform, s32/u32/s64/u64: a + (d >> 1) + (d - (d >> 1)) with
 *     d = bits % (b - a) in the unsigned type;
 *   rng_normal: uniform [0, 1) floats of the shape split in halves
 *     (prng.cc's SplitShapeIntoHalves), Box-Muller on the two halves
 *     (the first clamped to 1e-7 below), put back together, times b,
 *     plus a.
 * f16 and bf16 rngs run in f32: converts of the operands, the f32 rng
 * expanded, a convert of its result.
 *
 * The key: xla at 46ed88134478 xors the module's RandomNew64() with a
 * process-wide mt19937_64 seeded 42 (or the module config's seed); the
 * module's own generator is also seeded 42, so for a module compiled
 * alone in a process both draw the same numbers and every key is 0.
 * hlopt uses 0. Later xla (hlo/transforms/expanders/rng_expander.cc,
 * c6a1eb433180) computes the key in the caller from a GetRngSeed
 * custom-call, the rng's unique id and the replica and partition ids;
 * hlopt keeps the constant key, which the evaluator can reproduce for the
 * rng itself (instruction ids are not stable across passes).
 * Operands after the second (xla's hlo-opt tests give rng a third) are
 * ignored, as xla ignores them; f16/bf16 ones are converted too.
 *
 * Must not fire (xla would stop on a CHECK or an unimplemented type):
 * rng_normal of integers, types narrower than 32 bits other than f16 and
 * bf16, pred, complex; operands that are not scalars. Deviation: an rng
 * with control dependencies is left alone (xla moves them to the call).
 * src/eval/eval_prng.c evaluates rng as this expansion computes it, with
 * the state the evaluator gives rng-get-and-update-state, so verify
 * compares a module and its expansion value for value.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "prng_build.h"

static int
is_float(int t)
{
	return t == TY_F32 || t == TY_F64;
}

static int
is_int(int t)
{
	return t == TY_S32 || t == TY_U32 || t == TY_S64 || t == TY_U64;
}

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);
	const HloShape *sh = hlo_sh(m, in->shape);
	int normal, t = sh->type, k;

	(void)arg;
	if (in->op != HOP_RNG || in->nops < 2 || t >= TY_TUPLE || sh->dynmask)
		return 0;
	normal = hlo_attr_is(m, in, A_DISTRIBUTION, "rng_normal");
	if (!normal && !hlo_attr_is(m, in, A_DISTRIBUTION, "rng_uniform"))
		return 0;
	for (k = 0; k < 2; k++) {
		const HloShape *o = hlo_sh(m, pass_b_shape(ed, pass_opnd(ed, i,
			k)));

		if (o->type != t || o->rank != 0)
			return 0;
	}
	if (t == TY_F16 || t == TY_BF16) {	/* every operand converted */
		for (k = 2; k < (int)in->nops; k++)
			if (pass_b_type(ed, pass_opnd(ed, i, k)) != t)
				return 0;
		return 1;
	}
	return is_float(t) || (!normal && is_int(t));
}

/* ConvertRandomBitsToUniformFloatingPoint */
static uint32_t
uniform_float(PassEdit *b, uint32_t bits, uint32_t lo, uint32_t hi, int type)
{
	int nb = hlo_typeinfo[type].bits, mant = type == TY_F64 ? 52 : 23;
	int ut = prng_bits_type(type);
	uint32_t v;

	v = prng_bin(b, HOP_SHRL, bits, pass_b_scalar_bits(b, ut,
		(uint64_t)(nb - mant)));
	v = pass_b_xconvert(b, HOP_CONVERT, v, type);
	v = prng_bin(b, HOP_MUL, v, pass_b_scalar(b, type, ldexp(1., -mant)));
	return prng_bin(b, HOP_ADD, prng_bin(b, HOP_MUL, v, prng_bin(b,
		HOP_SUBTRACT, hi, lo)), lo);
}

/* ConvertRandomBitsToUniformInt */
static uint32_t
uniform_int(PassEdit *b, uint32_t bits, uint32_t lo, uint32_t hi, int type)
{
	int ut = prng_bits_type(type);
	uint32_t range, dist, half;

	range = prng_bin(b, HOP_SUBTRACT, pass_b_xconvert(b, HOP_BITCASTCVT,
		hi, ut), pass_b_xconvert(b, HOP_BITCASTCVT, lo, ut));
	dist = prng_bin(b, HOP_REMAINDER, bits, range);
	half = prng_bin(b, HOP_SHRL, dist, pass_b_scalar_bits(b, ut, 1));
	return prng_bin(b, HOP_ADD, prng_bin(b, HOP_ADD, lo,
		pass_b_xconvert(b, HOP_BITCASTCVT, half, type)),
		pass_b_xconvert(b, HOP_BITCASTCVT, prng_bin(b, HOP_SUBTRACT,
		dist, half), type));
}

/* NormalFloatingPointDistribution over shape, standard normal */
static uint32_t
normal(PassEdit *b, uint32_t key, uint32_t state, uint32_t shape)
{
	HloModule *m = b->m;
	const HloShape *sh = hlo_sh(m, shape);
	int type = sh->type, r = sh->rank, hr, k, split;
	int64_t d[65], hd[65], cd[65], z[65] = {0}, st[65] = {0}, lim[65];
	uint32_t bits, ns, x0, x1, u1, v1, u2, o[2];

	memcpy(d, hlo_dims(m, sh), r * sizeof *d);
	split = prng_split(r, d, hd);
	hr = r ? r + 1 : 1;
	for (k = 0; k < hr; k++)
		cd[k] = k == split + 1 ? 2 : hd[k];
	bits = prng_philox(b, key, state, pass_b_array(m, type, hr, cd), &ns);
	bits = uniform_float(b, bits, pass_b_scalar(b, type, 0.0),
		pass_b_scalar(b, type, 1.0), type);
	x0 = pass_b_slice(b, bits, z, hd, NULL);
	memcpy(lim, cd, hr * sizeof *lim);
	st[split + 1] = 1;
	x1 = pass_b_slice(b, bits, st, lim, NULL);
	u1 = prng_bin(b, HOP_MAX, x0, pass_b_scalar(b, type,
		(double)1.0e-7f));
	v1 = prng_bin(b, HOP_MUL, pass_b_scalar(b, type, 2.0f * M_PI), x1);
	u2 = pass_b_unary(b, HOP_SQRT, prng_bin(b, HOP_MUL, pass_b_scalar(b,
		type, -2.0), pass_b_unary(b, HOP_LOG, u1)));
	o[0] = prng_bin(b, HOP_MUL, pass_b_unary(b, HOP_SIN, v1), u2);
	o[1] = prng_bin(b, HOP_MUL, pass_b_unary(b, HOP_COS, v1), u2);
	return prng_join(b, o, r, d, split);
}

static uint32_t
build(HloModule *m, int is_normal, uint32_t shape, uint32_t s0, uint32_t s1)
{
	PassEdit b;
	uint32_t key, st, p0, p1, r, ns;
	int type = hlo_sh(m, shape)->type;

	pass_b_fresh(&b, m, hlo_comp_add(m, pass_unique_name(m, "rng")));
	key = pass_b_param(&b, 0, hlo_shape_scalar(m, TY_U64),
		pass_unique_name(m, "key"));
	st = pass_b_param(&b, 1, pass_b_array(m, TY_U64, 1, (int64_t[1]){2}),
		pass_unique_name(m, "state"));
	p0 = pass_b_param(&b, 2, s0, pass_unique_name(m, "a_or_mean"));
	p1 = pass_b_param(&b, 3, s1, pass_unique_name(m, "b_or_sigma"));
	if (is_normal) {
		r = normal(&b, key, st, hlo_shape_no_layout(m, shape));
		r = prng_bin(&b, HOP_ADD, p0, prng_bin(&b, HOP_MUL, p1, r));
	} else {
		r = prng_philox(&b, key, st, hlo_shape_no_layout(m, shape),
			&ns);
		r = is_float(type) ? uniform_float(&b, r, p0, p1, type) :
			uniform_int(&b, r, p0, p1, type);
	}
	pass_b_root(&b, r);
	return b.c;
}

/* the computation for key k (normal + 1, shape, operand shapes) */
static uint32_t
lookup(HloModule *m, PassCache *cc, const uint32_t *k)
{
	int fresh;
	uint32_t *s = pass_cache_slot(cc, k, &fresh);

	if (fresh)
		*s = build(m, (int)k[0] - 1, k[1], k[2], k[3]);
	return *s;
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);
	uint32_t shape = in->shape, nops = in->nops, k[4], o[4], call, comp;
	int type = hlo_sh(m, shape)->type, narrow;
	uint32_t j;
	int64_t words;
	HloAttr a;

	narrow = type == TY_F16 || type == TY_BF16;
	k[0] = 1 + (uint32_t)hlo_attr_is(m, in, A_DISTRIBUTION, "rng_normal");
	o[2] = pass_opnd(ed, i, 0);
	o[3] = pass_opnd(ed, i, 1);
	if (narrow) {
		shape = hlo_shape_with_type(m, shape, TY_F32);
		o[2] = pass_b_convert(ed, o[2], TY_F32);
		o[3] = pass_b_convert(ed, o[3], TY_F32);
		/* in is stale once a convert grows the pool: nops read first */
		for (j = 2; j < nops; j++)	/* left unused, as in xla */
			pass_b_convert(ed, pass_opnd(ed, i, j), TY_F32);
	}
	k[1] = shape;
	k[2] = pass_b_shape(ed, o[2]);
	k[3] = pass_b_shape(ed, o[3]);
	comp = lookup(m, arg, k);
	o[0] = pass_b_scalar_bits(ed, TY_U64, 0);
	words = hlo_shape_elems(m, shape) * (hlo_typeinfo[hlo_sh(m,
		shape)->type].bits / 32);
	o[1] = pass_b_op(ed, HOP_RNGGETSTATE, pass_b_array(m, TY_U64, 1,
		(int64_t[1]){2}), 0, NULL);
	a = hlo_mk_int(A_DELTA, words);
	hlo_set_attrs(m, ed->c, o[1], 1, &a);
	call = pass_b_call(ed, comp, shape, 4, o);
	return narrow ? pass_b_convert(ed, call, type) : call;
}

int
pass_rng_expander(HloModule *m, PassCtx *ctx)
{
	return pass_expand_cached(m, ctx, match, expand, 4);
}
