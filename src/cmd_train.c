/* cmd_train.c: the RL agents in the driver (see cmd_rl.h). hlopt train
 * --algo ppo|dqn|a2c GRAPHS... -o POLICY trains one policy over many
 * modules and saves it; the flags shared with hlopt search --algo
 * ppo|dqn|a2c (every hyperparameter, --shaping, --last-k, the learning
 * curve and its plot); the search hook; hlopt optimize --policy's
 * sequence. */
#include <argtable2.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hlo.h"
#include "cmd.h"
#include "cmd_rl.h"
#include "envi.h"
#include "eval.h"

#define TRAIN_BUDGET 20000
#define AGENT_LEN (2 * PASS_COUNT)	/* the agents' episodes: twice the
					 * passes (random search's run longer
					 * than the number of passes too) */
#define AGENT_PATIENCE 30	/* the agents' episodes end after this many
				 * steps without a better objective: at a
				 * few thousand steps, long episodes spent
				 * most of the budget far from the input
				 * after the useful passes (bench-agents) */
#define RL_SEARCH_BUDGET_NONE 1000000	/* --time alone: the schedules'
					 * budget */

static const char *const type_hint[] = {"N", "X", "S"};

void **
cmd_rl_table(CmdRl *c, void **base, int nbase, const char *curve, int *n)
{
	size_t i;
	int k = 0;

	memset(c, 0, sizeof *c);
	rl_gsl_quiet();		/* GSL reports by status; src/rl checks */
	c->param = xcalloc(rl_nparam, sizeof *c->param);
	c->table = xcalloc(nbase + rl_nparam + 4, sizeof *c->table);
	for (k = 0; k < nbase - 1; k++)
		c->table[k] = base[k];
	for (i = 0; i < rl_nparam; i++)
		c->table[k++] = c->param[i] = arg_str0(NULL,
			rl_param_info[i].flag, type_hint[rl_param_info[i].type],
			rl_param_info[i].help);
	c->table[k++] = c->shaping = arg_lit0(NULL, "shaping", "potential-"
		"based reward shaping, phi = -(FLOPs + 2 x transcendentals)");
	c->table[k++] = c->lastk = arg_int0(NULL, "last-k", "K", "the last K "
		"actions in the observation (default 0)");
	c->table[k++] = c->curve = arg_str0(NULL, curve, "FILE.csv",
		"learning curve: one row per update");
	c->table[k++] = c->plot = arg_str0(NULL, "plot", "FILE.svg",
		"learning curve as an SVG chart");
	c->table[k++] = base[nbase - 1];
	c->ntable = k;
	*n = k;
	return c->table;
}

void
cmd_rl_free(CmdRl *c)
{
	free(c->param);
	free(c->table);
	if (c->ran)
		rl_run_free(&c->run);
	c->param = NULL;
	c->table = NULL;
	c->ran = 0;
}

int
cmd_rl_setup(CmdRl *c, int algo, int *status)
{
	RlError e;
	size_t i;

	c->algo = algo;
	if (algo < 0) {		/* a search without an agent: no agent flag */
		for (i = 0; i < rl_nparam && !c->param[i]->count; i++)
			;
		if (i == rl_nparam && !c->shaping->count && !c->lastk->count &&
		    !c->curve->count && !c->plot->count)
			return 0;
		cmd_usage("--%s applies to --algo ppo, dqn or a2c only",
			i < rl_nparam ?
			rl_param_info[i].flag : c->shaping->count ? "shaping" :
			c->lastk->count ? "last-k" : c->curve->count ?
			c->curve->hdr.longopts : "plot");
		goto usage;
	}
	rl_run_opts_default(&c->ro, algo);
	env_opts_default(&c->eo);
	for (i = 0; i < rl_nparam; i++) {
		if (!c->param[i]->count)
			continue;
		if (!rl_param_applies(i, algo)) {
			cmd_usage("--%s does not apply to %s",
				rl_param_info[i].flag, rl_algo_name(algo));
			goto usage;
		}
		if (rl_param_set(&c->ro.params, i, c->param[i]->sval[0],
		    &e) < 0)
			goto bad;
	}
	if (rl_params_check(&c->ro.params, 1, 1, &e) < 0)
		goto bad;
	c->eo.shaping = c->shaping->count > 0;
	c->eo.gamma = c->ro.params.gamma;
	c->eo.last_k = c->lastk->count ? c->lastk->ival[0] : 0;
	if (c->eo.last_k < 0 || c->eo.last_k > 16) {
		cmd_usage("--last-k is 0 to 16");
		goto usage;
	}
	return 0;
bad:
	fprintf(stderr, "hlopt: %s\n", e.msg);
usage:
	*status = EXIT_USAGE;
	return -1;
}

