/* qr_expander.c: "qr_expander", xla's QrExpander
 * (xla/hlo/transforms/expanders/qr_expander.cc, jpli02/xla c4cbd3c; the
 * builder helpers as linalg_build.c reproduces them).
 *
 * Every custom-call "Qr"(a) and "ProductOfElementaryHouseholderReflectors"
 * (a, taus) of a non-fusion computation without control dependencies
 * becomes call(operands), to_apply=xla.<target>_<a's shape>[_<taus'
 * shape>] (shapes without layout, sanitized as NameUniquer does), one
 * computation per signature, built as xla builds it with block size 128
 * and HIGHEST precision:
 *   - Qr: the blocked Householder QR (Golub & Van Loan 5.2.2), unrolled
 *     over blocks of 128 columns of the p = min(m, n) reflected ones: the
 *     block a[i:, i:i+k] factored by QrBlock (a ForEachIndex while loop
 *     "qr" of k trips: House's reflector of column j below row j, applied
 *     to the columns after j under a mask, column j written as beta and
 *     the reflector; taus[j] = tau), the reflectors' compact WY form
 *     (a loop "wy" of k trips), the trailing panel updated with it;
 *     the result is the tuple (R above the diagonal and the reflectors
 *     below it, taus), LAPACK geqrf's layout;
 *   - ProductOfElementaryHouseholderReflectors: q = the m x n identity,
 *     the blocks of the p reflectors applied from the last one back
 *     (orgqr).
 * Dots are BatchDots (Einsum: a dot with grad_x/grad_y attributes and an
 * identity transpose), as XlaBuilder emits them.
 *
 * Differences from xla's output: names and numbering, and the order of
 * independent instructions (xla's follows the C++ compiler's order of
 * evaluating arguments); layouts only on the parameters. Matched only
 * where xla's builder succeeds and the custom-call's shape is the one the
 * expansion gives (otherwise left alone): floating-point or complex
 * operands of rank 2 to PASS_LA_MAXR - 1; Qr: the shape (a, taus[...,
 * min(m, n)]); the product: m >= n, taus[..., p] with p <= n, shape a's.
 */
#include <stdio.h>
#include <string.h>

#include "build.h"
#include "linalg_build.h"

#define QR_BLOCK 128		/* ExpandInstruction's block_size */

enum { QR_QR, QR_HOUSEHOLDER };

/* the batch dims of a [batch..., m, n] */
typedef struct {
	int nb;			/* batch rank */
	int64_t bd[PASS_LA_MAXR];	/* batch dims */
	int64_t idx[PASS_LA_MAXR + 1];	/* 0, 1, 2, ... */
	int64_t ones[PASS_LA_MAXR];	/* 1, 1, ... */
	int64_t m, n;		/* QrBlock's matrix dims */
	int type;
} QrDims;

static int
is_complex(int type)
{
	return hlo_typeinfo[type].cls == C_CPLX;
}

/* ScalarLike(x, v) */
/* ConvertElementType */
static uint32_t
cvt(PassEdit *b, uint32_t x, int type)
{
	return pass_b_xconvert(b, HOP_CONVERT, x, type);
}

static uint32_t
like(PassEdit *b, uint32_t x, double v)
{
	return pass_b_scalar(b, pass_b_type(b, x), v);
}

static uint32_t
bin(PassEdit *b, int op, uint32_t x, uint32_t y)
{
	return pass_la_bin(b, op, x, y, 0, NULL);
}

/* dims of batch followed by n more */
static int
cat(int64_t *out, const QrDims *q, int n, const int64_t *more)
{
	memcpy(out, q->bd, q->nb * sizeof *out);
	memcpy(out + q->nb, more, n * sizeof *out);
	return q->nb + n;
}

