/* check_ir.c: the IR core: interning, shapes, instructions, attributes,
 * clone, users, topological order, compaction */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"

START_TEST(strings_intern)
{
	HloModule *m = hlo_module_new();
	uint32_t a = hlo_strz(m, "add.1"), b = hlo_strz(m, "add.2");
	int i;

	ck_assert_uint_ne(a, b);
	ck_assert_uint_eq(hlo_strz(m, "add.1"), a);
	ck_assert_str_eq(hlo_cstr(m, b), "add.2");
	ck_assert_uint_eq(hlo_strz(m, ""), 0);
	ck_assert_uint_eq(hlo_find_str(m, "nope", 4), HLO_NONE);
	for (i = 0; i < 5000; i++) {
		char buf[32];

		snprintf(buf, sizeof buf, "n.%d", i);
		hlo_strz(m, buf);
	}
	ck_assert_uint_eq(hlo_strz(m, "add.1"), a);
	ck_assert_uint_eq(hlo_find_str(m, "n.4999", 6), hlo_strz(m, "n.4999"));
	hlo_module_free(m);
}
END_TEST

/* hlo_str_suffixed writes k in decimal, every digit count */
START_TEST(strings_suffixed)
{
	HloModule *m = hlo_module_new();
	unsigned ks[] = {0, 7, 10, 42, 99, 100, 305, 1000, 9999, 10000,
		65536, 1234567, 4294967295u}, i;
	char want[64];

	for (i = 0; i < sizeof ks / sizeof *ks; i++) {
		uint32_t id = hlo_str_suffixed(m, "add.x", 3, ks[i]);

		snprintf(want, sizeof want, "add.%u", ks[i]);
		ck_assert_uint_ne(id, HLO_NONE);
		ck_assert_str_eq(hlo_cstr(m, id), want);
		ck_assert_uint_eq(hlo_str_suffixed(m, "add", 3, ks[i]),
			HLO_NONE);	/* taken now */
	}
	hlo_module_free(m);
}
END_TEST

START_TEST(shapes_intern)
{
	HloModule *m = hlo_module_new();
	int64_t d[2] = {2, 3}, l[2] = {1, 0}, l2[2] = {0, 1};
	uint32_t s = hlo_shape(m, TY_F32, 2, d, NULL, 0, 0);
	uint32_t t = hlo_shape(m, TY_F32, 2, d, l, 0, 0);
	uint32_t u = hlo_shape(m, TY_F32, 2, d, l2, 0, 0);
	uint32_t el[2], tup;

	ck_assert_uint_eq(hlo_shape(m, TY_F32, 2, d, NULL, 0, 0), s);
	ck_assert_uint_ne(s, t);
	ck_assert_uint_ne(t, u);
	ck_assert(hlo_shape_eq_nolayout(m, s, u));
	ck_assert_uint_eq(hlo_shape_default_layout(m, s), t);
	ck_assert_uint_eq(hlo_shape_no_layout(m, u), s);
	ck_assert_int_eq(hlo_shape_elems(m, s), 6);
	ck_assert_int_eq(hlo_shape_bytes(m, s), 24);
	ck_assert_uint_ne(hlo_shape_with_type(m, s, TY_BF16), s);
	ck_assert_int_eq(hlo_shape_bytes(m, hlo_shape_with_type(m, s, TY_BF16)),
		12);
	el[0] = s;
	el[1] = hlo_shape_scalar(m, TY_S32);
	tup = hlo_shape_tuple(m, 2, el);
	ck_assert_uint_eq(hlo_shape_tuple(m, 2, el), tup);
	ck_assert_int_eq(hlo_sh(m, tup)->ntuple, 2);
	ck_assert_int_eq(hlo_type_bytes(TY_PRED), 1);
	ck_assert_int_eq(hlo_type_bytes(TY_S4), 1);
	ck_assert_int_eq(hlo_type_bytes(TY_C128), 16);
	ck_assert_int_eq(hlo_type_by_name("bf16", 4), TY_BF16);
	ck_assert_int_eq(hlo_op_by_name("get-tuple-element", 17), HOP_GTE);
	ck_assert_int_eq(hlo_op_by_name("add", 3), HOP_ADD);
	ck_assert_int_eq(hlo_op_by_name("ad", 2), -1);
	ck_assert_int_eq(hlo_attr_by_key("dimensions", 10), A_DIMENSIONS);
	hlo_module_free(m);
}
END_TEST

