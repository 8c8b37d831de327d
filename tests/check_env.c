/* check_env.c: the pass-ordering environment (src/env/): episodes,
 * rewards, observations, masks, the transposition table, patience, seeds,
 * several environments in threads, and the search algorithms on small
 * modules whose best sequences are known */
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "envi.h"
#include "pass.h"
#include "search.h"
#include "testutil.h"

/* x + -0 (algsimp removes the add, the broadcast and the constant; x + +0
 * is not x for x = -0, so it stays) and a
 * dead negate (dce): 6 instructions, 2 at best, after algsimp and dce */
static const char small[] =
	"HloModule t\n\n"
	"ENTRY e {\n"
	"  x = f32[4] parameter(0)\n"
	"  z = f32[] constant(-0)\n"
	"  zb = f32[4] broadcast(z), dimensions={}\n"
	"  a = f32[4] add(x, zb)\n"
	"  n = f32[4] negate(x)\n"
	"  ROOT r = f32[4] multiply(a, a)\n"
	"}\n";

static Env *
mk(const char *src, const EnvOpts *o)
{
	HloError e;
	HloModule *m = tu_parse(src, &e);
	EnvOpts d;

	ck_assert_msg(m != NULL, "parse: %s", e.msg);
	if (!o) {
		env_opts_default(&d);
		o = &d;
	}
	return env_create_module(m, o);
}

static void
step(Env *env, const char *pass, EnvInfo *info)
{
	int a = env_action_by_name(env, pass);

	ck_assert_int_ge(a, 0);
	ck_assert_msg(env_step(env, a, NULL, info) == 0, "%s",
		env_error(env));
}

/* stable-sort-expander doubles a comparator it already expanded, as
 * XLA's does: repeating it ends the episode at the size cap instead of
 * exhausting memory */
START_TEST(size_cap_ends_episode)
{
	static const char *src =
		"HloModule s\n\n"
		"cmp {\n"
		"  a = f32[] parameter(0)\n"
		"  b = f32[] parameter(1)\n"
		"  ROOT lt = pred[] compare(a, b), direction=LT\n"
		"}\n\n"
		"ENTRY e {\n"
		"  x = f32[8] parameter(0)\n"
		"  ROOT s = f32[8] sort(x), dimensions={0}, is_stable=true, "
		"to_apply=cmp\n"
		"}\n";
	EnvOpts o;
	Env *env;
	EnvInfo info;
	int k;

	env_opts_default(&o);
	o.episode_len = 1000;
	env = mk(src, &o);
	ck_assert_int_eq(env_reset(env, NULL), 0);
	for (k = 0; k < 1000; k++) {
		step(env, "stable-sort-expander", &info);
		if (info.done)
			break;
	}
	ck_assert_int_eq(info.capped, 1);
	ck_assert_int_gt(info.after, ENV_SLACK);
	ck_assert_int_le(info.after, 3 * (ENV_SLACK + 16 * 16));
	ck_assert_int_ne(env_step(env, 0, NULL, &info), 0);
	env_free(env);
}
END_TEST

START_TEST(actions_and_sizes)
{
	Env *env = mk(small, NULL);
	int a;

	ck_assert_int_eq(env_action_count(env), PASS_COUNT);
	for (a = 0; a < PASS_COUNT; a++)
		ck_assert_str_eq(env_action_name(env, a), hlo_passes[a].name);
	ck_assert_ptr_null(env_action_name(env, PASS_COUNT));
	ck_assert_int_eq(env_action_by_name(env, "dce"), PASS_dce);
	ck_assert_int_eq(env_action_by_name(env, "nope"), -1);
	ck_assert_int_eq(env_obs_size(env), HOP_COUNT + ENV_OBS_FEATURES);
	ck_assert_str_eq(env_opcode_name(HOP_ADD), "add");
	ck_assert_int_eq(env_objective_by_name("flops"), ENV_OBJ_FLOPS);
	ck_assert_int_eq(env_objective_by_name("x"), -1);
	env_free(env);
}
END_TEST

