/* rewrite.c: what passes share: scratch memory, side effects, xla's
 * instruction and computation orders, attribute and computation
 * comparison, callers, and PassEdit, which replaces and deletes
 * instructions with the semantics of xla's HloComputation methods. */
#include <stdlib.h>
#include <string.h>

#include "pass.h"

/* scratch */

void *
pass_arena_alloc(PassArena *a, size_t n)
{
	size_t need = (n + 15) & ~(size_t)15, cap;
	void *p;

	if (need < n)
		need = SIZE_MAX;	/* xmalloc reports it */
	if (need > a->cap - a->len || !a->buf) {
		if (a->buf) {
			if (a->nold == a->capold) {
				a->capold = a->capold ? 2 * a->capold : 8;
				a->old = xreallocarray(a->old, a->capold,
					sizeof *a->old);
			}
			a->old[a->nold++] = a->buf;
		}
		cap = a->cap > (1 << 16) ? 2 * a->cap : 1 << 16;
		if (cap < need)
			cap = need;
		a->buf = xmalloc(cap);
		a->cap = cap;
		a->len = 0;
	}
	p = a->buf + a->len;
	a->len += need;
	return p;
}

void *
pass_zalloc(PassCtx *ctx, size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size)
		n = SIZE_MAX / size;	/* pass_alloc fails loudly */
	p = pass_alloc(ctx, n * size);
	memset(p, 0, n * size);
	return p;
}

void *
pass_alloc(PassCtx *ctx, size_t n)
{
	return pass_arena_alloc(&ctx->scratch, n);
}

void
pass_arena_reset(PassArena *a)
{
	size_t i;

	for (i = 0; i < a->nold; i++)
		free(a->old[i]);
	a->nold = 0;
	a->len = 0;
}

void
pass_reset(PassCtx *ctx)
{
	pass_arena_reset(&ctx->scratch);
}

void
pass_arena_free(PassArena *a)
{
	pass_arena_reset(a);
	free(a->buf);
	free(a->old);
	memset(a, 0, sizeof *a);
}

/* names */

static uint32_t
suffix(const char *s)
{
	size_t n = strlen(s), k = n;
	uint64_t v = 0;

	while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9')
		k--;
	if (k == n || k == 0 || s[k - 1] != '.' || n - k > 9)
		return 0;
	for (; k < n; k++)
		v = v * 10 + (s[k] - '0');
	return v;
}

/* s appended at buf + *n, cut as snprintf cuts at size - 1 bytes */
static void
put(char *buf, size_t size, size_t *n, const char *s, size_t len)
{
	if (*n + len >= size)
		len = size - 1 - *n;
	memcpy(buf + *n, s, len);
	*n += len;
}

char *
pass_name_cat(char *buf, size_t size, const char *a, const char *b,
	const char *c, const char *d)
{
	size_t n = 0;

	if (!size)
		return buf;
	put(buf, size, &n, a, strlen(a));
	put(buf, size, &n, b, strlen(b));
	put(buf, size, &n, c, strlen(c));
	put(buf, size, &n, d, strlen(d));
	buf[n] = 0;
	return buf;
}

char *
pass_name_num(char *buf, size_t size, const char *a, uint32_t k)
{
	char dig[12];
	size_t n = 0, nd = sizeof dig;

	if (!size)
		return buf;
	do
		dig[--nd] = '0' + k % 10;
	while (k /= 10);
	put(buf, size, &n, a, strlen(a));
	put(buf, size, &n, dig + nd, sizeof dig - nd);
	buf[n] = 0;
	return buf;
}

void
pass_fresh_names(HloModule *m)
{
	uint32_t c, i, v, max = 0;

	for (c = 0; c < m->ncomps; c++) {
		if ((v = suffix(hlo_cstr(m, m->comps[c].name))) > max)
			max = v;
		for (i = 0; i < m->comps[c].nins; i++)
			if ((v = suffix(hlo_cstr(m,
			    m->comps[c].ins[i].name))) > max)
				max = v;
	}
	if (max < UINT32_MAX - 1 && m->nexttmp <= max)
		m->nexttmp = max + 1;
}

/* side effects */

static int
compeffect(const HloModule *m, uint32_t c, const uint8_t *fx)
{
	const HloComp *cp = &m->comps[c];
	uint32_t i;

	for (i = 0; i < cp->nins; i++)
		if (!(cp->ins[i].flags & HI_DEAD) &&
		    pass_has_effect(m, &cp->ins[i], fx, m->ncomps))
			return 1;
	return 0;
}

/* per computation: whether any instruction in it has a side effect,
 * looking through called computations (a call cycle is iterated to a
 * fixed point) */
uint8_t *
pass_comp_effects(const HloModule *m, PassCtx *ctx)
{
	uint8_t *fx = pass_zalloc(ctx, m->ncomps + 1, 1);
	uint32_t *order = pass_alloc(ctx, (m->ncomps + 1) * sizeof *order);
	int n = hlo_comp_order_all(m, order), i, again;
	uint32_t c;

	if (n >= 0) {
		for (i = 0; i < n; i++)
			fx[order[i]] = compeffect(m, order[i], fx);
		return fx;
	}
	do {
		again = 0;
		for (c = 0; c < m->ncomps; c++)
			if (!fx[c] && compeffect(m, c, fx))
				fx[c] = again = 1;
	} while (again);
	return fx;
}

int
pass_has_effect(const HloModule *m, const HloInstr *in, const uint8_t *fx,
	uint32_t nfx)
{
	uint32_t k, d;

	if (hlo_has_side_effect(m, in))
		return 1;
	for (k = 0; k < in->ncalled; k++) {
		d = m->ids[in->called + k];
		if (d >= nfx || !fx || fx[d])
			return 1;
	}
	return 0;
}

/* orders */

