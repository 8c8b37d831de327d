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
 * Before a computation is cleaned, xla's RemoveMultiOutputFusionsUnused-
 * Outputs: a fusion whose root is a tuple and whose users are all
 * get-tuple-elements loses the outputs nobody reads (several users of
 * one output included): its root keeps the used elements (one element:
 * the fusion returns it and its get-tuple-elements become the fusion),
 * and the parameters of the fused computation that no longer reach its
 * root go with the fusion's operands. Not done: removing dead
 * parameters of fusion computations otherwise.
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

/* the fused computation of fusion instruction in, if only in calls it */
static uint32_t
own_fused_comp(const HloModule *m, const HloInstr *in, const uint32_t *ncall)
{
	uint32_t fc;

	if (in->op != HOP_FUSION || in->ncalled != 1)
		return HLO_NONE;
	fc = m->ids[in->called];
	return fc < m->ncomps && ncall[fc] == 1 ? fc : HLO_NONE;
}

/* live grows by the operands, transitively, of the top instructions
 * on stack (each marked live already) */
static void
mark_operands(const HloModule *m, const HloComp *cp, uint8_t *live,
	uint32_t *stack, uint32_t top)
{
	uint32_t k, d;

	while (top) {
		const HloInstr *in = &cp->ins[stack[--top]];

		for (k = 0; k < in->nops; k++)
			if ((d = m->ids[in->ops + k]) < cp->nins && !live[d]) {
				live[d] = 1;
				stack[top++] = d;
			}
	}
}

/* the parameters of fc that nothing live in fc reaches from its root get
 * removed, with the operands of fusion f (in c) they stand for */
static void
drop_dead_fused_params(HloModule *m, uint32_t c, uint32_t f, uint32_t fc,
	PassCtx *ctx)
{
	HloComp *cp = &m->comps[fc];
	uint32_t n = cp->nins, i, k, top = 0, np, kept = 0;
	uint8_t *live = pass_zalloc(ctx, n + 1, 1);
	uint32_t *stack = pass_alloc(ctx, (n + 1) * sizeof *stack);
	int64_t *newnum;
	HloInstr *fi;

	if (cp->root >= n)
		return;
	live[cp->root] = 1;
	stack[top++] = cp->root;
	for (i = 0; i < n; i++)
		if (!(cp->ins[i].flags & HI_DEAD) && cp->ins[i].nctrl &&
		    !live[i]) {
			live[i] = 1;	/* control dependencies stay */
			stack[top++] = i;
		}
	mark_operands(m, cp, live, stack, top);
	fi = &m->comps[c].ins[f];
	np = fi->nops;
	newnum = pass_alloc(ctx, (np + 1) * sizeof *newnum);
	for (k = 0; k < np; k++)
		newnum[k] = -1;
	for (i = 0; i < n; i++) {
		HloInstr *in = &cp->ins[i];

		if (in->op != HOP_PARAMETER || (in->flags & HI_DEAD) ||
		    in->num < 0 || (uint64_t)in->num >= np)
			continue;
		newnum[in->num] = live[i] ? 0 : -2;
	}
	for (k = 0; k < np; k++)
		if (newnum[k] == -2)
			break;
	if (k == np)
		return;
	/* what no longer reaches the root goes first (fused computations
	 * have no side effects), so that no operand is a removed parameter */
	for (i = 0; i < n; i++)
		if (!live[i] && cp->ins[i].op != HOP_PARAMETER)
			cp->ins[i].flags |= HI_DEAD;
	for (k = 0; k < np; k++)
		if (newnum[k] != -2) {
			m->ids[fi->ops + kept] = m->ids[fi->ops + k];
			newnum[k] = kept++;
		}
	fi->nops = kept;
	for (i = 0; i < n; i++) {
		HloInstr *in = &cp->ins[i];

		if (in->op != HOP_PARAMETER || (in->flags & HI_DEAD) ||
		    in->num < 0 || (uint64_t)in->num >= np)
			continue;
		if (newnum[in->num] == -2)
			in->flags |= HI_DEAD;
		else
			in->num = newnum[in->num];
	}
}

/* the users of c's instructions as trim_fusions found them (made on the
 * first fusion that needs them): users[start[d] .. start[d + 1]) are the
 * instructions that had d as an operand. Trimming a fusion only takes
 * operands away from instructions or points them at that fusion, so a
 * fusion not yet trimmed has no user outside its list (which may hold
 * some that no longer use it: they are checked again) */
