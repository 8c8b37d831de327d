/* wutil.h: helpers shared by the loop, conditional and folding passes
 * (while_simplifier.c, while_licm.c, while_const_sinking.c,
 * cond_simplifier.c, constant_folding.c, convert_mover.c): building
 * instructions, inlining a computation at a call site, scalar constants
 * and xla's while-loop trip-count analysis
 * (xla/hlo/analysis/while_loop_analysis.cc). */
#ifndef WUTIL_H
#define WUTIL_H

#include "pass.h"

/* a scalar value: signed integers sign-extended, unsigned and pred
 * zero-extended, floats as double */
typedef struct {
	int type;
	int64_t s;
	uint64_t u;
	double f;
} WuVal;

/* instruction building; ed may be NULL (then nothing is told about the
 * new instruction) */
uint32_t wu_add(HloModule *m, uint32_t c, int op, uint32_t shape,
	uint32_t nops, const uint32_t *ops, PassEdit *ed);
uint32_t wu_gte(HloModule *m, uint32_t c, uint32_t x, int64_t k,
	PassEdit *ed);		/* get-tuple-element(x), index=k */
uint32_t wu_tuple(HloModule *m, uint32_t c, uint32_t n, const uint32_t *ops,
	PassEdit *ed);		/* tuple of ops, shape from theirs */
uint32_t wu_copy_named(HloModule *m, uint32_t dc, uint32_t sc, uint32_t si,
	uint32_t nops, const uint32_t *ops, const char *suffix);
				/* pass_copy_instr named <name><suffix> */

/* CallInliner::Inline: copies every live instruction of computation sc
 * into dc (parameter k becomes args[k]) and returns the copy of sc's
 * root; HLO_NONE if sc is malformed */
uint32_t wu_inline(HloModule *m, uint32_t dc, uint32_t sc,
	const uint32_t *args, uint32_t nargs, PassEdit *ed);

/* every use of from (operands and the root) in computation c becomes to,
 * except the operands of instruction keep (HLO_NONE: none kept) */
void wu_replace_uses(HloModule *m, uint32_t c, uint32_t from, uint32_t to,
	uint32_t keep);
/* distinct live users of x in c; *n set, list in scratch */
int wu_uses(const HloModule *m, const HloInstr *in, uint32_t x);
				/* a live in with x among its operands */
uint32_t *wu_users(const HloModule *m, uint32_t c, uint32_t x, uint32_t *n,
	PassCtx *ctx);
uint32_t wu_param0(const HloModule *m, uint32_t c);
int wu_is_tuple_op(const HloModule *m, uint32_t c, uint32_t i);
int wu_has_ctrl(const HloModule *m, uint32_t c, uint32_t i);
				/* control predecessors or successors */
int wu_frontend_true(const HloModule *m, const HloInstr *in,
	const char *key);	/* "true", "1" or "yes", any case */
int wu_while_dce_disabled(const HloModule *m, const HloInstr *in);
int wu_while_regular(const HloModule *m, uint32_t c, uint32_t i);
uint32_t wu_while_loops(const HloModule *m, const uint32_t *comps,
	uint32_t n, int reverse, int (*keep)(const HloModule *m, uint32_t c,
	uint32_t i), uint32_t **out);
				/* (computation, instruction) pairs of the
				 * live instructions of comps (NULL: all n)
				 * that keep takes (wu_while_regular: the
				 * regular loops), in order or reversed;
				 * fusions passed over */
				/* the while, its operand and its body's result
				 * have one shape: xla's verifier lets the body
				 * return another, which no while pass handles */
int64_t wu_elems(const HloModule *m, uint32_t shape);
				/* array elements; tuples: 0; overflow:
				 * INT64_MAX */

/* scalar constants */
int wu_is_float(int type);
int wu_is_int(int type);	/* signed or unsigned integer */
int wu_read(const HloModule *m, const HloInstr *in, int64_t k, WuVal *v);
				/* element k of a constant; -1 if elided or
				 * out of range */
