/* fuzz_text.c: the HLO text reader, then the printer and a second parse
 * of its output, which must succeed and print the same bytes */
#include <stdlib.h>
#include <string.h>

#include "hlo.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t n);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t n)
{
	HloModule *m, *m2;
	HloError e;
	HloBuf a = {0}, b = {0};

	if (hlo_parse_text((const char *)data, n, "fuzz.hlo", &m, &e) < 0)
		return 0;
	hlo_print_module(m, &a);
	if (hlo_parse_text(a.buf, a.len, "printed.hlo", &m2, &e) < 0)
		abort();	/* the printer wrote something unreadable */
	hlo_print_module(m2, &b);
	if (a.len != b.len || memcmp(a.buf, b.buf, a.len))
		abort();	/* not a fixed point */
	hlo_module_free(m2);
	hlo_module_free(m);
	hlo_buf_free(&a);
	hlo_buf_free(&b);
	return 0;
}
