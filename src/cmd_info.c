/* cmd_info.c -- `epistream info`: what a fileset holds, before a long scan. */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "es_internal.h"
#include "gpu.h"

static void info_usage(FILE *fp)
{
    fprintf(fp,
            "Usage: epistream info --bfile PREFIX [--pheno FILE [--pheno-name COL]]\n"
            "\n"
            "Describe a PLINK fileset: samples, cases and controls, variants, chromosomes,\n"
            "minor allele frequency range, missingness, and the compute devices found.\n"
            "\n"
            "  --bfile PREFIX     PLINK 1 fileset PREFIX.bed/.bim/.fam\n"
            "  --pheno FILE       phenotype file (as for scan)\n"
            "  --pheno-name COL   phenotype column name or number\n"
            "  -h, --help         this help\n");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int es_cmd_info(int argc, char **argv)
{
    enum { O_BFILE = 256, O_PHENO, O_PHENO_NAME };
    static const struct option lopts[] = {{"bfile", required_argument, 0, O_BFILE},
                                          {"pheno", required_argument, 0, O_PHENO},
                                          {"pheno-name", required_argument, 0, O_PHENO_NAME},
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
    const char *bfile = NULL, *pheno = NULL, *pheno_name = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
        switch (c) {
        case O_BFILE: bfile = optarg; break;
        case O_PHENO: pheno = optarg; break;
        case O_PHENO_NAME: pheno_name = optarg; break;
        case 'h': info_usage(stdout); return ES_EXIT_OK;
        default:
            fprintf(stderr, "[E::options] info: unknown or incomplete option '%s'\n",
                    argv[optind - 1]);
            info_usage(stderr);
            return ES_EXIT_USAGE;
        }
    }
    if (optind < argc || !bfile) {
        fprintf(stderr, "[E::options] info: --bfile is required\n");
        info_usage(stderr);
        return ES_EXIT_USAGE;
    }
    es_dataset_t *ds = NULL;
    uint8_t *g = NULL;
    double *maf = NULL;
    int ret = es_dataset_open_bfile(&ds, bfile, pheno, pheno_name);
    if (ret) goto out;
    uint32_t n = es_dataset_n_samples_total(ds), m = es_dataset_n_variants(ds);
    g = malloc(n ? n : 1);
    maf = malloc((size_t)m * sizeof *maf);
    if (!g || !maf) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    uint64_t miss_total = 0, kept = (uint64_t)ds->n_case + ds->n_ctrl;
    double miss_max = 0;
    uint32_t mono = 0, n_chr = 0;
    const char *last_chr = NULL;
    for (uint32_t v = 0; v < m; v++) {
        if ((ret = es_dataset_decode(ds, v, g))) goto out;
        uint64_t a1 = 0, called = 0, miss = 0;
        for (uint32_t s = 0; s < n; s++) {
            if (ds->status[s] < 0) continue;
            if (g[s] == 3) miss++;
            else {
                called++;
                a1 += g[s];
            }
        }
        double f = called ? (double)a1 / (2.0 * (double)called) : 0;
        maf[v] = f < 0.5 ? f : 1 - f;
        if (a1 == 0 || a1 == 2 * called) mono++;
        miss_total += miss;
        double mr = kept ? (double)miss / (double)kept : 0;
        if (mr > miss_max) miss_max = mr;
        const char *chr = es_dataset_variant(ds, v).chr;
        if (!last_chr || strcmp(chr, last_chr)) n_chr++;
        last_chr = chr;
    }
    qsort(maf, m, sizeof *maf, cmp_double);
    char a[32], b[32];
    printf("fileset\t%s\n", bfile);
    printf("samples\t%u\n", n);
    printf("cases\t%u\n", es_dataset_n_cases(ds));
    printf("controls\t%u\n", es_dataset_n_controls(ds));
    printf("samples_without_phenotype\t%u\n", n - ds->n_case - ds->n_ctrl);
    printf("variants\t%u\n", m);
    printf("chromosome_runs\t%u\n", n_chr);
    printf("pairs\t%s\n", es_fmt_count((uint64_t)m * (m - 1) / 2, a));
    printf("maf_min\t%.6g\n", maf[0]);
    printf("maf_median\t%.6g\n", maf[m / 2]);
    printf("maf_max\t%.6g\n", maf[m - 1]);
    printf("monomorphic_variants\t%u\n", mono);
    printf("missing_call_rate\t%.6g\n",
           kept ? (double)miss_total / ((double)kept * (double)m) : 0.0);
    printf("max_variant_missing_rate\t%.6g\n", miss_max);
    printf("missing_calls\t%s\n", es_fmt_count(miss_total, b));
    int n_gpu = es_backend_gpu_count();
    printf("gpus\t%d\n", n_gpu);
    for (int d = 0; d < n_gpu; d++) {
        char desc[256];
        if (es_gpu_device_describe(d, desc, sizeof desc) == ES_OK) printf("gpu%d\t%s\n", d, desc);
    }
out:
    if (ret) fprintf(stderr, "[E::info] failed: %s\n", es_strerror(ret));
    free(g);
    free(maf);
    es_dataset_destroy(ds);
    return ret ? ES_EXIT_ERROR : ES_EXIT_OK;
}
