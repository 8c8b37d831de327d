/* reshape_mover.c: "reshape-mover", xla's ReshapeMover with its default
 * options (reshape_of_1d_broadcast_is_cheap off).
 *
 * A rearrange is a reshape or a transpose. In every non-fusion
 * computation, an elementwise instruction is a candidate when one of its
 * operands is a non-trivial rearrange r and every operand is either a
 * rearrange equivalent to r (same opcode and dimensions; transposes with
 * the same permutation, reshapes from the same dimensions) or trivially
 * rearrangeable: a constant, an rng with one user, a broadcast with
 * sorted dimensions of a scalar (under a reshape) or whose dimensions
 * stay sorted under the transpose. Rearranges that are no-ops are
 * trivial too. Candidates whose rearrange operands have users outside the
 * candidate set are dropped until the set is closed; then each remaining
 * candidate op(r(a), r(b)) becomes r(op(a, b)): operands get the inverse
 * rearrange (a reshape back to r's operand shape, folded into an operand
 * reshape when possible; the inverse permutation for transposes), the
 * new elementwise instruction loses its sharding, and the old one is
 * replaced (ReplaceInstruction: deleted with operands nobody else uses).
 * Not in xla: a constant operand whose dimensions differ from the
 * instruction's (a scalar bound of clamp) is not rearrangeable.
 */
#include <stdlib.h>
#include <string.h>

#include "pass.h"

static int
rearrange(PassEdit *ed, uint32_t i)
{
	int op = pass_ins(ed, i)->op;

	return (op == HOP_RESHAPE || op == HOP_TRANSPOSE) && pass_ins(ed, i)->nops;
}

static int
same_dims(const HloModule *m, uint32_t a, uint32_t b)
{
	const HloShape *x = hlo_sh(m, a), *y = hlo_sh(m, b);

	if (x->type == TY_TUPLE || y->type == TY_TUPLE)
		return 0;
	return x->rank == y->rank && (!x->rank || !memcmp(hlo_dims(m, x),
		hlo_dims(m, y), x->rank * 8u));
}

/* ShapeUtil::Equal: dimensions, type and layout (none = default) */
static int
same_shape(const HloModule *m, uint32_t a, uint32_t b)
{
	const HloShape *x = hlo_sh(m, a), *y = hlo_sh(m, b);
	uint32_t k;
	int64_t lx, ly;

	if (a == b)
		return 1;
	if (!hlo_shape_eq_nolayout(m, a, b) || x->type == TY_TUPLE ||
	    x->tail != y->tail)
		return 0;
	for (k = 0; k < x->rank; k++) {
		lx = x->flags & SH_LAYOUT ? hlo_m2m(m, x)[k] : x->rank - 1 - k;
		ly = y->flags & SH_LAYOUT ? hlo_m2m(m, y)[k] : y->rank - 1 - k;
		if (lx != ly)
			return 0;
	}
	return 1;
}

static const int64_t *
perm_of(PassEdit *ed, uint32_t t, uint32_t *n)
{
	const int64_t *p = hlo_attr_ints(ed->m, pass_ins(ed, t), A_DIMENSIONS, n);
	uint32_t rank = hlo_sh(ed->m, pass_ins(ed, t)->shape)->rank, k;

	if (!p || *n != rank)
		return NULL;
	for (k = 0; k < *n; k++)
		if (p[k] < 0 || (uint64_t)p[k] >= *n)
			return NULL;
	return p;
}

static int
equivalent(PassEdit *ed, uint32_t a, uint32_t b)
{
	HloModule *m = ed->m;
	const int64_t *pa, *pb;
	uint32_t na, nb;

	if (pass_ins(ed, a)->op != pass_ins(ed, b)->op ||
	    !same_dims(m, pass_ins(ed, a)->shape, pass_ins(ed, b)->shape))
		return 0;
	if (pass_ins(ed, a)->op == HOP_RESHAPE)
		return same_dims(m, pass_ins(ed, pass_opnd(ed, a, 0))->shape,
			pass_ins(ed, pass_opnd(ed, b, 0))->shape);
	pa = hlo_attr_ints(m, pass_ins(ed, a), A_DIMENSIONS, &na);
	pb = hlo_attr_ints(m, pass_ins(ed, b), A_DIMENSIONS, &nb);
	return pa && pb && na == nb && !memcmp(pa, pb, na * 8u);
}

/* users of x other than user: nuse against x's slots in user */
static int
only_user(PassEdit *ed, uint32_t x, uint32_t user)
{
	const HloInstr *in = pass_ins(ed, user);
	uint32_t k, cnt = 0;

	for (k = 0; k < in->nops; k++)
		cnt += pass_opnd(ed, user, k) == x;
	return cnt && ed->nuse[x] == cnt;
}

