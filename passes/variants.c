/* variants.c: passes registered again with options other than xla's
 * defaults, each its own action named "<xla name>:<option>" (pass.h):
 * the options are set for one run of the pass and restored after. */
#include "pass.h"

/* CallInliner(single_call_site=true), as XLA:CPU runs it */
int
pass_call_inliner_single(HloModule *m, PassCtx *ctx)
{
	int save = ctx->opt.single_call_site, r;

	ctx->opt.single_call_site = 1;
	r = pass_call_inliner(m, ctx);
	ctx->opt.single_call_site = save;
	return r;
}

/* HloCSE(is_layout_sensitive=true), as XLA:CPU runs it after layout
 * assignment */
int
pass_cse_layout(HloModule *m, PassCtx *ctx)
{
	int save = ctx->opt.cse_layout_sensitive, r;

	ctx->opt.cse_layout_sensitive = 1;
	r = pass_cse(m, ctx);
	ctx->opt.cse_layout_sensitive = save;
	return r;
}

/* GatherExpander(kEliminateSimpleGathers), as XLA:CPU runs it inside its
 * simplification fixed point */
int
pass_gather_expander_simple(HloModule *m, PassCtx *ctx)
{
	int save = ctx->opt.gather_simple, r;

	ctx->opt.gather_simple = 1;
	r = pass_gather_expander(m, ctx);
	ctx->opt.gather_simple = save;
	return r;
}

/* ScatterExpander(kEliminateSimpleScatters), as XLA:CPU runs it with
 * fusion emitters */
int
pass_scatter_expander_simple(HloModule *m, PassCtx *ctx)
{
	int save = ctx->opt.scatter_mode, r;

	ctx->opt.scatter_mode = 1;
	r = pass_scatter_expander(m, ctx);
	ctx->opt.scatter_mode = save;
	return r;
}

/* ScatterExpander(kEliminateIndeterministicScatters), as XLA:GPU runs it
 * for deterministic ops */
int
pass_scatter_expander_indet(HloModule *m, PassCtx *ctx)
{
	int save = ctx->opt.scatter_mode, r;

	ctx->opt.scatter_mode = 2;
	r = pass_scatter_expander(m, ctx);
	ctx->opt.scatter_mode = save;
	return r;
}

/* ConvolutionGroupConverter(convert_batch_groups_only=false) as XLA:CPU
 * runs it second: feature groups of convolutions not f16 or f32 */
int
pass_conv_group_converter_feature(HloModule *m, PassCtx *ctx)
{
	int save = ctx->opt.conv_feature_groups, r;

	ctx->opt.conv_feature_groups = 1;
	r = pass_conv_group_converter(m, ctx);
	ctx->opt.conv_feature_groups = save;
	return r;
}
