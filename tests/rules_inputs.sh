#!/bin/sh
# rules_inputs.sh -- the rule learner's other inputs give the models of the
# same data read another way, byte for byte:
#  1. MEKA: an ARFF whose @relation name holds "-C -6" (labels last) or "-C 6"
#     (labels first, attributes reordered) = the Mulan ARFF with its XML file;
#  2. multi-label LIBSVM (written here from the same table, zeros left out,
#     examples without a label) = a CSV with the same columns (f1..fD,
#     label0..label(L-1)); predict on LIBSVM = predict on that CSV;
#  3. genotypes: --bfile with three case/control label columns of a --pheno
#     file (missing values: those samples left out) and --from a scan's
#     .top.tsv = a CSV built from plink1.9 --recode A (an independent
#     decoder) with the same variants and labels; predict with --bfile =
#     predict on that CSV, with FID/IID first; --keep applies;
#  4. malformed MEKA -C, LIBSVM lines and impossible option mixes: a message
#     naming the file or option, a non-zero exit, nothing written.
. "$(dirname "$0")/lib.sh"
need_python numpy
ML=${ES_MULTILABEL:-$ES_SRCDIR/../shared/data/multilabel}
E=$EPISTREAM
R="--max-rules 25 --quiet"

# ---- 1. MEKA -C -------------------------------------------------------------------
if [ -f "$ML/emotions.arff" ]; then
    "$E" rules train --arff "$ML/emotions.arff" --labels-xml "$ML/emotions.xml" $R --out "$T/mulan" ||
        fail "train on the Mulan files"
    sed "s/^@relation.*/@relation 'emotions: -C -6'/" "$ML/emotions.arff" >"$T/meka_last.arff"
    "$E" rules train --arff "$T/meka_last.arff" $R --out "$T/meka_last" || fail "train on MEKA -C -6"
    cmp -s "$T/mulan.model" "$T/meka_last.model" || fail "MEKA -C -6 gave another model than Mulan's XML"
    # labels first: the same attributes, the six labels moved to the front
    "$PY" - "$ML/emotions.arff" "$T/meka_first.arff" <<'PYEOF' || fail "writing the -C 6 ARFF"
import sys
lines = open(sys.argv[1]).read().splitlines()
att = [i for i, l in enumerate(lines) if l.lower().startswith('@attribute')]
data = next(i for i, l in enumerate(lines) if l.lower().startswith('@data'))
a = [lines[i] for i in att]
a = a[-6:] + a[:-6]
rows = []
for l in lines[data + 1:]:
    if not l.strip() or l.startswith('%'):
        continue
    v = l.split(',')
    rows.append(','.join(v[-6:] + v[:-6]))
with open(sys.argv[2], 'w') as f:
    f.write("@relation 'emotions: -C 6 -split 66'\n\n" + '\n'.join(a) + '\n\n@data\n' + '\n'.join(rows) + '\n')
PYEOF
    "$E" rules train --arff "$T/meka_first.arff" $R --out "$T/meka_first" || fail "train on MEKA -C 6"
    # the model names the same features and labels in the same order: the same bytes
    cmp -s "$T/mulan.model" "$T/meka_first.model" || fail "MEKA -C 6 gave another model than Mulan's XML"
    "$E" rules predict --model "$T/mulan.model" --arff "$T/meka_first.arff" --out "$T/pm" --quiet ||
        fail "predict on MEKA -C 6"
    "$E" rules predict --model "$T/mulan.model" --arff "$ML/emotions.arff" --labels-xml "$ML/emotions.xml" \
        --out "$T/px" --quiet || fail "predict on Mulan"
    cmp -s "$T/pm.pred.tsv" "$T/px.pred.tsv" && cmp -s "$T/pm.metrics.tsv" "$T/px.metrics.tsv" ||
        fail "predictions on MEKA and Mulan inputs differ"
fi

