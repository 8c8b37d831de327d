/* fusion_order.c: the state multi_output_fusion (fusion.c) keeps up to
 * date across its sibling merges (fusion_order.h), so that each merge
 * costs what it changes, not a pass over the whole computation.
 *
 * multi_output_fusion merges one pair per round; a round sets the
 * computation up (users, post order) and ends with a compaction:
 * quadratic in the merges. A round finds the first instruction of the
 * post order that has a pair (the seen ones have none); the post order
 * of the next round is that of the merged graph, and the instruction
 * order (users are listed in it, the post order starts from the unused
 * ones in it) that of its compaction. Kept up to date here instead:
 * - the instruction order (a list with labels): compacting the merged
 *   graph keeps every instruction in place but the new ones (the fusion
 *   fi and get-tuple-elements g0, g1 for a, b) and what fi reads that
 *   came after the first reader u of g0 or g1: those (in hlo_topo's
 *   depth-first order), fi and the get-tuple-element u reads first come
 *   right before u (and the other one too if u reads it, else before its
 *   own first reader, else at the end);
 * - the post order, a depth-first search taken one instruction at a
 *   time: the merged graph's search is the same up to the point it
 *   entered a or b; if it had (a or b on its stack), it is rewound to
 *   there and goes on through g0 or g1 into fi, else it goes on as it
 *   was and the producer is tried again at once, as the next round would
 *   (the instructions before it are seen);
 * - the users, with the dead ones left in the lists and skipped.
 * Valid when the computation's instructions come in topological order
 * (true after any compaction); fusion.c runs its rounds otherwise. */
#include <stdlib.h>
#include <string.h>

#include "fusion_order.h"

enum { MOF_GAP = 1u << 20 };


static void
ov_push(FuOrdVec *q, uint32_t x)
{
	if (q->n == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 4;
		q->v = xreallocarray(q->v, q->cap, sizeof *q->v);
	}
	q->v[q->n++] = x;
}

static void
ord_room(FuOrd *M, uint32_t need)
{
	uint32_t cap = need * 2 + 16, o = M->cap;

	if (need <= M->cap)
		return;
	M->usr = xreallocarray(M->usr, cap, sizeof *M->usr);
	memset(M->usr + o, 0, (cap - o) * sizeof *M->usr);
	M->lab = xreallocarray(M->lab, cap, sizeof *M->lab);
	M->prv = xreallocarray(M->prv, cap, sizeof *M->prv);
	M->nxt = xreallocarray(M->nxt, cap, sizeof *M->nxt);
	M->fpos = xreallocarray(M->fpos, cap, sizeof *M->fpos);
	M->stk = xreallocarray(M->stk, cap, sizeof *M->stk);
	M->state = xreallocarray(M->state, cap, 1);
	M->over = xreallocarray(M->over, cap, 1);
	M->mark = xreallocarray(M->mark, cap, sizeof *M->mark);
	M->markb = xreallocarray(M->markb, cap, sizeof *M->markb);
	memset(M->state + o, 0, cap - o);
	memset(M->over + o, 0, cap - o);
	memset(M->mark + o, 0, (cap - o) * sizeof *M->mark);
	memset(M->markb + o, 0, (cap - o) * sizeof *M->markb);
	M->cap = cap;
}

void
fu_ord_free(FuOrd *M)
{
	uint32_t i;

	for (i = 0; i < M->cap; i++)
		free(M->usr[i].v);
	free(M->usr);
	free(M->lab);
	free(M->prv);
	free(M->nxt);
	free(M->fpos);
	free(M->stk);
	free(M->state);
	free(M->over);
	free(M->mark);
	free(M->markb);
	free(M->sinks.v);
	free(M->out.v);
	free(M->st);
	free(M->cst);
	free(M->use);
}

/* the instructions come in topological order (and no operand is dead) */
int
fu_ord_sorted(const HloModule *m, uint32_t c)
{
	const HloComp *cp = &m->comps[c];
	uint32_t i, k, d;

	for (i = 0; i < cp->nins; i++) {
		const HloInstr *in = &cp->ins[i];

		if (in->flags & HI_DEAD)
			continue;
		for (k = 0; k < in->nops + in->nctrl; k++) {
			d = k < in->nops ? m->ids[in->ops + k] :
				m->ids[in->ctrl + k - in->nops];
			if (d < cp->nins && (d >= i || (cp->ins[d].flags &
			    HI_DEAD)))
				return 0;
		}
	}
	return 1;
}

