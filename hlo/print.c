/* print.c: the HLO text printer. writes xla's canonical form (what
 * HloModule::ToString prints): names with '%', operands with their
 * shapes, computations callees first and the entry last. the output
 * parses back to a module that prints the same bytes. */
#include <stdlib.h>
#include <string.h>

#include "hlo.h"

static void
putname(const HloModule *m, uint32_t id, HloBuf *b)
{
	hlo_buf_put(b, "%", 1);
	hlo_buf_puts(b, hlo_cstr(m, id));
}

static void
putint(HloBuf *b, int64_t v)
{
	hlo_buf_printf(b, "%lld", (long long)v);
}

static void
putdims(const HloModule *m, const HloShape *sh, HloBuf *b)
{
	const int64_t *d = m->ints + sh->dims;
	int i;

	hlo_buf_put(b, "[", 1);
	for (i = 0; i < sh->rank; i++) {
		if (i)
			hlo_buf_put(b, ",", 1);
		if (i < 64 && (sh->dynmask >> i & 1) && d[i] == INT64_MIN) {
			hlo_buf_put(b, "?", 1);	/* unbounded dynamic */
			continue;
		}
		if (i < 64 && (sh->dynmask >> i & 1))
			hlo_buf_put(b, "<=", 2);
		putint(b, d[i]);
	}
	hlo_buf_put(b, "]", 1);
}

void
hlo_print_shape(const HloModule *m, uint32_t s, HloBuf *b)
{
	const HloShape *sh;
	uint32_t i;
	int k;

	if (s >= m->nshapes) {
		hlo_buf_puts(b, "<bad shape>");
		return;
	}
	sh = &m->shapes[s];
	if (sh->type == TY_TUPLE) {
		hlo_buf_put(b, "(", 1);
		for (i = 0; i < sh->ntuple; i++) {
			if (i) {
				hlo_buf_put(b, ", ", 2);
				if (i % 5 == 0)
					hlo_buf_printf(b, "/*index=%u*/", i);
			}
			hlo_print_shape(m, m->ids[sh->tuple + i], b);
		}
		hlo_buf_put(b, ")", 1);
		return;
	}
	if (sh->type == TY_BUFFER && sh->ntuple == 1) {
		hlo_buf_put(b, "b(", 2);
		hlo_print_shape(m, m->ids[sh->tuple], b);
		hlo_buf_put(b, ")", 1);
		return;
	}
	hlo_buf_puts(b, hlo_typeinfo[sh->type].name);
	putdims(m, sh, b);
	if (!(sh->flags & SH_LAYOUT) || (sh->rank == 0 && !sh->tail))
		return;
	hlo_buf_put(b, "{", 1);
	for (k = 0; k < sh->rank; k++) {
		if (k)
			hlo_buf_put(b, ",", 1);
		putint(b, m->ints[sh->dims + sh->rank + k]);
	}
	if (sh->tail) {
		hlo_buf_put(b, ":", 1);
		hlo_buf_puts(b, hlo_cstr(m, sh->tail));
	}
	hlo_buf_put(b, "}", 1);
}

/* s[0..n) in double quotes with the C escapes of absl::CEscape (\n \r
 * \t \" \' \\ and octal), as the HLO lexer reads them */
void
hlo_print_quoted(HloBuf *b, const char *s, size_t n)
{
	char t[8];
	size_t i, run;
	unsigned char c;

	hlo_buf_put(b, "\"", 1);
	for (i = 0; i < n; i++) {
		for (run = i; run < n; run++) {
			c = s[run];
			if (c < 0x20 || c >= 0x7f || c == '"' || c == '\'' ||
			    c == '\\')
				break;
		}
		if (run > i) {
			hlo_buf_put(b, s + i, run - i);
			if ((i = run) == n)
				break;
		}
		c = s[i];
		switch (c) {
		case '\n': hlo_buf_put(b, "\\n", 2); break;
		case '\r': hlo_buf_put(b, "\\r", 2); break;
		case '\t': hlo_buf_put(b, "\\t", 2); break;
		case '"': hlo_buf_put(b, "\\\"", 2); break;
		case '\'': hlo_buf_put(b, "\\'", 2); break;
		case '\\': hlo_buf_put(b, "\\\\", 2); break;
		default:
			snprintf(t, sizeof t, "\\%03o", c);
			hlo_buf_put(b, t, 4);
		}
	}
	hlo_buf_put(b, "\"", 1);
}