/* Norm: sqrt of the sum of squares of xs without overflow */
static uint32_t
norm(PassEdit *b, int n, uint32_t *xs)
{
	uint32_t w = HLO_NONE, out = HLO_NONE, t, z;
	int i;

	for (i = 0; i < n; i++) {
		xs[i] = pass_la_unary(b, HOP_ABS, xs[i]);
		w = i == 0 ? xs[i] : bin(b, HOP_MAX, w, xs[i]);
	}
	for (i = 0; i < n; i++) {
		t = bin(b, HOP_DIVIDE, xs[i], w);
		t = bin(b, HOP_MUL, t, t);
		out = i == 0 ? t : bin(b, HOP_ADD, out, t);
	}
	z = pass_la_cmp(b, w, pass_la_full_like(b, w, 0), "EQ", 0, NULL);
	t = bin(b, HOP_MUL, w, pass_la_unary(b, HOP_SQRT, out));
	return pass_la_select(b, z, pass_la_full_like(b, w, 0), t);
}

/* House(x, k): the reflector v of x[..., m] that zeroes x[k+1:], its tau
 * and beta */
static void
house(PassEdit *b, uint32_t x, uint32_t k, const QrDims *q, uint32_t *v,
	uint32_t *tau, uint32_t *beta)
{
	int type = pass_b_type(b, x), rt = pass_la_real_type(type);
	int64_t minor = q->nb, one = 1;
	uint32_t zero = like(b, x, 0), alpha, iota, after, sigma, siz, xs[3];
	uint32_t mu, sq, re, im, div, ek, s;

	alpha = pass_la_ds_minor(b, x, 1, &k, &one);
	alpha = pass_b_reshape(b, alpha, q->nb, q->bd);
	iota = pass_la_iota(b, TY_S32, q->m);
	after = cvt(b, pass_la_cmp(b, iota, k, "GT", 0, NULL),
		type);
	after = pass_la_bin(b, HOP_MUL, x, after, 1, &minor);
	if (is_complex(type)) {
		sq = pass_la_unary(b, HOP_REAL, bin(b, HOP_MUL, after,
			pass_la_conj(b, after, 1)));
		sigma = pass_la_reduce(b, sq, like(b, sq, 0),
			pass_la_add_comp(b->m, rt), 1, &minor);
		re = pass_la_unary(b, HOP_REAL, alpha);
		im = pass_la_unary(b, HOP_IMAG, alpha);
		xs[0] = re;
		xs[1] = im;
		xs[2] = pass_la_unary(b, HOP_SQRT, sigma);
		mu = norm(b, 3, xs);
		siz = pass_la_cmp(b, sigma, like(b, sigma, 0), "EQ", 0, NULL);
		siz = bin(b, HOP_AND, siz, pass_la_cmp(b, im, like(b, sigma,
			0), "EQ", 0, NULL));
		s = pass_la_select(b, pass_la_cmp(b, re, like(b, sigma, 0),
			"LT", 0, NULL), like(b, mu, 1), like(b, mu, -1));
		*beta = bin(b, HOP_MUL, s, mu);
		*beta = pass_la_select(b, siz, re, *beta);
		*tau = pass_la_complex(b, bin(b, HOP_DIVIDE, bin(b,
			HOP_SUBTRACT, *beta, re), *beta), bin(b, HOP_DIVIDE,
			pass_la_unary(b, HOP_NEGATE, im), *beta));
	} else {
		sigma = pass_la_reduce(b, bin(b, HOP_MUL, after, after),
			zero, pass_la_add_comp(b->m, type), 1, &minor);
		xs[0] = alpha;
		xs[1] = pass_la_unary(b, HOP_SQRT, sigma);
		mu = norm(b, 2, xs);
		siz = pass_la_cmp(b, sigma, zero, "EQ", 0, NULL);
		s = like(b, x, 1);
		s = pass_la_select(b, pass_la_cmp(b, alpha, zero, "LT", 0,
			NULL), s, pass_la_unary(b, HOP_NEGATE, s));
		*beta = bin(b, HOP_MUL, s, mu);
		*beta = pass_la_select(b, siz, alpha, *beta);
		*tau = bin(b, HOP_DIVIDE, bin(b, HOP_SUBTRACT, *beta, alpha),
			*beta);
	}
	*tau = pass_la_select(b, siz, pass_la_full_like(b, *tau, 0), *tau);
	div = pass_la_select(b, siz, pass_b_broadcast(b, like(b, alpha, 1),
		q->nb, q->bd), bin(b, HOP_SUBTRACT, alpha, cvt(b,
		*beta, type)));
	ek = cvt(b, pass_la_cmp(b, iota, k, "EQ", 0, NULL), type);
	ek = pass_b_broadcast(b, ek, q->nb, q->ones);
	*v = bin(b, HOP_ADD, ek, pass_la_bin(b, HOP_DIVIDE, after, div, q->nb,
		q->idx));
}

