/* check_algsimp.c: the algebraic simplifier (passes/algsimp*.c): golden
 * before/after modules for its rules, the cases where a rule must not
 * fire (NaN semantics, integer overflow, side effects, control
 * dependencies), and a sweep over data/ and the corpus that checks the
 * verifier and, where the module can be evaluated, the evaluator.
 *
 * Modules are compared by structure: every computation is renumbered in
 * post order from its root, unreachable instructions dropped, so the
 * expected text may use any names and order.
 *
 * Environment: HLOPT_DATA (default data), HLOPT_CORPUS (default
 * ../shared/corpus), HLOPT_SWEEP=full for the whole corpus with the
 * evaluator (slow). */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "hlo.h"
#include "eval.h"
#include "pass.h"
#include "algsimp.h"

static HloModule *
parse(const char *text)
{
	HloModule *m = NULL;
	HloError e;

	if (hlo_parse_text(text, strlen(text), "test.hlo", &m, &e) < 0)
		ck_abort_msg("parse: %s\n%s", e.msg, text);
	if (hlo_verify(m, &e) < 0)
		ck_abort_msg("verify input: %s\n%s", e.msg, text);
	return m;
}

static char *
print(const HloModule *m)
{
	HloBuf b = {0};

	hlo_print_module(m, &b);
	hlo_buf_puts(&b, "");
	return b.buf;
}

/* renumbers computation c in post order from its root */
static void
canon_comp(HloModule *m, uint32_t c)
{
	HloComp *cp = &m->comps[c];
	uint32_t n = cp->nins, *order, *map, *stack, top = 0, cnt = 0, k, i;
	uint8_t *st;
	HloInstr *ins;
	char buf[32];

	if (cp->root >= n)
		return;
	order = calloc(n + 1, 4);
	map = malloc((n + 1) * 4);
	stack = malloc((2 * n + 2) * 4);
	st = calloc(n + 1, 1);
	for (i = 0; i < n; i++)
		map[i] = HLO_NONE;
	/* parameters first, by number, so signatures line up */
	for (k = 0; k < n; k++)
		for (i = 0; i < n; i++)
			if (cp->ins[i].op == HOP_PARAMETER &&
			    !(cp->ins[i].flags & HI_DEAD) &&
			    cp->ins[i].num == (int64_t)k && !st[i]) {
				st[i] = 2;
				map[i] = cnt;
				order[cnt++] = i;
			}
	stack[top++] = cp->root;
	while (top) {
		uint32_t x = stack[top - 1];

		if (st[x] == 2) {
			top--;
			continue;
		}
		if (st[x] == 1) {
			top--;
			st[x] = 2;
			map[x] = cnt;
			order[cnt++] = x;
			continue;
		}
		st[x] = 1;
		for (k = cp->ins[x].nops; k-- > 0;) {
			uint32_t d = m->ids[cp->ins[x].ops + k];

			if (d < n && st[d] != 2 && top < 2 * n + 2)
				stack[top++] = d;
		}
	}
	ins = malloc((cnt + 1) * sizeof *ins);
	for (i = 0; i < cnt; i++) {
		ins[i] = cp->ins[order[i]];
		for (k = 0; k < ins[i].nops; k++)
			m->ids[ins[i].ops + k] = map[m->ids[ins[i].ops + k]];
		ins[i].nctrl = 0;
		snprintf(buf, sizeof buf, "v%u", i);
		ins[i].name = hlo_strz(m, buf);
	}
	cp->root = map[cp->root];
	free(cp->ins);
	cp->ins = ins;
	cp->nins = cp->cap = cnt;
	free(order);
	free(map);
	free(stack);
	free(st);
}

static char *
canon(HloModule *m)
{
	uint32_t c;

	for (c = 0; c < m->ncomps; c++)
		canon_comp(m, c);
	return print(m);
}

static int64_t
live(const HloModule *m)
{
	uint32_t c, i;
	int64_t n = 0;

	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++)
			n += !(m->comps[c].ins[i].flags & HI_DEAD);
	return n;
}

static int
simp_opts(HloModule *m, const AlgOpts *o)
{
	PassCtx ctx;
	HloError e;
	int r;

	pass_ctx_init(&ctx);
	r = algsimp_run(m, &ctx, o);
	if (r < 0)
		ck_abort_msg("algsimp: %s", ctx.err.msg);
	pass_ctx_free(&ctx);
	if (hlo_verify(m, &e) < 0) {
		char *t = print(m);

		ck_abort_msg("verify after algsimp: %s\n%s", e.msg, t);
	}
	return r;
}

static int
simp(HloModule *m)
{
	return simp_opts(m, algsimp_cpu_opts());
}

/* in simplifies to out (compared by structure) */
static void
expect_opts(const char *in, const char *out, const AlgOpts *o)
{
	HloModule *m = parse(in), *w = parse(out);
	char *got, *want;
	int r = simp_opts(m, o);

	got = canon(m);
	want = canon(w);
	if (strcmp(got, want))
		ck_abort_msg("\n--- in\n%s--- got\n%s--- want\n%s", in, got,
			want);
	ck_assert_int_eq(r, 1);
	free(got);
	free(want);
	hlo_module_free(m);
	hlo_module_free(w);
}

static void
expect(const char *in, const char *out)
{
	expect_opts(in, out, algsimp_cpu_opts());
}

/* nothing fires on in */
static void
unchanged_opts(const char *in, const AlgOpts *o)
{
	HloModule *m = parse(in);
	char *before = print(m), *after;
	int r = simp_opts(m, o);

	after = print(m);
	if (strcmp(before, after))
		ck_abort_msg("changed:\n%s--- into\n%s", before, after);
	ck_assert_int_eq(r, 0);
	free(before);
	free(after);
	hlo_module_free(m);
}

static void
unchanged(const char *in)
{
	unchanged_opts(in, algsimp_cpu_opts());
}

#define ADD_COMP "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n" \
	"  ROOT c = f32[] add(a, b)\n}\n"

#define T(name) START_TEST(name)
#define E END_TEST

/* ---- add, subtract ---- */

T(add_zero)
{
	expect("HloModule m\nENTRY e {\n"
		"  p = f32[4] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  b = f32[4] broadcast(z), dimensions={}\n"
		"  ROOT a = f32[4] add(b, p)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT p = f32[4] parameter(0)\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  p = s32[] parameter(0)\n"
		"  z = s32[] constant(0)\n"
		"  ROOT a = s32[] add(p, z)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT p = s32[] parameter(0)\n}\n");
}
E

T(add_constant_to_the_right)
{
	expect("HloModule m\nENTRY e {\n"
		"  p = f32[] parameter(0)\n"
		"  c = f32[] constant(2)\n"
		"  ROOT a = f32[] add(c, p)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  p = f32[] parameter(0)\n"
		"  c = f32[] constant(2)\n"
		"  ROOT a = f32[] add(p, c)\n}\n");
}
E

T(add_reassociate_constants)
{
	expect("HloModule m\nENTRY e {\n"
		"  p = f32[] parameter(0)\n"
		"  c1 = f32[] constant(2)\n"
		"  c2 = f32[] constant(3)\n"
		"  a = f32[] add(p, c1)\n"
		"  ROOT b = f32[] add(a, c2)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  p = f32[] parameter(0)\n"
		"  c1 = f32[] constant(2)\n"
		"  c2 = f32[] constant(3)\n"
		"  s = f32[] add(c1, c2)\n"
		"  ROOT b = f32[] add(p, s)\n}\n");
	/* (C1 - A) + C2 => (C1 + C2) - A */
	expect("HloModule m\nENTRY e {\n"
		"  p = f32[3] parameter(0)\n"
		"  c1 = f32[] constant(2)\n"
		"  c2 = f32[] constant(3)\n"
		"  b1 = f32[3] broadcast(c1), dimensions={}\n"
		"  b2 = f32[3] broadcast(c2), dimensions={}\n"
		"  a = f32[3] subtract(b1, p)\n"
		"  ROOT b = f32[3] add(a, b2)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  p = f32[3] parameter(0)\n"
		"  c1 = f32[] constant(2)\n"
		"  c2 = f32[] constant(3)\n"
		"  s = f32[] add(c1, c2)\n"
		"  bs = f32[3] broadcast(s), dimensions={}\n"
		"  ROOT b = f32[3] subtract(bs, p)\n}\n");
}
E

