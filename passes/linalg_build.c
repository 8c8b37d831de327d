/* linalg_build.c: XlaBuilder's ops and lib/ helpers as the linear-algebra
 * expanders use them (linalg_build.h), on build.h's builder. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "build.h"
#include "linalg_build.h"

int
pass_la_real_type(int type)
{
	return type == TY_C64 ? TY_F32 : type == TY_C128 ? TY_F64 : type;
}

/* name if unused, else a fresh name.N (hlo_fresh_name) */
static uint32_t
fresh(HloModule *m, const char *name)
{
	uint32_t id = hlo_str_new(m, name, strlen(name));

	return id != HLO_NONE ? id : hlo_fresh_name(m, name);
}

const HloShape *
pass_la_operand(PassEdit *ed, uint32_t i, uint32_t k)
{
	const HloShape *a = hlo_sh(ed->m, pass_b_shape(ed, pass_opnd(ed, i,
		k)));
	int cls;

	if (a->type >= TY_TUPLE || a->rank < 2 || a->rank >= PASS_LA_MAXR ||
	    a->dynmask)
		return NULL;
	cls = hlo_typeinfo[a->type].cls;
	return cls == C_FLOAT || cls == C_CPLX ? a : NULL;
}

uint32_t
pass_la_comp(HloModule *m, const char *name)
{
	return hlo_comp_add(m, fresh(m, name));
}

uint32_t
pass_la_param(PassEdit *b, int64_t num, uint32_t shape, const char *name)
{
	return pass_b_param(b, num, shape, fresh(b->m, name));
}

static void
set_ints(PassEdit *b, uint32_t i, int key, const int64_t *v, uint32_t n)
{
	HloAttr a = hlo_mk_ints(b->m, key, v, n);

	hlo_attr_set(b->m, b->c, i, &a);
}

static void
set_raw(PassEdit *b, uint32_t i, int key, int kind, const char *s)
{
	HloAttr a = hlo_mk_bytes(b->m, key, kind, s, (uint32_t)strlen(s));

	hlo_attr_set(b->m, b->c, i, &a);
}

uint32_t
pass_la_iota(PassEdit *b, int type, int64_t n)
{
	return pass_b_iota(b, pass_b_array(b->m, type, 1, &n), 0);
}

uint32_t
pass_la_in_dim_bcast(PassEdit *b, uint32_t x, int rank, const int64_t *dims,
	const int64_t *bdims)
{
	int64_t d[PASS_LA_MAXR];
	int xr = pass_b_dims(b, x, d);

	return pass_b_bcast(b, x, pass_b_array(b->m, pass_b_type(b, x), rank,
		dims), (uint32_t)xr, bdims);
}

/* AddBroadcastSequence: x (scalar, or of rank `rank` with 1s where dims
 * differ) to dims */
static uint32_t
bcast_seq(PassEdit *b, uint32_t x, int rank, const int64_t *dims)
{
	int64_t d[PASS_LA_MAXR], rd[PASS_LA_MAXR], bd[PASS_LA_MAXR];
	int xr = pass_b_dims(b, x, d), k, n = 0;

	if (xr == 0)
		return pass_la_in_dim_bcast(b, x, rank, dims, NULL);
	for (k = 0; k < xr; k++)
		if (d[k] == dims[k]) {
			bd[n] = k;
			rd[n++] = d[k];
		}
	x = pass_b_reshape(b, x, n, rd);
	return pass_la_in_dim_bcast(b, x, rank, dims, bd);
}

uint32_t
pass_la_bcast_in_dim(PassEdit *b, uint32_t x, int rank, const int64_t *dims,
	const int64_t *bdims)
{
	int64_t d[PASS_LA_MAXR], in[PASS_LA_MAXR];
	int xr = pass_b_dims(b, x, d), k;

	memcpy(in, dims, rank * sizeof *in);
	for (k = 0; k < xr; k++)
		in[bdims[k]] = d[k];
	x = pass_la_in_dim_bcast(b, x, rank, in, bdims);
	if (!memcmp(in, dims, rank * sizeof *in))
		return x;
	return bcast_seq(b, x, rank, dims);
}

uint32_t
pass_la_transpose_minor(PassEdit *b, uint32_t x)
{
	int64_t d[PASS_LA_MAXR], p[PASS_LA_MAXR];
	int r = pass_b_dims(b, x, d), k;

	for (k = 0; k < r; k++)
		p[k] = k;
	p[r - 2] = r - 1;
	p[r - 1] = r - 2;
	return pass_b_transpose(b, x, r, p);
}