uint32_t
pass_post_order(const HloModule *m, uint32_t c, uint32_t *order,
	PassCtx *ctx)
{
	const HloComp *cp = &m->comps[c];
	uint32_t n = cp->nins, i, k, top, cnt = 0, x, d;
	uint8_t *used = pass_zalloc(ctx, n + 1, 1);
	uint8_t *state = pass_zalloc(ctx, n + 1, 1);
	uint32_t *stack;
	size_t slots = n + 1;

	for (i = 0; i < n; i++) {
		const HloInstr *in = &cp->ins[i];

		if (in->flags & HI_DEAD)
			continue;
		slots += in->nops + in->nctrl;
		for (k = 0; k < in->nops; k++)
			if ((d = m->ids[in->ops + k]) < n)
				used[d] = 1;
		for (k = 0; k < in->nctrl; k++)
			if ((d = m->ids[in->ctrl + k]) < n)
				used[d] = 1;
	}
	stack = pass_alloc(ctx, slots * sizeof *stack);
	for (i = 0; i < n; i++) {
		if (used[i] || state[i] || (cp->ins[i].flags & HI_DEAD))
			continue;
		top = 0;
		stack[top++] = i;
		while (top) {
			const HloInstr *in;

			x = stack[top - 1];
			if (state[x]) {
				top--;
				if (state[x] != 2) {
					state[x] = 2;
					order[cnt++] = x;
				}
				continue;
			}
			state[x] = 1;
			in = &cp->ins[x];
			for (k = in->nops; k-- > 0;)
				if ((d = m->ids[in->ops + k]) < n &&
				    state[d] != 2 && top < slots)
					stack[top++] = d;
			for (k = 0; k < in->nctrl; k++)
				if ((d = m->ids[in->ctrl + k]) < n &&
				    state[d] != 2 && top < slots)
					stack[top++] = d;
		}
	}
	/* instructions only reachable from a cycle */
	for (i = 0; i < n; i++)
		if (!state[i] && !(cp->ins[i].flags & HI_DEAD))
			order[cnt++] = i;
	return cnt;
}

int
pass_comp_post_order(const HloModule *m, uint32_t *order)
{
	return hlo_comp_order_all(m, order);
}

uint32_t *
pass_comps_in_post_order(const HloModule *m, PassCtx *ctx, int *n)
{
	uint32_t *order = xreallocarray(NULL, m->ncomps + 1, sizeof *order);

	if ((*n = pass_comp_post_order(m, order)) >= 0)
		return order;
	free(order);
	pass_err_cycle(ctx, m, HLO_NONE);
	return NULL;
}

/* the error of a cycle: in the call graph (c is HLO_NONE) or in
 * computation c; returns -1 */
int
pass_err_cycle(PassCtx *ctx, const HloModule *m, uint32_t c)
{
	if (c == HLO_NONE)
		return hlo_err(&ctx->err, "the call graph has a cycle");
	return hlo_err(&ctx->err, "computation %s has a cycle",
		hlo_cstr(m, m->comps[c].name));
}

/* compacts every computation marked in touched (sized m->ncomps); -1 on a
 * cycle, else changed */
int
pass_compact_touched(HloModule *m, PassCtx *ctx, const uint8_t *touched,
	int changed)
{
	uint32_t c;

	for (c = 0; c < m->ncomps && changed > 0; c++)
		if (touched[c] && hlo_comp_compact(m, c) < 0)
			changed = pass_err_cycle(ctx, m, c);
	return changed;
}

/* attributes */

int
pass_attr_list_copy(const HloModule *m, const HloInstr *in, int key,
	uint32_t max, int64_t *dst, uint32_t *n)
{
	const int64_t *v = hlo_attr_list(m, in, key, n);

	if (*n > max)
		return -1;
	if (*n)
		memcpy(dst, v, *n * sizeof *v);
	return 0;
}

/* finds key in a {k="v", k2=v2} list; the value is returned without its
 * quotes, escapes left as they are */
const char *
pass_frontend_attr(const HloModule *m, const HloInstr *in, const char *key,
	uint32_t *n)
{
	uint32_t len, klen = strlen(key);
	const char *s = hlo_attr_word(m, in, A_FRONTEND_ATTRIBUTES, &len);
	const char *e, *k, *v;

	if (!s)
		return NULL;
	e = s + len;
	if (s < e && *s == '{')
		s++;
	while (s < e) {
		while (s < e && (*s == ' ' || *s == ',' || *s == '\n'))
			s++;
		if (s >= e || *s == '}')
			break;
		k = s;
		while (s < e && *s != '=' && *s != ',' && *s != '}')
			s++;
		if (s >= e || *s != '=')
			return NULL;
		len = s - k;
		if (len >= 2 && k[0] == '"' && k[len - 1] == '"')
			k++, len -= 2;
		s++;
		if (s < e && *s == '"') {
			v = ++s;
			while (s < e && *s != '"')
				s += *s == '\\' ? 2 : 1;
			if (s > e)
				s = e;
			if (len == klen && !memcmp(k, key, klen)) {
				*n = s - v;
				return v;
			}
			s++;
		} else {
			v = s;
			while (s < e && *s != ',' && *s != '}')
				s++;
			if (len == klen && !memcmp(k, key, klen)) {
				*n = s - v;
				return v;
			}
		}
	}
	return NULL;
}

int
pass_is_custom_call(const HloModule *m, const HloInstr *in,
	const char *target)
{
	return in->op == HOP_CUSTOMCALL &&
		hlo_attr_is(m, in, A_CUSTOM_CALL_TARGET, target);
}

int
pass_metadata_has_op_name(const HloModule *m, const HloInstr *in)
{
	uint32_t n, i;
	const char *s = hlo_attr_word(m, in, A_METADATA, &n);
	static const char key[] = "op_name=\"";

	if (!s)
		return 0;
	for (i = 0; i + sizeof key - 1 < n; i++)
		if (!memcmp(s + i, key, sizeof key - 1) &&
		    (i == 0 || s[i - 1] == ' ' || s[i - 1] == '{'))
			return s[i + sizeof key - 1] != '"';
	return 0;
}

/* computations */

