/* horizontal_loop_fusion.c: "horizontal_loop_fusion", xla:GPU's
 * HorizontalLoopFusion (xla/service/gpu/transforms/horizontal_loop_fusion.cc
 * at openxla/xla 0562dae2930902a86779688cece3d57169e4e856, its helpers in
 * xla/service/gpu/gpu_fusible.cc), with the shared-operand rule of
 * jpli02/xla c4cbd3c (openxla/xla 647c5cbc "Don't allow to fuse DUS with
 * shared operands", December 2024, and PR 20994 "Allow horizontal fusion
 * with shared operands via concatenation", January 2025) and xla's later
 * candidate rules there (PRs 19372 and 19393: kInput fusions rooted in a
 * concatenate are candidates, bitcasts between a candidate and its
 * consumer are looked through; the memory space check; outputs with a
 * layout that is not row-major bitcast to their physical order before
 * they are flattened; variadic reduce-windows left alone).
 *
 * Contract. In every computation xla fuses in (not fused computations,
 * not the to_apply/comparator of reduce, sort, map, ...), consumers are
 * taken from the end of the post order (new fusions pushed on top). The
 * operands of a consumer, each followed up through get-tuple-elements
 * and bitcasts, are candidates when they have no control dependencies,
 * no operand or output in a memory space other than the default one,
 * and are elementwise with operands, or kLoop fusions (not a variadic
 * reduce or reduce-window) or kInput fusions rooted in a concatenate,
 * whose outputs have one element type; when their only users, through
 * get-tuple-elements and bitcasts, are the consumer or the root; when
 * they are small (output elements at most 8192*8192, 128*2048 for a
 * concatenation fusion, and fused instructions at most 128; for the
 * concatenating kind 128*2048 and 30); and, for a fusion rooted
 * in a dynamic-update-slice (or with one in its root tuple), when none
 * of its operands is read by another candidate (in place, the two would
 * write one buffer; at 0562dae: no parameter operand shared, in the
 * concatenating round only, for any candidate).
 * Candidates are stable-sorted by output type, output count, instruction
 * count and elements, and cut into runs of one type, output count and
 * (first round) output shape, of fewer than 32 outputs (64 for plain
 * instructions) and fewer than 500 operands and outputs. A run of two or
 * more becomes one fusion (plain instructions are first made kLoop
 * fusions) calling horizontally_fused_computation with parameters
 * param_I_J: in the first round (kLoop) its root is the tuple of every
 * member's outputs; in the second (kInput) output k of every member is
 * reshaped to one dimension (bitcast to its dimensions in physical
 * order first when its layout is not row-major), the members
 * concatenated, and the root is
 * the tuple of slices that cut them apart again. Each member is replaced
 * by get-tuple-elements of the new fusion, bitcast to its output shape
 * unless that has one dimension (a tuple of them for a multi-output
 * member); duplicate operands are merged.
 *
 * Not done as xla: a member's root tuple is not cloned (xla clones it
 * unused in the kLoop round); the root counts as a harmless user only
 * while nothing uses it (else a fusion could read itself); a member with
 * a side effect, or, in the concatenating round, an output with a
 * dynamic dimension or a tiled layout, never fuses.
 */
#include <stdlib.h>
#include <string.h>

#include "fusion_edit.h"

enum { LOOP_ELEMS = 8192 * 8192, LOOP_INSTRS = 128, SLICED_ELEMS = 128 * 2048,
	SLICED_INSTRS = 30, MAX_BATCH_FUSIONS = 32, MAX_BATCH_PLAIN = 64,
	MAX_PARAM_BYTES = 4000 };

typedef struct {
	uint32_t x;		/* the candidate */
	int type;		/* its unique output type */
	uint32_t nout, ninstr;
	int64_t elems;		/* of its first output */
	uint32_t pos;		/* for a stable sort */
} HfCand;

typedef struct {
	FuEdit e;
	uint32_t *stack;
	uint32_t nstack, capstack;
	uint32_t *mark;		/* per instruction: candidate stamp */
	uint32_t capmark, stamp;
} Hf;

