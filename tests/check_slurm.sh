#!/bin/sh
# make check-slurm [SLURM_PREFIX=DIR]: the unit, Lua and integration
# suites of one build against one Slurm (DIR's headers, libslurm and
# daemons; the system's without SLURM_PREFIX). Prints one line per suite
# and writes them to BUILD/check-slurm.txt for tests/check_versions.sh:
#   <slurm version>|<suite>|<passed>|<failed>|<skipped>
# Exit status 1 when any suite failed.
#   tests/check_slurm.sh BUILD TEST_BIN...
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
BUILD=$1
shift
slurm_path
case $BUILD in /*) ;; *) BUILD=$(pwd)/$BUILD ;; esac
version=$(slurmctld -V 2>/dev/null | awk '{ print $2 }')
[ -n "$version" ] || version=unknown
out=$BUILD/check-slurm.txt
logs=$BUILD/check-slurm
mkdir -p "$logs"
: >"$out.new"
status=0

# record SUITE LOG RC: counts from the suite's own summary lines.
record() {
	case $1 in
	unit)
		p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$2" |
			awk '{ s += $1 } END { print s + 0 }')
		f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$2" |
			awk '{ s += $1 } END { print s + 0 }')
		k=0
		;;
	*)
		# "N passed, N failed[, N skipped]" lines (several for
		# integration: the cases and check_live).
		set -- "$1" "$2" "$3" "$(grep -E '[0-9]+ passed, [0-9]+ failed' "$2")"
		p=$(echo "$4" | sed -n 's/.*\b\([0-9][0-9]*\) passed.*/\1/p' |
			awk '{ s += $1 } END { print s + 0 }')
		f=$(echo "$4" | sed -n 's/.* \([0-9][0-9]*\) failed.*/\1/p' |
			awk '{ s += $1 } END { print s + 0 }')
		k=$(echo "$4" | sed -n 's/.* \([0-9][0-9]*\) skipped.*/\1/p' |
			awk '{ s += $1 } END { print s + 0 }')
		;;
	esac
	# A suite that failed without saying how many: one failure.
	[ "$3" -eq 0 ] || [ "$f" -gt 0 ] || f=1
	[ "$f" -eq 0 ] || status=1
	echo "check-slurm: Slurm $version: $1: $p passed, $f failed, $k skipped" \
		"(log: $2)"
	echo "$version|$1|$p|$f|$k" >>"$out.new"
}

echo "check-slurm: Slurm $version ($(command -v slurmctld || echo 'no slurmctld')), build $BUILD"
sh tests/run.sh "$BUILD" "$@" >"$logs/unit.log" 2>&1
record unit "$logs/unit.log" $?
sh tests/run_lua_tests "$BUILD" >"$logs/lua.log" 2>&1
record lua "$logs/lua.log" $?
(
	sh tests/integration/run "$BUILD"
	r=$?
	AUTOSIZE_BUILD=$BUILD sh tests/check_live.sh || r=1
	exit $r
) >"$logs/integration.log" 2>&1
record integration "$logs/integration.log" $?
grep -E '^(not ok|skip) ' "$logs/integration.log" | head -n 20
mv "$out.new" "$out"
exit $status