void
pass_callers(const HloModule *m, PassCallers *cg, PassCtx *ctx)
{
	uint32_t c, i, k, d, n = m->ncomps, *fill;

	cg->n = n;
	cg->start = pass_zalloc(ctx, n + 2, sizeof *cg->start);
	for (c = 0; c < n; c++) {
		const HloComp *cp = &m->comps[c];

		for (i = 0; i < cp->nins; i++) {
			if (cp->ins[i].flags & HI_DEAD)
				continue;
			for (k = 0; k < cp->ins[i].ncalled; k++)
				if ((d = m->ids[cp->ins[i].called + k]) < n)
					cg->start[d + 1]++;
		}
	}
	for (c = 0; c < n; c++)
		cg->start[c + 1] += cg->start[c];
	cg->site = pass_alloc(ctx, (cg->start[n] + 1) * sizeof *cg->site);
	fill = pass_alloc(ctx, (n + 1) * sizeof *fill);
	memcpy(fill, cg->start, n * sizeof *fill);
	for (c = 0; c < n; c++) {
		const HloComp *cp = &m->comps[c];

		for (i = 0; i < cp->nins; i++) {
			if (cp->ins[i].flags & HI_DEAD)
				continue;
			for (k = 0; k < cp->ins[i].ncalled; k++) {
				if ((d = m->ids[cp->ins[i].called + k]) >= n)
					continue;
				cg->site[fill[d]].comp = c;
				cg->site[fill[d]++].instr = i;
			}
		}
	}
}

void
pass_drop_comps(HloModule *m, const uint8_t *drop)
{
	uint32_t n = m->ncomps, *newid, c, k, i, j;

	newid = xreallocarray(NULL, n + 1, sizeof *newid);
	for (c = k = 0; c < n; c++) {
		if (drop[c]) {
			free(m->comps[c].ins);
			newid[c] = HLO_NONE;
			continue;
		}
		newid[c] = k;
		m->comps[k++] = m->comps[c];
	}
	m->ncomps = k;
	if (m->entry < n)
		m->entry = newid[m->entry];
	for (c = 0; c < m->ncomps; c++) {
		HloComp *cp = &m->comps[c];

		for (i = 0; i < cp->nins; i++)
			for (j = 0; j < cp->ins[i].ncalled; j++) {
				uint32_t *d = &m->ids[cp->ins[i].called + j];

				*d = *d < n ? newid[*d] : HLO_NONE;
			}
	}
	free(newid);
}

/* attributes Identical() does not look at */
static const uint8_t *
identical_ignores(void)
{
	static const uint8_t ign[A_COUNT] = {
		[A_METADATA] = 1, [A_ORIGIN] = 1, [A_STATISTICS] = 1,
		[A_FRONTEND_ATTRIBUTES] = 1, [A_SHARDING] = 1,
	};

	return ign;
}

static int compequal(const HloModule *m, uint32_t a, uint32_t b, int ls,
	int depth);

/* xla's Identical() with operands assumed equal and called computations
 * compared with Equal() */
static int
identical_noops(const HloModule *m, const HloInstr *x, const HloInstr *y,
	int ls, int depth)
{
	uint32_t k;

	if (x->op != y->op || x->nops != y->nops ||
	    x->ncalled != y->ncalled)
		return 0;
	if (ls ? x->shape != y->shape :
	    !hlo_shape_eq_nolayout(m, x->shape, y->shape))
		return 0;
	if (x->op == HOP_AFTERALL || x->op == HOP_ADDDEP)
		return 0;
	if (x->op == HOP_PARAMETER && x->num != y->num)
		return 0;
	if (!hlo_attrs_equal(m, x, y, identical_ignores()))
		return 0;
	for (k = 0; k < x->ncalled; k++)
		if (!compequal(m, m->ids[x->called + k],
		    m->ids[y->called + k], ls, depth + 1))
			return 0;
	return 1;
}

static uint32_t
hashpair(uint64_t p)
{
	p ^= p >> 33;
	p *= 0xff51afd7ed558ccdULL;
	p ^= p >> 33;
	return (uint32_t)p;
}

static int
compequal(const HloModule *m, uint32_t a, uint32_t b, int ls, int depth)
{
	const HloComp *ca, *cb;
	uint64_t *seen, *work, p;
	uint32_t cap, mask, top = 0, nwork, nseen = 0, j, x, y, k;
	int ok = 1;

	if (a == b)
		return 1;
	if (a >= m->ncomps || b >= m->ncomps || depth > 64)
		return 0;
	ca = &m->comps[a];
	cb = &m->comps[b];
	if (ca->thread != cb->thread || ca->root >= ca->nins ||
	    cb->root >= cb->nins)
		return 0;
	for (cap = 64; cap < 2 * (ca->nins + cb->nins) + 2; cap *= 2)
		;
	mask = cap - 1;
	seen = xcalloc(cap, sizeof *seen);
	nwork = ca->nins + cb->nins + 2;
	work = xreallocarray(NULL, nwork, sizeof *work);
	work[top++] = (uint64_t)ca->root << 32 | cb->root;
	while (top && ok) {
		p = work[--top];
		for (j = hashpair(p) & mask; seen[j]; j = (j + 1) & mask)
			if (seen[j] == p + 1)
				break;
		if (seen[j])
			continue;
		if (2 * (nseen + 1) > cap) {
			ok = 0;		/* pairs do not correspond 1:1 */
			break;
		}
		seen[j] = p + 1;
		nseen++;
		x = p >> 32;
		y = (uint32_t)p;
		if (x >= ca->nins || y >= cb->nins ||
		    !identical_noops(m, &ca->ins[x], &cb->ins[y], ls, depth)) {
			ok = 0;
			break;
		}
		for (k = 0; k < ca->ins[x].nops; k++) {
			if (top == nwork) {
				nwork *= 2;
				work = xreallocarray(work, nwork, sizeof *work);
			}
			work[top++] = (uint64_t)m->ids[ca->ins[x].ops + k] << 32 |
				m->ids[cb->ins[y].ops + k];
		}
	}
	free(seen);
	free(work);
	return ok;
}

