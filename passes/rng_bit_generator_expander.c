/* rng_bit_generator_expander.c: "rng-bit-generator-expander", xla's
 * RngBitGeneratorExpander as XLA:CPU constructs it, with RNG_PHILOX for
 * rng_default (xla/service/rng_bit_generator_expander.cc, openxla/xla
 * 16569562fc04; cpu_compiler.cc at 353a6d6c92ef).
 *
 * An OpExpanderPass over rng-bit-generator: each becomes a call of a
 * computation "rng" (state) -> (state', bits), made once per (data shape,
 * state shape, algorithm), built by prng_build.c as xla's prng.cc builds
 * it:
 *   rng_philox (and rng_default): key = state[0]; the 128-bit counter is
 *     state[1:3] for a u64[3] state, reverse(state) for u64[2];
 *     PhiloxBitGenerator(key, counter, data shape); the new state is the
 *     key and the new counter (u64[2]: its low word only);
 *   rng_three_fry: ThreeFryBitGenerator(state[0], state[1:2], data
 *     shape); the new state is the key and the new counter.
 * Must not fire (xla would build a computation whose result does not
 * match the instruction, or reject the algorithm): states other than
 * u64[2] or u64[3] (u64[2] only for three_fry), data types other than
 * u8, u16, u32 and u64 (the generators return unsigned bits), results
 * that are not a (state, data) pair, instructions with control
 * dependencies (OpExpanderPass). src/eval/eval_prng.c evaluates the
 * instruction itself with the same bits, so verify compares exactly.
 */
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "prng_build.h"

/* 0 philox, 1 three_fry, -1 not expanded */
static int
algorithm(const HloModule *m, const HloInstr *in)
{
	if (!hlo_attr(m, in, A_ALGORITHM) || hlo_attr_is(m, in, A_ALGORITHM,
	    "rng_default") || hlo_attr_is(m, in, A_ALGORITHM, "rng_philox"))
		return 0;
	return hlo_attr_is(m, in, A_ALGORITHM, "rng_three_fry") ? 1 : -1;
}

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);
	const HloShape *sh = hlo_sh(m, in->shape), *ss, *ds;
	int alg;

	(void)arg;
	if (in->op != HOP_RNGBITGEN || in->nops != 1 || sh->type != TY_TUPLE ||
	    sh->ntuple != 2 || (alg = algorithm(m, in)) < 0)
		return 0;
	ss = hlo_sh(m, pass_b_shape(ed, pass_opnd(ed, i, 0)));
	ds = hlo_sh(m, hlo_tuple_elems(m, sh)[1]);
	if (ss->type != TY_U64 || ss->rank != 1 || hlo_dims(m, ss)[0] < 2 ||
	    hlo_dims(m, ss)[0] > (alg ? 2 : 3) || ss->dynmask ||
	    ds->dynmask || !pass_shape_equal(m, hlo_tuple_elems(m, sh)[0],
	    pass_b_shape(ed, pass_opnd(ed, i, 0))))
		return 0;
	return ds->type == TY_U8 || ds->type == TY_U16 || ds->type == TY_U32 ||
		ds->type == TY_U64;
}

static uint32_t
build(HloModule *m, uint32_t dshape, uint32_t sshape, int alg)
{
	PassEdit b;
	uint32_t st, key, ctr, bits, ns, o[2];
	int64_t z = 0, one = 1, two = 2, three = 3;
	int len;

	pass_b_fresh(&b, m, hlo_comp_add(m, pass_unique_name(m, "rng")));
	st = pass_b_param(&b, 0, sshape, pass_unique_name(m, "state"));
	len = (int)hlo_dims(m, hlo_sh(m, sshape))[0];
	key = pass_b_reshape(&b, pass_b_slice(&b, st, &z, &one, NULL), 0,
		NULL);
	if (alg) {
		ctr = pass_b_slice(&b, st, &one, &two, NULL);
		bits = prng_threefry(&b, key, ctr, dshape, &ns);
	} else {
		if (len >= 3) {
			ctr = pass_b_slice(&b, st, &one, &three, NULL);
		} else {
			HloAttr a = hlo_mk_ints(m, A_DIMENSIONS, &z, 1);

			ctr = pass_b_unary(&b, HOP_REVERSE, st);
			hlo_set_attrs(m, b.c, ctr, 1, &a);
		}
		bits = prng_philox(&b, key, ctr, dshape, &ns);
		if (len < 3)
			ns = pass_b_slice(&b, ns, &z, &one, NULL);
	}
	o[0] = pass_b_concat(&b, 2, (uint32_t[2]){pass_b_reshape(&b, key, 1,
		&one), ns}, 0);
	o[1] = bits;
	pass_b_root(&b, pass_b_tuple(&b, 2, o));
	return b.c;
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	PassCache *cc = arg;	/* keys: data shape + 1, state shape,
				 * algorithm */
	uint32_t x = pass_opnd(ed, i, 0), shape = pass_ins(ed, i)->shape;
	uint32_t k[3], *s;
	int fresh;

	k[0] = hlo_tuple_elems(m, hlo_sh(m, shape))[1] + 1;
	k[1] = pass_b_shape(ed, x);
	k[2] = (uint32_t)algorithm(m, pass_ins(ed, i));
	s = pass_cache_slot(cc, k, &fresh);
	if (fresh)
		*s = build(m, k[0] - 1, k[1], (int)k[2]);
	return pass_b_call(ed, *s, shape, 1, &x);
}

int
pass_rng_bit_generator_expander(HloModule *m, PassCtx *ctx)
{
	return pass_expand_cached(m, ctx, match, expand, 3);
}
