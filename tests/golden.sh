#!/bin/sh
# golden.sh: the golden pass tests (tests/golden/README). Every
# tests/golden/PASS/NAME.hlo is optimized with `hlopt optimize
# --verify-each --passes PASS` (or the arguments of its `// RUN:` line);
# the printed module must equal NAME.want byte for byte, or for
# `// NOCHANGE` the printed input, with no pass reporting a change. A test
# that changes the module must say so in the report, and input and output
# must evaluate equal (`hlopt verify`) unless `// NOVERIFY: reason`.
# Prints [PASS] or [FAIL] per test (a unified diff of want against got on
# failure) and a closing count. UPDATE=1 rewrites the .want files (review
# the diff!). Arguments select tests: a folder (algsimp), a test
# (algsimp/add_zero_scalar) or a shell pattern (algsimp/add_*).
H=${HLOPT:-./hlopt}
G=tests/golden
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

# the directive NAME of the comment lines atop file: its argument, or
# "yes" when it has none; nothing when absent
directive() {
	awk -v d="$2" '!/^\/\//{exit}
		{ sub(/^\/\/[ \t]*/, "") }
		index($0, d) == 1 { r = substr($0, length(d) + 1)
			if (r != "" && r !~ /^:/) next
			sub(/^:[ \t]*/, "", r); print (r == "" ? "yes" : r); exit }' "$1"
}

selected() {
	[ $# = 0 ] && return 0
	for a; do
		case $f in "$G/$a".hlo | "$G/$a"/*.hlo | $G/$a.hlo) return 0 ;; esac
	done
	return 1
}

# one test: $1 the .hlo file; prints why it failed on stdout
run_test() {
	f=$1 name=${1%.hlo} p=$(basename "$(dirname "$1")")
	want=$name.want
	args=$(directive "$f" RUN)
	[ -n "$args" ] || args="--passes $p"
	nochange=$(directive "$f" NOCHANGE)
	noverify=$(directive "$f" NOVERIFY)
	# shellcheck disable=SC2086
	if ! timeout 60 "$H" optimize --verify-each $args --report "$T/rep" \
	    --format json "$f" -o "$T/got" 2>"$T/err"; then
		echo "hlopt optimize $args failed:"
		sed 's/^/  | /' "$T/err"
		return 1
	fi
	if [ -n "$nochange" ] && [ -f "$want" ]; then
		echo "NOCHANGE, but there is a $want"
		return 1
	fi
	if [ -n "$nochange" ]; then
		"$H" convert "$f" -o "$T/want" 2>"$T/err" || {
			echo "hlopt convert failed:"; sed 's/^/  | /' "$T/err"
			return 1; }
		want=$T/want
		if grep -q '"changed": true' "$T/rep"; then
			echo "NOCHANGE, but a pass reported a change"
			return 1
		fi
	else
		if [ -n "$UPDATE" ]; then
			cmp -s "$T/got" "$want" || cp "$T/got" "$want"
		fi
		if [ ! -f "$want" ]; then
			echo "no $want (UPDATE=1 writes it)"
			return 1
		fi
		if ! grep -q '"changed": true' "$T/rep"; then
			echo "no pass reported a change (use // NOCHANGE?)"
			return 1
		fi
	fi
	if ! cmp -s "$want" "$T/got"; then
		diff -u --label "$want" --label got "$want" "$T/got"
		return 1
	fi
	[ -n "$nochange$noverify" ] && return 0
	timeout 60 "$H" verify --trials 2 --seed 3 "$f" "$T/got" >"$T/out" \
		2>"$T/err"
	r=$?
	# 5: partially verified, an output non-finite in every trial (the
	# special-value tests make NaN on purpose): then NaN must match NaN
	if [ $r = 5 ]; then
		timeout 60 "$H" verify --exact --trials 2 --seed 3 "$f" \
			"$T/got" >"$T/out" 2>"$T/err"
		r=$?
	fi
	case $r in
	0) return 0 ;;
	3) echo "hlopt verify cannot evaluate the module (// NOVERIFY: why?):" ;;
	*) echo "hlopt verify: input and output differ (exit $r):" ;;
	esac
	sed 's/^/  | /' "$T/out" "$T/err"
	return 1
}

for f in $G/*/*.hlo; do
	[ -f "$f" ] || continue
	selected "$@" || continue
	t=${f#$G/}
	t=${t%.hlo}
	if run_test "$f" >"$T/why"; then
		pass=$((pass + 1))
		echo "[PASS] $t"
	else
		fail=$((fail + 1))
		echo "[FAIL] $t"
		sed 's/^/    /' "$T/why"
	fi
done
# a .want without its .hlo is a test lost; any other file (a typo in an
# extension, a module outside a pass folder) is a test never run
for f in $G/*/*.want; do
	[ -f "$f" ] || continue
	[ -f "${f%.want}.hlo" ] && continue
	fail=$((fail + 1))
	echo "[FAIL] ${f#$G/}: no ${f%.want}.hlo"
done
for f in $G/* $G/*/*; do
	case $f in $G/README | $G/*/*.hlo | $G/*/*.want) continue ;; esac
	[ -f "$f" ] || continue
	fail=$((fail + 1))
	echo "[FAIL] ${f#$G/}: not a PASS/NAME.hlo or .want"
done
echo "golden: $pass passed, $fail failed"
[ $fail = 0 ]
