/* conditional_canonicalizer.c: "conditional-canonicalizer", xla's
 * ConditionalCanonicalizer.
 *
 * For every conditional of a non-fusion computation: a branch whose
 * parameter is not a tuple gets a one-element tuple parameter and a
 * get-tuple-element in its place; a branch whose root is not a tuple gets
 * a one-element tuple root; each branch operand that is not a tuple is
 * wrapped in one; a conditional of non-tuple shape produces a
 * one-element tuple and a get-tuple-element takes its users.
 */
#include <stdlib.h>

#include "build.h"
#include "wutil.h"

static int
is_tuple(const HloModule *m, uint32_t shape)
{
	return hlo_sh(m, shape)->type == TY_TUPLE;
}

static int
canon_branch(HloModule *m, uint32_t b)
{
	uint32_t p, g, t, r, s;
	int changed = 0;

	if (hlo_param_count(m, b) != 1)
		return 0;
	p = hlo_param(m, b, 0);
	if (p != HLO_NONE && !is_tuple(m, m->comps[b].ins[p].shape)) {
		s = m->comps[b].ins[p].shape;
		m->comps[b].ins[p].shape = hlo_shape_tuple(m, 1, &s);
		g = wu_gte(m, b, p, 0, NULL);
		wu_replace_uses(m, b, p, g, g);
		changed = 1;
	}
	r = m->comps[b].root;
	if (r < m->comps[b].nins && !is_tuple(m, m->comps[b].ins[r].shape)) {
		t = wu_tuple(m, b, 1, &r, NULL);
		m->comps[b].root = t;
		changed = 1;
	}
	if (changed)
		hlo_comp_compact(m, b);
	return changed;
}

static int
canon(HloModule *m, uint32_t c, uint32_t i)
{
	uint32_t k, x, t, s, g, n = m->comps[c].ins[i].ncalled;
	int changed = 0;

	for (k = 0; k < n; k++)
		changed |= canon_branch(m, m->ids[m->comps[c].ins[i].called +
			k]);
	for (k = 1; k < m->comps[c].ins[i].nops; k++) {
		x = m->ids[m->comps[c].ins[i].ops + k];
		if (is_tuple(m, m->comps[c].ins[x].shape))
			continue;
		t = wu_tuple(m, c, 1, &x, NULL);
		m->ids[m->comps[c].ins[i].ops + k] = t;
		changed = 1;
	}
	s = m->comps[c].ins[i].shape;
	if (!is_tuple(m, s)) {
		m->comps[c].ins[i].shape = hlo_shape_tuple(m, 1, &s);
		g = wu_gte(m, c, i, 0, NULL);
		wu_replace_uses(m, c, i, g, g);
		changed = 1;
	}
	return changed;
}

int
pass_conditional_canonicalizer(HloModule *m, PassCtx *ctx)
{
	uint8_t *fus = pass_fusion_comps(m, ctx);
	uint32_t c, i, n;
	int changed = 0, here;

	for (c = 0; c < m->ncomps; c++) {
		if (fus[c])
			continue;
		here = 0;
		n = m->comps[c].nins;
		for (i = 0; i < n; i++)
			if (m->comps[c].ins[i].op == HOP_CONDITIONAL &&
			    !(m->comps[c].ins[i].flags & HI_DEAD))
				here |= canon(m, c, i);
		if (here && hlo_comp_compact(m, c) < 0)
			return hlo_err(&ctx->err, "conditional-canonicalizer: "
				"a cycle");
		changed |= here;
	}
	ctx->stats.rewrites += changed;
	return changed;
}
