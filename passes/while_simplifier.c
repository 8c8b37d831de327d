/* while_simplifier.c: "simplify-while-loops", xla's WhileLoopSimplifier
 * with its default options (trivial compares not simplified).
 *
 * Every while of the module, in computation order, whose body and
 * condition have no other caller and without _xla_disable_while_loop_dce
 * (or preserve_tuple_indices), gets the first of these that applies:
 *   1. repeated indices: elements passed through unchanged and
 *      initialised by the same instruction collapse onto the first; then
 *      elements updated by the same dynamic-update-slice of themselves
 *      (same init, update and indices) do too;
 *   2. a nested tuple state is flattened (get-tuple-elements and tuples
 *      rebuild the nested form around the loop, inside the body and the
 *      condition);
 *   3. dead elements are removed: an element not used after the loop
 *      that feeds neither another element, a side effect nor the
 *      condition; or a connected group of elements, each unused after
 *      the loop or passed through, none feeding a side effect or the
 *      condition;
 *   4. elements initialised by a constant and set to an equal constant
 *      by the body leave the state (all of them: the loop becomes its
 *      init);
 * and, unless the body or condition (transitively) holds a send or recv:
 *   5. scalar elements passed through and initialised by a constant are
 *      replaced by that constant in the body and the condition;
 *   6. a loop with a side-effect-free condition and a trip count of 0
 *      becomes its init; with a trip count of 1 and no side effects, its
 *      body is inlined (not with frontend attribute
 *      skip-simplify-while-loops_trip-count-one="true" or
 *      inlineable="false");
 * and, unless a domain is inside:
 *   7. induction variables (x += constant) of s8, u8, s32, u32, s64, u64
 *      are merged: a trip counter is added (or the existing 0-based +1
 *      one used) and each variable becomes init + counter * step.
 * Removing elements rewrites the init tuple, the body and condition
 * parameters, the body root and the loop's users (a tuple of the new
 * loop's elements and the init's for the removed ones) together. When
 * anything changed, dce runs over the module, as in xla.
 * Not in xla: a body root that has users blocks 1 and 3; when every
 * element is constant (4) a body or condition with side effects keeps
 * the loop.
 */
#include <stdlib.h>
#include <string.h>

#include "wutil.h"

typedef struct {
	HloModule *m;
	PassCtx *ctx;
	uint8_t *fx;		/* side effects per computation */
	uint8_t *sendrecv;	/* holds send/recv, transitively */
	uint8_t *domain;	/* holds a domain, transitively */
	uint32_t *ncallers;
	uint8_t *touched;
	uint32_t *p0;		/* parameter 0 per computation */
} Ws;

static HloInstr *
ins(const HloModule *m, uint32_t c, uint32_t i)
{
	return &m->comps[c].ins[i];
}

static uint32_t
opnd(const HloModule *m, uint32_t c, uint32_t i, uint32_t k)
{
	return m->ids[m->comps[c].ins[i].ops + k];
}

static uint32_t
body_of(const HloModule *m, uint32_t c, uint32_t w)
{
	return m->ids[ins(m, c, w)->called];
}

static uint32_t
cond_of(const HloModule *m, uint32_t c, uint32_t w)
{
	return m->ids[ins(m, c, w)->called + 1];
}

static uint32_t
init_of(const HloModule *m, uint32_t c, uint32_t w)
{
	return opnd(m, c, w, 0);
}

static int64_t
index_of(const HloModule *m, uint32_t c, uint32_t i)
{
	return hlo_attr_int(m, ins(m, c, i), A_INDEX, -1);
}

/* get-tuple-element(param 0 of c), index k (any index when k < 0) */
static int
param_gte(Ws *s, uint32_t c, uint32_t i, int64_t k)
{
	const HloModule *m = s->m;
	const HloInstr *in = ins(m, c, i);

	return in->op == HOP_GTE && in->nops && m->ids[in->ops] == s->p0[c] &&
		(k < 0 || index_of(m, c, i) == k);
}

/* every use of from in c by instructions below limit (and the root) */
static void
redirect(HloModule *m, uint32_t c, uint32_t from, uint32_t to,
	uint32_t limit)
{
	hlo_replace_uses_in(m, c, from, to, HLO_NONE, limit);
}

static void
set_index(HloModule *m, uint32_t c, uint32_t i, int64_t k)
{
	HloAttr a = hlo_mk_int(A_INDEX, k);

	hlo_attr_set(m, c, i, &a);
}

static int
has_users(const HloModule *m, uint32_t c, uint32_t x)
{
	const HloComp *cp = &m->comps[c];
	uint32_t i, k;

	for (i = 0; i < cp->nins; i++) {
		if (cp->ins[i].flags & HI_DEAD)
			continue;
		for (k = 0; k < cp->ins[i].nops; k++)
			if (m->ids[cp->ins[i].ops + k] == x)
				return 1;
	}
	return 0;
}

/* AllWhileParamConsumersGte */
static int
params_gte_only(Ws *s, uint32_t c)
{
	const HloModule *m = s->m;
	const HloComp *cp = &m->comps[c];
	uint32_t p = s->p0[c], i, k;

	if (p == HLO_NONE || cp->root == p)
		return 0;
	for (i = 0; i < cp->nins; i++) {
		const HloInstr *in = &cp->ins[i];

		if ((in->flags & HI_DEAD) || in->op == HOP_GTE)
			continue;
		for (k = 0; k < in->nops; k++)
			if (m->ids[in->ops + k] == p)
				return 0;
	}
	return 1;
}

static int
comp_effect(Ws *s, uint32_t c)
{
	return s->fx[c];
}

static uint32_t
tuple_size(const HloModule *m, uint32_t shape)
{
	const HloShape *sh = hlo_sh(m, shape);

	return sh->type == TY_TUPLE ? sh->ntuple : 0;
}

