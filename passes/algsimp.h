/* algsimp.h: the inside of the algebraic simplifier (passes/algsimp*.c),
 * xla's AlgebraicSimplifier with XLA:CPU's options; layout-sensitive
 * (is_layout_sensitive) in a module with a bitcast, where layouts are
 * meaningful (pass_layout_sensitive), else layout-insensitive.
 *
 * The visitor walks one computation depth first from its dead roots and
 * its root, as xla's HloComputation::Accept does, and hands each
 * instruction to the handler of its opcode. Handlers read operands
 * through opnd (replacements are forwarded lazily by PassEdit), build new
 * instructions with the mk* helpers and replace with rep / rep_compat,
 * which have the semantics of xla's ReplaceInstruction (uses, root,
 * metadata, and the dead operand cone removed). */
#ifndef ALGSIMP_H
#define ALGSIMP_H

#include "pass.h"

/* AlgebraicSimplifierOptions (algsimp.c: as XLA:CPU sets them, and xla's
 * defaults) */
typedef struct {
	int fast_math;		/* enable_fast_math */
	int minmax_nan;		/* minmax_propagate_nan */
	int dot_strength;	/* enable_dot_strength_reduction */
	int dot_to_mul;		/* enable_dot_to_multiply_rewrite */
	int non_canonical;	/* supports_non_canonical_dots */
	int cpu;		/* executing_on_cpu */
	int sink_bcast;		/* enable_sink_broadcast */
	int bcast_degenerate;	/* enable_broadcast_degenerate_dimension */
	int reduce_of_reshape;	/* enable_reduce_of_reshape */
	int reduce_concat;	/* unconditional reduce-of-concat */
	int window_to_reduce;	/* enable_window_reduce_to_reduce_replacement */
	int neg_pad;		/* enable_negative_padding_replacement */
	int conv_swap;		/* enable_conv_operand_swap */
	int move_dot_param;	/* enable_move_dot_param_to_rhs */
	int conv_add_mul;	/* enable_conv_add_multiply_reorder */
	int assoc_reorder;	/* use_associative_reordering */
	double assoc_threshold;	/* associative_reordering_threshold */
	int raise_slice_reduce;	/* raise_slice_and_reduce_through_dot */
	double raise_threshold;	/* raise_slice_and_reduce_through_dot_
				 * threshold */
	int fold_conv_pad;	/* folding pad into convolution */
	int dus_to_pad;		/* dynamic-update-slice to pad */
	int reshape_transpose_concat;	/* rewrite_reshape_transpose_as_
				 * slice_concatenate */
	int uncond_reduce_tr;	/* unconditionally_simplify_reduce_of_
				 * transpose_or_reshape */
	int64_t small_gather;	/* very_small_gather_size */
	int max_runs;		/* kAlgSimpRerunLimit */
	int64_t limit;		/* stop after this many rewrites, -1: never
				 * (to find the rewrite that breaks a test) */
} AlgOpts;

typedef struct {
	HloModule *m;
	PassCtx *ctx;
	PassEdit ed;
	uint32_t c;		/* the computation being simplified */
	const AlgOpts *o;
	int lay;		/* layout-sensitive: shapes compared with
				 * layouts, replacements keep the layout */
	int changed;		/* this sweep changed something */
	uint32_t fresh;		/* instructions from here on were added
				 * by this sweep */
	int64_t nrw;		/* rewrites done */
	int uvalid;		/* the user tables below are built */
	uint8_t *fx;		/* pass_comp_effects */
	/* per instruction of c, grown as instructions are added */
	uint32_t cap;
	uint8_t *state;		/* visit: 0 new, 1 expanded, 2 visited */
	uint32_t *xhead, *xtail;	/* users added since the sweep began */
	uint32_t *gnext, *glast;	/* instructions forwarded into this one */
	uint32_t *mark;
	uint32_t epoch;
	/* users when the sweep began: ulist[ustart[i] .. ustart[i+1]) */
	uint32_t n0;
	uint32_t *ustart, *ulist;
	uint32_t capu0, capul;
	/* the pool behind xhead */
	uint32_t *xuser, *xnext;
	uint32_t nx, capx;
	/* scratch */
	uint32_t *stack;
	uint32_t capstack;
	uint32_t *ubuf;
	uint32_t capubuf;
	uint32_t *fill, *roots;
	uint32_t capfill, caproots;
	PassArena tmp;		/* alg_tmp */
} Alg;

