#!/usr/bin/env python3
"""ncu-regions.py -- split one fused wgmma tile's Nsight Compute source
counters (SASS level) into the kernel's regions.

    ncu -i tile.ncu-rep --page source --csv --print-source sass > tile.sass.csv
    cuobjdump -sass -arch sm_90a build/gpu/pair/count_wgmma.cu.o > wg.sass
    python3 scripts/ncu-regions.py tile.sass.csv [wg.sass [kernel-substring]]

The regions of k_wgmma<2, STAT, FITS, PLAIN> (two planes) are found from
the SASS itself: the prologue (constants' copies, the first stages' loads)
up to the main loop's first cp.async wait (DEPBAR.LE SB0); the main loop up
to its last wgmma wait; the handoff (barrier, the products' stores); phase S
(the screen) up to the survivors' prefix sum (the first SHFL.UP); the queue
up to its barrier; what follows (the survivors' bounds and emission, the
non-dense phases).  For each region it prints the warp instructions
executed, the stall samples (all and not issued) and the largest stall
reasons when the CSV has per-reason columns.  Without the SASS file the
regions come from the CSV's own column of SASS text."""
import csv
import re
import sys


def num(v):
    try:
        return float(str(v).replace(",", ""))
    except ValueError:
        return 0.0


def main():
    rows = list(csv.reader(open(sys.argv[1], errors="replace")))
    # the header row is the first with an Address-like column
    hi = next(i for i, r in enumerate(rows) if any(c.strip() in ("Address", "# Address") for c in r))
    head = [c.strip() for c in rows[hi]]
    body = [r for r in rows[hi + 1:] if len(r) == len(head)]
    col = {h: i for i, h in enumerate(head)}
    a_col = col.get("Address", col.get("# Address"))
    src = next((col[h] for h in head if h in ("Source", "SASS")), None)
    ex = next((col[h] for h in head if h.startswith("Instructions Executed")), None)
    samp = next((col[h] for h in head if h.startswith("Warp Stall Sampling (All")), None)
    samp_ni = next((col[h] for h in head if h.startswith("Warp Stall Sampling (Not")), None)
    stall_cols = [(h, i) for h, i in col.items() if h.startswith("stall_") and "Not Issued" not in h]
    ins = []
    for r in body:
        a = r[a_col].strip()
        try:
            addr = int(a, 16)
        except ValueError:
            continue
        ins.append((addr, r[src] if src is not None else "", r))
    ins.sort()
    base = ins[0][0] if ins else 0  # the CSV gives device addresses: offsets from the kernel's start
    ins = [(a - base, t, r) for a, t, r in ins]
    # region boundaries from the SASS text
    text = [(a, s) for a, s, _ in ins]
    if len(sys.argv) > 2:
        want = sys.argv[3] if len(sys.argv) > 3 else "k_wgmmaILi2ELi0ELb0ELb1E"
        text, cur = [], False
        pat = re.compile(r"^\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
        for line in open(sys.argv[2], errors="replace"):
            if "Function :" in line:
                cur = want in line
                continue
            m = pat.match(line)
            if cur and m:
                text.append((int(m.group(1), 16), m.group(2)))

    def first(pred, after=-1):
        return next((a for a, s in text if a > after and pred(s)), None)

    def last(pred):
        return max((a for a, s in text if pred(s)), default=None)

    ml = first(lambda s: "DEPBAR.LE SB0" in s and "WARPGROUP" not in s)
    wg_last = last(lambda s: "WARPGROUP.DEPBAR" in s)
    sts = first(lambda s: s.startswith("STS.128"), wg_last or 0)
    scr = first(lambda s: "BAR.SYNC" in s, sts or 0)
    shfl = first(lambda s: "SHFL.UP" in s, scr or 0)
    qbar = first(lambda s: "BAR.SYNC" in s, shfl or 0)
    bounds = [("prologue (constants, first loads)", 0), ("main loop", ml), ("handoff (barrier, stores)", wg_last),
              ("screen (phase S)", scr), ("queue (prefix, atomics, barrier)", shfl),
              ("after the queue (bounds, emit, other phases)", (qbar or 0) + 16)]
    bounds = [(n, b) for n, b in bounds if b is not None]
    print("regions from", "the SASS file" if len(sys.argv) > 2 else "the CSV", ":",
          ", ".join("%s @%#x" % (n.split(" (")[0], b) for n, b in bounds))
    tot_e = sum(num(r[ex]) for _, _, r in ins) if ex is not None else 0
    tot_s = sum(num(r[samp]) for _, _, r in ins) if samp is not None else 0
    print("%-46s %12s %7s %9s %7s %9s  %s" % ("region", "warp instr", "share", "samples", "share", "not-iss",
                                             "largest stall reasons"))
    for k, (name, b) in enumerate(bounds):
        e = bounds[k + 1][1] if k + 1 < len(bounds) else 1 << 40
        sel = [r for a, _, r in ins if b <= a < e]
        ei = sum(num(r[ex]) for r in sel) if ex is not None else 0
        si = sum(num(r[samp]) for r in sel) if samp is not None else 0
        ni = sum(num(r[samp_ni]) for r in sel) if samp_ni is not None else 0
        reasons = sorted(((sum(num(r[i]) for r in sel), h) for h, i in stall_cols), reverse=True)[:4]
        rs = ", ".join("%s %.0f" % (h.replace("Warp Stall Sampling", "").strip(), v) for v, h in reasons if v > 0)
        print("%-46s %12.0f %6.1f%% %9.0f %6.1f%% %9.0f  %s" % (name, ei, 100 * ei / max(tot_e, 1), si,
                                                             100 * si / max(tot_s, 1), ni, rs))
    print("total: %.0f warp instructions, %.0f samples; columns: %s" % (tot_e, tot_s, ", ".join(head[:40])))


if __name__ == "__main__":
    main()
