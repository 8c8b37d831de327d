/* topk_rewriter.c: "topk-rewriter", xla's TopkRewriter with the
 * profitability predicate XLA:CPU gives it (the sort's first operand is
 * f32) (xla/service/topk_rewriter.cc, openxla/xla 536ee459de74;
 * cpu_compiler.cc at 353a6d6c92ef).
 *
 * In every computation, in post order:
 *   - a sort of one operand, or of two whose second is an s32 iota of the
 *     data's shape along the sort dimension (or a broadcast of an s32 iota
 *     of the sort dimension's size into it), sorting along the first or
 *     the last dimension, with a NaN-safe greater-than comparator (xla's
 *     IsNanSafeGt: the bitcast total-order forms for f32 and bf16, with
 *     or without converts, s32 >, or a plain > of bf16, f32, s32 or u32,
 *     also the select(true, >, true) default form over four parameters),
 *     whose every user is a slice (two operands: a get-tuple-element with
 *     one user, a slice) from 0 with stride 1 keeping all of every other
 *     dimension and the same k, of f32 data (bf16 is xla's own limit, the
 *     CPU predicate takes f32 only), becomes a custom-call "TopK" of the
 *     data (to_apply: the sort's comparator), rank > 2 reshaped to
 *     [batch, n] (or [n, batch]), sorting along dimension 0 transposed,
 *     and back after: its get-tuple-elements 0 and 1 take the uses of the
 *     slices of values and of indices; sort and slices stay, unused;
 *   - a topk instruction of f32 or bf16 becomes the same custom-call with
 *     a new compare-greater-than (largest) or compare-less-than
 *     comparator over values and s32 indices, and a tuple of its
 *     get-tuple-elements takes the topk's uses.
 * Must not fire: other element types, sorts of three or more operands,
 * a second operand that is no iota, other comparators, a user that is
 * not such a slice, slices of different k, sorts along a middle
 * dimension. Deviation: xla matches any s32 iota of the data's shape
 * (and any broadcast of one); hlopt requires the iota along the sort
 * dimension, where the rewrite keeps the indices. Instructions with
 * control dependencies are left alone.
 */
#include <stdlib.h>
#include <string.h>

#include "build.h"

typedef struct {
	uint32_t c;		/* computation whose users are below */
	uint32_t n;		/* its instructions then */
	uint32_t *start;	/* CSR of users: start[n + 1] */
	uint32_t *list;
} Users;

static void
users_of(PassEdit *ed, Users *u)
{
	const HloModule *m = ed->m;
	const HloComp *cp = &m->comps[ed->c];
	uint32_t i, k, x, *fill;

	if (u->start && u->c == ed->c)
		return;
	free(u->start);
	free(u->list);
	u->c = ed->c;
	u->n = cp->nins;
	u->start = xcalloc(u->n + 2, sizeof *u->start);
	for (i = 0; i < u->n; i++)
		for (k = 0; !(cp->ins[i].flags & HI_DEAD) && k < cp->ins[i].nops;
		     k++)
			if ((x = m->ids[cp->ins[i].ops + k]) < u->n)
				u->start[x + 1]++;
	for (i = 0; i < u->n; i++)
		u->start[i + 1] += u->start[i];
	u->list = xcalloc(u->start[u->n] + 1, sizeof *u->list);
	fill = xcalloc(u->n + 1, sizeof *fill);
	for (i = 0; i < u->n; i++)
		for (k = 0; !(cp->ins[i].flags & HI_DEAD) && k < cp->ins[i].nops;
		     k++)
			if ((x = m->ids[cp->ins[i].ops + k]) < u->n)
				u->list[u->start[x] + fill[x]++] = i;
	free(fill);
}

/* matching inside the comparator computation c */
typedef struct {
	const HloModule *m;
	uint32_t c;
} Cmp;

static const HloInstr *
I(const Cmp *q, uint32_t x)
{
	return &q->m->comps[q->c].ins[x];
}

