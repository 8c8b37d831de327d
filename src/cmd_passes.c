/* cmd_passes.c: hlopt passes [--pipelines] [--format text|json]: the
 * pass registry, or the named pipelines with the passes XLA runs that
 * they leave out */
#include <argtable2.h>
#include <stdio.h>

#include "hlo.h"
#include "cmd.h"
#include "pass.h"

static void
pipelines(HloBuf *b, int json)
{
	int i, k;

	if (json)
		hlo_buf_puts(b, "[\n");
	for (i = 0; i < pass_npipelines; i++) {
		const PassPipeline *p = &pass_pipelines[i];

		if (!json) {
			hlo_buf_printf(b, "%s: %s\n  %s\n", p->name, p->desc,
				p->seq);
			for (k = 0; k < p->ngaps; k++)
				hlo_buf_printf(b, "  not run: %s: %s\n",
					p->gaps[k].xla, p->gaps[k].reason);
			continue;
		}
		hlo_buf_puts(b, "  {\"name\": ");
		hlo_buf_json(b, p->name);
		hlo_buf_puts(b, ", \"description\": ");
		hlo_buf_json(b, p->desc);
		hlo_buf_puts(b, ", \"sequence\": ");
		hlo_buf_json(b, p->seq);
		hlo_buf_puts(b, ", \"not_run\": [");
		for (k = 0; k < p->ngaps; k++) {
			hlo_buf_puts(b, k ? ", {\"pass\": " : "{\"pass\": ");
			hlo_buf_json(b, p->gaps[k].xla);
			hlo_buf_puts(b, ", \"reason\": ");
			hlo_buf_json(b, p->gaps[k].reason);
			hlo_buf_puts(b, "}");
		}
		hlo_buf_puts(b, i + 1 < pass_npipelines ? "]},\n" : "]}\n");
	}
	if (json)
		hlo_buf_puts(b, "]\n");
}

int
cmd_passes(int argc, char **argv)
{
	struct arg_lit *help = arg_lit0(NULL, "help", "print this help");
	struct arg_str *format = arg_str0(NULL, "format", "text|json",
		"output format (default text)");
	struct arg_lit *pipes = arg_lit0(NULL, "pipelines", "list the named "
		"pipelines instead");
	struct arg_end *end = arg_end(5);
	void *argtable[] = {help, format, pipes, end};
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
	if (pipes->count) {
		pipelines(&b, json);
		goto out;
	}
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
out:
	if (hlo_write_file("-", b.buf, b.len, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		status = EXIT_ERR;
	}
done:
	hlo_buf_free(&b);
	arg_freetable(argtable, sizeof argtable / sizeof argtable[0]);
	return status;
}
