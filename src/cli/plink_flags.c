/* plink_flags.c -- what a PLINK 1.9 user's flags meet: an option getopt_long
 * rejected is looked up in one table of PLINK flags (all of PLINK 1.9's, from
 * its --help, and PLINK 2's input formats), each group with a one-line hint at
 * what to use instead, so that "--fast-epistasis" answers "PLINK's
 * --fast-epistasis is not supported; 'epistream scan' computes BOOST ..."
 * rather than "unknown option".  The flags epistream implements (--bfile,
 * --mind, --hwe, --snps, --from/--to, --mpheno, --1, --allow-no-sex, ...) are
 * not in the table: getopt_long accepts them before this is asked. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Each group: PLINK flag names without "--", separated by one blank, and the
 * hint printed after "PLINK's --X is not supported; ", or, when it starts
 * with '^', after "--X is not an option of CMD; " (epistream has the flag
 * in other subcommands). */
static const struct {
    const char *flags;
    const char *hint;
} plink_flags[] = {
    {"file ped map tfile tped tfam lfile lgen data gen sample bgen 23file cfile gfile "
     "dosage oxford-single-chr oxford-pheno-name hard-call-threshold missing-code pfile "
     "bpfile pgen pvar psam",
     "convert the data to a .bed/.bim/.fam fileset first (plink1.9 ... --make-bed) and "
     "give it with --bfile, or give a VCF/BCF with --vcf"},
    {"bed bim fam",
     "give the common prefix of the .bed, .bim and .fam with --bfile PREFIX"},
    {"bcf",
     "--vcf FILE reads BCF too"},
    {"keep-autoconv",
     "epistream reads VCF/BCF directly; 'epistream convert' writes a .bed fileset"},
    {"no-fid no-parents no-sex no-pheno",
     "a .fam file needs its 6 columns (FID IID PAT MAT SEX PHENO)"},
    {"double-id const-fid id-delim vcf-idspace-to",
     "VCF samples get FID = IID = the sample name (as with PLINK's --double-id)"},
    {"vcf-filter vcf-min-qual vcf-min-gp vcf-min-gq vcf-require-gt",
     "filter the VCF first, e.g. bcftools view -f PASS"},
    {"vcf-half-call",
     "half calls (./1) are read as missing (PLINK's --vcf-half-call missing)"},
    {"biallelic-only max-alleles min-alleles",
     "VCF records with more than two alleles are split into biallelic variants (as "
     "bcftools norm -m-); --vcf-multiallelic skip leaves them out"},
    {"missing-genotype missing-genotype2 output-missing-genotype missing-phenotype "
     "output-missing-phenotype missing-var-code",
     "missing codes are fixed: phenotypes 0, -9 and NA, the .bed missing call, '.' in a "
     "VCF"},
    {"keep-allele-order real-ref-alleles",
     "none is needed: epistream never swaps alleles (A1 is .bim column 5, or the VCF ALT)"},
    {"allow-extra-chr aec chr-set autosome-num cow dog horse mouse rice sheep",
     "none is needed: chromosome names other than 1-26, X, Y, XY and MT are read as they "
     "are"},
    {"autosome autosome-xy",
     "use --chr 1-22 (add XY for PLINK's --autosome-xy)"},
    {"not-chr",
     "list the chromosomes to keep with --chr"},
    {"from-bp to-bp from-kb to-kb from-mb to-mb",
     "use --from/--to with variant IDs, or --region CHR:FROM-TO with an indexed VCF"},
    {"snp window exclude-snp",
     "use --snps ID or --from/--to to keep variants, --exclude FILE to leave them out"},
    {"exclude-snps",
     "list the IDs in a file and give --exclude FILE"},
    {"keep-fam remove-fam",
     "use --keep/--remove with 'FID IID' lines"},
    {"filter filter-cases filter-controls filter-females filter-males filter-founders "
     "filter-nonfounders mfilter prune keep-if remove-if",
     "select samples with --keep/--remove (a scan leaves out samples without a phenotype)"},
    {"max-maf mac max-mac min-ac max-ac maf-succ",
     "use --maf (minor allele frequency)"},
    {"nonfounders",
     "--hwe tests founders only, as PLINK does without --nonfounders; --maf and --geno "
     "count every sample"},
    {"pheno-merge all-pheno make-pheno tail-pheno loop-assoc pheno-col-nums",
     "one case/control phenotype a run: --pheno FILE with --pheno-name COL or --mpheno N"},
    {"covar-number covar-col-nums condition condition-list no-const-covar allow-no-covars "
     "write-covar dummy-coding gxe",
     "'epistream scan' takes covariates as --covar FILE [--covar-name LIST] (names, ranges or "
     "column numbers)"},
    {"must-have-sex check-sex impute-sex update-sex",
     "sex leaves no sample out of a scan (as PLINK with --allow-no-sex)"},
    {"allow-no-samples allow-no-vars",
     "an empty selection is an error; loosen the filters"},
    {"make-bed",
     "use 'epistream convert --out PREFIX' (writes the selection as .bed/.bim/.fam)"},
    {"fast-epistasis",
     "'epistream scan' computes BOOST as PLINK's --fast-epistasis boost does (--stat "
     "boost, the default)"},
    {"epistasis twolocus epistasis-summary-merge",
     "'epistream scan' is the interaction scan: PLINK's --epistasis is --stat linear (a "
     "quantitative trait) or --stat logistic (case/control), --fast-epistasis boost is --stat "
     "boost"},
    {"epi1 epi2 plink-compat",
     "^scan has it (PLINK's .epi.cc list, its summary's N_SIG, PLINK's skips)"},
    {"set set-names set-max set-p set-r2 set-test-lambda set-table make-set "
     "make-set-border make-set-collapse-group make-set-complement-all "
     "make-set-complement-group set-collapse-all subset complement-sets gene gene-all "
     "gene-list-border gene-report gene-report-snp-field gene-subset write-set",
     "sets are not supported: restrict the variants with --extract FILE, one run a set"},
    {"parallel",
     "one run scans every pair with every thread (--threads) and GPU (--device)"},
    {"memory",
     "^scan has it (PLINK's workspace size in MB: its --host-mem)"},
    {"threads",
     "^scan, select and convert have it"},
    {"out",
     "^info prints to stdout; scan, select, convert and sim take --out"},
    {"seed",
     "^only sim draws random numbers; scans are deterministic"},
    {"silent",
     "use --quiet"},
    {"debug",
     "use --verbose"},
    {"noweb",
     "none is needed"},
    {"version",
     "use 'epistream --version'"},
    {"script rerun",
     "give the options on the command line"},
    {"d",
     "--snps spans use '-', PLINK's default delimiter"},
    {"aperm mperm mperm-save mperm-save-all perm perm-batch-size make-perm-pheno",
     "permutation tests are not supported: p-values come from the chi-square distribution"},
    {"adjust lambda pfilter output-min-p",
     "the scan writes raw p-values; --p-threshold selects pairs"},
    {"freq freqx missing hardy geno-counts sample-counts",
     "'epistream info' summarises allele frequencies and missingness; for per-variant "
     "reports use plink1.9"},
    {"simulate simulate-label simulate-missing simulate-n simulate-ncases "
     "simulate-ncontrols simulate-prevalence simulate-qt dummy",
     "use 'epistream sim' (a case/control fileset with planted interacting pairs)"},
    {"a1-allele a2-allele allele1234 bmerge bp-space exclude-if-info extract-if-info "
     "export fill-missing-a2 flip flip-subset indiv-sort list-23-indels "
     "list-duplicate-vars make-bpgen make-founders make-just-bim make-just-fam make-pgen "
     "merge merge-equal-pos merge-list merge-mode merge-x new-id-max-allele-len output-chr "
     "recode recode-allele rm-dup set-all-var-ids set-hh-missing set-me-missing "
     "set-missing-var-ids set-mixed-mt-missing snps-only sort-vars split-x thin thin-count "
     "thin-indiv thin-indiv-count update-alleles update-chr update-cm update-ids "
     "update-map update-name update-parents write-snplist write-var-ranges zero-cluster "
     "zero-cms write-dosage oblig-missing qual-scores qual-threshold qual-max-threshold "
     "q-score-range read-freq keep-cluster-names keep-clusters remove-cluster-names "
     "remove-clusters within mwithin with-phenotype",
     "prepare the data with plink1.9 and give epistream the fileset it writes ('epistream "
     "convert' writes a selection)"},
    {"allele allele-count annotate annotate-snp-field assoc attrib attrib-indiv bd blocks "
     "blocks-inform-frac blocks-max-kb blocks-min-maf blocks-recomb-highci "
     "blocks-strong-highci blocks-strong-lowci border cell ci clump clump-allow-overlap "
     "clump-annotate clump-best clump-field clump-index-first clump-kb clump-p1 clump-p2 "
     "clump-r2 clump-range clump-range-border clump-replicate clump-snp-field "
     "clump-verbose cluster cm-map cmh cnv-check-no-overlap cnv-count cnv-del cnv-disrupt "
     "cnv-dup cnv-enrichment-test cnv-exclude cnv-exclude-off-by-1 cnv-freq-exclude-above "
     "cnv-freq-exclude-below cnv-freq-exclude-exact cnv-freq-include-exact "
     "cnv-freq-method2 cnv-freq-overlap cnv-indiv-perm cnv-intersect cnv-kb cnv-list "
     "cnv-make-map cnv-max-kb cnv-max-score cnv-max-sites cnv-overlap cnv-region-overlap "
     "cnv-score cnv-sites cnv-subset cnv-test cnv-test-region cnv-test-window "
     "cnv-union-overlap cnv-write dfam distance distance-matrix distance-wts family "
     "flip-scan flip-scan-threshold flip-scan-window flip-scan-window-kb flipscan fst gap "
     "genome glm gplink grm grm-bin grm-cutoff grm-gz groupdist hap het homog homozyg "
     "homozyg-density homozyg-gap homozyg-het homozyg-kb homozyg-match homozyg-snp "
     "homozyg-window-het homozyg-window-missing homozyg-window-snp "
     "homozyg-window-threshold ibc ibm ibs-matrix ibs-test indep indep-pairphase "
     "indep-pairwise je-cellmin king-cutoff lasso lasso-lambda lasso-select-covars ld "
     "ld-snp ld-snp-list ld-snps ld-window ld-window-cm ld-window-kb ld-window-r2 ld-xchr "
     "linear list-all logistic make-grm-bin make-grm-gz make-king make-king-table make-rel "
     "match match-type max mc mcc mds-plot me me-exclude-one mendel mendel-duos "
     "mendel-multigen meta-analysis meta-analysis-a1-field meta-analysis-a2-field "
     "meta-analysis-bp-field meta-analysis-chr-field meta-analysis-ess-field "
     "meta-analysis-p-field meta-analysis-report-dups meta-analysis-se-field "
     "meta-analysis-snp-field mh mh2 min model native neighbor neighbour parameters pca "
     "pca-cluster-names pca-clusters pool-size ppc ppc-gap qfam qfam-between qfam-parents "
     "qfam-total qmatch qt r r2 read-dists read-genome reference regress-distance "
     "regress-rel rel-cutoff score score-list show-tags tag-kb tag-mode2 tag-r2 tdt "
     "test-mishap test-missing tests tucc unrelated-heritability variance-standardize vif "
     "write-cluster xchr-model",
     "epistream runs interaction scans (scan) and feature selection (select); run this "
     "analysis with plink1.9"},
    {"from to",
     "^scan, info and convert have --from/--to (select's --from names a scan result)"},
};

