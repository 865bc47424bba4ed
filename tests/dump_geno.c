/* dump_geno.c -- print a dataset's decoded genotypes, for the oracle tests
 * (tests/oracle_decode.sh, tests/oracle_vcf.sh).  Uses only the public API.
 *
 *   dump_geno PREFIX [PHENO_FILE]
 *   dump_geno --vcf FILE [PHENO_FILE] [--region CHR:FROM-TO ...] [--skip-multiallelic]
 *
 * One line per variant in dataset order, one space-separated value per used
 * sample in input order (.fam or VCF header): 0, 1, 2 copies of A1 (VCF: ALT),
 * or NA when missing (as plink1.9 --recode A counts).  The dataset is opened
 * with require_pheno = 0, so no phenotype is needed and every sample is used;
 * a phenotype file is still accepted (and checked) when given.  VCF records
 * with more than two alleles are split (the default) or, with
 * --skip-multiallelic, skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "epistream.h"

#define MAX_REGIONS 64

int main(int argc, char **argv)
{
    int ret = 1;
    es_dataset_t *ds = NULL;
    uint8_t *g = NULL;
    char *line = NULL;
    const char *regions[MAX_REGIONS];
    es_input_opt_t opt;

    es_input_opt_init(&opt);
    opt.require_pheno = 0;
    opt.regions = regions;
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--vcf") && k + 1 < argc) {
            opt.vcf = argv[++k];
        } else if (!strcmp(argv[k], "--skip-multiallelic")) {
            opt.vcf_multiallelic = ES_VCF_MULTIALLELIC_SKIP;
        } else if (!strcmp(argv[k], "--region") && k + 1 < argc && opt.n_regions < MAX_REGIONS) {
            regions[opt.n_regions++] = argv[++k];
        } else if (argv[k][0] != '-' && !opt.vcf && !opt.bfile) {
            opt.bfile = argv[k];
        } else if (argv[k][0] != '-' && !opt.pheno) {
            opt.pheno = argv[k];
        } else {
            fprintf(stderr, "usage: dump_geno (PREFIX | --vcf FILE) [PHENO_FILE] "
                            "[--region CHR:FROM-TO ...] [--skip-multiallelic]\n");
            return 2;
        }
    }
    if (!opt.vcf && !opt.bfile) {
        fprintf(stderr, "usage: dump_geno (PREFIX | --vcf FILE) [PHENO_FILE]\n");
        return 2;
    }
    const char *name = opt.vcf ? opt.vcf : opt.bfile;
    int rc = es_dataset_open(&ds, &opt);
    if (rc != ES_OK) {
        fprintf(stderr, "dump_geno: %s: %s\n", name, es_strerror(rc));
        goto out;
    }
    uint32_t m = es_dataset_n_variants(ds), n = es_dataset_n_samples_total(ds);
    g = malloc(n ? n : 1);
    line = malloc(3 * (size_t)n + 2); /* "NA " is the longest entry */
    if (!g || !line) {
        fprintf(stderr, "dump_geno: out of memory\n");
        goto out;
    }
    for (uint32_t v = 0; v < m; v++) {
        if ((rc = es_dataset_decode(ds, v, g)) != ES_OK) {
            fprintf(stderr, "dump_geno: variant %u: %s\n", v, es_strerror(rc));
            goto out;
        }
        char *p = line;
        for (uint32_t s = 0; s < n; s++) {
            if (!es_dataset_sample_used(ds, s)) continue;
            if (p != line) *p++ = ' ';
            if (g[s] == 3) {
                *p++ = 'N';
                *p++ = 'A';
            } else {
                *p++ = (char)('0' + g[s]);
            }
        }
        *p++ = '\n';
        if (fwrite(line, 1, (size_t)(p - line), stdout) != (size_t)(p - line)) {
            perror("dump_geno: write");
            goto out;
        }
    }
    if (fflush(stdout) != 0) {
        perror("dump_geno: write");
        goto out;
    }
    ret = 0;
out:
    free(g);
    free(line);
    es_dataset_destroy(ds);
    return ret;
}
