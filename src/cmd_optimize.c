/* cmd_optimize.c: hlopt optimize IN [-o OUT] [--to text|proto]
 * [--passes LIST|@FILE] [--report FILE] [--format text|json] [--verify]
 * [--verify-each] [--time] [--policy POLICY [--samples K]] */
#include <argtable2.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "hlo.h"
#include "cmd.h"
#include "cost.h"
#include "eval.h"
#include "pass.h"
#include "cmd_rl.h"
#include "cmd_dump.h"

typedef struct {
	const char *in;
	PassSeq seq;
	PassLog log;
	HloCost before, after;
	int verified;		/* -1 skipped, else an EV_* verdict */
	EvVerifyReport vr;
	double ms;
	HloBuf diff;		/* --diff: the instructions that differ */
	int64_t ndiff;		/* its lines, -1 without --diff */
	CmdDump dump;		/* --dump-after/--dump-to */
} Report;

static void
replay_line(const Report *r, HloBuf *b)
{
	HloBuf seq = {0};

	pass_seq_format(&r->seq, &seq);
	hlo_buf_puts(b, "hlopt optimize ");
	cmd_shell_word(b, r->in);
	hlo_buf_puts(b, " --passes ");
	/* argtable2 refuses an empty argument: the empty sequence is a
	 * blank */
	cmd_shell_word(b, seq.buf && *seq.buf ? seq.buf : " ");
	hlo_buf_free(&seq);
}

static const char *
verdict(int v, const EvVerifyReport *vr)
{
	return v < 0 ? "skipped" : v == vr->verdict ? ev_verify_verdict(vr) :
		ev_verdict_name(v);
}

static double
rate(const PassStep *st)
{
	return st->ms > 0 ? st->before / (st->ms / 1e3) : 0;
}

/* the per-step table: columns as wide as the longest pass name */
static void
steps_text(const Report *r, HloBuf *b)
{
	uint32_t i;
	int w = 4;

	for (i = 0; i < r->log.n; i++)
		if ((int)strlen(hlo_passes[r->log.steps[i].pass].name) > w)
			w = strlen(hlo_passes[r->log.steps[i].pass].name);
	hlo_buf_printf(b, "\n%4s  %-*s %5s %7s %9s %9s %8s %8s %11s %10s "
		"%12s\n", "step", w, "pass", "round", "changed", "before",
		"after", "removed", "added", "comps", "ms", "instrs/s");
	for (i = 0; i < r->log.n; i++) {
		const PassStep *st = &r->log.steps[i];
		char comps[32];

		snprintf(comps, sizeof comps, "%u->%u", st->comps_before,
			st->comps_after);
		hlo_buf_printf(b, "%4u  %-*s %5d %7d %9lld %9lld %8lld %8lld "
			"%11s %10.3f %12.0f\n", i + 1, w,
			hlo_passes[st->pass].name, st->round, st->changed,
			(long long)st->before, (long long)st->after,
			(long long)st->removed, (long long)st->added, comps,
			st->ms, rate(st));
	}
}

static void
report_text(const HloModule *m, const Report *r, HloBuf *b)
{
	HloBuf seq = {0};

	pass_seq_format(&r->seq, &seq);
	hlo_buf_printf(b, "input         %s\n", r->in);
	hlo_buf_printf(b, "passes        %s\n", seq.buf ? seq.buf : "");
	hlo_buf_puts(b, "replay        ");
	replay_line(r, b);
	hlo_buf_printf(b, "\ninstructions  %lld -> %lld (%+lld)\n",
		(long long)r->before.instructions,
		(long long)r->after.instructions,
		(long long)(r->after.instructions - r->before.instructions));
	hlo_buf_printf(b, "computations  %lld -> %lld\n",
		(long long)r->before.computations,
		(long long)r->after.computations);
	hlo_buf_printf(b, "kernels       %lld -> %lld\n",
		(long long)r->before.kernels, (long long)r->after.kernels);
	hlo_buf_puts(b, "bytes         ");
	hlo_buf_printf(b, "%.0f -> %.0f\n", r->before.bytes_accessed,
		r->after.bytes_accessed);
	hlo_buf_printf(b, "passes run    %u in %.3f ms\n", r->log.n, r->ms);
	hlo_buf_printf(b, "verify        %s%s%s\n", verdict(r->verified, &r->vr),
		r->verified > 0 ? ": " : "", r->verified > 0 ? r->vr.msg : "");
	if (r->verified >= 0 && r->vr.trials) {
		hlo_buf_puts(b, "\n");
		ev_verify_text(&r->vr, b);
	}
	if (r->dump.dir)
		hlo_buf_printf(b, "dumped        %u modules to %s\n",
			r->dump.files, r->dump.dir);
	steps_text(r, b);
	if (r->ndiff >= 0)
		hlo_buf_printf(b, "\ndiff          %lld lines\n%s",
			(long long)r->ndiff, r->diff.buf ? r->diff.buf : "");
	hlo_buf_puts(b, "\ncost before\n");
	hlo_cost_text(m, &r->before, b);
	hlo_buf_puts(b, "\ncost after\n");
	hlo_cost_text(m, &r->after, b);
	hlo_buf_free(&seq);
}

