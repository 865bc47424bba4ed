/* test_gpu_mi.c -- feature selection with the counting on a GPU
 * (es_mi_select_opt() with device 0) against the CPU selection (device -1),
 * which tests/test_mi.c checks against a brute force.  Skips with 77 where no
 * CUDA device is visible; always compiled.
 *
 * For all seven methods, in double and in fixed-point mode, the picks, scores
 * and relevances bit for bit (memcmp): the device adds every candidate's
 * terms in the CPU's order (ES_GPU_MI_ROWS, _TOUCH, _GROUPS), so even the
 * double sums are the same; on tables that send the rounds down every GPU
 * path and every order:
 *  - genotype-like (2 classes, 3 or 4 states, state 3 "missing" in some
 *    features only, one monomorphic feature, one with 4 declared states and
 *    no missing call), N = 1,237 and 3,001: the automatic path, the pair
 *    engine forced with each kernel (wgmma only where the device has it), and
 *    the histogram kernels forced; and N = 7, 13 and 27, where the CPU's
 *    tables are sparser than the samples and add their cells in the order
 *    the samples first touch them;
 *  - 128 states, 10 classes: dense tables of 128 x 128 x 10 cells (in global
 *    memory, first-touch order; mRMR's 128 x 128 in cell order);
 *  - 300 and 2,000 states (16-bit states), a few 3-state and constant
 *    features, 3 classes;
 *  - CondMI on 70,001 samples of 20-state features until the joint state of
 *    the selected features times the classes passes 60,000 (the grouped
 *    kernel); a state with more than 65,535 samples (beyond the n log n table);
 *  - a 40,000-state feature that every method picks first, so that later
 *    rounds condition on 80,000 cells (grouped) or 40,000 (mRMR: dense, many
 *    passes);
 *  - tables that travel packed at 1, 2, 4, 8 and 16 bits a value, odd N,
 *    over several staging buffers (chunks that end inside a feature and
 *    inside a byte's worth of values), CondMI's later rounds on joint states
 *    most of which hold one sample;
 * and: two GPU runs are bit-identical; forcing the pair engine on a table
 * that does not qualify is ES_ERR_ARG; a value at or above its feature's
 * states is ES_ERR_ARG as on the CPU; a device that does not exist fails.
 *
 * Data: seeded splitmix64 (tests/testutil.h), class signal of different
 * strength per feature and copies of a neighbour in part of the samples, so
 * the picks are free of near-ties and the whole program is deterministic. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "select.h"
#include "gpu.h"
#include "testutil.h"


static const es_mi_method_t methods[] = {ES_MI_MRMR, ES_MI_JMI,    ES_MI_DISR, ES_MI_CMIM,
                                         ES_MI_ICAP, ES_MI_CONDMI, ES_MI_MIM};
#define N_METHODS (sizeof methods / sizeof *methods)
static const char *const path_names[] = {"auto", "hist", "pairs"};
static const char *const kernel_names[] = {"auto", "wgmma", "mma", "popc"};
static int have_wgmma; /* an sm_90 device and sm_90a code: set in main */

/* ---- tables ------------------------------------------------------------------ */


static uint16_t *X(const es_dtable_t *d, uint32_t f) { return d->x + (size_t)f * d->n_samples; }

/* Genotypes of 2 classes (45 % cases): feature f has a minor-allele
 * frequency of 5-50 %; every fourth is more frequent in cases (by 3-22
 * points); every fifth copies feature f-1 in 30-80 % of the samples; every
 * third has 0.1-4 % missing calls (state 3), three times as many in cases
 * when f is a multiple of 7.  n_states: 4 where a call is missing (and for
 * feature 10, which has none), else 3.  Feature 2 is monomorphic. */
