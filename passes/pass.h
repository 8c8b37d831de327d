/* pass.h: the pass framework: the registry (passes.def), the context
 * every pass runs in, the editing helpers passes share (rewrite.c) and
 * the driver that parses and runs pass sequences (pipeline.c).
 *
 * A pass is int run(HloModule *, PassCtx *): 1 changed the module, 0 left
 * it unchanged, -1 error (ctx->err says what). A pass leaves every
 * computation it touched compacted (hlo_comp_compact): no HI_DEAD
 * instructions, topological order. It keeps nothing between runs (but
 * memory to reuse: ctx->evkeep).
 */
#ifndef PASS_H
#define PASS_H

#include "hlo.h"

typedef struct PassCtx PassCtx;

typedef struct {
	const char *name;	/* xla's HloPassInterface::name() */
	int (*run)(HloModule *, PassCtx *);
	const char *desc;
} Pass;

/* pass ids: PASS_dce, ...; the index in hlo_passes is the RL action id */
enum {
#define PASS(id, name, desc) PASS_##id,
#include "passes.def"
#undef PASS
	PASS_COUNT
};

#define PASS(id, name, desc) int pass_##id(HloModule *m, PassCtx *ctx);
#include "passes.def"
#undef PASS

/* passes/registry.c */
extern const Pass hlo_passes[PASS_COUNT];
int pass_lookup(const char *name, size_t n);	/* -1 if unknown */
int pass_lookup_spec(const char *name, size_t n);
				/* a name or a decimal RL action id */
const char *pass_suggest(const char *name, size_t n);
				/* the nearest name, NULL if none is near */

/* variants: a pass XLA runs with options other than its defaults is its
 * own action, named "<xla name>:<option>" (call-inliner:single-call-site,
 * gather_expander:simple, ...); the part before ':' is XLA's name() */

/* named pipelines (pipelines.c): built-in sequences that --passes
 * accepts by name, as data. A pipeline that mirrors XLA is a table of
 * XLA's steps (passes/xla_cpu.def): its sequence is made of the steps
 * whose action is registered, so a pass that lands joins it; every other
 * step is reported with the reason. saturate is a fixed point of the
 * passes listed as never raising the instruction count. */
enum { PASS_STEP_PASS, PASS_STEP_FIX, PASS_STEP_END };

typedef struct {
	int kind;		/* PASS_STEP_* */
	const char *xla;	/* xla's class and options */
	const char *action;	/* the hlopt action, NULL if none can be */
	const char *note;	/* how hlopt's run differs, or (no action)
				 * why it is not run; NULL: as xla */
} PassXlaStep;

/* what hlopt does with a step */
enum {
	PASS_STEP_RUN,		/* registered, as xla runs it */
	PASS_STEP_DIFFERS,	/* registered, run differently (note) */
	PASS_STEP_MISSING,	/* action not registered (yet) */
	PASS_STEP_NEVER,	/* no action can stand for it (note) */
	PASS_STEP_GROUP		/* PASS_STEP_FIX or PASS_STEP_END */
};

typedef struct {
	const char *name;
	const char *desc;
	const char *seq;	/* a fixed sequence in --passes syntax, or
				 * NULL: */
	const PassXlaStep *steps;	/* built from xla's steps, */
	int nsteps;
	const char *const *members;	/* or fix(members registered);
				 * NULL-terminated */
	const char *mirrors;	/* the xla source and commit, or NULL */
} PassPipeline;

extern const PassPipeline pass_pipelines[];
extern const int pass_npipelines;
const PassPipeline *pass_pipeline_lookup(const char *name, size_t n);
void pass_pipeline_seq(const PassPipeline *p, HloBuf *b);
				/* its sequence now, in --passes syntax,
				 * into the empty b */
int pass_step_status(const PassXlaStep *st);	/* PASS_STEP_RUN, ... */
const char *pass_step_status_name(int status);

