#!/bin/sh
# progress.sh -- long commands show a progress line (rate and ETA) on a
# terminal and are silent otherwise: scan (pairs, triples), select and scan
# --refine (picks), reading a VCF/BCF (bytes: convert, scan); --quiet hides it.  The terminal is script(1)'s pty;
# skips without script.
. "$(dirname "$0")/lib.sh"
need_cmd script
E=$EPISTREAM
ex="$ES_SRCDIR/examples/data/example"
"$E" scan --bfile "$ex" --top 50 --quiet --out "$T/ex" || fail "scan"
# on_tty FILE CMD...: run CMD with its output on a pty, the output into FILE
on_tty() {
    out=$1
    shift
    cmd=""
    for a in "$@"; do cmd="$cmd '$a'"; done
    script -qec "$cmd" /dev/null </dev/null | tr '\r' '\n' >"$out" || fail "on a pty: $*"
}
on_tty "$T/scan.txt" "$E" scan --bfile "$ex" --refine mrmr:5 --out "$T/p1"
grep -q '^\[scan\] 499,500 / 499,500 pairs (100.0%), .* pairs/s, ETA [0-9]* s' "$T/scan.txt" ||
    fail "scan on a terminal: no progress line: $(cat "$T/scan.txt")"
grep -q '^\[select\] 5 / 5 picks (100.0%), .* picks/s, ETA' "$T/scan.txt" ||
    fail "scan --refine on a terminal: no progress line for the picks"
on_tty "$T/tri.txt" "$E" scan --bfile "$ES_SRCDIR/examples/data/triple" --order 3 --out "$T/p3"
grep -q '^\[scan\] 161,700 / 161,700 triples (100.0%), .* triples/s, ETA' "$T/tri.txt" ||
    fail "scan --order 3 on a terminal: no progress line"
on_tty "$T/sel.txt" "$E" select --bfile "$ex" --from "$T/ex.top.tsv" --method jmi --k 7 --out "$T/s"
grep -q '^\[select\] 7 / 7 picks (100.0%), .* picks/s, ETA' "$T/sel.txt" ||
    fail "select on a terminal: no progress line: $(cat "$T/sel.txt")"
# condmi stops early: the line is ended before the summary
on_tty "$T/cm.txt" "$E" select --bfile "$ex" --from "$T/ex.top.tsv" --method condmi --k 500 --out "$T/c"
grep -q '^\[select\] condmi picked' "$T/cm.txt" || fail "condmi: the summary shares the progress line"
on_tty "$T/q.txt" "$E" select --bfile "$ex" --from "$T/ex.top.tsv" --method jmi --k 7 --quiet --out "$T/s"
[ ! -s "$T/q.txt" ] || fail "select --quiet on a terminal printed: $(cat "$T/q.txt")"
# reading a VCF (bgzipped): the bytes read, the last line at the file's size
"$E" sim --samples 50 --variants 30 --seed 3 --out "$T/v" >/dev/null 2>&1 || fail "sim"
"$E" convert --bfile "$T/v" --out "$T/vv" --quiet || fail "convert"
if command -v plink1.9 >/dev/null 2>&1 && command -v bgzip >/dev/null 2>&1; then
    plink1.9 --bfile "$T/v" --recode vcf --out "$T/v" >/dev/null 2>&1 || fail "plink1.9 --recode vcf"
    bgzip -f "$T/v.vcf" || fail "bgzip"
    size=$(wc -c <"$T/v.vcf.gz" | tr -d ' ')
    on_tty "$T/rd.txt" "$E" convert --vcf "$T/v.vcf.gz" --out "$T/vc"
    sz=$(awk -v n="$size" 'BEGIN { s = ""; while (n >= 1000) { s = sprintf(",%03d", n % 1000) s; n = int(n / 1000) } print n s }')
    grep -q "^\[read\] $sz / $sz bytes (100.0%), .* bytes/s, ETA" "$T/rd.txt" ||
        fail "convert --vcf on a terminal: no read progress line: $(cat "$T/rd.txt")"
    on_tty "$T/rdq.txt" "$E" convert --vcf "$T/v.vcf.gz" --out "$T/vc" --quiet
    [ ! -s "$T/rdq.txt" ] || fail "convert --quiet on a terminal printed: $(cat "$T/rdq.txt")"
    "$E" convert --vcf "$T/v.vcf.gz" --out "$T/vc" 2>"$T/rdn.txt" || fail "convert"
    if grep -q 'ETA' "$T/rdn.txt"; then fail "a read progress line without a terminal"; fi
fi
# not a terminal: no progress line
"$E" scan --bfile "$ex" --refine mrmr:5 --out "$T/p2" 2>"$T/notty.txt" || fail "scan"
"$E" select --bfile "$ex" --from "$T/ex.top.tsv" --method jmi --k 7 --out "$T/s" 2>>"$T/notty.txt" ||
    fail "select"
if grep -q 'ETA' "$T/notty.txt"; then fail "a progress line without a terminal"; fi
exit 0
