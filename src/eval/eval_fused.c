/* eval_fused.c: fusions evaluated as fused loops, one tile of the output
 * at a time (issue 14, point 5).
 *
 * A fusion whose computation holds only instructions that can be computed
 * at any set of their own element positions (elementwise operations,
 * converts, broadcast, reshape, copy, plain bitcast and bitcast-convert
 * between equal widths, transpose, slice, reverse, pad, concatenate,
 * iota, constants and parameters) and returns one array is planned once
 * per computation into an EvFx: a list of nodes, each an instruction at
 * an index set. The root is at the tile set (positions [lo, lo + len) of
 * the output); an elementwise operand is at its user's set (or at
 * position 0 when it has one element); broadcast, transpose, slice and
 * reverse give their operand the set of positions they read (an affine
 * map of their own coordinates), pad and concatenate the positions that
 * fall into the operand (compacted, with where each goes). Reshapes,
 * copies and bitcasts keep the linear positions, so they share the set.
 * An instruction reached at two sets is computed twice (XLA's fused loop
 * recomputes likewise).
 *
 * Per tile the sets' positions are computed parents first, then the nodes
 * operands first into buffers of the tile's size: intermediates stay in
 * cache, and nothing of the size of the output is materialized but the
 * output. Parameters and constants read at consecutive positions are
 * used in place. Elementwise nodes run ev_ew_span: the kernels of the
 * unfused evaluation, storing every intermediate in its element type, so
 * results are bit for bit the unfused ones. A set whose positions are all
 * equal (a broadcast scalar or row) shrinks to one element, and the nodes
 * at it compute one element read as all.
 *
 * Tiles are split over threads with ev_par (each part has its own
 * scratch; the plan is read-only). Anything else (tuple roots, reduce,
 * dot, dynamic slices, layouts that move elements) is left to the
 * evaluation as a call; so is every fusion when HloEval.untiled is set
 * (`hlopt run --untiled-fusions`). */
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "eval.h"

#define MAXR 64
#define MAXNODES 4096
#define MAXSETS 1024
#define TILE_BYTES (192 << 10)	/* scratch per part aimed at */
#define TILE_MIN EV_CHUNK
#define TILE_MAX (32 * EV_CHUNK)

enum { N_PARAM, N_CONST, N_IOTA, N_EW, N_ALIAS, N_PAD, N_CONCAT };

/* an index set: positions in the shape of the instructions at it,
 * derived from the positions of parent (in via's shape) */
typedef struct {
	int32_t parent;		/* -1: the tile */
	uint32_t via, opnd;	/* the user and the operand it reads */
	int rank;		/* via's */
	int compact;		/* positions outside the operand dropped
				 * (pad, concatenate) */
	const int64_t *dims;	/* via's dimensions */
	int64_t off;		/* position = off + sum over dims d of
				 * ((c_d - lo_d) / step_d) * s_d, when
				 * 0 <= c_d - lo_d, a multiple of step_d,
				 * and (c_d - lo_d) / step_d < n_d */
	int64_t *lo, *step, *n, *s;
} FxSet;

typedef struct {
	uint8_t kind;		/* N_* */
	uint8_t type;
	int64_t esz;
	uint32_t ins;
	int32_t set;
	int32_t next;		/* next node of the same instruction */
	uint32_t nops;
	int32_t *ops;		/* operand nodes */
	EwOp o;			/* N_EW */
	int64_t num;		/* N_PARAM: parameter number; N_CONST:
				 * constant slot; N_IOTA: dimension size */
	int64_t inner;		/* N_IOTA: elements per step of it */
	int64_t bufoff;		/* its buffer in a part's scratch */
} FxNode;

struct EvFx {
	uint32_t comp;
	int32_t root;
	uint32_t nnodes, nsets, nconst;
	uint32_t capn, caps;	/* allocated nodes and sets */
	FxNode *nodes;
	FxSet *sets;
	int32_t *head;		/* per instruction: its first node */
	uint32_t *consts;	/* constant instructions by slot */
	uint64_t steps, elems;	/* what the unfused evaluation counts */
	int64_t tile;		/* elements per tile */
	int64_t scratch;	/* bytes per part */
};

void
ev_fx_free(EvFx *f)
{
	uint32_t k;

	if (!f)
		return;
	for (k = 0; k < f->nnodes; k++)
		free(f->nodes[k].ops);
	for (k = 0; k < f->nsets; k++)
		free(f->sets[k].lo);
	free(f->nodes);
	free(f->sets);
	free(f->head);
	free(f->consts);
	free(f);
}

/* planning */

typedef struct {
	const HloModule *m;
	const HloEval *ev;
	EvFx *f;
} Pl;

