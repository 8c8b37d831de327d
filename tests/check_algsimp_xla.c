/* check_algsimp_xla.c: the algebraic simplifier (and the passes that
 * rewrite copies, bitcasts, reshapes and transposes) on cases taken from
 * xla's algebraic_simplifier_test.cc, and where hlopt is deliberately
 * stricter than xla:
 *
 *   - layouts: a module with a bitcast is simplified layout-sensitively
 *     (CopyBitcastCopy, CopyReshapeCopy3, BitcastCopyChainSmall, ...);
 *   - special values: every rule that could differ on 0, -0, inf or NaN
 *     is run on inputs made of them and compared with the original:
 *     NaN equals NaN, zeros and infinities must match with their signs,
 *     other values up to rounding;
 *   - preconditions xla assumes (MaxOfClamp: lo <= hi; an init that is
 *     the identity of the reducer);
 *   - rewrites xla has that hlopt lacked (sqrt(x*x), ...).
 *
 * Modules are compared by structure, as in check_algsimp.c: every
 * computation renumbered in post order from its root. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "eval.h"
#include "pass.h"
#include "algsimp.h"
#include "testutil.h"

static HloModule *
parse(const char *text)
{
	HloModule *m = NULL;
	HloError e;

	if (hlo_parse_text(text, strlen(text), "test.hlo", &m, &e) < 0)
		ck_abort_msg("parse: %s\n%s", e.msg, text);
	if (hlo_verify(m, &e) < 0)
		ck_abort_msg("verify input: %s\n%s", e.msg, text);
	return m;
}

/* runs the pass sequence seq ("algsimp" for the simplifier) on m */
static int
run(HloModule *m, const char *seq)
{
	PassCtx ctx;
	PassSeq s = {0};
	HloError e;
	int r;

	if (pass_seq_parse(seq, &s, &e) < 0)
		ck_abort_msg("sequence %s: %s", seq, e.msg);
	pass_ctx_init(&ctx);
	ctx.flags = PASS_VERIFY;
	r = pass_run_seq(m, &s, &ctx, NULL);
	if (r < 0)
		ck_abort_msg("%s: %s", seq, ctx.err.msg);
	pass_ctx_free(&ctx);
	pass_seq_free(&s);
	return r;
}

/* in becomes out (by structure) under seq */
static void
expect_seq(const char *seq, const char *in, const char *out)
{
	HloModule *m = parse(in), *w = parse(out);
	char *got, *want;
	int r = run(m, seq);

	got = tu_canon(m);
	want = tu_canon(w);
	if (strcmp(got, want))
		ck_abort_msg("\n--- in\n%s--- got\n%s--- want\n%s", in, got,
			want);
	ck_assert_int_eq(r, 1);
	free(got);
	free(want);
	hlo_module_free(m);
	hlo_module_free(w);
}

static void
expect(const char *in, const char *out)
{
	expect_seq("algsimp", in, out);
}

/* seq leaves in as it is */
static void
unchanged_seq(const char *seq, const char *in)
{
	HloModule *m = parse(in);
	char *before = tu_print(m), *after;
	int r = run(m, seq);

	after = tu_print(m);
	if (strcmp(before, after))
		ck_abort_msg("%s changed:\n%s--- into\n%s", seq, before, after);
	ck_assert_int_eq(r, 0);
	free(before);
	free(after);
	hlo_module_free(m);
}

static void
unchanged(const char *in)
{
	unchanged_seq("algsimp", in);
}

/* ---- special values ----
 * Float parameters of n elements are filled so that every combination of
 * the special values below meets in some element: parameter p at element
 * j takes value (j / S^p) % S. Integer parameters take small values,
 * preds alternate. */

static const double specials[] = {
	0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 2.0, 0.5, -3.0,
};
#define NSPEC ((int64_t)(sizeof specials / sizeof specials[0]))

static void
fill(HloVal *v, int p)
{
	int64_t j, div = 1, k;
	int t = v->type, esz = hlo_type_bytes(t);
	Lane l;

	for (k = 0; k < p; k++)
		div *= NSPEC;
	for (j = 0; j < v->n; j++) {
		memset(&l, 0, sizeof l);
		switch (hlo_typeinfo[t].cls) {
		case C_FLOAT:
			l.f = specials[(j / div) % NSPEC];
			break;
		case C_CPLX:
			l.c[0] = specials[(j / div) % NSPEC];
			l.c[1] = specials[(j / div / 3) % NSPEC];
			break;
		case C_PRED:
			l.u = (j / (div > 1 ? div / NSPEC + 1 : 1)) & 1;
			break;
		case C_SINT:
			l.s = (j / div) % 7 - 3;
			break;
		default:
			l.u = (j / div) % 7;
		}
		ev_lane_store(t, &l, 1, v->data + j * esz);
	}
}