uint32_t
pass_la_slice_minor(PassEdit *b, uint32_t x, int n, const int64_t *start,
	const int64_t *end)
{
	int64_t d[PASS_LA_MAXR], st[PASS_LA_MAXR], lim[PASS_LA_MAXR];
	int r = pass_b_dims(b, x, d), k;

	for (k = 0; k < r - n; k++) {
		st[k] = 0;
		lim[k] = d[k];
	}
	memcpy(st + r - n, start, n * sizeof *st);
	memcpy(lim + r - n, end, n * sizeof *lim);
	return pass_b_slice(b, x, st, lim, NULL);
}

uint32_t
pass_la_ds(PassEdit *b, uint32_t x, const uint32_t *idx, const int64_t *sizes)
{
	int64_t d[PASS_LA_MAXR];
	int r = pass_b_dims(b, x, d);
	uint32_t o[PASS_LA_MAXR + 1], i;

	o[0] = x;
	memcpy(o + 1, idx, r * sizeof *o);
	i = pass_b_op(b, HOP_DYNSLICE, pass_b_array(b->m, pass_b_type(b,
		x), r, sizes), (uint32_t)r + 1, o);
	set_ints(b, i, A_DYN_SLICE_SIZES, sizes, (uint32_t)r);
	return i;
}

/* the start indices of x's minor-dims slice at idx (n of them): zeros
 * (one shared s32 constant) before idx; d gets x's dims, returns the rank */
static int
minor_starts(PassEdit *b, uint32_t x, int n, const uint32_t *idx,
	uint32_t *o, int64_t *d)
{
	int r = pass_b_dims(b, x, d), k;
	uint32_t zero = pass_b_scalar(b, TY_S32, 0);

	for (k = 0; k < r - n; k++)
		o[k] = zero;
	memcpy(o + r - n, idx, n * sizeof *o);
	return r;
}

uint32_t
pass_la_ds_minor(PassEdit *b, uint32_t x, int n, const uint32_t *idx,
	const int64_t *sizes)
{
	int64_t d[PASS_LA_MAXR];
	uint32_t o[PASS_LA_MAXR];
	int r = minor_starts(b, x, n, idx, o, d);

	memcpy(d + r - n, sizes, n * sizeof *d);
	return pass_la_ds(b, x, o, d);
}

uint32_t
pass_la_dus(PassEdit *b, uint32_t x, uint32_t u, const uint32_t *idx)
{
	int64_t d[PASS_LA_MAXR];
	int r = pass_b_dims(b, x, d);
	uint32_t o[PASS_LA_MAXR + 2];

	o[0] = x;
	o[1] = u;
	memcpy(o + 2, idx, r * sizeof *o);
	return pass_b_op(b, HOP_DYNUPDSLICE, pass_b_plain(b, x, pass_b_type(b,
		x)), (uint32_t)r + 2, o);
}

uint32_t
pass_la_update_minor(PassEdit *b, uint32_t x, uint32_t u, int n,
	const int64_t *start)
{
	int64_t d[PASS_LA_MAXR];
	int r = pass_b_dims(b, x, d), k;
	uint32_t o[PASS_LA_MAXR];

	for (k = 0; k < r; k++)
		o[k] = pass_b_scalar(b, TY_S32, k < r - n ? 0 :
			(double)start[k - (r - n)]);
	return pass_la_dus(b, x, u, o);
}

uint32_t
pass_la_dus_minor(PassEdit *b, uint32_t x, uint32_t u, int n,
	const uint32_t *idx)
{
	int64_t d[PASS_LA_MAXR];
	uint32_t o[PASS_LA_MAXR];

	minor_starts(b, x, n, idx, o, d);
	return pass_la_dus(b, x, u, o);
}

uint32_t
pass_la_pad(PassEdit *b, uint32_t x, uint32_t v, const int64_t *cfg)
{
	int64_t d[PASS_LA_MAXR];
	int r = pass_b_dims(b, x, d), k;
	uint32_t o[2] = {x, v}, i;
	HloAttr a;

	for (k = 0; k < r; k++)
		d[k] += cfg[3 * k] + cfg[3 * k + 1] + (d[k] ? (d[k] - 1) *
			cfg[3 * k + 2] : 0);
	i = pass_b_op(b, HOP_PAD, pass_b_array(b->m, pass_b_type(b, x), r,
		d), 2, o);
	a = hlo_mk_ints(b->m, A_PADDING, cfg, 3 * r);
	a.kind = K_PAD;
	hlo_attr_set(b->m, b->c, i, &a);
	return i;
}