static void
report_json(const HloModule *m, const Report *r, HloBuf *b)
{
	HloBuf seq = {0}, rp = {0};
	uint32_t i;

	pass_seq_format(&r->seq, &seq);
	replay_line(r, &rp);
	hlo_buf_puts(b, "{\n  \"input\": ");
	hlo_buf_json(b, r->in);
	hlo_buf_puts(b, ",\n  \"sequence\": ");
	hlo_buf_json(b, seq.buf ? seq.buf : "");
	hlo_buf_puts(b, ",\n  \"replay\": ");
	hlo_buf_json(b, rp.buf);
	hlo_buf_printf(b, ",\n  \"instructions_before\": %lld,\n"
		"  \"instructions_after\": %lld,\n  \"ms\": %.3f,\n"
		"  \"verify\": ",
		(long long)r->before.instructions,
		(long long)r->after.instructions, r->ms);
	if (r->verified >= 0 && r->vr.trials)
		ev_verify_json(&r->vr, b);
	else
		hlo_buf_printf(b, "{\"verdict\": \"%s\", \"message\": "
			"\"\"}", verdict(r->verified, &r->vr));
	hlo_buf_printf(b, ",\n  \"kernels_before\": %lld,\n"
		"  \"kernels_after\": %lld", (long long)r->before.kernels,
		(long long)r->after.kernels);
	hlo_buf_puts(b, ",\n  \"steps\": [");
	for (i = 0; i < r->log.n; i++) {
		const PassStep *st = &r->log.steps[i];

		hlo_buf_printf(b, "%s\n    {\"step\": %u, \"id\": %d, "
			"\"pass\": \"%s\", \"changed\": %s, \"before\": %lld, "
			"\"after\": %lld, \"removed\": %lld, \"added\": %lld, "
			"\"rewrites\": %lld, \"round\": %d, "
			"\"computations_before\": %u, "
			"\"computations_after\": %u, \"ms\": %.3f, "
			"\"instructions_per_s\": %.0f}", i ? "," : "", i + 1,
			st->pass, hlo_passes[st->pass].name,
			st->changed ? "true" : "false", (long long)st->before,
			(long long)st->after, (long long)st->removed,
			(long long)st->added, (long long)st->rewrites,
			st->round, st->comps_before, st->comps_after, st->ms,
			rate(st));
	}
	hlo_buf_puts(b, r->log.n ? "\n  ]" : "]");
	if (r->ndiff >= 0) {
		hlo_buf_puts(b, ",\n  \"diff\": ");
		hlo_buf_json(b, r->diff.buf ? r->diff.buf : "");
	}
	hlo_buf_puts(b, ",\n  \"cost_before\": ");
	hlo_cost_json(m, &r->before, b);
	while (b->len && (b->buf[b->len - 1] == '\n'))
		b->len--;
	hlo_buf_puts(b, ",\n  \"cost_after\": ");
	hlo_cost_json(m, &r->after, b);
	while (b->len && (b->buf[b->len - 1] == '\n'))
		b->len--;
	hlo_buf_puts(b, "\n}\n");
	hlo_buf_free(&seq);
	hlo_buf_free(&rp);
}

/* --bench N: every pass of the sequence alone on N fresh copies of m;
 * prints the fastest run of each on stdout */