static int
arrayof(const HloModule *m, uint32_t shape, int *rank)
{
	const HloShape *sh = hlo_sh(m, shape);

	if (sh->type >= TY_TUPLE || hlo_typeinfo[sh->type].cls == C_OTHER ||
	    sh->rank > MAXR || hlo_shape_elems(m, shape) < 0 ||
	    hlo_type_bytes(sh->type) > 16 || hlo_type_bytes(sh->type) < 1)
		return 0;
	*rank = sh->rank;
	return 1;
}

/* a new set: via's operand opnd read from parent; the map is filled by
 * the caller (identity: lo 0, step 1, n = via's dims, s 0) */
static int32_t
newset(Pl *p, int32_t parent, uint32_t via, uint32_t opnd, int compact)
{
	EvFx *f = p->f;
	const HloInstr *in = hlo_ins(p->m, f->comp, via);
	FxSet *s;
	uint32_t k;
	int d, r;

	for (k = 0; k < f->nsets; k++)
		if (f->sets[k].parent == parent && f->sets[k].via == via &&
		    f->sets[k].opnd == opnd)
			return -2 - (int32_t)k;	/* exists */
	if (f->nsets >= MAXSETS)
		return -1;
	if (f->nsets == f->caps) {
		f->caps *= 2;
		f->sets = xreallocarray(f->sets, f->caps, sizeof *f->sets);
	}
	s = &f->sets[f->nsets];
	memset(s, 0, sizeof *s);
	s->parent = parent;
	s->via = via;
	s->opnd = opnd;
	s->compact = compact;
	s->dims = ev_dims(p->ev, in->shape, &r);
	s->rank = r;
	s->lo = xcalloc(4 * (size_t)r + 1, sizeof *s->lo);
	s->step = s->lo + r;
	s->n = s->step + r;
	s->s = s->n + r;
	for (d = 0; d < r; d++) {
		s->step[d] = 1;
		s->n[d] = s->dims[d];
	}
	return (int32_t)f->nsets++;
}

static int node(Pl *p, uint32_t i, int32_t set);

/* the set through which via reads operand k (i, a one-element array, is
 * read at position 0: every stride 0); its node */
static int
opnode_zero(Pl *p, uint32_t via, uint32_t k, uint32_t i, int32_t set)
{
	int32_t s = newset(p, set, via, k, 0);

	if (s == -1)
		return -1;
	if (s < -1)
		s = -2 - s;
	return node(p, i, s);
}

/* strides of a row-major shape */
static void
rowstr(const int64_t *dims, int r, int64_t *str)
{
	int64_t acc = 1;
	int d;

	for (d = r - 1; d >= 0; d--) {
		str[d] = acc;
		acc *= dims[d];
	}
}

/* the map of a broadcast, transpose, slice or reverse i (at shape
 * dims go) onto its operand (dims gi, rank ri); -1 when malformed */
static int
affine(Pl *p, const HloInstr *in, FxSet *s, const int64_t *gi, int ri)
{
	const HloModule *m = p->m;
	const int64_t *a, *t;
	const HloAttr *at;
	int64_t str[MAXR];
	uint32_t na, k;
	int d, r = s->rank;

	rowstr(gi, ri, str);
	switch (in->op) {
	case HOP_BROADCAST:
		a = hlo_attr_ints(m, in, A_DIMENSIONS, &na);
		if ((int)na != ri)
			return -1;
		for (k = 0; k < na; k++) {
			if (a[k] < 0 || a[k] >= r || s->dims[a[k]] != gi[k])
				return -1;
			s->s[a[k]] = str[k];
		}
		return 0;
	case HOP_TRANSPOSE:
		a = hlo_attr_ints(m, in, A_DIMENSIONS, &na);
		if ((int)na != ri || r != ri)
			return -1;
		for (k = 0; k < na; k++) {
			if (a[k] < 0 || a[k] >= ri || s->dims[k] != gi[a[k]])
				return -1;
			s->s[k] = str[a[k]];
		}
		return 0;
	case HOP_SLICE:
		at = hlo_attr(m, in, A_SLICE);
		if (!at || (int)at->n != 3 * ri || r != ri)
			return -1;
		t = hlo_ints_at(m, at->v);
		for (d = 0; d < r; d++) {
			if (t[3 * d] < 0 || t[3 * d + 1] > gi[d] ||
			    t[3 * d] > t[3 * d + 1] || t[3 * d + 2] < 1 ||
			    (t[3 * d + 1] - t[3 * d] + t[3 * d + 2] - 1) /
			    t[3 * d + 2] != s->dims[d])
				return -1;
			s->off += t[3 * d] * str[d];
			s->s[d] = t[3 * d + 2] * str[d];
		}
		return 0;
	case HOP_REVERSE:
		a = hlo_attr_ints(m, in, A_DIMENSIONS, &na);
		if (r != ri)
			return -1;
		for (d = 0; d < r; d++) {
			if (s->dims[d] != gi[d])
				return -1;
			s->s[d] = str[d];
		}
		for (k = 0; k < na; k++) {
			if (a[k] < 0 || a[k] >= r)
				return -1;
			if (s->s[a[k]] < 0)
				continue;
			s->off += (gi[a[k]] - 1) * str[a[k]];
			s->s[a[k]] = -str[a[k]];
		}
		return 0;
	}
	return -1;
}

