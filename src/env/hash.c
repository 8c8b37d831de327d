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

/* four independent lanes of 8 bytes (a literal of megabytes hashes at
 * several bytes per cycle, not one), folded into h */
static uint64_t
mixbytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t w[4], l[4] = {K1, K2, ~K1, ~K2};
	int k;

	h = mix(h, n);
	if (n >= 32) {
		for (; n >= 32; n -= 32, s += 32) {
			memcpy(w, s, 32);
			for (k = 0; k < 4; k++)
				l[k] = mix(l[k], w[k]);
		}
		for (k = 0; k < 4; k++)
			h = mix(h, l[k]);
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

/* what a hash call shares: bytes below frozen are the same in every
 * module hashed together (the input's pool, which passes only append to),
 * so they are hashed by offset, not content */
typedef struct {
	const HloModule *m;
	uint64_t *memo;		/* shape hashes, 0: not yet */
	uint32_t frozen;
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
		return a->n ? mixbytes(h, m->bytes + a->v, a->n) : h;
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
env_hash_frozen(const HloModule *m, uint32_t frozen)
{
	Hasher hs = {m, xcalloc(m->nshapes + 1, sizeof *hs.memo), frozen};
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
env_hash_module(const HloModule *m)
{
	return env_hash_frozen(m, 0);
}
