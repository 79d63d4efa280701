#!/usr/bin/python3
"""Conformance of graphopt's import and export against onnxruntime (issue 41), over libonnx-testdata's
suites: each test (DIR/model.onnx, DIR/test_data_set_*/input_K.pb and output_K.pb) is

  (a) run in onnxruntime as it is, on the test's inputs, and compared with the expected outputs
      with the suite's own tolerance, ONNX's backend tests' (numpy.testing.assert_allclose with
      rtol 1e-3, atol 1e-7, NaN equal to NaN; other element types exactly; same dtype and shape);
  (b) converted: `graphopt convert DIR/model.onnx -o OUT.onnx` (import and export, no rules; with
      --rules R, `graphopt optimize DIR/model.onnx --rules R -o OUT.onnx --time-limit 5` instead);
  (c) where written, OUT.onnx run in onnxruntime on the same inputs, its outputs compared bitwise
      with onnxruntime's on the original and, where they are not bitwise equal, with the expected
      outputs (or, where onnxruntime's own outputs miss them, with those) with the same tolerance.

onnxruntime runs in one node process for the whole run (models/ort_batch.js; CPU, optimization
level 'all', one thread), graphopt once per test (--jobs at a time, alongside). Each test gets
one verdict:

  equal                ORT runs it; graphopt writes it; ORT's outputs on the written model are
                       bitwise those on the original (issue 41's target: identity where no rule
                       applies)
  close                as equal, but not bitwise: within the tolerance (or, where onnxruntime's
                       outputs on the original vary from run to run, as random operators' do
                       unseeded, of the same types and shapes)
  not-read             ORT runs it; graphopt refuses it (exit 2, the reason counted)
  not-written          ORT runs it; graphopt imports it but does not export it (the reason)
  ort-refuses          ORT refuses the original (cannot open or run it); graphopt refuses it too
  ort-refuses-read     ORT refuses the original; graphopt reads it (the target is a refusal)
  untestable           onnxruntime-node cannot feed or fetch its values (sequences, optionals,
                       bfloat16 and other element types its JavaScript API lacks), or onnx cannot
                       load the test's files: neither refused nor run, counted apart
  DIFFERS              the written model computes outside the tolerance      } a wrong model:
  WRITTEN-ORT-REFUSES  ORT runs the original but refuses the written model   } always a failure
  GRAPHOPT-CRASH       graphopt exits otherwise than 0 or 2, or runs past --timeout

Prints per suite the counts of each verdict, then the reasons (graphopt's one-line message
without file, node and tensor names, as tests/conformance/run.sh normalizes them; onnxruntime's
first line likewise) with counts, and with -v a line per test that is not `equal`. Exit status 1
if any test is DIFFERS, WRITTEN-ORT-REFUSES or GRAPHOPT-CRASH; with --strict also if any is
close, not-read, not-written or ort-refuses-read (the issue's full target); 77 (skip) when the
data, /usr/bin/python3's onnx, node or models/node_modules/onnxruntime-node is missing; 2 on a
usage error.

  tests/conformance/ort_suite.py --graphopt build/tools/graphopt [SUITE_DIR...] [-v] [--strict]
      [--jobs N] [--work DIR] [--json FILE] [--only NAME,...] [--timeout S] [--level L]
      [--rules RULES [--search S]]
  (SUITE_DIR default: node, pytorch-converted, pytorch-operator and simple under
   /usr/share/libonnx-testdata/data)
"""
import argparse
import collections
import concurrent.futures
import glob
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
    import onnx
    from onnx import numpy_helper
except ImportError as e:
    print("skip: %s lacks onnx or numpy (%s; scripts/setup.sh installs python3-onnx)" % (sys.executable, e))
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "models")
DATA = "/usr/share/libonnx-testdata/data"
SUITES = ["node", "pytorch-converted", "pytorch-operator", "simple"]
RTOL, ATOL = 1e-3, 1e-7  # ONNX's backend tests (onnx/backend/test/runner), and data.json of `real`

