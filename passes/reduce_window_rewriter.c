/* reduce_window_rewriter.c: "reduce-window-rewriter", xla's
 * ReduceWindowRewriter (xla/hlo/transforms/simplifiers/
 * reduce_window_rewriter.cc, openxla/xla 3be98a5fbc30e2992da5ac4d601f7cad81dc4e7a
 * and jpli02/xla c4cbd3c, whose reduce-window half is the same) with
 * the base length XLA:CPU gives it (xla_reduce_window_rewrite_base_length,
 * 16); XLA:CPU runs it in an HloPassFix.
 *
 * Contract: in every computation (fusion computations included, as xla
 * walks module->computations()), in post order over the instructions
 * there before the pass, each reduce-window that is a scan is rewritten
 * as a tree of two scans; a reduce-window that is not, whose first
 * input has rank 1, becomes a rank-2 one (pass_rw_to_rank2, what
 * reduce-window-resizer does).
 *
 * A scan: exactly one window dimension d is not trivial (trivial: size
 * 1, stride 1, no padding, no dilation); with L the inputs' length along
 * d, L > 16, the window there has size L, stride 1, no dilation or
 * reversal, and padding L-1 or L (inclusive or exclusive) low and none
 * high (a forward scan) or the reverse (a reverse scan); a reducer with
 * a tuple-shaped root has a tuple as its root. The rewrite: d is swapped
 * with the last dimension (a transpose) when it is not last; the inputs
 * are padded at the end with their init values up to P, L rounded up to
 * a multiple of 16, and reshaped to [..., P/16, 16]; an outer
 * reduce-window scans each row of 16 (window 16, padding 15 low, or high
 * for a reverse scan); the last (first) column of every row is sliced
 * out and reshaped to [..., P/16]; an inner reduce-window scans the
 * columns exclusively (window P/16, padding P/16 low or high, result
 * [..., P/16+1]), is sliced back to P/16 (dropping its last or first
 * element), broadcast over the rows and combined with the outer scan by
 * a map of the reducer (of a clone rooted at output j for a variadic
 * reducer); that is reshaped back, transposed back, sliced to L and,
 * for an exclusive scan, padded with the init value by one element at
 * the front (the back). Variadic reduce-windows read every output
 * through a get-tuple-element (a new one at every use, as xla's
 * GetAtIndex) and end in a tuple. The old reduce-window's users read the
 * result and it is removed (ReplaceAllUsesWith, RemoveInstruction).
 * Like xla, the reducer is assumed associative and the init value its
 * identity: the tree folds the init value in twice.
 *
 * It does not fire on reduce-windows with several or no non-trivial
 * dimensions, scans of at most 16 elements or along a dynamic dimension
 * (<=N: xla's fix for openxla/xla issue 44944), strided, dilated or
 * reversed windows, or padding on both sides, except for the rank-1 to
 * rank-2 rewrite. Run to a fixed point, every rank-1 reduce-window ends
 * rank 2 and every scan longer than 16 a tree of scans of at most 16.
 * A reduce-window with control dependencies is left alone (xla's
 * RemoveInstruction fails on it). New intermediate shapes of the tree
 * carry no layout (xla gives the new dimensions the most major place)
 * and no dynamic marks on the batch dimensions (xla keeps them); the
 * rank-2 rewrite keeps dynamic marks.
 */
#include <stdio.h>
#include <string.h>

#include "reduce_window.h"

#define BASE 16
#define MAXR 64

typedef struct {
	int rank;		/* of the inputs */
	int dim;		/* the scan dimension */
	int64_t len;		/* L */
	int fwd, excl;
} Scan;

static int
trivial(const int64_t *w)
{
	return w[0] == 1 && w[1] == 1 && w[2] == 0 && w[3] == 0 &&
		w[4] == 1 && w[5] == 1;
}

