#!/usr/bin/env bash
# README command 1: install dependencies, build, and run the main job on its embedded default:
# rules over TASO's operators and the channel bias (depth 2), then a model optimized with them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$root/build" -DCMAKE_BUILD_TYPE=Release
# The whole run at depth 2 over TASO's operators and inputs and the bias (under a minute on 2
# cores); the stage table goes to the terminal, the verified rules to rules.rules.
"$root/build/tools/rulegen" --ops taso,bias --depth 2 -o "$root/rules.rules" "$@"
echo "verified rules: $root/rules.rules (removal records: rules.rules.removed)"
# SqueezeNet 1.1 from the model zoo (fixed-seed weights), optimized with those rules: the table
# of operators and cost before and after, the numeric check, the optimized model written.
/usr/bin/python3 "$root/models/zoo.py" "$root/build/zoo" --only squeezenet
"$root/build/tools/graphopt" --rules "$root/rules.rules" "$root/build/zoo/squeezenet.onnx" \
  -o "$root/squeezenet.opt.onnx" -q
