/* cmd_passes.c: hlopt passes [--format text|json]: the pass registry */
#include <argtable2.h>
#include <stdio.h>

#include "hlo.h"
#include "cmd.h"
#include "pass.h"

int
cmd_passes(int argc, char **argv)
{
	struct arg_lit *help = arg_lit0(NULL, "help", "print this help");
	struct arg_str *format = arg_str0(NULL, "format", "text|json",
		"output format (default text)");
	struct arg_end *end = arg_end(5);
	void *argtable[] = {help, format, end};
	const char *summary = "list the passes: id (the RL action), name, "
		"description";
	HloBuf b = {0};
	HloError e;
	int status = EXIT_OK, json = 0, i;

	if (cmd_parse_args("passes", summary, argtable, argc, argv, &status))
		goto done;
	if (format->count && (json = cmd_format_arg(format->sval[0],
	    "text|json", &status)) < 0)
		goto done;
	if (json)
		hlo_buf_puts(&b, "[\n");
	for (i = 0; i < PASS_COUNT; i++) {
		if (!json) {
			hlo_buf_printf(&b, "%2d  %-28s %s\n", i,
				hlo_passes[i].name, hlo_passes[i].desc);
			continue;
		}
		hlo_buf_printf(&b, "  {\"id\": %d, \"name\": ", i);
		hlo_buf_json(&b, hlo_passes[i].name);
		hlo_buf_puts(&b, ", \"description\": ");
		hlo_buf_json(&b, hlo_passes[i].desc);
		hlo_buf_puts(&b, i + 1 < PASS_COUNT ? "},\n" : "}\n");
	}
	if (json)
		hlo_buf_puts(&b, "]\n");
	if (hlo_write_file("-", b.buf, b.len, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		status = EXIT_ERR;
	}
done:
	hlo_buf_free(&b);
	arg_freetable(argtable, sizeof argtable / sizeof argtable[0]);
	return status;
}
