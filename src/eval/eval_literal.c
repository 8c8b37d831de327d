/* eval_literal.c: values as HLO literal text, for `hlopt run
 * --print-outputs` and `run --inputs FILE`.
 *
 * A literal is written as XLA writes it: its shape (no layout), a space,
 * then the value: a scalar as one number (true/false for pred, (re, im)
 * for complex, nan and inf for the special floats), an array as nested
 * braces, one level per dimension: f32[2,3] {{1, 2, 3}, {4, 5, 6}}.
 * An input file holds one literal per entry parameter, in order,
 * separated by white space; it is read by the HLO text parser as the
 * constants of a small module, so it takes everything a constant takes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "eval.h"

static void
put_elem(int type, const Lane *l, HloBuf *b)
{
	int cl = hlo_typeinfo[type].cls;
	const char *fmt = type == TY_F64 || type == TY_C128 ? "%.17g" :
		"%.9g";
	double x;
	int k;

	switch (cl) {
	case C_FLOAT: case C_CPLX:
		if (cl == C_CPLX)
			hlo_buf_puts(b, "(");
		for (k = 0; k < (cl == C_CPLX ? 2 : 1); k++) {
			x = cl == C_CPLX ? l->c[k] : l->f;
			if (k)
				hlo_buf_puts(b, ", ");
			if (isnan(x))
				hlo_buf_puts(b, signbit(x) ? "-nan" : "nan");
			else if (isinf(x))
				hlo_buf_puts(b, x < 0 ? "-inf" : "inf");
			else
				hlo_buf_printf(b, fmt, x);
		}
		if (cl == C_CPLX)
			hlo_buf_puts(b, ")");
		return;
	case C_PRED:
		hlo_buf_puts(b, l->u ? "true" : "false");
		return;
	case C_SINT:
		hlo_buf_printf(b, "%lld", (long long)l->s);
		return;
	}
	hlo_buf_printf(b, "%llu", (unsigned long long)l->u);
}

/* elements [*at, ...) of v over dims[d..rank) */
static void
put_dims(const HloVal *v, const int64_t *dims, int rank, int d, int64_t *at,
	HloBuf *b)
{
	int64_t k, esz = ev_esz(v->type);
	Lane l;

	if (d == rank) {
		ev_lane_load(v->type, v->data + (v->splat ? 0 : *at * esz), 1,
			&l);
		put_elem(v->type, &l, b);
		(*at)++;
		return;
	}
	hlo_buf_puts(b, "{");
	for (k = 0; k < dims[d]; k++) {
		if (k)
			hlo_buf_puts(b, ", ");
		put_dims(v, dims, rank, d + 1, at, b);
	}
	hlo_buf_puts(b, "}");
}

static void
put_value(const HloModule *m, const HloVal *v, uint32_t shape, HloBuf *b)
{
	const HloShape *sh = hlo_sh(m, shape);
	int64_t at = 0, k;

	if (v->type == TY_TUPLE) {
		hlo_buf_puts(b, "(");
		for (k = 0; k < v->n; k++) {
			if (k)
				hlo_buf_puts(b, ", ");
			put_value(m, v->elems[k], hlo_tuple_elems(m, sh)[k], b);
		}
		hlo_buf_puts(b, ")");
		return;
	}
	if (v->type >= TY_TUPLE)
		return;
	put_dims(v, hlo_dims(m, sh), sh->rank, 0, &at, b);
}

/* the shape without layouts */
static void
put_shape(const HloModule *m, uint32_t shape, HloBuf *b)
{
	const HloShape *sh = hlo_sh(m, shape);
	uint32_t k;
	int d;

	if (sh->type == TY_TUPLE) {
		hlo_buf_puts(b, "(");
		for (k = 0; k < sh->ntuple; k++) {
			if (k)
				hlo_buf_puts(b, ", ");
			put_shape(m, hlo_tuple_elems(m, sh)[k], b);
		}
		hlo_buf_puts(b, ")");
		return;
	}
	hlo_buf_printf(b, "%s[", hlo_typeinfo[sh->type].name);
	for (d = 0; d < sh->rank; d++)
		hlo_buf_printf(b, "%s%lld", d ? "," : "",
			(long long)hlo_dims(m, sh)[d]);
	hlo_buf_puts(b, "]");
}

static void
put_leaves(const HloModule *m, const HloVal *v, int64_t *idx, HloBuf *b)
{
	int64_t k;

	if (v->type == TY_TUPLE) {
		for (k = 0; k < v->n; k++)
			put_leaves(m, v->elems[k], idx, b);
		return;
	}
	hlo_buf_printf(b, "output %lld: ", (long long)(*idx)++);
	put_shape(m, v->shape, b);
	if (v->type < TY_TUPLE) {
		hlo_buf_puts(b, " ");
		put_value(m, v, v->shape, b);
	}
	hlo_buf_puts(b, "\n");
}

void
ev_print_literals(HloEval *ev, const HloVal *out, HloBuf *b)
{
	int64_t idx = 0;

	put_leaves(ev->m, out, &idx, b);
}

void
ev_print_literal(const HloModule *m, const HloVal *v, HloBuf *b)
{
	put_shape(m, v->shape, b);
	if (v->type < TY_TUPLE) {
		hlo_buf_puts(b, " ");
		put_value(m, v, v->shape, b);
	}
}

/* reading: splits the text into (shape, value) pairs */

