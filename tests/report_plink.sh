#!/bin/sh
# report_plink.sh -- `epistream report` on PLINK's epistasis files
# (src/report/read_plink.c): plink1.9's own .epi.cc / .epi.qt and .summary in
# its four layouts (tests/data/plink_epi, made by its make.sh: BOOST, the
# default --fast-epistasis, --epistasis on case/control and on a quantitative
# trait, every pair listed) and scan --format plink's.  The SVGs hold what must
# be drawn (an arc is a stroke with round caps, a point a fill of opacity 0.8:
# draw.c's header), the page's table is the list's best line with the .bim's
# positions and the list's own columns, the variants are placed through the
# .bim the log names or --bfile/--bim (and an ID that cannot be placed is an
# error naming it), malformed files are errors naming the file and line with
# nothing written, hostile IDs are escaped.  With plink1.9 installed, a run of
# its BOOST on the bundled example checks that the pairs its screen lists above
# --epi1 stay off the QQ plot.
. "$(dirname "$0")/lib.sh"
E=$EPISTREAM
if "$E" report --help | grep -q 'This build has no cairo'; then skip "built without cairo"; fi
need_python xml.etree.ElementTree
count() { grep -o -- "$1" "$2" | wc -l | tr -d ' '; }
valid_xml() { "$PY" -c 'import sys, xml.etree.ElementTree as E; open(sys.argv[1], encoding="utf-8").read(); E.parse(sys.argv[1])' "$1" ||
    fail "$1 is not well-formed UTF-8 XML"; }
# best_row LIST BIM: the page's first row of LIST's table: its smallest P (ties in file order),
# each variant with its .bim chromosome and position, then LIST's own columns as printed
best_row() {
    awk 'NR == FNR { chr[$2] = $1; pos[$2] = $4; next }
         FNR > 1 && NF && $NF != "NA" {
             s = "<tr><td>" chr[$2] "</td><td>" $2 "</td><td>" pos[$2] "</td><td>" chr[$4] "</td><td>" $4 "</td><td>" pos[$4] "</td>"
             for (k = 5; k <= NF; k++) s = s "<td>" $k "</td>"
             print $NF "\t" FNR "\t" s "</tr>" }' "$2" "$1" | sort -t "$(printf '\t')" -k1,1g -k2,2n | head -1 | cut -f3
}

