/* infer_ops.c: xla's shape inference for each opcode (or group of
 * opcodes that share a rule), reached through the family dispatch of
 * infer.c; the helpers and node trees are infer.c's (inferi.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "inferi.h"

int
inf_unary(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *s;
	int t, rt;

	if (inf_wantarr(v, in, 0))
		return -1;
	s = inf_opsh(v, in, 0);
	t = rt = s->type;
	switch (in->op) {
	case HOP_FLOOR:
	case HOP_CEIL:
	case HOP_ROUNDAFZ:
	case HOP_ROUNDEVEN:
	case HOP_REDUCEPRECISION:
		if (!inf_isfloat(t))
			return inf_badtype(v, "a floating point type", t);
		if (in->op == HOP_REDUCEPRECISION &&
		    (inf_aint(v, in, A_EXPONENT_BITS, 0) < 1 ||
		    inf_aint(v, in, A_MANTISSA_BITS, -1) < 0))
			return inf_bad(v, "bad exponent_bits or mantissa_bits");
		break;
	case HOP_REAL:
	case HOP_IMAG:
		if (inf_iscplx(t))
			rt = inf_component(t);
		else if (!inf_isfloat(t))
			return inf_badtype(v, "a floating point or complex type",
				t);
		break;
	case HOP_ABS:
		if (inf_iscplx(t))
			rt = inf_component(t);
		else if (!inf_issigned(t))
			return inf_badtype(v, "a signed or complex type", t);
		break;
	case HOP_CLZ:
	case HOP_POPCNT:
		if (!inf_isint(t))
			return inf_badtype(v, "an integral type", t);
		break;
	case HOP_NEGATE:
		if (!inf_isint(t) && !inf_isfloat(t) && !inf_iscplx(t))
			return inf_badtype(v, "a numeric type", t);
		break;
	case HOP_SIGN:
		if (!inf_issigned(t))
			return inf_badtype(v, "a signed or complex type", t);
		break;
	case HOP_NOT:
		if (t != TY_PRED && !inf_isint(t))
			return inf_badtype(v, "pred or an integral type", t);
		break;
	case HOP_ISFINITE:
		if (!inf_isfloat(t))
			return inf_badtype(v, "a floating point type", t);
		rt = TY_PRED;
		break;
	default:	/* transcendental */
		if (!inf_isfloat(t) && !inf_iscplx(t))
			return inf_badtype(v, "a floating point or complex type",
				t);
		break;
	}
	*out = inf_larr(v, rt, s->rank, DIMS(v, s), s->dynmask);
	return 0;
}

/* operands a and b are arrays of the same type and dimensions */
static int
samearrays(V *v, const HloInstr *in, uint32_t a, uint32_t b, int flags)
{
	const HloShape *x, *y;
	Str p, q;

	if (inf_wantarr(v, in, a) || inf_wantarr(v, in, b))
		return -1;
	x = inf_opsh(v, in, a);
	y = inf_opsh(v, in, b);
	if (!inf_sametype(x->type, y->type, flags) || !inf_samedims(v, x, y))
		return inf_bad(v, "operands %u and %u differ: %s and %s", a, b,
			inf_shs(v, inf_opshid(v, in, a), &p),
			inf_shs(v, inf_opshid(v, in, b), &q));
	return 0;
}

/* a compare's type= fits its operands: FLOAT or TOTALORDER for floating
 * point, SIGNED for signed integers, UNSIGNED for unsigned and pred */
static int
cmptype(V *v, const HloInstr *in, int t)
{
	const char *want = inf_isfloat(t) || inf_iscplx(t) ? NULL :
		inf_tcls(t) == C_SINT ? "SIGNED" : "UNSIGNED";
	uint32_t n;
	const char *w = hlo_attr_word(v->m, in, A_CMP_TYPE, &n);

	if (!w)
		return 0;
	if (want ? inf_aword(v, in, A_CMP_TYPE, want) :
	    inf_aword(v, in, A_CMP_TYPE, "FLOAT") ||
	    inf_aword(v, in, A_CMP_TYPE, "TOTALORDER"))
		return 0;
	return inf_bad(v, "comparison type %.*s for %s operands", (int)n, w,
		hlo_typeinfo[t].name);
}

int
inf_binary(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x, *y;
	int t;

	if (samearrays(v, in, 0, 1, IGN_FP))
		return -1;
	x = inf_opsh(v, in, 0);
	y = inf_opsh(v, in, 1);
	t = x->type;
	switch (in->op) {
	case HOP_SUBTRACT:
	case HOP_ATAN2:
	case HOP_POWER:
	case HOP_DIVIDE:
	case HOP_REMAINDER:
	case HOP_SHL:
	case HOP_SHRA:
	case HOP_SHRL:
		if (t == TY_PRED)
			return inf_badtype(v, "an arithmetic type", t);
		break;
	case HOP_AND:
	case HOP_OR:
	case HOP_XOR:
		if (t != TY_PRED && !inf_isint(t))
			return inf_badtype(v, "pred or an integral type", t);
		break;
	case HOP_COMPLEX:
		if (t != TY_F32 && t != TY_F64)
			return inf_badtype(v, "f32 or f64", t);
		t = t == TY_F32 ? TY_C64 : TY_C128;
		break;
	case HOP_COMPARE:
		if (cmptype(v, in, t))
			return -1;
		t = TY_PRED;
		break;
	}
	*out = inf_larr(v, t, x->rank, DIMS(v, x), x->dynmask | y->dynmask);
	return 0;
}

int
inf_clamp(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x;
	uint32_t k;
	Str p, q;

	for (k = 0; k < 3; k++)
		if (inf_wantarr(v, in, k))
			return -1;
	x = inf_opsh(v, in, 1);
	for (k = 0; k < 3; k += 2) {
		const HloShape *b = inf_opsh(v, in, k);

		if (!inf_sametype(b->type, x->type, IGN_FP) ||
		    (b->rank && !inf_samedims(v, b, x)))
			return inf_bad(v, "clamp bound %s does not fit operand %s",
				inf_shs(v, inf_opshid(v, in, k), &p),
				inf_shs(v, inf_opshid(v, in, 1), &q));
	}
	*out = inf_lcopy(v, inf_opshid(v, in, 1), x->type);
	return 0;
}

int
inf_select(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *p, *x, *y;
	Str a, b;

	if (inf_wantarr(v, in, 0) || samearrays(v, in, 1, 2, IGN_FP))
		return -1;
	p = inf_opsh(v, in, 0);
	x = inf_opsh(v, in, 1);
	y = inf_opsh(v, in, 2);
	if (p->type != TY_PRED)
		return inf_bad(v, "predicate %s is not pred",
			inf_shs(v, inf_opshid(v, in, 0), &a));
	if (p->rank && !inf_samedims(v, p, x))
		return inf_bad(v, "predicate %s does not fit operands %s",
			inf_shs(v, inf_opshid(v, in, 0), &a),
			inf_shs(v, inf_opshid(v, in, 1), &b));
	*out = inf_larr(v, x->type, x->rank, DIMS(v, x),
		p->rank ? p->dynmask : x->dynmask | y->dynmask);
	return 0;
}

int
inf_convert(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x, *s = SH(v, in->shape);

	if (inf_wantarr(v, in, 0))
		return -1;
	if (!inf_isarr(s))
		return inf_bad(v, "convert to a non-array type");
	x = inf_opsh(v, in, 0);
	*out = inf_larr(v, s->type, x->rank, DIMS(v, x), x->dynmask);
	return 0;
}

int
inf_bitcastcvt(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x, *s = SH(v, in->shape);
	int64_t d[MAXRANK + 1];
	int ib, ob, r, rank;

	if (inf_wantarr(v, in, 0))
		return -1;
	if (!inf_isarr(s))
		return inf_bad(v, "bitcast-convert to a non-array type");
	x = inf_opsh(v, in, 0);
	if (inf_iscplx(x->type) != inf_iscplx(s->type))
		return inf_bad(v, "bitcast-convert between complex and real types");
	ib = inf_bitwidth(x->type);
	ob = inf_bitwidth(s->type);
	if (!ib || !ob || (ib > ob ? ib % ob : ob % ib))
		return inf_bad(v, "bitcast-convert between %d and %d bit types",
			ib, ob);
	rank = x->rank;
	if (rank)
		memcpy(d, DIMS(v, x), rank * 8u);
	if (ib > ob) {
		if (rank >= MAXRANK)
			return inf_bad(v, "rank too large");
		d[rank++] = ib / ob;
	} else if (ib < ob) {
		r = ob / ib;
		if (!rank || d[rank - 1] != r)
			return inf_bad(v, "bitcast-convert to a %d times wider "
				"type needs a last dimension of %d", r, r);
		rank--;
	}
	*out = inf_larr(v, s->type, rank, d, x->dynmask & inf_rmask(rank));
	return 0;
}

int
inf_stochcvt(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x, *r, *s = SH(v, in->shape);

	if (inf_wantarr(v, in, 0) || inf_wantarr(v, in, 1))
		return -1;
	x = inf_opsh(v, in, 0);
	r = inf_opsh(v, in, 1);
	if (!inf_isfloat(x->type))
		return inf_badtype(v, "a floating point type", x->type);
	if (inf_tcls(r->type) != C_UINT || inf_bitwidth(r->type) != inf_bitwidth(x->type))
		return inf_bad(v, "random bits must be unsigned of the operand's "
			"width");
	if (!inf_samedims(v, x, r))
		return inf_bad(v, "random bits and operand differ in dimensions");
	if (!inf_isarr(s))
		return inf_bad(v, "convert to a non-array type");
	*out = inf_larr(v, s->type, x->rank, DIMS(v, x), x->dynmask);
	return 0;
}

/* data movement */

int
inf_broadcast(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x, *s = SH(v, in->shape);
	const int64_t *bd;
	uint32_t n, k;

	if (inf_wantarr(v, in, 0))
		return -1;
	if (!inf_isarr(s))
		return inf_bad(v, "broadcast to a non-array shape");
	x = inf_opsh(v, in, 0);
	bd = inf_aints(v, in, A_DIMENSIONS, &n);
	if (n != x->rank)
		return inf_bad(v, "%u broadcast dimensions for an operand of rank "
			"%u", n, x->rank);
	if (inf_dimlist(v, bd, n, s->rank, "dimensions"))
		return -1;
	for (k = 0; k < n; k++)
		if (DIMS(v, s)[bd[k]] != DIMS(v, x)[k])
			return inf_bad(v, "operand dimension %u (%lld) broadcast "
				"to dimension %lld of size %lld", k,
				(long long)DIMS(v, x)[k], (long long)bd[k],
				(long long)DIMS(v, s)[bd[k]]);
	*out = inf_lcopy(v, in->shape, x->type);
	return 0;
}

