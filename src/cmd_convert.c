/* cmd_convert.c: hlopt convert IN [-o OUT] [--to text|proto] */
#include <argtable2.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "cmd.h"

/* writes m to path as text or proto; to is "text", "proto" or NULL
 * (then chosen by the path: ".pb" is proto, anything else text) */
int
cmd_write_module(const HloModule *m, const char *path, const char *to,
	HloError *e)
{
	HloBuf b = {0};
	size_t n = strlen(path);
	int proto, r;

	if (to)
		proto = !strcmp(to, "proto");
	else
		proto = n > 3 && !strcmp(path + n - 3, ".pb");
	if (proto) {
		if (hlo_write_proto(m, &b, e) < 0) {
			hlo_buf_free(&b);
			return -1;
		}
	} else {
		hlo_print_module(m, &b);
	}
	r = hlo_write_file(path, b.buf ? b.buf : "", b.len, e);
	hlo_buf_free(&b);
	return r;
}

int
cmd_convert(int argc, char **argv)
{
	struct arg_lit *help = arg_lit0(NULL, "help", "print this help");
	struct arg_str *out = arg_str0("o", "output", "OUT",
		"output file, - for stdout (default -)");
	struct arg_str *to = arg_str0(NULL, "to", "text|proto",
		"output format (default: by OUT's extension, .pb is proto)");
	struct arg_file *in = arg_file1(NULL, NULL, "IN",
		"input module, text or proto, - for stdin");
	struct arg_end *end = arg_end(5);
	void *argtable[] = {help, out, to, in, end};
	const char *summary = "convert a module between HLO text and "
		"HloModuleProto";
	HloModule *m = NULL;
	HloError e;
	int status = EXIT_OK;

	if (cmd_parse_args("convert", summary, argtable, argc, argv, &status))
		goto done;
	if (to->count && cmd_format_arg(to->sval[0], "text|proto",
	    &status) < 0)
		goto done;
	if (hlo_load(in->filename[0], &m, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		status = EXIT_ERR;
		goto done;
	}
	if (cmd_write_module(m, out->count ? out->sval[0] : "-",
	    to->count ? to->sval[0] : NULL, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		status = EXIT_ERR;
	}
done:
	hlo_module_free(m);
	arg_freetable(argtable, sizeof argtable / sizeof argtable[0]);
	return status;
}
