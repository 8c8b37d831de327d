/* eval_elem.c: elementwise operations, convert, bitcast-convert and
 * reduce-precision over every element type.
 *
 * Elements are loaded into Lanes (see eval.h) a chunk at a time, computed
 * on, and stored back with rounding to the result type. Floats narrower
 * than f64 are computed in double and rounded once per instruction, which
 * gives XLA's results for +, -, *, / and sqrt (computed in f32, then
 * rounded); narrow floats (f16, bf16, f8, f6, f4) go through f32 on the
 * way back as Eigen and ml_dtypes do. Integer arithmetic wraps; division
 * by zero, shifts out of range and float-to-int conversion follow XLA's
 * HloEvaluator and Literal::Convert. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "eval.h"

/* narrow floats: hlo/float.c */

double
ev_nf_decode(int type, uint32_t bits)
{
	return hlo_float_decode(type, bits);
}

uint32_t
ev_nf_encode(int type, double x)
{
	return (uint32_t)hlo_float_encode(type, x);
}

static float
f16_to_f32(uint16_t h)
{
	uint32_t s = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f;
	uint32_t m = h & 0x3ff, b;
	float f;

	if (e == 0) {
		f = m * (1.0f / 16777216.0f);
		return s ? -f : f;
	}
	b = e == 31 ? s | 0x7f800000 | (m << 13) :
		s | ((e + 112) << 23) | (m << 13);
	memcpy(&f, &b, 4);
	return f;
}

static uint16_t
f32_to_f16(float f)
{
	uint32_t x, sign, ax;

	memcpy(&x, &f, 4);
	sign = (x >> 16) & 0x8000;
	ax = x & 0x7fffffff;
	if (ax > 0x7f800000)
		return sign | 0x7e00;
	if (ax >= 0x477ff000)
		return sign | 0x7c00;
	if (ax < 0x38800000)
		return sign | (uint16_t)lrintf(fabsf(f) * 16777216.0f);
	ax += 0xfff + ((ax >> 13) & 1);
	return sign | ((ax - 0x38000000) >> 13);
}

static float
bf16_to_f32(uint16_t h)
{
	uint32_t b = (uint32_t)h << 16;
	float f;

	memcpy(&f, &b, 4);
	return f;
}

static uint16_t
f32_to_bf16(float f)
{
	uint32_t x;

	memcpy(&x, &f, 4);
	if ((x & 0x7fffffff) > 0x7f800000)
		return (x >> 16) | 0x40;
	x += 0x7fff + ((x >> 16) & 1);
	return x >> 16;
}

/* lanes */

static int
cls(int t)
{
	return hlo_typeinfo[t].cls;
}

static int
bits(int t)
{
	return hlo_typeinfo[t].bits;
}

static uint64_t
imask(int t)
{
	int b = bits(t);

	return b >= 64 ? UINT64_MAX : ((uint64_t)1 << b) - 1;
}

static int64_t
sext(uint64_t u, int b)
{
	if (b >= 64)
		return (int64_t)u;
	u &= ((uint64_t)1 << b) - 1;
	if (u >> (b - 1))
		u |= ~(((uint64_t)1 << b) - 1);
	return (int64_t)u;
}

static uint64_t
rdle(const unsigned char *p, int n)
{
	uint64_t v = 0;
	int k;

	switch (n) {
	case 1: return p[0];
	case 2: { uint16_t x; memcpy(&x, p, 2); return x; }
	case 4: { uint32_t x; memcpy(&x, p, 4); return x; }
	case 8: memcpy(&v, p, 8); return v;
	}
	for (k = n - 1; k >= 0; k--)
		v = v << 8 | p[k];
	return v;
}

static void
wrle(unsigned char *p, uint64_t v, int n)
{
	switch (n) {
	case 1: p[0] = v; return;
	case 2: { uint16_t x = v; memcpy(p, &x, 2); return; }
	case 4: { uint32_t x = v; memcpy(p, &x, 4); return; }
	case 8: memcpy(p, &v, 8); return;
	}
}

void
ev_lane_load(int type, const void *src, int64_t n, Lane *dst)
{
	const unsigned char *p = src;
	int64_t k;
	int esz = hlo_type_bytes(type), b = bits(type);
	float f;

	switch (type) {
#define LD(T, field) for (k = 0; k < n; k++) { T x; \
		memcpy(&x, p + sizeof(T) * k, sizeof(T)); dst[k].field = x; } \
		return
	case TY_S8: LD(int8_t, s);
	case TY_U8: LD(uint8_t, u);
	case TY_S16: LD(int16_t, s);
	case TY_U16: LD(uint16_t, u);
	case TY_S32: LD(int32_t, s);
	case TY_U32: LD(uint32_t, u);
	case TY_S64: LD(int64_t, s);
	case TY_U64: LD(uint64_t, u);
#undef LD
	case TY_F32:
		for (k = 0; k < n; k++) {
			memcpy(&f, p + 4 * k, 4);
			dst[k].f = f;
		}
		return;
	case TY_F64:
		for (k = 0; k < n; k++)
			memcpy(&dst[k].f, p + 8 * k, 8);
		return;
	case TY_BF16:
		for (k = 0; k < n; k++)
			dst[k].f = bf16_to_f32(rdle(p + 2 * k, 2));
		return;
	case TY_F16:
		for (k = 0; k < n; k++)
			dst[k].f = f16_to_f32(rdle(p + 2 * k, 2));
		return;
	case TY_PRED:
		for (k = 0; k < n; k++)
			dst[k].u = p[k] != 0;
		return;
	case TY_C64:
		for (k = 0; k < n; k++) {
			memcpy(&f, p + 8 * k, 4);
			dst[k].c[0] = f;
			memcpy(&f, p + 8 * k + 4, 4);
			dst[k].c[1] = f;
		}
		return;
	case TY_C128:
		memcpy(dst, p, n * 16);
		return;
	}
	switch (cls(type)) {
	case C_FLOAT:
		for (k = 0; k < n; k++)
			dst[k].f = ev_nf_decode(type, p[k]);
		return;
	case C_SINT:
		for (k = 0; k < n; k++)
			dst[k].s = sext(rdle(p + esz * k, esz), b);
		return;
	case C_UINT:
		for (k = 0; k < n; k++)
			dst[k].u = rdle(p + esz * k, esz) & imask(type);
		return;
	}
	memset(dst, 0, n * sizeof *dst);
}

void
ev_lane_store(int type, const Lane *src, int64_t n, void *dst)
{
	unsigned char *p = dst;
	int64_t k;
	int esz = hlo_type_bytes(type), b = bits(type);
	float f;

	switch (type) {
#define ST(T) for (k = 0; k < n; k++) { T x = (T)src[k].u; \
		memcpy(p + sizeof(T) * k, &x, sizeof(T)); } \
		return
	case TY_S8: case TY_U8: ST(uint8_t);
	case TY_S16: case TY_U16: ST(uint16_t);
	case TY_S32: case TY_U32: ST(uint32_t);
	case TY_S64: case TY_U64: ST(uint64_t);
#undef ST
	case TY_F32:
		for (k = 0; k < n; k++) {
			f = src[k].f;
			memcpy(p + 4 * k, &f, 4);
		}
		return;
	case TY_F64:
		for (k = 0; k < n; k++)
			memcpy(p + 8 * k, &src[k].f, 8);
		return;
	case TY_BF16:
		for (k = 0; k < n; k++)
			wrle(p + 2 * k, f32_to_bf16(src[k].f), 2);
		return;
	case TY_F16:
		for (k = 0; k < n; k++)
			wrle(p + 2 * k, f32_to_f16(src[k].f), 2);
		return;
	case TY_PRED:
		for (k = 0; k < n; k++)
			p[k] = src[k].u != 0;
		return;
	case TY_C64:
		for (k = 0; k < n; k++) {
			f = src[k].c[0];
			memcpy(p + 8 * k, &f, 4);
			f = src[k].c[1];
			memcpy(p + 8 * k + 4, &f, 4);
		}
		return;
	case TY_C128:
		memcpy(p, src, n * 16);
		return;
	}
	switch (cls(type)) {
	case C_FLOAT:
		for (k = 0; k < n; k++)
			p[k] = ev_nf_encode(type, (float)src[k].f);
		return;
	case C_SINT:
		for (k = 0; k < n; k++)
			wrle(p + esz * k, (uint64_t)sext(src[k].u, b), esz);
		return;
	case C_UINT:
		for (k = 0; k < n; k++)
			wrle(p + esz * k, src[k].u & imask(type), esz);
		return;
	}
}

