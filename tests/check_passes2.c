/* check_passes2.c: reshape-mover, transpose-folding, simplify-while-loops,
 * while-loop-invariant-code-motion, while-loop-constant-sinking,
 * simplify-conditional, slice-sinker, convert-mover,
 * simplify-fp-conversions and constant_folding.
 *
 * Golden tests: each case runs one pass (verifier on) over a small module
 * and compares the printed result with the expected module, instruction
 * and computation names ignored (they are renumbered in order of
 * appearance; parameter lists of computation headers are dropped); a
 * NULL expectation means the pass must report no change and leave the
 * module as it was. Most cases are the rules of xla's *_test.cc for the
 * pass, including those where nothing may fire. Then: determinism (the
 * same input twice gives byte-identical output), a sweep of every pass
 * alone over data/ (and the corpus with HLOPT_SWEEP=full) that keeps the
 * verifier happy and, for modules small enough to evaluate quickly,
 * computes the same outputs as before. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hlo.h"
#include "eval.h"
#include "pass.h"
#include "testutil.h"

typedef struct {
	const char *id;
	const char *pass;
	const char *in;
	const char *out;	/* NULL: unchanged */
} Case;

/* the ten passes this file covers */
static const char *const mine[] = {
	"constant_folding", "reshape-mover", "transpose-folding",
	"simplify-while-loops", "while-loop-invariant-code-motion",
	"while-loop-constant-sinking", "simplify-conditional", "slice-sinker",
	"convert-mover", "simplify-fp-conversions",
};

static const char rm_diff_input_shapes_in[] =
	"HloModule test\n"
	"ENTRY test {\n"
	"  reshape0 = f32[8,7] reshape(f32[1,8,1,7] parameter(0))\n"
	"  reshape1 = f32[8,7] reshape(f32[1,8,7,1] parameter(1))\n"
	"  ROOT add = f32[8,7] add(reshape0, reshape1)\n"
	"}\n";

static const char rm_rng_trivial_in[] =
	"HloModule test\n"
	"ENTRY test {\n"
	"  rng = f32[1,8,1,7,1] rng(f32[] constant(0), f32[] constant(1)), distribution=rng_uniform\n"
	"  ROOT add = f32[8,7] add(f32[8,7] reshape(rng), f32[8,7] constant({...}))\n"
	"}\n";

static const char rm_select_constant_in[] =
	"HloModule test\n"
	"ENTRY test {\n"
	"  ROOT select = f32[2,3] select(pred[2,3] reshape(pred[6] parameter(0)), f32[2,3] reshape(f32[6] parameter(1)), f32[2,3] constant({...}))\n"
	"}\n";
static const char rm_select_constant_out[] =
	"HloModule test\n"
	"ENTRY %test (parameter.0: pred[6], parameter.2: f32[6]) -> f32[2,3] {\n"
	"  %parameter.0 = pred[6] parameter(0)\n"
	"  %parameter.2 = f32[6] parameter(1)\n"
	"  %constant.4 = f32[2,3] constant({...})\n"
	"  %reshape.5 = f32[6] reshape(f32[2,3] %constant.4)\n"
	"  %select.6 = f32[6] select(pred[6] %parameter.0, f32[6] %parameter.2, f32[6] %reshape.5)\n"
	"  ROOT %reshape.7 = f32[2,3] reshape(f32[6] %select.6)\n"
	"}\n";

static const char rm_reshapes_of_constants_in[] =
	"HloModule test\n"
	"ENTRY test {\n"
	"  ROOT select = f32[3,2] select(pred[3,2] parameter(0), f32[3,2] reshape(f32[2,3] constant({...})), f32[3,2] reshape(f32[2,3] constant({...})))\n"
	"}\n";

static const char rm_multiple_in[] =
	"HloModule test\n"
	"ENTRY test {\n"
	"  add0 = f32[8,7,1] add(f32[8,7,1] reshape(f32[1,8,1,7] parameter(0)), f32[8,7,1] reshape(f32[1,8,1,7] parameter(1)))\n"
	"  ROOT add1 = f32[8,7] add(f32[8,7] reshape(add0), f32[8,7] reshape(f32[8,7,1] parameter(2)))\n"
	"}\n";
static const char rm_multiple_out[] =
	"HloModule test\n"
	"ENTRY %test (parameter.0: f32[1,8,1,7], parameter.2: f32[1,8,1,7], parameter.5: f32[8,7,1]) -> f32[8,7] {\n"
	"  %parameter.0 = f32[1,8,1,7] parameter(0)\n"
	"  %parameter.2 = f32[1,8,1,7] parameter(1)\n"
	"  %parameter.5 = f32[8,7,1] parameter(2)\n"
	"  %add0.7 = f32[1,8,1,7] add(f32[1,8,1,7] %parameter.0, f32[1,8,1,7] %parameter.2)\n"
	"  %reshape.8 = f32[8,7,1] reshape(f32[1,8,1,7] %add0.7)\n"
	"  %add1.9 = f32[8,7,1] add(f32[8,7,1] %reshape.8, f32[8,7,1] %parameter.5)\n"
	"  ROOT %reshape.10 = f32[8,7] reshape(f32[8,7,1] %add1.9)\n"
	"}\n";

static const char rm_transpose_bcast_scalar_in[] =
	"HloModule m\n"
	"ENTRY e {\n"
	"  src0 = f32[20,8]{1,0} parameter(0)\n"
	"  transpose0 = f32[8,20]{1,0} transpose(src0), dimensions={1,0}\n"
	"  src1 = f32[] parameter(1)\n"
	"  broadcast0 = f32[8,20]{1,0} broadcast(src1), dimensions={}\n"
	"  ROOT multiply0 = f32[8,20]{1,0} multiply(transpose0, broadcast0)\n"
	"}\n";
static const char rm_transpose_bcast_scalar_out[] =
	"HloModule m\n"
	"ENTRY %e (src0: f32[20,8]{1,0}, src1: f32[]) -> f32[8,20]{1,0} {\n"
	"  %src0 = f32[20,8]{1,0} parameter(0)\n"
	"  %transpose0 = f32[8,20]{1,0} transpose(f32[20,8]{1,0} %src0), dimensions={1,0}\n"
	"  %src1 = f32[] parameter(1)\n"
	"  %broadcast0 = f32[8,20]{1,0} broadcast(f32[] %src1), dimensions={}\n"
	"  %transpose.0 = f32[20,8]{0,1} transpose(f32[8,20]{1,0} %transpose0), dimensions={1,0}\n"
	"  %transpose.1 = f32[20,8]{0,1} transpose(f32[8,20]{1,0} %broadcast0), dimensions={1,0}\n"
	"  %multiply0.2 = f32[20,8]{1,0} multiply(f32[20,8]{0,1} %transpose.0, f32[20,8]{0,1} %transpose.1)\n"
	"  ROOT %transpose.3 = f32[8,20]{1,0} transpose(f32[20,8]{1,0} %multiply0.2), dimensions={1,0}\n"
	"}\n";

static const char rm_users_outside_in[] =
	"HloModule m\n"
	"ENTRY e {\n"
	"  param0 = f32[20,8]{1,0} parameter(0)\n"
	"  reshape0 = f32[8,20]{1,0} reshape(param0)\n"
	"  param1 = f32[] parameter(1)\n"
	"  broadcast0 = f32[8,20]{1,0} broadcast(param1), dimensions={}\n"
	"  param2 = f32[20,8]{1,0} parameter(2)\n"
	"  reshape1 = f32[8,20]{1,0} reshape(param2)\n"
	"  param3 = f32[20,8]{1,0} parameter(3)\n"
	"  reshape2 = f32[8,20]{1,0} reshape(param3)\n"
	"  param4 = f32[8,20]{1,0} parameter(4)\n"
	"  add0 = f32[8,20]{1,0} add(reshape0, broadcast0)\n"
	"  add1 = f32[8,20]{1,0} add(reshape0, reshape1)\n"
	"  add2 = f32[8,20]{1,0} add(reshape1, param4)\n"
	"  ROOT tuple = (f32[8,20]{1,0},f32[8,20]{1,0},f32[8,20]{1,0}) tuple(add0, add1, add2)\n"
	"}\n";

static const char rm_users_inside_in[] =
	"HloModule m\n"
	"ENTRY e {\n"
	"  param0 = f32[20,8]{1,0} parameter(0)\n"
	"  reshape0 = f32[8,20]{1,0} reshape(param0)\n"
	"  param1 = f32[] parameter(1)\n"
	"  broadcast0 = f32[8,20]{1,0} broadcast(param1), dimensions={}\n"
	"  param2 = f32[20,8]{1,0} parameter(2)\n"
	"  reshape1 = f32[8,20]{1,0} reshape(param2)\n"
	"  param3 = f32[20,8]{1,0} parameter(3)\n"
	"  reshape2 = f32[8,20]{1,0} reshape(param3)\n"
	"  \n"
	"  add0 = f32[8,20]{1,0} add(reshape0, broadcast0)\n"
	"  add1 = f32[8,20]{1,0} add(reshape0, reshape1)\n"
	"  add2 = f32[8,20]{1,0} add(reshape1, reshape2)\n"
	"  ROOT tuple = (f32[8,20]{1,0},f32[8,20]{1,0},f32[8,20]{1,0}) tuple(add0, add1, add2)\n"
	"}\n";
static const char rm_users_inside_out[] =
	"HloModule m\n"
	"ENTRY %e (param0: f32[20,8]{1,0}, param1: f32[], param2: f32[20,8]{1,0}, param3: f32[20,8]{1,0}) -> (f32[8,20]{1,0}, f32[8,20]{1,0}, f32[8,20]{1,0}) {\n"
	"  %param0 = f32[20,8]{1,0} parameter(0)\n"
	"  %param1 = f32[] parameter(1)\n"
	"  %broadcast0 = f32[8,20]{1,0} broadcast(f32[] %param1), dimensions={}\n"
	"  %param2 = f32[20,8]{1,0} parameter(2)\n"
	"  %param3 = f32[20,8]{1,0} parameter(3)\n"
	"  %reshape.0 = f32[20,8]{1,0} reshape(f32[8,20]{1,0} %broadcast0)\n"
	"  %add0.1 = f32[20,8]{1,0} add(f32[20,8]{1,0} %param0, f32[20,8]{1,0} %reshape.0)\n"
	"  %reshape.2 = f32[8,20]{1,0} reshape(f32[20,8]{1,0} %add0.1)\n"
	"  %add1.3 = f32[20,8]{1,0} add(f32[20,8]{1,0} %param0, f32[20,8]{1,0} %param2)\n"
	"  %reshape.4 = f32[8,20]{1,0} reshape(f32[20,8]{1,0} %add1.3)\n"
	"  %add2.5 = f32[20,8]{1,0} add(f32[20,8]{1,0} %param2, f32[20,8]{1,0} %param3)\n"
	"  %reshape.6 = f32[8,20]{1,0} reshape(f32[20,8]{1,0} %add2.5)\n"
	"  ROOT %tuple = (f32[8,20]{1,0}, f32[8,20]{1,0}, f32[8,20]{1,0}) tuple(f32[8,20]{1,0} %reshape.2, f32[8,20]{1,0} %reshape.4, f32[8,20]{1,0} %reshape.6)\n"
	"}\n";

static const char rm_rank1_bcast_in[] =
	"HloModule m\n"
	"ENTRY e {\n"
	"  a = f32[2,3] broadcast(f32[2] parameter(0)), dimensions={0}\n"
	"  b = f32[2,3] reshape(f32[6] parameter(1))\n"
	"  ROOT add0 = f32[2,3] add(a, b)\n"
	"}\n";

static const char rm_transpose_of_bcast_in[] =
	"HloModule m\n"
	"ENTRY e {\n"
	"  a = f32[2,3] broadcast(f32[2] parameter(0)), dimensions={0}\n"
	"  b = f32[2,3] transpose(f32[3,2] parameter(1)), dimensions={1,0}\n"
	"  ROOT add0 = f32[2,3] add(a, b)\n"
	"}\n";
static const char rm_transpose_of_bcast_out[] =
	"HloModule m\n"
	"ENTRY %e (parameter.0: f32[2], parameter.1: f32[3,2]) -> f32[2,3] {\n"
	"  %parameter.0 = f32[2] parameter(0)\n"
	"  %a = f32[2,3] broadcast(f32[2] %parameter.0), dimensions={0}\n"
	"  %parameter.1 = f32[3,2] parameter(1)\n"
	"  %b = f32[2,3] transpose(f32[3,2] %parameter.1), dimensions={1,0}\n"
	"  %transpose.2 = f32[3,2] transpose(f32[2,3] %a), dimensions={1,0}\n"
	"  %transpose.3 = f32[3,2] transpose(f32[2,3] %b), dimensions={1,0}\n"
	"  %add0.4 = f32[3,2] add(f32[3,2] %transpose.2, f32[3,2] %transpose.3)\n"
	"  ROOT %transpose.5 = f32[2,3] transpose(f32[3,2] %add0.4), dimensions={1,0}\n"
	"}\n";

static const char rm_transpose_reorders_bcast_in[] =
	"HloModule m\n"
	"ENTRY e {\n"
	"  a = f32[2,3,5] broadcast(f32[2,3] parameter(0)), dimensions={0,1}\n"
	"  b = f32[2,3,5] transpose(f32[3,2,5] parameter(1)), dimensions={1,0,2}\n"
	"  ROOT add0 = f32[2,3,5] add(a, b)\n"
	"}\n";

static const char rm_same_operand_twice_in[] =
	"HloModule m\n"
	"ENTRY e {\n"
	"  param0 = f32[20,8]{1,0} parameter(0)\n"
	"  reshape0 = f32[8,20]{1,0} reshape(param0)\n"
	"  ROOT add0 = f32[8,20]{1,0} add(reshape0, reshape0)\n"
	"}\n";
static const char rm_same_operand_twice_out[] =
	"HloModule m\n"
	"ENTRY %e (param0: f32[20,8]{1,0}) -> f32[8,20]{1,0} {\n"
	"  %param0 = f32[20,8]{1,0} parameter(0)\n"
	"  %add0.0 = f32[20,8]{1,0} add(f32[20,8]{1,0} %param0, f32[20,8]{1,0} %param0)\n"
	"  ROOT %reshape.1 = f32[8,20]{1,0} reshape(f32[20,8]{1,0} %add0.0)\n"
	"}\n";

static const char tf_dot_rhs_in[] =
	"HloModule FoldDotTranspose\n"
	"ENTRY entry_computation {\n"
	"  x = f32[2,3]{1,0} parameter(0)\n"
	"  y = f32[2,3]{1,0} parameter(1)\n"
	"  transpose = f32[3,2]{1,0} transpose(y), dimensions={1,0}\n"
	"  ROOT dot = f32[2,2]{1,0} dot(x, transpose), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
	"}\n";
static const char tf_dot_rhs_out[] =
	"HloModule FoldDotTranspose\n"
	"ENTRY %entry_computation (x: f32[2,3]{1,0}, y: f32[2,3]{1,0}) -> f32[2,2]{1,0} {\n"
	"  %x = f32[2,3]{1,0} parameter(0)\n"
	"  %y = f32[2,3]{1,0} parameter(1)\n"
	"  ROOT %dot = f32[2,2]{1,0} dot(f32[2,3]{1,0} %x, f32[2,3]{1,0} %y), lhs_contracting_dims={1}, rhs_contracting_dims={1}\n"
	"}\n";

static const char tf_batch_dim_not_in[] =
	"HloModule FoldDotTranspose\n"
	"ENTRY entry_computation {\n"
	"  x = f32[2,3] parameter(0)\n"
	"  y = f32[3,2] parameter(1)\n"
	"  transpose = f32[2,3] transpose(y), dimensions={1,0}\n"
	"  ROOT dot = f32[2] dot(x, transpose), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={1}\n"
	"}\n";

static const char tf_rank1_not_in[] =
	"HloModule FoldDotTranspose\n"
	"ENTRY entry_computation {\n"
	"  x = f32[3] parameter(0)\n"
	"  y = f32[3,2] parameter(1)\n"
	"  transpose = f32[2,3] transpose(y), dimensions={1,0}\n"
	"  ROOT dot = f32[2] dot(x, transpose), lhs_batch_dims={}, rhs_batch_dims={}, lhs_contracting_dims={0}, rhs_contracting_dims={1}\n"
	"}\n";

static const char tf_dot_constants_in[] =
	"HloModule FoldDotTransposeConstant\n"
	"ENTRY entry_computation {\n"
	"  constant = f32[2,1]{1,0} constant({ { 1 }, { 2 } })\n"
	"  transpose = f32[1,2]{1,0} transpose(constant), dimensions={1,0}\n"
	"  constant.1 = f32[3,2]{1,0} constant({ { 1, 2 }, { 3, 4 }, { 5, 6 } })\n"
	"  transpose.1 = f32[2,3]{1,0} transpose(constant.1), dimensions={1,0}\n"
	"  ROOT dot = f32[1,3]{1,0} dot(transpose, transpose.1), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
	"}\n";
static const char tf_dot_constants_out[] =
	"HloModule FoldDotTransposeConstant\n"
	"ENTRY %entry_computation () -> f32[1,3]{1,0} {\n"
	"  %constant = f32[2,1]{1,0} constant({ {1}, {2} })\n"
	"  %constant.1 = f32[3,2]{1,0} constant({ {1, 2}, {3, 4}, {5, 6} })\n"
	"  ROOT %dot = f32[1,3]{1,0} dot(f32[2,1]{1,0} %constant, f32[3,2]{1,0} %constant.1), lhs_contracting_dims={0}, rhs_contracting_dims={1}\n"
	"}\n";

static const char tf_dot_in_call_in[] =
	"HloModule FoldDotTransposeInCall\n"
	"callee {\n"
	"  name.0 = f32[2,3]{1,0} parameter(0)\n"
	"  name.1 = f32[2,3]{1,0} parameter(1)\n"
	"  transpose.clone = f32[3,2]{1,0} transpose(name.0), dimensions={1,0}\n"
	"  ROOT dot.clone = f32[2,2]{1,0} dot(name.1, transpose.clone), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
	"}\n"
	"ENTRY entry_computation {\n"
	"  y = f32[2,3]{1,0} parameter(1)\n"
	"  x = f32[2,3]{1,0} parameter(0)\n"
	"  ROOT call = f32[2,2]{1,0} call(y, x), to_apply=callee\n"
	"}\n";
static const char tf_dot_in_call_out[] =
	"HloModule FoldDotTransposeInCall\n"
	"%callee (name.0: f32[2,3]{1,0}, name.1: f32[2,3]{1,0}) -> f32[2,2]{1,0} {\n"
	"  %name.0 = f32[2,3]{1,0} parameter(0)\n"
	"  %name.1 = f32[2,3]{1,0} parameter(1)\n"
	"  ROOT %dot.clone = f32[2,2]{1,0} dot(f32[2,3]{1,0} %name.1, f32[2,3]{1,0} %name.0), lhs_contracting_dims={1}, rhs_contracting_dims={1}\n"
	"}\n"
	"ENTRY %entry_computation (x: f32[2,3]{1,0}, y: f32[2,3]{1,0}) -> f32[2,2]{1,0} {\n"
	"  %y = f32[2,3]{1,0} parameter(1)\n"
	"  %x = f32[2,3]{1,0} parameter(0)\n"
	"  ROOT %call = f32[2,2]{1,0} call(f32[2,3]{1,0} %y, f32[2,3]{1,0} %x), to_apply=%callee\n"
	"}\n";

static const char tf_conv_rhs_in[] =
	"HloModule conv\n"
	"ENTRY e {\n"
	"  x = f32[2,3,1,1] parameter(0)\n"
	"  y = f32[3,2,1,1] parameter(1)\n"
	"  t = f32[2,3,1,1] transpose(y), dimensions={1,0,2,3}\n"
	"  ROOT conv = f32[2,2,1,1] convolution(x, t), window={size=1x1}, dim_labels=bf01_oi01->bf01, backend_config=\"x\"\n"
	"}\n";
