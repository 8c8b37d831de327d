/* check_rl.c: the agents' layer (src/rl/) without the IR: finite-
 * difference gradient checks of the networks and losses, the optimizers'
 * update rules, orthogonal initialization */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "nn.h"

static gsl_rng *
rng(unsigned long seed)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

	ck_assert_ptr_nonnull(r);
	gsl_rng_set(r, seed);
	return r;
}

/* |a - b| small against their size */
static int
close_to(double a, double b, double tol)
{
	double s = fabs(a) > fabs(b) ? fabs(a) : fabs(b);

	return fabs(a - b) <= tol * (s > 1 ? s : 1);
}

/* sum of c .* mlp(x) */
static double
mlp_loss(RlMlp *m, const gsl_matrix *x, const gsl_matrix *c)
{
	gsl_matrix_view out;
	RlError e;
	double s = 0;
	size_t i, j;

	ck_assert_msg(rl_mlp_forward(m, x, &out, &e) == 0, "%s", e.msg);
	for (i = 0; i < c->size1; i++)
		for (j = 0; j < c->size2; j++)
			s += gsl_matrix_get(c, i, j) *
				gsl_matrix_get(&out.matrix, i, j);
	return s;
}

static void
mlp_gradcheck(int act)
{
	int sizes[] = {5, 7, 6, 3};
	size_t np = rl_mlp_count(3, sizes), i, j, n = 4;
	double *theta = calloc(np, sizeof *theta);
	double *grad = calloc(np, sizeof *grad);
	gsl_matrix *x = gsl_matrix_alloc(n, 5), *c = gsl_matrix_alloc(n, 3);
	gsl_matrix *dx = gsl_matrix_alloc(n, 5);
	gsl_rng *r = rng(7);
	double h = 1e-6, save, lp, lm, fd;
	RlMlp m;
	RlError e;

	ck_assert_msg(rl_mlp_init(&m, 3, sizes, act, 8, theta, grad, &e) == 0,
		"%s", e.msg);
	ck_assert_int_eq(np, 5 * 7 + 7 + 7 * 6 + 6 + 6 * 3 + 3);
	ck_assert_msg(rl_mlp_orthogonal(&m, sqrt(2), 1, r, &e) == 0, "%s",
		e.msg);
	for (i = 0; i < np; i++)	/* nonzero biases too */
		theta[i] += gsl_ran_gaussian(r, 0.3);
	for (i = 0; i < n; i++) {
		for (j = 0; j < 5; j++)
			gsl_matrix_set(x, i, j, gsl_ran_gaussian(r, 1));
		for (j = 0; j < 3; j++)
			gsl_matrix_set(c, i, j, gsl_ran_gaussian(r, 1));
	}
	mlp_loss(&m, x, c);
	ck_assert_msg(rl_mlp_backward(&m, c, dx, &e) == 0, "%s", e.msg);
	for (i = 0; i < np; i++) {
		save = theta[i];
		theta[i] = save + h;
		lp = mlp_loss(&m, x, c);
		theta[i] = save - h;
		lm = mlp_loss(&m, x, c);
		theta[i] = save;
		fd = (lp - lm) / (2 * h);
		ck_assert_msg(close_to(grad[i], fd, 1e-6),
			"param %zu: backward %.10g, finite difference %.10g",
			i, grad[i], fd);
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < 5; j++) {
			save = gsl_matrix_get(x, i, j);
			gsl_matrix_set(x, i, j, save + h);
			lp = mlp_loss(&m, x, c);
			gsl_matrix_set(x, i, j, save - h);
			lm = mlp_loss(&m, x, c);
			gsl_matrix_set(x, i, j, save);
			fd = (lp - lm) / (2 * h);
			ck_assert_msg(close_to(gsl_matrix_get(dx, i, j), fd,
				1e-6), "input %zu,%zu: %.10g vs %.10g", i, j,
				gsl_matrix_get(dx, i, j), fd);
		}
	/* the gradient accumulates */
	mlp_loss(&m, x, c);
	save = grad[0];
	ck_assert(rl_mlp_backward(&m, c, NULL, &e) == 0);
	ck_assert(close_to(grad[0], 2 * save, 1e-12));
	rl_mlp_free(&m);
	gsl_matrix_free(x);
	gsl_matrix_free(c);
	gsl_matrix_free(dx);
	gsl_rng_free(r);
	free(theta);
	free(grad);
}

