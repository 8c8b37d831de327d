/* cmd.h: what the subcommands share (src/cmd_*.c, src/main.c) */
#ifndef CMD_H
#define CMD_H

#include "hlo.h"

#define HLOPT_VERSION "0.1.0"

/* exit statuses */
enum { EXIT_OK = 0, EXIT_ERR = 1, EXIT_USAGE = 2, EXIT_NOEVAL = 3 };

#define CMD(name, fn, summary) int fn(int argc, char **argv);
#include "commands.def"
#undef CMD

/* argtable2 helpers (src/cmdutil.c) */
int cmd_parse_args(const char *cmd, const char *summary, void **argtable,
	int argc, char **argv, int *status);
				/* 0: go on; 1: stop, *status is the exit
				 * status (--help printed: 0; usage: 2) */
int cmd_format_arg(const char *s, const char *allowed, int *status);

/* src/cmdutil.c */
int cmd_error(const HloError *e);	/* prints e; returns EXIT_ERR */
int cmd_load(const char *path, HloModule **m);
			/* load + verify; prints errors; exit status */
int cmd_write_module(const HloModule *m, const char *path, const char *to,
	HloError *e);	/* to: "text", "proto" or NULL (by path: .pb) */
#endif
