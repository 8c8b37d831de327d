/* dqn.c: deep Q-learning as Stable-Baselines3's DQN: a replay buffer
 * sampled uniformly with replacement, a target network copied (or Polyak-
 * averaged) every target_update_interval steps, epsilon falling linearly
 * from its initial to its final value over exploration_fraction of the
 * budget, random actions until learning_starts, a gradient step of the
 * Huber TD loss every train_freq steps; optionally double-DQN targets
 * (the online network picks the next action, the target network values
 * it). Invalid actions are never chosen nor used in a target's max.
 * Time limits are not terminal: such a transition bootstraps. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vec.h"

/* the best valid action of each row of Q (n x A) under mask */
static void
best_rows(const gsl_matrix *Q, const unsigned char *mask, int A, int *a)
{
	size_t i;

	for (i = 0; i < Q->size1; i++)
		a[i] = rl_argmax(gsl_matrix_const_ptr(Q, i, 0), mask ?
			mask + i * A : NULL, A);
}

/* the TD targets r + gamma (1 - done) Q'(s', a*) into y */
static int
targets(RlPolicy *q, RlPolicy *target, const RlBatch *b, double *y,
	int *astar, RlError *e)
{
	gsl_matrix_view Q;
	int A = q->nact;
	size_t i;
	double next;

	if (q->params.double_dqn) {
		if (rl_mlp_forward(&q->net[0], b->next_obs, &Q, e) < 0)
			return -1;
		best_rows(&Q.matrix, b->next_mask, A, astar);
	}
	if (rl_mlp_forward(&target->net[0], b->next_obs, &Q, e) < 0)
		return -1;
	if (!q->params.double_dqn)
		best_rows(&Q.matrix, b->next_mask, A, astar);
	for (i = 0; i < b->n; i++) {
		next = astar[i] < 0 ? 0 : gsl_matrix_get(&Q.matrix, i,
			astar[i]);
		y[i] = b->rewards[i] + q->params.gamma * (1 - b->dones[i]) *
			next;
	}
	return 0;
}

int
rl_dqn_loss(RlPolicy *q, RlPolicy *target, const RlBatch *b, int backward,
	RlLoss *l, RlError *e)
{
	double *y = rl_alloc(b->n, sizeof *y, e), d;
	int *astar = y ? rl_alloc(b->n, sizeof *astar, e) : NULL;
	gsl_matrix *dQ = NULL;
	gsl_matrix_view Q;
	size_t i;
	int rc = -1;

	memset(l, 0, sizeof *l);
	if (!astar)
		goto out;
	if (targets(q, target, b, y, astar, e) < 0 ||
	    rl_mlp_forward(&q->net[0], b->obs, &Q, e) < 0)
		goto out;
	if (backward && !(dQ = gsl_matrix_calloc(b->n, q->nact))) {
		rl_err(e, "error: out of memory");
		goto out;
	}
	for (i = 0; i < b->n; i++) {
		d = gsl_matrix_get(&Q.matrix, i, b->actions[i]) - y[i];
		l->value_loss += rl_huber(d) / b->n;
		if (dQ)
			gsl_matrix_set(dQ, i, b->actions[i],
				rl_huber_grad(d) / b->n);
	}
	l->loss = l->value_loss;
	l->policy_loss = l->entropy = l->approx_kl = l->clip_fraction = NAN;
	if (dQ && rl_mlp_backward(&q->net[0], dQ, NULL, e) < 0)
		goto out;
	rc = 0;
out:
	if (dQ)
		gsl_matrix_free(dQ);
	free(y);
	free(astar);
	return rc;
}

/* the replay buffer: observations as floats to halve its size */
typedef struct {
	size_t cap, n, at;
	int nobs, A;
	float *obs, *next;
	unsigned char *next_mask;
	int *actions;
	double *rewards, *dones;
} Replay;

static void
replay_free(Replay *rb)
{
	free(rb->obs);
	free(rb->next);
	free(rb->next_mask);
	free(rb->actions);
	free(rb->rewards);
	free(rb->dones);
}

static int
replay_init(Replay *rb, size_t cap, int nobs, int A, RlError *e)
{
	memset(rb, 0, sizeof *rb);
	rb->cap = cap;
	rb->nobs = nobs;
	rb->A = A;
	if (!(rb->obs = rl_alloc(cap * nobs, sizeof(float), e)) ||
	    !(rb->next = rl_alloc(cap * nobs, sizeof(float), e)) ||
	    !(rb->next_mask = rl_alloc(cap, A, e)) ||
	    !(rb->actions = rl_alloc(cap, sizeof(int), e)) ||
	    !(rb->rewards = rl_alloc(cap, sizeof(double), e)) ||
	    !(rb->dones = rl_alloc(cap, sizeof(double), e)))
		return -1;
	return 0;
}

