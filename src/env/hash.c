/* hash.c: the structural hash of a module that keys the environment's
 * transposition table: opcodes, shapes (by content, not by interned id),
 * operands, control predecessors, called computations, attributes and
 * literals of the live instructions of every computation, and the entry.
 * Instruction and computation names are left out, so that two pass orders
 * that build the same graph under different fresh names meet.
 * env_hash_frozen hashes the strings and byte attributes (literals,
 * metadata) that lie in the bytes every module derived from one input
 * shares by their offset: the pools only grow, so equal offsets there
 * mean equal content.
 * env_hash_cached also keeps, in an EnvLitCache, the content hashes of
 * the big literals past the frozen bytes (the constants a pass made, such
 * as constant folding's), so that the steps of one episode after the one
 * that made them do not hash their megabytes again; the hash is the same.
 */
#include <stdlib.h>
#include <string.h>

#include "envi.h"

#define K1 0x9e3779b97f4a7c15ull
#define K2 0xff51afd7ed558ccdull

static uint64_t
mix(uint64_t h, uint64_t w)
{
	h ^= w * K1;
	h = (h << 31 | h >> 33) * K2;
	return h;
}

/* the four lanes of mixbytes over the whole 32-byte blocks of s[0..n) */
static void
lanes(const unsigned char *s, size_t n, uint64_t l[4])
{
	uint64_t w[4];
	int k;

	l[0] = K1, l[1] = K2, l[2] = ~K1, l[3] = ~K2;
	for (; n >= 32; n -= 32, s += 32) {
		memcpy(w, s, 32);
		for (k = 0; k < 4; k++)
			l[k] = mix(l[k], w[k]);
	}
}

/* mixbytes's h once its lanes l are known (NULL: computed here) */
static uint64_t
mixlanes(uint64_t h, const void *p, size_t n, const uint64_t *l)
{
	const unsigned char *s = p;
	uint64_t w[4], own[4];
	int k;

	h = mix(h, n);
	if (n >= 32) {
		if (!l) {
			lanes(s, n, own);
			l = own;
		}
		for (k = 0; k < 4; k++)
			h = mix(h, l[k]);
		s += n & ~(size_t)31;
		n &= 31;
	}
	for (; n >= 8; n -= 8, s += 8) {
		memcpy(w, s, 8);
		h = mix(h, w[0]);
	}
	if (n) {
		w[0] = 0;
		memcpy(w, s, n);
		h = mix(h, w[0]);
	}
	return h;
}

/* four independent lanes of 8 bytes (a literal of megabytes hashes at
 * several bytes per cycle, not one), folded into h */
static uint64_t
mixbytes(uint64_t h, const void *p, size_t n)
{
	return mixlanes(h, p, n, NULL);
}

/* the literal cache: open addressing on (offset, length); an entry also
 * holds the literal's first and last 8 bytes, checked on every hit */
#define LIT_MIN 256		/* smaller literals are hashed every time */

typedef struct {
	uint32_t off, n;	/* n 0: empty */
	uint64_t head, tail;
	uint64_t l[4];
} LitEntry;

struct EnvLitCache {
	LitEntry *e;
	uint32_t cap, n;
};

EnvLitCache *
env_litcache_new(void)
{
	return xcalloc(1, sizeof(EnvLitCache));
}

void
env_litcache_clear(EnvLitCache *lc)
{
	if (lc && lc->n) {
		memset(lc->e, 0, lc->cap * sizeof *lc->e);
		lc->n = 0;
	}
}

void
env_litcache_free(EnvLitCache *lc)
{
	if (lc)
		free(lc->e);
	free(lc);
}

static uint32_t
litslot(const EnvLitCache *lc, uint32_t off, uint32_t n)
{
	uint32_t i = (uint32_t)(((uint64_t)off * K1 + n) >> 32) &
		(lc->cap - 1);

	while (lc->e[i].n && (lc->e[i].off != off || lc->e[i].n != n))
		i = (i + 1) & (lc->cap - 1);
	return i;
}

static void
litgrow(EnvLitCache *lc)
{
	LitEntry *old = lc->e;
	uint32_t oc = lc->cap, i;

	lc->cap = oc ? 2 * oc : 256;
	lc->e = xcalloc(lc->cap, sizeof *lc->e);
	for (i = 0; i < oc; i++)
		if (old[i].n)
			lc->e[litslot(lc, old[i].off, old[i].n)] = old[i];
	free(old);
}

/* mixbytes(h, bytes + off, n) through the cache */
static uint64_t
mixlit(EnvLitCache *lc, uint64_t h, const char *bytes, uint32_t off,
	uint32_t n)
{
	const char *p = bytes + off;
	uint64_t head, tail;
	LitEntry *e;

	if (!lc || n < LIT_MIN)
		return mixbytes(h, p, n);
	memcpy(&head, p, 8);
	memcpy(&tail, p + n - 8, 8);
	if (2 * (lc->n + 1) > lc->cap)
		litgrow(lc);
	e = &lc->e[litslot(lc, off, n)];
	if (!e->n) {
		e->off = off;
		e->n = n;
		lc->n++;
	} else if (e->head == head && e->tail == tail) {
		return mixlanes(h, p, n, e->l);
	}
	e->head = head;
	e->tail = tail;
	lanes((const unsigned char *)p, n, e->l);
	return mixlanes(h, p, n, e->l);
}