/* one trip of QrBlock: vars a, taus */
static void
qr_body(PassEdit *b, uint32_t j, const uint32_t *vars, uint32_t *out,
	void *arg)
{
	const QrDims *q = arg;
	int nd = q->nb + 2, type = q->type;
	int64_t d[PASS_LA_MAXR], mn[2] = {q->m, q->n}, one = 1, m1[2];
	int64_t bi[PASS_LA_MAXR + 1], two[2] = {nd - 2, nd - 1};
	uint32_t a = vars[0], taus = vars[1], x, xc, v, tau, beta, iota_mn;
	uint32_t vb, vva, iota, pm, mask, sm, nx, iota_n, tz, tu;

	x = pass_la_ds_minor(b, a, 1, &j, &one);
	cat(d, q, 1, &q->m);
	xc = pass_b_reshape(b, x, q->nb + 1, d);
	house(b, xc, j, q, &v, &tau, &beta);
	cat(d, q, 2, mn);
	iota_mn = pass_b_iota(b, pass_b_array(b->m, TY_S32, nd, d),
		q->nb + 1);
	m1[0] = 1;
	m1[1] = q->m;
	cat(d, q, 2, m1);
	vb = pass_b_reshape(b, v, nd, d);
	vva = pass_la_select(b, pass_la_cmp(b, j, iota_mn, "LT", 0, NULL), a,
		pass_la_full_like(b, a, 0));
	vva = pass_la_batch_dot(b, pass_la_conj(b, vb, 1), 0, vva, 0);
	vva = pass_la_batch_dot(b, vb, 1, vva, 0);
	a = bin(b, HOP_SUBTRACT, a, pass_la_bin(b, HOP_MUL,
		pass_la_conj(b, tau, 1), vva, q->nb, q->idx));
	m1[0] = q->m;
	m1[1] = 1;
	iota = pass_b_reshape(b, pass_la_iota(b, TY_S32, q->m), 2, m1);
	pm = cvt(b, pass_la_cmp(b, iota, j, "LT", 0, NULL), type);
	mask = cvt(b, pass_la_cmp(b, iota, j, "EQ", 0, NULL),
		type);
	mask = pass_b_broadcast(b, mask, q->nb, q->ones);
	sm = pass_la_cmp(b, pass_la_iota(b, TY_S32, q->m), j, "GT", 0, NULL);
	nx = bin(b, HOP_ADD, pass_la_bin(b, HOP_MUL, x, pm, 2, two),
		pass_la_bin(b, HOP_MUL, cvt(b, beta, type),
		mask, q->nb, q->idx));
	memcpy(bi, q->idx, (q->nb + 1) * sizeof *bi);
	nx = pass_la_bin(b, HOP_ADD, nx, pass_la_select(b, pass_b_broadcast(b,
		sm, q->nb, q->bd), v, pass_la_full_like(b, v, 0)), q->nb + 1,
		bi);
	cat(d, q, 2, mn);
	nx = pass_la_bcast_in_dim(b, nx, nd, d, q->idx);
	out[0] = pass_la_select(b, pass_la_cmp(b, iota_mn, j, "EQ", 0, NULL),
		nx, a);
	cat(d, q, 1, &q->n);
	iota_n = pass_b_iota(b, pass_b_array(b->m, TY_S32, q->nb + 1,
		d), q->nb);
	tz = pass_la_full_like(b, taus, 0);
	tu = pass_la_select(b, pass_la_cmp(b, iota_n, j, "EQ", 0, NULL),
		pass_la_bin(b, HOP_ADD, tz, tau, q->nb, q->idx), tz);
	out[1] = bin(b, HOP_ADD, taus, tu);
}

