/* dot_decomposer.c: "dot_decomposer", xla's DotDecomposer
 * (xla/hlo/transforms/expanders/dot_decomposer.cc, openxla/xla as of
 * jpli02/xla c4cbd3c).
 *
 * Contract: in every non-fusion computation, every dot that is not
 * canonical is rewritten into the canonical form: lhs [batch...,
 * non-contracting product, contracting product], rhs [batch...,
 * contracting product, non-contracting product] (a non-contracting
 * product of 1 is left out), batch dimensions 0..n-1 on both sides. Each
 * operand goes through a transpose (even an identity one, as xla) and a
 * reshape carrying the operand's metadata; the new dot keeps the old
 * one's precision config and result type and gets its metadata
 * (SetupDerivedInstruction); a reshape back to the old shape replaces
 * the old dot.
 * A dot is canonical, and left alone, when it has exactly one contracting
 * dimension, at most one non-contracting dimension per side, and batch
 * dimensions (if any) 0..n-1 on both sides; a dot with neither batch nor
 * contracting dimensions is never canonical. Sparse dots (a metadata
 * operand per sparsity descriptor) and dots with control dependencies
 * are left alone.
 */
#include "dotutil.h"

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	const HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);
	int lr, rr;
	PassDnums d;

	(void)arg;
	if (!pass_dot_plain(m, in) || pass_dot_dnums(m, in, &d) < 0 ||
	    d.nlb != d.nrb || d.nlc != d.nrc)
		return 0;
	lr = hlo_sh(m, pass_b_shape(ed, pass_opnd(ed, i, 0)))->rank;
	rr = hlo_sh(m, pass_b_shape(ed, pass_opnd(ed, i, 1)))->rank;
	if (d.nlc != 1 || (int)d.nlb + 2 < lr || (int)d.nrb + 2 < rr)
		return 1;
	if (!d.nlb && !d.nlc)
		return 1;
	return !hlo_ints_is_iota(d.lb, d.nlb) || !hlo_ints_is_iota(d.rb, d.nrb);
}

/* SetupDerivedInstruction: metadata, frontend attributes, and sharding
 * when the ranks agree (CompatibleKind) */
static void
derived(PassEdit *ed, uint32_t from, uint32_t to)
{
	const HloModule *m = ed->m;

	pass_copy_attr(ed, from, to, A_METADATA);
	pass_copy_attr(ed, from, to, A_FRONTEND_ATTRIBUTES);
	if (hlo_sh(m, pass_ins(ed, from)->shape)->rank ==
	    hlo_sh(m, pass_ins(ed, to)->shape)->rank)
		pass_copy_attr(ed, from, to, A_SHARDING);
}

/* one side: perm is batch, then (lhs) free and contracting or (rhs)
 * contracting and free; returns the reshaped operand; *free the product
 * of the free dims */
static uint32_t
side(PassEdit *ed, uint32_t x, const int64_t *b, uint32_t nb,
	const int64_t *c, uint32_t nc, int lhs, int64_t *free)
{
	HloModule *m = ed->m;
	const HloShape *s = hlo_sh(m, pass_b_shape(ed, x));
	int64_t dims[PASS_DOT_MAXDIMS], perm[PASS_DOT_MAXDIMS];
	int64_t fr[PASS_DOT_MAXDIMS], rd[PASS_DOT_MAXDIMS], csz = 1, fsz = 1;
	int rank = s->rank, nf = 0, n = 0, q;
	uint32_t k, t, r;

	for (q = 0; q < rank; q++)
		dims[q] = hlo_dims(m, s)[q];
	for (q = 0; q < rank; q++) {
		if (hlo_ints_has(c, nc, q))
			csz *= dims[q];
		else if (!hlo_ints_has(b, nb, q)) {
			fr[nf++] = q;
			fsz *= dims[q];
		}
	}
	for (k = 0; k < nb; k++)
		perm[n++] = b[k];
	for (q = 0; q < nf && lhs; q++)
		perm[n++] = fr[q];
	for (k = 0; k < nc; k++)
		perm[n++] = c[k];
	for (q = 0; q < nf && !lhs; q++)
		perm[n++] = fr[q];
	t = pass_b_transpose(ed, x, rank, perm);
	pass_copy_attr(ed, x, t, A_METADATA);
	n = 0;
	for (k = 0; k < nb; k++)
		rd[n++] = dims[b[k]];
	if (lhs && fsz > 1)
		rd[n++] = fsz;
	rd[n++] = csz;
	if (!lhs && fsz > 1)
		rd[n++] = fsz;
	r = pass_b_reshape(ed, t, n, rd);
	pass_copy_attr(ed, x, r, A_METADATA);
	*free = fsz;
	return r;
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	uint32_t lhs = pass_opnd(ed, i, 0), rhs = pass_opnd(ed, i, 1);
	uint32_t shape = pass_ins(ed, i)->shape, nl, nr, nd, k;
	int64_t dims[PASS_DOT_MAXDIMS], lf, rf;
	PassDnums d, e;
	int n = 0;

	(void)arg;
	pass_dot_dnums(m, pass_ins(ed, i), &d);
	nl = side(ed, lhs, d.lb, d.nlb, d.lc, d.nlc, 1, &lf);
	nr = side(ed, rhs, d.rb, d.nrb, d.rc, d.nrc, 0, &rf);
	for (k = 0; k < d.nlb; k++)
		dims[n++] = hlo_dims(m, hlo_sh(m, pass_b_shape(ed, nl)))[k];
	if (lf > 1)
		dims[n++] = lf;
	if (rf > 1)
		dims[n++] = rf;
	e.nlb = e.nrb = d.nlb;
	for (k = 0; k < d.nlb; k++)
		e.lb[k] = e.rb[k] = k;
	e.nlc = e.nrc = 1;
	e.lc[0] = d.nlb + (lf > 1);
	e.rc[0] = d.nlb;
	nd = pass_dot_like(ed, i, nl, nr, &e, pass_b_array(m,
		hlo_sh(m, shape)->type, n, dims));
	derived(ed, i, nd);
	return pass_b_op(ed, HOP_RESHAPE, shape, 1, &nd);
}

int
pass_dot_decomposer(HloModule *m, PassCtx *ctx)
{
	return pass_expand(m, ctx, match, expand, NULL);
}