static void genotype_table(es_dtable_t *d, uint32_t n, uint32_t nf, uint64_t seed)
{
    tu_dtable_init(d, n, nf, 2);
    uint64_t r = seed;
    for (uint32_t s = 0; s < n; s++) d->y[s] = tu_randn(&r, 100) < 45;
    for (uint32_t f = 0; f < nf; f++) {
        uint16_t *x = X(d, f);
        uint32_t maf = 5 + tu_randn(&r, 46);
        uint32_t effect = f % 4 == 0 ? 3 + tu_randn(&r, 20) : 0;
        uint32_t copy = f % 5 == 1 ? 30 + tu_randn(&r, 51) : 0;
        uint32_t miss = f % 3 == 0 ? 1 + tu_randn(&r, 40) : 0; /* per mille */
        uint32_t miss_case = f % 7 == 0 ? 3 : 1;
        uint16_t top = 0;
        for (uint32_t s = 0; s < n; s++) {
            uint32_t p = maf + (d->y[s] ? effect : 0);
            uint16_t g = (uint16_t)((tu_randn(&r, 100) < p) + (tu_randn(&r, 100) < p));
            if (copy && tu_randn(&r, 100) < copy) g = X(d, f - 1)[s];
            if (miss && tu_randn(&r, 1000) < miss * (d->y[s] ? miss_case : 1)) g = 3;
            if (f == 2) g = 0;
            x[s] = g;
            top = g > top ? g : top;
        }
        d->n_states[f] = top == 3 || f == 10 ? 4 : 3;
    }
}

/* Feature f has ns[f] states: a triangular value (sum of two uniforms),
 * replaced in a share of the samples (different for every feature) by a
 * value that depends on the class when f % 3 == 0, and by feature f-1's
 * state when f % 4 == 1 (redundancy).  y uniform over nc classes. */
static void shaped_table(es_dtable_t *d, uint32_t n, uint32_t nf, uint32_t nc, const uint32_t *ns,
                         uint64_t seed)
{
    tu_dtable_init(d, n, nf, nc);
    uint64_t r = seed;
    for (uint32_t s = 0; s < n; s++) d->y[s] = (uint16_t)tu_randn(&r, nc);
    for (uint32_t f = 0; f < nf; f++) {
        uint32_t k = ns[f], half = k / 2 + 1;
        uint32_t share = 5 + tu_randn(&r, 60); /* percent */
        uint16_t *x = X(d, f);
        d->n_states[f] = k;
        for (uint32_t s = 0; s < n; s++) {
            uint32_t v = tu_randn(&r, half) + tu_randn(&r, half);
            if (tu_randn(&r, 100) < share) {
                if (f % 3 == 0) v = d->y[s] * (k / nc + 1) + tu_randn(&r, k / nc + 1);
                else if (f % 4 == 1) v = X(d, f - 1)[s];
            }
            x[s] = (uint16_t)(v % k);
        }
    }
}

/* 20-state features of 2 classes: uniform, or in a share of 2-32 % of the
 * samples (different for every feature) a state from the class's half;
 * every fifth copies feature f-1 in 40 % of the samples; feature 3 is 0 in
 * 98 % of the samples (more than 65,535 of 70,001).  Feature `wide`
 * (UINT32_MAX: none) has 40,000 states, [0, 26,000) in class 0 and
 * [14,000, 40,000) in class 1: the most relevant feature by far. */
static void twenty_table(es_dtable_t *d, uint32_t n, uint32_t nf, uint32_t wide, uint64_t seed)
{
    tu_dtable_init(d, n, nf, 2);
    uint64_t r = seed;
    for (uint32_t s = 0; s < n; s++) d->y[s] = (uint16_t)tu_randn(&r, 2);
    for (uint32_t f = 0; f < nf; f++) {
        uint32_t share = 2 + tu_randn(&r, 31);
        uint16_t *x = X(d, f);
        d->n_states[f] = f == wide ? 40000 : 20;
        for (uint32_t s = 0; s < n; s++) {
            uint32_t v = tu_randn(&r, 20);
            if (f == wide) v = d->y[s] * 14000 + tu_randn(&r, 26000);
            else if (f == 3) v = tu_randn(&r, 100) < 98 ? 0 : v;
            else if (tu_randn(&r, 100) < share) v = d->y[s] * 10 + tu_randn(&r, 10);
            else if (f % 5 == 1 && f - 1 != wide && tu_randn(&r, 100) < 40) v = X(d, f - 1)[s];
            x[s] = (uint16_t)v;
        }
    }
}

