#!/usr/bin/env bash
# tests/regress/cuda_not_loaded.sh ldd|start GRAPHOPT RULEGEN RULESDB MODEL [MODULE]: the programs
# do not load cudart, cuDNN or cuBLAS unless asked for a GPU (graphopt opens its CUDA module,
# optimizer/cuda/, with dlopen for --cost cuda only):
#   ldd    none of the three names libcudart, libcublas, libcudnn or the module; MODULE (a build
#          with CUDA) names all three libraries, every one found, so the names looked for are
#          right;
#   start  `PROG --version` of each opens none of them (LD_DEBUG=libs: every library the
#          dynamic loader looks for, the solver helpers' too); with MODULE, `graphopt cost
#          --cost cuda` with no device to see opens the module and cudart, so the check sees
#          a library loaded by dlopen.
set -u
mode=$1 graphopt=$2 rulegen=$3 rulesdb=$4 model=$5 module=${6:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/regress/check.sh"
cuda='libcudart|libcublas|libcudnn|rulegen-cuda'

# none DESCRIPTION: the last check's output names no CUDA library
none() {
  n=$((n + 1))
  if grep -qE "$cuda" <<<"$out"; then
    echo "FAIL $1: loads CUDA:"; grep -E "$cuda" <<<"$out" | head -5; fail=$((fail + 1))
  fi
}

case $mode in
ldd)
  for prog in "$graphopt" "$rulegen" "$rulesdb"; do
    check "ldd $prog" 0 ldd "$prog"
    has "ldd $prog" "libc.so"
    none "ldd $prog"
  done
  if [ -n "$module" ]; then
    check "ldd $module" 0 ldd "$module"
    for lib in libcudart libcublas libcudnn; do has "ldd $module" "$lib"; done
    n=$((n + 1))
    if grep -q "not found" <<<"$out"; then echo "FAIL ldd $module: $out"; fail=$((fail + 1)); fi
  fi
  ;;
start)
  for prog in "$graphopt" "$rulegen" "$rulesdb"; do
    check "$prog --version" 0 env LD_DEBUG=libs "$prog" --version
    has "$prog --version: LD_DEBUG works" "find library=libc.so"
    none "$prog --version"
  done
  if [ -n "$module" ]; then
    check "--cost cuda" 2 env LD_DEBUG=libs CUDA_VISIBLE_DEVICES= "$graphopt" cost --cost cuda --no-cache "$model"
    has "--cost cuda opens the module" "calling init: $module"
    has "--cost cuda opens cudart" "find library=libcudart"
  fi
  ;;
*)
  echo "usage: cuda_not_loaded.sh ldd|start GRAPHOPT RULEGEN RULESDB MODEL [MODULE]"
  exit 2
  ;;
esac
finish
