/* registry.c: the table of passes (passes.def) and lookup by name */
#include <string.h>

#include "pass.h"

const Pass hlo_passes[PASS_COUNT] = {
#define PASS(id, name, desc) {name, pass_##id, desc},
#include "passes.def"
#undef PASS
};

/* the index of the pass called name[0..n), -1 if there is none */
int
pass_lookup(const char *name, size_t n)
{
	int i;

	for (i = 0; i < PASS_COUNT; i++)
		if (strlen(hlo_passes[i].name) == n &&
		    !memcmp(hlo_passes[i].name, name, n))
			return i;
	return -1;
}
