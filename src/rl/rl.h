/* rl.h: the pass-ordering agents (src/rl/): PPO, A2C (PPO's special
 * case) and DQN on the networks of nn.h; the environment interface they
 * learn through; their hyperparameters (params.def); trained policies and
 * their file format (policy.c). This layer sees the IR only through an
 * RlEnv; every random number comes from the gsl_rng the caller passes, so
 * a seed fixes a run. */
#ifndef RL_H
#define RL_H

#include <stdint.h>

#include "nn.h"

/* an environment as the agents see it: a table of functions over an
 * opaque context (the pass-ordering Env, or a small test MDP) */
typedef struct {
	double reward;
	int done;	/* the episode ended in a terminal state */
	int truncated;	/* it ended by a limit: the agents bootstrap */
} RlStep;

typedef struct {
	void *ctx;
	int nobs;			/* observation length */
	int nact;			/* actions */
	uint32_t obs_version;		/* the observation layout's version */
	const char *const *names;	/* the actions' names (nact) */
	int (*reset)(void *ctx, uint64_t seed, double *obs, RlError *e);
			/* starts an episode (seed: what the environment may
			 * draw, e.g. which module) */
	int (*step)(void *ctx, int action, double *obs, RlStep *out,
		RlError *e);	/* obs: the next observation (after an
				 * episode's end, its last) */
	void (*mask)(void *ctx, unsigned char *mask);
			/* nact bytes, nonzero: valid now; NULL: all valid */
	void (*after)(void *ctx);
			/* NULL, or called after each step (and before the
			 * reset that may follow), one environment at a time
			 * in a fixed order even when steps run in threads */
} RlEnv;

/* the algorithms */
#define RL_ALGOS(X) X(RL_PPO, "ppo") X(RL_A2C, "a2c") X(RL_DQN, "dqn")
enum {
#define X(id, name) id,
	RL_ALGOS(X)
#undef X
	RL_NALGO
};
const char *rl_algo_name(int algo);
int rl_algo_parse(const char *name);	/* -1 if unknown */

/* hyperparameters (params.def) */
typedef char RlStr[32];
#define RL_T_INT long
#define RL_T_DBL double
#define RL_T_STR RlStr
typedef struct {
	int algo;
	long total_steps;	/* the training budget in environment steps
				 * (the epsilon schedule and buffer follow it) */
#define RL_PARAM(flag, field, type, algos, ppo, a2c, dqn, help) \
	RL_T_##type field;
#include "params.def"
#undef RL_PARAM
} RlParams;

enum { RL_INT, RL_DBL, RL_STR };
typedef struct {
	const char *flag;	/* command-line option without "--" */
	int type;		/* RL_INT, RL_DBL, RL_STR */
	size_t off;		/* offset in RlParams */
	const char *algos;	/* letters of the algorithms: P, A, D */
	const char *help;
} RlParamInfo;
extern const RlParamInfo rl_param_info[];
extern const size_t rl_nparam;

void rl_params_default(RlParams *p, int algo);
int rl_param_applies(size_t i, int algo);
int rl_param_set(RlParams *p, size_t i, const char *value, RlError *e);
int rl_param_find(const char *flag);	/* index, or -1 */
void rl_param_format(const RlParams *p, size_t i, char *buf, size_t n);
int rl_params_check(const RlParams *p, int nobs, int nact, RlError *e);
int rl_arch_parse(const char *s, int *units, int *n, RlError *e);
			/* "64,64" -> units {64, 64}, n 2; "" -> n 0 */
int rl_act_parse(const char *s);	/* RL_TANH, RL_RELU or -1 */
int rl_opt_parse(const char *s);	/* RL_ADAM, RL_RMSPROP or -1 */

/* a policy: the networks of one algorithm (PPO/A2C: policy and value;
 * DQN: Q) over one parameter vector, and what it was trained for */
