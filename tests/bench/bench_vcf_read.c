/* bench_vcf_read.c -- time reading a VCF/BCF into packed genotype planes, the
 * way a scan starts: es_dataset_open() (htslib decompression threads, GT
 * decoding into .bed rows), then es_pack() of every variant into the bit
 * planes the kernels read.  Used by tests/bench/bench_vcf.sh, which runs
 * bcftools query on the same file in the same run.
 *
 *   bench_vcf_read FILE PHENO [THREADS [REPS]]
 *
 * Prints one tab-separated line per repetition:
 *   file threads samples variants open_s pack_s total_s genotypes_per_s
 * genotypes/s = samples x variants / total_s (the best repetition is the
 * caller's to pick). */
#include <stdio.h>
#include <stdlib.h>

#include "select.h"

/* Variants packed per call: the scan's block size order of magnitude. */
#define BLOCK 4096

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: bench_vcf_read FILE PHENO [THREADS [REPS]]\n");
        return 2;
    }
    int threads = argc > 3 ? atoi(argv[3]) : 2;
    int reps = argc > 4 ? atoi(argv[4]) : 1;
    if (reps < 1) reps = 1;
    es_log_set_level(ES_LOG_ERROR);
    for (int rep = 0; rep < reps; rep++) {
        es_input_opt_t opt;
        es_input_opt_init(&opt);
        opt.vcf = argv[1];
        opt.pheno = argv[2];
        opt.threads = threads;
        es_dataset_t *ds = NULL;
        es_planes_t pl = {0};
        double t0 = es_time_now();
        int rc = es_dataset_open(&ds, &opt);
        if (rc != ES_OK) {
            fprintf(stderr, "bench_vcf_read: %s: %s\n", argv[1], es_strerror(rc));
            return 1;
        }
        double t1 = es_time_now();
        uint32_t m = es_dataset_n_variants(ds), n = es_dataset_n_samples_total(ds);
        uint32_t block = m < BLOCK ? m : BLOCK;
        rc = es_planes_alloc(&pl, ds, block, es_dataset_any_missing(ds) ? 3 : 2);
        for (uint32_t first = 0; rc == ES_OK && first < m; first += block)
            rc = es_pack(ds, first, m - first < block ? m - first : block, &pl);
        double t2 = es_time_now();
        if (rc != ES_OK) {
            fprintf(stderr, "bench_vcf_read: packing failed: %s\n", es_strerror(rc));
            es_planes_free(&pl);
            es_dataset_destroy(ds);
            return 1;
        }
        printf("%s\t%d\t%u\t%u\t%.3f\t%.3f\t%.3f\t%.4g\n", argv[1], threads, n, m, t1 - t0, t2 - t1,
               t2 - t0, (double)n * m / (t2 - t0));
        fflush(stdout);
        es_planes_free(&pl);
        es_dataset_destroy(ds);
    }
    return 0;
}
