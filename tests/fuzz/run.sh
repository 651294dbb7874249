#!/bin/sh
# make fuzz: run each libFuzzer harness for FUZZ_SECONDS on the shipped
# corpus (tests/fuzz/corpus/<harness>) plus what earlier runs found
# ($FUZZ_BUILD/corpus/<harness>); stop at the first crash, leak, timeout
# or undefined behaviour and say where its input is.
# Usage: tests/fuzz/run.sh FUZZ_BUILD SECONDS HARNESS...
set -e
build=$1
seconds=$2
shift 2

# -max_len per harness, in bytes.
max_len() {
	case $1 in
	parse) echo 256 ;;
	json) echo 4096 ;;
	yaml) echo 8192 ;;
	jobenv) echo 2048 ;;
	decide) echo 2048 ;;
	record) echo 8192 ;;
	*) echo 512 ;;
	esac
}

for t in "$@"; do
	mkdir -p "$build/corpus/$t" "$build/crashes"
	len=$(max_len "$t")
	log=$build/fuzz_$t.log
	echo "== fuzz_$t: $seconds s, -max_len=$len"
	if ! "$build/fuzz_$t" -max_total_time="$seconds" \
		-max_len="$len" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 \
		-artifact_prefix="$build/crashes/$t-" \
		"$build/corpus/$t" "tests/fuzz/corpus/$t" >"$log" 2>&1; then
		tail -60 "$log"
		echo "fuzz_$t FAILED: input in $build/crashes/;" \
			"copy it to tests/fuzz/regressions/$t/"
		exit 1
	fi
	grep -E '^stat::number_of_executed_units|Done [0-9]+ runs' "$log" |
		tail -2
done
