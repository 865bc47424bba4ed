/* bench_rules_threads.c -- the rule learner's fit time on 1 thread against
 * more, in one process: the data read once, then ROUNDS rounds that each fit
 * once per thread count (alternated, so that a loaded machine slows them
 * alike), every model checked byte for byte against the first.  Prints, per
 * thread count, the best and the median fit seconds (milliseconds, which the
 * CLI's line rounds away) and the ratio of the 1-thread figure to it.
 * Default settings (mlrl-boomer's BoomerClassifier()), as `rules train`.
 *
 *   bench_rules_threads ARFF XML [ROUNDS [THREADS...]]   (default 9 rounds, 1 2)
 *   env BENCH_PAUSE: seconds to sleep before each fit (default 0), e.g. 0.3 under
 *   `chrt -f 1` (a real-time priority keeps the machine's other programs off the
 *   CPUs, but the kernel lets real-time threads run only 0.95 s of each second,
 *   so back-to-back fits would be stopped for 50 ms at random places);
 *   BENCH_MAX_RULES: the number of rules (default 1000, the default rule included)
 *
 * XML: the Mulan label file (tests/oracle/mulan_split.py writes the testbed's
 * training split of emotions or enron; tests/bench/rules_synth.py the
 * synthetic set). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rules.h"
#include "table.h"
#include "model_bytes.h"

#define MAX_T 8

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_rules_threads ARFF XML [ROUNDS [THREADS...]]\n");
        return 2;
    }
    int rounds = argc > 3 ? atoi(argv[3]) : 9, nt = 0, th[MAX_T];
    for (int k = 4; k < argc && nt < MAX_T; k++) th[nt++] = atoi(argv[k]);
    if (!nt) {
        th[0] = 1;
        th[1] = 2;
        nt = 2;
    }
    if (rounds < 1) rounds = 1;
    const char *env = getenv("BENCH_PAUSE");
    double pause = env ? atof(env) : 0.0;
    const char *mr = getenv("BENCH_MAX_RULES");
    struct timespec ps = {(time_t)pause, (long)((pause - (double)(time_t)pause) * 1e9)};
    char **lab = NULL;
    uint32_t n_lab = 0;
    es_ntable_t t;
    es_rules_data_t d;
    if (es_mulan_labels_read(argv[2], &lab, &n_lab) || es_ntable_read(argv[1], &t) ||
        es_rules_data_from_table(&t, argv[1], lab, n_lab, argv[2], NULL, NULL, 0, NULL, 0, &d)) {
        fprintf(stderr, "bench_rules_threads: cannot read %s with %s\n", argv[1], argv[2]);
        return 1;
    }
    es_ntable_free(&t);
    double *sec = calloc((size_t)rounds * nt, sizeof *sec);
    char *ref = NULL;
    size_t ref_len = 0;
    if (!sec) return 1;
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < nt; k++) {
            es_rules_opt_t o;
            es_rules_model_t m;
            es_rules_opt_init(&o);
            o.threads = th[k];
            if (mr) o.max_rules = (uint32_t)atoi(mr);
            if (pause > 0) nanosleep(&ps, NULL);
            double t0 = es_time_now();
            if (es_rules_train(&d, &o, &m)) {
                fprintf(stderr, "bench_rules_threads: training failed\n");
                return 1;
            }
            sec[(size_t)k * rounds + r] = es_time_now() - t0;
            size_t len;
            char *b = bench_model_bytes(&m, &len);
            if (!ref) {
                ref = b;
                ref_len = len;
            } else {
                if (len != ref_len || memcmp(b, ref, len)) {
                    fprintf(stderr, "bench_rules_threads: %d threads learned another model\n", th[k]);
                    return 1;
                }
                free(b);
            }
            es_rules_model_free(&m);
        }
    printf("%-8s %10s %10s %8s %8s\n", "threads", "best s", "median s", "best x", "median x");
    double b1 = 0, m1 = 0;
    for (int k = 0; k < nt; k++) {
        double *s = sec + (size_t)k * rounds;
        qsort(s, rounds, sizeof *s, cmp_d);
        double best = s[0], med = s[rounds / 2];
        if (!k) b1 = best, m1 = med;
        printf("%-8d %10.3f %10.3f %8.2f %8.2f\n", th[k], best, med, b1 / best, m1 / med);
    }
    printf("same model bytes in all %d fits\n", rounds * nt);
    free(ref);
    free(sec);
    es_rules_data_free(&d);
    for (uint32_t l = 0; l < n_lab; l++) free(lab[l]);
    free(lab);
    return 0;
}
