/* infer.c: xla's shape inference (xla/service/shape_inference.cc, as
 * hlo_verifier.cc uses it): the shape an instruction's opcode, operands,
 * attributes and called computations give. hlo_infer_shape returns it;
 * hlo_verify (verify.c) compares it with every instruction's own shape
 * through hlo_infer_check.
 *
 * Inference builds its answer as a small tree of nodes kept outside the
 * module (arrays, tuples, or references to module shapes), so checking a
 * const module never grows its pools. Shapes are compared without layout;
 * element types, dimensions and dynamic dimensions must be equal. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "infer.h"

#define MAXRANK 64
#define MAXDEPTH 256

enum { L_ARR, L_TUP, L_REF };

struct HloInferNode {
	uint8_t kind;		/* L_* */
	uint8_t type;		/* L_ARR: TY_* */
	uint16_t rank;		/* L_ARR */
	uint32_t ref;		/* L_REF: module shape id */
	uint32_t n;		/* L_TUP: element count */
	uint32_t off;		/* L_ARR: dims at ints[off]; L_TUP: elements
				 * at kids[off] */
	uint64_t dyn;		/* L_ARR: dynamic dimensions */
};

typedef HloInferNode LNode;

/* comparison flags */
enum { IGN_DYN = 1, IGN_FP = 2 };

typedef HloInfer V;

typedef struct {
	char b[320];
	size_t n;
} Str;

/* small helpers */

static void *
grow(void *p, uint32_t *cap, uint32_t need, size_t size)
{
	uint32_t c = *cap ? *cap : 16;

	if (need <= *cap)
		return p;
	while (c < need)
		c = c > UINT32_MAX / 2 ? UINT32_MAX : c * 2;
	*cap = c;
	return xreallocarray(p, c, size);
}

/* scratch room for 3n element types */
static int *
typebuf(V *v, uint32_t n)
{
	v->types = grow(v->types, &v->capt, 3 * n + 1, sizeof *v->types);
	return v->types;
}

static void
sput(Str *s, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (s->n >= sizeof s->b - 1)
		return;
	va_start(ap, fmt);
	r = vsnprintf(s->b + s->n, sizeof s->b - s->n, fmt, ap);
	va_end(ap);
	if (r > 0)
		s->n += (size_t)r;
	if (s->n >= sizeof s->b)
		s->n = sizeof s->b - 1;
}

static int
tcls(int t)
{
	return hlo_typeinfo[t].cls;
}

static int
isfloat(int t)
{
	return tcls(t) == C_FLOAT;
}

static int
iscplx(int t)
{
	return tcls(t) == C_CPLX;
}

static int
isint(int t)
{
	return tcls(t) == C_SINT || tcls(t) == C_UINT;
}

static int
issigned(int t)
{
	return tcls(t) == C_SINT || tcls(t) == C_FLOAT || tcls(t) == C_CPLX;
}

static int
isarrtype(int t)
{
	return t != TY_INVALID && t != TY_TUPLE && t != TY_OPAQUE &&
		t != TY_TOKEN && t != TY_BUFFER;
}

static int
bitwidth(int t)
{
	return hlo_typeinfo[t].bits;
}

static int
component(int t)
{
	return t == TY_C128 ? TY_F64 : TY_F32;
}

/* xla's SameElementTypeIgnoringFpPrecision */
static int
sametype(int a, int b, int flags)
{
	if ((flags & IGN_FP) && isfloat(a) && isfloat(b))
		return 1;
	return a == b;
}

/* module shapes */

#define SH(v, s) (&(v)->m->shapes[s])
#define DIMS(v, sh) ((v)->m->ints + (sh)->dims)

static int
isarr(const HloShape *sh)
{
	return isarrtype(sh->type);
}

static int
isscalar(const HloShape *sh)
{
	return isarr(sh) && sh->rank == 0;
}

static int
seq(const HloModule *m, uint32_t a, uint32_t b, int flags, int depth)
{
	const HloShape *x = &m->shapes[a], *y = &m->shapes[b];
	uint32_t k;

	if (a == b)
		return 1;
	if (depth > MAXDEPTH)
		return 0;
	if ((x->type == TY_TUPLE) != (y->type == TY_TUPLE))
		return 0;
	if (x->type == TY_TUPLE) {
		if (x->ntuple != y->ntuple)
			return 0;
		for (k = 0; k < x->ntuple; k++)
			if (!seq(m, m->ids[x->tuple + k], m->ids[y->tuple + k],
			    flags, depth + 1))
				return 0;
		return 1;
	}
	if (!isarrtype(x->type) || !isarrtype(y->type))
		return x->type == y->type;
	if (!sametype(x->type, y->type, flags) || x->rank != y->rank)
		return 0;
	if (!(flags & IGN_DYN) && x->dynmask != y->dynmask)
		return 0;
	return !x->rank || !memcmp(m->ints + x->dims, m->ints + y->dims,
		x->rank * 8u);
}

static int
samedims(V *v, const HloShape *a, const HloShape *b)
{
	return a->rank == b->rank && (!a->rank ||
		!memcmp(DIMS(v, a), DIMS(v, b), a->rank * 8u));
}

/* dimension k of size d: 4, <=4 (dynamic) or ? (unbounded) */
static void
pdim(Str *o, uint32_t k, int64_t d, uint64_t dyn)
{
	if (d == INT64_MIN)
		sput(o, "%s?", k ? "," : "");
	else
		sput(o, "%s%s%lld", k ? "," : "", dyn >> k & 1 ? "<=" : "",
			(long long)d);
}

static void
pshape(const HloModule *m, uint32_t s, Str *o, int depth)
{
	const HloShape *sh = &m->shapes[s];
	uint32_t k;

	if (depth > 8) {
		sput(o, "...");
		return;
	}
	if (sh->type == TY_TUPLE) {
		sput(o, "(");
		for (k = 0; k < sh->ntuple; k++) {
			if (k)
				sput(o, ", ");
			pshape(m, m->ids[sh->tuple + k], o, depth + 1);
		}
		sput(o, ")");
		return;
	}
	sput(o, "%s[", hlo_typeinfo[sh->type].name);
	for (k = 0; k < sh->rank; k++)
		pdim(o, k, m->ints[sh->dims + k], sh->dynmask);
	sput(o, "]");
}

static const char *
shs(V *v, uint32_t s, Str *o)
{
	o->n = 0;
	o->b[0] = 0;
	pshape(v->m, s, o, 0);
	return o->b;
}

/* inferred shapes */

static uint32_t
newnode(V *v, int kind)
{
	v->nodes = grow(v->nodes, &v->capn, v->nn + 1, sizeof *v->nodes);
	memset(&v->nodes[v->nn], 0, sizeof *v->nodes);
	v->nodes[v->nn].kind = kind;
	return v->nn++;
}

/* an array node; dims must not point into v->ints */
static uint32_t
larr(V *v, int type, int rank, const int64_t *dims, uint64_t dyn)
{
	uint32_t x = newnode(v, L_ARR);

	v->ints = grow(v->ints, &v->capi, v->ni + rank + 1, sizeof *v->ints);
	v->nodes[x].type = type;
	v->nodes[x].rank = rank;
	v->nodes[x].off = v->ni;
	v->nodes[x].dyn = dyn;
	if (rank)
		memcpy(v->ints + v->ni, dims, rank * 8u);
	v->ni += rank;
	return x;
}

static uint32_t
lref(V *v, uint32_t s)
{
	uint32_t x = newnode(v, L_REF);

	v->nodes[x].ref = s;
	return x;
}

/* a tuple node with n element slots, to be filled with lset */
static uint32_t
ltup(V *v, uint32_t n)
{
	uint32_t x = newnode(v, L_TUP);

	v->kids = grow(v->kids, &v->capk, v->nk + n + 1, sizeof *v->kids);
	v->nodes[x].n = n;
	v->nodes[x].off = v->nk;
	v->nk += n;
	return x;
}

static void
lset(V *v, uint32_t t, uint32_t k, uint32_t el)
{
	v->kids[v->nodes[t].off + k] = el;
}

static uint32_t
lscalar(V *v, int type)
{
	return larr(v, type, 0, NULL, 0);
}

/* an array node with the dims of module shape s and element type type */
static uint32_t
lcopy(V *v, uint32_t s, int type)
{
	const HloShape *sh = SH(v, s);

	return larr(v, type, sh->rank, DIMS(v, sh), sh->dynmask);
}

static int
leq(V *v, uint32_t x, uint32_t s, int flags)
{
	const LNode *n = &v->nodes[x];
	const HloShape *sh = SH(v, s);
	uint32_t k;

	if (n->kind == L_REF)
		return seq(v->m, n->ref, s, flags, 0);
	if (n->kind == L_TUP) {
		if (sh->type != TY_TUPLE || sh->ntuple != n->n)
			return 0;
		for (k = 0; k < n->n; k++)
			if (!leq(v, v->kids[n->off + k],
			    v->m->ids[sh->tuple + k], flags))
				return 0;
		return 1;
	}
	if (!isarrtype(n->type) || !isarr(sh))
		return n->type == sh->type;
	if (!sametype(n->type, sh->type, flags) || n->rank != sh->rank)
		return 0;
	if (!(flags & IGN_DYN) && n->dyn != sh->dynmask)
		return 0;
	return !n->rank || !memcmp(v->ints + n->off, DIMS(v, sh),
		n->rank * 8u);
}

static void
plnode(V *v, uint32_t x, Str *o)
{
	const LNode *n = &v->nodes[x];
	uint32_t k;

	if (n->kind == L_REF) {
		pshape(v->m, n->ref, o, 0);
		return;
	}
	if (n->kind == L_TUP) {
		sput(o, "(");
		for (k = 0; k < n->n; k++) {
			if (k)
				sput(o, ", ");
			plnode(v, v->kids[n->off + k], o);
		}
		sput(o, ")");
		return;
	}
	sput(o, "%s[", hlo_typeinfo[n->type].name);
	for (k = 0; k < n->rank; k++)
		pdim(o, k, v->ints[n->off + k], n->dyn);
	sput(o, "]");
}

static uint32_t
lintern(HloModule *m, V *v, uint32_t x)
{
	const LNode *n = &v->nodes[x];
	uint32_t *el, k, r, cnt;

	if (n->kind == L_REF)
		return hlo_shape_no_layout(m, n->ref);
	if (n->kind == L_ARR)
		return hlo_shape(m, n->type, n->rank, v->ints + n->off, NULL,
			n->dyn, 0);
	cnt = n->n;
	el = xreallocarray(NULL, cnt + 1, sizeof *el);
	for (k = 0; k < cnt; k++)
		el[k] = lintern(m, v, v->kids[v->nodes[x].off + k]);
	r = hlo_shape_tuple(m, cnt, el);
	free(el);
	return r;
}

/* errors */

int
hlo_infer_verr(V *v, const char *fmt, va_list ap)
{
	const HloModule *m = v->m;
	char msg[800];

	vsnprintf(msg, sizeof msg, fmt, ap);
	return hlo_err(v->e, "error: verify: computation %s, instruction %s: "
		"%s", hlo_cstr(m, m->comps[v->c].name),
		hlo_cstr(m, m->comps[v->c].ins[v->i].name), msg);
}

static int
bad(V *v, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = hlo_infer_verr(v, fmt, ap);
	va_end(ap);
	return r;
}

/* operands, attributes, called computations */

static uint32_t
opid(V *v, const HloInstr *in, uint32_t k)
{
	return v->m->ids[in->ops + k];
}

static uint32_t
opshid(V *v, const HloInstr *in, uint32_t k)
{
	return v->m->comps[v->c].ins[opid(v, in, k)].shape;
}

static const HloShape *
opsh(V *v, const HloInstr *in, uint32_t k)
{
	return SH(v, opshid(v, in, k));
}

static int
wantarr(V *v, const HloInstr *in, uint32_t k)
{
	Str s;

	if (isarr(opsh(v, in, k)))
		return 0;
	return bad(v, "operand %u has shape %s, expected an array", k,
		shs(v, opshid(v, in, k), &s));
}

static int
wantops(V *v, const HloInstr *in, uint32_t lo, uint32_t hi)
{
	if (in->nops >= lo && in->nops <= hi)
		return 0;
	if (lo == hi)
		return bad(v, "%u operands, expected %u", in->nops, lo);
	return bad(v, "%u operands, expected %u to %u", in->nops, lo, hi);
}

static const HloAttr *
attr(V *v, const HloInstr *in, int key)
{
	const HloAttr *a = hlo_attr(v->m, in, key);

	return a && a->kind == hlo_attrinfo[key].kind ? a : NULL;
}

