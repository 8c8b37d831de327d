/* check_rl.c: the agents' layer (src/rl/) without the IR: finite-
 * difference gradient checks of the networks and losses, the optimizers'
 * update rules, orthogonal initialization; PPO, A2C and DQN learning
 * small MDPs with known optima (a chain, a bandit) behind the same RlEnv
 * table the pass-ordering environment fills; determinism for a seed;
 * the policy file's round trip and its refusals */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "rl.h"

static gsl_rng *
rng(unsigned long seed)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

	ck_assert_ptr_nonnull(r);
	gsl_rng_set(r, seed);
	return r;
}

/* |a - b| small against their size */
static int
close_to(double a, double b, double tol)
{
	double s = fabs(a) > fabs(b) ? fabs(a) : fabs(b);

	return fabs(a - b) <= tol * (s > 1 ? s : 1);
}

/* sum of c .* mlp(x) */
static double
mlp_loss(RlMlp *m, const gsl_matrix *x, const gsl_matrix *c)
{
	gsl_matrix_view out;
	RlError e;
	double s = 0;
	size_t i, j;

	ck_assert_msg(rl_mlp_forward(m, x, &out, &e) == 0, "%s", e.msg);
	for (i = 0; i < c->size1; i++)
		for (j = 0; j < c->size2; j++)
			s += gsl_matrix_get(c, i, j) *
				gsl_matrix_get(&out.matrix, i, j);
	return s;
}

static void
mlp_gradcheck(int act)
{
	int sizes[] = {5, 7, 6, 3};
	size_t np = rl_mlp_count(3, sizes), i, j, n = 4;
	double *theta = calloc(np, sizeof *theta);
	double *grad = calloc(np, sizeof *grad);
	gsl_matrix *x = gsl_matrix_alloc(n, 5), *c = gsl_matrix_alloc(n, 3);
	gsl_matrix *dx = gsl_matrix_alloc(n, 5);
	gsl_rng *r = rng(7);
	double h = 1e-6, save, lp, lm, fd;
	RlMlp m;
	RlError e;

	ck_assert_msg(rl_mlp_init(&m, 3, sizes, act, 8, theta, grad, &e) == 0,
		"%s", e.msg);
	ck_assert_int_eq(np, 5 * 7 + 7 + 7 * 6 + 6 + 6 * 3 + 3);
	ck_assert_msg(rl_mlp_orthogonal(&m, sqrt(2), 1, r, &e) == 0, "%s",
		e.msg);
	for (i = 0; i < np; i++)	/* nonzero biases too */
		theta[i] += gsl_ran_gaussian(r, 0.3);
	for (i = 0; i < n; i++) {
		for (j = 0; j < 5; j++)
			gsl_matrix_set(x, i, j, gsl_ran_gaussian(r, 1));
		for (j = 0; j < 3; j++)
			gsl_matrix_set(c, i, j, gsl_ran_gaussian(r, 1));
	}
	mlp_loss(&m, x, c);
	ck_assert_msg(rl_mlp_backward(&m, c, dx, &e) == 0, "%s", e.msg);
	for (i = 0; i < np; i++) {
		save = theta[i];
		theta[i] = save + h;
		lp = mlp_loss(&m, x, c);
		theta[i] = save - h;
		lm = mlp_loss(&m, x, c);
		theta[i] = save;
		fd = (lp - lm) / (2 * h);
		ck_assert_msg(close_to(grad[i], fd, 1e-6),
			"param %zu: backward %.10g, finite difference %.10g",
			i, grad[i], fd);
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < 5; j++) {
			save = gsl_matrix_get(x, i, j);
			gsl_matrix_set(x, i, j, save + h);
			lp = mlp_loss(&m, x, c);
			gsl_matrix_set(x, i, j, save - h);
			lm = mlp_loss(&m, x, c);
			gsl_matrix_set(x, i, j, save);
			fd = (lp - lm) / (2 * h);
			ck_assert_msg(close_to(gsl_matrix_get(dx, i, j), fd,
				1e-6), "input %zu,%zu: %.10g vs %.10g", i, j,
				gsl_matrix_get(dx, i, j), fd);
		}
	/* the gradient accumulates */
	mlp_loss(&m, x, c);
	save = grad[0];
	ck_assert(rl_mlp_backward(&m, c, NULL, &e) == 0);
	ck_assert(close_to(grad[0], 2 * save, 1e-12));
	rl_mlp_free(&m);
	gsl_matrix_free(x);
	gsl_matrix_free(c);
	gsl_matrix_free(dx);
	gsl_rng_free(r);
	free(theta);
	free(grad);
}

START_TEST(mlp_grad_tanh)
{
	mlp_gradcheck(RL_TANH);
}
END_TEST

START_TEST(mlp_grad_relu)
{
	mlp_gradcheck(RL_RELU);
}
END_TEST

