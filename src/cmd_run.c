/* cmd_run.c: hlopt run FILE [--seed S] [--format text|json]
 * [--max-memory BYTES] [--time] */
#include <argtable2.h>
#include <stdio.h>
#include <time.h>

#include "hlo.h"
#include "cmd.h"
#include "eval.h"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* parses the --seed and --max-memory options; -1 after a message */
int
cmd_eval_opts(struct arg_str *seed, struct arg_str *mem, uint64_t *s,
	uint64_t *limit, int *status)
{
	*s = 0;
	*limit = EV_DEFAULT_LIMIT;
	if (seed->count && hlo_parse_u64(seed->sval[0], 0, s) < 0) {
		fprintf(stderr, "hlopt: error: bad --seed '%s'\n",
			seed->sval[0]);
		*status = EXIT_USAGE;
		return -1;
	}
	if (mem->count && (hlo_parse_u64(mem->sval[0], 1, limit) < 0 ||
	    *limit == 0)) {
		fprintf(stderr, "hlopt: error: bad --max-memory '%s'\n",
			mem->sval[0]);
		*status = EXIT_USAGE;
		return -1;
	}
	return 0;
}

/* opcodes by self time, most first */
static void
profile(const HloEval *ev, double total)
{
	int order[HOP_COUNT], n = 0, k, j, t;

	for (k = 0; k < HOP_COUNT; k++)
		if (ev->profn[k])
			order[n++] = k;
	for (k = 1; k < n; k++)
		for (j = k; j > 0 && ev->prof[order[j]] >
		    ev->prof[order[j - 1]]; j--) {
			t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	fprintf(stderr, "%-24s %10s %10s %6s\n", "opcode", "count",
		"seconds", "%");
	for (k = 0; k < n; k++)
		fprintf(stderr, "%-24s %10llu %10.3f %6.1f\n",
			hlo_opinfo[order[k]].name,
			(unsigned long long)ev->profn[order[k]],
			ev->prof[order[k]], total > 0 ?
			100 * ev->prof[order[k]] / total : 0);
}

int
cmd_run(int argc, char **argv)
{
	struct arg_lit *help = arg_lit0(NULL, "help", "print this help");
	struct arg_str *seed = arg_str0(NULL, "seed", "S",
		"input seed (default 0)");
	struct arg_str *format = arg_str0(NULL, "format", "text|json",
		"report format (default text)");
	struct arg_str *mem = arg_str0(NULL, "max-memory", "BYTES",
		"limit on live buffers, suffix K, M or G (default 4G)");
	struct arg_lit *tm = arg_lit0(NULL, "time",
		"print time and dot/convolution GFLOP/s to stderr");
	struct arg_lit *prof = arg_lit0(NULL, "profile",
		"print seconds per opcode to stderr");
	struct arg_int *thr = arg_int0(NULL, "threads", "N",
		"threads for big operations (default: one per processor; "
		"results do not depend on it)");
	struct arg_file *in = arg_file1(NULL, NULL, "FILE",
		"input module, text or proto, - for stdin");
	struct arg_end *end = arg_end(5);
	void *argtable[] = {help, seed, format, mem, tm, prof, thr, in, end};
	const char *summary = "evaluate a module on deterministic random "
		"inputs and print a summary of each output";
	HloModule *m = NULL;
	HloEval ev = {0};
	HloVal **args = NULL, *out = NULL;
	uint32_t nargs = 0;
	HloInputHints h = {0};
	HloBuf b = {0};
	HloError e;
	uint64_t s, limit;
	int status = EXIT_OK, json = 0;
	double t0, t1;

	if (cmd_parse_args("run", summary, argtable, argc, argv, &status))
		goto done;
	if (format->count && (json = cmd_format_arg(format->sval[0],
	    "text|json", &status)) < 0)
		goto done;
	if (cmd_eval_opts(seed, mem, &s, &limit, &status) < 0)
		goto done;
	if (thr->count && (thr->ival[0] < 1 || thr->ival[0] > EV_MAX_THREADS)) {
		fprintf(stderr, "hlopt: run: --threads must be 1 to %d\n",
			EV_MAX_THREADS);
		status = EXIT_USAGE;
		goto done;
	}
	if ((status = cmd_load(in->filename[0], &m)) != EXIT_OK)
		goto done;
	t0 = now();
	hlo_eval_hints(m, &h);
	hlo_eval_init(&ev, m, limit, &e);
	if (thr->count)
		ev.threads = thr->ival[0];
	if (prof->count) {
		ev.prof = xcalloc(HOP_COUNT, sizeof *ev.prof);
		ev.profn = xcalloc(HOP_COUNT, sizeof *ev.profn);
	}
	if (hlo_eval_inputs(&ev, s, &h, &args, &nargs) < 0 ||
	    hlo_eval_entry(&ev, args, nargs, &out) < 0) {
		fprintf(stderr, "hlopt: run: %s: %s\n", in->filename[0],
			e.msg);
		status = ev.status == EV_NOEVAL ? EXIT_NOEVAL : EXIT_ERR;
		goto done;
	}
	t1 = now();
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
	hlo_eval_hints_free(&h);
	hlo_buf_free(&b);
	hlo_module_free(m);
	arg_freetable(argtable, sizeof argtable / sizeof argtable[0]);
	return status;
}
