/* eval_sparse.c: a dot with structured N:M sparsity (sparsity=L.d@N:M,
 * XLA's SparsityDescriptor), which XLA's own evaluator does not run.
 *
 * The sparse operand stores N of every M values along its sparse
 * contracting dimension d; its metadata operand (unsigned, the operand's
 * shape with dimension d packed, InferSparseDotMetadataShape) says
 * which. XLA fixes the metadata's shape but no order of the bits within
 * an element; hlopt reads it plainly: stored element s of a row is in
 * group g = s / N, per = ceil(width / (N * bits)) groups share one
 * metadata element (bits = ceil(log2 M)), and the value's position among
 * its group's M is bit field ((g % per) * N + s % N) * bits of metadata
 * element g / per, lowest bits first. Every rewrite of a sparse dot moves
 * the metadata with its operand, so a verification compares like with
 * like whatever the hardware's order.
 *
 * Each sparse operand is expanded to its dense logical shape in double
 * (its values at their positions, zeros elsewhere; two stored values
 * naming one position add, an index past M names none), the dense ones
 * converted to double, and the product taken with GEMM in double, one
 * call per batch element. Floating-point operands only. */
#include <string.h>

#include "hlo.h"
#include "eval.h"

/* ceil(log2 m) */
static int
log2ceil(int m)
{
	int b = 0;

	while ((1 << b) < m)
		b++;
	return b;
}

/* operand v (dims sd, rank r) under descriptor sp with metadata x into
 * dst, dense over the logical dims ld */
static int
expand(HloEval *ev, HloVal *v, HloVal *x, const HloSparsity *sp,
	const int64_t *ld, double *dst, int64_t nl)
{
	int r, mr, d, p = (int)sp->dim, bits = log2ceil(sp->m), per;
	const int64_t *sd = ev_dims(ev, v->shape, &r);
	const int64_t *md = ev_dims(ev, x->shape, &mr);
	int64_t lstr[EV_MAXR], mstr[EV_MAXR], idx[EV_MAXR] = {0};
	int64_t e, g, s, pos, lo, mo, *mv;
	uint64_t mask = ((uint64_t)1 << bits) - 1, field;
	double *val;

	if (r != mr || r > EV_MAXR || p >= r || bits < 1)
		return -1;
	per = (int)((hlo_type_bytes(x->type) * 8 + sp->n * bits - 1) /
		(sp->n * bits));
	val = ev_scratch(ev, (uint64_t)v->n * 8);
	mv = ev_scratch(ev, (uint64_t)x->n * 8);
	if (!val || !mv) {
		ev_scratch_free(ev, val, val ? (uint64_t)v->n * 8 : 0);
		ev_scratch_free(ev, mv, mv ? (uint64_t)x->n * 8 : 0);
		return -2;
	}
	ev_to_double(v->type, v->data, v->n, val);
	ev_tock(CK_I64, x->type, x->data, x->n, mv);
	ev_strides(ld, r, 1, lstr);
	ev_strides(md, r, 1, mstr);
	memset(dst, 0, (size_t)nl * sizeof *dst);
	for (e = 0; e < v->n; e++) {
		s = idx[p];
		g = s / sp->n;
		field = (uint64_t)((g % per) * sp->n + s % sp->n) * bits;
		lo = mo = 0;
		for (d = 0; d < r; d++)
			if (d != p) {
				lo += idx[d] * lstr[d];
				mo += idx[d] * mstr[d];
			}
		pos = field + bits <= 64 && g / per < md[p] ?
			(int64_t)(((uint64_t)mv[mo + g / per * mstr[p]] >>
			field) & mask) : sp->m;
		if (pos < sp->m && g * sp->m + pos < ld[p])
			dst[lo + (g * sp->m + pos) * lstr[p]] += val[e];
		for (d = r - 1; d >= 0 && ++idx[d] == sd[d]; d--)
			idx[d] = 0;
	}
	ev_scratch_free(ev, val, (uint64_t)v->n * 8);
	ev_scratch_free(ev, mv, (uint64_t)x->n * 8);
	return 0;
}

