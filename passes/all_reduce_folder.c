/* all_reduce_folder.c: "all-reduce-folder", xla's AllReduceFolder
 * (xla/hlo/transforms/simplifiers/all_reduce_folder.cc, jpli02/xla
 * c4cbd3c).
 *
 * An all-reduce ar1 whose operand is an all-reduce ar0 with no other
 * user is replaced by one all-reduce of ar0's operands (ar0's shape,
 * reduction computation and use_global_device_ids, no constrain_layout,
 * a fresh channel id if ar0 had one) over the folded replica groups: for
 * every replica, the replicas whose values reach its result through both
 * all-reduces, if each contributes once and these sets partition the
 * replicas (FoldReplicaGroups; groups sorted by their first id). ar0 and
 * ar1 are deleted. Instructions are visited in post order with operands
 * read as replaced, so a chain folds in one run.
 *
 * Must not fire: anywhere in a module holding an all-reduce with
 * constrain_layout=true; when either replica group list is empty; when
 * the two differ in the reduction (root opcode and element type of the
 * computation, which must have exactly two parameters and a root), in
 * having a channel id or in use_global_device_ids (GetAllReduceKey);
 * when either has control dependencies, ar0 has another user or is the
 * root; when the groups do not fold (a replica would contribute twice,
 * e.g. the same groups twice). A variadic ar1 (more operands than ar0's
 * result) is left alone: xla would drop its other operands. No other
 * collective or side-effecting instruction is touched: folding two
 * all-reduces into one is the rule itself.
 */
#include <stdlib.h>
#include <string.h>

#include "pass.h"

typedef struct {
	int64_t *ids;		/* replica ids, group after group */
	uint32_t *start;	/* group g: ids[start[g] .. start[g+1]) */
	uint32_t n, nids;
} Groups;

static void
groups_free(Groups *g)
{
	free(g->ids);
	free(g->start);
	memset(g, 0, sizeof *g);
}

static int
num(const char **p, const char *e, int64_t *v)
{
	int64_t x = 0;
	int any = 0;

	while (*p < e && **p == ' ')
		(*p)++;
	while (*p < e && **p >= '0' && **p <= '9') {
		if (x > (INT64_C(1) << 40))
			return 0;
		x = 10 * x + (**p - '0');
		(*p)++;
		any = 1;
	}
	*v = x;
	return any;
}

static int
eat(const char **p, const char *e, char c)
{
	while (*p < e && **p == ' ')
		(*p)++;
	if (*p < e && **p == c) {
		(*p)++;
		return 1;
	}
	return 0;
}

/* a list of numbers between open and close: [2,4] or (1,0) */
static int
vec(const char **p, const char *e, char open, char close, int64_t *v,
	int *n, int max)
{
	*n = 0;
	if (!eat(p, e, open))
		return 0;
	if (eat(p, e, close))
		return 1;
	do {
		if (*n >= max || !num(p, e, &v[*n]))
			return 0;
		(*n)++;
	} while (eat(p, e, ','));
	return eat(p, e, close);
}

/* [G,S]<=[d0,d1,...]T(perm): iota over the dims, transposed, flattened
 * and cut into G groups of S */