START_TEST(mlp_bad_shapes)
{
	int sizes[] = {3, 2};
	double theta[8], grad[8];
	gsl_matrix *x = gsl_matrix_calloc(5, 3), *y = gsl_matrix_calloc(2, 4);
	gsl_matrix_view out;
	RlMlp m;
	RlError e;
	int zero[] = {3, 0};

	ck_assert_int_eq(rl_mlp_count(1, sizes), 8);
	ck_assert_int_eq(rl_mlp_init(&m, 1, zero, RL_TANH, 4, theta, grad,
		&e), -1);
	ck_assert_int_eq(rl_mlp_init(&m, 1, sizes, RL_TANH, 4, theta, grad,
		&e), 0);
	ck_assert_int_eq(rl_mlp_forward(&m, x, &out, &e), -1);	/* 5 > 4 */
	ck_assert_ptr_nonnull(strstr(e.msg, "network input"));
	ck_assert_int_eq(rl_mlp_forward(&m, y, &out, &e), -1);	/* width */
	rl_mlp_free(&m);
	gsl_matrix_free(x);
	gsl_matrix_free(y);
}
END_TEST

/* W'W = gain^2 I for a tall W, WW' = gain^2 I for a wide one */
static void
check_orthogonal(size_t rows, size_t cols, double gain, gsl_rng *r)
{
	int sizes[] = {(int)cols, (int)rows};
	size_t np = rl_mlp_count(1, sizes), i, j, k = rows < cols ? rows : cols;
	double *theta = calloc(np, sizeof *theta);
	double *grad = calloc(np, sizeof *grad);
	gsl_matrix *P = gsl_matrix_alloc(k, k);
	RlMlp m;
	RlError e;

	ck_assert(rl_mlp_init(&m, 1, sizes, RL_TANH, 1, theta, grad, &e) == 0);
	ck_assert(rl_mlp_orthogonal(&m, 0, gain, r, &e) == 0);
	if (rows >= cols)
		gsl_blas_dgemm(CblasTrans, CblasNoTrans, 1, &m.W[0].matrix,
			&m.W[0].matrix, 0, P);
	else
		gsl_blas_dgemm(CblasNoTrans, CblasTrans, 1, &m.W[0].matrix,
			&m.W[0].matrix, 0, P);
	for (i = 0; i < k; i++)
		for (j = 0; j < k; j++)
			ck_assert_msg(fabs(gsl_matrix_get(P, i, j) -
				(i == j ? gain * gain : 0)) < 1e-12,
				"%zux%zu: P[%zu][%zu] = %g", rows, cols, i, j,
				gsl_matrix_get(P, i, j));
	for (i = 0; i < rows; i++)
		ck_assert(gsl_vector_get(&m.b[0].vector, i) == 0);
	rl_mlp_free(&m);
	gsl_matrix_free(P);
	free(theta);
	free(grad);
}

START_TEST(orthogonal_init)
{
	gsl_rng *r = rng(3);

	check_orthogonal(7, 5, sqrt(2), r);
	check_orthogonal(3, 6, 0.01, r);
	check_orthogonal(4, 4, 1, r);
	check_orthogonal(1, 9, 1, r);
	gsl_rng_free(r);
}
END_TEST

/* the same seed gives the same weights; another seed others */
START_TEST(init_deterministic)
{
	int sizes[] = {6, 4, 2};
	double t1[64], t2[64], t3[64], g[64];
	gsl_rng *r;
	RlMlp m;
	RlError e;
	size_t np = rl_mlp_count(2, sizes);
	unsigned long seeds[] = {11, 11, 12};
	double *ts[] = {t1, t2, t3};
	int k;

	ck_assert(np <= 64);
	for (k = 0; k < 3; k++) {
		r = rng(seeds[k]);
		ck_assert(rl_mlp_init(&m, 2, sizes, RL_TANH, 1, ts[k], g,
			&e) == 0);
		ck_assert(rl_mlp_orthogonal(&m, sqrt(2), 0.01, r, &e) == 0);
		rl_mlp_free(&m);
		gsl_rng_free(r);
	}
	ck_assert(!memcmp(t1, t2, np * sizeof *t1));
	ck_assert(memcmp(t1, t3, np * sizeof *t1));
}
END_TEST

/* ga * log p_a + gh * H over logits, with two actions masked */
static double
cat_loss(const double *z, const unsigned char *mask, int A, int a,
	double ga, double gh)
{
	double logp[8];

	ck_assert(rl_log_softmax(z, mask, A, logp) == 0);
	return ga * logp[a] + gh * rl_entropy(logp, A);
}

START_TEST(softmax_masked)
{
	double z[6] = {0.3, -1.2, 2.0, 0.7, -0.4, 1.1}, logp[6], dz[6];
	unsigned char mask[6] = {1, 0, 1, 1, 0, 1}, none[6] = {0};
	double s = 0, h = 1e-6, save, fd, lp, lm;
	int j;

	ck_assert(rl_log_softmax(z, mask, 6, logp) == 0);
	for (j = 0; j < 6; j++) {
		if (!mask[j]) {
			ck_assert(logp[j] == -INFINITY);
			continue;
		}
		s += exp(logp[j]);
	}
	ck_assert(fabs(s - 1) < 1e-14);
	ck_assert_int_eq(rl_log_softmax(z, none, 6, logp), -1);
	ck_assert_int_eq(rl_argmax(z, mask, 6), 2);
	mask[2] = 0;
	ck_assert_int_eq(rl_argmax(z, mask, 6), 5);
	ck_assert_int_eq(rl_argmax(z, none, 6), -1);
	mask[2] = 1;
	/* entropy of a uniform distribution over the 4 valid actions */
	{
		double u[6] = {0}, lu[6];

		ck_assert(rl_log_softmax(u, mask, 6, lu) == 0);
		ck_assert(fabs(rl_entropy(lu, 6) - log(4)) < 1e-14);
	}
	ck_assert(rl_log_softmax(z, mask, 6, logp) == 0);
	rl_categorical_grad(logp, 6, 3, -0.7, 0.35, dz);
	for (j = 0; j < 6; j++) {
		if (!mask[j]) {
			ck_assert(dz[j] == 0);
			continue;
		}
		save = z[j];
		z[j] = save + h;
		lp = cat_loss(z, mask, 6, 3, -0.7, 0.35);
		z[j] = save - h;
		lm = cat_loss(z, mask, 6, 3, -0.7, 0.35);
		z[j] = save;
		fd = (lp - lm) / (2 * h);
		ck_assert_msg(close_to(dz[j], fd, 1e-7), "logit %d: %.10g vs "
			"%.10g", j, dz[j], fd);
	}
}
END_TEST