int wu_scalar_int(const HloModule *m, const HloInstr *in, int64_t *v);
				/* LiteralAsScalarInt64 of an effective
				 * scalar integral constant */
int wu_eval_op(const HloModule *m, const HloInstr *in, const WuVal *ops,
	WuVal *r);		/* one scalar elementwise operation; -1 if
				 * not supported */

/* while loops: called[0] is the body, called[1] the condition */
uint32_t wu_unique_gte(const HloModule *m, uint32_t c, uint32_t param,
	int64_t k);		/* hlo_query::GetUniqueGteInstruction */
int64_t wu_indvar_index(const HloModule *m, uint32_t c, uint32_t w);
				/* GetLoopInductionVarTupleIdx, -1 none */
int64_t wu_trip_count(const HloModule *m, uint32_t c, uint32_t w,
	int64_t max_brute);	/* ComputeWhileLoopTripCount, -1 unknown */
int64_t wu_trip_upper(const HloModule *m, uint32_t c, uint32_t w);
typedef struct {
	int64_t idx;		/* the induction variable's tuple index */
	int64_t init;		/* its first value */
	int64_t step;		/* added each trip, > 0 */
	int64_t trips;
} WuLoop;
int wu_trivial_loop(const HloModule *m, uint32_t c, uint32_t w,
	WuLoop *lp);		/* WhileLoopUnroller::IsLoopUnrollable's
				 * analysis: GetLoopInductionVarTupleIdx, an
				 * init whose operands are all constants
				 * (HloEvaluator without recursion),
				 * MatchTrivialLoopTripCount and
				 * MatchTrivialLoopInductionStep; -1 if any
				 * fails */
				/* ComputeWhileLoopTripCountUpperBound */

/* loop-invariant code motion (wutil_licm.c), for while_licm.c and
 * while_expensive_licm.c */
typedef struct {
	HloModule *m;
	PassCtx *ctx;
	uint8_t *fx;		/* pass_comp_effects, grown with clones */
	uint32_t *ncallers;	/* call sites per computation */
	uint8_t *touched;	/* computations to compact */
	uint32_t cap;
	/* per body instruction, for the loop being worked on */
	uint32_t *hoisted;	/* copy in the caller, HLO_NONE if none */
	uint8_t *inv;		/* invariant but not hoisted */
} WuLicm;
void wu_licm_init(WuLicm *s, HloModule *m, PassCtx *ctx);
void wu_licm_free(WuLicm *s);
void wu_licm_grow(WuLicm *s);	/* after adding computations */
uint32_t wu_licm_body(const HloModule *m, uint32_t c, uint32_t w,
	uint32_t *bparam);	/* the body of while w of computation c
				 * when both passes may hoist from it (a
				 * tuple state, not known to run at most
				 * once, parameters in body and condition,
				 * a tuple root), its parameter in *bparam;
				 * else HLO_NONE */
int wu_licm_bail_body(const HloModule *m, uint32_t b);
				/* a domain or the custom calls
				 * SPMDFullToShardShape, SPMDShardShapeToFull,
				 * MoveToDevice, MoveToHost: leave the loop */
void wu_licm_hoist(WuLicm *s, uint32_t c, uint32_t w, uint32_t body,
	uint32_t x);		/* CreateLoopInvariantCopy: x and what it
				 * needs of s->hoisted copied into c (a
				 * get-tuple-element of the body parameter
				 * becomes one of the loop's init) */
void wu_licm_live_in(WuLicm *s, uint32_t c, uint32_t w, const uint32_t *repl,
	const uint32_t *body_x, uint32_t k);
				/* MakeInstructionsLiveIn: repl[0..k) (in c)
				 * appended to the state of loop w; every use
				 * of body_x[j] in the body takes the new
				 * element j; a shared body or condition is
				 * cloned first */

#endif
