/* proto.c: binary xla.HloModuleProto <-> the IR.
 *
 * Reading unpacks the bytes with protobuf-c (after a schema-aware walk of
 * the wire format that finds the byte offset of the first bad field and
 * bounds the nesting depth), converts, and frees the unpacked message at
 * once: protobuf types never leave this file. xla.HloProto and
 * xla.HloSnapshot wrappers are recognised from the content.
 *
 * Writing builds the messages in an arena and packs them. Attributes the
 * IR keeps as text (sharding, metadata, replica groups, ...) are parsed
 * into their proto fields and printed back the way XLA prints them.
 *
 * Round trips are exact: after building an instruction the writer runs
 * the reader's conversion on it and compares; whatever does not come back
 * identical (non-canonical text, attributes XLA's schema has no field
 * for, module header options of HloModuleConfig, print order) is stored
 * in a private extension field (number EXT below) that XLA keeps as an
 * unknown field and ignores. Protos from XLA carry no such field and are
 * read as XLA would print them.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "hlo.pb-c.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "proto.c assumes a little-endian host"
#endif

enum {
	EXT = 424242,		/* private extension field number */
	MAXDEPTH = 100,		/* message nesting accepted */
	MAXRANK = 4096,
};

/* arena: the writer's messages live here until they are packed */

typedef struct Chunk Chunk;
struct Chunk {
	Chunk *next;
	size_t used, cap;
	max_align_t data[];
};

typedef struct {
	Chunk *head;
} Arena;

static void *
aalloc(Arena *a, size_t n)
{
	Chunk *c = a->head;
	size_t al = sizeof(max_align_t), cap;
	void *p;

	n = (n + al - 1) / al * al;
	if (!c || c->cap - c->used < n) {
		cap = n > 65536 ? n : 65536;
		c = xmalloc(sizeof *c + cap);
		c->used = 0;
		c->cap = cap;
		c->next = a->head;
		a->head = c;
	}
	p = (char *)c->data + c->used;
	c->used += n;
	return p;
}

static void *
aallocn(Arena *a, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / 2 / size) {
		fputs("hlopt: error: out of memory\n", stderr);
		exit(1);
	}
	return aalloc(a, n * size);
}

static void *
azalloc(Arena *a, size_t n, size_t size)
{
	void *p = aallocn(a, n, size);

	memset(p, 0, n * size);
	return p;
}

static char *
astrndup(Arena *a, const char *s, size_t n)
{
	char *p = aalloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

static void
afree(Arena *a)
{
	Chunk *c, *n;

	for (c = a->head; c; c = n) {
		n = c->next;
		free(c);
	}
	a->head = NULL;
}

/* growable int64 vector */

typedef struct {
	int64_t *v;
	size_t n, cap;
} Vec;

static void
vpush(Vec *v, int64_t x)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 16;
		v->v = xreallocarray(v->v, v->cap, sizeof *v->v);
	}
	v->v[v->n++] = x;
}

static int64_t *
adupvec(Arena *a, const int64_t *v, size_t n)
{
	int64_t *p = aallocn(a, n ? n : 1, sizeof *p);

	if (n)
		memcpy(p, v, n * sizeof *p);
	return p;
}

/* C escapes as absl::CEscape writes them and as the HLO lexer reads them */

static void
cescape(HloBuf *b, const char *s, size_t n)
{
	char t[8];
	size_t i;
	unsigned char c;

	for (i = 0; i < n; i++) {
		c = s[i];
		switch (c) {
		case '\n': hlo_buf_put(b, "\\n", 2); break;
		case '\r': hlo_buf_put(b, "\\r", 2); break;
		case '\t': hlo_buf_put(b, "\\t", 2); break;
		case '"': hlo_buf_put(b, "\\\"", 2); break;
		case '\'': hlo_buf_put(b, "\\'", 2); break;
		case '\\': hlo_buf_put(b, "\\\\", 2); break;
		default:
			if (c < 0x20 || c >= 0x7f) {
				snprintf(t, sizeof t, "\\%03o", c);
				hlo_buf_put(b, t, 4);
			} else {
				hlo_buf_put(b, (const char *)&c, 1);
			}
		}
	}
}

static void
putq(HloBuf *b, const char *s, size_t n)
{
	hlo_buf_put(b, "\"", 1);
	cescape(b, s, n);
	hlo_buf_put(b, "\"", 1);
}

static void
putints(HloBuf *b, const int64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		hlo_buf_printf(b, i ? ",%" PRId64 : "%" PRId64, v[i]);
}

/* a small lexer over the text forms of attributes */

typedef struct {
	const char *p, *e;
} Lx;

static void
lxws(Lx *l)
{
	for (;;) {
		while (l->p < l->e && (*l->p == ' ' || *l->p == '\t' ||
		    *l->p == '\n' || *l->p == '\r'))
			l->p++;
		if (l->e - l->p >= 2 && l->p[0] == '/' && l->p[1] == '*') {
			const char *q = l->p + 2;

			while (q + 1 < l->e && !(q[0] == '*' && q[1] == '/'))
				q++;
			if (q + 1 >= l->e)
				return;
			l->p = q + 2;
			continue;
		}
		return;
	}
}

static int
lxc(Lx *l, int c)
{
	lxws(l);
	if (l->p < l->e && *l->p == c) {
		l->p++;
		return 1;
	}
	return 0;
}

static int
lxpeek(Lx *l, int c)
{
	lxws(l);
	return l->p < l->e && *l->p == c;
}

static int
lxend(Lx *l)
{
	lxws(l);
	return l->p == l->e;
}

static int
iswordc(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		(c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-' ||
		c == '$';
}

/* a word: [A-Za-z0-9_.$-]+ */
static int
lxword(Lx *l, const char **s, size_t *n)
{
	const char *q;

	lxws(l);
	q = l->p;
	while (q < l->e && iswordc((unsigned char)*q))
		q++;
	if (q == l->p)
		return 0;
	*s = l->p;
	*n = q - l->p;
	l->p = q;
	return 1;
}

/* the keyword kw, not followed by more word characters */
static int
lxkw(Lx *l, const char *kw)
{
	size_t n = strlen(kw);

	lxws(l);
	if ((size_t)(l->e - l->p) < n || memcmp(l->p, kw, n))
		return 0;
	if (l->p + n < l->e && iswordc((unsigned char)l->p[n]) &&
	    iswordc((unsigned char)kw[n - 1]))
		return 0;
	l->p += n;
	return 1;
}

static int
lxint(Lx *l, int64_t *v)
{
	const char *q;
	uint64_t x = 0, lim;
	int neg = 0;

	lxws(l);
	q = l->p;
	if (q < l->e && (*q == '-' || *q == '+'))
		neg = *q++ == '-';
	if (q == l->e || *q < '0' || *q > '9')
		return 0;
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	while (q < l->e && *q >= '0' && *q <= '9') {
		if (x > (lim - (*q - '0')) / 10)
			return 0;
		x = x * 10 + (*q++ - '0');
	}
	if (q < l->e && iswordc((unsigned char)*q) && *q != '-')
		return 0;
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	l->p = q;
	return 1;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* a quoted string, unescaped into b (appended) */
static int
lxstr(Lx *l, HloBuf *b)
{
	const char *q;
	char c;
	int k, v;

	if (!lxc(l, '"'))
		return 0;
	q = l->p;
	while (q < l->e && *q != '"') {
		if (*q != '\\') {
			hlo_buf_put(b, q++, 1);
			continue;
		}
		if (++q == l->e)
			return 0;
		switch (c = *q++) {
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		case 'a': c = '\a'; break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'v': c = '\v'; break;
		case 'x':
			for (v = 0, k = 0; k < 2 && q < l->e &&
			    hexval((unsigned char)*q) >= 0; k++)
				v = v * 16 + hexval((unsigned char)*q++);
			if (!k)
				return 0;
			c = (char)v;
			break;
		default:
			if (c >= '0' && c <= '7') {
				v = c - '0';
				for (k = 1; k < 3 && q < l->e && *q >= '0' &&
				    *q <= '7'; k++)
					v = v * 8 + (*q++ - '0');
				c = (char)v;
			}
			break;
		}
		hlo_buf_put(b, &c, 1);
	}
	if (q == l->e)
		return 0;
	l->p = q + 1;
	return 1;
}

/* {a,b,c} into v (appended) */
static int
lxints(Lx *l, Vec *v)
{
	int64_t x;

	if (!lxc(l, '{'))
		return 0;
	if (lxc(l, '}'))
		return 1;
	do {
		if (!lxint(l, &x))
			return 0;
		vpush(v, x);
	} while (lxc(l, ','));
	return lxc(l, '}');
}

/* skips a balanced {...}, (...) or [...] group or a quoted string */
static int
lxskip(Lx *l)
{
	int depth = 0;
	char c;

	lxws(l);
	do {
		if (l->p == l->e)
			return 0;
		c = *l->p;
		if (c == '"') {
			HloBuf t = {0};
			int ok = lxstr(l, &t);

			hlo_buf_free(&t);
			if (!ok)
				return 0;
			continue;
		}
		l->p++;
		if (c == '{' || c == '(' || c == '[')
			depth++;
		else if (c == '}' || c == ')' || c == ']')
			depth--;
	} while (depth > 0);
	return depth == 0;
}

/* wire format helpers */

static void
putvarint(HloBuf *b, uint64_t v)
{
	char t[10];
	int n = 0;

	do {
		t[n] = v & 0x7f;
		v >>= 7;
		if (v)
			t[n] |= 0x80;
		n++;
	} while (v);
	hlo_buf_put(b, t, n);
}

static void
puttag(HloBuf *b, uint32_t field, int wt)
{
	putvarint(b, (uint64_t)field << 3 | wt);
}

static void
putlenfield(HloBuf *b, uint32_t field, const void *p, size_t n)
{
	puttag(b, field, 2);
	putvarint(b, n);
	hlo_buf_put(b, p, n);
}

/* reads a varint; 0 when truncated or longer than 10 bytes */
static size_t
getvarint(const uint8_t *p, const uint8_t *e, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	for (i = 0; i < 10 && p + i < e; i++) {
		x |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*v = x;
			return i + 1;
		}
	}
	return 0;
}

/* one field of a wire-format buffer */
typedef struct {
	uint32_t num;
	int wt;
	uint64_t v;		/* varint and fixed values */
	const uint8_t *p;	/* length-delimited payload */
	size_t n;
} WField;

/* the next field at *pp; 1 ok, 0 at the end, -1 malformed */
static int
nextfield(const uint8_t **pp, const uint8_t *e, WField *f)
{
	const uint8_t *p = *pp;
	uint64_t tag, len;
	size_t k;

	if (p >= e)
		return 0;
	if (!(k = getvarint(p, e, &tag)) || (tag >> 3) == 0 ||
	    (tag >> 3) > 0x1fffffff)
		return -1;
	p += k;
	f->num = tag >> 3;
	f->wt = tag & 7;
	f->p = NULL;
	f->n = 0;
	switch (f->wt) {
	case 0:
		if (!(k = getvarint(p, e, &f->v)))
			return -1;
		p += k;
		break;
	case 1:
		if (e - p < 8)
			return -1;
		memcpy(&f->v, p, 8);
		p += 8;
		break;
	case 5:
		if (e - p < 4)
			return -1;
		f->v = 0;
		memcpy(&f->v, p, 4);
		p += 4;
		break;
	case 2:
		if (!(k = getvarint(p, e, &len)) || len > (uint64_t)(e - p - k))
			return -1;
		p += k;
		f->p = p;
		f->n = len;
		p += len;
		break;
	default:
		return -1;
	}
	*pp = p;
	return 1;
}

/* schema-aware walk of the wire format: finds what protobuf-c would
 * reject and where, and bounds the nesting depth before protobuf-c's
 * recursive unpacking runs */

typedef struct {
	const uint8_t *base;
	size_t off;
	char why[160];
} Walk;

static int
isvarinttype(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_BOOL:
	case PROTOBUF_C_TYPE_ENUM:
		return 1;
	default:
		return 0;
	}
}

