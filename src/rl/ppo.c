/* ppo.c: proximal policy optimization with a clipped surrogate, GAE,
 * a value loss, an entropy bonus, minibatch epochs and advantage
 * normalization, as Stable-Baselines3's PPO; A2C is the same loop with
 * one epoch over the whole rollout, no clipping (the ratio is 1, so the
 * surrogate's gradient is A2C's), GAE lambda 1 and RMSprop (SB3's A2C,
 * and Huang et al.'s "A2C is a special case of PPO"). Separate policy and
 * value networks; invalid actions masked out of the softmax. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "vec.h"

/* one minibatch's loss (rl.h); the gradient of
 * -mean(min(A r, A clip(r))) + vf_coef mean((V - R)^2) - ent_coef mean(H)
 * goes through the categorical distribution's logits and the value */
static int
ppo_rows(RlPolicy *pol, const RlBatch *b, const gsl_matrix *Z,
	const gsl_matrix *V, gsl_matrix *dZ, gsl_matrix *dV, RlLoss *l)
{
	const RlParams *p = &pol->params;
	double n = b->n, c = p->clip_range, cv = p->clip_range_vf;
	double lr, ratio, s1, s2, ga, v, vp, dvp, err, H;
	const unsigned char *mask;
	size_t i;
	int a;

	for (i = 0; i < b->n; i++) {
		mask = b->mask ? b->mask + i * pol->nact : NULL;
		if (rl_log_softmax(gsl_matrix_const_ptr(Z, i, 0), mask,
		    pol->nact, pol->logp) < 0)
			return -1;
		a = b->actions[i];
		lr = pol->logp[a] - b->logp_old[i];
		ratio = exp(lr);
		s1 = b->adv[i] * ratio;
		s2 = c > 0 ? b->adv[i] * fmin(fmax(ratio, 1 - c), 1 + c) : s1;
		l->policy_loss -= fmin(s1, s2) / n;
		ga = s1 <= s2 ? -s1 / n : 0;
		H = rl_entropy(pol->logp, pol->nact);
		l->entropy += H / n;
		l->approx_kl += (ratio - 1 - lr) / n;
		l->clip_fraction += (c > 0 && fabs(ratio - 1) > c) / n;
		if (dZ)
			rl_categorical_grad(pol->logp, pol->nact, a, ga,
				-p->ent_coef / n, gsl_matrix_ptr(dZ, i, 0));
		v = gsl_matrix_get(V, i, 0);
		vp = v;
		dvp = 1;
		if (cv > 0 && fabs(v - b->v_old[i]) > cv) {
			vp = b->v_old[i] + (v > b->v_old[i] ? cv : -cv);
			dvp = 0;
		}
		err = vp - b->ret[i];
		l->value_loss += err * err / n;
		if (dV)
			gsl_matrix_set(dV, i, 0, p->vf_coef * 2 * err / n * dvp);
	}
	return 0;
}

int
rl_ppo_loss(RlPolicy *pol, const RlBatch *b, int backward, RlLoss *l,
	RlError *e)
{
	gsl_matrix_view Z, V;
	gsl_matrix *dZ = NULL, *dV = NULL;
	int rc = -1;

	memset(l, 0, sizeof *l);
	if (rl_mlp_forward(&pol->net[0], b->obs, &Z, e) < 0 ||
	    rl_mlp_forward(&pol->net[1], b->obs, &V, e) < 0)
		return -1;
	if (backward && (!(dZ = gsl_matrix_alloc(b->n, pol->nact)) ||
	    !(dV = gsl_matrix_alloc(b->n, 1)))) {
		rl_err(e, "error: out of memory");
		goto out;
	}
	if (ppo_rows(pol, b, &Z.matrix, &V.matrix, dZ, dV, l) < 0) {
		rl_err(e, "error: a state with no valid action");
		goto out;
	}
	l->loss = l->policy_loss - pol->params.ent_coef * l->entropy +
		pol->params.vf_coef * l->value_loss;
	if (backward && (rl_mlp_backward(&pol->net[0], dZ, NULL, e) < 0 ||
	    rl_mlp_backward(&pol->net[1], dV, NULL, e) < 0))
		goto out;
	rc = 0;
out:
	if (dZ)
		gsl_matrix_free(dZ);
	if (dV)
		gsl_matrix_free(dV);
	return rc;
}

