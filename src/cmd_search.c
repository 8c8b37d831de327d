/* cmd_search.c: hlopt search IN --algo random|greedy|beam [--budget STEPS]
 * [--time SECONDS] [--episode-len N] [--patience N] [--seed S] [-j N]
 * [--beam-width K] [--objective ...] [--minimize] [-o OUT] [--to ...]
 * [--report FILE] [--format text|json] [--log FILE.csv] [--no-verify]
 * [--strict-precision] [--progress]: searches a pass order (src/env/search.c), replays the
 * best one from the input, checks it with the evaluator and reports I, D,
 * S, R and (I - R) / (I - D) as the XLA Gym paper does. */
#include <argtable2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hlo.h"
#include "cmd.h"
#include "cost.h"
#include "eval.h"
#include "pass.h"
#include "search.h"
#include "cmd_rl.h"

#define DEFAULT_BUDGET 5000

/* a named pipeline run on a clone of the input */
typedef struct {
	int present;		/* the pipeline exists */
	int64_t instrs;
	double obj;
} Baseline;

typedef struct {
	const char *in;
	SearchOpts so;
	SearchResult sr;
	Baseline dflt, sat;
	HloCost before, after;	/* of the input and of the best module */
	double robj;		/* the objective replayed */
	PassLog log;		/* the replay of the best sequence */
	int minimized, nfull, tests;	/* --minimize: length before, replays */
	int verified;		/* -1 skipped, else the verdict (EV_*) */
	EvVerifyReport vr;	/* of the check of the best module */
	int tty, every;		/* progress: redraw in place; or lines */
	double lastline;
	CmdRl rl;		/* --algo ppo|dqn|a2c (so.algo >= SEARCH_NALGO) */
} Search;

/* the algorithm's name: a search's or an agent's (src/cmd_train.c) */
static const char *
algo_name(const Search *s)
{
	return s->so.algo >= SEARCH_NALGO ? rl_algo_name(s->so.algo -
		SEARCH_NALGO) : search_algo_name(s->so.algo);
}

static void
seq_names(const int *seq, int n, HloBuf *b)
{
	int i;

	for (i = 0; i < n; i++)
		hlo_buf_printf(b, "%s%s", i ? "," : "", hlo_passes[seq[i]].name);
	if (!b->buf)
		hlo_buf_puts(b, "");
}

static void
replay_line(const Search *s, HloBuf *b)
{
	HloBuf q = {0};

	seq_names(s->sr.seq, s->sr.nseq, &q);
	hlo_buf_puts(b, "hlopt optimize ");
	cmd_shell_word(b, s->in);
	hlo_buf_puts(b, " --passes ");
	cmd_shell_word(b, q.buf);
	hlo_buf_free(&q);
}

static const char *
verdict(int v, const EvVerifyReport *vr)
{
	return v < 0 ? "skipped (--no-verify)" : v == vr->verdict ?
		ev_verify_verdict(vr) : ev_verdict_name(v);
}

/* (I - R) / (I - D); 0 when D removes nothing */
static double
ratio(double i, double d, double r, int *ok)
{
	*ok = i != d;
	return *ok ? (i - r) / (i - d) : 0;
}

static void
on_progress(void *arg, const SearchProgress *p)
{
	Search *s = arg;
	double rate = p->seconds > 0 ? p->steps / p->seconds : 0;
	double eta = p->fraction > 0 ? p->seconds * (1 / p->fraction - 1) : -1;
	int ok;
	double rt = ratio(s->sr.initial, s->dflt.obj, p->best, &ok);

	if (!s->tty && p->seconds - s->lastline < 1)
		return;
	s->lastline = p->seconds;
	fprintf(stderr, "%ssearch: %lld steps, best %.17g", s->tty ? "\r" : "",
		(long long)p->steps, p->best);
	if (ok)
		fprintf(stderr, ", ratio %.4f", rt);
	fprintf(stderr, ", %.0f steps/s", rate);
	if (eta >= 0)
		fprintf(stderr, ", ETA %.0f s", eta);
	fputs(s->tty ? "\033[K" : "\n", stderr);
	fflush(stderr);
}