static uint32_t
opnd(const Cmp *q, uint32_t x, uint32_t k)
{
	return I(q, x)->nops > k ? q->m->ids[I(q, x)->ops + k] : HLO_NONE;
}

static int
type_of(const Cmp *q, uint32_t x)
{
	return hlo_sh(q->m, I(q, x)->shape)->type;
}

static int
is_op(const Cmp *q, uint32_t x, int op, int type)
{
	return x != HLO_NONE && I(q, x)->op == op && (type < 0 || type_of(q,
		x) == type);
}

static int
is_param(const Cmp *q, uint32_t x, int num, int type)
{
	return is_op(q, x, HOP_PARAMETER, type) && I(q, x)->num == num;
}

static int
is_cmp(const Cmp *q, uint32_t x, const char *dir)
{
	return is_op(q, x, HOP_COMPARE, -1) && hlo_attr_is(q->m, I(q, x),
		A_DIRECTION, dir);
}

/* m::ConstantScalar(v) */
static int
const_is(const Cmp *q, uint32_t x, int64_t v)
{
	const HloShape *sh;
	const unsigned char *p;
	uint32_t nb;
	uint64_t bits = 0;
	int t;

	if (!is_op(q, x, HOP_CONSTANT, -1))
		return 0;
	sh = hlo_sh(q->m, I(q, x)->shape);
	t = sh->type;
	p = hlo_literal(q->m, I(q, x), &nb);
	if (sh->rank || t >= TY_TUPLE || !p || nb < (uint32_t)hlo_type_bytes(t) ||
	    hlo_type_bytes(t) > 8)
		return 0;
	memcpy(&bits, p, hlo_type_bytes(t));
	switch (hlo_typeinfo[t].cls) {
	case C_FLOAT:
		return hlo_float_decode(t, bits) == (double)v;
	case C_SINT:
		if (hlo_typeinfo[t].bits < 64 && bits >> (hlo_typeinfo[t].bits -
		    1) & 1)
			bits |= ~0ull << hlo_typeinfo[t].bits;
		return (int64_t)bits == v;
	case C_UINT:
		return bits == (uint64_t)v;
	}
	return 0;
}

/* the parameter num, through a convert to f32 when from is bf16 */
static int
source(const Cmp *q, uint32_t x, int num, int from, int fp)
{
	if (from == fp)
		return is_param(q, x, num, fp);
	return is_op(q, x, HOP_CONVERT, fp) && is_param(q, opnd(q, x, 0), num,
		from);
}

static int
bitcast_of(const Cmp *q, uint32_t x, int it, int num, int from, int fp)
{
	return is_op(q, x, HOP_BITCASTCVT, it) && source(q, opnd(q, x, 0), num,
		from, fp);
}

/* select(lt(s, 0), flipped, s) with s = bitcast(source) */
static int
iec559(const Cmp *q, uint32_t x, int num, int from, int fp, int it)
{
	uint32_t p, f, a, b;
	int64_t mask = ((int64_t)1 << (hlo_typeinfo[fp].bits - 1)) - 1;

	if (!is_op(q, x, HOP_SELECT, -1))
		return 0;
	p = opnd(q, x, 0);
	f = opnd(q, x, 1);
	if (!is_cmp(q, p, "LT") || !bitcast_of(q, opnd(q, p, 0), it, num,
	    from, fp) || !const_is(q, opnd(q, p, 1), 0) ||
	    !bitcast_of(q, opnd(q, x, 2), it, num, from, fp))
		return 0;
	if (is_op(q, f, HOP_XOR, -1)) {	/* match_generic_iec559 */
		a = opnd(q, f, 0);
		b = opnd(q, f, 1);
		return (const_is(q, a, mask) && bitcast_of(q, b, it, num, from,
			fp)) || (const_is(q, b, mask) && bitcast_of(q, a, it,
			num, from, fp));
	}
	/* match_bitcast_*: bitcast_s32(max_int32 - bitcast_u32(source)) */
	if (fp != TY_F32 || !is_op(q, f, HOP_BITCASTCVT, TY_S32) ||
	    !is_op(q, a = opnd(q, f, 0), HOP_SUBTRACT, -1))
		return 0;
	b = opnd(q, a, 0);
	if (!const_is(q, b, INT32_MAX) && !(is_op(q, b, HOP_CONVERT, TY_U32) &&
	    const_is(q, opnd(q, b, 0), INT32_MAX)))
		return 0;
	return bitcast_of(q, opnd(q, a, 1), TY_U32, num, from, fp);
}

