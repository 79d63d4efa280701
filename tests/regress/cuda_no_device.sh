#!/bin/sh
# tests/regress/cuda_no_device.sh GRAPHOPT MODEL HAVE_CUDA: `graphopt cost --cost cuda` with no
# device to see (CUDA_VISIBLE_DEVICES set to nothing) exits 2 with the clear message: in a CUDA
# build what cudaGetDeviceCount said, in a build without nvcc that it was built so. Runs in CI,
# which has no GPU; on a GPU machine the empty CUDA_VISIBLE_DEVICES hides the device.
graphopt=$1 model=$2 have_cuda=$3
out=$(CUDA_VISIBLE_DEVICES='' "$graphopt" cost --cost cuda --no-cache "$model" 2>&1)
rc=$?
case $have_cuda in
ON | 1 | TRUE) want="no CUDA device: cudaGetDeviceCount returned" ;;
*) want="graphopt was built without CUDA (" ;; # then why: no nvcc, no cuDNN, no -DRG_CUDA=ON
esac
echo "$out"
if [ "$rc" -ne 2 ]; then
  echo "FAIL: exit status $rc, not 2"
  exit 1
fi
case $out in
*"$want"*) echo "ok: exit 2, '$want'" ;;
*)
  echo "FAIL: the output does not say '$want'"
  exit 1
  ;;
esac
