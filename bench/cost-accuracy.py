#!/usr/bin/env python3
"""bench/cost-accuracy.py: how well each cost model predicts what onnxruntime runs (issue 43).

    /usr/bin/python3 bench/cost-accuracy.py OUTDIR [--models a,b,...] [--graphopt BIN]
                                            [--rules R ...] [--costs roofline,dnnl,ort]
                                            [--runs N] [--min-seconds S] [--hand MODEL=PATH ...]

For each zoo model (build/zoo/M.onnx: models/zoo.py writes them) the variants are the original
and what `graphopt optimize --no-guard` makes of it under every cost model with every rule set
(the default set, and each --rules file); variants with the same bytes are one. Each variant is
then priced by every cost model (`graphopt cost`, its total in microseconds; dnnl's and ort's
timings cached in OUTDIR/costs.sqlite) and timed in onnxruntime against the original by
models/ort_compare.js (one process, interleaved pairs in alternating order, no spinning pool
threads, level 'all', 2 intra-op threads: as the ort cost model and graphopt's guard run).

Prints a row per variant (each cost model's prediction and the measured median), then per cost
model: Spearman's rank correlation between prediction and measured latency over every variant
of every model; the median relative error |predicted - measured| / measured; and, over the
variants that differ from their original, how often the predicted speed-up (original / variant
> 1) agrees in sign with the measured one, counting a measured ratio within the pairs' noise
(0.98 to 1.02) as neither. The costs leave out opaque nodes and a run's fixed overhead, so the
error says how far a total is from a whole model's time, the correlation whether it orders them.
Then per model the headroom (issue 43): the best measured ratio original / variant over every
variant (and any made by hand, --hand MODEL=PATH), and how much of it graphopt's default run
(the default set under the roofline: default/roofline) captures, as the share of the best
variant's time saving it saves, (1 - t_default / t_original) / (1 - t_best / t_original); a
model whose best variant is within the noise (ratio at most 1 + 0.02) has no headroom, said so
with that ratio. Writes OUTDIR/cost-accuracy.json with every figure. Timings need an otherwise
idle machine.
"""
import argparse
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOISE = 0.02


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit(f"cost-accuracy: {' '.join(cmd)}: exit {p.returncode}\n{p.stderr[-2000:]}")
    return p.stdout + p.stderr


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def variants(a, model, rulesets):
    """The original and graphopt's variants of it: {digest: (name, path)} in the order made."""
    src = os.path.join(a.zoo, model + ".onnx")
    out = {digest(src): ("original", src)}
    for rname, rargs in rulesets:
        for cost in a.costs:
            name = f"{rname}/{cost}"
            path = os.path.join(a.outdir, f"{model}.{rname}.{cost}.onnx")
            run([a.graphopt, "optimize", src, *rargs, "-o", path, "--cost", cost, "--no-guard", "-q",
                 "--cache", a.cache])
            d = digest(path)
            if d in out:
                print(f"  {model} {name}: the same as {out[d][0]}", flush=True)
                os.unlink(path)
            else:
                out[d] = (name, path)
    return list(out.values())


def predicted(a, path, cost):
    text = run([a.graphopt, "cost", path, "--cost", cost, "--cache", a.cache])
    m = re.search(r"total: ([0-9.]+) us", text)
    if not m:
        sys.exit(f"cost-accuracy: no total in graphopt cost {path} --cost {cost}")
    return float(m.group(1))


def measured(a, orig, path):
    """(original's median, variant's median) in ms, from one interleaved comparison."""
    text = run(["node", os.path.join(ROOT, "models", "ort_compare.js"), orig, path, "--runs", str(a.runs),
                "--min-seconds", str(a.min_seconds), "--json"])
    j = json.loads(text[text.index("{"):])
    return j["a"]["median_ms"], j["b"]["median_ms"]


def spearman(xs, ys):
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2.0
            i = j + 1
        return r
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.mean(rx), statistics.mean(ry)
    num = sum((x - mx) * (y - my) for x, y in zip(rx, ry))
    den = (sum((x - mx) ** 2 for x in rx) * sum((y - my) ** 2 for y in ry)) ** 0.5
    return num / den if den else float("nan")


