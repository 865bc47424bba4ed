#!/bin/sh
# select_cli.sh -- `epistream select` and `scan --refine` end to end: general tables (CSV, ARFF,
# LIBSVM) where the answer is known, scan survivors from .top.tsv, .epi.cc and .summary.tsv,
# refine-in-the-scan = select-afterwards byte for byte, thread-count independence, and every
# usage and input error: exit code, a message naming the file (and line), no output left.
. "$(dirname "$0")/lib.sh"

# ---- help ----
"$EPISTREAM" select --help | grep -q '^Usage: epistream select' || fail "select --help"
"$EPISTREAM" select --help | grep -q -- '--from-summary' || fail "select --help: --from-summary"
"$EPISTREAM" scan --help | grep -q -- '--refine METHOD:K' || fail "scan --help: --refine"

# no_outputs PREFIX: a failed run left nothing behind
no_outputs() {
    for f in "$1".select.tsv "$1".log "$1".top.tsv "$1".summary.tsv "$1".select.tsv.tmp \
        "$1".log.tmp; do
        [ ! -e "$f" ] || fail "$f left behind by a failed run"
    done
}

# ---- a table whose answer is known ----
# b is a copy of the class (class = case when b = 1); a, c, d are noise: b must come first
# under every method, with relevance I(b;Y) = H(Y).
awk 'BEGIN {
    s = 12345; print "a,b,c,d,status"
    for (i = 0; i < 400; i++) {
        s = (s * 1103515245 + 12345) % 2147483648; a = int(s / 65536) % 3
        s = (s * 1103515245 + 12345) % 2147483648; b = int(s / 65536) % 2
        s = (s * 1103515245 + 12345) % 2147483648; c = (int(s / 65536) % 1000) / 7
        s = (s * 1103515245 + 12345) % 2147483648; d = substr("xyz", int(s / 65536) % 3 + 1, 1)
        if (i % 17 == 0) c = "NA"
        printf "%d,%d,%s,\"%s\",%s\n", a, b, c, d, b ? "case" : "control"
    }
}' >"$T/t.csv"
# H(Y) in bits, from the class counts
HY=$(awk -F, 'NR > 1 { n[$5]++; t++ }
    END { for (k in n) h -= n[k] / t * log(n[k] / t) / log(2); printf "%.12g", h }' "$T/t.csv")
for m in mrmr jmi disr cmim icap condmi mim; do
    "$EPISTREAM" select --table "$T/t.csv" --method $m --k 3 --out "$T/t_$m" --quiet ||
        fail "select --table --method $m"
    head -1 "$T/t_$m.select.tsv" | grep -q '^RANK	FEATURE	SCORE	RELEVANCE$' || fail "$m: header"
    awk -F'\t' -v hy="$HY" 'NR == 2 && $1 == 1 && $2 == "b" && ($4 - hy) ^ 2 < 1e-18 { ok = 1 }
        END { exit !ok }' "$T/t_$m.select.tsv" ||
        { cat "$T/t_$m.select.tsv" >&2; fail "$m: b (relevance $HY) is not first"; }
    # condmi stops once the class is known: b alone explains it
    n=$(($(wc -l <"$T/t_$m.select.tsv") - 1))
    if [ $m = condmi ]; then [ $n -eq 1 ] || fail "condmi: $n picks after b, expected none"
    else [ $n -eq 3 ] || fail "$m: $n picks, expected 3"; fi
    grep -q "^select_method	$m$" "$T/t_$m.log" || fail "$m: log"
    grep -q '^select_samples	400$' "$T/t_$m.log" || fail "$m: log samples"
done
# the same table with the class named, by number, as ARFF and as LIBSVM
"$EPISTREAM" select --table "$T/t.csv" --class status --method jmi --k 3 --out "$T/t_name" \
    --quiet && cmp -s "$T/t_name.select.tsv" "$T/t_jmi.select.tsv" || fail "--class status differs"
"$EPISTREAM" select --table "$T/t.csv" --class 5 --method jmi --k 3 --out "$T/t_num" --quiet &&
    cmp -s "$T/t_num.select.tsv" "$T/t_jmi.select.tsv" || fail "--class 5 differs"
"$EPISTREAM" select --table "$T/t.csv" --class a --method mim --k 1 --out "$T/t_a" --quiet ||
    fail "--class a"
grep -q '^1	' "$T/t_a.select.tsv" || fail "--class a: nothing selected"
grep -q '	a	' "$T/t_a.select.tsv" && fail "--class a: the class was selected as a feature"
# --exclude-cols and --features: a multi-label file whose other label (a copy
# of the class, so the best feature by far) and an ID column must be left
# out; the result equals the table with those columns cut away
awk -F, -v OFS=, '{ print (NR == 1 ? "id" : NR), $0, (NR == 1 ? "label2" : $2) }' "$T/t.csv" \
    >"$T/ml.csv"
cut -d, -f1-5 "$T/t.csv" >"$T/cut.csv"
"$EPISTREAM" select --table "$T/cut.csv" --class status --method jmi --k 3 --out "$T/ml_ref" \
    --quiet || fail "select on the cut table"
"$EPISTREAM" select --table "$T/ml.csv" --class status --exclude-cols id,label2 --method jmi \
    --k 3 --out "$T/ml_ex" --quiet || fail "--exclude-cols"
cmp -s "$T/ml_ex.select.tsv" "$T/ml_ref.select.tsv" || fail "--exclude-cols differs from the cut table"
grep -q '^exclude_cols	id,label2$' "$T/ml_ex.log" || fail "--exclude-cols: log"
"$EPISTREAM" select --table "$T/ml.csv" --class 6 --features d,a,3,c --method jmi --k 3 \
    --out "$T/ml_f" --quiet || fail "--features"
cmp -s "$T/ml_f.select.tsv" "$T/ml_ref.select.tsv" || fail "--features differs from the cut table"
"$EPISTREAM" select --table "$T/ml.csv" --class status --method jmi --k 1 --out "$T/ml_all" \
    --quiet || fail "select on the multi-label table"
# (a unique ID explains the class as well as its copy does; ties go to the first column)
grep -q '^1	id	' "$T/ml_all.select.tsv" || fail "without --exclude-cols the ID column should win"
{
    printf '%% the same table\n@relation t\n@attribute a integer\n@attribute b {0,1}\n'
    printf '@attribute c numeric\n@attribute d string\n@attribute status {control,case}\n@data\n'
    tail -n +2 "$T/t.csv" | sed 's/NA/?/'
} >"$T/t.arff"
"$EPISTREAM" select --table "$T/t.arff" --method jmi --k 3 --out "$T/t_arff" --quiet ||
    fail "select ARFF"
sed -n 2p "$T/t_arff.select.tsv" | grep -q '^1	b	' || fail "ARFF: b not first"
awk -F, 'NR > 1 { printf "%d 1:%s 2:%s\n", $5 == "case", $1, $2 }' "$T/t.csv" >"$T/t.svm"
"$EPISTREAM" select --table "$T/t.svm" --method mrmr --k 2 --out "$T/t_svm" --quiet ||
    fail "select LIBSVM"
sed -n 2p "$T/t_svm.select.tsv" | grep -q '^1	f2	' || fail "LIBSVM: f2 not first"
# --bins changes the coding of the binned column only; the answer stays
"$EPISTREAM" select --table "$T/t.csv" --bins 4 --method jmi --k 3 --out "$T/t_b4" --quiet ||
    fail "--bins 4"
sed -n 2p "$T/t_b4.select.tsv" | grep -q '^1	b	' || fail "--bins 4: b not first"
# k above the number of features: all of them, warned
"$EPISTREAM" select --table "$T/t.csv" --method mim --k 9 --out "$T/t_k9" 2>"$T/k9.err" ||
    fail "--k 9"
[ "$(wc -l <"$T/t_k9.select.tsv")" -eq 5 ] || fail "--k 9: expected all 4 features"
grep -q 'only 4 features' "$T/k9.err" || fail "--k 9: no warning"

# ---- scan survivors ----
# sim plants purely epistatic pairs: no marginal effect, so a greedy MI method's first pick (by
# I(X;Y)) is not predictable among many variants; once a planted variant is picked its partner
# must follow.  With --top 2 (the planted pairs rank first, see planted.sh) JMI must pick a
# planted pair, then the other one.
SIM="--samples 2000 --variants 200 --pairs 2 --effect 8 --maf-min 0.2 --maf-max 0.5 --seed 1"
"$EPISTREAM" sim $SIM --out "$T/d" 2>/dev/null || fail "sim"
awk 'NR > 1 { print ($1 < $2 ? $1 " " $2 : $2 " " $1) }' "$T/d.truth" | sort >"$T/truth"
"$EPISTREAM" scan --bfile "$T/d" --top 2 --out "$T/p" --quiet || fail "scan --top 2"
"$EPISTREAM" select --bfile "$T/d" --from "$T/p.top.tsv" --method jmi --k 4 --out "$T/p" \
    --quiet || fail "select --from"
awk -F'\t' 'NR == 2 || NR == 4 { a = $2 }
    NR == 3 || NR == 5 { print (a < $2 ? a " " $2 : $2 " " a) }' "$T/p.select.tsv" |
    sort >"$T/picked"
cmp -s "$T/picked" "$T/truth" ||
    { cat "$T/p.select.tsv" "$T/truth" >&2; fail "JMI did not pick the planted pairs two by two"; }
grep -q '^select_features	4$' "$T/p.log" || fail "--from: 4 survivors expected"

# scan --refine = select --from afterwards, byte for byte (.top.tsv and PLINK .epi.cc), for
# every method; and whatever the thread count
for m in mrmr jmi cmim condmi; do
    "$EPISTREAM" scan --bfile "$T/d" --top 40 --refine $m:5 --out "$T/r_$m" --quiet ||
        fail "scan --refine $m:5"
    "$EPISTREAM" select --bfile "$T/d" --from "$T/r_$m.top.tsv" --method $m --k 5 \
        --out "$T/s_$m" --quiet || fail "select --from after --refine $m"
    cmp "$T/r_$m.select.tsv" "$T/s_$m.select.tsv" ||
        fail "$m: scan --refine and select --from differ"
    grep -q "^refine	$m:5$" "$T/r_$m.log" || fail "$m: refine not in the scan log"
    grep -q "^output	$T/r_$m.select.tsv$" "$T/r_$m.log" || fail "$m: select.tsv not in the log"
done
"$EPISTREAM" scan --bfile "$T/d" --top 40 --format plink --epi1 0.05 --refine mrmr:5 --out "$T/rp" \
    --quiet || fail "scan --format plink --refine"
cmp -s "$T/rp.select.tsv" "$T/r_mrmr.select.tsv" || fail "--format plink changes the refinement"
# PLINK's .epi.cc (the pairs with p <= --epi1) reads as the same list in TSV
"$EPISTREAM" scan --bfile "$T/d" --top 40 --p-threshold 0.05 --out "$T/rs" --quiet ||
    fail "scan --p-threshold 0.05"
"$EPISTREAM" select --bfile "$T/d" --from "$T/rp.epi.cc" --method mrmr --k 5 --out "$T/sp" \
    --quiet || fail "select --from .epi.cc"
"$EPISTREAM" select --bfile "$T/d" --from "$T/rs.sig.tsv" --method mrmr --k 5 --out "$T/ss" \
    --quiet || fail "select --from .sig.tsv"
cmp -s "$T/sp.select.tsv" "$T/ss.select.tsv" || fail "select --from .epi.cc differs"
for t in 1 3; do
    "$EPISTREAM" select --bfile "$T/d" --from "$T/r_jmi.top.tsv" --method jmi --k 5 --threads $t \
        --out "$T/th$t" --quiet || fail "--threads $t"
    cmp -s "$T/th$t.select.tsv" "$T/r_jmi.select.tsv" || fail "--threads $t changes the output"
done
# with a selection option: the same selection in the scan and in select
"$EPISTREAM" scan --bfile "$T/d" --chr 1-10 --top 30 --refine jmi:4 --out "$T/rc" --quiet ||
    fail "scan --chr --refine"
"$EPISTREAM" select --bfile "$T/d" --chr 1-10 --from "$T/rc.top.tsv" --method jmi --k 4 \
    --out "$T/sc" --quiet || fail "select --chr --from"
cmp -s "$T/rc.select.tsv" "$T/sc.select.tsv" || fail "--chr: refine and select differ"

# --from-summary: the N variants with the highest BEST_STAT
"$EPISTREAM" select --bfile "$T/d" --from-summary "$T/r_jmi.summary.tsv" --n 12 --method mim \
    --k 12 --out "$T/fs" --quiet || fail "select --from-summary"
awk -F'\t' 'NR > 1 && $6 != "NA" { print $6 "\t" NR "\t" $2 }' "$T/r_jmi.summary.tsv" |
    sort -t'	' -k1,1gr -k2,2n | head -12 | cut -f3 | sort >"$T/best12"
tail -n +2 "$T/fs.select.tsv" | cut -f2 | sort >"$T/got12"
cmp -s "$T/best12" "$T/got12" || fail "--from-summary --n 12: not the 12 best variants"
grep -q '^select_features	12$' "$T/fs.log" || fail "--from-summary: log"

# ---- usage errors: exit 2, a message, no output ----
usage_err() {
    "$EPISTREAM" "$@" >"$T/u.out" 2>&1
    rc=$?
    [ $rc -eq 2 ] || { cat "$T/u.out" >&2; fail "expected exit 2, got $rc: $*"; }
    grep -q '\[E::' "$T/u.out" || fail "no error message: $*"
    no_outputs "$T/u"
}
TB="--table $T/t.csv --out $T/u"
usage_err select
usage_err select $TB --k 3
usage_err select $TB --method mrmr
usage_err select $TB --method nonsense --k 3
usage_err select $TB --method mrmr --k 0
usage_err select $TB --method mrmr --k -1
usage_err select $TB --method mrmr --k 3x
usage_err select $TB --method mrmr --k 3 --bins 1
usage_err select $TB --method mrmr --k 3 --bins 70000
usage_err select $TB --method mrmr --k 3 --bfile "$T/d"
usage_err select $TB --method mrmr --k 3 --from "$T/p.top.tsv"
usage_err select $TB --method mrmr --k 3 --maf 0.1
usage_err select $TB --method mrmr --k 3 extra
# malformed column lists: exit 2 naming the option; both lists; with genotypes
for l in "" "," "a,,b" ",a" "a,"; do
    usage_err select $TB --method mrmr --k 3 --features "$l"
    grep -qF -- "[E::options] --features: expected column names or 1-based numbers separated by commas, got '$l'" \
        "$T/u.out" || fail "--features '$l': $(cat "$T/u.out")"
    usage_err select $TB --method mrmr --k 3 --exclude-cols "$l"
    grep -qF -- "--exclude-cols: expected column names" "$T/u.out" || fail "--exclude-cols '$l'"
done
usage_err select $TB --method mrmr --k 3 --features a --exclude-cols b
grep -q 'give --features or --exclude-cols, not both' "$T/u.out" || fail "both lists"
usage_err select --bfile "$T/d" --from "$T/p.top.tsv" --exclude-cols a --method mrmr --k 3 \
    --out "$T/u"
grep -q -- '--features and --exclude-cols go with --table' "$T/u.out" || fail "--exclude-cols with --bfile"
usage_err select --table "$T/t.csv" --method mrmr --k 3
usage_err select --bfile "$T/d" --method mrmr --k 3 --out "$T/u"
usage_err select --bfile "$T/d" --from "$T/p.top.tsv" --from-summary "$T/p.summary.tsv" --n 3 \
    --method mrmr --k 3 --out "$T/u"
usage_err select --bfile "$T/d" --from-summary "$T/p.summary.tsv" --method mrmr --k 3 --out "$T/u"
usage_err select --bfile "$T/d" --from "$T/p.top.tsv" --n 3 --method mrmr --k 3 --out "$T/u"
usage_err select --bfile "$T/d" --from "$T/p.top.tsv" --class x --method mrmr --k 3 --out "$T/u"
usage_err scan --bfile "$T/d" --out "$T/u" --refine mrmr
usage_err scan --bfile "$T/d" --out "$T/u" --refine mrmr:0
usage_err scan --bfile "$T/d" --out "$T/u" --refine mrmr:x
usage_err scan --bfile "$T/d" --out "$T/u" --refine foo:3
usage_err scan --bfile "$T/d" --out "$T/u" --refine :3
# a device mistake: one message from the registry, the same for select and
# scan, naming the option and what exists, exit 2
for cmd in "select $TB --method mrmr --k 3" "scan --bfile $T/d --out $T/u"; do
    # shellcheck disable=SC2086
    usage_err $cmd --device cpu --gpu-kernel mma
    grep -q -- "--gpu-kernel mma goes with a GPU (--device gpu or auto); --device cpu runs on the CPU" \
        "$T/u.out" || fail "$cmd --gpu-kernel with --device cpu: $(cat "$T/u.out")"
    # shellcheck disable=SC2086
    usage_err $cmd --device cpu --gpu-kernel ws
    grep -q -- "--gpu-kernel ws goes with a GPU" "$T/u.out" || fail "$cmd --gpu-kernel ws: $(cat "$T/u.out")"
    # shellcheck disable=SC2086
    usage_err $cmd --device gpu:63
    grep -q -E -- "--device gpu:63: (there is no such GPU \([0-9]+ visible: 0|no CUDA device is visible|epistream was built without CUDA)" \
        "$T/u.out" || fail "$cmd --device gpu:63: $(cat "$T/u.out")"
done
usage_err select $TB --method mrmr --k 3 --device cpu --gpu-path hist
grep -q -- "--gpu-path hist goes with a GPU" "$T/u.out" || fail "--gpu-path with --device cpu: $(cat "$T/u.out")"

# ---- input errors: exit 1, [E::] naming the file (and what), no output ----
# run_fail NAME TEXT CMD...: exit 1, message holds NAME's file name and TEXT, no $T/o.* left
run_fail() {
    file=$1 text=$2
    shift 2
    expect_fail "$T/f.out" "$@"
    # shellcheck disable=SC2154  # rc is set by expect_fail (tests/lib.sh)
    [ "$rc" -eq 1 ] || { cat "$T/f.out" >&2; fail "exit $rc, expected 1: $*"; }
    grep -q '\[E::' "$T/f.out" || { cat "$T/f.out" >&2; fail "no [E::] message: $*"; }
    grep -qF "$file" "$T/f.out" || { cat "$T/f.out" >&2; fail "message does not name $file"; }
    grep -qF -- "$text" "$T/f.out" || { cat "$T/f.out" >&2; fail "message lacks '$text'"; }
    no_outputs "$T/o"
}
sel() { "$EPISTREAM" select --method jmi --k 2 --out "$T/o" "$@"; }
printf 'a,b,c\n1,2,x\n1,abc,y\n' >"$T/num.csv"
run_fail num.csv "line 3, column 2 ('b'): expected a number, found 'abc'" sel --table "$T/num.csv"
printf 'a,b,c\n1,2,x\n1,2\n' >"$T/ragged.csv"
run_fail ragged.csv "line 3: 2 fields, expected 3" sel --table "$T/ragged.csv"
printf 'a,b,c\n1,2,x\n1,3,NA\n' >"$T/cls.csv"
run_fail cls.csv "line 3, column 3 ('c'): the class value is missing" sel --table "$T/cls.csv"
run_fail t.csv "no column 'zz'" sel --table "$T/t.csv" --class zz
run_fail t.csv "out of range" sel --table "$T/t.csv" --class 9
# columns the table does not have, or the class, in a list: exit 1 naming the option and column
run_fail t.csv "--exclude-cols: no column 'zz'; columns: a, b, c, d, status (or a number 1..5)" \
    sel --table "$T/t.csv" --exclude-cols a,zz
run_fail t.csv "--features: column 7 is out of range: the table has 5 columns" \
    sel --table "$T/t.csv" --features 7
run_fail t.csv "--features: column 5 ('status') is the class" sel --table "$T/t.csv" --features b,5
run_fail t.csv "--exclude-cols: column 2 ('b') is listed twice" \
    sel --table "$T/t.csv" --exclude-cols b,2
run_fail t.csv "--exclude-cols leaves no feature column" sel --table "$T/t.csv" --exclude-cols a,b,c,d
: >"$T/empty.csv"
run_fail empty.csv "empty file" sel --table "$T/empty.csv"
run_fail nothere.csv "cannot open" sel --table "$T/nothere.csv"
printf '@relation r\n@attribute a {x,y}\n@attribute c {p,q}\n@data\nx,p\nz,q\n' >"$T/bad.arff"
run_fail bad.arff "line 6, column 1 ('a'): 'z' is not one of the 2 values" sel --table "$T/bad.arff"
printf '1 1:2\n0 3:1 2:1\n' >"$T/bad.svm"
run_fail bad.svm "line 2: feature indices must increase" sel --table "$T/bad.svm"
run_fail bad.svm "--class does not apply" sel --table "$T/bad.svm" --class 1
# survivors files
{ head -1 "$T/p.top.tsv"; sed -n 2p "$T/p.top.tsv" | sed 's/snp[0-9]*/rsNOPE/2'; } >"$T/unk.top.tsv"
run_fail unk.top.tsv "line 2: variant 'rsNOPE' (SNP2" sel --bfile "$T/d" --from "$T/unk.top.tsv"
printf 'CHR\tSNP\nx\ty\n' >"$T/nosnp.tsv"
run_fail nosnp.tsv "no SNP1 and SNP2 columns" sel --bfile "$T/d" --from "$T/nosnp.tsv"
head -1 "$T/p.top.tsv" >"$T/nopairs.top.tsv"
run_fail nopairs.top.tsv "no pairs" sel --bfile "$T/d" --from "$T/nopairs.top.tsv"
run_fail none.top.tsv "cannot open" sel --bfile "$T/d" --from "$T/none.top.tsv"
run_fail nosnp.tsv "no SNP and BEST_STAT columns" \
    sel --bfile "$T/d" --from-summary "$T/nosnp.tsv" --n 3
{
    head -1 "$T/p.summary.tsv"
    sed -n 2p "$T/p.summary.tsv" | awk -F'\t' -v OFS='\t' '{ $6 = "big"; print }'
} >"$T/bad.summary.tsv"
run_fail bad.summary.tsv "line 2: BEST_STAT 'big' is not a number" \
    sel --bfile "$T/d" --from-summary "$T/bad.summary.tsv" --n 3
# a line too short for the header's columns, blank lines skipped, an empty file
{ head -2 "$T/p.top.tsv"; echo; sed -n 3p "$T/p.top.tsv" | cut -f1-3; } >"$T/short.top.tsv"
run_fail short.top.tsv "line 4: 3 fields, expected at least 6 as in the header" \
    sel --bfile "$T/d" --from "$T/short.top.tsv"
{ head -2 "$T/p.summary.tsv"; sed -n 3p "$T/p.summary.tsv" | cut -f1-5; } >"$T/short.summary.tsv"
run_fail short.summary.tsv "line 3: 5 fields, expected at least 6 as in the header" \
    sel --bfile "$T/d" --from-summary "$T/short.summary.tsv" --n 3
printf '\n\n' >"$T/blank.summary.tsv"
run_fail blank.summary.tsv "empty file, expected a per-variant summary" \
    sel --bfile "$T/d" --from-summary "$T/blank.summary.tsv" --n 3
# a dataset selection that drops a variant the pair list names
sed -n 2p "$T/p.top.tsv" | cut -f2 >"$T/drop.txt"
run_fail p.top.tsv "line 2: variant '$(cat "$T/drop.txt")' (SNP1" \
    sel --bfile "$T/d" --from "$T/p.top.tsv" --exclude "$T/drop.txt"
# scan --refine with an unwritable output: nothing written at all
expect_fail "$T/w.out" "$EPISTREAM" scan --bfile "$T/d" --refine jmi:3 --out "$T/nodir/o"
grep -q "nodir/o" "$T/w.out" || fail "unwritable --out message"
# ---- 3-way results: select --from takes the variants of the triples; a 3-way result, a
# pair of one variant or a broken list cannot seed a 3-way scan (exit 1, the file named) ----
"$EPISTREAM" scan --bfile "$T/d" --order 3 --top 3 --out "$T/t3" --quiet || fail "scan --order 3"
n3=$(awk 'NR > 1 { print $2; print $5; print $8 }' "$T/t3.top.tsv" | sort -u | wc -l)
"$EPISTREAM" select --bfile "$T/d" --from "$T/t3.top.tsv" --method mrmr --k 2 --out "$T/s3" \
    --quiet || fail "select --from a 3-way .top.tsv"
grep -q "^select_features	$n3$" "$T/s3.log" ||
    { cat "$T/s3.log" >&2; fail "select --from a 3-way .top.tsv: $n3 variants expected"; }
# scan --order 3 --refine = select --from its .top.tsv afterwards, byte for byte
"$EPISTREAM" scan --bfile "$T/d" --order 3 --top 4 --refine jmi:3 --out "$T/r3" --quiet ||
    fail "scan --order 3 --refine"
"$EPISTREAM" select --bfile "$T/d" --from "$T/r3.top.tsv" --method jmi --k 3 --out "$T/s3r" --quiet ||
    fail "select --from after a 3-way --refine"
cmp "$T/r3.select.tsv" "$T/s3r.select.tsv" || fail "3-way: scan --refine and select --from differ"
seed() { "$EPISTREAM" scan --bfile "$T/d" --order 3 --out "$T/o" --pairs-from "$@"; }
run_fail t3.top.tsv "a 3-way scan's result (it has an SNP3 column)" seed "$T/t3.top.tsv"
v1=$(awk 'NR == 2 { print $2 }' "$T/t3.top.tsv")
printf 'SNP1\tSNP2\n%s\t%s\n' "$v1" "$v1" >"$T/self.tsv"
run_fail self.tsv "line 2: SNP1 and SNP2 are the same variant '$v1': not a pair" seed "$T/self.tsv"
printf 'SNP1\tSNP2\n%s\tnosuch\n' "$v1" >"$T/unk.tsv"
run_fail unk.tsv "variant 'nosuch' (SNP2)" seed "$T/unk.tsv"
printf 'SNP1\tSNP2\n' >"$T/hdr.tsv"
run_fail hdr.tsv "no pairs after the header" seed "$T/hdr.tsv"
printf 'A\tB\nx\ty\n' >"$T/nohdr.tsv"
run_fail nohdr.tsv "the header has no SNP1 and SNP2 columns" seed "$T/nohdr.tsv"
printf 'SNP1\tSNP2\tCHR1\n%s\n' "$v1" >"$T/short.tsv"
run_fail short.tsv "line 2: 1 fields, expected at least 3" seed "$T/short.tsv"
run_fail nothere.tsv "cannot open" seed "$T/nothere.tsv"
exit 0
