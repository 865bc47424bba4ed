/* rules_synth.h -- random multi-label data for the rule learner's GPU test and
 * benchmark (tests/test_gpu_rules.c, tests/bench/bench_rules_gpu.c): values on
 * a grid of step 1/64 (repeated values, negative ones and zeros), a fraction
 * missing, labels from thresholds of a few features plus noise. */
#ifndef ES_TESTS_RULES_SYNTH_H
#define ES_TESTS_RULES_SYNTH_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"
#include "tu_rand.h"

/* n examples, F features (every third one >= 0 only), L labels; miss: the fraction of
   missing values.  @return 0, or -1 out of memory */
static inline int rs_make(es_rules_data_t *d, uint32_t n, uint32_t F, uint32_t L, double miss, uint64_t seed)
{
    memset(d, 0, sizeof *d);
    d->n_ex = n;
    d->n_feat = F;
    d->n_lab = L;
    if (!(d->x = malloc((size_t)n * F * sizeof *d->x)) || !(d->y = malloc((size_t)n * L)) ||
        !(d->feat_name = calloc(F, sizeof *d->feat_name)) || !(d->lab_name = calloc(L, sizeof *d->lab_name)) ||
        !(d->n_values = calloc(F, sizeof *d->n_values)) || !(d->values = calloc(F, sizeof *d->values)))
        return -1;
    uint64_t s = seed;
    char buf[32];
    for (uint32_t f = 0; f < F; f++) {
        snprintf(buf, sizeof buf, "f%u", f);
        if (!(d->feat_name[f] = strdup(buf))) return -1;
        for (uint32_t i = 0; i < n; i++) {
            double u = (double)(tu_rand(&s) >> 11) / 9007199254740992.0;
            float v = (float)floor((f % 3 == 0 ? u * 8.0 : u * 8.0 - 3.0) * 64.0) / 64.0f;
            if ((double)(tu_rand(&s) >> 11) / 9007199254740992.0 < miss) v = NAN;
            d->x[(size_t)f * n + i] = v;
        }
    }
    for (uint32_t l = 0; l < L; l++) {
        snprintf(buf, sizeof buf, "y%u", l);
        if (!(d->lab_name[l] = strdup(buf))) return -1;
        uint32_t f1 = (uint32_t)(tu_rand(&s) % F), f2 = (uint32_t)(tu_rand(&s) % F);
        double t1 = (double)(tu_rand(&s) % 512) / 64.0 - 2.0, t2 = (double)(tu_rand(&s) % 512) / 64.0 - 2.0;
        for (uint32_t i = 0; i < n; i++) {
            float a = d->x[(size_t)f1 * n + i], b = d->x[(size_t)f2 * n + i];
            int v = (a > t1) ^ (b > t2 && l % 2);
            if (tu_rand(&s) % 10 == 0) v = !v;
            d->y[(size_t)i * L + l] = (uint8_t)v;
        }
    }
    return 0;
}

#endif