# ---- 2. multi-label LIBSVM ---------------------------------------------------------
"$PY" - "$T" <<'PYEOF' || fail "writing the LIBSVM and CSV files"
import sys, numpy as np
t = sys.argv[1]
rng = np.random.RandomState(5)
n, d, L = 240, 9, 4
x = rng.randint(0, 4, size=(n, d)).astype(np.float32) * np.float32(0.25)
x[rng.rand(n, d) < 0.4] = 0
x[:, 8] = 0                  # the last feature never stored: its width from the index alone
x[:, 7][x[:, 7] == 0] = -1.5
y = np.zeros((n, L), int)
y[:, 0] = (x[:, 0] + x[:, 1] > 0.5)
y[:, 1] = (x[:, 2] > 0.3) ^ (x[:, 3] > 0.3)
y[:, 2] = rng.rand(n) < 0.3
y[:, 3] = (x[:, 4] > 0.2) & (x[:, 5] > 0.2)
y[::17] = 0                  # examples without a label
for name, rows in (('train', range(0, 180)), ('test', range(180, n))):
    with open(f'{t}/{name}.svm', 'w') as f:
        for i in rows:
            labs = ','.join(str(k) for k in range(L) if y[i, k])
            feats = ' '.join(f'{j + 1}:{repr(float(x[i, j]))}' for j in range(d - 1) if x[i, j] != 0)
            f.write((labs + ' ' if labs else '') + feats + ('  # example %d' % i) + '\n')
            if i == 3:
                f.write('# a comment line\n\n')
    with open(f'{t}/{name}.csv', 'w') as f:
        f.write(','.join([f'f{j + 1}' for j in range(d)] + [f'label{k}' for k in range(L)]) + '\n')
        for i in rows:
            f.write(','.join([repr(float(x[i, j])) for j in range(d)] + [str(y[i, k]) for k in range(L)]) + '\n')
PYEOF
# f9 is never stored: the LIBSVM width is 8; the CSV without f9 is the same table
cut -d, -f1-8,10- "$T/train.csv" >"$T/train8.csv"
cut -d, -f1-8,10- "$T/test.csv" >"$T/test8.csv"
for head in complete single; do
    "$E" rules train --libsvm "$T/train.svm" --head-type $head --feature-sampling none $R --out "$T/s_$head" ||
        fail "train on LIBSVM ($head)"
    "$E" rules train --table "$T/train8.csv" --labels label0,label1,label2,label3 --head-type $head \
        --feature-sampling none $R --out "$T/c_$head" || fail "train on CSV ($head)"
    cmp -s "$T/s_$head.model" "$T/c_$head.model" || fail "LIBSVM and CSV gave other models ($head)"
    "$E" rules predict --model "$T/s_$head.model" --libsvm "$T/test.svm" --output scores --out "$T/ps" --quiet ||
        fail "predict on LIBSVM"
    "$E" rules predict --model "$T/c_$head.model" --table "$T/test8.csv" --output scores --out "$T/pc" --quiet ||
        fail "predict on CSV"
    cmp -s "$T/ps.pred.tsv" "$T/pc.pred.tsv" && cmp -s "$T/ps.metrics.tsv" "$T/pc.metrics.tsv" ||
        fail "LIBSVM and CSV predictions differ ($head)"
done
# a test file narrower than the model (no f8 stored): the model's width is taken
sed 's/ 8:[^ ]*//' "$T/test.svm" >"$T/narrow.svm"
"$E" rules predict --model "$T/s_complete.model" --libsvm "$T/narrow.svm" --out "$T/pn" --quiet ||
    fail "predict on a LIBSVM file without the last feature"

# ---- 3. genotypes ------------------------------------------------------------------
EX=$ES_SRCDIR/examples/data/example
"$E" scan --bfile "$EX" --top 20 --out "$T/scan" --quiet --device cpu || fail "scan for --from"
"$PY" - "$EX.fam" "$T/labels.txt" <<'PYEOF' || fail "writing the labels"
import sys, numpy as np
rng = np.random.RandomState(2)
fam = [l.split() for l in open(sys.argv[1])]
with open(sys.argv[2], 'w') as f:
    f.write('FID IID t2d cad hyp\n')
    for i, (fid, iid, *_ ) in enumerate(fam):
        v = [str(int(k)) for k in rng.randint(1, 3, size=3)]
        if i % 37 == 5: v[1] = '-9'        # a missing label: the sample is left out
        if i % 53 == 7: v[2] = 'NA'
        f.write(' '.join([fid, iid] + v) + '\n')
