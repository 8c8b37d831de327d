/* run.c: the agents on the pass-ordering environment (see run.h): the
 * RlEnv table over Envs, the best state per module, episodes restarted
 * from it (restart_best: its changing passes replayed, counted in the
 * budget), the learning curve, the wall-time limit, and a trained policy
 * applied to a module */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_rng.h>

#include "run.h"
#include "vec.h"

typedef struct Shared Shared;

/* one environment slot: a copy of every module, one of them current */
typedef struct {
	Shared *sh;
	Env **mods;		/* nmod; slot 0 holds the caller's */
	int cur;		/* the current module */
	int force;		/* >= 0: the next reset takes this module */
	EnvInfo info;		/* the last step */
	int failed;		/* the last step's pass failed: */
	char why[560];		/* why */
	unsigned char *mask;
	long episode;		/* episodes this slot started */
	int *chg, nchg, capchg;	/* the actions of this episode that
				 * changed the module, in order */
	unsigned char *tabu;	/* climb: actions its earlier rollouts took
				 * first from the state it starts from */
	int tabu_on;		/* the next reset masks them (while some
				 * other action stays valid) */
	int start;		/* steps replayed at the episode's start */
	int chg0;		/* changing passes replayed at its start */
	double start_obj;	/* the objective after them */
	int ran;		/* steps of this episode whose pass ran
				 * (neither a known no-op nor a replay) */
	int from_best;		/* the next reset: -1 as restart_best
				 * draws, 0 never, 1 when it can */
} Slot;

struct Shared {
	RlRun *run;
	const RlRunOpts *o;
	int nmod, E, A;
	Slot *slots;
	const char **names;
	const char *phase;	/* "training", "greedy rollout", ... */
	int **bestchg, *nbestchg;	/* per module: the actions of the
				 * best state's episode that changed the
				 * module (replaying them reaches it) */
	double t0, last_progress;
};

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void
slot_mask(Slot *s, RlStep *out)
{
	int a, any = 0;

	env_action_mask(s->mods[s->cur], s->mask);
	for (a = 0; a < s->sh->A; a++)
		any |= s->mask[a] != 0;
	if (any)
		return;
	/* every pass is known to change nothing here: a fixed point */
	memset(s->mask, 1, s->sh->A);
	if (out)
		out->done = 1;
}

static long budget_left(const Shared *sh);

/* the climb's first-step mask: the actions taken first before go, unless
 * none would be left */
static void
mask_tabu(Slot *s)
{
	int a, any = 0;

	for (a = 0; a < s->sh->A; a++)
		any |= s->mask[a] && !s->tabu[a];
	for (a = 0; any && a < s->sh->A; a++)
		s->mask[a] &= !s->tabu[a];
}

static int
push_chg(Slot *s, int a)
{
	int *p;

	if (s->nchg == s->capchg) {
		if (!(p = realloc(s->chg, (s->capchg ? 2 * s->capchg : 64) *
		    sizeof *p)))
			return -1;
		s->chg = p;
		s->capchg = s->capchg ? 2 * s->capchg : 64;
	}
	s->chg[s->nchg++] = a;
	return 0;
}

/* restart_best: the episode goes on from the module's best state, its
 * changing passes replayed (each a step of the run's budget) */
static int
replay_best(Slot *s, uint64_t seed, double *obs, RlError *e)
{
	Shared *sh = s->sh;
	Env *env = s->mods[s->cur];
	int m = s->cur, i, want = s->from_best;
	double u = (double)(seed >> 11) * 0x1p-53;

	s->from_best = -1;
	if (want < 0)
		want = u < sh->o->params.restart_best;
	if (!want || !sh->nbestchg[m] || sh->nbestchg[m] > budget_left(sh))
		return 0;
	for (i = 0; i < sh->nbestchg[m]; i++) {
		if (env_step(env, sh->bestchg[m][i], obs, &s->info) < 0)
			return rl_err(e, "error: replaying the best state: "
				"%s", env_error(env));
		sh->run->steps++;
		sh->run->passes_run += !s->info.cached;
		if (s->info.changed && push_chg(s, sh->bestchg[m][i]) < 0)
			return rl_err(e, "error: out of memory");
		if (s->info.done)
			break;
	}
	if (!s->info.done)
		return 0;
	s->nchg = 0;	/* the episode cannot go on from there */
	if (env_reset(env, obs) < 0)
		return rl_err(e, "error: %s", env_error(env));
	return 0;
}

