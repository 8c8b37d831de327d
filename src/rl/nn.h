/* nn.h: the agents' small dense networks (src/rl/nn.c): multilayer
 * perceptrons on GSL matrices with batched forward and backward passes,
 * tanh and ReLU, masked softmax over actions, orthogonal initialization,
 * Adam and RMSprop, gradient-norm clipping, Huber loss. GSL only; every
 * random number comes from a gsl_rng the caller passes; no global state.
 * Functions that can fail return 0, or -1 with an RlError filled; the
 * caller turns GSL's abort-on-error handler off (rl_gsl_quiet) and every
 * GSL status is checked. */
#ifndef RL_NN_H
#define RL_NN_H

#include <stddef.h>

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_vector.h>

/* errors of the agent layer: a complete message */
typedef struct {
	char msg[512];
} RlError;

int rl_err(RlError *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));	/* fills e; returns -1 */
int rl_gsl(int status, const char *what, RlError *e);
			/* 0 for GSL_SUCCESS, else -1 naming what failed */
void rl_gsl_quiet(void);	/* GSL reports by status, never aborts */
void *rl_alloc(size_t n, size_t size, RlError *e);
			/* zeroed n * size bytes (overflow checked), or NULL */

/* hidden-layer activations; an output layer is linear */
enum { RL_TANH, RL_RELU };
#define RL_MAXLAYERS 8

/* a multilayer perceptron. its weights and their gradients live in
 * arrays the owner gives (so that several networks share one parameter
 * vector, one optimizer and one gradient norm); the activations of the
 * last forward pass are cached for the backward pass, for up to maxbatch
 * rows. layer i maps sizes[i] inputs to sizes[i + 1] outputs: y = x W' + b
 * with W sizes[i + 1] x sizes[i] (rows are samples). */
typedef struct {
	int nlayers;			/* linear layers, output included */
	int sizes[RL_MAXLAYERS + 1];	/* [0] input, [nlayers] output */
	int act;			/* RL_TANH or RL_RELU */
	size_t nparams;			/* weights and biases of all layers */
	size_t maxbatch;		/* rows the caches hold */
	size_t n;			/* rows of the last forward pass */
	double *theta, *grad;		/* the owner's, nparams each */
	gsl_matrix_view W[RL_MAXLAYERS], dW[RL_MAXLAYERS];
	gsl_vector_view b[RL_MAXLAYERS], db[RL_MAXLAYERS];
	gsl_matrix *h[RL_MAXLAYERS + 1];	/* h[0] input, h[i] layer i-1's
						 * activated output */
	gsl_matrix *d[RL_MAXLAYERS + 1];	/* deltas, the same shapes */
} RlMlp;

size_t rl_mlp_count(int nlayers, const int *sizes);	/* its nparams */
int rl_mlp_init(RlMlp *m, int nlayers, const int *sizes, int act,
	size_t maxbatch, double *theta, double *grad, RlError *e);
			/* theta and grad: rl_mlp_count(...) doubles each */
void rl_mlp_free(RlMlp *m);	/* the caches; theta/grad stay the owner's */
int rl_mlp_orthogonal(RlMlp *m, double hidden_gain, double out_gain,
	gsl_rng *r, RlError *e);
			/* orthogonal weights (QR of a Gaussian matrix, signs
			 * of R's diagonal), scaled by the gain; zero biases */
int rl_mlp_forward(RlMlp *m, const gsl_matrix *x, gsl_matrix_view *out,
	RlError *e);	/* x: n <= maxbatch rows; *out views the cache */
int rl_mlp_backward(RlMlp *m, const gsl_matrix *dout, gsl_matrix *dx,
	RlError *e);	/* dout: dL/dout of the last forward's rows; adds
			 * dL/dtheta into grad; dx (may be NULL) gets dL/dx */

/* categorical distributions over actions. mask: A bytes per row, nonzero
 * for a valid action (NULL: all valid); masked actions get log p = -inf */
int rl_log_softmax(const double *z, const unsigned char *mask, int A,
	double *logp);	/* -1 when no action is valid */
double rl_entropy(const double *logp, int A);
int rl_sample(const double *logp, int A, gsl_rng *r);
int rl_argmax(const double *z, const unsigned char *mask, int A);
			/* highest valid; -1 if none */
void rl_categorical_grad(const double *logp, int A, int a, double ga,
	double gh, double *dz);	/* dz = d(ga * log p_a + gh * H)/dz */

/* Huber (smooth L1, delta 1) loss of x and its derivative */
double rl_huber(double x);
double rl_huber_grad(double x);

/* first-order optimizers over a flat parameter vector (PyTorch's update
 * rules, so that Stable-Baselines3's hyperparameters mean the same) */
enum { RL_ADAM, RL_RMSPROP };
typedef struct {
	int kind;
	size_t n;
	double lr;
	double beta1, beta2;	/* Adam */
	double alpha;		/* RMSprop's smoothing */
	double eps;
	long t;			/* steps taken */
	double *m, *v;		/* moments (RMSprop: v only) */
} RlOpt;

int rl_opt_init(RlOpt *o, int kind, size_t n, double lr, double eps,
	double alpha, RlError *e);	/* Adam: betas 0.9, 0.999 */
void rl_opt_free(RlOpt *o);
void rl_opt_step(RlOpt *o, double *theta, const double *grad);
double rl_clip_grad_norm(double *grad, size_t n, double max_norm);
			/* scales grad to norm max_norm when above (max_norm
			 * <= 0: never); returns the norm before */
#endif
