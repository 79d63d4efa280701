#!/usr/bin/env bash
# tests/regress/run_install.sh BUILD SOURCE: `cmake --install BUILD` into a prefix that is then
# moved, and everything run from another folder with the installed copy only:
#   - --version of rulegen, rulesdb, graphopt: "PROG VERSION (git REV)", "z3 X.Y.Z", "cvc5 X.Y.Z";
#   - rulegen prove with the default axioms, a depth-1 synthesis run to a signed .db, and
#     graphopt cost with the default machine file and graphopt with the default rule set, all
#     from PREFIX/share/rulegen: renaming that
#     folder (or the z3 helper next to rulegen) breaks them with a message naming the installed
#     path and RULEGEN_DATA_DIR (RG_Z3_HELPER), never a path of SOURCE or BUILD; the variable
#     pointed at the renamed folder mends them;
#   - a C program that reads a rule database through the installed headers and libraries,
#     built with `pkg-config --cflags --libs rulegen` and with find_package(rulegen), reads the
#     rule counts rulegen and rulesdb wrote.
set -u
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
. "$src/tests/regress/check.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect STATUS TEXT CMD...: check and has in one: exit STATUS, TEXT in stdout+stderr.
expect() {
  local want=$1 text=$2
  shift 2
  check "$*" "$want" "$@"
  [ -z "$text" ] || has "$*" "$text"
}
# lacks TEXT: the last command's output must not name TEXT (a path of the source or build tree).
lacks() {
  n=$((n + 1))
  if grep -qF -- "$1" <<<"$out"; then echo "FAIL: output names $1: $out"; fail=$((fail + 1)); fi
}

if ! cmake --install "$build" --prefix "$tmp/staged" >"$tmp/install.log" 2>&1; then
  echo "FAIL: cmake --install $build"; cat "$tmp/install.log"; exit 1
fi
mv "$tmp/staged" "$tmp/moved" # a prefix that is not where it was installed
P=$tmp/moved
mkdir "$tmp/work" && cd "$tmp/work" || exit 1

for f in bin/rulegen bin/rulesdb bin/graphopt bin/rulegen-z3 bin/rulegen-cvc5 \
         share/rulegen/axioms.rules share/rulegen/machines/cpu-default.txt \
         share/rulegen/rules/default.db share/rulegen/rules/default.pub \
         include/rulegen/rulesdb/rulesdb.h include/rulegen/ir/status.h include/rulegen/verify/solvers.def; do
  expect 0 "" test -f "$P/$f"
done
pc=$(find "$P" -name rulegen.pc)
expect 0 "" test -f "$pc"
expect 0 "" test -f "$(dirname "$(dirname "$pc")")/cmake/rulegen/rulegenConfigVersion.cmake"
expect 0 "" test -f "$(dirname "$(dirname "$pc")")/librg_rulesdb.a"

# --version: three lines, the revision the source tree is at when it is a git checkout.
rev=unknown
if git -C "$src" rev-parse --short=12 HEAD >/dev/null 2>&1 &&
   [ "$(cd "$(git -C "$src" rev-parse --show-toplevel)" && pwd -P)" = "$(cd "$src" && pwd -P)" ]; then
  rev=$(git -C "$src" rev-parse --short=12 HEAD)
fi
for prog in rulegen rulesdb graphopt; do
  expect 0 "" "$P/bin/$prog" --version
  n=$((n + 1))
  re="^$prog [0-9]+\.[0-9]+\.[0-9]+ \(git $rev(-dirty)?\)"$'\n'"z3 [0-9]+(\.[0-9]+)+"$'\n'"cvc5 [0-9]+(\.[0-9]+)+$"
  if ! [[ $out =~ $re ]]; then
    echo "FAIL: $prog --version (want 3 lines, git $rev): $out"; fail=$((fail + 1))
  fi
done
expect 0 "rulegen-z3: z3 version" "$P/bin/rulegen-z3" --version
expect 0 "rulegen-cvc5: cvc5 version" "$P/bin/rulegen-cvc5" --version