void
fu_ord_init(FuOrd *M, HloModule *m, uint32_t c, uint8_t *const *dead)
{
	const HloComp *cp = &m->comps[c];
	uint32_t n = cp->nins, i, k, d, last = HLO_NONE;
	uint8_t *used = xcalloc(n + 1, 1);

	memset(M, 0, sizeof *M);
	M->m = m;
	M->c = c;
	M->dead = dead;
	ord_room(M, n + 1);
	M->capcst = 64;
	M->cst = xreallocarray(NULL, M->capcst, sizeof *M->cst);
	for (i = 0; i < n; i++) {
		const HloInstr *in = &cp->ins[i];

		if (in->flags & HI_DEAD)
			continue;
		for (k = 0; k < in->nops; k++)
			if ((d = m->ids[in->ops + k]) < n) {
				ov_push(&M->usr[d], i);
				used[d] = 1;
			}
		for (k = 0; k < in->nctrl; k++)
			if ((d = m->ids[in->ctrl + k]) < n)
				used[d] = 1;
		M->prv[i] = last;
		M->nxt[i] = HLO_NONE;
		M->lab[i] = (uint64_t)(i + 1) * MOF_GAP;
		if (last == HLO_NONE)
			M->head = i;
		else
			M->nxt[last] = i;
		last = i;
	}
	M->tail = last;
	if (last == HLO_NONE)
		M->head = HLO_NONE;
	for (i = 0; i < n; i++)
		if (!used[i] && !(cp->ins[i].flags & HI_DEAD))
			ov_push(&M->sinks, i);
	free(used);
}

/* L: the instruction order */

static void
l_unlink(FuOrd *M, uint32_t x)
{
	if (M->prv[x] != HLO_NONE)
		M->nxt[M->prv[x]] = M->nxt[x];
	else
		M->head = M->nxt[x];
	if (M->nxt[x] != HLO_NONE)
		M->prv[M->nxt[x]] = M->prv[x];
	else
		M->tail = M->prv[x];
}

static void
l_relabel(FuOrd *M)
{
	uint64_t l = 0;
	uint32_t x;

	for (x = M->head; x != HLO_NONE; x = M->nxt[x])
		M->lab[x] = l += MOF_GAP;
}

/* x (not in L) before z, or at the end if z is HLO_NONE */
static void
l_before(FuOrd *M, uint32_t x, uint32_t z)
{
	uint32_t p = z == HLO_NONE ? M->tail : M->prv[z];
	uint64_t lo = p == HLO_NONE ? 0 : M->lab[p];

	if (z != HLO_NONE && M->lab[z] - lo < 2) {
		l_relabel(M);
		lo = p == HLO_NONE ? 0 : M->lab[p];
	}
	M->lab[x] = z == HLO_NONE ? lo + MOF_GAP : lo + (M->lab[z] - lo) / 2;
	M->prv[x] = p;
	M->nxt[x] = z;
	if (p == HLO_NONE)
		M->head = x;
	else
		M->nxt[p] = x;
	if (z == HLO_NONE)
		M->tail = x;
	else
		M->prv[z] = x;
}

/* the search (pass_post_order's, one instruction at a time) */

static void
ord_push(FuOrd *M, uint32_t x, uint32_t k)
{
	if (M->nst == M->capst) {
		M->capst = M->capst ? 2 * M->capst : 64;
		M->st = xreallocarray(M->st, M->capst, sizeof *M->st);
	}
	M->st[M->nst].x = x;
	M->st[M->nst].k = k;
	M->st[M->nst].out = M->out.n;
	M->fpos[x] = M->nst++;
	M->state[x] = 1;
}

