/* check_sweeps.c: ten of XLA's simplification passes beyond the core
 * ones (constant_folding, reshape-mover, transpose-folding,
 * simplify-while-loops, while-loop-invariant-code-motion,
 * while-loop-constant-sinking, simplify-conditional, slice-sinker,
 * convert-mover, simplify-fp-conversions) on real modules: each alone
 * over data/ (and the corpus with HLOPT_SWEEP=full) keeps the verifier
 * happy and, for modules small enough to evaluate quickly, computes the
 * same outputs as before; random sequences of them under a fixed seed
 * do too; and all ten are registered. Their rules, before/after, are
 * golden tests in tests/golden/PASS (tests/golden/README). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "eval.h"
#include "pass.h"
#include "testutil.h"

/* the ten passes this file covers */
static const char *const mine[] = {
	"constant_folding", "reshape-mover", "transpose-folding",
	"simplify-while-loops", "while-loop-invariant-code-motion",
	"while-loop-constant-sinking", "simplify-conditional", "slice-sinker",
	"convert-mover", "simplify-fp-conversions",
};

START_TEST(registered)
{
	size_t k;

	for (k = 0; k < sizeof mine / sizeof *mine; k++)
		ck_assert_msg(pass_lookup(mine[k], strlen(mine[k])) >= 0,
			"%s is not registered", mine[k]);
}
END_TEST

/* modules the reference evaluator checks in the sweep: few instructions
 * and little data, so that evaluating takes milliseconds */
#define SWEEP_EVAL_INSTRS 3000
#define SWEEP_EVAL_BYTES ((int64_t)64 << 20)

static int
small(const HloModule *m)
{
	uint32_t c, i;
	int64_t n = 0, bytes = 0, b;

	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++) {
			const HloInstr *in = &m->comps[c].ins[i];

			if (in->flags & HI_DEAD)
				continue;
			if (in->op == HOP_CUSTOMCALL)
				return 0;
			b = hlo_shape_bytes(m, in->shape);
			if (b < 0 || b > SWEEP_EVAL_BYTES / 8)
				return 0;
			bytes += b;
			n++;
		}
	return n <= SWEEP_EVAL_INSTRS && bytes <= SWEEP_EVAL_BYTES;
}

/* every pass alone on every module keeps the verifier happy and, where
 * the module is small, its outputs */
static void
sweep(const TuList *files, int *nfail)
{
	size_t f, k, nmod = 0, nchanged = 0, neval = 0;

	for (f = 0; f < files->n; f++) {
		HloModule *m0;
		HloError e;

		if (hlo_load(files->v[f], &m0, &e) < 0)
			continue;
		if (hlo_verify(m0, &e) < 0) {
			hlo_module_free(m0);
			continue;
		}
		nmod++;
		for (k = 0; k < sizeof mine / sizeof *mine; k++) {
			HloModule *m = hlo_module_clone(m0);
			PassCtx ctx;
			int r, id = pass_lookup(mine[k], strlen(mine[k]));

			pass_ctx_init(&ctx);
			r = pass_run(m, id, &ctx, NULL);
			if (r < 0) {
				fprintf(stderr, "%s on %s: %s\n", mine[k],
					files->v[f], ctx.err.msg);
				++*nfail;
			} else if (hlo_verify(m, &e) < 0) {
				fprintf(stderr, "%s on %s: %s\n", mine[k],
					files->v[f], e.msg);
				++*nfail;
			} else if (r && small(m0)) {
				HloVerifyOpts o;
				HloVerifyResult vr;

				memset(&o, 0, sizeof o);
				o.trials = 1;
				o.seed = 7;
				o.rtol = 1e-3;
				o.atol = 1e-5;
				o.limit = (uint64_t)1 << 30;
				if (hlo_eval_verify(m0, m, &o, &vr) == 0)
					neval++;
				else if (vr.verdict == 3 && getenv("HLOPT_SWEEP_V"))
					fprintf(stderr, "not evaluated: %s on %s: "
						"%s\n", mine[k], files->v[f], vr.msg);
				if (vr.verdict == 1) {
					fprintf(stderr, "%s on %s: %s\n", mine[k],
						files->v[f], vr.msg);
					++*nfail;
				}
			}
			nchanged += r > 0;
			pass_ctx_free(&ctx);
			hlo_module_free(m);
		}
		hlo_module_free(m0);
	}
	fprintf(stderr, "sweep: %zu modules, %zu changed by a pass, %zu of "
		"those evaluated equal\n", nmod, nchanged, neval);
}

/* random sequences of 20 of these passes and the cleanups they rely on,
 * under a fixed seed, over the small modules of data/: the verifier after
 * every pass, and the same outputs at the end */
START_TEST(random_sequences)
{
	static const char *const extra[] = {"dce", "tuple-simplifier"};
	TuList l = tu_list(TU_DATA);
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	size_t f, k, npool = sizeof mine / sizeof *mine + 2;
	int fail = 0, runs = 0;

	for (f = 0; f < l.n; f++) {
		HloModule *m0, *m;
		HloError e;
		PassCtx ctx;
		HloVerifyOpts o;
		HloVerifyResult vr;

		if (hlo_load(l.v[f], &m0, &e) < 0)
			continue;
		if (hlo_verify(m0, &e) < 0 || !small(m0)) {
			hlo_module_free(m0);
			continue;
		}
		m = hlo_module_clone(m0);
		pass_ctx_init(&ctx);
		ctx.flags = PASS_VERIFY;
		for (k = 0; k < 20; k++) {
			const char *name;
			size_t pick;

			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			pick = (seed >> 33) % npool;
			name = pick < npool - 2 ? mine[pick] :
				extra[pick - (npool - 2)];
			if (pass_run(m, pass_lookup(name, strlen(name)), &ctx,
			    NULL) < 0) {
				fprintf(stderr, "%s on %s: %s\n", name, l.v[f],
					ctx.err.msg);
				fail++;
				break;
			}
		}
		memset(&o, 0, sizeof o);
		o.trials = 1;
		o.seed = 11;
		o.rtol = 1e-3;
		o.atol = 1e-5;
		o.limit = (uint64_t)1 << 30;
		if (k == 20 && hlo_eval_verify(m0, m, &o, &vr) == 1) {
			fprintf(stderr, "random sequence on %s: %s\n", l.v[f],
				vr.msg);
			fail++;
		}
		runs++;
		pass_ctx_free(&ctx);
		hlo_module_free(m);
		hlo_module_free(m0);
	}
	tu_list_free(&l);
	ck_assert_int_eq(fail, 0);
	ck_assert_int_gt(runs, 0);
}
END_TEST

START_TEST(sweep_data)
{
	TuList l = tu_list(TU_DATA);
	int fail = 0;

	sweep(&l, &fail);
	tu_list_free(&l);
	ck_assert_int_eq(fail, 0);
}
END_TEST

START_TEST(sweep_corpus)
{
	const char *dir = tu_corpus(), *full = getenv("HLOPT_SWEEP");
	TuList l;
	int fail = 0;

	if (!dir || !full || strcmp(full, "full"))
		return;
	l = tu_list(dir);
	sweep(&l, &fail);
	tu_list_free(&l);
	ck_assert_int_eq(fail, 0);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("sweeps");
	TCase *t = tcase_create("passes");

	tcase_add_test(t, registered);
	suite_add_tcase(s, t);
	t = tcase_create("sweep");
	tcase_set_timeout(t, 600);
	tcase_add_test(t, sweep_data);
	tcase_add_test(t, random_sequences);
	tcase_add_test(t, sweep_corpus);
	suite_add_tcase(s, t);
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
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