T(add_sub_same_integers_only)
{
	expect("HloModule m\nENTRY e {\n"
		"  x = s32[] parameter(0)\n"
		"  y = s32[] parameter(1)\n"
		"  s = s32[] subtract(y, x)\n"
		"  ROOT a = s32[] add(x, s)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = s32[] parameter(0)\n"
		"  ROOT y = s32[] parameter(1)\n}\n");
	/* x + (y - x) is not y in floats (inf, rounding) */
	unchanged("HloModule m\n\nENTRY %e (x: f32[], y: f32[]) -> f32[] {\n"
		"  %x = f32[] parameter(0)\n"
		"  %y = f32[] parameter(1)\n"
		"  %s = f32[] subtract(f32[] %y, f32[] %x)\n"
		"  ROOT %a = f32[] add(f32[] %x, f32[] %s)\n}\n\n");
}
E

T(add_distributes_multiply)
{
	expect("HloModule m\nENTRY e {\n"
		"  a = s32[4] parameter(0)\n"
		"  b = s32[4] parameter(1)\n"
		"  c = s32[4] parameter(2)\n"
		"  m1 = s32[4] multiply(a, c)\n"
		"  m2 = s32[4] multiply(c, b)\n"
		"  ROOT r = s32[4] add(m1, m2)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  a = s32[4] parameter(0)\n"
		"  b = s32[4] parameter(1)\n"
		"  c = s32[4] parameter(2)\n"
		"  s = s32[4] add(a, b)\n"
		"  ROOT r = s32[4] multiply(s, c)\n}\n");
	/* floats: only by a power of two */
	expect("HloModule m\nENTRY e {\n"
		"  a = f32[4] parameter(0)\n"
		"  b = f32[4] parameter(1)\n"
		"  h = f32[] constant(0.5)\n"
		"  c = f32[4] broadcast(h), dimensions={}\n"
		"  m1 = f32[4] multiply(a, c)\n"
		"  m2 = f32[4] multiply(b, c)\n"
		"  ROOT r = f32[4] add(m1, m2)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  a = f32[4] parameter(0)\n"
		"  b = f32[4] parameter(1)\n"
		"  s = f32[4] add(a, b)\n"
		"  h = f32[] constant(0.5)\n"
		"  c = f32[4] broadcast(h), dimensions={}\n"
		"  ROOT r = f32[4] multiply(s, c)\n}\n");
	unchanged("HloModule m\n\nENTRY %e (a: f32[4], b: f32[4], c: f32[4]) "
		"-> f32[4] {\n"
		"  %a = f32[4] parameter(0)\n"
		"  %c = f32[4] parameter(2)\n"
		"  %m1 = f32[4] multiply(f32[4] %a, f32[4] %c)\n"
		"  %b = f32[4] parameter(1)\n"
		"  %m2 = f32[4] multiply(f32[4] %b, f32[4] %c)\n"
		"  ROOT %r = f32[4] add(f32[4] %m1, f32[4] %m2)\n}\n\n");
}
E

T(add_into_dynamic_update_slice_of_zeros)
{
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[8,4] parameter(0)\n"
		"  u = f32[2,4] parameter(1)\n"
		"  i = s32[] parameter(2)\n"
		"  z = f32[] constant(0)\n"
		"  zb = f32[8,4] broadcast(z), dimensions={}\n"
		"  j = s32[] constant(0)\n"
		"  d = f32[8,4] dynamic-update-slice(zb, u, i, j)\n"
		"  ROOT a = f32[8,4] add(x, d)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[8,4] parameter(0)\n"
		"  i = s32[] parameter(2)\n"
		"  j = s32[] constant(0)\n"
		"  s = f32[2,4] dynamic-slice(x, i, j), "
		"dynamic_slice_sizes={2,4}\n"
		"  u = f32[2,4] parameter(1)\n"
		"  a = f32[2,4] add(s, u)\n"
		"  ROOT d = f32[8,4] dynamic-update-slice(x, a, i, j)\n}\n");
}
E

T(subtract_rules)
{
	/* x - x is 0 for integers */
	expect("HloModule m\nENTRY e {\n"
		"  x = s32[4] parameter(0)\n"
		"  ROOT s = s32[4] subtract(x, x)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = s32[4] parameter(0)\n"
		"  z = s32[] constant(0)\n"
		"  ROOT b = s32[4] broadcast(z), dimensions={}\n}\n");
	/* ... but NaN - NaN is NaN */
	unchanged("HloModule m\n\nENTRY %e (x: f32[4]) -> f32[4] {\n"
		"  %x = f32[4] parameter(0)\n"
		"  ROOT %s = f32[4] subtract(f32[4] %x, f32[4] %x)\n}\n\n");
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  b = f32[4] broadcast(z), dimensions={}\n"
		"  ROOT s = f32[4] subtract(x, b)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT x = f32[4] parameter(0)\n}\n");
	/* x - C => x + (-C) */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  c = f32[] constant(3)\n"
		"  b = f32[4] broadcast(c), dimensions={}\n"
		"  ROOT s = f32[4] subtract(x, b)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  c = f32[] constant(3)\n"
		"  n = f32[] negate(c)\n"
		"  b = f32[4] broadcast(n), dimensions={}\n"
		"  ROOT s = f32[4] add(x, b)\n}\n");
	/* x - (x + y) => -y, (x + y) - x => y for integers */
	expect("HloModule m\nENTRY e {\n"
		"  x = s32[] parameter(0)\n"
		"  y = s32[] parameter(1)\n"
		"  a = s32[] add(y, x)\n"
		"  ROOT s = s32[] subtract(x, a)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = s32[] parameter(0)\n"
		"  y = s32[] parameter(1)\n"
		"  ROOT n = s32[] negate(y)\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  x = s32[] parameter(0)\n"
		"  y = s32[] parameter(1)\n"
		"  a = s32[] add(x, y)\n"
		"  ROOT s = s32[] subtract(a, x)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = s32[] parameter(0)\n"
		"  ROOT y = s32[] parameter(1)\n}\n");
}
E

/* ---- multiply, divide, remainder ---- */

T(multiply_rules)
{
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  c = f32[] constant(1)\n"
		"  b = f32[4] broadcast(c), dimensions={}\n"
		"  ROOT r = f32[4] multiply(b, x)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT x = f32[4] parameter(0)\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  x = u8[4] parameter(0)\n"
		"  c = u8[4] constant({0, 0, 0, 0})\n"
		"  ROOT r = u8[4] multiply(x, c)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = u8[4] parameter(0)\n"
		"  z = u8[] constant(0)\n"
		"  ROOT b = u8[4] broadcast(z), dimensions={}\n}\n");
	/* x * 0 is NaN for x = inf or NaN */
	unchanged("HloModule m\n\nENTRY %e (x: f32[]) -> f32[] {\n"
		"  %x = f32[] parameter(0)\n"
		"  %c = f32[] constant(0)\n"
		"  ROOT %r = f32[] multiply(f32[] %x, f32[] %c)\n}\n\n");
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[] parameter(0)\n"
		"  y = f32[] parameter(1)\n"
		"  a = f32[] negate(x)\n"
		"  b = f32[] negate(y)\n"
		"  ROOT r = f32[] multiply(a, b)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[] parameter(0)\n"
		"  y = f32[] parameter(1)\n"
		"  ROOT r = f32[] multiply(x, y)\n}\n");
	/* x * convert(p) => select(p, x, 0) */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  p = pred[4] parameter(1)\n"
		"  c = f32[4] convert(p)\n"
		"  ROOT r = f32[4] multiply(x, c)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  p = pred[4] parameter(1)\n"
		"  z = f32[] constant(0)\n"
		"  b = f32[4] broadcast(z), dimensions={}\n"
		"  ROOT r = f32[4] select(p, x, b)\n}\n");
	/* (x * c1) * c2 => x * (c1 * c2) */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[] parameter(0)\n"
		"  c1 = f32[] constant(2)\n"
		"  c2 = f32[] constant(3)\n"
		"  a = f32[] multiply(c1, x)\n"
		"  ROOT r = f32[] multiply(a, c2)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[] parameter(0)\n"
		"  c1 = f32[] constant(2)\n"
		"  c2 = f32[] constant(3)\n"
		"  p = f32[] multiply(c1, c2)\n"
		"  ROOT r = f32[] multiply(x, p)\n}\n");
}
E

