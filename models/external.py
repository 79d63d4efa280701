#!/usr/bin/python3
"""Models whose weights are in a side file: ONNX's external data (issue 41, item 5).

A model with float weights of the rule vocabulary, an int32 weight graphopt keeps opaque, a
Constant node's tensor attribute and a small bias, saved by onnx.save_model with
save_as_external_data (one file, size_threshold 1024, attributes too). For each way in and out:
`graphopt convert` (the side file written next to the output as OUT.data, as it was read),
`--no-external-data` (everything inside), `--external-data=NAME --external-threshold 4096` (and 0)
(from a model that had none), graphopt's own output read back, and `graphopt optimize` (a
rewrite applied; and one that applies nothing, which must not copy a file whose side file stays
behind): the written model loads in onnx (onnx.checker), names the side file it should with
aligned offsets, and runs in onnxruntime with the original's outputs (bitwise where no rule
applies). Then what must be refused, with the message that says why and nothing written: a side
file that is a link out of the model's folder, an output side file that is a link, the input's
own side file (as the side file written, as -o, through a link, as --json), --json naming the
side file written, a side file name with a folder, a side file beside a device. And memory: a 48 MiB
weight read from a side file raises graphopt info's peak RSS by 0.9 to 1.5 times its size (once;
the same model with its weight inside takes twice). The memory part measures a build without
sanitizers: ASan's allocator holds or reuses freed blocks by its quarantine's size, not ours.

    /usr/bin/python3 models/external.py --graphopt build/tools/graphopt --work DIR --rules RULES [--only PARTS]
(RULES: tests/regress/optimize/merge.rules; PARTS: ways_through,refusals,memory, the default)
"""
import argparse
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper

from passthrough import F, compare, init, model, ort, run, vi


def weights(name, shape, seed):
    return init(name, np.random.default_rng(seed).uniform(-0.5, 0.5, shape), np.float32)


def mixed_model():
    """x [2, 64] -> two MatMuls by 64x64 weights concatenated (merge.rules' matmul-concat makes
    them one) -> + a small bias -> Relu; plus an int32 path (an opaque 400-element weight) and a
    Constant node's 16x64 float tensor added to x."""
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["p1"], name="mm1"),
             helper.make_node("MatMul", ["x", "w2"], ["p2"], name="mm2"),
             helper.make_node("Concat", ["p1", "p2"], ["p"], name="cat", axis=1),
             helper.make_node("Add", ["p", "bias"], ["pb"], name="add_bias"),
             helper.make_node("Relu", ["pb"], ["y"], name="relu"),
             helper.make_node("Add", ["i", "w32"], ["i_out"], name="add32"),
             helper.make_node("Constant", [], ["c"], name="const",
                              value=weights("c", [16, 64], 5)),
             helper.make_node("Add", ["x2", "c"], ["x2c"], name="add_const")]
    inits = [weights("w1", [64, 64], 1), weights("w2", [64, 64], 2), weights("bias", [128], 3),
             init("w32", np.arange(400).reshape(2, 200) * 7 - 1000, np.int32)]
    inputs = [vi("x", F, [2, 64]), vi("i", T.INT32, [2, 200]), vi("x2", F, [16, 64])]
    outputs = [vi("y", F, [2, 128]), vi("i_out", T.INT32, [2, 200]), vi("x2c", F, [16, 64])]
    return model("external", nodes, inputs, outputs, inits)


def plain_model():
    """x -> MatMul -> Relu: nothing merge.rules rewrites."""
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"], name="mm"), helper.make_node("Relu", ["m"], ["y"], name="relu")]
    return model("plain", nodes, [vi("x", F, [2, 64])], [vi("y", F, [2, 32])], [weights("w", [64, 32], 9)])


def save_external(m, path, location):
    onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True, location=location,
                    size_threshold=1024, convert_attribute=True)


def tensors(m):
    """Every TensorProto of the main graph: initializers, then node attributes."""
    return list(m.graph.initializer) + [a.t for n in m.graph.node for a in n.attribute if a.HasField("t")]


def outside(m):
    """name -> (location, offset, length) of the tensors kept outside."""
    res = {}
    for t in tensors(m):
        if t.data_location == T.EXTERNAL:
            kv = {e.key: e.value for e in t.external_data}
            res[t.name] = (kv["location"], int(kv.get("offset", 0)), int(kv.get("length", -1)))
    return res