static void
dims_of(PassEdit *b, uint32_t a, QrDims *q)
{
	int64_t d[PASS_LA_MAXR];
	int r = pass_b_dims(b, a, d), k;

	q->nb = r - 2;
	memcpy(q->bd, d, q->nb * sizeof *d);
	for (k = 0; k <= r; k++) {
		q->idx[k] = k;
		q->ones[k < PASS_LA_MAXR ? k : 0] = 1;
	}
	q->m = d[r - 2];
	q->n = d[r - 1];
	q->type = pass_b_type(b, a);
}

/* QrBlock(a): out[0] q_and_r, out[1] taus */
static void
qr_block(PassEdit *b, uint32_t a, uint32_t *out)
{
	QrDims q;
	int64_t d[PASS_LA_MAXR], p;
	uint32_t init[2];

	dims_of(b, a, &q);
	p = q.m < q.n ? q.m : q.n;
	init[0] = a;
	init[1] = pass_la_zeros(b, q.type, cat(d, &q, 1, &p), d);
	pass_la_for_each(b, p, 2, init, "qr", qr_body, &q, out);
}

/* one trip of CompactWYRepresentation: vars t, vtv */
static void
wy_body(PassEdit *b, uint32_t j, const uint32_t *vars, uint32_t *out,
	void *arg)
{
	int64_t one = 1;
	uint32_t yv, z;

	(void)arg;
	yv = pass_la_ds_minor(b, vars[1], 1, &j, &one);
	z = pass_la_batch_dot(b, vars[0], 0, yv, 0);
	out[0] = pass_la_dus_minor(b, vars[0], z, 1, &j);
	out[1] = vars[1];
}

/* CompactWYRepresentation(vs [..., m, n], taus [..., n]): T with
 * I + Y T Y^H the product of the reflectors */
static uint32_t
compact_wy(PassEdit *b, const QrDims *q, uint32_t vs, uint32_t taus,
	int64_t n)
{
	int64_t d[PASS_LA_MAXR], bi[PASS_LA_MAXR + 1], one_n[2] = {1, n};
	uint32_t scale, eye, vtv, init[2], out[2];
	int nd = q->nb + 2;

	memcpy(bi, q->idx, q->nb * sizeof *bi);
	bi[q->nb] = q->nb + 1;
	cat(d, q, 2, one_n);
	scale = pass_la_bcast_in_dim(b, pass_la_unary(b, HOP_NEGATE, taus),
		nd, d, bi);
	eye = pass_b_broadcast(b, pass_la_identity(b, q->type, n, n), q->nb,
		q->bd);
	vtv = pass_la_batch_dot(b, pass_la_conj(b, vs, 1), 1, vs, 0);
	vtv = pass_la_select(b, pass_la_triangle_mask(b, vtv, 0),
		pass_la_full_like(b, vtv, 0), vtv);
	vtv = bin(b, HOP_MUL, bin(b, HOP_ADD, vtv, eye), scale);
	init[0] = eye;
	init[1] = vtv;
	pass_la_for_each(b, n, 2, init, "wy", wy_body, NULL, out);
	return out[0];
}

/* y = I(m - i, k) + the strictly lower part of blk */
static uint32_t
reflectors(PassEdit *b, const QrDims *q, uint32_t blk, int64_t rows,
	int64_t k)
{
	int64_t two[2] = {q->nb, q->nb + 1};
	uint32_t y;

	y = pass_la_select(b, pass_la_triangle_mask(b, blk, -1), blk,
		pass_la_full_like(b, blk, 0));
	return pass_la_bin(b, HOP_ADD, pass_la_identity(b, q->type, rows, k),
		y, 2, two);
}

