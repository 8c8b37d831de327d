/* vec.h: what the training loops share (src/rl/vec.c): several
 * environments stepped side by side, with episode bookkeeping. Internal
 * to src/rl/. */
#ifndef RL_VEC_H
#define RL_VEC_H

#include <pthread.h>

#include "rl.h"

/* worker threads that step the environments: environment i runs on
 * thread i % nth (0: the caller) */
typedef struct RlPool RlPool;

typedef struct {
	RlEnv *envs;
	int E, nobs, A;
	double *obs;		/* E x nobs: each environment's observation */
	unsigned char *mask;	/* E x A: its valid actions */
	double *last;		/* E x nobs: after a step, the observation it
				 * reached (an ended episode's last) */
	unsigned char *last_mask;	/* E x A: the valid actions there */
	RlStep *st;		/* E: the last step's outcome */
	double *ep_ret;		/* E: the running episodes' returns */
	long episodes;		/* ended so far */
	double ret_sum;		/* returns of episodes ended since the last */
	long ret_n;		/* rl_vec_returns, and their count */
	int *rc;		/* E: each step's status */
	RlError *err;		/* E: its error */
	const int *actions;	/* the step being taken */
	RlPool *pool;		/* NULL: the caller steps them all */
} RlVec;

uint64_t rl_seed64(gsl_rng *r);
int rl_vec_init(RlVec *v, RlEnv *envs, int E, int jobs, gsl_rng *r,
	RlError *e);	/* checks the environments agree; resets them all;
			 * jobs: threads for rl_vec_step */
void rl_vec_free(RlVec *v);
int rl_vec_step(RlVec *v, const int *actions, gsl_rng *r, RlError *e);
			/* steps every environment; fills last, last_mask
			 * and st; resets those whose episode ended (seeds
			 * drawn from r in environment order) */
double rl_vec_returns(RlVec *v);	/* mean since the last call, or NAN */
int rl_random_valid(const unsigned char *mask, int A, gsl_rng *r);
#endif
