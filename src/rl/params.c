/* params.c: the agents' hyperparameters: the table built from
 * params.def, Stable-Baselines3's defaults per algorithm, setting one
 * from its text, printing it, and checking a whole set */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "rl.h"

const RlParamInfo rl_param_info[] = {
#define RL_PARAM(flag, field, type, algos, ppo, a2c, dqn, help) \
	{flag, RL_##type, offsetof(RlParams, field), algos, help},
#include "params.def"
#undef RL_PARAM
};
const size_t rl_nparam = sizeof rl_param_info / sizeof rl_param_info[0];

static const char *const algo_names[] = {
#define X(id, name) name,
	RL_ALGOS(X)
#undef X
};

const char *
rl_algo_name(int algo)
{
	return env_name_at(algo_names, RL_NALGO, algo);
}

int
rl_algo_parse(const char *name)
{
	return env_name_index(algo_names, RL_NALGO, name);
}

void
rl_params_default(RlParams *p, int algo)
{
	memset(p, 0, sizeof *p);
	p->algo = algo;
	p->total_steps = 100000;
#define RL_SET_INT(f, v) p->f = (v)
#define RL_SET_DBL(f, v) p->f = (v)
#define RL_SET_STR(f, v) snprintf(p->f, sizeof p->f, "%s", (v))
#define RL_PARAM(flag, field, type, algos, ppo, a2c, dqn, help) \
	RL_SET_##type(field, algo == RL_PPO ? ppo : algo == RL_A2C ? a2c : dqn);
#include "params.def"
#undef RL_PARAM
#undef RL_SET_INT
#undef RL_SET_DBL
#undef RL_SET_STR
}

int
rl_param_applies(size_t i, int algo)
{
	static const char letters[] = "PAD";

	return i < rl_nparam && algo >= 0 && algo < RL_NALGO &&
		strchr(rl_param_info[i].algos, letters[algo]) != NULL;
}

int
rl_param_find(const char *flag)
{
	size_t i;

	for (i = 0; i < rl_nparam; i++)
		if (!strcmp(rl_param_info[i].flag, flag))
			return (int)i;
	return -1;
}

int
rl_param_set(RlParams *p, size_t i, const char *value, RlError *e)
{
	const RlParamInfo *pi = &rl_param_info[i];
	char *base = (char *)p + pi->off, *end;
	long l;
	double d;

	errno = 0;
	switch (pi->type) {
	case RL_INT:
		l = strtol(value, &end, 10);
		if (!*value || *end || errno)
			return rl_err(e, "error: --%s: '%s' is not an integer",
				pi->flag, value);
		memcpy(base, &l, sizeof l);
		return 0;
	case RL_DBL:
		d = strtod(value, &end);
		if (!*value || *end || errno || !isfinite(d))
			return rl_err(e, "error: --%s: '%s' is not a number",
				pi->flag, value);
		memcpy(base, &d, sizeof d);
		return 0;
	default:
		if (strlen(value) >= sizeof(RlStr))
			return rl_err(e, "error: --%s: '%s' is too long",
				pi->flag, value);
		snprintf(base, sizeof(RlStr), "%s", value);
		return 0;
	}
}

void
rl_param_format(const RlParams *p, size_t i, char *buf, size_t n)
{
	const RlParamInfo *pi = &rl_param_info[i];
	const char *base = (const char *)p + pi->off;
	long l;
	double d;

	switch (pi->type) {
	case RL_INT:
		memcpy(&l, base, sizeof l);
		snprintf(buf, n, "%ld", l);
		break;
	case RL_DBL:
		memcpy(&d, base, sizeof d);
		snprintf(buf, n, "%.17g", d);
		break;
	default:
		snprintf(buf, n, "%s", base);
		break;
	}
}

int
rl_arch_parse(const char *s, int *units, int *n, RlError *e)
{
	const char *q = s;
	char *end;
	long v;

	*n = 0;
	while (*q) {
		errno = 0;
		v = strtol(q, &end, 10);
		if (end == q || errno || v < 1 || v > 65536)
			return rl_err(e, "error: '%s': hidden layers are sizes "
				"1 to 65536 separated by commas", s);
		if (*n >= RL_MAXLAYERS - 1)
			return rl_err(e, "error: '%s': at most %d hidden "
				"layers", s, RL_MAXLAYERS - 1);
		units[(*n)++] = (int)v;
		q = end;
		if (*q == ',')
			q++;
		else if (*q)
			return rl_err(e, "error: '%s': hidden layers are sizes "
				"separated by commas", s);
	}
	return 0;
}

int
rl_act_parse(const char *s)
{
	return !strcmp(s, "tanh") ? RL_TANH : !strcmp(s, "relu") ? RL_RELU :
		-1;
}

int
rl_opt_parse(const char *s)
{
	return !strcmp(s, "adam") ? RL_ADAM : !strcmp(s, "rmsprop") ?
		RL_RMSPROP : -1;
}

#define NEED(cond, ...) do { if (!(cond)) return rl_err(e, __VA_ARGS__); \
} while (0)

