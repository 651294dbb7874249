# shellcheck shell=sh disable=SC2034
# Shared by contrib/testbed/up and contrib/testbed/down (sourced, POSIX sh).
#
# The testbed lives in one private directory: $AUTOSIZE_TESTBED_DIR, else
# /tmp/autosize-testbed-<uid>. Every daemon it starts is recorded by the
# pid file the daemon writes there; a pid counts as ours only while the
# process is alive AND its command line names that directory (so a reused
# pid is never signalled).

tb_msg() { echo "testbed: $*" >&2; }
tb_die() { echo "testbed: error: $*" >&2; exit 1; }

TB_SRC=$(cd "$(dirname "$0")" && pwd)
TB_ROOT=$(cd "$TB_SRC/../.." && pwd)
TB_DIR=${AUTOSIZE_TESTBED_DIR:-/tmp/autosize-testbed-$(id -u)}
case $TB_DIR in
/*) ;;
*) TB_DIR=$(pwd)/$TB_DIR ;;
esac
TB_DIR=${TB_DIR%/}
TB_CONF=$TB_DIR/slurm.conf

# Another Slurm than the system's: SLURM_PREFIX=DIR runs DIR's daemons and
# commands (first in PATH; its plugins from its own PluginDir) and, when
# AUTOSIZE_BUILD is not set, the plugins built for it by
# `make SLURM_PREFIX=DIR` (build/<basename of DIR>).
if [ -n "${SLURM_PREFIX:-}" ]; then
	SLURM_PREFIX=${SLURM_PREFIX%/}
	[ -x "$SLURM_PREFIX/sbin/slurmctld" ] ||
		tb_die "SLURM_PREFIX=$SLURM_PREFIX has no sbin/slurmctld"
	PATH=$SLURM_PREFIX/sbin:$SLURM_PREFIX/bin:$PATH
	export PATH SLURM_PREFIX
	: "${AUTOSIZE_BUILD:=$TB_ROOT/build/$(basename "$SLURM_PREFIX")}"
fi
TB_NODES="n1 n2 n3 n4"
# Marker that says "this directory is a testbed" (down --purge checks it).
TB_MARK=$TB_DIR/.autosize-testbed

# tb_pid FILE: the pid in FILE when that process is alive and ours, else
# nothing (status 1).
tb_pid() {
	[ -r "$1" ] || return 1
	_p=$(tr -dc '0-9' <"$1" 2>/dev/null)
	[ -n "$_p" ] || return 1
	[ -r "/proc/$_p/cmdline" ] || return 1
	tr '\0' ' ' <"/proc/$_p/cmdline" | grep -qF "$TB_DIR/" || return 1
	echo "$_p"
}

tb_munge_pidfile() { echo "$TB_DIR/run/munged.pid"; }
tb_ctld_pidfile() { echo "$TB_DIR/run/slurmctld.pid"; }
tb_slurmd_pidfile() { echo "$TB_DIR/run/slurmd-$1.pid"; }
tb_mysqld_pidfile() { echo "$TB_DIR/run/mysqld.pid"; }
tb_dbd_pidfile() { echo "$TB_DIR/run/slurmdbd.pid"; }

# tb_running: status 0 when any of the testbed's daemons is alive.
tb_running() {
	tb_pid "$(tb_munge_pidfile)" >/dev/null && return 0
	tb_pid "$(tb_ctld_pidfile)" >/dev/null && return 0
	tb_pid "$(tb_mysqld_pidfile)" >/dev/null && return 0
	tb_pid "$(tb_dbd_pidfile)" >/dev/null && return 0
	for _n in $TB_NODES; do
		tb_pid "$(tb_slurmd_pidfile "$_n")" >/dev/null && return 0
	done
	return 1
}

# tb_tail FILE: the end of a log, indented, on stderr.
tb_tail() {
	if [ -r "$1" ]; then
		echo "--- last lines of $1:" >&2
		tail -n 15 "$1" | sed 's/^/    /' >&2
	else
		echo "--- no log at $1" >&2
	fi
}
