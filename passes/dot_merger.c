/* dot_merger.c: "dot-merger", xla's DotMerger
 * (xla/hlo/transforms/simplifiers/dot_merger.cc, openxla/xla as of
 * jpli02/xla c4cbd3c), with XLA:GPU's threshold: max_size_to_merge =
 * xla_gpu_dot_merger_threshold_mb (32) << 20 bytes (XLA:CPU does not run
 * the pass; GPU's can_merge compares operation queue ids of the GPU
 * backend config, which hlopt's modules do not carry: always true).
 *
 * Contract: in every non-fusion computation, dots without control
 * dependencies are grouped by operand (a dot is in the group of each of
 * its operands); groups with two or more dots of which one is a merge
 * candidate (result plus operand bytes at most the threshold) are
 * visited in operand order, and in each, every pair (a, b) in
 * instruction order, a before b, where at least one is a candidate and
 * neither reaches the other, is merged when: the results have the same
 * layout; they share the lhs or the rhs; lhs, rhs and result types are
 * equal; dimension numbers and operand precisions are equal; the other
 * operands have the same layout and exactly one non-contracting, non-batch
 * dimension. The other operands are concatenated along their first
 * dimension that is neither batch nor contracting, one dot (a's
 * precision config and layout, a's metadata if it has an op_name, else
 * b's) computes both, and two slices of it replace a and b (all uses);
 * the merged dot stays in the group in a's place and may merge again.
 * Merged dots are removed at the end.
 * It does not fire on dots with control dependencies, on pairs where one
 * dot depends on the other, or when any condition above fails. Sparse
 * dots (sparsity= and a metadata operand) are left alone (deviation: xla
 * merges them, concatenating the metadata); merging them once dropped
 * the metadata operand and broke the module.
 *
 * Reachability is a backward depth-first search pruned by a topological
 * numbering of the current graph, as xla's GraphCycles; the numbering is
 * recomputed (linear) after a merge, before the next search that needs
 * it. The structural checks run before the search (xla runs it first;
 * both are conditions of the same merge, so the result is the same).
 */
#include <string.h>

#include "dotutil.h"

#define DOT_MERGER_MAX ((int64_t)32 << 20)

typedef struct {
	PassEdit *ed;
	uint32_t cap;
	uint32_t *pos;		/* topological number */
	int stale;
	uint32_t *mark, epoch;
	uint32_t *stk, *idx;
	uint8_t *gone;		/* merged away, removed at the end */
} Dm;

static uint32_t
nops_all(const HloInstr *in)
{
	return in->nops + in->nctrl;
}

/* operand k of i (control predecessors after the operands), resolved */
static uint32_t
pred(Dm *d, uint32_t i, uint32_t k)
{
	const HloModule *m = d->ed->m;
	const HloInstr *in = &m->comps[d->ed->c].ins[i];

	return pass_res(d->ed, k < in->nops ? m->ids[in->ops + k] :
		m->ids[in->ctrl + k - in->nops]);
}

static int
live(Dm *d, uint32_t i)
{
	return !(d->ed->m->comps[d->ed->c].ins[i].flags & HI_DEAD) &&
		!d->gone[i] && pass_res(d->ed, i) == i;
}

/* post-order numbering of the live graph, operands through the
 * replacements */
static void
number(Dm *d)
{
	uint32_t n = d->ed->m->comps[d->ed->c].nins, cnt = 0, r, sp, v, o;

	d->epoch++;
	for (r = 0; r < n; r++) {
		if (!live(d, r) || d->mark[r] == d->epoch)
			continue;
		sp = 0;
		d->stk[sp] = r;
		d->idx[sp++] = 0;
		d->mark[r] = d->epoch;
		while (sp) {
			v = d->stk[sp - 1];
			if (d->idx[sp - 1] < nops_all(&d->ed->m->comps[
			    d->ed->c].ins[v])) {
				o = pred(d, v, d->idx[sp - 1]++);
				if (d->mark[o] != d->epoch) {
					d->mark[o] = d->epoch;
					d->stk[sp] = o;
					d->idx[sp++] = 0;
				}
				continue;
			}
			d->pos[v] = cnt++;
			sp--;
		}
	}
	d->stale = 0;
}