/* the outputs of m's entry (leaf 0) on the special inputs, as lanes */
static int64_t
eval_specials(const HloModule *m, Lane *out, int64_t max, int *type)
{
	HloError e;
	HloEval ev;
	HloVal **args, *res = NULL, *o;
	uint32_t np, p, i;
	int64_t j, n = -1;

	hlo_eval_init(&ev, m, 0, &e);
	np = hlo_param_count(m, m->entry);
	args = calloc(np + 1, sizeof *args);
	for (p = 0; p < np; p++) {
		i = hlo_param(m, m->entry, p);
		args[p] = hlo_val_array(&ev, hlo_ins(m, m->entry, i)->shape);
		fill(args[p], (int)p);
	}
	if (hlo_eval_entry(&ev, args, np, &res) < 0)
		ck_abort_msg("eval: %s", e.msg);
	o = res;
	while (o->type == TY_TUPLE)
		o = o->elems[0];
	*type = o->type;
	n = o->n;
	for (j = 0; j < n && j < max; j++)
		ev_lane_load(o->type, o->data + j * hlo_type_bytes(o->type), 1,
			&out[j]);
	hlo_val_unref(&ev, res);
	hlo_eval_free_args(&ev, args, np);
	hlo_eval_fini(&ev);
	return n;
}

/* NaN is NaN, zeros and infinities are equal with their signs, other
 * values up to rounding (a relative 1e-5) */
static int
same_double(double x, double y)
{
	if (isnan(x) || isnan(y))
		return isnan(x) && isnan(y);
	if (x == 0 || y == 0 || isinf(x) || isinf(y))
		return x == y && !signbit(x) == !signbit(y);
	return fabs(x - y) <= 1e-5 * fmax(fabs(x), fabs(y));
}

static int
same_lane(int t, const Lane *a, const Lane *b)
{
	switch (hlo_typeinfo[t].cls) {
	case C_FLOAT:
		return same_double(a->f, b->f);
	case C_CPLX:
		return same_double(a->c[0], b->c[0]) &&
			same_double(a->c[1], b->c[1]);
	}
	return a->u == b->u;
}

#define MAXOUT 4096

/* seq on in gives the same outputs on the special inputs, bit for bit;
 * returns whether seq changed the module */
static int
same_on_specials_seq(const char *seq, const char *in)
{
	HloModule *m = parse(in), *o = parse(in);
	Lane *x = malloc(MAXOUT * sizeof *x), *y = malloc(MAXOUT * sizeof *y);
	int tx, ty, r = run(m, seq);
	int64_t nx, ny, j;

	nx = eval_specials(o, x, MAXOUT, &tx);
	ny = eval_specials(m, y, MAXOUT, &ty);
	ck_assert_int_eq(nx, ny);
	ck_assert_int_eq(tx, ty);
	for (j = 0; j < nx && j < MAXOUT; j++)
		if (!same_lane(tx, &x[j], &y[j])) {
			char *t = tu_print(m);

			ck_abort_msg("element %lld differs: %.17g (sign %d) vs "
				"%.17g (sign %d)\n--- in\n%s--- out\n%s",
				(long long)j, x[j].f, !!signbit(x[j].f), y[j].f,
				!!signbit(y[j].f), in, t);
		}
	free(x);
	free(y);
	hlo_module_free(m);
	hlo_module_free(o);
	return r;
}

static int
same_on_specials(const char *in)
{
	return same_on_specials_seq("algsimp", in);
}

#define T(name) START_TEST(name)
#define E END_TEST

#define ADD_COMP "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n" \
	"  ROOT c = f32[] add(a, b)\n}\n"
#define MAX_COMP "mx {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n" \
	"  ROOT c = f32[] maximum(a, b)\n}\n"

/* ---- layouts (xla's is_layout_sensitive cases) ---- */

