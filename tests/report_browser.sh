#!/bin/sh
# report_browser.sh -- the report page opened in a real browser (headless
# Chromium): it loads without a console error (a script error, a fetch the
# page's Content-Security-Policy refused), its script ran (it marks the page
# data-ready="1" last), its five plots are in the DOM, and it renders to a
# screenshot.  Skips without a browser (scripts/deps.sh installs chromium)
# or without cairo.
. "$(dirname "$0")/lib.sh"
E=$EPISTREAM
"$E" report --help | grep -q 'This build has no cairo' && skip "built without cairo"
B=
for b in chromium chromium-browser google-chrome; do
    command -v "$b" >/dev/null 2>&1 && { B=$b; break; }
done
[ -n "$B" ] || skip "no headless browser (chromium) installed"
"$E" scan --bfile "$ES_SRCDIR/examples/data/example" --top 100 --p-threshold 1e-3 --refine mrmr:5 \
    --report --quiet --out "$T/ex" || fail "scan --report"
page="file://$T/ex.report/report.html"
# a profile of its own; root needs --no-sandbox
run_browser() {
    timeout 120 "$B" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$T/profile" \
        --enable-logging=stderr --v=0 "$@" 2>>"$T/browser.log"
}
run_browser --dump-dom "$page" >"$T/dom.html" || { tail -20 "$T/browser.log" >&2; fail "$B --dump-dom failed"; }
grep -q '<html lang="en" data-ready="1">' "$T/dom.html" || fail "the page's script did not run to its end"
[ "$(grep -o '<svg ' "$T/dom.html" | wc -l | tr -d ' ')" = 5 ] || fail "the DOM does not hold the 5 plots"
grep -q 'id="top-table"' "$T/dom.html" || fail "the DOM has no top table"
if grep ':CONSOLE' "$T/browser.log" >&2; then fail "the page logged to the console (above)"; fi
# the columns sort: a copy of the page clicks LOG10P (numbers: ascending,
# then descending) and SNP1 (text), and writes each order into the DOM
sed 's|</body>|<script>(function(){var t=document.getElementById("top-table"),h=t.tHead.rows[0].cells;\
function col(c){return Array.prototype.map.call(t.tBodies[0].rows,function(r){return r.cells[c].textContent;}).join(" ");}\
h[8].click();document.body.setAttribute("data-up",col(8));h[8].click();document.body.setAttribute("data-down",col(8));\
h[1].click();document.body.setAttribute("data-snp",col(1));})();</script></body>|' "$T/ex.report/report.html" >"$T/sort.html"
run_browser --dump-dom "file://$T/sort.html" >"$T/sort_dom.html" || fail "$B --dump-dom of the sort test failed"
attr() { sed -n "s/.*<body $1=\"\([^\"]*\)\".*/\1/p; s/.*<body.* $1=\"\([^\"]*\)\".*/\1/p" "$T/sort_dom.html" | head -1 | tr ' ' '\n'; }
attr data-up >"$T/up.txt"
attr data-down >"$T/down.txt"
attr data-snp >"$T/snp.txt"
[ "$(wc -l <"$T/up.txt")" = 100 ] || fail "sorting: $(wc -l <"$T/up.txt") rows after a click"
sort -g "$T/up.txt" | cmp -s - "$T/up.txt" || fail "LOG10P is not ascending after one click"
sort -g -r "$T/up.txt" | cmp -s - "$T/down.txt" || fail "LOG10P is not descending after two clicks"
LC_ALL=C sort "$T/snp.txt" | cmp -s - "$T/snp.txt" || fail "SNP1 is not in text order after a click"
if grep ':CONSOLE' "$T/browser.log" >&2; then fail "the sort test logged to the console (above)"; fi
run_browser --screenshot="$T/shot.png" --window-size=1200,3000 "$page" >/dev/null ||
    fail "$B --screenshot failed"
[ "$(wc -c <"$T/shot.png")" -gt 50000 ] || fail "the screenshot is (nearly) empty"
if grep ':CONSOLE' "$T/browser.log" >&2; then fail "the page logged to the console (above)"; fi
exit 0