static int
ad_reset(void *ctx, uint64_t seed, double *obs, RlError *e)
{
	Slot *s = ctx;
	Env *env;

	s->cur = s->force >= 0 ? s->force : (int)(seed % s->sh->nmod);
	s->force = -1;
	s->episode++;
	s->nchg = 0;
	env = s->mods[s->cur];
	if (env_reset(env, obs) < 0)
		return rl_err(e, "error: %s", env_error(env));
	if (s->sh->bestchg && replay_best(s, seed, obs, e) < 0)
		return -1;
	s->ran = 0;
	s->start = env_steps(env);
	s->chg0 = s->nchg;
	s->start_obj = env_objective(env);
	slot_mask(s, NULL);
	if (s->tabu_on)
		mask_tabu(s);
	return 0;
}

/* a pass that fails ends the episode (the first is reported) */
static int
ad_step(void *ctx, int a, double *obs, RlStep *out, RlError *e)
{
	Slot *s = ctx;
	Env *env = s->mods[s->cur];

	memset(out, 0, sizeof *out);
	s->failed = env_step(env, a, obs, &s->info) < 0;
	if (s->failed) {
		snprintf(s->why, sizeof s->why, "pass %s failed: %s",
			s->sh->names[a], env_error(env));
		out->done = 1;
		return 0;
	}
	out->reward = s->info.reward;
	out->done = s->info.done;
	/* climb: a step downhill from where the rollout started ends it */
	if (s->tabu_on && s->sh->o->params.climb_stop_worse &&
	    s->info.objective > s->start_obj)
		out->done = 1;
	if (s->info.changed && s->sh->bestchg && push_chg(s, a) < 0)
		return rl_err(e, "error: out of memory");
	slot_mask(s, out);
	/* climb: still where the rollout started (no-ops so far), the
	 * earlier rollouts' first changes stay masked */
	if (s->tabu_on && s->nchg == s->chg0 && !out->done)
		mask_tabu(s);
	return 0;
}

static void
ad_mask(void *ctx, unsigned char *mask)
{
	Slot *s = ctx;

	memcpy(mask, s->mask, s->sh->A);
}

static int
grow(void **p, int *cap, int n, size_t size)
{
	int nc = *cap ? 2 * *cap : 16;
	void *q;

	if (n < *cap)
		return 0;
	if (!(q = realloc(*p, (size_t)nc * size)))
		return -1;
	*p = q;
	*cap = nc;
	return 0;
}

/* the changing passes of slot s's episode become module m's best */
static int
keep_chg(Shared *sh, int m, const Slot *s)
{
	int *p = malloc((s->nchg ? s->nchg : 1) * sizeof *p);

	if (!p)
		return -1;
	memcpy(p, s->chg, s->nchg * sizeof *p);
	free(sh->bestchg[m]);
	sh->bestchg[m] = p;
	sh->nbestchg[m] = s->nchg;
	return 0;
}

