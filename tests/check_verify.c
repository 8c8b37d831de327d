/* check_verify.c: hlo_verify and hlo_infer_shape on hand-built modules
 * (one broken module per check), on small parsed modules, and a sweep
 * over data/ and the corpus: every module verifies, and a module with one
 * instruction's shape changed does not. */
#include <check.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"
#include "hlo.h"
#include "testutil.h"

/* building modules by hand */

static uint32_t
shp(HloModule *m, int t, int rank, ...)
{
	int64_t d[8];
	va_list ap;
	int k;

	va_start(ap, rank);
	for (k = 0; k < rank; k++)
		d[k] = va_arg(ap, int);
	va_end(ap);
	return hlo_shape(m, t, rank, d, NULL, 0, 0);
}

static uint32_t
ins(HloModule *m, uint32_t c, int op, uint32_t s, const char *name,
	int nops, ...)
{
	uint32_t o[8];
	va_list ap;
	int k;

	va_start(ap, nops);
	for (k = 0; k < nops; k++)
		o[k] = va_arg(ap, uint32_t);
	va_end(ap);
	return hlo_instr_add(m, c, op, s, hlo_strz(m, name), nops, o);
}

static uint32_t
param(HloModule *m, uint32_t c, int64_t num, uint32_t s, const char *name)
{
	uint32_t i = ins(m, c, HOP_PARAMETER, s, name, 0);

	m->comps[c].ins[i].num = num;
	return i;
}

static void
setints(HloModule *m, uint32_t c, uint32_t i, int key, int n, ...)
{
	int64_t d[16];
	va_list ap;
	HloAttr a;
	int k;

	va_start(ap, n);
	for (k = 0; k < n; k++)
		d[k] = va_arg(ap, int);
	va_end(ap);
	a = hlo_mk_ints(m, key, d, n);
	hlo_attr_set(m, c, i, &a);
}

static void
setint(HloModule *m, uint32_t c, uint32_t i, int key, int64_t x)
{
	HloAttr a = hlo_mk_int(key, x);

	hlo_attr_set(m, c, i, &a);
}

static void
setword(HloModule *m, uint32_t c, uint32_t i, int key, const char *w)
{
	HloAttr a = hlo_mk_bytes(m, key, hlo_attrinfo[key].kind, w,
		strlen(w));

	hlo_attr_set(m, c, i, &a);
}

static void
calls(HloModule *m, uint32_t c, uint32_t i, int n, ...)
{
	uint32_t k[4];
	va_list ap;
	int j;

	va_start(ap, n);
	for (j = 0; j < n; j++)
		k[j] = va_arg(ap, uint32_t);
	va_end(ap);
	hlo_set_called(m, c, i, n, k);
}

/* the entry computation "main" */
static uint32_t
mainc(HloModule *m)
{
	uint32_t c = hlo_comp_add(m, hlo_strz(m, "main"));

	m->entry = c;
	return c;
}

/* a module whose entry "main" has two f32[2,3] parameters */
static HloModule *
base(uint32_t *c, uint32_t *p0, uint32_t *p1)
{
	HloModule *m = hlo_module_new();
	uint32_t s = shp(m, TY_F32, 2, 2, 3);

	m->name = hlo_strz(m, "test");
	*c = hlo_comp_add(m, hlo_strz(m, "main"));
	m->entry = *c;
	*p0 = param(m, *c, 0, s, "p0");
	*p1 = param(m, *c, 1, s, "p1");
	return m;
}

/* a scalar f32 adder computation named name */
static uint32_t
adder(HloModule *m, const char *name, int t)
{
	uint32_t c = hlo_comp_add(m, hlo_strz(m, name)), s, a, b, r;
	char n[64];

	s = hlo_shape_scalar(m, t);
	snprintf(n, sizeof n, "%s.a", name);
	a = param(m, c, 0, s, n);
	snprintf(n, sizeof n, "%s.b", name);
	b = param(m, c, 1, s, n);
	snprintf(n, sizeof n, "%s.sum", name);
	r = ins(m, c, HOP_ADD, s, n, 2, a, b);
	m->comps[c].root = r;
	return c;
}

static int
verifies(HloModule *m, HloError *e)
{
	e->msg[0] = 0;
	return hlo_verify(m, e) == 0;
}

#define BAD(m, e, what) do { \
	ck_assert_msg(!verifies(m, &e), "accepted, expected: %s", what); \
	ck_assert_msg(strstr(e.msg, what) != NULL, "message \"%s\" lacks " \
		"\"%s\"", e.msg, what); \
} while (0)

#define GOOD(m, e) ck_assert_msg(verifies(m, &e), "rejected: %s", e.msg)

START_TEST(good_elementwise)
{
	uint32_t c, p0, p1, a, s;
	HloModule *m = base(&c, &p0, &p1);
	HloError e;

	a = ins(m, c, HOP_ADD, m->comps[c].ins[p0].shape, "add.1", 2, p0, p1);
	s = ins(m, c, HOP_COMPARE, shp(m, TY_PRED, 2, 2, 3), "cmp", 2, a, p1);
	setword(m, c, s, A_DIRECTION, "LT");
	a = ins(m, c, HOP_SELECT, shp(m, TY_F32, 2, 2, 3), "sel", 3, s, a, p0);
	m->comps[c].root = ins(m, c, HOP_NEGATE, shp(m, TY_F32, 2, 2, 3),
		"neg", 1, a);
	GOOD(m, e);
	hlo_module_free(m);
}
END_TEST

START_TEST(bad_add_shape)
{
	uint32_t c, p0, p1;
	HloModule *m = base(&c, &p0, &p1);
	HloError e;

	m->comps[c].root = ins(m, c, HOP_ADD, shp(m, TY_F32, 2, 3, 2),
		"add.1", 2, p0, p1);
	BAD(m, e, "computation main, instruction add.1: shape f32[3,2] but "
		"operands give f32[2,3]");
	hlo_module_free(m);
}
END_TEST

START_TEST(bad_mixed_types)
{
	uint32_t c, p0, p1, q;
	HloModule *m = base(&c, &p0, &p1);
	HloError e;

	q = param(m, c, 2, shp(m, TY_S32, 2, 2, 3), "p2");
	m->comps[c].root = ins(m, c, HOP_ADD, shp(m, TY_F32, 2, 2, 3),
		"add.1", 2, p0, q);
	BAD(m, e, "operands 0 and 1 differ");
	/* floating point precisions may mix, as with xla's
	 * allow_mixed_precision; the result's too */
	m->comps[c].ins[q].shape = shp(m, TY_BF16, 2, 2, 3);
	GOOD(m, e);
	m->comps[c].ins[m->comps[c].root].shape = shp(m, TY_BF16, 2, 2, 3);
	GOOD(m, e);
	m->comps[c].ins[m->comps[c].root].shape = shp(m, TY_S32, 2, 2, 3);
	BAD(m, e, "shape s32[2,3] but operands give f32[2,3]");
	hlo_module_free(m);
}
END_TEST

START_TEST(bad_compare_type)
{
	uint32_t c, p0, p1;
	HloModule *m = base(&c, &p0, &p1);
	HloError e;

	m->comps[c].root = ins(m, c, HOP_COMPARE, shp(m, TY_F32, 2, 2, 3),
		"cmp", 2, p0, p1);
	BAD(m, e, "but operands give pred[2,3]");
	hlo_module_free(m);
}
END_TEST

START_TEST(bad_undefined_operand)
{
	uint32_t c, p0, p1;
	HloModule *m = base(&c, &p0, &p1);
	HloError e;

	m->comps[c].root = ins(m, c, HOP_ADD, shp(m, TY_F32, 2, 2, 3),
		"add.1", 2, p0, 77u);
	BAD(m, e, "instruction add.1: operand 1 is undefined");
	hlo_module_free(m);
}
END_TEST

START_TEST(bad_dead_operand)
{
	uint32_t c, p0, p1, a;
	HloModule *m = base(&c, &p0, &p1);
	HloError e;

	a = ins(m, c, HOP_NEGATE, shp(m, TY_F32, 2, 2, 3), "neg", 1, p0);
	m->comps[c].root = ins(m, c, HOP_ADD, shp(m, TY_F32, 2, 2, 3),
		"add.1", 2, a, p1);
	m->comps[c].ins[a].flags |= HI_DEAD;
	BAD(m, e, "operand 0 (neg) is deleted");
	m->comps[c].ins[a].flags &= ~HI_DEAD;
	m->comps[c].ins[m->comps[c].root].flags |= HI_DEAD;
	BAD(m, e, "computation main: no live root");
	hlo_module_free(m);
}
END_TEST