static const char tf_conv_rhs_out[] =
	"HloModule conv\n"
	"ENTRY %e (x: f32[2,3,1,1], y: f32[3,2,1,1]) -> f32[2,2,1,1] {\n"
	"  %x = f32[2,3,1,1] parameter(0)\n"
	"  %y = f32[3,2,1,1] parameter(1)\n"
	"  ROOT %conv = f32[2,2,1,1] convolution(f32[2,3,1,1] %x, f32[3,2,1,1] %y), window={size=1x1}, dim_labels=bf01_io01->bf01\n"
	"}\n";

static const char tf_conv_lhs_in[] =
	"HloModule conv\n"
	"ENTRY e {\n"
	"  x = f32[3,2,1,1] parameter(0)\n"
	"  y = f32[2,3,1,1] parameter(1)\n"
	"  t = f32[2,3,1,1] transpose(x), dimensions={1,0,2,3}\n"
	"  ROOT conv = f32[2,2,1,1] convolution(t, y), window={size=1x1}, dim_labels=bf01_oi01->bf01\n"
	"}\n";
static const char tf_conv_lhs_out[] =
	"HloModule conv\n"
	"ENTRY %e (x: f32[3,2,1,1], y: f32[2,3,1,1]) -> f32[2,2,1,1] {\n"
	"  %x = f32[3,2,1,1] parameter(0)\n"
	"  %y = f32[2,3,1,1] parameter(1)\n"
	"  ROOT %conv = f32[2,2,1,1] convolution(f32[3,2,1,1] %x, f32[2,3,1,1] %y), window={size=1x1}, dim_labels=fb01_oi01->bf01\n"
	"}\n";

static const char tf_batch_dot_in[] =
	"HloModule batch\n"
	"ENTRY e {\n"
	"  x = f32[5,2,3] parameter(0)\n"
	"  y = f32[5,4,3] parameter(1)\n"
	"  t = f32[5,3,4] transpose(y), dimensions={0,2,1}\n"
	"  ROOT dot = f32[5,2,4] dot(x, t), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}\n"
	"}\n";
static const char tf_batch_dot_out[] =
	"HloModule batch\n"
	"ENTRY %e (x: f32[5,2,3], y: f32[5,4,3]) -> f32[5,2,4] {\n"
	"  %x = f32[5,2,3] parameter(0)\n"
	"  %y = f32[5,4,3] parameter(1)\n"
	"  ROOT %dot = f32[5,2,4] dot(f32[5,2,3] %x, f32[5,4,3] %y), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}\n"
	"}\n";

static const char tf_control_dep_in[] =
	"HloModule m\n"
	"ENTRY e {\n"
	"  x = f32[2,3] parameter(0)\n"
	"  y = f32[2,3] parameter(1)\n"
	"  c = f32[] constant(0)\n"
	"  t = f32[3,2] transpose(y), dimensions={1,0}\n"
	"  ROOT d = f32[2,2] dot(x, t), lhs_contracting_dims={1}, rhs_contracting_dims={0}, control-predecessors={c}\n"
	"}\n";

static const char ss_ternary_in[] =
	"HloModule m\n"
	"ENTRY test {\n"
	"  p0 = pred[8,9] parameter(0)\n"
	"  p1 = f32[8,9] parameter(1)\n"
	"  p2 = f32[8,9] parameter(2)\n"
	"  s00 = pred[2,9] slice(pred[8,9] p0), slice={[0:2], [0:9]}\n"
	"  s01 = pred[6,9] slice(pred[8,9] p0), slice={[2:8], [0:9]}\n"
	"  s10 = f32[2,9] slice(f32[8,9] p1), slice={[0:2], [0:9]}\n"
	"  s11 = f32[6,9] slice(f32[8,9] p1), slice={[2:8], [0:9]}\n"
	"  s20 = f32[2,9] slice(f32[8,9] p2), slice={[0:2], [0:9]}\n"
	"  s21 = f32[6,9] slice(f32[8,9] p2), slice={[2:8], [0:9]}\n"
	"  sel0 = f32[2,9] select(pred[2,9] s00, f32[2,9] s10, f32[2,9] s20)\n"
	"  sel1 = f32[6,9] select(pred[6,9] s01, f32[6,9] s11, f32[6,9] s21)\n"
	"  ROOT tuple = (f32[2,9], f32[6,9]) tuple(sel0, sel1)\n"
	"}\n";
static const char ss_ternary_out[] =
	"HloModule m\n"
	"ENTRY %test (p0: pred[8,9], p1: f32[8,9], p2: f32[8,9]) -> (f32[2,9], f32[6,9]) {\n"
	"  %p0 = pred[8,9] parameter(0)\n"
	"  %p1 = f32[8,9] parameter(1)\n"
	"  %p2 = f32[8,9] parameter(2)\n"
	"  %s00 = pred[2,9] slice(pred[8,9] %p0), slice={[0:2], [0:9]}\n"
	"  %s01 = pred[6,9] slice(pred[8,9] %p0), slice={[2:8], [0:9]}\n"
	"  %s10 = f32[2,9] slice(f32[8,9] %p1), slice={[0:2], [0:9]}\n"
	"  %s11 = f32[6,9] slice(f32[8,9] %p1), slice={[2:8], [0:9]}\n"
	"  %s20 = f32[2,9] slice(f32[8,9] %p2), slice={[0:2], [0:9]}\n"
	"  %s21 = f32[6,9] slice(f32[8,9] %p2), slice={[2:8], [0:9]}\n"
	"  %sel0 = f32[2,9] select(pred[2,9] %s00, f32[2,9] %s10, f32[2,9] %s20)\n"
	"  %sel1 = f32[6,9] select(pred[6,9] %s01, f32[6,9] %s11, f32[6,9] %s21)\n"
	"  %sel0.0 = f32[8,9] select(pred[8,9] %p0, f32[8,9] %p1, f32[8,9] %p2)\n"
	"  %s00.1 = f32[2,9] slice(f32[8,9] %sel0.0), slice={[0:2], [0:9]}\n"
	"  %s01.2 = f32[6,9] slice(f32[8,9] %sel0.0), slice={[2:8], [0:9]}\n"
	"  ROOT %tuple = (f32[2,9], f32[6,9]) tuple(f32[2,9] %s00.1, f32[6,9] %s01.2)\n"
	"}\n";

static const char ss_disjoint_not_in[] =
	"HloModule m\n"
	"ENTRY test {\n"
	"  p0 = f32[8,9] parameter(0)\n"
	"  p1 = f32[8,9] parameter(1)\n"
	"  s00 = f32[2,9] slice(f32[8,9] p0), slice={[0:2], [0:9]}\n"
	"  s01 = f32[5,9] slice(f32[8,9] p0), slice={[2:7], [0:9]}\n"
	"  s10 = f32[2,9] slice(f32[8,9] p1), slice={[0:2], [0:9]}\n"
	"  s11 = f32[5,9] slice(f32[8,9] p1), slice={[2:7], [0:9]}\n"
	"  add0 = f32[2,9] add(f32[2,9] s00, f32[2,9] s10)\n"
	"  add1 = f32[5,9] add(f32[5,9] s01, f32[5,9] s11)\n"
	"  ROOT tuple = (f32[2,9], f32[5,9]) tuple(add0, add1)\n"
	"}\n";

static const char ss_attrs_differ_in[] =
	"HloModule m\n"
	"ENTRY test {\n"
	"  p0 = f32[8,9] parameter(0)\n"
	"  p1 = f32[8,9] parameter(1)\n"
	"  s00 = f32[2,9] slice(f32[8,9] p0), slice={[0:2], [0:9]}\n"
	"  s01 = f32[6,9] slice(f32[8,9] p0), slice={[2:8], [0:9]}\n"
	"  s10 = f32[2,9] slice(f32[8,9] p1), slice={[0:2], [0:9]}\n"
	"  s11 = f32[6,9] slice(f32[8,9] p1), slice={[2:8], [0:9]}\n"
	"  cmp1 = pred[2,9] compare(f32[2,9] s00, f32[2,9] s10), direction=GT\n"
	"  cmp2 = pred[6,9] compare(f32[6,9] s01, f32[6,9] s11), direction=LT\n"
	"  ROOT tuple = (pred[2,9], pred[6,9]) tuple(cmp1, cmp2)\n"
	"}\n";

static const char ss_multi_users_in[] =
	"HloModule m\n"
	"ENTRY test {\n"
	"  p0 = f32[8,9] parameter(0)\n"
	"  p1 = f32[8,9] parameter(1)\n"
	"  s00 = f32[2,9] slice(f32[8,9] p0), slice={[0:2], [0:9]}\n"
	"  s01 = f32[6,9] slice(f32[8,9] p0), slice={[2:8], [0:9]}\n"
	"  s10 = f32[2,9] slice(f32[8,9] p1), slice={[0:2], [0:9]}\n"
	"  s11 = f32[6,9] slice(f32[8,9] p1), slice={[2:8], [0:9]}\n"
	"  add0 = f32[2,9] add(f32[2,9] s00, f32[2,9] s10)\n"
	"  add1 = f32[6,9] add(f32[6,9] s01, f32[6,9] s11)\n"
	"  mul0 = f32[2,9] multiply(f32[2,9] s00, f32[2,9] s10)\n"
	"  mul1 = f32[6,9] multiply(f32[6,9] s01, f32[6,9] s11)\n"
	"  ROOT tuple = (f32[2,9], f32[6,9], f32[2,9], f32[6,9]) tuple(add0, add1, mul0, mul1)\n"
	"}\n";
static const char ss_multi_users_out[] =
	"HloModule m\n"
	"ENTRY %test (p0: f32[8,9], p1: f32[8,9]) -> (f32[2,9], f32[6,9], f32[2,9], f32[6,9]) {\n"
	"  %p0 = f32[8,9] parameter(0)\n"
	"  %p1 = f32[8,9] parameter(1)\n"
	"  %s00 = f32[2,9] slice(f32[8,9] %p0), slice={[0:2], [0:9]}\n"
	"  %s01 = f32[6,9] slice(f32[8,9] %p0), slice={[2:8], [0:9]}\n"
	"  %s10 = f32[2,9] slice(f32[8,9] %p1), slice={[0:2], [0:9]}\n"
	"  %s11 = f32[6,9] slice(f32[8,9] %p1), slice={[2:8], [0:9]}\n"
	"  %add0 = f32[2,9] add(f32[2,9] %s00, f32[2,9] %s10)\n"
	"  %add1 = f32[6,9] add(f32[6,9] %s01, f32[6,9] %s11)\n"
	"  %mul0 = f32[2,9] multiply(f32[2,9] %s00, f32[2,9] %s10)\n"
	"  %mul1 = f32[6,9] multiply(f32[6,9] %s01, f32[6,9] %s11)\n"
	"  %add0.0 = f32[8,9] add(f32[8,9] %p0, f32[8,9] %p1)\n"
	"  %s00.1 = f32[2,9] slice(f32[8,9] %add0.0), slice={[0:2], [0:9]}\n"
	"  %s01.2 = f32[6,9] slice(f32[8,9] %add0.0), slice={[2:8], [0:9]}\n"
	"  %mul0.3 = f32[8,9] multiply(f32[8,9] %p0, f32[8,9] %p1)\n"
	"  %s00.4 = f32[2,9] slice(f32[8,9] %mul0.3), slice={[0:2], [0:9]}\n"
	"  %s01.5 = f32[6,9] slice(f32[8,9] %mul0.3), slice={[2:8], [0:9]}\n"
	"  ROOT %tuple = (f32[2,9], f32[6,9], f32[2,9], f32[6,9]) tuple(f32[2,9] %s00.1, f32[6,9] %s01.2, f32[2,9] %s00.4, f32[6,9] %s01.5)\n"
	"}\n";

static const char cm_down_concat_in[] =
	"HloModule module\n"
	"ENTRY main {\n"
	"  ROOT root = f32[20] concatenate(f32[10] convert(f16[10] parameter(0)), f32[10] convert(f16[10] parameter(1))), dimensions={0}\n"
	"}\n";
static const char cm_down_concat_out[] =
	"HloModule module\n"
	"ENTRY %main (parameter.0: f16[10], parameter.2: f16[10]) -> f32[20] {\n"
	"  %parameter.0 = f16[10] parameter(0)\n"
	"  %parameter.2 = f16[10] parameter(1)\n"
	"  %root.4 = f16[20] concatenate(f16[10] %parameter.0, f16[10] %parameter.2), dimensions={0}\n"
	"  ROOT %convert.5 = f32[20] convert(f16[20] %root.4)\n"
	"}\n";

static const char cm_mixed_src_not_in[] =
	"HloModule module\n"
	"ENTRY main {\n"
	"  ROOT root = f32[20] concatenate(f32[10] convert(bf16[10] parameter(0)), f32[10] convert(f16[10] parameter(1))), dimensions={0}\n"
	"}\n";

static const char cm_up_reshape_in[] =
	"HloModule module\n"
	"ENTRY main {\n"
	"  ROOT root = f16[10,10] convert(f32[10,10] reshape(f32[100] parameter(0)))\n"
	"}\n";
static const char cm_up_reshape_out[] =
	"HloModule module\n"
	"ENTRY %main (parameter.0: f32[100]) -> f16[10,10] {\n"
	"  %parameter.0 = f32[100] parameter(0)\n"
	"  %convert.2 = f16[100] convert(f32[100] %parameter.0)\n"
	"  ROOT %reshape.3 = f16[10,10] reshape(f16[100] %convert.2)\n"
	"}\n";

static const char cm_up_two_transposes_in[] =
	"HloModule module\n"
	"ENTRY main {\n"
	"  t1 = f32[4,3] transpose(f32[3,4] parameter(0)), dimensions={1,0}\n"
	"  t2 = f32[3,4] transpose(t1), dimensions={1,0}\n"
	"  ROOT root = f16[3,4] convert(t2)\n"
	"}\n";
static const char cm_up_two_transposes_out[] =
	"HloModule module\n"
	"ENTRY %main (parameter.0: f32[3,4]) -> f16[3,4] {\n"
	"  %parameter.0 = f32[3,4] parameter(0)\n"
	"  %convert.3 = f16[3,4] convert(f32[3,4] %parameter.0)\n"
	"  %t1.4 = f16[4,3] transpose(f16[3,4] %convert.3), dimensions={1,0}\n"
	"  ROOT %t2.2 = f16[3,4] transpose(f16[4,3] %t1.4), dimensions={1,0}\n"
	"}\n";

static const char cm_down_two_slices_in[] =
	"HloModule module\n"
	"ENTRY main {\n"
	"  slice1 = f32[9] slice(f32[10] convert(f16[10] parameter(0))), slice={[0:9]}\n"
	"  ROOT slice2 = f32[8] slice(slice1), slice={[0:8]}\n"
	"}\n";
static const char cm_down_two_slices_out[] =
	"HloModule module\n"
	"ENTRY %main (parameter.0: f16[10]) -> f32[8] {\n"
	"  %parameter.0 = f16[10] parameter(0)\n"
	"  %slice1.2 = f16[9] slice(f16[10] %parameter.0), slice={[0:9]}\n"
	"  %slice2.4 = f16[8] slice(f16[9] %slice1.2), slice={[0:8]}\n"
	"  ROOT %convert.5 = f32[8] convert(f16[8] %slice2.4)\n"
	"}\n";

static const char cm_c64_constant_not_in[] =
	"HloModule module\n"
	"ENTRY main {\n"
	"  ROOT root = c64[6] concatenate(c64[2] convert(f32[2] parameter(0)), c64[2] convert(f32[2] parameter(1)), c64[2] constant({(1,1), (-1,-1)})), dimensions={0}\n"
	"}\n";

static const char cm_up_pad_out_of_range_in[] =
	"HloModule module\n"
	"ENTRY main {\n"
	"  pad = s32[10] pad(s32[8] parameter(0), s32[] constant(1000)), padding=1_1\n"
	"  ROOT root = s8[10] convert(pad)\n"
	"}\n";
static const char cm_up_pad_out_of_range_out[] =
	"HloModule module\n"
	"ENTRY %main (parameter.0: s32[8]) -> s8[10] {\n"
	"  %parameter.0 = s32[8] parameter(0)\n"
	"  %constant.1 = s32[] constant(1000)\n"
	"  %convert.2 = s8[8] convert(s32[8] %parameter.0)\n"
	"  %convert.3 = s8[] convert(s32[] %constant.1)\n"
	"  ROOT %pad.4 = s8[10] pad(s8[8] %convert.2, s8[] %convert.3), padding=1_1\n"
	"}\n";

static const char cm_down_pad_in[] =
	"HloModule module\n"
	"ENTRY main {\n"
	"  ROOT pad = f32[10] pad(f32[8] convert(f16[8] parameter(0)), f32[] constant(0)), padding=1_1\n"
	"}\n";
static const char cm_down_pad_out[] =
	"HloModule module\n"
	"ENTRY %main (parameter.0: f16[8]) -> f32[10] {\n"
	"  %parameter.0 = f16[8] parameter(0)\n"
	"  %constant.2 = f32[] constant(0)\n"
	"  %convert.3 = f16[] convert(f32[] %constant.2)\n"
	"  %pad.4 = f16[10] pad(f16[8] %parameter.0, f16[] %convert.3), padding=1_1\n"
	"  ROOT %convert.5 = f32[10] convert(f16[10] %pad.4)\n"
	"}\n";

static const char cm_pad_constant_lossy_not_in[] =
	"HloModule module\n"
	"ENTRY main {\n"
	"  ROOT pad = f32[10] pad(f32[8] convert(f16[8] parameter(0)), f32[] constant(1e9)), padding=1_1\n"
	"}\n";

static const char fp_round_trip_in[] =
	"HloModule m\n"
	"ENTRY main {\n"
	"  p = f32[4] parameter(0)\n"
	"  a = bf16[4] convert(p)\n"
	"  ROOT b = f32[4] convert(a)\n"
	"}\n";
static const char fp_round_trip_out[] =
	"HloModule m\n"
	"ENTRY %main (p: f32[4]) -> f32[4] {\n"
	"  ROOT %p = f32[4] parameter(0)\n"
	"}\n";

static const char fp_chain3_in[] =
	"HloModule m\n"
	"ENTRY main {\n"
	"  p = f32[4] parameter(0)\n"
	"  a = f16[4] convert(p)\n"
	"  b = f32[4] convert(a)\n"
	"  ROOT c = bf16[4] convert(b)\n"
	"}\n";
static const char fp_chain3_out[] =
	"HloModule m\n"
	"ENTRY %main (p: f32[4]) -> bf16[4] {\n"
	"  %p = f32[4] parameter(0)\n"
	"  ROOT %c = bf16[4] convert(f32[4] %p)\n"
	"}\n";

static const char fp_single_not_in[] =
	"HloModule m\n"
	"ENTRY main {\n"
	"  p = f32[4] parameter(0)\n"
	"  ROOT a = bf16[4] convert(p)\n"
	"}\n";

static const char fp_integer_not_in[] =
	"HloModule m\n"
	"ENTRY main {\n"
	"  p = s32[4] parameter(0)\n"
	"  a = s16[4] convert(p)\n"
	"  ROOT b = s32[4] convert(a)\n"
	"}\n";

static const char fp_shared_middle_in[] =
	"HloModule m\n"
	"ENTRY main {\n"
	"  p = f32[4] parameter(0)\n"
	"  a = bf16[4] convert(p)\n"
	"  b = f32[4] convert(a)\n"
	"  ROOT t = (bf16[4], f32[4]) tuple(a, b)\n"
	"}\n";
static const char fp_shared_middle_out[] =
	"HloModule m\n"
	"ENTRY %main (p: f32[4]) -> (bf16[4], f32[4]) {\n"
	"  %p = f32[4] parameter(0)\n"
	"  %a = bf16[4] convert(f32[4] %p)\n"
	"  ROOT %t = (bf16[4], f32[4]) tuple(bf16[4] %a, f32[4] %p)\n"
	"}\n";