/* counts the step; a better state than the module's best is recorded */
static void
ad_after(void *ctx)
{
	Slot *s = ctx;
	Shared *sh = s->sh;
	RlRun *run = sh->run;
	Env *env = s->mods[s->cur];
	int m = s->cur, n = env_steps(env);
	int *seq;
	RlImprovement *im;

	run->steps++;
	run->passes_run += !s->failed && !s->info.cached;
	s->ran += !s->failed && !s->info.cached;
	if (s->failed && !run->warning[0])
		snprintf(run->warning, sizeof run->warning, "%s", s->why);
	if (s->failed || !(s->info.objective < run->best[m]))
		return;
	if (!(seq = malloc((n ? n : 1) * sizeof *seq)))
		return;		/* not recorded; the search goes on */
	memcpy(seq, env_actions(env), n * sizeof *seq);
	if (sh->bestchg && keep_chg(sh, m, s) < 0) {
		free(seq);
		return;
	}
	free(run->seq[m]);
	run->seq[m] = seq;
	run->nseq[m] = n;
	run->best[m] = s->info.objective;
	run->found_at[m] = run->steps;
	snprintf(run->found_by[m], sizeof run->found_by[m], "%s %s, episode "
		"%ld, step %d", rl_algo_name(sh->o->params.algo), sh->phase,
		s->episode, n);
	if (grow((void **)&run->log, &run->caplog, run->nlog,
	    sizeof *run->log) < 0 || !(seq = malloc((n ? n : 1) *
	    sizeof *seq)))
		return;
	memcpy(seq, env_actions(env), n * sizeof *seq);
	im = &run->log[run->nlog++];
	im->steps = run->steps;
	im->module = m;
	im->best = s->info.objective;
	im->seq = seq;
	im->nseq = n;
}

static double
best_fraction(const RlRun *run)
{
	double f = 0;
	int m;

	for (m = 0; m < run->nmod; m++)
		f += run->initial[m] > 0 ? 1 - run->best[m] / run->initial[m] :
			0;
	return f / run->nmod;
}

static void
progress(Shared *sh, int force)
{
	const RlRunOpts *o = sh->o;
	double t = now(), f;

	sh->run->seconds = t - sh->t0;
	if (!o->progress || (!force && t - sh->last_progress < 0.2))
		return;
	sh->last_progress = t;
	f = (double)sh->run->steps / o->params.total_steps;
	if (o->seconds > 0 && sh->run->seconds / o->seconds > f)
		f = sh->run->seconds / o->seconds;
	o->progress(o->arg, sh->run, f < 1 ? f : 1);
}

static int
on_update(void *u, const RlStats *st)
{
	Shared *sh = u;
	RlRun *run = sh->run;
	RlCurveRow *row;

	if (grow((void **)&run->curve, &run->capcurve, run->ncurve,
	    sizeof *run->curve) == 0) {
		row = &run->curve[run->ncurve++];
		row->st = *st;
		row->best_fraction = best_fraction(run);
		row->seconds = now() - sh->t0;
	}
	return 0;
}

static int
on_poll(void *u, long steps)
{
	Shared *sh = u;

	progress(sh, 0);
	if (sh->bestchg && !strcmp(sh->phase, "training") &&
	    sh->run->steps >= sh->o->params.total_steps)
		return 1;	/* replays took the rest of training's steps */
	if (sh->o->seconds > 0 && sh->run->seconds >= sh->o->seconds) {
		sh->run->timed_out = 1;
		return 1;
	}
	return 0;
}

void
rl_run_opts_default(RlRunOpts *o, int algo)
{
	memset(o, 0, sizeof *o);
	rl_params_default(&o->params, algo);
	o->seed = 1;
	o->jobs = 1;
	o->final_rollouts = 1;
}

static int
run_alloc(RlRun *run, Env *const *mods, int nmod, RlError *e)
{
	int m;

	memset(run, 0, sizeof *run);
	run->nmod = nmod;
	if (!(run->initial = rl_alloc(nmod, sizeof *run->initial, e)) ||
	    !(run->best = rl_alloc(nmod, sizeof *run->best, e)) ||
	    !(run->seq = rl_alloc(nmod, sizeof *run->seq, e)) ||
	    !(run->nseq = rl_alloc(nmod, sizeof *run->nseq, e)) ||
	    !(run->found_at = rl_alloc(nmod, sizeof *run->found_at, e)) ||
	    !(run->found_by = rl_alloc(nmod, sizeof *run->found_by, e)))
		return -1;
	for (m = 0; m < nmod; m++) {
		run->initial[m] = run->best[m] = env_objective_initial(mods[m]);
		snprintf(run->found_by[m], sizeof run->found_by[m], "input");
	}
	return 0;
}

