/* float.c: the floating-point element types as bit patterns: a generic
 * encoder (double -> bits, round to nearest even) and decoder for every
 * format in types.def, described by exponent and mantissa widths, bias and
 * how the format spells infinity and NaN; plus the shortest decimal text
 * that reads back to the same bits. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"

enum {
	FK_IEEE,	/* exponent all ones: inf (mantissa 0) or NaN */
	FK_FN,		/* no inf; NaN is exponent and mantissa all ones */
	FK_FNUZ,	/* no inf, no -0; NaN is the -0 pattern 0x80 */
	FK_NONAN,	/* no inf, no NaN (f4e2m1fn, f6*) */
	FK_E8M0,	/* no sign, no zero, no subnormals; NaN 0xff */
};

typedef struct {
	uint8_t ebits, mbits, kind;
	int16_t bias;
} FloatFmt;

static const FloatFmt *
fmt(int type)
{
	static const FloatFmt f16 = {5, 10, FK_IEEE, 15};
	static const FloatFmt bf16 = {8, 7, FK_IEEE, 127};
	static const FloatFmt f32 = {8, 23, FK_IEEE, 127};
	static const FloatFmt f64 = {11, 52, FK_IEEE, 1023};
	static const FloatFmt e5m2 = {5, 2, FK_IEEE, 15};
	static const FloatFmt e4m3 = {4, 3, FK_IEEE, 7};
	static const FloatFmt e4m3fn = {4, 3, FK_FN, 7};
	static const FloatFmt e4m3b11fnuz = {4, 3, FK_FNUZ, 11};
	static const FloatFmt e3m4 = {3, 4, FK_IEEE, 3};
	static const FloatFmt e5m2fnuz = {5, 2, FK_FNUZ, 16};
	static const FloatFmt e4m3fnuz = {4, 3, FK_FNUZ, 8};
	static const FloatFmt e2m1fn = {2, 1, FK_NONAN, 1};
	static const FloatFmt e8m0fnu = {8, 0, FK_E8M0, 127};
	static const FloatFmt e3m2fn = {3, 2, FK_NONAN, 3};
	static const FloatFmt e2m3fn = {2, 3, FK_NONAN, 1};

	switch (type) {
	case TY_F16: return &f16;
	case TY_BF16: return &bf16;
	case TY_F32: return &f32;
	case TY_F64: return &f64;
	case TY_F8E5M2: return &e5m2;
	case TY_F8E4M3: return &e4m3;
	case TY_F8E4M3FN: return &e4m3fn;
	case TY_F8E4M3B11FNUZ: return &e4m3b11fnuz;
	case TY_F8E3M4: return &e3m4;
	case TY_F8E5M2FNUZ: return &e5m2fnuz;
	case TY_F8E4M3FNUZ: return &e4m3fnuz;
	case TY_F4E2M1FN: return &e2m1fn;
	case TY_F8E8M0FNU: return &e8m0fnu;
	case TY_F6E3M2FN: return &e3m2fn;
	case TY_F6E2M3FN: return &e2m3fn;
	}
	return NULL;
}

static uint64_t
signbit64(const FloatFmt *f)
{
	return f->kind == FK_E8M0 ? 0 : 1ull << (f->ebits + f->mbits);
}

static uint64_t
nanbits(const FloatFmt *f, int neg)
{
	uint64_t emax = (1ull << f->ebits) - 1;

	switch (f->kind) {
	case FK_IEEE:
		return (neg ? signbit64(f) : 0) | emax << f->mbits |
			1ull << (f->mbits - 1);
	case FK_FN:
		return (neg ? signbit64(f) : 0) | emax << f->mbits |
			((1ull << f->mbits) - 1);
	case FK_FNUZ:
		return signbit64(f);
	case FK_E8M0:
		return 0xff;
	}
	return 0;
}

/* bits of the largest finite magnitude */
static uint64_t
maxbits(const FloatFmt *f)
{
	uint64_t emax = (1ull << f->ebits) - 1, mall = (1ull << f->mbits) - 1;

	switch (f->kind) {
	case FK_IEEE:
		return (emax - 1) << f->mbits | mall;
	case FK_FN:
		return emax << f->mbits | (mall - 1);
	case FK_E8M0:
		return 0xfe;
	}
	return emax << f->mbits | mall;
}