/* the environment's settings as the policy file records them */
static void
env_string(const EnvOpts *o, char *buf, size_t n)
{
	snprintf(buf, n, "objective=%s episode-len=%d patience=%d last-k=%d "
		"shaping=%d gamma=%.17g", env_objective_name(o->objective),
		o->episode_len, o->patience, o->last_k, o->shaping, o->gamma);
}

static void
env_parse(const char *s, EnvOpts *o)
{
	char obj[32];
	const char *p;

	env_opts_default(o);
	if ((p = strstr(s, "objective=")) && sscanf(p, "objective=%31s",
	    obj) == 1 && env_objective_by_name(obj) >= 0)
		o->objective = env_objective_by_name(obj);
	if ((p = strstr(s, "episode-len=")))
		o->episode_len = atoi(p + 12);
	if ((p = strstr(s, "patience=")))
		o->patience = atoi(p + 9);
	if ((p = strstr(s, "last-k=")))
		o->last_k = atoi(p + 7);
	if ((p = strstr(s, "shaping=")))
		o->shaping = atoi(p + 8);
	if ((p = strstr(s, "gamma=")))
		o->gamma = atof(p + 6);
}

typedef struct {
	const SearchOpts *so;
} Prog;

static void
search_progress(void *arg, const RlRun *run, double fraction)
{
	const SearchOpts *so = ((Prog *)arg)->so;
	SearchProgress sp = {run->steps, run->best[0], run->seconds, fraction};

	so->progress(so->arg, &sp);
}

/* the budget left to training once the final greedy rollouts (one
 * episode per module) are set aside */
static long
train_budget(long budget, const EnvOpts *eo, Env *env, int nmod)
{
	long len = eo->episode_len > 0 ? eo->episode_len :
		env_action_count(env);

	return budget > 2 * len * nmod ? budget - len * nmod : budget;
}

/* a default of hlopt's own for parameter flag, unless given */
static void
own_default(CmdRl *c, const char *flag, double v)
{
	RlParams *p = &c->ro.params;
	int i = rl_param_find(flag);

	if (c->param[i]->count)
		return;
	if (rl_param_info[i].type == RL_DBL)
		*(double *)((char *)p + rl_param_info[i].off) = v;
	else
		*(long *)((char *)p + rl_param_info[i].off) = (long)v;
}

/* Stable-Baselines3 sizes its defaults for a million steps. Unless
 * given: PPO's rollout is a sixteenth of the budget per environment (a
 * multiple of 64, 64 to 2048) and DQN's target network follows every
 * twentieth of it (100 to 10000), so that a short budget still learns;
 * DQN explores over half the budget (CleanRL's dqn.py; SB3's tenth left
 * it acting greedily on an untrained network after 200 of 2000 steps)
 * and learns at 1e-3 (CompilerGym's leaderboard DQN; SB3: 1e-4).
 * search (one module) with PPO: the rollout is a thirty-second of the
 * budget (a multiple of 32, 32 to 2048; minibatches at most the rollout)
 * and a quarter of the episodes restart from the best state found
 * (bench-agents at 2000 steps, seeds 1 to 4: geometric mean 1.458 with
 * 32-step rollouts alone, 1.472 with the restarts, 1.463 with half of
 * the episodes restarting; 64-step rollouts without restarts: 1.44 and
 * 1.46 on seeds 1 and 2). Every agent climbs from the best state after
 * training (run.c): 5 rollouts in search, where they spend the budget's
 * last steps, 32 in train, which the policy file passes on to optimize
 * --policy (there 5 left 3 of the policy table's graphs worse than
 * default that 30 brought to it: ott 68 -> 45, linear 38 -> 37); ppo
 * in search climbs up to 30 times, each climbing rollout ending at its
 * first step downhill, so that the budget's last steps try more first
 * actions from the best state (ppo over bench-agents' 24 graphs at 2000
 * steps, seeds 1 to 3: geometric mean 1.4693, 1.4498, 1.4507 ->
 * 1.4698, 1.4552, 1.4571; nv_maxtext 1143 -> 1109 and 1137 -> 1101 on
 * seeds 2 and 3, searchsorted 57 -> 56 on seed 3, default's level) */