PYEOF
"$E" rules train --bfile "$EX" --pheno "$T/labels.txt" --pheno-name t2d,cad,hyp --from "$T/scan.top.tsv" \
    --feature-sampling none $R --out "$T/g" 2>"$T/g.err" || { cat "$T/g.err"; fail "train on genotypes"; }
"$E" rules train --bfile "$EX" --pheno "$T/labels.txt" --pheno-name t2d,cad,hyp --from "$T/scan.top.tsv" \
    --feature-sampling none --max-rules 25 --out "$T/g2" 2>"$T/g2.err" || fail "train on genotypes (2)"
grep -q "samples left out: a label (phenotype) is missing" "$T/g2.err" || fail "no word of the samples left out"
if command -v plink1.9 >/dev/null 2>&1; then
    # the same table from PLINK's own decoding: the variants of the .top.tsv in .bim order
    awk 'NR > 1 { print $2; print $5 }' "$T/scan.top.tsv" | sort -u >"$T/vars"
    plink1.9 --bfile "$EX" --extract "$T/vars" --recode A --out "$T/raw" >/dev/null 2>&1 || fail "plink1.9 --recode A"
    "$PY" - "$T/raw.raw" "$T/labels.txt" "$T/g.csv" <<'PYEOF' || fail "the CSV from PLINK"
import sys
raw = [l.split() for l in open(sys.argv[1])]
lab = {(r[0], r[1]): r[2:] for r in (l.split() for l in list(open(sys.argv[2]))[1:])}
cols = [c.rsplit('_', 1)[0] for c in raw[0][6:]]
with open(sys.argv[3], 'w') as f:
    f.write(','.join(cols + ['t2d', 'cad', 'hyp']) + '\n')
    for r in raw[1:]:
        v = lab[(r[0], r[1])]
        if any(x in ('-9', 'NA', '0') for x in v):
            continue
        f.write(','.join(r[6:] + [str(int(x) - 1) for x in v]) + '\n')
PYEOF
    "$E" rules train --table "$T/g.csv" --labels t2d,cad,hyp --feature-sampling none $R --out "$T/gc" ||
        fail "train on the CSV from PLINK"
    cmp -s "$T/g.model" "$T/gc.model" || fail "--bfile and PLINK's decoding gave other models"
    "$E" rules predict --model "$T/g.model" --bfile "$EX" --pheno "$T/labels.txt" --pheno-name t2d,cad,hyp \
        --out "$T/gp" --quiet || fail "predict on genotypes"
    "$E" rules predict --model "$T/g.model" --table "$T/g.csv" --out "$T/gcp" --quiet || fail "predict on the CSV"
    head -1 "$T/gp.pred.tsv" | grep -q "^FID	IID	t2d	cad	hyp$" || fail "genotype predictions' header"
    cut -f3- "$T/gp.pred.tsv" | cmp -s - "$T/gcp.pred.tsv" || fail "genotype and CSV predictions differ"
    cmp -s "$T/gp.metrics.tsv" "$T/gcp.metrics.tsv" || fail "genotype and CSV metrics differ"
fi
# predict without labels: every sample, no metrics; --keep applies
"$E" rules predict --model "$T/g.model" --bfile "$EX" --out "$T/gu" --quiet || fail "predict without labels"
[ "$(wc -l <"$T/gu.pred.tsv")" -eq 2001 ] || fail "predict without labels: not one row per sample"
[ ! -e "$T/gu.metrics.tsv" ] || fail "metrics without labels"
head -5 "$EX.fam" | cut -d' ' -f1,2 >"$T/keep"
"$E" rules predict --model "$T/g.model" --bfile "$EX" --keep "$T/keep" --out "$T/gk" --quiet || fail "predict --keep"
[ "$(wc -l <"$T/gk.pred.tsv")" -eq 6 ] || fail "predict --keep: not the 5 kept samples"
# one label: the .fam phenotype, named pheno, and predicted with it
"$E" rules train --bfile "$EX" --from "$T/scan.top.tsv" $R --out "$T/g1" || fail "train on the .fam phenotype"
"$E" rules predict --model "$T/g1.model" --bfile "$EX" --out "$T/g1p" --quiet || fail "predict on the .fam phenotype"
[ -s "$T/g1p.metrics.tsv" ] || fail "the .fam phenotype was not scored"

