/* variants.c: passes registered again with options other than xla's
 * defaults, each its own action named "<xla name>:<option>" (pass.h):
 * the options are set for one run of the pass and restored after. */
#include "pass.h"

/* run with the option *opt (a field of ctx->opt) set to v, then
 * restore it */
static int
with(HloModule *m, PassCtx *ctx, int *opt, int v, int (*run)(HloModule *,
	PassCtx *))
{
	int save = *opt, r;

	*opt = v;
	r = run(m, ctx);
	*opt = save;
	return r;
}

/* CallInliner(single_call_site=true), as XLA:CPU runs it */
int
pass_call_inliner_single(HloModule *m, PassCtx *ctx)
{
	return with(m, ctx, &ctx->opt.single_call_site, 1, pass_call_inliner);
}

/* HloCSE(is_layout_sensitive=true), as XLA:CPU runs it after layout
 * assignment */
int
pass_cse_layout(HloModule *m, PassCtx *ctx)
{
	return with(m, ctx, &ctx->opt.cse_layout_sensitive, 1, pass_cse);
}

/* GatherExpander(kEliminateSimpleGathers), as XLA:CPU runs it inside its
 * simplification fixed point */
int
pass_gather_expander_simple(HloModule *m, PassCtx *ctx)
{
	return with(m, ctx, &ctx->opt.gather_simple, 1, pass_gather_expander);
}

/* ScatterExpander(kEliminateSimpleScatters), as XLA:CPU runs it with
 * fusion emitters */
int
pass_scatter_expander_simple(HloModule *m, PassCtx *ctx)
{
	return with(m, ctx, &ctx->opt.scatter_mode, 1, pass_scatter_expander);
}

/* ScatterExpander(kEliminateIndeterministicScatters), as XLA:GPU runs it
 * for deterministic ops */
int
pass_scatter_expander_indet(HloModule *m, PassCtx *ctx)
{
	return with(m, ctx, &ctx->opt.scatter_mode, 2, pass_scatter_expander);
}

/* ConvolutionGroupConverter(convert_batch_groups_only=false) as XLA:CPU
 * runs it second: feature groups of convolutions not f16 or f32 */
int
pass_conv_group_converter_feature(HloModule *m, PassCtx *ctx)
{
	return with(m, ctx, &ctx->opt.conv_feature_groups, 1,
	    pass_conv_group_converter);
}

/* WhileLoopUnroller(-1, wrap_in_trivial_loop=true): each unrolled loop
 * stays a while that runs once */
int
pass_while_loop_unroller_wrapped(HloModule *m, PassCtx *ctx)
{
	return with(m, ctx, &ctx->opt.unroll_wrap, 1,
	    pass_while_loop_unroller);
}

/* TopkDecomposer with XLA:CPU's predicate: topk instructions only (the
 * TopK custom-calls topk-rewriter makes stay) */
int
pass_topk_decomposer_ops(HloModule *m, PassCtx *ctx)
{
	return with(m, ctx, &ctx->opt.topk_ops_only, 1, pass_topk_decomposer);
}

/* HloConstantFolding(Level::kAgressive), as XLA:CPU runs it with
 * xla_cpu's fold-all-constants option */
int
pass_constant_folding_aggressive(HloModule *m, PassCtx *ctx)
{
	return with(m, ctx, &ctx->opt.cf_aggressive, 1,
	    pass_constant_folding);
}
