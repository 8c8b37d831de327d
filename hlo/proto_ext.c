/* proto_ext.c: hlopt's private extension of an instruction: the edits
 * that turn what the reader derives from the proto fields back into the
 * instruction's own attributes (writer: attrdiff, reader: extapply). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

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

	hlo_putlenfield(x, 1, k, strlen(k));
	hlo_puttag(x, 2, 0);
	hlo_putvarint(x, a->key == A_OTHER);
}

/* field 2: attributes of this key (name) to drop */
static void
extdel(HloBuf *x, const HloModule *m, const HloAttr *a)
{
	HloBuf r = {0};

	extkey(&r, m, a);
	hlo_putlenfield(x, 2, r.buf, r.len);
	hlo_buf_free(&r);
}

/* field 3: an attribute to add */
static void
extadd(HloBuf *x, const HloModule *m, const HloAttr *a)
{
	HloBuf r = {0}, p = {0};
	uint32_t i;

	extkey(&r, m, a);
	hlo_puttag(&r, 3, 0);
	hlo_putvarint(&r, a->kind);
	switch (a->kind) {
	case K_INT:
	case K_BOOL:
		hlo_puttag(&r, 4, 0);
		hlo_putvarint(&r, (uint64_t)a->v);
		break;
	case K_INTS:
	case K_SLICE:
	case K_PAD:
	case K_WINDOW:
		for (i = 0; i < a->n; i++)
			hlo_putvarint(&p, (uint64_t)m->ints[a->v + i]);
		hlo_putlenfield(&r, 5, p.buf, p.len);
		break;
	default:
		if (a->v != HLO_ELIDED) {
			hlo_putlenfield(&r, 6, m->bytes + a->v, a->n);
		} else {
			hlo_puttag(&r, 4, 0);
			hlo_putvarint(&r, HLO_ELIDED);
		}
		break;
	}
	hlo_putlenfield(x, 3, r.buf, r.len);
	hlo_buf_free(&r);
	hlo_buf_free(&p);
}

