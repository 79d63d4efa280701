#!/usr/bin/env bash
# bench/fuzz-long.sh: the parsers' libFuzzer harnesses for a long time each (SECONDS, default
# 3600), as scripts/fuzz.sh runs them in CI for 30 s; prints each harness's executions and
# whether it found anything (findings kept in build-fuzz/findings/NAME/).
# Usage: bench/fuzz-long.sh [SECONDS] [HARNESS...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
exec "$root/scripts/fuzz.sh" "${1:-3600}" "${@:2}"