int
hlo_float_has_inf(int type)
{
	const FloatFmt *f = fmt(type);

	return f && f->kind == FK_IEEE;
}

int
hlo_float_has_nan(int type)
{
	const FloatFmt *f = fmt(type);

	return f && f->kind != FK_NONAN;
}

int
hlo_float_nan_payload_bits(int type)
{
	const FloatFmt *f = fmt(type);

	return f && f->kind == FK_IEEE ? f->mbits : 0;
}

double
hlo_float_decode(int type, uint64_t bits)
{
	const FloatFmt *f = fmt(type);
	uint64_t emax, m;
	int64_t e;
	double v;
	int neg;

	if (type == TY_F64) {
		double d;

		memcpy(&d, &bits, 8);
		return d;
	}
	if (type == TY_F32) {
		uint32_t b = bits;
		float x;

		memcpy(&x, &b, 4);
		return x;
	}
	if (!f)
		return 0;
	emax = (1ull << f->ebits) - 1;
	neg = (bits & signbit64(f)) != 0;
	e = (bits >> f->mbits) & emax;
	m = bits & ((1ull << f->mbits) - 1);
	switch (f->kind) {
	case FK_IEEE:
		if ((uint64_t)e == emax)
			return m ? (neg ? -NAN : NAN) :
				(neg ? -INFINITY : INFINITY);
		break;
	case FK_FN:
		if ((uint64_t)e == emax && m == (1ull << f->mbits) - 1)
			return neg ? -NAN : NAN;
		break;
	case FK_FNUZ:
		if (neg && !e && !m)
			return NAN;
		break;
	case FK_E8M0:
		if (bits == 0xff)
			return NAN;
		return ldexp(1, (int)e - f->bias);
	}
	if (e)
		v = ldexp((double)(m | 1ull << f->mbits), (int)e - f->bias -
			f->mbits);
	else
		v = ldexp((double)m, 1 - f->bias - f->mbits);
	return neg ? -v : v;
}

/* finite nonzero a > 0 to bits (no sign), rounded to nearest even;
 * returns -1 if it rounds past the largest finite value */
static int
encodemag(const FloatFmt *f, double a, uint64_t *bits)
{
	int ex, e, emin = 1 - f->bias;
	uint64_t q, one = 1ull << f->mbits;
	double fr;

	fr = frexp(a, &ex);	/* a = fr * 2^ex, fr in [0.5, 1) */
	(void)fr;
	e = ex - 1;
	if (f->kind == FK_E8M0) {
		q = (uint64_t)nearbyint(ldexp(a, -e));	/* 1 or 2 */
		if (q == 2)
			e++;
		if (e + f->bias < 0)
			e = -f->bias;
		if (e + f->bias > 254)
			return -1;
		*bits = e + f->bias;
		return 0;
	}
	if (e < emin) {
		q = (uint64_t)nearbyint(ldexp(a, f->mbits - emin));
		*bits = q;	/* q == one is the smallest normal */
		return 0;
	}
	q = (uint64_t)nearbyint(ldexp(a, f->mbits - e));
	if (q == 2 * one) {
		q = one;
		e++;
	}
	if ((uint64_t)(e + f->bias) >= (1ull << f->ebits))
		return -1;
	*bits = (uint64_t)(e + f->bias) << f->mbits | (q - one);
	return *bits > maxbits(f) ? -1 : 0;
}

/* the bits of v in type, rounded to nearest even; values too large for
 * the type become inf, or NaN where there is no inf, or the largest
 * finite value where there is neither (as ml_dtypes converts) */
uint64_t
hlo_float_encode(int type, double v)
{
	const FloatFmt *f = fmt(type);
	uint64_t b = 0, sign;
	int neg;

	if (type == TY_F64) {
		memcpy(&b, &v, 8);
		return b;
	}
	if (type == TY_F32) {
		float x = (float)v;
		uint32_t u;

		memcpy(&u, &x, 4);
		return u;
	}
	if (!f)
		return 0;
	neg = signbit(v) != 0;
	sign = neg ? signbit64(f) : 0;
	if (isnan(v))
		return f->kind == FK_NONAN ? maxbits(f) | sign :
			nanbits(f, neg);
	if (f->kind == FK_E8M0 && v <= 0)
		return nanbits(f, 0);
	if (v == 0)
		return f->kind == FK_FNUZ ? 0 : sign;
	if (isinf(v) || encodemag(f, fabs(v), &b) < 0) {
		if (f->kind == FK_IEEE)
			return sign | ((1ull << f->ebits) - 1) << f->mbits;
		if (f->kind == FK_NONAN)
			return sign | maxbits(f);
		return nanbits(f, neg);
	}
	if (b == 0 && f->kind == FK_FNUZ)
		return 0;	/* no -0: 0x80 is NaN */
	return b | sign;
}

