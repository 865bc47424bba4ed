/* test_gpu_rules.c -- the rule learner's GPU split search against the CPU's:
 * models trained on random data (repeated values, negative values, zeros,
 * missing values; many chunks per feature, more labels than a label tile,
 * several feature slices) with --device cpu and --device gpu are the same
 * bytes, for complete and single-label heads, both losses, instance, feature
 * and label sampling and a holdout set.  The GPU picks its candidate from sums
 * added in another order than the CPU's, so the data must have no near-ties
 * between the two best candidates; on this data there are none, and the
 * model files are compared byte for byte.  float32 scoring: the rules that
 * differ from float64's are counted (printed, not asserted).  Exits 77 (skip)
 * where no GPU is visible or CUDA is not built. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpu.h"
#include "rules.h"
#include "rules_synth.h"
#include "backend.h" /* testutil.h's scan helpers need it */
#include "testutil.h"

/* The model file's bytes (free them). */
static char *model_bytes(const es_rules_model_t *m, size_t *len)
{
    char *buf = NULL;
    FILE *fp = open_memstream(&buf, len);
    assert_non_null(fp);
    assert_int_equal(es_rules_model_write(m, fp), ES_OK);
    fclose(fp);
    return buf;
}

/* Train on the CPU and on the GPU with options o; assert the same bytes. */
static void same_model(const es_rules_data_t *d, es_rules_opt_t o, const char *what)
{
    es_rules_model_t mc, mg;
    o.device = ES_RULES_DEV_CPU;
    assert_int_equal(es_rules_train(d, &o, &mc), ES_OK);
    o.device = ES_RULES_DEV_GPU;
    assert_int_equal(es_rules_train(d, &o, &mg), ES_OK);
    assert_true(mg.on_gpu);
    size_t lc, lg;
    char *bc = model_bytes(&mc, &lc), *bg = model_bytes(&mg, &lg);
    printf("%s: %u rules, %s\n", what, mc.n_rules + 1, lc == lg && !memcmp(bc, bg, lc) ? "same bytes" : "DIFFER");
    if (lc != lg || memcmp(bc, bg, lc)) {
        for (uint32_t r = 0; r < mc.n_rules && r < mg.n_rules; r++) {
            const es_rules_rule_t *a = &mc.rule[r], *b = &mg.rule[r];
            if (a->n_cond != b->n_cond || memcmp(a->cond, b->cond, a->n_cond * sizeof *a->cond)) {
                printf("  first different rule: %u (cpu %u conditions, gpu %u; first: f%u op %u %.9g vs "
                       "f%u op %u %.9g)\n", r + 1, a->n_cond, b->n_cond, a->cond[0].feat, a->cond[0].op,
                       (double)a->cond[0].thr, b->cond[0].feat, b->cond[0].op, (double)b->cond[0].thr);
                break;
            }
        }
    }
    assert_int_equal(lc, lg);
    assert_memory_equal(bc, bg, lc);
    free(bc);
    free(bg);
    es_rules_model_free(&mc);
    es_rules_model_free(&mg);
}

static void test_complete(void **state)
{
    (void)state;
    es_rules_data_t d;
    assert_int_equal(rs_make(&d, 1500, 12, 6, 0.0, 11), 0);
    es_rules_opt_t o;
    es_rules_opt_init(&o);
    o.max_rules = 40;
    o.feat_samp = ES_RULES_FS_NONE;
    same_model(&d, o, "complete, logistic, no missing");
    o.threads = 1;
    o.loss = ES_RULES_LOSS_SQUARED_ERROR;
    same_model(&d, o, "complete, squared error");
    es_rules_data_free(&d);
}

static void test_single(void **state)
{
    (void)state;
    es_rules_data_t d;
    assert_int_equal(rs_make(&d, 1200, 10, 5, 0.05, 12), 0);
    es_rules_opt_t o;
    es_rules_opt_init(&o);
    o.max_rules = 40;
    o.head = ES_RULES_HEAD_SINGLE;
    o.feat_samp = ES_RULES_FS_NONE;
    same_model(&d, o, "single, missing values");
    es_rules_data_free(&d);
}