/* xla's TryOptimizeCumSumOrProd's conditions */
static int
is_scan(PassEdit *ed, uint32_t i, Scan *s)
{
	const HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);
	const HloShape *x = hlo_sh(m, pass_b_shape(ed, pass_opnd(ed, i, 0)));
	const HloInstr *root;
	const int64_t *w;
	uint32_t nw, c;
	int k, rev;
	int64_t lo, hi;

	s->rank = x->rank;
	s->dim = -1;
	w = hlo_attr_list(m, in, A_WINDOW, &nw);
	if (x->rank > MAXR || nw != 7u * x->rank)
		return 0;
	for (k = 0; k < x->rank; k++) {
		if (trivial(w + 7 * k))
			continue;
		if (s->dim >= 0)
			return 0;
		s->dim = k;
	}
	if (s->dim < 0)
		return 0;
	s->len = hlo_dims(m, x)[s->dim];
	if (s->len <= BASE || (s->dim < 64 && (x->dynmask >> s->dim & 1)))
		return 0;
	c = m->ids[in->called];
	root = &m->comps[c].ins[m->comps[c].root];
	if (hlo_sh(m, root->shape)->type == TY_TUPLE && root->op != HOP_TUPLE)
		return 0;
	w += 7 * s->dim;
	lo = w[2];
	hi = w[3];
	s->fwd = (lo == s->len - 1 || lo == s->len) && hi == 0;
	rev = (hi == s->len - 1 || hi == s->len) && lo == 0;
	if (w[1] != 1 || w[0] != s->len || (!s->fwd && !rev) || w[6] ||
	    w[5] != 1 || w[4] != 1)
		return 0;
	s->excl = s->fwd ? lo == s->len : hi == s->len;
	return 1;
}

/* a window of n trivial dimensions but the last: size, padding */
static HloAttr
window(HloModule *m, int n, int64_t size, int64_t pad, int fwd)
{
	int64_t w[7 * (MAXR + 1)];
	int k;

	for (k = 0; k < n; k++) {
		int64_t *d = w + 7 * k;

		d[0] = d[1] = d[4] = d[5] = 1;
		d[2] = d[3] = d[6] = 0;
	}
	w[7 * (n - 1)] = size;
	w[7 * (n - 1) + (fwd ? 2 : 3)] = pad;
	return hlo_mk_ints(m, A_WINDOW, w, 7 * (uint32_t)n);
}

/* one rewrite: the inputs and init values, and what it builds */
typedef struct {
	PassEdit *ed;
	Scan s;
	uint32_t n;		/* inputs */
	int tuple;		/* the result is a tuple */
	uint32_t comp;		/* the reducer */
	uint32_t *src;		/* inputs, transposed and padded */
	uint32_t *init;
	uint32_t *tiled;	/* tiled shapes [..., P/16, 16] */
	uint32_t *cols;		/* the last columns [..., P/16] */
	uint32_t *sh;		/* scratch: n shapes */
	int64_t perm[MAXR];
	int64_t padded, ncol;
} Tree;

static uint32_t
mk_rw(Tree *t, const uint32_t *in, const uint32_t *shapes, HloAttr win)
{
	PassEdit *ed = t->ed;
	HloModule *m = ed->m;
	uint32_t *ops = pass_alloc(ed->ctx, 2 * t->n * sizeof *ops), j, r;

	for (j = 0; j < t->n; j++) {
		ops[j] = in[j];
		ops[t->n + j] = t->init[j];
	}
	r = pass_b_op(ed, HOP_REDUCEWINDOW, t->tuple ?
		hlo_shape_tuple(m, t->n, shapes) : shapes[0], 2 * t->n, ops);
	win.kind = K_WINDOW;
	hlo_set_attrs(m, ed->c, r, 1, &win);
	hlo_set_called(m, ed->c, r, 1, &t->comp);
	return r;
}

static uint32_t
mk_pad(PassEdit *ed, uint32_t x, uint32_t v, uint32_t shape, int dim,
	int64_t lo, int64_t hi)
{
	HloModule *m = ed->m;
	int rank = hlo_sh(m, shape)->rank;
	int64_t p[3 * MAXR];
	uint32_t o[2] = {x, v}, r;
	HloAttr a;

	memset(p, 0, (size_t)(3 * rank) * sizeof *p);
	p[3 * dim] = lo;
	p[3 * dim + 1] = hi;
	r = pass_b_op(ed, HOP_PAD, shape, 2, o);
	a = hlo_mk_ints(m, A_PADDING, p, 3 * (uint32_t)rank);
	a.kind = K_PAD;
	hlo_set_attrs(m, ed->c, r, 1, &a);
	return r;
}

/* steps 1 and 2: transpose the scan dimension last, pad, tile */
static void
tile(Tree *t)
{
	PassEdit *ed = t->ed;
	HloModule *m = ed->m;
	int r = t->s.rank, last = r - 1, k;
	int64_t d[MAXR + 1];
	uint32_t j;

	for (k = 0; k < r; k++)
		t->perm[k] = k;
	t->perm[t->s.dim] = last;
	t->perm[last] = t->s.dim;
	t->padded = (t->s.len + BASE - 1) / BASE * BASE;
	t->ncol = t->padded / BASE;
	for (j = 0; j < t->n; j++) {
		uint32_t x = t->src[j];
		int type = pass_b_type(ed, x);

		if (t->s.dim != last)
			x = pass_b_transpose(ed, x, r, t->perm);
		if (t->padded != t->s.len) {
			memcpy(d, hlo_dims(m, hlo_sh(m, pass_b_shape(ed, x))),
				(size_t)r * sizeof *d);
			d[last] = t->padded;
			x = mk_pad(ed, x, t->init[j], pass_b_array(m, type, r,
				d), last, 0, t->padded - t->s.len);
		}
		t->src[j] = x;
		memcpy(d, hlo_dims(m, hlo_sh(m, pass_b_shape(ed, x))),
			(size_t)r * sizeof *d);
		d[last] = t->ncol;
		d[r] = BASE;
		t->tiled[j] = pass_b_array(m, type, r + 1, d);
	}
}

