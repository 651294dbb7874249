#!/bin/sh
# From a fresh Debian 12 machine: install, build, and size a sample job.
set -eu
cd "$(dirname "$0")/.."
sh contrib/deps.sh
make -s
echo
echo '$ build/autosize plan --model-params=70e9 --train-tokens=2e12 --train-time=30d --policy=etc/autosize.yaml --partition=h100'
build/autosize plan --model-params=70e9 --train-tokens=2e12 \
	--train-time=30d --policy=etc/autosize.yaml --partition=h100
