/* check_algsimp.c: the algebraic simplifier (passes/algsimp*.c) where a
 * golden file cannot say it: the rules under options hlopt has no flag
 * for, and a sweep over data/ and the corpus that checks the verifier and, where the module can
 * be evaluated, the evaluator; determinism and a fixed point. The rules
 * themselves, where they must not fire, side effects and dead operands
 * are golden tests in tests/golden/algsimp.
 *
 * expect_opts compares by structure: every computation is renumbered in
 * post order from its root, unreachable instructions dropped, so the
 * expected text may use any names and order.
 *
 * Environment: HLOPT_DATA (default data), HLOPT_CORPUS (default
 * ../shared/corpus), HLOPT_SWEEP=full for the whole corpus with the
 * evaluator (slow). */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static int64_t
live(const HloModule *m)
{
	uint32_t c, i;
	int64_t n = 0;

	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++)
			n += !(m->comps[c].ins[i].flags & HI_DEAD);
	return n;
}

static int
simp_opts(HloModule *m, const AlgOpts *o)
{
	PassCtx ctx;
	HloError e;
	int r;

	pass_ctx_init(&ctx);
	r = algsimp_run(m, &ctx, o);
	if (r < 0)
		ck_abort_msg("algsimp: %s", ctx.err.msg);
	pass_ctx_free(&ctx);
	if (hlo_verify(m, &e) < 0) {
		char *t = tu_print(m);

		ck_abort_msg("verify after algsimp: %s\n%s", e.msg, t);
	}
	return r;
}

