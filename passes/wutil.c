/* wutil.c: helpers shared by the loop, conditional and folding passes:
 * instruction building, call-site inlining, scalar constants, and the
 * trip-count analysis of xla/hlo/analysis/while_loop_analysis.cc
 * (pattern match first, then brute force with scalar evaluation). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "eval.h"
#include "wutil.h"

/* building */

uint32_t
wu_add(HloModule *m, uint32_t c, int op, uint32_t shape, uint32_t nops,
	const uint32_t *ops, PassEdit *ed)
{
	uint32_t name = hlo_fresh_name(m, hlo_opinfo[op].name);
	uint32_t i = hlo_instr_add(m, c, op, shape, name, nops, ops);

	if (ed)
		pass_edit_added(ed, i);
	return i;
}

uint32_t
wu_gte(HloModule *m, uint32_t c, uint32_t x, int64_t k, PassEdit *ed)
{
	const HloShape *sh = hlo_sh(m, m->comps[c].ins[x].shape);
	uint32_t el = hlo_tuple_elems(m, sh)[k];
	uint32_t name = hlo_fresh_name(m, "get-tuple-element");
	uint32_t i = hlo_instr_add(m, c, HOP_GTE, el, name, 1, &x);
	HloAttr a = hlo_mk_int(A_INDEX, k);

	hlo_set_attrs(m, c, i, 1, &a);
	if (ed)
		pass_edit_added(ed, i);
	return i;
}

uint32_t
wu_tuple(HloModule *m, uint32_t c, uint32_t n, const uint32_t *ops,
	PassEdit *ed)
{
	uint32_t *el = xreallocarray(NULL, n + 1, sizeof *el), k, s;

	for (k = 0; k < n; k++)
		el[k] = m->comps[c].ins[ops[k]].shape;
	s = hlo_shape_tuple(m, n, el);
	free(el);
	return wu_add(m, c, HOP_TUPLE, s, n, ops, ed);
}

uint32_t
wu_copy_named(HloModule *m, uint32_t dc, uint32_t sc, uint32_t si,
	uint32_t nops, const uint32_t *ops, const char *suffix)
{
	char buf[300];
	uint32_t j = pass_copy_instr(m, dc, sc, si, nops, ops), n;
	int len;

	len = snprintf(buf, sizeof buf, "%.200s%s",
		hlo_cstr(m, m->comps[sc].ins[si].name), suffix);
	if (len <= 0 || (size_t)len >= sizeof buf)
		return j;
	if ((n = hlo_str_new(m, buf, len)) == HLO_NONE)
		n = hlo_fresh_name(m, buf);
	m->comps[dc].ins[j].name = n;
	return j;
}

uint32_t
wu_inline(HloModule *m, uint32_t dc, uint32_t sc, const uint32_t *args,
	uint32_t nargs, PassEdit *ed)
{
	uint32_t n = m->comps[sc].nins, *order, *map, *buf, cap = 16;
	uint32_t k, x, j, root = HLO_NONE;
	int cnt, i;

	order = xreallocarray(NULL, n + 1, sizeof *order);
	map = xreallocarray(NULL, n + 1, sizeof *map);
	buf = xreallocarray(NULL, cap, sizeof *buf);
	cnt = hlo_topo(m, sc, order);
	for (x = 0; x < n; x++)
		map[x] = HLO_NONE;
	for (i = 0; i < cnt; i++) {
		HloInstr in;

		x = order[i];
		in = m->comps[sc].ins[x];
		if (in.op == HOP_PARAMETER) {
			if (in.num < 0 || (uint64_t)in.num >= nargs)
				goto out;
			map[x] = args[in.num];
			continue;
		}
		if (in.nops + in.nctrl > cap) {
			cap = in.nops + in.nctrl;
			buf = xreallocarray(buf, cap, sizeof *buf);
		}
		for (k = 0; k < in.nops; k++) {
			uint32_t d = m->ids[in.ops + k];

			if (d >= n || map[d] == HLO_NONE)
				goto out;
			buf[k] = map[d];
		}
		j = pass_copy_instr(m, dc, sc, x, in.nops, buf);
		for (k = 0; k < in.nctrl; k++) {
			uint32_t d = m->ids[in.ctrl + k];

			buf[k] = d < n ? map[d] : HLO_NONE;
		}
		if (in.nctrl) {
			uint32_t w = 0;

			for (k = 0; k < in.nctrl; k++)
				if (buf[k] != HLO_NONE)
					buf[w++] = buf[k];
			hlo_set_ctrl(m, dc, j, w, buf);
		}
		if (ed)
			pass_edit_added(ed, j);
		map[x] = j;
	}
	if (cnt >= 0 && m->comps[sc].root < n)
		root = map[m->comps[sc].root];
out:
	free(order);
	free(map);
	free(buf);
	return root;
}