static const char wcs_body_in[] =
	"HloModule ModuleWithWhile\n"
	"body {\n"
	"  p_body = (f32[2],f32[2]) parameter(0)\n"
	"  p_body.0 = f32[2] get-tuple-element((f32[2],f32[2]) p_body), index=0\n"
	"  p_body.1 = f32[2] get-tuple-element((f32[2],f32[2]) p_body), index=1\n"
	"  add.0 = f32[2] add(p_body.0, p_body.1)\n"
	"  ROOT root = (f32[2],f32[2]) tuple(add.0, p_body.1)\n"
	"}\n"
	"condition {\n"
	"  p_cond = (f32[2],f32[2]) parameter(0)\n"
	"  ROOT result = pred[] constant(true)\n"
	"}\n"
	"ENTRY entry {\n"
	"  const_0 = f32[2] constant({1, 2})\n"
	"  const_1 = f32[2] constant({2, 1})\n"
	"  while_init = (f32[2],f32[2]) tuple(const_0, const_1)\n"
	"  ROOT while = (f32[2],f32[2]) while(while_init), condition=condition, body=body\n"
	"}\n";
static const char wcs_body_out[] =
	"HloModule ModuleWithWhile\n"
	"%body (p_body: (f32[2], f32[2])) -> (f32[2], f32[2]) {\n"
	"  %p_body = (f32[2], f32[2]) parameter(0)\n"
	"  %p_body.0 = f32[2] get-tuple-element((f32[2], f32[2]) %p_body), index=0\n"
	"  %p_body.1 = f32[2] get-tuple-element((f32[2], f32[2]) %p_body), index=1\n"
	"  %const_1.sunk = f32[2] constant({2, 1})\n"
	"  %add.0 = f32[2] add(f32[2] %p_body.0, f32[2] %const_1.sunk)\n"
	"  ROOT %root = (f32[2], f32[2]) tuple(f32[2] %add.0, f32[2] %p_body.1)\n"
	"}\n"
	"%condition (p_cond: (f32[2], f32[2])) -> pred[] {\n"
	"  %p_cond = (f32[2], f32[2]) parameter(0)\n"
	"  ROOT %result = pred[] constant(true)\n"
	"}\n"
	"ENTRY %entry () -> (f32[2], f32[2]) {\n"
	"  %const_0 = f32[2] constant({1, 2})\n"
	"  %const_1 = f32[2] constant({2, 1})\n"
	"  %while_init = (f32[2], f32[2]) tuple(f32[2] %const_0, f32[2] %const_1)\n"
	"  ROOT %while = (f32[2], f32[2]) while((f32[2], f32[2]) %while_init), condition=%condition, body=%body\n"
	"}\n";

static const char wcs_cond_in[] =
	"HloModule ModuleWithWhile\n"
	"body {\n"
	"  p_body = (f32[],f32[]) parameter(0)\n"
	"  p_body.0 = f32[] get-tuple-element((f32[],f32[]) p_body), index=0\n"
	"  const = f32[] constant(1)\n"
	"  add = f32[] add(p_body.0, const)\n"
	"  p_body.1 = f32[] get-tuple-element((f32[],f32[]) p_body), index=1\n"
	"  ROOT root = (f32[],f32[]) tuple(add, p_body.1)\n"
	"}\n"
	"condition {\n"
	"  p_cond = (f32[],f32[]) parameter(0)\n"
	"  p_cond.0 = f32[] get-tuple-element((f32[],f32[]) p_cond), index=0\n"
	"  p_cond.1 = f32[] get-tuple-element((f32[],f32[]) p_cond), index=1\n"
	"  ROOT result = pred[] compare(p_cond.0, p_cond.1), direction=LT\n"
	"}\n"
	"ENTRY entry {\n"
	"  const_0 = f32[] constant(0)\n"
	"  const_1 = f32[] constant(10)\n"
	"  while_init = (f32[],f32[]) tuple(const_0, const_1)\n"
	"  ROOT while = (f32[],f32[]) while(while_init), condition=condition, body=body\n"
	"}\n";
static const char wcs_cond_out[] =
	"HloModule ModuleWithWhile\n"
	"%body (p_body: (f32[], f32[])) -> (f32[], f32[]) {\n"
	"  %p_body = (f32[], f32[]) parameter(0)\n"
	"  %p_body.0 = f32[] get-tuple-element((f32[], f32[]) %p_body), index=0\n"
	"  %const = f32[] constant(1)\n"
	"  %add = f32[] add(f32[] %p_body.0, f32[] %const)\n"
	"  %p_body.1 = f32[] get-tuple-element((f32[], f32[]) %p_body), index=1\n"
	"  ROOT %root = (f32[], f32[]) tuple(f32[] %add, f32[] %p_body.1)\n"
	"}\n"
	"%condition (p_cond: (f32[], f32[])) -> pred[] {\n"
	"  %p_cond = (f32[], f32[]) parameter(0)\n"
	"  %p_cond.0 = f32[] get-tuple-element((f32[], f32[]) %p_cond), index=0\n"
	"  %p_cond.1 = f32[] get-tuple-element((f32[], f32[]) %p_cond), index=1\n"
	"  %const_1.sunk = f32[] constant(10)\n"
	"  ROOT %result = pred[] compare(f32[] %p_cond.0, f32[] %const_1.sunk), direction=LT\n"
	"}\n"
	"ENTRY %entry () -> (f32[], f32[]) {\n"
	"  %const_0 = f32[] constant(0)\n"
	"  %const_1 = f32[] constant(10)\n"
	"  %while_init = (f32[], f32[]) tuple(f32[] %const_0, f32[] %const_1)\n"
	"  ROOT %while = (f32[], f32[]) while((f32[], f32[]) %while_init), condition=%condition, body=%body\n"
	"}\n";

static const char wcs_init_param_not_in[] =
	"HloModule m\n"
	"body {\n"
	"  p = (f32[], f32[]) parameter(0)\n"
	"  a = f32[] get-tuple-element(p), index=0\n"
	"  b = f32[] get-tuple-element(p), index=1\n"
	"  s = f32[] add(a, b)\n"
	"  ROOT r = (f32[], f32[]) tuple(s, b)\n"
	"}\n"
	"cond {\n"
	"  p = (f32[], f32[]) parameter(0)\n"
	"  ROOT t = pred[] constant(true)\n"
	"}\n"
	"ENTRY e {\n"
	"  init = (f32[], f32[]) parameter(0)\n"
	"  ROOT w = (f32[], f32[]) while(init), condition=cond, body=body\n"
	"}\n";

static const char wcs_root_use_only_not_in[] =
	"HloModule m\n"
	"body {\n"
	"  p = (f32[], f32[]) parameter(0)\n"
	"  a = f32[] get-tuple-element(p), index=0\n"
	"  b = f32[] get-tuple-element(p), index=1\n"
	"  one = f32[] constant(1)\n"
	"  s = f32[] add(a, one)\n"
	"  ROOT r = (f32[], f32[]) tuple(s, b)\n"
	"}\n"
	"cond {\n"
	"  p = (f32[], f32[]) parameter(0)\n"
	"  ROOT t = pred[] constant(true)\n"
	"}\n"
	"ENTRY e {\n"
	"  x = f32[] parameter(0)\n"
	"  k = f32[] constant(3)\n"
	"  init = (f32[], f32[]) tuple(x, k)\n"
	"  ROOT w = (f32[], f32[]) while(init), condition=cond, body=body\n"
	"}\n";

static const char ws_trip0_in[] =
	"HloModule SimpleLoop\n"
	"SimpleLoop.body {\n"
	"  loop_var.1 = (s32[], s32[3]{0}) parameter(0)\n"
	"  get-tuple-element.1 = s32[] get-tuple-element(loop_var.1), index=0\n"
	"  constant.1 = s32[] constant(1)\n"
	"  add = s32[] add(get-tuple-element.1, constant.1)\n"
	"  get-tuple-element.2 = s32[3]{0} get-tuple-element(loop_var.1), index=1\n"
	"  multiply = s32[3]{0} multiply(get-tuple-element.2, get-tuple-element.2)\n"
	"  ROOT tuple = (s32[], s32[3]{0}) tuple(add, multiply)\n"
	"}\n"
	"SimpleLoop.condition {\n"
	"  loop_var.2 = (s32[], s32[3]{0}) parameter(0)\n"
	"  get-tuple-element.3 = s32[] get-tuple-element(loop_var.2), index=0\n"
	"  constant.2 = s32[] constant(42)\n"
	"  ROOT less-than = pred[] compare(get-tuple-element.3, constant.2), direction=LT\n"
	"}\n"
	"ENTRY SimpleLoop {\n"
	"  constant.3 = s32[] constant(42)\n"
	"  constant.4 = s32[3]{0} constant({0, 1, 2})\n"
	"  tuple.1 = (s32[], s32[3]{0}) tuple(constant.3, constant.4)\n"
	"  ROOT while = (s32[], s32[3]{0}) while(tuple.1), condition=SimpleLoop.condition, body=SimpleLoop.body\n"
	"}\n";
static const char ws_trip0_out[] =
	"HloModule SimpleLoop\n"
	"ENTRY %SimpleLoop () -> (s32[], s32[3]{0}) {\n"
	"  %constant.3 = s32[] constant(42)\n"
	"  %constant.4 = s32[3]{0} constant({0, 1, 2})\n"
	"  ROOT %tuple.1 = (s32[], s32[3]{0}) tuple(s32[] %constant.3, s32[3]{0} %constant.4)\n"
	"}\n";

static const char ws_trip1_in[] =
	"HloModule SimpleLoop\n"
	"SimpleLoop.body {\n"
	"  loop_var.1 = (s32[], s32[3]{0}) parameter(0)\n"
	"  get-tuple-element.1 = s32[] get-tuple-element(loop_var.1), index=0\n"
	"  constant.1 = s32[] constant(1)\n"
	"  add = s32[] add(get-tuple-element.1, constant.1)\n"
	"  get-tuple-element.2 = s32[3]{0} get-tuple-element(loop_var.1), index=1\n"
	"  multiply = s32[3]{0} multiply(get-tuple-element.2, get-tuple-element.2)\n"
	"  ROOT tuple = (s32[], s32[3]{0}) tuple(add, multiply)\n"
	"}\n"
	"SimpleLoop.condition {\n"
	"  loop_var.2 = (s32[], s32[3]{0}) parameter(0)\n"
	"  get-tuple-element.3 = s32[] get-tuple-element(loop_var.2), index=0\n"
	"  constant.2 = s32[] constant(43)\n"
	"  ROOT less-than = pred[] compare(get-tuple-element.3, constant.2), direction=LT\n"
	"}\n"
	"ENTRY SimpleLoop {\n"
	"  constant.3 = s32[] constant(42)\n"
	"  constant.4 = s32[3]{0} constant({0, 1, 2})\n"
	"  tuple.1 = (s32[], s32[3]{0}) tuple(constant.3, constant.4)\n"
	"  ROOT while = (s32[], s32[3]{0}) while(tuple.1), condition=SimpleLoop.condition, body=SimpleLoop.body\n"
	"}\n";
static const char ws_trip1_out[] =
	"HloModule SimpleLoop\n"
	"ENTRY %SimpleLoop () -> (s32[], s32[3]{0}) {\n"
	"  %constant.3 = s32[] constant(42)\n"
	"  %constant.4 = s32[3]{0} constant({0, 1, 2})\n"
	"  %tuple.1 = (s32[], s32[3]{0}) tuple(s32[] %constant.3, s32[3]{0} %constant.4)\n"
	"  %get-tuple-element.0 = s32[] get-tuple-element((s32[], s32[3]{0}) %tuple.1), index=0\n"
	"  %constant.5 = s32[] constant(1)\n"
	"  %add.6 = s32[] add(s32[] %get-tuple-element.0, s32[] %constant.5)\n"
	"  %get-tuple-element.7 = s32[3]{0} get-tuple-element((s32[], s32[3]{0}) %tuple.1), index=1\n"
	"  %multiply.8 = s32[3]{0} multiply(s32[3]{0} %get-tuple-element.7, s32[3]{0} %get-tuple-element.7)\n"
	"  ROOT %tuple.9 = (s32[], s32[3]{0}) tuple(s32[] %add.6, s32[3]{0} %multiply.8)\n"
	"}\n";

static const char ws_trip2_not_in[] =
	"HloModule SimpleLoop\n"
	"SimpleLoop.body {\n"
	"  loop_var.1 = (s32[], s32[3]{0}) parameter(0)\n"
	"  get-tuple-element.1 = s32[] get-tuple-element(loop_var.1), index=0\n"
	"  constant.1 = s32[] constant(1)\n"
	"  add = s32[] add(get-tuple-element.1, constant.1)\n"
	"  get-tuple-element.2 = s32[3]{0} get-tuple-element(loop_var.1), index=1\n"
	"  multiply = s32[3]{0} multiply(get-tuple-element.2, get-tuple-element.2)\n"
	"  ROOT tuple = (s32[], s32[3]{0}) tuple(add, multiply)\n"
	"}\n"
	"SimpleLoop.condition {\n"
	"  loop_var.2 = (s32[], s32[3]{0}) parameter(0)\n"
	"  get-tuple-element.3 = s32[] get-tuple-element(loop_var.2), index=0\n"
	"  constant.2 = s32[] constant(44)\n"
	"  ROOT less-than = pred[] compare(get-tuple-element.3, constant.2), direction=LT\n"
	"}\n"
	"ENTRY SimpleLoop {\n"
	"  constant.3 = s32[] constant(42)\n"
	"  constant.4 = s32[3]{0} constant({0, 1, 2})\n"
	"  tuple.1 = (s32[], s32[3]{0}) tuple(constant.3, constant.4)\n"
	"  ROOT while = (s32[], s32[3]{0}) while(tuple.1), condition=SimpleLoop.condition, body=SimpleLoop.body\n"
	"}\n";

static const char ws_swap_not_in[] =
	"HloModule SwappingTupleElements\n"
	"SwappingTupleElements.body {\n"
	"  loop_var = (s32[], s32[]) parameter(0)\n"
	"  get-tuple-element = s32[] get-tuple-element((s32[], s32[]) loop_var),index=1\n"
	"  get-tuple-element.1 = s32[] get-tuple-element((s32[], s32[]) loop_var), index=0\n"
	"  ROOT tuple = (s32[], s32[]) tuple(s32[] get-tuple-element, s32[] get-tuple-element.1)\n"
	"}\n"
	"SwappingTupleElements.always_true {\n"
	" param = (s32[], s32[]) parameter(0)\n"
	" ROOT constant = pred[] constant(true)\n"
	"}\n"
	"ENTRY SwappingTupleElements {\n"
	" x = s32[] parameter(0)\n"
	" y = s32[] parameter(1)\n"
	" tuple.1 = (s32[], s32[]) tuple(s32[] x, s32[] y)\n"
	" ROOT while = (s32[], s32[]) while((s32[], s32[]) tuple.1), condition=SwappingTupleElements.always_true, body=SwappingTupleElements.body\n"
	"}\n";

static const char ws_unused_outside_in[] =
	"HloModule UnusedButModifiedTupleElement\n"
	"UnusedButModifiedTupleElement.body {\n"
	"  loop_var = (s32[], s32[]) parameter(0)\n"
	"  constant.1 = s32[] constant(1)\n"
	"  ROOT tuple = (s32[], s32[]) tuple(s32[] constant.1, constant.1)\n"
	"}\n"
	"UnusedButModifiedTupleElement.cond {\n"
	"  param = (s32[], s32[]) parameter(0)\n"
	"  gte.cond = s32[] get-tuple-element(param), index=0\n"
	"  constant.3 = s32[] constant(1)\n"
	"  ROOT lt = pred[] compare(gte.cond, constant.3), direction=LT\n"
	"}\n"
	"ENTRY  UnusedButModifiedTupleElement {\n"
	"  constant.2 = s32[] constant(0)\n"
	"  tuple.1 = (s32[], s32[]) tuple(constant.2, constant.2)\n"
	"  while = (s32[], s32[]) while(tuple.1), condition=UnusedButModifiedTupleElement.cond, body=UnusedButModifiedTupleElement.body\n"
	"  ROOT gte = s32[] get-tuple-element(while), index=0\n"
	"}\n";
static const char ws_unused_outside_out[] =
	"HloModule UnusedButModifiedTupleElement\n"
	"%UnusedButModifiedTupleElement.body (loop_var: (s32[])) -> (s32[]) {\n"
	"  %loop_var = (s32[]) parameter(0)\n"
	"  %constant.1 = s32[] constant(1)\n"
	"  ROOT %tuple.0 = (s32[]) tuple(s32[] %constant.1)\n"
	"}\n"
	"%UnusedButModifiedTupleElement.cond (param: (s32[])) -> pred[] {\n"
	"  %param = (s32[]) parameter(0)\n"
	"  %gte.cond = s32[] get-tuple-element((s32[]) %param), index=0\n"
	"  %constant.3 = s32[] constant(1)\n"
	"  ROOT %lt = pred[] compare(s32[] %gte.cond, s32[] %constant.3), direction=LT\n"
	"}\n"
	"ENTRY %UnusedButModifiedTupleElement () -> s32[] {\n"
	"  %constant.2 = s32[] constant(0)\n"
	"  %tuple.1 = (s32[], s32[]) tuple(s32[] %constant.2, s32[] %constant.2)\n"
	"  %tuple.2 = (s32[]) tuple(s32[] %constant.2)\n"
	"  %while = (s32[]) while((s32[]) %tuple.2), condition=%UnusedButModifiedTupleElement.cond, body=%UnusedButModifiedTupleElement.body\n"
	"  %get-tuple-element.3 = s32[] get-tuple-element((s32[]) %while), index=0\n"
	"  %get-tuple-element.4 = s32[] get-tuple-element((s32[], s32[]) %tuple.1), index=1\n"
	"  %tuple.5 = (s32[], s32[]) tuple(s32[] %get-tuple-element.3, s32[] %get-tuple-element.4)\n"
	"  ROOT %gte = s32[] get-tuple-element((s32[], s32[]) %tuple.5), index=0\n"
	"}\n";

static const char ws_remove_unused_in[] =
	"HloModule RemoveUnusedOperands\n"
	"RemoveUnusedOperands.body {\n"
	"  loop_var = (s32[], s32[], s32[]) parameter(0)\n"
	"  get-tuple-element.1 = s32[] get-tuple-element((s32[], s32[], s32[]) loop_var), index=0\n"
	"  get-tuple-element.2 = s32[] get-tuple-element((s32[], s32[], s32[]) loop_var), index=1\n"
	"  constant.1 = s32[] constant(1)\n"
	"  add = s32[] add(s32[] get-tuple-element.2, s32[] constant.1)\n"
	"  get-tuple-element.3 = s32[] get-tuple-element((s32[], s32[], s32[]) loop_var), index=2\n"
	"  ROOT tuple = (s32[], s32[], s32[]) tuple(s32[] get-tuple-element.1, s32[] add, s32[] get-tuple-element.3)\n"
	"}\n"
	"RemoveUnusedOperands.loop_condition {\n"
	"  constant.2 = s32[] constant(0)\n"
	"  param0 = (s32[], s32[], s32[]) parameter(0)\n"
	"  get-tuple-element = s32[] get-tuple-element((s32[], s32[], s32[]) param0), index=2\n"
	"  ROOT equal-to = pred[] compare(s32[] constant.2, s32[] get-tuple-element), direction=EQ\n"
	"}\n"
	"ENTRY RemoveUnusedOperands {\n"
	"  x = s32[] parameter(0)\n"
	"  constant.3 = s32[] constant(0)\n"
	"  y = s32[] parameter(1)\n"
	"  tuple.1 = (s32[], s32[], s32[]) tuple(s32[] x, s32[] constant.3, s32[] y)\n"
	"  ROOT while = (s32[], s32[], s32[]) while((s32[], s32[], s32[]) tuple.1), condition=RemoveUnusedOperands.loop_condition, body=RemoveUnusedOperands.body\n"
	"}\n";
