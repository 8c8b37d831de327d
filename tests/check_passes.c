/* check_passes.c: the pass framework (registry, sequences, pipeline log,
 * scratch arena), flatten-call-graph and computation-deduplicator over
 * several runs (what a one-run golden file cannot say), a sweep of every pass over data/ (and part of the corpus), random
 * sequences under a fixed seed, and determinism. The before/after rules
 * of the passes are golden tests in tests/golden/PASS.
 *
 * Environment: HLOPT_DATA (default data), HLOPT_CORPUS (default
 * ../shared/corpus), HLOPT_SWEEP=full to sweep the whole corpus (by
 * default only its modules under 20 kB), HLOPT_EVAL=0 to skip the
 * evaluator comparisons (by default done for cheap modules). */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hlo.h"
#include "cost.h"
#include "eval.h"
#include "pass.h"

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

static char *
print(const HloModule *m)
{
	HloBuf b = {0};

	hlo_print_module(m, &b);
	hlo_buf_puts(&b, "");
	return b.buf;
}

/* runs seq over m with verification after every pass; returns what the
 * sequence returned */
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

static int
count_op(const HloModule *m, int op)
{
	uint32_t c, i;
	int n = 0;

	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++)
			n += m->comps[c].ins[i].op == op &&
				!(m->comps[c].ins[i].flags & HI_DEAD);
	return n;
}

/* ---- framework ---- */

START_TEST(registry_names)
{
	int i;

	ck_assert_int_eq(pass_lookup("cse", 3), PASS_cse);
	ck_assert_int_eq(pass_lookup("dce", 3), PASS_dce);
	ck_assert_int_eq(pass_lookup("nope", 4), -1);
	for (i = 0; i < PASS_COUNT; i++) {
		ck_assert_ptr_nonnull(hlo_passes[i].run);
		ck_assert_int_eq(pass_lookup(hlo_passes[i].name,
			strlen(hlo_passes[i].name)), i);
	}
}
END_TEST

START_TEST(sequence_parse)
{
	PassSeq s = {0};
	HloBuf b = {0};
	HloError e;
	const char *file = "# a comment\ncse\n\ndce # trailing\n"
		"fix(tuple-simplifier, dce)\n";

	ck_assert_int_eq(pass_seq_parse_text(file, strlen(file), "f", &s, &e),
		0);
	pass_seq_format(&s, &b);
	ck_assert_str_eq(b.buf, "cse,dce,fix(tuple-simplifier,dce)");
	pass_seq_free(&s);
	hlo_buf_free(&b);
	ck_assert_int_eq(pass_seq_parse("cse,bogus", &s, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "unknown pass 'bogus'"));
	pass_seq_free(&s);
	ck_assert_int_eq(pass_seq_parse("fix(cse", &s, &e), -1);
	pass_seq_free(&s);
	ck_assert_int_eq(pass_seq_parse("cse)", &s, &e), -1);
	pass_seq_free(&s);
	ck_assert_int_eq(pass_seq_parse("default", &s, &e), 0);
	ck_assert_uint_gt(s.n, 3);
	pass_seq_free(&s);
	ck_assert_int_eq(pass_seq_parse("@/nonexistent/x", &s, &e), -1);
	pass_seq_free(&s);
}
END_TEST

START_TEST(pipeline_log)
{
	HloModule *m = parse("HloModule t\n\nENTRY e {\n"
		"  p = f32[4] parameter(0)\n"
		"  a = f32[4] add(p, p)\n"
		"  b = f32[4] add(p, p)\n"
		"  d = f32[4] negate(p)\n"
		"  ROOT r = f32[4] multiply(a, b)\n}\n");
	PassCtx ctx;
	PassSeq s = {0};
	PassLog log = {0};
	HloError e;

	ck_assert_int_eq(pass_seq_parse("cse,dce,fix(cse,dce)", &s, &e), 0);
	pass_ctx_init(&ctx);
	ctx.flags = PASS_VERIFY | PASS_NAMES;
	ck_assert_int_eq(pass_run_seq(m, &s, &ctx, &log), 1);
	ck_assert_uint_eq(log.n, 4);
	ck_assert_int_eq(log.steps[0].pass, PASS_cse);
	ck_assert_int_eq(log.steps[0].before, 5);
	ck_assert_int_eq(log.steps[0].after, 4);
	ck_assert_int_eq(log.steps[0].removed, 1);
	ck_assert_int_eq(log.steps[1].removed, 1);
	ck_assert_int_eq(log.steps[1].after, 3);
	ck_assert_int_eq(log.steps[2].changed, 0);
	ck_assert_int_eq(log.steps[3].changed, 0);
	pass_log_free(&log);
	pass_seq_free(&s);
	pass_ctx_free(&ctx);
	hlo_module_free(m);
}
END_TEST