/* D and S: the named pipeline on a clone of the input */
static int
baseline(const HloModule *in, const char *name, int objective,
	Baseline *b, HloError *e)
{
	PassSeq seq = {0};
	PassCtx ctx;
	HloModule *m;
	HloError ign;
	int r = 0;

	memset(b, 0, sizeof *b);
	if (pass_seq_parse(name, &seq, &ign) < 0)
		return 0;	/* no such pipeline: omitted */
	b->present = 1;
	m = hlo_module_clone(in);
	pass_ctx_init(&ctx);
	if (pass_run_seq(m, &seq, &ctx, NULL) < 0) {
		r = hlo_err(e, "%s: %s", name, ctx.err.msg);
	} else if ((b->instrs = hlo_cost_count(m)) < 0 ||
	    env_module_objective(m, objective, &b->obj, e) < 0) {
		r = hlo_err(e, "%s: cannot measure the module it leaves",
			name);
	}
	pass_ctx_free(&ctx);
	pass_seq_free(&seq);
	hlo_module_free(m);
	return r;
}

static void
text_head(const Search *s, HloBuf *b)
{
	const SearchResult *r = &s->sr;
	int ok;
	double rt;

	hlo_buf_printf(b, "input          %s\n", s->in);
	hlo_buf_printf(b, "algorithm      %s (seed %llu, %d job%s",
		algo_name(s), (unsigned long long)s->so.seed,
		s->so.jobs, s->so.jobs == 1 ? "" : "s");
	if (s->so.budget > 0)
		hlo_buf_printf(b, ", budget %lld steps",
			(long long)s->so.budget);
	if (s->so.seconds > 0)
		hlo_buf_printf(b, ", time %.3g s", s->so.seconds);
	if (s->so.algo == SEARCH_BEAM)
		hlo_buf_printf(b, ", width %d", s->so.beam_width);
	hlo_buf_printf(b, ")\nobjective      %s\n",
		env_objective_name(s->so.objective));
	hlo_buf_printf(b, "initial (I)    %lld\n",
		(long long)s->before.instructions);
	hlo_buf_printf(b, "default (D)    %lld\n", (long long)s->dflt.instrs);
	if (s->sat.present)
		hlo_buf_printf(b, "saturate (S)   %lld\n",
			(long long)s->sat.instrs);
	hlo_buf_printf(b, "best (R)       %lld\n",
		(long long)s->after.instructions);
	rt = ratio(s->before.instructions, s->dflt.instrs,
		s->after.instructions, &ok);
	if (ok)
		hlo_buf_printf(b, "ratio          %.4f  (I - R) / (I - D)%s\n",
			rt, s->dflt.instrs > s->before.instructions ?
			"; default adds instructions" : "");
	else
		hlo_buf_puts(b, "ratio          n/a  (default removes "
			"nothing)\n");
	if (s->so.objective != ENV_OBJ_INSTRUCTIONS) {
		rt = ratio(r->initial, s->dflt.obj, s->robj, &ok);
		hlo_buf_printf(b, "%-14s %.17g -> default %.17g, best %.17g",
			env_objective_name(s->so.objective), r->initial,
			s->dflt.obj, s->robj);
		if (ok)
			hlo_buf_printf(b, " (ratio %.4f)", rt);
		hlo_buf_puts(b, "\n");
	}
	hlo_buf_printf(b, "flops          %.17g -> %.17g\n", s->before.flops,
		s->after.flops);
	if (s->so.algo >= SEARCH_NALGO)
		cmd_rl_report(&s->rl, b, 0);
}