/* ints of an attribute stored in the ints pool; NULL and *n = 0 if absent */
static const int64_t *
aints(V *v, const HloInstr *in, int key, uint32_t *n)
{
	const HloAttr *a = attr(v, in, key);

	*n = 0;
	if (!a || a->kind == K_INT || a->kind == K_BOOL || a->kind >= K_WORD)
		return NULL;
	*n = a->n;
	return v->m->ints + a->v;
}

static int64_t
aint(V *v, const HloInstr *in, int key, int64_t dflt)
{
	const HloAttr *a = attr(v, in, key);

	return a && (a->kind == K_INT || a->kind == K_BOOL) ? a->v : dflt;
}

static int
aword(V *v, const HloInstr *in, int key, const char *w)
{
	return hlo_attr_is(v->m, in, key, w);
}

/* the one value of a single-element ints attribute */
static int
aone(V *v, const HloInstr *in, int key, int64_t *x)
{
	uint32_t n;
	const int64_t *p = aints(v, in, key, &n);

	if (n != 1)
		return bad(v, "expected one value in %s={...}",
			hlo_attrinfo[key].key);
	*x = p[0];
	return 0;
}

static uint32_t
called(V *v, const HloInstr *in, uint32_t k)
{
	return v->m->ids[in->called + k];
}

static int
wantcalled(V *v, const HloInstr *in, uint32_t n)
{
	if (in->ncalled == n)
		return 0;
	return bad(v, "calls %u computations, expected %u", in->ncalled, n);
}

static uint32_t
nparams(V *v, uint32_t c)
{
	if (v->pstart)
		return v->pstart[c + 1] - v->pstart[c];
	return (uint32_t)hlo_param_count(v->m, c);
}

/* the shape of parameter k of computation c; HLO_NONE if absent */
static uint32_t
paramsh(V *v, uint32_t c, uint32_t k)
{
	uint32_t i;

	if (v->pstart)
		i = v->pidx[v->pstart[c] + k];
	else
		i = hlo_param(v->m, c, k);
	return i == HLO_NONE ? HLO_NONE : v->m->comps[c].ins[i].shape;
}

static uint32_t
rootsh(V *v, uint32_t c)
{
	const HloComp *cp = &v->m->comps[c];

	return cp->ins[cp->root].shape;
}

static const char *
cname(V *v, uint32_t c)
{
	return hlo_cstr(v->m, v->m->comps[c].name);
}

/* computation c takes n parameters */
static int
wantparams(V *v, uint32_t c, uint32_t n)
{
	if (nparams(v, c) == n)
		return 0;
	return bad(v, "called computation %s takes %u parameters, expected %u",
		cname(v, c), nparams(v, c), n);
}

/* parameter k of computation c has shape s (ignoring layout and dynamic
 * dimensions, as xla's ShapeUtil::Compatible) */
static int
wantparam(V *v, uint32_t c, uint32_t k, uint32_t s, int flags)
{
	uint32_t p = paramsh(v, c, k);
	Str a, b;

	if (p != HLO_NONE && seq(v->m, p, s, flags | IGN_DYN, 0))
		return 0;
	return bad(v, "parameter %u of %s has shape %s, expected %s", k,
		cname(v, c), p == HLO_NONE ? "none" : shs(v, p, &a),
		shs(v, s, &b));
}

/* parameter k of computation c is a scalar of type t */
static int
wantscalarparam(V *v, uint32_t c, uint32_t k, int t, int flags)
{
	uint32_t p = paramsh(v, c, k);
	Str a;

	if (p != HLO_NONE && isscalar(SH(v, p)) &&
	    sametype(SH(v, p)->type, t, flags))
		return 0;
	return bad(v, "parameter %u of %s has shape %s, expected %s[]", k,
		cname(v, c), p == HLO_NONE ? "none" : shs(v, p, &a),
		hlo_typeinfo[t].name);
}

static int
wantpredroot(V *v, uint32_t c)
{
	Str a;

	if (isscalar(SH(v, rootsh(v, c))) && SH(v, rootsh(v, c))->type ==
	    TY_PRED)
		return 0;
	return bad(v, "computation %s returns %s, expected pred[]",
		cname(v, c), shs(v, rootsh(v, c), &a));
}

/* element count, -1 on overflow */
static int64_t
nelems(const int64_t *d, int rank)
{
	int64_t n = 1;
	int k;

	for (k = 0; k < rank; k++) {
		if (d[k] < 0)
			return -1;
		if (d[k] && n > INT64_MAX / d[k])
			return -1;
		n *= d[k];
	}
	return n;
}

static int
inlist(const int64_t *p, uint32_t n, int64_t x)
{
	uint32_t k;

	for (k = 0; k < n; k++)
		if (p[k] == x)
			return 1;
	return 0;
}

/* every value in [0, rank) and none twice */
static int
dimlist(V *v, const int64_t *p, uint32_t n, int rank, const char *what)
{
	uint32_t k;

	for (k = 0; k < n; k++) {
		if (p[k] < 0 || p[k] >= rank)
			return bad(v, "%s: dimension %lld out of range for "
				"rank %d", what, (long long)p[k], rank);
		if (inlist(p, k, p[k]))
			return bad(v, "%s: dimension %lld repeated", what,
				(long long)p[k]);
	}
	return 0;
}

static uint64_t
rmask(int rank)
{
	return rank >= 64 ? ~0ull : (1ull << rank) - 1;
}

static int
sorted(const int64_t *p, uint32_t n)
{
	uint32_t k;

	for (k = 1; k < n; k++)
		if (p[k - 1] >= p[k])
			return 0;
	return 1;
}

/* elementwise */

static int
badtype(V *v, const char *want, int t)
{
	return bad(v, "operand element type %s, expected %s",
		hlo_typeinfo[t].name, want);
}

static int
inf_unary(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *s;
	int t, rt;

	if (wantarr(v, in, 0))
		return -1;
	s = opsh(v, in, 0);
	t = rt = s->type;
	switch (in->op) {
	case HOP_FLOOR:
	case HOP_CEIL:
	case HOP_ROUNDAFZ:
	case HOP_ROUNDEVEN:
	case HOP_REDUCEPRECISION:
		if (!isfloat(t))
			return badtype(v, "a floating point type", t);
		if (in->op == HOP_REDUCEPRECISION &&
		    (aint(v, in, A_EXPONENT_BITS, 0) < 1 ||
		    aint(v, in, A_MANTISSA_BITS, -1) < 0))
			return bad(v, "bad exponent_bits or mantissa_bits");
		break;
	case HOP_REAL:
	case HOP_IMAG:
		if (iscplx(t))
			rt = component(t);
		else if (!isfloat(t))
			return badtype(v, "a floating point or complex type",
				t);
		break;
	case HOP_ABS:
		if (iscplx(t))
			rt = component(t);
		else if (!issigned(t))
			return badtype(v, "a signed or complex type", t);
		break;
	case HOP_CLZ:
	case HOP_POPCNT:
		if (!isint(t))
			return badtype(v, "an integral type", t);
		break;
	case HOP_NEGATE:
		if (!isint(t) && !isfloat(t) && !iscplx(t))
			return badtype(v, "a numeric type", t);
		break;
	case HOP_SIGN:
		if (!issigned(t))
			return badtype(v, "a signed or complex type", t);
		break;
	case HOP_NOT:
		if (t != TY_PRED && !isint(t))
			return badtype(v, "pred or an integral type", t);
		break;
	case HOP_ISFINITE:
		if (!isfloat(t))
			return badtype(v, "a floating point type", t);
		rt = TY_PRED;
		break;
	default:	/* transcendental */
		if (!isfloat(t) && !iscplx(t))
			return badtype(v, "a floating point or complex type",
				t);
		break;
	}
	*out = larr(v, rt, s->rank, DIMS(v, s), s->dynmask);
	return 0;
}

/* operands a and b are arrays of the same type and dimensions */
static int
samearrays(V *v, const HloInstr *in, uint32_t a, uint32_t b, int flags)
{
	const HloShape *x, *y;
	Str p, q;

	if (wantarr(v, in, a) || wantarr(v, in, b))
		return -1;
	x = opsh(v, in, a);
	y = opsh(v, in, b);
	if (!sametype(x->type, y->type, flags) || !samedims(v, x, y))
		return bad(v, "operands %u and %u differ: %s and %s", a, b,
			shs(v, opshid(v, in, a), &p),
			shs(v, opshid(v, in, b), &q));
	return 0;
}

/* a compare's type= fits its operands: FLOAT or TOTALORDER for floating
 * point, SIGNED for signed integers, UNSIGNED for unsigned and pred */
static int
cmptype(V *v, const HloInstr *in, int t)
{
	const char *want = isfloat(t) || iscplx(t) ? NULL :
		tcls(t) == C_SINT ? "SIGNED" : "UNSIGNED";
	uint32_t n;
	const char *w = hlo_attr_word(v->m, in, A_CMP_TYPE, &n);

	if (!w)
		return 0;
	if (want ? aword(v, in, A_CMP_TYPE, want) :
	    aword(v, in, A_CMP_TYPE, "FLOAT") ||
	    aword(v, in, A_CMP_TYPE, "TOTALORDER"))
		return 0;
	return bad(v, "comparison type %.*s for %s operands", (int)n, w,
		hlo_typeinfo[t].name);
}

static int
inf_binary(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x, *y;
	int t;

	if (samearrays(v, in, 0, 1, IGN_FP))
		return -1;
	x = opsh(v, in, 0);
	y = opsh(v, in, 1);
	t = x->type;
	switch (in->op) {
	case HOP_SUBTRACT:
	case HOP_ATAN2:
	case HOP_POWER:
	case HOP_DIVIDE:
	case HOP_REMAINDER:
	case HOP_SHL:
	case HOP_SHRA:
	case HOP_SHRL:
		if (t == TY_PRED)
			return badtype(v, "an arithmetic type", t);
		break;
	case HOP_AND:
	case HOP_OR:
	case HOP_XOR:
		if (t != TY_PRED && !isint(t))
			return badtype(v, "pred or an integral type", t);
		break;
	case HOP_COMPLEX:
		if (t != TY_F32 && t != TY_F64)
			return badtype(v, "f32 or f64", t);
		t = t == TY_F32 ? TY_C64 : TY_C128;
		break;
	case HOP_COMPARE:
		if (cmptype(v, in, t))
			return -1;
		t = TY_PRED;
		break;
	}
	*out = larr(v, t, x->rank, DIMS(v, x), x->dynmask | y->dynmask);
	return 0;
}

static int
inf_clamp(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x;
	uint32_t k;
	Str p, q;

	for (k = 0; k < 3; k++)
		if (wantarr(v, in, k))
			return -1;
	x = opsh(v, in, 1);
	for (k = 0; k < 3; k += 2) {
		const HloShape *b = opsh(v, in, k);

		if (!sametype(b->type, x->type, IGN_FP) ||
		    (b->rank && !samedims(v, b, x)))
			return bad(v, "clamp bound %s does not fit operand %s",
				shs(v, opshid(v, in, k), &p),
				shs(v, opshid(v, in, 1), &q));
	}
	*out = lcopy(v, opshid(v, in, 1), x->type);
	return 0;
}

static int
inf_select(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *p, *x, *y;
	Str a, b;

	if (wantarr(v, in, 0) || samearrays(v, in, 1, 2, IGN_FP))
		return -1;
	p = opsh(v, in, 0);
	x = opsh(v, in, 1);
	y = opsh(v, in, 2);
	if (p->type != TY_PRED)
		return bad(v, "predicate %s is not pred",
			shs(v, opshid(v, in, 0), &a));
	if (p->rank && !samedims(v, p, x))
		return bad(v, "predicate %s does not fit operands %s",
			shs(v, opshid(v, in, 0), &a),
			shs(v, opshid(v, in, 1), &b));
	*out = larr(v, x->type, x->rank, DIMS(v, x),
		p->rank ? p->dynmask : x->dynmask | y->dynmask);
	return 0;
}

static int
inf_convert(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x, *s = SH(v, in->shape);

	if (wantarr(v, in, 0))
		return -1;
	if (!isarr(s))
		return bad(v, "convert to a non-array type");
	x = opsh(v, in, 0);
	*out = larr(v, s->type, x->rank, DIMS(v, x), x->dynmask);
	return 0;
}