#define M(h) ((h)->e.m)
#define INS(h, x) (&M(h)->comps[(h)->e.c].ins[x])

static void
push(Hf *h, uint32_t x)
{
	h->stack = hlo_grow(h->stack, h->nstack, &h->capstack, 64,
		sizeof *h->stack);
	h->stack[h->nstack++] = x;
}

static uint32_t
output_shape(const HloModule *m, uint32_t c, uint32_t x, uint32_t k)
{
	uint32_t fc, one;
	const uint32_t *o;

	fu_outputs(m, c, x, &fc, &o, &one);
	return m->comps[fc].ins[o[k]].shape;
}

static void
grow_mark(Hf *h, uint32_t need)
{
	uint32_t cap;

	if (need <= h->capmark)
		return;
	cap = 2 * need + 16;
	h->mark = xreallocarray(h->mark, cap, sizeof *h->mark);
	memset(h->mark + h->capmark, 0, (cap - h->capmark) * sizeof *h->mark);
	h->capmark = cap;
}

/* IsShapeDefaultMemorySpace: no array of shape s has a memory space
 * (S(n), n > 0) in its layout */
static int
default_space(const HloModule *m, uint32_t s)
{
	const HloShape *sh = hlo_sh(m, s);
	const char *t;
	uint32_t k;

	if (sh->type == TY_TUPLE) {
		for (k = 0; k < sh->ntuple; k++)
			if (!default_space(m, hlo_tuple_elems(m, sh)[k]))
				return 0;
		return 1;
	}
	if (!sh->tail)
		return 1;
	for (t = hlo_cstr(m, sh->tail); (t = strstr(t, "S(")) != NULL; t += 2)
		if (t[2] != '0' || t[3] != ')')
			return 0;
	return 1;
}

/* IsConcatenationInputFusion: a kInput fusion rooted in a concatenate */
static int
concat_input(const HloModule *m, uint32_t c, uint32_t x)
{
	uint32_t fc;

	if (!fu_is_fusion(m, c, x, FK_INPUT))
		return 0;
	fc = fu_fused_comp(m, c, x);
	return m->comps[fc].ins[m->comps[fc].root].op == HOP_CONCAT;
}

/* IsFusibleCandidate; the output type in *type */
static int
fusible_candidate(Hf *h, uint32_t x, int *type)
{
	HloModule *m = M(h);
	const HloInstr *in = INS(h, x);
	uint32_t c = h->e.c, n, k, fc, one;
	const uint32_t *o;

	if (h->e.ctl[x] || pass_has_effect(m, in, h->e.fx, h->e.nfx))
		return 0;
	if (hlo_sh(m, in->shape)->type == TY_TUPLE && in->op ==
	    HOP_REDUCEWINDOW)
		return 0;	/* IsNestableVariadicReduceWindow */
	if (!default_space(m, in->shape))
		return 0;
	for (k = 0; k < in->nops; k++)
		if (!default_space(m, hlo_ins(m, c, hlo_ops(m, in)[k])->shape))
			return 0;
	if (fu_elementwise(in) && in->nops > 0) {
		*type = hlo_sh(m, in->shape)->type;
		return *type < TY_TUPLE;
	}
	if (!fu_is_fusion(m, c, x, FK_LOOP) && !concat_input(m, c, x))
		return 0;
	fc = fu_fused_comp(m, c, x);
	if (hlo_sh(m, in->shape)->type == TY_TUPLE &&
	    fu_is_fusion(m, c, x, FK_LOOP) &&
	    (m->comps[fc].ins[m->comps[fc].root].op == HOP_REDUCE ||
	    m->comps[fc].ins[m->comps[fc].root].op == HOP_REDUCEWINDOW))
		return 0;	/* IsNestableVariadicReduction / -Window */
	n = fu_outputs(m, c, x, &fc, &o, &one);
	if (n == 0)
		return 0;
	*type = hlo_sh(m, m->comps[fc].ins[o[0]].shape)->type;
	for (k = 0; k < n; k++)
		if (hlo_sh(m, m->comps[fc].ins[o[k]].shape)->type != *type)
			return 0;
	return *type < TY_TUPLE;
}

