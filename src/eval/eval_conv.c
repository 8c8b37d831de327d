/* eval_conv.c: convolution.
 *
 * f32, bf16 and f16 convolutions take a fast path when one fits, working
 * on the operands' own layouts (other float types are converted to f32
 * first, in place of layout):
 *  - depthwise-like (one input feature per feature group, or one output
 *    feature per batch group): a direct loop of contiguous axpy or dot
 *    products along the last spatial dimension;
 *  - a window covering the whole input (weight gradients of pointwise
 *    convolutions): one GEMM per input feature on strided views;
 *  - batch and feature leading (bf01 -> bf01): per batch element, the
 *    kernel as [out][in x window] times an im2col of [in x window]
 *    [output positions] (none for pointwise), written in place.
 * Anything else goes through canonical layouts (input [batch][spatial..]
 * [feature], kernel [spatial..][in][out]) and im2col in row chunks, in
 * f32, f64 or c128. */
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "eval.h"

#define MAXR 64
#define IM2COL_BYTES ((int64_t)32 << 20)

typedef struct {
	int ns;			/* spatial dims */
	int64_t ib, iff, is[MAXR];	/* input batch, feature, spatial */
	int64_t ki, ko, ks[MAXR];	/* kernel in, out, spatial */
	int64_t ob, of, os[MAXR];	/* output batch, feature, spatial */
} ConvDn;

static int
labelpart(const char *s, const char *e, char a, char b, int64_t *da,
	int64_t *db, int64_t *sp, int *ns)
{
	int d = 0, n = 0, k;
	const char *p;

	*da = *db = -1;
	for (p = s; p < e; p++, d++) {
		if (*p == a)
			*da = d;
		else if (*p == b)
			*db = d;
		else if (*p >= '0' && *p <= '9')
			n++;
		else
			return -1;
	}
	for (k = 0; k < n; k++)
		sp[k] = -1;
	for (p = s, d = 0; p < e; p++, d++)
		if (*p >= '0' && *p <= '9') {
			if (*p - '0' >= n || sp[*p - '0'] >= 0)
				return -1;
			sp[*p - '0'] = d;
		}
	if (*da < 0 || *db < 0)
		return -1;
	*ns = n;
	return d;
}

static int
convdn(const char *w, uint32_t n, ConvDn *cd)
{
	const char *e = w + n, *u, *ar;
	int n1, n2, n3;

	u = memchr(w, '_', n);
	ar = u ? memchr(u, '-', e - u) : NULL;
	if (!u || !ar || ar + 1 >= e || ar[1] != '>')
		return -1;
	if (labelpart(w, u, 'b', 'f', &cd->ib, &cd->iff, cd->is, &n1) < 0 ||
	    labelpart(u + 1, ar, 'i', 'o', &cd->ki, &cd->ko, cd->ks, &n2) < 0 ||
	    labelpart(ar + 2, e, 'b', 'f', &cd->ob, &cd->of, cd->os, &n3) < 0)
		return -1;
	if (n1 != n2 || n1 != n3 || n1 > MAXR - 2)
		return -1;
	cd->ns = n1;
	return 0;
}

typedef struct {
	int64_t size, stride, lo, hi, wdil, bdil, rev;
} WinDim;

typedef struct {
	ConvDn dn;
	WinDim w[MAXR];
	int64_t B, C, S[MAXR], Co, KS[MAXR], Bo, OS[MAXR], Cig;
	int64_t fgc, bgc, G, Coq;
	int64_t nS, nKS, nOS;	/* products */
	int kind;
	int64_t esz;
} Conv;

static int
convsetup(HloEval *ev, const HloInstr *in, HloVal *x, HloVal *k, Conv *cv)
{
	const HloModule *m = ev->m;
	const char *lab;
	uint32_t n;
	const HloAttr *wa = hlo_attr(m, in, A_WINDOW);
	const int64_t *xd, *kd, *od, *wv;
	int xr, kr, orank, d;

	lab = hlo_attr_word(m, in, A_DIM_LABELS, &n);
	if (!lab || convdn(lab, n, &cv->dn) < 0)
		return -1;
	xd = ev_dims(ev, x->shape, &xr);
	kd = ev_dims(ev, k->shape, &kr);
	od = ev_dims(ev, in->shape, &orank);
	if (xr != cv->dn.ns + 2 || kr != xr || orank != xr)
		return -1;
	if (wa && (int)wa->n != 7 * cv->dn.ns)
		return -1;
	if (!wa && cv->dn.ns)
		return -1;
	wv = wa ? hlo_ints_at(m, wa->v) : NULL;
	cv->fgc = hlo_attr_int(m, in, A_FEATURE_GROUP_COUNT, 1);
	cv->bgc = hlo_attr_int(m, in, A_BATCH_GROUP_COUNT, 1);
	cv->B = xd[cv->dn.ib];
	cv->C = xd[cv->dn.iff];
	cv->Co = kd[cv->dn.ko];
	cv->Cig = kd[cv->dn.ki];
	cv->Bo = od[cv->dn.ob];
	cv->nS = cv->nKS = cv->nOS = 1;
	if (cv->fgc < 1 || cv->bgc < 1 || (cv->fgc > 1 && cv->bgc > 1) ||
	    cv->C % cv->fgc || cv->Co % (cv->fgc * cv->bgc) ||
	    cv->B % cv->bgc || cv->Cig * cv->fgc != cv->C ||
	    cv->Bo != cv->B / cv->bgc || od[cv->dn.of] != cv->Co)
		return -1;
	cv->G = cv->fgc * cv->bgc;
	cv->Coq = cv->Co / cv->G;
	for (d = 0; d < cv->dn.ns; d++) {
		WinDim *w = &cv->w[d];
		int64_t dilated, padded, ws;

		memcpy(w, wv + 7 * d, sizeof *w);
		cv->S[d] = xd[cv->dn.is[d]];
		cv->KS[d] = kd[cv->dn.ks[d]];
		cv->OS[d] = od[cv->dn.os[d]];
		if (w->size != cv->KS[d] || w->stride < 1 || w->wdil < 1 ||
		    w->bdil < 1)
			return -1;
		dilated = cv->S[d] ? (cv->S[d] - 1) * w->bdil + 1 : 0;
		padded = dilated + w->lo + w->hi;
		ws = w->size ? (w->size - 1) * w->wdil + 1 : 0;
		if ((padded < ws ? 0 : (padded - ws) / w->stride + 1) !=
		    cv->OS[d])
			return -1;
		cv->nS *= cv->S[d];
		cv->nKS *= cv->KS[d];
		cv->nOS *= cv->OS[d];
	}
	return 0;
}

