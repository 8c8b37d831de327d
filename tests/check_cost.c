/* check_cost.c: instruction counts and HloCostAnalysis figures (hlo/cost.c)
 * against hand-computed values, and the text and JSON reports */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hlo.h"
#include "cost.h"

static HloModule *
parse(const char *src)
{
	HloModule *m = NULL;
	HloError e;

	if (hlo_parse_text(src, strlen(src), "t.hlo", &m, &e) < 0)
		ck_abort_msg("parse: %s", e.msg);
	return m;
}

static HloCost
cost(const char *src)
{
	HloModule *m = parse(src);
	HloCost c;
	HloError e;

	if (hlo_cost(m, &c, &e) < 0)
		ck_abort_msg("cost: %s", e.msg);
	ck_assert_int_eq(hlo_cost_count(m), c.instructions);
	hlo_module_free(m);
	return c;
}

#define ck_cost(c, fl, tr, by) do { \
	ck_assert_double_eq((c).flops, (fl)); \
	ck_assert_double_eq((c).transcendentals, (tr)); \
	ck_assert_double_eq((c).bytes_accessed, (by)); \
} while (0)

static const char addcomp[] =
	"add {\n"
	"  x = f32[] parameter(0)\n"
	"  y = f32[] parameter(1)\n"
	"  ROOT s = f32[] add(x, y)\n"
	"}\n";

START_TEST(dot_matmul)
{
	HloCost c = cost("HloModule dot\n"
		"ENTRY e {\n"
		"  a = f32[10,5] parameter(0)\n"
		"  b = f32[5,30] parameter(1)\n"
		"  ROOT d = f32[10,30] dot(a, b), lhs_contracting_dims={1}, "
		"rhs_contracting_dims={0}\n"
		"}\n");

	ck_cost(c, 2 * 10 * 30 * 5, 0, 4 * (10 * 5 + 5 * 30 + 10 * 30));
	ck_assert_int_eq(c.instructions, 3);
	ck_assert_int_eq(c.computations, 1);
	ck_assert_int_eq(c.opcount[HOP_PARAMETER], 2);
	ck_assert_int_eq(c.opcount[HOP_DOT], 1);
}
END_TEST

START_TEST(dot_batch_and_multi)
{
	HloCost c = cost("HloModule dot\n"
		"ENTRY e {\n"
		"  a = f32[4,10,5] parameter(0)\n"
		"  b = f32[4,5,30] parameter(1)\n"
		"  ROOT d = f32[4,10,30] dot(a, b), lhs_batch_dims={0}, "
		"lhs_contracting_dims={2}, rhs_batch_dims={0}, "
		"rhs_contracting_dims={1}\n"
		"}\n");

	ck_assert_double_eq(c.flops, 2 * 4 * 10 * 30 * 5);
	c = cost("HloModule dot\n"
		"ENTRY e {\n"
		"  a = f32[10,5,5] parameter(0)\n"
		"  b = f32[5,5,30] parameter(1)\n"
		"  ROOT d = f32[10,30] dot(a, b), lhs_contracting_dims={1,2}, "
		"rhs_contracting_dims={0,1}\n"
		"}\n");
	ck_assert_double_eq(c.flops, 2 * 10 * 30 * 5 * 5);
	c = cost("HloModule outer\n"
		"ENTRY e {\n"
		"  a = f32[10] parameter(0)\n"
		"  b = f32[30] parameter(1)\n"
		"  ROOT d = f32[10,30] dot(a, b)\n"
		"}\n");
	ck_assert_double_eq(c.flops, 2 * 10 * 30);
}
END_TEST

/* conv of an input [1,1,H,W] by a kernel [1,1,3,3]; flops for the given
 * window, output dims and labels */
static double
conv(const char *in, const char *k, const char *out, const char *win,
	const char *extra)
{
	char buf[1024];
	HloCost c;

	snprintf(buf, sizeof buf, "HloModule conv\n"
		"ENTRY e {\n"
		"  x = f32[%s] parameter(0)\n"
		"  k = f32[%s] parameter(1)\n"
		"  ROOT c = f32[%s] convolution(x, k), window={%s}, %s\n"
		"}\n", in, k, out, win, extra);
	c = cost(buf);
	return c.flops;
}