/* BuildQrDecomposition: the tuple (a, taus) */
static uint32_t
build_qr(PassEdit *b, uint32_t a)
{
	QrDims q;
	int64_t d[PASS_LA_MAXR], p, i, k, st[2], en[2];
	uint32_t taus, blk[2], y, t, yt, panel, upd, r[2];

	dims_of(b, a, &q);
	p = q.m < q.n ? q.m : q.n;
	taus = pass_la_zeros(b, q.type, cat(d, &q, 1, &p), d);
	for (i = 0; i < p; i += QR_BLOCK) {
		QrDims qb = q;

		k = QR_BLOCK < p - i ? QR_BLOCK : p - i;
		st[0] = st[1] = i;
		en[0] = q.m;
		en[1] = i + k;
		qr_block(b, pass_la_slice_minor(b, a, 2, st, en), blk);
		y = reflectors(b, &q, blk[0], q.m - i, k);
		a = pass_la_update_minor(b, a, blk[0], 2, st);
		taus = pass_la_update_minor(b, taus, blk[1], 1, &i);
		qb.m = q.m - i;
		qb.n = k;
		t = compact_wy(b, &qb, y, blk[1], k);
		yt = pass_la_batch_dot(b, y, 0, pass_la_conj(b, t, 1), 1);
		st[1] = i + k;
		en[1] = q.n;
		panel = pass_la_slice_minor(b, a, 2, st, en);
		upd = pass_la_batch_dot(b, pass_la_conj(b, y, 1), 1, panel, 0);
		upd = pass_la_batch_dot(b, yt, 0, upd, 0);
		panel = bin(b, HOP_ADD, panel, upd);
		a = pass_la_update_minor(b, a, panel, 2, st);
	}
	r[0] = a;
	r[1] = taus;
	return pass_b_tuple(b, 2, r);
}

/* ProductOfElementaryHouseholderReflectors(a, taus): q */
static uint32_t
build_householder(PassEdit *b, uint32_t a, uint32_t taus)
{
	QrDims q;
	int64_t d[PASS_LA_MAXR], p, i, k, st[2], en[2];
	uint32_t qq, y, t, tb, panel, ytq;

	dims_of(b, a, &q);
	p = d[pass_b_dims(b, taus, d) - 1];
	qq = pass_b_broadcast(b, pass_la_identity(b, q.type, q.m, q.n), q.nb,
		q.bd);
	for (i = (p - 1) / QR_BLOCK * QR_BLOCK; i >= 0; i -= QR_BLOCK) {
		QrDims qb = q;

		k = QR_BLOCK < p - i ? QR_BLOCK : p - i;
		st[0] = st[1] = i;
		en[0] = q.m;
		en[1] = i + k;
		y = reflectors(b, &q, pass_la_slice_minor(b, a, 2, st, en),
			q.m - i, k);
		en[0] = i + k;
		tb = pass_la_slice_minor(b, taus, 1, &i, en);
		qb.m = q.m - i;
		qb.n = k;
		t = compact_wy(b, &qb, y, tb, k);
		en[0] = q.m;
		en[1] = q.n;
		panel = pass_la_slice_minor(b, qq, 2, st, en);
		ytq = pass_la_batch_dot(b, pass_la_conj(b, y, 1), 1, panel, 0);
		ytq = pass_la_batch_dot(b, y, 0, pass_la_batch_dot(b, t, 0, ytq,
			0), 0);
		panel = bin(b, HOP_ADD, panel, ytq);
		qq = pass_la_update_minor(b, qq, panel, 2, st);
	}
	return qq;
}

static uint32_t
build(HloModule *m, int kind, uint32_t sa, uint32_t st)
{
	HloBuf name = {0};
	PassEdit b;
	uint32_t a, r;

	hlo_buf_printf(&name, "xla.%s_", kind == QR_QR ? "Qr" :
		"ProductOfElementaryHouseholderReflectors");
	pass_shape_name(m, sa, &name);
	if (kind == QR_HOUSEHOLDER) {
		hlo_buf_put(&name, "_", 1);
		pass_shape_name(m, st, &name);
	}
	hlo_buf_put(&name, "", 1);
	pass_b_fresh(&b, m, pass_la_comp(m, name.buf));
	hlo_buf_free(&name);
	a = pass_la_param(&b, 0, sa, "a");
	if (kind == QR_QR)
		r = build_qr(&b, a);
	else
		r = build_householder(&b, a, pass_la_param(&b, 1, st,
			"taus"));
	pass_b_root(&b, r);
	return b.c;
}

