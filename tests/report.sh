#!/bin/sh
# report.sh -- `epistream report` and `scan --report` (src/report/): the SVG
# holds what must be drawn for a small run (draw.c's header says how each
# element is written: an arc is a stroke with round caps, a point a fill of
# opacity 0.8), hostile IDs and paths are escaped in the page and the SVG,
# empty results, one chromosome, a 3-way run, k2, a select-only prefix,
# missing and malformed files (an error naming the file and line, nothing
# written), the formats, the usage errors.  A build without cairo must say so
# (then the rest is skipped).
. "$(dirname "$0")/lib.sh"
E=$EPISTREAM
if "$E" report --help | grep -q 'This build has no cairo'; then
    expect_fail "$T/nocairo.txt" "$E" report "$T/none"
    grep -q 'built without cairo' "$T/nocairo.txt" || fail "no-cairo build: no clear message"
    [ ! -e "$T/none.report" ] || fail "no-cairo build wrote a report directory"
    skip "built without cairo"
fi
need_python xml.etree.ElementTree
count() { grep -o -- "$1" "$2" | wc -l | tr -d ' '; }
# valid_xml FILE: parses as XML and is UTF-8 (inline SVG in HTML is not XML: SVG files only)
valid_xml() { "$PY" -c 'import sys, xml.etree.ElementTree as E; open(sys.argv[1], encoding="utf-8").read(); E.parse(sys.argv[1])' "$1" ||
    fail "$1 is not well-formed UTF-8 XML"; }
utf8() { "$PY" -c 'import sys; open(sys.argv[1], encoding="utf-8", errors="strict").read()' "$1" ||
    fail "$1 is not valid UTF-8"; }

# ---- a 2-way run of the bundled example: the golden structure --------------------
ex="$ES_SRCDIR/examples/data/example"
"$E" scan --bfile "$ex" --top 50 --p-threshold 1e-3 --refine mrmr:5 --quiet --out "$T/ex" ||
    fail "scan of the example"