START_TEST(conv_valid)
{
	HloCost c = cost("HloModule conv\n"
		"ENTRY e {\n"
		"  x = f32[1,1,10,20] parameter(0)\n"
		"  k = f32[1,1,3,3] parameter(1)\n"
		"  ROOT c = f32[1,1,8,18] convolution(x, k), "
		"window={size=3x3}, dim_labels=bf01_oi01->bf01\n"
		"}\n");

	ck_cost(c, 8 * 18 * 2 * 3 * 3, 0, 4 * (10 * 20 + 3 * 3 + 8 * 18));
	/* the same in NHWC / HWIO */
	ck_assert_double_eq(conv("1,10,20,1", "3,3,1,1", "1,8,18,1",
		"size=3x3", "dim_labels=b01f_01io->b01f"), 8 * 18 * 2 * 9);
}
END_TEST

START_TEST(conv_padding)
{
	/* "same" 3x3 over 3x3: 2, 3, 2 valid positions per dim and kernel
	 * row, i.e. 7 * 7 = 4+6+4+6+9+6+4+6+4 pairs */
	ck_assert_double_eq(conv("1,1,3,3", "1,1,3,3", "1,1,3,3",
		"size=3x3 pad=1_1x1_1", "dim_labels=bf01_oi01->bf01"),
		2 * (4 + 6 + 4 + 6 + 9 + 6 + 4 + 6 + 4));
	/* asymmetric padding: 1D, input 4, kernel 3, pad 2_0, output 4:
	 * kernel 0 reads inputs -2..1 (2 valid), 1: -1..2 (3), 2: 0..3 (4) */
	ck_assert_double_eq(conv("1,1,4", "1,1,3", "1,1,4", "size=3 pad=2_0",
		"dim_labels=bf0_oi0->bf0"), 2 * 9);
}
END_TEST

START_TEST(conv_stride_dilation)
{
	/* stride 2: 4x4 outputs, every kernel position valid */
	ck_assert_double_eq(conv("1,1,10,10", "1,1,3,3", "1,1,4,4",
		"size=3x3 stride=2x2", "dim_labels=bf01_oi01->bf01"),
		2 * 9 * 16);
	/* window (rhs) dilation 2: effective kernel 5, output 6x6 */
	ck_assert_double_eq(conv("1,1,10,10", "1,1,3,3", "1,1,6,6",
		"size=3x3 rhs_dilate=2x2", "dim_labels=bf01_oi01->bf01"),
		2 * 18 * 18);
	/* base (lhs) dilation 2: input 4 dilates to 7, output 5; only the
	 * 8 (output, kernel) pairs with an even sum hit a real element */
	ck_assert_double_eq(conv("1,1,4", "1,1,3", "1,1,5",
		"size=3 lhs_dilate=2", "dim_labels=bf0_oi0->bf0"), 2 * 8);
	/* stride 2 and lhs dilation 3 with padding, against brute force:
	 * input 5 -> 13 dilated + 2 + 1 pad = 16, kernel 4, output 7 */
	{
		int o, k, n = 0;

		for (k = 0; k < 4; k++)
			for (o = 0; o < 7; o++) {
				int u = o * 2 - 2 + k;

				n += u >= 0 && u % 3 == 0 && u / 3 < 5;
			}
		ck_assert_double_eq(conv("1,1,5", "1,1,4", "1,1,7",
			"size=4 stride=2 pad=2_1 lhs_dilate=3",
			"dim_labels=bf0_oi0->bf0"), 2 * n);
	}
}
END_TEST

START_TEST(conv_groups)
{
	ck_assert_double_eq(conv("1,120,10,20", "120,1,3,3", "1,120,8,18",
		"size=3x3", "dim_labels=bf01_oi01->bf01, "
		"feature_group_count=120"), 120 * 8 * 18 * 2 * 3 * 3);
	/* batch groups: batch 4 / 2 groups, 8 in features, 6 out */
	ck_assert_double_eq(conv("4,8,5,5", "6,8,1,1", "2,6,5,5",
		"size=1x1", "dim_labels=bf01_oi01->bf01, batch_group_count=2"),
		2.0 * 8 * 6 * 2 * 25);
	/* a 1x1 conv of 64x64 costs a 64x64x64 matmul */
	ck_assert_double_eq(conv("64,64,1,1", "64,64,1,1", "64,64,1,1",
		"size=1x1", "dim_labels=bf01_oi01->bf01"), 2.0 * 64 * 64 * 64);
}
END_TEST

