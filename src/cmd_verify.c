/* cmd_verify.c: hlopt verify A B [--trials N] [--seed S] [--rtol R]
 * [--atol A] [--max-memory BYTES] [--threads N] [--max-steps N]
 * [--max-elements N] [--max-gflop G] [--format text|json] [--no-locate]
 * [--exact] [--strict-precision];
 * and the evaluation flags and the verdict-to-exit-status table that
 * run, optimize --verify and search share with it. */
#include <argtable2.h>
#include <stdio.h>
#include <string.h>

#include "hlo.h"
#include "cmd.h"
#include "eval.h"

CmdEvalArgs
cmd_eval_args(int verify)
{
	CmdEvalArgs x, *a = &x;

	memset(a, 0, sizeof *a);
	if (verify) {
		a->trials = arg_int0(NULL, "trials", "N",
			"input sets to try (default 3)");
		a->rtol = arg_dbl0(NULL, "rtol", "R", "relative tolerance "
			"for floats, used as given for every type (default "
			"per type: 1e-3 f32/f64/complex, 1e-2 f16, 3e-2 bf16, "
			"0.25 8-bit floats)");
		a->atol = arg_dbl0(NULL, "atol", "A", "absolute tolerance "
			"for floats, used as given for every type (default "
			"per type: 1e-5 f32/f64/complex, 1e-3 f16, 1e-2 bf16, "
			"0.1 8-bit floats, times the output's largest "
			"magnitude when below 1, at least 1/1000 of it)");
		a->strict = arg_lit0(NULL, "strict-precision", "compare with "
			"the first module's strict semantics only; by default "
			"a second module that differs from it is compared "
			"again with its excess-precision reference (every "
			"f32->bf16->f32-like convert round trip exact, as "
			"xla_allow_excess_precision, on by default in xla, "
			"lets SimplifyFPConversions remove it)");
	}
	a->seed = arg_str0(NULL, "seed", "S", "input seed (default 0)");
	a->mem = arg_str0(NULL, "max-memory", "BYTES", "limit on live "
		"buffers per module, suffix K, M or G (default 4G)");
	a->threads = arg_int0(NULL, "threads", "N", "threads for big "
		"operations (default: one per processor; results do not "
		"depend on it)");
	a->maxsteps = arg_str0(NULL, "max-steps", "N", "limit on "
		"instructions executed per run (default 100000000)");
	a->maxelems = arg_str0(NULL, "max-elements", "N", "limit on result "
		"elements computed per run (default 50000000000)");
	a->maxgflop = arg_dbl0(NULL, "max-gflop", "G", "limit on dot and "
		"convolution GFLOP per run (default 2000)");
	return x;
}

static int
usage_err(int *status, const char *flag, const char *val, const char *why)
{
	*status = cmd_usage("--%s: '%s' %s", flag, val, why);
	return -1;
}

static int
u64_flag(struct arg_str *f, const char *name, int suffix, uint64_t *v,
	int *status)
{
	if (!f || !f->count)
		return 0;
	if (hlo_parse_u64(f->sval[0], suffix, v) < 0 || *v == 0)
		return usage_err(status, name, f->sval[0], suffix ?
			"is not a positive size (digits, then K, M, G or T)" :
			"is not a positive integer");
	return 0;
}

int
cmd_eval_parse(const CmdEvalArgs *a, EvVerifyOpts *o, int *status)
{
	char buf[64];

	ev_verify_defaults(o);
	if (a->strict && a->strict->count)
		o->excess = 0;
	if (a->seed && a->seed->count && hlo_parse_u64(a->seed->sval[0], 0,
	    &o->seed) < 0)
		return usage_err(status, "seed", a->seed->sval[0],
			"is not a non-negative integer");
	if (u64_flag(a->mem, "max-memory", 1, &o->limit, status) < 0 ||
	    u64_flag(a->maxsteps, "max-steps", 0, &o->maxsteps, status) < 0 ||
	    u64_flag(a->maxelems, "max-elements", 0, &o->maxelems, status) < 0)
		return -1;
	if (a->trials && a->trials->count) {
		o->trials = a->trials->ival[0];
		snprintf(buf, sizeof buf, "%d", o->trials);
		if (o->trials < 1)
			return usage_err(status, "trials", buf,
				"is not positive");
	}
	if (a->threads && a->threads->count) {
		o->threads = a->threads->ival[0];
		snprintf(buf, sizeof buf, "%d", o->threads);
		if (o->threads < 1 || o->threads > EV_MAX_THREADS)
			return usage_err(status, "threads", buf,
				"is not 1 to 64");
	}
	if (a->rtol && a->rtol->count) {
		o->rtol = a->rtol->dval[0];
		snprintf(buf, sizeof buf, "%g", o->rtol);
		if (!(o->rtol >= 0))
			return usage_err(status, "rtol", buf, "is negative");
	}
	if (a->atol && a->atol->count) {
		o->atol = a->atol->dval[0];
		snprintf(buf, sizeof buf, "%g", o->atol);
		if (!(o->atol >= 0))
			return usage_err(status, "atol", buf, "is negative");
	}
	if (a->maxgflop && a->maxgflop->count) {
		o->maxflops = a->maxgflop->dval[0] * 1e9;
		snprintf(buf, sizeof buf, "%g", a->maxgflop->dval[0]);
		if (!(o->maxflops > 0))
			return usage_err(status, "max-gflop", buf,
				"is not positive");
	}
	return 0;
}