/* literals */

static uint64_t
loadbits(const unsigned char *p, int nbytes)
{
	uint64_t v = 0;
	int i;

	for (i = nbytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void
putelem(int type, const unsigned char *p, int scalar, HloBuf *b)
{
	char buf[64];
	int nb = hlo_type_bytes(type);
	uint64_t v = loadbits(p, nb);

	switch (hlo_typeinfo[type].cls) {
	case C_PRED:
		if (scalar)
			hlo_buf_puts(b, v ? "true" : "false");
		else
			hlo_buf_puts(b, v ? "1" : "0");
		break;
	case C_SINT:
		if (nb < 8 && (v >> (nb * 8 - 1) & 1))
			v |= ~(uint64_t)0 << (nb * 8);
		putint(b, (int64_t)v);
		break;
	case C_UINT:
		hlo_buf_printf(b, "%llu", (unsigned long long)v);
		break;
	case C_FLOAT:
		hlo_float_format(type, v, buf, sizeof buf);
		hlo_buf_puts(b, buf);
		break;
	case C_CPLX: {
		int half = type == TY_C64 ? TY_F32 : TY_F64;

		hlo_buf_put(b, "(", 1);
		hlo_float_format(half, loadbits(p, nb / 2), buf, sizeof buf);
		hlo_buf_puts(b, buf);
		hlo_buf_put(b, ", ", 2);
		hlo_float_format(half, loadbits(p + nb / 2, nb / 2), buf,
			sizeof buf);
		hlo_buf_puts(b, buf);
		hlo_buf_put(b, ")", 1);
		break;
	}
	default:
		hlo_buf_puts(b, "?");
	}
}

/* prints the dims [d, rank) of an array literal starting at *p */
static void
putarray(const HloModule *m, const HloShape *sh, int d,
	const unsigned char **p, const unsigned char *end, HloBuf *b)
{
	int64_t n = m->ints[sh->dims + d], i;
	int nb = hlo_type_bytes(sh->type);

	if (d == sh->rank - 1) {
		hlo_buf_put(b, "{", 1);
		for (i = 0; i < n && *p + nb <= end; i++, *p += nb) {
			if (i)
				hlo_buf_put(b, ", ", 2);
			putelem(sh->type, *p, 0, b);
		}
		hlo_buf_put(b, "}", 1);
		return;
	}
	hlo_buf_put(b, "{ ", 2);
	for (i = 0; i < n; i++) {
		if (i)
			hlo_buf_put(b, ", ", 2);
		putarray(m, sh, d + 1, p, end, b);
	}
	hlo_buf_put(b, " }", 2);
}

static void
putliteral(const HloModule *m, uint32_t s, const unsigned char **p,
	const unsigned char *end, HloBuf *b)
{
	const HloShape *sh = &m->shapes[s];
	uint32_t i;

	if (sh->type == TY_TUPLE) {
		hlo_buf_put(b, "(", 1);
		for (i = 0; i < sh->ntuple; i++) {
			if (i)
				hlo_buf_put(b, ", ", 2);
			putliteral(m, m->ids[sh->tuple + i], p, end, b);
		}
		hlo_buf_put(b, ")", 1);
		return;
	}
	if (sh->type == TY_TOKEN || sh->type == TY_OPAQUE)
		return;
	if (sh->rank == 0) {
		if (*p + hlo_type_bytes(sh->type) <= end) {
			putelem(sh->type, *p, 1, b);
			*p += hlo_type_bytes(sh->type);
		}
		return;
	}
	putarray(m, sh, 0, p, end, b);
}

/* attributes */

static void
putints(const int64_t *v, uint32_t n, const char *sep, HloBuf *b)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (i)
			hlo_buf_puts(b, sep);
		putint(b, v[i]);
	}
}

/* window={size=3x3 stride=2x2 pad=0_1x0_1 lhs_dilate=.. rhs_dilate=..
 * rhs_reversal=..}: size always, the others when not all default */
