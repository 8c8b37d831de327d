/* check_text.c: the HLO text reader (hlo/parse.c) and the float
 * helpers it uses (hlo/float.c): shapes, literals of every element type,
 * attributes of every kind, called computations, comments, header-less
 * modules, exact error positions, hostile inputs; then a parse sweep
 * and a print round trip over data/ and the corpus. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "testutil.h"

static HloModule *
ok(const char *text)
{
	HloError e;
	HloModule *m = tu_parse(text, &e);

	ck_assert_msg(m != NULL, "parse failed: %s", e.msg);
	return m;
}

static void
bad(const char *text, const char *msg)
{
	HloError e;
	HloModule *m = tu_parse(text, &e);

	ck_assert_msg(m == NULL, "parsed, want error %s", msg);
	ck_assert_str_eq(e.msg, msg);
}

/* instruction named name anywhere in m */
static const HloInstr *
find(const HloModule *m, const char *name, uint32_t *comp)
{
	uint32_t c, i;

	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++)
			if (!strcmp(hlo_cstr(m, m->comps[c].ins[i].name),
			    name)) {
				if (comp)
					*comp = c;
				return &m->comps[c].ins[i];
			}
	ck_abort_msg("no instruction %s", name);
	return NULL;
}

static uint32_t
compnamed(const HloModule *m, const char *name)
{
	uint32_t c;

	for (c = 0; c < m->ncomps; c++)
		if (!strcmp(hlo_cstr(m, m->comps[c].name), name))
			return c;
	ck_abort_msg("no computation %s", name);
	return 0;
}

/* one instruction's shape, parsed from "ROOT x = <shape> parameter(0)" */
static HloModule *
oneshape(const char *shape, const HloShape **sh)
{
	char buf[512];
	HloModule *m;

	snprintf(buf, sizeof buf, "HloModule t\nENTRY e {\n  ROOT x = %s "
		"parameter(0)\n}\n", shape);
	m = ok(buf);
	*sh = hlo_sh(m, find(m, "x", NULL)->shape);
	return m;
}

START_TEST(shapes)
{
	const HloShape *sh, *el;
	HloModule *m;

	m = oneshape("f32[2,3]{1,0}", &sh);
	ck_assert_int_eq(sh->type, TY_F32);
	ck_assert_int_eq(sh->rank, 2);
	ck_assert(sh->flags & SH_LAYOUT);
	ck_assert_int_eq(hlo_dims(m, sh)[0], 2);
	ck_assert_int_eq(hlo_dims(m, sh)[1], 3);
	ck_assert_int_eq(hlo_m2m(m, sh)[0], 1);
	ck_assert_int_eq(hlo_m2m(m, sh)[1], 0);
	ck_assert_uint_eq(sh->tail, 0);
	hlo_module_free(m);

	m = oneshape("f32[]", &sh);
	ck_assert_int_eq(sh->rank, 0);
	ck_assert(!(sh->flags & SH_LAYOUT));
	hlo_module_free(m);

	m = oneshape("bf16[ 4 , 5 ]", &sh);
	ck_assert_int_eq(sh->type, TY_BF16);
	ck_assert_int_eq(hlo_dims(m, sh)[1], 5);
	ck_assert(!(sh->flags & SH_LAYOUT));
	hlo_module_free(m);

	m = oneshape("(f32[2], (s32[], pred[]), ())", &sh);
	ck_assert_int_eq(sh->type, TY_TUPLE);
	ck_assert_int_eq(sh->ntuple, 3);
	el = hlo_sh(m, hlo_tuple_elems(m, sh)[1]);
	ck_assert_int_eq(el->type, TY_TUPLE);
	ck_assert_int_eq(el->ntuple, 2);
	ck_assert_int_eq(hlo_sh(m, hlo_tuple_elems(m, el)[1])->type, TY_PRED);
	ck_assert_int_eq(hlo_sh(m, hlo_tuple_elems(m, sh)[2])->ntuple, 0);
	hlo_module_free(m);

	m = oneshape("token[]", &sh);
	ck_assert_int_eq(sh->type, TY_TOKEN);
	hlo_module_free(m);

	m = oneshape("f32[<=8,3,<=2]", &sh);
	ck_assert_uint_eq(sh->dynmask, 5);
	ck_assert_int_eq(hlo_dims(m, sh)[0], 8);
	hlo_module_free(m);

	m = oneshape("f32[?,784]", &sh);
	ck_assert_uint_eq(sh->dynmask, 1);
	ck_assert(hlo_dims(m, sh)[0] == INT64_MIN);
	hlo_module_free(m);

	m = oneshape("bf16[8,128,4]{2,1,0:T(8,128)(2,1)S(1)}", &sh);
	ck_assert_str_eq(hlo_cstr(m, sh->tail), "T(8,128)(2,1)S(1)");
	ck_assert_int_eq(hlo_m2m(m, sh)[0], 2);
	hlo_module_free(m);

	m = oneshape("u4[1024,512]{1,0:E(4)}", &sh);
	ck_assert_int_eq(sh->type, TY_U4);
	ck_assert_str_eq(hlo_cstr(m, sh->tail), "E(4)");
	hlo_module_free(m);

	m = oneshape("b(f32[2,4])", &sh);
	ck_assert_int_eq(sh->type, TY_BUFFER);
	ck_assert_int_eq(sh->ntuple, 1);
	ck_assert_int_eq(hlo_sh(m, hlo_tuple_elems(m, sh)[0])->rank, 2);
	hlo_module_free(m);

	/* every element type of types.def has a spelling */
	for (int t = 1; t < TY_COUNT; t++) {
		char buf[64];

		if (t == TY_TUPLE || t == TY_BUFFER)
			continue;
		snprintf(buf, sizeof buf, "%s[2]", hlo_typeinfo[t].name);
		m = oneshape(buf, &sh);
		ck_assert_int_eq(sh->type, t);
		hlo_module_free(m);
	}
}
END_TEST

