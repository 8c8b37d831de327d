/* verify.c: hlo_verify checks a module's structure (ids in range, no
 * cycles, dense parameter numbers, unique names, called computations with
 * the signatures their callers need) and, through hlo_infer_check
 * (infer.c), that every instruction's shape is the one xla's shape
 * inference gives, as xla's HloVerifier does. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "infer.h"

#define MAXRANK 64
#define MAXDEPTH 256

typedef HloInfer V;

static const char *
cname(V *v, uint32_t c)
{
	return hlo_cstr(v->m, v->m->comps[c].name);
}

static int
isarrtype(int t)
{
	return t != TY_INVALID && t != TY_TUPLE && t != TY_OPAQUE &&
		t != TY_TOKEN && t != TY_BUFFER;
}

static uint64_t
rmask(int rank)
{
	return rank >= 64 ? ~0ull : (1ull << rank) - 1;
}

/* structure */

static int
mbad(V *v, const char *fmt, ...)
{
	char msg[800];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return hlo_err(v->e, "error: verify: %s", msg);
}

static int
strok(const HloModule *m, uint32_t id)
{
	return id < m->nbytes && memchr(m->bytes + id, 0, m->nbytes - id);
}

static int
rangeok(int64_t off, uint64_t n, uint64_t len)
{
	return off >= 0 && (uint64_t)off <= len && n <= len - (uint64_t)off;
}

static const char *
cnm(V *v, uint32_t c)
{
	return strok(v->m, v->m->comps[c].name) ? cname(v, c) : "?";
}

static int
checkshape(V *v, uint32_t s, uint8_t *st, int depth)
{
	const HloModule *m = v->m;
	const HloShape *sh = &m->shapes[s];
	uint64_t seen = 0;
	uint32_t k, n;

	if (st[s] == 2)
		return 0;
	if (st[s] == 1 || depth > MAXDEPTH)
		return mbad(v, "shape %u is cyclic or nested too deeply", s);
	if (sh->type >= TY_COUNT || sh->type == TY_INVALID ||
	    (sh->tail && !strok(m, sh->tail)))
		return mbad(v, "shape %u has a bad type or layout tail", s);
	st[s] = 1;
	if (sh->type == TY_TUPLE) {
		if (sh->rank || !rangeok(sh->tuple, sh->ntuple, m->nids))
			return mbad(v, "tuple shape %u out of range", s);
		for (k = 0; k < sh->ntuple; k++)
			if (m->ids[sh->tuple + k] >= m->nshapes ||
			    checkshape(v, m->ids[sh->tuple + k], st, depth + 1))
				return mbad(v, "tuple shape %u has a bad "
					"element", s);
		st[s] = 2;
		return 0;
	}
	n = sh->rank * (sh->flags & SH_LAYOUT ? 2 : 1);
	if (sh->rank > MAXRANK || (!isarrtype(sh->type) && sh->rank) ||
	    !rangeok(sh->dims, n, m->nints) || (sh->dynmask & ~rmask(sh->rank)))
		return mbad(v, "shape %u out of range", s);
	for (k = 0; k < sh->rank; k++)
		if (m->ints[sh->dims + k] < 0 && (m->ints[sh->dims + k] !=
		    INT64_MIN || !(sh->dynmask >> k & 1)))
			return mbad(v, "shape %u has a negative dimension", s);
	for (k = sh->rank; k < n; k++) {
		int64_t x = m->ints[sh->dims + k];

		if (x < 0 || x >= sh->rank || (seen >> x & 1))
			return mbad(v, "shape %u has a bad layout", s);
		seen |= 1ull << x;
	}
	st[s] = 2;
	return 0;
}

