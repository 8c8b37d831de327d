/* pipelines.c: the named pipelines --passes accepts, as data.
 *
 * default: XLA:CPU's target-independent pipeline, step for step, up to
 * layout assignment (xla_cpu.def: openxla/xla
 * 353a6d6c92ef866744f0b8c855c1117a27957630, cpu_compiler.cc). Its
 * sequence is computed from the table: a step runs when its action is
 * registered, so each pass that lands joins it where XLA runs it; the
 * others are reported (hlopt passes --pipelines) as not implemented or
 * not run, with the reason. Like XLA, no dce after the last step.
 *
 * saturate: a fixed point of every registered pass that never raises the
 * instruction count. Every registered pass is classified, in
 * pass_saturate_members or pass_may_raise (check_passes.c fails on a pass
 * in neither, so a new pass forces the decision, and checks on data/
 * that no saturate member raised the count).
 */
#include <stddef.h>
#include <string.h>

#include "pass.h"

static const PassXlaStep xla_cpu_steps[] = {
#define STEP(kind, xla, action, note) {kind, xla, action, note},
#include "xla_cpu.def"
#undef STEP
};

/* by design never add an instruction: they delete, merge, forward or
 * replace one instruction by at most one (names of passes still to land
 * are classified in advance) */
const char *const pass_saturate_members[] = {
	"cse", "dce", "tuple-simplifier", "constant_folding",
	"constant_folding:aggressive",
	"transpose-folding", "zero_sized_hlo_elimination",
	"call-inliner:single-call-site", "simplify-sorts",
	"computation-deduplicator",
	"simplify-fp-conversions", "cse_barrier_expander",
	"cse:layout-sensitive", "sharding-remover", "map-inline",
	"while-loop-trip-count-annotator", "defuser",
	"all-reduce-folder",
	NULL
};

/* may add instructions: expanders, canonicalizers, code motion, cloning,
 * fusion (a fusion computation's parameters count) */
const char *const pass_may_raise[] = {
	"algsimp", "algsimp:default", "algsimp:move-dot-param-to-rhs",
	"algsimp:conv-add-multiply-reorder",
	"algsimp:raise-slice-and-reduce-through-dot",	/* a slice of a dot
				 * becomes a slice of each operand */
	"algsimp:associative-reordering",	/* xla's rules are not all shrinking: on
				 * data/ it raised BERT's training step after
				 * default 663 -> 669 (reshape of a transpose
				 * into slices and a concatenate), jax-md's
				 * apply_fn 1041 -> 1051, tpu_layout_module
				 * 3163 -> 3166 */
	"slice-sinker",		/* bench_mass_matrix_35 after default
				 * 693 -> 729 */
	"reshape-mover",	/* a reshape of each non-trivial operand */
	"simplify-while-loops",	/* flattening nested loop state adds
				 * get-tuple-elements */
	"while-loop-invariant-code-motion",	/* a get-tuple-element for
				 * each hoisted value */
	"while-loop-constant-sinking",	/* a constant in body and
				 * condition */
	"simplify-conditional",	/* a select of both branches inlined */
	"call-inliner",		/* one copy per call site */
	"flatten-call-graph",	/* clones computations */
	"convert-mover",	/* a convert per concatenate operand */
	"fusion:cpu", "fusion:gpu", "fusion:all", "fusion-merger",
	"fusion-merger:across", "multi_output_fusion",
	"real_imag_expander", "logistic-expander", "comparison-expander",
	"dynamic-index-splitter", "conditional-canonicalizer",
	"gather_expander", "gather_expander:simple", "gather_simplifier",
	"scatter_expander", "scatter_expander:simple",
	"scatter_expander:indeterministic", "scatter_simplifier",
	"select_and_scatter_expander", "batch-dot-simplification",
	"dot_decomposer", "operand_upcaster", "result_caster", "dot-merger",
	"convolution-group-converter",
	"convolution-group-converter:batch-groups-only",
	"convolution-group-converter:cpu", "tree_reduction_rewriter",
	"batchnorm_expander", "stable-sort-expander",
	"bitcast_dtypes_expander", "stochastic_convert_decomposer",
	"reduce-decomposer", "broadcast_canonicalizer", "topk-decomposer",
	"rng-expander", "rng-bit-generator-expander", "topk-rewriter",
	"topk-decomposer:topk-op", "conditional-to-select",
	"root-instruction-sinker", "hlo-constant-splitter",
	"dynamic-dimension-simplifier",	/* a new reshape where the old
				 * one keeps other users */
	"while-loop-expensive-invariant-code-motion", "while_loop_unroller",
	"while_loop_unroller:wrapped",
	"conditional-code-motion",
	"horizontal_loop_fusion",	/* get-tuple-elements, bitcasts,
				 * concatenate and slices */
	"multi_output_fusion:producer-consumer",
	"change-op-data-type", "all-reduce-promotion",	/* converts */
	"reduce-window-rewriter", "reduce-window-resizer",	/* a
				 * reduce-window becomes reshapes around one,
				 * or a tree of two and a map */
	"gather_scatter_normalizer",	/* iotas, concatenate, convert */
	"float-normalization-f8e5m2", "float-normalization-f8e4m3",
	"float-normalization-f8e4m3fn", "float-normalization-f8e4m3b11fnuz",
	"float-normalization-f8e5m2fnuz", "float-normalization-f8e4m3fnuz",
	"float-normalization-f8e3m4", "float-normalization-s4",
	"float-normalization-u4", "float-normalization-f4e2m1fn",
	"float-normalization-f8e8m0fnu", "float-normalization-bf16",
	"triangular_solve_expander", "cholesky_expander",
	"all_to_all_decomposer",	/* slices, get-tuple-elements, concatenate */
	"fusion-wrapper",	/* a fusion and a parameter per wrapped
				 * instruction */
	"qr_expander", "eigh_expander",
	NULL
};

