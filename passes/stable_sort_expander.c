/* stable_sort_expander.c: "stable-sort-expander", xla's StableSortExpander
 * (xla/hlo/transforms/expanders/stable_sort_expander.cc, openxla/xla as
 * of 2025-03).
 *
 * An OpExpanderPass over sorts with is_stable=true. The tie breaker is
 * an operand that is an s32 iota along the sort dimension; when the sort
 * has none, one is appended: the sort becomes a sort of one more operand
 * (same attributes, is_stable kept) whose comparator is a copy of the old
 * one (".clone") with two more s32 parameters p.N.lhs and p.N.rhs, and
 * get-tuple-elements (and a tuple, for several operands) give back the
 * old results. Then the comparator's root r becomes
 *     select(compare(r, r', EQ), compare(iota.lhs, iota.rhs, LT), r)
 * with r' a copy of every instruction with operands, each parameter pair
 * swapped (r evaluated with lhs and rhs exchanged): equal keys fall back
 * to the original positions. Not done: sorts whose dimension exceeds
 * 2^31-1 elements (xla: Unimplemented). As in xla, every matching sort
 * counts as a change and the output still has is_stable=true, so running
 * the pass again adds another (redundant) tie breaker. Deviation: when
 * the iota is reused and the comparator has other callers, it is copied
 * first, so that other sorts keep their comparator (xla edits it in
 * place for everyone).
 */
#include <stdlib.h>
#include <string.h>

#include "build.h"

typedef struct {
	uint32_t *ncallers;	/* per computation, at pass start */
	uint32_t ncomps;
} Ss;

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	const HloInstr *in = pass_ins(ed, i);
	const HloAttr *a = hlo_attr(ed->m, in, A_IS_STABLE);

	(void)arg;
	return in->op == HOP_SORT && in->nops >= 1 && in->ncalled == 1 &&
		a && a->v;
}

static int64_t
sort_dim(PassEdit *ed, uint32_t i)
{
	uint32_t n;
	const int64_t *d = hlo_attr_ints(ed->m, pass_ins(ed, i), A_DIMENSIONS,
		&n);

	return d && n ? d[0] : 0;
}

static int
iota_operand(PassEdit *ed, uint32_t s)
{
	HloModule *m = ed->m;
	uint32_t k, x, n = pass_ins(ed, s)->nops;
	int64_t d = sort_dim(ed, s);

	for (k = 0; k < n; k++) {
		x = pass_opnd(ed, s, k);
		if (pass_ins(ed, x)->op == HOP_IOTA &&
		    hlo_attr_int(m, pass_ins(ed, x), A_IOTA_DIM, -1) == d &&
		    pass_b_type(ed, x) == TY_S32)
			return (int)k;
	}
	return -1;
}

static uint32_t
add_param(HloModule *m, uint32_t c, int64_t num, const char *name)
{
	uint32_t p = hlo_instr_add(m, c, HOP_PARAMETER, hlo_shape_scalar(m,
		TY_S32), pass_unique_name(m, name), 0, NULL);

	m->comps[c].ins[p].num = num;
	return p;
}

static uint32_t
add_compare(HloModule *m, uint32_t c, uint32_t a, uint32_t b,
	const char *dir)
{
	uint32_t o[2] = {a, b}, i;
	HloAttr at;

	i = hlo_instr_add(m, c, HOP_COMPARE, hlo_shape_scalar(m, TY_PRED),
		hlo_fresh_name(m, "compare"), 2, o);
	at = hlo_mk_bytes(m, A_DIRECTION, K_WORD, dir, strlen(dir));
	hlo_set_attrs(m, c, i, 1, &at);
	return i;
}

/* the tie breaker on parameters 2*k, 2*k+1 of comparator c; -1 on a
 * cycle */