static void
putwindow(const int64_t *w, uint32_t ndims, HloBuf *b)
{
	static const char *const key[] = {"size", "stride", "pad",
		"pad", "rhs_dilate", "lhs_dilate", "rhs_reversal"};
	static const int order[] = {0, 1, 2, 5, 4, 6};
	static const int64_t dflt[] = {0, 1, 0, 0, 1, 1, 0};
	uint32_t d;
	int k, f, any, first = 1;

	if (!ndims) {
		hlo_buf_put(b, "{}", 2);
		return;
	}
	hlo_buf_put(b, "{", 1);
	for (k = 0; k < 6; k++) {
		f = order[k];
		any = f == 0;
		for (d = 0; d < ndims && !any; d++)
			any = w[d * 7 + f] != dflt[f] ||
				(f == 2 && w[d * 7 + 3] != 0);
		if (!any)
			continue;
		if (!first)
			hlo_buf_put(b, " ", 1);
		first = 0;
		hlo_buf_printf(b, "%s=", key[f]);
		for (d = 0; d < ndims; d++) {
			if (d)
				hlo_buf_put(b, "x", 1);
			putint(b, w[d * 7 + f]);
			if (f == 2) {
				hlo_buf_put(b, "_", 1);
				putint(b, w[d * 7 + 3]);
			}
		}
	}
	hlo_buf_put(b, "}", 1);
}

static void
putattr(const HloModule *m, const HloAttr *a, HloBuf *b)
{
	/* a->v is an offset into ints or bytes, or (K_INT, K_BOOL) the
	 * value itself: form pointers only from offsets */
	int ints = a->kind == K_INTS || a->kind == K_SLICE ||
		a->kind == K_PAD || a->kind == K_WINDOW;
	int bytes = a->kind != K_INT && a->kind != K_BOOL && !ints;
	uint32_t i, n = a->n;
	const int64_t *v = ints && n ? m->ints + a->v : NULL;
	const char *s = bytes && n ? m->bytes + a->v : "";
	int interior = 0;

	hlo_buf_put(b, ", ", 2);
	hlo_buf_puts(b, a->key == A_OTHER ? hlo_cstr(m, a->name) :
		hlo_attrinfo[a->key].key);
	hlo_buf_put(b, "=", 1);
	switch (a->kind) {
	case K_INT:
		putint(b, a->v);
		break;
	case K_BOOL:
		hlo_buf_puts(b, a->v ? "true" : "false");
		break;
	case K_INTS:
		hlo_buf_put(b, "{", 1);
		putints(v, n, ",", b);
		hlo_buf_put(b, "}", 1);
		break;
	case K_SLICE:
		hlo_buf_put(b, "{", 1);
		for (i = 0; i + 2 < n; i += 3) {
			if (i)
				hlo_buf_put(b, ", ", 2);
			hlo_buf_printf(b, "[%lld:%lld", (long long)v[i],
				(long long)v[i + 1]);
			if (v[i + 2] != 1)
				hlo_buf_printf(b, ":%lld", (long long)v[i + 2]);
			hlo_buf_put(b, "]", 1);
		}
		hlo_buf_put(b, "}", 1);
		break;
	case K_PAD:
		for (i = 0; i + 2 < n; i += 3)
			interior |= v[i + 2] != 0;
		for (i = 0; i + 2 < n; i += 3) {
			if (i)
				hlo_buf_put(b, "x", 1);
			hlo_buf_printf(b, "%lld_%lld", (long long)v[i],
				(long long)v[i + 1]);
			if (interior)
				hlo_buf_printf(b, "_%lld", (long long)v[i + 2]);
		}
		break;
	case K_WINDOW:
		putwindow(v, n / 7, b);
		break;
	case K_STR:
		if (a->key == A_BACKEND_CONFIG && n && s[0] == '{')
			hlo_buf_put(b, s, n);
		else
			hlo_print_quoted(b, s, n);
		break;
	default:		/* K_WORD, K_RAW */
		hlo_buf_put(b, s, n);
	}
}

static void
putcomps(const HloModule *m, const char *key, const uint32_t *c,
	uint32_t n, int braces, HloBuf *b)
{
	uint32_t i;

	hlo_buf_printf(b, ", %s=", key);
	if (braces)
		hlo_buf_put(b, "{", 1);
	for (i = 0; i < n; i++) {
		if (i)
			hlo_buf_put(b, ", ", 2);
		if (c[i] < m->ncomps)
			putname(m, m->comps[c[i]].name, b);
		else
			hlo_buf_puts(b, "%<bad>");
	}
	if (braces)
		hlo_buf_put(b, "}", 1);
}

