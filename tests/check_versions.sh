#!/bin/sh
# make check-versions: every supported Slurm, one after another: Debian's
# own (the system's, when installed) and each release in VERSIONS, built
# from its source tarball by contrib/slurm/build-slurm.sh (reused from
# its cache when built before). For each: make check-slurm against it.
# Prints the version x suite table (passed/failed/skipped) and writes it
# to build/slurm-versions.md. Exit status 1 when any suite failed or a
# Slurm could not be built.
#   tests/check_versions.sh [VERSION...]   (default: 23.11 24.11 25.11 26.05)
set -u
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
VERSIONS=${*:-23.11 24.11 25.11 26.05}
jobs=${AUTOSIZE_JOBS:-2}
table=build/slurm-versions.md
mkdir -p build
rows=""
status=0

# row LABEL TXT: one table row from a check-slurm.txt (or a failure).
row() {
	if [ -f "$2" ]; then
		awk -F'|' -v label="$1" '
			{ v = $1; c[$2] = $3 " / " $4 (($5 > 0) ? " / " $5 " skipped" : "") }
			END { printf "| %s | %s | %s | %s | %s |\n", label, v,
				c["unit"], c["lua"], c["integration"] }' "$2"
	else
		echo "| $1 | - | not run | not run | not run |"
	fi
}

run_one() { # LABEL [PREFIX]
	_label=$1
	if [ -n "${2:-}" ]; then
		_build=build/$(basename "$2")
		set -- SLURM_PREFIX="$2"
	else
		_build=build
		set --
	fi
	rm -f "$_build/check-slurm.txt"
	echo "== check-versions: $_label"
	"$MAKE" --no-print-directory -j"$jobs" "$@" tests >"build/check-versions-$_label.log" 2>&1 ||
		{ tail -n 20 "build/check-versions-$_label.log"; status=1; }
	"$MAKE" --no-print-directory "$@" check-slurm || status=1
	rows="$rows$(row "$_label" "$_build/check-slurm.txt")
"
}

if command -v slurmctld >/dev/null 2>&1 || [ -x /usr/sbin/slurmctld ]; then
	run_one system
fi
for v in $VERSIONS; do
	if prefix=$(contrib/slurm/build-slurm.sh "$v" | tail -n 1) &&
	   [ -n "$prefix" ]; then
		run_one "$v" "$prefix"
	else
		status=1
		rows="$rows| $v | not built | - | - | - |
"
	fi
done

{
	echo "| Slurm | version | unit passed / failed | Lua passed / failed | integration passed / failed |"
	echo "|---|---|---|---|---|"
	printf '%s' "$rows"
	echo
	echo "Produced by \`make check-versions\` on $(date -u +%Y-%m-%d)" \
		"($(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"))."
} >"$table"
cat "$table"
exit $status
