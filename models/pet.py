#!/usr/bin/python3
"""graphopt --pet end to end (ctest optimizer_pet_cli and optimizer_pet_ort).

--cli: small ONNX models, one per PET kind (fig1, dilated, fold, merged, and the merged products
mmrows and mmcols) and some where no mutant types, each through `graphopt optimize --pet --certs DIR --explain`: the candidates and
certified rewrites it reports must be the ones the model allows, every certificate written must
pass `rulegen certify check` (the auditor, which trusts only the programs) against its programs
and against certify's own generator at the sizes its rules file names, a certificate altered
by one byte must fail it, and the model without candidates must be left as it was (exit 0).

--ort DIR: for each KIND.onnx and KIND.pet.onnx in DIR (written by test_optimizer_pet --export:
the original and the model with the kind's PET rewrite applied, its correction included),
onnxruntime on both on the same inputs, and graphopt's float64 evaluator on both: the rewritten
model must compute the original's outputs in each.

    /usr/bin/python3 models/pet.py --graphopt G --rulegen R --work W --cli
    /usr/bin/python3 models/pet.py --graphopt G --work W --ort DIR
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError:
    print("skip: no onnx or numpy for %s (scripts/setup.sh installs python3-onnx)" % sys.executable)
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, ok=(0,)):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in ok:
        raise RuntimeError("%s: exit %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    return p.returncode, p.stdout + p.stderr


def conv_model(path, n=1, c=4, hw=8, o=4, dil=1, merged=False, stride=1):
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((o, c, 3, 3)).astype(np.float32), "w")
    pad = dil if stride == 1 else 0
    conv = dict(pads=[pad] * 4, dilations=[dil, dil], strides=[stride, stride])
    nodes = [helper.make_node("Conv", ["x", "w"], ["y"], **conv)]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, c, hw, hw])]
    if merged:
        nodes += [helper.make_node("Conv", ["x2", "w"], ["y2"], **conv),
                  helper.make_node("Concat", ["y", "y2"], ["z"], axis=3)]
        inputs.append(helper.make_tensor_value_info("x2", TensorProto.FLOAT, [n, c, hw, hw]))
    else:
        nodes.append(helper.make_node("Relu", ["y"], ["z"]))
    g = helper.make_graph(nodes, "pet", inputs, [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)], [w])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)


def product_model(path, m=6, k=8, n=5, share="w"):
    """Two 2-D products concatenated: of one weight along the rows (share "w"), of one input along
    the columns (share "x"), or sharing nothing (share "")."""
    rng = np.random.default_rng(0)
    w = [numpy_helper.from_array(rng.standard_normal((k, n)).astype(np.float32), name) for name in ("w", "v")]
    x2 = "x" if share == "x" else "x2"
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"]),
             helper.make_node("MatMul", [x2, "w" if share == "w" else "v"], ["y2"]),
             helper.make_node("Concat", ["y", "y2"], ["z"], axis=1 if share == "x" else 0)]
    inputs = [helper.make_tensor_value_info(v, TensorProto.FLOAT, [m, k]) for v in sorted({"x", x2})]
    g = helper.make_graph(nodes, "pet", inputs, [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)], w)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)


# model -> (builder arguments, {kind: certified}, candidates)
CASES = {
    "fig1": (dict(), {"fig1": 1}, 1),
    "dilated": (dict(dil=2), {"dilated": 1}, 1),
    "fold": (dict(n=2), {"fig1": 1, "fold": 1}, 2),
    "merged": (dict(merged=True), {"fig1": 1, "merged": 1}, 2),
    "none": (dict(hw=7), {}, 0),
    "strided": (dict(stride=2), {}, 0),
    "mmrows": (dict(product="w"), {"mmrows": 1}, 1),
    "mmcols": (dict(product="x"), {"mmcols": 1}, 1),
    "products": (dict(product=""), {}, 0),
}


def audit(rulegen, cert):
    """The certificate against its programs, and (not a corrected one) against certify's own
    generator at the sizes its rules file names (--mutant KIND --dims ...)."""
    rules = cert[:-len(".cert")] + ".rules"
    rc, out = run([rulegen, "certify", "check", cert, rules], ok=(0, 1))
    if rc != 0 or "VALID" not in out:
        return False
    if cert.endswith(".corrected.cert"):
        return True
    m = re.search(r"--mutant (\S+) --dims (\S+)", open(rules).read())
    rc, out = run([rulegen, "certify", "check", cert, "--mutant", m.group(1), "--dims", m.group(2)], ok=(0, 1, 2)) \
        if m else (1, "")
    return rc == 0 and "VALID" in out


def check_cli(args):
    failed = 0
    for name, (kw, kinds, n_cand) in CASES.items():
        work = os.path.join(args.work, name)
        os.makedirs(work, exist_ok=True)
        model, certs = os.path.join(work, name + ".onnx"), os.path.join(work, "certs")
        shutil.rmtree(certs, ignore_errors=True)  # an earlier run's
        if "product" in kw:
            product_model(model, share=kw["product"])
        else:
            conv_model(model, **kw)
        _, out = run([args.graphopt, "optimize", "--pet", "--certs", certs, "--explain", "--no-guard",
                      "--time-limit", "2", model, "-o", os.path.join(work, name + ".opt.onnx")])
        m = re.search(r"pet: (\d+) candidates at the model's shapes, (\d+) certified", out)
        cand, cert = (int(m.group(1)), int(m.group(2))) if m else (-1, -1)
        files = sorted(glob.glob(os.path.join(certs, "*.cert")))
        by_kind = {}
        for f in files:
            if not f.endswith(".corrected.cert"):
                k = os.path.basename(f).split("_")[1]
                by_kind[k] = by_kind.get(k, 0) + 1
        audited = all(audit(args.rulegen, f) for f in files)
        tampered = True
        if files:  # one byte of a witness value changed: the auditor must refuse it
            text = open(files[0]).read()
            bad = os.path.join(work, "tampered.cert")
            i = text.index("\nbox ") + 5
            open(bad, "w").write(text[:i] + ("1" if text[i] != "1" else "0") + text[i + 1:])
            rules = files[0][:-len(".cert")] + ".rules"
            rc, _ = run([args.rulegen, "certify", "check", bad, rules], ok=(0, 1, 2))
            tampered = rc != 0
        ok = cand == n_cand and cert == n_cand and by_kind == kinds and audited and tampered and \
            len(files) == 2 * n_cand
        failed += not ok
        print("%-8s candidates %d (want %d), certified %d, certificates %s, audited %s, tampered refused %s%s"
              % (name, cand, n_cand, cert, by_kind, audited, tampered, "" if ok else "  FAILED\n" + out))
    return failed


def check_ort(args):
    failed = 0
    node = ["node", os.path.join(HERE, "ort_run.js")]
    for a in sorted(glob.glob(os.path.join(args.ort, "*.onnx"))):
        if a.endswith(".pet.onnx"):
            continue
        b = a[:-len(".onnx")] + ".pet.onnx"
        name = os.path.basename(a)[:-len(".onnx")]
        ja, jb = os.path.join(args.work, name + ".ort.json"), os.path.join(args.work, name + ".pet.ort.json")
        run(node + [a, "--seed", "3", "--out", ja, "--quiet"])
        run(node + [b, "--inputs", ja, "--out", jb, "--quiet"])
        x, y = json.load(open(ja)), json.load(open(jb))
        ort = max(float(np.abs(np.asarray(p["data"]) - np.asarray(q["data"])).max() /
                        max(np.abs(np.asarray(p["data"])).max(), 1e-30)) for p, q in zip(x["outputs"], y["outputs"]))
        rc, out = run([args.graphopt, "eval", a, "--compare", b], ok=(0, 1))
        n_ops = len(onnx.load(b).graph.node)
        ok = ort <= 1e-5 and rc == 0
        failed += not ok
        print("%-8s onnxruntime: largest relative difference %.2e over %d nodes; graphopt eval: %s%s"
              % (name, ort, n_ops, "agrees" if rc == 0 else "DIFFERS", "" if ok else "  FAILED\n" + out))
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graphopt", required=True)
    ap.add_argument("--rulegen")
    ap.add_argument("--work", required=True)
    ap.add_argument("--cli", action="store_true")
    ap.add_argument("--ort", help="the folder test_optimizer_pet --export wrote")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    failed = check_cli(args) if args.cli else 0
    if args.ort:
        if not os.path.isdir(os.path.join(HERE, "node_modules", "onnxruntime-node")):
            print("skip: no models/node_modules/onnxruntime-node (scripts/setup.sh installs it)")
            sys.exit(77)
        failed += check_ort(args)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
