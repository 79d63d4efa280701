#!/usr/bin/env bash
# scripts/ruleset-regress.sh: fails a CI job when a regenerated rule set lost a rule or a proof
# that its signed reference had (README.md, "Guarding a rule set in CI"). Copy it; it needs only
# bash, head and the rulesdb program.
set -u

usage() {
  cat <<'EOF'
usage: ruleset-regress.sh [--new-pub NEW.pub] REF.db REF.pub NEW

Checks a regenerated rule set NEW against its signed reference REF.db. REF.db must verify
with REF.pub: an unsigned or tampered reference, or one signed with another key, is refused.
NEW is what the job regenerated:
  a database (rulegen ... -o NEW.db --key K.key), verified with --new-pub K.pub (default:
    REF.pub); or
  rule text (rulegen ... -o NEW.rules), imported here into a temporary database.
Printed with its id and text, each thing NEW lost:
  LOST rule   a rule of REF, whatever its status, that NEW neither has nor names in a
              pruning record (as derivable from, or a renaming of, kept rules);
  LOST proof  a rule NEW has at a lower status (verified > certified > tested > unproved).
Rule text has no statuses and no pruning records: for it, a rule REF ships (verified, not
pruned in REF) that the text lacks is lost, and proofs are not compared.
Rules NEW adds are not a failure. The rulesdb program used is $RULESDB, else rulesdb on PATH.

Exit status: 0 nothing lost, 1 something lost, 2 bad input (a missing or unreadable file, a
reference or NEW.db that does not verify with its key, rule text that does not parse).
EOF
}

die() { echo "ruleset-regress: $*" >&2; exit 2; }

new_pub=
while [ $# -gt 0 ]; do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --new-pub) [ $# -ge 2 ] || die "--new-pub needs a file (see --help)"; new_pub=$2; shift 2 ;;
    --new-pub=*) new_pub=${1#--new-pub=}; shift ;;
    --) shift; break ;;
    -*) usage >&2; die "unknown option '$1'" ;;
    *) break ;;
  esac
done
[ $# -eq 3 ] || { usage >&2; die "give REF.db REF.pub NEW (see --help)"; }
ref=$1 pub=$2 new=$3
for f in "$ref" "$pub" "$new" ${new_pub:+"$new_pub"}; do
  [ -e "$f" ] || die "$f: no such file"
  [ -f "$f" ] && [ -r "$f" ] || die "$f: not a readable file"
done
rulesdb=${RULESDB:-rulesdb}
command -v "$rulesdb" >/dev/null 2>&1 || die "no rulesdb program ('$rulesdb'): put it on PATH or set RULESDB"
tmp=$(mktemp -d) || die "cannot make a temporary folder"
trap 'rm -rf "$tmp"' EXIT

# The reference first, so a forged one is named as such, never diffed.
if ! "$rulesdb" verify "$ref" --pub "$pub" >"$tmp/verify.log" 2>&1; then
  cat "$tmp/verify.log" >&2
  die "the reference $ref does not verify with $pub: refusing to compare against it"
fi

if [ "$(head -c 15 "$new" | tr -d '\0')" = "SQLite format 3" ] || [ "${new%.db}" != "$new" ]; then
  mode=--lost kept="every rule and proof of $ref is kept"
  hint=": $new must be readable and verify with ${new_pub:-$pub} (sign what the job regenerates:"
  hint+=" rulesdb keygen -o ci; rulegen ... -o $new --key ci.key; then give --new-pub ci.pub)"
else
  mode=--lost-text new_pub=$tmp/import.pub kept="every rule $ref ships is in $new (statuses not compared)"
  "$rulesdb" keygen -o "$tmp/import" >/dev/null 2>"$tmp/import.log" &&
    "$rulesdb" import --format text "$new" -o "$tmp/new.db" --key "$tmp/import.key" >>"$tmp/import.log" 2>&1 ||
    { cat "$tmp/import.log" >&2; die "$new: cannot read it as rule text (nor is it a rule database)"; }
  new=$tmp/new.db
fi

"$rulesdb" diff "$ref" "$new" --pub "$pub" ${new_pub:+--new-pub "$new_pub"} "$mode"
rc=$?
case $rc in
  0) echo "ruleset-regress: nothing lost: $kept" ;;
  1) echo "ruleset-regress: the regenerated set lost what $ref had (listed above)" ;;
  *) die "cannot compare $ref with $3 (rulesdb diff: exit status $rc)${hint:-}" ;;
esac
exit "$rc"
