/* topk_decomposer.c: "topk-decomposer", xla's TopkDecomposer with its
 * default options (no predicate: topk instructions and TopK custom-calls;
 * xla/service/topk_rewriter.cc, openxla/xla as of 2025-03).
 *
 * In every non-fusion computation, a topk(x), k, largest, or a
 * custom-call "TopK" (its to_apply is the comparator), over the last
 * dimension of x becomes a stable sort along that dimension and slices
 * of its first k elements:
 *   - when its only user is get-tuple-element 0 (the values) and the
 *     comparator takes two parameters: sort(x) and a slice of it replace
 *     that get-tuple-element (the topk itself is left without users);
 *   - else sort(x, iota) with an s32 iota along the last dimension, and
 *     tuple(slice(gte(sort, 0)), slice(gte(sort, 1))) replaces it.
 * A topk's comparator is new: compare-greater-than (largest) or
 * compare-less-than over parameters p.0.lhs, p.0.rhs (and p.1.lhs,
 * p.1.rhs, s32, unless only the values are used), comparing the first
 * pair with type=TOTALORDER for floats. Instructions with control
 * dependencies are left alone.
 *
 * opt.topk_ops_only ("topk-decomposer:topk-op", variants.c): XLA:CPU's
 * TopkDecomposer, whose predicate takes topk instructions only; TopK
 * custom-calls stay.
 */
#include <stdlib.h>
#include <string.h>

#include "build.h"

typedef struct {
	uint32_t c;		/* computation whose users are below */
	uint32_t n;		/* instructions then */
	uint32_t *nusers;	/* per instruction: its users (operand slots) */
	uint32_t *user;		/* and the last of them */
} Tk;

static int
is_topk_call(const HloModule *m, const HloInstr *in)
{
	uint32_t n;
	const char *t = hlo_attr_word(m, in, A_CUSTOM_CALL_TARGET, &n);

	return in->op == HOP_CUSTOMCALL && t && n == 4 && !memcmp(t, "TopK",
		4) && in->ncalled == 1;
}

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);
	const HloShape *sh = hlo_sh(m, in->shape), *xs;

	(void)arg;
	if (in->op != HOP_TOPK && ed->ctx->opt.topk_ops_only)
		return 0;
	if ((in->op != HOP_TOPK && !is_topk_call(m, in)) || in->nops != 1 ||
	    sh->type != TY_TUPLE || sh->ntuple != 2)
		return 0;
	xs = hlo_sh(m, pass_b_shape(ed, pass_opnd(ed, i, 0)));
	return xs->type < TY_TUPLE && xs->rank >= 1;
}

/* users of the computation ed edits, counted once per computation */
static void
users(PassEdit *ed, Tk *tk)
{
	const HloComp *cp = &ed->m->comps[ed->c];
	uint32_t i, k;

	if (tk->nusers && tk->c == ed->c)
		return;
	free(tk->nusers);
	free(tk->user);
	tk->c = ed->c;
	tk->n = cp->nins;
	tk->nusers = xcalloc(tk->n + 1, sizeof *tk->nusers);
	tk->user = xcalloc(tk->n + 1, sizeof *tk->user);
	for (i = 0; i < cp->nins; i++) {
		if (cp->ins[i].flags & HI_DEAD)
			continue;
		for (k = 0; k < cp->ins[i].nops; k++) {
			uint32_t x = ed->m->ids[cp->ins[i].ops + k];

			if (x < tk->n) {
				tk->nusers[x]++;
				tk->user[x] = i;
			}
		}
	}
}

uint32_t
pass_b_topk_comparator(HloModule *m, int largest, int type, int values_only)
{
	const char *name = largest ? "compare-greater-than" :
		"compare-less-than";
	uint32_t c = hlo_comp_add(m, pass_unique_name(m, name)), p[4], s, r;
	int k, np = values_only ? 2 : 4;
	static const char *const pn[4] = {"p.0.lhs", "p.0.rhs", "p.1.lhs",
		"p.1.rhs"};
	HloAttr a[2];
	uint32_t na = 0;

	for (k = 0; k < np; k++) {
		s = hlo_shape_scalar(m, k < 2 ? type : TY_S32);
		p[k] = hlo_instr_add(m, c, HOP_PARAMETER, s,
			pass_unique_name(m, pn[k]), 0, NULL);
		m->comps[c].ins[p[k]].num = k;
	}
	r = hlo_instr_add(m, c, HOP_COMPARE, hlo_shape_scalar(m, TY_PRED),
		hlo_fresh_name(m, "compare"), 2, p);
	a[na++] = hlo_mk_bytes(m, A_DIRECTION, K_WORD, largest ? "GT" : "LT",
		2);
	if (hlo_typeinfo[type].cls == C_FLOAT)
		a[na++] = hlo_mk_bytes(m, A_CMP_TYPE, K_WORD, "TOTALORDER", 10);
	hlo_set_attrs(m, c, r, na, a);
	m->comps[c].root = r;
	return c;
}