int
inf_reshape(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x, *s = SH(v, in->shape);
	int64_t a, b;
	uint32_t k;

	if (inf_wantarr(v, in, 0))
		return -1;
	if (!inf_isarr(s))
		return inf_bad(v, "reshape to a non-array shape");
	x = inf_opsh(v, in, 0);
	a = inf_nelems(DIMS(v, x), x->rank);
	b = inf_nelems(DIMS(v, s), s->rank);
	if (a < 0 || a != b)
		return inf_bad(v, "reshape from %lld to %lld elements",
			(long long)a, (long long)b);
	if (in->op == HOP_DYNRESHAPE) {
		if (in->nops != s->rank + 1u)
			return inf_bad(v, "%u operands for a result of rank %u",
				in->nops, s->rank);
		for (k = 1; k < in->nops; k++)
			if (!inf_isscalar(inf_opsh(v, in, k)) ||
			    inf_opsh(v, in, k)->type != TY_S32)
				return inf_bad(v, "operand %u is not s32[]", k);
	}
	*out = inf_lcopy(v, in->shape, x->type);
	return 0;
}

int
inf_transpose(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x;
	const int64_t *p;
	int64_t d[MAXRANK];
	uint64_t dyn = 0;
	uint32_t n, k;

	if (inf_wantarr(v, in, 0))
		return -1;
	x = inf_opsh(v, in, 0);
	p = inf_aints(v, in, A_DIMENSIONS, &n);
	if (n != x->rank)
		return inf_bad(v, "%u transpose dimensions for an operand of rank "
			"%u", n, x->rank);
	if (inf_dimlist(v, p, n, x->rank, "dimensions"))
		return -1;
	for (k = 0; k < n; k++) {
		d[k] = DIMS(v, x)[p[k]];
		dyn |= (x->dynmask >> p[k] & 1) << k;
	}
	*out = inf_larr(v, x->type, x->rank, d, dyn);
	return 0;
}

int
inf_reverse(V *v, const HloInstr *in, uint32_t *out)
{
	const int64_t *p;
	uint32_t n;

	if (inf_wantarr(v, in, 0))
		return -1;
	p = inf_aints(v, in, A_DIMENSIONS, &n);
	if (inf_dimlist(v, p, n, inf_opsh(v, in, 0)->rank, "dimensions"))
		return -1;
	*out = inf_lcopy(v, inf_opshid(v, in, 0), inf_opsh(v, in, 0)->type);
	return 0;
}

int
inf_slice(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x;
	const int64_t *p;
	int64_t d[MAXRANK], lo, hi, st;
	uint64_t dyn = 0;
	uint32_t n, k;

	if (inf_wantarr(v, in, 0))
		return -1;
	x = inf_opsh(v, in, 0);
	p = inf_aints(v, in, A_SLICE, &n);
	if (n != 3u * x->rank)
		return inf_bad(v, "slice has %u dimensions, operand rank is %u",
			n / 3, x->rank);
	for (k = 0; k < x->rank; k++) {
		lo = p[3 * k];
		hi = p[3 * k + 1];
		st = p[3 * k + 2];
		if (lo < 0 || hi > DIMS(v, x)[k] || lo > hi || st <= 0)
			return inf_bad(v, "slice [%lld:%lld:%lld] out of bounds "
				"for dimension %u of size %lld", (long long)lo,
				(long long)hi, (long long)st, k,
				(long long)DIMS(v, x)[k]);
		d[k] = (hi - lo) / st + ((hi - lo) % st != 0);
		if (d[k] != 1)
			dyn |= x->dynmask & 1ull << k;
	}
	*out = inf_larr(v, x->type, x->rank, d, dyn);
	return 0;
}

/* start index operands from..nops-1 for an operand of rank rank: one
 * rank-1 vector (old form) or rank integral scalars of one type */
static int
startindices(V *v, const HloInstr *in, uint32_t from, int rank)
{
	const HloShape *f;
	uint32_t k;

	if (in->nops == from + 1 && inf_opsh(v, in, from)->rank == 1) {
		f = inf_opsh(v, in, from);
		if (!inf_isint(f->type) || DIMS(v, f)[0] != rank)
			return inf_bad(v, "start index vector does not fit rank %d",
				rank);
		return 0;
	}
	if (in->nops - from != (uint32_t)rank)
		return inf_bad(v, "%u start indices for an operand of rank %d",
			in->nops - from, rank);
	for (k = from; k < in->nops; k++) {
		f = inf_opsh(v, in, k);
		if (!inf_isscalar(f) || !inf_isint(f->type) ||
		    f->type != inf_opsh(v, in, from)->type)
			return inf_bad(v, "start index %u is not an integral "
				"scalar of the same type as the others",
				k - from);
	}
	return 0;
}

int
inf_dynslice(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x;
	const int64_t *p;
	uint64_t dyn = 0;
	uint32_t n, k;

	if (inf_wantops(v, in, 1, UINT32_MAX) || inf_wantarr(v, in, 0))
		return -1;
	x = inf_opsh(v, in, 0);
	if (startindices(v, in, 1, x->rank))
		return -1;
	p = inf_aints(v, in, A_DYN_SLICE_SIZES, &n);
	if (n != x->rank)
		return inf_bad(v, "%u slice sizes for an operand of rank %u", n,
			x->rank);
	for (k = 0; k < n; k++) {
		if (p[k] < 0 || p[k] > DIMS(v, x)[k])
			return inf_bad(v, "slice size %lld out of bounds for "
				"dimension %u of size %lld", (long long)p[k], k,
				(long long)DIMS(v, x)[k]);
		if (p[k] == DIMS(v, x)[k])
			dyn |= x->dynmask & 1ull << k;
	}
	*out = inf_larr(v, x->type, x->rank, p, dyn);
	return 0;
}

int
inf_dus(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x, *u;
	uint64_t dyn;
	uint32_t k;

	if (inf_wantops(v, in, 2, UINT32_MAX) || inf_wantarr(v, in, 0) ||
	    inf_wantarr(v, in, 1))
		return -1;
	x = inf_opsh(v, in, 0);
	u = inf_opsh(v, in, 1);
	if (startindices(v, in, 2, x->rank))
		return -1;
	if (u->rank != x->rank || !inf_sametype(u->type, x->type, IGN_FP))
		return inf_bad(v, "update does not fit the operand");
	dyn = x->dynmask;
	for (k = 0; k < x->rank; k++) {
		if (DIMS(v, u)[k] > DIMS(v, x)[k])
			return inf_bad(v, "update dimension %u (%lld) larger than "
				"the operand's (%lld)", k,
				(long long)DIMS(v, u)[k],
				(long long)DIMS(v, x)[k]);
		if (DIMS(v, u)[k] == DIMS(v, x)[k])
			dyn |= u->dynmask & 1ull << k;
	}
	*out = inf_lcopy(v, inf_opshid(v, in, 0), x->type);
	v->nodes[*out].dyn = dyn;
	return 0;
}

int
inf_concat(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x, *y;
	int64_t dim = 0, d[MAXRANK];
	uint64_t dyn;
	uint32_t k, j;

	if (inf_wantops(v, in, 1, UINT32_MAX) || inf_aone(v, in, A_DIMENSIONS, &dim))
		return -1;
	for (k = 0; k < in->nops; k++)
		if (inf_wantarr(v, in, k))
			return -1;
	x = inf_opsh(v, in, 0);
	if (dim < 0 || dim >= x->rank)
		return inf_bad(v, "concatenate dimension %lld out of range",
			(long long)dim);
	memcpy(d, DIMS(v, x), x->rank * 8u);
	dyn = x->dynmask;
	for (k = 1; k < in->nops; k++) {
		y = inf_opsh(v, in, k);
		if (y->rank != x->rank || !inf_sametype(y->type, x->type, IGN_FP))
			return inf_bad(v, "operand %u differs in rank or type", k);
		for (j = 0; j < x->rank; j++)
			if (j != dim && DIMS(v, y)[j] != d[j])
				return inf_bad(v, "operand %u differs in dimension "
					"%u", k, j);
		if (DIMS(v, y)[dim] < 0 || d[dim] < 0 ||
		    DIMS(v, y)[dim] > INT64_MAX - d[dim])
			return inf_bad(v, "concatenated dimension unbounded or too "
				"large");
		d[dim] += DIMS(v, y)[dim];
		dyn |= y->dynmask;
	}
	*out = inf_larr(v, x->type, x->rank, d, dyn);
	return 0;
}

int
inf_pad(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x, *pv;
	const int64_t *p;
	int64_t d[MAXRANK], inner;
	uint32_t n, k;

	if (inf_wantarr(v, in, 0) || inf_wantarr(v, in, 1))
		return -1;
	x = inf_opsh(v, in, 0);
	pv = inf_opsh(v, in, 1);
	if (pv->rank || !inf_sametype(pv->type, x->type, IGN_FP))
		return inf_bad(v, "padding value is not a scalar of the operand's "
			"type");
	p = inf_aints(v, in, A_PADDING, &n);
	if (n != 3u * x->rank)
		return inf_bad(v, "padding has %u dimensions, operand rank is %u",
			n / 3, x->rank);
	for (k = 0; k < x->rank; k++) {
		int64_t dk = DIMS(v, x)[k];

		if (p[3 * k + 2] < 0)
			return inf_bad(v, "negative interior padding");
		if (__builtin_mul_overflow(dk > 0 ? dk - 1 : 0, p[3 * k + 2],
		    &inner) || __builtin_add_overflow(dk, inner, &d[k]) ||
		    __builtin_add_overflow(d[k], p[3 * k], &d[k]) ||
		    __builtin_add_overflow(d[k], p[3 * k + 1], &d[k]) ||
		    d[k] < 0)
			return inf_bad(v, "padding gives a negative or huge "
				"dimension %u", k);
	}
	*out = inf_larr(v, x->type, x->rank, d, x->dynmask);
	return 0;
}