static void
scale_defaults(CmdRl *c, int search)
{
	RlParams *p = &c->ro.params;
	long n;

	if (p->algo == RL_DQN) {
		own_default(c, "exploration-fraction", 0.5);
		own_default(c, "lr", 1e-3);
	}
	if (p->algo == RL_PPO && search) {
		own_default(c, "restart-best", 0.25);
		own_default(c, "climb-stop-worse", 1);
	}
	own_default(c, "climb", p->algo == RL_PPO && search ? 30 : search ?
		5 : 32);
	if (p->algo == RL_PPO && !c->param[rl_param_find("n-steps")]->count) {
		n = p->total_steps / (search ? 32 : 16) / p->n_envs;
		n = search ? n / 32 * 32 : n / 64 * 64;
		p->n_steps = n < (search ? 32 : 64) ? (search ? 32 : 64) :
			n > 2048 ? 2048 : n;
		if (!c->param[rl_param_find("batch-size")]->count &&
		    p->batch_size > p->n_steps * p->n_envs)
			p->batch_size = p->n_steps * p->n_envs;
	}
	if (p->algo == RL_DQN &&
	    !c->param[rl_param_find("target-update-interval")]->count) {
		n = p->total_steps / 20;
		p->target_update_interval = n < 100 ? 100 : n > 10000 ? 10000 :
			n;
	}
}

static void
fill_result(const RlRun *run, SearchResult *r)
{
	int i, k;

	memset(r, 0, sizeof *r);
	r->initial = run->initial[0];
	r->best = run->best[0];
	r->nseq = run->nseq[0];
	r->seq = xcalloc(r->nseq + 1, sizeof *r->seq);
	memcpy(r->seq, run->seq[0] ? run->seq[0] : r->seq,
		r->nseq * sizeof *r->seq);
	r->steps = run->steps;
	r->passes_run = run->passes_run;
	r->seconds = run->seconds;
	r->lookups = run->lookups;
	r->hits = run->hits;
	r->times = run->times;
	snprintf(r->found_by, sizeof r->found_by, "%s", run->found_by[0]);
	snprintf(r->warning, sizeof r->warning, "%s", run->warning);
	r->log = xcalloc(run->nlog + 1, sizeof *r->log);
	for (i = k = 0; i < run->nlog; i++) {
		if (run->log[i].module != 0)
			continue;
		r->log[k].steps = run->log[i].steps;
		r->log[k].best = run->log[i].best;
		r->log[k].nseq = run->log[i].nseq;
		r->log[k].seq = xcalloc(run->log[i].nseq + 1, sizeof(int));
		memcpy(r->log[k].seq, run->log[i].seq, run->log[i].nseq *
			sizeof(int));
		k++;
	}
	r->nlog = k;
}

int
cmd_rl_search(CmdRl *c, const HloModule *in, const SearchOpts *so,
	SearchResult *r, HloError *e)
{
	Prog prog = {so};
	Env *env;
	RlError re;
	int rc;

	c->eo.objective = so->objective;
	c->eo.episode_len = so->episode_len ? so->episode_len : AGENT_LEN;
	c->eo.patience = so->patience ? so->patience : AGENT_PATIENCE;
	c->eo.seed = so->seed;
	env = env_create_module(hlo_module_clone(in), &c->eo);
	c->ro.params.total_steps = train_budget(so->budget > 0 ? so->budget :
		RL_SEARCH_BUDGET_NONE, &c->eo, env, 1);
	scale_defaults(c, 1);
	c->ro.budget = so->budget > 0 ? so->budget : 0;
	c->ro.seed = so->seed;
	c->ro.jobs = so->jobs;
	c->ro.seconds = so->seconds;
	if (so->progress) {
		c->ro.progress = search_progress;
		c->ro.arg = &prog;
	}
	rc = rl_run(&env, 1, &c->ro, &c->run, &re);
	c->ro.progress = NULL;
	c->ran = 1;
	env_free(env);
	if (rc < 0)
		return hlo_err(e, "%s", re.msg);
	fill_result(&c->run, r);
	return 0;
}

