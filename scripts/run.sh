#!/usr/bin/env bash
# README command 1: install dependencies, build, and run the main job on its embedded default
# (rulegen over TASO's operator set and inputs, depth 2).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$root/build" -DCMAKE_BUILD_TYPE=Release
# The whole run at depth 2 over TASO's operators and inputs (a few minutes on 2 cores); the
# stage table goes to the terminal, the verified rules to rules.rules.
"$root/build/tools/rulegen" --depth 2 -o "$root/rules.rules" "$@"
echo "verified rules: $root/rules.rules (removal records: rules.rules.removed)"