/* the rollout buffer: T = n_steps x n_envs transitions, row t * E + env */
typedef struct {
	RlPolicy *pol;
	RlOpt opt;
	RlVec vec;
	int E, N;
	size_t T;
	gsl_matrix *obs;
	unsigned char *mask;
	int *actions;
	double *logp, *val, *rew, *done, *adv, *ret;
	gsl_matrix *cur;	/* E x nobs: the observations to act on */
	double *z;		/* E x nact logits */
	int *act;		/* E actions */
	RlBatch mb;		/* the minibatch; mb.obs views n rows of */
	gsl_matrix *mbobs;	/* this */
	gsl_matrix_view mbview;
	size_t *perm;
} Ppo;

static void
ppo_free(Ppo *s)
{
	rl_opt_free(&s->opt);
	rl_vec_free(&s->vec);
	if (s->obs)
		gsl_matrix_free(s->obs);
	if (s->cur)
		gsl_matrix_free(s->cur);
	if (s->mbobs)
		gsl_matrix_free(s->mbobs);
	free(s->mask);
	free(s->actions);
	free(s->logp);
	free(s->val);
	free(s->rew);
	free(s->done);
	free(s->adv);
	free(s->ret);
	free(s->z);
	free(s->act);
	free(s->mb.mask);
	free(s->mb.actions);
	free(s->mb.logp_old);
	free(s->mb.v_old);
	free(s->mb.adv);
	free(s->mb.ret);
	free(s->perm);
}

