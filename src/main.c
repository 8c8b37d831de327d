/* main.c: the hlopt driver. picks the subcommand; the only file that
 * exits. */
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
