#!/bin/sh
# make deb (issue 12): a real Debian package. Its fields, conffiles and
# contents; lintian finds no error when installed; then dpkg installs it
# into a scratch root (dpkg --root: the real system is not touched),
# keeps an edited policy across a reinstall and a removal, and purges it.
#
#   tests/check_deb.sh            make check: the scratch root
#   tests/check_deb.sh --system   CI, as root: dpkg -i into this system,
#                                 the integration tests against the
#                                 INSTALLED files, then dpkg --purge
set -u
cd "$(dirname "$0")/.."
BUILD=${AUTOSIZE_BUILD:-build}
system=0
[ "${1:-}" = --system ] && system=1
TEST_NAME=deb
. tests/lib.sh
finish() {
	summary
	exit $?
}
command -v dpkg-deb >/dev/null 2>&1 || skip_all "dpkg-deb not installed (not Debian?)"
command -v dpkg-shlibdeps >/dev/null 2>&1 || skip_all "dpkg-shlibdeps not installed (apt-get install dpkg-dev)"

deb=$(make -s --no-print-directory BUILD="$BUILD" deb 2>"$BUILD/deb.log") || {
	cat "$BUILD/deb.log"
	not_ok "make deb failed"
	finish
}
[ -f "$deb" ] && ok || {
	not_ok "make deb printed '$deb', not a file"
	finish
}
work=$(mktemp -d /tmp/autosize-deb-test.XXXXXX)
# jobs run as nobody load the plugin through links in here
chmod 0755 "$work"
trap 'rm -rf "$work"' EXIT
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || cc -print-multiarch)
plugins=/usr/lib/$ma/slurm-wlm
version=$(sed -n 's/^VERSION := //p' Makefile)
slurm=$(sh contrib/slurm/release.sh)

# 1. Fields and contents.
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = slurm-autosize ] && ok || not_ok "Package: $(field Package)"
[ "$(field Version)" = "$version+slurm$slurm" ] && ok ||
	not_ok "Version: $(field Version), not $version+slurm$slurm (Makefile + Slurm's headers)"
# One Slurm release: apt refuses it beside another (22.05: 22.06~ and up).
field Breaks | tr ',' '\n' | grep -q "^ *slurm-wlm-basic-plugins (>= ${slurm%.*}\.[0-9]*~)$" && ok ||
	not_ok "Breaks does not refuse other Slurm releases: $(field Breaks)"
case $deb in */slurm-autosize_$version+slurm${slurm}_*.deb) ok ;;
*) not_ok "the file name $deb does not name Slurm $slurm" ;; esac
[ "$(field Architecture)" = "$(dpkg --print-architecture)" ] && ok ||
	not_ok "Architecture: $(field Architecture)"
for dep in libc6 libyaml-0-2 libhwloc15 liblua5.1-0 slurm-wlm-basic-plugins; do
	field Depends | tr ',' '\n' | grep -q "^ *$dep\( \|$\)" && ok ||
		not_ok "Depends lacks $dep: $(field Depends)"
done
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' | grep -v '/$' | sort >"$work/files"
for f in /usr/bin/autosize $plugins/spank_autosize.so $plugins/lua/autosize.so \
	/etc/slurm/autosize/autosize.yaml /etc/slurm/autosize/job_submit.lua \
	/etc/slurm/plugstack.conf.d/autosize.conf \
	/usr/share/slurm-autosize/autosize.yaml /usr/share/slurm-autosize/gpus.yaml \
	/usr/share/man/man1/autosize.1.gz /usr/share/man/man5/autosize.yaml.5.gz \
	/usr/share/man/man8/spank_autosize.8.gz \
	/usr/lib/systemd/system/autosize-spool-flush.service \
	/usr/lib/systemd/system/autosize-spool-flush.timer \
	/usr/share/doc/slurm-autosize/copyright \
	/usr/share/doc/slurm-autosize/changelog.gz; do
	grep -qx "$f" "$work/files" && ok || not_ok "the package lacks $f"
done
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles >"$work/conffiles"
grep '^/etc/' "$work/files" | diff - "$work/conffiles" >/dev/null && ok ||
	not_ok "conffiles ($(tr '\n' ' ' <"$work/conffiles")) are not every file in /etc"
dpkg-deb -x "$deb" "$work/x"
! grep -q '^[^#]' "$work/x/etc/slurm/plugstack.conf.d/autosize.conf" && ok ||
	not_ok "the plugstack fragment is active: $(cat "$work/x/etc/slurm/plugstack.conf.d/autosize.conf")"
