/* sort_simplifier.c: "simplify-sorts", xla's SortSimplifier.
 *
 * A sort of several operands (tuple shape) that is not its computation's
 * root and whose users are all get-tuple-elements loses the operands
 * whose outputs nobody reads and whose comparator parameters are unused.
 * The new sort calls a copy of the comparator without those parameters
 * (the others renumbered and named p.N.lhs / p.N.rhs); each old
 * get-tuple-element is replaced by a new one (or by the sort itself when
 * one operand remains) and deleted with what only it used. The old
 * comparator stays in the module for dce to delete.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pass.h"

/* which comparator parameters have users */
static uint8_t *
params_used(HloModule *m, uint32_t cmp, PassCtx *ctx)
{
	const HloComp *cp = &m->comps[cmp];
	uint8_t *used = pass_zalloc(ctx, cp->nins + 1, 1);
	uint32_t i, k, d;

	for (i = 0; i < cp->nins; i++) {
		if (cp->ins[i].flags & HI_DEAD)
			continue;
		for (k = 0; k < cp->ins[i].nops; k++)
			if ((d = m->ids[cp->ins[i].ops + k]) < cp->nins)
				used[d] = 1;
	}
	if (cp->root < cp->nins)
		used[cp->root] = 1;
	return used;
}

/* the comparator copy keeping the parameters of the operands in keep */
static uint32_t
new_comparator(HloModule *m, uint32_t cmp, const uint8_t *keep,
	uint32_t nops)
{
	uint32_t d = hlo_comp_clone(m, cmp, ".clone"), i, num;
	char buf[64];

	for (i = 0; i < m->comps[d].nins; i++) {
		HloInstr *in = &m->comps[d].ins[i];
		uint32_t k, newk;

		if (in->op != HOP_PARAMETER || (in->flags & HI_DEAD) ||
		    in->num < 0 || in->num >= 2 * (int64_t)nops)
			continue;
		k = in->num / 2;
		if (!keep[k]) {
			in->flags |= HI_DEAD;
			continue;
		}
		for (newk = 0, num = 0; num < k; num++)
			newk += keep[num];
		snprintf(buf, sizeof buf, "p.%u.%s", newk,
			in->num % 2 ? "rhs" : "lhs");
		in->num = 2 * newk + in->num % 2;
		in->name = hlo_find_str(m, buf, strlen(buf)) == HLO_NONE ?
			hlo_strz(m, buf) : hlo_fresh_name(m, buf);
		in = &m->comps[d].ins[i];
		in->shape = hlo_shape_scalar(m, hlo_sh(m, in->shape)->type);
	}
	hlo_comp_compact(m, d);
	return d;
}

/* RemoveUnusedOperandFromSort; u: the users when the computation's edit
 * began */
static int
simplify(PassEdit *ed, uint32_t s, const HloUsers *u, PassCtx *ctx)
{
	HloModule *m = ed->m;
	uint32_t c = ed->c, n, k, j, nkeep = 0, cmp, ns, x, *ops, *shapes;
	uint32_t *res;
	const HloInstr *in = &m->comps[c].ins[s];
	uint8_t *keep, *used;
	int single;

	if (hlo_sh(m, in->shape)->type != TY_TUPLE ||
	    m->comps[c].root == s || in->ncalled != 1)
		return 0;
	n = in->nops;
	keep = pass_zalloc(ctx, n + 1, 1);
	for (j = u->start[s]; j < u->start[s + 1]; j++) {
		const HloInstr *g = &m->comps[c].ins[u->list[j]];
		int64_t idx;

		if (g->flags & HI_DEAD)
			continue;
		if (g->op != HOP_GTE)
			return 0;
		idx = hlo_attr_int(m, g, A_INDEX, -1);
		if (idx >= 0 && (uint64_t)idx < n)
			keep[idx] = 1;
	}
	cmp = m->ids[in->called];
	used = params_used(m, cmp, ctx);
	for (j = 0; j < m->comps[cmp].nins; j++) {
		const HloInstr *p = &m->comps[cmp].ins[j];

		if (p->op == HOP_PARAMETER && !(p->flags & HI_DEAD) &&
		    used[j] && p->num >= 0 && p->num < 2 * (int64_t)n)
			keep[p->num / 2] = 1;
	}
	for (k = 0; k < n; k++)
		nkeep += keep[k];
	if (nkeep == n || nkeep == 0)
		return 0;
	single = nkeep == 1;
	ops = pass_alloc(ctx, (n + 1) * sizeof *ops);
	shapes = pass_alloc(ctx, (n + 1) * sizeof *shapes);
	res = pass_alloc(ctx, (n + 1) * sizeof *res);
	for (k = 0, j = 0; k < n; k++) {
		x = pass_res(ed, m->ids[m->comps[c].ins[s].ops + k]);
		if (!keep[k])
			continue;
		ops[j] = x;
		shapes[j++] = m->comps[c].ins[x].shape;
	}
	ns = single ? shapes[0] : hlo_shape_tuple(m, nkeep, shapes);
	cmp = new_comparator(m, cmp, keep, n);
	x = pass_copy_instr(m, c, c, s, nkeep, ops);
	m->comps[c].ins[x].shape = ns;
	hlo_set_called(m, c, x, 1, &cmp);
	pass_edit_added(ed, x);
	for (k = 0, j = 0; k < n; k++) {
		HloAttr a;
		uint32_t g;

		if (!keep[k])
			continue;
		if (single) {
			res[k] = x;
			continue;
		}
		a = hlo_mk_int(A_INDEX, j);
		g = hlo_instr_add(m, c, HOP_GTE, shapes[j],
			hlo_fresh_name(m, "get-tuple-element"), 1, &x);
		hlo_set_attrs(m, c, g, 1, &a);
		pass_edit_added(ed, g);
		res[k] = g;
		j++;
	}
	for (j = u->start[s]; j < u->start[s + 1]; j++) {
		const HloInstr *g = &m->comps[c].ins[u->list[j]];
		int64_t idx;

		if (g->flags & HI_DEAD)
			continue;
		idx = hlo_attr_int(m, g, A_INDEX, -1);
		if (idx < 0 || (uint64_t)idx >= n || !keep[idx])
			continue;
		pass_replace_uses(ed, u->list[j], res[idx]);
		pass_remove_cascade(ed, u->list[j]);
	}
	return 1;
}

/* computations marked fusion are left alone */
static int
visit_comp(PassEdit *ed, void *arg)
{
	HloModule *m = ed->m;
	HloUsers u;
	uint32_t c = ed->c, i, nins = m->comps[c].nins;

	if ((m->comps[c].flags & HC_FUSION) || !hlo_comp_has_op(m, c,
	    HOP_SORT))
		return 0;
	hlo_users(m, c, &u);
	for (i = 0; i < nins; i++)
		if (m->comps[c].ins[i].op == HOP_SORT &&
		    !(m->comps[c].ins[i].flags & HI_DEAD))
			ed->ctx->stats.rewrites += simplify(ed, i, &u,
				ed->ctx);
	hlo_users_free(&u);
	return ed->changed;
}

int
pass_sort_simplifier(HloModule *m, PassCtx *ctx)
{
	return pass_visit_comps(m, ctx, PASS_VISIT_EFFECTS | PASS_SKIP_NONE,
		visit_comp, NULL);
}
