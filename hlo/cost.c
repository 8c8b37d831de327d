/* cost.c: instruction counts and xla's HloCostAnalysis
 * (xla/service/hlo_cost_analysis.cc) redone over our IR.
 *
 * the module's flops, transcendentals and bytes accessed are those of the
 * entry computation; a computation's figures are the sum over its live
 * instructions (all of them, reachable from the root or not, as xla's
 * HloComputation::Accept visits them); an instruction that calls
 * computations folds in their figures as xla does:
 *   while        body + condition, once (the trip count is unknown)
 *   conditional  the largest branch, property by property
 *   call, async-start, scan   the called computation, bytes included
 *   fusion       the fused flops and transcendentals; bytes only at the
 *                fusion boundary (see fusioncost)
 *   map, reduce, reduce-window, select-and-scatter, scatter
 *                flops and transcendentals of the called computation
 *                times the number of applications; default bytes
 * per-opcode rules are at instrcost. figures are doubles: exact up to
 * 2^53, and no integer overflow on any input.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "cost.h"

typedef struct {
	double f, t, b;		/* flops, transcendentals, bytes */
} Props;

typedef struct {
	const HloModule *m;
	Props *cp;		/* per computation, filled callees first */
	double *el, *sz;	/* per shape: elems and size, computed once
				 * per call (the hot paths read them) */
} Ctx;

enum {
	MAXDEPTH = 256,		/* tuple nesting the byte sums follow */
	MAXNEST = 32,		/* nested fusions followed for reads */
	MAXLOOP = 1 << 22,	/* per-dim work limit of the conv count */
};

/* shapes. bytes are xla's ShapeUtil::ByteSizeOf(shape, 8) with the
 * default layout: arrays elements * element bytes (sub-byte types take a
 * byte), tuples 8 per element, tokens 0, opaque 8 */

static double
tybytes(int t)
{
	switch (t) {
	case TY_INVALID: case TY_TUPLE: case TY_TOKEN: case TY_BUFFER:
		return 0;
	case TY_OPAQUE:
		return 8;
	}
	return hlo_typeinfo[t].bits <= 8 ? 1 : hlo_typeinfo[t].bits / 8;
}

static int
istuple(const HloModule *m, uint32_t s)
{
	return m->shapes[s].type == TY_TUPLE;
}

/* elements of an array shape; 0 for tuples, tokens and opaque */
static double
elems(const HloModule *m, uint32_t s)
{
	const HloShape *sh = &m->shapes[s];
	double n = 1;
	int i;

	if (sh->type == TY_TUPLE || sh->type == TY_TOKEN ||
	    sh->type == TY_OPAQUE)
		return 0;
	for (i = 0; i < sh->rank; i++) {
		int64_t d = m->ints[sh->dims + i];

		n *= d > 0 ? (double)d : 0;
	}
	return n;
}

static double
size(const HloModule *m, uint32_t s)
{
	const HloShape *sh = &m->shapes[s];

	if (sh->type == TY_TUPLE)
		return 8.0 * sh->ntuple;
	if (sh->type == TY_OPAQUE)
		return 8;
	return elems(m, s) * tybytes(sh->type);
}

static int64_t
dim(const HloModule *m, uint32_t s, int64_t d)
{
	const HloShape *sh = &m->shapes[s];

	if (d < 0 || d >= sh->rank || sh->type == TY_TUPLE)
		return 0;
	return m->ints[sh->dims + d] > 0 ? m->ints[sh->dims + d] : 0;
}

/* sums elements and bytes over the array leaves of s */
static void
leaves(const HloModule *m, uint32_t s, int depth, double *el, double *by)
{
	const HloShape *sh = &m->shapes[s];
	uint32_t i;

	if (sh->type != TY_TUPLE) {
		*el += elems(m, s);
		*by += size(m, s);
		return;
	}
	if (depth >= MAXDEPTH)
		return;
	for (i = 0; i < sh->ntuple; i++)
		leaves(m, m->ids[sh->tuple + i], depth + 1, el, by);
}

static double
leafbytes(const HloModule *m, uint32_t s)
{
	double el = 0, by = 0;

	leaves(m, s, 0, &el, &by);
	return by;
}

static double
leafelems(const HloModule *m, uint32_t s)
{
	double el = 0, by = 0;

	leaves(m, s, 0, &el, &by);
	return el;
}

/* structural checks, so that nothing below indexes out of a pool */

static int
checkshapes(const HloModule *m, HloError *e)
{
	uint32_t s, k;

	for (s = 0; s < m->nshapes; s++) {
		const HloShape *sh = &m->shapes[s];
		uint64_t nd = (uint64_t)sh->rank *
			(sh->flags & SH_LAYOUT ? 2 : 1);

		if (sh->type >= TY_COUNT)
			return hlo_err(e, "error: shape %u: bad element type",
				s);
		if (sh->type == TY_TUPLE) {
			if ((uint64_t)sh->tuple + sh->ntuple > m->nids)
				return hlo_err(e, "error: shape %u: bad tuple",
					s);
			for (k = 0; k < sh->ntuple; k++)
				if (m->ids[sh->tuple + k] >= m->nshapes)
					return hlo_err(e, "error: shape %u: "
						"bad tuple element", s);
		} else if ((uint64_t)sh->dims + nd > m->nints) {
			return hlo_err(e, "error: shape %u: bad dimensions", s);
		}
	}
	return 0;
}

static const char *
compname(const HloModule *m, uint32_t c)
{
	return m->comps[c].name < m->nbytes ? hlo_cstr(m, m->comps[c].name) :
		"?";
}