int
pass_comp_equal(const HloModule *m, uint32_t a, uint32_t b,
	int layout_sensitive, PassCtx *ctx)
{
	(void)ctx;
	return compequal(m, a, b, layout_sensitive, 0);
}

/* layouts */

int
pass_layout_sensitive(const HloModule *m)
{
	uint32_t c, i;

	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++)
			if (m->comps[c].ins[i].op == HOP_BITCAST &&
			    !(m->comps[c].ins[i].flags & HI_DEAD))
				return 1;
	return 0;
}

/* minor_to_major entry k of an array shape, the default when it has none */
static int64_t
m2m_at(const HloModule *m, const HloShape *sh, int k)
{
	return sh->flags & SH_LAYOUT ? hlo_m2m(m, sh)[k] : sh->rank - 1 - k;
}

int
pass_shape_equal(const HloModule *m, uint32_t a, uint32_t b)
{
	const HloShape *x = &m->shapes[a], *y = &m->shapes[b];
	uint32_t i;
	int k;

	if (a == b)
		return 1;
	if (!hlo_shape_eq_nolayout(m, a, b))
		return 0;
	if (x->type == TY_TUPLE) {
		for (i = 0; i < x->ntuple; i++)
			if (!pass_shape_equal(m, m->ids[x->tuple + i],
			    m->ids[y->tuple + i]))
				return 0;
		return 1;
	}
	if (x->type == TY_TOKEN || x->type == TY_OPAQUE)
		return 1;
	if (x->tail != y->tail)
		return 0;
	for (k = 0; k < x->rank; k++)
		if (m2m_at(m, x, k) != m2m_at(m, y, k))
			return 0;
	return 1;
}

int
pass_shape_same(const HloModule *m, int ls, uint32_t a, uint32_t b)
{
	return ls ? pass_shape_equal(m, a, b) : hlo_shape_eq_nolayout(m, a, b);
}

/* the physical order of the dimensions of an array shape that are not 1,
 * major first, into out; returns their count */
static int
phys_dims(const HloModule *m, uint32_t s, int64_t *out)
{
	const HloShape *sh = &m->shapes[s];
	int k, n = 0;

	for (k = sh->rank; k-- > 0;) {
		int64_t d = m2m_at(m, sh, k);

		if (d >= 0 && d < sh->rank && hlo_dims(m, sh)[d] != 1)
			out[n++] = d;
	}
	return n;
}

int
pass_copy_is_bitcast(const HloModule *m, uint32_t a, uint32_t b)
{
	const HloShape *x = &m->shapes[a], *y = &m->shapes[b];
	int64_t pa[64], pb[64];
	int na, nb;

	if (!hlo_shape_eq_nolayout(m, a, b) || x->type == TY_TUPLE ||
	    x->rank > 64 || x->dynmask)
		return 0;
	if (x->tail || y->tail)
		return pass_shape_equal(m, a, b);
	na = phys_dims(m, a, pa);
	nb = phys_dims(m, b, pb);
	return na == nb && !memcmp(pa, pb, (size_t)na * 8);
}

/* the copy's swapped extents x and y make a tiled transpose */
static int
tiled_extents(int64_t x, int64_t y)
{
	return (x >= 16 && y >= 16) || (x >= 8 && y >= 8 && x * y >= 64 * 128);
}

int
pass_copy_tiled_transpose(const HloModule *m, uint32_t a, uint32_t b)
{
	const HloShape *x = &m->shapes[a], *y = &m->shapes[b];
	int64_t pa[64], pb[64], pos[64], first[64], ext[64];
	int na, nb, k, j, ng = 0, rank[3];

	if (!hlo_shape_eq_nolayout(m, a, b) || x->type == TY_TUPLE ||
	    x->rank > 64 || x->dynmask || x->tail || y->tail)
		return 0;
	na = phys_dims(m, a, pa);
	nb = phys_dims(m, b, pb);
	if (na != nb)
		return 0;
	for (k = 0; k < nb; k++)
		pos[pb[k]] = k;
	/* runs of the operand's order that stay adjacent in the result's
	 * are one dimension */
	for (k = 0; k < na; k++) {
		int64_t d = hlo_dims(m, x)[pa[k]];

		if (k > 0 && pos[pa[k]] == pos[pa[k - 1]] + 1) {
			ext[ng - 1] *= d;
			continue;
		}
		first[ng] = pos[pa[k]];
		ext[ng++] = d;
	}
	if (ng == 2)	/* 1-0, read as 0-2-1 with a leading 1 */
		return tiled_extents(ext[0], ext[1]);
	if (ng != 3)
		return 0;
	for (k = 0; k < 3; k++)
		for (rank[k] = 0, j = 0; j < 3; j++)
			rank[k] += first[j] < first[k];
	if (rank[0] == 0 && rank[1] == 2 && rank[2] == 1)
		return tiled_extents(ext[1], ext[2]);
	if (rank[0] == 2 && rank[1] == 1 && rank[2] == 0)
		return tiled_extents(ext[0], ext[2]);
	return 0;
}

int
pass_transpose_is_bitcast(const HloModule *m, uint32_t in, uint32_t out,
	const int64_t *perm, uint32_t n)
{
	const HloShape *x = &m->shapes[in], *y = &m->shapes[out];
	int64_t pa[64], pb[64];
	int na, nb, k;

	if (x->type != y->type || x->type == TY_TUPLE || x->rank != y->rank ||
	    n != x->rank || x->rank > 64 || x->tail || y->tail ||
	    x->dynmask || y->dynmask)
		return 0;
	na = phys_dims(m, in, pa);
	nb = phys_dims(m, out, pb);
	if (na != nb)
		return 0;
	for (k = 0; k < nb; k++)
		if (perm[pb[k]] != pa[k])
			return 0;
	return 1;
}

