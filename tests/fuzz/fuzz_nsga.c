/* fuzz_nsga.c -- the inputs of epistream nsga: byte 0 bit 0 picks the
 * feature-list reader (a name a line, or a .select.tsv) or a table read as
 * NSGA-II data (bits 1-2: the objective, knn, nc or kmeans; bits 3-4: 2 to 5
 * folds); a table that reads is then evaluated with every feature and with
 * the first half, on the CPU's scalar and SIMD kernels, which must agree.
 * The rest of the input is the file. */
#include <math.h>

#include "fuzz.h"
#include "nsga.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const char *path = fz_path(0, (data[0] & 1) ? "t.csv" : "f.select.tsv");
    fz_write(path, data + 1, size - 1);
    if (!(data[0] & 1)) {
        char **names = NULL;
        uint32_t n = 0;
        if (es_nsga_read_names(path, &names, &n) == ES_OK) {
            for (uint32_t k = 0; k < n; k++) free(names[k]);
            free(names);
        }
        return 0;
    }
    es_nsga_opt_t o;
    es_nsga_opt_init(&o);
    o.obj = (es_nsga_obj_t)((data[0] >> 1) & 3);
    if (o.obj == ES_NSGA_ZDT1) o.obj = ES_NSGA_KNN;
    es_nsga_load_opt_t lo;
    memset(&lo, 0, sizeof lo);
    lo.folds = o.obj == ES_NSGA_KMEANS ? 0 : 2 + ((data[0] >> 3) & 3);
    lo.no_class = o.obj == ES_NSGA_KMEANS;
    es_nsga_data_t d;
    if (es_nsga_data_from_table(path, &lo, &d) != ES_OK) return 0;
    o.clusters = d.n < 3 ? d.n : 3;
    o.knn_k = 3;
    if (d.p <= 4096 && es_nsga_opt_check(&o, &d) == ES_OK) {
        uint32_t words = (d.p + 63) / 64, init[3] = {0, d.n / 2, d.n - 1};
        uint64_t *m = calloc(words, 8);
        for (int half = 0; m && half < 2; half++) {
            for (uint32_t f = 0; f < d.p; f++)
                if (!half || f < (d.p + 1) / 2) m[f / 64] |= 1ull << (f % 64);
            double a[2], b[2];
            if (es_nsga_eval_one(&d, &o, m, init, 0, a) == ES_OK &&
                es_nsga_eval_one(&d, &o, m, init, 1, b) == ES_OK &&
                memcmp(a, b, sizeof a) && !(isnan(a[0]) && isnan(b[0])))
                abort(); /* the kernels disagree */
            memset(m, 0, words * 8);
        }
        free(m);
    }
    es_nsga_data_free(&d);
    return 0;
}
