/* cse.c: "cse", xla's HloCSE (layout insensitive, as in the CPU and GPU
 * pipelines, unless the module has a bitcast: then shapes compare with
 * their layouts, pass_layout_sensitive).
 *
 * Per computation: first identical constants (same shape ignoring
 * layout, same value bit for bit) are merged, the first in array order
 * kept. Then, in xla's post order, every instruction that has operands
 * (or is partition-id / replica-id), has no side effect, no control
 * dependencies and no MUST_FUSE frontend attribute is merged into an
 * earlier identical one: same opcode, shape (ignoring layout), operands
 * (operands of commutative binary ops in either order; iotas compare by
 * dimension and shape), backend_config, sharding when both have one, all
 * other attributes but metadata and frontend attributes, and called
 * computations equal as xla's HloComputation::operator== (deep, layout
 * sensitive). The replaced instruction and the operands only it used are
 * deleted. After-all and add-dependency never merge. Equal iotas used by
 * the same instruction are merged too. With cse_only_scalars (as
 * while_loop_unroller runs it) only rank-0 constants and instructions
 * take part.
 */
#include <stdlib.h>
#include <string.h>

#include "pass.h"

typedef struct {
	HloModule *m;
	PassEdit *ed;
	PassCtx *ctx;
	uint32_t *tab;		/* instruction + 1, 0 empty */
	uint32_t *hash;		/* per instruction in tab */
	uint32_t mask;
	int ls;			/* layout sensitive */
	int only_scalars;	/* PassOptions.cse_only_scalars */
} Cse;

/* ShapeUtil::IsScalar: an array of rank 0 */
static int
scalar(const HloModule *m, uint32_t shape)
{
	const HloShape *sh = hlo_sh(m, shape);

	return sh->type != TY_TUPLE && sh->type != TY_TOKEN &&
		sh->type != TY_OPAQUE && sh->rank == 0;
}

static uint32_t
hashbytes(uint32_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	while (n--)
		h = (h ^ *s++) * 16777619u;
	return h;
}

static const uint8_t *
ignored(void)
{
	static const uint8_t ign[A_COUNT] = {
		[A_METADATA] = 1, [A_ORIGIN] = 1, [A_STATISTICS] = 1,
		[A_FRONTEND_ATTRIBUTES] = 1, [A_SHARDING] = 1,
	};

	return ign;
}

static uint32_t
hashints(uint32_t h, const int64_t *v, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		h = pass_hash_mix(h, v[i]);
	return h;
}

static uint32_t
hashshape(const HloModule *m, uint32_t s, uint32_t h)
{
	const HloShape *sh = hlo_sh(m, s);

	h = pass_hash_mix(h, sh->type);
	if (sh->type == TY_TUPLE)
		return pass_hash_mix(h, sh->ntuple);
	return hashints(h, hlo_dims(m, sh), sh->rank);
}

/* operands are resolved through ed; iotas hash as 0 (xla's CseKey) */
static uint32_t
hashop(Cse *s, uint32_t x)
{
	uint32_t d = pass_res(s->ed, x);

	return s->m->comps[s->ed->c].ins[d].op == HOP_IOTA ? 0 : d + 1;
}

static uint32_t
hashinstr(Cse *s, uint32_t i)
{
	HloModule *m = s->m;
	const HloInstr *in = &m->comps[s->ed->c].ins[i];
	const HloAttr *a = m->attrv + in->attrs;
	uint32_t h = pass_hash_mix(0x12345, in->op), k, a0, a1;

	h = hashshape(m, in->shape, h);
	if ((hlo_opinfo[in->op].flags & OPF_COMM) && in->nops == 2) {
		a0 = hashop(s, m->ids[in->ops]);
		a1 = hashop(s, m->ids[in->ops + 1]);
		h = pass_hash_mix(h, a0 < a1 ? a0 : a1);
		h = pass_hash_mix(h, a0 < a1 ? a1 : a0);
	} else {
		for (k = 0; k < in->nops; k++)
			h = pass_hash_mix(h, hashop(s, m->ids[in->ops + k]));
	}
	for (k = 0; k < in->ncalled; k++) {
		uint32_t d = m->ids[in->called + k];

		if (d < m->ncomps && m->comps[d].root < m->comps[d].nins)
			h = pass_hash_mix(h,
				m->comps[d].ins[m->comps[d].root].op);
	}
	for (k = 0; k < in->nattrs; k++) {
		if (ignored()[a[k].key])
			continue;
		h = pass_hash_mix(h, a[k].key);
		if (a[k].kind == K_INT || a[k].kind == K_BOOL)
			h = pass_hash_mix(h, a[k].v);
		else if (a[k].kind <= K_WINDOW)
			h = hashints(h, m->ints + a[k].v, a[k].n);
		else
			h = pass_hash_mix(h, a[k].n);
	}
	return h;
}

