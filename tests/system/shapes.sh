#!/bin/sh
# In the Debian system (checks.sh): services of every shape of
# SystemCallFilter= (issue 26, item 5), installed where systemd looks for
# them, then systemctl daemon-reload (which runs mseal-run-generator again)
# and each started. Every one must start and run; systemctl show tells the
# filter systemd put in force; the service's cat of /proc/self/smaps tells
# whether libmseal-run sealed libc in it.
#
# usage: shapes.sh sealed|unsealed
#   sealed: system-wide sealing on (libseccomp 2.6.0 names mseal): the
#   generator adds mseal to the allow-lists in force and nowhere else, and
#   every service whose filter lets mseal() through is sealed
#   unsealed: the control; the generator does nothing, nothing is sealed
#
# TAP on stdout; exit 1 if anything failed.
expect=${1:-}
case $expect in
sealed | unsealed) ;;
*) echo "usage: shapes.sh sealed|unsealed" >&2; exit 2 ;;
esac
n=0 fails=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n $*"; }

lib=/usr/lib/systemd/system
etc=/etc/systemd/system
run=/run/systemd/system
out=/run/mseal-shapes
mkdir -p "$out" "$run"
F='SystemCallFilter=@system-service'
# Where the administrator keeps mseal out, a refused call fails with EPERM
# (not the default: the process killed), and the library warns.
E='SystemCallErrorNumber=EPERM'

# unit DIR NAME [LINES...]: a oneshot service that writes its cat's smaps
# (in $out/UNIT.smaps: %n, an instance's own name for a template).
unit() {
	d=$1 name=$2
	shift 2
	{
		printf '%s\n' "[Unit]" "Description=mseal-run-generator shape $name" \
			"[Service]" "Type=oneshot" "ExecStart=/usr/bin/cat /proc/self/smaps" \
			"StandardOutput=file:$out/%n.smaps" "StandardError=file:$out/%n.err"
		printf '%s\n' "$@"
	} >"$d/$name"
}
dropin() { # dropin DIR UNIT FILE LINES...
	mkdir -p "$1/$2.d"
	f=$1/$2.d/$3
	shift 3
	printf '%s\n' "[Service]" "$@" >"$f"
}
S=mseal-shape
unit $lib $S-plain.service
unit $lib $S-allow.service "$F"
unit $lib $S-etc-plain.service "$F"
unit $etc $S-etc-plain.service
unit $lib $S-run-plain.service "$F"
unit $run $S-run-plain.service
unit $lib $S-reset-before.service "$F"
dropin $etc $S-reset-before.service 10-reset.conf "SystemCallFilter="
unit $lib $S-reset-after.service "$F"
dropin $etc $S-reset-after.service 60-reset.conf "SystemCallFilter="
unit $lib $S-reallow-after.service "$F"
dropin $etc $S-reallow-after.service 60-own.conf "SystemCallFilter=" "$F" "$E"
unit $lib $S-deny.service "SystemCallFilter=~@mount"
unit $lib $S-deny-mseal.service "SystemCallFilter=~@mount mseal" "$E"
unit $lib $S-named.service "SystemCallFilter=@system-service mseal"
unit $lib $S-removed.service "$F"
dropin $etc $S-removed.service 20-no-mseal.conf "SystemCallFilter=~mseal" "$E"
unit $lib $S-dropin-allow.service
dropin $lib $S-dropin-allow.service 20-filter.conf "$F"
unit $lib $S-late-allow.service
dropin $etc $S-late-allow.service 70-filter.conf "$F"
unit $lib $S-late-deny.service
dropin $etc $S-late-deny.service 70-filter.conf "SystemCallFilter=~@mount"
unit $lib $S-pfx-one.service
dropin $lib $S-pfx-.service 10-filter.conf "$F"
unit $lib "$S-tpl@.service" "$F"
dropin $etc "$S-tpl@quiet.service" 10-reset.conf "SystemCallFilter="
# The search path taken directory by directory: /etc's $S-ord-.service.d
# hides /usr/lib's $S-ord-x.service.d of the same file name.
unit $lib $S-ord-x.service
dropin $lib $S-ord-x.service 10-f.conf "$F"
dropin $etc $S-ord-.service 10-f.conf "# the administrator's: no filter"
# An instance's prefixes keep the instance, and have templates.
unit $lib "$S-ip-a@.service" "$F"
dropin $etc "$S-ip-@b.service" 10-reset.conf "SystemCallFilter="
unit $lib "$S-pt-a@.service" "$F"
dropin $etc "$S-pt-@.service" 10-reset.conf "SystemCallFilter="
systemctl daemon-reload

