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

/* protobuf-c's longest names */
#define LENPREF PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED
#define RG_IOTA \
	XLA__HLO_INSTRUCTION_PROTO__REPLICA_GROUP_LIST_IOTA_COLLECTIVE_DEVICE_LIST
#define RG_LIST \
	XLA__HLO_INSTRUCTION_PROTO__REPLICA_GROUP_LIST_COLLECTIVE_DEVICE_LIST
#define RG_NONE XLA__HLO_INSTRUCTION_PROTO__REPLICA_GROUP_LIST__NOT_SET
#define XPF_SET XLA__HLO_INSTRUCTION_PROTO__OPTIONAL_CROSS_PROGRAM_\
PREFETCH_INDEX_CROSS_PROGRAM_PREFETCH_INDEX

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
	size_t i, run;
	unsigned char c;

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

/* interns p[0..n) up to its first NUL: wire bytes may hold any */
static uint32_t
strid(HloModule *m, const void *p, size_t n)
{
	const char *z = n ? memchr(p, 0, n) : NULL;

	if (z)
		n = z - (const char *)p;
	return n ? hlo_str(m, p, n) : 0;
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

	if (sh->type == TY_BUFFER) {
		hlo_buf_put(b, "b(", 2);
		prshape(m, m->ids[sh->tuple], b);
		hlo_buf_put(b, ")", 1);
		return;
	}
	if (sh->type == TY_TUPLE) {
		hlo_buf_put(b, "(", 1);
		for (i = 0; i < sh->ntuple; i++) {
			if (i)
				hlo_buf_put(b, ", ", 2);
			if (i && i % 5 == 0)
				hlo_buf_printf(b, "/*index=%u*/", i);
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
	if (lxkw(l, "b")) {
		if (!lxc(l, '(') || !psshape(l, m, &s, depth + 1) ||
		    !lxc(l, ')') || hlo_sh(m, s)->type == TY_TUPLE ||
		    hlo_sh(m, s)->type == TY_BUFFER)
			return 0;
		*out = hlo_shape_buffer(m, s);
		return 1;
	}
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
 * explicit layout on a scalar, 3 = the IR shape has no layout (the proto
 * gets the default one, as XLA's parser would give it) */
static void
layoutext(const Xla__LayoutProto *L, const uint8_t **raw, size_t *nraw,
	int *explicit, int *implicit)
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
	*implicit = 0;
	for (i = 0; i < L->base.n_unknown_fields; i++) {
		u = &L->base.unknown_fields[i];
		if (u->tag != EXT || u->wire_type != LENPREF)
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
			} else if (f.num == 3 && f.wt == 0) {
				*implicit = f.v != 0;
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
	int ty, explicit, implicit, r = -1, layout = 0;

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
	if (ty == TY_BUFFER) {
		if (sp->n_tuple_shapes != 1) {
			snprintf(why, nwhy, "buffer shape without its array");
			return -1;
		}
		if (rdshape(m, sp->tuple_shapes[0], &tail, depth + 1, why,
		    nwhy) < 0)
			return -1;
		if (hlo_sh(m, tail)->type == TY_TUPLE ||
		    hlo_sh(m, tail)->type == TY_BUFFER) {
			snprintf(why, nwhy, "buffer of a non-array shape");
			return -1;
		}
		*out = hlo_shape_buffer(m, tail);
		return 0;
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
		layoutext(L, &raw, &nraw, &explicit, &implicit);
		if (raw) {
			hlo_buf_put(&tb, (const char *)raw, nraw);
		} else if (prtail(m, L, &tb, depth, why, nwhy) < 0) {
			hlo_buf_free(&tb);
			return -1;
		}
		if (tb.len)
			tail = strid(m, tb.buf, tb.len);
		if ((!sp->n_dimensions && !tail && !explicit) || implicit)
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
	uint64_t nid;		/* next instruction id */
	uint32_t *compid;	/* computation index -> proto id */
	int sched;		/* is_scheduled: write the schedule */
	Xla__HloScheduleProto__SequencesEntry **seq;
	size_t nseq;
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
	u[msg->n_unknown_fields].wire_type = LENPREF;
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
		if (u->tag != EXT || u->wire_type != LENPREF)
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
	if (sh->rank && !(sh->flags & SH_LAYOUT) && !deflayout) {
		puttag(&x, 3, 0);
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
	if (sh->type == TY_TUPLE || sh->type == TY_BUFFER) {
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
		if (sh->type != TY_TOKEN && sh->type != TY_OPAQUE)
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

static void
cpy(void *d, const void *s, size_t n)
{
	if (n)
		memcpy(d, s, n);
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
	if (ty == TY_TOKEN || ty == TY_OPAQUE || ty == TY_BUFFER)
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
		cpy(phys, lp->f32s, n * 4);
		break;
	case TY_F64:
		if ((have = lp->n_f64s) != (size_t)n)
			goto count;
		cpy(phys, lp->f64s, n * 8);
		break;
	case TY_C64:
		if ((have = lp->n_c64s) != (size_t)n * 2)
			goto count;
		cpy(phys, lp->c64s, n * 8);
		break;
	case TY_C128:
		if ((have = lp->n_c128s) != (size_t)n * 2)
			goto count;
		cpy(phys, lp->c128s, n * 16);
		break;
	default:
		if (!(bd = litbytes(l, ty)))
			goto type;
		have = bd->len;
		need = (size_t)n * esz;
		if (have == need) {
			cpy(phys, bd->data, need);
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
		uint8_t *dst;

		hlo_buf_put(out, (char *)phys, n * esz);
		dst = (uint8_t *)out->buf + out->len - n * esz;
		for (i = 0; i < n; i++)
			memcpy(dst + i * esz, phys + perm[i] * esz, esz);
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
	if (ty == TY_TOKEN || ty == TY_OPAQUE || ty == TY_BUFFER)
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

/* collectives: replica groups and source-target pairs */

static void
prgroups(HloBuf *b, Xla__ReplicaGroup **g, size_t n)
{
	size_t i;

	hlo_buf_put(b, "{", 1);
	for (i = 0; i < n; i++) {
		hlo_buf_puts(b, i ? ",{" : "{");
		putints(b, g[i]->replica_ids, g[i]->n_replica_ids);
		hlo_buf_put(b, "}", 1);
	}
	hlo_buf_put(b, "}", 1);
}

static void
priota(HloBuf *b, const Xla__IotaReplicaGroupListProto *io)
{
	size_t i;

	hlo_buf_printf(b, "[%" PRId64 ",%" PRId64 "]<=[",
		io->num_replica_groups, io->num_devices_per_group);
	putints(b, io->iota_reshape_dims, io->n_iota_reshape_dims);
	hlo_buf_put(b, "]", 1);
	if (!isidentity(io->iota_transpose_perm, io->n_iota_transpose_perm)) {
		hlo_buf_puts(b, "T(");
		for (i = 0; i < io->n_iota_transpose_perm; i++)
			hlo_buf_printf(b, i ? ",%d" : "%d",
				io->iota_transpose_perm[i]);
		hlo_buf_put(b, ")", 1);
	}
}

static int
psgroups(Lx *l, Arena *a, Xla__HloInstructionProto *ip)
{
	Xla__IotaReplicaGroupListProto *io;
	Xla__ReplicaGroup **g = NULL;
	Vec v = {0};
	size_t n = 0, cap = 0, i;
	int ok = 0;

	if (lxpeek(l, '[')) {
		io = aalloc(a, sizeof *io);
		xla__iota_replica_group_list_proto__init(io);
		if (!psvec(l, &v, '[', ']') || v.n != 2)
			goto out;
		io->num_replica_groups = v.v[0];
		io->num_devices_per_group = v.v[1];
		if (!lxc(l, '<') || !lxc(l, '=') || !psvec(l, &v, '[', ']'))
			goto out;
		io->n_iota_reshape_dims = v.n;
		io->iota_reshape_dims = adupvec(a, v.v, v.n);
		if (lxkw(l, "T")) {
			if (!psvec(l, &v, '(', ')'))
				goto out;
		} else {
			v.n = 0;
			for (i = 0; i < io->n_iota_reshape_dims; i++)
				vpush(&v, i);
		}
		io->n_iota_transpose_perm = v.n;
		io->iota_transpose_perm = aint32s(a, &v);
		ip->replica_group_list_case = RG_IOTA;
		ip->iota_collective_device_list = io;
		ok = 1;
		goto out;
	}
	if (!lxc(l, '{'))
		goto out;
	if (!lxc(l, '}')) {
		do {
			if (!psvec(l, &v, '{', '}'))
				goto out;
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				g = xreallocarray(g, cap, sizeof *g);
			}
			g[n] = aalloc(a, sizeof *g[n]);
			xla__replica_group__init(g[n]);
			g[n]->n_replica_ids = v.n;
			g[n]->replica_ids = adupvec(a, v.v, v.n);
			n++;
		} while (lxc(l, ','));
		if (!lxc(l, '}'))
			goto out;
	}
	ip->n_replica_groups = n;
	ip->replica_groups = aallocn(a, n + 1, sizeof *g);
	if (n)
		memcpy(ip->replica_groups, g, n * sizeof *g);
	ok = 1;
out:
	free(v.v);
	free(g);
	return ok;
}

static void
prpairs(HloBuf *b, Xla__SourceTarget **p, size_t n)
{
	size_t i;

	hlo_buf_put(b, "{", 1);
	for (i = 0; i < n; i++)
		hlo_buf_printf(b, "%s{%" PRId64 ",%" PRId64 "}", i ? "," : "",
			p[i]->source, p[i]->target);
	hlo_buf_put(b, "}", 1);
}

static int
pspairs(Lx *l, Arena *a, Xla__HloInstructionProto *ip)
{
	Xla__SourceTarget **p = NULL;
	Vec v = {0};
	size_t n = 0, cap = 0;
	int ok = 0;

	if (!lxc(l, '{'))
		goto out;
	if (!lxc(l, '}')) {
		do {
			if (!psvec(l, &v, '{', '}') || v.n != 2)
				goto out;
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				p = xreallocarray(p, cap, sizeof *p);
			}
			p[n] = aalloc(a, sizeof *p[n]);
			xla__source_target__init(p[n]);
			p[n]->source = v.v[0];
			p[n]->target = v.v[1];
			n++;
		} while (lxc(l, ','));
		if (!lxc(l, '}'))
			goto out;
	}
	ip->n_source_target_pairs = n;
	ip->source_target_pairs = aallocn(a, n + 1, sizeof *p);
	if (n)
		memcpy(ip->source_target_pairs, p, n * sizeof *p);
	ok = 1;
out:
	free(v.v);
	free(p);
	return ok;
}

/* {default,high} */
static int
psprec(Lx *l, Arena *a, Xla__PrecisionConfig *pc)
{
	const char *w;
	size_t n;
	Vec v = {0};
	int t, ok = 0;
	size_t i;

	if (!lxc(l, '{'))
		return 0;
	if (!lxc(l, '}')) {
		do {
			if (!lxword(l, &w, &n) || (t = lookup(precname,
			    NELEM(precname), w, n)) < 0)
				goto out;
			vpush(&v, t);
		} while (lxc(l, ','));
		if (!lxc(l, '}'))
			goto out;
	}
	pc->n_operand_precision = v.n;
	pc->operand_precision = aallocn(a, v.n + 1,
		sizeof *pc->operand_precision);
	for (i = 0; i < v.n; i++)
		pc->operand_precision[i] = v.v[i];
	ok = 1;
out:
	free(v.v);
	return ok;
}

/* output_to_operand_aliasing={{0}: (1, {})} */
static void
pralias(HloBuf *b, Xla__OutputOperandAliasing **v, size_t n)
{
	size_t i;

	hlo_buf_put(b, "{", 1);
	for (i = 0; i < n; i++) {
		hlo_buf_puts(b, i ? ", {" : "{");
		putints(b, v[i]->output_shape_index,
			v[i]->n_output_shape_index);
		hlo_buf_printf(b, "}: (%" PRId64 ", {", v[i]->operand_index);
		putints(b, v[i]->operand_shape_index,
			v[i]->n_operand_shape_index);
		hlo_buf_puts(b, "})");
	}
	hlo_buf_put(b, "}", 1);
}

static int
psalias(Lx *l, Arena *a, Xla__HloInstructionProto *ip)
{
	Xla__OutputOperandAliasing **p = NULL;
	Vec v = {0};
	size_t n = 0, cap = 0;
	int64_t x;
	int ok = 0;

	if (!lxc(l, '{'))
		goto out;
	if (!lxc(l, '}')) {
		do {
			if (n == cap) {
				cap = cap ? 2 * cap : 8;
				p = xreallocarray(p, cap, sizeof *p);
			}
			p[n] = aalloc(a, sizeof *p[n]);
			xla__output_operand_aliasing__init(p[n]);
			if (!psvec(l, &v, '{', '}'))
				goto out;
			p[n]->n_output_shape_index = v.n;
			p[n]->output_shape_index = adupvec(a, v.v, v.n);
			if (!lxc(l, ':') || !lxc(l, '(') || !lxint(l, &x) ||
			    !lxc(l, ',') || !psvec(l, &v, '{', '}') ||
			    !lxc(l, ')'))
				goto out;
			p[n]->operand_index = x;
			p[n]->n_operand_shape_index = v.n;
			p[n]->operand_shape_index = adupvec(a, v.v, v.n);
			n++;
		} while (lxc(l, ','));
		if (!lxc(l, '}'))
			goto out;
	}
	ip->n_output_operand_aliasing = n;
	ip->output_operand_aliasing = aallocn(a, n + 1, sizeof *p);
	if (n)
		memcpy(ip->output_operand_aliasing, p, n * sizeof *p);
	ok = 1;
out:
	free(v.v);
	free(p);
	return ok;
}

/* convolution dimension numbers as dim_labels=b01f_01io->b01f */

static int
prlabels1(HloBuf *b, int64_t x, char cx, int64_t y, char cy,
	const int64_t *sp, size_t nsp)
{
	char t[16];
	size_t n = nsp + 2, i;

	if (n > sizeof t || nsp > 10)
		return -1;
	memset(t, '?', n);
	if (x < 0 || (size_t)x >= n || y < 0 || (size_t)y >= n)
		return -1;
	t[x] = cx;
	t[y] = cy;
	for (i = 0; i < nsp; i++) {
		if (sp[i] < 0 || (size_t)sp[i] >= n)
			return -1;
		t[sp[i]] = '0' + i;
	}
	hlo_buf_put(b, t, n);
	return 0;
}

static int
prlabels(HloBuf *b, const Xla__ConvolutionDimensionNumbers *d)
{
	if (prlabels1(b, d->input_batch_dimension, 'b',
	    d->input_feature_dimension, 'f', d->input_spatial_dimensions,
	    d->n_input_spatial_dimensions) < 0)
		return -1;
	hlo_buf_put(b, "_", 1);
	if (prlabels1(b, d->kernel_input_feature_dimension, 'i',
	    d->kernel_output_feature_dimension, 'o',
	    d->kernel_spatial_dimensions, d->n_kernel_spatial_dimensions) < 0)
		return -1;
	hlo_buf_put(b, "->", 2);
	return prlabels1(b, d->output_batch_dimension, 'b',
		d->output_feature_dimension, 'f', d->output_spatial_dimensions,
		d->n_output_spatial_dimensions);
}

static int
pslabels1(const char *s, size_t n, char cx, int64_t *x, char cy, int64_t *y,
	Arena *a, int64_t **sp, size_t *nsp)
{
	int64_t pos[10];
	size_t i, k = 0;
	int seen = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == cx && !(seen & 1)) {
			*x = i;
			seen |= 1;
		} else if (s[i] == cy && !(seen & 2)) {
			*y = i;
			seen |= 2;
		} else if (s[i] >= '0' && s[i] <= '9' && (size_t)(s[i] - '0') <
		    n - 2) {
			pos[s[i] - '0'] = i;
			k++;
			if (seen & (4 << (s[i] - '0')))
				return 0;
			seen |= 4 << (s[i] - '0');
		} else {
			return 0;
		}
	}
	if (n < 2 || k != n - 2 || (seen & 3) != 3)
		return 0;
	*nsp = k;
	*sp = adupvec(a, pos, k);
	return 1;
}

static int
pslabels(const char *s, size_t n, Arena *a, Xla__ConvolutionDimensionNumbers *d)
{
	const char *u = memchr(s, '_', n), *ar;

	if (!u || n - (u - s) < 3)
		return 0;
	for (ar = u; ar + 1 < s + n && !(ar[0] == '-' && ar[1] == '>'); ar++)
		;
	if (ar + 1 >= s + n)
		return 0;
	return pslabels1(s, u - s, 'b', &d->input_batch_dimension, 'f',
		&d->input_feature_dimension, a, &d->input_spatial_dimensions,
		&d->n_input_spatial_dimensions) &&
		pslabels1(u + 1, ar - u - 1, 'i',
		&d->kernel_input_feature_dimension, 'o',
		&d->kernel_output_feature_dimension, a,
		&d->kernel_spatial_dimensions, &d->n_kernel_spatial_dimensions) &&
		pslabels1(ar + 2, s + n - ar - 2, 'b', &d->output_batch_dimension,
		'f', &d->output_feature_dimension, a,
		&d->output_spatial_dimensions, &d->n_output_spatial_dimensions);
}

/* stack frame tables of newer dumps (FileNames ... StackFrames) */

static void
prframes(HloBuf *b, const Xla__StackFrameIndexProto *f)
{
	size_t i;

	hlo_buf_puts(b, "FileNames");
	for (i = 0; i < f->n_file_names; i++) {
		hlo_buf_printf(b, "\n%zu ", i + 1);
		putq(b, f->file_names[i], strlen(f->file_names[i]));
	}
	hlo_buf_puts(b, "\nFunctionNames");
	for (i = 0; i < f->n_function_names; i++) {
		hlo_buf_printf(b, "\n%zu ", i + 1);
		putq(b, f->function_names[i], strlen(f->function_names[i]));
	}
	hlo_buf_puts(b, "\nFileLocations");
	for (i = 0; i < f->n_file_locations; i++) {
		const Xla__StackFrameIndexProto__FileLocation *l =
			f->file_locations[i];

		hlo_buf_printf(b, "\n%zu {file_name_id=%d function_name_id=%d "
			"line=%d end_line=%d column=%d end_column=%d}", i + 1,
			l->file_name_id, l->function_name_id, l->line,
			l->end_line, l->column, l->end_column);
	}
	hlo_buf_puts(b, "\nStackFrames");
	for (i = 0; i < f->n_stack_frames; i++)
		hlo_buf_printf(b, "\n%zu {file_location_id=%d parent_frame_id=%"
			PRId64 "}", i + 1, f->stack_frames[i]->file_location_id,
			(int64_t)f->stack_frames[i]->parent_frame_id + 1);
}

static int
psframeint(Lx *l, const char *key, int32_t *v, int off)
{
	int64_t x;

	if (!lxkw(l, key) || !lxc(l, '=') || !lxint(l, &x))
		return 0;
	x -= off;
	if (x < INT32_MIN || x > INT32_MAX)
		return 0;
	*v = (int32_t)x;
	return 1;
}

static int
psframes(const char *s, size_t n, Arena *a, Xla__StackFrameIndexProto *f)
{
	static const char *const sect[] = {"FileNames", "FunctionNames",
		"FileLocations", "StackFrames"};
	Lx l = {s, s + n};
	HloBuf t = {0};
	void **items = NULL;
	size_t ni, cap, k;
	int64_t num;
	int sc, ok = 0;

	xla__stack_frame_index_proto__init(f);
	for (sc = 0; sc < 4; sc++) {
		if (!lxkw(&l, sect[sc]))
			goto out;
		ni = cap = 0;
		while (lxint(&l, &num)) {
			if (num != (int64_t)ni + 1)
				goto out;
			if (ni == cap) {
				cap = cap ? 2 * cap : 16;
				items = xreallocarray(items, cap, sizeof *items);
			}
			if (sc < 2) {
				t.len = 0;
				if (!lxstr(&l, &t) ||
				    !(items[ni] = astrbuf(a, &t)))
					goto out;
			} else if (sc == 2) {
				Xla__StackFrameIndexProto__FileLocation *fl =
					aalloc(a, sizeof *fl);

				xla__stack_frame_index_proto__file_location__init(
					fl);
				if (!lxc(&l, '{') ||
				    !psframeint(&l, "file_name_id",
				    &fl->file_name_id, 0) ||
				    !psframeint(&l, "function_name_id",
				    &fl->function_name_id, 0) ||
				    !psframeint(&l, "line", &fl->line, 0) ||
				    !psframeint(&l, "end_line", &fl->end_line, 0) ||
				    !psframeint(&l, "column", &fl->column, 0) ||
				    !psframeint(&l, "end_column", &fl->end_column,
				    0) || !lxc(&l, '}'))
					goto out;
				items[ni] = fl;
			} else {
				Xla__StackFrameIndexProto__StackFrame *fr =
					aalloc(a, sizeof *fr);

				xla__stack_frame_index_proto__stack_frame__init(
					fr);
				if (!lxc(&l, '{') ||
				    !psframeint(&l, "file_location_id",
				    &fr->file_location_id, 0) ||
				    !psframeint(&l, "parent_frame_id",
				    &fr->parent_frame_id, 1) || !lxc(&l, '}'))
					goto out;
				items[ni] = fr;
			}
			ni++;
		}
		k = ni * sizeof *items;
		switch (sc) {
		case 0:
			f->n_file_names = ni;
			f->file_names = aalloc(a, k + 1);
			if (k)
				memcpy(f->file_names, items, k);
			break;
		case 1:
			f->n_function_names = ni;
			f->function_names = aalloc(a, k + 1);
			if (k)
				memcpy(f->function_names, items, k);
			break;
		case 2:
			f->n_file_locations = ni;
			f->file_locations = aalloc(a, k + 1);
			if (k)
				memcpy(f->file_locations, items, k);
			break;
		default:
			f->n_stack_frames = ni;
			f->stack_frames = aalloc(a, k + 1);
			if (k)
				memcpy(f->stack_frames, items, k);
			break;
		}
	}
	ok = lxend(&l);
out:
	free(items);
	hlo_buf_free(&t);
	return ok;
}

/* module header forms */

static void
prindex(HloBuf *b, const int64_t *v, size_t n)
{
	hlo_buf_put(b, "{", 1);
	putints(b, v, n);
	hlo_buf_put(b, "}", 1);
}

/* input_output_alias={ {0}: (0, {}, may-alias) } */
static void
prioalias(HloBuf *b, const Xla__HloInputOutputAliasProto *io)
{
	size_t i;

	hlo_buf_puts(b, "{ ");
	for (i = 0; i < io->n_entries; i++) {
		const Xla__HloInputOutputAliasProto__AliasEntryProto *e =
			io->entries[i];

		if (i)
			hlo_buf_puts(b, ", ");
		prindex(b, e->output_shape_index, e->n_output_shape_index);
		hlo_buf_printf(b, ": (%" PRId64 ", ", e->parameter_number);
		prindex(b, e->parameter_shape_index, e->n_parameter_shape_index);
		hlo_buf_puts(b, e->kind == XLA__KIND__MUST_ALIAS ?
			", must-alias)" : ", may-alias)");
	}
	hlo_buf_puts(b, " }");
}

static int
psioalias(Lx *l, Arena *a, Xla__HloInputOutputAliasProto *io)
{
	Xla__HloInputOutputAliasProto__AliasEntryProto *e[4096];
	Vec v = {0};
	size_t n = 0;
	int64_t x;
	const char *w;
	size_t wn;
	int ok = 0;

	xla__hlo_input_output_alias_proto__init(io);
	if (!lxc(l, '{'))
		goto out;
	if (!lxc(l, '}')) {
		do {
			if (n == NELEM(e))
				goto out;
			e[n] = aalloc(a, sizeof *e[n]);
			xla__hlo_input_output_alias_proto__alias_entry_proto__init(
				e[n]);
			if (!psvec(l, &v, '{', '}'))
				goto out;
			e[n]->n_output_shape_index = v.n;
			e[n]->output_shape_index = adupvec(a, v.v, v.n);
			if (!lxc(l, ':') || !lxc(l, '(') || !lxint(l, &x) ||
			    !lxc(l, ',') || !psvec(l, &v, '{', '}'))
				goto out;
			e[n]->parameter_number = x;
			e[n]->n_parameter_shape_index = v.n;
			e[n]->parameter_shape_index = adupvec(a, v.v, v.n);
			e[n]->kind = XLA__KIND__MAY_ALIAS;
			if (lxc(l, ',')) {
				if (!lxword(l, &w, &wn))
					goto out;
				if (wn == 10 && !memcmp(w, "must-alias", 10))
					e[n]->kind = XLA__KIND__MUST_ALIAS;
				else if (wn != 9 || memcmp(w, "may-alias", 9))
					goto out;
			}
			if (!lxc(l, ')'))
				goto out;
			n++;
		} while (lxc(l, ','));
		if (!lxc(l, '}'))
			goto out;
	}
	io->n_entries = n;
	io->entries = aallocn(a, n + 1, sizeof *e);
	memcpy(io->entries, e, n * sizeof *e);
	ok = lxend(l);
out:
	free(v.v);
	return ok;
}

/* buffer_donor={ (0, {}), (1, {}) } */
static void
prdonor(HloBuf *b, const Xla__HloBufferDonorProto *d)
{
	size_t i;

	hlo_buf_puts(b, "{ ");
	for (i = 0; i < d->n_entries; i++) {
		hlo_buf_printf(b, "%s(%" PRId64 ", ", i ? ", " : "",
			d->entries[i]->parameter_number);
		prindex(b, d->entries[i]->parameter_shape_index,
			d->entries[i]->n_parameter_shape_index);
		hlo_buf_put(b, ")", 1);
	}
	hlo_buf_puts(b, " }");
}

static int
psdonor(Lx *l, Arena *a, Xla__HloBufferDonorProto *d)
{
	Xla__HloBufferDonorProto__BufferDonorEntryProto *e[4096];
	Vec v = {0};
	size_t n = 0;
	int64_t x;
	int ok = 0;

	xla__hlo_buffer_donor_proto__init(d);
	if (!lxc(l, '{'))
		goto out;
	if (!lxc(l, '}')) {
		do {
			if (n == NELEM(e))
				goto out;
			e[n] = aalloc(a, sizeof *e[n]);
			xla__hlo_buffer_donor_proto__buffer_donor_entry_proto__init(
				e[n]);
			if (!lxc(l, '(') || !lxint(l, &x) || !lxc(l, ',') ||
			    !psvec(l, &v, '{', '}') || !lxc(l, ')'))
				goto out;
			e[n]->parameter_number = x;
			e[n]->n_parameter_shape_index = v.n;
			e[n]->parameter_shape_index = adupvec(a, v.v, v.n);
			n++;
		} while (lxc(l, ','));
		if (!lxc(l, '}'))
			goto out;
	}
	d->n_entries = n;
	d->entries = aallocn(a, n + 1, sizeof *e);
	memcpy(d->entries, e, n * sizeof *e);
	ok = lxend(l);
out:
	free(v.v);
	return ok;
}

/* instruction attributes: proto -> attribute list, as XLA prints them */

typedef struct {
	HloModule *m;
	HloAttr *v;
	uint32_t n, cap;
	HloBuf t;
	char why[256];
} Ab;

static void
abpush(Ab *b, HloAttr a)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 16;
		b->v = xreallocarray(b->v, b->cap, sizeof *b->v);
	}
	b->v[b->n++] = a;
}

static void
abint(Ab *b, int key, int64_t v)
{
	abpush(b, hlo_mk_int(key, v));
}

static int
abints(Ab *b, int key, const int64_t *v, size_t n)
{
	if (n > UINT32_MAX / 16) {
		snprintf(b->why, sizeof b->why, "%s has too many elements",
			hlo_attrinfo[key].key);
		return -1;
	}
	abpush(b, hlo_mk_ints(b->m, key, v, (uint32_t)n));
	return 0;
}

static int
abtext(Ab *b, int key, int kind, const void *s, size_t n)
{
	if (n > UINT32_MAX / 4) {
		snprintf(b->why, sizeof b->why, "attribute too large");
		return -1;
	}
	abpush(b, hlo_mk_bytes(b->m, key, kind, n ? s : "", (uint32_t)n));
	return 0;
}

static int
abword(Ab *b, int key, const char *s)
{
	return abtext(b, key, hlo_attrinfo[key].kind, s, strlen(s));
}

/* attribute key from b->t */
static int
abbuf(Ab *b, int key)
{
	return abtext(b, key, hlo_attrinfo[key].kind, b->t.buf, b->t.len);
}

/* an A_OTHER attribute name=b->t */
static int
abother(Ab *b, const char *name)
{
	HloAttr a;

	if (abtext(b, A_OTHER, K_RAW, b->t.buf, b->t.len) < 0)
		return -1;
	a = b->v[b->n - 1];
	a.name = hlo_strz(b->m, name);
	b->v[b->n - 1] = a;
	return 0;
}

static int
alwaysdims(int op)
{
	switch (op) {
	case HOP_BROADCAST: case HOP_TRANSPOSE: case HOP_REVERSE:
	case HOP_CONCAT: case HOP_REDUCE: case HOP_SORT: case HOP_MAP:
	case HOP_GETDIMSIZE: case HOP_SETDIMSIZE: case HOP_SCAN:
	case HOP_ALLGATHER: case HOP_ALLGATHERSTART: case HOP_REDUCESCATTER:
		return 1;
	default:
		return 0;
	}
}

static int
hasgroups(int op)
{
	switch (op) {
	case HOP_ALLREDUCE: case HOP_ALLREDUCESTART: case HOP_ALLGATHER:
	case HOP_ALLGATHERSTART: case HOP_ALLTOALL: case HOP_RAGGEDALLTOALL:
	case HOP_REDUCESCATTER: case HOP_COLLBCAST: case HOP_COLLREDUCE:
		return 1;
	default:
		return 0;
	}
}

static int
hasprecision(int op)
{
	return op == HOP_DOT || op == HOP_CONV || op == HOP_RAGGEDDOT ||
		op == HOP_CUSTOMCALL || op == HOP_SCALEDDOT;
}

/* Comparison::DefaultComparisonType of element type t */
static const char *
defcmptype(int t)
{
	if (t < 0)
		return NULL;
	switch (hlo_typeinfo[t].cls) {
	case C_FLOAT: case C_CPLX: return "FLOAT";
	case C_SINT: return "SIGNED";
	case C_PRED: case C_UINT: return "UNSIGNED";
	default: return NULL;
	}
}

static int
rdwindow(Ab *b, const Xla__Window *w)
{
	int64_t *v;
	size_t i;
	int r;

	if (w->n_dimensions > UINT32_MAX / 128) {
		snprintf(b->why, sizeof b->why, "window too large");
		return -1;
	}
	v = xreallocarray(NULL, 7 * w->n_dimensions + 1, sizeof *v);
	for (i = 0; i < w->n_dimensions; i++) {
		const Xla__WindowDimension *d = w->dimensions[i];

		v[7 * i] = d->size;
		v[7 * i + 1] = d->stride;
		v[7 * i + 2] = d->padding_low;
		v[7 * i + 3] = d->padding_high;
		v[7 * i + 4] = d->window_dilation;
		v[7 * i + 5] = d->base_dilation;
		v[7 * i + 6] = d->window_reversal;
	}
	r = abints(b, A_WINDOW, v, 7 * w->n_dimensions);
	free(v);
	return r;
}

static int
rddot(Ab *b, const Xla__DotDimensionNumbers *d)
{
	if (!d)
		return 0;
	if (d->n_lhs_batch_dimensions && abints(b, A_LHS_BATCH,
	    d->lhs_batch_dimensions, d->n_lhs_batch_dimensions) < 0)
		return -1;
	if (abints(b, A_LHS_CONTRACT, d->lhs_contracting_dimensions,
	    d->n_lhs_contracting_dimensions) < 0)
		return -1;
	if (d->n_rhs_batch_dimensions && abints(b, A_RHS_BATCH,
	    d->rhs_batch_dimensions, d->n_rhs_batch_dimensions) < 0)
		return -1;
	return abints(b, A_RHS_CONTRACT, d->rhs_contracting_dimensions,
		d->n_rhs_contracting_dimensions);
}

static int
rdprec(Ab *b, const Xla__PrecisionConfig *pc, int op)
{
	size_t i;
	int any = 0;

	if (!pc)
		return 0;
	for (i = 0; i < pc->n_operand_precision; i++)
		any |= pc->operand_precision[i] != 0;
	if (any) {
		b->t.len = 0;
		hlo_buf_put(&b->t, "{", 1);
		for (i = 0; i < pc->n_operand_precision; i++) {
			const char *nm = ename(precname, NELEM(precname),
				pc->operand_precision[i]);

			if (!nm) {
				snprintf(b->why, sizeof b->why, "bad precision "
					"%d", pc->operand_precision[i]);
				return -1;
			}
			if (i)
				hlo_buf_put(&b->t, ",", 1);
			hlo_buf_puts(&b->t, nm);
		}
		hlo_buf_put(&b->t, "}", 1);
		if (abbuf(b, A_OPERAND_PRECISION) < 0)
			return -1;
	}
	if (pc->algorithm) {
		const char *nm = ename(algname, NELEM(algname), pc->algorithm);

		if (!nm) {
			snprintf(b->why, sizeof b->why, "bad dot algorithm %d",
				pc->algorithm);
			return -1;
		}
		return abword(b, A_ALGORITHM, nm);
	}
	(void)op;
	return 0;
}

static int
rdgather(Ab *b, const Xla__HloInstructionProto *ip)
{
	const Xla__GatherDimensionNumbers *d = ip->gather_dimension_numbers;

	if (d) {
		if (abints(b, A_OFFSET_DIMS, d->offset_dims,
		    d->n_offset_dims) < 0 ||
		    abints(b, A_COLLAPSED_SLICE_DIMS, d->collapsed_slice_dims,
		    d->n_collapsed_slice_dims) < 0 ||
		    abints(b, A_START_INDEX_MAP, d->start_index_map,
		    d->n_start_index_map) < 0)
			return -1;
		if (d->n_operand_batching_dims && abints(b,
		    A_OPERAND_BATCHING_DIMS, d->operand_batching_dims,
		    d->n_operand_batching_dims) < 0)
			return -1;
		if (d->n_start_indices_batching_dims && abints(b,
		    A_START_INDICES_BATCHING_DIMS,
		    d->start_indices_batching_dims,
		    d->n_start_indices_batching_dims) < 0)
			return -1;
		abint(b, A_INDEX_VECTOR_DIM, d->index_vector_dim);
	}
	if (abints(b, A_SLICE_SIZES, ip->gather_slice_sizes,
	    ip->n_gather_slice_sizes) < 0)
		return -1;
	if (ip->indices_are_sorted)
		abint(b, A_INDICES_ARE_SORTED, 1);
	return 0;
}

static int
rdscatter(Ab *b, const Xla__HloInstructionProto *ip)
{
	const Xla__ScatterDimensionNumbers *d = ip->scatter_dimension_numbers;

	if (d) {
		if (abints(b, A_UPDATE_WINDOW_DIMS, d->update_window_dims,
		    d->n_update_window_dims) < 0 ||
		    abints(b, A_INSERTED_WINDOW_DIMS, d->inserted_window_dims,
		    d->n_inserted_window_dims) < 0 ||
		    abints(b, A_SCATTER_DIMS_TO_OPERAND_DIMS,
		    d->scatter_dims_to_operand_dims,
		    d->n_scatter_dims_to_operand_dims) < 0)
			return -1;
		if (d->n_input_batching_dims && abints(b,
		    A_INPUT_BATCHING_DIMS, d->input_batching_dims,
		    d->n_input_batching_dims) < 0)
			return -1;
		if (d->n_scatter_indices_batching_dims && abints(b,
		    A_SCATTER_INDICES_BATCHING_DIMS,
		    d->scatter_indices_batching_dims,
		    d->n_scatter_indices_batching_dims) < 0)
			return -1;
		abint(b, A_INDEX_VECTOR_DIM, d->index_vector_dim);
	}
	if (ip->indices_are_sorted)
		abint(b, A_INDICES_ARE_SORTED, 1);
	if (ip->unique_indices)
		abint(b, A_UNIQUE_INDICES, 1);
	return 0;
}

static int
rdcustom(Ab *b, const Xla__HloInstructionProto *ip)
{
	const char *nm;
	size_t i;

	if (abtext(b, A_CUSTOM_CALL_TARGET, K_STR, ip->custom_call_target,
	    strlen(ip->custom_call_target)) < 0)
		return -1;
	if (ip->constrain_layout) {
		b->t.len = 0;
		hlo_buf_put(&b->t, "{", 1);
		for (i = 0; i < ip->n_operand_shapes_with_layout; i++) {
			uint32_t s;

			if (rdshape(b->m, ip->operand_shapes_with_layout[i], &s,
			    0, b->why, sizeof b->why) < 0)
				return -1;
			if (i)
				hlo_buf_put(&b->t, ", ", 2);
			prshape(b->m, s, &b->t);
		}
		hlo_buf_put(&b->t, "}", 1);
		if (abbuf(b, A_OPERAND_LAYOUT_CONSTRAINTS) < 0)
			return -1;
	}
	if (ip->custom_call_has_side_effect)
		abint(b, A_CUSTOM_CALL_SIDE_EFFECT, 1);
	if (ip->custom_call_schedule) {
		if (!(nm = ename(schedname, NELEM(schedname),
		    ip->custom_call_schedule)))
			goto bad;
		abword(b, A_CUSTOM_CALL_SCHEDULE, nm);
	}
	if (ip->custom_call_api_version > 1) {
		if (!(nm = ename(apiname, NELEM(apiname),
		    ip->custom_call_api_version)))
			goto bad;
		abword(b, A_API_VERSION, nm);
	}
	if (ip->padding_type) {
		if (!(nm = ename(padtypename, NELEM(padtypename),
		    ip->padding_type)))
			goto bad;
		b->t.len = 0;
		hlo_buf_puts(&b->t, nm);
		if (abother(b, "padding_type") < 0)
			return -1;
	}
	return 0;
bad:
	snprintf(b->why, sizeof b->why, "bad custom-call enum value");
	return -1;
}

static int
rdcollective(Ab *b, const Xla__HloInstructionProto *ip, int op)
{
	if (hasgroups(op)) {
		b->t.len = 0;
		switch (ip->replica_group_list_case) {
		case RG_IOTA:
			priota(&b->t, ip->iota_collective_device_list);
			break;
		case RG_LIST:
			if (!ip->n_replica_groups) {
				const Xla__CollectiveDeviceListProto *dl =
					ip->collective_device_list;

				prgroups(&b->t, dl->replica_groups,
					dl->n_replica_groups);
				break;
			}
			/* fall through */
		case RG_NONE:
			prgroups(&b->t, ip->replica_groups,
				ip->n_replica_groups);
			break;
		default:
			b->t.len = 0;	/* mesh-axes groups: dropped */
			break;
		}
		if (b->t.len && abbuf(b, A_REPLICA_GROUPS) < 0)
			return -1;
	}
	if (ip->use_global_device_ids)
		abint(b, A_USE_GLOBAL_DEVICE_IDS, 1);
	if (ip->constrain_layout && op != HOP_CUSTOMCALL)
		abint(b, A_CONSTRAIN_LAYOUT, 1);
	if (op == HOP_COLLPERMUTE || op == HOP_COLLPERMUTESTART) {
		b->t.len = 0;
		prpairs(&b->t, ip->source_target_pairs,
			ip->n_source_target_pairs);
		if (abbuf(b, A_SOURCE_TARGET_PAIRS) < 0)
			return -1;
	}
	if (ip->channel_id > 0)
		abint(b, A_CHANNEL_ID, ip->channel_id);
	if (ip->is_host_transfer)
		abint(b, A_IS_HOST_TRANSFER, 1);
	return 0;
}

static int
rdmisc(Ab *b, const Xla__HloInstructionProto *ip, int op)
{
	const char *nm;

	switch (op) {
	case HOP_REDUCEPRECISION:
		abint(b, A_EXPONENT_BITS, ip->exponent_bits);
		abint(b, A_MANTISSA_BITS, ip->mantissa_bits);
		break;
	case HOP_BNGRAD: case HOP_BNINFER: case HOP_BNTRAIN:
		b->t.len = 0;
		prfloat(&b->t, ip->epsilon);
		if (abbuf(b, A_EPSILON) < 0)
			return -1;
		abint(b, A_FEATURE_INDEX, ip->feature_index);
		break;
	case HOP_RNG:
		if (!(nm = ename(distname, NELEM(distname), ip->distribution)))
			goto bad;
		abword(b, A_DISTRIBUTION, nm);
		break;
	case HOP_FFT:
		if (!(nm = ename(fftname, NELEM(fftname), ip->fft_type)))
			goto bad;
		abword(b, A_FFT_TYPE, nm);
		if (abints(b, A_FFT_LENGTH, ip->fft_length,
		    ip->n_fft_length) < 0)
			return -1;
		break;
	case HOP_TOPK:
		abint(b, A_K, ip->k);
		abint(b, A_LARGEST, ip->largest != 0);
		break;
	case HOP_INFEED:
		if (ip->infeed_config.len && abtext(b, A_INFEED_CONFIG, K_STR,
		    ip->infeed_config.data, ip->infeed_config.len) < 0)
			return -1;
		break;
	case HOP_OUTFEED:
		if (ip->outfeed_shape) {
			uint32_t s;

			if (rdshape(b->m, ip->outfeed_shape, &s, 0, b->why,
			    sizeof b->why) < 0)
				return -1;
			b->t.len = 0;
			prshape(b->m, s, &b->t);
			if (abbuf(b, A_OUTFEED_SHAPE) < 0)
				return -1;
		}
		if (ip->outfeed_config.len && abtext(b, A_OUTFEED_CONFIG,
		    K_STR, ip->outfeed_config.data,
		    ip->outfeed_config.len) < 0)
			return -1;
		break;
	case HOP_TRISOLVE:
		if (!ip->triangular_solve_options)
			break;
		if (ip->triangular_solve_options->left_side)
			abint(b, A_LEFT_SIDE, 1);
		if (ip->triangular_solve_options->lower)
			abint(b, A_LOWER, 1);
		if (ip->triangular_solve_options->unit_diagonal)
			abint(b, A_UNIT_DIAGONAL, 1);
		if (ip->triangular_solve_options->transpose_a) {
			if (!(nm = ename(transname, NELEM(transname),
			    ip->triangular_solve_options->transpose_a)))
				goto bad;
			abword(b, A_TRANSPOSE_A, nm);
		}
		break;
	case HOP_CHOLESKY:
		if (ip->cholesky_options && ip->cholesky_options->lower)
			abint(b, A_LOWER, 1);
		break;
	case HOP_PARAMETER:
		if (ip->parameter_replication &&
		    ip->parameter_replication->n_replicated_at_leaf_buffers) {
			const Xla__ParameterReplication *pr =
				ip->parameter_replication;
			size_t i;

			b->t.len = 0;
			hlo_buf_put(&b->t, "{", 1);
			for (i = 0; i < pr->n_replicated_at_leaf_buffers; i++)
				hlo_buf_puts(&b->t, pr->replicated_at_leaf_buffers[i]
					? (i ? ",true" : "true") :
					(i ? ",false" : "false"));
			hlo_buf_put(&b->t, "}", 1);
			if (abbuf(b, A_PARAMETER_REPLICATION) < 0)
				return -1;
		}
		break;
	case HOP_RNGGETSTATE:
		abint(b, A_DELTA, ip->delta);
		break;
	case HOP_RNGBITGEN:
		if (!(nm = ename(rngalgname, NELEM(rngalgname),
		    ip->rng_algorithm)))
			goto bad;
		abword(b, A_ALGORITHM, nm);
		break;
	case HOP_COPYSTART:
		if (ip->optional_cross_program_prefetch_index_case == XPF_SET) {
			b->t.len = 0;
			hlo_buf_printf(&b->t, "%d",
				ip->cross_program_prefetch_index);
			if (abother(b, "cross_program_prefetch_index") < 0)
				return -1;
		}
		break;
	case HOP_DOMAIN:
		b->t.len = 0;
		hlo_buf_puts(&b->t, "{kind=\"sharding\", entry=");
		if (!ip->domain_exit_sharding)
			hlo_buf_puts(&b->t, "{}");
		else if (prsharding(&b->t, ip->domain_exit_sharding, 0) < 0)
			break;
		hlo_buf_puts(&b->t, ", exit=");
		if (!ip->domain_entry_sharding)
			hlo_buf_puts(&b->t, "{}");
		else if (prsharding(&b->t, ip->domain_entry_sharding, 0) < 0)
			break;
		hlo_buf_put(&b->t, "}", 1);
		if (abother(b, "domain") < 0)
			return -1;
		break;
	case HOP_SCAN:
		b->t.len = 0;
		hlo_buf_printf(&b->t, "%" PRId64, ip->num_carries);
		if (abother(b, "num_carries") < 0)
			return -1;
		if (ip->is_reverse) {
			b->t.len = 0;
			hlo_buf_puts(&b->t, "true");
			if (abother(b, "is_reverse") < 0)
				return -1;
		}
		if (ip->is_associative) {
			b->t.len = 0;
			hlo_buf_puts(&b->t, ip->is_associative ==
				XLA__TRI_STATE__TRI_STATE_TRUE ? "true" : "false");
			if (abother(b, "is_associative") < 0)
				return -1;
		}
		break;
	default:
		break;
	}
	return 0;
bad:
	snprintf(b->why, sizeof b->why, "bad enum value in %s",
		hlo_opinfo[op].name);
	return -1;
}

/* the attributes of instruction ip (opcode op, shape s, operand 0 of
 * element type t0 or -1) into b->v; -1 with b->why on bad contents */
static int
rdattrs(Ab *b, const Xla__HloInstructionProto *ip, int op, uint32_t s,
	int t0)
{
	const char *dt;
	size_t i;

	b->n = 0;
	if (op == HOP_CONSTANT) {
		if (ip->literal) {
			b->t.len = 0;
			if (rdlit(b->m, ip->literal, s, &b->t, 0, b->why,
			    sizeof b->why) < 0 || abtext(b, A_LITERAL,
			    K_LITERAL, b->t.buf, b->t.len) < 0)
				return -1;
		} else {
			HloAttr a = hlo_mk_int(A_LITERAL, 0);

			a.kind = K_LITERAL;
			a.v = HLO_ELIDED;
			abpush(b, a);
		}
	}
	if (op == HOP_FUSION && *ip->fusion_kind)
		abword(b, A_FUSION_KIND, ip->fusion_kind);
	if (op == HOP_SLICE && ip->n_slice_dimensions) {
		int64_t *v = xreallocarray(NULL, 3 * ip->n_slice_dimensions + 1,
			sizeof *v);
		int r;

		for (i = 0; i < ip->n_slice_dimensions; i++) {
			v[3 * i] = ip->slice_dimensions[i]->start;
			v[3 * i + 1] = ip->slice_dimensions[i]->limit;
			v[3 * i + 2] = ip->slice_dimensions[i]->stride;
		}
		r = abints(b, A_SLICE, v, 3 * ip->n_slice_dimensions);
		free(v);
		if (r < 0)
			return -1;
	} else if (op == HOP_SLICE && abints(b, A_SLICE, NULL, 0) < 0) {
		return -1;
	}
	if (op == HOP_IOTA) {
		if (ip->n_dimensions)
			abint(b, A_IOTA_DIM, ip->dimensions[0]);
	} else if (op == HOP_RESHAPE) {
		if (ip->n_dimensions) {
			b->t.len = 0;
			hlo_buf_printf(&b->t, "%" PRId64, ip->dimensions[0]);
			if (abother(b, "inferred_dimension") < 0)
				return -1;
		}
	} else if ((alwaysdims(op) || ip->n_dimensions) &&
	    abints(b, A_DIMENSIONS, ip->dimensions, ip->n_dimensions) < 0) {
		return -1;
	}
	if (op == HOP_GTE)
		abint(b, A_INDEX, ip->tuple_index);
	if (op == HOP_COMPARE) {
		abword(b, A_DIRECTION, ip->comparison_direction);
		dt = defcmptype(t0);
		if (*ip->comparison_type && (!dt ||
		    strcmp(dt, ip->comparison_type)))
			abword(b, A_CMP_TYPE, ip->comparison_type);
	}
	if (op == HOP_DYNSLICE && abints(b, A_DYN_SLICE_SIZES,
	    ip->dynamic_slice_sizes, ip->n_dynamic_slice_sizes) < 0)
		return -1;
	if (op == HOP_PAD && ip->padding_config) {
		const Xla__PaddingConfig *pc = ip->padding_config;
		int64_t *v = xreallocarray(NULL, 3 * pc->n_dimensions + 1,
			sizeof *v);
		int r;

		for (i = 0; i < pc->n_dimensions; i++) {
			v[3 * i] = pc->dimensions[i]->edge_padding_low;
			v[3 * i + 1] = pc->dimensions[i]->edge_padding_high;
			v[3 * i + 2] = pc->dimensions[i]->interior_padding;
		}
		r = abints(b, A_PADDING, v, 3 * pc->n_dimensions);
		free(v);
		if (r < 0)
			return -1;
	}
	if (ip->window && (op == HOP_CUSTOMCALL ||
	    ((op == HOP_CONV || op == HOP_REDUCEWINDOW ||
	    op == HOP_SELECTANDSCATTER) && ip->window->n_dimensions)) &&
	    rdwindow(b, ip->window) < 0)
		return -1;
	if ((op == HOP_CONV || op == HOP_CUSTOMCALL) &&
	    ip->convolution_dimension_numbers) {
		b->t.len = 0;
		if (prlabels(&b->t, ip->convolution_dimension_numbers) < 0) {
			snprintf(b->why, sizeof b->why, "bad convolution "
				"dimension numbers");
			return -1;
		}
		if (abbuf(b, A_DIM_LABELS) < 0)
			return -1;
	}
	if (op == HOP_CONV || op == HOP_CUSTOMCALL) {
		if (ip->feature_group_count > 1 || ip->feature_group_count < 0)
			abint(b, A_FEATURE_GROUP_COUNT, ip->feature_group_count);
		if (ip->batch_group_count > 1 || ip->batch_group_count < 0)
			abint(b, A_BATCH_GROUP_COUNT, ip->batch_group_count);
	}
	if ((op == HOP_DOT || op == HOP_SCALEDDOT) &&
	    rddot(b, ip->dot_dimension_numbers) < 0)
		return -1;
	if (op == HOP_RAGGEDDOT && ip->ragged_dot_dimension_numbers) {
		const Xla__RaggedDotDimensionNumbers *r =
			ip->ragged_dot_dimension_numbers;

		if (rddot(b, r->dot_dimension_numbers) < 0)
			return -1;
		if (r->n_lhs_ragged_dimensions && abints(b, A_LHS_RAGGED,
		    r->lhs_ragged_dimensions, r->n_lhs_ragged_dimensions) < 0)
			return -1;
		if (r->n_rhs_group_dimensions && abints(b, A_RHS_GROUP,
		    r->rhs_group_dimensions, r->n_rhs_group_dimensions) < 0)
			return -1;
	}
	if (hasprecision(op) && rdprec(b, ip->precision_config, op) < 0)
		return -1;
	if (op == HOP_GATHER && rdgather(b, ip) < 0)
		return -1;
	if (op == HOP_SCATTER && rdscatter(b, ip) < 0)
		return -1;
	if (op == HOP_CUSTOMCALL && rdcustom(b, ip) < 0)
		return -1;
	if ((op == HOP_FUSION || op == HOP_CUSTOMCALL) &&
	    ip->n_output_operand_aliasing) {
		b->t.len = 0;
		pralias(&b->t, ip->output_operand_aliasing,
			ip->n_output_operand_aliasing);
		if (abbuf(b, A_OUTPUT_OPERAND_ALIASING) < 0)
			return -1;
	}
	if (rdcollective(b, ip, op) < 0 || rdmisc(b, ip, op) < 0)
		return -1;
	if (*ip->async_execution_thread && abword(b, A_ASYNC_THREAD,
	    ip->async_execution_thread) < 0)
		return -1;
	if (ip->is_stable)
		abint(b, A_IS_STABLE, 1);
	if (ip->is_composite)
		abint(b, A_IS_COMPOSITE, 1);
	if (ip->sharding) {
		/* named (mesh-axis) shardings have no text form here and
		 * are dropped */
		b->t.len = 0;
		if (prsharding(&b->t, ip->sharding, 0) == 0 &&
		    abbuf(b, A_SHARDING) < 0)
			return -1;
	}
	if (ip->frontend_attributes && ip->frontend_attributes->n_map) {
		b->t.len = 0;
		prfattrs(&b->t, ip->frontend_attributes);
		if (abbuf(b, A_FRONTEND_ATTRIBUTES) < 0)
			return -1;
	}
	if (ip->metadata) {
		b->t.len = 0;
		hlo_buf_put(&b->t, "{", 1);
		prmeta(&b->t, ip->metadata);
		hlo_buf_put(&b->t, "}", 1);
		if (b->t.len > 2 && abbuf(b, A_METADATA) < 0)
			return -1;
	}
	if (ip->backend_config.len && abtext(b, A_BACKEND_CONFIG, K_STR,
	    ip->backend_config.data, ip->backend_config.len) < 0)
		return -1;
	return 0;
}

/* instruction attributes: attribute list -> proto fields */

static int64_t *
aints(Wr *w, const HloAttr *a)
{
	return adupvec(&w->a, w->m->ints + a->v, a->n);
}

static char *
aword(Wr *w, const HloAttr *a)
{
	if (a->v == HLO_ELIDED)
		return NULL;
	if (a->n && memchr(w->m->bytes + a->v, 0, a->n))
		return NULL;
	return astrndup(&w->a, w->m->bytes + a->v, a->n);
}

static ProtobufCBinaryData
abin(Wr *w, const HloAttr *a)
{
	ProtobufCBinaryData d;

	d.len = a->v == HLO_ELIDED ? 0 : a->n;
	d.data = d.len ? (uint8_t *)w->m->bytes + a->v : NULL;
	return d;
}

static Lx
alx(Wr *w, const HloAttr *a)
{
	Lx l;

	l.p = a->v == HLO_ELIDED ? "" : w->m->bytes + a->v;
	l.e = l.p + (a->v == HLO_ELIDED ? 0 : a->n);
	return l;
}

static int
aname(const HloModule *m, const HloAttr *a, const char *name)
{
	return a->key == A_OTHER && !strcmp(hlo_cstr(m, a->name), name);
}

static int
aint64(Wr *w, const HloAttr *a, int64_t *v)
{
	Lx l = alx(w, a);

	return lxint(&l, v) && lxend(&l);
}

static int
aenum(Wr *w, const HloAttr *a, const char *const *tab, int n)
{
	if (a->v == HLO_ELIDED)
		return -1;
	return lookup(tab, n, w->m->bytes + a->v, a->n);
}

typedef struct {
	Xla__DotDimensionNumbers *dot;
	Xla__RaggedDotDimensionNumbers *ragged;
	Xla__GatherDimensionNumbers *gather;
	Xla__ScatterDimensionNumbers *scatter;
	Xla__PrecisionConfig *prec;
	Xla__TriangularSolveOptions *tri;
} Sub;

static Xla__DotDimensionNumbers *
subdot(Wr *w, Sub *s, Xla__HloInstructionProto *ip, int op)
{
	if (!s->dot) {
		s->dot = aalloc(&w->a, sizeof *s->dot);
		xla__dot_dimension_numbers__init(s->dot);
		if (op == HOP_RAGGEDDOT) {
			s->ragged = aalloc(&w->a, sizeof *s->ragged);
			xla__ragged_dot_dimension_numbers__init(s->ragged);
			s->ragged->dot_dimension_numbers = s->dot;
			ip->ragged_dot_dimension_numbers = s->ragged;
		} else {
			ip->dot_dimension_numbers = s->dot;
		}
	}
	return s->dot;
}

static Xla__GatherDimensionNumbers *
subgather(Wr *w, Sub *s, Xla__HloInstructionProto *ip)
{
	if (!s->gather) {
		s->gather = aalloc(&w->a, sizeof *s->gather);
		xla__gather_dimension_numbers__init(s->gather);
		ip->gather_dimension_numbers = s->gather;
	}
	return s->gather;
}

static Xla__ScatterDimensionNumbers *
subscatter(Wr *w, Sub *s, Xla__HloInstructionProto *ip)
{
	if (!s->scatter) {
		s->scatter = aalloc(&w->a, sizeof *s->scatter);
		xla__scatter_dimension_numbers__init(s->scatter);
		ip->scatter_dimension_numbers = s->scatter;
	}
	return s->scatter;
}

static Xla__PrecisionConfig *
subprec(Wr *w, Sub *s, Xla__HloInstructionProto *ip)
{
	if (!s->prec) {
		s->prec = aalloc(&w->a, sizeof *s->prec);
		xla__precision_config__init(s->prec);
		ip->precision_config = s->prec;
	}
	return s->prec;
}

static Xla__TriangularSolveOptions *
subtri(Wr *w, Sub *s, Xla__HloInstructionProto *ip)
{
	if (!s->tri) {
		s->tri = aalloc(&w->a, sizeof *s->tri);
		xla__triangular_solve_options__init(s->tri);
		ip->triangular_solve_options = s->tri;
	}
	return s->tri;
}

#define SETINTS(obj, f) do { (obj)->n_##f = a->n; \
	(obj)->f = aints(w, a); } while (0)

static void
wrwindow(Wr *w, Xla__HloInstructionProto *ip, const HloAttr *a)
{
	const int64_t *v = w->m->ints + a->v;
	Xla__Window *win = aalloc(&w->a, sizeof *win);
	size_t n = a->n / 7, i;

	xla__window__init(win);
	win->n_dimensions = n;
	win->dimensions = aallocn(&w->a, n + 1, sizeof *win->dimensions);
	for (i = 0; i < n; i++) {
		Xla__WindowDimension *d = aalloc(&w->a, sizeof *d);

		xla__window_dimension__init(d);
		d->size = v[7 * i];
		d->stride = v[7 * i + 1];
		d->padding_low = v[7 * i + 2];
		d->padding_high = v[7 * i + 3];
		d->window_dilation = v[7 * i + 4];
		d->base_dilation = v[7 * i + 5];
		d->window_reversal = v[7 * i + 6] != 0;
		win->dimensions[i] = d;
	}
	ip->window = win;
}

static void
wrpadslice(Wr *w, Xla__HloInstructionProto *ip, const HloAttr *a)
{
	const int64_t *v = w->m->ints + a->v;
	size_t n = a->n / 3, i;

	if (a->key == A_SLICE) {
		ip->n_slice_dimensions = n;
		ip->slice_dimensions = aallocn(&w->a, n + 1,
			sizeof *ip->slice_dimensions);
		for (i = 0; i < n; i++) {
			Xla__HloInstructionProto__SliceDimensions *d =
				aalloc(&w->a, sizeof *d);

			xla__hlo_instruction_proto__slice_dimensions__init(d);
			d->start = v[3 * i];
			d->limit = v[3 * i + 1];
			d->stride = v[3 * i + 2];
			ip->slice_dimensions[i] = d;
		}
	} else {
		Xla__PaddingConfig *pc = aalloc(&w->a, sizeof *pc);

		xla__padding_config__init(pc);
		pc->n_dimensions = n;
		pc->dimensions = aallocn(&w->a, n + 1, sizeof *pc->dimensions);
		for (i = 0; i < n; i++) {
			Xla__PaddingConfig__PaddingConfigDimension *d =
				aalloc(&w->a, sizeof *d);

			xla__padding_config__padding_config_dimension__init(d);
			d->edge_padding_low = v[3 * i];
			d->edge_padding_high = v[3 * i + 1];
			d->interior_padding = v[3 * i + 2];
			pc->dimensions[i] = d;
		}
		ip->padding_config = pc;
	}
}

/* operand_layout_constraints={f32[2]{0}, ...} */
static int
wrshapes(Wr *w, Xla__HloInstructionProto *ip, const HloAttr *a)
{
	Lx l = alx(w, a);
	Xla__ShapeProto **v = NULL;
	size_t n = 0, cap = 0;
	uint32_t s;
	int ok = 0;

	if (!lxc(&l, '{'))
		goto out;
	if (!lxc(&l, '}')) {
		do {
			if (!psshape(&l, w->s, &s, 0))
				goto out;
			if (n == cap) {
				cap = cap ? 2 * cap : 8;
				v = xreallocarray(v, cap, sizeof *v);
			}
			v[n++] = wrshape(w, w->s, s, 0);
		} while (lxc(&l, ','));
		if (!lxc(&l, '}'))
			goto out;
	}
	if (!lxend(&l))
		goto out;
	ip->constrain_layout = 1;
	ip->n_operand_shapes_with_layout = n;
	ip->operand_shapes_with_layout = aallocn(&w->a, n + 1, sizeof *v);
	if (n)
		memcpy(ip->operand_shapes_with_layout, v, n * sizeof *v);
	ok = 1;
out:
	free(v);
	return ok;
}

static Xla__OpSharding *
wrsharding(Wr *w, Lx *l)
{
	Xla__OpSharding *s = aalloc(&w->a, sizeof *s);

	if (!pssharding(l, &w->a, s, 0))
		return NULL;
	return s;
}

/* domain={kind="sharding", entry={...}, exit={...}} */
static void
wrdomain(Wr *w, Xla__HloInstructionProto *ip, const HloAttr *a)
{
	Lx l = alx(w, a);
	HloBuf t = {0};
	Xla__OpSharding *s[2];
	int i;

	if (!lxc(&l, '{') || !lxkw(&l, "kind") || !lxc(&l, '=') ||
	    !lxstr(&l, &t) || t.len != 8 || memcmp(t.buf, "sharding", 8) ||
	    !lxc(&l, ','))
		goto out;
	for (i = 0; i < 2; i++) {
		if (!lxkw(&l, i ? "exit" : "entry") || !lxc(&l, '='))
			goto out;
		if (lxpeek(&l, '{') && l.p + 1 < l.e && l.p[1] == '}') {
			l.p += 2;
			s[i] = NULL;
		} else if (!(s[i] = wrsharding(w, &l))) {
			goto out;
		}
		if (!lxc(&l, i ? '}' : ','))
			goto out;
	}
	if (lxend(&l)) {
		ip->domain_exit_sharding = s[0];
		ip->domain_entry_sharding = s[1];
	}
out:
	hlo_buf_free(&t);
}

static void
wrother(Wr *w, Xla__HloInstructionProto *ip, const HloAttr *a)
{
	const HloModule *m = w->m;
	int64_t v;
	int t;

	if (aname(m, a, "inferred_dimension")) {
		if (aint64(w, a, &v)) {
			ip->n_dimensions = 1;
			ip->dimensions = adupvec(&w->a, &v, 1);
		}
	} else if (aname(m, a, "padding_type")) {
		if ((t = aenum(w, a, padtypename, NELEM(padtypename))) >= 0)
			ip->padding_type = t;
	} else if (aname(m, a, "cross_program_prefetch_index")) {
		if (aint64(w, a, &v) && v >= INT32_MIN && v <= INT32_MAX) {
			ip->optional_cross_program_prefetch_index_case = XPF_SET;
			ip->cross_program_prefetch_index = (int32_t)v;
		}
	} else if (aname(m, a, "domain")) {
		wrdomain(w, ip, a);
	} else if (aname(m, a, "num_carries")) {
		if (aint64(w, a, &v))
			ip->num_carries = v;
	} else if (aname(m, a, "is_reverse")) {
		Lx l = alx(w, a);

		ip->is_reverse = lxkw(&l, "true") && lxend(&l);
	} else if (aname(m, a, "is_associative")) {
		Lx l = alx(w, a);

		if (lxkw(&l, "true") && lxend(&l))
			ip->is_associative = XLA__TRI_STATE__TRI_STATE_TRUE;
		l = alx(w, a);
		if (lxkw(&l, "false") && lxend(&l))
			ip->is_associative = XLA__TRI_STATE__TRI_STATE_FALSE;
	}
}

static void
wrattr(Wr *w, Sub *s, Xla__HloInstructionProto *ip, int op,
	const HloAttr *a)
{
	Lx l = alx(w, a);
	char *str;
	int t;

	switch (a->key) {
	case A_FUSION_KIND:
		if ((str = aword(w, a)))
			ip->fusion_kind = str;
		break;
	case A_SLICE:
	case A_PADDING:
		wrpadslice(w, ip, a);
		break;
	case A_DIMENSIONS:
		SETINTS(ip, dimensions);
		break;
	case A_INDEX:
		ip->tuple_index = a->v;
		break;
	case A_IOTA_DIM:
		ip->n_dimensions = 1;
		ip->dimensions = adupvec(&w->a, &a->v, 1);
		break;
	case A_DIRECTION:
		if ((str = aword(w, a)))
			ip->comparison_direction = str;
		break;
	case A_CMP_TYPE:
		if ((str = aword(w, a)))
			ip->comparison_type = str;
		break;
	case A_DYN_SLICE_SIZES:
		SETINTS(ip, dynamic_slice_sizes);
		break;
	case A_WINDOW:
		wrwindow(w, ip, a);
		break;
	case A_DIM_LABELS: {
		Xla__ConvolutionDimensionNumbers *d = aalloc(&w->a, sizeof *d);

		xla__convolution_dimension_numbers__init(d);
		if (a->v != HLO_ELIDED && pslabels(w->m->bytes + a->v, a->n,
		    &w->a, d))
			ip->convolution_dimension_numbers = d;
		break;
	}
	case A_FEATURE_GROUP_COUNT:
		ip->feature_group_count = a->v;
		break;
	case A_BATCH_GROUP_COUNT:
		ip->batch_group_count = a->v;
		break;
	case A_LHS_BATCH:
		SETINTS(subdot(w, s, ip, op), lhs_batch_dimensions);
		break;
	case A_LHS_CONTRACT:
		SETINTS(subdot(w, s, ip, op), lhs_contracting_dimensions);
		break;
	case A_RHS_BATCH:
		SETINTS(subdot(w, s, ip, op), rhs_batch_dimensions);
		break;
	case A_RHS_CONTRACT:
		SETINTS(subdot(w, s, ip, op), rhs_contracting_dimensions);
		break;
	case A_LHS_RAGGED:
		subdot(w, s, ip, op);
		if (s->ragged)
			SETINTS(s->ragged, lhs_ragged_dimensions);
		break;
	case A_RHS_GROUP:
		subdot(w, s, ip, op);
		if (s->ragged)
			SETINTS(s->ragged, rhs_group_dimensions);
		break;
	case A_OPERAND_PRECISION: {
		Xla__PrecisionConfig pc;

		xla__precision_config__init(&pc);
		if (psprec(&l, &w->a, &pc) && lxend(&l)) {
			subprec(w, s, ip)->n_operand_precision =
				pc.n_operand_precision;
			s->prec->operand_precision = pc.operand_precision;
		}
		break;
	}
	case A_ALGORITHM:
		if (op == HOP_RNGBITGEN) {
			if ((t = aenum(w, a, rngalgname, NELEM(rngalgname))) >= 0)
				ip->rng_algorithm = t;
		} else if ((t = aenum(w, a, algname, NELEM(algname))) > 0) {
			subprec(w, s, ip)->algorithm = t;
		}
		break;
	case A_OFFSET_DIMS:
		SETINTS(subgather(w, s, ip), offset_dims);
		break;
	case A_COLLAPSED_SLICE_DIMS:
		SETINTS(subgather(w, s, ip), collapsed_slice_dims);
		break;
	case A_START_INDEX_MAP:
		SETINTS(subgather(w, s, ip), start_index_map);
		break;
	case A_OPERAND_BATCHING_DIMS:
		SETINTS(subgather(w, s, ip), operand_batching_dims);
		break;
	case A_START_INDICES_BATCHING_DIMS:
		SETINTS(subgather(w, s, ip), start_indices_batching_dims);
		break;
	case A_UPDATE_WINDOW_DIMS:
		SETINTS(subscatter(w, s, ip), update_window_dims);
		break;
	case A_INSERTED_WINDOW_DIMS:
		SETINTS(subscatter(w, s, ip), inserted_window_dims);
		break;
	case A_SCATTER_DIMS_TO_OPERAND_DIMS:
		SETINTS(subscatter(w, s, ip), scatter_dims_to_operand_dims);
		break;
	case A_INPUT_BATCHING_DIMS:
		SETINTS(subscatter(w, s, ip), input_batching_dims);
		break;
	case A_SCATTER_INDICES_BATCHING_DIMS:
		SETINTS(subscatter(w, s, ip), scatter_indices_batching_dims);
		break;
	case A_INDEX_VECTOR_DIM:
		if (op == HOP_SCATTER)
			subscatter(w, s, ip)->index_vector_dim = a->v;
		else
			subgather(w, s, ip)->index_vector_dim = a->v;
		break;
	case A_SLICE_SIZES:
		SETINTS(ip, gather_slice_sizes);
		break;
	case A_INDICES_ARE_SORTED:
		ip->indices_are_sorted = a->v != 0;
		break;
	case A_UNIQUE_INDICES:
		ip->unique_indices = a->v != 0;
		break;
	case A_EXPONENT_BITS:
		ip->exponent_bits = (int32_t)a->v;
		break;
	case A_MANTISSA_BITS:
		ip->mantissa_bits = (int32_t)a->v;
		break;
	case A_EPSILON:
		if ((str = aword(w, a))) {
			char *end;
			float f;

			errno = 0;
			f = strtof(str, &end);
			if (end != str && !*end)
				ip->epsilon = f;
		}
		break;
	case A_FEATURE_INDEX:
		ip->feature_index = a->v;
		break;
	case A_DISTRIBUTION:
		if ((t = aenum(w, a, distname, NELEM(distname))) >= 0)
			ip->distribution = t;
		break;
	case A_FFT_TYPE:
		if ((t = aenum(w, a, fftname, NELEM(fftname))) >= 0)
			ip->fft_type = t;
		break;
	case A_FFT_LENGTH:
		SETINTS(ip, fft_length);
		break;
	case A_IS_STABLE:
		ip->is_stable = a->v != 0;
		break;
	case A_K:
		ip->k = a->v;
		break;
	case A_LARGEST:
		ip->largest = a->v != 0;
		break;
	case A_CHANNEL_ID:
		ip->channel_id = a->v;
		break;
	case A_REPLICA_GROUPS: {
		Xla__HloInstructionProto tmp;

		xla__hlo_instruction_proto__init(&tmp);
		if (psgroups(&l, &w->a, &tmp) && lxend(&l)) {
			ip->n_replica_groups = tmp.n_replica_groups;
			ip->replica_groups = tmp.replica_groups;
			ip->replica_group_list_case =
				tmp.replica_group_list_case;
			ip->iota_collective_device_list =
				tmp.iota_collective_device_list;
		}
		break;
	}
	case A_USE_GLOBAL_DEVICE_IDS:
		ip->use_global_device_ids = a->v != 0;
		break;
	case A_CONSTRAIN_LAYOUT:
		ip->constrain_layout = a->v != 0;
		break;
	case A_SOURCE_TARGET_PAIRS: {
		Xla__HloInstructionProto tmp;

		xla__hlo_instruction_proto__init(&tmp);
		if (pspairs(&l, &w->a, &tmp) && lxend(&l)) {
			ip->n_source_target_pairs = tmp.n_source_target_pairs;
			ip->source_target_pairs = tmp.source_target_pairs;
		}
		break;
	}
	case A_IS_HOST_TRANSFER:
		ip->is_host_transfer = a->v != 0;
		break;
	case A_INFEED_CONFIG:
		ip->infeed_config = abin(w, a);
		break;
	case A_OUTFEED_CONFIG:
		ip->outfeed_config = abin(w, a);
		break;
	case A_OUTFEED_SHAPE: {
		uint32_t sh;

		if (psshape(&l, w->s, &sh, 0) && lxend(&l))
			ip->outfeed_shape = wrshape(w, w->s, sh, 0);
		break;
	}
	case A_CUSTOM_CALL_TARGET:
		if ((str = aword(w, a)))
			ip->custom_call_target = str;
		break;
	case A_CUSTOM_CALL_SIDE_EFFECT:
		ip->custom_call_has_side_effect = a->v != 0;
		break;
	case A_OPERAND_LAYOUT_CONSTRAINTS:
		wrshapes(w, ip, a);
		break;
	case A_OUTPUT_OPERAND_ALIASING: {
		Xla__HloInstructionProto tmp;

		xla__hlo_instruction_proto__init(&tmp);
		if (psalias(&l, &w->a, &tmp) && lxend(&l)) {
			ip->n_output_operand_aliasing =
				tmp.n_output_operand_aliasing;
			ip->output_operand_aliasing =
				tmp.output_operand_aliasing;
		}
		break;
	}
	case A_CUSTOM_CALL_SCHEDULE:
		if ((t = aenum(w, a, schedname, NELEM(schedname))) >= 0)
			ip->custom_call_schedule = t;
		break;
	case A_API_VERSION:
		if ((t = aenum(w, a, apiname, NELEM(apiname))) >= 0)
			ip->custom_call_api_version = t;
		break;
	case A_LEFT_SIDE:
		subtri(w, s, ip)->left_side = a->v != 0;
		break;
	case A_LOWER:
		if (op == HOP_CHOLESKY) {
			Xla__CholeskyOptions *c = aalloc(&w->a, sizeof *c);

			xla__cholesky_options__init(c);
			c->lower = a->v != 0;
			ip->cholesky_options = c;
		} else {
			subtri(w, s, ip)->lower = a->v != 0;
		}
		break;
	case A_UNIT_DIAGONAL:
		subtri(w, s, ip)->unit_diagonal = a->v != 0;
		break;
	case A_TRANSPOSE_A:
		if ((t = aenum(w, a, transname, NELEM(transname))) >= 0)
			subtri(w, s, ip)->transpose_a = t;
		break;
	case A_DELTA:
		ip->delta = a->v;
		break;
	case A_PARAMETER_REPLICATION: {
		Vec v = {0};
		Xla__ParameterReplication *pr;
		size_t i;

		if (!lxc(&l, '{'))
			break;
		if (!lxc(&l, '}')) {
			do {
				if (lxkw(&l, "true"))
					vpush(&v, 1);
				else if (lxkw(&l, "false"))
					vpush(&v, 0);
				else
					break;
			} while (lxc(&l, ','));
			if (!lxc(&l, '}')) {
				free(v.v);
				break;
			}
		}
		if (lxend(&l)) {
			pr = aalloc(&w->a, sizeof *pr);
			xla__parameter_replication__init(pr);
			pr->n_replicated_at_leaf_buffers = v.n;
			pr->replicated_at_leaf_buffers = abools(&w->a, v.n);
			for (i = 0; i < v.n; i++)
				pr->replicated_at_leaf_buffers[i] = v.v[i];
			ip->parameter_replication = pr;
		}
		free(v.v);
		break;
	}
	case A_ASYNC_THREAD:
		if ((str = aword(w, a)))
			ip->async_execution_thread = str;
		break;
	case A_IS_COMPOSITE:
		ip->is_composite = a->v != 0;
		break;
	case A_OTHER:
		wrother(w, ip, a);
		break;
	case A_SHARDING: {
		Xla__OpSharding *sh = wrsharding(w, &l);

		if (sh && lxend(&l))
			ip->sharding = sh;
		break;
	}
	case A_FRONTEND_ATTRIBUTES: {
		Xla__FrontendAttributes *fa = aalloc(&w->a, sizeof *fa);

		if (psfattrs(&l, &w->a, fa) && lxend(&l))
			ip->frontend_attributes = fa;
		break;
	}
	case A_METADATA: {
		Xla__OpMetadata *md = aalloc(&w->a, sizeof *md);

		xla__op_metadata__init(md);
		if (lxc(&l, '{') && psmeta(&l, &w->a, md) && lxend(&l))
			ip->metadata = md;
		break;
	}
	case A_BACKEND_CONFIG:
		ip->backend_config = abin(w, a);
		break;
	default:
		break;	/* result_accuracy, statistics, origin: extension */
	}
}
#undef SETINTS

/* the private extension: what the proto fields do not carry back */

static const char *
attrkey(const HloModule *m, const HloAttr *a)
{
	return a->key == A_OTHER ? hlo_cstr(m, a->name) :
		hlo_attrinfo[a->key].key;
}

static void
extkey(HloBuf *x, const HloModule *m, const HloAttr *a)
{
	const char *k = attrkey(m, a);

	putlenfield(x, 1, k, strlen(k));
	puttag(x, 2, 0);
	putvarint(x, a->key == A_OTHER);
}

/* field 2: attributes of this key (name) to drop */
static void
extdel(HloBuf *x, const HloModule *m, const HloAttr *a)
{
	HloBuf r = {0};

	extkey(&r, m, a);
	putlenfield(x, 2, r.buf, r.len);
	hlo_buf_free(&r);
}

/* field 3: an attribute to add */
static void
extadd(HloBuf *x, const HloModule *m, const HloAttr *a)
{
	HloBuf r = {0}, p = {0};
	uint32_t i;

	extkey(&r, m, a);
	puttag(&r, 3, 0);
	putvarint(&r, a->kind);
	switch (a->kind) {
	case K_INT:
	case K_BOOL:
		puttag(&r, 4, 0);
		putvarint(&r, (uint64_t)a->v);
		break;
	case K_INTS:
	case K_SLICE:
	case K_PAD:
	case K_WINDOW:
		for (i = 0; i < a->n; i++)
			putvarint(&p, (uint64_t)m->ints[a->v + i]);
		putlenfield(&r, 5, p.buf, p.len);
		break;
	default:
		if (a->v != HLO_ELIDED) {
			putlenfield(&r, 6, m->bytes + a->v, a->n);
		} else {
			puttag(&r, 4, 0);
			putvarint(&r, HLO_ELIDED);
		}
		break;
	}
	putlenfield(x, 3, r.buf, r.len);
	hlo_buf_free(&r);
	hlo_buf_free(&p);
}

/* attribute a of module m equals attribute b of module s */
static int
attrsame(const HloModule *m, const HloAttr *a, const HloModule *s,
	const HloAttr *b)
{
	if (a->key != b->key || a->kind != b->kind || a->n != b->n)
		return 0;
	if (a->key == A_OTHER && strcmp(hlo_cstr(m, a->name),
	    hlo_cstr(s, b->name)))
		return 0;
	switch (a->kind) {
	case K_INT:
	case K_BOOL:
		return a->v == b->v;
	case K_INTS:
	case K_SLICE:
	case K_PAD:
	case K_WINDOW:
		return !a->n || !memcmp(m->ints + a->v, s->ints + b->v,
			a->n * sizeof(int64_t));
	default:
		if (a->v == HLO_ELIDED || b->v == HLO_ELIDED)
			return a->v == b->v;
		return !a->n || !memcmp(m->bytes + a->v, s->bytes + b->v, a->n);
	}
}

static int
samekey(const HloModule *m, const HloAttr *a, const HloModule *s,
	const HloAttr *b)
{
	return a->key == b->key && (a->key != A_OTHER ||
		!strcmp(hlo_cstr(m, a->name), hlo_cstr(s, b->name)));
}

/* the edits that turn the reader's attributes r (module s) into the
 * instruction's own attributes a (module m); appended to x */
static int
attrdiff(HloBuf *x, const HloModule *m, const HloAttr *a, uint32_t na,
	const HloModule *s, const HloAttr *r, uint32_t nr)
{
	uint8_t *used = xcalloc(nr + 1, 1), *gone = xcalloc(nr + 1, 1);
	uint32_t i, j, k, *add = xreallocarray(NULL, na + 1, sizeof *add);
	uint32_t nadd = 0, ok = 1;
	size_t start = x->len;

	for (i = 0; i < na; i++) {
		for (j = 0; j < nr; j++)
			if (!used[j] && attrsame(m, &a[i], s, &r[j]))
				break;
		if (j < nr)
			used[j] = 1;
		else
			add[nadd++] = i;
	}
	for (j = 0; j < nr; j++) {
		if (used[j] || gone[j])
			continue;
		extdel(x, s, &r[j]);
		for (k = 0; k < nr; k++)
			if (samekey(s, &r[j], s, &r[k]))
				gone[k] = 1;
	}
	for (j = 0; j < nr; j++)
		if (used[j] && gone[j])
			ok = 0;
	/* the result is sorted by key with kept attributes first; it must
	 * be a's order, which matters only among A_OTHER */
	if (ok) {
		uint32_t p = 0;

		for (j = 0; j < nr && ok; j++) {
			if (r[j].key != A_OTHER || !used[j] || gone[j])
				continue;
			while (p < na && a[p].key != A_OTHER)
				p++;
			if (p == na || !attrsame(m, &a[p], s, &r[j]))
				ok = 0;
			p++;
		}
		for (i = 0; i < nadd && ok; i++) {
			if (a[add[i]].key != A_OTHER)
				continue;
			while (p < na && a[p].key != A_OTHER)
				p++;
			if (p != add[i])
				ok = 0;
			p++;
		}
	}
	if (!ok) {
		x->len = start;
		memset(gone, 0, nr);
		for (j = 0; j < nr; j++) {
			if (gone[j])
				continue;
			extdel(x, s, &r[j]);
			for (k = 0; k < nr; k++)
				if (samekey(s, &r[j], s, &r[k]))
					gone[k] = 1;
		}
		for (i = 0; i < na; i++)
			extadd(x, m, &a[i]);
	} else {
		for (i = 0; i < nadd; i++)
			extadd(x, m, &a[add[i]]);
	}
	free(used);
	free(gone);
	free(add);
	return x->len > start;
}

/* applies the edits of an instruction extension to b's list */
static int
extapply(Ab *b, const uint8_t *p, size_t n, unsigned *flags)
{
	const uint8_t *e = p + n, *q, *qe;
	WField f, g;
	int r;

	while ((r = nextfield(&p, e, &f)) > 0) {
		const uint8_t *key = NULL, *bytes = NULL, *ints = NULL;
		size_t nkey = 0, nbytes = 0, nints = 0;
		uint64_t other = 0, kind = 0, v = 0;
		int k;
		uint32_t i, j;

		if (f.num == 1 && f.wt == 0) {
			*flags = f.v;
			continue;
		}
		if ((f.num != 2 && f.num != 3) || f.wt != 2)
			continue;
		q = f.p;
		qe = f.p + f.n;
		while (nextfield(&q, qe, &g) > 0) {
			if (g.num == 1 && g.wt == 2)
				key = g.p, nkey = g.n;
			else if (g.num == 2 && g.wt == 0)
				other = g.v;
			else if (g.num == 3 && g.wt == 0)
				kind = g.v;
			else if (g.num == 4 && g.wt == 0)
				v = g.v;
			else if (g.num == 5 && g.wt == 2)
				ints = g.p, nints = g.n;
			else if (g.num == 6 && g.wt == 2)
				bytes = g.p, nbytes = g.n;
		}
		if (!key && nkey)
			return -1;
		if (other) {
			k = A_OTHER;
		} else if (nkey == 0 && kind == K_LITERAL) {
			k = A_LITERAL;
		} else if ((k = hlo_attr_by_key((const char *)(key ? key :
		    (const uint8_t *)""), nkey)) < 0 || k == A_OTHER) {
			return -1;
		}
		if (f.num == 2) {
			for (i = j = 0; i < b->n; i++) {
				if (b->v[i].key == k && (k != A_OTHER ||
				    (strlen(hlo_cstr(b->m, b->v[i].name)) ==
				    nkey && !memcmp(hlo_cstr(b->m,
				    b->v[i].name), key, nkey))))
					continue;
				b->v[j++] = b->v[i];
			}
			b->n = j;
			continue;
		}
		if (kind > K_LITERAL)
			return -1;
		{
			HloAttr a = hlo_mk_int(k == A_OTHER ? A_OTHER : k, 0);

			a.kind = kind;
			switch (kind) {
			case K_INT:
			case K_BOOL:
				a.v = (int64_t)v;
				break;
			case K_INTS:
			case K_SLICE:
			case K_PAD:
			case K_WINDOW: {
				Vec iv = {0};
				uint64_t x;
				size_t s;

				for (q = ints, qe = ints + nints; q && q < qe;
				    q += s) {
					if (!(s = getvarint(q, qe, &x))) {
						free(iv.v);
						return -1;
					}
					vpush(&iv, (int64_t)x);
				}
				if (abints(b, k, iv.v, iv.n) < 0) {
					free(iv.v);
					return -1;
				}
				free(iv.v);
				b->v[b->n - 1].kind = kind;
				a = b->v[--b->n];
				break;
			}
			default:
				if (!bytes && (uint32_t)v == HLO_ELIDED) {
					a.v = HLO_ELIDED;
					a.n = 0;
					break;
				}
				if (abtext(b, k, kind, bytes, nbytes) < 0)
					return -1;
				a = b->v[--b->n];
				break;
			}
			if (k == A_OTHER)
				a.name = strid(b->m, key, nkey);
			abpush(b, a);
		}
	}
	return r < 0 ? -1 : 0;
}

/* the reader's flags for an instruction: what the IR keeps of how XLA
 * prints its called computations */
static unsigned
rdflags(int op, uint32_t ncalled, int t0)
{
	return op == HOP_CONDITIONAL && ncalled == 2 && t0 != TY_PRED ?
		HI_BRANCHES : 0;
}

static int
wrerr(Wr *w, uint32_t c, uint32_t i, const char *what)
{
	const HloModule *m = w->m;

	return hlo_err(w->e, "error: cannot write proto: computation '%s', "
		"instruction '%s': %s", hlo_cstr(m, m->comps[c].name),
		hlo_cstr(m, m->comps[c].ins[i].name), what);
}

static int64_t *
wrrefs(Wr *w, uint32_t c, uint32_t i, uint32_t off, uint32_t n,
	const uint64_t *ids, int *bad)
{
	const HloComp *cp = &w->m->comps[c];
	int64_t *v = aallocn(&w->a, n + 1, sizeof *v);
	uint32_t k, o;

	for (k = 0; k < n; k++) {
		o = w->m->ids[off + k];
		if (o >= cp->nins || !ids[o]) {
			*bad = 1;
			return v;
		}
		v[k] = ids[o];
	}
	return v;
}

static Xla__HloInstructionProto *
wrinstr(Wr *w, uint32_t c, uint32_t i, const uint64_t *ids, Ab *rb)
{
	const HloModule *m = w->m;
	const HloComp *cp = &m->comps[c];
	const HloInstr *in = &cp->ins[i];
	const HloAttr *av = m->attrv + in->attrs;
	Xla__HloInstructionProto *ip = aalloc(&w->a, sizeof *ip);
	Sub sub;
	HloBuf x = {0};
	const char *dt;
	uint32_t k, s = 0;
	unsigned want;
	int t0 = -1, bad = 0, op = in->op;

	memset(&sub, 0, sizeof sub);
	xla__hlo_instruction_proto__init(ip);
	ip->name = (char *)hlo_cstr(m, in->name);
	ip->opcode = (char *)hlo_opinfo[op].name;
	ip->shape = wrshape(w, m, in->shape, 0);
	ip->id = ids[i];
	ip->n_operand_ids = in->nops;
	ip->operand_ids = wrrefs(w, c, i, in->ops, in->nops, ids, &bad);
	ip->n_control_predecessor_ids = in->nctrl;
	ip->control_predecessor_ids = wrrefs(w, c, i, in->ctrl, in->nctrl,
		ids, &bad);
	if (bad) {
		wrerr(w, c, i, "refers to a missing or deleted instruction");
		return NULL;
	}
	ip->n_called_computation_ids = in->ncalled;
	ip->called_computation_ids = aallocn(&w->a, in->ncalled + 1,
		sizeof(int64_t));
	for (k = 0; k < in->ncalled; k++) {
		uint32_t cc = m->ids[in->called + k];

		if (cc >= m->ncomps) {
			wrerr(w, c, i, "calls a missing computation");
			return NULL;
		}
		ip->called_computation_ids[k] = w->compid[cc];
	}
	if (in->nops)
		t0 = hlo_sh(m, cp->ins[m->ids[in->ops]].shape)->type;
	if (op == HOP_PARAMETER)
		ip->parameter_number = in->num;
	for (k = 0; k < in->nattrs; k++) {
		if (av[k].key == A_LITERAL) {
			size_t pos = 0;

			if (op == HOP_CONSTANT && av[k].kind == K_LITERAL &&
			    av[k].v != HLO_ELIDED) {
				ip->literal = wrlit(w, in->shape, (const uint8_t *)
					m->bytes + av[k].v, av[k].n, &pos, 0);
				if (pos != av[k].n)
					ip->literal = NULL;
			}
			continue;
		}
		wrattr(w, &sub, ip, op, &av[k]);
	}
	if (op == HOP_COMPARE && !*ip->comparison_type &&
	    (dt = defcmptype(t0)))
		ip->comparison_type = (char *)dt;
	if (op == HOP_CONV || op == HOP_CUSTOMCALL) {
		if (!ip->feature_group_count)
			ip->feature_group_count = 1;
		if (!ip->batch_group_count)
			ip->batch_group_count = 1;
	}
	if (op == HOP_CUSTOMCALL && !ip->custom_call_api_version)
		ip->custom_call_api_version =
			XLA__CUSTOM_CALL_API_VERSION__API_VERSION_ORIGINAL;
	if (op == HOP_DOT || op == HOP_SCALEDDOT || op == HOP_RAGGEDDOT)
		subdot(w, &sub, ip, op);
	if (op == HOP_GATHER)
		subgather(w, &sub, ip);
	if (op == HOP_SCATTER)
		subscatter(w, &sub, ip);
	if (hasprecision(op))
		subprec(w, &sub, ip);

	/* what the reader makes of it */
	if (op == HOP_CONSTANT) {
		char why[256];

		if (rdshape(w->s, ip->shape, &s, 0, why, sizeof why) < 0)
			ip->literal = NULL;
	}
	if (rdattrs(rb, ip, op, s, t0) < 0)
		rb->n = 0;
	want = in->flags & (HI_CCFLAG | HI_BRANCHES);
	if (want != rdflags(op, in->ncalled, t0)) {
		puttag(&x, 1, 0);
		putvarint(&x, want);
	}
	attrdiff(&x, m, av, in->nattrs, w->s, rb->v, rb->n);
	if (x.len)
		addext(&w->a, &ip->base, &x);
	hlo_buf_free(&x);
	return ip;
}

static Xla__ProgramShapeProto *
progshape(Wr *w, uint32_t c)
{
	const HloModule *m = w->m;
	const HloComp *cp = &m->comps[c];
	Xla__ProgramShapeProto *ps = aalloc(&w->a, sizeof *ps);
	uint32_t i, np = 0, *pi;
	int64_t num;

	xla__program_shape_proto__init(ps);
	for (i = 0; i < cp->nins; i++)
		if (cp->ins[i].op == HOP_PARAMETER &&
		    !(cp->ins[i].flags & HI_DEAD) && cp->ins[i].num >= np &&
		    cp->ins[i].num < (int64_t)cp->nins)
			np = cp->ins[i].num + 1;
	pi = xreallocarray(NULL, np + 1, sizeof *pi);
	for (i = 0; i < np; i++)
		pi[i] = HLO_NONE;
	for (i = 0; i < cp->nins; i++) {
		num = cp->ins[i].num;
		if (cp->ins[i].op == HOP_PARAMETER &&
		    !(cp->ins[i].flags & HI_DEAD) && num >= 0 && num < np)
			pi[num] = i;
	}
	ps->n_parameters = np;
	ps->parameters = aallocn(&w->a, np + 1, sizeof *ps->parameters);
	ps->n_parameter_names = np;
	ps->parameter_names = aallocn(&w->a, np + 1,
		sizeof *ps->parameter_names);
	for (i = 0; i < np; i++) {
		if (pi[i] == HLO_NONE) {
			ps->parameters[i] = aalloc(&w->a,
				sizeof *ps->parameters[i]);
			xla__shape_proto__init(ps->parameters[i]);
			ps->parameter_names[i] = "";
			continue;
		}
		ps->parameters[i] = wrshape(w, m, cp->ins[pi[i]].shape, 0);
		ps->parameter_names[i] = (char *)hlo_cstr(m,
			cp->ins[pi[i]].name);
	}
	if (cp->root < cp->nins)
		ps->result = wrshape(w, m, cp->ins[cp->root].shape, 0);
	free(pi);
	return ps;
}

static Xla__HloComputationProto *
wrcomp(Wr *w, uint32_t c, Ab *rb)
{
	const HloModule *m = w->m;
	const HloComp *cp = &m->comps[c];
	Xla__HloComputationProto *pc = aalloc(&w->a, sizeof *pc);
	uint32_t *order = xreallocarray(NULL, cp->nins + 1, sizeof *order);
	uint32_t *pos = NULL, i, k;
	uint64_t *ids = xcalloc(cp->nins + 1, sizeof *ids);
	HloBuf x = {0}, p = {0};
	int n, same = 1;

	xla__hlo_computation_proto__init(pc);
	pc->name = (char *)hlo_cstr(m, cp->name);
	pc->id = w->compid[c];
	pc->is_fusion_computation = (cp->flags & HC_FUSION) != 0;
	if (cp->thread)
		pc->execution_thread = (char *)hlo_cstr(m, cp->thread);
	if ((n = hlo_topo(m, c, order)) < 0) {
		hlo_err(w->e, "error: cannot write proto: computation '%s' "
			"has a cycle", hlo_cstr(m, cp->name));
		pc = NULL;
		goto out;
	}
	if (cp->root >= cp->nins || (cp->ins[cp->root].flags & HI_DEAD)) {
		hlo_err(w->e, "error: cannot write proto: computation '%s' "
			"has no root", hlo_cstr(m, cp->name));
		pc = NULL;
		goto out;
	}
	for (k = 0; k < (uint32_t)n; k++)
		ids[order[k]] = w->nid++;
	pc->n_instructions = n;
	pc->instructions = aallocn(&w->a, n + 1, sizeof *pc->instructions);
	for (k = 0; k < (uint32_t)n; k++)
		if (!(pc->instructions[k] = wrinstr(w, c, order[k], ids, rb))) {
			pc = NULL;
			goto out;
		}
	pc->root_id = ids[cp->root];
	pc->program_shape = progshape(w, c);
	/* the print order, when it is not the topological one */
	pos = xreallocarray(NULL, cp->nins + 1, sizeof *pos);
	for (k = 0; k < (uint32_t)n; k++)
		pos[order[k]] = k;
	for (i = 0, k = 0; i < cp->nins; i++) {
		if (cp->ins[i].flags & HI_DEAD)
			continue;
		same &= pos[i] == k;
		putvarint(&p, pos[i]);
		k++;
	}
	if (!same) {
		putlenfield(&x, 1, p.buf, p.len);
		addext(&w->a, &pc->base, &x);
	}
	if (w->sched && !(cp->flags & HC_FUSION)) {
		Xla__HloScheduleProto__SequencesEntry *e;
		Xla__HloScheduleProto__InstructionSequence *q;

		e = aalloc(&w->a, sizeof *e);
		xla__hlo_schedule_proto__sequences_entry__init(e);
		q = aalloc(&w->a, sizeof *q);
		xla__hlo_schedule_proto__instruction_sequence__init(q);
		e->key = pc->id;
		e->value = q;
		q->instruction_ids = aallocn(&w->a, n + 1,
			sizeof *q->instruction_ids);
		for (i = 0; i < cp->nins; i++)
			if (!(cp->ins[i].flags & HI_DEAD))
				q->instruction_ids[q->n_instruction_ids++] =
					ids[i];
		w->seq[w->nseq++] = e;
	}
out:
	free(order);
	free(pos);
	free(ids);
	hlo_buf_free(&x);
	hlo_buf_free(&p);
	return pc;
}

/* module header attributes as the reader derives them, in the order of
 * XLA's HloModule::ToString */

typedef struct {
	HloAttr *v;
	uint32_t n, cap;
} Hdr;

static void
hdrpush(Hdr *h, HloModule *mm, const char *key, const char *val, size_t n)
{
	HloAttr a = hlo_mk_bytes(mm, A_OTHER, K_RAW, n ? val : "", n);

	a.name = hlo_strz(mm, key);
	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 8;
		h->v = xreallocarray(h->v, h->cap, sizeof *h->v);
	}
	h->v[h->n++] = a;
}

static int
prprog(HloModule *mm, const Xla__ProgramShapeProto *ps, HloBuf *b,
	char *why, size_t nwhy)
{
	uint32_t s;
	size_t i;

	hlo_buf_puts(b, "{(");
	for (i = 0; i < ps->n_parameters; i++) {
		if (rdshape(mm, ps->parameters[i], &s, 0, why, nwhy) < 0)
			return -1;
		if (i)
			hlo_buf_put(b, ", ", 2);
		if (i && i % 5 == 0)
			hlo_buf_printf(b, "/*index=%zu*/", i);
		prshape(mm, s, b);
	}
	hlo_buf_puts(b, ")->");
	if (rdshape(mm, ps->result, &s, 0, why, nwhy) < 0)
		return -1;
	prshape(mm, s, b);
	hlo_buf_put(b, "}", 1);
	return 0;
}

static int
rdheader(HloModule *mm, const Xla__HloModuleProto *mp, Hdr *h, char *why,
	size_t nwhy)
{
	HloBuf t = {0};

	h->n = 0;
	if (mp->schedule)
		hdrpush(h, mm, "is_scheduled", "true", 4);
	if (mp->input_output_alias && mp->input_output_alias->n_entries) {
		prioalias(&t, mp->input_output_alias);
		hdrpush(h, mm, "input_output_alias", t.buf, t.len);
	}
	if (mp->buffer_donor && mp->buffer_donor->n_entries) {
		t.len = 0;
		prdonor(&t, mp->buffer_donor);
		hdrpush(h, mm, "buffer_donor", t.buf, t.len);
	}
	if (mp->host_program_shape && mp->host_program_shape->result) {
		t.len = 0;
		if (prprog(mm, mp->host_program_shape, &t, why, nwhy) < 0) {
			hlo_buf_free(&t);
			return -1;
		}
		hdrpush(h, mm, "entry_computation_layout", t.buf, t.len);
	}
	if (mp->frontend_attributes && mp->frontend_attributes->n_map) {
		t.len = 0;
		prfattrs(&t, mp->frontend_attributes);
		hdrpush(h, mm, "frontend_attributes", t.buf, t.len);
	}
	hlo_buf_free(&t);
	return 0;
}

/* {(f32[2]{0}, s32[])->f32[2]{0}} */
static Xla__ProgramShapeProto *
psprog(Wr *w, Lx *l)
{
	Xla__ProgramShapeProto *ps = aalloc(&w->a, sizeof *ps);
	Xla__ShapeProto **v = NULL;
	size_t n = 0, cap = 0;
	uint32_t s;

	xla__program_shape_proto__init(ps);
	if (!lxc(l, '{') || !lxc(l, '('))
		goto bad;
	if (!lxc(l, ')')) {
		do {
			if (!psshape(l, w->s, &s, 0))
				goto bad;
			if (n == cap) {
				cap = cap ? 2 * cap : 8;
				v = xreallocarray(v, cap, sizeof *v);
			}
			v[n++] = wrshape(w, w->s, s, 0);
		} while (lxc(l, ','));
		if (!lxc(l, ')'))
			goto bad;
	}
	if (!lxc(l, '-') || !lxc(l, '>') || !psshape(l, w->s, &s, 0) ||
	    !lxc(l, '}') || !lxend(l))
		goto bad;
	ps->result = wrshape(w, w->s, s, 0);
	ps->n_parameters = n;
	ps->parameters = aallocn(&w->a, n + 1, sizeof *v);
	if (n)
		memcpy(ps->parameters, v, n * sizeof *v);
	ps->n_parameter_names = n;
	ps->parameter_names = aallocn(&w->a, n + 1, sizeof(char *));
	for (s = 0; s < n; s++) {
		char t[32];

		snprintf(t, sizeof t, "p%u", s);
		ps->parameter_names[s] = astrndup(&w->a, t, strlen(t));
	}
	free(v);
	return ps;
bad:
	free(v);
	return NULL;
}

static int
hdrsame(const HloModule *m, const HloAttr *a, uint32_t na,
	const HloModule *s, const Hdr *h)
{
	uint32_t i;

	if (na != h->n)
		return 0;
	for (i = 0; i < na; i++)
		if (!attrsame(m, &a[i], s, &h->v[i]))
			return 0;
	return 1;
}

/* the header attributes into their proto fields */
static void
wrheader(Wr *w, Xla__HloModuleProto *mp)
{
	const HloModule *m = w->m;
	const HloAttr *a = m->attrv + m->hattrs;
	uint32_t i;

	for (i = 0; i < m->nhattrs; i++) {
		Lx l = alx(w, &a[i]);

		if (aname(m, &a[i], "is_scheduled")) {
			w->sched = lxkw(&l, "true") && lxend(&l);
		} else if (aname(m, &a[i], "entry_computation_layout")) {
			mp->host_program_shape = psprog(w, &l);
		} else if (aname(m, &a[i], "input_output_alias")) {
			Xla__HloInputOutputAliasProto *io = aalloc(&w->a,
				sizeof *io);

			if (psioalias(&l, &w->a, io))
				mp->input_output_alias = io;
		} else if (aname(m, &a[i], "buffer_donor")) {
			Xla__HloBufferDonorProto *d = aalloc(&w->a, sizeof *d);

			if (psdonor(&l, &w->a, d))
				mp->buffer_donor = d;
		} else if (aname(m, &a[i], "frontend_attributes")) {
			Xla__FrontendAttributes *fa = aalloc(&w->a,
				sizeof *fa);

			if (psfattrs(&l, &w->a, fa) && lxend(&l))
				mp->frontend_attributes = fa;
		}
	}
}

/* module extension: 1 header attributes {1 key, 2 value}, 4 = 1 when
 * they replace the derived ones, 2 verbatim frame tables, 3 print order
 * of computations (proto positions) */
static void
wrmodext(Wr *w, Xla__HloModuleProto *mp, const uint32_t *order, uint32_t n)
{
	const HloModule *m = w->m;
	HloBuf x = {0}, r = {0}, t = {0};
	Hdr h = {0};
	char why[256];
	uint32_t i;
	int same = 1;

	if (rdheader(w->s, mp, &h, why, sizeof why) < 0 ||
	    !hdrsame(m, m->attrv + m->hattrs, m->nhattrs, w->s, &h)) {
		const HloAttr *a = m->attrv + m->hattrs;

		for (i = 0; i < m->nhattrs; i++) {
			const char *k = hlo_cstr(m, a[i].name);

			r.len = 0;
			putlenfield(&r, 1, k, strlen(k));
			if (a[i].v != HLO_ELIDED && a[i].kind >= K_WORD)
				putlenfield(&r, 2, m->bytes + a[i].v, a[i].n);
			putlenfield(&x, 1, r.buf, r.len);
		}
		puttag(&x, 4, 0);
		putvarint(&x, 1);
	}
	if (m->frames) {
		const char *f = hlo_cstr(m, m->frames);
		Xla__StackFrameIndexProto *sf = aalloc(&w->a, sizeof *sf);

		if (psframes(f, strlen(f), &w->a, sf)) {
			mp->stack_frame_index = sf;
			prframes(&t, sf);
		}
		if (t.len != strlen(f) || memcmp(t.buf, f, t.len))
			putlenfield(&x, 2, f, strlen(f));
	}
	r.len = 0;
	for (i = 0; i < n; i++) {
		same &= order[i] == i;
		putvarint(&r, w->compid[i] - 1);
	}
	if (!same)
		putlenfield(&x, 3, r.buf, r.len);
	if (x.len)
		addext(&w->a, &mp->base, &x);
	free(h.v);
	hlo_buf_free(&x);
	hlo_buf_free(&r);
	hlo_buf_free(&t);
}

int
hlo_write_proto(const HloModule *m, HloBuf *b, HloError *e)
{
	Xla__HloModuleProto mp;
	Xla__HloScheduleProto *sp;
	Wr w;
	Ab rb;
	uint32_t *order = NULL, k;
	size_t size;
	int n, r = -1;

	if (m->entry >= m->ncomps)
		return hlo_err(e, "error: cannot write proto: the module has "
			"no entry computation");
	memset(&w, 0, sizeof w);
	memset(&rb, 0, sizeof rb);
	w.m = m;
	w.s = hlo_module_new();
	w.e = e;
	w.nid = 1;
	w.shcache = xcalloc(m->nshapes + 1, sizeof *w.shcache);
	w.compid = xcalloc(m->ncomps + 1, sizeof *w.compid);
	w.seq = aallocn(&w.a, m->ncomps + 1, sizeof *w.seq);
	rb.m = w.s;
	order = xreallocarray(NULL, m->ncomps + 1, sizeof *order);
	if ((n = hlo_comp_order_all(m, order)) < 0 ||
	    (uint32_t)n != m->ncomps) {
		hlo_err(e, "error: cannot write proto: computations call each "
			"other in a cycle");
		goto out;
	}
	for (k = 0; k < m->ncomps; k++)
		w.compid[order[k]] = k + 1;
	xla__hlo_module_proto__init(&mp);
	mp.name = (char *)hlo_cstr(m, m->name);
	wrheader(&w, &mp);
	mp.n_computations = m->ncomps;
	mp.computations = aallocn(&w.a, m->ncomps + 1,
		sizeof *mp.computations);
	for (k = 0; k < m->ncomps; k++)
		if (!(mp.computations[k] = wrcomp(&w, order[k], &rb)))
			goto out;
	mp.entry_computation_name = (char *)hlo_cstr(m,
		m->comps[m->entry].name);
	mp.entry_computation_id = w.compid[m->entry];
	if (!mp.host_program_shape)
		mp.host_program_shape = progshape(&w, m->entry);
	if (w.sched) {
		sp = aalloc(&w.a, sizeof *sp);
		xla__hlo_schedule_proto__init(sp);
		sp->n_sequences = w.nseq;
		sp->sequences = w.seq;
		mp.schedule = sp;
	}
	wrmodext(&w, &mp, order, m->ncomps);
	size = xla__hlo_module_proto__get_packed_size(&mp);
	if (size > SIZE_MAX / 2 - b->len) {
		hlo_err(e, "error: cannot write proto: module too large");
		goto out;
	}
	if (b->len + size + 1 > b->cap) {
		b->buf = xreallocarray(b->buf, b->len + size + 1, 1);
		b->cap = b->len + size + 1;
	}
	xla__hlo_module_proto__pack(&mp, (uint8_t *)b->buf + b->len);
	b->len += size;
	r = 0;
out:
	free(order);
	free(w.shcache);
	free(w.compid);
	free(rb.v);
	hlo_buf_free(&rb.t);
	hlo_module_free(w.s);
	afree(&w.a);
	return r;
}

/* the reader */

typedef struct {
	int64_t id;
	uint32_t pos;
} Idp;

static int
cmpidp(const void *a, const void *b)
{
	const Idp *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* position of id: -1 missing, -2 ambiguous */
static int64_t
idfind(const Idp *v, size_t n, int64_t id)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n || v[lo].id != id)
		return -1;
	if (lo + 1 < n && v[lo + 1].id == id)
		return -2;
	return v[lo].pos;
}

typedef struct {
	HloModule *m;
	const char *fname;
	HloError *e;
	Ab b;
	const Xla__HloModuleProto *mp;
	Idp *cid;		/* computation ids */
	uint32_t *c2ir;		/* proto position -> computation index */
} Rd;

static int
rderr(Rd *r, const char *comp, const char *ins, const char *what)
{
	if (ins)
		return hlo_err(r->e, "%s: error: computation '%s', instruction "
			"'%s': %s", r->fname, comp, ins, what);
	return hlo_err(r->e, "%s: error: computation '%s': %s", r->fname,
		comp, what);
}

/* a permutation of 0..n-1 from packed varints p..e into perm */
static int
getperm(const uint8_t *p, const uint8_t *e, uint32_t *perm, size_t n)
{
	uint8_t *seen = xcalloc(n + 1, 1);
	uint64_t v;
	size_t k = 0, s;
	int ok = 0;

	while (p < e) {
		if (!(s = getvarint(p, e, &v)) || k == n || v >= n || seen[v])
			goto out;
		seen[v] = 1;
		perm[k++] = v;
		p += s;
	}
	ok = k == n;
out:
	free(seen);
	return ok;
}

/* the print order of computation pc's instructions: order[j] is the
 * proto position of instruction j */
static void
instrorder(Rd *r, const Xla__HloComputationProto *pc, uint32_t *order,
	const Idp *ids)
{
	const uint8_t *p, *e;
	size_t n = pc->n_instructions, xn, i, k;
	WField f;

	if (getext(&pc->base, &p, &xn)) {
		e = p + xn;
		while (nextfield(&p, e, &f) > 0)
			if (f.num == 1 && f.wt == 2 &&
			    getperm(f.p, f.p + f.n, order, n))
				return;
	}
	if (r->mp->schedule) {
		const Xla__HloScheduleProto *sp = r->mp->schedule;

		for (i = 0; i < sp->n_sequences; i++) {
			const Xla__HloScheduleProto__InstructionSequence *q =
				sp->sequences[i]->value;
			uint8_t *seen;
			int64_t pos;
			int ok = 1;

			if (sp->sequences[i]->key != pc->id || !q ||
			    q->n_instruction_ids != n)
				continue;
			seen = xcalloc(n + 1, 1);
			for (k = 0; k < n && ok; k++) {
				pos = idfind(ids, n, q->instruction_ids[k]);
				if (pos < 0 || seen[pos])
					ok = 0;
				else
					seen[pos] = 1, order[k] = pos;
			}
			free(seen);
			if (ok)
				return;
		}
	}
	for (k = 0; k < n; k++)
		order[k] = k;
}

static int
rdrefs(Rd *r, const int64_t *v, size_t n, const Idp *ids, size_t nids,
	const uint32_t *pos2i, uint32_t *out)
{
	size_t k;
	int64_t p;

	for (k = 0; k < n; k++) {
		if ((p = idfind(ids, nids, v[k])) < 0)
			return -1;
		out[k] = pos2i[p];
	}
	return 0;
}

static int
rdcomp(Rd *r, uint32_t c, const Xla__HloComputationProto *pc)
{
	HloModule *m = r->m;
	size_t n = pc->n_instructions, j, k, nmax;
	Idp *ids = xreallocarray(NULL, n + 1, sizeof *ids);
	uint32_t *order = xreallocarray(NULL, n + 1, sizeof *order);
	uint32_t *pos2i = xreallocarray(NULL, n + 1, sizeof *pos2i);
	uint32_t *refs = NULL, s;
	const uint8_t *xp;
	size_t xn;
	char why[256];
	int ret = -1, t0;
	int64_t root;

	if (n > UINT32_MAX / 16) {
		rderr(r, pc->name, NULL, "too many instructions");
		goto out;
	}
	for (j = 0; j < n; j++) {
		ids[j].id = pc->instructions[j]->id;
		ids[j].pos = j;
	}
	qsort(ids, n, sizeof *ids, cmpidp);
	instrorder(r, pc, order, ids);
	if (n > m->comps[c].cap) {
		m->comps[c].ins = xreallocarray(m->comps[c].ins, n,
			sizeof *m->comps[c].ins);
		m->comps[c].cap = n;
	}
	for (j = 0; j < n; j++) {
		const Xla__HloInstructionProto *ip = pc->instructions[order[j]];
		int op = hlo_op_by_name(ip->opcode, strlen(ip->opcode));
		uint32_t i;

		if (op < 0) {
			snprintf(why, sizeof why, "unknown opcode '%s'",
				ip->opcode);
			rderr(r, pc->name, ip->name, why);
			goto out;
		}
		if (rdshape(m, ip->shape, &s, 0, why, sizeof why) < 0) {
			rderr(r, pc->name, ip->name, why);
			goto out;
		}
		i = hlo_instr_add(m, c, op, s, hlo_strz(m, ip->name), 0, NULL);
		if (op == HOP_PARAMETER)
			m->comps[c].ins[i].num = ip->parameter_number;
		pos2i[order[j]] = i;
	}
	for (j = 0; j < n; j++) {
		const Xla__HloInstructionProto *ip = pc->instructions[order[j]];
		HloInstr *in = &m->comps[c].ins[j];
		unsigned flags;

		nmax = ip->n_operand_ids;
		if (ip->n_control_predecessor_ids > nmax)
			nmax = ip->n_control_predecessor_ids;
		if (ip->n_called_computation_ids > nmax)
			nmax = ip->n_called_computation_ids;
		if (nmax > UINT32_MAX / 16) {
			rderr(r, pc->name, ip->name, "too many operands");
			goto out;
		}
		refs = xreallocarray(refs, nmax + 1, sizeof *refs);
		if (rdrefs(r, ip->operand_ids, ip->n_operand_ids, ids, n, pos2i,
		    refs) < 0) {
			rderr(r, pc->name, ip->name, "unknown or ambiguous "
				"operand id");
			goto out;
		}
		if (ip->n_operand_ids)
			hlo_set_operands(m, c, j, ip->n_operand_ids, refs);
		if (rdrefs(r, ip->control_predecessor_ids,
		    ip->n_control_predecessor_ids, ids, n, pos2i, refs) < 0) {
			rderr(r, pc->name, ip->name, "unknown or ambiguous "
				"control predecessor id");
			goto out;
		}
		if (ip->n_control_predecessor_ids)
			hlo_set_ctrl(m, c, j, ip->n_control_predecessor_ids,
				refs);
		for (k = 0; k < ip->n_called_computation_ids; k++) {
			int64_t p = idfind(r->cid, r->mp->n_computations,
				ip->called_computation_ids[k]);

			if (p < 0) {
				rderr(r, pc->name, ip->name, "unknown or "
					"ambiguous called computation id");
				goto out;
			}
			refs[k] = r->c2ir[p];
		}
		if (ip->n_called_computation_ids)
			hlo_set_called(m, c, j, ip->n_called_computation_ids,
				refs);
		in = &m->comps[c].ins[j];
		t0 = -1;
		if (in->nops)
			t0 = hlo_sh(m, m->comps[c].ins[m->ids[in->ops]].shape)->type;
		if (rdattrs(&r->b, ip, in->op, in->shape, t0) < 0) {
			rderr(r, pc->name, ip->name, r->b.why);
			goto out;
		}
		flags = rdflags(in->op, in->ncalled, t0);
		if (getext(&ip->base, &xp, &xn) &&
		    extapply(&r->b, xp, xn, &flags) < 0) {
			rderr(r, pc->name, ip->name, "bad hlopt extension");
			goto out;
		}
		hlo_set_attrs(m, c, j, r->b.n, r->b.v);
		m->comps[c].ins[j].flags = flags & (HI_CCFLAG | HI_BRANCHES);
	}
	root = idfind(ids, n, pc->root_id);
	if (root == -1 && n && pc->root_id == 0)
		root = n - 1;
	if (root < 0) {
		rderr(r, pc->name, NULL, "unknown root id");
		goto out;
	}
	m->comps[c].root = pos2i[root];
	ret = 0;
out:
	free(ids);
	free(order);
	free(pos2i);
	free(refs);
	return ret;
}

static void
pushhattrs(HloModule *m, const HloAttr *v, uint32_t n)
{
	if (m->nattrv + (uint64_t)n > UINT32_MAX / 2) {
		fputs("hlopt: error: module too large\n", stderr);
		exit(1);
	}
	if (m->nattrv + n > m->capattrv) {
		m->capattrv = (m->nattrv + n) * 2 + 16;
		m->attrv = xreallocarray(m->attrv, m->capattrv,
			sizeof *m->attrv);
	}
	if (n)
		memcpy(m->attrv + m->nattrv, v, n * sizeof *v);
	m->hattrs = m->nattrv;
	m->nhattrs = n;
	m->nattrv += n;
}

/* module extension: header attributes, frames, computation order */
static int
rdmodext(Rd *r, Hdr *h, int *hset, uint32_t *corder, int *cset)
{
	const Xla__HloModuleProto *mp = r->mp;
	const uint8_t *p, *e, *q, *qe;
	size_t n;
	WField f, g;

	*hset = *cset = 0;
	if (!getext(&mp->base, &p, &n))
		return 0;
	e = p + n;
	h->n = 0;
	while (nextfield(&p, e, &f) > 0) {
		if (f.num == 1 && f.wt == 2) {
			const uint8_t *k = NULL, *v = NULL;
			size_t nk = 0, nv = 0;
			char *key;

			q = f.p;
			qe = f.p + f.n;
			while (nextfield(&q, qe, &g) > 0) {
				if (g.num == 1 && g.wt == 2)
					k = g.p, nk = g.n;
				else if (g.num == 2 && g.wt == 2)
					v = g.p, nv = g.n;
			}
			key = xmalloc(nk + 1);
			if (nk)
				memcpy(key, k, nk);
			key[nk] = 0;
			hdrpush(h, r->m, key, (const char *)v, nv);
			free(key);
		} else if (f.num == 4 && f.wt == 0) {
			*hset = f.v != 0;
		} else if (f.num == 2 && f.wt == 2) {
			r->m->frames = strid(r->m, f.p, f.n);
		} else if (f.num == 3 && f.wt == 2) {
			*cset = getperm(f.p, f.p + f.n, corder,
				mp->n_computations);
		}
	}
	return 0;
}

static int
convert(Rd *r, const Xla__HloModuleProto *mp)
{
	HloModule *m = r->m;
	size_t nc = mp->n_computations, k;
	uint32_t *corder = NULL, c;
	Hdr h = {0};
	char why[256];
	int hset, cset, ret = -1;
	int64_t ent;

	r->mp = mp;
	if (!nc)
		return hlo_err(r->e, "%s: error: the module has no "
			"computations", r->fname);
	if (nc > UINT32_MAX / 16)
		return hlo_err(r->e, "%s: error: too many computations",
			r->fname);
	m->name = hlo_strz(m, mp->name);
	r->cid = xreallocarray(NULL, nc, sizeof *r->cid);
	r->c2ir = xreallocarray(NULL, nc, sizeof *r->c2ir);
	corder = xreallocarray(NULL, nc, sizeof *corder);
	for (k = 0; k < nc; k++) {
		r->cid[k].id = mp->computations[k]->id;
		r->cid[k].pos = k;
	}
	qsort(r->cid, nc, sizeof *r->cid, cmpidp);
	rdmodext(r, &h, &hset, corder, &cset);
	if (!cset)
		for (k = 0; k < nc; k++)
			corder[k] = k;
	/* corder[ir index] = proto position */
	for (k = 0; k < nc; k++) {
		const Xla__HloComputationProto *pc;

		pc = mp->computations[corder[k]];
		c = hlo_comp_add(m, hlo_strz(m, pc->name));
		m->comps[c].flags = pc->is_fusion_computation ? HC_FUSION : 0;
		if (*pc->execution_thread)
			m->comps[c].thread = hlo_strz(m, pc->execution_thread);
		r->c2ir[corder[k]] = c;
	}
	for (k = 0; k < nc; k++)
		if (rdcomp(r, k, mp->computations[corder[k]]) < 0)
			goto out;
	ent = idfind(r->cid, nc, mp->entry_computation_id);
	if (ent < 0 && *mp->entry_computation_name) {
		for (k = 0; k < nc; k++)
			if (!strcmp(mp->computations[k]->name,
			    mp->entry_computation_name))
				break;
		ent = k < nc ? (int64_t)k : -1;
	}
	if (ent < 0)
		ent = nc - 1;
	m->entry = r->c2ir[ent];
	if (!hset) {
		if (rdheader(m, mp, &h, why, sizeof why) < 0) {
			hlo_err(r->e, "%s: error: module header: %s", r->fname,
				why);
			goto out;
		}
	}
	pushhattrs(m, h.v, h.n);
	if (!m->frames && mp->stack_frame_index) {
		HloBuf t = {0};

		prframes(&t, mp->stack_frame_index);
		m->frames = strid(m, t.buf, t.len);
		hlo_buf_free(&t);
	}
	ret = 0;
out:
	free(corder);
	free(h.v);
	free(r->cid);
	free(r->c2ir);
	return ret;
}

/* protobuf-c allocates the unpacked message from an arena, freed whole */
static void *
pcalloc(void *ud, size_t n)
{
	return aalloc(ud, n ? n : 1);
}

static void
pcfree(void *ud, void *p)
{
	(void)ud;
	(void)p;
}

int
hlo_read_proto(const void *data, size_t n, const char *fname,
	HloModule **out, HloError *e)
{
	const uint8_t *p = data, *end = p + n;
	ProtobufCAllocator al = {pcalloc, pcfree, NULL};
	Xla__HloModuleProto *mp;
	Arena arena = {NULL};
	Walk w;
	Rd r;
	int ret;

	*out = NULL;
	if (!fname)
		fname = "<proto>";
	if (!ismodule(p, end)) {
		unwrap(&p, &end);
		memset(&w, 0, sizeof w);
		w.base = data;
		if (walkmsg(&w, &xla__hlo_module_proto__descriptor, p, end,
		    0) < 0)
			return hlo_err(e, "%s: error: malformed proto at byte "
				"%zu: %s", fname, w.off, w.why);
	}
	al.allocator_data = &arena;
	mp = xla__hlo_module_proto__unpack(&al, end - p, p);
	if (!mp) {
		afree(&arena);
		return hlo_err(e, "%s: error: malformed proto: protobuf-c cannot "
			"unpack it as xla.HloModuleProto", fname);
	}
	memset(&r, 0, sizeof r);
	r.m = hlo_module_new();
	r.fname = fname;
	r.e = e;
	r.b.m = r.m;
	ret = convert(&r, mp);
	afree(&arena);
	free(r.b.v);
	hlo_buf_free(&r.b.t);
	if (ret < 0) {
		hlo_module_free(r.m);
		return -1;
	}
	*out = r.m;
	return 0;
}