/* to_apply=, calls=, condition=/body=, ... by opcode */
static void
putcalled(const HloModule *m, const HloInstr *in, HloBuf *b)
{
	const uint32_t *c = m->ids + in->called;
	uint32_t n = in->ncalled;

	if (!n)
		return;
	switch (in->op) {
	case HOP_WHILE:
		if (n == 2) {
			putcomps(m, "condition", c + 1, 1, 0, b);
			putcomps(m, "body", c, 1, 0, b);
			return;
		}
		break;
	case HOP_CONDITIONAL:
		if (n == 2 && !(in->flags & HI_BRANCHES)) {
			putcomps(m, "true_computation", c, 1, 0, b);
			putcomps(m, "false_computation", c + 1, 1, 0, b);
		} else {
			putcomps(m, "branch_computations", c, n, 1, b);
		}
		return;
	case HOP_SELECTANDSCATTER:
		if (n == 2) {
			putcomps(m, "select", c, 1, 0, b);
			putcomps(m, "scatter", c + 1, 1, 0, b);
			return;
		}
		break;
	case HOP_FUSION:
	case HOP_ASYNCSTART:
	case HOP_ASYNCUPDATE:
	case HOP_ASYNCDONE:
		if (n == 1) {
			putcomps(m, "calls", c, 1, 0, b);
			return;
		}
		break;
	case HOP_CUSTOMCALL:
		if (n == 1 && (in->flags & HI_CCFLAG)) {
			putcomps(m, "to_apply", c, 1, 0, b);
			return;
		}
		putcomps(m, "called_computations", c, n, 1, b);
		return;
	default:
		if (n == 1) {
			putcomps(m, "to_apply", c, 1, 0, b);
			return;
		}
	}
	putcomps(m, "called_computations", c, n, 1, b);
}

static void
putoperand(const HloModule *m, const HloComp *cp, uint32_t x, HloBuf *b)
{
	if (x >= cp->nins) {
		hlo_buf_puts(b, "%<bad>");
		return;
	}
	hlo_print_shape(m, cp->ins[x].shape, b);
	hlo_buf_put(b, " ", 1);
	putname(m, cp->ins[x].name, b);
}

static void
putctrl(const HloModule *m, const HloComp *cp, const HloInstr *in,
	HloBuf *b)
{
	uint32_t j, x;

	if (!in->nctrl)
		return;
	hlo_buf_puts(b, ", control-predecessors={");
	for (j = 0; j < in->nctrl; j++) {
		x = m->ids[in->ctrl + j];
		if (j)
			hlo_buf_put(b, ", ", 2);
		if (x < cp->nins)
			putname(m, cp->ins[x].name, b);
		else
			hlo_buf_puts(b, "%<bad>");
	}
	hlo_buf_put(b, "}", 1);
}

/* the computation async op in wraps (the start of its chain calls it);
 * HLO_NONE if in is no async op or its chain is broken */
static uint32_t
async_wrapped(const HloModule *m, const HloComp *cp, const HloInstr *in)
{
	uint32_t x;

	while ((in->op == HOP_ASYNCUPDATE || in->op == HOP_ASYNCDONE) &&
	    in->nops >= 1 && (x = m->ids[in->ops]) < cp->nins)
		in = &cp->ins[x];
	if (in->op != HOP_ASYNCSTART || in->ncalled != 1 ||
	    m->ids[in->called] >= m->ncomps)
		return HLO_NONE;
	return m->ids[in->called];
}

/* xla's HloComputation::CanExpandIntoSingleInstruction (nothing but
 * parameters besides the root), where the root also takes parameter k
 * as operand k, every one once: what the short form reads back as */
static int
single(const HloModule *m, uint32_t c)
{
	const HloComp *cp = &m->comps[c];
	const HloInstr *r;
	uint32_t i, x;

	if (cp->root >= cp->nins)
		return 0;
	for (i = 0; i < cp->nins; i++)
		if (!(cp->ins[i].flags & HI_DEAD) && i != cp->root &&
		    cp->ins[i].op != HOP_PARAMETER)
			return 0;
	r = &cp->ins[cp->root];
	if (r->op == HOP_PARAMETER ||
	    (int)r->nops != hlo_param_count(m, c))
		return 0;
	for (i = 0; i < r->nops; i++)
		if ((x = m->ids[r->ops + i]) >= cp->nins ||
		    cp->ins[x].op != HOP_PARAMETER || cp->ins[x].num != i)
			return 0;
	return 1;
}

/* 1 if the short form of ops wrapping c would read back as another
 * opcode (all-reduce-start, copy-start, ...): those keep the long form */