int
inf_iota(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *s = SH(v, in->shape);
	int64_t d = inf_aint(v, in, A_IOTA_DIM, -1);

	if (!inf_isarr(s) || !s->rank)
		return inf_bad(v, "iota needs an array of rank 1 or more");
	if (d < 0 || d >= s->rank)
		return inf_bad(v, "iota_dimension %lld out of range", (long long)d);
	if (!inf_isint(s->type) && !inf_isfloat(s->type) && !inf_iscplx(s->type))
		return inf_bad(v, "iota of type %s", hlo_typeinfo[s->type].name);
	*out = inf_lref(v, in->shape);
	return 0;
}

int
inf_tuple(V *v, const HloInstr *in, uint32_t *out)
{
	uint32_t k, t = inf_ltup(v, in->nops);

	for (k = 0; k < in->nops; k++)
		inf_lset(v, t, k, inf_lref(v, inf_opshid(v, in, k)));
	*out = t;
	return 0;
}

int
inf_gte(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x = inf_opsh(v, in, 0);
	int64_t k = inf_aint(v, in, A_INDEX, -1);
	Str a;

	if (x->type != TY_TUPLE)
		return inf_bad(v, "operand %s is not a tuple",
			inf_shs(v, inf_opshid(v, in, 0), &a));
	if (k < 0 || k >= x->ntuple)
		return inf_bad(v, "index %lld out of range for %s", (long long)k,
			inf_shs(v, inf_opshid(v, in, 0), &a));
	*out = inf_lref(v, v->m->ids[x->tuple + k]);
	return 0;
}

/* dot and convolution */

/* xla's MaybeUpcast: the result may be wider than the operands, and
 * narrower only for floating point */
static int
resulttype(V *v, const HloInstr *in, int from, int *t)
{
	const HloShape *s = SH(v, in->shape);

	if (!inf_isarr(s))
		return inf_bad(v, "result is not an array");
	*t = s->type;
	if (*t != from && !inf_isfloat(from) && inf_bitwidth(*t) < inf_bitwidth(from))
		return inf_bad(v, "result type %s narrower than operand type %s",
			hlo_typeinfo[*t].name, hlo_typeinfo[from].name);
	return 0;
}

static int
higher(int a, int b)
{
	if (a == b)
		return a;
	if (inf_isfloat(a) != inf_isfloat(b))
		return inf_isfloat(a) ? a : b;
	return inf_bitwidth(a) >= inf_bitwidth(b) ? a : b;
}

/* the contracting dimension sizes agree; a sparse dot's N:M sparse
 * dimension holds N of every M elements (xla's
 * CheckDotDimensionConstraints) */
static int
sparsesizes(V *v, const HloInstr *in, const HloShape *l, const HloShape *r,
	const int64_t *lc, const int64_t *rc, uint32_t nlc)
{
	HloSparsity sp[2];
	int64_t nm[2][2] = {{1, 1}, {1, 1}}, dim[2] = {-1, -1}, ls, rs;
	int ns = hlo_dot_sparsity(v->m, in, sp), k;
	uint32_t j;

	for (k = 0; k < ns; k++) {
		dim[sp[k].index] = sp[k].dim;
		nm[sp[k].index][0] = sp[k].n;
		nm[sp[k].index][1] = sp[k].m;
	}
	for (j = 0; j < nlc; j++) {
		ls = DIMS(v, l)[lc[j]];
		rs = DIMS(v, r)[rc[j]];
		if (lc[j] == dim[0])
			ls *= nm[0][1], rs *= nm[0][0];
		if (rc[j] == dim[1])
			ls *= nm[1][0], rs *= nm[1][1];
		if (ls != rs)
			return inf_bad(v, lc[j] == dim[0] || rc[j] == dim[1] ?
				"sparse dimension size ratio does not match the "
				"descriptor" : "contracting dimension sizes "
				"differ: %lld and %lld",
				(long long)DIMS(v, l)[lc[j]],
				(long long)DIMS(v, r)[rc[j]]);
	}
	return 0;
}

/* a sparse dot's metadata operands: unsigned, the sparse operand's shape
 * with its sparse dimension holding the packed N:M choices (xla's
 * InferSparseDotMetadataShape) */
static int
sparsemeta(V *v, const HloInstr *in)
{
	HloSparsity sp[2];
	int ns = hlo_dot_sparsity(v->m, in, sp), k, bits, per, r;
	const HloShape *o, *x;
	const int64_t *cd;
	uint32_t nc;
	int64_t want, groups;

	for (k = 0; k < ns; k++) {
		if (inf_wantarr(v, in, 2 + k))
			return -1;
		o = inf_opsh(v, in, sp[k].index);
		x = inf_opsh(v, in, 2 + k);
		cd = inf_aints(v, in, sp[k].index ? A_RHS_CONTRACT :
			A_LHS_CONTRACT, &nc);
		if (!hlo_ints_has(cd, nc, sp[k].dim))
			return inf_bad(v, "sparse dimension %lld is not "
				"contracting", (long long)sp[k].dim);
		if (hlo_typeinfo[x->type].cls != C_UINT)
			return inf_bad(v, "sparsity metadata is not unsigned");
		for (bits = 0; (1 << bits) < sp[k].m; bits++)
			;
		per = (inf_bitwidth(x->type) + sp[k].n * bits - 1) /
			(sp[k].n * bits);
		groups = (DIMS(v, o)[sp[k].dim] + sp[k].n - 1) / sp[k].n;
		want = (groups + per - 1) / per;
		if (x->rank != o->rank)
			return inf_bad(v, "sparsity metadata of rank %u for an "
				"operand of rank %u", x->rank, o->rank);
		for (r = 0; r < o->rank; r++)
			if (DIMS(v, x)[r] != (r == sp[k].dim ? want :
			    DIMS(v, o)[r]))
				return inf_bad(v, "sparsity metadata dimension "
					"%d is %lld, expected %lld", r,
					(long long)DIMS(v, x)[r], (long long)(r ==
					sp[k].dim ? want : DIMS(v, o)[r]));
	}
	return 0;
}

/* dims of a dot-like product: batch dims, then lhs and rhs free dims;
 * rskip is one more rhs dimension to leave out (-1: none) */
static int
dotdims(V *v, const HloInstr *in, const HloShape *l, const HloShape *r,
	int64_t rskip, int64_t *d, uint64_t *dyn, int *rank)
{
	const int64_t *lb, *lc, *rb, *rc;
	uint32_t nlb, nlc, nrb, nrc, k;
	int n = 0;

	lb = inf_aints(v, in, A_LHS_BATCH, &nlb);
	lc = inf_aints(v, in, A_LHS_CONTRACT, &nlc);
	rb = inf_aints(v, in, A_RHS_BATCH, &nrb);
	rc = inf_aints(v, in, A_RHS_CONTRACT, &nrc);
	if (nlb != nrb || nlc != nrc)
		return inf_bad(v, "lhs and rhs have different numbers of batch or "
			"contracting dimensions");
	for (k = 0; k < nlb; k++)
		if (hlo_ints_has(lc, nlc, lb[k]) || hlo_ints_has(rc, nrc, rb[k]))
			return inf_bad(v, "a dimension is both batch and "
				"contracting");
	if (inf_dimlist(v, lb, nlb, l->rank, "lhs_batch_dims") ||
	    inf_dimlist(v, lc, nlc, l->rank, "lhs_contracting_dims") ||
	    inf_dimlist(v, rb, nrb, r->rank, "rhs_batch_dims") ||
	    inf_dimlist(v, rc, nrc, r->rank, "rhs_contracting_dims"))
		return -1;
	if (sparsesizes(v, in, l, r, lc, rc, nlc))
		return -1;
	*dyn = 0;
	for (k = 0; k < nlb; k++) {
		if (DIMS(v, l)[lb[k]] != DIMS(v, r)[rb[k]])
			return inf_bad(v, "batch dimension sizes differ: %lld and "
				"%lld", (long long)DIMS(v, l)[lb[k]],
				(long long)DIMS(v, r)[rb[k]]);
		*dyn |= (l->dynmask >> lb[k] & 1) << n;
		d[n++] = DIMS(v, l)[lb[k]];
	}
	for (k = 0; k < l->rank; k++)
		if (!hlo_ints_has(lb, nlb, k) && !hlo_ints_has(lc, nlc, k)) {
			*dyn |= (l->dynmask >> k & 1) << n;
			d[n++] = DIMS(v, l)[k];
		}
	for (k = 0; k < r->rank; k++)
		if (!hlo_ints_has(rb, nrb, k) && !hlo_ints_has(rc, nrc, k) && k != rskip) {
			if (n >= MAXRANK)
				return inf_bad(v, "result rank too large");
			*dyn |= (r->dynmask >> k & 1) << n;
			d[n++] = DIMS(v, r)[k];
		}
	*rank = n;
	return 0;
}

int
inf_dot(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *l, *r;
	int64_t d[MAXRANK];
	uint64_t dyn;
	int rank, t;

	if (inf_wantarr(v, in, 0) || inf_wantarr(v, in, 1))
		return -1;
	l = inf_opsh(v, in, 0);
	r = inf_opsh(v, in, 1);
	if (dotdims(v, in, l, r, -1, d, &dyn, &rank) || sparsemeta(v, in) ||
	    resulttype(v, in, higher(l->type, r->type), &t))
		return -1;
	if (in->op == HOP_SCALEDDOT)
		t = SH(v, in->shape)->type;
	*out = inf_larr(v, t, rank, d, dyn);
	return 0;
}

/* ragged-dot(lhs, rhs, group_sizes): a ragged non-contracting lhs
 * dimension takes the rhs group dimension out of the result; a ragged
 * contracting one puts the group count in front */
