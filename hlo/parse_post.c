/* parse_post.c: what the text reader (parse.c) finishes once every name
 * of the module is resolved. XLA's parser lets an instruction leave its
 * result shape out ("ROOT t = tuple(a, b)", "add(x, y)") when shape
 * inference can give it (CanInferShape in xla/hlo/parser/hlo_parser.cc);
 * hlo_post_infer infers them, operands first. And it reads
 * "OP-start(...)", "OP-update" and "OP-done" (call-start, dynamic-slice-
 * start, ...) as async-start/update/done whose wrapped computation holds
 * OP over parameters; hlo_post_wrap builds those computations. */
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "parsei.h"

/* xla's CanInferShape: opcodes that may leave their shape out */
static const char *const inferable[] = {
	"abs", "add", "add-dependency", "after-all", "atan2",
	"batch-norm-grad", "batch-norm-inference", "batch-norm-training",
	"broadcast", "call", "ceil", "cholesky", "clamp",
	"count-leading-zeros", "compare", "complex", "concatenate",
	"conditional", "convolution", "copy", "cosine", "opt-barrier",
	"divide", "domain", "dot", "erf", "exponential",
	"exponential-minus-one", "fft", "floor", "gather",
	"get-dimension-size", "set-dimension-size", "get-tuple-element",
	"imag", "is-finite", "log", "log-plus-one", "logistic", "and", "not",
	"or", "xor", "map", "maximum", "minimum", "multiply", "negate", "pad",
	"partition-id", "popcnt", "power", "ragged-dot", "real", "reduce",
	"remainder", "replica-id", "reverse", "round-nearest-afz",
	"round-nearest-even", "rsqrt", "scatter", "select", "shift-left",
	"shift-right-arithmetic", "shift-right-logical", "sign", "sine",
	"sqrt", "cbrt", "reduce-window", "select-and-scatter", "sort",
	"subtract", "tan", "tanh", "transpose", "triangular-solve", "tuple",
	"while", "topk",
};

int
hlo_post_can_infer(int op)
{
	size_t k;

	for (k = 0; k < sizeof inferable / sizeof *inferable; k++)
		if (!strcmp(hlo_opinfo[op].name, inferable[k]))
			return 1;
	return 0;
}

int
hlo_post_async_op(const char *s, size_t n, int *wrapped)
{
	static const struct {
		const char *suf;
		int op;
	} forms[] = {
		{"-start", HOP_ASYNCSTART}, {"-update", HOP_ASYNCUPDATE},
		{"-done", HOP_ASYNCDONE},
	};
	size_t k, l;

	for (k = 0; k < 3; k++) {
		l = strlen(forms[k].suf);
		if (n > l && !memcmp(s + n - l, forms[k].suf, l) &&
		    (*wrapped = hlo_op_by_name(s, n - l)) >= 0)
			return forms[k].op;
	}
	*wrapped = -1;
	return -1;
}

int
hlo_post_arity(HloModule *m, int op, const HloAttr *at, uint32_t nat,
	uint32_t nops, HloError *e)
{
	HloSparsity d[3];
	int want = hlo_opinfo[op].arity, n;
	uint32_t k;

	for (k = 0; op == HOP_DOT && k < nat; k++) {
		if (at[k].key != A_SPARSITY)
			continue;
		n = hlo_sparsity_parse(m->bytes + at[k].v, at[k].n, d, 3);
		if (n < 0)
			return hlo_err(e, "bad sparsity descriptor '%.*s', "
				"expected e.g. L.0@2:4 (N:M with 1 <= N < M)",
				(int)at[k].n, m->bytes + at[k].v);
		if (n > 2)
			return hlo_err(e, "too many sparse dot descriptors: %d",
				n);
		want += n;
	}
	if (want >= 0 && nops != (uint32_t)want)
		return hlo_err(e, "%s takes %d operand%s, got %u",
			hlo_opinfo[op].name, want, want == 1 ? "" : "s", nops);
	return 0;
}

/* can item's shape be inferred now: its operands' shapes and its called
 * computations' root shapes known? */
static int
ready(const HloModule *m, const HloPostItem *it)
{
	const HloInstr *in = hlo_ins(m, it->c, it->i);
	const HloComp *cp;
	uint32_t k, c;

	for (k = 0; k < in->nops; k++)
		if (hlo_ins(m, it->c, m->ids[in->ops + k])->shape == HLO_NONE)
			return 0;
	for (k = 0; k < in->ncalled; k++) {
		c = m->ids[in->called + k];
		cp = &m->comps[c];
		if (cp->root == HLO_NONE || cp->ins[cp->root].shape == HLO_NONE)
			return 0;
	}
	return 1;
}

/* xla's HigherPrecisionElementType, as shape inference takes it for a
 * dot or convolution without a preferred element type */
static int
higher(int a, int b)
{
	int fa = hlo_typeinfo[a].cls == C_FLOAT, fb = hlo_typeinfo[b].cls ==
		C_FLOAT;

	if (a == b)
		return a;
	if (fa != fb)
		return fa ? a : b;
	return hlo_type_bytes(a) >= hlo_type_bytes(b) ? a : b;
}

