#!/usr/bin/python3
"""bench/models-in-out.py: the figures of bench/README.md's "Models in and out" (issue 41).

1. Conformance table: tests/conformance/ort_suite.py over libonnx-testdata's node,
   pytorch-converted, pytorch-operator and simple suites (every test through onnxruntime as it
   is, `graphopt convert`, and onnxruntime on the written model), one row per suite: models,
   those onnxruntime runs, and of those how many graphopt reads, writes, and how many the written
   model gives bitwise onnxruntime's outputs on the original (or within the suite's tolerance).
   The `real` suite is looked at too: where a test has only data.json (a URL to download), it
   is said so, not counted.
2. Import and export of big models: `/usr/bin/time -v graphopt convert` (wall and CPU time, peak RSS, and
   graphopt's own import and export times; the median of REPEAT runs) on the zoo's BERT-base
   (models/zoo.py, built into OUT/zoo when missing) and on the same model saved with its weights
   as external data (onnx.save_model(..., save_as_external_data=True), one data file), whose
   written model, where graphopt writes one, is run in onnxruntime against the original
   (models/ort_run.js, the same drawn inputs, outputs compared bitwise). The external one is
   written with its weights in OUT.data, as it was read. Also the peak RSS of import alone
   (`graphopt info`): against the weights' size, how many copies of them import holds at once.

Prints markdown; --json FILE keeps the figures.

    /usr/bin/python3 bench/models-in-out.py [--graphopt build/tools/graphopt] [--out build/bench-inout]
        [--repeat 3] [--models bert] [--skip-suites] [--skip-models]
"""
import argparse
import collections
import json
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np
import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = "/usr/share/libonnx-testdata/data"
SUITES = ["node", "pytorch-converted", "pytorch-operator", "simple"]


def suites_table(args):
    js = os.path.join(args.out, "conformance.json")
    cmd = ["/usr/bin/python3", os.path.join(ROOT, "tests/conformance/ort_suite.py"), "--graphopt", args.graphopt,
           "--json", js]
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    secs = time.monotonic() - t0
    with open(os.path.join(args.out, "conformance.txt"), "w") as f:
        f.write(p.stdout)
    if p.returncode not in (0, 1):
        sys.exit("ort_suite.py: exit %d\n%s" % (p.returncode, p.stdout))
    d = json.load(open(js))
    rows = []
    by = collections.defaultdict(list)
    for r in d["tests"]:
        by[r["suite"]].append(r)
    for s in d["suites"] + ["all"]:
        rs = d["tests"] if s == "all" else by[s]
        runs = [r for r in rs if r.get("ort_runs")]
        v = collections.Counter(r["verdict"] for r in rs)
        rows.append({
            "suite": s, "models": len(rs), "ort_runs": len(runs),
            "read": sum(r["read"] for r in runs), "written": sum(r["written"] for r in runs),
            "equal": v["equal"], "close": v["close"],
            "wrong": v["DIFFERS"] + v["WRITTEN-ORT-REFUSES"] + v["GRAPHOPT-CRASH"],
            "ort_refuses": v["ort-refuses"] + v["ort-refuses-read"], "ort_refuses_read": v["ort-refuses-read"],
            "untestable": v["untestable"],
        })
    reasons = collections.Counter(r["reason"] for r in d["tests"] if r["verdict"] in ("not-read", "not-written"))
    wrong = [r for r in d["tests"] if r["verdict"] in ("DIFFERS", "WRITTEN-ORT-REFUSES", "GRAPHOPT-CRASH")]
    return {"rows": rows, "seconds": secs, "status": p.returncode, "top_reasons": reasons.most_common(15),
            "wrong": [{k: r.get(k) for k in ("suite", "name", "verdict", "reason", "ort_message")} for r in wrong],
            "close": [(r["suite"], r["name"], r["reason"]) for r in d["tests"] if r["verdict"] == "close"],
            "refused_read": [(r["suite"], r["name"], r["reason"]) for r in d["tests"]
                             if r["verdict"] == "ort-refuses-read"]}


