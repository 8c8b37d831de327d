/* cholesky_expander.c: "cholesky_expander", xla's CholeskyExpander
 * (xla/hlo/transforms/expanders/cholesky_expander.cc and its FileCheck
 * test xla/hlo/transforms/tests/cholesky_expander.hlo, jpli02/xla
 * c4cbd3c; the builder helpers as linalg_build.c reproduces them).
 *
 * Every cholesky(a) of a non-fusion computation without control
 * dependencies becomes call(a), to_apply=xla.cholesky_<a>_<lower|upper>,
 * one computation per signature (a's shape without layout and lower),
 * built as xla's BuildCholesky builds it with block size 128:
 *   - upper: a transposed in its minor dims first, the factor transposed
 *     back last (the lower factor of a^T);
 *   - the blocked left-looking algorithm (Haidar et al. 2017), unrolled
 *     over the blocks: the panel a[i:, i:i+k] minus l[i:, :i] .
 *     l[i:i+k, :i]^H (BatchDot), its diagonal block factored by
 *     CholeskyUnblocked (a ForEachIndex while loop "unblocked" of k trips:
 *     l += select(column j below the diagonal, (a - l . l^H) / sqrt of its
 *     diagonal element, 0); a 1x1 block: its sqrt), the rest of the panel
 *     by a triangular-solve (right side, lower, ADJOINT; XLA:CPU expands
 *     it after, as triangular_solve_expander does here), both written into
 *     l with dynamic-update-slice;
 *   - a NaN sqrt of a diagonal element (real part for complex) marks its
 *     batch element; those matrices become NaN (pred[..., 1, 1] broadcast
 *     back to a's shape).
 * Dots are HIGHEST precision with Einsum's grad_x/grad_y attributes and an
 * identity transpose, as XlaBuilder emits them.
 *
 * Differences from xla's output: names and numbering; layouts only on the
 * parameter (xla's builder gives the transposes layouts that make them
 * bitcasts); unused get-tuple-elements of the loops kept, as xla keeps
 * them. Types: floating-point or complex; ranks up to PASS_LA_MAXR - 1.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "build.h"
#include "linalg_build.h"

#define CH_BLOCK 128		/* BuildCholesky's block_size */

static int
is_complex(PassEdit *b, uint32_t x)
{
	return hlo_typeinfo[pass_b_type(b, x)].cls == C_CPLX;
}

/* sqrt of a diagonal element and whether it is NaN: for complex, the
 * sqrt of its real part as a complex number */
static uint32_t
diag_sqrt(PassEdit *b, uint32_t x, uint32_t *nan)
{
	uint32_t s;

	if (!is_complex(b, x)) {
		s = pass_la_unary(b, HOP_SQRT, x);
		*nan = pass_la_is_nan(b, s);
		return s;
	}
	s = pass_la_unary(b, HOP_SQRT, pass_la_unary(b, HOP_REAL, x));
	x = pass_la_complex(b, s, pass_la_full_like(b, s, 0));
	*nan = pass_la_is_nan(b, s);
	return x;
}

/* one trip of CholeskyUnblocked: vars a, l, seen_error */
static void
unblocked_body(PassEdit *b, uint32_t i, const uint32_t *v, uint32_t *out,
	void *arg)
{
	int64_t d[PASS_LA_MAXR], one[2] = {1, 1};
	int r = pass_b_dims(b, v[0], d), t = pass_b_type(b, v[0]);
	uint32_t sh = pass_b_array(b->m, TY_S32, r, d), row, col, mask, mz;
	uint32_t lsq, lii, nan, ij[2] = {i, i};

	(void)arg;
	row = pass_b_iota(b, sh, r - 1);
	col = pass_b_iota(b, sh, r - 2);
	mask = pass_la_cmp(b, col, row, "GE", 0, NULL);
	mask = pass_la_bin(b, HOP_AND, mask, pass_la_cmp(b, row, i, "EQ", 0,
		NULL), 0, NULL);
	mz = pass_la_zeros(b, t, r, d);
	lsq = pass_la_batch_dot(b, v[1], 0, pass_la_conj(b, v[1], 1), 1);
	lsq = pass_la_bin(b, HOP_SUBTRACT, v[0], lsq, 0, NULL);
	lii = pass_la_ds_minor(b, lsq, 2, ij, one);
	lii = diag_sqrt(b, lii, &nan);
	out[2] = pass_la_bin(b, HOP_OR, v[2], nan, 0, NULL);
	out[1] = pass_la_bin(b, HOP_ADD, pass_la_select(b, mask, pass_la_bin(b,
		HOP_DIVIDE, lsq, lii, 0, NULL), mz), v[1], 0, NULL);
	out[0] = v[0];
}

/* CholeskyUnblocked(x): the factor, and pred[..., 1, 1] errors in *err */
static uint32_t
unblocked(PassEdit *b, uint32_t x, uint32_t *err)
{
	int64_t d[PASS_LA_MAXR];
	int r = pass_b_dims(b, x, d);
	uint32_t init[3], out[3];

	init[0] = x;
	init[1] = pass_la_full_like(b, x, 0);
	d[r - 1] = d[r - 2] = 1;
	init[2] = pass_la_zeros(b, TY_PRED, r, d);
	pass_b_dims(b, x, d);
	pass_la_for_each(b, d[r - 1], 3, init, "unblocked", unblocked_body,
		NULL, out);
	*err = out[2];
	return out[1];
}