grep -q "^	cpath = \"$plugins/lua/?.so\",$" "$work/x/etc/slurm/autosize/job_submit.lua" && ok ||
	not_ok "job_submit.lua's cpath is not the package's Lua folder"
file "$work/x/usr/bin/autosize" 2>/dev/null | grep -q 'not stripped' &&
	not_ok "usr/bin/autosize is not stripped" || ok

# 2. lintian: no errors (warnings are shown).
if command -v lintian >/dev/null 2>&1; then
	lintian --fail-on error --tag-display-limit 0 "$deb" >"$work/lintian" 2>&1
	rc=$?
	grep -E '^[EW]: ' "$work/lintian"
	[ $rc -eq 0 ] && ok || not_ok "lintian found errors (above)"
else
	echo "deb: lintian not installed: not run (apt-get install lintian)"
fi

# 3. dpkg: install, edit the policy, reinstall, remove, purge.
if [ $system = 1 ]; then
	[ "$(id -u)" -eq 0 ] || skip_all "--system needs root"
	r=
	# another apt or dpkg may hold the lock for a while: wait up to 5 min
	dpkg_r() {
		_i=0
		while :; do
			dpkg "$@" >"$work/dpkg.try" 2>&1 && {
				cat "$work/dpkg.try"
				return 0
			}
			grep -q 'lock' "$work/dpkg.try" && [ $_i -lt 60 ] || {
				cat "$work/dpkg.try"
				return 1
			}
			_i=$((_i + 1))
			sleep 5
		done
	}
else
	r=$work/root
	mkdir -p "$r/var/lib/dpkg/info" "$r/var/lib/dpkg/updates"
	: >"$r/var/lib/dpkg/status"
	# the dependencies are in the real system's database, not this one's
	# maintainer scripts run outside a chroot, on $DPKG_ROOT's files
	dpkg_r() {
		dpkg --root="$r" --force-depends --force-not-root \
			--force-script-chrootless "$@"
	}
fi
# Beside another Slurm release (a root whose database holds SchedMD's
# slurm-smd of the next release): dpkg refuses it for its Breaks.
b=$work/other-slurm
mkdir -p "$b/var/lib/dpkg/info" "$b/var/lib/dpkg/updates"
next=$((${slurm%.*} + 1)).05.1-1
printf 'Package: slurm-smd\nStatus: install ok installed\nVersion: %s\nArchitecture: %s\nMaintainer: x\nDescription: x\n' \
	"$next" "$(dpkg --print-architecture)" >"$b/var/lib/dpkg/status"
if dpkg --root="$b" --force-depends --force-not-root -i "$deb" >"$work/breaks.log" 2>&1; then
	not_ok "dpkg installed it beside slurm-smd $next"
else
	grep -q 'breaks slurm-smd' "$work/breaks.log" && ok ||
		not_ok "dpkg refused it beside slurm-smd $next, but not for Breaks: $(tail -n 3 "$work/breaks.log")"
fi
pol=$r/etc/slurm/autosize/autosize.yaml
dpkg_r -i "$deb" >"$work/dpkg.log" 2>&1 && ok || {
	cat "$work/dpkg.log"
	not_ok "dpkg -i failed"
	finish
}
[ -x "$r/usr/bin/autosize" ] && [ -f "$r$plugins/spank_autosize.so" ] && [ -f "$pol" ] &&
	ok || not_ok "dpkg -i: files missing under ${r:-/}"