int
inf_raggeddot(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *l, *r, *g;
	const int64_t *rag, *grp, *lc;
	int64_t d[MAXRANK + 1], rskip = -1;
	uint32_t nrag, ngrp, nlc;
	uint64_t dyn;
	int rank, t;

	if (inf_wantarr(v, in, 0) || inf_wantarr(v, in, 1) || inf_wantarr(v, in, 2))
		return -1;
	l = inf_opsh(v, in, 0);
	r = inf_opsh(v, in, 1);
	g = inf_opsh(v, in, 2);
	rag = inf_aints(v, in, A_LHS_RAGGED, &nrag);
	grp = inf_aints(v, in, A_RHS_GROUP, &ngrp);
	lc = inf_aints(v, in, A_LHS_CONTRACT, &nlc);
	if (nrag != 1 || rag[0] < 0 || rag[0] >= l->rank || ngrp > 1)
		return inf_bad(v, "bad lhs_ragged_dims or rhs_group_dims");
	if (!inf_isint(g->type) || !g->rank)
		return inf_bad(v, "group sizes must be an integral array");
	if (ngrp) {
		if (grp[0] < 0 || grp[0] >= r->rank)
			return inf_bad(v, "rhs_group_dims out of range");
		rskip = grp[0];
	}
	if (dotdims(v, in, l, r, rskip, d + 1, &dyn, &rank) ||
	    resulttype(v, in, higher(l->type, r->type), &t))
		return -1;
	if (hlo_ints_has(lc, nlc, rag[0])) {
		d[0] = DIMS(v, g)[g->rank - 1];
		*out = inf_larr(v, t, rank + 1, d, dyn << 1);
	} else {
		*out = inf_larr(v, t, rank, d + 1, dyn);
	}
	return 0;
}

/* one letter of a dim_labels part at position k: the two named
 * dimensions ("bf" or "io") or a spatial digit below nsp; each once
 * (seen); -1 otherwise */
static int
dnum(char ch, const char *names, int nsp, int *first, int *second,
	int *spatial, size_t k, int *seen)
{
	int x;

	if (ch == names[0] || ch == names[1]) {
		x = ch == names[0] ? nsp : nsp + 1;
		*(ch == names[0] ? first : second) = k;
	} else if (ch >= '0' && ch - '0' < nsp) {
		x = ch - '0';
		spatial[x] = k;
	} else {
		return -1;
	}
	return seen[x]++ ? -1 : 0;
}

int
hlo_conv_dnums(const char *s, size_t n, int rank, HloConvDnums *d)
{
	const char *us, *ar;
	size_t nl, nk, no, k;
	int nsp, seen[3][HLO_CONV_MAXSP + 2];

	us = memchr(s, '_', n);
	ar = us ? memchr(us, '-', n - (us - s)) : NULL;
	if (!us || !ar || (size_t)(ar - s) + 2 > n || ar[1] != '>')
		return -1;
	nl = us - s;
	nk = ar - us - 1;
	no = n - (ar - s) - 2;
	if (nl != nk || nl != no || nl < 2 || nl > HLO_CONV_MAXSP + 2 ||
	    (rank >= 0 && (size_t)rank != nl))
		return -1;
	nsp = nl - 2;
	memset(seen, 0, sizeof seen);
	memset(d, -1, sizeof *d);
	d->nsp = nsp;
	for (k = 0; k < nl; k++)
		if (dnum(s[k], "bf", nsp, &d->in_batch, &d->in_feature,
		    d->in_spatial, k, seen[0]) < 0 ||
		    dnum(us[1 + k], "io", nsp, &d->k_in, &d->k_out,
		    d->k_spatial, k, seen[1]) < 0 ||
		    dnum(ar[2 + k], "bf", nsp, &d->out_batch, &d->out_feature,
		    d->out_spatial, k, seen[2]) < 0)
			return -1;
	return 0;
}

/* the output size of one window dimension w (7 ints, see attrs.def) over
 * a base of size b; -1 if the window is malformed */
static int64_t
windim(const int64_t *w, int64_t b)
{
	int64_t db, pb, dw;

	if (w[0] <= 0 || w[1] <= 0 || w[4] < 1 || w[5] < 1 || b < 0)
		return -1;
	if (b == 0)
		db = 0;
	else if (__builtin_mul_overflow(b - 1, w[5], &db) || db == INT64_MAX)
		return -1;
	else
		db++;
	if (__builtin_add_overflow(db, w[2], &pb) ||
	    __builtin_add_overflow(pb, w[3], &pb) ||
	    __builtin_mul_overflow(w[0] - 1, w[4], &dw) || dw == INT64_MAX)
		return -1;
	dw++;
	return dw > pb ? 0 : (pb - dw) / w[1] + 1;
}

/* the window attribute for n spatial dimensions; NULL and an error if it
 * does not fit (a missing window fits n == 0) */
static int
window(V *v, const HloInstr *in, uint32_t n, const int64_t **w)
{
	uint32_t nw;

	*w = inf_aints(v, in, A_WINDOW, &nw);
	if (nw != 7 * n)
		return inf_bad(v, "window has %u dimensions, expected %u", nw / 7,
			n);
	return 0;
}

int
inf_conv(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *l, *r;
	const int64_t *w, *ld, *rd;
	const char *lab;
	HloConvDnums dn;
	int64_t fgc, bgc, d[MAXRANK], ifeat, ibatch, kin, kout, sz;
	uint64_t dyn = 0;
	uint32_t nlab;
	int k, t;

	if (inf_wantops(v, in, 2, 2) || inf_wantarr(v, in, 0) || inf_wantarr(v, in, 1))
		return -1;
	l = inf_opsh(v, in, 0);
	r = inf_opsh(v, in, 1);
	ld = DIMS(v, l);
	rd = DIMS(v, r);
	lab = hlo_attr_word(v->m, in, A_DIM_LABELS, &nlab);
	if (!lab || hlo_conv_dnums(lab, nlab, l->rank, &dn))
		return inf_bad(v, "missing or malformed dim_labels");
	if (r->rank != l->rank)
		return inf_bad(v, "lhs and rhs ranks differ");
	if (window(v, in, dn.nsp, &w))
		return -1;
	fgc = inf_aint(v, in, A_FEATURE_GROUP_COUNT, 1);
	bgc = inf_aint(v, in, A_BATCH_GROUP_COUNT, 1);
	if (fgc <= 0 || bgc <= 0 || (fgc > 1 && bgc > 1))
		return inf_bad(v, "bad feature_group_count %lld or "
			"batch_group_count %lld", (long long)fgc,
			(long long)bgc);
	ifeat = ld[dn.in_feature];
	ibatch = ld[dn.in_batch];
	kin = rd[dn.k_in];
	kout = rd[dn.k_out];
	if (kout % bgc || ifeat % fgc || ifeat / fgc != kin || kout % fgc ||
	    ibatch % bgc)
		return inf_bad(v, "feature or batch sizes do not fit the group "
			"counts: input features %lld, kernel input features "
			"%lld, kernel output features %lld, batch %lld",
			(long long)ifeat, (long long)kin, (long long)kout,
			(long long)ibatch);
	d[dn.out_batch] = ibatch / bgc;
	d[dn.out_feature] = kout;
	if (l->dynmask >> dn.in_batch & 1)
		dyn |= 1ull << dn.out_batch;
	for (k = 0; k < dn.nsp; k++) {
		if (rd[dn.k_spatial[k]] != w[7 * k])
			return inf_bad(v, "window size %lld differs from kernel "
				"spatial dimension %lld", (long long)w[7 * k],
				(long long)rd[dn.k_spatial[k]]);
		sz = windim(w + 7 * k, ld[dn.in_spatial[k]]);
		if (sz < 0)
			return inf_bad(v, "malformed window dimension %d", k);
		d[dn.out_spatial[k]] = sz;
		if ((l->dynmask >> dn.in_spatial[k] & 1) ||
		    (r->dynmask >> dn.k_spatial[k] & 1))
			dyn |= 1ull << dn.out_spatial[k];
	}
	if (resulttype(v, in, higher(l->type, r->type), &t))
		return -1;
	*out = inf_larr(v, t, l->rank, d, dyn);
	return 0;
}

/* reductions */

/* xla's VerifyReducerShape: computation c takes n accumulators and n
 * inputs and returns n scalar accumulators; init[k] is the type of init
 * value k, in[k] that of input k; the accumulator types come back in
 * res[]. Floating point precisions may differ (xla's verifier checks
 * exact types only without allow_mixed_precision) */
static int
reducer(V *v, uint32_t c, uint32_t n, const int *init, const int *inp,
	int *res)
{
	const HloShape *rs = SH(v, inf_rootsh(v, c)), *e;
	uint32_t k, s;
	Str a;

	if (inf_wantparams(v, c, 2 * n))
		return -1;
	if ((rs->type == TY_TUPLE ? rs->ntuple : n == 1 ? 1 : 0) != n)
		return inf_bad(v, "reducer %s returns %s, expected %u accumulators",
			inf_cname(v, c), inf_shs(v, inf_rootsh(v, c), &a), n);
	for (k = 0; k < n; k++) {
		s = rs->type == TY_TUPLE ? v->m->ids[rs->tuple + k] :
			inf_rootsh(v, c);
		e = SH(v, s);
		if (!inf_isscalar(e))
			return inf_bad(v, "reducer %s returns %s, expected scalars",
				inf_cname(v, c), inf_shs(v, inf_rootsh(v, c), &a));
		res[k] = e->type;
		if (inf_wantparam(v, c, k, s, 0) ||
		    inf_wantscalarparam(v, c, n + k, inp[k], IGN_FP) ||
		    inf_wantscalarparam(v, c, n + k, e->type, IGN_FP))
			return -1;
		if (!inf_sametype(e->type, init[k], IGN_FP))
			return inf_bad(v, "reducer %s accumulates %s, init value "
				"%u is %s", inf_cname(v, c),
				hlo_typeinfo[e->type].name, k,
				hlo_typeinfo[init[k]].name);
	}
	return 0;
}

/* operands 0..n-1 arrays of equal dims, n..2n-1 scalars; their types
 * in tin[] and tinit[] */
static int
reduceops(V *v, const HloInstr *in, uint32_t n, int *tin, int *tinit)
{
	uint32_t k;

	for (k = 0; k < 2 * n; k++)
		if (inf_wantarr(v, in, k))
			return -1;
	for (k = 0; k < n; k++) {
		if (!inf_samedims(v, inf_opsh(v, in, k), inf_opsh(v, in, 0)))
			return inf_bad(v, "input %u differs in dimensions from "
				"input 0", k);
		if (inf_opsh(v, in, n + k)->rank)
			return inf_bad(v, "init value %u is not a scalar", k);
		tin[k] = inf_opsh(v, in, k)->type;
		tinit[k] = inf_opsh(v, in, n + k)->type;
	}
	return 0;
}

