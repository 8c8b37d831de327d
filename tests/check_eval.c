/* check_eval.c: the evaluator against hand-computed results, per opcode
 * family (elementwise, convert edge cases, integer corner cases, data
 * movement, dot, convolution against a direct reference, reduce,
 * reduce-window, gather, scatter, sort, control flow), determinism of
 * `run`, the opaque-op model, the memory limit, and the mutation test:
 * on real modules from data/ (topped up from the corpus), verify X X is
 * equal and a planted change near the output is caught. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hlo.h"
#include "eval.h"
#include "testutil.h"

/* evaluating text */

static double
lane_double(int type, const Lane *l)
{
	switch (hlo_typeinfo[type].cls) {
	case C_FLOAT: return l->f;
	case C_CPLX: return l->c[0];
	case C_SINT: return (double)l->s;
	}
	return (double)l->u;
}

static void
double_lane(int type, double x, Lane *l)
{
	memset(l, 0, sizeof *l);
	switch (hlo_typeinfo[type].cls) {
	case C_FLOAT: l->f = x; break;
	case C_CPLX: l->c[0] = x; break;
	case C_SINT: l->s = (int64_t)x; break;
	case C_PRED: l->u = x != 0; break;
	default: l->u = (uint64_t)x;
	}
}

static const HloVal *
leaf(const HloVal *v, int *k)
{
	int64_t j;
	const HloVal *r;

	if (v->type != TY_TUPLE)
		return (*k)-- == 0 ? v : NULL;
	for (j = 0; j < v->n; j++)
		if ((r = leaf(v->elems[j], k)))
			return r;
	return NULL;
}

/* runs the entry of text on inputs given as doubles (one array per
 * parameter); copies output leaf k into out; returns its element count,
 * -1 if evaluation failed (msg filled) */
static int64_t
evalk(const char *text, const double *const *in, int k, double *out,
	int64_t max, char *msg)
{
	HloError e;
	HloModule *m = tu_parse(text, &e);
	HloEval ev;
	HloVal **args, *res = NULL;
	const HloVal *o;
	uint32_t np, p, i;
	int64_t j, n = -1;
	Lane l;

	ck_assert_msg(m != NULL, "parse: %s", e.msg);
	hlo_eval_init(&ev, m, 0, &e);
	np = hlo_param_count(m, m->entry);
	args = xcalloc(np + 1, sizeof *args);
	for (p = 0; p < np; p++) {
		i = hlo_param(m, m->entry, p);
		args[p] = hlo_val_array(&ev, hlo_ins(m, m->entry, i)->shape);
		for (j = 0; j < args[p]->n; j++) {
			double_lane(args[p]->type, in[p][j], &l);
			ev_lane_store(args[p]->type, &l, 1, args[p]->data +
				j * ev_esz(args[p]->type));
		}
	}
	if (hlo_eval_entry(&ev, args, np, &res) < 0) {
		if (msg)
			snprintf(msg, 1024, "%s", e.msg);
		goto done;
	}
	o = leaf(res, &k);
	ck_assert(o != NULL);
	n = o->n;
	for (j = 0; j < n && j < max; j++) {
		ev_lane_load(o->type, o->data + j * ev_esz(o->type), 1, &l);
		out[j] = lane_double(o->type, &l);
	}
done:
	hlo_val_unref(&ev, res);
	hlo_eval_free_args(&ev, args, np);
	hlo_eval_fini(&ev);
	hlo_module_free(m);
	return n;
}

static int
same(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	return a == b && signbit(a) == signbit(b);
}

/* checks output leaf k equals want exactly (NaN = NaN, -0 != 0) */
static void
expect(const char *text, const double *const *in, int k, const double *want,
	int64_t n)
{
	static double got[16384];
	char msg[1024] = "";
	int64_t r = evalk(text, in, k, got, 16384, msg), j;

	ck_assert_msg(r == n, "%s: %lld elements, want %lld (%s)", text,
		(long long)r, (long long)n, msg);
	for (j = 0; j < n; j++)
		ck_assert_msg(same(got[j], want[j]), "%s: element %lld is "
			"%.17g, want %.17g", text, (long long)j, got[j],
			want[j]);
}

static void
expect1(const char *text, const double *a, const double *want, int64_t n)
{
	const double *in[1] = {a};

	expect(text, in, 0, want, n);
}

static void
expect2(const char *text, const double *a, const double *b,
	const double *want, int64_t n)
{
	const double *in[2] = {a, b};

	expect(text, in, 0, want, n);
}

/* elementwise floats */

START_TEST(float_binary)
{
	double a[] = {NAN, 1, 0, 5.5, -3, 2};
	double b[] = {1, NAN, 0, 2, 0.5, 3};
	double mx[] = {NAN, NAN, 0, 5.5, 0.5, 3};
	double mn[] = {NAN, NAN, 0, 2, -3, 2};
	double pw[] = {NAN, 1, 1, pow(5.5, 2), pow(-3, 0.5), 8};
	double rem[] = {NAN, NAN, NAN, 1.5, -0.0, 2};

	expect2("ENTRY e { a = f32[6] parameter(0) b = f32[6] parameter(1)\n"
		"ROOT r = f32[6] maximum(a, b) }", a, b, mx, 6);
	expect2("ENTRY e { a = f32[6] parameter(0) b = f32[6] parameter(1)\n"
		"ROOT r = f32[6] minimum(a, b) }", a, b, mn, 6);
	expect2("ENTRY e { a = f32[6] parameter(0) b = f32[6] parameter(1)\n"
		"ROOT r = f32[6] power(a, b) }", a, b, pw, 6);
	expect2("ENTRY e { a = f32[6] parameter(0) b = f32[6] parameter(1)\n"
		"ROOT r = f32[6] remainder(a, b) }", a, b, rem, 6);
}
END_TEST

START_TEST(float_unary)
{
	double a[] = {2.5, -2.5, 0.5, -0.0, -3, INFINITY};
	double afz[] = {3, -3, 1, -0.0, -3, INFINITY};
	double even[] = {2, -2, 0, -0.0, -3, INFINITY};
	double sg[] = {1, -1, 1, -0.0, -1, 1};
	double fin[] = {1, 1, 1, 1, 1, 0};
	double x[] = {0, 1, -1};
	double lg[3];
	int k;

	expect1("ENTRY e { a = f32[6] parameter(0)\n"
		"ROOT r = f32[6] round-nearest-afz(a) }", a, afz, 6);
	expect1("ENTRY e { a = f32[6] parameter(0)\n"
		"ROOT r = f32[6] round-nearest-even(a) }", a, even, 6);
	expect1("ENTRY e { a = f32[6] parameter(0)\n"
		"ROOT r = f32[6] sign(a) }", a, sg, 6);
	expect1("ENTRY e { a = f32[6] parameter(0)\n"
		"ROOT r = pred[6] is-finite(a) }", a, fin, 6);
	for (k = 0; k < 3; k++)
		lg[k] = (float)(1 / (1 + exp(-x[k])));
	expect1("ENTRY e { a = f32[3] parameter(0)\n"
		"ROOT r = f32[3] logistic(a) }", x, lg, 3);
}
END_TEST

START_TEST(float_compare)
{
	double a[] = {NAN, -0.0, 1, -0.0, NAN};
	double b[] = {1, 0, 1, -0.0, NAN};
	double lt[] = {0, 0, 0, 0, 0};
	double tlt[] = {0, 1, 0, 0, 0};
	double ne[] = {1, 0, 0, 0, 1};
	double teq[] = {0, 0, 1, 1, 1};

	expect2("ENTRY e { a = f32[5] parameter(0) b = f32[5] parameter(1)\n"
		"ROOT r = pred[5] compare(a, b), direction=LT }", a, b, lt, 5);
	expect2("ENTRY e { a = f32[5] parameter(0) b = f32[5] parameter(1)\n"
		"ROOT r = pred[5] compare(a, b), direction=LT, type=TOTALORDER }",
		a, b, tlt, 5);
	expect2("ENTRY e { a = f32[5] parameter(0) b = f32[5] parameter(1)\n"
		"ROOT r = pred[5] compare(a, b), direction=NE }", a, b, ne, 5);
	expect2("ENTRY e { a = f32[5] parameter(0) b = f32[5] parameter(1)\n"
		"ROOT r = pred[5] compare(a, b), direction=EQ, type=TOTALORDER }",
		a, b, teq, 5);
}
END_TEST

START_TEST(bf16_arith)
{
	double a[] = {1, 256, 3};
	double b[] = {0.00390625, 1, 0.1};
	/* 1 + 2^-8 ties to even (1); 256 + 1 is a tie too (256); 3.1 */
	double want[] = {1, 256, 3.09375};

	expect2("ENTRY e { a = bf16[3] parameter(0) b = bf16[3] parameter(1)\n"
		"ROOT r = bf16[3] add(a, b) }", a, b, want, 3);
}
END_TEST

/* integers */

START_TEST(int_division)
{
	double a[] = {7, -7, 5, -2147483648.0, -7};
	double b[] = {2, 2, 0, -1, -2};
	double q[] = {3, -3, -1, -2147483648.0, 3};
	double r[] = {1, -1, 5, 0, -1};
	double ua[] = {5, 7}, ub[] = {0, 2}, uq[] = {4294967295.0, 3};
	double ur[] = {5, 1};

	expect2("ENTRY e { a = s32[5] parameter(0) b = s32[5] parameter(1)\n"
		"ROOT r = s32[5] divide(a, b) }", a, b, q, 5);
	expect2("ENTRY e { a = s32[5] parameter(0) b = s32[5] parameter(1)\n"
		"ROOT r = s32[5] remainder(a, b) }", a, b, r, 5);
	expect2("ENTRY e { a = u32[2] parameter(0) b = u32[2] parameter(1)\n"
		"ROOT r = u32[2] divide(a, b) }", ua, ub, uq, 2);
	expect2("ENTRY e { a = u32[2] parameter(0) b = u32[2] parameter(1)\n"
		"ROOT r = u32[2] remainder(a, b) }", ua, ub, ur, 2);
}
END_TEST

START_TEST(int_shifts_bits)
{
	double a[] = {1, -8, -8, 1};
	double b[] = {32, 40, 1, -1};
	double shl[] = {0, 0, -16, 0};
	double shra[] = {0, -1, -4, 0};
	double shrl[] = {0, 0, 2147483644.0, 0};
	double x[] = {127, -128, 100}, y[] = {1, -1, 100};
	double s8add[] = {-128, 127, -56};
	double u[] = {0xF0, 1, 0}, pc[] = {4, 1, 0}, clz[] = {24, 31, 32};

	expect2("ENTRY e { a = s32[4] parameter(0) b = s32[4] parameter(1)\n"
		"ROOT r = s32[4] shift-left(a, b) }", a, b, shl, 4);
	expect2("ENTRY e { a = s32[4] parameter(0) b = s32[4] parameter(1)\n"
		"ROOT r = s32[4] shift-right-arithmetic(a, b) }", a, b, shra, 4);
	expect2("ENTRY e { a = s32[4] parameter(0) b = s32[4] parameter(1)\n"
		"ROOT r = s32[4] shift-right-logical(a, b) }", a, b, shrl, 4);
	expect2("ENTRY e { a = s8[3] parameter(0) b = s8[3] parameter(1)\n"
		"ROOT r = s8[3] add(a, b) }", x, y, s8add, 3);
	expect1("ENTRY e { a = u32[3] parameter(0)\n"
		"ROOT r = u32[3] popcnt(a) }", u, pc, 3);
	expect1("ENTRY e { a = u32[3] parameter(0)\n"
		"ROOT r = u32[3] count-leading-zeros(a) }", u, clz, 3);
}
END_TEST

/* convert */

START_TEST(convert_float_int)
{
	double a[] = {NAN, INFINITY, -INFINITY, 3e9, -2.7, 2.7, -3e9};
	double s32[] = {0, 2147483647.0, -2147483648.0, 2147483647.0, -2, 2,
		-2147483648.0};
	double b[] = {-1, 300, 255.9, NAN, 0.5};
	double u8[] = {0, 255, 255, 0, 0};
	double c[] = {0.5, -0.0, NAN, 0};
	double pr[] = {1, 0, 1, 0};
	double i[] = {16777217, 16777219, -16777217};
	double f[] = {16777216, 16777220, -16777216};

	expect1("ENTRY e { a = f32[7] parameter(0)\n"
		"ROOT r = s32[7] convert(a) }", a, s32, 7);
	expect1("ENTRY e { a = f32[5] parameter(0)\n"
		"ROOT r = u8[5] convert(a) }", b, u8, 5);
	expect1("ENTRY e { a = f32[4] parameter(0)\n"
		"ROOT r = pred[4] convert(a) }", c, pr, 4);
	expect1("ENTRY e { a = s32[3] parameter(0)\n"
		"ROOT r = f32[3] convert(a) }", i, f, 3);
}
END_TEST

/* xla's evaluator: round |x| up when the random bits are below the
 * fraction in fixed point, truncated (fraction * 2^16 < 1 never rounds
 * up); NaN is 0, values past the range saturate */
START_TEST(stochastic_convert)
{
	double x[] = {-0x1p-20, 0x1p-20, 2.5, 2.5, -2.5, NAN, 300, -300,
		0x1p-16, 0x1p-16};
	double r[] = {0, 0, 32767, 32768, 0, 0, 0, 0, 0, 1};
	double want[] = {0, 0, 3, 2, -3, 0, 127, -128, 1, 0};

	expect2("ENTRY e { a = f32[10] parameter(0)\n"
		"b = u16[10] parameter(1)\n"
		"ROOT r = s8[10] stochastic-convert(a, b) }", x, r, want, 10);
}
END_TEST