/* rounds lanes to what the type can hold, as storing and loading would */
void
ev_lane_round(int type, Lane *v, int64_t n)
{
	int64_t k;
	int b = bits(type);

	switch (type) {
	case TY_F64: case TY_C128:
		return;
	case TY_F32:
		for (k = 0; k < n; k++)
			v[k].f = (float)v[k].f;
		return;
	case TY_BF16:
		for (k = 0; k < n; k++)
			v[k].f = bf16_to_f32(f32_to_bf16(v[k].f));
		return;
	case TY_F16:
		for (k = 0; k < n; k++)
			v[k].f = f16_to_f32(f32_to_f16(v[k].f));
		return;
	case TY_PRED:
		for (k = 0; k < n; k++)
			v[k].u = v[k].u != 0;
		return;
	case TY_C64:
		for (k = 0; k < n; k++) {
			v[k].c[0] = (float)v[k].c[0];
			v[k].c[1] = (float)v[k].c[1];
		}
		return;
	}
	switch (cls(type)) {
	case C_FLOAT:
		for (k = 0; k < n; k++)
			v[k].f = ev_nf_decode(type,
				ev_nf_encode(type, (float)v[k].f));
		return;
	case C_SINT:
		for (k = 0; k < n; k++)
			v[k].s = sext(v[k].u, b);
		return;
	case C_UINT:
		for (k = 0; k < n; k++)
			v[k].u &= imask(type);
		return;
	}
}

double
ev_get_f(int type, const void *p)
{
	Lane l;

	ev_lane_load(type, p, 1, &l);
	switch (cls(type)) {
	case C_FLOAT: return l.f;
	case C_SINT: return (double)l.s;
	case C_CPLX: return l.c[0];
	}
	return (double)l.u;
}

int64_t
ev_get_i(int type, const void *p)
{
	Lane l;

	ev_lane_load(type, p, 1, &l);
	switch (cls(type)) {
	case C_FLOAT:
		if (isnan(l.f))
			return 0;
		return l.f >= 9.2e18 ? INT64_MAX : l.f <= -9.2e18 ?
			INT64_MIN : (int64_t)l.f;
	case C_SINT: return l.s;
	case C_CPLX: return (int64_t)l.c[0];
	}
	return l.u > INT64_MAX ? INT64_MAX : (int64_t)l.u;
}

void
ev_to_double(int type, const void *src, int64_t n, double *dst)
{
	const unsigned char *p = src;
	Lane l[EV_CHUNK];
	int64_t k, j, w, esz = hlo_type_bytes(type);
	float f;

	if (type == TY_F64) {
		memcpy(dst, src, n * 8);
		return;
	}
	if (type == TY_F32) {
		for (k = 0; k < n; k++) {
			memcpy(&f, p + 4 * k, 4);
			dst[k] = f;
		}
		return;
	}
	for (k = 0; k < n; k += w) {
		w = n - k < EV_CHUNK ? n - k : EV_CHUNK;
		ev_lane_load(type, p + k * esz, w, l);
		for (j = 0; j < w; j++)
			dst[k + j] = cls(type) == C_FLOAT ? l[j].f :
				cls(type) == C_SINT ? (double)l[j].s :
				(double)l[j].u;
	}
}

void
ev_to_float(int type, const void *src, int64_t n, float *dst)
{
	const unsigned char *p = src;
	int64_t k;
	double d;

	if (type == TY_F32) {
		memcpy(dst, src, n * 4);
		return;
	}
	if (type == TY_BF16) {
		for (k = 0; k < n; k++)
			dst[k] = bf16_to_f32(rdle(p + 2 * k, 2));
		return;
	}
	for (k = 0; k < n; k++) {
		ev_to_double(type, p + k * hlo_type_bytes(type), 1, &d);
		dst[k] = d;
	}
}

void
ev_from_double(int type, const double *src, int64_t n, void *dst)
{
	unsigned char *p = dst;
	Lane l[EV_CHUNK];
	int64_t k, j, w, esz = hlo_type_bytes(type);

	if (type == TY_F64) {
		memcpy(dst, src, n * 8);
		return;
	}
	if (type == TY_F32) {
		for (k = 0; k < n; k++) {
			float f = src[k];

			memcpy(p + 4 * k, &f, 4);
		}
		return;
	}
	for (k = 0; k < n; k += w) {
		w = n - k < EV_CHUNK ? n - k : EV_CHUNK;
		for (j = 0; j < w; j++) {
			double d = src[k + j];

			if (cls(type) == C_FLOAT)
				l[j].f = d;
			else if (cls(type) == C_PRED)
				l[j].u = d != 0;
			else
				l[j].s = (int64_t)llrint(d);
		}
		ev_lane_store(type, l, w, p + k * esz);
	}
}

void
ev_from_float(int type, const float *src, int64_t n, void *dst)
{
	unsigned char *p = dst;
	int64_t k;
	double d;

	if (type == TY_F32) {
		memcpy(dst, src, n * 4);
		return;
	}
	if (type == TY_BF16) {
		for (k = 0; k < n; k++)
			wrle(p + 2 * k, f32_to_bf16(src[k]), 2);
		return;
	}
	for (k = 0; k < n; k++) {
		d = src[k];
		ev_from_double(type, &d, 1, p + k * hlo_type_bytes(type));
	}
}

/* binding an instruction to an EwOp */

