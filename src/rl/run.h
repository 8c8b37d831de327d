/* run.h: the agents on the pass-ordering environment (src/rl/run.c,
 * curve.c): an RlEnv over one or many Envs (one per module; an episode
 * draws its module from the agent's seed), the best state each module
 * reached and the pass sequence that reached it, the learning curve, a
 * wall-time limit and progress, and a trained policy applied to a module.
 * The driver (src/cmd_train.c) creates the Envs; this layer sees the IR
 * only through env.h. */
#ifndef RL_RUN_H
#define RL_RUN_H

#include <stdio.h>

#include "env.h"
#include "rl.h"

/* a new best state of a module */
typedef struct {
	int64_t steps;		/* environment steps counted when found */
	int module;
	double best;		/* its objective */
	int *seq;		/* the actions from the input, nseq */
	int nseq;
} RlImprovement;

/* one row of the learning curve: after each update (rl.h) */
typedef struct {
	RlStats st;
	double best_fraction;	/* mean over the modules of
				 * 1 - best / initial objective so far */
	double seconds;
} RlCurveRow;

typedef struct {
	int nmod;
	double *initial;	/* per module: the input's objective */
	double *best;		/* the best reached */
	int **seq, *nseq;	/* the sequence that reached it */
	int64_t *found_at;	/* at which step (0: the input itself) */
	char (*found_by)[96];	/* "ppo training, episode 3, step 7", ... */
	RlImprovement *log;	/* every improvement, in order */
	int nlog, caplog;
	RlCurveRow *curve;
	int ncurve, capcurve;
	int64_t steps;		/* environment steps, rollouts included */
	int64_t passes_run;	/* steps whose pass really ran (not skipped
				 * as a known no-op, not failed) */
	uint64_t lookups, hits;	/* the transposition tables' */
	EnvTimes times;		/* the environments' time, summed */
	double seconds;
	int timed_out;		/* stopped by the wall-time limit */
	char warning[600];	/* the first pass that failed, else empty */
	RlPolicy *policy;	/* the trained policy */
} RlRun;

typedef struct {
	RlParams params;	/* the algorithm, its budget and settings */
	uint64_t seed;
	int jobs;		/* threads stepping the n_envs environments
				 * (the result does not depend on it) */
	double seconds;		/* wall-time limit; 0: none */
	int final_rollouts;	/* greedy rollouts of the trained policy per
				 * module, counted in the steps (default 1) */
	long budget;		/* every step of the run, training and
				 * final rollouts; 0: none. the steps that
				 * training and the greedy rollouts leave
				 * go to sampled rollouts of the policy
				 * (module after module), then the run ends
				 * at exactly this many steps */
	void (*progress)(void *arg, const RlRun *run, double fraction);
	void *arg;		/* progress: about every 0.2 s */
} RlRunOpts;

void rl_run_opts_default(RlRunOpts *o, int algo);
int rl_run(Env *const *mods, int nmod, const RlRunOpts *o, RlRun *run,
	RlError *e);	/* trains on the modules' Envs (which it steps,
			 * and duplicates for n_envs > 1); run filled even
			 * on error (free it) */
void rl_run_free(RlRun *run);

/* the policy on one module: its greedy rollout, and with samples > 0 as
 * many sampled rollouts too; *seq (malloc'd, *nseq) reaches the best
 * state seen, *best its objective. -1 when the policy does not fit the
 * environment's actions or observation layout */
int rl_apply(RlPolicy *pol, Env *env, int samples, uint64_t seed,
	int **seq, int *nseq, double *best, RlError *e);

/* the learning curve (curve.c): CSV, one row per update; SVG, best and
 * mean episode result against steps */
int rl_curve_csv(const RlRun *run, FILE *f);
int rl_curve_svg(const RlRun *run, const char *title, FILE *f);
#endif
