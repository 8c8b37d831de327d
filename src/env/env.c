/* env.c: the pass-ordering environment (env.h): episodes over a cached
 * clone of the input module, one registered pass per step, observations,
 * rewards, patience, a size cap that ends an episode whose module grew
 * past it, and a transposition table of the states reached that
 * remembers which actions changed nothing from each of them.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envi.h"
#include "pass.h"

#define TT_MAX (1u << 24)	/* transposition table entries at most */
#define ENV_KEEP_BYTES ((uint64_t)256 << 20)	/* constant folding's
				 * evaluator blocks kept between steps: a
				 * fresh block faulted and zeroed huge
				 * pages at every run, 15% of mobilenet's
				 * step time, and with two workers the
				 * page zeroing and unmapping competed */

/* the input, shared read-only by the Envs made with env_dup */
typedef struct {
	HloModule *m;
	atomic_int refs;
	HloCost cost;		/* of the input */
	uint64_t hash;
	uint32_t frozen;	/* bytes of its string pool (env_hash_frozen) */
} EnvInput;

struct Env {
	EnvInput *in;
	EnvOpts o;
	int nact;		/* actions: the registered passes */
	int len;		/* episode length */
	PassCtx ctx;
	HloModule *cur;		/* NULL before the first reset or after a
				 * failed step */
	int done;
	int steps, since;	/* steps taken; since the last best */
	int *acts;		/* the episode's actions */
	int capacts;
	double init, obj, best;	/* objective: input, now, episode best */
	double phi0;		/* shaping's scale */
	HloCost cost;		/* of cur, when costok */
	int costok;
	uint64_t hash;		/* of cur */
	EnvLitCache *lits;	/* literal hashes of cur's episode */
	uint64_t rng;
	/* transposition table: open addressing on the hash (0: empty);
	 * noop[slot * words ...]: bit a set when action a changed nothing */
	uint64_t *keys, *noop;
	uint32_t cap, n, words;
	uint64_t lookups, hits;
	EnvTimes times;
	char err[1024];
};

static const char *const objnames[ENV_OBJ_COUNT] = {
	"instructions", "flops", "bytes", "transcendentals", "kernels",
};

void
env_opts_default(EnvOpts *o)
{
	memset(o, 0, sizeof *o);
	o->objective = ENV_OBJ_INSTRUCTIONS;
	o->gamma = 0.99;
	o->seed = 1;
}