static const char ws_remove_unused_out[] =
	"HloModule RemoveUnusedOperands\n"
	"%RemoveUnusedOperands.body (loop_var: (s32[], s32[])) -> (s32[], s32[]) {\n"
	"  %loop_var = (s32[], s32[]) parameter(0)\n"
	"  %get-tuple-element.2 = s32[] get-tuple-element((s32[], s32[]) %loop_var), index=0\n"
	"  %constant.1 = s32[] constant(1)\n"
	"  %add = s32[] add(s32[] %get-tuple-element.2, s32[] %constant.1)\n"
	"  %get-tuple-element.3 = s32[] get-tuple-element((s32[], s32[]) %loop_var), index=1\n"
	"  ROOT %tuple.0 = (s32[], s32[]) tuple(s32[] %add, s32[] %get-tuple-element.3)\n"
	"}\n"
	"%RemoveUnusedOperands.loop_condition (param0: (s32[], s32[])) -> pred[] {\n"
	"  %constant.2 = s32[] constant(0)\n"
	"  %param0 = (s32[], s32[]) parameter(0)\n"
	"  %get-tuple-element = s32[] get-tuple-element((s32[], s32[]) %param0), index=1\n"
	"  ROOT %equal-to = pred[] compare(s32[] %constant.2, s32[] %get-tuple-element), direction=EQ\n"
	"}\n"
	"ENTRY %RemoveUnusedOperands (x: s32[], y: s32[]) -> (s32[], s32[], s32[]) {\n"
	"  %x = s32[] parameter(0)\n"
	"  %constant.3 = s32[] constant(0)\n"
	"  %y = s32[] parameter(1)\n"
	"  %tuple.1 = (s32[], s32[], s32[]) tuple(s32[] %x, s32[] %constant.3, s32[] %y)\n"
	"  %tuple.2 = (s32[], s32[]) tuple(s32[] %constant.3, s32[] %y)\n"
	"  %while = (s32[], s32[]) while((s32[], s32[]) %tuple.2), condition=%RemoveUnusedOperands.loop_condition, body=%RemoveUnusedOperands.body\n"
	"  %get-tuple-element.4 = s32[] get-tuple-element((s32[], s32[], s32[]) %tuple.1), index=0\n"
	"  %get-tuple-element.5 = s32[] get-tuple-element((s32[], s32[]) %while), index=0\n"
	"  %get-tuple-element.6 = s32[] get-tuple-element((s32[], s32[]) %while), index=1\n"
	"  ROOT %tuple.7 = (s32[], s32[], s32[]) tuple(s32[] %get-tuple-element.4, s32[] %get-tuple-element.5, s32[] %get-tuple-element.6)\n"
	"}\n";

static const char ws_remove_despite_infeed_in[] =
	"HloModule RemoveUnusedOperands\n"
	"body {\n"
	"  loop_var = (s32[]) parameter(0)\n"
	"  gte0 = s32[] get-tuple-element(loop_var), index=0\n"
	"  token0 = token[] after-all()\n"
	"  unused = ((s32[], pred[]), token[]) infeed(token0)\n"
	"  ROOT tuple = (s32[]) tuple(gte0)\n"
	"}\n"
	"cond {\n"
	"  loop_var = (s32[]) parameter(0)\n"
	"  ROOT constant = pred[] constant(true)\n"
	"}\n"
	"ENTRY RemoveUnusedOperands {\n"
	"  x = s32[] parameter(0)\n"
	"  tuple.1 = (s32[]) tuple(s32[] x)\n"
	"  ROOT while = (s32[]) while((s32[]) tuple.1), condition=cond, body=body\n"
	"}\n";
static const char ws_remove_despite_infeed_out[] =
	"HloModule RemoveUnusedOperands\n"
	"%body (loop_var: ()) -> () {\n"
	"  %loop_var = () parameter(0)\n"
	"  %token0 = token[] after-all()\n"
	"  %unused = ((s32[], pred[]), token[]) infeed(token[] %token0)\n"
	"  ROOT %tuple.2 = () tuple()\n"
	"}\n"
	"%cond (loop_var.0: ()) -> pred[] {\n"
	"  %loop_var.0 = () parameter(0)\n"
	"  ROOT %constant = pred[] constant(true)\n"
	"}\n"
	"ENTRY %RemoveUnusedOperands (x: s32[]) -> (s32[]) {\n"
	"  %x = s32[] parameter(0)\n"
	"  %tuple.1 = (s32[]) tuple(s32[] %x)\n"
	"  %tuple.3 = () tuple()\n"
	"  %while = () while(() %tuple.3), condition=%cond, body=%body\n"
	"  %get-tuple-element.4 = s32[] get-tuple-element((s32[]) %tuple.1), index=0\n"
	"  ROOT %tuple.5 = (s32[]) tuple(s32[] %get-tuple-element.4)\n"
	"}\n";

static const char ws_flatten_in[] =
	"HloModule Test\n"
	"Body {\n"
	"  param = ((s32[1]), (s32[2], s32[3], (s32[4]))) parameter(0)\n"
	"  ta = (s32[1]) get-tuple-element(param), index=0\n"
	"  a = s32[1] get-tuple-element(ta), index=0\n"
	"  a.1 = s32[1] add(a, a)\n"
	"  tbcd = (s32[2], s32[3], (s32[4])) get-tuple-element(param), index=1\n"
	"  ROOT tuple = ((s32[1]), (s32[2], s32[3], (s32[4]))) tuple(ta, tbcd)\n"
	"}\n"
	"Cond {\n"
	"  param = ((s32[1]), (s32[2], s32[3], (s32[4]))) parameter(0)\n"
	"  ROOT cond = pred[] constant(true)\n"
	"}\n"
	"ENTRY Loop {\n"
	"  a = s32[1] constant({0})\n"
	"  b = s32[2] constant({0,1})\n"
	"  c = s32[3] constant({0,1,2})\n"
	"  d = s32[4] constant({0,1,2,3})\n"
	"  ta = (s32[1]) tuple(a)\n"
	"  td = (s32[4]) tuple(d)\n"
	"  tbcd = (s32[2], s32[3], (s32[4])) tuple(b, c, td)\n"
	"  init = ((s32[1]), (s32[2], s32[3], (s32[4]))) tuple(ta, tbcd)\n"
	"  ROOT while = ((s32[1]), (s32[2], s32[3], (s32[4]))) while(init), condition=Cond, body=Body\n"
	"}\n";
static const char ws_flatten_out[] =
	"HloModule Test\n"
	"%Body (param: (s32[1], s32[2], s32[3], s32[4])) -> (s32[1], s32[2], s32[3], s32[4]) {\n"
	"  %param = (s32[1], s32[2], s32[3], s32[4]) parameter(0)\n"
	"  %get-tuple-element.13 = s32[1] get-tuple-element((s32[1], s32[2], s32[3], s32[4]) %param), index=0\n"
	"  %tuple.17 = (s32[1]) tuple(s32[1] %get-tuple-element.13)\n"
	"  %get-tuple-element.14 = s32[2] get-tuple-element((s32[1], s32[2], s32[3], s32[4]) %param), index=1\n"
	"  %get-tuple-element.15 = s32[3] get-tuple-element((s32[1], s32[2], s32[3], s32[4]) %param), index=2\n"
	"  %get-tuple-element.16 = s32[4] get-tuple-element((s32[1], s32[2], s32[3], s32[4]) %param), index=3\n"
	"  %tuple.18 = (s32[4]) tuple(s32[4] %get-tuple-element.16)\n"
	"  %tuple.19 = (s32[2], s32[3], (s32[4])) tuple(s32[2] %get-tuple-element.14, s32[3] %get-tuple-element.15, (s32[4]) %tuple.18)\n"
	"  %tuple.20 = ((s32[1]), (s32[2], s32[3], (s32[4]))) tuple((s32[1]) %tuple.17, (s32[2], s32[3], (s32[4])) %tuple.19)\n"
	"  %ta = (s32[1]) get-tuple-element(((s32[1]), (s32[2], s32[3], (s32[4]))) %tuple.20), index=0\n"
	"  %tbcd = (s32[2], s32[3], (s32[4])) get-tuple-element(((s32[1]), (s32[2], s32[3], (s32[4]))) %tuple.20), index=1\n"
	"  %tuple = ((s32[1]), (s32[2], s32[3], (s32[4]))) tuple((s32[1]) %ta, (s32[2], s32[3], (s32[4])) %tbcd)\n"
	"  %get-tuple-element.21 = (s32[1]) get-tuple-element(((s32[1]), (s32[2], s32[3], (s32[4]))) %tuple), index=0\n"
	"  %get-tuple-element.22 = s32[1] get-tuple-element((s32[1]) %get-tuple-element.21), index=0\n"
	"  %get-tuple-element.23 = (s32[2], s32[3], (s32[4])) get-tuple-element(((s32[1]), (s32[2], s32[3], (s32[4]))) %tuple), index=1\n"
	"  %get-tuple-element.24 = s32[2] get-tuple-element((s32[2], s32[3], (s32[4])) %get-tuple-element.23), index=0\n"
	"  %get-tuple-element.25 = s32[3] get-tuple-element((s32[2], s32[3], (s32[4])) %get-tuple-element.23), index=1\n"
	"  %get-tuple-element.26 = (s32[4]) get-tuple-element((s32[2], s32[3], (s32[4])) %get-tuple-element.23), index=2\n"
	"  %get-tuple-element.27 = s32[4] get-tuple-element((s32[4]) %get-tuple-element.26), index=0\n"
	"  ROOT %tuple.28 = (s32[1], s32[2], s32[3], s32[4]) tuple(s32[1] %get-tuple-element.22, s32[2] %get-tuple-element.24, s32[3] %get-tuple-element.25, s32[4] %get-tuple-element.27)\n"
	"}\n"
	"%Cond (param.0: (s32[1], s32[2], s32[3], s32[4])) -> pred[] {\n"
	"  %param.0 = (s32[1], s32[2], s32[3], s32[4]) parameter(0)\n"
	"  ROOT %cond = pred[] constant(true)\n"
	"}\n"
	"ENTRY %Loop () -> ((s32[1]), (s32[2], s32[3], (s32[4]))) {\n"
	"  %a.2 = s32[1] constant({0})\n"
	"  %b = s32[2] constant({0, 1})\n"
	"  %c = s32[3] constant({0, 1, 2})\n"
	"  %d = s32[4] constant({0, 1, 2, 3})\n"
	"  %ta.3 = (s32[1]) tuple(s32[1] %a.2)\n"
	"  %td = (s32[4]) tuple(s32[4] %d)\n"
	"  %tbcd.4 = (s32[2], s32[3], (s32[4])) tuple(s32[2] %b, s32[3] %c, (s32[4]) %td)\n"
	"  %init = ((s32[1]), (s32[2], s32[3], (s32[4]))) tuple((s32[1]) %ta.3, (s32[2], s32[3], (s32[4])) %tbcd.4)\n"
	"  %get-tuple-element.29 = (s32[1]) get-tuple-element(((s32[1]), (s32[2], s32[3], (s32[4]))) %init), index=0\n"
	"  %get-tuple-element.30 = s32[1] get-tuple-element((s32[1]) %get-tuple-element.29), index=0\n"
	"  %get-tuple-element.31 = (s32[2], s32[3], (s32[4])) get-tuple-element(((s32[1]), (s32[2], s32[3], (s32[4]))) %init), index=1\n"
	"  %get-tuple-element.32 = s32[2] get-tuple-element((s32[2], s32[3], (s32[4])) %get-tuple-element.31), index=0\n"
	"  %get-tuple-element.33 = s32[3] get-tuple-element((s32[2], s32[3], (s32[4])) %get-tuple-element.31), index=1\n"
	"  %get-tuple-element.34 = (s32[4]) get-tuple-element((s32[2], s32[3], (s32[4])) %get-tuple-element.31), index=2\n"
	"  %get-tuple-element.35 = s32[4] get-tuple-element((s32[4]) %get-tuple-element.34), index=0\n"
	"  %tuple.36 = (s32[1], s32[2], s32[3], s32[4]) tuple(s32[1] %get-tuple-element.30, s32[2] %get-tuple-element.32, s32[3] %get-tuple-element.33, s32[4] %get-tuple-element.35)\n"
	"  %while = (s32[1], s32[2], s32[3], s32[4]) while((s32[1], s32[2], s32[3], s32[4]) %tuple.36), condition=%Cond, body=%Body\n"
	"  %get-tuple-element.37 = s32[1] get-tuple-element((s32[1], s32[2], s32[3], s32[4]) %while), index=0\n"
	"  %get-tuple-element.38 = s32[2] get-tuple-element((s32[1], s32[2], s32[3], s32[4]) %while), index=1\n"
	"  %get-tuple-element.39 = s32[3] get-tuple-element((s32[1], s32[2], s32[3], s32[4]) %while), index=2\n"
	"  %get-tuple-element.40 = s32[4] get-tuple-element((s32[1], s32[2], s32[3], s32[4]) %while), index=3\n"
	"  %tuple.41 = (s32[1]) tuple(s32[1] %get-tuple-element.37)\n"
	"  %tuple.42 = (s32[4]) tuple(s32[4] %get-tuple-element.40)\n"
	"  %tuple.43 = (s32[2], s32[3], (s32[4])) tuple(s32[2] %get-tuple-element.38, s32[3] %get-tuple-element.39, (s32[4]) %tuple.42)\n"
	"  ROOT %tuple.44 = ((s32[1]), (s32[2], s32[3], (s32[4]))) tuple((s32[1]) %tuple.41, (s32[2], s32[3], (s32[4])) %tuple.43)\n"
	"}\n";

static const char ws_all_constants_in[] =
	"HloModule Test\n"
	"Body {\n"
	"  param = (s32[1]) parameter(0)\n"
	"  a = s32[1] constant({0})\n"
	"  ROOT tuple = (s32[1]) tuple(a)\n"
	"}\n"
	"Cond {\n"
	"  param = (s32[1]) parameter(0)\n"
	"  ROOT cond = pred[] constant(true)\n"
	"}\n"
	"ENTRY Loop {\n"
	"  a = s32[1] constant({0})\n"
	"  init = (s32[1]) tuple(a)\n"
	"  ROOT while = (s32[1]) while(init), condition=Cond, body=Body\n"
	"}\n";
static const char ws_all_constants_out[] =
	"HloModule Test\n"
	"ENTRY %Loop () -> (s32[1]) {\n"
	"  %a.1 = s32[1] constant({0})\n"
	"  ROOT %init = (s32[1]) tuple(s32[1] %a.1)\n"
	"}\n";

static const char ws_constant_element_in[] =
	"HloModule Test\n"
	"Body {\n"
	"  param = (s32[1], s32[2], s32[3]) parameter(0)\n"
	"  a = s32[1] get-tuple-element(param), index=0\n"
	"  a.1 = s32[1] add(a, a)\n"
	"  b = s32[2] constant({1,1})\n"
	"  c = s32[3] constant({10,10,10})\n"
	"  ROOT tuple = (s32[1], s32[2], s32[3]) tuple(a.1, b, c)\n"
	"}\n"
	"Cond {\n"
	"  param = (s32[1], s32[2], s32[3]) parameter(0)\n"
	"  a = s32[1] get-tuple-element(param), index=0\n"
	"  b = s32[2] get-tuple-element(param), index=1\n"
	"  c = s32[3] get-tuple-element(param), index=2\n"
	"  ROOT cond = pred[] constant(true)\n"
	"}\n"
	"ENTRY Loop {\n"
	"  a = s32[1] constant({0})\n"
	"  b = s32[2] constant({1,1})\n"
	"  c = s32[3] constant({2,2,2})\n"
	"  init = (s32[1], s32[2], s32[3]) tuple(a,b,c)\n"
	"  ROOT while = (s32[1], s32[2], s32[3]) while(init), condition=Cond, body=Body\n"
	"}\n";
static const char ws_constant_element_out[] =
	"HloModule Test\n"
	"%Body (param: (s32[1], s32[3])) -> (s32[1], s32[3]) {\n"
	"  %param = (s32[1], s32[3]) parameter(0)\n"
	"  %get-tuple-element.12 = s32[1] get-tuple-element((s32[1], s32[3]) %param), index=0\n"
	"  %b.13 = s32[2] constant({1, 1})\n"
	"  %get-tuple-element.14 = s32[3] get-tuple-element((s32[1], s32[3]) %param), index=1\n"
	"  %tuple.15 = (s32[1], s32[2], s32[3]) tuple(s32[1] %get-tuple-element.12, s32[2] %b.13, s32[3] %get-tuple-element.14)\n"
	"  %a = s32[1] get-tuple-element((s32[1], s32[2], s32[3]) %tuple.15), index=0\n"
	"  %a.1 = s32[1] add(s32[1] %a, s32[1] %a)\n"
	"  %b = s32[2] constant({1, 1})\n"
	"  %c = s32[3] constant({10, 10, 10})\n"
	"  %tuple = (s32[1], s32[2], s32[3]) tuple(s32[1] %a.1, s32[2] %b, s32[3] %c)\n"
	"  %get-tuple-element.16 = s32[1] get-tuple-element((s32[1], s32[2], s32[3]) %tuple), index=0\n"
	"  %get-tuple-element.17 = s32[3] get-tuple-element((s32[1], s32[2], s32[3]) %tuple), index=2\n"
	"  ROOT %tuple.18 = (s32[1], s32[3]) tuple(s32[1] %get-tuple-element.16, s32[3] %get-tuple-element.17)\n"
	"}\n"
	"%Cond (param.0: (s32[1], s32[3])) -> pred[] {\n"
	"  %param.0 = (s32[1], s32[3]) parameter(0)\n"
	"  ROOT %cond = pred[] constant(true)\n"
	"}\n"
	"ENTRY %Loop () -> (s32[1], s32[2], s32[3]) {\n"
	"  %a.5 = s32[1] constant({0})\n"
	"  %b.6 = s32[2] constant({1, 1})\n"
	"  %c.7 = s32[3] constant({2, 2, 2})\n"
	"  %init = (s32[1], s32[2], s32[3]) tuple(s32[1] %a.5, s32[2] %b.6, s32[3] %c.7)\n"
	"  %get-tuple-element.19 = s32[1] get-tuple-element((s32[1], s32[2], s32[3]) %init), index=0\n"
	"  %get-tuple-element.20 = s32[3] get-tuple-element((s32[1], s32[2], s32[3]) %init), index=2\n"
	"  %tuple.21 = (s32[1], s32[3]) tuple(s32[1] %get-tuple-element.19, s32[3] %get-tuple-element.20)\n"
	"  %while = (s32[1], s32[3]) while((s32[1], s32[3]) %tuple.21), condition=%Cond, body=%Body\n"
	"  %get-tuple-element.22 = s32[1] get-tuple-element((s32[1], s32[3]) %while), index=0\n"
	"  %get-tuple-element.23 = s32[3] get-tuple-element((s32[1], s32[3]) %while), index=1\n"
	"  ROOT %tuple.24 = (s32[1], s32[2], s32[3]) tuple(s32[1] %get-tuple-element.22, s32[2] %b.6, s32[3] %get-tuple-element.23)\n"
	"}\n";