void
wu_replace_uses(HloModule *m, uint32_t c, uint32_t from, uint32_t to,
	uint32_t keep)
{
	hlo_replace_uses_in(m, c, from, to, keep, UINT32_MAX);
}

int
wu_uses(const HloModule *m, const HloInstr *in, uint32_t x)
{
	uint32_t k;

	if (in->flags & HI_DEAD)
		return 0;
	for (k = 0; k < in->nops; k++)
		if (m->ids[in->ops + k] == x)
			return 1;
	return 0;
}

uint32_t *
wu_users(const HloModule *m, uint32_t c, uint32_t x, uint32_t *n,
	PassCtx *ctx)
{
	const HloComp *cp = &m->comps[c];
	uint32_t i, cnt = 0, *list;

	for (i = 0; i < cp->nins; i++)
		cnt += wu_uses(m, &cp->ins[i], x);
	list = pass_alloc(ctx, (cnt + 1) * sizeof *list);
	*n = 0;
	for (i = 0; i < cp->nins; i++)
		if (wu_uses(m, &cp->ins[i], x))
			list[(*n)++] = i;
	return list;
}

uint32_t
wu_param0(const HloModule *m, uint32_t c)
{
	return c < m->ncomps ? hlo_param(m, c, 0) : HLO_NONE;
}

int
wu_is_tuple_op(const HloModule *m, uint32_t c, uint32_t i)
{
	return i < m->comps[c].nins && m->comps[c].ins[i].op == HOP_TUPLE;
}

int
wu_has_ctrl(const HloModule *m, uint32_t c, uint32_t i)
{
	const HloComp *cp = &m->comps[c];
	uint32_t j, k;

	if (cp->ins[i].nctrl)
		return 1;
	for (j = 0; j < cp->nins; j++) {
		if (cp->ins[j].flags & HI_DEAD)
			continue;
		for (k = 0; k < cp->ins[j].nctrl; k++)
			if (m->ids[cp->ins[j].ctrl + k] == i)
				return 1;
	}
	return 0;
}

int
wu_frontend_true(const HloModule *m, const HloInstr *in, const char *key)
{
	uint32_t n;
	const char *v = pass_frontend_attr(m, in, key, &n);

	if (!v)
		return 0;
	return (n == 4 && !strncasecmp(v, "true", 4)) ||
		(n == 1 && v[0] == '1') || (n == 3 && !strncasecmp(v, "yes", 3));
}

int
wu_while_dce_disabled(const HloModule *m, const HloInstr *in)
{
	return in->nattrs && (wu_frontend_true(m, in,
		"_xla_disable_while_loop_dce") ||
		wu_frontend_true(m, in, "xla.disable_while_loop_dce") ||
		wu_frontend_true(m, in, "_xla_preserve_tuple_indices") ||
		wu_frontend_true(m, in, "xla.preserve_tuple_indices"));
}

int
wu_while_regular(const HloModule *m, uint32_t c, uint32_t i)
{
	const HloInstr *in = &m->comps[c].ins[i];
	const HloComp *b;
	uint32_t s;

	if (in->op != HOP_WHILE || in->nops != 1 || in->ncalled != 2)
		return 0;
	b = &m->comps[m->ids[in->called]];
	s = b->ins[b->root].shape;
	return hlo_infer_compatible(m, s, in->shape) &&
		hlo_infer_compatible(m, s, m->comps[c].ins[m->ids[in->ops]].shape);
}

int64_t
wu_elems(const HloModule *m, uint32_t shape)
{
	const HloShape *sh = hlo_sh(m, shape);
	int64_t n;

	if (sh->type == TY_TUPLE || sh->type == TY_TOKEN ||
	    sh->type == TY_OPAQUE)
		return 0;
	n = hlo_shape_elems(m, shape);
	return n < 0 ? INT64_MAX : n;
}

/* scalars */

int
wu_is_float(int type)
{
	return hlo_typeinfo[type].cls == C_FLOAT;
}

int
wu_is_int(int type)
{
	return hlo_typeinfo[type].cls == C_SINT ||
		hlo_typeinfo[type].cls == C_UINT;
}

/* wraps an integer to the width of type */
static void
norm_int(WuVal *v)
{
	int bits = hlo_typeinfo[v->type].bits;
	uint64_t mask = bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;

	v->u &= mask;
	if (hlo_typeinfo[v->type].cls == C_SINT && bits < 64 &&
	    (v->u >> (bits - 1) & 1))
		v->s = (int64_t)(v->u | ~mask);
	else
		v->s = (int64_t)v->u;
	if (hlo_typeinfo[v->type].cls == C_SINT)
		v->u = (uint64_t)v->s;
	v->f = hlo_typeinfo[v->type].cls == C_SINT ? (double)v->s :
		(double)v->u;
}

