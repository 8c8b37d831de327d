/* bench_env.c: the environment's speed (scripts/bench-env): per module,
 * random episodes with an observation after every step, as an agent
 * would take them, on one thread: steps per second, instruction-steps
 * per second (the instructions of the state each step starts from,
 * summed), the share of time in reset (clone), passes, objective, hash
 * and observation; then random search with -j 1 and -j 2 at the same
 * budget, and their throughput ratio. With BENCH_ENV_TOP=N in the
 * environment, per module also the N actions that took the most step
 * time (a step's whole time: pass, objective, hash and observation).
 * With BENCH_ENV_BOUND=1, per module also the -j 2 speedup that random
 * search's schedule of whole episodes allows at most (sched_bound).
 * usage: bench_env SECONDS BUDGET FILE... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "search.h"

static const char *
base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* processor seconds of the whole process: on a loaded machine the
 * rates per processor second are the ones to compare */
static double
cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

typedef struct {
	int a;
	double ms;
	long n;
} ActTime;

static int
bytime(const void *x, const void *y)
{
	const ActTime *p = x, *q = y;

	return (p->ms < q->ms) - (p->ms > q->ms);
}

/* the top actions by their steps' total time, in % of wall */
static void
print_top(const Env *env, ActTime *at, int top, double wall)
{
	int i, n = env_action_count(env);

	qsort(at, n, sizeof *at, bytime);
	for (i = 0; i < top && i < n && at[i].ms > 0; i++)
		printf("    %-34s %5.1f%% %6ld steps %8.3f ms/step\n",
			env_action_name(env, at[i].a),
			at[i].ms / 10 / wall, at[i].n, at[i].ms / at[i].n);
}

static int
profile(const char *path, double secs, int top)
{
	ActTime *at;
	EnvOpts o;
	Env *env;
	EnvTimes t;
	EnvInfo info;
	double *obs, t0, c0, wall, busy, isteps = 0, other;
	char err[1100];
	uint64_t lk, hits;
	int64_t instrs;
	int ep = 0, a, i;

	env_opts_default(&o);
	if (env_create_file(path, &o, &env, err, sizeof err) < 0) {
		fprintf(stderr, "bench_env: %s\n", err);
		return -1;
	}
	at = calloc(env_action_count(env), sizeof *at);
	for (i = 0; i < env_action_count(env); i++)
		at[i].a = i;
	obs = malloc(env_obs_size(env) * sizeof *obs);
	instrs = (int64_t)env_objective_initial(env);
	t0 = env_now();
	c0 = cpu();
	while (env_now() - t0 < secs) {
		env_seed(env, env_mix(1, ep++));
		env_reset(env, obs);
		do {
			a = env_sample_action(env, NULL);
			if (env_step(env, a, obs, &info) < 0)
				break;
			isteps += info.before;
			at[a].ms += info.ms;
			at[a].n++;
		} while (!info.done);
	}
	wall = env_now() - t0;
	busy = cpu() - c0;
	env_times(env, &t);
	env_table_stats(env, &lk, &hits);
	other = wall - t.reset - t.pass - t.objective - t.hash - t.observe;
	printf("%-36.36s %6lld %8.0f %8.0f %8.2f  %5.1f %5.1f %5.1f %5.1f "
		"%5.1f %5.1f %5.1f\n", base(path), (long long)instrs,
		t.steps / wall, t.steps / busy, isteps / busy / 1e6,
		100 * t.reset / wall, 100 * t.pass / wall,
		100 * t.objective / wall, 100 * t.hash / wall,
		100 * t.observe / wall, 100 * other / wall,
		lk ? 100.0 * hits / lk : 0);
	print_top(env, at, top, wall);
	free(at);
	free(obs);
	env_free(env);
	return 0;
}

static double
thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* the -j 2 speedup that random search's own schedule allows at most,
 * without any contention: its episodes (seeded, ended and counted as
 * search.c does: patience 1.25 x actions, complete episodes in index
 * order until the budget) run again on this thread, each timed in
 * processor seconds, then dealt in index order to whichever of two
 * workers is free first; the bound is their sum over the time the
 * later worker finishes its last counted episode. An episode cannot be
 * split, so a long last one leaves the other worker idle (and what it
 * starts past the budget is never counted) */
