#!/usr/bin/env bash
# Installs every Debian package rulegen needs, idempotently: packages already present are not
# touched and apt's lists are refreshed only when something is missing. CI runs this too.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config
  libz3-dev z3
  cvc5 libcvc5-dev
  libgmp-dev
  libsodium-dev
  libsqlite3-dev sqlite3
  libprotobuf-c-dev protobuf-c-compiler
  libonnx-dev
  graphviz
  clang libclang-rt-14-dev libomp-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