T(layout_copy_bitcast_copy)
{
	/* CopyBitcastCopy: xla swaps copy and bitcast (bitcast(copy(p)));
	 * hlopt keeps the chain, never the old bitcast(p) */
	unchanged("HloModule m\nENTRY test {\n"
		" p = bf16[1600,50,512]{2,0,1:T(8,128)(2,1)} parameter(0)\n"
		" c = bf16[1600,50,512]{0,2,1:T(8,128)(2,1)} copy(p)\n"
		" b = bf16[1600,50,16,32]{0,3,2,1:T(8,128)(2,1)} bitcast(c)\n"
		" ROOT r = bf16[1600,50,16,32]{1,3,2,0:T(8,128)(2,1)} copy(b)\n"
		"}\n");
	/* CopyBitcastCopy2: no change */
	unchanged("HloModule m\nENTRY test {\n"
		" p = f32[8,3,3,7,7]{4,0,3,2,1:T(8,128)} parameter(0)\n"
		" c = f32[8,3,3,7,7]{4,3,2,1,0:T(8,128)} copy(p)\n"
		" b = f32[1,72,7,7]{3,2,1,0:T(8,128)} bitcast(c)\n"
		" ROOT r = f32[1,72,7,7]{1,3,2,0:T(8,128)} copy(b)\n}\n");
}
E

T(layout_copy_reshape_copy)
{
	/* CopyReshapeCopy3 and 4: no change */
	unchanged("HloModule m\nENTRY main {\n"
		"  p = f32[2,3]{0,1} parameter(0)\n"
		"  c = f32[2,3]{1,0} copy(p)\n"
		"  b = f32[3,2]{1,0} bitcast(c)\n"
		"  ROOT r = f32[3,2]{0,1} copy(b)\n}\n");
	unchanged("HloModule m\nENTRY main {\n"
		"  p = f32[6,2,3]{0,1,2} parameter(0)\n"
		"  c = f32[6,2,3]{0,2,1} copy(p)\n"
		"  b = f32[2,3,6]{1,0,2} bitcast(c)\n"
		"  ROOT r = f32[2,3,6]{0,1,2} copy(b)\n}\n");
	/* ArrayOvershootTest: no change */
	unchanged("HloModule m\nENTRY test {\n"
		"  p = f32[18,18,2,1,1,128]{1,0,5,2,4,3} parameter(0)\n"
		"  c = f32[18,18,2,1,1,128]{5,2,1,0,4,3} copy(p)\n"
		"  b = f32[648,128,1,1]{3,2,1,0} bitcast(c)\n"
		"  ROOT r = f32[648,128,1,1]{3,2,0,1} copy(b)\n}\n");
}
E

T(layout_copy_that_is_a_bitcast)
{
	/* BitcastCopyChainSmall: the last copy keeps the memory order (its
	 * layouts differ in 1-sized dimensions only): a bitcast, merged
	 * with the one below (xla leaves two bitcasts) */
	expect("HloModule m\nENTRY main {\n"
		" p = f32[4,1,1,32,32]{3,4,0,1,2} parameter(0)\n"
		" c = f32[4,1,1,32,32]{4,3,0,2,1} copy(p)\n"
		" b = f32[1024,4,1,1]{0,3,2,1} bitcast(c)\n"
		" ROOT r = f32[1024,4,1,1]{0,1,3,2} copy(b)\n}\n",
		"HloModule m\nENTRY main {\n"
		" p = f32[4,1,1,32,32]{3,4,0,1,2} parameter(0)\n"
		" c = f32[4,1,1,32,32]{4,3,0,2,1} copy(p)\n"
		" ROOT b = f32[1024,4,1,1]{0,1,3,2} bitcast(c)\n}\n");
	/* CopyBitcastCopyDimSize1: the transpose is a bitcast, so is the
	 * last copy; xla: Bitcast(Bitcast(Copy(Bitcast(P)))) */
	expect("HloModule m\nENTRY test {\n"
		" p = f32[9,1,12]{2,1,0} parameter(0)\n"
		" t = f32[1,12,9]{1,0,2} transpose(p), dimensions={1,2,0}\n"
		" c = f32[1,12,9]{2,1,0} copy(t)\n"
		" b = f32[1,108]{1,0} bitcast(c)\n"
		" ROOT r = f32[1,108]{0,1} copy(b)\n}\n",
		"HloModule m\nENTRY test {\n"
		" p = f32[9,1,12]{2,1,0} parameter(0)\n"
		" t = f32[1,12,9]{1,0,2} bitcast(p)\n"
		" c = f32[1,12,9]{2,1,0} copy(t)\n"
		" ROOT b = f32[1,108]{0,1} bitcast(c)\n}\n");
}
E

