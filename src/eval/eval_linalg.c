/* eval_linalg.c: dot, triangular-solve, cholesky and fft, the dispatch
 * of batch norms (eval_bnorm.c), and the packing and GEMM helpers dot
 * and convolution share.
 *
 * dot packs its operands into contiguous row-major matrices of a compute
 * type (f32 for f32 and narrower floats, f64 for f64, c128 for complex,
 * i64 for integers) and multiplies them with GEMM, one call per batch
 * element, using a packed operand as is when it is already in order. */
#include <complex.h>
#include <gsl/gsl_cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "hlo.h"
#include "eval.h"

const int ev_ckbytes[] = {4, 8, 16, 8};

static int
cls(int t)
{
	return hlo_typeinfo[t].cls;
}

/* n elements of type at src into the compute kind at dst */
void
ev_tock(int kind, int type, const void *src, int64_t n, void *dst)
{
	const unsigned char *p = src;
	Lane l[EV_CHUNK];
	int64_t k, j, w, esz = hlo_type_bytes(type);

	switch (kind) {
	case CK_F32:
		ev_to_float(type, src, n, dst);
		return;
	case CK_F64:
		ev_to_double(type, src, n, dst);
		return;
	}
	for (k = 0; k < n; k += w) {
		w = n - k < EV_CHUNK ? n - k : EV_CHUNK;
		ev_lane_load(type, p + k * esz, w, l);
		for (j = 0; j < w; j++) {
			if (kind == CK_C128) {
				double *d = (double *)dst + 2 * (k + j);

				d[0] = cls(type) == C_CPLX ? l[j].c[0] :
					cls(type) == C_FLOAT ? l[j].f :
					cls(type) == C_SINT ? (double)l[j].s :
					(double)l[j].u;
				d[1] = cls(type) == C_CPLX ? l[j].c[1] : 0;
			} else {
				((int64_t *)dst)[k + j] = l[j].s;
			}
		}
	}
}

/* n compute-kind elements into type (rounding as a store does) */
void
ev_fromck(int kind, int type, const void *src, int64_t n, void *dst)
{
	unsigned char *p = dst;
	Lane l[EV_CHUNK];
	int64_t k, j, w, esz = hlo_type_bytes(type);

	if (kind == CK_F32 && cls(type) == C_FLOAT) {
		ev_from_float(type, src, n, dst);
		return;
	}
	if (kind == CK_F64 && type == TY_F64) {
		memcpy(dst, src, n * 8);
		return;
	}
	for (k = 0; k < n; k += w) {
		w = n - k < EV_CHUNK ? n - k : EV_CHUNK;
		for (j = 0; j < w; j++) {
			double re = 0, im = 0;

			switch (kind) {
			case CK_F32: re = ((const float *)src)[k + j]; break;
			case CK_F64: re = ((const double *)src)[k + j]; break;
			case CK_C128:
				re = ((const double *)src)[2 * (k + j)];
				im = ((const double *)src)[2 * (k + j) + 1];
				break;
			}
			switch (cls(type)) {
			case C_FLOAT: l[j].f = re; break;
			case C_CPLX: l[j].c[0] = re; l[j].c[1] = im; break;
			case C_PRED:
				l[j].u = kind == CK_I64 ?
					((const int64_t *)src)[k + j] != 0 :
					re != 0;
				break;
			default:
				l[j].s = kind == CK_I64 ?
					((const int64_t *)src)[k + j] :
					(int64_t)llrint(re);
			}
		}
		ev_lane_store(type, l, w, p + k * esz);
	}
}

/* a contiguous copy of v in compute kind, its dims taken in the order
 * perm (reversed where rev[d]); *own says whether to free it */
