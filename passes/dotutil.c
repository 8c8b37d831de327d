/* dotutil.c: dimension numbers, dot building and the precision order of
 * element types, for the dot passes (dotutil.h). */
#include <string.h>

#include "dotutil.h"

static int
list(const HloModule *m, const HloInstr *in, int key, int64_t *v,
	uint32_t *n)
{
	return pass_attr_list_copy(m, in, key, PASS_DOT_MAXDIMS, v, n);
}

int
pass_dot_dnums(const HloModule *m, const HloInstr *in, PassDnums *d)
{
	if (list(m, in, A_LHS_BATCH, d->lb, &d->nlb) < 0 ||
	    list(m, in, A_RHS_BATCH, d->rb, &d->nrb) < 0 ||
	    list(m, in, A_LHS_CONTRACT, d->lc, &d->nlc) < 0 ||
	    list(m, in, A_RHS_CONTRACT, d->rc, &d->nrc) < 0)
		return -1;
	return 0;
}

static int
same(const int64_t *a, uint32_t na, const int64_t *b, uint32_t nb)
{
	return na == nb && (!na || !memcmp(a, b, na * sizeof *a));
}

int
pass_dnums_equal(const PassDnums *a, const PassDnums *b)
{
	return same(a->lb, a->nlb, b->lb, b->nlb) &&
		same(a->rb, a->nrb, b->rb, b->nrb) &&
		same(a->lc, a->nlc, b->lc, b->nlc) &&
		same(a->rc, a->nrc, b->rc, b->nrc);
}

int
pass_dot_plain(const HloModule *m, const HloInstr *in)
{
	uint32_t k;
	const HloAttr *a = m->attrv + in->attrs;

	if (in->op != HOP_DOT || in->nops != 2)
		return 0;
	for (k = 0; k < in->nattrs; k++)
		if (a[k].key == A_OTHER && !strcmp(hlo_cstr(m, a[k].name),
		    "sparsity"))
			return 0;
	return 1;
}

int
pass_dot_dims(const HloModule *m, uint32_t lshape, uint32_t rshape,
	const PassDnums *d, int64_t *dims)
{
	const HloShape *l = hlo_sh(m, lshape), *r = hlo_sh(m, rshape);
	const int64_t *ld = hlo_dims(m, l), *rd = hlo_dims(m, r);
	int n = 0, q;
	uint32_t k;

	for (k = 0; k < d->nlb; k++)
		dims[n++] = ld[d->lb[k]];
	for (q = 0; q < l->rank; q++)
		if (!hlo_ints_has(d->lb, d->nlb, q) &&
		    !hlo_ints_has(d->lc, d->nlc, q))
			dims[n++] = ld[q];
	for (q = 0; q < r->rank; q++)
		if (!hlo_ints_has(d->rb, d->nrb, q) &&
		    !hlo_ints_has(d->rc, d->nrc, q))
			dims[n++] = rd[q];
	return n;
}

static void
set_list(PassEdit *ed, uint32_t i, int key, const int64_t *v, uint32_t n)
{
	HloAttr a;

	if (!n) {
		hlo_attr_del(ed->m, ed->c, i, key);
		return;
	}
	a = hlo_mk_ints(ed->m, key, v, n);
	hlo_attr_set(ed->m, ed->c, i, &a);
}

uint32_t
pass_dot_like(PassEdit *ed, uint32_t like, uint32_t lhs, uint32_t rhs,
	const PassDnums *d, uint32_t shape)
{
	HloModule *m = ed->m;
	uint32_t ops[2] = {lhs, rhs}, i, k, n = 0;
	const HloInstr *src;
	HloAttr *a;

	i = pass_b_op(ed, HOP_DOT, shape, 2, ops);
	src = &m->comps[ed->c].ins[like];
	a = pass_alloc(ed->ctx, (src->nattrs + 1) * sizeof *a);
	for (k = 0; k < src->nattrs; k++) {
		const HloAttr *x = m->attrv + src->attrs + k;

		if (!(hlo_attrinfo[x->key].flags & AF_META))
			a[n++] = *x;
	}
	hlo_set_attrs(m, ed->c, i, n, a);
	set_list(ed, i, A_LHS_BATCH, d->lb, d->nlb);
	set_list(ed, i, A_RHS_BATCH, d->rb, d->nrb);
	set_list(ed, i, A_LHS_CONTRACT, d->lc, d->nlc);
	set_list(ed, i, A_RHS_CONTRACT, d->rc, d->nrc);
	return i;
}

/* numeric_limits<T>::max_exponent and digits of the float types */
static void
float_props(int t, int *maxexp, int *digits)
{
	switch (t) {
	case TY_F16: *maxexp = 16; *digits = 11; break;
	case TY_BF16: *maxexp = 128; *digits = 8; break;
	case TY_F32: *maxexp = 128; *digits = 24; break;
	case TY_F64: *maxexp = 1024; *digits = 53; break;
	case TY_F8E5M2: *maxexp = 16; *digits = 3; break;
	case TY_F8E4M3: *maxexp = 8; *digits = 4; break;
	case TY_F8E4M3FN: *maxexp = 9; *digits = 4; break;
	case TY_F8E4M3B11FNUZ: *maxexp = 5; *digits = 4; break;
	case TY_F8E3M4: *maxexp = 4; *digits = 5; break;
	case TY_F8E5M2FNUZ: *maxexp = 16; *digits = 3; break;
	case TY_F8E4M3FNUZ: *maxexp = 8; *digits = 4; break;
	case TY_F4E2M1FN: *maxexp = 3; *digits = 2; break;
	case TY_F8E8M0FNU: *maxexp = 128; *digits = 1; break;
	case TY_F6E3M2FN: *maxexp = 5; *digits = 3; break;
	case TY_F6E2M3FN: *maxexp = 3; *digits = 4; break;
	default: *maxexp = -1; *digits = -1; break;
	}
}

/* the tuple xla compares: complex, range, precision, width, signed */
static void
props(int t, int64_t p[5])
{
	int c = t, e, dg;

	p[0] = hlo_typeinfo[t].cls == C_CPLX;
	if (t == TY_C64)
		c = TY_F32;
	else if (t == TY_C128)
		c = TY_F64;
	float_props(c, &e, &dg);
	p[1] = e;
	p[2] = dg;
	p[3] = hlo_typeinfo[c].bits;
	p[4] = hlo_typeinfo[c].cls == C_SINT;
}

int
pass_type_higher(int a, int b)
{
	int64_t pa[5], pb[5];
	int k;

	props(a, pa);
	props(b, pb);
	for (k = 0; k < 5; k++)
		if (pa[k] != pb[k])
			return pa[k] > pb[k] ? a : b;
	return a;
}

int
pass_accum_result(PassEdit *ed, uint32_t i, int *r)
{
	int t = pass_accum_type(ed, i);

	if (t >= 0)
		*r = hlo_sh(ed->m, pass_ins(ed, i)->shape)->type;
	return t;
}

int
pass_accum_type(PassEdit *ed, uint32_t i)
{
	const HloInstr *in = pass_ins(ed, i);

	if (in->op == HOP_DOT ? !pass_dot_plain(ed->m, in) :
	    in->op != HOP_CONV || in->nops != 2)
		return -1;
	return pass_type_higher(pass_b_type(ed, pass_opnd(ed, i, 0)),
		pass_b_type(ed, pass_opnd(ed, i, 1)));
}