/* comparison_direction's word as CMP_*, -1 if none */
int
ev_cmp_dir(const char *w, uint32_t n)
{
	static const char *names[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
	int k;

	for (k = 0; k < 6; k++)
		if (n == 2 && !memcmp(w, names[k], 2))
			return k;
	return -1;
}

static int
optype(const HloModule *m, uint32_t c, const HloInstr *in, uint32_t k)
{
	uint32_t d;

	if (k >= in->nops)
		return TY_INVALID;
	d = hlo_ops(m, in)[k];
	if (d >= m->comps[c].nins)
		return TY_INVALID;
	return hlo_sh(m, hlo_ins(m, c, d)->shape)->type;
}

int
ev_ew_bind(const HloModule *m, uint32_t c, uint32_t i, EwOp *o)
{
	const HloInstr *in = hlo_ins(m, c, i);
	const char *w;
	uint32_t n;
	int d;

	memset(o, 0, sizeof *o);
	o->op = in->op;
	o->type = hlo_sh(m, in->shape)->type;
	o->t0 = optype(m, c, in, 0);
	o->t1 = optype(m, c, in, 1);
	o->t2 = optype(m, c, in, 2);
	if (in->op == HOP_COMPARE) {
		w = hlo_attr_word(m, in, A_DIRECTION, &n);
		d = w ? ev_cmp_dir(w, n) : -1;
		if (d < 0)
			return -1;
		o->dir = d;
		o->total = hlo_attr_is(m, in, A_CMP_TYPE, "TOTALORDER");
	}
	if (in->op == HOP_REDUCEPRECISION) {
		o->ebits = hlo_attr_int(m, in, A_EXPONENT_BITS, 8);
		o->mbits = hlo_attr_int(m, in, A_MANTISSA_BITS, 23);
	}
	return ev_ew_check(o);
}

static int
arity(int op)
{
	switch (op) {
	case HOP_SELECT: case HOP_CLAMP:
		return 3;
	}
	return hlo_opinfo[op].arity;
}

/* 0 if the operation is defined on its types */
int
ev_ew_check(const EwOp *o)
{
	int c0 = cls(o->t0), cr = cls(o->type), n = arity(o->op);

	if (o->type >= TY_TUPLE || o->t0 >= TY_TUPLE || c0 == C_OTHER ||
	    cr == C_OTHER)
		return -1;
	if (n >= 2 && (o->t1 == TY_INVALID || o->t1 >= TY_TUPLE))
		return -1;
	if (n >= 3 && (o->t2 == TY_INVALID || o->t2 >= TY_TUPLE))
		return -1;
	switch (o->op) {
	case HOP_CONVERT: case HOP_COPY:
		return 0;
	case HOP_SELECT:
		return o->t1 == o->type && o->t2 == o->type ? 0 : -1;
	case HOP_COMPARE:
		return cr == C_PRED && o->t1 == o->t0 &&
			(c0 != C_CPLX || o->dir <= CMP_NE) ? 0 : -1;
	case HOP_ISFINITE:
		return c0 == C_FLOAT && cr == C_PRED ? 0 : -1;
	case HOP_REAL: case HOP_IMAG:
		return cr == C_FLOAT ? 0 : -1;
	case HOP_COMPLEX:
		return cr == C_CPLX && c0 == C_FLOAT ? 0 : -1;
	case HOP_ABS:
		return c0 == C_CPLX ? (cr == C_FLOAT ? 0 : -1) :
			(o->t0 == o->type ? 0 : -1);
	case HOP_STOCHCONVERT:
		return c0 == C_FLOAT && cls(o->t1) == C_UINT ? 0 : -1;
	case HOP_SHL: case HOP_SHRA: case HOP_SHRL: case HOP_POPCNT:
	case HOP_CLZ: case HOP_MULHI:
		return (c0 == C_SINT || c0 == C_UINT) && o->t0 == o->type ?
			0 : -1;
	case HOP_AND: case HOP_OR: case HOP_XOR: case HOP_NOT:
		return c0 != C_FLOAT && c0 != C_CPLX && o->t0 == o->type ?
			0 : -1;
	case HOP_REDUCEPRECISION:
		return c0 == C_FLOAT && o->t0 == o->type && o->ebits >= 1 &&
			o->mbits >= 0 ? 0 : -1;
	}
	if (o->t0 != o->type || (n >= 2 && o->t1 != o->type) ||
	    (n >= 3 && o->t2 != o->type))
		return -1;
	switch (o->op) {
	case HOP_ADD: case HOP_SUBTRACT: case HOP_MUL: case HOP_MAX:
	case HOP_MIN: case HOP_NEGATE: case HOP_SIGN: case HOP_CLAMP:
		return 0;
	case HOP_DIVIDE: case HOP_REMAINDER: case HOP_POWER:
		return c0 == C_PRED ? -1 : 0;
	case HOP_EXP: case HOP_LOG: case HOP_SQRT: case HOP_RSQRT:
	case HOP_SIN: case HOP_COS: case HOP_TAN: case HOP_TANH:
	case HOP_LOGISTIC: case HOP_LOG1P: case HOP_EXPM1: case HOP_CBRT:
	case HOP_ATAN2: case HOP_SINH: case HOP_COSH: case HOP_ASIN:
	case HOP_ACOS: case HOP_ATAN: case HOP_ASINH: case HOP_ACOSH:
	case HOP_ATANH:
		return c0 == C_FLOAT || c0 == C_CPLX ? 0 : -1;
	case HOP_FLOOR: case HOP_CEIL: case HOP_ROUNDAFZ: case HOP_ROUNDEVEN:
	case HOP_ERF:
		return c0 == C_FLOAT ? 0 : -1;
	}
	return -1;
}

/* float operations */

static double
fmaxx(double a, double b)
{
	if (isnan(a))
		return a;
	if (isnan(b))
		return b;
	return a < b ? b : a;
}

static double
fminx(double a, double b)
{
	if (isnan(a))
		return a;
	if (isnan(b))
		return b;
	return b < a ? b : a;
}

static double
fsign(double a)
{
	if (isnan(a))
		return a;
	return copysign(a != 0, a);
}

static int64_t
totalkey(double d)
{
	int64_t b;

	memcpy(&b, &d, 8);
	return b ^ (int64_t)((uint64_t)(b >> 63) >> 1);
}

static int
cmpres(int dir, int lt, int eq, int gt)
{
	switch (dir) {
	case CMP_EQ: return eq;
	case CMP_NE: return !eq;
	case CMP_LT: return lt;
	case CMP_LE: return lt || eq;
	case CMP_GT: return gt;
	}
	return gt || eq;
}

static void
fcompare(const EwOp *o, int64_t n, Lane *r, const Lane *a, const Lane *b)
{
	int64_t k, x, y;
	double p, q;

	for (k = 0; k < n; k++) {
		p = a[k].f;
		q = b[k].f;
		if (o->total) {
			x = totalkey(p);
			y = totalkey(q);
			r[k].u = cmpres(o->dir, x < y, x == y, x > y);
		} else {
			r[k].u = cmpres(o->dir, p < q, p == q, p > q);
		}
	}
}

static uint64_t
rp_bits(uint64_t x, int sm, int se, int mb, int eb, int tot)
{
	uint64_t one = 1, lastmask, bias, trunc, sign, expmask, xe;
	int64_t ebias, rbias, rmax, rmin;

	if (mb < sm) {
		lastmask = one << (sm - mb);
		bias = (lastmask >> 1) - 1 + ((x & lastmask) >> (sm - mb));
		trunc = ~(lastmask - 1);
		x = (x + bias) & trunc;
	}
	if (eb < se) {
		sign = one << (tot - 1);
		expmask = ((one << se) - 1) << sm;
		ebias = (one << (se - 1)) - 1;
		rbias = (one << (eb - 1)) - 1;
		rmax = ebias + rbias;
		rmin = ebias - rbias;
		xe = x & expmask;
		if (xe > ((uint64_t)rmax << sm))
			x = (x & sign) | expmask;
		else if (xe <= ((uint64_t)rmin << sm))
			x &= sign;
	}
	return x;
}

static double
reduce_precision(double v, int type, int eb, int mb)
{
	uint64_t b64;
	uint32_t b32;
	float f;
	double r;

	if (type == TY_F64) {
		memcpy(&b64, &v, 8);
		b64 = rp_bits(b64, 52, 11, mb, eb, 64);
		memcpy(&r, &b64, 8);
	} else {
		f = v;
		memcpy(&b32, &f, 4);
		b32 = rp_bits(b32, 23, 8, mb, eb, 32);
		memcpy(&f, &b32, 4);
		r = f;
	}
	if (isnan(v))
		return mb > 0 ? v : copysign(INFINITY, v);
	return r;
}

static void
funary(const EwOp *o, int64_t n, Lane *r, const Lane *a)
{
	int64_t k;

#define U(expr) for (k = 0; k < n; k++) { double x = a[k].f; \
		r[k].f = (expr); } break
	switch (o->op) {
	case HOP_ABS: U(fabs(x));
	case HOP_NEGATE: U(-x);
	case HOP_EXP: U(exp(x));
	case HOP_EXPM1: U(expm1(x));
	case HOP_LOG: U(log(x));
	case HOP_LOG1P: U(log1p(x));
	case HOP_LOGISTIC: U(1 / (1 + exp(-x)));
	case HOP_SQRT: U(sqrt(x));
	case HOP_RSQRT: U(1 / sqrt(x));
	case HOP_CBRT: U(cbrt(x));
	case HOP_SIN: U(sin(x));
	case HOP_COS: U(cos(x));
	case HOP_TAN: U(tan(x));
	case HOP_TANH: U(tanh(x));
	case HOP_SINH: U(sinh(x));
	case HOP_COSH: U(cosh(x));
	case HOP_ASIN: U(asin(x));
	case HOP_ACOS: U(acos(x));
	case HOP_ATAN: U(atan(x));
	case HOP_ASINH: U(asinh(x));
	case HOP_ACOSH: U(acosh(x));
	case HOP_ATANH: U(atanh(x));
	case HOP_ERF: U(erf(x));
	case HOP_FLOOR: U(floor(x));
	case HOP_CEIL: U(ceil(x));
	case HOP_ROUNDAFZ: U(round(x));
	case HOP_ROUNDEVEN: U(nearbyint(x));
	case HOP_SIGN: U(fsign(x));
	case HOP_COPY: U(x);
	case HOP_REDUCEPRECISION:
		U(reduce_precision(x, o->type, o->ebits, o->mbits));
	}
#undef U
}