# ---- 4. errors ---------------------------------------------------------------------
# genotypes whose samples have no phenotype (.fam column 6 all missing): the label is asked for
awk '{ $6 = -9; print }' "$EX.fam" >"$T/nopheno.fam"
cp "$EX.bed" "$T/nopheno.bed"; cp "$EX.bim" "$T/nopheno.bim"
expect_fail "$T/err" "$E" rules train --bfile "$T/nopheno" --from "$T/scan.top.tsv" --out "$T/bad"
grep -q "give --pheno FILE" "$T/err" || { cat "$T/err"; fail "no phenotype: no clear error"; }
printf '@relation x\n@attribute a numeric\n@attribute b numeric\n@data\n1,0\n' >"$T/noc.arff"
for rel in "'x: -C 0'" "'x: -C 2'" "'x: -C -5'" "'x: -C two'"; do
    printf '@relation %s\n@attribute a numeric\n@attribute b {0,1}\n@data\n1,0\n2,1\n' "$rel" >"$T/badc.arff"
    expect_fail "$T/err" "$E" rules train --arff "$T/badc.arff" --out "$T/bad"
    grep -q "badc.arff" "$T/err" || fail "no file named for MEKA $rel"
done
expect_fail "$T/err" "$E" rules train --arff "$T/noc.arff" --out "$T/bad"
grep -q "labels-xml FILE (Mulan) or put MEKA" "$T/err" || fail "no word of the missing labels"
i=0
for line in "0,x 1:1" "1 0:1" "1 2:1 1:1" "1 1:abc" "1 1:1e999" "1 3" "0,,1 1:1" "1, 1:1"; do
    i=$((i + 1))
    printf '0 1:0.5\n%s\n' "$line" >"$T/bad$i.svm"
    expect_fail "$T/err" "$E" rules train --libsvm "$T/bad$i.svm" --out "$T/bad"
    grep -q "bad$i.svm: line 2" "$T/err" || { cat "$T/err"; fail "LIBSVM '$line': no file and line named"; }
done
printf '# only a comment\n' >"$T/empty.svm"
expect_fail "$T/err" "$E" rules train --libsvm "$T/empty.svm" --out "$T/bad"
grep -q "empty.svm: no data lines" "$T/err" || fail "an empty LIBSVM file"
expect_fail "$T/err" "$E" rules train --bfile "$EX" --out "$T/bad"
grep -q "need --from" "$T/err" || fail "--bfile without --from"
expect_fail "$T/err" "$E" rules train --libsvm "$T/train.svm" --pheno "$T/labels.txt" --out "$T/bad"
grep -q "go with --bfile/--vcf" "$T/err" || fail "--pheno without genotypes"
expect_fail "$T/err" "$E" rules train --libsvm "$T/train.svm" --table "$T/train.csv" --out "$T/bad"
grep -q "give one input" "$T/err" || fail "two inputs"
expect_fail "$T/err" "$E" rules train --bfile "$EX" --pheno "$T/labels.txt" --pheno-name t2d,nope \
    --from "$T/scan.top.tsv" --out "$T/bad"
grep -q "nope" "$T/err" || fail "an unknown label column not named"
"$PY" -c "print('FID IID rs1'); [print(l.split()[0], l.split()[1], 1) for l in open('$EX.fam')]" >"$T/clash.txt"
head -2 "$EX.bim" | awk '{print $2}' >"$T/v2"
printf 'RANK\tFEATURE\tSCORE\tRELEVANCE\n1\t%s\t0.1\t0.1\n' "$(head -1 "$T/v2")" >"$T/one.select.tsv"
id1=$(head -1 "$T/v2")
sed "s/rs1/$id1/" "$T/clash.txt" >"$T/clash2.txt"
expect_fail "$T/err" "$E" rules train --bfile "$EX" --pheno "$T/clash2.txt" --pheno-name "$id1" \
    --from "$T/one.select.tsv" --out "$T/bad"
grep -q "also the ID of a feature variant" "$T/err" || { cat "$T/err"; fail "a label named as a variant"; }
ls "$T"/bad.* >/dev/null 2>&1 && fail "files written by a failed run"
exit 0