START_TEST(step_reward_and_cache)
{
	Env *env = mk(small, NULL);
	EnvInfo info;
	uint8_t mask[PASS_COUNT];
	uint64_t lk, hits;

	ck_assert_int_ne(env_step(env, 0, NULL, &info), 0);	/* no reset */
	ck_assert_int_eq(env_reset(env, NULL), 0);
	ck_assert_double_eq(env_objective_initial(env), 6);
	step(env, "dce", &info);
	ck_assert_int_eq(info.changed, 1);
	ck_assert_int_eq(info.before, 6);
	ck_assert_int_eq(info.after, 5);
	ck_assert_double_eq_tol(info.reward, 1.0 / 6, 1e-12);
	ck_assert_int_eq(info.seen, 0);
	/* dce again changes nothing: the pass runs, its own return value
	 * says so, and the table remembers it */
	step(env, "dce", &info);
	ck_assert_int_eq(info.changed, 0);
	ck_assert_int_eq(info.cached, 0);
	ck_assert_double_eq(info.reward, 0);
	env_action_mask(env, mask);
	ck_assert_int_eq(mask[PASS_dce], 0);
	ck_assert_int_eq(mask[PASS_algsimp], 1);
	step(env, "dce", &info);
	ck_assert_int_eq(info.cached, 1);
	step(env, "algsimp", &info);
	ck_assert_int_eq(info.after, 2);
	ck_assert_double_eq_tol(info.reward, 3.0 / 6, 1e-12);
	ck_assert_double_eq(env_objective(env), 2);
	ck_assert_int_eq(env_steps(env), 4);
	ck_assert_int_eq(env_actions(env)[3], PASS_algsimp);
	/* the same state again in a new episode: a table hit */
	env_reset(env, NULL);
	step(env, "dce", &info);
	ck_assert_int_eq(info.seen, 1);
	env_table_stats(env, &lk, &hits);
	ck_assert_int_eq(lk, 3);
	ck_assert_int_eq(hits, 1);
	ck_assert_int_ne(env_step(env, PASS_COUNT, NULL, &info), 0);
	env_free(env);
}
END_TEST

START_TEST(observation_layout)
{
	EnvOpts o;
	Env *env;
	double *obs;
	double sum = 0;
	int i, n, A;
	EnvInfo info;

	env_opts_default(&o);
	o.last_k = 2;
	o.episode_len = 4;
	env = mk(small, &o);
	A = env_action_count(env);
	n = env_obs_size(env);
	ck_assert_int_eq(n, HOP_COUNT + ENV_OBS_FEATURES + 2 * A);
	obs = calloc(n, sizeof *obs);
	env_reset(env, obs);
	for (i = 0; i < HOP_COUNT; i++)
		sum += obs[i];
	ck_assert_double_eq_tol(sum, 1, 1e-12);
	ck_assert_double_eq_tol(obs[HOP_PARAMETER], 1.0 / 6, 1e-12);
	ck_assert_double_eq_tol(obs[HOP_COUNT + 4], log1p(6) / 16, 1e-12);
	ck_assert_double_eq(obs[HOP_COUNT + 5], 0);
	for (i = HOP_COUNT + ENV_OBS_FEATURES; i < n; i++)
		ck_assert_double_eq(obs[i], 0);
	ck_assert_int_eq(env_step(env, PASS_dce, obs, &info), 0);
	ck_assert_int_eq(env_step(env, PASS_algsimp, obs, &info), 0);
	ck_assert_double_eq_tol(obs[HOP_COUNT + 5], 0.5, 1e-12);
	ck_assert_double_eq(obs[HOP_NEGATE], 0);
	ck_assert_double_eq_tol(obs[HOP_MUL], 1.0 / 6, 1e-12);
	/* last action first, then the one before */
	ck_assert_double_eq(obs[HOP_COUNT + ENV_OBS_FEATURES +
		PASS_algsimp], 1);
	ck_assert_double_eq(obs[HOP_COUNT + ENV_OBS_FEATURES + A +
		PASS_dce], 1);
	ck_assert_int_eq(info.done, 0);
	env_step(env, PASS_cse, obs, &info);
	env_step(env, PASS_cse, obs, &info);
	ck_assert_int_eq(info.done, 1);
	ck_assert_int_ne(env_step(env, PASS_cse, obs, &info), 0);
	free(obs);
	env_free(env);
}
END_TEST