START_TEST(convert_narrow_floats)
{
	double a[] = {1.00390625, 1.01171875, 1.00390649, NAN, -0.0, 3.4e38,
		-INFINITY};
	double bf[] = {1, 1.015625, 1.0078125, NAN, -0.0, INFINITY,
		-INFINITY};
	double h[] = {65520, 65519, 1e-8, 3e-8, -0.0, 1e5, 0.1};
	double hw[] = {INFINITY, 65504, 0, 5.9604644775390625e-08, -0.0,
		INFINITY, 0.0999755859375};
	double f8[] = {500, 449, -448, 0.0009, NAN, 17};
	double f8w[] = {NAN, 448, -448, 0, NAN, 16};
	double e5[] = {1.125, 1.375, 60000, 0.3};
	double e5w[] = {1, 1.5, 57344, 0.3125};
	double g[] = {1e40, -1e40, 0.3};
	double gw[] = {INFINITY, -INFINITY, 0.30000001192092896};
	/* bf16 of 3.4e38 is past the midpoint above 0x7f7f: inf */
	expect1("ENTRY e { a = f32[7] parameter(0) b = bf16[7] convert(a)\n"
		"ROOT r = f32[7] convert(b) }", a, bf, 7);
	expect1("ENTRY e { a = f32[7] parameter(0) b = f16[7] convert(a)\n"
		"ROOT r = f32[7] convert(b) }", h, hw, 7);
	expect1("ENTRY e { a = f32[6] parameter(0) b = f8e4m3fn[6] convert(a)\n"
		"ROOT r = f32[6] convert(b) }", f8, f8w, 6);
	expect1("ENTRY e { a = f32[4] parameter(0) b = f8e5m2[4] convert(a)\n"
		"ROOT r = f32[4] convert(b) }", e5, e5w, 4);
	expect1("ENTRY e { a = f64[3] parameter(0)\n"
		"ROOT r = f32[3] convert(a) }", g, gw, 3);
}
END_TEST

START_TEST(bitcast_convert)
{
	double a[] = {1, -2};
	double w[] = {1065353216, -1073741824};
	double u[] = {0x3f80, 0xc000};
	double b[] = {0, 16256, 0, 49152};

	expect1("ENTRY e { a = f32[2] parameter(0)\n"
		"ROOT r = s32[2] bitcast-convert(a) }", a, w, 2);
	expect1("ENTRY e { a = bf16[2] parameter(0)\n"
		"ROOT r = u16[2] bitcast-convert(a) }", a, u, 2);
	expect1("ENTRY e { a = f32[2] parameter(0)\n"
		"ROOT r = u16[2,2] bitcast-convert(a) }", a, b, 4);
}
END_TEST

/* data movement */

START_TEST(data_movement)
{
	double a[] = {0, 1, 2, 3, 4, 5};
	double tr[] = {0, 3, 1, 4, 2, 5};
	double sl[] = {1, 4};
	double rv[] = {5, 4, 3, 2, 1, 0};
	double bc[] = {0, 0, 1, 1, 2, 2};
	double x[] = {1, 2, 3}, pv[] = {9};
	double pd[] = {9, 2, 9, 3, 9, 9};
	double io[] = {0, 1, 2, 0, 1, 2};
	double cc[] = {1, 2, 3, 1, 2, 3};

	expect1("ENTRY e { a = f32[2,3] parameter(0)\n"
		"ROOT r = f32[3,2] transpose(a), dimensions={1,0} }", a, tr, 6);
	expect1("ENTRY e { a = f32[2,3] parameter(0)\n"
		"ROOT r = f32[2,1] slice(a), slice={[0:2], [1:3:2]} }", a, sl, 2);
	expect1("ENTRY e { a = f32[2,3] parameter(0)\n"
		"ROOT r = f32[2,3] reverse(a), dimensions={0,1} }", a, rv, 6);
	expect1("ENTRY e { a = f32[3] parameter(0)\n"
		"ROOT r = f32[3,2] broadcast(a), dimensions={0} }", a, bc, 6);
	expect2("ENTRY e { a = f32[3] parameter(0) v = f32[] parameter(1)\n"
		"ROOT r = f32[6] pad(a, v), padding=-1_2_1 }", x, pv, pd, 6);
	expect1("ENTRY e { a = f32[3] parameter(0)\n"
		"ROOT r = s32[2,3] iota(), iota_dimension=1 }", a, io, 6);
	expect1("ENTRY e { a = f32[3] parameter(0)\n"
		"ROOT r = f32[6] concatenate(a, a), dimensions={0} }", x, cc, 6);
}
END_TEST

START_TEST(dynamic_slices)
{
	double a[] = {0, 1, 2, 3, 4};
	double s4[] = {4}, sm[] = {-1}, s2[] = {2};
	double w4[] = {3, 4}, wm[] = {0, 1}, w2[] = {2, 3};
	double u[] = {7, 8};
	double d4[] = {0, 1, 2, 7, 8};
	const double *in[3] = {a, u, s4};

	expect2("ENTRY e { a = f32[5] parameter(0) s = s32[] parameter(1)\n"
		"ROOT r = f32[2] dynamic-slice(a, s), dynamic_slice_sizes={2} }",
		a, s4, w4, 2);
	expect2("ENTRY e { a = f32[5] parameter(0) s = s32[] parameter(1)\n"
		"ROOT r = f32[2] dynamic-slice(a, s), dynamic_slice_sizes={2} }",
		a, sm, wm, 2);
	expect2("ENTRY e { a = f32[5] parameter(0) s = s32[] parameter(1)\n"
		"ROOT r = f32[2] dynamic-slice(a, s), dynamic_slice_sizes={2} }",
		a, s2, w2, 2);
	expect("ENTRY e { a = f32[5] parameter(0) u = f32[2] parameter(1)\n"
		"s = s32[] parameter(2)\n"
		"ROOT r = f32[5] dynamic-update-slice(a, u, s) }", in, 0, d4, 5);
}
END_TEST

/* dot */

static void
naive_bmm(const double *a, const double *b, double *c, int B, int M,
	int N, int K)
{
	int x, i, j, k;

	for (x = 0; x < B; x++)
		for (i = 0; i < M; i++)
			for (j = 0; j < N; j++) {
				double s = 0;

				for (k = 0; k < K; k++)
					s += a[(x * M + i) * K + k] *
						b[(x * K + k) * N + j];
				c[(x * M + i) * N + j] = s;
			}
}

START_TEST(dot_batch)
{
	double a[12], b[12], c[8], at[12];
	int k, i;

	for (k = 0; k < 12; k++) {
		a[k] = k % 5 - 2;
		b[k] = (k * 7) % 4 - 1;
	}
	naive_bmm(a, b, c, 2, 2, 2, 3);
	expect2("ENTRY e { a = f32[2,2,3] parameter(0)\n"
		"b = f32[2,3,2] parameter(1)\n"
		"ROOT r = f32[2,2,2] dot(a, b), lhs_batch_dims={0}, "
		"lhs_contracting_dims={2}, rhs_batch_dims={0}, "
		"rhs_contracting_dims={1} }", a, b, c, 8);
	expect2("ENTRY e { a = s32[2,2,3] parameter(0)\n"
		"b = s32[2,3,2] parameter(1)\n"
		"ROOT r = s32[2,2,2] dot(a, b), lhs_batch_dims={0}, "
		"lhs_contracting_dims={2}, rhs_batch_dims={0}, "
		"rhs_contracting_dims={1} }", a, b, c, 8);
	/* the lhs transposed: [3,2] contracting dim 0 */
	for (i = 0; i < 2; i++)
		for (k = 0; k < 3; k++)
			at[k * 2 + i] = a[i * 3 + k];
	expect2("ENTRY e { a = f32[3,2] parameter(0)\n"
		"b = f32[3,2] parameter(1)\n"
		"ROOT r = f32[2,2] dot(a, b), lhs_contracting_dims={0}, "
		"rhs_contracting_dims={0} }", at, b, c, 4);
}
END_TEST

START_TEST(dot_large)
{
	/* big enough for the blocked kernel and two threads */
	enum { M = 70, N = 90, K = 300 };
	static double a[M * K], b[K * N], c[M * N];
	char text[512];
	int k;

	for (k = 0; k < M * K; k++)
		a[k] = (k * 13) % 7 - 3;
	for (k = 0; k < K * N; k++)
		b[k] = (k * 5) % 3 - 1;
	naive_bmm(a, b, c, 1, M, N, K);
	snprintf(text, sizeof text, "ENTRY e { a = f32[%d,%d] parameter(0)\n"
		"b = f32[%d,%d] parameter(1)\n"
		"ROOT r = f32[%d,%d] dot(a, b), lhs_contracting_dims={1}, "
		"rhs_contracting_dims={0} }", M, K, K, N, M, N);
	expect2(text, a, b, c, M * N);
}
END_TEST

/* convolution against a direct implementation of XLA's definition, in
 * NHWC / HWIO / NHWC, on small integers so every sum is exact */

typedef struct {
	int B, H, W, C, KH, KW, Co;
	int sh, sw, plh, phh, plw, phw, lh, lw, rh, rw, fgc, bgc;
} ConvCase;

static void
ref_conv(const ConvCase *p, const double *x, const double *k, double *o,
	int *OH, int *OW)
{
	int dh = (p->H - 1) * p->lh + 1 + p->plh + p->phh;
	int dw = (p->W - 1) * p->lw + 1 + p->plw + p->phw;
	int wh = (p->KH - 1) * p->rh + 1, ww = (p->KW - 1) * p->rw + 1;
	int Bo = p->B / p->bgc, cig = p->C / p->fgc;
	int cofg = p->Co / p->fgc, cobg = p->Co / p->bgc;
	int b, y, xx, oc, ky, kx, ci;

	*OH = (dh - wh) / p->sh + 1;
	*OW = (dw - ww) / p->sw + 1;
	for (b = 0; b < Bo; b++)
		for (y = 0; y < *OH; y++)
			for (xx = 0; xx < *OW; xx++)
				for (oc = 0; oc < p->Co; oc++) {
					double s = 0;
					int fg = oc / cofg, bg = oc / cobg;
					int ib = b + bg * Bo;

					for (ky = 0; ky < p->KH; ky++)
						for (kx = 0; kx < p->KW; kx++) {
							int iy = y * p->sh - p->plh +
								ky * p->rh;
							int ix = xx * p->sw - p->plw +
								kx * p->rw;

							if (iy < 0 || ix < 0 ||
							    iy % p->lh || ix % p->lw)
								continue;
							iy /= p->lh;
							ix /= p->lw;
							if (iy >= p->H || ix >= p->W)
								continue;
							for (ci = 0; ci < cig; ci++)
								s += x[((ib * p->H + iy) *
									p->W + ix) * p->C +
									fg * cig + ci] *
									k[((ky * p->KW + kx) *
									cig + ci) * p->Co + oc];
						}
					o[((b * *OH + y) * *OW + xx) * p->Co + oc] =
						s;
				}
}

static void
conv_case(const ConvCase *p)
{
	static double x[4096], k[4096], o[8192];
	char text[1024];
	int n, oh, ow, j;

	for (j = 0; j < p->B * p->H * p->W * p->C; j++)
		x[j] = (j * 7 + 3) % 5 - 2;
	for (j = 0; j < p->KH * p->KW * (p->C / p->fgc) * p->Co; j++)
		k[j] = (j * 3 + 1) % 4 - 2;
	ref_conv(p, x, k, o, &oh, &ow);
	n = p->B / p->bgc * oh * ow * p->Co;
	snprintf(text, sizeof text,
		"ENTRY e { x = f32[%d,%d,%d,%d] parameter(0)\n"
		"k = f32[%d,%d,%d,%d] parameter(1)\n"
		"ROOT r = f32[%d,%d,%d,%d] convolution(x, k), "
		"window={size=%dx%d stride=%dx%d pad=%d_%dx%d_%d "
		"lhs_dilate=%dx%d rhs_dilate=%dx%d}, dim_labels=b01f_01io->b01f, "
		"feature_group_count=%d, batch_group_count=%d }",
		p->B, p->H, p->W, p->C, p->KH, p->KW, p->C / p->fgc, p->Co,
		p->B / p->bgc, oh, ow, p->Co, p->KH, p->KW, p->sh, p->sw,
		p->plh, p->phh, p->plw, p->phw, p->lh, p->lw, p->rh, p->rw,
		p->fgc, p->bgc);
	expect2(text, x, k, o, n);
}

/* a rank-4 array in canonical order (c0 c1 c2 c3, named by canon) laid
 * out in the order lab names */
static void
relayout(const double *src, const int *dims, const char *canon,
	const char *lab, double *dst, int *ndims)
{
	int perm[4], i, j, idx[4], n = dims[0] * dims[1] * dims[2] * dims[3];
	int k, o;

	for (i = 0; i < 4; i++)
		for (j = 0; j < 4; j++)
			if (lab[i] == canon[j])
				perm[i] = j;
	for (i = 0; i < 4; i++)
		ndims[i] = dims[perm[i]];
	for (k = 0; k < n; k++) {
		o = k;
		for (i = 3; i >= 0; i--) {
			idx[i] = o % dims[i];
			o /= dims[i];
		}
		o = 0;
		for (i = 0; i < 4; i++)
			o = o * ndims[i] + idx[perm[i]];
		dst[o] = src[k];
	}
}

