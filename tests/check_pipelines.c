/* check_pipelines.c: the named pipelines as data. default is XLA:CPU's
 * step table (passes/xla_cpu.def): its sequence follows the table, holds
 * exactly the registered actions, ends without a dce, and man/hlopt.1
 * carries the same table. saturate: every registered pass is classified
 * (saturate member or may raise), and no member raises the instruction
 * count on any module of data/ (nor after default). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "pass.h"
#include "testutil.h"

#define MAN "man/hlopt.1"
#define BEGIN ".\\\" xla-cpu-steps begin"
#define END ".\\\" xla-cpu-steps end"

static const PassPipeline *
pipeline(const char *name)
{
	const PassPipeline *p = pass_pipeline_lookup(name, strlen(name));

	ck_assert_msg(p != NULL, "no pipeline %s", name);
	return p;
}

static int
registered(const char *name)
{
	return name && pass_lookup(name, strlen(name)) >= 0;
}

/* the man page's lines for step i (1-based) of p */
static void
man_step(HloBuf *b, int i, const PassXlaStep *st)
{
	hlo_buf_printf(b, ".It %d %s\n", i, st->xla);
	if (st->kind == PASS_STEP_FIX)
		hlo_buf_printf(b, "fixed point of the steps up to its end, at "
			"most %d rounds\n", PASS_FIX_LIMIT);
	else if (st->kind == PASS_STEP_END)
		hlo_buf_puts(b, "end of the fixed point\n");
	else if (!st->action)
		hlo_buf_printf(b, "none: %s\n", st->note);
	else if (st->note)
		hlo_buf_printf(b, ".Li %s :\n%s\n", st->action, st->note);
	else
		hlo_buf_printf(b, ".Li %s\n", st->action);
}

START_TEST(man_table)
{
	const PassPipeline *p = pipeline("default");
	HloBuf want = {0};
	char *man = tu_read(MAN, NULL), *a, *z;
	int i;

	ck_assert_msg(man != NULL, "cannot read " MAN);
	hlo_buf_puts(&want, "");
	for (i = 0; i < p->nsteps; i++)
		man_step(&want, i + 1, &p->steps[i]);
	a = strstr(man, BEGIN "\n");
	z = a ? strstr(a, END "\n") : NULL;
	ck_assert_msg(a && z, MAN " has no '" BEGIN "' ... '" END "' block");
	a += strlen(BEGIN "\n");
	*z = '\0';
	if (strcmp(a, want.buf))
		fprintf(stderr, "the table in " MAN " should read:\n%s",
			want.buf);
	ck_assert_msg(!strcmp(a, want.buf), MAN "'s table of XLA:CPU's steps "
		"differs from passes/xla_cpu.def (the lines it should hold "
		"are on stderr)");
	ck_assert_msg(strstr(man, "353a6d6c92ef866744f0b8c855c1117a27957630")
		&& strstr(p->mirrors, "353a6d6c92ef866744f0b8c855c1117a27957630"),
		"the commit default mirrors is in the data and the man page");
	free(man);
	hlo_buf_free(&want);
}
END_TEST

/* default's sequence is the table's registered actions, in order */
START_TEST(default_follows_table)
{
	const PassPipeline *p = pipeline("default");
	HloBuf want = {0}, got = {0};
	PassSeq s = {0};
	HloError e;
	int i, nfix = 0, last = -1;

	hlo_buf_puts(&want, "");
	for (i = 0; i < p->nsteps; i++) {
		const PassXlaStep *st = &p->steps[i];

		if (st->kind == PASS_STEP_FIX) {
			nfix++;
			continue;
		}
		ck_assert_int_eq(pass_step_status(st) == PASS_STEP_MISSING,
			st->action && !registered(st->action));
		if (st->kind == PASS_STEP_PASS && registered(st->action)) {
			hlo_buf_printf(&want, "%s%s", want.len ? "," : "",
				st->action);
			last = i;
		}
	}
	ck_assert_int_eq(nfix, 3);
	ck_assert_msg(last >= 0 && !strcmp(p->steps[last].action,
		"flatten-call-graph"), "default ends with flatten-call-graph, "
		"no dce after it, as XLA");
	ck_assert_int_eq(pass_seq_parse("default", &s, &e), 0);
	for (i = 0; i < (int)s.n; i++)
		if (s.items[i] >= 0)
			hlo_buf_printf(&got, "%s%s", got.len ? "," : "",
				hlo_passes[s.items[i]].name);
	ck_assert_str_eq(got.buf, want.buf);
	ck_assert_int_eq(s.items[0], pass_lookup("flatten-call-graph", 18));
	pass_seq_free(&s);
	hlo_buf_free(&want);
	hlo_buf_free(&got);
}
END_TEST