/* ---- selections ------------------------------------------------------------------ */

typedef struct {
    es_mi_pick_t *p;
    uint32_t n;
} sel_t;

static int run_sel(const es_dtable_t *d, es_mi_method_t m, uint32_t k, int device, int fixed,
                   int path, int kernel, sel_t *s, es_mi_info_t *info)
{
    es_mi_opt_t o;
    es_mi_opt_init(&o);
    o.device = device;
    o.fixed_point = fixed;
    o.gpu_path = path;
    o.gpu_kernel = kernel;
    s->p = calloc(k + 1, sizeof *s->p);
    assert_non_null(s->p);
    s->n = UINT32_MAX;
    return es_mi_select_opt(d, m, k, &o, s->p, &s->n, info);
}

/* Every pick, score and relevance bit for bit. */
static void same_picks(const sel_t *want, const sel_t *got, const char *what)
{
    if (got->n != want->n) fail_msg("%s: %u picks, CPU %u", what, got->n, want->n);
    for (uint32_t i = 0; i < got->n; i++) {
        const es_mi_pick_t *a = &want->p[i], *b = &got->p[i];
        if (a->feature != b->feature)
            fail_msg("%s: pick %u is feature %u (score %.17g), CPU %u (%.17g)", what, i + 1,
                     b->feature, b->score, a->feature, a->score);
        int ok = !memcmp(&a->score, &b->score, sizeof a->score) &&
                 !memcmp(&a->relevance, &b->relevance, sizeof a->relevance);
        if (!ok)
            fail_msg("%s: pick %u (feature %u): score %.17g relevance %.17g (%a %a), "
                     "CPU %.17g %.17g (%a %a)",
                     what, i + 1, a->feature, b->score, b->relevance, b->score, b->relevance,
                     a->score, a->relevance, a->score, a->relevance);
    }
}

/* The CPU's selections of a table, every method, double [0] and fixed point [1]. */
typedef struct {
    const es_dtable_t *d;
    uint32_t k;
    char name[64];
    sel_t cpu[N_METHODS][2];
} ref_t;

static void ref_make(ref_t *r, const es_dtable_t *d, uint32_t k, const char *name)
{
    r->d = d;
    r->k = k;
    snprintf(r->name, sizeof r->name, "%s", name);
    for (size_t m = 0; m < N_METHODS; m++) {
        for (int fixed = 0; fixed < 2; fixed++) {
            es_mi_info_t info;
            memset(&info, 0, sizeof info);
            int ret = run_sel(d, methods[m], k, -1, fixed, ES_MI_GPU_AUTO, ES_GPU_KERNEL_AUTO,
                              &r->cpu[m][fixed], &info);
            if (ret != ES_OK)
                fail_msg("%s, %s, CPU: %s", name, es_mi_method_name(methods[m]), es_strerror(ret));
            if (strncmp(info.where, "cpu", 3) != 0)
                fail_msg("%s: the CPU selection ran on '%s'", name, info.where);
        }
    }
}

static void ref_free(ref_t *r)
{
    for (size_t m = 0; m < N_METHODS; m++)
        for (int fixed = 0; fixed < 2; fixed++) free(r->cpu[m][fixed].p);
}

/* Every method, double and fixed point, on device 0 with this path and
 * kernel, against the CPU.  The pair engine does not do CondMI: forced, it
 * refuses (ES_ERR_ARG). */
