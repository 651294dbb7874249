#!/bin/sh
# make install / make uninstall: every file where Slurm and the
# admin look for it; the Makefile's folders reach job_submit.lua, the
# plugstack line, the man pages and the CLI's default policy; a second
# install keeps an edited policy and says so; uninstall removes what
# install put and nothing the admin edited. The man pages render without
# warnings and document every policy key and every `autosize plan` option.
set -u
cd "$(dirname "$0")/.."
BUILD=${AUTOSIZE_BUILD:-build}
stage=$(mktemp -d /tmp/autosize-install.XXXXXX)
restore=0
cleanup() {
	rm -rf "$stage"
	# an install with other folders rebuilt the CLI for them: back to
	# the defaults, so the build folder is what `make` makes
	if [ $restore = 1 ]; then
		make -s BUILD="$BUILD" all >/dev/null 2>&1 || true
	fi
}
trap cleanup EXIT
TEST_NAME=install
. tests/lib.sh
check() {
	if [ -e "$1" ]; then ok; else not_ok "make install: ${1#"$stage"/*/} missing"; fi
}
minstall() {
	make -s BUILD="$BUILD" "$@"
}
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null ||
	cc -print-multiarch 2>/dev/null || echo "$(uname -m)-linux-gnu")
plugins=/usr/lib/$ma/slurm-wlm
version=$(sed -n 's/^VERSION := //p' Makefile)

# 1. Debian's folders.
d=$stage/a
out=$(minstall install DESTDIR="$d" prefix=/usr sysconfdir=/etc/slurm 2>&1) || {
	echo "$out"
	echo "not ok - make install failed"
	echo "install: 0 passed, 1 failed"
	exit 1
}
for f in /usr/bin/autosize /etc/slurm/autosize/autosize.yaml \
	/etc/slurm/autosize/job_submit.lua \
	/etc/slurm/plugstack.conf.d/autosize.conf \
	/usr/share/slurm-autosize/autosize.yaml \
	/usr/share/slurm-autosize/gpus.yaml \
	/usr/share/slurm-autosize/models.yaml \
	/usr/share/slurm-autosize/plan-json.md \
	$plugins/spank_autosize.so $plugins/lua/autosize.so \
	/usr/share/man/man1/autosize.1 /usr/share/man/man5/autosize.yaml.5 \
	/usr/share/man/man8/spank_autosize.8 \
	/usr/lib/systemd/system/autosize-spool-flush.service \
	/usr/lib/systemd/system/autosize-spool-flush.timer; do
	check "$d$f"
done
# the spool's flush unit runs the installed CLI on the spool
grep -qx 'ExecStart=/usr/bin/autosize spool --flush --max-time 60' \
	"$d/usr/lib/systemd/system/autosize-spool-flush.service" &&
	grep -qx 'ConditionDirectoryNotEmpty=/var/spool/slurm-autosize' \
		"$d/usr/lib/systemd/system/autosize-spool-flush.service" && ok ||
	not_ok "autosize-spool-flush.service: $(grep -E '^(ExecStart|Condition)' "$d/usr/lib/systemd/system/autosize-spool-flush.service")"
# What install says names the files it wrote: under DESTDIR.
echo "$out" | grep -q "^install: wrote $d/etc/slurm/autosize/autosize.yaml (/etc/slurm/autosize/autosize.yaml once installed)$" && ok ||
	not_ok "make install DESTDIR: the message does not name the staged file: $out"
extra=$(cd "$d" && ls -A | grep -v -x -e usr -e etc)
[ -z "$extra" ] && ok || not_ok "unexpected install paths: $extra"
frag=$d/etc/slurm/plugstack.conf.d/autosize.conf
# Not activated behind the admin's back: the line is commented out.
if grep -q "^#optional $plugins/spank_autosize.so policy=/etc/slurm/autosize/autosize.yaml$" "$frag" &&
	! grep -q '^[^#]' "$frag"; then
	ok
else
	not_ok "plugstack fragment: $(cat "$frag")"
fi
lua=$d/etc/slurm/autosize/job_submit.lua
grep -q "^	cpath = \"$plugins/lua/?.so\",$" "$lua" && ok ||
	not_ok "job_submit.lua cpath: $(grep 'cpath = ' "$lua")"
cmp -s "$d/etc/slurm/autosize/autosize.yaml" "$d/usr/share/slurm-autosize/autosize.yaml" &&
	ok || not_ok "the installed policy is not the shipped example"
v=$("$d/usr/bin/autosize" --version)
[ "$v" = "autosize $version" ] && ok || not_ok "--version: '$v', Makefile VERSION $version"
if command -v lua5.1 >/dev/null 2>&1; then
	v=$(lua5.1 -e "package.cpath='$d$plugins/lua/?.so'; io.write(require('autosize').version)" 2>&1)
	[ "$v" = "$version" ] && ok || not_ok "Lua module version: '$v', Makefile VERSION $version"
else
	echo "install: lua5.1 not installed: Lua module version not checked"
fi

# 2. A second install keeps the admin's policy, and says so.
pol=$d/etc/slurm/autosize/autosize.yaml
printf '# edited by the admin\n' >>"$pol"
cp "$pol" "$stage/edited"
out=$(minstall install DESTDIR="$d" prefix=/usr sysconfdir=/etc/slurm 2>&1)
cmp -s "$pol" "$stage/edited" && ok || not_ok "second make install changed the edited policy"
echo "$out" | grep -q "kept your $d/etc/slurm/autosize/autosize.yaml" && ok ||
	not_ok "second make install did not say it kept the policy: $out"