static int
inf_bitcastcvt(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x, *s = SH(v, in->shape);
	int64_t d[MAXRANK + 1];
	int ib, ob, r, rank;

	if (wantarr(v, in, 0))
		return -1;
	if (!isarr(s))
		return bad(v, "bitcast-convert to a non-array type");
	x = opsh(v, in, 0);
	if (iscplx(x->type) != iscplx(s->type))
		return bad(v, "bitcast-convert between complex and real types");
	ib = bitwidth(x->type);
	ob = bitwidth(s->type);
	if (!ib || !ob || (ib > ob ? ib % ob : ob % ib))
		return bad(v, "bitcast-convert between %d and %d bit types",
			ib, ob);
	rank = x->rank;
	if (rank)
		memcpy(d, DIMS(v, x), rank * 8u);
	if (ib > ob) {
		if (rank >= MAXRANK)
			return bad(v, "rank too large");
		d[rank++] = ib / ob;
	} else if (ib < ob) {
		r = ob / ib;
		if (!rank || d[rank - 1] != r)
			return bad(v, "bitcast-convert to a %d times wider "
				"type needs a last dimension of %d", r, r);
		rank--;
	}
	*out = larr(v, s->type, rank, d, x->dynmask & rmask(rank));
	return 0;
}

static int
inf_stochcvt(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x, *r, *s = SH(v, in->shape);

	if (wantarr(v, in, 0) || wantarr(v, in, 1))
		return -1;
	x = opsh(v, in, 0);
	r = opsh(v, in, 1);
	if (!isfloat(x->type))
		return badtype(v, "a floating point type", x->type);
	if (tcls(r->type) != C_UINT || bitwidth(r->type) != bitwidth(x->type))
		return bad(v, "random bits must be unsigned of the operand's "
			"width");
	if (!samedims(v, x, r))
		return bad(v, "random bits and operand differ in dimensions");
	if (!isarr(s))
		return bad(v, "convert to a non-array type");
	*out = larr(v, s->type, x->rank, DIMS(v, x), x->dynmask);
	return 0;
}

/* data movement */

static int
inf_broadcast(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x, *s = SH(v, in->shape);
	const int64_t *bd;
	uint32_t n, k;

	if (wantarr(v, in, 0))
		return -1;
	if (!isarr(s))
		return bad(v, "broadcast to a non-array shape");
	x = opsh(v, in, 0);
	bd = aints(v, in, A_DIMENSIONS, &n);
	if (n != x->rank)
		return bad(v, "%u broadcast dimensions for an operand of rank "
			"%u", n, x->rank);
	if (dimlist(v, bd, n, s->rank, "dimensions"))
		return -1;
	for (k = 0; k < n; k++)
		if (DIMS(v, s)[bd[k]] != DIMS(v, x)[k])
			return bad(v, "operand dimension %u (%lld) broadcast "
				"to dimension %lld of size %lld", k,
				(long long)DIMS(v, x)[k], (long long)bd[k],
				(long long)DIMS(v, s)[bd[k]]);
	*out = lcopy(v, in->shape, x->type);
	return 0;
}

static int
inf_reshape(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x, *s = SH(v, in->shape);
	int64_t a, b;
	uint32_t k;

	if (wantarr(v, in, 0))
		return -1;
	if (!isarr(s))
		return bad(v, "reshape to a non-array shape");
	x = opsh(v, in, 0);
	a = nelems(DIMS(v, x), x->rank);
	b = nelems(DIMS(v, s), s->rank);
	if (a < 0 || a != b)
		return bad(v, "reshape from %lld to %lld elements",
			(long long)a, (long long)b);
	if (in->op == HOP_DYNRESHAPE) {
		if (in->nops != s->rank + 1u)
			return bad(v, "%u operands for a result of rank %u",
				in->nops, s->rank);
		for (k = 1; k < in->nops; k++)
			if (!isscalar(opsh(v, in, k)) ||
			    opsh(v, in, k)->type != TY_S32)
				return bad(v, "operand %u is not s32[]", k);
	}
	*out = lcopy(v, in->shape, x->type);
	return 0;
}

static int
inf_transpose(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x;
	const int64_t *p;
	int64_t d[MAXRANK];
	uint64_t dyn = 0;
	uint32_t n, k;

	if (wantarr(v, in, 0))
		return -1;
	x = opsh(v, in, 0);
	p = aints(v, in, A_DIMENSIONS, &n);
	if (n != x->rank)
		return bad(v, "%u transpose dimensions for an operand of rank "
			"%u", n, x->rank);
	if (dimlist(v, p, n, x->rank, "dimensions"))
		return -1;
	for (k = 0; k < n; k++) {
		d[k] = DIMS(v, x)[p[k]];
		dyn |= (x->dynmask >> p[k] & 1) << k;
	}
	*out = larr(v, x->type, x->rank, d, dyn);
	return 0;
}

static int
inf_reverse(V *v, const HloInstr *in, uint32_t *out)
{
	const int64_t *p;
	uint32_t n;

	if (wantarr(v, in, 0))
		return -1;
	p = aints(v, in, A_DIMENSIONS, &n);
	if (dimlist(v, p, n, opsh(v, in, 0)->rank, "dimensions"))
		return -1;
	*out = lcopy(v, opshid(v, in, 0), opsh(v, in, 0)->type);
	return 0;
}

static int
inf_slice(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x;
	const int64_t *p;
	int64_t d[MAXRANK], lo, hi, st;
	uint64_t dyn = 0;
	uint32_t n, k;

	if (wantarr(v, in, 0))
		return -1;
	x = opsh(v, in, 0);
	p = aints(v, in, A_SLICE, &n);
	if (n != 3u * x->rank)
		return bad(v, "slice has %u dimensions, operand rank is %u",
			n / 3, x->rank);
	for (k = 0; k < x->rank; k++) {
		lo = p[3 * k];
		hi = p[3 * k + 1];
		st = p[3 * k + 2];
		if (lo < 0 || hi > DIMS(v, x)[k] || lo > hi || st <= 0)
			return bad(v, "slice [%lld:%lld:%lld] out of bounds "
				"for dimension %u of size %lld", (long long)lo,
				(long long)hi, (long long)st, k,
				(long long)DIMS(v, x)[k]);
		d[k] = (hi - lo) / st + ((hi - lo) % st != 0);
		if (d[k] != 1)
			dyn |= x->dynmask & 1ull << k;
	}
	*out = larr(v, x->type, x->rank, d, dyn);
	return 0;
}

/* start index operands from..nops-1 for an operand of rank rank: one
 * rank-1 vector (old form) or rank integral scalars of one type */
static int
startindices(V *v, const HloInstr *in, uint32_t from, int rank)
{
	const HloShape *f;
	uint32_t k;

	if (in->nops == from + 1 && opsh(v, in, from)->rank == 1) {
		f = opsh(v, in, from);
		if (!isint(f->type) || DIMS(v, f)[0] != rank)
			return bad(v, "start index vector does not fit rank %d",
				rank);
		return 0;
	}
	if (in->nops - from != (uint32_t)rank)
		return bad(v, "%u start indices for an operand of rank %d",
			in->nops - from, rank);
	for (k = from; k < in->nops; k++) {
		f = opsh(v, in, k);
		if (!isscalar(f) || !isint(f->type) ||
		    f->type != opsh(v, in, from)->type)
			return bad(v, "start index %u is not an integral "
				"scalar of the same type as the others",
				k - from);
	}
	return 0;
}

static int
inf_dynslice(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x;
	const int64_t *p;
	uint64_t dyn = 0;
	uint32_t n, k;

	if (wantops(v, in, 1, UINT32_MAX) || wantarr(v, in, 0))
		return -1;
	x = opsh(v, in, 0);
	if (startindices(v, in, 1, x->rank))
		return -1;
	p = aints(v, in, A_DYN_SLICE_SIZES, &n);
	if (n != x->rank)
		return bad(v, "%u slice sizes for an operand of rank %u", n,
			x->rank);
	for (k = 0; k < n; k++) {
		if (p[k] < 0 || p[k] > DIMS(v, x)[k])
			return bad(v, "slice size %lld out of bounds for "
				"dimension %u of size %lld", (long long)p[k], k,
				(long long)DIMS(v, x)[k]);
		if (p[k] == DIMS(v, x)[k])
			dyn |= x->dynmask & 1ull << k;
	}
	*out = larr(v, x->type, x->rank, p, dyn);
	return 0;
}

static int
inf_dus(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x, *u;
	uint64_t dyn;
	uint32_t k;

	if (wantops(v, in, 2, UINT32_MAX) || wantarr(v, in, 0) ||
	    wantarr(v, in, 1))
		return -1;
	x = opsh(v, in, 0);
	u = opsh(v, in, 1);
	if (startindices(v, in, 2, x->rank))
		return -1;
	if (u->rank != x->rank || !sametype(u->type, x->type, IGN_FP))
		return bad(v, "update does not fit the operand");
	dyn = x->dynmask;
	for (k = 0; k < x->rank; k++) {
		if (DIMS(v, u)[k] > DIMS(v, x)[k])
			return bad(v, "update dimension %u (%lld) larger than "
				"the operand's (%lld)", k,
				(long long)DIMS(v, u)[k],
				(long long)DIMS(v, x)[k]);
		if (DIMS(v, u)[k] == DIMS(v, x)[k])
			dyn |= u->dynmask & 1ull << k;
	}
	*out = lcopy(v, opshid(v, in, 0), x->type);
	v->nodes[*out].dyn = dyn;
	return 0;
}

static int
inf_concat(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x, *y;
	int64_t dim = 0, d[MAXRANK];
	uint64_t dyn;
	uint32_t k, j;

	if (wantops(v, in, 1, UINT32_MAX) || aone(v, in, A_DIMENSIONS, &dim))
		return -1;
	for (k = 0; k < in->nops; k++)
		if (wantarr(v, in, k))
			return -1;
	x = opsh(v, in, 0);
	if (dim < 0 || dim >= x->rank)
		return bad(v, "concatenate dimension %lld out of range",
			(long long)dim);
	memcpy(d, DIMS(v, x), x->rank * 8u);
	dyn = x->dynmask;
	for (k = 1; k < in->nops; k++) {
		y = opsh(v, in, k);
		if (y->rank != x->rank || !sametype(y->type, x->type, IGN_FP))
			return bad(v, "operand %u differs in rank or type", k);
		for (j = 0; j < x->rank; j++)
			if (j != dim && DIMS(v, y)[j] != d[j])
				return bad(v, "operand %u differs in dimension "
					"%u", k, j);
		if (DIMS(v, y)[dim] < 0 || d[dim] < 0 ||
		    DIMS(v, y)[dim] > INT64_MAX - d[dim])
			return bad(v, "concatenated dimension unbounded or too "
				"large");
		d[dim] += DIMS(v, y)[dim];
		dyn |= y->dynmask;
	}
	*out = larr(v, x->type, x->rank, d, dyn);
	return 0;
}

static int
inf_pad(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x, *pv;
	const int64_t *p;
	int64_t d[MAXRANK], inner;
	uint32_t n, k;

	if (wantarr(v, in, 0) || wantarr(v, in, 1))
		return -1;
	x = opsh(v, in, 0);
	pv = opsh(v, in, 1);
	if (pv->rank || !sametype(pv->type, x->type, IGN_FP))
		return bad(v, "padding value is not a scalar of the operand's "
			"type");
	p = aints(v, in, A_PADDING, &n);
	if (n != 3u * x->rank)
		return bad(v, "padding has %u dimensions, operand rank is %u",
			n / 3, x->rank);
	for (k = 0; k < x->rank; k++) {
		int64_t dk = DIMS(v, x)[k];

		if (p[3 * k + 2] < 0)
			return bad(v, "negative interior padding");
		if (__builtin_mul_overflow(dk > 0 ? dk - 1 : 0, p[3 * k + 2],
		    &inner) || __builtin_add_overflow(dk, inner, &d[k]) ||
		    __builtin_add_overflow(d[k], p[3 * k], &d[k]) ||
		    __builtin_add_overflow(d[k], p[3 * k + 1], &d[k]) ||
		    d[k] < 0)
			return bad(v, "padding gives a negative or huge "
				"dimension %u", k);
	}
	*out = larr(v, x->type, x->rank, d, x->dynmask);
	return 0;
}

static int
inf_iota(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *s = SH(v, in->shape);
	int64_t d = aint(v, in, A_IOTA_DIM, -1);

	if (!isarr(s) || !s->rank)
		return bad(v, "iota needs an array of rank 1 or more");
	if (d < 0 || d >= s->rank)
		return bad(v, "iota_dimension %lld out of range", (long long)d);
	if (!isint(s->type) && !isfloat(s->type) && !iscplx(s->type))
		return bad(v, "iota of type %s", hlo_typeinfo[s->type].name);
	*out = lref(v, in->shape);
	return 0;
}

static int
inf_tuple(V *v, const HloInstr *in, uint32_t *out)
{
	uint32_t k, t = ltup(v, in->nops);

	for (k = 0; k < in->nops; k++)
		lset(v, t, k, lref(v, opshid(v, in, k)));
	*out = t;
	return 0;
}