START_TEST(mlp_grad_tanh)
{
	mlp_gradcheck(RL_TANH);
}
END_TEST

START_TEST(mlp_grad_relu)
{
	mlp_gradcheck(RL_RELU);
}
END_TEST

START_TEST(mlp_bad_shapes)
{
	int sizes[] = {3, 2};
	double theta[8], grad[8];
	gsl_matrix *x = gsl_matrix_calloc(5, 3), *y = gsl_matrix_calloc(2, 4);
	gsl_matrix_view out;
	RlMlp m;
	RlError e;
	int zero[] = {3, 0};

	ck_assert_int_eq(rl_mlp_count(1, sizes), 8);
	ck_assert_int_eq(rl_mlp_init(&m, 1, zero, RL_TANH, 4, theta, grad,
		&e), -1);
	ck_assert_int_eq(rl_mlp_init(&m, 1, sizes, RL_TANH, 4, theta, grad,
		&e), 0);
	ck_assert_int_eq(rl_mlp_forward(&m, x, &out, &e), -1);	/* 5 > 4 */
	ck_assert_ptr_nonnull(strstr(e.msg, "network input"));
	ck_assert_int_eq(rl_mlp_forward(&m, y, &out, &e), -1);	/* width */
	rl_mlp_free(&m);
	gsl_matrix_free(x);
	gsl_matrix_free(y);
}
END_TEST

/* W'W = gain^2 I for a tall W, WW' = gain^2 I for a wide one */
static void
check_orthogonal(size_t rows, size_t cols, double gain, gsl_rng *r)
{
	int sizes[] = {(int)cols, (int)rows};
	size_t np = rl_mlp_count(1, sizes), i, j, k = rows < cols ? rows : cols;
	double *theta = calloc(np, sizeof *theta);
	double *grad = calloc(np, sizeof *grad);
	gsl_matrix *P = gsl_matrix_alloc(k, k);
	RlMlp m;
	RlError e;

	ck_assert(rl_mlp_init(&m, 1, sizes, RL_TANH, 1, theta, grad, &e) == 0);
	ck_assert(rl_mlp_orthogonal(&m, 0, gain, r, &e) == 0);
	if (rows >= cols)
		gsl_blas_dgemm(CblasTrans, CblasNoTrans, 1, &m.W[0].matrix,
			&m.W[0].matrix, 0, P);
	else
		gsl_blas_dgemm(CblasNoTrans, CblasTrans, 1, &m.W[0].matrix,
			&m.W[0].matrix, 0, P);
	for (i = 0; i < k; i++)
		for (j = 0; j < k; j++)
			ck_assert_msg(fabs(gsl_matrix_get(P, i, j) -
				(i == j ? gain * gain : 0)) < 1e-12,
				"%zux%zu: P[%zu][%zu] = %g", rows, cols, i, j,
				gsl_matrix_get(P, i, j));
	for (i = 0; i < rows; i++)
		ck_assert(gsl_vector_get(&m.b[0].vector, i) == 0);
	rl_mlp_free(&m);
	gsl_matrix_free(P);
	free(theta);
	free(grad);
}

START_TEST(orthogonal_init)
{
	gsl_rng *r = rng(3);

	check_orthogonal(7, 5, sqrt(2), r);
	check_orthogonal(3, 6, 0.01, r);
	check_orthogonal(4, 4, 1, r);
	check_orthogonal(1, 9, 1, r);
	gsl_rng_free(r);
}
END_TEST

/* the same seed gives the same weights; another seed others */
START_TEST(init_deterministic)
{
	int sizes[] = {6, 4, 2};
	double t1[64], t2[64], t3[64], g[64];
	gsl_rng *r;
	RlMlp m;
	RlError e;
	size_t np = rl_mlp_count(2, sizes);
	unsigned long seeds[] = {11, 11, 12};
	double *ts[] = {t1, t2, t3};
	int k;

	ck_assert(np <= 64);
	for (k = 0; k < 3; k++) {
		r = rng(seeds[k]);
		ck_assert(rl_mlp_init(&m, 2, sizes, RL_TANH, 1, ts[k], g,
			&e) == 0);
		ck_assert(rl_mlp_orthogonal(&m, sqrt(2), 0.01, r, &e) == 0);
		rl_mlp_free(&m);
		gsl_rng_free(r);
	}
	ck_assert(!memcmp(t1, t2, np * sizeof *t1));
	ck_assert(memcmp(t1, t3, np * sizeof *t1));
}
END_TEST