static void
replay_add(Replay *rb, const double *obs, int a, double r,
	const double *next, const unsigned char *next_mask, int done)
{
	size_t k = rb->at, j;

	for (j = 0; j < (size_t)rb->nobs; j++) {
		rb->obs[k * rb->nobs + j] = (float)obs[j];
		rb->next[k * rb->nobs + j] = (float)next[j];
	}
	memcpy(rb->next_mask + k * rb->A, next_mask, rb->A);
	rb->actions[k] = a;
	rb->rewards[k] = r;
	rb->dones[k] = done;
	rb->at = (rb->at + 1) % rb->cap;
	if (rb->n < rb->cap)
		rb->n++;
}

typedef struct {
	RlPolicy *q, *target;
	RlOpt opt;
	RlVec vec;
	Replay rb;
	RlBatch b;
	int *act;
	double loss_sum;
	long loss_n;
} Dqn;

static void
dqn_free(Dqn *s)
{
	rl_policy_free(s->q);
	rl_policy_free(s->target);
	rl_opt_free(&s->opt);
	rl_vec_free(&s->vec);
	replay_free(&s->rb);
	if (s->b.obs)
		gsl_matrix_free(s->b.obs);
	if (s->b.next_obs)
		gsl_matrix_free(s->b.next_obs);
	free(s->b.next_mask);
	free(s->b.actions);
	free(s->b.rewards);
	free(s->b.dones);
	free(s->act);
}

static int
dqn_alloc(Dqn *s, const RlParams *p, RlEnv *envs, gsl_rng *r, RlError *e)
{
	size_t B = p->batch_size, E = p->n_envs;
	size_t cap = (size_t)p->buffer_size;
	int nobs = envs[0].nobs, A = envs[0].nact;

	if ((size_t)p->total_steps + E < cap)
		cap = (size_t)p->total_steps + E;
	if (!(s->q = rl_policy_new(p, nobs, A, B > E ? B : E, r, e)) ||
	    rl_policy_name(s->q, &envs[0], e) < 0 ||
	    !(s->target = rl_policy_new(p, nobs, A, B, NULL, e)) ||
	    rl_opt_init(&s->opt, rl_opt_parse(p->optimizer), s->q->nparams,
	    p->lr, p->opt_eps, p->rms_alpha, e) < 0 ||
	    replay_init(&s->rb, cap, nobs, A, e) < 0 ||
	    !(s->act = rl_alloc(E, sizeof *s->act, e)) ||
	    !(s->b.next_mask = rl_alloc(B, A, e)) ||
	    !(s->b.actions = rl_alloc(B, sizeof(int), e)) ||
	    !(s->b.rewards = rl_alloc(B, sizeof(double), e)) ||
	    !(s->b.dones = rl_alloc(B, sizeof(double), e)))
		return -1;
	memcpy(s->target->theta, s->q->theta, s->q->nparams * sizeof(double));
	s->b.n = B;
	s->b.obs = gsl_matrix_alloc(B, nobs);
	s->b.next_obs = gsl_matrix_alloc(B, nobs);
	if (!s->b.obs || !s->b.next_obs)
		return rl_err(e, "error: out of memory");
	return 0;
}

/* one gradient step on a uniformly sampled minibatch */
static int
train_step(Dqn *s, const RlParams *p, gsl_rng *r, RlError *e)
{
	Replay *rb = &s->rb;
	RlLoss l;
	size_t i, j, k;

	for (i = 0; i < s->b.n; i++) {
		k = gsl_rng_uniform_int(r, rb->n);
		for (j = 0; j < (size_t)rb->nobs; j++) {
			gsl_matrix_set(s->b.obs, i, j, rb->obs[k * rb->nobs + j]);
			gsl_matrix_set(s->b.next_obs, i, j,
				rb->next[k * rb->nobs + j]);
		}
		memcpy(s->b.next_mask + i * rb->A, rb->next_mask + k * rb->A,
			rb->A);
		s->b.actions[i] = rb->actions[k];
		s->b.rewards[i] = rb->rewards[k];
		s->b.dones[i] = rb->dones[k];
	}
	memset(s->q->grad, 0, s->q->nparams * sizeof(double));
	if (rl_dqn_loss(s->q, s->target, &s->b, 1, &l, e) < 0)
		return -1;
	rl_clip_grad_norm(s->q->grad, s->q->nparams, p->max_grad_norm);
	rl_opt_step(&s->opt, s->q->theta, s->q->grad);
	s->loss_sum += l.loss;
	s->loss_n++;
	return 0;
}

