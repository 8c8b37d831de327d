/* parse.c: the HLO text reader. One pass over a NUL-terminated copy of
 * the input with a hand-written lexer. Instruction names resolve through
 * a per-computation hash map keyed by interned string id; operands and
 * control predecessors named before their definition are patched when
 * their computation ends, called computations when the module ends.
 * Attribute values hlopt does not model are copied verbatim. Errors
 * longjmp back to hlo_parse_text, which frees everything the parse owns;
 * all scratch memory hangs off the parser state for that reason. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "parsei.h"

#define MAXDEPTH 256		/* tuple shapes, literals, brackets */
#define MAXRANK 64		/* dynmask has 64 bits */
#define POOLMAX 0xf0000000u	/* refuse to grow a pool past this */

/* attribute keys handled by the parser itself, beyond attrs.def */
enum {
	KC_TO_APPLY = 1000, KC_CALLS, KC_CONDITION, KC_BODY, KC_TRUE,
	KC_FALSE, KC_BRANCHES, KC_SELECT, KC_SCATTER, KC_CALLED, KC_CTRL,
};

typedef struct {
	uint32_t key, val, gen;
} Slot;

/* uint32 -> uint32, open addressing; clearing bumps gen */
typedef struct {
	Slot *v;
	uint32_t cap, n, gen;
} Map;

/* instruction names of the module: string id -> computation and index
 * of the latest instruction given that name; key 0 marks a free slot */
typedef struct {
	uint32_t key, comp, idx, hash;
} NSlot;

typedef struct {
	NSlot *v;
	uint32_t cap, n;
} NMap;

typedef struct {
	uint32_t at;		/* ids pool offset to patch */
	uint32_t name;		/* string id of the name */
	uint32_t pos;		/* source offset, for the error */
} Fix;

typedef struct {
	uint32_t rank, name, pos;
} Call;

typedef struct {
	uint32_t hash, off, len, sid;	/* len 0: free */
} SSlot;

typedef struct {
	const char *s;		/* the input, NUL-terminated, no NUL inside */
	const char *p;		/* the cursor */
	const char *fname;
	HloModule *m;
	HloError *e;
	jmp_buf jb;
	uint16_t ophash[512], tyhash[128], keyhash[512];
	const char *opname[HOP_COUNT], *tyname[TY_COUNT];
	NMap names;		/* given name -> instruction */
	Map params;		/* per computation: parameter numbers */
	Map comps;		/* computation name -> index */
	Fix *fix;		/* operands, control predecessors to patch */
	uint32_t nfix, capfix;
	Fix *cfix;		/* called computations to patch */
	uint32_t ncfix, capcfix;
	Call *call;		/* called computations of one instruction */
	uint32_t ncall, capcall;
	uint32_t *u32;		/* operands, tuple elements, names */
	uint32_t nu32, capu32;
	uint32_t *upos;		/* source offsets parallel to u32 */
	uint32_t capupos;
	int64_t *i64;
	uint32_t ni64, capi64;
	char *b;		/* literal bytes, decoded strings */
	uint32_t nb, capb;
	char *fr;		/* FileNames/... tables */
	uint32_t nfr, capfr;
	HloAttr *at;
	uint32_t nat, capat;
	HloAttr *hat;		/* header attributes */
	uint32_t nhat, caphat;
	int elided;		/* the literal had a {...} */
	SSlot *sc;		/* shape text -> shape id */
	uint32_t capsc, nsc;
	const char *tok;	/* start of the last name(), '%' included */
	HloPostItem *post;	/* shapes to infer, async forms to wrap */
	uint32_t npost, cappost;
	HloSrcLines lines;	/* HloInstr.src of the instructions */
} P;

static void *
grow(void *v, uint32_t *cap, uint64_t need, size_t size)
{
	uint64_t c = *cap ? *cap : 16;

	if (need <= *cap && v)	/* NULL means failure: allocate even for 0 */
		return v;
	while (c < need)
		c *= 2;
	if (c > UINT32_MAX)
		c = UINT32_MAX;
	if (need > c)
		return NULL;
	v = xreallocarray(v, c, size);
	*cap = c;
	return v;
}

static void fail(P *p, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

static void
fail(P *p, const char *at, const char *fmt, ...)
{
	char msg[768];
	const char *q, *ls;
	unsigned line = 1;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	ls = p->s;
	for (q = p->s; q < at; q++)
		if (*q == '\n') {
			line++;
			ls = q + 1;
		}
	hlo_err_at(p->e, p->fname, line, (unsigned)(at - ls) + 1, "%s", msg);
	longjmp(p->jb, 1);
}

#define NEED(p, v, n, cap, k) do { \
	void *nv_ = grow((p)->v, &(p)->cap, (uint64_t)(p)->n + (k), \
		sizeof *(p)->v); \
	if (!nv_) \
		fail((p), (p)->p, "input too large"); \
	(p)->v = nv_; \
} while (0)

static void
pushu32(P *p, uint32_t v, const char *at)
{
	NEED(p, u32, nu32, capu32, 1);
	if (p->capupos < p->capu32) {
		p->upos = xreallocarray(p->upos, p->capu32, sizeof *p->upos);
		p->capupos = p->capu32;
	}
	p->upos[p->nu32] = at - p->s;
	p->u32[p->nu32++] = v;
}

static void
pushi64(P *p, int64_t v)
{
	NEED(p, i64, ni64, capi64, 1);
	p->i64[p->ni64++] = v;
}

static char *
pushb(P *p, uint32_t n)
{
	char *r;

	NEED(p, b, nb, capb, n);
	r = p->b + p->nb;
	p->nb += n;
	return r;
}

static void
poolroom(P *p, uint64_t n)
{
	HloModule *m = p->m;

	if (m->nbytes + n > POOLMAX || m->nints + n > POOLMAX ||
	    m->nids + n > POOLMAX || m->nattrv + n > POOLMAX)
		fail(p, p->p, "module too large");
}

/* maps */

static uint32_t hashstr(const char *s, size_t n);

static uint32_t
mix(uint32_t k)
{
	k ^= k >> 16;
	k *= 0x45d9f3bu;
	k ^= k >> 16;
	return k;
}

static Slot *
mapslot(Slot *v, uint32_t cap, uint32_t gen, uint32_t key)
{
	uint32_t j = mix(key) & (cap - 1);

	for (;; j = (j + 1) & (cap - 1))
		if (v[j].gen != gen || v[j].key == key)
			return &v[j];
}

static uint32_t
mapget(const Map *t, uint32_t key)
{
	Slot *s;

	if (!t->cap)
		return HLO_NONE;
	s = mapslot(t->v, t->cap, t->gen, key);
	return s->gen == t->gen ? s->val : HLO_NONE;
}

static void
mapput(Map *t, uint32_t key, uint32_t val)
{
	Slot *s, *nv;
	uint32_t i, cap;

	if (!t->gen)
		t->gen = 1;
	if ((t->n + 1) * 2 > t->cap) {
		cap = t->cap ? t->cap * 2 : 64;
		nv = xcalloc(cap, sizeof *nv);
		for (i = 0; i < t->cap; i++)
			if (t->v[i].gen == t->gen)
				*mapslot(nv, cap, t->gen, t->v[i].key) =
					t->v[i];
		free(t->v);
		t->v = nv;
		t->cap = cap;
	}
	s = mapslot(t->v, t->cap, t->gen, key);
	if (s->gen != t->gen)
		t->n++;
	s->key = key;
	s->val = val;
	s->gen = t->gen;
}

static int
samebytes(const char *a, const char *s, size_t n)
{
	return !memcmp(a, s, n) && !a[n];
}

/* the slot of the name s[0..n) with hash h */
static NSlot *
nslot(const P *p, NSlot *v, uint32_t cap, const char *s, size_t n,
	uint32_t h)
{
	uint32_t j = h & (cap - 1);

	for (;; j = (j + 1) & (cap - 1))
		if (!v[j].key || (v[j].hash == h &&
		    samebytes(p->m->bytes + v[j].key, s, n)))
			return &v[j];
}

/* the instruction of computation c named s[0..n), else HLO_NONE */
static uint32_t
nget(const P *p, const char *s, size_t n, uint32_t c)
{
	NSlot *t;

	if (!p->names.cap)
		return HLO_NONE;
	t = nslot(p, p->names.v, p->names.cap, s, n, hashstr(s, n));
	return t->key && t->comp == c ? t->idx : HLO_NONE;
}

/* gives instruction i of computation c the name key (text s[0..n));
 * returns -1 if c has that name already, 1 if another computation
 * took it, else 0; c HLO_NONE only marks the name taken */