typedef struct {
	uint32_t *start, *users;
} Users;

static void
users_make(const HloModule *m, uint32_t c, Users *u, PassCtx *ctx)
{
	const HloComp *cp = &m->comps[c];
	uint32_t n = cp->nins, i, k, d, tot = 0;

	u->start = pass_zalloc(ctx, n + 2, sizeof *u->start);
	for (i = 0; i < n; i++)
		if (!(cp->ins[i].flags & HI_DEAD))
			for (k = 0; k < cp->ins[i].nops; k++)
				if ((d = m->ids[cp->ins[i].ops + k]) < n) {
					u->start[d + 2]++;
					tot++;
				}
	for (d = 0; d < n; d++)
		u->start[d + 2] += u->start[d + 1];
	u->users = pass_alloc(ctx, (tot + 1) * sizeof *u->users);
	for (i = 0; i < n; i++)
		if (!(cp->ins[i].flags & HI_DEAD))
			for (k = 0; k < cp->ins[i].nops; k++)
				if ((d = m->ids[cp->ins[i].ops + k]) < n)
					u->users[u->start[d + 1]++] = i;
}

/* RemoveMultiOutputFusionsUnusedOutputs for fusion f of c; 1 if done */
static int
trim_fusion_outputs(HloModule *m, uint32_t c, uint32_t f, uint32_t fc,
	const uint8_t *ctl, Users *us, PassCtx *ctx)
{
	HloComp *cp = &m->comps[c];
	const HloComp *fcp = &m->comps[fc];
	const HloInstr *fi = &cp->ins[f], *root;
	uint32_t n = cp->nins, i, j, k, nel, nused = 0, *pos, *el, nt, one = 0;
	uint8_t *used;
	int any = 0;

	if (fcp->root >= fcp->nins || ctl[f] || fi->nctrl)
		return 0;
	root = &fcp->ins[fcp->root];
	if (root->op != HOP_TUPLE || hlo_attr(m, root, A_SHARDING) ||
	    hlo_attr(m, fi, A_OUTPUT_OPERAND_ALIASING) ||
	    hlo_attr_is(m, fi, A_FUSION_KIND, "kCustom") ||
	    m->shapes[fi->shape].type != TY_TUPLE ||
	    m->shapes[fi->shape].ntuple != root->nops || f == cp->root)
		return 0;
	nel = root->nops;
	used = pass_zalloc(ctx, nel + 1, 1);
	if (!us->start)
		users_make(m, c, us, ctx);
	for (j = us->start[f]; j < us->start[f + 1]; j++) {
		const HloInstr *u = &cp->ins[us->users[j]];

		if (u->flags & HI_DEAD)
			continue;
		for (k = 0; k < u->nops; k++)
			if (m->ids[u->ops + k] == f)
				break;
		if (k == u->nops)
			continue;
		if (u->op != HOP_GTE || u->nops != 1)
			return 0;
		k = (uint32_t)hlo_attr_int(m, u, A_INDEX, -1);
		if (k >= nel)
			return 0;
		used[k] = 1;
		any = 1;
	}
	for (k = 0; k < nel; k++)
		nused += used[k];
	if (!any || nused == nel)
		return 0;
	pos = pass_alloc(ctx, (nel + 1) * sizeof *pos);
	el = pass_alloc(ctx, (nel + 1) * sizeof *el);
	for (k = 0; k < nel; k++)
		if (used[k]) {
			pos[k] = one;
			el[one++] = m->ids[root->ops + k];
		}
	if (nused == 1) {
		/* the gtes become the fusion itself, control successors
		 * included (xla relays them); a gte with control
		 * predecessors keeps the whole fusion */
		for (i = 0; i < n; i++) {
			const HloInstr *u = &cp->ins[i];

			if (!(u->flags & HI_DEAD) && u->op == HOP_GTE &&
			    u->nops == 1 && m->ids[u->ops] == f && u->nctrl)
				return 0;
		}
		for (i = 0; i < n; i++) {
			HloInstr *u = &cp->ins[i];

			if (u->flags & HI_DEAD)
				continue;
			for (k = 0; k < u->nops + u->nctrl; k++) {
				uint32_t *slot = k < u->nops ? &m->ids[u->ops +
					k] : &m->ids[u->ctrl + k - u->nops];

				if (*slot < n && cp->ins[*slot].op == HOP_GTE &&
				    cp->ins[*slot].nops == 1 &&
				    m->ids[cp->ins[*slot].ops] == f)
					*slot = f;
			}
		}
		if (cp->ins[cp->root].op == HOP_GTE &&
		    m->ids[cp->ins[cp->root].ops] == f)
			cp->root = f;
		for (i = 0; i < n; i++)
			if (cp->ins[i].op == HOP_GTE && cp->ins[i].nops == 1 &&
			    m->ids[cp->ins[i].ops] == f && i != f)
				cp->ins[i].flags |= HI_DEAD;
		cp->ins[f].shape = m->comps[fc].ins[el[0]].shape;
		m->comps[fc].root = el[0];
	} else {
		uint32_t *shp = pass_alloc(ctx, (nused + 1) * sizeof *shp);
		HloAttr at;

		for (k = 0; k < nused; k++)
			shp[k] = m->comps[fc].ins[el[k]].shape;
		for (i = 0; i < n; i++) {
			const HloInstr *u = &cp->ins[i];

			if ((u->flags & HI_DEAD) || u->op != HOP_GTE ||
			    u->nops != 1 || m->ids[u->ops] != f)
				continue;
			at = hlo_mk_int(A_INDEX,
				pos[hlo_attr_int(m, u, A_INDEX, 0)]);
			hlo_attr_set(m, c, i, &at);
		}
		nt = hlo_shape_tuple(m, nused, shp);
		cp = &m->comps[c];
		cp->ins[f].shape = nt;
		i = hlo_instr_add(m, fc, HOP_TUPLE, nt, hlo_fresh_name(m,
			"tuple"), nused, el);
		m->comps[fc].root = i;
	}
	drop_dead_fused_params(m, c, f, fc, ctx);
	return 1;
}