T(divide_rules)
{
	expect("HloModule m\nENTRY e {\n"
		"  x = s32[4] parameter(0)\n"
		"  c = s32[] constant(1)\n"
		"  b = s32[4] broadcast(c), dimensions={}\n"
		"  ROOT r = s32[4] divide(x, b)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT x = s32[4] parameter(0)\n}\n");
	/* unsigned division by 2^k is a shift */
	expect("HloModule m\nENTRY e {\n"
		"  x = u32[] parameter(0)\n"
		"  c = u32[] constant(8)\n"
		"  ROOT r = u32[] divide(x, c)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = u32[] parameter(0)\n"
		"  c = u32[] constant(3)\n"
		"  ROOT r = u32[] shift-right-logical(x, c)\n}\n");
	/* signed: on the magnitude, the sign put back */
	expect("HloModule m\nENTRY e {\n"
		"  x = s32[] parameter(0)\n"
		"  c = s32[] constant(4)\n"
		"  ROOT r = s32[] divide(x, c)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = s32[] parameter(0)\n"
		"  z = s32[] constant(0)\n"
		"  lt = pred[] compare(x, z), direction=LT\n"
		"  n = s32[] negate(x)\n"
		"  a = s32[] select(lt, n, x)\n"
		"  k = s32[] constant(2)\n"
		"  q = s32[] shift-right-logical(a, k)\n"
		"  nq = s32[] negate(q)\n"
		"  ROOT r = s32[] select(lt, nq, q)\n}\n");
	unchanged("HloModule m\n\nENTRY %e (x: s32[]) -> s32[] {\n"
		"  %x = s32[] parameter(0)\n"
		"  %c = s32[] constant(3)\n"
		"  ROOT %r = s32[] divide(s32[] %x, s32[] %c)\n}\n\n");
	/* float division by a constant: by its reciprocal */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  c = f32[] constant(4)\n"
		"  b = f32[4] broadcast(c), dimensions={}\n"
		"  ROOT r = f32[4] divide(x, b)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  c = f32[] constant(0.25)\n"
		"  b = f32[4] broadcast(c), dimensions={}\n"
		"  ROOT r = f32[4] multiply(x, b)\n}\n");
	/* x / sqrt(y) => x * rsqrt(y) */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[] parameter(0)\n"
		"  y = f32[] parameter(1)\n"
		"  s = f32[] sqrt(y)\n"
		"  ROOT r = f32[] divide(x, s)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[] parameter(0)\n"
		"  y = f32[] parameter(1)\n"
		"  s = f32[] rsqrt(y)\n"
		"  ROOT r = f32[] multiply(x, s)\n}\n");
	/* x / x is not 1 (0, inf, NaN) */
	unchanged("HloModule m\n\nENTRY %e (x: f32[]) -> f32[] {\n"
		"  %x = f32[] parameter(0)\n"
		"  ROOT %r = f32[] divide(f32[] %x, f32[] %x)\n}\n\n");
}
E

T(remainder_rules)
{
	expect("HloModule m\nENTRY e {\n"
		"  x = u32[4] parameter(0)\n"
		"  c = u32[] constant(16)\n"
		"  b = u32[4] broadcast(c), dimensions={}\n"
		"  ROOT r = u32[4] remainder(x, b)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = u32[4] parameter(0)\n"
		"  c = u32[] constant(15)\n"
		"  b = u32[4] broadcast(c), dimensions={}\n"
		"  ROOT r = u32[4] and(x, b)\n}\n");
	/* an iota smaller than the divisor */
	expect("HloModule m\nENTRY e {\n"
		"  i = s32[8] iota(), iota_dimension=0\n"
		"  c = s32[] constant(9)\n"
		"  b = s32[8] broadcast(c), dimensions={}\n"
		"  ROOT r = s32[8] remainder(i, b)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT i = s32[8] iota(), iota_dimension=0\n}\n");
}
E

/* ---- logic, unary ---- */

T(logic_rules)
{
	expect("HloModule m\nENTRY e {\n"
		"  x = pred[4] parameter(0)\n"
		"  t = pred[] constant(true)\n"
		"  b = pred[4] broadcast(t), dimensions={}\n"
		"  ROOT r = pred[4] and(x, b)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT x = pred[4] parameter(0)\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  x = pred[] parameter(0)\n"
		"  t = pred[] constant(true)\n"
		"  ROOT r = pred[] or(t, x)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = pred[] parameter(0)\n"
		"  ROOT t = pred[] constant(true)\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  x = s32[] parameter(0)\n"
		"  z = s32[] constant(0)\n"
		"  ROOT r = s32[] or(x, z)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT x = s32[] parameter(0)\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  x = u32[] parameter(0)\n"
		"  ROOT r = u32[] xor(x, x)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = u32[] parameter(0)\n"
		"  ROOT z = u32[] constant(0)\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  x = pred[] parameter(0)\n"
		"  a = pred[] not(x)\n"
		"  ROOT b = pred[] not(a)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT x = pred[] parameter(0)\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[] parameter(0)\n"
		"  a = f32[] negate(x)\n"
		"  ROOT b = f32[] negate(a)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT x = f32[] parameter(0)\n}\n");
	/* abs of something non-negative */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[] parameter(0)\n"
		"  a = f32[] exponential(x)\n"
		"  ROOT b = f32[] abs(a)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[] parameter(0)\n"
		"  ROOT a = f32[] exponential(x)\n}\n");
	/* (x < 5) && (x < 3) => x < 3 */
	expect("HloModule m\nENTRY e {\n"
		"  x = s32[] parameter(0)\n"
		"  c5 = s32[] constant(5)\n"
		"  c3 = s32[] constant(3)\n"
		"  a = pred[] compare(x, c5), direction=LT\n"
		"  b = pred[] compare(x, c3), direction=LT\n"
		"  ROOT r = pred[] and(a, b)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = s32[] parameter(0)\n"
		"  c3 = s32[] constant(3)\n"
		"  ROOT r = pred[] compare(x, c3), direction=LT\n}\n");
}
E

T(select_rules)
{
	expect("HloModule m\nENTRY e {\n"
		"  p = pred[4] parameter(0)\n"
		"  x = f32[4] parameter(1)\n"
		"  ROOT r = f32[4] select(p, x, x)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  p = pred[4] parameter(0)\n"
		"  ROOT x = f32[4] parameter(1)\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  y = f32[4] parameter(1)\n"
		"  f = pred[] constant(false)\n"
		"  b = pred[4] broadcast(f), dimensions={}\n"
		"  ROOT r = f32[4] select(b, x, y)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  ROOT y = f32[4] parameter(1)\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  p = pred[4] parameter(0)\n"
		"  x = f32[4] parameter(1)\n"
		"  y = f32[4] parameter(2)\n"
		"  n = pred[4] not(p)\n"
		"  ROOT r = f32[4] select(n, x, y)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  p = pred[4] parameter(0)\n"
		"  x = f32[4] parameter(1)\n"
		"  y = f32[4] parameter(2)\n"
		"  ROOT r = f32[4] select(p, y, x)\n}\n");
	/* select(a < b, a, b) on pred is and(a, b) */
	expect("HloModule m\nENTRY e {\n"
		"  a = pred[] parameter(0)\n"
		"  b = pred[] parameter(1)\n"
		"  c = pred[] compare(a, b), direction=LT\n"
		"  ROOT r = pred[] select(c, a, b)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  a = pred[] parameter(0)\n"
		"  b = pred[] parameter(1)\n"
		"  ROOT r = pred[] and(a, b)\n}\n");
}
E