T(layout_without_bitcast_is_ignored)
{
	/* no bitcast: layouts never change a value, copies go */
	expect("HloModule m\nENTRY main {\n"
		"  p = f32[2,3]{0,1} parameter(0)\n"
		"  ROOT c = f32[2,3]{1,0} copy(p)\n}\n",
		"HloModule m\nENTRY main {\n"
		"  ROOT p = f32[2,3]{0,1} parameter(0)\n}\n");
}
E

T(layout_kept_by_replacements)
{
	/* with a bitcast in the module, the no-op transpose that changes
	 * the layout is not removed: a copy stands for it */
	expect("HloModule m\nENTRY main {\n"
		"  p = f32[2,3]{1,0} parameter(0)\n"
		"  t = f32[2,3]{0,1} transpose(p), dimensions={0,1}\n"
		"  ROOT b = f32[6]{0} bitcast(t)\n}\n",
		"HloModule m\nENTRY main {\n"
		"  p = f32[2,3]{1,0} parameter(0)\n"
		"  t = f32[2,3]{0,1} copy(p)\n"
		"  ROOT b = f32[6]{0} bitcast(t)\n}\n");
	/* negate(negate(x)) changing layouts: not compatible (xla's
	 * ReplaceInstructionIfCompatible compares layouts) */
	unchanged("HloModule m\nENTRY main {\n"
		"  p = f32[2,3]{1,0} parameter(0)\n"
		"  n = f32[2,3]{0,1} negate(p)\n"
		"  n2 = f32[2,3]{0,1} negate(n)\n"
		"  ROOT b = f32[6]{0} bitcast(n2)\n}\n");
}
E

T(layout_cse_and_other_passes)
{
	/* two copies of p in different layouts feed bitcasts: cse must not
	 * merge them */
	unchanged_seq("cse", "HloModule m\nENTRY main {\n"
		"  p = f32[2,3]{1,0} parameter(0)\n"
		"  c1 = f32[2,3]{0,1} copy(p)\n"
		"  c2 = f32[2,3]{1,0} copy(p)\n"
		"  b1 = f32[6]{0} bitcast(c1)\n"
		"  b2 = f32[6]{0} bitcast(c2)\n"
		"  ROOT t = (f32[6]{0}, f32[6]{0}) tuple(b1, b2)\n}\n");
	/* simplify-fp-conversions drops convert(convert(x)); with a bitcast
	 * after it a copy keeps the layout */
	expect_seq("simplify-fp-conversions", "HloModule m\nENTRY main {\n"
		"  p = f32[2,3]{1,0} parameter(0)\n"
		"  c1 = bf16[2,3]{1,0} convert(p)\n"
		"  c2 = f32[2,3]{0,1} convert(c1)\n"
		"  ROOT b = f32[6]{0} bitcast(c2)\n}\n",
		"HloModule m\nENTRY main {\n"
		"  p = f32[2,3]{1,0} parameter(0)\n"
		"  c = f32[2,3]{0,1} copy(p)\n"
		"  ROOT b = f32[6]{0} bitcast(c)\n}\n");
}
E

/* ---- special values ---- */

T(special_add_zero)
{
	/* x + 0 is +0 for x = -0: not x */
	const char *plus = "HloModule m\nENTRY e {\n"
		"  p = f32[100] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  b = f32[100] broadcast(z), dimensions={}\n"
		"  ROOT a = f32[100] add(p, b)\n}\n";

	ck_assert_int_eq(same_on_specials(plus), 0);
	/* x + -0 is x */
	expect("HloModule m\nENTRY e {\n"
		"  p = f32[100] parameter(0)\n"
		"  z = f32[] constant(-0)\n"
		"  b = f32[100] broadcast(z), dimensions={}\n"
		"  ROOT a = f32[100] add(p, b)\n}\n",
		"HloModule m\nENTRY e {\n  ROOT p = f32[100] parameter(0)\n}\n");
	/* |x| + 0 is |x|: never -0 */
	expect("HloModule m\nENTRY e {\n"
		"  p = f32[100] parameter(0)\n"
		"  q = f32[100] abs(p)\n"
		"  z = f32[] constant(0)\n"
		"  b = f32[100] broadcast(z), dimensions={}\n"
		"  ROOT a = f32[100] add(q, b)\n}\n",
		"HloModule m\nENTRY e {\n  p = f32[100] parameter(0)\n"
		"  ROOT q = f32[100] abs(p)\n}\n");
	/* x - (-0) is x + 0 */
	ck_assert_int_eq(same_on_specials("HloModule m\nENTRY e {\n"
		"  p = f32[100] parameter(0)\n"
		"  z = f32[] constant(-0)\n"
		"  b = f32[100] broadcast(z), dimensions={}\n"
		"  ROOT a = f32[100] subtract(p, b)\n}\n"), 1);
	ck_assert_int_eq(same_on_specials("HloModule m\nENTRY e {\n"
		"  p = f32[100] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  b = f32[100] broadcast(z), dimensions={}\n"
		"  ROOT a = f32[100] subtract(p, b)\n}\n"), 1);
	/* integers keep the rule */
	expect("HloModule m\nENTRY e {\n"
		"  p = s32[10] parameter(0)\n"
		"  z = s32[] constant(0)\n"
		"  b = s32[10] broadcast(z), dimensions={}\n"
		"  ROOT a = s32[10] add(p, b)\n}\n",
		"HloModule m\nENTRY e {\n  ROOT p = s32[10] parameter(0)\n}\n");
}
E

