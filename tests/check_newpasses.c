/* check_newpasses.c: every pass added after the first twenty has golden
 * tests (tests/golden/PASS/, run by tests/golden.sh): at least two, and
 * at least one must-fire case (a .want file); random action sequences.
 *
 * Random sequences: every module of data/ under 300 kB goes through one sequence of
 * 30 to 60 actions drawn from the whole registry under a fixed seed,
 * with the verifier after every pass and the evaluator before/after.
 *
 * Environment: HLOPT_DATA (default data), HLOPT_EVAL=0 skips the
 * evaluator. */
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
#include "testutil.h"

#define GOLDEN "tests/golden"
#define MAXBYTES (300 << 10)	/* random sequences skip larger modules
				 * (mobilenet_v2: fusion-heavy sequences
				 * take minutes there) */

static int
cheap(const HloModule *m)
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

/* seq over m, verifier after every pass: 1 changed, 0 not, -1 error in
 * msg */
static int
runseq(HloModule *m, const char *seq, char *msg, size_t n)
{
	PassCtx ctx;
	PassSeq s = {0};
	HloError e;
	int r;

	if (pass_seq_parse(seq, &s, &e) < 0) {
		snprintf(msg, n, "%s", e.msg);
		return -1;
	}
	pass_ctx_init(&ctx);
	ctx.flags = PASS_VERIFY;
	r = pass_run_seq(m, &s, &ctx, NULL);
	if (r < 0)
		snprintf(msg, n, "%s", ctx.err.msg);
	pass_ctx_free(&ctx);
	pass_seq_free(&s);
	return r;
}

/* 1 when a and b differ on random inputs (a message in fails) */
static int
differs(const HloModule *a, const HloModule *b, const char *what,
	HloBuf *fails)
{
	HloVerifyOpts vo;
	HloVerifyResult vr;

	memset(&vo, 0, sizeof vo);
	vo.trials = 2;
	vo.seed = 7;
	vo.rtol = 1e-3;
	vo.atol = 1e-5;
	vo.limit = (uint64_t)256 << 20;
	if (hlo_eval_verify(a, b, &vo, &vr) != 1)
		return 0;
	hlo_buf_printf(fails, "%s: evaluation differs: %s\n", what, vr.msg);
	return 1;
}

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the entries of dir ending in suffix (suffix cut off), sorted */
static char **
listdir(const char *dir, const char *suffix, int dirs, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct stat st;
	char **v = NULL, p[4096];
	size_t cap = 0, len, sl = strlen(suffix);

	*n = 0;
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		if (stat(p, &st) < 0 || (S_ISDIR(st.st_mode) ? 1 : 0) != dirs)
			continue;
		len = strlen(de->d_name);
		if (len < sl || strcmp(de->d_name + len - sl, suffix))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			v = realloc(v, cap * sizeof *v);
		}
		v[*n] = xstrdup(de->d_name);
		v[(*n)++][len - sl] = 0;
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof *v, cmpstr);
	return v;
}

/* every pass from call-inliner:single-call-site on has two golden cases
 * or more, one of which fires */
START_TEST(golden_coverage)
{
	char dir[4096], **cases, **wants;
	size_t nc, nw, j;
	int p, missing = 0;
	HloBuf b = {0};

	for (p = PASS_call_inliner_single; p < PASS_COUNT; p++) {
		snprintf(dir, sizeof dir, "%s/%s", GOLDEN, hlo_passes[p].name);
		cases = listdir(dir, ".hlo", 0, &nc);
		wants = listdir(dir, ".want", 0, &nw);
		for (j = 0; j < nw; j++)
			free(wants[j]);
		free(wants);
		if (nc < 2 || nw < 1) {
			hlo_buf_printf(&b, "%s ", hlo_passes[p].name);
			missing++;
		}
		for (j = 0; j < nc; j++)
			free(cases[j]);
		free(cases);
	}
	if (missing)
		ck_abort_msg("passes with fewer than two golden cases or none that fires: %s",
			b.buf);
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

static void
walk(const char *dir, char ***v, size_t *n, size_t *cap)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct stat st;
	char p[4096];
	size_t len;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		if (stat(p, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			walk(p, v, n, cap);
			continue;
		}
		len = strlen(p);
		if (!(len > 4 && (!strcmp(p + len - 4, ".hlo") ||
		    !strcmp(p + len - 3, ".pb"))) || st.st_size > MAXBYTES)
			continue;
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 64;
			*v = realloc(*v, *cap * sizeof **v);
		}
		(*v)[(*n)++] = xstrdup(p);
	}
	closedir(d);
}

/* a sequence holding a pass that changes rounding on purpose (its golden
 * tests are NOVERIFY): simplify-fp-conversions drops f32->f16->f32
 * round trips, so after change-op-data-type computes an f16 dot in f32 the
 * output differs beyond f16's tolerance (data/xla-tests fuzz rand_000022) */
static int
drops_rounding(const char *seq)
{
	static const char *const passes[] = {"simplify-fp-conversions", NULL};
	int k;

	for (k = 0; passes[k]; k++)
		if (strstr(seq, passes[k]))
			return 1;
	return 0;
}

START_TEST(random_sequences_all_data)
{
	const char *data = getenv("HLOPT_DATA");
	char **files = NULL, msg[1100];
	size_t n = 0, cap = 0, i;
	uint64_t seed = 0x2545f4914f6cdd1dULL;
	HloBuf b = {0}, fails = {0};
	int k, len, nfail = 0, nrun = 0, r;

	walk(data ? data : TU_DATA, &files, &n, &cap);
	if (n)
		qsort(files, n, sizeof *files, cmpstr);
	for (i = 0; i < n; i++) {
		HloModule *m = NULL, *o;
		HloError e;

		len = 30 + rnd(&seed) % 31;
		b.len = 0;
		for (k = 0; k < len; k++)
			hlo_buf_printf(&b, "%s%s", k ? "," : "",
				hlo_passes[rnd(&seed) % PASS_COUNT].name);
		if (hlo_load(files[i], &m, &e) < 0 || hlo_verify(m, &e) < 0) {
			hlo_module_free(m);
			free(files[i]);
			continue;
		}
		o = hlo_module_clone(m);
		if (getenv("HLOPT_TRACE"))
			fprintf(stderr, "%s: %s\n", files[i], b.buf);
		r = runseq(m, b.buf, msg, sizeof msg);
		nrun++;
		if (r < 0 && nfail++ < 20)
			hlo_buf_printf(&fails, "%s: %s: %s\n", files[i], b.buf,
				msg);
		else if (r > 0 && cheap(o) && !drops_rounding(b.buf) &&
		    differs(o, m, files[i], &fails))
			nfail++;
		hlo_module_free(m);
		hlo_module_free(o);
		free(files[i]);
	}
	free(files);
	hlo_buf_free(&b);
	printf("random sequences: %d modules, %d failed\n", nrun, nfail);
	if (nfail)
		ck_abort_msg("%d failures:\n%s", nfail, fails.buf);
	hlo_buf_free(&fails);
}
END_TEST

static Suite *
newpasses_suite(void)
{
	Suite *s = suite_create("newpasses");
	TCase *tc = tcase_create("golden"), *sw = tcase_create("random");

	tcase_add_test(tc, golden_coverage);
	tcase_add_test(sw, random_sequences_all_data);
	tcase_set_timeout(tc, 120);
	tcase_set_timeout(sw, 600);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, sw);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(newpasses_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