static void check_gpu(const ref_t *r, int path, int kernel)
{
    for (size_t m = 0; m < N_METHODS; m++) {
        for (int fixed = 0; fixed < 2; fixed++) {
            char what[256];
            snprintf(what, sizeof what, "%s, %s, %s, path %s, kernel %s", r->name,
                     es_mi_method_name(methods[m]), fixed ? "fixed point" : "double",
                     path_names[path], kernel_names[kernel]);
            sel_t got;
            es_mi_info_t info;
            memset(&info, 0, sizeof info);
            int ret = run_sel(r->d, methods[m], r->k, 0, fixed, path, kernel, &got, &info);
            if (ret == ES_ERR_UNSUPPORTED && kernel == ES_GPU_KERNEL_WGMMA && !have_wgmma) {
                free(got.p);
                return; /* no wgmma here: the combination is skipped */
            }
            if (path == ES_MI_GPU_PAIRS && methods[m] == ES_MI_CONDMI) {
                if (ret != ES_ERR_ARG) fail_msg("%s: %s, not refused", what, es_strerror(ret));
                free(got.p);
                continue;
            }
            if (ret != ES_OK) fail_msg("%s: %s", what, es_strerror(ret));
            if (strncmp(info.where, "gpu", 3) != 0) fail_msg("%s: ran on '%s'", what, info.where);
            if (!(info.seconds_gpu >= 0.0)) fail_msg("%s: %g GPU seconds", what, info.seconds_gpu);
            same_picks(&r->cpu[m][fixed], &got, what);
            free(got.p);
        }
    }
}

/* Two runs on device 0 give the same bytes (double mode: the order of the
 * device's sums is fixed). */
static void check_repeat(const es_dtable_t *d, uint32_t k, int path, const char *name)
{
    for (size_t m = 0; m < N_METHODS; m++) {
        char what[160];
        snprintf(what, sizeof what, "%s, %s, path %s, run twice", name,
                 es_mi_method_name(methods[m]), path_names[path]);
        sel_t a, b;
        int ra = run_sel(d, methods[m], k, 0, 0, path, ES_GPU_KERNEL_AUTO, &a, NULL);
        int rb = run_sel(d, methods[m], k, 0, 0, path, ES_GPU_KERNEL_AUTO, &b, NULL);
        if (path == ES_MI_GPU_PAIRS && methods[m] == ES_MI_CONDMI) {
            free(a.p);
            free(b.p);
            continue; /* refused: check_gpu() */
        }
        if (ra != ES_OK || rb != ES_OK)
            fail_msg("%s: %s, %s", what, es_strerror(ra), es_strerror(rb));
        same_picks(&a, &b, what);
        free(a.p);
        free(b.p);
    }
}

/* The number of distinct joint states of features f[0 .. nf-1]. */
static uint32_t joint_states(const es_dtable_t *d, const es_mi_pick_t *f, uint32_t nf)
{
    uint32_t n = d->n_samples, *z = calloc(n, sizeof *z), nz = 1;
    uint32_t *lab = NULL;
    assert_non_null(z);
    for (uint32_t i = 0; i < nf; i++) {
        uint32_t ns = d->n_states[f[i].feature];
        const uint16_t *x = X(d, f[i].feature);
        size_t cells = (size_t)nz * ns;
        free(lab);
        lab = malloc(cells * sizeof *lab);
        assert_non_null(lab);
        memset(lab, 0xff, cells * sizeof *lab);
        uint32_t next = 0;
        for (uint32_t s = 0; s < n; s++) {
            uint32_t *l = &lab[(size_t)z[s] * ns + x[s]];
            if (*l == UINT32_MAX) *l = next++;
            z[s] = *l;
        }
        nz = next;
    }
    free(lab);
    free(z);
    return nz;
}

/* ---- tests ------------------------------------------------------------------------ */

static void genotype_case(uint32_t n, uint32_t nf, uint64_t seed)
{
    es_dtable_t d;
    genotype_table(&d, n, nf, seed);
    d.y[0] = 0; /* both classes, however few the samples (the pair engine needs them) */
    d.y[1] = 1;
    char name[64];
    snprintf(name, sizeof name, "genotypes N=%u", n);
    ref_t r;
    ref_make(&r, &d, nf < 20 ? nf / 2 : 20, name);
    check_gpu(&r, ES_MI_GPU_AUTO, ES_GPU_KERNEL_AUTO);
    check_gpu(&r, ES_MI_GPU_HIST, ES_GPU_KERNEL_AUTO);
    static const int kernels[] = {ES_GPU_KERNEL_AUTO, ES_GPU_KERNEL_WGMMA, ES_GPU_KERNEL_MMA,
                                  ES_GPU_KERNEL_POPC};
    for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++)
        check_gpu(&r, ES_MI_GPU_PAIRS, kernels[k]);
    ref_free(&r);
    es_dtable_free(&d);
}