int
pass_reshape_is_bitcast(const HloModule *m, uint32_t in, uint32_t out)
{
	const HloShape *x = &m->shapes[in], *y = &m->shapes[out];
	int64_t pa[64], pb[64];
	int na, nb, k;

	if (x->type != y->type || x->type == TY_TUPLE || x->rank > 64 ||
	    y->rank > 64 || x->tail || y->tail || x->dynmask || y->dynmask ||
	    hlo_shape_elems(m, in) != hlo_shape_elems(m, out))
		return 0;
	/* both laid out in logical order once 1-sized dimensions are
	 * dropped: the row-major element order is the memory order */
	na = phys_dims(m, in, pa);
	nb = phys_dims(m, out, pb);
	for (k = 1; k < na; k++)
		if (pa[k] < pa[k - 1])
			return 0;
	for (k = 1; k < nb; k++)
		if (pb[k] < pb[k - 1])
			return 0;
	return 1;
}

/* PassEdit */

static void
edgrow(PassEdit *ed, uint32_t n)
{
	uint32_t cap = ed->cap ? ed->cap : 64;

	if (n <= ed->cap)
		return;
	while (cap < n)
		cap *= 2;
	ed->fwd = xreallocarray(ed->fwd, cap, sizeof *ed->fwd);
	ed->nuse = xreallocarray(ed->nuse, cap, sizeof *ed->nuse);
	ed->ctl = xreallocarray(ed->ctl, cap, sizeof *ed->ctl);
	ed->cap = cap;
}

void
pass_edit_init(PassEdit *ed, HloModule *m, PassCtx *ctx, const uint8_t *fx,
	uint32_t nfx)
{
	memset(ed, 0, sizeof *ed);
	ed->m = m;
	ed->ctx = ctx;
	ed->fx = fx;
	ed->nfx = fx ? nfx : 0;
	ed->lay = pass_layout_sensitive(m);
}

void
pass_edit_free(PassEdit *ed)
{
	free(ed->fwd);
	free(ed->nuse);
	free(ed->ctl);
	free(ed->stack);
	memset(ed, 0, sizeof *ed);
}

/* the use counts and control marks of ed's computation; ident: nothing
 * is forwarded yet (pass_res is the identity) */
static void
recount(PassEdit *ed, int ident)
{
	HloComp *cp = &ed->m->comps[ed->c];
	const uint32_t *ids = ed->m->ids;
	uint32_t i, k, d, n = cp->nins;

	for (i = 0; i < n; i++) {
		ed->nuse[i] = 0;
		ed->ctl[i] = 0;
	}
	for (i = 0; i < n; i++) {
		const HloInstr *in = &cp->ins[i];

		if (in->flags & HI_DEAD)
			continue;
		if (ident) {
			for (k = 0; k < in->nops; k++)
				if ((d = ids[in->ops + k]) < n)
					ed->nuse[d]++;
		} else {
			for (k = 0; k < in->nops; k++)
				if ((d = pass_res(ed, ids[in->ops + k])) < n)
					ed->nuse[d]++;
		}
		if (in->nctrl)
			ed->ctl[i] |= CTL_PRED;
		for (k = 0; k < in->nctrl; k++)
			if ((d = pass_res(ed, ids[in->ctrl + k])) < n)
				ed->ctl[d] |= CTL_SUCC;
	}
}

void
pass_edit_begin(PassEdit *ed, uint32_t c)
{
	uint32_t i, n = ed->m->comps[c].nins;

	ed->c = c;
	edgrow(ed, n + 1);
	for (i = 0; i < n; i++)
		ed->fwd[i] = i;
	recount(ed, 1);
	ed->replaced = ed->changed = 0;
	ed->removed = 0;
}

int
pass_edit_end(PassEdit *ed)
{
	HloModule *m = ed->m;

	if (ed->replaced)
		hlo_forward(m, ed->c, ed->fwd);
	if (ed->changed && hlo_comp_compact(m, ed->c) < 0)
		return hlo_err(&ed->ctx->err, "computation %s: rewriting "
			"made a cycle", hlo_cstr(m, m->comps[ed->c].name));
	return 0;
}

uint32_t
pass_res(PassEdit *ed, uint32_t x)
{
	uint32_t n = ed->m->comps[ed->c].nins, r = x, t;

	if (x >= n || ed->fresh)
		return x;
	while (ed->fwd[r] != r)
		r = ed->fwd[r];
	while (ed->fwd[x] != r) {	/* path compression */
		t = ed->fwd[x];
		ed->fwd[x] = r;
		x = t;
	}
	return r;
}

void
pass_edit_added(PassEdit *ed, uint32_t i)
{
	HloModule *m = ed->m;
	const HloInstr *in;
	uint32_t k, d, n = m->comps[ed->c].nins;

	if (ed->fresh)
		return;
	edgrow(ed, n + 1);
	ed->fwd[i] = i;
	ed->nuse[i] = 0;
	ed->ctl[i] = 0;
	in = &m->comps[ed->c].ins[i];
	for (k = 0; k < in->nops; k++)
		if ((d = pass_res(ed, m->ids[in->ops + k])) < n)
			ed->nuse[d]++;
	if (in->nctrl)
		ed->ctl[i] |= CTL_PRED;
	for (k = 0; k < in->nctrl; k++)
		if ((d = pass_res(ed, m->ids[in->ctrl + k])) < n)
			ed->ctl[d] |= CTL_SUCC;
	ed->changed = 1;
}

void
pass_edit_set_operands(PassEdit *ed, uint32_t i, uint32_t n,
	const uint32_t *ops)
{
	HloModule *m = ed->m;
	HloInstr *in = &m->comps[ed->c].ins[i];
	uint32_t k, d, nins = m->comps[ed->c].nins;

	for (k = 0; k < in->nops; k++)
		if ((d = pass_res(ed, m->ids[in->ops + k])) < nins)
			ed->nuse[d]--;
	hlo_set_operands(m, ed->c, i, n, ops);
	in = &m->comps[ed->c].ins[i];
	for (k = 0; k < in->nops; k++)
		if ((d = pass_res(ed, m->ids[in->ops + k])) < nins)
			ed->nuse[d]++;
	ed->changed = 1;
}

int
pass_is_dead(PassEdit *ed, uint32_t i)
{
	return ed->nuse[i] == 0 && ed->m->comps[ed->c].root != i;
}