/* the passes saturate runs and the ones that may raise the instruction
 * count: every registered pass is in exactly one (check_passes.c); names
 * not registered yet may stand in both lists, NULL-terminated */
extern const char *const pass_saturate_members[];
extern const char *const pass_may_raise[];

/* a bump allocator for per-pass scratch memory; pass_reset frees it all */
typedef struct {
	char *buf;		/* current block */
	size_t len, cap;
	void **old;		/* full blocks, freed at reset */
	size_t nold, capold;
} PassArena;

/* options: zero is xla's default for every pass */
typedef struct {
	int single_call_site;	/* call-inliner: inline only computations
				 * with one call site */
	int cse_layout_sensitive;	/* cse: shapes compared with layout */
	int dce_remove_collectives;	/* dce: remove dead collectives that
				 * do not constrain the layout */
	int gather_simple;	/* gather_expander: only the gathers whose
				 * loop runs once (kEliminateSimpleGathers) */
	int scatter_mode;	/* scatter_expander: 0 every scatter, 1 only
				 * those whose loop runs once
				 * (kEliminateSimpleScatters), 2 only those
				 * with an order-dependent result
				 * (kEliminateIndeterministicScatters) */
	int conv_feature_groups;	/* convolution-group-converter: feature
				 * groups (XLA:CPU's second run), not batch
				 * groups */
	int cse_only_scalars;	/* cse: merge only scalar instructions and
				 * scalar constants (only_scalars, as
				 * while_loop_unroller runs it) */
	int sink_scalar_or_bcast;	/* while-loop-constant-sinking: only
				 * scalar inits, broadcasts of constants too
				 * (sink_broadcast_of_constants and
				 * sink_only_scalar_constants, as
				 * while_loop_unroller runs it) */
	int unroll_wrap;	/* while_loop_unroller: wrap_in_trivial_loop */
	int topk_ops_only;	/* topk-decomposer: topk instructions only,
				 * not TopK custom-calls (XLA:CPU's
				 * predicate) */
	int cf_aggressive;	/* constant_folding: HloConstantFolding's
				 * kAgressive level (whiles folded, no size
				 * limit, no constant operand needed) */
} PassOptions;

/* filled by passes, reset by the driver before each pass */
typedef struct {
	int64_t rewrites;	/* rewrites done (each pass's own unit) */
} PassStats;

struct PassCtx {
	PassOptions opt;
	unsigned flags;		/* PASS_VERIFY, ... */
	PassArena scratch;	/* freed after every pass */
	HloError err;		/* set when a pass or the driver fails */
	PassStats stats;
	int round;		/* pass_run_seq: the round of the innermost
				 * fix(...) running, 1-based; 0 outside */
	int threads;		/* evaluator threads of a pass that
				 * evaluates (constant folding); 0: one per
				 * processor. Results do not depend on it;
				 * the environment, one per worker thread,
				 * sets 1 */
	uint64_t keep_bytes;	/* big evaluator blocks a pass that
				 * evaluates (constant folding) keeps in
				 * evkeep for its next run, at most (0:
				 * none): set by a caller that runs many
				 * passes on modules of one family (the
				 * environment), so that the next run
				 * faults and zeroes no fresh pages */
	struct HloEvalBlocks *evkeep;	/* those blocks; pass_ctx_free
				 * frees them */
	/* optional, called after every pass (after the verifier with
	 * PASS_VERIFY): < 0 stops the sequence with ctx->err set */
	int (*after)(const HloModule *m, int pass, int changed, void *arg,
		HloError *e);
	void *after_arg;
};

enum {
	PASS_VERIFY = 1 << 0,	/* hlo_verify after every pass */
	PASS_NAMES = 1 << 1,	/* count instructions added and removed by
				 * name after every pass (PassStep) */
};

/* passes/pipeline.c: sequences of passes.
 * A sequence is a list of pass names separated by commas or white space;
 * fix(a,b,...) runs its members again until none of them changes the
 * module (at most PASS_FIX_LIMIT rounds); '#' starts a comment that ends
 * at the end of the line. "@FILE" reads the sequence from FILE. */
