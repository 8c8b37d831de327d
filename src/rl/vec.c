/* vec.c: environments stepped side by side for the training loops (see
 * vec.h), on worker threads when asked: a step runs every environment's
 * step function at once (each touches only its own environment), then
 * one at a time in environment order the bookkeeping, the random seeds
 * of resets and the `after` calls, so that a result never depends on the
 * number of threads; and rl_train, which picks the algorithm's loop */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "vec.h"

struct RlPool {
	RlVec *v;
	int nth;		/* threads, the caller's included */
	pthread_t *th;
	int started;		/* threads created */
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	long gen;		/* steps ordered */
	int pending;		/* workers still stepping */
	int stop;
};

typedef struct {
	RlPool *p;
	int id;
} Worker;

/* the environments of thread id */
static void
step_share(RlVec *v, int id, int nth)
{
	RlEnv *env;
	int i;

	for (i = id; i < v->E; i += nth) {
		env = &v->envs[i];
		v->rc[i] = env->step(env->ctx, v->actions[i], v->last +
			(size_t)i * v->nobs, &v->st[i], &v->err[i]);
	}
}

static void *
worker(void *arg)
{
	Worker *w = arg;
	RlPool *p = w->p;
	long seen = 0;

	for (;;) {
		pthread_mutex_lock(&p->mu);
		while (p->gen == seen && !p->stop)
			pthread_cond_wait(&p->go, &p->mu);
		if (p->stop) {
			pthread_mutex_unlock(&p->mu);
			return NULL;
		}
		seen = p->gen;
		pthread_mutex_unlock(&p->mu);
		step_share(p->v, w->id, p->nth);
		pthread_mutex_lock(&p->mu);
		if (--p->pending == 0)
			pthread_cond_signal(&p->done);
		pthread_mutex_unlock(&p->mu);
	}
}

static void
pool_free(RlPool *p)
{
	int i;

	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	for (i = 0; i < p->started; i++)
		pthread_join(p->th[i], NULL);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->go);
	pthread_cond_destroy(&p->done);
	free(p->th);
	free(p);
}

static RlPool *
pool_new(RlVec *v, int nth, RlError *e)
{
	RlPool *p = rl_alloc(1, sizeof *p, e);
	Worker *w;
	int i;

	if (!p)
		return NULL;
	p->v = v;
	p->nth = nth;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->go, NULL);
	pthread_cond_init(&p->done, NULL);
	if (!(p->th = rl_alloc(nth, sizeof *p->th + sizeof *w, e))) {
		pool_free(p);
		return NULL;
	}
	w = (Worker *)(p->th + nth);
	for (i = 1; i < nth; i++) {
		w[i] = (Worker){p, i};
		if (pthread_create(&p->th[p->started], NULL, worker, &w[i])) {
			pool_free(p);
			rl_err(e, "error: cannot start a thread");
			return NULL;
		}
		p->started++;
	}
	return p;
}

/* every environment's step, on the pool's threads */
static void
pool_step(RlPool *p)
{
	pthread_mutex_lock(&p->mu);
	p->pending = p->nth - 1;
	p->gen++;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	step_share(p->v, 0, p->nth);
	pthread_mutex_lock(&p->mu);
	while (p->pending > 0)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

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
rl_vec_init(RlVec *v, RlEnv *envs, int E, int jobs, gsl_rng *r,
	RlError *e)
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
	v->rc = v->ep_ret ? rl_alloc(E, sizeof *v->rc, e) : NULL;
	v->err = v->rc ? rl_alloc(E, sizeof *v->err, e) : NULL;
	if (!v->err || (jobs > 1 && E > 1 && !(v->pool = pool_new(v,
	    jobs < E ? jobs : E, e)))) {
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
	pool_free(v->pool);
	free(v->rc);
	free(v->err);
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
	int i;

	v->actions = actions;
	if (v->pool)
		pool_step(v->pool);
	else
		step_share(v, 0, 1);
	for (i = 0; i < v->E; i++) {
		if (v->rc[i] < 0) {
			*e = v->err[i];
			return -1;
		}
		env_mask(&v->envs[i], v->last_mask + (size_t)i * v->A);
		v->ep_ret[i] += v->st[i].reward;
	}
	for (i = 0; i < v->E; i++) {
		env = &v->envs[i];
		if (env->after)
			env->after(env->ctx);
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