/* epsilon after `steps` of the budget (SB3's get_linear_fn) */
static double
epsilon(const RlParams *p, long steps)
{
	double f = p->exploration_fraction > 0 ? (double)steps /
		p->total_steps / p->exploration_fraction : 1;

	return p->exploration_initial_eps + (p->exploration_final_eps -
		p->exploration_initial_eps) * (f < 1 ? f : 1);
}

/* the E actions: random before learning_starts or with probability
 * epsilon, else the online network's best valid action */
static int
choose(Dqn *s, const RlParams *p, double eps, long steps, gsl_rng *r,
	RlError *e)
{
	unsigned char *mask;
	int i;

	for (i = 0; i < s->vec.E; i++) {
		mask = s->vec.mask + (size_t)i * s->vec.A;
		if (steps < p->learning_starts || gsl_rng_uniform(r) < eps)
			s->act[i] = rl_random_valid(mask, s->vec.A, r);
		else if (rl_policy_act(s->q, s->vec.obs + (size_t)i *
		    s->vec.nobs, mask, 1, r, &s->act[i], e) < 0)
			return -1;
		if (s->act[i] < 0)
			return rl_err(e, "error: a state with no valid action");
	}
	return 0;
}

/* stores the E transitions of the last step */
static void
remember(Dqn *s, const double *obs)
{
	RlVec *v = &s->vec;
	int i;

	for (i = 0; i < v->E; i++)
		replay_add(&s->rb, obs + (size_t)i * v->nobs, s->act[i],
			v->st[i].reward, v->last + (size_t)i * v->nobs,
			v->last_mask + (size_t)i * v->A, v->st[i].done);
}

static void
polyak(Dqn *s, double tau)
{
	size_t i;

	for (i = 0; i < s->q->nparams; i++)
		s->target->theta[i] = tau * s->q->theta[i] +
			(1 - tau) * s->target->theta[i];
}

int
rl_train_dqn(const RlParams *p, RlEnv *envs, gsl_rng *r, const RlHooks *h,
	RlPolicy **out, RlError *e)
{
	Dqn s = {0};
	RlStats st = {0};
	double *obs = NULL;
	long calls = 0, eps_before, tu, g;
	int E = (int)p->n_envs, rc = -1;

	if (dqn_alloc(&s, p, envs, r, e) < 0 ||
	    rl_vec_init(&s.vec, envs, E, h ? h->jobs : 1, r, e) < 0 ||
	    !(obs = rl_alloc((size_t)E * envs[0].nobs, sizeof *obs, e)))
		goto out;
	tu = p->target_update_interval / E > 1 ? p->target_update_interval /
		E : 1;
	st.policy_loss = st.entropy = st.approx_kl = st.clip_fraction = NAN;
	while (st.steps < p->total_steps) {
		st.epsilon = epsilon(p, st.steps);
		if (choose(&s, p, st.epsilon, st.steps, r, e) < 0)
			goto out;
		memcpy(obs, s.vec.obs, (size_t)E * s.vec.nobs * sizeof *obs);
		eps_before = s.vec.episodes;
		if (rl_vec_step(&s.vec, s.act, r, e) < 0)
			goto out;
		remember(&s, obs);
		st.steps += E;
		if (h && h->poll && h->poll(h->u, st.steps))
			break;
		if (++calls % tu == 0)
			polyak(&s, p->tau);
		if (st.steps > p->learning_starts && calls % p->train_freq == 0)
			for (g = 0; g < p->gradient_steps; g++) {
				if (train_step(&s, p, r, e) < 0)
					goto out;
				st.updates++;
			}
		if (s.vec.episodes == eps_before)
			continue;
		st.episodes = s.vec.episodes;
		st.ep_return = rl_vec_returns(&s.vec);
		st.value_loss = s.loss_n ? s.loss_sum / s.loss_n : NAN;
		s.loss_sum = 0;
		s.loss_n = 0;
		if (h && h->update && h->update(h->u, &st))
			break;
	}
	*out = s.q;
	s.q = NULL;
	rc = 0;
out:
	free(obs);
	dqn_free(&s);
	return rc;
}