def summarize(a, rows):
    print("\ncost model | Spearman (all variants) | median |error| | speed-up sign agrees (of changed, beyond noise)")
    summary = {}
    for cost in a.costs:
        pred = [r["pred"][cost] for r in rows]
        meas = [r["ms"] * 1000.0 for r in rows]
        err = statistics.median(abs(p - m) / m for p, m in zip(pred, meas))
        agree = total = 0
        for r in rows:
            if r["variant"] == "original":
                continue
            mr = r["orig_ms"] / r["ms"]
            if abs(mr - 1) <= NOISE:
                continue
            total += 1
            agree += (r["orig_pred"][cost] / r["pred"][cost] > 1) == (mr > 1)
        rho = spearman(pred, meas)
        summary[cost] = {"spearman": rho, "median_rel_error": err, "sign_agrees": agree, "sign_of": total}
        print(f"{cost} | {rho:.3f} | {err * 100:.1f}% | {agree} of {total}")
    return summary


def headroom(rows, default="default/roofline"):
    """Per model: the best variant's measured ratio and the default run's share of its saving."""
    print("\nmodel | best variant (original / variant) | default run (original / variant) | captured")
    out = {}
    for model in dict.fromkeys(r["model"] for r in rows):
        # the original against itself measures the noise, not a variant: 1 by definition
        ratio = {r["variant"]: r["orig_ms"] / r["ms"] for r in rows if r["model"] == model and r["variant"] != "original"}
        ratio["original"] = 1.0
        best = max(ratio, key=ratio.get)
        # the default run's model is the original when it changed nothing (variants are deduplicated)
        d = ratio.get(default, 1.0)
        if ratio[best] <= 1 + NOISE:
            share, said = None, f"no headroom (best {ratio[best]:.3f}, within the noise)"
        else:
            share = (1 - 1 / d) / (1 - 1 / ratio[best])
            said = f"{share * 100:.0f}%"
        out[model] = {"best": best, "best_ratio": ratio[best], "default_ratio": d, "captured": share}
        print(f"{model} | {best} {ratio[best]:.3f} | {d:.3f} | {said}")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--models", default="tiny_cnn,tiny_mlp,squeezenet,resnet50,resnext50,inception_v3,"
                    "mobilenet_v2,nasnet_a,nasrnn,vgg19,bert2")
    ap.add_argument("--zoo", default=os.path.join(ROOT, "build", "zoo"))
    ap.add_argument("--graphopt", default=os.path.join(ROOT, "build", "tools", "graphopt"))
    ap.add_argument("--rules", action="append", default=[], help="a rule set beside the default one")
    ap.add_argument("--costs", default="roofline,dnnl,ort")
    ap.add_argument("--runs", type=int, default=60)
    ap.add_argument("--min-seconds", type=float, default=4)
    ap.add_argument("--hand", action="append", default=[], metavar="MODEL=PATH",
                    help="a variant made by hand (timed against MODEL's original like the others)")
    a = ap.parse_args()
    a.costs = a.costs.split(",")
    os.makedirs(a.outdir, exist_ok=True)
    a.cache = os.path.join(a.outdir, "costs.sqlite")
    rulesets = [("default", [])] + [(os.path.basename(r).split(".")[0], ["--rules", r]) for r in a.rules]
    rows = []
    print("model | variant | " + " | ".join(f"{c} (us)" for c in a.costs) + " | measured (ms)", flush=True)
    for model in a.models.split(","):
        vs = variants(a, model, rulesets)
        vs += [(f"hand/{os.path.basename(h.split('=', 1)[1])}", h.split("=", 1)[1]) for h in a.hand
               if h.split("=", 1)[0] == model]
        orig = vs[0][1]
        orig_pred = {c: predicted(a, orig, c) for c in a.costs}
        for name, path in vs:
            pred = orig_pred if name == "original" else {c: predicted(a, path, c) for c in a.costs}
            o_ms, v_ms = measured(a, orig, path)
            rows.append({"model": model, "variant": name, "pred": pred, "orig_pred": orig_pred, "ms": v_ms,
                         "orig_ms": o_ms})
            print(f"{model} | {name} | " + " | ".join(f"{pred[c]:.1f}" for c in a.costs) +
                  f" | {v_ms:.3f} (original {o_ms:.3f})", flush=True)
    summary = summarize(a, rows)
    room = headroom(rows)
    with open(os.path.join(a.outdir, "cost-accuracy.json"), "w") as f:
        json.dump({"rows": rows, "summary": summary, "headroom": room}, f, indent=1)


if __name__ == "__main__":
    main()