/* accessors; pointers are valid until the next instruction is added */
#define INS(a, i) (&(a)->m->comps[(a)->c].ins[i])
#define SH(a, i) (&(a)->m->shapes[INS(a, i)->shape])

static inline uint32_t
res(Alg *a, uint32_t x)
{
	return x < a->ed.cap && a->ed.fwd[x] != x ? pass_res(&a->ed, x) : x;
}

static inline uint32_t
opnd(Alg *a, uint32_t i, uint32_t k)
{
	return res(a, a->m->ids[INS(a, i)->ops + k]);
}

static inline int
opc(Alg *a, uint32_t i)
{
	return INS(a, i)->op;
}

static inline uint32_t
op0(Alg *a, uint32_t i)
{
	return opnd(a, i, 0);
}

static inline uint32_t
op1(Alg *a, uint32_t i)
{
	return opnd(a, i, 1);
}

static inline int
is_op(Alg *a, uint32_t i, int op)
{
	return opc(a, i) == op;
}

static inline uint32_t
shape_of(Alg *a, uint32_t i)
{
	return INS(a, i)->shape;
}

static inline uint32_t
called(Alg *a, uint32_t i)		/* the first called computation */
{
	return INS(a, i)->ncalled ? a->m->ids[INS(a, i)->called] : HLO_NONE;
}

static inline uint32_t
nops(Alg *a, uint32_t i)
{
	return INS(a, i)->nops;
}

static inline int
ety(Alg *a, uint32_t i)			/* element type */
{
	return SH(a, i)->type;
}

static inline int
is_tuple(Alg *a, uint32_t i)
{
	return SH(a, i)->type == TY_TUPLE;
}

static inline int
rank(Alg *a, uint32_t i)
{
	return SH(a, i)->type == TY_TUPLE ? 0 : SH(a, i)->rank;
}

static inline int64_t
dim(Alg *a, uint32_t i, int d)
{
	return a->m->ints[SH(a, i)->dims + d];
}

static inline const int64_t *
dims(Alg *a, uint32_t i)
{
	return a->m->ints + SH(a, i)->dims;
}

uint64_t alg_bits_at(const unsigned char *p, int n);
				/* the little-endian bits of an n-byte
				 * element (at most 8 bytes) */
int64_t alg_int_at(int t, const unsigned char *p);
				/* an integer or pred element of type t,
				 * sign-extended */
int64_t alg_elems(Alg *a, uint32_t i);	/* -1 for tuples and overflow */
int alg_same_shape(Alg *a, uint32_t x, uint32_t y);	/* SameShape: layout
				 * ignored unless a->lay */
int alg_same_shape_id(Alg *a, uint32_t s, uint32_t t);
int alg_is_scalar(Alg *a, uint32_t i);	/* rank 0 array */
int alg_is_eff_scalar(Alg *a, uint32_t i);	/* array of one element */
int alg_is_zero_elems(Alg *a, uint32_t i);	/* array with no elements */
const int64_t *alg_ints_attr(Alg *a, uint32_t i, int key, uint32_t *n);
int64_t *alg_ints_copy(Alg *a, uint32_t i, int key, uint32_t *n);
				/* a scratch copy; n 0 if absent */
int64_t alg_int_attr(Alg *a, uint32_t i, int key, int64_t dflt);
int alg_ctl(Alg *a, uint32_t i);		/* has control dependencies */
int alg_has_effect(Alg *a, uint32_t i);

/* type classes */
int alg_t_int(int t);			/* integral, pred excluded */
int alg_t_sint(int t);
int alg_t_uint(int t);
int alg_t_float(int t);
int alg_t_cplx(int t);
int alg_t_bits(int t);

/* users */
uint32_t alg_users(Alg *a, uint32_t x, uint32_t **out);
				/* distinct live users, in a buffer valid
				 * until the next call */
uint32_t alg_nusers(Alg *a, uint32_t x, uint32_t limit);
				/* distinct users, counting stops at limit */
int alg_one_use(Alg *a, uint32_t x);	/* m::WithOneUse */
int alg_one_user(Alg *a, uint32_t x);	/* m::WithOneUser, user_count()==1 */

/* literals */
const unsigned char *alg_lit(Alg *a, uint32_t i, uint32_t *nbytes);
				/* constant's bytes, NULL if elided */
int alg_is_const(Alg *a, uint32_t i);
int alg_is_all(Alg *a, uint32_t i, int v);	/* xla's IsAll(op, int8) through
				 * broadcasts */
