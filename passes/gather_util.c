/* gather_util.c: a gather's dimension numbers and the shape builders of
 * xla's hlo_creation_utils.cc and gather_scatter_utils.cc that the gather
 * passes use (gather_util.h). Every builder adds instructions to the
 * computation ed edits; none folds an identity away unless it says so,
 * as xla's do not. */
#include <stdint.h>
#include <string.h>

#include "gather_util.h"

/* attribute key of ins into dst (at most GU_MAXR); -1 if too long */
static int
getlist(const HloModule *m, const HloInstr *in, int key, int64_t *dst,
	uint32_t *n)
{
	return pass_attr_list_copy(m, in, key, GU_MAXR, dst, n);
}

static int
getdims(const HloModule *m, uint32_t shape, int *type, int *rank,
	int64_t *dims)
{
	const HloShape *sh = hlo_sh(m, shape);

	if (sh->type == TY_TUPLE || sh->type == TY_TOKEN ||
	    sh->rank > GU_MAXR || sh->dynmask)
		return -1;
	*type = sh->type;
	*rank = sh->rank;
	if (sh->rank)
		memcpy(dims, hlo_dims(m, sh), sh->rank * sizeof *dims);
	return 0;
}

int
gu_load(PassEdit *ed, uint32_t i, GuGather *g)
{
	HloModule *m = ed->m;
	const HloInstr *in = pass_ins(ed, i);

	memset(g, 0, sizeof *g);
	if (in->op != HOP_GATHER || in->nops != 2 ||
	    !hlo_attr(m, in, A_INDEX_VECTOR_DIM) ||
	    !hlo_attr(m, in, A_SLICE_SIZES))
		return -1;
	g->operand = pass_opnd(ed, i, 0);
	g->indices = pass_opnd(ed, i, 1);
	g->ivd = hlo_attr_int(m, in, A_INDEX_VECTOR_DIM, 0);
	g->sorted = hlo_attr_int(m, in, A_INDICES_ARE_SORTED, 0) != 0;
	if (getlist(m, in, A_OFFSET_DIMS, g->off, &g->noff) < 0 ||
	    getlist(m, in, A_COLLAPSED_SLICE_DIMS, g->col, &g->ncol) < 0 ||
	    getlist(m, in, A_START_INDEX_MAP, g->sim, &g->nsim) < 0 ||
	    getlist(m, in, A_OPERAND_BATCHING_DIMS, g->obd, &g->nobd) < 0 ||
	    getlist(m, in, A_START_INDICES_BATCHING_DIMS, g->sibd,
	    &g->nsibd) < 0 ||
	    getlist(m, in, A_SLICE_SIZES, g->ss, &g->nss) < 0)
		return -1;
	if (getdims(m, in->shape, &g->type, &g->rank, g->dims) < 0 ||
	    getdims(m, pass_ins(ed, g->operand)->shape, &g->otype, &g->orank,
	    g->odims) < 0 ||
	    getdims(m, pass_ins(ed, g->indices)->shape, &g->itype, &g->irank,
	    g->idims) < 0)
		return -1;
	if (g->nss != (uint32_t)g->orank || g->ivd < 0 || g->ivd > g->irank)
		return -1;
	return 0;
}

int64_t
gu_trip_count(const GuGather *g)
{
	int64_t n = 1;
	int k;

	for (k = 0; k < g->irank; k++) {
		if (k == g->ivd)
			continue;
		if (g->idims[k] && n > INT64_MAX / g->idims[k])
			return -1;
		n *= g->idims[k];
	}
	return n;
}

int
gu_is_broadcast(const GuGather *g)
{
	return !memcmp(g->ss, g->odims, g->orank * sizeof *g->ss);
}

