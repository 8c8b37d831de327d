/* policy.c: a trained policy: building its networks from the
 * hyperparameters, acting, rolling out an episode, and the policy file.
 *
 * Policy file, format version 1. Every integer is unsigned little-endian,
 * every real an IEEE-754 binary64 stored little-endian, every string a
 * u32 byte count then the bytes (no NUL):
 *   magic        8 bytes "HLOPTPOL"
 *   version      u32 (1)
 *   algo         u32 (0 ppo, 1 a2c, 2 dqn)
 *   nobs         u32 observation length
 *   obs_version  u32 the environment's observation layout version
 *   nact         u32, then nact strings: the action names in action order
 *   nhyper       u32, then nhyper pairs of strings: a hyperparameter's
 *                flag (params.def, or "total-steps") and its value as
 *                text (reals printed with %.17g, so they read back
 *                exactly); "env" holds the environment's settings
 *                (episode length, objective, ...) as the driver wrote them;
 *                unknown names are skipped
 *   nnets        u32, then per network: u32 activation (0 tanh, 1 relu),
 *                u32 layers L, L + 1 u32 sizes (input first)
 *   nparams      u64, then nparams reals: per network in order, per layer
 *                the weights (out x in, row-major) then the out biases
 *   crc          u32 CRC-32 (ISO-HDLC, as zlib) of every byte before it
 * A reader refuses another magic, a newer version, a bad CRC, networks that
 * the hyperparameters do not describe, and (rl_policy_check) an
 * environment whose actions or observation layout differ. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rl.h"
#include "vec.h"

#define POL_MAGIC "HLOPTPOL"
#define POL_VERSION 1

/* the networks' shapes and gains from the hyperparameters */
static int
policy_nets(RlPolicy *pol, int *sizes, int *nl, double *gain_out,
	RlError *e)
{
	const RlParams *p = &pol->params;
	const char *arch[2];
	int k, n, outs[2];

	if (pol->algo == RL_DQN) {
		pol->nnets = 1;
		arch[0] = p->q_arch;
		outs[0] = pol->nact;
		gain_out[0] = 1;
	} else {
		pol->nnets = 2;
		arch[0] = p->pi_arch;
		arch[1] = p->vf_arch;
		outs[0] = pol->nact;
		outs[1] = 1;
		gain_out[0] = 0.01;
		gain_out[1] = 1;
	}
	for (k = 0; k < pol->nnets; k++) {
		sizes[k * (RL_MAXLAYERS + 1)] = pol->nobs;
		if (rl_arch_parse(arch[k], sizes + k * (RL_MAXLAYERS + 1) + 1,
		    &n, e) < 0)
			return -1;
		sizes[k * (RL_MAXLAYERS + 1) + n + 1] = outs[k];
		nl[k] = n + 1;
	}
	return 0;
}

RlPolicy *
rl_policy_new(const RlParams *p, int nobs, int nact, size_t maxbatch,
	gsl_rng *r, RlError *e)
{
	int sizes[2 * (RL_MAXLAYERS + 1)], nl[2], k, act;
	double gain_out[2];
	size_t off = 0;
	RlPolicy *pol;

	if (rl_params_check(p, nobs, nact, e) < 0)
		return NULL;
	if (!(pol = rl_alloc(1, sizeof *pol, e)))
		return NULL;
	pol->algo = p->algo;
	pol->params = *p;
	pol->nobs = nobs;
	pol->nact = nact;
	act = rl_act_parse(p->activation);
	if (policy_nets(pol, sizes, nl, gain_out, e) < 0)
		goto fail;
	for (k = 0; k < pol->nnets; k++)
		pol->nparams += rl_mlp_count(nl[k], sizes + k *
			(RL_MAXLAYERS + 1));
	pol->theta = rl_alloc(pol->nparams, sizeof *pol->theta, e);
	pol->grad = pol->theta ? rl_alloc(pol->nparams, sizeof *pol->grad,
		e) : NULL;
	pol->logp = pol->grad ? rl_alloc(nact, sizeof *pol->logp, e) : NULL;
	if (!pol->logp)
		goto fail;
	if (!(pol->x1 = gsl_matrix_calloc(1, nobs))) {
		rl_err(e, "error: out of memory");
		goto fail;
	}
	for (k = 0; k < pol->nnets; k++) {
		if (rl_mlp_init(&pol->net[k], nl[k], sizes + k *
		    (RL_MAXLAYERS + 1), act, maxbatch, pol->theta + off,
		    pol->grad + off, e) < 0)
			goto fail;
		off += pol->net[k].nparams;
		if (r && rl_mlp_orthogonal(&pol->net[k], sqrt(2), gain_out[k],
		    r, e) < 0)
			goto fail;
	}
	return pol;
fail:
	rl_policy_free(pol);
	return NULL;
}

