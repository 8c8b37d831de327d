/* cond_simplifier.c: "simplify-conditional", xla's ConditionalSimplifier.
 *
 * Conditionals without a sharding whose branches (transitively) hold no
 * channel instruction (send/recv, collectives) are collected in every
 * computation, in xla's post order. For each, in turn:
 *   1. when every user is a get-tuple-element and every branch root a
 *      tuple, an output index whose root operands are the same
 *      instructions in every branch as an earlier index' has its users
 *      moved to the earlier index;
 *   2. when every user is a get-tuple-element (and it is not the root),
 *      outputs nobody reads are dropped: each branch gets a new root
 *      tuple of get-tuple-elements of its old root;
 *   3. when it has no users and is not the root, each branch returns ()
 *      and so does the conditional;
 *   4. when it has no control dependencies and no side effect: with one
 *      branch, or a constant branch index (pred: true is branch 0; s32
 *      out of range: the last branch), the branch taken is inlined in
 *      its place; with two branches on a pred whose instructions are all
 *      cheap (elementwise or data movement) and neither branch is empty
 *      (only parameters, tuples and get-tuple-elements, with an array
 *      somewhere in the result), both are inlined and the result becomes
 *      select(pred, true, false) (after-all for tokens, element-wise for
 *      tuples, the pred broadcast for arrays).
 * Then, for every branch computation of the surviving conditionals whose
 * parameter is a tuple used only by get-tuple-elements that read some of
 * it, the parameter shrinks to the elements read and every calling
 * conditional passes a tuple of just those.
 * A branch computation that something else also calls is cloned before
 * it changes (xla always clones); replaced instructions are deleted with
 * the operands only they used; computations left without callers stay.
 */
#include <stdlib.h>
#include <string.h>

#include "wutil.h"

typedef struct {
	HloModule *m;
	PassCtx *ctx;
	PassEdit *ed;
	uint8_t *fx;		/* side effects per computation */
	uint32_t *ncallers;	/* call sites per computation */
	uint8_t *touched;
	uint32_t cap;		/* of the three arrays */
} Cs;

static uint32_t
branch(const HloModule *m, uint32_t c, uint32_t x, uint32_t b)
{
	return m->ids[m->comps[c].ins[x].called + b];
}

static void
grow(Cs *s)
{
	uint32_t n = s->m->ncomps + 1, old = s->cap;

	if (n <= s->cap)
		return;
	s->cap = n * 2;
	s->fx = xreallocarray(s->fx, s->cap, 1);
	s->ncallers = xreallocarray(s->ncallers, s->cap, sizeof *s->ncallers);
	s->touched = xreallocarray(s->touched, s->cap, 1);
	memset(s->fx + old, 0, s->cap - old);
	memset(s->ncallers + old, 0, (s->cap - old) * sizeof *s->ncallers);
	memset(s->touched + old, 0, s->cap - old);
	if (s->ed) {
		s->ed->fx = s->fx;
		s->ed->nfx = s->m->ncomps;
	}
}

/* branch b of conditional x in c, cloned first when shared */
static uint32_t
own(Cs *s, uint32_t c, uint32_t x, uint32_t b)
{
	HloModule *m = s->m;
	uint32_t comp = branch(m, c, x, b), cl, n = m->comps[c].ins[x].ncalled;
	uint32_t *v;

	if (s->ncallers[comp] <= 1) {
		s->touched[comp] = 1;
		return comp;
	}
	cl = hlo_comp_clone(m, comp, ".clone");
	grow(s);
	s->fx[cl] = s->fx[comp];
	s->ncallers[comp]--;
	s->ncallers[cl] = 1;
	s->touched[cl] = 1;
	v = xreallocarray(NULL, n, sizeof *v);
	memcpy(v, m->ids + m->comps[c].ins[x].called, n * sizeof *v);
	v[b] = cl;
	hlo_set_called(m, c, x, n, v);
	free(v);
	if (s->ed)
		s->ed->nfx = m->ncomps;
	return cl;
}