const PassPipeline pass_pipelines[] = {
	{"default", "XLA:CPU's target-independent pipeline up to layout "
	    "assignment, step for step; the steps hlopt does not implement "
	    "are left out; no final dce, as in XLA", NULL, xla_cpu_steps,
	    (int)(sizeof xla_cpu_steps / sizeof xla_cpu_steps[0]), NULL,
	    "openxla/xla 353a6d6c92ef866744f0b8c855c1117a27957630 "
	    "xla/service/cpu/cpu_compiler.cc "
	    "(CpuCompiler::RunHloPassesThroughLayoutAssn)"},
	{"saturate", "a fixed point of every registered pass that never "
	    "raises the instruction count", NULL, NULL, 0,
	    pass_saturate_members, NULL},
};

const int pass_npipelines = sizeof pass_pipelines / sizeof pass_pipelines[0];

static int
registered(const char *name)
{
	return name && pass_lookup(name, strlen(name)) >= 0;
}

int
pass_step_status(const PassXlaStep *st)
{
	if (st->kind != PASS_STEP_PASS)
		return PASS_STEP_GROUP;
	if (!st->action)
		return PASS_STEP_NEVER;
	if (!registered(st->action))
		return PASS_STEP_MISSING;
	return st->note ? PASS_STEP_DIFFERS : PASS_STEP_RUN;
}

const char *
pass_step_status_name(int status)
{
	switch (status) {
	case PASS_STEP_RUN: return "run";
	case PASS_STEP_DIFFERS: return "run differently";
	case PASS_STEP_MISSING: return "not implemented in hlopt";
	case PASS_STEP_NEVER: return "not run";
	default: return "group";
	}
}

static void
add(HloBuf *b, const char *s)
{
	if (b->len && b->buf[b->len - 1] != '(')
		hlo_buf_puts(b, ",");
	hlo_buf_puts(b, s);
}

/* the steps that run; a fixed point with no member left is dropped */
static void
steps_seq(const PassPipeline *p, HloBuf *b)
{
	int i;
	size_t open = 0;

	for (i = 0; i < p->nsteps; i++) {
		const PassXlaStep *st = &p->steps[i];

		if (st->kind == PASS_STEP_FIX) {
			open = b->len;
			add(b, "fix(");
		} else if (st->kind == PASS_STEP_END) {
			if (b->buf[b->len - 1] == '(')
				b->len = open;	/* empty: dropped */
			else
				hlo_buf_puts(b, ")");
			b->buf[b->len] = '\0';
		} else if (registered(st->action)) {
			add(b, st->action);
		}
	}
}

void
pass_pipeline_seq(const PassPipeline *p, HloBuf *b)
{
	int i, n = 0;

	hlo_buf_puts(b, "");
	if (p->seq) {
		hlo_buf_puts(b, p->seq);
	} else if (p->steps) {
		steps_seq(p, b);
	} else if (p->members) {
		hlo_buf_puts(b, "fix(");
		for (i = 0; p->members[i]; i++) {
			if (!registered(p->members[i]))
				continue;
			if (n++)
				hlo_buf_puts(b, ",");
			hlo_buf_puts(b, p->members[i]);
		}
		hlo_buf_puts(b, ")");
	}
}