START_TEST(bad_cycle)
{
	uint32_t c, p0, p1, a, b, s;
	HloModule *m = base(&c, &p0, &p1);
	HloError e;

	s = shp(m, TY_F32, 2, 2, 3);
	a = ins(m, c, HOP_ADD, s, "a", 2, p0, p1);
	b = ins(m, c, HOP_ADD, s, "b", 2, a, p1);
	hlo_set_operands(m, c, a, 2, (uint32_t[]){p0, b});
	m->comps[c].root = b;
	BAD(m, e, "computation main: its instructions form a cycle");
	hlo_module_free(m);
}
END_TEST

START_TEST(bad_ctrl_cycle)
{
	uint32_t c, p0, p1, a, b, s;
	HloModule *m = base(&c, &p0, &p1);
	HloError e;

	s = shp(m, TY_F32, 2, 2, 3);
	a = ins(m, c, HOP_ADD, s, "a", 2, p0, p1);
	b = ins(m, c, HOP_ADD, s, "b", 2, a, p1);
	hlo_set_ctrl(m, c, a, 1, &b);
	m->comps[c].root = b;
	BAD(m, e, "form a cycle");
	hlo_module_free(m);
}
END_TEST

START_TEST(bad_param_gap)
{
	uint32_t c, p0, p1;
	HloModule *m = base(&c, &p0, &p1);
	HloError e;

	m->comps[c].root = ins(m, c, HOP_ADD, shp(m, TY_F32, 2, 2, 3),
		"add.1", 2, p0, p1);
	m->comps[c].ins[p1].num = 2;
	BAD(m, e, "instruction p1: parameter number 2, but the computation "
		"has 2 parameters (a gap)");
	m->comps[c].ins[p1].num = 0;
	BAD(m, e, "parameter number 0 used twice");
	hlo_module_free(m);
}
END_TEST

START_TEST(bad_names)
{
	uint32_t c, p0, p1;
	HloModule *m = base(&c, &p0, &p1);
	HloError e;

	m->comps[c].root = ins(m, c, HOP_ADD, shp(m, TY_F32, 2, 2, 3), "p0",
		2, p0, p1);
	BAD(m, e, "instruction p0: name also used in computation main");
	hlo_module_free(m);
}
END_TEST

START_TEST(bad_arity)
{
	uint32_t c, p0, p1;
	HloModule *m = base(&c, &p0, &p1);
	HloError e;

	m->comps[c].root = ins(m, c, HOP_NEGATE, shp(m, TY_F32, 2, 2, 3),
		"neg", 2, p0, p1);
	BAD(m, e, "instruction neg: 2 operands, negate takes 1");
	hlo_module_free(m);
}
END_TEST

START_TEST(bad_ids)
{
	uint32_t c, p0, p1, r;
	HloModule *m = base(&c, &p0, &p1);
	HloError e;

	r = ins(m, c, HOP_ADD, shp(m, TY_F32, 2, 2, 3), "add.1", 2, p0, p1);
	m->comps[c].root = r;
	GOOD(m, e);
	m->comps[c].ins[r].shape = 9999;
	BAD(m, e, "instruction add.1: shape id 9999 out of range");
	m->comps[c].ins[r].shape = m->comps[c].ins[p0].shape;
	m->comps[c].ins[r].name = 1u << 30;
	BAD(m, e, "instruction #2 has a bad name");
	m->comps[c].ins[r].name = hlo_strz(m, "add.1");
	m->comps[c].ins[r].ops = m->nids;
	BAD(m, e, "operand list out of range");
	m->comps[c].ins[r].ops = 0;
	m->comps[c].ins[r].nops = 0;
	calls(m, c, r, 1, 42u);
	BAD(m, e, "called computation #42 does not exist");
	m->entry = 5;
	BAD(m, e, "no entry computation");
	hlo_module_free(m);
}
END_TEST

START_TEST(bad_noncaller_calls)
{
	uint32_t c, p0, p1, r, f;
	HloModule *m = base(&c, &p0, &p1);
	HloError e;

	f = adder(m, "add_f32", TY_F32);
	r = ins(m, c, HOP_ADD, shp(m, TY_F32, 2, 2, 3), "add.1", 2, p0, p1);
	m->comps[c].root = r;
	calls(m, c, r, 1, f);
	BAD(m, e, "instruction add.1: add calls computations");
	hlo_module_free(m);
}
END_TEST

START_TEST(bad_call_cycle)
{
	uint32_t c, p0, p1, a, b, x, y;
	HloModule *m = base(&c, &p0, &p1);
	HloError e;

	a = hlo_comp_add(m, hlo_strz(m, "ca"));
	b = hlo_comp_add(m, hlo_strz(m, "cb"));
	x = param(m, a, 0, shp(m, TY_F32, 0), "xa");
	m->comps[a].root = ins(m, a, HOP_CALL, shp(m, TY_F32, 0), "calla", 1,
		x);
	calls(m, a, m->comps[a].root, 1, b);
	y = param(m, b, 0, shp(m, TY_F32, 0), "xb");
	m->comps[b].root = ins(m, b, HOP_CALL, shp(m, TY_F32, 0), "callb", 1,
		y);
	calls(m, b, m->comps[b].root, 1, a);
	m->comps[c].root = ins(m, c, HOP_ADD, shp(m, TY_F32, 2, 2, 3),
		"add.1", 2, p0, p1);
	BAD(m, e, "call each other in a cycle");
	hlo_module_free(m);
}
END_TEST

START_TEST(reduce_signature)
{
	uint32_t c, p0, p1, z, r, f, g;
	HloModule *m = base(&c, &p0, &p1);
	HloError e;

	f = adder(m, "add_f32", TY_F32);
	z = ins(m, c, HOP_CONSTANT, hlo_shape_scalar(m, TY_F32), "zero", 0);
	{
		float zero = 0;
		HloAttr a = hlo_mk_bytes(m, A_LITERAL, K_LITERAL, &zero, 4);

		hlo_attr_set(m, c, z, &a);
	}
	r = ins(m, c, HOP_REDUCE, shp(m, TY_F32, 1, 2), "red", 2, p0, z);
	setints(m, c, r, A_DIMENSIONS, 1, 1);
	calls(m, c, r, 1, f);
	m->comps[c].root = r;
	GOOD(m, e);
	setints(m, c, r, A_DIMENSIONS, 1, 0);
	BAD(m, e, "shape f32[2] but operands give f32[3]");
	setints(m, c, r, A_DIMENSIONS, 1, 1);
	g = adder(m, "add_s32", TY_S32);
	calls(m, c, r, 1, g);
	BAD(m, e, "instruction red: parameter 1 of add_s32 has shape s32[], "
		"expected f32[]");
	g = hlo_comp_add(m, hlo_strz(m, "three"));
	param(m, g, 0, hlo_shape_scalar(m, TY_F32), "t0");
	param(m, g, 1, hlo_shape_scalar(m, TY_F32), "t1");
	m->comps[g].root = param(m, g, 2, hlo_shape_scalar(m, TY_F32), "t2");
	calls(m, c, r, 1, g);
	BAD(m, e, "called computation three takes 3 parameters, expected 2");
	hlo_module_free(m);
}
END_TEST

START_TEST(dot_shapes)
{
	HloModule *m = hlo_module_new();
	uint32_t c = mainc(m), a, b, d, s;
	HloError e;

	a = param(m, c, 0, shp(m, TY_F32, 3, 8, 2, 3), "a");
	b = param(m, c, 1, shp(m, TY_F32, 3, 8, 3, 5), "b");
	d = ins(m, c, HOP_DOT, shp(m, TY_F32, 3, 8, 2, 5), "dot", 2, a, b);
	setints(m, c, d, A_LHS_BATCH, 1, 0);
	setints(m, c, d, A_RHS_BATCH, 1, 0);
	setints(m, c, d, A_LHS_CONTRACT, 1, 2);
	setints(m, c, d, A_RHS_CONTRACT, 1, 1);
	m->comps[c].root = d;
	GOOD(m, e);
	ck_assert_int_eq(hlo_infer_shape(m, c, d, &s, &e), 0);
	ck_assert_uint_eq(s, shp(m, TY_F32, 3, 8, 2, 5));
	m->comps[c].ins[d].shape = shp(m, TY_BF16, 3, 8, 2, 5);
	GOOD(m, e);	/* preferred element type */
	m->comps[c].ins[d].shape = shp(m, TY_F32, 3, 8, 5, 2);
	BAD(m, e, "instruction dot: shape f32[8,5,2] but operands give "
		"f32[8,2,5]");
	m->comps[c].ins[d].shape = shp(m, TY_F32, 3, 8, 2, 5);
	setints(m, c, d, A_RHS_CONTRACT, 1, 2);
	BAD(m, e, "contracting dimension sizes differ: 3 and 5");
	hlo_module_free(m);
}
END_TEST

