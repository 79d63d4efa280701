# bench/zoo_args.sh: the arguments the zoo benchmarks share, sourced by them as
#   . "$(dirname "$0")/zoo_args.sh" USAGE DEFAULT_OUT DEFAULT_RUNS "$@"
# which reads RULES [OUT [COST [RUNS [MODEL...]]]] into rules (RULES "default": graphopt's
# default set, no --rules), out, cost (default roofline;
# roofline:MACHINE names the roofline's machine: roofline:gpu-h100), runs and models (default:
# the whole zoo), builds the missing models into OUT/zoo, and sets root, graphopt, rule_args
# (--rules RULES, with --allow-unsigned for a .db; none for the default set) and cost_args
# (--cost and --machine for graphopt).
usage=$1 default_out=$2 default_runs=$3
shift 3
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rules=${1:?usage: $usage}
out=${2:-$default_out}
cost=${3:-roofline}
cost_args=(--cost "${cost%%:*}")
case $cost in *:*) cost_args+=(--machine "${cost#*:}") ;; esac
runs=${4:-$default_runs}
shift $(($# < 4 ? $# : 4))
models=("$@")
[ ${#models[@]} -eq 0 ] && models=(squeezenet resnet50 resnext50 inception_v3 mobilenet_v2 nasnet_a nasrnn vgg19 bert2 bert)
graphopt=$root/build/tools/graphopt
mkdir -p "$out"
for m in "${models[@]}"; do
  [ -f "$out/zoo/$m.onnx" ] || /usr/bin/python3 "$root/models/zoo.py" "$out/zoo" --only "$m" >/dev/null
done
rule_args=(--rules "$rules")
case $rules in
  default) rule_args=() ;;
  *.db) rule_args+=(--allow-unsigned) ;;
esac
