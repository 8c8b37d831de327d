/* algsimp_copy.c: xla's SwapCopyBitcastCopy for the algebraic simplifier
 * (layout-sensitive modules): copy(bitcast(copy(x))) becomes
 * copy(bitcast'(x)), the bitcast taking x's memory order directly, where
 * xla's dimension maps (ComputeBitcastDimMap, InvertBitcastDimMap,
 * ReshapeLayoutDimensions) find a layout for it; hlopt fires only where
 * it also proves that bitcast'(x) holds the values of bitcast(copy(x)). */
#include <stdlib.h>
#include <string.h>

#include "algsimp.h"

/* for each dimension of a shape, the dimensions of another shape it
 * maps to (xla's std::vector<std::vector<int64_t>>) */
typedef struct {
	int n;			/* dimensions */
	int *cnt;
	int64_t *v;		/* n rows of cap entries */
	int cap;
} DimMap;

static void
map_init(Alg *a, DimMap *m, int n, int cap)
{
	m->n = n;
	m->cap = cap > 0 ? cap : 1;
	m->cnt = alg_tmp(a, ((size_t)n + 1) * sizeof *m->cnt);
	memset(m->cnt, 0, ((size_t)n + 1) * sizeof *m->cnt);
	m->v = alg_tmp(a, ((size_t)n + 1) * (size_t)m->cap * 8);
}

static int
map_push(DimMap *m, int d, int64_t x)
{
	if (d < 0 || d >= m->n || m->cnt[d] >= m->cap)
		return 0;
	m->v[(size_t)d * m->cap + m->cnt[d]++] = x;
	return 1;
}

static int64_t
map_at(const DimMap *m, int d, int k)
{
	return m->v[(size_t)d * m->cap + k];
}

static const HloShape *
shp(Alg *a, uint32_t s)
{
	return &a->m->shapes[s];
}

static int64_t
m2m(Alg *a, uint32_t s, int k)
{
	const HloShape *h = shp(a, s);

	return h->flags & SH_LAYOUT ? hlo_m2m(a->m, h)[k] : h->rank - 1 - k;
}

static int64_t
dsz(Alg *a, uint32_t s, int64_t d)
{
	return hlo_dims(a->m, shp(a, s))[d];
}

/* xla's ComputeBitcastDimMap: for each dimension of shape os, the
 * dimensions of bs it becomes when bs is a bitcast of os; 0 when the
 * bitcast regroups dimensions other than by splitting or combining */
static int
bitcast_dim_map(Alg *a, uint32_t bs, uint32_t os, DimMap *out)
{
	int br = shp(a, bs)->rank, orank = shp(a, os)->rank, bp, op = -1;
	int64_t cb = 1, co = 1, od = -1, bd, bsz, prev;

	map_init(a, out, orank, br);
	for (bp = 0; bp < br; bp++) {
		bd = m2m(a, bs, bp);
		if (op >= orank) {
			if (dsz(a, bs, bd) != 1)
				return 0;
			continue;
		}
		bsz = dsz(a, bs, bd);
		prev = cb;
		cb *= bsz;
		if (co < cb && prev < co)
			return 0;	/* a group re-partitioned */
		while (op < orank) {
			if (op < 0 || co < cb) {
				int64_t osz;

				if (++op >= orank)
					return 0;
				od = m2m(a, os, op);
				osz = dsz(a, os, od);
				co *= osz;
				if (co > cb && osz < bsz && op > 0)
					return 0;
			}
			if (dsz(a, os, od) > 1 && !map_push(out, (int)od, bd))
				return 0;
			if (co >= cb) {
				if (dsz(a, os, od) == 1)
					op++;
				break;
			}
		}
	}
	return 1;
}

/* xla's InvertBitcastDimMap: for each dimension of bs, the dimensions of
 * os (minor to major) that map to it */