static void
norm_float(WuVal *v)
{
	if (v->type != TY_F64)
		v->f = hlo_float_decode(v->type, hlo_float_encode(v->type,
			v->f));
}

static void
set_int(WuVal *v, int type, uint64_t u)
{
	v->type = type;
	v->u = u;
	norm_int(v);
}

static void
set_pred(WuVal *v, int b)
{
	v->type = TY_PRED;
	v->u = b != 0;
	v->s = (int64_t)v->u;
	v->f = (double)v->u;
}

static void
set_float(WuVal *v, int type, double f)
{
	v->type = type;
	v->f = f;
	norm_float(v);
	v->s = 0;
	v->u = 0;
}

int
wu_read(const HloModule *m, const HloInstr *in, int64_t k, WuVal *v)
{
	const HloShape *sh = hlo_sh(m, in->shape);
	uint32_t nbytes;
	const unsigned char *p;
	int esz, t = sh->type, j;
	uint64_t raw = 0;

	if (in->op != HOP_CONSTANT || sh->type == TY_TUPLE || k < 0)
		return -1;
	p = hlo_literal(m, in, &nbytes);
	esz = hlo_type_bytes(t);
	if (!p || esz <= 0 || esz > 8 || (uint64_t)(k + 1) * esz > nbytes)
		return -1;
	for (j = 0; j < esz; j++)
		raw |= (uint64_t)p[k * esz + j] << (8 * j);
	memset(v, 0, sizeof *v);
	switch (hlo_typeinfo[t].cls) {
	case C_PRED:
		set_pred(v, raw != 0);
		return 0;
	case C_SINT:
	case C_UINT:
		set_int(v, t, raw);
		return 0;
	case C_FLOAT:
		v->type = t;
		v->f = hlo_float_decode(t, raw);
		return 0;
	}
	return -1;
}

int
wu_scalar_int(const HloModule *m, const HloInstr *in, int64_t *out)
{
	WuVal v;

	if (in->op != HOP_CONSTANT || wu_elems(m, in->shape) != 1 ||
	    !wu_is_int(hlo_sh(m, in->shape)->type) || wu_read(m, in, 0, &v))
		return -1;
	if (hlo_typeinfo[v.type].cls == C_UINT && v.u > INT64_MAX)
		return -1;
	*out = v.s;
	return 0;
}

/* the value of one scalar operation is the evaluator's (ev_ew_run), so
 * that the loop analysis can never disagree with running the module;
 * wu_eval_op only chooses which operations the analysis relies on and
 * refuses the cases where the value is not a plain number: integer
 * division by zero or overflow, a float converted out of an integer
 * type's range, total-order comparisons */

static Lane
to_lane(const WuVal *v)
{
	Lane l;

	memset(&l, 0, sizeof l);
	switch (hlo_typeinfo[v->type].cls) {
	case C_FLOAT: l.f = v->f; break;
	case C_SINT: l.s = v->s; break;
	default: l.u = v->u; break;
	}
	return l;
}

static void
from_lane(int t, Lane l, WuVal *r)
{
	memset(r, 0, sizeof *r);
	switch (hlo_typeinfo[t].cls) {
	case C_PRED: set_pred(r, l.u != 0); break;
	case C_FLOAT: set_float(r, t, l.f); break;
	case C_SINT: set_int(r, t, (uint64_t)l.s); break;
	default: set_int(r, t, l.u); break;
	}
}

/* a compare's direction as CMP_*, -1 if none */
static int
cmp_dir(const HloModule *m, const HloInstr *in)
{
	uint32_t n;
	const char *w = hlo_attr_word(m, in, A_DIRECTION, &n);

	return w ? ev_cmp_dir(w, n) : -1;
}

/* runs in's operation on o with the evaluator's arithmetic */
static int
run(const HloModule *m, const HloInstr *in, const WuVal *o, WuVal *r)
{
	EwOp op;
	Lane a[3], out;
	uint32_t k;
	int d;

	memset(&op, 0, sizeof op);
	memset(a, 0, sizeof a);
	op.op = in->op;
	op.type = hlo_sh(m, in->shape)->type;
	op.t0 = op.t1 = op.t2 = TY_INVALID;
	for (k = 0; k < in->nops && k < 3; k++) {
		(&op.t0)[k] = o[k].type;
		a[k] = to_lane(&o[k]);
	}
	if (in->op == HOP_COMPARE) {
		if ((d = cmp_dir(m, in)) < 0 ||
		    hlo_attr_is(m, in, A_CMP_TYPE, "TOTALORDER"))
			return -1;
		op.dir = d;
	}
	if (ev_ew_check(&op))
		return -1;
	ev_ew_run(&op, 1, &out, &a[0], &a[1], &a[2]);
	ev_lane_round(op.type, &out, 1);
	from_lane(op.type, out, r);
	return 0;
}