static int
tie_break(HloModule *m, uint32_t c, int k)
{
	uint32_t n = m->comps[c].nins, *order = xmalloc((n + 1) * 4u);
	uint32_t *map = xmalloc((n + 1) * 4u), i, x, j, root, ops[8], *o;
	int cnt = hlo_topo(m, c, order), np = hlo_param_count(m, c), p;
	uint32_t same, tie, sel, o3[3];

	for (i = 0; i < n; i++)
		map[i] = i;
	for (p = 0; p < np; p++) {
		x = hlo_param(m, c, p);
		if (x != HLO_NONE && hlo_param(m, c, p ^ 1) != HLO_NONE)
			map[x] = hlo_param(m, c, p ^ 1);
	}
	root = m->comps[c].root;
	for (i = 0; cnt > 0 && i < (uint32_t)cnt; i++) {
		const HloInstr *in = &m->comps[c].ins[order[i]];
		uint32_t nops = in->nops;

		if (!nops)
			continue;
		o = nops <= 8 ? ops : xmalloc(nops * 4u);
		for (j = 0; j < nops; j++)
			o[j] = map[m->ids[in->ops + j]];
		x = hlo_instr_clone(m, c, order[i]);
		hlo_set_operands(m, c, x, nops, o);
		if (o != ops)
			free(o);
		map[order[i]] = x;
	}
	if (cnt >= 0) {
		same = add_compare(m, c, root, map[root], "EQ");
		tie = add_compare(m, c, hlo_param(m, c, 2 * k),
			hlo_param(m, c, 2 * k + 1), "LT");
		o3[0] = same;
		o3[1] = tie;
		o3[2] = root;
		sel = hlo_instr_add(m, c, HOP_SELECT, hlo_shape_scalar(m,
			TY_PRED), hlo_fresh_name(m, "select"), 3, o3);
		m->comps[c].root = sel;
	}
	free(order);
	free(map);
	return cnt < 0 ? -1 : 0;
}

/* the sort with an s32 iota appended; *sort becomes the new sort */
static uint32_t
add_iota(PassEdit *ed, uint32_t *sort)
{
	HloModule *m = ed->m;
	uint32_t s = *sort, n = pass_ins(ed, s)->nops, k, *ops, *shapes;
	uint32_t comp = m->ids[pass_ins(ed, s)->called], cl, iota, ns, r;
	uint32_t x0 = pass_opnd(ed, s, 0);
	int64_t d = sort_dim(ed, s);
	const HloShape *sh = hlo_sh(m, pass_b_shape(ed, x0));
	char name[64];

	if (d < 0 || d >= sh->rank || hlo_dims(m, sh)[d] > INT32_MAX)
		return HLO_NONE;
	cl = hlo_comp_clone(m, comp, ".clone");
	snprintf(name, sizeof name, "p.%u.lhs", n);
	add_param(m, cl, 2 * (int64_t)n, name);
	snprintf(name, sizeof name, "p.%u.rhs", n);
	add_param(m, cl, 2 * (int64_t)n + 1, name);
	iota = pass_b_iota(ed, hlo_shape_with_type(m, pass_b_shape(ed, x0),
		TY_S32), d);
	ops = xmalloc((n + 1) * 4u);
	shapes = xmalloc((n + 1) * 4u);
	for (k = 0; k < n; k++) {
		ops[k] = pass_opnd(ed, s, k);
		shapes[k] = pass_b_shape(ed, ops[k]);
	}
	ops[n] = iota;
	shapes[n] = pass_b_shape(ed, iota);
	ns = pass_b_op(ed, HOP_SORT, hlo_shape_tuple(m, n + 1, shapes), n + 1,
		ops);
	pass_b_set_attrs_like(ed, ns, s);
	hlo_set_called(m, ed->c, ns, 1, &cl);
	for (k = 0; k < n; k++)
		ops[k] = pass_b_gte(ed, ns, k);
	r = n == 1 ? ops[0] : pass_b_op(ed, HOP_TUPLE, pass_ins(ed, s)->shape,
		n, ops);
	free(ops);
	free(shapes);
	*sort = ns;
	return r;
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	Ss *ss = arg;
	uint32_t sort = i, r = i, comp;
	int k = iota_operand(ed, i);

	if (k < 0) {
		r = add_iota(ed, &sort);
		if (r == HLO_NONE)
			return HLO_NONE;
		k = (int)pass_ins(ed, sort)->nops - 1;
	} else {
		comp = m->ids[pass_ins(ed, sort)->called];
		if (comp < ss->ncomps && ss->ncallers[comp] > 1) {
			ss->ncallers[comp]--;
			comp = hlo_comp_clone(m, comp, ".clone");
			hlo_set_called(m, ed->c, sort, 1, &comp);
		}
	}
	comp = m->ids[pass_ins(ed, sort)->called];
	if (tie_break(m, comp, k) < 0)
		return HLO_NONE;
	return r;
}

int
pass_stable_sort_expander(HloModule *m, PassCtx *ctx)
{
	Ss ss;
	int r;

	ss.ncomps = m->ncomps;
	ss.ncallers = xcalloc(m->ncomps + 1, sizeof *ss.ncallers);
	pass_count_calls(m, ss.ncallers);
	r = pass_expand(m, ctx, match, expand, &ss);
	free(ss.ncallers);
	return r;
}