/* xla's IsNanSafeGt */
static int
nan_safe_gt(const HloModule *m, uint32_t c)
{
	static const int plain[4] = {TY_BF16, TY_F32, TY_S32, TY_U32};
	static const int forms[3][3] = {
		{TY_F32, TY_F32, TY_S32}, {TY_BF16, TY_BF16, TY_S16},
		{TY_BF16, TY_F32, TY_S32},
	};
	Cmp q;
	uint32_t r, a, b, s;
	int k, j;

	q.m = m;
	q.c = c;
	r = m->comps[c].root;
	if (r == HLO_NONE)
		return 0;
	if (is_cmp(&q, r, "GT")) {
		a = opnd(&q, r, 0);
		b = opnd(&q, r, 1);
		for (k = 0; k < 3; k++)
			if (iec559(&q, a, 0, forms[k][0], forms[k][1],
			    forms[k][2]) && iec559(&q, b, 1, forms[k][0],
			    forms[k][1], forms[k][2]))
				return 1;
		for (k = 0; k < 4; k++)
			if (is_param(&q, a, 0, plain[k]) && is_param(&q, b, 1,
			    plain[k]))
				return 1;
		return 0;
	}
	if (!is_op(&q, r, HOP_SELECT, -1))	/* match_default_compare */
		return 0;
	s = opnd(&q, r, 1);
	if (!is_op(&q, opnd(&q, r, 0), HOP_BROADCAST, -1) ||
	    !is_op(&q, opnd(&q, opnd(&q, r, 0), 0), HOP_CONSTANT, -1) ||
	    !is_op(&q, opnd(&q, r, 2), HOP_BROADCAST, -1) ||
	    !is_op(&q, opnd(&q, opnd(&q, r, 2), 0), HOP_CONSTANT, -1) ||
	    !is_cmp(&q, s, "GT"))
		return 0;
	for (k = 0; k < 4; k++) {
		int ok = is_param(&q, opnd(&q, s, 0), 0, plain[k]) &&
			is_param(&q, opnd(&q, s, 1), 1, plain[k]);

		for (j = 0; ok && j < (int)m->comps[c].nins; j++) {
			const HloInstr *p = &m->comps[c].ins[j];

			if (p->op == HOP_PARAMETER && p->num >= 2)
				ok = hlo_sh(m, p->shape)->type == TY_S32;
		}
		if (ok)
			return 1;
	}
	return 0;
}

/* dims of shape a equal those of b */
static int
same_dims(const HloModule *m, uint32_t a, uint32_t b)
{
	const HloShape *x = hlo_sh(m, a), *y = hlo_sh(m, b);

	return x->rank == y->rank && !memcmp(hlo_dims(m, x), hlo_dims(m, y),
		x->rank * sizeof(int64_t));
}

/* xla's HasIota (along the sort dimension: see the deviation above) */
static int
has_iota(PassEdit *ed, uint32_t sort, int64_t dim)
{
	HloModule *m = ed->m;
	uint32_t ds = pass_b_shape(ed, pass_opnd(ed, sort, 0));
	uint32_t x = pass_opnd(ed, sort, 1), n;
	const HloInstr *in = pass_ins(ed, x), *io;
	const int64_t *bd;
	const HloShape *is;

	if (pass_b_type(ed, x) != TY_S32 || !same_dims(m, in->shape, ds))
		return 0;
	if (in->op == HOP_IOTA)
		return hlo_attr_int(m, in, A_IOTA_DIM, -1) == dim;
	if (in->op != HOP_BROADCAST || in->nops != 1)
		return 0;
	io = pass_ins(ed, pass_opnd(ed, x, 0));
	is = hlo_sh(m, io->shape);
	bd = hlo_attr_ints(m, in, A_DIMENSIONS, &n);
	return io->op == HOP_IOTA && is->type == TY_S32 && is->rank == 1 &&
		hlo_dims(m, is)[0] == hlo_dims(m, hlo_sh(m, ds))[dim] && bd &&
		n == 1 && bd[0] == dim;
}

