#!/usr/bin/env bash
# shellcheck disable=SC2317 # the steps are functions that step() runs
# bench/gpu-check.sh: everything issue 29's first slice needs a GPU for, as one script for a
# short time (about 10 minutes) on one H100/H200 machine: the device (nvidia-smi), a Release
# build with CUDA, the GPU ctests (test_optimizer_cuda must run there, not skip), and
# `graphopt cost --cost cuda` run twice on two zoo models with one fresh cache, timed, to show
# that the second run measures nothing (every configuration from the cache).
#
# Usage: bench/gpu-check.sh [OUT]   (OUT: default $OUT, else build-gpu/out)
#   MODELS="squeezenet resnext50"  the zoo models (models/zoo.py --only), two by default
#   JOBS=16                        build parallelism
# Writes text only, at most 8 files, one per step, each written as the step goes so that a
# later step's failure leaves the earlier ones: 0-summary.txt (one line per step, PASS/FAIL),
# 1-device.txt, 2-build.txt, 3-ctest.txt, 4-zoo.txt, 5-cost.txt. The exit status is 1 when a
# step failed. A step that cannot run (no cmake, no python3-onnx) says so in its file.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-${OUT:-$root/build-gpu/out}}
models=${MODELS:-squeezenet resnext50}
jobs=${JOBS:-$(nproc)}
build=$root/build-gpu
mkdir -p "$out" "$build"
summary=$out/0-summary.txt
: >"$summary"
failed=0

# seconds since $1 (date +%s.%N), to a tenth
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# step NAME FILE COMMAND...: runs COMMAND with its output into FILE, timed, and a line in the
# summary.
step() {
  local name=$1 base=$2 file=$out/$2 t0 rc
  shift 2
  t0=$(date +%s.%N)
  { echo "## $name: $*"; date -u; } >>"$file"
  "$@" >>"$file" 2>&1
  rc=$?
  local secs
  secs=$(elapsed "$t0")
  echo "## exit $rc after $secs s" >>"$file"
  if [ "$rc" -eq 0 ]; then
    echo "PASS $name ($secs s)" >>"$summary"
  else
    echo "FAIL $name (exit $rc after $secs s: see $base)" >>"$summary"
    failed=1
  fi
  return "$rc"
}

device() {
  nvidia-smi || return
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  echo "nvcc: $(/usr/local/cuda/bin/nvcc --version | tail -1)"
  ls /usr/local/cuda/lib64/lib{cudnn,cublas,cudart}.so.*
  echo "CPU cores: $(nproc)"
}

configure_build() {
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DRG_WERROR=ON -DRG_CUDA=ON | tee "$build/configure.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || return 1
  if ! grep -q 'rulegen: CUDA found' "$build/configure.log"; then
    echo "CUDA was not found: the GPU side is not built"
    return 1
  fi
  cmake --build "$build" -j "$jobs" --target graphopt test_optimizer_cuda
}

# the GPU ctests; a skip of test_optimizer_cuda is a failure here, where there is a device
gpu_ctests() {
  local log=$build/ctest-gpu.log rc
  (cd "$build" && ctest -R 'optimizer_cuda|test_optimizer_cuda' --output-on-failure -V) | tee "$log"
  rc=${PIPESTATUS[0]}
  if grep -q 'test_optimizer_cuda.*Skipped\|GPU checks skipped' "$log"; then
    echo "FAIL: test_optimizer_cuda skipped on a machine with a GPU"
    return 1
  fi
  return "$rc"
}

# models/zoo.py wants Debian's python3-onnx and numpy: /usr/bin/python3 where it is
zoo() {
  local py=python3
  [ -x /usr/bin/python3 ] && py=/usr/bin/python3
  "$py" "$root/models/zoo.py" "$build/zoo" --only "$(echo "$models" | tr ' ' ',')"
}

# each model twice on one fresh cache: the second run must time nothing
cost_twice() {
  local cache=$build/costs.sqlite rc=0
  rm -f "$cache" "$cache"-wal "$cache"-shm
  for m in $models; do
    for run in 1 2; do
      echo "### $m, run $run"
      local t0
      t0=$(date +%s.%N)
      "$build/tools/graphopt" cost --cost cuda --cache "$cache" "$build/zoo/$m.onnx" | tee "$build/cost-$m-$run.txt" ||
        { rc=1; continue; }
      echo "wall: $(elapsed "$t0") s"
    done
    if ! grep -q ' 0 measured' "$build/cost-$m-2.txt" 2>/dev/null; then
      echo "FAIL: the second run of $m does not say '0 measured': it failed, or the cache was not used"
      rc=1
    fi
    echo "### $m by the roofline with the H100's datasheet figures, for comparison"
    "$build/tools/graphopt" cost --cost roofline --machine gpu-h100 "$build/zoo/$m.onnx"
  done
  echo "### CUDA_VISIBLE_DEVICES= (the no-device path on this machine)"
  CUDA_VISIBLE_DEVICES='' "$build/tools/graphopt" cost --cost cuda --no-cache "$build/zoo/squeezenet.onnx"
  echo "exit $? (2 wanted)"
  return "$rc"
}

step device 1-device.txt device
if step build 2-build.txt configure_build; then
  step ctest 3-ctest.txt gpu_ctests
  step zoo 4-zoo.txt zoo && step cost 5-cost.txt cost_twice
fi
cat "$summary"
exit "$failed"