START_TEST(scratch_arena)
{
	PassCtx ctx;
	char *p, *q;
	int i;

	pass_ctx_init(&ctx);
	for (i = 0; i < 1000; i++) {
		p = pass_alloc(&ctx, 1000);
		memset(p, i, 1000);
		ck_assert_uint_eq((uintptr_t)p % 16, 0);
	}
	q = pass_zalloc(&ctx, 1 << 20, 1);
	ck_assert_int_eq(q[12345], 0);
	pass_reset(&ctx);
	p = pass_alloc(&ctx, 10);
	ck_assert_ptr_nonnull(p);
	pass_ctx_free(&ctx);
}
END_TEST

/* ---- flatten-call-graph, computation-deduplicator: over several runs
 * (the single-run rules of every pass are golden tests, tests/golden) ---- */

START_TEST(flatten_clones)
{
	HloModule *m = parse("HloModule t\n\n"
		"f {\n  x = f32[4] parameter(0)\n  ROOT n = f32[4] negate(x)\n}\n\n"
		"ENTRY e {\n  p = f32[4] parameter(0)\n"
		"  a = f32[4] call(p), to_apply=f\n"
		"  b = f32[4] call(a), to_apply=f\n"
		"  ROOT r = f32[4] add(a, b)\n}\n");

	ck_assert_int_eq(run(m, "flatten-call-graph"), 1);
	ck_assert_uint_eq(m->ncomps, 3);
	ck_assert_int_eq(run(m, "flatten-call-graph"), 0);
	ck_assert_int_eq(run(m, "computation-deduplicator"), 1);
	ck_assert_uint_eq(m->ncomps, 2);
	hlo_module_free(m);
}
END_TEST

START_TEST(dedup_merges)
{
	HloModule *m = parse("HloModule t\n\n"
		"add1 {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
		"  ROOT s = f32[] add(x, y)\n}\n\n"
		"add2 {\n  x2 = f32[] parameter(0)\n  y2 = f32[] parameter(1)\n"
		"  ROOT s2 = f32[] add(x2, y2)\n}\n\n"
		"sub {\n  x3 = f32[] parameter(0)\n  y3 = f32[] parameter(1)\n"
		"  ROOT s3 = f32[] subtract(x3, y3)\n}\n\n"
		"ENTRY e {\n  p = f32[4] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  r1 = f32[] reduce(p, z), dimensions={0}, to_apply=add1\n"
		"  r2 = f32[] reduce(p, z), dimensions={0}, to_apply=add2\n"
		"  r3 = f32[] reduce(p, z), dimensions={0}, to_apply=sub\n"
		"  ROOT t = (f32[], f32[], f32[]) tuple(r1, r2, r3)\n}\n");

	ck_assert_int_eq(run(m, "computation-deduplicator"), 1);
	ck_assert_uint_eq(m->ncomps, 3);
	ck_assert_int_eq(run(m, "computation-deduplicator"), 0);
	ck_assert_int_eq(run(m, "cse"), 1);
	ck_assert_int_eq(count_op(m, HOP_REDUCE), 2);
	hlo_module_free(m);
}
END_TEST

/* ---- sweeps ---- */

typedef struct {
	char **path;
	size_t n, cap;
} Files;