/* input position of output position o and kernel position k on dim d,
 * -1 for padding or a dilation hole */
static int64_t
inpos(const Conv *cv, int d, int64_t o, int64_t k)
{
	const WinDim *w = &cv->w[d];
	int64_t p = o * w->stride - w->lo + k * w->wdil;

	if (w->bdil > 1) {
		if (p < 0 || p % w->bdil)
			return -1;
		p /= w->bdil;
	}
	return p >= 0 && p < cv->S[d] ? p : -1;
}

/* the row-major spatial input offset of output position o and kernel
 * position k (index vectors), -1 for padding or a dilation hole */
static int64_t
inoffset(const Conv *cv, const int64_t *o, const int64_t *k)
{
	int64_t off = 0, p;
	int d;

	for (d = 0; d < cv->dn.ns; d++) {
		if ((p = inpos(cv, d, o[d], k[d])) < 0)
			return -1;
		off = off * cv->S[d] + p;
	}
	return off;
}

/* splits row-major index r over dims[0..n) into idx; returns what is
 * left above them */
static int64_t
unflat(int64_t r, const int64_t *dims, int n, int64_t *idx)
{
	int d;

	for (d = n - 1; d >= 0; d--) {
		idx[d] = r % dims[d];
		r /= dims[d];
	}
	return r;
}

/* rows [r0, r1) of group q's im2col matrix: row = (ob, os..),
 * column = (ks.., ci) */
static void
im2col(const Conv *cv, const unsigned char *X, int64_t q, int64_t r0,
	int64_t r1, unsigned char *P)
{
	int64_t K = cv->nKS * cv->Cig, esz = cv->esz, r, kk, pos;
	int64_t boff = cv->bgc > 1 ? q * cv->Bo : 0;
	int64_t coff = cv->fgc > 1 ? q * cv->Cig : 0;
	int64_t oidx[MAXR], kidx[MAXR], ob;

	for (r = r0; r < r1; r++) {
		ob = unflat(r, cv->OS, cv->dn.ns, oidx);
		for (kk = 0; kk < cv->nKS; kk++) {
			unflat(kk, cv->KS, cv->dn.ns, kidx);
			pos = inoffset(cv, oidx, kidx);
			if (pos >= 0)
				memcpy(P + ((r - r0) * K + kk * cv->Cig) * esz,
					X + (((boff + ob) * cv->nS + pos) *
					cv->C + coff) * esz, cv->Cig * esz);
			else
				memset(P + ((r - r0) * K + kk * cv->Cig) * esz,
					0, cv->Cig * esz);
		}
	}
}

static int
pointwise(const Conv *cv)
{
	int d;

	for (d = 0; d < cv->dn.ns; d++) {
		const WinDim *w = &cv->w[d];

		if (w->size != 1 || w->lo || w->hi || w->bdil != 1 ||
		    w->stride != 1 || cv->OS[d] != cv->S[d])
			return 0;
	}
	return 1;
}

static int
wholewindow(const Conv *cv)
{
	int d;

	for (d = 0; d < cv->dn.ns; d++) {
		const WinDim *w = &cv->w[d];

		if (w->size != cv->S[d] || w->lo || w->hi || w->bdil != 1 ||
		    w->wdil != 1 || cv->OS[d] != 1)
			return 0;
	}
	return cv->fgc == 1;
}