/* TriangularSolve(f, x, left_side=false, lower=true, unit_diagonal=false,
 * ADJOINT) */
static uint32_t
trisolve(PassEdit *b, uint32_t f, uint32_t x)
{
	uint32_t o[2] = {f, x}, i;
	HloAttr a[2];

	i = pass_b_op(b, HOP_TRISOLVE, hlo_shape_no_layout(b->m,
		pass_b_shape(b, x)), 2, o);
	a[0] = hlo_mk_int(A_LOWER, 1);
	a[0].kind = K_BOOL;
	a[1] = hlo_mk_bytes(b->m, A_TRANSPOSE_A, K_WORD, "ADJOINT", 7);
	hlo_set_attrs(b->m, b->c, i, 2, a);
	return i;
}

/* BuildCholesky: the lower factor of a */
static uint32_t
build_cholesky(PassEdit *b, uint32_t a)
{
	int64_t d[PASS_LA_MAXR], e[PASS_LA_MAXR], bd[PASS_LA_MAXR];
	int64_t st[2], en[2], n, i, k;
	int r = pass_b_dims(b, a, d), j;
	uint32_t l, err, panel, x, f, ferr, lhs, rhs;

	n = d[r - 1];
	memcpy(e, d, r * sizeof *e);
	e[r - 1] = e[r - 2] = 1;
	l = pass_la_full_like(b, a, 0);
	err = pass_la_zeros(b, TY_PRED, r, e);
	for (i = 0; i < n; i += CH_BLOCK) {
		k = CH_BLOCK < n - i ? CH_BLOCK : n - i;
		st[0] = st[1] = i;
		en[0] = n;
		en[1] = i + k;
		panel = pass_la_slice_minor(b, a, 2, st, en);
		if (i > 0) {
			st[1] = 0;
			en[1] = i;
			lhs = pass_la_slice_minor(b, l, 2, st, en);
			en[0] = i + k;
			rhs = pass_la_slice_minor(b, l, 2, st, en);
			rhs = pass_la_batch_dot(b, lhs, 0, pass_la_conj(b, rhs,
				1), 1);
			panel = pass_la_bin(b, HOP_SUBTRACT, panel, rhs, 0,
				NULL);
		}
		st[0] = st[1] = 0;
		en[0] = en[1] = k;
		x = pass_la_slice_minor(b, panel, 2, st, en);
		if (k == 1)
			f = diag_sqrt(b, x, &ferr);
		else
			f = unblocked(b, x, &ferr);
		err = pass_la_bin(b, HOP_OR, err, ferr, 0, NULL);
		st[0] = st[1] = i;
		l = pass_la_update_minor(b, l, f, 2, st);
		if (i + k < n) {
			st[0] = k;
			st[1] = 0;
			en[0] = n - i;
			en[1] = k;
			x = trisolve(b, f, pass_la_slice_minor(b, panel, 2, st,
				en));
			st[0] = i + k;
			st[1] = i;
			l = pass_la_update_minor(b, l, x, 2, st);
		}
	}
	for (j = 0; j < r; j++)
		bd[j] = j;
	err = pass_la_bcast_in_dim(b, err, r, d, bd);
	return pass_la_select(b, err, pass_la_full_like(b, l, NAN), l);
}

static uint32_t
build(HloModule *m, uint32_t sa, int lower)
{
	HloBuf name = {0};
	PassEdit b;
	uint32_t a;

	hlo_buf_puts(&name, "xla.cholesky_");
	pass_shape_name(m, sa, &name);
	hlo_buf_puts(&name, lower ? "_lower" : "_upper");
	hlo_buf_put(&name, "", 1);
	pass_b_fresh(&b, m, pass_la_comp(m, name.buf));
	hlo_buf_free(&name);
	a = pass_la_param(&b, 0, sa, "a");
	if (!lower)
		a = pass_la_transpose_minor(&b, a);
	a = build_cholesky(&b, a);
	if (!lower)
		a = pass_la_transpose_minor(&b, a);
	pass_b_root(&b, a);
	return b.c;
}

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	const HloInstr *in = pass_ins(ed, i);

	(void)arg;
	return in->op == HOP_CHOLESKY && in->nops == 1 && pass_la_operand(ed,
		i, 0);
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);
	uint32_t o, k[2], *slot, shape = in->shape;
	int lower = hlo_attr_int(m, in, A_LOWER, 0) != 0, fresh;

	o = pass_opnd(ed, i, 0);
	k[0] = hlo_shape_no_layout(m, pass_b_shape(ed, o)) + 1;
	k[1] = (uint32_t)lower;
	slot = pass_cache_slot(arg, k, &fresh);
	if (fresh)
		*slot = build(m, pass_b_shape(ed, o), lower);
	return pass_b_call(ed, *slot, shape, 1, &o);
}

int
pass_cholesky_expander(HloModule *m, PassCtx *ctx)
{
	return pass_expand_cached(m, ctx, match, expand, 2);
}