/* the fusions of c whose fused computations only they call lose their
 * unused outputs; returns how many changed */
static int
trim_fusions(HloModule *m, uint32_t c, const uint32_t *ncall, PassCtx *ctx)
{
	uint32_t n = m->comps[c].nins, i, k, d, fc;
	uint8_t *ctl = pass_zalloc(ctx, n + 1, 1);
	Users us = {NULL, NULL};
	int done = 0;

	for (i = 0; i < n; i++) {
		const HloInstr *in = &m->comps[c].ins[i];

		if (in->flags & HI_DEAD)
			continue;
		for (k = 0; k < in->nctrl; k++)
			if ((d = m->ids[in->ctrl + k]) < n)
				ctl[d] = 1;
	}
	for (i = 0; i < n; i++) {
		const HloInstr *in = &m->comps[c].ins[i];

		if ((in->flags & HI_DEAD) ||
		    (fc = own_fused_comp(m, in, ncall)) == HLO_NONE)
			continue;
		if (trim_fusion_outputs(m, c, i, fc, ctl, &us, ctx)) {
			done++;
			if (hlo_comp_compact(m, fc) < 0)
				return -1;
		}
	}
	return done;
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

	pass_mark_ctrl(m, c, ctl);
	for (i = 0; i < n; i++) {
		const HloInstr *in = &cp->ins[i];

		if (in->flags & HI_DEAD)
			continue;
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
	mark_operands(m, cp, live, stack, top);
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
	uint32_t *order, ncomps = m->ncomps, *ncall;
	uint8_t *fx;
	int n, i, t, changed = 0;
	int64_t dead;

	if (m->entry >= m->ncomps)
		return 0;
	fx = pass_comp_effects(m, ctx);
	order = pass_alloc(ctx, (m->ncomps + 1) * sizeof *order);
	n = hlo_comp_order(m, order);
	if (n < 0)
		return pass_err_cycle(ctx, m, HLO_NONE);
	ncall = pass_zalloc(ctx, m->ncomps + 1, sizeof *ncall);
	pass_count_calls(m, ncall);
	/* callers before callees: a fusion loses its unused outputs once
	 * the dead get-tuple-elements of its caller are gone, and its fused
	 * computation is cleaned after that */
	for (i = n; i-- > 0;) {
		dead = dce_comp(m, order[i], fx, ctx);
		t = trim_fusions(m, order[i], ncall, ctx);
		if (t < 0)
			return hlo_err(&ctx->err, "a fused computation has a "
				"cycle");
		if (!dead && !t)
			continue;
		changed = 1;
		ctx->stats.rewrites += dead + t;
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
