/* fusion_misc.c: "defuser", xla's Defuser (xla/hlo/transforms/defuser.cc):
 * every fusion instruction is replaced by the instructions of its fused
 * computation, cloned into the caller in post order with the parameters
 * read as the fusion's operands (names kept: the fused computation is
 * deleted), and the fused computations are deleted. Fusions nested in
 * fused computations are defused too. Not done as xla: a fusion with
 * control dependencies is left alone (xla's RemoveInstruction refuses it
 * as well). */
#include <stdlib.h>
#include <string.h>

#include "fusion.h"

/* x through the fusions already defused in this round (fwd[y]: what
 * replaces y, y itself if nothing; n entries) */
static uint32_t
fwd_res(const uint32_t *fwd, uint32_t n, uint32_t x)
{
	while (x < n && fwd[x] != x)
		x = fwd[x];
	return x;
}

/* inlines fusion i of computation c; 1 done. Its users are not rewritten
 * here (one scan of c per fusion was quadratic): fwd[i] records its
 * replacement, and defuse_comp forwards every operand once at the end */
static int
defuse(HloModule *m, uint32_t c, uint32_t i, uint8_t *drop, uint32_t *fwd,
	uint32_t nfwd)
{
	HloInstr in = m->comps[c].ins[i];
	uint32_t fc, n, cnt, t, k, j, *map, *order, *ops, root;
	int again;

	if (in.ncalled != 1 || in.nctrl)
		return 0;
	fc = hlo_called(m, &in)[0];
	if (fc >= m->ncomps)	/* a fused computation shared by several
				 * fusions is inlined into each */
		return 0;
	again = drop[fc];
	n = m->comps[fc].nins;
	map = xreallocarray(NULL, n + 1, sizeof *map);
	order = xreallocarray(NULL, n + 1, sizeof *order);
	cnt = hlo_topo(m, fc, order);
	for (t = 0; t < cnt; t++) {
		const HloInstr *fi = &m->comps[fc].ins[order[t]];

		if (fi->op == HOP_PARAMETER) {
			if (fi->num < 0 || fi->num >= (int64_t)in.nops)
				goto fail;
			map[order[t]] = fwd_res(fwd, nfwd,
				m->ids[in.ops + fi->num]);
			continue;
		}
		ops = xreallocarray(NULL, fi->nops + 1, sizeof *ops);
		for (j = 0; j < fi->nops; j++)
			ops[j] = map[hlo_ops(m, fi)[j]];
		k = pass_copy_instr(m, c, fc, order[t], fi->nops, ops);
		if (!again)	/* the first copy keeps the names */
			m->comps[c].ins[k].name =
				m->comps[fc].ins[order[t]].name;
		map[order[t]] = k;
		free(ops);
	}
	root = map[m->comps[fc].root];
	fwd[i] = root;
	if (m->comps[c].root == i)
		m->comps[c].root = root;
	m->comps[c].ins[i].flags |= HI_DEAD;
	drop[fc] = 1;
	free(map);
	free(order);
	return 1;
fail:
	free(map);
	free(order);
	return 0;
}

/* one round over the fusions computation c had when it began; 1 if any
 * was defused */
static int
defuse_comp(HloModule *m, PassCtx *ctx, uint32_t c, uint8_t *drop)
{
	uint32_t n = m->comps[c].nins, i, k, *fwd;
	int any = 0;

	fwd = xreallocarray(NULL, n + 1, sizeof *fwd);
	for (i = 0; i < n; i++)
		fwd[i] = i;
	for (i = 0; i < n; i++) {
		const HloInstr *in = &m->comps[c].ins[i];

		if ((in->flags & HI_DEAD) || in->op != HOP_FUSION)
			continue;
		if (defuse(m, c, i, drop, fwd, n)) {
			any = 1;
			ctx->stats.rewrites++;
		}
	}
	for (i = 0; any && i < m->comps[c].nins; i++) {
		const HloInstr *in = &m->comps[c].ins[i];

		if (in->flags & HI_DEAD)
			continue;
		for (k = 0; k < in->nops; k++)
			m->ids[in->ops + k] = fwd_res(fwd, n,
				m->ids[in->ops + k]);
	}
	free(fwd);
	return any;
}

int
pass_defuser(HloModule *m, PassCtx *ctx)
{
	uint8_t *drop = xcalloc(m->ncomps + 1, 1), *touched;
	uint32_t c;
	int changed = 0, again = 1;

	touched = xcalloc(m->ncomps + 1, 1);
	while (again) {
		again = 0;
		for (c = 0; c < m->ncomps; c++) {
			if (drop[c])
				continue;
			if (defuse_comp(m, ctx, c, drop)) {
				touched[c] = 1;
				again = changed = 1;
			}
		}
	}
	if (pass_compact_touched(m, ctx, touched, changed) < 0) {
		free(drop);
		free(touched);
		return -1;
	}
	if (changed)
		pass_drop_comps(m, drop);
	free(drop);
	free(touched);
	return changed;
}
