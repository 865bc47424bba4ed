#!/bin/sh
# mdfs_cli.sh -- `epistream mdfs` usage and input errors (exit code, a message
# naming the option or the file and what is wrong, nothing written), the
# output files' shape, --help, and genotypes (--bfile) used as 0/1/2.
. "$(dirname "$0")/lib.sh"
"$EPISTREAM" mdfs --help | grep -q '^Usage: epistream mdfs' || fail "mdfs --help"
"$EPISTREAM" --help | grep -q '^  mdfs ' || fail "epistream --help lists mdfs"

awk 'BEGIN { s = 7; print "a,b,c,d,y"
    for (i = 0; i < 200; i++) { printf "%d", i % 2 ? 1 : 0
        for (j = 0; j < 4; j++) { s = (s * 1103515245 + 12345) % 2147483648; printf ",%.4f", s / 2147483648 }
        printf "\n" } }' | awk -F, 'NR == 1 { print; next } { print $2 "," $3 "," $4 "," $5 "," $1 }' >"$T/ok.csv"
"$EPISTREAM" mdfs --table "$T/ok.csv" --dim 2 --tuples 5 --out "$T/ok" --quiet || fail "a good run"
head -1 "$T/ok.mdfs.tsv" | grep -q "^VARIABLE	MAX_IG	TUPLE	P	ADJ_P$" || fail ".mdfs.tsv header"
[ "$(wc -l <"$T/ok.mdfs.tsv")" -eq 5 ] || fail ".mdfs.tsv: 4 variables"
head -1 "$T/ok.relevant.tsv" | grep -q "^VARIABLE	MAX_IG	TUPLE	P	ADJ_P$" || fail ".relevant.tsv header"
head -1 "$T/ok.tuples.tsv" | grep -q "^TUPLE	VARIABLE	IG	DISCRETIZATION$" || fail ".tuples.tsv header"
[ "$(wc -l <"$T/ok.tuples.tsv")" -eq 6 ] || fail ".tuples.tsv: 5 rows"
# --class by name and by number: the same result
"$EPISTREAM" mdfs --table "$T/ok.csv" --class y --dim 2 --out "$T/byname" --quiet || fail "--class y"
"$EPISTREAM" mdfs --table "$T/ok.csv" --class 5 --dim 2 --out "$T/bynum" --quiet || fail "--class 5"
cmp -s "$T/ok.mdfs.tsv" "$T/byname.mdfs.tsv" && cmp -s "$T/ok.mdfs.tsv" "$T/bynum.mdfs.tsv" ||
    fail "--class by name or number changed the result"
# the same data as TSV and as ARFF (a nominal class): the same result
tr ',' '\t' <"$T/ok.csv" >"$T/ok.tsv"
{ echo "@relation ok"; for a in a b c d; do echo "@attribute $a numeric"; done
  echo "@attribute y {0,1}"; echo "@data"; tail -n +2 "$T/ok.csv"; } >"$T/ok.arff"
for f in ok.tsv ok.arff; do
    "$EPISTREAM" mdfs --table "$T/$f" --dim 2 --tuples 5 --out "$T/f" --quiet || fail "mdfs --table $f"
    cmp -s "$T/ok.mdfs.tsv" "$T/f.mdfs.tsv" && cmp -s "$T/ok.tuples.tsv" "$T/f.tuples.tsv" ||
        fail "$f gives another result than the CSV"
done