/* the bytes of "constant(<lit>)" of the given shape, into out */
static uint32_t
lit(const char *shape, const char *text, void *out, size_t cap)
{
	char buf[4096];
	HloModule *m;
	const void *b;
	uint32_t n = 0;

	snprintf(buf, sizeof buf, "HloModule t\nENTRY e {\n  ROOT c = %s "
		"constant(%s)\n}\n", shape, text);
	m = ok(buf);
	b = hlo_literal(m, find(m, "c", NULL), &n);
	ck_assert_msg(b != NULL || n == 0, "no literal");
	ck_assert_uint_le(n, cap);
	if (n)
		memcpy(out, b, n);
	hlo_module_free(m);
	return n;
}

static uint64_t
lit1(const char *shape, const char *text)
{
	uint8_t b[16] = {0};
	uint64_t v = 0;
	uint32_t n = lit(shape, text, b, sizeof b), k;

	for (k = 0; k < n && k < 8; k++)
		v |= (uint64_t)b[k] << 8 * k;
	return v;
}

static void
litbad(const char *shape, const char *text, const char *msg)
{
	char buf[4096];
	HloError e;

	snprintf(buf, sizeof buf, "HloModule t\nENTRY e {\n  ROOT c = %s "
		"constant(%s)\n}\n", shape, text);
	ck_assert_msg(tu_parse(buf, &e) == NULL, "%s(%s) parsed", shape,
		text);
	ck_assert_msg(strstr(e.msg, msg) != NULL, "%s: want %s", e.msg, msg);
}

START_TEST(literals_int)
{
	uint8_t b[64];
	int64_t v[4];

	ck_assert_uint_eq(lit1("s32[]", "-7"), 0xfffffff9u);
	ck_assert_uint_eq(lit1("s32[]", "2147483647"), 0x7fffffffu);
	ck_assert_uint_eq(lit1("u8[]", "255"), 255);
	ck_assert_uint_eq(lit1("s8[]", "-128"), 0x80);
	ck_assert_uint_eq(lit1("u64[]", "18446744073709551615"), UINT64_MAX);
	ck_assert_uint_eq(lit1("s64[]", "-9223372036854775808"),
		(uint64_t)INT64_MIN);
	ck_assert_uint_eq(lit1("s4[]", "-8"), 0xf8);
	ck_assert_uint_eq(lit1("s4[]", "7"), 7);
	ck_assert_uint_eq(lit1("u4[]", "15"), 15);
	ck_assert_uint_eq(lit1("s2[]", "-2"), 0xfe);
	ck_assert_uint_eq(lit1("u2[]", "3"), 3);
	ck_assert_uint_eq(lit1("pred[]", "true"), 1);
	ck_assert_uint_eq(lit1("pred[]", "false"), 0);
	ck_assert_uint_eq(lit1("pred[]", "1"), 1);
	ck_assert_uint_eq(lit(("pred[3]"), "{true, 0, 1}", b, sizeof b), 3);
	ck_assert(b[0] == 1 && b[1] == 0 && b[2] == 1);
	ck_assert_uint_eq(lit("s64[2,2]", "{ { 1, 2 }, {3,4} }", v, sizeof v),
		32);
	ck_assert(v[0] == 1 && v[1] == 2 && v[2] == 3 && v[3] == 4);
	ck_assert_uint_eq(lit("s32[0]", "{}", b, sizeof b), 0);
	ck_assert_uint_eq(lit("s32[2,0]", "{{}, {}}", b, sizeof b), 0);
	ck_assert_uint_eq(lit("u16[3]{0}", "{1,2,65535}", b, sizeof b), 6);
	ck_assert(b[4] == 0xff && b[5] == 0xff);

	litbad("s8[]", "128", "out of range for s8");
	litbad("u8[]", "-1", "out of range for u8");
	litbad("s4[]", "8", "out of range for s4");
	litbad("u4[]", "16", "out of range for u4");
	litbad("u64[]", "18446744073709551616", "out of range for u64");
	litbad("s32[]", "1.5", "expected an integer of type s32");
	litbad("pred[]", "2", "expected true or false");
	litbad("s32[3]", "{1, 2}", "expected 3 elements in dimension 0, got 2");
	litbad("s32[2]", "{1, 2, 3}", "more than 2 elements in dimension 0");
	litbad("s32[2,2]", "{1, 2}", "expected '{' to start a nested array");
	litbad("s32[2]", "{{1}, {2}}", "array nested deeper than its rank 1");
}
END_TEST

static uint64_t
f64bits(double d)
{
	uint64_t u;

	memcpy(&u, &d, 8);
	return u;
}

