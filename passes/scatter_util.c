/* scatter_util.c: building blocks of the scatter passes (scatter_util.h),
 * each after the xla helper of hlo_creation_utils.cc or
 * gather_scatter_utils.cc it is named after. */
#include <stdlib.h>
#include <string.h>

#include "scatter_util.h"
#include "wutil.h"

/* attribute key of in copied into dst; -1 if longer than PASS_SX_MAXR */
static int
getlist(const HloModule *m, const HloInstr *in, int key, int64_t *dst,
	uint32_t *n)
{
	return pass_attr_list_copy(m, in, key, PASS_SX_MAXR, dst, n);
}

int
pass_sx_scatter(const HloModule *m, uint32_t c, uint32_t i, PassSxScatter *s)
{
	const HloInstr *in = &m->comps[c].ins[i];
	uint32_t k;

	memset(s, 0, sizeof *s);
	if (in->op != HOP_SCATTER || in->nops < 3 || in->nops % 2 == 0 ||
	    in->ncalled != 1)
		return -1;
	s->n = (in->nops - 1) / 2;
	if (s->n > 32)
		return -1;
	for (k = 0; k < s->n; k++) {
		s->ops[k] = m->ids[in->ops + k];
		s->upd[k] = m->ids[in->ops + s->n + 1 + k];
	}
	s->idx = m->ids[in->ops + s->n];
	if (getlist(m, in, A_UPDATE_WINDOW_DIMS, s->uwd, &s->nuwd) < 0 ||
	    getlist(m, in, A_INSERTED_WINDOW_DIMS, s->iwd, &s->niwd) < 0 ||
	    getlist(m, in, A_SCATTER_DIMS_TO_OPERAND_DIMS, s->sdod,
	    &s->nsdod) < 0 ||
	    getlist(m, in, A_INPUT_BATCHING_DIMS, s->ibd, &s->nibd) < 0 ||
	    getlist(m, in, A_SCATTER_INDICES_BATCHING_DIMS, s->sibd,
	    &s->nsibd) < 0)
		return -1;
	s->ivd = hlo_attr_int(m, in, A_INDEX_VECTOR_DIM, 0);
	s->sorted = hlo_attr_int(m, in, A_INDICES_ARE_SORTED, 0) != 0;
	s->unique = hlo_attr_int(m, in, A_UNIQUE_INDICES, 0) != 0;
	s->comp = m->ids[in->called];
	return s->nibd == s->nsibd ? 0 : -1;
}

int64_t
pass_sx_indices_count(const HloModule *m, uint32_t c, const PassSxScatter *s)
{
	const HloShape *sh = hlo_sh(m, m->comps[c].ins[s->idx].shape);
	int64_t n = 1;
	int d;

	for (d = 0; d < sh->rank; d++)
		if (d != s->ivd)
			n *= hlo_dims(m, sh)[d];
	return n;
}

/* shapes */

uint32_t
pass_sx_shape(const PassSxB *b, uint32_t x)
{
	return b->m->comps[b->c].ins[x].shape;
}

int
pass_sx_rank(const PassSxB *b, uint32_t x)
{
	return hlo_sh(b->m, pass_sx_shape(b, x))->rank;
}

const int64_t *
pass_sx_dims(const PassSxB *b, uint32_t x)
{
	return hlo_dims(b->m, hlo_sh(b->m, pass_sx_shape(b, x)));
}

int
pass_sx_type(const PassSxB *b, uint32_t x)
{
	return hlo_sh(b->m, pass_sx_shape(b, x))->type;
}

static uint32_t
array(HloModule *m, int type, int rank, const int64_t *dims)
{
	return hlo_shape(m, type, rank, dims, NULL, 0, 0);
}

/* instructions */

uint32_t
pass_sx_op(PassSxB *b, int op, uint32_t shape, uint32_t nops,
	const uint32_t *ops)
{
	return wu_add(b->m, b->c, op, shape, nops, ops, b->ed);
}

