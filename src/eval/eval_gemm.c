/* eval_gemm.c: single-precision GEMM for dot and convolution.
 *
 * C = A B (or C += A B) in row-major storage, either operand optionally
 * transposed. On x86-64 with AVX2 and FMA a packed, blocked kernel (6x16
 * register tile; k, m and n blocked for L1, L2 and L3) runs on threads
 * that split the columns (or rows) of C, so each element is summed in
 * the same order whatever the thread count; elsewhere it is GSL's
 * cblas_sgemm. */
#include <gsl/gsl_cblas.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hlo.h"
#include "eval.h"

#define MR 6
#define NR 16
#define KC 256
#define MC 144
#define NC 3072

typedef struct {
	int ta, tb;
	int64_t M, N, K, lda, ldb, ldc;
	const float *A, *B;
	float *C;
	int acc;
	int64_t m0, m1;		/* rows of C this worker computes */
	int64_t n0, n1;		/* and columns */
} Gemm;

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_KERNEL 1

/* a[i][k] of op(A) */
static float
aget(const Gemm *g, int64_t i, int64_t k)
{
	return g->ta ? g->A[k * g->lda + i] : g->A[i * g->lda + k];
}

/* packs rows [i0, i0+mc) x k [k0, k0+kc) of op(A) into MR-row panels,
 * k-major inside each panel, zero padded */
static void
pack_a(const Gemm *g, int64_t i0, int64_t mc, int64_t k0, int64_t kc,
	float *p)
{
	int64_t ip, i, k;

	for (ip = 0; ip < mc; ip += MR) {
		for (k = 0; k < kc; k++)
			for (i = 0; i < MR; i++)
				p[k * MR + i] = ip + i < mc ?
					aget(g, i0 + ip + i, k0 + k) : 0;
		p += MR * kc;
	}
}

/* packs k [k0, k0+kc) x columns [j0, j0+nc) of op(B) into NR-column
 * panels, k-major inside each panel, zero padded */
static void
pack_b(const Gemm *g, int64_t k0, int64_t kc, int64_t j0, int64_t nc,
	float *p)
{
	int64_t jp, j, k, w;
	const float *b;

	for (jp = 0; jp < nc; jp += NR) {
		w = nc - jp < NR ? nc - jp : NR;
		for (k = 0; k < kc; k++) {
			float *d = p + k * NR;

			if (!g->tb) {
				b = g->B + (k0 + k) * g->ldb + j0 + jp;
				memcpy(d, b, w * sizeof *d);
			} else {
				for (j = 0; j < w; j++)
					d[j] = g->B[(j0 + jp + j) * g->ldb +
						k0 + k];
			}
			for (j = w; j < NR; j++)
				d[j] = 0;
		}
		p += NR * kc;
	}
}

__attribute__((target("avx2,fma"))) static void
kernel(int64_t kc, const float *a, const float *b, float *c, int64_t ldc,
	int64_t mr, int64_t nr, int acc)
{
	__m256 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
	__m256 b0, b1, av, cv[2 * MR];
	float tile[MR * NR];
	int64_t k, i, j;

	c00 = c01 = c10 = c11 = c20 = c21 = _mm256_setzero_ps();
	c30 = c31 = c40 = c41 = c50 = c51 = _mm256_setzero_ps();
	for (k = 0; k < kc; k++) {
		b0 = _mm256_loadu_ps(b);
		b1 = _mm256_loadu_ps(b + 8);
#define ROW(i, x0, x1) av = _mm256_broadcast_ss(a + i); \
		x0 = _mm256_fmadd_ps(av, b0, x0); \
		x1 = _mm256_fmadd_ps(av, b1, x1)
		ROW(0, c00, c01);
		ROW(1, c10, c11);
		ROW(2, c20, c21);
		ROW(3, c30, c31);
		ROW(4, c40, c41);
		ROW(5, c50, c51);
#undef ROW
		a += MR;
		b += NR;
	}
	cv[0] = c00; cv[1] = c01; cv[2] = c10; cv[3] = c11;
	cv[4] = c20; cv[5] = c21; cv[6] = c30; cv[7] = c31;
	cv[8] = c40; cv[9] = c41; cv[10] = c50; cv[11] = c51;
	if (mr == MR && nr == NR) {
		for (i = 0; i < MR; i++) {
			float *cr = c + i * ldc;

			if (acc) {
				cv[2 * i] = _mm256_add_ps(cv[2 * i],
					_mm256_loadu_ps(cr));
				cv[2 * i + 1] = _mm256_add_ps(cv[2 * i + 1],
					_mm256_loadu_ps(cr + 8));
			}
			_mm256_storeu_ps(cr, cv[2 * i]);
			_mm256_storeu_ps(cr + 8, cv[2 * i + 1]);
		}
		return;
	}
	for (i = 0; i < MR; i++) {
		_mm256_storeu_ps(tile + i * NR, cv[2 * i]);
		_mm256_storeu_ps(tile + i * NR + 8, cv[2 * i + 1]);
	}
	for (i = 0; i < mr; i++)
		for (j = 0; j < nr; j++)
			c[i * ldc + j] = tile[i * NR + j] +
				(acc ? c[i * ldc + j] : 0);
}

/* one register tile of C at (i, j), at most MR x NR of it inside */
static void
tile(const Gemm *g, const float *a, const float *b, int64_t kc, int64_t i,
	int64_t j, int64_t mr, int64_t nr, int more)
{
	kernel(kc, a, b, g->C + i * g->ldc + j, g->ldc, mr < MR ? mr : MR,
		nr < NR ? nr : NR, g->acc || more);
}

