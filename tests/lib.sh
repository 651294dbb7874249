# Shared by the shell tests (sourced after `cd` to the project): counters,
# "not ok" lines, and skipping that fails under CI ($CI set).
# TEST_NAME names the test in its lines.
pass=0
fail=0
ok() { pass=$((pass + 1)); }
not_ok() {
	echo "not ok - $*"
	fail=$((fail + 1))
}
skip_all() {
	echo "$TEST_NAME: skipped: $*"
	[ -z "${CI:-}" ] || {
		echo "not ok - CI needs this test"
		exit 1
	}
	exit 0
}
# The summary line; the exit status says whether all passed.
summary() {
	echo "$TEST_NAME: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
# SLURM_PREFIX=DIR: that Slurm's commands and daemons come first in PATH
# (make check-slurm); the system's otherwise.
slurm_path() {
	PATH=$PATH:/usr/sbin:/sbin
	[ -z "${SLURM_PREFIX:-}" ] || PATH=$SLURM_PREFIX/sbin:$SLURM_PREFIX/bin:$PATH
	export PATH
}
