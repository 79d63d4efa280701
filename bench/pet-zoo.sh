#!/usr/bin/env bash
# bench/pet-zoo.sh: graphopt's PET rewrites (`--pet`) over zoo models, one table per cost setting.
# For each cost setting and each model, runs
#   graphopt optimize MODEL -o OUT --pet --certs CERTS --json J -q SETTING
# and the same command without --pet (the baseline), with the default rules and search (the
# guard as each setting has it by default: on with this CPU's costs, off with another
# --machine). From the JSON reports: PET's candidates, certified and refused by kind, the PET
# rewrites in the optimized model (its "applied"), cost before -> after with and without --pet,
# the guard's verdict and ratio where it measured, wall times; then `rulegen certify check
# NAME.cert NAME.rules` on every certificate written (valid / total; the target is all). A
# model whose run fails is a failed row; the script goes on. Run it on an otherwise idle machine
# if you can: dnnl, ort and the guard are timings (dnnl's and ort's go to their cache on first
# use).
# Usage: bench/pet-zoo.sh [-c 'SETTING']... OUT [MODEL.onnx...]
#   SETTING: graphopt's cost options, one -c each (default: '--cost roofline', '--cost dnnl',
#   '--cost roofline --machine gpu-h100'; '--cost ort' is slow: small models only).
#   MODEL: ONNX files (default: the ten zoo models in $ZOO, default OUT/zoo, made with
#   models/zoo.py when missing).
#   Environment: GRAPHOPT, RULEGEN (default build/tools/...), PET_TIMEOUT seconds per run
#   (default 1800), PET_TABLES_ONLY=1 to print the tables again from what OUT holds (a run
#   stopped part way: its models done) without running anything.
# e.g. bench/pet-zoo.sh build/bench-pet /tmp/zoo/*.onnx
#      bench/pet-zoo.sh -c '--cost ort' build/bench-pet-ort /tmp/zoo/{squeezenet,nasrnn,bert2}.onnx
# OUT gets SETTING/MODEL/{base,pet}.{json,log,onnx}, SETTING/MODEL/certs/, SETTING/MODEL/audit.log,
# and tables.md (the tables, also printed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: bench/pet-zoo.sh [-c 'SETTING']... OUT [MODEL.onnx...]"
graphopt=${GRAPHOPT:-$root/build/tools/graphopt}
rulegen=${RULEGEN:-$root/build/tools/rulegen}
limit=${PET_TIMEOUT:-1800}
settings=()
while getopts "c:h" opt; do
  case $opt in
    c) settings+=("$OPTARG") ;;
    h) echo "$usage"; exit 0 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