/* ga * log p_a + gh * H over logits, with two actions masked */
static double
cat_loss(const double *z, const unsigned char *mask, int A, int a,
	double ga, double gh)
{
	double logp[8];

	ck_assert(rl_log_softmax(z, mask, A, logp) == 0);
	return ga * logp[a] + gh * rl_entropy(logp, A);
}

START_TEST(softmax_masked)
{
	double z[6] = {0.3, -1.2, 2.0, 0.7, -0.4, 1.1}, logp[6], dz[6];
	unsigned char mask[6] = {1, 0, 1, 1, 0, 1}, none[6] = {0};
	double s = 0, h = 1e-6, save, fd, lp, lm;
	int j;

	ck_assert(rl_log_softmax(z, mask, 6, logp) == 0);
	for (j = 0; j < 6; j++) {
		if (!mask[j]) {
			ck_assert(logp[j] == -INFINITY);
			continue;
		}
		s += exp(logp[j]);
	}
	ck_assert(fabs(s - 1) < 1e-14);
	ck_assert_int_eq(rl_log_softmax(z, none, 6, logp), -1);
	ck_assert_int_eq(rl_argmax(z, mask, 6), 2);
	mask[2] = 0;
	ck_assert_int_eq(rl_argmax(z, mask, 6), 5);
	ck_assert_int_eq(rl_argmax(z, none, 6), -1);
	mask[2] = 1;
	/* entropy of a uniform distribution over the 4 valid actions */
	{
		double u[6] = {0}, lu[6];

		ck_assert(rl_log_softmax(u, mask, 6, lu) == 0);
		ck_assert(fabs(rl_entropy(lu, 6) - log(4)) < 1e-14);
	}
	ck_assert(rl_log_softmax(z, mask, 6, logp) == 0);
	rl_categorical_grad(logp, 6, 3, -0.7, 0.35, dz);
	for (j = 0; j < 6; j++) {
		if (!mask[j]) {
			ck_assert(dz[j] == 0);
			continue;
		}
		save = z[j];
		z[j] = save + h;
		lp = cat_loss(z, mask, 6, 3, -0.7, 0.35);
		z[j] = save - h;
		lm = cat_loss(z, mask, 6, 3, -0.7, 0.35);
		z[j] = save;
		fd = (lp - lm) / (2 * h);
		ck_assert_msg(close_to(dz[j], fd, 1e-7), "logit %d: %.10g vs "
			"%.10g", j, dz[j], fd);
	}
}
END_TEST

/* sampling follows the probabilities and never picks a masked action */
START_TEST(sample_masked)
{
	double z[4] = {0, log(3), 5, 0}, logp[4];
	unsigned char mask[4] = {1, 1, 0, 1};
	int count[4] = {0}, i;
	gsl_rng *r = rng(5);

	ck_assert(rl_log_softmax(z, mask, 4, logp) == 0);
	for (i = 0; i < 50000; i++)
		count[rl_sample(logp, 4, r)]++;
	ck_assert_int_eq(count[2], 0);
	/* p = 0.2, 0.6, 0, 0.2: within 5 standard deviations */
	ck_assert(abs(count[1] - 30000) < 5 * 110);
	ck_assert(abs(count[0] - 10000) < 5 * 90);
	gsl_rng_free(r);
}
END_TEST

START_TEST(huber)
{
	double xs[] = {-3, -1.5, -0.4, 0.2, 0.9, 2.5}, h = 1e-6, fd;
	size_t i;

	for (i = 0; i < sizeof xs / sizeof xs[0]; i++) {
		fd = (rl_huber(xs[i] + h) - rl_huber(xs[i] - h)) / (2 * h);
		ck_assert(close_to(rl_huber_grad(xs[i]), fd, 1e-8));
	}
	ck_assert(rl_huber(0.5) == 0.125);
	ck_assert(rl_huber(-3) == 2.5);
}
END_TEST