void *
ev_pack(HloEval *ev, HloVal *v, const int64_t *perm, const uint8_t *rev,
	int kind, int *own, uint64_t *bytes)
{
	int rank, d, ident = 1;
	const int64_t *dims = ev_dims(ev, v->shape, &rank);
	int64_t str[EV_MAXR], sstr[EV_MAXR], cnt[EV_MAXR], dstr[EV_MAXR], off = 0;
	int64_t esz = ev_esz(v->type);
	unsigned char *tmp, *out;
	int native;

	native = (kind == CK_F32 && v->type == TY_F32) ||
		(kind == CK_F64 && v->type == TY_F64);
	for (d = 0; d < rank; d++)
		if (perm[d] != d || (rev && rev[d]))
			ident = 0;
	*own = 0;
	*bytes = 0;
	if (ident && native)
		return v->data;
	*bytes = (uint64_t)v->n * ev_ckbytes[kind];
	out = ev_scratch(ev, *bytes);
	if (!out)
		return NULL;
	*own = 1;
	if (ident) {
		ev_tock(kind, v->type, v->data, v->n, out);
		return out;
	}
	ev_strides(dims, rank, esz, str);
	for (d = 0; d < rank; d++) {
		cnt[d] = dims[perm[d]];
		sstr[d] = str[perm[d]];
		if (rev && rev[d]) {
			off += (cnt[d] - 1) * sstr[d];
			sstr[d] = -sstr[d];
		}
	}
	if (native) {
		ev_strides(cnt, rank, esz, dstr);
		ev_copy_nd(out, dstr, v->data + off, sstr, cnt, rank, esz);
		return out;
	}
	tmp = ev_scratch(ev, (uint64_t)v->n * esz);
	if (!tmp) {
		ev_scratch_free(ev, out, *bytes);
		return NULL;
	}
	ev_strides(cnt, rank, esz, dstr);
	ev_copy_nd(tmp, dstr, v->data + off, sstr, cnt, rank, esz);
	ev_tock(kind, v->type, tmp, v->n, out);
	ev_scratch_free(ev, tmp, (uint64_t)v->n * esz);
	return out;
}

/* writes a contiguous compute-kind buffer, whose dims are v's taken in
 * the order perm, into v */
int
ev_unpack(HloEval *ev, const void *buf, int kind, HloVal *v,
	const int64_t *perm)
{
	int rank, d, ident = 1;
	const int64_t *dims = ev_dims(ev, v->shape, &rank);
	int64_t str[EV_MAXR], dstr[EV_MAXR], cnt[EV_MAXR], sstr[EV_MAXR];
	int64_t esz = ev_esz(v->type);
	unsigned char *tmp;

	for (d = 0; d < rank; d++)
		if (perm[d] != d)
			ident = 0;
	if (ident) {
		if (buf != v->data)
			ev_fromck(kind, v->type, buf, v->n, v->data);
		return 0;
	}
	tmp = ev_scratch(ev, (uint64_t)v->n * esz);
	if (!tmp)
		return -1;
	ev_fromck(kind, v->type, buf, v->n, tmp);
	ev_strides(dims, rank, esz, str);
	for (d = 0; d < rank; d++) {
		cnt[d] = dims[perm[d]];
		dstr[d] = str[perm[d]];
	}
	ev_strides(cnt, rank, esz, sstr);
	ev_copy_nd(v->data, dstr, tmp, sstr, cnt, rank, esz);
	ev_scratch_free(ev, tmp, (uint64_t)v->n * esz);
	return 0;
}