/* IsConsumerTheOnlyNonRootUser */
static int
only_user(Hf *h, uint32_t x, uint32_t consumer)
{
	const FuList *l = &h->e.usr[x];
	uint32_t k, u, root = M(h)->comps[h->e.c].root;

	for (k = 0; k < l->n; k++) {
		u = l->v[k];
		if (INS(h, u)->op == HOP_GTE || INS(h, u)->op == HOP_BITCAST) {
			if (!only_user(h, u, consumer))
				return 0;
		} else if (u != consumer && (u != root ||
		    h->e.usr[root].n > 0)) {
			return 0;
		}
	}
	return 1;
}

/* what the concatenating round can flatten: no dynamic dimension, no
 * tiling or memory space */
static int
plain_layout(const HloModule *m, uint32_t s)
{
	const HloShape *sh = hlo_sh(m, s);

	return !sh->dynmask && !sh->tail && sh->rank <= 64;
}

static int
row_major(const HloModule *m, uint32_t s)
{
	const HloShape *sh = hlo_sh(m, s);
	uint32_t d;

	if (!(sh->flags & SH_LAYOUT))
		return 1;
	for (d = 0; d < sh->rank; d++)
		if (hlo_m2m(m, sh)[d] != sh->rank - 1 - d)
			return 0;
	return 1;
}

/* IsProfitableFusionCandidate, and what the concatenation needs */
static int
profitable(Hf *h, const HfCand *cd, int sliced)
{
	HloModule *m = M(h);
	uint32_t k;

	if (cd->elems > (sliced || concat_input(m, h->e.c, cd->x) ?
	    SLICED_ELEMS : LOOP_ELEMS))
		return 0;
	if (INS(h, cd->x)->op == HOP_FUSION && cd->ninstr > (sliced ?
	    SLICED_INSTRS : LOOP_INSTRS))
		return 0;
	if (sliced)
		for (k = 0; k < cd->nout; k++)
			if (!plain_layout(m, output_shape(m, h->e.c, cd->x,
			    k)))
				return 0;
	return 1;
}

/* IsDynamicUpdateSliceFusion: a fusion whose root, or an element of its
 * root tuple, is a dynamic-update-slice */
static int
dus_fusion(Hf *h, uint32_t x)
{
	const HloModule *m = M(h);
	uint32_t fc, k;
	const HloInstr *r;

	if (INS(h, x)->op != HOP_FUSION || (fc = fu_fused_comp(m, h->e.c, x))
	    >= m->ncomps)
		return 0;
	r = hlo_ins(m, fc, m->comps[fc].root);
	if (r->op != HOP_TUPLE)
		return r->op == HOP_DYNUPDSLICE;
	for (k = 0; k < r->nops; k++)
		if (hlo_ins(m, fc, hlo_ops(m, r)[k])->op == HOP_DYNUPDSLICE)
			return 1;
	return 0;
}

/* AnyOperandIsSharedAmongFusions: an operand of x (of any opcode) is
 * read by another candidate too */
static int
shares_operand(Hf *h, uint32_t x)
{
	const HloInstr *in = INS(h, x);
	uint32_t k, j, o;

	for (k = 0; k < in->nops; k++) {
		o = hlo_ops(M(h), INS(h, x))[k];
		for (j = 0; j < h->e.usr[o].n; j++)
			if (h->e.usr[o].v[j] != x && h->mark[h->e.usr[o].v[j]]
			    == h->stamp)
				return 1;
	}
	return 0;
}