static int
ndefine(P *p, uint32_t key, const char *s, size_t n, uint32_t c,
	uint32_t i)
{
	NMap *t = &p->names;
	NSlot *sl, *nv;
	uint32_t k, cap, h, j;
	int r = 0;

	if ((t->n + 1) * 2 > t->cap) {
		cap = t->cap ? t->cap * 2 : 1024;
		nv = xcalloc(cap, sizeof *nv);
		for (k = 0; k < t->cap; k++) {
			if (!t->v[k].key)
				continue;
			for (j = t->v[k].hash & (cap - 1); nv[j].key;
			    j = (j + 1) & (cap - 1))
				;
			nv[j] = t->v[k];
		}
		free(t->v);
		t->v = nv;
		t->cap = cap;
	}
	h = hashstr(s, n);
	sl = nslot(p, t->v, t->cap, s, n, h);
	if (sl->key) {
		if (sl->comp == c)
			return -1;
		r = 1;
	} else {
		t->n++;
	}
	sl->key = key;
	sl->hash = h;
	sl->comp = c;
	sl->idx = i;
	return r;
}

static void
mapclear(Map *t)
{
	t->gen++;
	t->n = 0;
	if (!t->gen) {		/* wrapped: really clear */
		memset(t->v, 0, t->cap * sizeof *t->v);
		t->gen = 1;
	}
}

/* name tables for opcodes, types and attribute keys */

static uint32_t
hashstr(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	if (n) {
		for (w = 0; n; n--)
			w = w << 8 | (unsigned char)s[n - 1];
		h = (h ^ w) * 0xff51afd7ed558ccdull;
	}
	h ^= h >> 29;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 32;
	return (uint32_t)h;
}

static int
keyname(int code, const char **s)
{
	static const char *const special[] = {
		"to_apply", "calls", "condition", "body", "true_computation",
		"false_computation", "branch_computations", "select",
		"scatter", "called_computations", "control-predecessors",
	};

	if (code >= KC_TO_APPLY) {
		*s = special[code - KC_TO_APPLY];
		return 1;
	}
	*s = hlo_attrinfo[code].key;
	return (*s)[0] != 0;
}

static void
puthash(uint16_t *tab, uint32_t cap, const char *name, uint16_t v)
{
	uint32_t j = hashstr(name, strlen(name)) & (cap - 1);

	while (tab[j])
		j = (j + 1) & (cap - 1);
	tab[j] = v;
}

static void
buildtabs(P *p)
{
	const char *s;
	int i;

	for (i = 0; i < HOP_COUNT; i++) {
		puthash(p->ophash, 512, hlo_opinfo[i].name, i + 1);
		p->opname[i] = hlo_opinfo[i].name;
	}
	for (i = 1; i < TY_COUNT; i++) {
		p->tyname[i] = hlo_typeinfo[i].name;
		if (i != TY_TUPLE && i != TY_BUFFER)
			puthash(p->tyhash, 128, hlo_typeinfo[i].name, i + 1);
	}
	for (i = 0; i < A_COUNT; i++)
		if (keyname(i, &s))
			puthash(p->keyhash, 512, s, i + 1);
	for (i = KC_TO_APPLY; i <= KC_CTRL; i++) {
		keyname(i, &s);
		puthash(p->keyhash, 512, s, i + 1);
	}
}

static int
samename(const char *a, const char *s, size_t n)
{
	return !strncmp(a, s, n) && !a[n];
}

/* the index named s[0 .. n) in tab, open addressing over mask + 1 slots
 * (index + 1, 0 empty); -1 */
static int
lookup(const uint16_t *tab, uint32_t mask, const char *const *name,
	const char *s, size_t n)
{
	uint32_t j = hashstr(s, n) & mask;

	for (; tab[j]; j = (j + 1) & mask)
		if (samename(name[tab[j] - 1], s, n))
			return tab[j] - 1;
	return -1;
}

static int
oplookup(const P *p, const char *s, size_t n)
{
	return lookup(p->ophash, 511, p->opname, s, n);
}

static int
tylookup(const P *p, const char *s, size_t n)
{
	return lookup(p->tyhash, 127, p->tyname, s, n);
}

static int
keylookup(const P *p, const char *s, size_t n)
{
	uint32_t j = hashstr(s, n) & 511;
	const char *k;

	for (; p->keyhash[j]; j = (j + 1) & 511) {
		keyname(p->keyhash[j] - 1, &k);
		if (samename(k, s, n))
			return p->keyhash[j] - 1;
	}
	return -1;
}

/* the lexer */

/* character classes: CI identifier, CD digit, CB blank */
enum { CI = 1, CD = 2, CB = 4 };
static const unsigned char cclass[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 4, 0, 0, 4, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 0, 0, 0, 0, 0,
	0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1,
	0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

static int
isidc(int c)
{
	return cclass[c & 255] & CI;
}

static int
isdig(int c)
{
	return cclass[c & 255] & CD;
}

static int
hexval(int c)
{
	if (isdig(c))
		return c - '0';
	c |= 32;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static size_t
identlen(const char *s)
{
	const char *t = s;

	while (isidc((unsigned char)*t))
		t++;
	return t - s;
}

/* skips blanks and comments; stops at an unterminated comment */
static const char *
skipws(const char *s)
{
	const char *c;

	for (;;) {
		switch (*s) {
		case ' ':
		case '\t':
		case '\n':
		case '\r':
			s++;
			continue;
		case '/':
			if (s[1] == '/') {
				s += 2;
				while (*s && *s != '\n' && *s != '\r')
					s++;
				continue;
			}
			if (s[1] == '*') {
				/* scanned by hand: strstr may measure the
				 * whole rest of the input first (the
				 * sanitizers' does), quadratic over the
				 * index comments of long tuple shapes */
				for (c = s + 2; *c && !(c[0] == '*' &&
				    c[1] == '/'); c++)
					;
				if (!*c)
					return s;
				s = c + 2;
				continue;
			}
			return s;
		default:
			return s;
		}
	}
}

static void
wsslow(P *p)
{
	p->p = skipws(p->p);
	if (p->p[0] == '/' && p->p[1] == '*')
		fail(p, p->p, "unterminated comment");
}

static inline void
ws(P *p)
{
	if ((cclass[(unsigned char)*p->p] & CB) || *p->p == '/')
		wsslow(p);
}

/* a short description of the text at s for messages */
static const char *
found(const char *s, char *buf, size_t n)
{
	size_t k = identlen(s);

	if (!*s)
		return "end of input";
	if (k > 24)
		k = 24;
	if (k) {
		snprintf(buf, n, "'%.*s'", (int)k, s);
		return buf;
	}
	if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
		snprintf(buf, n, "byte 0x%02x", (unsigned char)*s);
	else
		snprintf(buf, n, "'%c'", *s);
	return buf;
}

static void
expect(P *p, int c, const char *ctx)
{
	char buf[40];

	ws(p);
	if (*p->p != c)
		fail(p, p->p, "expected '%c' %s, got %s", c, ctx,
			found(p->p, buf, sizeof buf));
	p->p++;
}

static int
accept(P *p, int c)
{
	ws(p);
	if (*p->p != c)
		return 0;
	p->p++;
	return 1;
}

/* the keyword w at the cursor, not followed by an identifier char */
static int
keyword(P *p, const char *w)
{
	size_t n = strlen(w);

	if (strncmp(p->p, w, n) || isidc((unsigned char)p->p[n]))
		return 0;
	p->p += n;
	return 1;
}

/* a [%]name; returns its start, length in *n */
static const char *
name(P *p, size_t *n, const char *what)
{
	const char *s;
	char buf[40];

	ws(p);
	s = p->tok = p->p;
	if (*s == '%')
		s++;
	*n = identlen(s);
	if (!*n)
		fail(p, p->p, "expected %s, got %s", what,
			found(p->p, buf, sizeof buf));
	p->p = s + *n;
	return s;
}

/* [-]digits as int64 (or, unsigned, up to 2^64-1 in *u); 0 if there is
 * no integer at s, -1 if it overflows */
static int
lexint(const char *s, const char **end, int *neg, uint64_t *mag)
{
	const char *t = s;
	uint64_t v = 0;

	*neg = 0;
	if (*t == '-')
		*neg = 1, t++;
	if (!isdig((unsigned char)*t))
		return 0;
	for (; isdig((unsigned char)*t); t++) {
		unsigned d = *t - '0';

		if (v > (UINT64_MAX - d) / 10) {
			while (isdig((unsigned char)*t))
				t++;
			*end = t;	/* the whole number, for messages */
			*mag = UINT64_MAX;
			return -1;
		}
		v = v * 10 + d;
	}
	*end = t;
	*mag = v;
	return 1;
}

/* an int64 at s; 0 if none or out of range */
static int
lexi64(const char *s, const char **end, int64_t *v)
{
	int neg;
	uint64_t mag;

	if (lexint(s, end, &neg, &mag) <= 0)
		return 0;
	if (neg ? mag > (uint64_t)INT64_MAX + 1 : mag > INT64_MAX)
		return 0;
	*v = neg ? (int64_t)(0 - mag) : (int64_t)mag;
	return 1;
}

static int64_t
geti64(P *p, const char *what)
{
	const char *e;
	int64_t v;
	char buf[40];

	ws(p);
	if (!lexi64(p->p, &e, &v))
		fail(p, p->p, "expected %s, got %s", what,
			found(p->p, buf, sizeof buf));
	p->p = e;
	return v;
}

static const double pow10tab[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
	1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* a floating-point literal: [-]digits[.digits][e[+-]digits], inf, nan,
 * nan(0xPAYLOAD), with the sign; 1 ok, 0 none here, -1 bad payload */
static int
lexfloat(const char *s, const char **end, double *v)
{
	const char *t = s, *d0;
	uint64_t m = 0, bits, payload;
	int neg = 0, nd = 0, e10 = 0, fd = 0, esign = 1, ex = 0, expd = 0;

	if (*t == '-')
		neg = 1, t++;
	if (!strncmp(t, "inf", 3) && !isidc((unsigned char)t[3])) {
		*v = neg ? -INFINITY : INFINITY;
		*end = t + 3;
		return 1;
	}
	if (!strncmp(t, "nan", 3)) {
		t += 3;
		payload = 1ull << 51;
		if (t[0] == '(' && t[1] == '0' && (t[2] | 32) == 'x') {
			t += 3;
			payload = 0;
			for (d0 = t; hexval((unsigned char)*t) >= 0; t++) {
				if (t - d0 >= 14)
					return -1;
				payload = payload * 16 + (isdig(*t) ? *t - '0' :
					(*t | 32) - 'a' + 10);
			}
			if (*t != ')' || t == d0 || !payload ||
			    payload >= 1ull << 52)
				return -1;
			t++;
		}
		if (isidc((unsigned char)*t))
			return 0;
		bits = (neg ? 1ull << 63 : 0) | 0x7ffull << 52 | payload;
		memcpy(v, &bits, 8);
		*end = t;
		return 1;
	}
	for (d0 = t; isdig((unsigned char)*t); t++, nd++)
		if (nd < 19)
			m = m * 10 + (*t - '0');
		else
			e10++;
	if (*t == '.') {
		for (t++; isdig((unsigned char)*t); t++, fd++)
			if (nd + fd < 19) {
				m = m * 10 + (*t - '0');
				e10--;
			}
	}
	if (!nd && !fd)
		return 0;
	if ((*t | 32) == 'e') {
		const char *q = t + 1;

		if (*q == '+' || *q == '-')
			esign = *q++ == '-' ? -1 : 1;
		if (isdig((unsigned char)*q)) {
			for (; isdig((unsigned char)*q); q++, expd++)
				if (ex < 100000)
					ex = ex * 10 + (*q - '0');
			t = q;
			e10 += esign * ex;
		}
	}
	*end = t;
	if (nd + fd <= 19 && m < (1ull << 53) && e10 >= -22 && e10 <= 22) {
		double x = (double)m;

		x = e10 < 0 ? x / pow10tab[-e10] : x * pow10tab[e10];
		*v = neg ? -x : x;
		return 1;
	}
	*v = strtod(s, NULL);
	return 1;
}

/* UTF-8: length of the valid sequence at s (s[0] >= 0x80), else 0 */
static int
utf8len(const unsigned char *s)
{
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (s[0] == 0xe0 && s[1] < 0xa0) ||
		    (s[0] == 0xed && s[1] > 0x9f))
			return 0;
		return 3;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (s[3] & 0xc0) != 0x80 || (s[0] == 0xf0 && s[1] < 0x90) ||
		    (s[0] == 0xf4 && s[1] > 0x8f))
			return 0;
		return 4;
	}
	return 0;
}