static int
fixedsize(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_FLOAT:
		return 4;
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		return 8;
	default:
		return 0;
	}
}

/* the field's wire type is one protobuf-c accepts for it */
static int
wiretypeok(const ProtobufCFieldDescriptor *fd, const WField *f)
{
	int rep = fd->label == PROTOBUF_C_LABEL_REPEATED, fs;
	const uint8_t *p, *e;
	uint64_t v;
	size_t k;

	if (fd->type == PROTOBUF_C_TYPE_MESSAGE ||
	    fd->type == PROTOBUF_C_TYPE_STRING ||
	    fd->type == PROTOBUF_C_TYPE_BYTES)
		return f->wt == 2;
	if (isvarinttype(fd->type)) {
		if (f->wt == 0)
			return 1;
		if (!rep || f->wt != 2)
			return 0;
		for (p = f->p, e = p + f->n; p < e; p += k)
			if (!(k = getvarint(p, e, &v)))
				return 0;
		return 1;
	}
	fs = fixedsize(fd->type);
	if ((fs == 4 && f->wt == 5) || (fs == 8 && f->wt == 1))
		return 1;
	return rep && fs && f->wt == 2 && f->n % fs == 0;
}

static int
walkmsg(Walk *w, const ProtobufCMessageDescriptor *d, const uint8_t *p,
	const uint8_t *e, int depth)
{
	const ProtobufCFieldDescriptor *fd;
	const uint8_t *at;
	WField f;
	int r;

	if (depth > MAXDEPTH) {
		w->off = p - w->base;
		snprintf(w->why, sizeof w->why, "messages nested deeper "
			"than %d", MAXDEPTH);
		return -1;
	}
	for (;;) {
		at = p;
		if ((r = nextfield(&p, e, &f)) == 0)
			return 0;
		if (r < 0) {
			w->off = at - w->base;
			snprintf(w->why, sizeof w->why, "bad field in %s "
				"(truncated or not protobuf)", d->short_name);
			return -1;
		}
		if (!(fd = protobuf_c_message_descriptor_get_field(d, f.num)))
			continue;
		if (!wiretypeok(fd, &f)) {
			w->off = at - w->base;
			snprintf(w->why, sizeof w->why, "field %s.%s has wire "
				"type %d", d->short_name, fd->name, f.wt);
			return -1;
		}
		if (fd->type == PROTOBUF_C_TYPE_MESSAGE &&
		    walkmsg(w, fd->descriptor, f.p, f.p + f.n, depth + 1) < 0)
			return -1;
	}
}

/* a well-formed HloModuleProto with computations and a plain name */
static int
ismodule(const uint8_t *p, const uint8_t *e)
{
	Walk w = {p, 0, ""};
	const uint8_t *q = p;
	WField f;
	size_t i;
	int comps = 0;

	if (walkmsg(&w, &xla__hlo_module_proto__descriptor, p, e, 0) < 0)
		return 0;
	while (nextfield(&q, e, &f) > 0) {
		if (f.num == 1 && f.wt == 2)
			for (i = 0; i < f.n; i++)
				if (f.p[i] < 0x20)
					return 0;
		if (f.num == 3 && f.wt == 2)
			comps = 1;
	}
	return comps;
}

/* the module inside HloProto (hlo_module = 1), HloSnapshot (hlo = 1,
 * an HloProto) or HloUnoptimizedSnapshot (hlo_module = 1); the input
 * itself when it is not such a wrapper */
static void
unwrap(const uint8_t **pp, const uint8_t **pe)
{
	const uint8_t *p = *pp, *e = *pe, *q;
	WField f;
	int depth, r;

	for (depth = 0; depth < 3; depth++) {
		if (ismodule(p, e))
			break;
		q = p;
		while ((r = nextfield(&q, e, &f)) > 0 && f.num != 1)
			;
		if (r <= 0 || f.wt != 2 || !f.n)
			return;
		p = f.p;
		e = f.p + f.n;
	}
	if (depth < 3) {
		*pp = p;
		*pe = e;
	}
}

/* element types */

static int
typeofproto(int num)
{
	int t;

	for (t = 0; t < TY_COUNT; t++)
		if (hlo_typeinfo[t].proto == num)
			return t;
	return -1;
}

static int
isintegral(int t)
{
	return hlo_typeinfo[t].cls == C_SINT || hlo_typeinfo[t].cls == C_UINT;
}

/* shapes as XLA's ShapeUtil::HumanStringWithLayout prints them */
static void
prshape(const HloModule *m, uint32_t s, HloBuf *b)
{
	const HloShape *sh = hlo_sh(m, s);
	uint32_t i;

	if (sh->type == TY_TUPLE) {
		hlo_buf_put(b, "(", 1);
		for (i = 0; i < sh->ntuple; i++) {
			if (i)
				hlo_buf_put(b, ", ", 2);
			prshape(m, m->ids[sh->tuple + i], b);
		}
		hlo_buf_put(b, ")", 1);
		return;
	}
	hlo_buf_puts(b, hlo_typeinfo[sh->type].name);
	hlo_buf_put(b, "[", 1);
	for (i = 0; i < sh->rank; i++) {
		if (i)
			hlo_buf_put(b, ",", 1);
		if (i < 64 && (sh->dynmask >> i & 1))
			hlo_buf_put(b, "<=", 2);
		hlo_buf_printf(b, "%" PRId64, m->ints[sh->dims + i]);
	}
	hlo_buf_put(b, "]", 1);
	if (!(sh->flags & SH_LAYOUT) || (!sh->rank && !sh->tail))
		return;
	hlo_buf_put(b, "{", 1);
	putints(b, m->ints + sh->dims + sh->rank, sh->rank);
	if (sh->tail) {
		hlo_buf_put(b, ":", 1);
		hlo_buf_puts(b, hlo_cstr(m, sh->tail));
	}
	hlo_buf_put(b, "}", 1);
}

