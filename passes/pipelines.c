/* pipelines.c: the named pipelines --passes accepts ("default",
 * "saturate", ...), as data: a sequence in --passes syntax and, for the
 * ones that mirror XLA, the passes XLA runs there that hlopt does not
 * (or runs with other options) and why. */
#include <stddef.h>

#include "pass.h"

/* xla:CPU's simplification pipeline restricted to the passes
 * registered, with a final dce */
static const char default_seq[] =
	"zero_sized_hlo_elimination,"
	"fix(algsimp,simplify-sorts,dce,zero_sized_hlo_elimination,"
	"while-loop-invariant-code-motion,tuple-simplifier,"
	"while-loop-constant-sinking,simplify-while-loops,dce,reshape-mover,"
	"constant_folding,simplify-conditional),"
	"transpose-folding,cse,cse_barrier_expander,tuple-simplifier,"
	"flatten-call-graph,dce";

const PassPipeline pass_pipelines[] = {
	{"default", "XLA:CPU's simplification pipeline restricted to the "
	    "passes hlopt has, then a final dce", default_seq, NULL, 0},
};

const int pass_npipelines = sizeof pass_pipelines / sizeof pass_pipelines[0];
