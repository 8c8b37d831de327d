#!/bin/sh
# search.sh: hlopt search: flags and exit statuses, the same result for
# any -j, replay lines that reproduce R, greedy never worse than the
# input, the evaluator check, --minimize, --log, progress on stderr only.
# HLOPT names the binary.
H=${HLOPT:-./hlopt}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
mid=data/hloenv-jax/jraph/module_0047.jit__truncated_normal.20.before_optimizations.hlo
lin=data/graphhelper-ptxla/wenboqian/linear_module_backward.hlo

cat >"$T/small.hlo" <<'HLO'
HloModule t

ENTRY e {
  x = f32[4] parameter(0)
  z = f32[] constant(-0)
  zb = f32[4] broadcast(z), dimensions={}
  a = f32[4] add(x, zb)
  n = f32[4] negate(x)
  ROOT r = f32[4] multiply(a, a)
}
HLO

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

check() {
	what=$1
	shift 2
	if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $what"; fi
}

# the value of a numeric key in a --format json report
jget() {
	sed -n "s/^  \"$1\": \([-0-9.e+]*\),*$/\1/p" "$2"
}

expect 0 "search --help" -- $H search --help
check "--help names every algorithm" -- grep -q 'random|greedy|beam' "$T/out"
expect 2 "unknown algorithm" -- $H search --algo annealing "$T/small.hlo"
# topk-rewriter on a clone (full pools) built a comparator and then read
# the operand's shape through a stale pointer (make check-asan, which
# runs this script, aborts on it; so does valgrind)
expect 0 "greedy over a topk module (every action on a cloned module)" -- \
	$H search --algo greedy --budget 400 tests/cli/topk_tuple.hlo
# rng-expander on an f16 rng with a third operand read the operand count
# through a stale pointer after its converts grew a clone's full pool
expect 0 "greedy over a narrow rng (rng-expander on a cloned module)" -- \
	$H search --algo greedy --budget 400 tests/cli/rng_narrow.hlo
# bitcast_dtypes_expander's narrowing read the operand's type through a
# pointer into the shape pool after interning new shapes grew it
expect 0 "greedy over a narrowing bitcast-convert (on a cloned module)" -- \
	$H search --algo greedy --budget 400 tests/cli/bitcast_narrow.hlo
# conditional-to-select read the conditional's rank through a stale
# shape pointer after converting an s32 branch index
expect 0 "greedy over an s32-indexed conditional (on a cloned module)" -- \
	$H search --algo greedy --budget 400 tests/cli/cond_select_index.hlo
# while-loop-simplifier's flattening read the while's operand slot before
# building the tuple that grows the pools (make check-asan aborts on it)
expect 0 "greedy over a nested-tuple while (on a cloned module)" -- \
	$H search --algo greedy --budget 120 tests/cli/while_flatten.hlo
expect 2 "unknown objective" -- $H search --objective speed "$T/small.hlo"
expect 2 "-j 0" -- $H search -j 0 "$T/small.hlo"
expect 2 "--budget 0" -- $H search --budget 0 "$T/small.hlo"
expect 2 "bad --format" -- $H search --format xml "$T/small.hlo"
expect 1 "missing input" -- $H search "$T/none.hlo"

# the small module's best is known: algsimp (x + -0 is x) and dce leave 2 of 6
for a in random greedy beam; do
	expect 0 "$a on the small module" -- $H search --algo $a --format json "$T/small.hlo"
	check "$a reaches the known best" -- test "$(jget best "$T/out")" = 2
	check "$a reports I and D" -- test "$(jget initial "$T/out")/$(jget default "$T/out")" = 6/2
	check "$a verifies" -- grep -q '"verified": true' "$T/out"
done
for k in initial default saturate best ratio objective flops_before flops_after \
    sequence replay steps steps_per_second seconds verified found_by; do
	check "json has $k" -- grep -q "^  \"$k\":" "$T/out"
done

# same seed, same sequence and same bytes for -j 1 and -j 2; the replay
# line reproduces R exactly
for a in random greedy beam; do
	expect 0 "$a -j 1" -- $H search --algo $a --budget 1500 --seed 5 -j 1 \
		--format json -o "$T/$a.1.hlo" "$mid" --report "$T/$a.1.json"
	expect 0 "$a -j 2" -- $H search --algo $a --budget 1500 --seed 5 -j 2 \
		--format json -o "$T/$a.2.hlo" "$mid" --report "$T/$a.2.json"
	check "$a: -j 2 writes the bytes -j 1 writes" -- cmp -s "$T/$a.1.hlo" "$T/$a.2.hlo"
	check "$a: -j 2 finds the sequence -j 1 finds" -- \
		test "$(grep '"sequence"' "$T/$a.1.json")" = "$(grep '"sequence"' "$T/$a.2.json")"
	r=$(jget best "$T/$a.1.json")
	i=$(jget initial "$T/$a.1.json")
	check "$a: never worse than the input" -- test "$r" -le "$i"
	cmd=$(sed -n 's/^  "replay": "hlopt \(.*\)",$/\1/p' "$T/$a.1.json")
	eval "$H $cmd" -o "$T/$a.replay.hlo" --report "$T/$a.replay.txt" --format json 2>"$T/err"
	check "$a: the replay line reproduces R" -- \
		test "$(jget instructions_after "$T/$a.replay.txt")" = "$r"
	check "$a: the replayed module is the one written" -- cmp -s "$T/$a.replay.hlo" "$T/$a.1.hlo"
done
check "greedy beats default on $mid" -- test "$(jget best "$T/greedy.1.json")" -lt \
	"$(jget default "$T/greedy.1.json")"