START_TEST(broadcast_dims)
{
	HloModule *m = hlo_module_new();
	uint32_t c = mainc(m), a, b;
	HloError e;

	a = param(m, c, 0, shp(m, TY_F32, 1, 3), "a");
	b = ins(m, c, HOP_BROADCAST, shp(m, TY_F32, 2, 2, 3), "bc", 1, a);
	setints(m, c, b, A_DIMENSIONS, 1, 1);
	m->comps[c].root = b;
	GOOD(m, e);
	setints(m, c, b, A_DIMENSIONS, 1, 0);
	BAD(m, e, "instruction bc: operand dimension 0 (3) broadcast to "
		"dimension 0 of size 2");
	setints(m, c, b, A_DIMENSIONS, 1, 2);
	BAD(m, e, "out of range");
	setints(m, c, b, A_DIMENSIONS, 2, 0, 1);
	BAD(m, e, "2 broadcast dimensions for an operand of rank 1");
	hlo_module_free(m);
}
END_TEST

START_TEST(slice_bounds)
{
	HloModule *m = hlo_module_new();
	uint32_t c = mainc(m), a, s;
	HloError e;

	a = param(m, c, 0, shp(m, TY_F32, 2, 4, 10), "a");
	s = ins(m, c, HOP_SLICE, shp(m, TY_F32, 2, 2, 4), "sl", 1, a);
	setints(m, c, s, A_SLICE, 6, 1, 3, 1, 0, 10, 3);
	m->comps[c].root = s;
	GOOD(m, e);
	setints(m, c, s, A_SLICE, 6, 1, 3, 1, 0, 11, 3);
	BAD(m, e, "slice [0:11:3] out of bounds");
	setints(m, c, s, A_SLICE, 6, 1, 3, 1, 0, 10, 2);
	BAD(m, e, "shape f32[2,4] but operands give f32[2,5]");
	hlo_module_free(m);
}
END_TEST

/* while (s32[], f32[4]) with a body adding one to the counter */
static HloModule *
loop(uint32_t *w, uint32_t *body)
{
	HloModule *m = hlo_module_new();
	uint32_t st, c, b, cd, p, g0, g1, one, add, t, lim, cmp, s32;
	uint32_t el[2];
	int32_t x = 1;
	HloAttr a;

	s32 = hlo_shape_scalar(m, TY_S32);
	el[0] = s32;
	el[1] = shp(m, TY_F32, 1, 4);
	st = hlo_shape_tuple(m, 2, el);
	b = hlo_comp_add(m, hlo_strz(m, "body"));
	p = param(m, b, 0, st, "bp");
	g0 = ins(m, b, HOP_GTE, s32, "bg0", 1, p);
	setint(m, b, g0, A_INDEX, 0);
	g1 = ins(m, b, HOP_GTE, el[1], "bg1", 1, p);
	setint(m, b, g1, A_INDEX, 1);
	one = ins(m, b, HOP_CONSTANT, s32, "one", 0);
	a = hlo_mk_bytes(m, A_LITERAL, K_LITERAL, &x, 4);
	hlo_attr_set(m, b, one, &a);
	add = ins(m, b, HOP_ADD, s32, "inc", 2, g0, one);
	t = ins(m, b, HOP_TUPLE, st, "bt", 2, add, g1);
	m->comps[b].root = t;
	cd = hlo_comp_add(m, hlo_strz(m, "cond"));
	p = param(m, cd, 0, st, "cp");
	g0 = ins(m, cd, HOP_GTE, s32, "cg0", 1, p);
	setint(m, cd, g0, A_INDEX, 0);
	lim = ins(m, cd, HOP_CONSTANT, s32, "lim", 0);
	hlo_attr_set(m, cd, lim, &a);
	cmp = ins(m, cd, HOP_COMPARE, hlo_shape_scalar(m, TY_PRED), "lt", 2,
		g0, lim);
	setword(m, cd, cmp, A_DIRECTION, "LT");
	m->comps[cd].root = cmp;
	c = hlo_comp_add(m, hlo_strz(m, "main"));
	m->entry = c;
	p = param(m, c, 0, st, "init");
	*w = ins(m, c, HOP_WHILE, st, "loop", 1, p);
	calls(m, c, *w, 2, b, cd);
	m->comps[c].root = *w;
	*body = b;
	return m;
}

START_TEST(while_shapes)
{
	uint32_t w, b, c;
	HloModule *m = loop(&w, &b);
	HloError e;

	GOOD(m, e);
	c = m->entry;
	/* body returns a tuple of the wrong shape */
	m->comps[b].ins[m->comps[b].root].shape = shp(m, TY_F32, 1, 4);
	BAD(m, e, "computation body, instruction bt: shape f32[4] but "
		"operands give (s32[], f32[4])");
	/* the while has its body's result shape, which xla's verifier
	 * does not compare with the loop state's */
	m->comps[b].root = 2;	/* bg1: f32[4] */
	m->comps[b].ins[5].shape = m->comps[c].ins[w].shape;
	BAD(m, e, "instruction loop: shape (s32[], f32[4]) but operands give "
		"f32[4]");
	m->comps[b].root = 5;
	GOOD(m, e);
	calls(m, c, w, 2, b, b);
	BAD(m, e, "returns (s32[], f32[4]), expected pred[]");
	hlo_module_free(m);
}
END_TEST

START_TEST(conditional_shapes)
{
	HloModule *m = hlo_module_new();
	uint32_t c, t, f, p, x, y, cnd, s = 0;
	HloError e;

	s = shp(m, TY_F32, 1, 4);
	t = hlo_comp_add(m, hlo_strz(m, "tb"));
	x = param(m, t, 0, s, "tx");
	m->comps[t].root = ins(m, t, HOP_NEGATE, s, "tn", 1, x);
	f = hlo_comp_add(m, hlo_strz(m, "fb"));
	y = param(m, f, 0, shp(m, TY_F32, 1, 2), "fx");
	m->comps[f].root = ins(m, f, HOP_CONCAT, s, "fc", 2, y, y);
	setints(m, f, m->comps[f].root, A_DIMENSIONS, 1, 0);
	c = hlo_comp_add(m, hlo_strz(m, "main"));
	m->entry = c;
	p = param(m, c, 0, hlo_shape_scalar(m, TY_PRED), "pr");
	x = param(m, c, 1, s, "a");
	y = param(m, c, 2, shp(m, TY_F32, 1, 2), "b");
	cnd = ins(m, c, HOP_CONDITIONAL, s, "cond", 3, p, x, y);
	calls(m, c, cnd, 2, t, f);
	m->comps[c].root = cnd;
	GOOD(m, e);
	hlo_set_operands(m, c, cnd, 3, (uint32_t[]){p, x, x});
	BAD(m, e, "instruction cond: parameter 0 of fb has shape f32[2], "
		"expected f32[4]");
	hlo_set_operands(m, c, cnd, 3, (uint32_t[]){p, x, y});
	m->comps[f].ins[m->comps[f].root].shape = shp(m, TY_F32, 1, 5);
	BAD(m, e, "shape f32[5] but operands give f32[4]");
	hlo_module_free(m);
}
END_TEST

START_TEST(conv_shapes)
{
	HloModule *m = hlo_module_new();
	uint32_t c = mainc(m), x, k, cv;
	int64_t w[14] = {3, 1, 1, 1, 1, 1, 0, 3, 2, 0, 0, 1, 1, 0};
	HloAttr a;
	HloError e;

	x = param(m, c, 0, shp(m, TY_F32, 4, 8, 32, 30, 16), "x");
	k = param(m, c, 1, shp(m, TY_F32, 4, 3, 3, 16, 64), "k");
	cv = ins(m, c, HOP_CONV, shp(m, TY_F32, 4, 8, 32, 14, 64), "conv", 2,
		x, k);
	setword(m, c, cv, A_DIM_LABELS, "b01f_01io->b01f");
	a = hlo_mk_ints(m, A_WINDOW, w, 14);
	hlo_attr_set(m, c, cv, &a);
	m->comps[c].root = cv;
	GOOD(m, e);
	setint(m, c, cv, A_FEATURE_GROUP_COUNT, 2);
	BAD(m, e, "do not fit the group counts");
	setint(m, c, cv, A_FEATURE_GROUP_COUNT, 1);
	setword(m, c, cv, A_DIM_LABELS, "b10f_01io->b01f");
	BAD(m, e, "shape f32[8,32,14,64] but operands give f32[8,30,15,64]");
	hlo_module_free(m);
}
END_TEST