static int
checkattrs(const HloModule *m, const HloInstr *in)
{
	const HloAttr *a;
	uint32_t k;

	if ((uint64_t)in->attrs + in->nattrs > m->nattrv)
		return -1;
	for (k = 0; k < in->nattrs; k++) {
		a = &m->attrv[in->attrs + k];
		switch (a->kind) {
		case K_INT: case K_BOOL:
			break;
		case K_INTS: case K_SLICE: case K_PAD: case K_WINDOW:
			if (a->v < 0 || (uint64_t)a->v + a->n > m->nints)
				return -1;
			break;
		default:
			if (a->v == HLO_ELIDED)
				break;
			if (a->v < 0 || (uint64_t)a->v + a->n > m->nbytes)
				return -1;
		}
	}
	return 0;
}

static int
checkcomp(const HloModule *m, uint32_t c, HloError *e)
{
	const HloComp *cp = &m->comps[c];
	const char *cn = compname(m, c);
	uint32_t i, k;

	if (cp->nins && cp->root >= cp->nins)
		return hlo_err_in(e, NULL, NULL, cn, NULL, "bad root");
	for (i = 0; i < cp->nins; i++) {
		const HloInstr *in = &cp->ins[i];

		if (in->flags & HI_DEAD)
			continue;
		if (in->op >= HOP_COUNT || in->shape >= m->nshapes ||
		    (uint64_t)in->ops + in->nops > m->nids ||
		    (uint64_t)in->called + in->ncalled > m->nids ||
		    checkattrs(m, in) < 0)
			return hlo_err_in(e, NULL, NULL, cn, NULL, "instruction "
				"%u is malformed", i);
		for (k = 0; k < in->nops; k++)
			if (m->ids[in->ops + k] >= cp->nins ||
			    cp->ins[m->ids[in->ops + k]].shape >= m->nshapes)
				return hlo_err_in(e, NULL, NULL, cn, NULL,
					"instruction %u: bad operand", i);
		for (k = 0; k < in->ncalled; k++)
			if (m->ids[in->called + k] >= m->ncomps)
				return hlo_err_in(e, NULL, NULL, cn, NULL,
					"instruction %u: bad called "
					"computation", i);
	}
	return 0;
}

/* computations reachable from the entry through live instructions,
 * callees first; returns the count, -1 on a cycle or a malformed module */
static int64_t
comporder(const HloModule *m, uint32_t *order, HloError *e)
{
	struct frame { uint32_t c, i, k; } *stk;
	uint8_t *st;		/* 0 unseen, 1 on the stack, 2 done */
	uint32_t sp = 0, n = 0, callee;
	int64_t r = -1;

	if (m->entry >= m->ncomps)
		return hlo_err(e, "error: module has no entry computation");
	st = xcalloc(m->ncomps, 1);
	stk = xreallocarray(NULL, m->ncomps, sizeof *stk);
	if (checkcomp(m, m->entry, e) < 0)
		goto out;
	stk[sp++] = (struct frame){m->entry, 0, 0};
	st[m->entry] = 1;
	while (sp) {
		struct frame *f = &stk[sp - 1];
		const HloComp *cp = &m->comps[f->c];
		const HloInstr *in;

		if (f->i >= cp->nins) {
			st[f->c] = 2;
			order[n++] = f->c;
			sp--;
			continue;
		}
		in = &cp->ins[f->i];
		if ((in->flags & HI_DEAD) || f->k >= in->ncalled) {
			f->i++;
			f->k = 0;
			continue;
		}
		callee = m->ids[in->called + f->k++];
		if (st[callee] == 1) {
			hlo_err(e, "error: computation %s calls itself",
				compname(m, callee));
			goto out;
		}
		if (st[callee] == 0) {
			if (checkcomp(m, callee, e) < 0)
				goto out;
			st[callee] = 1;
			stk[sp++] = (struct frame){callee, 0, 0};
		}
	}
	r = n;
out:
	free(st);
	free(stk);
	return r;
}

/* instruction helpers */

static const HloInstr *
operand(const HloModule *m, uint32_t c, const HloInstr *in, uint32_t k)
{
	return &m->comps[c].ins[m->ids[in->ops + k]];
}

static uint32_t
opshape(const HloModule *m, uint32_t c, const HloInstr *in, uint32_t k)
{
	return operand(m, c, in, k)->shape;
}

static double
defaultbytes(const Ctx *x, uint32_t c, const HloInstr *in)
{
	const HloModule *m = x->m;
	double b = x->sz[in->shape];
	uint32_t k;

	for (k = 0; k < in->nops; k++)
		b += x->sz[opshape(m, c, in, k)];
	return b;
}

static const int64_t *
window(const HloModule *m, const HloInstr *in, uint32_t *ndims)
{
	const HloAttr *a = hlo_attr(m, in, A_WINDOW);

	if (!a || a->kind != K_WINDOW) {
		*ndims = 0;
		return NULL;
	}
	*ndims = a->n / 7;
	return m->ints + a->v;
}

static double
windowelems(const HloModule *m, const HloInstr *in)
{
	uint32_t n, d;
	const int64_t *w = window(m, in, &n);
	double el = 1;

	for (d = 0; d < n; d++)
		el *= w[7 * d] > 0 ? (double)w[7 * d] : 0;
	return el;
}

/* the flops and transcendentals of computation c, times n */
static void
scaled(const Ctx *x, const HloInstr *in, uint32_t k, double n, Props *p)
{
	const Props *s;

	if (k >= in->ncalled)
		return;
	s = &x->cp[x->m->ids[in->called + k]];
	p->f += s->f * n;
	p->t += s->t * n;
}

/* dot: 2 * output elements * product of the lhs contracting dims.
 * ragged-dot first deletes dimension i of the output for each i below
 * the number of rhs group dims, exactly as xla does */
