#!/usr/bin/env bash
# Installs every Debian package rulegen needs, idempotently: packages already present are not
# touched and apt's lists are refreshed only when something is missing. CI runs this too.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libz3-dev z3
  cvc5 libcvc5-dev
  libgmp-dev
  libsodium-dev libssl-dev
  libzstd-dev
  libjemalloc-dev
  libsqlite3-dev sqlite3
  libprotobuf-c-dev protobuf-c-compiler
  libonnx-dev
  libdnnl-dev
  coinor-libcbc-dev
  graphviz
  groff-base
  clang libclang-rt-14-dev libomp-dev
  python3-onnx python3-numpy libonnx-testdata
  libopenmpi-dev openmpi-bin
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

# node and npm (for onnxruntime, a test and benchmark tool): Debian's, unless a node is there
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
else
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# onnxruntime from npm into models/node_modules (its install script fetches GPU files from
# elsewhere and fails here; the CPU library is in the package itself)
root=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -d "$root/models/node_modules/onnxruntime-node" ]; then
  echo "setup: npm install onnxruntime-node (models/)"
  (cd "$root/models" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error)
fi