T(compare_rules)
{
	expect("HloModule m\nENTRY e {\n"
		"  x = s32[4] parameter(0)\n"
		"  ROOT r = pred[4] compare(x, x), direction=LE\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = s32[4] parameter(0)\n"
		"  t = pred[] constant(true)\n"
		"  ROOT b = pred[4] broadcast(t), dimensions={}\n}\n");
	/* x < x is true for x = NaN? no: false, but x == x is not true */
	unchanged("HloModule m\n\nENTRY %e (x: f32[4]) -> pred[4] {\n"
		"  %x = f32[4] parameter(0)\n"
		"  ROOT %r = pred[4] compare(f32[4] %x, f32[4] %x), "
		"direction=EQ\n}\n\n");
	expect("HloModule m\nENTRY e {\n"
		"  x = u32[] parameter(0)\n"
		"  z = u32[] constant(0)\n"
		"  ROOT r = pred[] compare(x, z), direction=LT\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = u32[] parameter(0)\n"
		"  ROOT f = pred[] constant(false)\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  x = pred[] parameter(0)\n"
		"  t = pred[] constant(true)\n"
		"  ROOT r = pred[] compare(x, t), direction=EQ\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT x = pred[] parameter(0)\n}\n");
}
E

T(min_max_rules)
{
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[] parameter(0)\n"
		"  ROOT r = f32[] maximum(x, x)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT x = f32[] parameter(0)\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  c = f32[] constant(-inf)\n"
		"  b = f32[4] broadcast(c), dimensions={}\n"
		"  ROOT r = f32[4] maximum(b, x)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT x = f32[4] parameter(0)\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  x = s32[] parameter(0)\n"
		"  c = s32[] constant(2147483647)\n"
		"  ROOT r = s32[] minimum(x, c)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT x = s32[] parameter(0)\n}\n");
	/* without NaN propagation max(NaN, -inf) would be -inf */
	{
		AlgOpts o = *algsimp_cpu_opts();

		o.minmax_nan = 0;
		unchanged_opts("HloModule m\n\nENTRY %e (x: f32[]) -> f32[] {\n"
			"  %x = f32[] parameter(0)\n"
			"  %c = f32[] constant(-inf)\n"
			"  ROOT %r = f32[] maximum(f32[] %x, f32[] %c)\n}\n\n",
			&o);
	}
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[] parameter(0)\n"
		"  y = f32[] parameter(1)\n"
		"  a = f32[] maximum(x, y)\n"
		"  ROOT r = f32[] maximum(a, y)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[] parameter(0)\n"
		"  y = f32[] parameter(1)\n"
		"  ROOT a = f32[] maximum(x, y)\n}\n");
	/* max(lo, min(x, hi)) => clamp(lo, x, hi) */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  c0 = f32[] constant(0)\n"
		"  c6 = f32[] constant(6)\n"
		"  lo = f32[4] broadcast(c0), dimensions={}\n"
		"  hi = f32[4] broadcast(c6), dimensions={}\n"
		"  m = f32[4] minimum(x, hi)\n"
		"  ROOT r = f32[4] maximum(lo, m)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  c0 = f32[] constant(0)\n"
		"  lo = f32[4] broadcast(c0), dimensions={}\n"
		"  x = f32[4] parameter(0)\n"
		"  c6 = f32[] constant(6)\n"
		"  hi = f32[4] broadcast(c6), dimensions={}\n"
		"  ROOT r = f32[4] clamp(lo, x, hi)\n}\n");
}
E

T(power_exp_log)
{
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[] parameter(0)\n"
		"  c = f32[] constant(0)\n"
		"  ROOT r = f32[] power(x, c)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[] parameter(0)\n"
		"  ROOT one = f32[] constant(1)\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[] parameter(0)\n"
		"  c = f32[] constant(2)\n"
		"  ROOT r = f32[] power(x, c)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[] parameter(0)\n"
		"  ROOT r = f32[] multiply(x, x)\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[] parameter(0)\n"
		"  c = f32[] constant(-1)\n"
		"  ROOT r = f32[] power(x, c)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  one = f32[] constant(1)\n"
		"  x = f32[] parameter(0)\n"
		"  ROOT r = f32[] divide(one, x)\n}\n");
	/* integer pow(0, -1) is 0, 1 / 0 is -1 */
	unchanged("HloModule m\n\nENTRY %e (x: s32[]) -> s32[] {\n"
		"  %x = s32[] parameter(0)\n"
		"  %c = s32[] constant(-1)\n"
		"  ROOT %r = s32[] power(s32[] %x, s32[] %c)\n}\n\n");
	expect("HloModule m\nENTRY e {\n"
		"  c = f32[] constant(0)\n"
		"  b = f32[3] broadcast(c), dimensions={}\n"
		"  ROOT r = f32[3] exponential(b)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  one = f32[] constant(1)\n"
		"  ROOT b = f32[3] broadcast(one), dimensions={}\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[] parameter(0)\n"
		"  s = f32[] sqrt(x)\n"
		"  ROOT r = f32[] log(s)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[] parameter(0)\n"
		"  l = f32[] log(x)\n"
		"  h = f32[] constant(0.5)\n"
		"  ROOT r = f32[] multiply(l, h)\n}\n");
	/* log(exp(x)) is x only with fast math (exp overflows) */
	unchanged("HloModule m\n\nENTRY %e (x: f32[]) -> f32[] {\n"
		"  %x = f32[] parameter(0)\n"
		"  %a = f32[] exponential(f32[] %x)\n"
		"  ROOT %r = f32[] log(f32[] %a)\n}\n\n");
	{
		AlgOpts o = *algsimp_cpu_opts();

		o.fast_math = 1;
		expect_opts("HloModule m\nENTRY e {\n"
			"  x = f32[] parameter(0)\n"
			"  a = f32[] exponential(x)\n"
			"  ROOT r = f32[] log(a)\n}\n",
			"HloModule m\nENTRY e {\n"
			"  ROOT x = f32[] parameter(0)\n}\n", &o);
	}
}
E

T(convert_rules)
{
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  ROOT r = f32[4] convert(x)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT x = f32[4] parameter(0)\n}\n");
	/* s8 -> s32 -> s8 round-trips */
	expect("HloModule m\nENTRY e {\n"
		"  x = s8[4] parameter(0)\n"
		"  a = s32[4] convert(x)\n"
		"  ROOT r = s8[4] convert(a)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT x = s8[4] parameter(0)\n}\n");
	/* f32 -> bf16 -> f32 rounds */
	unchanged("HloModule m\n\nENTRY %e (x: f32[4]) -> f32[4] {\n"
		"  %x = f32[4] parameter(0)\n"
		"  %a = bf16[4] convert(f32[4] %x)\n"
		"  ROOT %r = f32[4] convert(bf16[4] %a)\n}\n\n");
	/* s32 -> u32 -> s32 does not keep negative values in u32 */
	unchanged("HloModule m\n\nENTRY %e (x: s32[4]) -> s32[4] {\n"
		"  %x = s32[4] parameter(0)\n"
		"  %a = u32[4] convert(s32[4] %x)\n"
		"  ROOT %r = s32[4] convert(u32[4] %a)\n}\n\n");
	/* the add done in s8 instead of s32 */
	expect("HloModule m\nENTRY e {\n"
		"  x = s8[4] parameter(0)\n"
		"  y = s8[4] parameter(1)\n"
		"  a = s32[4] convert(x)\n"
		"  b = s32[4] convert(y)\n"
		"  s = s32[4] add(a, b)\n"
		"  ROOT r = s8[4] convert(s)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = s8[4] parameter(0)\n"
		"  y = s8[4] parameter(1)\n"
		"  ROOT s = s8[4] add(x, y)\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  ROOT r = f32[4] real(x)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT x = f32[4] parameter(0)\n}\n");
}
E

