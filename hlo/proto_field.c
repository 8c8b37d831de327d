/* proto_field.c: instruction attributes that map one to one to a field
 * of xla.HloInstructionProto. hlo/attrs.def names the field (its last
 * column); protobuf-c's field descriptors say where the field lives and
 * what type it has, and the functions here read and write it, so that no
 * such attribute needs a hand-written case in either direction. */
#include <stdlib.h>
#include <string.h>

#include "proto.h"

static const char *const fieldpath[A_COUNT] = {
#define ATTR(e, key, kind, flags, field) field,
#include "attrs.def"
#undef ATTR
};

/* the object of type T at byte offset off of message msg */
#define AT(msg, off, T) (*(T *)((char *)(msg) + (off)))

/* the field path of attribute key in xla.HloInstructionProto, "" if
 * none (attrs.def) */
const char *
hlo_attr_path(int key)
{
	return fieldpath[key];
}

/* the field at path ("field" or "sub.field") of message type d; for
 * "sub.field", *sub is the field of the sub-message. NULL if none */
const ProtobufCFieldDescriptor *
hlo_pbfield(const ProtobufCMessageDescriptor *d, const char *path,
	const ProtobufCFieldDescriptor **sub)
{
	const char *dot;
	char name[64];
	size_t n;

	*sub = NULL;
	if (!path || !*path)
		return NULL;
	if ((dot = strchr(path, '.'))) {
		if ((n = dot - path) >= sizeof name)
			return NULL;
		memcpy(name, path, n);
		name[n] = 0;
		*sub = protobuf_c_message_descriptor_get_field_by_name(d, name);
		if (!*sub || (*sub)->type != PROTOBUF_C_TYPE_MESSAGE)
			return NULL;
		d = (*sub)->descriptor;
		path = dot + 1;
	}
	return protobuf_c_message_descriptor_get_field_by_name(d, path);
}

/* the sub-message of field fd of msg, created empty when absent */
ProtobufCMessage *
hlo_pbsub(Arena *a, ProtobufCMessage *msg, const ProtobufCFieldDescriptor *fd)
{
	ProtobufCMessage **p = &AT(msg, fd->offset, ProtobufCMessage *);
	const ProtobufCMessageDescriptor *d = fd->descriptor;

	if (!*p) {
		*p = hlo_aalloc(a, d->sizeof_message);
		protobuf_c_message_init(d, *p);
	}
	return *p;
}

/* the sub-message called name of msg, created empty when absent */
ProtobufCMessage *
hlo_pbsubname(Arena *a, ProtobufCMessage *msg, const char *name)
{
	return hlo_pbsub(a, msg, protobuf_c_message_descriptor_get_field_by_name(
		msg->descriptor, name));
}

/* a field's value as a number: scalars their value, strings and bytes
 * their length, repeated fields their count */
int64_t
hlo_field_num(const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *fd)
{
	if (fd->label == PROTOBUF_C_LABEL_REPEATED)
		return (int64_t)AT(msg, fd->quantifier_offset, size_t);
	switch (fd->type) {
	case PROTOBUF_C_TYPE_INT64:
		return AT(msg, fd->offset, int64_t);
	case PROTOBUF_C_TYPE_INT32:
		return AT(msg, fd->offset, int32_t);
	case PROTOBUF_C_TYPE_ENUM:
		return AT(msg, fd->offset, int);
	case PROTOBUF_C_TYPE_BOOL:
		return AT(msg, fd->offset, protobuf_c_boolean) != 0;
	case PROTOBUF_C_TYPE_STRING:
		return (int64_t)strlen(AT(msg, fd->offset, const char *));
	case PROTOBUF_C_TYPE_BYTES:
		return (int64_t)AT(msg, fd->offset, ProtobufCBinaryData).len;
	default:
		return 0;
	}
}