int alg_is_all_float(Alg *a, uint32_t i, double v);
int alg_is_all_zero(Alg *a, uint32_t i, int neg);	/* every element +0
				 * (neg: -0), through broadcasts */
int alg_is_all_min(Alg *a, uint32_t i, int type);
int alg_is_all_max(Alg *a, uint32_t i, int type);
int alg_const_value(Alg *a, uint32_t i, double *v);
				/* GetConstantValue: effective scalar float
				 * or integer constant */
int alg_const_int(Alg *a, uint32_t i, int64_t *v);
				/* first element of an integer constant */
int alg_const_first(Alg *a, uint32_t i, int64_t *v);
				/* first element of an integer constant,
				 * the bits of u64 kept */
int alg_const_scalar_is(Alg *a, uint32_t i, int eff, int v);
				/* m::ConstantScalar(v) / effective scalar */
int alg_scalar_zero(Alg *a, uint32_t i);	/* IsScalarConstantZero */
int alg_scalar_inf(Alg *a, uint32_t i, int neg);

/* shapes */
uint32_t alg_shp(Alg *a, int type, int rank, const int64_t *dims,
	uint32_t like);			/* array shape; a default layout if
					 * like (a shape id) has one */
uint32_t alg_shp_type(Alg *a, uint32_t s, int type);
uint32_t alg_shp_scalar(Alg *a, int type);

/* building; operands must be resolved ids; the result is resolved */
uint32_t alg_mk(Alg *a, int op, uint32_t shape, uint32_t n, const uint32_t *ops);
uint32_t alg_mk_un(Alg *a, int op, uint32_t shape, uint32_t x);
uint32_t alg_mk_bin(Alg *a, int op, uint32_t shape, uint32_t x, uint32_t y);
uint32_t alg_mk_bin_infer(Alg *a, int op, uint32_t x, uint32_t y);
				/* MakeBinaryHlo: shape from x, or pred for
				 * compare */
uint32_t alg_mk_tern(Alg *a, int op, uint32_t shape, uint32_t x, uint32_t y,
	uint32_t z);
uint32_t alg_mk_const(Alg *a, uint32_t shape, const void *bytes, uint32_t n);
uint32_t alg_mk_scalar(Alg *a, int type, double v);
uint32_t alg_mk_scalar_i(Alg *a, int type, int64_t v);
uint32_t alg_scalar_like(Alg *a, uint32_t like, double v);
				/* MakeScalarLike: constant, broadcast to
				 * like's shape unless scalar */
uint32_t alg_scalar_like_i(Alg *a, uint32_t like, int64_t v);
uint32_t alg_mk_bcast(Alg *a, uint32_t shape, uint32_t x, const int64_t *d,
	uint32_t nd);
uint32_t alg_mk_reshape(Alg *a, uint32_t shape, uint32_t x);
uint32_t alg_mk_transpose(Alg *a, uint32_t shape, uint32_t x,
	const int64_t *perm);
uint32_t alg_mk_transpose_infer(Alg *a, uint32_t x, const int64_t *perm);
uint32_t alg_mk_slice(Alg *a, uint32_t shape, uint32_t x, const int64_t *start,
	const int64_t *limit, const int64_t *stride);
uint32_t alg_mk_slice_infer(Alg *a, uint32_t x, const int64_t *start,
	const int64_t *limit, const int64_t *stride);
uint32_t alg_mk_pad(Alg *a, uint32_t shape, uint32_t x, uint32_t v,
	const int64_t *cfg);		/* cfg: rank (low, high, interior) */
uint32_t alg_mk_pad_infer(Alg *a, uint32_t x, uint32_t v, const int64_t *cfg);
uint32_t alg_mk_concat(Alg *a, uint32_t shape, uint32_t n, const uint32_t *ops,
	int64_t dim);
uint32_t alg_mk_concat_infer(Alg *a, uint32_t n, const uint32_t *ops,
	int64_t dim);
uint32_t alg_mk_compare(Alg *a, uint32_t shape, uint32_t x, uint32_t y,
	const char *dir);
uint32_t alg_mk_iota(Alg *a, uint32_t shape, int64_t d);
uint32_t alg_mk_convert(Alg *a, uint32_t shape, uint32_t x);
uint32_t alg_mk_reverse(Alg *a, uint32_t x, const int64_t *d, uint32_t nd);
uint32_t alg_mk_reduce(Alg *a, uint32_t shape, uint32_t x, uint32_t init,
	const int64_t *d, uint32_t nd, uint32_t comp);