# ONNX element types onnxruntime-node's Tensor takes, with numpy's dtype for the raw bytes
ORT_TYPES = {
    onnx.TensorProto.FLOAT: ("float32", np.float32), onnx.TensorProto.DOUBLE: ("float64", np.float64),
    onnx.TensorProto.FLOAT16: ("float16", np.float16), onnx.TensorProto.INT8: ("int8", np.int8),
    onnx.TensorProto.INT16: ("int16", np.int16), onnx.TensorProto.INT32: ("int32", np.int32),
    onnx.TensorProto.INT64: ("int64", np.int64), onnx.TensorProto.UINT8: ("uint8", np.uint8),
    onnx.TensorProto.UINT16: ("uint16", np.uint16), onnx.TensorProto.UINT32: ("uint32", np.uint32),
    onnx.TensorProto.UINT64: ("uint64", np.uint64), onnx.TensorProto.BOOL: ("bool", np.bool_),
    onnx.TensorProto.STRING: ("string", object),
}
DTYPE_OF = {name: dt for name, dt in ORT_TYPES.values()}

VERDICTS = ["equal", "close", "not-read", "not-written", "ort-refuses", "ort-refuses-read", "untestable",
            "DIFFERS", "WRITTEN-ORT-REFUSES", "GRAPHOPT-CRASH"]
WRONG = {"DIFFERS", "WRITTEN-ORT-REFUSES", "GRAPHOPT-CRASH"}
SHORT_OF_TARGET = {"close", "not-read", "not-written", "ort-refuses-read"}


class Untestable(Exception):
    pass


def normalize(msg):
    """A reason without file, node and tensor names (tests/conformance/run.sh's sed)."""
    msg = msg.strip().splitlines()[0] if msg.strip() else "(no message)"
    msg = re.sub(r"^graphopt: ", "", msg)
    msg = re.sub(r"^[^ :]*\.onnx: ", "", msg)
    msg = re.sub(r"node '[^']*'", "node", msg, count=1)
    msg = re.sub(r"node [0-9]+", "node", msg, count=1)
    msg = re.sub(r"'[^' ]*'", "X", msg)
    return msg


def normalize_ort(msg):
    """onnxruntime's message without paths, node names and bracketed detail."""
    msg = msg.strip().splitlines()[0] if msg.strip() else "(no message)"
    msg = re.sub(r"/[^ :]*\.onnx", "FILE", msg)
    msg = re.sub(r"/onnxruntime_src/[^ ]*:[0-9]+ ", "", msg)
    msg = re.sub(r"\[ONNXRuntimeError\] : [0-9]+ : ", "", msg)
    msg = re.sub(r"Node \([^)]*\)", "Node (X)", msg)
    msg = re.sub(r"node name: [^ ,]*", "node name: X", msg)
    msg = re.sub(r"'[^']*'", "X", msg)
    msg = re.sub(r"\b(Load model from) FILE failed:", r"\1 FILE failed:", msg)
    return msg[:200]


# ---------------------------------------------------------------------------------------------
# onnxruntime, in one node process