T(special_scalar_divide_predicate)
{
	/* ScalarDividePredicate: convert(pred) / broadcast(y) was
	 * select(pred, 1/y, 0): 0 where 0/0 is NaN and 0/-2 is -0. It
	 * stays a multiply by the reciprocal, exact on every y */
	const char *in = "HloModule m\nENTRY e {\n"
		"  pr = pred[100] parameter(0)\n"
		"  y = f32[] parameter(1)\n"
		"  c = f32[100] convert(pr)\n"
		"  b = f32[100] broadcast(y), dimensions={}\n"
		"  ROOT d = f32[100] divide(c, b)\n}\n";

	ck_assert_int_eq(same_on_specials(in), 1);
	expect(in, "HloModule m\nENTRY e {\n"
		"  pr = pred[100] parameter(0)\n"
		"  y = f32[] parameter(1)\n"
		"  one = f32[] constant(1)\n"
		"  r = f32[] divide(one, y)\n"
		"  b = f32[100] broadcast(r), dimensions={}\n"
		"  c = f32[100] convert(pr)\n"
		"  ROOT d = f32[100] multiply(b, c)\n}\n");
}
E

T(special_multiply_by_converted_pred)
{
	/* x * convert(p): a float x of inf or NaN gives NaN where p is
	 * false, a negative x gives -0: not select(p, x, 0) */
	ck_assert_int_eq(same_on_specials("HloModule m\nENTRY e {\n"
		"  x = f32[100] parameter(0)\n"
		"  pr = pred[100] parameter(1)\n"
		"  c = f32[100] convert(pr)\n"
		"  ROOT d = f32[100] multiply(x, c)\n}\n"), 0);
	expect("HloModule m\nENTRY e {\n"
		"  x = s32[10] parameter(0)\n"
		"  pr = pred[10] parameter(1)\n"
		"  c = s32[10] convert(pr)\n"
		"  ROOT d = s32[10] multiply(x, c)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = s32[10] parameter(0)\n"
		"  pr = pred[10] parameter(1)\n"
		"  z = s32[] constant(0)\n"
		"  b = s32[10] broadcast(z), dimensions={}\n"
		"  ROOT d = s32[10] select(pr, x, b)\n}\n");
}
E

T(special_compare_nonneg)
{
	/* |x| >= 0 is false for NaN */
	ck_assert_int_eq(same_on_specials("HloModule m\nENTRY e {\n"
		"  x = f32[100] parameter(0)\n"
		"  a = f32[100] abs(x)\n"
		"  z = f32[] constant(0)\n"
		"  b = f32[100] broadcast(z), dimensions={}\n"
		"  ROOT c = pred[100] compare(a, b), direction=GE\n}\n"), 0);
	/* |x| < 0 is false for every x, NaN included */
	ck_assert_int_eq(same_on_specials("HloModule m\nENTRY e {\n"
		"  x = f32[100] parameter(0)\n"
		"  a = f32[100] abs(x)\n"
		"  z = f32[] constant(0)\n"
		"  b = f32[100] broadcast(z), dimensions={}\n"
		"  ROOT c = pred[100] compare(a, b), direction=LT\n}\n"), 1);
	/* an iota converted to float is never NaN */
	expect("HloModule m\nENTRY e {\n"
		"  i = s32[10] iota(), iota_dimension=0\n"
		"  x = f32[10] convert(i)\n"
		"  a = f32[10] abs(x)\n"
		"  z = f32[] constant(0)\n"
		"  b = f32[10] broadcast(z), dimensions={}\n"
		"  ROOT c = pred[10] compare(a, b), direction=GE\n}\n",
		"HloModule m\nENTRY e {\n"
		"  t = pred[] constant(true)\n"
		"  ROOT b = pred[10] broadcast(t), dimensions={}\n}\n");
}
E