/* CanTriviallyRearrange(x, r); user is the elementwise instruction */
static int
trivial(PassEdit *ed, uint32_t x, uint32_t r, uint32_t user)
{
	HloModule *m = ed->m;
	const HloInstr *xi = pass_ins(ed, x), *ri = pass_ins(ed, r);
	const int64_t *p, *bd;
	int64_t mapped[64];
	uint32_t np, nb, k;

	if (ri->op == HOP_RESHAPE &&
	    same_shape(m, ri->shape, pass_ins(ed, pass_opnd(ed, r, 0))->shape))
		return 1;
	p = ri->op == HOP_TRANSPOSE ? perm_of(ed, r, &np) : NULL;
	if (ri->op == HOP_TRANSPOSE && (!p || hlo_ints_is_iota(p, np)))
		return p != NULL;
	if (xi->op == HOP_CONSTANT)
		return 1;
	if (xi->op == HOP_RNG)
		return only_user(ed, x, user);
	if (xi->op != HOP_BROADCAST || !xi->nops)
		return 0;
	bd = hlo_attr_ints(m, xi, A_DIMENSIONS, &nb);
	if ((nb && !bd) || !hlo_ints_ascending(bd, nb))
		return 0;
	if (ri->op == HOP_RESHAPE)
		return hlo_sh(m, pass_ins(ed, pass_opnd(ed, x, 0))->shape)->rank == 0;
	if (nb > 64)
		return 0;
	for (k = 0; k < nb; k++) {
		if (bd[k] < 0 || (uint64_t)bd[k] >= np)
			return 0;
		mapped[k] = p[bd[k]];
	}
	return hlo_ints_ascending(mapped, nb);
}

static uint32_t
first_nontrivial(PassEdit *ed, uint32_t i)
{
	uint32_t k, o;

	for (k = 0; k < pass_ins(ed, i)->nops; k++) {
		o = pass_opnd(ed, i, k);
		if (rearrange(ed, o) && !trivial(ed, pass_opnd(ed, o, 0), o, o))
			return o;
	}
	return HLO_NONE;
}

static int
candidate(PassEdit *ed, uint32_t i)
{
	uint32_t r, k, o;

	if (!(hlo_opinfo[pass_ins(ed, i)->op].flags & OPF_ELEM) ||
	    hlo_sh(ed->m, pass_ins(ed, i)->shape)->type == TY_TUPLE)
		return 0;
	r = first_nontrivial(ed, i);
	if (r == HLO_NONE)
		return 0;
	for (k = 0; k < pass_ins(ed, i)->nops; k++) {
		o = pass_opnd(ed, i, k);
		if (rearrange(ed, o) ? !equivalent(ed, o, r) :
		    !same_dims(ed->m, pass_ins(ed, o)->shape, pass_ins(ed, i)->shape) ||
		    !trivial(ed, o, r, i))
			return 0;
	}
	return 1;
}

/* drops candidates until every rearrange operand of a candidate has only
 * candidate users */
static uint32_t
close_set(PassEdit *ed, uint8_t *cand, const HloUsers *u)
{
	HloModule *m = ed->m;
	uint32_t n = m->comps[ed->c].nins, i, k, j, o, left;
	int removed = 1;

	while (removed) {
		removed = 0;
		for (i = 0; i < n; i++) {
			if (!cand[i])
				continue;
			for (k = 0; k < pass_ins(ed, i)->nops; k++) {
				o = pass_opnd(ed, i, k);
				if (!rearrange(ed, o))
					continue;
				for (j = u->start[o]; j < u->start[o + 1]; j++)
					if (!cand[u->list[j]])
						break;
				if (j == u->start[o + 1])
					continue;
				for (j = u->start[o]; j < u->start[o + 1]; j++)
					if (cand[u->list[j]]) {
						cand[u->list[j]] = 0;
						removed = 1;
					}
			}
		}
	}
	for (i = left = 0; i < n; i++)
		left += cand[i];
	return left;
}

static uint32_t
add_instr(PassEdit *ed, int op, uint32_t shape, uint32_t x)
{
	HloModule *m = ed->m;
	uint32_t name = hlo_fresh_name(m, hlo_opinfo[op].name);
	uint32_t i = hlo_instr_add(m, ed->c, op, shape, name, 1, &x);

	pass_edit_added(ed, i);
	return i;
}

/* the shape of transpose(x) with dimensions perm */
static uint32_t
transposed_shape(HloModule *m, uint32_t s, const int64_t *perm)
{
	const HloShape *sh = hlo_sh(m, s);
	uint32_t rank = sh->rank, k;
	int64_t *d = xreallocarray(NULL, 3 * rank + 1, sizeof *d), *inv;
	uint64_t dyn = 0;
	uint32_t r;
	int lay = sh->flags & SH_LAYOUT;

	inv = d + 2 * rank;
	for (k = 0; k < rank; k++) {
		d[k] = hlo_dims(m, sh)[perm[k]];
		if (sh->dynmask >> perm[k] & 1)
			dyn |= (uint64_t)1 << k;
		inv[perm[k]] = k;
	}
	for (k = 0; lay && k < rank; k++)
		d[rank + k] = inv[hlo_m2m(m, sh)[k]];
	r = hlo_shape(m, sh->type, rank, d, lay ? d + rank : NULL, dyn,
		sh->tail);
	free(d);
	return r;
}