typedef struct {
	int algo;
	RlParams params;
	int nobs, nact;
	uint32_t obs_version;
	char **names;		/* nact action names, owned */
	char env[160];		/* the environment's settings, as the driver
				 * wrote them (saved, not interpreted here) */
	int nnets;
	RlMlp net[2];		/* PPO/A2C: pi, vf; DQN: q */
	size_t nparams;
	double *theta, *grad;
	gsl_matrix *x1;		/* one observation row, for acting */
	double *logp;		/* nact scratch */
} RlPolicy;

RlPolicy *rl_policy_new(const RlParams *p, int nobs, int nact,
	size_t maxbatch, gsl_rng *r, RlError *e);
			/* orthogonal weights; maxbatch: rows of a forward */
void rl_policy_free(RlPolicy *pol);
int rl_policy_name(RlPolicy *pol, const RlEnv *env, RlError *e);
			/* records env's action names and layout */
int rl_policy_act(RlPolicy *pol, const double *obs,
	const unsigned char *mask, int greedy, gsl_rng *r, int *action,
	RlError *e);	/* greedy: the most likely (highest Q) valid action;
			 * else sampled (DQN: epsilon-greedy with its
			 * exploration-final-eps) */
int rl_policy_save(const RlPolicy *pol, const char *path, RlError *e);
RlPolicy *rl_policy_load(const char *path, RlError *e);
int rl_policy_check(const RlPolicy *pol, const RlEnv *env, RlError *e);
			/* -1 unless env has the same actions, names and
			 * observation layout */
int rl_rollout(RlPolicy *pol, RlEnv *env, uint64_t seed, int greedy,
	long maxsteps, gsl_rng *r, double *ret, long *steps, RlError *e);
			/* one episode; *ret its return */

/* training. after each update (PPO/A2C: each rollout; DQN: each ended
 * episode) the hook gets the statistics; nonzero stops training */
typedef struct {
	long steps;		/* environment steps so far */
	long updates;		/* gradient updates so far */
	long episodes;		/* episodes ended so far */
	double ep_return;	/* mean return of the episodes ended since the
				 * last call; NAN if none */
	double policy_loss, value_loss, entropy, approx_kl, clip_fraction;
				/* means over the update; NAN when the algorithm
				 * has none (DQN: value_loss is the TD loss) */
	double epsilon;		/* DQN's exploration rate; NAN otherwise */
} RlStats;

typedef struct {
	void *u;
	int (*update)(void *u, const RlStats *st);
	int (*poll)(void *u, long steps);	/* after every step of the
						 * environments (NULL: none);
						 * nonzero stops training */
	int jobs;		/* threads stepping the environments (0 or 1:
				 * the caller's only); never changes a result */
} RlHooks;

int rl_train(const RlParams *p, RlEnv *envs, gsl_rng *r,
	const RlHooks *h, RlPolicy **out, RlError *e);
			/* envs: p->n_envs of them, alike (the same nobs, nact
			 * and names); *out: the trained policy, named after
			 * envs[0] */

/* the losses, for the training loops and the gradient tests. a batch of
 * n transitions; rows of obs are observations */
typedef struct {
	size_t n;
	gsl_matrix *obs, *next_obs;	/* n x nobs (next_obs: DQN) */
	unsigned char *mask, *next_mask;	/* n x nact */
	int *actions;
	double *logp_old, *v_old, *adv, *ret;	/* PPO/A2C */
	double *rewards, *dones;		/* DQN */
} RlBatch;

typedef struct {
	double loss, policy_loss, value_loss, entropy, approx_kl;
	double clip_fraction;
} RlLoss;

int rl_ppo_loss(RlPolicy *pol, const RlBatch *b, int backward, RlLoss *l,
	RlError *e);	/* backward: adds dloss/dtheta into pol->grad;
			 * advantages as given (normalized by the caller) */
int rl_dqn_loss(RlPolicy *q, RlPolicy *target, const RlBatch *b,
	int backward, RlLoss *l, RlError *e);	/* Huber TD loss */
int rl_train_ppo(const RlParams *p, RlEnv *envs, gsl_rng *r,
	const RlHooks *h, RlPolicy **out, RlError *e);
int rl_train_dqn(const RlParams *p, RlEnv *envs, gsl_rng *r,
	const RlHooks *h, RlPolicy **out, RlError *e);
#endif