/* the end of the quoted string starting at s (after the closing quote) */
static const char *
strend(P *p, const char *s)
{
	const char *t = s + 1;
	int q = *s, k;

	for (;;) {
		unsigned char c = *t;

		if (c == q)
			return t + 1;
		if (!c)
			fail(p, s, "unterminated string");
		if (c == '\\') {
			if (!t[1])
				fail(p, s, "unterminated string");
			t += 2;
			continue;
		}
		if (c >= 0x80) {
			if (!(k = utf8len((const unsigned char *)t)))
				fail(p, t, "invalid UTF-8 in string");
			t += k;
			continue;
		}
		t++;
	}
}

static void
pututf8(P *p, uint32_t u, const char *at)
{
	char *o;

	if (u > 0x10ffff || (u >= 0xd800 && u <= 0xdfff))
		fail(p, at, "invalid unicode escape");
	if (u < 0x80) {
		*pushb(p, 1) = u;
	} else if (u < 0x800) {
		o = pushb(p, 2);
		o[0] = 0xc0 | u >> 6;
		o[1] = 0x80 | (u & 0x3f);
	} else if (u < 0x10000) {
		o = pushb(p, 3);
		o[0] = 0xe0 | u >> 12;
		o[1] = 0x80 | (u >> 6 & 0x3f);
		o[2] = 0x80 | (u & 0x3f);
	} else {
		o = pushb(p, 4);
		o[0] = 0xf0 | u >> 18;
		o[1] = 0x80 | (u >> 12 & 0x3f);
		o[2] = 0x80 | (u >> 6 & 0x3f);
		o[3] = 0x80 | (u & 0x3f);
	}
}

/* decodes the C escapes of the string s..e (quotes excluded) onto p->b */
static void
unescape(P *p, const char *s, const char *e)
{
	const char *run = s;
	uint32_t u;
	int k, h;

	while (s < e) {
		if (*s != '\\') {
			s++;
			continue;
		}
		memcpy(pushb(p, s - run), run, s - run);
		s++;
		switch (*s) {
		case 'n': *pushb(p, 1) = '\n'; s++; break;
		case 't': *pushb(p, 1) = '\t'; s++; break;
		case 'r': *pushb(p, 1) = '\r'; s++; break;
		case 'a': *pushb(p, 1) = '\a'; s++; break;
		case 'b': *pushb(p, 1) = '\b'; s++; break;
		case 'f': *pushb(p, 1) = '\f'; s++; break;
		case 'v': *pushb(p, 1) = '\v'; s++; break;
		case '\\': case '\'': case '"': case '?':
			*pushb(p, 1) = *s++;
			break;
		case 'x':
		case 'X':
			u = 0;
			for (k = 0, s++; s < e && (h = hexval(*s)) >= 0; s++,
			    k++)
				if ((u = u * 16 + h) > 0xff)
					fail(p, s, "\\x escape over 0xff");
			if (!k)
				fail(p, s, "\\x escape without digits");
			*pushb(p, 1) = u;
			break;
		case 'u':
		case 'U':
			h = *s == 'u' ? 4 : 8;
			u = 0;
			for (k = 0, s++; k < h; k++, s++) {
				if (s >= e || hexval(*s) < 0)
					fail(p, s, "bad unicode escape");
				u = u * 16 + hexval(*s);
			}
			pututf8(p, u, s);
			break;
		default:
			if (*s >= '0' && *s <= '7') {
				u = 0;
				for (k = 0; k < 3 && s < e && *s >= '0' &&
				    *s <= '7'; k++, s++)
					u = u * 8 + (*s - '0');
				if (u > 0xff)
					fail(p, s, "octal escape over 0377");
				*pushb(p, 1) = u;
				break;
			}
			fail(p, s - 1, "unknown escape in string");
		}
		run = s;
	}
	memcpy(pushb(p, s - run), run, s - run);
}

/* the end of a verbatim attribute value at s: up to a ',' or line end
 * outside brackets and strings, trailing blanks dropped */
static const char *
rawend(P *p, const char *s)
{
	char stack[MAXDEPTH];
	const char *t = s, *e;
	int depth = 0, k;

	for (;;) {
		unsigned char c = *t;

		switch (c) {
		case 0:
			if (depth)
				fail(p, s, "unbalanced '%c' in value",
					stack[depth - 1]);
			goto out;
		case '"':
		case '\'':
			t = strend(p, t);
			continue;
		case '{':
		case '[':
		case '(':
			if (depth == MAXDEPTH)
				fail(p, t, "value nested deeper than %d levels",
					MAXDEPTH);
			stack[depth++] = c;
			t++;
			continue;
		case '}':
		case ']':
		case ')':
			if (!depth)
				goto out;
			k = stack[--depth];
			if ((k == '{' && c != '}') || (k == '[' && c != ']') ||
			    (k == '(' && c != ')'))
				fail(p, t, "mismatched '%c'", c);
			t++;
			continue;
		case ',':
		case '\n':
		case '\r':
			if (!depth)
				goto out;
			t++;
			continue;
		default:
			if (c >= 0x80) {
				if (!(k = utf8len((const unsigned char *)t)))
					fail(p, t, "invalid UTF-8");
				t += k;
				continue;
			}
			if (c < 0x20 && c != '\t')
				fail(p, t, "unexpected byte 0x%02x", c);
			t++;
		}
	}
out:
	e = t;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	if (e == s) {
		char buf[40];

		fail(p, s, "expected a value, got %s", found(s, buf,
			sizeof buf));
	}
	return e;
}

