#!/bin/sh
# make rpm: the RPM of contrib/packaging/rpm/slurm-autosize.spec, built
# with rpmbuild (Debian's `rpm` package has it) from the work tree, for
# the Slurm whose headers the build uses (SLURM_PREFIX, else the
# system's). Writes BUILD/slurm-autosize-VERSION-1.slurmX.Y.ARCH.rpm and
# prints its path.
#
#   sh contrib/packaging/mkrpm.sh BUILD VERSION [SLURM_PREFIX]
#
# BuildRequires are not checked (--nodeps): on Debian they name RHEL's
# packages; the build itself needs what `make` needs.
set -eu
cd "$(dirname "$0")/../.."
build=${1:?BUILD}
version=${2:?VERSION}
slurm_prefix=${3:-}
command -v rpmbuild >/dev/null 2>&1 || {
	echo "autosize: make rpm needs rpmbuild (apt-get install rpm; dnf install rpm-build)" >&2
	exit 2
}
slurm=$(sh contrib/slurm/release.sh $slurm_prefix) || {
	echo "autosize: make rpm needs Slurm's headers (libslurm-dev, slurm-devel, or SLURM_PREFIX=DIR)" >&2
	exit 2
}
top=$(mktemp -d "${TMPDIR:-/tmp}/autosize-rpm.XXXXXX")
trap 'rm -rf "$top"' EXIT
mkdir -p "$top/SOURCES"
# The source tarball: the work tree without build output or git.
tar -cz --exclude=./build --exclude=./.git --exclude='./build-*' \
	--transform "s|^\\.|slurm-autosize-$version|" \
	-f "$top/SOURCES/slurm-autosize-$version.tar.gz" .
set -- --define "_topdir $top" --define "autosize_version $version" \
	--define "slurm_release $slurm"
[ -z "$slurm_prefix" ] || set -- "$@" --define "slurm_prefix $slurm_prefix"
rpmbuild -bb --nodeps "$@" contrib/packaging/rpm/slurm-autosize.spec \
	>"$top/rpmbuild.log" 2>&1 || {
	tail -n 40 "$top/rpmbuild.log" >&2
	echo "autosize: rpmbuild failed" >&2
	exit 1
}
rpm=$(find "$top/RPMS" -name '*.rpm' | head -n 1)
[ -n "$rpm" ] || { echo "autosize: rpmbuild made no RPM" >&2; exit 1; }
cp "$rpm" "$build/"
echo "$build/$(basename "$rpm")"