/* in simplifies to out (compared by structure) */
static void
expect_opts(const char *in, const char *out, const AlgOpts *o)
{
	HloModule *m = parse(in), *w = parse(out);
	char *got, *want;
	int r = simp_opts(m, o);

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

/* nothing fires on in */
static void
unchanged_opts(const char *in, const AlgOpts *o)
{
	HloModule *m = parse(in);
	char *before = tu_print(m), *after;
	int r = simp_opts(m, o);

	after = tu_print(m);
	if (strcmp(before, after))
		ck_abort_msg("changed:\n%s--- into\n%s", before, after);
	ck_assert_int_eq(r, 0);
	free(before);
	free(after);
	hlo_module_free(m);
}

#define T(name) START_TEST(name)
#define E END_TEST

/* ---- options hlopt has no flag for (the rules on the default CPU options
 * are golden tests: tests/golden/algsimp) ---- */

/* without NaN propagation max(NaN, -inf) would be -inf */
T(minmax_without_nan_propagation)
{
	AlgOpts o = *algsimp_cpu_opts();

	o.minmax_nan = 0;
	unchanged_opts("HloModule m\n\nENTRY %e (x: f32[]) -> f32[] {\n"
		"  %x = f32[] parameter(0)\n"
		"  %c = f32[] constant(-inf)\n"
		"  ROOT %r = f32[] maximum(f32[] %x, f32[] %c)\n}\n\n", &o);
}
E

/* log(exp(x)) is x only with fast math (exp overflows; without it the
 * golden test algsimp/power_exp_log_7 must not fire) */
T(log_exp_with_fast_math)
{
	AlgOpts o = *algsimp_cpu_opts();

	o.fast_math = 1;
	expect_opts("HloModule m\nENTRY e {\n"
		"  x = f32[] parameter(0)\n"
		"  a = f32[] exponential(x)\n"
		"  ROOT r = f32[] log(a)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT x = f32[] parameter(0)\n}\n", &o);
}
E

/* ---- sweeps ---- */

static const char *
datadir(void)
{
	const char *d = getenv("HLOPT_DATA");

	return d ? d : "data";
}

static const char *
corpusdir(void)
{
	const char *d = getenv("HLOPT_CORPUS");

	return d ? d : "../shared/corpus";
}

typedef struct {
	char **v;
	size_t n, cap;
} Files;

static void
walk(const char *dir, Files *f)
{
	DIR *d = opendir(dir);
	struct dirent *ent;
	char path[4096];
	struct stat st;
	size_t len;

	if (!d)
		return;
	while ((ent = readdir(d))) {
		if (ent->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
		if (stat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			walk(path, f);
			continue;
		}
		len = strlen(path);
		if (!(len > 4 && (!strcmp(path + len - 4, ".hlo") ||
		    !strcmp(path + len - 3, ".pb"))))
			continue;
		if (f->n == f->cap) {
			f->cap = f->cap ? 2 * f->cap : 64;
			f->v = realloc(f->v, f->cap * sizeof *f->v);
		}
		f->v[f->n++] = strdup(path);
	}
	closedir(d);
}

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* modules whose outputs depend on the last bit of a float: a rewrite
 * that rounds differently (x / c as x * (1/c), as xla does) changes
 * them beyond any tolerance; a 1-ulp change of one constant does too */
static int
chaotic(const char *path)
{
	return strstr(path, "jax.issue.26021") != NULL ||
		strstr(path, "llama_shard_over_sequence") != NULL;
}

/* algsimp on the module in path: the verifier must accept the result,
 * and it must evaluate as the input does when both can be evaluated
 * (eval: 0 never, 1 when small, 2 always); returns instructions
 * removed */
static int64_t
sweep_one(const char *path, int eval)
{
	HloModule *m = NULL, *orig;
	HloError e;
	PassCtx ctx;
	int64_t before, after;
	int r;

	if (hlo_load(path, &m, &e) < 0 || hlo_verify(m, &e) < 0) {
		hlo_module_free(m);
		return 0;	/* not ours to judge */
	}
	orig = hlo_module_clone(m);
	before = live(m);
	pass_ctx_init(&ctx);
	r = pass_algsimp(m, &ctx);
	if (r < 0)
		ck_abort_msg("%s: algsimp failed: %s", path, ctx.err.msg);
	pass_ctx_free(&ctx);
	if (hlo_verify(m, &e) < 0)
		ck_abort_msg("%s: verify after algsimp: %s", path, e.msg);
	after = live(m);
	if (eval && r > 0 && !chaotic(path) && (eval == 2 || before < 600)) {
		HloVerifyOpts o = {0};
		HloVerifyResult res;

		o.trials = 1;
		o.seed = 1;
		o.rtol = 1e-3;
		o.atol = 1e-5;
		o.limit = (uint64_t)256 << 20;
		if (hlo_eval_verify(orig, m, &o, &res) == 1)
			ck_abort_msg("%s: algsimp changed the result: %s", path,
				res.msg);
	}
	hlo_module_free(orig);
	hlo_module_free(m);
	return before - after;
}

T(sweep_data)
{
	Files f = {0};
	size_t k;

	walk(datadir(), &f);
	qsort(f.v, f.n, sizeof *f.v, cmpstr);
	for (k = 0; k < f.n; k++) {
		int64_t rm = sweep_one(f.v[k], 1);

		if (getenv("HLOPT_VERBOSE"))
			fprintf(stderr, "%8lld %s\n", (long long)rm, f.v[k]);
		free(f.v[k]);
	}
	free(f.v);
}
E

T(sweep_corpus)
{
	Files f = {0};
	size_t k;
	int full = getenv("HLOPT_SWEEP") && !strcmp(getenv("HLOPT_SWEEP"),
		"full");

	walk(corpusdir(), &f);
	qsort(f.v, f.n, sizeof *f.v, cmpstr);
	for (k = 0; k < f.n; k++) {
		sweep_one(f.v[k], full ? 2 : 0);
		free(f.v[k]);
	}
	free(f.v);
}
E

T(deterministic)
{
	const char *path = "data/hloenv-jax/jax-md/"
		"module_3803.jit_apply_fn.765.before_optimizations.hlo";
	HloModule *a = NULL, *b = NULL;
	HloError e;
	PassCtx ctx;
	char *pa, *pb;

	if (hlo_load(path, &a, &e) < 0)
		return;
	hlo_load(path, &b, &e);
	pass_ctx_init(&ctx);
	pass_algsimp(a, &ctx);
	pass_algsimp(b, &ctx);
	pass_ctx_free(&ctx);
	pa = tu_print(a);
	pb = tu_print(b);
	ck_assert_str_eq(pa, pb);
	free(pa);
	free(pb);
	hlo_module_free(a);
	hlo_module_free(b);
}
E

/* the second run finds nothing: the first reached a fixed point */
T(idempotent)
{
	const char *path = "data/xla-benchmarks/backends/cpu/benchmarks/hlo/"
		"dlrm_keras_jax_f32_train_step.hlo";
	HloModule *a = NULL;
	HloError e;
	PassCtx ctx;

	if (hlo_load(path, &a, &e) < 0)
		return;
	pass_ctx_init(&ctx);
	ck_assert_int_eq(pass_algsimp(a, &ctx), 1);
	ck_assert_int_eq(pass_algsimp(a, &ctx), 0);
	pass_ctx_free(&ctx);
	hlo_module_free(a);
}
E

static Suite *
suite(void)
{
	Suite *s = suite_create("algsimp");
	TCase *t = tcase_create("rules");
	TCase *w = tcase_create("sweep");

	tcase_add_test(t, minmax_without_nan_propagation);
	tcase_add_test(t, log_exp_with_fast_math);
	tcase_add_test(w, sweep_data);
	tcase_add_test(w, sweep_corpus);
	tcase_add_test(w, deterministic);
	tcase_add_test(w, idempotent);
	tcase_set_timeout(w, 600);
	suite_add_tcase(s, t);
	suite_add_tcase(s, w);
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
