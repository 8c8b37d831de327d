/* fuzz_verify.c: parse (either format), verify, print: whatever the
 * input, no crash, hang or leak; verified modules must print */
#include <stdlib.h>

#include "hlo.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t n);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t n)
{
	HloModule *m;
	HloError e;
	HloBuf b = {0};
	int r;

	if (hlo_looks_like_proto(data, n))
		r = hlo_read_proto(data, n, "fuzz.pb", &m, &e);
	else
		r = hlo_parse_text((const char *)data, n, "fuzz.hlo", &m, &e);
	if (r < 0)
		return 0;
	if (hlo_verify(m, &e) == 0)
		hlo_print_module(m, &b);
	hlo_module_free(m);
	hlo_buf_free(&b);
	return 0;
}
