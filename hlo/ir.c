/* ir.c: the module, its pools and intern tables, computations,
 * instructions and attributes, and the derived data computed on demand
 * (users, topological order, call order). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"

const HloOpInfo hlo_opinfo[HOP_COUNT] = {
#define OP(e, name, arity, flags, fam) {name, arity, flags, fam},
#include "ops.def"
#undef OP
};

const HloTypeInfo hlo_typeinfo[TY_COUNT] = {
#define TY(e, name, num, bits, cls) {name, num, bits, cls},
#include "types.def"
#undef TY
};

const HloAttrInfo hlo_attrinfo[A_COUNT] = {
#define ATTR(e, key, kind, flags, field) {key, kind, flags},
#include "attrs.def"
#undef ATTR
};

/* pools */

/* n more elements of size bytes in *p (first allocation: first elements
 * at least): the offset of the first */
static uint32_t
growpool_from(void **p, uint32_t *len, uint32_t *cap, uint32_t n,
	size_t size, uint32_t first)
{
	uint32_t off = *len;

	if (n > UINT32_MAX - 1 - *len)
		xfatal("module too large (pool over 4G)");
	if (*len + n > *cap) {
		uint64_t c = *cap ? *cap : first;

		while (c < (uint64_t)*len + n)
			c *= 2;
		if (c > UINT32_MAX)
			c = UINT32_MAX;
		*p = xreallocarray(*p, c, size);
		*cap = c;
	}
	*len += n;
	return off;
}

static uint32_t
growpool(void **p, uint32_t *len, uint32_t *cap, uint32_t n, size_t size)
{
	return growpool_from(p, len, cap, n, size, 64);
}

/* n elements of size bytes from v (left uninitialised when v is NULL)
 * appended to the pool *p; their offset */
static uint32_t
pushpool(void **p, uint32_t *len, uint32_t *cap, const void *v, uint32_t n,
	size_t size)
{
	uint32_t off = growpool(p, len, cap, n, size);

	if (v && n)
		memcpy((char *)*p + (size_t)off * size, v, n * size);
	return off;
}

uint32_t
hlo_push_ids(HloModule *m, const uint32_t *v, uint32_t n)
{
	return pushpool((void **)&m->ids, &m->nids, &m->capids, v, n,
		sizeof *m->ids);
}

uint32_t
hlo_push_ints(HloModule *m, const int64_t *v, uint32_t n)
{
	return pushpool((void **)&m->ints, &m->nints, &m->capints, v, n,
		sizeof *m->ints);
}

uint32_t
hlo_push_bytes(HloModule *m, const void *v, uint32_t n)
{
	return pushpool((void **)&m->bytes, &m->nbytes, &m->capbytes, v, n, 1);
}

static uint32_t
pushattrs(HloModule *m, const HloAttr *v, uint32_t n)
{
	return pushpool((void **)&m->attrv, &m->nattrv, &m->capattrv, v, n,
		sizeof *m->attrv);
}

uint32_t
hlo_push_attrs(HloModule *m, const HloAttr *v, uint32_t n)
{
	return pushattrs(m, v, n);
}

/* strings */

/* a fast multiplicative hash, eight bytes at a time, its low bits
 * well mixed (the tables take them as the slot) */
static uint32_t
hashbytes(const void *p, size_t n, uint32_t seed)
{
	const unsigned char *s = p;
	uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ull), w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	w = 0;
	if (n)
		memcpy(&w, s, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	/* a second round folds the high bytes (the last characters of a
	 * name, "add.1000" .. "add.1999") into the low bits the tables use */
	h ^= h >> 32;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 32;
	return (uint32_t)h;
}

/* slot j is strtab[2j] (id + 1 of its string, 0: empty) and
 * strtab[2j + 1] (the string's hash, kept so growing the table rehashes
 * nothing): one cache line per probe */
static void
rehashstr(HloModule *m)
{
	uint32_t cap = m->capstrtab ? m->capstrtab * 2 : 1024, i, j;
	uint32_t *t = xcalloc((size_t)cap * 2, sizeof *t);

	for (i = 0; i < m->capstrtab; i++) {
		if (!m->strtab[2 * i])
			continue;
		j = m->strtab[2 * i + 1] & (cap - 1);
		while (t[2 * j])
			j = (j + 1) & (cap - 1);
		t[2 * j] = m->strtab[2 * i];
		t[2 * j + 1] = m->strtab[2 * i + 1];
	}
	free(m->strtab);
	m->strtab = t;
	m->capstrtab = cap;
}

static uint32_t
strslot(const HloModule *m, const char *s, size_t n, uint32_t hash)
{
	uint32_t j = hash & (m->capstrtab - 1), off;

	for (;; j = (j + 1) & (m->capstrtab - 1)) {
		if (!m->strtab[2 * j])
			return j;
		if (m->strtab[2 * j + 1] != hash)
			continue;
		off = m->strtab[2 * j] - 1;
		if (strncmp(m->bytes + off, s, n) == 0 && !m->bytes[off + n])
			return j;
	}
}

/* interns s[0..n) (no NUL inside); the empty string is id 0. s may
 * point into the module's own bytes. */
/* the id of s, interned if new; *isnew says which */
static uint32_t
intern(HloModule *m, const char *s, size_t n, int *isnew)
{
	uint32_t j, off, hash;
	size_t inside = HLO_NONE;

	*isnew = 0;
	if (n == 0)
		return 0;
	if ((m->nstr + 1) * 2 > m->capstrtab)
		rehashstr(m);
	hash = hashbytes(s, n, 0);
	j = strslot(m, s, n, hash);
	if (m->strtab[2 * j])
		return m->strtab[2 * j] - 1;
	if (s >= m->bytes && s < m->bytes + m->nbytes)
		inside = s - m->bytes;
	off = hlo_push_bytes(m, NULL, n + 1);
	memcpy(m->bytes + off, inside != HLO_NONE ? m->bytes + inside : s, n);
	m->bytes[off + n] = 0;
	m->strtab[2 * j] = off + 1;
	m->strtab[2 * j + 1] = hash;
	m->nstr++;
	*isnew = 1;
	return off;
}

uint32_t
hlo_str(HloModule *m, const char *s, size_t n)
{
	int isnew;

	return intern(m, s, n, &isnew);
}

/* the string of n bytes written just past the end of the bytes pool
 * (room for it and its NUL reserved, nothing committed): its id if no
 * string of the module has it yet (then committed, as intern would),
 * else HLO_NONE (the pool as it was) */
static uint32_t
intern_tail(HloModule *m, size_t n)
{
	uint32_t j, off = m->nbytes, hash;
	const char *s;

	if ((m->nstr + 1) * 2 > m->capstrtab)
		rehashstr(m);
	s = m->bytes + off;
	hash = hashbytes(s, n, 0);
	j = strslot(m, s, n, hash);
	if (m->strtab[2 * j])
		return HLO_NONE;
	m->bytes[off + n] = 0;
	m->nbytes += n + 1;
	m->strtab[2 * j] = off + 1;
	m->strtab[2 * j + 1] = hash;
	m->nstr++;
	return off;
}

/* room for n bytes past the end of the bytes pool, not committed; base
 * (n0 bytes, which may lie in the pool) copied there: the address */
static char *
reserve_tail(HloModule *m, size_t n, const char *base, size_t n0)
{
	size_t inside = HLO_NONE;
	uint32_t off;

	if (base >= m->bytes && base < m->bytes + m->nbytes)
		inside = base - m->bytes;
	off = hlo_push_bytes(m, NULL, n);
	m->nbytes = off;
	memcpy(m->bytes + off, inside != HLO_NONE ? m->bytes + inside : base,
		n0);
	return m->bytes + off;
}

