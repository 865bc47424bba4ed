/* bench_mi.c -- time es_mi_select() (src/mi_select.c) on synthetic discrete data
 * held in memory, and print a table: one row per method, with the seconds on
 * one thread and on all threads, and with --device the seconds on a GPU.
 *
 *   bench_mi [--preset feast|mnist|epsilon|survivors] [--samples N] [--features D]
 *            [--classes C] [--states S] [--data tri|geno] [--k K]
 *            [--methods mrmr,jmi,...|all] [--threads T] [--seed X] [--label NAME]
 *            [--device D] [--path auto|hist|pairs] [--kernel auto|wgmma|mma|popc]
 *            [--no-cpu1] [--no-cpu] [--repeat R]
 *
 * Data (--data tri, the default): y uniform over C classes; feature f takes a
 * triangular-shaped value over S states (sum of two uniforms), shifted by the
 * class for every fifth feature and by a neighbour's value for every third, so
 * there is relevance and redundancy to find.  --data geno: genotype-like, 4
 * states: 0, 1, 2 copies of a minor allele (frequency 5-50 %), more frequent
 * in classes > 0 for every fifth feature, a neighbour's genotype for every
 * third, and 3 ("missing") for about 1 % of the calls.  The figure is the wall
 * time of es_mi_select() alone (table construction excluded).  T (default: all
 * CPUs) is the "all threads" column; 1 thread is measured unless --no-cpu1,
 * neither CPU column with --no-cpu.
 *
 * --preset sets samples, features, classes, states, data, k and the label to
 * one of the sets of tests/bench/bench_select.sh (plus survivors: 10,000
 * genotypes x 20,000 features, k 100); explicit options override it wherever
 * they stand.
 *
 * --device D adds six columns, all from es_mi_select_opt() on CUDA device D
 * (--path, --kernel: its counting path and pair-engine kernel): the seconds of
 * the selection in double and in fixed point, gpu_x = threads_s / gpu_s (the
 * GPU's speed-up over the all-threads CPU in the same run), how far the
 * fixed-point picks agree with the double ones (prefix/common/n: equal from
 * rank 1 to `prefix`, `common` features in both, of the n double picks), and
 * `bytes`: whether the double picks, scores and relevances are bit for bit the
 * CPU's all-threads ones (what --device cpu and gpu write must be the same
 * bytes).  Tiny selections on the device first (not timed, one on each of
 * its paths) open it as `epistream` does while it reads its input (the
 * CUDA context, the kernels, the upload's staging buffers); stderr says per method where the GPU's time went (opening the
 * table on the device, the relevance pass and rounds with their host work,
 * the device's kernels alone).  --repeat R times every selection R times and
 * keeps the fastest. */
#ifdef _OPENMP
#include <omp.h>
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select.h"
#include "gpu.h"

static uint64_t sm64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int make_table(es_dtable_t *d, uint32_t n, uint32_t nf, uint32_t nc, uint32_t ns,
                      int geno, uint64_t seed)
{
    memset(d, 0, sizeof *d);
    d->n_samples = n;
    d->n_features = nf;
    d->n_classes = nc;
    d->x = malloc((size_t)n * nf * sizeof *d->x);
    d->y = malloc((size_t)n * sizeof *d->y);
    d->n_states = malloc((size_t)nf * sizeof *d->n_states);
    if (!d->x || !d->y || !d->n_states) return -1;
    uint64_t st = seed;
    for (uint32_t s = 0; s < n; s++) d->y[s] = (uint16_t)(sm64(&st) % nc);
#pragma omp parallel for schedule(dynamic, 16)
    for (int64_t f = 0; f < (int64_t)nf; f++) {
        uint64_t r = seed * 1000003u + (uint64_t)f;
        uint16_t *x = d->x + (size_t)f * n;
        const uint16_t *nb = f >= 1 && f % 3 == 0 ? d->x + (size_t)(f - 1) * n : NULL;
        if (geno) {
            /* allele frequency in 1/1024: 51..512, raised by up to 1/8 in classes > 0 */
            uint64_t u0 = sm64(&r);
            uint32_t maf = 51 + (uint32_t)(u0 % 462);
            uint32_t effect = f % 5 == 0 ? 8 + (uint32_t)((u0 >> 32) % 121) : 0;
            d->n_states[f] = 4;
            for (uint32_t s = 0; s < n; s++) {
                uint64_t u = sm64(&r);
                uint32_t p = maf + (d->y[s] ? effect : 0);
                uint32_t v = ((u & 1023) < p) + (((u >> 10) & 1023) < p);
                if (nb && (u >> 60) < 6) v = nb[s];
                if (((u >> 20) & 1023) < 10) v = 3; /* ~1 % missing */
                x[s] = (uint16_t)v;
            }
            continue;
        }
        d->n_states[f] = ns;
        uint32_t half = ns / 2 + 1;
        for (uint32_t s = 0; s < n; s++) {
            uint64_t u = sm64(&r);
            uint32_t v = (uint32_t)((u & 0xffffffffu) % half + (u >> 32) % half);
            if (f % 5 == 0) v += d->y[s] * (ns / (2 * nc) + 1);
            if (nb && (u >> 60) < 6) v = nb[s];
            x[s] = (uint16_t)(v % ns);
        }
    }
    return 0;
}