/* pad: the positions of the operand (dims gi) in the result */
static int
padmap(Pl *p, const HloInstr *in, FxSet *s, const int64_t *gi, int ri)
{
	const HloAttr *at = hlo_attr(p->m, in, A_PADDING);
	const int64_t *t;
	int64_t str[MAXR];
	int d;

	if (!at || (int)at->n != 3 * ri || s->rank != ri)
		return -1;
	t = hlo_ints_at(p->m, at->v);
	rowstr(gi, ri, str);
	for (d = 0; d < ri; d++) {
		int64_t lo = t[3 * d], hi = t[3 * d + 1], it = t[3 * d + 2];
		int64_t want = gi[d] ? lo + hi + gi[d] + (gi[d] - 1) * it :
			lo + hi;

		if (it < 0 || want != s->dims[d])
			return -1;
		s->lo[d] = lo;
		s->step[d] = it + 1;
		s->n[d] = gi[d];
		s->s[d] = str[d];
	}
	return 0;
}

/* the node of a broadcast, transpose, slice, reverse or pad i: its
 * operand 0 at the set the map gives */
static int
mapped(Pl *p, uint32_t i, int32_t set, FxNode *nd)
{
	const HloModule *m = p->m;
	EvFx *f = p->f;
	const HloInstr *in = hlo_ins(m, f->comp, i);
	uint32_t a = hlo_ops(m, in)[0];
	const int64_t *gi;
	int32_t s;
	int ri, r;

	if (in->nops < 1 || a >= m->comps[f->comp].nins ||
	    !arrayof(m, hlo_ins(m, f->comp, a)->shape, &ri) ||
	    hlo_sh(m, hlo_ins(m, f->comp, a)->shape)->type != nd->type)
		return -1;
	s = newset(p, set, i, 0, in->op == HOP_PAD);
	if (s == -1)
		return -1;
	if (s >= 0) {
		gi = ev_dims(p->ev, hlo_ins(m, f->comp, a)->shape, &r);
		if ((in->op == HOP_PAD ? padmap(p, in, &f->sets[s], gi, ri) :
		    affine(p, in, &f->sets[s], gi, ri)) < 0)
			return -1;
	} else {
		s = -2 - s;
	}
	nd->nops = in->op == HOP_PAD ? 2 : 1;
	nd->ops = xcalloc(nd->nops, sizeof *nd->ops);
	if ((nd->ops[0] = node(p, a, s)) < 0)
		return -1;
	if (in->op != HOP_PAD)
		return 0;
	if (in->nops != 2 || hlo_shape_elems(m, hlo_ins(m, f->comp,
	    hlo_ops(m, in)[1])->shape) != 1 || hlo_sh(m, hlo_ins(m, f->comp,
	    hlo_ops(m, in)[1])->shape)->type != nd->type)
		return -1;
	nd->ops[1] = opnode_zero(p, i, 1, hlo_ops(m, in)[1], set);
	return nd->ops[1] < 0 ? -1 : 0;
}

/* concatenate: operand k at the positions whose coordinate along the
 * dimension falls into it */
static int
concatenate(Pl *p, uint32_t i, int32_t set, FxNode *nd)
{
	const HloModule *m = p->m;
	EvFx *f = p->f;
	const HloInstr *in = hlo_ins(m, f->comp, i);
	const int64_t *dm, *gi, *go;
	int64_t str[MAXR], begin = 0;
	uint32_t nd1, k, a;
	int32_t s;
	int r, ri, d, dim;

	dm = hlo_attr_ints(m, in, A_DIMENSIONS, &nd1);
	go = ev_dims(p->ev, in->shape, &r);
	if (!dm || nd1 != 1 || dm[0] < 0 || dm[0] >= r || in->nops < 1)
		return -1;
	dim = (int)dm[0];
	nd->nops = in->nops;
	nd->ops = xcalloc(nd->nops, sizeof *nd->ops);
	for (k = 0; k < in->nops; k++) {
		a = hlo_ops(m, in)[k];
		if (a >= m->comps[f->comp].nins ||
		    !arrayof(m, hlo_ins(m, f->comp, a)->shape, &ri) ||
		    ri != r || hlo_sh(m, hlo_ins(m, f->comp,
		    a)->shape)->type != nd->type)
			return -1;
		gi = ev_dims(p->ev, hlo_ins(m, f->comp, a)->shape, &ri);
		for (d = 0; d < r; d++)
			if (d != dim && gi[d] != go[d])
				return -1;
		if ((s = newset(p, set, i, k, 1)) == -1)
			return -1;
		if (s >= 0) {
			rowstr(gi, r, str);
			for (d = 0; d < r; d++) {
				f->sets[s].n[d] = gi[d];
				f->sets[s].s[d] = str[d];
			}
			f->sets[s].lo[dim] = begin;
		} else {
			s = -2 - s;
		}
		if ((nd->ops[k] = node(p, a, s)) < 0)
			return -1;
		begin += gi[dim];
	}
	return begin == go[dim] ? 0 : -1;
}

