/* transpose_folding.c: "transpose-folding", xla's TransposeFolding with
 * its default options (IsRowColumnTransposeDotOperand for dots, every
 * transpose operand of a convolution folded).
 *
 * In every non-fusion, non-composite computation:
 *   dot(transpose(x), y) -> dot(x, y) with the lhs contracting and batch
 *   dimensions mapped through the permutation, when both dot operands
 *   have rank >= 2, the transpose is not the identity, the operand has
 *   exactly one contracting dimension, rank-2 batch dimensions and the
 *   transpose keeps every batch dimension in place; likewise for the rhs.
 *   convolution(transpose(x), transpose(y)) -> convolution(x, y) with
 *   dim_labels permuted (input labels for the lhs, kernel labels for the
 *   rhs); the new convolution loses backend_config, as in xla.
 * All candidates are found first, then folded. A dot or convolution with
 * control dependencies is left alone (ReplaceInstruction refuses it);
 * transposes left without users are deleted.
 */
#include <stdlib.h>
#include <string.h>

#include "pass.h"

typedef struct {
	uint32_t i;
	uint8_t fold[2];
} Cand;

static int
nonidentity_transpose(PassEdit *ed, uint32_t t)
{
	const HloInstr *in = pass_ins(ed, t);
	const int64_t *p;
	uint32_t n;

	if (in->op != HOP_TRANSPOSE || in->nops != 1)
		return 0;
	p = hlo_attr_ints(ed->m, in, A_DIMENSIONS, &n);
	if (!p || n != hlo_sh(ed->m, in->shape)->rank)
		return 0;
	return !hlo_ints_is_iota(p, n);
}

/* IsRowColumnTransposeDotOperand */
static int
row_column(PassEdit *ed, uint32_t dot, int side)
{
	HloModule *m = ed->m;
	const HloInstr *d = pass_ins(ed, dot), *t = pass_ins(ed, pass_opnd(ed, dot, side));
	const int64_t *batch, *perm;
	uint32_t nb, nc, np, k, rank = hlo_sh(m, t->shape)->rank;

	batch = hlo_attr_ints(m, d, side ? A_RHS_BATCH : A_LHS_BATCH, &nb);
	hlo_attr_ints(m, d, side ? A_RHS_CONTRACT : A_LHS_CONTRACT, &nc);
	perm = hlo_attr_ints(m, t, A_DIMENSIONS, &np);
	if (nb + 2 != rank || nc != 1 || np != rank)
		return 0;
	for (k = 0; k < nb; k++)
		if (batch[k] < 0 || batch[k] >= rank || perm[batch[k]] != batch[k])
			return 0;
	return 1;
}

static int
dot_candidate(PassEdit *ed, uint32_t i, Cand *cd)
{
	HloModule *m = ed->m;
	int side, any = 0;

	if (pass_ins(ed, i)->nops != 2 ||
	    hlo_sh(m, pass_ins(ed, pass_opnd(ed, i, 0))->shape)->rank < 2 ||
	    hlo_sh(m, pass_ins(ed, pass_opnd(ed, i, 1))->shape)->rank < 2)
		return 0;
	for (side = 0; side < 2; side++) {
		cd->fold[side] = nonidentity_transpose(ed, pass_opnd(ed, i, side)) &&
			row_column(ed, i, side);
		any |= cd->fold[side];
	}
	cd->i = i;
	return any;
}

static int
conv_candidate(PassEdit *ed, uint32_t i, Cand *cd)
{
	int side, any = 0;

	if (pass_ins(ed, i)->nops != 2)
		return 0;
	for (side = 0; side < 2; side++) {
		cd->fold[side] = pass_ins(ed, pass_opnd(ed, i, side))->op ==
			HOP_TRANSPOSE;
		any |= cd->fold[side];
	}
	cd->i = i;
	return any;
}

/* dims[k] = perm[dims[k]] for the attribute key of dot */
static int
map_dims(PassEdit *ed, uint32_t dot, int key, const int64_t *perm,
	uint32_t np)
{
	HloModule *m = ed->m;
	const int64_t *d;
	int64_t buf[64];
	uint32_t n, k;
	HloAttr a;

	d = hlo_attr_ints(m, pass_ins(ed, dot), key, &n);
	if (!d || !n)
		return 0;
	if (n > 64)
		return -1;
	for (k = 0; k < n; k++) {
		if (d[k] < 0 || (uint64_t)d[k] >= np)
			return -1;
		buf[k] = perm[d[k]];
	}
	a = hlo_mk_ints(m, key, buf, n);
	hlo_attr_set(m, ed->c, dot, &a);
	return 0;
}

static int
dims_ok(PassEdit *ed, uint32_t dot, int key, uint32_t np)
{
	const int64_t *d;
	uint32_t n, k;

	d = hlo_attr_ints(ed->m, pass_ins(ed, dot), key, &n);
	if (n > 64 || np > 64)
		return 0;
	for (k = 0; k < n; k++)
		if (d[k] < 0 || (uint64_t)d[k] >= np)
			return 0;
	return 1;
}