START_TEST(literals_float)
{
	uint32_t w[4];

	ck_assert_uint_eq(lit1("f32[]", "1.5"), 0x3fc00000u);
	ck_assert_uint_eq(lit1("f32[]", "-0"), 0x80000000u);
	ck_assert_uint_eq(lit1("f32[]", "1e-45"), 1);
	ck_assert_uint_eq(lit1("f32[]", "3.40282347e+38"), 0x7f7fffffu);
	ck_assert_uint_eq(lit1("f32[]", "inf"), 0x7f800000u);
	ck_assert_uint_eq(lit1("f32[]", "-inf"), 0xff800000u);
	ck_assert_uint_eq(lit1("f32[]", "nan"), 0x7fc00000u);
	ck_assert_uint_eq(lit1("f32[]", "-nan"), 0xffc00000u);
	ck_assert_uint_eq(lit1("f32[]", "nan(0x7fffff)"), 0x7fffffffu);
	ck_assert_uint_eq(lit1("f32[]", "-nan(0x1)"), 0xff800001u);
	ck_assert_uint_eq(lit1("f32[]", "7"), 0x40e00000u);
	ck_assert_uint_eq(lit1("f32[]", ".5"), 0x3f000000u);
	ck_assert_uint_eq(lit1("f32[]", "5."), 0x40a00000u);
	ck_assert_uint_eq(lit1("f32[]", "1.0000000000000000000001e+2"),
		0x42c80000u);
	ck_assert_uint_eq(lit1("f64[]", "0.1"), f64bits(0.1));
	ck_assert_uint_eq(lit1("f64[]", "1.7976931348623157e308"),
		f64bits(1.7976931348623157e308));
	ck_assert_uint_eq(lit1("f64[]", "nan"), 0x7ff8000000000000ull);
	ck_assert_uint_eq(lit1("f64[]", "2.2250738585072014e-308"),
		f64bits(2.2250738585072014e-308));
	/* bf16: round to nearest, ties to even */
	ck_assert_uint_eq(lit1("bf16[]", "1"), 0x3f80);
	ck_assert_uint_eq(lit1("bf16[]", "1.00390625"), 0x3f80);
	ck_assert_uint_eq(lit1("bf16[]", "1.00390626"), 0x3f81);
	ck_assert_uint_eq(lit1("bf16[]", "1.01171875"), 0x3f82);
	ck_assert_uint_eq(lit1("bf16[]", "-0"), 0x8000);
	ck_assert_uint_eq(lit1("bf16[]", "-inf"), 0xff80);
	ck_assert_uint_eq(lit1("bf16[]", "nan"), 0x7fc0);
	ck_assert_uint_eq(lit1("f16[]", "65504"), 0x7bff);
	ck_assert_uint_eq(lit1("f16[]", "5.9604644775390625e-08"), 1);
	ck_assert_uint_eq(lit1("f16[]", "inf"), 0x7c00);
	/* f8 and smaller */
	ck_assert_uint_eq(lit1("f8e4m3fn[]", "448"), 0x7e);
	ck_assert_uint_eq(lit1("f8e4m3fn[]", "-448"), 0xfe);
	ck_assert_uint_eq(lit1("f8e4m3fn[]", "nan"), 0x7f);
	ck_assert_uint_eq(lit1("f8e4m3fn[]", "0.001953125"), 0x01);
	ck_assert_uint_eq(lit1("f8e5m2[]", "inf"), 0x7c);
	ck_assert_uint_eq(lit1("f8e5m2[]", "57344"), 0x7b);
	ck_assert_uint_eq(lit1("f8e4m3[]", "240"), 0x77);
	ck_assert_uint_eq(lit1("f8e4m3[]", "inf"), 0x78);
	ck_assert_uint_eq(lit1("f8e3m4[]", "15.5"), 0x6f);
	ck_assert_uint_eq(lit1("f8e4m3fnuz[]", "nan"), 0x80);
	ck_assert_uint_eq(lit1("f8e4m3fnuz[]", "-0"), 0x00);
	ck_assert_uint_eq(lit1("f8e4m3fnuz[]", "240"), 0x7f);
	ck_assert_uint_eq(lit1("f8e5m2fnuz[]", "-1"), 0xc0);
	ck_assert_uint_eq(lit1("f8e4m3b11fnuz[]", "1"), 0x58);
	ck_assert_uint_eq(lit1("f8e8m0fnu[]", "1"), 0x7f);
	ck_assert_uint_eq(lit1("f8e8m0fnu[]", "0.5"), 0x7e);
	ck_assert_uint_eq(lit1("f8e8m0fnu[]", "nan"), 0xff);
	ck_assert_uint_eq(lit1("f4e2m1fn[]", "6"), 0x7);
	ck_assert_uint_eq(lit1("f4e2m1fn[]", "-0.5"), 0x9);
	ck_assert_uint_eq(lit1("f6e3m2fn[]", "28"), 0x1f);
	ck_assert_uint_eq(lit1("f6e2m3fn[]", "7.5"), 0x1f);
	ck_assert_uint_eq(lit1("f6e2m3fn[]", "-7.5"), 0x3f);
	/* complex */
	ck_assert_uint_eq(lit("c64[2]", "{(1.5, -2), (0, inf)}", w, sizeof w),
		16);
	ck_assert_uint_eq(w[0], 0x3fc00000u);
	ck_assert_uint_eq(w[1], 0xc0000000u);
	ck_assert_uint_eq(w[3], 0x7f800000u);
	ck_assert_uint_eq(lit1("c128[]", "(1, 0)"), f64bits(1));

	litbad("f16[]", "65520", "value out of range for f16");
	litbad("f32[]", "1e39", "value out of range for f32");
	litbad("f8e4m3fn[]", "465", "value out of range for f8e4m3fn");
	ck_assert_uint_eq(lit1("f8e4m3fn[]", "464"), 0x7e);	/* tie: even */
	litbad("f4e2m1fn[]", "nan", "NaN not representable in f4e2m1fn");
	litbad("f6e3m2fn[]", "inf", "infinity not representable");
	litbad("bf16[]", "nan(0x1ff)", "NaN not representable in bf16");
	litbad("f32[]", "nan(0x0)", "bad NaN payload");
	litbad("f32[]", "true", "expected a f32 value");
	litbad("f8e8m0fnu[]", "-1", "value out of range");
}
END_TEST

START_TEST(literals_other)
{
	uint8_t b[64];
	HloModule *m;
	const HloAttr *a;

	/* tuples: leaves concatenated */
	ck_assert_uint_eq(lit("(s32[], (u8[2], pred[]))", "( 5, ({1, 2}, "
		"true) )", b, sizeof b), 7);
	ck_assert(b[0] == 5 && b[4] == 1 && b[5] == 2 && b[6] == 1);
	/* an older dump's inline shape before the value */
	ck_assert_uint_eq(lit1("s32[]", "s32[] 9"), 9);
	/* elided */
	m = ok("HloModule t\nENTRY e {\n  ROOT c = f32[1000] constant({...})"
		"\n}\n");
	a = hlo_attr(m, find(m, "c", NULL), A_LITERAL);
	ck_assert_ptr_nonnull(a);
	ck_assert(a->v == HLO_ELIDED);
	ck_assert_uint_eq(a->n, 0);
	hlo_module_free(m);
	litbad("f32[]", "{1}", "expected a f32 value");
	litbad("token[]", "0", "no literal of type token");
	litbad("(s32[], s32[])", "(1)", "expected ',' between tuple elements");
	litbad("f32[2]", "{1, 2", "expected ',' or '}' in array");
}
END_TEST

