/* search.c: pass-order search (search.h). random search with patience
 * (CompilerGym's random_search), greedy search (try every action from the
 * current state, keep the best, stop when none improves) and beam search
 * over the transposition table. Work is shared by N threads; whatever
 * they finish in, the result is assembled in a fixed order (episode
 * index; action id; frontier position) so it does not depend on N.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "search.h"

#define RANDOM_MAX_LEN 10000	/* random: episode length without
				 * --episode-len (patience ends them) */

static const char *const algonames[SEARCH_NALGO] = {
	"random", "greedy", "beam",
};

const char *
search_algo_name(int algo)
{
	return env_name_at(algonames, SEARCH_NALGO, algo);
}

int
search_algo_by_name(const char *name)
{
	return env_name_index(algonames, SEARCH_NALGO, name);
}

void
search_opts_default(SearchOpts *o)
{
	memset(o, 0, sizeof *o);
	o->seed = 1;
	o->jobs = 1;
	o->beam_width = 4;
}

void
search_result_free(SearchResult *r)
{
	int i;

	free(r->seq);
	for (i = 0; i < r->nlog; i++)
		free(r->log[i].seq);
	free(r->log);
	memset(r, 0, sizeof *r);
}

/* one episode of random search */
typedef struct {
	int done;		/* 1 complete, 0 not run, or cut by time or
				 * as not needed */
	int over;		/* its worker is done with it */
	int64_t steps;		/* so far, while a worker runs it */
	double best;
	int *seq, nseq;		/* the prefix reaching best */
} Episode;

/* what the workers share */
typedef struct {
	const HloModule *in;
	const SearchOpts *o;
	int nact;
	double t0, deadline;	/* env_now() seconds; deadline 0: none */
	atomic_llong steps;	/* steps done (progress, budget) */
	atomic_llong passes;	/* passes run */
	atomic_int stop;
	atomic_int running;	/* workers not finished */
	pthread_mutex_t mu;
	pthread_cond_t idle;	/* signalled when running reaches 0 */
	double best;		/* for progress, under mu */
	char warning[1200];	/* the first failure, under mu */
	/* random */
	Env *base;
	atomic_llong next;	/* next episode index */
	Episode *eps;		/* by index, under mu */
	int64_t neps, capeps;
	int64_t prefix_end;	/* episodes before it are all over, */
	int64_t prefix_sum;	/* and took this many steps; under mu */
	uint64_t lookups, hits;	/* summed by the workers, under mu */
	EnvTimes times;		/* likewise */
	/* greedy and beam: one task per (state, action) */
	atomic_llong task;
	int64_t ntasks;
	void *level;		/* the algorithm's state for the level */
} Shared;

static void
warn(Shared *sh, const char *fmt, const char *a, const char *b)
{
	pthread_mutex_lock(&sh->mu);
	if (!sh->warning[0])
		snprintf(sh->warning, sizeof sh->warning, fmt, a, b);
	pthread_mutex_unlock(&sh->mu);
}

static int
timeout(Shared *sh)
{
	if (sh->deadline > 0 && env_now() >= sh->deadline)
		atomic_store(&sh->stop, 1);
	return atomic_load(&sh->stop);
}

static void
progress(Shared *sh)
{
	SearchProgress p;
	const SearchOpts *o = sh->o;

	if (!o->progress)
		return;
	p.steps = atomic_load(&sh->steps);
	pthread_mutex_lock(&sh->mu);
	p.best = sh->best;
	pthread_mutex_unlock(&sh->mu);
	p.seconds = env_now() - sh->t0;
	p.fraction = -1;
	if (o->budget > 0)
		p.fraction = (double)p.steps / o->budget;
	if (o->seconds > 0 && p.seconds / o->seconds > p.fraction)
		p.fraction = p.seconds / o->seconds;
	if (p.fraction > 1)
		p.fraction = 1;
	o->progress(o->arg, &p);
}

/* runs fn on jobs threads (jobs 1: on this one); the calling thread
 * reports progress until they are all done */
