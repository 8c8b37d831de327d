/* nn.c: the agents' dense networks on GSL (see nn.h): multilayer
 * perceptrons with batched forward and backward passes through gsl_blas,
 * masked softmax and the categorical distribution's gradients, orthogonal
 * initialization through GSL's QR decomposition, Adam and RMSprop with
 * PyTorch's update rules, gradient-norm clipping, the Huber loss */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_randist.h>

#include "nn.h"

int
rl_err(RlError *e, const char *fmt, ...)
{
	va_list ap;

	if (e) {
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof e->msg, fmt, ap);
		va_end(ap);
	}
	return -1;
}

int
rl_gsl(int status, const char *what, RlError *e)
{
	if (status == GSL_SUCCESS)
		return 0;
	return rl_err(e, "error: %s: GSL: %s", what, gsl_strerror(status));
}

void
rl_gsl_quiet(void)
{
	gsl_set_error_handler_off();
}

void *
rl_alloc(size_t n, size_t size, RlError *e)
{
	void *p;

	if (size && n > SIZE_MAX / size) {
		rl_err(e, "error: out of memory (%zu x %zu bytes)", n, size);
		return NULL;
	}
	p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		rl_err(e, "error: out of memory (%zu bytes)", n * size);
	return p;
}

size_t
rl_mlp_count(int nlayers, const int *sizes)
{
	size_t n = 0;
	int i;

	for (i = 0; i < nlayers; i++)
		n += (size_t)sizes[i + 1] * sizes[i] + sizes[i + 1];
	return n;
}

int
rl_mlp_init(RlMlp *m, int nlayers, const int *sizes, int act,
	size_t maxbatch, double *theta, double *grad, RlError *e)
{
	size_t off = 0, in, out;
	int i;

	memset(m, 0, sizeof *m);
	if (nlayers < 1 || nlayers > RL_MAXLAYERS)
		return rl_err(e, "error: a network has 1 to %d layers, not %d",
			RL_MAXLAYERS, nlayers);
	for (i = 0; i <= nlayers; i++)
		if (sizes[i] < 1)
			return rl_err(e, "error: layer %d has %d units", i,
				sizes[i]);
	m->nlayers = nlayers;
	memcpy(m->sizes, sizes, (nlayers + 1) * sizeof *sizes);
	m->act = act;
	m->nparams = rl_mlp_count(nlayers, sizes);
	m->maxbatch = maxbatch ? maxbatch : 1;
	m->theta = theta;
	m->grad = grad;
	for (i = 0; i < nlayers; i++) {
		in = sizes[i];
		out = sizes[i + 1];
		m->W[i] = gsl_matrix_view_array(theta + off, out, in);
		m->dW[i] = gsl_matrix_view_array(grad + off, out, in);
		off += out * in;
		m->b[i] = gsl_vector_view_array(theta + off, out);
		m->db[i] = gsl_vector_view_array(grad + off, out);
		off += out;
	}
	for (i = 0; i <= nlayers; i++) {
		m->h[i] = gsl_matrix_calloc(m->maxbatch, sizes[i]);
		m->d[i] = gsl_matrix_calloc(m->maxbatch, sizes[i]);
		if (!m->h[i] || !m->d[i]) {
			rl_mlp_free(m);
			return rl_err(e, "error: out of memory (network cache "
				"of %zu x %d)", maxbatch, sizes[i]);
		}
	}
	return 0;
}

void
rl_mlp_free(RlMlp *m)
{
	int i;

	for (i = 0; i <= RL_MAXLAYERS; i++) {
		if (m->h[i])
			gsl_matrix_free(m->h[i]);
		if (m->d[i])
			gsl_matrix_free(m->d[i]);
		m->h[i] = m->d[i] = NULL;
	}
}

/* W (rows x cols) = gain * an orthogonal matrix, as PyTorch's
 * orthogonal_: QR of a Gaussian matrix with at least as many rows as
 * columns, Q's columns signed by R's diagonal, transposed back when W is
 * wide */
