#!/usr/bin/env bash
# The installed module serves a user's own ns-3 program: cmake --install into a scratch prefix,
# then build contrib/ai-fabric/doc/out-of-tree/ with find_package(ai-fabric) and its incast.cc
# with pkg-config, and run both.
#   installed-package.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cmake --install "$build" --prefix "$d/prefix" > "$d/install.log"
test -f "$d/prefix/include/ns3/ai-fabric-module.h"
cmake -S "$src/contrib/ai-fabric/doc/out-of-tree" -B "$d/user" -DCMAKE_PREFIX_PATH="$d/prefix" \
      -DCMAKE_BUILD_TYPE=Release > "$d/configure.log"
cmake --build "$d/user" > "$d/build.log"
"$d/user/incast" | tee "$d/cmake-run.txt"
grep -q "^8 of 8 messages complete" "$d/cmake-run.txt"
pc=$(find "$d/prefix" -name ai-fabric.pc)
PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --exists ai-fabric
# shellcheck disable=SC2046 # pkg-config's words are meant to split
g++ -std=c++17 -O1 "$src/contrib/ai-fabric/doc/out-of-tree/incast.cc" -o "$d/incast-pc" \
    $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs ai-fabric)
LD_LIBRARY_PATH=$(dirname "$(find "$d/prefix" -name 'libai-fabric.so' | head -1)") \
    "$d/incast-pc" | grep -q "^8 of 8 messages complete"
echo "installed package: find_package and pkg-config builds run"
