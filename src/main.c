/* main.c: the hlopt driver. picks the subcommand; the only file that
 * exits. */
#include <argtable2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "cmd.h"

typedef struct {
	const char *name;
	int (*fn)(int, char **);
	const char *summary;
} Cmd;

static const Cmd cmdtab[] = {
#define CMD(name, fn, summary) {#name, fn, summary},
#include "commands.def"
#undef CMD
};

static void
usage(FILE *f)
{
	size_t i;

	fputs("usage: hlopt COMMAND [OPTIONS] ...\n"
		"       hlopt --help | --version\n\ncommands:\n", f);
	for (i = 0; i < sizeof cmdtab / sizeof cmdtab[0]; i++)
		fprintf(f, "  %-10s %s\n", cmdtab[i].name, cmdtab[i].summary);
	fputs("\n'hlopt COMMAND --help' describes one command; "
		"man hlopt describes all.\n", f);
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
	if (arg_nullcheck(argtable)) {
		fputs("hlopt: error: out of memory\n", stderr);
		exit(1);
	}
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

int
main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("hlopt %s\n", HLOPT_VERSION);
		return EXIT_OK;
	}
	for (i = 0; i < sizeof cmdtab / sizeof cmdtab[0]; i++)
		if (!strcmp(argv[1], cmdtab[i].name))
			return cmdtab[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "hlopt: error: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
