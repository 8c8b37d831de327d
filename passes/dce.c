/* dce.c: "dce", xla's HloDCE with its default options.
 *
 * In every computation reachable from the entry, an instruction stays if
 * it is the root, a parameter, has control dependencies, has a side
 * effect (its own or a called computation's) or is used by one that
 * stays; the rest is deleted. Then every computation no longer reachable
 * from the entry is deleted. As in xla: the Sharding custom-call is kept
 * when its operand is the root, a parameter or used elsewhere; the
 * frontend attribute xla_allow_dce_side_effecting_op="false" keeps an
 * instruction, ="true" lets dce delete a side-effecting tpu_custom_call or
 * async instruction; _xla_disable_while_loop_dce keeps an instruction.
 * Not done: removing dead parameters of fusion computations and unused
 * outputs of multi-output fusions.
 */
#include <string.h>
#include <strings.h>

#include "pass.h"

static int
fa_is(const HloModule *m, const HloInstr *in, const char *key,
	const char *val)
{
	uint32_t n;
	const char *v = pass_frontend_attr(m, in, key, &n);

	return v && strlen(val) == n && !strncasecmp(v, val, n);
}

static int
fa_true(const HloModule *m, const HloInstr *in, const char *key)
{
	return fa_is(m, in, key, "true") || fa_is(m, in, key, "1") ||
		fa_is(m, in, key, "yes");
}

/* whether in's frontend attributes mention s at all (a quick filter) */
static int
fa_mentions(const HloModule *m, const HloInstr *in, const char *s)
{
	uint32_t n, k, i;
	const char *v = hlo_attr_word(m, in, A_FRONTEND_ATTRIBUTES, &n);

	if (!v)
		return 0;
	k = strlen(s);
	for (i = 0; i + k <= n; i++)
		if (v[i] == s[0] && !memcmp(v + i, s, k))
			return 1;
	return 0;
}

static int
while_dce_disabled(const HloModule *m, const HloInstr *in)
{
	if (!fa_mentions(m, in, "dce") && !fa_mentions(m, in, "preserve"))
		return 0;
	return fa_true(m, in, "_xla_disable_while_loop_dce") ||
		fa_true(m, in, "xla.disable_while_loop_dce") ||
		fa_true(m, in, "_xla_preserve_tuple_indices") ||
		fa_true(m, in, "xla.preserve_tuple_indices");
}

static int
is_collective(const HloModule *m, const HloInstr *in)
{
	return (hlo_opinfo[in->op].flags & OPF_COLL) &&
		!hlo_attr_int(m, in, A_CONSTRAIN_LAYOUT, 0);
}

/* IsRemovableWhile with remove_cross_partition_collective_ops */
static int
removable_while(const HloModule *m, const HloInstr *in, const uint8_t *fx)
{
	uint32_t k, i;

	if (in->op != HOP_WHILE || while_dce_disabled(m, in))
		return 0;
	for (k = 0; k < in->ncalled; k++) {
		const HloComp *cp = &m->comps[m->ids[in->called + k]];

		for (i = 0; i < cp->nins; i++)
			if (!(cp->ins[i].flags & HI_DEAD) &&
			    pass_has_effect(m, &cp->ins[i], fx, m->ncomps) &&
			    !is_collective(m, &cp->ins[i]))
				return 0;
	}
	return 1;
}

/* whether instruction i must stay whatever its users (CanRemoveInstruction
 * false for a dead i) */