/* "." k written at p: the bytes written */
static size_t
put_suffix(char *p, unsigned k)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324"
		"25262728293031323334353637383940414243444546474849"
		"50515253545556575859606162636465666768697071727374"
		"75767778798081828384858687888990919293949596979899";
	char dig[16];
	size_t nd = sizeof dig;

	for (; k >= 100; k /= 100) {	/* two digits a step, from the right */
		nd -= 2;
		memcpy(dig + nd, pairs + 2 * (k % 100), 2);
	}
	if (k >= 10) {
		nd -= 2;
		memcpy(dig + nd, pairs + 2 * k, 2);
	} else {
		dig[--nd] = '0' + k;
	}
	p[0] = '.';
	memcpy(p + 1, dig + nd, sizeof dig - nd);
	return 1 + sizeof dig - nd;
}

/* base (at most 250 bytes of it) "." k, interned if no string of the
 * module has it yet: its id, else HLO_NONE. Written in place at the end
 * of the bytes pool (no copy through a buffer, hashed once) */
uint32_t
hlo_str_suffixed(HloModule *m, const char *base, size_t n, unsigned k)
{
	char *p;

	if (n > 250)
		n = 250;
	p = reserve_tail(m, n + 16, base, n);
	return intern_tail(m, n + put_suffix(p + n, k));
}

/* s[0..n) interned if no string of the module has it yet: its id, else
 * HLO_NONE (hlo_find_str then hlo_str, hashed once) */
uint32_t
hlo_str_new(HloModule *m, const char *s, size_t n)
{
	int isnew;
	uint32_t id = intern(m, s, n, &isnew);

	return isnew ? id : HLO_NONE;
}

uint32_t
hlo_strz(HloModule *m, const char *s)
{
	return hlo_str(m, s, strlen(s));
}

/* the hint slot of base id b (a pair: b + 1, next suffix), inserted with
 * suffix 1 if absent */
static uint32_t *
sufslot(HloModule *m, uint32_t b)
{
	uint32_t cap, j, i, *t;

	if ((m->nsufhint + 1) * 2 > m->capsufhint) {
		cap = m->capsufhint ? 2 * m->capsufhint : 64;
		t = xcalloc((size_t)cap * 2, sizeof *t);
		for (i = 0; i < m->capsufhint; i++) {
			if (!m->sufhint[2 * i])
				continue;
			j = (m->sufhint[2 * i] * 0x9e3779b1u) & (cap - 1);
			while (t[2 * j])
				j = (j + 1) & (cap - 1);
			t[2 * j] = m->sufhint[2 * i];
			t[2 * j + 1] = m->sufhint[2 * i + 1];
		}
		free(m->sufhint);
		m->sufhint = t;
		m->capsufhint = cap;
	}
	j = ((b + 1) * 0x9e3779b1u) & (m->capsufhint - 1);
	while (m->sufhint[2 * j] && m->sufhint[2 * j] != b + 1)
		j = (j + 1) & (m->capsufhint - 1);
	if (!m->sufhint[2 * j]) {
		m->sufhint[2 * j] = b + 1;
		m->sufhint[2 * j + 1] = 1;
		m->nsufhint++;
	}
	return &m->sufhint[2 * j];
}

/* interned strings are never dropped, so every base.k below the first
 * free one stays taken: probing resumes where the last call for the same
 * base stopped (from 1 every time was quadratic in the names made from
 * one base) */
uint32_t
hlo_unique_name(HloModule *m, const char *base)
{
	size_t n = strlen(base);
	uint32_t b = hlo_find_str(m, base, n), id, *hint;
	unsigned k;

	if (b == HLO_NONE)
		return hlo_str(m, base, n);
	hint = sufslot(m, b);
	for (k = hint[1]; (id = hlo_str_suffixed(m, base, n, k)) == HLO_NONE;
	    k++)
		;
	hint[1] = k + 1;
	return id;
}

/* the id of s if interned, else HLO_NONE */
uint32_t
hlo_find_str(const HloModule *m, const char *s, size_t n)
{
	uint32_t j;

	if (n == 0)
		return 0;
	if (!m->capstrtab)
		return HLO_NONE;
	j = strslot(m, s, n, hashbytes(s, n, 0));
	return m->strtab[2 * j] ? m->strtab[2 * j] - 1 : HLO_NONE;
}

/* module */

HloModule *
hlo_module_new(void)
{
	HloModule *m = xcalloc(1, sizeof *m);

	hlo_push_bytes(m, "", 1);	/* string id 0: "" */
	/* no pool is ever NULL, so empty spans still point somewhere */
	m->ids = xreallocarray(NULL, m->capids = 64, sizeof *m->ids);
	m->ints = xreallocarray(NULL, m->capints = 64, sizeof *m->ints);
	m->attrv = xreallocarray(NULL, m->capattrv = 16, sizeof *m->attrv);
	m->shapes = xreallocarray(NULL, m->capshapes = 16,
		sizeof *m->shapes);
	m->comps = xreallocarray(NULL, m->capcomps = 4, sizeof *m->comps);
	m->entry = HLO_NONE;
	return m;
}

void
hlo_module_free(HloModule *m)
{
	uint32_t i;

	if (!m)
		return;
	for (i = 0; i < m->ncomps; i++)
		free(m->comps[i].ins);
	free(m->comps);
	free(m->ids);
	free(m->ints);
	free(m->bytes);
	free(m->attrv);
	free(m->shapes);
	free(m->strtab);
	free(m->shapetab);
	free(m->sufhint);
	free(m);
}

/* a copy of the n used entries of p in a block of cap (at least 1) */
static void *
dup(const void *p, size_t n, size_t cap, size_t size)
{
	void *q;

	if (!p)
		return NULL;
	q = xreallocarray(NULL, cap ? cap : 1, size);
	if (n)
		memcpy(q, p, n * size);
	return q;
}

/* a deep copy: one allocation per pool and per computation, each of the
 * original's capacity; only what is used is copied (a hash table is
 * used whole) */
HloModule *
hlo_module_clone(const HloModule *m)
{
	HloModule *c = xmalloc(sizeof *c);
	uint32_t i;

	*c = *m;
	c->comps = dup(m->comps, m->ncomps, m->capcomps, sizeof *m->comps);
	for (i = 0; i < m->ncomps; i++)
		c->comps[i].ins = dup(m->comps[i].ins, m->comps[i].nins,
			m->comps[i].cap, sizeof(HloInstr));
	c->ids = dup(m->ids, m->nids, m->capids, sizeof *m->ids);
	c->ints = dup(m->ints, m->nints, m->capints, sizeof *m->ints);
	c->bytes = dup(m->bytes, m->nbytes, m->capbytes, 1);
	c->attrv = dup(m->attrv, m->nattrv, m->capattrv, sizeof *m->attrv);
	c->shapes = dup(m->shapes, m->nshapes, m->capshapes,
		sizeof *m->shapes);
	c->strtab = dup(m->strtab, (size_t)m->capstrtab * 2,
		(size_t)m->capstrtab * 2, sizeof *m->strtab);
	c->shapetab = dup(m->shapetab, m->capshapetab, m->capshapetab,
		sizeof *m->shapetab);
	c->sufhint = dup(m->sufhint, (size_t)m->capsufhint * 2,
		(size_t)m->capsufhint * 2, sizeof *m->sufhint);
	return c;
}

/* q (holding qcap entries) given the n used entries of p: reused when
 * they fit (*cap becomes qcap), else a block of *cap */
static void *
reuse(void *q, uint32_t qcap, const void *p, uint32_t n, uint32_t *cap,
	size_t size)
{
	if (!p) {
		free(q);
		return NULL;
	}
	if (q && qcap >= n && qcap) {
		*cap = qcap;
	} else {
		free(q);
		q = xreallocarray(NULL, *cap ? *cap : 1, size);
	}
	if (n)
		memcpy(q, p, (size_t)n * size);
	return q;
}