/* depthwise, one input feature per group: a direct loop over features */
static void
depthwise_f32(const Conv *cv, const float *X, const float *W, float *O)
{
	int64_t mult = cv->Coq, C = cv->C, Co = cv->Co, b, r, kk;
	int64_t oidx[MAXR], kidx[MAXR], pos, ch, j;

	memset(O, 0, sizeof(float) * cv->Bo * cv->nOS * Co);
	for (b = 0; b < cv->B; b++)
		for (r = 0; r < cv->nOS; r++) {
			float *o = O + (b * cv->nOS + r) * Co;

			unflat(r, cv->OS, cv->dn.ns, oidx);
			for (kk = 0; kk < cv->nKS; kk++) {
				const float *x, *w = W + kk * Co;

				unflat(kk, cv->KS, cv->dn.ns, kidx);
				if ((pos = inoffset(cv, oidx, kidx)) < 0)
					continue;
				x = X + (b * cv->nS + pos) * C;
				if (mult == 1)
					for (ch = 0; ch < C; ch++)
						o[ch] += x[ch] * w[ch];
				else
					for (j = 0; j < C * mult; j++)
						o[j] += x[j / mult] * w[j];
			}
		}
}

static int
convgemm(HloEval *ev, const Conv *cv, const unsigned char *X,
	const unsigned char *W, unsigned char *O)
{
	int64_t K = cv->nKS * cv->Cig, rows = cv->Bo * cv->nOS, esz = cv->esz;
	int64_t q, r0, r1, chunk;
	unsigned char *P;
	uint64_t pb;

	if (pointwise(cv)) {
		for (q = 0; q < cv->G; q++)
			ev_gemm(ev, cv->kind, rows, cv->Coq, cv->Cig,
				X + ((cv->bgc > 1 ? q * cv->Bo * cv->nS : 0) *
				cv->C + (cv->fgc > 1 ? q * cv->Cig : 0)) * esz,
				cv->C, 0, W + q * cv->Coq * esz, cv->Co, 0,
				O + q * cv->Coq * esz, cv->Co, 0);
		return 0;
	}
	if (wholewindow(cv)) {
		for (q = 0; q < cv->G; q++)
			ev_gemm(ev, cv->kind, cv->Bo, cv->Coq, K,
				X + (q * cv->Bo * cv->nS * cv->C) * esz, K, 0,
				W + q * cv->Coq * esz, cv->Co, 0,
				O + q * cv->Coq * esz, cv->Co, 0);
		return 0;
	}
	chunk = K ? IM2COL_BYTES / (K * esz) : rows;
	if (chunk < 1)
		chunk = 1;
	if (chunk > rows)
		chunk = rows;
	pb = (uint64_t)chunk * (K ? K : 1) * esz;
	P = ev_scratch(ev, pb);
	if (!P)
		return -1;
	for (q = 0; q < cv->G; q++)
		for (r0 = 0; r0 < rows; r0 = r1) {
			r1 = r0 + chunk < rows ? r0 + chunk : rows;
			im2col(cv, X, q, r0, r1, P);
			ev_gemm(ev, cv->kind, r1 - r0, cv->Coq, K, P, K, 0,
				W + q * cv->Coq * esz, cv->Co, 0,
				O + (r0 * cv->Co + q * cv->Coq) * esz, cv->Co,
				0);
		}
	ev_scratch_free(ev, P, pb);
	return 0;
}

static int
generic_conv(HloEval *ev, const HloInstr *in, Conv cv, HloVal **ops,
	HloVal **out)
{
	int64_t xp[MAXR], kp[MAXR], op[MAXR];
	uint8_t rev[MAXR];
	HloVal *v;
	void *X, *W, *O;
	int ox, ow, d, ns;
	uint64_t bx, bw, bo;
	double t0;

	v = hlo_val_array(ev, in->shape);
	if (!v)
		return -1;
	ns = cv.dn.ns;
	xp[0] = cv.dn.ib;
	kp[ns] = cv.dn.ki;
	kp[ns + 1] = cv.dn.ko;
	op[0] = cv.dn.ob;
	memset(rev, 0, sizeof rev);
	for (d = 0; d < ns; d++) {
		xp[1 + d] = cv.dn.is[d];
		kp[d] = cv.dn.ks[d];
		op[1 + d] = cv.dn.os[d];
		rev[d] = cv.w[d].rev != 0;
	}
	xp[ns + 1] = cv.dn.iff;
	op[ns + 1] = cv.dn.of;
	X = ev_pack(ev, ops[0], xp, NULL, cv.kind, &ox, &bx);
	if (!X)
		goto fail0;
	W = ev_pack(ev, ops[1], kp, rev, cv.kind, &ow, &bw);
	if (!W)
		goto fail1;
	bo = (uint64_t)v->n * cv.esz;
	O = ev_scratch(ev, bo);
	if (!O)
		goto fail2;
	t0 = hlo_now();
	if (cv.fgc == cv.C && cv.Cig == 1 && cv.kind == CK_F32 && cv.C > 1) {
		depthwise_f32(&cv, X, W, O);
		ev->flops += 2 * (uint64_t)v->n * cv.nKS;
		ev->gemm_secs += hlo_now() - t0;
	} else if (convgemm(ev, &cv, X, W, O) < 0) {
		goto fail3;
	}
	if (ev_unpack(ev, O, cv.kind, v, op) < 0)
		goto fail3;
	ev_scratch_free(ev, O, bo);
	if (ow)
		ev_scratch_free(ev, W, bw);
	if (ox)
		ev_scratch_free(ev, X, bx);
	*out = v;
	return 0;
fail3:
	ev_scratch_free(ev, O, bo);
fail2:
	if (ow)
		ev_scratch_free(ev, W, bw);
fail1:
	if (ox)
		ev_scratch_free(ev, X, bx);
fail0:
	hlo_val_unref(ev, v);
	return -1;
}