static int
checkattrs(V *v, const HloInstr *in)
{
	const HloModule *m = v->m;
	const HloAttr *a;
	uint32_t k;

	if (!rangeok(in->attrs, in->nattrs, m->nattrv))
		return inf_bad(v, "attributes out of range");
	for (k = 0; k < in->nattrs; k++) {
		a = &m->attrv[in->attrs + k];
		if (a->key >= A_COUNT || (k && a[-1].key > a->key))
			return inf_bad(v, "attribute %u has a bad key", k);
		if (a->key == A_OTHER && !strok(m, a->name))
			return inf_bad(v, "attribute %u has a bad name", k);
		switch (a->kind) {
		case K_INT:
		case K_BOOL:
			continue;
		case K_INTS:
		case K_SLICE:
		case K_PAD:
		case K_WINDOW:
			if (a->n % (a->kind == K_INTS ? 1 :
			    a->kind == K_WINDOW ? 7 : 3) ||
			    !rangeok(a->v, a->n, m->nints))
				break;
			continue;
		case K_WORD:
		case K_STR:
		case K_RAW:
		case K_LITERAL:
			if ((a->v == HLO_ELIDED && !a->n) ||
			    rangeok(a->v, a->n, m->nbytes))
				continue;
			break;
		}
		return inf_bad(v, "attribute %s out of range",
			a->key == A_OTHER ? hlo_cstr(m, a->name) :
			hlo_attrinfo[a->key].key);
	}
	return 0;
}

/* operands or control predecessors: live instructions of c */
static int
checkrefs(V *v, uint32_t off, uint32_t n, const char *what)
{
	const HloComp *cp = &v->m->comps[v->c];
	uint32_t k, x;

	if (!rangeok(off, n, v->m->nids))
		return inf_bad(v, "%s list out of range", what);
	for (k = 0; k < n; k++) {
		x = v->m->ids[off + k];
		if (x >= cp->nins)
			return inf_bad(v, "%s %u is undefined (#%u of %u)",
				what, k, x, cp->nins);
		if (cp->ins[x].flags & HI_DEAD)
			return inf_bad(v, "%s %u (%s) is deleted", what, k,
				strok(v->m, cp->ins[x].name) ?
				hlo_cstr(v->m, cp->ins[x].name) : "?");
	}
	return 0;
}

static int
checkinstr(V *v, uint32_t c, uint32_t i, uint8_t *st)
{
	const HloModule *m = v->m;
	const HloInstr *in = &m->comps[c].ins[i];
	uint32_t k, x;

	v->c = c;
	v->i = i;
	if (!strok(m, in->name))
		return hlo_err_in(v->e, NULL, "verify", cnm(v, c), NULL,
			"instruction #%u has a bad name", i);
	if (in->op >= HOP_COUNT)
		return inf_bad(v, "bad opcode %u", in->op);
	if (in->shape >= m->nshapes)
		return inf_bad(v, "shape id %u out of range", in->shape);
	if (st && checkshape(v, in->shape, st, 0))
		return -1;
	if (checkrefs(v, in->ops, in->nops, "operand") ||
	    checkrefs(v, in->ctrl, in->nctrl, "control predecessor") ||
	    checkattrs(v, in))
		return -1;
	if (!rangeok(in->called, in->ncalled, m->nids))
		return inf_bad(v, "called computation list out of range");
	for (k = 0; k < in->ncalled; k++) {
		x = m->ids[in->called + k];
		if (x >= m->ncomps)
			return inf_bad(v, "called computation #%u does not "
				"exist", x);
		if (!st && (m->comps[x].root >= m->comps[x].nins))
			return inf_bad(v, "called computation #%u has no "
				"root", x);
	}
	if (in->op == HOP_PARAMETER && in->num < 0)
		return inf_bad(v, "negative parameter number %lld",
			(long long)in->num);
	return 0;
}