START_TEST(conv_extreme)
{
	/* xla's ConvolutionExtreme tests: 512k positions, answered fast */
	ck_assert_double_eq(conv("1,1,524288", "1,1,524288", "1,1,524288",
		"size=524288 stride=524287 lhs_dilate=524288",
		"dim_labels=bf0_oi0->bf0"), 2 * 524288.0);
	ck_assert_double_eq(conv("1,1,1", "1,1,524288", "1,1,524288",
		"size=524288 pad=524287_524287", "dim_labels=bf0_oi0->bf0"),
		2 * 524288.0);
}
END_TEST

START_TEST(reduce_sum)
{
	char buf[1024];
	HloCost c;

	snprintf(buf, sizeof buf, "HloModule r\n%s"
		"ENTRY e {\n"
		"  p = f32[10,20] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[10] reduce(p, z), dimensions={1}, "
		"to_apply=add\n"
		"}\n", addcomp);
	c = cost(buf);
	ck_cost(c, 10 * 20 - 10, 0, 4 * (10 * 20 + 1 + 10));
	ck_assert_int_eq(c.instructions, 6);
	ck_assert_int_eq(c.computations, 2);
	snprintf(buf, sizeof buf, "HloModule r\n%s"
		"ENTRY e {\n"
		"  p = f32[10,20] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[] reduce(p, z), dimensions={0,1}, "
		"to_apply=add\n"
		"}\n", addcomp);
	c = cost(buf);
	ck_cost(c, 10 * 20 - 1, 0, 4 * (10 * 20 + 1 + 1));
}
END_TEST

START_TEST(reduce_window)
{
	char buf[1024];
	HloCost c;

	snprintf(buf, sizeof buf, "HloModule rw\n%s"
		"ENTRY e {\n"
		"  p = f32[10,20] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[2,4] reduce-window(p, z), "
		"window={size=4x5 stride=4x5}, to_apply=add\n"
		"}\n", addcomp);
	c = cost(buf);
	ck_cost(c, 2 * 4 * (4 * 5 - 1), 0, 4 * (10 * 20 + 1 + 2 * 4));
	/* xla's reduce + broadcast special case */
	snprintf(buf, sizeof buf, "HloModule rw\n%s"
		"ENTRY e {\n"
		"  p = f32[2,3,1024,1024]{2,3,1,0} parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[2,3,1024,1024]{2,3,1,0} reduce-window(p, z), "
		"window={size=1x1x1x2047 pad=0_0x0_0x0_0x1023_1023}, "
		"to_apply=add\n"
		"}\n", addcomp);
	c = cost(buf);
	ck_assert_double_eq(c.flops, 2 * 3 * 1024 + 1023);
}
END_TEST

START_TEST(elementwise)
{
	HloCost c = cost("HloModule ew\n"
		"ENTRY e {\n"
		"  p = f32[10,10] parameter(0)\n"
		"  x = f32[10,10] exponential(p)\n"
		"  a = f32[10,10] add(p, x)\n"
		"  t = f32[10,10] tanh(a)\n"
		"  s = f32[10,10] sqrt(t)\n"
		"  n = f32[10,10] negate(s)\n"
		"  k = f32[10,10] copy(n)\n"
		"  ROOT c = pred[10,10] compare(a, k), direction=LT\n"
		"}\n");

	/* add, negate, compare: flops; exp, tanh, sqrt: transcendentals;
	 * copy: nothing */
	ck_cost(c, 300, 300, 800 + 1200 + 4 * 800 + 900);
	ck_assert_int_eq(c.opcount[HOP_EXP], 1);
	ck_assert_int_eq(c.opcount[HOP_COMPARE], 1);
	ck_assert_int_eq(c.instructions, 8);
}
END_TEST

START_TEST(data_movement)
{
	HloCost c = cost("HloModule mv\n"
		"ENTRY e {\n"
		"  p = f32[2,3] parameter(0)\n"
		"  b = f32[4,2,3] broadcast(p), dimensions={1,2}\n"
		"  r = f32[4,6] reshape(b)\n"
		"  ROOT t = f32[6,4] transpose(r), dimensions={1,0}\n"
		"}\n");

	ck_cost(c, 0, 0, 4 * (24 + 6) + 4 * (24 + 24) + 4 * (24 + 24));
	/* a transpose that is a bitcast of its layouts touches nothing */
	c = cost("HloModule tb\n"
		"ENTRY e {\n"
		"  p = f32[2,3]{1,0} parameter(0)\n"
		"  ROOT t = f32[3,2]{0,1} transpose(p), dimensions={1,0}\n"
		"}\n");
	ck_cost(c, 0, 0, 0);
}
END_TEST