/* the slice u of a sort along dim of data shape ds: from 0, stride 1,
 * all of every other dimension; its limit along dim, or -1 */
static int64_t
slice_k(PassEdit *ed, uint32_t u, uint32_t ds, int64_t dim)
{
	HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, u);
	const HloShape *s = hlo_sh(m, ds);
	const int64_t *t;
	uint32_t n, k;

	if (in->op != HOP_SLICE)
		return -1;
	t = hlo_attr_ints(m, in, A_SLICE, &n);
	if (!t || n != 3 * (uint32_t)s->rank)
		return -1;
	for (k = 0; k < (uint32_t)s->rank; k++)
		if (t[3 * k] != 0 || t[3 * k + 2] != 1 || ((int64_t)k != dim &&
		    t[3 * k + 1] != hlo_dims(m, s)[k]))
			return -1;
	return t[3 * dim + 1];
}

/* xla's SortIsInTopK: k, or -1 */
static int64_t
sort_k(PassEdit *ed, Users *us, uint32_t i, int64_t dim)
{
	HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);
	uint32_t ds = pass_b_shape(ed, pass_opnd(ed, i, 0)), j, u;
	int64_t k = -1, kk;

	if ((in->nops != 1 && in->nops != 2) || in->ncalled != 1 ||
	    (in->nops == 2 && !has_iota(ed, i, dim)) ||
	    !nan_safe_gt(m, m->ids[in->called]))
		return -1;
	users_of(ed, us);
	if (i >= us->n)
		return -1;
	for (j = us->start[i]; j < us->start[i + 1]; j++) {
		u = us->list[j];
		if (in->nops == 2) {
			if (pass_ins(ed, u)->op != HOP_GTE || u >= us->n ||
			    us->start[u + 1] - us->start[u] != 1)
				return -1;
			u = us->list[us->start[u]];
		}
		kk = slice_k(ed, u, ds, dim);
		if (kk < 0 || (k >= 0 && kk != k))
			return -1;
		k = kk;
	}
	return k;
}

/* xla's CreateTopKCustomCall: gte[0] values, gte[1] indices */
static void
topk_call(PassEdit *ed, uint32_t x, uint32_t comp, int64_t k, int64_t dim,
	uint32_t gte[2])
{
	HloModule *m = ed->m;
	const HloShape *s = hlo_sh(m, pass_b_shape(ed, x));
	int rank = s->rank, type = s->type, j;
	int64_t d[64], n = hlo_dims(m, s)[dim], batch = 1, two[2];
	int64_t perm[2] = {1, 0};
	uint32_t shapes[2], call;
	HloAttr a;

	memcpy(d, hlo_dims(m, s), rank * sizeof *d);
	for (j = 0; j < rank; j++)
		batch *= d[j];
	batch = n ? batch / n : 0;
	if (rank > 2) {
		two[0] = dim == 0 ? n : batch;
		two[1] = dim == 0 ? batch : n;
		x = pass_b_reshape(ed, x, 2, two);
	}
	if (rank >= 2 && dim == 0)
		x = pass_b_transpose(ed, x, 2, perm);
	two[0] = rank >= 2 ? batch : k;
	two[1] = k;
	shapes[0] = pass_b_array(m, type, rank >= 2 ? 2 : 1, two);
	shapes[1] = pass_b_array(m, TY_S32, rank >= 2 ? 2 : 1, two);
	call = pass_b_op(ed, HOP_CUSTOMCALL, hlo_shape_tuple(m, 2, shapes), 1,
		&x);
	a = hlo_mk_bytes(m, A_CUSTOM_CALL_TARGET, K_STR, "TopK", 4);
	hlo_set_attrs(m, ed->c, call, 1, &a);
	hlo_set_called(m, ed->c, call, 1, &comp);
	gte[0] = pass_b_gte(ed, call, 0);
	gte[1] = pass_b_gte(ed, call, 1);
	if (rank < 2)
		return;
	for (j = 0; j < 2 && dim == 0; j++)
		gte[j] = pass_b_transpose(ed, gte[j], 2, perm);
	d[dim] = k;
	for (j = 0; j < 2 && rank > 2; j++)
		gte[j] = pass_b_reshape(ed, gte[j], rank, d);
}

