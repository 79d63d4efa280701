#!/bin/sh
# ctest optimizer_cases, optimizer_roundtrip_small and optimizer_optimize_small: models/roundtrip.py
# over models (with --cases, models/cases.py writes them into WORK first, with --opsets
# models/opsets.py; with --rules R, each is
# optimized with R instead of converted, by --search S where given); ctest optimizer_passthrough:
# with --passthrough, models/passthrough.py instead (its own models, optimized with R); ctest
# optimizer_regions: with --regions, models/regions.py (the numeric check by regions). Exit 77
# (skip) without python3-onnx or onnxruntime-node (scripts/setup.sh installs both).
#   models/roundtrip_test.sh GRAPHOPT WORK [--rules R [--search S] [--optimize-args 'A ...']] [--cases | --opsets | --passthrough | --regions | MODEL.onnx...]
set -eu
src=$(cd "$(dirname "$0")" && pwd)
graphopt=${1:?usage: roundtrip_test.sh GRAPHOPT WORK [--cases | MODEL...]}
work=${2:?usage: roundtrip_test.sh GRAPHOPT WORK [--cases | MODEL...]}
shift 2
py=/usr/bin/python3
if ! $py -c 'import onnx, numpy' 2>/dev/null; then
  echo "skip: $py has no onnx or numpy (scripts/setup.sh installs python3-onnx)"; exit 77
fi
if ! command -v node >/dev/null || [ ! -d "$src/node_modules/onnxruntime-node" ]; then
  echo "skip: no node or models/node_modules/onnxruntime-node (scripts/setup.sh installs them)"; exit 77
fi
rm -rf "$work"; mkdir -p "$work"
rules=""
search=""
if [ "${1:-}" = --rules ]; then rules=$2; shift 2; fi
if [ "${1:-}" = --search ]; then search=$2; shift 2; fi
oargs=""
if [ "${1:-}" = --optimize-args ]; then oargs=$2; shift 2; fi
# ctest optimizer_external and optimizer_external_memory: models with their weights in a side
# file (models/external.py; what follows --external is its own, as --only PARTS)
if [ "${1:-}" = --external ]; then
  shift
  exec $py "$src/external.py" --graphopt "$graphopt" --work "$work" --rules "$rules" "$@"
fi
# ctest optimizer_dims: models with a symbolic batch (models/dyn_dims.py; R's folder holds
# dims_reshape.rules too)
if [ "${1:-}" = --dims ]; then
  exec $py "$src/dyn_dims.py" --graphopt "$graphopt" --work "$work" --rules "$rules" \
    --reshape-rules "$(dirname "$rules")/dims_reshape.rules"
fi
if [ "${1:-}" = --passthrough ]; then
  exec $py "$src/passthrough.py" --graphopt "$graphopt" --work "$work" ${rules:+--rules "$rules"}
fi
if [ "${1:-}" = --regions ]; then
  exec $py "$src/regions.py" --graphopt "$graphopt" --work "$work" --rules "$rules"
fi
if [ "${1:-}" = --cases ] || [ "${1:-}" = --opsets ]; then
  $py "$src/${1#--}.py" "$work/models" >/dev/null
  set -- "$work"/models/*.onnx
fi
exec $py "$src/roundtrip.py" --graphopt "$graphopt" --work "$work" ${rules:+--rules "$rules"} ${search:+--search "$search"} \
  ${oargs:+--optimize-args "$oargs"} "$@"