/* a tuple of n arrays of types t[] with dims d, or one array if !tup */
static uint32_t
lresults(V *v, uint32_t n, const int *t, int rank, const int64_t *d,
	uint64_t dyn, int tup)
{
	uint32_t k, x;

	if (!tup)
		return inf_larr(v, t[0], rank, d, dyn);
	x = inf_ltup(v, n);
	for (k = 0; k < n; k++)
		inf_lset(v, x, k, inf_larr(v, t[k], rank, d, dyn));
	return x;
}

/* the n operand and n init types of a reduce or reduce-window, checked
 * with its reducer: *tinit the init types, *res the reducer's result
 * types */
static int
reduce_types(V *v, const HloInstr *in, int **tinit, int **res)
{
	uint32_t n = in->nops / 2;
	int *tin;

	if (!n || in->nops % 2 || n > 1u << 24)
		return inf_bad(v, "%u operands, expected a positive even number",
			in->nops);
	if (inf_wantcalled(v, in, 1))
		return -1;
	tin = inf_typebuf(v, n);
	*tinit = tin + n;
	*res = *tinit + n;
	if (reduceops(v, in, n, tin, *tinit) ||
	    reducer(v, inf_called(v, in, 0), n, *tinit, tin, *res))
		return -1;
	return 0;
}

int
inf_reduce(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x;
	const int64_t *p;
	int64_t d[MAXRANK];
	uint64_t dyn = 0;
	uint32_t n = in->nops / 2, np, k;
	int *tinit, *res, rank = 0;

	if (reduce_types(v, in, &tinit, &res))
		return -1;
	x = inf_opsh(v, in, 0);
	p = inf_aints(v, in, A_DIMENSIONS, &np);
	if (inf_dimlist(v, p, np, x->rank, "dimensions"))
		return -1;
	for (k = 0; k < x->rank; k++)
		if (!hlo_ints_has(p, np, k)) {
			dyn |= (x->dynmask >> k & 1) << rank;
			d[rank++] = DIMS(v, x)[k];
		}
	*out = lresults(v, n, res, rank, d, dyn,
		SH(v, inf_rootsh(v, inf_called(v, in, 0)))->type == TY_TUPLE);
	return 0;
}

/* window output dims of shape x */
static int
windowdims(V *v, const HloInstr *in, const HloShape *x, int64_t *d)
{
	const int64_t *w;
	uint32_t k;

	if (window(v, in, x->rank, &w))
		return -1;
	for (k = 0; k < x->rank; k++)
		if ((d[k] = windim(w + 7 * k, DIMS(v, x)[k])) < 0)
			return inf_bad(v, "malformed window dimension %u", k);
	return 0;
}

int
inf_reducewindow(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x;
	int64_t d[MAXRANK];
	uint32_t n = in->nops / 2;
	int *tinit, *res;

	if (reduce_types(v, in, &tinit, &res))
		return -1;
	x = inf_opsh(v, in, 0);
	if (windowdims(v, in, x, d))
		return -1;
	*out = lresults(v, n, tinit, x->rank, d, x->dynmask,
		SH(v, inf_rootsh(v, inf_called(v, in, 0)))->type == TY_TUPLE);
	return 0;
}

int
inf_selectandscatter(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x, *src, *init;
	int64_t d[MAXRANK];
	uint32_t sel, k;
	int tinit, tsrc, res;

	if (inf_wantcalled(v, in, 2) || inf_wantarr(v, in, 0) || inf_wantarr(v, in, 1) ||
	    inf_wantarr(v, in, 2))
		return -1;
	x = inf_opsh(v, in, 0);
	src = inf_opsh(v, in, 1);
	init = inf_opsh(v, in, 2);
	sel = inf_called(v, in, 0);
	if (inf_wantparams(v, sel, 2) || inf_wantpredroot(v, sel))
		return -1;
	for (k = 0; k < 2; k++)
		if (inf_wantscalarparam(v, sel, k, x->type, IGN_FP))
			return -1;
	if (init->rank)
		return inf_bad(v, "init value is not a scalar");
	tinit = init->type;
	tsrc = src->type;
	if (reducer(v, inf_called(v, in, 1), 1, &tinit, &tsrc, &res) ||
	    windowdims(v, in, x, d))
		return -1;
	if (src->rank != x->rank || (x->rank &&
	    memcmp(DIMS(v, src), d, x->rank * 8u)) ||
	    !inf_sametype(src->type, x->type, IGN_FP))
		return inf_bad(v, "source does not match the windowed operand");
	*out = inf_lcopy(v, inf_opshid(v, in, 0), x->type);
	return 0;
}

int
inf_sort(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x;
	uint32_t k, c;
	int64_t dim = 0;

	if (inf_wantops(v, in, 1, UINT32_MAX) || inf_wantcalled(v, in, 1))
		return -1;
	for (k = 0; k < in->nops; k++) {
		if (inf_wantarr(v, in, k))
			return -1;
		if (!inf_samedims(v, inf_opsh(v, in, k), inf_opsh(v, in, 0)))
			return inf_bad(v, "operand %u differs in dimensions from "
				"operand 0", k);
	}
	x = inf_opsh(v, in, 0);
	if (inf_aone(v, in, A_DIMENSIONS, &dim))
		return -1;
	if (dim < 0 || dim >= x->rank)
		return inf_bad(v, "sort dimension %lld out of range",
			(long long)dim);
	c = inf_called(v, in, 0);
	if (inf_wantparams(v, c, 2 * in->nops) || inf_wantpredroot(v, c))
		return -1;
	for (k = 0; k < 2 * in->nops; k++)
		if (inf_wantscalarparam(v, c, k, inf_opsh(v, in, k / 2)->type, IGN_FP))
			return -1;
	if (in->nops == 1)
		return *out = inf_lref(v, inf_opshid(v, in, 0)), 0;
	return inf_tuple(v, in, out);
}

int
inf_map(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x = NULL, *y, *r;
	uint32_t k, c;
	Str a;

	if (inf_wantops(v, in, 1, UINT32_MAX) || inf_wantcalled(v, in, 1))
		return -1;
	for (k = 0; k < in->nops; k++) {
		if (inf_wantarr(v, in, k))
			return -1;
		y = inf_opsh(v, in, k);
		if (!x || (!x->rank && y->rank))
			x = y;
		else if (y->rank && !inf_samedims(v, x, y))
			return inf_bad(v, "operand %u differs in dimensions", k);
	}
	c = inf_called(v, in, 0);
	if (inf_wantparams(v, c, in->nops))
		return -1;
	for (k = 0; k < in->nops; k++)
		if (inf_wantscalarparam(v, c, k, inf_opsh(v, in, k)->type, IGN_FP))
			return -1;
	r = SH(v, inf_rootsh(v, c));
	if (!inf_isscalar(r))
		return inf_bad(v, "mapped computation %s returns %s, expected a "
			"scalar", inf_cname(v, c), inf_shs(v, inf_rootsh(v, c), &a));
	*out = inf_larr(v, r->type, x->rank, DIMS(v, x), 0);
	return 0;
}

int
inf_topk(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x;
	int64_t d[MAXRANK], k = inf_aint(v, in, A_K, -1);
	uint64_t dyn;
	uint32_t t;

	if (inf_wantarr(v, in, 0))
		return -1;
	x = inf_opsh(v, in, 0);
	if (!x->rank || k < 0 || DIMS(v, x)[x->rank - 1] < k)
		return inf_bad(v, "k=%lld does not fit operand", (long long)k);
	memcpy(d, DIMS(v, x), x->rank * 8u);
	d[x->rank - 1] = k;
	dyn = x->dynmask & ~(1ull << (x->rank - 1));
	t = inf_ltup(v, 2);
	inf_lset(v, t, 0, inf_larr(v, x->type, x->rank, d, dyn));
	inf_lset(v, t, 1, inf_larr(v, TY_S32, x->rank, d, dyn));
	*out = t;
	return 0;
}

/* gather and scatter */

/* the index_vector_dim of a gather or scatter whose indices have shape
 * ix; idims[0 .. *nid) the indices' dims, with the implied trailing 1
 * when index_vector_dim is their rank; -1 after an error */
static int64_t
index_dims(V *v, const HloInstr *in, const HloShape *ix, int64_t *idims,
	int *nid)
{
	int64_t ivd = inf_aint(v, in, A_INDEX_VECTOR_DIM, ix->rank);

	if (ivd < 0 || ivd > ix->rank)
		return inf_bad(v, "index_vector_dim %lld out of range",
			(long long)ivd);
	*nid = ix->rank;
	if (*nid)
		memcpy(idims, DIMS(v, ix), *nid * 8u);
	if (ivd == *nid)
		idims[(*nid)++] = 1;
	return ivd;
}

