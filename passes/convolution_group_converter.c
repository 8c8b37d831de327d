/* convolution_group_converter.c: "convolution-group-converter", xla's
 * ConvolutionGroupConverter (xla/hlo/transforms/simplifiers/
 * convolution_group_converter.cc, openxla/xla as of jpli02/xla c4cbd3c),
 * with the two option sets XLA:CPU runs (cpu_compiler.cc), is_cost_viable
 * always false and filter_expansion true in both; the pass has no default
 * options, so both are named after their option set:
 *   "convolution-group-converter:batch-groups-only"
 *     (ctx->opt.conv_feature_groups 0): convert_batch_groups_only,
 *     should_expand always;
 *   "convolution-group-converter:cpu" (1, passes/variants.c): feature
 *     groups, should_expand unless the result is f16 or f32.
 *
 * Contract, batch groups: a convolution with batch_group_count g > 1
 * whose output feature count or input batch is not g gets a new spatial
 * dimension of size g in front of its input batch, kernel output feature
 * and output feature dimensions (reshapes of the operands; a window
 * dimension of size g, stride g-1, base dilation g), batch_group_count
 * 1, and a reshape back to its shape replaces it. When both are g, the
 * filter is expanded: a convolution without groups computes an output
 * with g times the output batch, a select with a block-diagonal mask
 * (iota-like constants, broadcast and compared) zeroes the foreign
 * blocks, a reduce-window adds the g blocks (in f32 below 32 bits, with a
 * new add computation) and a convert back to the input's element type
 * replaces the convolution (hlopt leaves it alone when that type is not
 * the convolution's, where xla's replacement would change the type).
 * Feature groups: a convolution with feature_group_count g > 1 (and, as
 * XLA:CPU, a result type other than f16 and f32) gets the same mask built
 * for its kernel (left unused, as xla does, unless the group size is 1);
 * with one input feature per group the kernel is broadcast g times along
 * its input feature dimension and masked, and a convolution without
 * groups replaces the old one; else the input feature, kernel output
 * feature and output feature dimensions are split as above.
 * It does not fire on convolutions without groups (or with the other
 * kind only), on f16/f32 feature-grouped ones in the feature-groups
 * variant, or on instructions with control dependencies.
 */
#include <string.h>

#include "build.h"

enum { MAXR = HLO_CONV_MAXSP + 2 };

static void
encode(const HloConvDnums *d, char *buf)
{
	char in[MAXR + 1], k[MAXR + 1], out[MAXR + 1];
	int r = d->nsp + 2, s;

	in[d->in_batch] = 'b';
	in[d->in_feature] = 'f';
	k[d->k_in] = 'i';
	k[d->k_out] = 'o';
	out[d->out_batch] = 'b';
	out[d->out_feature] = 'f';
	for (s = 0; s < d->nsp; s++) {
		in[d->in_spatial[s]] = (char)('0' + s);
		k[d->k_spatial[s]] = (char)('0' + s);
		out[d->out_spatial[s]] = (char)('0' + s);
	}
	in[r] = k[r] = out[r] = 0;
	sprintf(buf, "%s_%s->%s", in, k, out);
}

static int
dnums(PassEdit *ed, uint32_t i, HloConvDnums *d)
{
	uint32_t n;
	const char *s = hlo_attr_word(ed->m, pass_ins(ed, i), A_DIM_LABELS, &n);
	int r = hlo_sh(ed->m, pass_ins(ed, i)->shape)->rank;

	return s && hlo_conv_dnums(s, n, r, d) == 0 ? 0 : -1;
}

static int64_t
dim(PassEdit *ed, uint32_t x, int k)
{
	return hlo_dims(ed->m, hlo_sh(ed->m, pass_b_shape(ed, x)))[k];
}

/* x reshaped with a new dimension of size g in front of dimension at,
 * whose size is divided by g */
static uint32_t
split(PassEdit *ed, uint32_t x, int at, int64_t g)
{
	const HloShape *s = hlo_sh(ed->m, pass_b_shape(ed, x));
	int64_t d[MAXR + 1];
	int r = s->rank, k, n = 0;

	for (k = 0; k < r; k++) {
		if (k == at)
			d[n++] = g;
		d[n++] = hlo_dims(ed->m, s)[k] / (k == at ? g : 1);
	}
	return pass_b_reshape(ed, x, n, d);
}

/* a new spatial dimension at position at of one side: the dims after
 * it move up one */
