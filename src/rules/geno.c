/* geno.c -- genotypes as a rule learner's table: the variants' codes (copies of
 * A1, 0/1/2; a missing call a missing value) as features and case/control
 * phenotypes as 0/1 labels, one row per sample in the analysis. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "rules_internal.h"

#define derror(...) es_log(ES_LOG_ERROR, "es_rules_genotypes", __VA_ARGS__)

int es_rules_table_from_genotypes(const es_dataset_t *ds, const uint32_t *var, uint32_t n_var,
                                  const char *pheno, int coding01, char *const *lab,
                                  uint32_t n_lab, int lab_default, es_ntable_t *t,
                                  uint32_t **rows, uint32_t *n_dropped)
{
    uint32_t n_all = es_dataset_n_samples_total(ds), nl = lab_default ? 1 : n_lab, n = 0;
    int ret = ES_OK;
    int8_t *st = NULL;
    uint8_t *g = NULL, *ok = NULL;
    memset(t, 0, sizeof *t);
    *rows = NULL;
    *n_dropped = 0;
    if (!(ok = malloc(n_all ? n_all : 1)) || !(g = malloc(n_all ? n_all : 1)) ||
        (nl && !(st = malloc((size_t)nl * (n_all ? n_all : 1))))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t s = 0; s < n_all; s++) ok[s] = (uint8_t)es_dataset_sample_used(ds, s);
    for (uint32_t l = 0; l < nl; l++) {
        int8_t *sl = st + (size_t)l * n_all;
        if (lab_default) memcpy(sl, ds->status, n_all);
        else if ((ret = es_pheno_read_coded(pheno, lab[l], coding01, ds->plink, sl))) goto out;
    }
    for (uint32_t s = 0; s < n_all; s++) {
        if (!ok[s]) continue;
        for (uint32_t l = 0; l < nl && ok[s]; l++)
            if (st[(size_t)l * n_all + s] < 0) {
                ok[s] = 0;
                ++*n_dropped;
            }
        n += ok[s];
    }
    if (!n) {
        if (lab_default)
            derror("no sample in the analysis has a case/control phenotype (the label 'pheno'): "
                   "give --pheno FILE (a VCF has none; .fam column 6 may be all missing)");
        else
            derror("no sample in the analysis has every label (%s)", pheno ? pheno : "no --pheno");
        ret = ES_ERR_DATA;
        goto out;
    }
    uint32_t nc = n_var + nl;
    t->n_rows = n;
    t->n_cols = nc;
    if (!(*rows = malloc((size_t)n * sizeof **rows)) ||
        !(t->v = malloc((size_t)n * nc * sizeof *t->v)) ||
        !(t->names = calloc(nc, sizeof *t->names)) || !(t->kind = calloc(nc, sizeof *t->kind)) ||
        !(t->n_values = calloc(nc, sizeof *t->n_values)) ||
        !(t->values = calloc(nc, sizeof *t->values))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t s = 0, i = 0; s < n_all; s++)
        if (ok[s]) (*rows)[i++] = s;
    for (uint32_t f = 0; f < n_var; f++) {
        const char *id = es_dataset_variant(ds, var[f]).id;
        for (uint32_t l = 0; l < n_lab && !lab_default; l++)
            if (!strcmp(id, lab[l])) {
                derror("label '%s' is also the ID of a feature variant: rename the phenotype column",
                       lab[l]);
                ret = ES_ERR_DATA;
                goto out;
            }
        if (!(t->names[f] = strdup(id))) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
        if ((ret = es_dataset_decode(ds, var[f], g))) goto out;
        float *col = t->v + (size_t)f * n;
        for (uint32_t i = 0; i < n; i++) {
            uint8_t c = g[(*rows)[i]];
            col[i] = c < 3 ? (float)c : NAN;
        }
    }
    for (uint32_t l = 0; l < nl; l++) {
        if (!(t->names[n_var + l] = strdup(lab_default ? "pheno" : lab[l]))) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
        float *col = t->v + (size_t)(n_var + l) * n;
        const int8_t *sl = st + (size_t)l * n_all;
        for (uint32_t i = 0; i < n; i++) col[i] = (float)sl[(*rows)[i]];
    }
out:
    if (ret == ES_ERR_NOMEM) derror("out of memory for the genotype table");
    if (ret) {
        es_ntable_free(t);
        free(*rows);
        *rows = NULL;
    }
    free(st);
    free(g);
    free(ok);
    return ret;
}