def check_written(path, location, at_least, none_below=None):
    """The written model: it loads with its data in onnx and passes its checker; the tensors of
    at_least bytes or more are in location, at aligned offsets; none of fewer than none_below."""
    m = onnx.load(path, load_external_data=False)
    out = outside(m)
    big = [t.name for t in tensors(m) if (t.raw_data and len(t.raw_data) >= at_least) or t.name in out]
    assert out and sorted(out) == sorted(big), "outside: %s; want %s" % (sorted(out), sorted(big))
    for name, (loc, off, length) in out.items():
        assert loc == location, "%s names %s, want %s" % (name, loc, location)
        assert off % (4096 if length >= 4096 else 64) == 0, "%s at offset %d: not aligned" % (name, off)
        assert none_below is None or length >= none_below, "%s (%d bytes) went outside" % (name, length)
    assert os.path.isfile(os.path.join(os.path.dirname(path), location)), "no side file " + location
    onnx.checker.check_model(path, full_check=True)  # by path: the checker reads the side file too
    return len(out)


def ort_same(work, original, written, tag, exact=True):
    a_json, a = ort(work, original, tag + ".ort")
    _, b = ort(work, written, tag + ".ort.out", a_json)
    compare(a, b, exact)


def matmul_rule(args):
    """RULES' matmul-concat alone, the rewrite mixed_model offers: a rule of RULES that the
    solvers do not prove (merge.rules' conv-merge) is tried again on every run, minutes each in
    the sanitizer build."""
    path = os.path.join(args.work, "matmul-concat.rules")
    lines = [l for l in open(args.rules) if l.startswith("matmul-concat:")]
    assert lines, "%s has no matmul-concat rule" % args.rules
    open(path, "w").write(lines[0])
    return path


def ways_through(args):
    work = args.work
    src, ext, out = (os.path.join(work, d) for d in ("src", "ext", "out"))
    for d in (src, ext, out):
        os.makedirs(d, exist_ok=True)
    m = mixed_model()
    inline = os.path.join(src, "mixed.onnx")
    onnx.save(m, inline)
    model_ext = os.path.join(ext, "mixed.onnx")
    save_external(mixed_model(), model_ext, "weights.bin")
    assert len(outside(onnx.load(model_ext, load_external_data=False))) == 4, "onnx kept other tensors outside"
    said = []

    conv = os.path.join(out, "conv.onnx")
    run([args.graphopt, "convert", model_ext, "-o", conv, "-q"])
    n = check_written(conv, "conv.onnx.data", 1024)
    ort_same(work, model_ext, conv, "conv")
    said.append("convert: %d tensors in conv.onnx.data, bitwise" % n)

    inside = os.path.join(out, "inside.onnx")
    run([args.graphopt, "convert", model_ext, "--no-external-data", "-o", inside, "-q"])
    assert not outside(onnx.load(inside, load_external_data=False)), "--no-external-data left tensors outside"
    assert not os.path.exists(inside + ".data"), "a side file with --no-external-data"
    ort_same(work, inline, inside, "inside")
    said.append("--no-external-data: all inside, bitwise")

    forced = os.path.join(out, "forced.onnx")
    run([args.graphopt, "convert", inline, "--external-data=forced.bin", "--external-threshold", "4096", "-o", forced,
         "-q"])
    n = check_written(forced, "forced.bin", 4096, 4096)
    ort_same(work, inline, forced, "forced")
    again = os.path.join(out, "again.onnx")
    run([args.graphopt, "convert", forced, "-o", again, "-q"])  # graphopt's own external data read back
    check_written(again, "again.onnx.data", 1024)  # outside, by the default threshold
    ort_same(work, inline, again, "again")
    said.append("--external-data=forced.bin --external-threshold 4096: %d tensors outside; read back, bitwise" % n)
    every = os.path.join(out, "every.onnx")  # 0, as onnx's size_threshold=0: every tensor that holds data
    run([args.graphopt, "convert", inline, "--external-data=every.bin", "--external-threshold", "0", "-o", every, "-q"])
    n_every = check_written(every, "every.bin", 1)
    assert n_every > n, "--external-threshold 0 put %d tensors outside, 4096 put %d" % (n_every, n)
    ort_same(work, inline, every, "every")
    said.append("--external-threshold 0: %d tensors outside (every one holding data); bitwise" % n_every)

    opt = os.path.join(out, "opt.onnx")
    rules = matmul_rule(args)
    text = run([args.graphopt, "optimize", model_ext, "--rules", rules, "-o", opt, "-q"])
    assert "matmul-concat" in text or "matmul 2 -> 1" in text, "no rewrite: " + text
    check_written(opt, "opt.onnx.data", 1024)
    ort_same(work, model_ext, opt, "opt", exact=False)
    plain_ext = os.path.join(ext, "plain.onnx")
    save_external(plain_model(), plain_ext, "plain.bin")
    plain_opt = os.path.join(out, "plain.opt.onnx")
    text = run([args.graphopt, "optimize", plain_ext, "--rules", rules, "-o", plain_opt, "-q"])
    assert "a copy of the original" not in text, "a copy of a model whose side file stays behind: " + text
    check_written(plain_opt, "plain.opt.onnx.data", 1024)
    ort_same(work, plain_ext, plain_opt, "plain", exact=True)
    said.append("optimize: rewritten, and nothing applied: side files written, onnxruntime agrees")
    return said