/* a float converted to integer type t is in t's range */
static int
converts_exactly(const WuVal *a, int t)
{
	WuVal r;
	double f = trunc(a->f);

	if (isnan(f) || f < -9.2e18 || f > 9.2e18)
		return 0;
	set_int(&r, t, (uint64_t)(int64_t)f);
	return r.f == f;
}

static int
supported(const HloInstr *in, const WuVal *o, int t)
{
	int cls = hlo_typeinfo[t].cls, sgn = cls == C_SINT;

	if (cls != C_PRED && cls != C_SINT && cls != C_UINT && cls != C_FLOAT)
		return 0;
	switch (in->op) {
	case HOP_COMPARE:
		return in->nops == 2 && o[0].type == o[1].type;
	case HOP_CONVERT:
		if (in->nops != 1)
			return 0;
		if (hlo_typeinfo[o[0].type].cls == C_FLOAT &&
		    (cls == C_SINT || cls == C_UINT))
			return converts_exactly(&o[0], t);
		return cls == C_PRED || cls == C_FLOAT || cls == C_SINT ||
			cls == C_UINT;
	case HOP_SELECT:
		return in->nops == 3;
	case HOP_COPY:
		return in->nops == 1;
	case HOP_NOT: case HOP_NEGATE: case HOP_ABS:
		return in->nops == 1 && (cls == C_SINT || cls == C_UINT ||
			(in->op == HOP_NOT ? cls == C_PRED : cls == C_FLOAT));
	}
	if (in->nops != 2 || o[0].type != t || o[1].type != t)
		return 0;
	switch (in->op) {
	case HOP_AND: case HOP_OR: case HOP_XOR:
		return cls != C_FLOAT;
	case HOP_ADD: case HOP_SUBTRACT: case HOP_MUL: case HOP_MAX:
	case HOP_MIN:
		return cls != C_PRED;
	case HOP_DIVIDE:
		if (cls == C_FLOAT)
			return 1;
		/* fallthrough */
	case HOP_REMAINDER:
		return (cls == C_SINT || cls == C_UINT) && o[1].u != 0 &&
			!(sgn && o[1].s == -1 && o[0].s == INT64_MIN);
	}
	return 0;
}

int
wu_eval_op(const HloModule *m, const HloInstr *in, const WuVal *o, WuVal *r)
{
	int t = hlo_sh(m, in->shape)->type;

	memset(r, 0, sizeof *r);
	if (!supported(in, o, t))
		return -1;
	if (in->op == HOP_SELECT || in->op == HOP_COPY) {
		*r = in->op == HOP_COPY ? o[0] : o[0].u ? o[1] : o[2];
		return 0;
	}
	return run(m, in, o, r);
}

/* while-loop analysis */

static const HloInstr *
ins(const HloModule *m, uint32_t c, uint32_t i)
{
	return &m->comps[c].ins[i];
}

static uint32_t
opnd(const HloModule *m, uint32_t c, uint32_t i, uint32_t k)
{
	return m->ids[m->comps[c].ins[i].ops + k];
}

static int
is_scalar_shape(const HloModule *m, uint32_t s)
{
	const HloShape *sh = hlo_sh(m, s);

	return sh->type != TY_TUPLE && sh->type != TY_TOKEN &&
		sh->type != TY_OPAQUE && sh->rank == 0;
}

/* TraceThroughCopyAndGteTupleChain */
static uint32_t
trace(const HloModule *m, uint32_t c, uint32_t x)
{
	uint32_t steps = 0, n = m->comps[c].nins;

	while (x < n && steps++ < n) {
		const HloInstr *in = ins(m, c, x);

		if (in->op == HOP_GTE && in->nops &&
		    ins(m, c, opnd(m, c, x, 0))->op == HOP_TUPLE) {
			uint32_t t = opnd(m, c, x, 0);
			int64_t k = hlo_attr_int(m, in, A_INDEX, -1);

			if (k < 0 || k >= ins(m, c, t)->nops)
				return x;
			x = opnd(m, c, t, k);
		} else if ((in->op == HOP_COPY || in->op == HOP_COPYSTART ||
		    in->op == HOP_COPYDONE) && in->nops) {
			x = opnd(m, c, x, 0);
		} else {
			return x;
		}
	}
	return x;
}