/* attribute a of module m equals attribute b of module s */
int
hlo_attrsame(const HloModule *m, const HloAttr *a, const HloModule *s,
	const HloAttr *b)
{
	if (a->key != b->key || a->kind != b->kind || a->n != b->n)
		return 0;
	if (a->key == A_OTHER && strcmp(hlo_cstr(m, a->name),
	    hlo_cstr(s, b->name)))
		return 0;
	return hlo_attr_value_equal(m, a, s, b, 1);
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
int
hlo_attrdiff(HloBuf *x, const HloModule *m, const HloAttr *a, uint32_t na,
	const HloModule *s, const HloAttr *r, uint32_t nr)
{
	uint8_t *used = xcalloc(nr + 1, 1), *gone = xcalloc(nr + 1, 1);
	uint32_t i, j, k, *add = xreallocarray(NULL, na + 1, sizeof *add);
	uint32_t nadd = 0, ok = 1;
	size_t start = x->len;

	for (i = 0; i < na; i++) {
		for (j = 0; j < nr; j++)
			if (!used[j] && hlo_attrsame(m, &a[i], s, &r[j]))
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
			if (p == na || !hlo_attrsame(m, &a[p], s, &r[j]))
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

/* one edit of an instruction extension: {1 key, 2 other, 3 kind,
 * 4 value, 5 packed ints, 6 bytes} */
typedef struct {
	const uint8_t *key, *bytes, *ints;
	size_t nkey, nbytes, nints;
	uint64_t other, kind, v;
	int k;			/* the attribute key */
} Edit;

/* decodes the edit in p[0..n); -1 if it names no attribute */
static int
getedit(const uint8_t *p, size_t n, Edit *d)
{
	const uint8_t *e = p + n;
	WField g;

	memset(d, 0, sizeof *d);
	while (hlo_nextfield(&p, e, &g) > 0) {
		if (g.num == 1 && g.wt == 2)
			d->key = g.p, d->nkey = g.n;
		else if (g.num == 2 && g.wt == 0)
			d->other = g.v;
		else if (g.num == 3 && g.wt == 0)
			d->kind = g.v;
		else if (g.num == 4 && g.wt == 0)
			d->v = g.v;
		else if (g.num == 5 && g.wt == 2)
			d->ints = g.p, d->nints = g.n;
		else if (g.num == 6 && g.wt == 2)
			d->bytes = g.p, d->nbytes = g.n;
	}
	if (!d->key && d->nkey)
		return -1;
	if (d->other) {
		d->k = A_OTHER;
	} else if (d->nkey == 0 && d->kind == K_LITERAL) {
		d->k = A_LITERAL;
	} else if ((d->k = hlo_attr_by_key((const char *)(d->key ? d->key :
	    (const uint8_t *)""), d->nkey)) < 0 || d->k == A_OTHER) {
		return -1;
	}
	return 0;
}

/* drops b's attributes of the edit's key (A_OTHER: of its name) */
static void
editdel(Ab *b, const Edit *d)
{
	uint32_t i, j;

	for (i = j = 0; i < b->n; i++) {
		if (b->v[i].key == d->k && (d->k != A_OTHER ||
		    (strlen(hlo_cstr(b->m, b->v[i].name)) == d->nkey &&
		    !memcmp(hlo_cstr(b->m, b->v[i].name), d->key, d->nkey))))
			continue;
		b->v[j++] = b->v[i];
	}
	b->n = j;
}

/* appends the edit's attribute to b's list */
static int
editadd(Ab *b, const Edit *d)
{
	HloAttr a = hlo_mk_int(d->k, 0);
	const uint8_t *q, *qe;
	Vec iv = {0};
	uint64_t x;
	size_t s;

	if (d->kind > K_LITERAL)
		return -1;
	a.kind = d->kind;
	switch (d->kind) {
	case K_INT:
	case K_BOOL:
		a.v = (int64_t)d->v;
		break;
	case K_INTS:
	case K_SLICE:
	case K_PAD:
	case K_WINDOW:
		for (q = d->ints, qe = d->ints + d->nints; q && q < qe;
		    q += s) {
			if (!(s = hlo_getvarint(q, qe, &x))) {
				free(iv.v);
				return -1;
			}
			hlo_vpush(&iv, (int64_t)x);
		}
		if (hlo_abints(b, d->k, iv.v, iv.n) < 0) {
			free(iv.v);
			return -1;
		}
		free(iv.v);
		b->v[b->n - 1].kind = d->kind;
		a = b->v[--b->n];
		break;
	default:
		if (!d->bytes && (uint32_t)d->v == HLO_ELIDED) {
			a.v = HLO_ELIDED;
			a.n = 0;
			break;
		}
		if (hlo_abtext(b, d->k, d->kind, d->bytes, d->nbytes) < 0)
			return -1;
		a = b->v[--b->n];
		break;
	}
	if (d->k == A_OTHER)
		a.name = hlo_strid(b->m, d->key, d->nkey);
	hlo_abpush(b, a);
	return 0;
}

/* applies the edits of an instruction extension to b's list */
int
hlo_extapply(Ab *b, const uint8_t *p, size_t n, unsigned *flags)
{
	const uint8_t *e = p + n;
	WField f;
	Edit d;
	int r;

	while ((r = hlo_nextfield(&p, e, &f)) > 0) {
		if (f.num == 1 && f.wt == 0) {
			*flags = f.v;
			continue;
		}
		if ((f.num != 2 && f.num != 3) || f.wt != 2)
			continue;
		if (getedit(f.p, f.n, &d) < 0)
			return -1;
		if (f.num == 2)
			editdel(b, &d);
		else if (editadd(b, &d) < 0)
			return -1;
	}
	return r < 0 ? -1 : 0;
}