/* fast paths */

typedef struct {
	int64_t b, f, sp[MAXR];	/* element strides */
} Str;

static void
strides(const HloEval *ev, uint32_t shape, int64_t bd, int64_t fd,
	const int64_t *spd, int ns, Str *s)
{
	int64_t st[MAXR];
	int rank, d;
	const int64_t *dims = ev_dims(ev, shape, &rank);

	ev_strides(dims, rank, 1, st);
	s->b = st[bd];
	s->f = st[fd];
	for (d = 0; d < ns; d++)
		s->sp[d] = st[spd[d]];
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("avx2,fma"))) static void
axpy8(int64_t n, float a, const float *x, float *y)
{
	__m256 av = _mm256_set1_ps(a);
	int64_t k = 0;

	for (; k + 8 <= n; k += 8)
		_mm256_storeu_ps(y + k, _mm256_fmadd_ps(av,
			_mm256_loadu_ps(x + k), _mm256_loadu_ps(y + k)));
	for (; k < n; k++)
		y[k] += a * x[k];
}

__attribute__((target("avx2,fma"))) static float
dot8(int64_t n, const float *x, const float *y)
{
	__m256 acc = _mm256_setzero_ps();
	float t[8], s = 0;
	int64_t k = 0;
	int j;

	for (; k + 8 <= n; k += 8)
		acc = _mm256_fmadd_ps(_mm256_loadu_ps(x + k),
			_mm256_loadu_ps(y + k), acc);
	_mm256_storeu_ps(t, acc);
	for (j = 0; j < 8; j++)
		s += t[j];
	for (; k < n; k++)
		s += x[k] * y[k];
	return s;
}

/* y[k] += a x[2k]: even lanes of two loads */
__attribute__((target("avx2,fma"))) static void
axpy8s2(int64_t n, float a, const float *x, float *y)
{
	__m256 av = _mm256_set1_ps(a), lo, hi, ev;
	int64_t k = 0;

	for (; k + 9 <= n; k += 8) {	/* reads x[2k + 15] <= x[2n - 3] */
		lo = _mm256_loadu_ps(x + 2 * k);
		hi = _mm256_loadu_ps(x + 2 * k + 8);
		ev = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
		ev = _mm256_castpd_ps(_mm256_permute4x64_pd(
			_mm256_castps_pd(ev), _MM_SHUFFLE(3, 1, 2, 0)));
		_mm256_storeu_ps(y + k, _mm256_fmadd_ps(av, ev,
			_mm256_loadu_ps(y + k)));
	}
	for (; k < n; k++)
		y[k] += a * x[2 * k];
}