/* NonConstantOperand: the one distinct non-constant operand */
static uint32_t
nonconst(const HloModule *m, uint32_t c, uint32_t x)
{
	const HloInstr *in = ins(m, c, x);
	uint32_t k, d, r = HLO_NONE;

	for (k = 0; k < in->nops; k++) {
		d = opnd(m, c, x, k);
		if (ins(m, c, d)->op == HOP_CONSTANT)
			continue;
		if (r != HLO_NONE && r != d)
			return HLO_NONE;
		r = d;
	}
	return r;
}

/* IsScalarOp */
static int
scalar_op(const HloModule *m, const HloInstr *in, int depth)
{
	uint32_t k, i;

	if (depth > 32 || (hlo_opinfo[in->op].flags & OPF_COLL))
		return 0;
	switch (in->op) {
	case HOP_SEND: case HOP_SENDDONE: case HOP_RECV: case HOP_RECVDONE:
	case HOP_CUSTOMCALL:
	case HOP_ALLGATHERSTART: case HOP_ALLGATHERDONE:
	case HOP_ALLREDUCESTART: case HOP_ALLREDUCEDONE:
	case HOP_COLLPERMUTESTART: case HOP_COLLPERMUTEDONE:
		return 0;
	}
	for (k = 0; k < in->ncalled; k++) {
		uint32_t d = m->ids[in->called + k];
		const HloComp *cp;

		if (d >= m->ncomps)
			return 0;
		cp = &m->comps[d];
		for (i = 0; i < cp->nins; i++)
			if (!(cp->ins[i].flags & HI_DEAD) &&
			    !scalar_op(m, &cp->ins[i], depth + 1))
				return 0;
	}
	return is_scalar_shape(m, in->shape);
}

typedef struct {
	int64_t *idx;
	uint32_t n, cap;
} IdxSet;

static void
idx_add(IdxSet *s, int64_t k)
{
	uint32_t j;

	for (j = 0; j < s->n; j++)
		if (s->idx[j] == k)
			return;
	s->idx = hlo_grow(s->idx, s->n, &s->cap, 8, sizeof *s->idx);
	s->idx[s->n++] = k;
}

/* GetGTEDependenceIndices(out, param); 0 ok (s->n > 0), -1 none */
static int
gte_deps(const HloModule *m, uint32_t c, uint32_t out, uint32_t param,
	IdxSet *s)
{
	uint32_t n = m->comps[c].nins, top = 0, x, k, d, cap = 64;
	uint8_t *seen = xcalloc(n + 1, 1);
	uint32_t *stack = xreallocarray(NULL, cap, sizeof *stack);
	int ok = 0;

	s->n = 0;
	if (param >= n || hlo_sh(m, ins(m, c, param)->shape)->type != TY_TUPLE)
		goto out;
	stack[top++] = out;
	while (top) {
		const HloInstr *in;
		uint32_t push[1], np = 0;

		x = stack[--top];
		if (x >= n)
			goto out;
		if (seen[x])
			continue;
		seen[x] = 1;
		in = ins(m, c, x);
		if (x == param || in->op == HOP_PARAMETER)
			goto out;
		if (in->op == HOP_GTE) {
			if (!is_scalar_shape(m, in->shape) || !in->nops)
				goto out;
			d = opnd(m, c, x, 0);
			while (d < n && ins(m, c, d)->op == HOP_COPY &&
			    ins(m, c, d)->nops)
				d = opnd(m, c, d, 0);
			if (d == param) {
				idx_add(s, hlo_attr_int(m, in, A_INDEX, -1));
				continue;
			}
			if (d >= n || ins(m, c, d)->op != HOP_TUPLE)
				goto out;
			x = d;
			in = ins(m, c, x);
		} else if (in->op == HOP_COPY) {
			if (!in->nops)
				goto out;
			push[np++] = opnd(m, c, x, 0);
			in = NULL;
		} else if (in->op == HOP_FUSION || in->op == HOP_CALL ||
		    !scalar_op(m, in, 0)) {
			goto out;
		}
		if (np) {
			if (top + 1 > cap) {
				cap *= 2;
				stack = xreallocarray(stack, cap, sizeof *stack);
			}
			stack[top++] = push[0];
			continue;
		}
		for (k = 0; k < in->nops; k++) {
			if (top + 1 > cap) {
				cap *= 2;
				stack = xreallocarray(stack, cap, sizeof *stack);
			}
			stack[top++] = opnd(m, c, x, k);
		}
	}
	ok = s->n > 0;
out:
	free(seen);
	free(stack);
	return ok ? 0 : -1;
}