int
pass_removable(PassEdit *ed, uint32_t i)
{
	return !ed->ctl[i] && ed->m->comps[ed->c].ins[i].op != HOP_PARAMETER;
}

/* the slow path of pass_replace_uses: new uses old itself, and keeps
 * that use (xla's ReplaceAllUsesWith skips the new producer) */
static void
replace_eager(PassEdit *ed, uint32_t old, uint32_t new)
{
	HloModule *m = ed->m;
	HloComp *cp = &m->comps[ed->c];
	uint32_t i, k, own = 0;

	for (i = 0; i < cp->nins; i++) {
		HloInstr *in = &cp->ins[i];

		if (in->flags & HI_DEAD)
			continue;
		for (k = 0; k < in->nops; k++) {
			uint32_t *d = &m->ids[in->ops + k];

			if (pass_res(ed, *d) != old)
				continue;
			if (i == new)
				own++;
			else
				*d = new;
		}
	}
	ed->nuse[new] += ed->nuse[old] - own;
	ed->nuse[old] = own;
}

/* layout-sensitive: a copy of new laid out as old, when their layouts
 * differ, so that bitcasts among old's users read the same memory */
static uint32_t
layout_copy(PassEdit *ed, uint32_t old, uint32_t new)
{
	HloModule *m = ed->m;
	uint32_t so = m->comps[ed->c].ins[old].shape, id;
	uint32_t sn = m->comps[ed->c].ins[new].shape;

	if (!ed->lay || pass_shape_equal(m, so, sn) ||
	    !hlo_shape_eq_nolayout(m, so, sn))
		return new;
	id = hlo_instr_add(m, ed->c, HOP_COPY, so, hlo_fresh_name(m, "copy"),
		1, &new);
	pass_edit_added(ed, id);
	return id;
}

void
pass_replace_uses(PassEdit *ed, uint32_t old, uint32_t new)
{
	HloModule *m = ed->m;
	HloComp *cp = &m->comps[ed->c];
	const HloInstr *in;
	uint32_t k;

	old = pass_res(ed, old);
	new = pass_res(ed, new);
	if (old == new)
		return;
	new = layout_copy(ed, old, new);
	cp = &m->comps[ed->c];
	in = &cp->ins[new];
	for (k = 0; k < in->nops; k++)
		if (pass_res(ed, m->ids[in->ops + k]) == old) {
			replace_eager(ed, old, new);
			goto root;
		}
	ed->fwd[old] = new;
	ed->nuse[new] += ed->nuse[old];
	ed->nuse[old] = 0;
	ed->replaced = 1;
root:
	if (cp->root == old)
		cp->root = new;
	ed->changed = 1;
}

void
pass_remove(PassEdit *ed, uint32_t i)
{
	HloModule *m = ed->m;
	HloInstr *in = &m->comps[ed->c].ins[i];
	uint32_t k, d, n = m->comps[ed->c].nins;

	if (in->flags & HI_DEAD)
		return;
	in->flags |= HI_DEAD;
	for (k = 0; k < in->nops; k++)
		if ((d = pass_res(ed, m->ids[in->ops + k])) < n && ed->nuse[d])
			ed->nuse[d]--;
	ed->removed++;
	ed->changed = 1;
}

void
pass_remove_cascade(PassEdit *ed, uint32_t i)
{
	HloModule *m = ed->m;
	HloComp *cp = &m->comps[ed->c];
	uint32_t top = 0, x, k, d, n = cp->nins;

	if (!pass_is_dead(ed, i) || !pass_removable(ed, i))
		return;
	if (!ed->stack) {
		ed->stack = xreallocarray(NULL, 64, sizeof *ed->stack);
		ed->stacklen = 64;
	}
	ed->stack[top++] = i;
	while (top) {
		const HloInstr *in;

		x = ed->stack[--top];
		in = &cp->ins[x];
		if ((in->flags & HI_DEAD) || !pass_is_dead(ed, x) ||
		    !pass_removable(ed, x) || (x != i &&
		    pass_has_effect(m, in, ed->fx, ed->nfx)))
			continue;
		for (k = 0; k < in->nops; k++) {
			if ((d = pass_res(ed, m->ids[in->ops + k])) >= n)
				continue;
			if (top == ed->stacklen) {
				ed->stacklen *= 2;
				ed->stack = xreallocarray(ed->stack,
					ed->stacklen, sizeof *ed->stack);
			}
			ed->stack[top++] = d;
		}
		pass_remove(ed, x);
	}
}

static int
has_attr(const HloModule *m, const HloInstr *in, int key)
{
	return hlo_attr(m, in, key) != NULL;
}

int
pass_same_attr(const HloModule *m, const HloInstr *a, const HloInstr *b,
	int key)
{
	const HloAttr *x = hlo_attr(m, a, key), *y = hlo_attr(m, b, key);

	if (!x || !y)
		return !x && !y;
	return hlo_attr_equal(m, x, y);
}

void
pass_copy_attr(PassEdit *ed, uint32_t from, uint32_t to, int key)
{
	HloModule *m = ed->m;
	const HloAttr *a = hlo_attr(m, &m->comps[ed->c].ins[from], key);
	HloAttr v;

	if (!a)
		return;
	v = *a;
	hlo_attr_set(m, ed->c, to, &v);
}

static int
frontend_empty(const HloModule *m, const HloInstr *in)
{
	uint32_t n, i;
	const char *s = hlo_attr_word(m, in, A_FRONTEND_ATTRIBUTES, &n);

	if (!s)
		return 1;
	for (i = 0; i < n; i++)
		if (s[i] != '{' && s[i] != '}' && s[i] != ' ')
			return 0;
	return 1;
}

