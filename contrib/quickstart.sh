#!/bin/sh
# From a fresh Debian 12 machine, as root: install, build, preview a plan
# with the CLI, then bring up a local Slurm cluster (contrib/testbed/up:
# four nodes with 8 fake H100s each) and submit a sample 70B job to it.
# The cluster stays up afterwards; contrib/testbed/down stops it.
set -eu
cd "$(dirname "$0")/.."
sh contrib/deps.sh
make -s
echo
echo '$ build/autosize plan --model-params=70e9 --train-tokens=200e9 --train-time=30d --policy=etc/autosize.yaml --partition=h100'
build/autosize plan --model-params=70e9 --train-tokens=200e9 \
	--train-time=30d --policy=etc/autosize.yaml --partition=h100

echo
if [ "$(id -u)" -ne 0 ]; then
	echo "quickstart: not root: skipping the local Slurm cluster (contrib/testbed/up needs root)"
	exit 0
fi
PATH=$PATH:/usr/sbin:/sbin
echo "== a local Slurm cluster (contrib/testbed/up; restarted to load this build)"
contrib/testbed/down >/dev/null 2>&1 || true
eval "$(contrib/testbed/up)"
tb=$(dirname "$SLURM_CONF")

cat >"$tb/jobs/train.sh" <<EOF
#!/bin/sh
#SBATCH --output=$tb/jobs/train-%j.out
# A stand-in for a training script: what slurm-autosize told it.
sleep 1
echo "job \$SLURM_JOB_ID on \$SLURM_JOB_NUM_NODES nodes, \${SLURM_GPUS_ON_NODE:-?} GPUs per node"
env | grep '^AUTOSIZE_' | sort
EOF

if [ -f build/spank_autosize.so ]; then
	# A run the testbed's 4 nodes finish within a day (a 2T-token 70B
	# run would need years there: slurm-autosize says so and refuses).
	set -- --model-params=70e9 --train-tokens=1.5e9 --train-time=1d
else
	echo "quickstart: build/spank_autosize.so is not built: submitting a plain job"
	set -- -N2 --gpus-per-node=8 -t 60
fi
echo
echo "\$ export SLURM_CONF=$SLURM_CONF"
echo "\$ sbatch $* $tb/jobs/train.sh"
out=$(sbatch "$@" "$tb/jobs/train.sh" 2>&1) || {
	echo "$out"
	echo "quickstart: sbatch failed" >&2
	exit 1
}
echo "$out"
id=$(echo "$out" | sed -n 's/^Submitted batch job \([0-9][0-9]*\).*/\1/p')
[ -n "$id" ] || {
	echo "quickstart: no job id in sbatch's output" >&2
	exit 1
}

i=0
while [ $i -lt 150 ]; do
	state=$(scontrol show job -o "$id" | tr ' ' '\n' | sed -n 's/^JobState=//p')
	case $state in
	PENDING | CONFIGURING | RUNNING | COMPLETING) ;;
	*) break ;;
	esac
	sleep 0.2
	i=$((i + 1))
done
echo
echo "\$ scontrol show job $id | grep -Ei 'NumNodes|TRES|TimeLimit'   # JobState=$state"
scontrol show job "$id" | grep -Ei 'NumNodes|TRES|TimeLimit'
echo
echo "\$ cat $tb/jobs/train-$id.out   # the testbed's GPUs are /dev/null: the GPU check warns"
cat "$tb/jobs/train-$id.out" 2>/dev/null || echo "(no output yet)"
echo
echo "The cluster is still up. To use it:  export SLURM_CONF=$SLURM_CONF"
echo "To stop it:                         contrib/testbed/down"
# The sample is here to be sized: say so when it was not.
if [ -f build/spank_autosize.so ] && [ -f build/autosize.so ] &&
	! echo "$out" | grep -q '^sbatch: autosize: plan: '; then
	echo "quickstart: the sample job was not sized (sbatch's autosize lines above say why)" >&2
	exit 1
fi
