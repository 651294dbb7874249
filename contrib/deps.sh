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
# Install those of the packages $1 that are missing; the rest of the
# arguments go to apt-get install.
install_missing() {
	pkgs=$1
	shift
	missing=""
	for p in $pkgs; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q "ok installed" || missing="$missing $p"
	done
	[ -n "$missing" ] || return 0
	echo "autosize: installing$missing"
	$SUDO apt-get update -qq
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" \
		$missing >/dev/null
}
install_missing "$PKGS"
# The launchers' own parsers check what the tasks get
# (tests/test_launch_parsers.c with ../shared/launchers; skipped without
# these): Debian's torch for torchrun, accelerate and torchtune (~50 MB
# without its recommendations), OmegaConf for torchtune's config merge,
# and what transformers and accelerate import.
install_missing "python3-torch python3-omegaconf python3-packaging \
python3-psutil python3-tqdm python3-regex python3-filelock python3-yaml \
python3-numpy" --no-install-recommends
# The Prometheus client's text parser reads slurmctld's metrics file in
# the integration tests (tests/integration/metrics_check.py; 200 kB).
install_missing "python3-prometheus-client" --no-install-recommends
