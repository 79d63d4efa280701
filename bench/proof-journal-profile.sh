#!/usr/bin/env bash
# Where a proof stage's solver time went, from the answers it journaled (a proof cache's
# answers-*.journal, or a run's OUT.proofs): per solver and answer, how many, their total and
# mean time, and the percentiles of the unsat times (what a shorter timeout would lose).
#   bench/proof-journal-profile.sh JOURNAL [TIMEOUT_MS]
# TIMEOUT_MS keeps only the answers given under that limit (a cache holds every run's).
set -euo pipefail
[ $# -ge 1 ] && [ -r "$1" ] || { echo "usage: $0 JOURNAL [TIMEOUT_MS]" >&2; exit 2; }
limit=${2:-}
# A journal line: SHA256 SOLVER RESULT TIMEOUT_MS MS MAC [CORE...]
awk -v limit="$limit" '
  /^#/ || NF < 6 { next }
  limit != "" && $4 != limit { next }
  { k = $2 " " $3; n[k]++; ms[k] += $5; all += $5 }
  END {
    for (k in n) printf "%-20s %9d %10.0f %9.1f %6.1f%%\n", k, n[k], ms[k] / 1000, ms[k] / n[k], 100 * ms[k] / all
    printf "~all %26.0f\n", all / 1000
  }' "$1" | sort -k1,1 -k2,2 | sed '1i solver answer          answers    total s   mean ms   share' | sed 's/^~all/all           /' 
awk -v limit="$limit" '!/^#/ && NF >= 6 && $3 == "unsat" && (limit == "" || $4 == limit) { print $2, $5 }' "$1" |
  sort -k1,1 -k2,2n |
  awk '{ v[$1] = v[$1] " " $2; n[$1]++ }
       END { for (s in v) { split(v[s], a, " "); m = n[s]
               printf "%s unsat ms: p50 %s, p90 %s, p99 %s, p99.9 %s, max %s\n", s,
                      a[int(m * .5) + 1], a[int(m * .9) + 1], a[int(m * .99) + 1], a[int(m * .999) + 1], a[m] } }'