static uint32_t
sort(PassEdit *ed, uint32_t shape, uint32_t n, const uint32_t *ops,
	int64_t dim, uint32_t comp)
{
	HloModule *m = ed->m;
	uint32_t s = pass_b_op(ed, HOP_SORT, shape, n, ops);
	HloAttr a[2];

	a[0] = hlo_mk_ints(m, A_DIMENSIONS, &dim, 1);
	a[1] = hlo_mk_int(A_IS_STABLE, 1);
	a[1].kind = K_BOOL;
	hlo_set_attrs(m, ed->c, s, 2, a);
	hlo_set_called(m, ed->c, s, 1, &comp);
	return s;
}

/* the first elements of x, as many as shape has */
static uint32_t
head(PassEdit *ed, uint32_t x, uint32_t shape)
{
	HloModule *m = ed->m;
	const HloShape *sh = hlo_sh(m, shape);
	int64_t z[64] = {0}, lim[64];
	int r = sh->rank;
	uint32_t s;

	memcpy(lim, hlo_dims(m, sh), r * sizeof *lim);
	s = pass_b_slice(ed, x, z, lim, NULL);
	m->comps[ed->c].ins[s].shape = shape;
	return s;
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	Tk *tk = arg;
	uint32_t x = pass_opnd(ed, i, 0), shape = pass_ins(ed, i)->shape;
	uint32_t xs = pass_b_shape(ed, x), comp, u, ops[2], shapes[2], s, t[2];
	int rank = hlo_sh(m, xs)->rank, values_only, k;
	const HloInstr *ui;

	if (rank > 64)
		return HLO_NONE;
	users(ed, tk);
	u = i < tk->n && tk->nusers[i] == 1 ? tk->user[i] : HLO_NONE;
	ui = u != HLO_NONE ? pass_ins(ed, u) : NULL;
	values_only = ui && !(ui->flags & HI_DEAD) && ui->op == HOP_GTE &&
		hlo_attr_int(m, ui, A_INDEX, -1) == 0 && pass_res(ed, u) == u;
	if (pass_ins(ed, i)->op == HOP_TOPK) {
		const HloAttr *a = hlo_attr(m, pass_ins(ed, i), A_LARGEST);

		comp = pass_b_topk_comparator(m, a ? a->v != 0 : 1,
			pass_b_type(ed, x), values_only);
	} else {
		comp = m->ids[pass_ins(ed, i)->called];
	}
	if (values_only && hlo_param_count(m, comp) == 2) {
		s = sort(ed, xs, 1, &x, rank - 1, comp);
		s = head(ed, s, hlo_tuple_elems(m, hlo_sh(m, shape))[0]);
		pass_replace(ed, u, s, 0, 0);
		return i;
	}
	shapes[0] = xs;
	shapes[1] = hlo_shape_with_type(m, xs, TY_S32);
	ops[0] = x;
	ops[1] = pass_b_iota(ed, shapes[1], rank - 1);
	s = sort(ed, hlo_shape_tuple(m, 2, shapes), 2, ops, rank - 1, comp);
	for (k = 0; k < 2; k++)
		t[k] = head(ed, pass_b_gte(ed, s, k), hlo_tuple_elems(m,
			hlo_sh(m, shape))[k]);
	return pass_b_op(ed, HOP_TUPLE, shape, 2, t);
}

int
pass_topk_decomposer(HloModule *m, PassCtx *ctx)
{
	Tk tk;
	int r;

	memset(&tk, 0, sizeof tk);
	r = pass_expand(m, ctx, match, expand, &tk);
	free(tk.nusers);
	free(tk.user);
	return r;
}