void
rl_run_free(RlRun *run)
{
	int i;

	for (i = 0; i < run->nmod && run->seq; i++)
		free(run->seq[i]);
	for (i = 0; i < run->nlog; i++)
		free(run->log[i].seq);
	free(run->initial);
	free(run->best);
	free(run->seq);
	free(run->nseq);
	free(run->found_at);
	free(run->found_by);
	free(run->log);
	free(run->curve);
	rl_policy_free(run->policy);
	memset(run, 0, sizeof *run);
}

static void
shared_free(Shared *sh)
{
	EnvTimes t;
	uint64_t l, h;
	int i, m;

	for (i = 0; sh->slots && i < sh->E; i++)
		for (m = 0; sh->slots[i].mods && m < sh->nmod; m++) {
			if (!sh->slots[i].mods[m])
				continue;
			env_table_stats(sh->slots[i].mods[m], &l, &h);
			sh->run->lookups += l;
			sh->run->hits += h;
			env_times(sh->slots[i].mods[m], &t);
			env_times_add(&sh->run->times, &t);
		}
	for (i = 0; sh->slots && i < sh->E; i++) {
		for (m = 0; i > 0 && sh->slots[i].mods && m < sh->nmod; m++)
			env_free(sh->slots[i].mods[m]);
		if (i > 0)
			free(sh->slots[i].mods);
		free(sh->slots[i].mask);
		free(sh->slots[i].tabu);
		free(sh->slots[i].chg);
	}
	for (m = 0; sh->bestchg && m < sh->nmod; m++)
		free(sh->bestchg[m]);
	free(sh->bestchg);
	free(sh->nbestchg);
	free(sh->slots);
	free(sh->names);
}

/* the slots and their RlEnv tables; slot 0 steps the caller's Envs */
static int
shared_init(Shared *sh, Env *const *mods, int nmod, int E, RlEnv *envs,
	RlError *e)
{
	Slot *s;
	int i, m, a;

	sh->nmod = nmod;
	sh->E = E;
	sh->A = env_action_count(mods[0]);
	for (m = 1; m < nmod; m++)
		if (env_action_count(mods[m]) != sh->A ||
		    env_obs_size(mods[m]) != env_obs_size(mods[0]))
			return rl_err(e, "error: the modules' environments "
				"differ in actions or observations");
	if (!(sh->names = rl_alloc(sh->A, sizeof *sh->names, e)) ||
	    !(sh->slots = rl_alloc(E, sizeof *sh->slots, e)))
		return -1;
	for (a = 0; a < sh->A; a++)
		sh->names[a] = env_action_name(mods[0], a);
	for (i = 0; i < E; i++) {
		s = &sh->slots[i];
		s->sh = sh;
		s->force = -1;
		s->from_best = -1;
		if (!(s->mask = rl_alloc(sh->A, 1, e)))
			return -1;
		if (i == 0) {
			s->mods = (Env **)mods;
		} else {
			if (!(s->mods = rl_alloc(nmod, sizeof *s->mods, e)))
				return -1;
			for (m = 0; m < nmod; m++)
				if (!(s->mods[m] = env_dup(mods[m])))
					return rl_err(e, "error: out of memory");
		}
		envs[i] = (RlEnv){s, env_obs_size(mods[0]), sh->A,
			ENV_OBS_VERSION, sh->names, ad_reset, ad_step, ad_mask,
			ad_after};
	}
	return 0;
}

/* the steps left of the run's budget (LONG_MAX: no budget) */
static long
budget_left(const Shared *sh)
{
	if (sh->o->budget <= 0)
		return LONG_MAX;
	return sh->run->steps < sh->o->budget ? sh->o->budget -
		(long)sh->run->steps : 0;
}