static void
fbinary(const EwOp *o, int64_t n, Lane *r, const Lane *a, const Lane *b)
{
	int64_t k;

#define B(expr) for (k = 0; k < n; k++) { double x = a[k].f, y = b[k].f; \
		r[k].f = (expr); } break
	switch (o->op) {
	case HOP_ADD: B(x + y);
	case HOP_SUBTRACT: B(x - y);
	case HOP_MUL: B(x * y);
	case HOP_DIVIDE: B(x / y);
	case HOP_REMAINDER: B(fmod(x, y));
	case HOP_MAX: B(fmaxx(x, y));
	case HOP_MIN: B(fminx(x, y));
	case HOP_POWER: B(x == 0 && y == 0 ? 1 : pow(x, y));
	case HOP_ATAN2: B(atan2(x, y));
	}
#undef B
}

/* integer operations */

static uint64_t
ipow(uint64_t base, int64_t e, int sgn)
{
	uint64_t r = 1;

	if (e < 0 && sgn) {
		if ((int64_t)base == 1)
			return 1;
		if ((int64_t)base == -1)
			return (e & 1) ? (uint64_t)-1 : 1;
		return 0;
	}
	while (e) {
		if (e & 1)
			r *= base;
		base *= base;
		e = (int64_t)((uint64_t)e >> 1);
	}
	return r;
}

static void
iunary(const EwOp *o, int64_t n, Lane *r, const Lane *a)
{
	int sgn = cls(o->t0) == C_SINT, b = bits(o->t0);
	uint64_t mask = imask(o->t0), x;
	int64_t k;

	for (k = 0; k < n; k++) {
		x = a[k].u;
		switch (o->op) {
		case HOP_ABS:
			r[k].u = sgn && a[k].s < 0 ? -x : x;
			break;
		case HOP_NEGATE:
			r[k].u = -x;
			break;
		case HOP_NOT:
			r[k].u = cls(o->t0) == C_PRED ? !x : ~x;
			break;
		case HOP_SIGN:
			r[k].s = sgn ? (a[k].s > 0) - (a[k].s < 0) : x != 0;
			break;
		case HOP_POPCNT:
			r[k].u = __builtin_popcountll(x & mask);
			break;
		case HOP_CLZ:
			x &= mask;
			r[k].u = x ? __builtin_clzll(x) - (64 - b) : b;
			break;
		default:
			r[k].u = x;
		}
	}
}

static uint64_t
ibin(int op, uint64_t x, uint64_t y, int sgn, int b, uint64_t mask)
{
	int64_t sx = (int64_t)x, sy = (int64_t)y, mn;
	uint64_t sh;

	mn = b >= 64 ? INT64_MIN : -((int64_t)1 << (b - 1));
	switch (op) {
	case HOP_ADD: return x + y;
	case HOP_SUBTRACT: return x - y;
	case HOP_MUL: return x * y;
	case HOP_AND: return x & y;
	case HOP_OR: return x | y;
	case HOP_XOR: return x ^ y;
	case HOP_MAX: return sgn ? (sx < sy ? y : x) : (x < y ? y : x);
	case HOP_MIN: return sgn ? (sy < sx ? y : x) : (y < x ? y : x);
	case HOP_DIVIDE:
		if (sgn) {
			if (sy == 0)
				return (uint64_t)-1;
			if (sy == -1 && sx == mn)
				return x;
			return (uint64_t)(sx / sy);
		}
		return y == 0 ? mask : x / y;
	case HOP_REMAINDER:
		if (sgn) {
			if (sy == 0)
				return x;
			if (sy == -1)
				return 0;
			return (uint64_t)(sx % sy);
		}
		return y == 0 ? x : x % y;
	case HOP_POWER:
		return ipow(x, sgn ? sy : (int64_t)(y & INT64_MAX), sgn);
	case HOP_SHL:
		sh = y & mask;
		return sh >= (uint64_t)b ? 0 : x << sh;
	case HOP_SHRA:
		sh = y & mask;
		if (sh >= (uint64_t)b)
			return sgn ? (sx < 0 ? (uint64_t)-1 : 0) :
				((x >> (b - 1)) & 1 ? mask : 0);
		return sgn ? (uint64_t)(sx >> sh) :
			(uint64_t)(sext(x, b) >> sh);
	case HOP_SHRL:
		sh = y & mask;
		return sh >= (uint64_t)b ? 0 : (x & mask) >> sh;
	case HOP_MULHI:
		if (b == 64)
			return sgn ? (uint64_t)(((__int128)sx * sy) >> 64) :
				(uint64_t)(((unsigned __int128)x * y) >> 64);
		return sgn ? (uint64_t)((sx * sy) >> b) :
			((x & mask) * (y & mask)) >> b;
	}
	return 0;
}

static void
ibinary(const EwOp *o, int64_t n, Lane *r, const Lane *a, const Lane *b)
{
	int sgn = cls(o->t0) == C_SINT, nb = bits(o->t0);
	uint64_t mask = imask(o->t0);
	int64_t k;

	if (cls(o->t0) == C_PRED) {
		for (k = 0; k < n; k++) {
			uint64_t x = a[k].u, y = b[k].u;

			switch (o->op) {
			case HOP_ADD: case HOP_OR: case HOP_MAX:
				r[k].u = x | y;
				break;
			case HOP_MUL: case HOP_AND: case HOP_MIN:
				r[k].u = x & y;
				break;
			default:
				r[k].u = x ^ y;
			}
		}
		return;
	}
	switch (o->op) {
	case HOP_ADD:
		for (k = 0; k < n; k++)
			r[k].u = a[k].u + b[k].u;
		return;
	case HOP_MUL:
		for (k = 0; k < n; k++)
			r[k].u = a[k].u * b[k].u;
		return;
	}
	for (k = 0; k < n; k++)
		r[k].u = ibin(o->op, a[k].u, b[k].u, sgn, nb, mask);
}