# another seed gives another random run
expect 0 "random --seed 6" -- $H search --budget 1500 --seed 6 --format json "$mid"
check "the seed changes the run" -- test \
	"$(grep -E '"(found_by|sequence)"' "$T/out")" != \
	"$(grep -E '"(found_by|sequence)"' "$T/random.1.json")"

# --minimize: no longer, same R, attribution sums to I - R
expect 0 "random, 3 passes per episode" -- $H search --budget 2000 --seed 3 --format json "$mid"
cp "$T/out" "$T/full.json"
expect 0 "random --minimize" -- $H search --budget 2000 --seed 3 --minimize --format json "$mid"
check "--minimize keeps R" -- test "$(jget best "$T/out")" -le "$(jget best "$T/full.json")"
check "--minimize reports the lengths" -- grep -q '"minimized": {"from": [0-9]*, "to": [0-9]*' "$T/out"
check "--minimize is no longer" -- test "$(grep -o '"[a-z_-]*"' "$T/out" | sed -n '/"sequence"/,/"replay"/p' | wc -l)" -le \
	"$(grep -o '"[a-z_-]*"' "$T/full.json" | sed -n '/"sequence"/,/"replay"/p' | wc -l)"
removed=$(grep -o '"removed": [0-9]*' "$T/out" | awk '{s += $2} END {print s}')
added=$(grep -o '"added": [0-9]*' "$T/out" | awk '{s += $2} END {print s}')
check "attribution accounts for I - R" -- \
	test $((removed - added)) = $(($(jget initial "$T/out") - $(jget best "$T/out")))

# --episode-len bounds greedy's sequence; --beam-width 1 is a greedy walk
# over unseen states; random's --episode-len and --patience bound episodes
expect 0 "greedy --episode-len 1" -- $H search --algo greedy --episode-len 1 --format json "$mid"
check "--episode-len 1: one pass" -- grep -q '"sequence": \["[a-z_-]*"\]' "$T/out"
check "--episode-len 1: one depth" -- test "$(jget steps "$T/out")" = "$($H passes | grep -c '^ *[0-9]')"
expect 0 "beam --beam-width 1" -- $H search --algo beam --beam-width 1 --format json "$mid"
check "--beam-width 1 improves" -- test "$(jget best "$T/out")" -lt "$(jget initial "$T/out")"
expect 0 "random --episode-len 3 --patience 2" -- $H search --episode-len 3 --patience 2 --format json "$mid"
check "random: short episodes, short sequences" -- \
	test "$(grep -o '"sequence": \[[^]]*\]' "$T/out" | tr ',' '\n' | wc -l)" -le 3

# other objectives
expect 0 "greedy on flops" -- $H search --algo greedy --objective flops --format json "$lin"
check "flops: objective keys" -- grep -q '"objective_best"' "$T/out"
check "flops: the objective is named" -- grep -q '"objective": "flops"' "$T/out"

# --log: a header and one row per improvement
expect 0 "--log" -- $H search --algo greedy --log "$T/log.csv" "$mid"
check "--log header" -- test "$(head -1 "$T/log.csv")" = "input,step,best,sequence"
check "--log one row per improvement" -- test "$(wc -l <"$T/log.csv")" -ge 2

# -o - carries the module on stdout, the report goes to stderr
expect 0 "-o -" -- $H search --algo greedy -o - "$T/small.hlo"
check "-o -: the module on stdout" -- grep -q '^HloModule' "$T/out"
check "-o -: the report on stderr" -- grep -q '^best (R)' "$T/err"
# --progress on a pipe; nothing without it
expect 0 "no progress on a pipe" -- $H search --budget 500 "$mid"
check "stderr empty without --progress" -- test ! -s "$T/err"
expect 0 "--progress" -- $H search --time 1.5 --budget 100000000 --progress "$mid"
check "--progress writes to stderr" -- grep -q 'steps/s' "$T/err"
check "--progress keeps stdout for the report" -- grep -q '^best (R)' "$T/out"

# a module the evaluator cannot run: exit 3, nothing written; --no-verify
# writes it and says so
expect 3 "unevaluable" -- $H search --algo greedy tests/cli/unevaluable.hlo -o "$T/uv.hlo"
check "unevaluable: the reason" -- grep -q 'cannot evaluate ragged-dot' "$T/err"
check "unevaluable: no module written" -- test ! -e "$T/uv.hlo"
expect 0 "--no-verify" -- $H search --algo greedy --no-verify tests/cli/unevaluable.hlo -o "$T/uv.hlo"
check "--no-verify: written" -- test -s "$T/uv.hlo"
check "--no-verify: the report says so" -- grep -q 'skipped (--no-verify)' "$T/out"

# an output that is never finite (x / -0): partially verified, written,
# exit 5, and the report says so
cat >"$T/nan.hlo" <<'HLO'
HloModule nan

ENTRY e {
  x = f32[4] parameter(0)
  z = f32[] constant(-0)
  zb = f32[4] broadcast(z), dimensions={}
  a = f32[4] add(x, zb)
  ROOT r = f32[4] divide(a, zb)
}
HLO
expect 5 "partially verified" -- $H search --algo greedy "$T/nan.hlo" -o "$T/nan.out.hlo"
check "partial: written" -- test -s "$T/nan.out.hlo"
check "partial: the report says so" -- grep -q '^verify  *partially verified: output 0' "$T/out"
check "partial: and stderr" -- grep -q 'verify: partially verified' "$T/err"
expect 5 "partial: json" -- $H search --algo greedy --format json "$T/nan.hlo"
check "partial: json is not verified" -- grep -q '"verified": false' "$T/out"
check "partial: json verdict" -- grep -q '"verify": "partially verified"' "$T/out"

echo "search: $pass passed, $fail failed"
[ "$fail" = 0 ]