out=${1:?$usage}
shift
[ ${#settings[@]} -gt 0 ] || settings=("--cost roofline" "--cost dnnl" "--cost roofline --machine gpu-h100")
if [ ! -x "$graphopt" ] || [ ! -x "$rulegen" ]; then
  echo "pet-zoo: $graphopt or $rulegen missing: build first" >&2
  exit 2
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
  zoo=${ZOO:-$out/zoo}
  for m in bert bert2 inception_v3 mobilenet_v2 nasnet_a nasrnn resnet50 resnext50 squeezenet vgg19; do
    [ -f "$zoo/$m.onnx" ] || [ -n "${PET_TABLES_ONLY:-}" ] || /usr/bin/python3 "$root/models/zoo.py" "$zoo" --only "$m" >/dev/null
    models+=("$zoo/$m.onnx")
  done
fi

now() { date +%s.%N; }

# run LOG CMD...: CMD under the time limit, its stderr to LOG; prints "RC WALL".
run() {
  local log=$1 t0 t1 rc=0
  shift
  t0=$(now)
  timeout --signal=INT --kill-after=30 "$limit" "$@" >"$log" 2>&1 </dev/null || rc=$?
  t1=$(now)
  echo "$rc $(echo "$t1 - $t0" | bc)"
}

# row MODEL DIR BASE_RC BASE_WALL PET_RC PET_WALL VALID TOTAL: one table row (and refusals to DIR/refused.txt).
row() {
  /usr/bin/python3 - "$@" <<'EOF'
import json, os, sys
model, d, brc, bwall, prc, pwall, valid, total = sys.argv[1:9]
def load(name):
    try:
        with open(os.path.join(d, name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None
def last_line(name):
    try:
        lines = [l.strip() for l in open(os.path.join(d, name), errors="replace") if l.strip()]
        return lines[-1][:160].replace("|", "/") if lines else "no output"
    except OSError:
        return "no log"
def cost(j):
    if j is None:
        return "-"
    b, a = j["cost_before"], j["cost_after"]
    return "%.6g -> %.6g (%.3fx)" % (b, a, b / a if a else 0)
def guard(j):
    g = j and j.get("guard")
    if j is None:
        return "-"
    if not g or not g.get("measured"):
        return "not measured"
    return "%.3f (%.3f, %.3f), %s" % (g["ratio"], g["ratio_low"], g["ratio_high"], g["written"])
def timed(name):
    try:
        for l in open(os.path.join(d, name), errors="replace"):
            if l.startswith("costs: ") and "configurations timed" in l:
                return l.split()[1]
    except OSError:
        pass
    return None
def bykind(counts):
    tot = sum(counts.values())
    parts = ["%s %d" % (k, v) for k, v in counts.items() if v]
    return "%d" % tot + (" (" + ", ".join(parts) + ")" if parts else "")
b, p = load("base.json"), load("pet.json")
fail = []
if brc != "0" or b is None:
    fail.append("baseline rc %s: %s" % (brc, last_line("base.log")))
if prc != "0" or p is None:
    fail.append("--pet rc %s: %s" % (prc, last_line("pet.log")))
tb, tp = timed("base.log"), timed("pet.log")
tnote = "; timed %s / %s" % (tb or "-", tp or "-") if tb or tp else ""
cells = [model]
if p is not None and "pet" in p:
    pet = p["pet"]
    rws = pet.get("rewrites", [])
    applied = sum(r.get("applied", 0) for r in rws)
    cells += [bykind(pet["candidates"]), bykind(pet["certified"]), bykind(pet["refused"]),
              "%d%s" % (applied, " (of %d places)" % sum(r.get("places", 0) for r in rws) if rws else "")]
    with open(os.path.join(d, "refused.txt"), "w") as f:
        for r in rws:
            if r.get("refused"):
                f.write("%s: %s at %s: %s\n" % (model, r["kind"], r["shapes"], r["refused"]))
    cells += [cost(b), cost(p), guard(b), guard(p),
              "%.1f / %.1f (certify %.2f%s)" % (float(bwall), float(pwall), pet.get("seconds", 0), tnote)]
else:
    cells += ["-"] * 4 + [cost(b), "-", guard(b), "-", "%.1f / %.1f%s" % (float(bwall), float(pwall), tnote)]
cells.append("%s / %s" % (valid, total))
if fail:
    cells[0] = "%s **FAILED** (%s)" % (model, "; ".join(fail))
print("| " + " | ".join(cells) + " |")
EOF
}

header="| model | PET candidates | certified | refused | PET rewrites in the optimized model | cost without --pet | cost with --pet | guard without --pet: ratio (low, high), written | guard with --pet | wall s: without / with --pet (configurations timed) | certificates valid / total |
|---|---|---|---|---|---|---|---|---|---|---|"
tables=$out/tables.md
: >"$tables"
for setting in "${settings[@]}"; do
  slug=$(echo "$setting" | sed 's/--cost //; s/--machine //; s/--//g; s/[^A-Za-z0-9_.]\+/-/g; s/^-*//; s/-*$//')
  rows=$out/$slug/rows.md
  mkdir -p "$out/$slug"
  : >"$rows"
  [ -n "${PET_TABLES_ONLY:-}" ] ||
    echo "pet-zoo: graphopt optimize $setting: ${#models[@]} models ($(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  for model in "${models[@]}"; do
    m=$(basename "$model" .onnx)
    d=$out/$slug/$m
    if [ -n "${PET_TABLES_ONLY:-}" ]; then
      if [ -f "$d/result" ]; then
        # shellcheck disable=SC2046 # the saved fields
        row "$m" "$d" $(cat "$d/result") >>"$rows" || echo "| $m **FAILED** (report unreadable) | | | | | | | | | | |" >>"$rows"
      fi
      continue
    fi
    rm -rf "$d"
    mkdir -p "$d"
    # shellcheck disable=SC2086 # SETTING is a list of options
    read -r brc bwall < <(run "$d/base.log" "$graphopt" optimize "$model" -o "$d/base.onnx" --json "$d/base.json" -q $setting)
    # shellcheck disable=SC2086
    read -r prc pwall < <(run "$d/pet.log" "$graphopt" optimize "$model" -o "$d/pet.onnx" --pet --certs "$d/certs" --json "$d/pet.json" -q $setting)
    valid=0 total=0
    : >"$d/audit.log"
    for cert in "$d"/certs/*.cert; do
      [ -e "$cert" ] || continue
      total=$((total + 1))
      arc=0
      said=$("$rulegen" certify check "$cert" "${cert%.cert}.rules" 2>&1) || arc=$?
      printf '%s\n' "$said" >>"$d/audit.log"
      if [ "$arc" = 0 ] && grep -qF "$cert: VALID" <<<"$said"; then
        valid=$((valid + 1))
      else
        echo "pet-zoo: $slug/$m: certify check $(basename "$cert") did not say VALID (see $d/audit.log)" >&2
      fi
    done
    echo "$brc $bwall $prc $pwall $valid $total" >"$d/result"
    row "$m" "$d" "$brc" "$bwall" "$prc" "$pwall" "$valid" "$total" >>"$rows" ||
      echo "| $m **FAILED** (report unreadable) | | | | | | | | | | $valid / $total |" >>"$rows"
    printf 'pet-zoo: %s/%s: baseline rc %s %.1f s, --pet rc %s %.1f s, certificates %s / %s (%s UTC)\n' \
      "$slug" "$m" "$brc" "$bwall" "$prc" "$pwall" "$valid" "$total" "$(date -u +%H:%M:%S)" >&2
  done
  {
    if [ -n "${PET_TABLES_ONLY:-}" ]; then
      echo "### graphopt optimize $setting"
    else
      echo "### graphopt optimize $setting ($("$graphopt" --version | head -1); load $(cut -d' ' -f1-3 /proc/loadavg) at the end)"
    fi
    echo
    echo "$header"
    cat "$rows"
    if cat "$out/$slug"/*/refused.txt 2>/dev/null | grep -q .; then
      echo
      echo "Refused:"
      cat "$out/$slug"/*/refused.txt | sed 's/^/- /'
    fi
    echo
  } | tee -a "$tables"
done
