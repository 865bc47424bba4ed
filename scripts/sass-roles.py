#!/usr/bin/env python3
"""sass-roles.py -- a warp-specialised kernel's stall samples split by role
(the producer, consumer and epilogue warpgroups of count_ws.cu's k_ws).

    cuobjdump -sass -arch sm_90a build/gpu/pair/count_ws.cu.o > ws.sass
    ncu --set full ... -o late; ncu -i late.ncu-rep --page source --csv --print-source sass > late.csv
    python3 scripts/sass-roles.py ws.sass KERNEL-SUBSTRING late.csv [TOP]

Each instruction's role is found from the control-flow graph: the
instructions reachable from each setmaxnreg (USETMAXREG: 0x58 = 88 registers,
the epilogue groups; 0x40 = 64, the consumers; 0x18 = 24, the producer) up to
EXIT belong to that role, and the ones before them to 'pre'.  The CSV (ncu's
source page of the same build) gives each instruction's stall samples,
executed instructions and samples by reason; the script prints, per role, its
share of the samples and of the instructions, the instructions spent
spinning on mbarriers (SYNCS.PHASECHK and the branch after it), its largest
stall reasons, and then the TOP (default 25) instructions by samples.
scripts/device-ws-steady.sh's ncu part writes such a CSV (late.sass.csv)."""
import collections
import csv
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sass_parse  # noqa: E402

ROLE = {"0x58": "epi", "0x40": "cons", "0x18": "prod"}


def load_sass(path, want):
    funcs = sass_parse.functions(path)
    names = [f for f in funcs if want in f]
    if not names:
        sys.exit("no kernel matching %s in %s" % (want, path))
    return names[0], funcs[names[0]]


def roles(code):
    idx = {a: i for i, (a, _) in enumerate(code)}

    def succ(i):
        s = code[i][1]
        body = re.sub(r"^@!?U?P\w+\s+", "", s)
        op = body.split()[0] if body.split() else ""
        cond = s.startswith("@")
        nxt = [i + 1] if i + 1 < len(code) else []
        if op.startswith(("EXIT", "RET")):
            return nxt if cond else []
        m = re.search(r"(0x[0-9a-f]+)\s*$", body)
        if op.startswith(("BRA", "JMP")) and m:
            t = [idx[int(m.group(1), 16)]] if int(m.group(1), 16) in idx else []
            return t + (nxt if cond else [])
        if op.startswith("BSSY") and m and int(m.group(1), 16) in idx:
            return [idx[int(m.group(1), 16)]] + nxt
        return nxt

    lab = collections.defaultdict(set)
    for e, (_, s) in enumerate(code):
        if "USETMAXREG" not in s:
            continue
        name = ROLE.get(re.findall(r"0x[0-9a-f]+", s)[-1], s)
        seen, todo = {e}, [e]
        while todo:
            for j in succ(todo.pop()):
                if j not in seen:
                    seen.add(j)
                    todo.append(j)
        for i in seen:
            lab[i].add(name)
    return lab


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    name, code = load_sass(sys.argv[1], sys.argv[2])
    top_n = int(sys.argv[4]) if len(sys.argv) > 4 else 25
    lab = roles(code)
    rows = list(csv.reader(open(sys.argv[3])))
    hdr, data = rows[1], rows[2:]
    col = {h: i for i, h in enumerate(hdr)}
    if len(data) != len(code):
        sys.exit("the CSV has %d instructions, %s has %d: not the same build" % (len(data), name, len(code)))
    reasons = [h for h in hdr if h.startswith("stall_") and "(Not" not in h]
    num = lambda r, h: int(r[col[h]] or 0)
    agg = collections.defaultdict(collections.Counter)
    who = lambda i: ",".join(sorted(lab.get(i, {"pre"})))
    for i, r in enumerate(data):
        c = agg[who(i)]
        s, ie = num(r, "Warp Stall Sampling (All Samples)"), num(r, "Instructions Executed")
        c["samples"] += s
        c["inst"] += ie
        if "PHASECHK" in code[i][1] or ("BRA" in code[i][1] and i and "PHASECHK" in code[i - 1][1]):
            c["spin"] += ie
        for h in reasons:
            c[h] += num(r, h)
    ts = sum(c["samples"] for c in agg.values()) or 1
    ti = sum(c["inst"] for c in agg.values()) or 1
    print(name)
    for role, c in sorted(agg.items(), key=lambda x: -x[1]["samples"]):
        print("%-5s samples %8d (%5.1f %%)  instructions %11d (%5.1f %%)  spinning on mbarriers %10d" %
              (role, c["samples"], 100.0 * c["samples"] / ts, c["inst"], 100.0 * c["inst"] / ti, c["spin"]))
        top = sorted(((c[h], h) for h in reasons), reverse=True)[:6]
        print("      " + ", ".join("%s %.1f %%" % (h[6:], 100.0 * v / max(c["samples"], 1)) for v, h in top))
    print("the %d instructions with the most samples:" % top_n)
    order = sorted(range(len(data)), key=lambda i: -num(data[i], "Warp Stall Sampling (All Samples)"))
    for i in order[:top_n]:
        r = data[i]
        s = num(r, "Warp Stall Sampling (All Samples)")
        best = max(reasons, key=lambda h: num(r, h))
        print("%7d %5.1f %% %-5s %05x %-60s %s" % (s, 100.0 * s / ts, who(i), code[i][0], code[i][1][:60], best[6:]))


if __name__ == "__main__":
    main()