static uint32_t
transpose(PassEdit *ed, uint32_t x, const int64_t *perm, uint32_t n)
{
	HloModule *m = ed->m;
	uint32_t s = transposed_shape(m, pass_ins(ed, x)->shape, perm), t;
	HloAttr a;

	t = add_instr(ed, HOP_TRANSPOSE, s, x);
	a = hlo_mk_ints(m, A_DIMENSIONS, perm, n);
	hlo_set_attrs(m, ed->c, t, 1, &a);
	return t;
}

/* ApplyInverseRearrange(r, x) */
static uint32_t
inverse(PassEdit *ed, uint32_t r, uint32_t x, uint32_t src)
{
	HloModule *m = ed->m;
	uint32_t ns, np, k;
	const int64_t *p;
	int64_t inv[64];

	if (pass_ins(ed, r)->op == HOP_RESHAPE) {
		ns = hlo_shape_with_type(m, src,
			hlo_sh(m, pass_ins(ed, x)->shape)->type);
		if (same_shape(m, pass_ins(ed, x)->shape, ns))
			return x;
		if (pass_ins(ed, x)->op == HOP_RESHAPE && pass_ins(ed, x)->nops &&
		    same_shape(m, pass_ins(ed, pass_opnd(ed, x, 0))->shape, ns))
			return pass_opnd(ed, x, 0);
		return add_instr(ed, HOP_RESHAPE, ns, x);
	}
	p = perm_of(ed, r, &np);
	if (hlo_ints_is_iota(p, np))
		return x;
	for (k = 0; k < np; k++)
		inv[p[k]] = k;
	return transpose(ed, x, inv, np);
}

static int
sink(PassEdit *ed, uint32_t i)
{
	HloModule *m = ed->m;
	uint32_t r = first_nontrivial(ed, i), n, k, src, ne, nr, *ops;
	const int64_t *p;
	int64_t perm[64];
	int op;
	HloAttr a;

	if (r == HLO_NONE || ed->ctl[i])
		return 0;
	n = pass_ins(ed, i)->nops;
	if (pass_ins(ed, r)->op == HOP_TRANSPOSE && (!(p = perm_of(ed, r, &k)) ||
	    k > 64))
		return 0;
	src = pass_ins(ed, pass_opnd(ed, r, 0))->shape;
	ops = pass_alloc(ed->ctx, (n + 1) * sizeof *ops);
	for (k = 0; k < n; k++) {
		ops[k] = inverse(ed, r, pass_opnd(ed, i, k), src);
		r = pass_res(ed, r);
	}
	ne = pass_copy_instr(m, ed->c, ed->c, i, n, ops);
	m->comps[ed->c].ins[ne].shape = hlo_shape_with_type(m, src,
		hlo_sh(m, pass_ins(ed, i)->shape)->type);
	hlo_attr_del(m, ed->c, ne, A_SHARDING);
	pass_edit_added(ed, ne);
	op = pass_ins(ed, r)->op;
	nr = add_instr(ed, op, pass_ins(ed, i)->shape, ne);
	if (op == HOP_TRANSPOSE) {
		p = perm_of(ed, r, &k);
		memcpy(perm, p, k * sizeof *perm);
		a = hlo_mk_ints(m, A_DIMENSIONS, perm, k);
		hlo_set_attrs(m, ed->c, nr, 1, &a);
	}
	return pass_replace(ed, i, nr, 0, 0);
}

static int
run_comp(PassEdit *ed, void *arg)
{
	PassCtx *ctx = ed->ctx;
	HloModule *m = ed->m;
	uint32_t n = m->comps[ed->c].nins, i;
	uint8_t *cand = pass_zalloc(ctx, n + 1, 1);
	HloUsers u;
	int any = 0, done = 0;

	for (i = 0; i < n; i++)
		if (!(pass_ins(ed, i)->flags & HI_DEAD) && candidate(ed, i))
			cand[i] = any = 1;
	if (!any)
		return 0;
	hlo_users(m, ed->c, &u);
	if (close_set(ed, cand, &u)) {
		for (i = 0; i < n; i++)
			if (cand[i])
				done += sink(ed, i);
		ctx->stats.rewrites += done;
		any = 1;
	} else {
		any = 0;
	}
	hlo_users_free(&u);
	return any;
}

int
pass_reshape_mover(HloModule *m, PassCtx *ctx)
{
	return pass_visit_comps(m, ctx, PASS_VISIT_EFFECTS | PASS_SKIP_FUSION,
		run_comp, NULL);
}