/* a shape in text form, interned in m */
static int
psshape(Lx *l, HloModule *m, uint32_t *out, int depth)
{
	const char *w, *t0;
	size_t n;
	int ty, dyn;
	int64_t d;
	Vec dims = {0}, m2m = {0};
	uint64_t dynmask = 0;
	uint32_t tail = 0, *el = NULL, nel = 0, cap = 0, s;
	int ok = 0, layout = 0, lvl;
	int64_t zero = 0;

	if (depth > MAXDEPTH)
		return 0;
	if (lxc(l, '(')) {
		if (!lxc(l, ')')) {
			do {
				if (!psshape(l, m, &s, depth + 1))
					goto out;
				if (nel == cap) {
					cap = cap ? cap * 2 : 8;
					el = xreallocarray(el, cap, sizeof *el);
				}
				el[nel++] = s;
			} while (lxc(l, ','));
			if (!lxc(l, ')'))
				goto out;
		}
		*out = hlo_shape_tuple(m, nel, el);
		ok = 1;
		goto out;
	}
	if (!lxword(l, &w, &n) || (ty = hlo_type_by_name(w, n)) < 0 ||
	    ty == TY_TUPLE || !lxc(l, '['))
		goto out;
	if (!lxc(l, ']')) {
		do {
			dyn = 0;
			if (lxc(l, '<')) {
				if (!lxc(l, '='))
					goto out;
				dyn = 1;
			}
			if (!lxint(l, &d))
				goto out;
			if (dyn) {
				if (dims.n >= 64)
					goto out;
				dynmask |= (uint64_t)1 << dims.n;
			}
			vpush(&dims, d);
		} while (lxc(l, ','));
		if (!lxc(l, ']') || dims.n > MAXRANK)
			goto out;
	}
	if (lxpeek(l, '{')) {
		l->p++;
		layout = 1;
		if (!lxpeek(l, ':') && !lxpeek(l, '}')) {
			do {
				if (!lxint(l, &d))
					goto out;
				vpush(&m2m, d);
			} while (lxc(l, ','));
		}
		if (lxc(l, ':')) {
			t0 = l->p;
			for (lvl = 0; l->p < l->e; l->p++) {
				if (*l->p == '(' || *l->p == '{')
					lvl++;
				else if (*l->p == ')' || (*l->p == '}' && lvl))
					lvl--;
				else if (*l->p == '}')
					break;
			}
			if (l->p == t0)
				goto out;
			tail = hlo_str(m, t0, l->p - t0);
		}
		if (!lxc(l, '}') || (m2m.n != dims.n))
			goto out;
	}
	*out = hlo_shape(m, ty, (int)dims.n, dims.v,
		layout ? (m2m.v ? m2m.v : &zero) : NULL, dynmask, tail);
	ok = 1;
out:
	free(dims.v);
	free(m2m.v);
	free(el);
	return ok;
}

/* the layout tail after ':' ("T(8,128)(2,1)S(1)") from a LayoutProto, in
 * the order of XLA's Layout::Print */

static int rdshape(HloModule *m, const Xla__ShapeProto *sp, uint32_t *out,
	int depth, char *why, size_t nwhy);

static const char dltabbrev[] = "DCSH";

/* the private extension of a LayoutProto: 1 = verbatim tail text, 2 =
 * explicit layout on a scalar */
static void
layoutext(const Xla__LayoutProto *L, const uint8_t **raw, size_t *nraw,
	int *explicit)
{
	const ProtobufCMessageUnknownField *u;
	const uint8_t *p, *e;
	uint64_t len;
	size_t k;
	unsigned i;
	WField f;

	*raw = NULL;
	*nraw = 0;
	*explicit = 0;
	for (i = 0; i < L->base.n_unknown_fields; i++) {
		u = &L->base.unknown_fields[i];
		if (u->tag != EXT || u->wire_type != PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED)
			continue;
		if (!(k = getvarint(u->data, u->data + u->len, &len)) ||
		    len != u->len - k)
			continue;
		p = u->data + k;
		e = p + len;
		while (nextfield(&p, e, &f) > 0) {
			if (f.num == 1 && f.wt == 2) {
				*raw = f.p;
				*nraw = f.n;
			} else if (f.num == 2 && f.wt == 0) {
				*explicit = f.v != 0;
			}
		}
	}
}

static int
prtail(HloModule *m, const Xla__LayoutProto *L, HloBuf *b, int depth,
	char *why, size_t nwhy)
{
	size_t i, j;
	uint32_t ps;
	int t;

	if (L->n_dim_level_types) {
		hlo_buf_put(b, "D(", 2);
		for (i = 0; i < L->n_dim_level_types; i++) {
			if (i)
				hlo_buf_put(b, ",", 1);
			t = L->dim_level_types[i];
			hlo_buf_put(b, t >= 0 && t < 4 ? &dltabbrev[t] : "?", 1);
			if (i < L->n_dim_unique && !L->dim_unique[i])
				hlo_buf_put(b, "+", 1);
			if (i < L->n_dim_ordered && !L->dim_ordered[i])
				hlo_buf_put(b, "~", 1);
		}
		hlo_buf_put(b, ")", 1);
	}
	if (L->n_tiles)
		hlo_buf_put(b, "T", 1);
	for (i = 0; i < L->n_tiles; i++) {
		hlo_buf_put(b, "(", 1);
		for (j = 0; j < L->tiles[i]->n_dimensions; j++) {
			int64_t d = L->tiles[i]->dimensions[j];

			if (j)
				hlo_buf_put(b, ",", 1);
			if (d == INT64_MIN)
				hlo_buf_put(b, "*", 1);
			else
				hlo_buf_printf(b, "%" PRId64, d);
		}
		hlo_buf_put(b, ")", 1);
	}
	if (L->tail_padding_alignment_in_elements != 0 &&
	    L->tail_padding_alignment_in_elements != 1)
		hlo_buf_printf(b, "L(%" PRId64 ")",
			L->tail_padding_alignment_in_elements);
	if (L->index_primitive_type) {
		t = typeofproto(L->index_primitive_type);
		hlo_buf_printf(b, "#(%s)", t >= 0 && isintegral(t) ?
			hlo_typeinfo[t].name : "invalid");
	}
	if (L->pointer_primitive_type) {
		t = typeofproto(L->pointer_primitive_type);
		hlo_buf_printf(b, "*(%s)", t >= 0 && isintegral(t) ?
			hlo_typeinfo[t].name : "invalid");
	}
	if (L->element_size_in_bits)
		hlo_buf_printf(b, "E(%" PRId64 ")", L->element_size_in_bits);
	if (L->memory_space)
		hlo_buf_printf(b, "S(%" PRId64 ")", L->memory_space);
	if (L->n_split_configs)
		hlo_buf_put(b, "SC", 2);
	for (i = 0; i < L->n_split_configs; i++) {
		hlo_buf_printf(b, "(%" PRId64 ":",
			L->split_configs[i]->dimension);
		putints(b, L->split_configs[i]->split_indices,
			L->split_configs[i]->n_split_indices);
		hlo_buf_put(b, ")", 1);
	}
	if (L->physical_shape) {
		if (rdshape(m, L->physical_shape, &ps, depth + 1, why,
		    nwhy) < 0)
			return -1;
		hlo_buf_put(b, "P(", 2);
		prshape(m, ps, b);
		hlo_buf_put(b, ")", 1);
	}
	if (L->dynamic_shape_metadata_prefix_bytes > 0)
		hlo_buf_printf(b, "M(%" PRId64 ")",
			L->dynamic_shape_metadata_prefix_bytes);
	return 0;
}

