/* fusion_edit.c: editing one computation for the fusion passes written
 * after fusion.c (fusion_edit.h): user lists kept up to date, new fused
 * computations, and gpu_fusible.cc's and multi_output_fusion.cc's
 * questions about fusions. */
#include <stdlib.h>
#include <string.h>

#include "fusion_edit.h"

enum { FU_LIST_SCAN = 16 };	/* longer user lists are indexed */

static uint32_t
pos_hash(uint64_t key, uint32_t cap)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

/* the position slot of key, made (UINT32_MAX) if absent */
static uint32_t *
pos_slot(FuEdit *e, uint64_t key)
{
	uint32_t j, i, cap, *val, *st;
	uint64_t *k;

	if ((e->npos + 1) * 2 > e->cappos) {
		cap = e->cappos ? 2 * e->cappos : 256;
		k = xreallocarray(NULL, cap, sizeof *k);
		val = xreallocarray(NULL, cap, sizeof *val);
		st = xcalloc(cap, sizeof *st);
		for (i = 0; i < e->cappos; i++) {
			if (e->posstamp_of[i] != e->posstamp)
				continue;
			for (j = pos_hash(e->poskey[i], cap); st[j];
			    j = (j + 1) & (cap - 1))
				;
			st[j] = 1;
			k[j] = e->poskey[i];
			val[j] = e->posval[i];
		}
		free(e->poskey);
		free(e->posval);
		free(e->posstamp_of);
		e->poskey = k;
		e->posval = val;
		e->posstamp_of = st;
		e->posstamp = 1;
		e->cappos = cap;
	}
	for (j = pos_hash(key, e->cappos); e->posstamp_of[j] == e->posstamp;
	    j = (j + 1) & (e->cappos - 1))
		if (e->poskey[j] == key)
			return &e->posval[j];
	e->posstamp_of[j] = e->posstamp;
	e->poskey[j] = key;
	e->posval[j] = UINT32_MAX;
	e->npos++;
	return &e->posval[j];
}

static uint32_t
pos_find(const FuEdit *e, uint64_t key)
{
	uint32_t j;

	if (!e->cappos)
		return UINT32_MAX;
	for (j = pos_hash(key, e->cappos); e->posstamp_of[j] == e->posstamp;
	    j = (j + 1) & (e->cappos - 1))
		if (e->poskey[j] == key)
			return e->posval[j];
	return UINT32_MAX;
}

#define POSKEY(o, x) ((uint64_t)(o) << 32 | (x))

/* where x is in o's user list, UINT32_MAX if absent */
static uint32_t
list_find(const FuEdit *e, uint32_t o, uint32_t x)
{
	const FuList *l = &e->usr[o];
	uint32_t k;

	if (l->indexed) {
		k = pos_find(e, POSKEY(o, x));
		return k < l->n && l->v[k] == x ? k : UINT32_MAX;
	}
	for (k = 0; k < l->n; k++)
		if (l->v[k] == x)
			return k;
	return UINT32_MAX;
}

/* x appended to o's user list, which does not hold it */
static void
list_add_new(FuEdit *e, uint32_t o, uint32_t x)
{
	FuList *l = &e->usr[o];
	uint32_t k;

	if (o >= e->hi)
		e->hi = o + 1;
	if (l->n == l->cap) {
		uint32_t *v = l->inarena ? NULL : l->v;

		l->cap = l->cap ? 2 * l->cap : 4;
		v = xreallocarray(v, l->cap, sizeof *v);
		if (l->inarena)	/* moves out of the arena */
			memcpy(v, l->v, l->n * sizeof *v);
		l->v = v;
		l->inarena = 0;
	}
	l->v[l->n++] = x;
	if (l->indexed) {
		*pos_slot(e, POSKEY(o, x)) = l->n - 1;
	} else if (l->n > FU_LIST_SCAN) {
		for (k = 0; k < l->n; k++)
			*pos_slot(e, POSKEY(o, l->v[k])) = k;
		l = &e->usr[o];
		l->indexed = 1;
	}
}

static void
list_add(FuEdit *e, uint32_t o, uint32_t x)
{
	if (list_find(e, o, x) == UINT32_MAX)
		list_add_new(e, o, x);
}

