/* minimize.c: delta debugging (Zeller's ddmin, complements only) of a pass
 * sequence: the shortest subsequence found whose replay from the input
 * still reaches the target objective, then made 1-minimal by trying to
 * drop each remaining pass alone. A replay that fails (a pass error)
 * counts as not reaching the target. */
#include <stdlib.h>
#include <string.h>

#include "search.h"

typedef struct {
	const HloModule *in;
	int objective;
	double target;
	int tests;
	int failed;		/* replays that failed (a pass error: e
				 * has the last); they count as not
				 * reaching the target */
	HloError *e;
} Ddmin;

static int
good(Ddmin *d, const int *seq, int n)
{
	double v;

	d->tests++;
	if (search_replay(d->in, seq, n, d->objective, &v, NULL, NULL,
	    d->e) < 0) {
		d->failed++;
		return 0;
	}
	return v <= d->target;
}

/* cur without the items [lo, hi) into tmp; returns its length */
static int
without(const int *cur, int n, int lo, int hi, int *tmp)
{
	memcpy(tmp, cur, lo * sizeof *tmp);
	memcpy(tmp + lo, cur + hi, (n - hi) * sizeof *tmp);
	return n - (hi - lo);
}

int
search_minimize(const HloModule *in, const int *seq, int n, int objective,
	double target, int **out, int *nout, int *tests, HloError *e)
{
	Ddmin d = {in, objective, target, 0, 0, e};
	int *cur = xreallocarray(NULL, n + 1, sizeof *cur);
	int *tmp = xreallocarray(NULL, n + 1, sizeof *tmp);
	int len = n, gran = 2, i, lo, hi, m, reduced;

	memcpy(cur, seq, n * sizeof *cur);
	if (len && good(&d, cur, 0))
		len = 0;
	while (len >= 2) {
		reduced = 0;
		for (i = 0; i < gran && !reduced; i++) {
			lo = (int)((int64_t)len * i / gran);
			hi = (int)((int64_t)len * (i + 1) / gran);
			if (hi == lo)
				continue;
			m = without(cur, len, lo, hi, tmp);
			if (good(&d, tmp, m)) {
				memcpy(cur, tmp, m * sizeof *cur);
				len = m;
				gran = gran > 2 ? gran - 1 : 2;
				reduced = 1;
			}
		}
		if (reduced)
			continue;
		if (gran >= len)
			break;
		gran = 2 * gran < len ? 2 * gran : len;
	}
	for (i = len - 1; i >= 0; i--) {
		m = without(cur, len, i, i + 1, tmp);
		if (good(&d, tmp, m)) {
			memcpy(cur, tmp, m * sizeof *cur);
			len = m;
		}
	}
	free(tmp);
	*tests = d.tests;
	*out = cur;
	*nout = len;
	return 0;
}