def refuse(cmd, want, nothing=()):
    text = run(cmd, 2)
    assert want in text, "want '%s' in: %s" % (want, text)
    for p in nothing:
        assert not os.path.exists(p), p + " written"


def refusals(args):
    work = os.path.join(args.work, "refuse")
    inner, out = os.path.join(work, "model"), os.path.join(work, "out")
    os.makedirs(inner), os.makedirs(out)
    g = args.graphopt
    # a side file that is a link out of the model's folder
    save_external(plain_model(), os.path.join(work, "plain.onnx"), "outside.bin")
    shutil.copy(os.path.join(work, "plain.onnx"), os.path.join(inner, "plain.onnx"))
    os.symlink(os.path.join(work, "outside.bin"), os.path.join(inner, "outside.bin"))
    refuse([g, "info", os.path.join(inner, "plain.onnx")], "a link that leads out of the model's folder")
    model_ext = os.path.join(work, "plain.onnx")
    # an output side file that is a link: refused, its target untouched
    target = os.path.join(work, "target.txt")
    open(target, "w").write("keep me\n")
    os.symlink(target, os.path.join(out, "ln.onnx.data"))
    refuse([g, "convert", model_ext, "-o", os.path.join(out, "ln.onnx")], "a symbolic link",
           [os.path.join(out, "ln.onnx")])
    assert open(target).read() == "keep me\n", "the link's target was written"
    # the input's own side file, named for the output's
    before = open(os.path.join(work, "outside.bin"), "rb").read()
    refuse([g, "convert", model_ext, "--external-data=outside.bin", "-o", os.path.join(work, "other.onnx")],
           "the input model keeps its weights there", [os.path.join(work, "other.onnx")])
    refuse([g, "optimize", model_ext, "--rules", args.rules, "--external-data=outside.bin", "-o",
            os.path.join(work, "other.onnx")], "the input model keeps its weights there")
    assert open(os.path.join(work, "outside.bin"), "rb").read() == before, "the input's side file changed"
    # -o or --json naming the input's side file (or a link to it), --json naming the side file
    # the run writes: refused before any work, nothing written (even --force lets no two
    # outputs be one file)
    side, link, other = os.path.join(work, "outside.bin"), os.path.join(out, "to_side.onnx"), os.path.join(out, "o.onnx")
    os.symlink(side, link)
    for cmd in ([g, "convert", model_ext], [g, "optimize", model_ext, "--rules", args.rules]):
        refuse(cmd + ["-o", side], "-o %s names a file this run reads (%s, where the input model keeps" % (side, side))
        refuse(cmd + ["-o", link], "-o %s names a file this run reads (%s" % (link, side))
    opt = [g, "optimize", model_ext, "--rules", args.rules]
    refuse(opt + ["-o", other, "--json", side], "--json %s names a file this run reads (%s" % (side, side), [other])
    refuse(opt + ["-o", other, "--json", other + ".data"], "--json %s.data names the side file the weights of -o %s "
           "go to" % (other, other), [other, other + ".data"])
    refuse(opt + ["-o", other, "--external-data=x.json", "--json", os.path.join(out, "x.json"), "--force"],
           "names the side file the weights of -o %s go to (%s/x.json)" % (other, out), [other, os.path.join(out, "x.json")])
    assert open(side, "rb").read() == before, "the input's side file changed"
    assert sorted(os.listdir(out)) == ["ln.onnx.data", "to_side.onnx"], "written: %s" % os.listdir(out)
    # --force lets -o replace the input's side file, as it lets it replace the input (a copy)
    forced = os.path.join(work, "forced")
    os.makedirs(forced)
    for f in ("plain.onnx", "outside.bin"):
        shutil.copy(os.path.join(work, f), forced)
    run([g, "convert", os.path.join(forced, "plain.onnx"), "-o", os.path.join(forced, "outside.bin"), "--force", "-q"])
    onnx.checker.check_model(os.path.join(forced, "outside.bin"), full_check=True)  # the model, its side file beside
    # the input model itself, or the rules, named as the side file
    model_bytes = open(model_ext, "rb").read()
    refuse([g, "convert", model_ext, "--external-data=plain.onnx", "-o", os.path.join(work, "other.onnx")],
           "which this run reads", [os.path.join(work, "other.onnx")])
    shutil.copy(args.rules, os.path.join(work, "r.rules"))
    refuse([g, "optimize", model_ext, "--rules", os.path.join(work, "r.rules"), "--external-data=r.rules", "-o",
            os.path.join(work, "other.onnx")], "which this run reads")
    assert open(model_ext, "rb").read() == model_bytes, "the input model changed"
    refuse([g, "convert", model_ext, "--external-data=sub/w.bin", "-o", os.path.join(out, "x.onnx")],
           "give a file name without a folder")
    refuse([g, "convert", model_ext, "--external-data", "-o", "/dev/null"], "a device or FIFO")
    refuse([g, "convert", model_ext, "--external-data", "--no-external-data", "-o", os.path.join(out, "x.onnx")],
           "contradict each other")
    run([g, "convert", model_ext, "-o", "/dev/null", "-q"])  # read with a side file, written whole to a device
    return ["refused: a link out of the folder, an output side file that is a link, the input's side file, "
            "the input model and the rules, -o or --json on the input's side file (or a link to it), --json on "
            "the side file written, "
            "a name with a folder, a device; -o /dev/null written whole"]