static int
iota_groups(const char *p, const char *e, Groups *g)
{
	int64_t gs[2], dims[8], perm[8], total = 1, k, idx[8], stride[8];
	int ng, nd, np, d;

	if (!vec(&p, e, '[', ']', gs, &ng, 2) || ng != 2 || !eat(&p, e, '<') ||
	    !eat(&p, e, '=') || !vec(&p, e, '[', ']', dims, &nd, 8) || nd < 1)
		return 0;
	for (d = 0; d < nd; d++) {
		perm[d] = d;
		if (dims[d] <= 0 || total > (INT64_C(1) << 24) / dims[d])
			return 0;
		total *= dims[d];
	}
	if (eat(&p, e, 'T') && (!vec(&p, e, '(', ')', perm, &np, 8) ||
	    np != nd))
		return 0;
	while (p < e && *p == ' ')
		p++;
	if (p != e || gs[0] <= 0 || gs[1] <= 0 || gs[0] * gs[1] != total)
		return 0;
	for (d = nd - 1, k = 1; d >= 0; d--) {
		stride[d] = k;
		k *= dims[d];
	}
	g->n = (uint32_t)gs[0];
	g->nids = (uint32_t)total;
	g->ids = xreallocarray(NULL, total + 1, sizeof *g->ids);
	g->start = xreallocarray(NULL, g->n + 1, sizeof *g->start);
	for (k = 0; k <= gs[0]; k++)
		g->start[k] = (uint32_t)(k * gs[1]);
	memset(idx, 0, sizeof idx);
	for (k = 0; k < total; k++) {
		int64_t off = 0;

		for (d = 0; d < nd; d++) {
			if (perm[d] < 0 || perm[d] >= nd)
				return 0;
			off += idx[d] * stride[perm[d]];
		}
		g->ids[k] = off;
		for (d = nd - 1; d >= 0; d--) {
			if (++idx[d] < dims[perm[d]])
				break;
			idx[d] = 0;
		}
	}
	return 1;
}