static void test_sampling(void **state)
{
    (void)state;
    es_rules_data_t d;
    assert_int_equal(rs_make(&d, 2000, 16, 7, 0.03, 13), 0);
    es_rules_opt_t o;
    es_rules_opt_init(&o);
    o.max_rules = 40;
    o.inst_samp = ES_RULES_IS_WITH;
    same_model(&d, o, "complete, feature sampling, bagging, missing");
    o.inst_samp = ES_RULES_IS_WITHOUT;
    o.label_samp = ES_RULES_LS_WITHOUT;
    o.label_max_samples = 3;
    same_model(&d, o, "complete, label sampling, subsampling");
    o.label_samp = ES_RULES_LS_NONE;
    o.inst_samp = ES_RULES_IS_NONE;
    o.holdout = 0.3;
    o.max_rules = 30;
    same_model(&d, o, "complete, holdout");
    es_rules_data_free(&d);
}

/* more labels than a label tile (128), several chunks, several feature slices */
static void test_wide(void **state)
{
    (void)state;
    es_rules_data_t d;
    assert_int_equal(rs_make(&d, 700, 9, 150, 0.02, 14), 0);
    es_rules_opt_t o;
    es_rules_opt_init(&o);
    o.max_rules = 15;
    o.feat_samp = ES_RULES_FS_NONE;
    same_model(&d, o, "150 labels, complete");
    setenv("EPISTREAM_RULES_GPU_SLICE", "1", 1); /* the smallest budget: one feature a slice */
    o.head = ES_RULES_HEAD_SINGLE;
    same_model(&d, o, "150 labels, single, a slice per feature");
    unsetenv("EPISTREAM_RULES_GPU_SLICE");
    es_rules_data_free(&d);
}

/* float32 scoring: how many rules differ from float64's (printed) */
static void test_float32(void **state)
{
    (void)state;
    es_rules_data_t d;
    assert_int_equal(rs_make(&d, 3000, 20, 10, 0.0, 15), 0);
    es_rules_opt_t o;
    es_rules_opt_init(&o);
    o.max_rules = 50;
    o.feat_samp = ES_RULES_FS_NONE;
    o.device = ES_RULES_DEV_GPU;
    es_rules_model_t m64, m32;
    assert_int_equal(es_rules_train(&d, &o, &m64), ES_OK);
    o.gpu_float32 = 1;
    assert_int_equal(es_rules_train(&d, &o, &m32), ES_OK);
    uint32_t diff = 0, first = 0;
    for (uint32_t r = 0; r < m64.n_rules && r < m32.n_rules; r++) {
        const es_rules_rule_t *a = &m64.rule[r], *b = &m32.rule[r];
        int same = a->n_cond == b->n_cond && !memcmp(a->cond, b->cond, a->n_cond * sizeof *a->cond);
        if (!same && !diff) first = r + 1;
        diff += !same;
    }
    printf("float32: %u of %u rules with other conditions than float64's (first: rule %u)\n", diff,
           m64.n_rules, first);
    es_rules_model_free(&m64);
    es_rules_model_free(&m32);
    es_rules_data_free(&d);
}

int main(void)
{
    int skip = tu_gpu_none();
    if (skip) return skip;
    es_log_set_level(ES_LOG_ERROR);
    /* RULES_GPU_TEST: run the tests matching this pattern only (compute-sanitizer runs) */
    if (getenv("RULES_GPU_TEST")) cmocka_set_test_filter(getenv("RULES_GPU_TEST"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_complete), cmocka_unit_test(test_single), cmocka_unit_test(test_sampling),
        cmocka_unit_test(test_wide),     cmocka_unit_test(test_float32),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