/* sampling follows the probabilities and never picks a masked action */
START_TEST(sample_masked)
{
	double z[4] = {0, log(3), 5, 0}, logp[4];
	unsigned char mask[4] = {1, 1, 0, 1};
	int count[4] = {0}, i;
	gsl_rng *r = rng(5);

	ck_assert(rl_log_softmax(z, mask, 4, logp) == 0);
	for (i = 0; i < 50000; i++)
		count[rl_sample(logp, 4, r)]++;
	ck_assert_int_eq(count[2], 0);
	/* p = 0.2, 0.6, 0, 0.2: within 5 standard deviations */
	ck_assert(abs(count[1] - 30000) < 5 * 110);
	ck_assert(abs(count[0] - 10000) < 5 * 90);
	gsl_rng_free(r);
}
END_TEST

START_TEST(huber)
{
	double xs[] = {-3, -1.5, -0.4, 0.2, 0.9, 2.5}, h = 1e-6, fd;
	size_t i;

	for (i = 0; i < sizeof xs / sizeof xs[0]; i++) {
		fd = (rl_huber(xs[i] + h) - rl_huber(xs[i] - h)) / (2 * h);
		ck_assert(close_to(rl_huber_grad(xs[i]), fd, 1e-8));
	}
	ck_assert(rl_huber(0.5) == 0.125);
	ck_assert(rl_huber(-3) == 2.5);
}
END_TEST

/* Adam's first step moves each weight by lr against its gradient's sign
 * (up to eps); the second follows the moment formulas */
START_TEST(adam_steps)
{
	double th[3] = {1, -2, 0.5}, g[3] = {0.3, -4, 1e-3};
	double m, v, want, th1;
	RlOpt o;
	RlError e;
	int i;

	ck_assert(rl_opt_init(&o, RL_ADAM, 3, 0.01, 1e-8, 0, &e) == 0);
	rl_opt_step(&o, th, g);
	ck_assert(fabs(th[0] - 0.99) < 1e-9);
	ck_assert(fabs(th[1] + 1.99) < 1e-9);
	ck_assert(fabs(th[2] - 0.49) < 1e-7);
	th1 = th[0];
	g[0] = -0.1;
	rl_opt_step(&o, th, g);
	m = 0.9 * 0.1 * 0.3 + 0.1 * -0.1;
	v = 0.999 * 0.001 * 0.09 + 0.001 * 0.01;
	want = th1 - 0.01 * (m / (1 - 0.81)) /
		(sqrt(v / (1 - 0.999 * 0.999)) + 1e-8);
	ck_assert_msg(fabs(th[0] - want) < 1e-12, "%.15g vs %.15g", th[0],
		want);
	rl_opt_free(&o);
	/* minimizes a quadratic */
	ck_assert(rl_opt_init(&o, RL_ADAM, 3, 0.05, 1e-8, 0, &e) == 0);
	for (i = 0; i < 2000; i++) {
		g[0] = 2 * (th[0] - 3);
		g[1] = 2 * (th[1] + 1);
		g[2] = 20 * th[2];
		rl_opt_step(&o, th, g);
	}
	ck_assert(fabs(th[0] - 3) < 1e-3 && fabs(th[1] + 1) < 1e-3 &&
		fabs(th[2]) < 1e-3);
	rl_opt_free(&o);
}
END_TEST

START_TEST(rmsprop_steps)
{
	double th[2] = {1, 1}, g[2] = {0.5, -2}, v0, v1;
	RlOpt o;
	RlError e;

	ck_assert(rl_opt_init(&o, RL_RMSPROP, 2, 7e-4, 1e-5, 0.99, &e) == 0);
	ck_assert_ptr_null(o.m);
	rl_opt_step(&o, th, g);
	v0 = 0.01 * 0.25;
	v1 = 0.01 * 4;
	ck_assert(fabs(th[0] - (1 - 7e-4 * 0.5 / (sqrt(v0) + 1e-5))) < 1e-15);
	ck_assert(fabs(th[1] - (1 + 7e-4 * 2 / (sqrt(v1) + 1e-5))) < 1e-15);
	rl_opt_step(&o, th, g);
	v0 = 0.99 * v0 + 0.01 * 0.25;
	ck_assert(fabs(o.v[0] - v0) < 1e-15 * v0);
	rl_opt_free(&o);
}
END_TEST