static int
cand_cmp(const void *pa, const void *pb)
{
	const HfCand *a = pa, *b = pb;

	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	if (a->nout != b->nout)
		return a->nout < b->nout ? -1 : 1;
	if (a->ninstr != b->ninstr)
		return a->ninstr < b->ninstr ? -1 : 1;
	if (a->elems != b->elems)
		return a->elems < b->elems ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* FusionCandidates::Initialize: the candidates of consumer in *out */
static uint32_t
candidates(Hf *h, uint32_t consumer, int sliced, HfCand **out)
{
	HloModule *m = M(h);
	uint32_t n = INS(h, consumer)->nops, k, x, cnt = 0, all = 0, *seen;
	HfCand *cd;
	int type;

	seen = xreallocarray(NULL, n + 1, sizeof *seen);
	cd = xreallocarray(NULL, n + 1, sizeof *cd);
	grow_mark(h, m->comps[h->e.c].nins + 1);
	h->stamp++;
	for (k = 0; k < n; k++) {
		x = hlo_ops(m, INS(h, consumer))[k];
		while (INS(h, x)->op == HOP_GTE || INS(h, x)->op ==
		    HOP_BITCAST)	/* LatestNonTrivialAncestor */
			x = hlo_ops(m, INS(h, x))[0];
		if (h->mark[x] == h->stamp || !fusible_candidate(h, x, &type))
			continue;
		h->mark[x] = h->stamp;
		seen[all++] = x;
	}
	for (k = 0; k < all; k++) {
		HfCand c = { seen[k], 0, 0, 0, 0, cnt };

		fusible_candidate(h, c.x, &c.type);
		c.nout = INS(h, c.x)->op == HOP_FUSION ? (fu_multi_output(m,
			h->e.c, c.x) ? hlo_sh(m, INS(h, c.x)->shape)->ntuple :
			1) : 1;
		c.ninstr = fu_instr_count(m, h->e.c, c.x);
		c.elems = hlo_shape_elems(m, output_shape(m, h->e.c, c.x, 0));
		if (!only_user(h, c.x, consumer) || !profitable(h, &c, sliced) ||
		    (dus_fusion(h, c.x) && shares_operand(h, c.x)))
			continue;
		cd[cnt++] = c;
	}
	free(seen);
	qsort(cd, cnt, sizeof *cd, cand_cmp);
	*out = cd;
	return cnt;
}

/* GetNextSpanOfFusions from *pos: its length */
static uint32_t
next_span(Hf *h, const HfCand *cd, uint32_t n, uint32_t *pos, int sliced)
{
	HloModule *m = M(h);
	uint32_t l = *pos, r, nout = 0, io = 0, max;

	if (l >= n)
		return 0;
	max = sliced || INS(h, cd[l].x)->op == HOP_FUSION ?
		MAX_BATCH_FUSIONS : MAX_BATCH_PLAIN;
	for (r = l; r < n; r++) {
		if (cd[r].type != cd[l].type || cd[r].nout != cd[l].nout)
			break;
		if (!sliced && !pass_shape_same(m, 1, hlo_shape_with_type(m,
		    output_shape(m, h->e.c, cd[l].x, 0), TY_F32),
		    hlo_shape_with_type(m, output_shape(m, h->e.c, cd[r].x, 0),
		    TY_F32)))
			break;
		nout += cd[r].nout;
		if (nout >= max)
			break;
		io += INS(h, cd[r].x)->nops + cd[r].nout;
		if (io * 8 >= MAX_PARAM_BYTES)
			break;
	}
	if (r == l)
		r++;
	*pos = r;
	return r - l;
}

/* the member's operands as its fusion's: a plain instruction's unique
 * operands (MakeFusionInstruction) */
static uint32_t
member_ops(Hf *h, uint32_t x, uint32_t *ops)
{
	const HloInstr *in = INS(h, x);
	uint32_t k, j, n = 0, o;

	for (k = 0; k < in->nops; k++) {
		o = hlo_ops(M(h), in)[k];
		if (in->op != HOP_FUSION)
			for (j = 0; j < n && ops[j] != o; j++)
				;
		else
			j = n;
		if (j == n)
			ops[n++] = o;
	}
	return n;
}

/* the member's instructions cloned into fc, its parameters read as
 * params[0..); its outputs' clones in outs */
static void
clone_member(Hf *h, uint32_t x, uint32_t fc, const uint32_t *params,
	const uint32_t *bound, uint32_t *outs)
{
	HloModule *m = M(h);
	uint32_t sc, n, *map, *order, cnt, t, j, k, r, one, *ops;
	const uint32_t *o;

	if (INS(h, x)->op != HOP_FUSION) {
		n = INS(h, x)->nops;
		ops = xreallocarray(NULL, n + 1, sizeof *ops);
		for (k = 0; k < n; k++) {
			for (j = 0; bound[j] != hlo_ops(m, INS(h, x))[k]; j++)
				;
			ops[k] = params[j];
		}
		outs[0] = pass_copy_instr(m, fc, h->e.c, x, n, ops);
		m->comps[fc].ins[outs[0]].name = INS(h, x)->name;
		free(ops);
		return;
	}
	sc = fu_fused_comp(m, h->e.c, x);
	n = m->comps[sc].nins;
	map = xreallocarray(NULL, n + 1, sizeof *map);
	order = xreallocarray(NULL, n + 1, sizeof *order);
	cnt = hlo_topo(m, sc, order);
	r = m->comps[sc].root;
	for (t = 0; t < cnt; t++) {
		const HloInstr *in = &m->comps[sc].ins[order[t]];

		if (in->op == HOP_PARAMETER) {
			map[order[t]] = params[in->num];
			continue;
		}
		if (order[t] == r && in->op == HOP_TUPLE)
			continue;
		ops = xreallocarray(NULL, in->nops + 1, sizeof *ops);
		for (k = 0; k < in->nops; k++)
			ops[k] = map[hlo_ops(m, in)[k]];
		map[order[t]] = pass_copy_instr(m, fc, sc, order[t], in->nops,
			ops);
		if (h->e.ncalls[sc] == 1)	/* sc goes: names kept */
			m->comps[fc].ins[map[order[t]]].name = m->comps[sc].ins[
				order[t]].name;
		free(ops);
	}
	n = fu_outputs(m, h->e.c, x, &sc, &o, &one);
	for (k = 0; k < n; k++)
		outs[k] = map[o[k]];
	free(map);
	free(order);
}

static uint32_t
add_in(HloModule *m, uint32_t fc, int op, uint32_t shape, const char *name,
	uint32_t nops, const uint32_t *ops)
{
	return hlo_instr_add(m, fc, op, shape, fu_edit_name(m, name), nops,
		ops);
}

/* a one-dimensional shape of n elements, with a layout if like has one
 * (MakeShapeWithDenseLayout) */
static uint32_t
vector_shape(HloModule *m, uint32_t like, int64_t n)
{
	int64_t m2m = 0;

	return hlo_shape(m, hlo_sh(m, like)->type, 1, &n, hlo_sh(m,
		like)->flags & SH_LAYOUT ? &m2m : NULL, 0, 0);
}

/* MakeShapeWithDescendingLayoutAndSamePhysicalLayout: the dimensions
 * of s major first, in a row-major layout */
static uint32_t
physical_shape(HloModule *m, uint32_t s)
{
	const HloShape *sh = hlo_sh(m, s);
	int64_t dims[64], m2m[64];
	uint32_t d, r = sh->rank;

	for (d = 0; d < r && r <= 64; d++) {
		dims[d] = hlo_dims(m, sh)[hlo_m2m(m, sh)[r - 1 - d]];
		m2m[d] = r - 1 - d;
	}
	return hlo_shape(m, sh->type, r, dims, m2m, 0, 0);
}

/* the sliced root: per output k, the members' outputs flattened and
 * concatenated, then sliced apart; into root[nout * j + k] */
static void
sliced_root(HloModule *m, uint32_t fc, const uint32_t *outs, uint32_t nm,
	uint32_t nout, uint32_t *root)
{
	uint32_t k, j, *cat = xreallocarray(NULL, nm + 1, sizeof *cat), s, x;
	int64_t total, el, t[3];
	HloAttr a;

	for (k = 0; k < nout; k++) {
		total = 0;
		for (j = 0; j < nm; j++) {
			x = outs[nout * j + k];
			s = m->comps[fc].ins[x].shape;
			el = hlo_shape_elems(m, s);
			total += el;
			if (hlo_sh(m, s)->rank != 1 && !row_major(m, s))
				x = add_in(m, fc, HOP_BITCAST, physical_shape(m,
					s), "bitcast", 1, &x);
			if (hlo_sh(m, s)->rank != 1)
				x = add_in(m, fc, HOP_RESHAPE, vector_shape(m,
					s, el), "reshape", 1, &x);
			cat[j] = x;
		}
		s = vector_shape(m, m->comps[fc].ins[cat[0]].shape, total);
		x = add_in(m, fc, HOP_CONCAT, s, "concatenate", nm, cat);
		a = hlo_mk_ints(m, A_DIMENSIONS, (int64_t[]){0}, 1);
		hlo_attr_set(m, fc, x, &a);
		t[0] = 0;
		t[2] = 1;
		for (j = 0; j < nm; j++) {
			el = hlo_shape_elems(m, m->comps[fc].ins[cat[j]].shape);
			t[1] = t[0] + el;
			root[nout * j + k] = add_in(m, fc, HOP_SLICE,
				vector_shape(m, s, el), "slice", 1, &x);
			a = hlo_mk_ints(m, A_SLICE, t, 3);
			a.kind = K_SLICE;
			hlo_attr_set(m, fc, root[nout * j + k], &a);
			t[0] = t[1];
		}
	}
	free(cat);
}

/* each member replaced by get-tuple-elements of f (bitcast back) */
static void
replace_members(Hf *h, const uint32_t *mem, uint32_t nm, uint32_t nout,
	uint32_t f)
{
	HloModule *m = M(h);
	uint32_t j, k, id = 0, *rep = xreallocarray(NULL, nout + 1, sizeof
		*rep), g, s, fs, r;

	for (j = 0; j < nm; j++) {
		for (k = 0; k < nout; k++) {
			s = output_shape(m, h->e.c, mem[j], k);
			fs = INS(h, f)->shape;
			g = fu_edit_gte(&h->e, f, hlo_tuple_elems(m, hlo_sh(m,
				fs))[id], id);
			id++;
			rep[k] = hlo_sh(m, s)->rank == 1 ? g : fu_edit_add(&h->e,
				HOP_BITCAST, s, "bitcast", 1, &g);
		}
		r = rep[0];
		if (nout > 1)
			r = fu_edit_add(&h->e, HOP_TUPLE, INS(h, mem[j])->shape,
				"tuple", nout, rep);
		if (INS(h, mem[j])->op == HOP_FUSION)
			fu_edit_unfuse(&h->e, mem[j]);
		fu_edit_replace(&h->e, mem[j], r);
		fu_edit_kill(&h->e, mem[j]);
	}
	free(rep);
}

/* HorizontalLoopFusionImpl::Fuse of the members mem[0..nm) */
static void
fuse(Hf *h, const uint32_t *mem, uint32_t nm, uint32_t nout, int sliced)
{
	HloModule *m = M(h);
	uint32_t fc, j, k, nb = 0, nu = 0, *bound, *uniq, *params, *uparam, *outs,
		*root, cap = 0, n, f, t, shape, *sh;
	char buf[64];

	for (j = 0; j < nm; j++)
		cap += INS(h, mem[j])->nops;
	bound = xreallocarray(NULL, cap + 1, sizeof *bound);
	uniq = xreallocarray(NULL, cap + 1, sizeof *uniq);
	params = xreallocarray(NULL, cap + 1, sizeof *params);
	uparam = xreallocarray(NULL, cap + 1, sizeof *uparam);
	outs = xreallocarray(NULL, nm * nout + 1, sizeof *outs);
	root = xreallocarray(NULL, nm * nout + 1, sizeof *root);
	sh = xreallocarray(NULL, nm * nout + 1, sizeof *sh);
	fc = fu_edit_new_comp(&h->e, "horizontally_fused_computation");
	for (j = 0; j < nm; j++) {
		n = member_ops(h, mem[j], bound + nb);
		for (k = 0; k < n; k++) {
			uint32_t o = bound[nb + k];

			for (t = 0; t < nu && uniq[t] != o; t++)
				;
			if (t < nu) {	/* DeduplicateFusionOperands */
				params[nb + k] = uparam[t];
				continue;
			}
			snprintf(buf, sizeof buf, "param_%u_%u", j, k);
			params[nb + k] = add_in(m, fc, HOP_PARAMETER, INS(h,
				o)->shape, buf, 0, NULL);
			m->comps[fc].ins[params[nb + k]].num = nu;
			uparam[nu] = params[nb + k];
			uniq[nu++] = o;
		}
		clone_member(h, mem[j], fc, params + nb, bound + nb,
			outs + nout * j);
		nb += n;
	}
	if (sliced)
		sliced_root(m, fc, outs, nm, nout, root);
	else
		memcpy(root, outs, nm * nout * sizeof *root);
	for (j = 0; j < nm * nout; j++)
		sh[j] = m->comps[fc].ins[root[j]].shape;
	shape = hlo_shape_tuple(m, nm * nout, sh);
	m->comps[fc].root = add_in(m, fc, HOP_TUPLE, shape, "tuple",
		nm * nout, root);
	f = fu_edit_fusion(&h->e, fc, sliced ? FK_INPUT : FK_LOOP, nu, uniq);
	replace_members(h, mem, nm, nout, f);
	push(h, f);
	h->e.done++;
	free(bound);
	free(uniq);
	free(params);
	free(uparam);
	free(outs);
	free(root);
	free(sh);
}

/* FuseConsumerOperands: 1 changed */
static int
fuse_operands(Hf *h, uint32_t consumer, int sliced)
{
	HfCand *cd;
	uint32_t n = candidates(h, consumer, sliced, &cd), pos = 0, len, j,
		*mem;
	int changed = 0;

	mem = xreallocarray(NULL, n + 1, sizeof *mem);
	while ((len = next_span(h, cd, n, &pos, sliced)) > 0) {
		if (len == 1)
			continue;
		for (j = 0; j < len; j++)
			mem[j] = cd[pos - len + j].x;
		fuse(h, mem, len, cd[pos - len].nout, sliced);
		changed = 1;
	}
	free(mem);
	free(cd);
	return changed;
}

static int
run_comp(void *arg, uint32_t c)
{
	Hf *h = arg;
	HloModule *m = M(h);
	uint32_t n = m->comps[c].nins, x;
	int changed = 0;

	fu_edit_begin(&h->e, c);
	grow_mark(h, n + 1);
	memset(h->mark, 0, h->capmark * sizeof *h->mark);
	h->stamp = 0;
	if (n + 1 > h->capstack) {
		h->capstack = n + 16;
		h->stack = xreallocarray(h->stack, h->capstack,
			sizeof *h->stack);
	}
	h->nstack = pass_post_order(m, c, h->stack, h->e.ctx);
	while (h->nstack > 0) {
		x = h->stack[--h->nstack];
		if (INS(h, x)->flags & HI_DEAD)
			continue;
		changed |= fuse_operands(h, x, 0);
		changed |= fuse_operands(h, x, 1);
	}
	return fu_edit_end(&h->e) < 0 ? -1 : changed;
}

int
pass_horizontal_loop_fusion(HloModule *m, PassCtx *ctx)
{
	Hf h;
	int r;

	memset(&h, 0, sizeof h);
	fu_edit_init(&h.e, m, ctx);
	r = fu_edit_run(&h.e, run_comp, &h);
	free(h.stack);
	free(h.mark);
	return r;
}