static int
sugar_clash(const HloModule *m, uint32_t c)
{
	static const char *const suffix[] = {"-start", "-update", "-done"};
	const HloComp *cp = &m->comps[c];
	const char *name;
	char buf[64];
	size_t k;

	if (cp->ins[cp->root].op >= HOP_COUNT)
		return 1;
	name = hlo_opinfo[cp->ins[cp->root].op].name;
	for (k = 0; k < 3; k++) {
		snprintf(buf, sizeof buf, "%s%s", name, suffix[k]);
		if (hlo_op_by_name(buf, strlen(buf)) >= 0)
			return 1;
	}
	return 0;
}

/* in's attributes with keys in [lo, hi) in attrs.def order, its called
 * computations (unless nocalled) and control predecessors at their
 * places in it; meta 0 leaves the AF_META ones out */
static void
putattrs(const HloModule *m, const HloComp *cp, const HloInstr *in, int lo,
	int hi, int nocalled, int meta, HloBuf *b)
{
	const HloAttr *a = m->attrv + in->attrs;
	uint32_t k;
	int called = nocalled || A_CALLED < lo || A_CALLED >= hi;
	int ctrl = A_CTRL < lo || A_CTRL >= hi;

	for (k = 0; k < in->nattrs; k++) {
		if (a[k].key == A_LITERAL || a[k].key < lo || a[k].key >= hi ||
		    (!meta && (hlo_attrinfo[a[k].key].flags & AF_META)))
			continue;
		if (!called && a[k].key > A_CALLED) {
			putcalled(m, in, b);
			called = 1;
		}
		if (!ctrl && a[k].key > A_CTRL) {
			putctrl(m, cp, in, b);
			ctrl = 1;
		}
		putattr(m, &a[k], b);
	}
	if (!called)
		putcalled(m, in, b);
	if (!ctrl)
		putctrl(m, cp, in, b);
}

void
hlo_print_instr(const HloModule *m, uint32_t c, uint32_t i, HloBuf *b)
{
	static const char *const suffix[] = {"-start", "-update", "-done"};
	const HloComp *cp = &m->comps[c];
	const HloInstr *in = &cp->ins[i], *w = NULL;
	uint32_t k, wc = HLO_NONE;

	if (in->op == HOP_ASYNCSTART || in->op == HOP_ASYNCUPDATE ||
	    in->op == HOP_ASYNCDONE)
		wc = async_wrapped(m, cp, in);
	if (wc != HLO_NONE && single(m, wc) && !sugar_clash(m, wc))
		w = &m->comps[wc].ins[m->comps[wc].root];
	if (cp->root == i)
		hlo_buf_put(b, "ROOT ", 5);
	putname(m, in->name, b);
	hlo_buf_put(b, " = ", 3);
	hlo_print_shape(m, in->shape, b);
	hlo_buf_put(b, " ", 1);
	if (w && w->op < HOP_COUNT) {
		/* xla's syntax sugar: the wrapped opcode with a suffix */
		hlo_buf_puts(b, hlo_opinfo[w->op].name);
		hlo_buf_puts(b, suffix[in->op == HOP_ASYNCSTART ? 0 :
			in->op == HOP_ASYNCUPDATE ? 1 : 2]);
	} else {
		hlo_buf_puts(b, in->op < HOP_COUNT ? hlo_opinfo[in->op].name :
			"?");
	}
	hlo_buf_put(b, "(", 1);
	if (in->op == HOP_PARAMETER) {
		putint(b, in->num);
	} else if (in->op == HOP_CONSTANT) {
		const HloAttr *lit = hlo_attr(m, in, A_LITERAL);

		if (lit && lit->v == HLO_ELIDED) {
			hlo_buf_puts(b, "{...}");
		} else if (lit) {
			const unsigned char *p = (const unsigned char *)
				m->bytes + lit->v;

			putliteral(m, in->shape, &p, p + lit->n, b);
		}
	}
	for (k = 0; k < in->nops; k++) {
		if (k)
			hlo_buf_put(b, ", ", 2);
		putoperand(m, cp, m->ids[in->ops + k], b);
	}
	hlo_buf_put(b, ")", 1);
	if (!w) {
		putattrs(m, cp, in, 0, A_COUNT, 0, 1, b);
	} else if (in->op == HOP_ASYNCSTART) {
		/* its own attributes, then the wrapped instruction's,
		 * without calls=; then its metadata and the rest */
		putattrs(m, cp, in, 0, A_CALLED, 1, 1, b);
		putattrs(m, &m->comps[wc], w, 0, A_CALLED + 1, 0, 0, b);
		putattrs(m, cp, in, A_CALLED + 1, A_COUNT, 1, 1, b);
	} else {
		putattrs(m, cp, in, 0, A_COUNT, 1, 1, b);
	}
}

