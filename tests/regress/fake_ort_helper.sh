#!/usr/bin/env bash
# A fake onnxruntime helper for graphopt's tests (RG_ORT_HELPER=this): it speaks
# models/ort_cost_server.js's framing with made-up figures, or fails the way $FAKE_ORT says:
#   ok (default)  version "onnxruntime-node 0.0.0-fake"; a model of B bytes takes 20 + B/100 us;
#                 a comparison's pairs: the original 100 us, the other $FAKE_ORT_B us (default 120)
#   crash-start   exits at once with status 3 and a line on stderr
#   kill          answers its version, then kills itself (SIGKILL) at the first timing
#   hang          answers its version, then never answers (until killed)
#   garbage       answers its version, then writes a line that is no reply frame
#   refuse        answers its version, then "error load ..." to every timing (onnxruntime says no)
#   refuse-b      times single models, but refuses a comparison's second model (the optimized one)
# With $FAKE_ORT_LOG set, each command's JSON line is appended there.
export LC_ALL=C
mode=${FAKE_ORT:-ok}
if [ "$mode" = crash-start ]; then
  echo "fake helper: cannot load onnxruntime-node" >&2
  exit 3
fi
reply() { printf 'rg-ort-reply %010d %010d\n%s' "$1" "${#2}" "$2"; }
while IFS= read -r -N 39 head; do
  seq=$((10#${head:15:10})) len=$((10#${head:26:12}))
  IFS= read -r cmd # the JSON line; the models' bytes follow
  [ -n "${FAKE_ORT_LOG:-}" ] && printf '%s\n' "$cmd" >>"$FAKE_ORT_LOG"
  rest=$((len - ${#cmd} - 1))
  [ "$rest" -gt 0 ] && dd bs=65536 iflag=count_bytes,fullblock count="$rest" of=/dev/null status=none
  case $cmd in
    *'"version"'*) reply "$seq" "ok onnxruntime-node 0.0.0-fake node v0" ;;
    *)
      case $mode in
        kill) kill -9 $$ ;;
        hang) exec sleep 600 ;;
        garbage) echo "hello from a broken helper" ;;
        refuse) reply "$seq" "error load fake: this model is refused" ;;
        refuse-b) [[ $cmd == *'"pair"'* ]] && reply "$seq" "error load model b: fake: this model is refused" ||
          reply "$seq" "ok $((20 + rest / 100)) 10" ;;
        *)
          if [[ $cmd == *'"pair"'* ]]; then
            [[ $cmd =~ \"min_pairs\":\ ([0-9]+) ]] && n=${BASH_REMATCH[1]}
            text="ok $n"$'\n'
            for ((i = 0; i < n; i++)); do text+="100 ${FAKE_ORT_B:-120}"$'\n'; done
            reply "$seq" "$text"
          else
            reply "$seq" "ok $((20 + rest / 100)) 10"
          fi
          ;;
      esac
      ;;
  esac
done