void
cmd_rl_report(const CmdRl *c, HloBuf *b, int json)
{
	const RlParams *p = &c->ro.params;
	char v[64];
	size_t i;
	int first = 1;

	hlo_buf_puts(b, json ? ",\n  \"rl\": {\"algorithm\": \"" :
		"hyperparameters");
	if (json)
		hlo_buf_printf(b, "%s\", \"hyperparameters\": {",
			rl_algo_name(c->algo));
	for (i = 0; i < rl_nparam; i++) {
		if (!rl_param_applies(i, c->algo))
			continue;
		rl_param_format(p, i, v, sizeof v);
		if (rl_param_info[i].type == RL_DBL)
			snprintf(v, sizeof v, "%.10g", *(const double *)
				((const char *)p + rl_param_info[i].off));
		if (!json)
			hlo_buf_printf(b, " %s=%s", rl_param_info[i].flag, v);
		else if (rl_param_info[i].type == RL_STR)
			hlo_buf_printf(b, "%s\"%s\": \"%s\"", first ? "" : ", ",
				rl_param_info[i].flag, v);
		else
			hlo_buf_printf(b, "%s\"%s\": %s", first ? "" : ", ",
				rl_param_info[i].flag, v);
		first = 0;
	}
	if (!json) {
		hlo_buf_printf(b, "\nenvironment    episode-len %d, patience "
			"%d, shaping %s, last-k %d, training %ld steps; %ld "
			"updates, %ld episodes\n", c->eo.episode_len,
			c->eo.patience, c->eo.shaping ? "on" : "off", c->eo.last_k,
			p->total_steps, c->run.ncurve ? c->run.curve[
			c->run.ncurve - 1].st.updates : 0L, c->run.ncurve ?
			c->run.curve[c->run.ncurve - 1].st.episodes : 0L);
		return;
	}
	hlo_buf_printf(b, "}, \"episode_len\": %d, \"patience\": %d, "
		"\"shaping\": %s, \"last_k\": %d, \"training_steps\": %ld, "
		"\"updates\": %ld, \"episodes\": %ld}", c->eo.episode_len,
		c->eo.patience, c->eo.shaping ? "true" : "false", c->eo.last_k,
		p->total_steps,
		c->run.ncurve ? c->run.curve[c->run.ncurve - 1].st.updates : 0L,
		c->run.ncurve ? c->run.curve[c->run.ncurve - 1].st.episodes :
		0L);
}

/* one file through a memory stream, written whole or not at all */
static int
write_stream(const char *path, const CmdRl *c, const char *title, int svg,
	HloError *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r;

	if (!f)
		return hlo_err(e, "%s: error: out of memory", path);
	r = svg ? rl_curve_svg(&c->run, title, f) : rl_curve_csv(&c->run, f);
	if (fclose(f) != 0 || r < 0) {
		free(buf);
		return hlo_err(e, "%s: error: cannot format the curve", path);
	}
	r = hlo_write_file(path, buf, len, e);
	free(buf);
	return r;
}

int
cmd_rl_curves(const CmdRl *c, const char *title, HloError *e)
{
	if (c->curve->count && write_stream(c->curve->sval[0], c, title, 0,
	    e) < 0)
		return -1;
	if (c->plot->count && write_stream(c->plot->sval[0], c, title, 1,
	    e) < 0)
		return -1;
	return 0;
}

int
cmd_policy_seq(const HloModule *m, const char *path, int samples,
	int climb, uint64_t seed, PassSeq *seq, HloError *e)
{
	RlPolicy *pol;
	RlError re;
	EnvOpts eo;
	Env *env;
	int *s, n, rc;
	double best;

	rl_gsl_quiet();
	if (!(pol = rl_policy_load(path, &re)))
		return hlo_err(e, "%s", re.msg);
	if (climb >= 0)
		pol->params.climb = climb;
	env_parse(pol->env, &eo);
	eo.seed = seed;
	env = env_create_module(hlo_module_clone(m), &eo);
	rc = rl_apply(pol, env, samples, seed, &s, &n, &best, &re);
	env_free(env);
	rl_policy_free(pol);
	if (rc < 0)
		return hlo_err(e, "%s: %s", path, re.msg);
	free(seq->items);
	seq->items = s;
	seq->n = seq->cap = (uint32_t)n;
	return 0;
}