/* ---- data movement ---- */

T(reshape_rules)
{
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[2,3] parameter(0)\n"
		"  a = f32[6] reshape(x)\n"
		"  ROOT r = f32[3,2] reshape(a)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[2,3] parameter(0)\n"
		"  ROOT r = f32[3,2] reshape(x)\n}\n");
	/* the same dimensions in another layout: no reshape needed */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[2,3]{1,0} parameter(0)\n"
		"  ROOT r = f32[2,3]{0,1} reshape(x)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT x = f32[2,3]{1,0} parameter(0)\n}\n");
	/* reshape(broadcast(x)) keeping x's dimensions */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[3] parameter(0)\n"
		"  b = f32[2,3] broadcast(x), dimensions={1}\n"
		"  ROOT r = f32[2,1,3] reshape(b)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[3] parameter(0)\n"
		"  ROOT r = f32[2,1,3] broadcast(x), dimensions={2}\n}\n");
	/* reshape(iota) as a mixed radix sum of iotas */
	expect("HloModule m\nENTRY e {\n"
		"  i = s32[6] iota(), iota_dimension=0\n"
		"  ROOT r = s32[2,3] reshape(i)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  a = s32[2,3] iota(), iota_dimension=1\n"
		"  b = s32[2,3] iota(), iota_dimension=0\n"
		"  c = s32[] constant(3)\n"
		"  cb = s32[2,3] broadcast(c), dimensions={}\n"
		"  m = s32[2,3] multiply(b, cb)\n"
		"  ROOT r = s32[2,3] add(a, m)\n}\n");
	/* a reshape/transpose chain that permutes back */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[2,3] parameter(0)\n"
		"  t = f32[3,2] transpose(x), dimensions={1,0}\n"
		"  r1 = f32[3,1,2] reshape(t)\n"
		"  t2 = f32[2,1,3] transpose(r1), dimensions={2,1,0}\n"
		"  ROOT r = f32[2,3] reshape(t2)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT x = f32[2,3] parameter(0)\n}\n");
}
E

T(transpose_rules)
{
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[2,3] parameter(0)\n"
		"  ROOT r = f32[2,3] transpose(x), dimensions={0,1}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT x = f32[2,3] parameter(0)\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[2,3,4] parameter(0)\n"
		"  a = f32[3,4,2] transpose(x), dimensions={1,2,0}\n"
		"  ROOT r = f32[4,2,3] transpose(a), dimensions={1,2,0}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[2,3,4] parameter(0)\n"
		"  ROOT r = f32[4,2,3] transpose(x), dimensions={2,0,1}\n}\n");
	/* moving only a size-1 dimension is a reshape */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[1,2,3] parameter(0)\n"
		"  ROOT r = f32[2,1,3] transpose(x), dimensions={1,0,2}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[1,2,3] parameter(0)\n"
		"  ROOT r = f32[2,1,3] reshape(x)\n}\n");
	/* transpose(broadcast(x)) => broadcast(x) */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[3] parameter(0)\n"
		"  b = f32[2,3] broadcast(x), dimensions={1}\n"
		"  ROOT r = f32[3,2] transpose(b), dimensions={1,0}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[3] parameter(0)\n"
		"  ROOT r = f32[3,2] broadcast(x), dimensions={0}\n}\n");
}
E

T(broadcast_rules)
{
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[3] parameter(0)\n"
		"  a = f32[2,3] broadcast(x), dimensions={1}\n"
		"  ROOT r = f32[4,2,3] broadcast(a), dimensions={1,2}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[3] parameter(0)\n"
		"  ROOT r = f32[4,2,3] broadcast(x), dimensions={2}\n}\n");
	/* as many elements in as out: a reshape */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[3] parameter(0)\n"
		"  ROOT r = f32[1,3] broadcast(x), dimensions={1}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[3] parameter(0)\n"
		"  ROOT r = f32[1,3] reshape(x)\n}\n");
	/* degenerate dimensions of the operand dropped */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[1,3] parameter(0)\n"
		"  ROOT r = f32[1,5,3] broadcast(x), dimensions={0,2}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[1,3] parameter(0)\n"
		"  s = f32[3] reshape(x)\n"
		"  ROOT r = f32[1,5,3] broadcast(s), dimensions={2}\n}\n");
	/* an elementwise op on broadcasts done before broadcasting */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[3] parameter(0)\n"
		"  b = f32[2,3] broadcast(x), dimensions={1}\n"
		"  ROOT r = f32[2,3] negate(b)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[3] parameter(0)\n"
		"  n = f32[3] negate(x)\n"
		"  ROOT r = f32[2,3] broadcast(n), dimensions={1}\n}\n");
}
E

T(slice_rules)
{
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  ROOT r = f32[4] slice(x), slice={[0:4]}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT x = f32[4] parameter(0)\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[10] parameter(0)\n"
		"  a = f32[6] slice(x), slice={[2:8]}\n"
		"  ROOT r = f32[3] slice(a), slice={[1:4]}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[10] parameter(0)\n"
		"  ROOT r = f32[3] slice(x), slice={[3:6]}\n}\n");
	/* slice(pad) that takes the operand back */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  p = f32[7] pad(x, z), padding=1_2\n"
		"  ROOT r = f32[4] slice(p), slice={[1:5]}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT x = f32[4] parameter(0)\n}\n");
	/* a slice inside one operand of a concatenate */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  y = f32[5] parameter(1)\n"
		"  c = f32[9] concatenate(x, y), dimensions={0}\n"
		"  ROOT r = f32[5] slice(c), slice={[4:9]}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  ROOT y = f32[5] parameter(1)\n}\n");
	/* slice of a broadcast: a broadcast */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[3] parameter(0)\n"
		"  b = f32[5,3] broadcast(x), dimensions={1}\n"
		"  ROOT r = f32[2,3] slice(b), slice={[1:3], [0:3]}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[3] parameter(0)\n"
		"  ROOT r = f32[2,3] broadcast(x), dimensions={1}\n}\n");
}
E

T(pad_concat_rules)
{
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[4] pad(x, z), padding=0_0\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n}\n");
	/* negative padding becomes a slice */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[6] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[5] pad(x, z), padding=1_-2\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[6] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  p = f32[7] pad(x, z), padding=1_0\n"
		"  ROOT r = f32[5] slice(p), slice={[0:5]}\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  ROOT r = f32[4] concatenate(x), dimensions={0}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT x = f32[4] parameter(0)\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[2] parameter(0)\n"
		"  y = f32[3] parameter(1)\n"
		"  z = f32[4] parameter(2)\n"
		"  a = f32[7] concatenate(y, z), dimensions={0}\n"
		"  ROOT r = f32[9] concatenate(x, a), dimensions={0}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[2] parameter(0)\n"
		"  y = f32[3] parameter(1)\n"
		"  z = f32[4] parameter(2)\n"
		"  ROOT r = f32[9] concatenate(x, y, z), dimensions={0}\n}\n");
	/* adjacent slices of one operand merge */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[10] parameter(0)\n"
		"  y = f32[1] parameter(1)\n"
		"  a = f32[3] slice(x), slice={[0:3]}\n"
		"  b = f32[4] slice(x), slice={[3:7]}\n"
		"  ROOT r = f32[8] concatenate(a, b, y), dimensions={0}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[10] parameter(0)\n"
		"  s = f32[7] slice(x), slice={[0:7]}\n"
		"  y = f32[1] parameter(1)\n"
		"  ROOT r = f32[8] concatenate(s, y), dimensions={0}\n}\n");
	/* concatenate with a broadcast scalar: a pad */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  b = f32[2] broadcast(z), dimensions={}\n"
		"  ROOT r = f32[6] concatenate(x, b), dimensions={0}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[6] pad(x, z), padding=0_2\n}\n");
}
E