/* the next instruction of the post order, HLO_NONE at its end */
uint32_t
fu_ord_next(FuOrd *M)
{
	const HloModule *m = M->m;
	const HloComp *cp = &m->comps[M->c];
	const HloInstr *in;
	FuOrdFrame *fr;
	uint32_t x, d, k;

	for (;;) {
		if (!M->nst) {
			while (M->cur < M->sinks.n && ((*M->dead)[x =
			    M->sinks.v[M->cur]] || M->state[x]))
				M->cur++;
			if (M->cur == M->sinks.n)
				return HLO_NONE;
			M->out.n = 0;	/* no rewind reaches before */
			ord_push(M, M->sinks.v[M->cur++], 0);
			continue;
		}
		fr = &M->st[M->nst - 1];
		in = &cp->ins[x = fr->x];
		if (fr->k < in->nctrl + in->nops) {
			k = fr->k++;
			d = k < in->nctrl ? m->ids[in->ctrl + in->nctrl - 1 -
				k] : m->ids[in->ops + k - in->nctrl];
			if (d < cp->nins && !M->state[d])
				ord_push(M, d, 0);
			continue;
		}
		M->nst--;
		M->state[x] = 2;
		ov_push(&M->out, x);
		return x;
	}
}

/* the descendants of p, at most 4096 (descendants above, on M's users) */
int
fu_ord_desc(FuOrd *M, uint32_t *mark, uint32_t stamp, uint32_t p)
{
	uint32_t n = 0, seen = 0, x, k, y;

	if (M->over[p])
		return 0;
	mark[p] = stamp;
	M->stk[n++] = p;
	while (n > 0) {
		x = M->stk[--n];
		for (k = 0; k < M->usr[x].n; k++) {
			y = M->usr[x].v[k];
			if ((*M->dead)[y] || mark[y] == stamp)
				continue;
			if (++seen > 4096 || M->over[y])
				return M->over[p] = 1, 0;
			mark[y] = stamp;
			M->stk[n++] = y;
		}
	}
	return 1;
}

typedef struct {
	uint64_t lab;
	uint32_t x;
} MofUse;

static int
cmp_use(const void *a, const void *b)
{
	const MofUse *x = a, *y = b;

	return x->lab < y->lab ? -1 : x->lab > y->lab;
}

/* the first of x's live users in L, HLO_NONE if none */
static uint32_t
first_user(FuOrd *M, uint32_t x)
{
	uint32_t k, u, best = HLO_NONE;

	for (k = 0; k < M->usr[x].n; k++) {
		u = M->usr[x].v[k];
		if (!(*M->dead)[u] && (best == HLO_NONE || M->lab[u] <
		    M->lab[best]))
			best = u;
	}
	return best;
}

/* fi and what it reads from after u on, in the depth-first order of
 * hlo_topo (operands, then control predecessors), moved before u */
static void
closure(FuOrd *M, uint32_t fi, uint32_t u)
{
	const HloModule *m = M->m;
	const HloComp *cp = &m->comps[M->c];
	uint32_t n = 0, stamp = ++M->stampb, x, k, d;
	const HloInstr *in;

	M->cst[n].x = fi;
	M->cst[n++].k = 0;
	while (n > 0) {
		in = &cp->ins[x = M->cst[n - 1].x];
		if (M->cst[n - 1].k < in->nops + in->nctrl) {
			k = M->cst[n - 1].k++;
			d = k < in->nops ? m->ids[in->ops + k] :
				m->ids[in->ctrl + k - in->nops];
			if (d >= cp->nins || d == fi || M->markb[d] == stamp ||
			    M->lab[d] < M->lab[u])
				continue;
			M->markb[d] = stamp;
			if (n == M->capcst) {
				M->capcst = 2 * M->capcst + 64;
				M->cst = xreallocarray(M->cst, M->capcst,
					sizeof *M->cst);
			}
			M->cst[n].x = d;
			M->cst[n++].k = 0;
			continue;
		}
		n--;
		if (x != fi)
			l_unlink(M, x);
		l_before(M, x, u);
	}
}