int
inf_gather(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x, *ix;
	const int64_t *off, *col, *sim, *obd, *ibd, *ss;
	uint32_t noff, ncol, nsim, nobd, nibd, nss, k;
	int64_t ivd, idims[MAXRANK + 1], d[MAXRANK];
	uint64_t dyn = 0;
	int nid, rank, od = 0, gd = 0;

	if (inf_wantarr(v, in, 0) || inf_wantarr(v, in, 1))
		return -1;
	x = inf_opsh(v, in, 0);
	ix = inf_opsh(v, in, 1);
	if (!inf_isint(ix->type))
		return inf_bad(v, "start indices are not integral");
	off = inf_aints(v, in, A_OFFSET_DIMS, &noff);
	col = inf_aints(v, in, A_COLLAPSED_SLICE_DIMS, &ncol);
	sim = inf_aints(v, in, A_START_INDEX_MAP, &nsim);
	obd = inf_aints(v, in, A_OPERAND_BATCHING_DIMS, &nobd);
	ibd = inf_aints(v, in, A_START_INDICES_BATCHING_DIMS, &nibd);
	ss = inf_aints(v, in, A_SLICE_SIZES, &nss);
	if ((ivd = index_dims(v, in, ix, idims, &nid)) < 0)
		return -1;
	rank = noff + nid - 1;
	if (rank > MAXRANK || !inf_sorted(off, noff) ||
	    inf_dimlist(v, off, noff, rank, "offset_dims"))
		return inf_bad(v, "bad offset_dims");
	if (nsim != idims[ivd])
		return inf_bad(v, "start_index_map has %u entries, index vector "
			"has %lld", nsim, (long long)idims[ivd]);
	if (inf_dimlist(v, sim, nsim, x->rank, "start_index_map") ||
	    inf_dimlist(v, col, ncol, x->rank, "collapsed_slice_dims") ||
	    inf_dimlist(v, obd, nobd, x->rank, "operand_batching_dims") ||
	    inf_dimlist(v, ibd, nibd, nid, "start_indices_batching_dims"))
		return -1;
	if (!inf_sorted(col, ncol) || !inf_sorted(obd, nobd) || nobd != nibd)
		return inf_bad(v, "bad collapsed or batching dims");
	for (k = 0; k < ncol; k++)
		if (hlo_ints_has(obd, nobd, col[k]))
			return inf_bad(v, "a dimension is both collapsed and "
				"batching");
	if (nss != x->rank || nss != noff + ncol + nobd)
		return inf_bad(v, "%u slice sizes, operand rank %u, %u offset, %u "
			"collapsed and %u batching dims", nss, x->rank, noff,
			ncol, nobd);
	for (k = 0; k < nss; k++) {
		if (ss[k] < 0 || ss[k] > DIMS(v, x)[k])
			return inf_bad(v, "slice size %lld out of bounds for "
				"dimension %u", (long long)ss[k], k);
		if ((hlo_ints_has(col, ncol, k) || hlo_ints_has(obd, nobd, k)) && ss[k] > 1)
			return inf_bad(v, "collapsed or batching dimension %u has "
				"slice size %lld", k, (long long)ss[k]);
	}
	for (k = 0; k < (uint32_t)rank; k++) {
		if (hlo_ints_has(off, noff, k)) {
			while (hlo_ints_has(col, ncol, od) || hlo_ints_has(obd, nobd, od))
				od++;
			if (ss[od] == DIMS(v, x)[od])
				dyn |= (x->dynmask >> od & 1) << k;
			d[k] = ss[od++];
		} else {
			if (gd == ivd)
				gd++;
			if (gd < ix->rank)
				dyn |= (ix->dynmask >> gd & 1) << k;
			d[k] = idims[gd++];
		}
	}
	*out = inf_larr(v, x->type, rank, d, dyn);
	return 0;
}

static int
scatterops(V *v, const HloInstr *in, uint32_t n, const int64_t *idims,
	int nid, int64_t ivd)
{
	const int64_t *uwd, *iwd, *sdo, *ibd, *sbd;
	uint32_t nuwd, niwd, nsdo, nibd, nsbd, k, j, sd;
	int64_t maxu[MAXRANK];

	uwd = inf_aints(v, in, A_UPDATE_WINDOW_DIMS, &nuwd);
	iwd = inf_aints(v, in, A_INSERTED_WINDOW_DIMS, &niwd);
	sdo = inf_aints(v, in, A_SCATTER_DIMS_TO_OPERAND_DIMS, &nsdo);
	ibd = inf_aints(v, in, A_INPUT_BATCHING_DIMS, &nibd);
	sbd = inf_aints(v, in, A_SCATTER_INDICES_BATCHING_DIMS, &nsbd);
	if (!inf_sorted(uwd, nuwd) || !inf_sorted(iwd, niwd) || !inf_sorted(ibd, nibd) ||
	    nibd != nsbd)
		return inf_bad(v, "scatter dimension lists not sorted or unpaired");
	if (nsdo != idims[ivd])
		return inf_bad(v, "scatter_dims_to_operand_dims has %u entries, "
			"index vector has %lld", nsdo, (long long)idims[ivd]);
	if (inf_dimlist(v, sbd, nsbd, nid, "scatter_indices_batching_dims"))
		return -1;
	for (j = 0; j < n; j++) {
		const HloShape *x = inf_opsh(v, in, j), *u = inf_opsh(v, in, n + 1 + j);
		uint32_t nmax = 0;

		if (!inf_samedims(v, x, inf_opsh(v, in, 0)))
			return inf_bad(v, "operand %u differs from operand 0", j);
		if (u->rank != nid - 1 + nuwd)
			return inf_bad(v, "updates %u have rank %u, expected %u", j,
				u->rank, nid - 1 + nuwd);
		if (inf_dimlist(v, uwd, nuwd, u->rank, "update_window_dims") ||
		    inf_dimlist(v, iwd, niwd, x->rank, "inserted_window_dims") ||
		    inf_dimlist(v, ibd, nibd, x->rank, "input_batching_dims") ||
		    inf_dimlist(v, sdo, nsdo, x->rank,
		    "scatter_dims_to_operand_dims"))
			return -1;
		if (nuwd + niwd + nibd != x->rank)
			return inf_bad(v, "window dims do not add up to the "
				"operand rank %u", x->rank);
		for (k = 0; k < x->rank; k++)
			if (!hlo_ints_has(iwd, niwd, k) && !hlo_ints_has(ibd, nibd, k))
				maxu[nmax++] = DIMS(v, x)[k];
		for (k = 0; k < nuwd; k++)
			if (DIMS(v, u)[uwd[k]] > maxu[k])
				return inf_bad(v, "update window dimension %lld "
					"larger than the operand's",
					(long long)uwd[k]);
		sd = 0;
		for (k = 0; k < u->rank; k++) {
			if (hlo_ints_has(uwd, nuwd, k))
				continue;
			if (sd == ivd)
				sd++;
			if (DIMS(v, u)[k] != idims[sd])
				return inf_bad(v, "update scatter dimension %u is "
					"%lld, indices give %lld", k,
					(long long)DIMS(v, u)[k],
					(long long)idims[sd]);
			sd++;
		}
	}
	return 0;
}

int
inf_scatter(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *ix;
	uint32_t n = in->nops / 2, k, res;
	int64_t ivd, idims[MAXRANK + 1];
	int *tin, *tinit, *rt, nid;

	if (!n || in->nops != 2 * n + 1 || n > 1u << 24)
		return inf_bad(v, "%u operands, expected an odd number", in->nops);
	if (inf_wantcalled(v, in, 1))
		return -1;
	for (k = 0; k < in->nops; k++)
		if (inf_wantarr(v, in, k))
			return -1;
	ix = inf_opsh(v, in, n);
	if (!inf_isint(ix->type))
		return inf_bad(v, "scatter indices are not integral");
	if ((ivd = index_dims(v, in, ix, idims, &nid)) < 0)
		return -1;
	if (scatterops(v, in, n, idims, nid, ivd))
		return -1;
	tin = inf_typebuf(v, n);
	tinit = tin + n;
	rt = tinit + n;
	for (k = 0; k < n; k++) {
		tinit[k] = inf_opsh(v, in, k)->type;
		tin[k] = inf_opsh(v, in, n + 1 + k)->type;
	}
	if (reducer(v, inf_called(v, in, 0), n, tinit, tin, rt))
		return -1;
	if (n == 1)
		return *out = inf_lref(v, inf_opshid(v, in, 0)), 0;
	res = inf_ltup(v, n);
	for (k = 0; k < n; k++)
		inf_lset(v, res, k, inf_lref(v, inf_opshid(v, in, k)));
	*out = res;
	return 0;
}

/* control flow and calls */

int
inf_while(V *v, const HloInstr *in, uint32_t *out)
{
	uint32_t body, cond, s = inf_opshid(v, in, 0);

	if (inf_wantcalled(v, in, 2))
		return -1;
	body = inf_called(v, in, 0);
	cond = inf_called(v, in, 1);
	if (inf_wantparams(v, body, 1) || inf_wantparams(v, cond, 1) ||
	    inf_wantparam(v, body, 0, s, 0) || inf_wantparam(v, cond, 0, s, 0) ||
	    inf_wantpredroot(v, cond))
		return -1;
	/* as xla's HandleWhile: the while has its body's result shape,
	 * which need not be the loop state's */
	*out = inf_lref(v, inf_rootsh(v, body));
	return 0;
}

int
inf_conditional(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *p = inf_opsh(v, in, 0);
	uint32_t k, b;
	Str a, x;

	if (!inf_isscalar(p) || (p->type != TY_PRED && p->type != TY_S32))
		return inf_bad(v, "branch index %s is not pred[] or s32[]",
			inf_shs(v, inf_opshid(v, in, 0), &a));
	if (!in->ncalled || (p->type == TY_PRED && in->ncalled != 2))
		return inf_bad(v, "%u branches for a %s index", in->ncalled,
			hlo_typeinfo[p->type].name);
	if (in->nops != in->ncalled + 1)
		return inf_bad(v, "%u operands for %u branches", in->nops,
			in->ncalled);
	for (k = 0; k < in->ncalled; k++) {
		b = inf_called(v, in, k);
		if (inf_wantparams(v, b, 1) ||
		    inf_wantparam(v, b, 0, inf_opshid(v, in, k + 1), 0))
			return -1;
		if (!inf_seq(v->m, inf_rootsh(v, b), in->shape, IGN_DYN, 0))
			return inf_bad(v, "branch %s returns %s, expected %s",
				inf_cname(v, b), inf_shs(v, inf_rootsh(v, b), &a),
				inf_shs(v, in->shape, &x));
	}
	*out = inf_lref(v, inf_rootsh(v, inf_called(v, in, 0)));
	return 0;
}

/* call, fusion: parameters match operands, the result is the root's */
int
inf_call(V *v, const HloInstr *in, uint32_t *out)
{
	uint32_t c, k, np;

	if (inf_wantcalled(v, in, 1))
		return -1;
	c = inf_called(v, in, 0);
	np = inf_nparams(v, c);
	if (in->op == HOP_CALL ? np != in->nops : np > in->nops)
		return inf_bad(v, "called computation %s takes %u parameters, "
			"%u operands given", inf_cname(v, c), np, in->nops);
	for (k = 0; k < np; k++)
		if (inf_wantparam(v, c, k, inf_opshid(v, in, k), 0))
			return -1;
	*out = inf_lref(v, inf_rootsh(v, c));
	return 0;
}