/* distinct users of x (resolved), in scratch */
static uint32_t *
users_of(PassEdit *ed, uint32_t x, uint32_t *n)
{
	HloComp *cp = &ed->m->comps[ed->c];
	uint32_t i, k, *list = pass_alloc(ed->ctx, (ed->nuse[x] + 1) *
		sizeof *list);

	*n = 0;
	for (i = 0; i < cp->nins && *n < ed->nuse[x]; i++) {
		if ((cp->ins[i].flags & HI_DEAD) || pass_res(ed, i) != i)
			continue;
		for (k = 0; k < cp->ins[i].nops; k++)
			if (pass_opnd(ed, i, k) == x) {
				list[(*n)++] = i;
				break;
			}
	}
	return list;
}

static int
all_gte(PassEdit *ed, const uint32_t *u, uint32_t n)
{
	uint32_t k;

	for (k = 0; k < n; k++)
		if (pass_ins(ed, u[k])->op != HOP_GTE)
			return 0;
	return 1;
}

static void
set_index(HloModule *m, uint32_t c, uint32_t g, int64_t k)
{
	HloAttr a = hlo_mk_int(A_INDEX, k);

	hlo_attr_set(m, c, g, &a);
}

static int
is_tuple_shape(const HloModule *m, uint32_t s)
{
	return hlo_sh(m, s)->type == TY_TUPLE;
}

/* MergeDuplicateTupleElements */
static int
merge_dups(Cs *s, uint32_t x)
{
	PassEdit *ed = s->ed;
	HloModule *m = s->m;
	uint32_t nu, *u = users_of(ed, x, &nu), nb = pass_ins(ed, x)->ncalled;
	uint32_t n, i, j, b, k;
	int changed = 0;

	if (!nu || m->comps[ed->c].root == x ||
	    !is_tuple_shape(m, pass_ins(ed, x)->shape) || !all_gte(ed, u, nu))
		return 0;
	for (b = 0; b < nb; b++) {
		uint32_t bc = branch(m, ed->c, x, b);

		if (!wu_is_tuple_op(m, bc, m->comps[bc].root))
			return 0;
	}
	n = hlo_sh(m, pass_ins(ed, x)->shape)->ntuple;
	for (i = 1; i < n; i++) {
		for (j = 0; j < i; j++) {
			for (b = 0; b < nb; b++) {
				uint32_t bc = branch(m, ed->c, x, b);
				const HloInstr *r = &m->comps[bc].ins[
					m->comps[bc].root];

				if (i >= r->nops || m->ids[r->ops + i] !=
				    m->ids[r->ops + j])
					break;
			}
			if (b == nb)
				break;
		}
		if (j == i)
			continue;
		for (k = 0; k < nu; k++)
			if (hlo_attr_int(m, pass_ins(ed, u[k]), A_INDEX, -1) == i) {
				set_index(m, ed->c, u[k], j);
				changed = 1;
			}
	}
	return changed;
}

