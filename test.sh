#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Build pmumon and run every test suite (unit, sim, cli, hw, fuzz, lib, tree), then
# the unit/sim/fuzz/cli suites again under ASan+UBSan (the commands' threads
# and HTTP too), unit/sim under valgrind, each libFuzzer target for 10 s, the
# snapshot threads example under ThreadSanitizer, build, lint, install and check
# the Debian packages (scripts/test-package), and check the formatting.
# Ends with the line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")"
scripts/install-deps || exit 1

setup() {	# DIR [meson options...]
	local dir=$1; shift
	[ -d "$dir" ] || meson setup "$dir" --buildtype=debugoptimized -Dtests=enabled "$@" >/dev/null ||
		return 1
	ninja -C "$dir" >/dev/null
}

fail=0
setup build || fail=1
setup build-asan -Db_sanitize=address,undefined -Db_lundef=false || fail=1
if [ $fail -ne 0 ]; then
	echo "the build failed"
	echo "0 passed, 1 failed"
	exit 1
fi

# house style: .clang-format over every C file, and no whitespace errors
format_failed=0
unformatted=$(git ls-files '*.c' '*.h' 2>/dev/null | while read -r f; do
	clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || echo "$f"
done)
if [ -n "$unformatted" ]; then
	echo "not formatted (clang-format -i FILE):" $unformatted
	format_failed=1
fi
empty_tree=$(git hash-object -t tree /dev/null 2>/dev/null)
if [ -n "$empty_tree" ] && ! git diff --check "$empty_tree" HEAD -- . ':!fuzz/corpus' >/dev/null; then
	git diff --check "$empty_tree" HEAD -- . ':!fuzz/corpus' | head
	format_failed=1
fi

meson test -C build --print-errorlogs
meson test -C build-asan --suite unit --suite sim --suite fuzz --suite cli --print-errorlogs
meson test -C build --suite unit --suite sim --print-errorlogs --setup valgrind --logbase valgrind

# the Debian packages: built from this tree, lint-clean, installed, checked, removed
package_failed=0
package_out=$(scripts/test-package 2>&1)
case $? in
0) echo "$package_out" | tail -1 ;;
77)
	echo "$package_out" | tail -1
	package_failed=skip
	;;
*)
	echo "$package_out" | tail -40
	package_failed=1
	;;
esac

# every fuzz target for 10 s from its corpus, libFuzzer with the library instrumented
# (build-fuzz: clang, -Dfuzzer=true; fuzz/meson.build)
if command -v clang >/dev/null; then
	CC=clang setup build-fuzz -Dfuzzer=true -Dtests=disabled &&
		meson test -C build-fuzz --suite fuzz-run --print-errorlogs ||
		echo "the fuzz run failed (build-fuzz/meson-logs/testlog.txt)"
fi

# the snapshot thread model under ThreadSanitizer (its own build directory)
tsan_failed=0
if ! tsan_out=$(tests/lib/tsan.sh build-tsan 2>&1); then
	echo "$tsan_out" | tail -40
	echo "ThreadSanitizer: examples/snapshot-threads failed (tests/lib/tsan.sh)"
	tsan_failed=1
fi

FORMAT_FAILED=$format_failed TSAN_FAILED=$tsan_failed PACKAGE_FAILED=$package_failed python3 - <<'PY'
import json, os, sys
passed = failed = skipped = 0
for check in ('FORMAT_FAILED', 'TSAN_FAILED', 'PACKAGE_FAILED'):
    if os.environ[check] == '1':
        failed += 1
    elif os.environ[check] == 'skip':
        skipped += 1
    else:
        passed += 1
for log in ('build/meson-logs/testlog.json', 'build-asan/meson-logs/testlog.json',
            'build/meson-logs/valgrind-valgrind.json', 'build-fuzz/meson-logs/testlog.json'):
    if log.startswith('build-fuzz') and not os.path.exists(log):
        failed += 1  # clang is in scripts/install-deps: no run is a failure
        continue
    for line in open(log):
        r = json.loads(line)['result']
        if r in ('OK', 'EXPECTEDFAIL'):
            passed += 1
        elif r == 'SKIP':
            skipped += 1
        else:
            failed += 1
if skipped:
    print('%d skipped (their suites print why)' % skipped)
print('%d passed, %d failed' % (passed, failed))
sys.exit(1 if failed else 0)
PY
