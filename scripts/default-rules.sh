#!/usr/bin/env bash
# scripts/default-rules.sh KEY.key [BUILD]: makes graphopt's default rule set
# (optimizer/optimize/rules/, optimizer/optimize/default_rules.h) with the documented command,
#   rulegen --ops taso,bias --depth 3 -j 2 -o default.db -k KEY.key
# (TASO's operators and inputs with the channel bias, depth 3: about 7 minutes on 2 cores),
# checks it (rulesdb verify and audit with KEY.pub), keeps its verified part (rulesdb sign
# --verified-only, audited again), and only then replaces default.db.tar.xz (that part,
# compressed: the build unpacks it) and default.pub in optimizer/optimize/rules/. KEY.key is the signer's (rulesdb keygen -o KEY); it stays with
# them: only the database and KEY.pub are committed. BUILD: the build tree (default build/).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: scripts/default-rules.sh KEY.key [BUILD]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
key=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
pub=${key%.key}.pub
bin=$(cd "${2:-$root/build}" && pwd)/tools
[ -f "$key" ] && [ -f "$pub" ] || { echo "default-rules: want $key and $pub (rulesdb keygen -o NAME)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin/rulegen" --ops taso,bias --depth 3 -j 2 -o "$tmp/default.db" -k "$key"
"$bin/rulesdb" verify "$tmp/default.db" --pub "$pub"
"$bin/rulesdb" audit "$tmp/default.db" --pub "$pub"
# What graphopt reads: the verified rules with their proof and test records, re-signed once the
# whole run's signature verifies (55 MB -> 9 MB; the pruning records and other rules stay with
# whoever keeps the whole database), audited again.
mkdir "$tmp/ship" && cp "$tmp/default.db" "$tmp/ship/default.db"
"$bin/rulesdb" sign "$tmp/ship/default.db" --key "$key" --verified-only
"$bin/rulesdb" audit "$tmp/ship/default.db" --pub "$pub"
(cd "$tmp/ship" && tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -cf - default.db | xz -9) \
  >"$root/optimizer/optimize/rules/default.db.tar.xz"
cp "$pub" "$root/optimizer/optimize/rules/default.pub"
echo "default-rules: optimizer/optimize/rules/default.db.tar.xz and default.pub replaced"