/* XlaBuilder::BinaryOp's shapes and broadcasts; the operation's element
 * type is type (-1: x's) */
static uint32_t
binop(PassEdit *b, int op, int type, uint32_t x, uint32_t y, int n,
	const int64_t *bd)
{
	int64_t xd[PASS_LA_MAXR], yd[PASS_LA_MAXR], od[PASS_LA_MAXR];
	int64_t to[PASS_LA_MAXR];
	int xr = pass_b_dims(b, x, xd), yr = pass_b_dims(b, y, yd), r, k;
	uint32_t o[2];

	r = xr > yr ? xr : yr;
	if (xr == yr)
		for (k = 0; k < r; k++)
			od[k] = xd[k] == 1 ? yd[k] : xd[k];
	else
		memcpy(od, xr > yr ? xd : yd, r * sizeof *od);
	if (n && xr != yr) {
		int lx = xr < yr;
		const int64_t *fd = lx ? xd : yd;

		memcpy(to, od, r * sizeof *to);
		for (k = 0; k < (lx ? xr : yr); k++)
			to[bd[k]] = fd[k];
		if (lx)
			x = pass_la_in_dim_bcast(b, x, r, to, bd);
		else
			y = pass_la_in_dim_bcast(b, y, r, to, bd);
		xr = pass_b_dims(b, x, xd);
		yr = pass_b_dims(b, y, yd);
		for (k = 0; k < r; k++)	/* then degenerate dims broadcast */
			od[k] = xd[k] == 1 ? yd[k] : xd[k];
	}
	if (xr != r || memcmp(xd, od, r * sizeof *od))
		x = bcast_seq(b, x, r, od);
	if (yr != r || memcmp(yd, od, r * sizeof *od))
		y = bcast_seq(b, y, r, od);
	o[0] = x;
	o[1] = y;
	return pass_b_op(b, op, pass_b_array(b->m, type < 0 ?
		pass_b_type(b, x) : type, r, od), 2, o);
}

uint32_t
pass_la_bin(PassEdit *b, int op, uint32_t x, uint32_t y, int n,
	const int64_t *bd)
{
	return binop(b, op, -1, x, y, n, bd);
}

uint32_t
pass_la_cmp(PassEdit *b, uint32_t x, uint32_t y, const char *dir, int n,
	const int64_t *bd)
{
	uint32_t i = binop(b, HOP_COMPARE, TY_PRED, x, y, n, bd);

	set_raw(b, i, A_DIRECTION, K_WORD, dir);
	return i;
}

uint32_t
pass_la_unary(PassEdit *b, int op, uint32_t x)
{
	int t = pass_b_type(b, x);

	if (op == HOP_REAL || op == HOP_IMAG)
		t = pass_la_real_type(t);
	return pass_b_op(b, op, pass_b_plain(b, x, t), 1, &x);
}

uint32_t
pass_la_complex(PassEdit *b, uint32_t re, uint32_t im)
{
	uint32_t o[2] = {re, im};
	int t = pass_b_type(b, re) == TY_F64 ? TY_C128 : TY_C64;

	return pass_b_op(b, HOP_COMPLEX, pass_b_plain(b, re, t), 2, o);
}

/* TernaryOp's implicit broadcast: scalars among non-scalars are
 * broadcast to the dims of the first non-scalar */
uint32_t
pass_la_select(PassEdit *b, uint32_t p, uint32_t x, uint32_t y)
{
	uint32_t o[3] = {p, x, y}, k, big = HLO_NONE;
	int64_t d[PASS_LA_MAXR];
	int r = 0;

	for (k = 0; k < 3 && big == HLO_NONE; k++)
		if ((r = pass_b_dims(b, o[k], d)) > 0)
			big = o[k];
	for (k = 0; big != HLO_NONE && k < 3; k++)
		if (hlo_sh(b->m, pass_b_shape(b, o[k]))->rank == 0)
			o[k] = pass_b_broadcast(b, o[k], r, d);
	return pass_b_op(b, HOP_SELECT, pass_b_plain(b, o[1],
		pass_b_type(b, o[1])), 3, o);
}

uint32_t
pass_la_zeros(PassEdit *b, int type, int rank, const int64_t *d)
{
	return pass_b_broadcast(b, pass_b_scalar(b, type, 0), rank, d);
}

uint32_t
pass_la_full_like(PassEdit *b, uint32_t x, double v)
{
	int64_t d[PASS_LA_MAXR];
	int r = pass_b_dims(b, x, d);

	return pass_b_broadcast(b, pass_b_scalar(b, pass_b_type(b, x), v), r,
		d);
}