/* strict conversion of a value read from text: -1 when v is finite and
 * rounds past the largest finite value of type, or when inf or NaN
 * cannot be represented; a NaN payload (the double's mantissa bits)
 * moves over unchanged, as in xla's parser, the default quiet NaN maps
 * to the type's own */
int
hlo_float_from_text(int type, double v, uint64_t *bits)
{
	const FloatFmt *f = fmt(type);
	uint64_t d, payload, b = 0;
	int pb, neg = signbit(v) != 0;

	if (!f)
		return -1;
	if (isnan(v)) {
		memcpy(&d, &v, 8);
		payload = d & ((1ull << 52) - 1);
		pb = hlo_float_nan_payload_bits(type);
		if (f->kind == FK_NONAN)
			return -1;
		if (payload == 1ull << 51) {
			*bits = nanbits(f, neg);
			return 0;
		}
		if (pb == 0 || payload >> pb)
			return -1;
		*bits = (neg ? signbit64(f) : 0) |
			((1ull << f->ebits) - 1) << f->mbits | payload;
		return 0;
	}
	if (isinf(v)) {
		if (f->kind == FK_NONAN)
			return -1;
		*bits = f->kind == FK_IEEE ? hlo_float_encode(type, v) :
			nanbits(f, neg);
		return 0;
	}
	if (f->kind == FK_E8M0 && v <= 0)
		return -1;
	if (type == TY_F64 || v == 0) {
		*bits = hlo_float_encode(type, v);
		return 0;
	}
	if (type == TY_F32) {
		*bits = hlo_float_encode(type, v);
		return isinf(hlo_float_decode(type, *bits)) ? -1 : 0;
	}
	if (encodemag(f, fabs(v), &b) < 0)
		return -1;
	if (b == 0 && f->kind == FK_FNUZ)
		neg = 0;
	*bits = b | (neg ? signbit64(f) : 0);
	return 0;
}

/* does s read back (strictly, as the parser reads it) to bits? */
static int
sametext(int type, const char *s, uint64_t bits)
{
	double d = strtod(s, NULL);
	uint64_t b;

	return hlo_float_from_text(type, d, &b) == 0 && b == bits;
}

/* the shortest %g text that reads back to the same bits; xla's spellings
 * inf, -inf, nan, -nan and nan(0xPAYLOAD) for a non-default payload;
 * returns the length (buf holds at least 40 bytes) */
int
hlo_float_format(int type, uint64_t bits, char *buf, size_t n)
{
	const FloatFmt *f = fmt(type);
	double v = hlo_float_decode(type, bits);
	int p, lo = 1, hi = 17, pb;
	uint64_t payload;

	if (!f || n < 40)
		return snprintf(buf, n, "?");
	if (isnan(v)) {
		int neg = (bits & signbit64(f)) && f->kind != FK_FNUZ;

		pb = hlo_float_nan_payload_bits(type);
		payload = pb ? bits & ((1ull << pb) - 1) : 0;
		if (pb && payload != 1ull << (pb - 1))
			return snprintf(buf, n, "%snan(0x%llx)", neg ? "-" :
				"", (unsigned long long)payload);
		return snprintf(buf, n, "%snan", neg ? "-" : "");
	}
	if (isinf(v))
		return snprintf(buf, n, v < 0 ? "-inf" : "inf");
	if (type == TY_F32)
		lo = 6, hi = 9;
	else if (type == TY_F64)
		lo = 15, hi = 17;
	for (p = lo; p < hi; p++) {
		snprintf(buf, n, "%.*g", p, v);
		if (sametext(type, buf, bits))
			break;
	}
	return snprintf(buf, n, "%.*g", p, v);
}