static void
addfile(Files *f, const char *p)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->path = realloc(f->path, f->cap * sizeof *f->path);
	}
	f->path[f->n++] = xstrdup(p);
}

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* module files under dir (.hlo, .pb, .txt), at most maxbytes each */
static void
walk(const char *dir, off_t maxbytes, Files *f)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct stat st;
	char p[4096];
	size_t n;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		if (stat(p, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			walk(p, maxbytes, f);
			continue;
		}
		n = strlen(p);
		if (st.st_size > maxbytes || !(n > 4 &&
		    (!strcmp(p + n - 4, ".hlo") || !strcmp(p + n - 3, ".pb"))))
			continue;
		addfile(f, p);
	}
	closedir(d);
}

static void
modules(Files *f, int corpus)
{
	const char *data = getenv("HLOPT_DATA");
	const char *cp = getenv("HLOPT_CORPUS");
	const char *sweep = getenv("HLOPT_SWEEP");
	int full = sweep && !strcmp(sweep, "full");

	memset(f, 0, sizeof *f);
	walk(data ? data : "data", 1 << 30, f);
	if (corpus)
		walk(cp ? cp : "../shared/corpus", full ? 1 << 30 : 20000, f);
	if (f->n)
		qsort(f->path, f->n, sizeof *f->path, cmpstr);
}

/* whether the evaluator comparison is cheap enough for m */
static int
evaluable(const HloModule *m)
{
	const char *ev = getenv("HLOPT_EVAL");
	HloCost c;
	HloError e;

	if (ev && !strcmp(ev, "0"))
		return 0;
	if (hlo_cost(m, &c, &e) < 0)
		return 0;
	return c.instructions < 3000 && c.flops < 2e7 &&
		c.bytes_accessed < 2e7;
}

static void
freefiles(Files *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->path[i]);
	free(f->path);
}

/* seq on a copy of m: the verifier must accept the result; modules the
 * evaluator handles must compute the same. Problems are appended to
 * fails (at most a screenful). */
static void
check_seq(const HloModule *m, const char *path, const char *seq, int eval,
	HloBuf *fails, int *nfail)
{
	HloModule *w = hlo_module_clone(m);
	PassCtx ctx;
	PassSeq s = {0};
	HloError e;
	HloVerifyOpts vo;
	HloVerifyResult vr;
	int r;

	if (pass_seq_parse(seq, &s, &e) < 0)
		ck_abort_msg("%s", e.msg);
	pass_ctx_init(&ctx);
	ctx.flags = PASS_VERIFY;
	r = pass_run_seq(w, &s, &ctx, NULL);
	if (r < 0 && (*nfail)++ < 20)
		hlo_buf_printf(fails, "%s: %s: %s\n", path, seq, ctx.err.msg);
	if (r > 0 && eval) {
		memset(&vo, 0, sizeof vo);
		vo.trials = 1;
		vo.seed = 1;
		vo.rtol = 1e-3;
		vo.atol = 1e-5;
		vo.limit = (uint64_t)256 << 20;
		if (hlo_eval_verify(m, w, &vo, &vr) == 1 && (*nfail)++ < 20)
			hlo_buf_printf(fails, "%s: %s: evaluation differs: "
				"%s\n", path, seq, vr.msg);
	}
	pass_ctx_free(&ctx);
	pass_seq_free(&s);
	hlo_module_free(w);
}

START_TEST(sweep_every_pass)
{
	Files f;
	HloBuf fails = {0};
	size_t i;
	int p, nfail = 0;

	modules(&f, 1);
	for (i = 0; i < f.n; i++) {
		HloModule *m = NULL;
		HloError e;
		int eval;

		if (hlo_load(f.path[i], &m, &e) < 0 || hlo_verify(m, &e) < 0) {
			hlo_module_free(m);
			continue;
		}
		eval = evaluable(m);
		for (p = 0; p < PASS_COUNT; p++)
			check_seq(m, f.path[i], hlo_passes[p].name, eval,
				&fails, &nfail);
		hlo_module_free(m);
	}
	freefiles(&f);
	if (nfail)
		ck_abort_msg("%d failures:\n%s", nfail, fails.buf);
	hlo_buf_free(&fails);
}
END_TEST

static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