static int
orthogonal(gsl_matrix *W, double gain, gsl_rng *r, RlError *e)
{
	size_t rows = W->size1, cols = W->size2, i, j;
	int wide = rows < cols;
	size_t M = wide ? cols : rows, N = wide ? rows : cols;
	gsl_matrix *A = gsl_matrix_alloc(M, N);
	gsl_matrix *Q = gsl_matrix_alloc(M, M);
	gsl_matrix *R = gsl_matrix_alloc(M, N);
	gsl_vector *tau = gsl_vector_alloc(N);
	double s, q;
	int rc = -1;

	if (!A || !Q || !R || !tau) {
		rl_err(e, "error: out of memory (orthogonal init %zu x %zu)",
			M, N);
		goto out;
	}
	for (i = 0; i < M; i++)
		for (j = 0; j < N; j++)
			gsl_matrix_set(A, i, j, gsl_ran_gaussian(r, 1.0));
	if (rl_gsl(gsl_linalg_QR_decomp(A, tau), "QR decomposition", e) ||
	    rl_gsl(gsl_linalg_QR_unpack(A, tau, Q, R), "QR unpack", e))
		goto out;
	for (j = 0; j < N; j++) {
		s = gsl_matrix_get(R, j, j) < 0 ? -gain : gain;
		for (i = 0; i < M; i++) {
			q = s * gsl_matrix_get(Q, i, j);
			if (wide)
				gsl_matrix_set(W, j, i, q);
			else
				gsl_matrix_set(W, i, j, q);
		}
	}
	rc = 0;
out:
	if (A)
		gsl_matrix_free(A);
	if (Q)
		gsl_matrix_free(Q);
	if (R)
		gsl_matrix_free(R);
	if (tau)
		gsl_vector_free(tau);
	return rc;
}

int
rl_mlp_orthogonal(RlMlp *m, double hidden_gain, double out_gain,
	gsl_rng *r, RlError *e)
{
	int i;

	for (i = 0; i < m->nlayers; i++) {
		if (orthogonal(&m->W[i].matrix, i + 1 < m->nlayers ?
		    hidden_gain : out_gain, r, e) < 0)
			return -1;
		gsl_vector_set_zero(&m->b[i].vector);
	}
	return 0;
}

/* the first n rows of a cache */
static gsl_matrix_view
rows(gsl_matrix *c, size_t n)
{
	return gsl_matrix_submatrix(c, 0, 0, n, c->size2);
}

int
rl_mlp_forward(RlMlp *m, const gsl_matrix *x, gsl_matrix_view *out,
	RlError *e)
{
	size_t n = x->size1, r, c;
	gsl_matrix_view hin, hout;
	double *row, *b;
	int i;

	if (n < 1 || n > m->maxbatch || x->size2 != (size_t)m->sizes[0])
		return rl_err(e, "error: network input %zu x %zu, expected "
			"at most %zu x %d", n, x->size2, m->maxbatch,
			m->sizes[0]);
	m->n = n;
	hin = rows(m->h[0], n);
	if (rl_gsl(gsl_matrix_memcpy(&hin.matrix, x), "network input", e))
		return -1;
	for (i = 0; i < m->nlayers; i++) {
		hin = rows(m->h[i], n);
		hout = rows(m->h[i + 1], n);
		if (rl_gsl(gsl_blas_dgemm(CblasNoTrans, CblasTrans, 1.0,
		    &hin.matrix, &m->W[i].matrix, 0.0, &hout.matrix),
		    "forward product", e))
			return -1;
		b = m->b[i].vector.data;
		for (r = 0; r < n; r++) {
			row = gsl_matrix_ptr(&hout.matrix, r, 0);
			for (c = 0; c < hout.matrix.size2; c++) {
				row[c] += b[c];
				if (i + 1 == m->nlayers)
					continue;
				if (m->act == RL_TANH)
					row[c] = tanh(row[c]);
				else if (row[c] < 0)
					row[c] = 0;
			}
		}
	}
	*out = rows(m->h[m->nlayers], n);
	return 0;
}

