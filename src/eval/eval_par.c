/* eval_par.c: splitting big evaluator loops over threads.
 *
 * ev_par cuts [0, n) into contiguous parts, one per thread, and runs
 * fn on each (with the part's number, for per-part scratch space); the
 * caller's thread takes the first part. Work functions
 * write disjoint outputs and every element is computed the same way
 * whatever the split, so results do not depend on the thread count.
 * Threads are started per call: the loops worth splitting run for
 * milliseconds, a thread start costs microseconds. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "hlo.h"
#include "eval.h"

typedef struct {
	EvWork *fn;
	void *ctx;
	int part;
	int64_t lo, hi;
} Part;

static void *
run_part(void *arg)
{
	Part *p = arg;

	p->fn(p->ctx, p->part, p->lo, p->hi);
	return NULL;
}

int
ev_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

#ifdef HLOPT_FAILALLOC
	n = 1;		/* the failing allocator's counter is not atomic */
#endif

	if (n < 1)
		return 1;
	return n > EV_MAX_THREADS ? EV_MAX_THREADS : (int)n;
}

int
ev_par_parts(const HloEval *ev, int64_t n, int64_t grain)
{
	int64_t t = ev->threads;

	if (grain < 1)
		grain = 1;
	if (t > n / grain)
		t = n / grain;
	if (t > EV_MAX_THREADS)
		t = EV_MAX_THREADS;
	return t < 1 ? 1 : (int)t;
}

void
ev_par_threads(int threads, int64_t n, EvWork *fn, void *ctx)
{
	Part part[EV_MAX_THREADS];
	pthread_t th[EV_MAX_THREADS];
	uint8_t started[EV_MAX_THREADS] = {0};
	int64_t t = threads, k;

	if (n <= 0)
		return;
	if (t > n)
		t = n;
	if (t > EV_MAX_THREADS)
		t = EV_MAX_THREADS;
	if (t <= 1) {
		fn(ctx, 0, 0, n);
		return;
	}
	for (k = 0; k < t; k++) {
		part[k].fn = fn;
		part[k].ctx = ctx;
		part[k].part = (int)k;
		part[k].lo = n * k / t;
		part[k].hi = n * (k + 1) / t;
	}
	for (k = 1; k < t; k++)
		started[k] = pthread_create(&th[k], NULL, run_part,
			&part[k]) == 0;
	run_part(&part[0]);
	for (k = 1; k < t; k++) {
		if (started[k])
			pthread_join(th[k], NULL);
		else
			run_part(&part[k]);
	}
}

void
ev_par(const HloEval *ev, int64_t n, int64_t grain, EvWork *fn, void *ctx)
{
	ev_par_threads(ev_par_parts(ev, n, grain), n, fn, ctx);
}
