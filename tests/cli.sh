#!/bin/sh
# cli.sh -- the command line: help, version, usage errors and their exit codes,
# and that a failed scan leaves no output files behind.
. "$(dirname "$0")/lib.sh"

"$EPISTREAM" --version | grep -q '^epistream [0-9]' || fail "--version"
"$EPISTREAM" --help | grep -q 'Usage: epistream <command>' || fail "--help"
for c in scan sim info; do
    "$EPISTREAM" $c --help | grep -q "Usage: epistream $c" || fail "$c --help"
done

# usage errors exit 2 with a message
usage_err() {
    "$EPISTREAM" "$@" >"$T/u.out" 2>&1
    rc=$?
    [ $rc -eq 2 ] || { cat "$T/u.out"; fail "expected exit 2, got $rc: $*"; }
    grep -q '\[E::' "$T/u.out" || fail "no error message: $*"
}
usage_err
usage_err frobnicate
usage_err scan --out "$T/x"
usage_err scan --bfile "$T/x"
usage_err scan --bfile "$T/x" --out "$T/x" --stat nonsense
usage_err scan --bfile "$T/x" --out "$T/x" --top 0
usage_err scan --bfile "$T/x" --out "$T/x" --top 12abc
usage_err scan --bfile "$T/x" --out "$T/x" --p-threshold 2
usage_err scan --bfile "$T/x" --out "$T/x" --device tpu
usage_err scan --bfile "$T/x" --out "$T/x" --format xml
usage_err scan --bfile "$T/x" --out "$T/x" --stat k2 --p-threshold 0.01
usage_err scan --bfile "$T/x" --out "$T/x" --order 3 --stat boost
usage_err scan --bfile "$T/x" --out "$T/x" --pheno-name 2
usage_err scan --bfile "$T/x" --out "$T/x" --bogus
usage_err scan --bfile "$T/x" --out "$T/x" extra
usage_err sim --samples 10 --out "$T/s"
usage_err sim --samples 10 --variants 1 --pairs 1 --out "$T/s"
usage_err sim --samples 10 --variants 10 --effect -1 --out "$T/s"
usage_err info
# an --out PREFIX must end in a file name: "" and DIR/ would write hidden files
mkdir "$T/od"
for o in "" "$T/od/" "$T/od/." ; do
    usage_err scan --bfile "$T/x" --out "$o"
    grep -q "names a directory\|is empty" "$T/u.out" || { cat "$T/u.out"; fail "--out '$o' message"; }
    usage_err convert --bfile "$T/x" --out "$o"
    usage_err select --table "$T/x" --method mim --k 1 --out "$o"
    usage_err sim --samples 10 --variants 10 --out "$o"
done
[ -z "$(ls -A "$T/od")" ] || fail "a refused --out wrote into the directory"

# the one option loop every subcommand shares (args.c): the exact messages
# for an unknown, an ambiguous, a short and an incomplete option, a stray
# argument and a bad value, and each after its subcommand's name
usage_msg() {
    msg=$1
    shift
    usage_err "$@"
    grep -qxF -- "$msg" "$T/u.out" || { cat "$T/u.out" >&2; fail "$*: expected '$msg'"; }
}
usage_msg "[E::options] scan: unknown or ambiguous option '--bogus'" scan --bfile "$T/x" --bogus
usage_msg "[E::options] scan: unknown or ambiguous option '--f'" scan --bfile "$T/x" --f x
usage_msg "[E::options] info: unknown option '-x'" info --bfile "$T/x" -x
usage_msg "[E::options] convert: option '--out' needs a value" convert --bfile "$T/x" --out
usage_msg "[E::options] sim: unexpected argument 'extra'" sim --samples 4 extra --variants 2
usage_msg "[E::options] select: unexpected argument 'x'" select x --table y
usage_msg "[E::options] --top: expected an integer in [1, 100000000], got '0'" \
    scan --bfile "$T/x" --out "$T/x" --top=0
usage_msg "[E::options] --seed: expected a non-negative integer, got '-1'" \
    sim --samples 4 --variants 2 --seed -1 --out "$T/x"
usage_msg "[E::options] --threads: expected an integer in [0, 4096], got '4097'" \
    convert --bfile "$T/x" --thr 4097 --out "$T/x"
# --help wins over what follows it, not over an error before it
"$EPISTREAM" scan --help --bogus | grep -q 'Usage: epistream scan' || fail "scan --help --bogus"
usage_err scan --bogus --help