static const char ws_merge_induction_in[] =
	"HloModule Test\n"
	"Body {\n"
	"  param = (s32[], s32[], s32[]) parameter(0)\n"
	"  a = s32[] get-tuple-element(param), index=0\n"
	"  one = s32[] constant(1)\n"
	"  a1 = s32[] add(a, one)\n"
	"  b = s32[] get-tuple-element(param), index=1\n"
	"  negone = s32[] constant(-1)\n"
	"  b1 = s32[] add(b, negone)\n"
	"  c = s32[] add(a, b)\n"
	"  ROOT tuple = (s32[], s32[], s32[]) tuple(a1,b1,c)\n"
	"}\n"
	"Cond {\n"
	"  param = (s32[], s32[], s32[]) parameter(0)\n"
	"  a = s32[] get-tuple-element(param), index=0\n"
	"  b = s32[] get-tuple-element(param), index=1\n"
	"  sum = s32[] power(a, b)\n"
	"  ten = s32[] constant(10)\n"
	"  ROOT cond = pred[] compare(sum, ten), direction=LT\n"
	"}\n"
	"ENTRY Loop {\n"
	"  a = s32[] constant(10)\n"
	"  b = s32[] constant(100)\n"
	"  c = s32[] constant(0)\n"
	"  init = (s32[], s32[], s32[]) tuple(a,b,c)\n"
	"  while = (s32[], s32[], s32[]) while(init), condition=Cond, body=Body\n"
	"  a1 = s32[] get-tuple-element(while), index=0\n"
	"  b1 = s32[] get-tuple-element(while), index=1\n"
	"  c1 = s32[] get-tuple-element(while), index=2\n"
	"  sum = s32[] add(a1, b1)\n"
	"  ROOT sum.1 = s32[] add(sum, c1)\n"
	"}\n";
static const char ws_merge_induction_out[] =
	"HloModule Test\n"
	"%Body (param: (s32[], s32[], s32[], s32[])) -> (s32[], s32[], s32[], s32[]) {\n"
	"  %param = (s32[], s32[], s32[], s32[]) parameter(0)\n"
	"  %get-tuple-element.21 = s32[] get-tuple-element((s32[], s32[], s32[], s32[]) %param), index=0\n"
	"  %get-tuple-element.22 = s32[] get-tuple-element((s32[], s32[], s32[], s32[]) %param), index=3\n"
	"  %one.23 = s32[] constant(1)\n"
	"  %multiply.24 = s32[] multiply(s32[] %get-tuple-element.22, s32[] %one.23)\n"
	"  %add.25 = s32[] add(s32[] %get-tuple-element.21, s32[] %multiply.24)\n"
	"  %get-tuple-element.26 = s32[] get-tuple-element((s32[], s32[], s32[], s32[]) %param), index=1\n"
	"  %get-tuple-element.27 = s32[] get-tuple-element((s32[], s32[], s32[], s32[]) %param), index=3\n"
	"  %negone.28 = s32[] constant(-1)\n"
	"  %multiply.29 = s32[] multiply(s32[] %get-tuple-element.27, s32[] %negone.28)\n"
	"  %add.30 = s32[] add(s32[] %get-tuple-element.26, s32[] %multiply.29)\n"
	"  %get-tuple-element.31 = s32[] get-tuple-element((s32[], s32[], s32[], s32[]) %param), index=2\n"
	"  %tuple.32 = (s32[], s32[], s32[]) tuple(s32[] %add.25, s32[] %add.30, s32[] %get-tuple-element.31)\n"
	"  %a = s32[] get-tuple-element((s32[], s32[], s32[]) %tuple.32), index=0\n"
	"  %one = s32[] constant(1)\n"
	"  %a1 = s32[] add(s32[] %a, s32[] %one)\n"
	"  %b = s32[] get-tuple-element((s32[], s32[], s32[]) %tuple.32), index=1\n"
	"  %negone = s32[] constant(-1)\n"
	"  %b1 = s32[] add(s32[] %b, s32[] %negone)\n"
	"  %c = s32[] add(s32[] %a, s32[] %b)\n"
	"  %tuple = (s32[], s32[], s32[]) tuple(s32[] %a1, s32[] %b1, s32[] %c)\n"
	"  %get-tuple-element.33 = s32[] get-tuple-element((s32[], s32[], s32[], s32[]) %param), index=0\n"
	"  %get-tuple-element.34 = s32[] get-tuple-element((s32[], s32[], s32[], s32[]) %param), index=1\n"
	"  %get-tuple-element.35 = s32[] get-tuple-element((s32[], s32[], s32[]) %tuple), index=2\n"
	"  %get-tuple-element.36 = s32[] get-tuple-element((s32[], s32[], s32[], s32[]) %param), index=3\n"
	"  %constant.37 = s32[] constant(1)\n"
	"  %add.38 = s32[] add(s32[] %get-tuple-element.36, s32[] %constant.37)\n"
	"  ROOT %tuple.39 = (s32[], s32[], s32[], s32[]) tuple(s32[] %get-tuple-element.33, s32[] %get-tuple-element.34, s32[] %get-tuple-element.35, s32[] %add.38)\n"
	"}\n"
	"%Cond (param.0: (s32[], s32[], s32[], s32[])) -> pred[] {\n"
	"  %param.0 = (s32[], s32[], s32[], s32[]) parameter(0)\n"
	"  %get-tuple-element.9 = s32[] get-tuple-element((s32[], s32[], s32[], s32[]) %param.0), index=0\n"
	"  %get-tuple-element.10 = s32[] get-tuple-element((s32[], s32[], s32[], s32[]) %param.0), index=3\n"
	"  %one.11 = s32[] constant(1)\n"
	"  %multiply.12 = s32[] multiply(s32[] %get-tuple-element.10, s32[] %one.11)\n"
	"  %add.13 = s32[] add(s32[] %get-tuple-element.9, s32[] %multiply.12)\n"
	"  %get-tuple-element.14 = s32[] get-tuple-element((s32[], s32[], s32[], s32[]) %param.0), index=1\n"
	"  %get-tuple-element.15 = s32[] get-tuple-element((s32[], s32[], s32[], s32[]) %param.0), index=3\n"
	"  %negone.16 = s32[] constant(-1)\n"
	"  %multiply.17 = s32[] multiply(s32[] %get-tuple-element.15, s32[] %negone.16)\n"
	"  %add.18 = s32[] add(s32[] %get-tuple-element.14, s32[] %multiply.17)\n"
	"  %get-tuple-element.19 = s32[] get-tuple-element((s32[], s32[], s32[], s32[]) %param.0), index=2\n"
	"  %tuple.20 = (s32[], s32[], s32[]) tuple(s32[] %add.13, s32[] %add.18, s32[] %get-tuple-element.19)\n"
	"  %a.1 = s32[] get-tuple-element((s32[], s32[], s32[]) %tuple.20), index=0\n"
	"  %b.2 = s32[] get-tuple-element((s32[], s32[], s32[]) %tuple.20), index=1\n"
	"  %sum = s32[] power(s32[] %a.1, s32[] %b.2)\n"
	"  %ten = s32[] constant(10)\n"
	"  ROOT %cond = pred[] compare(s32[] %sum, s32[] %ten), direction=LT\n"
	"}\n"
	"ENTRY %Loop () -> s32[] {\n"
	"  %a.3 = s32[] constant(10)\n"
	"  %b.4 = s32[] constant(100)\n"
	"  %c.5 = s32[] constant(0)\n"
	"  %init = (s32[], s32[], s32[]) tuple(s32[] %a.3, s32[] %b.4, s32[] %c.5)\n"
	"  %get-tuple-element.40 = s32[] get-tuple-element((s32[], s32[], s32[]) %init), index=0\n"
	"  %get-tuple-element.41 = s32[] get-tuple-element((s32[], s32[], s32[]) %init), index=1\n"
	"  %get-tuple-element.42 = s32[] get-tuple-element((s32[], s32[], s32[]) %init), index=2\n"
	"  %constant.43 = s32[] constant(0)\n"
	"  %tuple.44 = (s32[], s32[], s32[], s32[]) tuple(s32[] %get-tuple-element.40, s32[] %get-tuple-element.41, s32[] %get-tuple-element.42, s32[] %constant.43)\n"
	"  %while = (s32[], s32[], s32[], s32[]) while((s32[], s32[], s32[], s32[]) %tuple.44), condition=%Cond, body=%Body\n"
	"  %get-tuple-element.45 = s32[] get-tuple-element((s32[], s32[], s32[], s32[]) %while), index=0\n"
	"  %get-tuple-element.46 = s32[] get-tuple-element((s32[], s32[], s32[], s32[]) %while), index=3\n"
	"  %one.47 = s32[] constant(1)\n"
	"  %multiply.48 = s32[] multiply(s32[] %get-tuple-element.46, s32[] %one.47)\n"
	"  %add.49 = s32[] add(s32[] %get-tuple-element.45, s32[] %multiply.48)\n"
	"  %get-tuple-element.50 = s32[] get-tuple-element((s32[], s32[], s32[], s32[]) %while), index=1\n"
	"  %get-tuple-element.51 = s32[] get-tuple-element((s32[], s32[], s32[], s32[]) %while), index=3\n"
	"  %negone.52 = s32[] constant(-1)\n"
	"  %multiply.53 = s32[] multiply(s32[] %get-tuple-element.51, s32[] %negone.52)\n"
	"  %add.54 = s32[] add(s32[] %get-tuple-element.50, s32[] %multiply.53)\n"
	"  %get-tuple-element.55 = s32[] get-tuple-element((s32[], s32[], s32[], s32[]) %while), index=2\n"
	"  %tuple.56 = (s32[], s32[], s32[]) tuple(s32[] %add.49, s32[] %add.54, s32[] %get-tuple-element.55)\n"
	"  %a1.6 = s32[] get-tuple-element((s32[], s32[], s32[]) %tuple.56), index=0\n"
	"  %b1.7 = s32[] get-tuple-element((s32[], s32[], s32[]) %tuple.56), index=1\n"
	"  %c1 = s32[] get-tuple-element((s32[], s32[], s32[]) %tuple.56), index=2\n"
	"  %sum.8 = s32[] add(s32[] %a1.6, s32[] %b1.7)\n"
	"  ROOT %sum.1 = s32[] add(s32[] %sum.8, s32[] %c1)\n"
	"}\n";

static const char ws_elem_twice_not_in[] =
	"HloModule ElemUsedTwice\n"
	"ElemUsedTwice.body {\n"
	"  param0 = (s32[], s32[]) parameter(0)\n"
	"  get-tuple-element = s32[] get-tuple-element((s32[], s32[]) param0), index=0\n"
	"  ROOT tuple = (s32[], s32[]) tuple(s32[] get-tuple-element, s32[] get-tuple-element)\n"
	"}\n"
	"ElemUsedTwice.always_true {\n"
	"  param = (s32[], s32[]) parameter(0)\n"
	"  ROOT constant = pred[] constant(true)\n"
	"}\n"
	"ENTRY ElemUsedTwice {\n"
	" x = s32[] parameter(0)\n"
	" y = s32[] parameter(1)\n"
	" tuple.1 = (s32[], s32[]) tuple(s32[] x, s32[] y)\n"
	" ROOT while = (s32[], s32[]) while((s32[], s32[]) tuple.1), condition=ElemUsedTwice.always_true, body=ElemUsedTwice.body\n"
	"}\n";

static const char ws_send_not_in[] =
	"HloModule SimpleLoop\n"
	"SimpleLoop.body {\n"
	"  loop_var.1 = (s32[], s32[3]{0}) parameter(0)\n"
	"  get-tuple-element.1 = s32[] get-tuple-element(loop_var.1), index=0\n"
	"  constant.1 = s32[] constant(1)\n"
	"  add = s32[] add(get-tuple-element.1, constant.1)\n"
	"  get-tuple-element.2 = s32[3]{0} get-tuple-element(loop_var.1), index=1\n"
	"  multiply = s32[3]{0} multiply(get-tuple-element.2, get-tuple-element.2)\n"
	"  tok = token[] after-all()\n"
	"  snd = (pred[], u32[], token[]) send(pred[] constant(true), tok), channel_id=1\n"
	"  sd = token[] send-done(snd), channel_id=1\n"
	"  ROOT tuple = (s32[], s32[3]{0}) tuple(add, multiply)\n"
	"}\n"
	"SimpleLoop.condition {\n"
	"  loop_var.2 = (s32[], s32[3]{0}) parameter(0)\n"
	"  get-tuple-element.3 = s32[] get-tuple-element(loop_var.2), index=0\n"
	"  constant.2 = s32[] constant(43)\n"
	"  ROOT less-than = pred[] compare(get-tuple-element.3, constant.2), direction=LT\n"
	"}\n"
	"ENTRY SimpleLoop {\n"
	"  constant.3 = s32[] constant(42)\n"
	"  constant.4 = s32[3]{0} constant({0, 1, 2})\n"
	"  tuple.1 = (s32[], s32[3]{0}) tuple(constant.3, constant.4)\n"
	"  ROOT while = (s32[], s32[3]{0}) while(tuple.1), condition=SimpleLoop.condition, body=SimpleLoop.body\n"
	"}\n";

static const char ws_infeed_cond_not_in[] =
	"HloModule SimpleLoop\n"
	"SimpleLoop.body {\n"
	"  loop_var.1 = (s32[], s32[3]{0}) parameter(0)\n"
	"  get-tuple-element.1 = s32[] get-tuple-element(loop_var.1), index=0\n"
	"  constant.1 = s32[] constant(1)\n"
	"  add = s32[] add(get-tuple-element.1, constant.1)\n"
	"  get-tuple-element.2 = s32[3]{0} get-tuple-element(loop_var.1), index=1\n"
	"  multiply = s32[3]{0} multiply(get-tuple-element.2, get-tuple-element.2)\n"
	"  ROOT tuple = (s32[], s32[3]{0}) tuple(add, multiply)\n"
	"}\n"
	"SimpleLoop.condition {\n"
	"  loop_var.2 = (s32[], s32[3]{0}) parameter(0)\n"
	"  get-tuple-element.3 = s32[] get-tuple-element(loop_var.2), index=0\n"
	"  constant.2 = s32[] constant(43)\n"
	"  tok = token[] after-all()\n"
	"  inf = ((f32[1]), token[]) infeed(tok)\n"
	"  ROOT less-than = pred[] compare(get-tuple-element.3, constant.2), direction=LT\n"
	"}\n"
	"ENTRY SimpleLoop {\n"
	"  constant.3 = s32[] constant(42)\n"
	"  constant.4 = s32[3]{0} constant({0, 1, 2})\n"
	"  tuple.1 = (s32[], s32[3]{0}) tuple(constant.3, constant.4)\n"
	"  ROOT while = (s32[], s32[3]{0}) while(tuple.1), condition=SimpleLoop.condition, body=SimpleLoop.body\n"
	"}\n";

static const char ws_infeed_body_not_in[] =
	"HloModule SimpleLoop\n"
	"SimpleLoop.body {\n"
	"  loop_var.1 = (s32[], s32[3]{0}) parameter(0)\n"
	"  get-tuple-element.1 = s32[] get-tuple-element(loop_var.1), index=0\n"
	"  constant.1 = s32[] constant(1)\n"
	"  add = s32[] add(get-tuple-element.1, constant.1)\n"
	"  get-tuple-element.2 = s32[3]{0} get-tuple-element(loop_var.1), index=1\n"
	"  multiply = s32[3]{0} multiply(get-tuple-element.2, get-tuple-element.2)\n"
	"  tok = token[] after-all()\n"
	"  inf = ((f32[1]), token[]) infeed(tok)\n"
	"  ROOT tuple = (s32[], s32[3]{0}) tuple(add, multiply)\n"
	"}\n"
	"SimpleLoop.condition {\n"
	"  loop_var.2 = (s32[], s32[3]{0}) parameter(0)\n"
	"  get-tuple-element.3 = s32[] get-tuple-element(loop_var.2), index=0\n"
	"  constant.2 = s32[] constant(43)\n"
	"  ROOT less-than = pred[] compare(get-tuple-element.3, constant.2), direction=LT\n"
	"}\n"
	"ENTRY SimpleLoop {\n"
	"  constant.3 = s32[] constant(42)\n"
	"  constant.4 = s32[3]{0} constant({0, 1, 2})\n"
	"  tuple.1 = (s32[], s32[3]{0}) tuple(constant.3, constant.4)\n"
	"  ROOT while = (s32[], s32[3]{0}) while(tuple.1), condition=SimpleLoop.condition, body=SimpleLoop.body\n"
	"}\n";

static const char ws_dce_disabled_not_in[] =
	"HloModule SimpleLoop\n"
	"SimpleLoop.body {\n"
	"  loop_var.1 = (s32[], s32[3]{0}) parameter(0)\n"
	"  get-tuple-element.1 = s32[] get-tuple-element(loop_var.1), index=0\n"
	"  constant.1 = s32[] constant(1)\n"
	"  add = s32[] add(get-tuple-element.1, constant.1)\n"
	"  get-tuple-element.2 = s32[3]{0} get-tuple-element(loop_var.1), index=1\n"
	"  multiply = s32[3]{0} multiply(get-tuple-element.2, get-tuple-element.2)\n"
	"  ROOT tuple = (s32[], s32[3]{0}) tuple(add, multiply)\n"
	"}\n"
	"SimpleLoop.condition {\n"
	"  loop_var.2 = (s32[], s32[3]{0}) parameter(0)\n"
	"  get-tuple-element.3 = s32[] get-tuple-element(loop_var.2), index=0\n"
	"  constant.2 = s32[] constant(42)\n"
	"  ROOT less-than = pred[] compare(get-tuple-element.3, constant.2), direction=LT\n"
	"}\n"
	"ENTRY SimpleLoop {\n"
	"  constant.3 = s32[] constant(42)\n"
	"  constant.4 = s32[3]{0} constant({0, 1, 2})\n"
	"  tuple.1 = (s32[], s32[3]{0}) tuple(constant.3, constant.4)\n"
	"  ROOT while = (s32[], s32[3]{0}) while(tuple.1), condition=SimpleLoop.condition, body=SimpleLoop.body, frontend_attributes={_xla_disable_while_loop_dce=\"true\"}\n"
	"}\n";

static const char ws_non_tuple_not_in[] =
	"HloModule NonTupleShapedLoop\n"
	"NonTupleShapedLoop.body {\n"
	"  loop_var.1 = s32[] parameter(0)\n"
	"  constant.1 = s32[] constant(-1)\n"
	"  ROOT add = s32[] add(s32[] loop_var.1, s32[] constant.1)\n"
	"}\n"
	"NonTupleShapedLoop.condition {\n"
	"  loop_var = s32[] parameter(0)\n"
	"  constant = s32[] constant(100)\n"
	"  ROOT less-than = pred[] compare(s32[] loop_var, s32[] constant), direction=LT\n"
	"}\n"
	"ENTRY INonTupleShapedLoop {\n"
	"  constant.2 = s32[] constant(42)\n"
	"  ROOT while = s32[] while(s32[] constant.2), condition=NonTupleShapedLoop.condition, body=NonTupleShapedLoop.body\n"
	"}\n";

static const char licm_variant_not_in[] =
	"HloModule m\n"
	"body {\n"
	"  p = (f32[2], f32[2], s32[]) parameter(0)\n"
	"  x = f32[2] get-tuple-element(p), index=0\n"
	"  y = f32[2] get-tuple-element(p), index=1\n"
	"  i = s32[] get-tuple-element(p), index=2\n"
	"  inv = f32[2] add(x, y)\n"
	"  e = f32[2] exponential(inv)\n"
	"  one = s32[] constant(1)\n"
	"  i1 = s32[] add(i, one)\n"
	"  acc = f32[2] multiply(e, y)\n"
	"  ROOT t = (f32[2], f32[2], s32[]) tuple(x, acc, i1)\n"
	"}\n"
	"cond {\n"
	"  p = (f32[2], f32[2], s32[]) parameter(0)\n"
	"  i = s32[] get-tuple-element(p), index=2\n"
	"  n = s32[] constant(10)\n"
	"  ROOT lt = pred[] compare(i, n), direction=LT\n"
	"}\n"
	"ENTRY e {\n"
	"  a = f32[2] parameter(0)\n"
	"  b = f32[2] parameter(1)\n"
	"  z = s32[] constant(0)\n"
	"  init = (f32[2], f32[2], s32[]) tuple(a, b, z)\n"
	"  w = (f32[2], f32[2], s32[]) while(init), condition=cond, body=body\n"
	"  ROOT r = f32[2] get-tuple-element(w), index=1\n"
	"}\n";

