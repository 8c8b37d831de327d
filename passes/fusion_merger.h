/* fusion_merger.h: what "fusion-merger" (fusion.c) asks of a fused
 * computation before merging a producer fusion into its users, from
 * passes/fusion_merger.c: xla's code-size model of GpuHloCostAnalysis
 * (IR size and basic-block splits), the bytes a fusion reads, and the
 * gpu_fusible.cc predicates on fused instructions the merger uses. */
#ifndef FUSION_MERGER_H
#define FUSION_MERGER_H

#include "pass.h"

/* GpuHloCostAnalysis's limits (gpu_hlo_cost_analysis.h) */
#define FU_MAX_IR_SIZE 10000
#define FU_MAX_SPLITS 10
/* gpu_fusible's MaxOperandsAndOutputsPerFusion and
 * kMaxUnnestedReductionOutputsPerFusion at 9d7df89334 */
#define FU_MAX_OPERANDS 64
#define FU_MAX_REDUCES 8

/* the code size of one fused computation: how many times each
 * instruction is emitted (ir[i], per instruction index; a parameter's is
 * the replication of whatever is merged in its place), their sum and the
 * splits (times emitted of the instructions that invalidate the element
 * cache). over: the sum passed FU_MAX_IR_SIZE and the analysis stopped
 * there (ir, splits then incomplete) */
typedef struct {
	double *ir;
	double total, splits;
	int over;
} FuIrSize;

void fu_ir_size(const HloModule *m, uint32_t c, FuIrSize *s);
void fu_ir_size_free(FuIrSize *s);

/* ProducerConsumerMergedTooLarge: p the producer's analysis, cs the
 * consumer's, prm the consumer's parameter the producer feeds */
int fu_merged_too_large(const FuIrSize *p, const FuIrSize *cs, uint32_t prm);

/* CalculateBytesReadByFusionInstruction of fused computation c */
double fu_bytes_read(const HloModule *m, uint32_t c);

/* TransposesMostData of a fusion of shape `shape` calling c */
int fu_transposes_most_data(const HloModule *m, uint32_t c, uint32_t shape);

/* CreatesHeavyComputation's halves: the producer computation holds an
 * instruction expensive to repeat; the consumer computation reads
 * parameter prm's elements more than once somewhere downstream */
int fu_heavy_to_repeat(const HloModule *m, uint32_t c);
int fu_reads_param_repeatedly(const HloModule *m, uint32_t c, uint32_t prm);

/* ShapeUtil::SubshapeCount: 1 for an array, 1 + the elements' for a
 * tuple */
uint32_t fu_subshape_count(const HloModule *m, uint32_t s);

/* IsReduceInputFusion: c's root is a reduce from or to contiguous
 * dimensions, or a tuple of which an element is one */
int fu_reduce_root(const HloModule *m, uint32_t c);

/* a live instruction of fused computation c but its parameters is
 * expensive (GpuInstructionFusion::IsExpensive) */
int fu_has_expensive(const HloModule *m, uint32_t c);

/* gpu_fusible.cc FusionFitsInBudget(consumer x, producer p,
 * is_consumer_producer_fusion) at 9d7df89334: at most FU_MAX_REDUCES
 * reduces from or to contiguous dimensions and FU_MAX_OPERANDS operands
 * plus outputs (the shared-memory budget is not modelled); xo, po: the
 * operands of x and p (nx, np of them), xc, pc their computations */
int fu_fits_in_budget(const HloModule *m, uint32_t xshape, uint32_t xc,
	const uint32_t *xo, uint32_t nx, uint32_t pshape, uint32_t pc,
	const uint32_t *po, uint32_t np, uint32_t x, uint32_t p);

#endif
