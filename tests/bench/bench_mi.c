/* bench_mi.c -- time es_mi_select() (src/mi_select.c) on synthetic discrete data
 * held in memory, and print a table: one row per method, with the seconds on
 * one thread and on all threads.
 *
 *   bench_mi [--samples N] [--features D] [--classes C] [--states S] [--k K]
 *            [--methods mrmr,jmi,...|all] [--threads T] [--seed X] [--label NAME]
 *
 * Data: y uniform over C classes; feature f takes a triangular-shaped value over
 * S states (sum of two uniforms), shifted by the class for every fifth feature
 * and by a neighbour's value for every third, so there is relevance and
 * redundancy to find.  The figure is the wall time of es_mi_select() alone
 * (table construction excluded).  T (default: all CPUs) is the "all threads"
 * column; 1 thread is always measured. */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "es_internal.h"

static uint64_t sm64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int make_table(es_dtable_t *d, uint32_t n, uint32_t nf, uint32_t nc, uint32_t ns,
                      uint64_t seed)
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

int main(int argc, char **argv)
{
    uint32_t n = 4000, nf = 10000, nc = 2, ns = 10, k = 50;
    const char *methods = "mrmr,jmi,disr", *label = "custom";
    int threads = omp_get_max_threads();
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
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
        else goto usage;
        i++;
    }
    if (!n || !nf || !nc || nc > 65536 || !ns || ns > 65536 || threads < 1) goto usage;
    if (!strcmp(methods, "all")) methods = "mim,mrmr,jmi,disr,cmim,icap,condmi";

    es_dtable_t d;
    double t0 = es_time_now();
    if (make_table(&d, n, nf, nc, ns, seed)) {
        fprintf(stderr, "bench_mi: out of memory for %u x %u\n", n, nf);
        return 1;
    }
    fprintf(stderr, "bench_mi: %s data %u x %u made in %.1f s\n", label, n, nf, es_time_now() - t0);
    es_mi_pick_t *out = malloc((size_t)k * sizeof *out);
    if (!out) return 1;

    printf("%-8s %9s %8s %4s %6s %4s  %-7s %6s %12s %12s %8s\n", "set", "samples", "features",
           "cls", "states", "k", "method", "picked", "1thread_s", "threads_s", "speedup");
    char *list = strdup(methods);
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        es_mi_method_t m;
        if (es_mi_method_parse(tok, &m) != ES_OK) return 1;
        double tt[2];
        uint32_t got[2];
        uint32_t first[2];
        int tcount[2] = {1, threads};
        for (int r = 0; r < 2; r++) {
            double a = es_time_now();
            int ret = es_mi_select(&d, m, k, tcount[r], out, &got[r]);
            tt[r] = es_time_now() - a;
            if (ret != ES_OK) {
                fprintf(stderr, "bench_mi: %s: %s\n", tok, es_strerror(ret));
                return 1;
            }
            first[r] = got[r] ? out[got[r] - 1].feature : 0;
        }
        if (got[0] != got[1] || first[0] != first[1])
            fprintf(stderr, "bench_mi: %s: 1 and %d threads disagree\n", tok, threads);
        printf("%-8s %9u %8u %4u %6u %4u  %-7s %6u %12.3f %12.3f %8.2f\n", label, n, nf, nc, ns, k,
               tok, got[0], tt[0], tt[1], tt[0] / tt[1]);
        fflush(stdout);
    }
    free(list);
    free(out);
    es_dtable_free(&d);
    return 0;
usage:
    fprintf(stderr, "usage: bench_mi [--samples N] [--features D] [--classes C] [--states S] "
                    "[--k K] [--methods LIST|all] [--threads T] [--seed X] [--label NAME]\n");
    return 2;
}
