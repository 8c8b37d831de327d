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
 *   (LAPACK orgqr);
 * - "Eigh"(a [..., n, n]), backend_config "lower,sort,max_iter,tol" ->
 *   (v, w): xla's EighExpander's Jacobi iteration replayed (below), so
 *   that the eigenvectors' signs and, unsorted, the eigenvalues' order
 *   are the expansion's.
 * Real types compute the same with zero imaginary parts. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "eval.h"

enum { DC_QR, DC_HOUSEHOLDER, DC_EIGH };

static const char *const targets[] = {
	[DC_QR] = "Qr",
	[DC_HOUSEHOLDER] = "ProductOfElementaryHouseholderReflectors",
	[DC_EIGH] = "Eigh",
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

/* Eigh: xla's EighExpander's parallel Jacobi method step for step, in
 * double: the Hermitian matrix of a's lower (upper) triangle, padded to
 * 2k x 2k (k = ceil(n / 2)), quadrant pairs (i, k + i) rotated together,
 * rows and columns permuted in the tournament order after every round;
 * the batch's matrices sweep in lockstep (as the expansion's one loop
 * does) while some matrix's off-diagonal squared norm exceeds tol^2 times
 * its squared Frobenius norm, at most max_iter sweeps */

int
ev_eigh_cfg(const HloModule *m, const HloInstr *in, EvEighCfg *cfg)
{
	uint32_t n;
	const char *t = hlo_attr_word(m, in, A_BACKEND_CONFIG, &n);
	char buf[128], *p, *end;
	long v[3];
	int k;

	if (!t || n >= sizeof buf)
		return 0;
	memcpy(buf, t, n);
	buf[n] = 0;
	p = buf;
	for (k = 0; k < 3; k++) {
		v[k] = strtol(p, &end, 10);
		if (end == p || *end != ',')
			return 0;
		p = end + 1;
	}
	cfg->tol = strtof(p, &end);
	if (end == p || *end)
		return 0;
	cfg->lower = (int)v[0];
	cfg->sort = (int)v[1];
	cfg->max_iter = v[2];
	return 1;
}

/* one round on w and v (2k x 2k each, row-major) */
static void
jacobi_round(double complex *w, double complex *v, int64_t k, int cplx,
	double complex *tmp, int64_t *perm)
{
	int64_t n = 2 * k, i, j, r, c;
	double complex cc, s, x, y, ph;
	double tl, br, atr, tau, t;

	for (i = 0; i < k; i++) {
		tl = creal(w[i * n + i]);
		br = creal(w[(k + i) * n + k + i]);
		x = w[i * n + k + i];
		atr = cplx ? cabs(x) : creal(x);	/* real: signed */
		ph = !cplx || atr == 0 ? 1 : conj(x) / atr;
		tau = (br - tl) / (2 * atr);
		t = sqrt(1 + tau * tau);
		t = 1 / (tau + (tau >= 0 ? t : -t));
		if (fabs(atr) <= (double)(0.1f * FLT_EPSILON) *
		    fmin(fabs(tl), fabs(br)))
			t = 0;
		cc = 1 / sqrt(1 + t * t);
		s = t * creal(cc) * ph;
		for (j = 0; j < n; j++) {	/* rows i, k + i */
			x = w[i * n + j];
			y = w[(k + i) * n + j];
			w[i * n + j] = x * cc - y * conj(s);
			w[(k + i) * n + j] = x * s + y * cc;
			x = v[i * n + j];
			y = v[(k + i) * n + j];
			v[i * n + j] = x * cc - y * conj(s);
			v[(k + i) * n + j] = x * s + y * cc;
		}
		for (r = 0; r < n; r++) {	/* columns i, k + i */
			x = w[r * n + i];
			y = w[r * n + k + i];
			w[r * n + i] = x * cc - y * s;
			w[r * n + k + i] = x * conj(s) + y * cc;
		}
		w[i * n + i] = tl - t * atr;
		w[(k + i) * n + k + i] = br + t * atr;
		w[i * n + k + i] = w[(k + i) * n + i] = 0;
	}
	if (k <= 1)
		return;
	for (j = 0; j < k; j++) {	/* the tournament: new j <- old */
		perm[j] = j == 0 ? 0 : j == 1 ? k : j - 1;
		perm[k + j] = j == k - 1 ? k - 1 : k + j + 1;
	}
	for (r = 0; r < n; r++)
		for (c = 0; c < n; c++)
			tmp[r * n + c] = w[perm[r] * n + perm[c]];
	memcpy(w, tmp, n * n * sizeof *w);
	for (r = 0; r < n; r++)
		memcpy(tmp + r * n, v + perm[r] * n, n * sizeof *v);
	memcpy(v, tmp, n * n * sizeof *v);
}

/* 1: some matrix of the batch has not converged */
static int
eigh_more(const double complex *w, int64_t nb, int64_t k, double tol)
{
	int64_t n = 2 * k, b, r, c;
	double f, o, e;

	for (b = 0; b < nb; b++) {
		f = o = 0;
		for (r = 0; r < n; r++)
			for (c = 0; c < n; c++) {
				e = creal(w[b * n * n + r * n + c] *
					conj(w[b * n * n + r * n + c]));
				f += e;
				if (r != c)
					o += e;
			}
		if (f * tol * tol < o)
			return 1;
	}
	return 0;
}

/* the Hermitian matrix of x's lower (upper) triangle, real diagonal,
 * into w padded to 2k */
static void
eigh_init(const double complex *x, int64_t n, int64_t k, int lower,
	double complex *w, double complex *v)
{
	int64_t m = 2 * k, r, c;

	memset(w, 0, m * m * sizeof *w);
	memset(v, 0, m * m * sizeof *v);
	for (r = 0; r < m; r++)
		v[r * m + r] = 1;
	for (r = 0; r < n; r++)
		for (c = 0; c < n; c++)
			w[r * m + c] = r == c ? creal(x[r * n + c]) :
				(lower ? r > c : r < c) ? x[r * n + c] :
				conj(x[c * n + r]);
}

/* (v, w) of one matrix from the final w, v */
static void
eigh_out(const double complex *w, const double complex *v, int64_t n,
	int64_t k, int sort, double complex *ov, double complex *ow,
	int64_t *idx)
{
	int64_t m = 2 * k, r, c, j, t;

	for (j = 0; j < n; j++)
		idx[j] = j;
	for (j = 1; sort && j < n; j++)	/* insertion sort, stable */
		for (t = j; t > 0 && creal(w[idx[t] * m + idx[t]]) <
		    creal(w[idx[t - 1] * m + idx[t - 1]]); t--) {
			int64_t s = idx[t];

			idx[t] = idx[t - 1];
			idx[t - 1] = s;
		}
	for (c = 0; c < n; c++) {
		ow[c] = creal(w[idx[c] * m + idx[c]]);
		for (r = 0; r < n; r++)	/* v = conj(V^T), columns sorted */
			ov[r * n + c] = conj(v[idx[c] * m + r]);
	}
}

static int
eigh_call(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	int cplx = hlo_typeinfo[ops[0]->type].cls == C_CPLX, r, rc;
	const int64_t *d = ev_dims(ev, ops[0]->shape, &r);
	int64_t n, k, m, nb, b, j, it, *perm, *idx;
	double complex *x, *w, *v, *tmp, *ov, *ow;
	uint64_t bytes;
	EvEighCfg cfg;
	HloVal *vs[2];

	if (!ev_eigh_cfg(ev->m, in, &cfg))
		return ev_unsupported(ev, c, i, "bad Eigh backend_config");
	if (in->nops != 1 || r < 2 || d[r - 1] != d[r - 2])
		return ev_unsupported(ev, c, i, "bad operands");
	n = d[r - 1];
	for (nb = 1, j = 0; j < r - 2; j++)
		nb *= d[j];
	rc = results(ev, in, 2, vs, out);
	if (rc == 0 && (vs[0]->n != ops[0]->n || vs[1]->n != nb * n ||
	    hlo_typeinfo[vs[1]->type].cls == C_CPLX))
		rc = 1;
	if (rc) {
		hlo_val_unref(ev, *out);
		*out = NULL;
		return rc < 0 ? -1 : ev_unsupported(ev, c, i,
			"result shape differs");
	}
	k = (n + 1) / 2;
	m = 2 * k;
	bytes = (uint64_t)16 * (ops[0]->n + 2 * nb * m * m + m * m + nb * n *
		n + nb * n) + 16 * (uint64_t)(m + n) + 64;
	x = ev_scratch(ev, bytes);
	if (!x) {
		hlo_val_unref(ev, *out);
		*out = NULL;
		return -1;
	}
	w = x + ops[0]->n;
	v = w + nb * m * m;
	tmp = v + nb * m * m;
	ov = tmp + m * m;
	ow = ov + nb * n * n;
	perm = (int64_t *)(ow + nb * n);
	idx = perm + m;
	ev_tock(CK_C128, ops[0]->type, ops[0]->data, ops[0]->n, x);
	if (n <= 1) {
		for (j = 0; j < nb * n; j++) {
			ov[j] = 1;
			ow[j] = creal(x[j]);
		}
	} else {
		for (b = 0; b < nb; b++)
			eigh_init(x + b * n * n, n, k, cfg.lower, w + b * m * m,
				v + b * m * m);
		for (it = 0; it < cfg.max_iter && eigh_more(w, nb, k,
		    cfg.tol); it++)
			for (j = 0; j < m - 1; j++)
				for (b = 0; b < nb; b++)
					jacobi_round(w + b * m * m, v + b * m *
						m, k, cplx, tmp, perm);
		for (b = 0; b < nb; b++)
			eigh_out(w + b * m * m, v + b * m * m, n, k, cfg.sort,
				ov + b * n * n, ow + b * n, idx);
	}
	ev_fromck(CK_C128, vs[0]->type, ov, vs[0]->n, vs[0]->data);
	ev_fromck(CK_C128, vs[1]->type, ow, vs[1]->n, vs[1]->data);
	ev_scratch_free(ev, x, bytes);
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

	if (kind == DC_EIGH && fp(ops[0]->type))
		return eigh_call(ev, c, i, ops, out);
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
