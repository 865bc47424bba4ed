/* bench_rules_gpu.c -- the rule learner's split search on a GPU against the
 * CPU path, on a large synthetic set (tests/rules_synth.h; exact split
 * search, no feature sampling, complete heads, the logistic loss), same run.
 * Prints a table: device, host threads, the fixed cost (a run of the default
 * rule alone: presorting, the default rule, opening the GPU), rules, fit
 * seconds, seconds per rule net of the fixed cost, conditions per rule, the
 * GPU's speed-up per rule over that row (the GPU row above it learned the
 * same rules) and whether the GPU's model is the CPU's byte for byte; then
 * the float32 rules that differ from float64's.
 *
 *   bench_rules_gpu [N F L] [CPU1_RULES CPUT_RULES GPU_RULES THREADS]
 *   (defaults 100000 500 100, 2 5 50 16: the 1-thread CPU learns only a few
 *   rules, its time per rule is compared)
 *   bench_rules_gpu --arff PREFIX N F L
 *   writes the same data as PREFIX.arff and PREFIX.xml (Mulan), for
 *   mlrl-boomer (tests/bench/rules_mlrl.py) and `epistream rules train`. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"
#include "../rules_synth.h"
#include "model_bytes.h"

/* train with o; @return the fit seconds, the model in *m */
static double fit(const es_rules_data_t *d, const es_rules_opt_t *o, es_rules_model_t *m)
{
    double t0 = es_time_now();
    if (es_rules_train(d, o, m)) {
        fprintf(stderr, "bench_rules_gpu: training failed\n");
        exit(1);
    }
    return es_time_now() - t0;
}

static int same(const es_rules_model_t *a, const es_rules_model_t *b)
{
    size_t la, lb;
    char *x = bench_model_bytes(a, &la), *y = bench_model_bytes(b, &lb);
    int r = la == lb && !memcmp(x, y, la);
    free(x);
    free(y);
    return r;
}