START_TEST(clip_norm)
{
	double g[2] = {3, 4}, n;

	n = rl_clip_grad_norm(g, 2, 10);
	ck_assert(n == 5 && g[0] == 3 && g[1] == 4);
	n = rl_clip_grad_norm(g, 2, 0.5);
	ck_assert(n == 5);
	ck_assert(fabs(hypot(g[0], g[1]) - 0.5) < 1e-6);
	ck_assert(fabs(g[0] / g[1] - 0.75) < 1e-15);
	ck_assert(rl_clip_grad_norm(g, 0, 1) == 0);
}
END_TEST

/* ---- small MDPs behind RlEnv ---- */

/* a chain of CHAIN_N states, the agent starting at 0: "right" moves on,
 * "left" moves back (at 0 it pays 0.002 and stays, a distraction worth
 * less than the goal even when bootstrapped forever), the last
 * state pays 1 and ends the episode; "trap" is never valid (it would pay
 * 10). Episodes are cut after CHAIN_H steps. Observation: the state one-
 * hot, then the elapsed share of the episode. The optimum: right every
 * step, return 1 in CHAIN_N - 1 steps. */
#define CHAIN_N 6
#define CHAIN_H 12
static const char *const chain_names[] = {"left", "right", "trap"};

typedef struct {
	int s, t;
	long invalid;	/* masked actions taken */
} Chain;

static void
chain_obs(const Chain *c, double *obs)
{
	memset(obs, 0, (CHAIN_N + 1) * sizeof *obs);
	obs[c->s] = 1;
	obs[CHAIN_N] = (double)c->t / CHAIN_H;
}

static int
chain_reset(void *ctx, uint64_t seed, double *obs, RlError *e)
{
	Chain *c = ctx;

	c->s = c->t = 0;
	chain_obs(c, obs);
	return 0;
}

static int
chain_step(void *ctx, int a, double *obs, RlStep *out, RlError *e)
{
	Chain *c = ctx;

	memset(out, 0, sizeof *out);
	if (a == 2) {
		c->invalid++;
		out->reward = 10;
	} else if (a == 1) {
		c->s++;
	} else if (c->s > 0) {
		c->s--;
	} else {
		out->reward = 0.002;
	}
	c->t++;
	if (c->s == CHAIN_N - 1) {
		out->reward = 1;
		out->done = 1;
	} else if (c->t >= CHAIN_H) {
		out->truncated = 1;
	}
	chain_obs(c, obs);
	return 0;
}

static void
chain_mask(void *ctx, unsigned char *mask)
{
	mask[0] = mask[1] = 1;
	mask[2] = 0;
}

static RlEnv
chain_env(Chain *c)
{
	RlEnv env = {c, CHAIN_N + 1, 3, 7, chain_names, chain_reset,
		chain_step, chain_mask, NULL};

	memset(c, 0, sizeof *c);
	return env;
}

/* a bandit: one step per episode, arm k pays its mean plus Gaussian noise
 * (sd 0.5); arm 3 pays most but is masked. The optimum: arm 2. */
static const char *const bandit_names[] = {"a0", "a1", "a2", "a3", "a4"};
static const double bandit_mean[] = {0.2, 0.5, 0.9, 3.0, 0.1};

typedef struct {
	gsl_rng *r;
	long invalid;
} Bandit;

static int
bandit_reset(void *ctx, uint64_t seed, double *obs, RlError *e)
{
	Bandit *b = ctx;

	gsl_rng_set(b->r, (unsigned long)seed);
	obs[0] = 1;
	obs[1] = 0;
	return 0;
}

static int
bandit_step(void *ctx, int a, double *obs, RlStep *out, RlError *e)
{
	Bandit *b = ctx;

	if (a < 0 || a > 4)
		return rl_err(e, "bandit: action %d", a);
	b->invalid += a == 3;
	out->reward = bandit_mean[a] + gsl_ran_gaussian(b->r, 0.5);
	out->done = 1;
	out->truncated = 0;
	obs[0] = 1;
	obs[1] = 1;
	return 0;
}

static void
bandit_mask(void *ctx, unsigned char *mask)
{
	memset(mask, 1, 5);
	mask[3] = 0;
}

static RlEnv
bandit_env(Bandit *b)
{
	RlEnv env = {b, 2, 5, 3, bandit_names, bandit_reset, bandit_step,
		bandit_mask, NULL};

	b->r = gsl_rng_alloc(gsl_rng_mt19937);
	b->invalid = 0;
	return env;
}

/* trains p on env with seed; the policy */
static RlPolicy *
train(const RlParams *p, RlEnv *env, unsigned long seed)
{
	gsl_rng *r = rng(seed);
	RlPolicy *pol = NULL;
	RlError e;

	ck_assert_msg(rl_train(p, env, r, NULL, &pol, &e) == 0, "%s", e.msg);
	gsl_rng_free(r);
	ck_assert_ptr_nonnull(pol);
	return pol;
}

/* the greedy rollout from the chain's start takes the optimal path */
static void
chain_optimal(RlPolicy *pol, Chain *c, RlEnv *env)
{
	gsl_rng *r = rng(1);
	RlError e;
	double ret;
	long steps;

	ck_assert_msg(rl_rollout(pol, env, 0, 1, 100, r, &ret, &steps, &e) ==
		0, "%s", e.msg);
	ck_assert_msg(steps == CHAIN_N - 1 && ret == 1, "%s: greedy rollout "
		"%ld steps, return %g", rl_algo_name(pol->algo), steps, ret);
	ck_assert_int_eq(c->invalid, 0);
	gsl_rng_free(r);
}