/* C[m][n] (+)= sum_k A[m][k] B[k][n], in the compute kind */
void
ev_gemm(HloEval *ev, int kind, int64_t M, int64_t N, int64_t K, const void *A,
	int64_t lda, int ta, const void *B, int64_t ldb, int tb, void *C,
	int64_t ldc, int acc)
{
	enum CBLAS_TRANSPOSE tA = ta ? CblasTrans : CblasNoTrans;
	enum CBLAS_TRANSPOSE tB = tb ? CblasTrans : CblasNoTrans;
	double t0 = hlo_now();
	int64_t i, j, k;

	if (M <= 0 || N <= 0)
		return;
	switch (kind) {
	case CK_F32:
		if (K == 0) {
			for (i = 0; i < M && !acc; i++)
				memset((float *)C + i * ldc, 0, N * 4);
			break;
		}
		ev_sgemm(ta, tb, M, N, K, A, lda, B, ldb, C, ldc, acc,
			ev->threads);
		break;
	case CK_F64:
		if (K == 0) {
			for (i = 0; i < M && !acc; i++)
				memset((double *)C + i * ldc, 0, N * 8);
			break;
		}
		cblas_dgemm(CblasRowMajor, tA, tB, M, N, K, 1, A, lda, B, ldb,
			acc ? 1 : 0, C, ldc);
		break;
	case CK_C128: {
		double one[2] = {1, 0}, beta[2] = {acc ? 1 : 0, 0};

		if (K == 0) {
			for (i = 0; i < M && !acc; i++)
				memset((double *)C + 2 * i * ldc, 0, N * 16);
			break;
		}
		cblas_zgemm(CblasRowMajor, tA, tB, M, N, K, one, A, lda, B,
			ldb, beta, C, ldc);
		break;
	}
	default: {
		const uint64_t *a = A, *b = B;
		uint64_t *cc = C, x;

		for (i = 0; i < M; i++) {
			if (!acc)
				memset(cc + i * ldc, 0, N * 8);
			for (k = 0; k < K; k++) {
				x = ta ? a[k * lda + i] : a[i * lda + k];
				for (j = 0; j < N; j++)
					cc[i * ldc + j] += x *
						(tb ? b[j * ldb + k] :
						b[k * ldb + j]);
			}
		}
	}
	}
	ev->flops += 2 * (uint64_t)M * N * (K ? K : 1);
	ev->gemm_secs += hlo_now() - t0;
}

int
ev_dotkind(int a, int b, int r)
{
	if (cls(a) == C_CPLX || cls(b) == C_CPLX || cls(r) == C_CPLX)
		return CK_C128;
	if (a == TY_F64 || b == TY_F64 || r == TY_F64)
		return CK_F64;
	if (cls(a) == C_FLOAT || cls(b) == C_FLOAT || cls(r) == C_FLOAT)
		return CK_F32;
	return CK_I64;
}

int
ev_dotside(const int64_t *dims, int rank, const int64_t *bd, uint32_t nb,
	const int64_t *cd, uint32_t nc, EvDotSide *s)
{
	int d, p = 0, q = 0;
	uint32_t k;

	s->dims = dims;
	s->rank = rank;
	if (s->rank > EV_MAXR)
		return -1;
	s->B = s->M = s->K = 1;
	s->nfree = 0;
	for (k = 0; k < nb; k++) {
		if (bd[k] < 0 || bd[k] >= s->rank || hlo_ints_has(cd, nc, bd[k]))
			return -1;
		s->perm[p++] = s->tperm[q++] = bd[k];
		s->B *= s->dims[bd[k]];
	}
	for (d = 0; d < s->rank; d++) {
		if (hlo_ints_has(bd, nb, d) || hlo_ints_has(cd, nc, d))
			continue;
		s->perm[p++] = d;
		s->freed[s->nfree++] = s->dims[d];
		s->M *= s->dims[d];
	}
	for (k = 0; k < nc; k++) {
		if (cd[k] < 0 || cd[k] >= s->rank)
			return -1;
		s->perm[p++] = cd[k];
		s->tperm[q++] = cd[k];
		s->K *= s->dims[cd[k]];
	}
	for (d = 0; d < s->rank; d++)
		if (!hlo_ints_has(bd, nb, d) && !hlo_ints_has(cd, nc, d))
			s->tperm[q++] = d;
	return p == s->rank ? 0 : -1;
}