/* RemoveUnusedTupleElements */
static int
remove_unused(Cs *s, uint32_t x)
{
	PassEdit *ed = s->ed;
	HloModule *m = s->m;
	uint32_t nu, *u = users_of(ed, x, &nu), nb = pass_ins(ed, x)->ncalled;
	uint32_t n, b, k, nk = 0, *map, *ops, *el, old = pass_ins(ed, x)->shape;
	uint8_t *used;
	int64_t idx;

	if (!nu || m->comps[ed->c].root == x || !is_tuple_shape(m, old) ||
	    !all_gte(ed, u, nu))
		return 0;
	n = hlo_sh(m, old)->ntuple;
	used = pass_zalloc(ed->ctx, n + 1, 1);
	for (k = 0; k < nu; k++) {
		idx = hlo_attr_int(m, pass_ins(ed, u[k]), A_INDEX, -1);
		if (idx < 0 || idx >= n)
			return 0;
		used[idx] = 1;
	}
	for (k = 0; k < n; k++)
		nk += used[k];
	if (nk == n)
		return 0;
	for (b = 0; b < nb; b++) {
		uint32_t bc = branch(m, ed->c, x, b);
		uint32_t rs = m->comps[bc].ins[m->comps[bc].root].shape;

		if (!is_tuple_shape(m, rs) || !hlo_shape_eq_nolayout(m, rs, old))
			return 0;
	}
	map = pass_alloc(ed->ctx, (n + 1) * sizeof *map);
	ops = pass_alloc(ed->ctx, (nk + 1) * sizeof *ops);
	el = pass_alloc(ed->ctx, (nk + 1) * sizeof *el);
	for (k = nk = 0; k < n; k++) {
		map[k] = nk;
		if (used[k])
			el[nk++] = hlo_tuple_elems(m, hlo_sh(m, old))[k];
	}
	for (b = 0; b < nb; b++) {
		uint32_t bc = own(s, ed->c, x, b), root = m->comps[bc].root, j;

		for (k = j = 0; k < n; k++)
			if (used[k])
				ops[j++] = wu_gte(m, bc, root, k, NULL);
		m->comps[bc].root = wu_tuple(m, bc, nk, ops, NULL);
	}
	m->comps[ed->c].ins[x].shape = hlo_shape_tuple(m, nk, el);
	for (k = 0; k < nu; k++) {
		idx = hlo_attr_int(m, pass_ins(ed, u[k]), A_INDEX, -1);
		set_index(m, ed->c, u[k], map[idx]);
	}
	return 1;
}

/* ReplaceRootWithEmptyTupleIfNoUsers */
static int
empty_root(Cs *s, uint32_t x)
{
	PassEdit *ed = s->ed;
	HloModule *m = s->m;
	const HloShape *sh = hlo_sh(m, pass_ins(ed, x)->shape);
	uint32_t b, nb = pass_ins(ed, x)->ncalled;

	if (ed->nuse[x] || m->comps[ed->c].root == x ||
	    (sh->type == TY_TUPLE && sh->ntuple == 0))
		return 0;
	for (b = 0; b < nb; b++) {
		uint32_t bc = own(s, ed->c, x, b);

		m->comps[bc].root = wu_tuple(m, bc, 0, NULL, NULL);
	}
	m->comps[ed->c].ins[x].shape = hlo_shape_tuple(m, 0, NULL);
	return 1;
}

static int
cheap(const HloInstr *in)
{
	switch (in->op) {
	case HOP_BROADCAST: case HOP_CONCAT: case HOP_DYNSLICE: case HOP_GTE:
	case HOP_REDUCE: case HOP_RESHAPE: case HOP_PAD: case HOP_PARAMETER:
	case HOP_SLICE: case HOP_TUPLE: case HOP_CONSTANT:
		return 1;
	}
	return (hlo_opinfo[in->op].flags & OPF_ELEM) != 0;
}

static int
has_array(const HloModule *m, uint32_t s, int depth)
{
	const HloShape *sh = hlo_sh(m, s);
	uint32_t k;

	if (sh->type != TY_TUPLE)
		return sh->type != TY_TOKEN && sh->type != TY_OPAQUE;
	for (k = 0; k < sh->ntuple && depth < 64; k++)
		if (has_array(m, hlo_tuple_elems(m, sh)[k], depth + 1))
			return 1;
	return 0;
}

/* all instructions cheap (expensive == 0) or, with empty, ComputationIs
 * EmptyWithArrayRoot */
