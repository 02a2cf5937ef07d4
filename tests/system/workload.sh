#!/bin/sh
# In the Debian system (checks.sh): real programs, each run to a result whose
# digest is printed as "# workload NAME DIGEST"; tests/system/run checks that
# the sealed systems print the same digests as the unsealed control. TAP:
# each program exits 0 with some output.
tmp=$(mktemp -d)
n=0
item() { # item NAME COMMAND...: run it, its stdout to $tmp/NAME
	name=$1
	shift
	n=$((n + 1))
	"$@" >"$tmp/$name" 2>"$tmp/$name.err"
	rc=$?
	if [ $rc -eq 0 ] && [ -s "$tmp/$name" ]; then
		echo "ok $n $name ($(wc -l <"$tmp/$name") lines)"
	else
		echo "not ok $n $name: exit $rc"
		sed -n '1,10s/^/#   /p' "$tmp/$name.err"
	fi
	echo "# workload $name $(sha256sum <"$tmp/$name" | cut -c1-16)"
}

# apt and dpkg, offline: what is installed, what apt would do. The sealed
# images' glibc is the rebuilt one (version suffix +mseal1; to apt "now",
# installed and local): apt's suite and status columns and that suffix are
# left out, and dpkg -l's spacing, which follows the longest version.
item dpkg-l sh -c "dpkg -l | sed -n '/^ii/{s/+mseal[0-9]*//; s/  */ /g; p}'"
item apt-list sh -c "apt list --installed 2>/dev/null | sed -E 's/\\+mseal[0-9]*//; s,/[^ ]* , ,; s/ \\[.*\\]\$//'"
item apt-get-simulate apt-get -s -o Debug::NoLocking=1 install nano
item apt-cache-depends apt-cache depends gcc python3 perl

# python3: the interpreter and C extension modules.
item python3 python3 - <<'PY'
import hashlib, json, sqlite3, zlib, re, decimal, collections
db = sqlite3.connect(":memory:")
db.execute("create table t (k integer, v text)")
db.executemany("insert into t values (?, ?)", [(i, str(i * i)) for i in range(5000)])
rows = db.execute("select count(*), sum(length(v)) from t where k % 7 = 3").fetchall()
words = collections.Counter(re.findall(r"\w+", open("/usr/share/common-licenses/GPL-2").read().lower()))
blob = zlib.compress(json.dumps(sorted(words.most_common(50))).encode(), 9)
print(rows, hashlib.sha256(blob).hexdigest(), len(zlib.decompress(blob)))
print(decimal.Decimal(1) / decimal.Decimal(7))
PY

# perl: XS modules.
# shellcheck disable=SC2016 # perl code
item perl perl -MDigest::MD5=md5_hex -MPOSIX=floor -MList::Util=sum -MStorable=freeze -e '
	my %h; $h{$_ % 97} += $_ for 1 .. 100000;
	print md5_hex(join ",", map { "$_=$h{$_}" } sort { $a <=> $b } keys %h), "\n";
	print floor(sum(values %h) / 3), " ", length(freeze(\%h)) > 0 ? "frozen" : "", "\n";'

# gcc: compile and run a C program (with the packaged linux-libc-dev's
# __NR_mseal: seal a mapping, munmap() must fail with EPERM).
cat >"$tmp/prog.c" <<'C'
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/mman.h>

int main(void)
{
	unsigned long sum = 0;
	int primes = 0;

	for (int i = 2; i < 200000; i++) {
		int p = 1;
		for (int j = 2; j * j <= i; j++)
			if (i % j == 0) { p = 0; break; }
		if (p) { primes++; sum += i; }
	}
	printf("%d primes, sum %lu\n", primes, sum);
#ifdef __NR_mseal
	long page = sysconf(_SC_PAGESIZE);
	void *m = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_SEALABLE, -1, 0);
	if (m == MAP_FAILED || syscall(__NR_mseal, m, page, 0)) {
		printf("mseal: %s\n", strerror(errno));
		return 1;
	}
	/* Refused with EACCES (v6) or EPERM (mainline): the ABIs' errno is
	 * the suites' business; the workload compares sealing's effect. */
	printf("munmap of a sealed mapping: %s\n", !munmap(m, page) ? "done" :
	       errno == EACCES || errno == EPERM ? "refused" : strerror(errno));
#else
	printf("no __NR_mseal in the headers\n");
#endif
	return 0;
}
C
item gcc sh -c "gcc -O2 -Wall -Werror -o '$tmp/prog' '$tmp/prog.c' && '$tmp/prog'"

# tar and gzip: a round trip of /usr/share/doc.
item tar-gzip sh -c "tar -C /usr/share -czf '$tmp/doc.tgz' doc && mkdir '$tmp/x' &&
	tar -C '$tmp/x' -xzf '$tmp/doc.tgz' && diff -r --no-dereference /usr/share/doc '$tmp/x/doc' &&
	gzip -t '$tmp/doc.tgz' && tar -tzf '$tmp/doc.tgz' | LC_ALL=C sort | sha256sum"

# coreutils and friends in a pipeline.
item coreutils sh -c "seq 1 100000 | awk '{ s += \$1 * \$1 } END { print s }' &&
	find /usr/include -name '*.h' | LC_ALL=C sort | xargs cat | sha256sum"
# What ld.so.preload never reaches, sealed at exec by the kernel: a static
# program (busybox-static), a Go program (shfmt), a container's programs.
item busybox-static busybox sh -c "busybox seq 1 20000 | busybox awk '{ s += \$1 % 7 } END { print s }' &&
	busybox find /usr/share/common-licenses -type f | busybox sort | busybox xargs busybox cat | busybox sha256sum"
item go-shfmt sh -c "printf '%s\n' 'if true;then echo   sealed;fi' 'f(){ for i in 1 2 3;do echo \$i;done;}' | shfmt &&
	shfmt -i 4 /usr/bin/zgrep /usr/bin/zdiff | sha256sum"
item container systemd-nspawn -q --register=no --pipe -D /var/lib/machines/debian sh -c \
	"cat /etc/debian_version; test ! -e /etc/ld.so.preload && echo 'no ld.so.preload';
	dpkg-query -W -f='\${Package} \${Version}\n' | sort | sha256sum"
rm -rf "$tmp"