START_TEST(conv_dnums)
{
	HloConvDnums d;

	ck_assert_int_eq(hlo_conv_dnums("b01f_01io->b01f", 15, 4, &d), 0);
	ck_assert_int_eq(d.nsp, 2);
	ck_assert_int_eq(d.in_batch, 0);
	ck_assert_int_eq(d.in_feature, 3);
	ck_assert_int_eq(d.in_spatial[0], 1);
	ck_assert_int_eq(d.in_spatial[1], 2);
	ck_assert_int_eq(d.k_in, 2);
	ck_assert_int_eq(d.k_out, 3);
	ck_assert_int_eq(d.k_spatial[1], 1);
	ck_assert_int_eq(d.out_feature, 3);
	ck_assert_int_eq(hlo_conv_dnums("bf10_oi01->bf10", 15, -1, &d), 0);
	ck_assert_int_eq(d.in_spatial[0], 3);
	ck_assert_int_eq(d.in_spatial[1], 2);
	ck_assert_int_eq(d.k_out, 0);
	ck_assert_int_eq(d.k_spatial[0], 2);
	ck_assert_int_eq(d.out_spatial[1], 2);
	ck_assert_int_eq(hlo_conv_dnums("bf_io->bf", 9, 2, &d), 0);
	ck_assert_int_eq(d.nsp, 0);
	ck_assert_int_eq(hlo_conv_dnums("b01f_01io->b01f", 15, 3, &d), -1);
	ck_assert_int_eq(hlo_conv_dnums("b00f_01io->b01f", 15, -1, &d), -1);
	ck_assert_int_eq(hlo_conv_dnums("b02f_01io->b01f", 15, -1, &d), -1);
	ck_assert_int_eq(hlo_conv_dnums("b01f_01io-b01f", 14, -1, &d), -1);
	ck_assert_int_eq(hlo_conv_dnums("b01f_01i->b01f", 14, -1, &d), -1);
	ck_assert_int_eq(hlo_conv_dnums("b01f_01io->", 11, -1, &d), -1);
	ck_assert_int_eq(hlo_conv_dnums("", 0, -1, &d), -1);
}
END_TEST

START_TEST(constant_literal)
{
	HloModule *m = hlo_module_new();
	uint32_t c = mainc(m), k;
	float v[3] = {1, 2, 3};
	HloAttr a;
	HloError e;

	k = ins(m, c, HOP_CONSTANT, shp(m, TY_F32, 1, 3), "k", 0);
	m->comps[c].root = k;
	BAD(m, e, "instruction k: constant without a literal");
	a = hlo_mk_bytes(m, A_LITERAL, K_LITERAL, v, 12);
	hlo_attr_set(m, c, k, &a);
	GOOD(m, e);
	a = hlo_mk_bytes(m, A_LITERAL, K_LITERAL, v, 8);
	hlo_attr_set(m, c, k, &a);
	BAD(m, e, "literal of 8 bytes, the shape needs 12");
	hlo_module_free(m);
}
END_TEST

START_TEST(infer_shapes)
{
	HloModule *m = hlo_module_new();
	uint32_t c = mainc(m), a, t, g, s, el[2];
	HloError e;

	a = param(m, c, 0, shp(m, TY_F32, 3, 2, 3, 4), "a");
	t = ins(m, c, HOP_TRANSPOSE, shp(m, TY_F32, 3, 1, 1, 1), "tr", 1, a);
	setints(m, c, t, A_DIMENSIONS, 3, 2, 0, 1);
	ck_assert_int_eq(hlo_infer_shape(m, c, t, &s, &e), 0);
	ck_assert_uint_eq(s, shp(m, TY_F32, 3, 4, 2, 3));
	g = ins(m, c, HOP_TUPLE, shp(m, TY_F32, 0), "tu", 2, a, t);
	ck_assert_int_eq(hlo_infer_shape(m, c, g, &s, &e), 0);
	el[0] = shp(m, TY_F32, 3, 2, 3, 4);
	el[1] = shp(m, TY_F32, 3, 1, 1, 1);
	ck_assert_uint_eq(s, hlo_shape_tuple(m, 2, el));
	g = ins(m, c, HOP_ISFINITE, shp(m, TY_F32, 0), "fin", 1, a);
	ck_assert_int_eq(hlo_infer_shape(m, c, g, &s, &e), 0);
	ck_assert_uint_eq(s, shp(m, TY_PRED, 3, 2, 3, 4));
	g = ins(m, c, HOP_ISFINITE, shp(m, TY_F32, 0), "bad", 1, 99u);
	ck_assert_int_eq(hlo_infer_shape(m, c, g, &s, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "instruction bad: operand 0 is "
		"undefined"));
	ck_assert_int_eq(hlo_infer_shape(m, c, 999, &s, &e), -1);
	hlo_module_free(m);
}
END_TEST

/* parsed modules */

static HloModule *
parse(const char *src)
{
	HloModule *m = NULL;
	HloError e;

	if (hlo_parse_text(src, strlen(src), "test.hlo", &m, &e))
		ck_abort_msg("parse failed: %s\n%s", e.msg, src);
	return m;
}

static const char *const goodtext[] = {
	"HloModule m\n"
	"add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
	" ROOT s = f32[] add(a, b) }\n"
	"ENTRY e { p = f32[4,8] parameter(0)\n z = f32[] constant(0)\n"
	" ROOT r = f32[4] reduce(p, z), dimensions={1}, to_apply=add }\n",

	"HloModule m\n"
	"ENTRY e { p = f32[2,3,4] parameter(0)\n"
	" t = f32[4,2,3] transpose(p), dimensions={2,0,1}\n"
	" r = f32[8,3] reshape(t)\n"
	" s = f32[8,2] slice(r), slice={[0:8], [0:3:2]}\n"
	" c = f32[8,5] concatenate(r, s), dimensions={1}\n"
	" z = f32[] constant(0)\n"
	" ROOT q = f32[9,11] pad(c, z), padding=0_1x1_1_1 }\n",

	"HloModule m\n"
	"ENTRY e { o = f32[5,7] parameter(0)\n i = s32[3,1] parameter(1)\n"
	" ROOT g = f32[3,7] gather(o, i), offset_dims={1}, "
	"collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, "
	"slice_sizes={1,7} }\n",

	"HloModule m\n"
	"ENTRY e { x = f32[1,28,28,3] parameter(0)\n"
	" k = f32[5,5,3,8] parameter(1)\n"
	" ROOT c = f32[1,14,14,8] convolution(x, k), "
	"window={size=5x5 stride=2x2 pad=2_1x2_1}, "
	"dim_labels=b01f_01io->b01f }\n",

	"HloModule m\n"
	"cmp { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
	" c = s32[] parameter(2)\n d = s32[] parameter(3)\n"
	" ROOT lt = pred[] compare(a, b), direction=LT }\n"
	"ENTRY e { k = f32[10] parameter(0)\n v = s32[10] parameter(1)\n"
	" ROOT s = (f32[10], s32[10]) sort(k, v), dimensions={0}, "
	"to_apply=cmp }\n",

	"HloModule m\n"
	"ENTRY e { a = f32[4] parameter(0)\n"
	" b = f32[4,4] broadcast(a), dimensions={0}\n"
	" ROOT t = (f32[4,2], s32[4,2]) topk(b), k=2, largest=true }\n",
	/* what xla's HloVerifier accepts as run_hlo_module configures it
	 * (layout-insensitive, allow_mixed_precision): a while body may
	 * return more than its loop state (the while has the body's result
	 * shape) */
	"HloModule m\n"
	"body { p = (s32[], f32[4]) parameter(0)\n"
	" i = s32[] get-tuple-element(p), index=0\n"
	" x = f32[4] get-tuple-element(p), index=1\n"
	" one = s32[] constant(1)\n j = s32[] add(i, one)\n"
	" ROOT t = (s32[], f32[4], f32[4]) tuple(j, x, x) }\n"
	"cond { p = (s32[], f32[4]) parameter(0)\n"
	" i = s32[] get-tuple-element(p), index=0\n"
	" n = s32[] constant(3)\n"
	" ROOT lt = pred[] compare(i, n), direction=LT }\n"
	"ENTRY e { a = f32[4] parameter(0)\n z = s32[] constant(0)\n"
	" t = (s32[], f32[4]) tuple(z, a)\n"
	" ROOT w = (s32[], f32[4], f32[4]) while(t), condition=cond, "
	"body=body }\n",

	/* copies and other ops may drop a dynamic bound or change floating
	 * point precision */
	"HloModule m\n"
	"ENTRY e { a = f32[<=4] parameter(0)\n b = f32[4] parameter(1)\n"
	" c = f32[4] copy(a)\n d = bf16[4] copy(b)\n"
	" s = f32[4] add(a, a)\n"
	" ROOT t = (f32[4], bf16[4], f32[4]) tuple(c, d, s) }\n",

	/* mixed precision operands */
	"HloModule m\n"
	"add { x = f32[] parameter(0)\n y = f32[] parameter(1)\n"
	" ROOT s = f32[] add(x, y) }\n"
	"ENTRY e { a = f32[4] parameter(0)\n b = bf16[4] parameter(1)\n"
	" q = pred[4] parameter(2)\n i = s32[] parameter(3)\n"
	" w = bf16[4,4] parameter(4)\n z = f32[] constant(0)\n"
	" h = bf16[] constant(0)\n"
	" s = bf16[4] add(a, b)\n"
	" c = f32[8] concatenate(a, b), dimensions={0}\n"
	" p = f32[6] pad(a, h), padding=1_1\n"
	" u = f32[4] dynamic-update-slice(a, b, i)\n"
	" l = bf16[4] select(q, a, b)\n k = f32[4] clamp(b, a, b)\n"
	" r = f32[4] reduce(w, z), dimensions={1}, to_apply=add\n"
	" rw = f32[2,2] reduce-window(w, z), window={size=2x2 stride=2x2}, "
	"to_apply=add\n"
	" m = f32[4] map(a, b), dimensions={0}, to_apply=add\n"
	" n = bf16[3] rng(z, z), distribution=rng_uniform\n"
	" ROOT t = (bf16[4], f32[8], f32[6], f32[4], bf16[4], f32[4], f32[4],"
	" f32[2,2], f32[4], bf16[3]) tuple(s, c, p, u, l, k, r, rw, m, n) }\n",
	NULL
};