/* @return the hint for PLINK flag name[0..len), or NULL when it is not one. */
static const char *plink_hint(const char *name, size_t len)
{
    if (len == 0) return NULL;
    for (size_t g = 0; g < sizeof plink_flags / sizeof *plink_flags; g++) {
        for (const char *s = plink_flags[g].flags; *s;) {
            size_t n = strcspn(s, " ");
            if (n == len && memcmp(s, name, len) == 0) return plink_flags[g].hint;
            s += n;
            s += *s == ' ';
        }
    }
    return NULL;
}

int es_cli_bad_option(const char *cmd, const char *arg)
{
    /* getopt_long sets optopt to the option's code when a known option
     * lacks its value, to the letter of an unknown short option, and to 0
     * for an unknown or ambiguous long one */
    if (arg && strncmp(arg, "--", 2) == 0 && arg[2]) {
        const char *name = arg + 2;
        size_t len = strcspn(name, "=");
        if (optopt > 255) {
            fprintf(stderr, "[E::options] %s: option '--%.*s' needs a value\n", cmd, (int)len,
                    name);
            return 0;
        }
        const char *hint = plink_hint(name, len);
        if (hint && hint[0] == '^') {
            fprintf(stderr, "[E::options] %s: --%.*s is not an option of %s; %s\n", cmd,
                    (int)len, name, cmd, hint + 1);
            return 0;
        }
        if (hint) {
            fprintf(stderr, "[E::options] %s: PLINK's --%.*s is not supported; %s\n", cmd,
                    (int)len, name, hint);
            return 0;
        }
        fprintf(stderr, "[E::options] %s: unknown or ambiguous option '--%.*s'\n", cmd, (int)len,
                name);
        return 1;
    }
    if (optopt > 0 && optopt < 256)
        fprintf(stderr, "[E::options] %s: unknown option '-%c'\n", cmd, optopt);
    else
        fprintf(stderr, "[E::options] %s: unknown or incomplete option '%s'\n", cmd,
                arg ? arg : "");
    return 1;
}