static void
touch(Ws *s, uint32_t c, uint32_t w)
{
	s->touched[c] = 1;
	s->touched[body_of(s->m, c, w)] = 1;
	s->touched[cond_of(s->m, c, w)] = 1;
}

/* the called computations of every live instruction of comp get one more
 * caller (its instructions are being copied) */
static void
count_copies(Ws *s, uint32_t comp)
{
	const HloModule *m = s->m;
	const HloComp *cp = &m->comps[comp];
	uint32_t i, k, d;

	for (i = 0; i < cp->nins; i++)
		if (!(cp->ins[i].flags & HI_DEAD))
			for (k = 0; k < cp->ins[i].ncalled; k++)
				if ((d = m->ids[cp->ins[i].called + k]) <
				    m->ncomps)
					s->ncallers[d]++;
}

/* the loop is gone: uses of w take x */
static void
drop_loop(Ws *s, uint32_t c, uint32_t w, uint32_t x)
{
	HloModule *m = s->m;
	uint32_t b = body_of(m, c, w), cd = cond_of(m, c, w);

	redirect(m, c, w, x, m->comps[c].nins);
	ins(m, c, w)->flags |= HI_DEAD;
	if (s->ncallers[b])
		s->ncallers[b]--;
	if (s->ncallers[cd])
		s->ncallers[cd]--;
	s->touched[c] = 1;
}

/* RemoveDeadTupleIndices: keeps the indices with keep[i]; a removed index
 * reads surv[i] of the new loop when surv is given, else the init */
static void
remove_indices(Ws *s, uint32_t c, uint32_t w, const uint8_t *keep,
	const int64_t *surv)
{
	HloModule *m = s->m;
	uint32_t n = tuple_size(m, ins(m, c, w)->shape), nk = 0, k, j, limit;
	uint32_t *newi, *el, *ops, init = init_of(m, c, w), comps[2], t;
	uint32_t oldshape = ins(m, c, w)->shape, news;

	newi = xreallocarray(NULL, n + 1, sizeof *newi);
	el = xreallocarray(NULL, n + 1, sizeof *el);
	ops = xreallocarray(NULL, n + 1, sizeof *ops);
	for (k = 0; k < n; k++) {
		newi[k] = nk;
		if (keep[k])
			el[nk++] = hlo_tuple_elems(m, hlo_sh(m, oldshape))[k];
	}
	news = hlo_shape_tuple(m, nk, el);
	comps[0] = body_of(m, c, w);
	comps[1] = cond_of(m, c, w);
	for (j = 0; j < 2; j++) {
		uint32_t comp = comps[j], p = s->p0[comp], cnt, i;
		uint32_t nn = m->comps[comp].nins, *order;
		uint8_t *dead = xcalloc(nn + 1, 1);

		order = xreallocarray(NULL, nn + 1, sizeof *order);
		for (i = 0; i < nn; i++)
			if (!(ins(m, comp, i)->flags & HI_DEAD) &&
			    param_gte(s, comp, i, -1)) {
				int64_t x = index_of(m, comp, i);

				if (x < 0 || x >= n || !keep[x])
					dead[i] = 1;
				else
					set_index(m, comp, i, newi[x]);
			}
		cnt = hlo_topo(m, comp, order);
		for (i = 0; i < cnt; i++) {
			uint32_t x = order[i];

			if (x == m->comps[comp].root || dead[x])
				continue;
			for (k = 0; k < ins(m, comp, x)->nops; k++)
				if (dead[opnd(m, comp, x, k)])
					dead[x] = 1;
		}
		for (i = 0; i < nn; i++)
			if (dead[i])
				ins(m, comp, i)->flags |= HI_DEAD;
		ins(m, comp, p)->shape = news;
		free(dead);
		free(order);
	}
	t = m->comps[comps[0]].root;
	for (k = nk = 0; k < n; k++)
		if (keep[k])
			ops[nk++] = opnd(m, comps[0], t, k);
	m->comps[comps[0]].root = wu_tuple(m, comps[0], nk, ops, NULL);
	if (!has_users(m, comps[0], t))
		ins(m, comps[0], t)->flags |= HI_DEAD;
	for (k = nk = 0; k < n; k++)
		if (keep[k])
			ops[nk++] = ins(m, c, init)->op == HOP_TUPLE ?
				opnd(m, c, init, k) : wu_gte(m, c, init, k, NULL);
	t = wu_tuple(m, c, nk, ops, NULL);
	ins(m, c, w)->shape = news;
	m->ids[ins(m, c, w)->ops] = t;
	limit = m->comps[c].nins;
	for (k = 0; k < n; k++) {
		if (keep[k])
			ops[k] = wu_gte(m, c, w, newi[k], NULL);
		else if (surv)
			ops[k] = wu_gte(m, c, w, newi[surv[k]], NULL);
		else
			ops[k] = wu_gte(m, c, init, k, NULL);
	}
	t = wu_tuple(m, c, n, ops, NULL);
	redirect(m, c, w, t, limit);
	touch(s, c, w);
	free(newi);
	free(el);
	free(ops);
}

static int
loop_ok(Ws *s, uint32_t c, uint32_t w)
{
	HloModule *m = s->m;
	uint32_t b = body_of(m, c, w), r = m->comps[b].root;

	return !wu_has_ctrl(m, c, w) &&
		hlo_sh(m, ins(m, c, init_of(m, c, w))->shape)->type == TY_TUPLE &&
		wu_is_tuple_op(m, b, r) && !has_users(m, b, r) &&
		params_gte_only(s, b) && params_gte_only(s, cond_of(m, c, w));
}

