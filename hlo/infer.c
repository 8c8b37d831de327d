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
#include "inferi.h"

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
int *
inf_typebuf(V *v, uint32_t n)
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

int
inf_tcls(int t)
{
	return hlo_typeinfo[t].cls;
}

int
inf_isfloat(int t)
{
	return inf_tcls(t) == C_FLOAT;
}

int
inf_iscplx(int t)
{
	return inf_tcls(t) == C_CPLX;
}

int
inf_isint(int t)
{
	return inf_tcls(t) == C_SINT || inf_tcls(t) == C_UINT;
}

int
inf_issigned(int t)
{
	return inf_tcls(t) == C_SINT || inf_tcls(t) == C_FLOAT || inf_tcls(t) == C_CPLX;
}

static int
isarrtype(int t)
{
	return t != TY_INVALID && t != TY_TUPLE && t != TY_OPAQUE &&
		t != TY_TOKEN && t != TY_BUFFER;
}

int
inf_bitwidth(int t)
{
	return hlo_typeinfo[t].bits;
}

int
inf_component(int t)
{
	return t == TY_C128 ? TY_F64 : TY_F32;
}

/* xla's SameElementTypeIgnoringFpPrecision */
int
inf_sametype(int a, int b, int flags)
{
	if ((flags & IGN_FP) && inf_isfloat(a) && inf_isfloat(b))
		return 1;
	return a == b;
}

/* module shapes */


int
inf_isarr(const HloShape *sh)
{
	return isarrtype(sh->type);
}

int
inf_isscalar(const HloShape *sh)
{
	return inf_isarr(sh) && sh->rank == 0;
}

int
inf_seq(const HloModule *m, uint32_t a, uint32_t b, int flags, int depth)
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
			if (!inf_seq(m, m->ids[x->tuple + k], m->ids[y->tuple + k],
			    flags, depth + 1))
				return 0;
		return 1;
	}
	if (!isarrtype(x->type) || !isarrtype(y->type))
		return x->type == y->type;
	if (!inf_sametype(x->type, y->type, flags) || x->rank != y->rank)
		return 0;
	if (!(flags & IGN_DYN) && x->dynmask != y->dynmask)
		return 0;
	return !x->rank || !memcmp(m->ints + x->dims, m->ints + y->dims,
		x->rank * 8u);
}

int
inf_samedims(V *v, const HloShape *a, const HloShape *b)
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

const char *
inf_shs(V *v, uint32_t s, Str *o)
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
uint32_t
inf_larr(V *v, int type, int rank, const int64_t *dims, uint64_t dyn)
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

uint32_t
inf_lref(V *v, uint32_t s)
{
	uint32_t x = newnode(v, L_REF);

	v->nodes[x].ref = s;
	return x;
}

/* a tuple node with n element slots, to be filled with lset */
uint32_t
inf_ltup(V *v, uint32_t n)
{
	uint32_t x = newnode(v, L_TUP);

	v->kids = grow(v->kids, &v->capk, v->nk + n + 1, sizeof *v->kids);
	v->nodes[x].n = n;
	v->nodes[x].off = v->nk;
	v->nk += n;
	return x;
}

void
inf_lset(V *v, uint32_t t, uint32_t k, uint32_t el)
{
	v->kids[v->nodes[t].off + k] = el;
}

uint32_t
inf_lscalar(V *v, int type)
{
	return inf_larr(v, type, 0, NULL, 0);
}

/* an array node with the dims of module shape s and element type type */
uint32_t
inf_lcopy(V *v, uint32_t s, int type)
{
	const HloShape *sh = SH(v, s);

	return inf_larr(v, type, sh->rank, DIMS(v, sh), sh->dynmask);
}

