#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The snapshot thread model under ThreadSanitizer: build the libraries and
# examples/snapshot-threads with -Db_sanitize=thread in their own build
# directory (only those targets: no CLI, tests or simulator tools), and run
# it; any report fails (exit 66).
#   tsan.sh [BUILD_DIR]        (default: build-tsan in the source tree)
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$src/build-tsan}
if [ ! -d "$dir" ]; then
	meson setup "$dir" "$src" --buildtype=debugoptimized -Db_sanitize=thread -Db_lundef=false \
		-Dtests=disabled >/dev/null
fi
ninja -C "$dir" examples/snapshot-threads >/dev/null
TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}" "$dir/examples/snapshot-threads" 4 300 10