void
rl_policy_free(RlPolicy *pol)
{
	int k;

	if (!pol)
		return;
	for (k = 0; k < 2; k++)
		rl_mlp_free(&pol->net[k]);
	if (pol->names)
		for (k = 0; k < pol->nact; k++)
			free(pol->names[k]);
	free(pol->names);
	free(pol->theta);
	free(pol->grad);
	free(pol->logp);
	if (pol->x1)
		gsl_matrix_free(pol->x1);
	free(pol);
}

static char *
dupstr(const char *s, size_t n, RlError *e)
{
	char *d = rl_alloc(n + 1, 1, e);

	if (d)
		memcpy(d, s, n);
	return d;
}

int
rl_policy_name(RlPolicy *pol, const RlEnv *env, RlError *e)
{
	int k;

	if (env->nact != pol->nact || env->nobs != pol->nobs)
		return rl_err(e, "error: the environment does not fit the "
			"policy's shape");
	if (!pol->names && !(pol->names = rl_alloc(pol->nact,
	    sizeof *pol->names, e)))
		return -1;
	for (k = 0; k < pol->nact; k++) {
		free(pol->names[k]);
		pol->names[k] = dupstr(env->names ? env->names[k] : "",
			env->names ? strlen(env->names[k]) : 0, e);
		if (!pol->names[k])
			return -1;
	}
	pol->obs_version = env->obs_version;
	return 0;
}

int
rl_policy_act(RlPolicy *pol, const double *obs, const unsigned char *mask,
	int greedy, gsl_rng *r, int *action, RlError *e)
{
	gsl_matrix_view out;
	const double *z;

	memcpy(pol->x1->data, obs, pol->nobs * sizeof *obs);
	if (rl_mlp_forward(&pol->net[0], pol->x1, &out, e) < 0)
		return -1;
	z = gsl_matrix_const_ptr(&out.matrix, 0, 0);
	if (!greedy && pol->algo == RL_DQN && gsl_rng_uniform(r) <
	    pol->params.exploration_final_eps)
		*action = rl_random_valid(mask, pol->nact, r);
	else if (greedy || pol->algo == RL_DQN)
		*action = rl_argmax(z, mask, pol->nact);
	else if (rl_log_softmax(z, mask, pol->nact, pol->logp) < 0)
		*action = -1;
	else
		*action = rl_sample(pol->logp, pol->nact, r);
	if (*action < 0)
		return rl_err(e, "error: no valid action");
	return 0;
}

int
rl_rollout(RlPolicy *pol, RlEnv *env, uint64_t seed, int greedy,
	long maxsteps, gsl_rng *r, double *ret, long *steps, RlError *e)
{
	double *obs = rl_alloc(env->nobs, sizeof *obs, e);
	unsigned char *mask = rl_alloc(env->nact, 1, e);
	RlStep st = {0};
	int a, rc = -1;

	*ret = 0;
	*steps = 0;
	if (!obs || !mask)
		goto out;
	memset(mask, 1, env->nact);
	if (env->reset(env->ctx, seed, obs, e) < 0)
		goto out;
	while (*steps < maxsteps) {
		if (env->mask)
			env->mask(env->ctx, mask);
		if (rl_policy_act(pol, obs, mask, greedy, r, &a, e) < 0 ||
		    env->step(env->ctx, a, obs, &st, e) < 0)
			goto out;
		if (env->after)
			env->after(env->ctx);
		*ret += st.reward;
		++*steps;
		if (st.done || st.truncated)
			break;
	}
	rc = 0;
out:
	free(obs);
	free(mask);
	return rc;
}

