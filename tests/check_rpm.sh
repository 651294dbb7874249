#!/bin/sh
# make check-rpm: the RPM for RHEL-family clusters, built here with
# rpmbuild (Debian's rpm package) for the Slurm of this build, read back
# with rpm -qp: its name says the Slurm release, its file list, config
# files (noreplace), Requires on that release only, and the %pre
# scriptlet, run against a fake slurmd of another release (refused) and
# of this one (accepted). Without rpmbuild: skipped (a failure under CI).
set -u
cd "$(dirname "$0")/.."
BUILD=${AUTOSIZE_BUILD:-build}
TEST_NAME=rpm
. tests/lib.sh
command -v rpmbuild >/dev/null 2>&1 || skip_all "rpmbuild not installed (apt-get install rpm)"
slurm=$(sh contrib/slurm/release.sh ${SLURM_PREFIX:-}) ||
	skip_all "no Slurm headers (libslurm-dev or SLURM_PREFIX)"
version=$(sed -n 's/^VERSION := //p' Makefile)
rpm=$(make -s --no-print-directory BUILD="$BUILD" \
	${SLURM_PREFIX:+SLURM_PREFIX=$SLURM_PREFIX} rpm 2>"$BUILD/rpm.log") || {
	cat "$BUILD/rpm.log"
	not_ok "make rpm failed"
	summary
	exit 1
}
work=$(mktemp -d /tmp/autosize-rpm-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
q() { rpm -qp "$@" "$rpm" 2>/dev/null; }

[ "$(q --qf '%{NAME} %{VERSION} %{RELEASE}')" = "slurm-autosize $version 1.slurm$slurm" ] &&
	ok || not_ok "name/version/release: $(q --qf '%{NAME} %{VERSION} %{RELEASE}')"
case $rpm in */slurm-autosize-$version-1.slurm$slurm.*.rpm) ok ;;
*) not_ok "the file name $rpm does not name Slurm $slurm" ;; esac

# 1. Every file, where a RHEL Slurm (SchedMD's slurm.spec) has them.
lib=$(rpm --eval '%{_libdir}')/slurm
doc=/usr/share/doc/slurm-autosize-$version
q -l | grep -v '^/usr/lib/\.build-id' >"$work/files"
cat >"$work/want" <<-LIST
	/etc/slurm/autosize
	/etc/slurm/autosize/autosize.yaml
	/etc/slurm/autosize/job_submit.lua
	/etc/slurm/plugstack.conf.d
	/etc/slurm/plugstack.conf.d/autosize.conf
	/usr/bin/autosize
	/usr/lib/systemd/system/autosize-spool-flush.service
	/usr/lib/systemd/system/autosize-spool-flush.timer
	$lib/lua
	$lib/lua/autosize.so
	$lib/spank_autosize.so
	$doc
	$doc/README.md
	$doc/slurm-versions.md
	/usr/share/licenses/slurm-autosize-$version
	/usr/share/licenses/slurm-autosize-$version/COPYING
	/usr/share/man/man1/autosize.1
	/usr/share/man/man5/autosize.yaml.5
	/usr/share/man/man8/spank_autosize.8
	/usr/share/slurm-autosize
	/usr/share/slurm-autosize/autosize.yaml
	/usr/share/slurm-autosize/gpus.yaml
	/usr/share/slurm-autosize/models.yaml
	/usr/share/slurm-autosize/perf.yaml
	/usr/share/slurm-autosize/plan-json.md
LIST
# RHEL's brp-compress gzips man pages; Debian's rpm does not.
sort -o "$work/want" "$work/want"
sed 's/\.gz$//' "$work/files" | sort | diff -u "$work/want" - >"$work/diff" && ok ||
	not_ok "file list differs: $(cat "$work/diff")"

# 2. The site's files are config(noreplace): an edited policy survives
# an upgrade (rpm writes the new one as .rpmnew).
q --qf '[%{FILEFLAGS:fflags}|%{FILENAMES}\n]' | awk -F'|' '$1 ~ /c/ { print $1, $2 }' |
	sort >"$work/conf"
printf '%s\n' "cn /etc/slurm/autosize/autosize.yaml" \
	"cn /etc/slurm/autosize/job_submit.lua" \
	"cn /etc/slurm/plugstack.conf.d/autosize.conf" | diff - "$work/conf" >/dev/null &&
	ok || not_ok "config files: $(tr '\n' ' ' <"$work/conf")"
# Nothing activated: the plugstack line is commented out.
mkdir -p "$work/x"
rpm2archive - <"$rpm" 2>/dev/null | tar -xz -C "$work/x" 2>/dev/null
frag=$work/x/etc/slurm/plugstack.conf.d/autosize.conf
[ -f "$frag" ] && ! grep -q '^[^#]' "$frag" && ok ||
	not_ok "the plugstack line is active or missing: $(cat "$frag" 2>&1)"

# 3. This Slurm release and no other.
next=${slurm%.*}.$(printf '%02d' $((${slurm#*.} + 1)))
q --requires >"$work/requires"
grep -qx "slurm >= $slurm" "$work/requires" && grep -qx "slurm < $next" "$work/requires" &&
	ok || not_ok "Requires lacks slurm >= $slurm, slurm < $next: $(grep slurm "$work/requires" | tr '\n' ' ')"

# 4. %pre refuses a host whose Slurm (from source: no RPM) is another
# release, and accepts this one.
q --qf '%{PREIN}' >"$work/pre"
mkdir -p "$work/bin"
fake() { printf '#!/bin/sh\necho "slurm %s"\n' "$1" >"$work/bin/slurmd"; chmod +x "$work/bin/slurmd"; }
fake 99.11.1
if PATH=$work/bin:$PATH sh "$work/pre" >"$work/pre.out" 2>&1; then
	not_ok "%pre accepted Slurm 99.11.1"
else
	grep -q "built for Slurm $slurm, this host runs Slurm 99.11.1" "$work/pre.out" && ok ||
		not_ok "%pre refused, without saying why: $(cat "$work/pre.out")"
fi
fake "$slurm.7"
PATH=$work/bin:$PATH sh "$work/pre" >"$work/pre.out" 2>&1 && ok ||
	not_ok "%pre refused Slurm $slurm.7: $(cat "$work/pre.out")"

# 5. Removing it switches off the plugin line the site turned on (sbatch
# keeps working without the .so); installing it again switches it on. The
# scriptlets run on a copy of the fragment, not the host's.
frag=$work/autosize.conf
printf '# slurm-autosize\noptional /usr/lib64/slurm/spank_autosize.so policy=/etc/slurm/autosize/autosize.yaml\n' >"$frag"
for s in PREUN POSTIN; do
	q --qf "%{$s}" | sed "s|/etc/slurm/plugstack.conf.d/autosize.conf|$frag|" >"$work/$s"
done
sh "$work/PREUN" 0 && ! grep -q '^optional' "$frag" && ok ||
	not_ok "%preun on removal left the plugin line on: $(cat "$frag")"
sh "$work/POSTIN" 1 && grep -q '^optional .*spank_autosize.so' "$frag" && ok ||
	not_ok "%post did not switch the plugin line on again: $(cat "$frag")"
sh "$work/PREUN" 1 && grep -q '^optional' "$frag" && ok ||
	not_ok "%preun on upgrade switched the plugin line off"
summary