static const char attrmod[] =
	"HloModule attrs, is_scheduled=true, entry_computation_layout="
	"{(f32[4]{0})->f32[2]{0}}, input_output_alias={ {0}: (0, {}, "
	"may-alias) }\n"
	"\n"
	"%add (a: f32[], b: f32[]) -> f32[] {\n"
	"  %a = f32[] parameter(0)\n"
	"  %b = f32[] parameter(1)\n"
	"  ROOT %s = f32[] add(f32[] %a, f32[] %b)\n"
	"}\n"
	"\n"
	"ENTRY %main (p: f32[4]) -> f32[2] {\n"
	"  %p = f32[4]{0} parameter(0), sharding={replicated}\n"
	"  %sl = f32[2]{0} slice(%p), slice={[0:4:2]}\n"
	"  %sl2 = f32[2]{0} slice(%p), slice={[1:3]}\n"
	"  %pad = f32[9]{0} pad(%p, %z), padding=-1_2_2\n"
	"  %z = f32[] constant(0)\n"
	"  %bc = f32[2,4]{1,0} broadcast(%p), dimensions={1}\n"
	"  %cmp = pred[4]{0} compare(%p, %p), direction=LT, type=TOTALORDER\n"
	"  %rw = f32[2]{0} reduce-window(%p, %z), window={size=2 stride=2 "
	"pad=0_1 lhs_dilate=1 rhs_dilate=3 rhs_reversal=1}, to_apply=%add\n"
	"  %rw2 = f32[4]{0} reduce-window(%p, %z), window={size=1}, "
	"to_apply=add\n"
	"  %cc = f32[4]{0} custom-call(%p), custom_call_target=\"fo\\002o\\x41"
	"\\n\\\"\", backend_config=\"{\\\"k\\\": 1}\", "
	"custom_call_has_side_effect=true, api_version=API_VERSION_TYPED_FFI\n"
	"  %cc2 = f32[4]{0} custom-call(%p), custom_call_target=\"x\", "
	"backend_config={\"a\": {\"b\": \"}\"}}, "
	"metadata={op_type=\"Add\" op_name=\"a, b\" source_line=3}, "
	"frontend_attributes={x=\"1\"}, my_key={1, {2}}, "
	"dimensions=notints\n"
	"  %gte = f32[] get-tuple-element(%t), index=1\n"
	"  %t = (f32[], f32[]) tuple(%z, %z), control-predecessors={%cc, cc2}\n"
	"  %sort = f32[4]{0} sort(%p), dimensions={0}, is_stable=false, "
	"to_apply=%add\n"
	"  ROOT %r = f32[2]{0} reduce-precision(%sl), exponent_bits=5, "
	"mantissa_bits=10\n"
	"}\n";

START_TEST(attributes)
{
	HloModule *m = ok(attrmod);
	const HloInstr *in;
	const HloAttr *a;
	const int64_t *v;
	uint32_t n, c;
	const char *w;

	/* header attributes in input order, verbatim */
	ck_assert_str_eq(hlo_cstr(m, m->name), "attrs");
	ck_assert_uint_eq(m->nhattrs, 3);
	a = m->attrv + m->hattrs;
	ck_assert_int_eq(a[0].key, A_OTHER);
	ck_assert_int_eq(a[0].kind, K_RAW);
	ck_assert_str_eq(hlo_cstr(m, a[0].name), "is_scheduled");
	ck_assert_uint_eq(a[0].n, 4);
	ck_assert(!memcmp(m->bytes + a[0].v, "true", 4));
	ck_assert_str_eq(hlo_cstr(m, a[1].name), "entry_computation_layout");
	ck_assert(!memcmp(m->bytes + a[1].v, "{(f32[4]{0})->f32[2]{0}}",
		a[1].n));
	ck_assert_str_eq(hlo_cstr(m, a[2].name), "input_output_alias");
	ck_assert(!memcmp(m->bytes + a[2].v, "{ {0}: (0, {}, may-alias) }",
		a[2].n));
	ck_assert_uint_eq(m->entry, compnamed(m, "main"));

	in = find(m, "sl", NULL);
	v = hlo_attr_ints(m, in, A_SLICE, &n);
	ck_assert_uint_eq(n, 3);
	ck_assert(v[0] == 0 && v[1] == 4 && v[2] == 2);
	v = hlo_attr_ints(m, find(m, "sl2", NULL), A_SLICE, &n);
	ck_assert(n == 3 && v[0] == 1 && v[1] == 3 && v[2] == 1);
	v = hlo_attr_ints(m, find(m, "pad", NULL), A_PADDING, &n);
	ck_assert(n == 3 && v[0] == -1 && v[1] == 2 && v[2] == 2);
	v = hlo_attr_ints(m, find(m, "bc", NULL), A_DIMENSIONS, &n);
	ck_assert(n == 1 && v[0] == 1);
	ck_assert(hlo_attr_is(m, find(m, "cmp", NULL), A_DIRECTION, "LT"));
	ck_assert(hlo_attr_is(m, find(m, "cmp", NULL), A_CMP_TYPE,
		"TOTALORDER"));

	/* window: size, stride, pad lo, pad hi, rhs_dilate, lhs_dilate,
	 * reversal */
	v = hlo_attr_ints(m, find(m, "rw", NULL), A_WINDOW, &n);
	ck_assert_uint_eq(n, 7);
	ck_assert(v[0] == 2 && v[1] == 2 && v[2] == 0 && v[3] == 1 &&
		v[4] == 3 && v[5] == 1 && v[6] == 1);
	v = hlo_attr_ints(m, find(m, "rw2", NULL), A_WINDOW, &n);
	ck_assert(n == 7 && v[0] == 1 && v[1] == 1 && v[2] == 0 &&
		v[3] == 0 && v[4] == 1 && v[5] == 1 && v[6] == 0);

	/* strings: escapes decoded */
	in = find(m, "cc", NULL);
	w = hlo_attr_word(m, in, A_CUSTOM_CALL_TARGET, &n);
	ck_assert_uint_eq(n, 7);
	ck_assert(!memcmp(w, "fo\002oA\n\"", 7));
	a = hlo_attr(m, in, A_BACKEND_CONFIG);
	ck_assert_int_eq(a->kind, K_STR);
	ck_assert(a->n == 8 && !memcmp(m->bytes + a->v, "{\"k\": 1}", 8));
	ck_assert_int_eq(hlo_attr_int(m, in, A_CUSTOM_CALL_SIDE_EFFECT, 0), 1);
	ck_assert(hlo_attr_is(m, in, A_API_VERSION, "API_VERSION_TYPED_FFI"));

	/* json backend_config verbatim; raw and unknown attributes */
	in = find(m, "cc2", NULL);
	a = hlo_attr(m, in, A_BACKEND_CONFIG);
	ck_assert_int_eq(a->kind, K_STR);
	w = "{\"a\": {\"b\": \"}\"}}";
	ck_assert(a->n == strlen(w) && !memcmp(m->bytes + a->v, w, a->n));
	a = hlo_attr(m, in, A_METADATA);
	ck_assert_int_eq(a->kind, K_RAW);
	ck_assert(!memcmp(m->bytes + a->v,
		"{op_type=\"Add\" op_name=\"a, b\" source_line=3}", a->n));
	a = hlo_attr(m, in, A_FRONTEND_ATTRIBUTES);
	ck_assert(a && a->kind == K_RAW);
	{
		const HloAttr *x = m->attrv + in->attrs;
		int seen = 0;

		for (uint32_t k = 0; k < in->nattrs; k++) {
			if (x[k].key != A_OTHER)
				continue;
			if (!strcmp(hlo_cstr(m, x[k].name), "my_key")) {
				ck_assert(!memcmp(m->bytes + x[k].v,
					"{1, {2}}", x[k].n));
				seen |= 1;
			}
			if (!strcmp(hlo_cstr(m, x[k].name), "dimensions")) {
				ck_assert(!memcmp(m->bytes + x[k].v,
					"notints", x[k].n));
				seen |= 2;
			}
			/* sorted by key */
			ck_assert(k == 0 || x[k - 1].key <= x[k].key);
		}
		ck_assert_int_eq(seen, 3);
	}
	a = hlo_attr(m, find(m, "p", NULL), A_SHARDING);
	ck_assert(a && !memcmp(m->bytes + a->v, "{replicated}", a->n));

	/* forward references; control predecessors */
	in = find(m, "gte", &c);
	ck_assert_str_eq(hlo_cstr(m, m->comps[c].ins[hlo_ops(m, in)[0]].name),
		"t");
	in = find(m, "t", &c);
	ck_assert_uint_eq(in->nctrl, 2);
	ck_assert_str_eq(hlo_cstr(m, m->comps[c].ins[hlo_ctrl(m, in)[1]].name),
		"cc2");
	in = find(m, "sort", NULL);
	ck_assert_int_eq(hlo_attr_int(m, in, A_IS_STABLE, 1), 0);
	ck_assert_uint_eq(in->ncalled, 1);
	ck_assert_uint_eq(hlo_called(m, in)[0], compnamed(m, "add"));
	in = find(m, "r", NULL);
	ck_assert_int_eq(hlo_attr_int(m, in, A_EXPONENT_BITS, 0), 5);
	ck_assert_int_eq(hlo_attr_int(m, in, A_MANTISSA_BITS, 0), 10);
	ck_assert_uint_eq(find(m, "b", NULL)->num, 1);
	hlo_module_free(m);
}
END_TEST