START_TEST(bytes_special)
{
	HloCost c = cost("HloModule sl\n"
		"ENTRY e {\n"
		"  p = f32[10,10] parameter(0)\n"
		"  ROOT s = f32[5,2] slice(p), slice={[0:5], [0:2]}\n"
		"}\n");

	ck_cost(c, 0, 0, 2 * 40);
	c = cost("HloModule ds\n"
		"ENTRY e {\n"
		"  p = f32[10,10] parameter(0)\n"
		"  i = s32[] parameter(1)\n"
		"  ROOT d = f32[2,2] dynamic-slice(p, i, i), "
		"dynamic_slice_sizes={2,2}\n"
		"}\n");
	ck_cost(c, 0, 0, 2 * 16 + 4);
	c = cost("HloModule dus\n"
		"ENTRY e {\n"
		"  p = f32[10,10] parameter(0)\n"
		"  u = f32[2,2] parameter(1)\n"
		"  i = s32[] parameter(2)\n"
		"  ROOT d = f32[10,10] dynamic-update-slice(p, u, i, i)\n"
		"}\n");
	ck_cost(c, 0, 0, 2 * 16 + 4);
	c = cost("HloModule tup\n"
		"ENTRY e {\n"
		"  p = f32[10,10] parameter(0)\n"
		"  q = bf16[4] parameter(1)\n"
		"  k = f32[3] constant({1, 2, 3})\n"
		"  t = (f32[10,10], bf16[4], f32[3]) tuple(p, q, k)\n"
		"  ROOT g = bf16[4] get-tuple-element(t), index=1\n"
		"}\n");
	ck_cost(c, 0, 0, 3 * 8);
	ck_assert_int_eq(c.opcount[HOP_GTE], 1);
	c = cost("HloModule cc\n"
		"ENTRY e {\n"
		"  p = f32[10] parameter(0)\n"
		"  ROOT c = f32[10] custom-call(p), "
		"custom_call_target=\"foo\"\n"
		"}\n");
	ck_cost(c, 0, 0, 80);
}
END_TEST

START_TEST(called)
{
	HloCost c = cost("HloModule w\n"
		"cond {\n"
		"  p = (s32[], f32[4]) parameter(0)\n"
		"  i = s32[] get-tuple-element(p), index=0\n"
		"  l = s32[] constant(10)\n"
		"  ROOT lt = pred[] compare(i, l), direction=LT\n"
		"}\n"
		"body {\n"
		"  p = (s32[], f32[4]) parameter(0)\n"
		"  i = s32[] get-tuple-element(p), index=0\n"
		"  one = s32[] constant(1)\n"
		"  n = s32[] add(i, one)\n"
		"  v = f32[4] get-tuple-element(p), index=1\n"
		"  x = f32[4] exponential(v)\n"
		"  ROOT t = (s32[], f32[4]) tuple(n, x)\n"
		"}\n"
		"ENTRY e {\n"
		"  a = (s32[], f32[4]) parameter(0)\n"
		"  ROOT w = (s32[], f32[4]) while(a), condition=cond, "
		"body=body\n"
		"}\n");

	/* body and condition once: compare + add; exp; bytes of both */
	ck_cost(c, 2, 4, 9 + 12 + 32 + 16);
	ck_assert_int_eq(c.instructions, 13);
	ck_assert_int_eq(c.computations, 3);
	c = cost("HloModule cond\n"
		"b0 {\n"
		"  p = f32[8] parameter(0)\n"
		"  ROOT x = f32[8] exponential(p)\n"
		"}\n"
		"b1 {\n"
		"  p = f32[8] parameter(0)\n"
		"  a = f32[8] add(p, p)\n"
		"  ROOT m = f32[8] multiply(a, a)\n"
		"}\n"
		"ENTRY e {\n"
		"  i = s32[] parameter(0)\n"
		"  x = f32[8] parameter(1)\n"
		"  ROOT c = f32[8] conditional(i, x, x), "
		"branch_computations={b0, b1}\n"
		"}\n");
	/* the larger branch, property by property */
	ck_cost(c, 16, 8, 192);
	c = cost("HloModule call\n"
		"f {\n"
		"  p = f32[8] parameter(0)\n"
		"  ROOT x = f32[8] exponential(p)\n"
		"}\n"
		"ENTRY e {\n"
		"  x = f32[8] parameter(0)\n"
		"  ROOT c = f32[8] call(x), to_apply=f\n"
		"}\n");
	ck_cost(c, 0, 8, 64);
}
END_TEST