static const char licm_hoist_in[] =
	"HloModule m\n"
	"body {\n"
	"  p = (f32[2], f32[2], s32[]) parameter(0)\n"
	"  x = f32[2] get-tuple-element(p), index=0\n"
	"  y = f32[2] get-tuple-element(p), index=1\n"
	"  i = s32[] get-tuple-element(p), index=2\n"
	"  c = f32[2] constant({1, 2})\n"
	"  inv = f32[2] add(x, c)\n"
	"  bc = f32[2] broadcast(f32[] constant(3)), dimensions={}\n"
	"  e = f32[2] multiply(inv, bc)\n"
	"  one = s32[] constant(1)\n"
	"  i1 = s32[] add(i, one)\n"
	"  acc = f32[2] add(e, y)\n"
	"  ROOT t = (f32[2], f32[2], s32[]) tuple(x, acc, i1)\n"
	"}\n"
	"cond {\n"
	"  p = (f32[2], f32[2], s32[]) parameter(0)\n"
	"  i = s32[] get-tuple-element(p), index=2\n"
	"  n = s32[] constant(10)\n"
	"  ROOT lt = pred[] compare(i, n), direction=LT\n"
	"}\n"
	"ENTRY e {\n"
	"  a = f32[2] parameter(0)\n"
	"  b = f32[2] parameter(1)\n"
	"  z = s32[] constant(0)\n"
	"  init = (f32[2], f32[2], s32[]) tuple(a, b, z)\n"
	"  ROOT w = (f32[2], f32[2], s32[]) while(init), condition=cond, body=body\n"
	"}\n";
static const char licm_hoist_out[] =
	"HloModule m\n"
	"%body (p: (f32[2], f32[2], s32[], f32[2], f32[2])) -> (f32[2], f32[2], s32[], f32[2], f32[2]) {\n"
	"  %p = (f32[2], f32[2], s32[], f32[2], f32[2]) parameter(0)\n"
	"  %x = f32[2] get-tuple-element((f32[2], f32[2], s32[], f32[2], f32[2]) %p), index=0\n"
	"  %y = f32[2] get-tuple-element((f32[2], f32[2], s32[], f32[2], f32[2]) %p), index=1\n"
	"  %i = s32[] get-tuple-element((f32[2], f32[2], s32[], f32[2], f32[2]) %p), index=2\n"
	"  %get-tuple-element.10 = f32[2] get-tuple-element((f32[2], f32[2], s32[], f32[2], f32[2]) %p), index=3\n"
	"  %one = s32[] constant(1)\n"
	"  %i1 = s32[] add(s32[] %i, s32[] %one)\n"
	"  %get-tuple-element.11 = f32[2] get-tuple-element((f32[2], f32[2], s32[], f32[2], f32[2]) %p), index=4\n"
	"  %acc = f32[2] add(f32[2] %get-tuple-element.11, f32[2] %y)\n"
	"  ROOT %tuple.12 = (f32[2], f32[2], s32[], f32[2], f32[2]) tuple(f32[2] %x, f32[2] %acc, s32[] %i1, f32[2] %get-tuple-element.10, f32[2] %get-tuple-element.11)\n"
	"}\n"
	"%cond (p.1: (f32[2], f32[2], s32[], f32[2], f32[2])) -> pred[] {\n"
	"  %p.1 = (f32[2], f32[2], s32[], f32[2], f32[2]) parameter(0)\n"
	"  %i.2 = s32[] get-tuple-element((f32[2], f32[2], s32[], f32[2], f32[2]) %p.1), index=2\n"
	"  %n = s32[] constant(10)\n"
	"  ROOT %lt = pred[] compare(s32[] %i.2, s32[] %n), direction=LT\n"
	"}\n"
	"ENTRY %e (a: f32[2], b: f32[2]) -> (f32[2], f32[2], s32[]) {\n"
	"  %a = f32[2] parameter(0)\n"
	"  %b = f32[2] parameter(1)\n"
	"  %z = s32[] constant(0)\n"
	"  %c.3 = f32[2] constant({1, 2})\n"
	"  %inv.5 = f32[2] add(f32[2] %a, f32[2] %c.3)\n"
	"  %constant.6 = f32[] constant(3)\n"
	"  %bc.7 = f32[2] broadcast(f32[] %constant.6), dimensions={}\n"
	"  %e.8 = f32[2] multiply(f32[2] %inv.5, f32[2] %bc.7)\n"
	"  %tuple.9 = (f32[2], f32[2], s32[], f32[2], f32[2]) tuple(f32[2] %a, f32[2] %b, s32[] %z, f32[2] %inv.5, f32[2] %e.8)\n"
	"  %w = (f32[2], f32[2], s32[], f32[2], f32[2]) while((f32[2], f32[2], s32[], f32[2], f32[2]) %tuple.9), condition=%cond, body=%body\n"
	"  %get-tuple-element.13 = f32[2] get-tuple-element((f32[2], f32[2], s32[], f32[2], f32[2]) %w), index=0\n"
	"  %get-tuple-element.14 = f32[2] get-tuple-element((f32[2], f32[2], s32[], f32[2], f32[2]) %w), index=1\n"
	"  %get-tuple-element.15 = s32[] get-tuple-element((f32[2], f32[2], s32[], f32[2], f32[2]) %w), index=2\n"
	"  ROOT %tuple.16 = (f32[2], f32[2], s32[]) tuple(f32[2] %get-tuple-element.13, f32[2] %get-tuple-element.14, s32[] %get-tuple-element.15)\n"
	"}\n";

static const char licm_trip1_not_in[] =
	"HloModule m\n"
	"body {\n"
	"  p = (f32[2], s32[]) parameter(0)\n"
	"  x = f32[2] get-tuple-element(p), index=0\n"
	"  i = s32[] get-tuple-element(p), index=1\n"
	"  tok = token[] after-all()\n"
	"  o = token[] outfeed(x, tok)\n"
	"  e = f32[2] exponential(x)\n"
	"  one = s32[] constant(1)\n"
	"  i1 = s32[] add(i, one)\n"
	"  ROOT t = (f32[2], s32[]) tuple(x, i1)\n"
	"}\n"
	"cond {\n"
	"  p = (f32[2], s32[]) parameter(0)\n"
	"  i = s32[] get-tuple-element(p), index=1\n"
	"  n = s32[] constant(1)\n"
	"  ROOT lt = pred[] compare(i, n), direction=LT\n"
	"}\n"
	"ENTRY e {\n"
	"  a = f32[2] parameter(0)\n"
	"  z = s32[] constant(0)\n"
	"  init = (f32[2], s32[]) tuple(a, z)\n"
	"  ROOT w = (f32[2], s32[]) while(init), condition=cond, body=body\n"
	"}\n";

static const char licm_disabled_not_in[] =
	"HloModule m\n"
	"body {\n"
	"  p = (f32[2], f32[2], s32[]) parameter(0)\n"
	"  x = f32[2] get-tuple-element(p), index=0\n"
	"  y = f32[2] get-tuple-element(p), index=1\n"
	"  i = s32[] get-tuple-element(p), index=2\n"
	"  c = f32[2] constant({1, 2})\n"
	"  inv = f32[2] add(x, c)\n"
	"  bc = f32[2] broadcast(f32[] constant(3)), dimensions={}\n"
	"  e = f32[2] multiply(inv, bc)\n"
	"  one = s32[] constant(1)\n"
	"  i1 = s32[] add(i, one)\n"
	"  acc = f32[2] add(e, y)\n"
	"  ROOT t = (f32[2], f32[2], s32[]) tuple(x, acc, i1)\n"
	"}\n"
	"cond {\n"
	"  p = (f32[2], f32[2], s32[]) parameter(0)\n"
	"  i = s32[] get-tuple-element(p), index=2\n"
	"  n = s32[] constant(10)\n"
	"  ROOT lt = pred[] compare(i, n), direction=LT\n"
	"}\n"
	"ENTRY e {\n"
	"  a = f32[2] parameter(0)\n"
	"  b = f32[2] parameter(1)\n"
	"  z = s32[] constant(0)\n"
	"  init = (f32[2], f32[2], s32[]) tuple(a, b, z)\n"
	"  ROOT w = (f32[2], f32[2], s32[]) while(init), condition=cond, body=body, frontend_attributes={_xla_disable_loop_instr_hoisting=\"true\"}\n"
	"}\n";

static const char licm_side_effects_not_in[] =
	"HloModule m\n"
	"body {\n"
	"  p = (f32[2], s32[], f32[2]) parameter(0)\n"
	"  x = f32[2] get-tuple-element(p), index=0\n"
	"  i = s32[] get-tuple-element(p), index=1\n"
	"  cc = f32[2] custom-call(x), custom_call_target=\"foo\", custom_call_has_side_effect=true\n"
	"  r = f32[2] rng(f32[] constant(0), f32[] constant(1)), distribution=rng_uniform\n"
	"  e = f32[2] add(cc, r)\n"
	"  one = s32[] constant(1)\n"
	"  i1 = s32[] add(i, one)\n"
	"  ROOT t = (f32[2], s32[], f32[2]) tuple(x, i1, e)\n"
	"}\n"
	"cond {\n"
	"  p = (f32[2], s32[], f32[2]) parameter(0)\n"
	"  i = s32[] get-tuple-element(p), index=1\n"
	"  n = s32[] constant(10)\n"
	"  ROOT lt = pred[] compare(i, n), direction=LT\n"
	"}\n"
	"ENTRY e {\n"
	"  a = f32[2] parameter(0)\n"
	"  z = s32[] constant(0)\n"
	"  init = (f32[2], s32[], f32[2]) tuple(a, z, a)\n"
	"  ROOT w = (f32[2], s32[], f32[2]) while(init), condition=cond, body=body\n"
	"}\n";

static const char licm_channel_collective_not_in[] =
	"HloModule m\n"
	"sum {\n"
	"  x = f32[] parameter(0)\n"
	"  y = f32[] parameter(1)\n"
	"  ROOT s = f32[] add(x, y)\n"
	"}\n"
	"body {\n"
	"  p = (f32[2], s32[], f32[2]) parameter(0)\n"
	"  x = f32[2] get-tuple-element(p), index=0\n"
	"  i = s32[] get-tuple-element(p), index=1\n"
	"  ar = f32[2] all-reduce(x), channel_id=1, replica_groups={}, to_apply=sum\n"
	"  one = s32[] constant(1)\n"
	"  i1 = s32[] add(i, one)\n"
	"  ROOT t = (f32[2], s32[], f32[2]) tuple(x, i1, ar)\n"
	"}\n"
	"cond {\n"
	"  p = (f32[2], s32[], f32[2]) parameter(0)\n"
	"  i = s32[] get-tuple-element(p), index=1\n"
	"  n = s32[] constant(10)\n"
	"  ROOT lt = pred[] compare(i, n), direction=LT\n"
	"}\n"
	"ENTRY e {\n"
	"  a = f32[2] parameter(0)\n"
	"  z = s32[] constant(0)\n"
	"  init = (f32[2], s32[], f32[2]) tuple(a, z, a)\n"
	"  ROOT w = (f32[2], s32[], f32[2]) while(init), condition=cond, body=body\n"
	"}\n";

static const char licm_collective_no_channel_in[] =
	"HloModule m\n"
	"sum {\n"
	"  x = f32[] parameter(0)\n"
	"  y = f32[] parameter(1)\n"
	"  ROOT s = f32[] add(x, y)\n"
	"}\n"
	"body {\n"
	"  p = (f32[2], s32[], f32[2]) parameter(0)\n"
	"  x = f32[2] get-tuple-element(p), index=0\n"
	"  i = s32[] get-tuple-element(p), index=1\n"
	"  ar = f32[2] all-reduce(x), replica_groups={}, to_apply=sum\n"
	"  one = s32[] constant(1)\n"
	"  i1 = s32[] add(i, one)\n"
	"  ROOT t = (f32[2], s32[], f32[2]) tuple(x, i1, ar)\n"
	"}\n"
	"cond {\n"
	"  p = (f32[2], s32[], f32[2]) parameter(0)\n"
	"  i = s32[] get-tuple-element(p), index=1\n"
	"  n = s32[] constant(10)\n"
	"  ROOT lt = pred[] compare(i, n), direction=LT\n"
	"}\n"
	"ENTRY e {\n"
	"  a = f32[2] parameter(0)\n"
	"  z = s32[] constant(0)\n"
	"  init = (f32[2], s32[], f32[2]) tuple(a, z, a)\n"
	"  ROOT w = (f32[2], s32[], f32[2]) while(init), condition=cond, body=body\n"
	"}\n";
static const char licm_collective_no_channel_out[] =
	"HloModule m\n"
	"%sum (x: f32[], y: f32[]) -> f32[] {\n"
	"  %x = f32[] parameter(0)\n"
	"  %y = f32[] parameter(1)\n"
	"  ROOT %s = f32[] add(f32[] %x, f32[] %y)\n"
	"}\n"
	"%body (p: (f32[2], s32[], f32[2], f32[2])) -> (f32[2], s32[], f32[2], f32[2]) {\n"
	"  %p = (f32[2], s32[], f32[2], f32[2]) parameter(0)\n"
	"  %x.0 = f32[2] get-tuple-element((f32[2], s32[], f32[2], f32[2]) %p), index=0\n"
	"  %i = s32[] get-tuple-element((f32[2], s32[], f32[2], f32[2]) %p), index=1\n"
	"  %one = s32[] constant(1)\n"
	"  %i1 = s32[] add(s32[] %i, s32[] %one)\n"
	"  %get-tuple-element.6 = f32[2] get-tuple-element((f32[2], s32[], f32[2], f32[2]) %p), index=3\n"
	"  ROOT %tuple.7 = (f32[2], s32[], f32[2], f32[2]) tuple(f32[2] %x.0, s32[] %i1, f32[2] %get-tuple-element.6, f32[2] %get-tuple-element.6)\n"
	"}\n"
	"%cond (p.1: (f32[2], s32[], f32[2], f32[2])) -> pred[] {\n"
	"  %p.1 = (f32[2], s32[], f32[2], f32[2]) parameter(0)\n"
	"  %i.2 = s32[] get-tuple-element((f32[2], s32[], f32[2], f32[2]) %p.1), index=1\n"
	"  %n = s32[] constant(10)\n"
	"  ROOT %lt = pred[] compare(s32[] %i.2, s32[] %n), direction=LT\n"
	"}\n"
	"ENTRY %e (a: f32[2]) -> (f32[2], s32[], f32[2]) {\n"
	"  %a = f32[2] parameter(0)\n"
	"  %z = s32[] constant(0)\n"
	"  %ar.4 = f32[2] all-reduce(f32[2] %a), replica_groups={}, to_apply=%sum\n"
	"  %tuple.5 = (f32[2], s32[], f32[2], f32[2]) tuple(f32[2] %a, s32[] %z, f32[2] %a, f32[2] %ar.4)\n"
	"  %w = (f32[2], s32[], f32[2], f32[2]) while((f32[2], s32[], f32[2], f32[2]) %tuple.5), condition=%cond, body=%body\n"
	"  %get-tuple-element.8 = f32[2] get-tuple-element((f32[2], s32[], f32[2], f32[2]) %w), index=0\n"
	"  %get-tuple-element.9 = s32[] get-tuple-element((f32[2], s32[], f32[2], f32[2]) %w), index=1\n"
	"  %get-tuple-element.10 = f32[2] get-tuple-element((f32[2], s32[], f32[2], f32[2]) %w), index=2\n"
	"  ROOT %tuple.11 = (f32[2], s32[], f32[2]) tuple(f32[2] %get-tuple-element.8, s32[] %get-tuple-element.9, f32[2] %get-tuple-element.10)\n"
	"}\n";

static const char cs_constant_pred_in[] =
	"HloModule m\n"
	"t {\n"
	"  p = (f32[2], f32[2]) parameter(0)\n"
	"  x = f32[2] get-tuple-element(p), index=0\n"
	"  ROOT n = f32[2] negate(x)\n"
	"}\n"
	"f {\n"
	"  p = (f32[2], f32[2]) parameter(0)\n"
	"  y = f32[2] get-tuple-element(p), index=1\n"
	"  ROOT e = f32[2] exponential(y)\n"
	"}\n"
	"ENTRY e {\n"
	"  a = f32[2] parameter(0)\n"
	"  b = f32[2] parameter(1)\n"
	"  tp = (f32[2], f32[2]) tuple(a, b)\n"
	"  c = pred[] constant(true)\n"
	"  ROOT r = f32[2] conditional(c, tp, tp), true_computation=t, false_computation=f\n"
	"}\n";
static const char cs_constant_pred_out[] =
	"HloModule m\n"
	"%t (p: (f32[2], f32[2])) -> f32[2] {\n"
	"  %p = (f32[2], f32[2]) parameter(0)\n"
	"  %x = f32[2] get-tuple-element((f32[2], f32[2]) %p), index=0\n"
	"  ROOT %n = f32[2] negate(f32[2] %x)\n"
	"}\n"
	"%f (p.0: (f32[2], f32[2])) -> f32[2] {\n"
	"  %p.0 = (f32[2], f32[2]) parameter(0)\n"
	"  %y = f32[2] get-tuple-element((f32[2], f32[2]) %p.0), index=1\n"
	"  ROOT %e = f32[2] exponential(f32[2] %y)\n"
	"}\n"
	"ENTRY %e (a: f32[2], b: f32[2]) -> f32[2] {\n"
	"  %a = f32[2] parameter(0)\n"
	"  %b = f32[2] parameter(1)\n"
	"  %tp = (f32[2], f32[2]) tuple(f32[2] %a, f32[2] %b)\n"
	"  %x.1 = f32[2] get-tuple-element((f32[2], f32[2]) %tp), index=0\n"
	"  ROOT %n.2 = f32[2] negate(f32[2] %x.1)\n"
	"}\n";

static const char cs_select_in[] =
	"HloModule m\n"
	"t {\n"
	"  p = (f32[2], f32[2]) parameter(0)\n"
	"  x = f32[2] get-tuple-element(p), index=0\n"
	"  ROOT n = f32[2] negate(x)\n"
	"}\n"
	"f {\n"
	"  p = (f32[2], f32[2]) parameter(0)\n"
	"  y = f32[2] get-tuple-element(p), index=1\n"
	"  ROOT e = f32[2] add(y, y)\n"
	"}\n"
	"ENTRY e {\n"
	"  a = f32[2] parameter(0)\n"
	"  b = f32[2] parameter(1)\n"
	"  tp = (f32[2], f32[2]) tuple(a, b)\n"
	"  c = pred[] parameter(2)\n"
	"  ROOT r = f32[2] conditional(c, tp, tp), true_computation=t, false_computation=f\n"
	"}\n";
static const char cs_select_out[] =
	"HloModule m\n"
	"%t (p: (f32[2], f32[2])) -> f32[2] {\n"
	"  %p = (f32[2], f32[2]) parameter(0)\n"
	"  %x = f32[2] get-tuple-element((f32[2], f32[2]) %p), index=0\n"
	"  ROOT %n = f32[2] negate(f32[2] %x)\n"
	"}\n"
	"%f (p.0: (f32[2], f32[2])) -> f32[2] {\n"
	"  %p.0 = (f32[2], f32[2]) parameter(0)\n"
	"  %y = f32[2] get-tuple-element((f32[2], f32[2]) %p.0), index=1\n"
	"  ROOT %e = f32[2] add(f32[2] %y, f32[2] %y)\n"
	"}\n"
	"ENTRY %e (a: f32[2], b: f32[2], c: pred[]) -> f32[2] {\n"
	"  %a = f32[2] parameter(0)\n"
	"  %b = f32[2] parameter(1)\n"
	"  %tp = (f32[2], f32[2]) tuple(f32[2] %a, f32[2] %b)\n"
	"  %c = pred[] parameter(2)\n"
	"  %x.1 = f32[2] get-tuple-element((f32[2], f32[2]) %tp), index=0\n"
	"  %n.2 = f32[2] negate(f32[2] %x.1)\n"
	"  %y.3 = f32[2] get-tuple-element((f32[2], f32[2]) %tp), index=1\n"
	"  %e.4 = f32[2] add(f32[2] %y.3, f32[2] %y.3)\n"
	"  %broadcast.5 = pred[2] broadcast(pred[] %c), dimensions={}\n"
	"  ROOT %select.6 = f32[2] select(pred[2] %broadcast.5, f32[2] %n.2, f32[2] %e.4)\n"
	"}\n";

