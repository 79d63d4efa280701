#!/usr/bin/env bash
# The man pages and bash completion scripts the build makes (tools/CMakeLists.txt): each page
# renders without a warning and names every option of every command (as the command's --help
# lists them); each completion script, sourced, completes the program's commands and every
# command's options.
# Usage: run_cli_docs.sh DIR BUILD_DIR PROGRAM... (DIR: this directory; BUILD_DIR holds man/ and
# completions/)
set -u
dir=$1 build=$2
shift 2
. "$dir/check.sh"
commands() { "$1" help | sed -n '/^commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p'; }
# The long options a command's --help lists (synth's operator choices too).
options() { "$1" "$2" --help | sed -n 's/^  \(-[A-Za-z0-9], \|    \)--\([a-z0-9-]*\).*/\2/p'; }
# What the completion function _PROG offers for the words given (the last is being completed).
complete_words() {
  local prog=$1
  shift
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  "_$(basename "$prog")"
  printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
}
for prog in "$@"; do
  name=$(basename "$prog")
  page=$build/man/$name.1
  check "$name.1 renders" 0 groff -man -Tutf8 -ww -z "$page"
  n=$((n + 1)); warn=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
  [ -z "$warn" ] || { echo "FAIL $name.1: groff warns: $warn"; fail=$((fail + 1)); }
  text=$(groff -man -Tascii -P-cbou "$page" 2>/dev/null)
  # shellcheck disable=SC1090 # the script under test
  . "$build/completions/$name"
  cmds=$(commands "$prog")
  want=$(printf '%s\n' $cmds help | sort | tr '\n' ' ')
  check "$name: completes every command" 0 test "$(complete_words "$name" "$name" '')" = "$want"
  for c in $cmds; do
    out=$text
    has "$name.1 has $name $c" "$name $c"
    offered=" $(complete_words "$name" "$name" "$c" --) "
    for o in $(options "$prog" "$c"); do
      out=$text
      has "$name.1 names $c --$o" "--$o"
      n=$((n + 1))
      [[ $offered == *" --$o "* ]] || { echo "FAIL $name $c --: does not offer --$o"; fail=$((fail + 1)); }
    done
  done
done
# The cases the issue names, and a few more.
if [ -f "$build/completions/rulegen" ]; then
  check "rulegen pr" 0 test "$(complete_words rulegen rulegen pr)" = "prove prune "
  check "rulegen prove --ti" 0 test "$(complete_words rulegen rulegen prove --ti)" = "--timeout-ms "
  check "rulegen help ev" 0 test "$(complete_words rulegen rulegen help ev)" = "eval "
  check "rulegen --conv-a (synth, the default command)" 0 test "$(complete_words rulegen rulegen --conv-a)" = "--conv-act "
  check "rulegen prove -j 2 --no-check-a" 0 test "$(complete_words rulegen rulegen prove -j 2 --no-check-a)" = "--no-check-axioms "
fi
if [ -f "$build/completions/graphopt" ]; then
  check "graphopt --ru (optimize, the default command)" 0 test "$(complete_words graphopt graphopt --ru)" = "--rules "
fi
finish
