/* bench_triple_gpu.c -- prints the 3-way GPU scan's rates as a table (not a
 * test).
 *
 *   bench_triple_gpu [-n N,N,...] [-m VARIANTS] [-k KERNELS] [-c CPU_VARIANTS]
 *                    [-e VARIANTS,N] [-S PAIRS,VARIANTS,N] [-s STAT] [-d DIR]
 *
 * For each sample count N (half cases, no missing calls) a random .bed of
 * VARIANTS variants (default 2,048) is written to DIR (default $TMPDIR or
 * /tmp) and scanned exhaustively (--order 3, top 1000) on GPU 0 with each
 * kernel (default mma,popc): triples/s and triple-samples/s over the scan
 * time (packing excluded), and the fraction of the b1 tensor-core ceiling
 * measured in the same run (8 N bit-MACs a triple: the products of P
 * planes).  The CPU backend scans the first CPU_VARIANTS variants (default
 * 200) of the same data with every thread, for the ratio.  -e runs one
 * exhaustive scan end to end (packing included) when the rate measured
 * above predicts it ends within 300 s, and otherwise prints the
 * extrapolation; -S a seeded scan of PAIRS random seed pairs against
 * VARIANTS variants of N samples, end to end. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "epistream.h"
#include "gpu.h"
#include "gpu_test.h"
#include "bfile.h"

/* One 3-way scan: *pack, *scan seconds, *triples scored. */
static int scan3(es_dataset_t *ds, es_device_t dev, int kernel, es_stat_t stat, const uint32_t *seeds, size_t n_seeds,
                 double *pack, double *scan, uint64_t *triples, char *info, size_t len)
{
    es_opt_t opt;
    es_opt_init(&opt);
    opt.order = 3;
    opt.device = dev;
    opt.gpu_kernel = kernel;
    opt.stat = stat;
    opt.top_k = 1000;
    es_scan_t *s = NULL;
    int ret = es_scan_create(&s, ds, &opt);
    if (!ret && seeds) ret = es_scan_set_seeds(s, seeds, n_seeds);
    if (!ret) ret = es_scan_run(s);
    if (!ret) {
        es_scan_timings(s, pack, scan);
        *triples = es_scan_pairs_done(s);
        if (info) snprintf(info, len, "%s", es_scan_device_info(s));
    }
    es_scan_destroy(s);
    return ret;
}

static int parse_list(const char *s, uint32_t *out, int max)
{
    int n = 0;
    while (*s && n < max) {
        out[n++] = (uint32_t)strtoul(s, (char **)&s, 10);
        if (*s == ',') s++;
    }
    return n;
}