static int
ppo_alloc(Ppo *s, const RlParams *p, int nobs, int A, RlError *e)
{
	size_t T = s->T, B = p->batch_size ? (size_t)p->batch_size : T;
	void **bufs[] = {(void **)&s->actions, (void **)&s->logp,
		(void **)&s->val, (void **)&s->rew, (void **)&s->done,
		(void **)&s->adv, (void **)&s->ret, (void **)&s->perm,
		(void **)&s->mb.actions, (void **)&s->mb.logp_old,
		(void **)&s->mb.v_old, (void **)&s->mb.adv,
		(void **)&s->mb.ret};
	size_t sizes[] = {sizeof(int), sizeof(double), sizeof(double),
		sizeof(double), sizeof(double), sizeof(double), sizeof(double),
		sizeof(size_t), sizeof(int), sizeof(double), sizeof(double),
		sizeof(double), sizeof(double)};
	size_t i;

	if (B > T)
		B = T;
	for (i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
		if (!(*bufs[i] = rl_alloc(i < 8 ? T : B, sizes[i], e)))
			return -1;
	s->mask = rl_alloc(T, A, e);
	s->mb.mask = s->mask ? rl_alloc(B, A, e) : NULL;
	s->z = s->mb.mask ? rl_alloc((size_t)s->E * A, sizeof *s->z, e) : NULL;
	s->act = s->z ? rl_alloc(s->E, sizeof *s->act, e) : NULL;
	if (!s->act)
		return -1;
	s->obs = gsl_matrix_alloc(T, nobs);
	s->cur = gsl_matrix_alloc(s->E, nobs);
	s->mbobs = gsl_matrix_alloc(B, nobs);
	if (!s->obs || !s->cur || !s->mbobs)
		return rl_err(e, "error: out of memory (rollout of %zu x %d)",
			T, nobs);
	return 0;
}

/* values of the E observations in x (rows), into val */
static int
values(RlPolicy *pol, const gsl_matrix *x, double *val, RlError *e)
{
	gsl_matrix_view V;
	size_t i;

	if (rl_mlp_forward(&pol->net[1], x, &V, e) < 0)
		return -1;
	for (i = 0; i < x->size1; i++)
		val[i] = gsl_matrix_get(&V.matrix, i, 0);
	return 0;
}

/* one step of every environment, recorded at rows t * E .. */
static int
collect_step(Ppo *s, const RlParams *p, size_t t, gsl_rng *r, RlError *e)
{
	RlPolicy *pol = s->pol;
	int A = pol->nact, nobs = pol->nobs, i;
	size_t row;
	gsl_matrix_view Z, last;
	double vlast;

	memcpy(s->cur->data, s->vec.obs, (size_t)s->E * nobs * sizeof(double));
	if (rl_mlp_forward(&pol->net[0], s->cur, &Z, e) < 0)
		return -1;
	memcpy(s->z, Z.matrix.data, (size_t)s->E * A * sizeof *s->z);
	if (values(pol, s->cur, s->val + t * s->E, e) < 0)
		return -1;
	for (i = 0; i < s->E; i++) {
		row = t * s->E + i;
		memcpy(s->mask + row * A, s->vec.mask + (size_t)i * A, A);
		memcpy(gsl_matrix_ptr(s->obs, row, 0), s->vec.obs +
			(size_t)i * nobs, nobs * sizeof(double));
		if (rl_log_softmax(s->z + (size_t)i * A, s->mask + row * A, A,
		    pol->logp) < 0)
			return rl_err(e, "error: a state with no valid action");
		s->act[i] = rl_sample(pol->logp, A, r);
		s->actions[row] = s->act[i];
		s->logp[row] = pol->logp[s->act[i]];
	}
	if (rl_vec_step(&s->vec, s->act, r, e) < 0)
		return -1;
	for (i = 0; i < s->E; i++) {
		row = t * s->E + i;
		s->rew[row] = s->vec.st[i].reward;
		s->done[row] = s->vec.st[i].done || s->vec.st[i].truncated;
		if (!s->vec.st[i].truncated || s->vec.st[i].done)
			continue;
		/* a time limit, not a terminal state: bootstrap */
		last = gsl_matrix_view_array(s->vec.last + (size_t)i * nobs, 1,
			nobs);
		if (values(pol, &last.matrix, &vlast, e) < 0)
			return -1;
		s->rew[row] += p->gamma * vlast;
	}
	return 0;
}

/* generalized advantage estimation, backwards per environment */
static int
gae(Ppo *s, const RlParams *p, RlError *e)
{
	double *lastv = rl_alloc(s->E, sizeof *lastv, e), g, nv, nnt, delta;
	size_t row;
	int i, t;

	if (!lastv)
		return -1;
	memcpy(s->cur->data, s->vec.obs, (size_t)s->E * s->pol->nobs *
		sizeof(double));
	if (values(s->pol, s->cur, lastv, e) < 0) {
		free(lastv);
		return -1;
	}
	for (i = 0; i < s->E; i++) {
		g = 0;
		for (t = s->N - 1; t >= 0; t--) {
			row = (size_t)t * s->E + i;
			nnt = 1 - s->done[row];
			nv = t == s->N - 1 ? lastv[i] : s->val[row + s->E];
			delta = s->rew[row] + p->gamma * nv * nnt - s->val[row];
			g = delta + p->gamma * p->gae_lambda * nnt * g;
			s->adv[row] = g;
			s->ret[row] = g + s->val[row];
		}
	}
	free(lastv);
	return 0;
}

/* gathers rows perm[from .. from + n) into the minibatch */
static void
gather(Ppo *s, size_t from, size_t n, int normalize)
{
	int A = s->pol->nact, nobs = s->pol->nobs;
	double mean = 0, var = 0, sd;
	size_t i, j;

	s->mb.n = n;
	s->mbview = gsl_matrix_submatrix(s->mbobs, 0, 0, n, nobs);
	s->mb.obs = &s->mbview.matrix;
	for (i = 0; i < n; i++) {
		j = s->perm[from + i];
		memcpy(gsl_matrix_ptr(s->mb.obs, i, 0),
			gsl_matrix_const_ptr(s->obs, j, 0),
			nobs * sizeof(double));
		memcpy(s->mb.mask + i * A, s->mask + j * A, A);
		s->mb.actions[i] = s->actions[j];
		s->mb.logp_old[i] = s->logp[j];
		s->mb.v_old[i] = s->val[j];
		s->mb.adv[i] = s->adv[j];
		s->mb.ret[i] = s->ret[j];
		mean += s->adv[j] / n;
	}
	if (!normalize || n < 2)
		return;
	for (i = 0; i < n; i++)
		var += (s->mb.adv[i] - mean) * (s->mb.adv[i] - mean) / (n - 1);
	sd = sqrt(var) + 1e-8;
	for (i = 0; i < n; i++)
		s->mb.adv[i] = (s->mb.adv[i] - mean) / sd;
}

/* n_epochs passes over the rollout in shuffled minibatches */
static int
update(Ppo *s, const RlParams *p, gsl_rng *r, RlStats *st, RlError *e)
{
	size_t B = p->batch_size ? (size_t)p->batch_size : s->T, from, n, i;
	RlPolicy *pol = s->pol;
	RlLoss l, sum = {0};
	long k = 0, ep;
	int stop = 0;

	if (B > s->T)
		B = s->T;
	for (i = 0; i < s->T; i++)
		s->perm[i] = i;
	for (ep = 0; ep < p->n_epochs && !stop; ep++) {
		gsl_ran_shuffle(r, s->perm, s->T, sizeof *s->perm);
		for (from = 0; from < s->T; from += B) {
			n = s->T - from < B ? s->T - from : B;
			gather(s, from, n, p->normalize_advantage);
			memset(pol->grad, 0, pol->nparams * sizeof *pol->grad);
			if (rl_ppo_loss(pol, &s->mb, 1, &l, e) < 0)
				return -1;
			sum.policy_loss += l.policy_loss;
			sum.value_loss += l.value_loss;
			sum.entropy += l.entropy;
			sum.approx_kl += l.approx_kl;
			sum.clip_fraction += l.clip_fraction;
			k++;
			if (p->target_kl > 0 && l.approx_kl > 1.5 * p->target_kl) {
				stop = 1;
				break;
			}
			rl_clip_grad_norm(pol->grad, pol->nparams,
				p->max_grad_norm);
			rl_opt_step(&s->opt, pol->theta, pol->grad);
			st->updates++;
		}
	}
	st->policy_loss = sum.policy_loss / k;
	st->value_loss = sum.value_loss / k;
	st->entropy = sum.entropy / k;
	st->approx_kl = sum.approx_kl / k;
	st->clip_fraction = sum.clip_fraction / k;
	return 0;
}

int
rl_train_ppo(const RlParams *p, RlEnv *envs, gsl_rng *r, const RlHooks *h,
	RlPolicy **out, RlError *e)
{
	Ppo s = {0};
	RlStats st = {0};
	size_t t;
	int rc = -1;

	s.E = (int)p->n_envs;
	s.N = (int)p->n_steps;
	s.T = (size_t)s.E * s.N;
	if (!(s.pol = rl_policy_new(p, envs[0].nobs, envs[0].nact,
	    s.T > (size_t)s.E ? s.T : (size_t)s.E, r, e)) ||
	    rl_policy_name(s.pol, &envs[0], e) < 0 ||
	    rl_opt_init(&s.opt, rl_opt_parse(p->optimizer), s.pol->nparams,
	    p->lr, p->opt_eps, p->rms_alpha, e) < 0 ||
	    ppo_alloc(&s, p, envs[0].nobs, envs[0].nact, e) < 0 ||
	    rl_vec_init(&s.vec, envs, s.E, h ? h->jobs : 1, r, e) < 0)
		goto out;
	st.epsilon = NAN;
	while (st.steps < p->total_steps) {
		for (t = 0; t < (size_t)s.N; t++) {
			if (st.steps + s.E > p->total_steps)
				goto done;	/* the budget, exactly */
			if (collect_step(&s, p, t, r, e) < 0)
				goto out;
			st.steps += s.E;
			if (h && h->poll && h->poll(h->u, st.steps))
				goto done;
		}
		if (gae(&s, p, e) < 0 || update(&s, p, r, &st, e) < 0)
			goto out;
		st.episodes = s.vec.episodes;
		st.ep_return = rl_vec_returns(&s.vec);
		if (h && h->update && h->update(h->u, &st))
			break;
	}
done:
	*out = s.pol;
	s.pol = NULL;
	rc = 0;
out:
	rl_policy_free(s.pol);
	ppo_free(&s);
	return rc;
}