/* ---- hlopt train ---- */

typedef struct {
	char **v;
	int n, cap;
} Paths;

static void
paths_add(Paths *p, const char *s)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 16;
		p->v = xreallocarray(p->v, p->cap, sizeof *p->v);
	}
	p->v[p->n++] = xstrdup(s);
}

static int
module_name(const char *name)
{
	size_t n = strlen(name);

	return (n > 4 && !strcmp(name + n - 4, ".hlo")) ||
		(n > 3 && !strcmp(name + n - 3, ".pb"));
}

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the .hlo and .pb files under dir, recursively */
static void
walk(const char *dir, Paths *p, int depth)
{
	DIR *d = depth < 32 ? opendir(dir) : NULL;
	struct dirent *de;
	struct stat st;
	char *path;
	size_t n;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		n = strlen(dir) + strlen(de->d_name) + 2;
		path = xmalloc(n);
		snprintf(path, n, "%s/%s", dir, de->d_name);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			walk(path, p, depth + 1);
		else if (S_ISREG(st.st_mode) && module_name(de->d_name))
			paths_add(p, path);
		free(path);
	}
	closedir(d);
}

/* GRAPHS: files, folders (their .hlo and .pb files, recursively) and
 * @LIST files (one path a line, # comments) */
static int
expand(const char *arg, Paths *p, HloError *e)
{
	struct stat st;
	char *text, *line, *save = NULL;
	size_t len;
	int first = p->n;

	if (arg[0] == '@') {
		if (hlo_read_file(arg + 1, &text, &len, e) < 0)
			return -1;
		for (line = strtok_r(text, "\n", &save); line;
		    line = strtok_r(NULL, "\n", &save)) {
			line[strcspn(line, "#")] = 0;
			line[strcspn(line, " \t\r")] = 0;
			if (*line && expand(line, p, e) < 0) {
				free(text);
				return -1;
			}
		}
		free(text);
		return 0;
	}
	if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
		walk(arg, p, 0);
		if (p->n > first)
			qsort(p->v + first, p->n - first, sizeof *p->v, cmpstr);
		return 0;
	}
	paths_add(p, arg);
	return 0;
}

typedef struct {
	struct arg_lit *help, *progress;
	struct arg_str *algo, *out, *objective, *seed, *rep, *format;
	struct arg_int *budget, *elen, *patience, *jobs;
	struct arg_dbl *time;
	struct arg_file *graphs;
	struct arg_end *end;
} TrainArgs;

static void
train_progress(void *arg, const RlRun *run, double fraction)
{
	int tty = *(int *)arg;

	fprintf(stderr, "%strain: %lld steps, best %.4f of the objective "
		"removed (mean over modules), %.0f steps/s, %.0f%%%s",
		tty ? "\r" : "", (long long)run->steps, run->ncurve ?
		run->curve[run->ncurve - 1].best_fraction : 0,
		run->seconds > 0 ? run->steps / run->seconds : 0,
		100 * fraction, tty ? "\033[K" : "\n");
	fflush(stderr);
}

/* the modules' environments; -1 after a message */
static int
load_envs(const Paths *p, const EnvOpts *eo, Env ***envs)
{
	char err[1200];
	int i;

	*envs = xcalloc(p->n, sizeof **envs);
	for (i = 0; i < p->n; i++)
		if (env_create_file(p->v[i], eo, &(*envs)[i], err,
		    sizeof err) < 0) {
			fprintf(stderr, "%s\n", err);
			return -1;
		}
	return 0;
}

/* s as a JSON string */
static void
json_str(HloBuf *b, const char *s)
{
	hlo_buf_put(b, "\"", 1);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			hlo_buf_printf(b, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			hlo_buf_printf(b, "\\u%04x", *s);
		else
			hlo_buf_put(b, s, 1);
	}
	hlo_buf_put(b, "\"", 1);
}

