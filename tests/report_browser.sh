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
run_browser --screenshot="$T/shot.png" --window-size=1200,3000 "$page" >/dev/null ||
    fail "$B --screenshot failed"
[ "$(wc -c <"$T/shot.png")" -gt 50000 ] || fail "the screenshot is (nearly) empty"
if grep ':CONSOLE' "$T/browser.log" >&2; then fail "the page logged to the console (above)"; fi
exit 0