uint32_t
wu_unique_gte(const HloModule *m, uint32_t c, uint32_t param, int64_t k)
{
	const HloComp *cp = &m->comps[c];
	uint32_t i, r = HLO_NONE;

	for (i = 0; i < cp->nins; i++) {
		const HloInstr *in = &cp->ins[i];

		if ((in->flags & HI_DEAD) || in->op != HOP_GTE || !in->nops ||
		    m->ids[in->ops] != param ||
		    hlo_attr_int(m, in, A_INDEX, -1) != k)
			continue;
		if (r != HLO_NONE)
			return HLO_NONE;
		r = i;
	}
	return r;
}

static int
loop_parts(const HloModule *m, uint32_t c, uint32_t w, uint32_t *body,
	uint32_t *cond)
{
	const HloInstr *in = ins(m, c, w);

	if (in->op != HOP_WHILE || in->ncalled != 2 || in->nops != 1)
		return -1;
	*body = m->ids[in->called];
	*cond = m->ids[in->called + 1];
	if (*body >= m->ncomps || *cond >= m->ncomps ||
	    m->comps[*body].root >= m->comps[*body].nins ||
	    m->comps[*cond].root >= m->comps[*cond].nins ||
	    !wu_while_regular(m, c, w))
		return -1;
	return 0;
}

int64_t
wu_indvar_index(const HloModule *m, uint32_t c, uint32_t w)
{
	uint32_t body, cond, cparam, bparam, broot, inc, init;
	IdxSet s = {0};
	int64_t idx = -1, k;

	if (loop_parts(m, c, w, &body, &cond) < 0)
		return -1;
	cparam = wu_param0(m, cond);
	bparam = wu_param0(m, body);
	if (cparam == HLO_NONE || bparam == HLO_NONE ||
	    gte_deps(m, cond, m->comps[cond].root, cparam, &s) < 0 ||
	    s.n != 1)
		goto out;
	k = s.idx[0];
	init = opnd(m, c, w, 0);
	broot = m->comps[body].root;
	if (ins(m, c, init)->op != HOP_TUPLE ||
	    ins(m, body, broot)->op != HOP_TUPLE || k < 0 ||
	    k >= ins(m, body, broot)->nops)
		goto out;
	inc = trace(m, body, opnd(m, body, broot, k));
	if (gte_deps(m, body, inc, bparam, &s) < 0 || s.n != 1 ||
	    s.idx[0] != k)
		goto out;
	idx = k;
out:
	free(s.idx);
	return idx;
}

/* the value of a scalar constant expression (EvaluateIndvarInit) */
static int
const_eval(const HloModule *m, uint32_t c, uint32_t x, WuVal *v, int depth)
{
	const HloInstr *in = ins(m, c, x);
	WuVal o[3];
	uint32_t k;

	if (depth > 32 || wu_elems(m, in->shape) != 1)
		return -1;
	if (in->op == HOP_CONSTANT)
		return wu_read(m, in, 0, v);
	if (in->op == HOP_RESHAPE || in->op == HOP_BROADCAST ||
	    in->op == HOP_COPY || in->op == HOP_BITCAST) {
		if (!in->nops || hlo_sh(m, ins(m, c, opnd(m, c, x, 0))->shape)->
		    type != hlo_sh(m, in->shape)->type)
			return -1;
		return const_eval(m, c, opnd(m, c, x, 0), v, depth + 1);
	}
	if (!(hlo_opinfo[in->op].flags & OPF_ELEM) || in->nops > 3 ||
	    in->ncalled)
		return -1;
	for (k = 0; k < in->nops; k++)
		if (const_eval(m, c, opnd(m, c, x, k), &o[k], depth + 1) < 0)
			return -1;
	return wu_eval_op(m, in, o, v);
}

static int
checked_sub(int64_t a, int64_t b, int64_t *r)
{
	return __builtin_sub_overflow(a, b, r) ? -1 : 0;
}