/* d *= the derivative of the activation whose output is h */
static void
act_grad(const RlMlp *m, gsl_matrix *d, const gsl_matrix *h)
{
	size_t r, c;
	double *dr;
	const double *hr;

	for (r = 0; r < d->size1; r++) {
		dr = gsl_matrix_ptr(d, r, 0);
		hr = gsl_matrix_const_ptr(h, r, 0);
		for (c = 0; c < d->size2; c++) {
			if (m->act == RL_TANH)
				dr[c] *= 1 - hr[c] * hr[c];
			else if (hr[c] <= 0)
				dr[c] = 0;
		}
	}
}

int
rl_mlp_backward(RlMlp *m, const gsl_matrix *dout, gsl_matrix *dx,
	RlError *e)
{
	size_t n = m->n, r, c;
	gsl_matrix_view g, hin, din;
	double *db;
	const double *gr;
	int i;

	if (dout->size1 != n || dout->size2 != (size_t)m->sizes[m->nlayers])
		return rl_err(e, "error: network gradient %zu x %zu, expected "
			"%zu x %d", dout->size1, dout->size2, n,
			m->sizes[m->nlayers]);
	g = rows(m->d[m->nlayers], n);
	if (rl_gsl(gsl_matrix_memcpy(&g.matrix, dout), "network gradient", e))
		return -1;
	for (i = m->nlayers - 1; i >= 0; i--) {
		g = rows(m->d[i + 1], n);
		hin = rows(m->h[i], n);
		if (rl_gsl(gsl_blas_dgemm(CblasTrans, CblasNoTrans, 1.0,
		    &g.matrix, &hin.matrix, 1.0, &m->dW[i].matrix),
		    "weight gradient", e))
			return -1;
		db = m->db[i].vector.data;
		for (r = 0; r < n; r++) {
			gr = gsl_matrix_const_ptr(&g.matrix, r, 0);
			for (c = 0; c < g.matrix.size2; c++)
				db[c] += gr[c];
		}
		if (i == 0 && !dx)
			break;
		din = rows(m->d[i], n);
		if (rl_gsl(gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0,
		    &g.matrix, &m->W[i].matrix, 0.0, &din.matrix),
		    "input gradient", e))
			return -1;
		if (i > 0)
			act_grad(m, &din.matrix, &hin.matrix);
	}
	if (dx) {
		din = rows(m->d[0], n);
		if (dx->size1 != n || dx->size2 != (size_t)m->sizes[0])
			return rl_err(e, "error: input gradient %zu x %zu, "
				"expected %zu x %d", dx->size1, dx->size2, n,
				m->sizes[0]);
		if (rl_gsl(gsl_matrix_memcpy(dx, &din.matrix),
		    "input gradient", e))
			return -1;
	}
	return 0;
}

int
rl_log_softmax(const double *z, const unsigned char *mask, int A,
	double *logp)
{
	double mx = -INFINITY, s = 0;
	int j;

	for (j = 0; j < A; j++)
		if ((!mask || mask[j]) && z[j] > mx)
			mx = z[j];
	if (mx == -INFINITY)
		return -1;
	for (j = 0; j < A; j++)
		if (!mask || mask[j])
			s += exp(z[j] - mx);
	s = mx + log(s);
	for (j = 0; j < A; j++)
		logp[j] = !mask || mask[j] ? z[j] - s : -INFINITY;
	return 0;
}

double
rl_entropy(const double *logp, int A)
{
	double h = 0;
	int j;

	for (j = 0; j < A; j++)
		if (logp[j] > -INFINITY)
			h -= exp(logp[j]) * logp[j];
	return h;
}