/* side k as dense doubles over ld (its logical dims) into *buf */
static int
dense_side(HloEval *ev, HloVal **ops, const HloSparsity *sp, int ns,
	int k, int64_t *ld, int *rank, double **buf, int64_t *nl)
{
	int r, q, j;
	const int64_t *sd = ev_dims(ev, ops[k]->shape, &r);

	*rank = r;
	if (r > EV_MAXR)
		return -1;
	memcpy(ld, sd, (size_t)r * sizeof *ld);
	for (j = 0; j < ns; j++)
		if (sp[j].index == k && sp[j].dim < r)
			ld[sp[j].dim] = sd[sp[j].dim] * sp[j].m / sp[j].n;
	*nl = 1;
	for (q = 0; q < r; q++)
		*nl *= ld[q];
	*buf = ev_scratch(ev, (uint64_t)*nl * 8);
	if (!*buf)
		return -2;
	for (j = 0; j < ns; j++)
		if (sp[j].index == k)
			return expand(ev, ops[k], ops[2 + j], &sp[j], ld, *buf,
				*nl);
	ev_to_double(ops[k]->type, ops[k]->data, ops[k]->n, *buf);
	return 0;
}

/* buf (dims ld) packed as [b][m][k] by s's permutation */
static double *
pack(HloEval *ev, const double *buf, const int64_t *ld, const EvDotSide *s,
	int64_t n)
{
	int64_t str[EV_MAXR], sstr[EV_MAXR], cnt[EV_MAXR], dstr[EV_MAXR];
	double *out = ev_scratch(ev, (uint64_t)n * 8);
	int d;

	if (!out)
		return NULL;
	ev_strides(ld, s->rank, 8, str);
	for (d = 0; d < s->rank; d++) {
		cnt[d] = ld[s->perm[d]];
		sstr[d] = str[s->perm[d]];
	}
	ev_strides(cnt, s->rank, 8, dstr);
	ev_copy_nd((unsigned char *)out, dstr, (const unsigned char *)buf,
		sstr, cnt, s->rank, 8);
	return out;
}

int
ev_sparse_dot(HloEval *ev, uint32_t c, uint32_t i, HloVal **ops,
	HloVal **out)
{
	const HloModule *m = ev->m;
	const HloInstr *in = hlo_ins(m, c, i);
	HloSparsity sp[2];
	int ns = hlo_dot_sparsity(m, in, sp), k, rc = -1, err, r[2];
	int64_t ld[2][EV_MAXR], nl[2] = {0, 0};
	double *buf[2] = {NULL, NULL}, *pk[2] = {NULL, NULL}, *C = NULL;
	EvDotSide S[2];
	HloVal *v = NULL;
	uint64_t bc = 0;
	int64_t b;

	if (ns < 1 || in->nops != 2 + (uint32_t)ns)
		return ev_unsupported(ev, c, i, "bad sparsity descriptors");
	for (k = 0; k < 2 + ns; k++)
		if (ops[k]->type >= TY_TUPLE)
			return ev_unsupported(ev, c, i, "bad dot operands");
	for (k = 0; k < 2; k++)
		if (hlo_typeinfo[ops[k]->type].cls != C_FLOAT)
			return ev_unsupported(ev, c, i, "a sparse dot of "
				"other than real floats is not evaluable");
	for (k = 0; k < 2; k++) {
		err = dense_side(ev, ops, sp, ns, k, ld[k], &r[k], &buf[k],
			&nl[k]);
		if (err == -1)
			rc = ev_unsupported(ev, c, i, "bad sparse operand");
		if (err)
			goto done;
	}
	if (ev_dot_check(ev, c, i, ld[0], r[0], ld[1], r[1], S) < 0)
		goto done;
	if (ev_budget(ev, 2.0 * S[0].B * S[0].M * S[1].M * S[0].K) < 0)
		goto done;
	for (k = 0; k < 2; k++)
		if (!(pk[k] = pack(ev, buf[k], ld[k], &S[k], nl[k])))
			goto done;
	v = hlo_val_array(ev, in->shape);
	if (!v || !(C = ev_scratch(ev, bc = (uint64_t)v->n * 8)))
		goto done;
	for (b = 0; b < S[0].B; b++)
		ev_gemm(ev, CK_F64, S[0].M, S[1].M, S[0].K,
			pk[0] + b * S[0].M * S[0].K, S[0].K, 0,
			pk[1] + b * S[1].M * S[1].K, S[1].K, 1,
			C + b * S[0].M * S[1].M, S[1].M, 0);
	ev_fromck(CK_F64, v->type, C, v->n, v->data);
	*out = v;
	v = NULL;
	rc = 0;
done:
	ev_scratch_free(ev, C, bc);
	for (k = 0; k < 2; k++) {
		ev_scratch_free(ev, buf[k], buf[k] ? (uint64_t)nl[k] * 8 : 0);
		ev_scratch_free(ev, pk[k], pk[k] ? (uint64_t)nl[k] * 8 : 0);
	}
	if (v)
		hlo_val_unref(ev, v);
	return rc;
}