static int
bench(const HloModule *m, const PassSeq *seq, int reps, unsigned flags)
{
	PassCtx ctx;
	PassLog log = {0};
	HloModule *w;
	uint32_t i;
	int k;
	double best;
	int64_t before, after;

	pass_ctx_init(&ctx);
	ctx.flags = flags;
	printf("%-28s %10s %12s %14s %12s\n", "pass", "ms", "instrs",
		"instrs/s", "after");
	for (i = 0; i < seq->n; i++) {
		if (seq->items[i] < 0)
			continue;
		best = -1;
		before = after = 0;
		for (k = 0; k < reps; k++) {
			w = hlo_module_clone(m);
			log.n = 0;
			if (pass_run(w, seq->items[i], &ctx, &log) < 0) {
				cmd_error_in(&ctx.err, "hlopt");
				hlo_module_free(w);
				pass_log_free(&log);
				pass_ctx_free(&ctx);
				return -1;
			}
			if (best < 0 || log.steps[0].ms < best)
				best = log.steps[0].ms;
			before = log.steps[0].before;
			after = log.steps[0].after;
			hlo_module_free(w);
		}
		printf("%-28s %10.3f %12lld %14.0f %12lld\n",
			hlo_passes[seq->items[i]].name, best, (long long)before,
			best > 0 ? before / (best / 1e3) : 0, (long long)after);
	}
	pass_log_free(&log);
	pass_ctx_free(&ctx);
	return 0;
}

static void
timing(const Report *r)
{
	uint32_t i;

	for (i = 0; i < r->log.n; i++) {
		const PassStep *st = &r->log.steps[i];

		fprintf(stderr, "%-28s %10.3f ms %12.0f instrs/s %9lld -> "
			"%lld\n", hlo_passes[st->pass].name, st->ms, rate(st),
			(long long)st->before, (long long)st->after);
	}
}

/* where the module and the report go: the module to -o (default
 * stdout), the report to --report, else to stdout when the module goes to
 * a file or when --format asks for it without -o (then no module) */
static void
outputs(struct arg_str *out, struct arg_str *rep, int format,
	const char **outpath, const char **reppath)
{
	*outpath = out->count ? out->sval[0] : "-";
	*reppath = NULL;
	if (rep->count)
		*reppath = rep->sval[0];
	else if (strcmp(*outpath, "-"))
		*reppath = "-";
	else if (format) {
		*outpath = NULL;
		*reppath = "-";
	}
}

/* the pass sequence the flags give: --passes (default: default) or
 * --policy (read once the module is loaded), then --fusion-strategy's;
 * EXIT_OK or the usage status */
static int
seq_args(struct arg_str *passes, struct arg_str *policy,
	struct arg_int *samples, struct arg_int *climb, struct arg_str *fstrat,
	PassSeq *seq, const PassFusionStrategy **fst)
{
	HloError e;

	if ((policy->count && passes->count) || (samples->count &&
	    (!policy->count || samples->ival[0] < 0)) || (climb->count &&
	    (!policy->count || climb->ival[0] < 0))) {
		return cmd_usage("--policy or --passes, not both; --samples "
			"and --climb (not negative) go with --policy");
	}
	if (pass_seq_parse(passes->count ? passes->sval[0] : "default",
	    seq, &e) < 0) {
		cmd_error_in(&e, "hlopt");
		return EXIT_USAGE;
	}
	if (fstrat->count && !(*fst = pass_fusion_strategy(fstrat->sval[0],
	    strlen(fstrat->sval[0])))) {
		return cmd_usage("unknown fusion strategy '%s' (none, xla-cpu, "
			"xla-gpu, aggressive, merge-across, unfused)",
			fstrat->sval[0]);
	}
	return EXIT_OK;
}

/* runs r->seq over m with ctx, the cost measured before and after; with
 * vo, the result is checked against the input (r->verified). EXIT_OK,
 * or the status to end with (a partial verification goes on writing) */
static int
run_checked(HloModule *m, Report *r, PassCtx *ctx, EvVerifyOpts *vo)
{
	HloModule *orig = vo || r->ndiff >= 0 ? hlo_module_clone(m) : NULL;
	HloError e;
	uint32_t i;
	double t0;
	int status = EXIT_ERR;

	if (hlo_cost(m, &r->before, &e) < 0) {
		cmd_error_in(&e, "%s", r->in);
		goto out;
	}
	t0 = hlo_now();
	if (pass_run_seq(m, &r->seq, ctx, &r->log) < 0) {
		cmd_error_in(&ctx->err, "%s", r->in);
		goto out;
	}
	r->ms = (hlo_now() - t0) * 1e3;
	if (hlo_cost(m, &r->after, &e) < 0) {
		cmd_error_in(&e, "%s: after the passes", r->in);
		goto out;
	}
	status = EXIT_OK;
	if (r->ndiff >= 0)
		r->ndiff = cmd_diff(orig, m, &r->diff);
	for (i = 0; i < r->log.n && !r->log.steps[i].changed; i++)
		;
	if (vo && i == r->log.n) {
		r->verified = 0;	/* nothing changed: the same module */
	} else if (vo) {
		vo->locate = 1;
		vo->name_a = "the input";
		vo->name_b = "the output";
		r->verified = ev_verify(orig, m, vo, &r->vr);
	}
	if (r->verified > 0) {
		fprintf(stderr, "%s: verify: %s: %s\n", r->in,
			verdict(r->verified, &r->vr), r->vr.msg);
		status = cmd_verdict_status(r->verified);
	}
out:
	hlo_module_free(orig);
	return status;
}

