/* while_trip_count_annotator.c: "while-loop-trip-count-annotator", xla's
 * WhileLoopTripCountAnnotator.
 *
 * Every while loop (every computation) whose induction variable xla's
 * GetLoopInductionVarTupleIdx finds gets a WhileLoopBackendConfig in its
 * backend_config, as xla's JSON: known_trip_count when
 * ComputeWhileLoopTripCount (brute force up to 128 iterations) knows it,
 * and known_induction_variable. Not done: known_init_step (xla fills it
 * from MatchTrivialLoopRange). Reports a change only when a config
 * differs from the one already there (xla reports one for every loop
 * annotated, which matters only inside fixed points).
 */
#include <stdio.h>
#include <string.h>

#include "pass.h"
#include "wutil.h"

static int
annotate(HloModule *m, uint32_t c, uint32_t i)
{
	int64_t k = wu_indvar_index(m, c, i), n;
	char buf[160];
	const char *old;
	uint32_t len;
	int l;
	HloAttr a;

	if (k < 0)
		return 0;
	n = wu_trip_count(m, c, i, 128);
	if (n >= 0)
		l = snprintf(buf, sizeof buf, "{\"known_trip_count\":{\"n\":"
			"\"%lld\"},\"known_induction_variable\":{\"tuple_index\""
			":\"%lld\"}}", (long long)n, (long long)k);
	else
		l = snprintf(buf, sizeof buf, "{\"known_induction_variable\":"
			"{\"tuple_index\":\"%lld\"}}", (long long)k);
	old = hlo_attr_word(m, &m->comps[c].ins[i], A_BACKEND_CONFIG, &len);
	if (old && len == (uint32_t)l && !memcmp(old, buf, len))
		return 0;
	a = hlo_mk_bytes(m, A_BACKEND_CONFIG, K_STR, buf, l);
	hlo_attr_set(m, c, i, &a);
	return 1;
}

int
pass_while_trip_count_annotator(HloModule *m, PassCtx *ctx)
{
	uint32_t c, i;
	int changed = 0, r;

	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++) {
			if (m->comps[c].ins[i].op != HOP_WHILE ||
			    (m->comps[c].ins[i].flags & HI_DEAD))
				continue;
			r = annotate(m, c, i);
			changed |= r;
			ctx->stats.rewrites += r;
		}
	return changed;
}
