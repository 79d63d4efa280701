#!/bin/sh
# ctest optimizer_passthrough: models/passthrough.py (what graphopt does not model is read, kept
# as read and written back, onnxruntime's outputs unchanged), its models written into WORK.
# Exit 77 (skip) without python3-onnx or onnxruntime-node (scripts/setup.sh installs both).
#   models/passthrough_test.sh GRAPHOPT WORK RULES
set -eu
src=$(cd "$(dirname "$0")" && pwd)
graphopt=${1:?usage: passthrough_test.sh GRAPHOPT WORK RULES}
work=${2:?usage: passthrough_test.sh GRAPHOPT WORK RULES}
rules=${3:?usage: passthrough_test.sh GRAPHOPT WORK RULES}
py=/usr/bin/python3
if ! $py -c 'import onnx, numpy' 2>/dev/null; then
  echo "skip: $py has no onnx or numpy (scripts/setup.sh installs python3-onnx)"; exit 77
fi
if ! command -v node >/dev/null || [ ! -d "$src/node_modules/onnxruntime-node" ]; then
  echo "skip: no node or models/node_modules/onnxruntime-node (scripts/setup.sh installs them)"; exit 77
fi
rm -rf "$work"; mkdir -p "$work"
exec $py "$src/passthrough.py" --graphopt "$graphopt" --work "$work" --rules "$rules"