START_TEST(patience)
{
	EnvOpts o;
	Env *env;
	EnvInfo info;

	env_opts_default(&o);
	o.patience = 2;
	env = mk(small, &o);
	env_reset(env, NULL);
	step(env, "cse", &info);
	ck_assert_int_eq(info.done, 0);
	step(env, "dce", &info);	/* improves: patience restarts */
	step(env, "cse", &info);
	ck_assert_int_eq(info.done, 0);
	step(env, "cse", &info);
	ck_assert_int_eq(info.done, 1);
	ck_assert_double_eq(env_best_objective(env), 5);
	env_free(env);
}
END_TEST

START_TEST(shaping_and_objectives)
{
	EnvOpts o;
	Env *env;
	EnvInfo info;

	env_opts_default(&o);
	o.objective = ENV_OBJ_FLOPS;
	o.shaping = 1;
	o.gamma = 1;
	env = mk(small, &o);
	env_reset(env, NULL);
	ck_assert_double_eq(env_objective_initial(env), 12);	/* 3 x 4 */
	step(env, "algsimp", &info);	/* add gone: flops 8, phi -8/12 */
	ck_assert_double_eq(info.objective, 8);
	ck_assert_double_eq_tol(info.reward, 4.0 / 12 + 4.0 / 12, 1e-12);
	env_free(env);
}
END_TEST

START_TEST(sampling_is_seeded)
{
	Env *a = mk(small, NULL), *b;
	uint8_t mask[PASS_COUNT];
	int i, x, y, diff = 0;

	b = env_dup(a);
	env_seed(a, 7);
	env_seed(b, 7);
	for (i = 0; i < 100; i++) {
		x = env_sample_action(a, NULL);
		y = env_sample_action(b, NULL);
		ck_assert_int_eq(x, y);
		ck_assert(x >= 0 && x < PASS_COUNT);
	}
	env_seed(b, 8);
	for (i = 0; i < 100; i++)
		diff += env_sample_action(a, NULL) != env_sample_action(b,
			NULL);
	ck_assert_int_gt(diff, 0);
	memset(mask, 0, sizeof mask);
	ck_assert_int_eq(env_sample_action(a, mask), -1);
	mask[PASS_cse] = 1;
	ck_assert_int_eq(env_sample_action(a, mask), PASS_cse);
	env_free(a);
	env_free(b);
}
END_TEST

/* a random episode of 200 steps in each of two threads on env_dup
 * copies: the same seed gives the same actions and objective */
typedef struct {
	Env *env;
	double obj;
	int acts[200];
} Run;

static void *
run_episode(void *p)
{
	Run *r = p;
	EnvInfo info;
	int i;

	env_seed(r->env, 42);
	env_reset(r->env, NULL);
	for (i = 0; i < 200; i++) {
		r->acts[i] = env_sample_action(r->env, NULL);
		if (env_step(r->env, r->acts[i], NULL, &info) < 0)
			break;
	}
	r->obj = env_objective(r->env);
	return NULL;
}

START_TEST(threads)
{
	char *src = tu_read(TU_DATA "/hloenv-jax/jraph/module_0047.jit__"
		"truncated_normal.20.before_optimizations.hlo", NULL);
	EnvOpts o;
	Env *base;
	Run r[2];
	pthread_t t[2];
	int i;

	ck_assert_ptr_nonnull(src);
	env_opts_default(&o);
	o.episode_len = 200;
	base = mk(src, &o);
	for (i = 0; i < 2; i++) {
		r[i].env = env_dup(base);
		pthread_create(&t[i], NULL, run_episode, &r[i]);
	}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	ck_assert_double_eq(r[0].obj, r[1].obj);
	ck_assert(!memcmp(r[0].acts, r[1].acts, sizeof r[0].acts));
	/* the episode changed the module (random fusion actions may add
	 * instructions: fused computations, duplicated producers) */
	ck_assert_double_ne(r[0].obj, env_objective_initial(base));
	for (i = 0; i < 2; i++)
		env_free(r[i].env);
	env_free(base);
	free(src);
}
END_TEST