typedef struct {
    const char *name;
    uint32_t n, nf, nc, ns, k;
    int geno;
} preset_t;

static const preset_t presets[] = {
    {"feast", 4000, 10000, 2, 10, 50, 0},
    {"mnist", 60000, 780, 10, 128, 200, 0},
    {"epsilon", 400000, 2000, 2, 128, 200, 0},
    {"survivors", 10000, 20000, 2, 4, 100, 1},
};


static int same_picks(const es_mi_pick_t *a, uint32_t na, const es_mi_pick_t *b, uint32_t nb)
{
    if (na != nb) return 0;
    for (uint32_t i = 0; i < na; i++)
        if (a[i].feature != b[i].feature) return 0;
    return 1;
}

/* The same picks with the same score and relevance bytes. */
static int same_bytes(const es_mi_pick_t *a, uint32_t na, const es_mi_pick_t *b, uint32_t nb)
{
    if (!same_picks(a, na, b, nb)) return 0;
    for (uint32_t i = 0; i < na; i++)
        if (memcmp(&a[i].score, &b[i].score, sizeof a[i].score) ||
            memcmp(&a[i].relevance, &b[i].relevance, sizeof a[i].relevance))
            return 0;
    return 1;
}

/* A selection on a tiny table, on each of the device's paths: the CUDA
 * context, the kernels' first launch and the upload's staging buffers (what
 * `epistream` prepares while it reads its input) are not in the figures. */
static int warm_up(const es_mi_opt_t *o)
{
    es_dtable_t w;
    if (make_table(&w, 300, 8, 2, 3, 1, 7)) return ES_ERR_NOMEM;
    es_mi_pick_t p[4];
    uint32_t np;
    es_mi_opt_t h = *o;
    h.gpu_path = ES_MI_GPU_HIST;
    int ret = es_mi_select_opt(&w, ES_MI_JMI, 4, o, p, &np, NULL);
    if (ret == ES_OK) ret = es_mi_select_opt(&w, ES_MI_JMI, 4, &h, p, &np, NULL);
    es_dtable_free(&w);
    return ret;
}