T(copy_constant_iota)
{
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  a = f32[4] copy(x)\n"
		"  ROOT r = f32[4] negate(a)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  ROOT r = f32[4] negate(x)\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  ROOT c = f32[3] constant({7, 7, 7})\n}\n",
		"HloModule m\nENTRY e {\n"
		"  s = f32[] constant(7)\n"
		"  ROOT b = f32[3] broadcast(s), dimensions={}\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  ROOT c = s32[4] constant({0, 1, 2, 3})\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT i = s32[4] iota(), iota_dimension=0\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  ROOT c = s32[4] constant({0, 3, 6, 9})\n}\n",
		"HloModule m\nENTRY e {\n"
		"  i = s32[4] iota(), iota_dimension=0\n"
		"  s = s32[] constant(3)\n"
		"  b = s32[4] broadcast(s), dimensions={}\n"
		"  ROOT r = s32[4] multiply(i, b)\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  ROOT i = f32[1,5] iota(), iota_dimension=0\n}\n",
		"HloModule m\nENTRY e {\n"
		"  z = f32[] constant(0)\n"
		"  ROOT b = f32[1,5] broadcast(z), dimensions={}\n}\n");
	/* a tuple constant becomes a tuple of constants */
	expect("HloModule m\nENTRY e {\n"
		"  ROOT c = (s32[], f32[]) constant((1, 2))\n}\n",
		"HloModule m\nENTRY e {\n"
		"  a = s32[] constant(1)\n"
		"  b = f32[] constant(2)\n"
		"  ROOT t = (s32[], f32[]) tuple(a, b)\n}\n");
	unchanged("HloModule m\n\nENTRY %e () -> f32[3] {\n"
		"  ROOT %c = f32[3] constant({1, 5, 2})\n}\n\n");
}
E

T(dynamic_slice_rules)
{
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[8,4] parameter(0)\n"
		"  i = s32[] constant(2)\n"
		"  j = s32[] constant(0)\n"
		"  ROOT r = f32[3,4] dynamic-slice(x, i, j), "
		"dynamic_slice_sizes={3,4}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[8,4] parameter(0)\n"
		"  ROOT r = f32[3,4] slice(x), slice={[2:5], [0:4]}\n}\n");
	/* offsets are clamped into the operand */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[8] parameter(0)\n"
		"  i = s32[] constant(7)\n"
		"  ROOT r = f32[3] dynamic-slice(x, i), dynamic_slice_sizes={3}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[8] parameter(0)\n"
		"  ROOT r = f32[3] slice(x), slice={[5:8]}\n}\n");
	/* a full-size update is the update */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  u = f32[4] parameter(1)\n"
		"  i = s32[] parameter(2)\n"
		"  ROOT r = f32[4] dynamic-update-slice(x, u, i)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  ROOT u = f32[4] parameter(1)\n"
		"  i = s32[] parameter(2)\n}\n");
	/* an update of a broadcast at constant offsets: a pad */
	expect("HloModule m\nENTRY e {\n"
		"  u = f32[2] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  b = f32[6] broadcast(z), dimensions={}\n"
		"  i = s32[] constant(3)\n"
		"  ROOT r = f32[6] dynamic-update-slice(b, u, i)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  u = f32[2] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[6] pad(u, z), padding=3_1\n}\n");
}
E

T(tuple_sort_reverse)
{
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  y = s32[] parameter(1)\n"
		"  t = (f32[4], s32[]) tuple(x, y)\n"
		"  ROOT r = s32[] get-tuple-element(t), index=1\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  ROOT y = s32[] parameter(1)\n}\n");
	expect("HloModule m\n"
		"lt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
		"  ROOT c = pred[] compare(a, b), direction=LT\n}\n"
		"ENTRY e {\n"
		"  x = f32[4,1] parameter(0)\n"
		"  ROOT r = f32[4,1] sort(x), dimensions={1}, to_apply=lt\n}\n",
		"HloModule m\n"
		"lt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
		"  ROOT c = pred[] compare(a, b), direction=LT\n}\n"
		"ENTRY e {\n"
		"  ROOT x = f32[4,1] parameter(0)\n}\n");
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[4,3] parameter(0)\n"
		"  a = f32[4,3] reverse(x), dimensions={0,1}\n"
		"  ROOT r = f32[4,3] reverse(a), dimensions={1,0}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  ROOT x = f32[4,3] parameter(0)\n}\n");
}
E

T(more_data_movement)
{
	/* reduce(broadcast(x), +) over the added dimension: x * 4 */
	expect("HloModule m\n" ADD_COMP "ENTRY e {\n"
		"  x = f32[3] parameter(0)\n"
		"  b = f32[4,3] broadcast(x), dimensions={1}\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[3] reduce(b, z), dimensions={0}, to_apply=add\n}\n",
		"HloModule m\n" ADD_COMP "ENTRY e {\n"
		"  x = f32[3] parameter(0)\n"
		"  c = f32[] constant(4)\n"
		"  b = f32[3] broadcast(c), dimensions={}\n"
		"  ROOT r = f32[3] multiply(x, b)\n}\n");
	/* concatenate of one operand n times along a size-1 dimension */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[2,3] parameter(0)\n"
		"  a = f32[1,2,3] reshape(x)\n"
		"  ROOT c = f32[3,2,3] concatenate(a, a, a), dimensions={0}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[2,3] parameter(0)\n"
		"  ROOT b = f32[3,2,3] broadcast(x), dimensions={1,2}\n}\n");
	/* slice(reshape(x)) sliced along dimension 0 only */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[6,4] parameter(0)\n"
		"  r = f32[24] reshape(x)\n"
		"  ROOT s = f32[8] slice(r), slice={[8:16]}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[6,4] parameter(0)\n"
		"  s = f32[2,4] slice(x), slice={[2:4], [0:4]}\n"
		"  ROOT r = f32[8] reshape(s)\n}\n");
	/* slice(reverse(x)) => reverse(slice(x)) */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[8] parameter(0)\n"
		"  r = f32[8] reverse(x), dimensions={0}\n"
		"  ROOT s = f32[3] slice(r), slice={[1:4]}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[8] parameter(0)\n"
		"  s = f32[3] slice(x), slice={[4:7]}\n"
		"  ROOT r = f32[3] reverse(s), dimensions={0}\n}\n");
	/* dynamic-slice(transpose(x)) => transpose(dynamic-slice(x)) */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[4,6] parameter(0)\n"
		"  t = f32[6,4] transpose(x), dimensions={1,0}\n"
		"  i = s32[] parameter(1)\n"
		"  j = s32[] parameter(2)\n"
		"  ROOT d = f32[2,3] dynamic-slice(t, i, j), "
		"dynamic_slice_sizes={2,3}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[4,6] parameter(0)\n"
		"  i = s32[] parameter(1)\n"
		"  j = s32[] parameter(2)\n"
		"  d = f32[3,2] dynamic-slice(x, j, i), "
		"dynamic_slice_sizes={3,2}\n"
		"  ROOT t = f32[2,3] transpose(d), dimensions={1,0}\n}\n");
	/* reverse(x * broadcast(c)) => reverse(x) * broadcast(c) */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  c = f32[] constant(2)\n"
		"  b = f32[4] broadcast(c), dimensions={}\n"
		"  m = f32[4] multiply(x, b)\n"
		"  ROOT r = f32[4] reverse(m), dimensions={0}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  r = f32[4] reverse(x), dimensions={0}\n"
		"  c = f32[] constant(2)\n"
		"  b = f32[4] broadcast(c), dimensions={}\n"
		"  ROOT m = f32[4] multiply(r, b)\n}\n");
	/* a scalar broadcast feeding a reshape: one broadcast */
	expect("HloModule m\nENTRY e {\n"
		"  c = f32[] parameter(0)\n"
		"  b = f32[8] broadcast(c), dimensions={}\n"
		"  ROOT s = f32[2,4] reshape(b)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  c = f32[] parameter(0)\n"
		"  ROOT b = f32[2,4] broadcast(c), dimensions={}\n}\n");
}
E

