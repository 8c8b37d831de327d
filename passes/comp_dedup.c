/* comp_dedup.c: "computation-deduplicator", xla's
 * HloComputationDeduplicator.
 *
 * Computations are visited callees first. One that is not the entry, not
 * a fusion computation, has at most 128 instructions, at most 1024 bytes
 * of constants and no collective among its callers is replaced by the
 * first earlier computation that prints the same in xla's canonical form:
 * instruction by instruction in post order, the same opcode, shape with
 * layout, operand positions, parameter numbers, attributes (metadata
 * aside) and called computations (equal or already deduplicated to the
 * same one). Callers are repointed and the replaced computations deleted.
 */
#include <stdlib.h>
#include <string.h>

#include "pass.h"

typedef struct {
	uint32_t n;		/* instructions in post order */
	uint32_t *order;
	uint32_t *pos;		/* instruction -> position */
	uint32_t hash;
} Canon;

static uint32_t
find(const uint32_t *rep, uint32_t c)
{
	while (rep[c] != c)
		c = rep[c];
	return c;
}

static const uint8_t *
ignored(void)
{
	static const uint8_t ign[A_COUNT] = {
		[A_METADATA] = 1, [A_ORIGIN] = 1, [A_STATISTICS] = 1,
	};

	return ign;
}

static int
candidate(const HloModule *m, uint32_t c, const uint8_t *coll)
{
	const HloComp *cp = &m->comps[c];
	uint32_t i, live = 0;
	int64_t bytes = 0, b;

	if (c == m->entry || (cp->flags & HC_FUSION) || coll[c])
		return 0;
	for (i = 0; i < cp->nins; i++) {
		if (cp->ins[i].flags & HI_DEAD)
			continue;
		if (++live > 128)
			return 0;
		if (cp->ins[i].op != HOP_CONSTANT)
			continue;
		b = hlo_shape_bytes(m, cp->ins[i].shape);
		if (b < 0 || (bytes += b) > 1024)
			return 0;
	}
	return cp->root < cp->nins;
}

static void
canon(const HloModule *m, uint32_t c, const uint32_t *rep, Canon *k,
	PassCtx *ctx)
{
	const HloComp *cp = &m->comps[c];
	uint32_t i, j, h = pass_hash_mix(0x51, cp->thread);

	k->order = pass_alloc(ctx, (cp->nins + 1) * sizeof *k->order);
	k->pos = pass_alloc(ctx, (cp->nins + 1) * sizeof *k->pos);
	k->n = pass_post_order(m, c, k->order, ctx);
	for (i = 0; i < k->n; i++)
		k->pos[k->order[i]] = i;
	for (i = 0; i < k->n; i++) {
		const HloInstr *in = &cp->ins[k->order[i]];

		h = pass_hash_mix(h, (uint64_t)in->op << 32 | in->shape);
		h = pass_hash_mix(h, (uint64_t)in->nops << 32 | in->nattrs);
		if (in->op == HOP_PARAMETER)
			h = pass_hash_mix(h, in->num);
		for (j = 0; j < in->nops; j++)
			h = pass_hash_mix(h, k->pos[m->ids[in->ops + j]]);
		for (j = 0; j < in->ncalled; j++)
			h = pass_hash_mix(h, find(rep, m->ids[in->called + j]));
	}
	k->hash = pass_hash_mix(h, k->pos[cp->root]);
}

static int
same(const HloModule *m, uint32_t a, const Canon *x, uint32_t b,
	const Canon *y, const uint32_t *rep)
{
	const HloComp *ca = &m->comps[a], *cb = &m->comps[b];
	uint32_t i, j;

	if (x->hash != y->hash || x->n != y->n || ca->thread != cb->thread ||
	    x->pos[ca->root] != y->pos[cb->root])
		return 0;
	for (i = 0; i < x->n; i++) {
		const HloInstr *p = &ca->ins[x->order[i]];
		const HloInstr *q = &cb->ins[y->order[i]];

		if (p->op != q->op || p->shape != q->shape ||
		    p->nops != q->nops || p->ncalled != q->ncalled ||
		    p->num != q->num)
			return 0;
		for (j = 0; j < p->nops; j++)
			if (x->pos[m->ids[p->ops + j]] !=
			    y->pos[m->ids[q->ops + j]])
				return 0;
		for (j = 0; j < p->ncalled; j++)
			if (find(rep, m->ids[p->called + j]) !=
			    find(rep, m->ids[q->called + j]))
				return 0;
		if (!hlo_attrs_equal(m, p, q, ignored()))
			return 0;
	}
	return 1;
}

/* computations some collective calls */
static uint8_t *
collective_callees(const HloModule *m, PassCtx *ctx)
{
	uint8_t *coll = pass_zalloc(ctx, m->ncomps + 1, 1);
	uint32_t c, i, k, d;

	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++) {
			const HloInstr *in = &m->comps[c].ins[i];

			if ((in->flags & HI_DEAD) ||
			    !(hlo_opinfo[in->op].flags & OPF_COLL))
				continue;
			for (k = 0; k < in->ncalled; k++)
				if ((d = m->ids[in->called + k]) < m->ncomps)
					coll[d] = 1;
		}
	return coll;
}

int
pass_comp_dedup(HloModule *m, PassCtx *ctx)
{
	uint32_t n = m->ncomps, *order, *rep, *tab, mask, cap, c, i, j, k;
	uint8_t *coll, *drop;
	Canon *can;
	int cnt, changed = 0;

	order = pass_alloc(ctx, (n + 1) * sizeof *order);
	if ((cnt = pass_comp_post_order(m, order)) < 0)
		return pass_err_cycle(ctx, m, HLO_NONE);
	rep = pass_alloc(ctx, (n + 1) * sizeof *rep);
	can = pass_zalloc(ctx, n + 1, sizeof *can);
	for (c = 0; c < n; c++)
		rep[c] = c;
	for (cap = 16; cap < 2 * n + 2; cap *= 2)
		;
	mask = cap - 1;
	tab = pass_zalloc(ctx, cap, sizeof *tab);
	coll = collective_callees(m, ctx);
	for (i = 0; i < (uint32_t)cnt; i++) {
		c = order[i];
		if (!candidate(m, c, coll))
			continue;
		canon(m, c, rep, &can[c], ctx);
		for (j = can[c].hash & mask; tab[j]; j = (j + 1) & mask)
			if (same(m, c, &can[c], tab[j] - 1, &can[tab[j] - 1],
			    rep))
				break;
		if (tab[j]) {
			rep[c] = tab[j] - 1;
			changed = 1;
			ctx->stats.rewrites++;
		} else {
			tab[j] = c + 1;
		}
	}
	if (!changed)
		return 0;
	drop = pass_zalloc(ctx, n + 1, 1);
	for (c = 0; c < n; c++) {
		HloComp *cp = &m->comps[c];

		drop[c] = rep[c] != c;
		for (j = 0; j < cp->nins; j++)
			for (k = 0; k < cp->ins[j].ncalled; k++) {
				uint32_t *d = &m->ids[cp->ins[j].called + k];

				if (*d < n)
					*d = find(rep, *d);
			}
	}
	pass_drop_comps(m, drop);
	return 1;
}