/* the physical order is the logical one (a bitcast is then a view) */
static int
plainlayout(const HloModule *m, uint32_t shape)
{
	const HloShape *sh = hlo_sh(m, shape);
	int d;

	if (ev_tiled(m, shape))
		return 0;
	for (d = 0; d < sh->rank; d++)
		if ((sh->flags & SH_LAYOUT) &&
		    hlo_m2m(m, sh)[sh->rank - 1 - d] != d)
			return 0;
	return 1;
}

/* reshape, copy, bitcast, bitcast-convert of equal widths: the operand's
 * values at the same linear positions */
static int
same(Pl *p, uint32_t i, int32_t set, FxNode *nd)
{
	const HloModule *m = p->m;
	EvFx *f = p->f;
	const HloInstr *in = hlo_ins(m, f->comp, i);
	uint32_t a = in->nops == 1 ? hlo_ops(m, in)[0] : UINT32_MAX;
	const HloShape *sa;
	int ri;

	if (a >= m->comps[f->comp].nins ||
	    !arrayof(m, hlo_ins(m, f->comp, a)->shape, &ri) ||
	    hlo_shape_elems(m, hlo_ins(m, f->comp, a)->shape) !=
	    hlo_shape_elems(m, in->shape))
		return -1;
	sa = hlo_sh(m, hlo_ins(m, f->comp, a)->shape);
	if (in->op == HOP_BITCASTCVT) {
		if (hlo_typeinfo[sa->type].bits != hlo_typeinfo[nd->type].bits ||
		    hlo_typeinfo[nd->type].bits % 8 || nd->type == TY_PRED ||
		    sa->type == TY_PRED)
			return -1;
	} else if (sa->type != nd->type) {
		return -1;
	}
	if (in->op == HOP_BITCAST && (!plainlayout(m, in->shape) ||
	    !plainlayout(m, hlo_ins(m, f->comp, a)->shape)))
		return -1;
	nd->nops = 1;
	nd->ops = xcalloc(1, sizeof *nd->ops);
	nd->ops[0] = node(p, a, set);
	return nd->ops[0] < 0 ? -1 : 0;
}

/* an elementwise operation: operands at its set, or at position 0 when
 * they have one element */
static int
elementwise(Pl *p, uint32_t i, int32_t set, FxNode *nd)
{
	const HloModule *m = p->m;
	EvFx *f = p->f;
	const HloInstr *in = hlo_ins(m, f->comp, i);
	int64_t n = hlo_shape_elems(m, in->shape), na;
	uint32_t k, a;
	int ri;

	if (in->op == HOP_MAP || in->op == HOP_BITCASTCVT ||
	    ev_ew_bind(m, f->comp, i, &nd->o) < 0 ||
	    (int)in->nops != ev_ew_arity(nd->o.op))
		return -1;
	nd->nops = in->nops;
	nd->ops = xcalloc(nd->nops, sizeof *nd->ops);
	for (k = 0; k < in->nops; k++) {
		a = hlo_ops(m, in)[k];
		if (a >= m->comps[f->comp].nins ||
		    !arrayof(m, hlo_ins(m, f->comp, a)->shape, &ri))
			return -1;
		na = hlo_shape_elems(m, hlo_ins(m, f->comp, a)->shape);
		if (na == n)
			nd->ops[k] = node(p, a, set);
		else if (na == 1)
			nd->ops[k] = opnode_zero(p, i, k, a, set);
		else
			return -1;
		if (nd->ops[k] < 0)
			return -1;
	}
	return 0;
}

/* instruction i at set: its node (operands first), -1 if it cannot be
 * tiled */