static const char *
skip_space(const char *p, const char *e)
{
	for (;;) {
		while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' ||
		    *p == '\r'))
			p++;
		if (p + 1 < e && p[0] == '/' && p[1] == '/') {
			while (p < e && *p != '\n')
				p++;
			continue;
		}
		if (p < e && *p == '#') {
			while (p < e && *p != '\n')
				p++;
			continue;
		}
		return p;
	}
}

/* one balanced item: up to white space at depth 0, or a bracketed group */
static const char *
item(const char *p, const char *e)
{
	int depth = 0;

	for (; p < e; p++) {
		if (*p == '{' || *p == '(' || *p == '[')
			depth++;
		else if (*p == '}' || *p == ')' || *p == ']')
			depth--;
		else if (!depth && (*p == ' ' || *p == '\t' || *p == '\n' ||
		    *p == '\r'))
			return p;
		if (depth < 0)
			return p;
		if (!depth && (*p == '}' || *p == ')') && p + 1 < e &&
		    (p[1] == ' ' || p[1] == '\n' || p[1] == '\t'))
			return p + 1;
	}
	return p;
}

/* the value of constant i of lm as a value of ev's module, shape s */
static HloVal *
value_of(HloEval *ev, const HloModule *lm, uint32_t i, uint32_t s)
{
	const HloInstr *in = hlo_ins(lm, lm->entry, i);
	const void *lit;
	uint32_t nl;
	HloVal *v;

	lit = hlo_literal(lm, in, &nl);
	v = hlo_val_array(ev, s);
	if (!v)
		return NULL;
	if (!lit || (int64_t)nl < v->n * ev_esz(v->type)) {
		hlo_val_unref(ev, v);
		ev_fail(ev, EV_BAD, "a literal has no value");
		return NULL;
	}
	memcpy(v->data, lit, v->n * ev_esz(v->type));
	return v;
}

int
ev_inputs_text(HloEval *ev, const char *text, size_t n, const char *fname,
	HloVal ***args, uint32_t *nargs)
{
	const HloModule *m = ev->m;
	const char *p = text, *e = text + n, *s0, *s1, *v0, *v1;
	uint32_t np = hlo_param_count(m, m->entry), k = 0;
	HloBuf src = {0};
	HloModule *lm = NULL;
	HloError err;
	int r;

	*args = NULL;
	*nargs = 0;
	hlo_buf_puts(&src, "HloModule inputs\n\nENTRY inputs {\n");
	for (p = skip_space(p, e); p < e; p = skip_space(v1, e), k++) {
		s0 = p;
		s1 = item(s0, e);
		v0 = skip_space(s1, e);
		v1 = item(v0, e);
		if (v0 == e || v1 == v0) {
			hlo_buf_free(&src);
			return ev_fail(ev, EV_BAD, "%s: literal %u: a shape "
				"without a value", fname, k);
		}
		hlo_buf_printf(&src, "  in%u = %.*s constant(%.*s)\n", k,
			(int)(s1 - s0), s0, (int)(v1 - v0), v0);
	}
	hlo_buf_puts(&src, "  ROOT none = () tuple()\n}\n");
	if (k != np) {
		hlo_buf_free(&src);
		return ev_fail(ev, EV_BAD, "%s: %u literals for %u entry "
			"parameters", fname, k, np);
	}
	if (hlo_parse_text(src.buf, src.len, fname, &lm, &err) < 0) {
		hlo_buf_free(&src);
		return ev_fail(ev, EV_BAD, "%s: bad literal: %.900s", fname,
			err.msg);
	}
	hlo_buf_free(&src);
	r = ev_inputs_module(ev, lm, fname, args, nargs);
	hlo_module_free(lm);
	return r;
}

int
ev_inputs_module(HloEval *ev, const HloModule *lm, const char *fname,
	HloVal ***args, uint32_t *nargs)
{
	const HloModule *m = ev->m;
	uint32_t np = hlo_param_count(m, m->entry), k, pi;
	HloBuf sh = {0};
	HloVal **a;

	*args = NULL;
	*nargs = 0;
	if (lm->comps[lm->entry].nins != np + 1)
		return ev_fail(ev, EV_BAD, "%s: %u literals for %u entry "
			"parameters", fname, lm->comps[lm->entry].nins - 1,
			np);
	a = xcalloc(np + 1, sizeof *a);
	for (k = 0; k < np; k++) {
		pi = hlo_param(m, m->entry, k);
		/* the constants in order, then the root */
		if (pi == HLO_NONE || hlo_sh(m, hlo_ins(m, m->entry,
		    pi)->shape)->type == TY_TUPLE || !hlo_shape_eq_across(m,
		    hlo_ins(m, m->entry, pi)->shape, lm, hlo_ins(lm, lm->entry,
		    k)->shape)) {
			if (pi != HLO_NONE)
				hlo_print_shape(m, hlo_ins(m, m->entry,
					pi)->shape, &sh);
			ev_fail(ev, EV_BAD, "%s: literal %u does not have the "
				"shape of parameter %u (%s)", fname, k, k,
				sh.buf ? sh.buf : "?");
			hlo_buf_free(&sh);
			goto fail;
		}
		a[k] = value_of(ev, lm, k, hlo_ins(m, m->entry, pi)->shape);
		if (!a[k])
			goto fail;
	}
	*args = a;
	*nargs = np;
	return 0;
fail:
	hlo_eval_free_args(ev, a, np);
	return -1;
}