static void
par_run(Shared *sh, void *(*fn)(void *))
{
	int n = sh->o->jobs > 0 ? sh->o->jobs : 1, i;
	pthread_t *t;
	struct timespec ts;
	double wake;

	atomic_store(&sh->running, n);
	if (n == 1 && !sh->o->progress && sh->deadline <= 0) {
		fn(sh);
		return;
	}
	t = xcalloc(n, sizeof *t);
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, fn, sh)) {
			fn(sh);	/* no thread: this one does the work */
			t[i] = 0;
		}
	pthread_mutex_lock(&sh->mu);
	while (atomic_load(&sh->running) > 0) {
		clock_gettime(CLOCK_REALTIME, &ts);
		wake = ts.tv_nsec / 1e9 + 0.2;
		if (sh->deadline > 0 && sh->deadline - env_now() < 0.2)
			wake = ts.tv_nsec / 1e9 + 0.01;
		ts.tv_sec += (time_t)wake;
		ts.tv_nsec = (long)((wake - (time_t)wake) * 1e9);
		pthread_cond_timedwait(&sh->idle, &sh->mu, &ts);
		if (atomic_load(&sh->running) > 0) {
			pthread_mutex_unlock(&sh->mu);
			timeout(sh);
			progress(sh);
			pthread_mutex_lock(&sh->mu);
		}
	}
	pthread_mutex_unlock(&sh->mu);
	for (i = 0; i < n; i++)
		if (t[i])
			pthread_join(t[i], NULL);
	free(t);
}

/* a worker's last act */
static void
worker_done(Shared *sh)
{
	pthread_mutex_lock(&sh->mu);
	if (atomic_fetch_sub(&sh->running, 1) == 1)
		pthread_cond_signal(&sh->idle);
	pthread_mutex_unlock(&sh->mu);
}

static int *
dupseq(const int *s, int n, int extra)
{
	int *d = xreallocarray(NULL, (size_t)n + extra + 1, sizeof *d);

	if (n)
		memcpy(d, s, n * sizeof *d);
	return d;
}

static void
addlog(SearchResult *r, int64_t steps, double best, const int *seq, int n)
{
	SearchImprovement *im;

	r->log = xreallocarray(r->log, r->nlog + 1, sizeof *r->log);
	im = &r->log[r->nlog++];
	im->steps = steps;
	im->best = best;
	im->seq = dupseq(seq, n, 0);
	im->nseq = n;
}

static void
setbest(SearchResult *r, double best, const int *seq, int n)
{
	free(r->seq);
	r->seq = dupseq(seq, n, 0);
	r->nseq = n;
	r->best = best;
}

/* random search */

/* eps[e], growing the array; under mu */
static Episode *
epslot(Shared *sh, int64_t e)
{
	if (e >= sh->capeps) {
		int64_t cap = sh->capeps ? sh->capeps : 256;

		while (cap <= e)
			cap *= 2;
		sh->eps = xreallocarray(sh->eps, cap, sizeof *sh->eps);
		memset(sh->eps + sh->capeps, 0, (cap - sh->capeps) *
			sizeof *sh->eps);
		sh->capeps = cap;
	}
	if (e >= sh->neps)
		sh->neps = e + 1;
	return &sh->eps[e];
}

static void
putepisode(Shared *sh, int64_t e, const Episode *ep)
{
	pthread_mutex_lock(&sh->mu);
	*epslot(sh, e) = *ep;
	sh->eps[e].over = 1;
	while (sh->prefix_end < sh->neps && sh->eps[sh->prefix_end].over)
		sh->prefix_sum += sh->eps[sh->prefix_end++].steps;
	if (ep->done && ep->best < sh->best)
		sh->best = ep->best;
	pthread_mutex_unlock(&sh->mu);
}

/* whether episode e, having run steps so far, is still needed: the
 * result counts episodes in index order until the budget is reached,
 * so e is not once the episodes before it (over, or their steps so far)
 * reach it. With one worker that is never so; with more, a worker that
 * would finish an episode nobody counts stops it and the search ends */
static int
needed(Shared *sh, int64_t e, int64_t steps)
{
	int64_t j, sum;

	if (sh->o->budget <= 0 || sh->o->jobs <= 1)
		return 1;
	pthread_mutex_lock(&sh->mu);
	epslot(sh, e)->steps = steps;
	sum = sh->prefix_sum;
	for (j = sh->prefix_end; j < e && sum < sh->o->budget; j++)
		sum += sh->eps[j].steps;
	pthread_mutex_unlock(&sh->mu);
	return sum < sh->o->budget;
}