/* Adam's first step moves each weight by lr against its gradient's sign
 * (up to eps); the second follows the moment formulas */
START_TEST(adam_steps)
{
	double th[3] = {1, -2, 0.5}, g[3] = {0.3, -4, 1e-3};
	double m, v, want, th1;
	RlOpt o;
	RlError e;
	int i;

	ck_assert(rl_opt_init(&o, RL_ADAM, 3, 0.01, 1e-8, 0, &e) == 0);
	rl_opt_step(&o, th, g);
	ck_assert(fabs(th[0] - 0.99) < 1e-9);
	ck_assert(fabs(th[1] + 1.99) < 1e-9);
	ck_assert(fabs(th[2] - 0.49) < 1e-7);
	th1 = th[0];
	g[0] = -0.1;
	rl_opt_step(&o, th, g);
	m = 0.9 * 0.1 * 0.3 + 0.1 * -0.1;
	v = 0.999 * 0.001 * 0.09 + 0.001 * 0.01;
	want = th1 - 0.01 * (m / (1 - 0.81)) /
		(sqrt(v / (1 - 0.999 * 0.999)) + 1e-8);
	ck_assert_msg(fabs(th[0] - want) < 1e-12, "%.15g vs %.15g", th[0],
		want);
	rl_opt_free(&o);
	/* minimizes a quadratic */
	ck_assert(rl_opt_init(&o, RL_ADAM, 3, 0.05, 1e-8, 0, &e) == 0);
	for (i = 0; i < 2000; i++) {
		g[0] = 2 * (th[0] - 3);
		g[1] = 2 * (th[1] + 1);
		g[2] = 20 * th[2];
		rl_opt_step(&o, th, g);
	}
	ck_assert(fabs(th[0] - 3) < 1e-3 && fabs(th[1] + 1) < 1e-3 &&
		fabs(th[2]) < 1e-3);
	rl_opt_free(&o);
}
END_TEST

START_TEST(rmsprop_steps)
{
	double th[2] = {1, 1}, g[2] = {0.5, -2}, v0, v1;
	RlOpt o;
	RlError e;

	ck_assert(rl_opt_init(&o, RL_RMSPROP, 2, 7e-4, 1e-5, 0.99, &e) == 0);
	ck_assert_ptr_null(o.m);
	rl_opt_step(&o, th, g);
	v0 = 0.01 * 0.25;
	v1 = 0.01 * 4;
	ck_assert(fabs(th[0] - (1 - 7e-4 * 0.5 / (sqrt(v0) + 1e-5))) < 1e-15);
	ck_assert(fabs(th[1] - (1 + 7e-4 * 2 / (sqrt(v1) + 1e-5))) < 1e-15);
	rl_opt_step(&o, th, g);
	v0 = 0.99 * v0 + 0.01 * 0.25;
	ck_assert(fabs(o.v[0] - v0) < 1e-15 * v0);
	rl_opt_free(&o);
}
END_TEST

START_TEST(clip_norm)
{
	double g[2] = {3, 4}, n;

	n = rl_clip_grad_norm(g, 2, 10);
	ck_assert(n == 5 && g[0] == 3 && g[1] == 4);
	n = rl_clip_grad_norm(g, 2, 0.5);
	ck_assert(n == 5);
	ck_assert(fabs(hypot(g[0], g[1]) - 0.5) < 1e-6);
	ck_assert(fabs(g[0] / g[1] - 0.75) < 1e-15);
	ck_assert(rl_clip_grad_norm(g, 0, 1) == 0);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("rl");
	TCase *tn = tcase_create("nn");
	SRunner *sr;
	int nf;

	rl_gsl_quiet();
	tcase_add_test(tn, mlp_grad_tanh);
	tcase_add_test(tn, mlp_grad_relu);
	tcase_add_test(tn, mlp_bad_shapes);
	tcase_add_test(tn, orthogonal_init);
	tcase_add_test(tn, init_deterministic);
	tcase_add_test(tn, softmax_masked);
	tcase_add_test(tn, sample_masked);
	tcase_add_test(tn, huber);
	tcase_add_test(tn, adam_steps);
	tcase_add_test(tn, rmsprop_steps);
	tcase_add_test(tn, clip_norm);
	suite_add_tcase(s, tn);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? 1 : 0;
}
