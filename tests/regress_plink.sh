#!/bin/sh
# regress_plink.sh -- src/regress against PLINK itself.  plink2: on simulated data with covariates
# (epistream sim --qt / case/control --covariates 3, missing calls included), `plink2
# --condition B --covar F --glm interaction --parameters 1-6` fits, for every variant A,
# y ~ A + B + PC1 + AGE + SEX + A*B (linear for the QT, logistic for case/control): its ADDxB
# row is our model with a = A, b = B.  Genotypes come from plink2 --export A (PLINK decodes
# them, not us); tests/regress_cli fits each pair.  BETA (logistic: ln OR), SE, T/Z and P must
# agree to 1e-4 relative of plink2's printed 6 digits (P as -log10 P; logistic STAT and P on the
# scale of max(1, |value|): plink2's IRLS stops earlier than ours), OBS_CT must be our N.
# plink1.9 --keep-allele-order --epistasis (no covariates: it ignores them) on the same files,
# 200 pairs each: its BETA_INT (logistic: OR_INT = exp(BETA)) to 1e-4, its STAT = T^2 (Z^2) to
# 1e-4 and its P (4 printed digits) = P(chi2_1 > STAT), the normal tail of T, to 1e-3
# (logistic BETA and STAT: 1e-4 of max(|value|, 0.1)).  Skips (77) without plink2,
# plink1.9 or numpy.
. "$(dirname "$0")/lib.sh"
need_cmd plink2
need_cmd plink1.9
need_python numpy
CLI=${REGRESS_CLI:-$(dirname "$EPISTREAM")/tests/regress_cli}
[ -x "$CLI" ] || fail "no $CLI (make check builds it)"

"$EPISTREAM" sim --samples 1500 --variants 40 --qt --covariates 3 --effect 0.4 --missing 0.01 \
    --seed 11 --out "$T/q" 2>/dev/null || fail "sim --qt"
"$EPISTREAM" sim --samples 2000 --variants 40 --covariates 3 --effect 3 --missing 0.01 \
    --seed 11 --out "$T/c" 2>/dev/null || fail "sim --covariates"
for d in q c; do
    B=$(sed -n 2p "$T/$d.truth" | cut -f1)
    echo "$B" >"$T/$d.cond"
    pheno=""
    [ "$d" = q ] && pheno="--pheno $T/q.pheno --pheno-name QT"
    # shellcheck disable=SC2086
    plink2 --bfile "$T/$d" $pheno --covar "$T/$d.covar" --condition "$B" --glm interaction \
        --parameters 1-6 --out "$T/$d" >"$T/$d.plink.out" 2>&1 ||
        { cat "$T/$d.plink.out" >&2; fail "plink2 --glm interaction ($d)"; }
    plink2 --bfile "$T/$d" --export A --out "$T/$d" >"$T/$d.export.out" 2>&1 ||
        { cat "$T/$d.export.out" >&2; fail "plink2 --export A ($d)"; }
    # --keep-allele-order: else plink1.9 makes the sample's minor allele A1, and a variant whose
    # .bim A1 is the major one would enter with a = 2 - (copies of A1), flipping BETA_INT's sign
    plink1.9 --bfile "$T/$d" --keep-allele-order --epistasis --epi1 1 --allow-no-sex --out "$T/$d.e19" \
        >"$T/$d.e19.out" 2>&1 || { cat "$T/$d.e19.out" >&2; fail "plink1.9 --epistasis ($d)"; }
done

"$PY" - "$CLI" "$T" <<'EOF' || fail "src/regress disagrees with plink2 --glm interaction (above)"
import glob, math, subprocess, sys
import numpy as np

cli, tmp = sys.argv[1], sys.argv[2]
bad = []
worst = 0.0
compared = 0
compared19 = 0
worst19 = 0.0