static void
episode(Shared *sh, Env *env, int64_t e, Episode *ep)
{
	EnvInfo info;
	int a, n = 0, cap = 0, *seq = NULL;

	memset(ep, 0, sizeof *ep);
	env_seed(env, env_mix(sh->o->seed, (uint64_t)e));
	env_reset(env, NULL);
	ep->best = env_objective_initial(env);
	ep->done = 1;
	for (;;) {
		if ((ep->steps & 15) == 0 && (timeout(sh) ||
		    !needed(sh, e, ep->steps))) {
			ep->done = 0;
			break;
		}
		a = env_sample_action(env, NULL);
		ep->steps++;
		if (env_step(env, a, NULL, &info) < 0) {
			warn(sh, "%s: %s (random search)",
				env_action_name(env, a), env_error(env));
			break;
		}
		atomic_fetch_add(&sh->steps, 1);
		if (!info.cached)
			atomic_fetch_add(&sh->passes, 1);
		if (info.changed) {
			/* the sequence keeps the steps that changed the
			 * module: the others leave it as it was */
			if (n == cap) {
				cap = cap ? 2 * cap : 32;
				seq = xreallocarray(seq, cap, sizeof *seq);
			}
			seq[n++] = a;
		}
		if (info.objective < ep->best) {
			ep->best = info.objective;
			ep->nseq = n;
		}
		if (info.done)
			break;
	}
	ep->seq = dupseq(seq, ep->nseq, 0);
	free(seq);
}

static void *
random_worker(void *p)
{
	Shared *sh = p;
	Env *env = env_dup(sh->base);
	Episode ep;
	int64_t e;
	uint64_t lk, hits;
	EnvTimes tm;

	for (;;) {
		if (atomic_load(&sh->stop))
			break;
		if (sh->o->budget > 0 && atomic_load(&sh->steps) >=
		    sh->o->budget)
			break;
		e = atomic_fetch_add(&sh->next, 1);
		episode(sh, env, e, &ep);
		putepisode(sh, e, &ep);
		if (!ep.done)
			break;
	}
	env_table_stats(env, &lk, &hits);
	env_times(env, &tm);
	pthread_mutex_lock(&sh->mu);
	sh->lookups += lk;
	sh->hits += hits;
	env_times_add(&sh->times, &tm);
	pthread_mutex_unlock(&sh->mu);
	env_free(env);
	worker_done(sh);
	return NULL;
}

/* the result from the episodes in index order: complete episodes from 0
 * until the budget is reached, the best the first to reach it */
static void
random_result(Shared *sh, SearchResult *r)
{
	int64_t e, cum = 0;
	Episode *ep;

	for (e = 0; e < sh->neps; e++) {
		ep = &sh->eps[e];
		if (!ep->done || (sh->o->budget > 0 && cum >= sh->o->budget))
			break;
		if (ep->best < r->best) {
			setbest(r, ep->best, ep->seq, ep->nseq);
			addlog(r, cum + ep->nseq, ep->best, ep->seq,
				ep->nseq);
			snprintf(r->found_by, sizeof r->found_by,
				"random: episode %lld, step %d",
				(long long)e + 1, ep->nseq);
		}
		cum += ep->steps;
	}
	r->steps = cum;
	for (e = 0; e < sh->neps; e++)
		free(sh->eps[e].seq);
	free(sh->eps);
}

static void
run_random(Shared *sh, SearchResult *r)
{
	EnvOpts eo;

	env_opts_default(&eo);
	eo.objective = sh->o->objective;
	eo.episode_len = sh->o->episode_len > 0 ? sh->o->episode_len :
		RANDOM_MAX_LEN;
	eo.patience = sh->o->patience > 0 ? sh->o->patience :
		(sh->nact * 5 + 3) / 4;
	sh->base = env_create_module(hlo_module_clone(sh->in), &eo);
	par_run(sh, random_worker);
	random_result(sh, r);
	r->lookups = sh->lookups;
	r->hits = sh->hits;
	env_free(sh->base);
}