static void
icompare(const EwOp *o, int64_t n, Lane *r, const Lane *a, const Lane *b)
{
	int64_t k;

	if (cls(o->t0) == C_SINT) {
		for (k = 0; k < n; k++)
			r[k].u = cmpres(o->dir, a[k].s < b[k].s,
				a[k].s == b[k].s, a[k].s > b[k].s);
		return;
	}
	for (k = 0; k < n; k++)
		r[k].u = cmpres(o->dir, a[k].u < b[k].u, a[k].u == b[k].u,
			a[k].u > b[k].u);
}

/* complex operations */

/* builds re + i im without arithmetic, so infinities and NaNs stay in
 * their parts (CMPLX, which does the same, is missing from some
 * compilers' headers) */
static double complex
cx(const Lane *l)
{
	union {
		double complex z;
		double d[2];
	} u;

	u.d[0] = l->c[0];
	u.d[1] = l->c[1];
	return u.z;
}

static void
setcx(Lane *l, double complex z)
{
	l->c[0] = creal(z);
	l->c[1] = cimag(z);
}

static double complex
csign(double complex z)
{
	double a = cabs(z);

	return a == 0 ? 0 : z / a;
}

static void
cunary(const EwOp *o, int64_t n, Lane *r, const Lane *a)
{
	int64_t k;
	double complex z, w;

	for (k = 0; k < n; k++) {
		z = cx(&a[k]);
		switch (o->op) {
		case HOP_NEGATE: w = -z; break;
		case HOP_EXP: w = cexp(z); break;
		case HOP_EXPM1: w = cexp(z) - 1; break;
		case HOP_LOG: w = clog(z); break;
		case HOP_LOG1P: w = clog(1 + z); break;
		case HOP_LOGISTIC: w = 1 / (1 + cexp(-z)); break;
		case HOP_SQRT: w = csqrt(z); break;
		case HOP_RSQRT: w = 1 / csqrt(z); break;
		case HOP_CBRT: w = cpow(z, 1.0 / 3); break;
		case HOP_SIN: w = csin(z); break;
		case HOP_COS: w = ccos(z); break;
		case HOP_TAN: w = ctan(z); break;
		case HOP_TANH: w = ctanh(z); break;
		case HOP_SINH: w = csinh(z); break;
		case HOP_COSH: w = ccosh(z); break;
		case HOP_ASIN: w = casin(z); break;
		case HOP_ACOS: w = cacos(z); break;
		case HOP_ATAN: w = catan(z); break;
		case HOP_ASINH: w = casinh(z); break;
		case HOP_ACOSH: w = cacosh(z); break;
		case HOP_ATANH: w = catanh(z); break;
		case HOP_SIGN: w = csign(z); break;
		default: w = z;
		}
		setcx(&r[k], w);
	}
}

static void
cbinary(const EwOp *o, int64_t n, Lane *r, const Lane *a, const Lane *b)
{
	int64_t k;
	double complex x, y, w;

	for (k = 0; k < n; k++) {
		x = cx(&a[k]);
		y = cx(&b[k]);
		switch (o->op) {
		case HOP_ADD: w = x + y; break;
		case HOP_SUBTRACT: w = x - y; break;
		case HOP_MUL: w = x * y; break;
		case HOP_DIVIDE: w = x / y; break;
		case HOP_POWER: w = x == 0 && y == 0 ? 1 : cpow(x, y); break;
		case HOP_ATAN2:
			w = -I * clog((y + I * x) / csqrt(y * y + x * x));
			break;
		default: w = 0;
		}
		setcx(&r[k], w);
	}
}

/* conversions */

static void
int_limits(int t, int64_t *lo, uint64_t *hi)
{
	int b = bits(t);

	if (cls(t) == C_SINT) {
		*lo = b >= 64 ? INT64_MIN : -((int64_t)1 << (b - 1));
		*hi = b >= 64 ? (uint64_t)INT64_MAX :
			((uint64_t)1 << (b - 1)) - 1;
	} else {
		*lo = 0;
		*hi = imask(t);
	}
}

static uint64_t
f2i(double x, int t)
{
	int64_t lo;
	uint64_t hi;

	int_limits(t, &lo, &hi);
	if (isnan(x))
		return 0;
	if (x <= (double)lo)
		return (uint64_t)lo;
	if (x >= (double)hi)
		return hi;
	if (cls(t) == C_SINT)
		return (uint64_t)(int64_t)x;
	return (uint64_t)x;
}

static double
i2f(const Lane *l, int from, int to)
{
	int sgn = cls(from) == C_SINT;

	if (to == TY_F64)
		return sgn ? (double)l->s : (double)l->u;
	return sgn ? (double)(float)l->s : (double)(float)l->u;
}

static void
convert(const EwOp *o, int64_t n, Lane *r, const Lane *a)
{
	int cf = cls(o->t0), ct = cls(o->type);
	int64_t k;

	for (k = 0; k < n; k++) {
		double f = 0, im = 0;
		int isf = 0;

		switch (cf) {
		case C_FLOAT: f = a[k].f; isf = 1; break;
		case C_CPLX: f = a[k].c[0]; im = a[k].c[1]; isf = 1; break;
		}
		switch (ct) {
		case C_PRED:
			r[k].u = cf == C_CPLX ? (f != 0 || im != 0) :
				isf ? f != 0 : a[k].u != 0;
			break;
		case C_SINT: case C_UINT:
			r[k].u = isf ? f2i(f, o->type) : a[k].u;
			break;
		case C_FLOAT:
			r[k].f = isf ? f : i2f(&a[k], o->t0, o->type);
			break;
		case C_CPLX:
			r[k].c[0] = isf ? f : i2f(&a[k], o->t0, TY_F64);
			r[k].c[1] = im;
			break;
		}
	}
}

static void
stochconvert(const EwOp *o, int64_t n, Lane *r, const Lane *a,
	const Lane *b)
{
	int rb = bits(o->t1);
	int64_t k, lo;
	uint64_t hi, t;
	double x, ax, fr;

	int_limits(o->type, &lo, &hi);
	for (k = 0; k < n; k++) {
		x = a[k].f;
		if (isnan(x) || isinf(x)) {
			r[k].u = f2i(x, o->type);
			continue;
		}
		ax = fabs(x);
		t = ax >= 1.8e19 ? UINT64_MAX : (uint64_t)ax;
		fr = ax - floor(ax);
		/* xla compares the random bits with the fraction in fixed
		 * point, truncated (static_cast<Uint>(ldexp(fr, bits))) */
		if (fr > 0 && (double)(b[k].u & imask(o->t1)) <
		    floor(ldexp(fr, rb)))
			t++;
		r[k].u = f2i(x < 0 ? -(double)t : (double)t, o->type);
	}
}

/* runs o on n elements: r[k] = o(a[k], b[k], c[k]); results are not yet
 * rounded to o->type (ev_lane_store or ev_lane_round does that) */
