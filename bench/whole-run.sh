#!/usr/bin/env bash
# The whole rulegen run, longer than a working session (depth 4 takes hours), started and resumed
# with the same command, and its figures read back (bench/README.md, "The whole run").
#
#   bench/whole-run.sh start DIR RULEGEN [rulegen options...]   start it, or resume it where it
#       stopped: `RULEGEN OPTIONS -o DIR/out.rules` under nice 10 and /usr/bin/time -v, detached
#       (the shell that started it may end), its messages appended to DIR/run.err, its resident
#       memory sampled every 20 s into DIR/rss.log. The options are kept in DIR/command, so
#       `bench/whole-run.sh start DIR` with no more arguments resumes the same run.
#   bench/whole-run.sh stop DIR      Ctrl-C for it: the work so far is kept for the next start.
#   bench/whole-run.sh report DIR    where it stands: running or not, its program and version,
#       each start and stop, the last progress line, the stage table once it has ended, the
#       sampled RSS peak and /usr/bin/time's maximum of each start.
set -eu
usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 2 ] || usage
what=$1 dir=$2
shift 2
[ "$what" = start ] && mkdir -p -- "$dir"
[ -d "$dir" ] || { echo "whole-run: no run in $dir (no such folder)" >&2; exit 2; }
dir=$(cd -- "$dir" && pwd)
# The run's pid, kept in DIR/pid, while that process is still this run (its command line names
# DIR/out.rules): folder names are compared as they are, never as patterns.
pid_of() {
  local p
  p=$(cat "$dir/pid" 2>/dev/null) || return 0
  [ -n "$p" ] && kill -0 "$p" 2>/dev/null && tr '\0' '\n' <"/proc/$p/cmdline" 2>/dev/null | grep -qxF "$dir/out.rules" &&
    echo "$p"
  return 0
}

start() {
  if [ $# -ge 1 ]; then
    command -v "$1" >/dev/null || { echo "whole-run: no program $1" >&2; exit 2; }
    readlink -f "$(command -v "$1")" >"$dir/rulegen"
    shift
    : >"$dir/command"
    [ $# -eq 0 ] || printf '%s\n' "$@" >"$dir/command"
  fi
  [ -s "$dir/rulegen" ] || { echo "whole-run: $dir has no run to resume: give RULEGEN and its options" >&2; exit 2; }
  # A new machine keeps the run's folder only if /work was kept; the program may be gone.
  [ -x "$(cat "$dir/rulegen")" ] || {
    echo "whole-run: the run's program $(cat "$dir/rulegen") is gone: build and install it there again (the same commit), or give RULEGEN and its options" >&2
    exit 2
  }
  [ -z "$(pid_of)" ] || { echo "whole-run: already running in $dir (pid $(pid_of))" >&2; exit 1; }
  local args=()
  mapfile -t args <"$dir/command"
  echo "=== start $(date -u '+%F %T') UTC: $(cat "$dir/rulegen") ${args[*]} -o $dir/out.rules" >>"$dir/run.err"
  setsid nohup nice -n 10 /usr/bin/time -v "$(cat "$dir/rulegen")" "${args[@]}" -o "$dir/out.rules" \
    >>"$dir/run.out" 2>>"$dir/run.err" </dev/null &
  local timer=$! p=
  sleep 1
  # rulegen: below setsid, nohup, nice and /usr/bin/time, each of which may have forked
  local q=$timer exe
  exe=$(cat "$dir/rulegen")
  for _ in 1 2 3 4 5; do
    [ "$(readlink -f "/proc/$q/exe" 2>/dev/null)" = "$exe" ] && p=$q && break
    q=$(pgrep -P "$q" | head -1 || true)
    [ -n "$q" ] || break
  done
  [ -n "$p" ] && echo "$p" >"$dir/pid"
  # setsid gives the run a session, and so an autogroup, of its own: the kernel shares the CPU
  # between autogroups by their own nice, not their processes', so nice 10 alone left the run
  # half the machine against an interactive shell's work. Its autogroup takes nice 10 too.
  [ -n "$p" ] && { echo 10 >"/proc/$p/autogroup"; } 2>/dev/null || true
  if [ -z "$(pid_of)" ]; then
    if tail -1 "$dir/run.err" | grep -q 'Exit status: 0'; then echo "whole-run: it ended already (nothing left to do)"; exit 0; fi
    echo "whole-run: it did not start, or ended at once; see $dir/run.err" >&2
    tail -5 "$dir/run.err" >&2
    exit 1
  fi
  # The sampler ends with the run; the folder is an argument, never spliced into the script.
  setsid nohup sh -c 'while kill -0 "$1" 2>/dev/null; do
      echo "$(date -u +%FT%T) $(awk "/VmRSS/{print \$2}" "/proc/$1/status" 2>/dev/null) KB" >>"$2"
      sleep 20; done' sampler "$p" "$dir/rss.log" >/dev/null 2>&1 </dev/null &
  echo "whole-run: running in $dir (pid $p); 'bench/whole-run.sh report $dir' says where it stands"
}

report() {
  [ -s "$dir/run.err" ] || { echo "whole-run: no run in $dir (no run.err)" >&2; exit 2; }
  local p
  p=$(pid_of)
  [ -n "$p" ] && echo "running: pid $p" || echo "not running"
  if [ -s "$dir/rulegen" ]; then
    local exe
    exe=$(cat "$dir/rulegen")
    [ -x "$exe" ] && echo "program: $exe ($("$exe" --version 2>/dev/null | head -1))" || echo "program: $exe (gone)"
  fi
  grep -E '^=== start|^rulegen: interrupted|Elapsed \(wall|Maximum resident|Exit status' "$dir/run.err" || true
  echo "last progress: $(grep -E '^[a-z ,]+: [0-9]+/[0-9]+ ' "$dir/run.err" | tail -1)"
  [ -s "$dir/rss.log" ] && echo "sampled RSS peak: $(sort -k2 -n "$dir/rss.log" | tail -1)"
  # The table rulegen prints as it ends (its rows start with a stage's name, its notes with
  # spaces), from the last start that ran to its end (/usr/bin/time's exit status follows it).
  awk '/^=== start/{t=""} /^(enumerate|fingerprint|test|renaming|generalize|prune|prove|derivability|output|total) /||/^      /{t=t $0 "\n"}
       /Exit status/{last=t} END{if (last != "") printf "stage table of the last start that ended:\n%s", last}' \
    "$dir/run.err"
}

case $what in
start) start "$@" ;;
stop)
  [ -s "$dir/rulegen" ] || { echo "whole-run: no run in $dir" >&2; exit 2; }
  p=$(pid_of)
  [ -n "$p" ] || { echo "whole-run: nothing running in $dir" >&2; exit 1; }
  kill -INT "$p"
  while kill -0 "$p" 2>/dev/null; do sleep 1; done
  echo "whole-run: stopped; 'bench/whole-run.sh start $dir' resumes it" ;;
report) report ;;
*) usage ;;
esac