/* the 2-argument InferBroadcastShape xla's parser calls: the dimensions
 * given are sizes put before the operand's */
static int
broadcast(HloModule *m, HloInstr *in, uint32_t c, HloError *e)
{
	const HloShape *x = hlo_sh(m, hlo_ins(m, c, m->ids[in->ops])->shape);
	int64_t d[128];
	const int64_t *bd;
	uint32_t n, k, xs = hlo_ins(m, c, m->ids[in->ops])->shape;
	int type;

	if (x->type == TY_TUPLE || x->type == TY_TOKEN)
		return hlo_err(e, "broadcast of a non-array");
	bd = hlo_attr_ints(m, in, A_DIMENSIONS, &n);
	if (n + x->rank > 128)
		return hlo_err(e, "broadcast to a rank over 128");
	for (k = 0; k < n; k++) {
		if (bd[k] < 0)
			return hlo_err(e, "negative broadcast size %lld",
				(long long)bd[k]);
		d[k] = bd[k];
	}
	x = hlo_sh(m, xs);
	if (x->rank)
		memcpy(d + n, hlo_dims(m, x), x->rank * sizeof *d);
	type = x->type;
	in->shape = hlo_shape(m, type, n + x->rank, d, NULL, 0, 0);
	return 0;
}

/* a stand-in shape for inference to read where it compares with the
 * instruction's own: the result type of a dot or convolution, the first
 * branch of a conditional */
static uint32_t
standin(HloModule *m, uint32_t c, const HloInstr *in)
{
	const HloShape *a, *b;
	const HloComp *cp;

	switch (in->op) {
	case HOP_DOT:
	case HOP_CONV:
	case HOP_RAGGEDDOT:
		if (in->nops < 2)
			break;
		a = hlo_sh(m, hlo_ins(m, c, m->ids[in->ops])->shape);
		b = hlo_sh(m, hlo_ins(m, c, m->ids[in->ops + 1])->shape);
		if (a->type == TY_TUPLE || b->type == TY_TUPLE)
			break;
		return hlo_shape_scalar(m, higher(a->type, b->type));
	case HOP_CONDITIONAL:
		if (!in->ncalled)
			break;
		cp = &m->comps[m->ids[in->called]];
		return cp->ins[cp->root].shape;
	}
	return hlo_shape_scalar(m, TY_PRED);
}

/* the reason inference gave, without its "error: verify: computation
 * C, instruction I: " prefix */
static int
reason(HloModule *m, const HloPostItem *it, HloError *e,
	const HloError *why)
{
	const char *s = why->msg, *q = strstr(s, "instruction ");

	if (q && (q = strstr(q, ": ")))
		s = q + 2;
	else if (!strncmp(s, "error: ", 7))
		s += 7;
	return hlo_err(e, "cannot infer the shape of '%s': %s",
		hlo_cstr(m, hlo_ins(m, it->c, it->i)->name), s);
}

/* the layouts xla's shape inference carries over from the operands: a
 * tuple's elements are its operands' shapes, an elementwise result takes
 * its first operand's layout (ShapeUtil::ChangeElementType) */
static uint32_t
withlayout(HloModule *m, uint32_t c, uint32_t i, uint32_t s)
{
	const HloInstr *in = hlo_ins(m, c, i);
	const HloShape *x, *r;
	uint32_t *el, k, t;
	int64_t *d;

	if (in->op == HOP_TUPLE) {
		el = xcalloc(in->nops + 1, sizeof *el);
		for (k = 0; k < in->nops; k++)
			el[k] = hlo_ins(m, c, m->ids[in->ops + k])->shape;
		t = hlo_shape_tuple(m, in->nops, el);
		free(el);
		return t;
	}
	if (!(hlo_opinfo[in->op].flags & OPF_ELEM) || !in->nops)
		return s;
	x = hlo_sh(m, hlo_ins(m, c, m->ids[in->ops])->shape);
	r = hlo_sh(m, s);
	if (!(x->flags & SH_LAYOUT) || r->type == TY_TUPLE ||
	    r->rank != x->rank)
		return s;
	d = xcalloc(2 * (size_t)r->rank + 1, sizeof *d);
	if (r->rank)
		memcpy(d, hlo_dims(m, r), r->rank * sizeof *d);
	if (x->rank)
		memcpy(d + r->rank, hlo_m2m(m, x), x->rank * sizeof *d);
	t = hlo_shape(m, r->type, r->rank, d, d + r->rank, r->dynmask, 0);
	free(d);
	return t;
}

static int
inferone(HloModule *m, const HloPostItem *it, HloError *e)
{
	HloInstr *in = hlo_ins(m, it->c, it->i);
	HloError why;
	uint32_t s;

	if (in->op == HOP_BROADCAST) {
		if (in->nops == 1 && !broadcast(m, in, it->c, &why))
			return 0;
		if (in->nops != 1)
			hlo_err(&why, "broadcast takes 1 operand");
		return reason(m, it, e, &why);
	}
	s = standin(m, it->c, in);
	in = hlo_ins(m, it->c, it->i);
	in->shape = s;
	if (hlo_infer_shape(m, it->c, it->i, &s, &why)) {
		hlo_ins(m, it->c, it->i)->shape = HLO_NONE;
		return reason(m, it, e, &why);
	}
	hlo_ins(m, it->c, it->i)->shape = withlayout(m, it->c, it->i, s);
	return 0;
}

