#!/usr/bin/env bash
# `PROG help CMD` prints what `PROG CMD --help` prints, for every command each program lists;
# `PROG help` alone the program's usage; `PROG help NOPE` an error naming NOPE, exit status 2.
# Usage: run_cli_help.sh DIR PROGRAM... (DIR: this directory, for check.sh)
set -u
dir=$1
shift
. "$dir/check.sh"
# The commands a program's usage lists: the lines under "commands:" that start with a name.
commands() { "$1" help | sed -n '/^commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p'; }
for prog in "$@"; do
  name=$(basename "$prog")
  check "$name help" 0 "$prog" help
  has "$name help: usage" "usage: $name COMMAND"
  has "$name help: how to get a command's help" "'$name help COMMAND'"
  cmds=$(commands "$prog")
  check "$name lists commands" 0 test -n "$cmds"
  for c in $cmds; do
    check "$name help $c is $name $c --help" 0 cmp -s <("$prog" help "$c" 2>&1) <("$prog" "$c" --help 2>&1)
    check "$name help $c" 0 "$prog" help "$c"
    has "$name help $c: its usage" "usage: $name"
  done
  check "$name help of an unknown command" 2 "$prog" help no-such-command
  has "$name help no-such-command: names it" "unknown command 'no-such-command'"
done
finish
