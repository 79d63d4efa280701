#!/usr/bin/python3
"""The numeric check where graphopt cannot evaluate the whole model (issue 41, item 6).

Models whose float regions of the rule vocabulary are read from and read by what graphopt's
evaluator does not run: com.microsoft operators (Gelu, FusedConv), an int32 path cast into a
float region, an If node whose branches read rewritten values, int64 ids it cannot draw for a
Gather. For each, `graphopt optimize --rules concat.rules` must rewrite the float regions, say that
it checked the rewritten regions alone ("regions only", also in the --json report), and write a
model that onnxruntime runs with the original's outputs (within 1e-4) on the same inputs. A
model graphopt evaluates whole still gets the whole-model check ("whole model + regions"). A
false rule applied with --unproved-rules is caught in regions-only mode: exit 1, nothing written,
the application whose region differs named.

    /usr/bin/python3 models/regions.py --graphopt build/tools/graphopt --work DIR --rules RULES
(RULES: tests/regress/optimize/concat.rules; the false rule: tests/regress/bad/relu_identity_false.rules)
"""
import json
import os
import re
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper

from passthrough import F, compare, init, model, ort, rules_test_args, run, vi

MS = (("", 17), ("com.microsoft", 1))
FALSE_RULE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "regress", "bad",
                          "relu_identity_false.rules")  # (relu ?x) => ?x


def weights(name, shape, seed):
    return init(name, np.random.default_rng(seed).uniform(-0.5, 0.5, shape), np.float32)


def convs_concat(src, prefix, nodes, inits, seed):
    """Two 3x3 convolutions of src (4 channels, 6 x 6) concatenated: concat.rules' conv-concat
    makes them one."""
    for k in (1, 2):
        inits.append(weights("%s_w%d" % (prefix, k), [3, 4, 3, 3], seed + k))
        nodes.append(helper.make_node("Conv", [src, "%s_w%d" % (prefix, k)], ["%s_c%d" % (prefix, k)],
                                      name="%s_conv%d" % (prefix, k), pads=[1, 1, 1, 1]))
    nodes.append(helper.make_node("Concat", [prefix + "_c1", prefix + "_c2"], [prefix + "_cat"], name=prefix + "_concat",
                                  axis=1))
    return prefix + "_cat"


def microsoft_case():
    """x -> Gelu -> two convs concatenated -> FusedConv (Relu) -> relus concatenated -> Gelu."""
    nodes, inits, inputs = [], [], [vi("x", F, [1, 4, 6, 6])]
    nodes.append(helper.make_node("Gelu", ["x"], ["g"], name="gelu_in", domain="com.microsoft"))
    cat = convs_concat("g", "a", nodes, inits, 10)
    inits += [weights("fw", [4, 6, 1, 1], 20), weights("fb", [4], 21)]
    nodes += [helper.make_node("FusedConv", [cat, "fw", "fb"], ["fc"], name="fused", domain="com.microsoft",
                               activation="Relu"),
              helper.make_node("Relu", ["fc"], ["r1"], name="relu1"),
              helper.make_node("Relu", ["g"], ["r2"], name="relu2"),
              helper.make_node("Concat", ["r1", "r2"], ["rr"], name="relus", axis=1),
              helper.make_node("Gelu", ["rr"], ["y"], name="gelu_out", domain="com.microsoft")]
    declared = [vi("g", F, [1, 4, 6, 6]), vi("fc", F, [1, 4, 6, 6])]
    return model("microsoft", nodes, inputs, [vi("y", F, [1, 8, 6, 6])], inits, opsets=MS, value_info=declared)


def int32_case():
    """An int32 input: one path stays int32 (an output), one is cast to float (declared, so
    typed) and scales what two MatMuls concatenated read (concat.rules' matmul-concat)."""
    nodes, inputs = [], [vi("i", T.INT32, [2, 3]), vi("x", F, [2, 4])]
    inits = [init("w32", [[1, -2, 3], [4, 5, -6]], np.int32), weights("m1", [3, 5], 1), weights("m2", [3, 5], 2),
             weights("m3", [4, 3], 3)]
    nodes += [helper.make_node("Add", ["i", "w32"], ["i_out"], name="add32"),
              helper.make_node("Cast", ["i_out"], ["f"], name="cast", to=F),
              helper.make_node("MatMul", ["x", "m3"], ["xm"], name="mm_x"),
              helper.make_node("Mul", ["f", "xm"], ["fx"], name="scale"),
              helper.make_node("MatMul", ["fx", "m1"], ["p1"], name="mm1"),
              helper.make_node("MatMul", ["fx", "m2"], ["p2"], name="mm2"),
              helper.make_node("Concat", ["p1", "p2"], ["p"], name="mms", axis=1),
              helper.make_node("Relu", ["p"], ["rp"], name="relu_p"),
              helper.make_node("Relu", ["xm"], ["rx"], name="relu_x"),
              helper.make_node("Concat", ["rp", "rx"], ["y"], name="relus", axis=1)]
    outputs = [vi("i_out", T.INT32, [2, 3]), vi("y", F, [2, 13])]
    return model("int32", nodes, inputs, outputs, inits, value_info=[vi("f", F, [2, 3])])