/* greedy and beam: levels of tasks (state i, action a); a worker applies
 * a to its own clone of state i and clones again only when the pass
 * changed it */

typedef struct {
	HloModule *m;
	int *seq, nseq;
	double obj;
	uint64_t hash;
	int parent, action;	/* the key after obj, for a total order */
} Node;

typedef struct {
	Node *front;		/* the states expanded at this level */
	int nfront;
	Node *keep;		/* the best children, sorted, at most width */
	int nkeep, width;
	uint64_t *seen;		/* set of hashes of earlier levels */
	uint32_t capseen, nseen;
	uint64_t *fresh;	/* hashes of this level's children */
	int64_t nfresh, capfresh;
	int dedup;		/* beam: skip seen states, merge duplicates */
} Level;

static int
nodeless(const Node *a, const Node *b)
{
	if (a->obj != b->obj)
		return a->obj < b->obj;
	if (a->parent != b->parent)
		return a->parent < b->parent;
	return a->action < b->action;
}

static int
seen_has(const Level *lv, uint64_t h)
{
	uint32_t i;

	if (!lv->capseen)
		return 0;
	for (i = (uint32_t)h & (lv->capseen - 1); lv->seen[i];
	     i = (i + 1) & (lv->capseen - 1))
		if (lv->seen[i] == h)
			return 1;
	return 0;
}

static void
seen_add(Level *lv, uint64_t h)
{
	uint64_t *old = lv->seen;
	uint32_t oc = lv->capseen, i;

	if (seen_has(lv, h))
		return;
	if (2 * (lv->nseen + 1) > lv->capseen) {
		lv->capseen = oc ? 2 * oc : 1024;
		lv->seen = xcalloc(lv->capseen, sizeof *lv->seen);
		lv->nseen = 0;
		for (i = 0; i < oc; i++)
			if (old[i])
				seen_add(lv, old[i]);
		free(old);
	}
	for (i = (uint32_t)h & (lv->capseen - 1); lv->seen[i];
	     i = (i + 1) & (lv->capseen - 1))
		;
	lv->seen[i] = h;
	lv->nseen++;
}

static void
node_free(Node *n)
{
	hlo_module_free(n->m);
	free(n->seq);
	memset(n, 0, sizeof *n);
}

/* offers child c (owned) to the kept set; under sh->mu */
static void
keep_offer(Level *lv, Node *c)
{
	int i, j;

	if (lv->dedup) {
		for (i = 0; i < lv->nkeep; i++) {
			if (lv->keep[i].hash != c->hash)
				continue;
			if (!nodeless(c, &lv->keep[i])) {
				node_free(c);
				return;
			}
			node_free(&lv->keep[i]);
			memmove(lv->keep + i, lv->keep + i + 1,
				(lv->nkeep - i - 1) * sizeof *lv->keep);
			lv->nkeep--;
			break;
		}
	}
	if (lv->nkeep == lv->width) {
		if (!nodeless(c, &lv->keep[lv->nkeep - 1])) {
			node_free(c);
			return;
		}
		node_free(&lv->keep[--lv->nkeep]);
	}
	for (i = lv->nkeep; i > 0 && nodeless(c, &lv->keep[i - 1]); i--)
		;
	for (j = lv->nkeep; j > i; j--)
		lv->keep[j] = lv->keep[j - 1];
	lv->keep[i] = *c;
	lv->nkeep++;
}

