/* hlo_constant_splitter.c: "hlo-constant-splitter", xla's
 * HloConstantSplitter (xla/hlo/transforms/simplifiers/
 * hlo_constant_splitter.cc, jpli02/xla c4cbd3c) with its default options
 * (split_expressions=false, no extra constraint).
 *
 * In every computation (fusion computations included), each constant
 * with more than one distinct user gets, for each user, its own copy in
 * place of the original (ReplaceUseWith: every operand slot of that user).
 * The original stays, without users, as in xla (dce removes it).
 *
 * Must not fire: constants with zero or one user (several uses by one
 * user count once), anything but constants (iotas and constant
 * expressions are split only with split_expressions, which hlopt does
 * not register), and (beyond xla, which always knows its literals)
 * constants printed with an elided literal ({...}): hlopt does not know
 * their value. Only constants are copied: no instruction with a side
 * effect or a collective is ever copied, merged or removed.
 */
#include "pass.h"

/* a constant whose literal hlopt knows */
static int
splittable(const HloModule *m, const HloInstr *in)
{
	uint32_t n;

	return in->op == HOP_CONSTANT && !(in->flags & HI_DEAD) &&
		hlo_literal(m, in, &n);
}

static int
split(HloModule *m, uint32_t c, PassCtx *ctx)
{
	uint32_t n = m->comps[c].nins, i, k, x, nops;
	uint32_t *nusers = pass_zalloc(ctx, n + 1, sizeof *nusers);
	uint32_t *last = pass_alloc(ctx, (n + 1) * sizeof *last);
	uint32_t *copy = pass_alloc(ctx, (n + 1) * sizeof *copy);
	int changed = 0;

	for (i = 0; i < n; i++)
		last[i] = HLO_NONE;
	for (i = 0; i < n; i++) {
		const HloInstr *in = &m->comps[c].ins[i];

		if (in->flags & HI_DEAD)
			continue;
		for (k = 0; k < in->nops; k++) {
			x = m->ids[in->ops + k];
			if (x < n && last[x] != i) {
				last[x] = i;
				nusers[x]++;
			}
		}
	}
	for (i = 0; i < n; i++)
		last[i] = HLO_NONE;
	for (i = 0; i < n; i++) {
		if (m->comps[c].ins[i].flags & HI_DEAD)
			continue;
		nops = m->comps[c].ins[i].nops;
		for (k = 0; k < nops; k++) {
			x = m->ids[m->comps[c].ins[i].ops + k];
			if (x >= n || nusers[x] <= 1 ||
			    !splittable(m, &m->comps[c].ins[x]))
				continue;
			if (last[x] != i) {
				last[x] = i;
				copy[x] = pass_copy_instr(m, c, c, x, 0, NULL);
			}
			m->ids[m->comps[c].ins[i].ops + k] = copy[x];
			changed = 1;
		}
	}
	return changed;
}

int
pass_hlo_constant_splitter(HloModule *m, PassCtx *ctx)
{
	uint32_t c;
	int changed = 0, here;

	for (c = 0; c < m->ncomps; c++) {
		here = split(m, c, ctx);
		pass_reset(ctx);
		ctx->stats.rewrites += here;
		changed |= here;
		if (here && hlo_comp_compact(m, c) < 0)
			return pass_err_cycle(ctx, m, c);
	}
	return changed;
}
