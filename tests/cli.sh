#!/bin/sh
# cli.sh: command-line behaviour: flags, exit statuses, stdin/stdout,
# error messages and outputs left behind. HLOPT names the binary.
H=${HLOPT:-./hlopt}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
small=data/xla-tests/tests/isolated_convolution.hlo
pb=data/tpu-graphs-pb/tpu_tile_module_00.pb

# expect STATUS DESCRIPTION -- command...
expect() {
	want=$1 what=$2
	shift 3
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	if [ "$got" = "$want" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $what: exit $got, want $want"
		sed 's/^/  | /' "$T/err" | head -5
	fi
}

# check DESCRIPTION -- shell condition
check() {
	what=$1
	shift 2
	if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $what"; fi
}

# tiled layouts: a bitcast reads memory in tile order, so a copy that
# changes only the tiling matters, and deleting it is caught
printf 'f32[2,4] {{1, 2, 3, 4}, {5, 6, 7, 8}}\nf32[3,3] {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}\n' >"$T/tin.txt"
expect 0 "run: bitcast of 2x2-tiled layouts" -- $H run --inputs "$T/tin.txt" --print-outputs tests/cli/tiled_small.hlo
check "tiles are stored one after another" -- grep -qx 'output 0: f32\[8\] {1, 2, 5, 6, 3, 4, 7, 8}' "$T/out"
check "a padded tile keeps its padding" -- grep -qx 'output 1: f32\[16\] {1, 2, 4, 5, 3, 0, 6, 0, 7, 8, 0, 0, 9, 0, 0, 0}' "$T/out"
expect 4 "verify: a deleted tiling-only copy before a bitcast is caught" -- \
	$H verify tests/cli/tiled_bitcast.hlo tests/cli/tiled_bitcast_deleted.hlo
expect 0 "a bitcast in a callee reads the callee parameter's layout" -- \
	$H verify tests/cli/layout_call_transpose.hlo tests/cli/layout_call_bitcast.hlo
expect 0 "verify: the tiled bitcast equals its reshape and transpose" -- \
	$H verify tests/cli/tiled_bitcast.hlo tests/cli/tiled_bitcast_explicit.hlo
expect 0 "algsimp keeps a tiling-only copy before a bitcast" -- \
	$H optimize --passes algsimp --verify tests/cli/tiled_bitcast.hlo
check "the tiled copy is still there" -- grep -q 'f32\[16,256\]{1,0:T(8,128)} copy' "$T/out"

# f32 sums in another order: verify allows for the rounding of sums that
# the original itself shows (sums accumulated in double), not for a
# wrong formula
expect 0 "verify: a tree of sums equals the sequential sum it replaces" -- \
	$H verify tests/cli/var_sums.hlo tests/cli/var_sums_tree.hlo
check "the allowance is reported" -- grep -q ' equal (24 within sum rounding)$' "$T/out"
expect 0 "verify --format json counts the allowance" -- \
	$H verify --format json tests/cli/var_sums.hlo tests/cli/var_sums_tree.hlo
check "json within_sum_rounding" -- grep -q '"within_sum_rounding":24' "$T/out"
expect 4 "verify: a wrong constant among the sums is still different" -- \
	$H verify tests/cli/var_sums.hlo tests/cli/var_sums_wrong.hlo
expect 4 "verify --exact: no allowance" -- \
	$H verify --exact tests/cli/var_sums.hlo tests/cli/var_sums_tree.hlo
expect 4 "verify --rtol 0 --atol 0: no allowance" -- \
	$H verify --rtol 0 --atol 0 tests/cli/var_sums.hlo tests/cli/var_sums_tree.hlo
expect 0 "tree_reduction_rewriter verifies equal on the variance" -- \
	$H optimize --passes tree_reduction_rewriter --verify tests/cli/var_sums.hlo
expect 0 "verify: a partial sum stored in f32 is rounding too" -- \
	$H verify tests/cli/sum3.hlo tests/cli/sum3_tree.hlo
check "the stored partial sums are within sum rounding" -- \
	grep -q 'equal ([0-9]* within sum rounding)$' "$T/out"
expect 4 "verify: four units in the last place of the sum are not" -- \
	$H verify tests/cli/sum3.hlo tests/cli/sum3_wrong.hlo

# sparse dots evaluate: the metadata's 2-bit fields place the stored
# values (sums worked by hand in the module's comment)
expect 0 "run: a sparse lhs" -- $H run --print-outputs tests/cli/sparse_dot_lhs.hlo
check "the sparse lhs product" -- grep -qx 'output 0: f32\[2,1\] {{296}, {689}}' "$T/out"
expect 0 "run: a sparse rhs" -- $H run --print-outputs tests/cli/sparse_dot_rhs.hlo
check "the sparse rhs product" -- grep -qx 'output 0: f32\[1,2\] {{296, 689}}' "$T/out"

# the matrix of a triangular-solve or cholesky is conditioned: XLA's
# 256x256 unit triangular test system verifies equal after expansion (it
# was different: solutions up to 1e13), a wrong triangle is still caught,
# and a cholesky is compared on finite values (it was NaN everywhere)
expect 0 "triangular_solve_expander verifies equal on a 256x256 system" -- \
	$H optimize --passes triangular_solve_expander --verify -o "$T/ts.hlo" tests/cli/trisolve_unit.hlo
expect 4 "verify: the upper triangle instead of the lower is different" -- \
	$H verify tests/cli/trisolve_unit.hlo tests/cli/trisolve_upper.hlo
expect 0 "cholesky_expander verifies" -- \
	$H optimize --passes cholesky_expander --verify -o "$T/ch.hlo" tests/cli/cholesky_small.hlo
check "the cholesky is compared on finite values" -- grep -q '^verify  *equal$' "$T/out"

expect 0 "--help" -- $H --help
check "--help lists commands" -- grep -q convert "$T/out"
expect 0 "--version" -- $H --version
check "--version prints the version" -- grep -q '^hlopt [0-9]' "$T/out"
expect 2 "no command" -- $H
expect 2 "unknown command" -- $H frobnicate
expect 2 "unknown flag" -- $H stats --frobnicate $small
expect 2 "missing file argument" -- $H stats
expect 2 "bad --format" -- $H stats --format yaml $small
expect 0 "stats --help" -- $H stats --help
check "stats --help shows usage" -- grep -q 'usage: hlopt stats' "$T/out"
expect 0 "convert --help" -- $H convert --help

expect 0 "stats text" -- $H stats $small
check "stats counts instructions" -- grep -qi 'instructions' "$T/out"
expect 0 "stats json" -- $H stats --format json $small
check "stats json has keys" -- grep -q '"instructions"' "$T/out"
check "stats json has opcodes" -- grep -q '"opcodes"' "$T/out"
expect 0 "stats from stdin" -- sh -c "$H stats - < $small"
expect 0 "stats of a proto" -- $H stats $pb
expect 0 "stats of a proto from stdin" -- sh -c "$H stats --format json - < $pb"

expect 1 "missing input file" -- $H stats "$T/nope.hlo"
check "missing input names the file" -- grep -q 'nope.hlo' "$T/err"
expect 1 "directory as input" -- $H stats "$T"
printf 'HloModule m\n\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT r = f32[2] frob(p)\n}\n' >"$T/bad.hlo"
expect 1 "unknown opcode" -- $H stats "$T/bad.hlo"
check "error has file:line:col" -- grep -q "bad.hlo:5:[0-9]*: error:" "$T/err"
printf '' >"$T/empty.hlo"
expect 1 "empty file" -- $H stats "$T/empty.hlo"
head -c 300 $pb >"$T/trunc.pb"
expect 1 "truncated proto" -- $H stats "$T/trunc.pb"

# convert: text <-> proto, by extension and by --to, stdin/stdout
expect 0 "convert text to proto by extension" -- $H convert $small -o "$T/a.pb"
expect 0 "convert proto back to text" -- $H convert "$T/a.pb" -o "$T/a.hlo"
expect 0 "convert text to text" -- $H convert $small -o "$T/b.hlo"
check "text -> proto -> text is lossless" -- cmp -s "$T/a.hlo" "$T/b.hlo"
expect 0 "convert --to proto to stdout" -- sh -c "$H convert --to proto $small > $T/c.pb"
check "stdout proto equals file proto" -- cmp -s "$T/a.pb" "$T/c.pb"
expect 0 "convert from stdin" -- sh -c "$H convert - < $small > $T/d.hlo"
check "stdin text equals file text" -- cmp -s "$T/b.hlo" "$T/d.hlo"
expect 2 "convert bad --to" -- $H convert --to xml $small -o "$T/x"
expect 1 "convert into a missing folder" -- $H convert $small -o "$T/no/such/dir/out.hlo"
expect 1 "convert of bad input" -- $H convert "$T/bad.hlo" -o "$T/never.hlo"
check "no output left after a failed convert" -- test ! -e "$T/never.hlo"
check "no temporary files left" -- sh -c "! ls $T | grep -q tmp"

# run: the thread count must not change a result; --profile and --time
# report on stderr
expect 0 "run with one thread" -- sh -c "$H run --threads 1 $small > $T/r1"
expect 0 "run with three threads" -- sh -c "$H run --threads 3 $small > $T/r3"
check "run output does not depend on --threads" -- cmp -s "$T/r1" "$T/r3"
expect 2 "run --threads 0" -- $H run --threads 0 $small
expect 0 "verify --threads 1" -- $H verify --threads 1 --trials 1 $small $small
check "verify says equal" -- grep -q '^verdict: equal' "$T/out"
expect 2 "verify --threads 0" -- $H verify --threads 0 $small $small
expect 0 "run --profile --time" -- $H run --profile --time $small
check "--profile prints a table by opcode" -- grep -q '^convolution ' "$T/err"
check "--profile: the time no opcode accounts for" -- grep -q '^other  *[0-9.]*  *[0-9.]*$' "$T/err"
check "--profile: and the total" -- grep -q '^total  *[0-9.]*  *100.0$' "$T/err"
check "--time prints the time" -- grep -q '^time ' "$T/err"

# optimize --verify on a module the evaluator cannot run (ragged-dot):
# exit 3 and neither the module nor the report written
expect 3 "optimize --verify of an unevaluable module" -- $H optimize --verify \
	--passes algsimp tests/cli/unevaluable.hlo -o "$T/uv.hlo" --report "$T/uv.rep"
check "the reason names the opcode" -- grep -q 'cannot evaluate ragged-dot' "$T/err"
check "and the module" -- grep -q 'not evaluable: the input: cannot' "$T/err"
check "a failed --verify writes no module" -- test ! -e "$T/uv.hlo"
check "a failed --verify writes no report" -- test ! -e "$T/uv.rep"

# named pipelines: default follows XLA:CPU's table, saturate is a fixed point
expect 0 "passes --pipelines" -- $H passes --pipelines
check "default starts with the sharding-removal pipeline" -- grep -q '^  flatten-call-graph,sharding-remover,dce,' "$T/out"
check "default has XLA's two fixed points" -- test "$(grep -o 'fix(algsimp,' "$T/out" | wc -l)" = 2
check "default ends with flatten-call-graph, no dce" -- grep -q ',while-loop-trip-count-annotator,flatten-call-graph$' "$T/out"
check "default's steps not run say why" -- grep -q 'ConvCanonicalization: not run: XLA:CPU' "$T/out"
check "saturate is a fixed point" -- grep -q '^  fix(cse,dce,' "$T/out"
expect 0 "passes --pipelines --format json" -- $H passes --pipelines --format json
check "json names the commit default mirrors" -- grep -q '"mirrors": "openxla/xla 353a6d6c92ef866744f0b8c855c1117a27957630' "$T/out"
check "json lists the steps not run" -- grep -q '"not_run": \[' "$T/out"
expect 0 "optimize --passes saturate" -- $H optimize --passes saturate $small -o "$T/sat.hlo"

# an elided constant ({...}) keeps its values when a pass copies it under
# a fresh name (call-inliner here; torax's f64 module had 35 outputs
# "different" after call-inliner:single-call-site for that alone)
expect 0 "optimize --verify: an inlined elided constant keeps its values" -- \
	$H optimize --verify --passes call-inliner:single-call-site \
	tests/cli/elided_call.hlo -o "$T/el.hlo"
check "the elided constant was copied under a new name" -- grep -q 'table\.[0-9]* = f32\[4\] constant({...})' "$T/el.hlo"
expect 0 "verify: the same after a round trip through text" -- \
	$H verify tests/cli/elided_call.hlo "$T/el.hlo"

# a reduce of a scalar over no dimension is reducer(init, x), as in xla
# (default leaves such reduces in torax's f64 module)
expect 0 "run: reduce of a scalar" -- $H run tests/cli/reduce_scalar.hlo \
	--inputs tests/cli/reduce_scalar.in --print-outputs
check "reduce of a scalar: 2.25 + 1.5" -- grep -q '^output 0: f32\[\] 3.75$' "$T/out"

# verification: verdict with evidence, exit statuses, user tolerances,
# one set of flags for verify and optimize --verify
C=tests/cli
expect 4 "verify: rsqrt(v + eps) pair differs (not NaN = NaN)" -- \
	$H verify $C/rsqrt_sum.hlo $C/rsqrt_sum_mutated.hlo
check "verify different: verdict line" -- grep -q '^verdict: different: output 0 element 0' "$T/out"
check "verify different: per-output table" -- grep -q '^ *0  f32\[\] .* different$' "$T/out"
check "verify different: first divergence named" -- grep -q '^first divergence: xr (multiply f32\[8\])' "$T/out"
expect 4 "verify --format json" -- $H verify --format json $C/rsqrt_sum.hlo $C/rsqrt_sum_mutated.hlo
for k in '"verdict":"different"' '"compared":' '"mismatches":1' '"max_abs_error":' \
	'"max_rel_error":' '"nonfinite_a":0' '"nonfinite_b":0' '"instruction":"xr"'; do
	check "verify json has $k" -- grep -q "$k" "$T/out"
done
expect 0 "verify: rsqrt(v + eps) compared on finite values" -- \
	$H verify $C/rsqrt_sum.hlo $C/rsqrt_sum.hlo
check "verify equal: nothing non-finite" -- grep -q ' 0/0 .* equal$' "$T/out"
expect 5 "verify: an always non-finite output is partially verified" -- \
	$H verify $C/log_nan.hlo $C/log_nan.hlo
check "partial: verdict names the output" -- grep -q '^verdict: partially verified: output 1 ' "$T/out"
check "partial: the output never compared" -- grep -q 'never compared on finite values' "$T/out"
check "partial: never plain equal" -- sh -c "! grep -q '^verdict: equal' $T/out"
expect 0 "verify --exact: NaN matches NaN, by request" -- $H verify --exact $C/log_nan.hlo $C/log_nan.hlo
expect 5 "optimize --verify: partially verified" -- \
	$H optimize --verify --passes algsimp $C/log_nan.hlo -o "$T/ln.hlo" --report "$T/ln.rep"
check "optimize partial: message on stderr" -- grep -q 'verify: partially verified' "$T/err"
check "optimize partial: module written" -- test -s "$T/ln.hlo"
check "optimize partial: report has the table" -- grep -q 'never compared on finite values' "$T/ln.rep"
expect 0 "verify bf16 rounding within the default bf16 tolerance" -- \
	$H verify $C/bf16_scale.hlo $C/bf16_scale_rounded.hlo
check "bf16 default tolerance shown" -- grep -q ' 0.03/0.0' "$T/out"
expect 4 "verify --rtol 0 --atol 0 is honoured for bf16" -- \
	$H verify --rtol 0 --atol 0 $C/bf16_scale.hlo $C/bf16_scale_rounded.hlo
check "zero tolerance shown" -- grep -q ' 0/0 .* different$' "$T/out"
# excess precision (xla_allow_excess_precision, on by default): a
# module whose f32->bf16->f32 round trips are gone (simplify-fp-
# conversions) matches the original's excess-precision reference, said
# so; --strict-precision refuses it; planted differences stay different
expect 0 "verify: removed convert round trips are equal (excess precision)" -- \
	$H verify $C/fp_round_trip.hlo $C/fp_round_trip_simplified.hlo
check "the verdict names the excess-precision reference" -- \
	grep -q '^verdict: equal (excess precision)$' "$T/out"
check "the report counts the round trips and says why strict differed" -- \
	grep -q '^reference: excess precision (2 convert round trips.*strictly: output 0 ' "$T/out"
expect 0 "verify --format json names the reference" -- \
	$H verify --format json $C/fp_round_trip.hlo $C/fp_round_trip_simplified.hlo
check "json reference and round_trips" -- \
	grep -q '"verdict":"equal",.*"reference":"excess precision","round_trips":2,"strict_message":"output 0' "$T/out"
expect 4 "verify --strict-precision: round trips removed are different" -- \
	$H verify --strict-precision $C/fp_round_trip.hlo $C/fp_round_trip_simplified.hlo
expect 0 "verify: the original against itself stays strictly equal" -- \
	$H verify --format json $C/fp_round_trip.hlo $C/fp_round_trip.hlo
check "json reference strict, the other not tried" -- \
	grep -q '"reference":"strict","round_trips":-1' "$T/out"
expect 4 "verify: a planted constant is different under both references" -- \
	$H verify $C/fp_round_trip.hlo $C/fp_round_trip_wrong.hlo
check "the message gives both" -- \
	grep -q '^verdict: different: .*; with 2 convert round trips exact (excess precision): output 0 ' "$T/out"
expect 4 "verify: a narrowing convert without its return is not elided" -- \
	$H verify $C/fp_narrow.hlo $C/fp_narrow_dropped.hlo
check "no round trip in fp_narrow" -- grep -q '^verdict: different: [^;]*$' "$T/out"
expect 4 "verify: f32->s32->f32 is not a float round trip" -- \
	$H verify $C/fp_int_trip.hlo $C/fp_int_trip_dropped.hlo
expect 4 "verify: the bf16 value's other user keeps the rounding" -- \
	$H verify $C/fp_shared.hlo $C/fp_shared_overreach.hlo
expect 0 "optimize --verify: simplify-fp-conversions (excess precision)" -- \
	$H optimize --verify --passes simplify-fp-conversions $C/fp_shared.hlo -o "$T/fps.hlo" --report -
check "optimize reports the reference" -- grep -q '^verify        equal (excess precision)$' "$T/out"
expect 4 "optimize --verify --strict-precision: different" -- \
	$H optimize --verify --strict-precision --passes simplify-fp-conversions $C/fp_shared.hlo -o "$T/fps.hlo"
expect 0 "search: a best sequence with simplify-fp-conversions is written" -- \
	$H search --algo greedy --format json $C/fp_round_trip.hlo -o "$T/fpr.hlo" --report "$T/fpr.json"
check "search json: verify equal, excess-precision reference" -- \
	sh -c "grep -q '\"verify\": \"equal\"' $T/fpr.json && grep -q '\"verify_reference\": \"excess precision\"' $T/fpr.json && grep -q simplify-fp-conversions $T/fpr.json"
check "search wrote the module" -- test -s "$T/fpr.hlo"
rm -f "$T/fpr2.hlo"
expect 4 "search --strict-precision: the same sequence is different" -- \
	$H search --algo greedy --strict-precision $C/fp_round_trip.hlo -o "$T/fpr2.hlo"
check "search --strict-precision wrote nothing" -- test ! -e "$T/fpr2.hlo"
check "verify --help lists --strict-precision" -- sh -c "$H verify --help | grep -q -- --strict-precision"
check "search --help lists --strict-precision" -- sh -c "$H search --help | grep -q -- --strict-precision"
expect 0 "verify --help" -- $H verify --help
check "verify --help states the per-type defaults" -- grep -q '3e-2 bf16' "$T/out"
expect 1 "verify of a missing file is bad input (1), not different" -- \
	$H verify $C/rsqrt_sum.hlo "$T/nope.hlo"
expect 2 "verify --trials 0" -- $H verify --trials 0 $small $small
check "the message names --trials" -- grep -q -- '--trials' "$T/err"
expect 2 "verify --rtol -1" -- $H verify --rtol -1 $small $small
check "the message names --rtol" -- grep -q -- '--rtol' "$T/err"
expect 2 "verify --max-elements x" -- $H verify --max-elements x $small $small
check "the message names --max-elements" -- grep -q -- '--max-elements' "$T/err"
expect 3 "verify over --max-memory" -- $H verify --max-memory 1K $small $small
check "the limit's error names --max-memory" -- grep -q -- '--max-memory' "$T/err"
expect 3 "verify over --max-steps" -- $H verify --max-steps 2 $C/rsqrt_sum.hlo $C/rsqrt_sum.hlo
check "the limit's error names --max-steps" -- grep -q -- '--max-steps' "$T/err"
expect 3 "verify over --max-gflop" -- $H verify --max-gflop 0.001 $small $small
check "the limit's error names --max-gflop" -- grep -q -- '--max-gflop' "$T/err"
expect 3 "verify over --max-elements" -- $H verify --max-elements 10 $small $small
check "the limit's error names --max-elements" -- grep -q -- '--max-elements' "$T/err"
expect 3 "optimize --verify takes --max-memory" -- \
	$H optimize --verify --max-memory 64 --passes algsimp $C/rsqrt_sum_ones.hlo -o "$T/mm.hlo"
check "optimize --verify: the limit named" -- grep -q -- '--max-memory' "$T/err"
expect 0 "optimize --verify takes --trials --seed --rtol --atol --threads" -- \
	$H optimize --verify --trials 2 --seed 5 --rtol 0 --atol 0 --threads 1 \
	--passes algsimp $C/rsqrt_sum_ones.hlo -o "$T/ok.hlo" --report "$T/ok.rep"
check "optimize --verify report: verdict and table" -- grep -q '^verdict: equal' "$T/ok.rep"
check "optimize --verify report: trials and seed" -- grep -q '^trials: 2 (seed 5)' "$T/ok.rep"

# run: inputs by signature, --inputs, --print-outputs
expect 0 "run a module with a dead rsqrt use" -- sh -c "$H run $C/dead_rsqrt.hlo > $T/d1"
expect 0 "run it without the dead code" -- sh -c "$H run $C/dead_rsqrt_dce.hlo > $T/d2"
check "dead code does not change the inputs" -- cmp -s "$T/d1" "$T/d2"
expect 0 "run --ranges-from" -- sh -c "$H run --ranges-from $C/rsqrt_sum.hlo $C/rsqrt_sum_mutated.hlo > $T/rf"
printf 'f32[2,3] {{1, 2, 3}, {4, 5, 6}}\nf32[2,3] {{0.5, 0.5, 0.5}, {1, 1, inf}}\n' >"$T/in.txt"
expect 0 "run --inputs --print-outputs" -- $H run --inputs "$T/in.txt" --print-outputs $C/add2.hlo
check "--print-outputs prints the literal" -- grep -qx 'output 0: f32\[2,3\] {{1.5, 2.5, 3.5}, {5, 6, inf}}' "$T/out"
expect 0 "run --print-outputs" -- sh -c "$H run --print-outputs $C/add2.hlo > $T/po"
check "--print-outputs of random inputs" -- grep -q '^output 0: f32\[2,3\] {{' "$T/po"
printf 'f32[2,3] {{1, 2, 3}, {4, 5, 6}}\n' >"$T/in1.txt"
expect 1 "run --inputs with too few literals" -- $H run --inputs "$T/in1.txt" $C/add2.hlo
check "the message counts the parameters" -- grep -q '1 literals for 2 entry parameters' "$T/err"
expect 2 "run --inputs with --ranges-from" -- $H run --inputs "$T/in.txt" --ranges-from $C/add2.hlo $C/add2.hlo
# snapshots carry their arguments (issue 15, 4): tests/cli/add2_*snapshot*.pb
# were built from add2.hlo with `protoc --encode=xla.LiteralProto` for the
# literals and the wire fields of xla.HloSnapshot (hlo = 1 an HloProto,
# arguments = 2) and xla.HloUnoptimizedSnapshot (hlo_module = 1,
# partitions = 2 with arguments = 1) around them
expect 0 "run an HloSnapshot on its arguments" -- $H run --print-outputs $C/add2_snapshot.pb
check "the snapshot's arguments are the inputs" -- grep -qx 'output 0: f32\[2,3\] {{11, 22, 33}, {44, 55, 6.75}}' "$T/out"
expect 0 "run an HloUnoptimizedSnapshot on its first partition's arguments" -- $H run --print-outputs $C/add2_unopt_snapshot.pb
check "the partition's arguments are the inputs" -- grep -qx 'output 0: f32\[2,3\] {{11, 22, 33}, {44, 55, 6.75}}' "$T/out"
expect 0 "run --random-inputs ignores the snapshot's arguments" -- sh -c "$H run --random-inputs --print-outputs $C/add2_snapshot.pb > $T/sr"
check "random inputs are those of the module alone" -- cmp -s "$T/po" "$T/sr"
expect 0 "run --inputs overrides the snapshot's arguments" -- $H run --inputs "$T/in.txt" --print-outputs $C/add2_snapshot.pb
check "--inputs wins" -- grep -qx 'output 0: f32\[2,3\] {{1.5, 2.5, 3.5}, {5, 6, inf}}' "$T/out"
expect 1 "a snapshot argument of the wrong shape" -- $H run $C/add2_snapshot_badshape.pb
check "the message names the argument and the parameter's shape" -- grep -q 'add2_snapshot_badshape.pb: the snapshot.s arguments: literal 1 does not have the shape of parameter 1 (f32\[2,3\])' "$T/err"
expect 1 "a snapshot argument with too few values" -- $H run $C/add2_snapshot_short.pb
check "the message gives the argument and its byte offset" -- grep -q 'add2_snapshot_short.pb: error: snapshot argument 1 (byte [0-9]*): literal has 2 values for 6 elements' "$T/err"
expect 0 "convert reads the module of a snapshot" -- $H convert $C/add2_snapshot.pb -o "$T/snap.hlo"
check "the snapshot's module is add2" -- grep -q '^HloModule add2' "$T/snap.hlo"

# fusion-merger:across has a growth limit: this sequence, from a PPO
# rollout, ends with it on a module of 1149 instructions, which grew
# without bound (24 GB) before the limit; under 1 GB of address space
# it must finish within 5 times the module
# (AddressSanitizer needs more address space than the limit: none then)
lim="ulimit -v 1000000;"
ldd "$H" 2>/dev/null | grep -q libasan && lim=
expect 0 "fusion-merger:across stays within its growth limit" -- sh -c \
	"$lim $H optimize data/hloenv-jax/hlo_1656429f78cf7827.hlo --passes @$C/merger_across_growth.passes --format json > $T/mg.json"
mg=$(sed -n 's/^  "instructions_after": \([0-9]*\),*$/\1/p' "$T/mg.json")
check "the merged module is at most 5 times the size before ($mg)" -- test "${mg:-999999}" -le 5745

# fusion-merger is bounded by xla's code-size limit
# (ProducerConsumerMergedTooLarge): this sequence, from random search on
# mobilenet_v2 (seed 1), ends with it on 5,787 instructions (every one
# its own fusion), which grew past 7 M (24 GB) before; under 1 GB of
# address space it must finish within the environment's size cap
expect 0 "fusion-merger stays within xla's code-size limit" -- sh -c \
	"$lim $H optimize data/xla-benchmarks/tools/data/benchmarking/mobilenet_v2.hlo --passes @$C/merger_growth.passes --format json > $T/fm.json"
fm=$(sed -n 's/^  "instructions_after": \([0-9]*\),*$/\1/p' "$T/fm.json")
check "the merged module is within the size cap ($fm)" -- test "${fm:-999999}" -le 162784

# the README's count of data/ is the folder's and data/SOURCES.md's
ndata=$(find data -type f ! -name SOURCES.md | wc -l)
nrows=$(grep -c '^| `' data/SOURCES.md)
check "README counts data/'s modules ($ndata)" -- grep -q "^- \`data/\`: $ndata real HLO modules" README.md
check "data/SOURCES.md lists every module ($nrows rows)" -- test "$nrows" -eq "$ndata"

# outputs (issue 15, 7): symbolic links, modes, all or nothing, format
# by extension, text-format protos refused by name
expect 0 "convert to .BinPB (any case) is proto" -- $H convert $small -o "$T/o1.BinPB"
expect 0 "convert to .hloproto is proto" -- $H convert $small -o "$T/o1.hloproto"
check ".binpb and .hloproto equal .pb" -- sh -c "cmp -s $T/a.pb $T/o1.BinPB && cmp -s $T/a.pb $T/o1.hloproto"
expect 2 "convert to .pbtxt is refused" -- $H convert $small -o "$T/o1.pbtxt"
check "the refusal names the extension and --to" -- grep -q "unknown extension '.pbtxt'.*--to" "$T/err"
check "nothing written for a refused extension" -- test ! -e "$T/o1.pbtxt"
expect 0 "convert --to text to .pbtxt" -- $H convert --to text $small -o "$T/o1.pbtxt"
expect 0 "an output to overwrite" -- $H convert $small -o "$T/mode.hlo"
chmod 640 "$T/mode.hlo"
ln -s mode.hlo "$T/link.hlo"
expect 0 "convert through a symbolic link" -- $H convert "$T/a.pb" -o "$T/link.hlo"
check "the link is still a link" -- test -L "$T/link.hlo"
check "the target was written" -- cmp -s "$T/mode.hlo" "$T/b.hlo"
check "the target kept its mode" -- sh -c "ls -l $T/mode.hlo | grep -q '^-rw-r-----'"
expect 1 "optimize with an unwritable report" -- $H optimize $small -o "$T/half.hlo" --report "$T/no/dir/r.txt"
check "no module left when the report fails" -- test ! -e "$T/half.hlo"
expect 1 "optimize with an unwritable module" -- $H optimize $small -o "$T/no/dir/m.hlo" --report "$T/half.rep"
check "no report left when the module fails" -- test ! -e "$T/half.rep"
check "still no temporary files left" -- sh -c "! ls $T | grep -q tmp"
printf 'name: "m"\nentry_computation_name: "e"\ncomputations {\n}\n' >"$T/m.pbtxt"
expect 1 "a text-format proto input" -- $H stats "$T/m.pbtxt"
check "the error names the format" -- grep -q 'text-format proto (pbtxt)' "$T/err"

# flags (issue 15, 6): --format without -o, pass ids, --list-passes,
# did you mean
expect 0 "optimize --format json without -o" -- $H optimize --format json --passes dce $small
check "it prints the report, not the module" -- sh -c "grep -q '\"sequence\"' $T/out && ! grep -q '^HloModule' $T/out"
expect 0 "--passes by RL action id" -- sh -c "$H optimize --passes 0,2 $small -o $T/ids.hlo --report - > $T/ids.rep"
check "ids are the passes of 'hlopt passes'" -- grep -q '^passes *algsimp,dce$' "$T/ids.rep"
expect 2 "--passes with an id out of range" -- $H optimize --passes 9999 $small
expect 2 "--passes with a misspelt name" -- $H optimize --passes tuple_simplifer $small
check "did you mean the nearest name" -- grep -q "did you mean 'tuple-simplifier'" "$T/err"
expect 0 "hlopt --list-passes" -- $H --list-passes
check "--list-passes lists the passes" -- grep -q '^ *0  algsimp ' "$T/out"
expect 0 "--help" -- $H --help
check "--help points to the manual page" -- grep -q "'man .*hlopt.*' describes all" "$T/out"

# --no-verify-input: convert reads what the verifier refuses, both ways
cat >"$T/unverified.hlo" <<'HLO'
HloModule unverified

ENTRY e {
  x = f32[4] parameter(0)
  ROOT r = f32[5] add(x, x)
}
HLO
expect 1 "convert refuses an unverified module" -- $H convert "$T/unverified.hlo"
check "the verifier's reason" -- grep -q 'instruction r: shape f32\[5\]' "$T/err"
expect 0 "convert --no-verify-input" -- $H convert --no-verify-input "$T/unverified.hlo" -o "$T/unverified.pb"
expect 0 "and back" -- $H convert --no-verify-input "$T/unverified.pb"
check "the module as it was" -- grep -q 'ROOT %r = f32\[5\] add(f32\[4\] %x, f32\[4\] %x)' "$T/out"
expect 1 "optimize still refuses it" -- $H optimize "$T/unverified.pb"

# --dump-to / --dump-after: the input and the module after each pass
# that changed it; --diff: the instructions that differ
cat >"$T/dd.hlo" <<'HLO'
HloModule dd

ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  a = f32[4] add(x, y)
  b = f32[4] add(x, y)
  d = f32[4] negate(x)
  ROOT r = f32[4] multiply(a, b)
}
HLO
expect 0 "--dump-to" -- $H optimize "$T/dd.hlo" --passes 'algsimp,fix(cse,dce)' --dump-to "$T/dump" -o "$T/dd.out.hlo"
check "the input dumped" -- test -s "$T/dump/0000.input.hlo"
check "after cse" -- grep -q 'multiply(f32\[4\] %a, f32\[4\] %a)' "$T/dump/0002.after_cse.hlo"
check "after dce in round 1" -- test -s "$T/dump/0003.after_dce.hlo"
check "unchanged passes not dumped" -- test ! -e "$T/dump/0001.after_algsimp.hlo" -a ! -e "$T/dump/0004.after_cse.hlo"
check "the last dump is the output" -- cmp -s "$T/dump/0003.after_dce.hlo" "$T/dd.out.hlo"
check "the report counts them" -- grep -q "^dumped  *3 modules to $T/dump" "$T/out"
check "the step table has the round" -- grep -q '^   3  dce  *1  *1 ' "$T/out"
rm -rf "$T/dump"
expect 0 "--dump-after one pass" -- $H optimize "$T/dd.hlo" --passes 'algsimp,fix(cse,dce)' --dump-to "$T/dump" --dump-after dce -o "$T/dd.out.hlo"
check "only dce" -- test "$(ls "$T/dump" | tr '\n' ' ')" = "0000.input.hlo 0003.after_dce.hlo "
expect 2 "--dump-after needs --dump-to" -- $H optimize "$T/dd.hlo" --dump-after all
expect 2 "--dump-after: unknown pass" -- $H optimize "$T/dd.hlo" --dump-to "$T/dump" --dump-after nosuch
expect 1 "--dump-to: not a folder" -- $H optimize "$T/dd.hlo" --dump-to "$T/dd.hlo/x"
expect 0 "--diff" -- $H optimize "$T/dd.hlo" --passes 'cse,dce' --diff --format text
check "the diff counts its lines" -- grep -q '^diff  *4 lines' "$T/out"
check "removed" -- grep -q '^-  %b = f32\[4\] add(f32\[4\] %x, f32\[4\] %y)' "$T/out"
check "changed root" -- grep -q '^+  ROOT %r = f32\[4\] multiply(f32\[4\] %a, f32\[4\] %a)' "$T/out"
check "under its computation" -- grep -q '^@@ %e' "$T/out"
expect 0 "--diff json" -- $H optimize "$T/dd.hlo" --passes 'cse,dce' --diff --format json
check "json diff" -- grep -q '"diff": "@@ %e' "$T/out"
check "json round" -- grep -q '"round": 0, "computations_before": 1' "$T/out"