/* g0 and g1 into L (fi read through them; a, b their old instructions) */
static void
place(FuOrd *M, uint32_t fi, uint32_t a, uint32_t b, uint32_t g0,
	uint32_t g1)
{
	const HloModule *m = M->m;
	const HloInstr *in;
	uint32_t ua = first_user(M, a),
		ub = first_user(M, b), u, gs, k, d, both = 0, v;

	l_unlink(M, a);
	l_unlink(M, b);
	if (ua == HLO_NONE && ub == HLO_NONE) {
		l_before(M, fi, HLO_NONE);
		l_before(M, g0, HLO_NONE);
		l_before(M, g1, HLO_NONE);
		return;
	}
	u = ub == HLO_NONE || (ua != HLO_NONE && M->lab[ua] < M->lab[ub]) ?
		ua : ub;
	in = &m->comps[M->c].ins[u];
	for (k = 0; k < in->nops; k++)	/* the one u reads first */
		if ((d = m->ids[in->ops + k]) == g0 || d == g1)
			break;
	gs = m->ids[in->ops + k] == g0 ? g1 : g0;
	for (k = 0; k < in->nops; k++)
		both |= m->ids[in->ops + k] == gs;
	closure(M, fi, u);
	l_before(M, gs == g0 ? g1 : g0, u);
	v = both ? u : first_user(M, gs == g0 ? a : b);
	l_before(M, gs, v);
}

int
fu_ord_merged(FuOrd *M, uint32_t a, uint32_t b, uint32_t g0, uint32_t g1)
{
	HloModule *m = M->m;
	const HloComp *cp = &m->comps[M->c];
	uint32_t g[2] = { g0, g1 }, o[2] = { a, b }, fi, k, t, u, x, i;

	fi = m->ids[cp->ins[g[0]].ops];
	ord_room(M, cp->nins + 1);
	for (k = 0; k < cp->ins[fi].nops; k++)
		ov_push(&M->usr[m->ids[cp->ins[fi].ops + k]], fi);
	for (t = 0; t < 2; t++) {
		ov_push(&M->usr[fi], g[t]);
		for (k = 0; k < M->usr[o[t]].n; k++) {
			u = M->usr[o[t]].v[k];
			if ((*M->dead)[u])
				continue;
			ov_push(&M->usr[g[t]], u);
			for (i = 0; i < cp->ins[u].nops; i++)
				if (m->ids[cp->ins[u].ops + i] == o[t])
					m->ids[cp->ins[u].ops + i] = g[t];
		}
	}
	place(M, fi, a, b, g0, g1);
	for (t = 0; t < 2; t++)
		if (first_user(M, o[t]) == HLO_NONE)
			ov_push(&M->sinks, g[t]);
	x = M->state[a] == 1 ? a : M->state[b] == 1 ? b : HLO_NONE;
	if (x == HLO_NONE)
		return 1;
	i = M->fpos[x];
	for (k = M->st[i].out; k < M->out.n; k++)
		M->state[M->out.v[k]] = 0;
	M->out.n = M->st[i].out;
	for (k = i; k < M->nst; k++)
		M->state[M->st[k].x] = 0;
	M->nst = i;
	if (i > 0) {	/* entered from a user: now through g[t] */
		ord_push(M, x == a ? g[0] : g[1], 1);
		ord_push(M, fi, 0);
	}
	return 0;
}

/* the instructions in the order; operands, control predecessors and the
 * root renumbered */
void
fu_ord_apply(FuOrd *M)
{
	uint32_t *order, cnt = 0, x;

	order = xreallocarray(NULL, M->m->comps[M->c].nins + 1, sizeof *order);
	for (x = M->head; x != HLO_NONE; x = M->nxt[x])
		order[cnt++] = x;
	hlo_comp_renumber(M->m, M->c, order, cnt);
	free(order);
}

uint32_t
fu_ord_users(FuOrd *M, uint32_t p)
{
	MofUse *u = xreallocarray(NULL, M->usr[p].n + 1, sizeof *u);
	uint32_t i, a, n = 0, stamp = ++M->stampb;

	for (i = 0; i < M->usr[p].n; i++) {
		a = M->usr[p].v[i];
		if ((*M->dead)[a] || M->markb[a] == stamp)
			continue;
		M->markb[a] = stamp;
		u[n].lab = M->lab[a];
		u[n++].x = a;
	}
	qsort(u, n, sizeof *u, cmp_use);
	if (n + 1 > M->capuse) {
		M->capuse = 2 * n + 16;
		M->use = xreallocarray(M->use, M->capuse, sizeof *M->use);
	}
	for (i = 0; i < n; i++)
		M->use[i] = u[i].x;
	free(u);
	return n;
}
