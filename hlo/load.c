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

int
hlo_load(const char *path, HloModule **out, HloError *e)
{
	const char *name = strcmp(path, "-") ? path : "<stdin>";
	char *data;
	size_t n;
	int r;

	*out = NULL;
	if (hlo_read_file(path, &data, &n, e) < 0)
		return -1;
	if (hlo_looks_like_proto(data, n))
		r = hlo_read_proto(data, n, name, out, e);
	else if (n >= 3 && !memcmp(data, "\xef\xbb\xbf", 3))
		r = hlo_parse_text(data + 3, n - 3, name, out, e);
	else
		r = hlo_parse_text(data, n, name, out, e);
	free(data);
	return r;
}
