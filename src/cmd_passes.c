/* cmd_passes.c: hlopt passes [--pipelines] [--format text|json]: the
 * pass registry, or the named pipelines: each one's sequence and, for one
 * that mirrors XLA, the XLA steps it does not run or runs differently,
 * with the reason */
#include <argtable2.h>
#include <stdio.h>
#include <string.h>

#include "hlo.h"
#include "cmd.h"
#include "pass.h"

/* the xla steps of p that hlopt does not run as xla does */
static void
steps_text(HloBuf *b, const PassPipeline *p)
{
	int i, n = 0, st;

	for (i = 0; i < p->nsteps; i++) {
		const PassXlaStep *x = &p->steps[i];

		st = pass_step_status(x);
		if (st == PASS_STEP_RUN || st == PASS_STEP_GROUP)
			continue;
		if (!n++)
			hlo_buf_printf(b, "  XLA steps not run or run "
				"differently (mirrors %s):\n", p->mirrors);
		hlo_buf_printf(b, "  %3d  %s", i + 1, x->xla);
		if (x->action)
			hlo_buf_printf(b, " [%s]", x->action);
		hlo_buf_printf(b, ": %s", pass_step_status_name(st));
		if (x->note)
			hlo_buf_printf(b, ": %s", x->note);
		hlo_buf_puts(b, "\n");
	}
}

static void
step_json(HloBuf *b, int i, const PassXlaStep *x)
{
	static const char *const kinds[] = {"pass", "fix", "end"};
	int st = pass_step_status(x);

	hlo_buf_printf(b, "{\"step\": %d, \"kind\": \"%s\", \"xla\": ",
		i + 1, kinds[x->kind]);
	hlo_buf_json(b, x->xla);
	hlo_buf_puts(b, ", \"action\": ");
	if (x->action)
		hlo_buf_json(b, x->action);
	else
		hlo_buf_puts(b, "null");
	hlo_buf_puts(b, ", \"status\": ");
	hlo_buf_json(b, st == PASS_STEP_GROUP ? "run" :
		pass_step_status_name(st));
	hlo_buf_puts(b, ", \"reason\": ");
	if (st == PASS_STEP_MISSING && !x->note)
		hlo_buf_json(b, "not implemented in hlopt");
	else if (x->note)
		hlo_buf_json(b, x->note);
	else
		hlo_buf_puts(b, "null");
	hlo_buf_puts(b, "}");
}

/* one pipeline as json: its sequence now, every xla step, and the ones
 * not run as xla runs them (not_run) */
static void
pipeline_json(HloBuf *b, const PassPipeline *p, const char *seq)
{
	int i, n = 0, st;

	hlo_buf_puts(b, "  {\"name\": ");
	hlo_buf_json(b, p->name);
	hlo_buf_puts(b, ", \"description\": ");
	hlo_buf_json(b, p->desc);
	hlo_buf_puts(b, ", \"sequence\": ");
	hlo_buf_json(b, seq);
	hlo_buf_puts(b, ", \"mirrors\": ");
	if (p->mirrors)
		hlo_buf_json(b, p->mirrors);
	else
		hlo_buf_puts(b, "null");
	hlo_buf_puts(b, ",\n   \"xla_steps\": [");
	for (i = 0; i < p->nsteps; i++) {
		hlo_buf_puts(b, i ? ",\n    " : "\n    ");
		step_json(b, i, &p->steps[i]);
	}
	hlo_buf_puts(b, "],\n   \"not_run\": [");
	for (i = 0; i < p->nsteps; i++) {
		st = pass_step_status(&p->steps[i]);
		if (st == PASS_STEP_RUN || st == PASS_STEP_GROUP)
			continue;
		hlo_buf_puts(b, n++ ? ",\n    " : "\n    ");
		step_json(b, i, &p->steps[i]);
	}
	hlo_buf_puts(b, "]}");
}

static void
pipelines(HloBuf *b, int json)
{
	int i;

	if (json)
		hlo_buf_puts(b, "[\n");
	for (i = 0; i < pass_npipelines; i++) {
		const PassPipeline *p = &pass_pipelines[i];
		HloBuf q = {0};

		pass_pipeline_seq(p, &q);
		if (json) {
			pipeline_json(b, p, q.buf);
			hlo_buf_puts(b, i + 1 < pass_npipelines ? ",\n" :
				"\n");
		} else {
			hlo_buf_printf(b, "%s: %s\n", p->name, p->desc);
			hlo_buf_puts(b, "  ");
			hlo_buf_puts(b, q.buf);
			hlo_buf_puts(b, "\n");
			steps_text(b, p);
		}
		hlo_buf_free(&q);
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
	int status = EXIT_OK, json = 0, i, w = 0;

	if (cmd_parse_args("passes", summary, argtable, argc, argv, &status))
		goto done;
	if ((json = cmd_format_arg(format, &status)) < 0)
		goto done;
	if (pipes->count) {
		pipelines(&b, json);
		goto out;
	}
	if (json)
		hlo_buf_puts(&b, "[\n");
	for (i = 0; i < PASS_COUNT; i++)	/* the name column's width */
		if ((int)strlen(hlo_passes[i].name) > w)
			w = (int)strlen(hlo_passes[i].name);
	for (i = 0; i < PASS_COUNT; i++) {
		if (!json) {
			hlo_buf_printf(&b, "%2d  %-*s %s\n", i, w,
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