/* ---- reduce, dot ---- */


T(reduce_rules)
{
	/* reducing only size-1 dimensions: a reshape */
	expect("HloModule m\n" ADD_COMP "ENTRY e {\n"
		"  x = f32[4,1] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[4] reduce(x, z), dimensions={1}, to_apply=add\n}\n",
		"HloModule m\n" ADD_COMP "ENTRY e {\n"
		"  x = f32[4,1] parameter(0)\n"
		"  ROOT r = f32[4] reshape(x)\n}\n");
	/* reducing nothing: the init value */
	expect("HloModule m\n" ADD_COMP "ENTRY e {\n"
		"  x = f32[4,0] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[4] reduce(x, z), dimensions={1}, to_apply=add\n}\n",
		"HloModule m\n" ADD_COMP "ENTRY e {\n"
		"  x = f32[4,0] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[4] broadcast(z), dimensions={}\n}\n");
	/* reduce(reduce) with the same computation: one reduce */
	expect("HloModule m\n" ADD_COMP "ENTRY e {\n"
		"  x = f32[4,5,6] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  a = f32[4,6] reduce(x, z), dimensions={1}, to_apply=add\n"
		"  ROOT r = f32[4] reduce(a, z), dimensions={1}, to_apply=add\n}\n",
		"HloModule m\n" ADD_COMP "ENTRY e {\n"
		"  x = f32[4,5,6] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[4] reduce(x, z), dimensions={1,2}, "
		"to_apply=add\n}\n");
	/* reduce(transpose) reduces the transposed dimensions */
	expect("HloModule m\n" ADD_COMP "ENTRY e {\n"
		"  x = f32[4,5] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  t = f32[5,4] transpose(x), dimensions={1,0}\n"
		"  ROOT r = f32[5] reduce(t, z), dimensions={1}, to_apply=add\n}\n",
		"HloModule m\n" ADD_COMP "ENTRY e {\n"
		"  x = f32[4,5] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[5] reduce(x, z), dimensions={0}, "
		"to_apply=add\n}\n");
}
E

T(dot_rules)
{
	/* size-1 dimensions dropped around the dot */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[1,8] parameter(0)\n"
		"  y = f32[8,4] parameter(1)\n"
		"  ROOT d = f32[1,4] dot(x, y), lhs_contracting_dims={1}, "
		"rhs_contracting_dims={0}\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[1,8] parameter(0)\n"
		"  rx = f32[8] reshape(x)\n"
		"  y = f32[8,4] parameter(1)\n"
		"  d = f32[4] dot(rx, y), lhs_contracting_dims={0}, "
		"rhs_contracting_dims={0}\n"
		"  ROOT r = f32[1,4] reshape(d)\n}\n");
	/* no contracting dimensions: a multiply of broadcasts */
	expect("HloModule m\nENTRY e {\n"
		"  x = f32[3] parameter(0)\n"
		"  y = f32[4] parameter(1)\n"
		"  ROOT d = f32[3,4] dot(x, y)\n}\n",
		"HloModule m\nENTRY e {\n"
		"  x = f32[3] parameter(0)\n"
		"  bx = f32[3,4] broadcast(x), dimensions={0}\n"
		"  y = f32[4] parameter(1)\n"
		"  by = f32[3,4] broadcast(y), dimensions={1}\n"
		"  ROOT d = f32[3,4] multiply(bx, by)\n}\n");
	/* dot strength reduction is off on CPU */
	unchanged("HloModule m\n\nENTRY %e (x: f32[8], y: f32[8,4]) -> f32[4] {\n"
		"  %x = f32[8] parameter(0)\n"
		"  %y = f32[8,4] parameter(1)\n"
		"  ROOT %d = f32[4] dot(f32[8] %x, f32[8,4] %y), "
		"lhs_contracting_dims={0}, rhs_contracting_dims={0}\n}\n\n");
}
E

/* ---- what must not happen ---- */

T(side_effects_stay)
{
	HloModule *m = parse("HloModule m\nENTRY e {\n"
		"  c = s32[] custom-call(), custom_call_target=\"f\", "
		"custom_call_has_side_effect=true\n"
		"  z = s32[] constant(0)\n"
		"  r = s32[] multiply(c, z)\n"
		"  ROOT a = s32[] add(r, c)\n}\n");
	uint32_t i;
	int found = 0;

	ck_assert_int_eq(simp(m), 1);
	for (i = 0; i < m->comps[m->entry].nins; i++)
		found += m->comps[m->entry].ins[i].op == HOP_CUSTOMCALL;
	ck_assert_int_eq(found, 1);
	hlo_module_free(m);
	/* the dead operand cone of a replaced instruction goes, but not the
	 * side-effecting part of it */
	m = parse("HloModule m\nENTRY e {\n"
		"  t = token[] after-all()\n"
		"  r = (s32[], u32[], token[]) recv(t), channel_id=1\n"
		"  d = (s32[], token[]) recv-done(r), channel_id=1\n"
		"  v = s32[] get-tuple-element(d), index=0\n"
		"  z = s32[] constant(0)\n"
		"  ROOT a = s32[] multiply(v, z)\n}\n");
	simp(m);
	found = 0;
	for (i = 0; i < m->comps[m->entry].nins; i++)
		found += m->comps[m->entry].ins[i].op == HOP_RECVDONE;
	ck_assert_int_eq(found, 1);
	hlo_module_free(m);
}
E

T(control_dependencies_block)
{
	unchanged("HloModule m\n\nENTRY %e (x: f32[4]) -> f32[4] {\n"
		"  %x = f32[4] parameter(0)\n"
		"  %n = f32[4] negate(f32[4] %x)\n"
		"  %c = f32[] constant(0)\n"
		"  %b = f32[4] broadcast(f32[] %c), dimensions={}\n"
		"  ROOT %a = f32[4] add(f32[4] %x, f32[4] %b), "
		"control-predecessors={%n}\n}\n\n");
}
E

T(replaced_instruction_and_dead_operands_go)
{
	HloModule *m = parse("HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  c = f32[] constant(1)\n"
		"  b = f32[4] broadcast(c), dimensions={}\n"
		"  r = f32[4] multiply(x, b)\n"
		"  ROOT n = f32[4] negate(r)\n}\n");

	ck_assert_int_eq(simp(m), 1);
	/* the multiply and its constant operands are removed as xla's
	 * ReplaceInstruction removes them */
	ck_assert_int_eq(live(m), 2);
	hlo_module_free(m);
	/* dead code the pass does not touch stays for dce */
	m = parse("HloModule m\nENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  d = f32[4] sine(x)\n"
		"  ROOT n = f32[4] negate(x)\n}\n");
	ck_assert_int_eq(simp(m), 0);
	ck_assert_int_eq(live(m), 3);
	hlo_module_free(m);
}
E