START_TEST(random_sequences)
{
	Files f;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	HloBuf b = {0}, fails = {0};
	int t, k, len, nfail = 0;

	modules(&f, 0);
	for (t = 0; t < 24 && f.n; t++) {
		const char *path = f.path[rnd(&seed) % f.n];
		HloModule *m = NULL;
		HloError e;

		if (hlo_load(path, &m, &e) < 0 || hlo_verify(m, &e) < 0) {
			hlo_module_free(m);
			continue;
		}
		b.len = 0;
		len = 20 + rnd(&seed) % 31;
		for (k = 0; k < len; k++)
			hlo_buf_printf(&b, "%s%s", k ? "," : "",
				hlo_passes[rnd(&seed) % PASS_COUNT].name);
		check_seq(m, path, b.buf, evaluable(m), &fails, &nfail);
		hlo_module_free(m);
	}
	hlo_buf_free(&b);
	freefiles(&f);
	if (nfail)
		ck_abort_msg("%d failures:\n%s", nfail, fails.buf);
	hlo_buf_free(&fails);
}
END_TEST

START_TEST(deterministic)
{
	Files f;
	size_t i;
	const char *seq = "call-inliner,flatten-call-graph,cse,tuple-simplifier,"
		"simplify-sorts,zero_sized_hlo_elimination,algsimp,dce,"
		"computation-deduplicator,cse_barrier_expander,cse,dce";

	modules(&f, 0);
	for (i = 0; i < f.n; i++) {
		HloModule *a = NULL, *b = NULL;
		HloError e;
		char *x, *y;

		if (hlo_load(f.path[i], &a, &e) < 0 || hlo_verify(a, &e) < 0) {
			hlo_module_free(a);
			continue;
		}
		ck_assert_int_eq(hlo_load(f.path[i], &b, &e), 0);
		run(a, seq);
		run(b, seq);
		x = print(a);
		y = print(b);
		if (strcmp(x, y))
			ck_abort_msg("%s: two runs differ", f.path[i]);
		free(x);
		free(y);
		hlo_module_free(a);
		hlo_module_free(b);
	}
	freefiles(&f);
}
END_TEST

/* batch norms evaluate as XLA's BatchNormExpander expansion (no XLA
 * backend runs them otherwise): the original and batchnorm_expander's
 * output agree bit for bit, over element types, feature positions,
 * chunk and feature boundaries; the first is a layer norm's statistics
 * (mean 100, variance 3e-5), where an exact two-pass variance and the
 * expansion's E[x^2] - E[x]^2 in f32 differ far beyond tolerance */
