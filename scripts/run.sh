#!/usr/bin/env bash
# README command 1: install dependencies, build, and run the main job on its embedded default:
# rules over TASO's operators and the channel bias (depth 2), then a model made faster by graphopt.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$root/build" -DCMAKE_BUILD_TYPE=Release
# The whole run at depth 2 over TASO's operators and inputs and the bias (under a minute on 2
# cores); the stage table goes to the terminal, the verified rules to rules.rules.
"$root/build/tools/rulegen" --ops taso,bias --depth 2 -o "$root/rules.rules" "$@"
echo "verified rules: $root/rules.rules (removal records: rules.rules.removed)"
# TASO's NasRNN from the model zoo (fixed-seed weights), optimized with graphopt's default rule
# set (a signed depth-3 database installed with it): the table of operators and cost before and
# after, the numeric check, then both models timed in onnxruntime (the guard): the optimized one
# is written only if it runs faster beyond the noise, and the line says both latencies.
/usr/bin/python3 "$root/models/zoo.py" "$root/build/zoo" --only nasrnn
"$root/build/tools/graphopt" "$root/build/zoo/nasrnn.onnx" -o "$root/nasrnn.opt.onnx" --guard -q