/* what a hash call shares: bytes below frozen are the same in every
 * module hashed together (the input's pool, which passes only append to),
 * so they are hashed by offset, not content */
typedef struct {
	const HloModule *m;
	uint64_t *memo;		/* shape hashes, 0: not yet */
	uint32_t frozen;
	EnvLitCache *lits;	/* NULL: none */
} Hasher;

static uint64_t
strhash(const Hasher *hs, uint32_t id)
{
	const char *s = hlo_cstr(hs->m, id);

	if (id < hs->frozen)
		return mix(K2, id);
	return id ? mixbytes(0, s, strlen(s)) : 0;
}

/* the shape's hash, memoized in memo[s] (0: not yet) */
static uint64_t
shapehash(const Hasher *hs, uint32_t s)
{
	const HloModule *m = hs->m;
	uint64_t *memo = hs->memo;
	const HloShape *sh;
	uint64_t h;
	uint32_t i, n;

	if (s >= m->nshapes)
		return 1;
	if (memo[s])
		return memo[s];
	sh = hlo_sh(m, s);
	h = mix(0, sh->type | (uint64_t)sh->flags << 8 |
		(uint64_t)sh->rank << 16);
	h = mix(h, sh->dynmask);
	h = mix(h, strhash(hs, sh->tail));
	if (sh->type == TY_TUPLE || sh->type == TY_BUFFER) {
		h = mix(h, sh->ntuple);
		for (i = 0; i < sh->ntuple; i++)
			h = mix(h, shapehash(hs, m->ids[sh->tuple + i]));
	} else {
		n = sh->rank * (sh->flags & SH_LAYOUT ? 2u : 1u);
		h = mixbytes(h, m->ints + sh->dims, n * 8u);
	}
	if (!h)
		h = 1;
	memo[s] = h;
	return h;
}

static uint64_t
attrhash(const Hasher *hs, const HloAttr *a, uint64_t h)
{
	const HloModule *m = hs->m;

	h = mix(h, a->key | (uint64_t)a->kind << 16 | (uint64_t)a->n << 32);
	if (a->name)
		h = mix(h, strhash(hs, a->name));
	switch (a->kind) {
	case K_INT:
	case K_BOOL:
		return mix(h, (uint64_t)a->v);
	case K_INTS:
	case K_SLICE:
	case K_PAD:
	case K_WINDOW:
		return a->n ? mixbytes(h, m->ints + a->v, a->n * 8u) : h;
	default:
		if (a->v == HLO_ELIDED)
			return mix(h, K2);
		if (a->v + (int64_t)a->n <= hs->frozen)
			return mix(h, (uint64_t)a->v);
		return a->n ? mixlit(hs->lits, h, m->bytes, (uint32_t)a->v,
			a->n) : h;
	}
}

/* ids two to a word; the count is hashed by the caller */
static uint64_t
mixids(uint64_t h, const uint32_t *v, uint32_t n)
{
	uint32_t k;

	for (k = 0; k + 1 < n; k += 2)
		h = mix(h, v[k] | (uint64_t)v[k + 1] << 32);
	return k < n ? mix(h, v[k]) : h;
}

static uint64_t
instrhash(const Hasher *hs, const HloInstr *in, uint64_t h)
{
	const HloModule *m = hs->m;
	uint32_t k;

	h = mix(h, in->op | (uint64_t)(in->flags & ~HI_DEAD) << 16 |
		(uint64_t)in->nops << 32 | (uint64_t)in->ncalled << 48 |
		(uint64_t)in->nctrl << 56);
	h = mix(h, shapehash(hs, in->shape) ^ in->nattrs);
	h = mixids(h, m->ids + in->ops, in->nops);
	h = mixids(h, m->ids + in->called, in->ncalled);
	h = mixids(h, m->ids + in->ctrl, in->nctrl);
	if (in->op == HOP_PARAMETER)
		h = mix(h, (uint64_t)in->num);
	for (k = 0; k < in->nattrs; k++)
		h = attrhash(hs, &m->attrv[in->attrs + k], h);
	return h;
}

uint64_t
env_hash_cached(const HloModule *m, uint32_t frozen, EnvLitCache *lits)
{
	Hasher hs = {m, xcalloc(m->nshapes + 1, sizeof *hs.memo), frozen,
		lits};
	uint64_t h = mix(0, m->entry | (uint64_t)m->ncomps << 32);
	uint32_t c, i;

	for (c = 0; c < m->ncomps; c++) {
		const HloComp *cp = &m->comps[c];

		h = mix(h, cp->root | (uint64_t)cp->flags << 32);
		h = mix(h, strhash(&hs, cp->thread));
		for (i = 0; i < cp->nins; i++)
			if (!(cp->ins[i].flags & HI_DEAD))
				h = instrhash(&hs, &cp->ins[i], h);
	}
	free(hs.memo);
	return h ? h : 1;
}

uint64_t
env_hash_frozen(const HloModule *m, uint32_t frozen)
{
	return env_hash_cached(m, frozen, NULL);
}

uint64_t
env_hash_module(const HloModule *m)
{
	return env_hash_frozen(m, 0);
}