int
ev_dot_check(HloEval *ev, uint32_t c, uint32_t i, const int64_t *ldims,
	int lrank, const int64_t *rdims, int rrank, EvDotSide S[2])
{
	const HloModule *m = ev->m;
	const HloInstr *in = hlo_ins(m, c, i);
	const int64_t *lb, *lc, *rb, *rc, *od;
	uint32_t nlb, nlc, nrb, nrc, k;
	int orank, d;

	lb = hlo_attr_list(m, in, A_LHS_BATCH, &nlb);
	lc = hlo_attr_list(m, in, A_LHS_CONTRACT, &nlc);
	rb = hlo_attr_list(m, in, A_RHS_BATCH, &nrb);
	rc = hlo_attr_list(m, in, A_RHS_CONTRACT, &nrc);
	if (nlb != nrb || nlc != nrc ||
	    ev_dotside(ldims, lrank, lb, nlb, lc, nlc, &S[0]) < 0 ||
	    ev_dotside(rdims, rrank, rb, nrb, rc, nrc, &S[1]) < 0)
		return ev_unsupported(ev, c, i, "bad dot dimensions");
	for (k = 0; k < nlb; k++)
		if (ldims[lb[k]] != rdims[rb[k]])
			return ev_unsupported(ev, c, i, "batch sizes differ");
	for (k = 0; k < nlc; k++)
		if (ldims[lc[k]] != rdims[rc[k]])
			return ev_unsupported(ev, c, i, "contracting sizes "
				"differ");
	od = ev_dims(ev, in->shape, &orank);
	if (orank != (int)nlb + S[0].nfree + S[1].nfree)
		return ev_unsupported(ev, c, i, "result rank differs");
	for (d = 0; d < (int)nlb; d++)
		if (od[d] != ldims[lb[d]])
			return ev_unsupported(ev, c, i, "result dims differ");
	for (d = 0; d < S[0].nfree; d++)
		if (od[nlb + d] != S[0].freed[d])
			return ev_unsupported(ev, c, i, "result dims differ");
	for (d = 0; d < S[1].nfree; d++)
		if (od[nlb + S[0].nfree + d] != S[1].freed[d])
			return ev_unsupported(ev, c, i, "result dims differ");
	return 0;
}

/* packs a side as [b][m][k] (or [b][k][m] when that is free: *t = 1) */
static void *
packside(HloEval *ev, HloVal *v, const EvDotSide *s, int kind, int *t, int *own,
	uint64_t *bytes)
{
	int native = (kind == CK_F32 && v->type == TY_F32) ||
		(kind == CK_F64 && v->type == TY_F64);

	*t = 0;
	if (native && !hlo_ints_is_iota(s->perm, s->rank) &&
	    hlo_ints_is_iota(s->tperm, s->rank))
		*t = 1;
	return ev_pack(ev, v, *t ? s->tperm : s->perm, NULL, kind, own, bytes);
}

static int
dot(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	const int64_t *ld, *rd;
	EvDotSide S[2];
	const EvDotSide *L = &S[0], *R = &S[1];
	HloVal *v;
	void *A, *B, *C;
	int kind, ta, tb, oa, ob, lr, rr, ocn = 0;
	uint64_t ba, bb, bc = 0;
	int64_t b, lda, ldb;

	if (in->nops > 2)
		return ev_sparse_dot(ev, c, i, ops, out);
	if (in->nops != 2 || ops[0]->type >= TY_TUPLE ||
	    ops[1]->type >= TY_TUPLE)
		return ev_unsupported(ev, c, i, "bad dot dimensions");
	ld = ev_dims(ev, ops[0]->shape, &lr);
	rd = ev_dims(ev, ops[1]->shape, &rr);
	if (ev_dot_check(ev, c, i, ld, lr, rd, rr, S) < 0)
		return -1;
	if (ev_budget(ev, 2.0 * L->B * L->M * R->M * L->K) < 0)
		return -1;
	v = hlo_val_array(ev, in->shape);
	if (!v)
		return -1;
	kind = ev_dotkind(ops[0]->type, ops[1]->type, v->type);
	A = packside(ev, ops[0], L, kind, &ta, &oa, &ba);
	if (!A) {
		hlo_val_unref(ev, v);
		return -1;
	}
	B = packside(ev, ops[1], R, kind, &tb, &ob, &bb);
	if (!B)
		goto fail;
	/* B was packed as [b][n][k]; gemm wants [b][k][n] unless trans */
	tb = !tb;
	if ((kind == CK_F32 && v->type == TY_F32) ||
	    (kind == CK_F64 && v->type == TY_F64)) {
		C = v->data;
	} else {
		bc = (uint64_t)v->n * ev_ckbytes[kind];
		C = ev_scratch(ev, bc);
		if (!C)
			goto fail;
		ocn = 1;
	}
	lda = ta ? L->M : L->K;
	ldb = tb ? R->K : R->M;
	for (b = 0; b < L->B; b++)
		ev_gemm(ev, kind, L->M, R->M, L->K,
			(char *)A + b * L->M * L->K * ev_ckbytes[kind], lda, ta,
			(char *)B + b * R->M * R->K * ev_ckbytes[kind], ldb, tb,
			(char *)C + b * L->M * R->M * ev_ckbytes[kind], R->M, 0);
	if (ocn) {
		ev_fromck(kind, v->type, C, v->n, v->data);
		ev_scratch_free(ev, C, bc);
	}
	if (oa)
		ev_scratch_free(ev, A, ba);
	if (ob)
		ev_scratch_free(ev, B, bb);
	*out = v;
	return 0;
fail:
	if (oa)
		ev_scratch_free(ev, A, ba);
	hlo_val_unref(ev, v);
	return -1;
}