static void
report_text(const Search *s, HloBuf *b)
{
	const SearchResult *r = &s->sr;
	HloBuf q = {0};
	uint32_t i;

	text_head(s, b);
	seq_names(r->seq, r->nseq, &q);
	hlo_buf_printf(b, "sequence       %s (%d pass%s)\n", q.buf, r->nseq,
		r->nseq == 1 ? "" : "es");
	hlo_buf_puts(b, "replay         ");
	replay_line(s, b);
	hlo_buf_printf(b, "\nfound by       %s\n", r->found_by);
	hlo_buf_printf(b, "steps          %lld (%lld passes run) in %.3f s, "
		"%.0f steps/s\n", (long long)r->steps,
		(long long)r->passes_run, r->seconds,
		r->seconds > 0 ? r->steps / r->seconds : 0);
	hlo_buf_printf(b, "table          %llu lookups, %llu hits (%.1f%%)\n",
		(unsigned long long)r->lookups, (unsigned long long)r->hits,
		r->lookups ? 100.0 * r->hits / r->lookups : 0);
	hlo_buf_printf(b, "thread time    %.3f s: passes %.3f, clones %.3f, "
		"objective %.3f, hashes %.3f\n", r->times.reset +
		r->times.pass + r->times.objective + r->times.hash,
		r->times.pass, r->times.reset, r->times.objective,
		r->times.hash);
	if (s->minimized)
		hlo_buf_printf(b, "minimized      %d -> %d passes (%d "
			"replays)\n", s->nfull, r->nseq, s->tests);
	hlo_buf_printf(b, "verify         %s%s%s\n",
		verdict(s->verified, &s->vr),
		s->verified > 0 && s->vr.msg[0] ? ": " : "", s->verified > 0 ?
		s->vr.msg : "");
	if (r->warning[0])
		hlo_buf_printf(b, "warning        %s\n", r->warning);
	if (s->log.n)
		hlo_buf_printf(b, "\n%4s  %-34s %9s %9s %8s %8s\n", "step",
			"pass", "before", "after", "removed", "added");
	for (i = 0; i < s->log.n; i++) {
		const PassStep *st = &s->log.steps[i];

		hlo_buf_printf(b, "%4u  %-34s %9lld %9lld %8lld %8lld\n", i + 1,
			hlo_passes[st->pass].name, (long long)st->before,
			(long long)st->after, (long long)st->removed,
			(long long)st->added);
	}
	hlo_buf_free(&q);
}

static void
json_num(HloBuf *b, const char *key, double v, int ok)
{
	hlo_buf_printf(b, ",\n  \"%s\": ", key);
	if (ok)
		hlo_buf_printf(b, "%.17g", v);
	else
		hlo_buf_puts(b, "null");
}

static void
json_head(const Search *s, HloBuf *b)
{
	const SearchResult *r = &s->sr;
	int ok;
	double rt;

	hlo_buf_puts(b, "{\n  \"input\": ");
	hlo_buf_json(b, s->in);
	hlo_buf_printf(b, ",\n  \"algo\": \"%s\",\n  \"seed\": %llu,\n"
		"  \"jobs\": %d,\n  \"budget\": %lld,\n  \"time_limit\": %.17g,"
		"\n  \"objective\": \"%s\"", algo_name(s),
		(unsigned long long)s->so.seed, s->so.jobs,
		(long long)s->so.budget, s->so.seconds,
		env_objective_name(s->so.objective));
	json_num(b, "initial", (double)s->before.instructions, 1);
	json_num(b, "default", (double)s->dflt.instrs, 1);
	json_num(b, "saturate", (double)s->sat.instrs, s->sat.present);
	json_num(b, "best", (double)s->after.instructions, 1);
	rt = ratio(s->before.instructions, s->dflt.instrs,
		s->after.instructions, &ok);
	json_num(b, "ratio", rt, ok);
	json_num(b, "objective_initial", r->initial, 1);
	json_num(b, "objective_default", s->dflt.obj, 1);
	json_num(b, "objective_saturate", s->sat.obj, s->sat.present);
	json_num(b, "objective_best", s->robj, 1);
	rt = ratio(r->initial, s->dflt.obj, s->robj, &ok);
	json_num(b, "objective_ratio", rt, ok);
	json_num(b, "flops_before", s->before.flops, 1);
	json_num(b, "flops_after", s->after.flops, 1);
	if (s->so.algo >= SEARCH_NALGO)
		cmd_rl_report(&s->rl, b, 1);
}