/* pools */

static uint32_t
str(P *p, const char *s, size_t n)
{
	poolroom(p, n + 1);
	return hlo_str(p->m, s, n);
}

static HloAttr
mkbytes(P *p, int key, int kind, const void *v, uint32_t n)
{
	poolroom(p, n);
	return hlo_mk_bytes(p->m, key, kind, v, n);
}

/* shapes */

static void
typename(P *p, int *ty)
{
	const char *s = p->p;
	size_t n = identlen(s);
	char buf[40];

	*ty = n ? tylookup(p, s, n) : -1;
	if (*ty < 0 || s[n] != '[')
		fail(p, s, "expected a shape, got %s", found(s, buf,
			sizeof buf));
	p->p = s + n + 1;
}

static uint32_t
arrayshape(P *p, int intern)
{
	int64_t d[MAXRANK], m2m[MAXRANK], v, elems = 1;
	uint64_t dynmask = 0;
	const char *s0 = p->p, *t;
	int ty, rank = 0, nl = 0, layout = 0, lvl;
	uint32_t tail = 0;

	typename(p, &ty);
	ws(p);
	if (*p->p != ']') {
		for (;;) {
			int dyn = 0;

			ws(p);
			if (rank == MAXRANK)
				fail(p, p->p, "more than %d dimensions",
					MAXRANK);
			if (p->p[0] == '<' && p->p[1] == '=') {
				p->p += 2;
				dyn = 1;
			}
			ws(p);
			if (!dyn && *p->p == '?') {
				p->p++;
				v = INT64_MIN;
				dyn = 1;
			} else {
				t = p->p;
				v = geti64(p, "a dimension size");
				if (v < 0)
					fail(p, t, "negative dimension size");
				if (v && elems > INT64_MAX / v)
					fail(p, s0, "shape too large");
				elems *= v;
			}
			if (dyn)
				dynmask |= 1ull << rank;
			d[rank++] = v;
			if (!accept(p, ','))
				break;
		}
	}
	expect(p, ']', "after the dimensions");
	if (elems > INT64_MAX / 16 ||
	    elems * hlo_type_bytes(ty) > INT64_MAX / 2)
		fail(p, s0, "shape too large");
	if (*p->p == '{') {
		layout = 1;
		p->p++;
		ws(p);
		if (*p->p != ':' && *p->p != '}') {
			for (;;) {
				if (nl == MAXRANK)
					fail(p, p->p, "layout too long");
				t = p->p;
				m2m[nl] = geti64(p, "a layout dimension");
				if (m2m[nl] < 0 || m2m[nl] >= rank)
					fail(p, t, "layout dimension out of "
						"range");
				nl++;
				if (!accept(p, ','))
					break;
			}
		}
		ws(p);
		if (*p->p == ':') {
			t = ++p->p;
			for (lvl = 0; *p->p; p->p++) {
				if (*p->p == '(' || *p->p == '{') {
					if (++lvl > MAXDEPTH)
						fail(p, p->p, "layout nested "
							"too deeply");
				} else if (*p->p == ')' || (*p->p == '}' &&
				    lvl)) {
					lvl--;
				} else if (*p->p == '}') {
					break;
				} else if ((unsigned char)*p->p < 0x20 ||
				    (unsigned char)*p->p >= 0x7f) {
					fail(p, p->p, "unexpected character in "
						"layout");
				}
			}
			if (p->p > t && intern)
				tail = str(p, t, p->p - t);
		}
		expect(p, '}', "after the layout");
		if (nl != rank)
			fail(p, s0, "layout has %d entries for %d dimensions",
				nl, rank);
	}
	if (!intern)
		return 0;
	poolroom(p, 2 * rank + 2);
	return hlo_shape(p->m, ty, rank, d, layout ? m2m : NULL, dynmask,
		tail);
}

/* a shape, interned unless intern is 0 (then only checked) */
static uint32_t
shape(P *p, int depth, int intern)
{
	uint32_t base, id;

	ws(p);
	if (p->p[0] == 'b' && p->p[1] == '(') {
		p->p += 2;
		id = arrayshape(p, intern);
		expect(p, ')', "after a buffer shape");
		if (!intern)
			return 0;
		poolroom(p, 2);
		return hlo_shape_buffer(p->m, id);
	}
	if (*p->p != '(')
		return arrayshape(p, intern);
	if (depth >= MAXDEPTH)
		fail(p, p->p, "shape nested deeper than %d levels", MAXDEPTH);
	p->p++;
	base = p->nu32;
	if (!accept(p, ')')) {
		for (;;) {
			const char *at = p->p;

			id = shape(p, depth + 1, intern);
			if (intern)
				pushu32(p, id, at);
			if (!accept(p, ','))
				break;
		}
		expect(p, ')', "after the tuple shape");
	}
	if (!intern)
		return 0;
	poolroom(p, p->nu32 - base + 1);
	id = hlo_shape_tuple(p->m, p->nu32 - base,
		p->nu32 > base ? p->u32 + base : NULL);
	p->nu32 = base;
	return id;
}

/* where the shape text at s seems to end, or NULL; a guess is enough:
 * the cache below keeps only texts the parser read to that end */
static const char *
shapeend(const char *s)
{
	int depth = 0;

	if (*s == '(') {
		for (;; s++) {
			switch (*s) {
			case 0:
			case '/':
				return NULL;
			case '(':
			case '[':
			case '{':
				depth++;
				break;
			case ')':
			case ']':
			case '}':
				if (--depth == 0)
					return *s == ')' ? s + 1 : NULL;
				break;
			}
		}
	}
	while (isidc((unsigned char)*s))
		s++;
	if (*s != '[')
		return NULL;
	while (*s && *s != ']')
		s++;
	if (*s++ != ']')
		return NULL;
	if (*s != '{')
		return s;
	for (;; s++)
		switch (*s) {
		case 0:
			return NULL;
		case '{':
		case '(':
			depth++;
			break;
		case '}':
		case ')':
			if (--depth == 0)
				return s + 1;
			break;
		}
}

/* an interned shape, through a cache keyed by the exact text */
static uint32_t
cshape(P *p)
{
	const char *s, *e;
	uint32_t h, j, sid, k, cap;
	size_t n;

	ws(p);
	s = p->p;
	e = shapeend(s);
	if (!e || e - s > 4096)
		return shape(p, 0, 1);
	n = e - s;
	h = hashstr(s, n);
	if (p->capsc) {
		for (j = h & (p->capsc - 1); p->sc[j].len;
		    j = (j + 1) & (p->capsc - 1))
			if (p->sc[j].hash == h && p->sc[j].len == n &&
			    !memcmp(p->s + p->sc[j].off, s, n)) {
				p->p = e;
				return p->sc[j].sid;
			}
	}
	sid = shape(p, 0, 1);
	if (p->p != e)
		return sid;
	if ((p->nsc + 1) * 2 > p->capsc) {
		SSlot *old = p->sc;
		uint32_t oldcap = p->capsc;

		cap = oldcap ? oldcap * 2 : 256;
		p->sc = xcalloc(cap, sizeof *p->sc);
		p->capsc = cap;
		for (k = 0; k < oldcap; k++) {
			if (!old[k].len)
				continue;
			for (j = old[k].hash & (cap - 1); p->sc[j].len;
			    j = (j + 1) & (cap - 1))
				;
			p->sc[j] = old[k];
		}
		free(old);
	}
	for (j = h & (p->capsc - 1); p->sc[j].len; j = (j + 1) & (p->capsc - 1))
		;
	p->sc[j].hash = h;
	p->sc[j].off = s - p->s;
	p->sc[j].len = n;
	p->sc[j].sid = sid;
	p->nsc++;
	return sid;
}

/* does a shape start here (an operand's or literal's inline shape)? */
static int
shapeahead(P *p)
{
	const char *s = p->p;
	size_t n;

	if (*s == '(' || (s[0] == 'b' && s[1] == '('))
		return 1;
	n = identlen(s);
	return n && s[n] == '[' && tylookup(p, s, n) >= 0;
}

/* literals */

static void
putbits(P *p, uint64_t bits, int nbytes)
{
	char *o = pushb(p, nbytes);
	int k;

	for (k = 0; k < nbytes; k++)
		o[k] = bits >> 8 * k;
}

static void
floatelem(P *p, int ty, double *out)
{
	const char *e, *s = p->p;
	int r;
	char buf[40];

	r = lexfloat(s, &e, out);
	if (r < 0)
		fail(p, s, "bad NaN payload");
	if (!r)
		fail(p, s, "expected a %s value, got %s",
			hlo_typeinfo[ty].name, found(s, buf, sizeof buf));
	p->p = e;
}

