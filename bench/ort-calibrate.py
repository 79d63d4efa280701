#!/usr/bin/env python3
"""bench/ort-calibrate.py: the roofline's CPU figures fitted to what onnxruntime measured.

    /usr/bin/python3 bench/ort-calibrate.py [COSTS.sqlite] [--device TEXT] [-o MACHINE.txt]

Reads the rows `graphopt --cost ort` keeps in the cost cache (source "ort"; default
$XDG_CACHE_HOME/rulegen/costs.sqlite or ~/.cache/rulegen/costs.sqlite) for one device (the one
with the most rows unless --device names part of one), and fits optimizer/cost/machines/'s
three figures the way cost_roofline.c uses them, us = max(FLOPs / peak, bytes / bandwidth) +
overhead:
  overhead_us  a node's dispatch: onnxruntime's relu chains (the "ort-overhead" rows), as
               cost_ort.c derives it;
  peak_gflops  the median GFLOP/s the convolutions and products reach (FLOPs over their time
               less the overhead), among those that do more FLOPs a byte than the ridge (the
               median GFLOP/s of them all over the bandwidth found): the compute-bound ones;
  mem_gbps     the median GB/s of the nodes that do no arithmetic to speak of (relu, bias,
               ewadd, ewmul, smul, concat, split, transpose, reshape, slice, pad, pooling):
               bytes read and written over their time less the overhead;
  matmul_overhead_us  what a product costs beyond its dispatch and its bytes (onnxruntime hands
               each to its thread pool): the intercept of time against bytes moved, least
               squares over the memory-bound products (at least three sizes), less a node's
               dispatch; left out when there are too few.
Only a configuration timed alone counts (no fused bias or activation above it: "| w MASK"
with nothing after). FLOPs and bytes are cost_roofline.c's (float32, each operand read once,
each result written once). Prints the figures with the counts they come from, and writes a
machine file that `graphopt --machine FILE` reads. Timings taken beside other work measure
the scheduler too: fit on figures from an idle machine.
"""
import argparse
import os
import re
import sqlite3
import statistics
import sys

ACT_FLOPS = {"none": 0, "relu": 1, "sigmoid": 20, "tanh": 20}
MOVERS = {"relu", "bias", "ewadd", "ewmul", "smul", "concat", "split", "transpose", "reshape", "slice", "pad",
          "poolmax", "poolavg"}


def default_cache():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.environ.get("HOME", "."), ".cache")
    return os.path.join(base, "rulegen", "costs.sqlite")


def shapes(text):
    return [[int(d) for d in s.split("x")] if s != "scalar" else [] for s in text.split()]


def numel(s):
    n = 1
    for d in s:
        n *= d
    return n


def parse(config):
    """(params, inputs, outputs, fused chain) of an ort row's configuration, or None."""
    m = re.match(r"^(.*?)\s*:\s*(.*?)\s*->\s*(.*?)\s*\| w [01]*(?:\s*\|\s*(.*))?$", config)
    if not m:
        return None
    return m.group(1).split(), shapes(m.group(2)), shapes(m.group(3)), m.group(4)


def figures(op, params, ins, outs):
    """cost_roofline.c's FLOPs and bytes of one configuration."""
    out = sum(numel(s) for s in outs)
    moved = 4.0 * (sum(numel(s) for s in ins) + out)
    if op == "conv2d":  # sh sw pad act dh dw g; weights (Cout, Cin/g, KH, KW)
        w = ins[1]
        return 2.0 * out * w[1] * w[2] * w[3] + out * ACT_FLOPS.get(params[3], 0), moved
    if op == "matmul":
        return 2.0 * out * ins[0][-1] + out * ACT_FLOPS.get(params[0], 0), moved
    return 0.0, moved


def matmul_intercept(rows, overhead, ridge):
    """(intercept less overhead, count) of us against bytes over the memory-bound products."""
    pts = []
    for op, config, us in rows:
        p = parse(config) if op == "matmul" else None
        if p and not p[3]:
            flops, moved = figures(op, *p[:3])
            if flops / moved < ridge:
                pts.append((moved, us))
    if len({x for x, _ in pts}) < 3:
        return None, len(pts)
    mx, my = statistics.mean(x for x, _ in pts), statistics.mean(y for _, y in pts)
    slope = sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)
    return max(my - slope * mx - overhead, 0.0), len(pts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cache", nargs="?", default=default_cache())
    ap.add_argument("--device", help="part of the device text to fit (default: the one with the most ort rows)")
    ap.add_argument("-o", "--output", help="write the machine file here")
    a = ap.parse_args()
    db = sqlite3.connect("file:%s?mode=ro" % a.cache, uri=True)
    devices = db.execute("SELECT device, count(*) FROM costs WHERE source = 'ort' GROUP BY device "
                         "ORDER BY count(*) DESC").fetchall()
    devices = [d for d in devices if not a.device or a.device in d[0]]
    if not devices:
        sys.exit("ort-calibrate: %s holds no ort rows%s" % (a.cache, " for " + a.device if a.device else ""))
    device = devices[0][0]
    rows = db.execute("SELECT op, config, us FROM costs WHERE source = 'ort' AND device = ?", (device,)).fetchall()
    over = {c: us for op, c, us in rows if op == "ort-overhead"}
    one, many = over.get("1 relus over 1 float"), over.get("33 relus over 1 float")
    if one is None or many is None:
        sys.exit("ort-calibrate: no overhead rows for %s" % device)
    overhead = max((many - one) / 32, 0.01)
    compute, memory = [], []
    for op, config, us in rows:
        p = parse(config) if op != "ort-overhead" else None
        if not p or p[3]:
            continue
        flops, moved = figures(op, *p[:3])
        t = us - overhead
        if t <= 0:
            continue
        if op in ("conv2d", "matmul"):
            compute.append((flops / moved, flops / t / 1e3))  # (FLOPs a byte, GFLOP/s)
        elif op in MOVERS:
            memory.append(moved / t / 1e3)  # GB/s
    if not memory or not compute:
        sys.exit("ort-calibrate: too few rows to fit (%d data-movement, %d conv/matmul)" % (len(memory), len(compute)))
    gbps = statistics.median(memory)
    bound = [g for i, g in compute if i > statistics.median(g for _, g in compute) / gbps]
    peak = statistics.median(bound or [g for _, g in compute])
    text = ("# fitted by bench/ort-calibrate.py from %d onnxruntime timings of %s\n"
            "# peak_gflops: median of %d compute-bound convolutions and products\n"
            "peak_gflops %.4g\n"
            "# mem_gbps: median of %d data-movement and element-wise nodes\n"
            "mem_gbps %.4g\n"
            "# overhead_us: a node's dispatch (relu chains)\n"
            "overhead_us %.4g\n" % (len(rows), device, len(bound), peak, len(memory), gbps, overhead))
    extra, n_mm = matmul_intercept(rows, overhead, peak / gbps)
    if extra is not None:
        text += ("# matmul_overhead_us: a product's time against its bytes at 0 bytes, less a node's dispatch "
                 "(%d memory-bound products)\nmatmul_overhead_us %.4g\n" % (n_mm, extra))
    sys.stdout.write(text)
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