/* the greedy choice on the bandit is arm 2 */
static void
bandit_optimal(RlPolicy *pol, Bandit *b)
{
	double obs[2] = {1, 0};
	unsigned char mask[5] = {1, 1, 1, 0, 1};
	RlError e;
	int a;

	ck_assert(rl_policy_act(pol, obs, mask, 1, NULL, &a, &e) == 0);
	ck_assert_msg(a == 2, "%s picks arm %d", rl_algo_name(pol->algo), a);
	ck_assert_int_eq(b->invalid, 0);
}

static void
ppo_chain_params(RlParams *p)
{
	rl_params_default(p, RL_PPO);
	p->total_steps = 6000;
	p->n_steps = 256;
	p->batch_size = 64;
	p->lr = 1e-3;
}

START_TEST(ppo_chain)
{
	Chain c;
	RlEnv env = chain_env(&c);
	RlParams p;
	RlPolicy *pol;

	ppo_chain_params(&p);
	pol = train(&p, &env, 42);
	chain_optimal(pol, &c, &env);
	rl_policy_free(pol);
}
END_TEST

START_TEST(a2c_chain)
{
	Chain c;
	RlEnv env = chain_env(&c);
	RlParams p;
	RlPolicy *pol;

	rl_params_default(&p, RL_A2C);	/* SB3's A2C as it is */
	p.total_steps = 6000;
	pol = train(&p, &env, 42);
	chain_optimal(pol, &c, &env);
	rl_policy_free(pol);
}
END_TEST

static void
dqn_params(RlParams *p, long steps)
{
	rl_params_default(p, RL_DQN);
	p->total_steps = steps;
	p->learning_starts = 200;
	p->train_freq = 1;
	p->target_update_interval = 200;
	p->exploration_fraction = 0.3;
	p->lr = 1e-3;
	p->gamma = 0.9;	/* at 0.99 the chain's two actions differ by 1% */
}

START_TEST(dqn_chain)
{
	Chain c;
	RlEnv env = chain_env(&c);
	RlParams p;
	RlPolicy *pol;
	int dbl;

	for (dbl = 0; dbl < 2; dbl++) {
		dqn_params(&p, 4000);
		p.double_dqn = dbl;
		pol = train(&p, &env, 42);
		chain_optimal(pol, &c, &env);
		rl_policy_free(pol);
	}
}
END_TEST

START_TEST(bandits)
{
	Bandit b;
	RlEnv env = bandit_env(&b);
	RlParams p;
	RlPolicy *pol;
	int algo;

	for (algo = 0; algo < RL_NALGO; algo++) {
		if (algo == RL_DQN) {
			dqn_params(&p, 3000);
		} else {
			rl_params_default(&p, algo);
			p.total_steps = 3000;
			p.lr = algo == RL_PPO ? 1e-3 : 3e-3;
			if (algo == RL_PPO)
				p.n_steps = 128;
		}
		pol = train(&p, &env, 9);
		bandit_optimal(pol, &b);
		rl_policy_free(pol);
	}
	gsl_rng_free(b.r);
}
END_TEST

/* a random batch for the loss checks: observations, masks with one
 * invalid action per row, valid actions, old log-probabilities away from
 * the current ones (so that some ratios are clipped) */
static RlBatch
random_batch(RlPolicy *pol, size_t n, gsl_rng *r)
{
	int A = pol->nact, nobs = pol->nobs;
	RlBatch b = {0};
	size_t i, j;

	b.n = n;
	b.obs = gsl_matrix_alloc(n, nobs);
	b.next_obs = gsl_matrix_alloc(n, nobs);
	b.mask = calloc(n, A);
	b.next_mask = calloc(n, A);
	b.actions = calloc(n, sizeof *b.actions);
	b.logp_old = calloc(n, sizeof(double));
	b.v_old = calloc(n, sizeof(double));
	b.adv = calloc(n, sizeof(double));
	b.ret = calloc(n, sizeof(double));
	b.rewards = calloc(n, sizeof(double));
	b.dones = calloc(n, sizeof(double));
	for (i = 0; i < n; i++) {
		for (j = 0; j < (size_t)nobs; j++) {
			gsl_matrix_set(b.obs, i, j, gsl_ran_gaussian(r, 1));
			gsl_matrix_set(b.next_obs, i, j, gsl_ran_gaussian(r, 1));
		}
		memset(b.mask + i * A, 1, A);
		memset(b.next_mask + i * A, 1, A);
		b.mask[i * A + i % A] = 0;
		b.next_mask[i * A + (i + 1) % A] = 0;
		b.actions[i] = (int)((i + 1 + gsl_rng_uniform_int(r, A - 1)) %
			A);
		b.logp_old[i] = log(1.0 / (A - 1)) + gsl_ran_gaussian(r, 0.4);
		b.v_old[i] = gsl_ran_gaussian(r, 0.3);
		b.adv[i] = gsl_ran_gaussian(r, 1);
		b.ret[i] = gsl_ran_gaussian(r, 1);
		b.rewards[i] = gsl_ran_gaussian(r, 1);
		b.dones[i] = i % 3 == 0;
	}
	return b;
}