static void
putfloat(P *p, int ty, double v, const char *at)
{
	uint64_t bits;

	if (hlo_float_from_text(ty, v, &bits) < 0)
		fail(p, at, isnan(v) ? "NaN not representable in %s" :
			isinf(v) ? "infinity not representable in %s" :
			"value out of range for %s", hlo_typeinfo[ty].name);
	putbits(p, bits, hlo_type_bytes(ty));
}

static void
element(P *p, int ty)
{
	const char *s, *e;
	int cls = hlo_typeinfo[ty].cls, neg, r, bits;
	uint64_t mag;
	double re, im;
	char buf[40];

	ws(p);
	s = p->p;
	switch (cls) {
	case C_PRED:
		if (keyword(p, "true")) {
			*pushb(p, 1) = 1;
			return;
		}
		if (keyword(p, "false")) {
			*pushb(p, 1) = 0;
			return;
		}
		if (lexint(s, &e, &neg, &mag) > 0 && !neg && mag <= 1 &&
		    !isidc((unsigned char)*e) && *e != '.') {
			*pushb(p, 1) = mag;
			p->p = e;
			return;
		}
		fail(p, s, "expected true or false, got %s", found(s, buf,
			sizeof buf));
	case C_SINT:
	case C_UINT:
		r = lexint(s, &e, &neg, &mag);
		if (r == 0 || (r > 0 && (isidc((unsigned char)*e) ||
		    *e == '.')))
			fail(p, s, "expected an integer of type %s, got %s",
				hlo_typeinfo[ty].name, found(s, buf,
				sizeof buf));
		bits = hlo_typeinfo[ty].bits;
		if (r < 0 || (cls == C_UINT && neg && mag) ||
		    (cls == C_UINT && bits < 64 && mag >> bits) ||
		    (cls == C_SINT && !neg && mag >> (bits - 1)) ||
		    (cls == C_SINT && neg && mag > 1ull << (bits - 1)))
			fail(p, s, "value %.*s out of range for %s",
				(int)(e - s), s, hlo_typeinfo[ty].name);
		putbits(p, neg ? 0 - mag : mag, hlo_type_bytes(ty));
		p->p = e;
		return;
	case C_FLOAT:
		floatelem(p, ty, &re);
		putfloat(p, ty, re, s);
		return;
	case C_CPLX:
		expect(p, '(', "to start a complex value");
		ws(p);
		s = p->p;
		floatelem(p, TY_F64, &re);
		expect(p, ',', "between the parts of a complex value");
		ws(p);
		e = p->p;
		floatelem(p, TY_F64, &im);
		expect(p, ')', "after a complex value");
		putfloat(p, ty == TY_C64 ? TY_F32 : TY_F64, re, s);
		putfloat(p, ty == TY_C64 ? TY_F32 : TY_F64, im, e);
		return;
	}
	fail(p, s, "no literal of type %s", hlo_typeinfo[ty].name);
}

static int
elidedahead(P *p)
{
	const char *s;

	if (*p->p != '{')
		return 0;
	s = skipws(p->p + 1);
	if (strncmp(s, "...", 3))
		return 0;
	s = skipws(s + 3);
	if (*s != '}')
		return 0;
	p->p = s + 1;
	p->elided = 1;
	return 1;
}

static void
array(P *p, int ty, const int64_t *d, int rank, int lvl)
{
	int64_t k = 0;
	char buf[40];

	if (elidedahead(p))
		return;
	expect(p, '{', lvl ? "to start a nested array" : "to start an array");
	if (!accept(p, '}')) {
		for (;;) {
			ws(p);
			if (k == d[lvl])
				fail(p, p->p, "more than %lld elements in "
					"dimension %d", (long long)d[lvl], lvl);
			if (lvl + 1 < rank) {
				array(p, ty, d, rank, lvl + 1);
			} else {
				if (*p->p == '{')
					fail(p, p->p, "array nested deeper than "
						"its rank %d", rank);
				element(p, ty);
			}
			k++;
			if (!accept(p, ','))
				break;
		}
		ws(p);
		if (*p->p != '}')
			fail(p, p->p, "expected ',' or '}' in array, got %s",
				found(p->p, buf, sizeof buf));
		p->p++;
	}
	if (k != d[lvl])
		fail(p, p->p - 1, "expected %lld elements in dimension %d, "
			"got %lld", (long long)d[lvl], lvl, (long long)k);
}

static void
literal(P *p, uint32_t sid, int depth)
{
	HloShape sh = *hlo_sh(p->m, sid);
	int64_t d[MAXRANK];
	uint32_t i, el;

	if (depth >= MAXDEPTH)
		fail(p, p->p, "literal nested deeper than %d levels",
			MAXDEPTH);
	ws(p);
	if (*p->p != '(' && shapeahead(p))
		shape(p, 0, 0);	/* an older dump's inline shape */
	if (sh.type == TY_TUPLE) {
		expect(p, '(', "to start a tuple literal");
		for (i = 0; i < sh.ntuple; i++) {
			if (i)
				expect(p, ',', "between tuple elements");
			el = hlo_tuple_elems(p->m, hlo_sh(p->m, sid))[i];
			literal(p, el, depth + 1);
		}
		expect(p, ')', "after a tuple literal");
		return;
	}
	if (sh.type == TY_TOKEN || sh.type == TY_OPAQUE)
		fail(p, p->p, "no literal of type %s",
			hlo_typeinfo[sh.type].name);
	for (i = 0; i < sh.rank; i++) {
		d[i] = hlo_dims(p->m, &sh)[i];
		if (d[i] < 0)
			fail(p, p->p, "literal of a dynamic shape");
	}
	if (sh.rank == 0 && *p->p == '{' && elidedahead(p))
		return;
	if (sh.rank == 0)
		element(p, sh.type);
	else
		array(p, sh.type, d, sh.rank, 0);
}

/* attribute values: each try* reads the value at s and returns its end,
 * or NULL when it does not have the form the kind wants */

static int
endsval(int c)
{
	return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
		c == '}' || c == 0 || c == '/';
}

static const char *
tryints(P *p, const char *s)
{
	const char *e;
	int64_t v;

	if (*s != '{')
		return NULL;
	s = skipws(s + 1);
	if (*s != '}') {
		for (;;) {
			if (!lexi64(s, &e, &v))
				return NULL;
			pushi64(p, v);
			s = skipws(e);
			if (*s != ',')
				break;
			s = skipws(s + 1);
		}
	}
	return *s == '}' ? s + 1 : NULL;
}

static const char *
tryslice(P *p, const char *s)
{
	const char *e;
	int64_t a, b, c;

	if (*s != '{')
		return NULL;
	s = skipws(s + 1);
	if (*s != '}') {
		for (;;) {
			if (*s != '[')
				return NULL;
			if (!lexi64(skipws(s + 1), &e, &a))
				return NULL;
			s = skipws(e);
			if (*s != ':' || !lexi64(skipws(s + 1), &e, &b))
				return NULL;
			s = skipws(e);
			c = 1;
			if (*s == ':') {
				if (!lexi64(skipws(s + 1), &e, &c))
					return NULL;
				s = skipws(e);
			}
			if (*s != ']')
				return NULL;
			pushi64(p, a);
			pushi64(p, b);
			pushi64(p, c);
			s = skipws(s + 1);
			if (*s != ',')
				break;
			s = skipws(s + 1);
		}
	}
	return *s == '}' ? s + 1 : NULL;
}

/* lo_hi[_interior]x...; interior 1 allowed only when three */
static const char *
trypad(P *p, const char *s, int three)
{
	const char *e;
	int64_t a, b, c;

	for (;;) {
		if (!lexi64(s, &e, &a) || *e != '_' || !lexi64(e + 1, &e, &b))
			return NULL;
		c = 0;
		if (three && *e == '_' && !lexi64(e + 1, &e, &c))
			return NULL;
		pushi64(p, a);
		pushi64(p, b);
		if (three)
			pushi64(p, c);
		s = e;
		if (*s != 'x')
			break;
		s++;
	}
	return s;
}

static const char *
trydxd(P *p, const char *s)
{
	const char *e;
	int64_t v;

	for (;;) {
		if (!lexi64(s, &e, &v))
			return NULL;
		pushi64(p, v);
		s = e;
		if (*s != 'x')
			return s;
		s++;
	}
}

/* {size=3x3 stride=... pad=lo_hix... lhs_dilate=... rhs_dilate=...
 * rhs_reversal=...} as 7 ints per dimension */