def real_suite():
    out = []
    d = os.path.join(DATA, "real")
    for t in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        files = sorted(os.listdir(os.path.join(d, t)))
        has_model = "model.onnx" in files
        url = ""
        if "data.json" in files:
            try:
                url = json.load(open(os.path.join(d, t, "data.json"))).get("url", "")
            except ValueError:
                pass
        out.append({"name": t, "model": has_model, "files": files, "url": url})
    return out


def time_v(cmd):
    """Run cmd under /usr/bin/time -v: (status, stdout, stderr, wall s, CPU s (user + system), peak RSS MB)."""
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       errors="replace")
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([0-9.]+)", p.stderr)
    secs = (int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))) if wall else float("nan")
    cpu = sum(float(x) for x in re.findall(r"(?:User|System) time \(seconds\): ([0-9.]+)", p.stderr))
    err = "\n".join(l for l in p.stderr.splitlines() if not l.startswith("\t") and "Command" not in l)
    return p.returncode, p.stdout, err, secs, cpu, int(rss.group(1)) / 1024 if rss else float("nan")


def convert_figures(args, path, name):
    out = os.path.join(args.out, name + ".rt.onnx")
    runs = []
    for _ in range(args.repeat):
        rc, so, se, wall, cpu, rss = time_v([args.graphopt, "convert", path, "-o", out])
        imp = re.search(r"imported in ([0-9.]+) s", so)
        exp = re.search(r"exported in ([0-9.]+) s", so)
        runs.append({"status": rc, "wall": wall, "cpu": cpu, "rss": rss, "import": float(imp.group(1)) if imp else None,
                     "export": float(exp.group(1)) if exp else None, "message": se.strip().splitlines()[0] if se.strip() else ""})
        if rc:
            break
    ok = [r for r in runs if r["status"] == 0]
    res = {"model": name, "file": path, "runs": runs, "status": runs[-1]["status"], "message": runs[-1]["message"],
           "mb": os.path.getsize(path) / 1e6}
    if ok:
        for k in ("wall", "cpu", "rss", "import", "export"):
            res[k] = statistics.median(r[k] for r in ok)
        res["written_mb"] = os.path.getsize(out) / 1e6
        # a model read with external data is written with it: OUT.data beside OUT
        res["side_mb"] = os.path.getsize(out + ".data") / 1e6 if os.path.exists(out + ".data") else 0.0
        # import alone (`graphopt info`): its peak RSS against the weights' size says how many
        # copies of them import holds at once
        res["info_rss"] = statistics.median(time_v([args.graphopt, "info", path, "-q"])[5] for _ in range(args.repeat))
        res["ort"] = ort_compare(args, path, out, name)
    return res


def ort_compare(args, a, b, name):
    """onnxruntime on the original and on the written model, the same drawn inputs: bitwise?"""
    ja, jb = os.path.join(args.out, name + ".ort.json"), os.path.join(args.out, name + ".rt.ort.json")
    node = ["node", os.path.join(ROOT, "models/ort_run.js")]
    for cmd in (node + [a, "--seed", "7", "--int-max", "30522", "--out", ja, "--quiet"],
                node + [b, "--inputs", ja, "--out", jb, "--quiet"]):
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode:
            return {"ok": False, "error": p.stdout.strip().splitlines()[-1] if p.stdout.strip() else "exit %d" % p.returncode}
    x, y = json.load(open(ja)), json.load(open(jb))
    diffs = []
    for u, v in zip(x["outputs"], y["outputs"]):
        p, q = np.asarray(u["data"], dtype=np.float64), np.asarray(v["data"], dtype=np.float64)
        diffs.append(0.0 if np.array_equal(p, q) else float(np.abs(p - q).max() / max(np.abs(p).max(), 1e-30)))
    return {"ok": True, "bitwise": all(dd == 0.0 for dd in diffs), "max_rel": max(diffs) if diffs else 0.0}


