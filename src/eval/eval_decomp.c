/* eval_decomp.c: the decomposition custom-calls xla's expanders rewrite,
 * computed directly (in complex double, batched over leading dims) so
 * that `verify` can compare a module holding them with its expansion:
 *
 * - "Qr"(a [..., m, n]) -> (a', taus [..., min(m, n)]): Householder QR as
 *   xla's QrExpander defines it (LAPACK geqrf's layout): for each column
 *   j < min(m, n), alpha = a[j, j], sigma = |a[j+1:, j]|^2,
 *   mu = sqrt(|alpha|^2 + sigma), beta = -sign(re alpha) mu (alpha's real
 *   part when sigma = 0 and alpha is real: then tau = 0), tau = (beta -
 *   re alpha) / beta - i im alpha / beta, v = (1, a[j+1:, j] / (alpha -
 *   beta)); the columns after j become (I - conj(tau) v v^H) of them,
 *   a[j, j] = beta, a[j+1:, j] = v[1:], taus[j] = tau;
 * - "ProductOfElementaryHouseholderReflectors"(a [..., m, n], taus
 *   [..., p]) -> q [..., m, n] = H_0 ... H_{p-1} applied to the m x n
 *   identity, H_j = I - taus[j] v_j v_j^H, v_j as above from a's column j
 *   (LAPACK orgqr).
 * Real types compute the same with zero imaginary parts. */
#include <complex.h>
#include <math.h>
#include <string.h>

#include "hlo.h"
#include "eval.h"

enum { DC_QR, DC_HOUSEHOLDER };

static const char *const targets[] = {
	[DC_QR] = "Qr",
	[DC_HOUSEHOLDER] = "ProductOfElementaryHouseholderReflectors",
};

int
ev_decomp_target(const HloModule *m, const HloInstr *in)
{
	uint32_t n, k;
	const char *t = hlo_attr_word(m, in, A_CUSTOM_CALL_TARGET, &n);

	for (k = 0; t && k < sizeof targets / sizeof targets[0]; k++)
		if (strlen(targets[k]) == n && !memcmp(t, targets[k], n))
			return (int)k;
	return -1;
}

static int
fp(int type)
{
	int c = hlo_typeinfo[type].cls;

	return type < TY_TUPLE && (c == C_FLOAT || c == C_CPLX);
}

/* v's elements in complex double (scratch, 16 bytes each) */
static double complex *
load(HloEval *ev, const HloVal *v)
{
	double complex *p = ev_scratch(ev, (uint64_t)v->n * 16 + 16);

	if (p)
		ev_tock(CK_C128, v->type, v->data, v->n, p);
	return p;
}

/* one m x n matrix a (row-major) factored in place, taus[p] */
static void
qr1(double complex *a, int64_t m, int64_t n, double complex *taus)
{
	int64_t p = m < n ? m : n, i, j, c;
	double complex alpha, tau, div, w;
	double sigma, mu, beta, re, im;

	for (j = 0; j < p; j++) {
		alpha = a[j * n + j];
		re = creal(alpha);
		im = cimag(alpha);
		sigma = 0;
		for (i = j + 1; i < m; i++)
			sigma += creal(a[i * n + j] * conj(a[i * n + j]));
		mu = sqrt(re * re + im * im + sigma);
		if (sigma == 0 && im == 0) {
			beta = re;
			tau = 0;
			div = 1;
		} else {
			beta = (re < 0 ? 1 : -1) * mu;
			tau = (beta - re) / beta - I * (im / beta);
			div = alpha - beta;
		}
		for (i = j + 1; i < m; i++)
			a[i * n + j] /= div;
		for (c = j + 1; c < n; c++) {	/* v = (1, a[j+1:, j]) */
			w = a[j * n + c];
			for (i = j + 1; i < m; i++)
				w += conj(a[i * n + j]) * a[i * n + c];
			w *= conj(tau);
			a[j * n + c] -= w;
			for (i = j + 1; i < m; i++)
				a[i * n + c] -= a[i * n + j] * w;
		}
		a[j * n + j] = beta;
		taus[j] = tau;
	}
}

/* q (m x n) = H_0 ... H_{p-1} I from the reflectors below a's diagonal */
static void
householder1(const double complex *a, int64_t m, int64_t n,
	const double complex *taus, int64_t p, double complex *q)
{
	int64_t i, j, c;
	double complex w;

	for (i = 0; i < m; i++)
		for (c = 0; c < n; c++)
			q[i * n + c] = i == c;
	for (j = p - 1; j >= 0; j--)
		for (c = 0; c < n; c++) {
			w = q[j * n + c];
			for (i = j + 1; i < m; i++)
				w += conj(a[i * n + j]) * q[i * n + c];
			w *= taus[j];
			q[j * n + c] -= w;
			for (i = j + 1; i < m; i++)
				q[i * n + c] -= a[i * n + j] * w;
		}
}