static void
invert_dim_map(Alg *a, uint32_t os, uint32_t bs, const DimMap *om,
	DimMap *out)
{
	int k, q, orank = shp(a, os)->rank;

	map_init(a, out, shp(a, bs)->rank, orank);
	for (k = 0; k < orank; k++) {
		int64_t j = m2m(a, os, k);

		for (q = 0; q < om->cnt[j]; q++)
			map_push(out, (int)map_at(om, (int)j, q), j);
	}
}

/* the check of ReshapeLayoutDimensions that the dimensions of the
 * original shape combined into result dimension bd are contiguous and in
 * the order of the result map */
static int
combined_in_order(Alg *a, uint32_t os, const DimMap *om, const DimMap *rm,
	int op, int64_t bd)
{
	int64_t od = m2m(a, os, op), prev;
	int k, n = rm->cnt[bd];

	if (n <= 1 || op == 0)
		return 1;
	prev = m2m(a, os, op - 1);
	if (map_at(rm, (int)bd, 0) != od &&
	    (om->cnt[prev] == 0 || map_at(om, (int)prev, 0) != bd))
		return 0;
	for (k = 0; k < n; k++)
		if (map_at(rm, (int)bd, k) == prev &&
		    (k == n - 1 || map_at(rm, (int)bd, k + 1) != od))
			return 0;
	return 1;
}

/* xla's ReshapeLayoutDimensions: the minor_to_major (into nl) of result
 * shape rs that follows the layout of original shape os through the
 * dimension maps; 0 if there is none */
static int
reshape_layout(Alg *a, uint32_t os, uint32_t rs, const DimMap *om,
	const DimMap *rm, int64_t *nl)
{
	int orank = shp(a, os)->rank, rr = shp(a, rs)->rank, op, k, bp = -1;

	for (k = 0; k < rr; k++)
		nl[k] = m2m(a, rs, k);
	for (op = 0; op < orank; op++) {
		int64_t od = m2m(a, os, op);

		for (k = 0; k < om->cnt[od]; k++) {
			int64_t bd = map_at(om, (int)od, k);

			if (bp < 0 || nl[bp] != bd) {
				if (++bp >= rr)
					return 0;
				if (dsz(a, rs, bd) == 1)
					continue;
				nl[bp] = bd;
			}
			if (!combined_in_order(a, os, om, rm, op, bd))
				return 0;
		}
	}
	for (k = 0; k < rr; k++)
		if (dsz(a, rs, k) == 1) {
			if (++bp >= rr)
				return 0;
			nl[bp] = k;
		}
	return bp + 1 == rr;
}

/* the logical map of a bitcast from shape `from` to shape `to` as atoms:
 * runs of memory where a digit of a dimension of `from` is a digit of a
 * dimension of `to` */
typedef struct {
	int64_t d, sd, e, se, n;	/* from dim and stride in it, to dim
					 * and stride, size */
} Atom;

static int
phys(Alg *a, uint32_t s, int64_t *dim)
{
	int k, n = 0, r = shp(a, s)->rank;

	for (k = 0; k < r; k++)
		if (dsz(a, s, m2m(a, s, k)) != 1)
			dim[n++] = m2m(a, s, k);
	return n;
}

static int
atom_cmp(const void *x, const void *y)
{
	const Atom *p = x, *q = y;

	if (p->d != q->d)
		return p->d < q->d ? -1 : 1;
	if (p->sd != q->sd)
		return p->sd < q->sd ? -1 : 1;
	return 0;
}

/* the atoms, merged where one continues the other and sorted; -1 when a
 * dimension's size does not divide the other side's */