static void
shift(int *sp, int nsp, int at, int *a, int *b)
{
	int s;

	for (s = 0; s < nsp; s++)
		if (sp[s] > at)
			sp[s]++;
	sp[nsp] = at;
	if (*b > at)
		(*b)++;
	*a = at + 1;
}

static void
set_ints(PassEdit *ed, uint32_t i, int key, int kind, const int64_t *v,
	uint32_t n)
{
	HloAttr a = hlo_mk_ints(ed->m, key, v, n);

	a.kind = (uint16_t)kind;
	hlo_attr_set(ed->m, ed->c, i, &a);
}

/* a copy of convolution i on x and k with dimension numbers d, its
 * window plus one dimension of size g (stride g-1, base dilation g),
 * batch_group_count 1 and, unless keep, feature_group_count 1; the
 * shape inferred with i's element type (MakeConvolveHlo), the attributes
 * SetupDerivedInstruction passes on */
static uint32_t
regroup(PassEdit *ed, uint32_t i, uint32_t x, uint32_t k,
	const HloConvDnums *d, int64_t g, int keep)
{
	HloModule *m = ed->m;
	uint32_t ops[2] = {x, k}, c, n, shape;
	const int64_t *w;
	int64_t *v;
	char buf[3 * MAXR + 8];
	HloAttr a;

	c = pass_copy_instr(m, ed->c, ed->c, i, 2, ops);
	pass_edit_added(ed, c);
	hlo_attr_del(m, ed->c, c, A_BATCH_GROUP_COUNT);
	hlo_attr_del(m, ed->c, c, A_SHARDING);
	hlo_attr_del(m, ed->c, c, A_BACKEND_CONFIG);
	if (!keep)
		hlo_attr_del(m, ed->c, c, A_FEATURE_GROUP_COUNT);
	w = hlo_attr_list(m, pass_ins(ed, i), A_WINDOW, &n);
	v = pass_alloc(ed->ctx, (n + 7) * sizeof *v);
	memcpy(v, w, n * sizeof *v);
	v[n] = g;
	v[n + 1] = g - 1;
	v[n + 2] = v[n + 3] = 0;
	v[n + 4] = 1;
	v[n + 5] = g;
	v[n + 6] = 0;
	set_ints(ed, c, A_WINDOW, K_WINDOW, v, n + 7);
	encode(d, buf);
	a = hlo_mk_bytes(m, A_DIM_LABELS, K_WORD, buf, strlen(buf));
	hlo_attr_set(m, ed->c, c, &a);
	if (hlo_infer_shape(m, ed->c, c, &shape, &ed->ctx->err) == 0)
		m->comps[ed->c].ins[c].shape = shape;
	return c;
}

static uint32_t
const_ids(PassEdit *ed, int64_t size, int64_t count)
{
	HloModule *m = ed->m;
	int32_t *v = pass_alloc(ed->ctx, (size_t)(size * count + 1) * 4);
	int64_t j, n = size * count;
	uint32_t c;
	HloAttr a;

	for (j = 0; j < n; j++)
		v[j] = (int32_t)(j / size);
	a = hlo_mk_bytes(m, A_LITERAL, K_LITERAL, v, (uint32_t)(n * 4));
	c = pass_b_op(ed, HOP_CONSTANT, pass_b_array(m, TY_S32, 1, &n), 0, NULL);
	hlo_set_attrs(m, ed->c, c, 1, &a);
	return c;
}

/* GetExpandedFilterMask: pred[shape with dims[in] * g], true where the
 * group of the in index equals the group of the out index */
static uint32_t
mask(PassEdit *ed, uint32_t shape, int in, int out, int64_t g)
{
	HloModule *m = ed->m;
	const HloShape *s = hlo_sh(m, shape);
	int64_t d[MAXR], gs, of, bd;
	int r = s->rank, k;
	uint32_t ms, m1, m2;

	for (k = 0; k < r; k++)
		d[k] = hlo_dims(m, s)[k];
	gs = d[in];
	of = d[out];
	d[in] *= g;
	ms = pass_b_array(m, TY_S32, r, d);
	bd = in;
	m1 = pass_b_bcast(ed, const_ids(ed, gs, g), ms, 1, &bd);
	bd = out;
	m2 = pass_b_bcast(ed, const_ids(ed, of / g, g), ms, 1, &bd);
	return pass_b_compare(ed, m1, m2, "EQ");
}

