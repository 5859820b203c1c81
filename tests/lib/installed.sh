#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Embed libpmumon as someone else's program would: install the build into a
# temporary directory, compile examples/ against the installed headers and
# libraries with nothing but pkg-config's flags, and run them.
#   installed.sh BUILD_DIR SOURCE_DIR     (meson test runs it: suite lib)
set -eu
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"${MESON:-meson}" install -C "$build" --destdir "$tmp/root" --no-rebuild >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; exit 1; }
pc=$(find "$tmp/root" -name pmumon.pc)
[ -n "$pc" ] || { echo "no pmumon.pc installed"; exit 1; }
[ -f "$(dirname "$pc")/libpmumon-sim.pc" ] || { echo "no libpmumon-sim.pc next to $pc"; exit 1; }
export PKG_CONFIG_PATH="$(dirname "$pc")"
# the .pc files name the real prefix; the copy is under the destdir
prefix=$(pkg-config --variable=prefix pmumon)
pkgconf="pkg-config --define-variable=prefix=$tmp/root$prefix"
cflags=$($pkgconf --cflags libpmumon-sim pmumon)
libs=$($pkgconf --libs libpmumon-sim pmumon)
libdir=$($pkgconf --variable=libdir pmumon)
echo "cflags: $cflags"
echo "libs:   $libs"
case "$cflags $libs" in
*"$src"* | *"$build"*) echo "the flags point into the source or build tree"; exit 1 ;;
esac
# every public header the source tree has (pmumon.h and one per object)
for h in "$src"/include/pmumon/*.h; do
	h=$(basename "$h")
	[ -f "$tmp/root$prefix/include/pmumon/$h" ] || { echo "pmumon/$h not installed"; exit 1; }
done

# a sanitized build installs sanitized libraries: the programs need the runtime
sanitize=$("${MESON:-meson}" introspect "$build" --buildoptions | python3 -c '
import json, sys
print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "b_sanitize"))')
san=
[ "$sanitize" = none ] || san=-fsanitize=$sanitize

# strict C11 for count.c: the public headers need no feature macros
${CC:-cc} -std=c11 -Wall -Wextra -Werror $san $cflags "$src/examples/count.c" -o "$tmp/count" $libs
${CC:-cc} -std=gnu11 -pthread -Wall -Wextra -Werror $san $cflags \
	"$src/examples/snapshot-threads.c" -o "$tmp/snapshot-threads" $libs -lm

# the programs use the installed libraries, not the build tree's
LD_LIBRARY_PATH="$libdir" ldd "$tmp/count" | grep -E 'libpmumon(-sim)?\.so' | tee "$tmp/ldd"
[ "$(grep -c "$tmp/root" "$tmp/ldd")" -eq 2 ] || { echo "not the installed libraries"; exit 1; }

LD_LIBRARY_PATH="$libdir" "$tmp/count" >"$tmp/count.out"
cat "$tmp/count.out"
grep -q 'SIMULATED: yitian710' "$tmp/count.out"
grep -q 'ali_drw/hif_rd/' "$tmp/count.out"
grep -q 'MB/s' "$tmp/count.out"
LD_LIBRARY_PATH="$libdir" "$tmp/snapshot-threads" 2 20 100