static void
report_json(const Search *s, HloBuf *b)
{
	const SearchResult *r = &s->sr;
	HloBuf q = {0};
	int i;

	json_head(s, b);
	hlo_buf_puts(b, ",\n  \"sequence\": [");
	for (i = 0; i < r->nseq; i++)
		hlo_buf_printf(b, "%s\"%s\"", i ? ", " : "",
			hlo_passes[r->seq[i]].name);
	hlo_buf_puts(b, "],\n  \"replay\": ");
	replay_line(s, &q);
	hlo_buf_json(b, q.buf);
	hlo_buf_printf(b, ",\n  \"steps\": %lld,\n  \"passes_run\": %lld,\n"
		"  \"steps_per_second\": %.17g,\n  \"seconds\": %.17g,\n"
		"  \"table\": {\"lookups\": %llu, \"hits\": %llu},\n"
		"  \"verified\": %s,\n  \"verify\": \"%s\",\n"
		"  \"found_by\": ", (long long)r->steps,
		(long long)r->passes_run, r->seconds > 0 ? r->steps /
		r->seconds : 0, r->seconds, (unsigned long long)r->lookups,
		(unsigned long long)r->hits, s->verified == EV_EQUAL ? "true" :
		"false", s->verified < 0 ? "skipped" :
		ev_verdict_name(s->verified));
	hlo_buf_json(b, r->found_by);
	hlo_buf_printf(b, ",\n  \"verify_reference\": \"%s\"",
		s->verified < 0 ? "none" : s->vr.excess ? "excess precision" :
		"strict");
	hlo_buf_printf(b, ",\n  \"thread_seconds\": {\"passes\": %.6f, "
		"\"clones\": %.6f, \"objective\": %.6f, \"hashes\": %.6f}",
		r->times.pass, r->times.reset, r->times.objective,
		r->times.hash);
	hlo_buf_puts(b, ",\n  \"warning\": ");
	hlo_buf_json(b, r->warning);
	if (s->minimized)
		hlo_buf_printf(b, ",\n  \"minimized\": {\"from\": %d, "
			"\"to\": %d, \"replays\": %d}", s->nfull, r->nseq,
			s->tests);
	hlo_buf_puts(b, ",\n  \"attribution\": [");
	for (i = 0; i < (int)s->log.n; i++) {
		const PassStep *st = &s->log.steps[i];

		hlo_buf_printf(b, "%s\n    {\"step\": %d, \"pass\": \"%s\", "
			"\"before\": %lld, \"after\": %lld, \"removed\": %lld, "
			"\"added\": %lld}", i ? "," : "", i + 1,
			hlo_passes[st->pass].name, (long long)st->before,
			(long long)st->after, (long long)st->removed,
			(long long)st->added);
	}
	hlo_buf_puts(b, s->log.n ? "\n  ]\n}\n" : "]\n}\n");
	hlo_buf_free(&q);
}

/* --log: one row per improvement, as CompilerGym's state files */
static int
write_csv(const Search *s, const char *path, HloError *e)
{
	HloBuf b = {0}, q;
	int i, r;

	hlo_buf_puts(&b, "input,step,best,sequence\n");
	for (i = 0; i < s->sr.nlog; i++) {
		const SearchImprovement *im = &s->sr.log[i];

		memset(&q, 0, sizeof q);
		seq_names(im->seq, im->nseq, &q);
		hlo_buf_put(&b, "\"", 1);
		hlo_buf_puts(&b, s->in);
		hlo_buf_printf(&b, "\",%lld,%.17g,\"%s\"\n",
			(long long)im->steps, im->best, q.buf);
		hlo_buf_free(&q);
	}
	r = hlo_write_file(path, b.buf, b.len, e);
	hlo_buf_free(&b);
	return r;
}

