#!/bin/sh
# parse.sh: golden tests of the text reader. For every tests/parse/NAME.hlo
# (comment lines say what it shows): `hlopt convert --to text` must print
# tests/parse/NAME.want; that text must read back to itself (a fixed
# point); the module written as proto and read back must print the same
# text; and `hlopt run` must either evaluate it or say it cannot (exit 3),
# never fail otherwise. PARSE_UPDATE=1 rewrites the .want files (review
# the diff!).
H=${HLOPT:-./hlopt}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL: $*"; }

for f in tests/parse/*.hlo; do
	name=${f%.hlo}
	if ! "$H" convert "$f" --to text -o "$T/got.hlo" 2>"$T/err"; then
		no "$f: $(head -n 1 "$T/err")"
		continue
	fi
	[ -n "$PARSE_UPDATE" ] && cp "$T/got.hlo" "$name.want"
	if cmp -s "$T/got.hlo" "$name.want"; then ok; else
		no "$f: output differs from $name.want"
		diff -u "$name.want" "$T/got.hlo" | sed 's/^/  | /'
	fi
	"$H" convert "$T/got.hlo" --to text -o "$T/again.hlo" 2>"$T/err"
	cmp -s "$T/got.hlo" "$T/again.hlo" && ok ||
		no "$f: printed text does not read back to itself"
	"$H" convert "$f" -o "$T/m.pb" 2>"$T/err" &&
	"$H" convert "$T/m.pb" --to text -o "$T/back.hlo" 2>>"$T/err"
	cmp -s "$T/got.hlo" "$T/back.hlo" && ok ||
		no "$f: proto round trip differs: $(head -n 1 "$T/err")"
	"$H" run "$f" >/dev/null 2>"$T/err"
	r=$?
	[ $r = 0 ] || [ $r = 3 ] && ok || no "$f: run exit $r"
done
echo "parse: $pass passed, $fail failed"
[ $fail = 0 ]