static void
batch_free(RlBatch *b)
{
	gsl_matrix_free(b->obs);
	gsl_matrix_free(b->next_obs);
	free(b->mask);
	free(b->next_mask);
	free(b->actions);
	free(b->logp_old);
	free(b->v_old);
	free(b->adv);
	free(b->ret);
	free(b->rewards);
	free(b->dones);
}

static double
loss_at(RlPolicy *pol, RlPolicy *target, const RlBatch *b)
{
	RlLoss l;
	RlError e;

	if (pol->algo == RL_DQN)
		ck_assert_msg(rl_dqn_loss(pol, target, b, 0, &l, &e) == 0, "%s",
			e.msg);
	else
		ck_assert_msg(rl_ppo_loss(pol, b, 0, &l, &e) == 0, "%s", e.msg);
	return l.loss;
}

/* the loss's gradient against central differences, every parameter */
static void
loss_gradcheck(RlPolicy *pol, RlPolicy *target, const RlBatch *b)
{
	double h = 1e-6, save, fd, lp, lm;
	RlLoss l;
	RlError e;
	size_t i;

	memset(pol->grad, 0, pol->nparams * sizeof(double));
	if (pol->algo == RL_DQN)
		ck_assert(rl_dqn_loss(pol, target, b, 1, &l, &e) == 0);
	else
		ck_assert(rl_ppo_loss(pol, b, 1, &l, &e) == 0);
	ck_assert(close_to(l.loss, loss_at(pol, target, b), 1e-15));
	for (i = 0; i < pol->nparams; i++) {
		save = pol->theta[i];
		pol->theta[i] = save + h;
		lp = loss_at(pol, target, b);
		pol->theta[i] = save - h;
		lm = loss_at(pol, target, b);
		pol->theta[i] = save;
		fd = (lp - lm) / (2 * h);
		ck_assert_msg(fabs(pol->grad[i] - fd) < 1e-6 *
			(1 + fabs(fd)), "%s param %zu: %.10g vs %.10g",
			rl_algo_name(pol->algo), i, pol->grad[i], fd);
	}
}

static RlPolicy *
small_policy(int algo, gsl_rng *r)
{
	RlParams p;
	RlPolicy *pol;
	RlError e;

	rl_params_default(&p, algo);
	strcpy(p.pi_arch, "7,5");
	strcpy(p.vf_arch, "6");
	strcpy(p.q_arch, "8,6");
	pol = rl_policy_new(&p, 4, 5, 16, r, &e);
	ck_assert_msg(pol != NULL, "%s", e.msg);
	return pol;
}

START_TEST(ppo_loss_grad)
{
	gsl_rng *r = rng(21);
	RlPolicy *pol = small_policy(RL_PPO, r);
	RlBatch b = random_batch(pol, 12, r);
	RlLoss l;
	RlError e;
	size_t i;

	for (i = 0; i < pol->nparams; i++)	/* livelier than the init */
		pol->theta[i] += gsl_ran_gaussian(r, 0.3);
	pol->params.ent_coef = 0.05;
	loss_gradcheck(pol, NULL, &b);
	ck_assert(rl_ppo_loss(pol, &b, 0, &l, &e) == 0);
	ck_assert(l.clip_fraction > 0 && l.clip_fraction < 1);
	ck_assert(l.approx_kl > 0 && l.entropy > 0);
	pol->params.clip_range_vf = 0.2;	/* clipped values */
	loss_gradcheck(pol, NULL, &b);
	pol->params.clip_range = 0;	/* A2C's unclipped surrogate */
	loss_gradcheck(pol, NULL, &b);
	batch_free(&b);
	rl_policy_free(pol);
	gsl_rng_free(r);
}
END_TEST

START_TEST(dqn_loss_grad)
{
	gsl_rng *r = rng(22);
	RlPolicy *q = small_policy(RL_DQN, r), *t = small_policy(RL_DQN, r);
	RlBatch b = random_batch(q, 12, r);
	size_t i;

	for (i = 0; i < q->nparams; i++)
		q->theta[i] += gsl_ran_gaussian(r, 0.5);
	loss_gradcheck(q, t, &b);
	q->params.double_dqn = 1;
	loss_gradcheck(q, t, &b);
	batch_free(&b);
	rl_policy_free(q);
	rl_policy_free(t);
	gsl_rng_free(r);
}
END_TEST

/* the same seed trains the same weights, bit for bit; another seed not */
START_TEST(deterministic)
{
	Chain c;
	RlEnv env = chain_env(&c);
	RlParams p;
	RlPolicy *a, *b, *d;
	int algo;

	for (algo = 0; algo < RL_NALGO; algo++) {
		if (algo == RL_DQN) {
			dqn_params(&p, 1000);
		} else {
			rl_params_default(&p, algo);
			p.total_steps = 1000;
			p.n_steps = algo == RL_PPO ? 128 : 5;
		}
		a = train(&p, &env, 5);
		b = train(&p, &env, 5);
		d = train(&p, &env, 6);
		ck_assert_int_eq(a->nparams, b->nparams);
		ck_assert(!memcmp(a->theta, b->theta, a->nparams *
			sizeof(double)));
		ck_assert(memcmp(a->theta, d->theta, a->nparams *
			sizeof(double)));
		rl_policy_free(a);
		rl_policy_free(b);
		rl_policy_free(d);
	}
}
END_TEST