/* The data as ARFF (features, then the labels as {0,1}) and its Mulan XML. */
static int write_arff(const char *prefix, uint32_t n, uint32_t F, uint32_t L)
{
    es_rules_data_t d;
    char path[4096];
    if (rs_make(&d, n, F, L, 0.0, 2026)) return 1;
    snprintf(path, sizeof path, "%s.arff", prefix);
    FILE *fp = fopen(path, "w");
    if (!fp) return 1;
    fprintf(fp, "@relation synth\n");
    for (uint32_t f = 0; f < F; f++) fprintf(fp, "@attribute %s numeric\n", d.feat_name[f]);
    for (uint32_t l = 0; l < L; l++) fprintf(fp, "@attribute %s {0,1}\n", d.lab_name[l]);
    fprintf(fp, "@data\n");
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t f = 0; f < F; f++) fprintf(fp, "%.9g,", (double)d.x[(size_t)f * n + i]);
        for (uint32_t l = 0; l < L; l++) fprintf(fp, "%u%c", d.y[(size_t)i * L + l], l + 1 < L ? ',' : '\n');
    }
    if (fclose(fp)) return 1;
    snprintf(path, sizeof path, "%s.xml", prefix);
    if (!(fp = fopen(path, "w"))) return 1;
    fprintf(fp, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<labels xmlns=\"http://mulan.sourceforge.net/labels\">\n");
    for (uint32_t l = 0; l < L; l++) fprintf(fp, "<label name=\"%s\"></label>\n", d.lab_name[l]);
    fprintf(fp, "</labels>\n");
    es_rules_data_free(&d);
    return fclose(fp) ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 6 && !strcmp(argv[1], "--arff"))
        return write_arff(argv[2], (uint32_t)atol(argv[3]), (uint32_t)atol(argv[4]), (uint32_t)atol(argv[5]));
    uint32_t n = argc > 3 ? (uint32_t)atol(argv[1]) : 100000, F = argc > 3 ? (uint32_t)atol(argv[2]) : 500,
             L = argc > 3 ? (uint32_t)atol(argv[3]) : 100;
    uint32_t r1 = argc > 7 ? (uint32_t)atol(argv[4]) : 2, rt = argc > 7 ? (uint32_t)atol(argv[5]) : 5,
             rg = argc > 7 ? (uint32_t)atol(argv[6]) : 50;
    int nt = argc > 7 ? atoi(argv[7]) : 16;
    es_log_set_level(ES_LOG_WARN);
    es_rules_data_t d;
    double t0 = es_time_now();
    if (rs_make(&d, n, F, L, 0.0, 2026)) return 1;
    printf("# %u examples x %u features x %u labels (made in %.1f s); exact split search, feature "
           "sampling none, complete heads, logistic loss\n", n, F, L, es_time_now() - t0);
    es_rules_opt_t o;
    es_rules_opt_init(&o);
    o.feat_samp = ES_RULES_FS_NONE;
    /* the fixed cost (presorting, the default rule, opening the GPU) is a run of the
       default rule alone; a run's time per rule is net of it */
    struct { const char *dev; int threads, gpu, f32; } cf[] = {
        {"cpu", 1, 0, 0}, {"cpu", nt, 0, 0}, {"gpu", nt, 1, 0}, {"gpu-f32", nt, 1, 1}};
    double setup[4];
    for (int k = 0; k < 4; k++) {
        es_rules_model_t m;
        o.max_rules = 1;
        o.threads = cf[k].threads;
        o.device = cf[k].gpu ? ES_RULES_DEV_GPU : ES_RULES_DEV_CPU;
        o.gpu_float32 = cf[k].f32;
        setup[k] = fit(&d, &o, &m);
        es_rules_model_free(&m);
    }
    printf("%-8s %7s %8s %5s %9s %10s %9s %8s %s\n", "device", "threads", "setup_s", "rules", "fit_s",
           "s_per_rule", "cond_avg", "gpu_x", "model");
    /* rows: (config, rules after the default rule); the GPU row before each CPU row learns
       the same rules */
    struct { int cf; uint32_t rules; } run[] = {{2, r1}, {0, r1}, {2, rt}, {1, rt}, {2, rg}, {3, rg}};
    es_rules_model_t m[6];
    double per[6];
    for (int k = 0; k < 6; k++) {
        int c = run[k].cf;
        o.max_rules = run[k].rules + 1;
        o.threads = cf[c].threads;
        o.device = cf[c].gpu ? ES_RULES_DEV_GPU : ES_RULES_DEV_CPU;
        o.gpu_float32 = cf[c].f32;
        double s = fit(&d, &o, &m[k]);
        uint32_t nr = m[k].n_rules ? m[k].n_rules : 1, nc = 0;
        for (uint32_t r = 0; r < m[k].n_rules; r++) nc += m[k].rule[r].n_cond;
        per[k] = (s - setup[c]) / (double)nr;
        char sp[32] = "", eq[32] = "";
        if (!cf[c].gpu) {
            snprintf(sp, sizeof sp, "%.1fx", per[k] / per[k - 1]);
            snprintf(eq, sizeof eq, "%s", same(&m[k], &m[k - 1]) ? "same bytes as gpu" : "DIFFERS from gpu");
        }
        printf("%-8s %7d %8.2f %5u %9.2f %10.4f %9.2f %8s %s\n", cf[c].dev, cf[c].threads, setup[c],
               m[k].n_rules + 1, s, per[k], (double)nc / nr, sp, eq);
        fflush(stdout);
    }
    uint32_t diff = 0, first = 0;
    for (uint32_t r = 0; r < m[4].n_rules && r < m[5].n_rules; r++) {
        const es_rules_rule_t *x = &m[4].rule[r], *y = &m[5].rule[r];
        int eqr = x->n_cond == y->n_cond && !memcmp(x->cond, y->cond, x->n_cond * sizeof *x->cond);
        if (!eqr && !diff) first = r + 1;
        diff += !eqr;
    }
    printf("# float32: %u of %u rules with conditions other than float64's (the first: rule %u); "
           "float32 %.2fx float64's time per rule\n", diff, m[4].n_rules, first, per[5] / per[4]);
    for (int k = 0; k < 6; k++) es_rules_model_free(&m[k]);
    es_rules_data_free(&d);
    return 0;
}