/* replica_groups: {{0,1},{2,3}}, {} or the iota form; 0 if malformed */
static int
parse_groups(const HloModule *m, const HloInstr *in, Groups *g)
{
	uint32_t len, cap = 16, gcap = 8;
	const char *p = hlo_attr_word(m, in, A_REPLICA_GROUPS, &len), *e;
	int64_t v;

	memset(g, 0, sizeof *g);
	if (!p)
		return 1;
	e = p + len;
	if (eat(&p, e, '['))
		return iota_groups(p - 1, e, g);
	if (!eat(&p, e, '{'))
		return 0;
	g->ids = xreallocarray(NULL, cap, sizeof *g->ids);
	g->start = xreallocarray(NULL, gcap, sizeof *g->start);
	g->start[0] = 0;
	if (eat(&p, e, '}'))
		return p == e;
	do {
		if (!eat(&p, e, '{'))
			return 0;
		if (!eat(&p, e, '}')) {
			do {
				if (!num(&p, e, &v))
					return 0;
				if (g->nids + 1 >= cap) {
					cap *= 2;
					g->ids = xreallocarray(g->ids, cap,
						sizeof *g->ids);
				}
				g->ids[g->nids++] = v;
			} while (eat(&p, e, ','));
			if (!eat(&p, e, '}'))
				return 0;
		}
		if (g->n + 2 >= gcap) {
			gcap *= 2;
			g->start = xreallocarray(g->start, gcap,
				sizeof *g->start);
		}
		g->start[++g->n] = g->nids;
	} while (eat(&p, e, ','));
	return eat(&p, e, '}') && p == e;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* FoldReplicaGroups: the folded groups as text in out, 0 if they do not
 * fold */
static int
fold(const Groups *g0, const Groups *g1, HloBuf *out)
{
	int64_t nr = 0, r, x;
	uint32_t a, k, j, nsets = 0, ok = 0;
	int64_t *gno, *setid, *bymin, *mark;
	uint32_t *sstart, *sids, nsids = 0, *order;

	for (k = 0; k < g0->nids; k++)
		if (g0->ids[k] + 1 > nr)
			nr = g0->ids[k] + 1;
	if (nr <= 0 || nr > (1 << 24))
		return 0;
	gno = xreallocarray(NULL, nr, sizeof *gno);
	setid = xcalloc(nr, sizeof *setid);
	bymin = xreallocarray(NULL, nr, sizeof *bymin);
	mark = xreallocarray(NULL, nr, sizeof *mark);
	sstart = xreallocarray(NULL, g1->n + 2, sizeof *sstart);
	sids = xreallocarray(NULL, 2 * (size_t)nr + 1, sizeof *sids);
	order = xreallocarray(NULL, g1->n + 1, sizeof *order);
	for (r = 0; r < nr; r++)
		gno[r] = bymin[r] = mark[r] = -1;
	for (a = 0; a < g0->n; a++)
		for (k = g0->start[a]; k < g0->start[a + 1]; k++)
			gno[g0->ids[k]] = a;
	sstart[0] = 0;
	for (a = 0; a < g1->n; a++) {
		uint32_t s0 = nsids, lo = UINT32_MAX, id;

		for (k = g1->start[a]; k < g1->start[a + 1]; k++) {
			x = g1->ids[k];
			if (x < 0 || x >= nr || gno[x] < 0)
				goto out;
			for (j = g0->start[gno[x]]; j < g0->start[gno[x] + 1];
			    j++) {
				r = g0->ids[j];
				if (mark[r] == a || nsids >= 2 * nr)
					goto out;
				mark[r] = a;
				sids[nsids++] = (uint32_t)r;
				if ((uint32_t)r < lo)
					lo = (uint32_t)r;
			}
		}
		if (nsids == s0)
			goto out;
		/* the same set seen before has the same smallest member;
		 * another set with that member cannot fold anyway */
		if (bymin[lo] >= 0) {
			id = (uint32_t)bymin[lo];
			if (sstart[id + 1] - sstart[id] != nsids - s0)
				goto out;
			for (j = sstart[id]; j < sstart[id + 1]; j++)
				if (mark[sids[j]] != a)
					goto out;
			nsids = s0;
		} else {
			id = nsets++;
			bymin[lo] = id;
			sstart[nsets] = nsids;
		}
		for (k = g1->start[a]; k < g1->start[a + 1]; k++)
			setid[g1->ids[k]] = id + 1;
	}
	for (a = 0; a < nsets; a++)
		for (j = sstart[a]; j < sstart[a + 1]; j++)
			if (setid[sids[j]] != a + 1)
				goto out;
	/* sets in the order of their smallest member, members sorted */
	for (r = 0, k = 0; r < nr; r++)
		if (bymin[r] >= 0)
			order[k++] = (uint32_t)bymin[r];
	hlo_buf_puts(out, "{");
	for (a = 0; a < nsets; a++) {
		uint32_t s = order[a];

		qsort(sids + sstart[s], sstart[s + 1] - sstart[s],
			sizeof *sids, cmp_u32);
		hlo_buf_puts(out, a ? ",{" : "{");
		for (j = sstart[s]; j < sstart[s + 1]; j++)
			hlo_buf_printf(out, "%s%u", j > sstart[s] ? "," : "",
				sids[j]);
		hlo_buf_puts(out, "}");
	}
	hlo_buf_puts(out, "}");
	ok = 1;
out:
	free(gno);
	free(setid);
	free(bymin);
	free(mark);
	free(sstart);
	free(sids);
	free(order);
	return ok;
}

static uint32_t
live_count(const HloComp *cp)
{
	uint32_t i, n = 0;

	for (i = 0; i < cp->nins; i++)
		n += !(cp->ins[i].flags & HI_DEAD);
	return n;
}

/* GetAllReduceKey's conditions on one all-reduce */
static int
keyable(PassEdit *ed, uint32_t i)
{
	const HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);
	uint32_t f;

	if (in->op != HOP_ALLREDUCE || ed->ctl[i] || in->ncalled != 1)
		return 0;
	f = m->ids[in->called];
	return f < m->ncomps && hlo_param_count(m, f) == 2 &&
		live_count(&m->comps[f]) == 3;
}

static int
same_key(PassEdit *ed, uint32_t a, uint32_t b)
{
	const HloModule *m = ed->m;
	const HloInstr *x = pass_ins(ed, a), *y = pass_ins(ed, b);
	const HloComp *fa = &m->comps[m->ids[x->called]];
	const HloComp *fb = &m->comps[m->ids[y->called]];
	const HloInstr *ra = &fa->ins[fa->root], *rb = &fb->ins[fb->root];

	return ra->op == rb->op && hlo_sh(m, ra->shape)->type ==
		hlo_sh(m, rb->shape)->type &&
		!hlo_attr(m, x, A_CHANNEL_ID) == !hlo_attr(m, y, A_CHANNEL_ID) &&
		!hlo_attr_int(m, x, A_USE_GLOBAL_DEVICE_IDS, 0) ==
		!hlo_attr_int(m, y, A_USE_GLOBAL_DEVICE_IDS, 0);
}