static int
leq(V *v, uint32_t x, uint32_t s, int flags)
{
	const LNode *n = &v->nodes[x];
	const HloShape *sh = SH(v, s);
	uint32_t k;

	if (n->kind == L_REF)
		return inf_seq(v->m, n->ref, s, flags, 0);
	if (n->kind == L_TUP) {
		if (sh->type != TY_TUPLE || sh->ntuple != n->n)
			return 0;
		for (k = 0; k < n->n; k++)
			if (!leq(v, v->kids[n->off + k],
			    v->m->ids[sh->tuple + k], flags))
				return 0;
		return 1;
	}
	if (!isarrtype(n->type) || !inf_isarr(sh))
		return n->type == sh->type;
	if (!inf_sametype(n->type, sh->type, flags) || n->rank != sh->rank)
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
inf_bad(V *v, const char *fmt, ...)
{
	const HloModule *m = v->m;
	char msg[800];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return hlo_err_in(v->e, NULL, "verify", hlo_cstr(m,
		m->comps[v->c].name), hlo_cstr(m, m->comps[v->c].ins[v->i].name),
		"%s", msg);
}

/* operands, attributes, called computations */

static uint32_t
opid(V *v, const HloInstr *in, uint32_t k)
{
	return v->m->ids[in->ops + k];
}

uint32_t
inf_opshid(V *v, const HloInstr *in, uint32_t k)
{
	return v->m->comps[v->c].ins[opid(v, in, k)].shape;
}

const HloShape *
inf_opsh(V *v, const HloInstr *in, uint32_t k)
{
	return SH(v, inf_opshid(v, in, k));
}

int
inf_wantarr(V *v, const HloInstr *in, uint32_t k)
{
	Str s;

	if (inf_isarr(inf_opsh(v, in, k)))
		return 0;
	return inf_bad(v, "operand %u has shape %s, expected an array", k,
		inf_shs(v, inf_opshid(v, in, k), &s));
}

int
inf_wantops(V *v, const HloInstr *in, uint32_t lo, uint32_t hi)
{
	if (in->nops >= lo && in->nops <= hi)
		return 0;
	if (lo == hi)
		return inf_bad(v, "%u operands, expected %u", in->nops, lo);
	return inf_bad(v, "%u operands, expected %u to %u", in->nops, lo, hi);
}

const HloAttr *
inf_attr(V *v, const HloInstr *in, int key)
{
	const HloAttr *a = hlo_attr(v->m, in, key);

	return a && a->kind == hlo_attrinfo[key].kind ? a : NULL;
}

/* ints of an attribute stored in the ints pool; NULL and *n = 0 if absent */
const int64_t *
inf_aints(V *v, const HloInstr *in, int key, uint32_t *n)
{
	const HloAttr *a = inf_attr(v, in, key);

	*n = 0;
	if (!a || a->kind == K_INT || a->kind == K_BOOL || a->kind >= K_WORD)
		return NULL;
	*n = a->n;
	return v->m->ints + a->v;
}

int64_t
inf_aint(V *v, const HloInstr *in, int key, int64_t dflt)
{
	const HloAttr *a = inf_attr(v, in, key);

	return a && (a->kind == K_INT || a->kind == K_BOOL) ? a->v : dflt;
}

int
inf_aword(V *v, const HloInstr *in, int key, const char *w)
{
	return hlo_attr_is(v->m, in, key, w);
}

/* the one value of a single-element ints attribute */
int
inf_aone(V *v, const HloInstr *in, int key, int64_t *x)
{
	uint32_t n;
	const int64_t *p = inf_aints(v, in, key, &n);

	if (n != 1)
		return inf_bad(v, "expected one value in %s={...}",
			hlo_attrinfo[key].key);
	*x = p[0];
	return 0;
}

uint32_t
inf_called(V *v, const HloInstr *in, uint32_t k)
{
	return v->m->ids[in->called + k];
}

int
inf_wantcalled(V *v, const HloInstr *in, uint32_t n)
{
	if (in->ncalled == n)
		return 0;
	return inf_bad(v, "calls %u computations, expected %u", in->ncalled, n);
}

uint32_t
inf_nparams(V *v, uint32_t c)
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

uint32_t
inf_rootsh(V *v, uint32_t c)
{
	const HloComp *cp = &v->m->comps[c];

	return cp->ins[cp->root].shape;
}

const char *
inf_cname(V *v, uint32_t c)
{
	return hlo_cstr(v->m, v->m->comps[c].name);
}

/* computation c takes n parameters */
int
inf_wantparams(V *v, uint32_t c, uint32_t n)
{
	if (inf_nparams(v, c) == n)
		return 0;
	return inf_bad(v, "called computation %s takes %u parameters, expected %u",
		inf_cname(v, c), inf_nparams(v, c), n);
}

/* parameter k of computation c has shape s (ignoring layout and dynamic
 * dimensions, as xla's ShapeUtil::Compatible) */
int
inf_wantparam(V *v, uint32_t c, uint32_t k, uint32_t s, int flags)
{
	uint32_t p = paramsh(v, c, k);
	Str a, b;

	if (p != HLO_NONE && inf_seq(v->m, p, s, flags | IGN_DYN, 0))
		return 0;
	return inf_bad(v, "parameter %u of %s has shape %s, expected %s", k,
		inf_cname(v, c), p == HLO_NONE ? "none" : inf_shs(v, p, &a),
		inf_shs(v, s, &b));
}

/* parameter k of computation c is a scalar of type t */
int
inf_wantscalarparam(V *v, uint32_t c, uint32_t k, int t, int flags)
{
	uint32_t p = paramsh(v, c, k);
	Str a;

	if (p != HLO_NONE && inf_isscalar(SH(v, p)) &&
	    inf_sametype(SH(v, p)->type, t, flags))
		return 0;
	return inf_bad(v, "parameter %u of %s has shape %s, expected %s[]", k,
		inf_cname(v, c), p == HLO_NONE ? "none" : inf_shs(v, p, &a),
		hlo_typeinfo[t].name);
}

int
inf_wantpredroot(V *v, uint32_t c)
{
	Str a;

	if (inf_isscalar(SH(v, inf_rootsh(v, c))) && SH(v, inf_rootsh(v, c))->type ==
	    TY_PRED)
		return 0;
	return inf_bad(v, "computation %s returns %s, expected pred[]",
		inf_cname(v, c), inf_shs(v, inf_rootsh(v, c), &a));
}

/* element count, -1 on overflow */
int64_t
inf_nelems(const int64_t *d, int rank)
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

/* every value in [0, rank) and none twice */
int
inf_dimlist(V *v, const int64_t *p, uint32_t n, int rank, const char *what)
{
	uint32_t k;

	for (k = 0; k < n; k++) {
		if (p[k] < 0 || p[k] >= rank)
			return inf_bad(v, "%s: dimension %lld out of range for "
				"rank %d", what, (long long)p[k], rank);
		if (hlo_ints_has(p, k, p[k]))
			return inf_bad(v, "%s: dimension %lld repeated", what,
				(long long)p[k]);
	}
	return 0;
}

uint64_t
inf_rmask(int rank)
{
	return rank >= 64 ? ~0ull : (1ull << rank) - 1;
}

int
inf_sorted(const int64_t *p, uint32_t n)
{
	uint32_t k;

	for (k = 1; k < n; k++)
		if (p[k - 1] >= p[k])
			return 0;
	return 1;
}

/* elementwise */

int
inf_badtype(V *v, const char *want, int t)
{
	return inf_bad(v, "operand element type %s, expected %s",
		hlo_typeinfo[t].name, want);
}

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
		*out = inf_lref(v, inf_opshid(v, in, 0));
		return 0;
	case HOP_ADDDEP:
		if (inf_wanttoken(v, in, 1))
			return -1;
		*out = inf_lref(v, inf_opshid(v, in, 0));
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
	*out = inf_lref(v, in->shape);
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
		*out = inf_lref(v, inf_opshid(v, in, 0));
		return 0;
	case HOP_ASYNCDONE:
		return inf_tupleel(v, in, 1, out);
	}
	/* scan: its own shape */
	*out = inf_lref(v, in->shape);
	return 0;
}