def if_case():
    """Rewritten values around an If whose branches read them by name."""
    nodes, inits, inputs = [], [], [vi("x", F, [1, 4, 6, 6]), vi("cond", T.BOOL, [])]
    cat = convs_concat("x", "b", nodes, inits, 30)
    then_g = helper.make_graph([helper.make_node("Relu", [cat], ["then_out"])], "then", [],
                               [vi("then_out", F, [1, 6, 6, 6])])
    else_g = helper.make_graph([helper.make_node("Neg", [cat], ["else_out"])], "else", [],
                               [vi("else_out", F, [1, 6, 6, 6])])
    nodes += [helper.make_node("If", ["cond"], ["chosen"], name="if", then_branch=then_g, else_branch=else_g),
              helper.make_node("Relu", ["chosen"], ["r1"], name="relu1"),
              helper.make_node("Relu", [cat], ["r2"], name="relu2"),
              helper.make_node("Concat", ["r1", "r2"], ["y"], name="relus", axis=1)]
    return model("if", nodes, inputs, [vi("y", F, [1, 12, 6, 6])], inits)


def float_case():
    """No opaque part: the whole model is checked."""
    nodes, inits, inputs = [], [], [vi("x", F, [1, 4, 6, 6])]
    cat = convs_concat("x", "c", nodes, inits, 40)
    nodes.append(helper.make_node("Relu", [cat], ["y"], name="relu"))
    return model("float", nodes, inputs, [vi("y", F, [1, 6, 6, 6])], inits)


# name: (builder, which check, what the float part must lose: operator -> count at most after)
CASES = {
    "microsoft": (microsoft_case, "regions only", {"conv2d": 1, "relu": 1}),
    "int32": (int32_case, "regions only", {"matmul": 2, "concat": 1}),
    "if": (if_case, "regions only", {"conv2d": 1, "relu": 1}),
    "float": (float_case, "whole model + regions", {"conv2d": 1}),
}


def operators_after(said):
    line = re.search(r"operators \(before -> after\): ([^;\n]*)", said)
    assert line, "no operators line: %s" % said
    return {op: int(after) for op, _, after in re.findall(r"(\w+) (\d+) -> (\d+)", line.group(1))}


def optimized(args, name, builder, check, lose):
    work = os.path.join(args.work, name)
    os.makedirs(work, exist_ok=True)
    path, opt, rep = (os.path.join(work, name + s) for s in (".onnx", ".opt.onnx", ".json"))
    onnx.save(builder(), path)
    said = run([args.graphopt, "optimize", path, "--rules", args.rules, "-o", opt, "--json", rep, "-q"])
    assert json.load(open(rep))["numeric_check"] == check, "the report does not say '%s'" % check
    if check == "regions only":
        assert "numeric check: each rewritten region agrees" in said and "cannot be evaluated" in said, said
    else:
        assert "numeric check: outputs agree" in said and "the whole model and each rewritten region" in said, said
    after = operators_after(said)
    for op, most in lose.items():
        assert after.get(op, 0) <= most, "%s: %d after, want at most %d: %s" % (op, after.get(op, 0), most, said)
    a_json, a = ort(work, path, "ort")
    _, b = ort(work, opt, "ort.opt", a_json)
    compare(a, b, False)
    return "%s; %s" % (check, ", ".join("%s %d" % kv for kv in sorted(after.items())))


def false_rule(args, name, builder, rules):
    """A false rule applied unproved: the region check catches it, nothing is written."""
    work = os.path.join(args.work, name + "_false")
    os.makedirs(work, exist_ok=True)
    path, opt = os.path.join(work, name + ".onnx"), os.path.join(work, name + ".opt.onnx")
    if os.path.exists(opt):
        os.remove(opt)
    onnx.save(builder(), path)
    said = run([args.graphopt, "optimize", path, "--rules", rules, "--unproved-rules", "--search", "backtrack", "-o", opt,
                "-q"], 1)
    assert "numeric check: FAILED" in said and "regions only" in said, said
    assert "the region rewritten by application" in said, said
    assert not os.path.exists(opt), "a model was written"
    return "caught: " + said[said.index("numeric check: FAILED"):].split("\n")[0]


def main():
    args = rules_test_args(__doc__).parse_args()
    jobs = [(name, optimized, (name, builder, check, lose)) for name, (builder, check, lose) in CASES.items()]
    for name, builder in (("microsoft", microsoft_case), ("int32", int32_case), ("if", if_case)):
        jobs.append((name + " false rule", false_rule, (name, builder, FALSE_RULE)))
    failed = 0
    for label, fn, fargs in jobs:
        try:
            print("%-30s %s" % (label, fn(args, *fargs)), flush=True)
        except AssertionError as e:
            print("%-30s FAILED: %s" % (label, e), flush=True)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