void
pass_sx_ints(PassSxB *b, uint32_t i, int key, const int64_t *v, uint32_t n)
{
	HloAttr a = hlo_mk_ints(b->m, key, v, n);

	if (key == A_SLICE)
		a.kind = K_SLICE;
	else if (key == A_PADDING)
		a.kind = K_PAD;
	hlo_attr_set(b->m, b->c, i, &a);
}

void
pass_sx_int(PassSxB *b, uint32_t i, int key, int64_t v)
{
	HloAttr a = hlo_mk_int(key, v);

	hlo_attr_set(b->m, b->c, i, &a);
}

uint32_t
pass_sx_const(PassSxB *b, int type, int rank, const int64_t *v, int64_t n)
{
	int sz = hlo_type_bytes(type), j;
	int64_t cnt = rank ? n : 1, k;
	unsigned char *buf = xcalloc((size_t)cnt * sz + 1, 1);
	uint32_t i;
	HloAttr a;

	for (k = 0; k < cnt; k++) {
		uint64_t bits = (uint64_t)v[k];

		if (hlo_typeinfo[type].cls == C_PRED)
			bits = v[k] != 0;
		for (j = 0; j < sz && j < 8; j++)
			buf[k * sz + j] = (unsigned char)(bits >> (8 * j));
	}
	a = hlo_mk_bytes(b->m, A_LITERAL, K_LITERAL, buf, (uint32_t)(cnt * sz));
	free(buf);
	i = pass_sx_op(b, HOP_CONSTANT, array(b->m, type, rank, &n), 0, NULL);
	hlo_set_attrs(b->m, b->c, i, 1, &a);
	return i;
}

uint32_t
pass_sx_reshape(PassSxB *b, uint32_t x, int rank, const int64_t *dims)
{
	return pass_sx_op(b, HOP_RESHAPE, array(b->m, pass_sx_type(b, x),
		rank, dims), 1, &x);
}

uint32_t
pass_sx_transpose(PassSxB *b, uint32_t x, const int64_t *perm)
{
	int64_t d[PASS_SX_MAXR];
	int r = pass_sx_rank(b, x), k;
	uint32_t i;

	for (k = 0; k < r; k++)
		d[k] = pass_sx_dims(b, x)[perm[k]];
	i = pass_sx_op(b, HOP_TRANSPOSE, array(b->m, pass_sx_type(b, x), r, d),
		1, &x);
	pass_sx_ints(b, i, A_DIMENSIONS, perm, r);
	return i;
}

uint32_t
pass_sx_maybe_transpose(PassSxB *b, uint32_t x, const int64_t *perm)
{
	if (hlo_ints_is_iota(perm, (uint32_t)pass_sx_rank(b, x)))
		return x;
	return pass_sx_transpose(b, x, perm);
}

void
pass_sx_window_last(const PassSxScatter *s, int r, int64_t *perm)
{
	int k, j = 0;

	for (k = 0; k < r; k++)
		if (!hlo_ints_has(s->uwd, s->nuwd, k))
			perm[j++] = k;
	for (k = 0; k < (int)s->nuwd; k++)
		perm[j++] = s->uwd[k];
}

uint32_t
pass_sx_slice1(PassSxB *b, uint32_t x, int64_t lo, int64_t hi)
{
	int64_t t[3] = {lo, hi, 1}, n = hi - lo;
	uint32_t i = pass_sx_op(b, HOP_SLICE, array(b->m, pass_sx_type(b, x),
		1, &n), 1, &x);

	pass_sx_ints(b, i, A_SLICE, t, 3);
	return i;
}

uint32_t
pass_sx_bcast(PassSxB *b, uint32_t x, int rank, const int64_t *dims,
	const int64_t *bdims, uint32_t nb)
{
	uint32_t i = pass_sx_op(b, HOP_BROADCAST, array(b->m,
		pass_sx_type(b, x), rank, dims), 1, &x);

	pass_sx_ints(b, i, A_DIMENSIONS, bdims, nb);
	return i;
}