static int
simd(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#else
static int
simd(void)
{
	return 0;
}
#endif

/* y[k sy] += a x[k sx] */
static void
axpy(int64_t n, float a, const float *x, int64_t sx, float *y, int64_t sy,
	int vec)
{
	int64_t k;

#if defined(__x86_64__) && defined(__GNUC__)
	if (vec && sx == 1 && sy == 1) {
		axpy8(n, a, x, y);
		return;
	}
	if (vec && sx == 2 && sy == 1) {
		axpy8s2(n, a, x, y);
		return;
	}
#endif
	(void)vec;
	for (k = 0; k < n; k++)
		y[k * sy] += a * x[k * sx];
}

/* sum x[k sx] y[k sy] */
static float
dotp(int64_t n, const float *x, int64_t sx, const float *y, int64_t sy,
	int vec)
{
	int64_t k;
	float s = 0;

#if defined(__x86_64__) && defined(__GNUC__)
	if (vec && sx == 1 && sy == 1)
		return dot8(n, x, y);
#endif
	(void)vec;
	for (k = 0; k < n; k++)
		s += x[k * sx] * y[k * sy];
	return s;
}

typedef struct {
	const Conv *cv;
	const float *X, *K;
	float *O;
	Str xs, ks, os;
	int vec;
} Direct;

/* the input offset of output position o and kernel position k on every
 * spatial dim but the last; -1 if any lands outside */
static int64_t
lead_offset(const Direct *d, const int64_t *o, const int64_t *k)
{
	int64_t off = 0, p;
	int j;

	for (j = 0; j < d->cv->dn.ns - 1; j++) {
		p = inpos(d->cv, j, o[j], k[j]);
		if (p < 0)
			return -1;
		off += p * d->xs.sp[j];
	}
	return off;
}

/* one output plane += one input plane (x) correlated with one kernel
 * plane (k): axpy along the last output dim */
static void
plane_axpy(const Direct *d, const float *x, const float *k, float *o)
{
	const Conv *cv = d->cv;
	int L = cv->dn.ns - 1;
	const WinDim *w = &cv->w[L];
	int64_t oi[MAXR], ki[MAXR], kr, koff, xoff, ooff, off, lo, hi, j;
	float wt;

	memset(ki, 0, sizeof ki);
	do {
		koff = 0;
		for (j = 0; j <= L; j++) {
			kr = cv->w[j].rev ? cv->KS[j] - 1 - ki[j] : ki[j];
			koff += kr * d->ks.sp[j];
		}
		wt = k[koff];
		off = ki[L] * w->wdil - w->lo;
		lo = off < 0 ? (-off + w->stride - 1) / w->stride : 0;
		hi = cv->S[L] - 1 - off < 0 ? -1 : (cv->S[L] - 1 - off) /
			w->stride;
		if (hi > cv->OS[L] - 1)
			hi = cv->OS[L] - 1;
		if (hi < lo)	/* a zero weight still turns inf into NaN */
			continue;
		memset(oi, 0, sizeof oi);
		do {
			xoff = lead_offset(d, oi, ki);
			if (xoff < 0)
				continue;
			ooff = 0;
			for (j = 0; j < L; j++)
				ooff += oi[j] * d->os.sp[j];
			axpy(hi - lo + 1, wt, x + xoff + (lo * w->stride +
				off) * d->xs.sp[L], w->stride * d->xs.sp[L],
				o + ooff + lo * d->os.sp[L], d->os.sp[L],
				d->vec);
		} while (hlo_index_next(oi, cv->OS, L));
	} while (hlo_index_next(ki, cv->KS, L + 1));
}

/* plane_axpy for two spatial dims, without the n-dimensional index
 * machinery: most depthwise convolutions are 2-D and their rows short.
 * Base dilation (the input gradient of a strided convolution) is allowed
 * on both dims: along a row the output positions that land on an input
 * element then come every bd / gcd(stride, bd) */
static void
plane_axpy2(const Direct *d, const float *x, const float *k, float *o)
{
	const Conv *cv = d->cv;
	const WinDim *wy = &cv->w[0], *wx = &cv->w[1];
	int64_t ky, kx, oy, iy, ox, p, so, si, cnt, g, a, bd = wx->bdil;
	float wt;

	for (a = wx->stride, g = bd; a; ) {	/* g = gcd(stride, bd) */
		int64_t r = g % a;

		g = a;
		a = r;
	}
	so = bd / g;
	si = wx->stride * so / bd;
	for (ky = 0; ky < cv->KS[0]; ky++)
		for (kx = 0; kx < cv->KS[1]; kx++) {
			wt = k[(wy->rev ? cv->KS[0] - 1 - ky : ky) * d->ks.sp[0] +
				(wx->rev ? cv->KS[1] - 1 - kx : kx) *
				d->ks.sp[1]];
			/* the first output column whose input position is
			 * an element, then how many follow in range */
			for (ox = 0; ox < so; ox++) {
				p = ox * wx->stride - wx->lo + kx * wx->wdil;
				if ((p % bd + bd) % bd == 0)
					break;
			}
			if (ox == so)
				continue;	/* never on an element */
			p = ox * wx->stride - wx->lo + kx * wx->wdil;
			while (ox < cv->OS[1] && p < 0) {
				ox += so;
				p += so * wx->stride;
			}
			if (ox >= cv->OS[1] || p < 0 || p % bd || p / bd >=
			    cv->S[1])
				continue;
			cnt = (cv->S[1] - 1 - p / bd) / si + 1;
			if (cnt > (cv->OS[1] - 1 - ox) / so + 1)
				cnt = (cv->OS[1] - 1 - ox) / so + 1;
			for (oy = 0; oy < cv->OS[0]; oy++) {
				iy = oy * wy->stride - wy->lo + ky * wy->wdil;
				if (wy->bdil > 1) {
					if (iy < 0 || iy % wy->bdil)
						continue;
					iy /= wy->bdil;
				}
				if (iy < 0 || iy >= cv->S[0])
					continue;
				axpy(cnt, wt, x + iy * d->xs.sp[0] + p / bd *
					d->xs.sp[1], si * d->xs.sp[1],
					o + oy * d->os.sp[0] + ox * d->os.sp[1],
					so * d->os.sp[1], d->vec);
			}
		}
}

/* the same with a dot product along the last kernel dim, for windows
 * wider than the output */
static void
plane_dot(const Direct *d, const float *x, const float *k, float *o)
{
	const Conv *cv = d->cv;
	int L = cv->dn.ns - 1;
	const WinDim *w = &cv->w[L];
	int64_t oi[MAXR], ki[MAXR], kr, koff, xoff, ooff, base, lo, hi, j;
	int64_t kst;
	float acc;

	memset(oi, 0, sizeof oi);
	do {
		ooff = 0;
		for (j = 0; j <= L; j++)
			ooff += oi[j] * d->os.sp[j];
		base = oi[L] * w->stride - w->lo;
		lo = base < 0 ? (-base + w->wdil - 1) / w->wdil : 0;
		hi = cv->S[L] - 1 - base < 0 ? -1 : (cv->S[L] - 1 - base) /
			w->wdil;
		if (hi > cv->KS[L] - 1)
			hi = cv->KS[L] - 1;
		if (hi < lo)
			continue;
		acc = 0;
		memset(ki, 0, sizeof ki);
		do {
			xoff = lead_offset(d, oi, ki);
			if (xoff < 0)
				continue;
			koff = 0;
			for (j = 0; j < L; j++) {
				kr = cv->w[j].rev ? cv->KS[j] - 1 - ki[j] :
					ki[j];
				koff += kr * d->ks.sp[j];
			}
			kr = w->rev ? cv->KS[L] - 1 - lo : lo;
			kst = w->rev ? -d->ks.sp[L] : d->ks.sp[L];
			acc += dotp(hi - lo + 1, x + xoff + (base + lo *
				w->wdil) * d->xs.sp[L], w->wdil * d->xs.sp[L],
				k + koff + kr * d->ks.sp[L], kst, d->vec);
		} while (hlo_index_next(ki, cv->KS, L));
		o[ooff] += acc;
	} while (hlo_index_next(oi, cv->OS, L + 1));
}

/* output planes [lo, hi) of (output batch, output feature) */
static void
direct_part(void *ctx, int part, int64_t lo, int64_t hi)
{
	const Direct *d = ctx;
	const Conv *cv = d->cv;
	int64_t t, ob, of, ci, g, ib, cb, pos[MAXR], ooff, j;
	int wide = cv->OS[cv->dn.ns - 1] >= cv->KS[cv->dn.ns - 1];
	float *o;

	(void)part;
	for (t = lo; t < hi; t++) {
		ob = t / cv->Co;
		of = t % cv->Co;
		g = of / cv->Coq;
		ib = ob + (cv->bgc > 1 ? g * cv->Bo : 0);
		cb = cv->fgc > 1 ? g * cv->Cig : 0;
		o = d->O + ob * d->os.b + of * d->os.f;
		memset(pos, 0, sizeof pos);
		do {
			ooff = 0;
			for (j = 0; j < cv->dn.ns; j++)
				ooff += pos[j] * d->os.sp[j];
			o[ooff] = 0;
		} while (hlo_index_next(pos, cv->OS, cv->dn.ns));
		for (ci = 0; ci < cv->Cig; ci++) {
			const float *x = d->X + ib * d->xs.b +
				(cb + ci) * d->xs.f;
			const float *k = d->K + ci * d->ks.b + of * d->ks.f;

			if (wide && cv->dn.ns == 2)
				plane_axpy2(d, x, k, o);
			else if (wide)
				plane_axpy(d, x, k, o);
			else
				plane_dot(d, x, k, o);
		}
	}
}

/* planes are independent: split them over threads */
static void
direct(HloEval *ev, Direct *d)
{
	const Conv *cv = d->cv;
	int64_t per = cv->nOS * cv->nKS * cv->Cig;

	ev_par(ev, cv->Bo * cv->Co, per > 0 ? (1 << 16) / per + 1 : 1,
		direct_part, d);
}

static int
direct_fits(const Conv *cv)
{
	int L = cv->dn.ns - 1;

	return cv->dn.ns >= 1 && (cv->w[L].bdil == 1 || (cv->dn.ns == 2 &&
		cv->OS[L] >= cv->KS[L])) &&
		((cv->fgc > 1 && cv->Cig == 1) ||
		(cv->bgc > 1 && cv->Coq == 1));
}

static int
contiguous(const Str *s, const int64_t *dims, int ns)
{
	int d;

	for (d = ns - 1; d >= 0; d--)
		if (s->sp[d] != (d == ns - 1 ? 1 : s->sp[d + 1] * dims[d + 1]))
			return 0;
	return 1;
}

/* output = sum over input features of [batch][window] x [window][out]
 * on strided views; needs a whole-input window and contiguous spatial
 * blocks in the input and kernel, and a contiguous output feature */
static int
whole_fits(const Conv *cv, const Str *xs, const Str *ks, const Str *os)
{
	int d;

	if (cv->fgc != 1 || !contiguous(xs, cv->S, cv->dn.ns) ||
	    !contiguous(ks, cv->KS, cv->dn.ns) || os->f != 1)
		return 0;
	for (d = 0; d < cv->dn.ns; d++) {
		const WinDim *w = &cv->w[d];

		if (w->size != cv->S[d] || w->lo || w->hi || w->bdil != 1 ||
		    w->wdil != 1 || w->rev || cv->OS[d] != 1)
			return 0;
	}
	return 1;
}

static void
whole(HloEval *ev, const Direct *d)
{
	const Conv *cv = d->cv;
	int64_t ci, q;

	for (q = 0; q < cv->G; q++)
		for (ci = 0; ci < cv->Cig; ci++)
			ev_gemm(ev, CK_F32, cv->Bo, cv->Coq, cv->nS,
				d->X + q * cv->Bo * d->xs.b + ci * d->xs.f,
				d->xs.b, 0, d->K + ci * d->ks.b + q * cv->Coq *
				d->ks.f, d->ks.f, 1, d->O + q * cv->Coq,
				d->os.b, ci > 0);
}

static int
leading(const ConvDn *dn)
{
	int d;

	if (dn->ib != 0 || dn->iff != 1 || dn->ob != 0 || dn->of != 1)
		return 0;
	for (d = 0; d < dn->ns; d++)
		if (dn->is[d] != d + 2 || dn->os[d] != d + 2)
			return 0;
	return 1;
}

/* the spatial input offset of every (kernel position, output position),
 * -1 for padding */
static int64_t *
offsets(const Conv *cv)
{
	int64_t *t = xmalloc(sizeof *t * (cv->nKS * cv->nOS + 1));
	int64_t ki[MAXR], oi[MAXR], kk, r;

	memset(ki, 0, sizeof ki);
	kk = 0;
	do {
		memset(oi, 0, sizeof oi);
		r = 0;
		do {
			t[kk * cv->nOS + r++] = inoffset(cv, oi, ki);
		} while (hlo_index_next(oi, cv->OS, cv->dn.ns));
		kk++;
	} while (hlo_index_next(ki, cv->KS, cv->dn.ns));
	return t;
}

static void
col_row(const int64_t *t, const float *x, float *row, int64_t n)
{
	int64_t j;

	for (j = 0; j < n; j++)
		row[j] = t[j] < 0 ? 0 : x[t[j]];
}

/* batch and feature leading: per batch element and group, [out][in x
 * window] x [in x window][positions]; the (group, batch) pairs are split
 * over threads, each with its own im2col buffer and a one-thread GEMM */
typedef struct {
	const Conv *cv;
	const float *X, *W;
	float *O;
	const int64_t *tab;
	float *col[EV_MAX_THREADS];
	int64_t chunk;
	int threads;		/* for each GEMM */
} Lead;

static void
lead_part(void *ctx, int part, int64_t lo, int64_t hi)
{
	const Lead *l = ctx;
	const Conv *cv = l->cv;
	int64_t Kd = cv->Cig * cv->nKS, t, b, q, ib, c0, ci, kk, c1, cw;
	float *col = l->col[part];

	for (t = lo; t < hi; t++) {
		const float *xb, *wq;
		float *ob;

		q = t / cv->Bo;
		b = t % cv->Bo;
		ob = l->O + (b * cv->Co + q * cv->Coq) * cv->nOS;
		wq = l->W + q * cv->Coq * Kd;
		ib = b + (cv->bgc > 1 ? q * cv->Bo : 0);
		c0 = cv->fgc > 1 ? q * cv->Cig : 0;
		xb = l->X + (ib * cv->C + c0) * cv->nS;
		if (!l->tab) {
			ev_sgemm(0, 0, cv->Coq, cv->nOS, cv->Cig, wq, Kd, xb,
				cv->nS, ob, cv->nOS, 0, l->threads);
			continue;
		}
		for (c1 = 0; c1 < cv->nOS; c1 += cw) {
			cw = cv->nOS - c1 < l->chunk ? cv->nOS - c1 : l->chunk;
			for (ci = 0; ci < cv->Cig; ci++)
				for (kk = 0; kk < cv->nKS; kk++)
					col_row(l->tab + kk * cv->nOS + c1,
						xb + ci * cv->nS,
						col + (ci * cv->nKS + kk) * cw,
						cw);
			ev_sgemm(0, 0, cv->Coq, cw, Kd, wq, Kd, col, cw,
				ob + c1, cv->nOS, 0, l->threads);
		}
	}
}

static int
leading_conv(HloEval *ev, const Conv *cv, const float *X, const float *W,
	float *O)
{
	int64_t Kd = cv->Cig * cv->nKS, n = cv->G * cv->Bo, per, grain;
	int64_t *tab = NULL;
	uint64_t cb = 0;
	int parts, k, rc = -1;
	double t0;
	Lead l;

	memset(&l, 0, sizeof l);
	l.cv = cv;
	l.X = X;
	l.W = W;
	l.O = O;
	per = cv->Coq * cv->nOS * (Kd ? Kd : 1);
	grain = (1 << 18) / per + 1;
	if (n < ev->threads) {
		/* fewer products than threads: one at a time, threaded */
		grain = n + 1;
		l.threads = ev->threads;
	} else {
		l.threads = 1;
	}
	parts = ev_par_parts(ev, n, grain);
	if (!pointwise(cv)) {
		l.chunk = Kd ? IM2COL_BYTES / 4 / Kd : cv->nOS;
		if (l.chunk < 64)
			l.chunk = 64;
		if (l.chunk > cv->nOS)
			l.chunk = cv->nOS;
		cb = (uint64_t)Kd * l.chunk * 4;
		for (k = 0; k < parts; k++)
			if (!(l.col[k] = ev_scratch(ev, cb + 4)))
				goto out;
		l.tab = tab = offsets(cv);
	}
	t0 = hlo_now();
	ev_par(ev, n, grain, lead_part, &l);
	ev->gemm_secs += hlo_now() - t0;
	ev->flops += 2 * (uint64_t)n * cv->Coq * cv->nOS * Kd;
	rc = 0;
out:
	free(tab);
	for (k = 0; k < parts; k++)
		ev_scratch_free(ev, l.col[k], cb + 4);
	return rc;
}

/* f32 data of v in its own layout (converted if need be) */
static const float *
as_f32(HloEval *ev, HloVal *v, int *own, uint64_t *bytes)
{
	static const int64_t ident[MAXR] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
		10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
		25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39,
		40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54,
		55, 56, 57, 58, 59, 60, 61, 62, 63};

	return ev_pack(ev, v, ident, NULL, CK_F32, own, bytes);
}

