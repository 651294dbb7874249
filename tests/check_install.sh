#!/bin/sh
# make install honours prefix, libdir, sysconfdir and DESTDIR, and puts
# the plugins, the CLI, the policy, job_submit.lua and the plugstack
# fragment where Slurm and the admin look for them.
set -u
stage=$(mktemp -d /tmp/autosize-install.XXXXXX)
trap 'rm -rf "$stage"' EXIT
pass=0
fail=0
check() {
	if [ -e "$stage$1" ]; then
		pass=$((pass + 1))
	else
		echo "not ok - make install: $1 missing"
		fail=$((fail + 1))
	fi
}
make -s install DESTDIR="$stage" prefix=/usr sysconfdir=/etc/slurm \
	libdir=/usr/lib/x86_64-linux-gnu/slurm-wlm >/dev/null || {
	echo "not ok - make install failed"
	echo "0 passed, 1 failed"
	exit 1
}
check /usr/bin/autosize
check /etc/slurm/autosize/autosize.yaml
check /etc/slurm/autosize/gpus.yaml
check /etc/slurm/autosize/models.yaml
check /usr/lib/x86_64-linux-gnu/slurm-wlm/spank_autosize.so
check /usr/lib/x86_64-linux-gnu/slurm-wlm/lua/autosize.so
check /etc/slurm/autosize/job_submit.lua
check /etc/slurm/plugstack.conf.d/autosize.conf
frag=$stage/etc/slurm/plugstack.conf.d/autosize.conf
if grep -q "^optional /usr/lib/x86_64-linux-gnu/slurm-wlm/spank_autosize.so policy=/etc/slurm/autosize/autosize.yaml$" "$frag" 2>/dev/null; then
	pass=$((pass + 1))
else
	echo "not ok - plugstack fragment: $(cat "$frag" 2>/dev/null)"
	fail=$((fail + 1))
fi
# Nothing outside DESTDIR, nothing but the expected top folders.
extra=$(cd "$stage" && ls -A | grep -v -x -e usr -e etc)
if [ -z "$extra" ]; then
	pass=$((pass + 1))
else
	echo "not ok - unexpected install paths: $extra"
	fail=$((fail + 1))
fi
echo "install: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