static int
inf_gte(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x = opsh(v, in, 0);
	int64_t k = aint(v, in, A_INDEX, -1);
	Str a;

	if (x->type != TY_TUPLE)
		return bad(v, "operand %s is not a tuple",
			shs(v, opshid(v, in, 0), &a));
	if (k < 0 || k >= x->ntuple)
		return bad(v, "index %lld out of range for %s", (long long)k,
			shs(v, opshid(v, in, 0), &a));
	*out = lref(v, v->m->ids[x->tuple + k]);
	return 0;
}

/* dot and convolution */

/* xla's MaybeUpcast: the result may be wider than the operands, and
 * narrower only for floating point */
static int
resulttype(V *v, const HloInstr *in, int from, int *t)
{
	const HloShape *s = SH(v, in->shape);

	if (!isarr(s))
		return bad(v, "result is not an array");
	*t = s->type;
	if (*t != from && !isfloat(from) && bitwidth(*t) < bitwidth(from))
		return bad(v, "result type %s narrower than operand type %s",
			hlo_typeinfo[*t].name, hlo_typeinfo[from].name);
	return 0;
}

static int
higher(int a, int b)
{
	if (a == b)
		return a;
	if (isfloat(a) != isfloat(b))
		return isfloat(a) ? a : b;
	return bitwidth(a) >= bitwidth(b) ? a : b;
}

/* dims of a dot-like product: batch dims, then lhs and rhs free dims;
 * rskip is one more rhs dimension to leave out (-1: none) */
static int
dotdims(V *v, const HloInstr *in, const HloShape *l, const HloShape *r,
	int64_t rskip, int64_t *d, uint64_t *dyn, int *rank)
{
	const int64_t *lb, *lc, *rb, *rc;
	uint32_t nlb, nlc, nrb, nrc, k;
	int n = 0;

	lb = aints(v, in, A_LHS_BATCH, &nlb);
	lc = aints(v, in, A_LHS_CONTRACT, &nlc);
	rb = aints(v, in, A_RHS_BATCH, &nrb);
	rc = aints(v, in, A_RHS_CONTRACT, &nrc);
	if (nlb != nrb || nlc != nrc)
		return bad(v, "lhs and rhs have different numbers of batch or "
			"contracting dimensions");
	for (k = 0; k < nlb; k++)
		if (inlist(lc, nlc, lb[k]) || inlist(rc, nrc, rb[k]))
			return bad(v, "a dimension is both batch and "
				"contracting");
	if (dimlist(v, lb, nlb, l->rank, "lhs_batch_dims") ||
	    dimlist(v, lc, nlc, l->rank, "lhs_contracting_dims") ||
	    dimlist(v, rb, nrb, r->rank, "rhs_batch_dims") ||
	    dimlist(v, rc, nrc, r->rank, "rhs_contracting_dims"))
		return -1;
	for (k = 0; k < nlc; k++)
		if (DIMS(v, l)[lc[k]] != DIMS(v, r)[rc[k]])
			return bad(v, "contracting dimension sizes differ: "
				"%lld and %lld", (long long)DIMS(v, l)[lc[k]],
				(long long)DIMS(v, r)[rc[k]]);
	*dyn = 0;
	for (k = 0; k < nlb; k++) {
		if (DIMS(v, l)[lb[k]] != DIMS(v, r)[rb[k]])
			return bad(v, "batch dimension sizes differ: %lld and "
				"%lld", (long long)DIMS(v, l)[lb[k]],
				(long long)DIMS(v, r)[rb[k]]);
		*dyn |= (l->dynmask >> lb[k] & 1) << n;
		d[n++] = DIMS(v, l)[lb[k]];
	}
	for (k = 0; k < l->rank; k++)
		if (!inlist(lb, nlb, k) && !inlist(lc, nlc, k)) {
			*dyn |= (l->dynmask >> k & 1) << n;
			d[n++] = DIMS(v, l)[k];
		}
	for (k = 0; k < r->rank; k++)
		if (!inlist(rb, nrb, k) && !inlist(rc, nrc, k) && k != rskip) {
			if (n >= MAXRANK)
				return bad(v, "result rank too large");
			*dyn |= (r->dynmask >> k & 1) << n;
			d[n++] = DIMS(v, r)[k];
		}
	*rank = n;
	return 0;
}

static int
inf_dot(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *l, *r;
	int64_t d[MAXRANK];
	uint64_t dyn;
	int rank, t;

	if (wantarr(v, in, 0) || wantarr(v, in, 1))
		return -1;
	l = opsh(v, in, 0);
	r = opsh(v, in, 1);
	if (dotdims(v, in, l, r, -1, d, &dyn, &rank) ||
	    resulttype(v, in, higher(l->type, r->type), &t))
		return -1;
	if (in->op == HOP_SCALEDDOT)
		t = SH(v, in->shape)->type;
	*out = larr(v, t, rank, d, dyn);
	return 0;
}

/* ragged-dot(lhs, rhs, group_sizes): a ragged non-contracting lhs
 * dimension takes the rhs group dimension out of the result; a ragged
 * contracting one puts the group count in front */
static int
inf_raggeddot(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *l, *r, *g;
	const int64_t *rag, *grp, *lc;
	int64_t d[MAXRANK + 1], rskip = -1;
	uint32_t nrag, ngrp, nlc;
	uint64_t dyn;
	int rank, t;

	if (wantarr(v, in, 0) || wantarr(v, in, 1) || wantarr(v, in, 2))
		return -1;
	l = opsh(v, in, 0);
	r = opsh(v, in, 1);
	g = opsh(v, in, 2);
	rag = aints(v, in, A_LHS_RAGGED, &nrag);
	grp = aints(v, in, A_RHS_GROUP, &ngrp);
	lc = aints(v, in, A_LHS_CONTRACT, &nlc);
	if (nrag != 1 || rag[0] < 0 || rag[0] >= l->rank || ngrp > 1)
		return bad(v, "bad lhs_ragged_dims or rhs_group_dims");
	if (!isint(g->type) || !g->rank)
		return bad(v, "group sizes must be an integral array");
	if (ngrp) {
		if (grp[0] < 0 || grp[0] >= r->rank)
			return bad(v, "rhs_group_dims out of range");
		rskip = grp[0];
	}
	if (dotdims(v, in, l, r, rskip, d + 1, &dyn, &rank) ||
	    resulttype(v, in, higher(l->type, r->type), &t))
		return -1;
	if (inlist(lc, nlc, rag[0])) {
		d[0] = DIMS(v, g)[g->rank - 1];
		*out = larr(v, t, rank + 1, d, dyn << 1);
	} else {
		*out = larr(v, t, rank, d + 1, dyn);
	}
	return 0;
}

int
hlo_conv_dnums(const char *s, size_t n, int rank, HloConvDnums *d)
{
	const char *us, *ar;
	size_t nl, nk, no, k;
	int nsp, seen[3][HLO_CONV_MAXSP + 2], x;

	us = memchr(s, '_', n);
	ar = us ? memchr(us, '-', n - (us - s)) : NULL;
	if (!us || !ar || (size_t)(ar - s) + 2 > n || ar[1] != '>')
		return -1;
	nl = us - s;
	nk = ar - us - 1;
	no = n - (ar - s) - 2;
	if (nl != nk || nl != no || nl < 2 || nl > HLO_CONV_MAXSP + 2 ||
	    (rank >= 0 && (size_t)rank != nl))
		return -1;
	nsp = nl - 2;
	memset(seen, 0, sizeof seen);
	memset(d, -1, sizeof *d);
	d->nsp = nsp;
	for (k = 0; k < nl; k++) {
		char a = s[k], b = us[1 + k], c = ar[2 + k];

		if (a == 'b' || a == 'f') {
			x = a == 'b' ? nsp : nsp + 1;
			*(a == 'b' ? &d->in_batch : &d->in_feature) = k;
		} else if (a >= '0' && a - '0' < nsp) {
			x = a - '0';
			d->in_spatial[x] = k;
		} else
			return -1;
		if (seen[0][x]++)
			return -1;
		if (b == 'i' || b == 'o') {
			x = b == 'i' ? nsp : nsp + 1;
			*(b == 'i' ? &d->k_in : &d->k_out) = k;
		} else if (b >= '0' && b - '0' < nsp) {
			x = b - '0';
			d->k_spatial[x] = k;
		} else
			return -1;
		if (seen[1][x]++)
			return -1;
		if (c == 'b' || c == 'f') {
			x = c == 'b' ? nsp : nsp + 1;
			*(c == 'b' ? &d->out_batch : &d->out_feature) = k;
		} else if (c >= '0' && c - '0' < nsp) {
			x = c - '0';
			d->out_spatial[x] = k;
		} else
			return -1;
		if (seen[2][x]++)
			return -1;
	}
	return 0;
}

/* the output size of one window dimension w (7 ints, see attrs.def) over
 * a base of size b; -1 if the window is malformed */
static int64_t
windim(const int64_t *w, int64_t b)
{
	int64_t db, pb, dw;

	if (w[0] <= 0 || w[1] <= 0 || w[4] < 1 || w[5] < 1 || b < 0)
		return -1;
	if (b == 0)
		db = 0;
	else if (__builtin_mul_overflow(b - 1, w[5], &db) || db == INT64_MAX)
		return -1;
	else
		db++;
	if (__builtin_add_overflow(db, w[2], &pb) ||
	    __builtin_add_overflow(pb, w[3], &pb) ||
	    __builtin_mul_overflow(w[0] - 1, w[4], &dw) || dw == INT64_MAX)
		return -1;
	dw++;
	return dw > pb ? 0 : (pb - dw) / w[1] + 1;
}

/* the window attribute for n spatial dimensions; NULL and an error if it
 * does not fit (a missing window fits n == 0) */
static int
window(V *v, const HloInstr *in, uint32_t n, const int64_t **w)
{
	uint32_t nw;

	*w = aints(v, in, A_WINDOW, &nw);
	if (nw != 7 * n)
		return bad(v, "window has %u dimensions, expected %u", nw / 7,
			n);
	return 0;
}

static int
inf_conv(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *l, *r;
	const int64_t *w, *ld, *rd;
	const char *lab;
	HloConvDnums dn;
	int64_t fgc, bgc, d[MAXRANK], ifeat, ibatch, kin, kout, sz;
	uint64_t dyn = 0;
	uint32_t nlab;
	int k, t;

	if (wantops(v, in, 2, 2) || wantarr(v, in, 0) || wantarr(v, in, 1))
		return -1;
	l = opsh(v, in, 0);
	r = opsh(v, in, 1);
	ld = DIMS(v, l);
	rd = DIMS(v, r);
	lab = hlo_attr_word(v->m, in, A_DIM_LABELS, &nlab);
	if (!lab || hlo_conv_dnums(lab, nlab, l->rank, &dn))
		return bad(v, "missing or malformed dim_labels");
	if (r->rank != l->rank)
		return bad(v, "lhs and rhs ranks differ");
	if (window(v, in, dn.nsp, &w))
		return -1;
	fgc = aint(v, in, A_FEATURE_GROUP_COUNT, 1);
	bgc = aint(v, in, A_BATCH_GROUP_COUNT, 1);
	if (fgc <= 0 || bgc <= 0 || (fgc > 1 && bgc > 1))
		return bad(v, "bad feature_group_count %lld or "
			"batch_group_count %lld", (long long)fgc,
			(long long)bgc);
	ifeat = ld[dn.in_feature];
	ibatch = ld[dn.in_batch];
	kin = rd[dn.k_in];
	kout = rd[dn.k_out];
	if (kout % bgc || ifeat % fgc || ifeat / fgc != kin || kout % fgc ||
	    ibatch % bgc)
		return bad(v, "feature or batch sizes do not fit the group "
			"counts: input features %lld, kernel input features "
			"%lld, kernel output features %lld, batch %lld",
			(long long)ifeat, (long long)kin, (long long)kout,
			(long long)ibatch);
	d[dn.out_batch] = ibatch / bgc;
	d[dn.out_feature] = kout;
	if (l->dynmask >> dn.in_batch & 1)
		dyn |= 1ull << dn.out_batch;
	for (k = 0; k < dn.nsp; k++) {
		if (rd[dn.k_spatial[k]] != w[7 * k])
			return bad(v, "window size %lld differs from kernel "
				"spatial dimension %lld", (long long)w[7 * k],
				(long long)rd[dn.k_spatial[k]]);
		sz = windim(w + 7 * k, ld[dn.in_spatial[k]]);
		if (sz < 0)
			return bad(v, "malformed window dimension %d", k);
		d[dn.out_spatial[k]] = sz;
		if ((l->dynmask >> dn.in_spatial[k] & 1) ||
		    (r->dynmask >> dn.k_spatial[k] & 1))
			dyn |= 1ull << dn.out_spatial[k];
	}
	if (resulttype(v, in, higher(l->type, r->type), &t))
		return -1;
	*out = larr(v, t, l->rank, d, dyn);
	return 0;
}