/* the get-tuple-elements of indices with surv[i] >= 0 read surv[i] */
static void
redirect_gtes(Ws *s, uint32_t comp, const int64_t *surv, uint32_t n)
{
	HloModule *m = s->m;
	uint32_t p = s->p0[comp], i, nn = m->comps[comp].nins;
	uint32_t *made = xreallocarray(NULL, n + 1, sizeof *made);

	for (i = 0; i < n; i++)
		made[i] = HLO_NONE;
	for (i = 0; i < nn; i++) {
		int64_t x;

		if ((ins(m, comp, i)->flags & HI_DEAD) ||
		    !param_gte(s, comp, i, -1))
			continue;
		x = index_of(m, comp, i);
		if (x < 0 || x >= n || surv[x] < 0)
			continue;
		if (made[surv[x]] == HLO_NONE)
			made[surv[x]] = wu_gte(m, comp, p, surv[x], NULL);
		redirect(m, comp, i, made[surv[x]], m->comps[comp].nins);
		ins(m, comp, i)->flags |= HI_DEAD;
	}
	free(made);
}

/* groups indices by key; surv[i] = first index with the same key */
static int
group_keys(const uint64_t *key, const uint8_t *has, uint32_t n,
	int64_t *surv)
{
	uint32_t i, j;
	int any = 0;

	for (i = 0; i < n; i++) {
		surv[i] = -1;
		if (!has[i])
			continue;
		for (j = 0; j < i; j++)
			if (has[j] && surv[j] < 0 && key[j] == key[i])
				break;
		if (j < i) {
			surv[i] = j;
			any = 1;
		}
	}
	return any;
}

static int
collapse(Ws *s, uint32_t c, uint32_t w, int64_t *surv, int to_init)
{
	HloModule *m = s->m;
	uint32_t n = tuple_size(m, ins(m, c, w)->shape), k;
	uint8_t *keep = xmalloc(n + 1);

	for (k = 0; k < n; k++)
		keep[k] = surv[k] < 0;
	redirect_gtes(s, body_of(m, c, w), surv, n);
	redirect_gtes(s, cond_of(m, c, w), surv, n);
	remove_indices(s, c, w, keep, to_init ? NULL : surv);
	free(keep);
	return 1;
}

/* TryRemoveRepeatedWhileTupleIndices */
static int
repeated(Ws *s, uint32_t c, uint32_t w)
{
	HloModule *m = s->m;
	uint32_t b = body_of(m, c, w), init = init_of(m, c, w), n, k, j, r;
	uint64_t *key;
	uint8_t *has;
	int64_t *surv;
	int changed = 0;

	if (!loop_ok(s, c, w) || ins(m, c, init)->op != HOP_TUPLE)
		return 0;
	n = tuple_size(m, ins(m, c, w)->shape);
	if (n != ins(m, c, init)->nops)
		return 0;
	key = xcalloc(n + 1, sizeof *key);
	has = xcalloc(n + 1, 1);
	surv = xcalloc(n + 1, sizeof *surv);
	r = m->comps[b].root;
	for (k = 0; k < n; k++) {
		has[k] = param_gte(s, b, opnd(m, b, r, k), k);
		key[k] = opnd(m, c, init, k);
	}
	if (group_keys(key, has, n, surv))
		changed = collapse(s, c, w, surv, 1);
	/* the dynamic-update-slice equivalent, on the new loop */
	init = init_of(m, c, w);
	r = m->comps[b].root;
	n = tuple_size(m, ins(m, c, w)->shape);
	for (k = 0; k < n; k++) {
		uint32_t d = opnd(m, b, r, k);
		const HloInstr *di = ins(m, b, d);

		has[k] = di->op == HOP_DYNUPDSLICE && di->nops >= 2 &&
			param_gte(s, b, opnd(m, b, d, 0), k);
		key[k] = k;
		for (j = 0; has[k] && j < k; j++) {
			uint32_t e = opnd(m, b, r, j), q;
			const HloInstr *ei = ins(m, b, e);

			if (!has[j] || ei->nops != di->nops ||
			    opnd(m, c, init, j) != opnd(m, c, init, k))
				continue;
			for (q = 1; q < di->nops; q++)
				if (opnd(m, b, d, q) != opnd(m, b, e, q))
					break;
			if (q == di->nops) {
				key[k] = key[j];
				break;
			}
		}
	}
	if (group_keys(key, has, n, surv))
		changed |= collapse(s, c, w, surv, 0);
	free(key);
	free(has);
	free(surv);
	return changed;
}

/* leaves of x (of tuple shape sh) as get-tuple-elements, depth first */
static void
flat_elems(HloModule *m, uint32_t c, uint32_t x, uint32_t *out, uint32_t *n,
	int depth)
{
	uint32_t k, nt = tuple_size(m, ins(m, c, x)->shape), g;

	for (k = 0; k < nt && depth < 64; k++) {
		g = wu_gte(m, c, x, k, NULL);
		if (hlo_sh(m, ins(m, c, g)->shape)->type == TY_TUPLE)
			flat_elems(m, c, g, out, n, depth + 1);
		else
			out[(*n)++] = g;
	}
}

/* UnflattenTupleInstr: a nested tuple of shape s over the leaves */
static uint32_t
unflatten(HloModule *m, uint32_t c, const uint32_t *leaves, uint32_t *pos,
	uint32_t s, int depth)
{
	const HloShape *sh = hlo_sh(m, s);
	uint32_t n = sh->ntuple, k, *el = xreallocarray(NULL, n + 1, sizeof *el);
	uint32_t r;

	for (k = 0; k < n; k++) {
		uint32_t e = hlo_tuple_elems(m, hlo_sh(m, s))[k];

		if (hlo_sh(m, e)->type == TY_TUPLE && depth < 64)
			el[k] = unflatten(m, c, leaves, pos, e, depth + 1);
		else
			el[k] = leaves[(*pos)++];
	}
	r = wu_tuple(m, c, n, el, NULL);
	free(el);
	return r;
}

static uint32_t
count_leaves(const HloModule *m, uint32_t s, uint32_t *el, int depth)
{
	const HloShape *sh = hlo_sh(m, s);
	uint32_t k, n = 0;

	if (sh->type != TY_TUPLE || depth > 64) {
		if (el)
			el[0] = s;
		return 1;
	}
	for (k = 0; k < sh->ntuple; k++)
		n += count_leaves(m, hlo_tuple_elems(m, hlo_sh(m, s))[k],
			el ? el + n : NULL, depth + 1);
	return n;
}