/* the operand as doubles (counted scratch), NULL if not floats of n */
static double *
todouble(HloEval *ev, HloVal *v, int64_t want)
{
	double *p;

	if (v->type >= TY_TUPLE || cls(v->type) != C_FLOAT || v->n != want)
		return NULL;
	p = ev_scratch(ev, (uint64_t)v->n * 8);
	if (p)
		ev_to_double(v->type, v->data, v->n, p);
	return p;
}

/* triangular-solve and cholesky, in double, batched over leading dims */

static int
trisolve(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloModule *m = ev->m;
	const HloInstr *in = hlo_ins(m, c, i);
	int left = hlo_attr_int(m, in, A_LEFT_SIDE, 0) != 0;
	int lower = hlo_attr_int(m, in, A_LOWER, 0) != 0;
	int unit = hlo_attr_int(m, in, A_UNIT_DIAGONAL, 0) != 0;
	int trans = !hlo_attr_is(m, in, A_TRANSPOSE_A, "NO_TRANSPOSE") &&
		hlo_attr(m, in, A_TRANSPOSE_A);
	int ra, rb;
	const int64_t *ad = ev_dims(ev, ops[0]->shape, &ra);
	const int64_t *bd = ev_dims(ev, ops[1]->shape, &rb);
	int64_t M, N, nb, b, n;
	double *A, *B;
	HloVal *v;

	if (ops[0]->type >= TY_TUPLE || ops[1]->type >= TY_TUPLE || ra < 2 ||
	    rb != ra || cls(ops[0]->type) != C_FLOAT ||
	    ops[1]->type != ops[0]->type)
		return ev_unsupported(ev, c, i, "bad operands (complex "
			"triangular-solve is not supported)");
	M = bd[rb - 2];
	N = bd[rb - 1];
	n = ad[ra - 1];
	if (ad[ra - 2] != n || (left ? M : N) != n)
		return ev_unsupported(ev, c, i, "bad operand dims");
	v = hlo_val_array(ev, in->shape);
	if (!v)
		return -1;
	if (ops[1]->n == 0) {	/* b of zero elements: so is x */
		*out = v;
		return 0;
	}
	nb = ops[1]->n / (M * N);
	A = todouble(ev, ops[0], ops[0]->n);
	B = A ? todouble(ev, ops[1], ops[1]->n) : NULL;
	if (!B) {
		if (A)
			ev_scratch_free(ev, A, (uint64_t)ops[0]->n * 8);
		hlo_val_unref(ev, v);
		return -1;
	}
	for (b = 0; b < nb; b++)
		cblas_dtrsm(CblasRowMajor, left ? CblasLeft : CblasRight,
			lower ? CblasLower : CblasUpper,
			trans ? CblasTrans : CblasNoTrans,
			unit ? CblasUnit : CblasNonUnit, M, N, 1,
			A + b * n * n, n, B + b * M * N, N);
	ev_from_double(v->type, B, v->n, v->data);
	ev_scratch_free(ev, A, (uint64_t)ops[0]->n * 8);
	ev_scratch_free(ev, B, (uint64_t)ops[1]->n * 8);
	*out = v;
	return 0;
}