/* reductions */

/* xla's VerifyReducerShape: computation c takes n accumulators and n
 * inputs and returns n scalar accumulators; init[k] is the type of init
 * value k, in[k] that of input k; the accumulator types come back in
 * res[]. Floating point precisions may differ (xla's verifier checks
 * exact types only without allow_mixed_precision) */
static int
reducer(V *v, uint32_t c, uint32_t n, const int *init, const int *inp,
	int *res)
{
	const HloShape *rs = SH(v, rootsh(v, c)), *e;
	uint32_t k, s;
	Str a;

	if (wantparams(v, c, 2 * n))
		return -1;
	if ((rs->type == TY_TUPLE ? rs->ntuple : n == 1 ? 1 : 0) != n)
		return bad(v, "reducer %s returns %s, expected %u accumulators",
			cname(v, c), shs(v, rootsh(v, c), &a), n);
	for (k = 0; k < n; k++) {
		s = rs->type == TY_TUPLE ? v->m->ids[rs->tuple + k] :
			rootsh(v, c);
		e = SH(v, s);
		if (!isscalar(e))
			return bad(v, "reducer %s returns %s, expected scalars",
				cname(v, c), shs(v, rootsh(v, c), &a));
		res[k] = e->type;
		if (wantparam(v, c, k, s, 0) ||
		    wantscalarparam(v, c, n + k, inp[k], IGN_FP) ||
		    wantscalarparam(v, c, n + k, e->type, IGN_FP))
			return -1;
		if (!sametype(e->type, init[k], IGN_FP))
			return bad(v, "reducer %s accumulates %s, init value "
				"%u is %s", cname(v, c),
				hlo_typeinfo[e->type].name, k,
				hlo_typeinfo[init[k]].name);
	}
	return 0;
}

/* operands 0..n-1 arrays of equal dims, n..2n-1 scalars; their types
 * in tin[] and tinit[] */
static int
reduceops(V *v, const HloInstr *in, uint32_t n, int *tin, int *tinit)
{
	uint32_t k;

	for (k = 0; k < 2 * n; k++)
		if (wantarr(v, in, k))
			return -1;
	for (k = 0; k < n; k++) {
		if (!samedims(v, opsh(v, in, k), opsh(v, in, 0)))
			return bad(v, "input %u differs in dimensions from "
				"input 0", k);
		if (opsh(v, in, n + k)->rank)
			return bad(v, "init value %u is not a scalar", k);
		tin[k] = opsh(v, in, k)->type;
		tinit[k] = opsh(v, in, n + k)->type;
	}
	return 0;
}

/* a tuple of n arrays of types t[] with dims d, or one array if !tup */
static uint32_t
lresults(V *v, uint32_t n, const int *t, int rank, const int64_t *d,
	uint64_t dyn, int tup)
{
	uint32_t k, x;

	if (!tup)
		return larr(v, t[0], rank, d, dyn);
	x = ltup(v, n);
	for (k = 0; k < n; k++)
		lset(v, x, k, larr(v, t[k], rank, d, dyn));
	return x;
}

static int
inf_reduce(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x;
	const int64_t *p;
	int64_t d[MAXRANK];
	uint64_t dyn = 0;
	uint32_t n = in->nops / 2, np, k;
	int *tin, *tinit, *res, rank = 0;

	if (!n || in->nops % 2 || n > 1u << 24)
		return bad(v, "%u operands, expected a positive even number",
			in->nops);
	if (wantcalled(v, in, 1))
		return -1;
	tin = typebuf(v, n);
	tinit = tin + n;
	res = tinit + n;
	if (reduceops(v, in, n, tin, tinit) ||
	    reducer(v, called(v, in, 0), n, tinit, tin, res))
		return -1;
	x = opsh(v, in, 0);
	p = aints(v, in, A_DIMENSIONS, &np);
	if (dimlist(v, p, np, x->rank, "dimensions"))
		return -1;
	for (k = 0; k < x->rank; k++)
		if (!inlist(p, np, k)) {
			dyn |= (x->dynmask >> k & 1) << rank;
			d[rank++] = DIMS(v, x)[k];
		}
	*out = lresults(v, n, res, rank, d, dyn,
		SH(v, rootsh(v, called(v, in, 0)))->type == TY_TUPLE);
	return 0;
}

/* window output dims of shape x */
static int
windowdims(V *v, const HloInstr *in, const HloShape *x, int64_t *d)
{
	const int64_t *w;
	uint32_t k;

	if (window(v, in, x->rank, &w))
		return -1;
	for (k = 0; k < x->rank; k++)
		if ((d[k] = windim(w + 7 * k, DIMS(v, x)[k])) < 0)
			return bad(v, "malformed window dimension %u", k);
	return 0;
}

static int
inf_reducewindow(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x;
	int64_t d[MAXRANK];
	uint32_t n = in->nops / 2;
	int *tin, *tinit, *res;

	if (!n || in->nops % 2 || n > 1u << 24)
		return bad(v, "%u operands, expected a positive even number",
			in->nops);
	if (wantcalled(v, in, 1))
		return -1;
	tin = typebuf(v, n);
	tinit = tin + n;
	res = tinit + n;
	x = opsh(v, in, 0);
	if (reduceops(v, in, n, tin, tinit) ||
	    reducer(v, called(v, in, 0), n, tinit, tin, res) ||
	    windowdims(v, in, x, d))
		return -1;
	*out = lresults(v, n, tinit, x->rank, d, x->dynmask,
		SH(v, rootsh(v, called(v, in, 0)))->type == TY_TUPLE);
	return 0;
}

static int
inf_selectandscatter(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x, *src, *init;
	int64_t d[MAXRANK];
	uint32_t sel, k;
	int tinit, tsrc, res;

	if (wantcalled(v, in, 2) || wantarr(v, in, 0) || wantarr(v, in, 1) ||
	    wantarr(v, in, 2))
		return -1;
	x = opsh(v, in, 0);
	src = opsh(v, in, 1);
	init = opsh(v, in, 2);
	sel = called(v, in, 0);
	if (wantparams(v, sel, 2) || wantpredroot(v, sel))
		return -1;
	for (k = 0; k < 2; k++)
		if (wantscalarparam(v, sel, k, x->type, IGN_FP))
			return -1;
	if (init->rank)
		return bad(v, "init value is not a scalar");
	tinit = init->type;
	tsrc = src->type;
	if (reducer(v, called(v, in, 1), 1, &tinit, &tsrc, &res) ||
	    windowdims(v, in, x, d))
		return -1;
	if (src->rank != x->rank || (x->rank &&
	    memcmp(DIMS(v, src), d, x->rank * 8u)) ||
	    !sametype(src->type, x->type, IGN_FP))
		return bad(v, "source does not match the windowed operand");
	*out = lcopy(v, opshid(v, in, 0), x->type);
	return 0;
}

static int
inf_sort(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x;
	uint32_t k, c;
	int64_t dim = 0;

	if (wantops(v, in, 1, UINT32_MAX) || wantcalled(v, in, 1))
		return -1;
	for (k = 0; k < in->nops; k++) {
		if (wantarr(v, in, k))
			return -1;
		if (!samedims(v, opsh(v, in, k), opsh(v, in, 0)))
			return bad(v, "operand %u differs in dimensions from "
				"operand 0", k);
	}
	x = opsh(v, in, 0);
	if (aone(v, in, A_DIMENSIONS, &dim))
		return -1;
	if (dim < 0 || dim >= x->rank)
		return bad(v, "sort dimension %lld out of range",
			(long long)dim);
	c = called(v, in, 0);
	if (wantparams(v, c, 2 * in->nops) || wantpredroot(v, c))
		return -1;
	for (k = 0; k < 2 * in->nops; k++)
		if (wantscalarparam(v, c, k, opsh(v, in, k / 2)->type, IGN_FP))
			return -1;
	if (in->nops == 1)
		return *out = lref(v, opshid(v, in, 0)), 0;
	return inf_tuple(v, in, out);
}

static int
inf_map(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x = NULL, *y, *r;
	uint32_t k, c;
	Str a;

	if (wantops(v, in, 1, UINT32_MAX) || wantcalled(v, in, 1))
		return -1;
	for (k = 0; k < in->nops; k++) {
		if (wantarr(v, in, k))
			return -1;
		y = opsh(v, in, k);
		if (!x || (!x->rank && y->rank))
			x = y;
		else if (y->rank && !samedims(v, x, y))
			return bad(v, "operand %u differs in dimensions", k);
	}
	c = called(v, in, 0);
	if (wantparams(v, c, in->nops))
		return -1;
	for (k = 0; k < in->nops; k++)
		if (wantscalarparam(v, c, k, opsh(v, in, k)->type, IGN_FP))
			return -1;
	r = SH(v, rootsh(v, c));
	if (!isscalar(r))
		return bad(v, "mapped computation %s returns %s, expected a "
			"scalar", cname(v, c), shs(v, rootsh(v, c), &a));
	*out = larr(v, r->type, x->rank, DIMS(v, x), 0);
	return 0;
}

static int
inf_topk(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x;
	int64_t d[MAXRANK], k = aint(v, in, A_K, -1);
	uint64_t dyn;
	uint32_t t;

	if (wantarr(v, in, 0))
		return -1;
	x = opsh(v, in, 0);
	if (!x->rank || k < 0 || DIMS(v, x)[x->rank - 1] < k)
		return bad(v, "k=%lld does not fit operand", (long long)k);
	memcpy(d, DIMS(v, x), x->rank * 8u);
	d[x->rank - 1] = k;
	dyn = x->dynmask & ~(1ull << (x->rank - 1));
	t = ltup(v, 2);
	lset(v, t, 0, larr(v, x->type, x->rank, d, dyn));
	lset(v, t, 1, larr(v, TY_S32, x->rank, d, dyn));
	*out = t;
	return 0;
}

/* gather and scatter */

static int
inf_gather(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x, *ix;
	const int64_t *off, *col, *sim, *obd, *ibd, *ss;
	uint32_t noff, ncol, nsim, nobd, nibd, nss, k;
	int64_t ivd, idims[MAXRANK + 1], d[MAXRANK];
	uint64_t dyn = 0;
	int nid, rank, od = 0, gd = 0;

	if (wantarr(v, in, 0) || wantarr(v, in, 1))
		return -1;
	x = opsh(v, in, 0);
	ix = opsh(v, in, 1);
	if (!isint(ix->type))
		return bad(v, "start indices are not integral");
	off = aints(v, in, A_OFFSET_DIMS, &noff);
	col = aints(v, in, A_COLLAPSED_SLICE_DIMS, &ncol);
	sim = aints(v, in, A_START_INDEX_MAP, &nsim);
	obd = aints(v, in, A_OPERAND_BATCHING_DIMS, &nobd);
	ibd = aints(v, in, A_START_INDICES_BATCHING_DIMS, &nibd);
	ss = aints(v, in, A_SLICE_SIZES, &nss);
	ivd = aint(v, in, A_INDEX_VECTOR_DIM, ix->rank);
	if (ivd < 0 || ivd > ix->rank)
		return bad(v, "index_vector_dim %lld out of range",
			(long long)ivd);
	nid = ix->rank;
	if (nid)
		memcpy(idims, DIMS(v, ix), nid * 8u);
	if (ivd == nid)
		idims[nid++] = 1;
	rank = noff + nid - 1;
	if (rank > MAXRANK || !sorted(off, noff) ||
	    dimlist(v, off, noff, rank, "offset_dims"))
		return bad(v, "bad offset_dims");
	if (nsim != idims[ivd])
		return bad(v, "start_index_map has %u entries, index vector "
			"has %lld", nsim, (long long)idims[ivd]);
	if (dimlist(v, sim, nsim, x->rank, "start_index_map") ||
	    dimlist(v, col, ncol, x->rank, "collapsed_slice_dims") ||
	    dimlist(v, obd, nobd, x->rank, "operand_batching_dims") ||
	    dimlist(v, ibd, nibd, nid, "start_indices_batching_dims"))
		return -1;
	if (!sorted(col, ncol) || !sorted(obd, nobd) || nobd != nibd)
		return bad(v, "bad collapsed or batching dims");
	for (k = 0; k < ncol; k++)
		if (inlist(obd, nobd, col[k]))
			return bad(v, "a dimension is both collapsed and "
				"batching");
	if (nss != x->rank || nss != noff + ncol + nobd)
		return bad(v, "%u slice sizes, operand rank %u, %u offset, %u "
			"collapsed and %u batching dims", nss, x->rank, noff,
			ncol, nobd);
	for (k = 0; k < nss; k++) {
		if (ss[k] < 0 || ss[k] > DIMS(v, x)[k])
			return bad(v, "slice size %lld out of bounds for "
				"dimension %u", (long long)ss[k], k);
		if ((inlist(col, ncol, k) || inlist(obd, nobd, k)) && ss[k] > 1)
			return bad(v, "collapsed or batching dimension %u has "
				"slice size %lld", k, (long long)ss[k]);
	}
	for (k = 0; k < (uint32_t)rank; k++) {
		if (inlist(off, noff, k)) {
			while (inlist(col, ncol, od) || inlist(obd, nobd, od))
				od++;
			if (ss[od] == DIMS(v, x)[od])
				dyn |= (x->dynmask >> od & 1) << k;
			d[k] = ss[od++];
		} else {
			if (gd == ivd)
				gd++;
			if (gd < ix->rank)
				dyn |= (ix->dynmask >> gd & 1) << k;
			d[k] = idims[gd++];
		}
	}
	*out = larr(v, x->type, rank, d, dyn);
	return 0;
}