static const char callmod[] =
	"HloModule calls\n"
	"ENTRY main {\n"
	"  p = (s32[], f32[]) parameter(0)\n"
	"  i = s32[] get-tuple-element(p), index=0\n"
	"  w = (s32[], f32[]) while(p), condition=cond, body=body\n"
	"  k = pred[] constant(true)\n"
	"  c1 = f32[] conditional(k, p, p), true_computation=br0, "
	"false_computation=br1\n"
	"  c2 = f32[] conditional(i, p, p), branch_computations={br0, br1}\n"
	"  c3 = f32[] conditional(i, p, p, p), branch_computations={br1, br0, "
	"br1}\n"
	"  x = f32[4] parameter(1)\n"
	"  z = f32[] constant(0)\n"
	"  ss = f32[4] select-and-scatter(x, x, z), window={size=1}, "
	"scatter=add, select=ge\n"
	"  cc = f32[4] custom-call(x), custom_call_target=\"t\", to_apply=add\n"
	"  cd = f32[4] custom-call(x), custom_call_target=\"t\", "
	"called_computations={add, ge}\n"
	"  ROOT f = f32[4] fusion(x), kind=kLoop, calls=fused\n"
	"}\n"
	"fused {\n  a = f32[4] parameter(0)\n  ROOT n = f32[4] negate(a)\n}\n"
	"cond {\n  cp = (s32[], f32[]) parameter(0)\n"
	"  ROOT ck = pred[] constant(false)\n}\n"
	"body {\n  bp = (s32[], f32[]) parameter(0)\n  ROOT bp2 = (s32[], f32[]) "
	"copy(bp)\n}\n"
	"br0 {\n  q = (s32[], f32[]) parameter(0)\n  ROOT q1 = f32[] "
	"get-tuple-element(q), index=1\n}\n"
	"br1 {\n  q = (s32[], f32[]) parameter(0)\n  ROOT q1 = f32[] constant(1)"
	"\n}\n"
	"add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
	"  ROOT s = f32[] add(a, b)\n}\n"
	"ge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
	"  ROOT s = pred[] compare(a, b), direction=GE\n}\n";

/* a string whose first character is an escape (the decoder's buffer
 * still empty) reads back the same byte */
START_TEST(escape_first)
{
	HloModule *m = ok("HloModule t\nENTRY e {\n  ROOT c = f32[2] "
		"custom-call(), custom_call_target=\"\\001x\"\n}\n");
	uint32_t n;
	const char *w = hlo_attr_word(m, find(m, "c", NULL),
		A_CUSTOM_CALL_TARGET, &n);

	ck_assert_uint_eq(n, 2);
	ck_assert(w[0] == 1 && w[1] == 'x');
	hlo_module_free(m);
}
END_TEST