static double
sched_bound(const char *path, int64_t budget)
{
	EnvOpts o;
	Env *env;
	EnvInfo info;
	char err[1100];
	double w[2] = {0, 0}, sum = 0, end = 0, t0, c;
	int64_t cum = 0, e, n;
	int i;

	env_opts_default(&o);
	o.episode_len = 10000;	/* search.c's RANDOM_MAX_LEN */
	if (env_create_file(path, &o, &env, err, sizeof err) < 0)
		return 0;
	o.patience = (env_action_count(env) * 5 + 3) / 4;
	env_free(env);
	if (env_create_file(path, &o, &env, err, sizeof err) < 0)
		return 0;
	for (e = 0; cum < budget; e++) {
		env_seed(env, env_mix(1, (uint64_t)e));
		env_reset(env, NULL);
		t0 = thread_cpu();
		n = 0;
		do {
			n++;
			if (env_step(env, env_sample_action(env, NULL), NULL,
			    &info) < 0)
				break;
		} while (!info.done);
		c = thread_cpu() - t0;
		cum += n;
		sum += c;
		i = w[0] <= w[1] ? 0 : 1;
		w[i] += c;
		if (w[i] > end)
			end = w[i];
	}
	env_free(env);
	return end > 0 ? sum / end : 0;
}

/* random search's steps per second of wall time; *busy its processor
 * seconds per wall second */
static double
search_rate(const char *path, int jobs, int64_t budget, double *busy)
{
	HloModule *m;
	HloError e;
	SearchOpts o;
	SearchResult r;
	double rate, c0;

	*busy = 0;
	if (hlo_load(path, &m, &e) < 0)
		return 0;
	search_opts_default(&o);
	o.jobs = jobs;
	o.budget = budget;
	c0 = cpu();
	if (search_run(m, &o, &r, &e) < 0) {
		hlo_module_free(m);
		return 0;
	}
	*busy = (cpu() - c0) / r.seconds;
	rate = r.steps / r.seconds;
	search_result_free(&r);
	hlo_module_free(m);
	return rate;
}

int
main(int argc, char **argv)
{
	double secs, r1, r2, b1, b2;
	const char *t = getenv("BENCH_ENV_TOP");
	const char *bound = getenv("BENCH_ENV_BOUND");
	long budget;
	int i, top = t ? atoi(t) : 0;

	if (argc < 4) {
		fputs("usage: bench_env SECONDS BUDGET FILE...\n", stderr);
		return 2;
	}
	secs = atof(argv[1]);
	budget = atol(argv[2]);
	printf("one thread, random episodes, an observation every step; "
		"time shares in %%\n");
	printf("%-36s %6s %8s %8s %8s  %5s %5s %5s %5s %5s %5s %5s\n",
		"module", "instrs", "steps/s", "/cpu-s", "Mis/cpu",
		"clone", "pass", "obj", "hash", "obs", "other", "hit%");
	for (i = 3; i < argc; i++)
		profile(argv[i], secs, top);
	printf("\nrandom search, %ld steps: steps/s of wall time with -j 1 "
		"and -j 2 (processors busy; steps per processor second)\n",
		budget);
	for (i = 3; i < argc; i++) {
		r1 = search_rate(argv[i], 1, budget, &b1);
		r2 = search_rate(argv[i], 2, budget, &b2);
		printf("%-36.36s %9.0f (%.2f; %7.0f) %9.0f (%.2f; %7.0f)  "
			"x%.2f", base(argv[i]), r1, b1, b1 > 0 ? r1 / b1 : 0,
			r2, b2, b2 > 0 ? r2 / b2 : 0, r1 > 0 ? r2 / r1 : 0);
		if (bound && *bound && strcmp(bound, "0"))
			printf("  (schedule allows x%.2f)",
				sched_bound(argv[i], budget));
		putchar('\n');
	}
	return 0;
}