static int
isf(int t)
{
	return t == TY_F32 || t == TY_BF16 || t == TY_F16;
}

/* 1 done, 0 no fast path fits, -1 error */
static int
fast_conv(HloEval *ev, const HloInstr *in, Conv *cv, HloVal **ops,
	HloVal *v)
{
	Direct d;
	const float *X = NULL, *K = NULL;
	float *O;
	int ox = 0, ok = 0, path, rc = -1;
	uint64_t bx = 0, bk = 0, bo = 0;
	int64_t kp[MAXR];
	double t0;
	int j;

	if (!isf(ops[0]->type) || !isf(ops[1]->type) || !isf(v->type))
		return 0;
	memset(&d, 0, sizeof d);
	d.cv = cv;
	strides(ev, ops[0]->shape, cv->dn.ib, cv->dn.iff, cv->dn.is,
		cv->dn.ns, &d.xs);
	strides(ev, ops[1]->shape, cv->dn.ki, cv->dn.ko, cv->dn.ks,
		cv->dn.ns, &d.ks);
	strides(ev, in->shape, cv->dn.ob, cv->dn.of, cv->dn.os, cv->dn.ns,
		&d.os);
	if (direct_fits(cv))
		path = 0;
	else if (whole_fits(cv, &d.xs, &d.ks, &d.os))
		path = 1;
	else if (leading(&cv->dn) && cv->nKS * cv->nOS <= ((int64_t)1 << 24))
		path = 2;
	else
		return 0;
	X = as_f32(ev, ops[0], &ox, &bx);
	if (!X)
		return -1;
	if (path == 2) {
		kp[0] = cv->dn.ko;
		kp[1] = cv->dn.ki;
		for (j = 0; j < cv->dn.ns; j++)
			kp[2 + j] = cv->dn.ks[j];
		{
			uint8_t rev[MAXR];

			memset(rev, 0, sizeof rev);
			for (j = 0; j < cv->dn.ns; j++)
				rev[2 + j] = cv->w[j].rev != 0;
			K = ev_pack(ev, ops[1], kp, rev, CK_F32, &ok, &bk);
		}
	} else {
		K = as_f32(ev, ops[1], &ok, &bk);
	}
	if (!K)
		goto done;
	if (v->type == TY_F32) {
		O = (float *)v->data;
	} else {
		bo = (uint64_t)v->n * 4;
		O = ev_scratch(ev, bo);
		if (!O)
			goto done;
	}
	d.X = X;
	d.K = K;
	d.O = O;
	d.vec = simd();
	t0 = hlo_now();
	switch (path) {
	case 0:
		direct(ev, &d);
		ev->flops += 2 * (uint64_t)v->n * cv->nKS * cv->Cig;
		ev->gemm_secs += hlo_now() - t0;
		break;
	case 1:
		whole(ev, &d);
		break;
	default:
		if (leading_conv(ev, cv, X, K, O) < 0)
			goto out;
	}
	if (O != (float *)v->data)
		ev_fromck(CK_F32, v->type, O, v->n, v->data);
	rc = 1;
out:
	if (bo)
		ev_scratch_free(ev, O, bo);
done:
	if (ok)
		ev_scratch_free(ev, (void *)K, bk);
	if (ox)
		ev_scratch_free(ev, (void *)X, bx);
	return rc;
}

