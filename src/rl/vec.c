/* vec.c: environments stepped side by side for the training loops (see
 * vec.h), and rl_train, which picks the algorithm's loop */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "vec.h"

uint64_t
rl_seed64(gsl_rng *r)
{
	uint64_t hi = gsl_rng_get(r) & 0xffffffffu;

	return hi << 32 | (gsl_rng_get(r) & 0xffffffffu);
}

static void
env_mask(RlEnv *env, unsigned char *mask)
{
	memset(mask, 1, env->nact);
	if (env->mask)
		env->mask(env->ctx, mask);
}

int
rl_vec_init(RlVec *v, RlEnv *envs, int E, gsl_rng *r, RlError *e)
{
	int i, k;

	memset(v, 0, sizeof *v);
	v->envs = envs;
	v->E = E;
	v->nobs = envs[0].nobs;
	v->A = envs[0].nact;
	for (i = 1; i < E; i++) {
		if (envs[i].nobs != v->nobs || envs[i].nact != v->A)
			return rl_err(e, "error: environment %d differs in "
				"shape from the first", i);
		for (k = 0; envs[0].names && envs[i].names && k < v->A; k++)
			if (strcmp(envs[0].names[k], envs[i].names[k]))
				return rl_err(e, "error: environment %d names "
					"action %d differently", i, k);
	}
	v->obs = rl_alloc((size_t)E * v->nobs, sizeof *v->obs, e);
	v->last = v->obs ? rl_alloc((size_t)E * v->nobs, sizeof *v->last, e) :
		NULL;
	v->mask = v->last ? rl_alloc((size_t)E * v->A, 1, e) : NULL;
	v->last_mask = v->mask ? rl_alloc((size_t)E * v->A, 1, e) : NULL;
	v->st = v->last_mask ? rl_alloc(E, sizeof *v->st, e) : NULL;
	v->ep_ret = v->st ? rl_alloc(E, sizeof *v->ep_ret, e) : NULL;
	if (!v->ep_ret) {
		rl_vec_free(v);
		return -1;
	}
	for (i = 0; i < E; i++) {
		if (envs[i].reset(envs[i].ctx, rl_seed64(r), v->obs +
		    (size_t)i * v->nobs, e) < 0) {
			rl_vec_free(v);
			return -1;
		}
		env_mask(&envs[i], v->mask + (size_t)i * v->A);
	}
	return 0;
}

void
rl_vec_free(RlVec *v)
{
	free(v->obs);
	free(v->last);
	free(v->mask);
	free(v->last_mask);
	free(v->st);
	free(v->ep_ret);
	memset(v, 0, sizeof *v);
}

int
rl_vec_step(RlVec *v, const int *actions, gsl_rng *r, RlError *e)
{
	RlEnv *env;
	double *last;
	int i;

	for (i = 0; i < v->E; i++) {
		env = &v->envs[i];
		last = v->last + (size_t)i * v->nobs;
		if (env->step(env->ctx, actions[i], last, &v->st[i], e) < 0)
			return -1;
		env_mask(env, v->last_mask + (size_t)i * v->A);
		v->ep_ret[i] += v->st[i].reward;
	}
	for (i = 0; i < v->E; i++) {
		env = &v->envs[i];
		if (!v->st[i].done && !v->st[i].truncated) {
			memcpy(v->obs + (size_t)i * v->nobs, v->last +
				(size_t)i * v->nobs, v->nobs * sizeof *v->obs);
			memcpy(v->mask + (size_t)i * v->A, v->last_mask +
				(size_t)i * v->A, v->A);
			continue;
		}
		v->episodes++;
		v->ret_sum += v->ep_ret[i];
		v->ret_n++;
		v->ep_ret[i] = 0;
		if (env->reset(env->ctx, rl_seed64(r), v->obs + (size_t)i *
		    v->nobs, e) < 0)
			return -1;
		env_mask(env, v->mask + (size_t)i * v->A);
	}
	return 0;
}

double
rl_vec_returns(RlVec *v)
{
	double m = v->ret_n ? v->ret_sum / v->ret_n : NAN;

	v->ret_sum = 0;
	v->ret_n = 0;
	return m;
}

int
rl_random_valid(const unsigned char *mask, int A, gsl_rng *r)
{
	int n = 0, j, k;

	for (j = 0; j < A; j++)
		n += mask[j] != 0;
	if (!n)
		return -1;
	k = (int)gsl_rng_uniform_int(r, n);
	for (j = 0; j < A; j++)
		if (mask[j] && k-- == 0)
			return j;
	return -1;
}

int
rl_train(const RlParams *p, RlEnv *envs, gsl_rng *r, const RlHooks *h,
	RlPolicy **out, RlError *e)
{
	*out = NULL;
	if (rl_params_check(p, envs[0].nobs, envs[0].nact, e) < 0)
		return -1;
	if (p->algo == RL_DQN)
		return rl_train_dqn(p, envs, r, h, out, e);
	return rl_train_ppo(p, envs, r, h, out, e);
}
