/* fusion_edit.h: what the fusion passes written after fusion.c
 * (horizontal_loop_fusion.c, multi_output_fusion.c) share: one
 * computation edited with user lists kept up to date as instructions
 * are added, rewired and deleted (xla's users(), in time linear in what
 * changes), new fused computations made and placed in front of their
 * caller, and the questions xla's gpu_fusible.cc asks of a fusion. */
#ifndef FUSION_EDIT_H
#define FUSION_EDIT_H

#include "fusion.h"

typedef struct {
	uint32_t *v;
	uint32_t n, cap;
	uint32_t indexed;	/* positions kept in FuEdit's pos table */
	uint32_t inarena;	/* v is a slice of FuEdit's arena */
} FuList;

typedef struct {
	HloModule *m;
	PassCtx *ctx;
	uint32_t c;		/* the computation being edited */
	FuList *usr;		/* per instruction: its users, each once */
	uint8_t *ctl;		/* per instruction: control dependencies */
	uint32_t cap;		/* of usr, ctl and mark */
	uint32_t *mark, epoch;	/* per instruction: fu_edit_replace's
				 * members of the new user list */
	uint32_t hi;		/* usr and ctl entries past hi are clear */
	uint32_t *arena;	/* fu_edit_begin's user lists, one block */
	/* where each user sits in a list longer than FU_LIST_SCAN (so
	 * that deleting one of many users is O(1), not a scan): open
	 * addressing on owner << 32 | user, a slot valid when its stamp
	 * is posstamp (fu_edit_begin forgets them all at once); a
	 * position is checked against the list before use, so entries
	 * of users since deleted need no removal */
	uint64_t *poskey;
	uint32_t *posval, *posstamp_of, posstamp, npos, cappos;
	uint8_t *drop;		/* per computation: to delete at the end */
	uint32_t *ncalls;	/* per computation at init: call sites */
	uint32_t capdrop;
	uint32_t *newcaller;	/* per computation made: its caller */
	uint32_t nnew, capnew, first_new;
	uint8_t *fx;		/* pass_comp_effects at init */
	uint32_t nfx;
	int touched;		/* c changed since begin */
	int64_t done;		/* fusions made, for ctx->stats */
} FuEdit;

void fu_edit_init(FuEdit *e, HloModule *m, PassCtx *ctx);
uint32_t *fu_edit_comps(FuEdit *e, uint32_t *n);
				/* xla's GetFusibleComputations: not fused
				 * computations nor those called but by a
				 * while or conditional; callees first;
				 * free() it */
void fu_edit_begin(FuEdit *e, uint32_t c);
int fu_edit_end(FuEdit *e);	/* compacts c if touched; -1 on a cycle */
int fu_edit_finish(FuEdit *e, int changed);
				/* drops the computations marked, places the
				 * new ones in front of their callers, frees;
				 * returns changed */
void fu_edit_free(FuEdit *e);
int fu_edit_run(FuEdit *e, int (*comp)(void *arg, uint32_t c), void *arg);
				/* comp on every fu_edit_comps computation
				 * while none fails, then fu_edit_finish (or
				 * fu_edit_free after a failure): -1, 0 or
				 * 1 changed */

uint32_t fu_edit_name(HloModule *m, const char *base);
				/* base if unused, else a fresh base.N */
uint32_t fu_edit_add(FuEdit *e, int op, uint32_t shape, const char *name,
	uint32_t nops, const uint32_t *ops);	/* in c, users kept */
uint32_t fu_edit_gte(FuEdit *e, uint32_t x, uint32_t shape, int64_t k);
void fu_edit_replace(FuEdit *e, uint32_t old, uint32_t new);
				/* every use of old (the root too) becomes new */
void fu_edit_kill(FuEdit *e, uint32_t x);
				/* x (without users) deleted, and dropped
				 * from its operands' users */
void fu_edit_set_ops(FuEdit *e, uint32_t x, uint32_t n, const uint32_t *ops);
uint32_t fu_edit_new_comp(FuEdit *e, const char *name);
				/* a fused computation called from c */
uint32_t fu_edit_fusion(FuEdit *e, uint32_t comp, int kind, uint32_t nops,
	const uint32_t *ops);	/* a fusion instruction in c calling comp,
				 * its shape comp's root's */
void fu_edit_unfuse(FuEdit *e, uint32_t x);
				/* x, a fusion about to go, no longer calls
				 * its computation: dropped when nothing
				 * else calls it */
int fu_edit_has_user(const FuEdit *e, uint32_t x, uint32_t u);

/* gpu_fusible.cc's questions, for instruction x of c */
int fu_is_fusion(const HloModule *m, uint32_t c, uint32_t x, int kind);
				/* a fusion of that kind (-1: any) whose
				 * computation has one parameter per operand */
uint32_t fu_fused_comp(const HloModule *m, uint32_t c, uint32_t x);
uint32_t fu_outputs(const HloModule *m, uint32_t c, uint32_t x,
	uint32_t *comp, const uint32_t **outs, uint32_t *one);
				/* GetOutputsOfFusible: their count, the
				 * computation they live in and their ids */
int fu_multi_output(const HloModule *m, uint32_t c, uint32_t x);
uint32_t fu_instr_count(const HloModule *m, uint32_t c, uint32_t x);
				/* GetInstrCountOfFusible */
enum { FU_WARP = 32 };
int fu_contiguous_reduce(const HloModule *m, uint32_t c, uint32_t x,
	int *row);		/* IsReductionFromOrToContiguousDimensions
				 * (with IsUnnestedReductionFasterThan-
				 * Elemental); *row: a row reduction */
/* multi_output_fusion.cc's sibling rules */
uint32_t fu_param_slice(const HloModule *m, uint32_t fc, uint32_t prm);
				/* FindUniqueSlice inside fc: the only user
				 * of parameter prm if it is a slice, else
				 * HLO_NONE */
int fu_slices_overlap(const HloModule *m, uint32_t ca, uint32_t a,
	uint32_t cb, uint32_t b);
				/* slices a (of comp ca) and b overlap in
				 * every dimension (strides ignored) */

#endif