#define PASS_FIX_LIMIT 25
enum { SEQ_FIX = -1, SEQ_END = -2 };	/* items besides pass ids */

typedef struct {
	int *items;		/* pass ids, SEQ_FIX ... SEQ_END groups */
	uint32_t n, cap;
} PassSeq;

typedef struct {
	int pass;		/* index in hlo_passes */
	int changed;
	int64_t before, after;	/* live instructions in the module */
	int64_t added, removed;	/* by name, with PASS_NAMES; else from the
				 * counts before and after */
	int64_t rewrites;	/* PassStats.rewrites */
	int round;		/* of the innermost fix(...), 0 outside */
	uint32_t comps_before, comps_after;	/* computations */
	double ms;
} PassStep;

typedef struct {
	PassStep *steps;
	uint32_t n, cap;
} PassLog;

/* fusion strategies: a name and its sequence (pipeline.c); the table
 * ends with a NULL name */
typedef struct {
	const char *name, *seq;
} PassFusionStrategy;
extern const PassFusionStrategy pass_fusion_strategies[];
const PassFusionStrategy *pass_fusion_strategy(const char *name, size_t n);

void pass_ctx_init(PassCtx *ctx);
void pass_ctx_free(PassCtx *ctx);
int pass_seq_parse(const char *spec, PassSeq *s, HloError *e);
int pass_seq_parse_text(const char *text, size_t n, const char *fname,
	PassSeq *s, HloError *e);
void pass_seq_add(PassSeq *s, int item);
void pass_seq_free(PassSeq *s);
void pass_seq_format(const PassSeq *s, HloBuf *b);
				/* canonical text: names joined by ',' */
int pass_run(HloModule *m, int pass, PassCtx *ctx, PassLog *log);
int pass_run_seq(HloModule *m, const PassSeq *s, PassCtx *ctx,
	PassLog *log);		/* 1 changed, 0 not, -1 error; log may be
				 * NULL */
void pass_log_free(PassLog *log);
int64_t pass_count_instrs(const HloModule *m);
				/* live instructions, every computation */

/* passes/rewrite.c: helpers passes share */
void *pass_arena_alloc(PassArena *a, size_t n);	/* 16-aligned */
void pass_arena_reset(PassArena *a);	/* frees all but the last block */
void pass_arena_free(PassArena *a);
void *pass_alloc(PassCtx *ctx, size_t n);	/* scratch, 16-aligned */
void *pass_zalloc(PassCtx *ctx, size_t n, size_t size);
				/* zeroed n * size bytes, overflow checked */
void pass_reset(PassCtx *ctx);

char *pass_name_cat(char *buf, size_t size, const char *a,
	const char *b, const char *c, const char *d);
				/* snprintf(buf, size, "%s%s%s%s", a, b, c,
				 * d) without stdio's cost (names made per
				 * fusion); returns buf */
char *pass_name_num(char *buf, size_t size, const char *a, uint32_t k);
				/* snprintf(buf, size, "%s%u", a, k) */
void pass_fresh_names(HloModule *m);
				/* makes hlo_fresh_name's counter start past
				 * every numeric suffix in use, so that new
				 * names cost one probe */

/* side effects as xla's HloInstruction::HasSideEffect: the instruction's
 * own, or any instruction of a computation it calls, transitively */
uint8_t *pass_comp_effects(const HloModule *m, PassCtx *ctx);
				/* per computation: 1 if it has a side
				 * effect; sized m->ncomps */
int pass_has_effect(const HloModule *m, const HloInstr *in,
	const uint8_t *fx, uint32_t nfx);

/* xla's HloComputation::MakeInstructionPostOrder: depth first from every
 * instruction without users or control successors, in array order,
 * operands in order, control predecessors first; returns the count */
