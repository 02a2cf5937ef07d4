#!/usr/bin/env bash
# The user-space side: man/mseal.2 renders without a warning, its example
# compiles, and include/mseal.h stands alone in C and C++.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
page=$top/man/mseal.2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=0
result() { # result DESCRIPTION COMMAND...: ok if COMMAND succeeds and prints nothing
	n=$((n + 1))
	local out rc=0
	out=$("${@:2}" 2>&1) || rc=$?
	if [ $rc -eq 0 ] && [ -z "$out" ]; then
		echo "ok $n $1"
	else
		echo "not ok $n $1"
		printf '%s\n' "$out" | head -n 5 | sed 's/^/# /'
	fi
}

# The example program: the .EX block after ".SS Program source".
example() {
	awk '/^\.SS Program source/ { on = 1 } on && /^\.EE/ { exit } on && f { print } on && /^\.EX/ { f = 1 }' "$page" |
		sed -e 's/\\e/\\/g' -e 's/\\-/-/g' -e "s/\\\\(aq/'/g" -e 's/\\(dq/"/g' -e 's/\\&//g' >"$tmp/example.c"
	[ -s "$tmp/example.c" ] || { echo "no example in $page"; return 1; }
	gcc -Wall -Wextra -Werror -I"$top/include" -o "$tmp/example" "$tmp/example.c"
}

echo "TAP version 13"
echo "1..6"
result "groff -man -ww renders mseal.2 without a warning" \
	sh -c "groff -man -ww -Tutf8 '$page' >/dev/null"
result "man --warnings renders mseal.2 without a warning" \
	sh -c "MANWIDTH=80 man --warnings -l '$page' >/dev/null"
result "the example in mseal.2 compiles warning-free" example
for std in c99 c11; do
	result "mseal.h compiles alone as $std with -pedantic" \
		sh -c "echo '#include <mseal.h>' | gcc -std=$std -pedantic -Wall -Wextra -Werror -I'$top/include' -fsyntax-only -x c -"
done
result "mseal.h compiles alone as C++" \
	sh -c "echo '#include <mseal.h>' | g++ -Wall -Wextra -Werror -I'$top/include' -fsyntax-only -x c++ -"