def peak_kb(cmd):
    """The peak RSS of cmd in KB (/usr/bin/time), which must succeed."""
    p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert p.returncode == 0, "%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr)
    return int(p.stderr.strip().splitlines()[-1])


def memory(args):
    """Weights read from a side file are in memory once: graphopt info's peak RSS on a model with
    one 48 MiB weight outside, less its peak on the same model with a 4-element weight, is about
    48 MiB, not twice that."""
    if not os.access("/usr/bin/time", os.X_OK):
        return ["memory: skipped (no /usr/bin/time)"]
    work = os.path.join(args.work, "memory")
    os.makedirs(work)
    peaks = []
    for name, cols in (("small", 4), ("big", 12 << 20)):
        w = init("w", (np.arange(cols, dtype=np.float32) % 251).reshape(1, cols), np.float32)
        m = model(name, [helper.make_node("Add", ["x", "w"], ["y"], name="add")], [vi("x", F, [1, cols])],
                  [vi("y", F, [1, cols])], [w])
        path = os.path.join(work, name + ".onnx")
        save_external(m, path, name + ".bin")
        peaks.append(peak_kb([args.graphopt, "info", path, "-q"]))
    weights = (12 << 20) * 4 / 1024
    grew = peaks[1] - peaks[0]
    assert 0.9 * weights <= grew <= 1.5 * weights, "peak RSS grew by %d KB for %d KB of weights" % (grew, weights)
    return ["memory: peak RSS %d KB more for %d KB of weights read from a side file (%.2fx)" % (grew, weights,
                                                                                            grew / weights)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graphopt", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--rules", required=True, help="tests/regress/optimize/merge.rules")
    parts = (ways_through, refusals, memory)
    names = [fn.__name__ for fn in parts]
    ap.add_argument("--only", default=",".join(names),
                    help="the parts to run, comma-separated (default: all of %(default)s)")
    args = ap.parse_args()
    chosen = args.only.split(",")
    unknown = set(chosen) - set(names)
    if unknown:
        ap.error("--only: no part named %s" % ", ".join(sorted(unknown)))
    failed = 0
    for fn in (fn for fn in parts if fn.__name__ in chosen):
        try:
            for line in fn(args):
                print(line, flush=True)
        except AssertionError as e:
            print("%s FAILED: %s" % (fn.__name__, e), flush=True)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
