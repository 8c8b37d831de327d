/* bitcast_dtypes_expander.c: "bitcast_dtypes_expander", xla's
 * BitcastDtypesExpander (xla/hlo/transforms/expanders/
 * bitcast_dtypes_expander.cc, openxla/xla as of 2025-03).
 *
 * An OpExpanderPass over bitcast-converts between element types of
 * different bit widths. Each becomes a call of a computation named
 * xla.bitcast_convert_<from>_2_<to> (shapes without layout, characters
 * other than letters, digits, '_', '.' and '-' as '_'), made once per
 * pair of shapes and run:
 *   narrowing, e.g. s32[10] -> s8[10,4]: the operand reshaped to
 *     [...,1], broadcast, reshaped back and broadcast to [...,k], bitcast
 *     to the unsigned type of its width, shifted right by width_out *
 *     iota along the new dimension, masked to width_out bits, converted
 *     to the unsigned type of width_out and bitcast to the result type;
 *   widening, e.g. s8[10,4] -> s32[10]: the operand bitcast to its
 *     unsigned type, converted to the unsigned type of the result width,
 *     shifted left by width_in * iota along the last dimension, reduced
 *     over it with or (computation or_U32, ...) and bitcast to the
 *     result type.
 * Not matched (deviation: xla would try): pred operands or results, and
 * widths without an unsigned integer type (complex types).
 */
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "prng_build.h"

static int
utype(int bits)
{
	switch (bits) {
	case 1: return TY_U1;
	case 2: return TY_U2;
	case 4: return TY_U4;
	case 8: return TY_U8;
	case 16: return TY_U16;
	case 32: return TY_U32;
	case 64: return TY_U64;
	}
	return -1;
}

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	const HloInstr *in = pass_ins(ed, i);
	int ti, to;

	(void)arg;
	if (in->op != HOP_BITCASTCVT || in->nops != 1)
		return 0;
	ti = pass_b_type(ed, pass_opnd(ed, i, 0));
	to = hlo_sh(ed->m, in->shape)->type;
	if (to >= TY_TUPLE || ti >= TY_TUPLE || ti == TY_PRED || to == TY_PRED)
		return 0;
	return hlo_typeinfo[ti].bits != hlo_typeinfo[to].bits &&
		utype(hlo_typeinfo[ti].bits) >= 0 &&
		utype(hlo_typeinfo[to].bits) >= 0;
}

static uint32_t
add1(PassEdit *b, int op, uint32_t shape, uint32_t x)
{
	return pass_b_op(b, op, shape, 1, &x);
}

/* width_out * iota along dim, in type ut over dims */
static uint32_t
shifts(PassEdit *b, int ut, int rank, const int64_t *dims, int width)
{
	uint32_t s = hlo_shape(b->m, ut, rank, dims, NULL, 0, 0);
	uint32_t k = pass_b_bcast(b, pass_b_scalar_bits(b, ut,
		(uint64_t)width), s, 0, NULL);

	return prng_bin(b, HOP_MUL, k, pass_b_iota(b, s, rank - 1));
}

static uint32_t
narrow(PassEdit *b, uint32_t x, const HloShape *from, int wi, int wo, int to)
{
	HloModule *m = b->m;
	/* from points into the shape pool, which the shapes built here grow:
	 * its type is copied first */
	int r = from->rank, ft = from->type, k, ui = utype(wi), uo = utype(wo);
	int64_t d[65], id[65];
	uint32_t s, mask;

	memcpy(d, hlo_dims(m, from), r * sizeof *d);
	for (k = 0; k <= r; k++)
		id[k] = k;
	d[r] = 1;
	s = hlo_shape(m, ft, r + 1, d, NULL, 0, 0);
	x = add1(b, HOP_RESHAPE, s, x);
	x = pass_b_bcast(b, x, s, (uint32_t)r + 1, id);
	x = add1(b, HOP_RESHAPE, hlo_shape(m, ft, r, d, NULL, 0, 0),
		x);
	d[r] = wi / wo;
	x = pass_b_bcast(b, x, hlo_shape(m, ft, r + 1, d, NULL, 0, 0),
		(uint32_t)r, id);
	x = add1(b, HOP_BITCASTCVT, hlo_shape(m, ui, r + 1, d, NULL, 0, 0), x);
	x = prng_bin(b, HOP_SHRL, x, shifts(b, ui, r + 1, d, wo));
	mask = pass_b_bcast(b, pass_b_scalar_bits(b, ui, ((uint64_t)1 << wo) -
		1),
		hlo_shape(m, ui, r + 1, d, NULL, 0, 0), 0, NULL);
	x = prng_bin(b, HOP_AND, x, mask);
	x = add1(b, HOP_CONVERT, hlo_shape(m, uo, r + 1, d, NULL, 0, 0), x);
	return add1(b, HOP_BITCASTCVT, hlo_shape(m, to, r + 1, d, NULL, 0, 0),
		x);
}