static void
putcomp(const HloModule *m, uint32_t c, HloBuf *b)
{
	const HloComp *cp = &m->comps[c];
	uint32_t *order = xreallocarray(NULL, cp->nins + 1, sizeof *order);
	int n = hlo_topo(m, c, order), np = hlo_param_count(m, c), k;
	uint32_t i, p;

	if (n < 0) {		/* a cycle: print in array order */
		for (i = n = 0; i < cp->nins; i++)
			if (!(cp->ins[i].flags & HI_DEAD))
				order[n++] = i;
	}
	if (c == m->entry)
		hlo_buf_puts(b, "ENTRY ");
	putname(m, cp->name, b);
	hlo_buf_puts(b, " (");
	for (k = 0; k < np; k++) {
		if (k)
			hlo_buf_put(b, ", ", 2);
		p = hlo_param(m, c, k);
		if (p == HLO_NONE) {
			hlo_buf_printf(b, "missing.%d: ()", k);
			continue;
		}
		hlo_buf_puts(b, hlo_cstr(m, cp->ins[p].name));
		hlo_buf_put(b, ": ", 2);
		hlo_print_shape(m, cp->ins[p].shape, b);
	}
	hlo_buf_puts(b, ") -> ");
	if (cp->root < cp->nins)
		hlo_print_shape(m, cp->ins[cp->root].shape, b);
	else
		hlo_buf_puts(b, "()");
	hlo_buf_puts(b, " {\n");
	for (k = 0; k < n; k++) {
		hlo_buf_put(b, "  ", 2);
		hlo_print_instr(m, c, order[k], b);
		hlo_buf_put(b, "\n", 1);
	}
	hlo_buf_put(b, "}", 1);
	if (cp->thread) {
		hlo_buf_puts(b, ", execution_thread=");
		hlo_print_quoted(b, hlo_cstr(m, cp->thread), strlen(hlo_cstr(m,
			cp->thread)));
	}
	hlo_buf_puts(b, "\n\n");
	free(order);
}

/* per computation, 1 if only async ops call it and it expands into one
 * instruction: xla's printer leaves it out, its async ops carry it */
static uint8_t *
async_sugared(const HloModule *m)
{
	uint8_t *v = xcalloc(m->ncomps + 1, 1);
	const HloInstr *in;
	uint32_t c, i, k, w;
	int async;

	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++) {
			in = &m->comps[c].ins[i];
			if (in->flags & HI_DEAD)
				continue;
			async = in->op == HOP_ASYNCSTART ||
				in->op == HOP_ASYNCUPDATE ||
				in->op == HOP_ASYNCDONE;
			for (k = 0; k < in->ncalled; k++)
				if ((w = m->ids[in->called + k]) < m->ncomps)
					v[w] = async && v[w] != 2 && single(m,
						w) && !sugar_clash(m, w) ? 1 : 2;
		}
	for (c = 0; c < m->ncomps; c++)
		v[c] = v[c] == 1;
	return v;
}

void
hlo_print_module(const HloModule *m, HloBuf *b)
{
	const HloAttr *a = m->attrv + m->hattrs;
	uint8_t *sugar;
	uint32_t *order, k;
	int n;

	hlo_buf_puts(b, "HloModule ");
	hlo_buf_puts(b, m->name ? hlo_cstr(m, m->name) : "module");
	for (k = 0; k < m->nhattrs; k++)
		putattr(m, &a[k], b);
	hlo_buf_puts(b, "\n\n");
	if (m->frames) {
		const char *f = hlo_cstr(m, m->frames);
		size_t len = strlen(f);

		while (len && (f[len - 1] == '\n' || f[len - 1] == ' '))
			len--;
		hlo_buf_put(b, f, len);
		hlo_buf_puts(b, "\n\n");
	}
	order = xreallocarray(NULL, m->ncomps + 1, sizeof *order);
	sugar = async_sugared(m);
	n = hlo_comp_order_all(m, order);
	if (n < 0)
		for (n = 0; (uint32_t)n < m->ncomps; n++)
			order[n] = n;
	for (k = 0; k < (uint32_t)n; k++)
		if (!sugar[order[k]])
			putcomp(m, order[k], b);
	free(sugar);
	free(order);
}