static int
scan(const HloModule *m, uint32_t c, int empty)
{
	const HloComp *cp = &m->comps[c];
	uint32_t i;

	for (i = 0; i < cp->nins; i++) {
		const HloInstr *in = &cp->ins[i];

		if (in->flags & HI_DEAD)
			continue;
		if (empty ? in->op != HOP_TUPLE && in->op != HOP_GTE &&
		    in->op != HOP_PARAMETER : !cheap(in))
			return 0;
	}
	return !empty || (cp->root < cp->nins &&
		has_array(m, cp->ins[cp->root].shape, 0));
}

static uint32_t
select_tree(Cs *s, uint32_t pred, uint32_t t, uint32_t f, int depth)
{
	PassEdit *ed = s->ed;
	HloModule *m = s->m;
	const HloShape *sh = hlo_sh(m, pass_ins(ed, f)->shape);
	uint32_t ops[3], n, k, *el, r, shape = pass_ins(ed, f)->shape;
	HloAttr a;

	if (sh->type == TY_TOKEN) {
		ops[0] = t;
		ops[1] = f;
		return wu_add(m, ed->c, HOP_AFTERALL, shape, 2, ops, ed);
	}
	if (sh->type != TY_TUPLE) {
		ops[0] = pred;
		if (sh->rank) {
			ops[0] = wu_add(m, ed->c, HOP_BROADCAST,
				hlo_shape_with_type(m, shape, TY_PRED), 1, &pred,
				ed);
			a = hlo_mk_ints(m, A_DIMENSIONS, NULL, 0);
			hlo_set_attrs(m, ed->c, ops[0], 1, &a);
		}
		ops[1] = t;
		ops[2] = f;
		return wu_add(m, ed->c, HOP_SELECT, shape, 3, ops, ed);
	}
	n = sh->ntuple;
	el = xreallocarray(NULL, n + 1, sizeof *el);
	for (k = 0; k < n && depth < 64; k++)
		el[k] = select_tree(s, pred, wu_gte(m, ed->c, t, k, ed),
			wu_gte(m, ed->c, f, k, ed), depth + 1);
	r = wu_tuple(m, ed->c, n, el, ed);
	free(el);
	return r;
}

/* the computations the inlined copies call get one more caller each */
static uint32_t
inline_branch(Cs *s, uint32_t x, uint32_t b)
{
	PassEdit *ed = s->ed;
	HloModule *m = s->m;
	uint32_t arg = pass_opnd(ed, x, b + 1), bc = branch(m, ed->c, x, b), i, k;
	const HloComp *cp = &m->comps[bc];

	for (i = 0; i < cp->nins; i++)
		if (!(cp->ins[i].flags & HI_DEAD))
			for (k = 0; k < cp->ins[i].ncalled; k++)
				if (m->ids[cp->ins[i].called + k] < m->ncomps)
					s->ncallers[m->ids[cp->ins[i].called +
						k]]++;
	return wu_inline(m, ed->c, bc, &arg, 1, ed);
}

static int
replaced(Cs *s, uint32_t x, uint32_t r)
{
	PassEdit *ed = s->ed;
	HloModule *m = s->m;
	uint32_t b, nb = pass_ins(ed, x)->ncalled;

	if (r == HLO_NONE)
		return 0;
	for (b = 0; b < nb; b++)
		if (s->ncallers[branch(m, ed->c, x, b)])
			s->ncallers[branch(m, ed->c, x, b)]--;
	if (pass_replace(ed, x, r, 0, 0))
		return 1;
	for (b = 0; b < nb; b++)
		s->ncallers[branch(m, ed->c, x, b)]++;
	return 0;
}