# Minimal images (Docker's Debian) tell dpkg to leave man pages out.
man_excluded=0
[ $system = 1 ] && grep -qs '^path-exclude=/usr/share/man' /etc/dpkg/dpkg.cfg.d/* &&
	man_excluded=1
if [ $man_excluded = 1 ]; then
	echo "deb: this system's dpkg excludes /usr/share/man: installed man pages not checked"
else
	[ -f "$r/usr/share/man/man5/autosize.yaml.5.gz" ] && ok ||
		not_ok "dpkg -i: no man page under ${r:-/}usr/share/man"
fi
if [ $system = 1 ]; then
	v=$(autosize --version)
	[ "$v" = "autosize $version" ] && ok || not_ok "installed autosize --version: $v"
	out=$(env -u AUTOSIZE_POLICY autosize check-config 2>&1)
	echo "$out" | grep -q "policy /etc/slurm/autosize/autosize.yaml is valid" && ok ||
		not_ok "installed check-config: $out"
	[ $man_excluded = 1 ] || man -w autosize.yaml >/dev/null 2>&1 && ok ||
		not_ok "man autosize.yaml: not found"
	# The integration tests against the installed CLI and plugins: the
	# cases that load each installed file (the SPANK plugin in sbatch,
	# salloc, srun and the steps; the Lua module under job_submit.lua;
	# the CLI as the spool's flusher and the limits helper). The whole
	# suite runs on the build's files in make check and check-slurm;
	# AUTOSIZE_IT_ONLY set by hand picks other cases here, "all" all.
	mkdir -p "$work/installed"
	ln -s /usr/bin/autosize "$work/installed/autosize"
	ln -s "$plugins/spank_autosize.so" "$work/installed/spank_autosize.so"
	ln -s "$plugins/lua/autosize.so" "$work/installed/autosize.so"
	cases=${AUTOSIZE_IT_ONLY:-"plain_job_untouched model_job_rewritten \
sbatch_directives salloc_job srun_job multi_node_step_env \
step_launch_args finetune_launchers_per_node deepspeed_config_private \
no_plugin_client bad_values_refused broken_policy_keeps_ctld \
hostile_values_keep_ctld report_kept_when_cancelled \
report_kept_over_slurmctld_restart real_limits_within_qos"}
	[ "$cases" != all ] || cases=
	if [ -x tests/integration/run ]; then
		AUTOSIZE_IT_ONLY=$cases tests/integration/run "$work/installed" &&
			ok || not_ok "integration tests against the installed package"
	fi
fi
printf '# the site edited this\n' >>"$pol"
cp "$pol" "$work/edited"
dpkg_r --force-confold -i "$deb" >"$work/dpkg.log" 2>&1 && ok || {
	cat "$work/dpkg.log"
	not_ok "dpkg -i again failed"
}
cmp -s "$pol" "$work/edited" && ok || not_ok "reinstalling changed the edited policy"
# The site turns the plugin on; removing the package turns it off (sbatch
# would fail to load a plugin that is gone), installing it again on.
frag=$r/etc/slurm/plugstack.conf.d/autosize.conf
sed -i 's|^#\(optional .*spank_autosize\.so.*\)|\1|' "$frag"
active() { grep -Eq '^[[:space:]]*(optional|required)[[:space:]].*spank_autosize\.so' "$frag"; }
active && ok || not_ok "test setup: no plugin line to turn on in $frag"
dpkg_r -r slurm-autosize >"$work/dpkg.log" 2>&1 && ok || {
	cat "$work/dpkg.log"
	not_ok "dpkg -r failed"
}
! active && ok || not_ok "dpkg -r left the plugin line on: $(grep spank_autosize "$frag")"
if [ $system = 1 ] && command -v sbatch >/dev/null 2>&1; then
	# sbatch with a plugstack that includes the fragment: no plugin error
	printf 'include %s\n' "$frag" >"$work/plugstack.conf"
	printf 'ClusterName=x\nSlurmctldHost=localhost\nPlugStackConfig=%s\n' \
		"$work/plugstack.conf" >"$work/slurm.conf"
	SLURM_CONF=$work/slurm.conf sbatch --help >"$work/sbatch.out" 2>&1
	bad='dlopen|spank_autosize|plugin stack|plugstack'
	! grep -qiE "$bad" "$work/sbatch.out" && ok ||
		not_ok "sbatch after dpkg -r: $(grep -iE "$bad" "$work/sbatch.out" | head -n 2)"
fi
dpkg_r -i "$deb" >"$work/dpkg.log" 2>&1 && ok || {
	cat "$work/dpkg.log"
	not_ok "dpkg -i after dpkg -r failed"
}
active && ok || not_ok "dpkg -i after dpkg -r did not turn the plugin line on again"
dpkg_r -r slurm-autosize >"$work/dpkg.log" 2>&1 && ok || {
	cat "$work/dpkg.log"
	not_ok "dpkg -r failed"
}
[ ! -e "$r/usr/bin/autosize" ] && [ ! -e "$r$plugins/lua/autosize.so" ] && ok ||
	not_ok "dpkg -r left the program or the plugins"
cmp -s "$pol" "$work/edited" && ok || not_ok "dpkg -r did not keep the edited policy (a conffile)"
dpkg_r -P slurm-autosize >"$work/dpkg.log" 2>&1 && ok || {
	cat "$work/dpkg.log"
	not_ok "dpkg -P failed"
}
[ ! -e "$r/etc/slurm/autosize/job_submit.lua" ] &&
	[ ! -e "$r/etc/slurm/plugstack.conf.d/autosize.conf" ] && ok ||
	not_ok "dpkg -P left conffiles"
finish
