/* metrics.c -- multi-label metrics as scikit-learn computes them
 * (hamming_loss, accuracy_score, f1_score with average samples/micro/macro,
 * zero_division=1), in percent. */
#include "rules.h"

const char *const es_rules_metric_names[ES_RULES_N_METRICS] = {
    "hamming_loss", "subset_accuracy", "example_f1", "micro_f1", "macro_f1"};

/* 2 tp / (2 tp + fp + fn), or 1 when that is 0 / 0 (zero_division=1). */
static double f1(uint64_t tp, uint64_t fp, uint64_t fn)
{
    uint64_t den = 2 * tp + fp + fn;
    return den ? (double)(2 * tp) / (double)den : 1.0;
}

/* Add the cell (truth a, prediction b) to the counts. */
static inline void count(uint8_t a, uint8_t b, uint64_t *tp, uint64_t *fp, uint64_t *fn)
{
    *tp += a && b;
    *fp += !a && b;
    *fn += a && !b;
}

void es_rules_metrics(const uint8_t *y, const uint8_t *p, uint32_t n, uint32_t n_lab,
                      double out[ES_RULES_N_METRICS])
{
    uint64_t wrong = 0, exact = 0, tp = 0, fp = 0, fn = 0;
    double ex_f1 = 0.0, mac = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t etp = 0, efp = 0, efn = 0;
        for (uint32_t l = 0; l < n_lab; l++)
            count(y[(size_t)i * n_lab + l], p[(size_t)i * n_lab + l], &etp, &efp, &efn);
        wrong += efp + efn;
        exact += !(efp + efn);
        tp += etp;
        fp += efp;
        fn += efn;
        ex_f1 += f1(etp, efp, efn);
    }
    for (uint32_t l = 0; l < n_lab; l++) {
        uint64_t ltp = 0, lfp = 0, lfn = 0;
        for (uint32_t i = 0; i < n; i++)
            count(y[(size_t)i * n_lab + l], p[(size_t)i * n_lab + l], &ltp, &lfp, &lfn);
        mac += f1(ltp, lfp, lfn);
    }
    double cells = (double)n * n_lab;
    out[ES_RULES_HAMMING] = cells > 0 ? 100.0 * (double)wrong / cells : 0.0;
    out[ES_RULES_SUBSET_ACC] = n ? 100.0 * (double)exact / n : 0.0;
    out[ES_RULES_EXAMPLE_F1] = n ? 100.0 * ex_f1 / n : 0.0;
    out[ES_RULES_MICRO_F1] = 100.0 * f1(tp, fp, fn);
    out[ES_RULES_MACRO_F1] = n_lab ? 100.0 * mac / n_lab : 0.0;
}