/* several environments on threads: the same weights for any thread count */
START_TEST(threads_same_result)
{
	Chain c[3];
	RlEnv env[3];
	RlParams p;
	RlPolicy *pol[3];
	RlHooks h = {NULL, NULL, NULL, 1};
	RlError e;
	gsl_rng *r;
	int algo, k, i;

	for (algo = 0; algo < RL_NALGO; algo++) {
		for (k = 0; k < 3; k++) {
			for (i = 0; i < 3; i++)
				env[i] = chain_env(&c[i]);
			if (algo == RL_DQN)
				dqn_params(&p, 900);
			else
				rl_params_default(&p, algo);
			p.total_steps = 900;
			p.n_envs = 3;
			if (algo == RL_PPO)
				p.n_steps = 50;
			h.jobs = k + 1;
			r = rng(8);
			ck_assert_msg(rl_train(&p, env, r, &h, &pol[k], &e) == 0,
				"%s", e.msg);
			gsl_rng_free(r);
		}
		for (k = 1; k < 3; k++) {
			ck_assert(!memcmp(pol[0]->theta, pol[k]->theta,
				pol[0]->nparams * sizeof(double)));
			rl_policy_free(pol[k]);
		}
		rl_policy_free(pol[0]);
	}
}
END_TEST

/* the hook sees every update and can stop training */
static int
count_hook(void *u, const RlStats *st)
{
	long *n = u;

	ck_assert(st->steps > 0 && st->episodes >= 0);
	return ++*n == 3;
}

START_TEST(hook_stops)
{
	Chain c;
	RlEnv env = chain_env(&c);
	RlParams p;
	RlPolicy *pol;
	RlError e;
	long n = 0;
	RlHooks h = {&n, count_hook, NULL, 1};
	gsl_rng *r = rng(1);

	rl_params_default(&p, RL_A2C);
	p.total_steps = 100000;
	ck_assert(rl_train(&p, &env, r, &h, &pol, &e) == 0);
	ck_assert_int_eq(n, 3);
	rl_policy_free(pol);
	gsl_rng_free(r);
}
END_TEST

/* a policy file of this process's own, wherever the tests are built */
static void
policy_tmp(char *path, size_t n)
{
	snprintf(path, n, "%s/hlopt_check_rl.%ld.policy", getenv("TMPDIR") ?
		getenv("TMPDIR") : "/tmp", (long)getpid());
}

static unsigned char *
slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b = malloc(1 << 20);

	ck_assert(f && b);
	*n = fread(b, 1, 1 << 20, f);
	fclose(f);
	return b;
}

static void
spit(const char *path, const unsigned char *b, size_t n)
{
	FILE *f = fopen(path, "wb");

	ck_assert(f && fwrite(b, 1, n, f) == n);
	fclose(f);
}

/* save, load: the same weights, hyperparameters and actions */
START_TEST(policy_roundtrip)
{
	char tmp[256];
	Chain c;
	RlEnv env = chain_env(&c);
	RlParams p;
	RlPolicy *pol, *back;
	RlError e;
	double obs[CHAIN_N + 1];
	unsigned char mask[3] = {1, 1, 0};
	int algo, s, a1, a2, k;

	policy_tmp(tmp, sizeof tmp);
	for (algo = 0; algo < RL_NALGO; algo++) {
		if (algo == RL_DQN) {
			dqn_params(&p, 600);
		} else {
			rl_params_default(&p, algo);
			p.total_steps = 600;
			p.n_steps = 64;
		}
		pol = train(&p, &env, 3);
		ck_assert_msg(rl_policy_save(pol, tmp, &e) == 0, "%s",
			e.msg);
		back = rl_policy_load(tmp, &e);
		ck_assert_msg(back != NULL, "%s", e.msg);
		ck_assert_int_eq(back->algo, algo);
		ck_assert_int_eq(back->nparams, pol->nparams);
		ck_assert(!memcmp(back->theta, pol->theta, pol->nparams *
			sizeof(double)));
		ck_assert(!memcmp(&back->params, &pol->params,
			sizeof pol->params));
		ck_assert_str_eq(back->names[1], "right");
		ck_assert_int_eq(back->obs_version, 7);
		ck_assert_msg(rl_policy_check(back, &env, &e) == 0, "%s", e.msg);
		for (s = 0; s < CHAIN_N; s++)
			for (k = 0; k <= 4; k++) {
				memset(obs, 0, sizeof obs);
				obs[s] = 1;
				obs[CHAIN_N] = k / 4.0;
				ck_assert(rl_policy_act(pol, obs, mask, 1, NULL,
					&a1, &e) == 0);
				ck_assert(rl_policy_act(back, obs, mask, 1,
					NULL, &a2, &e) == 0);
				ck_assert_int_eq(a1, a2);
			}
		rl_policy_free(pol);
		rl_policy_free(back);
	}
	remove(tmp);
}
END_TEST

/* refusals: another environment's actions or layout, damage, truncation,
 * a newer format, not a policy at all */
