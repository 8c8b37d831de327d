/* fusion_merger.c: the cost side of "fusion-merger" (the merging itself
 * is in fusion.c), from openxla/xla at 9d7df89334 (the last FusionMerger
 * that decides by bytes transferred, before the performance model):
 * GpuHloCostAnalysis's code-size model (gpu_hlo_cost_analysis.cc,
 * FusionCalculateUtilizations and ProducerConsumerMergedTooLarge), the
 * bytes a fusion reads (fusion_merger.cc) and gpu_fusible.cc's
 * TransposesMostData, IfFusedReadsElementsMultipleTimes and
 * IsExpensiveToRepeat.
 *
 * The code-size model is what bounds the merger: a fusion merged into
 * users that are merged in turn is copied once per path, and without it
 * a chain of small fusions with several users each grew a module of 6 k
 * instructions past 7 M. Each instruction of a fused computation has a
 * set of "element-wise use roots": the root of the computation, and
 * every operand of a non-element-wise instruction (which may read an
 * element several times, so its operand is emitted once more per use).
 * The times an instruction is emitted is the sum over its roots of
 * theirs; the computation's IR size is the sum over its instructions. A
 * merge whose IR size, times 2 to the power of the basic-block splits
 * (instructions that invalidate the element cache, times emitted), is
 * over 10,000, or that has over 10 splits, is refused. */
#include <stdlib.h>
#include <string.h>

#include "fusion.h"
#include "fusion_edit.h"
#include "fusion_merger.h"

/* ElementalIrEmitter::OpInvalidatesCache */
static int
invalidates_cache(int op)
{
	return op == HOP_CONCAT || op == HOP_DOT || op == HOP_DYNUPDSLICE ||
		op == HOP_PAD || op == HOP_REDUCE || op == HOP_REDUCEWINDOW;
}

typedef struct {
	uint32_t *v, n, cap;
} RootSet;

/* dst |= src; mark: scratch per instruction, stamp a value not in it */
static void
set_union(RootSet *dst, const RootSet *src, uint32_t *mark, uint32_t *stamp)
{
	uint32_t k;

	if (src->n == 0)
		return;
	(*stamp)++;
	for (k = 0; k < dst->n; k++)
		mark[dst->v[k]] = *stamp;
	for (k = 0; k < src->n; k++) {
		if (mark[src->v[k]] == *stamp)
			continue;
		dst->v = hlo_grow(dst->v, dst->n, &dst->cap, 4, sizeof *dst->v);
		dst->v[dst->n++] = src->v[k];
		mark[src->v[k]] = *stamp;
	}
}

static void
set_add(RootSet *s, uint32_t x)
{
	uint32_t k;

	for (k = 0; k < s->n; k++)
		if (s->v[k] == x)
			return;
	s->v = hlo_grow(s->v, s->n, &s->cap, 4, sizeof *s->v);
	s->v[s->n++] = x;
}

/* the element-wise propagation of FusionCalculateUtilizations: an
 * element-wise instruction, a tuple or a get-tuple-element passes its
 * roots to its operands */
static int
passes_roots(const HloInstr *in)
{
	return fu_elementwise(in) || in->op == HOP_TUPLE || in->op == HOP_GTE;
}

void
fu_ir_size(const HloModule *m, uint32_t c, FuIrSize *s)
{
	const HloComp *cp = &m->comps[c];
	uint32_t n = cp->nins, *order, *mark, stamp = 0, t, k, x, op;
	int cnt;
	RootSet *roots;
	double big = 1e30;

	memset(s, 0, sizeof *s);
	s->ir = xcalloc(n + 1, sizeof *s->ir);
	order = xreallocarray(NULL, n + 1, sizeof *order);
	cnt = hlo_topo(m, c, order);
	if (cnt < 0 || cp->root >= n) {
		s->over = 1;
		free(order);
		return;
	}
	roots = xcalloc(n + 1, sizeof *roots);
	mark = xcalloc(n + 1, sizeof *mark);
	s->ir[cp->root] = 1;
	set_add(&roots[cp->root], cp->root);
	for (t = (uint32_t)cnt; t-- > 0 && !s->over;) {
		const HloInstr *in = &cp->ins[order[t]];

		x = order[t];
		for (k = 0; k < roots[x].n; k++)
			if (roots[x].v[k] != x)
				s->ir[x] += s->ir[roots[x].v[k]];
		if (s->ir[x] > big)
			s->ir[x] = big;
		s->total += s->ir[x];
		if (invalidates_cache(in->op))
			s->splits += s->ir[x];
		s->over = s->total > FU_MAX_IR_SIZE;
		for (k = 0; k < in->nops; k++) {
			op = hlo_ops(m, in)[k];
			if (passes_roots(in)) {
				set_union(&roots[op], &roots[x], mark, &stamp);
			} else {
				set_add(&roots[op], op);
				s->ir[op] += s->ir[x];
			}
		}
	}
	for (k = 0; k < n; k++)
		free(roots[k].v);
	free(roots);
	free(mark);
	free(order);
}

