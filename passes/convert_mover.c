/* convert_mover.c: "convert-mover", xla's ConvertMover.
 *
 * The ops that commute with convert are concatenate, pad, reshape, slice
 * and transpose. In every non-fusion computation:
 *   1. in xla's post order, op(convert(a), ..., constant, ...) where every
 *      operand is a convert used only by op or a constant, all converts
 *      widen from the same type s, and every constant survives the round
 *      trip to s unchanged (NaN never does) becomes
 *      convert(op(a, ..., convert_s(constant), ...)) ("increase precision
 *      goes down"); s may not be a sub-byte type other than pred.
 *   2. then, from the bottom up (a work stack seeded with the post order,
 *      new converts pushed on top), convert(op(a, ...)) that narrows, where
 *      op has no other user, becomes op(convert(a), ...) ("decrease
 *      precision goes up"); the target may not be a sub-byte non-pred
 *      type.
 * Replacements go through ReplaceInstruction; instructions with control
 * dependencies are left alone.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wutil.h"

static int
type_of(PassEdit *ed, uint32_t i)
{
	return hlo_sh(ed->m, pass_ins(ed, i)->shape)->type;
}

static int
commutes(int op)
{
	return op == HOP_CONCAT || op == HOP_PAD || op == HOP_RESHAPE ||
		op == HOP_SLICE || op == HOP_TRANSPOSE;
}

static int
subbyte_nonpred(int t)
{
	return t != TY_PRED && hlo_typeinfo[t].bits < 8;
}

static int
only_user(PassEdit *ed, uint32_t x, uint32_t user)
{
	uint32_t k, cnt = 0;

	for (k = 0; k < pass_ins(ed, user)->nops; k++)
		cnt += pass_opnd(ed, user, k) == x;
	return cnt && ed->nuse[x] == cnt;
}

static int
int_fits(int t, const WuVal *v, int from_signed)
{
	int bits = hlo_typeinfo[t].bits;

	if (hlo_typeinfo[t].cls == C_SINT) {
		int64_t lo = bits >= 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
		int64_t hi = bits >= 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;

		if (!from_signed && v->u > INT64_MAX)
			return 0;
		return v->s >= lo && v->s <= hi;
	}
	if (from_signed && v->s < 0)
		return 0;
	return bits >= 64 || v->u <= (((uint64_t)1 << bits) - 1);
}

/* element v of type t survives t -> s -> t */
static int
roundtrips(const WuVal *v, int t, int s)
{
	int tc = hlo_typeinfo[t].cls, sc = hlo_typeinfo[s].cls;
	double f, back;

	if (tc == C_PRED || sc == C_PRED) {
		if (tc == C_PRED)
			return 1;
		f = tc == C_FLOAT ? v->f : (double)v->u;
		return tc == C_FLOAT ? (f == 0 || f == 1) && !signbit(f) :
			v->u <= 1;
	}
	if (tc == C_FLOAT) {
		if (isnan(v->f))
			return 0;
		if (sc == C_FLOAT) {
			back = hlo_float_decode(s, hlo_float_encode(s, v->f));
			return back == v->f && signbit(back) == signbit(v->f);
		}
		if (sc != C_SINT && sc != C_UINT)
			return 0;
		if (v->f != trunc(v->f) || fabs(v->f) > 9.2e18 ||
		    (v->f == 0 && signbit(v->f)))
			return 0;
		{
			WuVal w = {0};

			w.s = (int64_t)v->f;
			w.u = (uint64_t)w.s;
			return int_fits(s, &w, 1);
		}
	}
	if (tc != C_SINT && tc != C_UINT)
		return 0;
	if (sc == C_SINT || sc == C_UINT)
		return int_fits(s, v, tc == C_SINT);
	if (sc != C_FLOAT)
		return 0;
	f = tc == C_SINT ? (double)v->s : (double)v->u;
	if (fabs(f) > 9007199254740992.0)
		return 0;
	back = hlo_float_decode(s, hlo_float_encode(s, f));
	return back == f;
}

/* IsLosslesslyConvertibleTo(literal, s) */
static int
lossless(const HloModule *m, const HloInstr *in, int s)
{
	int t = hlo_sh(m, in->shape)->type;
	int64_t n = wu_elems(m, in->shape), k;
	uint32_t nbytes;
	WuVal v;

	if (t == TY_TUPLE || !hlo_literal(m, in, &nbytes))
		return 0;
	if (t == s)
		return 1;
	for (k = 0; k < n; k++)
		if (wu_read(m, in, k, &v) < 0 || !roundtrips(&v, t, s))
			return 0;
	return 1;
}

/* MakeConvertToHlo(x, t) */
static uint32_t
convert_to(PassEdit *ed, uint32_t x, int t)
{
	HloModule *m = ed->m;

	if (type_of(ed, x) == t)
		return x;
	return wu_add(m, ed->c, HOP_CONVERT, hlo_shape_with_type(m,
		pass_ins(ed, x)->shape, t), 1, &x, ed);
}

/* a copy of x with operands ops and element type t */
static uint32_t
retyped(PassEdit *ed, uint32_t x, uint32_t n, const uint32_t *ops, int t)
{
	HloModule *m = ed->m;
	uint32_t j = pass_copy_instr(m, ed->c, ed->c, x, n, ops);

	m->comps[ed->c].ins[j].shape = hlo_shape_with_type(m,
		pass_ins(ed, x)->shape, t);
	pass_edit_added(ed, j);
	return j;
}