/* writing: a growing byte buffer */
typedef struct {
	unsigned char *b;
	size_t n, cap;
	int oom;
} Out;

static void
put(Out *o, const void *p, size_t n)
{
	unsigned char *nb;
	size_t cap;

	if (o->oom)
		return;
	if (o->n + n > o->cap) {
		cap = o->cap ? o->cap : 4096;
		while (cap < o->n + n)
			cap *= 2;
		if (!(nb = realloc(o->b, cap))) {
			o->oom = 1;
			return;
		}
		o->b = nb;
		o->cap = cap;
	}
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void
put_u32(Out *o, uint32_t v)
{
	unsigned char b[4] = {v, v >> 8, v >> 16, v >> 24};

	put(o, b, 4);
}

static void
put_u64(Out *o, uint64_t v)
{
	put_u32(o, (uint32_t)v);
	put_u32(o, (uint32_t)(v >> 32));
}

static void
put_f64(Out *o, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof v);
	put_u64(o, v);
}

static void
put_str(Out *o, const char *s)
{
	put_u32(o, (uint32_t)strlen(s));
	put(o, s, strlen(s));
}

static uint32_t
crc32(const unsigned char *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	int k;

	while (n--) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0xedb88320u : c >> 1;
	}
	return c ^ 0xffffffffu;
}

static int
write_all(const char *path, const unsigned char *b, size_t n, RlError *e)
{
	size_t len = strlen(path) + 16;
	char *tmp = rl_alloc(len, 1, e);
	FILE *f;
	int bad;

	if (!tmp)
		return -1;
	snprintf(tmp, len, "%s.tmp", path);
	if (!(f = fopen(tmp, "wb"))) {
		rl_err(e, "%s: error: cannot write", tmp);
		free(tmp);
		return -1;
	}
	bad = fwrite(b, 1, n, f) != n;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) != 0) {
		remove(tmp);
		rl_err(e, "%s: error: cannot write", path);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

int
rl_policy_save(const RlPolicy *pol, const char *path, RlError *e)
{
	Out o = {0};
	char val[64];
	uint32_t nh = 2;
	size_t i;
	int k, l, rc;

	put(&o, POL_MAGIC, 8);
	put_u32(&o, POL_VERSION);
	put_u32(&o, pol->algo);
	put_u32(&o, pol->nobs);
	put_u32(&o, pol->obs_version);
	put_u32(&o, pol->nact);
	for (k = 0; k < pol->nact; k++)
		put_str(&o, pol->names ? pol->names[k] : "");
	for (i = 0; i < rl_nparam; i++)
		nh += rl_param_applies(i, pol->algo);
	put_u32(&o, nh);
	put_str(&o, "total-steps");
	snprintf(val, sizeof val, "%ld", pol->params.total_steps);
	put_str(&o, val);
	put_str(&o, "env");
	put_str(&o, pol->env);
	for (i = 0; i < rl_nparam; i++) {
		if (!rl_param_applies(i, pol->algo))
			continue;
		put_str(&o, rl_param_info[i].flag);
		rl_param_format(&pol->params, i, val, sizeof val);
		put_str(&o, val);
	}
	put_u32(&o, pol->nnets);
	for (k = 0; k < pol->nnets; k++) {
		put_u32(&o, pol->net[k].act);
		put_u32(&o, pol->net[k].nlayers);
		for (l = 0; l <= pol->net[k].nlayers; l++)
			put_u32(&o, pol->net[k].sizes[l]);
	}
	put_u64(&o, pol->nparams);
	for (i = 0; i < pol->nparams; i++)
		put_f64(&o, pol->theta[i]);
	if (!o.oom)
		put_u32(&o, crc32(o.b, o.n));
	if (o.oom) {
		free(o.b);
		return rl_err(e, "%s: error: out of memory", path);
	}
	rc = write_all(path, o.b, o.n, e);
	free(o.b);
	return rc;
}

/* reading: bounds-checked */
typedef struct {
	const unsigned char *b;
	size_t n, at;
	int bad;
} In;

static const unsigned char *
take(In *in, size_t n)
{
	const unsigned char *p;

	if (in->bad || n > in->n - in->at) {
		in->bad = 1;
		return NULL;
	}
	p = in->b + in->at;
	in->at += n;
	return p;
}

static uint32_t
get_u32(In *in)
{
	const unsigned char *p = take(in, 4);

	return p ? p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		(uint32_t)p[3] << 24 : 0;
}

static uint64_t
get_u64(In *in)
{
	uint64_t lo = get_u32(in);

	return lo | (uint64_t)get_u32(in) << 32;
}

static double
get_f64(In *in)
{
	uint64_t v = get_u64(in);
	double d;

	memcpy(&d, &v, sizeof d);
	return d;
}

/* a string into buf (n bytes, NUL added); -1 if too long or truncated */
static int
get_str(In *in, char *buf, size_t n)
{
	uint32_t len = get_u32(in);
	const unsigned char *p;

	if (in->bad || len >= n || !(p = take(in, len)))
		return in->bad = 1, -1;
	memcpy(buf, p, len);
	buf[len] = 0;
	return 0;
}

static int
read_file(const char *path, unsigned char **b, size_t *n, RlError *e)
{
	FILE *f = fopen(path, "rb");
	unsigned char *nb;
	size_t cap = 0, got;

	*b = NULL;
	*n = 0;
	if (!f)
		return rl_err(e, "%s: error: cannot open", path);
	for (;;) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 1 << 16;
			if (!(nb = realloc(*b, cap))) {
				fclose(f);
				return rl_err(e, "%s: error: out of memory",
					path);
			}
			*b = nb;
		}
		got = fread(*b + *n, 1, cap - *n, f);
		*n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		fclose(f);
		return rl_err(e, "%s: error: read failed", path);
	}
	fclose(f);
	return 0;
}