/* TransformPatternToCustomCall */
static int
from_sort(PassEdit *ed, Users *us, uint32_t i)
{
	HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);
	uint32_t x = pass_opnd(ed, i, 0), gte[2], j, u, n, s;
	const HloShape *xs = hlo_sh(m, pass_b_shape(ed, x));
	const int64_t *dd = hlo_attr_ints(m, in, A_DIMENSIONS, &n);
	int64_t dim, k;

	if (!dd || n != 1 || xs->type != TY_F32 || xs->rank < 1)
		return 0;
	dim = dd[0];
	if ((dim != 0 && dim != xs->rank - 1) || (k = sort_k(ed, us, i,
	    dim)) < 0)
		return 0;
	topk_call(ed, x, m->ids[in->called], k, dim, gte);
	for (j = us->start[i]; j < us->start[i + 1]; j++) {
		u = us->list[j];
		if (pass_ins(ed, i)->nops == 2) {
			s = us->list[us->start[u]];
			pass_replace_uses(ed, s, gte[hlo_attr_int(m,
				pass_ins(ed, u), A_INDEX, 0) ? 1 : 0]);
		} else {
			pass_replace_uses(ed, u, gte[0]);
		}
	}
	return 1;
}

/* TransformTopKToCustomCall */
static int
from_topk(PassEdit *ed, uint32_t i)
{
	HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);
	uint32_t x = pass_opnd(ed, i, 0), gte[2], comp, t;
	const HloShape *xs = hlo_sh(m, pass_b_shape(ed, x));
	const HloAttr *a = hlo_attr(m, in, A_LARGEST);
	int64_t k = hlo_attr_int(m, in, A_K, -1);
	int type = xs->type, rank = xs->rank, largest = a ? a->v != 0 : 1;

	/* xs, a and in point into the module's pools, which building
	 * grows: only the copies above are used from here on */
	if ((type != TY_F32 && type != TY_BF16) || rank < 1 || k < 0 ||
	    hlo_sh(m, in->shape)->type != TY_TUPLE)
		return 0;
	comp = pass_b_topk_comparator(m, largest, type, 0);
	topk_call(ed, x, comp, k, rank - 1, gte);
	t = pass_b_op(ed, HOP_TUPLE, pass_ins(ed, i)->shape, 2, gte);
	pass_replace_uses(ed, i, t);
	return 1;
}

static int
visit(PassEdit *ed, uint32_t i, void *arg)
{
	int op = pass_ins(ed, i)->op, r;

	if (op != HOP_SORT && op != HOP_TOPK)
		return 0;
	r = op == HOP_SORT ? from_sort(ed, arg, i) : from_topk(ed, i);
	if (r)
		ed->changed = 1;
	return r;
}

int
pass_topk_rewriter(HloModule *m, PassCtx *ctx)
{
	Users us;
	int r;

	memset(&us, 0, sizeof us);
	r = pass_visit_instrs(m, ctx, PASS_SKIP_NONE | PASS_VISIT_UNFORWARDED,
		visit, &us);
	free(us.start);
	free(us.list);
	return r;
}