# bad OUT PATTERN ARGS...: exit 2 (options) or 1 (input), the message, no output files
bad() {
    want=$1 pat=$2
    shift 2
    expect_fail "$T/err" "$EPISTREAM" mdfs "$@" --out "$T/bad"
    grep -q -e "$pat" "$T/err" || { cat "$T/err" >&2; fail "no message '$pat': $*"; }
    "$EPISTREAM" mdfs "$@" --out "$T/bad" >/dev/null 2>&1
    [ $? -eq "$want" ] || fail "exit code not $want: $*"
    for s in mdfs.tsv relevant.tsv tuples.tsv mdfs.tsv.tmp relevant.tsv.tmp tuples.tsv.tmp; do
        [ ! -e "$T/bad.$s" ] || fail "bad.$s left by a failed run: $*"
    done
}
bad 2 "dim: expected 1 to 5, got 6" --table "$T/ok.csv" --dim 6
bad 2 "dim: expected 1 to 5, got 0" --table "$T/ok.csv" --dim 0
bad 2 "divisions: expected 1 to 15, got 0" --table "$T/ok.csv" --divisions 0
bad 2 "divisions: expected 1 to 15, got 16" --table "$T/ok.csv" --divisions 16
bad 2 "discretizations" --table "$T/ok.csv" --discretizations 0
bad 2 "range: expected a number in \[0, 1\]" --table "$T/ok.csv" --range 1.5
bad 2 "range 0 with --discretizations 3" --table "$T/ok.csv" --range 0 --discretizations 3
bad 2 "pseudocount: expected a number in (0" --table "$T/ok.csv" --pseudocount 0
bad 2 "seed" --table "$T/ok.csv" --seed 2147483648
bad 2 "adjust: expected holm or bh" --table "$T/ok.csv" --adjust bonferroni
bad 2 "level: expected a number in (0, 1\]" --table "$T/ok.csv" --level 0
bad 2 "the data have only 4 variables" --table "$T/ok.csv" --dim 5
bad 2 "contrast .*too much" --table "$T/ok.csv" --dim 2 --contrast 100000000
bad 2 "tuples: at most 100,000,000" --table "$T/ok.csv" --tuples 100000001
bad 2 "give either --table" --bfile "$T/none" --table "$T/ok.csv"
bad 2 "give either --table"
expect_fail "$T/err" "$EPISTREAM" mdfs --table "$T/ok.csv"
grep -q -- "--out is required" "$T/err" || fail "no --out"
# input errors name the file and what is wrong
bad 1 "nosuch.csv" --table "$T/nosuch.csv"
printf 'a,b,y\n1,2,0\n3,4,1\n5,6,2\n' >"$T/three.csv"
bad 1 "three.csv: the class column 'y' has a third value" --table "$T/three.csv"
printf 'a,b,y\n1,2,1\n3,4,1\n5,6,1\n' >"$T/one.csv"
bad 1 "one.csv: the class column 'y' has a single value" --table "$T/one.csv"
printf 'a,b,y\n1,2,0\n3,NA,1\n5,6,1\n' >"$T/na.csv"
bad 1 "na.csv: column 'b' is missing in data row 2" --table "$T/na.csv"
printf 'a,b,y\n1,x,0\n3,z,1\n5,w,1\n' >"$T/text.csv"
bad 1 "text.csv: column 'b' is text" --table "$T/text.csv"
bad 2 "ok.csv: --class nosuch: no such column" --table "$T/ok.csv" --class nosuch
printf 'a,b,y\n1,2,0\n3,4\n' >"$T/short.csv"
bad 1 "short.csv" --table "$T/short.csv"
# LIBSVM (integer values: they enter as their ranks) gives the CSV's result
awk -F, 'NR == 1 { print "f1,f2,f3,f4,y"; next }
    { printf "%d,%d,%d,%d,%d\n", $1 * 10000, $2 * 10000, $3 * 10000, $4 * 10000, $5 }' \
    "$T/ok.csv" >"$T/int.csv"
awk -F, 'NR > 1 { printf "%d", $5; for (j = 1; j <= 4; j++) if ($j != 0) printf " %d:%d", j, $j
    printf "\n" }' "$T/int.csv" >"$T/int.libsvm"
for f in int.csv int.libsvm; do
    "$EPISTREAM" mdfs --table "$T/$f" --dim 2 --tuples 5 --out "$T/$f" --quiet || fail "mdfs --table $f"
done
cmp -s "$T/int.csv.mdfs.tsv" "$T/int.libsvm.mdfs.tsv" && cmp -s "$T/int.csv.tuples.tsv" "$T/int.libsvm.tuples.tsv" ||
    fail "LIBSVM gives another result than the same values in a CSV"
printf '1 1:0.5 2:1.5\n0 1:0.1 3:2\n2 2:1\n' >"$T/three.libsvm"
bad 1 "three.libsvm: the label has 3 values" --table "$T/three.libsvm"
# MDFS's suggested range refuses small samples for the test (give --range)
head -21 "$T/ok.csv" >"$T/small.csv"
bad 2 "suggested range for 20 objects at --dim 3" --table "$T/small.csv" --dim 3
"$EPISTREAM" mdfs --table "$T/small.csv" --dim 3 --range 0.5 --contrast 0 --out "$T/small" --quiet ||
    fail "--range lets a small sample run"

# ---- genotypes: 0/1/2 as they are ----
"$EPISTREAM" sim --samples 300 --variants 12 --seed 3 --out "$T/g" >/dev/null 2>&1 || fail "sim"
"$EPISTREAM" mdfs --bfile "$T/g" --dim 2 --out "$T/g2" --quiet || fail "mdfs --bfile"
[ "$(wc -l <"$T/g2.mdfs.tsv")" -eq 13 ] || fail "--bfile: 12 variants"
cut -f1 "$T/g2.mdfs.tsv" | tail -n +2 | cmp -s - "$(printf '%s' "$T/g.bim")".ids 2>/dev/null ||
    { awk '{ print $2 }' "$T/g.bim" >"$T/ids"; cut -f1 "$T/g2.mdfs.tsv" | tail -n +2 | cmp -s - "$T/ids" ||
        fail "--bfile: the variant IDs in .bim order"; }
bad 2 "divisions 3 with genotypes" --bfile "$T/g" --divisions 3
bad 2 "genotypes are not discretised" --bfile "$T/g" --discretizations 2
"$EPISTREAM" sim --samples 300 --variants 12 --seed 3 --missing 0.05 --out "$T/gm" >/dev/null 2>&1 ||
    fail "sim --missing"
bad 1 "a missing call" --bfile "$T/gm"
exit 0
