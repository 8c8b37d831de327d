/* fuzz_proto.c: the binary proto reader, then proto write and read back */
#include <stdlib.h>

#include "hlo.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t n);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t n)
{
	HloModule *m, *m2;
	HloError e;
	HloBuf b = {0};

	if (hlo_read_proto(data, n, "fuzz.pb", &m, &e) < 0)
		return 0;
	if (hlo_write_proto(m, &b, &e) == 0 &&
	    hlo_read_proto(b.buf, b.len, "written.pb", &m2, &e) == 0)
		hlo_module_free(m2);
	hlo_module_free(m);
	hlo_buf_free(&b);
	return 0;
}
