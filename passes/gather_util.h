/* gather_util.h: what gather_expander.c and gather_simplifier.c share: a
 * gather's dimension numbers read into one struct, and the builders of
 * xla's hlo_creation_utils they both use (on top of build.h). */
#ifndef GATHER_UTIL_H
#define GATHER_UTIL_H

#include "build.h"

#define GU_MAXR 32		/* ranks above this are left alone */

typedef struct {
	uint32_t operand, indices;	/* operand ids, read through pass_res */
	int otype, itype, type;	/* element types: operand, indices, result */
	int orank, irank, rank;	/* operand, indices, result ranks */
	int64_t odims[GU_MAXR], idims[GU_MAXR], dims[GU_MAXR];
	int64_t off[GU_MAXR], col[GU_MAXR], sim[GU_MAXR];
	int64_t obd[GU_MAXR], sibd[GU_MAXR], ss[GU_MAXR];
	uint32_t noff, ncol, nsim, nobd, nsibd, nss;
	int64_t ivd;		/* index_vector_dim */
	int sorted;		/* indices_are_sorted */
} GuGather;

int gu_load(PassEdit *ed, uint32_t i, GuGather *g);
				/* 0, or -1 when i is not a gather this
				 * code can read (ranks, missing fields) */
int64_t gu_trip_count(const GuGather *g);
				/* product of the indices dims but the
				 * index vector dim; -1 past INT64_MAX */
int gu_is_broadcast(const GuGather *g);
				/* slice_sizes equal the operand's dims */
static inline int
gu_has(const int64_t *v, uint32_t n, int64_t x)
{
	return hlo_ints_has(v, n, x);
}

uint32_t gu_const_zeros(PassEdit *ed, int type, int64_t n);
				/* TYPE[n] constant of zeros (n is 0 or 1) */
uint32_t gu_reshape(PassEdit *ed, uint32_t x, int rank, const int64_t *dims);
uint32_t gu_elide(PassEdit *ed, uint32_t x, const int64_t *drop,
	uint32_t ndrop);	/* ElideDegenerateDims: a reshape without
				 * the dims listed */
uint32_t gu_prepend1(PassEdit *ed, uint32_t x);
				/* PrependDegenerateDims(x, 1) */
uint32_t gu_collapse_first(PassEdit *ed, uint32_t x, int n);
				/* CollapseFirstNDims */
uint32_t gu_expand_first(PassEdit *ed, uint32_t x, int n,
	const int64_t *dims);	/* ExpandFirstDimIntoNDims */
uint32_t gu_transpose(PassEdit *ed, uint32_t x, const int64_t *perm);
				/* MakeTransposeHlo: always a transpose */
uint32_t gu_maybe_transpose(PassEdit *ed, uint32_t x, const int64_t *perm);
				/* MaybeTranspose: x itself for the
				 * identity, else a transpose with the
				 * default layout */
void gu_copy_meta(PassEdit *ed, uint32_t dst, uint32_t src, int fe);
				/* the metadata of src onto dst, with fe
				 * also its frontend attributes (as
				 * SetupDerivedInstruction) */

#endif