static void test_genotypes(void **state)
{
    (void)state;
    genotype_case(1237, 150, 21);
    genotype_case(3001, 150, 22);
    /* tables sparser than the samples */
    genotype_case(7, 12, 23);
    genotype_case(13, 12, 24);
    genotype_case(27, 16, 25);
}

static void test_128_states_10_classes(void **state)
{
    (void)state;
    uint32_t ns[60];
    for (uint32_t f = 0; f < 60; f++) ns[f] = 128;
    es_dtable_t d;
    shaped_table(&d, 5003, 60, 10, ns, 31);
    ref_t r;
    ref_make(&r, &d, 15, "128 states, 10 classes");
    check_gpu(&r, ES_MI_GPU_AUTO, ES_GPU_KERNEL_AUTO);
    ref_free(&r);
    es_dtable_free(&d);
}

static void test_wide_states(void **state)
{
    (void)state;
    uint32_t ns[40];
    for (uint32_t f = 0; f < 40; f++)
        ns[f] = f == 5 || f == 19 || f == 33 ? 1 : f % 7 == 3 ? 3 : f % 2 ? 2000 : 300;
    es_dtable_t d;
    shaped_table(&d, 4099, 40, 3, ns, 41);
    ref_t r;
    ref_make(&r, &d, 12, "300 and 2,000 states");
    check_gpu(&r, ES_MI_GPU_AUTO, ES_GPU_KERNEL_AUTO);
    ref_free(&r);
    es_dtable_free(&d);
}

static void test_condmi_grouped(void **state)
{
    (void)state;
    es_dtable_t d;
    twenty_table(&d, 70001, 24, UINT32_MAX, 51);
    ref_t r;
    ref_make(&r, &d, 7, "CondMI, N=70,001, 20 states");
    /* the test reaches what it is for: the last round conditions on more
     * than 60,000 states x classes */
    const sel_t *c = &r.cpu[5][0];
    assert_int_equal(methods[5], ES_MI_CONDMI);
    if (c->n < 2 || (uint64_t)joint_states(&d, c->p, c->n - 1) * d.n_classes <= 60000)
        fail_msg("test data: CondMI made %u picks, the last round on %u joint states", c->n,
                 c->n > 1 ? joint_states(&d, c->p, c->n - 1) : 1);
    check_gpu(&r, ES_MI_GPU_AUTO, ES_GPU_KERNEL_AUTO);
    ref_free(&r);
    es_dtable_free(&d);
}

static void test_wide_feature_first(void **state)
{
    (void)state;
    es_dtable_t d;
    twenty_table(&d, 50021, 20, 7, 61);
    ref_t r;
    ref_make(&r, &d, 6, "a 40,000-state feature");
    for (size_t m = 0; m < N_METHODS; m++)
        if (r.cpu[m][0].p[0].feature != 7) fail_msg("test data: feature 7 is not the first pick");
    check_gpu(&r, ES_MI_GPU_AUTO, ES_GPU_KERNEL_AUTO);
    ref_free(&r);
    es_dtable_free(&d);
}

static void test_repeat(void **state)
{
    (void)state;
    es_dtable_t d;
    genotype_table(&d, 3001, 150, 71);
    check_repeat(&d, 20, ES_MI_GPU_PAIRS, "genotypes");
    check_repeat(&d, 20, ES_MI_GPU_HIST, "genotypes");
    es_dtable_free(&d);
    uint32_t ns[40];
    for (uint32_t f = 0; f < 40; f++) ns[f] = f % 2 ? 128 : 700;
    shaped_table(&d, 4001, 40, 4, ns, 72);
    check_repeat(&d, 10, ES_MI_GPU_AUTO, "128 and 700 states");
    es_dtable_free(&d);
}

/* The upload packs a table in the fewest bits its states need; the
 * staging buffers hold 2 MiB, so the larger tables go up in 2 or 3 chunks. */
