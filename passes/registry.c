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

/* pass_lookup, or a decimal RL action id (the pass's line in passes.def,
 * as hlopt passes prints it) */
int
pass_lookup_spec(const char *name, size_t n)
{
	size_t i;
	int id = 0;

	for (i = 0; i < n && i < 6 && name[i] >= '0' && name[i] <= '9'; i++)
		id = id * 10 + (name[i] - '0');
	if (n > 0 && i == n)
		return id < PASS_COUNT ? id : -1;
	return pass_lookup(name, n);
}

/* edit distance of a[0..n) and b, with '-' and '_' alike; caps at 9 */
static int
distance(const char *a, size_t n, const char *b)
{
	size_t m = strlen(b), i, j;
	int row[64], prev, cur, sub;

	if (n > 60 || m > 60)
		return 9;
	for (j = 0; j <= m; j++)
		row[j] = (int)j;
	for (i = 1; i <= n; i++) {
		prev = row[0];
		row[0] = (int)i;
		for (j = 1; j <= m; j++) {
			sub = a[i - 1] == b[j - 1] || ((a[i - 1] == '-' ||
				a[i - 1] == '_') && (b[j - 1] == '-' ||
				b[j - 1] == '_')) ? 0 : 1;
			cur = prev + sub;
			if (row[j] + 1 < cur)
				cur = row[j] + 1;
			if (row[j - 1] + 1 < cur)
				cur = row[j - 1] + 1;
			prev = row[j];
			row[j] = cur;
		}
	}
	return row[m] < 9 ? row[m] : 9;
}

/* the registered name closest to name[0..n) (for "did you mean"), NULL
 * when none is near: at most a third of the letters differ, or the one
 * name that contains it */
const char *
pass_suggest(const char *name, size_t n)
{
	const char *best = NULL;
	int i, d, bd = 9, hits = 0;

	for (i = 0; i < PASS_COUNT; i++) {
		d = distance(name, n, hlo_passes[i].name);
		if (d < bd) {
			bd = d;
			best = hlo_passes[i].name;
		}
	}
	if (best && bd <= (int)(n + 2) / 3)
		return best;
	best = NULL;
	for (i = 0; n >= 3 && i < PASS_COUNT; i++) {
		const char *p = hlo_passes[i].name;
		size_t k, m = strlen(p);

		for (k = 0; k + n <= m; k++)
			if (!memcmp(p + k, name, n)) {
				best = p;
				hits++;
				break;
			}
	}
	return hits == 1 ? best : NULL;
}