/* climb: greedy rollouts of the trained policy from each module's best
 * state (its changing passes replayed; the input while nothing beat it),
 * at most params.climb per module: the policy's order tried where the
 * search stands, the no-ops known from the transposition table masked,
 * so that a rollout from a state already rolled out from goes on to the
 * actions not yet tried there. A rollout that ran no pass (every step a
 * known no-op) would be repeated as it is: the climb ends there */
static int
climb(Shared *sh, RlEnv *env, gsl_rng *r, RlError *e)
{
	Slot *s = &sh->slots[0];
	double ret, before;
	long steps, left;
	int m, k;

	if (!sh->bestchg)
		return 0;
	if (!s->tabu && !(s->tabu = rl_alloc(sh->A, 1, e)))
		return -1;
	sh->phase = "climb";
	for (m = 0; m < sh->nmod; m++) {
		memset(s->tabu, 0, sh->A);
		for (k = 0; k < sh->o->params.climb; k++) {
			left = budget_left(sh);
			if (sh->nbestchg[m] >= left ||
			    sh->run->timed_out)
				return 0;
			before = sh->run->best[m];
			s->force = m;
			s->from_best = 1;
			s->tabu_on = 1;
			if (rl_rollout(sh->run->policy, env, rl_seed64(r), 1,
			    left - sh->nbestchg[m], r, &ret, &steps, e) < 0) {
				s->tabu_on = 0;
				return -1;
			}
			s->tabu_on = 0;
			on_poll(sh, 0);
			if (sh->run->best[m] < before)
				memset(s->tabu, 0, sh->A);	/* a new state */
			else if (!s->ran)
				break;
			else if (s->nchg > s->chg0)	/* its first change */
				s->tabu[s->chg[s->chg0]] = 1;
			else if (env_steps(s->mods[m]) > s->start)
				s->tabu[env_actions(s->mods[m])[s->start]] = 1;
		}
	}
	return 0;
}

/* greedy rollouts of the trained policy on every module, from slot 0;
 * then, with a budget, sampled rollouts (module after module) until it
 * is spent: the best state seen is the result, so the steps the greedy
 * rollouts did not need still search where the policy points */
static int
final_rollouts(Shared *sh, RlEnv *env, gsl_rng *r, RlError *e)
{
	double ret;
	long steps, left;
	int m, k;

	sh->phase = "greedy rollout";
	for (k = 0; k < sh->o->final_rollouts; k++)
		for (m = 0; m < sh->nmod; m++) {
			if ((left = budget_left(sh)) == 0)
				return 0;
			sh->slots[0].force = m;
			sh->slots[0].from_best = 0;
			if (rl_rollout(sh->run->policy, env, rl_seed64(r), 1,
			    left < (1L << 30) ? left : 1L << 30, r, &ret,
			    &steps, e) < 0)
				return -1;
		}
	if (climb(sh, env, r, e) < 0)
		return -1;
	sh->phase = "sampled rollout";
	for (m = 0; sh->o->budget > 0 && !sh->run->timed_out &&
	    (left = budget_left(sh)) > 0; m = (m + 1) % sh->nmod) {
		sh->slots[0].force = m;
		sh->slots[0].from_best = 0;
		if (sh->bestchg && sh->nbestchg[m] && sh->nbestchg[m] < left &&
		    gsl_rng_uniform(r) < sh->o->params.restart_best) {
			sh->slots[0].from_best = 1;
			left -= sh->nbestchg[m];
		}
		if (rl_rollout(sh->run->policy, env, rl_seed64(r), 0, left, r,
		    &ret, &steps, e) < 0)
			return -1;
		on_poll(sh, 0);
	}
	return 0;
}