static void test_packed(void **state)
{
    (void)state;
    static const struct {
        uint32_t n, nf, nc, states, k;
    } sets[] = {
        {1001, 40, 2, 2, 10},   /* 1 bit a value */
        {999, 40, 3, 4, 10},    /* 2 bits */
        {3001, 3000, 2, 10, 8}, /* 4 bits, 4.5 MB */
        {2999, 800, 2, 200, 6}, /* 8 bits, 2.4 MB */
        {1201, 1000, 3, 300, 6} /* 16 bits, 2.4 MB */
    };
    for (size_t i = 0; i < sizeof sets / sizeof *sets; i++) {
        uint32_t *ns = malloc(sets[i].nf * sizeof *ns);
        assert_non_null(ns);
        for (uint32_t f = 0; f < sets[i].nf; f++) ns[f] = f % 5 == 2 ? 1 + f % sets[i].states : sets[i].states;
        es_dtable_t d;
        shaped_table(&d, sets[i].n, sets[i].nf, sets[i].nc, ns, 91 + i);
        char name[64];
        snprintf(name, sizeof name, "%u states, N=%u, %u features", sets[i].states, sets[i].n, sets[i].nf);
        ref_t r;
        ref_make(&r, &d, sets[i].k, name);
        check_gpu(&r, ES_MI_GPU_HIST, ES_GPU_KERNEL_AUTO);
        ref_free(&r);
        if (sets[i].states == 10) {
            /* a state out of range, in the last chunk */
            X(&d, 2900)[1234] = 10;
            sel_t s;
            es_log_set_level(ES_LOG_QUIET);
            for (int dev = -1; dev <= 0; dev++) {
                int ret = run_sel(&d, ES_MI_MIM, 5, dev, 0, ES_MI_GPU_HIST, ES_GPU_KERNEL_AUTO, &s, NULL);
                if (ret != ES_ERR_ARG) fail_msg("a state out of range on device %d: %s", dev, es_strerror(ret));
                free(s.p);
            }
            es_log_set_level(ES_LOG_ERROR);
        }
        es_dtable_free(&d);
        free(ns);
    }
}

static void test_refused(void **state)
{
    (void)state;
    uint32_t ns[10];
    for (uint32_t f = 0; f < 10; f++) ns[f] = 3;
    es_dtable_t d;
    shaped_table(&d, 500, 10, 10, ns, 81);
    sel_t s;
    es_log_set_level(ES_LOG_QUIET);
    /* the pair engine counts two classes of at most 4 states */
    assert_int_equal(run_sel(&d, ES_MI_JMI, 5, 0, 0, ES_MI_GPU_PAIRS, ES_GPU_KERNEL_AUTO, &s, NULL),
                     ES_ERR_ARG);
    free(s.p);
    es_dtable_free(&d);
    ns[4] = 5;
    shaped_table(&d, 500, 10, 2, ns, 82);
    assert_int_equal(run_sel(&d, ES_MI_JMI, 5, 0, 0, ES_MI_GPU_PAIRS, ES_GPU_KERNEL_AUTO, &s, NULL),
                     ES_ERR_ARG);
    free(s.p);
    /* a device that does not exist */
    int n_dev = 0;
    assert_int_equal(es_gpu_device_count(&n_dev), ES_OK);
    int ret = run_sel(&d, ES_MI_JMI, 5, n_dev, 0, ES_MI_GPU_HIST, ES_GPU_KERNEL_AUTO, &s, NULL);
    if (ret >= 0) fail_msg("device %d of %d: %d", n_dev, n_dev, ret);
    free(s.p);
    es_log_set_level(ES_LOG_ERROR);
    es_dtable_free(&d);
}

int main(void)
{
    int skip = tu_gpu_probe(&have_wgmma);
    if (skip) return skip;
    es_log_set_level(ES_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_genotypes),
        cmocka_unit_test(test_128_states_10_classes),
        cmocka_unit_test(test_wide_states),
        cmocka_unit_test(test_condmi_grouped),
        cmocka_unit_test(test_wide_feature_first),
        cmocka_unit_test(test_repeat),
        cmocka_unit_test(test_packed),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