static void
fold_dot(PassEdit *ed, const Cand *cd)
{
	HloModule *m = ed->m;
	uint32_t ops[2], old[2], np, side;
	int64_t perm[64];
	const int64_t *p;

	for (side = 0; side < 2; side++) {
		old[side] = pass_opnd(ed, cd->i, side);
		p = hlo_attr_ints(m, pass_ins(ed, old[side]), A_DIMENSIONS, &np);
		if (cd->fold[side] && (!p || !dims_ok(ed, cd->i, side ?
		    A_RHS_CONTRACT : A_LHS_CONTRACT, np) || !dims_ok(ed, cd->i,
		    side ? A_RHS_BATCH : A_LHS_BATCH, np)))
			return;
	}
	for (side = 0; side < 2; side++) {
		ops[side] = old[side];
		if (!cd->fold[side])
			continue;
		p = hlo_attr_ints(m, pass_ins(ed, old[side]), A_DIMENSIONS, &np);
		memcpy(perm, p, np * sizeof *perm);
		map_dims(ed, cd->i, side ? A_RHS_CONTRACT : A_LHS_CONTRACT,
			perm, np);
		map_dims(ed, cd->i, side ? A_RHS_BATCH : A_LHS_BATCH, perm, np);
		ops[side] = pass_opnd(ed, old[side], 0);
	}
	pass_edit_set_operands(ed, cd->i, 2, ops);
	for (side = 0; side < 2; side++)
		if (cd->fold[side])
			pass_remove_cascade(ed, old[side]);
}

/* permutes the labels of one side of "b01f_01io->b01f" */
static int
permute_labels(char *s, size_t len, int part, const int64_t *perm,
	uint32_t np)
{
	char tmp[64];
	size_t beg = 0, end, k;
	const char *us = memchr(s, '_', len);
	const char *ar = us ? memchr(us, '-', len - (us - s)) : NULL;

	if (!us || !ar)
		return -1;
	if (part == 0) {
		end = us - s;
	} else {
		beg = us - s + 1;
		end = ar - s;
	}
	if (end - beg != np || np > sizeof tmp)
		return -1;
	for (k = 0; k < np; k++) {
		if (perm[k] < 0 || (uint64_t)perm[k] >= np)
			return -1;
		tmp[perm[k]] = s[beg + k];
	}
	memcpy(s + beg, tmp, np);
	return 0;
}

static void
fold_conv(PassEdit *ed, const Cand *cd)
{
	HloModule *m = ed->m;
	uint32_t ops[2], old[2], np, n, side;
	const int64_t *p;
	const char *w = hlo_attr_word(m, pass_ins(ed, cd->i), A_DIM_LABELS, &n);
	char lab[256];
	HloAttr a;

	if (!w || n >= sizeof lab)
		return;
	memcpy(lab, w, n);
	for (side = 0; side < 2; side++) {
		ops[side] = old[side] = pass_opnd(ed, cd->i, side);
		if (!cd->fold[side])
			continue;
		p = hlo_attr_ints(m, pass_ins(ed, old[side]), A_DIMENSIONS, &np);
		if (!p || permute_labels(lab, n, side, p, np) < 0)
			return;
		ops[side] = pass_opnd(ed, old[side], 0);
	}
	a = hlo_mk_bytes(m, A_DIM_LABELS, K_WORD, lab, n);
	hlo_attr_set(m, ed->c, cd->i, &a);
	hlo_attr_del(m, ed->c, cd->i, A_BACKEND_CONFIG);
	hlo_attr_del(m, ed->c, cd->i, A_STATISTICS);
	pass_edit_set_operands(ed, cd->i, 2, ops);
	for (side = 0; side < 2; side++)
		if (cd->fold[side])
			pass_remove_cascade(ed, old[side]);
}

/* fusion computations and computations called as composites */
static int
run_comp(PassEdit *ed, void *arg)
{
	PassCtx *ctx = ed->ctx;
	HloModule *m = ed->m;
	uint32_t c = ed->c, n = m->comps[c].nins, *order, cnt, i, nd = 0,
		nv = 0;
	Cand *dots = pass_alloc(ctx, (n + 1) * sizeof *dots);
	Cand *convs = pass_alloc(ctx, (n + 1) * sizeof *convs);

	order = pass_alloc(ctx, (n + 1) * sizeof *order);
	cnt = pass_post_order(m, c, order, ctx);
	for (i = 0; i < cnt; i++) {
		uint32_t x = order[i];
		int op = m->comps[c].ins[x].op;

		if (ed->ctl[x])
			continue;
		if (op == HOP_DOT && dot_candidate(ed, x, &dots[nd]))
			nd++;
		else if (op == HOP_CONV && conv_candidate(ed, x, &convs[nv]))
			nv++;
	}
	for (i = 0; i < nd; i++)
		fold_dot(ed, &dots[i]);
	for (i = 0; i < nv; i++)
		fold_conv(ed, &convs[i]);
	ctx->stats.rewrites += nd + nv;
	return nd + nv > 0;
}

int
pass_transpose_folding(HloModule *m, PassCtx *ctx)
{
	return pass_visit_comps(m, ctx, PASS_VISIT_EFFECTS |
		PASS_SKIP_FUSION_COMPOSITE, run_comp, NULL);
}
