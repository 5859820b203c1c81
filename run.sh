#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# pmumon's main job from a fresh checkout: install what it needs, build it,
# and count this machine's default events system-wide for a few seconds.
#   ./run.sh [SECONDS]        (system-wide counting needs root or CAP_PERFMON)
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps
[ -d build ] || meson setup build --buildtype=debugoptimized >/dev/null
ninja -C build >/dev/null
exec ./build/cli/pmumon stat -a -- sleep "${1:-3}"