/* from reaches to: a backward search from to, pruned below from */
static int
reaches(Dm *d, uint32_t from, uint32_t to)
{
	uint32_t sp = 0, v, k, o, n;

	if (d->stale)
		number(d);
	if (d->pos[to] < d->pos[from])
		return 0;
	d->epoch++;
	d->stk[sp++] = to;
	d->mark[to] = d->epoch;
	while (sp) {
		v = d->stk[--sp];
		if (v == from)
			return 1;
		n = nops_all(&d->ed->m->comps[d->ed->c].ins[v]);
		for (k = 0; k < n; k++) {
			o = pred(d, v, k);
			if (d->mark[o] == d->epoch || d->pos[o] < d->pos[from])
				continue;
			d->mark[o] = d->epoch;
			d->stk[sp++] = o;
		}
	}
	return 0;
}

static int
candidate(Dm *d, uint32_t i)
{
	const HloModule *m = d->ed->m;
	const HloInstr *in = pass_ins(d->ed, i);
	int64_t bytes = hlo_shape_bytes(m, in->shape);
	uint32_t k;

	for (k = 0; k < in->nops; k++)
		bytes += hlo_shape_bytes(m, pass_b_shape(d->ed,
			pass_opnd(d->ed, i, k)));
	return bytes <= DOT_MERGER_MAX;
}

/* Layout equality, no layout being the default one */
static int
same_layout(const HloModule *m, uint32_t a, uint32_t b)
{
	const HloShape *x = hlo_sh(m, a), *y = hlo_sh(m, b);
	int k;

	if (x->rank != y->rank || x->tail != y->tail)
		return 0;
	for (k = 0; k < x->rank; k++) {
		int64_t p = x->flags & SH_LAYOUT ? hlo_m2m(m, x)[k] :
			x->rank - 1 - k;
		int64_t q = y->flags & SH_LAYOUT ? hlo_m2m(m, y)[k] :
			y->rank - 1 - k;

		if (p != q)
			return 0;
	}
	return 1;
}

typedef struct {
	int lhs_same;
	uint32_t shared, da, db;
	int64_t outer;
	PassDnums dn;
} Plan;

/* TryMergeSameOperand's checks: 1 if a and b can merge */
static int
plan(Dm *d, uint32_t a, uint32_t b, Plan *p)
{
	PassEdit *ed = d->ed;
	const HloModule *m = ed->m;
	const HloInstr *x = pass_ins(ed, a), *y = pass_ins(ed, b);
	uint32_t xa[2] = {pass_opnd(ed, a, 0), pass_opnd(ed, a, 1)};
	uint32_t yb[2] = {pass_opnd(ed, b, 0), pass_opnd(ed, b, 1)};
	PassDnums db;
	const int64_t *c, *bt;
	uint32_t nc, nb, k, used;
	int q;

	if (!same_layout(m, x->shape, y->shape) ||
	    (xa[0] != yb[0] && xa[1] != yb[1]))
		return 0;
	for (k = 0; k < 2; k++)
		if (pass_b_type(ed, xa[k]) != pass_b_type(ed, yb[k]))
			return 0;
	if (hlo_sh(m, x->shape)->type != hlo_sh(m, y->shape)->type ||
	    pass_dot_dnums(m, x, &p->dn) < 0 ||
	    pass_dot_dnums(m, y, &db) < 0 || !pass_dnums_equal(&p->dn, &db) ||
	    !pass_same_attr(m, x, y, A_OPERAND_PRECISION))
		return 0;
	p->lhs_same = xa[0] == yb[0];
	p->shared = xa[p->lhs_same ? 0 : 1];
	p->da = xa[p->lhs_same ? 1 : 0];
	p->db = yb[p->lhs_same ? 1 : 0];
	if (!same_layout(m, pass_b_shape(ed, p->da), pass_b_shape(ed, p->db)))
		return 0;
	c = p->lhs_same ? p->dn.rc : p->dn.lc;
	nc = p->lhs_same ? p->dn.nrc : p->dn.nlc;
	bt = p->lhs_same ? p->dn.rb : p->dn.lb;
	nb = p->lhs_same ? p->dn.nrb : p->dn.nlb;
	used = 0;
	p->outer = -1;
	for (q = 0; q < hlo_sh(m, pass_b_shape(ed, p->da))->rank; q++) {
		if (hlo_ints_has(c, nc, q) || hlo_ints_has(bt, nb, q))
			used++;
		else if (p->outer < 0)
			p->outer = q;
	}
	/* xla counts the set of used dims: a dim both batch and contracting
	 * is impossible in a valid dot */
	return used + 1 == hlo_sh(m, pass_b_shape(ed, p->da))->rank &&
		hlo_sh(m, pass_b_shape(ed, p->db))->rank ==
		hlo_sh(m, pass_b_shape(ed, p->da))->rank;
}