"$E" report "$T/ex" --format svg --out "$T/svg" --quiet || fail "report --format svg"
for p in interaction manhattan qq heatmap ranking; do
    [ -s "$T/svg/$p.svg" ] || fail "no $p.svg"
    valid_xml "$T/svg/$p.svg"
    [ "$(count '<use xlink:href="#glyph' "$T/svg/$p.svg")" -gt 20 ] || fail "$p.svg: no text drawn"
done
[ "$(count 'stroke-linecap:round' "$T/svg/interaction.svg")" = 50 ] ||
    fail "interaction.svg: $(count 'stroke-linecap:round' "$T/svg/interaction.svg") arcs for 50 top pairs"
nsum=$(awk -F'\t' 'NR > 1 && $7 != "NA"' "$T/ex.summary.tsv" | wc -l | tr -d ' ')
[ "$nsum" = 1000 ] || fail "the example's summary has $nsum variants with a p"
[ "$(count 'fill-opacity:0.8;' "$T/svg/manhattan.svg")" = "$nsum" ] ||
    fail "manhattan.svg: $(count 'fill-opacity:0.8;' "$T/svg/manhattan.svg") points for $nsum variants"
nsig=$(awk 'NR > 1' "$T/ex.sig.tsv" | wc -l | tr -d ' ')
[ "$(count 'fill-opacity:0.8;' "$T/svg/qq.svg")" = "$nsig" ] ||
    fail "qq.svg: $(count 'fill-opacity:0.8;' "$T/svg/qq.svg") points for $nsig p-values"
[ "$(count 'fill-opacity:0.3;' "$T/svg/qq.svg")" = 1 ] || fail "qq.svg: no band"
grep -q '<desc>The 50 variants\|<desc>The chromosomes side by side' "$T/svg/interaction.svg" ||
    fail "interaction.svg: no description"
grep -q "M = 499500, the run&#39;s tests (valid_tests in the log)" "$T/svg/qq.svg" ||
    fail "qq.svg: the description does not name M"
grep -q 'Bonferroni threshold p = 0.05 / 499500' "$T/svg/manhattan.svg" || fail "manhattan.svg: no Bonferroni line"
grep -q 'The 5 features' "$T/svg/ranking.svg" || fail "ranking.svg: not the 5 picks"
# the page: every plot inline, the log, the tables, no network
"$E" report "$T/ex" --quiet || fail "report (html)"
h="$T/ex.report/report.html"
[ -s "$h" ] || fail "no $h"
utf8 "$h"
[ "$(count '<svg ' "$h")" = 5 ] || fail "report.html: $(count '<svg ' "$h") inline SVGs, expected 5"
[ "$(count 'stroke-linecap:round' "$h")" = 50 ] || fail "report.html: arcs"
grep -q '<th>valid_tests</th><td>499,500</td>' "$h" || fail "report.html: the log"
[ "$(awk '/id="top-table"/,/<\/table>/' "$h" | grep -c '^<tr>')" = 50 ] || fail "report.html: top table rows"
grep -q 'id="select-table"' "$h" || fail "report.html: no selection table"
if grep -E -q '(src|href)="(https?:)?//|@import|url\(http' "$h"; then fail "report.html refers to the network"; fi
grep -q "default-src 'none'" "$h" || fail "report.html: no Content-Security-Policy"
grep -q 'lambda (the genomic inflation factor) is not shown' "$h" || fail "report.html: lambda note"
ls "$T/ex.report" | grep -q tmp && fail "a .tmp file was left"
# the other formats
"$E" report "$T/ex" --format png --out "$T/png" --quiet || fail "report --format png"
for p in interaction manhattan qq heatmap ranking; do
    [ "$(head -c 8 "$T/png/$p.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$p.png is not a PNG"
done
"$E" report "$T/ex" --format pdf --out "$T/pdf" --quiet || fail "report --format pdf"
[ "$(head -c 4 "$T/pdf/qq.pdf")" = %PDF ] || fail "qq.pdf is not a PDF"

# ---- lambda where the list holds every test --------------------------------------
"$E" sim --samples 300 --variants 40 --pairs 1 --seed 3 --out "$T/small" 2>/dev/null || fail "sim"
"$E" scan --bfile "$T/small" --p-threshold 1 --quiet --out "$T/all" || fail "scan --p-threshold 1"
"$E" report "$T/all" --format svg --out "$T/all.svg" --quiet || fail "report of a full list"
"$E" report "$T/all" --quiet || fail "report (html) of a full list"
grep -q 'lambda (the genomic inflation factor, on the QQ plot) = the chi-square' "$T/all.report/report.html" ||
    fail "lambda not computed from a list of every test"
[ "$(count 'fill-opacity:0.8;' "$T/all.svg/qq.svg")" = 780 ] || fail "qq.svg of every test: not 780 points"

# ---- hostile IDs and paths ------------------------------------------------------
"$E" sim --samples 300 --variants 12 --pairs 1 --seed 5 --out "$T/h" 2>/dev/null || fail "sim"
awk 'BEGIN { OFS = "\t"
        id[1] = "<script>alert(1)</script>"; id[2] = "a\"b'\''c&d"; id[3] = "rs\377\376x"
        id[4] = "</svg><img>"; id[5] = "]]>&amp;"; chr[1] = "<b>" }
     { if (NR in id) $2 = id[NR]; if (NR == 1) $1 = chr[1]; print }' "$T/h.bim" >"$T/h.bim.new"
mv "$T/h.bim.new" "$T/h.bim"
d="$T/we<ird&\"dir"
mkdir "$d" || fail "mkdir"
"$E" scan --bfile "$T/h" --top 100 --p-threshold 1 --quiet --out "$d/run" || fail "scan of hostile IDs"
"$E" report "$d/run" --quiet || fail "report of hostile IDs"
h="$d/run.report/report.html"
utf8 "$h"
grep -q '<script>alert' "$h" && fail "report.html: a <script> ID not escaped"
grep -q '</svg><img>' "$h" && fail "report.html: an ID closes the SVG"
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$h" || fail "report.html: the <script> ID is missing"
grep -q 'a&quot;b&#39;c&amp;d' "$h" || fail "report.html: quotes and & not escaped"
grep -q "rs$(printf '\357\277\275\357\277\275')x" "$h" || fail "report.html: non-UTF-8 bytes not replaced"
grep -q '\]\]&gt;&amp;amp;' "$h" || fail "report.html: ]]> not escaped"
grep -q 'we&lt;ird&amp;&quot;dir' "$h" || fail "report.html: the path not escaped"
[ "$(count '<script>' "$h")" = 1 ] || fail "report.html: more than the one script"
"$E" report "$d/run" --format svg --out "$T/hsvg" --quiet || fail "report --format svg of hostile IDs"
for f in "$T"/hsvg/*.svg; do valid_xml "$f"; done

# ---- one chromosome, a 3-way run, k2 -------------------------------------------
awk 'BEGIN { OFS = "\t" } { $1 = 7; print }' "$T/small.bim" >"$T/one.bim"
cp "$T/small.bed" "$T/one.bed"
cp "$T/small.fam" "$T/one.fam"
"$E" scan --bfile "$T/one" --top 20 --quiet --out "$T/one" || fail "scan of one chromosome"
"$E" report "$T/one" --format svg --out "$T/one.svg" --quiet || fail "report of one chromosome"
[ "$(count 'stroke-linecap:round' "$T/one.svg/interaction.svg")" = 20 ] || fail "one chromosome: arcs"
[ "$(count 'fill-opacity:0.8;' "$T/one.svg/manhattan.svg")" = 40 ] || fail "one chromosome: points"
"$E" scan --bfile "$ES_SRCDIR/examples/data/triple" --order 3 --stat ig --top 15 --quiet --out "$T/tri" ||
    fail "3-way scan"
"$E" report "$T/tri" --format svg --out "$T/tri.svg" --quiet || fail "report of a 3-way run"
[ "$(count 'stroke-linecap:round' "$T/tri.svg/interaction.svg")" = 45 ] ||
    fail "3-way: $(count 'stroke-linecap:round' "$T/tri.svg/interaction.svg") arcs for 15 triples (3 each)"
[ "$(count 'fill-opacity:0.8;' "$T/tri.svg/manhattan.svg")" = 100 ] || fail "3-way: points"
"$E" report "$T/tri" --quiet || fail "report (html) of a 3-way run"
grep -q '<th>CHR3</th>' "$T/tri.report/report.html" || fail "3-way: the table has no CHR3"
grep -q 'Top triples' "$T/tri.report/report.html" || fail "3-way: not called triples"
# a 3-way list with its tables (68 columns) and a significant list
"$E" scan --bfile "$ES_SRCDIR/examples/data/triple" --order 3 --top 5 --p-threshold 1e-3 --tables \
    --quiet --out "$T/trit" || fail "3-way scan --tables"
"$E" report "$T/trit" --quiet || fail "report of a 3-way run with --tables"
grep -q '<th>CASE_222</th>' "$T/trit.report/report.html" || fail "3-way --tables: no CASE_222 column"
"$E" report "$T/trit" --format svg --out "$T/trit.svg" --quiet || fail "report --format svg of 3-way --tables"
[ "$(count 'fill-opacity:0.8;' "$T/trit.svg/qq.svg")" = "$(awk 'NR > 1' "$T/trit.sig.tsv" | wc -l | tr -d ' ')" ] ||
    fail "3-way: QQ points are not the .sig.tsv lines"
"$E" scan --bfile "$T/small" --stat k2 --top 10 --quiet --out "$T/k2" || fail "k2 scan"
"$E" report "$T/k2" --format svg --out "$T/k2.svg" --quiet || fail "report of a k2 run"
[ ! -e "$T/k2.svg/qq.svg" ] || fail "k2: a QQ plot without p-values"
[ "$(count 'stroke-linecap:round' "$T/k2.svg/interaction.svg")" = 10 ] || fail "k2: arcs"
"$E" report "$T/k2" --quiet || fail "report (html) of a k2 run"
grep -q 'The statistic is k2, which has no p-value' "$T/k2.report/report.html" || fail "k2: not said"

# ---- many points: one embedded image instead of a path each ----------------------
awk 'BEGIN { OFS = "\t"; print "CHR", "SNP", "POS", "N_SIG", "N_TOT", "BEST_STAT", "BEST_P", "BEST_CHR", "BEST_SNP", "BEST_POS"
             for (i = 0; i < 25000; i++) print 1 + int(i / 5000), "v" i, i * 10, 0, 24999, 9.5, (i % 97 + 1) / 1000, 1, "v0", 0 }' >"$T/many.summary.tsv"
"$E" report "$T/many" --format svg --out "$T/many.svg" --quiet || fail "report of 25,000 variants"
[ "$(count 'fill-opacity:0.8;' "$T/many.svg/manhattan.svg")" = 0 ] && [ "$(count '<image' "$T/many.svg/manhattan.svg")" = 1 ] ||
    fail "25,000 points: not one embedded image"
[ "$(wc -c <"$T/many.svg/manhattan.svg")" -lt 2000000 ] || fail "25,000 points: the SVG is large"

# ---- empty results, select only -------------------------------------------------
printf 'CHR1\tSNP1\tPOS1\tCHR2\tSNP2\tPOS2\tSTAT\tP\tLOG10P\tN\tDF\n' >"$T/empty.top.tsv"
printf 'CHR\tSNP\tPOS\tN_SIG\tN_TOT\tBEST_STAT\tBEST_P\tBEST_CHR\tBEST_SNP\tBEST_POS\n' >"$T/empty.summary.tsv"
"$E" report "$T/empty" --quiet || fail "report of empty results"
grep -q 'Not drawn: the run listed no pairs' "$T/empty.report/report.html" || fail "empty: no reason given"
expect_fail "$T/e.txt" "$E" report "$T/empty" --format svg --out "$T/empty.svg"
grep -q 'nothing to draw' "$T/e.txt" || fail "empty --format svg: $(cat "$T/e.txt")"
[ ! -e "$T/empty.svg" ] || fail "empty --format svg left a directory"
printf 'a,b,c,y\n1,0,1,1\n0,1,1,0\n1,1,0,1\n0,0,0,0\n' >"$T/tab.csv"
"$E" select --table "$T/tab.csv" --method mrmr --k 2 --quiet --out "$T/sel" || fail "select"
"$E" report "$T/sel" --format svg --out "$T/sel.svg" --quiet || fail "report of a select run"
[ "$(ls "$T/sel.svg")" = ranking.svg ] || fail "select only: $(ls "$T/sel.svg")"

# a rules run: train's rules listed in order (escaped), predict's metrics as a table; no plot notes
printf 'f1,f2,<b>&l1,l2\n0.1,1,1,0\n0.9,0,0,1\n0.2,1,1,0\n0.8,0,0,1\n0.3,1,1,1\n0.7,0,0,0\n' >"$T/ml.csv"
"$E" rules train --table "$T/ml.csv" --labels 3,4 --max-rules 4 --quiet --out "$T/rl" || fail "rules train"
"$E" rules predict --model "$T/rl.model" --table "$T/ml.csv" --labels 3,4 --quiet --out "$T/rl" ||
    fail "rules predict"
"$E" report "$T/rl" --quiet || fail "report of a rules run"
h="$T/rl.report/report.html"
[ "$(count '<li><code>IF ' "$h")" = "$(grep -c '^IF ' "$T/rl.rules.txt")" ] ||
    fail "rules run: $(count '<li><code>IF ' "$h") rules listed, $(grep -c '^IF ' "$T/rl.rules.txt") in rl.rules.txt"
grep -q '&lt;b&gt;&amp;l1' "$h" || fail "rules run: the label name is not escaped"
! grep -q '<b>&l1' "$h" || fail "rules run: a raw label name in the page"
grep -q 'id="metrics"' "$h" && grep -q '<td>hamming_loss</td>' "$h" || fail "rules run: no metrics table"
! grep -q 'Not drawn' "$h" || fail "rules run: notes on plots a rules run does not have"
printf 'IF TRUE THEN l1 +0.1\nthis is not a rule\n' >"$T/badr.rules.txt"
expect_fail "$T/e.txt" "$E" report "$T/badr"
grep -q 'badr.rules.txt line 2: expected a rule' "$T/e.txt" || fail "bad rules.txt: $(cat "$T/e.txt")"
[ ! -e "$T/badr.report" ] || fail "bad rules.txt: a directory was left"
printf 'METRIC\tVALUE\nhamming_loss\tlots\n' >"$T/badm.metrics.tsv"
expect_fail "$T/e.txt" "$E" report "$T/badm"
grep -q 'badm.metrics.tsv line 2: expected METRIC VALUE' "$T/e.txt" || fail "bad metrics.tsv: $(cat "$T/e.txt")"

# an mdfs run: its variables drawn ranked (one point each, the relevant ones red), a table, no
# genome plots; malformed files named by line
"$E" mdfs --table "$ES_SRCDIR/examples/data/mdfs_example.csv" --dim 2 --level 0.9 --quiet --out "$T/md" ||
    fail "mdfs"
"$E" report "$T/md" --format svg --out "$T/md.svg" --quiet || fail "report of an mdfs run"
[ "$(ls "$T/md.svg")" = mdfs.svg ] || fail "mdfs only: $(ls "$T/md.svg")"
nv=$(($(wc -l <"$T/md.mdfs.tsv") - 1))
nr=$(($(wc -l <"$T/md.relevant.tsv") - 1))
[ "$nr" -ge 1 ] || fail "mdfs: no relevant variable to mark at --level 0.9"
# cairo draws each point as a path; the red ones carry the relevant colour
[ "$(count 'fill:rgb(80%,10%,10%)' "$T/md.svg/mdfs.svg")" -ge "$nr" ] || fail "mdfs: fewer red points than relevant variables"
"$E" report "$T/md" --quiet || fail "report of an mdfs run (html)"
h="$T/md.report/report.html"
grep -q 'id="mdfs"' "$h" && grep -q 'id="mdfs-vars"' "$h" || fail "mdfs run: no plot or table in the page"
[ "$(count '<tr><td>' "$h")" = "$nv" ] || fail "mdfs run: $(count '<tr><td>' "$h") table rows, $nv variables"
! grep -q 'Not drawn' "$h" || fail "mdfs run: notes on plots an mdfs run does not have"
printf 'VARIABLE	MAX_IG	TUPLE	P	ADJ_P
v1	much	v1	0.5	1
' >"$T/badmd.mdfs.tsv"
expect_fail "$T/e.txt" "$E" report "$T/badmd"
grep -q 'badmd.mdfs.tsv line 2: expected VARIABLE MAX_IG' "$T/e.txt" || fail "bad mdfs.tsv: $(cat "$T/e.txt")"
head -2 "$T/md.mdfs.tsv" >"$T/badrel.mdfs.tsv"
printf 'VARIABLE	MAX_IG	TUPLE	P	ADJ_P
nosuch	1	nosuch	0.5	1
' >"$T/badrel.relevant.tsv"
expect_fail "$T/e.txt" "$E" report "$T/badrel"
grep -q "badrel.relevant.tsv line 2: variable 'nosuch' is not in" "$T/e.txt" || fail "bad relevant.tsv: $(cat "$T/e.txt")"
# an nsga run (its files as nsga writes them): the front and the hypervolume, a table
printf 'N_FEATURES\tF1\tF2\tFEATURES\n1\t0.1\t0.4\t<x>\n2\t0.2\t0.2\t<x>,y\n4\t0.4\t0.1\t<x>,y,z,w\n' >"$T/ns.front.tsv"
printf 'GENERATION\tHV\n0\t0.5\n1\t0.6\n2\t0.7\n' >"$T/ns.hv.tsv"
"$E" report "$T/ns" --format svg --out "$T/ns.svg" --quiet || fail "report of an nsga run"
[ "$(ls "$T/ns.svg" | tr '\n' ' ')" = "front.svg hypervolume.svg " ] || fail "nsga only: $(ls "$T/ns.svg")"
"$E" report "$T/ns" --quiet || fail "report of an nsga run (html)"
h="$T/ns.report/report.html"
grep -q 'id="front-individuals"' "$h" || fail "nsga run: no front table"
grep -q '&lt;x&gt;,y,z,w' "$h" || fail "nsga run: feature names not escaped"
printf 'GENERATION\tHV\n0\t0.5\n2\t0.6\n' >"$T/badhv.hv.tsv"
expect_fail "$T/e.txt" "$E" report "$T/badhv"
grep -q 'badhv.hv.tsv line 3: expected GENERATION HV (generation 1' "$T/e.txt" || fail "bad hv.tsv: $(cat "$T/e.txt")"
printf 'N_FEATURES\tF1\tF2\tFEATURES\n-1\t0.1\t0.4\tx\n' >"$T/badfr.front.tsv"
expect_fail "$T/e.txt" "$E" report "$T/badfr"
grep -q 'badfr.front.tsv line 2: expected N_FEATURES F1 F2 FEATURES' "$T/e.txt" || fail "bad front.tsv: $(cat "$T/e.txt")"

# ---- missing and malformed files: an error naming the file and line, nothing written
expect_fail "$T/e.txt" "$E" report "$T/nothing"
grep -q "no results of a run under '$T/nothing'" "$T/e.txt" || fail "missing: $(cat "$T/e.txt")"
[ ! -e "$T/nothing.report" ] || fail "missing: a directory was made"
expect_fail "$T/e.txt" "$E" report "$T/ex.top.tsv"
grep -q "give the run's PREFIX, without the file's suffix" "$T/e.txt" || fail "a file for a prefix: $(cat "$T/e.txt")"
cp "$T/ex.report/report.html" "$T/before.html"
for f in top sig summary select; do
    for k in log top.tsv sig.tsv summary.tsv select.tsv; do cp "$T/ex.$k" "$T/bad.$k"; done
    case $f in
    top) awk -F'\t' 'BEGIN { OFS = "\t" } NR == 5 { $3 = "12x" } { print }' "$T/ex.top.tsv" >"$T/bad.top.tsv"; want="bad.top.tsv line 5: POS1 '12x'" ;;
    sig) awk -F'\t' 'BEGIN { OFS = "\t" } NR == 7 { NF = 9 } { print }' "$T/ex.sig.tsv" >"$T/bad.sig.tsv"; want="bad.sig.tsv line 7: 9 fields" ;;
    summary) awk -F'\t' 'BEGIN { OFS = "\t" } NR == 3 { $7 = "2.5" } { print }' "$T/ex.summary.tsv" >"$T/bad.summary.tsv"; want="bad.summary.tsv line 3: BEST_STAT" ;;
    select) printf 'RANK\tFEATURE\tSCORE\n' >"$T/bad.select.tsv"; want="bad.select.tsv line 1: expected the header" ;;
    esac
    mkdir -p "$T/bad.report"
    cp "$T/before.html" "$T/bad.report/report.html"
    expect_fail "$T/e.txt" "$E" report "$T/bad"
    grep -q "$want" "$T/e.txt" || fail "malformed $f: '$(cat "$T/e.txt")' does not say '$want'"
    cmp -s "$T/before.html" "$T/bad.report/report.html" || fail "malformed $f: the old report was changed"
    [ "$(ls "$T/bad.report")" = report.html ] || fail "malformed $f: left $(ls "$T/bad.report")"
    rm -rf "$T/bad.report"
    expect_fail "$T/e.txt" "$E" report "$T/bad" --out "$T/bad.new"
    [ ! -e "$T/bad.new" ] || fail "malformed $f: a new directory was left"
done
: >"$T/ex.top.tsv.x"
printf 'not a header\n' >"$T/hdr.top.tsv"
expect_fail "$T/e.txt" "$E" report "$T/hdr"
grep -q "hdr.top.tsv line 1: expected the header" "$T/e.txt" || fail "bad header: $(cat "$T/e.txt")"
: >"$T/empty2.top.tsv"
expect_fail "$T/e.txt" "$E" report "$T/empty2"
grep -q "empty2.top.tsv: empty" "$T/e.txt" || fail "empty file: $(cat "$T/e.txt")"
printf 'x\n' >"$T/notdir"
expect_fail "$T/e.txt" "$E" report "$T/ex" --out "$T/notdir"
grep -q "notdir: exists and is not a directory" "$T/e.txt" || fail "--out a file: $(cat "$T/e.txt")"

# ---- scan --report, usage ----------------------------------------------------------
"$E" scan --bfile "$T/small" --top 10 --report --quiet --out "$T/sr" || fail "scan --report"
[ -s "$T/sr.report/report.html" ] || fail "scan --report wrote no page"
expect_fail "$T/e.txt" "$E" report
grep -q 'give the PREFIX of a run' "$T/e.txt" || fail "report without PREFIX"
expect_fail "$T/e.txt" "$E" report "$T/ex" "$T/ex"
grep -q 'unexpected argument' "$T/e.txt" || fail "report with two PREFIXes"
expect_fail "$T/e.txt" "$E" report "$T/ex" --format gif
grep -q "expected html, svg, png or pdf, got 'gif'" "$T/e.txt" || fail "report --format gif"
"$E" report --help | grep -q -- '--format F' || fail "report --help"
exit 0