/* the header up to the networks: algorithm, shape, names, parameters */
static RlPolicy *
load_head(In *in, const char *path, RlError *e)
{
	RlParams p;
	char flag[64], val[256], envs[160] = "", **names = NULL;
	uint32_t algo, nobs, ver, nact, nh, k;
	RlPolicy *pol = NULL;
	int i;

	algo = get_u32(in);
	nobs = get_u32(in);
	ver = get_u32(in);
	nact = get_u32(in);
	if (in->bad || algo >= RL_NALGO || nobs < 1 || nobs > 1 << 20 ||
	    nact < 1 || nact > 1 << 16) {
		rl_err(e, "%s: error: corrupt policy header", path);
		return NULL;
	}
	if (!(names = rl_alloc(nact, sizeof *names, e)))
		return NULL;
	for (k = 0; k < nact; k++)
		if (get_str(in, val, sizeof val) < 0 ||
		    !(names[k] = dupstr(val, strlen(val), e)))
			goto fail;
	rl_params_default(&p, algo);
	nh = get_u32(in);
	for (k = 0; k < nh && !in->bad; k++) {
		if (get_str(in, flag, sizeof flag) < 0 ||
		    get_str(in, val, sizeof val) < 0)
			break;
		if (!strcmp(flag, "total-steps")) {
			p.total_steps = atol(val);
			continue;
		}
		if (!strcmp(flag, "env")) {
			snprintf(envs, sizeof envs, "%s", val);
			continue;
		}
		if ((i = rl_param_find(flag)) < 0)
			continue;	/* a later hlopt's parameter */
		if (rl_param_set(&p, i, val, e) < 0)
			goto fail;
	}
	if (in->bad) {
		rl_err(e, "%s: error: truncated policy", path);
		goto fail;
	}
	if (!(pol = rl_policy_new(&p, nobs, nact, 1, NULL, e)))
		goto fail;
	pol->names = names;
	pol->obs_version = ver;
	memcpy(pol->env, envs, sizeof envs);
	return pol;
fail:
	for (k = 0; k < nact; k++)
		free(names[k]);
	free(names);
	if (!strstr(e->msg, path)) {
		RlError inner = *e;

		rl_err(e, "%s: %.400s", path, inner.msg);
	}
	return NULL;
}