/* ShapeProto -> shape id in m; why gets the reason of a failure */
static int
rdshape(HloModule *m, const Xla__ShapeProto *sp, uint32_t *out, int depth,
	char *why, size_t nwhy)
{
	const Xla__LayoutProto *L;
	HloBuf tb = {0};
	uint32_t *el, tail = 0;
	const uint8_t *raw;
	size_t i, nraw;
	uint64_t dyn = 0;
	int64_t zero = 0;
	int ty, explicit, r = -1, layout = 0;

	if (!sp) {
		snprintf(why, nwhy, "missing shape");
		return -1;
	}
	if (depth > MAXDEPTH) {
		snprintf(why, nwhy, "shape nested too deep");
		return -1;
	}
	if ((ty = typeofproto(sp->element_type)) < 0 || ty == TY_INVALID) {
		snprintf(why, nwhy, "bad element type %d", sp->element_type);
		return -1;
	}
	if (ty == TY_TUPLE) {
		if (sp->n_tuple_shapes > UINT32_MAX / 8) {
			snprintf(why, nwhy, "tuple too large");
			return -1;
		}
		el = xreallocarray(NULL, sp->n_tuple_shapes + 1, sizeof *el);
		for (i = 0; i < sp->n_tuple_shapes; i++)
			if (rdshape(m, sp->tuple_shapes[i], &el[i], depth + 1,
			    why, nwhy) < 0) {
				free(el);
				return -1;
			}
		*out = hlo_shape_tuple(m, sp->n_tuple_shapes, el);
		free(el);
		return 0;
	}
	if (sp->n_dimensions > MAXRANK) {
		snprintf(why, nwhy, "rank %zu too large", sp->n_dimensions);
		return -1;
	}
	for (i = 0; i < sp->n_is_dynamic_dimension && i < sp->n_dimensions;
	    i++) {
		if (!sp->is_dynamic_dimension[i])
			continue;
		if (i >= 64) {
			snprintf(why, nwhy, "dynamic dimension %zu beyond 63",
				i);
			return -1;
		}
		dyn |= (uint64_t)1 << i;
	}
	if ((L = sp->layout)) {
		if (L->n_minor_to_major && L->n_minor_to_major !=
		    sp->n_dimensions) {
			snprintf(why, nwhy, "layout of %zu dimensions for "
				"rank %zu", L->n_minor_to_major,
				sp->n_dimensions);
			return -1;
		}
		layout = L->n_minor_to_major == sp->n_dimensions;
		layoutext(L, &raw, &nraw, &explicit);
		if (raw) {
			hlo_buf_put(&tb, (const char *)raw, nraw);
		} else if (prtail(m, L, &tb, depth, why, nwhy) < 0) {
			hlo_buf_free(&tb);
			return -1;
		}
		if (tb.len)
			tail = hlo_str(m, tb.buf, tb.len);
		if (!sp->n_dimensions && !tail && !explicit)
			layout = 0;
	}
	*out = hlo_shape(m, ty, (int)sp->n_dimensions, sp->dimensions,
		layout ? (L->minor_to_major ? L->minor_to_major : &zero) :
		NULL, dyn, layout ? tail : 0);
	r = 0;
	hlo_buf_free(&tb);
	return r;
}

/* the writer */

typedef struct {
	const HloModule *m;
	HloModule *s;		/* scratch module: the reader's results */
	Arena a;
	HloError *e;
	Xla__ShapeProto **shcache;	/* by shape id of m */
	HloBuf t;		/* scratch text */
	uint64_t nid;		/* next instruction id */
	uint32_t *compid;	/* computation index -> proto id */
	uint32_t nexts;		/* instructions that needed an extension */
} Wr;

static protobuf_c_boolean *
abools(Arena *a, size_t n)
{
	return azalloc(a, n ? n : 1, sizeof(protobuf_c_boolean));
}

/* the private extension as an unknown field of message msg */
static void
addext(Arena *a, ProtobufCMessage *msg, const HloBuf *x)
{
	ProtobufCMessageUnknownField *u;
	HloBuf pre = {0};
	uint8_t *d;

	putvarint(&pre, x->len);
	d = aalloc(a, pre.len + x->len);
	memcpy(d, pre.buf, pre.len);
	if (x->len)
		memcpy(d + pre.len, x->buf, x->len);
	u = aalloc(a, sizeof *u * (msg->n_unknown_fields + 1));
	if (msg->n_unknown_fields)
		memcpy(u, msg->unknown_fields,
			sizeof *u * msg->n_unknown_fields);
	u[msg->n_unknown_fields].tag = EXT;
	u[msg->n_unknown_fields].wire_type =
		PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;
	u[msg->n_unknown_fields].len = pre.len + x->len;
	u[msg->n_unknown_fields].data = d;
	msg->unknown_fields = u;
	msg->n_unknown_fields++;
	hlo_buf_free(&pre);
}

/* the payload of message msg's private extension, if any */
static int
getext(const ProtobufCMessage *msg, const uint8_t **p, size_t *n)
{
	const ProtobufCMessageUnknownField *u;
	uint64_t len;
	unsigned i;
	size_t k;

	for (i = 0; i < msg->n_unknown_fields; i++) {
		u = &msg->unknown_fields[i];
		if (u->tag != EXT || u->wire_type !=
		    PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED)
			continue;
		if (!(k = getvarint(u->data, u->data + u->len, &len)) ||
		    len != u->len - k)
			continue;
		*p = u->data + k;
		*n = len;
		return 1;
	}
	return 0;
}

static Xla__ShapeProto *wrshape(Wr *w, const HloModule *mm, uint32_t s,
	int deflayout);

static int
pstype(Lx *l, int *proto)
{
	const char *s;
	size_t n;
	int t;

	if (!lxc(l, '(') || !lxword(l, &s, &n) ||
	    (t = hlo_type_by_name(s, n)) < 0 || !lxc(l, ')'))
		return 0;
	*proto = hlo_typeinfo[t].proto;
	return 1;
}

static int
psdlt(Lx *l, Xla__LayoutProto *L, Arena *a)
{
	int t[64], u[64], o[64], anyu = 0, anyo = 0;
	size_t n = 0, i;
	const char *p;

	if (!lxc(l, '('))
		return 0;
	do {
		lxws(l);
		if (l->p == l->e || n == 64 ||
		    !(p = memchr(dltabbrev, *l->p, 4)))
			return 0;
		t[n] = p - dltabbrev;
		u[n] = o[n] = 1;
		l->p++;
		if (l->p < l->e && *l->p == '+') {
			u[n] = 0;
			anyu = 1;
			l->p++;
		}
		if (l->p < l->e && *l->p == '~') {
			o[n] = 0;
			anyo = 1;
			l->p++;
		}
		n++;
	} while (lxc(l, ','));
	if (!lxc(l, ')'))
		return 0;
	L->n_dim_level_types = n;
	L->dim_level_types = aallocn(a, n, sizeof *L->dim_level_types);
	for (i = 0; i < n; i++)
		L->dim_level_types[i] = t[i];
	if (anyu) {
		L->n_dim_unique = n;
		L->dim_unique = abools(a, n);
		for (i = 0; i < n; i++)
			L->dim_unique[i] = u[i];
	}
	if (anyo) {
		L->n_dim_ordered = n;
		L->dim_ordered = abools(a, n);
		for (i = 0; i < n; i++)
			L->dim_ordered[i] = o[i];
	}
	return 1;
}

static int
pstiles(Lx *l, Xla__LayoutProto *L, Arena *a)
{
	Xla__TileProto *tp[64];
	Vec v = {0};
	size_t n = 0;
	int64_t d;

	while (lxpeek(l, '(')) {
		l->p++;
		v.n = 0;
		if (n == 64)
			goto bad;
		do {
			if (lxc(l, '*'))
				d = INT64_MIN;
			else if (!lxint(l, &d))
				goto bad;
			vpush(&v, d);
		} while (lxc(l, ','));
		if (!lxc(l, ')'))
			goto bad;
		tp[n] = aalloc(a, sizeof *tp[n]);
		xla__tile_proto__init(tp[n]);
		tp[n]->n_dimensions = v.n;
		tp[n]->dimensions = adupvec(a, v.v, v.n);
		n++;
	}
	free(v.v);
	if (!n)
		return 0;
	L->n_tiles = n;
	L->tiles = aallocn(a, n, sizeof *L->tiles);
	memcpy(L->tiles, tp, n * sizeof *tp);
	return 1;
bad:
	free(v.v);
	return 0;
}

static int
pssplit(Lx *l, Xla__LayoutProto *L, Arena *a)
{
	Xla__SplitConfigProto *sc[64];
	Vec v = {0};
	size_t n = 0;
	int64_t d;

	while (lxpeek(l, '(')) {
		l->p++;
		v.n = 0;
		if (n == 64 || !lxint(l, &d) || !lxc(l, ':'))
			goto bad;
		sc[n] = aalloc(a, sizeof *sc[n]);
		xla__split_config_proto__init(sc[n]);
		sc[n]->dimension = d;
		if (!lxpeek(l, ')')) {
			do {
				if (!lxint(l, &d))
					goto bad;
				vpush(&v, d);
			} while (lxc(l, ','));
		}
		if (!lxc(l, ')'))
			goto bad;
		sc[n]->n_split_indices = v.n;
		sc[n]->split_indices = adupvec(a, v.v, v.n);
		n++;
	}
	free(v.v);
	if (!n)
		return 0;
	L->n_split_configs = n;
	L->split_configs = aallocn(a, n, sizeof *L->split_configs);
	memcpy(L->split_configs, sc, n * sizeof *sc);
	return 1;
bad:
	free(v.v);
	return 0;
}