for d, kind in (("q", "linear"), ("c", "logistic")):
    cond = open("%s/%s.cond" % (tmp, d)).read().strip()
    raw = [l.split() for l in open("%s/%s.raw" % (tmp, d))]
    head, rows = raw[0], raw[1:]
    # columns: FID IID PAT MAT SEX PHENOTYPE then ID_ALLELE per variant (copies of that
    # allele); geno[id] = (copies of that allele, the allele, the other one)
    bim = [l.split() for l in open("%s/%s.bim" % (tmp, d))]
    geno = {}
    for j, b in enumerate(bim):
        vid, allele = head[6 + j].rsplit("_", 1)
        if vid != b[1] or allele not in b[4:6]:
            bad.append("%s: .raw column %s is not an allele of %s" % (d, head[6 + j], b[1]))
        x = np.array([np.nan if r[6 + j] == "NA" else float(r[6 + j]) for r in rows])
        geno[b[1]] = (x, allele)

    def copies(vid, allele):
        x, counted = geno[vid]
        return x if allele == counted else 2 - x

    a1 = {b[1]: b[4] for b in bim}
    covar = {tuple(l.split()[:2]): [float(x) for x in l.split()[2:]]
             for l in list(open("%s/%s.covar" % (tmp, d)))[1:]}
    C = np.array([covar[(r[0], r[1])] for r in rows])
    if kind == "linear":
        ph = {tuple(l.split()[:2]): float(l.split()[2]) for l in list(open(tmp + "/q.pheno"))[1:]}
        y = np.array([ph[(r[0], r[1])] for r in rows])
        out = glob.glob(tmp + "/q.QT.glm.linear")
    else:
        y = np.array([float(r[5]) - 1 for r in rows])  # .fam 1/2 -> 0/1
        out = glob.glob(tmp + "/c.PHENO1.glm.logistic*")
    if len(out) != 1:
        bad.append("%s: no plink2 result file" % d)
        continue
    lines = [l.rstrip("\n").split("\t") for l in open(out[0])]
    col = {c: i for i, c in enumerate(lines[0])}
    firth = 0
    for l in lines[1:]:
        if l[col["TEST"]] != "ADDx" + cond:
            continue
        a_id = l[col["ID"]]
        path = "%s/fit.tsv" % tmp
        # a: copies of plink2's A1 for the tested variant (it may pick either allele); b: of
        # the condition variant's ALT, the .bim's A1, as --condition counts it
        a = copies(a_id, l[col["A1"]])
        np.savetxt(path, np.column_stack([y, a, copies(cond, a1[cond]), C]), delimiter="\t")
        ours = subprocess.run([cli, kind, path], capture_output=True, text=True).stdout.split()
        if l[col["ERRCODE"]] != "." or ("FIRTH?" in col and l[col["FIRTH?"]] == "Y"):
            firth += 1
            continue
        if len(ours) != 7 or ours[6] != "ok":
            bad.append("%s %s: plink2 fitted it, we did not: %s" % (kind, a_id, ours))
            continue
        beta, se, stat = (float(x) for x in ours[:3])
        if kind == "linear":
            want = {"BETA": float(l[col["BETA"]]), "SE": float(l[col["SE"]]),
                    "STAT": float(l[col["T_STAT"]])}
        else:
            want = {"OR": float(l[col["OR"]]), "SE": float(l[col["LOG(OR)_SE"]]),
                    "STAT": float(l[col["Z_STAT"]])}
        got = {"BETA": beta, "OR": math.exp(beta), "SE": se, "STAT": stat}
        want["P"] = -math.log10(float(l[col["P"]]))  # compared as -log10 P
        got["P"] = float(ours[4])
        if int(ours[5]) != int(l[col["OBS_CT"]]):
            bad.append("%s %s: N %s, plink2 OBS_CT %s" % (kind, a_id, ours[5], l[col["OBS_CT"]]))
        for key, w in want.items():
            # 6 printed digits: a value like 0.0123456 is rounded at 5e-6 relative.  plink2's
            # logistic IRLS stops on its own, looser criterion (ours converges to 1e-10), so
            # there a statistic near 0 (z of 0.0026) or -log10 P is compared on the scale of
            # max(1, |value|)
            scale = abs(w) if kind == "linear" or key in ("OR", "SE") else max(1.0, abs(w))
            e = abs(got[key] - w) / max(scale, 1e-300)
            worst = max(worst, e)
            if e > 1e-4:
                bad.append("%s %s x %s: %s ours %.8g, plink2 %.8g (rel %.2g)"
                           % (kind, a_id, cond, key, got[key], w, e))
        compared += 1
    if firth > 3:
        bad.append("%s: %d variants plink2 could not fit plainly" % (d, firth))

    # plink1.9 --epistasis: y ~ 1 + a + b + a*b, a and b copies of the .bim's A1
    e19 = [l.split() for l in open("%s/%s.e19.epi.%s" % (tmp, d, "qt" if d == "q" else "cc"))]
    n19 = 0
    for f in e19[1:201]:
        path = "%s/fit.tsv" % tmp
        np.savetxt(path, np.column_stack([y, copies(f[1], a1[f[1]]), copies(f[3], a1[f[3]])]),
                   delimiter="\t")
        ours = subprocess.run([cli, kind, path], capture_output=True, text=True).stdout.split()
        if len(ours) != 7 or ours[6] != "ok" or "NA" in f[4:7]:
            bad.append("plink1.9 %s x %s: plink %s, ours %s" % (f[1], f[3], f[4:7], ours))
            continue
        beta, stat = float(ours[0]), float(ours[2])
        want_beta = math.log(float(f[4])) if kind == "logistic" else float(f[4])
        chi = stat * stat
        p_chi = math.erfc(abs(stat) / math.sqrt(2))  # P(chi2_1 > T^2)
        for key, g, w, tol in (("BETA_INT", beta, want_beta, 1e-4), ("STAT", chi, float(f[5]), 1e-4),
                               ("P", p_chi, float(f[6]), 1e-3)):
            # BETA_INT near 0 and ln OR_INT: 6 printed digits, so an absolute floor.  Logistic:
            # plink1.9's values of small statistics differ from a double-precision fit by ~1e-6
            # absolute (consistent with its single-precision logistic fit): floor 0.1
            floor = 0.1 if kind == "logistic" and key != "P" else 1e-2 if key == "BETA_INT" else 1e-300
            e = abs(g - w) / max(abs(w), floor)
            worst19 = max(worst19, e)
            if e > tol:
                bad.append("plink1.9 %s %s x %s: %s ours %.8g, plink %.8g (rel %.2g)"
                           % (kind, f[1], f[3], key, g, w, e))
        n19 += 1
    compared19 += n19
if compared < 70:
    bad.append("only %d pairs compared" % compared)
for m in bad:
    print(m, file=sys.stderr)
if compared19 < 400:
    bad.append("only %d pairs compared with plink1.9" % compared19)
print("regress_plink.sh: %d pairs against plink2 --glm interaction, worst relative difference "
      "%.2g; %d against plink1.9 --epistasis, worst %.2g" % (compared, worst, compared19, worst19),
      file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
exit 0
