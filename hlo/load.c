/* load.c: reads a module in either format, telling them apart by
 * content: HLO text is printable and starts with a comment, HloModule,
 * ENTRY, a % name or an identifier; a proto starts with a field tag. */
#include <stdlib.h>
#include <string.h>

#include "hlo.h"

/* 1 if data looks like a binary proto rather than HLO text */
int
hlo_looks_like_proto(const void *data, size_t n)
{
	const unsigned char *p = data, *e = p + n;
	size_t i, lim;

	if (n >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
		p += 3;		/* a UTF-8 byte order mark */
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' ||
	    *p == '\r' || *p == '\f' || *p == '\v'))
		p++;
	if (p == e)
		return n == 0 ? 1 : 0;
	if (*p == '/' || *p == '%' || *p == '#' || *p == '_' ||
	    (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) {
		/* text unless binary bytes follow soon */
		lim = e - p < 4096 ? (size_t)(e - p) : 4096;
		for (i = 0; i < lim; i++)
			if (p[i] == 0 || (p[i] < 0x20 && p[i] != '\n' &&
			    p[i] != '\t' && p[i] != '\r' && p[i] != '\f' &&
			    p[i] != '\v'))
				return 1;
		return 0;
	}
	return 1;
}

/* 1 if text that is not HLO text looks like a text-format proto
 * (pbtxt): a field of HloModuleProto or HloProto first, then ':' or '{' */
static int
looks_like_pbtxt(const char *p, size_t n)
{
	static const char *const first[] = {"name", "entry_computation_name",
		"entry_computation_id", "computations", "id", "hlo_module",
		"hlo", "host_program_shape", "schedule", "stack_frame_index"};
	const char *e = p + n, *w;
	size_t i, k;

	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' ||
	    *p == '\r' || *p == '#')) {
		if (*p == '#')	/* a pbtxt comment line */
			while (p < e && *p != '\n')
				p++;
		else
			p++;
	}
	for (w = p; p < e && (*p == '_' || (*p >= 'a' && *p <= 'z')); p++)
		;
	k = (size_t)(p - w);
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	if (p == e || (*p != ':' && *p != '{'))
		return 0;
	for (i = 0; i < sizeof first / sizeof first[0]; i++)
		if (strlen(first[i]) == k && !memcmp(first[i], w, k))
			return 1;
	return 0;
}

int
hlo_load(const char *path, HloModule **out, HloError *e)
{
	return hlo_load_args(path, out, NULL, e);
}

int
hlo_load_args(const char *path, HloModule **out, HloModule **args,
	HloError *e)
{
	const char *name = strcmp(path, "-") ? path : "<stdin>";
	char *data;
	size_t n;
	int r;

	*out = NULL;
	if (args)
		*args = NULL;
	if (hlo_read_file(path, &data, &n, e) < 0)
		return -1;
	if (hlo_looks_like_proto(data, n)) {
		r = hlo_read_proto(data, n, name, out, e);
		if (r == 0 && args &&
		    hlo_read_snapshot_args(data, n, name, args, e) < 0) {
			hlo_module_free(*out);
			*out = NULL;
			r = -1;
		}
	}
	else if (n >= 3 && !memcmp(data, "\xef\xbb\xbf", 3))
		r = hlo_parse_text(data + 3, n - 3, name, out, e);
	else
		r = hlo_parse_text(data, n, name, out, e);
	if (r < 0 && !hlo_looks_like_proto(data, n) && looks_like_pbtxt(data,
	    n))
		r = hlo_err_file(e, name, "a text-format proto (pbtxt), which "
			"hlopt does not read: give HLO text or a binary "
			"HloModuleProto (protoc -Ihlo --encode=xla.HloModuleProto "
			"hlo.proto < IN > OUT.pb)");
	free(data);
	return r;
}
