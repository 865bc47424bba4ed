/* nsga_eval.c -- the fitness of given masks, for the oracle test
 * (tests/nsga_oracle.sh compares it with scikit-learn and numpy).
 *
 *   nsga_eval TABLE OBJ PARAM MASKS [INIT...]
 *
 * OBJ knn|nc|kmeans; PARAM k of k-NN (knn), K-means iterations (kmeans);
 * MASKS one mask a line as 0/1 characters; INIT the K-means initial
 * centroids (0-based samples; their number is K).  Prints "FOLDS f..." (each
 * sample's fold, input order; classifiers), then per mask "F1 F2" with 17
 * significant digits.  Exits 1 when the scalar and the SIMD kernel differ. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsga.h"

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: nsga_eval TABLE knn|nc|kmeans PARAM MASKS [INIT...]\n");
        return 2;
    }
    es_nsga_opt_t o;
    es_nsga_opt_init(&o);
    if (es_nsga_obj_parse(argv[2], &o.obj)) return 2;
    es_nsga_load_opt_t lo = {0};
    lo.folds = o.obj == ES_NSGA_KMEANS ? 0 : 5;
    lo.no_class = o.obj == ES_NSGA_KMEANS;
    if (o.obj == ES_NSGA_KNN) o.knn_k = (uint32_t)atoi(argv[3]);
    else o.kmeans_iter = (uint32_t)atoi(argv[3]);
    uint32_t init[64], k = 0;
    for (int a = 5; a < argc && k < 64; a++) init[k++] = (uint32_t)atoi(argv[a]);
    if (k) o.clusters = k;
    es_nsga_data_t d;
    if (es_nsga_data_from_table(argv[1], &lo, &d)) return 1;
    if (es_nsga_opt_check(&o, &d)) return 1;
    if (d.n_folds) {
        uint32_t *fold = malloc(d.n * sizeof *fold);
        for (uint32_t g = 0; g < d.n_folds; g++)
            for (uint32_t j = d.fold_off[g]; j < d.fold_off[g] + d.fold_n[g]; j++) fold[d.orig[j]] = g;
        printf("FOLDS");
        for (uint32_t s = 0; s < d.n; s++) printf(" %u", fold[s]);
        printf("\n");
        free(fold);
    }
    FILE *fp = fopen(argv[4], "r");
    if (!fp) return 1;
    char line[70000];
    uint32_t words = (d.p + 63) / 64;
    uint64_t *m = calloc(words, 8);
    int rc = 0;
    while (fgets(line, sizeof line, fp)) {
        memset(m, 0, words * 8);
        for (uint32_t f = 0; f < d.p && line[f] >= '0'; f++)
            if (line[f] == '1') m[f >> 6] |= 1ull << (f & 63);
        double a[2], b[2];
        if (es_nsga_eval_one(&d, &o, m, k ? init : NULL, 0, a) ||
            es_nsga_eval_one(&d, &o, m, k ? init : NULL, 1, b))
            return 1;
        if (memcmp(a, b, sizeof a)) {
            fprintf(stderr, "scalar %.17g %.17g != simd %.17g %.17g\n", a[0], a[1], b[0], b[1]);
            rc = 1;
        }
        printf("%.17g %.17g\n", a[0], a[1]);
    }
    fclose(fp);
    free(m);
    es_nsga_data_free(&d);
    return rc;
}