/* list_add of x to o's list where x can only be its last element (it
 * joins lists in turn and was in none of them before) */
static void
list_push(FuEdit *e, uint32_t o, uint32_t x)
{
	FuList *l = &e->usr[o];

	if (!l->n || l->v[l->n - 1] != x)
		list_add_new(e, o, x);
}

/* x out of o's user list, the last user taking its place */
static void
list_del(FuEdit *e, uint32_t o, uint32_t x)
{
	FuList *l = &e->usr[o];
	uint32_t k = list_find(e, o, x);

	if (k == UINT32_MAX)
		return;
	l->v[k] = l->v[--l->n];
	if (l->indexed && k < l->n)
		*pos_slot(e, POSKEY(o, l->v[k])) = k;
}

static void
grow(FuEdit *e, uint32_t need)
{
	uint32_t cap;

	if (need <= e->cap)
		return;
	cap = need * 2 + 16;
	e->usr = xreallocarray(e->usr, cap, sizeof *e->usr);
	e->ctl = xreallocarray(e->ctl, cap, 1);
	e->mark = xreallocarray(e->mark, cap, sizeof *e->mark);
	memset(e->usr + e->cap, 0, (cap - e->cap) * sizeof *e->usr);
	memset(e->ctl + e->cap, 0, cap - e->cap);
	memset(e->mark + e->cap, 0, (cap - e->cap) * sizeof *e->mark);
	e->cap = cap;
}

static void
grow_drop(FuEdit *e)
{
	uint32_t cap;

	if (e->m->ncomps < e->capdrop)
		return;
	cap = e->m->ncomps * 2 + 16;
	e->drop = xreallocarray(e->drop, cap, 1);
	memset(e->drop + e->capdrop, 0, cap - e->capdrop);
	e->ncalls = xreallocarray(e->ncalls, cap, sizeof *e->ncalls);
	memset(e->ncalls + e->capdrop, 0, (cap - e->capdrop) *
		sizeof *e->ncalls);
	e->capdrop = cap;
}

void
fu_edit_init(FuEdit *e, HloModule *m, PassCtx *ctx)
{
	memset(e, 0, sizeof *e);
	e->m = m;
	e->ctx = ctx;
	e->first_new = m->ncomps;
	e->nfx = m->ncomps;
	e->fx = xcalloc(m->ncomps + 1, 1);
	memcpy(e->fx, pass_comp_effects(m, ctx), m->ncomps);
	pass_fresh_names(m);
	grow_drop(e);
	pass_count_calls(m, e->ncalls);
}

uint32_t *
fu_edit_comps(FuEdit *e, uint32_t *n)
{
	const HloModule *m = e->m;
	uint8_t *ok = xcalloc(m->ncomps + 1, 1);
	uint32_t c, i, k, d, *order = xreallocarray(NULL, m->ncomps + 1,
		sizeof *order), cnt = 0, t;
	int nc;

	for (c = 0; c < m->ncomps; c++)
		ok[c] = !(m->comps[c].flags & HC_FUSION);
	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++) {
			const HloInstr *in = &m->comps[c].ins[i];

			if ((in->flags & HI_DEAD) || in->op == HOP_WHILE ||
			    in->op == HOP_CONDITIONAL)
				continue;
			for (k = 0; k < in->ncalled; k++)
				if ((d = hlo_called(m, in)[k]) < m->ncomps)
					ok[d] = 0;
		}
	nc = hlo_comp_order_all(m, order);
	if (nc < 0) {
		for (c = 0; c < m->ncomps; c++)
			order[c] = c;
		nc = m->ncomps;
	}
	for (t = 0; t < (uint32_t)nc; t++)
		if (ok[order[t]] && m->comps[order[t]].nins)
			order[cnt++] = order[t];
	free(ok);
	*n = cnt;
	return order;
}

/* the user lists of c's instructions made room for in one block (not an
 * allocation per list): each list without room for its operand uses
 * takes a slice of e->arena (lists that outgrow it move out) */
