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
check "verify says equal" -- grep -q '^equal' "$T/out"
expect 2 "verify --threads 0" -- $H verify --threads 0 $small $small
expect 0 "run --profile --time" -- $H run --profile --time $small
check "--profile prints a table by opcode" -- grep -q '^convolution ' "$T/err"
check "--time prints the time" -- grep -q '^time ' "$T/err"

# optimize --verify on a module the evaluator cannot run (ragged-dot):
# exit 3 and neither the module nor the report written
expect 3 "optimize --verify of an unevaluable module" -- $H optimize --verify \
	--passes algsimp tests/cli/unevaluable.hlo -o "$T/uv.hlo" --report "$T/uv.rep"
check "the reason names the opcode" -- grep -q 'cannot evaluate ragged-dot' "$T/err"
check "a failed --verify writes no module" -- test ! -e "$T/uv.hlo"
check "a failed --verify writes no report" -- test ! -e "$T/uv.rep"

echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