START_TEST(shape_overflow)
{
	HloModule *m = hlo_module_new();
	int64_t d[3] = {1 << 20, 1 << 20, 1 << 20};
	uint32_t s = hlo_shape(m, TY_F32, 3, d, NULL, 0, 0);

	ck_assert_int_eq(hlo_shape_elems(m, s), (int64_t)1 << 60);
	ck_assert_int_eq(hlo_shape_bytes(m, s), -1);
	d[0] = INT64_MAX / 2;
	s = hlo_shape(m, TY_F32, 3, d, NULL, 0, 0);
	ck_assert_int_eq(hlo_shape_elems(m, s), -1);
	hlo_module_free(m);
}
END_TEST

/* p0, p1 -> add -> neg ; root neg */
static HloModule *
small(uint32_t *c)
{
	HloModule *m = hlo_module_new();
	uint32_t s = hlo_shape_scalar(m, TY_F32), ops[2], a, n;

	*c = hlo_comp_add(m, hlo_strz(m, "main"));
	m->entry = *c;
	ops[0] = hlo_instr_add(m, *c, HOP_PARAMETER, s, hlo_strz(m, "p0"), 0,
		NULL);
	ops[1] = hlo_instr_add(m, *c, HOP_PARAMETER, s, hlo_strz(m, "p1"), 0,
		NULL);
	hlo_ins(m, *c, ops[1])->num = 1;
	a = hlo_instr_add(m, *c, HOP_ADD, s, hlo_strz(m, "add.1"), 2, ops);
	n = hlo_instr_add(m, *c, HOP_NEGATE, s, hlo_strz(m, "negate.2"), 1,
		&a);
	m->comps[*c].root = n;
	return m;
}

START_TEST(instrs_users_topo)
{
	uint32_t c, order[8], k;
	HloModule *m = small(&c);
	HloUsers u;

	ck_assert_int_eq(hlo_param_count(m, c), 2);
	ck_assert_uint_eq(hlo_param(m, c, 1), 1);
	hlo_users(m, c, &u);
	ck_assert_uint_eq(u.start[1] - u.start[0], 1);
	ck_assert_uint_eq(u.list[u.start[2]], 3);
	hlo_users_free(&u);
	ck_assert_int_eq(hlo_topo(m, c, order), 4);
	for (k = 0; k < 4; k++)
		ck_assert_uint_eq(order[k], k);
	/* already in order: compaction keeps every index */
	ck_assert_int_eq(hlo_comp_compact(m, c), 0);
	ck_assert_uint_eq(m->comps[c].nins, 4);
	ck_assert_uint_eq(m->comps[c].root, 3);
	ck_assert_uint_eq(hlo_ops(m, hlo_ins(m, c, 3))[0], 2);
	/* negate (now at 2) before the add it reads (now at 3) */
	{
		HloInstr t = m->comps[c].ins[2];

		m->comps[c].ins[2] = m->comps[c].ins[3];
		m->comps[c].ins[3] = t;
		hlo_ops(m, hlo_ins(m, c, 2))[0] = 3;
		m->comps[c].root = 2;
	}
	ck_assert_int_eq(hlo_topo(m, c, order), 4);
	ck_assert_uint_eq(order[2], 3);
	ck_assert_uint_eq(order[3], 2);
	ck_assert_int_eq(hlo_comp_compact(m, c), 0);
	ck_assert_uint_eq(m->comps[c].root, 3);
	ck_assert_int_eq(hlo_ins(m, c, 3)->op, HOP_NEGATE);
	ck_assert_uint_eq(hlo_ops(m, hlo_ins(m, c, 3))[0], 2);
	/* make a cycle: add uses negate */
	hlo_ops(m, hlo_ins(m, c, 2))[1] = 3;
	ck_assert_int_eq(hlo_topo(m, c, order), -1);
	hlo_module_free(m);
}
END_TEST

