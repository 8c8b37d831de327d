/* build.c: instruction building for the expander passes (build.h) and
 * the OpExpanderPass driver they share. */
#include <stdlib.h>
#include <string.h>

#include "build.h"

static const HloInstr *
ins(PassEdit *ed, uint32_t x)
{
	return &ed->m->comps[ed->c].ins[x];
}

uint32_t
pass_b_op(PassEdit *ed, int op, uint32_t shape, uint32_t nops,
	const uint32_t *ops)
{
	HloModule *m = ed->m;
	uint32_t r[8], *o = nops <= 8 ? r : xreallocarray(NULL, nops,
		sizeof *o), k, i;

	for (k = 0; k < nops; k++)
		o[k] = pass_res(ed, ops[k]);
	i = hlo_instr_add(m, ed->c, op, shape,
		hlo_fresh_name(m, hlo_opinfo[op].name), nops, o);
	if (o != r)
		free(o);
	pass_edit_added(ed, i);
	return i;
}

void
pass_b_fresh(PassEdit *ed, HloModule *m, uint32_t c)
{
	memset(ed, 0, sizeof *ed);
	ed->m = m;
	ed->c = c;
	ed->fresh = 1;
}

uint32_t
pass_b_param(PassEdit *ed, int64_t num, uint32_t shape, uint32_t name)
{
	uint32_t p = hlo_instr_add(ed->m, ed->c, HOP_PARAMETER, shape, name, 0,
		NULL);

	ed->m->comps[ed->c].ins[p].num = num;
	return p;
}

void
pass_b_root(PassEdit *ed, uint32_t x)
{
	ed->m->comps[ed->c].root = x;
}

int
pass_b_dims(PassEdit *ed, uint32_t x, int64_t *d)
{
	const HloShape *sh = hlo_sh(ed->m, pass_b_shape(ed, x));

	memcpy(d, hlo_dims(ed->m, sh), sh->rank * sizeof *d);
	return sh->rank;
}

uint32_t
pass_b_plain(PassEdit *ed, uint32_t x, int type)
{
	return hlo_shape_with_type(ed->m, hlo_shape_no_layout(ed->m,
		pass_b_shape(ed, x)), type);
}

uint32_t
pass_b_shape(PassEdit *ed, uint32_t x)
{
	return ins(ed, pass_res(ed, x))->shape;
}

int
pass_b_type(PassEdit *ed, uint32_t x)
{
	return hlo_sh(ed->m, pass_b_shape(ed, x))->type;
}

uint32_t
pass_b_array(HloModule *m, int type, int rank, const int64_t *dims)
{
	return hlo_shape(m, type, rank, dims, NULL, 0, 0);
}

uint32_t
pass_b_scalar_bits(PassEdit *ed, int type, uint64_t bits)
{
	HloModule *m = ed->m;
	unsigned char buf[16];
	int n = hlo_type_bytes(type), k;
	uint32_t i;
	HloAttr a;

	memset(buf, 0, sizeof buf);
	for (k = 0; k < n && k < 8; k++)
		buf[k] = (unsigned char)(bits >> (8 * k));
	a = hlo_mk_bytes(m, A_LITERAL, K_LITERAL, buf, n);
	i = pass_b_op(ed, HOP_CONSTANT, hlo_shape_scalar(m, type), 0, NULL);
	hlo_set_attrs(m, ed->c, i, 1, &a);
	return i;
}

uint32_t
pass_b_scalar(PassEdit *ed, int type, double v)
{
	const HloTypeInfo *t = &hlo_typeinfo[type];
	uint64_t bits;

	if (t->cls == C_FLOAT)
		bits = hlo_float_encode(type, v);
	else if (t->cls == C_CPLX)
		bits = type == TY_C64 ? hlo_float_encode(TY_F32, v) :
			hlo_float_encode(TY_F64, v);
	else if (t->cls == C_PRED)
		bits = v != 0;
	else if (t->cls == C_UINT)
		bits = (uint64_t)v;
	else
		bits = (uint64_t)(int64_t)v;
	return pass_b_scalar_bits(ed, type, bits);
}

uint32_t
pass_b_bcast(PassEdit *ed, uint32_t x, uint32_t shape, uint32_t ndims,
	const int64_t *dims)
{
	uint32_t i = pass_b_op(ed, HOP_BROADCAST, shape, 1, &x);
	HloAttr a = hlo_mk_ints(ed->m, A_DIMENSIONS, dims, ndims);

	hlo_set_attrs(ed->m, ed->c, i, 1, &a);
	return i;
}

