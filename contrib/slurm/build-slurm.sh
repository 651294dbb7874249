#!/bin/sh
# Build one Slurm release from a SchedMD source tarball into a prefix
# outside the work tree, for `make SLURM_PREFIX=...`, the testbed and
# `make check-slurm`. A prefix that holds a complete build of the same
# tarball is reused as it is.
#
#   contrib/slurm/build-slurm.sh VERSION|TARBALL [PREFIX]
#
# VERSION is 26.05, 26.05.3 or slurm-26-05-3-1; the tarball is looked up
# in $AUTOSIZE_SLURM_TARBALLS (default: ../shared/slurm beside the
# clone). PREFIX defaults to $AUTOSIZE_SLURM_CACHE/slurm-<version>
# ($AUTOSIZE_SLURM_CACHE: /var/cache/slurm-autosize when writable, else
# ~/.cache/slurm-autosize). The prefix is printed as the last line.
# Needs: build-essential, libmunge-dev, libmariadb-dev, libjson-c-dev,
# liblua5.1-0-dev, libhwloc-dev, libyaml-dev (contrib/deps.sh --slurm).
set -eu

usage() {
	echo "usage: $0 VERSION|TARBALL [PREFIX]" >&2
	exit 2
}
[ $# -ge 1 ] && [ $# -le 2 ] || usage

root=$(cd "$(dirname "$0")/../.." && pwd)
tardir=${AUTOSIZE_SLURM_TARBALLS:-$root/../shared/slurm}
arg=$1

# The tarball: a path as given, or the newest matching release tag.
case $arg in
*.tar.*|*.tgz)
	tarball=$arg ;;
*)
	tag=$(printf '%s' "$arg" | sed 's/^slurm-//; s/\./-/g')
	tarball=$(ls "$tardir"/slurm-"$tag"-*.tar.* "$tardir"/slurm-"$tag".tar.* \
		2>/dev/null | sort -V | tail -n 1 || true) ;;
esac
if [ -z "$tarball" ] || [ ! -f "$tarball" ]; then
	want=$(printf '%s' "$arg" | sed 's/^slurm-//; s/\./-/g')
	case $want in *-*-*) ;; *) want=$want-PATCH ;; esac
	echo "autosize: no Slurm source tarball for '$arg'." >&2
	echo "autosize: wanted: $tardir/slurm-$want-1.tar.xz, made from SchedMD's tag with" >&2
	echo "autosize:   git clone https://github.com/SchedMD/slurm && cd slurm &&" >&2
	echo "autosize:   git archive --prefix=slurm-$want-1/ slurm-$want-1 | xz > slurm-$want-1.tar.xz" >&2
	echo "autosize: (or a release tarball from https://download.schedmd.com/slurm/);" >&2
	echo "autosize: put it there or set AUTOSIZE_SLURM_TARBALLS=DIR, or pass its path." >&2
	exit 1
fi
tarball=$(cd "$(dirname "$tarball")" && pwd)/$(basename "$tarball")

# slurm-26-05-3-1.tar.xz -> 26.05.3 ; slurm-26.05.3.tar.bz2 -> 26.05.3
ver=$(basename "$tarball" | sed -E 's/^slurm-//; s/\.(tar\..*|tgz)$//' |
	sed -E 's/^([0-9]+)[-.]([0-9]+)[-.]([0-9]+).*/\1.\2.\3/')
case $ver in
[0-9]*.[0-9]*.[0-9]*) ;;
*) echo "autosize: cannot read a Slurm version from $tarball" >&2; exit 1 ;;
esac

if [ -z "${AUTOSIZE_SLURM_CACHE:-}" ]; then
	if mkdir -p /var/cache/slurm-autosize 2>/dev/null &&
	   [ -w /var/cache/slurm-autosize ]; then
		AUTOSIZE_SLURM_CACHE=/var/cache/slurm-autosize
	else
		AUTOSIZE_SLURM_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/slurm-autosize
	fi