static int
scatterops(V *v, const HloInstr *in, uint32_t n, const int64_t *idims,
	int nid, int64_t ivd)
{
	const int64_t *uwd, *iwd, *sdo, *ibd, *sbd;
	uint32_t nuwd, niwd, nsdo, nibd, nsbd, k, j, sd;
	int64_t maxu[MAXRANK];

	uwd = aints(v, in, A_UPDATE_WINDOW_DIMS, &nuwd);
	iwd = aints(v, in, A_INSERTED_WINDOW_DIMS, &niwd);
	sdo = aints(v, in, A_SCATTER_DIMS_TO_OPERAND_DIMS, &nsdo);
	ibd = aints(v, in, A_INPUT_BATCHING_DIMS, &nibd);
	sbd = aints(v, in, A_SCATTER_INDICES_BATCHING_DIMS, &nsbd);
	if (!sorted(uwd, nuwd) || !sorted(iwd, niwd) || !sorted(ibd, nibd) ||
	    nibd != nsbd)
		return bad(v, "scatter dimension lists not sorted or unpaired");
	if (nsdo != idims[ivd])
		return bad(v, "scatter_dims_to_operand_dims has %u entries, "
			"index vector has %lld", nsdo, (long long)idims[ivd]);
	if (dimlist(v, sbd, nsbd, nid, "scatter_indices_batching_dims"))
		return -1;
	for (j = 0; j < n; j++) {
		const HloShape *x = opsh(v, in, j), *u = opsh(v, in, n + 1 + j);
		uint32_t nmax = 0;

		if (!samedims(v, x, opsh(v, in, 0)))
			return bad(v, "operand %u differs from operand 0", j);
		if (u->rank != nid - 1 + nuwd)
			return bad(v, "updates %u have rank %u, expected %u", j,
				u->rank, nid - 1 + nuwd);
		if (dimlist(v, uwd, nuwd, u->rank, "update_window_dims") ||
		    dimlist(v, iwd, niwd, x->rank, "inserted_window_dims") ||
		    dimlist(v, ibd, nibd, x->rank, "input_batching_dims") ||
		    dimlist(v, sdo, nsdo, x->rank,
		    "scatter_dims_to_operand_dims"))
			return -1;
		if (nuwd + niwd + nibd != x->rank)
			return bad(v, "window dims do not add up to the "
				"operand rank %u", x->rank);
		for (k = 0; k < x->rank; k++)
			if (!inlist(iwd, niwd, k) && !inlist(ibd, nibd, k))
				maxu[nmax++] = DIMS(v, x)[k];
		for (k = 0; k < nuwd; k++)
			if (DIMS(v, u)[uwd[k]] > maxu[k])
				return bad(v, "update window dimension %lld "
					"larger than the operand's",
					(long long)uwd[k]);
		sd = 0;
		for (k = 0; k < u->rank; k++) {
			if (inlist(uwd, nuwd, k))
				continue;
			if (sd == ivd)
				sd++;
			if (DIMS(v, u)[k] != idims[sd])
				return bad(v, "update scatter dimension %u is "
					"%lld, indices give %lld", k,
					(long long)DIMS(v, u)[k],
					(long long)idims[sd]);
			sd++;
		}
	}
	return 0;
}

static int
inf_scatter(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *ix;
	uint32_t n = in->nops / 2, k, res;
	int64_t ivd, idims[MAXRANK + 1];
	int *tin, *tinit, *rt, nid;

	if (!n || in->nops != 2 * n + 1 || n > 1u << 24)
		return bad(v, "%u operands, expected an odd number", in->nops);
	if (wantcalled(v, in, 1))
		return -1;
	for (k = 0; k < in->nops; k++)
		if (wantarr(v, in, k))
			return -1;
	ix = opsh(v, in, n);
	if (!isint(ix->type))
		return bad(v, "scatter indices are not integral");
	ivd = aint(v, in, A_INDEX_VECTOR_DIM, ix->rank);
	if (ivd < 0 || ivd > ix->rank)
		return bad(v, "index_vector_dim %lld out of range",
			(long long)ivd);
	nid = ix->rank;
	if (nid)
		memcpy(idims, DIMS(v, ix), nid * 8u);
	if (ivd == nid)
		idims[nid++] = 1;
	if (scatterops(v, in, n, idims, nid, ivd))
		return -1;
	tin = typebuf(v, n);
	tinit = tin + n;
	rt = tinit + n;
	for (k = 0; k < n; k++) {
		tinit[k] = opsh(v, in, k)->type;
		tin[k] = opsh(v, in, n + 1 + k)->type;
	}
	if (reducer(v, called(v, in, 0), n, tinit, tin, rt))
		return -1;
	if (n == 1)
		return *out = lref(v, opshid(v, in, 0)), 0;
	res = ltup(v, n);
	for (k = 0; k < n; k++)
		lset(v, res, k, lref(v, opshid(v, in, k)));
	*out = res;
	return 0;
}

/* control flow and calls */

static int
inf_while(V *v, const HloInstr *in, uint32_t *out)
{
	uint32_t body, cond, s = opshid(v, in, 0);

	if (wantcalled(v, in, 2))
		return -1;
	body = called(v, in, 0);
	cond = called(v, in, 1);
	if (wantparams(v, body, 1) || wantparams(v, cond, 1) ||
	    wantparam(v, body, 0, s, 0) || wantparam(v, cond, 0, s, 0) ||
	    wantpredroot(v, cond))
		return -1;
	/* as xla's HandleWhile: the while has its body's result shape,
	 * which need not be the loop state's */
	*out = lref(v, rootsh(v, body));
	return 0;
}

static int
inf_conditional(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *p = opsh(v, in, 0);
	uint32_t k, b;
	Str a, x;

	if (!isscalar(p) || (p->type != TY_PRED && p->type != TY_S32))
		return bad(v, "branch index %s is not pred[] or s32[]",
			shs(v, opshid(v, in, 0), &a));
	if (!in->ncalled || (p->type == TY_PRED && in->ncalled != 2))
		return bad(v, "%u branches for a %s index", in->ncalled,
			hlo_typeinfo[p->type].name);
	if (in->nops != in->ncalled + 1)
		return bad(v, "%u operands for %u branches", in->nops,
			in->ncalled);
	for (k = 0; k < in->ncalled; k++) {
		b = called(v, in, k);
		if (wantparams(v, b, 1) ||
		    wantparam(v, b, 0, opshid(v, in, k + 1), 0))
			return -1;
		if (!seq(v->m, rootsh(v, b), in->shape, IGN_DYN, 0))
			return bad(v, "branch %s returns %s, expected %s",
				cname(v, b), shs(v, rootsh(v, b), &a),
				shs(v, in->shape, &x));
	}
	*out = lref(v, rootsh(v, called(v, in, 0)));
	return 0;
}

/* call, fusion: parameters match operands, the result is the root's */
static int
inf_call(V *v, const HloInstr *in, uint32_t *out)
{
	uint32_t c, k, np;

	if (wantcalled(v, in, 1))
		return -1;
	c = called(v, in, 0);
	np = nparams(v, c);
	if (in->op == HOP_CALL ? np != in->nops : np > in->nops)
		return bad(v, "called computation %s takes %u parameters, "
			"%u operands given", cname(v, c), np, in->nops);
	for (k = 0; k < np; k++)
		if (wantparam(v, c, k, opshid(v, in, k), 0))
			return -1;
	*out = lref(v, rootsh(v, c));
	return 0;
}

/* async-start: ((operands...), result, context...) of the wrapped call */
static int
inf_asyncstart(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *s = SH(v, in->shape), *ps;
	uint32_t c, k;
	Str a;

	if (wantcalled(v, in, 1))
		return -1;
	c = called(v, in, 0);
	if (wantparams(v, c, in->nops))
		return -1;
	for (k = 0; k < in->nops; k++)
		if (wantparam(v, c, k, opshid(v, in, k), 0))
			return -1;
	if (s->type != TY_TUPLE || s->ntuple < 2)
		return bad(v, "shape %s, expected a tuple of operands, result "
			"and context", shs(v, in->shape, &a));
	ps = SH(v, v->m->ids[s->tuple]);
	if (ps->type != TY_TUPLE || ps->ntuple != in->nops)
		return bad(v, "shape %s does not start with the operands",
			shs(v, in->shape, &a));
	for (k = 0; k < in->nops; k++)
		if (!seq(v->m, v->m->ids[ps->tuple + k], opshid(v, in, k),
		    IGN_DYN, 0))
			return bad(v, "shape %s does not start with the "
				"operands", shs(v, in->shape, &a));
	if (!seq(v->m, v->m->ids[s->tuple + 1], rootsh(v, c), IGN_DYN, 0))
		return bad(v, "shape %s does not hold the result of %s",
			shs(v, in->shape, &a), cname(v, c));
	*out = lref(v, in->shape);
	return 0;
}

/* element k of tuple operand 0 */
static int
tupleel(V *v, const HloInstr *in, uint32_t k, uint32_t *out)
{
	const HloShape *x = opsh(v, in, 0);
	Str a;

	if (x->type != TY_TUPLE || x->ntuple <= k)
		return bad(v, "operand %s has no tuple element %u",
			shs(v, opshid(v, in, 0), &a), k);
	*out = lref(v, v->m->ids[x->tuple + k]);
	return 0;
}

/* collectives */

/* the size of the first replica group, when the groups are written out
 * ({{0,1},{2,3}}) or in iota form ([2,2]<=[4]); 0 if not known */
static int64_t
groupsize(V *v, const HloInstr *in)
{
	uint32_t n, k;
	const char *t = hlo_attr_word(v->m, in, A_REPLICA_GROUPS, &n);
	int64_t g = 0;

	if (!t || n < 3)
		return 0;
	if (t[0] == '{' && t[1] == '{') {
		for (k = 2, g = 1; k < n && t[k] != '}'; k++)
			g += t[k] == ',';
		return k < n ? g : 0;
	}
	if (t[0] != '[')
		return 0;
	for (k = 1; k < n && t[k] != ']'; k++) {
		if (t[k] == ',')
			g = 0;
		else if (t[k] >= '0' && t[k] <= '9' && g < INT32_MAX)
			g = g * 10 + (t[k] - '0');
		else if (t[k] != ' ')
			return 0;
	}
	return k < n ? g : 0;
}

/* all-gather (out[d] a multiple of in[d]) or reduce-scatter (in[d] a
 * multiple of out[d]) from operand k to result shape s; the multiple is
 * the group size where xla's verifier knows it (written out groups, and
 * no channel or global device ids) */
static int
gatherlike(V *v, const HloInstr *in, uint32_t k, uint32_t s, int64_t dim,
	int scatter)
{
	const HloShape *x = opsh(v, in, k), *y = SH(v, s);
	int64_t a, b, g;
	uint32_t j;
	Str p, q;

	if (wantarr(v, in, k))
		return -1;
	/* torch_xla combines a scalar into its collectives (replica
	 * groups of one); xla would reject it, we let it pass unchanged */
	if (dim >= 0 && dim >= x->rank && seq(v->m, s, opshid(v, in, k), 0,
	    0))
		return 0;
	if (dim < 0 || dim >= x->rank)
		return bad(v, "dimension %lld out of range", (long long)dim);
	if (!isarr(y) || y->type != x->type || y->rank != x->rank)
		goto no;
	for (j = 0; j < x->rank; j++)
		if (j != dim && DIMS(v, x)[j] != DIMS(v, y)[j])
			goto no;
	a = DIMS(v, scatter ? y : x)[dim];
	b = DIMS(v, scatter ? x : y)[dim];
	g = groupsize(v, in);
	if (g > 1 && (!attr(v, in, A_CHANNEL_ID) ||
	    aint(v, in, A_USE_GLOBAL_DEVICE_IDS, 0))) {
		if (a >= 0 && a <= INT64_MAX / g && a * g == b)
			return 0;
	} else if (a ? b % a == 0 : b == 0)
		return 0;
no:
	return bad(v, "shape %s does not fit %s operand %s",
		shs(v, s, &p), scatter ? "a reduce-scatter of" :
		"an all-gather of", shs(v, opshid(v, in, k), &q));
}