uint32_t
pass_b_like(PassEdit *ed, uint32_t x, double v)
{
	uint32_t s = pass_b_shape(ed, x);
	uint32_t k = pass_b_scalar(ed, hlo_sh(ed->m, s)->type, v);

	if (hlo_sh(ed->m, s)->rank == 0)
		return k;
	return pass_b_bcast(ed, k, s, 0, NULL);
}

uint32_t
pass_b_unary(PassEdit *ed, int op, uint32_t x)
{
	return pass_b_op(ed, op, pass_b_shape(ed, x), 1, &x);
}

uint32_t
pass_b_binary(PassEdit *ed, int op, uint32_t a, uint32_t b)
{
	uint32_t o[2] = {a, b};

	return pass_b_op(ed, op, pass_b_shape(ed, a), 2, o);
}

uint32_t
pass_b_compare(PassEdit *ed, uint32_t a, uint32_t b, const char *dir)
{
	uint32_t o[2] = {a, b}, i;
	HloAttr at;

	i = pass_b_op(ed, HOP_COMPARE, hlo_shape_with_type(ed->m,
		pass_b_shape(ed, a), TY_PRED), 2, o);
	at = hlo_mk_bytes(ed->m, A_DIRECTION, K_WORD, dir, strlen(dir));
	hlo_set_attrs(ed->m, ed->c, i, 1, &at);
	return i;
}

uint32_t
pass_b_select(PassEdit *ed, uint32_t p, uint32_t a, uint32_t b)
{
	uint32_t o[3] = {p, a, b};

	return pass_b_op(ed, HOP_SELECT, pass_b_shape(ed, a), 3, o);
}

uint32_t
pass_b_convert(PassEdit *ed, uint32_t x, int type)
{
	return pass_b_op(ed, HOP_CONVERT, hlo_shape_with_type(ed->m,
		pass_b_shape(ed, x), type), 1, &x);
}

uint32_t
pass_b_bitcast_convert(PassEdit *ed, uint32_t x, int type)
{
	return pass_b_op(ed, HOP_BITCASTCVT, hlo_shape_with_type(ed->m,
		pass_b_shape(ed, x), type), 1, &x);
}

uint32_t
pass_b_xconvert(PassEdit *ed, int op, uint32_t x, int type)
{
	return pass_b_op(ed, op, pass_b_plain(ed, x, type), 1, &x);
}

uint32_t
pass_b_broadcast(PassEdit *ed, uint32_t x, int n, const int64_t *sizes)
{
	int64_t d[64], od[64], bd[64];
	int xr = pass_b_dims(ed, x, d), k;

	if (n)
		memcpy(od, sizes, n * sizeof *od);	/* sizes may be NULL */
	for (k = 0; k < xr; k++) {
		od[n + k] = d[k];
		bd[k] = n + k;
	}
	return pass_b_bcast(ed, x, pass_b_array(ed->m, pass_b_type(ed, x),
		n + xr, od), (uint32_t)xr, bd);
}

uint32_t
pass_b_reshape(PassEdit *ed, uint32_t x, int rank, const int64_t *dims)
{
	return pass_b_op(ed, HOP_RESHAPE, pass_b_array(ed->m,
		pass_b_type(ed, x), rank, dims), 1, &x);
}

uint32_t
pass_b_transpose(PassEdit *ed, uint32_t x, int rank, const int64_t *perm)
{
	HloModule *m = ed->m;
	int64_t d[64];
	const int64_t *xd = hlo_dims(m, hlo_sh(m, pass_b_shape(ed, x)));
	uint32_t i;
	HloAttr a;
	int k;

	for (k = 0; k < rank && k < 64; k++)
		d[k] = xd[perm[k]];
	i = pass_b_op(ed, HOP_TRANSPOSE, pass_b_array(m, pass_b_type(ed, x),
		rank, d), 1, &x);
	a = hlo_mk_ints(m, A_DIMENSIONS, perm, rank);
	hlo_set_attrs(m, ed->c, i, 1, &a);
	return i;
}