fi
prefix=${2:-$AUTOSIZE_SLURM_CACHE/slurm-$ver}
case $prefix in /*) ;; *) prefix=$(pwd)/$prefix ;; esac
case $prefix/ in
"$root"/*) echo "autosize: PREFIX must be outside the clone ($root)" >&2; exit 2 ;;
esac

# What makes a build: the tarball's contents and the configure line.
# A build for testing and for building against, not for production:
# -O0 without debug symbols (CFLAGS=-O0; about half the compile time of -O2; the
# headers and libslurm's ABI are the same), no static libraries (libtool
# would compile everything twice), no slurmrestd, sview, X11, PAM, PMIx,
# HDF5, UCX, NVML.
sum=$(sha256sum "$tarball" | cut -d' ' -f1)
confargs="--prefix=$prefix --sysconfdir=$prefix/etc --enable-multiple-slurmd
 CFLAGS=-O0 --disable-debug --disable-optimizations --disable-static
 --disable-slurmrestd --disable-sview
 --disable-x11 --disable-pam --without-pmix --without-hdf5 --without-ucx
 --without-rdkafka --without-nvml --without-rsmi --without-oneapi
 --without-freeipmi --without-ofed --without-jwt --without-libcurl
 --with-munge --with-hwloc --with-yaml --with-lua"
stamp="$sum $(printf '%s' "$confargs" | tr '\n' ' ')"
marker=$prefix/.autosize-build

if [ -f "$marker" ] && [ "$(cat "$marker")" = "$stamp" ] &&
   [ -x "$prefix/sbin/slurmctld" ]; then
	echo "autosize: Slurm $ver already built in $prefix" >&2
	echo "$prefix"
	exit 0
fi

mkdir -p "$(dirname "$prefix")"
exec 9>"$prefix.lock"
if command -v flock >/dev/null 2>&1; then
	flock 9
	# Another run may have finished it while we waited.
	if [ -f "$marker" ] && [ "$(cat "$marker")" = "$stamp" ]; then
		echo "$prefix"
		exit 0
	fi
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/autosize-slurm-$ver.XXXXXX")
trap 'rm -rf "$work"' EXIT
log=$work/build.log
echo "autosize: building Slurm $ver from $tarball into $prefix (log: $log)" >&2
start=$(date +%s)
tar -xf "$tarball" -C "$work"
src=$(find "$work" -mindepth 2 -maxdepth 2 -name configure -printf '%h\n' | head -n 1)
[ -n "$src" ] || { echo "autosize: no configure in $tarball" >&2; exit 1; }
jobs=${AUTOSIZE_SLURM_JOBS:-$(nproc 2>/dev/null || echo 2)}
fail() {
	tail -n 40 "$log" >&2
	echo "autosize: Slurm $ver: $1 failed (log above)" >&2
	exit 1
}
# shellcheck disable=SC2086 # confargs is a word list
(cd "$src" && ./configure $confargs) >"$log" 2>&1 || fail configure
make -C "$src" -j"$jobs" >>"$log" 2>&1 || fail make
# Installed into a staging folder and moved in whole: a half-installed
# prefix is never mistaken for a build.
make -C "$src" install DESTDIR="$work/stage" >>"$log" 2>&1 || fail "make install"
for so in job_submit_lua auth_munge accounting_storage_slurmdbd \
	accounting_storage_mysql select_cons_tres gres_gpu; do
	[ -f "$work/stage$prefix/lib/slurm/$so.so" ] ||
		fail "the build of $so.so (is its -dev package installed?)"
done
rm -rf "$prefix"
mv "$work/stage$prefix" "$prefix"
mkdir -p "$prefix/etc"
printf '%s\n' "$stamp" > "$marker"
echo "autosize: Slurm $ver built in $(( $(date +%s) - start )) s" >&2
echo "$prefix"