uint32_t alg_mk_gte(Alg *a, uint32_t x, int64_t index);
uint32_t alg_mk_tuple(Alg *a, uint32_t n, const uint32_t *ops);
uint32_t alg_mk_clone(Alg *a, uint32_t i, uint32_t shape, uint32_t n,
	const uint32_t *ops);		/* CloneWithNewOperands */
uint32_t alg_mk_dynslice(Alg *a, uint32_t shape, uint32_t x, uint32_t nidx,
	const uint32_t *idx, const int64_t *sizes);
uint32_t alg_mk_dus(Alg *a, uint32_t shape, uint32_t x, uint32_t upd,
	uint32_t nidx, const uint32_t *idx);
void alg_set_ints(Alg *a, uint32_t i, int key, const int64_t *v, uint32_t n);
void alg_set_word(Alg *a, uint32_t i, int key, const char *w);
void alg_swap_precision(Alg *a, uint32_t i);	/* operand_precision={a,b}
				 * becomes {b,a} */

/* rewriting: 1 when done */
int alg_rep(Alg *a, uint32_t old, uint32_t new);	/* ReplaceInstruction */
int alg_rep_compat(Alg *a, uint32_t old, uint32_t new);
				/* ReplaceInstructionIfCompatible */
void alg_rep_uses(Alg *a, uint32_t old, uint32_t new);
				/* ReplaceAllUsesWith, nothing removed */
void alg_set_opnd(Alg *a, uint32_t i, uint32_t k, uint32_t x);
				/* ReplaceOperandWith */
void alg_mark_changed(Alg *a);

/* handlers: algsimp_elem.c, algsimp_shape.c, algsimp_misc.c */
int alg_h_abs(Alg *a, uint32_t i);
int alg_h_add(Alg *a, uint32_t i);
int alg_h_and_or(Alg *a, uint32_t i, int is_and);
int alg_h_xor(Alg *a, uint32_t i);
int alg_h_not(Alg *a, uint32_t i);
int alg_h_negate(Alg *a, uint32_t i);
int alg_h_subtract(Alg *a, uint32_t i);
int alg_h_multiply(Alg *a, uint32_t i);
int alg_h_divide(Alg *a, uint32_t i);
int alg_h_remainder(Alg *a, uint32_t i);
int alg_h_compare(Alg *a, uint32_t i);
int alg_h_select(Alg *a, uint32_t i);
int alg_h_maximum(Alg *a, uint32_t i);
int alg_h_minimum(Alg *a, uint32_t i);
int alg_h_clamp(Alg *a, uint32_t i);
int alg_h_power(Alg *a, uint32_t i);
int alg_h_exp(Alg *a, uint32_t i);
int alg_h_log(Alg *a, uint32_t i);
int alg_h_sqrt(Alg *a, uint32_t i);
int alg_h_rsqrt(Alg *a, uint32_t i);
int alg_h_convert(Alg *a, uint32_t i);
int alg_h_real(Alg *a, uint32_t i);
int alg_h_imag(Alg *a, uint32_t i);
int alg_h_complex(Alg *a, uint32_t i);
int alg_h_bitcast_convert(Alg *a, uint32_t i);
int alg_h_reduce_precision(Alg *a, uint32_t i);
int alg_h_map(Alg *a, uint32_t i);

int alg_h_constant(Alg *a, uint32_t i);
int alg_h_iota(Alg *a, uint32_t i);
int alg_h_broadcast(Alg *a, uint32_t i);
int alg_h_reshape(Alg *a, uint32_t i);
int alg_h_transpose(Alg *a, uint32_t i);
int alg_h_bitcast(Alg *a, uint32_t i);
int alg_swap_copy_bitcast_copy(Alg *a, uint32_t i);	/* algsimp_copy.c */
int alg_h_copy(Alg *a, uint32_t i);
int alg_h_slice(Alg *a, uint32_t i);
int alg_h_pad(Alg *a, uint32_t i);
int alg_h_concat(Alg *a, uint32_t i);
int alg_h_reverse(Alg *a, uint32_t i);
int alg_h_dynslice(Alg *a, uint32_t i);
int alg_h_dus(Alg *a, uint32_t i);
int alg_h_gte(Alg *a, uint32_t i);