static int
fam_collective(V *v, const HloInstr *in, uint32_t *out)
{
	switch (in->op) {
	case HOP_ALLREDUCE:
	case HOP_ALLREDUCESTART:
		return inf_allreducer(v, in) ? -1 : inf_passthrough(v, in, out, 1);
	case HOP_ALLREDUCEDONE:
		*out = inf_lref(v, inf_opshid(v, in, 0));
		return 0;
	case HOP_REDUCESCATTER:
		return inf_allreducer(v, in) ? -1 : inf_allgather(v, in, out, 1);
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
		return inf_passthrough(v, in, out, 0);
	case HOP_RAGGEDALLTOALL:
		*out = inf_lref(v, inf_opshid(v, in, 1));
		return 0;
	case HOP_PARTITIONID:
	case HOP_REPLICAID:
		*out = inf_lscalar(v, TY_U32);
		return 0;
	}
	/* collective-reduce: its own shape */
	*out = inf_lref(v, in->shape);
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
		*out = inf_larr(v, TY_U64, 1, &two, 0);
		return 0;
	case HOP_COPYSTART:
		*out = inf_ltup(v, 3);
		inf_lset(v, *out, 0, inf_lref(v, inf_opshid(v, in, 0)));
		inf_lset(v, *out, 1, inf_lref(v, inf_opshid(v, in, 0)));
		inf_lset(v, *out, 2, inf_lscalar(v, TY_U32));
		return 0;
	case HOP_COPYDONE:
		return inf_tupleel(v, in, 0, out);
	}
	/* custom-call: its own shape */
	*out = inf_lref(v, in->shape);
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
	return inf_bad(v, "shape %s but operands give %s", inf_shs(v, in->shape, &b),
		a.b);
}

int
hlo_infer_compatible(const HloModule *m, uint32_t a, uint32_t b)
{
	return inf_seq(m, a, b, IGN_DYN, 0);
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