void
ev_ew_run(const EwOp *o, int64_t n, Lane *r, const Lane *a, const Lane *b,
	const Lane *c)
{
	int c0 = cls(o->t0);
	int64_t k;

	switch (o->op) {
	case HOP_CONVERT:
		convert(o, n, r, a);
		return;
	case HOP_STOCHCONVERT:
		stochconvert(o, n, r, a, b);
		return;
	case HOP_SELECT:
		for (k = 0; k < n; k++)
			r[k] = a[k].u ? b[k] : c[k];
		return;
	case HOP_ISFINITE:
		for (k = 0; k < n; k++)
			r[k].u = isfinite(a[k].f) != 0;
		return;
	case HOP_REAL:
		for (k = 0; k < n; k++)
			r[k].f = c0 == C_CPLX ? a[k].c[0] : a[k].f;
		return;
	case HOP_IMAG:
		for (k = 0; k < n; k++)
			r[k].f = c0 == C_CPLX ? a[k].c[1] : 0;
		return;
	case HOP_COMPLEX:
		for (k = 0; k < n; k++) {
			double re = a[k].f, im = b[k].f;

			r[k].c[0] = re;
			r[k].c[1] = im;
		}
		return;
	case HOP_COMPARE:
		if (c0 == C_FLOAT)
			fcompare(o, n, r, a, b);
		else if (c0 == C_CPLX)
			for (k = 0; k < n; k++)
				r[k].u = (a[k].c[0] == b[k].c[0] &&
					a[k].c[1] == b[k].c[1]) ==
					(o->dir == CMP_EQ);
		else
			icompare(o, n, r, a, b);
		return;
	case HOP_CLAMP:
		for (k = 0; k < n; k++) {
			Lane lo = a[k], x = b[k], hi = c[k];

			if (c0 == C_FLOAT) {
				if (isnan(lo.f) || isnan(x.f) || isnan(hi.f))
					r[k].f = isnan(lo.f) ? lo.f :
						isnan(x.f) ? x.f : hi.f;
				else
					r[k].f = fminx(hi.f, fmaxx(x.f, lo.f));
			} else if (c0 == C_SINT) {
				r[k].s = x.s < lo.s ? lo.s : x.s;
				r[k].s = hi.s < r[k].s ? hi.s : r[k].s;
			} else {
				r[k].u = x.u < lo.u ? lo.u : x.u;
				r[k].u = hi.u < r[k].u ? hi.u : r[k].u;
			}
		}
		return;
	case HOP_ABS:
		if (c0 == C_CPLX) {
			for (k = 0; k < n; k++)
				r[k].f = hypot(a[k].c[0], a[k].c[1]);
			return;
		}
		break;
	}
	switch (c0) {
	case C_FLOAT:
		if (arity(o->op) == 1)
			funary(o, n, r, a);
		else
			fbinary(o, n, r, a, b);
		return;
	case C_CPLX:
		if (arity(o->op) == 1)
			cunary(o, n, r, a);
		else
			cbinary(o, n, r, a, b);
		return;
	}
	if (arity(o->op) == 1)
		iunary(o, n, r, a);
	else
		ibinary(o, n, r, a, b);
}

/* the array driver */

static void
loadop(const HloVal *v, int type, int64_t off, int64_t n, Lane *l)
{
	int64_t k;

	if (v->n == 1 || v->splat) {
		ev_lane_load(type, v->data, 1, l);
		for (k = 1; k < n; k++)
			l[k] = l[0];
		return;
	}
	ev_lane_load(type, v->data + off * hlo_type_bytes(type), n, l);
}

static float
ld_one(int type, const unsigned char *p)
{
	float f;

	switch (type) {
	case TY_F32:
		memcpy(&f, p, 4);
		return f;
	case TY_BF16:
		return bf16_to_f32(rdle(p, 2));
	}
	return f16_to_f32(rdle(p, 2));
}

static void
ld_float(int type, const HloVal *v, int64_t off, int64_t n, float *d)
{
	const unsigned char *p = v->data;
	int64_t k;
	float x;

	if (v->n == 1 || v->splat) {
		x = ld_one(type, p);
		for (k = 0; k < n; k++)
			d[k] = x;
		return;
	}
	switch (type) {
	case TY_F32:
		memcpy(d, p + off * 4, n * 4);
		return;
	case TY_BF16:
		for (k = 0; k < n; k++)
			d[k] = bf16_to_f32(rdle(p + (off + k) * 2, 2));
		return;
	default:
		for (k = 0; k < n; k++)
			d[k] = f16_to_f32(rdle(p + (off + k) * 2, 2));
	}
}

static void
st_float(int type, const float *s, int64_t n, unsigned char *p)
{
	int64_t k;

	switch (type) {
	case TY_F32:
		memcpy(p, s, n * 4);
		return;
	case TY_BF16:
		for (k = 0; k < n; k++)
			wrle(p + 2 * k, f32_to_bf16(s[k]), 2);
		return;
	default:
		for (k = 0; k < n; k++)
			wrle(p + 2 * k, f32_to_f16(s[k]), 2);
	}
}

static int
isfl(int t)
{
	return t == TY_F32 || t == TY_BF16 || t == TY_F16;
}

static int
fast_compare(const EwOp *o, HloVal **ops, HloVal *v, int64_t lo, int64_t hi)
{
	float a[EV_CHUNK], b[EV_CHUNK];
	int64_t k, j, w;
	unsigned char *r = v->data;

	for (k = lo; k < hi; k += w) {
		w = hi - k < EV_CHUNK ? hi - k : EV_CHUNK;
		ld_float(o->t0, ops[0], k, w, a);
		ld_float(o->t0, ops[1], k, w, b);
		switch (o->dir) {
		case CMP_EQ:
			for (j = 0; j < w; j++)
				r[k + j] = a[j] == b[j];
			break;
		case CMP_NE:
			for (j = 0; j < w; j++)
				r[k + j] = a[j] != b[j];
			break;
		case CMP_LT:
			for (j = 0; j < w; j++)
				r[k + j] = a[j] < b[j];
			break;
		case CMP_LE:
			for (j = 0; j < w; j++)
				r[k + j] = a[j] <= b[j];
			break;
		case CMP_GT:
			for (j = 0; j < w; j++)
				r[k + j] = a[j] > b[j];
			break;
		default:
			for (j = 0; j < w; j++)
				r[k + j] = a[j] >= b[j];
		}
	}
	return 1;
}

/* + - * / max min neg abs on f32, bf16 and f16 computed in float: for
 * these the result equals the double computation rounded; converts and
 * compares among those types likewise */
