#!/usr/bin/env bash
# README command 2: install dependencies, then build twice and run the tests: a normal build
# with -Wall -Wextra -Werror runs the tests labelled external (whose time is z3's, cvc5's or
# onnxruntime's) and release (what only that build has: the CUDA module, MPI, the installed copy,
# the larger models, memory measured without a sanitizer), and an AddressSanitizer +
# UndefinedBehaviorSanitizer build runs every test but the external ones (tests/CMakeLists.txt);
# then every parser's libFuzzer harness for RG_FUZZ_SECONDS each (default 10; clang; long fuzzing
# is bench/fuzz-long.sh).
# RG_TEST_ALL=1 runs the whole suite in the -Werror build too.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# Each phase says when it starts, so that a slow CI run shows where its time went.
phase() { echo "== $1 (at ${SECONDS} s) =="; }
"$root/scripts/setup.sh"

phase "build: -Werror"
# Both builds share one proof cache: the second takes the first's proofs (graphopt proves rule text).
proofs="-DRG_TEST_PROOF_CACHE=$root/build-proof-cache"
# CUDA's module (rulegen-cuda.so) where nvcc, cuDNN and cuBLAS are (the default); not in the
# sanitizer build below, whose instrumentation nvcc's code would not have.
# MPI required here (-DRG_MPI=ON): setup.sh installs Open MPI, and the mpirun tests must run.
"$root/scripts/build.sh" "$root/build-werror" -DRG_WERROR=ON -DRG_MPI=ON "$proofs"
phase "tests: -Werror"
werror_tests=(-L 'external|release')
[ "${RG_TEST_ALL:-0}" = 1 ] && werror_tests=()
(cd "$root/build-werror" && ctest --output-on-failure -j "$(nproc)" "${werror_tests[@]}")

phase "build: ASan + UBSan"
"$root/scripts/build.sh" "$root/build-asan" -DRG_WERROR=ON -DRG_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DRG_CUDA=OFF "$proofs"
phase "tests: ASan + UBSan"
# A 16 MB quarantine, not 256: freed memory is reused sooner instead of allocations taking fresh
# pages, each a page fault (regress_spill: 37 s of CPU with 256 MB, 23 s with 16). A use after
# free is still caught while the block is among the last 16 MB freed.
(cd "$root/build-asan" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:quarantine_size_mb=16 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j "$(nproc)" -LE external)

phase "fuzz: each parser's harness for ${RG_FUZZ_SECONDS:-10} s"
"$root/scripts/fuzz.sh" "${RG_FUZZ_SECONDS:-10}"
phase "all passed"