/* inverse-CDF sampling with one uniform draw */
int
rl_sample(const double *logp, int A, gsl_rng *r)
{
	double u = gsl_rng_uniform(r), c = 0;
	int j, last = -1;

	for (j = 0; j < A; j++) {
		if (logp[j] == -INFINITY)
			continue;
		last = j;
		c += exp(logp[j]);
		if (u < c)
			return j;
	}
	return last;
}

int
rl_argmax(const double *z, const unsigned char *mask, int A)
{
	int j, best = -1;

	for (j = 0; j < A; j++)
		if ((!mask || mask[j]) && (best < 0 || z[j] > z[best]))
			best = j;
	return best;
}

/* d log p_a / dz_j = [j = a] - p_j;  d H / dz_j = -p_j (log p_j + H) */
void
rl_categorical_grad(const double *logp, int A, int a, double ga,
	double gh, double *dz)
{
	double H = gh ? rl_entropy(logp, A) : 0, p;
	int j;

	for (j = 0; j < A; j++) {
		if (logp[j] == -INFINITY) {
			dz[j] = 0;
			continue;
		}
		p = exp(logp[j]);
		dz[j] = ga * ((j == a) - p);
		if (gh)
			dz[j] -= gh * p * (logp[j] + H);
	}
}

double
rl_huber(double x)
{
	double a = fabs(x);

	return a < 1 ? 0.5 * x * x : a - 0.5;
}

double
rl_huber_grad(double x)
{
	return x > 1 ? 1 : x < -1 ? -1 : x;
}

int
rl_opt_init(RlOpt *o, int kind, size_t n, double lr, double eps,
	double alpha, RlError *e)
{
	memset(o, 0, sizeof *o);
	o->kind = kind;
	o->n = n;
	o->lr = lr;
	o->eps = eps;
	o->alpha = alpha;
	o->beta1 = 0.9;
	o->beta2 = 0.999;
	o->v = rl_alloc(n, sizeof *o->v, e);
	if (!o->v)
		return -1;
	if (kind == RL_ADAM && !(o->m = rl_alloc(n, sizeof *o->m, e))) {
		rl_opt_free(o);
		return -1;
	}
	return 0;
}

void
rl_opt_free(RlOpt *o)
{
	free(o->m);
	free(o->v);
	o->m = o->v = NULL;
}

/* Adam: m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g^2,
 * theta -= lr (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps);
 * RMSprop: v = a v + (1 - a) g^2, theta -= lr g / (sqrt(v) + eps) */
void
rl_opt_step(RlOpt *o, double *theta, const double *grad)
{
	double c1, c2, g;
	size_t i;

	o->t++;
	if (o->kind == RL_RMSPROP) {
		for (i = 0; i < o->n; i++) {
			g = grad[i];
			o->v[i] = o->alpha * o->v[i] + (1 - o->alpha) * g * g;
			theta[i] -= o->lr * g / (sqrt(o->v[i]) + o->eps);
		}
		return;
	}
	c1 = 1 - pow(o->beta1, (double)o->t);
	c2 = 1 - pow(o->beta2, (double)o->t);
	for (i = 0; i < o->n; i++) {
		g = grad[i];
		o->m[i] = o->beta1 * o->m[i] + (1 - o->beta1) * g;
		o->v[i] = o->beta2 * o->v[i] + (1 - o->beta2) * g * g;
		theta[i] -= o->lr * (o->m[i] / c1) /
			(sqrt(o->v[i] / c2) + o->eps);
	}
}

/* as torch.nn.utils.clip_grad_norm_: scale by max / (norm + 1e-6) */
double
rl_clip_grad_norm(double *grad, size_t n, double max_norm)
{
	gsl_vector_view g;
	double norm;

	if (!n)
		return 0;
	g = gsl_vector_view_array(grad, n);
	norm = gsl_blas_dnrm2(&g.vector);
	if (max_norm > 0 && norm > max_norm)
		gsl_blas_dscal(max_norm / (norm + 1e-6), &g.vector);
	return norm;
}