/* TryRemoveConditional */
static int
try_remove(Cs *s, uint32_t x)
{
	PassEdit *ed = s->ed;
	HloModule *m = s->m;
	uint32_t nb = pass_ins(ed, x)->ncalled, p = pass_opnd(ed, x, 0), r, t, f;
	int ty = hlo_sh(m, pass_ins(ed, p)->shape)->type;
	int64_t b = 0;
	WuVal v = {0};

	if (ed->ctl[x] || pass_has_effect(m, pass_ins(ed, x), s->fx, m->ncomps) ||
	    pass_ins(ed, x)->nops != nb + 1)
		return 0;
	if (nb == 1 || (pass_ins(ed, p)->op == HOP_CONSTANT &&
	    wu_read(m, pass_ins(ed, p), 0, &v) == 0)) {
		if (nb > 1 && ty == TY_PRED)
			b = v.u ? 0 : 1;
		else if (nb > 1)
			b = v.s < 0 || v.s >= nb ? nb - 1 : v.s;
		return replaced(s, x, inline_branch(s, x, b));
	}
	if (nb != 2 || ty != TY_PRED || !scan(m, branch(m, ed->c, x, 0), 0) ||
	    !scan(m, branch(m, ed->c, x, 1), 0) ||
	    scan(m, branch(m, ed->c, x, 0), 1) ||
	    scan(m, branch(m, ed->c, x, 1), 1))
		return 0;
	t = inline_branch(s, x, 0);
	f = inline_branch(s, x, 1);
	if (t == HLO_NONE || f == HLO_NONE)
		return 0;
	r = select_tree(s, pass_res(ed, p), t, f, 0);
	return replaced(s, x, r);
}

/* per computation: whether it or what it calls holds a channel
 * instruction */
static uint8_t *
channel_comps(const HloModule *m, PassCtx *ctx)
{
	uint8_t *ch = pass_zalloc(ctx, m->ncomps + 1, 1);
	uint32_t c, i, k, d;
	int again = 1;

	while (again) {
		again = 0;
		for (c = 0; c < m->ncomps; c++) {
			const HloComp *cp = &m->comps[c];

			if (ch[c])
				continue;
			for (i = 0; i < cp->nins && !ch[c]; i++) {
				const HloInstr *in = &cp->ins[i];
				int op = in->op;

				if (in->flags & HI_DEAD)
					continue;
				if ((hlo_opinfo[op].flags & OPF_COLL) ||
				    op == HOP_SEND || op == HOP_RECV ||
				    op == HOP_SENDDONE || op == HOP_RECVDONE)
					ch[c] = again = 1;
				for (k = 0; k < in->ncalled && !ch[c]; k++)
					if ((d = m->ids[in->called + k]) <
					    m->ncomps && ch[d])
						ch[c] = again = 1;
			}
		}
	}
	return ch;
}

static int
collectable(const HloModule *m, const HloInstr *in, const uint8_t *ch)
{
	uint32_t k, d;

	if (in->op != HOP_CONDITIONAL || hlo_attr(m, in, A_SHARDING) ||
	    !in->ncalled || in->nops != in->ncalled + 1)
		return 0;
	for (k = 0; k < in->ncalled; k++)
		if ((d = m->ids[in->called + k]) >= m->ncomps || ch[d])
			return 0;
	return 1;
}

static int
name_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* TryRemoveUnusedConditionalOperands for branch computation bc, called
 * by the conditionals cond[0..n) (pairs of computation, instruction) */