int
rl_run(Env *const *mods, int nmod, const RlRunOpts *o, RlRun *run,
	RlError *e)
{
	Shared sh = {0};
	RlEnv *envs = NULL;
	RlHooks h = {&sh, on_update, on_poll, o->jobs};
	gsl_rng *r = NULL;
	int E = (int)o->params.n_envs, rc = -1;

	if (run_alloc(run, mods, nmod, e) < 0)
		return -1;
	sh.run = run;
	sh.o = o;
	sh.phase = "training";
	sh.t0 = now();
	if (!(envs = rl_alloc(E, sizeof *envs, e)) ||
	    shared_init(&sh, mods, nmod, E, envs, e) < 0)
		goto out;
	if ((o->params.restart_best > 0 || o->params.climb > 0) &&
	    (!(sh.bestchg = rl_alloc(nmod, sizeof *sh.bestchg, e)) ||
	    !(sh.nbestchg = rl_alloc(nmod, sizeof *sh.nbestchg, e))))
		goto out;
	if (!(r = gsl_rng_alloc(gsl_rng_mt19937))) {
		rl_err(e, "error: out of memory");
		goto out;
	}
	gsl_rng_set(r, (unsigned long)o->seed);
	if (rl_train(&o->params, envs, r, &h, &run->policy, e) < 0 ||
	    final_rollouts(&sh, &envs[0], r, e) < 0)
		goto out;
	rc = 0;
out:
	progress(&sh, 1);
	if (r)
		gsl_rng_free(r);
	shared_free(&sh);
	free(envs);
	return rc;
}

int
rl_apply(RlPolicy *pol, Env *env, int samples, uint64_t seed, int **seq,
	int *nseq, double *best, RlError *e)
{
	RlRunOpts o;
	RlRun run;
	Shared sh = {0};
	RlEnv renv;
	Env *mods[1] = {env};
	gsl_rng *r = NULL;
	double ret, climbed = 0;
	long steps;
	int k, rc = -1;

	*seq = NULL;
	*nseq = 0;
	rl_run_opts_default(&o, pol->algo);
	o.params = pol->params;
	sh.run = &run;
	sh.o = &o;
	sh.t0 = now();
	if (run_alloc(&run, mods, 1, e) < 0 ||
	    shared_init(&sh, mods, 1, 1, &renv, e) < 0 ||
	    rl_policy_check(pol, &renv, e) < 0)
		goto out;
	if (!(r = gsl_rng_alloc(gsl_rng_mt19937))) {
		rl_err(e, "error: out of memory");
		goto out;
	}
	gsl_rng_set(r, (unsigned long)seed);
	if (o.params.climb > 0 &&
	    (!(sh.bestchg = rl_alloc(1, sizeof *sh.bestchg, e)) ||
	    !(sh.nbestchg = rl_alloc(1, sizeof *sh.nbestchg, e))))
		goto out;
	sh.run->policy = pol;	/* climb's; not freed here */
	for (k = 0; k <= samples; k++) {
		sh.phase = k ? "sampled rollout" : "greedy rollout";
		sh.slots[0].from_best = 0;
		if (rl_rollout(pol, &renv, 0, k == 0, 1L << 30, r, &ret,
		    &steps, e) < 0)
			goto out;
		/* the climb after the greedy rollout, as without samples,
		 * so that samples never end worse than without them */
		if (k == 0) {
			if (climb(&sh, &renv, r, e) < 0)
				goto out;
			climbed = run.best[0];
		}
	}
	/* and again from a better state the samples found */
	if (samples > 0 && run.best[0] < climbed && climb(&sh, &renv, r,
	    e) < 0)
		goto out;
	*best = run.best[0];
	*nseq = run.nseq[0];
	*seq = run.seq[0];
	run.seq[0] = NULL;
	if (!*seq && !(*seq = calloc(1, sizeof **seq))) {
		rl_err(e, "error: out of memory");
		goto out;
	}
	rc = 0;
out:
	if (r)
		gsl_rng_free(r);
	shared_free(&sh);
	run.policy = NULL;
	rl_run_free(&run);
	return rc;
}
