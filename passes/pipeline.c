/* pipeline.c: pass sequences: parsing ("cse,dce", "@FILE", fix(...)
 * groups), printing, and running them with optional verification after
 * every pass and per-pass statistics. */
#include <stdlib.h>
#include <string.h>

#include "eval.h"
#include "pass.h"

void
pass_ctx_init(PassCtx *ctx)
{
	memset(ctx, 0, sizeof *ctx);
}

void
pass_ctx_free(PassCtx *ctx)
{
	pass_reset(ctx);
	pass_arena_free(&ctx->scratch);
	hlo_eval_blocks_free(ctx->evkeep);
	ctx->evkeep = NULL;
}

void
pass_seq_add(PassSeq *s, int item)
{
	s->items = hlo_grow(s->items, s->n, &s->cap, 16, sizeof *s->items);
	s->items[s->n++] = item;
}

void
pass_seq_free(PassSeq *s)
{
	free(s->items);
	memset(s, 0, sizeof *s);
}

static int
namechar(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		(ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == ':' ||
		ch == '.';
}

static int parse(const char *text, size_t n, const char *fname, PassSeq *s,
	HloError *e, int nest);

/* fusion strategies (man/hlopt.1, FUSION): "fusion-NAME" in a sequence,
 * or hlopt optimize --fusion-strategy NAME */
const PassFusionStrategy pass_fusion_strategies[] = {
	{"none", ""},
	{"xla-cpu", "fusion:cpu"},
	{"xla-gpu", "fusion:gpu,fusion-merger,multi_output_fusion,"
	    "multi_output_fusion:producer-consumer,horizontal_loop_fusion,"
	    "fusion-wrapper"},
	{"aggressive", "fusion:all,fusion-merger:across"},
	{"merge-across", "fusion:gpu,fusion-merger:across"},
	{"unfused", "defuser"},
	{NULL, NULL}
};

/* the strategy called name[0..n) ("fusion-" left out), NULL if none */
const PassFusionStrategy *
pass_fusion_strategy(const char *name, size_t n)
{
	const PassFusionStrategy *st;

	for (st = pass_fusion_strategies; st->name; st++)
		if (strlen(st->name) == n && !memcmp(st->name, name, n))
			return st;
	return NULL;
}

/* appends the sequence in text[0..n) to s; fname names the source in
 * messages */
int
pass_seq_parse_text(const char *text, size_t n, const char *fname,
	PassSeq *s, HloError *e)
{
	return parse(text, n, fname, s, e, 0);
}

/* the named pipeline text[0..n), or NULL */
const PassPipeline *
pass_pipeline_lookup(const char *name, size_t n)
{
	int i;

	for (i = 0; i < pass_npipelines; i++)
		if (strlen(pass_pipelines[i].name) == n &&
		    !memcmp(pass_pipelines[i].name, name, n))
			return &pass_pipelines[i];
	return NULL;
}

/* the sequence of the named pipeline pl */
static int
parse_named(const PassPipeline *pl, PassSeq *s, HloError *e, int nest)
{
	HloBuf q = {0};
	int r;

	pass_pipeline_seq(pl, &q);
	r = parse(q.buf, q.len, pl->name, s, e, nest + 1);
	hlo_buf_free(&q);
	return r;
}

/* nest: how deep named pipelines are expanded (they may name others) */
static int
parse(const char *text, size_t n, const char *fname, PassSeq *s,
	HloError *e, int nest)
{
	size_t i = 0, j, k;
	int line = 1, depth = 0, id;
	const PassPipeline *pl;

	while (i < n) {
		char ch = text[i];

		if (ch == '\n') {
			line++;
			i++;
		} else if (ch == ' ' || ch == '\t' || ch == '\r' ||
		    ch == ',') {
			i++;
		} else if (ch == '#') {
			while (i < n && text[i] != '\n')
				i++;
		} else if (ch == ')') {
			if (depth == 0)
				return hlo_err(e, "%s:%d: error: ')' without "
					"fix(", fname, line);
			depth--;
			pass_seq_add(s, SEQ_END);
			i++;
		} else if (namechar((unsigned char)ch)) {
			for (j = i; j < n && namechar((unsigned char)text[j]);
			     j++)
				;
			for (k = j; k < n && (text[k] == ' ' ||
			     text[k] == '\t'); k++)
				;
			if (j - i == 3 && !memcmp(text + i, "fix", 3) &&
			    k < n && text[k] == '(') {
				depth++;
				pass_seq_add(s, SEQ_FIX);
				i = k + 1;
				continue;
			}
			id = pass_lookup_spec(text + i, j - i);
			if (id < 0 && j - i > 7 && !memcmp(text + i, "fusion-",
			    7) && pass_fusion_strategy(text + i + 7, j - i - 7)) {
				const char *sq = pass_fusion_strategy(text + i +
					7, j - i - 7)->seq;

				if (parse(sq, strlen(sq), "fusion", s, e, nest + 1)
				    < 0)
					return -1;
				i = j;
				continue;
			}
			if (id < 0 && (pl = pass_pipeline_lookup(text + i,
			    j - i)) != NULL) {
				if (nest > 4)
					return hlo_err(e, "%s:%d: error: "
						"pipelines nested too deep",
						fname, line);
				if (parse_named(pl, s, e, nest) < 0)
					return -1;
				i = j;
				continue;
			}
			if (id < 0) {
				const char *near = pass_suggest(text + i,
					j - i);

				return hlo_err(e, "%s:%d: error: unknown pass "
					"'%.*s'%s%s%s ('hlopt passes' lists "
					"names and ids)", fname, line, (int)(j -
					i > 100 ? 100 : j - i), text + i, near ?
					"; did you mean '" : "", near ? near :
					"", near ? "'?" : "");
			}
			pass_seq_add(s, id);
			i = j;
		} else {
			return hlo_err(e, "%s:%d: error: unexpected character "
				"'%c' in a pass sequence", fname, line,
				ch >= ' ' && ch < 127 ? ch : '?');
		}
	}
	if (depth)
		return hlo_err(e, "%s:%d: error: fix( without ')'", fname,
			line);
	return 0;
}

/* spec is a sequence, or @FILE */
int
pass_seq_parse(const char *spec, PassSeq *s, HloError *e)
{
	char *data;
	size_t n;
	int r;

	if (spec[0] != '@')
		return pass_seq_parse_text(spec, strlen(spec), "--passes", s,
			e);
	if (hlo_read_file(spec + 1, &data, &n, e) < 0)
		return -1;
	r = pass_seq_parse_text(data, n, spec + 1, s, e);
	free(data);
	return r;
}

void
pass_seq_format(const PassSeq *s, HloBuf *b)
{
	uint32_t i;
	int sep = 0;

	for (i = 0; i < s->n; i++) {
		if (s->items[i] == SEQ_END) {
			hlo_buf_puts(b, ")");
			sep = 1;
			continue;
		}
		if (sep)
			hlo_buf_puts(b, ",");
		if (s->items[i] == SEQ_FIX) {
			hlo_buf_puts(b, "fix(");
			sep = 0;
			continue;
		}
		hlo_buf_puts(b, hlo_passes[s->items[i]].name);
		sep = 1;
	}
}

void
pass_log_free(PassLog *log)
{
	free(log->steps);
	memset(log, 0, sizeof *log);
}

/* marks (or, with mark NULL, counts) the computations reachable from the
 * entry through live instructions; returns the live instructions there */
static int64_t
reachable(const HloModule *m, uint32_t *order, int *nc)
{
	int64_t cnt = 0;
	int n, i;
	uint32_t j;

	n = hlo_comp_order(m, order);
	if (n < 0)
		n = 0;
	for (i = 0; i < n; i++) {
		const HloComp *cp = &m->comps[order[i]];

		for (j = 0; j < cp->nins; j++)
			cnt += !(cp->ins[j].flags & HI_DEAD);
	}
	*nc = n;
	return cnt;
}

int64_t
pass_count_instrs(const HloModule *m)
{
	uint32_t *order = xreallocarray(NULL, m->ncomps + 1, sizeof *order);
	int nc;
	int64_t cnt = reachable(m, order, &nc);

	free(order);
	return cnt;
}

/* the names of the live instructions in reachable computations, as a
 * bitmap over string ids */
static uint8_t *
namemap(const HloModule *m, uint32_t *nbits)
{
	uint32_t *order = xreallocarray(NULL, m->ncomps + 1, sizeof *order);
	uint8_t *bits = xcalloc(m->nbytes / 8 + 1, 1);
	int nc, i;
	uint32_t j;

	reachable(m, order, &nc);
	for (i = 0; i < nc; i++) {
		const HloComp *cp = &m->comps[order[i]];

		for (j = 0; j < cp->nins; j++)
			if (!(cp->ins[j].flags & HI_DEAD))
				bits[cp->ins[j].name / 8] |=
					1 << (cp->ins[j].name % 8);
	}
	*nbits = m->nbytes;
	free(order);
	return bits;
}

/* instructions now alive whose names were alive before */
static int64_t
survivors(const HloModule *m, const uint8_t *bits, uint32_t nbits)
{
	uint32_t *order = xreallocarray(NULL, m->ncomps + 1, sizeof *order);
	int nc, i;
	uint32_t j, name;
	int64_t cnt = 0;

	reachable(m, order, &nc);
	for (i = 0; i < nc; i++) {
		const HloComp *cp = &m->comps[order[i]];

		for (j = 0; j < cp->nins; j++) {
			if (cp->ins[j].flags & HI_DEAD)
				continue;
			name = cp->ins[j].name;
			cnt += name < nbits && (bits[name / 8] >> (name % 8) & 1);
		}
	}
	free(order);
	return cnt;
}

static void
logstep(PassLog *log, const PassStep *st)
{
	log->steps = hlo_grow(log->steps, log->n, &log->cap, 32,
		sizeof *log->steps);
	log->steps[log->n++] = *st;
}

/* runs one pass; 1 changed, 0 not, -1 error in ctx->err */
int
pass_run(HloModule *m, int pass, PassCtx *ctx, PassLog *log)
{
	PassStep st;
	uint8_t *bits = NULL;
	uint32_t nbits = 0;
	HloError e;
	double t0;
	int r;

	memset(&st, 0, sizeof st);
	memset(&ctx->stats, 0, sizeof ctx->stats);
	st.pass = pass;
	st.round = ctx->round;
	st.comps_before = m->ncomps;
	if (log)
		st.before = pass_count_instrs(m);
	if (log && (ctx->flags & PASS_NAMES))
		bits = namemap(m, &nbits);
	t0 = hlo_now();
	r = hlo_passes[pass].run(m, ctx);
	st.ms = (hlo_now() - t0) * 1e3;
	pass_reset(ctx);
	if (r < 0) {
		free(bits);
		e = ctx->err;
		return hlo_err(&ctx->err, "pass %s: %s", hlo_passes[pass].name,
			e.msg);
	}
	if ((ctx->flags & PASS_VERIFY) && hlo_verify(m, &e) < 0) {
		free(bits);
		return hlo_err(&ctx->err, "pass %s broke the module: %s",
			hlo_passes[pass].name, e.msg);
	}
	if (ctx->after && ctx->after(m, pass, r, ctx->after_arg, &e) < 0) {
		free(bits);
		ctx->err = e;
		return -1;
	}
	if (!log)
		return r;
	st.changed = r;
	st.after = pass_count_instrs(m);
	st.comps_after = m->ncomps;
	st.rewrites = ctx->stats.rewrites;
	if (bits) {
		int64_t keep = survivors(m, bits, nbits);

		st.removed = st.before - keep;
		st.added = st.after - keep;
		free(bits);
	} else if (st.after >= st.before) {
		st.added = st.after - st.before;
	} else {
		st.removed = st.before - st.after;
	}
	logstep(log, &st);
	return r;
}

/* the index of the SEQ_END closing the group opened at i */
static uint32_t
groupend(const PassSeq *s, uint32_t i)
{
	int depth = 0;

	for (; i < s->n; i++) {
		if (s->items[i] == SEQ_FIX)
			depth++;
		else if (s->items[i] == SEQ_END && --depth == 0)
			return i;
	}
	return s->n;
}

static int
runrange(HloModule *m, const PassSeq *s, uint32_t lo, uint32_t hi,
	PassCtx *ctx, PassLog *log)
{
	uint32_t i, end;
	int changed = 0, r, round, outer = ctx->round;

	for (i = lo; i < hi; i++) {
		if (s->items[i] >= 0) {
			if ((r = pass_run(m, s->items[i], ctx, log)) < 0)
				return -1;
			changed |= r;
			continue;
		}
		if (s->items[i] != SEQ_FIX)
			continue;
		end = groupend(s, i);
		for (round = 0; round < PASS_FIX_LIMIT; round++) {
			ctx->round = round + 1;
			r = runrange(m, s, i + 1, end, ctx, log);
			ctx->round = outer;
			if (r < 0)
				return -1;
			changed |= r;
			if (!r)
				break;
		}
		i = end;
	}
	return changed;
}

int
pass_run_seq(HloModule *m, const PassSeq *s, PassCtx *ctx, PassLog *log)
{
	return runrange(m, s, 0, s->n, ctx, log);
}
