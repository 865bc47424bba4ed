#!/usr/bin/env python3
"""screen-sass.py -- SASS instructions a pair of the first-stage screen
(phase S of gpu/pair/epilogue.cuh) in one kernel of a built object.

    cuobjdump -sass -arch sm_90a build/gpu/pair/count_wgmma.cu.o > wg.sass
    python3 scripts/screen-sass.py wg.sass [kernel-substring]

The default kernel is k_wgmma<2, GK_BOOST> (mangled k_wgmmaILi2ELi0E).  Phase
S runs from the barrier after the products are staged to the survivors'
prefix sum (the first SHFL.UP).  Each pair's screen is one BSSY..BSYNC block
holding nine MUFU.RCP (the compiler branched around the screen of a pair
that is not valid; since branch n1k24 phase S has no branch a pair and
this script finds no blocks: scripts/ncu-regions.py splits the executed
instructions by region instead); the blocks of the older screen (EPISTREAM_GPU_SCREEN=1)
are the ones that guard their reciprocals with FMNMX ..., 1.  For each form
it prints the pairs' blocks (the products' loads, the bound and the keep
decision: the screen proper), the same with the instructions between blocks
(the pair's validity test, the row constants), and the whole-block screen
arithmetic alone (from the first conversion to the last FMNMX/FFMA before
the decision).  cuobjdump is in the CUDA toolkit (or PyPI's
nvidia-cuda-cuobjdump)."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sass_parse  # noqa: E402


def main():
    path = sys.argv[1]
    want = sys.argv[2] if len(sys.argv) > 2 else "k_wgmmaILi2ELi0E"
    funcs = {f: [t for _, t in ins] for f, ins in sass_parse.functions(path).items()}
    names = [f for f in funcs if want in f]
    if not names:
        sys.exit("no kernel matching %s" % want)
    code = funcs[names[0]]
    def pair_blocks(start, end):
        blocks, i = [], start
        while i < end:
            if code[i].startswith("BSSY"):
                j = next((k for k in range(i, end) if code[k].startswith("BSYNC")), None)
                if j is None:
                    break
                if sum(s.startswith("MUFU.RCP") for s in code[i:j + 1]) == 9:
                    blocks.append((i, j))
                i = j + 1
            else:
                i += 1
        return blocks

    best = None
    for start in (i for i, s in enumerate(code) if "BAR.SYNC" in s):
        end = next((k for k in range(start, len(code)) if "SHFL.UP" in code[k]), None)
        if end is None:
            continue
        b = pair_blocks(start, end)
        if best is None or len(b) > len(best[2]):
            best = (start, end, b)
    if not best or not best[2]:
        sys.exit("no screen in %s: no BSSY..BSYNC block of nine MUFU.RCP a pair (phase S without a "
                 "branch a pair, as since branch n1k24, interleaves the pairs: count it from Nsight "
                 "Compute's source counters with scripts/ncu-regions.py)" % names[0])
    start, end, blocks = best
    forms = {}
    last = {}
    for (i, j) in blocks:
        body = code[i:j + 1]
        old = any(re.match(r"FMNMX R\d+, R\d+, 1, !PT", s) for s in body)
        name = "older (EPISTREAM_GPU_SCREEN=1)" if old else "default"
        f = forms.setdefault(name, [0, 0, 0, 0, 0])
        f[0] += 1
        f[1] += len(body)
        if name in last:  # the instructions since the form's previous pair
            f[2] += i - last[name] - 1
            f[3] += 1
        last[name] = j
        first = next(k for k, s in enumerate(body) if s.startswith(("I2FP", "IADD3", "IMAD.IADD", "LOP3")))
        end_ar = max(k for k, s in enumerate(body) if s.startswith(("FMNMX", "FFMA")))
        f[4] += end_ar - first + 1
    print("kernel %s: phase S %d instructions (both forms), %d pair blocks" % (names[0], end - start, len(blocks)))
    for name, (n, blk, gap, ngap, core) in forms.items():
        between = gap / ngap if ngap else 0.0
        print("  %-32s %2d pairs: %6.1f a pair in the block, %6.1f with the validity test between blocks, "
              "%6.1f the bound's arithmetic" % (name, n, blk / n, blk / n + between, core / n))

if __name__ == "__main__":
    main()
