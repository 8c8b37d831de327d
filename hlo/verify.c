/* verify.c: hlo_verify checks a module's structure (ids in range, no
 * cycles, dense parameter numbers, unique names, called computations with
 * the signatures their callers need) and that every instruction's shape is
 * the one xla's shape inference (xla/service/shape_inference.cc, as used
 * by hlo_verifier.cc) gives. hlo_infer_shape returns that shape.
 *
 * Inference builds its answer as a small tree of nodes kept outside the
 * module (arrays, tuples, or references to module shapes), so checking a
 * const module never grows its pools. Shapes are compared without layout;
 * element types, dimensions and dynamic dimensions must be equal. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"

#define MAXRANK 64
#define MAXDEPTH 256

enum { L_ARR, L_TUP, L_REF };

typedef struct {
	uint8_t kind;		/* L_* */
	uint8_t type;		/* L_ARR: TY_* */
	uint16_t rank;		/* L_ARR */
	uint32_t ref;		/* L_REF: module shape id */
	uint32_t n;		/* L_TUP: element count */
	uint32_t off;		/* L_ARR: dims at ints[off]; L_TUP: elements
				 * at kids[off] */
	uint64_t dyn;		/* L_ARR: dynamic dimensions */
} LNode;

/* comparison flags */
enum { IGN_DYN = 1, IGN_FP = 2, IGN_TYPE = 4 };

typedef struct {
	const HloModule *m;
	HloError *e;
	uint32_t c, i;		/* the instruction being checked */
	LNode *nodes;
	uint32_t nn, capn;
	int64_t *ints;
	uint32_t ni, capi;
	uint32_t *kids;
	uint32_t nk, capk;
	uint32_t *pstart, *pidx;	/* parameters of computation c:
				 * pidx[pstart[c] + k] is parameter k; NULL
				 * when not built (hlo_infer_shape) */
} V;

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
	return t == TY_PRED ? 8 : hlo_typeinfo[t].bits;
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
	if (flags & IGN_TYPE)
		return 1;
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
		sput(o, "%s%s%lld", k ? "," : "",
			sh->dynmask >> k & 1 ? "<=" : "",
			(long long)m->ints[sh->dims + k]);
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
		sput(o, "%s%s%lld", k ? "," : "", n->dyn >> k & 1 ? "<=" : "",
			(long long)v->ints[n->off + k]);
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

static int
bad(V *v, const char *fmt, ...)
{
	const HloModule *m = v->m;
	char msg[800];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return hlo_err(v->e, "error: verify: computation %s, instruction %s: "
		"%s", hlo_cstr(m, m->comps[v->c].name),
		hlo_cstr(m, m->comps[v->c].ins[v->i].name), msg);
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
			return bad(v, "%s: dimension %lld out of range for rank "
				"%d", what, (long long)p[k], rank);
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
			return badtype(v, "a floating point or complex type", t);
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
			return badtype(v, "a floating point or complex type", t);
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

static int
inf_binary(V *v, const HloInstr *in, uint32_t *out)
{
	const HloShape *x, *y;
	int t;

	if (samearrays(v, in, 0, 1, 0))
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

		if (b->type != x->type || (b->rank && !samedims(v, b, x)))
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

	if (wantarr(v, in, 0) || samearrays(v, in, 1, 2, 0))
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
	memcpy(d, DIMS(v, x), rank * 8u);
	if (ib > ob) {
		if (rank >= MAXRANK)
			return bad(v, "rank too large");
		d[rank++] = ib / ob;
	} else if (ib < ob) {
		r = ob / ib;
		if (!rank || d[rank - 1] != r)
			return bad(v, "bitcast-convert to a %d times wider type "
				"needs a last dimension of %d", r, r);
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
		return bad(v, "%u broadcast dimensions for an operand of rank %u",
			n, x->rank);
	if (dimlist(v, bd, n, s->rank, "dimensions"))
		return -1;
	for (k = 0; k < n; k++)
		if (DIMS(v, s)[bd[k]] != DIMS(v, x)[k])
			return bad(v, "operand dimension %u (%lld) broadcast to "
				"dimension %lld of size %lld", k,
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
		return bad(v, "%u transpose dimensions for an operand of rank %u",
			n, x->rank);
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
			return bad(v, "slice [%lld:%lld:%lld] out of bounds for "
				"dimension %u of size %lld", (long long)lo,
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
			return bad(v, "start index %u is not an integral scalar "
				"of the same type as the others", k - from);
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
	if (u->rank != x->rank || u->type != x->type)
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
	int64_t dim, d[MAXRANK];
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
		if (y->rank != x->rank || y->type != x->type)
			return bad(v, "operand %u differs in rank or type", k);
		for (j = 0; j < x->rank; j++)
			if (j != dim && DIMS(v, y)[j] != d[j])
				return bad(v, "operand %u differs in dimension "
					"%u", k, j);
		if (DIMS(v, y)[dim] > INT64_MAX - d[dim])
			return bad(v, "dimension overflow");
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
	if (pv->rank || pv->type != x->type)
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
	uint32_t rhs = in->op == HOP_SCALEDDOT ? 1 : 1;

	if (wantarr(v, in, 0) || wantarr(v, in, rhs))
		return -1;
	l = opsh(v, in, 0);
	r = opsh(v, in, rhs);
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

	if (w[0] <= 0 || w[1] <= 0 || w[4] < 1 || w[5] < 1)
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