/* the sequence completed once the module is loaded: --policy's passes
 * (samples sampled rollouts, climb climbing rollouts or -1 for the
 * policy's own count, seed), then --fusion-strategy's */
static int
policy_fusion(const HloModule *m, const char *policy, int samples,
	int climb, uint64_t seed, const PassFusionStrategy *fst, PassSeq *seq)
{
	HloError e;

	if (policy && cmd_policy_seq(m, policy, samples, climb, seed, seq,
	    &e) < 0)
		return cmd_error(&e);
	if (fst && pass_seq_parse_text(fst->seq, strlen(fst->seq), "fusion",
	    seq, &e) < 0)
		return cmd_error_in(&e, "hlopt");
	return EXIT_OK;
}

/* --dump-to and --dump-after: r->dump set up; -1 after a message */
static int
dump_args(struct arg_str *to, struct arg_str *after, CmdDump *d,
	int *status)
{
	memset(d, 0, sizeof *d);
	if (after->count && !to->count) {
		*status = cmd_usage("--dump-after: needs --dump-to DIR");
		return -1;
	}
	if (!to->count)
		return 0;
	return cmd_dump_init(d, after->count ? after->sval[0] : "all",
		to->sval[0], status);
}

/* --dump-to: the folder made, the input written as 0000.input.hlo and
 * the hook installed */
static int
dump_input(const HloModule *m, CmdDump *d, PassCtx *ctx)
{
	HloBuf text = {0};
	HloError e;
	char path[4096];
	int r;

	if (mkdir(d->dir, 0777) < 0 && errno != EEXIST) {
		hlo_err_file(&e, d->dir, "--dump-to: %s", strerror(errno));
		return cmd_error(&e);
	}
	if (snprintf(path, sizeof path, "%s/0000.input.hlo", d->dir) >=
	    (int)sizeof path) {
		hlo_err_file(&e, d->dir, "--dump-to: path too long");
		return cmd_error(&e);
	}
	hlo_print_module(m, &text);
	r = hlo_write_file(path, text.buf, text.len, &e);
	hlo_buf_free(&text);
	if (r < 0)
		return cmd_error(&e);
	d->files = 1;
	ctx->after = cmd_dump_after;
	ctx->after_arg = d;
	return EXIT_OK;
}