typedef struct {
	int64_t next_channel;
} Arf;

static int
fold_pair(PassEdit *ed, uint32_t i, void *arg)
{
	Arf *st = arg;
	HloModule *m = ed->m;
	uint32_t a0, nw, k, nops, *ops, f, name;
	Groups g0 = {0}, g1 = {0};
	HloBuf txt = {0};
	HloAttr at[3];
	int na = 0, ok;

	if (pass_ins(ed, i)->op != HOP_ALLREDUCE || pass_ins(ed, i)->nops != 1)
		return 0;
	a0 = pass_opnd(ed, i, 0);
	if (pass_ins(ed, a0)->op != HOP_ALLREDUCE || ed->nuse[a0] != 1 ||
	    m->comps[ed->c].root == a0 || !keyable(ed, a0) ||
	    !keyable(ed, i) || !same_key(ed, a0, i))
		return 0;
	ok = parse_groups(m, pass_ins(ed, a0), &g0) &&
		parse_groups(m, pass_ins(ed, i), &g1) && g0.n && g1.n &&
		fold(&g0, &g1, &txt);
	groups_free(&g0);
	groups_free(&g1);
	if (!ok) {
		hlo_buf_free(&txt);
		return 0;
	}
	at[na++] = hlo_mk_bytes(m, A_REPLICA_GROUPS, K_RAW, txt.buf,
		(uint32_t)txt.len);
	hlo_buf_free(&txt);
	if (hlo_attr(m, pass_ins(ed, a0), A_CHANNEL_ID))
		at[na++] = hlo_mk_int(A_CHANNEL_ID, st->next_channel++);
	if (hlo_attr_int(m, pass_ins(ed, a0), A_USE_GLOBAL_DEVICE_IDS, 0)) {
		at[na] = hlo_mk_int(A_USE_GLOBAL_DEVICE_IDS, 1);
		at[na++].kind = K_BOOL;
	}
	nops = pass_ins(ed, a0)->nops;
	ops = xreallocarray(NULL, nops + 1, sizeof *ops);
	for (k = 0; k < nops; k++)
		ops[k] = pass_opnd(ed, a0, k);
	f = m->ids[pass_ins(ed, a0)->called];
	name = hlo_fresh_name(m, "all-reduce");
	nw = hlo_instr_add(m, ed->c, HOP_ALLREDUCE, pass_ins(ed, a0)->shape,
		name, nops, ops);
	free(ops);
	hlo_set_attrs(m, ed->c, nw, (uint32_t)na, at);
	hlo_set_called(m, ed->c, nw, 1, &f);
	pass_edit_added(ed, nw);
	pass_replace_uses(ed, i, nw);
	pass_remove(ed, i);
	pass_remove(ed, a0);
	return 1;
}

int
pass_all_reduce_folder(HloModule *m, PassCtx *ctx)
{
	uint32_t c, i;
	int64_t ch;
	Arf st = {1};
	PassEdit ed;
	PassVisit v;

	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++) {
			const HloInstr *in = &m->comps[c].ins[i];

			if (in->flags & HI_DEAD)
				continue;
			if (in->op == HOP_ALLREDUCE &&
			    hlo_attr_int(m, in, A_CONSTRAIN_LAYOUT, 0))
				return 0;
			ch = hlo_attr_int(m, in, A_CHANNEL_ID, 0);
			if (ch + 1 > st.next_channel)
				st.next_channel = ch + 1;
		}
	memset(&v, 0, sizeof v);
	v.skips = PASS_SKIP_NONE;
	v.instr = fold_pair;
	v.unforwarded = 1;
	v.arg = &st;
	return pass_visit(m, ctx, &ed, &v);
}