/* MatchTrivialLoopTripCount */
static int64_t
trivial_trips(const HloModule *m, uint32_t body, uint32_t cond, int64_t k,
	int64_t init, int64_t *stepo)
{
	uint32_t bparam = wu_param0(m, body), cparam = wu_param0(m, cond);
	uint32_t upd, iv, g, step_i, croot, civ, bound_i;
	const HloInstr *u, *cr;
	int64_t step, bound, trips, r;
	int dir;

	upd = trace(m, body, opnd(m, body, m->comps[body].root, k));
	iv = nonconst(m, body, upd);
	g = wu_unique_gte(m, body, bparam, k);
	if (iv == HLO_NONE || g == HLO_NONE || trace(m, body, iv) != g)
		return -1;
	u = ins(m, body, upd);
	if (u->op != HOP_ADD || u->nops != 2)
		return -1;
	if (opnd(m, body, upd, 0) == iv &&
	    ins(m, body, opnd(m, body, upd, 1))->op == HOP_CONSTANT)
		step_i = opnd(m, body, upd, 1);
	else if (opnd(m, body, upd, 1) == iv &&
	    ins(m, body, opnd(m, body, upd, 0))->op == HOP_CONSTANT)
		step_i = opnd(m, body, upd, 0);
	else
		return -1;
	if (wu_scalar_int(m, ins(m, body, step_i), &step) < 0 || step <= 0)
		return -1;
	*stepo = step;
	croot = m->comps[cond].root;
	cr = ins(m, cond, croot);
	civ = nonconst(m, cond, croot);
	if (civ == HLO_NONE || civ != wu_unique_gte(m, cond, cparam, k) ||
	    cr->nops != 2)
		return -1;
	bound_i = opnd(m, cond, croot, 0) == civ ? opnd(m, cond, croot, 1) :
		opnd(m, cond, croot, 0);
	if ((opnd(m, cond, croot, 0) != civ && opnd(m, cond, croot, 1) != civ) ||
	    wu_scalar_int(m, ins(m, cond, bound_i), &bound) < 0)
		return -1;
	if (cr->op != HOP_COMPARE || opnd(m, cond, croot, 0) != civ)
		return -1;
	dir = cmp_dir(m, cr);
	if (dir != CMP_LT && dir != CMP_LE)
		return -1;
	if (checked_sub(bound, init, &trips) < 0)
		return -1;
	if (dir == CMP_LT) {
		if (trips <= 0)
			return 0;
		r = (trips - 1) / step;
	} else {
		if (trips < 0)
			return 0;
		r = trips / step;
	}
	return r == INT64_MAX ? -1 : r + 1;
}

/* evaluates instruction x of c whose operands are constants or v at
 * instruction iv */
static int
eval_with(const HloModule *m, uint32_t c, uint32_t x, uint32_t iv,
	const WuVal *v, WuVal *r)
{
	const HloInstr *in = ins(m, c, x);
	WuVal o[3];
	uint32_t k, d;

	if (!(hlo_opinfo[in->op].flags & OPF_ELEM) || in->nops > 3 ||
	    in->ncalled || wu_elems(m, in->shape) != 1)
		return -1;
	for (k = 0; k < in->nops; k++) {
		d = opnd(m, c, x, k);
		if (d == iv)
			o[k] = *v;
		else if (wu_elems(m, ins(m, c, d)->shape) != 1 ||
		    wu_read(m, ins(m, c, d), 0, &o[k]) < 0)
			return -1;
	}
	return wu_eval_op(m, in, o, r);
}

int64_t
wu_trip_count(const HloModule *m, uint32_t c, uint32_t w, int64_t max_brute)
{
	uint32_t body, cond, init, upd, iv, civ, croot;
	int64_t k, t, init_i, step;
	WuVal v, r;

	k = wu_indvar_index(m, c, w);
	if (k < 0 || loop_parts(m, c, w, &body, &cond) < 0)
		return -1;
	init = opnd(m, c, w, 0);
	if (k >= ins(m, c, init)->nops ||
	    const_eval(m, c, trace(m, c, opnd(m, c, init, k)), &v, 0) < 0)
		return -1;
	if (wu_is_int(v.type) && !(hlo_typeinfo[v.type].cls == C_UINT &&
	    v.u > INT64_MAX)) {
		init_i = v.s;
		t = trivial_trips(m, body, cond, k, init_i, &step);
		if (t >= 0)
			return t;
	}
	upd = opnd(m, body, m->comps[body].root, k);
	iv = nonconst(m, body, upd);
	if (iv == HLO_NONE || iv != wu_unique_gte(m, body, wu_param0(m, body),
	    k))
		return -1;
	croot = m->comps[cond].root;
	civ = nonconst(m, cond, croot);
	if (civ == HLO_NONE || civ != wu_unique_gte(m, cond, wu_param0(m, cond),
	    k))
		return -1;
	for (t = 0; t != max_brute + 1; t++) {
		if (eval_with(m, cond, croot, civ, &v, &r) < 0 ||
		    r.type != TY_PRED)
			return -1;
		if (!r.u)
			return t;
		if (eval_with(m, body, upd, iv, &v, &r) < 0)
			return -1;
		v = r;
	}
	return -1;
}