static const char *
trywindow(P *p, const char *s)
{
	static const char *const keys[6] = {
		"size", "stride", "pad", "rhs_dilate", "lhs_dilate",
		"rhs_reversal",
	};
	static const int64_t dflt[7] = {0, 1, 0, 0, 1, 1, 0};
	uint32_t start[6], cnt[6], base = p->ni64, n = 0, i, k;
	size_t len;
	const char *e;
	int seen = 0;

	if (*s != '{')
		return NULL;
	s = skipws(s + 1);
	while (*s != '}') {
		len = identlen(s);
		for (k = 0; k < 6; k++)
			if (samename(keys[k], s, len))
				break;
		if (k == 6 || s[len] != '=' || (seen >> k & 1))
			return NULL;
		seen |= 1 << k;
		start[k] = p->ni64;
		e = k == 2 ? trypad(p, s + len + 1, 0) :
			trydxd(p, s + len + 1);
		if (!e || !endsval(*e))
			return NULL;
		cnt[k] = (p->ni64 - start[k]) / (k == 2 ? 2 : 1);
		s = skipws(e);
	}
	if (seen && !(seen & 1))
		return NULL;
	if (seen & 1)
		n = cnt[0];
	for (k = 1; k < 6; k++)
		if ((seen >> k & 1) && cnt[k] != n)
			return NULL;
	for (i = 0; i < n; i++) {
		int64_t w[7];

		memcpy(w, dflt, sizeof w);
		w[0] = p->i64[start[0] + i];
		if (seen & 2)
			w[1] = p->i64[start[1] + i];
		if (seen & 4) {
			w[2] = p->i64[start[2] + 2 * i];
			w[3] = p->i64[start[2] + 2 * i + 1];
		}
		if (seen & 8)
			w[4] = p->i64[start[3] + i];
		if (seen & 16)
			w[5] = p->i64[start[4] + i];
		if (seen & 32)
			w[6] = p->i64[start[5] + i];
		for (k = 0; k < 7; k++)
			pushi64(p, w[k]);
	}
	/* move the assembled windows down over the parsed lists */
	if (n)
		memmove(p->i64 + base, p->i64 + p->ni64 - 7 * n, 7 * n * 8u);
	p->ni64 = base + 7 * n;
	return s + 1;
}

static int
iswordc(int c)
{
	return isidc(c) || c == '+' || c == '>' || c == '?';
}

/* the value of one attribute into *a; 0 if it does not fit its kind */
static int
typed(P *p, int key, HloAttr *a)
{
	const char *s = p->p, *e = NULL, *q;
	int kind = hlo_attrinfo[key].kind;
	int64_t v;

	p->ni64 = 0;
	memset(a, 0, sizeof *a);
	a->key = key;
	a->kind = kind;
	switch (kind) {
	case K_INT:
		if (!lexi64(s, &e, &v))
			return 0;
		a->v = v;
		break;
	case K_BOOL:
		if (!strncmp(s, "true", 4))
			a->v = 1, e = s + 4;
		else if (!strncmp(s, "false", 5))
			a->v = 0, e = s + 5;
		else
			return 0;
		break;
	case K_INTS:
		e = tryints(p, s);
		break;
	case K_SLICE:
		e = tryslice(p, s);
		break;
	case K_PAD:
		e = trypad(p, s, 1);
		break;
	case K_WINDOW:
		e = trywindow(p, s);
		break;
	case K_WORD:
		for (e = s; iswordc((unsigned char)*e); e++)
			;
		if (e == s)
			return 0;
		*a = mkbytes(p, key, K_WORD, s, e - s);
		break;
	case K_STR:
		if (*s == '"' || *s == '\'') {
			e = strend(p, s);
			if (!endsval(*e))
				return 0;
			p->nb = 0;
			unescape(p, s + 1, e - 1);
			*a = mkbytes(p, key, K_STR, p->b, p->nb);
			break;
		}
		if (key != A_BACKEND_CONFIG || *s != '{')
			return 0;
		/* json, kept verbatim */
		/* fallthrough */
	default:
		e = rawend(p, s);
		*a = mkbytes(p, key, kind == K_STR ? K_STR : K_RAW, s, e - s);
		break;
	}
	if (!e || !endsval(*e))
		return 0;
	if (kind == K_INTS || kind == K_SLICE || kind == K_PAD ||
	    kind == K_WINDOW) {
		if ((kind == K_SLICE || kind == K_PAD) && p->ni64 % 3)
			return 0;
		poolroom(p, p->ni64);
		*a = hlo_mk_ints(p->m, key, p->i64, p->ni64);
	}
	q = e;
	p->p = q;
	return 1;
}

/* computations */

static uint32_t
callee(P *p, int rank, int *count)
{
	const char *s;
	size_t n;
	Call *c;

	s = name(p, &n, "a computation name");
	NEED(p, call, ncall, capcall, 1);
	c = &p->call[p->ncall++];
	c->rank = rank;
	c->name = str(p, s, n);
	c->pos = p->tok - p->s;
	if (count)
		(*count)++;
	return c->name;
}

static void
calleelist(P *p, int *count)
{
	int k = 0;

	expect(p, '{', "to start a computation list");
	if (!accept(p, '}')) {
		do
			callee(p, k++, NULL);
		while (accept(p, ','));
		expect(p, '}', "after a computation list");
	}
	*count = k;
}

/* a reference to the instruction named s[0..n) in computation c onto
 * u32: its index as HLO_NONE - 1 - i, or the name's string id when it
 * is not defined yet */
static void
ref(P *p, uint32_t c, const char *s, size_t n, const char *at)
{
	uint32_t v = nget(p, s, n, c);

	if (v != HLO_NONE)
		pushu32(p, HLO_NONE - 1 - v, at);
	else
		pushu32(p, str(p, s, n), at);
}

/* a name list of control predecessors onto u32 */
static void
ctrllist(P *p, uint32_t c)
{
	const char *s;
	size_t n;

	expect(p, '{', "to start control-predecessors");
	if (accept(p, '}'))
		return;
	do {
		s = name(p, &n, "an instruction name");
		ref(p, c, s, n, p->tok);
	} while (accept(p, ','));
	expect(p, '}', "after control-predecessors");
}

typedef struct {
	uint32_t nctrl;		/* control names: u32[ctrl0 ...] */
	uint32_t ctrl0;
	int ccflag, branches, seen;
} Extra;

static void
attribute(P *p, uint32_t c, int op, Extra *x)
{
	const char *ks, *vs;
	size_t kn;
	int code, cnt = 0;
	HloAttr a;
	uint32_t i;

	ws(p);
	ks = p->p;
	kn = identlen(ks);
	if (!kn || ks[kn] != '=') {
		char buf[40];

		fail(p, ks, "expected an attribute name, got %s",
			found(ks, buf, sizeof buf));
	}
	p->p = ks + kn + 1;
	ws(p);
	vs = p->p;
	code = keylookup(p, ks, kn);
	if (code >= KC_TO_APPLY) {
		if (code != KC_CTRL && code != KC_BRANCHES &&
		    code != KC_CALLED) {
			if (x->seen >> (code - KC_TO_APPLY) & 1)
				fail(p, ks, "duplicate attribute %.*s",
					(int)kn, ks);
			x->seen |= 1 << (code - KC_TO_APPLY);
		}
		switch (code) {
		case KC_CTRL:
			if (x->nctrl)
				fail(p, ks, "duplicate control-predecessors");
			x->ctrl0 = p->nu32;
			ctrllist(p, c);
			x->nctrl = p->nu32 - x->ctrl0;
			return;
		case KC_BRANCHES:
		case KC_CALLED:
			calleelist(p, &cnt);
			if (code == KC_BRANCHES)
				x->branches = cnt;
			return;
		case KC_TO_APPLY:
			if (op == HOP_CUSTOMCALL)
				x->ccflag = 1;
			callee(p, 0, NULL);
			return;
		case KC_CONDITION:
		case KC_FALSE:
		case KC_SCATTER:
			callee(p, 1, NULL);
			return;
		default:
			callee(p, 0, NULL);
			return;
		}
	}
	if (code >= 0) {
		/* a known name given once typed and once raw (a value of
		 * another form) is a duplicate too */
		for (i = 0; i < p->nat; i++)
			if (p->at[i].key == code || (p->at[i].key == A_OTHER &&
			    p->at[i].name == str(p, ks, kn)))
				fail(p, ks, "duplicate attribute %.*s",
					(int)kn, ks);
		if (typed(p, code, &a))
			goto add;
		p->p = vs;
	}
	{
		uint32_t kid = str(p, ks, kn);
		const char *e = rawend(p, vs);

		for (i = 0; i < p->nat; i++)
			if ((p->at[i].key == A_OTHER && p->at[i].name == kid) ||
			    (code >= 0 && p->at[i].key == code))
				fail(p, ks, "duplicate attribute %.*s",
					(int)kn, ks);
		a = mkbytes(p, A_OTHER, K_RAW, vs, e - vs);
		a.name = kid;
		p->p = e;
	}
add:
	NEED(p, at, nat, capat, 1);
	p->at[p->nat++] = a;
}

static uint32_t rhs(P *p, uint32_t c, uint32_t sid, uint32_t nid,
	const char *nt, size_t nn, int depth);

/* the operand list; an operand may be a nested instruction
 * "shape opcode(operands)", added before the one using it */