uint32_t
pass_la_conj(PassEdit *b, uint32_t x, int conjugate)
{
	uint32_t re, im;

	if (!conjugate || hlo_typeinfo[pass_b_type(b, x)].cls != C_CPLX)
		return x;
	re = pass_la_unary(b, HOP_REAL, x);
	im = pass_la_unary(b, HOP_IMAG, x);
	return pass_la_complex(b, re, pass_la_unary(b, HOP_NEGATE, im));
}

uint32_t
pass_la_is_nan(PassEdit *b, uint32_t x)
{
	return pass_la_cmp(b, x, x, "NE", 0, NULL);
}

uint32_t
pass_la_identity(PassEdit *b, int type, int64_t m, int64_t n)
{
	uint32_t x = pass_la_iota(b, TY_U32, m), y = pass_la_iota(b, TY_U32, n);
	int64_t zero = 0;

	y = pass_b_broadcast(b, y, 1, &m);
	return pass_b_xconvert(b, HOP_CONVERT, pass_la_cmp(b, x, y, "EQ", 1,
		&zero), type);
}

uint32_t
pass_la_triangle_mask(PassEdit *b, uint32_t x, int64_t diagonal)
{
	int64_t d[PASS_LA_MAXR], zero = 0;
	int r = pass_b_dims(b, x, d);
	uint32_t ia = pass_la_iota(b, TY_S32, d[r - 1]), ib;

	ib = pass_la_iota(b, TY_S32, d[r - 2]);
	ib = pass_la_bin(b, HOP_ADD, ib, pass_b_scalar(b, TY_S32,
		(double)diagonal), 0, NULL);
	ia = pass_b_broadcast(b, ia, 1, &d[r - 2]);
	return pass_b_broadcast(b, pass_la_cmp(b, ib, ia, "GE", 1, &zero),
		r - 2, d);
}

uint32_t
pass_la_triangle(PassEdit *b, uint32_t x, int lower)
{
	uint32_t mask;

	if (lower) {
		mask = pass_la_triangle_mask(b, x, 0);
		return pass_la_select(b, mask, x, pass_la_full_like(b, x, 0));
	}
	mask = pass_la_triangle_mask(b, x, -1);
	return pass_la_select(b, mask, pass_la_full_like(b, x, 0), x);
}

uint32_t
pass_la_dot(PassEdit *b, uint32_t x, uint32_t y, int nbatch, int64_t lc,
	int64_t rc, int grads)
{
	int64_t xd[PASS_LA_MAXR], yd[PASS_LA_MAXR], od[PASS_LA_MAXR];
	int64_t bat[PASS_LA_MAXR];
	int xr = pass_b_dims(b, x, xd), yr = pass_b_dims(b, y, yd), k, n = 0;
	uint32_t o[2] = {x, y}, i;

	for (k = 0; k < nbatch; k++) {
		bat[k] = k;
		od[n++] = xd[k];
	}
	for (k = nbatch; k < xr; k++)
		if (k != lc)
			od[n++] = xd[k];
	for (k = nbatch; k < yr; k++)
		if (k != rc)
			od[n++] = yd[k];
	i = pass_b_op(b, HOP_DOT, pass_b_array(b->m, pass_b_type(b, x), n,
		od), 2, o);
	if (nbatch) {
		set_ints(b, i, A_LHS_BATCH, bat, (uint32_t)nbatch);
		set_ints(b, i, A_RHS_BATCH, bat, (uint32_t)nbatch);
	}
	set_ints(b, i, A_LHS_CONTRACT, &lc, 1);
	set_ints(b, i, A_RHS_CONTRACT, &rc, 1);
	set_raw(b, i, A_OPERAND_PRECISION, K_RAW, "{highest,highest}");
	if (grads)
		set_raw(b, i, A_FRONTEND_ATTRIBUTES, K_RAW,
			"{grad_x=\"false\",grad_y=\"false\"}");
	return i;
}

uint32_t
pass_la_batch_dot(PassEdit *b, uint32_t x, int tx, uint32_t y, int ty)
{
	int64_t d[PASS_LA_MAXR], perm[PASS_LA_MAXR];
	int r = pass_b_dims(b, x, d), k;
	uint32_t dot;

	/* "...mk,...kn->...mn" with m/k and k/n swapped for tx, ty: the
	 * batch dims, m then n, come out in order: an identity transpose */
	dot = pass_la_dot(b, x, y, r - 2, tx ? r - 2 : r - 1, ty ? r - 1 :
		r - 2, 1);
	for (k = 0; k < r; k++)
		perm[k] = k;
	return pass_b_transpose(b, dot, r, perm);
}