/* async-start: ((operands...), result, context...) of the wrapped call */
int
inf_asyncstart(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *s = SH(v, in->shape), *ps;
	uint32_t c, k;
	Str a;

	if (inf_wantcalled(v, in, 1))
		return -1;
	c = inf_called(v, in, 0);
	if (inf_wantparams(v, c, in->nops))
		return -1;
	for (k = 0; k < in->nops; k++)
		if (inf_wantparam(v, c, k, inf_opshid(v, in, k), 0))
			return -1;
	if (s->type != TY_TUPLE || s->ntuple < 2)
		return inf_bad(v, "shape %s, expected a tuple of operands, result "
			"and context", inf_shs(v, in->shape, &a));
	ps = SH(v, v->m->ids[s->tuple]);
	if (ps->type != TY_TUPLE || ps->ntuple != in->nops)
		return inf_bad(v, "shape %s does not start with the operands",
			inf_shs(v, in->shape, &a));
	for (k = 0; k < in->nops; k++)
		if (!inf_seq(v->m, v->m->ids[ps->tuple + k], inf_opshid(v, in, k),
		    IGN_DYN, 0))
			return inf_bad(v, "shape %s does not start with the "
				"operands", inf_shs(v, in->shape, &a));
	if (!inf_seq(v->m, v->m->ids[s->tuple + 1], inf_rootsh(v, c), IGN_DYN, 0))
		return inf_bad(v, "shape %s does not hold the result of %s",
			inf_shs(v, in->shape, &a), inf_cname(v, c));
	*out = inf_lref(v, in->shape);
	return 0;
}

/* element k of tuple operand 0 */
int
inf_tupleel(V *v, const HloInstr *in, uint32_t k, uint32_t *out)
{
	const HloShape *x = inf_opsh(v, in, 0);
	Str a;

	if (x->type != TY_TUPLE || x->ntuple <= k)
		return inf_bad(v, "operand %s has no tuple element %u",
			inf_shs(v, inf_opshid(v, in, 0), &a), k);
	*out = inf_lref(v, v->m->ids[x->tuple + k]);
	return 0;
}

/* collectives */

/* the size of the first replica group, when the groups are written out
 * ({{0,1},{2,3}}; {{}} counts as 1) or in iota form ([2,2]<=[4]); 0 if
 * not known */
static int64_t
groupsize(V *v, const HloInstr *in)
{
	int64_t g = hlo_replica_group_size(v->m, in);

	return g < 0 ? 0 : g == 0 ? 1 : g;
}

/* all-gather (out[d] a multiple of in[d]) or reduce-scatter (in[d] a
 * multiple of out[d]) from operand k to result shape s; the multiple is
 * the group size where xla's verifier knows it (written out groups, and
 * no channel or global device ids) */
static int
gatherlike(V *v, const HloInstr *in, uint32_t k, uint32_t s, int64_t dim,
	int scatter)
{
	const HloShape *x = inf_opsh(v, in, k), *y = SH(v, s);
	int64_t a, b, g;
	uint32_t j;
	Str p, q;

	if (inf_wantarr(v, in, k))
		return -1;
	/* torch_xla combines a scalar into its collectives (replica
	 * groups of one); xla would reject it, we let it pass unchanged */
	if (dim >= 0 && dim >= x->rank && inf_seq(v->m, s, inf_opshid(v, in, k), 0,
	    0))
		return 0;
	if (dim < 0 || dim >= x->rank)
		return inf_bad(v, "dimension %lld out of range", (long long)dim);
	if (!inf_isarr(y) || y->type != x->type || y->rank != x->rank)
		goto no;
	for (j = 0; j < x->rank; j++)
		if (j != dim && DIMS(v, x)[j] != DIMS(v, y)[j])
			goto no;
	a = DIMS(v, scatter ? y : x)[dim];
	b = DIMS(v, scatter ? x : y)[dim];
	g = groupsize(v, in);
	if (g > 1 && (!inf_attr(v, in, A_CHANNEL_ID) ||
	    inf_aint(v, in, A_USE_GLOBAL_DEVICE_IDS, 0))) {
		if (a >= 0 && a <= INT64_MAX / g && a * g == b)
			return 0;
	} else if (a ? b % a == 0 : b == 0)
		return 0;
no:
	return inf_bad(v, "shape %s does not fit %s operand %s",
		inf_shs(v, s, &p), scatter ? "a reduce-scatter of" :
		"an all-gather of", inf_shs(v, inf_opshid(v, in, k), &q));
}

/* result (or its elements) gather the operands; start: async form */
int
inf_allgather(V *v, const HloInstr *in, uint32_t *out, int scatter)
{
	const HloShape *s = SH(v, in->shape);
	uint32_t res = in->shape, k;
	int64_t dim = 0;

	if (inf_wantops(v, in, 1, UINT32_MAX) || inf_aone(v, in, A_DIMENSIONS, &dim))
		return -1;
	if (in->op == HOP_ALLGATHERSTART && s->type == TY_TUPLE &&
	    s->ntuple == 2 && (in->nops > 1) ==
	    (SH(v, v->m->ids[s->tuple])->type == TY_TUPLE))
		res = v->m->ids[s->tuple + 1];
	s = SH(v, res);
	if (in->nops == 1)
		return gatherlike(v, in, 0, res, dim, scatter) ? -1 :
			(*out = inf_lref(v, in->shape), 0);
	if (s->type != TY_TUPLE || s->ntuple != in->nops)
		return inf_bad(v, "expected a tuple of %u results", in->nops);
	for (k = 0; k < in->nops; k++)
		if (gatherlike(v, in, k, v->m->ids[s->tuple + k], dim, scatter))
			return -1;
	*out = inf_lref(v, in->shape);
	return 0;
}

/* all-reduce's reducer: two scalars of the operands' type to one */
int
inf_allreducer(V *v, const HloInstr *in)
{
	const HloShape *r;
	uint32_t c, k;
	Str a;

	if (inf_wantcalled(v, in, 1))
		return -1;
	c = inf_called(v, in, 0);
	r = SH(v, inf_rootsh(v, c));
	if (inf_wantparams(v, c, 2))
		return -1;
	if (!inf_isscalar(r))
		return inf_bad(v, "reducer %s returns %s, expected a scalar",
			inf_cname(v, c), inf_shs(v, inf_rootsh(v, c), &a));
	for (k = 0; k < in->nops; k++)
		if (inf_isarr(inf_opsh(v, in, k)) && (inf_wantscalarparam(v, c, 0,
		    inf_opsh(v, in, k)->type, IGN_FP) || inf_wantscalarparam(v, c, 1,
		    inf_opsh(v, in, k)->type, IGN_FP)))
			return -1;
	return 0;
}

/* the operand's shape, or a tuple of all operands' shapes */
int
inf_passthrough(V *v, const HloInstr *in, uint32_t *out, int arrays)
{
	uint32_t k;

	if (inf_wantops(v, in, 1, UINT32_MAX))
		return -1;
	for (k = 0; arrays && k < in->nops; k++)
		if (inf_wantarr(v, in, k))
			return -1;
	if (in->nops == 1)
		return *out = inf_lref(v, inf_opshid(v, in, 0)), 0;
	return inf_tuple(v, in, out);
}

int
inf_alltoall(V *v, const HloInstr *in, uint32_t *out)
{
	const HloAttr *a = inf_attr(v, in, A_DIMENSIONS);
	uint32_t k;
	int64_t dim = 0;

	if (a) {
		if (inf_wantops(v, in, 1, 1) || inf_wantarr(v, in, 0) ||
		    inf_aone(v, in, A_DIMENSIONS, &dim))
			return -1;
		if (dim < 0 || dim >= inf_opsh(v, in, 0)->rank)
			return inf_bad(v, "split dimension %lld out of range",
				(long long)dim);
		*out = inf_lref(v, inf_opshid(v, in, 0));
		return 0;
	}
	for (k = 1; k < in->nops; k++)
		if (!inf_seq(v->m, inf_opshid(v, in, k), inf_opshid(v, in, 0), 0, 0))
			return inf_bad(v, "operand %u differs from operand 0", k);
	return inf_passthrough(v, in, out, 1);
}

/* element k of the instruction's own tuple shape */
static uint32_t
ownel(V *v, const HloInstr *in, uint32_t k)
{
	const HloShape *s = SH(v, in->shape);

	return s->type == TY_TUPLE && k < s->ntuple ?
		inf_lref(v, v->m->ids[s->tuple + k]) : inf_lscalar(v, TY_INVALID);
}

int
inf_collpermute(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *s = SH(v, in->shape);
	uint32_t x, k;

	if (inf_wantops(v, in, 1, UINT32_MAX))
		return -1;
	x = inf_opshid(v, in, in->nops == 4 ? 1 : 0);
	if (in->op == HOP_COLLPERMUTE) {
		if (in->nops == 1 || in->nops == 4)
			return *out = inf_lref(v, x), 0;
		return inf_tuple(v, in, out);
	}
	/* start: (operand, result, u32[], u32[]) or, older, the result */
	if (s->type != TY_TUPLE || inf_isarr(SH(v, x)) == 0)
		return *out = inf_lref(v, in->nops == 1 ? x : in->shape), 0;
	*out = inf_ltup(v, s->ntuple < 2 ? 2 : s->ntuple);
	inf_lset(v, *out, 0, inf_lref(v, inf_opshid(v, in, 0)));
	inf_lset(v, *out, 1, inf_lref(v, x));
	for (k = 2; k < s->ntuple; k++)
		inf_lset(v, *out, k, ownel(v, in, k));
	return 0;
}

/* done of an async pair: element k of a tuple operand, else the operand */
int
inf_done(V *v, const HloInstr *in, uint32_t k, uint32_t *out)
{
	const HloShape *x = inf_opsh(v, in, 0);

	if (x->type == TY_TUPLE && x->ntuple >= 2)
		return inf_tupleel(v, in, k, out);
	*out = inf_lref(v, inf_opshid(v, in, 0));
	return 0;
}

int
inf_wanttoken(V *v, const HloInstr *in, uint32_t k)
{
	Str a;

	if (inf_opsh(v, in, k)->type == TY_TOKEN)
		return 0;
	return inf_bad(v, "operand %u has shape %s, expected token[]", k,
		inf_shs(v, inf_opshid(v, in, k), &a));
}

