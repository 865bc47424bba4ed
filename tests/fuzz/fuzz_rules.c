/* fuzz_rules.c -- the rule learner's readers: the first input byte modulo 3
 * picks one (0: a model file, es_rules_model_read, then predictions with it;
 * 1: a Mulan XML label file; 2: an ARFF table, or CSV when bit 2 is set, split
 * into features and its last column as the label, then 3 rules learned from
 * it), the rest is the file.
 * Whatever is read is freed. */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "rules.h"
#include "table.h"

/* Predict 4 examples with the model: values below, between and above
 * thresholds, and missing. */
static void predict_with(const es_rules_model_t *m)
{
    static const float vals[4] = {-1.0f, 0.5f, NAN, 2.0f};
    es_rules_data_t d;
    memset(&d, 0, sizeof d);
    d.n_ex = 4;
    d.n_feat = m->n_feat;
    d.n_lab = m->n_lab;
    if (m->n_feat > 100000 || m->n_lab > 100000) return;
    d.x = malloc((size_t)4 * m->n_feat * sizeof *d.x);
    double *s = malloc((size_t)4 * m->n_lab * sizeof *s);
    if (d.x && s) {
        for (size_t k = 0; k < (size_t)4 * m->n_feat; k++) d.x[k] = vals[k % 4];
        es_rules_predict_scores(m, &d, s);
    }
    free(d.x);
    free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    es_log_set_level(ES_LOG_QUIET);
    switch (data[0] % 3) {
    case 0: {
        const char *path = fz_path(0, "m.model");
        fz_write(path, data + 1, size - 1);
        es_rules_model_t m;
        if (es_rules_model_read(path, &m) == ES_OK) {
            predict_with(&m);
            es_rules_model_free(&m);
        }
        break;
    }
    case 1: {
        const char *path = fz_path(0, "l.xml");
        fz_write(path, data + 1, size - 1);
        char **names;
        uint32_t n;
        if (es_mulan_labels_read(path, &names, &n) == ES_OK) {
            for (uint32_t k = 0; k < n; k++) free(names[k]);
            free(names);
        }
        break;
    }
    default: {
        const char *path = fz_path(0, data[0] & 4 ? "t.csv" : "t.arff");
        fz_write(path, data + 1, size - 1);
        es_ntable_t t;
        es_rules_data_t d;
        if (es_ntable_read(path, &t)) break;
        /* the last column is the label */
        char last[16];
        snprintf(last, sizeof last, "%u", t.n_cols);
        if (t.n_rows <= 2000 && t.n_cols <= 64 &&
            !es_rules_data_from_table(&t, path, NULL, 0, NULL, last, NULL, 0, NULL, 0, &d)) {
            es_rules_opt_t o;
            es_rules_model_t m;
            es_rules_opt_init(&o);
            o.max_rules = 4;
            o.threads = 1;
            if (es_rules_train(&d, &o, &m) == ES_OK) es_rules_model_free(&m);
            es_rules_data_free(&d);
        }
        es_ntable_free(&t);
        break;
    }
    }
    return 0;
}