int main(int argc, char **argv)
{
    uint32_t ns[8] = {1024, 8192}, nn = 2, m = 2048, mcpu = 200, e2e[2] = {0, 0}, sd[3] = {0, 0, 0};
    const char *kern = "mma,popc", *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    es_stat_t stat = ES_STAT_CHI2;
    int opt;
    while ((opt = getopt(argc, argv, "n:m:k:c:e:S:s:d:")) != -1) {
        switch (opt) {
        case 'n': nn = (uint32_t)parse_list(optarg, ns, 8); break;
        case 'm': m = (uint32_t)atoi(optarg); break;
        case 'k': kern = optarg; break;
        case 'c': mcpu = (uint32_t)atoi(optarg); break;
        case 'e': parse_list(optarg, e2e, 2); break;
        case 'S': parse_list(optarg, sd, 3); break;
        case 's': stat = strcmp(optarg, "mi") == 0 ? ES_STAT_MI : strcmp(optarg, "ig") == 0 ? ES_STAT_IG
                         : strcmp(optarg, "k2") == 0 ? ES_STAT_K2 : ES_STAT_CHI2; break;
        case 'd': dir = optarg; break;
        default:
            fprintf(stderr, "usage: bench_triple_gpu [-n N,...] [-m M] [-k KERNELS] [-c CPU_M] [-e M,N] [-S P,M,N] "
                            "[-s STAT] [-d DIR]\n");
            return 2;
        }
    }
    int n_dev = 0;
    if (es_gpu_device_count(&n_dev) != ES_OK || n_dev == 0) {
        printf("no CUDA device: nothing to measure\n");
        return 0;
    }
    es_log_set_level(ES_LOG_WARN);
    char name[256];
    es_gpu_device_describe(0, name, sizeof name);
    double ceil = 0.0;
    es_gpu_b1_ceiling(0, &ceil);
    printf("device: %s; b1 mma.sync ceiling %.3g bit-MAC/s (measured now)\n", name, ceil);
    printf("%-7s %-6s %-5s %9s %10s %12s %16s %9s %9s\n", "N", "kernel", "stat", "variants", "scan s",
           "triples/s", "triple-samples/s", "ceiling", "x CPU");
    double best_rate[8] = {0};
    for (uint32_t q = 0; q < nn; q++) {
        uint32_t n = ns[q];
        char prefix[4096];
        snprintf(prefix, sizeof prefix, "%s/bt3_%u", dir, n);
        if (write_bfile(prefix, n, m, 1234 + n)) return 1;
        es_dataset_t *ds = NULL, *dc = NULL;
        if (es_dataset_open_bfile(&ds, prefix, NULL, NULL)) return 1;
        char pc[4096];
        snprintf(pc, sizeof pc, "%s/bt3c_%u", dir, n);
        if (write_bfile(pc, n, mcpu, 1234 + n) || es_dataset_open_bfile(&dc, pc, NULL, NULL)) return 1;
        double pk, cs = 0.0;
        uint64_t ct = 0;
        if (scan3(dc, ES_DEVICE_CPU, 0, stat, NULL, 0, &pk, &cs, &ct, NULL, 0)) return 1;
        double cpu_rate = cs > 0 ? (double)ct / cs : 0.0;
        char buf[64];
        snprintf(buf, sizeof buf, "%s", kern);
        for (char *k = strtok(buf, ","); k; k = strtok(NULL, ",")) {
            int kc = 0;
            if (es_gpu_kernel_parse(k, &kc)) continue;
            double sc = 0.0;
            uint64_t tr = 0;
            if (scan3(ds, ES_DEVICE_GPU, kc, stat, NULL, 0, &pk, &sc, &tr, NULL, 0)) {
                printf("%-7u %-6s scan failed\n", n, k);
                continue;
            }
            double rate = (double)tr / sc;
            if (rate > best_rate[q]) best_rate[q] = rate;
            printf("%-7u %-6s %-5s %9u %10.3f %12.4g %16.4g %8.1f%% %9.1f\n", n, k, es_stat_name(stat), m, sc, rate,
                   rate * n, ceil > 0 ? 100.0 * rate * 8.0 * n / ceil : 0.0, cpu_rate > 0 ? rate / cpu_rate : 0.0);
        }
        printf("%-7u %-6s %-5s %9u %10.3f %12.4g %16.4g\n", n, "cpu", es_stat_name(stat), mcpu, cs, cpu_rate,
               cpu_rate * n);
        fflush(stdout);
        es_dataset_destroy(ds);
        es_dataset_destroy(dc);
    }
    es_log_set_level(ES_LOG_INFO); /* the backend's summary line of the end-to-end runs */
    if (e2e[0] && e2e[1]) {
        uint64_t M = e2e[0], n = e2e[1], tri = M * (M - 1) / 2 * (M - 2) / 3;
        double rate = 0.0;
        for (uint32_t q = 0; q < nn; q++)
            if (ns[q] == n) rate = best_rate[q];
        double pred = rate > 0 ? (double)tri / rate : 1e30;
        if (pred > 300.0) {
            printf("exhaustive %llu variants x %llu samples: %.4g triples, predicted %.1f s from the rate above "
                   "(not run: over 300 s)\n", (unsigned long long)M, (unsigned long long)n, (double)tri, pred);
        } else {
            char prefix[4096], info[512];
            snprintf(prefix, sizeof prefix, "%s/bt3e", dir);
            es_dataset_t *ds = NULL;
            double pk = 0, sc = 0, t0;
            uint64_t tr = 0;
            if (write_bfile(prefix, (uint32_t)n, (uint32_t)M, 77)) return 1;
            t0 = 0;
            if (es_dataset_open_bfile(&ds, prefix, NULL, NULL) ||
                scan3(ds, ES_DEVICE_GPU, 0, stat, NULL, 0, &pk, &sc, &tr, info, sizeof info))
                return 1;
            (void)t0;
            printf("exhaustive %llu variants x %llu samples, end to end: %.2f s (pack %.2f s, scan %.2f s), "
                   "%.4g triples/s, %.4g triple-samples/s [%s]\n", (unsigned long long)M, (unsigned long long)n,
                   pk + sc, pk, sc, (double)tr / sc, (double)tr * n / sc, info);
            es_dataset_destroy(ds);
        }
        fflush(stdout);
    }
    if (sd[0] && sd[1] && sd[2]) {
        char prefix[4096], info[512];
        snprintf(prefix, sizeof prefix, "%s/bt3s", dir);
        if (write_bfile(prefix, sd[2], sd[1], 99)) return 1;
        es_dataset_t *ds = NULL;
        if (es_dataset_open_bfile(&ds, prefix, NULL, NULL)) return 1;
        uint32_t *seeds = malloc(2 * (size_t)sd[0] * sizeof *seeds);
        uint64_t r = 5;
        for (uint32_t p = 0; p < sd[0]; p++) {
            seeds[2 * p] = (uint32_t)(rng_next(&r) % sd[1]);
            do seeds[2 * p + 1] = (uint32_t)(rng_next(&r) % sd[1]);
            while (seeds[2 * p + 1] == seeds[2 * p]);
        }
        double pk = 0, sc = 0;
        uint64_t tr = 0;
        if (scan3(ds, ES_DEVICE_GPU, 0, stat, seeds, sd[0], &pk, &sc, &tr, info, sizeof info)) return 1;
        printf("seeded %u pairs x %u variants x %u samples, end to end: %.2f s (pack %.2f s, scan %.2f s), "
               "%.4g triples/s, %.4g triple-samples/s [%s]\n", sd[0], sd[1], sd[2], pk + sc, pk, sc,
               (double)tr / sc, (double)tr * sd[2] / sc, info);
        free(seeds);
        es_dataset_destroy(ds);
    }
    return 0;
}