T(special_log_rules)
{
	/* log(pow(A, B)) for A < 0 is NaN (B fractional or odd); B * log|A|
	 * is not */
	ck_assert_int_eq(same_on_specials("HloModule m\nENTRY e {\n"
		"  x = f32[100] parameter(0)\n"
		"  y = f32[100] parameter(1)\n"
		"  p = f32[100] power(x, y)\n"
		"  ROOT l = f32[100] log(p)\n}\n"), 0);
	/* log(rsqrt(x)) is +0 at x = 1 and NaN at x = -0; -0.5 * log(x)
	 * gives -0 and inf */
	ck_assert_int_eq(same_on_specials("HloModule m\nENTRY e {\n"
		"  x = f32[10] parameter(0)\n"
		"  r = f32[10] rsqrt(x)\n"
		"  ROOT l = f32[10] log(r)\n}\n"), 0);
	/* log(sqrt(x)) is exact on the special values */
	ck_assert_int_eq(same_on_specials("HloModule m\nENTRY e {\n"
		"  x = f32[10] parameter(0)\n"
		"  r = f32[10] sqrt(x)\n"
		"  ROOT l = f32[10] log(r)\n}\n"), 1);
	/* with A = |x| and B = 3: B * log(|A|) */
	ck_assert_int_eq(same_on_specials("HloModule m\nENTRY e {\n"
		"  x = f32[10] parameter(0)\n"
		"  a = f32[10] abs(x)\n"
		"  c = f32[] constant(3)\n"
		"  b = f32[10] broadcast(c), dimensions={}\n"
		"  p = f32[10] power(a, b)\n"
		"  ROOT l = f32[10] log(p)\n}\n"), 1);
}
E

T(special_reduce_of_negate)
{
	/* sum of -x from +0 over zeros is +0; -(sum of x from +0) is -0:
	 * the new reduction starts from -0 */
	const char *in = "HloModule m\n" ADD_COMP "ENTRY e {\n"
		"  x = f32[10,10] parameter(0)\n"
		"  n = f32[10,10] negate(x)\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[10] reduce(n, z), dimensions={1}, to_apply=add\n"
		"}\n";

	ck_assert_int_eq(same_on_specials(in), 1);
	expect(in, "HloModule m\n" ADD_COMP "ENTRY e {\n"
		"  x = f32[10,10] parameter(0)\n"
		"  z = f32[] constant(-0)\n"
		"  r = f32[10] reduce(x, z), dimensions={1}, to_apply=add\n"
		"  ROOT n = f32[10] negate(r)\n}\n");
}
E

T(special_minmax_to_clamp)
{
	/* max(-0, min(x, 1)) keeps the first operand's zero; clamp does
	 * not: zero bounds are left alone */
	ck_assert_int_eq(same_on_specials("HloModule m\nENTRY e {\n"
		"  x = f32[10] parameter(0)\n"
		"  lo = f32[] constant(-0)\n"
		"  hi = f32[] constant(1)\n"
		"  bl = f32[10] broadcast(lo), dimensions={}\n"
		"  bh = f32[10] broadcast(hi), dimensions={}\n"
		"  m = f32[10] minimum(x, bh)\n"
		"  ROOT r = f32[10] maximum(bl, m)\n}\n"), 0);
	ck_assert_int_eq(same_on_specials("HloModule m\nENTRY e {\n"
		"  x = f32[10] parameter(0)\n"
		"  lo = f32[] constant(-1)\n"
		"  hi = f32[] constant(1)\n"
		"  bl = f32[10] broadcast(lo), dimensions={}\n"
		"  bh = f32[10] broadcast(hi), dimensions={}\n"
		"  m = f32[10] minimum(x, bh)\n"
		"  ROOT r = f32[10] maximum(bl, m)\n}\n"), 1);
}
E

/* ---- preconditions xla assumes ---- */