/* q as a copy of hash table p of exactly n entries */
static void *
retable(void *q, uint32_t qn, const void *p, size_t n, size_t size)
{
	if (!p) {
		free(q);
		return NULL;
	}
	if (!q || qn != n) {
		free(q);
		q = xreallocarray(NULL, n ? n : 1, size);
	}
	if (n)
		memcpy(q, p, n * size);
	return q;
}

/* d becomes a deep copy of s, as hlo_module_clone(s) would be, in d's
 * memory where it is big enough (its pools may keep a bigger capacity):
 * a module reset to its input many times (the environment) faults and
 * zeroes no fresh pages */
void
hlo_module_copy(HloModule *d, const HloModule *s)
{
	HloModule o = *d;
	uint32_t i, cap;

	*d = *s;
	if (o.comps && o.capcomps >= s->ncomps && o.capcomps) {
		d->comps = o.comps;
		d->capcomps = o.capcomps;
	} else {
		d->comps = xreallocarray(o.comps, s->capcomps ? s->capcomps :
			1, sizeof *d->comps);
		d->capcomps = s->capcomps;
	}
	for (i = s->ncomps; i < o.ncomps; i++)
		free(d->comps[i].ins);
	for (i = 0; i < s->ncomps; i++) {
		HloInstr *oi = i < o.ncomps ? d->comps[i].ins : NULL;
		uint32_t ocap = i < o.ncomps ? d->comps[i].cap : 0;

		d->comps[i] = s->comps[i];
		cap = s->comps[i].cap;
		d->comps[i].ins = reuse(oi, ocap, s->comps[i].ins,
			s->comps[i].nins, &cap, sizeof(HloInstr));
		d->comps[i].cap = cap;
	}
	d->ids = reuse(o.ids, o.capids, s->ids, s->nids, &d->capids,
		sizeof *d->ids);
	d->ints = reuse(o.ints, o.capints, s->ints, s->nints, &d->capints,
		sizeof *d->ints);
	d->bytes = reuse(o.bytes, o.capbytes, s->bytes, s->nbytes,
		&d->capbytes, 1);
	d->attrv = reuse(o.attrv, o.capattrv, s->attrv, s->nattrv,
		&d->capattrv, sizeof *d->attrv);
	d->shapes = reuse(o.shapes, o.capshapes, s->shapes, s->nshapes,
		&d->capshapes, sizeof *d->shapes);
	d->strtab = retable(o.strtab, o.capstrtab * 2, s->strtab,
		(size_t)s->capstrtab * 2, sizeof *d->strtab);
	d->shapetab = retable(o.shapetab, o.capshapetab, s->shapetab,
		s->capshapetab, sizeof *d->shapetab);
	d->sufhint = retable(o.sufhint, o.capsufhint * 2, s->sufhint,
		(size_t)s->capsufhint * 2, sizeof *d->sufhint);
}

/* shapes */

int
hlo_type_bytes(int type)
{
	int bits = hlo_typeinfo[type].bits;

	return bits <= 8 ? (bits ? 1 : 0) : bits / 8;
}

static uint32_t
shapehash(const HloModule *m, const HloShape *s)
{
	uint32_t h = 0;
	int n = s->rank * (s->flags & SH_LAYOUT ? 2 : 1);

	h = hashbytes(&s->type, 1, h);
	h = hashbytes(&s->flags, 1, h);
	h = hashbytes(&s->rank, 2, h);
	h = hashbytes(&s->tail, 4, h);
	h = hashbytes(&s->dynmask, 8, h);
	if (s->type == TY_TUPLE || s->type == TY_BUFFER)
		return hashbytes(m->ids + s->tuple, s->ntuple * 4u, h);
	return hashbytes(m->ints + s->dims, n * 8u, h);
}

static int
shapeeq(const HloModule *m, const HloShape *a, const HloShape *b)
{
	int n = a->rank * (a->flags & SH_LAYOUT ? 2 : 1);

	if (a->type != b->type || a->flags != b->flags || a->rank != b->rank ||
	    a->tail != b->tail || a->dynmask != b->dynmask ||
	    a->ntuple != b->ntuple)
		return 0;
	if (a->type == TY_TUPLE || a->type == TY_BUFFER)
		return !a->ntuple || !memcmp(m->ids + a->tuple,
			m->ids + b->tuple, a->ntuple * 4u);
	return !n || !memcmp(m->ints + a->dims, m->ints + b->dims, n * 8u);
}

static void
rehashshapes(HloModule *m)
{
	uint32_t cap = m->capshapetab ? m->capshapetab * 2 : 256, i, j;
	uint32_t *t = xcalloc(cap, sizeof *t);

	for (i = 0; i < m->nshapes; i++) {
		j = shapehash(m, &m->shapes[i]) & (cap - 1);
		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = i + 1;
	}
	free(m->shapetab);
	m->shapetab = t;
	m->capshapetab = cap;
}

/* interns the shape s whose dims/tuple already sit at the end of their
 * pools (pushed by the caller); pops them again when s exists */
static uint32_t
internshape(HloModule *m, HloShape *s, uint32_t nints, uint32_t nids)
{
	uint32_t j, id;

	if ((m->nshapes + 1) * 2 > m->capshapetab)
		rehashshapes(m);
	j = shapehash(m, s) & (m->capshapetab - 1);
	for (;; j = (j + 1) & (m->capshapetab - 1)) {
		if (!m->shapetab[j])
			break;
		if (shapeeq(m, s, &m->shapes[m->shapetab[j] - 1])) {
			m->nints -= nints;
			m->nids -= nids;
			return m->shapetab[j] - 1;
		}
	}
	id = growpool((void **)&m->shapes, &m->nshapes, &m->capshapes, 1,
		sizeof *m->shapes);
	m->shapes[id] = *s;
	m->shapetab[j] = id + 1;
	return id;
}

/* an array shape; m2m NULL: no explicit layout */
uint32_t
hlo_shape(HloModule *m, int type, int rank, const int64_t *dims,
	const int64_t *m2m, uint64_t dynmask, uint32_t tail)
{
	HloShape s;

	memset(&s, 0, sizeof s);
	s.type = type;
	s.rank = rank;
	s.flags = m2m ? SH_LAYOUT : 0;
	s.dynmask = dynmask;
	s.tail = tail;
	s.dims = hlo_push_ints(m, dims, rank);
	if (m2m)
		hlo_push_ints(m, m2m, rank);
	return internshape(m, &s, m2m ? 2 * rank : rank, 0);
}

uint32_t
hlo_shape_tuple(HloModule *m, uint32_t n, const uint32_t *elems)
{
	HloShape s;

	memset(&s, 0, sizeof s);
	s.type = TY_TUPLE;
	s.ntuple = n;
	s.tuple = hlo_push_ids(m, elems, n);
	return internshape(m, &s, 0, n);
}

/* xla's buffer shape b(<array>): TY_BUFFER with the array shape as its
 * one tuple element */
uint32_t
hlo_shape_buffer(HloModule *m, uint32_t array)
{
	HloShape s;

	memset(&s, 0, sizeof s);
	s.type = TY_BUFFER;
	s.ntuple = 1;
	s.tuple = hlo_push_ids(m, &array, 1);
	return internshape(m, &s, 0, 1);
}

uint32_t
hlo_shape_scalar(HloModule *m, int type)
{
	return hlo_shape(m, type, 0, NULL, NULL, 0, 0);
}

/* s with element type type (arrays only), layout kept */
uint32_t
hlo_shape_with_type(HloModule *m, uint32_t s, int type)
{
	HloShape sh = m->shapes[s];
	int n = sh.rank * (sh.flags & SH_LAYOUT ? 2 : 1);

	if (sh.type == TY_TUPLE || sh.type == type)
		return s;
	sh.type = type;
	sh.dims = hlo_push_ints(m, NULL, n);
	memcpy(m->ints + sh.dims, m->ints + m->shapes[s].dims, n * 8u);
	return internshape(m, &sh, n, 0);
}