static uint32_t
widen(PassEdit *b, uint32_t x, const HloShape *from, int wi, int wo, int to)
{
	HloModule *m = b->m;
	int r = from->rank, ui = utype(wi), uo = utype(wo);
	int64_t d[64], last = r - 1;
	uint32_t or, init, red;
	char name[16];

	memcpy(d, hlo_dims(m, from), r * sizeof *d);
	x = add1(b, HOP_BITCASTCVT, hlo_shape(m, ui, r, d, NULL, 0, 0), x);
	x = add1(b, HOP_CONVERT, hlo_shape(m, uo, r, d, NULL, 0, 0), x);
	x = prng_bin(b, HOP_SHL, x, shifts(b, uo, r, d, wi));
	init = pass_b_scalar_bits(b, uo, 0);
	snprintf(name, sizeof name, "or_U%d", wo);
	or = pass_b_scalar_comp(m, name, HOP_OR, uo, "lhs", "rhs");
	red = pass_b_reduce(b, x, init, hlo_shape(m, uo, r - 1, d, NULL, 0, 0),
		1, &last, or);
	return add1(b, HOP_BITCASTCVT, hlo_shape(m, to, r - 1, d, NULL, 0, 0),
		red);
}

static uint32_t
make_comp(HloModule *m, uint32_t name, uint32_t opshape, int to)
{
	const HloShape *from = hlo_sh(m, opshape);
	int wi = hlo_typeinfo[from->type].bits, wo = hlo_typeinfo[to].bits;
	PassEdit b;
	uint32_t p;

	pass_b_fresh(&b, m, hlo_comp_add(m, name));
	p = pass_b_param(&b, 0, opshape, pass_unique_name(m, "a"));
	from = hlo_sh(m, opshape);
	pass_b_root(&b, wi > wo ? narrow(&b, p, from, wi, wo, to) :
		widen(&b, p, from, wi, wo, to));
	return b.c;
}

/* the computation of this pair of shapes, made on first use (named
 * after the shapes, uniqued if a computation has the name already) */
static uint32_t
lookup(HloModule *m, PassCache *cc, uint32_t opshape, uint32_t toshape)
{
	HloBuf b = {0};
	uint32_t name, key, *k;
	int unused, fresh;

	hlo_buf_puts(&b, "xla.bitcast_convert_");
	pass_shape_name(m, opshape, &b);
	hlo_buf_puts(&b, "_2_");
	pass_shape_name(m, toshape, &b);
	unused = hlo_find_str(m, b.buf, b.len) == HLO_NONE;
	name = hlo_str(m, b.buf, b.len);
	key = name + 1;
	k = pass_cache_slot(cc, &key, &fresh);
	if (fresh)
		*k = make_comp(m, unused ? name : pass_unique_name(m, b.buf),
			opshape, hlo_sh(m, toshape)->type);
	hlo_buf_free(&b);
	return *k;
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	uint32_t x = pass_opnd(ed, i, 0), shape = pass_ins(ed, i)->shape;

	return pass_b_call(ed, lookup(m, arg, pass_b_shape(ed, x), shape),
		shape, 1, &x);
}

int
pass_bitcast_dtypes_expander(HloModule *m, PassCtx *ctx)
{
	return pass_expand_cached(m, ctx, match, expand, 1);
}