static int
pinned(const HloModule *m, uint32_t c, uint32_t i, const uint8_t *ctl,
	const uint32_t *nuse, const uint8_t *fx, PassCtx *ctx)
{
	const HloComp *cp = &m->comps[c];
	const HloInstr *in = &cp->ins[i];
	uint32_t op;

	if (i == cp->root || in->op == HOP_PARAMETER || ctl[i])
		return 1;
	if (in->nattrs && hlo_attr(m, in, A_FRONTEND_ATTRIBUTES) &&
	    (while_dce_disabled(m, in) ||
	    fa_is(m, in, "xla_allow_dce_side_effecting_op", "false")))
		return 1;
	if (pass_is_custom_call(m, in, "Sharding") && in->nops) {
		op = m->ids[in->ops];
		if (op == cp->root || cp->ins[op].op == HOP_PARAMETER ||
		    nuse[op] != 1)
			return 1;
	}
	if (!pass_has_effect(m, in, fx, m->ncomps))
		return 0;
	if (ctx->opt.dce_remove_collectives && (is_collective(m, in) ||
	    removable_while(m, in, fx)))
		return 0;
	if ((pass_is_custom_call(m, in, "tpu_custom_call") ||
	    (hlo_opinfo[in->op].flags & OPF_ASYNC)) &&
	    fa_is(m, in, "xla_allow_dce_side_effecting_op", "true"))
		return 0;
	return 1;
}

/* deletes the dead instructions of c; returns how many */
static int64_t
dce_comp(HloModule *m, uint32_t c, const uint8_t *fx, PassCtx *ctx)
{
	HloComp *cp = &m->comps[c];
	uint32_t n = cp->nins, i, k, d, top = 0;
	uint8_t *ctl = pass_zalloc(ctx, n + 1, 1);
	uint8_t *live = pass_zalloc(ctx, n + 1, 1);
	uint32_t *nuse = pass_zalloc(ctx, n + 1, sizeof *nuse);
	uint32_t *stack = pass_alloc(ctx, (n + 1) * sizeof *stack);
	int64_t dead = 0;

	for (i = 0; i < n; i++) {
		const HloInstr *in = &cp->ins[i];

		if (in->flags & HI_DEAD)
			continue;
		if (in->nctrl)
			ctl[i] = 1;
		for (k = 0; k < in->nctrl; k++)
			if ((d = m->ids[in->ctrl + k]) < n)
				ctl[d] = 1;
		for (k = 0; k < in->nops; k++)
			if ((d = m->ids[in->ops + k]) < n)
				nuse[d]++;
	}
	for (i = 0; i < n; i++)
		if (!(cp->ins[i].flags & HI_DEAD) &&
		    pinned(m, c, i, ctl, nuse, fx, ctx)) {
			live[i] = 1;
			stack[top++] = i;
		}
	while (top) {
		const HloInstr *in = &cp->ins[stack[--top]];

		for (k = 0; k < in->nops; k++)
			if ((d = m->ids[in->ops + k]) < n && !live[d]) {
				live[d] = 1;
				stack[top++] = d;
			}
	}
	for (i = 0; i < n; i++)
		if (!live[i] && !(cp->ins[i].flags & HI_DEAD)) {
			cp->ins[i].flags |= HI_DEAD;
			dead++;
		}
	return dead;
}

int
pass_dce_module(HloModule *m, PassCtx *ctx)
{
	uint32_t *order, ncomps = m->ncomps;
	uint8_t *fx;
	int n, i, changed = 0;
	int64_t dead;

	if (m->entry >= m->ncomps)
		return 0;
	fx = pass_comp_effects(m, ctx);
	order = pass_alloc(ctx, (m->ncomps + 1) * sizeof *order);
	n = hlo_comp_order(m, order);
	if (n < 0)
		return pass_err_cycle(ctx, m, HLO_NONE);
	for (i = n; i-- > 0;) {
		dead = dce_comp(m, order[i], fx, ctx);
		if (!dead)
			continue;
		changed = 1;
		ctx->stats.rewrites += dead;
		if (hlo_comp_compact(m, order[i]) < 0)
			return hlo_err(&ctx->err, "computation %s has a cycle",
				hlo_cstr(m, m->comps[order[i]].name));
	}
	hlo_module_compact(m);
	return changed || m->ncomps != ncomps;
}

int
pass_dce(HloModule *m, PassCtx *ctx)
{
	return pass_dce_module(m, ctx);
}