def models_figures(args):
    zoo = os.path.join(args.out, "zoo")
    res = []
    for m in args.models.split(","):
        path = os.path.join(zoo, m + ".onnx")
        if not os.path.exists(path):
            subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "models/zoo.py"), zoo, "--only", m], check=True,
                           stdout=subprocess.DEVNULL)
        res.append(convert_figures(args, path, m))
        ext_dir = os.path.join(args.out, m + "_external")
        ext = os.path.join(ext_dir, m + "_external.onnx")
        if not os.path.exists(ext):
            os.makedirs(ext_dir, exist_ok=True)
            model = onnx.load(path)
            onnx.save_model(model, ext, save_as_external_data=True, all_tensors_to_one_file=True,
                            location=m + "_external.onnx.data", size_threshold=1024)
            del model
        r = convert_figures(args, ext, m + "_external")
        r["mb"] += os.path.getsize(os.path.join(ext_dir, m + "_external.onnx.data")) / 1e6
        res.append(r)
    return res


def markdown(fig):
    w = sys.stdout.write
    if "suites" in fig:
        s = fig["suites"]
        w("| suite | models | ORT runs | graphopt reads | writes | equal in ORT (bitwise) | within tolerance | "
          "wrong | ORT refuses (graphopt reads) | untestable |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
        for r in s["rows"]:
            b = "**" if r["suite"] == "all" else ""
            w("| %s%s%s | %d | %d | %d | %d | %d | %d | %d | %d (%d) | %d |\n" % (
                b, r["suite"], b, r["models"], r["ort_runs"], r["read"], r["written"], r["equal"], r["close"],
                r["wrong"], r["ort_refuses"], r["ort_refuses_read"], r["untestable"]))
        w("\n(%.0f s, ort_suite.py exit %d)\n\nWhy graphopt does not read or write a model ORT runs (top reasons):\n\n"
          % (s["seconds"], s["status"]))
        for reason, n in s["top_reasons"]:
            w("- %d: %s\n" % (n, reason))
        for key, title in (("wrong", "Written wrong"), ("close", "Not bitwise"), ("refused_read", "ORT refuses, graphopt reads")):
            if s[key]:
                w("\n%s:\n\n" % title)
                for x in s[key]:
                    w("- %s\n" % (json.dumps(x) if isinstance(x, dict) else " / ".join(x)))
    if "real" in fig:
        w("\nreal: %s\n" % "; ".join("%s: %s" % (t["name"], "model.onnx" if t["model"] else
                                                  "only %s (%s)" % (",".join(t["files"]), t["url"])) for t in fig["real"]))
    if "models" in fig:
        w("\n| model | MB | graphopt convert | import | export | wall | CPU (user + sys) | peak RSS | "
          "peak RSS, import alone | ORT: original vs written |\n|---|---:|---|---:|---:|---:|---:|---:|---:|---|\n")
        for r in fig["models"]:
            if r["status"] == 0:
                o = r["ort"]
                ortcell = ("bitwise equal" if o["bitwise"] else "max rel %.2g" % o["max_rel"]) if o["ok"] else \
                    "ORT: " + o["error"]
                side = " + %.1f MB side file" % r["side_mb"] if r.get("side_mb") else ""
                w("| %s | %.1f | written (%.1f MB%s) | %.3f s | %.3f s | %.2f s | %.2f s | %.0f MiB | %.0f MiB | %s |\n" % (
                    r["model"], r["mb"], r["written_mb"], side, r["import"], r["export"], r["wall"], r["cpu"], r["rss"],
                    r["info_rss"], ortcell))
            else:
                w("| %s | %.1f | refused (exit %d): %s | | | %.2f s | %.2f s | %.0f MiB | | |\n" % (
                    r["model"], r["mb"], r["status"], re.sub(r"^graphopt: [^ ]*: ", "", r["message"]),
                    r["runs"][-1]["wall"], r["runs"][-1]["cpu"], r["runs"][-1]["rss"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graphopt", default=os.path.join(ROOT, "build/tools/graphopt"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build/bench-inout"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--models", default="bert", help="zoo models, comma-separated (default bert: BERT-base)")
    ap.add_argument("--skip-suites", action="store_true")
    ap.add_argument("--skip-models", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    fig = {"graphopt": args.graphopt,
           "commit": subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                                    text=True).stdout.strip()}
    if not args.skip_suites:
        fig["suites"] = suites_table(args)
        fig["real"] = real_suite()
    if not args.skip_models:
        fig["models"] = models_figures(args)
    markdown(fig)
    if args.json:
        json.dump(fig, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main())