static int
node(Pl *p, uint32_t i, int32_t set)
{
	const HloModule *m = p->m;
	EvFx *f = p->f;
	const HloInstr *in;
	FxNode nd;
	int32_t k;
	int r, rc;

	for (k = f->head[i]; k >= 0; k = f->nodes[k].next)
		if (f->nodes[k].set == set)
			return k;
	in = hlo_ins(m, f->comp, i);
	if (f->nnodes >= MAXNODES || !arrayof(m, in->shape, &r))
		return -1;
	memset(&nd, 0, sizeof nd);
	nd.ins = i;
	nd.set = set;
	nd.type = hlo_sh(m, in->shape)->type;
	nd.esz = ev_esz(nd.type);
	switch (in->op) {
	case HOP_PARAMETER:
		nd.kind = N_PARAM;
		nd.num = in->num;
		rc = in->num >= 0 ? 0 : -1;
		break;
	case HOP_CONSTANT:
		nd.kind = N_CONST;
		for (nd.num = 0; nd.num < f->nconst &&
		    f->consts[nd.num] != i; nd.num++)
			;
		if (nd.num == f->nconst) {
			f->consts = xreallocarray(f->consts, f->nconst + 1,
				sizeof *f->consts);
			f->consts[f->nconst++] = i;
		}
		rc = 0;
		break;
	case HOP_IOTA:
		nd.kind = N_IOTA;
		k = (int32_t)hlo_attr_int(m, in, A_IOTA_DIM, 0);
		rc = k < 0 || k >= r || hlo_shape_elems(m, in->shape) < 1 ?
			-1 : 0;
		if (!rc) {
			const int64_t *dims = ev_dims(p->ev, in->shape, &r);

			nd.num = dims[k];
			nd.inner = 1;
			while (++k < r)
				nd.inner *= dims[k];
		}
		break;
	case HOP_BROADCAST: case HOP_TRANSPOSE: case HOP_SLICE:
	case HOP_REVERSE: case HOP_PAD:
		nd.kind = in->op == HOP_PAD ? N_PAD : N_ALIAS;
		rc = mapped(p, i, set, &nd);
		break;
	case HOP_CONCAT:
		nd.kind = N_CONCAT;
		rc = concatenate(p, i, set, &nd);
		break;
	case HOP_RESHAPE: case HOP_COPY: case HOP_BITCAST:
	case HOP_BITCASTCVT:
		nd.kind = N_ALIAS;
		rc = same(p, i, set, &nd);
		break;
	default:
		nd.kind = N_EW;
		rc = hlo_op_elementwise_family(in->op) ?
			elementwise(p, i, set, &nd) : -1;
	}
	if (rc < 0 || f->nnodes >= MAXNODES) {
		free(nd.ops);
		return -1;
	}
	if (f->nnodes == f->capn) {
		f->capn *= 2;
		f->nodes = xreallocarray(f->nodes, f->capn, sizeof *f->nodes);
	}
	nd.next = f->head[i];
	f->head[i] = (int32_t)f->nnodes;
	f->nodes[f->nnodes] = nd;
	return (int32_t)f->nnodes++;
}

/* the tile size and the scratch layout of a part */
static void
layout(EvFx *f, int64_t n)
{
	int64_t per = 0, t, off = 0;
	uint32_t k;

	for (k = 0; k < f->nnodes; k++)
		per += f->nodes[k].esz;
	per += 16 * (int64_t)(f->nsets + 1);	/* positions, places */
	t = TILE_BYTES / (per ? per : 1);
	t -= t % TILE_MIN;
	f->tile = t < TILE_MIN ? TILE_MIN : t > TILE_MAX ? TILE_MAX : t;
	if (f->tile > n)	/* a small output: one tile of its size */
		f->tile = n > 0 ? n : 1;
	for (k = 0; k < f->nnodes; k++) {
		f->nodes[k].bufoff = off;
		off += (f->nodes[k].esz * f->tile + 63) & ~(int64_t)63;
	}
	f->scratch = off + 16 * (int64_t)(f->nsets + 1) * f->tile;
}

static EvFx *
plan(HloEval *ev, uint32_t comp)
{
	const HloModule *m = ev->m;
	const HloComp *cp = &m->comps[comp];
	const uint32_t *order;
	uint32_t n, k;
	EvFx *f;
	Pl p;

	if (ev_plan(ev, comp, &order, &n) < 0 || cp->root >= cp->nins)
		return NULL;
	f = xcalloc(1, sizeof *f);
	f->comp = comp;
	f->capn = 2 * cp->nins + 8;	/* grown as needed */
	f->caps = 8;
	f->nodes = xreallocarray(NULL, f->capn, sizeof *f->nodes);
	f->sets = xreallocarray(NULL, f->caps, sizeof *f->sets);
	f->head = xreallocarray(NULL, cp->nins + 1, sizeof *f->head);
	for (k = 0; k <= cp->nins; k++)
		f->head[k] = -1;
	for (k = 0; k < n; k++) {
		const HloInstr *in = &cp->ins[order[k]];

		if (in->op == HOP_PARAMETER)
			continue;
		f->steps++;
		if (hlo_sh(m, in->shape)->type != TY_TUPLE)
			f->elems += hlo_shape_elems(m, in->shape);
	}
	p.m = m;
	p.ev = ev;
	p.f = f;
	f->root = node(&p, cp->root, -1);
	if (f->root < 0 || f->nnodes < 2) {
		ev_fx_free(f);
		return NULL;
	}
	layout(f, hlo_shape_elems(m, cp->ins[cp->root].shape));
	return f;
}

/* running */

typedef struct {
	int64_t len;		/* positions */
	int64_t base;		/* consecutive from base (idx NULL) */
	int64_t *idx;		/* else these */
	int64_t *pos;		/* compacted: where each goes in the
				 * parent's positions */
} RSet;