/* C[ic.., jc..] (+)= packed A block x packed B block */
static void
block(const Gemm *g, const float *ap, const float *bp, int64_t kc,
	int64_t ic, int64_t mc, int64_t jc, int64_t nc, int more)
{
	int64_t jr, ir;

	for (jr = 0; jr < nc; jr += NR)
		for (ir = 0; ir < mc; ir += MR)
			tile(g, ap + ir * kc, bp + jr * kc, kc, ic + ir,
				jc + jr, mc - ir, nc - jr, more);
}

static void *
worker(void *arg)
{
	const Gemm *g = arg;
	int64_t jc, pc, ic, nc, kc, mc;
	int64_t kmax = g->K < KC ? g->K : KC;
	int64_t mmax = g->m1 - g->m0 < MC ? g->m1 - g->m0 : MC;
	int64_t nmax = g->n1 - g->n0 < NC ? g->n1 - g->n0 : NC;
	float *ap = xmalloc(sizeof(float) * (mmax + MR) * kmax);
	float *bp = xmalloc(sizeof(float) * (nmax + NR) * kmax);

	for (jc = g->n0; jc < g->n1; jc += NC) {
		nc = g->n1 - jc < NC ? g->n1 - jc : NC;
		for (pc = 0; pc < g->K; pc += KC) {
			kc = g->K - pc < KC ? g->K - pc : KC;
			pack_b(g, pc, kc, jc, nc, bp);
			for (ic = g->m0; ic < g->m1; ic += MC) {
				mc = g->m1 - ic < MC ? g->m1 - ic : MC;
				pack_a(g, ic, mc, pc, kc, ap);
				block(g, ap, bp, kc, ic, mc, jc, nc, pc > 0);
			}
		}
	}
	free(ap);
	free(bp);
	return NULL;
}

/* the blocks [lo, hi) of columns (or rows) of one split of C */
typedef struct {
	Gemm g;
	int cols;
	int64_t nb, mb;		/* NR column blocks, MR row blocks */
} Split;

static void
split_part(void *ctx, int part, int64_t lo, int64_t hi)
{
	const Split *sp = ctx;
	Gemm g = sp->g;

	(void)part;
	g.m0 = g.n0 = 0;
	g.m1 = g.M;
	g.n1 = g.N;
	if (sp->cols) {
		g.n0 = lo * NR;
		g.n1 = hi == sp->nb ? g.N : hi * NR;
	} else {
		g.m0 = lo * MR;
		g.m1 = hi == sp->mb ? g.M : hi * MR;
	}
	worker(&g);
}

static int
have_kernel(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#else
#define HAVE_KERNEL 0
#endif

static void
zero_c(float *C, int64_t M, int64_t N, int64_t ldc)
{
	int64_t i;

	for (i = 0; i < M; i++)
		memset(C + i * ldc, 0, N * sizeof *C);
}

static void
small_gemm(int ta, int tb, int64_t M, int64_t N, int64_t K, const float *A,
	int64_t lda, const float *B, int64_t ldb, float *C, int64_t ldc,
	int acc)
{
	int64_t i, j, k;
	float s;

	for (i = 0; i < M; i++)
		for (j = 0; j < N; j++) {
			s = 0;
			for (k = 0; k < K; k++)
				s += (ta ? A[k * lda + i] : A[i * lda + k]) *
					(tb ? B[j * ldb + k] : B[k * ldb + j]);
			C[i * ldc + j] = acc ? C[i * ldc + j] + s : s;
		}
}

void
ev_sgemm(int ta, int tb, int64_t M, int64_t N, int64_t K, const float *A,
	int64_t lda, const float *B, int64_t ldb, float *C, int64_t ldc,
	int acc, int threads)
{
	if (M <= 0 || N <= 0)
		return;
	if (K <= 0) {
		if (!acc)
			zero_c(C, M, N, ldc);
		return;
	}
	if ((double)M * N * K < 32768) {
		small_gemm(ta, tb, M, N, K, A, lda, B, ldb, C, ldc, acc);
		return;
	}
#if HAVE_KERNEL
	if (have_kernel()) {
		Split sp;
		int64_t t = threads;

		if ((double)M * N * K < 4e6)
			t = 1;
		memset(&sp, 0, sizeof sp);
		sp.g.ta = ta;
		sp.g.tb = tb;
		sp.g.M = M;
		sp.g.N = N;
		sp.g.K = K;
		sp.g.A = A;
		sp.g.B = B;
		sp.g.C = C;
		sp.g.lda = lda;
		sp.g.ldb = ldb;
		sp.g.ldc = ldc;
		sp.g.acc = acc;
		/* split the columns (in NR multiples) when there are
		 * enough of them, else the rows (in MR multiples) */
		sp.nb = (N + NR - 1) / NR;
		sp.mb = (M + MR - 1) / MR;
		sp.cols = sp.nb >= 4 * t || sp.nb >= sp.mb;
		ev_par_threads(t < 1 ? 1 : (int)t, sp.cols ? sp.nb : sp.mb,
			split_part, &sp);
		return;
	}
#endif
	(void)threads;
	cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
		tb ? CblasTrans : CblasNoTrans, M, N, K, 1, A, lda, B, ldb,
		acc ? 1 : 0, C, ldc);
}