# ---- plink1.9's files: the golden structure, each layout ----------------------------
cp -R "$ES_TESTDATA/plink_epi" "$T/fx"
chmod -R u+w "$T/fx"
# the logs name --bfile small (qt) relative to PLINK's working directory: make it this copy
for l in "$T"/fx/*.log; do
    sed "s#^Working directory: .*#Working directory: $T/fx#" "$l" >"$l.new" && mv "$l.new" "$l"
done
# run LIST COLUMN DF: each of the four
for spec in boost:.epi.cc:STAT:4 fast:.epi.cc:STAT:1 logistic:.epi.cc:OR_INT:1 linear:.epi.qt:BETA_INT:1; do
    IFS=: read -r run list col df <<EOF
$spec
EOF
    r="$T/fx/$run"
    "$E" report "$r" --format svg --out "$T/$run.svg" --quiet || fail "report --format svg of plink1.9's $run"
    [ "$(ls "$T/$run.svg" | tr '\n' ' ')" = "heatmap.svg interaction.svg manhattan.svg qq.svg " ] ||
        fail "$run: drew $(ls "$T/$run.svg" | tr '\n' ' ')"
    for p in interaction manhattan qq heatmap; do valid_xml "$T/$run.svg/$p.svg"; done
    np=$(awk 'NR > 1 && NF && $NF != "NA"' "$r$list" | wc -l | tr -d ' ')
    [ "$np" = 276 ] || fail "$run: the fixture lists $np pairs with a P, not all 276"
    # 276 pairs: all drawn as arcs (at most 300) and as QQ points
    [ "$(count 'stroke-linecap:round' "$T/$run.svg/interaction.svg")" = "$np" ] ||
        fail "$run: $(count 'stroke-linecap:round' "$T/$run.svg/interaction.svg") arcs for $np listed pairs"
    [ "$(count 'fill-opacity:0.8;' "$T/$run.svg/qq.svg")" = "$np" ] ||
        fail "$run: $(count 'fill-opacity:0.8;' "$T/$run.svg/qq.svg") QQ points for $np p-values"
    [ "$(count 'fill-opacity:0.3;' "$T/$run.svg/qq.svg")" = 1 ] || fail "$run: no QQ band"
    nv=$(awk 'NR > 1 && NF && $6 != "NA" && $6 != "nan"' "$r$list.summary" | wc -l | tr -d ' ')
    [ "$nv" = 24 ] || fail "$run: the summary has $nv variants with a BEST_CHISQ"
    [ "$(count 'fill-opacity:0.8;' "$T/$run.svg/manhattan.svg")" = "$nv" ] ||
        fail "$run: $(count 'fill-opacity:0.8;' "$T/$run.svg/manhattan.svg") points for $nv variants"
    grep -q "chi-square tail ($df df) of its best pair" "$T/$run.svg/manhattan.svg" ||
        fail "$run: the per-variant plot does not say $df df"
    grep -q 'Bonferroni threshold p = 0.05 / 276, the run&#39;s tests (valid tests performed in the log)' \
        "$T/$run.svg/manhattan.svg" || fail "$run: no Bonferroni line from PLINK's count of valid tests"
    grep -q "M = 276, the run&#39;s tests" "$T/$run.svg/qq.svg" || fail "$run: the QQ plot's M"
    # the page: PLINK's log as lines, the list's table (its own columns, positions from the .bim)
    "$E" report "$r" --quiet || fail "report (html) of plink1.9's $run"
    h="$r.report/report.html"
    [ "$(count '<svg ' "$h")" = 4 ] || fail "$run: $(count '<svg ' "$h") inline SVGs"
    ! grep -q 'Not drawn' "$h" || fail "$run: a plot PLINK's run does not have is said to be missing"
    grep -q '<pre id="log">PLINK v1.90' "$h" || fail "$run: PLINK's log not shown as it is"
    grep -q "$run$list (and its summary) names variants by chromosome and ID only: their positions are those of $T/fx/[a-z]*.bim (named by the run&#39;s log)" "$h" ||
        fail "$run: the page does not say where the positions come from"
    grep -q 'lambda (the genomic inflation factor, on the QQ plot) = ' "$h" ||
        fail "$run: every test is listed, yet no lambda"
    grep -q "<th>POS2</th><th>$col</th>" "$h" || fail "$run: the table has no $col column after POS2"
    [ "$(awk '/id="list-table"/,/<\/table>/' "$h" | grep -c '^<tr>')" = 276 ] || fail "$run: table rows"
    want=$(best_row "$r$list" "$T/fx/small.bim")
    [ -n "$want" ] || fail "$run: no best row computed"
    [ "$(awk '/id="list-table"/,/<\/table>/' "$h" | grep '^<tr>' | head -1)" = "$want" ] ||
        fail "$run: the table's first row is not the list's best line, $want"
done
grep -q '<th>OR_INT</th><th>STAT</th><th>P</th>' "$T/fx/logistic.report/report.html" || fail "logistic: OR_INT STAT P"
grep -q '<th>STAT</th><th>DF</th><th>P</th>' "$T/fx/boost.report/report.html" || fail "boost: STAT DF P"

# ---- finding the .bim -------------------------------------------------------------
cp -R "$ES_TESTDATA/plink_epi" "$T/raw"
chmod -R u+w "$T/raw"
# (PLINK's working directory, wherever it was, is not here)
for l in "$T"/raw/*.log; do
    sed "s#^Working directory: .*#Working directory: $T/nowhere#" "$l" >"$l.new" && mv "$l.new" "$l"
done
# the log's relative --bfile, from a working directory that is not there: say what to give
expect_fail "$T/e.txt" "$E" report "$T/raw/boost" --out "$T/raw.rep"
grep -q "boost.epi.cc names variants by chromosome and ID only: their positions come from the .bim the run's log names, small.bim, which is not there: give report --bfile PREFIX or --bim FILE" "$T/e.txt" ||
    fail "no .bim: $(cat "$T/e.txt")"
[ ! -e "$T/raw.rep" ] || fail "no .bim: a directory was left"
"$E" report "$T/raw/boost" --bim "$T/raw/small.bim" --format svg --out "$T/bim.svg" --quiet || fail "report --bim"
# the same plots but for the paths their descriptions name
same() { [ "$(sed 's#<desc>.*</desc>##' "$1")" = "$(sed 's#<desc>.*</desc>##' "$2")" ]; }
same "$T/bim.svg/interaction.svg" "$T/boost.svg/interaction.svg" || fail "--bim drew another interaction plot"
"$E" report "$T/raw/boost" --bfile "$T/raw/small" --format svg --out "$T/bfile.svg" --quiet || fail "report --bfile"
same "$T/bfile.svg/manhattan.svg" "$T/boost.svg/manhattan.svg" || fail "--bfile drew another per-variant plot"
rm "$T/raw/fast.log"
expect_fail "$T/e.txt" "$E" report "$T/raw/fast"
grep -q "the run has no log to name one: give report --bfile PREFIX or --bim FILE" "$T/e.txt" || fail "no log: $(cat "$T/e.txt")"
expect_fail "$T/e.txt" "$E" report "$T/raw/boost" --bim "$T/raw/small.bim" --bfile "$T/raw/small"
grep -q 'not both' "$T/e.txt" || fail "--bim and --bfile: $(cat "$T/e.txt")"
# an ID the .bim does not have, has on another chromosome, or has twice: named, nothing drawn
awk 'BEGIN { OFS = "\t" } $2 == "snp7" { $2 = "other" } { print }' "$T/raw/small.bim" >"$T/gone.bim"
expect_fail "$T/e.txt" "$E" report "$T/raw/boost" --bim "$T/gone.bim" --out "$T/gone.rep"
ln=$(awk '$2 == "snp7" || $4 == "snp7" { print FNR; exit }' "$T/raw/boost.epi.cc")
grep -q "boost.epi.cc line $ln: SNP[12] 'snp7' is not in $T/gone.bim (given), so it cannot be placed" "$T/e.txt" ||
    fail "an ID not in the .bim: $(cat "$T/e.txt")"
[ ! -e "$T/gone.rep" ] || fail "an ID not in the .bim: a directory was left"
awk 'BEGIN { OFS = "\t" } $2 == "snp7" { $1 = 5 } { print }' "$T/raw/small.bim" >"$T/moved.bim"
expect_fail "$T/e.txt" "$E" report "$T/raw/boost" --bim "$T/moved.bim"
grep -q "line $ln: SNP[12] 'snp7' is on chromosome [0-9]*, but $T/moved.bim (given) has it on 5: is that the run's .bim?" "$T/e.txt" ||
    fail "an ID on another chromosome: $(cat "$T/e.txt")"
awk 'BEGIN { OFS = "\t" } { print } $2 == "snp7" { $4 += 1; print }' "$T/raw/small.bim" >"$T/twice.bim"
expect_fail "$T/e.txt" "$E" report "$T/raw/boost" --bim "$T/twice.bim"
grep -q "line $ln: SNP[12] 'snp7' is on chromosome [0-9]* 2 times in $T/twice.bim: it cannot be placed" "$T/e.txt" ||
    fail "an ID twice in the .bim: $(cat "$T/e.txt")"

# ---- malformed files: the file and line named, nothing written ------------------------
bad() { # NAME WHAT: report of $T/bad must fail saying WHAT, leaving no directory
    expect_fail "$T/e.txt" "$E" report "$T/bad" --bim "$T/raw/small.bim" --out "$T/bad.rep"
    grep -q -- "$2" "$T/e.txt" || fail "malformed $1: '$(cat "$T/e.txt")' does not say '$2'"
    [ ! -e "$T/bad.rep" ] || fail "malformed $1: a directory was left"
    rm -f "$T"/bad.*
}
mk() { # SRC: the bad run starts as a copy of plink1.9's SRC run
    for f in "$T/raw/$1".*; do cp "$f" "$T/bad${f#"$T/raw/$1"}"; done
}
# edit SRC SUFFIX LINE FIELD VALUE: SRC's run with field FIELD of line LINE of SRC SUFFIX set to VALUE
# (an empty last field: a line one field short)
edit() {
    mk "$1"
    awk -v l="$3" -v k="$4" -v v="$5" 'FNR == l { $k = v } { print }' "$T/raw/$1$2" >"$T/bad$2"
}
edit boost .epi.cc 5 7 ""
bad ragged "bad.epi.cc line 5: 6 fields, but the header has 7"
edit boost .epi.cc 6 7 0.x1
bad "non-numeric P" "bad.epi.cc line 6: P '0.x1' is not a p-value or NA"
edit boost .epi.cc 7 7 1.5
bad "P above 1" "bad.epi.cc line 7: P '1.5' is not a p-value or NA"
edit boost .epi.cc 3 6 7
bad "DF" "bad.epi.cc line 3: DF '7' is not 0 to 4"
edit logistic .epi.cc 4 5 odds
bad "OR_INT" "bad.epi.cc line 4: OR_INT 'odds' is not a number"
edit linear .epi.qt 1 5 BETA
bad "unknown header" "bad.epi.qt line 1: expected the header of PLINK's epistasis list"
mk boost; : >"$T/bad.epi.cc"
bad "empty list" "bad.epi.cc: empty (not even a header line)"
mk boost; printf 'CHR1 SNP1 CHR2 SNP2 STAT DF P\n1 snp1 1 snp2 1\0002 4 0.5\n' >"$T/bad.epi.cc"
bad "NUL byte" "bad.epi.cc line 2: a NUL byte"
edit boost .epi.cc.summary 1 6 BEST_STAT
bad "summary header" "bad.epi.cc.summary line 1: expected PLINK's summary header"
edit boost .epi.cc.summary 9 8 ""
bad "ragged summary" "bad.epi.cc.summary line 9: 7 fields, but the header has 8"
edit boost .epi.cc.summary 4 6 big
bad "summary BEST_CHISQ" "bad.epi.cc.summary line 4: expected N_SIG <= N_TOT"
mk boost; printf 'CHR1\tSNP1\tPOS1\tCHR2\tSNP2\tPOS2\tSTAT\tP\tLOG10P\tN\tDF\n' >"$T/bad.sig.tsv"
bad "two runs" "both $T/bad.sig.tsv and $T/bad.epi.cc exist"
mk boost; cp "$T/raw/linear.epi.qt" "$T/bad.epi.qt"
bad "two PLINK lists" "both $T/bad.epi.cc and $T/bad.epi.qt exist"

# ---- scan --format plink: its own list and summary, placed by the log's bfile ----------
"$E" sim --samples 300 --variants 30 --pairs 1 --seed 3 --out "$T/s" 2>/dev/null || fail "sim"
"$E" scan --bfile "$T/s" --format plink --p-threshold 0.05 --top 12 --quiet --out "$T/es" || fail "scan --format plink"
[ -s "$T/es.epi.cc" ] && [ -s "$T/es.epi.cc.summary" ] || fail "scan --format plink wrote no .epi.cc"
"$E" report "$T/es" --format svg --out "$T/es.svg" --quiet || fail "report of scan --format plink"
[ "$(count 'stroke-linecap:round' "$T/es.svg/interaction.svg")" = 12 ] ||
    fail "--format plink: $(count 'stroke-linecap:round' "$T/es.svg/interaction.svg") arcs for the 12 top pairs"
n=$(awk 'NR > 1 && NF && $NF != "NA"' "$T/es.epi.cc" | wc -l | tr -d ' ')
[ "$n" -gt 12 ] || fail "--format plink: only $n pairs at p <= 0.05"
[ "$(count 'fill-opacity:0.8;' "$T/es.svg/qq.svg")" = "$n" ] ||
    fail "--format plink: $(count 'fill-opacity:0.8;' "$T/es.svg/qq.svg") QQ points for the $n of es.epi.cc"
[ "$(count 'fill-opacity:0.8;' "$T/es.svg/manhattan.svg")" = 30 ] || fail "--format plink: per-variant points"
grep -q "The $n p-values of $T/es.epi.cc (every test with p &lt;= the run&#39;s --p-threshold" "$T/es.svg/qq.svg" ||
    fail "--format plink: the QQ plot does not name es.epi.cc"
"$E" report "$T/es" --quiet || fail "report (html) of scan --format plink"
grep -q 'id="top-table"' "$T/es.report/report.html" || fail "--format plink: no top table"
! grep -q 'id="list-table"' "$T/es.report/report.html" || fail "--format plink: a list table beside the top table"
grep -q "es.epi.cc (and its summary) names variants by chromosome and ID only: their positions are those of $T/s.bim (named by the run&#39;s log)" \
    "$T/es.report/report.html" || fail "--format plink: the page does not name the .bim"
# a scan of a VCF names no .bim: say what to give
mkdir "$T/vcfrun"
for f in "$T"/es.*; do [ -f "$f" ] && cp "$f" "$T/vcfrun/"; done
awk -v v="$T/in.vcf.gz" 'BEGIN { FS = OFS = "\t" } $1 == "bfile" { $1 = "vcf"; $2 = v } { print }' "$T/es.log" >"$T/vcfrun/es.log"
expect_fail "$T/e.txt" "$E" report "$T/vcfrun/es"
grep -q "the run read a VCF ($T/in.vcf.gz): give report --bim FILE" "$T/e.txt" || fail "a VCF run: $(cat "$T/e.txt")"
# another --stat than boost: its BEST_CHISQ is no chi-square of known df
"$E" scan --bfile "$T/s" --format plink --stat mi --p-threshold 0.05 --quiet --out "$T/mi" || fail "scan --format plink --stat mi"
"$E" report "$T/mi" --quiet || fail "report of --format plink --stat mi"
grep -q 'Not drawn: .*mi.epi.cc.summary gives each variant&#39;s best statistic (BEST_CHISQ) of --stat mi' \
    "$T/mi.report/report.html" || fail "--stat mi: the per-variant plot's absence not explained"
# a quantitative trait: scan --stat linear writes PLINK's .epi.qt (BETA_INT STAT P), linear4 BOOST's layout
awk '{ $6 = sprintf("%.3f", ((NR * 37) % 101) / 10.0); print }' "$T/s.fam" >"$T/q.fam"
cp "$T/s.bed" "$T/q.bed"
cp "$T/s.bim" "$T/q.bim"
"$E" scan --bfile "$T/q" --stat linear --format plink --p-threshold 0.05 --top 10 --quiet --out "$T/ql" ||
    fail "scan --stat linear --format plink"
[ "$(head -1 "$T/ql.epi.qt" | tr -s ' ' | sed 's/^ //')" = "CHR1 SNP1 CHR2 SNP2 BETA_INT STAT P " ] ||
    fail "scan --stat linear --format plink: $(head -1 "$T/ql.epi.qt")"
"$E" report "$T/ql" --format svg --out "$T/ql.svg" --quiet || fail "report of an .epi.qt of scan"
n=$(awk 'NR > 1 && NF && $NF != "NA" && $NF != "nan"' "$T/ql.epi.qt" | wc -l | tr -d ' ')
[ "$(count 'fill-opacity:0.8;' "$T/ql.svg/qq.svg")" = "$n" ] || fail "scan's .epi.qt: QQ points"
[ "$(count 'fill-opacity:0.8;' "$T/ql.svg/manhattan.svg")" = 30 ] || fail "scan's .epi.qt: per-variant points"
grep -q "chi-square tail (1 df) of its best pair" "$T/ql.svg/manhattan.svg" || fail "scan's .epi.qt: not 1 df"
"$E" scan --bfile "$T/q" --stat linear4 --format plink --p-threshold 0.05 --top 10 --quiet --out "$T/ql4" ||
    fail "scan --stat linear4 --format plink"
"$E" report "$T/ql4" --quiet || fail "report of scan --stat linear4 --format plink"
grep -q 'Not drawn: .*BEST_CHISQ) of --stat linear4' "$T/ql4.report/report.html" || fail "linear4: no reason for no per-variant plot"
"$E" scan --bfile "$T/s" --format plink --top 5 --report --quiet --out "$T/sr" || fail "scan --format plink --report"
[ "$(count '<svg ' "$T/sr.report/report.html")" -ge 3 ] || fail "scan --format plink --report: plots missing"
# an empty list (nothing at --p-threshold): the top list still draws
"$E" scan --bfile "$T/s" --format plink --p-threshold 1e-300 --top 5 --quiet --out "$T/none" || fail "scan, empty list"
[ "$(wc -l <"$T/none.epi.cc")" = 1 ] || fail "the list at 1e-300 is not empty"
"$E" report "$T/none" --format svg --out "$T/none.svg" --quiet || fail "report of an empty .epi.cc"
[ "$(count 'stroke-linecap:round' "$T/none.svg/interaction.svg")" = 5 ] || fail "empty .epi.cc: arcs of the top list"

# ---- hostile IDs: through scan --format plink and, when installed, plink1.9 ------------
"$E" sim --samples 300 --variants 12 --pairs 1 --seed 5 --out "$T/h" 2>/dev/null || fail "sim"
awk 'BEGIN { OFS = "\t"
        id[1] = "<script>alert(1)</script>"; id[2] = "a\"b'\''c&d"; id[3] = "rs\377\376x"
        id[4] = "</svg><img>"; id[5] = "]]>&amp;" }
     { if (NR in id) $2 = id[NR]; print }' "$T/h.bim" >"$T/h.bim.new"
mv "$T/h.bim.new" "$T/h.bim"
runs="$T/hes"
"$E" scan --bfile "$T/h" --format plink --p-threshold 1 --top 100 --quiet --out "$T/hes" || fail "scan of hostile IDs"
if command -v plink1.9 >/dev/null 2>&1; then
    plink1.9 --bfile "$T/h" --fast-epistasis boost --epi1 1 --out "$T/hpl" >/dev/null || fail "plink1.9 on hostile IDs"
    grep -q '<script>alert(1)</script>' "$T/hpl.epi.cc" || fail "plink1.9 did not keep the <script> ID"
    runs="$runs $T/hpl"
fi
for r in $runs; do
    "$E" report "$r" --quiet || fail "report of hostile IDs ($r)"
    h="$r.report/report.html"
    "$PY" -c 'import sys; open(sys.argv[1], encoding="utf-8", errors="strict").read()' "$h" || fail "$h is not UTF-8"
    grep -q '<script>alert' "$h" && fail "$r: a <script> ID not escaped"
    grep -q '</svg><img>' "$h" && fail "$r: an ID closes the SVG"
    grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$h" || fail "$r: the <script> ID is missing"
    grep -q 'a&quot;b&#39;c&amp;d' "$h" || fail "$r: quotes and & not escaped"
    grep -q "rs$(printf '\357\277\275\357\277\275')x" "$h" || fail "$r: non-UTF-8 bytes not replaced"
    [ "$(count '<script>' "$h")" = 1 ] || fail "$r: more than the one script"
    "$E" report "$r" --format svg --out "$r.svg" --quiet || fail "report --format svg of hostile IDs ($r)"
    for f in "$r".svg/*.svg; do valid_xml "$f"; done
done

# ---- plink1.9's BOOST on the example: listed pairs above --epi1 stay off the QQ plot -----
if command -v plink1.9 >/dev/null 2>&1; then
    plink1.9 --bfile "$ES_SRCDIR/examples/data/example" --fast-epistasis boost --epi1 1e-3 --out "$T/pb" >/dev/null ||
        fail "plink1.9 --fast-epistasis boost"
    "$E" report "$T/pb" --format svg --out "$T/pb.svg" --quiet || fail "report of plink1.9's BOOST run"
    nq=$(awk 'NR > 1 && NF && $NF != "NA" && $NF <= 0.001' "$T/pb.epi.cc" | wc -l | tr -d ' ')
    na=$(awk 'NR > 1 && NF && $NF != "NA" && $NF > 0.001' "$T/pb.epi.cc" | wc -l | tr -d ' ')
    [ "$(count 'fill-opacity:0.8;' "$T/pb.svg/qq.svg")" = "$nq" ] ||
        fail "BOOST: $(count 'fill-opacity:0.8;' "$T/pb.svg/qq.svg") QQ points, $nq listed pairs have P <= 1e-3"
    [ "$(count 'stroke-linecap:round' "$T/pb.svg/interaction.svg")" = 300 ] || fail "BOOST: not the best 300 arcs"
    "$E" report "$T/pb" --quiet || fail "report (html) of plink1.9's BOOST run"
    if [ "$na" -gt 0 ]; then
        grep -q "$na listed pairs of $T/pb.epi.cc have P above the list&#39;s threshold 0.001" "$T/pb.report/report.html" ||
            fail "BOOST: the $na pairs above --epi1 are not mentioned"
    fi
fi
exit 0
