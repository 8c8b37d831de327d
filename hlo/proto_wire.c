/* proto_wire.c: the protobuf wire format below protobuf-c: the writer's
 * arena, varints and fields, the schema-aware walk that finds the first bad
 * byte, recognising HloModuleProto inside the HloProto / HloSnapshot
 * wrappers, and hlopt's private extension field (number EXT). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

/* arena: the writer's messages live here until they are packed */

void *
hlo_aalloc(Arena *a, size_t n)
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

void *
hlo_aallocn(Arena *a, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / 2 / size)
		xnomem();
	return hlo_aalloc(a, n * size);
}

static void *
azalloc(Arena *a, size_t n, size_t size)
{
	void *p = hlo_aallocn(a, n, size);

	memset(p, 0, n * size);
	return p;
}

char *
hlo_astrndup(Arena *a, const char *s, size_t n)
{
	char *p = hlo_aalloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

void
hlo_afree(Arena *a)
{
	Chunk *c, *n;

	for (c = a->head; c; c = n) {
		n = c->next;
		free(c);
	}
	a->head = NULL;
}

/* growable int64 vector */

void
hlo_vpush(Vec *v, int64_t x)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 16;
		v->v = xreallocarray(v->v, v->cap, sizeof *v->v);
	}
	v->v[v->n++] = x;
}

int64_t *
hlo_adupvec(Arena *a, const int64_t *v, size_t n)
{
	int64_t *p = hlo_aallocn(a, n ? n : 1, sizeof *p);

	if (n)
		memcpy(p, v, n * sizeof *p);
	return p;
}

void *
hlo_adupn(Arena *a, const void *p, size_t n, size_t size)
{
	void *q = hlo_aallocn(a, n + 1, size);

	if (n)
		memcpy(q, p, n * size);
	return q;
}

/* wire format helpers */

void
hlo_putvarint(HloBuf *b, uint64_t v)
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

void
hlo_puttag(HloBuf *b, uint32_t field, int wt)
{
	hlo_putvarint(b, (uint64_t)field << 3 | wt);
}

void
hlo_putlenfield(HloBuf *b, uint32_t field, const void *p, size_t n)
{
	hlo_puttag(b, field, 2);
	hlo_putvarint(b, n);
	hlo_buf_put(b, p, n);
}

/* reads a varint; 0 when truncated or longer than 10 bytes */
size_t
hlo_getvarint(const uint8_t *p, const uint8_t *e, uint64_t *v)
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

/* the next field at *pp; 1 ok, 0 at the end, -1 malformed */
int
hlo_nextfield(const uint8_t **pp, const uint8_t *e, WField *f)
{
	const uint8_t *p = *pp;
	uint64_t tag, len;
	size_t k;

	if (p >= e)
		return 0;
	if (!(k = hlo_getvarint(p, e, &tag)) || (tag >> 3) == 0 ||
	    (tag >> 3) > 0x1fffffff)
		return -1;
	p += k;
	f->num = tag >> 3;
	f->wt = tag & 7;
	f->p = NULL;
	f->n = 0;
	switch (f->wt) {
	case 0:
		if (!(k = hlo_getvarint(p, e, &f->v)))
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
		if (!(k = hlo_getvarint(p, e, &len)) || len > (uint64_t)(e - p - k))
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
			if (!(k = hlo_getvarint(p, e, &v)))
				return 0;
		return 1;
	}
	fs = fixedsize(fd->type);
	if ((fs == 4 && f->wt == 5) || (fs == 8 && f->wt == 1))
		return 1;
	return rep && fs && f->wt == 2 && f->n % fs == 0;
}

int
hlo_walkmsg(Walk *w, const ProtobufCMessageDescriptor *d, const uint8_t *p,
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
		if ((r = hlo_nextfield(&p, e, &f)) == 0)
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
		    hlo_walkmsg(w, fd->descriptor, f.p, f.p + f.n, depth + 1) < 0)
			return -1;
	}
}

/* a well-formed HloModuleProto with computations and a plain name */
int
hlo_ismodule(const uint8_t *p, const uint8_t *e)
{
	Walk w = {p, 0, ""};
	const uint8_t *q = p;
	WField f;
	size_t i;
	int comps = 0;

	if (hlo_walkmsg(&w, &xla__hlo_module_proto__descriptor, p, e, 0) < 0)
		return 0;
	while (hlo_nextfield(&q, e, &f) > 0) {
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
void
hlo_unwrap(const uint8_t **pp, const uint8_t **pe)
{
	const uint8_t *p = *pp, *e = *pe, *q;
	WField f;
	int depth, r;

	for (depth = 0; depth < 3; depth++) {
		if (hlo_ismodule(p, e))
			break;
		q = p;
		while ((r = hlo_nextfield(&q, e, &f)) > 0 && f.num != 1)
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


static void *
pcalloc(void *ud, size_t n)
{
	return hlo_aalloc(ud, n ? n : 1);
}

static void
pcfree(void *ud, void *p)
{
	(void)ud;
	(void)p;
}

/* protobuf-c allocating an unpacked message from arena a, freed whole */
ProtobufCAllocator
hlo_pcallocator(Arena *a)
{
	ProtobufCAllocator al = {pcalloc, pcfree, NULL};

	al.allocator_data = a;
	return al;
}

protobuf_c_boolean *
hlo_abools(Arena *a, size_t n)
{
	return azalloc(a, n ? n : 1, sizeof(protobuf_c_boolean));
}

/* the private extension as an unknown field of message msg */
void
hlo_addext(Arena *a, ProtobufCMessage *msg, const HloBuf *x)
{
	ProtobufCMessageUnknownField *u;
	HloBuf pre = {0};
	uint8_t *d;

	hlo_putvarint(&pre, x->len);
	d = hlo_aalloc(a, pre.len + x->len);
	memcpy(d, pre.buf, pre.len);
	if (x->len)
		memcpy(d + pre.len, x->buf, x->len);
	u = hlo_aalloc(a, sizeof *u * (msg->n_unknown_fields + 1));
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
int
hlo_getext(const ProtobufCMessage *msg, const uint8_t **p, size_t *n)
{
	const ProtobufCMessageUnknownField *u;
	uint64_t len;
	unsigned i;
	size_t k;

	for (i = 0; i < msg->n_unknown_fields; i++) {
		u = &msg->unknown_fields[i];
		if (u->tag != EXT || u->wire_type != LENPREF)
			continue;
		if (!(k = hlo_getvarint(u->data, u->data + u->len, &len)) ||
		    len != u->len - k)
			continue;
		*p = u->data + k;
		*n = len;
		return 1;
	}
	return 0;
}
