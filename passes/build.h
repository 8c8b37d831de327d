/* build.h: building instructions (build.c), for the expander passes:
 * the one builder of new instructions, inside a computation a PassEdit
 * edits or inside a new computation (pass_b_fresh); constants,
 * broadcasts, elementwise and shape ops with the shape xla's shape
 * inference gives, and the OpExpanderPass driver. The PRNG bit mixing
 * (prng_build.h) and the linear-algebra blocks (linalg_build.h) are
 * built with these. */
#ifndef BUILD_H
#define BUILD_H

#include "pass.h"

void pass_b_fresh(PassEdit *ed, HloModule *m, uint32_t c);
				/* ed builds computation c, a new one an
				 * expander adds: nothing is forwarded or
				 * counted (pass_res is the identity), no
				 * pass_edit_free */
uint32_t pass_b_op(PassEdit *ed, int op, uint32_t shape, uint32_t nops,
	const uint32_t *ops);	/* fresh name after the opcode */
uint32_t pass_b_param(PassEdit *ed, int64_t num, uint32_t shape,
	uint32_t name);		/* parameter num named name (a string id) */
void pass_b_root(PassEdit *ed, uint32_t x);
				/* (set after x is built: adding instructions
				 * may move m->comps) */
int pass_b_dims(PassEdit *ed, uint32_t x, int64_t *d);
				/* rank of x, its dims copied into d */
uint32_t pass_b_plain(PassEdit *ed, uint32_t x, int type);
				/* x's shape without its layout, of element
				 * type type (XlaBuilder's result shapes) */
uint32_t pass_b_shape(PassEdit *ed, uint32_t x);	/* shape id of x */
int pass_b_type(PassEdit *ed, uint32_t x);	/* element type of x */
uint32_t pass_b_array(HloModule *m, int type, int rank, const int64_t *dims);
				/* no layout */
uint32_t pass_b_scalar(PassEdit *ed, int type, double v);
				/* constant; integers from (int64_t)v */
uint32_t pass_b_scalar_bits(PassEdit *ed, int type, uint64_t bits);
				/* constant from its bit pattern */
uint32_t pass_b_bcast(PassEdit *ed, uint32_t x, uint32_t shape,
	uint32_t ndims, const int64_t *dims);
uint32_t pass_b_like(PassEdit *ed, uint32_t x, double v);
				/* MakeScalarLike: v of x's type, broadcast to
				 * x's shape unless x is a scalar */
uint32_t pass_b_unary(PassEdit *ed, int op, uint32_t x);
uint32_t pass_b_binary(PassEdit *ed, int op, uint32_t a, uint32_t b);
				/* shape of a */
uint32_t pass_b_compare(PassEdit *ed, uint32_t a, uint32_t b,
	const char *dir);	/* pred of a's dims */
uint32_t pass_b_select(PassEdit *ed, uint32_t p, uint32_t a, uint32_t b);
uint32_t pass_b_convert(PassEdit *ed, uint32_t x, int type);
uint32_t pass_b_bitcast_convert(PassEdit *ed, uint32_t x, int type);
				/* these two keep x's layout */
uint32_t pass_b_xconvert(PassEdit *ed, int op, uint32_t x, int type);
				/* XlaBuilder's ConvertElementType (op
				 * HOP_CONVERT) or BitcastConvertType
				 * (HOP_BITCASTCVT): no layout */
uint32_t pass_b_broadcast(PassEdit *ed, uint32_t x, int n,
	const int64_t *sizes);	/* XlaBuilder's Broadcast: sizes
				 * prepended to x's dims */
uint32_t pass_b_reshape(PassEdit *ed, uint32_t x, int rank,
	const int64_t *dims);
uint32_t pass_b_transpose(PassEdit *ed, uint32_t x, int rank,
	const int64_t *perm);
uint32_t pass_b_slice(PassEdit *ed, uint32_t x, const int64_t *start,
	const int64_t *limit, const int64_t *stride);
				/* stride NULL: 1 */
uint32_t pass_b_concat(PassEdit *ed, uint32_t n, const uint32_t *xs,
	int64_t dim);
uint32_t pass_b_tuple(PassEdit *ed, uint32_t n, const uint32_t *xs);
uint32_t pass_b_set_attrs_like(PassEdit *ed, uint32_t dst, uint32_t src);
				/* copies src's attributes to dst; returns dst */

/* xla's OpExpanderPass: in every non-fusion computation, in post order,
 * each instruction match() accepts is replaced by what expand() returns
 * (HLO_NONE: left alone; the instruction itself: changed in place)
 * through ReplaceInstruction. Instructions with control dependencies are
 * left alone. Returns 1 changed, 0 not, -1 error. */
typedef int (*PassMatchFn)(PassEdit *ed, uint32_t i, void *arg);
typedef uint32_t (*PassExpandFn)(PassEdit *ed, uint32_t i, void *arg);
int pass_expand(HloModule *m, PassCtx *ctx, PassMatchFn match,
	PassExpandFn expand, void *arg);

/* the computations an expander built once per key of width words whose
 * first word is never 0 (open addressing, doubled at half full);
 * pass_expand_cached runs pass_expand with one as its arg */
typedef struct {
	uint32_t *key;
	uint32_t *comp;
	uint32_t cap, n, width;
} PassCache;

void pass_cache_init(PassCache *cc, uint32_t width);
void pass_cache_free(PassCache *cc);
uint32_t *pass_cache_slot(PassCache *cc, const uint32_t *k, int *fresh);
				/* the computation slot of key k; *fresh 1
				 * when k was not there (the caller fills the
				 * slot) */
int pass_expand_cached(HloModule *m, PassCtx *ctx, PassMatchFn match,
	PassExpandFn expand, uint32_t width);
uint32_t pass_b_call(PassEdit *ed, uint32_t comp, uint32_t shape,
	uint32_t nops, const uint32_t *ops);
				/* call(ops) of computation comp */

/* names and computations for expanders that add computations */
uint32_t pass_unique_name(HloModule *m, const char *base);
				/* base if unused, else base.1, base.2, ...
				 * (xla's module-wide uniquing) */
void pass_shape_name(HloModule *m, uint32_t s, HloBuf *out);
				/* appends ShapeUtil::ToString of s without
				 * layout, sanitized as NameUniquer does: a
				 * character other than a letter, digit, '_',
				 * '.' or '-' becomes '_' */
uint32_t pass_b_scalar_comp(HloModule *m, const char *name, int op,
	int type, const char *lhs, const char *rhs);
				/* a new computation (lhs, rhs) -> op(lhs,
				 * rhs) over scalars of type; returns its
				 * index */
uint32_t pass_b_reduce(PassEdit *ed, uint32_t x, uint32_t init,
	uint32_t shape, uint32_t ndims, const int64_t *dims, uint32_t comp);
				/* reduce(x, init), dimensions, to_apply */
uint32_t pass_b_iota(PassEdit *ed, uint32_t shape, int64_t dim);
uint32_t pass_b_gte(PassEdit *ed, uint32_t x, int64_t index);

/* topk_decomposer.c: xla's CreateScalarGtComputation (largest) or
 * CreateScalarLtComputation over (type) or (type, s32): a new
 * computation "compare-greater-than"/"compare-less-than" comparing
 * p.0.lhs with p.0.rhs (TOTALORDER for floats); returns its index */
uint32_t pass_b_topk_comparator(HloModule *m, int largest, int type,
	int values_only);

/* computations called as fusions (HC_FUSION or by a fusion): sized
 * m->ncomps, in scratch */
uint8_t *pass_fusion_comps(const HloModule *m, PassCtx *ctx);

#endif