int
inf_io(V *v, const HloInstr *in, uint32_t *out)
{
	uint32_t t, k;

	switch (in->op) {
	case HOP_INFEED:
		if (inf_wanttoken(v, in, 0))
			return -1;
		t = inf_ltup(v, 2);
		inf_lset(v, t, 0, ownel(v, in, 0));
		inf_lset(v, t, 1, inf_lscalar(v, TY_TOKEN));
		break;
	case HOP_OUTFEED:
		if (inf_wanttoken(v, in, 1))
			return -1;
		t = inf_lscalar(v, TY_TOKEN);
		break;
	case HOP_SEND:
	case HOP_RECV:
		if (inf_wanttoken(v, in, in->op == HOP_SEND))
			return -1;
		t = inf_ltup(v, 3);
		inf_lset(v, t, 0, in->op == HOP_SEND ? inf_lref(v, inf_opshid(v, in, 0)) :
			ownel(v, in, 0));
		inf_lset(v, t, 1, inf_lscalar(v, TY_U32));
		inf_lset(v, t, 2, inf_lscalar(v, TY_TOKEN));
		break;
	case HOP_RECVDONE:
		if (inf_tupleel(v, in, 0, &k))
			return -1;
		t = inf_ltup(v, 2);
		inf_lset(v, t, 0, k);
		inf_lset(v, t, 1, inf_lscalar(v, TY_TOKEN));
		break;
	case HOP_AFTERALL:
		for (k = 0; k < in->nops; k++)
			if (inf_wanttoken(v, in, k))
				return -1;
		/* fall through */
	default:	/* send-done */
		t = inf_lscalar(v, TY_TOKEN);
		break;
	}
	*out = t;
	return 0;
}

/* linear algebra, batch norm, fft */

int
inf_batchnorm(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x;
	int64_t f = inf_aint(v, in, A_FEATURE_INDEX, -1), fc;
	uint32_t k, t, grad = in->op == HOP_BNGRAD;

	for (k = 0; k < in->nops; k++)
		if (inf_wantarr(v, in, k))
			return -1;
	x = inf_opsh(v, in, 0);
	if (!inf_isfloat(x->type))
		return inf_badtype(v, "a floating point type", x->type);
	if (f < 0 || f >= x->rank)
		return inf_bad(v, "feature_index %lld out of range", (long long)f);
	fc = DIMS(v, x)[f];
	for (k = 1; k < in->nops; k++) {
		const HloShape *y = inf_opsh(v, in, k);

		if (grad && k == 4) {
			if (!inf_samedims(v, x, y) || !inf_isfloat(y->type))
				return inf_bad(v, "output gradient does not fit "
					"the operand");
			continue;
		}
		if (y->rank != 1 || DIMS(v, y)[0] != fc ||
		    !inf_sametype(y->type, x->type, IGN_FP))
			return inf_bad(v, "operand %u is not a vector of the %lld "
				"features", k, (long long)fc);
	}
	if (in->op == HOP_BNINFER)
		return *out = inf_lcopy(v, inf_opshid(v, in, 0), x->type), 0;
	t = inf_ltup(v, 3);
	inf_lset(v, t, 0, inf_lcopy(v, inf_opshid(v, in, 0), x->type));
	inf_lset(v, t, 1, inf_larr(v, x->type, 1, &fc, 0));
	inf_lset(v, t, 2, inf_larr(v, x->type, 1, &fc, 0));
	*out = t;
	return 0;
}

int
inf_fft(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x;
	const int64_t *len;
	int64_t d[MAXRANK];
	uint32_t n, k, r;
	int t;

	if (inf_wantarr(v, in, 0))
		return -1;
	x = inf_opsh(v, in, 0);
	len = inf_aints(v, in, A_FFT_LENGTH, &n);
	if (n < 1 || n > 3 || n > x->rank)
		return inf_bad(v, "fft_length of %u values for rank %u", n,
			x->rank);
	r = x->rank;
	memcpy(d, DIMS(v, x), r * 8u);
	t = x->type;
	if (inf_aword(v, in, A_FFT_TYPE, "FFT") || inf_aword(v, in, A_FFT_TYPE,
	    "IFFT")) {
		if (!inf_iscplx(t))
			return inf_badtype(v, "a complex type", t);
	} else if (inf_aword(v, in, A_FFT_TYPE, "RFFT")) {
		if (t != TY_F32 && t != TY_F64)
			return inf_badtype(v, "f32 or f64", t);
		for (k = 0; k < n; k++)
			if (d[r - n + k] != len[k])
				return inf_bad(v, "fft_length does not match the "
					"operand");
		if (len[n - 1])
			d[r - 1] = len[n - 1] / 2 + 1;
		t = t == TY_F32 ? TY_C64 : TY_C128;
	} else if (inf_aword(v, in, A_FFT_TYPE, "IRFFT")) {
		if (!inf_iscplx(t))
			return inf_badtype(v, "a complex type", t);
		for (k = 0; k + 1 < n; k++)
			if (d[r - n + k] != len[k])
				return inf_bad(v, "fft_length does not match the "
					"operand");
		if ((d[r - 1] || len[n - 1]) && d[r - 1] != len[n - 1] / 2 + 1)
			return inf_bad(v, "fft_length does not match the operand");
		d[r - 1] = len[n - 1];
		t = inf_component(t);
	} else
		return inf_bad(v, "unknown fft_type");
	*out = inf_larr(v, t, r, d, x->dynmask);
	return 0;
}

int
inf_linalg(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *a, *b;
	int r;

	if (inf_wantarr(v, in, 0))
		return -1;
	a = inf_opsh(v, in, 0);
	r = a->rank;
	if (!inf_isfloat(a->type) && !inf_iscplx(a->type))
		return inf_badtype(v, "a floating point or complex type", a->type);
	if (r < 2 || DIMS(v, a)[r - 2] != DIMS(v, a)[r - 1])
		return inf_bad(v, "a is not a batch of square matrices");
	if (in->op == HOP_CHOLESKY)
		return *out = inf_lref(v, inf_opshid(v, in, 0)), 0;
	if (inf_wantarr(v, in, 1))
		return -1;
	b = inf_opsh(v, in, 1);
	if (b->type != a->type || b->rank != r ||
	    (r > 2 && memcmp(DIMS(v, a), DIMS(v, b), (r - 2) * 8u)) ||
	    DIMS(v, a)[r - 1] != DIMS(v, b)[r -
	    (inf_aint(v, in, A_LEFT_SIDE, 0) ? 2 : 1)])
		return inf_bad(v, "b does not fit a");
	if (!inf_aword(v, in, A_TRANSPOSE_A, "NO_TRANSPOSE") &&
	    !inf_aword(v, in, A_TRANSPOSE_A, "TRANSPOSE") &&
	    !inf_aword(v, in, A_TRANSPOSE_A, "ADJOINT"))
		return inf_bad(v, "bad transpose_a");
	*out = inf_lref(v, inf_opshid(v, in, 1));
	return 0;
}

int
inf_rng(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *s = SH(v, in->shape), *a, *b;

	if (inf_wantops(v, in, 2, 3) || inf_wantarr(v, in, 0) || inf_wantarr(v, in, 1))
		return -1;
	a = inf_opsh(v, in, 0);
	b = inf_opsh(v, in, 1);
	if (in->nops == 3 && !inf_isarr(inf_opsh(v, in, 2)))
		return inf_bad(v, "the shape operand is not an array");
	if (a->rank || b->rank || a->type != b->type || !inf_isarr(s) ||
	    !inf_sametype(s->type, a->type, IGN_FP))
		return inf_bad(v, "rng bounds must be scalars of the result type");
	if (inf_aword(v, in, A_DISTRIBUTION, "rng_normal") && !inf_isfloat(a->type))
		return inf_badtype(v, "a floating point type", a->type);
	*out = inf_lref(v, in->shape);
	return 0;
}

int
inf_rngbits(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *s = SH(v, in->shape);
	uint32_t t;

	if (inf_wantarr(v, in, 0))
		return -1;
	if (s->type != TY_TUPLE)
		return *out = inf_lref(v, in->shape), 0;
	if (s->ntuple != 2 || !inf_isarr(SH(v, v->m->ids[s->tuple + 1])))
		return inf_bad(v, "expected (state, bits)");
	t = inf_ltup(v, 2);
	inf_lset(v, t, 0, inf_lref(v, inf_opshid(v, in, 0)));
	inf_lset(v, t, 1, inf_lref(v, v->m->ids[s->tuple + 1]));
	*out = t;
	return 0;
}

int
inf_dimsize(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x;
	int64_t dim = 0;

	if (inf_wantarr(v, in, 0) || inf_aone(v, in, A_DIMENSIONS, &dim))
		return -1;
	x = inf_opsh(v, in, 0);
	if (dim < 0 || dim >= x->rank || DIMS(v, x)[dim] > INT32_MAX)
		return inf_bad(v, "dimension %lld out of range", (long long)dim);
	if (in->op == HOP_GETDIMSIZE)
		return *out = inf_lscalar(v, TY_S32), 0;
	if (!inf_isscalar(inf_opsh(v, in, 1)) || inf_opsh(v, in, 1)->type != TY_S32)
		return inf_bad(v, "the size is not s32[]");
	*out = inf_lcopy(v, inf_opshid(v, in, 0), x->type);
	v->nodes[*out].dyn |= 1ull << dim;
	return 0;
}

/* a constant's literal holds the bytes its shape needs */
static int
litbytes(V *v, uint32_t s, uint64_t *n, int depth)
{
	const HloShape *sh = SH(v, s);
	int64_t e;
	uint32_t k;

	if (depth > MAXDEPTH)
		return -1;
	if (sh->type == TY_TUPLE) {
		for (k = 0; k < sh->ntuple; k++)
			if (litbytes(v, v->m->ids[sh->tuple + k], n, depth + 1))
				return -1;
		return 0;
	}
	if (!inf_isarr(sh))
		return 0;
	e = inf_nelems(DIMS(v, sh), sh->rank);
	if (e < 0 || (uint64_t)e > UINT32_MAX)
		return -1;
	*n += (uint64_t)e * hlo_type_bytes(sh->type);
	return 0;
}

int
inf_constant(V *v, const HloInstr *in, uint32_t *out)
{
	const HloAttr *a = hlo_attr(v->m, in, A_LITERAL);
	uint64_t n = 0;

	if (!a)
		return inf_bad(v, "constant without a literal");
	if (a->v != HLO_ELIDED && (litbytes(v, in->shape, &n, 0) ||
	    n != a->n))
		return inf_bad(v, "literal of %u bytes, the shape needs %llu", a->n,
			(unsigned long long)n);
	*out = inf_lref(v, in->shape);
	return 0;
}

/* inference by opcode family (ops.def) */