uint32_t
pass_b_slice(PassEdit *ed, uint32_t x, const int64_t *start,
	const int64_t *limit, const int64_t *stride)
{
	HloModule *m = ed->m;
	int rank = hlo_sh(m, pass_b_shape(ed, x))->rank, k;
	int64_t d[64], t[3 * 64];
	uint32_t i;
	HloAttr a;

	for (k = 0; k < rank && k < 64; k++) {
		int64_t st = stride ? stride[k] : 1;

		d[k] = (limit[k] - start[k] + st - 1) / st;
		t[3 * k] = start[k];
		t[3 * k + 1] = limit[k];
		t[3 * k + 2] = st;
	}
	i = pass_b_op(ed, HOP_SLICE, pass_b_array(m, pass_b_type(ed, x), rank,
		d), 1, &x);
	a = hlo_mk_ints(m, A_SLICE, t, 3 * rank);
	a.kind = K_SLICE;
	hlo_set_attrs(m, ed->c, i, 1, &a);
	return i;
}

uint32_t
pass_b_concat(PassEdit *ed, uint32_t n, const uint32_t *xs, int64_t dim)
{
	int64_t d[64], e[64];
	int r = pass_b_dims(ed, xs[0], d);
	uint32_t k, i;
	HloAttr a;

	for (k = 1; k < n; k++) {
		pass_b_dims(ed, xs[k], e);
		d[dim] += e[dim];
	}
	i = pass_b_op(ed, HOP_CONCAT, pass_b_array(ed->m, pass_b_type(ed,
		xs[0]), r, d), n, xs);
	a = hlo_mk_ints(ed->m, A_DIMENSIONS, &dim, 1);
	hlo_set_attrs(ed->m, ed->c, i, 1, &a);
	return i;
}

uint32_t
pass_b_tuple(PassEdit *ed, uint32_t n, const uint32_t *xs)
{
	uint32_t s[64], k;

	for (k = 0; k < n; k++)
		s[k] = pass_b_shape(ed, xs[k]);
	return pass_b_op(ed, HOP_TUPLE, hlo_shape_tuple(ed->m, n, s), n, xs);
}

uint32_t
pass_b_set_attrs_like(PassEdit *ed, uint32_t dst, uint32_t src)
{
	HloModule *m = ed->m;
	const HloInstr *s = ins(ed, src);
	uint32_t n = s->nattrs;
	HloAttr *a = xreallocarray(NULL, n + 1, sizeof *a);

	memcpy(a, m->attrv + s->attrs, n * sizeof *a);
	hlo_set_attrs(m, ed->c, dst, n, a);
	free(a);
	return dst;
}

uint8_t *
pass_fusion_comps(const HloModule *m, PassCtx *ctx)
{
	uint8_t *s = pass_skipped_comps(m, 0), *f = pass_alloc(ctx,
		m->ncomps + 1);

	memcpy(f, s, m->ncomps + 1);
	free(s);
	return f;
}

typedef struct {
	PassMatchFn match;
	PassExpandFn expand;
	void *arg;
} Expander;

static int
expand_one(PassEdit *ed, uint32_t x, void *arg)
{
	const Expander *e = arg;
	uint32_t r;

	if (ed->ctl[x] || !e->match(ed, x, e->arg) ||
	    (r = e->expand(ed, x, e->arg)) == HLO_NONE)
		return 0;
	if (r == x)
		ed->changed = 1;
	else
		pass_replace(ed, x, pass_res(ed, r), 0, 0);
	return 1;
}

int
pass_expand(HloModule *m, PassCtx *ctx, PassMatchFn match,
	PassExpandFn expand, void *arg)
{
	Expander e;

	e.match = match;
	e.expand = expand;
	e.arg = arg;
	return pass_visit_instrs(m, ctx, PASS_VISIT_EFFECTS |
		PASS_SKIP_FUSION | PASS_VISIT_UNFORWARDED, expand_one, &e);
}

uint32_t
pass_unique_name(HloModule *m, const char *base)
{
	return hlo_unique_name(m, base);
}

void
pass_shape_name(HloModule *m, uint32_t s, HloBuf *out)
{
	size_t k = out->len;

	hlo_print_shape(m, hlo_shape_no_layout(m, s), out);
	for (; k < out->len; k++) {
		char c = out->buf[k];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
			out->buf[k] = '_';
	}
}

uint32_t
pass_b_scalar_comp(HloModule *m, const char *name, int op, int type,
	const char *lhs, const char *rhs)
{
	uint32_t c = hlo_comp_add(m, pass_unique_name(m, name));
	uint32_t s = hlo_shape_scalar(m, type), p[2], r;

	p[0] = hlo_instr_add(m, c, HOP_PARAMETER, s, pass_unique_name(m, lhs),
		0, NULL);
	m->comps[c].ins[p[0]].num = 0;
	p[1] = hlo_instr_add(m, c, HOP_PARAMETER, s, pass_unique_name(m, rhs),
		0, NULL);
	m->comps[c].ins[p[1]].num = 1;
	r = hlo_instr_add(m, c, op, op == HOP_COMPARE ? hlo_shape_scalar(m,
		TY_PRED) : s, hlo_fresh_name(m, hlo_opinfo[op].name), 2, p);
	m->comps[c].root = r;
	return c;
}

