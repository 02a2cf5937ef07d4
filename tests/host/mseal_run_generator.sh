#!/usr/bin/env bash
# mseal-run-generator on scratch roots (issue 26, item 5): for services of
# every shape, the drop-in is written exactly where systemd 252's effective
# SystemCallFilter= is an allow-list without mseal, and nowhere else; and
# systemd 252 itself, asked for each service's filter (systemd --test, as an
# unprivileged user, with the scratch root's unit directories as its search
# path), computes the same filter with the generator's drop-ins as without
# them. Debian 12's libseccomp 2.5.4 cannot name mseal, so a drop-in on an
# allow-list changes nothing there; one on a service without a filter turns
# it into an allow-list of @default (the service would not start), which
# this sees. make system checks the same shapes booted, with libseccomp
# 2.6.0, where the drop-in does add mseal.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
make -s -C "$top/run" OUT="$tmp/b" install DESTDIR="$tmp/inst" >"$tmp/build.log" 2>&1 ||
	{ cat "$tmp/build.log"; exit 1; }
gen=$tmp/inst/lib/systemd/system-generators/mseal-run-generator
lib=/usr/lib/$(gcc -print-multiarch)/libmseal-run.so

n=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
notok() { n=$((n + 1)); echo "not ok $n $*"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $*"; }

# unit ROOT PATH LINES...: a file under ROOT (PATH relative to it).
unit() {
	local r=$1 p=$2
	shift 2
	mkdir -p "$(dirname "$r/$p")"
	printf '%s\n' "$@" >"$r/$p"
}
lib_unit() { # lib_unit ROOT NAME [LINES...]: a unit in /usr/lib, with a start command
	local r=$1 name=$2
	shift 2
	unit "$r" "usr/lib/systemd/system/$name" "[Unit]" "DefaultDependencies=no" \
		"[Service]" "ExecStart=/bin/true" "$@"
}
root_with_sealing() { # root_with_sealing ROOT ENTRY: ld.so.preload names the library
	mkdir -p "$1/etc" "$1/run/systemd" "$1/lib/systemd/system" "$1/usr/local/lib/systemd/system"
	echo "$2" >"$1/etc/ld.so.preload"
}

# The shapes: root A, one service each.
A=$tmp/a
root_with_sealing "$A" "$lib"
F='SystemCallFilter=@system-service'
lib_unit "$A" plain.service
lib_unit "$A" allow.service "$F"
lib_unit "$A" etc-plain.service "$F"
unit "$A" etc/systemd/system/etc-plain.service "[Unit]" "DefaultDependencies=no" \
	"[Service]" "ExecStart=/bin/true"
lib_unit "$A" run-plain.service "$F"
unit "$A" run/systemd/system/run-plain.service "[Unit]" "DefaultDependencies=no" \
	"[Service]" "ExecStart=/bin/true"
lib_unit "$A" reset-before.service "$F"
unit "$A" etc/systemd/system/reset-before.service.d/10-reset.conf "[Service]" "SystemCallFilter="
lib_unit "$A" reset-after.service "$F"
unit "$A" etc/systemd/system/reset-after.service.d/60-reset.conf "[Service]" "SystemCallFilter="
lib_unit "$A" reallow-after.service "$F"
unit "$A" etc/systemd/system/reallow-after.service.d/60-own.conf "[Service]" "SystemCallFilter=" \
	"SystemCallFilter=@system-service @mount"
lib_unit "$A" deny.service "SystemCallFilter=~@mount"
lib_unit "$A" deny-mseal.service "SystemCallFilter=~@mount mseal"
lib_unit "$A" named.service "SystemCallFilter=@system-service mseal"
lib_unit "$A" removed.service "$F"
unit "$A" etc/systemd/system/removed.service.d/20-no-mseal.conf "[Service]" "SystemCallFilter=~mseal"
lib_unit "$A" dropin-allow.service
unit "$A" usr/lib/systemd/system/dropin-allow.service.d/20-filter.conf "[Service]" "$F"
lib_unit "$A" late-allow.service
unit "$A" etc/systemd/system/late-allow.service.d/70-filter.conf "[Service]" "$F"
lib_unit "$A" late-deny.service
unit "$A" etc/systemd/system/late-deny.service.d/70-filter.conf "[Service]" "SystemCallFilter=~@mount"
lib_unit "$A" pfx-one.service
lib_unit "$A" pfx-two.service
unit "$A" usr/lib/systemd/system/pfx-.service.d/10-filter.conf "[Service]" "$F"
unit "$A" etc/systemd/system/pfx-two.service.d/20-reset.conf "[Service]" "SystemCallFilter="
lib_unit "$A" masked.service "$F"
mkdir -p "$A/etc/systemd/system"
ln -s /dev/null "$A/etc/systemd/system/masked.service"
lib_unit "$A" tpl@.service "$F"
unit "$A" etc/systemd/system/tpl@quiet.service.d/10-reset.conf "[Service]" "SystemCallFilter="
lib_unit "$A" tpl2@.service
unit "$A" etc/systemd/system/tpl2@loud.service.d/10-filter.conf "[Service]" "$F"
lib_unit "$A" orig.service "$F"
# (relative links: the same file for the generator, which reads the root
# as /, and for systemd on this host)
ln -s ../../../usr/lib/systemd/system/orig.service "$A/etc/systemd/system/other-name.service"
unit "$A" etc/systemd/system/other-name.service.d/10-reset.conf "[Service]" "SystemCallFilter="
unit "$A" opt/units/linked.service "[Unit]" "DefaultDependencies=no" "[Service]" \
	"ExecStart=/bin/true" "$F"
ln -s ../../../opt/units/linked.service "$A/etc/systemd/system/linked.service"
# shellcheck disable=SC1003 # a backslash at the end of the line, for systemd
lib_unit "$A" continued.service 'SystemCallFilter=@system-service \' '  @mount'
lib_unit "$A" install-section.service "[Install]" "SystemCallFilter=@system-service"
lib_unit "$A" comment.service "# $F" "; $F"
lib_unit "$A" admin-ours.service "$F"
unit "$A" etc/systemd/system/admin-ours.service.d/50-mseal-run.conf "# the administrator's: no mseal"
lib_unit "$A" spaced.service "SystemCallFilter = @system-service"
# The order of drop-in directories: every directory of the search path in
# turn, and in each the unit's names (ord-x.service.d, then ord-.service.d):
# /etc's ord-.service.d/10-f.conf hides /usr/lib's ord-x.service.d/10-f.conf.
lib_unit "$A" ord-x.service
unit "$A" usr/lib/systemd/system/ord-x.service.d/10-f.conf "[Service]" "$F"
unit "$A" etc/systemd/system/ord-.service.d/10-f.conf "[Service]" "# the administrator's: no filter"
# An instance's prefixes keep the instance (ip-@b.service.d for
# ip-a@b.service) and have templates (pt-@.service.d for every pt-a@X).
lib_unit "$A" ip-a@.service "$F"
unit "$A" etc/systemd/system/ip-@b.service.d/10-reset.conf "[Service]" "SystemCallFilter="
lib_unit "$A" pt-a@.service "$F"
unit "$A" etc/systemd/system/pt-@.service.d/10-reset.conf "[Service]" "SystemCallFilter="

# Root B: a type-wide drop-in gives every service an allow-list.
B=$tmp/b-root
# (as mseal-run --system on names it now; A as it did before)
root_with_sealing "$B" "/usr/\$LIB/libmseal-run.so"
unit "$B" etc/systemd/system/service.d/10-filter.conf "[Service]" "$F"
lib_unit "$B" every.service
lib_unit "$B" every-reset.service
unit "$B" usr/lib/systemd/system/every-reset.service.d/20-reset.conf "[Service]" "SystemCallFilter="

# Root C: sealing off (ld.so.preload names another library).
C=$tmp/c
mkdir -p "$C/etc"
echo "/usr/lib/other.so # $lib" >"$C/etc/ld.so.preload"
lib_unit "$C" allow.service "$F"

# Root D: no ld.so.preload, but the kernel seals at exec (mseal_exec=on,
# /proc/sys/vm/mseal_exec read under the root): ld.so seals on its own.
D=$tmp/d
mkdir -p "$D/etc" "$D/proc/sys/vm"
echo on >"$D/proc/sys/vm/mseal_exec"
lib_unit "$D" allow.service "$F"
# Root E: the same with mseal_exec off: nothing to do.
E=$tmp/e
mkdir -p "$E/etc" "$E/proc/sys/vm"
echo off >"$E/proc/sys/vm/mseal_exec"
lib_unit "$E" allow.service "$F"

run_gen() { # run_gen ROOT: the generator's output in ROOT/run/systemd/generator
	rm -rf "$1/run/systemd/generator"
	MSEAL_RUN_ROOT=$1 "$gen" "$1/run/systemd/generator" "$1/run/systemd/generator.early" \
		"$1/run/systemd/generator.late"
}

echo "TAP version 13"
for r in "$A" "$B" "$C"; do
	if ! run_gen "$r" 2>"$tmp/gen.err"; then
		notok "the generator fails on ${r##*/}: $(head -n 3 "$tmp/gen.err")"
	fi
done

# expect ROOT UNIT yes|no|mask: the drop-in, with the line, none, or one
# without the line (hiding the template's).
expect() {
	local f=$1/run/systemd/generator/$2.d/50-mseal-run.conf what
	if [ -f "$f" ] && grep -qx 'SystemCallFilter=mseal' "$f"; then
		what=yes
	elif [ -f "$f" ]; then
		what=mask
	else
		what=no
	fi
	if [ "$what" = "$3" ]; then
		ok "$2: drop-in $3 ($4)"
	else
		notok "$2: drop-in $what, expected $3 ($4)"
	fi
}
expect "$A" plain.service no "no filter"
expect "$A" allow.service yes "an allow-list"
expect "$A" etc-plain.service no "/etc's copy has no filter and wins"
expect "$A" run-plain.service no "/run's copy has no filter and wins"
expect "$A" reset-before.service no "10-reset.conf clears the filter before 50-"
expect "$A" reset-after.service no "60-reset.conf clears the filter after 50-"
expect "$A" reallow-after.service no "60- resets and sets its own list: it wins"
expect "$A" deny.service no "a deny-list"
expect "$A" deny-mseal.service no "a deny-list naming mseal: the administrator's"
expect "$A" named.service no "the allow-list names mseal already"
expect "$A" removed.service no "a drop-in removes mseal: the administrator's"
expect "$A" dropin-allow.service yes "the allow-list comes from a vendor drop-in"
expect "$A" late-allow.service yes "the allow-list comes from 70-, which only adds to ours"
expect "$A" late-deny.service no "70- makes a deny-list: ours would make an allow-list"
expect "$A" pfx-one.service yes "an allow-list from the prefix drop-in pfx-.service.d"
expect "$A" pfx-two.service no "the prefix drop-in's list reset by its own"
expect "$A" masked.service no "masked in /etc"
expect "$A" tpl@.service yes "a template with an allow-list"
expect "$A" tpl@quiet.service mask "an instance that resets its template's filter"
expect "$A" tpl2@.service no "a template without a filter"
expect "$A" tpl2@loud.service yes "an instance with an allow-list of its own"
expect "$A" orig.service no "a drop-in of its alias resets the filter"
expect "$A" linked.service yes "a unit file linked from outside the search path"
expect "$A" continued.service yes "a filter continued over two lines"
expect "$A" install-section.service no "SystemCallFilter= in [Install] is not a filter"
expect "$A" comment.service no "commented out"
expect "$A" admin-ours.service no "the administrator's own 50-mseal-run.conf wins"
expect "$A" spaced.service yes "spaces around '='"
expect "$A" ord-x.service no "/etc's ord-.service.d/10-f.conf hides /usr/lib's ord-x.service.d/10-f.conf"
expect "$A" ip-a@.service yes "a template with an allow-list"
expect "$A" ip-a@b.service mask "an instance reset through its prefix's instance, ip-@b.service.d"
expect "$A" pt-a@.service no "a template reset through its prefix's template, pt-@.service.d"
expect "$B" every.service yes "an allow-list from the type-wide service.d"
expect "$B" every-reset.service no "the type-wide list reset by its own drop-in"
if [ -z "$(ls -A "$C/run/systemd/generator" 2>/dev/null)" ]; then
	ok "sealing off (ld.so.preload names the library only in a comment): nothing written"
else
	notok "sealing off: the generator wrote $(ls "$C/run/systemd/generator")"
fi
for r in D E; do
	d=${!r}
	run_gen "$d" 2>"$tmp/gen.err" || notok "root $r: the generator failed: $(cat "$tmp/gen.err")"
	f=$d/run/systemd/generator/allow.service.d/50-mseal-run.conf
	if [ $r = D ] && grep -qx 'SystemCallFilter=mseal' "$f" 2>/dev/null; then
		ok "mseal_exec=on without ld.so.preload: an allow-list gets mseal (ld.so seals)"
	elif [ $r = E ] && [ -z "$(ls -A "$d/run/systemd/generator" 2>/dev/null)" ]; then
		ok "mseal_exec=off without ld.so.preload: nothing written"
	else
		notok "root $r (mseal_exec=$(cat "$d/proc/sys/vm/mseal_exec")): generator output: $(find "$d/run/systemd/generator" -type f 2>/dev/null | tr "\n" " ")"
	fi
done

# systemd 252 as the judge.
sd=/lib/systemd/systemd
ver=$("$sd" --version 2>/dev/null | sed -n '1s/^systemd \([0-9]*\).*/\1/p' || true)
if [ "$(id -u)" != 0 ] || [ "$ver" != 252 ] || ! command -v setpriv >/dev/null; then
	skip "systemd 252's own filters: needs root (to run it as nobody) and systemd 252 (here: '${ver:-none}')"
	echo "1..$n"
	exit 0
fi
chmod -R a+rX "$tmp"
# filters ROOT with|without UNITS...: "UNIT FILTER" for each unit, as
# systemd dumps it for a target that wants them all (the list sorted; "none"
# without a filter, "not-loaded" if systemd did not load the unit).
filters() {
	local r=$1 how=$2 p='' d
	local -a names
	shift 2
	for d in etc/systemd/system.control run/systemd/system.control run/systemd/transient \
		etc/systemd/system etc/systemd/system.attached run/systemd/system \
		run/systemd/system.attached GEN usr/local/lib/systemd/system lib/systemd/system \
		usr/lib/systemd/system; do
		if [ "$d" = GEN ]; then
			[ "$how" = without ] && continue
			d=run/systemd/generator
		fi
		p+=${p:+:}$r/$d
	done
	unit "$r" usr/lib/systemd/system/judge.target "[Unit]" "DefaultDependencies=no" "Wants=$*"
	chmod -R a+rX "$r"
	SYSTEMD_UNIT_PATH=$p setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$sd" --test --system --unit=judge.target --log-target=console 2>/dev/null |
		awk -v units="$*" '
		BEGIN { n = split(units, u, " "); for (i = 1; i <= n; i++) f[u[i]] = "not-loaded" }
		/^[ \t]*-> Unit / { cur = $3; sub(/:$/, "", cur); if (cur in f) f[cur] = "none"; next }
		/^[ \t]*Unit Load State: / && (cur in f) && $4 != "loaded" { f[cur] = "not-loaded" }
		/^[ \t]*SystemCallFilter: / && (cur in f) {
			kind = $2 ~ /^~/ ? "deny" : "allow"; sub(/^~/, "", $2)
			s = kind; for (i = 2; i <= NF; i++) s = s " " $i
			f[cur] = s
		}
		END { for (i = 1; i <= n; i++) print u[i], f[u[i]] }' |
		while read -r u k rest; do	# the names sorted (systemd prints a hash order)
			read -r -a names <<<"$rest"
			echo "$u $k${rest:+ $(printf '%s\n' "${names[@]}" | sort | xargs)}"
		done
}
judge() { # judge ROOT UNITS...: the same filters with and without the drop-ins
	local r=$1 u a b
	shift
	filters "$r" without "$@" >"$tmp/without"
	filters "$r" with "$@" >"$tmp/with"
	for u in "$@"; do
		a=$(sed -n "s/^$u //p" "$tmp/without")
		b=$(sed -n "s/^$u //p" "$tmp/with")
		if [ "$a" = "$b" ] && [ -n "$a" ] && [ "$a" != not-loaded ]; then
			ok "systemd 252: $u has the same filter with the generator's drop-ins (${a:0:40}...)"
		else
			notok "systemd 252: $u's filter changes with the generator's drop-ins"
			printf '#   without: %s\n#   with:    %s\n' "${a:0:150}" "${b:0:150}"
		fi
	done
}
units=()
for u in plain allow etc-plain run-plain reset-before reset-after reallow-after deny deny-mseal \
	named removed dropin-allow late-allow late-deny pfx-one pfx-two tpl@quiet tpl@other \
	tpl2@loud tpl2@other orig linked continued install-section spaced ord-x ip-a@b ip-a@other \
	pt-a@any; do
	units+=("$u.service")
done
# (other-name.service is an alias: systemd loads it as orig.service)
judge "$A" "${units[@]}"
judge "$B" every.service every-reset.service
# Does the judge see the bug at all? A drop-in on a service without a filter.
mkdir -p "$A/run/systemd/generator/plain.service.d"
printf '[Service]\nSystemCallFilter=mseal\n' >"$A/run/systemd/generator/plain.service.d/50-mseal-run.conf"
if [ "$(filters "$A" without plain.service)" = "plain.service none" ] &&
	[ "$(filters "$A" with plain.service | cut -d' ' -f1-2)" = "plain.service allow" ]; then
	ok "systemd 252 makes an allow-list of SystemCallFilter=mseal alone (what the judge must see)"
else
	notok "systemd 252 does not show the allow-list SystemCallFilter=mseal makes: the judge is blind"
fi
echo "1..$n"