/* step 4: the last (first) column of row scan j, reshaped to rank r */
static uint32_t
last_col(Tree *t, uint32_t outer, uint32_t j)
{
	PassEdit *ed = t->ed;
	HloModule *m = ed->m;
	int r = t->s.rank, k;
	int64_t st[MAXR + 1], lim[MAXR + 1];
	uint32_t x = pass_rw_at(ed, outer, j);
	const int64_t *d = hlo_dims(m, hlo_sh(m, t->tiled[j]));

	for (k = 0; k <= r; k++) {
		st[k] = 0;
		lim[k] = d[k];
	}
	if (t->s.fwd)
		st[r] = BASE - 1;
	else
		lim[r] = 1;
	x = pass_b_slice(ed, x, st, lim, NULL);
	return pass_b_reshape(ed, x, r, lim);
}

/* step 6: the exclusive column scan j, sliced and broadcast over rows */
static uint32_t
col_bcast(Tree *t, uint32_t inner, uint32_t j)
{
	PassEdit *ed = t->ed;
	int r = t->s.rank, k;
	int64_t st[MAXR], lim[MAXR], dims[MAXR];
	uint32_t x = pass_rw_at(ed, inner, j);
	const int64_t *d = hlo_dims(ed->m, hlo_sh(ed->m,
		pass_b_shape(ed, t->cols[0])));

	for (k = 0; k < r; k++) {
		st[k] = 0;
		lim[k] = d[k];
		dims[k] = k;
	}
	if (!t->s.fwd) {
		st[r - 1] = 1;
		lim[r - 1] = t->ncol + 1;
	}
	x = pass_b_slice(ed, x, st, lim, NULL);
	return pass_b_bcast(ed, x, t->tiled[j], (uint32_t)r, dims);
}

/* xla's clone names: "<name>.clone", uniquified as ".clone.1", ... */
static void
clone_names(HloModule *m, uint32_t from, uint32_t c, uint32_t name)
{
	char buf[300];
	uint32_t i;

	m->comps[c].name = name;
	for (i = 0; i < m->comps[c].nins; i++) {
		snprintf(buf, sizeof buf, "%.280s.clone",
			hlo_cstr(m, m->comps[from].ins[i].name));
		m->comps[c].ins[i].name = pass_unique_name(m, buf);
	}
}

/* the reducer for output j of the map: the reducer itself, or for a
 * tuple root a clone rooted at the root's operand j (xla's
 * CloneWithReplacements: every instruction copied, the tuple dropped) */
static uint32_t
map_comp(HloModule *m, uint32_t comp, uint32_t j)
{
	HloComp *cp = &m->comps[comp];
	uint32_t c, r = cp->root, i, k, used = 0, name;
	char buf[300];

	if (hlo_sh(m, cp->ins[r].shape)->type != TY_TUPLE)
		return comp;
	snprintf(buf, sizeof buf, "%.280s.clone",
		hlo_cstr(m, m->comps[comp].name));
	name = pass_unique_name(m, buf);
	c = hlo_comp_clone(m, comp, ".clone");
	clone_names(m, comp, c, name);
	cp = &m->comps[c];
	cp->root = m->ids[cp->ins[r].ops + j];
	for (i = 0; i < cp->nins && !used; i++)
		for (k = 0; k < cp->ins[i].nops; k++)
			used |= m->ids[cp->ins[i].ops + k] == r;
	if (!used)
		m->comps[c].ins[r].flags |= HI_DEAD;
	hlo_comp_compact(m, c);
	return c;
}

/* steps 7 to 9 for output j: map the two scans together, reshape,
 * transpose back, slice the padding off, pad an exclusive scan */