int
cmd_verdict_status(int verdict)
{
	switch (verdict) {
	case EV_EQUAL:
		return EXIT_OK;
	case EV_DIFFERENT:
		return EXIT_DIFFERENT;
	case EV_PARTIAL:
		return EXIT_PARTIAL;
	case EV_NOT_EVALUABLE:
		return EXIT_NOEVAL;
	}
	return EXIT_ERR;
}

int
cmd_verify(int argc, char **argv)
{
	struct arg_lit *help = arg_lit0(NULL, "help", "print this help");
	CmdEvalArgs ea = cmd_eval_args(1);
	struct arg_str *format;
	struct arg_lit *noloc, *exact;
	struct arg_file *files;
	struct arg_end *end;
	const char *summary = "check that two modules compute the same "
		"outputs on the same random inputs";
	HloModule *a = NULL, *b = NULL;
	EvVerifyOpts o;
	EvVerifyReport r;
	HloBuf out = {0};
	HloError e;
	int status = EXIT_OK, json = 0;

	format = arg_str0(NULL, "format", "text|json",
		"report format (default text)");
	noloc = arg_lit0(NULL, "no-locate", "on a difference, do not look "
		"for the first instruction that diverges (two more "
		"evaluations)");
	exact = arg_lit0(NULL, "exact", "floats must be equal (tolerances "
		"0), NaN matching NaN and an infinity the same infinity, "
		"which then count as compared: for modules whose outputs are "
		"non-finite by design");
	files = arg_filen(NULL, NULL, "FILE", 2, 2,
		"the two modules, text or proto: the original first");
	end = arg_end(5);
	void *argtable[] = {help, ea.trials, ea.seed, ea.rtol, ea.atol,
		ea.mem, ea.threads, ea.maxsteps, ea.maxelems, ea.maxgflop,
		ea.strict, format, noloc, exact, files, end};

	memset(&r, 0, sizeof r);
	if (cmd_parse_args("verify", summary, argtable, argc, argv, &status))
		goto done;
	if ((json = cmd_format_arg(format, &status)) < 0)
		goto done;
	if (cmd_eval_parse(&ea, &o, &status) < 0)
		goto done;
	o.locate = !noloc->count;
	o.exact = exact->count > 0;
	o.name_a = files->filename[0];
	o.name_b = files->filename[1];
	if ((status = cmd_load(files->filename[0], &a)) != EXIT_OK ||
	    (status = cmd_load(files->filename[1], &b)) != EXIT_OK)
		goto done;
	ev_verify(a, b, &o, &r);
	status = cmd_verdict_status(r.verdict);
	if (r.verdict == EV_NOT_EVALUABLE || r.verdict == EV_FAILED)
		fprintf(stderr, "hlopt: verify: %s\n", r.msg);
	if (json) {
		ev_verify_json(&r, &out);
		hlo_buf_puts(&out, "\n");
	} else {
		ev_verify_text(&r, &out);
	}
	if (hlo_write_file("-", out.buf ? out.buf : "", out.len, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		status = EXIT_ERR;
	}
done:
	ev_verify_free(&r);
	hlo_buf_free(&out);
	hlo_module_free(a);
	hlo_module_free(b);
	arg_freetable(argtable, sizeof argtable / sizeof argtable[0]);
	return status;
}