/* a module and the message its verification must give */
static const char *const badtext[][2] = {
	{"HloModule m\n"
	"add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
	" ROOT s = f32[] add(a, b) }\n"
	"ENTRY e { p = f32[4,8] parameter(0)\n z = f32[] constant(0)\n"
	" ROOT r = f32[8] reduce(p, z), dimensions={1}, to_apply=add }\n",
	"instruction r: shape f32[8] but operands give f32[4]"},

	{"HloModule m\n"
	"ENTRY e { o = f32[5,7] parameter(0)\n i = s32[3,1] parameter(1)\n"
	" ROOT g = f32[3,6] gather(o, i), offset_dims={1}, "
	"collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, "
	"slice_sizes={1,7} }\n",
	"instruction g: shape f32[3,6] but operands give f32[3,7]"},

	{"HloModule m\n"
	"ENTRY e { p = f32[2,3] parameter(0)\n"
	" ROOT b = f32[4,2,3] broadcast(p), dimensions={0,1} }\n",
	"instruction b: operand dimension 0 (2) broadcast to dimension 0 of "
	"size 4"},

	{"HloModule m\n"
	"ENTRY e { p = f32[2,3] parameter(0)\n"
	" ROOT d = f32[2,2] dot(p, p), lhs_contracting_dims={1}, "
	"rhs_contracting_dims={0} }\n",
	"contracting dimension sizes differ"},

	{"HloModule m\n"
	"ENTRY e { p = f32[10] parameter(0)\n"
	" ROOT s = f32[5] slice(p), slice={[6:11]} }\n",
	"slice [6:11:1] out of bounds"},

	{"HloModule m\n"
	"add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
	" ROOT s = f32[] add(a, b) }\n"
	"ENTRY e { o = f32[5,7] parameter(0)\n i = s32[3,1] parameter(1)\n"
	" u = f32[3,8] parameter(2)\n"
	" ROOT sc = f32[5,7] scatter(o, i, u), update_window_dims={1}, "
	"inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
	"index_vector_dim=1, to_apply=add }\n",
	"instruction sc: update window dimension 1 larger than the "
	"operand's"},

	{"HloModule m\n"
	"add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
	" ROOT s = f32[] add(a, b) }\n"
	"ENTRY e { o = f32[5,7] parameter(0)\n i = s32[3,1] parameter(1)\n"
	" u = f32[4,7] parameter(2)\n"
	" ROOT s = f32[5,7] scatter(o, i, u), update_window_dims={1}, "
	"inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
	"index_vector_dim=1, to_apply=add }\n",
	"update scatter dimension 0 is 4, indices give 3"},

	{"HloModule m\n"
	"cmp { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
	" ROOT lt = f32[] add(a, b) }\n"
	"ENTRY e { k = f32[10] parameter(0)\n"
	" ROOT s = f32[10] sort(k), dimensions={0}, to_apply=cmp }\n",
	"computation cmp returns f32[], expected pred[]"},

	{"HloModule m\n"
	"add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
	" ROOT s = f32[] add(a, b) }\n"
	"ENTRY e { p = f32[8] parameter(0)\n"
	" ROOT r = f32[4] all-reduce(p), replica_groups={}, to_apply=add }\n",
	"instruction r: shape f32[4] but operands give f32[8]"},

	{"HloModule m\n"
	"ENTRY e { p = f32[8,3] parameter(0)\n"
	" ROOT g = f32[20,3] all-gather(p), replica_groups={}, "
	"dimensions={0} }\n",
	"shape f32[20,3] does not fit an all-gather of operand f32[8,3]"},

	{"HloModule m\n"
	"ENTRY e { p = f32[8,3] parameter(0)\n"
	" ROOT g = f32[24,3] all-gather(p), replica_groups={{0,1},{2,3}}, "
	"dimensions={0} }\n",
	"shape f32[24,3] does not fit an all-gather of operand f32[8,3]"},

	{"HloModule m\n"
	"add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
	" ROOT s = f32[] add(a, b) }\n"
	"ENTRY e { p = f32[8,3] parameter(0)\n"
	" ROOT g = f32[8,2] reduce-scatter(p), replica_groups=[2,4]<=[8], "
	"dimensions={1}, to_apply=add }\n",
	"shape f32[8,2] does not fit a reduce-scatter of operand f32[8,3]"},

	{"HloModule m\n"
	"ENTRY e { p = s32[4] parameter(0)\n"
	" ROOT c = pred[4] compare(p, p), direction=LT, type=TOTALORDER }\n",
	"comparison type TOTALORDER for s32 operands"},

	{"HloModule m\n"
	"ENTRY e { p = f32[4,3] parameter(0)\n z = f32[] parameter(1)\n"
	" ROOT q = f32[6,3] pad(p, z), padding=1_1x0_0_1 }\n",
	"shape f32[6,3] but operands give f32[6,5]"},

	{"HloModule m\n"
	"ENTRY e { p = f32[4,3] parameter(0)\n q = f32[4,2] parameter(1)\n"
	" ROOT c = f32[8,3] concatenate(p, q), dimensions={0} }\n",
	"operand 1 differs in dimension 1"},

	{"HloModule m\n"
	"ENTRY e { p = f32[4,3] parameter(0)\n"
	" ROOT t = f32[4,3] transpose(p), dimensions={1,0} }\n",
	"shape f32[4,3] but operands give f32[3,4]"},

	{"HloModule m\n"
	"ENTRY e { p = f32[4,3] parameter(0)\n i = s32[] parameter(1)\n"
	" ROOT d = f32[5,3] dynamic-slice(p, i, i), "
	"dynamic_slice_sizes={5,3} }\n",
	"slice size 5 out of bounds for dimension 0 of size 4"},

	{"HloModule m\n"
	"ENTRY e { p = s32[4] parameter(0)\n a = f32[4] parameter(1)\n"
	" ROOT s = f32[4] select(p, a, a) }\n",
	"predicate s32[4] is not pred"},

	{"HloModule m\n"
	"ENTRY e { p = f32[4] parameter(0)\n"
	" ROOT b = s16[4] bitcast-convert(p) }\n",
	"shape s16[4] but operands give s16[4,2]"},

	{"HloModule m\n"
	"ENTRY e { p = (f32[4], s32[]) parameter(0)\n"
	" ROOT g = s32[] get-tuple-element(p), index=2 }\n",
	"index 2 out of range for (f32[4], s32[])"},

	{"HloModule m\n"
	"ENTRY e { ROOT i = f32[4,3] iota(), iota_dimension=2 }\n",
	"iota_dimension 2 out of range"},

	{"HloModule m\n"
	"f { a = f32[4] parameter(0)\n ROOT n = f32[4] negate(a) }\n"
	"ENTRY e { p = f32[3] parameter(0)\n"
	" ROOT c = f32[4] call(p), to_apply=f }\n",
	"instruction c: parameter 0 of f has shape f32[4], expected f32[3]"},

	{"HloModule m\n"
	"f { a = f32[4] parameter(0)\n ROOT n = f32[4] negate(a) }\n"
	"ENTRY e { p = f32[4] parameter(0)\n"
	" ROOT c = f32[5] fusion(p), kind=kLoop, calls=f }\n",
	"instruction c: shape f32[5] but operands give f32[4]"},

	{"HloModule m\n"
	"add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
	" ROOT s = f32[] add(a, b) }\n"
	"ENTRY e { p = f32[8,8] parameter(0)\n z = f32[] constant(0)\n"
	" ROOT r = f32[4,4] reduce-window(p, z), "
	"window={size=2x2 stride=2x1}, to_apply=add }\n",
	"instruction r: shape f32[4,4] but operands give f32[4,7]"},

	{"HloModule m\n"
	"ENTRY e { x = f32[2,4] parameter(0)\n s = f32[4] parameter(1)\n"
	" o = f32[3] parameter(2)\n"
	" ROOT b = (f32[2,4], f32[4], f32[4]) batch-norm-training(x, s, o), "
	"epsilon=0.001, feature_index=1 }\n",
	"operand 2 is not a vector of the 4 features"},

	{"HloModule m\n"
	"ENTRY e { x = f32[3,8] parameter(0)\n"
	" ROOT f = c64[3,8] fft(x), fft_type=RFFT, fft_length={8} }\n",
	"shape c64[3,8] but operands give c64[3,5]"},

	{"HloModule m\n"
	"ENTRY e { a = f32[4,4] parameter(0)\n b = f32[3,4] parameter(1)\n"
	" ROOT t = f32[3,4] triangular-solve(a, b), left_side=true, "
	"lower=true, transpose_a=NO_TRANSPOSE }\n",
	"b does not fit a"},

	{"HloModule m\n"
	"ENTRY e { a = f32[4,3] parameter(0)\n"
	" ROOT c = f32[4,3] cholesky(a), lower=true }\n",
	"a is not a batch of square matrices"},

	{"HloModule m\n"
	"ENTRY e { a = f32[4,4] parameter(0)\n"
	" ROOT t = (f32[4,5], s32[4,5]) topk(a), k=5, largest=true }\n",
	"k=5 does not fit operand"},

	{"HloModule m\n"
	"ENTRY e { s = u64[2] parameter(0)\n"
	" ROOT r = (u64[3], u32[8]) rng-bit-generator(s), "
	"algorithm=rng_default }\n",
	"shape (u64[3], u32[8]) but operands give (u64[2], u32[8])"},

	{"HloModule m\n"
	"ENTRY e { p = f32[4] parameter(0)\n"
	" ROOT a = token[] after-all(p) }\n",
	"operand 0 has shape f32[4], expected token[]"},

	{"HloModule m\n"
	"f { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
	" ROOT s = f32[4] broadcast(a), dimensions={} }\n"
	"ENTRY e { p = f32[4] parameter(0)\n"
	" ROOT m = f32[4] map(p, p), dimensions={0}, to_apply=f }\n",
	"mapped computation f returns f32[4], expected a scalar"},

	{"HloModule m\n"
	"sel { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
	" ROOT g = pred[] compare(a, b), direction=GE }\n"
	"add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
	" ROOT s = f32[] add(a, b) }\n"
	"ENTRY e { o = f32[8] parameter(0)\n s = f32[3] parameter(1)\n"
	" z = f32[] constant(0)\n"
	" ROOT r = f32[8] select-and-scatter(o, s, z), "
	"window={size=2 stride=2}, select=sel, scatter=add }\n",
	"source does not match the windowed operand"},

	{"HloModule m\n"
	"a { x = f32[4] parameter(0)\n ROOT n = f32[4] negate(x) }\n"
	"ENTRY e { p = f32[4] parameter(0)\n"
	" s = ((f32[4]), f32[5]) async-start(p), calls=a\n"
	" ROOT d = f32[5] async-done(s) }\n",
	"shape ((f32[4]), f32[5]) does not hold the result of a"},

	{"HloModule m\n"
	"ENTRY e { p = f32[4] parameter(0)\n"
	" ROOT n = f32[4] negate(p), control-predecessors={n} }\n",
	"its instructions form a cycle"},

	{"HloModule m\n"
	"ENTRY e { x = f32[1,8,8,4] parameter(0)\n"
	" k = f32[3,3,2,6] parameter(1)\n"
	" ROOT c = f32[1,8,8,6] convolution(x, k), window={size=3x3 "
	"pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=3 }\n",
	"do not fit the group counts"},

	{"HloModule m\n"
	"ENTRY e { p = f32[4,3] parameter(0)\n"
	" ROOT r = f32[4] reduce-precision(p), exponent_bits=5, "
	"mantissa_bits=10 }\n",
	"shape f32[4] but operands give f32[4,3]"},
	/* and what it rejects: a copy of other dimensions or of an integer
	 * type, precision changes through data pass-through (tuple), a
	 * while state the body does not take */
	{"HloModule m\n"
	"ENTRY e { a = f32[4] parameter(0)\n"
	" ROOT c = f32[5] copy(a) }\n",
	"shape f32[5] but operands give f32[4]"},

	{"HloModule m\n"
	"ENTRY e { a = f32[4] parameter(0)\n"
	" ROOT c = s32[4] copy(a) }\n",
	"shape s32[4] but operands give f32[4]"},

	{"HloModule m\n"
	"ENTRY e { a = f32[4] parameter(0)\n"
	" ROOT t = (bf16[4]) tuple(a) }\n",
	"shape (bf16[4]) but operands give (f32[4])"},

	{"HloModule m\n"
	"ENTRY e { a = f32[4] parameter(0)\n b = s32[4] parameter(1)\n"
	" ROOT s = f32[4] add(a, b) }\n",
	"operands 0 and 1 differ"},

	{"HloModule m\n"
	"body { ROOT p = (s32[], f32[4]) parameter(0) }\n"
	"cond { p = (s32[], f32[4]) parameter(0)\n"
	" ROOT f = pred[] constant(false) }\n"
	"ENTRY e { a = f32[4] parameter(0)\n"
	" ROOT w = f32[4] while(a), condition=cond, body=body }\n",
	"parameter 0 of body has shape (s32[], f32[4]), expected f32[4]"},

	{NULL, NULL}
};