int
wu_trivial_loop(const HloModule *m, uint32_t c, uint32_t w, WuLoop *lp)
{
	uint32_t body, cond, init, x, k;
	const HloInstr *in;
	WuVal v;

	lp->idx = wu_indvar_index(m, c, w);
	if (lp->idx < 0 || loop_parts(m, c, w, &body, &cond) < 0)
		return -1;
	init = opnd(m, c, w, 0);
	if (lp->idx >= ins(m, c, init)->nops)
		return -1;
	x = opnd(m, c, init, lp->idx);
	in = ins(m, c, x);
	if (in->op == HOP_PARAMETER)
		return -1;
	for (k = 0; k < in->nops; k++)
		if (ins(m, c, opnd(m, c, x, k))->op != HOP_CONSTANT)
			return -1;
	if (const_eval(m, c, x, &v, 0) < 0 || !wu_is_int(v.type) ||
	    (hlo_typeinfo[v.type].cls == C_UINT && v.u > INT64_MAX))
		return -1;
	lp->init = v.s;
	lp->trips = trivial_trips(m, body, cond, lp->idx, lp->init,
		&lp->step);
	return lp->trips < 0 ? -1 : 0;
}

/* evaluates the scalar expression x of c with g replaced by v */
static int
eval_tree(const HloModule *m, uint32_t c, uint32_t x, uint32_t g,
	const WuVal *v, WuVal *r, int depth)
{
	const HloInstr *in = ins(m, c, x);
	WuVal o[3];
	uint32_t k;

	if (x == g) {
		*r = *v;
		return 0;
	}
	if (depth > 64 || wu_elems(m, in->shape) != 1)
		return -1;
	if (in->op == HOP_CONSTANT)
		return wu_read(m, in, 0, r);
	if (in->op == HOP_RESHAPE || in->op == HOP_BITCAST ||
	    in->op == HOP_BROADCAST)
		return in->nops ? eval_tree(m, c, opnd(m, c, x, 0), g, v, r,
			depth + 1) : -1;
	if (!(hlo_opinfo[in->op].flags & OPF_ELEM) || in->nops > 3 ||
	    in->ncalled)
		return -1;
	for (k = 0; k < in->nops; k++)
		if (eval_tree(m, c, opnd(m, c, x, k), g, v, &o[k],
		    depth + 1) < 0)
			return -1;
	return wu_eval_op(m, in, o, r);
}

int64_t
wu_trip_upper(const HloModule *m, uint32_t c, uint32_t w)
{
	uint32_t body, cond, cparam, i, g = HLO_NONE, users = 0, broot, bv;
	const HloComp *cp;
	int64_t t = wu_trip_count(m, c, w, 128), idx;
	WuVal v, r;

	if (t >= 0)
		return t;
	if (loop_parts(m, c, w, &body, &cond) < 0)
		return -1;
	cparam = wu_param0(m, cond);
	cp = &m->comps[cond];
	for (i = 0; i < cp->nins; i++)
		if (wu_uses(m, &cp->ins[i], cparam)) {
			users++;
			g = i;
		}
	if (users != 1 || ins(m, cond, g)->op != HOP_GTE)
		return -1;
	idx = hlo_attr_int(m, ins(m, cond, g), A_INDEX, -1);
	broot = m->comps[body].root;
	if (ins(m, body, broot)->op != HOP_TUPLE || idx < 0 ||
	    idx >= ins(m, body, broot)->nops)
		return -1;
	bv = opnd(m, body, broot, idx);
	if (ins(m, body, bv)->op != HOP_CONSTANT ||
	    wu_elems(m, ins(m, body, bv)->shape) != 1 ||
	    wu_read(m, ins(m, body, bv), 0, &v) < 0)
		return -1;
	if (eval_tree(m, cond, cp->root, g, &v, &r, 0) < 0 ||
	    r.type != TY_PRED)
		return -1;
	return r.u ? -1 : 1;
}

/* the live instructions that keep takes (wu_while_regular: the regular
 * while loops) of the computations comps (NULL: 0 .. n-1), walked
 * backwards with reverse, fusion computations passed over: *out holds
 * (computation, instruction) pairs, free() it; returns their count */
uint32_t
wu_while_loops(const HloModule *m, const uint32_t *comps, uint32_t n,
	int reverse, int (*keep)(const HloModule *m, uint32_t c, uint32_t i),
	uint32_t **out)
{
	uint32_t *wl, nw = 0, capw = 16, k, c, i;

	wl = xreallocarray(NULL, capw, 2 * sizeof *wl);
	for (k = 0; k < n; k++) {
		c = reverse ? n - 1 - k : k;
		c = comps ? comps[c] : c;
		if (m->comps[c].flags & HC_FUSION)
			continue;
		for (i = 0; i < m->comps[c].nins; i++) {
			if ((m->comps[c].ins[i].flags & HI_DEAD) ||
			    !keep(m, c, i))
				continue;
			if (nw == capw) {
				capw *= 2;
				wl = xreallocarray(wl, capw, 2 * sizeof *wl);
			}
			wl[2 * nw] = c;
			wl[2 * nw++ + 1] = i;
		}
	}
	*out = wl;
	return nw;
}