static int64_t
group_count(PassEdit *ed, uint32_t i, int key)
{
	return hlo_attr_int(ed->m, pass_ins(ed, i), key, 1);
}

/* the add computation of the reduce-window, new in the module */
static uint32_t
add_comp(HloModule *m, int type)
{
	uint32_t c = hlo_comp_add(m, hlo_fresh_name(m, "add_computation"));
	uint32_t s = hlo_shape_scalar(m, type), p[2], r;

	p[0] = hlo_instr_add(m, c, HOP_PARAMETER, s, hlo_fresh_name(m, "lhs"),
		0, NULL);
	m->comps[c].ins[p[0]].num = 0;
	p[1] = hlo_instr_add(m, c, HOP_PARAMETER, s, hlo_fresh_name(m, "rhs"),
		0, NULL);
	m->comps[c].ins[p[1]].num = 1;
	r = hlo_instr_add(m, c, HOP_ADD, s, hlo_fresh_name(m, "add"), 2, p);
	m->comps[c].root = r;
	return c;
}

/* batch groups equal to the input batch and output features: the
 * filter-expansion form */
static uint32_t
expand_filter(PassEdit *ed, uint32_t i, const HloConvDnums *d, int64_t g)
{
	HloModule *m = ed->m;
	uint32_t shape = pass_ins(ed, i)->shape, msk, nc, z, sel, rw, add, es;
	int64_t dims[MAXR], win[7 * MAXR];
	int r = hlo_sh(m, shape)->rank, k, type = hlo_sh(m, shape)->type;
	uint32_t ops[2];

	msk = mask(ed, shape, d->out_batch, d->out_feature, g);
	for (k = 0; k < r; k++)
		dims[k] = hlo_dims(m, hlo_sh(m, shape))[k];
	dims[d->out_batch] *= g;
	es = pass_b_array(m, type, r, dims);
	ops[0] = pass_opnd(ed, i, 0);
	ops[1] = pass_opnd(ed, i, 1);
	nc = pass_copy_instr(m, ed->c, ed->c, i, 2, ops);
	pass_edit_added(ed, nc);
	m->comps[ed->c].ins[nc].shape = es;
	hlo_attr_del(m, ed->c, nc, A_BATCH_GROUP_COUNT);
	hlo_attr_del(m, ed->c, nc, A_FEATURE_GROUP_COUNT);
	hlo_attr_del(m, ed->c, nc, A_METADATA);
	hlo_attr_del(m, ed->c, nc, A_SHARDING);
	hlo_attr_del(m, ed->c, nc, A_FRONTEND_ATTRIBUTES);
	hlo_attr_del(m, ed->c, nc, A_BACKEND_CONFIG);
	z = pass_b_bcast(ed, pass_b_scalar(ed, type, 0), es, 0, NULL);
	sel = pass_b_select(ed, msk, nc, z);
	if (hlo_typeinfo[type].bits < 32) {
		type = TY_F32;
		sel = pass_b_convert(ed, sel, type);
	}
	dims[d->out_batch] = 1;
	for (k = 0; k < r; k++) {
		int on = k == d->out_batch;

		win[7 * k] = on ? g : 1;
		win[7 * k + 1] = on ? g : 1;
		win[7 * k + 2] = win[7 * k + 3] = 0;
		win[7 * k + 4] = win[7 * k + 5] = 1;
		win[7 * k + 6] = 0;
	}
	ops[0] = sel;
	ops[1] = pass_b_scalar(ed, type, 0);
	add = add_comp(m, type);
	rw = pass_b_op(ed, HOP_REDUCEWINDOW, pass_b_array(m, type, r, dims), 2,
		ops);
	set_ints(ed, rw, A_WINDOW, K_WINDOW, win, 7 * (uint32_t)r);
	hlo_set_called(m, ed->c, rw, 1, &add);
	return pass_b_op(ed, HOP_CONVERT, hlo_shape_with_type(m, shape,
		pass_b_type(ed, pass_opnd(ed, i, 0))), 1, &rw);
}