typedef struct {
	const unsigned char *p;
	int64_t n;		/* the set's length, or 1: read as all */
} RVal;

typedef struct {
	HloEval *ev;
	const EvFx *f;
	HloVal **ops;		/* the fusion's operands */
	HloVal **cv;		/* constants by slot */
	HloVal *out;
	unsigned char *scratch;	/* parts * f->scratch bytes */
	RSet *sets;		/* parts * (nsets + 1) */
	RVal *vals;		/* parts * nnodes */
} Run;

/* the position of coordinates c in s's map, -1 outside the operand */
static int64_t
place(const FxSet *s, const int64_t *c)
{
	int64_t x = s->off, t;
	int d;

	for (d = 0; d < s->rank; d++) {
		t = c[d] - s->lo[d];
		if (s->step[d] != 1) {
			if (t < 0 || t % s->step[d])
				return -1;
			t /= s->step[d];
		}
		if (t < 0 || t >= s->n[d])
			return -1;
		x += t * s->s[d];
	}
	return x;
}

static void
coords(const FxSet *s, int64_t x, int64_t *c)
{
	int d;

	for (d = s->rank - 1; d >= 0; d--) {
		c[d] = s->dims[d] ? x % s->dims[d] : 0;
		x = s->dims[d] ? x / s->dims[d] : 0;
	}
}

/* the positions of a map without holes from consecutive parent
 * positions: runs along the last dimension */
static void
runs(const FxSet *s, int64_t base, int64_t len, int64_t *idx)
{
	int64_t c[MAXR], k = 0, w, x, j, st;
	int r = s->rank, d;

	coords(s, base, c);
	st = r ? s->s[r - 1] : 0;
	while (k < len) {
		x = place(s, c);
		w = r ? s->dims[r - 1] - c[r - 1] : 1;
		if (w > len - k)
			w = len - k;
		for (j = 0; j < w; j++)
			idx[k + j] = x + j * st;
		k += w;
		if (!r)
			break;
		c[r - 1] += w;
		for (d = r - 1; d > 0 && c[d] >= s->dims[d]; d--) {
			c[d] = 0;
			c[d - 1]++;
		}
	}
}

/* the set k of part's sets from its parent's positions */
static void
setpos(const EvFx *f, RSet *rs, int k, int64_t *idx, int64_t *pos)
{
	const FxSet *s = &f->sets[k];
	const RSet *p = &rs[s->parent + 1];
	RSet *o = &rs[k + 1];
	int64_t c[MAXR], j, e, x;
	int d, zero = !s->compact;

	for (d = 0; d < s->rank && zero; d++)
		zero = s->s[d] == 0;
	o->idx = NULL;
	o->pos = NULL;
	if (zero || (!s->compact && p->len == 1)) {
		if (!zero)
			coords(s, p->idx ? p->idx[0] : p->base, c);
		o->len = 1;
		o->base = zero ? s->off : place(s, c);
		return;
	}
	o->idx = idx;
	if (!s->compact && !p->idx) {
		runs(s, p->base, p->len, idx);
		o->len = p->len;
	} else if (!s->compact) {
		/* the parent's runs of consecutive positions (rows of a
		 * broadcast, say): coordinates decoded once per run */
		for (j = 0; j < p->len; j = e) {
			for (e = j + 1; e < p->len &&
			    p->idx[e] == p->idx[e - 1] + 1; e++)
				;
			runs(s, p->idx[j], e - j, idx + j);
		}
		o->len = p->len;
	} else {
		o->pos = s->compact ? pos : NULL;
		o->len = 0;
		for (j = 0; j < p->len; j++) {
			coords(s, p->idx ? p->idx[j] : p->base + j, c);
			if ((x = place(s, c)) < 0)
				continue;
			if (o->pos)
				o->pos[o->len] = j;
			idx[o->len++] = x;
		}
	}
	/* consecutive or all equal: no positions to read */
	for (j = 1; j < o->len && idx[j] == idx[0] + j; j++)
		;
	if (o->len && j == o->len) {
		o->base = idx[0];
		o->idx = NULL;
		return;
	}
	if (o->pos)
		return;
	for (j = 1; j < o->len && idx[j] == idx[0]; j++)
		;
	if (o->len && j == o->len) {
		o->base = idx[0];
		o->idx = NULL;
		o->len = 1;
	}
}