/* x (of the nested shape) now has the flat shape: its uses take the
 * nested form built from its leaves */
static void
renest(HloModule *m, uint32_t c, uint32_t x, uint32_t nested, uint32_t nl)
{
	uint32_t *leaves = xreallocarray(NULL, nl + 1, sizeof *leaves), k, pos;
	uint32_t limit = m->comps[c].nins, t;

	for (k = 0; k < nl; k++)
		leaves[k] = wu_gte(m, c, x, k, NULL);
	pos = 0;
	t = unflatten(m, c, leaves, &pos, nested, 0);
	redirect(m, c, x, t, limit);
	free(leaves);
}

/* TryFlattenNestedTuples */
static int
flatten(Ws *s, uint32_t c, uint32_t w)
{
	HloModule *m = s->m;
	uint32_t b = body_of(m, c, w), cd = cond_of(m, c, w), S, F, nl, *el;
	uint32_t k, r, n, init = init_of(m, c, w), *ops;
	const HloShape *sh;
	int nested = 0;

	if (!wu_is_tuple_op(m, c, init) || !wu_is_tuple_op(m, b,
	    m->comps[b].root) || has_users(m, b, m->comps[b].root) ||
	    s->p0[b] == HLO_NONE || s->p0[cd] == HLO_NONE)
		return 0;
	S = ins(m, c, init)->shape;
	sh = hlo_sh(m, S);
	for (k = 0; k < sh->ntuple; k++)
		if (hlo_sh(m, hlo_tuple_elems(m, sh)[k])->type == TY_TUPLE)
			nested = 1;
	if (!nested)
		return 0;
	nl = count_leaves(m, S, NULL, 0);
	el = xreallocarray(NULL, nl + 1, sizeof *el);
	ops = xreallocarray(NULL, nl + 1, sizeof *ops);
	count_leaves(m, S, el, 0);
	F = hlo_shape_tuple(m, nl, el);
	ins(m, cd, s->p0[cd])->shape = F;
	renest(m, cd, s->p0[cd], S, nl);
	ins(m, b, s->p0[b])->shape = F;
	renest(m, b, s->p0[b], S, nl);
	r = m->comps[b].root;
	n = 0;
	flat_elems(m, b, r, ops, &n, 0);
	m->comps[b].root = wu_tuple(m, b, n, ops, NULL);
	n = 0;
	flat_elems(m, c, init, ops, &n, 0);
	/* the tuple first: it grows the pools the left side reads */
	r = wu_tuple(m, c, n, ops, NULL);
	m->ids[ins(m, c, w)->ops] = r;
	ins(m, c, w)->shape = F;
	renest(m, c, w, S, nl);
	touch(s, c, w);
	free(el);
	free(ops);
	return 1;
}

/* union-find over instruction slots */
static uint32_t
find(uint32_t *up, uint32_t x)
{
	while (up[x] != x) {
		up[x] = up[up[x]];
		x = up[x];
	}
	return x;
}

typedef struct {
	uint32_t set;
	uint32_t idx;
} Member;

