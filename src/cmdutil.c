/* cmdutil.c: what several commands share: loading and checking the
 * input, writing a module in the format asked for */
#include <argtable2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "cmd.h"

/* loads path ("-": stdin) in either format and verifies it; on failure
 * prints the message and returns the exit status (1), else 0 */
/* prints e's message; returns EXIT_ERR, the status of every command
 * that stops on an error in its input or its output */
int
cmd_error(const HloError *e)
{
	fprintf(stderr, "%s\n", e->msg);
	return EXIT_ERR;
}

int
cmd_load(const char *path, HloModule **m)
{
	HloError e;

	*m = NULL;
	if (hlo_load(path, m, &e) < 0) {
		return cmd_error(&e);
	}
	if (hlo_verify(*m, &e) < 0) {
		fprintf(stderr, "%s: %s\n", strcmp(path, "-") ? path :
			"<stdin>", e.msg);
		hlo_module_free(*m);
		*m = NULL;
		return EXIT_ERR;
	}
	return EXIT_OK;
}

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


/* parses argv against argtable, whose first entry must be the
 * arg_lit0(NULL, "help", ...) of the command and whose last is arg_end */
int
cmd_parse_args(const char *cmd, const char *summary, void **argtable,
	int argc, char **argv, int *status)
{
	struct arg_lit *help = argtable[0];
	struct arg_end *end;
	int i, nerr;

	for (i = 0; !(((struct arg_hdr *)argtable[i])->flag & ARG_TERMINATOR);
	     i++)
		;
	end = argtable[i];
	if (arg_nullcheck(argtable))
		xnomem();
	nerr = arg_parse(argc, argv, argtable);
	if (help->count > 0) {
		printf("usage: hlopt %s", cmd);
		arg_print_syntaxv(stdout, argtable, "\n");
		printf("%s\n\n", summary);
		arg_print_glossary(stdout, argtable, "  %-28s %s\n");
		*status = EXIT_OK;
		return 1;
	}
	if (nerr > 0) {
		char prog[64];

		snprintf(prog, sizeof prog, "hlopt %s", cmd);
		arg_print_errors(stderr, end, prog);
		fprintf(stderr, "usage: hlopt %s", cmd);
		arg_print_syntaxv(stderr, argtable, "\n");
		*status = EXIT_USAGE;
		return 1;
	}
	return 0;
}

/* checks s is one of the '|'-separated words of allowed; returns its
 * index, or -1 after a usage message (*status = 2) */
int
cmd_format_arg(const char *s, const char *allowed, int *status)
{
	const char *p = allowed, *q;
	size_t n = strlen(s);
	int i = 0;

	for (;;) {
		q = strchr(p, '|');
		if (!q)
			q = p + strlen(p);
		if ((size_t)(q - p) == n && strncmp(p, s, n) == 0)
			return i;
		if (!*q)
			break;
		p = q + 1;
		i++;
	}
	fprintf(stderr, "hlopt: error: '%s' is not one of %s\n", s, allowed);
	*status = EXIT_USAGE;
	return -1;
}