static void
chol1(double *a, int64_t n, int lower)
{
	int64_t i, j, k;
	double s;
	int bad = 0;

	for (j = 0; j < n && !bad; j++) {
		for (i = j; i < n; i++) {
			s = lower ? a[i * n + j] : a[j * n + i];
			for (k = 0; k < j; k++)
				s -= lower ? a[i * n + k] * a[j * n + k] :
					a[k * n + i] * a[k * n + j];
			if (i == j) {
				if (!(s > 0)) {
					bad = 1;
					break;
				}
				s = sqrt(s);
			} else {
				s /= lower ? a[j * n + j] : a[j * n + j];
			}
			if (lower)
				a[i * n + j] = s;
			else
				a[j * n + i] = s;
		}
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (bad)
				a[i * n + j] = NAN;
			else if (lower ? j > i : j < i)
				a[i * n + j] = 0;
}

static int
cholesky(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	int lower = hlo_attr_int(ev->m, in, A_LOWER, 0) != 0, r;
	const int64_t *ad = ev_dims(ev, ops[0]->shape, &r);
	int64_t n, b, nb;
	double *A;
	HloVal *v;

	if (ops[0]->type < TY_TUPLE && cls(ops[0]->type) == C_CPLX)
		return ev_unsupported(ev, c, i, "complex cholesky is not "
			"supported");
	if (ops[0]->type >= TY_TUPLE || r < 2 || cls(ops[0]->type) != C_FLOAT ||
	    ad[r - 1] != ad[r - 2])
		return ev_unsupported(ev, c, i, "bad operand");
	n = ad[r - 1];
	nb = n ? ops[0]->n / (n * n) : 0;
	v = hlo_val_array(ev, in->shape);
	if (!v)
		return -1;
	A = todouble(ev, ops[0], ops[0]->n);
	if (!A && ops[0]->n) {
		hlo_val_unref(ev, v);
		return -1;
	}
	for (b = 0; b < nb; b++)
		chol1(A + b * n * n, n, lower);
	if (A) {
		ev_from_double(v->type, A, v->n, v->data);
		ev_scratch_free(ev, A, (uint64_t)ops[0]->n * 8);
	}
	*out = v;
	return 0;
}

/* fft: a direct DFT along each transformed dimension */

static void
dft_axis(double complex *x, int64_t outer, int64_t n, int64_t inner,
	int inverse, double complex *tmp, const double complex *tw)
{
	int64_t o, k, j, t;
	double complex s;

	for (o = 0; o < outer; o++)
		for (t = 0; t < inner; t++) {
			double complex *p = x + o * n * inner + t;

			for (k = 0; k < n; k++) {
				s = 0;
				for (j = 0; j < n; j++) {
					double complex w = tw[(j * k) % n];

					s += p[j * inner] *
						(inverse ? conj(w) : w);
				}
				tmp[k] = inverse ? s / n : s;
			}
			for (k = 0; k < n; k++)
				p[k * inner] = tmp[k];
		}
}

static int
fftop(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloModule *m = ev->m;
	const HloInstr *in = hlo_ins(m, c, i);
	uint32_t nl, k;
	const int64_t *len = hlo_attr_list(m, in, A_FFT_LENGTH, &nl);
	const char *ty;
	uint32_t nty;
	int kind, r, ro, d;
	const int64_t *xd, *od;
	int64_t full[EV_MAXR], n, outer, inner, tot = 1, j, q, src, last;
	double complex *buf, *tmp, *tw;
	double *dd;
	HloVal *v;
	uint64_t bytes;

	ty = hlo_attr_word(m, in, A_FFT_TYPE, &nty);
	kind = !ty ? -1 : nty == 3 && !memcmp(ty, "FFT", 3) ? 0 :
		nty == 4 && !memcmp(ty, "IFFT", 4) ? 1 :
		nty == 4 && !memcmp(ty, "RFFT", 4) ? 2 :
		nty == 5 && !memcmp(ty, "IRFFT", 5) ? 3 : -1;
	if (kind < 0 || ops[0]->type >= TY_TUPLE)
		return ev_unsupported(ev, c, i, "bad fft_type");
	xd = ev_dims(ev, ops[0]->shape, &r);
	od = ev_dims(ev, in->shape, &ro);
	if (ro != r || nl < 1 || (int)nl > r)
		return ev_unsupported(ev, c, i, "bad fft_length");
	for (d = 0; d < r; d++) {
		full[d] = kind == 3 ? od[d] : xd[d];
		if (d >= r - (int)nl && full[d] != len[d - (r - nl)])
			return ev_unsupported(ev, c, i, "bad fft_length");
		if (d >= r - (int)nl && full[d] > 16384)
			return ev_unsupported(ev, c, i, "fft longer than "
				"16384 (direct DFT)");
		tot *= full[d];
	}
	v = hlo_val_array(ev, in->shape);
	if (!v)
		return -1;
	bytes = (uint64_t)tot * 16;
	buf = ev_scratch(ev, bytes);
	if (!buf) {
		hlo_val_unref(ev, v);
		return -1;
	}
	dd = (double *)buf;
	memset(buf, 0, bytes);
	last = full[r - 1];
	if (kind == 3) {
		/* rebuild the full Hermitian spectrum of the last dim */
		int64_t half = xd[r - 1], rows = tot / (last ? last : 1);
		double *tmpd = ev_scratch(ev, (uint64_t)ops[0]->n * 16);

		if (!tmpd) {
			ev_scratch_free(ev, buf, bytes);
			hlo_val_unref(ev, v);
			return -1;
		}
		ev_tock(CK_C128, ops[0]->type, ops[0]->data, ops[0]->n, tmpd);
		for (q = 0; q < rows; q++)
			for (j = 0; j < last; j++) {
				src = j < half ? j : last - j;
				if (src >= half)
					continue;
				dd[2 * (q * last + j)] =
					tmpd[2 * (q * half + src)];
				dd[2 * (q * last + j) + 1] = (j < half ? 1 :
					-1) * tmpd[2 * (q * half + src) + 1];
			}
		ev_scratch_free(ev, tmpd, (uint64_t)ops[0]->n * 16);
	} else {
		ev_tock(CK_C128, ops[0]->type, ops[0]->data, ops[0]->n, dd);
	}
	n = 1;
	for (d = 0; d < r; d++)
		n = full[d] > n ? full[d] : n;
	tmp = xcalloc(n + 1, sizeof *tmp);
	tw = xcalloc(n + 1, sizeof *tw);
	for (k = 0; k < nl; k++) {
		d = r - nl + k;
		n = full[d];
		for (j = 0; j < n; j++)
			tw[j] = cexp(-2 * M_PI * I * (double)j / n);
		outer = inner = 1;
		for (q = 0; q < r; q++) {
			if (q < d)
				outer *= full[q];
			else if (q > d)
				inner *= full[q];
		}
		if ((double)outer * inner * n * n > 4e9) {
			free(tmp);
			free(tw);
			ev_scratch_free(ev, buf, bytes);
			hlo_val_unref(ev, v);
			return ev_unsupported(ev, c, i, "fft too large for a "
				"direct DFT");
		}
		dft_axis(buf, outer, n, inner, kind == 1 || kind == 3, tmp,
			tw);
	}
	free(tmp);
	free(tw);
	if (kind == 2) {
		int64_t half = od[r - 1], rows = tot / (last ? last : 1);

		for (q = 0; q < rows; q++)
			memmove(buf + q * half, buf + q * last,
				half * sizeof *buf);
		ev_fromck(CK_C128, v->type, buf, v->n, v->data);
	} else {
		ev_fromck(CK_C128, v->type, buf, v->n, v->data);
	}
	ev_scratch_free(ev, buf, bytes);
	*out = v;
	return 0;
}

int
ev_linalg(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops, HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);

	switch (in->op) {
	case HOP_DOT:
		return dot(ev, c, i, ops, out);
	case HOP_CONV:
		return ev_conv(ev, c, i, ops, out);
	case HOP_BNTRAIN: case HOP_BNINFER: case HOP_BNGRAD:
		return ev_batchnorm(ev, c, i, ops, out);
	case HOP_TRISOLVE:
		return in->nops == 2 ? trisolve(ev, c, i, ops, out) :
			ev_unsupported(ev, c, i, "bad operands");
	case HOP_CHOLESKY:
		return in->nops == 1 ? cholesky(ev, c, i, ops, out) :
			ev_unsupported(ev, c, i, "bad operands");
	case HOP_FFT:
		return in->nops == 1 ? fftop(ev, c, i, ops, out) :
			ev_unsupported(ev, c, i, "bad operands");
	}
	return ev_unsupported(ev, c, i, "opcode not supported by the "
		"evaluator");
}