void
fu_ir_size_free(FuIrSize *s)
{
	free(s->ir);
	s->ir = NULL;
}

int
fu_merged_too_large(const FuIrSize *p, const FuIrSize *cs, uint32_t prm)
{
	double rep = prm == HLO_NONE ? 0 : (double)(int64_t)cs->ir[prm];
	double splits, size;

	if (cs->over || (p->over && rep > 0))
		return 1;
	splits = (double)(int64_t)(rep * p->splits + cs->splits);
	if (splits > FU_MAX_SPLITS)
		return 1;
	size = (double)(int64_t)(p->total * rep + cs->total);
	return size * (double)(1 << (int)splits) > FU_MAX_IR_SIZE;
}

/* CalculateBytesReadByFusionParameter for instruction i of c (users: c's
 * users): a tuple through its get-tuple-elements; an array read only by
 * slices and dynamic-slices reads what they take */
static double
param_bytes(const HloModule *m, uint32_t c, const HloUsers *us, uint32_t i,
	int depth)
{
	const HloComp *cp = &m->comps[c];
	uint32_t k, u;
	double b = 0;
	int all_slices = 1;

	if (hlo_sh(m, cp->ins[i].shape)->type == TY_TUPLE) {
		if (depth > 64)
			return 0;
		for (k = us->start[i]; k < us->start[i + 1]; k++)
			b += param_bytes(m, c, us, us->list[k], depth + 1);
		return b;
	}
	for (k = us->start[i]; k < us->start[i + 1]; k++) {
		u = us->list[k];
		if (cp->ins[u].op != HOP_SLICE && cp->ins[u].op != HOP_DYNSLICE)
			all_slices = 0;
		b += (double)hlo_shape_bytes(m, cp->ins[u].shape);
	}
	return all_slices ? b : (double)hlo_shape_bytes(m, cp->ins[i].shape);
}

double
fu_bytes_read(const HloModule *m, uint32_t c)
{
	const HloComp *cp = &m->comps[c];
	HloUsers us;
	uint32_t i;
	double b = 0;

	hlo_users(m, c, &us);
	for (i = 0; i < cp->nins; i++)
		if (!(cp->ins[i].flags & HI_DEAD) && cp->ins[i].op ==
		    HOP_PARAMETER)
			b += param_bytes(m, c, &us, i, 0);
	hlo_users_free(&us);
	return b;
}

/* IsPhysicallyTransposing of a fused instruction */
static int
transposing(const HloModule *m, uint32_t c, const HloInstr *in)
{
	const HloInstr *op;
	const int64_t *perm;
	uint32_t n;

	if (in->op == HOP_COPY)
		return 1;
	if (in->op != HOP_TRANSPOSE || in->nops != 1)
		return 0;
	op = &m->comps[c].ins[hlo_ops(m, in)[0]];
	perm = hlo_attr_ints(m, in, A_DIMENSIONS, &n);
	return !perm || !pass_transpose_is_bitcast(m, op->shape, in->shape,
		perm, n);
}

int
fu_transposes_most_data(const HloModule *m, uint32_t c, uint32_t shape)
{
	const HloComp *cp = &m->comps[c];
	int64_t out = hlo_shape_elems(m, shape);
	double score = 0;
	uint32_t i;

	for (i = 0; i < cp->nins; i++) {
		const HloInstr *in = &cp->ins[i];

		if ((in->flags & HI_DEAD) || !transposing(m, c, in))
			continue;
		score += (double)hlo_shape_elems(m, in->shape) /
			(double)(out > 0 ? out : 1);
		if (score >= 0.5)
			return 1;
	}
	return 0;
}

/* the product of a reduce-window's window sizes; window sizes over
 * strides: *overlap */
static int64_t
window_size(const HloModule *m, const HloInstr *in, int *overlap)
{
	uint32_t n, d;
	const int64_t *w = hlo_attr_ints(m, in, A_WINDOW, &n);
	int64_t r = 1;

	*overlap = 0;
	for (d = 0; w && d + 7 <= n; d += 7) {
		r *= w[d];
		*overlap |= w[d] > w[d + 1];
	}
	return r;
}

int
fu_heavy_to_repeat(const HloModule *m, uint32_t c)
{
	const HloComp *cp = &m->comps[c];
	uint32_t i;
	int ov;

	for (i = 0; i < cp->nins; i++)
		if (!(cp->ins[i].flags & HI_DEAD) && cp->ins[i].op ==
		    HOP_REDUCEWINDOW && window_size(m, &cp->ins[i], &ov) > 10)
			return 1;
	return 0;
}