START_TEST(applied)
{
	char buf[2048];
	HloCost c = cost("HloModule map\n"
		"f {\n"
		"  x = f32[] parameter(0)\n"
		"  h = f32[] constant(0.5)\n"
		"  a = f32[] add(x, h)\n"
		"  ROOT e = f32[] exponential(a)\n"
		"}\n"
		"ENTRY e {\n"
		"  p = f32[10] parameter(0)\n"
		"  ROOT m = f32[10] map(p), dimensions={0}, to_apply=f\n"
		"}\n");

	ck_cost(c, 10, 10, 80);
	snprintf(buf, sizeof buf, "HloModule sas\n%s"
		"gt {\n"
		"  x = f32[] parameter(0)\n"
		"  y = f32[] parameter(1)\n"
		"  ROOT g = pred[] compare(x, y), direction=GT\n"
		"}\n"
		"ENTRY e {\n"
		"  o = f32[10,20] parameter(0)\n"
		"  s = f32[2,4] parameter(1)\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[10,20] select-and-scatter(o, s, z), "
		"window={size=4x5 stride=4x5}, select=gt, scatter=add\n"
		"}\n", addcomp);
	c = cost(buf);
	ck_cost(c, 2 * 4 * (4 * 5 - 1 + 1), 0,
		4 * (10 * 20 + 2 * 4 + 1 + 10 * 20));
	snprintf(buf, sizeof buf, "HloModule sc\n%s"
		"ENTRY e {\n"
		"  o = f32[10] parameter(0)\n"
		"  i = s32[3,1] parameter(1)\n"
		"  u = f32[3] parameter(2)\n"
		"  ROOT s = f32[10] scatter(o, i, u), update_window_dims={}, "
		"inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
		"index_vector_dim=1, to_apply=add\n"
		"}\n", addcomp);
	c = cost(buf);
	ck_cost(c, 3, 0, 3 * 12 + 12);
	snprintf(buf, sizeof buf, "HloModule ar\n%s"
		"ENTRY e {\n"
		"  p = f32[8] parameter(0)\n"
		"  ROOT r = f32[8] all-reduce(p), replica_groups={}, "
		"to_apply=add\n"
		"}\n", addcomp);
	c = cost(buf);
	ck_cost(c, 8, 0, 64);
}
END_TEST

START_TEST(misc_ops)
{
	HloCost c = cost("HloModule s\n"
		"lt {\n"
		"  x = f32[] parameter(0)\n"
		"  y = f32[] parameter(1)\n"
		"  ROOT l = pred[] compare(x, y), direction=LT\n"
		"}\n"
		"ENTRY e {\n"
		"  p = f32[16] parameter(0)\n"
		"  ROOT s = f32[16] sort(p), dimensions={0}, to_apply=lt\n"
		"}\n");

	ck_cost(c, 16 * 4, 0, 128);
	c = cost("HloModule rng\n"
		"ENTRY e {\n"
		"  a = f32[] constant(0)\n"
		"  b = f32[] constant(1)\n"
		"  ROOT r = f32[3,4] rng(a, b), distribution=rng_uniform\n"
		"}\n");
	ck_cost(c, 0, 12, 48 + 8);
	c = cost("HloModule fft\n"
		"ENTRY e {\n"
		"  p = c64[8,16] parameter(0)\n"
		"  ROOT f = c64[8,16] fft(p), fft_type=FFT, fft_length={16}\n"
		"}\n");
	ck_cost(c, 2 * 4 * 4 * 128, 0, 2 * 8 * 128);
	c = cost("HloModule la\n"
		"ENTRY e {\n"
		"  a = f32[4,4] parameter(0)\n"
		"  b = f32[4,3] parameter(1)\n"
		"  ROOT t = f32[4,3] triangular-solve(a, b), left_side=true, "
		"lower=true, transpose_a=NO_TRANSPOSE\n"
		"}\n");
	ck_cost(c, 2 * 4 * 12, 0, 48 + 32 + 48);
	c = cost("HloModule ch\n"
		"ENTRY e {\n"
		"  a = f32[4,4] parameter(0)\n"
		"  ROOT c = f32[4,4] cholesky(a), lower=true\n"
		"}\n");
	ck_cost(c, 21, 0, 64);
}
END_TEST