static int
checkcomp(V *v, uint32_t c, uint8_t *st)
{
	const HloModule *m = v->m;
	const HloComp *cp = &m->comps[c];
	uint32_t i;

	if (!strok(m, cp->name))
		return mbad(v, "computation #%u has a bad name", c);
	if (cp->thread && !strok(m, cp->thread))
		return hlo_err_in(v->e, NULL, "verify", cname(v, c), NULL,
			"bad execution thread");
	if (cp->nins > cp->cap)
		return hlo_err_in(v->e, NULL, "verify", cname(v, c), NULL,
			"instruction count over capacity");
	if (cp->root >= cp->nins || (cp->ins[cp->root].flags & HI_DEAD))
		return hlo_err_in(v->e, NULL, "verify", cname(v, c), NULL,
			"no live root instruction");
	for (i = 0; i < cp->nins; i++)
		if (!(cp->ins[i].flags & HI_DEAD) && checkinstr(v, c, i, st))
			return -1;
	return 0;
}

/* the parameter tables; parameters numbered 0..n-1 in each computation */
static int
checkparams(V *v)
{
	const HloModule *m = v->m;
	uint32_t c, i, n, *slot;

	v->pstart = xcalloc(m->ncomps + 1, sizeof *v->pstart);
	for (c = 0; c < m->ncomps; c++) {
		v->pstart[c + 1] = v->pstart[c];
		for (i = 0; i < m->comps[c].nins; i++)
			if (m->comps[c].ins[i].op == HOP_PARAMETER &&
			    !(m->comps[c].ins[i].flags & HI_DEAD))
				v->pstart[c + 1]++;
	}
	v->pidx = xreallocarray(NULL, v->pstart[m->ncomps] + 1,
		sizeof *v->pidx);
	memset(v->pidx, 0xff, (v->pstart[m->ncomps] + 1) * sizeof *v->pidx);
	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++) {
			const HloInstr *in = &m->comps[c].ins[i];

			if (in->op != HOP_PARAMETER || (in->flags & HI_DEAD))
				continue;
			v->c = c;
			v->i = i;
			n = v->pstart[c + 1] - v->pstart[c];
			if (in->num >= n)
				return inf_bad(v, "parameter number %lld, but "
					"the computation has %u parameters (a "
					"gap)", (long long)in->num, n);
			slot = &v->pidx[v->pstart[c] + in->num];
			if (*slot != HLO_NONE)
				return inf_bad(v, "parameter number %lld used "
					"twice", (long long)in->num);
			*slot = i;
		}
	return 0;
}

static uint32_t
strhash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

/* instruction names unique in the module, computation names too */
static int
checknames(V *v)
{
	const HloModule *m = v->m;
	uint32_t n = m->ncomps, c, i, cap = 64, h, *tab;
	uint64_t *who;
	int r = 0;

	for (c = 0; c < m->ncomps; c++)
		n += m->comps[c].nins;
	while (cap < 2 * (uint64_t)n + 2)
		cap *= 2;
	tab = xcalloc(cap, sizeof *tab);
	who = xcalloc(cap, sizeof *who);
	for (c = 0; c < m->ncomps && !r; c++) {
		for (i = 0; i <= m->comps[c].nins && !r; i++) {
			const HloComp *cp = &m->comps[c];
			int comp = i == cp->nins;
			uint32_t name = comp ? cp->name : cp->ins[i].name;

			if (!comp && (cp->ins[i].flags & HI_DEAD))
				continue;
			h = strhash(hlo_cstr(m, name)) * 2 + comp;
			for (h &= cap - 1; tab[h]; h = (h + 1) & (cap - 1)) {
				uint64_t w = who[h];
				uint32_t oc = w >> 32, oi = w & 0xffffffffu;
				int ocomp = oi == m->comps[oc].nins;

				if (ocomp != comp || strcmp(hlo_cstr(m,
				    tab[h] - 1), hlo_cstr(m, name)))
					continue;
				v->c = c;
				v->i = i;
				r = comp ? mbad(v, "computation name %s used "
					"twice", hlo_cstr(m, name)) :
					inf_bad(v, "name also used in "
					"computation %s", cnm(v, oc));
				break;
			}
			tab[h] = name + 1;
			who[h] = (uint64_t)c << 32 | i;
		}
	}
	free(tab);
	free(who);
	return r;
}

