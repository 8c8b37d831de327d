/* proto_lex.c: a small lexer over the text forms of attributes (the
 * IR keeps sharding, metadata, replica groups, ... as text), quoted
 * strings with their C escapes, for the proto reader and writer. the
 * printing side is hlo/print.c's (hlo_print_quoted, hlo_print_shape). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

void
hlo_putints(HloBuf *b, const int64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		hlo_buf_printf(b, i ? ",%" PRId64 : "%" PRId64, v[i]);
}

/* interns p[0..n) up to its first NUL: wire bytes may hold any */
uint32_t
hlo_strid(HloModule *m, const void *p, size_t n)
{
	const char *z = n ? memchr(p, 0, n) : NULL;

	if (z)
		n = z - (const char *)p;
	return n ? hlo_str(m, p, n) : 0;
}

/* a small lexer over the text forms of attributes */

void
hlo_lxws(Lx *l)
{
	for (;;) {
		while (l->p < l->e && (*l->p == ' ' || *l->p == '\t' ||
		    *l->p == '\n' || *l->p == '\r'))
			l->p++;
		if (l->e - l->p >= 2 && l->p[0] == '/' && l->p[1] == '*') {
			const char *q = l->p + 2;

			while (q + 1 < l->e && !(q[0] == '*' && q[1] == '/'))
				q++;
			if (q + 1 >= l->e)
				return;
			l->p = q + 2;
			continue;
		}
		return;
	}
}

int
hlo_lxc(Lx *l, int c)
{
	hlo_lxws(l);
	if (l->p < l->e && *l->p == c) {
		l->p++;
		return 1;
	}
	return 0;
}

int
hlo_lxpeek(Lx *l, int c)
{
	hlo_lxws(l);
	return l->p < l->e && *l->p == c;
}

int
hlo_lxend(Lx *l)
{
	hlo_lxws(l);
	return l->p == l->e;
}

static int
iswordc(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		(c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-' ||
		c == '$';
}

/* a word: [A-Za-z0-9_.$-]+ */
int
hlo_lxword(Lx *l, const char **s, size_t *n)
{
	const char *q;

	hlo_lxws(l);
	q = l->p;
	while (q < l->e && iswordc((unsigned char)*q))
		q++;
	if (q == l->p)
		return 0;
	*s = l->p;
	*n = q - l->p;
	l->p = q;
	return 1;
}

/* the keyword kw, not followed by more word characters */
int
hlo_lxkw(Lx *l, const char *kw)
{
	size_t n = strlen(kw);

	hlo_lxws(l);
	if ((size_t)(l->e - l->p) < n || memcmp(l->p, kw, n))
		return 0;
	if (l->p + n < l->e && iswordc((unsigned char)l->p[n]) &&
	    iswordc((unsigned char)kw[n - 1]))
		return 0;
	l->p += n;
	return 1;
}

int
hlo_lxint(Lx *l, int64_t *v)
{
	const char *q;
	uint64_t x = 0, lim;
	int neg = 0;

	hlo_lxws(l);
	q = l->p;
	if (q < l->e && (*q == '-' || *q == '+'))
		neg = *q++ == '-';
	if (q == l->e || *q < '0' || *q > '9')
		return 0;
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	while (q < l->e && *q >= '0' && *q <= '9') {
		if (x > (lim - (*q - '0')) / 10)
			return 0;
		x = x * 10 + (*q++ - '0');
	}
	if (q < l->e && iswordc((unsigned char)*q) && *q != '-')
		return 0;
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	l->p = q;
	return 1;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* a quoted string, unescaped into b (appended) */
int
hlo_lxstr(Lx *l, HloBuf *b)
{
	const char *q;
	char c;
	int k, v;

	if (!hlo_lxc(l, '"'))
		return 0;
	q = l->p;
	while (q < l->e && *q != '"') {
		if (*q != '\\') {
			hlo_buf_put(b, q++, 1);
			continue;
		}
		if (++q == l->e)
			return 0;
		switch (c = *q++) {
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		case 'a': c = '\a'; break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'v': c = '\v'; break;
		case 'x':
			for (v = 0, k = 0; k < 2 && q < l->e &&
			    hexval((unsigned char)*q) >= 0; k++)
				v = v * 16 + hexval((unsigned char)*q++);
			if (!k)
				return 0;
			c = (char)v;
			break;
		default:
			if (c >= '0' && c <= '7') {
				v = c - '0';
				for (k = 1; k < 3 && q < l->e && *q >= '0' &&
				    *q <= '7'; k++)
					v = v * 8 + (*q++ - '0');
				c = (char)v;
			}
			break;
		}
		hlo_buf_put(b, &c, 1);
	}
	if (q == l->e)
		return 0;
	l->p = q + 1;
	return 1;
}

/* {a,b,c} into v (appended) */
int
hlo_lxlist(Lx *l, Vec *v, int open, int close)
{
	int64_t x;

	v->n = 0;
	if (!hlo_lxc(l, open))
		return 0;
	if (hlo_lxc(l, close))
		return 1;
	do {
		if (!hlo_lxint(l, &x))
			return 0;
		hlo_vpush(v, x);
	} while (hlo_lxc(l, ','));
	return hlo_lxc(l, close);
}

/* skips a balanced {...}, (...) or [...] group or a quoted string */
int
hlo_lxskip(Lx *l)
{
	int depth = 0;
	char c;

	hlo_lxws(l);
	do {
		if (l->p == l->e)
			return 0;
		c = *l->p;
		if (c == '"') {
			HloBuf t = {0};
			int ok = hlo_lxstr(l, &t);

			hlo_buf_free(&t);
			if (!ok)
				return 0;
			continue;
		}
		l->p++;
		if (c == '{' || c == '(' || c == '[')
			depth++;
		else if (c == '}' || c == ')' || c == ']')
			depth--;
	} while (depth > 0);
	return depth == 0;
}