static void
copy_ctrl_from(PassEdit *ed, uint32_t from, uint32_t to)
{
	HloModule *m = ed->m;
	uint32_t k, n, *succ, npred = m->comps[ed->c].ins[from].nctrl;
	uint32_t *pred = pass_alloc(ed->ctx, (npred + 1) * sizeof *pred);

	memcpy(pred, m->ids + m->comps[ed->c].ins[from].ctrl, npred * 4u);
	for (k = 0; k < npred; k++)
		pass_add_ctrl(ed, pass_res(ed, pred[k]), to);
	pass_ctrl_succs(ed, from, &succ, &n);
	for (k = 0; k < n; k++)
		pass_add_ctrl(ed, to, succ[k]);
}

int
pass_replace(PassEdit *ed, uint32_t old, uint32_t new, int preserve_sharding,
	int relay_ctrl)
{
	HloModule *m = ed->m;
	uint32_t c = ed->c;
	HloInstr *o, *w;

	old = pass_res(ed, old);
	new = pass_res(ed, new);
	if (old == new)
		return 0;
	o = &m->comps[c].ins[old];
	w = &m->comps[c].ins[new];
	if (preserve_sharding && has_attr(m, o, A_SHARDING) &&
	    has_attr(m, w, A_SHARDING) && !pass_same_attr(m, o, w, A_SHARDING))
		return 0;
	if (relay_ctrl && ed->ctl[old]) {
		copy_ctrl_from(ed, old, new);
		pass_drop_ctrl(ed, old);
	} else if (ed->ctl[old]) {
		return 0;
	}
	o = &m->comps[c].ins[old];
	w = &m->comps[c].ins[new];
	if (!pass_metadata_has_op_name(m, w) &&
	    pass_metadata_has_op_name(m, o))
		pass_copy_attr(ed, old, new, A_METADATA);
	w = &m->comps[c].ins[new];
	if (frontend_empty(m, w) && has_attr(m, o, A_FRONTEND_ATTRIBUTES))
		pass_copy_attr(ed, old, new, A_FRONTEND_ATTRIBUTES);
	w = &m->comps[c].ins[new];
	if (has_attr(m, o, A_ORIGIN) && w->op != HOP_FUSION &&
	    hlo_shape_eq_nolayout(m, o->shape, w->shape))
		pass_copy_attr(ed, old, new, A_ORIGIN);
	w = &m->comps[c].ins[new];
	if (!has_attr(m, w, A_SHARDING))
		pass_copy_attr(ed, old, new, A_SHARDING);
	pass_replace_uses(ed, old, new);
	o = &m->comps[c].ins[old];
	w = &m->comps[c].ins[new];
	if (o->op == w->op && (o->op != HOP_GTE ||
	    hlo_attr_int(m, o, A_INDEX, -1) == hlo_attr_int(m, w, A_INDEX,
	    -2)) && (o->op != HOP_PARAMETER || o->num == w->num))
		w->name = o->name;
	pass_remove_cascade(ed, old);
	return 1;
}

void
pass_ctrl_succs(PassEdit *ed, uint32_t i, uint32_t **succ, uint32_t *n)
{
	HloModule *m = ed->m;
	HloComp *cp = &m->comps[ed->c];
	uint32_t j, k, cnt = 0;

	*succ = NULL;
	*n = 0;
	if (!(ed->ctl[i] & CTL_SUCC))
		return;
	for (j = 0; j < cp->nins; j++)
		if (!(cp->ins[j].flags & HI_DEAD))
			for (k = 0; k < cp->ins[j].nctrl; k++)
				if (pass_res(ed, m->ids[cp->ins[j].ctrl + k]) ==
				    i) {
					cnt++;
					break;
				}
	*succ = pass_alloc(ed->ctx, (cnt + 1) * sizeof **succ);
	for (j = 0; j < cp->nins; j++)
		if (!(cp->ins[j].flags & HI_DEAD))
			for (k = 0; k < cp->ins[j].nctrl; k++)
				if (pass_res(ed, m->ids[cp->ins[j].ctrl + k]) ==
				    i) {
					(*succ)[(*n)++] = j;
					break;
				}
}

void
pass_add_ctrl(PassEdit *ed, uint32_t from, uint32_t to)
{
	HloModule *m = ed->m;
	HloInstr *in = &m->comps[ed->c].ins[to];
	uint32_t k, n = in->nctrl, *v;

	if (from == to)
		return;
	for (k = 0; k < n; k++)
		if (pass_res(ed, m->ids[in->ctrl + k]) == from)
			return;
	v = pass_alloc(ed->ctx, (n + 1) * sizeof *v);
	memcpy(v, m->ids + in->ctrl, n * 4u);
	v[n] = from;
	hlo_set_ctrl(m, ed->c, to, n + 1, v);
	ed->ctl[to] |= CTL_PRED;
	ed->ctl[from] |= CTL_SUCC;
	ed->changed = 1;
}

void
pass_drop_ctrl(PassEdit *ed, uint32_t i)
{
	HloModule *m = ed->m;
	HloComp *cp = &m->comps[ed->c];
	uint32_t j, k, w;

	cp->ins[i].nctrl = 0;
	for (j = 0; j < cp->nins; j++) {
		HloInstr *in = &cp->ins[j];

		if ((in->flags & HI_DEAD) || !in->nctrl)
			continue;
		for (k = w = 0; k < in->nctrl; k++)
			if (pass_res(ed, m->ids[in->ctrl + k]) != i)
				m->ids[in->ctrl + w++] = m->ids[in->ctrl + k];
		in->nctrl = w;
	}
	recount(ed, 0);
	ed->changed = 1;
}

uint32_t
pass_copy_instr(HloModule *m, uint32_t dc, uint32_t sc, uint32_t si,
	uint32_t nops, const uint32_t *ops)
{
	HloInstr src = m->comps[sc].ins[si];
	HloAttr abuf[16], *attrs = abuf;
	uint32_t cbuf[16], *called = cbuf, j, name;

	if (src.nattrs > 16)
		attrs = xreallocarray(NULL, src.nattrs, sizeof *attrs);
	if (src.ncalled > 16)
		called = xreallocarray(NULL, src.ncalled, sizeof *called);
	memcpy(attrs, m->attrv + src.attrs, src.nattrs * sizeof *attrs);
	memcpy(called, m->ids + src.called, src.ncalled * 4u);
	name = hlo_fresh_name(m, hlo_cstr(m, src.name));
	j = hlo_instr_add(m, dc, src.op, src.shape, name, nops, ops);
	if (src.nattrs)
		hlo_set_attrs(m, dc, j, src.nattrs, attrs);
	if (src.ncalled)
		hlo_set_called(m, dc, j, src.ncalled, called);
	m->comps[dc].ins[j].num = src.num;
	m->comps[dc].ins[j].flags = src.flags & ~HI_DEAD;
	if (attrs != abuf)
		free(attrs);
	if (called != cbuf)
		free(called);
	return j;
}