static int
sameshape(Cse *s, uint32_t a, uint32_t b)
{
	return pass_shape_same(s->m, s->ls, a, b);
}

/* eq_instructions of HloCSE::Run: the same instruction, or two iotas of
 * the same dimension and shape */
static int
eqop(Cse *s, uint32_t a, uint32_t b)
{
	const HloComp *cp = &s->m->comps[s->ed->c];
	const HloInstr *x, *y;

	a = pass_res(s->ed, a);
	b = pass_res(s->ed, b);
	if (a == b)
		return 1;
	x = &cp->ins[a];
	y = &cp->ins[b];
	return x->op == HOP_IOTA && y->op == HOP_IOTA &&
		hlo_attr_int(s->m, x, A_IOTA_DIM, 0) ==
		hlo_attr_int(s->m, y, A_IOTA_DIM, 0) &&
		sameshape(s, x->shape, y->shape);
}

static int
sharding_conflict(const HloModule *m, const HloInstr *a, const HloInstr *b)
{
	const HloAttr *x = hlo_attr(m, a, A_SHARDING);
	const HloAttr *y = hlo_attr(m, b, A_SHARDING);

	if (!x || !y)
		return 0;
	return x->n != y->n || x->v == HLO_ELIDED || y->v == HLO_ELIDED ||
		memcmp(m->bytes + x->v, m->bytes + y->v, x->n);
}

static int
same(Cse *s, uint32_t i, uint32_t j)
{
	HloModule *m = s->m;
	const HloInstr *a = &m->comps[s->ed->c].ins[i];
	const HloInstr *b = &m->comps[s->ed->c].ins[j];
	const uint32_t *p, *q;
	uint32_t k;

	if (a->op != b->op || a->nops != b->nops || a->ncalled != b->ncalled ||
	    !sameshape(s, a->shape, b->shape) || sharding_conflict(m, a, b))
		return 0;
	p = m->ids + a->ops;
	q = m->ids + b->ops;
	if ((hlo_opinfo[a->op].flags & OPF_COMM) && a->nops == 2) {
		if (!(eqop(s, p[0], q[0]) && eqop(s, p[1], q[1])) &&
		    !(eqop(s, p[0], q[1]) && eqop(s, p[1], q[0])))
			return 0;
	} else {
		for (k = 0; k < a->nops; k++)
			if (!eqop(s, p[k], q[k]))
				return 0;
	}
	if (a->op == HOP_AFTERALL || a->op == HOP_ADDDEP)
		return 0;
	if (a->op == HOP_PARAMETER && a->num != b->num)
		return 0;
	if (!hlo_attrs_equal(m, a, b, ignored()))
		return 0;
	for (k = 0; k < a->ncalled; k++)
		if (!pass_comp_equal(m, m->ids[a->called + k],
		    m->ids[b->called + k], 1, s->ctx))
			return 0;
	return 1;
}

/* the representative of i, inserting i when there is none */
static uint32_t
lookup(Cse *s, uint32_t i)
{
	uint32_t h = hashinstr(s, i), j, y;

	for (j = h & s->mask; s->tab[j]; j = (j + 1) & s->mask) {
		y = s->tab[j] - 1;
		if (s->hash[y] == h && same(s, i, y) &&
		    !(s->m->comps[s->ed->c].ins[y].flags & HI_DEAD))
			return y;
	}
	s->tab[j] = i + 1;
	s->hash[i] = h;
	return i;
}