class Ort:
    """models/ort_batch.js, restarted when it dies or hangs."""

    def __init__(self, args, log):
        self.args, self.log, self.proc = args, log, None

    def start(self):
        self.proc = subprocess.Popen(
            ["node", os.path.join(MODELS, "ort_batch.js"), "--level", self.args.level, "--threads", "1"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True, bufsize=1)

    def stop(self):
        if self.proc:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def run(self, req):
        if self.proc is None:
            self.start()
        try:
            self.proc.stdin.write(json.dumps(req) + "\n")
            self.proc.stdin.flush()
            ready, _, _ = select.select([self.proc.stdout], [], [], self.args.timeout)
            line = self.proc.stdout.readline() if ready else None
        except (BrokenPipeError, OSError):
            line = ""
        if line:
            return json.loads(line)
        if line is None:
            self.stop()
            return {"ok": False, "stage": "crash", "error": "onnxruntime ran past %d s" % self.args.timeout}
        rc = self.proc.wait()
        self.proc = None
        return {"ok": False, "stage": "crash", "error": "onnxruntime (node) died, status %d" % rc}


# ---------------------------------------------------------------------------------------------
# one test


def value_type(vi):
    """onnxruntime-node's name and numpy's dtype for a graph input or output; Untestable else."""
    t = vi.type
    which = t.WhichOneof("value")
    if which != "tensor_type":
        raise Untestable("%s %s: onnxruntime-node feeds and fetches tensors only" % (which or "untyped", "value"))
    if t.tensor_type.elem_type not in ORT_TYPES:
        raise Untestable("element type %s: not in onnxruntime-node's API" %
                         onnx.TensorProto.DataType.Name(t.tensor_type.elem_type))
    return ORT_TYPES[t.tensor_type.elem_type]


def prepare(test, work):
    """The test's inputs as raw files and its expected outputs: (requests per data set)."""
    model = onnx.load(test["model"], load_external_data=False)
    inits = {i.name for i in model.graph.initializer}
    ins = [i for i in model.graph.input if i.name not in inits]
    outs = list(model.graph.output)
    for vi in outs:
        value_type(vi)
    sets = []
    for k, ds in enumerate(sorted(glob.glob(os.path.join(test["dir"], "test_data_set_*")))):
        files = sorted(glob.glob(os.path.join(ds, "input_*.pb")), key=lambda f: int(re.findall(r"\d+", os.path.basename(f))[0]))
        if len(files) > len(ins):
            raise Untestable("%d input files for %d inputs" % (len(files), len(ins)))
        feeds = []
        for j, f in enumerate(files):
            vi = ins[j]
            typ, dtype = value_type(vi)
            a = numpy_helper.to_array(onnx.load_tensor(f))
            entry = {"name": vi.name, "type": typ, "dims": [int(d) for d in a.shape]}
            if typ == "string":
                entry["data"] = [x.decode("utf-8") if isinstance(x, bytes) else str(x) for x in a.ravel()]
            else:
                entry["file"] = os.path.join(work, "set%d_input_%d.bin" % (k, j))
                np.ascontiguousarray(a, dtype=dtype).astype(np.dtype(dtype).newbyteorder("<")).tofile(entry["file"])
            feeds.append(entry)
        expected = []
        for j, vi in enumerate(outs):
            f = os.path.join(ds, "output_%d.pb" % j)
            if not os.path.exists(f):
                raise Untestable("no %s" % os.path.basename(f))
            expected.append((vi.name, numpy_helper.to_array(onnx.load_tensor(f))))
        sets.append((feeds, expected))
    if not sets:
        raise Untestable("no test_data_set_*")
    return sets


def outputs_of(answer):
    got = {}
    for o in answer["outputs"]:
        if o["type"] == "string":
            a = np.array(o["data"], dtype=object).reshape(o["dims"])
        else:
            a = np.fromfile(o["file"], dtype=np.dtype(DTYPE_OF[o["type"]]).newbyteorder("<")).reshape(o["dims"])
        got[o["name"]] = a
    return got


def similar(ref, out):
    """ONNX backend tests' assert_similar_outputs: None when out matches ref, else how it does not."""
    if out is None:
        return "missing"
    if ref.dtype != out.dtype and not (ref.dtype.kind == "O" and out.dtype.kind == "O"):
        return "dtype %s, expected %s" % (out.dtype, ref.dtype)
    if ref.shape != out.shape:
        return "shape %s, expected %s" % (list(out.shape), list(ref.shape))
    if ref.dtype.kind in "OUS" or ref.dtype.kind in "biu":
        bad = int(np.sum(ref != out))
        return None if bad == 0 else "%d of %d elements differ" % (bad, ref.size)
    r, o = ref.astype(np.float64), out.astype(np.float64)
    with np.errstate(invalid="ignore"):
        ok = (np.abs(o - r) <= ATOL + RTOL * np.abs(r)) | (np.isnan(r) & np.isnan(o)) | (r == o)
    if ok.all():
        return None
    diff = np.abs(o - r)[~ok]
    return "%d of %d elements beyond rtol %g atol %g (largest difference %.3g)" % (
        int((~ok).sum()), ref.size, RTOL, ATOL, float(np.nanmax(diff)) if diff.size else float("nan"))


def bitwise(a, b):
    if a is None or b is None or a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "O":
        return bool(np.all(a == b))
    return a.tobytes() == b.tobytes()


def convert(args, test, work):
    """graphopt convert: (status, stdout, stderr); status None when it ran past the time limit."""
    out = os.path.join(work, "out.onnx")
    cmd = [args.graphopt, "convert", test["model"], "-o", out]
    if args.rules:
        cmd = [args.graphopt, "optimize", test["model"], "-o", out, "--rules", args.rules, "--time-limit", "5"] + \
            (["--search", args.search] if args.search else [])
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
                           timeout=args.timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", "graphopt ran past %d s" % args.timeout


def judge(args, ort, test, work, converted):
    """The test's record: verdict, reason, what each side did."""
    r = {"suite": test["suite"], "name": test["name"]}
    try:
        sets = prepare(test, work)
        r["untestable"] = None
    except Untestable as e:
        sets, r["untestable"] = None, str(e)
    except Exception as e:  # onnx cannot load the test's files
        sets, r["untestable"] = None, "onnx cannot load the test: %s" % str(e).splitlines()[0][:160]

    # graphopt
    rc, so, se = converted.result()
    r["graphopt_status"] = rc
    if args.rules:  # optimize: 1 and 2 say nothing was written; read counts what it optimized
        r["read"] = rc == 0
        r["written"] = rc == 0 and os.path.exists(os.path.join(work, "out.onnx"))
    else:
        r["read"] = rc is not None and "imported in " in so
        r["written"] = rc == 0 and "exported in " in so
    lines = se.strip().splitlines()  # optimize's error comes after its progress lines
    r["graphopt_message"] = (lines[-1] if args.rules else lines[0]) if lines else ""
    if rc not in ((0, 1, 2) if args.rules else (0, 2)):
        r["verdict"] = "GRAPHOPT-CRASH"
        r["reason"] = r["graphopt_message"] or ("killed by signal %d" % -rc if rc and rc < 0 else "exit status %s" % rc)
        return r

    if sets is None:
        r["verdict"], r["reason"] = "untestable", r["untestable"]
        return r

    # onnxruntime on the original, then on the written model
    orig, written = [], []
    for k, (feeds, expected) in enumerate(sets):
        a = ort.run({"id": "%s/%s/%d" % (test["suite"], test["name"], k), "model": test["model"],
                     "inputs": feeds, "out": os.path.join(work, "orig%d" % k)})
        orig.append(a)
        if not a["ok"]:
            break
    r["ort_runs"] = all(a["ok"] for a in orig)
    if not r["ort_runs"]:
        bad = next(a for a in orig if not a["ok"])
        r["ort_message"] = "%s: %s" % (bad["stage"], bad["error"])
        if bad["stage"] == "feed":
            r["verdict"], r["reason"] = "untestable", "onnxruntime-node cannot feed it: " + normalize_ort(bad["error"])
        elif bad["stage"] == "fetch":
            r["verdict"], r["reason"] = "untestable", "onnxruntime-node cannot fetch it: " + normalize_ort(bad["error"])
        elif r["read"]:
            r["verdict"], r["reason"] = "ort-refuses-read", normalize_ort(r["ort_message"])
        else:
            r["verdict"], r["reason"] = "ort-refuses", normalize_ort(r["ort_message"])
        return r
    orig_out = [outputs_of(a) for a in orig]
    miss = [similar(ref, got.get(name)) for (_, expected), got in zip(sets, orig_out) for name, ref in expected]
    r["ort_matches_expected"] = all(m is None for m in miss)
    if not r["ort_matches_expected"]:
        r["ort_mismatch"] = next(m for m in miss if m is not None)

    if not r["written"]:
        r["verdict"] = "not-read" if not r["read"] else "not-written"
        r["reason"] = normalize(r["graphopt_message"])
        return r

    out = os.path.join(work, "out.onnx")
    for k, (feeds, expected) in enumerate(sets):
        b = ort.run({"id": "%s/%s/%d/written" % (test["suite"], test["name"], k), "model": out,
                     "inputs": feeds, "out": os.path.join(work, "written%d" % k)})
        if not b["ok"]:
            r["verdict"] = "WRITTEN-ORT-REFUSES"
            r["reason"] = normalize_ort("%s: %s" % (b["stage"], b["error"]))
            r["ort_message"] = "%s: %s" % (b["stage"], b["error"])
            return r
        written.append(outputs_of(b))
    same, worst, random = True, None, None
    for k, ((feeds, expected), o, w) in enumerate(zip(sets, orig_out, written)):
        for name, ref in expected:
            if bitwise(o.get(name), w.get(name)):
                continue
            same = False
            if random is None:  # does onnxruntime give the original's outputs again? (random operators)
                again = ort.run({"id": "%s/%s/%d/again" % (test["suite"], test["name"], k), "model": test["model"],
                                 "inputs": feeds, "out": os.path.join(work, "again%d" % k)})
                random = not again["ok"] or not all(bitwise(o.get(n), v) for n, v in outputs_of(again).items())
            if random:  # then only the types and shapes can be compared
                why = None if o.get(name) is not None and w.get(name) is not None and \
                    (o[name].dtype, o[name].shape) == (w[name].dtype, w[name].shape) else "type or shape differs"
            else:  # against the expected outputs where onnxruntime's own meet them, else against those
                base = ref if similar(ref, o.get(name)) is None else o.get(name)
                why = similar(base, w.get(name))
            if why is not None and worst is None:
                worst = "output %s: %s" % (name, why)
    if same:
        r["verdict"], r["reason"] = "equal", ""
    elif worst is None:
        r["verdict"] = "close"
        r["reason"] = "onnxruntime's outputs vary from run to run: types and shapes agree" if random else \
            "not bitwise equal, within the tolerance"
    else:
        r["verdict"], r["reason"] = "DIFFERS", worst
    return r


# ---------------------------------------------------------------------------------------------


def find_tests(suite_dir, only):
    suite = os.path.basename(os.path.normpath(suite_dir))
    tests = []
    for d in sorted(glob.glob(os.path.join(suite_dir, "*", ""))):
        name = os.path.basename(os.path.normpath(d))
        if only and name not in only:
            continue
        m = os.path.join(d, "model.onnx")
        if os.path.isfile(m) and glob.glob(os.path.join(d, "test_data_set_*")):
            tests.append({"suite": suite, "name": name, "dir": d, "model": m})
    return tests


def report(records, suites, verbose, out=sys.stdout):
    w = out.write
    cols = ["models", "ORT runs", "read", "written"] + VERDICTS
    w("%-18s" % "suite" + "".join("%*s" % (max(len(c), 5) + 2, c) for c in cols) + "\n")
    by_suite = collections.defaultdict(list)
    for r in records:
        by_suite[r["suite"]].append(r)
    rows = [(s, by_suite[s]) for s in suites] + ([("all", records)] if len(suites) > 1 else [])
    for s, rs in rows:
        v = collections.Counter(r["verdict"] for r in rs)
        vals = [len(rs), sum(1 for r in rs if r.get("ort_runs")), sum(1 for r in rs if r["read"]),
                sum(1 for r in rs if r["written"])] + [v[x] for x in VERDICTS]
        w("%-18s" % s + "".join("%*d" % (max(len(c), 5) + 2, n) for c, n in zip(cols, vals)) + "\n")
    n_mis = sum(1 for r in records if r.get("ort_runs") and not r.get("ort_matches_expected"))
    w("(ORT runs: onnxruntime opens and runs the original; %d of those miss the expected outputs by rtol %g, "
      "atol %g. equal: bitwise; close: within that tolerance)\n" % (n_mis, RTOL, ATOL))
    for v in VERDICTS:
        rs = [r for r in records if r["verdict"] == v and r["verdict"] != "equal"]
        if not rs:
            continue
        w("%s: %d, by reason:\n" % (v, len(rs)))
        for reason, n in collections.Counter(r["reason"] for r in rs).most_common():
            w("  %5d  %s\n" % (n, reason))
    for r in records:
        if r["verdict"] in WRONG:
            w("FAIL %s: %s/%s: %s\n" % (r["verdict"], r["suite"], r["name"], r.get("ort_message") or r["reason"]))
            if r["verdict"] != "GRAPHOPT-CRASH" and r.get("graphopt_message"):
                w("    graphopt: %s\n" % r["graphopt_message"])
        elif verbose and r["verdict"] != "equal":
            detail = r.get("graphopt_message") if r["verdict"] in ("not-read", "not-written") else \
                r.get("ort_message") or r["reason"]
            detail = re.sub(r"^graphopt: [^ ]*\.onnx: ", "", detail or "")
            w("%s: %s/%s: %s\n" % (r["verdict"], r["suite"], r["name"], detail))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graphopt", required=True)
    ap.add_argument("suites", nargs="*", help="suite folders (default: %s under %s)" % (", ".join(SUITES), DATA))
    ap.add_argument("-v", "--verbose", action="store_true", help="a line per test that is not bitwise equal")
    ap.add_argument("--strict", action="store_true",
                    help="fail also where ORT runs a test and graphopt does not write it, or writes it not bitwise "
                    "equal, or where graphopt reads what ORT refuses")
    ap.add_argument("--jobs", type=int, default=2, help="graphopt runs at a time (default 2)")
    ap.add_argument("--work", help="keep the converted models and outputs here (default: a temporary folder)")
    ap.add_argument("--json", help="write every test's record here")
    ap.add_argument("--only", help="comma-separated test names")
    ap.add_argument("--every", type=int, default=1, metavar="N",
                    help="every Nth test of each suite in name order, the first included (default 1: all; the "
                    "sanitizer build samples, where each graphopt start is slower)")
    ap.add_argument("--timeout", type=int, default=120, help="seconds for one graphopt or onnxruntime run")
    ap.add_argument("--level", default="all", help="onnxruntime's graph optimization level (default all)")
    ap.add_argument("--rules", help="`graphopt optimize --rules RULES --time-limit 5` instead of convert (then "
                    "`close` is no failure with --strict; the first run proves the rules, minutes, unless cached)")
    ap.add_argument("--search", help="with --rules: graphopt optimize's --search")
    args = ap.parse_args()
    suites = args.suites or [os.path.join(DATA, s) for s in SUITES]
    missing = [s for s in suites if not os.path.isdir(s)]
    if missing:
        print("skip: no test data at %s (scripts/setup.sh installs libonnx-testdata)" % ", ".join(missing))
        return 77
    if not shutil.which("node") or not os.path.isdir(os.path.join(MODELS, "node_modules", "onnxruntime-node")):
        print("skip: no node or models/node_modules/onnxruntime-node (scripts/setup.sh installs them)")
        return 77
    if not os.access(args.graphopt, os.X_OK):
        print("ort_suite: %s is not an executable" % args.graphopt, file=sys.stderr)
        return 2
    only = set(args.only.split(",")) if args.only else None
    tests = [t for s in suites for t in find_tests(s, only)[::max(1, args.every)]]
    if args.every > 1:
        print("sampled: every %dth test of each suite, %d in all" % (args.every, len(tests)))
    names = [os.path.basename(os.path.normpath(s)) for s in suites]

    work = args.work or tempfile.mkdtemp(prefix="ort_suite.")
    os.makedirs(work, exist_ok=True)
    t0 = time.monotonic()
    records = []
    log = open(os.path.join(work, "onnxruntime.log"), "w")
    ort = Ort(args, log)
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            jobs = []
            for t in tests:
                d = os.path.join(work, t["suite"], t["name"])
                os.makedirs(d, exist_ok=True)
                jobs.append((t, d, pool.submit(convert, args, t, d)))
            for t, d, fut in jobs:
                records.append(judge(args, ort, t, d, fut))
                if not args.work:
                    shutil.rmtree(d, ignore_errors=True)
    finally:
        ort.stop()
        log.close()
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    report(records, names, args.verbose)
    print("%d tests in %.0f s (onnxruntime-node %s level %s, one thread; graphopt %d at a time)" % (
        len(records), time.monotonic() - t0, ort_version(), args.level, args.jobs))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"suites": names, "rtol": RTOL, "atol": ATOL, "level": args.level, "tests": records}, f, indent=1)
    wrong = sum(1 for r in records if r["verdict"] in WRONG)
    short = sum(1 for r in records if r["verdict"] in SHORT_OF_TARGET and not (args.rules and r["verdict"] == "close"))
    if wrong:
        print("ort_suite: %d tests written wrong (a bug)" % wrong)
    if args.strict and short:
        print("ort_suite: --strict: %d tests short of the target (close, not-read, not-written, ort-refuses-read)" % short)
    return 1 if wrong or (args.strict and short) else 0


def ort_version():
    try:
        with open(os.path.join(MODELS, "node_modules", "onnxruntime-node", "package.json")) as f:
            return json.load(f)["version"]
    except (OSError, ValueError, KeyError):
        return "?"


if __name__ == "__main__":
    sys.exit(main())