# a run that works, then one that fails must not leave files
"$EPISTREAM" sim --samples 60 --variants 12 --seed 3 --out "$T/d" || fail "sim"
"$EPISTREAM" info --bfile "$T/d" >"$T/info" || fail "info"
grep -q '^variants	12$' "$T/info" || fail "info variants"
grep -q '^cases	30$' "$T/info" || fail "info cases"
grep -q '^controls	30$' "$T/info" || fail "info controls"
"$EPISTREAM" scan --bfile "$T/d" --out "$T/o" --quiet || fail "scan"
for f in top.tsv summary.tsv log; do [ -s "$T/o.$f" ] || fail "missing $T/o.$f"; done
[ ! -e "$T/o.sig.tsv" ] || fail "sig file without --p-threshold"
[ "$(wc -l <"$T/o.top.tsv")" -eq 67 ] || fail "12 variants give 66 pairs + header"
[ "$(wc -l <"$T/o.summary.tsv")" -eq 13 ] || fail "summary lines"
head -1 "$T/o.top.tsv" | grep -q "^CHR1	SNP1	POS1	CHR2	SNP2	POS2	STAT	P	LOG10P	N	DF$" || fail "header"
"$EPISTREAM" scan --bfile "$T/d" --out "$T/o2" --quiet --top 5 --p-threshold 1 || fail "scan sig"
[ "$(wc -l <"$T/o2.sig.tsv")" -eq 67 ] || fail "p-threshold 1 lists every pair"
[ "$(wc -l <"$T/o2.top.tsv")" -eq 6 ] || fail "--top 5"
"$EPISTREAM" scan --bfile "$T/d" --out "$T/o3" --quiet --format plink || fail "plink format"
head -1 "$T/o3.epi.cc" | grep -q "CHR1 .*SNP1 CHR2 .*SNP2 .*STAT .*DF .*P" || fail "plink header"
head -1 "$T/o3.epi.cc.summary" |
    grep -q "^ CHR .*SNP        N_SIG        N_TOT         PROP   BEST_CHISQ BEST_CHR .*BEST_SNP $" ||
    fail "plink summary header"
[ "$(wc -l <"$T/o3.epi.cc.summary")" -eq 13 ] || fail "plink summary: 12 variants + header"
for f in top.tsv log; do [ -s "$T/o3.$f" ] || fail "--format plink: no $f"; done
for f in sig.tsv summary.tsv; do [ ! -e "$T/o3.$f" ] || fail "--format plink wrote $f"; done
grep -q "^p_threshold	5e-06$" "$T/o3.log" || fail "--format plink: --epi1 defaults to 5e-6"
grep -q "^n_sig_threshold	0.01$" "$T/o3.log" || fail "--format plink: --epi2 defaults to 0.01"
# --epi1 is --p-threshold (the last one given counts); --epi2 counts N_SIG at its own threshold
"$EPISTREAM" scan --bfile "$T/d" --out "$T/e1" --quiet --p-threshold 0.001 --epi1 1 ||
    fail "--epi1"
cmp -s "$T/e1.sig.tsv" "$T/o2.sig.tsv" || fail "--epi1 1 should list what --p-threshold 1 does"
"$EPISTREAM" scan --bfile "$T/d" --out "$T/e2" --quiet --p-threshold 0.5 --epi2 1 || fail "--epi2"
"$EPISTREAM" scan --bfile "$T/d" --out "$T/e3" --quiet --p-threshold 0.5 || fail "--p-threshold 0.5"
cmp -s "$T/e2.sig.tsv" "$T/e3.sig.tsv" || fail "--epi2 changed the list"
awk -F'\t' 'NR > 1 && $4 != $5 { bad = 1 } END { exit bad }' "$T/e2.summary.tsv" ||
    fail "--epi2 1: N_SIG should count every pair"
"$EPISTREAM" scan --bfile "$T/d" --out "$T/e4" --quiet --epi2 0.5 || fail "--epi2 alone"
cut -f4 "$T/e3.summary.tsv" >"$T/n3"
cut -f4 "$T/e4.summary.tsv" >"$T/n4"
cmp -s "$T/n3" "$T/n4" || fail "--epi2 0.5 should count what --p-threshold 0.5 counts"
[ ! -e "$T/e4.sig.tsv" ] || fail "--epi2 alone wrote a list"
# --device gpu: on a machine without a usable GPU (or a build without CUDA) a
# clear error, exit 1, no files; where there is one, a scan (its bytes are
# compared with the CPU's in gpu_cli.sh)
n_gpu=$("$EPISTREAM" info --bfile "$T/d" 2>/dev/null | awk -F'\t' '$1 == "gpus" {print $2}')
if [ "${n_gpu:-0}" -eq 0 ]; then
    expect_fail "$T/g.out" "$EPISTREAM" scan --bfile "$T/d" --out "$T/g" --device gpu
    grep -q 'device gpu' "$T/g.out" || fail "gpu message"
    ls "$T"/g.* 2>/dev/null | grep -v 'g\.out$' && fail "--device gpu without a GPU left files"
else
    "$EPISTREAM" scan --bfile "$T/d" --out "$T/g" --device gpu --quiet || fail "--device gpu with $n_gpu GPU(s)"
fi
# unwritable output directory
expect_fail "$T/w.out" "$EPISTREAM" scan --bfile "$T/d" --out "$T/nodir/o"
grep -q "nodir/o" "$T/w.out" || fail "unwritable --out message"
# an interrupted scan leaves no files behind (temporary ones are removed on SIGINT/SIGTERM)
# (a full disk while writing: tests/full_disk.sh)