static uint32_t
hashconst(const HloModule *m, const HloInstr *in, const void *lit,
	uint32_t n)
{
	uint32_t h = hashshape(m, in->shape, 0x777);

	h = pass_hash_mix(h, n);
	return hashbytes(h, lit, n < 64 ? n : 64);
}

/* CombineConstants: merges constants of equal shape and value */
static int64_t
combine_constants(Cse *s)
{
	HloModule *m = s->m;
	PassEdit *ed = s->ed;
	uint32_t n = m->comps[ed->c].nins, i, j, y, h, len, ylen;
	const void *lit, *ylit;
	int64_t merged = 0;

	memset(s->tab, 0, (s->mask + 1) * sizeof *s->tab);
	for (i = 0; i < n; i++) {
		const HloInstr *in = &m->comps[ed->c].ins[i];

		if (in->op != HOP_CONSTANT || (in->flags & HI_DEAD) ||
		    ed->ctl[i] || !(lit = hlo_literal(m, in, &len)) ||
		    (s->only_scalars && !scalar(m, in->shape)))
			continue;
		h = hashconst(m, in, lit, len);
		for (j = h & s->mask; s->tab[j]; j = (j + 1) & s->mask) {
			const HloInstr *yn;

			y = s->tab[j] - 1;
			yn = &m->comps[ed->c].ins[y];
			if (s->hash[y] != h || !sameshape(s, in->shape,
			    yn->shape))
				continue;
			ylit = hlo_literal(m, yn, &ylen);
			if (ylen == len && !memcmp(lit, ylit, len))
				break;
		}
		if (!s->tab[j]) {
			s->tab[j] = i + 1;
			s->hash[i] = h;
			continue;
		}
		pass_replace_uses(ed, i, s->tab[j] - 1);
		pass_remove(ed, i);
		merged++;
	}
	memset(s->tab, 0, (s->mask + 1) * sizeof *s->tab);
	return merged;
}

static int
eligible(Cse *s, uint32_t i)
{
	HloModule *m = s->m;
	const HloInstr *in = &m->comps[s->ed->c].ins[i];
	uint32_t n;

	if (in->nops == 0 && in->op != HOP_PARTITIONID &&
	    in->op != HOP_REPLICAID)
		return 0;
	if (in->nattrs && pass_frontend_attr(m, in, "MUST_FUSE", &n))
		return 0;
	if (pass_has_effect(m, in, s->ed->fx, s->ed->nfx))
		return 0;
	if (s->only_scalars && !scalar(m, in->shape))
		return 0;
	return pass_removable(s->ed, i);
}

/* equal iota operands of i become the first of them */
static int64_t
merge_iotas(Cse *s, uint32_t i)
{
	HloModule *m = s->m;
	PassEdit *ed = s->ed;
	const HloInstr *in = &m->comps[ed->c].ins[i];
	uint32_t n = in->nops, k, j, a, b, *ops;
	int64_t cnt = 0;

	for (k = 0; k < n; k++)
		if (m->comps[ed->c].ins[pass_res(ed, m->ids[in->ops + k])].op ==
		    HOP_IOTA)
			break;
	if (k == n || n < 2)
		return 0;
	ops = pass_alloc(s->ctx, n * sizeof *ops);
	for (k = 0; k < n; k++)
		ops[k] = pass_res(ed, m->ids[in->ops + k]);
	for (k = 0; k < n; k++) {
		a = ops[k];
		if (m->comps[ed->c].ins[a].op != HOP_IOTA)
			continue;
		for (j = k + 1; j < n; j++) {
			b = ops[j];
			if (a == b || !eqop(s, a, b))
				continue;
			ops[j] = a;
			pass_edit_set_operands(ed, i, n, ops);
			cnt++;
			if (pass_is_dead(ed, b) && pass_removable(ed, b))
				pass_remove(ed, b);
		}
	}
	return cnt;
}

