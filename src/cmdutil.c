/* cmdutil.c: what several commands share: loading and checking the
 * input, writing a module in the format asked for */
#include <stdio.h>
#include <string.h>

#include "hlo.h"
#include "cmd.h"

/* loads path ("-": stdin) in either format and verifies it; on failure
 * prints the message and returns the exit status (1), else 0 */
int
cmd_load(const char *path, HloModule **m)
{
	HloError e;

	*m = NULL;
	if (hlo_load(path, m, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		return EXIT_ERR;
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