T(precondition_max_of_clamp)
{
	/* MaxOfClamp: max(p0, clamp(p0, p1, p2)) is the clamp only for
	 * p0 <= p2, which parameters do not promise */
	unchanged("HloModule m\nENTRY e {\n"
		"  p0 = f32[] parameter(0)\n"
		"  p1 = f32[] parameter(1)\n"
		"  p2 = f32[] parameter(2)\n"
		"  c = f32[] clamp(p0, p1, p2)\n"
		"  ROOT m = f32[] maximum(p0, c)\n}\n");
	ck_assert_int_eq(same_on_specials("HloModule m\nENTRY e {\n"
		"  p0 = f32[1000] parameter(0)\n"
		"  p1 = f32[1000] parameter(1)\n"
		"  p2 = f32[1000] parameter(2)\n"
		"  c = f32[1000] clamp(p0, p1, p2)\n"
		"  ROOT m = f32[1000] maximum(p0, c)\n}\n"), 0);
	/* constant bounds with lo <= hi */
	expect("HloModule m\nENTRY e {\n"
		"  lo = f32[] constant(-1)\n"
		"  x = f32[] parameter(0)\n"
		"  hi = f32[] constant(2)\n"
		"  c = f32[] clamp(lo, x, hi)\n"
		"  ROOT m = f32[] maximum(lo, c)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  lo = f32[] constant(-1)\n"
		"  x = f32[] parameter(0)\n"
		"  hi = f32[] constant(2)\n"
		"  ROOT c = f32[] clamp(lo, x, hi)\n}\n");
	unchanged("HloModule m\nENTRY e {\n"
		"  lo = f32[] constant(3)\n"
		"  x = f32[] parameter(0)\n"
		"  hi = f32[] constant(2)\n"
		"  c = f32[] clamp(lo, x, hi)\n"
		"  ROOT m = f32[] maximum(lo, c)\n}\n");
}
E

T(precondition_reduce_init_identity)
{
	/* a reduce of as many elements as results is a reshape only if the
	 * init is the reducer's identity */
	ck_assert_int_eq(same_on_specials("HloModule m\n" ADD_COMP
		"ENTRY e {\n"
		"  x = f32[10,1] parameter(0)\n"
		"  z = f32[] constant(5)\n"
		"  ROOT r = f32[10] reduce(x, z), dimensions={1}, to_apply=add\n"
		"}\n"), 0);
	/* from +0, a -0 element becomes +0 */
	ck_assert_int_eq(same_on_specials("HloModule m\n" ADD_COMP
		"ENTRY e {\n"
		"  x = f32[10,1] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[10] reduce(x, z), dimensions={1}, to_apply=add\n"
		"}\n"), 0);
	expect("HloModule m\n" MAX_COMP "ENTRY e {\n"
		"  x = f32[10,1] parameter(0)\n"
		"  z = f32[] constant(-inf)\n"
		"  ROOT r = f32[10] reduce(x, z), dimensions={1}, to_apply=mx\n"
		"}\n",
		"HloModule m\n" MAX_COMP "ENTRY e {\n"
		"  x = f32[10,1] parameter(0)\n"
		"  ROOT r = f32[10] reshape(x)\n}\n");
	/* reduce of reduce counts the init once per level */
	ck_assert_int_eq(same_on_specials("HloModule m\n" ADD_COMP
		"ENTRY e {\n"
		"  x = f32[10,3,2] parameter(0)\n"
		"  z = f32[] constant(1)\n"
		"  r1 = f32[10,3] reduce(x, z), dimensions={2}, to_apply=add\n"
		"  ROOT r = f32[10] reduce(r1, z), dimensions={1}, to_apply=add\n"
		"}\n"), 0);
	/* so does reduce of concatenate */
	ck_assert_int_eq(same_on_specials("HloModule m\n" ADD_COMP
		"ENTRY e {\n"
		"  x = f32[10,3] parameter(0)\n"
		"  y = f32[10,3] parameter(1)\n"
		"  c = f32[10,6] concatenate(x, y), dimensions={1}\n"
		"  z = f32[] constant(1)\n"
		"  ROOT r = f32[10] reduce(c, z), dimensions={1}, to_apply=add\n"
		"}\n"), 0);
}
E

/* ---- rewrites xla has ---- */

