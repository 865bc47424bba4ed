#!/bin/sh
# make.sh -- how the PLINK epistasis results here were made (tests/report_plink.sh
# reads them): plink1.9 v1.90b6.26 on a simulated fileset of 400 samples x 24
# variants (epistream sim --samples 400 --variants 24 --pairs 1 --seed 11), every
# pair listed (--epi1 1).  The logs are PLINK's, unedited: they name --bfile small
# (or qt) relative to PLINK's working directory.  Run in an empty directory with
# EPISTREAM set; copies *.epi.*, *.log, small.bim and qt.bim here.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
"$EPISTREAM" sim --samples 400 --variants 24 --pairs 1 --seed 11 --out small
# a quantitative trait for --epistasis's linear model: column 6 continuous
awk '{ $6 = sprintf("%.3f", ((NR * 37) % 101) / 10.0); print }' small.fam >qt.fam
cp small.bed qt.bed
cp small.bim qt.bim
plink1.9 --bfile small --fast-epistasis boost --epi1 1 --out boost
plink1.9 --bfile small --fast-epistasis --epi1 1 --out fast
plink1.9 --bfile small --epistasis --epi1 1 --out logistic
plink1.9 --bfile qt --epistasis --epi1 1 --out linear
cp boost.* fast.* logistic.* linear.* small.bim qt.bim "$here"/