uint32_t
pass_la_add_comp(HloModule *m, int type)
{
	char name[32];
	const char *t = hlo_typeinfo[type].name;
	int k;
	PassEdit b;
	uint32_t p[2];

	snprintf(name, sizeof name, "add_");
	for (k = 0; t[k] && k < 16; k++)
		name[4 + k] = (char)(t[k] >= 'a' && t[k] <= 'z' ? t[k] - 'a' +
			'A' : t[k]);
	name[4 + k] = 0;
	pass_b_fresh(&b, m, pass_la_comp(m, name));
	p[0] = pass_la_param(&b, 0, hlo_shape_scalar(m, type), "lhs");
	p[1] = pass_la_param(&b, 1, hlo_shape_scalar(m, type), "rhs");
	pass_b_root(&b, pass_b_op(&b, HOP_ADD, hlo_shape_scalar(m, type), 2,
		p));
	return b.c;
}

uint32_t
pass_la_reduce(PassEdit *b, uint32_t x, uint32_t init, uint32_t comp, int n,
	const int64_t *dims)
{
	int64_t d[PASS_LA_MAXR], od[PASS_LA_MAXR];
	int r = pass_b_dims(b, x, d), k, j, nd = 0;
	uint32_t o[2] = {x, init}, i;

	for (k = 0; k < r; k++) {
		for (j = 0; j < n && dims[j] != k; j++)
			;
		if (j == n)
			od[nd++] = d[k];
	}
	i = pass_b_op(b, HOP_REDUCE, pass_b_array(b->m, pass_b_type(b, x),
		nd, od), 2, o);
	set_ints(b, i, A_DIMENSIONS, dims, (uint32_t)n);
	hlo_set_called(b->m, b->c, i, 1, &comp);
	return i;
}

/* a new computation name+suffix built in lb, of one parameter of tuple
 * shape ls, its n elements read into st */
static void
loop_comp(PassEdit *lb, HloModule *m, const char *name, const char *suffix,
	uint32_t ls, uint32_t n, uint32_t *st)
{
	char buf[256];
	uint32_t p, k;

	snprintf(buf, sizeof buf, "%s%s", name, suffix);
	pass_b_fresh(lb, m, pass_la_comp(m, buf));
	p = pass_la_param(lb, 0, ls, "parameter");
	for (k = 0; k < n; k++)
		st[k] = pass_b_gte(lb, p, k);
}

void
pass_la_for_each(PassEdit *b, int64_t n, uint32_t nvars,
	const uint32_t *init, const char *name, PassLaBodyFn body, void *arg,
	uint32_t *out)
{
	HloModule *m = b->m;
	uint32_t shapes[PASS_LA_MAXV + 1], vals[PASS_LA_MAXV + 1];
	uint32_t st[PASS_LA_MAXV + 1], nx[PASS_LA_MAXV + 1], ls, k, p, w;
	uint32_t called[2];
	PassEdit cb, bb;

	vals[0] = pass_b_scalar(b, TY_S32, 0);
	memcpy(vals + 1, init, nvars * sizeof *init);
	for (k = 0; k <= nvars; k++)
		shapes[k] = pass_b_shape(b, vals[k]);
	ls = hlo_shape_tuple(m, nvars + 1, shapes);

	loop_comp(&cb, m, name, "_condition", ls, nvars + 1, st);
	pass_b_root(&cb, pass_la_cmp(&cb, st[0], pass_b_scalar(&cb, TY_S32,
		(double)n), "LT", 0, NULL));

	loop_comp(&bb, m, name, "_body", ls, nvars + 1, st);
	nx[0] = pass_la_bin(&bb, HOP_ADD, st[0], pass_b_scalar(&bb, TY_S32,
		1), 0, NULL);
	body(&bb, st[0], st + 1, nx + 1, arg);
	pass_b_root(&bb, pass_b_tuple(&bb, nvars + 1, nx));

	w = pass_b_tuple(b, nvars + 1, vals);
	w = pass_b_op(b, HOP_WHILE, ls, 1, &w);
	called[0] = bb.c;
	called[1] = cb.c;
	hlo_set_called(m, b->c, w, 2, called);
	for (k = 0; k <= nvars; k++) {
		p = pass_b_gte(b, w, k);
		if (k)
			out[k - 1] = p;
	}
}
