/* refine.c -- what `select` and `scan --refine` share: the table of a scan's
 * surviving variants (one feature per variant, the class case/control), the
 * selection over a table written as .select.tsv lines, the selection's lines
 * of a PREFIX.log, and the device a selection runs on.  Both commands call
 * these, so a refinement in the same run and a selection afterwards build the
 * same table and write the same bytes. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "select.h"

int es_select_pair_variants(const es_dataset_t *ds, const es_pair_t *pairs, size_t n_pairs,
                            uint32_t **var, uint32_t *n_var)
{
    uint32_t nv = es_dataset_n_variants(ds), n = 0;
    uint8_t *mark = calloc(nv ? nv : 1, 1);
    *var = NULL;
    *n_var = 0;
    if (!mark) return ES_ERR_NOMEM;
    for (size_t k = 0; k < n_pairs; k++) {
        if (pairs[k].i < nv) mark[pairs[k].i] = 1;
        if (pairs[k].j < nv) mark[pairs[k].j] = 1;
    }
    for (uint32_t v = 0; v < nv; v++) n += mark[v];
    uint32_t *out = malloc((n ? n : 1) * sizeof *out);
    if (!out) {
        free(mark);
        return ES_ERR_NOMEM;
    }
    n = 0;
    for (uint32_t v = 0; v < nv; v++)
        if (mark[v]) out[n++] = v;
    free(mark);
    *var = out;
    *n_var = n;
    return ES_OK;
}

/* Feature names go in a tab-separated column: tabs and line breaks (possible
 * in quoted CSV headers) become spaces. */
static void put_name(FILE *fp, const char *s)
{
    for (; *s; s++) fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, fp);
}

int es_select_device(es_device_t dev, uint64_t gpu_mask)
{
    if (dev == ES_DEVICE_CPU) return -1;
    /* auto: decided when the table is known (es_mi_select_opt) */
    if (dev == ES_DEVICE_AUTO) return es_backend_gpu_count() > 0 ? ES_MI_DEVICE_AUTO : -1;
    /* the lowest GPU asked for; one that is not there is the selection's error */
    int g = 0;
    while (g < 64 && !(gpu_mask >> g & 1)) g++;
    if (g == 64) g = 0;
    /* open it while the input is read */
    const es_backend_t *be = es_backend_get(ES_DEVICE_GPU);
    if (be && be->prepare) be->prepare(g);
    return g;
}

int es_select_table(const es_dtable_t *d, es_mi_method_t m, uint32_t k, const es_select_opt_t *so,
                    FILE *fp, es_select_info_t *info)
{
    uint32_t kk = k < d->n_features ? k : d->n_features, n = 0, n2 = 0;
    double t0 = es_time_now();
    int ret = ES_OK;
    es_mi_info_t mi, mi2;
    memset(&mi, 0, sizeof mi);
    memset(&mi2, 0, sizeof mi2);
    if (k > d->n_features)
        es_warn("--k %u but there are only %u features: selecting %s", k, d->n_features,
                d->n_features ? "all of them" : "none");
    es_mi_pick_t *pick = malloc((kk ? kk : 1) * sizeof *pick);
    es_mi_pick_t *pick2 = so->fixed_point ? malloc((kk ? kk : 1) * sizeof *pick2) : NULL;
    if (!pick || (so->fixed_point && !pick2)) {
        free(pick);
        return ES_ERR_NOMEM;
    }
    if (kk && (ret = es_mi_select_opt(d, m, kk, so, pick, &n, &mi))) goto out;
    if (kk && so->fixed_point) {
        /* the same selection with double entropies, for the agreement */
        es_select_opt_t o2 = *so;
        o2.fixed_point = 0;
        if ((ret = es_mi_select_opt(d, m, kk, &o2, pick2, &n2, &mi2))) goto out;
        uint32_t pre, com;
        es_mi_agreement(pick, n, pick2, n2, &pre, &com);
        es_info("fixed point vs double: the first %u of %u picks agree, %u features in common",
                pre, n, com);
        if (info) {
            info->agree_prefix = pre;
            info->agree_common = com;
            info->n_double = n2;
        }
    }
    es_info("%s counted on %s", es_mi_method_name(m), mi.where);
    if (n < kk)
        es_info("%s stopped after %u of %u features: no candidate adds information",
                es_mi_method_name(m), n, kk);
    fputs("RANK\tFEATURE\tSCORE\tRELEVANCE\n", fp);
    for (uint32_t r = 0; r < n; r++) {
        const char *name = d->names && d->names[pick[r].feature] ? d->names[pick[r].feature] : "";
        fprintf(fp, "%u\t", r + 1);
        if (*name) put_name(fp, name);
        else fprintf(fp, "f%u", pick[r].feature + 1);
        /* + 0.0: no "-0" in the file */
        fprintf(fp, "\t%.12g\t%.12g\n", pick[r].score + 0.0, pick[r].relevance + 0.0);
    }
    if (ferror(fp)) ret = ES_ERR_IO;
    if (info) {
        info->n_samples = d->n_samples;
        info->n_features = d->n_features;
        info->n_classes = d->n_classes;
        info->n_selected = n;
        info->seconds += es_time_now() - t0;
        snprintf(info->where, sizeof info->where, "%s", mi.where);
        info->seconds_gpu = mi.seconds_gpu;
        info->fixed_point = so->fixed_point;
    }
out:
    free(pick);
    free(pick2);
    return ret;
}

