/* cmd_run.c: hlopt run FILE [--seed S] [--format text|json]
 * [--max-memory BYTES] [--threads N] [--max-steps N] [--max-elements N]
 * [--max-gflop G] [--inputs FILE] [--ranges-from ORIG] [--random-inputs]
 * [--print-outputs] [--time] [--profile] [--untiled-fusions] */
#include <argtable2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "cmd.h"
#include "eval.h"

/* opcodes by self time, most first; then "other", the time of the run
 * no instruction accounts for (input and output literals, buffers,
 * scheduling), and the total */
static void
profile(const HloEval *ev, double total)
{
	int order[HOP_COUNT], n = 0, k, j, t;
	double self = 0;

	for (k = 0; k < HOP_COUNT; k++)
		if (ev->profn[k]) {
			order[n++] = k;
			self += ev->prof[k];
		}
	for (k = 1; k < n; k++)
		for (j = k; j > 0 && ev->prof[order[j]] >
		    ev->prof[order[j - 1]]; j--) {
			t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	fprintf(stderr, "%-24s %10s %12s %6s\n", "opcode", "count", "ms",
		"%");
	for (k = 0; k < n; k++)
		fprintf(stderr, "%-24s %10llu %12.3f %6.1f\n",
			hlo_opinfo[order[k]].name,
			(unsigned long long)ev->profn[order[k]],
			1e3 * ev->prof[order[k]], total > 0 ?
			100 * ev->prof[order[k]] / total : 0);
	fprintf(stderr, "%-24s %10s %12.3f %6.1f\n", "other", "",
		total > self ? 1e3 * (total - self) : 0, total > self ?
		100 * (total - self) / total : 0);
	fprintf(stderr, "%-24s %10s %12.3f %6.1f\n", "total", "", 1e3 * total,
		total > 0 ? 100.0 : 0);
}

/* the inputs: from --inputs, else the snapshot's arguments (snap, NULL
 * if none or --random-inputs), else random from the hints of
 * --ranges-from (default: of the module itself) */
static int
inputs(HloEval *ev, const char *file, const HloModule *snap,
	const char *path, const char *ranges, uint64_t seed, HloVal ***args,
	uint32_t *nargs, int *status)
{
	HloInputHints h = {0};
	HloModule *o = NULL;
	HloError e;
	char *text;
	size_t n;
	int r;

	if (file) {
		if (hlo_read_file(file, &text, &n, &e) < 0) {
			fprintf(stderr, "%s\n", e.msg);
			*status = EXIT_ERR;
			return -1;
		}
		r = ev_inputs_text(ev, text, n, file, args, nargs);
		free(text);
		if (r < 0) {
			fprintf(stderr, "hlopt: run: %s\n", ev->err->msg);
			*status = EXIT_ERR;
		}
		return r;
	}
	if (snap) {
		snprintf(e.msg, sizeof e.msg, "%s: the snapshot's arguments",
			strcmp(path, "-") ? path : "<stdin>");
		if ((r = ev_inputs_module(ev, snap, e.msg, args, nargs)) < 0) {
			fprintf(stderr, "hlopt: run: %s\n", ev->err->msg);
			*status = EXIT_ERR;
		}
		return r;
	}
	if (ranges) {
		if ((*status = cmd_load(ranges, &o)) != EXIT_OK)
			return -1;
		if (!hlo_eval_signature_eq(o, ev->m, e.msg, sizeof e.msg)) {
			fprintf(stderr, "hlopt: run: --ranges-from %s: %s\n",
				ranges, e.msg);
			hlo_module_free(o);
			*status = EXIT_ERR;
			return -1;
		}
		hlo_eval_hints(o, &h);
		hlo_module_free(o);
	} else {
		hlo_eval_hints(ev->m, &h);
	}
	r = hlo_eval_inputs(ev, seed, &h, args, nargs);
	hlo_eval_hints_free(&h);
	return r;
}

/* the evaluator's limits and modes from the flags */
static void
setup(HloEval *ev, const EvVerifyOpts *o, int prof, int untiled)
{
	if (o->threads)
		ev->threads = o->threads;
	ev_verify_limits(ev, o);
	if (prof) {
		ev->prof = xcalloc(HOP_COUNT, sizeof *ev->prof);
		ev->profn = xcalloc(HOP_COUNT, sizeof *ev->profn);
	}
	ev->untiled = untiled > 0;
}

int
cmd_run(int argc, char **argv)
{
	struct arg_lit *help = arg_lit0(NULL, "help", "print this help");
	CmdEvalArgs ea = cmd_eval_args(0);
	struct arg_str *format, *infile, *ranges;
	struct arg_lit *tm, *prof, *print, *rnd, *untiled;
	struct arg_file *in;
	struct arg_end *end;
	const char *summary = "evaluate a module on deterministic random "
		"inputs and print a summary of each output";
	HloModule *m = NULL, *snap = NULL;
	HloEval ev = {0};
	HloVal **args = NULL, *out = NULL;
	uint32_t nargs = 0;
	HloBuf b = {0};
	HloError e;
	EvVerifyOpts o;
	int status = EXIT_OK, json = 0;
	double t0, t1;

	format = arg_str0(NULL, "format", "text|json",
		"report format (default text)");
	infile = arg_str0(NULL, "inputs", "FILE", "the inputs: one HLO "
		"literal per entry parameter (as --print-outputs prints "
		"them), instead of random ones");
	ranges = arg_str0(NULL, "ranges-from", "ORIG", "draw the random "
		"inputs by the data-flow rule of ORIG, a module of the same "
		"entry signature (default: of FILE itself)");
	rnd = arg_lit0(NULL, "random-inputs", "random inputs even when FILE "
		"is a snapshot that carries its arguments");
	print = arg_lit0(NULL, "print-outputs", "print every output as an "
		"HLO literal instead of its summary");
	tm = arg_lit0(NULL, "time",
		"print time and dot/convolution GFLOP/s to stderr");
	prof = arg_lit0(NULL, "profile", "print seconds per opcode to stderr");
	untiled = arg_lit0(NULL, "untiled-fusions", "evaluate every fusion "
		"like a call, materializing each intermediate, instead of "
		"loop fusions tile by tile (the outputs are the same bytes)");
	in = arg_file1(NULL, NULL, "FILE",
		"input module, text or proto, - for stdin");
	end = arg_end(5);
	void *argtable[] = {help, ea.seed, format, ea.mem, ea.threads,
		ea.maxsteps, ea.maxelems, ea.maxgflop, infile, ranges, rnd, print,
		tm, prof, untiled, in, end};

	if (cmd_parse_args("run", summary, argtable, argc, argv, &status))
		goto done;
	if ((json = cmd_format_arg(format, &status)) < 0)
		goto done;
	if (cmd_eval_parse(&ea, &o, &status) < 0)
		goto done;
	if (infile->count && ranges->count) {
		status = cmd_usage("--inputs and --ranges-from exclude each "
			"other");
		goto done;
	}
	if ((status = cmd_load_args(in->filename[0], 1, &m, &snap)) !=
	    EXIT_OK)
		goto done;
	if (snap && (rnd->count || infile->count || ranges->count)) {
		hlo_module_free(snap);
		snap = NULL;
	}
	t0 = hlo_now();
	hlo_eval_init(&ev, m, o.limit, &e);
	setup(&ev, &o, prof->count, untiled->count);
	if (inputs(&ev, infile->count ? infile->sval[0] : NULL, snap,
	    in->filename[0], ranges->count ? ranges->sval[0] : NULL, o.seed, &args, &nargs,
	    &status) < 0) {
		if (status == EXIT_OK) {
			fprintf(stderr, "hlopt: run: %s: %s\n",
				in->filename[0], e.msg);
			status = ev.status == EV_NOEVAL ? EXIT_NOEVAL :
				EXIT_ERR;
		}
		goto done;
	}
	if (hlo_eval_entry(&ev, args, nargs, &out) < 0) {
		fprintf(stderr, "hlopt: run: %s: %s\n", in->filename[0],
			e.msg);
		status = ev.status == EV_NOEVAL ? EXIT_NOEVAL : EXIT_ERR;
		goto done;
	}
	t1 = hlo_now();
	if (print->count)
		ev_print_literals(&ev, out, &b);
	else
		hlo_eval_report(&ev, out, json, &b);
	if (tm->count)
		fprintf(stderr, "time %.3f s, peak %.1f MiB, dot/conv %.3f "
			"GFLOP in %.3f s = %.2f GFLOP/s, %llu instructions, "
			"%.3g elements\n", t1 - t0, ev.peak / 1048576.0,
			ev.flops * 1e-9, ev.gemm_secs, ev.gemm_secs > 0 ?
			ev.flops * 1e-9 / ev.gemm_secs : 0,
			(unsigned long long)ev.steps, (double)ev.elems);
	if (prof->count)
		profile(&ev, t1 - t0);
	if (hlo_write_file("-", b.buf ? b.buf : "", b.len, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		status = EXIT_ERR;
	}
done:
	hlo_val_unref(&ev, out);
	if (ev.m)
		hlo_eval_free_args(&ev, args, nargs);
	hlo_eval_fini(&ev);
	hlo_buf_free(&b);
	hlo_module_free(m);
	hlo_module_free(snap);
	arg_freetable(argtable, sizeof argtable / sizeof argtable[0]);
	return status;
}