static void
child(Shared *sh, Level *lv, int i, int a, HloModule *w, EnvTimes *tm)
{
	Node c;
	double obj, t0 = env_now(), t1;
	HloError e;
	uint64_t h = 0;

	if (env_module_objective(w, sh->o->objective, &obj, &e) < 0) {
		warn(sh, "after %s: %s", hlo_passes[a].name, e.msg);
		hlo_module_free(w);
		return;
	}
	t1 = env_now();
	tm->objective += t1 - t0;
	if (lv->dedup)
		h = env_hash_frozen(w, sh->in->nbytes);
	tm->hash += env_now() - t1;
	pthread_mutex_lock(&sh->mu);
	if (lv->dedup) {
		if (lv->nfresh == lv->capfresh) {
			lv->capfresh = lv->capfresh ? 2 * lv->capfresh : 256;
			lv->fresh = xreallocarray(lv->fresh, lv->capfresh,
				sizeof *lv->fresh);
		}
		lv->fresh[lv->nfresh++] = h;
	}
	if (lv->dedup && seen_has(lv, h)) {
		pthread_mutex_unlock(&sh->mu);
		hlo_module_free(w);
		return;
	}
	if (obj < sh->best)
		sh->best = obj;
	c.m = w;
	c.obj = obj;
	c.hash = h;
	c.parent = i;
	c.action = a;
	c.seq = dupseq(lv->front[i].seq, lv->front[i].nseq, 1);
	c.seq[lv->front[i].nseq] = a;
	c.nseq = lv->front[i].nseq + 1;
	keep_offer(lv, &c);
	pthread_mutex_unlock(&sh->mu);
}

static void *
level_worker(void *p)
{
	Shared *sh = p;
	Level *lv = sh->level;
	PassCtx ctx;
	HloModule *w = NULL;
	int wi = -1, i, a, r;
	int64_t t;
	EnvTimes tm;
	double t0;

	memset(&tm, 0, sizeof tm);
	pass_ctx_init(&ctx);
	ctx.threads = 1;	/* the workers are the parallelism */
	while (!timeout(sh) && (t = atomic_fetch_add(&sh->task, 1)) <
	    sh->ntasks) {
		i = (int)(t / sh->nact);
		a = (int)(t % sh->nact);
		if (wi != i) {
			hlo_module_free(w);
			w = NULL;
			wi = i;
		}
		t0 = env_now();
		if (!w)
			w = hlo_module_clone(lv->front[i].m);
		tm.reset += env_now() - t0;
		t0 = env_now();
		r = pass_run(w, a, &ctx, NULL);
		tm.pass += env_now() - t0;
		tm.steps++;
		tm.passes++;
		atomic_fetch_add(&sh->steps, 1);
		atomic_fetch_add(&sh->passes, 1);
		if (r < 0) {
			warn(sh, "%s: %s", hlo_passes[a].name, ctx.err.msg);
			hlo_module_free(w);
			w = NULL;
		} else if (r > 0) {
			child(sh, lv, i, a, w, &tm);
			w = NULL;
		}
	}
	hlo_module_free(w);
	pass_ctx_free(&ctx);
	pthread_mutex_lock(&sh->mu);
	env_times_add(&sh->times, &tm);
	pthread_mutex_unlock(&sh->mu);
	worker_done(sh);
	return NULL;
}

/* greedy (width 1, no deduplication, stop when the best child does not
 * improve) and beam (width K over unseen states) */