static int
bitcast_atoms(Alg *a, uint32_t from, uint32_t to, Atom *at)
{
	int64_t fd[64], td[64], rf, rt, sf = 1, st = 1, s;
	int nf = phys(a, from, fd), nt = phys(a, to, td), i = 0, j = 0, n = 0;

	rf = nf ? dsz(a, from, fd[0]) : 1;
	rt = nt ? dsz(a, to, td[0]) : 1;
	while (i < nf && j < nt) {
		s = rf < rt ? rf : rt;
		if (rf % s || rt % s)
			return -1;
		if (n && at[n - 1].d == fd[i] && at[n - 1].e == td[j]) {
			at[n - 1].n *= s;
		} else {
			at[n].d = fd[i], at[n].sd = sf;
			at[n].e = td[j], at[n].se = st;
			at[n++].n = s;
		}
		rf /= s, rt /= s, sf *= s, st *= s;
		if (rf == 1 && ++i < nf)
			rf = dsz(a, from, fd[i]), sf = 1;
		if (rt == 1 && ++j < nt)
			rt = dsz(a, to, td[j]), st = 1;
	}
	if (i < nf || j < nt)
		return -1;
	qsort(at, (size_t)n, sizeof *at, atom_cmp);
	return n;
}

/* a bitcast from f1 to t1 and one from f2 to t2 (equal dimensions) map
 * every element to the same place */
static int
same_bitcast(Alg *a, uint32_t f1, uint32_t t1, uint32_t f2, uint32_t t2)
{
	Atom *x = alg_tmp(a, 130 * sizeof *x), *y = alg_tmp(a, 130 *
		sizeof *y);
	int n = bitcast_atoms(a, f1, t1, x), m = bitcast_atoms(a, f2, t2, y);

	return n >= 0 && n == m && !memcmp(x, y, (size_t)n * sizeof *x);
}

/* an array without tiles or memory space, of at most 64 dimensions */
static int
plain(Alg *a, uint32_t i)
{
	const HloShape *h = shp(a, INS(a, i)->shape);

	return h->type != TY_TUPLE && !h->tail && !h->dynmask && h->rank <= 64;
}

/* xla's SwapCopyBitcastCopy on copy i: copy(bitcast(bitcast*(copy(x))))
 * becomes copy(bitcast'(x)), bitcast' of the outer bitcast's dimensions
 * laid out by ReshapeLayoutDimensions. Untiled shapes only (xla's tile
 * checks are not needed then; with tiles it stays), and only where the
 * new bitcast provably reads the values the old chain gave */
int
alg_swap_copy_bitcast_copy(Alg *a, uint32_t i)
{
	uint32_t b = op0(a, i), c, x, ns;
	const HloShape *bs;
	DimMap om, rm;
	int64_t *nl, *bd;
	int r, t;

	if (!is_op(a, b, HOP_BITCAST) || !plain(a, i) || !plain(a, b))
		return 0;
	for (c = op0(a, b); is_op(a, c, HOP_BITCAST); c = op0(a, c))
		if (!plain(a, c) || ety(a, c) != ety(a, b))
			return 0;
	if (!is_op(a, c, HOP_COPY) || !plain(a, c) ||
	    !plain(a, x = op0(a, c)) || ety(a, c) != ety(a, b) ||
	    ety(a, x) != ety(a, c))
		return 0;
	if (!bitcast_dim_map(a, shape_of(a, b), shape_of(a, c), &om))
		return 0;
	invert_dim_map(a, shape_of(a, c), shape_of(a, b), &om, &rm);
	bs = shp(a, shape_of(a, b));
	r = bs->rank;
	t = bs->type;
	nl = alg_tmp(a, ((size_t)r + 1) * 8);
	bd = alg_tmp(a, ((size_t)r + 1) * 8);
	memcpy(bd, hlo_dims(a->m, bs), (size_t)r * 8);
	if (!reshape_layout(a, shape_of(a, x), shape_of(a, b), &om, &rm, nl))
		return 0;
	/* the dims are copied: hlo_shape may move the pools */
	ns = hlo_shape(a->m, t, r, bd, nl, 0, 0);
	if (!same_bitcast(a, shape_of(a, c), shape_of(a, b), shape_of(a, x),
	    ns))
		return 0;
	return alg_rep(a, i, alg_mk_un(a, HOP_COPY, shape_of(a, i),
		alg_mk_clone(a, b, ns, 1, &x)));
}