static int
checkcycles(V *v)
{
	const HloModule *m = v->m;
	uint32_t c, n = 0, *order;
	int r = 0;

	for (c = 0; c < m->ncomps; c++)
		if (m->comps[c].nins > n)
			n = m->comps[c].nins;
	order = xreallocarray(NULL, (n > m->ncomps ? n : m->ncomps) + 1,
		sizeof *order);
	for (c = 0; c < m->ncomps && !r; c++)
		if (hlo_topo(m, c, order) < 0)
			r = hlo_err_in(v->e, NULL, "verify", cname(v, c),
				NULL, "its instructions form a cycle");
	if (!r && hlo_comp_order_all(m, order) < 0)
		r = mbad(v, "computations call each other in a cycle");
	free(order);
	return r;
}

/* the semantic checks of one instruction */
static int
checkop(V *v, uint32_t c, uint32_t i)
{
	const HloInstr *in = &v->m->comps[c].ins[i];
	int ar = hlo_opinfo[in->op].arity;
	HloSparsity sp[2];
	int ns;

	v->c = c;
	v->i = i;
	if ((ns = hlo_dot_sparsity(v->m, in, sp)) < 0)
		return inf_bad(v, "bad sparsity descriptor");
	ar += ns;
	if (ar >= 0 && in->nops != (uint32_t)ar)
		return inf_bad(v, "%u operands, %s takes %d", in->nops,
			hlo_opinfo[in->op].name, ar);
	if (in->ncalled && !(hlo_opinfo[in->op].flags & (OPF_CALLS | OPF_ASYNC)))
		return inf_bad(v, "%s calls computations",
			hlo_opinfo[in->op].name);
	return hlo_infer_check(v, in);
}

static int
verify(V *v)
{
	const HloModule *m = v->m;
	uint8_t *st;
	uint32_t c, i;
	int r = 0;

	if (!m->ncomps || m->entry >= m->ncomps)
		return mbad(v, "no entry computation");
	if (m->name && !strok(m, m->name))
		return mbad(v, "bad module name");
	st = xcalloc(m->nshapes + 1, 1);
	for (c = 0; c < m->ncomps && !r; c++)
		r = checkcomp(v, c, st);
	free(st);
	if (r || checkparams(v) || checknames(v) || checkcycles(v))
		return -1;
	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++)
			if (!(m->comps[c].ins[i].flags & HI_DEAD) &&
			    checkop(v, c, i))
				return -1;
	return 0;
}

int
hlo_verify(const HloModule *m, HloError *e)
{
	V v;
	int r;

	memset(&v, 0, sizeof v);
	v.m = m;
	v.e = e;
	r = verify(&v);
	hlo_infer_free(&v);
	return r;
}

/* for hlo_infer_shape: one instruction of a module otherwise valid */
int
hlo_verify_instr(V *v, uint32_t c, uint32_t i)
{
	if (!strok(v->m, v->m->comps[c].name))
		return mbad(v, "computation #%u has a bad name", c);
	return checkinstr(v, c, i, NULL);
}

/* the source position of the instruction an error names ("computation
 * C, instruction I: ..."), when the text reader recorded one: 0 and
 * *line, *col set; -1 otherwise */
int
hlo_err_src(const HloModule *m, const HloError *e, unsigned *line,
	unsigned *col)
{
	const char *p = strstr(e->msg, "computation "), *q, *r;
	uint32_t name, c, i;

	if (!p || !(q = strstr(p, ", instruction ")))
		return -1;
	q += strlen(", instruction ");
	if (!(r = strchr(q, ':')))
		return -1;
	if ((name = hlo_find_str(m, q, r - q)) == HLO_NONE)
		return -1;
	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++)
			if (m->comps[c].ins[i].name == name &&
			    m->comps[c].ins[i].src) {
				*line = m->comps[c].ins[i].src >> 10;
				*col = m->comps[c].ins[i].src & 1023;
				return 0;
			}
	return -1;
}