static void
conv_case_labels(const ConvCase *p, const char *il, const char *kl,
	const char *ol)
{
	static double x[4096], k[4096], o[8192], xv[4096], kv[4096], ov[8192];
	char text[1024];
	int n, oh, ow, j, xd[4], kd[4], od[4], xn[4], kn[4], on[4];

	for (j = 0; j < p->B * p->H * p->W * p->C; j++)
		x[j] = (j * 7 + 3) % 5 - 2;
	for (j = 0; j < p->KH * p->KW * (p->C / p->fgc) * p->Co; j++)
		k[j] = (j * 3 + 1) % 4 - 2;
	ref_conv(p, x, k, o, &oh, &ow);
	n = p->B / p->bgc * oh * ow * p->Co;
	xd[0] = p->B; xd[1] = p->H; xd[2] = p->W; xd[3] = p->C;
	kd[0] = p->KH; kd[1] = p->KW; kd[2] = p->C / p->fgc; kd[3] = p->Co;
	od[0] = p->B / p->bgc; od[1] = oh; od[2] = ow; od[3] = p->Co;
	relayout(x, xd, "b01f", il, xv, xn);
	relayout(k, kd, "01io", kl, kv, kn);
	relayout(o, od, "b01f", ol, ov, on);
	snprintf(text, sizeof text,
		"ENTRY e { x = f32[%d,%d,%d,%d] parameter(0)\n"
		"k = f32[%d,%d,%d,%d] parameter(1)\n"
		"ROOT r = f32[%d,%d,%d,%d] convolution(x, k), "
		"window={size=%dx%d stride=%dx%d pad=%d_%dx%d_%d "
		"lhs_dilate=%dx%d rhs_dilate=%dx%d}, dim_labels=%s_%s->%s, "
		"feature_group_count=%d, batch_group_count=%d }",
		xn[0], xn[1], xn[2], xn[3], kn[0], kn[1], kn[2], kn[3],
		on[0], on[1], on[2], on[3], p->KH, p->KW, p->sh, p->sw,
		p->plh, p->phh, p->plw, p->phw, p->lh, p->lw, p->rh, p->rw,
		il, kl, ol, p->fgc, p->bgc);
	expect2(text, xv, kv, ov, n);
}