/* the result leaves: one array or a tuple of n */
static int
results(HloEval *ev, const HloInstr *in, uint32_t n, HloVal **vs,
	HloVal **out)
{
	const HloShape *sh = hlo_sh(ev->m, in->shape);
	uint32_t k, es;

	*out = NULL;
	if (n == 1 && sh->type < TY_TUPLE) {
		*out = vs[0] = hlo_val_array(ev, in->shape);
		return vs[0] ? 0 : -1;
	}
	if (sh->type != TY_TUPLE || sh->ntuple != n)
		return 1;
	*out = hlo_val_tuple(ev, in->shape);
	for (k = 0; k < n; k++) {
		es = hlo_tuple_elems(ev->m, sh)[k];
		if (hlo_sh(ev->m, es)->type >= TY_TUPLE)
			return 1;
		vs[k] = (*out)->elems[k] = hlo_val_array(ev, es);
		if (!vs[k])
			return -1;
	}
	return 0;
}

int
ev_decomp_call(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops,
	HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	int kind = ev_decomp_target(ev->m, in), r, rt, rc;
	const int64_t *d, *td;
	int64_t m, n, p, nb, b;
	double complex *a, *t = NULL, *q = NULL;
	HloVal *vs[2];

	if (in->nops != (kind == DC_QR ? 1u : 2u) || !fp(ops[0]->type))
		return ev_unsupported(ev, c, i, "bad operands");
	d = ev_dims(ev, ops[0]->shape, &r);
	if (r < 2)
		return ev_unsupported(ev, c, i, "operand rank below 2");
	m = d[r - 2];
	n = d[r - 1];
	p = m < n ? m : n;
	if (kind == DC_HOUSEHOLDER) {
		if (!fp(ops[1]->type))
			return ev_unsupported(ev, c, i, "bad operands");
		td = ev_dims(ev, ops[1]->shape, &rt);
		p = rt == r - 1 ? td[rt - 1] : -1;
		if (p < 0 || p > n || m < n)
			return ev_unsupported(ev, c, i, "bad operand dims");
	}
	nb = m > 0 && n > 0 ? ops[0]->n / (m * n) : 0;
	rc = results(ev, in, kind == DC_QR ? 2 : 1, vs, out);
	if (rc == 0 && (vs[0]->n != ops[0]->n || (kind == DC_QR ?
	    vs[1]->n != nb * p : ops[1]->n != nb * p)))
		rc = 1;
	if (rc) {
		hlo_val_unref(ev, *out);
		*out = NULL;
		return rc < 0 ? -1 : ev_unsupported(ev, c, i,
			"result shape differs");
	}
	a = load(ev, ops[0]);
	if (a && kind == DC_QR)
		t = ev_scratch(ev, (uint64_t)nb * p * 16 + 16);
	else if (a)
		t = load(ev, ops[1]);
	if (a && t && kind == DC_HOUSEHOLDER)
		q = ev_scratch(ev, (uint64_t)ops[0]->n * 16 + 16);
	if (!a || !t || (kind == DC_HOUSEHOLDER && !q)) {
		if (t)
			ev_scratch_free(ev, t, (uint64_t)nb * p * 16 + 16);
		if (a)
			ev_scratch_free(ev, a, (uint64_t)ops[0]->n * 16 + 16);
		hlo_val_unref(ev, *out);
		*out = NULL;
		return -1;
	}
	for (b = 0; b < nb; b++)
		if (kind == DC_QR)
			qr1(a + b * m * n, m, n, t + b * p);
		else
			householder1(a + b * m * n, m, n, t + b * p, p,
				q + b * m * n);
	if (kind == DC_QR) {
		ev_fromck(CK_C128, vs[0]->type, a, vs[0]->n, vs[0]->data);
		ev_fromck(CK_C128, vs[1]->type, t, vs[1]->n, vs[1]->data);
	} else {
		ev_fromck(CK_C128, vs[0]->type, q, vs[0]->n, vs[0]->data);
		ev_scratch_free(ev, q, (uint64_t)ops[0]->n * 16 + 16);
	}
	ev_scratch_free(ev, t, (uint64_t)nb * p * 16 + 16);
	ev_scratch_free(ev, a, (uint64_t)ops[0]->n * 16 + 16);
	return 0;
}
