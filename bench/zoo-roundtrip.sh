#!/usr/bin/env bash
# bench/zoo-roundtrip.sh: the whole model zoo through graphopt: builds the zoo (models/zoo.py)
# into OUT/zoo, then models/roundtrip.py over every model: ONNX nodes, IR nodes, nodes written,
# opaque nodes by operator, import and export times (graphopt convert), onnxruntime on the
# original vs on the round trip, and graphopt's float64 evaluator vs onnxruntime on the same
# drawn inputs (largest difference relative to each output's scale). Needs /usr/bin/python3
# with onnx and models/node_modules (scripts/setup.sh); about 15 minutes on 2 cores, most of
# it graphopt's interpreter on VGG-19 and BERT-base. With RULES, each model is optimized with them
# (graphopt optimize, its default search or SEARCH) instead of converted: graphopt's numeric check,
# onnx.checker, and onnxruntime on the original vs on the optimized model within 1e-4.
# Usage: bench/zoo-roundtrip.sh [OUT [RULES [SEARCH]]] (default build/bench-zoo; OUT/graphopt is
# used if built there, else build/tools/graphopt)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build/bench-zoo}
rules=${2:-} search=${3:-}
graphopt=$root/build/tools/graphopt
[ -x "$out/graphopt" ] && graphopt=$out/graphopt
mkdir -p "$out"
models=(tiny_cnn tiny_mlp squeezenet resnet50 resnext50 inception_v3 mobilenet_v2 nasnet_a nasrnn vgg19 bert2 bert)
# The missing ones only: OUT may hold a zoo the other benchmarks built in part (zoo_args.sh).
missing=()
for m in "${models[@]}"; do [ -f "$out/zoo/$m.onnx" ] || missing+=("$m"); done
[ ${#missing[@]} -eq 0 ] || /usr/bin/python3 "$root/models/zoo.py" "$out/zoo" --only "$(IFS=,; echo "${missing[*]}")" >/dev/null
exec /usr/bin/python3 "$root/models/roundtrip.py" --graphopt "$graphopt" --work "$out/roundtrip${rules:+-optimized}" \
  ${rules:+--rules "$rules"} ${search:+--search "$search"} \
  $(printf "$out/zoo/%s.onnx " "${models[@]}")