/* ops.def's family column agrees with the flags and arities: the
 * consumers (inference, evaluator, cost) treat a family alike */
START_TEST(op_families)
{
	int n[OPFAM_COUNT] = {0}, op, f;
	unsigned fl;

	for (op = 0; op < HOP_COUNT; op++) {
		f = hlo_op_family(op);
		fl = hlo_opinfo[op].flags;
		ck_assert_int_ge(f, 0);
		ck_assert_int_lt(f, OPFAM_COUNT);
		n[f]++;
		if (f == OPFAM_UNARY || f == OPFAM_BINARY)
			ck_assert_int_eq(hlo_opinfo[op].arity,
				f == OPFAM_UNARY ? 1 : 2);
		/* elementwise families: OPF_ELEM, bitcast-convert aside (its
		 * element count may change); OPF_ELEM elsewhere only for copy
		 * (data movement) and map (a called computation) */
		if (hlo_op_elementwise_family(op) && op != HOP_BITCASTCVT)
			ck_assert_msg(fl & OPF_ELEM, "%s", hlo_opinfo[op].name);
		if ((fl & OPF_ELEM) && !hlo_op_elementwise_family(op))
			ck_assert_msg(op == HOP_COPY || op == HOP_MAP, "%s",
				hlo_opinfo[op].name);
		if (fl & OPF_COLL)
			ck_assert_int_eq(f, OPFAM_COLLECTIVE);
		if (f == OPFAM_CONTROL || f == OPFAM_REDUCE)
			ck_assert_msg((fl & (OPF_CALLS | OPF_ASYNC)) ||
				op == HOP_TOPK, "%s", hlo_opinfo[op].name);
		if (f == OPFAM_LEAF)
			ck_assert_int_eq(hlo_opinfo[op].arity, 0);
		ck_assert_int_eq(hlo_op_external_family(op),
			f == OPFAM_COLLECTIVE || f == OPFAM_IO ||
			f == OPFAM_RANDOM || f == OPFAM_OPAQUE);
	}
	for (f = 0; f < OPFAM_COUNT; f++)
		ck_assert_int_gt(n[f], 0);
	ck_assert_int_eq(n[OPFAM_UNARY], 35);
	ck_assert_int_eq(n[OPFAM_BINARY], 17);
}
END_TEST

/* every module that verifies evaluates, or is refused as not evaluable
 * (never as bad input, never a crash): the evaluator meets what xla's
 * verifier lets through (mixed precision, a while body of another shape) */
