#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# run-fuzzer.sh FUZZER CORPUS SECONDS: a libFuzzer target for SECONDS from its corpus.
# What it finds new goes to a scratch directory (libFuzzer writes to the first one
# named), never into the source tree; a crash fails the test and leaves its input in
# the current directory (crash-*), as libFuzzer does. -error_exitcode=1: libFuzzer's
# default, 77, is meson's "skipped", and a crash must fail.
set -u
scratch=$(mktemp -d) || exit 1
"$1" -max_total_time="$3" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -error_exitcode=1 \
	"$scratch" "$2"
rc=$?
rm -rf "$scratch"
exit $rc