static int
member_cmp(const void *a, const void *b)
{
	const Member *x = a, *y = b;

	if (x->set != y->set)
		return x->set < y->set ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

typedef struct {
	Ws *s;
	uint32_t c, w, b, cd, nb, n, ncand, words;
	int64_t *cand;		/* candidate bit per index, -1 none */
	uint64_t *deps;		/* per slot, then the two summary rows */
	uint32_t *up;		/* union-find parent per slot */
} Dead;

static uint64_t *
row(Dead *d, uint32_t slot)
{
	return d->deps + (uint64_t)slot * d->words;
}

static uint32_t
slot(Dead *d, uint32_t comp, uint32_t i)
{
	return comp == d->b ? i : d->nb + i;
}

static int
tracked(Dead *d, uint32_t comp, uint32_t i)
{
	return i != d->s->p0[comp] && !(comp == d->b &&
		i == d->s->m->comps[d->b].root);
}

static void
unite(Dead *d, uint32_t a, uint32_t b)
{
	d->up[find(d->up, a)] = find(d->up, b);
}

static int
bit(const uint64_t *r, int64_t k)
{
	return (r[k / 64] >> (k % 64)) & 1;
}

/* seeds, merges and propagates dependencies in one computation; returns
 * -1 on a cycle */
static int
deps_comp(Dead *d, uint32_t comp, uint64_t *side)
{
	Ws *s = d->s;
	HloModule *m = s->m;
	uint32_t nn = m->comps[comp].nins, *order, i, k, x, o, w;
	uint32_t broot = m->comps[d->b].root;
	int cnt;

	order = xreallocarray(NULL, nn + 1, sizeof *order);
	cnt = hlo_topo(m, comp, order);
	if (cnt < 0) {
		free(order);
		return -1;
	}
	for (i = 0; i < (uint32_t)cnt; i++) {
		uint64_t *r;

		x = order[i];
		if (!tracked(d, comp, x))
			continue;
		r = row(d, slot(d, comp, x));
		if (param_gte(s, comp, x, -1)) {
			int64_t idx = index_of(m, comp, x);

			if (idx < 0 || idx >= d->n) {
				free(order);
				return -1;
			}
			if (d->cand[idx] >= 0)
				r[d->cand[idx] / 64] |= (uint64_t)1 <<
					(d->cand[idx] % 64);
			o = opnd(m, d->b, broot, idx);
			if (!(comp == d->b && o == x))
				unite(d, slot(d, d->b, o), slot(d, comp, x));
		} else {
			for (k = 0; k < ins(m, comp, x)->nops; k++) {
				o = opnd(m, comp, x, k);
				if (!tracked(d, comp, o))
					continue;
				unite(d, slot(d, comp, o), slot(d, comp, x));
				for (w = 0; w < d->words; w++)
					r[w] |= row(d, slot(d, comp, o))[w];
			}
		}
		if (pass_has_effect(m, ins(m, comp, x), d->s->fx, m->ncomps) ||
		    (comp == d->cd && x == m->comps[d->cd].root))
			for (w = 0; w < d->words; w++)
				side[w] |= r[w];
	}
	free(order);
	return 0;
}

/* marks keep[i] = 0 for the removable indices; returns how many */
static uint32_t
dead_analysis(Dead *d, const uint8_t *used_after, uint8_t *keep)
{
	Ws *s = d->s;
	HloModule *m = s->m;
	uint32_t broot = m->comps[d->b].root, i, k, w, nm = 0, removed = 0;
	uint32_t total = d->nb + m->comps[d->cd].nins, g, j;
	uint64_t *side = row(d, total), *others = row(d, total + 1), *r;
	Member *mem;

	if (deps_comp(d, d->b, side) < 0 || deps_comp(d, d->cd, side) < 0)
		return 0;
	for (i = 0; i < d->n; i++) {
		uint32_t o = opnd(m, d->b, broot, i);

		if (!tracked(d, d->b, o))
			continue;
		r = row(d, slot(d, d->b, o));
		for (w = 0; w < d->words; w++) {
			uint64_t v = r[w];

			if (d->cand[i] >= 0 && (uint64_t)d->cand[i] / 64 == w)
				v &= ~((uint64_t)1 << (d->cand[i] % 64));
			others[w] |= v;
		}
	}
	for (i = 0; i < d->n; i++)
		if (!used_after[i] && !bit(others, d->cand[i]) &&
		    !bit(side, d->cand[i]) && keep[i]) {
			keep[i] = 0;
			removed++;
		}
	mem = xreallocarray(NULL, total + d->n + 1, sizeof *mem);
	for (i = 0; i < d->n; i++) {
		mem[nm].set = find(d->up, slot(d, d->b, opnd(m, d->b, broot, i)));
		mem[nm++].idx = i;
	}
	for (k = 0; k < 2; k++) {
		uint32_t comp = k ? d->cd : d->b, nn = m->comps[comp].nins;

		for (g = 0; g < nn; g++)
			if (!(ins(m, comp, g)->flags & HI_DEAD) &&
			    param_gte(s, comp, g, -1)) {
				mem[nm].set = find(d->up, slot(d, comp, g));
				mem[nm++].idx = index_of(m, comp, g);
			}
	}
	qsort(mem, nm, sizeof *mem, member_cmp);
	for (i = 0; i < nm; i = j) {
		int blocks = 0;

		for (j = i; j < nm && mem[j].set == mem[i].set; j++)
			if (d->cand[mem[j].idx] < 0 ||
			    bit(side, d->cand[mem[j].idx]))
				blocks = 1;
		if (blocks)
			continue;
		for (g = i; g < j; g++)
			if (keep[mem[g].idx]) {
				keep[mem[g].idx] = 0;
				removed++;
			}
	}
	free(mem);
	return removed;
}

/* TryRemoveDeadWhileParams */
static int
dead_params(Ws *s, uint32_t c, uint32_t w)
{
	HloModule *m = s->m;
	Dead d;
	uint32_t i, k, total, nu, *u;
	uint8_t *used, *keep;
	uint64_t cells;
	int r = 0;

	if (!loop_ok(s, c, w))
		return 0;
	memset(&d, 0, sizeof d);
	d.s = s;
	d.c = c;
	d.w = w;
	d.b = body_of(m, c, w);
	d.cd = cond_of(m, c, w);
	d.n = tuple_size(m, ins(m, c, w)->shape);
	if (!d.n || d.n != ins(m, d.b, m->comps[d.b].root)->nops)
		return 0;
	used = xcalloc(d.n + 1, 1);
	keep = xmalloc(d.n + 1);
	memset(keep, 1, d.n + 1);
	u = wu_users(m, c, w, &nu, s->ctx);
	for (k = 0; k < nu; k++) {
		int64_t x = index_of(m, c, u[k]);

		if (ins(m, c, u[k])->op != HOP_GTE || x < 0 || x >= d.n)
			memset(used, 1, d.n);
		else
			used[x] = 1;
	}
	if (m->comps[c].root == w)
		memset(used, 1, d.n);
	d.cand = xreallocarray(NULL, d.n + 1, sizeof *d.cand);
	for (i = 0; i < d.n; i++) {
		uint32_t o = opnd(m, d.b, m->comps[d.b].root, i);

		d.cand[i] = !used[i] || param_gte(s, d.b, o, i) ?
			(int64_t)d.ncand++ : -1;
	}
	d.nb = m->comps[d.b].nins;
	total = d.nb + m->comps[d.cd].nins;
	d.words = (d.ncand + 63) / 64 + 1;
	cells = (uint64_t)(total + 2) * d.words;
	if (d.ncand && cells < ((uint64_t)1 << 27)) {
		d.deps = xcalloc(cells, sizeof *d.deps);
		d.up = xreallocarray(NULL, total + 1, sizeof *d.up);
		for (i = 0; i < total; i++)
			d.up[i] = i;
		if (dead_analysis(&d, used, keep)) {
			remove_indices(s, c, w, keep, NULL);
			r = 1;
		}
	}
	free(d.deps);
	free(d.up);
	free(d.cand);
	free(used);
	free(keep);
	return r;
}

static int
same_literal(const HloModule *m, const HloInstr *a, const HloInstr *b)
{
	uint32_t na, nb;
	const void *x = hlo_literal(m, a, &na), *y = hlo_literal(m, b, &nb);

	return x && y && na == nb && hlo_shape_eq_nolayout(m, a->shape,
		b->shape) && (!na || !memcmp(x, y, na));
}

/* the constants of keep == 0 come back: tuple of x's elements and them */
static uint32_t
with_constants(HloModule *m, uint32_t c, uint32_t x, uint32_t src,
	uint32_t init, const uint8_t *keep, uint32_t n)
{
	uint32_t *ops = xreallocarray(NULL, n + 1, sizeof *ops), k, j = 0, t;

	for (k = 0; k < n; k++)
		ops[k] = keep[k] ? wu_gte(m, c, x, j++, NULL) : c == src ?
			opnd(m, src, init, k) : pass_copy_instr(m, c, src,
			opnd(m, src, init, k), 0, NULL);
	t = wu_tuple(m, c, n, ops, NULL);
	free(ops);
	return t;
}

/* TryRemoveConstantParams */
static int
constant_params(Ws *s, uint32_t c, uint32_t w)
{
	HloModule *m = s->m;
	uint32_t b = body_of(m, c, w), cd = cond_of(m, c, w), init, r, n, k;
	uint32_t nk = 0, *el, *ops, news, p, t, limit;
	uint8_t *keep;

	init = init_of(m, c, w);
	r = m->comps[b].root;
	if (!wu_is_tuple_op(m, c, init) || !wu_is_tuple_op(m, b, r) ||
	    s->p0[b] == HLO_NONE || s->p0[cd] == HLO_NONE)
		return 0;
	n = ins(m, c, init)->nops;
	if (n != ins(m, b, r)->nops || n != tuple_size(m, ins(m, c, w)->shape))
		return 0;
	keep = xmalloc(n + 1);
	el = xreallocarray(NULL, n + 1, sizeof *el);
	ops = xreallocarray(NULL, n + 1, sizeof *ops);
	for (k = 0; k < n; k++) {
		const HloInstr *a = ins(m, c, opnd(m, c, init, k));
		const HloInstr *x = ins(m, b, opnd(m, b, r, k));

		keep[k] = !(a->op == HOP_CONSTANT && x->op == HOP_CONSTANT &&
			same_literal(m, a, x));
		if (keep[k])
			el[nk++] = hlo_tuple_elems(m, hlo_sh(m,
				ins(m, c, w)->shape))[k];
	}
	if (nk == n || wu_has_ctrl(m, c, w) || (nk == 0 &&
	    (comp_effect(s, b) || comp_effect(s, cd)))) {
		free(keep);
		free(el);
		free(ops);
		return 0;
	}
	if (nk == 0) {
		drop_loop(s, c, w, init);
		goto out;
	}
	news = hlo_shape_tuple(m, nk, el);
	p = s->p0[cd];
	ins(m, cd, p)->shape = news;
	limit = m->comps[cd].nins;
	redirect(m, cd, p, with_constants(m, cd, p, c, init, keep, n), limit);
	p = s->p0[b];
	ins(m, b, p)->shape = news;
	limit = m->comps[b].nins;
	redirect(m, b, p, with_constants(m, b, p, c, init, keep, n), limit);
	for (k = nk = 0; k < n; k++)
		if (keep[k])
			ops[nk++] = wu_gte(m, b, r, k, NULL);
	m->comps[b].root = wu_tuple(m, b, nk, ops, NULL);
	for (k = nk = 0; k < n; k++)
		if (keep[k])
			ops[nk++] = wu_gte(m, c, init, k, NULL);
	t = wu_tuple(m, c, nk, ops, NULL);
	m->ids[ins(m, c, w)->ops] = t;
	ins(m, c, w)->shape = news;
	limit = m->comps[c].nins;
	redirect(m, c, w, with_constants(m, c, w, c, init, keep, n), limit);
	touch(s, c, w);
out:
	free(keep);
	free(el);
	free(ops);
	return 1;
}

/* TryPropagateConstant */
static int
propagate_constant(Ws *s, uint32_t c, uint32_t w)
{
	HloModule *m = s->m;
	uint32_t b = body_of(m, c, w), init = init_of(m, c, w), r, n, k, j;
	uint32_t comps[2], *konst;
	int changed = 0, any = 0;

	r = m->comps[b].root;
	if (!wu_is_tuple_op(m, c, init) || !wu_is_tuple_op(m, b, r))
		return 0;
	n = ins(m, b, r)->nops;
	if (n > ins(m, c, init)->nops)
		return 0;
	konst = xreallocarray(NULL, n + 1, sizeof *konst);
	for (k = 0; k < n; k++) {
		uint32_t o = opnd(m, b, r, k), v = opnd(m, c, init, k);
		const HloShape *sh = hlo_sh(m, ins(m, b, o)->shape);

		konst[k] = HLO_NONE;
		if (param_gte(s, b, o, k) && sh->type != TY_TUPLE &&
		    sh->type != TY_TOKEN && sh->rank == 0 &&
		    ins(m, c, v)->op == HOP_CONSTANT)
			konst[k] = v, any = 1;
	}
	comps[0] = cond_of(m, c, w);
	comps[1] = b;
	for (j = 0; j < 2 && any; j++) {
		uint32_t comp = comps[j], nn = m->comps[comp].nins, i, x;

		if (s->p0[comp] == HLO_NONE)
			continue;
		for (i = 0; i < nn; i++) {
			int64_t idx;

			if ((ins(m, comp, i)->flags & HI_DEAD) ||
			    !param_gte(s, comp, i, -1))
				continue;
			idx = index_of(m, comp, i);
			if (idx < 0 || idx >= n || konst[idx] == HLO_NONE)
				continue;
			x = wu_copy_named(m, comp, c, konst[idx], 0, NULL,
				".clone");
			redirect(m, comp, i, x, m->comps[comp].nins);
			s->touched[comp] = 1;
			changed = 1;
		}
	}
	free(konst);
	return changed;
}

static int
inline_allowed(const HloModule *m, const HloInstr *in)
{
	uint32_t n;
	const char *v = pass_frontend_attr(m, in, "inlineable", &n);

	return !v || (n == 4 && !memcmp(v, "true", 4));
}

/* TryRemoveWhileLoop */
static int
remove_loop(Ws *s, uint32_t c, uint32_t w)
{
	HloModule *m = s->m;
	uint32_t b = body_of(m, c, w), cd = cond_of(m, c, w), init, limit, r;
	int64_t t;
	uint32_t n;
	const char *v;

	if (wu_has_ctrl(m, c, w) || comp_effect(s, cd))
		return 0;
	t = wu_trip_count(m, c, w, 1);
	init = init_of(m, c, w);
	if (t == 0) {
		drop_loop(s, c, w, init);
		return 1;
	}
	v = pass_frontend_attr(m, ins(m, c, w),
		"skip-simplify-while-loops_trip-count-one", &n);
	if (t != 1 || (v && n == 4 && !memcmp(v, "true", 4)) ||
	    !inline_allowed(m, ins(m, c, w)) || comp_effect(s, b))
		return 0;
	count_copies(s, b);
	limit = m->comps[c].nins;
	r = wu_inline(m, c, b, &init, 1, NULL);
	if (r == HLO_NONE)
		return 0;
	redirect(m, c, w, r, limit);
	ins(m, c, w)->flags |= HI_DEAD;
	if (s->ncallers[b])
		s->ncallers[b]--;
	if (s->ncallers[cd])
		s->ncallers[cd]--;
	s->touched[c] = 1;
	return 1;
}

static uint32_t
scalar_const(HloModule *m, uint32_t c, int type, uint64_t v)
{
	unsigned char buf[8];
	int k, esz = hlo_type_bytes(type);
	uint32_t i = wu_add(m, c, HOP_CONSTANT, hlo_shape_scalar(m, type), 0,
		NULL, NULL);
	HloAttr a;

	for (k = 0; k < esz; k++)
		buf[k] = (unsigned char)(v >> (8 * k));
	a = hlo_mk_bytes(m, A_LITERAL, K_LITERAL, buf, esz);
	hlo_set_attrs(m, c, i, 1, &a);
	return i;
}

typedef struct {
	uint32_t n;		/* old state size */
	int64_t trip;		/* index of the trip counter */
	uint32_t *step;		/* per index: step constant in the body, or
				 * HLO_NONE */
	uint32_t b;
	uint32_t oldshape;
} Ind;

/* convert_to_old_form: the old state from x of the new shape */
static uint32_t
old_form(HloModule *m, uint32_t c, uint32_t x, const Ind *iv)
{
	uint32_t *ops = xreallocarray(NULL, iv->n + 1, sizeof *ops), k, t;
	uint32_t o[2], es;

	for (k = 0; k < iv->n; k++) {
		ops[k] = wu_gte(m, c, x, k, NULL);
		if (iv->step[k] == HLO_NONE)
			continue;
		es = hlo_tuple_elems(m, hlo_sh(m, iv->oldshape))[k];
		o[0] = wu_gte(m, c, x, iv->trip, NULL);
		o[1] = pass_copy_instr(m, c, iv->b, iv->step[k], 0, NULL);
		o[1] = wu_add(m, c, HOP_MUL, es, 2, o, NULL);
		o[0] = ops[k];
		ops[k] = wu_add(m, c, HOP_ADD, es, 2, o, NULL);
	}
	t = wu_tuple(m, c, iv->n, ops, NULL);
	free(ops);
	return t;
}

static int
is_all(const HloModule *m, const HloInstr *in, uint64_t v)
{
	int64_t n = wu_elems(m, in->shape), k;
	WuVal x;

	if (in->op != HOP_CONSTANT)
		return 0;
	for (k = 0; k < n; k++)
		if (wu_read(m, in, k, &x) < 0 || x.u != v)
			return 0;
	return 1;
}

/* TryMergeInductionVariables for one element type */
static int
merge_induction(Ws *s, uint32_t c, uint32_t w, int ty)
{
	HloModule *m = s->m;
	uint32_t b = body_of(m, c, w), cd = cond_of(m, c, w), init, r, k;
	uint32_t *el, *ops, news, p, limit, cnt = 0, nt;
	Ind iv;
	int added = 0;

	init = init_of(m, c, w);
	r = m->comps[b].root;
	if (!wu_is_tuple_op(m, c, init) || !wu_is_tuple_op(m, b, r) ||
	    s->p0[b] == HLO_NONE || s->p0[cd] == HLO_NONE)
		return 0;
	iv.n = ins(m, b, r)->nops;
	if (iv.n != ins(m, c, init)->nops ||
	    iv.n != tuple_size(m, ins(m, c, w)->shape))
		return 0;
	iv.trip = -1;
	iv.b = b;
	iv.oldshape = ins(m, c, w)->shape;
	iv.step = xreallocarray(NULL, iv.n + 1, sizeof *iv.step);
	for (k = 0; k < iv.n; k++) {
		uint32_t a = opnd(m, b, r, k), x, y, konst;
		const HloInstr *ai = ins(m, b, a);

		iv.step[k] = HLO_NONE;
		if (ai->op != HOP_ADD || ai->nops != 2 ||
		    hlo_sh(m, ai->shape)->type != ty)
			continue;
		x = opnd(m, b, a, 0);
		y = opnd(m, b, a, 1);
		if (param_gte(s, b, x, k) && ins(m, b, y)->op == HOP_CONSTANT)
			konst = y;
		else if (param_gte(s, b, y, k) &&
		    ins(m, b, x)->op == HOP_CONSTANT)
			konst = x;
		else
			continue;
		if (hlo_sh(m, ins(m, b, konst)->shape)->rank != 0)
			continue;
		if (iv.trip < 0 && is_all(m, ins(m, b, konst), 1) &&
		    is_all(m, ins(m, c, opnd(m, c, init, k)), 0)) {
			iv.trip = k;
		} else {
			iv.step[k] = konst;
			cnt++;
		}
	}
	if (cnt + (iv.trip >= 0) < 2) {
		free(iv.step);
		return 0;
	}
	nt = iv.n;
	el = xreallocarray(NULL, iv.n + 2, sizeof *el);
	ops = xreallocarray(NULL, iv.n + 2, sizeof *ops);
	memcpy(el, hlo_tuple_elems(m, hlo_sh(m, iv.oldshape)),
		iv.n * sizeof *el);
	if (iv.trip < 0) {
		iv.trip = iv.n;
		el[nt++] = hlo_shape_scalar(m, ty);
		added = 1;
	}
	news = hlo_shape_tuple(m, nt, el);
	p = s->p0[cd];
	ins(m, cd, p)->shape = news;
	limit = m->comps[cd].nins;
	redirect(m, cd, p, old_form(m, cd, p, &iv), limit);
	p = s->p0[b];
	ins(m, b, p)->shape = news;
	limit = m->comps[b].nins;
	redirect(m, b, p, old_form(m, b, p, &iv), limit);
	for (k = 0; k < iv.n; k++)
		ops[k] = wu_gte(m, b, iv.step[k] != HLO_NONE ? p : r, k, NULL);
	if (added) {
		uint32_t o[2];

		o[0] = wu_gte(m, b, p, iv.trip, NULL);
		o[1] = scalar_const(m, b, ty, 1);
		ops[iv.n] = wu_add(m, b, HOP_ADD, hlo_shape_scalar(m, ty), 2, o,
			NULL);
	}
	m->comps[b].root = wu_tuple(m, b, nt, ops, NULL);
	if (added) {
		for (k = 0; k < iv.n; k++)
			ops[k] = wu_gte(m, c, init, k, NULL);
		ops[iv.n] = scalar_const(m, c, ty, 0);
		m->ids[ins(m, c, w)->ops] = wu_tuple(m, c, nt, ops, NULL);
	}
	ins(m, c, w)->shape = news;
	limit = m->comps[c].nins;
	redirect(m, c, w, old_form(m, c, w, &iv), limit);
	touch(s, c, w);
	free(iv.step);
	free(el);
	free(ops);
	return 1;
}

/* per computation: whether it (transitively) holds one of ops */
static uint8_t *
holds(const HloModule *m, const int *ops, int nops)
{
	uint8_t *f = xcalloc(m->ncomps + 1, 1);
	uint32_t c, i, k, d;
	int again = 1, j;

	while (again) {
		again = 0;
		for (c = 0; c < m->ncomps; c++) {
			const HloComp *cp = &m->comps[c];

			for (i = 0; i < cp->nins && !f[c]; i++) {
				const HloInstr *in = &cp->ins[i];

				if (in->flags & HI_DEAD)
					continue;
				for (j = 0; j < nops; j++)
					if (in->op == ops[j])
						f[c] = again = 1;
				for (k = 0; k < in->ncalled && !f[c]; k++)
					if ((d = m->ids[in->called + k]) <
					    m->ncomps && f[d])
						f[c] = again = 1;
			}
		}
	}
	return f;
}

static int
simplify(Ws *s, uint32_t c, uint32_t w)
{
	HloModule *m = s->m;
	static const int types[] = {TY_S8, TY_U8, TY_S32, TY_U32, TY_S64,
		TY_U64};
	uint32_t b, cd, k;
	int changed = 0, domain;

	b = body_of(m, c, w);
	cd = cond_of(m, c, w);
	if (s->ncallers[b] > 1 || s->ncallers[cd] > 1 ||
	    wu_while_dce_disabled(m, ins(m, c, w)))
		return 0;
	if (repeated(s, c, w) || flatten(s, c, w) || dead_params(s, c, w) ||
	    constant_params(s, c, w))
		return 1;
	if (s->sendrecv[b] || s->sendrecv[cd])
		return 0;
	domain = s->domain[b] || s->domain[cd];
	changed = propagate_constant(s, c, w);
	if (remove_loop(s, c, w))
		return 1;
	if (domain)
		return changed;
	for (k = 0; k < sizeof types / sizeof *types; k++)
		changed |= merge_induction(s, c, w, types[k]);
	return changed;
}

int
pass_while_simplifier(HloModule *m, PassCtx *ctx)
{
	static const int sr[] = {HOP_SEND, HOP_SENDDONE, HOP_RECV,
		HOP_RECVDONE};
	static const int dom[] = {HOP_DOMAIN};
	Ws s;
	PassCallers cg;
	uint32_t c, i, k, nw, *wl;
	int changed = 0, r;

	memset(&s, 0, sizeof s);
	s.m = m;
	s.ctx = ctx;
	s.fx = xmalloc(m->ncomps + 1);
	memcpy(s.fx, pass_comp_effects(m, ctx), m->ncomps);
	s.sendrecv = holds(m, sr, 4);
	s.domain = holds(m, dom, 1);
	s.ncallers = xcalloc(m->ncomps + 1, sizeof *s.ncallers);
	s.touched = xcalloc(m->ncomps + 1, 1);
	s.p0 = xreallocarray(NULL, m->ncomps + 1, sizeof *s.p0);
	pass_callers(m, &cg, ctx);
	for (c = 0; c < m->ncomps; c++) {
		s.ncallers[c] = cg.start[c + 1] - cg.start[c];
		s.p0[c] = wu_param0(m, c);
	}
	pass_reset(ctx);
	nw = wu_while_loops(m, NULL, m->ncomps, 0, wu_while_regular,
	    &wl);
	for (k = 0; k < nw; k++) {
		c = wl[2 * k];
		i = wl[2 * k + 1];
		if (m->comps[c].ins[i].flags & HI_DEAD)
			continue;
		r = simplify(&s, c, i);
		ctx->stats.rewrites += r;
		changed |= r;
		pass_reset(ctx);
	}
	changed = pass_compact_touched(m, ctx, s.touched, changed);
	if (changed > 0 && pass_dce_module(m, ctx) < 0)
		changed = -1;
	free(wl);
	free(s.fx);
	free(s.sendrecv);
	free(s.domain);
	free(s.ncallers);
	free(s.touched);
	free(s.p0);
	return changed;
}