static uint32_t
relayout(HloModule *m, uint32_t s, int deflt)
{
	HloShape sh = m->shapes[s];
	uint32_t i, *el, r;
	int64_t *d;

	if (sh.type == TY_TUPLE) {
		el = xreallocarray(NULL, sh.ntuple ? sh.ntuple : 1, 4);
		for (i = 0; i < sh.ntuple; i++)
			el[i] = relayout(m, m->ids[m->shapes[s].tuple + i],
				deflt);
		r = hlo_shape_tuple(m, sh.ntuple, el);
		free(el);
		return r;
	}
	if (sh.type == TY_TOKEN || sh.type == TY_OPAQUE)
		return s;
	d = xreallocarray(NULL, 2 * sh.rank + 1, 8);
	memcpy(d, m->ints + sh.dims, sh.rank * 8u);
	for (i = 0; i < sh.rank; i++)
		d[sh.rank + i] = sh.rank - 1 - i;
	r = hlo_shape(m, sh.type, sh.rank, d, deflt ? d + sh.rank : NULL,
		sh.dynmask, 0);
	free(d);
	return r;
}

uint32_t
hlo_shape_no_layout(HloModule *m, uint32_t s)
{
	return relayout(m, s, 0);
}

uint32_t
hlo_shape_default_layout(HloModule *m, uint32_t s)
{
	return relayout(m, s, 1);
}

/* element count of an array shape, -1 on int64 overflow */
int64_t
hlo_shape_elems(const HloModule *m, uint32_t s)
{
	const HloShape *sh = &m->shapes[s];
	int64_t n = 1, d;
	int i;

	if (sh->type == TY_TUPLE || sh->type == TY_TOKEN)
		return 0;
	for (i = 0; i < sh->rank; i++) {
		d = m->ints[sh->dims + i];
		if (d < 0)
			return -1;
		if (d && n > INT64_MAX / d)
			return -1;
		n *= d;
	}
	return n;
}

int64_t
hlo_shape_bytes(const HloModule *m, uint32_t s)
{
	const HloShape *sh = &m->shapes[s];
	int64_t n;

	if (sh->type == TY_TUPLE)
		return 8 * (int64_t)sh->ntuple;
	n = hlo_shape_elems(m, s);
	if (n < 0 || n > INT64_MAX / 16)
		return -1;
	return n * hlo_type_bytes(sh->type);
}

static int
sameshape(const HloModule *m, uint32_t a, uint32_t b, int types)
{
	const HloShape *x = &m->shapes[a], *y = &m->shapes[b];
	uint32_t i;

	if (a == b)
		return 1;
	if ((x->type == TY_TUPLE) != (y->type == TY_TUPLE))
		return 0;
	if (x->type == TY_TUPLE) {
		if (x->ntuple != y->ntuple)
			return 0;
		for (i = 0; i < x->ntuple; i++)
			if (!sameshape(m, m->ids[x->tuple + i],
			    m->ids[y->tuple + i], types))
				return 0;
		return 1;
	}
	if ((types && x->type != y->type) || x->rank != y->rank ||
	    x->dynmask != y->dynmask)
		return 0;
	return !x->rank || !memcmp(m->ints + x->dims, m->ints + y->dims,
		x->rank * 8u);
}

int
hlo_shape_eq_nolayout(const HloModule *m, uint32_t a, uint32_t b)
{
	return sameshape(m, a, b, 1);
}

int
hlo_shape_compatible(const HloModule *m, uint32_t a, uint32_t b)
{
	return sameshape(m, a, b, 0);
}

int
hlo_shape_eq_across(const HloModule *a, uint32_t sa, const HloModule *b,
	uint32_t sb)
{
	const HloShape *x = hlo_sh(a, sa), *y = hlo_sh(b, sb);
	uint32_t k;

	if (x->type != y->type)
		return 0;
	if (x->type == TY_TUPLE) {
		if (x->ntuple != y->ntuple)
			return 0;
		for (k = 0; k < x->ntuple; k++)
			if (!hlo_shape_eq_across(a, hlo_tuple_elems(a, x)[k],
			    b, hlo_tuple_elems(b, y)[k]))
				return 0;
		return 1;
	}
	return x->rank == y->rank && (!x->rank || !memcmp(hlo_dims(a, x),
		hlo_dims(b, y), x->rank * sizeof(int64_t)));
}

int
hlo_type_by_name(const char *s, size_t n)
{
	int i;

	for (i = 1; i < TY_COUNT; i++)
		if (strlen(hlo_typeinfo[i].name) == n &&
		    !memcmp(hlo_typeinfo[i].name, s, n))
			return i;
	return -1;
}

int
hlo_op_by_name(const char *s, size_t n)
{
	int k;

	/* a linear scan; callers on hot paths cache the answer */
	for (k = 0; k < HOP_COUNT; k++)
		if (hlo_opinfo[k].name[0] == s[0] &&
		    !strncmp(hlo_opinfo[k].name, s, n) &&
		    !hlo_opinfo[k].name[n])
			return k;
	return -1;
}

int
hlo_attr_by_key(const char *s, size_t n)
{
	int i;

	for (i = 0; i < A_COUNT; i++)
		if (hlo_attrinfo[i].key[0] && !strncmp(hlo_attrinfo[i].key, s,
		    n) && !hlo_attrinfo[i].key[n])
			return i;
	return -1;
}

/* computations and instructions */

uint32_t
hlo_comp_add(HloModule *m, uint32_t name)
{
	uint32_t c = growpool((void **)&m->comps, &m->ncomps, &m->capcomps,
		1, sizeof *m->comps);

	memset(&m->comps[c], 0, sizeof m->comps[c]);
	m->comps[c].name = name;
	m->comps[c].root = HLO_NONE;
	return c;
}

uint32_t
hlo_instr_add(HloModule *m, uint32_t c, int op, uint32_t shape,
	uint32_t name, uint32_t nops, const uint32_t *ops)
{
	HloComp *cp = &m->comps[c];
	/* from 4: the fusion passes make a computation per fusion, most
	 * of them a few instructions long (64 each was 4 KB apiece) */
	uint32_t i = growpool_from((void **)&cp->ins, &cp->nins, &cp->cap, 1,
		sizeof *cp->ins, 4);
	HloInstr *in = &cp->ins[i];

	memset(in, 0, sizeof *in);
	in->op = op;
	in->shape = shape;
	in->name = name;
	in->nops = nops;
	in->ops = hlo_push_ids(m, ops, nops);
	return i;
}

void
hlo_set_operands(HloModule *m, uint32_t c, uint32_t i, uint32_t n,
	const uint32_t *ops)
{
	uint32_t off;

	if (n <= m->comps[c].ins[i].nops) {
		if (n)
			memmove(m->ids + m->comps[c].ins[i].ops, ops, n * 4u);
		m->comps[c].ins[i].nops = n;
		return;
	}
	off = hlo_push_ids(m, ops, n);
	m->comps[c].ins[i].ops = off;
	m->comps[c].ins[i].nops = n;
}

void
hlo_set_called(HloModule *m, uint32_t c, uint32_t i, uint32_t n,
	const uint32_t *comps)
{
	uint32_t off = hlo_push_ids(m, comps, n);

	m->comps[c].ins[i].called = off;
	m->comps[c].ins[i].ncalled = n;
}

void
hlo_set_ctrl(HloModule *m, uint32_t c, uint32_t i, uint32_t n,
	const uint32_t *preds)
{
	uint32_t off = hlo_push_ids(m, preds, n);

	m->comps[c].ins[i].ctrl = off;
	m->comps[c].ins[i].nctrl = n;
}

