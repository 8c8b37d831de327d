#!/bin/sh
# fused.sh: fusions evaluated tile by tile (src/eval/eval_fused.c) give
# the bytes the materializing evaluation gives: `hlopt run` outputs
# compared bytewise between the tiled run, `run --untiled-fusions` and
# the defused (or never fused) module, and `hlopt verify` equal; over
# hand-written fusions of every tileable op kind and of kinds that fall
# back, and over data/ modules fused by the strategies. HLOPT names the
# binary.
H=${HLOPT:-./hlopt}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

check() {
	what=$1
	shift 2
	if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $what"; fi
}

# same3 NAME FUSED REFERENCE [run flags]: tiled, untiled and reference
# outputs are the same bytes
same3() {
	name=$1 f=$2 ref=$3
	shift 3
	$H run --print-outputs "$@" "$f" >"$T/a" 2>"$T/ae"
	check "$name: tiled run" -- test $? = 0
	$H run --print-outputs --untiled-fusions "$@" "$f" >"$T/b" 2>"$T/be"
	check "$name: untiled run" -- test $? = 0
	$H run --print-outputs "$@" "$ref" >"$T/c" 2>"$T/ce"
	check "$name: reference run" -- test $? = 0
	check "$name: tiled = untiled, bytewise" -- cmp -s "$T/a" "$T/b"
	check "$name: tiled = reference, bytewise" -- cmp -s "$T/a" "$T/c"
	check "$name: outputs printed" -- test -s "$T/a"
}

# opcodes PROFILE-FILE: the opcodes run --profile counted
opcodes() {
	awk 'NR > 1 && $1 != "other" && $1 != "total" { print $1 }' "$1" |
		sort | tr '\n' ' '
}

for m in ops fallback; do
	$H optimize --passes defuser tests/fused/$m.hlo -o "$T/$m.d.hlo" \
		>/dev/null 2>&1
	check "$m: defuser" -- test $? = 0
	for seed in 0 7; do
		same3 "$m seed $seed" tests/fused/$m.hlo "$T/$m.d.hlo" \
			--seed $seed
	done
	same3 "$m one thread" tests/fused/$m.hlo "$T/$m.d.hlo" --threads 1
	$H verify "$T/$m.d.hlo" tests/fused/$m.hlo >"$T/v" 2>&1
	check "$m: verify defused = fused" -- grep -q '^verdict: equal' "$T/v"
done

# which fusions ran tiled: their computations' opcodes are not counted
$H run --profile tests/fused/ops.hlo 2>"$T/p" >/dev/null
check "ops: every fusion ran tiled" -- \
	test "$(opcodes "$T/p")" = "constant fusion tuple "
$H run --profile --untiled-fusions tests/fused/ops.hlo 2>"$T/p" >/dev/null
check "ops: --untiled-fusions runs the computations" -- \
	grep -q '^pad ' "$T/p"
$H run --profile tests/fused/fallback.hlo 2>"$T/p" >/dev/null
check "fallback: reduce, tuple root, moving bitcast, dynamic-slice fall back; the divide is tiled" -- \
	test "$(opcodes "$T/p")" = "bitcast constant copy cosine dynamic-slice exponential fusion multiply negate reduce sine tuple "

# data/ modules fused by two strategies against the unfused pipeline
for m in data/graphhelper-ptxla/kahfizulkifli/mlp/mlp_dp_1_updated.hlo \
    data/graphhelper-ptxla/wenboqian/linear_module_backward.hlo \
    data/graphhelper-ptxla/wenboqian/bert_pretrain_tp-1_dp-1_pp-1_optimizer.hlo \
    data/xla-benchmarks/backends/cpu/benchmarks/hlo/layer_norm_1x4096x768_bf16.hlo; do
	name=$(basename "$m" .hlo)
	$H optimize "$m" --fusion-strategy none -o "$T/none.hlo" >/dev/null 2>&1
	check "$name: unfused" -- test $? = 0
	for s in xla-cpu aggressive; do
		$H optimize "$m" --fusion-strategy $s -o "$T/$s.hlo" \
			>/dev/null 2>&1
		check "$name $s: fused" -- grep -q 'kind=kLoop' "$T/$s.hlo"
		same3 "$name $s" "$T/$s.hlo" "$T/none.hlo"
	done
	$H verify "$T/none.hlo" "$T/aggressive.hlo" >"$T/v" 2>&1
	check "$name: verify unfused = aggressive" -- \
		grep -q '^verdict: equal' "$T/v"
done

echo "fused.sh: $pass passed, $fail failed"
[ $fail = 0 ]