START_TEST(bnorm_is_expansion)
{
	static const char *mods[] = {
		"ENTRY e { p = f32[64,8] parameter(0)\n"
		"k = f32[] constant(0.01) h = f32[] constant(100)\n"
		"kb = f32[64,8] broadcast(k), dimensions={}\n"
		"hb = f32[64,8] broadcast(h), dimensions={}\n"
		"m = f32[64,8] multiply(p, kb) x = f32[64,8] add(m, hb)\n"
		"s = f32[8] parameter(1) o = f32[8] parameter(2)\n"
		"ROOT b = (f32[64,8], f32[8], f32[8]) batch-norm-training(x, "
		"s, o), epsilon=1e-05, feature_index=1 }",
		"ENTRY e { x = f16[4,3,5] parameter(0) s = f16[4] parameter(1)\n"
		"o = f16[4] parameter(2)\n"
		"ROOT b = (f16[4,3,5], f16[4], f16[4]) batch-norm-training(x, "
		"s, o), epsilon=0.001, feature_index=0 }",
		"ENTRY e { x = bf16[2,3,4] parameter(0) s = bf16[4] parameter(1)\n"
		"o = bf16[4] parameter(2)\n"
		"ROOT b = (bf16[2,3,4], bf16[4], bf16[4]) batch-norm-training(x, "
		"s, o), epsilon=0.001, feature_index=2 }",
		"ENTRY e { x = f64[3,5,7] parameter(0) s = f64[5] parameter(1)\n"
		"o = f64[5] parameter(2)\n"
		"ROOT b = (f64[3,5,7], f64[5], f64[5]) batch-norm-training(x, "
		"s, o), epsilon=0.1, feature_index=1 }",
		"ENTRY e { x = f32[2,3,700] parameter(0) s = f32[3] parameter(1)\n"
		"o = f32[3] parameter(2)\n"
		"ROOT b = (f32[2,3,700], f32[3], f32[3]) batch-norm-training(x, "
		"s, o), epsilon=0.001, feature_index=1 }",
		"ENTRY e { x = f32[1000,3] parameter(0) s = f32[3] parameter(1)\n"
		"o = f32[3] parameter(2)\n"
		"ROOT b = (f32[1000,3], f32[3], f32[3]) batch-norm-training(x, "
		"s, o), epsilon=0.001, feature_index=1 }",
		"ENTRY e { x = f32[5] parameter(0) s = f32[5] parameter(1)\n"
		"o = f32[5] parameter(2)\n"
		"ROOT b = (f32[5], f32[5], f32[5]) batch-norm-training(x, "
		"s, o), epsilon=0.001, feature_index=0 }",
		"ENTRY e { x = f32[8,4,600] parameter(0) s = f32[4] parameter(1)\n"
		"o = f32[4] parameter(2) m = f32[4] parameter(3)\n"
		"v = f32[4] parameter(4)\n"
		"ROOT b = f32[8,4,600] batch-norm-inference(x, s, o, m, v), "
		"epsilon=0.001, feature_index=1 }",
		"ENTRY e { x = f16[6,5] parameter(0) s = f16[5] parameter(1)\n"
		"o = f16[5] parameter(2) m = f16[5] parameter(3)\n"
		"v = f16[5] parameter(4)\n"
		"ROOT b = f16[6,5] batch-norm-inference(x, s, o, m, v), "
		"epsilon=0.01, feature_index=1 }",
		"ENTRY e { x = f32[6,5,300] parameter(0) s = f32[300] "
		"parameter(1)\n m = f32[300] parameter(2) v = f32[300] "
		"parameter(3)\n d = f32[6,5,300] parameter(4)\n"
		"ROOT b = (f32[6,5,300], f32[300], f32[300]) "
		"batch-norm-grad(x, s, m, v, d), epsilon=0.001, "
		"feature_index=2 }",
		"ENTRY e { x = bf16[3,4,5] parameter(0) s = bf16[3] parameter(1)\n"
		"m = bf16[3] parameter(2) v = bf16[3] parameter(3)\n"
		"d = bf16[3,4,5] parameter(4)\n"
		"ROOT b = (bf16[3,4,5], bf16[3], bf16[3]) batch-norm-grad(x, s, "
		"m, v, d), epsilon=0.001, feature_index=0 }",
	};
	HloVerifyOpts vo;
	HloVerifyResult vr;
	size_t k;

	memset(&vo, 0, sizeof vo);
	vo.trials = 2;
	vo.seed = 7;
	vo.exact = 1;
	vo.limit = (uint64_t)256 << 20;
	for (k = 0; k < sizeof mods / sizeof *mods; k++) {
		HloModule *m = parse(mods[k]), *w = hlo_module_clone(m);

		ck_assert_int_eq(run(w, "batchnorm_expander"), 1);
		ck_assert_int_eq(count_op(w, HOP_BNTRAIN) +
			count_op(w, HOP_BNINFER) + count_op(w, HOP_BNGRAD), 0);
		if (hlo_eval_verify(m, w, &vo, &vr) != 0)
			ck_abort_msg("module %zu: %s", k, vr.msg);
		hlo_module_free(m);
		hlo_module_free(w);
	}
}
END_TEST

static Suite *
passes_suite(void)
{
	Suite *s = suite_create("passes");
	TCase *tc = tcase_create("rules"), *sw = tcase_create("sweep");

	tcase_add_test(tc, registry_names);
	tcase_add_test(tc, sequence_parse);
	tcase_add_test(tc, pipeline_log);
	tcase_add_test(tc, scratch_arena);
	tcase_add_test(tc, flatten_clones);
	tcase_add_test(tc, dedup_merges);
	tcase_add_test(tc, bnorm_is_expansion);
	tcase_add_test(sw, sweep_every_pass);
	tcase_add_test(sw, random_sequences);
	tcase_add_test(sw, deterministic);
	tcase_set_timeout(sw, 300);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, sw);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(passes_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