uint32_t pass_post_order(const HloModule *m, uint32_t c, uint32_t *order,
	PassCtx *ctx);
/* xla's HloModule::MakeComputationPostOrder over all computations:
 * callees before callers; returns the count, -1 on a call cycle */
int pass_comp_post_order(const HloModule *m, uint32_t *order);
uint32_t *pass_comps_in_post_order(const HloModule *m, PassCtx *ctx,
	int *n);		/* the same in a new array (free() it) of
				 * *n; NULL after pass_err_cycle */
int pass_err_cycle(PassCtx *ctx, const HloModule *m, uint32_t c);
				/* "the call graph has a cycle" (c is
				 * HLO_NONE) or "computation C has a
				 * cycle" in ctx->err; returns -1 */
int pass_compact_touched(HloModule *m, PassCtx *ctx, const uint8_t *touched,
	int changed);		/* hlo_comp_compact of every computation
				 * touched[c] marks while changed > 0;
				 * returns changed, -1 on a cycle */

/* the list attribute key of in (hlo_attr_list) copied into dst[0..*n);
 * -1 if longer than max */
int pass_attr_list_copy(const HloModule *m, const HloInstr *in, int key,
	uint32_t max, int64_t *dst, uint32_t *n);
/* frontend_attributes={k="v",...}: the value of key, NULL if absent */
const char *pass_frontend_attr(const HloModule *m, const HloInstr *in,
	const char *key, uint32_t *n);
int pass_is_custom_call(const HloModule *m, const HloInstr *in,
	const char *target);
int pass_metadata_has_op_name(const HloModule *m, const HloInstr *in);

/* computations: callers and deletion */
typedef struct {
	uint32_t comp, instr;
} PassSite;
typedef struct {
	uint32_t *start;	/* callers of c: site[start[c] .. start[c+1]) */
	PassSite *site;		/* in (computation, instruction) order, one
				 * entry per called_computations slot */
	uint32_t n;
} PassCallers;
void pass_callers(const HloModule *m, PassCallers *cg, PassCtx *ctx);
void pass_drop_comps(HloModule *m, const uint8_t *drop);
				/* deletes the computations marked and
				 * renumbers; references to them must be
				 * gone */

/* xla's HloComputation::Equal(other, layout_sensitive): a structural
 * comparison from the roots */
int pass_comp_equal(const HloModule *m, uint32_t a, uint32_t b,
	int layout_sensitive, PassCtx *ctx);

/* layouts. A module with a bitcast has meaningful layouts: a bitcast
 * reinterprets the physical order of its operand, so passes keep every
 * layout its users can see (xla's layout-sensitive mode). Without one,
 * layouts never change a value and passes ignore them. */
int pass_layout_sensitive(const HloModule *m);
int pass_shape_equal(const HloModule *m, uint32_t a, uint32_t b);
				/* ShapeUtil::Equal: dims, type, layout (none
				 * is the default) and tiling */
int pass_shape_same(const HloModule *m, int ls, uint32_t a, uint32_t b);
				/* pass_shape_equal if ls, else layout
				 * ignored */
int pass_copy_is_bitcast(const HloModule *m, uint32_t a, uint32_t b);
				/* a copy from a to b keeps the memory order */
int pass_copy_tiled_transpose(const HloModule *m, uint32_t a, uint32_t b);
				/* a copy from a to b is what xla:GPU's
				 * FindTiledTranspose calls a tiled
				 * transpose: its physical reordering,
				 * size-1 dims dropped and adjacent runs
				 * merged, is 1-0, 0-2-1 or 2-1-0 with the
				 * swapped extents >= 16 (or >= 8 and their
				 * product >= 64*128) */
int pass_transpose_is_bitcast(const HloModule *m, uint32_t in, uint32_t out,
	const int64_t *perm, uint32_t n);
int pass_reshape_is_bitcast(const HloModule *m, uint32_t in, uint32_t out);
				/* conservative: both in row-major order
				 * once 1-sized dimensions are dropped */