int
cmd_optimize(int argc, char **argv)
{
	struct arg_lit *help = arg_lit0(NULL, "help", "print this help");
	struct arg_str *out = arg_str0("o", "output", "OUT",
		"output module, - for stdout (default -)");
	struct arg_str *to = arg_str0(NULL, "to", "text|proto",
		"output format (default: by OUT's extension, .pb is proto)");
	struct arg_str *passes = arg_str0("p", "passes", "LIST|@FILE",
		"pass names separated by commas, fix(...) groups, 'default'; "
		"@FILE: one per line, # comments (default: default)");
	struct arg_str *rep = arg_str0(NULL, "report", "FILE",
		"write the report to FILE, - for stdout (default: stdout "
		"when OUT is a file)");
	struct arg_str *format = arg_str0(NULL, "format", "text|json",
		"report format (default text)");
	struct arg_lit *verify = arg_lit0(NULL, "verify",
		"evaluate input and output on the same inputs (flags and "
		"exit statuses as in hlopt verify: 4 different, 5 partially "
		"verified, 3 not evaluable)");
	CmdEvalArgs ea = cmd_eval_args(1);
	struct arg_lit *each = arg_lit0(NULL, "verify-each",
		"check the module's invariants after every pass");
	struct arg_lit *tim = arg_lit0(NULL, "time",
		"print the time of every pass on stderr");
	struct arg_int *nbench = arg_int0(NULL, "bench", "N",
		"only time every pass of the sequence alone, the best of N "
		"runs on fresh copies of IN; prints a table, writes nothing");
	struct arg_str *policy = arg_str0(NULL, "policy", "POLICY",
		"the passes a trained policy picks (hlopt train): its greedy "
		"rollout");
	struct arg_int *samples = arg_int0(NULL, "samples", "K",
		"--policy: the best of the greedy and K sampled rollouts");
	struct arg_int *climb = arg_int0(NULL, "climb", "N",
		"--policy: at most N greedy rollouts from the best state "
		"found (default: the count the policy file records)");
	struct arg_str *fstrat = arg_str0(NULL, "fusion-strategy",
		"none|xla-cpu|xla-gpu|aggressive|merge-across|unfused",
		"run this fusion strategy after the passes (man hlopt, "
		"FUSION)");
	struct arg_str *dumpto = arg_str0(NULL, "dump-to", "DIR",
		"write the input and the module after every pass that "
		"changed it into DIR (made if missing)");
	struct arg_str *dumpafter = arg_str0(NULL, "dump-after",
		"PASS,...|all", "with --dump-to: only after these passes "
		"(default all)");
	struct arg_lit *diff = arg_lit0(NULL, "diff", "add to the report "
		"the instructions that differ between input and output");
	struct arg_file *in = arg_file1(NULL, NULL, "IN",
		"input module, text or proto, - for stdin");
	struct arg_end *end = arg_end(5);
	void *argtable[] = {help, out, to, passes, rep, format, verify,
		ea.trials, ea.seed, ea.rtol, ea.atol, ea.mem, ea.threads,
		ea.maxsteps, ea.maxelems, ea.maxgflop, ea.strict, each, tim,
		nbench, policy, samples, climb, fstrat, dumpto, dumpafter, diff, in, end};
	const PassFusionStrategy *fst = NULL;
	const char *summary = "run a sequence of passes over a module";
	HloModule *m = NULL;
	PassCtx ctx;
	Report r;
	HloBuf b = {0};
	HloError e;
	EvVerifyOpts vo;
	const char *outpath, *reppath = NULL;
	int status = EXIT_OK, json = 0;

	memset(&r, 0, sizeof r);
	r.verified = -1;
	pass_ctx_init(&ctx);
	if (cmd_parse_args("optimize", summary, argtable, argc, argv, &status))
		goto done;
	r.ndiff = diff->count ? 0 : -1;
	if ((json = cmd_format_arg(format, &status)) < 0 ||
	    cmd_format_arg(to, &status) < 0 ||
	    dump_args(dumpto, dumpafter, &r.dump, &status) < 0 ||
	    cmd_eval_parse(&ea, &vo, &status) < 0 ||
	    (status = seq_args(passes, policy, samples, climb, fstrat,
	    &r.seq, &fst)) != EXIT_OK)
		goto done;
	r.in = in->filename[0];
	outputs(out, rep, format->count, &outpath, &reppath);
	if (out->count && cmd_check_out(outpath, to->count ? to->sval[0] :
	    NULL, &status) < 0)
		goto done;
	if ((status = cmd_load(r.in, &m)) != EXIT_OK)
		goto done;
	if ((status = policy_fusion(m, policy->count ? policy->sval[0] :
	    NULL, samples->count ? samples->ival[0] : 0, climb->count ?
	    climb->ival[0] : -1, ea.seed->count ?
	    vo.seed : 1, fst, &r.seq)) != EXIT_OK)
		goto done;
	if (nbench->count) {
		if (bench(m, &r.seq, nbench->ival[0] > 0 ? nbench->ival[0] :
		    1, each->count ? PASS_VERIFY : 0) < 0)
			status = EXIT_ERR;
		goto done;
	}
	ctx.flags = PASS_NAMES | (each->count ? PASS_VERIFY : 0);
	if (r.dump.dir && (status = dump_input(m, &r.dump, &ctx)) != EXIT_OK)
		goto done;
	if ((status = run_checked(m, &r, &ctx, verify->count ? &vo : NULL)) !=
	    EXIT_OK && r.verified != EV_PARTIAL)
		goto done;	/* a failed check writes nothing */
	if (reppath)
		(json ? report_json : report_text)(m, &r, &b);
	if (tim->count)
		timing(&r);
	if (cmd_write_outputs(outpath ? m : NULL, out->count ? outpath :
	    NULL, to->count ? to->sval[0] : NULL, reppath, &b, &e) < 0) {
		status = cmd_error(&e);
		goto done;
	}
done:
	ev_verify_free(&r.vr);
	hlo_buf_free(&r.diff);
	cmd_dump_free(&r.dump);
	hlo_buf_free(&b);
	pass_seq_free(&r.seq);
	pass_log_free(&r.log);
	pass_ctx_free(&ctx);
	hlo_module_free(m);
	arg_freetable(argtable, sizeof argtable / sizeof argtable[0]);
	return status;
}
