#!/usr/bin/python3
"""Round trip of ONNX models through graphopt, checked against onnxruntime.

For each model: `graphopt convert` (import, export, no rules applied); the written model must
pass onnx.checker (full check, where onnx knows the model's opset) and run in onnxruntime with
the original's outputs on the same inputs; `graphopt eval` (graphopt's own float64 interpreter)
must see the very inputs ort_run.js drew and agree with onnxruntime's outputs. Differences are
relative to each output's scale: max |a - b| / max |b|. Prints one row per model and exits 1 if
any check fails.

    /usr/bin/python3 models/roundtrip.py --graphopt build/tools/graphopt --work DIR MODEL.onnx...
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import time

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def rel_diff(a, b):
    a, b = np.asarray(a, dtype=np.float64).ravel(), np.asarray(b, dtype=np.float64).ravel()
    if a.shape != b.shape:
        return float("inf")
    scale = np.abs(b).max() if b.size else 0.0
    return float(np.abs(a - b).max() / (scale if scale > 0 else 1.0)) if b.size else 0.0


def run(cmd):
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode:
        raise RuntimeError("%s: exit %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    return p.stdout, time.monotonic() - t0


def check_model(args, path):
    name = os.path.splitext(os.path.basename(path))[0]
    work = os.path.join(args.work, name)
    os.makedirs(work, exist_ok=True)
    rt = os.path.join(work, name + ".rt.onnx")
    row = {"model": name}
    out, _ = run([args.graphopt, "convert", path, "-o", rt])
    row["import_s"] = float(re.search(r"imported in ([0-9.]+) s", out).group(1))
    row["export_s"] = float(re.search(r"exported in ([0-9.]+) s", out).group(1))
    ops = re.search(r"operators: (\d+) of the rule vocabulary \(([^)]*)\), (\d+) opaque(?: \(([^)]*)\))?", out)
    row["ir_nodes"], row["opaque"] = int(ops.group(1)), int(ops.group(3))
    row["opaque_ops"] = ops.group(4) or ""
    if args.rules:  # the round trip is graphopt's optimized model; its numeric check passed
        run([args.graphopt, "optimize", path, "--rules", args.rules, "-o", rt, "-q", "--time-limit", "5"] +
            (["--search", args.search] if args.search else []) + args.optimize_args.split())
    original = onnx.load(path)
    written = onnx.load(rt)
    # onnx's checker knows its own opsets only (1.12: to 17); onnxruntime runs the later ones below
    opset = max(o.version for o in written.opset_import if o.domain in ("", "ai.onnx"))
    if opset <= onnx.defs.onnx_opset_version():  # strict shape inference from opset 7 (Reshape-1 has none)
        onnx.checker.check_model(written, full_check=opset >= 7)
    row["onnx_nodes"], row["rt_nodes"] = len(original.graph.node), len(written.graph.node)
    assert [i.name for i in written.graph.input] == [i.name for i in original.graph.input if i.name not in
                                                     {t.name for t in original.graph.initializer}], "inputs differ"
    assert [o.name for o in written.graph.output] == [o.name for o in original.graph.output], "outputs differ"
    assert written.opset_import == original.opset_import, "opset differs"
    # a case (models/cases.py) may say how many nodes of which operators export must write
    for prop in original.metadata_props:
        if prop.key == "written_ops" and not args.rules:
            have = collections.Counter(n.op_type for n in written.graph.node)
            for op, want in (kv.split("=") for kv in prop.value.split(",")):
                assert have[op] == int(want), "written %d %s nodes, the case expects %s" % (have[op], op, want)

    seed, int_max = "7", str(args.int_max)
    a_json, b_json = os.path.join(work, "ort.json"), os.path.join(work, "ort.rt.json")
    node = ["node", os.path.join(HERE, "ort_run.js")]
    run(node + [path, "--seed", seed, "--int-max", int_max, "--out", a_json, "--quiet"])
    run(node + [rt, "--inputs", a_json, "--out", b_json, "--quiet"])
    a, b = json.load(open(a_json)), json.load(open(b_json))
    row["ort_rt"] = max(rel_diff(y["data"], x["data"]) for x, y in zip(a["outputs"], b["outputs"]))

    saved = os.path.join(work, "graphopt")
    os.makedirs(saved, exist_ok=True)
    run([args.graphopt, "eval", path, "--seed", seed, "--int-max", int_max, "--save", saved])
    for k, t in enumerate(a["inputs"]):
        mine = numpy_helper.to_array(onnx.load_tensor(os.path.join(saved, "input_%d.pb" % k)))
        assert np.array_equal(mine.ravel(), np.asarray(t["data"], dtype=mine.dtype).ravel()), \
            "input %s: graphopt drew other values than ort_run.js" % t["name"]
    row["eval_ort"] = max(
        rel_diff(numpy_helper.to_array(onnx.load_tensor(os.path.join(saved, "output_%d.pb" % k))), x["data"])
        for k, x in enumerate(a["outputs"]))
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graphopt", required=True)
    ap.add_argument("--work", required=True, help="folder for the written models and outputs")
    ap.add_argument("--int-max", type=int, default=30522, help="int64 inputs from [0, N) (BERT's vocabulary)")
    ap.add_argument("--ort-tolerance", type=float, default=1e-5,
                    help="onnxruntime on the original vs on the round trip (default 1e-5)")
    ap.add_argument("--eval-tolerance", type=float, default=1e-4,
                    help="graphopt's evaluator vs onnxruntime (default 1e-4)")
    ap.add_argument("--rules", help="optimize with these rules (graphopt optimize) instead of converting; "
                    "onnxruntime on the original vs on the optimized model within 1e-4 unless --ort-tolerance")
    ap.add_argument("--search", help="with --rules: graphopt optimize's --search (default: graphopt's)")
    ap.add_argument("--optimize-args", default="", help="with --rules: more of graphopt optimize's options, "
                    "space-separated (e.g. '--machine gpu-h100 --multi-rounds 4')")
    ap.add_argument("models", nargs="+")
    args = ap.parse_args()
    if args.rules and "--ort-tolerance" not in sys.argv:
        args.ort_tolerance = 1e-4  # rewritten arithmetic rounds otherwise in float32
    failed = 0
    print("%-14s %6s %6s %6s %7s %8s %8s %10s %10s  %s" % ("model", "onnx", "ir", "rt", "opaque", "import",
                                                           "export", "ort-rt", "eval-ort", "opaque operators"))
    for path in args.models:
        try:
            r = check_model(args, path)
        except (RuntimeError, AssertionError, onnx.checker.ValidationError) as e:
            print("%-14s FAILED: %s" % (os.path.basename(path), e))
            failed += 1
            continue
        bad = r["ort_rt"] > args.ort_tolerance or r["eval_ort"] > args.eval_tolerance
        failed += bad
        print("%-14s %6d %6d %6d %7d %7.3fs %7.3fs %10.2e %10.2e  %s%s" % (
            r["model"], r["onnx_nodes"], r["ir_nodes"], r["rt_nodes"], r["opaque"], r["import_s"], r["export_s"],
            r["ort_rt"], r["eval_ort"], r["opaque_ops"] or "-", "  DIFFERS" if bad else ""), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