# --bench: one header over the columns of its rows
expect 0 "--bench" -- $H optimize "$T/dd.hlo" --passes cse,dce --bench 2
check "--bench header names every column" -- awk 'NR == 1 { h = NF } NR > 1 && NF != h { bad = 1 } END { exit bad || NR != 3 }' "$T/out"
check "--bench: the count after" -- grep -q '^cse  *[0-9.]*  *6  *[0-9]*  *5$' "$T/out"

# a binary proto is not written to a terminal unless -o - insists
# (script(1) gives the command a terminal; skipped without it)
if command -v script >/dev/null 2>&1; then
	expect 1 "proto to a terminal" -- script -qec "$H convert $T/dd.hlo --to proto" /dev/null
	check "the refusal says why" -- grep -q 'not written to a terminal; give -o FILE, or -o - to insist' "$T/out"
	expect 0 "-o - insists" -- script -qec "$H convert $T/dd.hlo --to proto -o -" /dev/null
	check "and gets the proto" -- grep -q 'HloModule\|dd' "$T/out"
else
	echo "cli: script(1) missing: the terminal refusal is not tested"
fi

# argument errors name the flag
expect 2 "bad --format" -- $H stats --format yaml "$T/dd.hlo"
check "--format named" -- grep -q "^hlopt: error: --format: 'yaml' is not one of text|json$" "$T/err"
expect 2 "bad --to" -- $H convert --to pbtxt "$T/dd.hlo"
check "--to named" -- grep -q "^hlopt: error: --to: 'pbtxt' is not one of text|proto$" "$T/err"