uint32_t
gu_const_zeros(PassEdit *ed, int type, int64_t n)
{
	HloModule *m = ed->m;
	unsigned char buf[16];
	uint32_t i;
	HloAttr a;

	memset(buf, 0, sizeof buf);
	a = hlo_mk_bytes(m, A_LITERAL, K_LITERAL, buf, n ?
		(uint32_t)hlo_type_bytes(type) : 0);
	i = pass_b_op(ed, HOP_CONSTANT, pass_b_array(m, type, 1, &n), 0, NULL);
	hlo_set_attrs(m, ed->c, i, 1, &a);
	return i;
}

uint32_t
gu_reshape(PassEdit *ed, uint32_t x, int rank, const int64_t *dims)
{
	return pass_b_reshape(ed, x, rank, dims);
}

uint32_t
gu_elide(PassEdit *ed, uint32_t x, const int64_t *drop, uint32_t ndrop)
{
	const HloShape *sh = hlo_sh(ed->m, pass_b_shape(ed, x));
	const int64_t *xd = hlo_dims(ed->m, sh);
	int64_t d[GU_MAXR];
	int k, n = 0;

	for (k = 0; k < sh->rank && k < GU_MAXR; k++)
		if (!gu_has(drop, ndrop, k))
			d[n++] = xd[k];
	return pass_b_reshape(ed, x, n, d);
}

uint32_t
gu_prepend1(PassEdit *ed, uint32_t x)
{
	const HloShape *sh = hlo_sh(ed->m, pass_b_shape(ed, x));
	int64_t d[GU_MAXR + 1];
	int k, r = sh->rank < GU_MAXR ? sh->rank : GU_MAXR;

	d[0] = 1;
	for (k = 0; k < r; k++)
		d[k + 1] = hlo_dims(ed->m, sh)[k];
	return pass_b_reshape(ed, x, r + 1, d);
}

uint32_t
gu_collapse_first(PassEdit *ed, uint32_t x, int n)
{
	const HloShape *sh = hlo_sh(ed->m, pass_b_shape(ed, x));
	const int64_t *xd = hlo_dims(ed->m, sh);
	int64_t d[GU_MAXR], lead = 1;
	int k, r = 1;

	for (k = 0; k < n; k++)
		lead *= xd[k];
	d[0] = lead;
	for (k = n; k < sh->rank && r < GU_MAXR; k++)
		d[r++] = xd[k];
	return pass_b_reshape(ed, x, r, d);
}

uint32_t
gu_expand_first(PassEdit *ed, uint32_t x, int n, const int64_t *dims)
{
	const HloShape *sh = hlo_sh(ed->m, pass_b_shape(ed, x));
	const int64_t *xd = hlo_dims(ed->m, sh);
	int64_t d[2 * GU_MAXR];
	int k, r = 0;

	for (k = 0; k < n; k++)
		d[r++] = dims[k];
	for (k = 1; k < sh->rank; k++)
		d[r++] = xd[k];
	return pass_b_reshape(ed, x, r, d);
}

uint32_t
gu_transpose(PassEdit *ed, uint32_t x, const int64_t *perm)
{
	return pass_b_transpose(ed, x, hlo_sh(ed->m, pass_b_shape(ed,
		x))->rank, perm);
}

uint32_t
gu_maybe_transpose(PassEdit *ed, uint32_t x, const int64_t *perm)
{
	int k, r = hlo_sh(ed->m, pass_b_shape(ed, x))->rank;

	for (k = 0; k < r; k++)
		if (perm[k] != k)
			return gu_transpose(ed, x, perm);
	return x;
}

void
gu_copy_meta(PassEdit *ed, uint32_t dst, uint32_t src, int fe)
{
	HloModule *m = ed->m;
	static const int keys[] = {A_METADATA, A_FRONTEND_ATTRIBUTES};
	const HloAttr *a;
	HloAttr c;
	size_t k;

	for (k = 0; k < (fe ? 2u : 1u); k++) {
		a = hlo_attr(m, pass_ins(ed, src), keys[k]);
		if (!a)
			continue;
		c = *a;
		hlo_attr_set(m, ed->c, dst, &c);
	}
}
