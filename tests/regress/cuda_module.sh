#!/usr/bin/env bash
# tests/regress/cuda_module.sh GRAPHOPT MODEL BAD WRONG_ABI NO_TABLE FROM_BIN [MODULE]: graphopt
# opens its CUDA module (optimizer/cuda/gpu_load.c) only for --cost cuda, and refuses one it
# cannot use with exit status 2, nothing written, and a message naming the file and what to do:
#   - RULEGEN_CUDA_MODULE naming no file, a text file (BAD/not_a_module.txt, copied as not_a_module.so, also by a bare name,
#     which dlopen would look for on the library path), a shared object without the module's
#     table (NO_TABLE) and one whose table is of another interface version (WRONG_ABI), in every
#     build (the variable is honoured in a build without CUDA too);
#   - with MODULE (a build with CUDA: the build's own rulegen-cuda.so), the lookup: the build's
#     copy for the build's programs, and for a copy of graphopt outside the build tree the
#     installed layout, <its folder>/FROM_BIN/rulegen-cuda.so: missing, then there. With no
#     device to see (CUDA_VISIBLE_DEVICES set to nothing) a module that loads says so and
#     names itself.
set -u
graphopt=$1 model=$2 bad=$(cd "$3" && pwd) wrong_abi=$4 no_table=$5 from_bin=$6 module=${7:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/regress/check.sh"
tmp=$(cd "$(mktemp -d)" && pwd -P) # resolved: graphopt names its own folder resolved
trap 'rm -rf "$tmp"' EXIT
# a text file under a module's name (kept as .txt in the tree, where *.so means a build output)
cp "$bad/not_a_module.txt" "$tmp/not_a_module.so"
export CUDA_VISIBLE_DEVICES= # no device, even on a machine with one

# refused PATH TEXT [CMD...]: graphopt cost --cost cuda with RULEGEN_CUDA_MODULE=PATH exits 2,
# names PATH, and says TEXT.
refused() {
  local path=$1 text=$2
  check "module $path" 2 env RULEGEN_CUDA_MODULE="$path" "$graphopt" cost --cost cuda --no-cache "$model"
  has "module $path: names it" "$path"
  has "module $path: says what" "$text"
  has "module $path: says what to do" "point RULEGEN_CUDA_MODULE at the rulegen-cuda.so"
}
refused "$tmp/no_such.so" "the CUDA module $tmp/no_such.so: not found"
refused "$tmp/not_a_module.so" "cannot load the CUDA module $tmp/not_a_module.so (dlopen: "
refused "$no_table" "$no_table is not a rulegen CUDA module (it has no symbol rg_gpu_module_table)"
refused "$wrong_abi" "the CUDA module $wrong_abi is from another build of rulegen (its interface is version"
refused "$tmp" "the CUDA module $tmp: not a file"
# a bare name is a file of the working folder, not a library on the search path
check "bare name" 2 sh -c 'cd "$1" && RULEGEN_CUDA_MODULE=not_a_module.so "$2" cost --cost cuda --no-cache "$3"' \
  sh "$tmp" "$graphopt" "$model"
has "bare name" "cannot load the CUDA module ./not_a_module.so"
# optimize with a module that is not one: exit 2 and nothing written
check "optimize" 2 env RULEGEN_CUDA_MODULE="$tmp/not_a_module.so" "$graphopt" optimize "$model" \
  --rules "$root/tests/regress/optimize/merge.rules" --cost cuda --no-cache -o "$tmp/out.onnx" --json "$tmp/out.json"
has "optimize" "cannot load the CUDA module $tmp/not_a_module.so"
check "optimize: nothing written" 0 sh -c '! ls "$1"/out.* 2>/dev/null' sh "$tmp"

if [ -n "$module" ]; then
  check "the build's module" 2 "$graphopt" cost --cost cuda --no-cache "$model"
  has "the build's module" "no CUDA device: cudaGetDeviceCount returned"
  has "the build's module" "(the CUDA module $module loaded, and needs a device"
  mkdir -p "$tmp/p/bin" && cp "$graphopt" "$tmp/p/bin/graphopt"
  installed=$tmp/p/bin/$from_bin/rulegen-cuda.so
  check "installed, missing" 2 "$tmp/p/bin/graphopt" cost --cost cuda --no-cache "$model"
  has "installed, missing" "the CUDA module $installed: not found: install rulegen from a build with CUDA"
  mkdir -p "$(dirname "$installed")" && cp "$module" "$installed"
  check "installed" 2 "$tmp/p/bin/graphopt" cost --cost cuda --no-cache "$model"
  has "installed" "(the CUDA module $installed loaded, and needs a device"
  check "by the variable" 2 env RULEGEN_CUDA_MODULE="$installed" "$graphopt" cost --cost cuda --no-cache "$model"
  has "by the variable" "(the CUDA module $installed loaded, and needs a device"
fi
finish
