/* cmd_dump.c: what optimize shows of a run beyond its report:
 * --dump-after PASS|all with --dump-to DIR writes the module after every
 * pass that changed it (as xla's --xla_dump_hlo_pass_re with
 * --xla_dump_to), and --diff the instructions that differ between the
 * input and the output, by computation and instruction name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "pass.h"
#include "cmd.h"
#include "cmd_dump.h"

/* --dump-after: the passes to dump after (all, or a list of names) */
int
cmd_dump_init(CmdDump *d, const char *which, const char *dir, int *status)
{
	HloError e;

	memset(d, 0, sizeof *d);
	d->dir = dir;
	if (!strcmp(which, "all")) {
		d->all = 1;
		return 0;
	}
	if (pass_seq_parse(which, &d->only, &e) < 0) {
		fprintf(stderr, "hlopt: --dump-after: %s\n", e.msg);
		*status = EXIT_USAGE;
		return -1;
	}
	return 0;
}

void
cmd_dump_free(CmdDump *d)
{
	pass_seq_free(&d->only);
}

static int
selected(const CmdDump *d, int pass)
{
	uint32_t i;

	if (d->all)
		return 1;
	for (i = 0; i < d->only.n; i++)
		if (d->only.items[i] == pass)
			return 1;
	return 0;
}

/* PassCtx.after: DIR/NNNN.after_PASS.hlo for a selected pass that
 * changed the module, NNNN the step (1-based, every pass run counts) */
int
cmd_dump_after(const HloModule *m, int pass, int changed, void *arg,
	HloError *e)
{
	CmdDump *d = arg;
	HloBuf text = {0};
	char path[4096];
	int r;

	d->step++;
	if (!changed || !selected(d, pass))
		return 0;
	if (snprintf(path, sizeof path, "%s/%04u.after_%s.hlo", d->dir,
	    d->step, hlo_passes[pass].name) >= (int)sizeof path)
		return hlo_err_file(e, d->dir, "--dump-to: path too long");
	hlo_print_module(m, &text);
	r = hlo_write_file(path, text.buf, text.len, e);
	hlo_buf_free(&text);
	d->files += r == 0;
	return r;
}

/* --diff */

typedef struct {
	const char *line;	/* NUL-free span of the printed module */
	uint32_t len;
	uint32_t comp;		/* index of its computation's header line */
	uint32_t klen;		/* length of the key: "%name" */
	const char *key;
} Line;

typedef struct {
	char *text;		/* the printed module */
	Line *l;
	uint32_t n;
	uint32_t *tab, cap;	/* instruction lines by (computation, name):
				 * index + 1, 0 empty */
} Side;

static uint64_t
hashkey(const Side *s, const Line *l)
{
	const Line *h = &s->l[l->comp];
	uint64_t x = 1469598103934665603u;
	uint32_t i;

	for (i = 0; i < h->klen; i++)
		x = (x ^ (unsigned char)h->key[i]) * 1099511628211u;
	x = (x ^ 0xff) * 1099511628211u;
	for (i = 0; i < l->klen; i++)
		x = (x ^ (unsigned char)l->key[i]) * 1099511628211u;
	return x;
}

/* the name a line defines: "%x" of "  %x = ..." or "  ROOT %x = ...",
 * or the computation name of a header "%c (...) -> ... {" / "ENTRY %c" */
static void
linekey(Line *l)
{
	const char *p = l->line, *end = l->line + l->len, *q;

	while (p < end && *p == ' ')
		p++;
	if (end - p > 5 && !strncmp(p, "ROOT ", 5))
		p += 5;
	else if (end - p > 6 && !strncmp(p, "ENTRY ", 6))
		p += 6;
	for (q = p; q < end && *q != ' '; q++)
		;
	l->key = p;
	l->klen = q - p;
}

/* splits s->text into lines, keys them and indexes instruction lines */
static void
side_index(Side *s)
{
	char *p = s->text, *nl;
	uint32_t cap = 0, comp = 0, i, j;

	for (; *p; p = nl + 1) {
		if (!(nl = strchr(p, '\n')))
			nl = p + strlen(p);
		if (s->n == cap)
			s->l = xreallocarray(s->l, cap = cap ? 2 * cap : 256,
				sizeof *s->l);
		s->l[s->n].line = p;
		s->l[s->n].len = nl - p;
		linekey(&s->l[s->n]);
		if (nl > p && *p != ' ' && *p != '}')
			comp = s->n;
		s->l[s->n++].comp = comp;
		if (!*nl)
			break;
	}
	for (s->cap = 64; s->cap < 2 * s->n; s->cap *= 2)
		;
	s->tab = xcalloc(s->cap, sizeof *s->tab);
	for (i = 0; i < s->n; i++) {
		if (s->l[i].line[0] != ' ')
			continue;
		for (j = hashkey(s, &s->l[i]) & (s->cap - 1); s->tab[j];
		    j = (j + 1) & (s->cap - 1))
			;
		s->tab[j] = i + 1;
	}
}

static int
samekey(const Side *a, const Line *x, const Side *b, const Line *y)
{
	const Line *hx = &a->l[x->comp], *hy = &b->l[y->comp];

	return x->klen == y->klen && !memcmp(x->key, y->key, x->klen) &&
		hx->klen == hy->klen && !memcmp(hx->key, hy->key, hx->klen);
}

/* the line of b defining a's line x's instruction, NULL if none */
static const Line *
find(const Side *a, const Line *x, const Side *b)
{
	uint32_t j;

	for (j = hashkey(a, x) & (b->cap - 1); b->tab[j]; j = (j + 1) &
	    (b->cap - 1))
		if (samekey(a, x, b, &b->l[b->tab[j] - 1]))
			return &b->l[b->tab[j] - 1];
	return NULL;
}

static void
put(HloBuf *out, char sign, const Line *l)
{
	hlo_buf_printf(out, "%c%.*s\n", sign, (int)l->len, l->line);
}

/* the lines of one side whose instruction the other lacks or prints
 * differently, each once per computation header */
static int64_t
oneway(const Side *a, const Side *b, char sign, HloBuf *out)
{
	const Line *y;
	uint32_t i, shown = UINT32_MAX;
	int64_t n = 0;

	for (i = 0; i < a->n; i++) {
		const Line *x = &a->l[i];

		if (x->line[0] != ' ')
			continue;
		y = find(a, x, b);
		if (y && y->len == x->len && !memcmp(y->line, x->line,
		    x->len))
			continue;
		if (shown != x->comp) {
			hlo_buf_printf(out, "@@ %.*s\n", (int)a->l[x->comp].klen,
				a->l[x->comp].key);
			shown = x->comp;
		}
		put(out, sign, x);
		n++;
	}
	return n;
}

/* the instructions of before and after that differ: first those of the
 * input that are gone or printed differently ("-"), then those of the
 * output that are new or printed differently ("+"), each under an "@@
 * computation" line; the count of lines */
int64_t
cmd_diff(const HloModule *before, const HloModule *after, HloBuf *out)
{
	HloBuf ta = {0}, tb = {0};
	Side a, b;
	int64_t n;

	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	hlo_print_module(before, &ta);
	hlo_print_module(after, &tb);
	a.text = ta.buf ? ta.buf : "";
	b.text = tb.buf ? tb.buf : "";
	side_index(&a);
	side_index(&b);
	n = oneway(&a, &b, '-', out);
	n += oneway(&b, &a, '+', out);
	free(a.l);
	free(a.tab);
	free(b.l);
	free(b.tab);
	hlo_buf_free(&ta);
	hlo_buf_free(&tb);
	return n;
}
