/* testutil.h: small helpers shared by the tests (header only): read a
 * file, parse or print a module through a string, where the test data
 * lives, and a recursive list of the .hlo and .pb files under a folder.
 * Tests run from the repository root. */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hlo.h"

#define TU_DATA "data"

/* the whole file, NUL-terminated, or NULL; *n its length */
static inline char *
tu_read(const char *path, size_t *n)
{
	HloError e;
	char *d;
	size_t len;

	if (hlo_read_file(path, &d, &len, &e) < 0)
		return NULL;
	if (n)
		*n = len;
	return d;
}

/* the module in text, or NULL with e filled */
static inline HloModule *
tu_parse(const char *text, HloError *e)
{
	HloModule *m;

	if (hlo_parse_text(text, strlen(text), "test.hlo", &m, e) < 0)
		return NULL;
	return m;
}

/* the module's text as hlo_print_module writes it, malloc'd */
static inline char *
tu_print(const HloModule *m)
{
	HloBuf b = {0};

	hlo_print_module(m, &b);
	hlo_buf_put(&b, "", 1);
	return b.buf;
}

/* the corpus folder: $HLOPT_CORPUS, else ../shared/corpus; NULL when
 * it does not exist */
static inline const char *
tu_corpus(void)
{
	const char *d = getenv("HLOPT_CORPUS");
	struct stat st;

	if (!d || !*d)
		d = "../shared/corpus";
	return stat(d, &st) == 0 && S_ISDIR(st.st_mode) ? d : NULL;
}

typedef struct {
	char **v;
	size_t n, cap;
} TuList;

static inline int
tu_wanted(const char *name)
{
	size_t n = strlen(name);

	return (n > 4 && !strcmp(name + n - 4, ".hlo")) ||
		(n > 3 && !strcmp(name + n - 3, ".pb"));
}

static inline void
tu_walk(const char *dir, TuList *l, int depth)
{
	DIR *d = depth < 32 ? opendir(dir) : NULL;
	struct dirent *de;
	struct stat st;
	char *path;
	size_t n;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		n = strlen(dir) + strlen(de->d_name) + 2;
		path = xmalloc(n);
		snprintf(path, n, "%s/%s", dir, de->d_name);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			tu_walk(path, l, depth + 1);
			free(path);
		} else if (S_ISREG(st.st_mode) && tu_wanted(de->d_name)) {
			if (l->n == l->cap) {
				l->cap = l->cap ? 2 * l->cap : 64;
				l->v = xreallocarray(l->v, l->cap, sizeof *l->v);
			}
			l->v[l->n++] = path;
		} else {
			free(path);
		}
	}
	closedir(d);
}

static inline int
tu_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* every .hlo and .pb file under dir, sorted; free with tu_list_free */
static inline TuList
tu_list(const char *dir)
{
	TuList l = {0};

	tu_walk(dir, &l, 0);
	if (l.n)
		qsort(l.v, l.n, sizeof *l.v, tu_cmp);
	return l;
}

static inline void
tu_list_free(TuList *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

static inline int
tu_is_text(const char *path)
{
	size_t n = strlen(path);

	return n > 4 && !strcmp(path + n - 4, ".hlo");
}

/* renumbers computation c in post order from its root */
static inline void
tu_canon_comp(HloModule *m, uint32_t c)
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

/* m with every computation renumbered in post order, printed: modules
 * that differ only in instruction order compare equal */
static inline char *
tu_canon(HloModule *m)
{
	uint32_t c;

	for (c = 0; c < m->ncomps; c++)
		tu_canon_comp(m, c);
	return tu_print(m);
}

#endif
