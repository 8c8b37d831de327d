/* eval_tile.c: bitcast through tiled layouts. A layout's tiling
 * (f32[16,256]{1,0:T(8,128)}) changes where each element lives in memory:
 * the minor dimensions are cut into tiles, tiles are stored one after
 * another and elements inside a tile row-major, each dimension padded up
 * to a multiple of its tile (xla's Tile, layout.h; further tiles, as in
 * T(8,128)(2,1), tile the result of the previous one). A bitcast
 * reinterprets that memory, so a copy that only changes tiling matters
 * before a bitcast; the evaluator computes it here, physical offset by
 * physical offset, whenever either side of a bitcast is tiled. */
#include <stdlib.h>
#include <string.h>

#include "hlo.h"
#include "eval.h"

#define MAXR 64		/* as eval_data.c */
#define MAXTILES 4
#define MAXTD 8			/* dimensions of one tile */
#define MAXPD (MAXR + MAXTILES * MAXTD)	/* dims once tiled */

typedef struct {
	int rank;		/* logical rank */
	int64_t dims[MAXR];	/* logical */
	int64_t perm[MAXR];	/* physical order, major first */
	int ntiles;
	int tn[MAXTILES];
	int64_t t[MAXTILES][MAXTD];
	int64_t total;		/* elements in memory, padding included */
} Phys;

/* the tiles of a layout tail "T(8,128)(2,1)S(1)"; 0 if none, -1 if the
 * tail has what this does not model (element size, combined dims) */
static int
tiles(const char *s, Phys *p)
{
	const char *q;
	char *e;
	int64_t v;

	p->ntiles = 0;
	for (q = s; *q; q++) {
		if (*q == 'E' && q[1] == '(')
			return -1;	/* sub-byte element packing */
		if (*q == 'T' && q[1] == '(')
			break;
	}
	if (!*q)
		return 0;
	q++;
	while (*q == '(') {
		if (p->ntiles == MAXTILES)
			return -1;
		p->tn[p->ntiles] = 0;
		q++;
		for (;;) {
			v = strtoll(q, &e, 10);
			if (e == q || v <= 0 || p->tn[p->ntiles] == MAXTD)
				return -1;
			p->t[p->ntiles][p->tn[p->ntiles]++] = v;
			q = e;
			if (*q == ',') {
				q++;
				continue;
			}
			if (*q != ')')
				return -1;
			q++;
			break;
		}
		p->ntiles++;
	}
	return p->ntiles;
}

/* the dims and index after tiling: index x (logical) to a linear
 * physical offset; with x NULL only the total */
static int64_t
offset(const Phys *p, const int64_t *x)
{
	int64_t cd[MAXPD], ci[MAXPD], nd[MAXPD], ni[MAXPD], off = 0;
	int n = p->rank, k, j, b, m;

	for (k = 0; k < n; k++) {
		cd[k] = p->dims[p->perm[k]];
		ci[k] = x ? x[p->perm[k]] : 0;
	}
	for (j = 0; j < p->ntiles; j++) {
		m = p->tn[j];
		b = n - m;
		memcpy(nd, cd, b * sizeof *nd);
		memcpy(ni, ci, b * sizeof *ni);
		for (k = 0; k < m; k++) {
			nd[b + k] = (cd[b + k] + p->t[j][k] - 1) / p->t[j][k];
			ni[b + k] = ci[b + k] / p->t[j][k];
			nd[n + k] = p->t[j][k];
			ni[n + k] = ci[b + k] % p->t[j][k];
		}
		n += m;
		memcpy(cd, nd, n * sizeof *cd);
		memcpy(ci, ni, n * sizeof *ci);
	}
	if (!x) {
		for (k = 0, off = 1; k < n; k++)
			off *= cd[k];
		return off;
	}
	for (k = 0; k < n; k++)
		off = off * cd[k] + ci[k];
	return off;
}

/* the physical description of an array shape; -1 if not modelled */
static int
phys(const HloModule *m, uint32_t shape, Phys *p)
{
	const HloShape *sh = hlo_sh(m, shape);
	int d, n;

	if (sh->type >= TY_TUPLE || sh->rank > MAXR)
		return -1;
	p->rank = sh->rank;
	for (d = 0; d < sh->rank; d++) {
		p->dims[d] = hlo_dims(m, sh)[d];
		p->perm[d] = (sh->flags & SH_LAYOUT) ?
			hlo_m2m(m, sh)[sh->rank - 1 - d] : d;
	}
	p->ntiles = 0;
	if (sh->tail && tiles(hlo_cstr(m, sh->tail), p) < 0)
		return -1;
	for (n = p->rank, d = 0; d < p->ntiles; n += p->tn[d], d++)
		if (p->tn[d] > n || n + p->tn[d] > MAXPD)
			return -1;
	p->total = offset(p, NULL);
	return 0;
}

int
ev_tiled(const HloModule *m, uint32_t shape)
{
	const HloShape *sh = hlo_sh(m, shape);
	const char *s;

	if (!sh->tail || sh->type >= TY_TUPLE)
		return 0;
	for (s = hlo_cstr(m, sh->tail); *s; s++)
		if ((*s == 'T' || *s == 'E') && s[1] == '(')
			return 1;
	return 0;
}

int
ev_bitcast_tiled(HloEval *ev, uint32_t c, uint32_t i, HloVal *a,
	HloVal **out)
{
	const HloInstr *in = hlo_ins(ev->m, c, i);
	uint32_t as = hlo_ins(ev->m, c, hlo_ops(ev->m, in)[0])->shape;
	Phys pi, po;
	int64_t x[MAXR], esz = ev_esz(a->type), k, n;
	unsigned char *mem;
	HloVal *v;

	/* the operand's layout as its instruction declares it */
	if (a->type >= TY_TUPLE || phys(ev->m, as, &pi) < 0 ||
	    phys(ev->m, in->shape, &po) < 0)
		return ev_unsupported(ev, c, i, "a tiling hlopt does not model");
	if (pi.total != po.total ||
	    esz != ev_esz(hlo_sh(ev->m, in->shape)->type))
		return ev_unsupported(ev, c, i, "physical sizes differ");
	mem = calloc(pi.total ? pi.total : 1, esz);
	if (!mem)
		return ev_fail(ev, EV_NOEVAL, "not evaluable: out of memory");
	memset(x, 0, sizeof x);
	n = a->n;
	for (k = 0; k < n; k++) {
		memcpy(mem + offset(&pi, x) * esz, a->data + k * esz, esz);
		hlo_index_next(x, pi.dims, pi.rank);
	}
	v = hlo_val_array(ev, in->shape);
	if (!v) {
		free(mem);
		return -1;
	}
	memset(x, 0, sizeof x);
	for (k = 0; k < v->n; k++) {
		memcpy(v->data + k * esz, mem + offset(&po, x) * esz, esz);
		hlo_index_next(x, po.dims, po.rank);
	}
	free(mem);
	*out = v;
	return 0;
}
