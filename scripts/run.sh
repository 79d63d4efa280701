#!/usr/bin/env bash
# README command 1: install dependencies, build, and run the main job on its embedded default.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$root/build" -DCMAKE_BUILD_TYPE=Release
"$root/build/tools/rulegen" eval "$@"