static void
operands(P *p, uint32_t c, uint32_t *nops, int depth)
{
	const char *s, *t, *sh;
	size_t n;
	uint32_t id, sid, base = p->nu32, i;
	int op;

	if (!accept(p, ')')) {
		for (;;) {
			ws(p);
			sh = NULL;
			if (shapeahead(p)) {
				sh = p->p;
				shape(p, 0, 0);
			}
			s = name(p, &n, "an operand name");
			t = skipws(p->p);
			if (sh && *t == '(' && (op = oplookup(p, s, n)) >= 0) {
				if (depth >= MAXDEPTH)
					fail(p, s, "instructions nested deeper "
						"than %d levels", MAXDEPTH);
				p->p = sh;
				sid = cshape(p);
				ws(p);
				i = rhs(p, c, sid, HLO_NONE, NULL, 0, depth + 1);
				id = hlo_ins(p->m, c, i)->name;
				pushu32(p, id, s);
				p->u32[p->nu32 - 1] = HLO_NONE - 1 - i;
			} else {
				ref(p, c, s, n, p->tok);
			}
			if (!accept(p, ','))
				break;
		}
		expect(p, ')', "after the operands");
	}
	*nops = p->nu32 - base;
}

/* u32[base ..] holds instructions i as HLO_NONE - 1 - i, or the string
 * ids of names not defined yet; writes them to the ids pool at off,
 * queueing fixups for the latter */
static void
resolve(P *p, uint32_t c, uint32_t base, uint32_t n, uint32_t off)
{
	uint32_t k;

	for (k = 0; k < n; k++) {
		if (p->u32[base + k] >= HLO_NONE - 1 - p->m->comps[c].nins) {
			p->m->ids[off + k] = HLO_NONE - 1 - p->u32[base + k];
			continue;	/* a nested instruction */
		}
		NEED(p, fix, nfix, capfix, 1);
		p->fix[p->nfix].at = off + k;
		p->fix[p->nfix].name = p->u32[base + k];
		p->fix[p->nfix++].pos = p->upos[base + k];
		p->m->ids[off + k] = HLO_NONE;
	}
}

static void
sortcalls(Call *c, uint32_t n)
{
	uint32_t i, j;
	Call t;

	for (i = 1; i < n; i++) {
		t = c[i];
		for (j = i; j > 0 && c[j - 1].rank > t.rank; j--)
			c[j] = c[j - 1];
		c[j] = t;
	}
}

/* the operand count: the opcode's arity, plus a sparse dot's metadata */
static void
arity(P *p, const char *os, int op, uint32_t nops)
{
	HloError e;

	if (hlo_post_arity(p->m, op, p->at, p->nat, nops, &e))
		fail(p, os, "%s", e.msg);
}

/* an instruction after its "name =" and shape; nid HLO_NONE for a
 * nested one, named after its opcode; returns its index */
/* the inside of an instruction's parentheses: a parameter number, a
 * constant's literal or the operands (onto p->u32, their count in *nops);
 * returns the parameter number, else 0 */
static int64_t
rhsargs(P *p, uint32_t c, uint32_t sid, int op, uint32_t *nops, int depth)
{
	const char *s;
	int64_t num = 0;

	p->nat = 0;
	if (op == HOP_PARAMETER) {
		ws(p);
		s = p->p;
		num = geti64(p, "a parameter number");
		if (num < 0 || num > INT32_MAX)
			fail(p, s, "bad parameter number %lld", (long long)num);
		if (mapget(&p->params, num) != HLO_NONE)
			fail(p, s, "duplicate parameter number %lld",
				(long long)num);
		mapput(&p->params, num, 1);
		expect(p, ')', "after the parameter number");
	} else if (op == HOP_CONSTANT) {
		HloAttr a;

		p->nb = 0;
		p->elided = 0;
		literal(p, sid, 0);
		expect(p, ')', "after the literal");
		if (p->elided) {
			memset(&a, 0, sizeof a);
			a.key = A_LITERAL;
			a.kind = K_LITERAL;
			a.v = HLO_ELIDED;
		} else {
			a = mkbytes(p, A_LITERAL, K_LITERAL, p->b, p->nb);
		}
		NEED(p, at, nat, capat, 1);
		p->at[p->nat++] = a;
	} else {
		operands(p, c, nops, depth);
		p->nat = 0;
	}
	return num;
}

/* the called computations of instruction i, resolved by name once every
 * computation is known */
static void
setcalls(P *p, uint32_t c, uint32_t i)
{
	HloModule *m = p->m;
	uint32_t off, k;

	sortcalls(p->call, p->ncall);
	hlo_set_called(m, c, i, p->ncall, NULL);
	off = hlo_ins(m, c, i)->called;
	NEED(p, cfix, ncfix, capcfix, p->ncall);
	for (k = 0; k < p->ncall; k++) {
		m->ids[off + k] = HLO_NONE;
		p->cfix[p->ncfix].at = off + k;
		p->cfix[p->ncfix].name = p->call[k].name;
		p->cfix[p->ncfix++].pos = p->call[k].pos;
	}
}

static uint32_t
rhs(P *p, uint32_t c, uint32_t sid, uint32_t nid, const char *nt, size_t nn,
	int depth)
{
	HloModule *m = p->m;
	const char *os, *at;
	size_t on;
	uint32_t nops = 0, i, ops0 = p->nu32;
	int op;
	int64_t num = 0;
	Extra x;
	HloInstr *in;
	int reused, wrapped = -1;

	memset(&x, 0, sizeof x);
	ws(p);
	os = p->p;
	at = nid != HLO_NONE && nt > p->s && nt < os ? nt - (nt[-1] == '%') :
		os;		/* where the instruction's name starts */
	on = identlen(os);
	op = on ? oplookup(p, os, on) : -1;
	if (op < 0 && on)
		op = hlo_post_async_op(os, on, &wrapped);
	if (op < 0) {
		char buf[40];

		if (on)
			fail(p, os, "unknown opcode '%.*s'", (int)on, os);
		fail(p, os, "expected an opcode, got %s", found(os, buf,
			sizeof buf));
	}
	p->p = os + on;
	if (sid == HLO_NONE && !hlo_post_can_infer(op))
		fail(p, os, "%.*s needs its result shape written", (int)on, os);
	expect(p, '(', "after the opcode");
	num = rhsargs(p, c, sid, op, &nops, depth);
	p->ncall = 0;
	if (nid != HLO_NONE)
		while (accept(p, ','))
			attribute(p, c, wrapped >= 0 ? wrapped : op, &x);
	arity(p, os, op, nops);

	/* the instruction */
	poolroom(p, nops + x.nctrl + p->ncall + p->nat + 16);
	if (nid == HLO_NONE) {
		poolroom(p, 64);
		nid = hlo_fresh_name(m, hlo_opinfo[op].name);
		nt = hlo_cstr(m, nid);
		nn = strlen(nt);
	}
	reused = ndefine(p, nid, nt, nn, c, m->comps[c].nins);
	if (reused < 0)
		fail(p, nt[-1] == '%' ? nt - 1 : nt,
			"duplicate instruction name '%.*s'", (int)nn, nt);
	i = hlo_instr_add(m, c, op, sid, nid, nops, NULL);
	in = hlo_ins(m, c, i);
	resolve(p, c, ops0, nops, in->ops);
	in->num = num;
	in->src = hlo_post_srcpos(&p->lines, p->s, at);
	if (p->nat)
		hlo_set_attrs(m, c, i, p->nat, p->at);
	if (x.nctrl) {
		hlo_set_ctrl(m, c, i, x.nctrl, NULL);
		resolve(p, c, x.ctrl0, x.nctrl, hlo_ins(m, c, i)->ctrl);
	}
	if (p->ncall)
		setcalls(p, c, i);
	if (sid == HLO_NONE || (wrapped >= 0 && op == HOP_ASYNCSTART)) {
		NEED(p, post, npost, cappost, 1);
		p->post[p->npost].c = c;
		p->post[p->npost].i = i;
		p->post[p->npost].pos = os - p->s;
		p->post[p->npost++].wrapped = op == HOP_ASYNCSTART ? wrapped :
			-1;
	}
	in = hlo_ins(m, c, i);
	if (x.ccflag)
		in->flags |= HI_CCFLAG;
	if (x.branches == 2 && op == HOP_CONDITIONAL)
		in->flags |= HI_BRANCHES;
	/* names are unique in the module: a name reused in another
	 * computation gets a fresh one, as xla's parser does */
	if (reused) {
		poolroom(p, strlen(hlo_cstr(m, nid)) + 32);
		nid = hlo_fresh_name(m, hlo_cstr(m, nid));
		hlo_ins(m, c, i)->name = nid;
		nt = hlo_cstr(m, nid);
		ndefine(p, nid, nt, strlen(nt), HLO_NONE, 0);	/* taken */
	}
	p->nu32 = ops0;
	p->nat = 0;
	p->ncall = 0;
	return i;
}

/* no result shape written: an opcode and its '(' come next */
static int
shapeless(P *p)
{
	size_t n;

	ws(p);
	if (shapeahead(p))
		return 0;
	n = identlen(p->p);
	return n && *skipws(p->p + n) == '(';
}