static void
user_arena(FuEdit *e, uint32_t c)
{
	const HloModule *m = e->m;
	uint32_t n = m->comps[c].nins, i, k, tot = 0, o;

	for (i = 0; i < n; i++) {	/* n counts the uses for now */
		const HloInstr *in = &m->comps[c].ins[i];

		if (in->flags & HI_DEAD)
			continue;
		for (k = 0; k < in->nops; k++)
			if ((o = hlo_ops(m, in)[k]) < n)
				e->usr[o].n++;
	}
	for (i = 0; i < n; i++)
		if (e->usr[i].n > e->usr[i].cap)
			tot += e->usr[i].n;
	if (tot)
		e->arena = xreallocarray(NULL, tot, sizeof *e->arena);
	for (i = tot = 0; i < n; i++) {
		FuList *l = &e->usr[i];

		if (l->n > l->cap) {
			free(l->v);
			l->v = e->arena + tot;
			l->cap = l->n;
			l->inarena = 1;
			tot += l->n;
		}
		l->n = 0;
	}
}

void
fu_edit_begin(FuEdit *e, uint32_t c)
{
	HloModule *m = e->m;
	uint32_t i, k, n = m->comps[c].nins;

	e->c = c;
	e->touched = 0;
	grow(e, n + 1);
	for (i = 0; i < e->hi && i < e->cap; i++) {	/* the last
				 * computation's entries (past hi all clear) */
		if (e->usr[i].inarena) {
			e->usr[i].v = NULL;
			e->usr[i].cap = e->usr[i].inarena = 0;
		}
		e->usr[i].n = 0;
		e->usr[i].indexed = 0;
		e->ctl[i] = 0;
	}
	e->hi = n + 1;
	free(e->arena);
	e->arena = NULL;
	user_arena(e, c);
	if (++e->posstamp == 0) {	/* the position table forgotten */
		memset(e->posstamp_of, 0, e->cappos * sizeof *e->posstamp_of);
		e->posstamp = 1;
	}
	e->npos = 0;
	for (i = 0; i < n; i++) {
		const HloInstr *in = &m->comps[c].ins[i];

		if (in->flags & HI_DEAD)
			continue;
		if (in->nctrl)
			e->ctl[i] = 1;
		for (k = 0; k < in->nctrl; k++)
			e->ctl[hlo_ctrl(m, in)[k]] = 1;
		for (k = 0; k < in->nops; k++)	/* the lists start empty */
			list_push(e, hlo_ops(m, in)[k], i);
	}
}

int
fu_edit_end(FuEdit *e)
{
	if (e->touched && hlo_comp_compact(e->m, e->c) < 0)
		return pass_err_cycle(e->ctx, e->m, e->c);
	return 0;
}

int
fu_edit_finish(FuEdit *e, int changed)
{
	HloModule *m = e->m;
	uint32_t n = m->ncomps, c, k, *newid, *caller, nd = 0, first;

	if (changed > 0) {
		grow_drop(e);
		newid = xreallocarray(NULL, n + 1, sizeof *newid);
		for (c = 0; c < n; c++) {
			newid[c] = c - nd;
			nd += e->drop[c] != 0;
		}
		first = e->first_new < n ? newid[e->first_new] : n - nd;
		caller = xreallocarray(NULL, n + 1, sizeof *caller);
		for (c = e->first_new, k = 0; c < n; c++)
			if (!e->drop[c])
				caller[k++] = newid[e->newcaller[c -
					e->first_new]];
		pass_drop_comps(m, e->drop);
		for (c = first; c < m->ncomps; c++)
			if (m->comps[c].nins && hlo_comp_compact(m, c) < 0) {
				free(newid);
				free(caller);
				fu_edit_free(e);
				return pass_err_cycle(e->ctx, m, c);
			}
		if (k)
			fu_place_comps(m, first, caller);
		free(newid);
		free(caller);
	}
	e->ctx->stats.rewrites += e->done;
	fu_edit_free(e);
	return changed;
}

void
fu_edit_free(FuEdit *e)
{
	uint32_t i;

	for (i = 0; i < e->cap; i++)
		if (!e->usr[i].inarena)
			free(e->usr[i].v);
	free(e->arena);
	free(e->usr);
	free(e->ctl);
	free(e->mark);
	free(e->drop);
	free(e->ncalls);
	free(e->newcaller);
	free(e->fx);
	free(e->poskey);
	free(e->posval);
	free(e->posstamp_of);
	memset(e, 0, sizeof *e);
}