static uint32_t
expand_batch(PassEdit *ed, uint32_t i)
{
	HloConvDnums d;
	int64_t g = group_count(ed, i, A_BATCH_GROUP_COUNT);
	uint32_t x = pass_opnd(ed, i, 0), k = pass_opnd(ed, i, 1), c;
	int nsp;

	dnums(ed, i, &d);
	if (dim(ed, k, d.k_out) == g && dim(ed, x, d.in_batch) == g) {
		if (pass_b_type(ed, x) != hlo_sh(ed->m,
		    pass_ins(ed, i)->shape)->type)
			return HLO_NONE;
		return expand_filter(ed, i, &d, g);
	}
	nsp = d.nsp;
	x = split(ed, x, d.in_batch, g);
	shift(d.in_spatial, nsp, d.in_batch, &d.in_batch, &d.in_feature);
	k = split(ed, k, d.k_out, g);
	shift(d.k_spatial, nsp, d.k_out, &d.k_out, &d.k_in);
	shift(d.out_spatial, nsp, d.out_feature, &d.out_feature, &d.out_batch);
	d.nsp++;
	c = regroup(ed, i, x, k, &d, g, 1);
	return pass_b_op(ed, HOP_RESHAPE, pass_ins(ed, i)->shape, 1, &c);
}

static uint32_t
expand_feature(PassEdit *ed, uint32_t i)
{
	HloModule *m = ed->m;
	HloConvDnums d;
	int64_t g = group_count(ed, i, A_FEATURE_GROUP_COUNT);
	uint32_t x = pass_opnd(ed, i, 0), k = pass_opnd(ed, i, 1), c, msk;
	uint32_t ks = pass_b_shape(ed, k), es, z, sel, ops[2];
	int64_t dims[MAXR], bd[MAXR];
	int r = hlo_sh(m, ks)->rank, q, n = 0, nsp;

	dnums(ed, i, &d);
	msk = mask(ed, ks, d.k_in, d.k_out, g);
	if (dim(ed, k, d.k_in) == 1) {
		for (q = 0; q < r; q++) {
			dims[q] = hlo_dims(m, hlo_sh(m, ks))[q];
			if (q != d.k_in) {
				bd[n] = q;
				dims[n++] = dims[q];
			}
		}
		c = pass_b_reshape(ed, k, n, dims);
		for (q = 0; q < r; q++)
			dims[q] = hlo_dims(m, hlo_sh(m, ks))[q];
		dims[d.k_in] *= g;
		es = pass_b_array(m, hlo_sh(m, ks)->type, r, dims);
		c = pass_b_bcast(ed, c, es, (uint32_t)n, bd);
		z = pass_b_bcast(ed, pass_b_scalar(ed, hlo_sh(m, es)->type, 0),
			es, 0, NULL);
		sel = pass_b_select(ed, msk, c, z);
		ops[0] = x;
		ops[1] = sel;
		c = pass_copy_instr(m, ed->c, ed->c, i, 2, ops);
		pass_edit_added(ed, c);
		hlo_attr_del(m, ed->c, c, A_FEATURE_GROUP_COUNT);
		hlo_attr_del(m, ed->c, c, A_BATCH_GROUP_COUNT);
		return c;
	}
	nsp = d.nsp;
	x = split(ed, x, d.in_feature, g);
	shift(d.in_spatial, nsp, d.in_feature, &d.in_feature, &d.in_batch);
	k = split(ed, k, d.k_out, g);
	shift(d.k_spatial, nsp, d.k_out, &d.k_out, &d.k_in);
	shift(d.out_spatial, nsp, d.out_feature, &d.out_feature, &d.out_batch);
	d.nsp++;
	c = regroup(ed, i, x, k, &d, g, 0);
	return pass_b_op(ed, HOP_RESHAPE, pass_ins(ed, i)->shape, 1, &c);
}

static int
match(PassEdit *ed, uint32_t i, void *arg)
{
	const HloInstr *in = pass_ins(ed, i);
	HloConvDnums d;
	int t;

	if (in->op != HOP_CONV || in->nops != 2 || dnums(ed, i, &d) < 0 ||
	    d.nsp + 1 > HLO_CONV_MAXSP)
		return 0;
	if (!*(int *)arg)
		return group_count(ed, i, A_BATCH_GROUP_COUNT) > 1;
	t = hlo_sh(ed->m, in->shape)->type;
	return group_count(ed, i, A_FEATURE_GROUP_COUNT) > 1 &&
		t != TY_F16 && t != TY_F32;
}

static uint32_t
expand(PassEdit *ed, uint32_t i, void *arg)
{
	return *(int *)arg ? expand_feature(ed, i) : expand_batch(ed, i);
}

int
pass_conv_group_converter(HloModule *m, PassCtx *ctx)
{
	int feature = ctx->opt.conv_feature_groups;

	return pass_expand(m, ctx, match, expand, &feature);
}