static double
dotflops(const HloModule *m, uint32_t c, const HloInstr *in, int ragged)
{
	uint32_t lhs, n, k, ng = 0;
	const int64_t *cd;
	const HloShape *out = &m->shapes[in->shape];
	double w = 1, el;

	if (in->nops < 1 || out->type == TY_TUPLE)
		return 0;
	lhs = opshape(m, c, in, 0);
	cd = hlo_attr_ints(m, in, A_LHS_CONTRACT, &n);
	for (k = 0; k < n; k++) {
		if (cd[k] < 0 || cd[k] >= m->shapes[lhs].rank)
			return 0;
		w *= (double)dim(m, lhs, cd[k]);
	}
	el = elems(m, in->shape);
	if (ragged)
		hlo_attr_ints(m, in, A_RHS_GROUP, &ng);
	if (ng) {
		uint8_t *gone = xcalloc(out->rank + 1, 1);
		uint32_t g, d, left;

		for (g = 0; g < ng; g++) {
			for (d = 0, left = g; d < out->rank; d++)
				if (!gone[d] && left-- == 0)
					break;
			if (d < out->rank)
				gone[d] = 1;
		}
		for (el = 1, d = 0; d < out->rank; d++)
			if (!gone[d])
				el *= (double)m->ints[out->dims + d];
		free(gone);
	}
	return 2 * el * w;
}

/* convolution dimension numbers from dim_labels; without them, xla's
 * default bf01_oi01->bf01 */
static int
convdims(const HloModule *m, const HloInstr *in, int rank, HloConvDnums *d)
{
	uint32_t n;
	const char *w = hlo_attr_word(m, in, A_DIM_LABELS, &n);
	int i;

	if (w)
		return hlo_conv_dnums(w, n, rank, d);
	if (rank < 2 || rank > HLO_CONV_MAXSP + 2)
		return -1;
	d->nsp = rank - 2;
	d->in_batch = d->out_batch = d->k_out = 0;
	d->in_feature = d->out_feature = d->k_in = 1;
	for (i = 0; i < d->nsp; i++)
		d->in_spatial[i] = d->k_spatial[i] = d->out_spatial[i] = i + 2;
	return 0;
}