uint32_t
fu_edit_name(HloModule *m, const char *base)
{
	uint32_t id = hlo_str_new(m, base, strlen(base));

	return id != HLO_NONE ? id : hlo_fresh_name(m, base);
}

uint32_t
fu_edit_add(FuEdit *e, int op, uint32_t shape, const char *name,
	uint32_t nops, const uint32_t *ops)
{
	HloModule *m = e->m;
	uint32_t x = hlo_instr_add(m, e->c, op, shape, fu_edit_name(m, name),
		nops, ops), k;

	grow(e, x + 1);
	if (e->hi < x + 1)
		e->hi = x + 1;
	e->usr[x].n = 0;
	e->usr[x].indexed = 0;
	e->ctl[x] = 0;
	for (k = 0; k < nops; k++)	/* x is new: in no list yet */
		list_push(e, ops[k], x);
	e->touched = 1;
	return x;
}

uint32_t
fu_edit_gte(FuEdit *e, uint32_t x, uint32_t shape, int64_t k)
{
	uint32_t g = fu_edit_add(e, HOP_GTE, shape, "get-tuple-element", 1, &x);
	HloAttr a = hlo_mk_int(A_INDEX, k);

	hlo_attr_set(e->m, e->c, g, &a);
	return g;
}

void
fu_edit_replace(FuEdit *e, uint32_t old, uint32_t new)
{
	HloModule *m = e->m;
	FuList *l = &e->usr[old], *nl = &e->usr[new];
	uint32_t k, j, u;

	if (++e->epoch == 0) {
		memset(e->mark, 0, e->cap * sizeof *e->mark);
		e->epoch = 1;
	}
	for (k = 0; k < nl->n; k++)
		e->mark[nl->v[k]] = e->epoch;
	for (k = 0; k < l->n; k++) {
		HloInstr *in = &m->comps[e->c].ins[u = l->v[k]];

		if (u == new)
			continue;
		for (j = 0; j < in->nops; j++)
			if (m->ids[in->ops + j] == old)
				m->ids[in->ops + j] = new;
		if (e->mark[u] != e->epoch) {	/* list_add, in O(1) */
			e->mark[u] = e->epoch;
			list_add_new(e, new, u);
			l = &e->usr[old];
		}
	}
	for (k = j = 0; k < l->n; k++)
		if (l->v[k] == new)
			l->v[j++] = new;
	l->n = j;
	if (j && l->indexed)
		*pos_slot(e, POSKEY(old, new)) = 0;
	if (m->comps[e->c].root == old)
		m->comps[e->c].root = new;
	e->touched = 1;
}

void
fu_edit_kill(FuEdit *e, uint32_t x)
{
	HloModule *m = e->m;
	HloInstr *in = &m->comps[e->c].ins[x];
	uint32_t k;

	for (k = 0; k < in->nops; k++)
		list_del(e, m->ids[in->ops + k], x);
	in->flags |= HI_DEAD;
	e->usr[x].n = 0;
	e->touched = 1;
}

void
fu_edit_set_ops(FuEdit *e, uint32_t x, uint32_t n, const uint32_t *ops)
{
	HloModule *m = e->m;
	const HloInstr *in = &m->comps[e->c].ins[x];
	uint32_t k;

	for (k = 0; k < in->nops; k++)
		list_del(e, m->ids[in->ops + k], x);
	hlo_set_operands(m, e->c, x, n, ops);
	for (k = 0; k < n; k++)
		list_add(e, ops[k], x);
	e->touched = 1;
}

uint32_t
fu_edit_new_comp(FuEdit *e, const char *name)
{
	HloModule *m = e->m;
	uint32_t fc = hlo_comp_add(m, fu_edit_name(m, name));

	m->comps[fc].flags = HC_FUSION;
	m->comps[fc].thread = m->comps[e->c].thread;
	if (e->nnew == e->capnew) {
		e->capnew = e->capnew ? 2 * e->capnew : 16;
		e->newcaller = xreallocarray(e->newcaller, e->capnew,
			sizeof *e->newcaller);
	}
	e->newcaller[e->nnew++] = e->c;
	grow_drop(e);
	e->ncalls[fc] = 1;
	return fc;
}