# a run killed with SIGKILL leaves PREFIX.*.tmp (no handler runs): the next
# run with the same prefix removes every one of its kind, saying so, also of
# files it does not write (.sig.tsv without --p-threshold) ...
echo "stale" >"$T/stale.top.tsv.tmp"
echo "stale" >"$T/stale.sig.tsv.tmp"
"$EPISTREAM" scan --bfile "$T/d" --out "$T/stale" --top 5 2>"$T/stale.err" || fail "scan over a stale .tmp"
for f in top sig; do
    grep -q "stale.$f.tsv.tmp: removed, left by an earlier run" "$T/stale.err" ||
        { cat "$T/stale.err" >&2; fail "stale .$f.tsv.tmp not reported"; }
    [ ! -e "$T/stale.$f.tsv.tmp" ] || fail "stale .$f.tsv.tmp still there"
done
grep -q '^stale$' "$T/stale.top.tsv" && fail "stale content kept"
# ... and one that is a link is removed, never written through
echo "keep me" >"$T/victim"
ln -s "$T/victim" "$T/lnk.sig.tsv.tmp"
"$EPISTREAM" scan --bfile "$T/d" --out "$T/lnk" --top 5 --p-threshold 1 2>"$T/lnk.err" ||
    { cat "$T/lnk.err" >&2; fail "scan over a .tmp link"; }
[ "$(cat "$T/victim")" = "keep me" ] || fail "wrote through a .tmp link"
[ -f "$T/lnk.sig.tsv" ] && [ ! -L "$T/lnk.sig.tsv" ] || fail "lnk.sig.tsv is not a new file"

# outputs of the same prefix that a run does not write are an earlier run's,
# which would not match: removed, saying so (o2 had --p-threshold, o3 --format plink)
"$EPISTREAM" scan --bfile "$T/d" --out "$T/o2" --top 5 2>"$T/o2.err" || fail "rescan o2"
grep -q "o2.sig.tsv: removed, an earlier run's output that this run does not write" "$T/o2.err" ||
    { cat "$T/o2.err" >&2; fail "stale o2.sig.tsv not reported"; }
[ ! -e "$T/o2.sig.tsv" ] || fail "stale o2.sig.tsv kept"
"$EPISTREAM" scan --bfile "$T/d" --out "$T/o3" --top 5 2>"$T/o3.err" || fail "rescan o3"
grep -q "o3.epi.cc: removed" "$T/o3.err" || { cat "$T/o3.err" >&2; fail "stale o3.epi.cc not reported"; }
[ ! -e "$T/o3.epi.cc" ] && [ -s "$T/o3.top.tsv" ] || fail "o3: stale .epi.cc kept or no .top.tsv"
# a failed run (here: a bad --pheno) leaves the earlier run's files as they were
cp "$T/o3.top.tsv" "$T/o3.keep"
expect_fail "$T/o3f.err" "$EPISTREAM" scan --bfile "$T/d" --out "$T/o3" --format plink \
    --pheno "$T/nonexistent"
cmp -s "$T/o3.top.tsv" "$T/o3.keep" && [ ! -e "$T/o3.epi.cc" ] || fail "a failed run changed o3"

"$EPISTREAM" sim --samples 1000 --variants 2500 --seed 5 --out "$T/big" 2>/dev/null || fail "sim big"
for sig in INT TERM; do
    "$EPISTREAM" scan --bfile "$T/big" --threads 1 --top 3000000 --p-threshold 1 --quiet \
        --out "$T/int$sig" &
    pid=$!
    sleep 0.3
    if kill -$sig $pid 2>/dev/null; then
        wait $pid && fail "scan killed by SIG$sig exited 0"
        ls "$T"/int$sig.* 2>/dev/null && fail "SIG$sig left files behind"
    else
        wait $pid
        echo "note: the scan finished before SIG$sig could be sent; interrupt check skipped" >&2
    fi
done
# an interrupted convert leaves no .tmp files either: interrupt it as soon as
# its first one appears (a large fileset written out, so there is time)
"$EPISTREAM" sim --samples 4000 --variants 20000 --seed 6 --out "$T/huge" 2>/dev/null ||
    fail "sim huge"
for try in 1 2 3; do
    rm -f "$T"/cv.*
    "$EPISTREAM" convert --bfile "$T/huge" --out "$T/cv" --quiet &
    pid=$!
    while [ ! -e "$T/cv.bed.tmp" ] && kill -0 $pid 2>/dev/null; do :; done
    if kill -INT $pid 2>/dev/null; then
        wait $pid && { [ -e "$T/cv.bed" ] && continue; fail "convert killed by SIGINT exited 0"; }
        ls "$T"/cv.* 2>/dev/null && fail "an interrupted convert left files behind"
        break
    fi
    wait $pid
    [ $try -lt 3 ] || echo "note: convert finished before SIGINT could be sent; check skipped" >&2
done
# --order 3 without --stat scans with chi2 (boost has no 3-way form)
"$EPISTREAM" scan --bfile "$ES_SRCDIR/examples/data/triple" --order 3 --top 3 --out "$T/o3" --quiet ||
    fail "--order 3 without --stat"
grep -q '^statistic	chi2$' "$T/o3.log" || fail "--order 3: default statistic is not chi2"
exit 0