START_TEST(fusion)
{
	HloCost c = cost("HloModule f\n"
		"fused {\n"
		"  p0 = f32[10] parameter(0)\n"
		"  p1 = f32[10] parameter(1)\n"
		"  a = f32[10] add(p0, p1)\n"
		"  m = f32[10] multiply(a, p0)\n"
		"  ROOT x = f32[10] exponential(m)\n"
		"}\n"
		"ENTRY e {\n"
		"  x = f32[10] parameter(0)\n"
		"  y = f32[10] parameter(1)\n"
		"  ROOT f = f32[10] fusion(x, y), kind=kLoop, calls=fused\n"
		"}\n");

	/* the body counts; bytes only at the boundary, p0 read once */
	ck_cost(c, 20, 10, 40 + 40 + 40);
	ck_assert_int_eq(c.instructions, 8);
	ck_assert_int_eq(c.computations, 2);
	ck_assert_int_eq(c.opcount[HOP_FUSION], 1);
	ck_assert_int_eq(c.opcount[HOP_PARAMETER], 4);
	/* a slice reads only its part; a large constant is read */
	c = cost("HloModule f\n"
		"fused {\n"
		"  p0 = f32[100] parameter(0)\n"
		"  s = f32[4] slice(p0), slice={[0:4]}\n"
		"  k = f32[4] constant({1, 2, 3, 4})\n"
		"  ROOT a = f32[4] add(s, k)\n"
		"}\n"
		"ENTRY e {\n"
		"  x = f32[100] parameter(0)\n"
		"  ROOT f = f32[4] fusion(x), kind=kLoop, calls=fused\n"
		"}\n");
	ck_cost(c, 4, 0, 16 + 16 + 16);
	/* a dynamic-update-slice root costs as much as unfused */
	c = cost("HloModule f\n"
		"fused {\n"
		"  p0 = f32[100] parameter(0)\n"
		"  p1 = f32[10] parameter(1)\n"
		"  i = s32[] parameter(2)\n"
		"  ROOT d = f32[100] dynamic-update-slice(p0, p1, i)\n"
		"}\n"
		"ENTRY e {\n"
		"  x = f32[100] parameter(0)\n"
		"  y = f32[10] parameter(1)\n"
		"  j = s32[] parameter(2)\n"
		"  ROOT f = f32[100] fusion(x, y, j), kind=kLoop, calls=fused\n"
		"}\n");
	ck_cost(c, 0, 0, 2 * 40 + 4);
}
END_TEST

/* kernels: launches of the entry and of the computations control flow
 * runs; a fusion is one, reducers and fused bodies none */
START_TEST(kernels)
{
	HloCost c = cost("HloModule k\n"
		"fused {\n"
		"  p0 = f32[10] parameter(0)\n"
		"  n = f32[10] negate(p0)\n"
		"  ROOT x = f32[10] exponential(n)\n"
		"}\n"
		"add {\n"
		"  x = f32[] parameter(0)\n"
		"  y = f32[] parameter(1)\n"
		"  ROOT s = f32[] add(x, y)\n"
		"}\n"
		"body {\n"
		"  t = (f32[10]) parameter(0)\n"
		"  g = f32[10] get-tuple-element(t), index=0\n"
		"  a = f32[10] abs(g)\n"
		"  ROOT r = (f32[10]) tuple(a)\n"
		"}\n"
		"cond {\n"
		"  t = (f32[10]) parameter(0)\n"
		"  ROOT b = pred[] constant(false)\n"
		"}\n"
		"ENTRY e {\n"
		"  x = f32[10] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  f = f32[10] fusion(x), kind=kLoop, calls=fused\n"
		"  b = f32[10] bitcast(f)\n"
		"  s = f32[] reduce(b, z), dimensions={0}, to_apply=add\n"
		"  t = (f32[10]) tuple(f)\n"
		"  w = (f32[10]) while(t), body=body, condition=cond\n"
		"  ROOT o = (f32[], (f32[10])) tuple(s, w)\n"
		"}\n");

	/* fusion, reduce, while; the body's abs */
	ck_assert_int_eq(c.kernels, 4);
}
END_TEST