int main(int argc, char **argv)
{
    uint32_t n = 4000, nf = 10000, nc = 2, ns = 10, k = 50;
    int geno = 0;
    const char *methods = "mrmr,jmi,disr", *label = "custom";
#ifdef _OPENMP
    int threads = omp_get_max_threads();
#else
    int threads = 1;
#endif
    uint64_t seed = 1;
    int device = -1, run_cpu1 = 1, run_cpu = 1, path = ES_MI_GPU_AUTO, kernel = ES_GPU_KERNEL_AUTO, repeat = 1;
    /* the preset first, so that every explicit option overrides it */
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--preset")) continue;
        size_t p = 0;
        while (p < sizeof presets / sizeof *presets && strcmp(presets[p].name, argv[i + 1])) p++;
        if (p == sizeof presets / sizeof *presets) {
            fprintf(stderr, "bench_mi: unknown preset '%s' (feast, mnist, epsilon, survivors)\n",
                    argv[i + 1]);
            goto usage;
        }
        n = presets[p].n;
        nf = presets[p].nf;
        nc = presets[p].nc;
        ns = presets[p].ns;
        k = presets[p].k;
        geno = presets[p].geno;
        label = presets[p].name;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--no-cpu1")) {
            run_cpu1 = 0;
            continue;
        }
        if (!strcmp(a, "--no-cpu")) {
            run_cpu1 = run_cpu = 0;
            continue;
        }
        if (!v) goto usage;
        if (!strcmp(a, "--samples")) n = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--features")) nf = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--classes")) nc = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--states")) ns = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--k")) k = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--methods")) methods = v;
        else if (!strcmp(a, "--threads")) threads = atoi(v);
        else if (!strcmp(a, "--seed")) seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--label")) label = v;
        else if (!strcmp(a, "--preset")) (void)0; /* applied above */
        else if (!strcmp(a, "--device")) device = atoi(v);
        else if (!strcmp(a, "--repeat")) repeat = atoi(v);
        else if (!strcmp(a, "--data") && (!strcmp(v, "tri") || !strcmp(v, "geno")))
            geno = !strcmp(v, "geno");
        else if (!strcmp(a, "--path") && !strcmp(v, "auto")) path = ES_MI_GPU_AUTO;
        else if (!strcmp(a, "--path") && !strcmp(v, "hist")) path = ES_MI_GPU_HIST;
        else if (!strcmp(a, "--path") && !strcmp(v, "pairs")) path = ES_MI_GPU_PAIRS;
        else if (!strcmp(a, "--kernel")) {
            if (es_gpu_kernel_parse(v, &kernel) != ES_OK) goto usage;
        } else goto usage;
        i++;
    }
    if (geno) ns = 4;
    if (!n || !nf || !nc || nc > 65536 || !ns || ns > 65536 || threads < 1 || device < -1 || repeat < 1)
        goto usage;
    if (!run_cpu && device < 0) {
        fprintf(stderr, "bench_mi: --no-cpu leaves nothing to time without --device\n");
        goto usage;
    }
    if (!strcmp(methods, "all")) methods = "mim,mrmr,jmi,disr,cmim,icap,condmi";
    if (device >= 0) {
        int n_dev = 0;
        if (es_gpu_device_count(&n_dev) != ES_OK || device >= n_dev) {
            fprintf(stderr, "bench_mi: no CUDA device %d (%d visible)\n", device, n_dev);
            return 1;
        }
    }

    es_mi_opt_t ogpu;
    es_mi_opt_init(&ogpu);
    ogpu.device = device;
    ogpu.threads = threads;
    ogpu.gpu_path = path;
    ogpu.gpu_kernel = kernel;
    if (device >= 0) {
        int ret = warm_up(&ogpu);
        if (ret != ES_OK) {
            fprintf(stderr, "bench_mi: device %d: %s\n", device, es_strerror(ret));
            return 1;
        }
    }

    es_dtable_t d;
    double t0 = es_time_now();
    if (make_table(&d, n, nf, nc, ns, geno, seed)) {
        fprintf(stderr, "bench_mi: out of memory for %u x %u\n", n, nf);
        return 1;
    }
    fprintf(stderr, "bench_mi: %s data %u x %u made in %.1f s\n", label, n, nf, es_time_now() - t0);
    /* picks: 1 thread, all threads, GPU double, GPU fixed point */
    es_mi_pick_t *out[4];
    for (int r = 0; r < 4; r++)
        if (!(out[r] = malloc(((size_t)k + 1) * sizeof *out[r]))) return 1;

    printf("%-8s %9s %8s %4s %6s %4s  %-7s %6s %12s %12s %8s", "set", "samples", "features", "cls",
           "states", "k", "method", "picked", "1thread_s", "threads_s", "speedup");
    if (device >= 0) printf(" %10s %10s %7s %15s %5s", "gpu_s", "gpu_fx_s", "gpu_x", "fx_agree", "bytes");
    printf("\n");
    char *list = strdup(methods);
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        es_mi_method_t m;
        if (es_mi_method_parse(tok, &m) != ES_OK) return 1;
        double tt[4] = {0, 0, 0, 0};
        uint32_t got[4] = {0, 0, 0, 0};
        int ran[4] = {run_cpu1, run_cpu, device >= 0, device >= 0};
        es_mi_info_t info[4];
        for (int r = 0; r < 4; r++) {
            if (!ran[r]) continue;
            for (int rep = 0; rep < repeat; rep++) {
                double a = es_time_now();
                int ret;
                es_mi_info_t in;
                if (r < 2) {
                    ret = es_mi_select(&d, m, k, r == 0 ? 1 : threads, out[r], &got[r]);
                } else {
                    ogpu.fixed_point = r == 3;
                    ret = es_mi_select_opt(&d, m, k, &ogpu, out[r], &got[r], &in);
                }
                double t = es_time_now() - a;
                if (ret != ES_OK) {
                    fprintf(stderr, "bench_mi: %s%s: %s\n", tok, r < 2 ? "" : " on the GPU",
                            es_strerror(ret));
                    return 1;
                }
                if (!rep || t < tt[r]) {
                    tt[r] = t;
                    if (r >= 2) info[r] = in;
                }
            }
        }
        if (ran[0] && ran[1] && !same_picks(out[0], got[0], out[1], got[1]))
            fprintf(stderr, "bench_mi: %s: 1 and %d threads disagree\n", tok, threads);
        if (device >= 0)
            fprintf(stderr, "bench_mi: %s: %s; %.4f s to open the table, %.4f s relevance and rounds, "
                            "%.4f s counting the rounds, %.4f s in device kernels\n", tok, info[2].where,
                    info[2].seconds_open, info[2].seconds_rounds, info[2].seconds_count, info[2].seconds_gpu);
        char c1[16] = "-", ct[16] = "-", sp[16] = "-";
        if (ran[0]) snprintf(c1, sizeof c1, "%.3f", tt[0]);
        if (ran[1]) snprintf(ct, sizeof ct, "%.3f", tt[1]);
        if (ran[0] && ran[1]) snprintf(sp, sizeof sp, "%.2f", tt[0] / tt[1]);
        uint32_t picked = ran[1] ? got[1] : ran[0] ? got[0] : got[2];
        printf("%-8s %9u %8u %4u %6u %4u  %-7s %6u %12s %12s %8s", label, n, nf, nc, ns, k, tok,
               picked, c1, ct, sp);
        if (device >= 0) {
            uint32_t prefix = 0, common = 0;
            es_mi_agreement(out[2], got[2], out[3], got[3], &prefix, &common);
            char agree[48];
            snprintf(agree, sizeof agree, "%u/%u/%u", prefix, common, got[2]);
            const char *same = "-";
            char gx[16] = "-";
            if (ran[1]) same = same_bytes(out[1], got[1], out[2], got[2]) ? "yes" : "no";
            if (ran[1] && tt[2] > 0) snprintf(gx, sizeof gx, "%.2f", tt[1] / tt[2]);
            printf(" %10.3f %10.3f %7s %15s %5s", tt[2], tt[3], gx, agree, same);
            if (!strcmp(same, "no"))
                fprintf(stderr, "bench_mi: %s: the GPU's picks or scores differ from the CPU's\n", tok);
        }
        printf("\n");
        fflush(stdout);
    }
    free(list);
    for (int r = 0; r < 4; r++) free(out[r]);
    es_dtable_free(&d);
    return 0;
usage:
    fprintf(stderr,
            "usage: bench_mi [--preset feast|mnist|epsilon|survivors] [--samples N]\n"
            "                [--features D] [--classes C] [--states S] [--data tri|geno] [--k K]\n"
            "                [--methods LIST|all] [--threads T] [--seed X] [--label NAME]\n"
            "                [--device D] [--path auto|hist|pairs] [--kernel auto|wgmma|mma|popc]\n"
            "                [--no-cpu1] [--no-cpu] [--repeat R]\n");
    return 2;
}