int
rl_params_check(const RlParams *p, int nobs, int nact, RlError *e)
{
	int units[RL_MAXLAYERS], n;
	int dqn = p->algo == RL_DQN;

	NEED(p->algo >= 0 && p->algo < RL_NALGO, "error: unknown algorithm");
	NEED(nobs >= 1 && nact >= 1, "error: the environment has %d "
		"observations and %d actions", nobs, nact);
	NEED(p->total_steps >= 1, "error: the budget must be positive");
	NEED(p->lr > 0, "error: --lr must be positive");
	NEED(p->gamma >= 0 && p->gamma <= 1, "error: --gamma is in [0, 1]");
	NEED(p->restart_best >= 0 && p->restart_best <= 1,
		"error: --restart-best is in [0, 1]");
	NEED(p->climb >= 0, "error: --climb is at least 0");
	NEED(p->climb_stop_worse == 0 || p->climb_stop_worse == 1,
		"error: --climb-stop-worse is 0 or 1");
	NEED(p->n_envs >= 1 && p->n_envs <= 256, "error: --n-envs is 1 to 256");
	NEED(rl_opt_parse(p->optimizer) >= 0,
		"error: --optimizer is adam or rmsprop, not '%s'", p->optimizer);
	NEED(p->opt_eps > 0, "error: --opt-eps must be positive");
	NEED(p->rms_alpha >= 0 && p->rms_alpha < 1,
		"error: --rms-alpha is in [0, 1)");
	NEED(p->max_grad_norm >= 0, "error: --max-grad-norm must be >= 0");
	NEED(rl_act_parse(p->activation) >= 0,
		"error: --activation is tanh or relu, not '%s'", p->activation);
	if (dqn) {
		if (rl_arch_parse(p->q_arch, units, &n, e) < 0)
			return -1;
		NEED(p->batch_size >= 1, "error: --batch-size must be >= 1");
		NEED(p->buffer_size >= 1, "error: --buffer-size must be >= 1");
		NEED(p->learning_starts >= 0,
			"error: --learning-starts must be >= 0");
		NEED(p->train_freq >= 1, "error: --train-freq must be >= 1");
		NEED(p->gradient_steps >= 1,
			"error: --gradient-steps must be >= 1");
		NEED(p->target_update_interval >= 1,
			"error: --target-update-interval must be >= 1");
		NEED(p->tau > 0 && p->tau <= 1, "error: --tau is in (0, 1]");
		NEED(p->exploration_fraction >= 0 &&
			p->exploration_fraction <= 1,
			"error: --exploration-fraction is in [0, 1]");
		NEED(p->exploration_initial_eps >= 0 &&
			p->exploration_initial_eps <= 1 &&
			p->exploration_final_eps >= 0 &&
			p->exploration_final_eps <= 1,
			"error: exploration epsilons are in [0, 1]");
		NEED(p->double_dqn == 0 || p->double_dqn == 1,
			"error: --double-dqn is 0 or 1");
		return 0;
	}
	if (rl_arch_parse(p->pi_arch, units, &n, e) < 0 ||
	    rl_arch_parse(p->vf_arch, units, &n, e) < 0)
		return -1;
	NEED(p->n_steps >= 1, "error: --n-steps must be >= 1");
	NEED(p->n_steps * p->n_envs <= 1 << 24,
		"error: --n-steps x --n-envs is at most %d", 1 << 24);
	NEED(p->batch_size >= 0, "error: --batch-size must be >= 0");
	NEED(p->n_epochs >= 1, "error: --n-epochs must be >= 1");
	NEED(p->gae_lambda >= 0 && p->gae_lambda <= 1,
		"error: --gae-lambda is in [0, 1]");
	NEED(p->clip_range >= 0 && p->clip_range_vf >= 0,
		"error: clip ranges must be >= 0");
	NEED(p->normalize_advantage == 0 || p->normalize_advantage == 1,
		"error: --normalize-advantage is 0 or 1");
	NEED(p->target_kl >= 0, "error: --target-kl must be >= 0");
	return 0;
}
