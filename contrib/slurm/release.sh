#!/bin/sh
# The Slurm release (major.minor, e.g. 26.05) whose headers a build uses:
# PREFIX/include/slurm/slurm_version.h, or the system's
# (/usr/include/slurm) without PREFIX. Prints nothing and exits 1 when
# there are no headers. Packages name it: the SPANK plugin loads only in
# that release (doc/slurm-versions.md).
#   contrib/slurm/release.sh [PREFIX]
set -eu
h=${1:-/usr}/include/slurm/slurm_version.h
[ -r "$h" ] || exit 1
# SLURM_VERSION_NUMBER 0x160508: 22.05.8 (Debian's header has no
# SLURM_VERSION_STRING).
n=$(sed -n 's/^#define SLURM_VERSION_NUMBER \(0x[0-9a-fA-F]*\).*/\1/p' "$h")
[ -n "$n" ] || exit 1
v=$(printf '%d.%02d' $(((n >> 16) & 255)) $(((n >> 8) & 255)))
[ -n "$v" ] || exit 1
echo "$v"