START_TEST(conv_layouts)
{
	/* B H W C KH KW Co  sh sw plh phh plw phw lh lw rh rw fgc bgc */
	static const ConvCase cases[] = {
		{2, 5, 5, 3, 3, 3, 4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		{2, 4, 4, 3, 1, 1, 5, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1},
		{1, 7, 6, 2, 3, 2, 3, 2, 2, 0, 1, 1, 0, 1, 1, 2, 1, 1, 1},
		{2, 5, 5, 4, 3, 3, 8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 4, 1},
		{2, 6, 6, 4, 3, 3, 4, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 4, 1},
		{1, 3, 3, 4, 3, 3, 4, 1, 1, 1, 2, 1, 2, 2, 2, 1, 1, 4, 1},
		{4, 5, 5, 2, 5, 5, 4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 4},
		{4, 6, 6, 2, 6, 6, 4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 4},
		{3, 4, 4, 2, 4, 4, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1},
		{4, 4, 4, 2, 4, 4, 6, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2},
		{2, 4, 5, 4, 2, 2, 6, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 2, 1},
		/* depthwise with rows wide enough for the vector loops:
		 * stride 2, then base (lhs) dilation */
		{1, 5, 40, 2, 3, 3, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1},
		{1, 5, 41, 2, 3, 3, 2, 2, 2, 1, 0, 1, 0, 1, 1, 1, 1, 2, 1},
		{1, 4, 24, 2, 3, 3, 2, 1, 1, 1, 2, 1, 2, 2, 2, 1, 1, 2, 1},
		{1, 4, 30, 2, 3, 3, 2, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 2, 1},
		/* base dilation with odd padding, strides 2 and 3, and
		 * window dilation with a channel multiplier */
		{1, 4, 20, 2, 3, 3, 2, 1, 1, 3, 1, 3, 1, 2, 2, 1, 1, 2, 1},
		{1, 4, 20, 2, 3, 3, 2, 2, 3, 1, 1, 2, 2, 2, 2, 1, 1, 2, 1},
		{1, 5, 21, 2, 3, 3, 4, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1},
	};
	static const char *labs[][3] = {
		{"bf01", "oi01", "bf01"}, {"fb01", "io01", "01bf"},
		{"bf01", "01oi", "bf01"}, {"b01f", "01oi", "bf01"},
	};
	size_t j, l;

	for (j = 0; j < sizeof cases / sizeof cases[0]; j++)
		for (l = 0; l < sizeof labs / sizeof labs[0]; l++)
			conv_case_labels(&cases[j], labs[l][0], labs[l][1],
				labs[l][2]);
}
END_TEST

START_TEST(conv_windows)
{
	/* B H W C KH KW Co  sh sw plh phh plw phw lh lw rh rw fgc bgc */
	static const ConvCase cases[] = {
		{2, 5, 5, 3, 3, 3, 4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		{2, 4, 4, 3, 1, 1, 5, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1},
		{1, 7, 6, 2, 3, 2, 3, 2, 2, 0, 1, 1, 0, 1, 1, 2, 1, 1, 1},
		{2, 5, 5, 4, 3, 3, 8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 4, 1},
		{2, 5, 5, 4, 3, 3, 4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 4, 1},
		{1, 4, 5, 4, 2, 2, 6, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 2, 1},
		{4, 3, 3, 2, 3, 3, 6, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2},
		{1, 3, 3, 2, 3, 3, 2, 1, 1, 1, 2, 1, 2, 2, 2, 1, 1, 1, 1},
		{3, 4, 4, 2, 4, 4, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1},
		{4, 4, 4, 2, 4, 4, 6, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2},
		{4, 4, 4, 3, 1, 1, 6, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2},
	};
	size_t j;

	for (j = 0; j < sizeof cases / sizeof cases[0]; j++)
		conv_case(&cases[j]);
}
END_TEST

START_TEST(conv_labels)
{
	/* the same 3x3 convolution in NCHW / OIHW layouts */
	static double x[2 * 3 * 4 * 4], k[3 * 3 * 3 * 2], o[2 * 2 * 4 * 4];
	static double xn[96], kn[54], on[64];
	ConvCase p = {2, 4, 4, 3, 3, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
	int b, c, y, xx, oc, ky, kx, oh, ow;

	for (b = 0; b < 96; b++)
		xn[b] = (b * 7 + 3) % 5 - 2;
	for (b = 0; b < 54; b++)
		kn[b] = (b * 3 + 1) % 4 - 2;
	ref_conv(&p, xn, kn, on, &oh, &ow);
	for (b = 0; b < 2; b++)
		for (c = 0; c < 3; c++)
			for (y = 0; y < 4; y++)
				for (xx = 0; xx < 4; xx++)
					x[((b * 3 + c) * 4 + y) * 4 + xx] =
						xn[((b * 4 + y) * 4 + xx) * 3 + c];
	for (oc = 0; oc < 2; oc++)
		for (c = 0; c < 3; c++)
			for (ky = 0; ky < 3; ky++)
				for (kx = 0; kx < 3; kx++)
					k[((oc * 3 + c) * 3 + ky) * 3 + kx] =
						kn[((ky * 3 + kx) * 3 + c) * 2 + oc];
	for (b = 0; b < 2; b++)
		for (oc = 0; oc < 2; oc++)
			for (y = 0; y < 4; y++)
				for (xx = 0; xx < 4; xx++)
					o[((b * 2 + oc) * 4 + y) * 4 + xx] =
						on[((b * 4 + y) * 4 + xx) * 2 + oc];
	expect2("ENTRY e { x = f32[2,3,4,4] parameter(0)\n"
		"k = f32[2,3,3,3] parameter(1)\n"
		"ROOT r = f32[2,2,4,4] convolution(x, k), "
		"window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01 }",
		x, k, o, 64);
}
END_TEST

/* a zero weight still meets every input element: 0 * inf is NaN, as in
 * XLA (the direct depthwise loop once skipped zero weights) */
START_TEST(conv_zero_weight_nan)
{
	double x[] = {1, INFINITY, 1, 1, 1, 1, 1, 1, 1, 1};
	double k[] = {0, 1, 0, 1, 1, 1};
	double want[] = {NAN, INFINITY, NAN, 1, 1, 2, 3, 3, 3, 2};

	expect2("ENTRY e { x = f32[1,2,1,5] parameter(0)\n"
		"k = f32[2,1,1,3] parameter(1)\n"
		"ROOT r = f32[1,2,1,5] convolution(x, k), window={size=1x3 "
		"pad=0_0x1_1}, dim_labels=bf01_oi01->bf01, "
		"feature_group_count=2 }", x, k, want, 10);
}
END_TEST

/* reductions */

static const char *sumcomp = "add_f {\n"
	"  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
	"  ROOT s = f32[] add(a, b)\n}\n";

START_TEST(reduce_sum_max)
{
	double a[24], want[3], mx[2] = {-INFINITY, -INFINITY};
	char text[1024];
	int i, j, k;

	for (k = 0; k < 24; k++)
		a[k] = k % 7 - 3;
	for (j = 0; j < 3; j++) {
		want[j] = 10;
		for (i = 0; i < 2; i++)
			for (k = 0; k < 4; k++)
				want[j] += a[(i * 3 + j) * 4 + k];
	}
	snprintf(text, sizeof text, "%sENTRY e { a = f32[2,3,4] parameter(0)\n"
		"z = f32[] constant(10)\n"
		"ROOT r = f32[3] reduce(a, z), dimensions={0,2}, "
		"to_apply=add_f }", sumcomp);
	expect1(text, a, want, 3);
	for (k = 0; k < 24; k++)
		mx[k / 12] = fmax(mx[k / 12], a[k]);
	expect1("max_f { a = f32[] parameter(0) b = f32[] parameter(1)\n"
		"ROOT m = f32[] maximum(a, b) }\n"
		"ENTRY e { a = f32[2,12] parameter(0)\n"
		"z = f32[] constant(-inf)\n"
		"ROOT r = f32[2] reduce(a, z), dimensions={1}, "
		"to_apply=max_f }", a, mx, 2);
}
END_TEST

START_TEST(reduce_ordered_and_variadic)
{
	double a[] = {1, 2, 3, 4, 5, 6};
	double sub[] = {-6, -15};
	double v[] = {3, 9, 9, 1, 0, 9};
	double i[] = {0, 1, 2, 3, 4, 5};
	double am[] = {1}, av[] = {9};
	const double *in[2] = {v, i};

	/* a non-commutative reducer folds in order: ((0 - 1) - 2) - 3 */
	expect1("sub_f { a = f32[] parameter(0) b = f32[] parameter(1)\n"
		"ROOT s = f32[] subtract(a, b) }\n"
		"ENTRY e { a = f32[2,3] parameter(0) z = f32[] constant(0)\n"
		"ROOT r = f32[2] reduce(a, z), dimensions={1}, "
		"to_apply=sub_f }", a, sub, 2);
	/* argmax: the first index of the largest value */
	expect("argmax { v0 = f32[] parameter(0) i0 = s32[] parameter(1)\n"
		"v1 = f32[] parameter(2) i1 = s32[] parameter(3)\n"
		"gt = pred[] compare(v1, v0), direction=GT\n"
		"vr = f32[] select(gt, v1, v0) ir = s32[] select(gt, i1, i0)\n"
		"ROOT t = (f32[], s32[]) tuple(vr, ir) }\n"
		"ENTRY e { v = f32[6] parameter(0) i = s32[6] parameter(1)\n"
		"mv = f32[] constant(-inf) mi = s32[] constant(-1)\n"
		"ROOT r = (f32[], s32[]) reduce(v, i, mv, mi), dimensions={0}, "
		"to_apply=argmax }", in, 1, am, 1);
	expect("argmax { v0 = f32[] parameter(0) i0 = s32[] parameter(1)\n"
		"v1 = f32[] parameter(2) i1 = s32[] parameter(3)\n"
		"gt = pred[] compare(v1, v0), direction=GT\n"
		"vr = f32[] select(gt, v1, v0) ir = s32[] select(gt, i1, i0)\n"
		"ROOT t = (f32[], s32[]) tuple(vr, ir) }\n"
		"ENTRY e { v = f32[6] parameter(0) i = s32[6] parameter(1)\n"
		"mv = f32[] constant(-inf) mi = s32[] constant(-1)\n"
		"ROOT r = (f32[], s32[]) reduce(v, i, mv, mi), dimensions={0}, "
		"to_apply=argmax }", in, 0, av, 1);
}
END_TEST

START_TEST(reduce_window)
{
	double a[16], mp[4], s[] = {1, 2, 3}, sw[] = {3, 6, 5};
	double d[] = {1, 2}, dw[] = {1, 1, 2, 2};
	char text[1024];
	int k, y, x;

	for (k = 0; k < 16; k++)
		a[k] = (k * 5) % 16;
	for (y = 0; y < 2; y++)
		for (x = 0; x < 2; x++)
			mp[y * 2 + x] = fmax(fmax(a[(2 * y) * 4 + 2 * x],
				a[(2 * y) * 4 + 2 * x + 1]),
				fmax(a[(2 * y + 1) * 4 + 2 * x],
				a[(2 * y + 1) * 4 + 2 * x + 1]));
	expect1("max_f { a = f32[] parameter(0) b = f32[] parameter(1)\n"
		"ROOT m = f32[] maximum(a, b) }\n"
		"ENTRY e { a = f32[4,4] parameter(0) z = f32[] constant(-inf)\n"
		"ROOT r = f32[2,2] reduce-window(a, z), "
		"window={size=2x2 stride=2x2}, to_apply=max_f }", a, mp, 4);
	snprintf(text, sizeof text, "%sENTRY e { a = f32[3] parameter(0)\n"
		"z = f32[] constant(0)\n"
		"ROOT r = f32[3] reduce-window(a, z), window={size=3 pad=1_1}, "
		"to_apply=add_f }", sumcomp);
	expect1(text, s, sw, 3);
	/* base dilation: [1, _, 2] padded by one on each side, windows of
	 * 2: {1, 1, 2, 2} */
	snprintf(text, sizeof text, "%sENTRY e { a = f32[2] parameter(0)\n"
		"z = f32[] constant(0)\n"
		"ROOT r = f32[4] reduce-window(a, z), "
		"window={size=2 pad=1_1 lhs_dilate=2}, to_apply=add_f }",
		sumcomp);
	expect1(text, d, dw, 4);
}
END_TEST

START_TEST(select_and_scatter)
{
	double a[] = {1, 5, 3, 2, 8, 4}, s[] = {10, 20};
	double want[] = {0, 10, 0, 0, 20, 0};

	expect2("ge { a = f32[] parameter(0) b = f32[] parameter(1)\n"
		"ROOT c = pred[] compare(a, b), direction=GE }\n"
		"add { a = f32[] parameter(0) b = f32[] parameter(1)\n"
		"ROOT c = f32[] add(a, b) }\n"
		"ENTRY e { a = f32[6] parameter(0) s = f32[2] parameter(1)\n"
		"z = f32[] constant(0)\n"
		"ROOT r = f32[6] select-and-scatter(a, s, z), "
		"window={size=3 stride=3}, select=ge, scatter=add }", a, s,
		want, 6);
}
END_TEST

/* gather and scatter */

START_TEST(gather_rows)
{
	double a[] = {0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32, 40, 41, 42};
	double ix[] = {4, 1, 7, -3};
	double want[] = {40, 41, 42, 10, 11, 12, 40, 41, 42, 0, 1, 2};

	expect2("ENTRY e { a = f32[5,3] parameter(0) i = s32[4] parameter(1)\n"
		"ROOT g = f32[4,3] gather(a, i), offset_dims={1}, "
		"collapsed_slice_dims={0}, start_index_map={0}, "
		"index_vector_dim=1, slice_sizes={1,3} }", a, ix, want, 12);
}
END_TEST

START_TEST(scatter_add)
{
	double z[] = {0, 0, 0, 0}, ix[] = {1, 1, 3, 9}, u[] = {1, 2, 3, 4};
	double want[] = {0, 3, 0, 3}, set[] = {0, 2, 0, 3};
	const double *in[3] = {z, ix, u};

	expect("add { a = f32[] parameter(0) b = f32[] parameter(1)\n"
		"ROOT c = f32[] add(a, b) }\n"
		"ENTRY e { z = f32[4] parameter(0) i = s32[4] parameter(1)\n"
		"u = f32[4] parameter(2)\n"
		"ROOT r = f32[4] scatter(z, i, u), update_window_dims={}, "
		"inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
		"index_vector_dim=1, to_apply=add }", in, 0, want, 4);
	expect("set { a = f32[] parameter(0) ROOT b = f32[] parameter(1) }\n"
		"ENTRY e { z = f32[4] parameter(0) i = s32[4] parameter(1)\n"
		"u = f32[4] parameter(2)\n"
		"ROOT r = f32[4] scatter(z, i, u), update_window_dims={}, "
		"inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
		"index_vector_dim=1, to_apply=set }", in, 0, set, 4);
}
END_TEST

/* sort */

static const char *sortmod =
	"%s\n"
	"ENTRY e { k = f32[6] parameter(0) v = s32[6] parameter(1)\n"
	"ROOT s = (f32[6], s32[6]) sort(k, v), dimensions={0}, "
	"is_stable=true, to_apply=cmp }";

START_TEST(sort_pairs)
{
	double k[] = {3, 1, 2, 1, 0, NAN}, v[] = {0, 1, 2, 3, 4, 5};
	double wk[] = {0, 1, 1, 2, 3, NAN}, wv[] = {4, 1, 3, 2, 0, 5};
	double dk[] = {3, 2, 1, 1, 0, NAN}, dv[] = {0, 2, 1, 3, 4, 5};
	const double *in[2] = {k, v};
	char text[2048];

	/* a plain compare: the key path */
	snprintf(text, sizeof text, sortmod, "cmp { a = f32[] parameter(0)\n"
		"b = f32[] parameter(1) c = s32[] parameter(2)\n"
		"d = s32[] parameter(3)\n"
		"ROOT lt = pred[] compare(a, b), direction=LT, type=TOTALORDER }");
	expect(text, in, 0, wk, 6);
	expect(text, in, 1, wv, 6);
	/* the same order through a comparator the key path cannot take */
	snprintf(text, sizeof text, sortmod, "cmp { a = f32[] parameter(0)\n"
		"b = f32[] parameter(1) c = s32[] parameter(2)\n"
		"d = s32[] parameter(3)\n"
		"lt = pred[] compare(a, b), direction=LT, type=TOTALORDER\n"
		"eq = pred[] compare(a, b), direction=EQ\n"
		"il = pred[] compare(c, d), direction=LT\n"
		"t = pred[] and(eq, il)\n"
		"ROOT o = pred[] or(lt, t) }");
	expect(text, in, 0, wk, 6);
	expect(text, in, 1, wv, 6);
	/* descending, NaN compares false both ways and stays put */
	snprintf(text, sizeof text, sortmod, "cmp { a = f32[] parameter(0)\n"
		"b = f32[] parameter(1) c = s32[] parameter(2)\n"
		"d = s32[] parameter(3)\n"
		"ROOT gt = pred[] compare(a, b), direction=GT }");
	expect(text, in, 0, dk, 6);
	expect(text, in, 1, dv, 6);
}
END_TEST

START_TEST(sort_dim0_and_topk)
{
	double a[] = {3, 0, 1, 5, 2, 4}, w[] = {1, 0, 2, 4, 3, 5};
	double t[] = {1, 9, 3, 9, 0}, tv[] = {9, 9, 3}, ti[] = {1, 3, 2};

	expect1("cmp { a = f32[] parameter(0) b = f32[] parameter(1)\n"
		"ROOT lt = pred[] compare(a, b), direction=LT }\n"
		"ENTRY e { a = f32[3,2] parameter(0)\n"
		"ROOT s = f32[3,2] sort(a), dimensions={0}, to_apply=cmp }", a,
		w, 6);
	expect1("ENTRY e { a = f32[5] parameter(0)\n"
		"t = (f32[3], s32[3]) topk(a), k=3, largest=true\n"
		"ROOT v = f32[3] get-tuple-element(t), index=0 }", t, tv, 3);
	expect1("ENTRY e { a = f32[5] parameter(0)\n"
		"t = (f32[3], s32[3]) topk(a), k=3, largest=true\n"
		"ROOT v = s32[3] get-tuple-element(t), index=1 }", t, ti, 3);
}
END_TEST

/* control flow */

START_TEST(while_loop)
{
	double n[] = {10}, want[] = {45};

	expect1("cond { p = (s32[], s32[], s32[]) parameter(0)\n"
		"i = s32[] get-tuple-element(p), index=0\n"
		"n = s32[] get-tuple-element(p), index=2\n"
		"ROOT lt = pred[] compare(i, n), direction=LT }\n"
		"body { p = (s32[], s32[], s32[]) parameter(0)\n"
		"i = s32[] get-tuple-element(p), index=0\n"
		"s = s32[] get-tuple-element(p), index=1\n"
		"n = s32[] get-tuple-element(p), index=2\n"
		"one = s32[] constant(1) i1 = s32[] add(i, one)\n"
		"s1 = s32[] add(s, i)\n"
		"ROOT t = (s32[], s32[], s32[]) tuple(i1, s1, n) }\n"
		"ENTRY e { n = s32[] parameter(0) z = s32[] constant(0)\n"
		"t = (s32[], s32[], s32[]) tuple(z, z, n)\n"
		"w = (s32[], s32[], s32[]) while(t), condition=cond, body=body\n"
		"ROOT r = s32[] get-tuple-element(w), index=1 }", n, want, 1);
}
END_TEST

START_TEST(conditionals)
{
	static const char *mod =
		"b0 { x = f32[] parameter(0) ROOT y = f32[] negate(x) }\n"
		"b1 { x = f32[] parameter(0) ROOT y = f32[] add(x, x) }\n"
		"b2 { x = f32[] parameter(0) ROOT y = f32[] multiply(x, x) }\n"
		"ENTRY e { i = s32[] parameter(0) x = f32[] parameter(1)\n"
		"ROOT c = f32[] conditional(i, x, x, x), "
		"branch_computations={b0, b1, b2} }";
	double x[] = {3}, i0[] = {0}, i1[] = {1}, i7[] = {7}, im[] = {-1};
	double w0[] = {-3}, w1[] = {6}, w2[] = {9};
	double t[] = {1}, f[] = {0};

	expect2(mod, i0, x, w0, 1);
	expect2(mod, i1, x, w1, 1);
	expect2(mod, i7, x, w2, 1);
	expect2(mod, im, x, w2, 1);
	mod = "bt { x = f32[] parameter(0) ROOT y = f32[] negate(x) }\n"
		"bf { x = f32[] parameter(0) ROOT y = f32[] add(x, x) }\n"
		"ENTRY e { p = pred[] parameter(0) x = f32[] parameter(1)\n"
		"ROOT c = f32[] conditional(p, x, x), true_computation=bt, "
		"false_computation=bf }";
	expect2(mod, t, x, w0, 1);
	expect2(mod, f, x, w1, 1);
}
END_TEST

START_TEST(call_map_fusion)
{
	double a[] = {1, 2, 3}, want[] = {3, 5, 7};

	expect1("f { x = f32[] parameter(0) y = f32[] add(x, x)\n"
		"one = f32[] constant(1) ROOT z = f32[] add(y, one) }\n"
		"fu { x = f32[3] parameter(0)\n"
		"ROOT m = f32[3] map(x), dimensions={0}, to_apply=f }\n"
		"ENTRY e { a = f32[3] parameter(0)\n"
		"ROOT r = f32[3] fusion(a), kind=kLoop, calls=fu }", a, want, 3);
}
END_TEST

/* batch norm */

START_TEST(batch_norm)
{
	double x[] = {1, 2, 3, 4}, sc[] = {2, 1}, of[] = {0, 1};
	double want[4];
	const double *in[3] = {x, sc, of};
	/* XLA's expansion in f32: var = E[x^2] - E[x]^2 = 1 exactly,
	 * rsqrt(var + eps) rounded to f32, then each step rounded */
	float m0 = 2, m1 = 3, e = 0.001f, v = 1, ve = v + e;
	float inv = (float)(1 / sqrt((double)ve)), t;

	/* features are dim 1: columns {1, 3} and {2, 4} */
	t = (1 - m0) * inv;
	want[0] = (float)(t * 2);
	t = (3 - m0) * inv;
	want[2] = (float)(t * 2);
	t = (2 - m1) * inv;
	t = t * 1;
	want[1] = t + 1;
	t = (4 - m1) * inv;
	t = t * 1;
	want[3] = t + 1;
	expect("ENTRY e { x = f32[2,2] parameter(0) s = f32[2] parameter(1)\n"
		"o = f32[2] parameter(2)\n"
		"ROOT b = (f32[2,2], f32[2], f32[2]) batch-norm-training(x, s, o), "
		"epsilon=0.001, feature_index=1 }", in, 0, want, 4);
}
END_TEST

/* opaque operations, determinism, limits */

START_TEST(opaque_model)
{
	static const char *mod =
		"ENTRY e { a = f32[4] parameter(0)\n"
		"x = f32[4] custom-call(a), custom_call_target=\"foo\"\n"
		"y = f32[4] custom-call(a), custom_call_target=\"foo\"\n"
		"z = f32[4] custom-call(a), custom_call_target=\"bar\"\n"
		"ROOT t = (f32[4], f32[4], f32[4]) tuple(x, y, z) }";
	double a[] = {1, 2, 3, 4}, b[] = {1, 2, 3, 5};
	double x[4], y[4], z[4], w[4];
	const double *in[1] = {a}, *in2[1] = {b};
	int k, diff = 0, diff2 = 0;

	ck_assert_int_eq(evalk(mod, in, 0, x, 4, NULL), 4);
	ck_assert_int_eq(evalk(mod, in, 1, y, 4, NULL), 4);
	ck_assert_int_eq(evalk(mod, in, 2, z, 4, NULL), 4);
	ck_assert_int_eq(evalk(mod, in2, 0, w, 4, NULL), 4);
	for (k = 0; k < 4; k++) {
		ck_assert(x[k] == y[k]);
		ck_assert(x[k] >= -1 && x[k] < 1);
		diff |= x[k] != z[k];
		diff2 |= x[k] != w[k];
	}
	ck_assert(diff && diff2);
}
END_TEST

/* an unknown custom-call's float result is a smooth function of its
 * operands: a small change of an input moves it by about as much */
START_TEST(opaque_smooth)
{
	static const char *mod =
		"ENTRY e { a = f32[4] parameter(0) b = f32[3] parameter(1)\n"
		"ROOT x = f32[6] custom-call(a, b), custom_call_target=\"Gelu\" }";
	double a[] = {0.1, 0.2, 0.3, 0.4}, a2[] = {0.1, 0.2, 0.30001, 0.4};
	double b[] = {-0.5, 0.5, 0.25}, x[6], y[6];
	const double *in[2] = {a, b}, *in2[2] = {a2, b};
	int k, diff = 0;

	ck_assert_int_eq(evalk(mod, in, 0, x, 6, NULL), 6);
	ck_assert_int_eq(evalk(mod, in2, 0, y, 6, NULL), 6);
	for (k = 0; k < 6; k++) {
		ck_assert(x[k] > -1 && x[k] < 1);
		ck_assert_msg(fabs(x[k] - y[k]) < 2e-5, "%d: %g vs %g", k,
			x[k], y[k]);
		diff |= x[k] != y[k];
	}
	ck_assert(diff);	/* but it does depend on the changed input */
}
END_TEST

/* collectives: every replica holds this one's data */
START_TEST(opaque_collectives)
{
	static const char *ar =
		"HloModule m, replica_count=4\n"
		"add { x = f32[] parameter(0) y = f32[] parameter(1)\n"
		"ROOT s = f32[] add(x, y) }\n"
		"mx { x = f32[] parameter(0) y = f32[] parameter(1)\n"
		"ROOT s = f32[] maximum(x, y) }\n"
		"ENTRY e { a = f32[2,3] parameter(0)\n"
		"r = f32[2,3] all-reduce(a), replica_groups={{0,1,2}}, to_apply=add\n"
		"q = f32[2,3] all-reduce(a), replica_groups={}, to_apply=add\n"
		"m = f32[2,3] all-reduce(a), replica_groups={{0,1,2}}, to_apply=mx\n"
		"g = f32[2,6] all-gather(a), replica_groups={{0,1}}, dimensions={1}\n"
		"s = f32[1,3] reduce-scatter(a), replica_groups={{0,1}}, "
		"dimensions={0}, to_apply=add\n"
		"p = f32[2,3] collective-permute(a), "
		"source_target_pairs={{0,1},{1,0}}\n"
		"t = f32[2,3] all-to-all(a), replica_groups={{0,1,2}}, dimensions={1}\n"
		"ROOT o = (f32[2,3], f32[2,3], f32[2,3], f32[2,6], f32[1,3], "
		"f32[2,3], f32[2,3]) tuple(r, q, m, g, s, p, t) }";
	double a[] = {1, 2, 3, 4, 5, 6.5}, o[12];
	const double *in[1] = {a};
	int k;

	ck_assert_int_eq(evalk(ar, in, 0, o, 12, NULL), 6);
	for (k = 0; k < 6; k++)
		ck_assert(o[k] == 3 * a[k]);
	ck_assert_int_eq(evalk(ar, in, 1, o, 12, NULL), 6);
	for (k = 0; k < 6; k++)	/* no groups: replica_count */
		ck_assert(o[k] == 4 * a[k]);
	ck_assert_int_eq(evalk(ar, in, 2, o, 12, NULL), 6);
	for (k = 0; k < 6; k++)
		ck_assert(o[k] == a[k]);
	ck_assert_int_eq(evalk(ar, in, 3, o, 12, NULL), 12);
	for (k = 0; k < 12; k++)
		ck_assert(o[k] == a[k / 6 * 3 + k % 3]);
	ck_assert_int_eq(evalk(ar, in, 4, o, 12, NULL), 3);
	for (k = 0; k < 3; k++)	/* the first block, summed twice */
		ck_assert(o[k] == 2 * a[k]);
	ck_assert_int_eq(evalk(ar, in, 5, o, 12, NULL), 6);
	for (k = 0; k < 6; k++)
		ck_assert(o[k] == a[k]);
	ck_assert_int_eq(evalk(ar, in, 6, o, 12, NULL), 6);
	for (k = 0; k < 6; k++)
		ck_assert(o[k] == a[k]);
}
END_TEST

/* a bf16 reduce accumulates in f32, as XLA:CPU after FloatNormalization */
START_TEST(bf16_reduce_f32_accumulation)
{
	static const char *mod =
		"add { x = bf16[] parameter(0) y = bf16[] parameter(1)\n"
		"ROOT s = bf16[] add(x, y) }\n"
		"ENTRY e { a = bf16[1000] parameter(0) z = bf16[] constant(0)\n"
		"ROOT r = bf16[] reduce(a, z), dimensions={0}, to_apply=add }";
	static double a[1000];
	const double *in[1] = {a};
	double o;
	int k;

	for (k = 0; k < 1000; k++)
		a[k] = 1;
	ck_assert_int_eq(evalk(mod, in, 0, &o, 1, NULL), 1);
	ck_assert_msg(o == 1000, "%g", o);	/* bf16 steps stop at 256 */
}
END_TEST

static char *
run_report_threads(const char *text, uint64_t seed, int threads)
{
	HloError e;
	HloModule *m = tu_parse(text, &e);
	HloInputHints h;
	HloEval ev;
	HloVal **args, *out;
	uint32_t n;
	HloBuf b = {0};

	ck_assert(m != NULL);
	hlo_eval_hints(m, &h);
	hlo_eval_init(&ev, m, 0, &e);
	if (threads)
		ev.threads = threads;
	ck_assert(hlo_eval_inputs(&ev, seed, &h, &args, &n) == 0);
	ck_assert_msg(hlo_eval_entry(&ev, args, n, &out) == 0, "%s", e.msg);
	hlo_eval_report(&ev, out, 1, &b);
	hlo_buf_put(&b, "", 1);
	hlo_val_unref(&ev, out);
	hlo_eval_free_args(&ev, args, n);
	hlo_eval_fini(&ev);
	hlo_eval_hints_free(&h);
	hlo_module_free(m);
	return b.buf;
}

static char *
run_report(const char *text, uint64_t seed)
{
	return run_report_threads(text, seed, 0);
}

/* big elementwise, batch-norm, convolution and dot work is split over
 * threads; the checksums must not depend on how many */
START_TEST(thread_count_independent)
{
	static const char *mod =
		"add { x = f32[] parameter(0) y = f32[] parameter(1)\n"
		"ROOT s = f32[] add(x, y) }\n"
		"ENTRY e { x = f32[8,24,20,20] parameter(0)\n"
		"k = f32[3,3,24,32] parameter(1)\n"
		"dw = f32[3,3,1,24] parameter(2)\n"
		"sc = f32[24] parameter(3) of = f32[24] parameter(4)\n"
		"w = f32[3200,96] parameter(5) v = f32[96,80] parameter(6)\n"
		"z = f32[] constant(0) six = f32[] constant(6)\n"
		"bn = (f32[8,24,20,20], f32[24], f32[24]) batch-norm-training(x, "
		"sc, of), epsilon=0.001, feature_index=1\n"
		"n = f32[8,24,20,20] get-tuple-element(bn), index=0\n"
		"lo = f32[8,24,20,20] broadcast(z), dimensions={}\n"
		"hi = f32[8,24,20,20] broadcast(six), dimensions={}\n"
		"r = f32[8,24,20,20] clamp(lo, n, hi)\n"
		"c = f32[8,32,20,20] convolution(r, k), window={size=3x3 "
		"pad=1_1x1_1}, dim_labels=bf01_01io->bf01\n"
		"d = f32[8,24,10,10] convolution(r, dw), window={size=3x3 "
		"stride=2x2 pad=1_1x1_1}, dim_labels=bf01_01io->bf01, "
		"feature_group_count=24\n"
		"g = pred[8,24,20,20] compare(n, lo), direction=GT\n"
		"s = f32[8,24,20,20] select(g, n, lo)\n"
		"t = f32[] reduce(s, z), dimensions={0,1,2,3}, to_apply=add\n"
		"p = f32[3200,80] dot(w, v), lhs_contracting_dims={1}, "
		"rhs_contracting_dims={0}\n"
		"vr = f32[24] get-tuple-element(bn), index=2\n"
		"ROOT o = (f32[8,32,20,20], f32[8,24,10,10], f32[], "
		"f32[3200,80], f32[24]) tuple(c, d, t, p, vr) }";
	char *r1 = run_report_threads(mod, 3, 1);
	char *r2 = run_report_threads(mod, 3, 2);
	char *r3 = run_report_threads(mod, 3, 5);

	ck_assert_str_eq(r1, r2);
	ck_assert_str_eq(r1, r3);
	ck_assert(strstr(r1, "\"nonfinite\":0"));
	free(r1);
	free(r2);
	free(r3);
}
END_TEST

/* the float fast paths of clamp and the bytewise and/or/xor keep the
 * reference semantics: the first NaN of (lo, x, hi) wins, signed zeros
 * as min(hi, max(x, lo)); s4, u4 and pred stored one per byte */
START_TEST(clamp_and_bits)
{
	double lo[] = {0, NAN, 0, 0, -0.0, 0, 1, 0};
	double x[] = {5, 1, NAN, 1, 0, 7, -3, -0.0};
	double hi[] = {6, 2, 2, NAN, 0, 6, 2, -0.0};
	double want[] = {5, NAN, NAN, NAN, 0, 6, 1, -0.0};
	const double *in[3] = {lo, x, hi};
	double a4[] = {-8, 7, -1, 5, 3, -6}, b4[] = {7, -8, -1, -3, 6, -6};
	double and4[] = {0, 0, -1, 5, 2, -6}, or4[] = {-1, -1, -1, -3, 7, -6};
	double xor4[] = {-1, -1, 0, -8, 5, 0};
	double ua[] = {15, 9, 0, 6}, ub[] = {1, 12, 15, 5};
	double uand[] = {1, 8, 0, 4}, uxor[] = {14, 5, 15, 3};
	double pa[] = {1, 1, 0, 0}, pb[] = {1, 0, 1, 0};
	double pand[] = {1, 0, 0, 0}, por[] = {1, 1, 1, 0};
	double pxor[] = {0, 1, 1, 0};
	double sx[] = {3, -1, 9, 0.5}, sclamp[] = {3, 0, 6, 0.5};

	expect("ENTRY e { l = f32[8] parameter(0) x = f32[8] parameter(1)\n"
		"h = f32[8] parameter(2)\n"
		"ROOT r = f32[8] clamp(l, x, h) }", in, 0, want, 8);
	expect("ENTRY e { l = bf16[8] parameter(0) x = bf16[8] parameter(1)\n"
		"h = bf16[8] parameter(2)\n"
		"ROOT r = bf16[8] clamp(l, x, h) }", in, 0, want, 8);
	expect1("ENTRY e { x = f32[4] parameter(0) z = f32[] constant(0)\n"
		"s = f32[] constant(6) l = f32[4] broadcast(z), dimensions={}\n"
		"h = f32[4] broadcast(s), dimensions={}\n"
		"ROOT r = f32[4] clamp(l, x, h) }", sx, sclamp, 4);
	expect2("ENTRY e { a = s4[6] parameter(0) b = s4[6] parameter(1)\n"
		"ROOT r = s4[6] and(a, b) }", a4, b4, and4, 6);
	expect2("ENTRY e { a = s4[6] parameter(0) b = s4[6] parameter(1)\n"
		"ROOT r = s4[6] or(a, b) }", a4, b4, or4, 6);
	expect2("ENTRY e { a = s4[6] parameter(0) b = s4[6] parameter(1)\n"
		"ROOT r = s4[6] xor(a, b) }", a4, b4, xor4, 6);
	expect2("ENTRY e { a = u4[4] parameter(0) b = u4[4] parameter(1)\n"
		"ROOT r = u4[4] and(a, b) }", ua, ub, uand, 4);
	expect2("ENTRY e { a = u4[4] parameter(0) b = u4[4] parameter(1)\n"
		"ROOT r = u4[4] xor(a, b) }", ua, ub, uxor, 4);
	expect2("ENTRY e { a = pred[4] parameter(0) b = pred[4] parameter(1)\n"
		"ROOT r = pred[4] and(a, b) }", pa, pb, pand, 4);
	expect2("ENTRY e { a = pred[4] parameter(0) b = pred[4] parameter(1)\n"
		"ROOT r = pred[4] or(a, b) }", pa, pb, por, 4);
	expect2("ENTRY e { a = pred[4] parameter(0) b = pred[4] parameter(1)\n"
		"ROOT r = pred[4] xor(a, b) }", pa, pb, pxor, 4);
	expect1("ENTRY e { a = pred[4] parameter(0) t = pred[] constant(true)\n"
		"b = pred[4] broadcast(t), dimensions={}\n"
		"ROOT r = pred[4] xor(a, b) }", pa, (double[]){0, 0, 1, 1}, 4);
}
END_TEST

/* the 32-bit integer fast path: wrap-around, shifts by 32 and more (or
 * a negative amount), arithmetic shifts of u32, signed and unsigned
 * min and max */
START_TEST(int32_fast_path)
{
	double ua[] = {4294967295.0, 2147483648.0, 7, 1, 0x80000001u};
	double ub[] = {1, 2147483648.0, 32, 31, 4};
	double uadd[] = {0, 0, 39, 32, 0x80000005u};
	double umul[] = {4294967295.0, 0, 224, 31, 4};
	double ushra[] = {4294967295.0, 4294967295.0, 0, 0, 0xf8000000u};
	double umax[] = {4294967295.0, 2147483648.0, 32, 31, 0x80000001u};
	double sa[] = {-1, -2147483648.0, 7, 5, -100};
	double sb[] = {1, -1, 33, -3, 2};
	double ssub[] = {-2, -2147483647.0, -26, 8, -102};
	double smin[] = {-1, -2147483648.0, 7, -3, -100};
	double sshl[] = {-2, 0, 0, 0, -400};
	double sshrl[] = {2147483647.0, 0, 0, 0, 1073741799.0};
	double sshra[] = {-1, -1, 0, 0, -25};

	expect2("ENTRY e { a = u32[5] parameter(0) b = u32[5] parameter(1)\n"
		"ROOT r = u32[5] add(a, b) }", ua, ub, uadd, 5);
	expect2("ENTRY e { a = u32[5] parameter(0) b = u32[5] parameter(1)\n"
		"ROOT r = u32[5] multiply(a, b) }", ua, ub, umul, 5);
	expect2("ENTRY e { a = u32[5] parameter(0) b = u32[5] parameter(1)\n"
		"ROOT r = u32[5] shift-right-arithmetic(a, b) }", ua, ub, ushra,
		5);
	expect2("ENTRY e { a = u32[5] parameter(0) b = u32[5] parameter(1)\n"
		"ROOT r = u32[5] maximum(a, b) }", ua, ub, umax, 5);
	expect2("ENTRY e { a = s32[5] parameter(0) b = s32[5] parameter(1)\n"
		"ROOT r = s32[5] subtract(a, b) }", sa, sb, ssub, 5);
	expect2("ENTRY e { a = s32[5] parameter(0) b = s32[5] parameter(1)\n"
		"ROOT r = s32[5] minimum(a, b) }", sa, sb, smin, 5);
	expect2("ENTRY e { a = s32[5] parameter(0) b = s32[5] parameter(1)\n"
		"ROOT r = s32[5] shift-left(a, b) }", sa, sb, sshl, 5);
	expect2("ENTRY e { a = s32[5] parameter(0) b = s32[5] parameter(1)\n"
		"ROOT r = s32[5] shift-right-logical(a, b) }", sa, sb, sshrl, 5);
	expect2("ENTRY e { a = s32[5] parameter(0) b = s32[5] parameter(1)\n"
		"ROOT r = s32[5] shift-right-arithmetic(a, b) }", sa, sb, sshra,
		5);
}
END_TEST

START_TEST(determinism)
{
	static const char *mod =
		"ENTRY e { a = f32[64,32] parameter(0) b = f32[32,16] parameter(1)\n"
		"i = s32[4] parameter(2)\n"
		"d = f32[64,16] dot(a, b), lhs_contracting_dims={1}, "
		"rhs_contracting_dims={0}\n"
		"g = f32[4,16] gather(d, i), offset_dims={1}, "
		"collapsed_slice_dims={0}, start_index_map={0}, "
		"index_vector_dim=1, slice_sizes={1,16}\n"
		"l = f32[4,16] exponential(g)\n"
		"ROOT t = (f32[4,16], f32[64,16]) tuple(l, d) }";
	char *r1 = run_report(mod, 7), *r2 = run_report(mod, 7);
	char *r3 = run_report(mod, 8);

	ck_assert_str_eq(r1, r2);
	ck_assert_str_ne(r1, r3);
	ck_assert(strstr(r1, "\"nonfinite\":0"));
	free(r1);
	free(r2);
	free(r3);
}
END_TEST

START_TEST(index_hints)
{
	static const char *mod =
		"add { a = f32[] parameter(0) b = f32[] parameter(1)\n"
		"ROOT c = f32[] add(a, b) }\n"
		"ENTRY e { z = f32[6] parameter(0) i = s32[40] parameter(1)\n"
		"u = f32[40] parameter(2) x = f32[8] parameter(3)\n"
		"lg = f32[8] log(x)\n"
		"s = f32[6] scatter(z, i, u), update_window_dims={}, "
		"inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
		"index_vector_dim=1, to_apply=add\n"
		"ROOT t = (f32[6], f32[8]) tuple(s, lg) }";
	HloError e;
	HloModule *m = tu_parse(mod, &e);
	HloInputHints h;

	ck_assert(m != NULL);
	hlo_eval_hints(m, &h);
	ck_assert_int_eq(h.n, 4);
	ck_assert_int_eq(h.bound[1], 6);
	ck_assert_int_eq(h.positive[3], 1);
	ck_assert_int_eq(h.positive[0], 0);
	hlo_eval_hints_free(&h);
	hlo_module_free(m);
}
END_TEST

START_TEST(memory_limit)
{
	HloError e;
	HloModule *m = tu_parse("ENTRY e { a = f32[1000] parameter(0)\n"
		"ROOT b = f32[1000] negate(a) }", &e);
	HloEval ev;
	HloInputHints h;
	HloVal **args;
	uint32_t n;

	ck_assert(m != NULL);
	hlo_eval_hints(m, &h);
	hlo_eval_init(&ev, m, 6000, &e);
	ck_assert(hlo_eval_inputs(&ev, 0, &h, &args, &n) == 0);
	ck_assert(hlo_eval_entry(&ev, args, n, &(HloVal *){0}) < 0);
	ck_assert_int_eq(ev.status, EV_NOEVAL);
	ck_assert(strstr(e.msg, "8000 bytes") != NULL);
	hlo_eval_free_args(&ev, args, n);
	hlo_eval_fini(&ev);
	hlo_eval_hints_free(&h);
	hlo_module_free(m);
}
END_TEST

START_TEST(unsupported_named)
{
	char msg[1024] = "";
	double a[] = {1, 2}, out[2];
	const double *in[1] = {a};

	ck_assert(evalk("ENTRY e { a = f32[2] parameter(0)\n"
		"ROOT b = f32[2] ragged-dot(a, a, a) }", in, 0, out, 2, msg) < 0);
	ck_assert_msg(strstr(msg, "ragged-dot") != NULL, "%s", msg);
}
END_TEST

/* the mutation test */

enum { MUT_ADD, MUT_CONST, MUT_SLICE, MUT_TRANSPOSE, MUT_N };

static const char *mutname[] = {"add->subtract", "constant value",
	"slice bound", "transpose permutation"};

static int
mutate_at(HloModule *m, uint32_t c, uint32_t i, int kind)
{
	HloInstr *in = hlo_ins(m, c, i);
	const HloShape *sh = hlo_sh(m, in->shape);
	const uint32_t *ops = hlo_ops(m, in);
	int cl = sh->type < TY_TUPLE ? hlo_typeinfo[sh->type].cls : C_OTHER;

	switch (kind) {
	case MUT_ADD:
		if (in->op != HOP_ADD || in->nops != 2 || ops[0] == ops[1] ||
		    cl == C_PRED || cl == C_OTHER)
			return 0;
		in->op = HOP_SUBTRACT;
		return 1;
	case MUT_CONST: {
		uint32_t nb;
		const unsigned char *lit = hlo_literal(m, in, &nb);
		unsigned char *buf;
		Lane l;
		HloAttr a;

		if (in->op != HOP_CONSTANT || !lit || cl == C_OTHER ||
		    hlo_shape_elems(m, in->shape) < 1 || cl == C_CPLX)
			return 0;
		buf = xmalloc(nb + 1);
		memcpy(buf, lit, nb);
		ev_lane_load(sh->type, buf, 1, &l);
		if (cl == C_FLOAT)
			l.f = l.f * 2 + 1;
		else if (cl == C_PRED)
			l.u = !l.u;
		else
			l.u += 1;
		ev_lane_store(sh->type, &l, 1, buf);
		a = hlo_mk_bytes(m, A_LITERAL, K_LITERAL, buf, nb);
		hlo_attr_set(m, c, i, &a);
		free(buf);
		return 1;
	}
	case MUT_SLICE: {
		const HloAttr *a = hlo_attr(m, in, A_SLICE);
		const HloShape *os;
		int64_t *t;
		uint32_t d;

		if (in->op != HOP_SLICE || !a || ops[0] >= m->comps[c].nins)
			return 0;
		os = hlo_sh(m, hlo_ins(m, c, ops[0])->shape);
		t = m->ints + a->v;
		for (d = 0; d < a->n / 3; d++) {
			if (t[3 * d] > 0) {
				t[3 * d]--;
				t[3 * d + 1]--;
				return 1;
			}
			if (t[3 * d + 1] < hlo_dims(m, os)[d]) {
				t[3 * d]++;
				t[3 * d + 1]++;
				return 1;
			}
		}
		return 0;
	}
	case MUT_TRANSPOSE: {
		const HloAttr *a = hlo_attr(m, in, A_DIMENSIONS);
		int64_t *p, x;
		uint32_t j, k;
		const int64_t *od = hlo_dims(m, sh);

		if (in->op != HOP_TRANSPOSE || !a)
			return 0;
		p = m->ints + a->v;
		for (j = 0; j < a->n; j++)
			for (k = j + 1; k < a->n; k++)
				if (od[j] == od[k] && od[j] > 1) {
					x = p[j];
					p[j] = p[k];
					p[k] = x;
					return 1;
				}
		return 0;
	}
	}
	return 0;
}

static int
would_mutate(HloModule *m, uint32_t c, uint32_t i, int kind)
{
	HloModule *x = hlo_module_clone(m);
	int r = mutate_at(x, c, i, kind);

	hlo_module_free(x);
	return r;
}

/* plants a change of the kind at the instruction of that kind nearest
 * the entry root (breadth first over operands, into called
 * computations through their roots), passing over the first skip such
 * instructions; 1 if planted */
static int
mutate(HloModule *m, int kind, int skip, char *where, size_t n)
{
	uint32_t nq = 0, h, c, i, k, total = 0, cc;
	uint32_t *qc, *qi;
	uint8_t **seen;
	int done = 0;

	for (c = 0; c < m->ncomps; c++)
		total += m->comps[c].nins;
	qc = xcalloc(total + 1, sizeof *qc);
	qi = xcalloc(total + 1, sizeof *qi);
	seen = xcalloc(m->ncomps + 1, sizeof *seen);
	for (c = 0; c < m->ncomps; c++)
		seen[c] = xcalloc(m->comps[c].nins + 1, 1);
	qc[nq] = m->entry;
	qi[nq++] = m->comps[m->entry].root;
	seen[m->entry][m->comps[m->entry].root] = 1;
	for (h = 0; h < nq && !done; h++) {
		HloInstr *in = hlo_ins(m, qc[h], qi[h]);

		if (skip > 0 && would_mutate(m, qc[h], qi[h], kind)) {
			skip--;
		} else if (mutate_at(m, qc[h], qi[h], kind)) {
			snprintf(where, n, "%s in %s", hlo_cstr(m, in->name),
				hlo_cstr(m, m->comps[qc[h]].name));
			done = 1;
			break;
		}
		for (k = 0; k < in->nops; k++) {
			i = hlo_ops(m, in)[k];
			if (i < m->comps[qc[h]].nins && !seen[qc[h]][i]) {
				seen[qc[h]][i] = 1;
				qc[nq] = qc[h];
				qi[nq++] = i;
			}
		}
		for (k = 0; k < in->ncalled; k++) {
			cc = hlo_called(m, in)[k];
			if (cc < m->ncomps && m->comps[cc].root <
			    m->comps[cc].nins && !seen[cc][m->comps[cc].root]) {
				seen[cc][m->comps[cc].root] = 1;
				qc[nq] = cc;
				qi[nq++] = m->comps[cc].root;
			}
		}
	}
	for (c = 0; c < m->ncomps; c++)
		free(seen[c]);
	free(seen);
	free(qc);
	free(qi);
	return done;
}

static HloModule *
load_small(const char *path)
{
	HloModule *m = NULL;
	HloError e;
	struct stat st;

	if (stat(path, &st) < 0 || st.st_size > 160000)
		return NULL;
	if (hlo_load(path, &m, &e) < 0)
		return NULL;
	return m;
}

/* 1 if the first difference exact comparison found is clearly outside
 * the tolerance (10 times), so the change matters at that precision */
static int
clear_change(const HloVerifyResult *r, double rtol, double atol)
{
	double a = strtod(r->a, NULL), b = strtod(r->b, NULL), rt, at;

	if (r->output < 0 || isnan(a) != isnan(b) || isinf(a) || isinf(b))
		return 1;
	hlo_eval_tolerance(r->type, rtol, atol, &rt, &at);
	return fabs(a - b) > 10 * (at + rt * fabs(b));
}

/* plants each kind of change in m (the nearest site whose change alters
 * an output clearly, among the first four) and checks verify catches
 * it */
static int
mutate_module(const char *path, HloModule *m, int *planted, int *caught)
{
	int before = *planted;

	HloVerifyOpts o = {1, 1, 1e-3, 1e-5, (uint64_t)256 << 20, 0, 200000, 0};
	HloVerifyOpts exact = {1, 1, 0, 0, (uint64_t)256 << 20, 1, 200000, 0};
	HloVerifyResult r;
	char where[512];
	int kind, skip, changed;
	HloModule *x;

	for (kind = 0; kind < MUT_N; kind++)
		for (skip = 0, changed = 0; skip < 4 && !changed; skip++) {
			x = hlo_module_clone(m);
			if (!mutate(x, kind, skip, where, sizeof where)) {
				hlo_module_free(x);
				break;
			}
			changed = hlo_eval_verify(m, x, &exact, &r) == 1 &&
				clear_change(&r, o.rtol, o.atol);
			if (changed) {
				if (getenv("EVAL_TEST_VERBOSE"))
					fprintf(stderr, "  %s at %s: %s\n",
						mutname[kind], where, r.msg);
				(*planted)++;
				hlo_eval_verify(m, x, &o, &r);
				ck_assert_msg(r.verdict == 1, "%s: %s at %s not "
					"caught: %s", path, mutname[kind],
					where, r.msg);
				(*caught)++;
			}
			hlo_module_free(x);
		}
	return *planted > before;
}

static void
mutation_sweep(const char *dir, int *modules, int *mutated, int *planted,
	int *caught, int want, double budget)
{
	TuList l = tu_list(dir);
	HloVerifyOpts o = {1, 1, 1e-3, 1e-5, (uint64_t)256 << 20, 0, 2000000, 0};
	HloVerifyResult r;
	size_t f;
	clock_t t0 = clock(), t1;

	for (f = 0; f < l.n && *mutated < want; f++) {
		HloModule *m = load_small(l.v[f]);

		if (!m)
			continue;
		if ((double)(clock() - t0) / CLOCKS_PER_SEC > budget) {
			hlo_module_free(m);
			break;
		}
		t1 = clock();
		if (hlo_eval_verify(m, m, &o, &r) != 0) {
			ck_assert_msg(r.verdict == 3, "%s: verify X X: %s",
				l.v[f], r.msg);
			hlo_module_free(m);
			continue;
		}
		/* keep the suite fast: slow modules get verify X X only */
		if ((double)(clock() - t1) / CLOCKS_PER_SEC > 2.0) {
			hlo_module_free(m);
			continue;
		}
		(*modules)++;
		t1 = clock();
		*mutated += mutate_module(l.v[f], m, planted, caught);
		if (getenv("EVAL_TEST_VERBOSE"))
			fprintf(stderr, "%.2fs %s\n", (double)(clock() - t1) /
				CLOCKS_PER_SEC, l.v[f]);
		hlo_module_free(m);
	}
	tu_list_free(&l);
}

START_TEST(mutations)
{
	int modules = 0, mutated = 0, planted = 0, caught = 0;
	const char *corpus = tu_corpus();

	mutation_sweep(TU_DATA, &modules, &mutated, &planted, &caught, 1000,
		60);
	if (mutated < 20 && corpus)
		mutation_sweep(corpus, &modules, &mutated, &planted, &caught,
			20, 60);
	fprintf(stderr, "mutation test: %d modules, %d with changes, %d "
		"changes planted, %d caught\n", modules, mutated, planted,
		caught);
	if (modules == 0)
		return;
	ck_assert_int_ge(mutated, 20);	/* data/ alone has more */
	ck_assert_int_eq(planted, caught);
}
END_TEST

/* verification (ev_verify) and its inputs */

static HloModule *
parse_ok(const char *text)
{
	HloError e;
	HloModule *m = tu_parse(text, &e);

	if (!m)
		ck_abort_msg("%s", e.msg);
	return m;
}

static int
verify_texts(const char *a, const char *b, const EvVerifyOpts *o,
	EvVerifyReport *r)
{
	HloModule *ma = parse_ok(a), *mb = parse_ok(b);
	int v = ev_verify(ma, mb, o, r);

	hlo_module_free(ma);
	hlo_module_free(mb);
	return v;
}

/* the ranges reach rsqrt, sqrt, log and divisors through elementwise
 * arithmetic, flip through subtract and negate, stop at a square, enter
 * and leave fusions, and ignore dead code */
START_TEST(dataflow_hints)
{
	static const char *mod =
		"f { a = f32[4] parameter(0) c = f32[] constant(1)\n"
		"cb = f32[4] broadcast(c), dimensions={}\n"
		"ROOT s = f32[4] add(a, cb) }\n"
		"ENTRY e { x = f32[4] parameter(0) v = f32[4] parameter(1)\n"
		"w = f32[4] parameter(2) y = f32[4] parameter(3)\n"
		"z = f32[4] parameter(4) q = f32[4] parameter(5)\n"
		"d = f32[4] parameter(6)\n"
		"eps = f32[] constant(1e-05)\n"
		"be = f32[4] broadcast(eps), dimensions={}\n"
		"ve = f32[4] add(v, be) r = f32[4] rsqrt(ve)\n"
		"c3 = f32[4] broadcast(eps), dimensions={}\n"
		"sw = f32[4] subtract(c3, w) sq = f32[4] sqrt(sw)\n"
		"yy = f32[4] multiply(y, y) ry = f32[4] rsqrt(yy)\n"
		"dead = f32[4] rsqrt(z)\n"
		"fq = f32[4] fusion(q), kind=kLoop, calls=f\n"
		"lq = f32[4] log(fq)\n"
		"nd = f32[4] negate(d) dv = f32[4] divide(x, nd)\n"
		"s1 = f32[4] add(r, sq) s2 = f32[4] add(s1, ry)\n"
		"s3 = f32[4] add(s2, z) s4 = f32[4] add(s3, lq)\n"
		"ROOT s5 = f32[4] add(s4, dv) }";
	HloModule *m = parse_ok(mod);
	HloInputHints h;

	hlo_eval_hints(m, &h);
	ck_assert_int_eq(h.n, 7);
	ck_assert_int_eq(h.positive[0], EV_ANY);	/* x: a dividend */
	ck_assert_int_eq(h.positive[1], EV_POSITIVE);	/* rsqrt(v + eps) */
	ck_assert_int_eq(h.positive[2], EV_NEGATIVE);	/* sqrt(c - w) */
	ck_assert_int_eq(h.positive[3], EV_ANY);	/* rsqrt(y * y) */
	ck_assert_int_eq(h.positive[4], EV_ANY);	/* dead rsqrt(z) */
	ck_assert_int_eq(h.positive[5], EV_POSITIVE);	/* log(fusion(q)) */
	ck_assert_int_eq(h.positive[6], EV_NEGATIVE);	/* x / -d */
	hlo_eval_hints_free(&h);
	hlo_module_free(m);
}
END_TEST

static const char *rsqrt_a =
	"add { a = f32[] parameter(0) b = f32[] parameter(1)\n"
	"ROOT c = f32[] add(a, b) }\n"
	"ENTRY e { x = f32[64] parameter(0) v = f32[64] parameter(1)\n"
	"eps = f32[] constant(1e-05)\n"
	"be = f32[64] broadcast(eps), dimensions={}\n"
	"ve = f32[64] add(v, be) r = f32[64] rsqrt(ve)\n"
	"xr = f32[64] multiply(x, r) z = f32[] constant(0)\n"
	"ROOT s = f32[] reduce(xr, z), dimensions={0}, to_apply=add }";

/* issue 10's pair: sum(x * rsqrt(v + eps)) against sum(x*x * rsqrt(v +
 * eps)) verified "equal" when v was negative (NaN = NaN) */
START_TEST(verify_rsqrt_pair)
{
	static const char *b =
		"add { a = f32[] parameter(0) b = f32[] parameter(1)\n"
		"ROOT c = f32[] add(a, b) }\n"
		"ENTRY e { x = f32[64] parameter(0) v = f32[64] parameter(1)\n"
		"eps = f32[] constant(1e-05)\n"
		"be = f32[64] broadcast(eps), dimensions={}\n"
		"ve = f32[64] add(v, be) r = f32[64] rsqrt(ve)\n"
		"xx = f32[64] multiply(x, x)\n"
		"xr = f32[64] multiply(xx, r) z = f32[] constant(0)\n"
		"ROOT s = f32[] reduce(xr, z), dimensions={0}, to_apply=add }";
	EvVerifyOpts o;
	EvVerifyReport r;

	ev_verify_defaults(&o);
	ck_assert_int_eq(verify_texts(rsqrt_a, rsqrt_a, &o, &r), EV_EQUAL);
	ck_assert_int_eq(r.noutputs, 1);
	ck_assert_int_eq(r.outputs[0].compared, 3);
	ck_assert_int_eq(r.outputs[0].nonfinite_a, 0);
	ck_assert_int_eq(r.outputs[0].finite_trials, 3);
	ev_verify_free(&r);
	ck_assert_int_eq(verify_texts(rsqrt_a, b, &o, &r), EV_DIFFERENT);
	ck_assert_int_eq(r.first_output, 0);
	ck_assert_int_eq(r.outputs[0].mismatches, 1);
	ck_assert(r.outputs[0].max_abs > 0);
	/* the first divergence: xr, the multiply */
	ck_assert_int_eq(r.div.found, 1);
	ck_assert_str_eq(r.div.name, "xr");
	ck_assert_str_eq(r.div.opcode, "multiply");
	ck_assert_int_eq(r.div.count, 64);
	ev_verify_free(&r);
}
END_TEST

/* an output non-finite on every input is named and never "equal" */
START_TEST(verify_partial)
{
	static const char *mod =
		"ENTRY e { x = f32[8] parameter(0) c = f32[] constant(2)\n"
		"cb = f32[8] broadcast(c), dimensions={}\n"
		"d = f32[8] subtract(x, cb) l = f32[8] log(d)\n"
		"ROOT t = (f32[8], f32[8]) tuple(x, l) }";
	EvVerifyOpts o;
	EvVerifyReport r;
	HloVerifyOpts lo = {2, 0, 1e-3, 1e-5, (uint64_t)256 << 20, 0, 0, 0};
	HloVerifyResult lr;
	HloModule *m;
	HloBuf b = {0};

	ev_verify_defaults(&o);
	ck_assert_int_eq(verify_texts(mod, mod, &o, &r), EV_PARTIAL);
	ck_assert_int_eq(r.noutputs, 2);
	ck_assert_int_eq(r.outputs[0].verdict, EV_EQUAL);
	ck_assert_int_eq(r.outputs[1].verdict, EV_PARTIAL);
	ck_assert_int_eq(r.outputs[1].compared, 0);
	ck_assert_int_eq(r.outputs[1].nonfinite_a, 8 * 3);
	ck_assert_int_eq(r.evaluations, 3 * EV_NDIST);	/* every retry */
	ck_assert(strstr(r.msg, "output 1") != NULL);
	ev_verify_text(&r, &b);
	ck_assert(strstr(b.buf, "partially verified") != NULL);
	ck_assert(strstr(b.buf, "never compared on finite values") != NULL);
	hlo_buf_free(&b);
	ev_verify_json(&r, &b);
	ck_assert(strstr(b.buf, "\"verdict\":\"partially verified\"") != NULL);
	hlo_buf_free(&b);
	ev_verify_free(&r);
	/* the older interface counts it as no difference */
	m = parse_ok(mod);
	ck_assert_int_eq(hlo_eval_verify(m, m, &lo, &lr), 0);
	hlo_module_free(m);
}
END_TEST

/* an output that overflows on the first inputs is retried on smaller
 * ones; both modules get the distribution chosen on the first */
START_TEST(verify_retry)
{
	static const char *a =
		"ENTRY e { x = f32[256] parameter(0) c = f32[] constant(100)\n"
		"cb = f32[256] broadcast(c), dimensions={}\n"
		"m = f32[256] multiply(x, cb) ROOT r = f32[256] exponential(m) }";
	static const char *b =
		"ENTRY e { x = f32[256] parameter(0) c = f32[] constant(100)\n"
		"cb = f32[256] broadcast(c), dimensions={}\n"
		"m = f32[256] multiply(cb, x) ROOT r = f32[256] exponential(m) }";
	EvVerifyOpts o;
	EvVerifyReport r;

	ev_verify_defaults(&o);
	ck_assert_int_eq(verify_texts(a, b, &o, &r), EV_EQUAL);
	ck_assert_int_eq(r.outputs[0].finite_trials, 3);
	ck_assert_int_eq(r.outputs[0].nonfinite_a, 0);
	ck_assert_int_eq(r.evaluations, 6);
	ck_assert_int_eq(r.dist[0], EV_DIST_SMALL);
	ev_verify_free(&r);
	o.retries = 0;
	ck_assert_int_eq(verify_texts(a, b, &o, &r), EV_PARTIAL);
	ck_assert(r.outputs[0].nonfinite_a > 0);
	ck_assert(r.outputs[0].compared > 0);
	ev_verify_free(&r);
}
END_TEST

static const char *small_a =
	"ENTRY e { x = bf16[64] parameter(0) c = bf16[] constant(0.01)\n"
	"cb = bf16[64] broadcast(c), dimensions={}\n"
	"ROOT m = bf16[64] multiply(x, cb) }";
static const char *small_b =
	"ENTRY e { x = bf16[64] parameter(0) c = bf16[] constant(0.015)\n"
	"cb = bf16[64] broadcast(c), dimensions={}\n"
	"ROOT m = bf16[64] multiply(x, cb) }";

/* --rtol 0 --atol 0 are used as given, also for bf16 */
START_TEST(verify_user_tolerance)
{
	static const char *a =
		"ENTRY e { x = bf16[64] parameter(0) c = bf16[] constant(1)\n"
		"cb = bf16[64] broadcast(c), dimensions={}\n"
		"ROOT m = bf16[64] multiply(x, cb) }";
	static const char *b =
		"ENTRY e { x = bf16[64] parameter(0)\n"
		"c = bf16[] constant(1.0078125)\n"
		"cb = bf16[64] broadcast(c), dimensions={}\n"
		"ROOT m = bf16[64] multiply(x, cb) }";
	EvVerifyOpts o;
	EvVerifyReport r;

	ev_verify_defaults(&o);
	ck_assert_int_eq(verify_texts(a, b, &o, &r), EV_EQUAL);
	ck_assert(fabs(r.outputs[0].rtol - 3e-2) < 1e-12);
	ck_assert(r.outputs[0].max_rel > 0.003 && r.outputs[0].max_rel < 0.02);
	ev_verify_free(&r);
	o.rtol = 0;
	o.atol = 0;
	ck_assert_int_eq(verify_texts(a, b, &o, &r), EV_DIFFERENT);
	ck_assert(r.outputs[0].rtol == 0 && r.outputs[0].atol == 0);
	ck_assert(r.outputs[0].mismatches > 0);
	ev_verify_free(&r);
	/* outputs far below one: 50% off is beyond the default absolute
	 * tolerance, which shrinks with the output's magnitude */
	ev_verify_defaults(&o);
	ck_assert_int_eq(verify_texts(small_a, small_b, &o, &r),
		EV_DIFFERENT);
	ck_assert(r.outputs[0].atol < 1e-3);
	ev_verify_free(&r);
}
END_TEST

/* a copy that changes the physical layout, then a bitcast: deleting the
 * copy changes what the bitcast reinterprets, and verify must say so,
 * at top level and inside a fusion; where the layouts differ only in
 * dimensions of size 1 the copy is physically nothing and its deletion
 * is equal */
/* Random123's known-answer vectors (kat_vectors: philox4x32 10 rounds,
 * threefry2x32 20 rounds), which xla's prng.cc generators compute */
START_TEST(prng_known_vectors)
{
	static const uint32_t ph[3][10] = {
		{0, 0, 0, 0, 0, 0,
		 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
		{~0u, ~0u, ~0u, ~0u, ~0u, ~0u,
		 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
		{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344,
		 0xa4093822, 0x299f31d0,
		 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1},
	};
	static const uint32_t tf[3][6] = {
		{0, 0, 0, 0, 0x6b200159, 0x99ba4efe},
		{~0u, ~0u, ~0u, ~0u, 0x1cb996fc, 0xbb002be7},
		{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344,
		 0xc4923a9c, 0x483df7a0},
	};
	uint32_t x[4];
	int k, j;

	for (k = 0; k < 3; k++) {
		memcpy(x, ph[k], sizeof x);
		ev_philox4x32(x, ph[k][4], ph[k][5]);
		for (j = 0; j < 4; j++)
			ck_assert_msg(x[j] == ph[k][6 + j], "philox %d word %d: "
				"%08x", k, j, x[j]);
		memcpy(x, tf[k], 2 * sizeof *x);
		ev_threefry2x32(x, tf[k][2], tf[k][3]);
		for (j = 0; j < 2; j++)
			ck_assert_msg(x[j] == tf[k][4 + j], "threefry %d word "
				"%d: %08x", k, j, x[j]);
	}
}
END_TEST

START_TEST(bitcast_copy_deletion)
{
	static const struct {
		const char *in, *cp, *out;
		int caught;
	} cs[] = {
		{"f32[2,3]{1,0}", "f32[2,3]{0,1}", "f32[3,2]{1,0}", 1},
		{"f32[2,3]{1,0}", "f32[2,3]{0,1}", "f32[6]{0}", 1},
		{"f32[2,3,4]{2,1,0}", "f32[2,3,4]{0,1,2}", "f32[24]{0}", 1},
		{"f32[2,3,4]{2,1,0}", "f32[2,3,4]{1,2,0}", "f32[2,12]{1,0}", 1},
		{"f32[4,4]{1,0}", "f32[4,4]{0,1}", "f32[4,4]{1,0}", 1},
		{"f32[2,3]{0,1}", "f32[2,3]{1,0}", "f32[3,2]{0,1}", 1},
		{"f32[1,6]{1,0}", "f32[1,6]{0,1}", "f32[6]{0}", 0},
	};
	char a[1024], b[1024], fa[1024], fb[1024];
	EvVerifyOpts o;
	EvVerifyReport r;
	size_t k;

	ev_verify_defaults(&o);
	o.trials = 1;
	for (k = 0; k < sizeof cs / sizeof cs[0]; k++) {
		snprintf(a, sizeof a, "ENTRY e { p = %s parameter(0)\n"
			"c = %s copy(p)\nROOT b = %s bitcast(c) }", cs[k].in,
			cs[k].cp, cs[k].out);
		snprintf(b, sizeof b, "ENTRY e { p = %s parameter(0)\n"
			"ROOT b = %s bitcast(p) }", cs[k].in, cs[k].out);
		snprintf(fa, sizeof fa, "f { p = %s parameter(0)\n"
			"c = %s copy(p)\nROOT b = %s bitcast(c) }\n"
			"ENTRY e { p = %s parameter(0)\n"
			"ROOT f = %s fusion(p), kind=kLoop, calls=f }",
			cs[k].in, cs[k].cp, cs[k].out, cs[k].in, cs[k].out);
		snprintf(fb, sizeof fb, "f { p = %s parameter(0)\n"
			"ROOT b = %s bitcast(p) }\n"
			"ENTRY e { p = %s parameter(0)\n"
			"ROOT f = %s fusion(p), kind=kLoop, calls=f }",
			cs[k].in, cs[k].out, cs[k].in, cs[k].out);
		ck_assert_msg(verify_texts(a, b, &o, &r) == (cs[k].caught ?
			EV_DIFFERENT : EV_EQUAL), "case %zu: %s", k, r.msg);
		ev_verify_free(&r);
		ck_assert_msg(verify_texts(fa, fb, &o, &r) == (cs[k].caught ?
			EV_DIFFERENT : EV_EQUAL), "fused case %zu: %s", k,
			r.msg);
		ev_verify_free(&r);
	}
}
END_TEST

/* the copy keeps the logical values; the bitcast reads them in the
 * physical order of its operand's layout */
START_TEST(bitcast_reads_physical_order)
{
	static const char *mod =
		"ENTRY e { p = f32[2,3]{1,0} parameter(0)\n"
		"c = f32[2,3]{0,1} copy(p)\n"
		"b = f32[6]{0} bitcast(c)\n"
		"ROOT t = (f32[2,3]{0,1}, f32[6]{0}) tuple(c, b) }";
	HloModule *m = parse_ok(mod);
	HloEval ev;
	HloError e;
	HloVal *args[1], *out = NULL;
	float want[6] = {0, 3, 1, 4, 2, 5}, x[6];
	int k;

	hlo_eval_init(&ev, m, 0, &e);
	args[0] = hlo_val_array(&ev, hlo_ins(m, m->entry, hlo_param(m,
		m->entry, 0))->shape);
	for (k = 0; k < 6; k++) {
		x[k] = (float)k;
		memcpy(args[0]->data + 4 * k, &x[k], 4);
	}
	ck_assert_int_eq(hlo_eval_entry(&ev, args, 1, &out), 0);
	ck_assert(!memcmp(out->elems[0]->data, x, sizeof x));
	memcpy(x, out->elems[1]->data, sizeof x);
	for (k = 0; k < 6; k++)
		ck_assert(x[k] == want[k]);
	hlo_val_unref(&ev, out);
	hlo_val_unref(&ev, args[0]);
	hlo_eval_fini(&ev);
	hlo_module_free(m);
}
END_TEST

/* same seed, same entry signature: the same inputs, whatever dead code
 * or other uses the module has; verify takes the original's ranges */
START_TEST(inputs_by_signature)
{
	static const char *a =
		"ENTRY e { x = f32[16] parameter(0) dead = f32[16] rsqrt(x)\n"
		"ROOT r = f32[16] add(x, x) }";
	static const char *b =
		"ENTRY e { x = f32[16] parameter(0)\n"
		"ROOT r = f32[16] add(x, x) }";
	static const char *c =
		"ENTRY e { x = f32[16] parameter(0) s = f32[16] sqrt(x)\n"
		"ROOT r = f32[16] add(s, s) }";
	HloModule *ma = parse_ok(a), *mb = parse_ok(b), *mc = parse_ok(c);
	HloInputHints ha, hb;
	HloEval ea, eb;
	HloError e;
	HloVal **xa, **xb;
	uint32_t na, nb;

	hlo_eval_hints(ma, &ha);
	hlo_eval_hints(mb, &hb);
	ck_assert_int_eq(ha.positive[0], hb.positive[0]);
	hlo_eval_init(&ea, ma, 0, &e);
	hlo_eval_init(&eb, mb, 0, &e);
	ck_assert_int_eq(hlo_eval_inputs(&ea, 7, &ha, &xa, &na), 0);
	ck_assert_int_eq(hlo_eval_inputs(&eb, 7, &hb, &xb, &nb), 0);
	ck_assert(!memcmp(xa[0]->data, xb[0]->data, 16 * 4));
	hlo_eval_free_args(&ea, xa, na);
	hlo_eval_free_args(&eb, xb, nb);
	hlo_eval_fini(&ea);
	hlo_eval_fini(&eb);
	hlo_eval_hints_free(&ha);
	hlo_eval_hints_free(&hb);
	/* the original's ranges go to both: sqrt(x) against the module
	 * without it, on positive x: compared on finite values */
	{
		EvVerifyOpts o;
		EvVerifyReport r;

		ev_verify_defaults(&o);
		ck_assert_int_eq(ev_verify(mc, mc, &o, &r), EV_EQUAL);
		ck_assert_int_eq(r.outputs[0].nonfinite_a, 0);
		ev_verify_free(&r);
	}
	hlo_module_free(ma);
	hlo_module_free(mb);
	hlo_module_free(mc);
}
END_TEST

/* literals: printed as XLA writes them and read back as inputs */
START_TEST(literal_round_trip)
{
	static const char *mod =
		"ENTRY e { p = f32[2,3] parameter(0) q = s32[] parameter(1)\n"
		"r = pred[2] parameter(2)\n"
		"ROOT t = (f32[2,3], s32[], pred[2]) tuple(p, q, r) }";
	static const char *in =
		"f32[2,3] {{1, 2.5, -3}, {inf, -inf, 0}}\n"
		"s32[] -7\n# a comment\npred[2] {true, false}\n";
	HloModule *m = parse_ok(mod);
	HloEval ev;
	HloError e;
	HloVal **args, *out = NULL;
	uint32_t n;
	HloBuf b = {0};

	hlo_eval_init(&ev, m, 0, &e);
	ck_assert_msg(ev_inputs_text(&ev, in, strlen(in), "in.txt", &args,
		&n) == 0, "%s", e.msg);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(hlo_eval_entry(&ev, args, n, &out), 0);
	ev_print_literals(&ev, out, &b);
	ck_assert_str_eq(b.buf, "output 0: f32[2,3] {{1, 2.5, -3}, {inf, "
		"-inf, 0}}\noutput 1: s32[] -7\noutput 2: pred[2] {true, "
		"false}\n");
	hlo_buf_free(&b);
	hlo_val_unref(&ev, out);
	hlo_eval_free_args(&ev, args, n);
	ck_assert_int_eq(ev_inputs_text(&ev, "f32[2,2] {{1, 2}, {3, 4}}", 25,
		"in.txt", &args, &n), -1);
	ck_assert(strstr(e.msg, "3 entry parameters") != NULL);
	hlo_eval_fini(&ev);
	hlo_module_free(m);
}
END_TEST


int
main(void)
{
	Suite *s = suite_create("eval");
	TCase *t = tcase_create("eval");
	SRunner *r;
	int nf;

	tcase_set_timeout(t, 240);
	tcase_add_test(t, float_binary);
	tcase_add_test(t, clamp_and_bits);
	tcase_add_test(t, int32_fast_path);
	tcase_add_test(t, conv_zero_weight_nan);
	tcase_add_test(t, thread_count_independent);
	tcase_add_test(t, float_unary);
	tcase_add_test(t, float_compare);
	tcase_add_test(t, bf16_arith);
	tcase_add_test(t, int_division);
	tcase_add_test(t, int_shifts_bits);
	tcase_add_test(t, convert_float_int);
	tcase_add_test(t, stochastic_convert);
	tcase_add_test(t, convert_narrow_floats);
	tcase_add_test(t, bitcast_convert);
	tcase_add_test(t, data_movement);
	tcase_add_test(t, dynamic_slices);
	tcase_add_test(t, dot_batch);
	tcase_add_test(t, dot_large);
	tcase_add_test(t, conv_windows);
	tcase_add_test(t, conv_labels);
	tcase_add_test(t, conv_layouts);
	tcase_add_test(t, reduce_sum_max);
	tcase_add_test(t, reduce_ordered_and_variadic);
	tcase_add_test(t, reduce_window);
	tcase_add_test(t, select_and_scatter);
	tcase_add_test(t, gather_rows);
	tcase_add_test(t, scatter_add);
	tcase_add_test(t, sort_pairs);
	tcase_add_test(t, sort_dim0_and_topk);
	tcase_add_test(t, while_loop);
	tcase_add_test(t, conditionals);
	tcase_add_test(t, call_map_fusion);
	tcase_add_test(t, batch_norm);
	tcase_add_test(t, opaque_model);
	tcase_add_test(t, opaque_smooth);
	tcase_add_test(t, opaque_collectives);
	tcase_add_test(t, bf16_reduce_f32_accumulation);
	tcase_add_test(t, determinism);
	tcase_add_test(t, index_hints);
	tcase_add_test(t, memory_limit);
	tcase_add_test(t, unsupported_named);
	tcase_add_test(t, mutations);
	tcase_add_test(t, dataflow_hints);
	tcase_add_test(t, verify_rsqrt_pair);
	tcase_add_test(t, verify_partial);
	tcase_add_test(t, verify_retry);
	tcase_add_test(t, verify_user_tolerance);
	tcase_add_test(t, bitcast_copy_deletion);
	tcase_add_test(t, prng_known_vectors);
	tcase_add_test(t, bitcast_reads_physical_order);
	tcase_add_test(t, inputs_by_signature);
	tcase_add_test(t, literal_round_trip);
	suite_add_tcase(s, t);
	r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	nf = srunner_ntests_failed(r);
	srunner_free(r);
	return nf ? 1 : 0;
}
