#!/bin/sh
# bad.sh: the bad-input suite. every file in tests/bad/ must be refused
# with exit status 1 and the first line of tests/bad/NAME.err, by both
# stats and convert, and convert must leave no output behind. Then
# unusable paths: a directory as input, unwritable outputs, a full disk.
# BAD_UPDATE=1 rewrites the .err files (review the diff!).
H=${HLOPT:-./hlopt}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL: $*"; }

for f in tests/bad/*; do
	case $f in *.err) continue ;; esac
	name=${f%.*}
	timeout 20 "$H" stats "$f" >/dev/null 2>"$T/err"
	r=$?
	[ $r = 1 ] && ok || no "$f: stats exit $r, want 1"
	head -1 "$T/err" >"$T/first"
	if [ -n "$BAD_UPDATE" ]; then
		cp "$T/first" "$name.err"
	fi
	if cmp -s "$T/first" "$name.err"; then ok; else
		no "$f: message differs"; diff "$name.err" "$T/first" | sed 's/^/  | /'
	fi
	timeout 20 "$H" convert "$f" -o "$T/out.hlo" >/dev/null 2>&1
	r=$?
	[ $r = 1 ] && ok || no "$f: convert exit $r, want 1"
	[ ! -e "$T/out.hlo" ] && ok || no "$f: convert left an output"
done

good=data/xla-tests/tests/isolated_convolution.hlo
"$H" stats tests >/dev/null 2>"$T/err"; r=$?
[ $r = 1 ] && grep -q 'is a directory' "$T/err" && ok || no "directory input: exit $r"
"$H" convert $good -o "$T/missing/dir/out.hlo" 2>"$T/err"; r=$?
[ $r = 1 ] && grep -q 'out.hlo' "$T/err" && ok || no "output in a missing folder: exit $r"
: >"$T/file"
"$H" convert $good -o "$T/file/out.hlo" 2>"$T/err"; r=$?
[ $r = 1 ] && ok || no "output under a plain file: exit $r"
"$H" convert $good -o "$T" 2>"$T/err"; r=$?
[ $r = 1 ] && ok || no "output is a directory: exit $r"
if [ -w /dev/full ]; then
	"$H" convert $good -o /dev/full 2>"$T/err"; r=$?
	[ $r = 1 ] && grep -q 'No space left' "$T/err" && ok || no "full disk (/dev/full): exit $r"
	"$H" stats $good >/dev/full 2>"$T/err"; r=$?
	[ $r = 1 ] && ok || no "stats to a full stdout: exit $r"
fi
# a small full file system, where one can be had
if [ "$(id -u)" = 0 ] && mkdir -p "$T/tiny" && mount -t tmpfs -o size=16k tmpfs "$T/tiny" 2>/dev/null; then
	"$H" convert data/xla-benchmarks/tools/data/benchmarking/mobilenet_v2.hlo -o "$T/tiny/out.hlo" 2>"$T/err"; r=$?
	[ $r = 1 ] && ok || no "tmpfs full: exit $r"
	[ -z "$(ls "$T/tiny")" ] && ok || no "tmpfs full: files left: $(ls "$T/tiny")"
	umount "$T/tiny"
fi
ls "$T" | grep -q '\.tmp\.' && no "temporary files left" || ok
echo "bad inputs: $pass passed, $fail failed"
[ $fail = 0 ]