uint32_t
fu_edit_fusion(FuEdit *e, uint32_t comp, int kind, uint32_t nops,
	const uint32_t *ops)
{
	HloModule *m = e->m;
	uint32_t f = fu_edit_add(e, HOP_FUSION, m->comps[comp].ins[m->comps[
		comp].root].shape, "fusion", nops, ops);
	HloAttr a = hlo_mk_bytes(m, A_FUSION_KIND, K_WORD, fu_kind_names[kind],
		strlen(fu_kind_names[kind]));

	hlo_attr_set(m, e->c, f, &a);
	hlo_set_called(m, e->c, f, 1, &comp);
	return f;
}

void
fu_edit_unfuse(FuEdit *e, uint32_t x)
{
	uint32_t fc = fu_fused_comp(e->m, e->c, x);

	if (fc < e->m->ncomps && e->ncalls[fc] > 0 && --e->ncalls[fc] == 0)
		e->drop[fc] = 1;
}

int
fu_edit_has_user(const FuEdit *e, uint32_t x, uint32_t u)
{
	return list_find(e, x, u) != UINT32_MAX;
}

/* gpu_fusible.cc */

int
fu_is_fusion(const HloModule *m, uint32_t c, uint32_t x, int kind)
{
	const HloInstr *in = hlo_ins(m, c, x);
	uint32_t fc;

	if (in->op != HOP_FUSION || in->ncalled != 1)
		return 0;
	fc = hlo_called(m, in)[0];
	if (fc >= m->ncomps || m->comps[fc].root == HLO_NONE ||
	    hlo_param_count(m, fc) != (int)in->nops)
		return 0;
	return kind < 0 || fu_kind(m, in) == kind;
}

uint32_t
fu_fused_comp(const HloModule *m, uint32_t c, uint32_t x)
{
	return hlo_called(m, hlo_ins(m, c, x))[0];
}

uint32_t
fu_outputs(const HloModule *m, uint32_t c, uint32_t x, uint32_t *comp,
	const uint32_t **outs, uint32_t *one)
{
	uint32_t fc, r;

	if (hlo_ins(m, c, x)->op != HOP_FUSION) {
		*comp = c;
		*one = x;
		*outs = one;
		return 1;
	}
	fc = fu_fused_comp(m, c, x);
	r = m->comps[fc].root;
	*comp = fc;
	if (m->comps[fc].ins[r].op == HOP_TUPLE) {
		*outs = hlo_ops(m, &m->comps[fc].ins[r]);
		return m->comps[fc].ins[r].nops;
	}
	*one = r;
	*outs = one;
	return 1;
}

int
fu_multi_output(const HloModule *m, uint32_t c, uint32_t x)
{
	uint32_t fc;

	if (hlo_ins(m, c, x)->op != HOP_FUSION)
		return 0;
	fc = fu_fused_comp(m, c, x);
	return m->comps[fc].ins[m->comps[fc].root].op == HOP_TUPLE;
}

uint32_t
fu_instr_count(const HloModule *m, uint32_t c, uint32_t x)
{
	uint32_t fc, i, n = 0;

	if (hlo_ins(m, c, x)->op != HOP_FUSION)
		return 1;
	fc = fu_fused_comp(m, c, x);
	for (i = 0; i < m->comps[fc].nins; i++)
		n += !(m->comps[fc].ins[i].flags & HI_DEAD);
	return n;
}

int
fu_edit_run(FuEdit *e, int (*comp)(void *arg, uint32_t c), void *arg)
{
	uint32_t *comps, n, t;
	int changed = 0, r = 0;

	comps = fu_edit_comps(e, &n);
	for (t = 0; t < n && r >= 0; t++) {
		r = comp(arg, comps[t]);
		changed |= r > 0;
	}
	free(comps);
	if (r < 0) {
		fu_edit_free(e);
		return -1;
	}
	return fu_edit_finish(e, changed);
}

/* the operand's dimensions in physical order, major first */
static void
phys_order(const HloModule *m, uint32_t s, int64_t *ord)
{
	const HloShape *sh = hlo_sh(m, s);
	uint32_t d;

	for (d = 0; d < sh->rank; d++)
		ord[d] = sh->flags & SH_LAYOUT ? hlo_m2m(m, sh)[sh->rank - 1 -
			d] : (int64_t)d;
}