static void
instruction(P *p, uint32_t c, int *isroot)
{
	const char *ns;
	size_t nn;
	uint32_t sid, nid;

	*isroot = keyword(p, "ROOT");
	ns = name(p, &nn, "an instruction name");
	nid = str(p, ns, nn);
	expect(p, '=', "after the instruction name");
	sid = shapeless(p) ? HLO_NONE : cshape(p);
	rhs(p, c, sid, nid, ns, nn, 0);
}

static void
signature(P *p)
{
	size_t n;

	if (!accept(p, ')')) {
		do {
			name(p, &n, "a parameter name");
			expect(p, ':', "after the parameter name");
			shape(p, 0, 0);
		} while (accept(p, ','));
		expect(p, ')', "after the parameters");
	}
	ws(p);
	if (p->p[0] != '-' || p->p[1] != '>')
		fail(p, p->p, "expected '->' after the parameters");
	p->p += 2;
	shape(p, 0, 0);
}

static void
computation(P *p, uint32_t *entry)
{
	HloModule *m = p->m;
	const char *cs, *ns, *root = NULL, *s;
	size_t nn;
	uint32_t c, cid, k, v;
	int isentry, isroot;

	ws(p);
	cs = p->p;
	isentry = keyword(p, "ENTRY");
	ns = name(p, &nn, "a computation name");
	cid = str(p, ns, nn);
	if (mapget(&p->comps, cid) != HLO_NONE)
		fail(p, cs, "duplicate computation name '%.*s'", (int)nn, ns);
	if (isentry && *entry != HLO_NONE)
		fail(p, cs, "second ENTRY computation");
	c = hlo_comp_add(m, cid);
	mapput(&p->comps, cid, c);
	if (isentry)
		*entry = c;
	if (accept(p, '('))
		signature(p);
	expect(p, '{', "to start the computation");
	mapclear(&p->params);
	m->comps[c].ins = xreallocarray(NULL, 8, sizeof(HloInstr));
	m->comps[c].cap = 8;
	p->nfix = 0;
	for (;;) {
		ws(p);
		if (*p->p == '}')
			break;
		if (!*p->p)
			fail(p, p->p, "computation '%.*s' has no closing '}'",
				(int)nn, ns);
		s = p->p;
		instruction(p, c, &isroot);
		if (isroot) {
			if (root)
				fail(p, s, "second ROOT in computation "
					"'%.*s'", (int)nn, ns);
			root = s;
			m->comps[c].root = m->comps[c].nins - 1;
		}
	}
	p->p++;
	if (!m->comps[c].nins)
		fail(p, cs, "computation '%.*s' has no instructions", (int)nn,
			ns);
	if (!root)
		m->comps[c].root = m->comps[c].nins - 1;
	for (k = 0; k < p->nfix; k++) {
		v = nget(p, hlo_cstr(m, p->fix[k].name),
			strlen(hlo_cstr(m, p->fix[k].name)), c);
		if (v == HLO_NONE)
			fail(p, p->s + p->fix[k].pos, "undefined instruction "
				"'%s'", hlo_cstr(m, p->fix[k].name));
		m->ids[p->fix[k].at] = v;
	}
	s = skipws(p->p);
	if (*s == ',') {
		p->p = skipws(s + 1);
		if (!keyword(p, "execution_thread"))
			fail(p, p->p, "expected execution_thread after ','");
		expect(p, '=', "after execution_thread");
		ws(p);
		s = p->p;
		if (*s != '"')
			fail(p, s, "expected a string");
		p->p = strend(p, s);
		p->nb = 0;
		unescape(p, s + 1, p->p - 1);
		m->comps[c].thread = str(p, p->b, p->nb);
	}
}

/* FileNames, FunctionNames, FileLocations, StackFrames: kept verbatim */
static int
table(P *p)
{
	static const char *const kw[] = {
		"FileNames", "FunctionNames", "FileLocations", "StackFrames",
	};
	const char *s = p->p, *e;
	unsigned k;

	for (k = 0; k < 4; k++)
		if (keyword(p, kw[k]))
			break;
	if (k == 4)
		return 0;
	for (;;) {
		e = p->p;
		ws(p);
		if (!isdig((unsigned char)*p->p))
			break;
		geti64(p, "an index");
		ws(p);
		if (*p->p == '"' || *p->p == '\'')
			p->p = strend(p, p->p);
		else if (*p->p == '{')
			p->p = rawend(p, p->p);
		else
			fail(p, p->p, "expected a string or {...} in %s",
				kw[k]);
	}
	p->p = e;
	NEED(p, fr, nfr, capfr, (uint64_t)(e - s) + 1);
	if (p->nfr)
		p->fr[p->nfr++] = '\n';
	memcpy(p->fr + p->nfr, s, e - s);
	p->nfr += e - s;
	return 1;
}

static void
header(P *p)
{
	HloModule *m = p->m;
	const char *s, *ks, *e;
	size_t n;
	HloAttr a;

	s = name(p, &n, "a module name");
	m->name = str(p, s, n);
	if (*p->p == ':')
		p->p++;		/* old dumps: "HloModule name:" */
	while (accept(p, ',')) {
		ws(p);
		ks = p->p;
		n = identlen(ks);
		if (!n || ks[n] != '=')
			fail(p, ks, "expected a module attribute");
		p->p = ks + n + 1;
		ws(p);
		e = rawend(p, p->p);
		a = mkbytes(p, A_OTHER, K_RAW, p->p, e - p->p);
		a.name = str(p, ks, n);
		p->p = e;
		NEED(p, hat, nhat, caphat, 1);
		p->hat[p->nhat++] = a;
	}
}

/* the shapes left out, then the async forms' computations */
static void
postwork(P *p)
{
	HloError why;
	uint32_t bad;

	if (p->npost && (hlo_post_infer(p->m, p->post, p->npost, &bad, &why) ||
	    hlo_post_wrap(p->m, p->post, p->npost, &bad, &why)))
		fail(p, p->s + p->post[bad].pos, "%s", why.msg);
}

static void
finish(P *p, uint32_t entry)
{
	HloModule *m = p->m;
	uint32_t k, c, i, j, v;

	for (k = 0; k < p->ncfix; k++) {
		v = mapget(&p->comps, p->cfix[k].name);
		if (v == HLO_NONE)
			fail(p, p->s + p->cfix[k].pos, "undefined computation "
				"'%s'", hlo_cstr(m, p->cfix[k].name));
		m->ids[p->cfix[k].at] = v;
	}
	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++) {
			HloInstr *in = &m->comps[c].ins[i];

			if (in->op != HOP_FUSION)
				continue;
			for (j = 0; j < in->ncalled; j++)
				m->comps[m->ids[in->called + j]].flags |=
					HC_FUSION;
		}
	m->entry = entry != HLO_NONE ? entry : m->ncomps - 1;
	postwork(p);
	if (p->nhat) {
		m->hattrs = hlo_push_attrs(m, p->hat, p->nhat);
		m->nhattrs = p->nhat;
	}
	if (p->nfr)
		m->frames = str(p, p->fr, p->nfr);
	if (!m->name)
		m->name = str(p, "_", 1);
}

static void
module(P *p)
{
	uint32_t entry = HLO_NONE;

	ws(p);
	if (keyword(p, "HloModule"))
		header(p);
	for (;;) {
		ws(p);
		if (!*p->p)
			break;
		if (table(p))
			continue;
		computation(p, &entry);
	}
	if (!p->m->ncomps)
		fail(p, p->p, "no computation in the input");
	finish(p, entry);
}

static void
freeparser(P *p)
{
	free((void *)p->s);
	free(p->names.v);
	free(p->params.v);
	free(p->comps.v);
	free(p->fix);
	free(p->cfix);
	free(p->call);
	free(p->u32);
	free(p->upos);
	free(p->i64);
	free(p->b);
	free(p->fr);
	free(p->at);
	free(p->hat);
	free(p->sc);
	free(p->post);
	free(p);
}

int
hlo_parse_text(const char *src, size_t n, const char *fname,
	HloModule **out, HloError *e)
{
	P *p = xcalloc(1, sizeof *p);
	char *buf;
	const char *z;

	*out = NULL;
	p->fname = fname ? fname : "<input>";
	p->e = e;
	buf = xmalloc(n + 1);
	memcpy(buf, src, n);
	buf[n] = 0;
	p->s = p->p = buf;
	p->m = hlo_module_new();
	if (setjmp(p->jb)) {
		hlo_module_free(p->m);
		freeparser(p);
		return -1;
	}
	if (n >= POOLMAX / 2)
		fail(p, p->s, "input too large");
	if ((z = memchr(src, 0, n)))
		fail(p, p->s + (z - src), "NUL byte in the input");
	buildtabs(p);
	module(p);
	*out = p->m;
	freeparser(p);
	return 0;
}