uint32_t
pass_b_reduce(PassEdit *ed, uint32_t x, uint32_t init, uint32_t shape,
	uint32_t ndims, const int64_t *dims, uint32_t comp)
{
	uint32_t o[2] = {x, init}, i = pass_b_op(ed, HOP_REDUCE, shape, 2, o);
	HloAttr a = hlo_mk_ints(ed->m, A_DIMENSIONS, dims, ndims);

	hlo_set_attrs(ed->m, ed->c, i, 1, &a);
	hlo_set_called(ed->m, ed->c, i, 1, &comp);
	return i;
}

uint32_t
pass_b_iota(PassEdit *ed, uint32_t shape, int64_t dim)
{
	uint32_t i = pass_b_op(ed, HOP_IOTA, shape, 0, NULL);
	HloAttr a = hlo_mk_int(A_IOTA_DIM, dim);

	hlo_set_attrs(ed->m, ed->c, i, 1, &a);
	return i;
}

uint32_t
pass_b_gte(PassEdit *ed, uint32_t x, int64_t index)
{
	HloModule *m = ed->m;
	const HloShape *sh = hlo_sh(m, pass_b_shape(ed, x));
	uint32_t i = pass_b_op(ed, HOP_GTE, hlo_tuple_elems(m, sh)[index], 1,
		&x);
	HloAttr a = hlo_mk_int(A_INDEX, index);

	hlo_set_attrs(ed->m, ed->c, i, 1, &a);
	return i;
}

/* the computations an expander built, by key */

void
pass_cache_init(PassCache *cc, uint32_t width)
{
	cc->cap = 16;
	cc->n = 0;
	cc->width = width;
	cc->key = xcalloc((size_t)width * cc->cap, sizeof *cc->key);
	cc->comp = xcalloc(cc->cap, sizeof *cc->comp);
}

void
pass_cache_free(PassCache *cc)
{
	free(cc->key);
	free(cc->comp);
}

static uint32_t
cache_find(const PassCache *cc, const uint32_t *k)
{
	uint32_t h = 0, j, w = cc->width;

	for (j = 0; j < w; j++)
		h = (h ^ k[j]) * 2654435761u;
	h &= cc->cap - 1;
	while (cc->key[w * h] && memcmp(cc->key + w * h, k, w * sizeof *k))
		h = (h + 1) & (cc->cap - 1);
	return h;
}

static void
cache_grow(PassCache *cc)
{
	PassCache nc;
	uint32_t j, h, w = cc->width;

	nc.cap = cc->cap * 2;
	nc.n = cc->n;
	nc.width = w;
	nc.key = xcalloc((size_t)w * nc.cap, sizeof *nc.key);
	nc.comp = xcalloc(nc.cap, sizeof *nc.comp);
	for (j = 0; j < cc->cap; j++)
		if (cc->key[w * j]) {
			h = cache_find(&nc, cc->key + w * j);
			memcpy(nc.key + w * h, cc->key + w * j, w * sizeof *nc.key);
			nc.comp[h] = cc->comp[j];
		}
	pass_cache_free(cc);
	*cc = nc;
}

uint32_t *
pass_cache_slot(PassCache *cc, const uint32_t *k, int *fresh)
{
	uint32_t h;

	if (2 * (cc->n + 1) > cc->cap)
		cache_grow(cc);
	h = cache_find(cc, k);
	*fresh = !cc->key[cc->width * h];
	if (*fresh) {
		memcpy(cc->key + cc->width * h, k, cc->width * sizeof *k);
		cc->n++;
	}
	return &cc->comp[h];
}

int
pass_expand_cached(HloModule *m, PassCtx *ctx, PassMatchFn match,
	PassExpandFn expand, uint32_t width)
{
	PassCache cc;
	int r;

	pass_cache_init(&cc, width);
	r = pass_expand(m, ctx, match, expand, &cc);
	pass_cache_free(&cc);
	return r;
}

uint32_t
pass_b_call(PassEdit *ed, uint32_t comp, uint32_t shape, uint32_t nops,
	const uint32_t *ops)
{
	uint32_t call = pass_b_op(ed, HOP_CALL, shape, nops, ops);

	hlo_set_called(ed->m, ed->c, call, 1, &comp);
	return call;
}