static int
fast_float(const EwOp *o, HloVal **ops, int na, HloVal *v, int64_t lo,
	int64_t hi)
{
	float a[EV_CHUNK], b[EV_CHUNK], c[EV_CHUNK], r[EV_CHUNK];
	int64_t k, j, w, esz = hlo_type_bytes(o->type);
	int t = o->type;

	if (isfl(o->t0) && na == 1 && o->op == HOP_CONVERT && isfl(t)) {
		for (k = lo; k < hi; k += w) {
			w = hi - k < EV_CHUNK ? hi - k : EV_CHUNK;
			ld_float(o->t0, ops[0], k, w, a);
			st_float(t, a, w, v->data + k * esz);
		}
		return 1;
	}
	if (isfl(o->t0) && na == 2 && o->op == HOP_COMPARE && !o->total &&
	    o->t1 == o->t0)
		return fast_compare(o, ops, v, lo, hi);
	if (na == 3 && o->op == HOP_CLAMP && isfl(t) && o->t0 == t &&
	    o->t1 == t && o->t2 == t) {
		/* min(hi, max(x, lo)), the first NaN of lo, x, hi winning;
		 * exact in float */
		for (k = lo; k < hi; k += w) {
			w = hi - k < EV_CHUNK ? hi - k : EV_CHUNK;
			ld_float(t, ops[0], k, w, a);
			ld_float(t, ops[1], k, w, b);
			ld_float(t, ops[2], k, w, c);
			for (j = 0; j < w; j++) {
				float x = b[j];

				if (a[j] != a[j])
					x = a[j];
				else if (x != x)
					;
				else if (c[j] != c[j])
					x = c[j];
				else {
					x = x < a[j] ? a[j] : x;
					x = x < c[j] ? x : c[j];
				}
				r[j] = x;
			}
			st_float(t, r, w, v->data + k * esz);
		}
		return 1;
	}
	if (!isfl(t) || o->t0 != t || (na == 2 && o->t1 != t) || na > 2)
		return 0;
	switch (o->op) {
	case HOP_ADD: case HOP_SUBTRACT: case HOP_MUL: case HOP_DIVIDE:
	case HOP_MAX: case HOP_MIN:
		if (na != 2)
			return 0;
		break;
	case HOP_NEGATE: case HOP_ABS:
		if (na != 1)
			return 0;
		break;
	default:
		return 0;
	}
	for (k = lo; k < hi; k += w) {
		w = hi - k < EV_CHUNK ? hi - k : EV_CHUNK;
		ld_float(t, ops[0], k, w, a);
		if (na == 2)
			ld_float(t, ops[1], k, w, b);
		switch (o->op) {
		case HOP_ADD:
			for (j = 0; j < w; j++)
				r[j] = a[j] + b[j];
			break;
		case HOP_SUBTRACT:
			for (j = 0; j < w; j++)
				r[j] = a[j] - b[j];
			break;
		case HOP_MUL:
			for (j = 0; j < w; j++)
				r[j] = a[j] * b[j];
			break;
		case HOP_DIVIDE:
			for (j = 0; j < w; j++)
				r[j] = a[j] / b[j];
			break;
		case HOP_MAX:
			for (j = 0; j < w; j++)
				r[j] = a[j] != a[j] ? a[j] : b[j] != b[j] ?
					b[j] : a[j] < b[j] ? b[j] : a[j];
			break;
		case HOP_MIN:
			for (j = 0; j < w; j++)
				r[j] = a[j] != a[j] ? a[j] : b[j] != b[j] ?
					b[j] : b[j] < a[j] ? b[j] : a[j];
			break;
		case HOP_NEGATE:
			for (j = 0; j < w; j++)
				r[j] = -a[j];
			break;
		default:
			for (j = 0; j < w; j++)
				r[j] = fabsf(a[j]);
		}
		st_float(t, r, w, v->data + k * esz);
	}
	return 1;
}

/* select on any type: a byte copy per element */
static int
fast_select(const EwOp *o, HloVal **ops, HloVal *v, int64_t lo, int64_t hi)
{
	int64_t k, esz = hlo_type_bytes(o->type);
	const unsigned char *p = ops[0]->data, *x = ops[1]->data;
	const unsigned char *y = ops[2]->data;
	int sp = ops[0]->n == 1 || ops[0]->splat;
	int sx = ops[1]->n == 1 || ops[1]->splat;
	int sy = ops[2]->n == 1 || ops[2]->splat;

	if (o->op != HOP_SELECT || o->t0 != TY_PRED)
		return 0;
#define SEL(T) for (k = lo; k < hi; k++) { T a_, b_; \
		memcpy(&a_, x + (sx ? 0 : k) * sizeof(T), sizeof(T)); \
		memcpy(&b_, y + (sy ? 0 : k) * sizeof(T), sizeof(T)); \
		a_ = p[sp ? 0 : k] ? a_ : b_; \
		memcpy(v->data + k * sizeof(T), &a_, sizeof(T)); } \
		return 1
	switch (esz) {
	case 1: SEL(uint8_t);
	case 2: SEL(uint16_t);
	case 4: SEL(uint32_t);
	case 8: SEL(uint64_t);
	}
#undef SEL
	for (k = lo; k < hi; k++)
		memmove(v->data + k * esz, p[sp ? 0 : k] ? x + (sx ? 0 : k) *
			esz : y + (sy ? 0 : k) * esz, esz);
	return 1;
}

/* the result buffer: a dead operand's of the same type and size when
 * there is one */
static HloVal *
result(HloEval *ev, const HloInstr *in, HloVal **ops, int na)
{
	const HloShape *sh = hlo_sh(ev->m, in->shape);
	int64_t n = hlo_shape_elems(ev->m, in->shape);
	int j;

	for (j = 0; j < na && j < 64; j++)
		if (((ev->consume >> j) & 1) && ops[j]->type == sh->type &&
		    ops[j]->n == n && n > 1 && !ops[j]->splat) {
			ops[j]->shape = in->shape;
			return hlo_val_ref(ops[j]);
		}
	return hlo_val_array(ev, in->shape);
}

/* and, or, xor of one integer or pred type: bytewise, exact for the
 * sign- or zero-extended storage of every width */
static int
fast_bits(const EwOp *o, HloVal **ops, HloVal *v, int64_t lo, int64_t hi)
{
	unsigned char a[EV_CHUNK * 8], b[EV_CHUNK * 8];
	int64_t k, j, w, esz = hlo_type_bytes(o->type), nb;
	unsigned char *r;
	const unsigned char *pa, *pb;

	if ((o->op != HOP_AND && o->op != HOP_OR && o->op != HOP_XOR) ||
	    o->t0 != o->type || o->t1 != o->type || esz > 8 ||
	    (cls(o->type) != C_SINT && cls(o->type) != C_UINT &&
	    o->type != TY_PRED))
		return 0;
	for (k = lo; k < hi; k += w) {
		w = hi - k < EV_CHUNK ? hi - k : EV_CHUNK;
		nb = w * esz;
		r = v->data + k * esz;
		if (ops[0]->n == 1 || ops[0]->splat) {
			for (j = 0; j < w; j++)
				memcpy(a + j * esz, ops[0]->data, esz);
			pa = a;
		} else {
			pa = ops[0]->data + k * esz;
		}
		if (ops[1]->n == 1 || ops[1]->splat) {
			for (j = 0; j < w; j++)
				memcpy(b + j * esz, ops[1]->data, esz);
			pb = b;
		} else {
			pb = ops[1]->data + k * esz;
		}
		switch (o->op) {
		case HOP_AND:
			for (j = 0; j < nb; j++)
				r[j] = pa[j] & pb[j];
			break;
		case HOP_OR:
			for (j = 0; j < nb; j++)
				r[j] = pa[j] | pb[j];
			break;
		default:
			for (j = 0; j < nb; j++)
				r[j] = pa[j] ^ pb[j];
		}
	}
	return 1;
}

/* 32-bit integer arithmetic, shifts, min and max of one type, on
 * uint32 words: the same wrap-around and shift rules as ibin */
static void
ld32(const HloVal *v, int64_t k, int64_t w, uint32_t *d)
{
	int64_t j;

	if (v->n == 1 || v->splat) {
		uint32_t x;

		memcpy(&x, v->data, 4);
		for (j = 0; j < w; j++)
			d[j] = x;
		return;
	}
	memcpy(d, v->data + k * 4, w * 4);
}