static uint32_t
slice(PassEdit *ed, uint32_t x, uint32_t shape, int rank, int dim,
	int64_t lo, int64_t hi)
{
	const int64_t *xd = hlo_dims(ed->m, hlo_sh(ed->m, pass_b_shape(ed, x)));
	int64_t t[3 * PASS_DOT_MAXDIMS];
	uint32_t i;
	HloAttr a;
	int k;

	for (k = 0; k < rank; k++) {
		t[3 * k] = k == dim ? lo : 0;
		t[3 * k + 1] = k == dim ? hi : xd[k];
		t[3 * k + 2] = 1;
	}
	i = pass_b_op(ed, HOP_SLICE, shape, 1, &x);
	a = hlo_mk_ints(ed->m, A_SLICE, t, 3 * rank);
	a.kind = K_SLICE;
	hlo_set_attrs(ed->m, ed->c, i, 1, &a);
	return i;
}

/* the merge of a and b as p plans it; returns the merged dot */
static uint32_t
merge(Dm *d, uint32_t a, uint32_t b, const Plan *p)
{
	PassEdit *ed = d->ed;
	HloModule *m = ed->m;
	const HloShape *s = hlo_sh(m, pass_b_shape(ed, p->da));
	int64_t dims[PASS_DOT_MAXDIMS], m2m[PASS_DOT_MAXDIMS], cut, full;
	uint32_t ops[2] = {p->da, p->db}, cat, nd, sa, sb, shape;
	int rank = s->rank, k, has = s->flags & SH_LAYOUT, sd, nfree;
	HloAttr at;

	for (k = 0; k < rank; k++) {
		dims[k] = hlo_dims(m, s)[k];
		if (has)
			m2m[k] = hlo_m2m(m, s)[k];
	}
	dims[p->outer] += hlo_dims(m, hlo_sh(m, pass_b_shape(ed, p->db)))[
		p->outer];
	shape = hlo_shape(m, s->type, rank, dims, has ? m2m : NULL, 0, s->tail);
	cat = pass_b_op(ed, HOP_CONCAT, shape, 2, ops);
	at = hlo_mk_ints(m, A_DIMENSIONS, &p->outer, 1);
	hlo_set_attrs(m, ed->c, cat, 1, &at);
	ops[0] = p->lhs_same ? p->shared : cat;
	ops[1] = p->lhs_same ? cat : p->shared;
	s = hlo_sh(m, pass_ins(ed, a)->shape);
	has = s->flags & SH_LAYOUT;
	for (k = 0; k < s->rank; k++)
		if (has)
			m2m[k] = hlo_m2m(m, s)[k];
	rank = pass_dot_dims(m, pass_b_shape(ed, ops[0]),
		pass_b_shape(ed, ops[1]), &p->dn, dims);
	shape = hlo_shape(m, hlo_sh(m, pass_ins(ed, a)->shape)->type, rank,
		dims, has ? m2m : NULL, 0, s->tail);
	nd = pass_dot_like(ed, a, ops[0], ops[1], &p->dn, shape);
	if (pass_metadata_has_op_name(m, pass_ins(ed, a)))
		pass_copy_attr(ed, a, nd, A_METADATA);
	else if (pass_metadata_has_op_name(m, pass_ins(ed, b)))
		pass_copy_attr(ed, b, nd, A_METADATA);
	nfree = hlo_sh(m, pass_b_shape(ed, p->shared))->rank - (int)p->dn.nlb -
		(int)(p->lhs_same ? p->dn.nlc : p->dn.nrc);
	sd = rank - (p->lhs_same ? 1 : 1 + nfree);
	cut = hlo_dims(m, hlo_sh(m, pass_ins(ed, a)->shape))[sd];
	full = dims[sd];
	sa = slice(ed, nd, pass_ins(ed, a)->shape, rank, sd, 0, cut);
	pass_replace_uses(ed, a, sa);
	sb = slice(ed, nd, pass_ins(ed, b)->shape, rank, sd, cut, full);
	pass_replace_uses(ed, b, sb);
	return nd;
}

