/* cmd_stats.c: hlopt stats FILE [--format text|json] [-o OUT] */
#include <argtable2.h>
#include <stdio.h>

#include "hlo.h"
#include "cmd.h"
#include "cost.h"

int
cmd_stats(int argc, char **argv)
{
	struct arg_lit *help = arg_lit0(NULL, "help", "print this help");
	struct arg_str *format = arg_str0(NULL, "format", "text|json",
		"report format (default text)");
	struct arg_str *out = arg_str0("o", "output", "OUT",
		"output file, - for stdout (default -)");
	struct arg_file *in = arg_file1(NULL, NULL, "FILE",
		"input module, text or proto, - for stdin");
	struct arg_end *end = arg_end(5);
	void *argtable[] = {help, format, out, in, end};
	const char *summary = "print the instruction counts, flops, "
		"transcendentals and bytes accessed of a module";
	HloModule *m = NULL;
	HloCost cost;
	HloBuf b = {0};
	HloError e;
	int status = EXIT_OK, json = 0;

	if (cmd_parse_args("stats", summary, argtable, argc, argv, &status))
		goto done;
	if ((json = cmd_format_arg(format, &status)) < 0)
		goto done;
	if ((status = cmd_load(in->filename[0], &m)) != EXIT_OK)
		goto done;
	if (hlo_cost(m, &cost, &e) < 0) {
		status = cmd_error(&e);
		goto done;
	}
	if (json)
		hlo_cost_json(m, &cost, &b);
	else
		hlo_cost_text(m, &cost, &b);
	if (hlo_write_file(out->count ? out->sval[0] : "-", b.buf, b.len,
	    &e) < 0) {
		status = cmd_error(&e);
	}
done:
	hlo_buf_free(&b);
	hlo_module_free(m);
	arg_freetable(argtable, sizeof argtable / sizeof argtable[0]);
	return status;
}
