/* cmd.h: what the subcommands share (src/cmd_*.c, src/main.c) */
#ifndef CMD_H
#define CMD_H

#include "hlo.h"
#include "eval.h"

#define HLOPT_VERSION "0.1.0"

/* exit statuses (man/hlopt.1, EXIT STATUS): one table for every
 * command; verify, optimize --verify and search map a verdict with
 * cmd_verdict_status */
enum { EXIT_OK = 0, EXIT_ERR = 1, EXIT_USAGE = 2, EXIT_NOEVAL = 3,
	EXIT_DIFFERENT = 4, EXIT_PARTIAL = 5 };

#define CMD(name, fn, summary) int fn(int argc, char **argv);
#include "commands.def"
#undef CMD

/* argtable2 helpers (src/cmdutil.c) */
struct arg_str;
int cmd_parse_args(const char *cmd, const char *summary, void **argtable,
	int argc, char **argv, int *status);
				/* 0: go on; 1: stop, *status is the exit
				 * status (--help printed: 0; usage: 2) */
int cmd_format_arg(const struct arg_str *a, int *status);
				/* the value of a (--format, --to) as the
				 * index of its alternative in a's datatype
				 * ("text|json": 0, 1), 0 when a is absent;
				 * -1 after a usage message, *status 2 */

/* src/cmdutil.c */
int cmd_error(const HloError *e);	/* prints "MSG"; EXIT_ERR */
int cmd_error_in(const HloError *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
				/* prints "WHERE: MSG", WHERE from fmt;
				 * EXIT_ERR */
int cmd_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
				/* prints "hlopt: error: MSG"; EXIT_USAGE */
void cmd_shell_word(HloBuf *b, const char *s);
				/* s quoted for a POSIX shell if needed */
int cmd_load(const char *path, HloModule **m);
int cmd_load_opt(const char *path, int verify, HloModule **m);
int cmd_load_args(const char *path, int verify, HloModule **m,
	HloModule **args);
			/* load + verify; prints errors; exit status */
int cmd_out_proto(const char *path);
			/* by extension: 1 proto (.pb .binpb .hloproto,
			 * any case), 0 text (.hlo .txt, none), -1 unknown */
int cmd_check_out(const char *path, const char *to, int *status);
			/* -1 after a usage message (*status 2) when path's
			 * extension says no format and to is NULL */
int cmd_write_module(const HloModule *m, const char *path, const char *to,
	HloError *e);	/* path NULL: stdout by default (no proto to a
			 * terminal); to: "text", "proto" or NULL (by
			 * path's extension) */
int cmd_write_outputs(const HloModule *m, const char *path, const char *to,
	const char *reppath, const HloBuf *rep, HloError *e);
			/* module and report, both or neither */

/* the evaluation flags every evaluating command shares (src/cmd_verify.c):
 * --seed --max-memory --threads --max-steps --max-elements --max-gflop,
 * and with verification --trials --rtol --atol. One set of defaults
 * (ev_verify_defaults) for verify, optimize --verify and search. */
struct arg_int;
struct arg_dbl;
struct arg_lit;
typedef struct {
	struct arg_int *trials;	/* NULL when the command does not verify */
	struct arg_str *seed;
	struct arg_dbl *rtol, *atol;	/* NULL likewise */
	struct arg_str *mem;
	struct arg_int *threads;
	struct arg_str *maxsteps, *maxelems;
	struct arg_dbl *maxgflop;
	struct arg_lit *strict;	/* --strict-precision; NULL likewise */
} CmdEvalArgs;

CmdEvalArgs cmd_eval_args(int verify);
				/* creates the argtable entries */
int cmd_eval_parse(const CmdEvalArgs *a, EvVerifyOpts *o, int *status);
				/* fills an EvVerifyOpts from the flags
				 * given (defaults first); -1 after a
				 * message naming the flag, *status 2 */
int cmd_verdict_status(int verdict);	/* EV_* -> EXIT_* */
#endif
