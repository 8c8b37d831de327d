/* cmd_convert.c: hlopt convert IN [-o OUT] [--to text|proto]
 * [--no-verify-input] */
#include <argtable2.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "cmd.h"

int
cmd_convert(int argc, char **argv)
{
	struct arg_lit *help = arg_lit0(NULL, "help", "print this help");
	struct arg_str *out = arg_str0("o", "output", "OUT",
		"output file, - for stdout (default -)");
	struct arg_str *to = arg_str0(NULL, "to", "text|proto",
		"output format (default: by OUT's extension: .pb .binpb "
		".hloproto proto, .hlo .txt text, others refused)");
	struct arg_lit *noverify = arg_lit0(NULL, "no-verify-input",
		"convert a module the verifier refuses (only the reader's "
		"own checks apply)");
	struct arg_file *in = arg_file1(NULL, NULL, "IN",
		"input module, text or proto, - for stdin");
	struct arg_end *end = arg_end(5);
	void *argtable[] = {help, out, to, noverify, in, end};
	const char *summary = "convert a module between HLO text and "
		"HloModuleProto";
	HloModule *m = NULL;
	HloError e;
	int status = EXIT_OK;

	if (cmd_parse_args("convert", summary, argtable, argc, argv, &status))
		goto done;
	if (cmd_format_arg(to, &status) < 0)
		goto done;
	if (cmd_check_out(out->count ? out->sval[0] : NULL, to->count ?
	    to->sval[0] : NULL, &status) < 0)
		goto done;
	if ((status = cmd_load_opt(in->filename[0], !noverify->count,
	    &m)) != EXIT_OK)
		goto done;
	if (cmd_write_module(m, out->count ? out->sval[0] : NULL,
	    to->count ? to->sval[0] : NULL, &e) < 0) {
		status = cmd_error(&e);
	}
done:
	hlo_module_free(m);
	arg_freetable(argtable, sizeof argtable / sizeof argtable[0]);
	return status;
}