/* the spelling of enum value v of field fd, into t; 0 if v has none */
static int
enumname(const ProtobufCFieldDescriptor *fd, int key, int v, HloBuf *t)
{
	const ProtobufCEnumValue *ev;
	size_t i;
	char c;

	if (!(ev = protobuf_c_enum_descriptor_get_value(fd->descriptor, v)))
		return 0;
	t->len = 0;
	for (i = 0; ev->name[i]; i++) {
		c = ev->name[i];
		if ((hlo_attrinfo[key].flags & AF_LOWER) && c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		hlo_buf_put(t, &c, 1);
	}
	return 1;
}

/* the value of the enum field fd spelled s[0..n), -1 if none is */
static int
enumvalue(const ProtobufCFieldDescriptor *fd, int key, const char *s,
	size_t n)
{
	const ProtobufCEnumDescriptor *ed = fd->descriptor;
	const char *nm;
	unsigned i;
	size_t k;
	char c;

	for (i = 0; i < ed->n_values; i++) {
		nm = ed->values[i].name;
		for (k = 0; k < n && nm[k]; k++) {
			c = nm[k];
			if ((hlo_attrinfo[key].flags & AF_LOWER) && c >= 'A' &&
			    c <= 'Z')
				c += 'a' - 'A';
			if (c != s[k])
				break;
		}
		if (k == n && !nm[k])
			return ed->values[i].value;
	}
	return -1;
}

/* attribute key from field fd of msg onto b's list; -1 with b->why when
 * an enum value has no name */
int
hlo_abfield(Ab *b, const ProtobufCMessage *msg,
	const ProtobufCFieldDescriptor *fd, int key, int op)
{
	const char *s;
	ProtobufCBinaryData d;
	int kind = hlo_attrinfo[key].kind;

	if (fd->label == PROTOBUF_C_LABEL_REPEATED)
		return hlo_abints(b, key, AT(msg, fd->offset, const int64_t *),
			AT(msg, fd->quantifier_offset, size_t));
	switch (fd->type) {
	case PROTOBUF_C_TYPE_STRING:
		s = AT(msg, fd->offset, const char *);
		return hlo_abtext(b, key, kind, s, strlen(s));
	case PROTOBUF_C_TYPE_BYTES:
		d = AT(msg, fd->offset, ProtobufCBinaryData);
		return hlo_abtext(b, key, kind, d.data, d.len);
	case PROTOBUF_C_TYPE_ENUM:
		if (!enumname(fd, key, AT(msg, fd->offset, int), &b->t)) {
			snprintf(b->why, sizeof b->why, "bad enum value in %s",
				hlo_opinfo[op].name);
			return -1;
		}
		return hlo_abtext(b, key, kind, b->t.buf, b->t.len);
	default:
		hlo_abpush(b, hlo_mk_int(key, hlo_field_num(msg, fd)));
		return 0;
	}
}

/* the bytes of attribute a as a NUL-terminated string in the arena, or
 * NULL (elided, or holding a NUL) */
char *
hlo_aword(Wr *w, const HloAttr *a)
{
	if (a->v == HLO_ELIDED)
		return NULL;
	if (a->n && memchr(w->m->bytes + a->v, 0, a->n))
		return NULL;
	return hlo_astrndup(&w->a, w->m->bytes + a->v, a->n);
}

/* attribute a into the field at path of ip (NULL: the one attrs.def
 * names); 0 if there is none. a value the field cannot hold (a bad enum
 * name, a string with a NUL) leaves it unset */
int
hlo_wrfield(Wr *w, ProtobufCMessage *ip, const HloAttr *a, const char *path)
{
	const ProtobufCFieldDescriptor *sub, *fd;
	ProtobufCMessage *msg;
	ProtobufCBinaryData d;
	char *str = NULL;
	int t = 0;

	if (a->key == A_OTHER || !(fd = hlo_pbfield(ip->descriptor, path ?
	    path : fieldpath[a->key], &sub)))
		return 0;
	if (fd->type == PROTOBUF_C_TYPE_STRING &&
	    fd->label != PROTOBUF_C_LABEL_REPEATED && !(str = hlo_aword(w, a)))
		return 1;
	if (fd->type == PROTOBUF_C_TYPE_ENUM && (a->v == HLO_ELIDED ||
	    (t = enumvalue(fd, a->key, w->m->bytes + a->v, a->n)) < 0))
		return 1;
	msg = sub ? hlo_pbsub(&w->a, ip, sub) : ip;
	if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
		AT(msg, fd->quantifier_offset, size_t) = a->n;
		AT(msg, fd->offset, int64_t *) = hlo_adupvec(&w->a,
			w->m->ints + a->v, a->n);
		return 1;
	}
	switch (fd->type) {
	case PROTOBUF_C_TYPE_INT64:
		AT(msg, fd->offset, int64_t) = a->v;
		break;
	case PROTOBUF_C_TYPE_INT32:
		AT(msg, fd->offset, int32_t) = (int32_t)a->v;
		break;
	case PROTOBUF_C_TYPE_BOOL:
		AT(msg, fd->offset, protobuf_c_boolean) = a->v != 0;
		break;
	case PROTOBUF_C_TYPE_ENUM:
		AT(msg, fd->offset, int) = t;
		break;
	case PROTOBUF_C_TYPE_STRING:
		AT(msg, fd->offset, char *) = str;
		break;
	case PROTOBUF_C_TYPE_BYTES:
		d.len = a->v == HLO_ELIDED ? 0 : a->n;
		d.data = d.len ? (uint8_t *)w->m->bytes + a->v : NULL;
		AT(msg, fd->offset, ProtobufCBinaryData) = d;
		break;
	default:
		break;
	}
	return 1;
}