static int
listed(const char *const *list, const char *name)
{
	int i;

	for (i = 0; list[i]; i++)
		if (!strcmp(list[i], name))
			return 1;
	return 0;
}

/* a new pass must be put in saturate or among the passes that may raise
 * the count (passes/pipelines.c) */
START_TEST(every_pass_classified)
{
	int i, in, out;

	for (i = 0; i < PASS_COUNT; i++) {
		in = listed(pass_saturate_members, hlo_passes[i].name);
		out = listed(pass_may_raise, hlo_passes[i].name);
		ck_assert_msg(in + out == 1, "pass %s is %s: put it in "
			"pass_saturate_members (never raises the instruction "
			"count) or pass_may_raise in passes/pipelines.c",
			hlo_passes[i].name, in ? "in both lists" :
			"in neither list");
	}
	for (i = 0; pass_saturate_members[i]; i++)
		ck_assert_msg(!listed(pass_may_raise,
			pass_saturate_members[i]), "%s in both lists",
			pass_saturate_members[i]);
}
END_TEST

static int64_t
run(HloModule *m, const char *seq)
{
	PassCtx ctx;
	PassSeq s = {0};
	HloError e;

	if (pass_seq_parse(seq, &s, &e) < 0)
		ck_abort_msg("%s: %s", seq, e.msg);
	pass_ctx_init(&ctx);
	if (pass_run_seq(m, &s, &ctx, NULL) < 0)
		ck_abort_msg("%s: %s", seq, ctx.err.msg);
	pass_ctx_free(&ctx);
	pass_seq_free(&s);
	return pass_count_instrs(m);
}

/* each member of saturate on m: the count never rises */
static void
members_on(const HloModule *m, const char *path, const char *when)
{
	int64_t before = pass_count_instrs(m), after;
	int i;

	for (i = 0; pass_saturate_members[i]; i++) {
		HloModule *w;

		if (!registered(pass_saturate_members[i]))
			continue;
		w = hlo_module_clone(m);
		after = run(w, pass_saturate_members[i]);
		ck_assert_msg(after <= before, "%s (%s): %s raised the count "
			"%lld -> %lld: not a saturate member", path, when,
			pass_saturate_members[i], (long long)before,
			(long long)after);
		hlo_module_free(w);
	}
}

START_TEST(saturate_never_raises)
{
	TuList l = tu_list(TU_DATA);
	HloModule *m, *d;
	HloError e;
	int64_t i0, s;
	size_t k;

	ck_assert_msg(l.n > 10, "no modules in " TU_DATA);
	for (k = 0; k < l.n; k++) {
		if (hlo_load(l.v[k], &m, &e) < 0)
			ck_abort_msg("%s", e.msg);
		i0 = pass_count_instrs(m);
		members_on(m, l.v[k], "input");
		d = hlo_module_clone(m);
		run(d, "default");
		members_on(d, l.v[k], "after default");
		s = run(m, "saturate");
		ck_assert_msg(s <= i0, "%s: saturate raised the count", l.v[k]);
		hlo_module_free(d);
		hlo_module_free(m);
	}
	tu_list_free(&l);
}
END_TEST

static Suite *
pipelines_suite(void)
{
	Suite *s = suite_create("pipelines");
	TCase *tc = tcase_create("data"), *sw = tcase_create("sweep");

	tcase_add_test(tc, man_table);
	tcase_add_test(tc, default_follows_table);
	tcase_add_test(tc, every_pass_classified);
	tcase_add_test(sw, saturate_never_raises);
	tcase_set_timeout(sw, 300);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, sw);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(pipelines_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
