#!/bin/sh
# In the Debian system (bench/system boots it with tools/system): real work,
# timed with the guest's clock (-icount: instructions), REPS times each after
# one unmeasured run (caches warm). Prints "W<TAB>NAME<TAB>REP<TAB>NS" lines.
#
# usage: bench-work.sh REPS
#
#   coreutils   a shell script running 2,000 coreutils commands
#   dpkg-l      dpkg -l, 5 times
#   apt-get-s   apt-get -s install of a package not installed, 2 times
#   python3     python3 starting and running a small script, 10 times
#   perl        perl starting and running a small script, 10 times
#   gcc-make    gcc compiling a C project of 5 files with make -j2
reps=${1:-3}
w=$(mktemp -d)
cd "$w" || exit 1
seq 1 400 | sed 's/$/ lorem ipsum dolor sit amet/' >data.txt

cat >coreutils.sh <<'SH'
# 250 rounds of 8 coreutils commands: 2,000 commands.
i=0
while [ $i -lt 250 ]; do
	cat data.txt >/dev/null
	wc -l data.txt >/dev/null
	sort -r data.txt >/dev/null
	head -n 5 data.txt >/dev/null
	tr a-z A-Z <data.txt >/dev/null
	cut -c1-5 data.txt >/dev/null
	md5sum data.txt >/dev/null
	ls -l . >/dev/null
	i=$((i + 1))
done
SH

mkdir -p proj
for n in 1 2 3 4; do
	cat >proj/f$n.c <<C
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "proj.h"
struct item$n { int key; char name[32]; double weight; };
static int cmp$n(const void *a, const void *b)
{
	const struct item$n *x = a, *y = b;
	return x->key - y->key;
}
long f$n(int k)
{
	struct item$n v[64];
	long s = 0;
	for (int i = 0; i < 64; i++) {
		v[i].key = (i * 37 + k) % 101;
		snprintf(v[i].name, sizeof(v[i].name), "item-%d-%d", $n, i);
		v[i].weight = i * 0.5;
	}
	qsort(v, 64, sizeof(v[0]), cmp$n);
	for (int i = 0; i < 64; i++)
		s += v[i].key * (long)strlen(v[i].name);
	return s;
}
C
done
{
	echo '#include <stdio.h>'
	echo '#include "proj.h"'
	echo 'int main(void) { long s = 0;'
	for n in 1 2 3 4; do echo "s += f$n($n);"; done
	printf '%s\n' 'printf("%ld\n", s); return 0; }'
} >proj/main.c
for n in 1 2 3 4; do echo "long f$n(int k);"; done >proj/proj.h
tab=$(printf '\t')
cat >proj/Makefile <<MK
CFLAGS = -O2 -Wall
OBJS = main.o f1.o f2.o f3.o f4.o
proj: \$(OBJS)
${tab}\$(CC) -o \$@ \$(OBJS)
%.o: %.c proj.h
${tab}\$(CC) \$(CFLAGS) -c \$<
clean:
${tab}rm -f proj *.o
MK

# A package the image does not have, for apt-get -s install.
pkg=
for p in gdb vim-nox strace zip; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' &&
		apt-cache show "$p" >/dev/null 2>&1; then
		pkg=$p
		break
	fi
done

work() {
	case $1 in
	coreutils) sh ./coreutils.sh ;;
	dpkg-l) for _ in 1 2 3 4 5; do dpkg -l >/dev/null || return 1; done ;;
	apt-get-s) for _ in 1 2; do apt-get -s -q install "$pkg" >/dev/null || return 1; done ;;
	python3)
		for _ in $(seq 10); do
			python3 -c 'import json, re
d = {str(i): [i, i * i] for i in range(500)}
s = json.dumps(d)
print(len(re.findall(r"\d+", s)))' >/dev/null || return 1
		done ;;
	perl)
		for _ in $(seq 10); do
			perl -e 'my %h; $h{$_} = $_ * 2 for 1 .. 2000;
my $s = join ",", map { "$_=$h{$_}" } sort { $a <=> $b } keys %h;
print length($s), "\n";' >/dev/null || return 1
		done ;;
	gcc-make)
		make -s -C proj clean >/dev/null && make -s -j2 -C proj >/dev/null && ./proj/proj >/dev/null ;;
	esac
}

now() { date +%s%N; }
fail=0
for name in coreutils dpkg-l apt-get-s python3 perl gcc-make; do
	if [ "$name" = apt-get-s ] && [ -z "$pkg" ]; then
		echo "# apt-get-s: no uninstalled package in the lists"
		fail=1
		continue
	fi
	work "$name" || { echo "# $name failed"; fail=1; continue; }
	r=1
	while [ $r -le "$reps" ]; do
		t0=$(now)
		work "$name" || { echo "# $name failed"; fail=1; }
		t1=$(now)
		printf 'W\t%s\t%s\t%s\n' "$name" "$r" $((t1 - t0))
		r=$((r + 1))
	done
done
cd / && rm -rf "$w"
exit $fail
