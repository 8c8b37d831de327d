/* main.c: the hlopt driver. picks the subcommand; the only file that
 * exits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* 1 if the manual page is installed where man(1) finds it */
static int
man_installed(void)
{
	static const char *const dirs[] = {"/usr/share/man/man1",
		"/usr/local/share/man/man1", "/usr/local/man/man1"};
	static const char *const suf[] = {"", ".gz"};
	char path[128];
	size_t i, j;

	for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
		for (j = 0; j < sizeof suf / sizeof suf[0]; j++) {
			snprintf(path, sizeof path, "%s/hlopt.1%s", dirs[i],
				suf[j]);
			if (access(path, R_OK) == 0)
				return 1;
		}
	return 0;
}

static void
usage(FILE *f)
{
	size_t i;

	fputs("usage: hlopt COMMAND [OPTIONS] ...\n"
		"       hlopt --help | --version | --list-passes\n\ncommands:\n", f);
	for (i = 0; i < sizeof cmdtab / sizeof cmdtab[0]; i++)
		fprintf(f, "  %-10s %s\n", cmdtab[i].name, cmdtab[i].summary);
	fprintf(f, "\n'hlopt COMMAND --help' describes one command; "
		"'%s' describes all.\n", man_installed() ? "man hlopt" :
		"man man/hlopt.1");
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
	if (!strcmp(argv[1], "--list-passes"))	/* XLA-tool style alias */
		return cmd_passes(argc - 1, argv + 1);
	for (i = 0; i < sizeof cmdtab / sizeof cmdtab[0]; i++)
		if (!strcmp(argv[1], cmdtab[i].name))
			return cmdtab[i].fn(argc - 1, argv + 1);
	cmd_usage("unknown command '%s'", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