static void
run_levels(Shared *sh, SearchResult *r, int beam)
{
	const SearchOpts *o = sh->o;
	Level lv;
	int depth = 0, stale = 0, i, k, patience;
	int64_t steps = 0;
	uint32_t before;

	memset(&lv, 0, sizeof lv);
	lv.width = beam ? (o->beam_width > 0 ? o->beam_width : 4) : 1;
	lv.dedup = beam;
	patience = beam ? (o->patience > 0 ? o->patience : 5) : 0;
	lv.front = xcalloc(1, sizeof *lv.front);
	lv.front[0].m = hlo_module_clone(sh->in);
	env_trim(lv.front[0].m);
	lv.front[0].obj = r->initial;
	lv.front[0].seq = dupseq(NULL, 0, 0);
	lv.nfront = 1;
	lv.keep = xcalloc(lv.width + 1, sizeof *lv.keep);
	if (beam)
		seen_add(&lv, env_hash_frozen(sh->in, sh->in->nbytes));
	sh->level = &lv;
	for (;;) {
		if (lv.nfront == 0 || timeout(sh) ||
		    (o->budget > 0 && steps >= o->budget) ||
		    (o->episode_len > 0 && depth >= o->episode_len) ||
		    (patience && stale >= patience))
			break;
		sh->ntasks = (int64_t)lv.nfront * sh->nact;
		atomic_store(&sh->task, 0);
		lv.nkeep = 0;
		lv.nfresh = 0;
		par_run(sh, level_worker);
		if (atomic_load(&sh->stop)) {
			for (k = 0; k < lv.nkeep; k++)
				node_free(&lv.keep[k]);
			break;	/* an incomplete level counts for nothing */
		}
		steps += sh->ntasks;
		depth++;
		before = lv.nseen;
		for (k = 0; k < lv.nfresh; k++)
			seen_add(&lv, lv.fresh[k]);
		r->lookups += lv.nfresh;
		r->hits += lv.nfresh - (lv.nseen - before);
		for (i = 0; i < lv.nfront; i++)
			node_free(&lv.front[i]);
		if (!beam && (lv.nkeep == 0 || lv.keep[0].obj >= r->best)) {
			for (k = 0; k < lv.nkeep; k++)
				node_free(&lv.keep[k]);
			lv.nfront = 0;
			break;
		}
		if (lv.nkeep && lv.keep[0].obj < r->best) {
			setbest(r, lv.keep[0].obj, lv.keep[0].seq,
				lv.keep[0].nseq);
			addlog(r, steps, r->best, r->seq, r->nseq);
			snprintf(r->found_by, sizeof r->found_by,
				"%s: depth %d", beam ? "beam" : "greedy",
				depth);
			stale = 0;
		} else {
			stale++;
		}
		lv.front = xreallocarray(lv.front, lv.width + 1,
			sizeof *lv.front);
		memcpy(lv.front, lv.keep, lv.nkeep * sizeof *lv.keep);
		lv.nfront = lv.nkeep;
		for (i = 0; i < lv.nfront; i++)
			env_trim(lv.front[i].m);	/* cloned once per
						 * action that changes it */
	}
	r->steps = steps;
	for (i = 0; i < lv.nfront; i++)
		node_free(&lv.front[i]);
	free(lv.front);
	free(lv.keep);
	free(lv.seen);
	free(lv.fresh);
}

int
search_run(const HloModule *in, const SearchOpts *o, SearchResult *r,
	HloError *e)
{
	Shared sh;

	memset(r, 0, sizeof *r);
	if (env_module_objective(in, o->objective, &r->initial, e) < 0)
		return -1;
	r->best = r->initial;
	snprintf(r->found_by, sizeof r->found_by, "nothing: no sequence "
		"improves on the input");
	memset(&sh, 0, sizeof sh);
	sh.in = in;
	sh.o = o;
	sh.nact = PASS_COUNT;
	sh.t0 = env_now();
	sh.deadline = o->seconds > 0 ? sh.t0 + o->seconds : 0;
	sh.best = r->initial;
	pthread_mutex_init(&sh.mu, NULL);
	pthread_cond_init(&sh.idle, NULL);
	if (o->algo == SEARCH_RANDOM)
		run_random(&sh, r);
	else
		run_levels(&sh, r, o->algo == SEARCH_BEAM);
	r->passes_run = atomic_load(&sh.passes);
	r->times = sh.times;
	r->seconds = env_now() - sh.t0;
	memcpy(r->warning, sh.warning, sizeof r->warning);
	pthread_mutex_destroy(&sh.mu);
	pthread_cond_destroy(&sh.idle);
	if (!r->seq)
		r->seq = dupseq(NULL, 0, 0);
	return 0;
}

int
search_replay(const HloModule *in, const int *seq, int n, int objective,
	double *value, HloModule **out, PassLog *log, HloError *e)
{
	HloModule *m = hlo_module_clone(in);
	PassCtx ctx;
	int i;

	pass_ctx_init(&ctx);
	if (log)
		ctx.flags = PASS_NAMES;
	for (i = 0; i < n; i++) {
		if (pass_run(m, seq[i], &ctx, log) < 0) {
			hlo_err(e, "%s", ctx.err.msg);
			goto fail;
		}
	}
	pass_ctx_free(&ctx);
	if (env_module_objective(m, objective, value, e) < 0) {
		hlo_module_free(m);
		return -1;
	}
	if (out)
		*out = m;
	else
		hlo_module_free(m);
	return 0;
fail:
	pass_ctx_free(&ctx);
	hlo_module_free(m);
	return -1;
}