int
hlo_post_infer(HloModule *m, const HloPostItem *it, uint32_t n,
	uint32_t *bad, HloError *e)
{
	uint8_t *done;
	uint32_t k, left = n;
	int progress = 1;

	done = xcalloc(n ? n : 1, 1);
	for (k = 0; k < n; k++)
		if (hlo_ins(m, it[k].c, it[k].i)->shape != HLO_NONE) {
			done[k] = 1;	/* an async form's, written */
			left--;
		}
	while (left && progress) {
		progress = 0;
		for (k = 0; k < n; k++) {
			if (done[k] || !ready(m, &it[k]))
				continue;
			if (inferone(m, &it[k], e)) {
				*bad = k;
				free(done);
				return -1;
			}
			done[k] = 1;
			left--;
			progress = 1;
		}
	}
	for (k = 0; left && k < n; k++)
		if (!done[k]) {
			*bad = k;
			free(done);
			return hlo_err(e, "cannot infer the shape of '%s': its "
				"operands' shapes depend on its own", hlo_cstr(m,
				hlo_ins(m, it[k].c, it[k].i)->name));
		}
	free(done);
	return 0;
}

/* the async-start item it: its wrapped computation */
static int
wrapone(HloModule *m, const HloPostItem *it, HloError *e)
{
	HloInstr st = *hlo_ins(m, it->c, it->i);
	const HloShape *s = hlo_sh(m, st.shape);
	HloAttr keep[1], *a;
	uint32_t w, k, r, nkeep = 0, nat = 0, res, *ids;
	HloAttr *rest;

	if (s->type != TY_TUPLE || s->ntuple < 2 ||
	    hlo_sh(m, hlo_tuple_elems(m, s)[0])->type != TY_TUPLE)
		return hlo_err(e, "%s-start's shape must be ((operands), "
			"result, context...)", hlo_opinfo[it->wrapped].name);
	res = hlo_tuple_elems(m, s)[1];
	w = hlo_comp_add(m, hlo_fresh_name(m, "async_wrapped"));
	ids = xcalloc(st.nops + 1, sizeof *ids);
	for (k = 0; k < st.nops; k++) {
		uint32_t os = hlo_ins(m, it->c, m->ids[st.ops + k])->shape;

		ids[k] = hlo_instr_add(m, w, HOP_PARAMETER, os,
			hlo_fresh_name(m, "async_param"), 0, NULL);
		hlo_ins(m, w, ids[k])->num = k;
	}
	r = hlo_instr_add(m, w, it->wrapped, res,
		hlo_fresh_name(m, "async_op"), st.nops, ids);
	free(ids);
	m->comps[w].root = r;
	rest = xcalloc(st.nattrs + 1, sizeof *rest);
	for (k = 0; k < st.nattrs; k++) {
		a = &m->attrv[st.attrs + k];
		if (a->key == A_ASYNC_THREAD && nkeep < 1) {
			char *t = xmalloc(a->n + 1);

			keep[nkeep++] = *a;
			memcpy(t, m->bytes + a->v, a->n);
			m->comps[w].thread = hlo_str(m, t, a->n);
			free(t);
		} else {
			rest[nat++] = *a;
		}
	}
	hlo_set_attrs(m, w, r, nat, rest);
	free(rest);
	if (st.ncalled) {
		/* the pool may have moved: copy through a buffer */
		uint32_t *cv = xcalloc(st.ncalled, sizeof *cv);

		memcpy(cv, m->ids + st.called, st.ncalled * sizeof *cv);
		hlo_set_called(m, w, r, st.ncalled, cv);
		free(cv);
	}
	hlo_set_attrs(m, it->c, it->i, nkeep, keep);
	hlo_set_called(m, it->c, it->i, 1, &w);
	return 0;
}

int
hlo_post_wrap(HloModule *m, const HloPostItem *it, uint32_t n,
	uint32_t *bad, HloError *e)
{
	uint32_t k;

	for (k = 0; k < n; k++)
		if (it[k].wrapped >= 0 && wrapone(m, &it[k], e)) {
			*bad = k;
			return -1;
		}
	return 0;
}

/* counts newlines on from the previous call (instructions come in
 * order); a step back counts from the start again */
uint32_t
hlo_post_srcpos(HloSrcLines *l, const char *start, const char *at)
{
	const char *q;
	uint32_t col;

	if (!l->at || at < l->at) {
		l->at = l->bol = start;
		l->line = 1;
	}
	for (q = l->at; q < at; q++)
		if (*q == '\n') {
			l->line++;
			l->bol = q + 1;
		}
	l->at = at;
	col = (uint32_t)(at - l->bol) + 1;
	if (l->line >= 1u << 22)
		return 0;
	return l->line << 10 | (col < 1023 ? col : 1023);
}