int alg_h_reduce(Alg *a, uint32_t i);
int alg_h_reduce_window(Alg *a, uint32_t i);
int alg_h_dot(Alg *a, uint32_t i);
int alg_h_convolution(Alg *a, uint32_t i);
int alg_h_gather(Alg *a, uint32_t i);
int alg_h_scatter(Alg *a, uint32_t i);
int alg_h_sort(Alg *a, uint32_t i);
int alg_h_all_reduce(Alg *a, uint32_t i);
int alg_h_all_gather(Alg *a, uint32_t i);
int alg_h_all_to_all(Alg *a, uint32_t i);
int alg_h_custom_call(Alg *a, uint32_t i);
int alg_h_opt_barrier(Alg *a, uint32_t i);

/* dots (algsimp_misc.c): dimension numbers, scratch copies */
typedef struct {
	int64_t *lb, *rb, *lc, *rc;
	uint32_t nlb, nrb, nlc, nrc;
} AlgDnums;
void alg_dnums(Alg *a, uint32_t i, AlgDnums *d);
uint32_t alg_mk_dot(Alg *a, uint32_t i, uint32_t x, uint32_t y,
	const AlgDnums *d);		/* a clone of dot i with operands x, y
				 * and dnums d, its shape inferred; a
				 * sparse dot keeps its descriptors and
				 * metadata operands */
uint32_t alg_mk_dot_meta(Alg *a, uint32_t i, uint32_t x, uint32_t y,
	const AlgDnums *d, const HloSparsity *sp, const uint32_t *meta);
				/* the same with descriptors sp and
				 * metadata meta (as many as i has) */
int alg_dot_assoc(Alg *a, uint32_t i);	/* algsimp_reorder.c: 1 rewritten,
				 * 2 no other dot rule may fire */

/* algsimp_raise.c */
void alg_dot_to_maps(const AlgDnums *d, int rl, int rr, int64_t *ml,
	int64_t *mr);			/* ConstructToDotMaps */
void alg_dot_from_maps(Alg *a, uint32_t i, const AlgDnums *d, int64_t *fl,
	int64_t *fr);			/* ConstructFromDotMaps */
int alg_slice_through_dot(Alg *a, uint32_t i);
int alg_transpose_of_dot_nc(Alg *a, uint32_t i, uint32_t d,
	const int64_t *perm, uint32_t n);	/* algsimp_dotswap.c */
int alg_reduce_through_dot(Alg *a, uint32_t i);

/* shared analyses */
int alg_is_nonneg(Alg *a, uint32_t i);	/* IsNonNegative: sign bit clear,
				 * or NaN */
int alg_no_negzero(Alg *a, uint32_t i);	/* never -0 (integers: always) */
int alg_no_nan(Alg *a, uint32_t i);	/* never NaN (integers: always) */
int alg_reduce_kind(Alg *a, uint32_t comp);	/* root of comp is op(p0, p1) in
				 * either order: HOP_ADD, ...; -1 if not */
int64_t *alg_ints_pick(Alg *a, const int64_t *v, uint32_t nv,
	const int64_t *idx, uint32_t n);	/* v[idx[k]] (alg_tmp), NULL if
						 * an idx is outside [0, nv) */
const HloInstr *alg_comp_root(Alg *a, uint32_t comp);	/* NULL: no root */
int alg_comp_root_op(Alg *a, uint32_t comp);
int alg_param_like(Alg *a, uint32_t x);	/* IsParameterLike: a parameter,
				 * through operand 0 of one-operand ops */
int alg_reshape_degenerate(Alg *a, uint32_t from, uint32_t to, int64_t *del,
	uint32_t *ndel, int64_t *ins, uint32_t *nins);
				/* ReshapeMerelyInsertsOrDeletes1Sized-
				 * Dimensions of shapes of from -> to */
uint32_t alg_unmodified_dims(const int64_t *a, int ra, const int64_t *b,
	int rb, int64_t *pairs);	/* DimensionsUnmodifiedByReshape:
				 * (in, out) pairs; returns the count */
uint32_t alg_common_factors(const int64_t *a, int ra, const int64_t *b, int rb,
	int64_t *pairs);		/* CommonFactors: (i, j) pairs */
void *alg_tmp(Alg *a, size_t n);	/* pass scratch */

/* algsimp.c: runs the simplifier with the options given */
const AlgOpts *algsimp_cpu_opts(void);
const AlgOpts *algsimp_default_opts(void);
int algsimp_run(HloModule *m, PassCtx *ctx, const AlgOpts *o);

#endif