START_TEST(called)
{
	HloModule *m = ok(callmod);
	const HloInstr *in;
	uint32_t body = compnamed(m, "body"), cond = compnamed(m, "cond");
	uint32_t br0 = compnamed(m, "br0"), br1 = compnamed(m, "br1");

	/* called before defined; no ENTRY needed first */
	ck_assert_uint_eq(m->entry, compnamed(m, "main"));
	in = find(m, "w", NULL);
	ck_assert_uint_eq(in->ncalled, 2);
	ck_assert_uint_eq(hlo_called(m, in)[0], body);
	ck_assert_uint_eq(hlo_called(m, in)[1], cond);
	in = find(m, "c1", NULL);
	ck_assert_uint_eq(in->ncalled, 2);
	ck_assert_uint_eq(hlo_called(m, in)[0], br0);
	ck_assert_uint_eq(hlo_called(m, in)[1], br1);
	ck_assert(!(in->flags & HI_BRANCHES));
	in = find(m, "c2", NULL);
	ck_assert(in->flags & HI_BRANCHES);
	ck_assert_uint_eq(hlo_called(m, in)[1], br1);
	in = find(m, "c3", NULL);
	ck_assert(!(in->flags & HI_BRANCHES));
	ck_assert_uint_eq(in->ncalled, 3);
	ck_assert_uint_eq(hlo_called(m, in)[1], br0);
	in = find(m, "ss", NULL);
	ck_assert_uint_eq(hlo_called(m, in)[0], compnamed(m, "ge"));
	ck_assert_uint_eq(hlo_called(m, in)[1], compnamed(m, "add"));
	in = find(m, "cc", NULL);
	ck_assert(in->flags & HI_CCFLAG);
	in = find(m, "cd", NULL);
	ck_assert(!(in->flags & HI_CCFLAG));
	ck_assert_uint_eq(in->ncalled, 2);
	ck_assert(m->comps[compnamed(m, "fused")].flags & HC_FUSION);
	ck_assert(!(m->comps[compnamed(m, "add")].flags & HC_FUSION));
	/* reused names get fresh ones, unique in the module */
	{
		uint32_t c, i, c2, i2;

		for (c = 0; c < m->ncomps; c++)
			for (i = 0; i < m->comps[c].nins; i++)
				for (c2 = 0; c2 < m->ncomps; c2++)
					for (i2 = 0; i2 < m->comps[c2].nins;
					    i2++)
						ck_assert((c == c2 && i == i2) ||
						    m->comps[c].ins[i].name !=
						    m->comps[c2].ins[i2].name);
	}
	hlo_module_free(m);
}
END_TEST

START_TEST(syntax)
{
	HloModule *m;
	const HloInstr *in;
	uint32_t c;

	/* comments, operand shapes, multi-line instructions, no header */
	m = ok("// a leading comment\n"
		"/* block\n comment */ ENTRY %e.1 (p.0: (f32[2], /*index=1*/"
		"s32[])) -> f32[2] {\n"
		"  %p.0 = (f32[2]{0}, s32[]) parameter(0) // trailing\n"
		"  %g = f32[2]{0} get-tuple-element((f32[2]{0}, /*index=1*/"
		"s32[]) %p.0), index=0\n"
		"  ROOT %n = f32[2]{0} add(f32[2]{0} %g,\n"
		"      /*index=1*/ f32[2]{0} %g\n"
		"    ),\n"
		"    metadata={op_name=\"x\"}\n"
		"}\n");
	ck_assert_str_eq(hlo_cstr(m, m->name), "_");
	ck_assert_uint_eq(m->ncomps, 1);
	in = find(m, "n", &c);
	ck_assert_uint_eq(in->nops, 2);
	ck_assert_uint_eq(m->comps[c].root, 2);
	ck_assert(hlo_attr(m, in, A_METADATA) != NULL);
	hlo_module_free(m);

	/* several computations, none ENTRY: the last one */
	m = ok("a {\n x = f32[] parameter(0)\n}\n"
		"b {\n y = f32[] constant(1)\n ROOT z = f32[] negate(y)\n}\n");
	ck_assert_uint_eq(m->entry, 1);
	ck_assert_uint_eq(m->comps[1].root, 1);
	ck_assert_uint_eq(m->comps[0].root, 0);
	hlo_module_free(m);

	/* ROOT not last; execution_thread; old "HloModule name:" */
	m = ok("HloModule old:\n"
		"%t {\n  ROOT %x = f32[] parameter(0)\n  %y = f32[] negate(%x)"
		"\n}, execution_thread=\"host\"\n"
		"ENTRY %e {\n  %x = f32[] parameter(0)\n"
		"  ROOT %c = f32[] call(%x), to_apply=%t\n}\n");
	ck_assert_str_eq(hlo_cstr(m, m->name), "old");
	c = compnamed(m, "t");
	ck_assert_uint_eq(m->comps[c].root, 0);
	ck_assert_str_eq(hlo_cstr(m, m->comps[c].thread), "host");
	ck_assert_uint_eq(m->comps[m->entry].thread, 0);
	hlo_module_free(m);

	/* nested instruction operands */
	m = ok("HloModule n\nENTRY e {\n"
		"  ROOT r = f32[8,7] reshape(f32[1,8,1,7] parameter(0))\n}\n");
	ck_assert_uint_eq(m->comps[0].nins, 2);
	ck_assert_int_eq(m->comps[0].ins[0].op, HOP_PARAMETER);
	ck_assert_uint_eq(hlo_ops(m, &m->comps[0].ins[1])[0], 0);
	ck_assert_uint_eq(m->comps[0].root, 1);
	hlo_module_free(m);

	/* stack frame tables kept verbatim */
	m = ok("HloModule f\n\nFileNames\n1 \"a.py\"\n\nFunctionNames\n1 \"f\""
		"\n\nFileLocations\n1 {file_name_id=1 function_name_id=1 "
		"line=2 end_line=2 column=1 end_column=3}\n\nStackFrames\n"
		"1 {file_location_id=1 parent_frame_id=1}\n\n"
		"ENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n");
	ck_assert_str_eq(hlo_cstr(m, m->frames), "FileNames\n1 \"a.py\"\n"
		"FunctionNames\n1 \"f\"\nFileLocations\n1 {file_name_id=1 "
		"function_name_id=1 line=2 end_line=2 column=1 end_column=3}\n"
		"StackFrames\n1 {file_location_id=1 parent_frame_id=1}");
	hlo_module_free(m);
}
END_TEST