/* PassEdit: replacing and deleting instructions of one computation the
 * way xla's HloComputation does, in time linear in what changes.
 * Replacements are recorded in fwd and applied to every operand, control
 * predecessor and the root by pass_edit_end; until then read operands
 * through pass_res. nuse counts the live operand slots that use each
 * instruction (replacements included). */
enum { CTL_PRED = 1, CTL_SUCC = 2 };

typedef struct {
	HloModule *m;
	PassCtx *ctx;
	uint32_t c;
	uint32_t *fwd;		/* replacement map */
	uint32_t *nuse;		/* live users, by operand slot */
	uint8_t *ctl;		/* CTL_PRED, CTL_SUCC */
	uint32_t *stack;	/* pass_remove_cascade's work list */
	uint32_t stacklen;
	uint32_t cap;		/* of fwd, nuse, ctl */
	const uint8_t *fx;	/* pass_comp_effects, or NULL */
	uint32_t nfx;
	int lay;		/* pass_layout_sensitive at init: replacing
				 * keeps the layout (a copy if needed) */
	int replaced;		/* anything forwarded since begin */
	int changed;		/* anything changed since begin */
	int64_t removed;	/* instructions deleted since begin */
	int fresh;		/* builds a new computation (pass_b_fresh):
				 * nothing forwarded or counted */
} PassEdit;

void pass_edit_init(PassEdit *ed, HloModule *m, PassCtx *ctx,
	const uint8_t *fx, uint32_t nfx);
void pass_edit_free(PassEdit *ed);
void pass_edit_begin(PassEdit *ed, uint32_t c);
int pass_edit_end(PassEdit *ed);	/* applies fwd, compacts if anything
				 * changed; -1 on a cycle (ctx->err) */
uint32_t pass_res(PassEdit *ed, uint32_t x);
void pass_edit_added(PassEdit *ed, uint32_t i);
				/* call after adding instruction i */
void pass_edit_set_operands(PassEdit *ed, uint32_t i, uint32_t n,
	const uint32_t *ops);
int pass_is_dead(PassEdit *ed, uint32_t i);
				/* xla's IsDead: no users, not the root */
int pass_removable(PassEdit *ed, uint32_t i);
				/* no control dependencies, not a
				 * parameter */
void pass_replace_uses(PassEdit *ed, uint32_t old, uint32_t new);
				/* ReplaceAllUsesWith (the root included) */
void pass_remove(PassEdit *ed, uint32_t i);
				/* RemoveInstruction: i must be dead */
void pass_remove_cascade(PassEdit *ed, uint32_t i);
				/* RemoveInstructionAndUnusedOperands */
int pass_replace(PassEdit *ed, uint32_t old, uint32_t new,
	int preserve_sharding, int relay_ctrl);
				/* ReplaceInstruction: 1 done, 0 refused
				 * (sharding, control dependencies) */
void pass_ctrl_succs(PassEdit *ed, uint32_t i, uint32_t **succ,
	uint32_t *n);		/* control successors of i (scratch) */
void pass_add_ctrl(PassEdit *ed, uint32_t from, uint32_t to);
				/* from becomes a control predecessor of to */
void pass_drop_ctrl(PassEdit *ed, uint32_t i);
				/* DropAllControlDeps */
int pass_same_attr(const HloModule *m, const HloInstr *a,
	const HloInstr *b, int key);
				/* both lack attribute key, or both have it
				 * equal */
void pass_copy_attr(PassEdit *ed, uint32_t from, uint32_t to, int key);
				/* from's attribute key, if any, set on to */
uint32_t pass_copy_instr(HloModule *m, uint32_t dc, uint32_t sc,
	uint32_t si, uint32_t nops, const uint32_t *ops);
				/* a copy of instruction si of computation
				 * sc, added to dc with operands ops; fresh
				 * name from the old one, no control deps */

