#!/bin/sh
# ctest models_zoo_small: build the two small test models, SqueezeNet and bert2 into OUTDIR, check
# that the builds are byte-identical when repeated, that each runs in onnxruntime with finite
# outputs of the declared shapes, and that inputs fed back from the JSON under optimization level
# 'disabled' give the same outputs as level 'all' did. Exit 77 (skip) without python3-onnx or
# onnxruntime-node (scripts/setup.sh installs both).
#   models/zoo_test.sh OUTDIR
set -eu
src=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: zoo_test.sh OUTDIR}
py=/usr/bin/python3
if ! $py -c 'import onnx, numpy' 2>/dev/null; then
  echo "skip: $py has no onnx or numpy (scripts/setup.sh installs python3-onnx)"; exit 77
fi
if ! command -v node >/dev/null || [ ! -d "$src/node_modules/onnxruntime-node" ]; then
  echo "skip: no node or models/node_modules/onnxruntime-node (scripts/setup.sh installs them)"; exit 77
fi
rm -rf "$out"
$py "$src/zoo.py" "$out" --only tiny_cnn,tiny_mlp,squeezenet,bert2
$py "$src/zoo.py" "$out/again" --only tiny_cnn,tiny_mlp,squeezenet >/dev/null
for m in tiny_cnn tiny_mlp squeezenet; do
  cmp "$out/$m.onnx" "$out/again/$m.onnx"
done
rm -rf "$out/again"
for m in tiny_cnn tiny_mlp squeezenet bert2; do
  node "$src/ort_run.js" "$out/$m.onnx" --check --seed 7 --int-max 30522 --out "$out/$m.json"
  node "$src/ort_run.js" "$out/$m.onnx" --check --inputs "$out/$m.json" --level disabled \
    --out "$out/$m.disabled.json" --quiet
  $py - "$out/$m.json" "$out/$m.disabled.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["inputs"] == b["inputs"], "inputs differ"
for x, y in zip(a["outputs"], b["outputs"]):
    assert x["name"] == y["name"] and x["dims"] == y["dims"], (x["name"], y["name"])
    scale = max(1.0, max(abs(v) for v in x["data"]))
    err = max(abs(u - v) for u, v in zip(x["data"], y["data"]))
    assert err <= 1e-4 * scale, "%s: level all and disabled differ by %g" % (x["name"], err)
    print("  %s: level all vs disabled, max difference %.3g" % (x["name"], err))
PY
done
echo "models_zoo_small: ok"
