#!/usr/bin/env python3
"""Makes a larger rule set for timing `rulegen prune` out of a base set (one rule per line in
our text format, e.g. tests/data/taso-133.rules): for every rule, K rounds of
  - a copy with renamed variables                       (removed by renaming)
  - an instance: one variable replaced by a small term   (removed by common subgraph)
  - the rule under a unary context on both sides         (removed by common supergraph)
  - an instance whose variable becomes a new variable pair, e.g. (ewadd ?a ?b)
and, with --mutate, rules that are NOT implied (an operator of one side swapped for another:
ewadd/ewmul/matmul, relu/tanh/sigmoid), which every stage must keep: the expensive case for
derivability, whose search then runs to its limits.
The variants are syntactic only: whether they are true is not the point (pruning never judges
truth); what matters is which are implied by the base rules, as in a real candidate set.
Usage: gen_variants.py [--mutate] BASE.rules K > OUT.rules
"""
import re
import sys

UNARY = ["relu", "tanh", "sigmoid"]
BINARY = ["ewadd", "ewmul", "matmul"]


def mutations(src, tgt, j):
    """Rules with the j-th operator occurrence of the target swapped for each alternative."""
    res = []
    for group in (BINARY, UNARY):
        occ = [m for m in re.finditer(r"\((%s) " % "|".join(group), tgt)]
        if not occ:
            continue
        m = occ[j % len(occ)]
        for alt in group:
            if alt != m.group(1):
                res.append("%s => %s(%s %s" % (src, tgt[:m.start()], alt, tgt[m.end():]))
    return res


def main():
    args = sys.argv[1:]
    mutate = args[0] == "--mutate"
    if mutate:
        args = args[1:]
    base, k = args[0], int(args[1])
    rules = []
    for line in open(base):
        line = line.split("#")[0].strip()
        if not line:
            continue
        if ":" in line.split("(")[0]:
            line = line.split(":", 1)[1].strip()
        rules.append(line)
    out = []
    for n, r in enumerate(rules):
        out.append(r)
        names = sorted(set(re.findall(r"\?(\w+)", r)))
        src, tgt = r.split(" => ")
        for j in range(k):
            ren = r
            for v in names:
                ren = re.sub(r"\?%s\b" % v, "?r%d_%s" % (j, v), ren)
            out.append(ren)
            v = names[j % len(names)]
            u = UNARY[j % len(UNARY)]
            out.append(re.sub(r"\?%s\b" % v, "(%s ?f%d)" % (u, j), r))
            b = BINARY[j % len(BINARY)]
            out.append(re.sub(r"\?%s\b" % v, "(%s ?p%d ?q%d)" % (b, j, j), r))
            if " ; " not in src:
                out.append("(%s %s) => (%s %s)" % (u, src, u, tgt))
            if mutate:
                out.extend(mutations(src, tgt, j))
    for i, r in enumerate(out):
        print("g%d: %s" % (i, r))


main()