START_TEST(attrs_and_clone)
{
	uint32_t c, n, j;
	HloModule *m = small(&c), *m2;
	int64_t dims[2] = {0, 1};
	HloAttr a[2], w;
	const int64_t *v;

	a[0] = hlo_mk_ints(m, A_DIMENSIONS, dims, 2);
	a[1] = hlo_mk_int(A_INDEX, 7);
	hlo_set_attrs(m, c, 3, 2, a);
	ck_assert_int_eq(hlo_attr_int(m, hlo_ins(m, c, 3), A_INDEX, -1), 7);
	ck_assert_int_eq(hlo_attr_int(m, hlo_ins(m, c, 3), A_K, -1), -1);
	v = hlo_attr_ints(m, hlo_ins(m, c, 3), A_DIMENSIONS, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(v[1], 1);
	w = hlo_mk_bytes(m, A_DIRECTION, K_WORD, "LT", 2);
	hlo_attr_set(m, c, 3, &w);
	ck_assert(hlo_attr_is(m, hlo_ins(m, c, 3), A_DIRECTION, "LT"));
	ck_assert(!hlo_attr_is(m, hlo_ins(m, c, 3), A_DIRECTION, "GT"));
	/* sorted by key */
	ck_assert_int_lt(m->attrv[hlo_ins(m, c, 3)->attrs].key,
		m->attrv[hlo_ins(m, c, 3)->attrs + 1].key);
	j = hlo_instr_clone(m, c, 3);
	ck_assert(hlo_attrs_equal(m, hlo_ins(m, c, 3), hlo_ins(m, c, j), NULL));
	ck_assert_str_ne(hlo_cstr(m, hlo_ins(m, c, j)->name), "negate.2");
	hlo_attr_del(m, c, j, A_INDEX);
	ck_assert(!hlo_attrs_equal(m, hlo_ins(m, c, 3), hlo_ins(m, c, j), NULL));

	m2 = hlo_module_clone(m);
	hlo_ops(m2, hlo_ins(m2, c, 2))[0] = 1;
	ck_assert_uint_eq(hlo_ops(m, hlo_ins(m, c, 2))[0], 0);
	ck_assert_uint_eq(hlo_strz(m2, "p1"), hlo_strz(m, "p1"));
	ck_assert_uint_eq(m2->comps[c].nins, m->comps[c].nins);
	hlo_module_free(m2);
	hlo_module_free(m);
}
END_TEST

START_TEST(compact_and_forward)
{
	uint32_t c, map[8], k, d;
	HloModule *m = small(&c);

	/* negate(add) -> forward uses of add to p0, kill add */
	for (k = 0; k < 4; k++)
		map[k] = k;
	map[2] = 0;
	hlo_forward(m, c, map);
	hlo_ins(m, c, 2)->flags |= HI_DEAD;
	ck_assert_int_eq(hlo_comp_compact(m, c), 0);
	ck_assert_uint_eq(m->comps[c].nins, 3);
	ck_assert_uint_eq(m->comps[c].root, 2);
	ck_assert_uint_eq(hlo_ops(m, hlo_ins(m, c, 2))[0], 0);
	/* an unreachable computation disappears */
	d = hlo_comp_add(m, hlo_strz(m, "dead"));
	(void)d;
	ck_assert_uint_eq(m->ncomps, 2);
	hlo_module_compact(m);
	ck_assert_uint_eq(m->ncomps, 1);
	ck_assert_uint_eq(m->entry, 0);
	hlo_module_free(m);
}
END_TEST

START_TEST(side_effects)
{
	uint32_t c;
	HloModule *m = small(&c);
	HloAttr a = hlo_mk_int(A_CHANNEL_ID, 1);
	uint32_t i = hlo_instr_add(m, c, HOP_ALLREDUCE,
		hlo_shape_scalar(m, TY_F32), hlo_strz(m, "ar"), 1, &c);

	ck_assert(!hlo_has_side_effect(m, hlo_ins(m, c, i)));
	hlo_attr_set(m, c, i, &a);
	ck_assert(hlo_has_side_effect(m, hlo_ins(m, c, i)));
	ck_assert(hlo_has_side_effect(m, &(HloInstr){.op = HOP_RNG}));
	ck_assert(!hlo_has_side_effect(m, &(HloInstr){.op = HOP_ADD}));
	hlo_module_free(m);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("ir");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int nf;

	tcase_add_test(tc, strings_intern);
	tcase_add_test(tc, strings_suffixed);
	tcase_add_test(tc, shapes_intern);
	tcase_add_test(tc, shape_overflow);
	tcase_add_test(tc, instrs_users_topo);
	tcase_add_test(tc, attrs_and_clone);
	tcase_add_test(tc, compact_and_forward);
	tcase_add_test(tc, side_effects);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? 1 : 0;
}