static const char cs_expensive_operands_in[] =
	"HloModule m\n"
	"t {\n"
	"  p = (f32[2], f32[2]) parameter(0)\n"
	"  x = f32[2] get-tuple-element(p), index=0\n"
	"  ROOT n = f32[2] dot(x, x), lhs_contracting_dims={}, rhs_contracting_dims={}, lhs_batch_dims={0}, rhs_batch_dims={0}\n"
	"}\n"
	"f {\n"
	"  p = (f32[2], f32[2]) parameter(0)\n"
	"  y = f32[2] get-tuple-element(p), index=1\n"
	"  ROOT e = f32[2] add(y, y)\n"
	"}\n"
	"ENTRY e {\n"
	"  a = f32[2] parameter(0)\n"
	"  b = f32[2] parameter(1)\n"
	"  tp = (f32[2], f32[2]) tuple(a, b)\n"
	"  c = pred[] parameter(2)\n"
	"  ROOT r = f32[2] conditional(c, tp, tp), true_computation=t, false_computation=f\n"
	"}\n";
static const char cs_expensive_operands_out[] =
	"HloModule m\n"
	"%t (p: (f32[2])) -> f32[2] {\n"
	"  %p = (f32[2]) parameter(0)\n"
	"  %x = f32[2] get-tuple-element((f32[2]) %p), index=0\n"
	"  ROOT %n = f32[2] dot(f32[2] %x, f32[2] %x), lhs_batch_dims={0}, lhs_contracting_dims={}, rhs_batch_dims={0}, rhs_contracting_dims={}\n"
	"}\n"
	"%f (p.0: (f32[2])) -> f32[2] {\n"
	"  %p.0 = (f32[2]) parameter(0)\n"
	"  %y = f32[2] get-tuple-element((f32[2]) %p.0), index=0\n"
	"  ROOT %e = f32[2] add(f32[2] %y, f32[2] %y)\n"
	"}\n"
	"ENTRY %e (a: f32[2], b: f32[2], c: pred[]) -> f32[2] {\n"
	"  %a = f32[2] parameter(0)\n"
	"  %b = f32[2] parameter(1)\n"
	"  %tp = (f32[2], f32[2]) tuple(f32[2] %a, f32[2] %b)\n"
	"  %c = pred[] parameter(2)\n"
	"  %get-tuple-element.1 = f32[2] get-tuple-element((f32[2], f32[2]) %tp), index=0\n"
	"  %tuple.2 = (f32[2]) tuple(f32[2] %get-tuple-element.1)\n"
	"  %get-tuple-element.3 = f32[2] get-tuple-element((f32[2], f32[2]) %tp), index=1\n"
	"  %tuple.4 = (f32[2]) tuple(f32[2] %get-tuple-element.3)\n"
	"  ROOT %r = f32[2] conditional(pred[] %c, (f32[2]) %tuple.2, (f32[2]) %tuple.4), true_computation=%t, false_computation=%f\n"
	"}\n";

static const char cs_dup_unused_outputs_in[] =
	"HloModule m\n"
	"b0 {\n"
	"  p = (f32[2], f32[2]) parameter(0)\n"
	"  x = f32[2] get-tuple-element(p), index=0\n"
	"  n = f32[2] negate(x)\n"
	"  ROOT t = (f32[2], f32[2], f32[2]) tuple(n, n, x)\n"
	"}\n"
	"b1 {\n"
	"  p = (f32[2], f32[2]) parameter(0)\n"
	"  y = f32[2] get-tuple-element(p), index=1\n"
	"  e = f32[2] exponential(y)\n"
	"  ROOT t = (f32[2], f32[2], f32[2]) tuple(e, e, y)\n"
	"}\n"
	"b2 {\n"
	"  p = (f32[2], f32[2]) parameter(0)\n"
	"  y = f32[2] get-tuple-element(p), index=1\n"
	"  e = f32[2] log(y)\n"
	"  ROOT t = (f32[2], f32[2], f32[2]) tuple(e, e, e)\n"
	"}\n"
	"ENTRY e {\n"
	"  a = f32[2] parameter(0)\n"
	"  b = f32[2] parameter(1)\n"
	"  tp = (f32[2], f32[2]) tuple(a, b)\n"
	"  c = s32[] parameter(2)\n"
	"  r = (f32[2], f32[2], f32[2]) conditional(c, tp, tp, tp), branch_computations={b0, b1, b2}\n"
	"  g0 = f32[2] get-tuple-element(r), index=0\n"
	"  g1 = f32[2] get-tuple-element(r), index=1\n"
	"  ROOT s = f32[2] add(g0, g1)\n"
	"}\n";
static const char cs_dup_unused_outputs_out[] =
	"HloModule m\n"
	"%b0 (p: (f32[2])) -> (f32[2]) {\n"
	"  %p = (f32[2]) parameter(0)\n"
	"  %x = f32[2] get-tuple-element((f32[2]) %p), index=0\n"
	"  %n = f32[2] negate(f32[2] %x)\n"
	"  %t = (f32[2], f32[2], f32[2]) tuple(f32[2] %n, f32[2] %n, f32[2] %x)\n"
	"  %get-tuple-element.6 = f32[2] get-tuple-element((f32[2], f32[2], f32[2]) %t), index=0\n"
	"  ROOT %tuple.7 = (f32[2]) tuple(f32[2] %get-tuple-element.6)\n"
	"}\n"
	"%b1 (p.0: (f32[2])) -> (f32[2]) {\n"
	"  %p.0 = (f32[2]) parameter(0)\n"
	"  %y = f32[2] get-tuple-element((f32[2]) %p.0), index=0\n"
	"  %e = f32[2] exponential(f32[2] %y)\n"
	"  %t.1 = (f32[2], f32[2], f32[2]) tuple(f32[2] %e, f32[2] %e, f32[2] %y)\n"
	"  %get-tuple-element.8 = f32[2] get-tuple-element((f32[2], f32[2], f32[2]) %t.1), index=0\n"
	"  ROOT %tuple.9 = (f32[2]) tuple(f32[2] %get-tuple-element.8)\n"
	"}\n"
	"%b2 (p.2: (f32[2])) -> (f32[2]) {\n"
	"  %p.2 = (f32[2]) parameter(0)\n"
	"  %y.3 = f32[2] get-tuple-element((f32[2]) %p.2), index=0\n"
	"  %e.4 = f32[2] log(f32[2] %y.3)\n"
	"  %t.5 = (f32[2], f32[2], f32[2]) tuple(f32[2] %e.4, f32[2] %e.4, f32[2] %e.4)\n"
	"  %get-tuple-element.10 = f32[2] get-tuple-element((f32[2], f32[2], f32[2]) %t.5), index=0\n"
	"  ROOT %tuple.11 = (f32[2]) tuple(f32[2] %get-tuple-element.10)\n"
	"}\n"
	"ENTRY %e (a: f32[2], b: f32[2], c: s32[]) -> f32[2] {\n"
	"  %a = f32[2] parameter(0)\n"
	"  %b = f32[2] parameter(1)\n"
	"  %tp = (f32[2], f32[2]) tuple(f32[2] %a, f32[2] %b)\n"
	"  %c = s32[] parameter(2)\n"
	"  %get-tuple-element.12 = f32[2] get-tuple-element((f32[2], f32[2]) %tp), index=0\n"
	"  %tuple.13 = (f32[2]) tuple(f32[2] %get-tuple-element.12)\n"
	"  %get-tuple-element.14 = f32[2] get-tuple-element((f32[2], f32[2]) %tp), index=1\n"
	"  %tuple.15 = (f32[2]) tuple(f32[2] %get-tuple-element.14)\n"
	"  %get-tuple-element.16 = f32[2] get-tuple-element((f32[2], f32[2]) %tp), index=1\n"
	"  %tuple.17 = (f32[2]) tuple(f32[2] %get-tuple-element.16)\n"
	"  %r = (f32[2]) conditional(s32[] %c, (f32[2]) %tuple.13, (f32[2]) %tuple.15, (f32[2]) %tuple.17), branch_computations={%b0, %b1, %b2}\n"
	"  %g0 = f32[2] get-tuple-element((f32[2]) %r), index=0\n"
	"  %g1 = f32[2] get-tuple-element((f32[2]) %r), index=0\n"
	"  ROOT %s = f32[2] add(f32[2] %g0, f32[2] %g1)\n"
	"}\n";

static const char cs_side_effect_not_in[] =
	"HloModule m\n"
	"t {\n"
	"  p = (f32[2]) parameter(0)\n"
	"  x = f32[2] get-tuple-element(p), index=0\n"
	"  tok = token[] after-all()\n"
	"  o = token[] outfeed(x, tok)\n"
	"  ROOT n = f32[2] negate(x)\n"
	"}\n"
	"f {\n"
	"  p = (f32[2]) parameter(0)\n"
	"  y = f32[2] get-tuple-element(p), index=0\n"
	"  ROOT e = f32[2] add(y, y)\n"
	"}\n"
	"ENTRY e {\n"
	"  a = f32[2] parameter(0)\n"
	"  tp = (f32[2]) tuple(a)\n"
	"  c = pred[] constant(false)\n"
	"  ROOT r = f32[2] conditional(c, tp, tp), true_computation=t, false_computation=f\n"
	"}\n";

static const char cs_no_users_in[] =
	"HloModule m\n"
	"t {\n"
	"  p = (f32[2]) parameter(0)\n"
	"  x = f32[2] get-tuple-element(p), index=0\n"
	"  ROOT n = f32[2] negate(x)\n"
	"}\n"
	"f {\n"
	"  p = (f32[2]) parameter(0)\n"
	"  y = f32[2] get-tuple-element(p), index=0\n"
	"  ROOT e = f32[2] add(y, y)\n"
	"}\n"
	"ENTRY e {\n"
	"  a = f32[2] parameter(0)\n"
	"  tp = (f32[2]) tuple(a)\n"
	"  c = pred[] parameter(1)\n"
	"  r = f32[2] conditional(c, tp, tp), true_computation=t, false_computation=f\n"
	"  ROOT x = f32[2] call(a), to_apply=t2\n"
	"}\n"
	"t2 {\n"
	"  p = f32[2] parameter(0)\n"
	"  ROOT n = f32[2] negate(p)\n"
	"}\n";
static const char cs_no_users_out[] =
	"HloModule m\n"
	"%t (p: (f32[2])) -> () {\n"
	"  %p = (f32[2]) parameter(0)\n"
	"  %x = f32[2] get-tuple-element((f32[2]) %p), index=0\n"
	"  %n = f32[2] negate(f32[2] %x)\n"
	"  ROOT %tuple.4 = () tuple()\n"
	"}\n"
	"%f (p.0: (f32[2])) -> () {\n"
	"  %p.0 = (f32[2]) parameter(0)\n"
	"  %y = f32[2] get-tuple-element((f32[2]) %p.0), index=0\n"
	"  %e = f32[2] add(f32[2] %y, f32[2] %y)\n"
	"  ROOT %tuple.5 = () tuple()\n"
	"}\n"
	"%t2 (p.2: f32[2]) -> f32[2] {\n"
	"  %p.2 = f32[2] parameter(0)\n"
	"  ROOT %n.3 = f32[2] negate(f32[2] %p.2)\n"
	"}\n"
	"ENTRY %e (a: f32[2], c: pred[]) -> f32[2] {\n"
	"  %a = f32[2] parameter(0)\n"
	"  %tp = (f32[2]) tuple(f32[2] %a)\n"
	"  %c = pred[] parameter(1)\n"
	"  ROOT %x.1 = f32[2] call(f32[2] %a), to_apply=%t2\n"
	"  %x.6 = f32[2] get-tuple-element((f32[2]) %tp), index=0\n"
	"  %n.7 = f32[2] negate(f32[2] %x.6)\n"
	"  %tuple.8 = () tuple()\n"
	"  %y.9 = f32[2] get-tuple-element((f32[2]) %tp), index=0\n"
	"  %e.10 = f32[2] add(f32[2] %y.9, f32[2] %y.9)\n"
	"  %tuple.11 = () tuple()\n"
	"  %tuple.12 = () tuple()\n"
	"}\n";

static const char cs_channel_not_in[] =
	"HloModule m\n"
	"sum {\n"
	"  x = f32[] parameter(0)\n"
	"  y = f32[] parameter(1)\n"
	"  ROOT s = f32[] add(x, y)\n"
	"}\n"
	"t {\n"
	"  p = (f32[2]) parameter(0)\n"
	"  x = f32[2] get-tuple-element(p), index=0\n"
	"  ROOT ar = f32[2] all-reduce(x), channel_id=1, replica_groups={}, to_apply=sum\n"
	"}\n"
	"f {\n"
	"  p = (f32[2]) parameter(0)\n"
	"  ROOT y = f32[2] get-tuple-element(p), index=0\n"
	"}\n"
	"ENTRY e {\n"
	"  a = f32[2] parameter(0)\n"
	"  tp = (f32[2]) tuple(a)\n"
	"  c = pred[] constant(true)\n"
	"  ROOT r = f32[2] conditional(c, tp, tp), true_computation=t, false_computation=f\n"
	"}\n";

static const char cf_fold_in[] =
	"HloModule m\n"
	"add {\n"
	"  x = f32[] parameter(0)\n"
	"  y = f32[] parameter(1)\n"
	"  ROOT s = f32[] add(x, y)\n"
	"}\n"
	"ENTRY e {\n"
	"  p = f32[3] parameter(0)\n"
	"  c1 = f32[3] constant({1, 2, 3})\n"
	"  c2 = f32[3] constant({10, 20, 30})\n"
	"  a = f32[3] add(c1, c2)\n"
	"  b = f32[3] broadcast(f32[] constant(2)), dimensions={}\n"
	"  m = f32[3] multiply(a, b)\n"
	"  io = s32[3] iota(), iota_dimension=0\n"
	"  cv = f32[3] convert(io)\n"
	"  r = f32[] reduce(m, f32[] constant(0)), dimensions={0}, to_apply=add\n"
	"  rb = f32[3] broadcast(r), dimensions={}\n"
	"  x = f32[3] add(p, rb)\n"
	"  rng = f32[3] rng(f32[] constant(0), f32[] constant(1)), distribution=rng_uniform\n"
	"  big = f32[3] broadcast(f32[] constant(5)), dimensions={}\n"
	"  ROOT t = (f32[3], f32[3], f32[3], f32[3]) tuple(x, cv, rng, big)\n"
	"}\n";
static const char cf_fold_out[] =
	"HloModule m\n"
	"%add (x: f32[], y: f32[]) -> f32[] {\n"
	"  %x = f32[] parameter(0)\n"
	"  %y = f32[] parameter(1)\n"
	"  ROOT %s = f32[] add(f32[] %x, f32[] %y)\n"
	"}\n"
	"ENTRY %e (p: f32[3]) -> (f32[3], f32[3], f32[3], f32[3]) {\n"
	"  %p = f32[3] parameter(0)\n"
	"  %io = s32[3] iota(), iota_dimension=0\n"
	"  %cv = f32[3] convert(s32[3] %io)\n"
	"  %constant.8 = f32[] constant(132)\n"
	"  %rb = f32[3] broadcast(f32[] %constant.8), dimensions={}\n"
	"  %x.2 = f32[3] add(f32[3] %p, f32[3] %rb)\n"
	"  %constant.3 = f32[] constant(0)\n"
	"  %constant.4 = f32[] constant(1)\n"
	"  %rng = f32[3] rng(f32[] %constant.3, f32[] %constant.4), distribution=rng_uniform\n"
	"  %constant.5 = f32[] constant(5)\n"
	"  %big = f32[3] broadcast(f32[] %constant.5), dimensions={}\n"
	"  ROOT %t = (f32[3], f32[3], f32[3], f32[3]) tuple(f32[3] %x.2, f32[3] %cv, f32[3] %rng, f32[3] %big)\n"
	"}\n";

static const char cf_not_foldable_in[] =
	"HloModule m\n"
	"ENTRY e {\n"
	"  c = f32[3] constant({...})\n"
	"  n = f32[3] negate(c)\n"
	"  b = f32[3] broadcast(f32[] constant(2)), dimensions={}\n"
	"  io = s32[3] iota(), iota_dimension=0\n"
	"  rng = f32[3] rng(f32[] constant(0), f32[] constant(1)), distribution=rng_uniform\n"
	"  tok = token[] after-all()\n"
	"  o = token[] outfeed(f32[3] constant({1, 2, 3}), tok)\n"
	"  ROOT t = (f32[3], f32[3], s32[3], f32[3]) tuple(n, b, io, rng)\n"
	"}\n";

static const char cf_control_dep_in[] =
	"HloModule m\n"
	"ENTRY e {\n"
	"  p = f32[] parameter(0)\n"
	"  c = f32[] constant(1)\n"
	"  n = f32[] negate(c), control-predecessors={p}\n"
	"  ROOT a = f32[] add(p, n)\n"
	"}\n";

static const char cf_collective_not_in[] =
	"HloModule m\n"
	"sum {\n"
	"  x = f32[] parameter(0)\n"
	"  y = f32[] parameter(1)\n"
	"  ROOT s = f32[] add(x, y)\n"
	"}\n"
	"ENTRY e {\n"
	"  c = f32[2] constant({1, 2})\n"
	"  ROOT ar = f32[2] all-reduce(c), replica_groups={}, to_apply=sum\n"
	"}\n";