START_TEST(dead_not_counted)
{
	HloModule *m = parse("HloModule d\n"
		"unused {\n"
		"  p = f32[8] parameter(0)\n"
		"  ROOT x = f32[8] exponential(p)\n"
		"}\n"
		"ENTRY e {\n"
		"  x = f32[8] parameter(0)\n"
		"  n = f32[8] negate(x)\n"
		"  ROOT a = f32[8] add(x, x)\n"
		"}\n");
	HloCost c;
	HloError e;
	uint32_t i;

	ck_assert_int_eq(hlo_cost(m, &c, &e), 0);
	ck_assert_int_eq(c.instructions, 3);
	ck_assert_int_eq(c.computations, 1);
	ck_cost(c, 16, 0, 64 + 96);
	ck_assert_int_eq(c.opcount[HOP_EXP], 0);
	for (i = 0; i < m->comps[m->entry].nins; i++)
		if (hlo_ins(m, m->entry, i)->op == HOP_NEGATE)
			hlo_ins(m, m->entry, i)->flags |= HI_DEAD;
	ck_assert_int_eq(hlo_cost(m, &c, &e), 0);
	ck_assert_int_eq(c.instructions, 2);
	ck_assert_int_eq(c.opcount[HOP_NEGATE], 0);
	ck_cost(c, 8, 0, 96);
	ck_assert_int_eq(hlo_cost_count(m), 2);
	hlo_module_free(m);
}
END_TEST

START_TEST(reports)
{
	HloModule *m = parse("HloModule dot\n"
		"ENTRY e {\n"
		"  a = f32[10,5] parameter(0)\n"
		"  b = f32[5,30] parameter(1)\n"
		"  ROOT d = f32[10,30] dot(a, b), lhs_contracting_dims={1}, "
		"rhs_contracting_dims={0}\n"
		"}\n");
	HloCost c;
	HloError e;
	HloBuf b = {0};

	ck_assert_int_eq(hlo_cost(m, &c, &e), 0);
	hlo_cost_json(m, &c, &b);
	ck_assert_str_eq(b.buf, "{\"module\": \"dot\", \"instructions\": 3, "
		"\"computations\": 1, \"flops\": 3000, \"transcendentals\": 0, "
		"\"bytes_accessed\": 2000, \"kernels\": 1, \"opcodes\": {\"dot\": 1, "
		"\"parameter\": 2}}\n");
	b.len = 0;
	hlo_cost_text(m, &c, &b);
	ck_assert_str_eq(b.buf,
		"module           dot\n"
		"instructions     3\n"
		"computations     1\n"
		"flops            3000\n"
		"transcendentals  0\n"
		"bytes accessed   2000\n"
		"kernels          1\n"
		"\n"
		"parameter                      2\n"
		"dot                            1\n");
	hlo_buf_free(&b);
	hlo_module_free(m);
}
END_TEST

START_TEST(json_escapes)
{
	HloModule *m = hlo_module_new();
	HloCost c;
	HloBuf b = {0};

	memset(&c, 0, sizeof c);
	m->name = hlo_strz(m, "a\"b\\c\n\xff\xc3\xa9");
	hlo_cost_json(m, &c, &b);
	ck_assert_str_eq(b.buf, "{\"module\": "
		"\"a\\\"b\\\\c\\u000a\\ufffd\xc3\xa9\", "
		"\"instructions\": 0, \"computations\": 0, \"flops\": 0, "
		"\"transcendentals\": 0, \"bytes_accessed\": 0, "
		"\"kernels\": 0, \"opcodes\": {}}\n");
	hlo_buf_free(&b);
	hlo_module_free(m);
}
END_TEST

/* built with the IR API: a computation that calls itself is an error,
 * not a hang */
