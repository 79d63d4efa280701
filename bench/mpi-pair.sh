#!/usr/bin/env bash
# One rulegen run as one process with two threads, then as `mpirun -np 2` with one thread a
# rank, side by side in fresh folders (bench/README.md, "Across machines"):
#
#   bench/mpi-pair.sh DIR RULEGEN [rulegen options...]
#
# runs `RULEGEN OPTIONS -j 2 -o DIR/one/out.rules` and `mpirun -np 2 RULEGEN OPTIONS -j 1 -o
# DIR/mpi/out.rules`, each under /usr/bin/time with --json, each with a proof cache of its own
# (DIR/*/pc: neither takes the other's answers), checks that they wrote the same outputs and
# candidates byte for byte, and prints per stage the two times, then each rank's share (units, test groups,
# generalize chunks, derivability's searches, proof chunks, busy seconds, peak RSS) and the bytes the ranks exchanged.
# Run it on an idle machine: the figures are one run each.
set -eu
[ $# -ge 2 ] || { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
dir=$1 rulegen=$(readlink -f "$2")
shift 2
command -v mpirun >/dev/null || { echo "mpi-pair: no mpirun (Debian's openmpi-bin)" >&2; exit 2; }
[ -x "$rulegen" ] || { echo "mpi-pair: no program $rulegen" >&2; exit 2; }
[ ! -e "$dir" ] || { echo "mpi-pair: $dir exists: give a fresh folder" >&2; exit 2; }
mkdir -p "$dir/one" "$dir/mpi"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run() { # NAME THREADS [LAUNCHER...]: the run in DIR/NAME, its wall time and peak RSS in NAME/time
  local name=$1 threads=$2
  shift 2
  (cd "$dir/$name" && /usr/bin/time -o time -f "%e %M" "$@" "$rulegen" "${opts[@]}" -j "$threads" -q \
    --proof-cache pc --json out.json -o out.rules 2>err) ||
    { echo "mpi-pair: the $name run failed (status $?): $dir/$name/err" >&2; exit 1; }
}
opts=("$@")
run one 2
run mpi 1 mpirun -np 2
same=yes
# the outputs and the saved candidates (the checkpoints hold their stages' times)
for f in out.rules out.rules.removed out.rules.unproved out.rules.candidates; do
  [ -e "$dir/one/$f" ] || [ -e "$dir/mpi/$f" ] || continue
  cmp -s "$dir/one/$f" "$dir/mpi/$f" || { same=no; echo "mpi-pair: $f differs" >&2; }
done
/usr/bin/python3 - "$dir" "$same" <<'EOF'
import json, sys
d, same = sys.argv[1], sys.argv[2]
one, mpi = (json.load(open(f"{d}/{n}/out.json")) for n in ("one", "mpi"))
t = {n: open(f"{d}/{n}/time").read().split()[-2:] for n in ("one", "mpi")}
print(f"{'stage':<22}{'one -j 2 (s)':>14}{'mpirun -np 2 (s)':>18}")
for a, b in zip(one["stages"], mpi["stages"]):
    print(f"{a['stage']:<22}{a['seconds']:>14.2f}{b['seconds']:>18.2f}")
w1, wm = float(t["one"][0]), float(t["mpi"][0])
print(f"{'wall':<22}{w1:>14.1f}{wm:>18.1f}   ratio {w1 / wm:.2f}x (above 1: mpirun faster)")
print(f"peak RSS: one process {int(t['one'][1]) // 1024} MB; mpirun's largest process {int(t['mpi'][1]) // 1024} MB")
keys = ["units", "enumerate_busy_s", "test_groups", "test_busy_s", "generalize_chunks",
        "generalize_busy_s", "derive_searches", "derive_busy_s", "chunks", "busy_s", "peak_rss_kb"]
for r in mpi["ranks"]:
    print(f"rank {r['rank']}: " + ", ".join(f"{k} {r.get(k)}" for k in keys))
# the stage table's running totals, one line where each spread stage ends
for line in open(f"{d}/mpi/err"):
    if "exchanged so far" in line:
        print("  " + line.strip())
print(f"exchanged: {mpi['exchanged_bytes'] / 1e6:.2f} MB; the same outputs: {same}")
EOF
[ "$same" = yes ]