static int
fast_int32(const EwOp *o, HloVal **ops, HloVal *v, int64_t lo, int64_t hi)
{
	uint32_t a[EV_CHUNK], b[EV_CHUNK], r[EV_CHUNK], x, y;
	int64_t k, j, w;
	int sgn = o->type == TY_S32;

	if ((o->type != TY_S32 && o->type != TY_U32) || o->t0 != o->type ||
	    o->t1 != o->type)
		return 0;
	switch (o->op) {
	case HOP_ADD: case HOP_SUBTRACT: case HOP_MUL: case HOP_SHL:
	case HOP_SHRL: case HOP_SHRA: case HOP_MAX: case HOP_MIN:
		break;
	default:
		return 0;
	}
	for (k = lo; k < hi; k += w) {
		w = hi - k < EV_CHUNK ? hi - k : EV_CHUNK;
		ld32(ops[0], k, w, a);
		ld32(ops[1], k, w, b);
		switch (o->op) {
		case HOP_ADD:
			for (j = 0; j < w; j++)
				r[j] = a[j] + b[j];
			break;
		case HOP_SUBTRACT:
			for (j = 0; j < w; j++)
				r[j] = a[j] - b[j];
			break;
		case HOP_MUL:
			for (j = 0; j < w; j++)
				r[j] = a[j] * b[j];
			break;
		case HOP_SHL:
			for (j = 0; j < w; j++)
				r[j] = b[j] >= 32 ? 0 : a[j] << b[j];
			break;
		case HOP_SHRL:
			for (j = 0; j < w; j++)
				r[j] = b[j] >= 32 ? 0 : a[j] >> b[j];
			break;
		case HOP_SHRA:
			for (j = 0; j < w; j++) {
				int32_t sx = (int32_t)a[j];

				r[j] = (uint32_t)(b[j] >= 32 ? (sx < 0 ? -1 :
					0) : sx >> b[j]);
			}
			break;
		case HOP_MAX:
			for (j = 0; j < w; j++) {
				x = a[j];
				y = b[j];
				r[j] = (sgn ? (int32_t)x < (int32_t)y : x < y) ?
					y : x;
			}
			break;
		default:
			for (j = 0; j < w; j++) {
				x = a[j];
				y = b[j];
				r[j] = (sgn ? (int32_t)y < (int32_t)x : y < x) ?
					y : x;
			}
		}
		memcpy(v->data + k * 4, r, w * 4);
	}
	return 1;
}

typedef struct {
	const EwOp *o;
	HloVal **ops;
	int na;
	HloVal *v;
} EwJob;

static void ew_part(void *ctx, int part, int64_t lo, int64_t hi);

/* chunks [lo, hi) */
static void
ew_chunks(void *ctx, int part, int64_t lo, int64_t hi)
{
	const EwJob *j = ctx;
	int64_t n = j->v->n;

	ew_part(ctx, part, lo * EV_CHUNK, hi * EV_CHUNK < n ? hi * EV_CHUNK :
		n);
}

/* elements [lo, hi) of one elementwise instruction; every part takes
 * the same path, chosen by types alone */
static void
ew_part(void *ctx, int part, int64_t lo, int64_t hi)
{
	const EwJob *j = ctx;
	const EwOp *o = j->o;
	HloVal **ops = j->ops;
	Lane la[EV_CHUNK], lb[EV_CHUNK], lc[EV_CHUNK], lr[EV_CHUNK];
	const uint8_t *ts = &o->t0;
	int64_t k, w, esz = ev_esz(o->type);

	(void)part;
	if (fast_float(o, ops, j->na, j->v, lo, hi) ||
	    (j->na == 3 && fast_select(o, ops, j->v, lo, hi)) ||
	    (j->na == 2 && fast_bits(o, ops, j->v, lo, hi)) ||
	    (j->na == 2 && fast_int32(o, ops, j->v, lo, hi)))
		return;
	for (k = lo; k < hi; k += w) {
		w = hi - k < EV_CHUNK ? hi - k : EV_CHUNK;
		loadop(ops[0], ts[0], k, w, la);
		if (j->na > 1)
			loadop(ops[1], ts[1], k, w, lb);
		if (j->na > 2)
			loadop(ops[2], ts[2], k, w, lc);
		ev_ew_run(o, w, lr, la, lb, lc);
		ev_lane_store(o->type, lr, w, j->v->data + k * esz);
	}
}

/* elements [0, n) of o on buffers (eval_fused.c's tiles): each
 * operand holds n elements, or one read as all (n == 1 or splat); the
 * kernels and the path choice are ev_elementwise's, so every element is
 * bit for bit what the whole-array evaluation gives */
void
ev_ew_span(const EwOp *o, HloVal **ops, HloVal *v, int64_t n)
{
	EwJob job;

	job.o = o;
	job.ops = ops;
	job.na = arity(o->op);
	job.v = v;
	ew_part(&job, 0, 0, n);
}

int
ev_ew_arity(int op)
{
	return arity(op);
}

int
ev_elementwise(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops,
	HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	EwOp o;
	EwJob job;
	HloVal *v;
	int64_t n;
	int na, j;

	if (ev_ew_bind(ev->m, c, i, &o) < 0)
		return ev_unsupported(ev, c, i, "operation not defined on "
			"these element types");
	na = arity(o.op);
	if ((int)in->nops != na)
		return ev_unsupported(ev, c, i, "wrong operand count");
	n = hlo_shape_elems(ev->m, in->shape);
	for (j = 0; j < na; j++)
		if (ops[j]->type >= TY_TUPLE || (ops[j]->n != n &&
		    ops[j]->n != 1))
			return ev_unsupported(ev, c, i, "operand shape does "
				"not match the result");
	v = result(ev, in, ops, na);
	if (!v)
		return -1;
	job.o = &o;
	job.ops = ops;
	job.na = na;
	job.v = v;
	/* parts of whole chunks, so sub-byte and chunked paths line up */
	ev_par(ev, (n + EV_CHUNK - 1) / EV_CHUNK, 64, ew_chunks, &job);
	*out = v;
	return 0;
}

/* bitcast-convert: the same bits seen as another type; when the widths
 * differ the last dimension of the wider side splits into elements of
 * the narrower, least significant first */
int
ev_bitcast_convert(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops,
	HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	HloVal *a = ops[0], *v;
	int ti = a->type, to, bi, bo;
	int64_t k, bit;
	uint64_t acc;

	if (ti >= TY_TUPLE || cls(ti) == C_OTHER)
		return ev_unsupported(ev, c, i, "operand is not an array");
	v = hlo_val_array(ev, in->shape);
	if (!v)
		return -1;
	to = v->type;
	bi = ti == TY_PRED ? 8 : bits(ti);
	bo = to == TY_PRED ? 8 : bits(to);
	if ((uint64_t)a->n * bi != (uint64_t)v->n * bo) {
		hlo_val_unref(ev, v);
		return ev_unsupported(ev, c, i, "sizes differ");
	}
	if (bi % 8 == 0 && bo % 8 == 0) {
		memcpy(v->data, a->data, v->nbytes);
	} else if (bi > 64 || bo > 64) {
		hlo_val_unref(ev, v);
		return ev_unsupported(ev, c, i, "sub-byte bitcast of a "
			"complex type");
	} else {
		for (k = 0; k < v->n; k++) {
			acc = 0;
			for (bit = 0; bit < bo; bit++) {
				int64_t gb = k * bo + bit;
				uint64_t e = rdle(a->data + (gb / bi) *
					hlo_type_bytes(ti), hlo_type_bytes(ti));

				acc |= ((e >> (gb % bi)) & 1) << bit;
			}
			if (cls(to) == C_SINT)
				acc = (uint64_t)sext(acc, bo);
			wrle(v->data + k * hlo_type_bytes(to), acc,
				hlo_type_bytes(to));
		}
	}
	if (to == TY_PRED)
		for (k = 0; k < v->n; k++)
			v->data[k] = v->data[k] != 0;
	*out = v;
	return 0;
}