# verify names the module it could not evaluate
cat >"$T/twin.hlo" <<'HLO'
HloModule twin
ENTRY e {
  a = f32[19,11,5] parameter(0)
  b = f32[3,5,7] parameter(1)
  g = s64[19,3] parameter(2)
  ROOT r = f32[19,11,7] broadcast(f32[] constant(0)), dimensions={}
}
HLO
expect 3 "verify: second module unevaluable" -- $H verify "$T/twin.hlo" tests/cli/unevaluable.hlo
check "verify names the module" -- grep -q '^hlopt: verify: tests/cli/unevaluable.hlo: cannot evaluate ragged-dot' "$T/err"
check "and so does its report" -- grep -q '^verdict: not evaluable: tests/cli/unevaluable.hlo: ' "$T/out"

# make demo's job runs clean: every step verified (a failed verify or a
# search error stops it with a non-zero status)
expect 0 "the demo" -- sh scripts/demo "$H"
check "the demo's default verifies" -- grep -q '^verify        equal' "$T/out"
check "the demo's search verifies" -- grep -q '^verify         equal' "$T/out"

# an empty reduced dim: the contiguous-reduction test divided by zero
expect 0 "fusion:gpu and fusion-wrapper on a reduce over an empty dim" -- \
	$H optimize tests/cli/reduce_empty_dim.hlo --passes fusion:gpu,fusion-wrapper --verify

echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
