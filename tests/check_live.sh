#!/bin/sh
# autosize check-config --live and autosize inventory (issue 12) against a
# real slurmctld: the local testbed (contrib/testbed/up) in a fresh
# folder. The testbed's policy agrees with it; a policy past Slurm's
# MaxTime, MaxNodes or GPUs per node, or naming a partition Slurm lacks,
# is an error naming the fix; inventory's policy is accepted. Without
# root or Slurm: skipped (a failure under CI).
set -u
cd "$(dirname "$0")/.."
BUILD=${AUTOSIZE_BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$(pwd)/$BUILD ;; esac
CLI=$BUILD/autosize
TEST_NAME=live
. tests/lib.sh
[ "$(id -u)" -eq 0 ] || skip_all "not root (the testbed runs slurmd as root)"
slurm_path
for c in munged slurmctld slurmd scontrol; do
	command -v "$c" >/dev/null 2>&1 || skip_all "$c not found (sh contrib/deps.sh)"
done
awk '$3 == "cgroup" || $3 == "cgroup2" { f = 1 } END { exit !f }' /proc/mounts ||
	skip_all "no cgroup filesystem mounted (slurmd needs one)"
[ -x "$CLI" ] || skip_all "$CLI not built (make)"

work=$(mktemp -d /tmp/autosize-live.XXXXXX)
chmod 0755 "$work"   # munged wants its socket folder searchable
TB=$work/tb
# A cluster whose slurmctld is not there (and libslurm gives up at once).
printf 'ClusterName=none\nSlurmctldHost=localhost(127.0.0.1)\nSlurmctldPort=9\nTCPTimeout=1\nMessageTimeout=1\n' \
	>"$work/none.conf"
if SLURM_CONF=$work/none.conf "$CLI" check-config --live none 2>&1 |
	grep -q 'built without libslurm'; then
	rm -rf "$work"
	skip_all "$CLI was built without libslurm (apt-get install libslurm-dev)"
fi
cleanup() {
	AUTOSIZE_TESTBED_DIR=$TB contrib/testbed/down --purge >/dev/null 2>&1 || true
	[ -f "$TB/run/slurmctld.pid" ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# No slurmctld: one line saying so, exit 2.
out=$(SLURM_CONF=$work/none.conf timeout 60 "$CLI" check-config --live \
	contrib/testbed/autosize.yaml 2>&1 >/dev/null)
rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "^autosize: --live: cannot read the cluster from slurmctld" &&
	ok || not_ok "no slurmctld: exit $rc, '$out'"

up=$(AUTOSIZE_TESTBED_DIR=$TB AUTOSIZE_BUILD=$BUILD contrib/testbed/up 2>"$work/up.err") || {
	cat "$work/up.err"
	not_ok "contrib/testbed/up failed"
	summary
	exit 1
}
eval "$up"

# live CASE POLICY STATUS NEEDLE...: check-config --live exits STATUS
# and prints every NEEDLE.
live() {
	name=$1 file=$2 want=$3
	shift 3
	out=$("$CLI" check-config --live "$file" 2>&1)
	rc=$?
	[ $rc -eq "$want" ] || {
		not_ok "$name: exit $rc, expected $want: $out"
		return
	}
	for needle in "$@"; do
		echo "$out" | grep -qF -- "$needle" || {
			not_ok "$name: no '$needle' in: $out"
			return
		}
	done
	ok
}
live testbed-policy contrib/testbed/autosize.yaml 0 \
	"autosize: live check: 0 errors" \
	"partition gpu: Slurm's gpu GRES has no type"
sed -e 's/max_time: 2-00:00:00/max_time: 7d/' \
	-e 's/max_nodes_per_job: 2/max_nodes_per_job: 3/' \
	contrib/testbed/autosize.yaml >"$work/limits.yaml"
live past-limits "$work/limits.yaml" 1 \
	"error: partition gpu: max_time 7-00:00:00 in the policy, Slurm's MaxTime is 2-00:00:00" \
	"set max_time: 2-00:00:00" \
	"error: partition small: max_nodes_per_job 3, Slurm allows 2 nodes per job (MaxNodes 2, 4 nodes)" \
	"autosize: live check: 2 errors"
sed -e 's/gpus_per_node: 8/gpus_per_node: 16/' -e 's/name: small/name: big/' \
	contrib/testbed/autosize.yaml >"$work/gpus.yaml"
live gpus-and-names "$work/gpus.yaml" 1 \
	"error: partition gpu: gpus_per_node 16, Slurm's nodes have 8" \
	"error: partition big: not a Slurm partition" \
	"warning: partition small: has GPUs in Slurm but is not in the policy"
sed -e 's/max_time: "12:00:00"/max_time: UNLIMITED/' \
	contrib/testbed/autosize.yaml >"$work/unlimited.yaml"
live unlimited-past-maxtime "$work/unlimited.yaml" 1 \
	"error: partition small: max_time UNLIMITED in the policy, Slurm's MaxTime is 12:00:00"

# inventory: untyped GRES needs --gpu; its policy passes the live check.
out=$("$CLI" inventory 2>&1 >"$work/inv0.yaml")
[ $? -eq 1 ] && grep -q "CHECK (left out): Slurm's gpu GRES has no type" "$work/inv0.yaml" &&
	ok || not_ok "inventory without --gpu: $out $(cat "$work/inv0.yaml")"
"$CLI" inventory --gpu=h100 >"$work/inv.yaml" 2>"$work/inv.err" && ok ||
	not_ok "inventory --gpu=h100: $(cat "$work/inv.err")"
grep -q '^  - name: "small"$' "$work/inv.yaml" &&
	grep -q '^    max_nodes_per_job: 2 ' "$work/inv.yaml" &&
	grep -q '^    max_time: "12:00:00"' "$work/inv.yaml" && ok ||
	not_ok "inventory's partition small: $(cat "$work/inv.yaml")"
live inventory-policy "$work/inv.yaml" 0 "autosize: live check: 0 errors"
out=$("$CLI" inventory --gpu=z100 2>&1)
[ $? -eq 2 ] && echo "$out" | grep -q "not in the GPU catalog" && ok ||
	not_ok "inventory --gpu=z100: $out"

summary
