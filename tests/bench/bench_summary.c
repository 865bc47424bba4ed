/* bench_summary.c -- the scan's per-variant summary (.summary.tsv), the
 * last step of every scan: M rows written with the former printf code
 * (tests/summary_ref.h) and with es_write_summary on each thread count,
 * alternated ROUNDS times (a loaded machine slows them alike), every output
 * compared byte for byte with printf's.  Prints the best and median seconds
 * of each and the ratio of printf's best to it.
 *
 *   bench_summary [M [ROUNDS [THREADS...]]]   (default 1000000, 5, 1 2)
 *
 * The data: M variants on chromosomes 1-22 with IDs rs<n> and positions up
 * to 2.5e8 (as a genotyping array's .bim), 4 samples; each variant a best
 * partner (1 in 50 none), a statistic and p-value of a scan's magnitudes,
 * counts near M.  Written under $TMPDIR (or /tmp), removed at the end. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "select.h"
#include "output.h"
#include "../summary_ref.h"

#define MAX_T 8

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The file's bytes (free them), its length in *n; NULL on error. */
static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    char *b = malloc((size_t)len + 1);
    if (b && fread(b, 1, (size_t)len, f) != (size_t)len) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *n = (size_t)len;
    return b;
}

int main(int argc, char **argv)
{
    uint32_t m = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1000000u;
    int rounds = argc > 2 ? atoi(argv[2]) : 5, nt = 0, threads[MAX_T];
    for (int k = 3; k < argc && nt < MAX_T; k++) threads[nt++] = atoi(argv[k]);
    if (!nt) {
        threads[nt++] = 1;
        threads[nt++] = 2;
    }
    if (m < 1 || rounds < 1) {
        fprintf(stderr, "usage: bench_summary [M [ROUNDS [THREADS...]]]\n");
        return 2;
    }
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char pre[4000], path[4100], ref_path[4100];
    snprintf(pre, sizeof pre, "%s/bench_summary_%d", dir, (int)getpid());
    snprintf(path, sizeof path, "%s.bim", pre);
    FILE *f = fopen(path, "w");
    if (!f) return 1;
    for (uint32_t v = 0; v < m; v++)
        fprintf(f, "%u\trs%u\t0\t%u\tA\tG\n", 1 + v * 22u / m, 1000000u + v * 7u,
                10000u + (uint32_t)(next() % 250000000u));
    fclose(f);
    snprintf(path, sizeof path, "%s.fam", pre);
    if (!(f = fopen(path, "w"))) return 1;
    fputs("F1 I1 0 0 1 1\nF2 I2 0 0 2 2\nF3 I3 0 0 1 1\nF4 I4 0 0 2 2\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s.bed", pre);
    if (!(f = fopen(path, "wb"))) return 1;
    fwrite("\x6c\x1b\x01", 1, 3, f);
    for (uint32_t v = 0; v < m; v++) fputc(0x1b, f); /* the four genotypes differ */
    fclose(f);
    es_dataset_t *ds = NULL;
    if (es_dataset_open_bfile(&ds, pre, NULL, NULL)) return 1;
    es_summary_t *s = calloc(m, sizeof *s);
    if (!s) return 1;
    for (uint32_t v = 0; v < m; v++) {
        s[v].best_partner = next() % 50 == 0 ? UINT32_MAX : (uint32_t)(next() % m);
        s[v].best_stat = 10.0 + (double)(next() % 1000000) * 2e-5;
        s[v].best_p = 1e-3 * (double)(next() % 1000000) * 1e-6;
        s[v].n_tot = m - 1;
        s[v].n_sig = next() % 3;
    }
    double best[MAX_T + 1], times[MAX_T + 1][64];
    const int R = rounds < 64 ? rounds : 64;
    snprintf(ref_path, sizeof ref_path, "%s.ref.tsv", pre);
    snprintf(path, sizeof path, "%s.out.tsv", pre);
    int bad = 0;
    for (int r = 0; r < R; r++) {
        for (int k = 0; k <= nt; k++) { /* k == 0: printf */
            f = fopen(k ? path : ref_path, "w");
            if (!f) return 1;
            double t0 = now();
            if (k) bad |= es_write_summary(f, ds, s, NULL, threads[k - 1]) != ES_OK;
            else ref_summary(f, ds, s, NULL);
            bad |= fclose(f) != 0;
            times[k][r] = now() - t0;
            if (k) {
                size_t na = 0, nb = 0;
                char *a = slurp(ref_path, &na), *b = slurp(path, &nb);
                if (!a || !b || na != nb || memcmp(a, b, na)) {
                    fprintf(stderr, "bench_summary: %d threads: not printf's bytes\n", threads[k - 1]);
                    bad = 1;
                }
                free(a);
                free(b);
            }
        }
    }
    printf("# %u rows (%u variants' .summary.tsv), %d rounds alternated\n", m, m, R);
    printf("%-10s %10s %10s %8s\n", "writer", "best_s", "median_s", "speedup");
    for (int k = 0; k <= nt; k++) {
        qsort(times[k], (size_t)R, sizeof **times, cmp_d);
        best[k] = times[k][0];
        char name[32];
        if (k) snprintf(name, sizeof name, "%d thr", threads[k - 1]);
        else snprintf(name, sizeof name, "printf");
        printf("%-10s %10.4f %10.4f %7.2fx\n", name, best[k], times[k][R / 2], best[0] / best[k]);
    }
    es_dataset_destroy(ds);
    free(s);
    const char *ext[] = {".bim", ".fam", ".bed", ".ref.tsv", ".out.tsv"};
    for (int e = 0; e < 5; e++) {
        snprintf(path, sizeof path, "%s%s", pre, ext[e]);
        unlink(path);
    }
    return bad;
}