/* the pairs of one group, v[0..n) in instruction order */
static int
merge_group(Dm *d, uint32_t *v, uint32_t n)
{
	uint32_t i, j, merged = 0;
	Plan p;

	for (i = 0; i < n; i++) {
		if (v[i] == HLO_NONE)
			continue;
		for (j = i + 1; j < n; j++) {
			uint32_t a = v[i], b = v[j];

			if (b == HLO_NONE || d->gone[a] || d->gone[b] ||
			    (!candidate(d, a) && !candidate(d, b)) ||
			    !plan(d, a, b, &p) || reaches(d, a, b) ||
			    reaches(d, b, a))
				continue;
			v[i] = merge(d, a, b, &p);
			v[j] = HLO_NONE;
			d->gone[a] = d->gone[b] = 1;
			d->stale = 1;
			merged++;
		}
	}
	return merged;
}

/* a live dot without control dependencies and without sparsity
 * metadata operands (hlopt does not merge sparse dots: deviation) */
static int
mergeable(PassEdit *ed, uint32_t i)
{
	const HloInstr *in = pass_ins(ed, i);

	return !(in->flags & HI_DEAD) && in->op == HOP_DOT && !ed->ctl[i] &&
		in->nops == 2;
}

static int
comp(PassEdit *ed, void *arg)
{
	HloModule *m = ed->m;
	uint32_t n = m->comps[ed->c].nins, i, k, nd = 0, np = 0, o, *cnt;
	uint32_t *pairs, *v, nv, x, merged = 0;
	Dm d;

	(void)arg;
	for (i = 0; i < n; i++)
		if (mergeable(ed, i))
			nd++;
	if (nd < 2)
		return 0;
	memset(&d, 0, sizeof d);
	d.ed = ed;
	d.cap = n + 4 * nd + 8;
	d.pos = pass_zalloc(ed->ctx, d.cap, 4);
	d.mark = pass_zalloc(ed->ctx, d.cap, 4);
	d.stk = pass_zalloc(ed->ctx, d.cap, 4);
	d.idx = pass_zalloc(ed->ctx, d.cap, 4);
	d.gone = pass_zalloc(ed->ctx, d.cap, 1);
	d.stale = 1;
	cnt = pass_zalloc(ed->ctx, n + 1, 4);
	pairs = pass_zalloc(ed->ctx, 2 * nd, 4);
	v = pass_zalloc(ed->ctx, nd, 4);
	/* groups: the dots of each operand, by counting sort */
	for (i = 0; i < n; i++) {
		if (!mergeable(ed, i))
			continue;
		for (k = 0; k < pass_ins(ed, i)->nops && k < 2; k++)
			if (!k || pass_opnd(ed, i, 1) != pass_opnd(ed, i, 0))
				cnt[pass_opnd(ed, i, k) + 1]++;
	}
	for (o = 0; o < n; o++)
		cnt[o + 1] += cnt[o];
	for (i = 0; i < n; i++) {
		if (!mergeable(ed, i))
			continue;
		for (k = 0; k < pass_ins(ed, i)->nops && k < 2; k++)
			if (!k || pass_opnd(ed, i, 1) != pass_opnd(ed, i, 0))
				pairs[cnt[pass_opnd(ed, i, k)]++] = i;
		np++;
	}
	/* cnt[o] is now the end of o's group, cnt[o - 1] its start */
	for (o = 0; o < n; o++) {
		uint32_t s = o ? cnt[o - 1] : 0, any = 0;

		if (cnt[o] - s < 2)
			continue;
		for (nv = 0, x = s; x < cnt[o]; x++) {
			v[nv++] = pairs[x];
			any |= candidate(&d, pairs[x]);
		}
		if (any)
			merged += merge_group(&d, v, nv);
	}
	for (i = 0; i < d.cap && i < m->comps[ed->c].nins; i++)
		if (d.gone[i])
			pass_remove(ed, i);
	ed->ctx->stats.rewrites += merged;
	(void)np;
	return merged > 0;
}

int
pass_dot_merger(HloModule *m, PassCtx *ctx)
{
	PassEdit ed;
	PassVisit v;

	memset(&v, 0, sizeof v);
	v.skips = PASS_SKIP_FUSION;
	v.comp = comp;
	return pass_visit(m, ctx, &ed, &v);
}