T(sqrt_of_self_multiply)
{
	/* SqrtOfSelfMultiply */
	expect("HloModule m\nENTRY e {\n"
		"  p = f32[32] parameter(0)\n"
		"  m = f32[32] multiply(p, p)\n"
		"  ROOT s = f32[32] sqrt(m)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  p = f32[32] parameter(0)\n"
		"  ROOT a = f32[32] abs(p)\n}\n");
	ck_assert_int_eq(same_on_specials("HloModule m\nENTRY e {\n"
		"  p = f32[10] parameter(0)\n"
		"  m = f32[10] multiply(p, p)\n"
		"  ROOT s = f32[10] sqrt(m)\n}\n"), 1);
	/* complex: sqrt(z * z) is +-z, not |z| (xla converts |z|) */
	unchanged("HloModule m\nENTRY e {\n"
		"  p = c64[4] parameter(0)\n"
		"  m = c64[4] multiply(p, p)\n"
		"  ROOT s = c64[4] sqrt(m)\n}\n");
}
E

T(reduce_max_shares_argmax)
{
	/* ReplaceReduceMaxWithReduceArgMax: a max reduce next to an arg-max
	 * of the same operand becomes the arg-max's value output; every
	 * pair of special values meets in some row */
	const char *in;

	/* the max plus the index, so that both outputs are compared */
	in = "HloModule m\n"
		"am {\n"
		"  a = f32[] parameter(0)\n  i = s32[] parameter(1)\n"
		"  b = f32[] parameter(2)\n  j = s32[] parameter(3)\n"
		"  gt = pred[] compare(a, b), direction=GT\n"
		"  nn = pred[] compare(a, a), direction=NE\n"
		"  vp = pred[] or(gt, nn)\n"
		"  v = f32[] select(vp, a, b)\n"
		"  eq = pred[] compare(a, b), direction=EQ\n"
		"  lt = pred[] compare(i, j), direction=LT\n"
		"  tie = pred[] and(eq, lt)\n"
		"  ip = pred[] or(vp, tie)\n"
		"  k = s32[] select(ip, i, j)\n"
		"  ROOT t = (f32[], s32[]) tuple(v, k)\n}\n"
		MAX_COMP
		"ENTRY e {\n"
		"  p = f32[100,1] parameter(0)\n"
		"  q = f32[100,1] parameter(1)\n"
		"  x = f32[100,2] concatenate(p, q), dimensions={1}\n"
		"  io = s32[100,2] iota(), iota_dimension=1\n"
		"  ninf = f32[] constant(-inf)\n"
		"  z = s32[] constant(0)\n"
		"  r = (f32[100], s32[100]) reduce(x, io, ninf, z), dimensions={1},"
		" to_apply=am\n"
		"  i = s32[100] get-tuple-element(r), index=1\n"
		"  m = f32[100] reduce(x, ninf), dimensions={1}, to_apply=mx\n"
		"  c = f32[100] convert(i)\n"
		"  ROOT s = f32[100] add(m, c)\n}\n";
	ck_assert_int_eq(same_on_specials(in), 1);
}
E

static Suite *
suite(void)
{
	Suite *s = suite_create("algsimp_xla");
	TCase *l = tcase_create("layouts");
	TCase *v = tcase_create("special values");
	TCase *p = tcase_create("preconditions");
	TCase *r = tcase_create("rewrites");

	tcase_add_test(l, layout_copy_bitcast_copy);
	tcase_add_test(l, layout_copy_reshape_copy);
	tcase_add_test(l, layout_copy_that_is_a_bitcast);
	tcase_add_test(l, layout_without_bitcast_is_ignored);
	tcase_add_test(l, layout_kept_by_replacements);
	tcase_add_test(l, layout_cse_and_other_passes);
	tcase_add_test(v, special_add_zero);
	tcase_add_test(v, special_scalar_divide_predicate);
	tcase_add_test(v, special_multiply_by_converted_pred);
	tcase_add_test(v, special_compare_nonneg);
	tcase_add_test(v, special_log_rules);
	tcase_add_test(v, special_reduce_of_negate);
	tcase_add_test(v, special_minmax_to_clamp);
	tcase_add_test(p, precondition_max_of_clamp);
	tcase_add_test(p, precondition_reduce_init_identity);
	tcase_add_test(r, sqrt_of_self_multiply);
	tcase_add_test(r, reduce_max_shares_argmax);
	suite_add_tcase(s, l);
	suite_add_tcase(s, v);
	suite_add_tcase(s, p);
	suite_add_tcase(s, r);
	return s;
}

int
main(void)
{
	SRunner *r = srunner_create(suite());
	int failed;

	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed != 0;
}