static int
move_down(PassEdit *ed, uint32_t x)
{
	HloModule *m = ed->m;
	uint32_t n = pass_ins(ed, x)->nops, k, o, cv = HLO_NONE, *ops, ni, nc;
	int src, dst;

	if (!commutes(pass_ins(ed, x)->op) || !n || ed->ctl[x])
		return 0;
	for (k = 0; k < n; k++) {
		o = pass_opnd(ed, x, k);
		if (pass_ins(ed, o)->op == HOP_CONVERT && pass_ins(ed, o)->nops == 1 &&
		    only_user(ed, o, x)) {
			if (cv == HLO_NONE)
				cv = o;
		} else if (pass_ins(ed, o)->op != HOP_CONSTANT) {
			return 0;
		}
	}
	if (cv == HLO_NONE)
		return 0;
	src = type_of(ed, pass_opnd(ed, cv, 0));
	dst = type_of(ed, cv);
	for (k = 0; k < n; k++) {
		o = pass_opnd(ed, x, k);
		if (pass_ins(ed, o)->op == HOP_CONVERT &&
		    type_of(ed, pass_opnd(ed, o, 0)) != src)
			return 0;
	}
	if (hlo_typeinfo[src].bits >= hlo_typeinfo[dst].bits)
		return 0;
	for (k = 0; k < n; k++) {
		o = pass_opnd(ed, x, k);
		if (pass_ins(ed, o)->op == HOP_CONSTANT &&
		    !lossless(m, pass_ins(ed, o), src))
			return 0;
	}
	if (subbyte_nonpred(src))
		return 0;
	ops = pass_alloc(ed->ctx, (n + 1) * sizeof *ops);
	for (k = 0; k < n; k++) {
		o = pass_opnd(ed, x, k);
		ops[k] = pass_ins(ed, o)->op == HOP_CONVERT ? pass_opnd(ed, o, 0) :
			convert_to(ed, o, src);
	}
	ni = retyped(ed, x, n, ops, src);
	nc = wu_add(m, ed->c, HOP_CONVERT, pass_ins(ed, x)->shape, 1, &ni, ed);
	return pass_replace(ed, x, nc, 0, 0);
}

typedef struct {
	uint32_t *v;
	uint32_t n, cap;
} Stack;

static void
push(Stack *s, uint32_t x)
{
	s->v = hlo_grow(s->v, s->n, &s->cap, 64, sizeof *s->v);
	s->v[s->n++] = x;
}

static int
move_up(PassEdit *ed, uint32_t x, Stack *st)
{
	uint32_t y, n, k, *ops, ny;
	int src, dst;

	if (pass_ins(ed, x)->op != HOP_CONVERT || pass_ins(ed, x)->nops != 1)
		return 0;
	y = pass_opnd(ed, x, 0);
	if (ed->nuse[y] != 1 || !commutes(pass_ins(ed, y)->op) || ed->ctl[x])
		return 0;
	src = type_of(ed, y);
	dst = type_of(ed, x);
	if (hlo_typeinfo[src].bits <= hlo_typeinfo[dst].bits ||
	    subbyte_nonpred(dst))
		return 0;
	n = pass_ins(ed, y)->nops;
	ops = pass_alloc(ed->ctx, (n + 1) * sizeof *ops);
	for (k = 0; k < n; k++) {
		ops[k] = convert_to(ed, pass_opnd(ed, y, k), dst);
		push(st, ops[k]);
	}
	ny = retyped(ed, y, n, ops, dst);
	return pass_replace(ed, x, ny, 0, 0);
}

static int
run_comp(PassEdit *ed, PassCtx *ctx, int64_t *done)
{
	HloModule *m = ed->m;
	uint32_t c = ed->c, *order, cnt, i, x;
	Stack st = {0};
	int changed;

	order = pass_alloc(ctx, (m->comps[c].nins + 1) * sizeof *order);
	cnt = pass_post_order(m, c, order, ctx);
	for (i = 0; i < cnt; i++) {
		x = order[i];
		if (!(m->comps[c].ins[x].flags & HI_DEAD) &&
		    pass_res(ed, x) == x)
			*done += move_down(ed, x);
	}
	changed = ed->changed;
	if (changed) {
		if (pass_edit_end(ed) < 0)
			return -1;
		pass_edit_begin(ed, c);
		order = pass_alloc(ctx, (m->comps[c].nins + 1) * sizeof *order);
		cnt = pass_post_order(m, c, order, ctx);
	}
	for (i = 0; i < cnt; i++)
		push(&st, order[i]);
	while (st.n) {
		x = st.v[--st.n];
		if (!(m->comps[c].ins[x].flags & HI_DEAD) &&
		    pass_res(ed, x) == x)
			*done += move_up(ed, x, &st);
	}
	free(st.v);
	changed |= ed->changed;
	if (pass_edit_end(ed) < 0)
		return -1;
	return changed;
}

int
pass_convert_mover(HloModule *m, PassCtx *ctx)
{
	PassEdit ed;
	uint8_t *fx;
	uint32_t c;
	int changed = 0, r;

	fx = xmalloc(m->ncomps + 1);
	memcpy(fx, pass_comp_effects(m, ctx), m->ncomps);
	pass_reset(ctx);
	pass_edit_init(&ed, m, ctx, fx, m->ncomps);
	for (c = 0; c < m->ncomps; c++) {
		if (m->comps[c].flags & HC_FUSION)
			continue;
		pass_edit_begin(&ed, c);
		r = run_comp(&ed, ctx, &ctx->stats.rewrites);
		pass_reset(ctx);
		if (r < 0) {
			changed = -1;
			break;
		}
		changed |= r;
	}
	pass_edit_free(&ed);
	free(fx);
	return changed;
}