START_TEST(hash_ignores_names)
{
	HloError e;
	HloModule *a = tu_parse(small, &e), *b;
	char *s = strdup(small), *p;

	while ((p = strstr(s, "zb")))
		memcpy(p, "zq", 2);
	b = tu_parse(s, &e);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(env_hash_module(a), env_hash_module(b));
	hlo_module_free(b);
	p = strstr(s, "negate");
	memcpy(p, "cosine", 6);
	b = tu_parse(s, &e);
	ck_assert_uint_ne(env_hash_module(a), env_hash_module(b));
	hlo_module_free(a);
	hlo_module_free(b);
	free(s);
}
END_TEST


static SearchResult
search(const char *src, int algo, int jobs, int64_t budget)
{
	HloError e;
	HloModule *m = tu_parse(src, &e);
	SearchOpts o;
	SearchResult r;

	ck_assert_ptr_nonnull(m);
	search_opts_default(&o);
	o.algo = algo;
	o.jobs = jobs;
	o.budget = budget;
	o.seed = 9;
	ck_assert_int_eq(search_run(m, &o, &r, &e), 0);
	hlo_module_free(m);
	return r;
}

/* hlo_module_copy (env_reset copies the input into the last state's
 * memory): the copy prints as the input and as a clone of it, passes
 * change both alike, whatever the module copied into held before (more
 * computations, fewer, bigger pools) */
START_TEST(module_copy_is_a_clone)
{
	static const char *two =
		"HloModule two\n\n"
		"add {\n"
		"  a = f32[] parameter(0)\n"
		"  b = f32[] parameter(1)\n"
		"  ROOT s = f32[] add(a, b)\n"
		"}\n\n"
		"ENTRY e {\n"
		"  x = f32[8] parameter(0)\n"
		"  c = f32[8] constant({1, 2, 3, 4, 5, 6, 7, 8})\n"
		"  m = f32[8] multiply(x, c)\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[] reduce(m, z), dimensions={0}, to_apply=add\n"
		"}\n";
	const char *srcs[2] = {small, two};
	HloError e;
	HloModule *in[2], *d, *w;
	char *a, *b;
	int i, j, k, p[2];
	PassCtx ctx;

	p[0] = pass_lookup("algsimp", 7);
	p[1] = pass_lookup("dce", 3);
	ck_assert(p[0] >= 0 && p[1] >= 0);
	for (i = 0; i < 2; i++) {
		in[i] = tu_parse(srcs[i], &e);
		ck_assert_msg(in[i] != NULL, "parse: %s", e.msg);
	}
	pass_ctx_init(&ctx);
	for (i = 0; i < 2; i++) {
		for (j = 0; j < 2; j++) {
			d = hlo_module_clone(in[j]);
			for (k = 0; k < 2; k++)
				ck_assert_int_ge(pass_run(d, p[k], &ctx, NULL),
					0);
			hlo_module_copy(d, in[i]);
			w = hlo_module_clone(in[i]);
			a = tu_print(d);
			b = tu_print(in[i]);
			ck_assert_str_eq(a, b);
			free(a);
			free(b);
			ck_assert_uint_eq(env_hash_module(d),
				env_hash_module(in[i]));
			for (k = 0; k < 2; k++)
				ck_assert_int_eq(pass_run(d, p[k], &ctx, NULL),
					pass_run(w, p[k], &ctx, NULL));
			ck_assert_uint_eq(hlo_fresh_name(d, "negate"),
				hlo_fresh_name(w, "negate"));
			a = tu_print(d);
			b = tu_print(w);
			ck_assert_str_eq(a, b);
			free(a);
			free(b);
			hlo_module_free(d);
			hlo_module_free(w);
		}
	}
	pass_ctx_free(&ctx);
	hlo_module_free(in[0]);
	hlo_module_free(in[1]);
}
END_TEST