/* xla's IsReductionFromOrToContiguousDimensions (with
 * IsUnnestedReductionFasterThanElemental) on instruction x of comp c;
 * *row: a row reduction */
int
fu_contiguous_reduce(const HloModule *m, uint32_t c, uint32_t x, int *row)
{
	const HloInstr *in = hlo_ins(m, c, x);
	const HloShape *sh;
	const int64_t *dv;
	int64_t ord[64], red[64], n = 0, first = -1, last = -1, minor = 1,
		major = 1, sz;
	uint32_t nd, d, k, op;
	int kept_run = 1, red_run = 1, seen_k = 0, seen_r = 0, ended_k = 0,
		ended_r = 0;

	if (in->op != HOP_REDUCE || in->nops < 2)
		return 0;
	op = hlo_ops(m, in)[0];
	sh = hlo_sh(m, hlo_ins(m, c, op)->shape);
	if (sh->type >= TY_TUPLE || sh->rank > 64)
		return 0;
	dv = hlo_attr_list(m, in, A_DIMENSIONS, &nd);
	phys_order(m, hlo_ins(m, c, op)->shape, ord);
	for (d = 0; d < sh->rank; d++) {	/* degenerate dims dropped */
		sz = hlo_dims(m, sh)[ord[d]];
		if (sz == 1)
			continue;
		red[n] = hlo_ints_has(dv, nd, ord[d]);
		ord[n++] = sz;
	}
	for (k = 0; k < n; k++) {
		if (red[k]) {
			if (ended_r)
				red_run = 0;
			seen_r = 1;
			if (first < 0)
				first = k;
			last = k;
			if (seen_k)
				ended_k = 1;
		} else {
			if (ended_k)
				kept_run = 0;
			seen_k = 1;
			if (seen_r)
				ended_r = 1;
		}
	}
	if (!kept_run && !red_run)
		return 0;
	if (first < 0) {	/* nothing really reduced */
		*row = 1;
		return 1;
	}
	*row = last == n - 1;
	if (*row) {
		for (k = last + 1; k-- > 0 && red[k];)
			minor *= ord[k];
		/* an empty reduced dim: xla would divide by zero here (its
		 * simplifier removes such reduces first); not contiguous */
		return minor >= FU_WARP || (minor > 0 && FU_WARP % minor == 0);
	}
	for (k = first; k <= (uint32_t)last; k++)
		major *= ord[k];
	for (k = last + 1; k < n; k++)
		minor *= ord[k];
	return !(major < FU_WARP || (major < 2 * FU_WARP && minor < FU_WARP) ||
		(major < 4 * FU_WARP && minor < 8) || (major < 8 * FU_WARP &&
		minor < 3));
}

uint32_t
fu_param_slice(const HloModule *m, uint32_t fc, uint32_t prm)
{
	uint32_t i, k, user = HLO_NONE;

	for (i = 0; i < m->comps[fc].nins; i++) {
		const HloInstr *in = &m->comps[fc].ins[i];

		if (in->flags & HI_DEAD)
			continue;
		for (k = 0; k < in->nops && hlo_ops(m, in)[k] != prm; k++)
			;
		if (k == in->nops)
			continue;
		if (user != HLO_NONE)
			return HLO_NONE;
		user = i;
	}
	if (user == HLO_NONE || m->comps[fc].ins[user].op != HOP_SLICE)
		return HLO_NONE;
	return user;
}

int
fu_slices_overlap(const HloModule *m, uint32_t ca, uint32_t a, uint32_t cb,
	uint32_t b)
{
	uint32_t n0, n1, d;
	const int64_t *t0 = hlo_attr_list(m, &m->comps[ca].ins[a], A_SLICE,
		&n0), *t1 = hlo_attr_list(m, &m->comps[cb].ins[b], A_SLICE,
		&n1);

	if (!t0 || !t1 || n0 != n1)
		return 1;
	for (d = 0; d + 2 < n0; d += 3)	/* start, limit, stride */
		if (!(t0[d] < t1[d + 1] && t1[d] < t0[d + 1]))
			return 0;
	return 1;
}
