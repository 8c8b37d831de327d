/* cmd_verify.c: hlopt verify A B [--trials N] [--seed S] [--rtol R]
 * [--atol A] [--max-memory BYTES] */
#include <argtable2.h>
#include <stdio.h>

#include "hlo.h"
#include "cmd.h"
#include "eval.h"

int
cmd_verify(int argc, char **argv)
{
	struct arg_lit *help = arg_lit0(NULL, "help", "print this help");
	struct arg_int *trials = arg_int0(NULL, "trials", "N",
		"input sets to try (default 3)");
	struct arg_str *seed = arg_str0(NULL, "seed", "S",
		"input seed (default 0)");
	struct arg_dbl *rtol = arg_dbl0(NULL, "rtol", "R",
		"relative tolerance for floats (default 1e-3)");
	struct arg_dbl *atol = arg_dbl0(NULL, "atol", "A",
		"absolute tolerance for floats (default 1e-5)");
	struct arg_str *mem = arg_str0(NULL, "max-memory", "BYTES",
		"limit on live buffers per module, suffix K, M or G "
		"(default 4G)");
	struct arg_int *thr = arg_int0(NULL, "threads", "N",
		"threads for big operations (default: one per processor; "
		"results do not depend on it)");
	struct arg_file *files = arg_filen(NULL, NULL, "FILE", 2, 2,
		"the two modules, text or proto");
	struct arg_end *end = arg_end(5);
	void *argtable[] = {help, trials, seed, rtol, atol, mem, thr, files,
		end};
	const char *summary = "check that two modules compute the same "
		"outputs on the same random inputs";
	HloModule *a = NULL, *b = NULL;
	HloVerifyOpts o = {0};	/* exact, maxsteps, threads: defaults */
	HloVerifyResult r;
	int status = EXIT_OK;

	if (cmd_parse_args("verify", summary, argtable, argc, argv, &status))
		goto done;
	o.trials = trials->count ? trials->ival[0] : 3;
	o.rtol = rtol->count ? rtol->dval[0] : 1e-3;
	o.atol = atol->count ? atol->dval[0] : 1e-5;
	o.threads = thr->count ? thr->ival[0] : 0;
	if (o.trials < 1 || o.rtol < 0 || o.atol < 0 || (thr->count &&
	    (o.threads < 1 || o.threads > EV_MAX_THREADS))) {
		fprintf(stderr, "hlopt: error: --trials must be positive, "
			"tolerances not negative and --threads 1 to %d\n",
			EV_MAX_THREADS);
		status = EXIT_USAGE;
		goto done;
	}
	if (cmd_eval_opts(seed, mem, &o.seed, &o.limit, &status) < 0)
		goto done;
	if ((status = cmd_load(files->filename[0], &a)) != EXIT_OK ||
	    (status = cmd_load(files->filename[1], &b)) != EXIT_OK)
		goto done;
	switch (hlo_eval_verify(a, b, &o, &r)) {
	case 0:
		printf("equal (%d trials)\n", o.trials);
		status = EXIT_OK;
		break;
	case 3:
		fprintf(stderr, "hlopt: verify: %s\n", r.msg);
		status = EXIT_NOEVAL;
		break;
	case 4:
		fprintf(stderr, "hlopt: verify: %s\n", r.msg);
		status = EXIT_ERR;
		break;
	default:
		if (r.output < 0) {
			printf("different: %s\n", r.msg);
		} else {
			printf("different: output %lld element %lld: %s vs %s "
				"(trial %d)\n", (long long)r.output,
				(long long)r.elem, r.a, r.b, r.trial);
		}
		status = EXIT_ERR;
	}
	if (fflush(stdout) != 0)
		status = EXIT_ERR;
done:
	hlo_module_free(a);
	hlo_module_free(b);
	arg_freetable(argtable, sizeof argtable / sizeof argtable[0]);
	return status;
}