/* the length of name without its numeric suffix (".12" of "add.12"):
 * what every name hlo_fresh_name makes from name starts with */
size_t
hlo_name_base_len(const char *name)
{
	size_t n = strlen(name), k = n;

	while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
		k--;
	if (k > 0 && k < n && name[k - 1] == '.')
		n = k - 1;
	return n > 200 ? 200 : n;
}

/* a name not yet used in the module: base with its numeric suffix
 * replaced by a fresh one ("add.12" -> "add.57") */
uint32_t
hlo_fresh_name(HloModule *m, const char *base)
{
	size_t n = hlo_name_base_len(base);
	uint32_t id;
	char *p;

	if (n == 0) {
		base = "tmp";
		n = 3;
	}
	/* the base written once; each try rewrites the suffix after it */
	p = reserve_tail(m, n + 16, base, n);
	while ((id = intern_tail(m, n + put_suffix(p + n, m->nexttmp++))) ==
	    HLO_NONE)
		;
	return id;
}

/* a copy of instruction i in the same computation: same opcode, shape,
 * operands, called computations and attributes; a fresh name and no
 * control predecessors */
uint32_t
hlo_instr_clone(HloModule *m, uint32_t c, uint32_t i)
{
	HloInstr in = m->comps[c].ins[i];
	uint32_t j, name = hlo_fresh_name(m, hlo_cstr(m, in.name));

	j = hlo_instr_add(m, c, in.op, in.shape, name, in.nops,
		NULL);
	memcpy(m->ids + m->comps[c].ins[j].ops, m->ids + in.ops, in.nops * 4u);
	if (in.ncalled) {
		m->comps[c].ins[j].called = hlo_push_ids(m, NULL, in.ncalled);
		memcpy(m->ids + m->comps[c].ins[j].called, m->ids + in.called,
			in.ncalled * 4u);
		m->comps[c].ins[j].ncalled = in.ncalled;
	}
	if (in.nattrs) {
		m->comps[c].ins[j].attrs = pushattrs(m, NULL, in.nattrs);
		memcpy(m->attrv + m->comps[c].ins[j].attrs,
			m->attrv + in.attrs, in.nattrs * sizeof(HloAttr));
		m->comps[c].ins[j].nattrs = in.nattrs;
	}
	m->comps[c].ins[j].num = in.num;
	m->comps[c].ins[j].flags = in.flags & ~HI_DEAD;
	return j;
}

/* a copy of computation c, named <name><suffix>, with fresh instruction
 * names; called computations are shared, not copied */
uint32_t
hlo_comp_clone(HloModule *m, uint32_t c, const char *suffix)
{
	char buf[512];
	uint32_t d, i, n;
	HloComp *cp;

	snprintf(buf, sizeof buf, "%s%s", hlo_cstr(m, m->comps[c].name),
		suffix);
	if ((n = hlo_str_new(m, buf, strlen(buf))) == HLO_NONE)
		n = hlo_fresh_name(m, buf);
	d = hlo_comp_add(m, n);
	cp = &m->comps[d];
	cp->flags = m->comps[c].flags;
	cp->root = m->comps[c].root;
	cp->thread = m->comps[c].thread;
	cp->nins = cp->cap = m->comps[c].nins;
	cp->ins = dup(m->comps[c].ins, cp->cap, cp->cap, sizeof *cp->ins);
	for (i = 0; i < cp->nins; i++) {
		HloInstr in = m->comps[d].ins[i];

		in.name = hlo_fresh_name(m, hlo_cstr(m, in.name));
		in.ops = hlo_push_ids(m, NULL, in.nops);
		memcpy(m->ids + in.ops, m->ids + m->comps[d].ins[i].ops,
			in.nops * 4u);
		if (in.ncalled) {
			in.called = hlo_push_ids(m, NULL, in.ncalled);
			memcpy(m->ids + in.called,
				m->ids + m->comps[d].ins[i].called,
				in.ncalled * 4u);
		}
		if (in.nctrl) {
			in.ctrl = hlo_push_ids(m, NULL, in.nctrl);
			memcpy(m->ids + in.ctrl,
				m->ids + m->comps[d].ins[i].ctrl,
				in.nctrl * 4u);
		}
		if (in.nattrs) {
			in.attrs = pushattrs(m, NULL, in.nattrs);
			memcpy(m->attrv + in.attrs,
				m->attrv + m->comps[d].ins[i].attrs,
				in.nattrs * sizeof(HloAttr));
		}
		m->comps[d].ins[i] = in;
	}
	return d;
}

int
hlo_param_count(const HloModule *m, uint32_t c)
{
	const HloComp *cp = &m->comps[c];
	uint32_t i;
	int n = 0;

	for (i = 0; i < cp->nins; i++)
		if (cp->ins[i].op == HOP_PARAMETER &&
		    !(cp->ins[i].flags & HI_DEAD) && cp->ins[i].num >= n)
			n = cp->ins[i].num + 1;
	return n;
}

int
hlo_comp_has_op(const HloModule *m, uint32_t c, int op)
{
	const HloComp *cp = &m->comps[c];
	uint32_t i;

	for (i = 0; i < cp->nins; i++)
		if (cp->ins[i].op == op && !(cp->ins[i].flags & HI_DEAD))
			return 1;
	return 0;
}

uint32_t
hlo_param(const HloModule *m, uint32_t c, int64_t num)
{
	const HloComp *cp = &m->comps[c];
	uint32_t i;

	for (i = 0; i < cp->nins; i++)
		if (cp->ins[i].op == HOP_PARAMETER &&
		    !(cp->ins[i].flags & HI_DEAD) && cp->ins[i].num == num)
			return i;
	return HLO_NONE;
}

/* attributes */

const HloAttr *
hlo_attr(const HloModule *m, const HloInstr *in, int key)
{
	const HloAttr *a = m->attrv + in->attrs;
	uint32_t i;

	for (i = 0; i < in->nattrs; i++)
		if (a[i].key == key)
			return &a[i];
	return NULL;
}

int64_t
hlo_attr_int(const HloModule *m, const HloInstr *in, int key, int64_t dflt)
{
	const HloAttr *a = hlo_attr(m, in, key);

	return a && (a->kind == K_INT || a->kind == K_BOOL) ? a->v : dflt;
}

const int64_t *
hlo_attr_ints(const HloModule *m, const HloInstr *in, int key, uint32_t *n)
{
	const HloAttr *a = hlo_attr(m, in, key);

	if (!a || a->kind == K_INT || a->kind == K_BOOL || a->kind >= K_WORD) {
		*n = 0;
		return NULL;
	}
	*n = a->n;
	return m->ints + a->v;
}

/* an integer-list attribute, an empty list (never NULL) if absent */
const int64_t *
hlo_attr_list(const HloModule *m, const HloInstr *in, int key, uint32_t *n)
{
	static const int64_t none[1] = {0};
	const int64_t *p = hlo_attr_ints(m, in, key, n);

	return p ? p : none;
}

/* one decimal number of s up to e; -1 if none or too large */
static int64_t
decnum(const char **s, const char *e)
{
	int64_t v = 0;
	const char *q = *s;

	if (q >= e || *q < '0' || *q > '9')
		return -1;
	for (; q < e && *q >= '0' && *q <= '9'; q++) {
		v = v * 10 + (*q - '0');
		if (v > INT32_MAX)
			return -1;
	}
	*s = q;
	return v;
}

int
hlo_sparsity_parse(const char *s, size_t len, HloSparsity *d, int max)
{
	const char *e = s + len;
	int64_t dim, n, mm;
	int k = 0;

	for (;;) {
		if (k >= max || e - s < 2 || (*s != 'L' && *s != 'R') ||
		    s[1] != '.')
			return -1;
		d[k].index = *s == 'R';
		s += 2;
		if ((dim = decnum(&s, e)) < 0 || s >= e || *s++ != '@' ||
		    (n = decnum(&s, e)) < 1 || s >= e || *s++ != ':' ||
		    (mm = decnum(&s, e)) <= n)
			return -1;
		d[k].dim = dim;
		d[k].n = (int)n;
		d[k++].m = (int)mm;
		if (s == e)
			return k;
		if (*s++ != '_')
			return -1;
	}
}