static void
train_report(const CmdRl *c, const Paths *p, Env **envs, const char *pol,
	int json, HloBuf *b)
{
	const RlRun *run = &c->run;
	double best;
	int i, *s, n;
	RlError re;

	if (json) {
		hlo_buf_printf(b, "{\n  \"algorithm\": \"%s\",\n  \"seed\": "
			"%llu,\n  \"steps\": %lld,\n  \"seconds\": %.3f,\n  "
			"\"policy\": ", rl_algo_name(c->algo),
			(unsigned long long)c->ro.seed, (long long)run->steps,
			run->seconds);
		json_str(b, pol);
	} else
		hlo_buf_printf(b, "algorithm      %s (seed %llu, %d job%s)\n"
			"steps          %lld in %.3f s (%.0f steps/s)%s\n"
			"policy         %s (%zu weights)\n",
			rl_algo_name(c->algo), (unsigned long long)c->ro.seed,
			c->ro.jobs, c->ro.jobs == 1 ? "" : "s",
			(long long)run->steps, run->seconds, run->seconds > 0 ?
			run->steps / run->seconds : 0, run->timed_out ?
			" (stopped by --time)" : "", pol,
			run->policy->nparams);
	cmd_rl_report(c, b, json);
	hlo_buf_puts(b, json ? ",\n  \"modules\": [" : "module                   "
		"                        initial   best seen  policy\n");
	for (i = 0; i < p->n; i++) {
		best = NAN;
		if (rl_apply(run->policy, envs[i], 0, c->ro.seed, &s, &n, &best,
		    &re) == 0)
			free(s);
		if (json) {
			hlo_buf_printf(b, "%s\n    {\"input\": ", i ? "," : "");
			json_str(b, p->v[i]);
			hlo_buf_printf(b, ", \"initial\": %.17g, \"best\": "
				"%.17g, \"policy\": ", run->initial[i],
				run->best[i]);
			if (isnan(best))
				hlo_buf_puts(b, "null}");
			else
				hlo_buf_printf(b, "%.17g}", best);
		} else
			hlo_buf_printf(b, "%-48s %10.6g %10.6g %10.6g\n",
				p->v[i], run->initial[i], run->best[i], best);
	}
	if (json)
		hlo_buf_puts(b, p->n ? "\n  ]\n}\n" : "]\n}\n");
	if (!json && run->warning[0])
		hlo_buf_printf(b, "warning        %s\n", run->warning);
}