static int
shrink_param(Cs *s, uint32_t bc, const uint32_t *cond, uint32_t n)
{
	HloModule *m = s->m;
	uint32_t p = wu_param0(m, bc), nu, *u, k, j, nk = 0, np, slots = 0;
	uint32_t *map, *el, *ops, nc, b;
	uint8_t *used;
	const HloShape *ps;

	if (p == HLO_NONE || m->comps[bc].root == p ||
	    !is_tuple_shape(m, m->comps[bc].ins[p].shape))
		return 0;
	u = wu_users(m, bc, p, &nu, s->ctx);
	np = hlo_sh(m, m->comps[bc].ins[p].shape)->ntuple;
	used = pass_zalloc(s->ctx, np + 1, 1);
	for (k = 0; k < nu; k++) {
		int64_t idx = hlo_attr_int(m, &m->comps[bc].ins[u[k]], A_INDEX,
			-1);

		if (m->comps[bc].ins[u[k]].op != HOP_GTE || idx < 0 ||
		    idx >= np)
			return 0;
		used[idx] = 1;
	}
	for (k = 0; k < np; k++)
		nk += used[k];
	if (nk == np)
		return 0;
	for (j = 0; j < n; j++)
		for (b = 0; b < m->comps[cond[2 * j]].ins[cond[2 * j + 1]].ncalled;
		    b++)
			slots += branch(m, cond[2 * j], cond[2 * j + 1], b) == bc;
	nc = bc;
	if (s->ncallers[bc] > slots) {
		nc = hlo_comp_clone(m, bc, ".clone");
		grow(s);
		s->fx[nc] = s->fx[bc];
		s->ncallers[bc] -= slots;
		s->ncallers[nc] = slots;
		u = wu_users(m, nc, p, &nu, s->ctx);
	}
	s->touched[nc] = 1;
	ps = hlo_sh(m, m->comps[nc].ins[p].shape);
	map = pass_alloc(s->ctx, (np + 1) * sizeof *map);
	el = pass_alloc(s->ctx, (nk + 1) * sizeof *el);
	ops = pass_alloc(s->ctx, (nk + 1) * sizeof *ops);
	for (k = nk = 0; k < np; k++) {
		map[k] = nk;
		if (used[k])
			el[nk++] = hlo_tuple_elems(m, ps)[k];
	}
	m->comps[nc].ins[p].shape = hlo_shape_tuple(m, nk, el);
	for (k = 0; k < nu; k++)
		set_index(m, nc, u[k], map[hlo_attr_int(m,
			&m->comps[nc].ins[u[k]], A_INDEX, -1)]);
	for (j = 0; j < n; j++) {
		uint32_t c = cond[2 * j], x = cond[2 * j + 1], o, nb, i, *v;

		nb = m->comps[c].ins[x].ncalled;
		for (b = 0; b < nb; b++) {
			if (branch(m, c, x, b) != bc)
				continue;
			v = xreallocarray(NULL, nb, sizeof *v);
			memcpy(v, m->ids + m->comps[c].ins[x].called,
				nb * sizeof *v);
			v[b] = nc;
			hlo_set_called(m, c, x, nb, v);
			free(v);
			o = m->ids[m->comps[c].ins[x].ops + b + 1];
			for (k = i = 0; k < np; k++)
				if (used[k])
					ops[i++] = wu_gte(m, c, o, k, NULL);
			m->ids[m->comps[c].ins[x].ops + b + 1] =
				wu_tuple(m, c, nk, ops, NULL);
			s->touched[c] = 1;
		}
	}
	return 1;
}

static int
unused_operands(Cs *s, const uint32_t *names, uint32_t nnames)
{
	HloModule *m = s->m;
	uint32_t c, i, b, k, n = 0, cap = 16, *list, nl = 0, *cl;
	uint32_t *comps = xreallocarray(NULL, cap, sizeof *comps);
	int changed = 0;

	list = xreallocarray(NULL, 2 * (nnames + 1), sizeof *list);
	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++) {
			const HloInstr *in = &m->comps[c].ins[i];

			if ((in->flags & HI_DEAD) || in->op != HOP_CONDITIONAL ||
			    !bsearch(&in->name, names, nnames, sizeof *names,
			    name_cmp) || nl == nnames)
				continue;
			list[2 * nl] = c;
			list[2 * nl++ + 1] = i;
			for (b = 0; b < in->ncalled; b++) {
				uint32_t bc = m->ids[in->called + b];

				for (k = 0; k < n && comps[k] != bc; k++)
					;
				if (k < n)
					continue;
				if (n == cap) {
					cap *= 2;
					comps = xreallocarray(comps, cap,
						sizeof *comps);
				}
				comps[n++] = bc;
			}
		}
	cl = xreallocarray(NULL, 2 * (nl + 1), sizeof *cl);
	for (k = 0; k < n; k++) {
		uint32_t nc = 0, j;

		for (j = 0; j < nl; j++) {
			const HloInstr *in = &m->comps[list[2 * j]].ins[
				list[2 * j + 1]];

			for (b = 0; b < in->ncalled; b++)
				if (m->ids[in->called + b] == comps[k])
					break;
			if (b == in->ncalled)
				continue;
			cl[2 * nc] = list[2 * j];
			cl[2 * nc++ + 1] = list[2 * j + 1];
		}
		changed |= shrink_param(s, comps[k], cl, nc);
		pass_reset(s->ctx);
	}
	free(cl);
	free(list);
	free(comps);
	return changed;
}