START_TEST(call_cycle)
{
	HloModule *m = hlo_module_new();
	uint32_t c = hlo_comp_add(m, hlo_strz(m, "e"));
	uint32_t s = hlo_shape_scalar(m, TY_F32), p, k;
	HloCost cst;
	HloError e;

	p = hlo_instr_add(m, c, HOP_PARAMETER, s, hlo_strz(m, "p"), 0, NULL);
	k = hlo_instr_add(m, c, HOP_CALL, s, hlo_strz(m, "k"), 1, &p);
	hlo_set_called(m, c, k, 1, &c);
	m->comps[c].root = k;
	m->entry = c;
	ck_assert_int_eq(hlo_cost(m, &cst, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "calls itself"));
	ck_assert_int_eq(hlo_cost_count(m), 2);
	hlo_module_free(m);
}
END_TEST

/* the data/ folder of the repository, else the corpus */
static int
findmodule(const char *rel, char *path, size_t n)
{
	const char *dirs[2] = {"data", getenv("HLOPT_CORPUS")};
	struct stat st;
	int k;

	if (!dirs[1])
		dirs[1] = "../shared/corpus";
	for (k = 0; k < 2; k++) {
		snprintf(path, n, "%s/%s", dirs[k], rel);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			return 0;
	}
	return -1;
}

/* real modules, skipped when absent: cost agrees with the fast count,
 * and the flops match a hand count or the model's known size */
START_TEST(real_modules)
{
	static const struct {
		const char *path;
		double lo, hi;		/* flops bounds */
		double trans;		/* exact transcendentals, or -1 */
	} files[] = {
		/* two batched 12x128x128x64 matmuls, 2 * 25165824, plus
		 * the softmax: 4 * 196608 elementwise, 2 * 195072 reduce,
		 * 2 * 1536 elementwise; 196608 exp */
		{"xla-benchmarks/backends/cpu/benchmarks/hlo/"
			"mha_block_1x12x128x64_bf16.hlo",
			51511296, 51511296, 196608},
		/* depthwise 3x3 same-padded over 56x56: 166 valid
		 * positions per dim, 2 * 256 * 166 * 166 */
		{"xla-benchmarks/backends/cpu/benchmarks/hlo/"
			"depthwise_conv_3x3_1x256x56x56_bf16.hlo",
			14108672, 14108672, 0},
		/* MobileNet-V2 training step, batch 96 at 224x224:
		 * ~0.6 GFLOP per image forward, ~3x for forward+backward */
		{"xla-benchmarks/tools/data/benchmarking/mobilenet_v2.hlo",
			150e9, 200e9, -1},
	};
	char path[1024];
	size_t k;

	for (k = 0; k < sizeof files / sizeof files[0]; k++) {
		HloModule *m;
		HloCost c;
		HloError e;

		if (findmodule(files[k].path, path, sizeof path) < 0)
			continue;
		if (hlo_load(path, &m, &e) < 0)
			ck_abort_msg("%s", e.msg);
		ck_assert_int_eq(hlo_cost(m, &c, &e), 0);
		ck_assert_int_eq(hlo_cost_count(m), c.instructions);
		ck_assert_msg(c.flops >= files[k].lo && c.flops <= files[k].hi,
			"%s: %.0f flops", path, c.flops);
		if (files[k].trans >= 0)
			ck_assert_double_eq(c.transcendentals, files[k].trans);
		hlo_module_free(m);
	}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("cost");
	TCase *tc = tcase_create("rules");
	TCase *tr = tcase_create("corpus");
	SRunner *sr;
	int nf;

	tcase_add_test(tc, dot_matmul);
	tcase_add_test(tc, dot_batch_and_multi);
	tcase_add_test(tc, conv_valid);
	tcase_add_test(tc, conv_padding);
	tcase_add_test(tc, conv_stride_dilation);
	tcase_add_test(tc, conv_groups);
	tcase_add_test(tc, conv_extreme);
	tcase_add_test(tc, reduce_sum);
	tcase_add_test(tc, reduce_window);
	tcase_add_test(tc, elementwise);
	tcase_add_test(tc, data_movement);
	tcase_add_test(tc, bytes_special);
	tcase_add_test(tc, called);
	tcase_add_test(tc, applied);
	tcase_add_test(tc, misc_ops);
	tcase_add_test(tc, fusion);
	tcase_add_test(tc, kernels);
	tcase_add_test(tc, dead_not_counted);
	tcase_add_test(tc, reports);
	tcase_add_test(tc, json_escapes);
	tcase_add_test(tc, call_cycle);
	suite_add_tcase(s, tc);
	tcase_add_test(tr, real_modules);
	tcase_set_timeout(tr, 60);
	suite_add_tcase(s, tr);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? 1 : 0;
}
