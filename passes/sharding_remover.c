/* sharding_remover.c: "sharding-remover", xla's ShardingRemover (run by
 * XLA:CPU when there is one partition).
 *
 * In every computation, in reverse post order, custom-calls with target
 * Sharding, SPMDShardToFullShape, SPMDFullToShardShape,
 * xla.sdy.FuncResultSharding, ShardBarrierFrom or ShardBarrierTo hand
 * their users (and the root) to their operand and are deleted; as in
 * xla, those of the four targets other than the SPMD shape conversions
 * leave an unused copy of the operand behind (dce removes it). A
 * xla.sdy.ShardingGroup custom-call without users is deleted. Custom
 * calls with control dependencies, not of one operand, or whose shape
 * differs from their operand's (xla's ReplaceAllUsesWith refuses those)
 * are left alone.
 */
#include <string.h>

#include "build.h"

static const char *const targets[] = {
	"Sharding", "xla.sdy.FuncResultSharding", "ShardBarrierFrom",
	"ShardBarrierTo", "SPMDShardToFullShape", "SPMDFullToShardShape",
};
enum { NCOPY = 4, NTARGETS = 6 };

static int
target(const HloModule *m, const HloInstr *in)
{
	int k;

	if (in->op != HOP_CUSTOMCALL)
		return -1;
	for (k = 0; k < NTARGETS; k++)
		if (pass_is_custom_call(m, in, targets[k]))
			return k;
	if (pass_is_custom_call(m, in, "xla.sdy.ShardingGroup"))
		return NTARGETS;
	return -1;
}

static int
rewrite(PassEdit *ed, uint32_t i)
{
	HloModule *m = ed->m;
	const HloInstr *in = &m->comps[ed->c].ins[i];
	int t = target(m, in);
	uint32_t x, shape;

	if (t < 0 || in->nops != 1 || ed->ctl[i])
		return 0;
	if (t == NTARGETS) {
		if (!pass_is_dead(ed, i))
			return 0;
		pass_remove(ed, i);
		return 0;
	}
	x = pass_res(ed, m->ids[in->ops]);
	shape = in->shape;
	if (!hlo_shape_eq_nolayout(m, shape, m->comps[ed->c].ins[x].shape))
		return 0;
	pass_replace_uses(ed, i, x);
	if (t < NCOPY)
		pass_b_op(ed, HOP_COPY, shape, 1, &x);
	pass_remove(ed, i);
	return 1;
}

/* in reverse post order, as xla's ShardingRemover walks the
 * instruction sequence backwards */
static int
visit_comp(PassEdit *ed, void *arg)
{
	HloModule *m = ed->m;
	uint32_t c = ed->c, cnt, *order;
	int64_t i;
	int changed = 0;

	order = pass_alloc(ed->ctx, (m->comps[c].nins + 1) * sizeof *order);
	cnt = pass_post_order(m, c, order, ed->ctx);
	for (i = (int64_t)cnt - 1; i >= 0; i--)
		if (!(m->comps[c].ins[order[i]].flags & HI_DEAD))
			changed |= rewrite(ed, order[i]);
	return changed;
}

int
pass_sharding_remover(HloModule *m, PassCtx *ctx)
{
	return pass_visit_comps(m, ctx, PASS_SKIP_NONE, visit_comp, NULL);
}