T(called_computations_are_simplified)
{
	expect("HloModule m\n"
		"add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
		"  z = f32[] constant(0)\n  s = f32[] add(b, z)\n"
		"  ROOT c = f32[] add(a, s)\n}\n"
		"ENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[] reduce(x, z), dimensions={0}, to_apply=add\n}\n",
		"HloModule m\n" ADD_COMP "ENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[] reduce(x, z), dimensions={0}, to_apply=add\n}\n");
}
E

/* ---- sweeps ---- */

static const char *
datadir(void)
{
	const char *d = getenv("HLOPT_DATA");

	return d ? d : "data";
}

static const char *
corpusdir(void)
{
	const char *d = getenv("HLOPT_CORPUS");

	return d ? d : "../shared/corpus";
}

typedef struct {
	char **v;
	size_t n, cap;
} Files;

static void
walk(const char *dir, Files *f)
{
	DIR *d = opendir(dir);
	struct dirent *ent;
	char path[4096];
	struct stat st;
	size_t len;

	if (!d)
		return;
	while ((ent = readdir(d))) {
		if (ent->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
		if (stat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			walk(path, f);
			continue;
		}
		len = strlen(path);
		if (!(len > 4 && (!strcmp(path + len - 4, ".hlo") ||
		    !strcmp(path + len - 3, ".pb"))))
			continue;
		if (f->n == f->cap) {
			f->cap = f->cap ? 2 * f->cap : 64;
			f->v = realloc(f->v, f->cap * sizeof *f->v);
		}
		f->v[f->n++] = strdup(path);
	}
	closedir(d);
}

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* modules whose outputs depend on the last bit of a float: a rewrite
 * that rounds differently (x / c as x * (1/c), as xla does) changes
 * them beyond any tolerance; a 1-ulp change of one constant does too */
static int
chaotic(const char *path)
{
	return strstr(path, "jax.issue.26021") != NULL ||
		strstr(path, "llama_shard_over_sequence") != NULL;
}

/* algsimp on the module in path: the verifier must accept the result,
 * and it must evaluate as the input does when both can be evaluated
 * (eval: 0 never, 1 when small, 2 always); returns instructions
 * removed */
static int64_t
sweep_one(const char *path, int eval)
{
	HloModule *m = NULL, *orig;
	HloError e;
	PassCtx ctx;
	int64_t before, after;
	int r;

	if (hlo_load(path, &m, &e) < 0 || hlo_verify(m, &e) < 0) {
		hlo_module_free(m);
		return 0;	/* not ours to judge */
	}
	orig = hlo_module_clone(m);
	before = live(m);
	pass_ctx_init(&ctx);
	r = pass_algsimp(m, &ctx);
	if (r < 0)
		ck_abort_msg("%s: algsimp failed: %s", path, ctx.err.msg);
	pass_ctx_free(&ctx);
	if (hlo_verify(m, &e) < 0)
		ck_abort_msg("%s: verify after algsimp: %s", path, e.msg);
	after = live(m);
	if (eval && r > 0 && !chaotic(path) && (eval == 2 || before < 600)) {
		HloVerifyOpts o = {0};
		HloVerifyResult res;

		o.trials = 1;
		o.seed = 1;
		o.rtol = 1e-3;
		o.atol = 1e-5;
		o.limit = (uint64_t)256 << 20;
		if (hlo_eval_verify(orig, m, &o, &res) == 1)
			ck_abort_msg("%s: algsimp changed the result: %s", path,
				res.msg);
	}
	hlo_module_free(orig);
	hlo_module_free(m);
	return before - after;
}

T(sweep_data)
{
	Files f = {0};
	size_t k;

	walk(datadir(), &f);
	qsort(f.v, f.n, sizeof *f.v, cmpstr);
	for (k = 0; k < f.n; k++) {
		int64_t rm = sweep_one(f.v[k], 1);

		if (getenv("HLOPT_VERBOSE"))
			fprintf(stderr, "%8lld %s\n", (long long)rm, f.v[k]);
		free(f.v[k]);
	}
	free(f.v);
}
E

T(sweep_corpus)
{
	Files f = {0};
	size_t k;
	int full = getenv("HLOPT_SWEEP") && !strcmp(getenv("HLOPT_SWEEP"),
		"full");

	walk(corpusdir(), &f);
	qsort(f.v, f.n, sizeof *f.v, cmpstr);
	for (k = 0; k < f.n; k++) {
		sweep_one(f.v[k], full ? 2 : 0);
		free(f.v[k]);
	}
	free(f.v);
}
E

T(deterministic)
{
	const char *path = "data/hloenv-jax/jax-md/"
		"module_3803.jit_apply_fn.765.before_optimizations.hlo";
	HloModule *a = NULL, *b = NULL;
	HloError e;
	PassCtx ctx;
	char *pa, *pb;

	if (hlo_load(path, &a, &e) < 0)
		return;
	hlo_load(path, &b, &e);
	pass_ctx_init(&ctx);
	pass_algsimp(a, &ctx);
	pass_algsimp(b, &ctx);
	pass_ctx_free(&ctx);
	pa = print(a);
	pb = print(b);
	ck_assert_str_eq(pa, pb);
	free(pa);
	free(pb);
	hlo_module_free(a);
	hlo_module_free(b);
}
E

/* the second run finds nothing: the first reached a fixed point */
T(idempotent)
{
	const char *path = "data/xla-benchmarks/backends/cpu/benchmarks/hlo/"
		"dlrm_keras_jax_f32_train_step.hlo";
	HloModule *a = NULL;
	HloError e;
	PassCtx ctx;

	if (hlo_load(path, &a, &e) < 0)
		return;
	pass_ctx_init(&ctx);
	ck_assert_int_eq(pass_algsimp(a, &ctx), 1);
	ck_assert_int_eq(pass_algsimp(a, &ctx), 0);
	pass_ctx_free(&ctx);
	hlo_module_free(a);
}
E

static Suite *
suite(void)
{
	Suite *s = suite_create("algsimp");
	TCase *t = tcase_create("rules");
	TCase *w = tcase_create("sweep");

	tcase_add_test(t, add_zero);
	tcase_add_test(t, add_constant_to_the_right);
	tcase_add_test(t, add_reassociate_constants);
	tcase_add_test(t, add_sub_same_integers_only);
	tcase_add_test(t, add_distributes_multiply);
	tcase_add_test(t, add_into_dynamic_update_slice_of_zeros);
	tcase_add_test(t, subtract_rules);
	tcase_add_test(t, multiply_rules);
	tcase_add_test(t, divide_rules);
	tcase_add_test(t, remainder_rules);
	tcase_add_test(t, logic_rules);
	tcase_add_test(t, select_rules);
	tcase_add_test(t, compare_rules);
	tcase_add_test(t, min_max_rules);
	tcase_add_test(t, power_exp_log);
	tcase_add_test(t, convert_rules);
	tcase_add_test(t, reshape_rules);
	tcase_add_test(t, transpose_rules);
	tcase_add_test(t, broadcast_rules);
	tcase_add_test(t, slice_rules);
	tcase_add_test(t, pad_concat_rules);
	tcase_add_test(t, copy_constant_iota);
	tcase_add_test(t, dynamic_slice_rules);
	tcase_add_test(t, tuple_sort_reverse);
	tcase_add_test(t, reduce_rules);
	tcase_add_test(t, more_data_movement);
	tcase_add_test(t, dot_rules);
	tcase_add_test(t, side_effects_stay);
	tcase_add_test(t, control_dependencies_block);
	tcase_add_test(t, replaced_instruction_and_dead_operands_go);
	tcase_add_test(t, called_computations_are_simplified);
	tcase_add_test(w, sweep_data);
	tcase_add_test(w, sweep_corpus);
	tcase_add_test(w, deterministic);
	tcase_add_test(w, idempotent);
	tcase_set_timeout(w, 600);
	suite_add_tcase(s, t);
	suite_add_tcase(s, w);
	return s;
}

int
main(void)
{
	SRunner *r = srunner_create(suite());
	int failed;

	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed != 0;
}