static uint32_t
combine(Tree *t, const uint32_t *mops, uint32_t j, uint32_t shape)
{
	PassEdit *ed = t->ed;
	HloModule *m = ed->m;
	int r = t->s.rank, k;
	int64_t dims[MAXR + 1], st[MAXR];
	uint32_t c = map_comp(m, t->comp, j), x, src = t->src[j];
	HloAttr a;

	for (k = 0; k <= r; k++)
		dims[k] = k;
	x = pass_b_op(ed, HOP_MAP, t->tiled[j], 2 * t->n, mops);
	a = hlo_mk_ints(m, A_DIMENSIONS, dims, (uint32_t)r + 1);
	hlo_set_attrs(m, ed->c, x, 1, &a);
	hlo_set_called(m, ed->c, x, 1, &c);
	x = pass_b_op(ed, HOP_RESHAPE, pass_b_shape(ed, src), 1, &x);
	if (t->s.dim != r - 1)
		x = pass_b_transpose(ed, x, r, t->perm);
	if (t->padded != t->s.len) {
		memcpy(dims, hlo_dims(m, hlo_sh(m, shape)),
			(size_t)r * sizeof *dims);
		dims[t->s.dim] = t->s.len;
		memset(st, 0, (size_t)r * sizeof *st);
		x = pass_b_slice(ed, x, st, dims, NULL);
	}
	if (t->s.excl)
		x = mk_pad(ed, x, t->init[j], shape, t->s.dim,
			t->s.fwd ? 1 : 0, t->s.fwd ? 0 : 1);
	return x;
}

static void
rewrite(PassEdit *ed, uint32_t i, const Scan *s)
{
	HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);
	uint32_t shape = in->shape, n = in->nops / 2, j, outer, inner, res;
	uint32_t *mops;
	int64_t d[MAXR];
	Tree t;

	memset(&t, 0, sizeof t);
	t.ed = ed;
	t.s = *s;
	t.n = n;
	t.tuple = hlo_sh(m, shape)->type == TY_TUPLE;
	t.comp = m->ids[in->called];
	t.src = pass_alloc(ed->ctx, n * sizeof *t.src);
	t.init = pass_alloc(ed->ctx, n * sizeof *t.init);
	t.tiled = pass_alloc(ed->ctx, n * sizeof *t.tiled);
	t.cols = pass_alloc(ed->ctx, n * sizeof *t.cols);
	t.sh = pass_alloc(ed->ctx, n * sizeof *t.sh);
	mops = pass_alloc(ed->ctx, 2 * n * sizeof *mops);
	for (j = 0; j < n; j++) {
		t.src[j] = pass_opnd(ed, i, j);
		t.init[j] = pass_opnd(ed, i, n + j);
	}
	tile(&t);
	for (j = 0; j < n; j++)
		mops[j] = pass_b_op(ed, HOP_RESHAPE, t.tiled[j], 1, &t.src[j]);
	outer = mk_rw(&t, mops, t.tiled, window(m, s->rank + 1, BASE,
		BASE - 1, s->fwd));
	for (j = 0; j < n; j++) {
		t.cols[j] = last_col(&t, outer, j);
		memcpy(d, hlo_dims(m, hlo_sh(m, pass_b_shape(ed, t.cols[j]))),
			(size_t)s->rank * sizeof *d);
		d[s->rank - 1] = t.ncol + 1;
		t.sh[j] = pass_b_array(m, pass_b_type(ed, t.cols[j]), s->rank,
			d);
	}
	inner = mk_rw(&t, t.cols, t.sh, window(m, s->rank, t.ncol, t.ncol,
		s->fwd));
	for (j = 0; j < n; j++)
		mops[n + j] = col_bcast(&t, inner, j);
	for (j = 0; j < n; j++)
		mops[j] = pass_rw_at(ed, outer, j);
	for (j = 0; j < n; j++)
		t.sh[j] = combine(&t, mops, j, t.tuple ?
			hlo_tuple_elems(m, hlo_sh(m, shape))[j] : shape);
	res = t.tuple ? pass_b_op(ed, HOP_TUPLE, shape, n, t.sh) : t.sh[0];
	pass_replace_uses(ed, i, res);
	pass_remove(ed, i);
}

static int
rewrite_one(PassEdit *ed, uint32_t i, void *arg)
{
	const HloInstr *in = pass_ins(ed, i);
	Scan s;

	(void)arg;
	if (in->op != HOP_REDUCEWINDOW || in->nops < 2 || in->ncalled != 1 ||
	    ed->ctl[i])
		return 0;
	if (is_scan(ed, i, &s)) {
		rewrite(ed, i, &s);
		return 1;
	}
	if (s.rank != 1)
		return 0;
	pass_rw_to_rank2(ed, i);
	return 1;
}

int
pass_reduce_window_rewriter(HloModule *m, PassCtx *ctx)
{
	return pass_visit_instrs(m, ctx, PASS_SKIP_NONE |
		PASS_VISIT_UNFORWARDED, rewrite_one, NULL);
}