START_TEST(verified_evaluable)
{
	HloInputHints h;
	HloEval ev;
	HloVal **args, *out;
	HloModule *m;
	HloError e;
	uint32_t n;
	int k, r, refused = 0;

	for (k = 0; goodtext[k]; k++) {
		m = parse(goodtext[k]);
		hlo_eval_hints(m, &h);
		hlo_eval_init(&ev, m, 0, &e);
		ck_assert(hlo_eval_inputs(&ev, 1, &h, &args, &n) == 0);
		out = NULL;
		r = hlo_eval_entry(&ev, args, n, &out);
		ck_assert_msg(r == 0 || ev.status == EV_NOEVAL, "module %d: %s",
			k, e.msg);
		refused += r != 0;
		hlo_val_unref(&ev, out);
		hlo_eval_free_args(&ev, args, n);
		hlo_eval_fini(&ev);
		hlo_eval_hints_free(&h);
		hlo_module_free(m);
	}
	ck_assert_int_ge(refused, 2);
}
END_TEST

START_TEST(parsed_modules)
{
	HloModule *m;
	HloError e;
	int k, wrong = 0;

	for (k = 0; goodtext[k]; k++) {
		m = parse(goodtext[k]);
		ck_assert_msg(verifies(m, &e), "rejected: %s\n%s", e.msg,
			goodtext[k]);
		hlo_module_free(m);
	}
	for (k = 0; badtext[k][0]; k++) {
		m = parse(badtext[k][0]);
		if (verifies(m, &e) || !strstr(e.msg, badtext[k][1])) {
			fprintf(stderr, "bad module %d: got \"%s\", expected "
				"\"%s\"\n", k, e.msg, badtext[k][1]);
			wrong++;
		}
		hlo_module_free(m);
	}
	ck_assert_int_eq(wrong, 0);
}
END_TEST

/* corrupted modules: never a crash, and what verifies infers cleanly */

static const char richtext[] =
	"HloModule rich\n"
	"add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
	" ROOT s = f32[] add(a, b) }\n"
	"body { p = (s32[], f32[4,8]) parameter(0)\n"
	" i = s32[] get-tuple-element(p), index=0\n"
	" x = f32[4,8] get-tuple-element(p), index=1\n"
	" one = s32[] constant(1)\n j = s32[] add(i, one)\n"
	" y = f32[4,8] multiply(x, x)\n"
	" ROOT t = (s32[], f32[4,8]) tuple(j, y) }\n"
	"cond { p = (s32[], f32[4,8]) parameter(0)\n"
	" i = s32[] get-tuple-element(p), index=0\n"
	" n = s32[] constant(3)\n"
	" ROOT lt = pred[] compare(i, n), direction=LT }\n"
	"ENTRY main { x = f32[4,8] parameter(0)\n"
	" k = f32[8,16] parameter(1)\n z = s32[] constant(0)\n"
	" t0 = (s32[], f32[4,8]) tuple(z, x)\n"
	" w = (s32[], f32[4,8]) while(t0), condition=cond, body=body\n"
	" y = f32[4,8] get-tuple-element(w), index=1\n"
	" d = f32[4,16] dot(y, k), lhs_contracting_dims={1}, "
	"rhs_contracting_dims={0}\n"
	" zero = f32[] constant(0)\n"
	" r = f32[16] reduce(d, zero), dimensions={0}, to_apply=add\n"
	" b = f32[4,16] broadcast(r), dimensions={1}\n"
	" s = f32[2,16] slice(b), slice={[0:4:2], [0:16]}\n"
	" i = s32[3,1] parameter(2)\n"
	" g = f32[3,16] gather(b, i), offset_dims={1}, "
	"collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, "
	"slice_sizes={1,16}\n"
	" c = f32[5,16] concatenate(s, g), dimensions={0}\n"
	" ROOT o = (f32[5,16], f32[16]) tuple(c, r) }\n";

static uint64_t
rnd(uint64_t *st)
{
	*st = *st * 6364136223846793005ull + 1442695040888963407ull;
	return *st >> 33;
}

/* a random field of the module gets a random or off-by-some value */
static void
corrupt(HloModule *m, uint64_t *st)
{
	static const int64_t odd[] = {-1, 0, 1, 2, 7, 64, 65, 1 << 20,
		INT32_MAX, UINT32_MAX, INT64_MAX, INT64_MIN};
	int64_t x = odd[rnd(st) % 12];
	uint32_t c = rnd(st) % m->ncomps, i;
	HloInstr *in;
	HloShape *sh;
	HloAttr *a;

	if (rnd(st) % 3 == 0)
		x = (int64_t)rnd(st) % 40;
	if (!m->comps[c].nins)
		return;
	i = rnd(st) % m->comps[c].nins;
	in = &m->comps[c].ins[i];
	sh = &m->shapes[rnd(st) % m->nshapes];
	a = m->nattrv ? &m->attrv[rnd(st) % m->nattrv] : NULL;
	switch (rnd(st) % 24) {
	case 0: in->op = x; break;
	case 1: in->shape = x; break;
	case 2: in->nops = x; break;
	case 3: if (in->nops) m->ids[in->ops] = x; break;
	case 4: in->ncalled = x; break;
	case 5: if (in->ncalled) m->ids[in->called] = x; break;
	case 6: in->name = x; break;
	case 7: in->num = x; break;
	case 8: in->flags ^= HI_DEAD; break;
	case 9: in->nctrl = x; break;
	case 10: in->nattrs = x; break;
	case 11: sh->type = x; break;
	case 12: sh->rank = x; break;
	case 13: sh->dims = x; break;
	case 14: sh->ntuple = x; break;
	case 15: sh->tuple = x; break;
	case 16: sh->dynmask = x; break;
	case 17: if (a) a->n = x; break;
	case 18: if (a) a->v = x; break;
	case 19: if (a) a->kind = x; break;
	case 20: if (m->nints) m->ints[rnd(st) % m->nints] = x; break;
	case 21: if (m->nids) m->ids[rnd(st) % m->nids] = x; break;
	case 22: m->comps[c].root = x; break;
	default: m->entry = x; break;
	}
}

START_TEST(corrupted_modules)
{
	HloModule *base0, *m;
	uint64_t st = 12345;
	uint32_t c, i, s;
	HloError e;
	int k, j, ok = 0;

	base0 = parse(richtext);
	ck_assert_msg(verifies(base0, &e), "%s", e.msg);
	for (k = 0; k < 3000; k++) {
		m = hlo_module_clone(base0);
		for (j = 1 + rnd(&st) % 3; j > 0; j--)
			corrupt(m, &st);
		if (hlo_verify(m, &e) == 0) {
			ok++;
			for (c = 0; c < m->ncomps; c++)
				for (i = 0; i < m->comps[c].nins; i++)
					if (!(m->comps[c].ins[i].flags &
					    HI_DEAD))
						ck_assert_int_eq(
						    hlo_infer_shape(m, c, i,
						    &s, &e), 0);
		} else
			ck_assert_ptr_nonnull(strstr(e.msg, "error: verify: "));
		hlo_module_free(m);
	}
	hlo_module_free(base0);
	fprintf(stderr, "corrupted modules: %d of 3000 still verify\n", ok);
}
END_TEST

/* the sweep */

typedef struct {
	int files, loaded, verified, invalid, fails, mutated, caught;
	int seen[HOP_COUNT], freety[HOP_COUNT], freedim[HOP_COUNT];
	int wrong[HOP_COUNT], missed[HOP_COUNT];
} Sweep;

/* ops whose result shape is free, or partly so: a changed element type
 * or first dimension (dim) is not necessarily wrong */
static int
freeshape(int op, int dim)
{
	switch (op) {
	case HOP_PARAMETER: case HOP_CUSTOMCALL: case HOP_BITCAST:
	case HOP_SCAN: case HOP_COLLREDUCE: case HOP_SHUFFLE:
	case HOP_IOTA: case HOP_RNG: case HOP_RNGBITGEN: case HOP_INFEED:
	case HOP_RECV: case HOP_ASYNCSTART: case HOP_CONSTANT:
		return 1;
	case HOP_CONVERT: case HOP_BITCASTCVT: case HOP_STOCHCONVERT:
	case HOP_DOT: case HOP_CONV: case HOP_RAGGEDDOT: case HOP_SCALEDDOT:
		return !dim;
	case HOP_BROADCAST: case HOP_RESHAPE: case HOP_DYNRESHAPE:
	case HOP_ALLGATHER: case HOP_ALLGATHERSTART: case HOP_REDUCESCATTER:
	case HOP_COLLPERMUTESTART: case HOP_ALLGATHERDONE:
	case HOP_COLLPERMUTEDONE:
		return dim;
	}
	return 0;
}

/* shape s with another element type (dim 0) or first dimension + 1;
 * the other type is of another class (s32 for floating point, else f32),
 * as floating point precisions may mix (allow_mixed_precision) */