/* One feature per variant over the samples in the analysis. */
static int variants_dtable(const es_dataset_t *ds, const uint32_t *var, uint32_t n_var,
                           int threads, es_dtable_t *d)
{
    uint32_t n_all = es_dataset_n_samples_total(ds), n = 0;
    uint32_t *used = malloc((n_all ? n_all : 1) * sizeof *used);
    int ret = ES_OK, fail = 0;
    memset(d, 0, sizeof *d);
    if (!used) return ES_ERR_NOMEM;
    for (uint32_t s = 0; s < n_all; s++)
        if (es_dataset_sample_used(ds, s)) used[n++] = s;
    d->n_samples = n;
    d->n_features = n_var;
    d->n_classes = 2;
    size_t cells = (size_t)n_var * n;
    d->x = malloc((cells ? cells : 1) * sizeof *d->x);
    d->n_states = malloc((n_var ? n_var : 1) * sizeof *d->n_states);
    d->y = malloc((n ? n : 1) * sizeof *d->y);
    d->names = calloc(n_var ? n_var : 1, sizeof *d->names);
    d->class_name = strdup("phenotype");
    if (!d->x || !d->n_states || !d->y || !d->names || !d->class_name) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < n; i++) d->y[i] = ds->status[used[i]] == 1; /* case = 1 */
    for (uint32_t f = 0; f < n_var; f++)
        if (!(d->names[f] = strdup(es_dataset_variant(ds, var[f]).id))) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
    int nt = threads;
#ifdef _OPENMP
    if (nt <= 0) nt = omp_get_max_threads();
#endif
    if (nt <= 0) nt = 1;
#pragma omp parallel num_threads(nt)
    {
        uint8_t *g = malloc(n_all ? n_all : 1);
        if (!g) {
#pragma omp atomic write
            fail = 1;
        }
#pragma omp for schedule(dynamic, 16)
        for (uint32_t f = 0; f < n_var; f++) {
            if (!g || es_dataset_decode(ds, var[f], g) != ES_OK) {
#pragma omp atomic write
                fail = 1;
                continue;
            }
            uint16_t *x = d->x + (size_t)f * n;
            uint32_t miss = 0;
            for (uint32_t i = 0; i < n; i++) {
                x[i] = g[used[i]]; /* 0, 1, 2 copies of A1; 3 missing */
                miss |= x[i] == 3;
            }
            d->n_states[f] = 3 + miss;
        }
        free(g);
    }
    if (fail) ret = ES_ERR_NOMEM;
out:
    free(used);
    if (ret) es_dtable_free(d);
    return ret;
}

int es_select_variants(const es_dataset_t *ds, const uint32_t *var, uint32_t n_var,
                       es_mi_method_t m, uint32_t k, const es_select_opt_t *so, FILE *fp,
                       es_select_info_t *info)
{
    es_dtable_t d;
    double t0 = es_time_now();
    int ret = variants_dtable(ds, var, n_var, so->threads, &d);
    if (ret) return ret;
    if (info) info->seconds = es_time_now() - t0;
    ret = es_select_table(&d, m, k, so, fp, info);
    es_dtable_free(&d);
    return ret;
}

void es_select_write_log(FILE *fp, es_mi_method_t m, uint32_t k, const es_select_info_t *info)
{
    fprintf(fp, "select_method\t%s\n", es_mi_method_name(m));
    fprintf(fp, "select_k\t%u\n", k);
    fprintf(fp, "select_samples\t%u\n", info->n_samples);
    fprintf(fp, "select_features\t%u\n", info->n_features);
    fprintf(fp, "select_classes\t%u\n", info->n_classes);
    fprintf(fp, "selected\t%u\n", info->n_selected);
    fprintf(fp, "select_device\t%s\n", info->where);
    if (info->where[0] == 'g') fprintf(fp, "seconds_select_gpu\t%.3f\n", info->seconds_gpu);
    fprintf(fp, "select_entropy\t%s\n", info->fixed_point ? "fixed-point Q5.11" : "double");
    if (info->fixed_point)
        fprintf(fp, "fixed_point_agreement\t%u of %u picks equal from rank 1 (double: %u picks, "
                    "%u features in common)\n",
                info->agree_prefix, info->n_selected, info->n_double, info->agree_common);
    fprintf(fp, "seconds_select\t%.3f\n", info->seconds);
}
