#!/bin/sh
# Install the Debian 12 packages slurm-autosize builds and tests with.
# Run as root (or with sudo available). Safe to run again.
set -eu
PKGS="build-essential pkg-config libyaml-dev libhwloc-dev libcmocka-dev \
liblua5.1-0-dev lua5.1 \
slurmctld slurmd slurm-client munge libslurm-dev \
slurmdbd mariadb-server \
clang libclang-rt-14-dev \
man-db chromium \
libmunge-dev libmariadb-dev libjson-c-dev rpm"
# chromium: make check-browser renders the HTML pages headless.
# The last line: building newer Slurm releases from source
# (contrib/slurm/build-slurm.sh) and the RPM (contrib/packaging/rpm).
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 || {
		echo "autosize: run contrib/deps.sh as root (or install sudo)" >&2
		exit 1
	}
	SUDO=sudo
fi
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "autosize: installing$missing"
	$SUDO apt-get update -qq
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing \
		>/dev/null
fi
# torchrun's own argument parser checks AUTOSIZE_TORCHRUN_ARGS
# (tests/test_launch.c; skipped without it): Debian's torch, ~50 MB
# without its recommendations.
dpkg-query -W -f='${Status}' python3-torch 2>/dev/null | grep -q "ok installed" || {
	echo "autosize: installing python3-torch (torchrun's parser, for the tests)"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
		--no-install-recommends python3-torch >/dev/null
}