/* a parameter or constant v at set rs into buf */
static void
leaf(const HloVal *v, int64_t esz, const RSet *rs, unsigned char *buf,
	RVal *r)
{
	int64_t k;

	if (v->n == 1 || v->splat) {
		r->p = v->data;
		r->n = 1;
		return;
	}
	r->n = rs->len;
	if (!rs->idx) {
		r->p = v->data + rs->base * esz;
		return;
	}
	r->p = buf;
#define G(T) for (k = 0; k < rs->len; k++) \
		memcpy(buf + k * sizeof(T), v->data + rs->idx[k] * sizeof(T), \
			sizeof(T)); \
	break
	switch (esz) {
	case 1: G(uint8_t);
	case 2: G(uint16_t);
	case 4: G(uint32_t);
	case 8: G(uint64_t);
	default:
		for (k = 0; k < rs->len; k++)
			memcpy(buf + k * esz, v->data + rs->idx[k] * esz, esz);
	}
#undef G
}

static void
iotanode(const FxNode *nd, const RSet *rs, unsigned char *buf, RVal *r)
{
	Lane l[EV_CHUNK];
	int64_t k, j, w, x, q = 0, rem = 0;
	int cl = hlo_typeinfo[nd->type].cls;

	if (!rs->idx) {		/* consecutive: count, do not divide */
		q = rs->base / nd->inner % nd->num;
		rem = rs->base % nd->inner;
	}
	for (k = 0; k < rs->len; k += w) {
		w = rs->len - k < EV_CHUNK ? rs->len - k : EV_CHUNK;
		for (j = 0; j < w; j++) {
			if (rs->idx) {
				x = rs->idx[k + j] / nd->inner % nd->num;
			} else {
				x = q;
				if (++rem == nd->inner) {
					rem = 0;
					if (++q == nd->num)
						q = 0;
				}
			}
			ev_lane_int(cl, x, &l[j]);
		}
		ev_lane_store(nd->type, l, w, buf + k * nd->esz);
	}
	r->p = buf;
	r->n = rs->len;
}

static void
ewnode(const FxNode *nd, const RSet *rs, const RVal *vals,
	unsigned char *buf, RVal *r)
{
	HloVal a[3], v, *ops[3];
	int64_t n = 1;
	uint32_t k;

	for (k = 0; k < nd->nops; k++)
		if (vals[nd->ops[k]].n != 1)
			n = rs->len;
	memset(a, 0, sizeof a);
	memset(&v, 0, sizeof v);
	for (k = 0; k < nd->nops; k++) {
		a[k].type = (&nd->o.t0)[k];
		a[k].data = (unsigned char *)vals[nd->ops[k]].p;
		a[k].n = vals[nd->ops[k]].n;
		ops[k] = &a[k];
	}
	v.type = nd->type;
	v.data = buf;
	v.n = n;
	ev_ew_span(&nd->o, ops, &v, n);
	r->p = buf;
	r->n = n;
}

/* pad and concatenate: operands scattered to where they go, the rest
 * the padding value */
static void
scatter(const EvFx *f, const FxNode *nd, const RSet *rs, const RSet *sets,
	const RVal *vals, unsigned char *buf, RVal *r)
{
	int64_t k, j, z = nd->esz;
	uint32_t q;

	r->p = buf;
	r->n = rs->len;
	if (nd->kind == N_PAD)
		for (j = 0; j < rs->len; j++)
			memcpy(buf + j * z, vals[nd->ops[1]].p, z);
	for (q = 0; q < (nd->kind == N_PAD ? 1u : nd->nops); q++) {
		const RVal *v = &vals[nd->ops[q]];
		const RSet *cs = &sets[f->nodes[nd->ops[q]].set + 1];

		for (k = 0; k < cs->len; k++)
			memcpy(buf + (cs->pos ? cs->pos[k] : k) * z, v->p +
				(v->n == 1 ? 0 : k) * z, z);
	}
}

/* tiles [lo, hi) of part */
static void
tiles(void *ctx, int part, int64_t lo, int64_t hi)
{
	const Run *rn = ctx;
	const EvFx *f = rn->f;
	unsigned char *sc = rn->scratch + part * f->scratch;
	int64_t *ip = (int64_t *)(sc + f->scratch - 16 * (int64_t)(f->nsets +
		1) * f->tile);
	RSet *sets = rn->sets + part * (f->nsets + 1);
	RVal *vals = rn->vals + part * f->nnodes, *rv;
	int64_t t, n = rn->out->n, esz = ev_esz(rn->out->type), k;
	uint32_t q;

	for (t = lo; t < hi; t++) {
		sets[0].base = t * f->tile;
		sets[0].len = n - sets[0].base < f->tile ? n - sets[0].base :
			f->tile;
		sets[0].idx = sets[0].pos = NULL;
		for (q = 0; q < f->nsets; q++)
			setpos(f, sets, q, ip + 2 * q * f->tile,
				ip + (2 * q + 1) * f->tile);
		for (q = 0; q < f->nnodes; q++) {
			const FxNode *nd = &f->nodes[q];
			const RSet *rs = &sets[nd->set + 1];
			unsigned char *buf = sc + nd->bufoff;

			switch (nd->kind) {
			case N_PARAM:
				leaf(rn->ops[nd->num], nd->esz, rs, buf,
					&vals[q]);
				break;
			case N_CONST:
				leaf(rn->cv[nd->num], nd->esz, rs, buf,
					&vals[q]);
				break;
			case N_IOTA:
				iotanode(nd, rs, buf, &vals[q]);
				break;
			case N_EW:
				ewnode(nd, rs, vals, buf, &vals[q]);
				break;
			case N_ALIAS:
				vals[q] = vals[nd->ops[0]];
				break;
			default:
				scatter(f, nd, rs, sets, vals, buf, &vals[q]);
			}
		}
		rv = &vals[f->root];
		if (rv->n == 1)
			for (k = 0; k < sets[0].len; k++)
				memcpy(rn->out->data + (sets[0].base + k) *
					esz, rv->p, esz);
		else
			memcpy(rn->out->data + sets[0].base * esz, rv->p,
				sets[0].len * esz);
	}
}