int
hlo_sparsity_format(const HloSparsity *d, int n, char *buf, size_t cap)
{
	size_t at = 0;
	int k, w;

	if (cap)
		*buf = 0;
	for (k = 0; k < n; k++) {
		w = snprintf(buf + at, cap - at, "%s%c.%lld@%d:%d", k ? "_" : "",
			d[k].index ? 'R' : 'L', (long long)d[k].dim, d[k].n,
			d[k].m);
		if (w < 0 || (size_t)w >= cap - at)
			return -1;
		at += (size_t)w;
	}
	return (int)at;
}

int
hlo_dot_sparsity(const HloModule *m, const HloInstr *in, HloSparsity d[2])
{
	const HloAttr *a;

	if (in->op != HOP_DOT || !(a = hlo_attr(m, in, A_SPARSITY)))
		return 0;
	if (a->kind != K_RAW)
		return -1;
	return hlo_sparsity_parse(m->bytes + a->v, a->n, d, 2);
}

static int
cmpint(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

void
hlo_ints_sort(int64_t *v, uint32_t n)
{
	if (n > 1)
		qsort(v, n, sizeof *v, cmpint);
}

int
hlo_ints_has(const int64_t *v, uint32_t n, int64_t x)
{
	uint32_t k;

	for (k = 0; k < n; k++)
		if (v[k] == x)
			return 1;
	return 0;
}

int
hlo_ints_is_iota(const int64_t *v, uint32_t n)
{
	uint32_t k = 0;

	while (k < n && v[k] == (int64_t)k)
		k++;
	return k == n;
}

int
hlo_ints_ascending(const int64_t *v, uint32_t n)
{
	uint32_t k = 1;

	while (k < n && v[k - 1] <= v[k])
		k++;
	return k >= n;
}

const char *
hlo_attr_word(const HloModule *m, const HloInstr *in, int key, uint32_t *n)
{
	const HloAttr *a = hlo_attr(m, in, key);

	if (!a || a->kind < K_WORD || a->v == HLO_ELIDED) {
		if (n)
			*n = 0;
		return NULL;
	}
	if (n)
		*n = a->n;
	return m->bytes + a->v;
}

int
hlo_attr_is(const HloModule *m, const HloInstr *in, int key,
	const char *word)
{
	uint32_t n;
	const char *w = hlo_attr_word(m, in, key, &n);

	return w && strlen(word) == n && !memcmp(w, word, n);
}

static void
sortattrs(HloAttr *a, uint32_t n)
{
	uint32_t i, j;
	HloAttr t;

	for (i = 1; i < n; i++) {
		t = a[i];
		for (j = i; j > 0 && a[j - 1].key > t.key; j--)
			a[j] = a[j - 1];
		a[j] = t;
	}
}

void
hlo_set_attrs(HloModule *m, uint32_t c, uint32_t i, uint32_t n,
	const HloAttr *attrs)
{
	uint32_t off = pushattrs(m, attrs, n);

	sortattrs(m->attrv + off, n);
	m->comps[c].ins[i].attrs = off;
	m->comps[c].ins[i].nattrs = n;
}

void
hlo_attr_set(HloModule *m, uint32_t c, uint32_t i, const HloAttr *a)
{
	HloInstr *in = &m->comps[c].ins[i];
	HloAttr *v = m->attrv + in->attrs, na = *a;
	uint32_t k, n = in->nattrs, off;

	for (k = 0; k < n; k++)
		if (v[k].key == na.key &&
		    (na.key != A_OTHER || v[k].name == na.name)) {
			v[k] = na;
			return;
		}
	off = pushattrs(m, NULL, n + 1);
	in = &m->comps[c].ins[i];
	memcpy(m->attrv + off, m->attrv + in->attrs, n * sizeof(HloAttr));
	m->attrv[off + n] = na;
	sortattrs(m->attrv + off, n + 1);
	in->attrs = off;
	in->nattrs = n + 1;
}

void
hlo_attr_del(HloModule *m, uint32_t c, uint32_t i, int key)
{
	HloInstr *in = &m->comps[c].ins[i];
	HloAttr *v = m->attrv + in->attrs;
	uint32_t k, j = 0;

	for (k = 0; k < in->nattrs; k++)
		if (v[k].key != key)
			v[j++] = v[k];
	in->nattrs = j;
}

HloAttr
hlo_mk_int(int key, int64_t v)
{
	HloAttr a;

	memset(&a, 0, sizeof a);
	a.key = key;
	a.kind = hlo_attrinfo[key].kind;
	a.v = v;
	return a;
}

HloAttr
hlo_mk_ints(HloModule *m, int key, const int64_t *v, uint32_t n)
{
	HloAttr a;

	memset(&a, 0, sizeof a);
	a.key = key;
	a.kind = hlo_attrinfo[key].kind;
	a.n = n;
	a.v = hlo_push_ints(m, v, n);
	return a;
}

HloAttr
hlo_mk_bytes(HloModule *m, int key, int kind, const void *v, uint32_t n)
{
	HloAttr a;

	memset(&a, 0, sizeof a);
	a.key = key;
	a.kind = kind;
	a.n = n;
	a.v = hlo_push_bytes(m, v, n);
	return a;
}

/* one attribute: same key, kind, name and value; an elided value is
 * unknown and equals nothing */
int
hlo_attr_equal(const HloModule *m, const HloAttr *a, const HloAttr *b)
{
	if (a->key != b->key || a->kind != b->kind || a->name != b->name ||
	    a->n != b->n)
		return 0;
	return hlo_attr_value_equal(m, a, m, b, 0);
}

/* the values of a (of module m) and b (of module s), of one kind and
 * length; an elided value equals only an elided one with elided, else
 * nothing */
int
hlo_attr_value_equal(const HloModule *m, const HloAttr *a,
	const HloModule *s, const HloAttr *b, int elided)
{
	int same = m == s && a->v == b->v;

	switch (a->kind) {
	case K_INT:
	case K_BOOL:
		return a->v == b->v;
	case K_INTS:
	case K_SLICE:
	case K_PAD:
	case K_WINDOW:
		return !a->n || same || !memcmp(m->ints + a->v,
			s->ints + b->v, a->n * 8u);
	default:
		if (a->v == HLO_ELIDED || b->v == HLO_ELIDED)
			return elided && a->v == b->v;
		return !a->n || same || !memcmp(m->bytes + a->v,
			s->bytes + b->v, a->n);
	}
}

/* equal attributes, those whose key has ignore[key] set passed over
 * (ignore may be NULL) */
int
hlo_attrs_equal(const HloModule *m, const HloInstr *a, const HloInstr *b,
	const uint8_t *ignore)
{
	const HloAttr *x = m->attrv + a->attrs, *y = m->attrv + b->attrs;
	uint32_t i = 0, j = 0;

	for (;;) {
		while (ignore && i < a->nattrs && ignore[x[i].key])
			i++;
		while (ignore && j < b->nattrs && ignore[y[j].key])
			j++;
		if (i == a->nattrs || j == b->nattrs)
			return i == a->nattrs && j == b->nattrs;
		if (!hlo_attr_equal(m, &x[i], &y[j]))
			return 0;
		i++, j++;
	}
}

const void *
hlo_literal(const HloModule *m, const HloInstr *in, uint32_t *nbytes)
{
	const HloAttr *a = hlo_attr(m, in, A_LITERAL);

	if (!a || a->v == HLO_ELIDED)
		return NULL;
	*nbytes = a->n;
	return m->bytes + a->v;
}

/* derived data */

void
hlo_users(const HloModule *m, uint32_t c, HloUsers *u)
{
	const HloComp *cp = &m->comps[c];
	uint32_t i, k, n = cp->nins, *fill;

	u->n = n;
	u->start = xcalloc(n + 1, sizeof *u->start);
	for (i = 0; i < n; i++) {
		const HloInstr *in = &cp->ins[i];

		if (in->flags & HI_DEAD)
			continue;
		for (k = 0; k < in->nops; k++)
			if (m->ids[in->ops + k] < n)
				u->start[m->ids[in->ops + k] + 1]++;
	}
	for (i = 0; i < n; i++)
		u->start[i + 1] += u->start[i];
	u->list = xreallocarray(NULL, u->start[n] + 1, sizeof *u->list);
	fill = xreallocarray(NULL, n + 1, sizeof *fill);
	memcpy(fill, u->start, n * sizeof *fill);
	for (i = 0; i < n; i++) {
		const HloInstr *in = &cp->ins[i];

		if (in->flags & HI_DEAD)
			continue;
		for (k = 0; k < in->nops; k++)
			if (m->ids[in->ops + k] < n)
				u->list[fill[m->ids[in->ops + k]]++] = i;
	}
	free(fill);
}

void
hlo_users_free(HloUsers *u)
{
	free(u->start);
	free(u->list);
	u->start = u->list = NULL;
}

/* stable post-order: instruction i comes after its operands and control
 * predecessors, otherwise in array order; iterative, so deep chains do
 * not overflow the C stack */
/* the live instructions of cp read only live instructions before them
 * (or none: ids past the end); then the post order is the array order */
static int
sorted(const HloModule *m, const HloComp *cp)
{
	uint32_t n = cp->nins, i, k, d;

	for (i = 0; i < n; i++) {
		const HloInstr *in = &cp->ins[i];

		if (in->flags & HI_DEAD)
			continue;
		for (k = 0; k < in->nops + in->nctrl; k++) {
			d = k < in->nops ? m->ids[in->ops + k] :
				m->ids[in->ctrl + k - in->nops];
			if (d < n && d >= i && !(cp->ins[d].flags & HI_DEAD))
				return 0;
		}
	}
	return 1;
}

int
hlo_topo(const HloModule *m, uint32_t c, uint32_t *order)
{
	const HloComp *cp = &m->comps[c];
	uint32_t n = cp->nins, i, top, cnt = 0, x, k, nk, d;
	uint8_t *state;
	uint32_t *stack, *next;

	if (sorted(m, cp)) {	/* the search below would find this order */
		for (i = 0; i < n; i++)
			if (!(cp->ins[i].flags & HI_DEAD))
				order[cnt++] = i;
		return (int)cnt;
	}
	state = xcalloc(n + 1, 1);
	stack = xreallocarray(NULL, n + 1, sizeof *stack);
	next = xcalloc(n + 1, sizeof *next);

	for (i = 0; i < n; i++) {
		if (state[i] || (cp->ins[i].flags & HI_DEAD))
			continue;
		top = 0;
		stack[top++] = i;
		state[i] = 1;
		while (top) {
			x = stack[top - 1];
			k = next[x];
			nk = cp->ins[x].nops + cp->ins[x].nctrl;
			if (k < nk) {
				next[x]++;
				d = k < cp->ins[x].nops ?
					m->ids[cp->ins[x].ops + k] :
					m->ids[cp->ins[x].ctrl + k -
						cp->ins[x].nops];
				if (d >= n || (cp->ins[d].flags & HI_DEAD))
					continue;
				if (state[d] == 1) {
					cnt = -1;
					goto out;
				}
				if (state[d] == 0) {
					state[d] = 1;
					stack[top++] = d;
				}
				continue;
			}
			state[x] = 2;
			order[cnt++] = x;
			top--;
		}
	}
out:
	free(state);
	free(stack);
	free(next);
	return (int)cnt;
}

/* post-order of the call graph from the roots given (callees first) */
static int
callorder(const HloModule *m, const uint32_t *roots, uint32_t nroots,
	uint32_t *order)
{
	uint32_t n = m->ncomps, top, cnt = 0, r, x;
	uint8_t *state = xcalloc(n + 1, 1);
	uint32_t *stack = xreallocarray(NULL, n + 1, sizeof *stack);
	uint64_t *pos = xcalloc(n + 1, sizeof *pos);
	int bad = 0;

	for (r = 0; r < nroots && !bad; r++) {
		if (roots[r] >= n || state[roots[r]])
			continue;
		top = 0;
		stack[top++] = roots[r];
		state[roots[r]] = 1;
		while (top && !bad) {
			const HloComp *cp;
			uint32_t ii, kk, d = HLO_NONE;

			x = stack[top - 1];
			cp = &m->comps[x];
			/* pos: instruction index << 32 | called index of
			 * the next call to follow (most instructions call
			 * nothing: a tight scan past them) */
			ii = pos[x] >> 32;
			kk = pos[x] & 0xffffffffu;
			for (; ii < cp->nins; ii++, kk = 0) {
				const HloInstr *in = &cp->ins[ii];

				if (kk >= in->ncalled || (in->flags & HI_DEAD))
					continue;
				while (kk < in->ncalled &&
				    (d = m->ids[in->called + kk]) >= n)
					kk++;
				if (kk < in->ncalled)
					break;
			}
			pos[x] = (uint64_t)ii << 32 | (kk + 1);
			if (ii >= cp->nins) {
				state[x] = 2;
				order[cnt++] = x;
				top--;
				continue;
			}
			if (state[d] == 1)
				bad = 1;
			else if (state[d] == 0) {
				state[d] = 1;
				stack[top++] = d;
			}
		}
	}
	free(state);
	free(stack);
	free(pos);
	return bad ? -1 : (int)cnt;
}

int
hlo_comp_order(const HloModule *m, uint32_t *order)
{
	if (m->entry >= m->ncomps)
		return 0;
	return callorder(m, &m->entry, 1, order);
}

/* every computation, callees first; computations nobody calls are taken
 * in array order, the entry last */
int
hlo_comp_order_all(const HloModule *m, uint32_t *order)
{
	uint32_t *roots = xreallocarray(NULL, m->ncomps + 1, sizeof *roots);
	uint32_t i, n = 0;
	int r;

	for (i = 0; i < m->ncomps; i++)
		if (i != m->entry)
			roots[n++] = i;
	if (m->entry < m->ncomps)
		roots[n++] = m->entry;
	r = callorder(m, roots, n, order);
	free(roots);
	return r;
}

/* every operand from in c (and the root) becomes to, in the live
 * instructions below limit other than keep */
void
hlo_replace_uses_in(HloModule *m, uint32_t c, uint32_t from, uint32_t to,
	uint32_t keep, uint32_t limit)
{
	HloComp *cp = &m->comps[c];
	uint32_t i, k;

	for (i = 0; i < limit && i < cp->nins; i++) {
		HloInstr *in = &cp->ins[i];

		if ((in->flags & HI_DEAD) || i == keep)
			continue;
		for (k = 0; k < in->nops; k++)
			if (m->ids[in->ops + k] == from)
				m->ids[in->ops + k] = to;
	}
	if (cp->root == from)
		cp->root = to;
}

void
hlo_replace_uses(HloModule *m, uint32_t c, uint32_t from, uint32_t to)
{
	hlo_replace_uses_in(m, c, from, to, to, UINT32_MAX);
}

static uint32_t
resolve(const uint32_t *map, uint32_t x, uint32_t n)
{
	uint32_t steps = 0;

	while (x < n && map[x] != x && steps++ < n)
		x = map[x];
	return x;
}

void
hlo_forward(HloModule *m, uint32_t c, const uint32_t *map)
{
	HloComp *cp = &m->comps[c];
	uint32_t i, k, n = cp->nins;

	for (i = 0; i < n; i++) {
		HloInstr *in = &cp->ins[i];

		if (in->flags & HI_DEAD)
			continue;
		for (k = 0; k < in->nops; k++)
			m->ids[in->ops + k] = resolve(map, m->ids[in->ops + k],
				n);
		for (k = 0; k < in->nctrl; k++)
			m->ids[in->ctrl + k] = resolve(map,
				m->ids[in->ctrl + k], n);
	}
	cp->root = resolve(map, cp->root, n);
}

/* hlo_comp_compact of a computation whose order stays: ids past the
 * end become HLO_NONE, control predecessors past the end go */
static void
compact_in_place(HloModule *m, HloComp *cp)
{
	uint32_t n = cp->nins, i, k, j, d;

	for (i = 0; i < n; i++) {
		HloInstr *in = &cp->ins[i];

		for (k = 0; k < in->nops; k++)
			if (m->ids[in->ops + k] >= n)
				m->ids[in->ops + k] = HLO_NONE;
		for (k = j = 0; k < in->nctrl; k++)
			if ((d = m->ids[in->ctrl + k]) < n)
				m->ids[in->ctrl + j++] = d;
		in->nctrl = j;
	}
	if (cp->root >= n)
		cp->root = HLO_NONE;
}

/* the instructions order[0..cnt) of computation c, in that order, as
 * its new instruction array: the others are dropped, and operands,
 * control predecessors and the root renumbered (an operand dropped
 * becomes HLO_NONE, a control predecessor dropped goes) */
void
hlo_comp_renumber(HloModule *m, uint32_t c, const uint32_t *order,
	uint32_t cnt)
{
	HloComp *cp = &m->comps[c];
	uint32_t n = cp->nins, *newid, i, k, j, d;
	HloInstr *ins;

	newid = xreallocarray(NULL, n + 1, sizeof *newid);
	for (i = 0; i < n; i++)
		newid[i] = HLO_NONE;
	for (i = 0; i < cnt; i++)
		newid[order[i]] = i;
	ins = xreallocarray(NULL, cnt + 1, sizeof *ins);
	for (i = 0; i < cnt; i++) {
		HloInstr *in = &ins[i];

		*in = cp->ins[order[i]];
		for (k = 0; k < in->nops; k++) {
			d = m->ids[in->ops + k];
			m->ids[in->ops + k] = d < n ? newid[d] : HLO_NONE;
		}
		for (k = j = 0; k < in->nctrl; k++) {
			d = m->ids[in->ctrl + k];
			if (d < n && newid[d] != HLO_NONE)
				m->ids[in->ctrl + j++] = newid[d];
		}
		in->nctrl = j;
	}
	cp->root = cp->root < n ? newid[cp->root] : HLO_NONE;
	free(cp->ins);
	cp->ins = ins;
	cp->nins = cnt;
	cp->cap = cnt + 1;
	free(newid);
}

/* drops dead instructions and renumbers in topological order; control
 * predecessors that died are dropped */
int
hlo_comp_compact(HloModule *m, uint32_t c)
{
	HloComp *cp = &m->comps[c];
	uint32_t n = cp->nins, *order, i, cnt, small[32];
	int r;

	/* fusion passes compact a small computation per fusion */
	order = n < 32 ? small : xreallocarray(NULL, n + 1, sizeof *order);
	r = hlo_topo(m, c, order);
	if (r < 0) {
		if (order != small)
			free(order);
		return -1;
	}
	cnt = r;
	for (i = 0; i < cnt && order[i] == i; i++)
		;
	if (i == n) {
		/* nothing dead and already in order: the renumbering below
		 * is the identity, done in place */
		if (order != small)
			free(order);
		compact_in_place(m, cp);
		return 0;
	}
	hlo_comp_renumber(m, c, order, cnt);
	if (order != small)
		free(order);
	return 0;
}

/* drops computations unreachable from the entry */
void
hlo_module_compact(HloModule *m)
{
	uint32_t n = m->ncomps, *order, *newid, i, k, cnt;
	int r;

	if (m->entry >= n)
		return;
	order = xreallocarray(NULL, n + 1, sizeof *order);
	r = hlo_comp_order(m, order);
	if (r < 0 || (uint32_t)r == n) {
		free(order);
		return;
	}
	cnt = r;
	newid = xreallocarray(NULL, n + 1, sizeof *newid);
	for (i = 0; i < n; i++)
		newid[i] = HLO_NONE;
	/* keep the original relative order of the survivors */
	for (i = 0; i < cnt; i++)
		newid[order[i]] = 0;
	for (i = k = 0; i < n; i++) {
		if (newid[i] == HLO_NONE) {
			free(m->comps[i].ins);
			continue;
		}
		newid[i] = k;
		m->comps[k++] = m->comps[i];
	}
	m->ncomps = k;
	m->entry = newid[m->entry];
	for (i = 0; i < m->ncomps; i++) {
		HloComp *cp = &m->comps[i];
		uint32_t j;

		for (j = 0; j < cp->nins; j++)
			for (k = 0; k < cp->ins[j].ncalled; k++) {
				uint32_t *d = &m->ids[cp->ins[j].called + k];

				*d = *d < n ? newid[*d] : HLO_NONE;
			}
	}
	free(order);
	free(newid);
}

/* xla's HasSideEffectNoRecurse */
int
hlo_has_side_effect(const HloModule *m, const HloInstr *in)
{
	unsigned f = hlo_opinfo[in->op].flags;

	if (f & OPF_SIDE)
		return 1;
	if (f & OPF_COLL)
		return hlo_attr(m, in, A_CHANNEL_ID) != NULL ||
			hlo_attr_int(m, in, A_CONSTRAIN_LAYOUT, 0);
	if (in->op == HOP_CUSTOMCALL)
		return hlo_attr_int(m, in, A_CUSTOM_CALL_SIDE_EFFECT, 0) != 0;
	return 0;
}

/* the size of the first replica group of a collective, when the groups
 * are written out ({{0,1},{2,3}}: 2; {{}}: 0) or in iota form
 * ([2,4]<=[8]: 4); -1 when there are none or they cannot be read */
int64_t
hlo_replica_group_size(const HloModule *m, const HloInstr *in)
{
	uint32_t n, k;
	const char *t = hlo_attr_word(m, in, A_REPLICA_GROUPS, &n);
	int64_t g = 0;

	if (!t || n < 3)
		return -1;
	if (t[0] == '{' && t[1] == '{') {
		if (t[2] == '}')
			return 0;
		for (k = 2, g = 1; k < n && t[k] != '}'; k++)
			g += t[k] == ',';
		return k < n ? g : -1;
	}
	if (t[0] != '[')
		return -1;
	for (k = 1; k < n && t[k] != ']'; k++) {
		if (t[k] == ',')
			g = 0;
		else if (t[k] >= '0' && t[k] <= '9' && g < INT32_MAX)
			g = g * 10 + (t[k] - '0');
		else if (t[k] != ' ')
			return -1;
	}
	return k < n ? g : -1;
}

int64_t
hlo_header_int(const HloModule *m, const char *key, int64_t dflt)
{
	uint32_t k, j;

	for (k = 0; k < m->nhattrs; k++) {
		const HloAttr *at = &m->attrv[m->hattrs + k];
		int64_t v = 0;

		if (at->key != A_OTHER || strcmp(hlo_cstr(m, at->name), key))
			continue;
		if (at->kind == K_INT)
			return at->v;
		if (at->kind != K_RAW || at->n == 0 || at->n > 18)
			return dflt;
		for (j = 0; j < at->n; j++) {
			char c = m->bytes[at->v + j];

			if (c < '0' || c > '9')
				return dflt;
			v = v * 10 + (c - '0');
		}
		return v;
	}
	return dflt;
}