/* the best sequence replayed from the input: R, its cost, the per-pass
 * attribution; with --minimize, first shortened */
static int
finish(Search *s, const HloModule *in, HloModule **best, int minimize,
	HloError *e)
{
	SearchResult *r = &s->sr;
	int *mseq, mn;

	if (minimize && r->nseq > 0) {
		search_minimize(in, r->seq, r->nseq, s->so.objective, r->best,
			&mseq, &mn, &s->tests, e);
		s->minimized = 1;
		s->nfull = r->nseq;
		free(r->seq);
		r->seq = mseq;
		r->nseq = mn;
	}
	if (search_replay(in, r->seq, r->nseq, s->so.objective, &s->robj,
	    best, &s->log, e) < 0)
		return -1;
	if (s->robj > r->best) {
		/* the search skipped a pass it took for a no-op, or a pass
		 * is not deterministic: report what the replay reaches */
		snprintf(r->warning, sizeof r->warning, "the replay reaches "
			"%.17g, the search saw %.17g", s->robj, r->best);
	}
	return hlo_cost(*best, &s->after, e);
}

/* the best module against the input, as optimize --verify checks with
 * its defaults (seed 1): the verdict, EV_EQUAL when nothing changed */
static int
check(Search *s, const HloModule *in, const HloModule *best, int strict)
{
	EvVerifyOpts vo;
	uint32_t i;

	for (i = 0; i < s->log.n && !s->log.steps[i].changed; i++)
		;
	if (i == s->log.n) {
		s->verified = EV_EQUAL;	/* nothing ran: the same module */
		return s->verified;
	}
	ev_verify_defaults(&vo);
	vo.excess = !strict;
	vo.seed = 1;
	vo.name_a = "the input";
	vo.name_b = "the best module";
	s->verified = ev_verify(in, best, &vo, &s->vr);
	return s->verified;
}

typedef struct {
	struct arg_lit *help;
	struct arg_str *algo, *objective, *out, *to, *rep, *format, *log;
	struct arg_int *budget, *elen, *patience, *jobs, *width;
	struct arg_dbl *time;
	struct arg_str *seed;
	struct arg_lit *minimize, *noverify, *progress, *strict;
	struct arg_file *in;
	struct arg_end *end;
} Args;

/* the options from the parsed arguments; -1 after a usage message */
static int
search_opts(const Args *a, SearchOpts *o, int *status)
{
	search_opts_default(o);
	o->algo = a->algo->count ? search_algo_by_name(a->algo->sval[0]) :
		SEARCH_RANDOM;
	if (o->algo < 0 && rl_algo_parse(a->algo->sval[0]) >= 0)
		o->algo = SEARCH_NALGO + rl_algo_parse(a->algo->sval[0]);
	o->objective = a->objective->count ?
		env_objective_by_name(a->objective->sval[0]) :
		ENV_OBJ_INSTRUCTIONS;
	if (o->algo < 0 || o->objective < 0) {
		*status = cmd_usage("--algo is random, greedy, beam, ppo, dqn "
			"or a2c; --objective instructions, flops, bytes, "
			"transcendentals or kernels");
		return -1;
	}
	o->budget = a->budget->count ? a->budget->ival[0] :
		a->time->count ? 0 : DEFAULT_BUDGET;
	o->seconds = a->time->count ? a->time->dval[0] : 0;
	o->episode_len = a->elen->count ? a->elen->ival[0] : 0;
	o->patience = a->patience->count ? a->patience->ival[0] : 0;
	o->jobs = a->jobs->count ? a->jobs->ival[0] : 1;
	o->beam_width = a->width->count ? a->width->ival[0] : 4;
	if ((a->budget->count && o->budget < 1) || o->seconds < 0 ||
	    o->episode_len < 0 || o->patience < 0 || o->jobs < 1 ||
	    o->jobs > 256 || o->beam_width < 1 || o->beam_width > 4096 ||
	    (a->seed->count && hlo_parse_u64(a->seed->sval[0], 0,
	    &o->seed) < 0)) {
		*status = cmd_usage("--budget, --beam-width and -j (at most "
			"256) must be positive; --time, --episode-len and "
			"--patience not negative; --seed a number");
		return -1;
	}
	return 0;
}