# 3. Uninstall: everything install put, but the edited policy.
out=$(minstall uninstall DESTDIR="$d" prefix=/usr sysconfdir=/etc/slurm 2>&1)
left=$(cd "$d" && find . -type f | sort)
[ "$left" = "./etc/slurm/autosize/autosize.yaml" ] && ok ||
	not_ok "after make uninstall: $left"
echo "$out" | grep -q "kept your edited $d/etc/slurm/autosize/autosize.yaml" && ok ||
	not_ok "make uninstall did not say it kept the policy: $out"
[ ! -e "$d/usr/share/slurm-autosize" ] && ok || not_ok "uninstall left $d/usr/share/slurm-autosize"

# 4. Other folders reach the code; libdir= is the old name of slurmlibdir.
restore=1
d=$stage/b
minstall install DESTDIR="$d" prefix=/opt/as sysconfdir=/opt/as/etc \
	libdir=/opt/as/slurm >/dev/null 2>&1 || not_ok "make install with other folders failed"
check "$d/opt/as/slurm/spank_autosize.so"
check "$d/opt/as/slurm/lua/autosize.so"
check "$d/opt/as/share/man/man1/autosize.1"
grep -qx 'ExecStart=/opt/as/bin/autosize spool --flush --max-time 60' \
	"$d/opt/as/lib/systemd/system/autosize-spool-flush.service" && ok ||
	not_ok "the flush unit under prefix=/opt/as: $(ls "$d/opt/as/lib/systemd/system" 2>&1)"
lua=$d/opt/as/etc/autosize/job_submit.lua
grep -q '^	cpath = "/opt/as/slurm/lua/?.so",$' "$lua" &&
	grep -q '^	policy = "/opt/as/etc/autosize/autosize.yaml",$' "$lua" && ok ||
	not_ok "job_submit.lua settings: $(grep -E '^	(cpath|policy) = ' "$lua")"
grep -q "^#optional /opt/as/slurm/spank_autosize.so policy=/opt/as/etc/autosize/autosize.yaml$" \
	"$d/opt/as/etc/plugstack.conf.d/autosize.conf" && ok ||
	not_ok "plugstack fragment: $(cat "$d/opt/as/etc/plugstack.conf.d/autosize.conf")"
left=$(grep -l '@[a-z_]*@' "$d"/opt/as/share/man/man*/* 2>/dev/null)
[ -z "$left" ] && ok || not_ok "unsubstituted @name@ in $left"
grep -q '/opt/as/etc/autosize/autosize.yaml' "$d/opt/as/share/man/man1/autosize.1" && ok ||
	not_ok "autosize(1) does not name the installed policy"
out=$(env -u AUTOSIZE_POLICY "$d/opt/as/bin/autosize" check-config 2>&1)
echo "$out" | grep -q "/opt/as/etc/autosize/autosize.yaml" && ok ||
	not_ok "the CLI's default policy is not sysconfdir's: $out"

# 5. Man pages: no warnings at 80 columns; every policy and catalog key,
# every command and option documented.
render() {
	if command -v man >/dev/null 2>&1; then
		MANWIDTH=80 man --warnings -l "$1" 2>&1 >/dev/null
	elif command -v groff >/dev/null 2>&1; then
		groff -ww -man -Tutf8 -z "$1" 2>&1
	else
		echo "SKIP"
	fi
}
for m in man/*.in; do
	w=$(render "$m")
	case $w in
	SKIP) echo "install: neither man nor groff: $m not rendered (apt-get install man-db)" ;;
	'') ok ;;
	*) not_ok "$m renders with warnings: $w" ;;
	esac
done
# The key lists of core/policy.c and core/catalog.c, "..." up to NULL.
keys() {
	sed -n "/^static const char \*const $2\[\] = {/,/NULL/p" "$1" |
		grep -o '"[a-z_0-9]*"' | tr -d '"'
}
n=0
for k in $(keys core/policy.c pol_top_keys) $(keys core/policy.c pol_default_keys) \
	$(keys core/policy.c pol_part_keys) $(keys core/catalog.c cat_gpu_keys) \
	$(keys core/price.c price_keys) $(keys core/price.c price_tier_keys) \
	$(keys core/checkpoint.c ckpt_keys) $(keys core/policy_rules.c rule_keys); do
	n=$((n + 1))
	grep -q "\\\\fB$k\\\\fR" man/autosize.yaml.5.in && ok ||
		not_ok "policy key '$k' is not in man/autosize.yaml.5.in"
done
[ $n -gt 30 ] && ok || not_ok "only $n policy and catalog keys found in core/*.c"
cli=$BUILD/autosize
opts=$("$cli" plan --help | grep -o '^ *\*\{0,1\}--[a-z0-9-]*' | tr -d ' *' | sort -u)
[ "$(echo "$opts" | wc -l)" -gt 30 ] && ok || not_ok "autosize plan --help lists few options: $opts"
for o in $opts; do
	esc=$(echo "$o" | sed 's/-/\\\\-/g')
	grep -q "\\\\fB$esc\\\\fR" man/autosize.1.in && ok ||
		not_ok "autosize(1) lacks $o (autosize plan --help)"
done
for o in $("$cli" plan --help | grep -o '^ *\*--[a-z0-9-]*' | tr -d ' *'); do
	esc=$(echo "$o" | sed 's/-/\\\\-/g')
	grep -q "\\\\fB$esc\\\\fR" man/spank_autosize.8.in && ok ||
		not_ok "spank_autosize(8) lacks the sbatch option $o"
done
for c in plan check-config gpus presets inventory --live --version; do
	esc=$(echo "$c" | sed 's/-/\\\\-/g')
	"$cli" --help | grep -q -- "$c" && grep -q "\\\\fB$esc\\\\fR" man/autosize.1.in && ok ||
		not_ok "command $c: not in autosize --help or in autosize(1)"
done

summary