int
ev_conv(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	Conv cv;
	HloVal *v;
	int r;

	if (in->nops != 2 || ops[0]->type >= TY_TUPLE ||
	    ops[1]->type >= TY_TUPLE ||
	    convsetup(ev, in, ops[0], ops[1], &cv) < 0)
		return ev_unsupported(ev, c, i, "bad convolution dimensions");
	if (hlo_typeinfo[ops[0]->type].cls == C_CPLX ||
	    hlo_typeinfo[ops[1]->type].cls == C_CPLX)
		return ev_unsupported(ev, c, i, "complex convolution");
	if (ev_budget(ev, 2.0 * cv.Bo * cv.Co * cv.nOS * cv.nKS * cv.Cig) < 0)
		return -1;
	v = hlo_val_array(ev, in->shape);
	if (!v)
		return -1;
	if (v->n != cv.Bo * cv.Co * cv.nOS) {
		hlo_val_unref(ev, v);
		return ev_unsupported(ev, c, i, "result shape differs");
	}
	cv.kind = CK_F32;
	cv.esz = 4;
	r = fast_conv(ev, in, &cv, ops, v);
	if (r != 0) {
		if (r < 0) {
			hlo_val_unref(ev, v);
			return -1;
		}
		*out = v;
		return 0;
	}
	hlo_val_unref(ev, v);
	cv.kind = ev_dotkind(ops[0]->type, ops[1]->type,
		hlo_sh(ev->m, in->shape)->type);
	if (cv.kind == CK_I64)
		cv.kind = CK_F64;
	cv.esz = ev_ckbytes[cv.kind];
	return generic_conv(ev, in, cv, ops, out);
}