int
env_name_index(const char *const *names, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

const char *
env_name_at(const char *const *names, int n, int i)
{
	return i >= 0 && i < n ? names[i] : "?";
}

int
env_objective_by_name(const char *name)
{
	return env_name_index(objnames, ENV_OBJ_COUNT, name);
}

const char *
env_objective_name(int objective)
{
	return env_name_at(objnames, ENV_OBJ_COUNT, objective);
}

uint64_t
env_mix(uint64_t seed, uint64_t k)
{
	uint64_t z = seed + 0x9e3779b97f4a7c15ull * (k + 1);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

double
env_now(void)
{
	return hlo_now();
}

static double
costval(const HloCost *c, int objective)
{
	switch (objective) {
	case ENV_OBJ_FLOPS:
		return c->flops;
	case ENV_OBJ_BYTES:
		return c->bytes_accessed;
	case ENV_OBJ_TRANSCENDENTALS:
		return c->transcendentals;
	case ENV_OBJ_KERNELS:
		return (double)c->kernels;
	}
	return (double)c->instructions;
}

int
env_module_objective(const HloModule *m, int objective, double *v,
	HloError *e)
{
	HloCost c;
	int64_t n;

	if (objective == ENV_OBJ_INSTRUCTIONS) {
		if ((n = hlo_cost_count(m)) < 0)
			return hlo_err(e, "cannot count the instructions of a "
				"malformed module");
		*v = (double)n;
		return 0;
	}
	if (hlo_cost(m, &c, e) < 0)
		return -1;
	*v = costval(&c, objective);
	return 0;
}

/* transposition table */

static uint32_t
tt_slot(const Env *env, uint64_t h)
{
	uint32_t i = (uint32_t)(h ^ (h >> 32)) & (env->cap - 1);

	while (env->keys[i] && env->keys[i] != h)
		i = (i + 1) & (env->cap - 1);
	return i;
}

static void
tt_grow(Env *env)
{
	uint64_t *ok = env->keys, *on = env->noop;
	uint32_t oc = env->cap, i, j;

	env->cap = oc ? 2 * oc : 1024;
	env->keys = xcalloc(env->cap, sizeof *env->keys);
	env->noop = xcalloc((size_t)env->cap * env->words,
		sizeof *env->noop);
	for (i = 0; i < oc; i++) {
		if (!ok[i])
			continue;
		j = tt_slot(env, ok[i]);
		env->keys[j] = ok[i];
		memcpy(env->noop + (size_t)j * env->words,
			on + (size_t)i * env->words,
			env->words * sizeof *env->noop);
	}
	free(ok);
	free(on);
}

/* the slot of h, inserted if absent (*found says which); UINT32_MAX when
 * the table is full */
static uint32_t
tt_get(Env *env, uint64_t h, int *found)
{
	uint32_t i;

	*found = 0;
	if (!env->cap)
		tt_grow(env);
	i = tt_slot(env, h);
	if (env->keys[i]) {
		*found = 1;
		return i;
	}
	if (env->n >= TT_MAX)
		return UINT32_MAX;
	if (2 * (env->n + 1) > env->cap) {
		tt_grow(env);
		i = tt_slot(env, h);
	}
	env->keys[i] = h;
	env->n++;
	return i;
}

static uint64_t *
tt_noop(Env *env, uint64_t h)
{
	uint32_t i;

	if (!env->cap)
		return NULL;
	i = tt_slot(env, h);
	return env->keys[i] ? env->noop + (size_t)i * env->words : NULL;
}

/* creation */

static Env *
mkenv(EnvInput *in, const EnvOpts *o)
{
	Env *env = xcalloc(1, sizeof *env);

	env->in = in;
	env->o = *o;
	if (env->o.gamma == 0)
		env->o.gamma = 0.99;
	if (env->o.objective < 0 || env->o.objective >= ENV_OBJ_COUNT)
		env->o.objective = ENV_OBJ_INSTRUCTIONS;
	if (env->o.last_k < 0)
		env->o.last_k = 0;
	env->nact = PASS_COUNT;
	env->len = o->episode_len > 0 ? o->episode_len : env->nact;
	env->words = (uint32_t)(env->nact + 63) / 64;
	pass_ctx_init(&env->ctx);
	env->ctx.threads = 1;	/* one Env per thread */
	env->ctx.keep_bytes = ENV_KEEP_BYTES;
	if (o->verify_each)
		env->ctx.flags |= PASS_VERIFY;
	env->init = costval(&in->cost, env->o.objective);
	env->phi0 = in->cost.flops + 2 * in->cost.transcendentals;
	if (env->phi0 <= 0)
		env->phi0 = 1;
	env->rng = env_mix(o->seed, 0);
	env->lits = env_litcache_new();
	return env;
}

/* pools and instruction arrays trimmed to what they hold, so that every
 * clone of m (one per reset) copies no spare capacity; the intern tables
 * keep theirs */
static void *
trim(void *p, uint32_t n, uint32_t *cap, size_t size)
{
	if (!p || n == 0 || n >= *cap)
		return p;
	*cap = n;
	return xreallocarray(p, n, size);
}

void
env_trim(HloModule *m)
{
	uint32_t c;

	m->comps = trim(m->comps, m->ncomps, &m->capcomps, sizeof *m->comps);
	for (c = 0; c < m->ncomps; c++)
		m->comps[c].ins = trim(m->comps[c].ins, m->comps[c].nins,
			&m->comps[c].cap, sizeof(HloInstr));
	m->ids = trim(m->ids, m->nids, &m->capids, sizeof *m->ids);
	m->ints = trim(m->ints, m->nints, &m->capints, sizeof *m->ints);
	m->bytes = trim(m->bytes, m->nbytes, &m->capbytes, 1);
	m->attrv = trim(m->attrv, m->nattrv, &m->capattrv, sizeof *m->attrv);
	m->shapes = trim(m->shapes, m->nshapes, &m->capshapes,
		sizeof *m->shapes);
}

Env *
env_create_module(HloModule *m, const EnvOpts *o)
{
	EnvInput *in = xcalloc(1, sizeof *in);
	HloError e;

	env_trim(m);
	in->m = m;
	atomic_init(&in->refs, 1);
	if (hlo_cost(m, &in->cost, &e) < 0)
		memset(&in->cost, 0, sizeof in->cost);
	in->frozen = m->nbytes;
	in->hash = env_hash_frozen(m, in->frozen);
	return mkenv(in, o);
}

int
env_create_file(const char *path, const EnvOpts *o, Env **out, char *err,
	size_t nerr)
{
	HloModule *m;
	HloError e;
	EnvOpts d;

	*out = NULL;
	if (!o) {
		env_opts_default(&d);
		o = &d;
	}
	if (hlo_load(path, &m, &e) < 0) {
		snprintf(err, nerr, "%s", e.msg);
		return -1;
	}
	if (hlo_verify(m, &e) < 0) {
		snprintf(err, nerr, "%s: %s", path, e.msg);
		hlo_module_free(m);
		return -1;
	}
	*out = env_create_module(m, o);
	return 0;
}

Env *
env_dup(const Env *env)
{
	atomic_fetch_add(&env->in->refs, 1);
	return mkenv(env->in, &env->o);
}

void
env_free(Env *env)
{
	if (!env)
		return;
	if (atomic_fetch_sub(&env->in->refs, 1) == 1) {
		hlo_module_free(env->in->m);
		free(env->in);
	}
	hlo_module_free(env->cur);
	pass_ctx_free(&env->ctx);
	free(env->acts);
	free(env->keys);
	free(env->noop);
	env_litcache_free(env->lits);
	free(env);
}

void
env_seed(Env *env, uint64_t seed)
{
	env->o.seed = seed;
	env->rng = env_mix(seed, 0);
}

const HloModule *
env_input(const Env *env)
{
	return env->in->m;
}

const HloModule *
env_module(const Env *env)
{
	return env->cur;
}

const EnvOpts *
env_opts(const Env *env)
{
	return &env->o;
}

/* actions */

int
env_action_count(const Env *env)
{
	return env->nact;
}

const char *
env_action_name(const Env *env, int action)
{
	return action >= 0 && action < env->nact ? hlo_passes[action].name :
		NULL;
}

int
env_action_by_name(const Env *env, const char *name)
{
	int a = pass_lookup(name, strlen(name));

	return a < env->nact ? a : -1;
}

void
env_action_mask(Env *env, uint8_t *mask)
{
	uint64_t *nb = env->cur ? tt_noop(env, env->hash) : NULL;
	int a;

	for (a = 0; a < env->nact; a++)
		mask[a] = !(nb && (nb[a / 64] >> (a % 64) & 1));
}

static uint64_t
rnext(Env *env)
{
	env->rng += 0x9e3779b97f4a7c15ull;
	return env_mix(env->rng, 0);
}

int
env_sample_action(Env *env, const uint8_t *mask)
{
	int a, n = 0, k;

	for (a = 0; a < env->nact; a++)
		n += !mask || mask[a];
	if (!n)
		return -1;
	k = (int)(((rnext(env) >> 32) * (uint64_t)n) >> 32);
	for (a = 0; a < env->nact; a++)
		if ((!mask || mask[a]) && k-- == 0)
			return a;
	return -1;
}

/* observation */

int
env_opcode_count(void)
{
	return HOP_COUNT;
}

const char *
env_opcode_name(int i)
{
	return i >= 0 && i < HOP_COUNT ? hlo_opinfo[i].name : NULL;
}

int
env_obs_size(const Env *env)
{
	return HOP_COUNT + ENV_OBS_FEATURES + env->o.last_k * env->nact;
}

static int
curcost(Env *env)
{
	HloError e;

	if (env->costok)
		return 0;
	if (hlo_cost(env->cur, &env->cost, &e) < 0) {
		snprintf(env->err, sizeof env->err, "%s", e.msg);
		return -1;
	}
	env->costok = 1;
	return 0;
}

void
env_observe(Env *env, double *obs)
{
	double total = env->in->cost.instructions > 0 ?
		(double)env->in->cost.instructions : 1;
	const HloCost *c = &env->cost;
	int i, k, n = env_obs_size(env);
	double *f = obs + HOP_COUNT, t0 = env_now();

	memset(obs, 0, n * sizeof *obs);
	if (!env->cur)
		c = &env->in->cost;
	else if (curcost(env) < 0)
		return;
	for (i = 0; i < HOP_COUNT; i++)
		obs[i] = c->opcount[i] / total;
	f[0] = log1p(c->flops) / 32;
	f[1] = log1p(c->transcendentals) / 32;
	f[2] = log1p(c->bytes_accessed) / 32;
	f[3] = log1p((double)c->computations) / 16;
	f[4] = log1p((double)c->instructions) / 16;
	f[5] = (double)env->steps / env->len;
	for (k = 0; k < env->o.last_k && k < env->steps; k++)
		f[ENV_OBS_FEATURES + k * env->nact +
		    env->acts[env->steps - 1 - k]] = 1;
	env->times.observe += env_now() - t0;
}

/* episodes */

const char *
env_error(const Env *env)
{
	return env->err;
}

int
env_reset(Env *env, double *obs)
{
	int found;
	double t0 = env_now();

	if (env->cur)	/* in the last state's memory: no fresh pages */
		hlo_module_copy(env->cur, env->in->m);
	else
		env->cur = hlo_module_clone(env->in->m);
	env->times.reset += env_now() - t0;
	env_litcache_clear(env->lits);	/* the pool past the input's bytes
					 * is rewritten */
	env->done = 0;
	env->steps = env->since = 0;
	env->obj = env->best = env->init;
	env->cost = env->in->cost;
	env->costok = 1;
	env->hash = env->in->hash;
	env->err[0] = 0;
	tt_get(env, env->hash, &found);
	if (obs)
		env_observe(env, obs);
	return 0;
}

static double
phi(Env *env)
{
	if (curcost(env) < 0)
		return 0;
	return -(env->cost.flops + 2 * env->cost.transcendentals) /
		env->phi0;
}

static void
push_action(Env *env, int a)
{
	if (env->steps == env->capacts) {
		env->capacts = env->capacts ? 2 * env->capacts : 64;
		env->acts = xreallocarray(env->acts, env->capacts,
			sizeof *env->acts);
	}
	env->acts[env->steps++] = a;
}

/* runs action a on cur; the state's objective, hash and table entry
 * follow. 1 changed, 0 not, -1 error */
static int
apply(Env *env, int a, EnvInfo *info)
{
	uint64_t *nb = tt_noop(env, env->hash);
	HloError e;
	int r, found;
	double t0, t1;

	if (nb && (nb[a / 64] >> (a % 64) & 1)) {
		info->cached = 1;
		return 0;
	}
	t0 = env_now();
	r = pass_run(env->cur, a, &env->ctx, NULL);
	t1 = env_now();
	env->times.pass += t1 - t0;
	env->times.passes++;
	if (r < 0) {
		snprintf(env->err, sizeof env->err, "%s", env->ctx.err.msg);
		return -1;
	}
	if (!r) {
		if ((nb = tt_noop(env, env->hash)))
			nb[a / 64] |= 1ull << (a % 64);
		return 0;
	}
	env->costok = 0;
	if (env->o.objective != ENV_OBJ_INSTRUCTIONS) {
		/* the observation reuses this cost */
		if (hlo_cost(env->cur, &env->cost, &e) < 0) {
			snprintf(env->err, sizeof env->err, "after %s: %.900s",
				hlo_passes[a].name, e.msg);
			return -1;
		}
		env->costok = 1;
		env->obj = costval(&env->cost, env->o.objective);
	} else if (env_module_objective(env->cur, env->o.objective, &env->obj,
	    &e) < 0) {
		snprintf(env->err, sizeof env->err, "after %s: %.900s",
			hlo_passes[a].name, e.msg);
		return -1;
	}
	t0 = env_now();
	env->times.objective += t0 - t1;
	env->hash = env_hash_cached(env->cur, env->in->frozen, env->lits);
	env->times.hash += env_now() - t0;
	env->lookups++;
	tt_get(env, env->hash, &found);
	if (found)
		env->hits++;
	info->seen = found;
	return 1;
}

int
env_step(Env *env, int action, double *obs, EnvInfo *info)
{
	EnvInfo dummy;
	double t0 = env_now(), before, p0 = 0;
	int r;

	if (!info)
		info = &dummy;
	memset(info, 0, sizeof *info);
	if (!env->cur) {
		snprintf(env->err, sizeof env->err, "step without a reset "
			"(or after a failed step)");
		return -1;
	}
	if (env->done) {
		snprintf(env->err, sizeof env->err, "step after the end of "
			"the episode");
		return -1;
	}
	if (action < 0 || action >= env->nact) {
		snprintf(env->err, sizeof env->err, "action %d out of range "
			"[0, %d)", action, env->nact);
		return -1;
	}
	before = env->obj;
	info->before = env->o.objective == ENV_OBJ_INSTRUCTIONS ?
		(int64_t)env->obj : hlo_cost_count(env->cur);
	if (env->o.shaping)
		p0 = phi(env);
	if ((r = apply(env, action, info)) < 0) {
		hlo_module_free(env->cur);
		env->cur = NULL;
		return -1;
	}
	info->changed = r;
	info->after = !r ? info->before : env->o.objective ==
		ENV_OBJ_INSTRUCTIONS ? (int64_t)env->obj :
		hlo_cost_count(env->cur);
	push_action(env, action);
	env->times.steps++;
	info->objective = env->obj;
	info->reward = env->init != 0 ? (before - env->obj) / env->init :
		before - env->obj;
	if (env->o.shaping)
		info->reward += env->o.gamma * phi(env) - p0;
	if (env->obj < env->best) {
		env->best = env->obj;
		env->since = 0;
	} else {
		env->since++;
	}
	info->capped = info->after > ENV_GROWTH *
		env->in->cost.instructions + ENV_SLACK;
	env->done = env->steps >= env->len || (env->o.patience > 0 &&
		env->since >= env->o.patience) || info->capped;
	info->done = env->done;
	if (obs)
		env_observe(env, obs);
	info->ms = (env_now() - t0) * 1e3;
	return 0;
}

int
env_steps(const Env *env)
{
	return env->steps;
}

const int *
env_actions(const Env *env)
{
	return env->acts;
}

double
env_objective(const Env *env)
{
	return env->obj;
}

double
env_objective_initial(const Env *env)
{
	return env->init;
}

double
env_best_objective(const Env *env)
{
	return env->best;
}

uint64_t
env_state_hash(Env *env)
{
	return env->cur ? env->hash : env->in->hash;
}

void
env_table_stats(const Env *env, uint64_t *lookups, uint64_t *hits)
{
	*lookups = env->lookups;
	*hits = env->hits;
}

void
env_times(const Env *env, EnvTimes *t)
{
	*t = env->times;
}

void
env_times_add(EnvTimes *a, const EnvTimes *b)
{
	a->reset += b->reset;
	a->pass += b->pass;
	a->objective += b->objective;
	a->hash += b->hash;
	a->observe += b->observe;
	a->steps += b->steps;
	a->passes += b->passes;
}