uint32_t
pass_sx_concat(PassSxB *b, const uint32_t *ops, uint32_t n, int64_t dim)
{
	int64_t d[PASS_SX_MAXR];
	int r = pass_sx_rank(b, ops[0]), k;
	uint32_t j, i;

	for (k = 0; k < r; k++)
		d[k] = pass_sx_dims(b, ops[0])[k];
	for (j = 1; j < n; j++)
		d[dim] += pass_sx_dims(b, ops[j])[dim];
	i = pass_sx_op(b, HOP_CONCAT, array(b->m, pass_sx_type(b, ops[0]), r,
		d), n, ops);
	pass_sx_ints(b, i, A_DIMENSIONS, &dim, 1);
	return i;
}

uint32_t
pass_sx_binary(PassSxB *b, int op, uint32_t x, uint32_t y)
{
	uint32_t o[2] = {x, y};

	return pass_sx_op(b, op, hlo_shape_no_layout(b->m, pass_sx_shape(b, x)),
		2, o);
}

uint32_t
pass_sx_compare(PassSxB *b, uint32_t x, uint32_t y, const char *dir)
{
	uint32_t o[2] = {x, y}, i;
	int64_t d[PASS_SX_MAXR];
	int r = pass_sx_rank(b, x);
	HloAttr a;

	/* a copy: hlo_shape grows the pool pass_sx_dims points into */
	memcpy(d, pass_sx_dims(b, x), r * sizeof *d);
	i = pass_sx_op(b, HOP_COMPARE, array(b->m, TY_PRED, r, d), 2, o);
	a = hlo_mk_bytes(b->m, A_DIRECTION, K_WORD, dir, strlen(dir));
	hlo_attr_set(b->m, b->c, i, &a);
	return i;
}

uint32_t
pass_sx_select(PassSxB *b, uint32_t p, uint32_t x, uint32_t y)
{
	uint32_t o[3] = {p, x, y};

	return pass_sx_op(b, HOP_SELECT, hlo_shape_no_layout(b->m,
		pass_sx_shape(b, x)), 3, o);
}

uint32_t
pass_sx_gte(PassSxB *b, uint32_t x, int64_t k)
{
	return wu_gte(b->m, b->c, x, k, b->ed);
}

uint32_t
pass_sx_tuple(PassSxB *b, uint32_t n, const uint32_t *ops)
{
	return wu_tuple(b->m, b->c, n, ops, b->ed);
}

uint32_t
pass_sx_collapse(PassSxB *b, uint32_t x, int n)
{
	int64_t d[PASS_SX_MAXR];
	int r = pass_sx_rank(b, x), k;

	d[0] = 1;
	for (k = 0; k < n; k++)
		d[0] *= pass_sx_dims(b, x)[k];
	for (k = n; k < r; k++)
		d[k - n + 1] = pass_sx_dims(b, x)[k];
	return pass_sx_reshape(b, x, r - n + 1, d);
}

uint32_t
pass_sx_prepend1(PassSxB *b, uint32_t x)
{
	int64_t d[PASS_SX_MAXR + 1];
	int r = pass_sx_rank(b, x), k;

	d[0] = 1;
	for (k = 0; k < r; k++)
		d[k + 1] = pass_sx_dims(b, x)[k];
	return pass_sx_reshape(b, x, r + 1, d);
}

uint32_t
pass_sx_elide0(PassSxB *b, uint32_t x)
{
	int r = pass_sx_rank(b, x);
	int64_t d[PASS_SX_MAXR];

	memcpy(d, pass_sx_dims(b, x) + 1, (r - 1) * sizeof *d);
	return pass_sx_reshape(b, x, r - 1, d);
}