static int
target(PassEdit *ed, const HloInstr *in)
{
	uint32_t n;
	const char *t = hlo_attr_word(ed->m, in, A_CUSTOM_CALL_TARGET, &n);

	if (!t || in->op != HOP_CUSTOMCALL)
		return -1;
	if (n == 2 && !memcmp(t, "Qr", 2))
		return QR_QR;
	if (n == 40 && !memcmp(t, "ProductOfElementaryHouseholderReflectors",
	    40))
		return QR_HOUSEHOLDER;
	return -1;
}

/* the operand and result shapes fit what the expansion builds */
static int
shapes_fit(HloModule *m, int kind, const HloShape *a, const HloShape *t,
	const HloShape *r)
{
	const int64_t *ad = hlo_dims(m, a), *td;
	const HloShape *r0, *r1;
	int64_t am, an, p;
	int k;

	am = ad[a->rank - 2];
	an = ad[a->rank - 1];
	if (kind == QR_QR) {
		if (r->type != TY_TUPLE || r->ntuple != 2)
			return 0;
		r0 = hlo_sh(m, hlo_tuple_elems(m, r)[0]);
		r1 = hlo_sh(m, hlo_tuple_elems(m, r)[1]);
		t = r1;
		p = am < an ? am : an;
	} else {
		r0 = r;
		p = -1;
		if (am < an || t->type != a->type || t->rank != a->rank - 1 ||
		    t->dynmask || hlo_dims(m, t)[t->rank - 1] > an)
			return 0;
	}
	if (r0->type != a->type || r0->rank != a->rank || r0->dynmask ||
	    memcmp(hlo_dims(m, r0), ad, a->rank * sizeof *ad) ||
	    t->type != a->type || t->rank != a->rank - 1)
		return 0;
	td = hlo_dims(m, t);
	for (k = 0; k < a->rank - 2; k++)
		if (td[k] != ad[k])
			return 0;
	return p < 0 || td[a->rank - 2] == p;
}

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);
	const HloShape *a, *t = NULL;
	int kind = target(ed, in);

	(void)arg;
	if (kind < 0 || in->nops != (kind == QR_QR ? 1u : 2u) ||
	    !(a = pass_la_operand(ed, i, 0)))
		return 0;
	if (kind == QR_HOUSEHOLDER) {
		t = hlo_sh(m, pass_b_shape(ed, pass_opnd(ed, i, 1)));
		if (t->type >= TY_TUPLE)
			return 0;
	}
	return shapes_fit(m, kind, a, t, hlo_sh(m, in->shape));
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);
	int kind = target(ed, in);
	uint32_t o[2], k[3], *slot, shape = in->shape, st = 0;
	int fresh;

	o[0] = pass_opnd(ed, i, 0);
	if (kind == QR_HOUSEHOLDER) {
		o[1] = pass_opnd(ed, i, 1);
		st = pass_b_shape(ed, o[1]);
	}
	k[0] = hlo_shape_no_layout(m, pass_b_shape(ed, o[0])) + 1;
	k[1] = (uint32_t)kind;
	k[2] = kind == QR_HOUSEHOLDER ? hlo_shape_no_layout(m, st) + 1 : 0;
	slot = pass_cache_slot(arg, k, &fresh);
	if (fresh)
		*slot = build(m, kind, pass_b_shape(ed, o[0]), st);
	return pass_b_call(ed, *slot, shape, kind == QR_QR ? 1 : 2, o);
}

int
pass_qr_expander(HloModule *m, PassCtx *ctx)
{
	return pass_expand_cached(m, ctx, match, expand, 3);
}