/* result (or its elements) gather the operands; start: async form */
static int
inf_allgather(V *v, const HloInstr *in, uint32_t *out, int scatter)
{
	const HloShape *s = SH(v, in->shape);
	uint32_t res = in->shape, k;
	int64_t dim = 0;

	if (wantops(v, in, 1, UINT32_MAX) || aone(v, in, A_DIMENSIONS, &dim))
		return -1;
	if (in->op == HOP_ALLGATHERSTART && s->type == TY_TUPLE &&
	    s->ntuple == 2 && (in->nops > 1) ==
	    (SH(v, v->m->ids[s->tuple])->type == TY_TUPLE))
		res = v->m->ids[s->tuple + 1];
	s = SH(v, res);
	if (in->nops == 1)
		return gatherlike(v, in, 0, res, dim, scatter) ? -1 :
			(*out = lref(v, in->shape), 0);
	if (s->type != TY_TUPLE || s->ntuple != in->nops)
		return bad(v, "expected a tuple of %u results", in->nops);
	for (k = 0; k < in->nops; k++)
		if (gatherlike(v, in, k, v->m->ids[s->tuple + k], dim, scatter))
			return -1;
	*out = lref(v, in->shape);
	return 0;
}

/* all-reduce's reducer: two scalars of the operands' type to one */
static int
allreducer(V *v, const HloInstr *in)
{
	const HloShape *r;
	uint32_t c, k;
	Str a;

	if (wantcalled(v, in, 1))
		return -1;
	c = called(v, in, 0);
	r = SH(v, rootsh(v, c));
	if (wantparams(v, c, 2))
		return -1;
	if (!isscalar(r))
		return bad(v, "reducer %s returns %s, expected a scalar",
			cname(v, c), shs(v, rootsh(v, c), &a));
	for (k = 0; k < in->nops; k++)
		if (isarr(opsh(v, in, k)) && (wantscalarparam(v, c, 0,
		    opsh(v, in, k)->type, IGN_FP) || wantscalarparam(v, c, 1,
		    opsh(v, in, k)->type, IGN_FP)))
			return -1;
	return 0;
}

/* the operand's shape, or a tuple of all operands' shapes */
static int
passthrough(V *v, const HloInstr *in, uint32_t *out, int arrays)
{
	uint32_t k;

	if (wantops(v, in, 1, UINT32_MAX))
		return -1;
	for (k = 0; arrays && k < in->nops; k++)
		if (wantarr(v, in, k))
			return -1;
	if (in->nops == 1)
		return *out = lref(v, opshid(v, in, 0)), 0;
	return inf_tuple(v, in, out);
}

static int
inf_alltoall(V *v, const HloInstr *in, uint32_t *out)
{
	const HloAttr *a = attr(v, in, A_DIMENSIONS);
	uint32_t k;
	int64_t dim = 0;

	if (a) {
		if (wantops(v, in, 1, 1) || wantarr(v, in, 0) ||
		    aone(v, in, A_DIMENSIONS, &dim))
			return -1;
		if (dim < 0 || dim >= opsh(v, in, 0)->rank)
			return bad(v, "split dimension %lld out of range",
				(long long)dim);
		*out = lref(v, opshid(v, in, 0));
		return 0;
	}
	for (k = 1; k < in->nops; k++)
		if (!seq(v->m, opshid(v, in, k), opshid(v, in, 0), 0, 0))
			return bad(v, "operand %u differs from operand 0", k);
	return passthrough(v, in, out, 1);
}

/* element k of the instruction's own tuple shape */
static uint32_t
ownel(V *v, const HloInstr *in, uint32_t k)
{
	const HloShape *s = SH(v, in->shape);

	return s->type == TY_TUPLE && k < s->ntuple ?
		lref(v, v->m->ids[s->tuple + k]) : lscalar(v, TY_INVALID);
}

static int
inf_collpermute(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *s = SH(v, in->shape);
	uint32_t x, k;

	if (wantops(v, in, 1, UINT32_MAX))
		return -1;
	x = opshid(v, in, in->nops == 4 ? 1 : 0);
	if (in->op == HOP_COLLPERMUTE) {
		if (in->nops == 1 || in->nops == 4)
			return *out = lref(v, x), 0;
		return inf_tuple(v, in, out);
	}
	/* start: (operand, result, u32[], u32[]) or, older, the result */
	if (s->type != TY_TUPLE || isarr(SH(v, x)) == 0)
		return *out = lref(v, in->nops == 1 ? x : in->shape), 0;
	*out = ltup(v, s->ntuple < 2 ? 2 : s->ntuple);
	lset(v, *out, 0, lref(v, opshid(v, in, 0)));
	lset(v, *out, 1, lref(v, x));
	for (k = 2; k < s->ntuple; k++)
		lset(v, *out, k, ownel(v, in, k));
	return 0;
}

/* done of an async pair: element k of a tuple operand, else the operand */
static int
inf_done(V *v, const HloInstr *in, uint32_t k, uint32_t *out)
{
	const HloShape *x = opsh(v, in, 0);

	if (x->type == TY_TUPLE && x->ntuple >= 2)
		return tupleel(v, in, k, out);
	*out = lref(v, opshid(v, in, 0));
	return 0;
}

static int
wanttoken(V *v, const HloInstr *in, uint32_t k)
{
	Str a;

	if (opsh(v, in, k)->type == TY_TOKEN)
		return 0;
	return bad(v, "operand %u has shape %s, expected token[]", k,
		shs(v, opshid(v, in, k), &a));
}

static int
inf_io(V *v, const HloInstr *in, uint32_t *out)
{
	uint32_t t, k;

	switch (in->op) {
	case HOP_INFEED:
		if (wanttoken(v, in, 0))
			return -1;
		t = ltup(v, 2);
		lset(v, t, 0, ownel(v, in, 0));
		lset(v, t, 1, lscalar(v, TY_TOKEN));
		break;
	case HOP_OUTFEED:
		if (wanttoken(v, in, 1))
			return -1;
		t = lscalar(v, TY_TOKEN);
		break;
	case HOP_SEND:
	case HOP_RECV:
		if (wanttoken(v, in, in->op == HOP_SEND))
			return -1;
		t = ltup(v, 3);
		lset(v, t, 0, in->op == HOP_SEND ? lref(v, opshid(v, in, 0)) :
			ownel(v, in, 0));
		lset(v, t, 1, lscalar(v, TY_U32));
		lset(v, t, 2, lscalar(v, TY_TOKEN));
		break;
	case HOP_RECVDONE:
		if (tupleel(v, in, 0, &k))
			return -1;
		t = ltup(v, 2);
		lset(v, t, 0, k);
		lset(v, t, 1, lscalar(v, TY_TOKEN));
		break;
	case HOP_AFTERALL:
		for (k = 0; k < in->nops; k++)
			if (wanttoken(v, in, k))
				return -1;
		/* fall through */
	default:	/* send-done */
		t = lscalar(v, TY_TOKEN);
		break;
	}
	*out = t;
	return 0;
}

/* linear algebra, batch norm, fft */

static int
inf_batchnorm(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x;
	int64_t f = aint(v, in, A_FEATURE_INDEX, -1), fc;
	uint32_t k, t, grad = in->op == HOP_BNGRAD;

	for (k = 0; k < in->nops; k++)
		if (wantarr(v, in, k))
			return -1;
	x = opsh(v, in, 0);
	if (!isfloat(x->type))
		return badtype(v, "a floating point type", x->type);
	if (f < 0 || f >= x->rank)
		return bad(v, "feature_index %lld out of range", (long long)f);
	fc = DIMS(v, x)[f];
	for (k = 1; k < in->nops; k++) {
		const HloShape *y = opsh(v, in, k);

		if (grad && k == 4) {
			if (!samedims(v, x, y) || !isfloat(y->type))
				return bad(v, "output gradient does not fit "
					"the operand");
			continue;
		}
		if (y->rank != 1 || DIMS(v, y)[0] != fc ||
		    !sametype(y->type, x->type, IGN_FP))
			return bad(v, "operand %u is not a vector of the %lld "
				"features", k, (long long)fc);
	}
	if (in->op == HOP_BNINFER)
		return *out = lcopy(v, opshid(v, in, 0), x->type), 0;
	t = ltup(v, 3);
	lset(v, t, 0, lcopy(v, opshid(v, in, 0), x->type));
	lset(v, t, 1, larr(v, x->type, 1, &fc, 0));
	lset(v, t, 2, larr(v, x->type, 1, &fc, 0));
	*out = t;
	return 0;
}

static int
inf_fft(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x;
	const int64_t *len;
	int64_t d[MAXRANK];
	uint32_t n, k, r;
	int t;

	if (wantarr(v, in, 0))
		return -1;
	x = opsh(v, in, 0);
	len = aints(v, in, A_FFT_LENGTH, &n);
	if (n < 1 || n > 3 || n > x->rank)
		return bad(v, "fft_length of %u values for rank %u", n,
			x->rank);
	r = x->rank;
	memcpy(d, DIMS(v, x), r * 8u);
	t = x->type;
	if (aword(v, in, A_FFT_TYPE, "FFT") || aword(v, in, A_FFT_TYPE,
	    "IFFT")) {
		if (!iscplx(t))
			return badtype(v, "a complex type", t);
	} else if (aword(v, in, A_FFT_TYPE, "RFFT")) {
		if (t != TY_F32 && t != TY_F64)
			return badtype(v, "f32 or f64", t);
		for (k = 0; k < n; k++)
			if (d[r - n + k] != len[k])
				return bad(v, "fft_length does not match the "
					"operand");
		if (len[n - 1])
			d[r - 1] = len[n - 1] / 2 + 1;
		t = t == TY_F32 ? TY_C64 : TY_C128;
	} else if (aword(v, in, A_FFT_TYPE, "IRFFT")) {
		if (!iscplx(t))
			return badtype(v, "a complex type", t);
		for (k = 0; k + 1 < n; k++)
			if (d[r - n + k] != len[k])
				return bad(v, "fft_length does not match the "
					"operand");
		if ((d[r - 1] || len[n - 1]) && d[r - 1] != len[n - 1] / 2 + 1)
			return bad(v, "fft_length does not match the operand");
		d[r - 1] = len[n - 1];
		t = component(t);
	} else
		return bad(v, "unknown fft_type");
	*out = larr(v, t, r, d, x->dynmask);
	return 0;
}

static int
inf_linalg(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *a, *b;
	int r;

	if (wantarr(v, in, 0))
		return -1;
	a = opsh(v, in, 0);
	r = a->rank;
	if (!isfloat(a->type) && !iscplx(a->type))
		return badtype(v, "a floating point or complex type", a->type);
	if (r < 2 || DIMS(v, a)[r - 2] != DIMS(v, a)[r - 1])
		return bad(v, "a is not a batch of square matrices");
	if (in->op == HOP_CHOLESKY)
		return *out = lref(v, opshid(v, in, 0)), 0;
	if (wantarr(v, in, 1))
		return -1;
	b = opsh(v, in, 1);
	if (b->type != a->type || b->rank != r ||
	    (r > 2 && memcmp(DIMS(v, a), DIMS(v, b), (r - 2) * 8u)) ||
	    DIMS(v, a)[r - 1] != DIMS(v, b)[r -
	    (aint(v, in, A_LEFT_SIDE, 0) ? 2 : 1)])
		return bad(v, "b does not fit a");
	if (!aword(v, in, A_TRANSPOSE_A, "NO_TRANSPOSE") &&
	    !aword(v, in, A_TRANSPOSE_A, "TRANSPOSE") &&
	    !aword(v, in, A_TRANSPOSE_A, "ADJOINT"))
		return bad(v, "bad transpose_a");
	*out = lref(v, opshid(v, in, 1));
	return 0;
}

static int
inf_rng(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *s = SH(v, in->shape), *a, *b;

	if (wantops(v, in, 2, 3) || wantarr(v, in, 0) || wantarr(v, in, 1))
		return -1;
	a = opsh(v, in, 0);
	b = opsh(v, in, 1);
	if (in->nops == 3 && !isarr(opsh(v, in, 2)))
		return bad(v, "the shape operand is not an array");
	if (a->rank || b->rank || a->type != b->type || !isarr(s) ||
	    !sametype(s->type, a->type, IGN_FP))
		return bad(v, "rng bounds must be scalars of the result type");
	if (aword(v, in, A_DISTRIBUTION, "rng_normal") && !isfloat(a->type))
		return badtype(v, "a floating point type", a->type);
	*out = lref(v, in->shape);
	return 0;
}