/* the search proper, once the arguments are checked */
static int
run(Search *s, const Args *a, HloModule *in, HloBuf *rep)
{
	HloModule *best = NULL;
	HloError e;
	int status = EXIT_OK, json = a->format->count &&
		!strcmp(a->format->sval[0], "json");

	if (hlo_cost(in, &s->before, &e) < 0 ||
	    baseline(in, "default", s->so.objective, &s->dflt, &e) < 0 ||
	    baseline(in, "saturate", s->so.objective, &s->sat, &e) < 0 ||
	    (s->so.algo >= SEARCH_NALGO ? cmd_rl_search(&s->rl, in, &s->so,
	    &s->sr, &e) : search_run(in, &s->so, &s->sr, &e)) < 0 ||
	    finish(s, in, &best, a->minimize->count, &e) < 0) {
		status = cmd_error_in(&e, "%s", s->in);
		goto done;
	}
	if (s->tty || a->progress->count)
		fputs(s->tty ? "\r\033[K" : "", stderr);
	if (!a->noverify->count && check(s, in, best, a->strict->count) !=
	    EV_EQUAL &&
	    s->verified != EV_PARTIAL) {
		HloBuf q = {0};

		seq_names(s->sr.seq, s->sr.nseq, &q);
		fprintf(stderr, "%s: verify: %s: %s\n%s: the sequence: %s\n",
			s->in, verdict(s->verified, &s->vr), s->vr.msg, s->in,
			q.buf);
		if (s->verified == EV_NOT_EVALUABLE)
			fprintf(stderr, "%s: --no-verify writes the result "
				"unchecked\n", s->in);
		hlo_buf_free(&q);
		status = cmd_verdict_status(s->verified);
		goto done;
	}
	if (s->verified == EV_PARTIAL) {	/* written, and said so */
		fprintf(stderr, "%s: verify: %s: %s\n", s->in,
			verdict(s->verified, &s->vr), s->vr.msg);
		status = cmd_verdict_status(s->verified);
	}
	if (json)
		report_json(s, rep);
	else
		report_text(s, rep);
	if ((a->log->count && write_csv(s, a->log->sval[0], &e) < 0) ||
	    (s->so.algo >= SEARCH_NALGO && cmd_rl_curves(&s->rl, s->in,
	    &e) < 0)) {
		status = cmd_error(&e);
		goto done;
	}
	if (a->out->count && cmd_write_module(best, a->out->sval[0],
	    a->to->count ? a->to->sval[0] : NULL, &e) < 0)
		status = cmd_error(&e);
done:
	hlo_module_free(best);
	return status;
}