/* when the root tuple of fusion computation c repeats an operand, the
 * get-tuple-elements of its fusions use the first index */
static void
fix_fusion_users(HloModule *m, uint32_t c)
{
	const HloComp *cp = &m->comps[c];
	const HloInstr *root;
	uint32_t d, i, j, k, n, *first;

	if (!(cp->flags & HC_FUSION) || cp->root >= cp->nins)
		return;
	root = &cp->ins[cp->root];
	if (root->op != HOP_TUPLE || root->nops < 2)
		return;
	n = root->nops;
	first = xreallocarray(NULL, n, sizeof *first);
	for (k = 0, j = 0; k < n; k++) {
		for (first[k] = k, i = 0; i < k; i++)
			if (m->ids[root->ops + i] == m->ids[root->ops + k]) {
				first[k] = i;
				j = 1;
				break;
			}
	}
	for (d = 0; j && d < m->ncomps; d++) {
		HloComp *dp = &m->comps[d];

		for (i = 0; i < dp->nins; i++) {
			HloInstr *f = &dp->ins[i];

			if (f->op != HOP_FUSION || (f->flags & HI_DEAD) ||
			    !f->ncalled || m->ids[f->called] != c)
				continue;
			for (k = 0; k < dp->nins; k++) {
				HloInstr *g = &dp->ins[k];
				HloAttr a;
				int64_t x;

				if (g->op != HOP_GTE || !g->nops ||
				    m->ids[g->ops] != i || (g->flags & HI_DEAD))
					continue;
				x = hlo_attr_int(m, g, A_INDEX, -1);
				if (x < 0 || (uint64_t)x >= n ||
				    first[x] == (uint32_t)x)
					continue;
				a = hlo_mk_int(A_INDEX, first[x]);
				hlo_attr_set(m, d, k, &a);
			}
		}
	}
	free(first);
}

int
pass_cse(HloModule *m, PassCtx *ctx)
{
	PassEdit ed;
	Cse s;
	uint32_t c, i, n, cap, *order, cnt, x, y;
	uint8_t *fx = xmalloc(m->ncomps + 1);
	int changed = 0;
	int64_t before;

	memset(&s, 0, sizeof s);
	s.m = m;
	s.ed = &ed;
	s.ctx = ctx;
	memcpy(fx, pass_comp_effects(m, ctx), m->ncomps);
	pass_reset(ctx);
	pass_edit_init(&ed, m, ctx, fx, m->ncomps);
	/* with bitcasts, layouts are part of the value (pass.h) */
	s.ls = ctx->opt.cse_layout_sensitive || ed.lay;
	s.only_scalars = ctx->opt.cse_only_scalars;
	for (c = 0; c < m->ncomps; c++) {
		n = m->comps[c].nins;
		for (cap = 16; cap < 2 * n + 2; cap *= 2)
			;
		s.tab = pass_zalloc(ctx, cap, sizeof *s.tab);
		s.hash = pass_alloc(ctx, (n + 1) * sizeof *s.hash);
		s.mask = cap - 1;
		pass_edit_begin(&ed, c);
		before = ctx->stats.rewrites;
		ctx->stats.rewrites += combine_constants(&s);
		order = pass_alloc(ctx, (n + 1) * sizeof *order);
		cnt = pass_post_order(m, c, order, ctx);
		for (i = 0; i < cnt; i++) {
			x = order[i];
			if ((m->comps[c].ins[x].flags & HI_DEAD) ||
			    !eligible(&s, x))
				continue;
			y = lookup(&s, x);
			if (y != x) {
				pass_replace_uses(&ed, x, y);
				pass_remove_cascade(&ed, x);
				ctx->stats.rewrites++;
				continue;
			}
			ctx->stats.rewrites += merge_iotas(&s, x);
		}
		if (pass_edit_end(&ed) < 0) {
			pass_edit_free(&ed);
			free(fx);
			return -1;
		}
		if (ctx->stats.rewrites != before) {
			changed = 1;
			fix_fusion_users(m, c);
		}
		pass_reset(ctx);
	}
	pass_edit_free(&ed);
	free(fx);
	return changed;
}