START_TEST(policy_refusals)
{
	char tmp[256];
	Chain c;
	RlEnv env = chain_env(&c), other;
	static const char *const renamed[] = {"left", "right", "jump"};
	RlParams p;
	RlPolicy *pol;
	RlError e;
	unsigned char *b;
	size_t n;

	policy_tmp(tmp, sizeof tmp);
	rl_params_default(&p, RL_PPO);
	p.total_steps = 64;
	p.n_steps = 64;
	pol = train(&p, &env, 3);
	ck_assert(rl_policy_save(pol, tmp, &e) == 0);
	other = env;
	other.names = renamed;
	ck_assert_int_eq(rl_policy_check(pol, &other, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "action 2 is 'trap'"));
	other = env;
	other.obs_version = 8;
	ck_assert_int_eq(rl_policy_check(pol, &other, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "layout version 7"));
	other = env;
	other.nact = 2;
	ck_assert_int_eq(rl_policy_check(pol, &other, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "3 actions"));
	rl_policy_free(pol);

	b = slurp(tmp, &n);
	ck_assert(n > 100 && !memcmp(b, "HLOPTPOL\1\0\0\0", 12));
	b[n / 2] ^= 1;
	spit(tmp, b, n);
	ck_assert_ptr_null(rl_policy_load(tmp, &e));
	ck_assert_ptr_nonnull(strstr(e.msg, "CRC"));
	b[n / 2] ^= 1;
	spit(tmp, b, n - 9);
	ck_assert_ptr_null(rl_policy_load(tmp, &e));
	b[8] = 2;
	spit(tmp, b, n);
	ck_assert_ptr_null(rl_policy_load(tmp, &e));	/* CRC first */
	spit(tmp, (const unsigned char *)"HloModule m\n", 12);
	ck_assert_ptr_null(rl_policy_load(tmp, &e));
	ck_assert_ptr_nonnull(strstr(e.msg, "not an hlopt policy"));
	ck_assert_ptr_null(rl_policy_load("build/tests/no-such-policy", &e));
	free(b);
	remove(tmp);
}
END_TEST

START_TEST(params_table)
{
	RlParams p;
	RlError e;
	char buf[64];
	int i;

	rl_params_default(&p, RL_PPO);
	ck_assert(p.lr == 3e-4 && p.n_steps == 2048 && p.batch_size == 64 &&
		p.n_epochs == 10 && p.clip_range == 0.2 && p.ent_coef == 0 &&
		p.max_grad_norm == 0.5 && !strcmp(p.optimizer, "adam"));
	rl_params_default(&p, RL_A2C);
	ck_assert(p.lr == 7e-4 && p.n_steps == 5 && p.gae_lambda == 1 &&
		!strcmp(p.optimizer, "rmsprop") && p.normalize_advantage == 0);
	rl_params_default(&p, RL_DQN);
	ck_assert(p.lr == 1e-4 && p.buffer_size == 1000000 &&
		p.batch_size == 32 && p.target_update_interval == 10000 &&
		p.exploration_final_eps == 0.05 && !strcmp(p.q_arch, "64,64"));
	i = rl_param_find("gamma");
	ck_assert(i >= 0 && rl_param_set(&p, i, "0.9", &e) == 0);
	ck_assert(p.gamma == 0.9);
	rl_param_format(&p, i, buf, sizeof buf);
	ck_assert_str_eq(buf, "0.90000000000000002");
	ck_assert_int_eq(rl_param_set(&p, i, "x", &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "--gamma"));
	i = rl_param_find("q-arch");
	ck_assert(rl_param_set(&p, i, "2048,2048", &e) == 0);
	ck_assert(rl_params_check(&p, 10, 4, &e) == 0);
	ck_assert(rl_param_set(&p, i, "64,,x", &e) == 0);
	ck_assert_int_eq(rl_params_check(&p, 10, 4, &e), -1);
	ck_assert_int_eq(rl_param_find("no-such"), -1);
	ck_assert(rl_param_applies(rl_param_find("double-dqn"), RL_DQN));
	ck_assert(!rl_param_applies(rl_param_find("double-dqn"), RL_PPO));
	ck_assert_int_eq(rl_algo_parse("a2c"), RL_A2C);
	ck_assert_int_eq(rl_algo_parse("trpo"), -1);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("rl");
	TCase *tn = tcase_create("nn");
	TCase *ta = tcase_create("agents");
	SRunner *sr;
	int nf;

	rl_gsl_quiet();
	tcase_add_test(tn, mlp_grad_tanh);
	tcase_add_test(tn, mlp_grad_relu);
	tcase_add_test(tn, mlp_bad_shapes);
	tcase_add_test(tn, orthogonal_init);
	tcase_add_test(tn, init_deterministic);
	tcase_add_test(tn, softmax_masked);
	tcase_add_test(tn, sample_masked);
	tcase_add_test(tn, huber);
	tcase_add_test(tn, adam_steps);
	tcase_add_test(tn, rmsprop_steps);
	tcase_add_test(tn, clip_norm);
	suite_add_tcase(s, tn);
	tcase_add_test(tn, ppo_loss_grad);
	tcase_add_test(tn, dqn_loss_grad);
	tcase_add_test(tn, params_table);
	tcase_add_test(ta, ppo_chain);
	tcase_add_test(ta, deterministic);
	tcase_add_test(ta, hook_stops);
	tcase_add_test(ta, threads_same_result);
	tcase_add_test(ta, policy_roundtrip);
	tcase_add_test(ta, policy_refusals);
	tcase_add_test(ta, a2c_chain);
	tcase_add_test(ta, dqn_chain);
	tcase_add_test(ta, bandits);
	tcase_set_timeout(ta, 120);
	suite_add_tcase(s, ta);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? 1 : 0;
}