/* IfFusedReadsElementsMultipleTimes */
static int
reads_repeatedly(const HloModule *m, uint32_t c, const HloInstr *in)
{
	int ov;

	if ((in->op == HOP_GATHER || in->op == HOP_BROADCAST) && in->nops)
		return hlo_shape_elems(m, in->shape) > hlo_shape_elems(m,
			m->comps[c].ins[hlo_ops(m, in)[0]].shape);
	if (in->op == HOP_REDUCEWINDOW) {
		window_size(m, in, &ov);
		return ov;
	}
	return 0;
}

int
fu_reads_param_repeatedly(const HloModule *m, uint32_t c, uint32_t prm)
{
	const HloComp *cp = &m->comps[c];
	uint32_t *order, t, k, x;
	uint8_t *on;
	int cnt, r = 0;

	if (prm == HLO_NONE)
		return 0;
	order = xreallocarray(NULL, cp->nins + 1, sizeof *order);
	on = xcalloc(cp->nins + 1, 1);
	cnt = hlo_topo(m, c, order);
	on[prm] = 1;
	for (t = 0; cnt > 0 && t < (uint32_t)cnt && !r; t++) {
		const HloInstr *in = &cp->ins[order[t]];

		x = order[t];
		for (k = 0; k < in->nops && !on[x]; k++)
			on[x] = on[hlo_ops(m, in)[k]];
		r = on[x] && reads_repeatedly(m, c, in);
	}
	free(on);
	free(order);
	return r;
}

uint32_t
fu_subshape_count(const HloModule *m, uint32_t s)
{
	const HloShape *sh = hlo_sh(m, s);
	uint32_t k, n = 1;

	if (sh->type == TY_TUPLE)
		for (k = 0; k < sh->ntuple; k++)
			n += fu_subshape_count(m, hlo_tuple_elems(m, sh)[k]);
	return n;
}

/* NumUnnestedReductions of fused computation c */
static uint32_t
count_reduces(const HloModule *m, uint32_t c)
{
	const HloComp *cp = &m->comps[c];
	uint32_t i, n = 0;
	int row;

	for (i = 0; i < cp->nins; i++)
		n += !(cp->ins[i].flags & HI_DEAD) && fu_contiguous_reduce(m,
			c, i, &row);
	return n;
}

int
fu_reduce_root(const HloModule *m, uint32_t c)
{
	const HloComp *cp = &m->comps[c];
	const HloInstr *r = &cp->ins[cp->root];
	uint32_t k;
	int row;

	if (r->op != HOP_TUPLE)
		return fu_contiguous_reduce(m, c, cp->root, &row);
	for (k = 0; k < r->nops; k++)
		if (fu_contiguous_reduce(m, c, hlo_ops(m, r)[k], &row))
			return 1;
	return 0;
}

int
fu_has_expensive(const HloModule *m, uint32_t c)
{
	const HloComp *cp = &m->comps[c];
	const HloInstr *in, *op0;
	uint32_t i;

	for (i = 0; i < cp->nins; i++) {
		in = &cp->ins[i];
		if ((in->flags & HI_DEAD) || in->op == HOP_PARAMETER)
			continue;
		op0 = NULL;
		if (in->nops > 0) {
			op0 = &cp->ins[hlo_ops(m, in)[0]];
			if (op0->op == HOP_BROADCAST && op0->nops > 0)
				op0 = &cp->ins[hlo_ops(m, op0)[0]];
		}
		if (fu_expensive(m, in, op0, FU_GPU))
			return 1;
	}
	return 0;
}

int
fu_fits_in_budget(const HloModule *m, uint32_t xshape, uint32_t xc,
	const uint32_t *xo, uint32_t nx, uint32_t pshape, uint32_t pc,
	const uint32_t *po, uint32_t np, uint32_t x, uint32_t p)
{
	uint32_t outs, n = 0, k, j;

	if (count_reduces(m, xc) + count_reduces(m, pc) > FU_MAX_REDUCES)
		return 0;
	outs = fu_subshape_count(m, xshape) + fu_subshape_count(m, pshape);
	if (nx + np - 1 + outs <= FU_MAX_OPERANDS)
		return 1;
	for (k = 0; k < nx; k++)	/* the distinct operands but x, p */
		n += xo[k] != p && xo[k] != x;
	for (k = 0; k < np; k++) {
		for (j = 0; j < nx && xo[j] != po[k]; j++)
			;
		n += j == nx && po[k] != x && po[k] != p;
	}
	return n <= nx || n + outs <= FU_MAX_OPERANDS;
}