/* parses a layout tail into L's fields; 0 if it is not canonical text */
static int
pstail(Wr *w, const char *t, size_t n, Xla__LayoutProto *L, int depth)
{
	Lx l = {t, t + n};
	int64_t v;
	uint32_t ps;

	while (!lxend(&l)) {
		if (lxkw(&l, "D")) {
			if (!psdlt(&l, L, &w->a))
				return 0;
		} else if (lxkw(&l, "T")) {
			if (!pstiles(&l, L, &w->a))
				return 0;
		} else if (lxkw(&l, "L")) {
			if (!lxc(&l, '(') || !lxint(&l, &v) || !lxc(&l, ')'))
				return 0;
			L->tail_padding_alignment_in_elements = v;
		} else if (lxc(&l, '#')) {
			if (!pstype(&l, (int *)&L->index_primitive_type))
				return 0;
		} else if (lxc(&l, '*')) {
			if (!pstype(&l, (int *)&L->pointer_primitive_type))
				return 0;
		} else if (lxkw(&l, "E")) {
			if (!lxc(&l, '(') || !lxint(&l, &v) || !lxc(&l, ')'))
				return 0;
			L->element_size_in_bits = v;
		} else if (lxkw(&l, "SC")) {
			if (!pssplit(&l, L, &w->a))
				return 0;
		} else if (lxkw(&l, "S")) {
			if (!lxc(&l, '(') || !lxint(&l, &v) || !lxc(&l, ')'))
				return 0;
			L->memory_space = v;
		} else if (lxkw(&l, "P")) {
			if (depth > 8 || !lxc(&l, '(') ||
			    !psshape(&l, w->s, &ps, depth + 1) ||
			    !lxc(&l, ')'))
				return 0;
			L->physical_shape = wrshape(w, w->s, ps, 0);
		} else if (lxkw(&l, "M")) {
			if (!lxc(&l, '(') || !lxint(&l, &v) || !lxc(&l, ')'))
				return 0;
			L->dynamic_shape_metadata_prefix_bytes = v;
		} else {
			return 0;
		}
	}
	return 1;
}

static Xla__LayoutProto *
wrlayout(Wr *w, const HloModule *mm, const HloShape *sh, int deflayout)
{
	Xla__LayoutProto *L = aalloc(&w->a, sizeof *L);
	const char *tail = sh->tail ? hlo_cstr(mm, sh->tail) : NULL;
	HloBuf x = {0}, c = {0};
	char why[64];
	int ok;
	uint32_t i;

	xla__layout_proto__init(L);
	L->n_minor_to_major = sh->rank;
	L->minor_to_major = aallocn(&w->a, sh->rank + 1, sizeof(int64_t));
	for (i = 0; i < sh->rank; i++)
		L->minor_to_major[i] = (sh->flags & SH_LAYOUT) ?
			mm->ints[sh->dims + sh->rank + i] : sh->rank - 1 - i;
	(void)deflayout;
	L->tail_padding_alignment_in_elements = 1;
	if (tail) {
		ok = pstail(w, tail, strlen(tail), L, 0);
		if (ok) {
			ok = prtail(w->s, L, &c, 0, why, sizeof why) == 0 &&
				c.len == strlen(tail) &&
				!memcmp(c.buf, tail, c.len);
		}
		if (!ok)
			putlenfield(&x, 1, tail, strlen(tail));
	}
	if (!sh->rank && (sh->flags & SH_LAYOUT) && !tail) {
		puttag(&x, 2, 0);
		putvarint(&x, 1);
	}
	if (x.len)
		addext(&w->a, &L->base, &x);
	hlo_buf_free(&x);
	hlo_buf_free(&c);
	return L;
}

/* shape s of module mm; deflayout gives arrays without a layout the
 * default one (literal shapes need a layout) */
static Xla__ShapeProto *
wrshape(Wr *w, const HloModule *mm, uint32_t s, int deflayout)
{
	const HloShape *sh = hlo_sh(mm, s);
	Xla__ShapeProto *sp;
	uint32_t i, n;

	if (mm == w->m && !deflayout && w->shcache[s])
		return w->shcache[s];
	sp = aalloc(&w->a, sizeof *sp);
	xla__shape_proto__init(sp);
	sp->element_type = hlo_typeinfo[sh->type].proto;
	if (sh->type == TY_TUPLE) {
		n = sh->ntuple;
		sp->n_tuple_shapes = n;
		sp->tuple_shapes = aallocn(&w->a, n + 1,
			sizeof *sp->tuple_shapes);
		for (i = 0; i < n; i++)
			sp->tuple_shapes[i] = wrshape(w, mm,
				mm->ids[sh->tuple + i], deflayout);
	} else {
		sp->n_dimensions = sh->rank;
		sp->dimensions = adupvec(&w->a, mm->ints + sh->dims, sh->rank);
		if (sh->type != TY_TOKEN && sh->type != TY_OPAQUE) {
			sp->n_is_dynamic_dimension = sh->rank;
			sp->is_dynamic_dimension = abools(&w->a, sh->rank);
			for (i = 0; i < sh->rank && i < 64; i++)
				sp->is_dynamic_dimension[i] =
					sh->dynmask >> i & 1;
		}
		if ((sh->flags & SH_LAYOUT) || deflayout ||
		    (!sh->rank && sh->type != TY_TOKEN &&
		    sh->type != TY_OPAQUE))
			sp->layout = wrlayout(w, mm, sh, deflayout);
	}
	if (mm == w->m && !deflayout)
		w->shcache[s] = sp;
	return sp;
}

/* literals: the IR keeps elements in row-major (logical) order, protos
 * in the physical order of the literal shape's layout */

/* perm[logical index] = physical index, or NULL when they agree */
static int64_t *
physperm(int rank, const int64_t *dims, const int64_t *m2m, int64_t n)
{
	int64_t *stride, *idx, *perm = NULL, phys, i;
	int d, k;
	uint8_t *seen;

	if (!m2m || rank < 2 || n <= 1)
		return NULL;
	for (k = 0; k < rank && m2m[k] == rank - 1 - k; k++)
		;
	if (k == rank)
		return NULL;
	seen = xcalloc(rank, 1);
	stride = xreallocarray(NULL, rank, sizeof *stride);
	idx = xcalloc(rank, sizeof *idx);
	for (k = 0; k < rank; k++)
		if (m2m[k] < 0 || m2m[k] >= rank || seen[m2m[k]]++)
			goto out;
	for (k = 0; k < rank; k++)
		stride[m2m[k]] = k ? stride[m2m[k - 1]] * dims[m2m[k - 1]] : 1;
	perm = xreallocarray(NULL, n, sizeof *perm);
	for (i = 0; i < n; i++) {
		for (phys = 0, d = 0; d < rank; d++)
			phys += idx[d] * stride[d];
		perm[i] = phys;
		for (d = rank - 1; d >= 0; d--) {
			if (++idx[d] < dims[d])
				break;
			idx[d] = 0;
		}
	}
out:
	free(seen);
	free(stride);
	free(idx);
	return perm;
}

static void
putle(uint8_t *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = v >> (8 * i);
}