# The default data: the installed copy, and only it.
printf 'comm: (ewadd ?x ?y) => (ewadd ?y ?x)\nmcomm: (ewmul ?x ?y) => (ewmul ?y ?x)\n' >two.rules
expect 0 "default AXIOMS: $P/bin/../share/rulegen/axioms.rules (RULEGEN_DATA_DIR=DIR reads" "$P/bin/rulegen" check-axioms --help
expect 0 "2 rules: 2 verified" "$P/bin/rulegen" prove two.rules -N --timeout-ms 3000 -j 2
model=$src/tests/regress/optimize/merge_matmuls.onnx
expect 0 "total:" "$P/bin/graphopt" cost "$model"
expect 0 "cost model roofline ($P/bin/../share/rulegen/machines/gpu-h100.txt)" "$P/bin/graphopt" cost "$model" --machine gpu-h100
expect 0 "from the default set ($P/bin/../share/rulegen/rules/default.db); proved by the signed database" \
  "$P/bin/graphopt" "$src/tests/regress/optimize/fire.onnx" -o fire.opt.onnx -q
mv "$P/share/rulegen" "$P/share/away"
expect 2 "tried $P/bin/../share/rulegen/axioms.rules (not found)" "$P/bin/rulegen" prove two.rules -N
lacks "$src/"; lacks "$build/"
has "missing data names the variable" RULEGEN_DATA_DIR
expect 2 "tried $P/bin/../share/rulegen/machines/cpu-default.txt (not found)" "$P/bin/graphopt" cost "$model"
lacks "$src/"; lacks "$build/"
expect 0 "2 rules: 2 verified" env RULEGEN_DATA_DIR="$P/share/away" "$P/bin/rulegen" prove two.rules -N -j 2
expect 2 "from RULEGEN_DATA_DIR=$tmp/none" env RULEGEN_DATA_DIR="$tmp/none" "$P/bin/rulegen" prove two.rules -N
mv "$P/share/away" "$P/share/rulegen"
mv "$P/bin/rulegen-z3" "$P/z3-away" # and the helpers: the ones next to rulegen
expect 0 "z3 not found: cannot find the z3 helper program rulegen-z3 (tried $P/bin/rulegen-z3 (not found))" \
  "$P/bin/rulegen" --version
lacks "$build/"
expect 0 "2 rules: 2 verified" env RG_Z3_HELPER="$P/z3-away" "$P/bin/rulegen" prove two.rules -N -j 2
mv "$P/z3-away" "$P/bin/rulegen-z3"

# Rule databases: a tiny synthesis run, and TASO's rules imported; both signed.
expect 0 "wrote k.key" "$P/bin/rulesdb" keygen -o k
expect 0 "output       1 rules in x.db (signed)" "$P/bin/rulegen" --ops ewadd --depth 1 -q -o x.db --key k.key -j 2
expect 0 "wrote taso.db: 129 rules" "$P/bin/rulesdb" import --format taso "$src/tests/regress/anchors/taso-graph_subst.pb" -o taso.db --key k.key

cat >count.c <<'EOF'
/* Reads a signed rule database through rulegen's installed rulesdb/ and prints its rule count. */
#include <stdio.h>

#include <rulesdb/rulesdb.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: count DB PUBKEY\n");
    return 2;
  }
  rg_db *db = NULL;
  rg_err err = {0};
  if (rg_db_open_keyed(argv[1], argv[2], 0, &db, NULL, &err)) {
    fprintf(stderr, "count: %s\n", err.msg);
    return 1;
  }
  printf("%zu rules\n", db->rules.n);
  rg_db_free(db);
  return 0;
}
EOF
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$pc")
expect 0 "-I$P/lib/pkgconfig/../../include/rulegen" pkg-config --cflags rulegen
# shellcheck disable=SC2046 # pkg-config's flags are words
expect 0 "" cc -o count_pc count.c $(pkg-config --cflags --libs rulegen)
expect 0 "1 rules" ./count_pc x.db k.pub
expect 0 "129 rules" ./count_pc taso.db k.pub
expect 0 "" "$P/bin/rulesdb" keygen -o other
expect 1 "signed with another key" ./count_pc taso.db other.pub
mkdir consumer && cp count.c consumer/
cat >consumer/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(count C)
find_package(rulegen 0.1 REQUIRED)
add_executable(count count.c)
target_link_libraries(count PRIVATE rulegen::rulesdb)
EOF
expect 0 "" cmake -S consumer -B consumer/build -DCMAKE_PREFIX_PATH="$P" -DCMAKE_BUILD_TYPE=Release
expect 0 "" cmake --build consumer/build
expect 0 "129 rules" consumer/build/count taso.db k.pub
expect 0 "1 rules" consumer/build/count x.db k.pub

finish