START_TEST(errors)
{
	bad("", "test.hlo:1:1: error: no computation in the input");
	bad("HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
		"  ROOT r = f32[2] add(p, nothere)\n}\n",
		"test.hlo:4:26: error: undefined instruction 'nothere'");
	bad("HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
		"  %p = f32[2] negate(p)\n}\n",
		"test.hlo:4:3: error: duplicate instruction name 'p'");
	bad("HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
		"  q = f32[2] parameter(0)\n}\n",
		"test.hlo:4:24: error: duplicate parameter number 0");
	bad("HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
		"  ROOT r = f32[2] frobnicate(p)\n}\n",
		"test.hlo:4:19: error: unknown opcode 'frobnicate'");
	bad("HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
		"  ROOT r = f32[2] add(p)\n}\n",
		"test.hlo:4:19: error: add takes 2 operands, got 1");
	bad("HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
		"  ROOT r = f32[2] reduce(p, p), dimensions={0}, "
		"to_apply=missing\n}\n",
		"test.hlo:4:58: error: undefined computation 'missing'");
	bad("HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n",
		"test.hlo:4:1: error: computation 'e' has no closing '}'");
	bad("HloModule m\nENTRY e {\n  ROOT c = f32[3] constant({1, 2})\n}\n",
		"test.hlo:3:33: error: expected 3 elements in dimension 0, "
		"got 2");
	bad("HloModule m\nENTRY e {\n  p = f32[4611686018427387904,"
		"4611686018427387904] parameter(0)\n}\n",
		"test.hlo:3:7: error: shape too large");
	bad("HloModule m\nENTRY e {\n  p = f32[4611686018427387904] "
		"parameter(0)\n}\n", "test.hlo:3:7: error: shape too large");
	bad("HloModule m\nENTRY e {\n  p = f32[2 parameter(0)\n}\n",
		"test.hlo:3:13: error: expected ']' after the dimensions, got "
		"'parameter'");
	bad("HloModule m\nENTRY e {\n  p = f32[2] parameter(0), "
		"metadata={op_name=\"x}\n}\n",
		"test.hlo:3:46: error: unterminated string");
	bad("HloModule m\nENTRY e {\n  /* never closed\n}\n",
		"test.hlo:3:3: error: unterminated comment");
	bad("HloModule m\nENTRY e {\n  p\xff\xfe = f32[2] parameter(0)\n}\n",
		"test.hlo:3:4: error: expected '=' after the instruction name, "
		"got byte 0xff");
	bad("HloModule m\nENTRY e {\n  p = f32[2] custom-call(), "
		"custom_call_target=\"x\xc3(\"\n}\n",
		"test.hlo:3:50: error: invalid UTF-8 in string");
	bad("HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
		"  ROOT r = f32[2] negate(p), dimensions={0}, dimensions={1}\n"
		"}\n", "test.hlo:4:46: error: duplicate attribute dimensions");
	bad("HloModule m\nENTRY e {\n  ROOT r = f32[2] parameter(0)\n}\n"
		"ENTRY e2 {\n  ROOT r = f32[2] parameter(0)\n}\n",
		"test.hlo:5:1: error: second ENTRY computation");
	bad("HloModule m\nENTRY e {\n  ROOT a = f32[] parameter(0)\n"
		"  ROOT b = f32[] negate(a)\n}\n",
		"test.hlo:4:3: error: second ROOT in computation 'e'");
	bad("HloModule m\nENTRY e {\n}\n",
		"test.hlo:2:1: error: computation 'e' has no instructions");
	bad("HloModule m\nENTRY e {\n  ROOT c = f32[2]{1,0} parameter(0)\n"
		"}\n", "test.hlo:3:19: error: layout dimension out of range");
}
END_TEST

START_TEST(hostile)
{
	static const char good[] =
		"HloModule m, is_scheduled=true\n"
		"%add {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
		"  ROOT %s = f32[] add(%a, %b)\n}\n"
		"ENTRY %e (p: f32[2,2]) -> (f32[2], s32[]) {\n"
		"  %p = f32[2,2]{1,0:T(2)} parameter(0), metadata={op_name=\"a\"}"
		"\n  %c = s32[] constant(-3)\n"
		"  %k = c64[2] constant({(1, 2), (3, nan)})\n"
		"  %r = f32[2]{0} reduce(%p, f32[] %z), dimensions={1}, "
		"to_apply=%add\n"
		"  %z = f32[] constant(0)\n"
		"  ROOT %t = (f32[2], s32[]) tuple(%r, %c)\n}\n";
	size_t n = strlen(good), k;
	HloModule *m;
	HloError e;
	char *buf;
	int depth;
	unsigned seed = 12345;

	/* every prefix: a module or an error, never a crash */
	for (k = 0; k < n; k++) {
		if (hlo_parse_text(good, k, "t.hlo", &m, &e) == 0)
			hlo_module_free(m);
		else
			ck_assert(strstr(e.msg, "t.hlo:") == e.msg);
	}
	ck_assert_int_eq(hlo_parse_text(good, n, "t.hlo", &m, &e), 0);
	hlo_module_free(m);

	/* random bytes and single-byte corruptions */
	buf = malloc(n + 1);
	for (k = 0; k < 3000; k++) {
		memcpy(buf, good, n);
		seed = seed * 1103515245 + 12345;
		buf[seed % n] = (char)(seed >> 16);
		if (hlo_parse_text(buf, n, "t.hlo", &m, &e) == 0)
			hlo_module_free(m);
	}
	free(buf);

	/* NUL byte */
	ck_assert_int_eq(hlo_parse_text("HloModule m\0x", 13, "t.hlo", &m, &e),
		-1);
	ck_assert_str_eq(e.msg, "t.hlo:1:12: error: NUL byte in the input");

	/* deep nesting is refused, not recursed into */
	for (depth = 0; depth < 3; depth++) {
		size_t len = 100000;
		char *s = malloc(len + 200);
		const char *pre[] = {
			"HloModule m\nENTRY e {\n  p = ",
			"HloModule m\nENTRY e {\n  p = f32[2] parameter(0), "
			"metadata=",
			"HloModule m\nENTRY e {\n  p = f32[2] constant(",
		};
		const char ch[] = {'(', '{', '{'};

		strcpy(s, pre[depth]);
		k = strlen(s);
		memset(s + k, ch[depth], len);
		s[k + len] = 0;
		ck_assert_int_eq(hlo_parse_text(s, k + len, "d.hlo", &m, &e),
			-1);
		free(s);
	}
}
END_TEST

