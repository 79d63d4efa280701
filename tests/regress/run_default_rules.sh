#!/usr/bin/env bash
# tests/regress/run_default_rules.sh GRAPHOPT RULESDB SOURCE DB (the build's unpacked default.db): graphopt without --rules applies the default
# set (the database the build unpacked from optimizer/optimize/rules/, checked with default.pub: optimizer/optimize/default_rules.h):
#   - `graphopt IN -o OUT` and `graphopt optimize IN -o OUT` merge fire.onnx's two expand convs
#     with it, say where the rules came from, and record it in --json;
#   - a default set whose database was altered, whose key is another, or which is missing, is
#     refused (exit 2) with a message naming the file and what to do, and nothing is written;
#     --pub names another key (and stands in for a missing default.pub);
#   - -o and --json never replace the default set's files or the default axioms.
set -u
graphopt=$1 rulesdb=$2
src=$(cd "$3" && pwd)
db=$4
. "$src/tests/regress/check.sh"
in_scratch
model=$src/tests/regress/optimize/fire.onnx

check "model first, no command" 0 "$graphopt" "$model" -o a.onnx -q
has "the default set's rules merged the convs" "conv2d 2 -> 1"
has "the report names the default set" "from the default set ($db); proved by the signed database"
check "optimize without --rules, --json" 0 "$graphopt" optimize "$model" -o b.onnx -q --json b.json
has "optimize merges too" "conv2d 2 -> 1"
check "--json names the default set" 0 grep -F "\"default_set\": \"$db\"" b.json
check "a word that names neither a command nor a file is still an unknown command" 2 "$graphopt" optimze "$model"
has "unknown command said" "unknown command 'optimze'"

# A data folder of its own (RULEGEN_DATA_DIR is the only place looked at when set); runs that only
# show which set was read search 2 iterations, not 15.
data() {
  rm -rf data && mkdir -p data/rules data/machines
  cp "$src/verify/axioms.rules" data/ && cp "$src/optimizer/cost/machines/"*.txt data/machines/
  cp "$db" "$src/optimizer/optimize/rules/default.pub" data/rules/
}
data
check "the copied default set" 0 env RULEGEN_DATA_DIR=data "$graphopt" "$model" -o c.onnx -q --iterations 2
has "read from RULEGEN_DATA_DIR" "from the default set (data/rules/default.db)"
/usr/bin/python3 - data/rules/default.db <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE rules SET text = replace(text, 'ewadd', 'ewmul') WHERE rowid = (SELECT min(rowid) FROM rules WHERE text LIKE '%ewadd%')")
db.commit()
PY
check "an altered default set is refused" 2 env RULEGEN_DATA_DIR=data "$graphopt" "$model" -o d.onnx -q
has "the refusal names the database" "data/rules/default.db"
check "nothing written" 1 test -e d.onnx
data
"$rulesdb" keygen -o other >/dev/null
cp other.pub data/rules/default.pub
check "another key is refused" 2 env RULEGEN_DATA_DIR=data "$graphopt" "$model" -o e.onnx -q
has "the refusal names the database" "data/rules/default.db"
has "and says what to do" "graphopt's default rule set, checked with data/rules/default.pub: reinstall graphopt, or name a rule set with --rules"
check "--pub names the right key instead" 0 env RULEGEN_DATA_DIR=data "$graphopt" "$model" -o e.onnx -q --iterations 2 --pub "$src/optimizer/optimize/rules/default.pub"
rm data/rules/default.pub
check "--pub stands in for a missing default.pub" 0 env RULEGEN_DATA_DIR=data "$graphopt" "$model" -o e.onnx -q --iterations 2 --pub "$src/optimizer/optimize/rules/default.pub"
check "a missing default.pub without --pub" 2 env RULEGEN_DATA_DIR=data "$graphopt" "$model" -o e.onnx -q
has "says so, and of --pub" "rules/default.pub (or give --pub KEY.pub)"
# the outputs never replace what the run reads: the default set's files and the default axioms
data
size=$(wc -c <data/rules/default.db)
for f in data/rules/default.db data/rules/default.pub data/axioms.rules; do
  check "-o $f is refused" 2 env RULEGEN_DATA_DIR=data "$graphopt" "$model" -o "$f" -q
  has "-o $f: said" "names a file this run reads"
  check "--json $f is refused" 2 env RULEGEN_DATA_DIR=data "$graphopt" "$model" -o g.onnx --json "$f" -q
done
check "the database is untouched" 0 test "$(wc -c <data/rules/default.db)" -eq "$size"
data
rm data/rules/default.db
check "a missing default set" 2 env RULEGEN_DATA_DIR=data "$graphopt" "$model" -o f.onnx -q
has "says what is missing" "the default rule set rules/default.db"
has "and how to go on" "--rules"
finish