static const Case cases[] = {
	{"rm_diff_input_shapes", "reshape-mover", rm_diff_input_shapes_in, NULL},
	{"rm_rng_trivial", "reshape-mover", rm_rng_trivial_in, NULL},
	{"rm_select_constant", "reshape-mover", rm_select_constant_in, rm_select_constant_out},
	{"rm_reshapes_of_constants", "reshape-mover", rm_reshapes_of_constants_in, NULL},
	{"rm_multiple", "reshape-mover", rm_multiple_in, rm_multiple_out},
	{"rm_transpose_bcast_scalar", "reshape-mover", rm_transpose_bcast_scalar_in, rm_transpose_bcast_scalar_out},
	{"rm_users_outside", "reshape-mover", rm_users_outside_in, NULL},
	{"rm_users_inside", "reshape-mover", rm_users_inside_in, rm_users_inside_out},
	{"rm_rank1_bcast", "reshape-mover", rm_rank1_bcast_in, NULL},
	{"rm_transpose_of_bcast", "reshape-mover", rm_transpose_of_bcast_in, rm_transpose_of_bcast_out},
	{"rm_transpose_reorders_bcast", "reshape-mover", rm_transpose_reorders_bcast_in, NULL},
	{"rm_same_operand_twice", "reshape-mover", rm_same_operand_twice_in, rm_same_operand_twice_out},
	{"tf_dot_rhs", "transpose-folding", tf_dot_rhs_in, tf_dot_rhs_out},
	{"tf_batch_dim_not", "transpose-folding", tf_batch_dim_not_in, NULL},
	{"tf_rank1_not", "transpose-folding", tf_rank1_not_in, NULL},
	{"tf_dot_constants", "transpose-folding", tf_dot_constants_in, tf_dot_constants_out},
	{"tf_dot_in_call", "transpose-folding", tf_dot_in_call_in, tf_dot_in_call_out},
	{"tf_conv_rhs", "transpose-folding", tf_conv_rhs_in, tf_conv_rhs_out},
	{"tf_conv_lhs", "transpose-folding", tf_conv_lhs_in, tf_conv_lhs_out},
	{"tf_batch_dot", "transpose-folding", tf_batch_dot_in, tf_batch_dot_out},
	{"tf_control_dep", "transpose-folding", tf_control_dep_in, NULL},
	{"ss_ternary", "slice-sinker", ss_ternary_in, ss_ternary_out},
	{"ss_disjoint_not", "slice-sinker", ss_disjoint_not_in, NULL},
	{"ss_attrs_differ", "slice-sinker", ss_attrs_differ_in, NULL},
	{"ss_multi_users", "slice-sinker", ss_multi_users_in, ss_multi_users_out},
	{"cm_down_concat", "convert-mover", cm_down_concat_in, cm_down_concat_out},
	{"cm_mixed_src_not", "convert-mover", cm_mixed_src_not_in, NULL},
	{"cm_up_reshape", "convert-mover", cm_up_reshape_in, cm_up_reshape_out},
	{"cm_up_two_transposes", "convert-mover", cm_up_two_transposes_in, cm_up_two_transposes_out},
	{"cm_down_two_slices", "convert-mover", cm_down_two_slices_in, cm_down_two_slices_out},
	{"cm_c64_constant_not", "convert-mover", cm_c64_constant_not_in, NULL},
	{"cm_up_pad_out_of_range", "convert-mover", cm_up_pad_out_of_range_in, cm_up_pad_out_of_range_out},
	{"cm_down_pad", "convert-mover", cm_down_pad_in, cm_down_pad_out},
	{"cm_pad_constant_lossy_not", "convert-mover", cm_pad_constant_lossy_not_in, NULL},
	{"fp_round_trip", "simplify-fp-conversions", fp_round_trip_in, fp_round_trip_out},
	{"fp_chain3", "simplify-fp-conversions", fp_chain3_in, fp_chain3_out},
	{"fp_single_not", "simplify-fp-conversions", fp_single_not_in, NULL},
	{"fp_integer_not", "simplify-fp-conversions", fp_integer_not_in, NULL},
	{"fp_shared_middle", "simplify-fp-conversions", fp_shared_middle_in, fp_shared_middle_out},
	{"wcs_body", "while-loop-constant-sinking", wcs_body_in, wcs_body_out},
	{"wcs_cond", "while-loop-constant-sinking", wcs_cond_in, wcs_cond_out},
	{"wcs_init_param_not", "while-loop-constant-sinking", wcs_init_param_not_in, NULL},
	{"wcs_root_use_only_not", "while-loop-constant-sinking", wcs_root_use_only_not_in, NULL},
	{"ws_trip0", "simplify-while-loops", ws_trip0_in, ws_trip0_out},
	{"ws_trip1", "simplify-while-loops", ws_trip1_in, ws_trip1_out},
	{"ws_trip2_not", "simplify-while-loops", ws_trip2_not_in, NULL},
	{"ws_swap_not", "simplify-while-loops", ws_swap_not_in, NULL},
	{"ws_unused_outside", "simplify-while-loops", ws_unused_outside_in, ws_unused_outside_out},
	{"ws_remove_unused", "simplify-while-loops", ws_remove_unused_in, ws_remove_unused_out},
	{"ws_remove_despite_infeed", "simplify-while-loops", ws_remove_despite_infeed_in, ws_remove_despite_infeed_out},
	{"ws_flatten", "simplify-while-loops", ws_flatten_in, ws_flatten_out},
	{"ws_all_constants", "simplify-while-loops", ws_all_constants_in, ws_all_constants_out},
	{"ws_constant_element", "simplify-while-loops", ws_constant_element_in, ws_constant_element_out},
	{"ws_merge_induction", "simplify-while-loops", ws_merge_induction_in, ws_merge_induction_out},
	{"ws_elem_twice_not", "simplify-while-loops", ws_elem_twice_not_in, NULL},
	{"ws_send_not", "simplify-while-loops", ws_send_not_in, NULL},
	{"ws_infeed_cond_not", "simplify-while-loops", ws_infeed_cond_not_in, NULL},
	{"ws_infeed_body_not", "simplify-while-loops", ws_infeed_body_not_in, NULL},
	{"ws_dce_disabled_not", "simplify-while-loops", ws_dce_disabled_not_in, NULL},
	{"ws_non_tuple_not", "simplify-while-loops", ws_non_tuple_not_in, NULL},
	{"licm_variant_not", "while-loop-invariant-code-motion", licm_variant_not_in, NULL},
	{"licm_hoist", "while-loop-invariant-code-motion", licm_hoist_in, licm_hoist_out},
	{"licm_trip1_not", "while-loop-invariant-code-motion", licm_trip1_not_in, NULL},
	{"licm_disabled_not", "while-loop-invariant-code-motion", licm_disabled_not_in, NULL},
	{"licm_side_effects_not", "while-loop-invariant-code-motion", licm_side_effects_not_in, NULL},
	{"licm_channel_collective_not", "while-loop-invariant-code-motion", licm_channel_collective_not_in, NULL},
	{"licm_collective_no_channel", "while-loop-invariant-code-motion", licm_collective_no_channel_in, licm_collective_no_channel_out},
	{"cs_constant_pred", "simplify-conditional", cs_constant_pred_in, cs_constant_pred_out},
	{"cs_select", "simplify-conditional", cs_select_in, cs_select_out},
	{"cs_expensive_operands", "simplify-conditional", cs_expensive_operands_in, cs_expensive_operands_out},
	{"cs_dup_unused_outputs", "simplify-conditional", cs_dup_unused_outputs_in, cs_dup_unused_outputs_out},
	{"cs_side_effect_not", "simplify-conditional", cs_side_effect_not_in, NULL},
	{"cs_no_users", "simplify-conditional", cs_no_users_in, cs_no_users_out},
	{"cs_channel_not", "simplify-conditional", cs_channel_not_in, NULL},
	{"cf_fold", "constant_folding", cf_fold_in, cf_fold_out},
	{"cf_not_foldable", "constant_folding", cf_not_foldable_in, NULL},
	{"cf_control_dep", "constant_folding", cf_control_dep_in, NULL},
	{"cf_collective_not", "constant_folding", cf_collective_not_in, NULL},
};

static HloModule *
parse(const char *text)
{
	HloError e;
	HloModule *m = tu_parse(text, &e);

	if (!m)
		ck_abort_msg("parse: %s\n%s", e.msg, text);
	if (hlo_verify(m, &e) < 0)
		ck_abort_msg("verify input: %s\n%s", e.msg, text);
	return m;
}

/* one pass by name with the verifier on; what it returned */
static int
run_pass(HloModule *m, const char *name)
{
	int id = pass_lookup(name, strlen(name)), r;
	PassCtx ctx;

	ck_assert_msg(id >= 0, "no pass %s", name);
	pass_ctx_init(&ctx);
	ctx.flags = PASS_VERIFY;
	r = pass_run(m, id, &ctx, NULL);
	if (r < 0)
		ck_abort_msg("%s: %s", name, ctx.err.msg);
	pass_ctx_free(&ctx);
	return r;
}

typedef struct {
	char **v;
	size_t n, cap;
} Names;

static size_t
name_id(Names *t, const char *s, size_t n)
{
	size_t k;

	for (k = 0; k < t->n; k++)
		if (strlen(t->v[k]) == n && !memcmp(t->v[k], s, n))
			return k;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->v = xreallocarray(t->v, t->cap, sizeof *t->v);
	}
	t->v[t->n] = xmalloc(n + 1);
	memcpy(t->v[t->n], s, n);
	t->v[t->n][n] = 0;
	return t->n++;
}

static int
name_char(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		(ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '-';
}

/* printed text with %names renumbered in order of appearance and the
 * parameter lists of computation headers dropped */
static char *
canon(const char *text)
{
	HloBuf b = {0};
	Names t = {0};
	const char *s = text, *e, *nl, *arrow;
	char num[32];
	size_t k;

	while (*s) {
		nl = strchr(s, '\n');
		if (!nl)
			nl = s + strlen(s);
		if ((*s == '%' || !strncmp(s, "ENTRY ", 6)) &&
		    (arrow = strstr(s, ") -> ")) && arrow < nl) {
			e = strchr(s, '(');
			hlo_buf_put(&b, s, e - s);
			s = arrow + 1;
		}
		for (; s < nl; s++) {
			if (*s != '%') {
				hlo_buf_put(&b, s, 1);
				continue;
			}
			for (e = s + 1; e < nl && name_char(*e); e++)
				;
			snprintf(num, sizeof num, "%%v%zu",
				name_id(&t, s + 1, e - s - 1));
			hlo_buf_puts(&b, num);
			s = e - 1;
		}
		if (*s == '\n') {
			hlo_buf_put(&b, "\n", 1);
			s++;
		}
	}
	hlo_buf_put(&b, "", 1);
	for (k = 0; k < t.n; k++)
		free(t.v[k]);
	free(t.v);
	return b.buf;
}

/* a while whose condition is a constant: the loop never ends (or never
 * runs), too slow to evaluate */
static int
constant_condition(const HloModule *m)
{
	uint32_t c, i, d;

	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++) {
			const HloInstr *in = &m->comps[c].ins[i];

			if (in->op != HOP_WHILE || in->ncalled != 2)
				continue;
			d = hlo_called(m, in)[1];
			if (m->comps[d].ins[m->comps[d].root].op == HOP_CONSTANT)
				return 1;
		}
	return 0;
}

/* the rewritten module computes what the input does, when both can be
 * evaluated (simplify-fp-conversions drops roundings on purpose) */
static void
same_outputs(const char *in, const HloModule *m, const char *pass,
	const char *what)
{
	HloModule *m0;
	HloVerifyOpts o;
	HloVerifyResult vr;

	if (!strcmp(pass, "simplify-fp-conversions"))
		return;
	m0 = parse(in);
	if (constant_condition(m0) || constant_condition(m)) {
		hlo_module_free(m0);
		return;
	}

	memset(&o, 0, sizeof o);
	o.trials = 2;
	o.seed = 3;
	o.rtol = 1e-3;
	o.atol = 1e-5;
	o.limit = (uint64_t)1 << 28;
	if (hlo_eval_verify(m0, m, &o, &vr) == 1)
		ck_abort_msg("%s: outputs differ: %s", what, vr.msg);
	hlo_module_free(m0);
}

static void
check_case(const Case *c)
{
	HloModule *m = parse(c->in), *w;
	char *before = tu_print(m), *got, *want, *a, *b;
	int r = run_pass(m, c->pass);

	got = tu_print(m);
	if (!c->out) {
		if (strcmp(before, got) || r != 0)
			ck_abort_msg("%s: %s changed the module (%d):\n%s",
				c->id, c->pass, r, got);
		free(before);
		free(got);
		hlo_module_free(m);
		return;
	}
	w = parse(c->out);
	want = tu_print(w);
	a = canon(got);
	b = canon(want);
	if (strcmp(a, b))
		ck_abort_msg("%s: %s:\n--- got\n%s--- want\n%s", c->id, c->pass,
			got, want);
	ck_assert_msg(r == 1, "%s: %s changed the module but returned %d",
		c->id, c->pass, r);
	same_outputs(c->in, m, c->pass, c->id);
	free(before);
	free(got);
	free(want);
	free(a);
	free(b);
	hlo_module_free(m);
	hlo_module_free(w);
}

START_TEST(golden)
{
	check_case(&cases[_i]);
}
END_TEST

/* the same input and pass give byte-identical output */
START_TEST(deterministic)
{
	const Case *c = &cases[_i];
	HloModule *a = parse(c->in), *b = parse(c->in);
	char *x, *y;

	run_pass(a, c->pass);
	run_pass(b, c->pass);
	x = tu_print(a);
	y = tu_print(b);
	ck_assert_str_eq(x, y);
	free(x);
	free(y);
	hlo_module_free(a);
	hlo_module_free(b);
}
END_TEST

START_TEST(registered)
{
	size_t k;

	for (k = 0; k < sizeof mine / sizeof *mine; k++)
		ck_assert_msg(pass_lookup(mine[k], strlen(mine[k])) >= 0,
			"%s is not registered", mine[k]);
}
END_TEST

/* a trip-count-1 loop whose body has a control dependency keeps it after
 * inlining (xla: LoopWithControlDependencySimplifiedDependencyPreserved) */
START_TEST(inline_keeps_control_deps)
{
	HloModule *m = parse("HloModule m\n"
		"body {\n"
		"  p = (s32[]) parameter(0)\n"
		"  i = s32[] get-tuple-element(p), index=0\n"
		"  one = s32[] constant(1)\n"
		"  t = pred[] constant(true)\n"
		"  a = s32[] add(i, one), control-predecessors={t}\n"
		"  ROOT r = (s32[]) tuple(a)\n"
		"}\n"
		"cond {\n"
		"  p = (s32[]) parameter(0)\n"
		"  i = s32[] get-tuple-element(p), index=0\n"
		"  ROOT lt = pred[] compare(i, s32[] constant(1)), direction=LT\n"
		"}\n"
		"ENTRY e {\n"
		"  z = s32[] constant(0)\n"
		"  init = (s32[]) tuple(z)\n"
		"  ROOT w = (s32[]) while(init), condition=cond, body=body\n"
		"}\n");
	const HloComp *cp;
	uint32_t i, n = 0;

	ck_assert_int_eq(run_pass(m, "simplify-while-loops"), 1);
	ck_assert_uint_eq(m->ncomps, 1);
	cp = &m->comps[m->entry];
	for (i = 0; i < cp->nins; i++)
		if (cp->ins[i].op == HOP_ADD) {
			ck_assert_uint_eq(cp->ins[i].nctrl, 1);
			ck_assert_int_eq(cp->ins[hlo_ctrl(m, &cp->ins[i])[0]].op,
				HOP_CONSTANT);
			n++;
		}
	ck_assert_uint_eq(n, 1);
	hlo_module_free(m);
}
END_TEST

/* modules the reference evaluator checks in the sweep: few instructions
 * and little data, so that evaluating takes milliseconds */
#define SWEEP_EVAL_INSTRS 3000
#define SWEEP_EVAL_BYTES ((int64_t)64 << 20)

static int
small(const HloModule *m)
{
	uint32_t c, i;
	int64_t n = 0, bytes = 0, b;

	for (c = 0; c < m->ncomps; c++)
		for (i = 0; i < m->comps[c].nins; i++) {
			const HloInstr *in = &m->comps[c].ins[i];

			if (in->flags & HI_DEAD)
				continue;
			if (in->op == HOP_CUSTOMCALL)
				return 0;
			b = hlo_shape_bytes(m, in->shape);
			if (b < 0 || b > SWEEP_EVAL_BYTES / 8)
				return 0;
			bytes += b;
			n++;
		}
	return n <= SWEEP_EVAL_INSTRS && bytes <= SWEEP_EVAL_BYTES;
}

/* every pass alone on every module keeps the verifier happy and, where
 * the module is small, its outputs */
static void
sweep(const TuList *files, int *nfail)
{
	size_t f, k, nmod = 0, nchanged = 0, neval = 0;

	for (f = 0; f < files->n; f++) {
		HloModule *m0;
		HloError e;

		if (hlo_load(files->v[f], &m0, &e) < 0)
			continue;
		if (hlo_verify(m0, &e) < 0) {
			hlo_module_free(m0);
			continue;
		}
		nmod++;
		for (k = 0; k < sizeof mine / sizeof *mine; k++) {
			HloModule *m = hlo_module_clone(m0);
			PassCtx ctx;
			int r, id = pass_lookup(mine[k], strlen(mine[k]));

			pass_ctx_init(&ctx);
			r = pass_run(m, id, &ctx, NULL);
			if (r < 0) {
				fprintf(stderr, "%s on %s: %s\n", mine[k],
					files->v[f], ctx.err.msg);
				++*nfail;
			} else if (hlo_verify(m, &e) < 0) {
				fprintf(stderr, "%s on %s: %s\n", mine[k],
					files->v[f], e.msg);
				++*nfail;
			} else if (r && small(m0)) {
				HloVerifyOpts o;
				HloVerifyResult vr;

				memset(&o, 0, sizeof o);
				o.trials = 1;
				o.seed = 7;
				o.rtol = 1e-3;
				o.atol = 1e-5;
				o.limit = (uint64_t)1 << 30;
				if (hlo_eval_verify(m0, m, &o, &vr) == 0)
					neval++;
				else if (vr.verdict == 3 && getenv("HLOPT_SWEEP_V"))
					fprintf(stderr, "not evaluated: %s on %s: "
						"%s\n", mine[k], files->v[f], vr.msg);
				if (vr.verdict == 1) {
					fprintf(stderr, "%s on %s: %s\n", mine[k],
						files->v[f], vr.msg);
					++*nfail;
				}
			}
			nchanged += r > 0;
			pass_ctx_free(&ctx);
			hlo_module_free(m);
		}
		hlo_module_free(m0);
	}
	fprintf(stderr, "sweep: %zu modules, %zu changed by a pass, %zu of "
		"those evaluated equal\n", nmod, nchanged, neval);
}

/* random sequences of 20 of these passes and the cleanups they rely on,
 * under a fixed seed, over the small modules of data/: the verifier after
 * every pass, and the same outputs at the end */
START_TEST(random_sequences)
{
	static const char *const extra[] = {"dce", "tuple-simplifier"};
	TuList l = tu_list(TU_DATA);
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	size_t f, k, npool = sizeof mine / sizeof *mine + 2;
	int fail = 0, runs = 0;

	for (f = 0; f < l.n; f++) {
		HloModule *m0, *m;
		HloError e;
		PassCtx ctx;
		HloVerifyOpts o;
		HloVerifyResult vr;

		if (hlo_load(l.v[f], &m0, &e) < 0)
			continue;
		if (hlo_verify(m0, &e) < 0 || !small(m0)) {
			hlo_module_free(m0);
			continue;
		}
		m = hlo_module_clone(m0);
		pass_ctx_init(&ctx);
		ctx.flags = PASS_VERIFY;
		for (k = 0; k < 20; k++) {
			const char *name;
			size_t pick;

			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			pick = (seed >> 33) % npool;
			name = pick < npool - 2 ? mine[pick] :
				extra[pick - (npool - 2)];
			if (pass_run(m, pass_lookup(name, strlen(name)), &ctx,
			    NULL) < 0) {
				fprintf(stderr, "%s on %s: %s\n", name, l.v[f],
					ctx.err.msg);
				fail++;
				break;
			}
		}
		memset(&o, 0, sizeof o);
		o.trials = 1;
		o.seed = 11;
		o.rtol = 1e-3;
		o.atol = 1e-5;
		o.limit = (uint64_t)1 << 30;
		if (k == 20 && hlo_eval_verify(m0, m, &o, &vr) == 1) {
			fprintf(stderr, "random sequence on %s: %s\n", l.v[f],
				vr.msg);
			fail++;
		}
		runs++;
		pass_ctx_free(&ctx);
		hlo_module_free(m);
		hlo_module_free(m0);
	}
	tu_list_free(&l);
	ck_assert_int_eq(fail, 0);
	ck_assert_int_gt(runs, 0);
}
END_TEST

START_TEST(sweep_data)
{
	TuList l = tu_list(TU_DATA);
	int fail = 0;

	sweep(&l, &fail);
	tu_list_free(&l);
	ck_assert_int_eq(fail, 0);
}
END_TEST

START_TEST(sweep_corpus)
{
	const char *dir = tu_corpus(), *full = getenv("HLOPT_SWEEP");
	TuList l;
	int fail = 0;

	if (!dir || !full || strcmp(full, "full"))
		return;
	l = tu_list(dir);
	sweep(&l, &fail);
	tu_list_free(&l);
	ck_assert_int_eq(fail, 0);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("passes2");
	TCase *t = tcase_create("golden");
	int n = sizeof cases / sizeof *cases;

	tcase_add_test(t, registered);
	tcase_add_loop_test(t, golden, 0, n);
	tcase_add_loop_test(t, deterministic, 0, n);
	tcase_add_test(t, inline_keeps_control_deps);
	suite_add_tcase(s, t);
	t = tcase_create("sweep");
	tcase_set_timeout(t, 600);
	tcase_add_test(t, sweep_data);
	tcase_add_test(t, random_sequences);
	tcase_add_test(t, sweep_corpus);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	SRunner *r = srunner_create(suite());
	int failed;

	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