/* the visiting loop */

void
pass_mark_ctrl(const HloModule *m, uint32_t b, uint8_t *ctl)
{
	const HloComp *cp = &m->comps[b];
	uint32_t i, k, n = cp->nins;

	for (i = 0; i < n; i++) {
		const HloInstr *in = &cp->ins[i];

		if (in->flags & HI_DEAD)
			continue;
		if (in->nctrl)
			ctl[i] = 1;
		for (k = 0; k < in->nctrl; k++)
			if (m->ids[in->ctrl + k] < n)
				ctl[m->ids[in->ctrl + k]] = 1;
	}
}

void
pass_count_calls(const HloModule *m, uint32_t *n)
{
	uint32_t c, i, k, d;

	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++) {
			const HloInstr *in = &m->comps[c].ins[i];

			if (in->flags & HI_DEAD)
				continue;
			for (k = 0; k < in->ncalled; k++)
				if ((d = m->ids[in->called + k]) < m->ncomps)
					n[d]++;
		}
}

uint8_t *
pass_skipped_comps(const HloModule *m, int composite)
{
	uint8_t *skip = xcalloc(m->ncomps + 1, 1);
	uint32_t c, i, k, d;

	for (c = 0; c < m->ncomps; c++) {
		const HloComp *cp = &m->comps[c];

		if (cp->flags & HC_FUSION)
			skip[c] = 1;
		for (i = 0; i < cp->nins; i++) {
			const HloInstr *in = &cp->ins[i];

			if (in->flags & HI_DEAD)
				continue;
			if (in->op != HOP_FUSION && !(composite &&
			    in->op == HOP_CALL &&
			    hlo_attr_int(m, in, A_IS_COMPOSITE, 0)))
				continue;
			for (k = 0; k < in->ncalled; k++)
				if ((d = m->ids[in->called + k]) < m->ncomps)
					skip[d] = 1;
		}
	}
	return skip;
}

static void
visit_instrs(HloModule *m, PassCtx *ctx, PassEdit *ed, const PassVisit *v)
{
	uint32_t c = ed->c, *order, cnt, i, x;

	order = pass_alloc(ctx, (m->comps[c].nins + 1) * sizeof *order);
	cnt = pass_post_order(m, c, order, ctx);
	for (i = 0; i < cnt; i++) {
		x = order[i];
		if ((m->comps[c].ins[x].flags & HI_DEAD) ||
		    (v->unforwarded && pass_res(ed, x) != x))
			continue;
		ctx->stats.rewrites += v->instr(ed, x, v->arg);
	}
}

int
pass_visit(HloModule *m, PassCtx *ctx, PassEdit *ed, const PassVisit *v)
{
	uint32_t k, c, n = v->comps ? v->ncomps : m->ncomps;
	uint8_t *fx = NULL, *skip = NULL;
	const uint8_t *skipped = v->skip;
	int changed = 0;

	if (v->effects && !v->fx) {
		fx = xmalloc(m->ncomps + 1);
		memcpy(fx, pass_comp_effects(m, ctx), m->ncomps);
	}
	if (!skipped && v->skips != PASS_SKIP_NONE)
		skipped = skip = pass_skipped_comps(m,
			v->skips == PASS_SKIP_FUSION_COMPOSITE);
	pass_reset(ctx);
	pass_edit_init(ed, m, ctx, fx ? fx : v->fx, fx ? m->ncomps : v->nfx);
	for (k = 0; k < n; k++) {
		c = v->comps ? v->comps[k] : k;
		if (skipped && skipped[c])
			continue;
		pass_edit_begin(ed, c);
		if (v->comp) {
			changed |= v->comp(ed, v->arg);
		} else {
			visit_instrs(m, ctx, ed, v);
			changed |= ed->changed;
		}
		if (pass_edit_end(ed) < 0) {
			changed = -1;
			break;
		}
		pass_reset(ctx);
	}
	pass_edit_free(ed);
	free(fx);
	free(skip);
	return changed;
}

static int
visit_with(HloModule *m, PassCtx *ctx, int flags,
	int (*comp)(PassEdit *ed, void *arg),
	int (*instr)(PassEdit *ed, uint32_t i, void *arg), void *arg)
{
	PassEdit ed;
	PassVisit v = {0};
	uint32_t *order = NULL;
	int n = 0, changed;

	if ((flags & PASS_VISIT_CALLEES_FIRST) &&
	    !(order = pass_comps_in_post_order(m, ctx, &n)))
		return -1;
	v.effects = (flags & PASS_VISIT_EFFECTS) != 0;
	v.skips = flags & 3;
	v.comps = order;
	v.ncomps = n;
	v.comp = comp;
	v.instr = instr;
	v.unforwarded = (flags & PASS_VISIT_UNFORWARDED) != 0;
	v.arg = arg;
	changed = pass_visit(m, ctx, &ed, &v);
	free(order);
	return changed;
}

int
pass_visit_comps(HloModule *m, PassCtx *ctx, int flags,
	int (*comp)(PassEdit *ed, void *arg), void *arg)
{
	return visit_with(m, ctx, flags, comp, NULL, arg);
}

int
pass_visit_instrs(HloModule *m, PassCtx *ctx, int flags,
	int (*instr)(PassEdit *ed, uint32_t i, void *arg), void *arg)
{
	return visit_with(m, ctx, flags, NULL, instr, arg);
}