/* the recorded networks must be those the hyperparameters build */
static int
load_nets(In *in, RlPolicy *pol, const char *path, RlError *e)
{
	uint32_t nn = get_u32(in), k, l, nl;
	size_t i;

	if (nn != (uint32_t)pol->nnets)
		goto bad;
	for (k = 0; k < nn; k++) {
		if (get_u32(in) != (uint32_t)pol->net[k].act)
			goto bad;
		nl = get_u32(in);
		if (nl != (uint32_t)pol->net[k].nlayers)
			goto bad;
		for (l = 0; l <= nl; l++)
			if (get_u32(in) != (uint32_t)pol->net[k].sizes[l])
				goto bad;
	}
	if (get_u64(in) != pol->nparams)
		goto bad;
	for (i = 0; i < pol->nparams; i++) {
		pol->theta[i] = get_f64(in);
		if (!isfinite(pol->theta[i]) && !in->bad)
			return rl_err(e, "%s: error: weight %zu is not "
				"finite", path, i);
	}
	if (in->bad)
		return rl_err(e, "%s: error: truncated policy", path);
	return 0;
bad:
	return rl_err(e, "%s: error: the policy's networks do not match its "
		"hyperparameters", path);
}

RlPolicy *
rl_policy_load(const char *path, RlError *e)
{
	unsigned char *b;
	size_t n;
	In in;
	uint32_t ver;
	RlPolicy *pol = NULL;

	if (read_file(path, &b, &n, e) < 0)
		return NULL;
	in = (In){b, n, 0, 0};
	if (n < 12 || memcmp(b, POL_MAGIC, 8)) {
		rl_err(e, "%s: error: not an hlopt policy file", path);
		goto out;
	}
	if (crc32(b, n - 4) != (in.at = n - 4, get_u32(&in))) {
		rl_err(e, "%s: error: policy file damaged (CRC mismatch)",
			path);
		goto out;
	}
	in = (In){b, n - 4, 8, 0};
	if ((ver = get_u32(&in)) != POL_VERSION) {
		rl_err(e, "%s: error: policy format version %u; this hlopt "
			"reads version %d", path, ver, POL_VERSION);
		goto out;
	}
	if (!(pol = load_head(&in, path, e)))
		goto out;
	if (load_nets(&in, pol, path, e) < 0 || (in.at != in.n &&
	    rl_err(e, "%s: error: trailing bytes in policy", path))) {
		rl_policy_free(pol);
		pol = NULL;
	}
out:
	free(b);
	return pol;
}

int
rl_policy_check(const RlPolicy *pol, const RlEnv *env, RlError *e)
{
	const char *pn, *en;
	int k;

	if (pol->obs_version != env->obs_version || pol->nobs != env->nobs)
		return rl_err(e, "error: the policy was trained on observation "
			"layout version %u of %d values; this environment has "
			"version %u of %d values", pol->obs_version, pol->nobs,
			env->obs_version, env->nobs);
	if (pol->nact != env->nact)
		return rl_err(e, "error: the policy was trained for %d actions; "
			"this environment has %d", pol->nact, env->nact);
	for (k = 0; k < pol->nact; k++) {
		pn = pol->names ? pol->names[k] : "";
		en = env->names ? env->names[k] : "";
		if (strcmp(pn, en))
			return rl_err(e, "error: action %d is '%s' in the policy "
				"but '%s' here: the action sets differ", k, pn,
				en);
	}
	return 0;
}