START_TEST(floats)
{
	char buf[64];
	uint64_t b;
	int t;

	/* decode(encode(x)) == x for every bit pattern of the small types */
	for (t = 1; t < TY_COUNT; t++) {
		int bits = hlo_typeinfo[t].bits;
		uint64_t u;

		if (hlo_typeinfo[t].cls != C_FLOAT || bits > 16)
			continue;
		for (u = 0; u < 1ull << bits; u++) {
			double d = hlo_float_decode(t, u);

			if (isnan(d))
				continue;
			ck_assert_msg(hlo_float_encode(t, d) == u ||
				(d == 0 && hlo_float_encode(t, d) == 0),
				"%s %llx", hlo_typeinfo[t].name,
				(unsigned long long)u);
			hlo_float_format(t, u, buf, sizeof buf);
			ck_assert_msg(hlo_float_from_text(t, strtod(buf, NULL),
				&b) == 0 && b == u, "%s %llx: %s",
				hlo_typeinfo[t].name, (unsigned long long)u, buf);
		}
	}
	ck_assert(!hlo_float_has_inf(TY_F8E4M3FN));
	ck_assert(hlo_float_has_inf(TY_F8E4M3));
	ck_assert(!hlo_float_has_nan(TY_F4E2M1FN));
	ck_assert_int_eq(hlo_float_nan_payload_bits(TY_F32), 23);
	hlo_float_format(TY_F32, 0x7fffffffu, buf, sizeof buf);
	ck_assert_str_eq(buf, "nan(0x7fffff)");
	hlo_float_format(TY_F32, 0xffc00000u, buf, sizeof buf);
	ck_assert_str_eq(buf, "-nan");
	hlo_float_format(TY_BF16, 0xff80, buf, sizeof buf);
	ck_assert_str_eq(buf, "-inf");
	ck_assert_uint_eq(hlo_float_encode(TY_F8E4M3FN, 1e9), 0x7f);
	ck_assert_uint_eq(hlo_float_encode(TY_F4E2M1FN, 1e9), 0x7);
	ck_assert_uint_eq(hlo_float_encode(TY_F16, 1e9), 0x7c00);
}
END_TEST

/* parses every text module under dir; returns how many failed */
static int
sweep(const char *dir, int roundtrip, int *count)
{
	TuList l = tu_list(dir);
	size_t i;
	int fails = 0;

	*count = 0;
	for (i = 0; i < l.n; i++) {
		HloModule *m, *m2;
		HloError e;
		size_t n;
		char *d, *a, *b;

		if (!tu_is_text(l.v[i]) || !(d = tu_read(l.v[i], &n)))
			continue;
		(*count)++;
		if (hlo_parse_text(d, n, l.v[i], &m, &e) < 0) {
			fprintf(stderr, "%s\n", e.msg);
			fails++;
			free(d);
			continue;
		}
		free(d);
		if (roundtrip) {
			a = tu_print(m);
			if (hlo_parse_text(a, strlen(a), "printed.hlo", &m2,
			    &e) < 0) {
				fprintf(stderr, "%s: reparse: %s\n", l.v[i],
					e.msg);
				fails++;
			} else {
				b = tu_print(m2);
				if (strcmp(a, b)) {
					fprintf(stderr, "%s: print is not a "
						"fixed point\n", l.v[i]);
					fails++;
				}
				free(b);
				hlo_module_free(m2);
			}
			free(a);
		}
		hlo_module_free(m);
	}
	tu_list_free(&l);
	return fails;
}

START_TEST(sweep_data)
{
	int n, f = sweep(TU_DATA, 0, &n);

	ck_assert_int_gt(n, 0);
	ck_assert_msg(f == 0, "%d of %d data modules fail to parse", f, n);
}
END_TEST

START_TEST(sweep_corpus)
{
	const char *dir = tu_corpus();
	int n, f;

	if (!dir)
		return;
	f = sweep(dir, 0, &n);
	fprintf(stderr, "corpus: %d of %d text modules parse\n", n - f, n);
	ck_assert_msg(f == 0, "%d of %d corpus modules fail to parse", f, n);
}
END_TEST

START_TEST(roundtrip_data)
{
	int n, f = sweep(TU_DATA, 1, &n);

	ck_assert_msg(f == 0, "%d of %d data modules do not round-trip", f, n);
}
END_TEST

START_TEST(roundtrip_corpus)
{
	const char *dir = tu_corpus();
	int n, f;

	if (!dir)
		return;
	f = sweep(dir, 1, &n);
	ck_assert_msg(f == 0, "%d of %d corpus modules do not round-trip", f,
		n);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("text");
	TCase *t = tcase_create("parse");
	TCase *w = tcase_create("sweep");
	SRunner *sr;
	int nf;

	tcase_add_test(t, shapes);
	tcase_add_test(t, literals_int);
	tcase_add_test(t, literals_float);
	tcase_add_test(t, literals_other);
	tcase_add_test(t, attributes);
	tcase_add_test(t, called);
	tcase_add_test(t, syntax);
	tcase_add_test(t, errors);
	tcase_add_test(t, hostile);
	tcase_add_test(t, floats);
	tcase_set_timeout(t, 60);
	suite_add_tcase(s, t);
	tcase_add_test(w, sweep_data);
	tcase_add_test(w, sweep_corpus);
	tcase_add_test(w, roundtrip_data);
	tcase_add_test(w, escape_first);
	tcase_add_test(w, roundtrip_corpus);
	tcase_set_timeout(w, 300);
	suite_add_tcase(s, w);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? 1 : 0;
}