static uint32_t
changed(HloModule *m, uint32_t s, int dim)
{
	HloShape sh = *hlo_sh(m, s);
	int64_t d[64];

	if (sh.type == TY_TUPLE || sh.type == TY_TOKEN || (dim && !sh.rank))
		return HLO_NONE;
	memcpy(d, hlo_dims(m, &sh), sh.rank * 8u);
	if (dim)
		d[0]++;
	else
		sh.type = hlo_typeinfo[sh.type].cls == C_FLOAT ? TY_S32 :
			TY_F32;
	return hlo_shape(m, sh.type, sh.rank, d, NULL, sh.dynmask, 0);
}

/* hlo_infer_shape gives the instruction's shape, and (except for ops
 * with free shapes) not a changed one */
static void
inferall(HloModule *m, Sweep *w, const char *path)
{
	uint32_t c, i, s, x, old;
	HloError e;
	int dim, op;

	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++) {
			op = m->comps[c].ins[i].op;
			old = m->comps[c].ins[i].shape;
			w->seen[op]++;
			if (hlo_infer_shape(m, c, i, &s, &e) ||
			    !hlo_shape_eq_nolayout(m, s, old)) {
				if (!w->wrong[op]++)
					fprintf(stderr, "%s: %s: inferred "
						"shape differs\n", path,
						hlo_cstr(m,
						m->comps[c].ins[i].name));
				continue;
			}
			for (dim = 0; dim < 2; dim++) {
				if ((x = changed(m, old, dim)) == HLO_NONE)
					continue;
				m->comps[c].ins[i].shape = x;
				if (!hlo_infer_shape(m, c, i, &s, &e) &&
				    hlo_shape_eq_nolayout(m, s, x))
					(dim ? w->freedim : w->freety)[op]++;
				m->comps[c].ins[i].shape = old;
			}
		}
}

/* changes the shape of instruction i; the module must then fail to
 * verify */
static void
mutate(HloModule *m, uint32_t c, uint32_t i, int dim, Sweep *w,
	const char *path)
{
	uint32_t old = m->comps[c].ins[i].shape, s;
	int op = m->comps[c].ins[i].op;
	HloError e;

	if (freeshape(op, dim) || (s = changed(m, old, dim)) == HLO_NONE)
		return;
	m->comps[c].ins[i].shape = s;
	w->mutated++;
	if (hlo_verify(m, &e) == 0) {
		if (!w->missed[op]++)
			fprintf(stderr, "%s: %s of %s %s not caught\n", path,
				dim ? "first dimension" : "element type",
				hlo_opinfo[op].name,
				hlo_cstr(m, m->comps[c].ins[i].name));
	} else
		w->caught++;
	m->comps[c].ins[i].shape = old;
}

/* corpus modules xla itself would reject (tests of other tools), with
 * the message they must give */
static const char *const invalid[][2] = {
	{"tests/import.hlo", "computation test_conv, instruction "
		"convolution.4: window size 3 differs from kernel spatial "
		"dimension 2"},
	{"generate_hlo_test_checks_test_input.part04.hlo", "instruction "
		"call-foo.bar.baz.0: parameter 0 of foo.bar.baz.0 has shape "
		"f32[], expected f32[4]"},
	{"generate_hlo_test_checks_test_output.part04.hlo", "instruction "
		"call-foo.bar.baz.0: parameter 0 of foo.bar.baz.0 has shape "
		"f32[], expected f32[4]"},
	{NULL, NULL}
};

static const char *
knowninvalid(const char *path)
{
	size_t n = strlen(path), k;
	int j;

	for (j = 0; invalid[j][0]; j++) {
		k = strlen(invalid[j][0]);
		if (n >= k && !strcmp(path + n - k, invalid[j][0]))
			return invalid[j][1];
	}
	return NULL;
}

static void
sweepfile(const char *path, Sweep *w)
{
	const char *want = knowninvalid(path);

	HloModule *m = NULL;
	HloError e;
	uint32_t c, i, n = 0, step, k = 0;

	w->files++;
	if (hlo_load(path, &m, &e)) {
		fprintf(stderr, "not loaded: %s\n", e.msg);
		return;
	}
	w->loaded++;
	if (want || hlo_verify(m, &e)) {
		if (!want || !hlo_verify(m, &e) || !strstr(e.msg, want)) {
			fprintf(stderr, "%s: %s\n", path, want ?
				"not rejected as expected" : e.msg);
			w->fails++;
		} else
			w->invalid++;
		hlo_module_free(m);
		return;
	}
	w->verified++;
	inferall(m, w, path);
	for (c = 0; c < m->ncomps; c++)
		n += m->comps[c].nins;
	/* a few whole-module mutations, spread over it */
	step = n / (n > 20000 ? 2 : 6) + 1;
	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++, k++)
			if (k % step == step / 2) {
				mutate(m, c, i, 0, w, path);
				mutate(m, c, i, 1, w, path);
			}
	hlo_module_free(m);
}

static void
sweepdir(const char *dir, Sweep *w)
{
	TuList l = tu_list(dir);
	size_t k;

	for (k = 0; k < l.n; k++)
		sweepfile(l.v[k], w);
	tu_list_free(&l);
}

/* prints the counts; returns the number of unexpected results */
static int
report(const char *what, Sweep *w)
{
	int k, bad = w->fails + w->mutated - w->caught;

	fprintf(stderr, "verify sweep of %s: %d files, %d loaded, %d verified, "
		"%d rejected as known invalid, %d failed; %d of %d module "
		"mutations caught\n", what, w->files, w->loaded, w->verified,
		w->invalid, w->fails, w->caught, w->mutated);
	for (k = 0; k < HOP_COUNT; k++) {
		if (!w->seen[k])
			continue;
		fprintf(stderr, "  %-26s %7d", hlo_opinfo[k].name, w->seen[k]);
		if (w->wrong[k])
			fprintf(stderr, "  inferred differently: %d",
				w->wrong[k]);
		if (w->freety[k])
			fprintf(stderr, "  type free: %d", w->freety[k]);
		if (w->freedim[k])
			fprintf(stderr, "  dims free: %d", w->freedim[k]);
		if (w->missed[k])
			fprintf(stderr, "  mutations missed: %d", w->missed[k]);
		fprintf(stderr, "\n");
		bad += w->wrong[k];
		if ((w->freety[k] && !freeshape(k, 0)) ||
		    (w->freedim[k] && !freeshape(k, 1)))
			bad++;
	}
	return bad;
}

START_TEST(sweep_data)
{
	Sweep w;

	memset(&w, 0, sizeof w);
	sweepdir(TU_DATA, &w);
	ck_assert_int_eq(report("data/", &w), 0);
}
END_TEST

START_TEST(sweep_corpus)
{
	const char *dir = tu_corpus();
	Sweep w;

	if (!dir)
		return;
	memset(&w, 0, sizeof w);
	sweepdir(dir, &w);
	ck_assert_int_eq(report("the corpus", &w), 0);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("verify");
	TCase *t = tcase_create("verify");
	SRunner *r;
	int nf;

	tcase_set_timeout(t, 120);
	tcase_add_test(t, good_elementwise);
	tcase_add_test(t, bad_add_shape);
	tcase_add_test(t, bad_mixed_types);
	tcase_add_test(t, bad_compare_type);
	tcase_add_test(t, bad_undefined_operand);
	tcase_add_test(t, bad_dead_operand);
	tcase_add_test(t, bad_cycle);
	tcase_add_test(t, bad_ctrl_cycle);
	tcase_add_test(t, bad_param_gap);
	tcase_add_test(t, bad_names);
	tcase_add_test(t, bad_arity);
	tcase_add_test(t, bad_ids);
	tcase_add_test(t, bad_noncaller_calls);
	tcase_add_test(t, bad_call_cycle);
	tcase_add_test(t, reduce_signature);
	tcase_add_test(t, dot_shapes);
	tcase_add_test(t, broadcast_dims);
	tcase_add_test(t, slice_bounds);
	tcase_add_test(t, while_shapes);
	tcase_add_test(t, conditional_shapes);
	tcase_add_test(t, conv_shapes);
	tcase_add_test(t, conv_dnums);
	tcase_add_test(t, constant_literal);
	tcase_add_test(t, infer_shapes);
	tcase_add_test(t, op_families);
	tcase_add_test(t, parsed_modules);
	tcase_add_test(t, verified_evaluable);
	tcase_add_test(t, corrupted_modules);
	tcase_add_test(t, sweep_data);
	tcase_add_test(t, sweep_corpus);
	suite_add_tcase(s, t);
	r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	nf = srunner_ntests_failed(r);
	srunner_free(r);
	return nf != 0;
}