uint32_t
pass_sx_insert1(PassSxB *b, uint32_t x, const int64_t *at, uint32_t n)
{
	int64_t d[2 * PASS_SX_MAXR];
	int r = pass_sx_rank(b, x) + (int)n, k, src = 0;
	uint32_t j = 0;

	for (k = 0; k < r; k++) {
		if (j < n && at[j] == k) {
			d[k] = 1;
			j++;
		} else {
			d[k] = pass_sx_dims(b, x)[src++];
		}
	}
	return pass_sx_reshape(b, x, r, d);
}

uint32_t
pass_sx_pad_vec(PassSxB *b, uint32_t x, int64_t lo, int64_t hi)
{
	int64_t zero = 0, n = pass_sx_dims(b, x)[0] + lo + hi;
	int64_t cfg[3] = {lo, hi, 0};
	uint32_t z = pass_sx_const(b, pass_sx_type(b, x), 0, &zero, 1), o[2];
	uint32_t i;

	o[0] = x;
	o[1] = z;
	i = pass_sx_op(b, HOP_PAD, array(b->m, pass_sx_type(b, x), 1, &n), 2,
		o);
	pass_sx_ints(b, i, A_PADDING, cfg, 3);
	return i;
}

/* the scalar start indices of a vector: a slice and a reshape each */
static void
scalar_starts(PassSxB *b, uint32_t start, uint32_t *out)
{
	int64_t n = pass_sx_dims(b, start)[0], k;

	for (k = 0; k < n; k++)
		out[k] = pass_sx_reshape(b, pass_sx_slice1(b, start, k, k + 1), 0,
			NULL);
}

uint32_t
pass_sx_ds(PassSxB *b, uint32_t x, uint32_t start, const int64_t *sizes)
{
	uint32_t o[PASS_SX_MAXR + 1], i;
	int r = pass_sx_rank(b, x);

	o[0] = x;
	scalar_starts(b, start, o + 1);
	i = pass_sx_op(b, HOP_DYNSLICE, array(b->m, pass_sx_type(b, x), r,
		sizes), 1 + r, o);
	pass_sx_ints(b, i, A_DYN_SLICE_SIZES, sizes, r);
	return i;
}

uint32_t
pass_sx_dus(PassSxB *b, uint32_t x, uint32_t upd, uint32_t start)
{
	uint32_t o[PASS_SX_MAXR + 2];
	int r = pass_sx_rank(b, x);

	o[0] = x;
	o[1] = upd;
	scalar_starts(b, start, o + 2);
	return pass_sx_op(b, HOP_DYNUPDSLICE, pass_sx_shape(b, x), 2 + r, o);
}

/* computations */

uint32_t
pass_sx_comp(HloModule *m, const char *name)
{
	uint32_t s = hlo_find_str(m, name, strlen(name));

	return hlo_comp_add(m, s == HLO_NONE ? hlo_strz(m, name) :
		hlo_fresh_name(m, name));
}

uint32_t
pass_sx_param(HloModule *m, uint32_t c, int64_t num, uint32_t shape,
	const char *name)
{
	uint32_t s = hlo_find_str(m, name, strlen(name));
	uint32_t i = hlo_instr_add(m, c, HOP_PARAMETER, shape, s == HLO_NONE ?
		hlo_strz(m, name) : hlo_fresh_name(m, name), 0, NULL);

	m->comps[c].ins[i].num = num;
	return i;
}

uint32_t
pass_sx_binary_comp(HloModule *m, int op, int type, const char *name)
{
	uint32_t c = pass_sx_comp(m, name), s = hlo_shape_scalar(m, type);
	uint32_t o[2];
	PassSxB b = {m, c, NULL};

	o[0] = pass_sx_param(m, c, 0, s, "lhs");
	o[1] = pass_sx_param(m, c, 1, s, "rhs");
	m->comps[c].root = pass_sx_op(&b, op, s, 2, o);
	return c;
}
