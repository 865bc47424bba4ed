/* cmd_info.c -- `epistream info`: what a fileset holds, before a long scan. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void info_usage(FILE *fp)
{
    fprintf(fp,
            "Usage: epistream info (--bfile PREFIX | --vcf FILE) [options]\n"
            "\n"
            "Describe a dataset after selection: samples, cases and controls, variants,\n"
            "chromosomes, minor allele frequency range, missingness, and the compute\n"
            "devices found.  Samples without a phenotype are counted, not dropped.\n"
            "\n");
    es_cli_input_usage(fp, 0);
    fprintf(fp, "  -h, --help           this help\n");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int es_cmd_info(int argc, char **argv)
{
    es_cli_input_t ci;
    es_cli_input_init(&ci);
    const es_cli_group_t groups[] = {es_cli_input_group(&ci), es_cli_range_group(&ci)};
    int r = es_cli_parse("info", argc, argv, groups, sizeof groups / sizeof *groups, info_usage);
    if (r >= 0) return r;
    if (es_cli_input_check(&ci, "info")) {
        info_usage(stderr);
        return ES_EXIT_USAGE;
    }
    ci.in.require_pheno = 0;
    es_dataset_t *ds = NULL;
    uint8_t *g = NULL;
    double *maf = NULL;
    int ret = es_dataset_open(&ds, &ci.in);
    if (ret) goto out;
    uint32_t n = es_dataset_n_samples_total(ds), m = es_dataset_n_variants(ds);
    g = malloc(n ? n : 1);
    maf = malloc((size_t)m * sizeof *maf);
    if (!g || !maf) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    uint64_t miss_total = 0, kept = 0;
    for (uint32_t s = 0; s < n; s++) kept += (uint64_t)es_dataset_sample_used(ds, s);
    double miss_max = 0;
    uint32_t mono = 0, n_chr = 0;
    const char *last_chr = NULL;
    for (uint32_t v = 0; v < m; v++) {
        if ((ret = es_dataset_decode(ds, v, g))) goto out;
        uint64_t a1 = 0, called = 0, miss = 0;
        for (uint32_t s = 0; s < n; s++) {
            if (!es_dataset_sample_used(ds, s)) continue;
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
    uint32_t removed = 0, nopheno = 0;
    for (uint32_t s = 0; s < n; s++) {
        removed += ds->status[s] == -2;
        nopheno += ds->status[s] == -1;
    }
    printf("input\t%s\n", ci.in.bfile ? ci.in.bfile : ci.in.vcf);
    printf("samples\t%u\n", n);
    printf("samples_removed\t%u\n", removed);
    printf("cases\t%u\n", es_dataset_n_cases(ds));
    printf("controls\t%u\n", es_dataset_n_controls(ds));
    printf("samples_without_phenotype\t%u\n", nopheno);
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
    /* the devices, through the backend table */
    const es_backend_t *gpu = es_backend_get(ES_DEVICE_GPU);
    int n_gpu = es_backend_gpu_count();
    printf("gpus\t%d\n", n_gpu);
    for (int d = 0; d < n_gpu && gpu && gpu->device_describe; d++) {
        char desc[256];
        if (gpu->device_describe(d, desc, sizeof desc) == ES_OK) printf("gpu%d\t%s\n", d, desc);
    }
out:
    if (ret) fprintf(stderr, "[E::info] failed: %s\n", es_strerror(ret));
    free(g);
    free(maf);
    es_dataset_destroy(ds);
    return ret ? ES_EXIT_ERROR : ES_EXIT_OK;
}
