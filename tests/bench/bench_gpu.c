/* bench_gpu.c -- prints the GPU scan's rates as a table (not a test).
 *
 *   bench_gpu [-n N,N,...] [-m VARIANTS] [-s STATS] [-k KERNELS] [-c CPU_VARIANTS]
 *             [-t THREADS] [-d DIR] [-x | -e NAME=VALUE] [-M] [-b BLOCK] [-v]
 *
 * For each sample count N (half cases, no missing calls) a random .bed of
 * VARIANTS variants is written to DIR (default $TMPDIR or /tmp), then the
 * whole pair scan runs on GPU 0 for each kernel and statistic (top 1000):
 * pairs/s and pair-samples/s over the scan time (packing excluded: the
 * blocks packed before the scan, EPISTREAM_PACK_OVERLAP=0 unless set), and the
 * fraction of the b1 tensor-core ceiling measured in the same run (4 N
 * bit-MACs per pair; the higher of the mma.sync and wgmma ceilings).  With
 * the wgmma kernel, a 'mainloop' row per N gives the rate of the tile main
 * loop alone on 16,384 variants (no statistic): what feeding the tensor
 * cores allows.  A kernel given as wgmma-LOADER (LOADER cp, cp-regs,
 * cp-plain, tma1, tma2 or tma4: es_gpu_wgmma_loader) runs wgmma with that
 * operand loader; plain
 * wgmma uses the default one.  The CPU backend scans the first CPU_VARIANTS variants
 * of the same data with every thread, for the ratio.  With boost, the scan is
 * run again with the block cache capped at 1/8 of the data (--gpu-mem; blocks
 * of VARIANTS/32 so that four fit), and its rate given as a fraction of the
 * in-memory one (-M: not).  -x: each in-memory GPU scan is preceded by the
 * same scan without the second stage (EPISTREAM_GPU_EXACT=0, mode
 * 'no-exact': every candidate scored on the host), and the in-memory row
 * ends with its rate relative to that one.  -e NAME=VALUE: the same with
 * the environment variable NAME set to VALUE for the preceding scan instead
 * (mode 'env'; e.g. EPISTREAM_GPU_TILEFIT=1, the previous path).  -b BLOCK:
 * the in-memory GPU scans in blocks of BLOCK variants (default: the
 * backend's choice). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "select.h"
#include "gpu.h"
#include "gpu_test.h"
#include "bfile.h"

static int scan_once(es_dataset_t *ds, es_device_t dev, int kernel, es_stat_t stat, int threads,
                     size_t gpu_mem, uint32_t block, double *secs, uint64_t *pairs)
{
    es_opt_t opt;
    es_opt_init(&opt);
    opt.device = dev;
    opt.gpu_kernel = kernel;
    opt.stat = stat;
    opt.threads = threads;
    opt.gpu_mem = gpu_mem;
    opt.block_variants = block;
    es_scan_t *scan = NULL;
    int ret = es_scan_create(&scan, ds, &opt);
    if (!ret) ret = es_scan_run(scan);
    if (!ret) {
        es_scan_timings(scan, NULL, secs);
        *pairs = es_scan_pairs_done(scan);
    }
    es_scan_destroy(scan);
    return ret;
}

static int split(char *s, char **out, int max)
{
    int n = 0;
    for (char *t = strtok(s, ","); t && n < max; t = strtok(NULL, ",")) out[n++] = t;
    return n;
}

int main(int argc, char **argv)
{
    char ns_buf[256] = "1024,4096,8192,16384", st_buf[128] = "boost,chi2,mi,ig,k2",
         kn_buf[128] = "mma,popc";
    uint32_t m = 65536, m_cpu = 4096;
    int threads = 0, c, pair_old = 0, mem8 = 1, verbose = 0;
    char env_name[128] = "EPISTREAM_GPU_EXACT", env_val[64] = "0";
    const char *mode_old = "no-exact";
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    /* rates after packing: the blocks packed before each scan, not beside it
     * (src/scan/scan.c), unless the caller set the variable */
    setenv("EPISTREAM_PACK_OVERLAP", "0", 0);
    uint32_t blk = 0;
    while ((c = getopt(argc, argv, "n:m:s:k:c:t:d:xe:Mb:v")) != -1) {
        switch (c) {
        case 'n': snprintf(ns_buf, sizeof ns_buf, "%s", optarg); break;
        case 'm': m = (uint32_t)strtoul(optarg, NULL, 10); break;
        case 's': snprintf(st_buf, sizeof st_buf, "%s", optarg); break;
        case 'k': snprintf(kn_buf, sizeof kn_buf, "%s", optarg); break;
        case 'c': m_cpu = (uint32_t)strtoul(optarg, NULL, 10); break;
        case 't': threads = atoi(optarg); break;
        case 'd': dir = optarg; break;
        case 'x': pair_old = 1; break;
        case 'e': {
            const char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg || (size_t)(eq - optarg) >= sizeof env_name || strlen(eq + 1) >= sizeof env_val) {
                fprintf(stderr, "bench_gpu: -e wants NAME=VALUE, got '%s'\n", optarg);
                return 2;
            }
            snprintf(env_name, sizeof env_name, "%.*s", (int)(eq - optarg), optarg);
            snprintf(env_val, sizeof env_val, "%s", eq + 1);
            mode_old = "env";
            pair_old = 1;
            break;
        }
        case 'M': mem8 = 0; break;
        case 'b': blk = (uint32_t)strtoul(optarg, NULL, 10); break;
        case 'v': verbose = 1; break;
        default: fprintf(stderr, "usage: see the top of bench_gpu.c\n"); return 2;
        }
    }
    es_log_set_level(verbose ? ES_LOG_INFO : ES_LOG_WARN);
    char *ns[16], *sts[8], *kns[8];
    int n_ns = split(ns_buf, ns, 16), n_st = split(st_buf, sts, 8), n_kn = split(kn_buf, kns, 8);
    int kern[8], load[8];
    const int load0 = es_gpu_wgmma_loader(-1);
    for (int k = 0; k < n_kn; k++) {
        static const char *names[] = {"cp", "tma1", "tma2", NULL, "tma4", NULL, NULL, NULL, "cp-regs", "cp-plain"};
        load[k] = load0;
        char kname[64];
        snprintf(kname, sizeof kname, "%s", kns[k]);
        char *dash = strncmp(kname, "wgmma-", 6) ? NULL : kname + 5;
        if (dash) {
            *dash = 0;
            load[k] = -1;
            for (int l = 0; l < (int)(sizeof names / sizeof *names); l++)
                if (names[l] && !strcmp(dash + 1, names[l])) load[k] = l;
            if (load[k] < 0) {
                fprintf(stderr, "unknown loader in %s\n", kns[k]);
                return 2;
            }
        }
        if (es_gpu_kernel_parse(kname, &kern[k])) {
            fprintf(stderr, "unknown kernel %s\n", kns[k]);
            return 2;
        }
    }
    char desc[256];
    if (es_gpu_device_describe(0, desc, sizeof desc)) {
        fprintf(stderr, "no GPU: %s\n", desc);
        return 77;
    }
    double ceil_bm = 0.0, ceil_wg = 0.0;
    if (es_gpu_b1_ceiling(0, &ceil_bm)) return 1;
    printf("# device: %s\n# b1 mma.sync ceiling (register operands): %.3g bit-MAC/s = %.3g pair-samples/s\n",
           desc, ceil_bm, ceil_bm / 4.0);
    if (es_gpu_b1_ceiling_wgmma(0, &ceil_wg) == ES_OK) {
        printf("# b1 wgmma ceiling (shared-memory operands): %.3g bit-MAC/s = %.3g pair-samples/s\n", ceil_wg,
               ceil_wg / 4.0);
        if (ceil_wg > ceil_bm) ceil_bm = ceil_wg;
    }
    printf("# 'ceiling': fraction of the higher ceiling; mode 'mainloop': the wgmma tile main loop alone\n"
           "# (no statistic, no top-k), the rate at which operands reach the tensor cores\n");
    printf("%6s %8s %10s %6s %-10s %9s %11s %14s %8s %9s\n", "N", "M", "kernel", "stat", "mode", "seconds",
           "pairs/s", "pair-samp/s", "ceiling", "vs_cpu");
    for (int a = 0; a < n_ns; a++) {
        uint32_t n = (uint32_t)strtoul(ns[a], NULL, 10);
        char prefix[4096], prefix_cpu[4096];
        snprintf(prefix, sizeof prefix, "%s/bench_gpu_%u", dir, n);
        snprintf(prefix_cpu, sizeof prefix_cpu, "%s/bench_gpu_%u_cpu", dir, n);
        if (write_bfile(prefix, n, m, 42 + n) || write_bfile(prefix_cpu, n, m_cpu, 42 + n)) {
            fprintf(stderr, "cannot write %s\n", prefix);
            return 1;
        }
        es_dataset_t *ds = NULL, *ds_cpu = NULL;
        if (es_dataset_open_bfile(&ds, prefix, NULL, NULL) ||
            es_dataset_open_bfile(&ds_cpu, prefix_cpu, NULL, NULL))
            return 1;
        size_t data_bytes = (size_t)m * 2 * ((n / 2 + 1023) / 1024 * 2 * 128);
        for (int k = 0; k < n_kn; k++) {
            double feed = 0.0;
            es_gpu_wgmma_loader(load[k]);
            if (strncmp(kns[k], "wgmma", 5) || es_gpu_wgmma_feed_rate(0, n, &feed) != ES_OK) continue;
            printf("%6u %8u %10s %6s %-10s %9s %11.4g %14.4g %7.1f%% %9s\n", n, 16384u, kns[k], "-", "mainloop",
                   "-", feed, feed * n, 100.0 * feed * 4.0 * n / ceil_bm, "-");
        }
        for (int s = 0; s < n_st; s++) {
            es_stat_t stat;
            if (es_stat_parse(sts[s], &stat)) return 2;
            double cs = 0.0;
            uint64_t cp = 0;
            if (scan_once(ds_cpu, ES_DEVICE_CPU, 0, stat, threads, 0, 0, &cs, &cp)) return 1;
            double cpu_rate = (double)cp / cs;
            printf("%6u %8u %10s %6s %-10s %9.3f %11.4g %14.4g %8s %9s\n", n, m_cpu, "cpu", sts[s],
                   "cpu", cs, cpu_rate, cpu_rate * n, "-", "1.00");
            for (int k = 0; k < n_kn; k++) {
                const int kernel = kern[k];
                es_gpu_wgmma_loader(load[k]);
                double secs = 0.0, old_rate = 0.0;
                uint64_t pairs = 0;
                if (pair_old) { /* the same scan, the other way (-x: every candidate scored on the host) */
                    setenv(env_name, env_val, 1);
                    int r = scan_once(ds, ES_DEVICE_GPU, kernel, stat, threads, 0, blk, &secs, &pairs);
                    unsetenv(env_name);
                    if (r) return 1;
                    old_rate = (double)pairs / secs;
                    printf("%6u %8u %10s %6s %-10s %9.3f %11.4g %14.4g %7.1f%% %9.1f\n", n, m, kns[k], sts[s],
                           mode_old, secs, old_rate, old_rate * n, 100.0 * old_rate * 4.0 * n / ceil_bm,
                           old_rate / cpu_rate);
                }
                if (scan_once(ds, ES_DEVICE_GPU, kernel, stat, threads, 0, blk, &secs, &pairs)) return 1;
                double rate = (double)pairs / secs;
                printf("%6u %8u %10s %6s %-10s %9.3f %11.4g %14.4g %7.1f%% %9.1f", n, m, kns[k], sts[s],
                       "in-memory", secs, rate, rate * n, 100.0 * rate * 4.0 * n / ceil_bm, rate / cpu_rate);
                if (pair_old) printf("  (%.2fx %s)", rate / old_rate, mode_old);
                printf("\n");
                fflush(stdout);
                if (stat == ES_STAT_BOOST && mem8) {
                    double s8 = 0.0;
                    uint64_t p8 = 0;
                    if (scan_once(ds, ES_DEVICE_GPU, kernel, stat, threads, data_bytes / 8, m / 32, &s8, &p8))
                        return 1;
                    double r8 = (double)p8 / s8;
                    printf("%6u %8u %10s %6s %-10s %9.3f %11.4g %14.4g %7.1f%% %9.1f  (%.0f%% of in-memory)\n",
                           n, m, kns[k], sts[s], "mem/8", s8, r8, r8 * n, 100.0 * r8 * 4.0 * n / ceil_bm,
                           r8 / cpu_rate, 100.0 * r8 / rate);
                    fflush(stdout);
                }
            }
        }
        es_dataset_destroy(ds);
        es_dataset_destroy(ds_cpu);
        char cmd[6 * 4096 + 64];
        snprintf(cmd, sizeof cmd, "rm -f '%s'.bed '%s'.bim '%s'.fam '%s'.bed '%s'.bim '%s'.fam", prefix, prefix,
                 prefix, prefix_cpu, prefix_cpu, prefix_cpu);
        if (system(cmd)) fprintf(stderr, "could not remove %s\n", prefix);
    }
    return 0;
}