static int
inf_rngbits(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *s = SH(v, in->shape);
	uint32_t t;

	if (wantarr(v, in, 0))
		return -1;
	if (s->type != TY_TUPLE)
		return *out = lref(v, in->shape), 0;
	if (s->ntuple != 2 || !isarr(SH(v, v->m->ids[s->tuple + 1])))
		return bad(v, "expected (state, bits)");
	t = ltup(v, 2);
	lset(v, t, 0, lref(v, opshid(v, in, 0)));
	lset(v, t, 1, lref(v, v->m->ids[s->tuple + 1]));
	*out = t;
	return 0;
}

static int
inf_dimsize(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x;
	int64_t dim = 0;

	if (wantarr(v, in, 0) || aone(v, in, A_DIMENSIONS, &dim))
		return -1;
	x = opsh(v, in, 0);
	if (dim < 0 || dim >= x->rank || DIMS(v, x)[dim] > INT32_MAX)
		return bad(v, "dimension %lld out of range", (long long)dim);
	if (in->op == HOP_GETDIMSIZE)
		return *out = lscalar(v, TY_S32), 0;
	if (!isscalar(opsh(v, in, 1)) || opsh(v, in, 1)->type != TY_S32)
		return bad(v, "the size is not s32[]");
	*out = lcopy(v, opshid(v, in, 0), x->type);
	v->nodes[*out].dyn |= 1ull << dim;
	return 0;
}

/* a constant's literal holds the bytes its shape needs */
static int
litbytes(V *v, uint32_t s, uint64_t *n, int depth)
{
	const HloShape *sh = SH(v, s);
	int64_t e;
	uint32_t k;

	if (depth > MAXDEPTH)
		return -1;
	if (sh->type == TY_TUPLE) {
		for (k = 0; k < sh->ntuple; k++)
			if (litbytes(v, v->m->ids[sh->tuple + k], n, depth + 1))
				return -1;
		return 0;
	}
	if (!isarr(sh))
		return 0;
	e = nelems(DIMS(v, sh), sh->rank);
	if (e < 0 || (uint64_t)e > UINT32_MAX)
		return -1;
	*n += (uint64_t)e * hlo_type_bytes(sh->type);
	return 0;
}

static int
inf_constant(V *v, const HloInstr *in, uint32_t *out)
{
	const HloAttr *a = hlo_attr(v->m, in, A_LITERAL);
	uint64_t n = 0;

	if (!a)
		return bad(v, "constant without a literal");
	if (a->v != HLO_ELIDED && (litbytes(v, in->shape, &n, 0) ||
	    n != a->n))
		return bad(v, "literal of %u bytes, the shape needs %llu", a->n,
			(unsigned long long)n);
	*out = lref(v, in->shape);
	return 0;
}

/* inference by opcode family (ops.def) */

static int
fam_elementwise(V *v, const HloInstr *in, uint32_t *out)
{
	switch (in->op) {
	case HOP_CLAMP:
		return inf_clamp(v, in, out);
	case HOP_SELECT:
		return inf_select(v, in, out);
	case HOP_CONVERT:
		return inf_convert(v, in, out);
	case HOP_BITCASTCVT:
		return inf_bitcastcvt(v, in, out);
	case HOP_STOCHCONVERT:
		return inf_stochcvt(v, in, out);
	}
	if (hlo_op_family(in->op) == OPFAM_UNARY)
		return inf_unary(v, in, out);
	return inf_binary(v, in, out);
}

/* data movement; leaves and tuples */
static int
fam_data(V *v, const HloInstr *in, uint32_t *out)
{
	switch (in->op) {
	case HOP_CONSTANT:
		return inf_constant(v, in, out);
	case HOP_COPY:
	case HOP_DOMAIN:
	case HOP_OPTBARRIER:
		*out = lref(v, opshid(v, in, 0));
		return 0;
	case HOP_ADDDEP:
		if (wanttoken(v, in, 1))
			return -1;
		*out = lref(v, opshid(v, in, 0));
		return 0;
	case HOP_BROADCAST:
		return inf_broadcast(v, in, out);
	case HOP_RESHAPE:
	case HOP_DYNRESHAPE:
		return inf_reshape(v, in, out);
	case HOP_TRANSPOSE:
		return inf_transpose(v, in, out);
	case HOP_REVERSE:
		return inf_reverse(v, in, out);
	case HOP_SLICE:
		return inf_slice(v, in, out);
	case HOP_DYNSLICE:
		return inf_dynslice(v, in, out);
	case HOP_DYNUPDSLICE:
		return inf_dus(v, in, out);
	case HOP_CONCAT:
		return inf_concat(v, in, out);
	case HOP_PAD:
		return inf_pad(v, in, out);
	case HOP_IOTA:
		return inf_iota(v, in, out);
	case HOP_GATHER:
		return inf_gather(v, in, out);
	case HOP_GETDIMSIZE:
	case HOP_SETDIMSIZE:
		return inf_dimsize(v, in, out);
	case HOP_TUPLE:
		return inf_tuple(v, in, out);
	case HOP_GTE:
		return inf_gte(v, in, out);
	}
	/* parameter, bitcast, shuffle: their own shape */
	*out = lref(v, in->shape);
	return 0;
}

static int
fam_reduce(V *v, const HloInstr *in, uint32_t *out)
{
	switch (in->op) {
	case HOP_REDUCE:
		return inf_reduce(v, in, out);
	case HOP_REDUCEWINDOW:
		return inf_reducewindow(v, in, out);
	case HOP_SELECTANDSCATTER:
		return inf_selectandscatter(v, in, out);
	case HOP_SCATTER:
		return inf_scatter(v, in, out);
	case HOP_SORT:
		return inf_sort(v, in, out);
	case HOP_MAP:
		return inf_map(v, in, out);
	}
	return inf_topk(v, in, out);
}

static int
fam_linalg(V *v, const HloInstr *in, uint32_t *out)
{
	switch (in->op) {
	case HOP_DOT:
	case HOP_SCALEDDOT:
		return inf_dot(v, in, out);
	case HOP_RAGGEDDOT:
		return inf_raggeddot(v, in, out);
	case HOP_CONV:
		return inf_conv(v, in, out);
	case HOP_FFT:
		return inf_fft(v, in, out);
	case HOP_CHOLESKY:
	case HOP_TRISOLVE:
		return inf_linalg(v, in, out);
	}
	return inf_batchnorm(v, in, out);
}

static int
fam_control(V *v, const HloInstr *in, uint32_t *out)
{
	switch (in->op) {
	case HOP_CALL:
	case HOP_FUSION:
		return inf_call(v, in, out);
	case HOP_WHILE:
		return inf_while(v, in, out);
	case HOP_CONDITIONAL:
		return inf_conditional(v, in, out);
	case HOP_ASYNCSTART:
		return inf_asyncstart(v, in, out);
	case HOP_ASYNCUPDATE:
		*out = lref(v, opshid(v, in, 0));
		return 0;
	case HOP_ASYNCDONE:
		return tupleel(v, in, 1, out);
	}
	/* scan: its own shape */
	*out = lref(v, in->shape);
	return 0;
}

static int
fam_collective(V *v, const HloInstr *in, uint32_t *out)
{
	switch (in->op) {
	case HOP_ALLREDUCE:
	case HOP_ALLREDUCESTART:
		return allreducer(v, in) ? -1 : passthrough(v, in, out, 1);
	case HOP_ALLREDUCEDONE:
		*out = lref(v, opshid(v, in, 0));
		return 0;
	case HOP_REDUCESCATTER:
		return allreducer(v, in) ? -1 : inf_allgather(v, in, out, 1);
	case HOP_ALLGATHER:
	case HOP_ALLGATHERSTART:
		return inf_allgather(v, in, out, 0);
	case HOP_ALLGATHERDONE:
	case HOP_COLLPERMUTEDONE:
		return inf_done(v, in, 1, out);
	case HOP_ALLTOALL:
		return inf_alltoall(v, in, out);
	case HOP_COLLPERMUTE:
	case HOP_COLLPERMUTESTART:
		return inf_collpermute(v, in, out);
	case HOP_COLLBCAST:
		return passthrough(v, in, out, 0);
	case HOP_RAGGEDALLTOALL:
		*out = lref(v, opshid(v, in, 1));
		return 0;
	case HOP_PARTITIONID:
	case HOP_REPLICAID:
		*out = lscalar(v, TY_U32);
		return 0;
	}
	/* collective-reduce: its own shape */
	*out = lref(v, in->shape);
	return 0;
}

/* random numbers, custom-call and the async copy pair */
static int
fam_other(V *v, const HloInstr *in, uint32_t *out)
{
	int64_t two = 2;

	switch (in->op) {
	case HOP_RNG:
		return inf_rng(v, in, out);
	case HOP_RNGBITGEN:
		return inf_rngbits(v, in, out);
	case HOP_RNGGETSTATE:
		*out = larr(v, TY_U64, 1, &two, 0);
		return 0;
	case HOP_COPYSTART:
		*out = ltup(v, 3);
		lset(v, *out, 0, lref(v, opshid(v, in, 0)));
		lset(v, *out, 1, lref(v, opshid(v, in, 0)));
		lset(v, *out, 2, lscalar(v, TY_U32));
		return 0;
	case HOP_COPYDONE:
		return tupleel(v, in, 0, out);
	}
	/* custom-call: its own shape */
	*out = lref(v, in->shape);
	return 0;
}

static int
infer(V *v, const HloInstr *in, uint32_t *out)
{
	v->nn = v->ni = v->nk = 0;
	if (hlo_op_elementwise_family(in->op))
		return fam_elementwise(v, in, out);
	switch (hlo_op_family(in->op)) {
	case OPFAM_LEAF:
	case OPFAM_DATA:
	case OPFAM_TUPLE:
		return fam_data(v, in, out);
	case OPFAM_REDUCE:
		return fam_reduce(v, in, out);
	case OPFAM_LINALG:
		return fam_linalg(v, in, out);
	case OPFAM_CONTROL:
		return fam_control(v, in, out);
	case OPFAM_COLLECTIVE:
		return fam_collective(v, in, out);
	case OPFAM_IO:
		return inf_io(v, in, out);
	}
	return fam_other(v, in, out);
}

/* xla's HloVerifier::CheckShape as xla's run_hlo_module and tests
 * configure it (layout-insensitive, allow_mixed_precision): shapes compare
 * ignoring layout and dynamic dimensions, and but for these opcodes,
 * which reinterpret or pass data through, floating point precision */
static int
exactshape(int op)
{
	switch (op) {
	case HOP_BITCAST: case HOP_CALL: case HOP_CONDITIONAL:
	case HOP_CONSTANT: case HOP_COPYDONE: case HOP_COPYSTART:
	case HOP_CUSTOMCALL: case HOP_GTE: case HOP_INFEED: case HOP_OUTFEED:
	case HOP_OPTBARRIER: case HOP_PARAMETER: case HOP_RECV:
	case HOP_RECVDONE: case HOP_SEND: case HOP_SENDDONE: case HOP_TUPLE:
	case HOP_WHILE: case HOP_DYNUPDSLICE:
		return 1;
	}
	return 0;
}

/* the inferred shape against the instruction's own */
int
hlo_infer_check(V *v, const HloInstr *in)
{
	uint32_t x;
	Str a, b;

	if (infer(v, in, &x))
		return -1;
	if (leq(v, x, in->shape, exactshape(in->op) ? IGN_DYN :
	    IGN_DYN | IGN_FP))
		return 0;
	a.n = 0;
	a.b[0] = 0;
	plnode(v, x, &a);
	return bad(v, "shape %s but operands give %s", shs(v, in->shape, &b),
		a.b);
}

int
hlo_infer_compatible(const HloModule *m, uint32_t a, uint32_t b)
{
	return seq(m, a, b, IGN_DYN, 0);
}

void
hlo_infer_free(V *v)
{
	free(v->nodes);
	free(v->ints);
	free(v->kids);
	free(v->pstart);
	free(v->pidx);
	free(v->types);
}

int
hlo_infer_shape(HloModule *m, uint32_t c, uint32_t i, uint32_t *shape,
	HloError *e)
{
	V v;
	uint32_t x;
	int r;

	if (c >= m->ncomps || i >= m->comps[c].nins)
		return hlo_err(e, "error: verify: no instruction #%u in "
			"computation #%u", i, c);
	memset(&v, 0, sizeof v);
	v.m = m;
	v.e = e;
	r = hlo_verify_instr(&v, c, i);
	if (!r)
		r = infer(&v, &m->comps[c].ins[i], &x);
	if (!r)
		*shape = lintern(m, &v, x);
	hlo_infer_free(&v);
	return r;
}