static __int128
floordiv(__int128 a, __int128 b)
{
	__int128 q = a / b;

	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

/* inverse of a modulo mod (gcd(a, mod) == 1) */
static int64_t
modinv(int64_t a, int64_t mod)
{
	__int128 t = 0, nt = 1, r = mod, nr = a % mod, q, tmp;

	while (nr) {
		q = r / nr;
		tmp = t - q * nt, t = nt, nt = tmp;
		tmp = r - q * nr, r = nr, nr = tmp;
	}
	return (int64_t)(t < 0 ? t + mod : t);
}

static int64_t
gcd(int64_t a, int64_t b)
{
	while (b) {
		int64_t t = a % b;

		a = b, b = t;
	}
	return a;
}

/* #{x in [0, n): step*x + c is one of 0, bd, 2bd, ..., (in-1)*bd} */
static int64_t
hits(int64_t step, __int128 c, int64_t n, int64_t in, int64_t bd)
{
	__int128 lo, hi, r;
	int64_t g, mod, x0;

	lo = floordiv(-c + step - 1, step);
	hi = floordiv((__int128)(in - 1) * bd - c, step);
	if (lo < 0)
		lo = 0;
	if (hi > n - 1)
		hi = n - 1;
	if (lo > hi)
		return 0;
	if (bd == 1)
		return (int64_t)(hi - lo + 1);
	r = -c % bd;
	if (r < 0)
		r += bd;
	g = gcd(step, bd);
	if (r % g)
		return 0;
	mod = bd / g;
	x0 = (int64_t)((r / g) * modinv((step / g) % mod, mod) % mod);
	return (int64_t)(floordiv(hi - x0, mod) - floordiv(lo - 1 - x0, mod));
}

/* xla's valid-position count of one spatial dim: (kernel, output)
 * position pairs that read a real input element, not padding or a
 * base-dilation hole. counted in closed form along the longer of the
 * two; past MAXLOOP positions on both, every pair counts */
static double
validpos(int64_t k, int64_t o, int64_t in, const int64_t *w)
{
	int64_t s = w[1] > 0 ? w[1] : 1, pl = w[2];
	int64_t wd = w[4] > 0 ? w[4] : 1, bd = w[5] > 0 ? w[5] : 1, i;
	double v = 0;

	if (k <= 0 || o <= 0 || in <= 0)
		return 0;
	if (k > MAXLOOP && o > MAXLOOP)
		return (double)k * o;
	if (k <= o)
		for (i = 0; i < k; i++)
			v += hits(s, (__int128)i * wd - pl, o, in, bd);
	else
		for (i = 0; i < o; i++)
			v += hits(wd, (__int128)i * s - pl, k, in, bd);
	return v;
}

/* 2 * (in features / feature groups) * out features * (batch / batch
 * groups) * product of the valid-position counts */
static double
convflops(const HloModule *m, uint32_t c, const HloInstr *in)
{
	static const int64_t one[7] = {1, 1, 0, 0, 1, 1, 0};
	uint32_t lhs, rhs, out = in->shape, nw, sd;
	const int64_t *w;
	int64_t fgc, bgc;
	HloConvDnums d;
	double v = 1;

	if (in->nops < 2 || istuple(m, out))
		return 0;
	lhs = opshape(m, c, in, 0);
	rhs = opshape(m, c, in, 1);
	if (m->shapes[rhs].rank != m->shapes[lhs].rank ||
	    m->shapes[out].rank != m->shapes[lhs].rank ||
	    convdims(m, in, m->shapes[lhs].rank, &d) < 0)
		return 0;
	w = window(m, in, &nw);
	if (nw != (uint32_t)d.nsp)
		return 0;
	for (sd = 0; sd < nw; sd++)
		v *= validpos(dim(m, rhs, d.k_spatial[sd]),
			dim(m, out, d.out_spatial[sd]),
			dim(m, lhs, d.in_spatial[sd]), w + 7 * sd);
	if (nw == 0)
		v = validpos(1, 1, 1, one);
	fgc = hlo_attr_int(m, in, A_FEATURE_GROUP_COUNT, 1);
	bgc = hlo_attr_int(m, in, A_BATCH_GROUP_COUNT, 1);
	if (fgc <= 0)
		fgc = 1;
	if (bgc <= 0)
		bgc = 1;
	return 2.0 * (double)(dim(m, lhs, d.in_feature) / fgc) *
		(double)dim(m, out, d.out_feature) *
		(double)(dim(m, lhs, d.in_batch) / bgc) * v;
}

/* reduce-window: reducer cost * (window elements - 1) * output elements,
 * with xla's special case of a window that emulates reduce + broadcast
 * along one dimension */
static double
rwcount(const HloModule *m, const HloInstr *in)
{
	uint32_t nw, d, nred = 0, npad = 0;
	const int64_t *w = window(m, in, &nw);
	uint32_t out = in->shape;
	double wel = windowelems(m, in), outel, od;

	outel = istuple(m, out) ? (m->shapes[out].ntuple ?
		elems(m, m->ids[m->shapes[out].tuple]) : 0) : elems(m, out);
	for (d = 0; d < nw; d++) {
		nred += w[7 * d] != 1;
		npad += w[7 * d + 2] != 0 || w[7 * d + 3] != 0;
	}
	if (nred == 1 && npad == 1 && !istuple(m, out))
		for (d = 0; d < nw; d++) {
			const int64_t *x = w + 7 * d;

			if (x[0] == 1 || !x[2] || !x[3] || x[2] != x[3] ||
			    x[0] != 2 * x[2] + 1)
				continue;
			if (x[2] != dim(m, out, d) - 1 || x[2] + 1 <= 0)
				break;
			od = (double)(x[2] + 1);
			return floor(outel / od) + od - 1;
		}
	return (wel - 1) * outel;
}

static int
log2ceil(double n)
{
	int k = 0;

	while (k < 1024 && ldexp(1, k) < n)
		k++;
	return k;
}

static int
log2floor(int64_t n)
{
	int k = -1;

	while (n) {
		n >>= 1;
		k++;
	}
	return k;
}

static double
fftflops(const HloModule *m, uint32_t c, const HloInstr *in)
{
	uint32_t n, k, s;
	const int64_t *len = hlo_attr_ints(m, in, A_FFT_LENGTH, &n);
	double f = 1;

	if (in->nops < 1)
		return 0;
	s = opshape(m, c, in, 0);
	if (istuple(m, s))
		s = m->shapes[s].ntuple ? m->ids[m->shapes[s].tuple] : s;
	for (k = 0; k < n; k++)
		f *= len[k] > 0 ? log2floor(len[k]) : 0;
	return 2.0 * 4 * f * elems(m, s);
}

/* xla's HloInstruction::IsEffectiveBitcast for a transpose: the
 * permutation maps the output layout onto the operand's (default
 * layouts where none is given) */
static int
transposebitcast(const HloModule *m, uint32_t c, const HloInstr *in)
{
	const HloShape *a, *b;
	const int64_t *perm;
	uint32_t n, i;
	int64_t am, bm;

	if (in->nops < 1)
		return 0;
	a = &m->shapes[opshape(m, c, in, 0)];
	b = &m->shapes[in->shape];
	perm = hlo_attr_ints(m, in, A_DIMENSIONS, &n);
	if (a->type != b->type || a->type == TY_TUPLE || a->rank != b->rank ||
	    n != a->rank)
		return 0;
	for (i = 0; i < n; i++) {
		am = a->flags & SH_LAYOUT ? m->ints[a->dims + a->rank + i] :
			a->rank - 1 - i;
		bm = b->flags & SH_LAYOUT ? m->ints[b->dims + b->rank + i] :
			b->rank - 1 - i;
		if (bm < 0 || bm >= n || perm[bm] != am)
			return 0;
	}
	return 1;
}

/* fusion bytes. an operand of the fusion costs what the fused
 * computation reads of it (xla's FusionParameterReadBytes): a slice or a
 * dynamic-slice reading it costs the slice, a broadcast or reshape the
 * whole operand each, a dynamic-update-slice into it nothing, every other
 * user the whole operand once for all of them; a nested fusion what it
 * reads of its own parameter. the output costs its size, but a
 * dynamic-update-slice root (or tuple element) only its update; constants
 * of more than one element their size. */

static void fusedreads(const Ctx *, uint32_t, double *, int);

static double
nestedread(const Ctx *x, uint32_t fc, uint32_t k, int depth)
{
	const HloModule *m = x->m;
	uint32_t p = hlo_param(m, fc, k);
	double *rd, r;

	if (p == HLO_NONE)
		return 0;
	if (depth >= MAXNEST)
		return size(m, m->comps[fc].ins[p].shape);
	rd = xcalloc(m->comps[fc].nins, sizeof *rd);
	fusedreads(x, fc, rd, depth + 1);
	r = rd[p];
	free(rd);
	return r;
}

/* what user u reads of its operand o (a parameter or get-tuple-element) */
static double
readby(const Ctx *x, uint32_t c, const HloInstr *u, uint32_t o,
	uint8_t *seen, int depth)
{
	const HloModule *m = x->m;
	const HloInstr *oi = &m->comps[c].ins[o];
	double r = 0;
	uint32_t k;

	switch (u->op) {
	case HOP_FUSION:
		for (k = 0; k < u->nops && u->ncalled; k++)
			if (m->ids[u->ops + k] == o)
				r += nestedread(x, m->ids[u->called], k, depth);
		return r;
	case HOP_SLICE:
		return size(m, u->shape);
	case HOP_DYNSLICE:
		if (m->ids[u->ops] == o)
			return size(m, u->shape);
		break;
	case HOP_DYNUPDSLICE:
		if (m->ids[u->ops] == o)
			return 0;
		break;
	case HOP_BROADCAST:
	case HOP_RESHAPE:
		return size(m, oi->shape);
	}
	if (*seen)
		return 0;
	*seen = 1;
	return size(m, oi->shape);
}

/* rd[i] = bytes read of parameter or get-tuple-element i of fused
 * computation fc */
static void
fusedreads(const Ctx *x, uint32_t fc, double *rd, int depth)
{
	const HloModule *m = x->m;
	const HloComp *cp = &m->comps[fc];
	uint8_t *seen = xcalloc(cp->nins, 1);
	uint32_t *mark = xreallocarray(NULL, cp->nins, sizeof *mark);
	uint32_t u, k, o;

	for (u = 0; u < cp->nins; u++)
		mark[u] = HLO_NONE;
	for (u = 0; u < cp->nins; u++) {
		const HloInstr *ui = &cp->ins[u];

		if (ui->flags & HI_DEAD)
			continue;
		for (k = 0; k < ui->nops; k++) {
			o = m->ids[ui->ops + k];
			if ((cp->ins[o].op != HOP_PARAMETER &&
			    cp->ins[o].op != HOP_GTE) || mark[o] == u)
				continue;
			mark[o] = u;
			rd[o] += readby(x, fc, ui, o, &seen[o], depth);
		}
	}
	free(seen);
	free(mark);
}

/* the first get-tuple-element of node with the given index, or node */
static uint32_t
gteof(const HloModule *m, uint32_t c, uint32_t node, int64_t index)
{
	const HloComp *cp = &m->comps[c];
	uint32_t i;

	for (i = 0; i < cp->nins; i++) {
		const HloInstr *in = &cp->ins[i];

		if (!(in->flags & HI_DEAD) && in->op == HOP_GTE && in->nops &&
		    m->ids[in->ops] == node &&
		    hlo_attr_int(m, in, A_INDEX, -1) == index)
			return i;
	}
	return node;
}

/* a tuple parameter: the reads of the get-tuple-element chain to each
 * leaf, walked as xla walks it */
static double
tuplereads(const HloModule *m, uint32_t c, uint32_t p, uint32_t s,
	int64_t *path, int depth, const double *rd)
{
	const HloShape *sh = &m->shapes[s];
	uint32_t i, node = p;
	double r = 0;
	int d;

	if (sh->type != TY_TUPLE) {
		for (d = 0; d < depth; d++)
			node = gteof(m, c, node, path[d]);
		return rd[node];
	}
	if (depth >= MAXDEPTH)
		return 0;
	for (i = 0; i < sh->ntuple; i++) {
		path[depth] = i;
		r += tuplereads(m, c, p, m->ids[sh->tuple + i], path,
			depth + 1, rd);
	}
	return r;
}

/* the update size of a live dynamic-update-slice, else -1 */
static double
dusupdate(const HloModule *m, uint32_t c, const HloInstr *in)
{
	if (in->op != HOP_DYNUPDSLICE || in->nops < 2 ||
	    (in->flags & HI_DEAD))
		return -1;
	return size(m, opshape(m, c, in, 1));
}

static double
outbytes(const HloModule *m, uint32_t fc, uint32_t s)
{
	const HloComp *cp = &m->comps[fc];
	const HloInstr *root = &cp->ins[cp->root], *r;
	const HloShape *sh = &m->shapes[s];
	uint32_t i, es;
	double b = 0, u;

	if (sh->type != TY_TUPLE)
		return (u = dusupdate(m, fc, root)) >= 0 ? u : size(m, s);
	for (i = 0; i < sh->ntuple; i++) {
		es = m->ids[sh->tuple + i];
		if (istuple(m, es)) {
			b += leafbytes(m, es);
			continue;
		}
		r = root->op == HOP_TUPLE && !(root->flags & HI_DEAD) &&
			i < root->nops ? operand(m, fc, root, i) : root;
		b += (u = dusupdate(m, fc, r)) >= 0 ? u : size(m, es);
	}
	return b;
}

static void instrcost(const Ctx *, uint32_t, uint32_t, Props *);

static void
fusioncost(const Ctx *x, const HloInstr *in, Props *p)
{
	const HloModule *m = x->m;
	const HloComp *cp;
	uint32_t fc, i;
	int64_t path[MAXDEPTH];
	double *rd;

	if (!in->ncalled || !m->comps[fc = m->ids[in->called]].nins)
		return;
	cp = &m->comps[fc];
	if (hlo_attr_is(m, in, A_FUSION_KIND, "kCustom"))
		for (i = 0; i < cp->nins; i++)
			if (!(cp->ins[i].flags & HI_DEAD) &&
			    (cp->ins[i].op == HOP_GATHER ||
			    cp->ins[i].op == HOP_SCATTER)) {
				instrcost(x, fc, i, p);
				return;
			}
	p->f = x->cp[fc].f;
	p->t = x->cp[fc].t;
	p->b = outbytes(m, fc, in->shape);
	rd = xcalloc(cp->nins, sizeof *rd);
	fusedreads(x, fc, rd, 0);
	for (i = 0; i < cp->nins; i++) {
		const HloInstr *fi = &cp->ins[i];

		if (fi->flags & HI_DEAD)
			continue;
		if (fi->op == HOP_CONSTANT && elems(m, fi->shape) > 1)
			p->b += size(m, fi->shape);
		else if (fi->op == HOP_PARAMETER && !istuple(m, fi->shape))
			p->b += rd[i];
		else if (fi->op == HOP_PARAMETER)
			p->b += tuplereads(m, fc, i, fi->shape, path, 0, rd);
	}
	free(rd);
}

static void
scattercost(const Ctx *x, uint32_t c, const HloInstr *in, Props *p)
{
	const HloModule *m = x->m;
	uint32_t n = (in->nops - 1) / 2, k;
	double upd = 0;

	if (in->nops < 3)
		return;
	for (k = 0; k < n; k++)
		upd += size(m, opshape(m, c, in, n + 1 + k));
	p->b = 3 * upd + size(m, opshape(m, c, in, n));
	scaled(x, in, 0, elems(m, opshape(m, c, in, n + 1)), p);
}

/* while: the sum of the called computations; conditional: the max */
static void
callcost(const Ctx *x, const HloInstr *in, int max, int all, Props *p)
{
	uint32_t k, n = all ? in->ncalled : in->ncalled > 0;

	*p = (Props){0, 0, 0};
	for (k = 0; k < n; k++) {
		const Props *s = &x->cp[x->m->ids[in->called + k]];

		if (max && k > 0) {
			p->f = fmax(p->f, s->f);
			p->t = fmax(p->t, s->t);
			p->b = fmax(p->b, s->b);
		} else {
			p->f += s->f;
			p->t += s->t;
			p->b += s->b;
		}
	}
}

/* data movement, leaves and tuples: bytes only */
static void
datacost(const Ctx *x, uint32_t c, const HloInstr *in, Props *p)
{
	const HloModule *m = x->m;
	uint32_t out = in->shape, n = in->nops;

	switch (in->op) {
	case HOP_PARAMETER: case HOP_CONSTANT: case HOP_GTE: case HOP_BITCAST:
	case HOP_DOMAIN: case HOP_ADDDEP:
		p->b = 0;
		return;
	case HOP_TRANSPOSE:
		if (transposebitcast(m, c, in))
			p->b = 0;
		return;
	case HOP_TUPLE:
		p->b = size(m, out);
		return;
	case HOP_SLICE:
		p->b = 2 * size(m, out);
		return;
	case HOP_DYNSLICE:
	case HOP_GATHER:
		p->b = 2 * size(m, out) +
			(n > 1 ? size(m, opshape(m, c, in, 1)) : 0);
		return;
	case HOP_DYNUPDSLICE:
		if (n > 2)
			p->b = 2 * size(m, opshape(m, c, in, 1)) +
				size(m, opshape(m, c, in, 2));
		return;
	}
}

static void
linalgcost(const Ctx *x, uint32_t c, const HloInstr *in, Props *p)
{
	const HloModule *m = x->m;
	uint32_t a = in->nops ? opshape(m, c, in, 0) : 0;

	switch (in->op) {
	case HOP_DOT:
	case HOP_SCALEDDOT:
		p->f = dotflops(m, c, in, 0);
		return;
	case HOP_RAGGEDDOT:
		p->f = dotflops(m, c, in, 1);
		return;
	case HOP_CONV:
		p->f = convflops(m, c, in);
		return;
	case HOP_FFT:
		p->f = fftflops(m, c, in);
		return;
	case HOP_TRISOLVE:
		if (in->nops < 2)
			return;
		p->b = size(m, in->shape) + size(m, a) / 2 +
			size(m, opshape(m, c, in, 1));
		p->f = 2.0 * (double)dim(m, a, m->shapes[a].rank - 1) *
			elems(m, opshape(m, c, in, 1));
		return;
	case HOP_CHOLESKY:
		if (in->nops < 1)
			return;
		p->b = size(m, a);
		p->f = floor((double)dim(m, a, m->shapes[a].rank - 1) *
			elems(m, a) / 3);
		return;
	}
}

static void
reducecost(const Ctx *x, uint32_t c, const HloInstr *in, Props *p)
{
	const HloModule *m = x->m;
	uint32_t out = in->shape, n = in->nops;
	double el;

	switch (in->op) {
	case HOP_SORT:
		el = n ? elems(m, opshape(m, c, in, 0)) : 0;
		p->f = el * log2ceil(el);
		return;
	case HOP_MAP:
		scaled(x, in, 0, elems(m, out), p);
		return;
	case HOP_REDUCE:
		if (n < 1)
			return;
		el = istuple(m, out) ? (m->shapes[out].ntuple ?
			elems(m, m->ids[m->shapes[out].tuple]) : 0) :
			elems(m, out);
		el = elems(m, opshape(m, c, in, 0)) - el;
		scaled(x, in, 0, fmax(0, el), p);
		return;
	case HOP_REDUCEWINDOW:
		scaled(x, in, 0, fmax(0, rwcount(m, in)), p);
		return;
	case HOP_SELECTANDSCATTER:
		if (n < 2)
			return;
		el = elems(m, opshape(m, c, in, 1));
		scaled(x, in, 0, el * fmax(0, windowelems(m, in) - 1), p);
		scaled(x, in, 1, el, p);
		return;
	case HOP_SCATTER:
		scattercost(x, c, in, p);
		return;
	}
}

static void
controlcost(const Ctx *x, const HloInstr *in, Props *p)
{
	switch (in->op) {
	case HOP_FUSION:
		fusioncost(x, in, p);
		return;
	case HOP_CALL:
	case HOP_ASYNCSTART:
	case HOP_SCAN:
		callcost(x, in, 0, 0, p);
		return;
	case HOP_WHILE:
		callcost(x, in, 0, 1, p);
		return;
	case HOP_CONDITIONAL:
		callcost(x, in, 1, 1, p);
		return;
	}
}

/* collectives, tokens, infeed/outfeed, random numbers */
static void
othercost(const Ctx *x, uint32_t c, const HloInstr *in, Props *p)
{
	const HloModule *m = x->m;
	uint32_t out = in->shape, k;
	double el, by;

	switch (in->op) {
	case HOP_AFTERALL:
		p->b = 0;
		return;
	case HOP_RNG:
		p->t = elems(m, out);
		return;
	case HOP_RNGBITGEN:
		p->t = leafelems(m, out);
		return;
	case HOP_ALLREDUCE:
	case HOP_ALLREDUCESTART:
		el = by = 0;
		leaves(m, out, 0, &el, &by);
		p->f = el;
		p->b = by + defaultbytes(x, c, in) - size(m, out);
		return;
	case HOP_INFEED:
		p->b = leafbytes(m, out);
		return;
	case HOP_OUTFEED:
		for (p->b = 0, k = 0; k < in->nops; k++)
			p->b += leafbytes(m, opshape(m, c, in, k));
		return;
	}
}

/* the figures of instruction i of computation c, by opcode family.
 * defaults: no flops, bytes = output + operands. the elementwise
 * families (and so bitcast-convert) count one flop per output element, or
 * one transcendental for exp, log, logistic, power, sqrt, cbrt, rsqrt,
 * tanh, sin, cos, tan, expm1, log1p, atan2 and erf (OPF_TRANS); copy, a
 * data movement, does not count. custom-call, unknown to xla (which
 * reports -1), gets no flops and the default bytes. */
static void
instrcost(const Ctx *x, uint32_t c, uint32_t i, Props *p)
{
	const HloModule *m = x->m;
	const HloInstr *in = &m->comps[c].ins[i];

	p->f = p->t = 0;
	p->b = defaultbytes(x, c, in);
	if (hlo_op_elementwise_family(in->op)) {
		if (hlo_opinfo[in->op].flags & OPF_TRANS)
			p->t = x->el[in->shape];
		else
			p->f = x->el[in->shape];
		return;
	}
	switch (hlo_op_family(in->op)) {
	case OPFAM_LEAF:
	case OPFAM_DATA:
	case OPFAM_TUPLE:
		datacost(x, c, in, p);
		return;
	case OPFAM_LINALG:
		linalgcost(x, c, in, p);
		return;
	case OPFAM_REDUCE:
		reducecost(x, c, in, p);
		return;
	case OPFAM_CONTROL:
		controlcost(x, in, p);
		return;
	}
	othercost(x, c, in, p);
}

static void
compcost(Ctx *x, uint32_t c)
{
	const HloComp *cp = &x->m->comps[c];
	Props s = {0, 0, 0}, p;
	uint32_t i;

	for (i = 0; i < cp->nins; i++) {
		if (cp->ins[i].flags & HI_DEAD)
			continue;
		instrcost(x, c, i, &p);
		s.f += p.f;
		s.t += p.t;
		s.b += p.b;
	}
	x->cp[c] = s;
}

int
hlo_cost(const HloModule *m, HloCost *out, HloError *e)
{
	uint32_t *order, k, i;
	int64_t n;
	Ctx x;

	memset(out, 0, sizeof *out);
	if (checkshapes(m, e) < 0)
		return -1;
	order = xreallocarray(NULL, m->ncomps + 1, sizeof *order);
	n = comporder(m, order, e);
	if (n < 0) {
		free(order);
		return -1;
	}
	x.m = m;
	x.cp = xcalloc(m->ncomps, sizeof *x.cp);
	x.el = xreallocarray(NULL, 2 * (size_t)m->nshapes + 1, sizeof *x.el);
	x.sz = x.el + m->nshapes;
	for (k = 0; k < m->nshapes; k++) {
		x.el[k] = elems(m, k);
		x.sz[k] = size(m, k);
	}
	for (k = 0; k < n; k++) {
		const HloComp *cp = &m->comps[order[k]];

		compcost(&x, order[k]);
		for (i = 0; i < cp->nins; i++)
			if (!(cp->ins[i].flags & HI_DEAD)) {
				out->opcount[cp->ins[i].op]++;
				out->instructions++;
			}
	}
	out->computations = n;
	out->flops = x.cp[m->entry].f;
	out->transcendentals = x.cp[m->entry].t;
	out->bytes_accessed = x.cp[m->entry].b;
	out->kernels = hlo_cost_kernels(m);
	free(x.el);
	free(x.cp);
	free(order);
	return 0;
}

/* kernels: the fusion report's launch count */
int64_t
hlo_cost_kernels(const HloModule *m)
{
	uint8_t *run;
	uint32_t *order, c, i, k, d;
	int n, t;
	int64_t kn = 0;

	if (m->entry >= m->ncomps)
		return 0;
	run = xcalloc(m->ncomps + 1, 1);
	order = xreallocarray(NULL, m->ncomps + 1, sizeof *order);
	n = hlo_comp_order(m, order);
	run[m->entry] = 1;
	for (t = n; t-- > 0;) {
		const HloComp *cp = &m->comps[c = order[t]];

		if (!run[c])
			continue;
		for (i = 0; i < cp->nins; i++) {
			const HloInstr *in = &cp->ins[i];

			if (in->flags & HI_DEAD)
				continue;
			switch (in->op) {
			case HOP_PARAMETER: case HOP_CONSTANT: case HOP_TUPLE:
			case HOP_GTE: case HOP_BITCAST:
				break;
			default:
				kn++;
			}
			if (in->op != HOP_WHILE && in->op != HOP_CONDITIONAL &&
			    in->op != HOP_CALL && in->op != HOP_ASYNCSTART)
				continue;
			for (k = 0; k < in->ncalled; k++)
				if ((d = m->ids[in->called + k]) < m->ncomps)
					run[d] = 1;
		}
	}
	free(run);
	free(order);
	return kn;
}

int64_t
hlo_cost_counts(const HloModule *m, int64_t *opcount)
{
	uint8_t *seen;
	uint32_t *stk, sp = 0, c, i, k, callee;
	int64_t total = 0;

	if (opcount)
		memset(opcount, 0, HOP_COUNT * sizeof *opcount);
	if (m->entry >= m->ncomps)
		return -1;
	seen = xcalloc(m->ncomps, 1);
	stk = xreallocarray(NULL, m->ncomps, sizeof *stk);
	stk[sp++] = m->entry;
	seen[m->entry] = 1;
	while (sp) {
		const HloComp *cp = &m->comps[c = stk[--sp]];

		for (i = 0; i < cp->nins; i++) {
			const HloInstr *in = &cp->ins[i];

			if (in->flags & HI_DEAD)
				continue;
			total++;
			if (opcount && in->op < HOP_COUNT)
				opcount[in->op]++;
			for (k = 0; k < in->ncalled; k++) {
				if ((uint64_t)in->called + k >= m->nids ||
				    (callee = m->ids[in->called + k]) >=
				    m->ncomps) {
					total = -1;
					goto out;
				}
				if (!seen[callee]) {
					seen[callee] = 1;
					stk[sp++] = callee;
				}
			}
		}
	}
out:
	free(seen);
	free(stk);
	return total;
}

int64_t
hlo_cost_count(const HloModule *m)
{
	return hlo_cost_counts(m, NULL);
}

/* reports */

typedef struct {
	const char *name;
	int64_t n;
} OpRow;

static int
bycount(const void *a, const void *b)
{
	const OpRow *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int
byname(const void *a, const void *b)
{
	return strcmp(((const OpRow *)a)->name, ((const OpRow *)b)->name);
}

static int
oprows(const HloCost *c, OpRow *rows, int (*cmp)(const void *, const void *))
{
	int k, n = 0;

	for (k = 0; k < HOP_COUNT; k++)
		if (c->opcount[k] > 0)
			rows[n++] = (OpRow){hlo_opinfo[k].name, c->opcount[k]};
	qsort(rows, n, sizeof *rows, cmp);
	return n;
}

/* integers as integers; anything else (or too big) as %.17g */
static void
putnum(HloBuf *b, double v)
{
	if (!isfinite(v))
		v = v < 0 ? -DBL_MAX : DBL_MAX;
	if (v == floor(v) && fabs(v) < 1e18)
		hlo_buf_printf(b, "%.0f", v);
	else
		hlo_buf_printf(b, "%.17g", v);
}

static const char *
modname(const HloModule *m)
{
	return m->name < m->nbytes ? hlo_cstr(m, m->name) : "";
}

void
hlo_cost_text(const HloModule *m, const HloCost *c, HloBuf *b)
{
	OpRow rows[HOP_COUNT];
	int k, n = oprows(c, rows, bycount);

	hlo_buf_printf(b, "%-16s %s\n", "module", modname(m));
	hlo_buf_printf(b, "%-16s %lld\n", "instructions",
		(long long)c->instructions);
	hlo_buf_printf(b, "%-16s %lld\n", "computations",
		(long long)c->computations);
	hlo_buf_printf(b, "%-16s ", "flops");
	putnum(b, c->flops);
	hlo_buf_printf(b, "\n%-16s ", "transcendentals");
	putnum(b, c->transcendentals);
	hlo_buf_printf(b, "\n%-16s ", "bytes accessed");
	putnum(b, c->bytes_accessed);
	hlo_buf_printf(b, "\n%-16s %lld", "kernels", (long long)c->kernels);
	hlo_buf_puts(b, "\n\n");
	for (k = 0; k < n; k++)
		hlo_buf_printf(b, "%-30s %lld\n", rows[k].name,
			(long long)rows[k].n);
}

void
hlo_cost_json(const HloModule *m, const HloCost *c, HloBuf *b)
{
	OpRow rows[HOP_COUNT];
	int k, n = oprows(c, rows, byname);

	hlo_buf_puts(b, "{\"module\": ");
	hlo_buf_json(b, modname(m));
	hlo_buf_printf(b, ", \"instructions\": %lld, \"computations\": %lld, "
		"\"flops\": ", (long long)c->instructions,
		(long long)c->computations);
	putnum(b, c->flops);
	hlo_buf_puts(b, ", \"transcendentals\": ");
	putnum(b, c->transcendentals);
	hlo_buf_puts(b, ", \"bytes_accessed\": ");
	putnum(b, c->bytes_accessed);
	hlo_buf_printf(b, ", \"kernels\": %lld", (long long)c->kernels);
	hlo_buf_puts(b, ", \"opcodes\": {");
	for (k = 0; k < n; k++) {
		if (k)
			hlo_buf_puts(b, ", ");
		hlo_buf_json(b, rows[k].name);
		hlo_buf_printf(b, ": %lld", (long long)rows[k].n);
	}
	hlo_buf_puts(b, "}}\n");
}