static uint64_t
getle(const uint8_t *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* the bytes field of sub-word types in a LiteralProto */
static ProtobufCBinaryData *
litbytes(Xla__LiteralProto *lp, int ty)
{
	switch (ty) {
	case TY_S1: return &lp->s1s;
	case TY_S2: return &lp->s2s;
	case TY_S4: return &lp->s4s;
	case TY_S8: return &lp->s8s;
	case TY_U1: return &lp->u1s;
	case TY_U2: return &lp->u2s;
	case TY_U4: return &lp->u4s;
	case TY_U8: return &lp->u8s;
	case TY_S16: return &lp->s16s;
	case TY_U16: return &lp->u16s;
	case TY_F16: return &lp->f16s;
	case TY_BF16: return &lp->bf16s;
	case TY_F8E5M2: return &lp->f8e5m2s;
	case TY_F8E4M3: return &lp->f8e4m3s;
	case TY_F8E4M3FN: return &lp->f8e4m3fns;
	case TY_F8E4M3B11FNUZ: return &lp->f8e4m3b11fnuzs;
	case TY_F8E3M4: return &lp->f8e3m4s;
	case TY_F8E5M2FNUZ: return &lp->f8e5m2fnuzs;
	case TY_F8E4M3FNUZ: return &lp->f8e4m3fnuzs;
	case TY_F4E2M1FN: return &lp->f4e2m1fns;
	case TY_F8E8M0FNU: return &lp->f8e8m0fnus;
	case TY_F6E3M2FN: return &lp->f6e3m2fns;
	case TY_F6E2M3FN: return &lp->f6e2m3fns;
	default: return NULL;
	}
}

/* appends the elements of literal lp (for shape s of m) to out */
static int
rdlit(HloModule *m, const Xla__LiteralProto *lp, uint32_t s, HloBuf *out,
	int depth, char *why, size_t nwhy)
{
	const HloShape *sh = hlo_sh(m, s);
	Xla__LiteralProto *l = (Xla__LiteralProto *)lp;
	const Xla__LayoutProto *L;
	ProtobufCBinaryData *bd;
	int64_t n, i, *perm = NULL;
	int ty = sh->type, esz, bits, rank = sh->rank;
	size_t have, need, k;
	uint8_t *phys;
	uint64_t v;

	if (depth > MAXDEPTH) {
		snprintf(why, nwhy, "literal nested too deep");
		return -1;
	}
	if (ty == TY_TUPLE) {
		uint32_t nt = sh->ntuple;

		if (lp->n_tuple_literals != nt) {
			snprintf(why, nwhy, "tuple literal has %zu elements, "
				"shape has %u", lp->n_tuple_literals, nt);
			return -1;
		}
		for (k = 0; k < nt; k++)
			if (rdlit(m, lp->tuple_literals[k],
			    m->ids[hlo_sh(m, s)->tuple + k], out, depth + 1,
			    why, nwhy) < 0)
				return -1;
		return 0;
	}
	if (ty == TY_TOKEN || ty == TY_OPAQUE)
		return 0;
	if ((n = hlo_shape_elems(m, s)) < 0 || n > INT64_C(1) << 34) {
		snprintf(why, nwhy, "literal too large");
		return -1;
	}
	esz = hlo_type_bytes(ty);
	bits = hlo_typeinfo[ty].bits;
	phys = xmalloc(n * esz + 1);
	switch (ty) {
	case TY_PRED:
		have = lp->n_preds;
		if (have != (size_t)n)
			goto count;
		for (i = 0; i < n; i++)
			phys[i] = lp->preds[i] != 0;
		break;
	case TY_S32: case TY_U32:
		have = ty == TY_S32 ? lp->n_s32s : lp->n_u32s;
		if (have != (size_t)n)
			goto count;
		for (i = 0; i < n; i++)
			putle(phys + 4 * i, ty == TY_S32 ?
				(uint32_t)lp->s32s[i] : lp->u32s[i], 4);
		break;
	case TY_S64: case TY_U64:
		have = ty == TY_S64 ? lp->n_s64s : lp->n_u64s;
		if (have != (size_t)n)
			goto count;
		for (i = 0; i < n; i++)
			putle(phys + 8 * i, ty == TY_S64 ?
				(uint64_t)lp->s64s[i] : lp->u64s[i], 8);
		break;
	case TY_F32:
		if ((have = lp->n_f32s) != (size_t)n)
			goto count;
		memcpy(phys, lp->f32s, n * 4);
		break;
	case TY_F64:
		if ((have = lp->n_f64s) != (size_t)n)
			goto count;
		memcpy(phys, lp->f64s, n * 8);
		break;
	case TY_C64:
		if ((have = lp->n_c64s) != (size_t)n * 2)
			goto count;
		memcpy(phys, lp->c64s, n * 8);
		break;
	case TY_C128:
		if ((have = lp->n_c128s) != (size_t)n * 2)
			goto count;
		memcpy(phys, lp->c128s, n * 16);
		break;
	default:
		if (!(bd = litbytes(l, ty)))
			goto type;
		have = bd->len;
		need = (size_t)n * esz;
		if (have == need) {
			memcpy(phys, bd->data, need);
		} else if (bits < 8 && n > 1 &&
		    have == ((size_t)n * bits + 7) / 8) {
			/* packed sub-byte elements, low bits first */
			for (i = 0; i < n; i++) {
				v = bd->data[i * bits / 8] >>
					(i * bits % 8) & ((1u << bits) - 1);
				if (hlo_typeinfo[ty].cls == C_SINT &&
				    (v >> (bits - 1) & 1))
					v |= ~(uint64_t)0 << bits;
				phys[i] = (uint8_t)v;
			}
		} else {
			goto count;
		}
		break;
	}
	L = lp->shape ? lp->shape->layout : NULL;
	if (L && L->n_minor_to_major == (size_t)rank)
		perm = physperm(rank, m->ints + sh->dims, L->minor_to_major,
			n);
	if (perm) {
		for (i = 0; i < n; i++)
			hlo_buf_put(out, (char *)phys + perm[i] * esz, esz);
	} else {
		hlo_buf_put(out, (char *)phys, n * esz);
	}
	free(perm);
	free(phys);
	return 0;
count:
	snprintf(why, nwhy, "literal has %zu values for %" PRId64
		" elements of %s", have, n, hlo_typeinfo[ty].name);
	free(phys);
	return -1;
type:
	snprintf(why, nwhy, "literal of type %s", hlo_typeinfo[ty].name);
	free(phys);
	return -1;
}

static Xla__LiteralProto *
wrlit(Wr *w, uint32_t s, const uint8_t *b, size_t nb, size_t *pos,
	int depth)
{
	const HloModule *m = w->m;
	const HloShape *sh = hlo_sh(m, s);
	Xla__LiteralProto *lp = aalloc(&w->a, sizeof *lp);
	ProtobufCBinaryData *bd;
	int64_t n, i, *perm = NULL;
	int ty = sh->type, esz;
	uint8_t *phys;
	const uint8_t *src;
	uint32_t k;

	xla__literal_proto__init(lp);
	lp->shape = wrshape(w, m, s, 1);
	if (ty == TY_TUPLE) {
		lp->n_tuple_literals = sh->ntuple;
		lp->tuple_literals = aallocn(&w->a, sh->ntuple + 1,
			sizeof *lp->tuple_literals);
		for (k = 0; k < sh->ntuple; k++)
			if (!(lp->tuple_literals[k] = wrlit(w,
			    m->ids[hlo_sh(m, s)->tuple + k], b, nb, pos,
			    depth + 1)))
				return NULL;
		return lp;
	}
	if (ty == TY_TOKEN || ty == TY_OPAQUE)
		return lp;
	esz = hlo_type_bytes(ty);
	if ((n = hlo_shape_elems(m, s)) < 0 || (uint64_t)n * esz >
	    nb - *pos)
		return NULL;
	src = b + *pos;
	*pos += n * esz;
	phys = aallocn(&w->a, n * esz + 1, 1);
	if (sh->flags & SH_LAYOUT)
		perm = physperm(sh->rank, m->ints + sh->dims,
			m->ints + sh->dims + sh->rank, n);
	if (perm) {
		for (i = 0; i < n; i++)
			memcpy(phys + perm[i] * esz, src + i * esz, esz);
		free(perm);
	} else if (n) {
		memcpy(phys, src, n * esz);
	}
	switch (ty) {
	case TY_PRED:
		lp->n_preds = n;
		lp->preds = abools(&w->a, n);
		for (i = 0; i < n; i++)
			lp->preds[i] = phys[i] != 0;
		break;
	case TY_S32:
		lp->n_s32s = n;
		lp->s32s = aallocn(&w->a, n + 1, 4);
		for (i = 0; i < n; i++)
			lp->s32s[i] = (int32_t)getle(phys + 4 * i, 4);
		break;
	case TY_U32:
		lp->n_u32s = n;
		lp->u32s = aallocn(&w->a, n + 1, 4);
		for (i = 0; i < n; i++)
			lp->u32s[i] = (uint32_t)getle(phys + 4 * i, 4);
		break;
	case TY_S64:
		lp->n_s64s = n;
		lp->s64s = aallocn(&w->a, n + 1, 8);
		for (i = 0; i < n; i++)
			lp->s64s[i] = (int64_t)getle(phys + 8 * i, 8);
		break;
	case TY_U64:
		lp->n_u64s = n;
		lp->u64s = aallocn(&w->a, n + 1, 8);
		for (i = 0; i < n; i++)
			lp->u64s[i] = getle(phys + 8 * i, 8);
		break;
	case TY_F32:
		lp->n_f32s = n;
		lp->f32s = (float *)phys;
		break;
	case TY_F64:
		lp->n_f64s = n;
		lp->f64s = (double *)phys;
		break;
	case TY_C64:
		lp->n_c64s = 2 * n;
		lp->c64s = (float *)phys;
		break;
	case TY_C128:
		lp->n_c128s = 2 * n;
		lp->c128s = (double *)phys;
		break;
	default:
		if (!(bd = litbytes(lp, ty)))
			return NULL;
		bd->len = n * esz;
		bd->data = phys;
		break;
	}
	return lp;
}

/* enum spellings */

static const char *const precname[] = {"default", "high", "highest"};
static const char *const algname[] = {"unset", "dot_any_f8_any_f8_f32",
	"dot_any_f8_any_f8_f32_fast_accum", "dot_f16_f16_f16",
	"dot_f16_f16_f32", "dot_bf16_bf16_bf16", "dot_bf16_bf16_f32",
	"dot_bf16_bf16_f32_x3", "dot_bf16_bf16_f32_x6", "dot_tf32_tf32_f32",
	"dot_tf32_tf32_f32_x3", "dot_f32_f32_f32", "dot_f64_f64_f64",
	"dot_bf16_bf16_f32_x9"};
static const char *const distname[] = {"rng_invalid", "rng_uniform",
	"rng_normal"};
static const char *const rngalgname[] = {"rng_default", "rng_three_fry",
	"rng_philox"};
static const char *const fftname[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
static const char *const transname[] = {"TRANSPOSE_INVALID",
	"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
static const char *const schedname[] = {"SCHEDULE_NONE", "SCHEDULE_LATEST",
	"SCHEDULE_EARLIEST"};
static const char *const apiname[] = {"API_VERSION_UNSPECIFIED",
	"API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING",
	"API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"};
static const char *const padtypename[] = {"PADDING_INVALID",
	"PADDING_VALID", "PADDING_SAME"};
static const char *const subgroupname[] = {"replicated", "maximal", NULL,
	NULL, "manual", NULL, "unreduced"};

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int
lookup(const char *const *tab, int n, const char *s, size_t len)
{
	int i;

	for (i = 0; i < n; i++)
		if (tab[i] && strlen(tab[i]) == len && !memcmp(tab[i], s, len))
			return i;
	return -1;
}

static const char *
ename(const char *const *tab, int n, int v)
{
	return v >= 0 && v < n ? tab[v] : NULL;
}

/* floats as XLA's StrCat prints them (%g), exact when %g is not */
static void
prfloat(HloBuf *b, float f)
{
	char t[64];
	int prec;

	snprintf(t, sizeof t, "%g", (double)f);
	if (strtof(t, NULL) != f && !isnan(f))
		for (prec = 7; prec <= 9; prec++) {
			snprintf(t, sizeof t, "%.*g", prec, (double)f);
			if (strtof(t, NULL) == f)
				break;
		}
	hlo_buf_puts(b, t);
}

/* a NUL-free copy of b into the arena, or NULL */
static char *
astrbuf(Arena *a, const HloBuf *b)
{
	if (b->len && memchr(b->buf, 0, b->len))
		return NULL;
	return astrndup(a, b->len ? b->buf : "", b->len);
}

/* OpMetadata as OpMetadataToString writes it, without braces */
static void
prmeta(HloBuf *b, const Xla__OpMetadata *md)
{
	size_t start = b->len;

#define SEP() do { if (b->len > start) hlo_buf_put(b, " ", 1); } while (0)
#define STR(f) do { if (md->f && *md->f) { SEP(); \
	hlo_buf_puts(b, #f "="); putq(b, md->f, strlen(md->f)); } } while (0)
#define INT(f) do { if (md->f) { SEP(); \
	hlo_buf_printf(b, #f "=%" PRId64, (int64_t)md->f); } } while (0)
	STR(op_type);
	STR(op_name);
	STR(source_file);
	INT(source_line);
	INT(source_end_line);
	INT(source_column);
	INT(source_end_column);
	if (md->n_profile_type) {
		size_t i;

		SEP();
		hlo_buf_puts(b, "profile_type={");
		for (i = 0; i < md->n_profile_type; i++)
			hlo_buf_printf(b, i ? ",%d" : "%d", md->profile_type[i]);
		hlo_buf_puts(b, "}");
	}
	STR(deduplicated_name);
	INT(stack_frame_id);
	STR(scheduling_name);
#undef SEP
#undef STR
#undef INT
}

/* the inside of {op_type="..." ...}, after the '{', through the '}' */
static int
psmeta(Lx *l, Arena *a, Xla__OpMetadata *md)
{
	HloBuf t = {0};
	const char *k;
	size_t n;
	int64_t v;
	char **sp;
	int32_t *ip;
	Vec pv = {0};
	int ok = 0;

	while (!lxc(l, '}')) {
		if (!lxword(l, &k, &n) || !lxc(l, '='))
			goto out;
		sp = NULL;
		ip = NULL;
#define IS(s) (n == strlen(s) && !memcmp(k, s, n))
		if (IS("op_type"))
			sp = &md->op_type;
		else if (IS("op_name"))
			sp = &md->op_name;
		else if (IS("source_file"))
			sp = &md->source_file;
		else if (IS("deduplicated_name"))
			sp = &md->deduplicated_name;
		else if (IS("scheduling_name"))
			sp = &md->scheduling_name;
		else if (IS("source_line"))
			ip = &md->source_line;
		else if (IS("source_end_line"))
			ip = &md->source_end_line;
		else if (IS("source_column"))
			ip = &md->source_column;
		else if (IS("source_end_column"))
			ip = &md->source_end_column;
		else if (IS("stack_frame_id"))
			ip = &md->stack_frame_id;
		else if (IS("profile_type")) {
			size_t i;

			pv.n = 0;
			if (!lxints(l, &pv))
				goto out;
			md->n_profile_type = pv.n;
			md->profile_type = aallocn(a, pv.n + 1,
				sizeof *md->profile_type);
			for (i = 0; i < pv.n; i++)
				md->profile_type[i] = pv.v[i];
			continue;
		} else
			goto out;
#undef IS
		if (sp) {
			t.len = 0;
			if (!lxstr(l, &t) || !(*sp = astrbuf(a, &t)))
				goto out;
		} else {
			if (!lxint(l, &v) || v < INT32_MIN || v > INT32_MAX)
				goto out;
			*ip = (int32_t)v;
		}
	}
	ok = 1;
out:
	hlo_buf_free(&t);
	free(pv.v);
	return ok;
}

/* shardings: HloSharding::ToString <-> OpSharding */

static int
isidentity(const int32_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != (int32_t)i)
			return 0;
	return 1;
}

static int
prsharding(HloBuf *b, const Xla__OpSharding *s, int depth)
{
	size_t i;

	if (depth > MAXDEPTH || s->_named_sharding_case ==
	    XLA__OP_SHARDING___NAMED_SHARDING_NAMED_SHARDING)
		return -1;
	if (s->type == XLA__OP_SHARDING__TYPE__TUPLE) {
		hlo_buf_put(b, "{", 1);
		for (i = 0; i < s->n_tuple_shardings; i++) {
			if (i && i % 5 == 0)
				hlo_buf_printf(b, ", /*index=%zu*/", i);
			else if (i)
				hlo_buf_put(b, ", ", 2);
			if (prsharding(b, s->tuple_shardings[i], depth + 1) < 0)
				return -1;
		}
		hlo_buf_put(b, "}", 1);
		return 0;
	}
	switch (s->type) {
	case XLA__OP_SHARDING__TYPE__REPLICATED:
		hlo_buf_puts(b, "{replicated");
		break;
	case XLA__OP_SHARDING__TYPE__MANUAL:
		hlo_buf_puts(b, "{manual");
		break;
	case XLA__OP_SHARDING__TYPE__UNKNOWN:
		hlo_buf_puts(b, "{unknown");
		break;
	case XLA__OP_SHARDING__TYPE__UNREDUCED:
		hlo_buf_puts(b, "{unreduced");
		break;
	case XLA__OP_SHARDING__TYPE__MAXIMAL:
		if (s->n_tile_assignment_devices != 1)
			return -1;
		hlo_buf_printf(b, "{maximal device=%" PRId64,
			s->tile_assignment_devices[0]);
		break;
	case XLA__OP_SHARDING__TYPE__OTHER:
		hlo_buf_puts(b, "{devices=[");
		putints(b, s->tile_assignment_dimensions,
			s->n_tile_assignment_dimensions);
		hlo_buf_put(b, "]", 1);
		if (s->n_iota_reshape_dims) {
			hlo_buf_puts(b, "<=[");
			putints(b, s->iota_reshape_dims,
				s->n_iota_reshape_dims);
			hlo_buf_put(b, "]", 1);
			if (!isidentity(s->iota_transpose_perm,
			    s->n_iota_transpose_perm)) {
				hlo_buf_puts(b, "T(");
				for (i = 0; i < s->n_iota_transpose_perm; i++)
					hlo_buf_printf(b, i ? ",%d" : "%d",
						s->iota_transpose_perm[i]);
				hlo_buf_put(b, ")", 1);
			}
		} else {
			putints(b, s->tile_assignment_devices,
				s->n_tile_assignment_devices);
		}
		if (s->replicate_on_last_tile_dim)
			hlo_buf_puts(b, " last_tile_dim_replicate");
		if (s->n_last_tile_dims) {
			hlo_buf_puts(b, " last_tile_dims={");
			for (i = 0; i < s->n_last_tile_dims; i++) {
				const char *nm = ename(subgroupname,
					NELEM(subgroupname), s->last_tile_dims[i]);

				if (i)
					hlo_buf_put(b, ", ", 2);
				hlo_buf_puts(b, nm ? nm : "error_type.");
			}
			hlo_buf_put(b, "}", 1);
		}
		break;
	default:
		return -1;
	}
	if (s->is_shard_group)
		hlo_buf_printf(b, " shard_%s %" PRId64, s->shard_group_type ==
			XLA__OP_SHARDING__SHARD_GROUP_TYPE__AS ? "as" : "like",
			s->shard_group_id);
	if (s->n_metadata == 1) {
		hlo_buf_puts(b, " metadata={");
		prmeta(b, s->metadata[0]);
		hlo_buf_put(b, "}", 1);
	} else if (s->n_metadata > 1) {
		hlo_buf_puts(b, " metadata={");
		for (i = 0; i < s->n_metadata; i++) {
			hlo_buf_puts(b, i ? ", {" : "{");
			prmeta(b, s->metadata[i]);
			hlo_buf_put(b, "}", 1);
		}
		hlo_buf_put(b, "}", 1);
	}
	hlo_buf_put(b, "}", 1);
	return 0;
}

static int
psvec(Lx *l, Vec *v, int open, int close)
{
	int64_t x;

	v->n = 0;
	if (!lxc(l, open))
		return 0;
	if (lxc(l, close))
		return 1;
	do {
		if (!lxint(l, &x))
			return 0;
		vpush(v, x);
	} while (lxc(l, ','));
	return lxc(l, close);
}

static int32_t *
aint32s(Arena *a, const Vec *v)
{
	int32_t *p = aallocn(a, v->n + 1, sizeof *p);
	size_t i;

	for (i = 0; i < v->n; i++)
		p[i] = (int32_t)v->v[i];
	return p;
}

static int
pssharding(Lx *l, Arena *a, Xla__OpSharding *s, int depth)
{
	Xla__OpSharding **el = NULL;
	Xla__OpMetadata *md[256];
	Vec v = {0};
	size_t n = 0, cap = 0, i, wn;
	int64_t x;
	const char *w;
	int ok = 0, t;

	xla__op_sharding__init(s);
	if (depth > MAXDEPTH || !lxc(l, '{'))
		goto out;
	if (lxpeek(l, '{') || lxpeek(l, '}')) {
		s->type = XLA__OP_SHARDING__TYPE__TUPLE;
		if (!lxc(l, '}')) {
			do {
				if (n == cap) {
					cap = cap ? 2 * cap : 8;
					el = xreallocarray(el, cap, sizeof *el);
				}
				el[n] = aalloc(a, sizeof *el[n]);
				if (!pssharding(l, a, el[n], depth + 1))
					goto out;
				n++;
			} while (lxc(l, ','));
			if (!lxc(l, '}'))
				goto out;
		}
		s->n_tuple_shardings = n;
		s->tuple_shardings = aallocn(a, n + 1, sizeof *el);
		if (n)
			memcpy(s->tuple_shardings, el, n * sizeof *el);
		ok = 1;
		goto out;
	}
	if (lxkw(l, "replicated")) {
		s->type = XLA__OP_SHARDING__TYPE__REPLICATED;
	} else if (lxkw(l, "manual")) {
		s->type = XLA__OP_SHARDING__TYPE__MANUAL;
	} else if (lxkw(l, "unknown")) {
		s->type = XLA__OP_SHARDING__TYPE__UNKNOWN;
	} else if (lxkw(l, "unreduced")) {
		s->type = XLA__OP_SHARDING__TYPE__UNREDUCED;
	} else if (lxkw(l, "maximal")) {
		if (!lxkw(l, "device") || !lxc(l, '=') || !lxint(l, &x))
			goto out;
		s->type = XLA__OP_SHARDING__TYPE__MAXIMAL;
		s->n_tile_assignment_devices = 1;
		s->tile_assignment_devices = adupvec(a, &x, 1);
	} else if (lxkw(l, "devices")) {
		s->type = XLA__OP_SHARDING__TYPE__OTHER;
		if (!lxc(l, '=') || !psvec(l, &v, '[', ']'))
			goto out;
		s->n_tile_assignment_dimensions = v.n;
		s->tile_assignment_dimensions = adupvec(a, v.v, v.n);
		if (lxc(l, '<')) {
			if (!lxc(l, '=') || !psvec(l, &v, '[', ']'))
				goto out;
			s->n_iota_reshape_dims = v.n;
			s->iota_reshape_dims = adupvec(a, v.v, v.n);
			if (lxkw(l, "T")) {
				if (!psvec(l, &v, '(', ')'))
					goto out;
			} else {
				v.n = 0;
				for (i = 0; i < s->n_iota_reshape_dims; i++)
					vpush(&v, i);
			}
			s->n_iota_transpose_perm = v.n;
			s->iota_transpose_perm = aint32s(a, &v);
		} else {
			v.n = 0;
			do {
				if (!lxint(l, &x))
					goto out;
				vpush(&v, x);
			} while (lxc(l, ','));
			s->n_tile_assignment_devices = v.n;
			s->tile_assignment_devices = adupvec(a, v.v, v.n);
		}
		if (lxkw(l, "last_tile_dim_replicate"))
			s->replicate_on_last_tile_dim = 1;
		if (lxkw(l, "last_tile_dims")) {
			if (!lxc(l, '=') || !lxc(l, '{'))
				goto out;
			v.n = 0;
			do {
				if (!lxword(l, &w, &wn) || (t = lookup(
				    subgroupname, NELEM(subgroupname), w,
				    wn)) < 0)
					goto out;
				vpush(&v, t);
			} while (lxc(l, ','));
			if (!lxc(l, '}'))
				goto out;
			s->n_last_tile_dims = v.n;
			s->last_tile_dims = aallocn(a, v.n,
				sizeof *s->last_tile_dims);
			for (i = 0; i < v.n; i++)
				s->last_tile_dims[i] = v.v[i];
		}
	} else {
		goto out;
	}
	if (lxkw(l, "shard_as")) {
		s->shard_group_type = XLA__OP_SHARDING__SHARD_GROUP_TYPE__AS;
		s->is_shard_group = 1;
	} else if (lxkw(l, "shard_like")) {
		s->shard_group_type = XLA__OP_SHARDING__SHARD_GROUP_TYPE__LIKE;
		s->is_shard_group = 1;
	}
	if (s->is_shard_group) {
		if (!lxint(l, &x))
			goto out;
		s->shard_group_id = x;
	}
	if (lxkw(l, "metadata")) {
		if (!lxc(l, '=') || !lxc(l, '{'))
			goto out;
		n = 0;
		if (lxpeek(l, '{')) {
			do {
				if (n == NELEM(md) || !lxc(l, '{'))
					goto out;
				md[n] = aalloc(a, sizeof *md[n]);
				xla__op_metadata__init(md[n]);
				if (!psmeta(l, a, md[n]))
					goto out;
				n++;
			} while (lxc(l, ','));
			if (!lxc(l, '}'))
				goto out;
		} else {
			md[0] = aalloc(a, sizeof *md[0]);
			xla__op_metadata__init(md[0]);
			if (!psmeta(l, a, md[0]))
				goto out;
			n = 1;
		}
		s->n_metadata = n;
		s->metadata = aallocn(a, n, sizeof *md);
		memcpy(s->metadata, md, n * sizeof *md);
	}
	ok = lxc(l, '}');
out:
	free(v.v);
	free(el);
	return ok;
}

/* frontend attributes: {key="value",key={json}} */

static int
looksjson(const char *s, size_t n)
{
	return n >= 2 && s[0] == '{' && s[n - 1] == '}';
}

static int
cmpentry(const void *a, const void *b)
{
	const Xla__FrontendAttributes__MapEntry *x = *(void *const *)a;
	const Xla__FrontendAttributes__MapEntry *y = *(void *const *)b;

	return strcmp(x->key, y->key);
}

static void
prfattrs(HloBuf *b, const Xla__FrontendAttributes *fa)
{
	Xla__FrontendAttributes__MapEntry **e;
	size_t i, n = fa->n_map;

	e = xreallocarray(NULL, n + 1, sizeof *e);
	memcpy(e, fa->map, n * sizeof *e);
	qsort(e, n, sizeof *e, cmpentry);
	hlo_buf_put(b, "{", 1);
	for (i = 0; i < n; i++) {
		if (i)
			hlo_buf_put(b, ",", 1);
		hlo_buf_puts(b, e[i]->key);
		hlo_buf_put(b, "=", 1);
		if (looksjson(e[i]->value, strlen(e[i]->value)))
			hlo_buf_puts(b, e[i]->value);
		else
			putq(b, e[i]->value, strlen(e[i]->value));
	}
	hlo_buf_put(b, "}", 1);
	free(e);
}

static int
psfattrs(Lx *l, Arena *a, Xla__FrontendAttributes *fa)
{
	Xla__FrontendAttributes__MapEntry *e[4096];
	HloBuf t = {0};
	const char *k, *v0;
	size_t n = 0, kn;
	int ok = 0;

	xla__frontend_attributes__init(fa);
	if (!lxc(l, '{'))
		return 0;
	if (!lxc(l, '}')) {
		do {
			if (n == NELEM(e) || !lxword(l, &k, &kn) ||
			    !lxc(l, '='))
				goto out;
			e[n] = aalloc(a, sizeof *e[n]);
			xla__frontend_attributes__map_entry__init(e[n]);
			e[n]->key = astrndup(a, k, kn);
			t.len = 0;
			if (lxpeek(l, '{')) {
				v0 = l->p;
				if (!lxskip(l))
					goto out;
				hlo_buf_put(&t, v0, l->p - v0);
			} else if (!lxstr(l, &t)) {
				goto out;
			}
			if (!(e[n]->value = astrbuf(a, &t)))
				goto out;
			n++;
		} while (lxc(l, ','));
		if (!lxc(l, '}'))
			goto out;
	}
	fa->n_map = n;
	fa->map = aallocn(a, n + 1, sizeof *e);
	memcpy(fa->map, e, n * sizeof *e);
	ok = 1;
out:
	hlo_buf_free(&t);
	return ok;
}