/* the fusion's operands fit the parameters it reads */
static int
operands_fit(const HloEval *ev, const EvFx *f, HloVal **ops, uint32_t nops)
{
	const HloInstr *in;
	uint32_t k;

	for (k = 0; k < f->nnodes; k++) {
		if (f->nodes[k].kind != N_PARAM)
			continue;
		in = hlo_ins(ev->m, f->comp, f->nodes[k].ins);
		if ((uint64_t)in->num >= nops || !ops[in->num] ||
		    ops[in->num]->type != f->nodes[k].type ||
		    ops[in->num]->n != hlo_shape_elems(ev->m, in->shape))
			return 0;
	}
	return 1;
}

static int
counted(HloEval *ev, const EvFx *f)
{
	ev->steps += f->steps;
	ev->elems += f->elems;
	if (ev->steps > ev->maxsteps)
		return ev_fail(ev, EV_NOEVAL, "not evaluable: more than %llu "
			"instructions executed (endless loop?), over the "
			"--max-steps limit",
			(unsigned long long)ev->maxsteps);
	if (ev->elems > ev->maxelems)
		return ev_fail(ev, EV_NOEVAL, "not evaluable: more than %llu "
			"result elements computed, over the --max-elements "
			"limit",
			(unsigned long long)ev->maxelems);
	return 0;
}

static int
runfx(HloEval *ev, const EvFx *f, HloVal **ops, HloVal *out)
{
	Run rn;
	int64_t ntiles = (out->n + f->tile - 1) / f->tile;
	int64_t grain = (16 * EV_CHUNK * 4 + f->tile - 1) / f->tile;
	int parts = ev_par_parts(ev, ntiles, grain), rc = -1;
	uint64_t bytes = (uint64_t)parts * f->scratch;
	uint32_t k;

	memset(&rn, 0, sizeof rn);
	rn.ev = ev;
	rn.f = f;
	rn.ops = ops;
	rn.out = out;
	rn.cv = xcalloc(f->nconst + 1, sizeof *rn.cv);
	for (k = 0; k < f->nconst; k++)
		if (ev_instr(ev, f->comp, f->consts[k], NULL, &rn.cv[k]) < 0)
			goto done;
	if (!(rn.scratch = ev_scratch(ev, bytes)))
		goto done;
	rn.sets = xcalloc((size_t)parts * (f->nsets + 1), sizeof *rn.sets);
	rn.vals = xcalloc((size_t)parts * f->nnodes, sizeof *rn.vals);
	ev_par_threads(parts, ntiles, tiles, &rn);
	rc = 0;
	ev_scratch_free(ev, rn.scratch, bytes);
done:
	for (k = 0; k < f->nconst; k++)
		hlo_val_unref(ev, rn.cv[k]);
	free(rn.cv);
	free(rn.sets);
	free(rn.vals);
	return rc;
}

int
ev_fused(HloEval *ev, uint32_t c, uint32_t i, uint32_t comp, HloVal **ops,
	HloVal **out)
{
	const HloModule *m = ev->m;
	const HloInstr *in = hlo_ins(m, c, i);
	const HloInstr *root;
	EvFx *f;
	HloVal *v;

	if (!ev->fx[comp])
		ev->fx[comp] = plan(ev, comp);
	if (!ev->fx[comp])
		ev->fx[comp] = (EvFx *)1;
	f = ev->fx[comp];
	if (f == (EvFx *)1)
		return 0;
	root = hlo_ins(m, comp, m->comps[comp].root);
	if (hlo_sh(m, in->shape)->type != hlo_sh(m, root->shape)->type ||
	    hlo_shape_elems(m, in->shape) != hlo_shape_elems(m, root->shape) ||
	    !operands_fit(ev, f, ops, in->nops))
		return 0;
	if (counted(ev, f) < 0)
		return -1;
	v = hlo_val_array(ev, in->shape);
	if (!v)
		return -1;
	if (v->n && runfx(ev, f, ops, v) < 0) {
		hlo_val_unref(ev, v);
		return -1;
	}
	*out = v;
	return 1;
}
