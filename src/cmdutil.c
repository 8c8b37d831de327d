/* cmdutil.c: what several commands share: loading and checking the
 * input, writing a module in the format asked for */
#include <argtable2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hlo.h"
#include "cmd.h"

/* the driver's three error formats. cmd_error prints e's message;
 * returns EXIT_ERR, the status of every command that stops on an error
 * in its input or its output */
int
cmd_error(const HloError *e)
{
	fprintf(stderr, "%s\n", e->msg);
	return EXIT_ERR;
}

/* "WHERE: MSG" (WHERE from fmt: the input file, "hlopt", ...); EXIT_ERR */
int
cmd_error_in(const HloError *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", e->msg);
	return EXIT_ERR;
}

/* "hlopt: error: MSG" about the command line; EXIT_USAGE */
int
cmd_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("hlopt: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

/* loads path ("-": stdin) in either format and verifies it; on failure
 * prints the message and returns the exit status (1), else 0 */
int
cmd_load(const char *path, HloModule **m)
{
	return cmd_load_opt(path, 1, m);
}

/* cmd_load, with verify 0 skipping the verifier (convert
 * --no-verify-input: only the reader's own checks hold) */
int
cmd_load_opt(const char *path, int verify, HloModule **m)
{
	return cmd_load_args(path, verify, m, NULL);
}

/* cmd_load_opt, and *args the argument literals of a snapshot (NULL if
 * the input carries none; args NULL: not wanted) */
int
cmd_load_args(const char *path, int verify, HloModule **m, HloModule **args)
{
	HloError e;
	int status;

	*m = NULL;
	if (hlo_load_args(path, m, args, &e) < 0)
		return cmd_error(&e);
	if (verify && hlo_verify(*m, &e) < 0) {
		const char *name = strcmp(path, "-") ? path : "<stdin>";
		unsigned line, col;

		status = hlo_err_src(*m, &e, &line, &col) == 0 ?
			cmd_error_in(&e, "%s:%u:%u", name, line, col) :
			cmd_error_in(&e, "%s", name);
		hlo_module_free(*m);
		*m = NULL;
		if (args) {
			hlo_module_free(*args);
			*args = NULL;
		}
		return status;
	}
	return EXIT_OK;
}

/* the output format of path: 1 proto (.pb, .binpb, .hloproto in any
 * case), 0 text (.hlo, .txt, no extension, stdout), -1 unknown (such as
 * .pbtxt, a text-format proto hlopt does not write); an existing
 * device or folder is text */
int
cmd_out_proto(const char *path)
{
	static const char *const proto[] = {".pb", ".binpb", ".hloproto"};
	static const char *const text[] = {".hlo", ".txt"};
	const char *base = strrchr(path, '/'), *dot;
	struct stat st;
	size_t i;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	if (!strcmp(path, "-") || !dot || dot == base ||
	    (stat(path, &st) == 0 && !S_ISREG(st.st_mode)))
		return 0;	/* a device or folder: text (or its error) */
	for (i = 0; i < sizeof proto / sizeof proto[0]; i++)
		if (!strcasecmp(dot, proto[i]))
			return 1;
	for (i = 0; i < sizeof text / sizeof text[0]; i++)
		if (!strcasecmp(dot, text[i]))
			return 0;
	return -1;
}

/* checks that path (NULL: stdout by default) can take a module in
 * format to (NULL: by extension); -1 after a usage message, *status 2 */
int
cmd_check_out(const char *path, const char *to, int *status)
{
	if (!path || to)
		return 0;
	if (cmd_out_proto(path) < 0) {
		*status = cmd_usage("-o %s: unknown extension '%s' (text: "
			".hlo .txt; HloModuleProto: .pb .binpb .hloproto); give "
			"--to text|proto", path, strrchr(path, '.'));
		return -1;
	}
	return 0;
}

/* the bytes of m as text or proto, for path (NULL: stdout, chosen by
 * default) and to ("text", "proto" or NULL: by the extension); a
 * proto is refused on a terminal unless "-o -" was given */
static int
module_bytes(const HloModule *m, const char *path, const char *to,
	HloBuf *b, HloError *e)
{
	int proto;

	if (to)
		proto = !strcmp(to, "proto");
	else if ((proto = cmd_out_proto(path ? path : "-")) < 0)
		return hlo_err_file(e, path, "unknown output extension; give "
			"--to text|proto");
	if (proto && !path && isatty(STDOUT_FILENO))
		return hlo_err_file(e, "<stdout>", "binary HloModuleProto "
			"not written to a terminal; give -o FILE, or -o - to "
			"insist");
	if (proto)
		return hlo_write_proto(m, b, e);
	hlo_print_module(m, b);
	return 0;
}

/* writes m (if not NULL) to path (NULL: stdout by default) as text or
 * proto, and rep (if reppath is not NULL) to reppath: both or, on any
 * failure, neither */
int
cmd_write_outputs(const HloModule *m, const char *path, const char *to,
	const char *reppath, const HloBuf *rep, HloError *e)
{
	HloBuf b = {0};
	HloOutput o[2];
	size_t n = 0;
	int r = 0;

	if (m) {
		r = module_bytes(m, path, to, &b, e);
		o[n].path = path ? path : "-";
		o[n].data = b.buf ? b.buf : "";
		o[n++].len = b.len;
	}
	if (reppath) {
		o[n].path = reppath;
		o[n].data = rep->buf ? rep->buf : "";
		o[n++].len = rep->len;
	}
	if (r == 0)
		r = hlo_write_files(o, n, e);
	hlo_buf_free(&b);
	return r;
}

/* writes m to path (see cmd_write_outputs) */
int
cmd_write_module(const HloModule *m, const char *path, const char *to,
	HloError *e)
{
	return cmd_write_outputs(m, path, to, NULL, NULL, e);
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
cmd_format_arg(const struct arg_str *a, int *status)
{
	const char *s, *allowed = a->hdr.datatype, *p = allowed, *q;
	size_t n;
	int i = 0;

	if (!a->count)
		return 0;
	s = a->sval[0];
	n = strlen(s);
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
	*status = cmd_usage("--%s: '%s' is not one of %s", a->hdr.longopts, s,
		allowed);
	return -1;
}

/* s quoted for a POSIX shell when it needs it (replay lines) */
void
cmd_shell_word(HloBuf *b, const char *s)
{
	const char *p;

	for (p = s; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789_,./-+=:@", *p))
			break;
	if (*s && !*p) {
		hlo_buf_puts(b, s);
		return;
	}
	hlo_buf_puts(b, "'");
	for (p = s; *p; p++) {
		if (*p == '\'')
			hlo_buf_puts(b, "'\\''");
		else
			hlo_buf_put(b, p, 1);
	}
	hlo_buf_puts(b, "'");
}
