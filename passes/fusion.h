/* fusion.h: what the fusion passes (fusion.c, fusion_misc.c) share:
 * the rule sets of instruction fusion, the opcode predicates xla's fusion
 * code uses, and the reordering of new fused computations in front of
 * their callers. */
#ifndef FUSION_H
#define FUSION_H

#include "pass.h"

/* rule sets of instruction fusion */
enum {
	FU_CPU,		/* xla:CPU CpuInstructionFusion */
	FU_GPU,		/* xla:GPU GpuInstructionFusion, no duplication
			 * then duplication */
	FU_ALL,		/* beyond xla: every loop-fusible producer into
			 * every loop-fusible consumer, duplicating any */
};

int fu_instruction_fusion(HloModule *m, PassCtx *ctx, int rules);
int fu_fusion_merger(HloModule *m, PassCtx *ctx, int across);

/* xla's InstructionFusion::IsExpensive under a rule set (FU_*): op0 is
 * in's first operand, through a broadcast (NULL if none) */
int fu_expensive(const HloModule *m, const HloInstr *in, const HloInstr *op0,
	int rules);
/* xla's HloInstruction::IsElementwise */
int fu_elementwise(const HloInstr *in);
/* xla's fusion-kind words */
int fu_kind(const HloModule *m, const HloInstr *in);	/* FK_* */
enum { FK_LOOP, FK_INPUT, FK_OUTPUT, FK_CUSTOM, FK_OTHER };
extern const char *const fu_kind_names[4];

/* moves the computations from index first on in front of the computation
 * whose index is caller[k - first] (caller < first), keeping the rest
 * in order; renumbers references and the entry */
void fu_place_comps(HloModule *m, uint32_t first, const uint32_t *caller);

#endif