START_TEST(search_small_optimum)
{
	int algo;

	for (algo = 0; algo < SEARCH_NALGO; algo++) {
		SearchResult r = search(small, algo, 1, 3000);

		ck_assert_double_eq(r.initial, 6);
		ck_assert_double_eq(r.best, 2);
		/* random search's first sequence reaching the optimum
		 * depends on the action set (fusion actions: 4 steps) */
		if (algo == SEARCH_RANDOM)
			ck_assert_int_ge(r.nseq, 2);
		else
			ck_assert_int_eq(r.nseq, 2);
		ck_assert_int_ge(r.nlog, 1);
		ck_assert_double_eq(r.log[r.nlog - 1].best, 2);
		if (algo != SEARCH_RANDOM) {
			/* the lower action id wins ties: algsimp first */
			ck_assert_int_eq(r.seq[0], PASS_algsimp);
			ck_assert_int_eq(r.seq[1], PASS_dce);
		}
		search_result_free(&r);
	}
}
END_TEST

/* any number of workers: the same sequence, the same steps */
START_TEST(search_jobs_independent)
{
	char *src = tu_read(TU_DATA "/hloenv-jax/jraph/module_0047.jit__"
		"truncated_normal.20.before_optimizations.hlo", NULL);
	int algo;

	ck_assert_ptr_nonnull(src);
	for (algo = 0; algo < SEARCH_NALGO; algo++) {
		SearchResult a = search(src, algo, 1, 800);
		SearchResult b = search(src, algo, 3, 800);

		ck_assert_double_eq(a.best, b.best);
		ck_assert_int_eq(a.nseq, b.nseq);
		ck_assert(!memcmp(a.seq, b.seq, a.nseq * sizeof *a.seq));
		ck_assert_int_eq(a.steps, b.steps);
		ck_assert_str_eq(a.found_by, b.found_by);
		ck_assert_double_le(a.best, a.initial);
		search_result_free(&a);
		search_result_free(&b);
	}
	free(src);
}
END_TEST

START_TEST(search_replay_and_minimize)
{
	HloError e;
	HloModule *m = tu_parse(small, &e), *out;
	int seq[] = {PASS_cse, PASS_dce, PASS_cse, PASS_tuple_simplifier,
		PASS_algsimp, PASS_cse, PASS_dce};
	int *min, nmin, tests;
	double v;

	ck_assert_int_eq(search_replay(m, seq, 7, ENV_OBJ_INSTRUCTIONS, &v,
		&out, NULL, &e), 0);
	ck_assert_double_eq(v, 2);
	ck_assert_int_eq(hlo_cost_count(out), 2);
	hlo_module_free(out);
	ck_assert_int_eq(search_minimize(m, seq, 7, ENV_OBJ_INSTRUCTIONS, 2,
		&min, &nmin, &tests, &e), 0);
	ck_assert_int_eq(nmin, 2);
	ck_assert(min[0] == PASS_dce || min[0] == PASS_algsimp);
	ck_assert_int_gt(tests, 2);
	free(min);
	/* a target nothing reaches keeps the whole sequence */
	ck_assert_int_eq(search_minimize(m, seq, 7, ENV_OBJ_INSTRUCTIONS, 1,
		&min, &nmin, &tests, &e), 0);
	ck_assert_int_eq(nmin, 7);
	free(min);
	hlo_module_free(m);
}
END_TEST

static Suite *
env_suite(void)
{
	Suite *s = suite_create("env");
	TCase *tc = tcase_create("env");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, actions_and_sizes);
	tcase_add_test(tc, size_cap_ends_episode);
	tcase_add_test(tc, step_reward_and_cache);
	tcase_add_test(tc, observation_layout);
	tcase_add_test(tc, patience);
	tcase_add_test(tc, shaping_and_objectives);
	tcase_add_test(tc, sampling_is_seeded);
	tcase_add_test(tc, threads);
	tcase_add_test(tc, hash_ignores_names);
	tcase_add_test(tc, module_copy_is_a_clone);
	tcase_add_test(tc, search_small_optimum);
	tcase_add_test(tc, search_jobs_independent);
	tcase_add_test(tc, search_replay_and_minimize);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(env_suite());
	int nf;

	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