# shapes: each line of stdin a shape: its name, the filter systemd must put
# in force (none, allow, deny; "+mseal": with mseal in the allow-list, where
# the generator added it; "=mseal": the unit's own list names mseal, sealing
# on or off), whether libc is sealed in the service with
# sealing on, and why.
shapes() {
	while read -r name filter seal why; do
		u=$S-$name.service
		rm -f "$out/$u.smaps" "$out/$u.err"
		if systemctl start "$u" 2>"$out/start.err" && [ "$(systemctl show -P Result "$u")" = success ]; then
			ok "$u starts and runs ($why)"
		else
			notok "$u does not start or fails ($why): $(systemctl show -P Result "$u")"
			sed 's/^/#   /' "$out/start.err"
			journalctl -b -u "$u" --no-pager 2>/dev/null | tail -n 5 | sed 's/^/#   /'
		fi
		f=$(systemctl show -P SystemCallFilter "$u")
		# No filter: systemctl prints an empty deny-list, "~".
		case $f in
		'' | '~') kind=none ;;
		'~'*) kind=deny ;;
		*) kind=allow ;;
		esac
		case " $f " in
		*' mseal '*) [ $kind != allow ] || kind=allow+mseal ;;
		esac
		case $filter in
		*=mseal) want=${filter%=mseal}+mseal ;;
		*) want=$filter && { [ "$expect" = sealed ] || want=${want%+mseal}; } ;;
		esac
		if [ "$kind" = "$want" ]; then
			ok "$u: systemd's filter: $kind"
		else
			notok "$u: systemd's filter: $kind, expected $want"
		fi
		[ "$expect" = sealed ] || seal=no
		sealed=$(awk '/^[0-9a-f]+-[0-9a-f]+ / { p = $6 } /^VmFlags:/ && p ~ /\/libc\.so\.6$/ { n++; if ($0 ~ / sl( |$)/) s++ }
			END { r = n > 0 && s == n ? "yes" : n > 0 && s == 0 ? "no" : "some"; print r }' "$out/$u.smaps" 2>/dev/null)
		if [ "$sealed" = "$seal" ]; then
			ok "$u: libc sealed: $seal"
		else
			notok "$u: libc sealed: ${sealed:-no smaps}, expected $seal"
			sed 's/^/#   /' "$out/$u.err" 2>/dev/null | head -n 3
		fi
	done
}
shapes <<'EOF'
plain none yes no filter
allow allow+mseal yes an allow-list: the generator adds mseal
etc-plain none yes /etc's copy without a filter wins
run-plain none yes /run's copy without a filter wins
reset-before none yes a drop-in before 50- clears the filter
reset-after none yes a drop-in after 50- clears the filter
reallow-after allow no a drop-in after 50- sets its own list: it wins, mseal not in it
deny deny yes a deny-list
deny-mseal deny no a deny-list naming mseal: the administrator's
named allow=mseal yes the allow-list names mseal already
removed allow no a drop-in removes mseal: the administrator's
dropin-allow allow+mseal yes an allow-list from a drop-in
late-allow allow+mseal yes an allow-list from a drop-in after 50-
late-deny deny yes a deny-list from a drop-in after 50-
pfx-one allow+mseal yes an allow-list from the prefix drop-in mseal-shape-pfx-.service.d
tpl@other allow+mseal yes a template's allow-list
tpl@quiet none yes an instance that clears its template's filter
ord-x none yes /etc's prefix drop-in hides /usr/lib's of the same name
ip-a@b none yes an instance's prefix instance mseal-shape-ip-@b.service.d clears the filter
ip-a@c allow+mseal yes another instance of that template keeps its allow-list
pt-a@any none yes a prefix template mseal-shape-pt-@.service.d clears the filter
EOF

# A type-wide drop-in (service.d/) gives every service an allow-list: the
# generator adds mseal to every service's (systemd's own included), and a
# service that resets the list has none. In /run, and removed at once: it
# applies to every service started while it is there.
unit $lib $S-every.service
unit $lib $S-every-reset.service
dropin $etc $S-every-reset.service 20-reset.conf "SystemCallFilter="
mkdir -p $run/service.d
printf '%s\n' "[Service]" "$F" >$run/service.d/10-mseal-shape.conf
systemctl daemon-reload
shapes <<'EOF'
every allow+mseal yes an allow-list from the type-wide service.d
every-reset none yes the type-wide allow-list reset by the service's own drop-in
EOF
rm -f $run/service.d/10-mseal-shape.conf
systemctl daemon-reload
echo "1..$n"
[ $fails = 0 ]