/* everything after the arguments: modules, training, policy, report */
static int
train_run(CmdRl *c, TrainArgs *a, HloBuf *rep)
{
	Paths p = {0};
	Env **envs = NULL;
	HloError e;
	RlError re;
	char title[160];
	int i, status = EXIT_ERR, tty = isatty(2);

	for (i = 0; i < a->graphs->count; i++)
		if (expand(a->graphs->filename[i], &p, &e) < 0) {
			fprintf(stderr, "%s\n", e.msg);
			goto out;
		}
	if (!p.n) {
		fprintf(stderr, "hlopt: error: no module among the GRAPHS\n");
		goto out;
	}
	if (load_envs(&p, &c->eo, &envs) < 0)
		goto out;
	c->ro.params.total_steps = train_budget(a->budget->count ?
		a->budget->ival[0] : TRAIN_BUDGET, &c->eo, envs[0], p.n);
	scale_defaults(c, 0);
	if (tty || a->progress->count) {
		c->ro.progress = train_progress;
		c->ro.arg = &tty;
	}
	c->ran = 1;
	if (rl_run(envs, p.n, &c->ro, &c->run, &re) < 0) {
		fprintf(stderr, "hlopt: %s\n", re.msg);
		goto out;
	}
	if (tty || a->progress->count)
		fputs(tty ? "\r\033[K" : "", stderr);
	env_string(&c->eo, c->run.policy->env, sizeof c->run.policy->env);
	if (rl_policy_save(c->run.policy, a->out->sval[0], &re) < 0) {
		fprintf(stderr, "%s\n", re.msg);
		goto out;
	}
	snprintf(title, sizeof title, "hlopt train --algo %s: %d module%s",
		rl_algo_name(c->algo), p.n, p.n == 1 ? "" : "s");
	if (cmd_rl_curves(c, title, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		goto out;
	}
	train_report(c, &p, envs, a->out->sval[0], a->format->count &&
		!strcmp(a->format->sval[0], "json"), rep);
	status = EXIT_OK;
out:
	for (i = 0; envs && i < p.n; i++)
		env_free(envs[i]);
	free(envs);
	for (i = 0; i < p.n; i++)
		free(p.v[i]);
	free(p.v);
	return status;
}

/* the environment's and the run's options from the arguments */
static int
train_opts(CmdRl *c, TrainArgs *a, int *status)
{
	int algo = a->algo->count ? rl_algo_parse(a->algo->sval[0]) : RL_PPO;

	if (algo < 0) {
		*status = cmd_usage("--algo is ppo, dqn or a2c");
		return -1;
	}
	if (cmd_rl_setup(c, algo, status) < 0)
		return -1;
	c->eo.objective = a->objective->count ?
		env_objective_by_name(a->objective->sval[0]) :
		ENV_OBJ_INSTRUCTIONS;
	c->eo.episode_len = a->elen->count ? a->elen->ival[0] : AGENT_LEN;
	c->eo.patience = a->patience->count && a->patience->ival[0] ?
		a->patience->ival[0] : AGENT_PATIENCE;
	c->ro.jobs = a->jobs->count ? a->jobs->ival[0] : 1;
	c->ro.seconds = a->time->count ? a->time->dval[0] : 0;
	if (c->eo.objective < 0 || c->eo.episode_len < 0 ||
	    c->eo.patience < 0 || c->ro.jobs < 1 || c->ro.jobs > 256 ||
	    c->ro.seconds < 0 || (a->budget->count && a->budget->ival[0] < 1) ||
	    (a->seed->count && hlo_parse_u64(a->seed->sval[0], 0,
	    &c->ro.seed) < 0)) {
		*status = cmd_usage("--objective is instructions, flops, bytes, "
			"transcendentals or kernels; --budget and -j (at most "
			"256) positive; --time, --episode-len and --patience not "
			"negative; --seed a number");
		return -1;
	}
	c->eo.seed = c->ro.seed;
	return 0;
}

int
cmd_train(int argc, char **argv)
{
	TrainArgs a = {
		arg_lit0(NULL, "help", "print this help"),
		arg_lit0(NULL, "progress", "a progress line on stderr even "
			"when it is not a terminal"),
		arg_str0(NULL, "algo", "ppo|dqn|a2c", "the agent (default ppo)"),
		arg_str1("o", "output", "POLICY", "write the policy file"),
		arg_str0(NULL, "objective", "NAME", "instructions (default), "
			"flops, bytes, transcendentals or kernels"),
		arg_str0(NULL, "seed", "S", "random seed (default 1)"),
		arg_str0(NULL, "report", "FILE", "write the report to FILE "
			"(default stdout)"),
		arg_str0(NULL, "format", "text|json", "report format"),
		arg_int0(NULL, "budget", "STEPS", "environment steps (default "
			"20000)"),
		arg_int0(NULL, "episode-len", "N", "steps per episode (default: "
			"twice the number of passes)"),
		arg_int0(NULL, "patience", "N", "end an episode after N steps "
			"without improvement (default 30; N at least --episode-len: "
			"never)"),
		arg_int0("j", "jobs", "N", "threads stepping the --n-envs "
			"environments (the result does not depend on N)"),
		arg_dbl0(NULL, "time", "SECONDS", "stop training after this "
			"wall time"),
		arg_filen(NULL, NULL, "GRAPHS", 1, 100000, "modules, folders "
			"of modules, or @LIST files"),
		arg_end(5),
	};
	void *base[] = {a.help, a.progress, a.algo, a.out, a.objective,
		a.seed, a.rep, a.format, a.budget, a.elen, a.patience, a.jobs,
		a.time, a.graphs, a.end};
	const char *summary = "train a pass-ordering policy (ppo, dqn or "
		"a2c) over many modules";
	CmdRl c;
	HloBuf rep = {0};
	HloError e;
	void **table;
	int n, status = EXIT_OK;

	table = cmd_rl_table(&c, base, sizeof base / sizeof base[0], "log",
		&n);
	c.ro.seed = 1;
	if (cmd_parse_args("train", summary, table, argc, argv, &status) ||
	    cmd_format_arg(a.format, &status) < 0 ||
	    train_opts(&c, &a, &status) < 0)
		goto done;
	if ((status = train_run(&c, &a, &rep)) != EXIT_OK)
		goto done;
	if (hlo_write_file(a.rep->count ? a.rep->sval[0] : "-", rep.buf,
	    rep.len, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		status = EXIT_ERR;
	}
done:
	hlo_buf_free(&rep);
	arg_freetable(table, n);
	cmd_rl_free(&c);
	return status;
}