int
cmd_search(int argc, char **argv)
{
	Args a = {
		arg_lit0(NULL, "help", "print this help"),
		arg_str0(NULL, "algo", "random|greedy|beam|ppo|dqn|a2c",
			"search algorithm or agent (default random)"),
		arg_str0(NULL, "objective", "NAME", "instructions (default), "
			"flops, bytes, transcendentals or kernels"),
		arg_str0("o", "output", "OUT", "write the best module to OUT "
			"(- for stdout)"),
		arg_str0(NULL, "to", "text|proto", "output format (default: "
			"by OUT's extension, .pb is proto)"),
		arg_str0(NULL, "report", "FILE", "write the report to FILE "
			"(default stdout; stderr when -o -)"),
		arg_str0(NULL, "format", "text|json", "report format"),
		arg_str0(NULL, "log", "FILE.csv", "one row per improvement: "
			"input, step, best, sequence"),
		arg_int0(NULL, "budget", "STEPS", "steps (pass applications) "
			"to spend (default 5000, none with --time alone)"),
		arg_int0(NULL, "episode-len", "N", "random: steps per episode "
			"(default: until the patience runs out); greedy, beam: "
			"sequence length at most (default: none)"),
		arg_int0(NULL, "patience", "N", "random: end an episode after "
			"N steps without improvement (default 1.25 x passes); "
			"beam: stop after N depths without (default 5); "
			"ppo, dqn, a2c: end an episode after N steps without "
			"(default 30)"),
		arg_int0("j", "jobs", "N", "worker threads (default 1; the "
			"result does not depend on N)"),
		arg_int0(NULL, "beam-width", "K", "beam: states kept per "
			"depth (default 4)"),
		arg_dbl0(NULL, "time", "SECONDS", "stop after this wall time "
			"(the result then depends on the machine)"),
		arg_str0(NULL, "seed", "S", "random seed (default 1)"),
		arg_lit0(NULL, "minimize", "shrink the best sequence to a "
			"shortest subsequence reaching the same objective"),
		arg_lit0(NULL, "no-verify", "do not check the best module "
			"with the evaluator (modules it cannot run)"),
		arg_lit0(NULL, "progress", "a progress line on stderr even "
			"when it is not a terminal"),
		arg_lit0(NULL, "strict-precision", "verify the best module "
			"against the input's strict semantics only (by "
			"default a difference is checked again against its "
			"excess-precision reference, convert round trips "
			"exact, as xla_allow_excess_precision allows)"),
		arg_file1(NULL, NULL, "IN", "input module, text or proto, - "
			"for stdin"),
		arg_end(5),
	};
	void *base[] = {a.help, a.algo, a.objective, a.out, a.to, a.rep,
		a.format, a.log, a.budget, a.elen, a.patience, a.jobs, a.width,
		a.time, a.seed, a.minimize, a.noverify, a.progress, a.strict,
		a.in, a.end};
	const char *summary = "search a pass order that beats the default "
		"pipeline (random, greedy or beam search, or the agents ppo, "
		"dqn, a2c)";
	Search s;
	void **argtable;
	int nargs;
	HloModule *in = NULL;
	HloBuf rep = {0};
	HloError e;
	const char *reppath;
	int status = EXIT_OK;

	memset(&s, 0, sizeof s);
	s.verified = -1;
	argtable = cmd_rl_table(&s.rl, base, sizeof base / sizeof base[0],
		"curve", &nargs);
	if (cmd_parse_args("search", summary, argtable, argc, argv, &status))
		goto done;
	if (cmd_format_arg(a.format, &status) < 0 ||
	    cmd_format_arg(a.to, &status) < 0 ||
	    search_opts(&a, &s.so, &status) < 0 ||
	    cmd_rl_setup(&s.rl, s.so.algo - SEARCH_NALGO, &status) < 0)
		goto done;
	s.in = a.in->filename[0];
	reppath = a.rep->count ? a.rep->sval[0] : a.out->count &&
		!strcmp(a.out->sval[0], "-") ? NULL : "-";
	s.tty = isatty(2);
	if (s.tty || a.progress->count) {
		s.so.progress = on_progress;
		s.so.arg = &s;
	}
	if ((status = cmd_load(s.in, &in)) != EXIT_OK)
		goto done;
	if ((status = run(&s, &a, in, &rep)) != EXIT_OK &&
	    status != EXIT_PARTIAL)
		goto done;
	if (!reppath)
		fwrite(rep.buf, 1, rep.len, stderr);
	else if (hlo_write_file(reppath, rep.buf, rep.len, &e) < 0)
		status = cmd_error(&e);
done:
	hlo_buf_free(&rep);
	ev_verify_free(&s.vr);
	search_result_free(&s.sr);
	pass_log_free(&s.log);
	hlo_module_free(in);
	arg_freetable(argtable, nargs);
	cmd_rl_free(&s.rl);
	return status;
}