/* the collected conditionals: instruction ids per computation, in post
 * order, and their names (sorted) */
static uint32_t
collect(Cs *s, uint32_t **where, uint32_t **names)
{
	HloModule *m = s->m;
	uint8_t *ch = channel_comps(m, s->ctx);
	uint32_t c, i, n = 0, cap = 16, *order, cnt;

	*where = xreallocarray(NULL, cap, 2 * sizeof **where);
	for (c = 0; c < m->ncomps; c++) {
		order = pass_alloc(s->ctx, (m->comps[c].nins + 1) *
			sizeof *order);
		cnt = pass_post_order(m, c, order, s->ctx);
		for (i = 0; i < cnt; i++) {
			if (!collectable(m, &m->comps[c].ins[order[i]], ch))
				continue;
			if (n == cap) {
				cap *= 2;
				*where = xreallocarray(*where, cap,
					2 * sizeof **where);
			}
			(*where)[2 * n] = c;
			(*where)[2 * n++ + 1] = order[i];
		}
	}
	*names = xreallocarray(NULL, n + 1, sizeof **names);
	for (i = 0; i < n; i++)
		(*names)[i] = m->comps[(*where)[2 * i]].ins[(*where)[2 * i + 1]].
			name;
	qsort(*names, n, sizeof **names, name_cmp);
	return n;
}

static int
simplify_all(Cs *s, const uint32_t *where, uint32_t n)
{
	HloModule *m = s->m;
	PassEdit ed;
	uint32_t k = 0, c, x;
	int changed = 0, r;

	pass_edit_init(&ed, m, s->ctx, s->fx, m->ncomps);
	s->ed = &ed;
	while (k < n) {
		c = where[2 * k];
		pass_edit_begin(&ed, c);
		for (; k < n && where[2 * k] == c; k++) {
			x = where[2 * k + 1];
			r = merge_dups(s, x);
			r |= remove_unused(s, x);
			r |= empty_root(s, x);
			r |= try_remove(s, x);
			s->ctx->stats.rewrites += r;
			changed |= r;
		}
		if (pass_edit_end(&ed) < 0) {
			changed = -1;
			break;
		}
		pass_reset(s->ctx);
	}
	s->ed = NULL;
	pass_edit_free(&ed);
	return changed;
}

int
pass_cond_simplifier(HloModule *m, PassCtx *ctx)
{
	Cs s;
	PassCallers cg;
	uint32_t c, n, *where, *names;
	int changed;

	memset(&s, 0, sizeof s);
	s.m = m;
	s.ctx = ctx;
	grow(&s);
	memcpy(s.fx, pass_comp_effects(m, ctx), m->ncomps);
	pass_callers(m, &cg, ctx);
	for (c = 0; c < m->ncomps; c++)
		s.ncallers[c] = cg.start[c + 1] - cg.start[c];
	n = collect(&s, &where, &names);
	pass_reset(ctx);
	changed = n ? simplify_all(&s, where, n) : 0;
	if (changed >= 0 && n)
		changed |= unused_operands(&s, names, n);
	changed = pass_compact_touched(m, ctx, s.touched, changed);
	free(where);
	free(names);
	free(s.fx);
	free(s.ncallers);
	free(s.touched);
	return changed;
}
