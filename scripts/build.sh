#!/usr/bin/env bash
# Configures and builds one build tree: scripts/build.sh DIR [cmake options...]
set -euo pipefail
dir=$1
shift
mkdir -p "$dir"
# Ninja for a new tree: it spends about a third of make's CPU outside the compilers (CI is two
# cores); a tree already configured keeps its generator, which CMake cannot change.
generator=()
[ -f "$dir/CMakeCache.txt" ] || generator=(-G Ninja)
cmake "${generator[@]}" -S "$(dirname "$0")/.." -B "$dir" "$@" >"$dir/configure.log" 2>&1 || { cat "$dir/configure.log"; exit 1; }
cmake --build "$dir" -j "$(nproc)"