/* one step of the hashes cse and comp_dedup key their tables with */
static inline uint32_t
pass_hash_mix(uint32_t h, uint64_t v)
{
	v ^= h;
	v *= 0x9e3779b97f4a7c15ULL;
	return (uint32_t)(v >> 32) ^ (uint32_t)v;
}

/* instruction i of the computation ed edits, and its operand k read
 * through the replacements made so far */
static inline const HloInstr *
pass_ins(const PassEdit *ed, uint32_t i)
{
	return &ed->m->comps[ed->c].ins[i];
}

static inline uint32_t
pass_opnd(PassEdit *ed, uint32_t i, uint32_t k)
{
	return pass_res(ed, ed->m->ids[pass_ins(ed, i)->ops + k]);
}

/* the computations a pass leaves alone, as xla's passes visit only
 * MakeNonfusionComputations: fusion computations (marked so or called
 * by a fusion) and, with composite, the computations a composite call
 * calls (passes that treat composites as opaque). per computation, 1 to
 * skip; sized m->ncomps + 1, free() it */
uint8_t *pass_skipped_comps(const HloModule *m, int composite);

/* ctl[i] = 1 for the live instructions of computation c with control
 * predecessors or successors */
void pass_mark_ctrl(const HloModule *m, uint32_t c, uint8_t *ctl);

/* n[c] (n sized m->ncomps) counts one more for every reference of a
 * live instruction to computation c: its call sites */
void pass_count_calls(const HloModule *m, uint32_t *n);

/* the loop most passes are. for each computation (comps in that order,
 * or 0 .. ncomps-1) not skipped: pass_edit_begin, then comp(ed, arg) (1
 * changed), or instr(ed, i, arg) on every live instruction in post order
 * (its result, the rewrites done, is added to ctx->stats.rewrites; with
 * unforwarded, instructions already replaced are passed over), then
 * pass_edit_end and pass_reset. ed is initialised with fx (with effects
 * and no fx: pass_comp_effects, computed here) and freed. Skipped: skip's
 * marks, else by the rule skips (PASS_SKIP_*). returns 1 changed, 0 not,
 * -1 error */
enum { PASS_SKIP_NONE, PASS_SKIP_FUSION, PASS_SKIP_FUSION_COMPOSITE };
typedef struct {
	const uint8_t *fx;	/* pass_comp_effects copy, or NULL */
	uint32_t nfx;
	int effects;		/* no fx: compute it */
	const uint8_t *skip;	/* or NULL: */
	int skips;		/* PASS_SKIP_* */
	const uint32_t *comps;	/* or NULL */
	uint32_t ncomps;	/* of comps */
	int (*comp)(PassEdit *ed, void *arg);
	int (*instr)(PassEdit *ed, uint32_t i, void *arg);
	int unforwarded;
	void *arg;
} PassVisit;
int pass_visit(HloModule *m, PassCtx *ctx, PassEdit *ed, const PassVisit *v);

/* pass_visit's common calls in one: every computation but the skipped,
 * flags a PASS_SKIP_* rule | PASS_VISIT_EFFECTS (compute the side
 * effects) | PASS_VISIT_UNFORWARDED | PASS_VISIT_CALLEES_FIRST (the
 * computations in call-graph post order, else by index; -1 after
 * pass_err_cycle on a cycle); comp or instr as in PassVisit */
enum { PASS_VISIT_EFFECTS = 4, PASS_VISIT_UNFORWARDED = 8,
	PASS_VISIT_CALLEES_FIRST = 16 };
int pass_visit_comps(HloModule *m, PassCtx *ctx, int flags,
	int (*comp)(PassEdit *ed, void *arg), void *arg);
int pass_visit_instrs(HloModule *m, PassCtx *ctx, int flags,
	int (*instr)(PassEdit *ed, uint32_t i, void *arg), void *arg);

/* passes/dce.c: xla's HloDCE, for passes that end with one */
int pass_dce_module(HloModule *m, PassCtx *ctx);

#endif
