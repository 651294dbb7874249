#!/bin/sh
# Run every test binary; fail if any fails. Tests find ../shared and the
# build folder through the environment.
build=$1; shift
status=0
AUTOSIZE_BUILD=$build; export AUTOSIZE_BUILD
for t in "$@"; do
	echo "== $t"
	if ! "$t"; then
		echo "FAILED: $t"
		status=1
	fi
done
exit $status
