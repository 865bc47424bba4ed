/* test_mi.c -- mutual-information feature selection (src/mi_select.c).
 *
 * Expected values are computed here, independently of mi_select.c: a brute
 * force that recomputes every candidate's score from scratch each round with
 * per-cell plug-in formulas (I(A;B) = sum p(a,b) log2 [p(a,b)/(p(a)p(b))],
 * conditional MI and joint entropies likewise), the FEAST rules of
 * doc/SELECTION.md, and closed forms on hand-built tables:
 *   - XOR: y = x0 xor x1, neither alone informative; each method's second pick
 *     and score follow from the definitions (JMI 1 bit, DISR 1/2, CondMI 1 bit
 *     then stop, CMIM/ICAP 0 with the tie going to the lowest index);
 *   - duplicates: ties go to the lowest index in the first and later rounds;
 *   - random tables of several shapes (few states, hundreds of states so the
 *     grouped counting path runs, many classes) for every method;
 *   - CondMI stops when nothing adds information; k > n_features; one sample;
 *     one feature; constant data (DISR's 0/0); invalid tables are refused;
 *   - picks and scores are bit-identical with 1 and 3 threads;
 *   - es_mi_agreement() on lists that agree, differ at a rank, are disjoint
 *     or differ in length; es_mi_select_opt() on the CPU: its defaults, the
 *     bits of es_mi_select(), fixed point bit-identical across thread counts
 *     and close to the double values.
 * tests/oracle_mi.sh compares with a numpy reference and pymrmr. */
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

#define TIE_REL 1e-10

#define CHECK_CLOSE(got, want)                                                                     \
    do {                                                                                           \
        double g_ = (got), w_ = (want);                                                            \
        double d_ = fabs(g_ - w_), m_ = fabs(w_) > fabs(g_) ? fabs(w_) : fabs(g_);                 \
        if (!(d_ <= 1e-9 * m_ + 1e-12)) {                                                          \
            print_error("%s = %.17g, expected %.17g (diff %.3g)\n", #got, g_, w_, d_);             \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

/* ---- a table built in the test --------------------------------------------- */


static uint16_t *X(es_dtable_t *d, uint32_t f) { return d->x + (size_t)f * d->n_samples; }

/* Random table: feature f has states[f % n_shapes] states; some features are
 * noisy functions of y or of an earlier feature, so there is something to find. */
static void table_random(es_dtable_t *d, uint32_t n, uint32_t nf, uint32_t nc, const uint32_t *shapes,
                         uint32_t n_shapes, uint64_t seed)
{
    tu_dtable_init(d, n, nf, nc);
    uint64_t r = seed;
    for (uint32_t s = 0; s < n; s++) d->y[s] = (uint16_t)tu_randn(&r, nc);
    for (uint32_t f = 0; f < nf; f++) {
        uint32_t ns = shapes[f % n_shapes];
        d->n_states[f] = ns;
        uint16_t *x = X(d, f);
        uint32_t mode = tu_randn(&r, 3);
        uint32_t noise = 1 + tu_randn(&r, 4); /* 1..4: chance 1/(noise+1) of the signal */
        for (uint32_t s = 0; s < n; s++) {
            uint32_t v = tu_randn(&r, ns);
            if (tu_randn(&r, noise + 1) == 0) {
                if (mode == 0) v = (d->y[s] * 7u + tu_randn(&r, 2)) % ns;
                else if (mode == 1 && f > 0) v = (X(d, f - 1)[s] + d->y[s]) % ns;
            }
            x[s] = (uint16_t)v;
        }
    }
}

/* ---- brute-force information measures, per cell ----------------------------- */

static uint32_t max1(const uint32_t *v, uint32_t n);

/* Compact joint code of columns a and b: labels in order of first appearance.
 * out may alias neither input. */
static uint32_t joint(const uint32_t *a, const uint32_t *b, uint32_t n, uint32_t *out)
{
    uint32_t na = max1(a, n), nb = max1(b, n), nl = 0;
    uint32_t *lab = malloc((size_t)na * nb * sizeof *lab);
    assert_non_null(lab);
    memset(lab, 0xff, (size_t)na * nb * sizeof *lab);
    for (uint32_t s = 0; s < n; s++) {
        uint32_t *l = &lab[(size_t)a[s] * nb + b[s]];
        if (*l == UINT32_MAX) *l = nl++;
        out[s] = *l;
    }
    free(lab);
    return nl;
}

static uint32_t max1(const uint32_t *v, uint32_t n)
{
    uint32_t m = 0;
    for (uint32_t s = 0; s < n; s++) m = v[s] > m ? v[s] : m;
    return m + 1;
}

/* I(A;B) */
static double bf_mi(const uint32_t *a, const uint32_t *b, uint32_t n)
{
    uint32_t na = max1(a, n), nb = max1(b, n);
    double *pab = calloc((size_t)na * nb, sizeof *pab), *pa = calloc(na, sizeof *pa),
           *pb = calloc(nb, sizeof *pb);
    assert_true(pab && pa && pb);
    for (uint32_t s = 0; s < n; s++) {
        pab[(size_t)a[s] * nb + b[s]] += 1.0 / n;
        pa[a[s]] += 1.0 / n;
        pb[b[s]] += 1.0 / n;
    }
    double v = 0.0;
    for (uint32_t i = 0; i < na; i++)
        for (uint32_t j = 0; j < nb; j++) {
            double p = pab[(size_t)i * nb + j];
            if (p > 0) v += p * log2(p / (pa[i] * pb[j]));
        }
    free(pab);
    free(pa);
    free(pb);
    return v;
}

/* I(A;B|C) */
static double bf_cmi(const uint32_t *a, const uint32_t *b, const uint32_t *c, uint32_t n)
{
    uint32_t na = max1(a, n), nb = max1(b, n), nc = max1(c, n);
    size_t cells = (size_t)na * nb * nc;
    double *pabc = calloc(cells, sizeof *pabc), *pac = calloc((size_t)na * nc, sizeof *pac),
           *pbc = calloc((size_t)nb * nc, sizeof *pbc), *pc = calloc(nc, sizeof *pc);
    assert_true(pabc && pac && pbc && pc);
    for (uint32_t s = 0; s < n; s++) {
        pabc[((size_t)c[s] * na + a[s]) * nb + b[s]] += 1.0 / n;
        pac[(size_t)c[s] * na + a[s]] += 1.0 / n;
        pbc[(size_t)c[s] * nb + b[s]] += 1.0 / n;
        pc[c[s]] += 1.0 / n;
    }
    double v = 0.0;
    for (uint32_t k = 0; k < nc; k++)
        for (uint32_t i = 0; i < na; i++)
            for (uint32_t j = 0; j < nb; j++) {
                double p = pabc[((size_t)k * na + i) * nb + j];
                if (p > 0)
                    v += p * log2(pc[k] * p / (pac[(size_t)k * na + i] * pbc[(size_t)k * nb + j]));
            }
    free(pabc);
    free(pac);
    free(pbc);
    free(pc);
    return v;
}

/* H(A) of a compact code */
static double bf_h(const uint32_t *a, uint32_t n)
{
    uint32_t na = max1(a, n);
    double *p = calloc(na, sizeof *p), v = 0.0;
    assert_non_null(p);
    for (uint32_t s = 0; s < n; s++) p[a[s]] += 1.0 / n;
    for (uint32_t i = 0; i < na; i++)
        if (p[i] > 0) v -= p[i] * log2(p[i]);
    free(p);
    return v;
}

/* The FEAST loop, literally: every score recomputed from scratch each round. */
static uint32_t bf_select(const es_dtable_t *d, es_mi_method_t m, uint32_t k, es_mi_pick_t *out)
{
    uint32_t n = d->n_samples, nf = d->n_features;
    uint32_t *col = malloc((size_t)nf * n * sizeof *col), *y = malloc(n * sizeof *y);
    uint32_t *t1 = malloc(n * sizeof *t1), *t2 = malloc(n * sizeof *t2), *sj = malloc(n * sizeof *sj);
    double *rel = malloc(nf * sizeof *rel), *sc = malloc(nf * sizeof *sc);
    uint8_t *sel = calloc(nf, 1);
    uint32_t *S = malloc(nf * sizeof *S);
    assert_true(col && y && t1 && t2 && sj && rel && sc && sel && S);
    for (uint32_t s = 0; s < n; s++) y[s] = d->y[s];
    for (size_t i = 0; i < (size_t)nf * n; i++) col[i] = d->x[i];
    for (uint32_t f = 0; f < nf; f++) rel[f] = bf_mi(col + (size_t)f * n, y, n);
    if (k > nf) k = nf;
    uint32_t picked = 0;
    while (picked < k) {
        for (uint32_t f = 0; f < nf; f++) {
            if (sel[f]) continue;
            const uint32_t *xk = col + (size_t)f * n;
            double v = 0.0;
            if (picked == 0 || m == ES_MI_MIM) {
                v = rel[f];
            } else if (m == ES_MI_CONDMI) {
                memcpy(sj, col + (size_t)S[0] * n, n * sizeof *sj);
                for (uint32_t i = 1; i < picked; i++) {
                    joint(sj, col + (size_t)S[i] * n, n, t1);
                    memcpy(sj, t1, n * sizeof *sj);
                }
                v = bf_cmi(xk, y, sj, n);
            } else {
                double red = 0.0, mn = rel[f];
                for (uint32_t i = 0; i < picked; i++) {
                    const uint32_t *xj = col + (size_t)S[i] * n;
                    switch (m) {
                    case ES_MI_MRMR: red += bf_mi(xk, xj, n); break;
                    case ES_MI_JMI:
                        joint(xk, xj, n, t1);
                        red += bf_mi(t1, y, n);
                        break;
                    case ES_MI_DISR: {
                        joint(xk, xj, n, t1);
                        joint(t1, y, n, t2);
                        double h = bf_h(t2, n);
                        red += h > 0 ? bf_mi(t1, y, n) / h : 0.0;
                        break;
                    }
                    case ES_MI_CMIM: {
                        double c = bf_cmi(xk, y, xj, n);
                        mn = c < mn ? c : mn;
                        break;
                    }
                    case ES_MI_ICAP: {
                        double t = bf_mi(xk, xj, n) - bf_cmi(xk, xj, y, n);
                        red += t > 0 ? t : 0.0;
                        break;
                    }
                    default: break;
                    }
                }
                v = m == ES_MI_MRMR   ? rel[f] - red / picked
                    : m == ES_MI_CMIM ? mn
                    : m == ES_MI_ICAP ? rel[f] - red
                                      : red;
            }
            sc[f] = v;
        }
        double best = -INFINITY;
        for (uint32_t f = 0; f < nf; f++)
            if (!sel[f] && sc[f] > best) best = sc[f];
        uint32_t w = 0;
        double fl = best - TIE_REL * fmax(1.0, fabs(best));
        for (w = 0; w < nf; w++)
            if (!sel[w] && sc[w] >= fl) break;
        if (m == ES_MI_CONDMI && picked > 0 && !(best > TIE_REL)) break;
        out[picked].feature = w;
        out[picked].score = sc[w];
        out[picked].relevance = rel[w];
        sel[w] = 1;
        S[picked++] = w;
    }
    free(col);
    free(y);
    free(t1);
    free(t2);
    free(sj);
    free(rel);
    free(sc);
    free(sel);
    free(S);
    return picked;
}

static const es_mi_method_t all_methods[] = {ES_MI_MIM,  ES_MI_MRMR, ES_MI_JMI,   ES_MI_DISR,
                                             ES_MI_CMIM, ES_MI_ICAP, ES_MI_CONDMI};
#define N_METHODS (sizeof all_methods / sizeof *all_methods)

/* es_mi_select against the brute force: same picks, scores to 1e-9. */
static void compare_bf(const es_dtable_t *d, es_mi_method_t m, uint32_t k, int threads)
{
    es_mi_pick_t *got = calloc(k + 1, sizeof *got), *want = calloc(k + 1, sizeof *want);
    assert_true(got && want);
    uint32_t n_got = 99;
    assert_int_equal(es_mi_select(d, m, k, threads, got, &n_got), ES_OK);
    uint32_t n_want = bf_select(d, m, k, want);
    if (n_got != n_want)
        fail_msg("%s: %u picks, brute force %u", es_mi_method_name(m), n_got, n_want);
    for (uint32_t i = 0; i < n_got; i++) {
        if (got[i].feature != want[i].feature)
            fail_msg("%s: pick %u is feature %u (score %.17g), brute force %u (%.17g)",
                     es_mi_method_name(m), i + 1, got[i].feature, got[i].score, want[i].feature,
                     want[i].score);
        CHECK_CLOSE(got[i].score, want[i].score);
        CHECK_CLOSE(got[i].relevance, want[i].relevance);
    }
    free(got);
    free(want);
}

/* ---- tests --------------------------------------------------------------------- */

static void test_names(void **state)
{
    (void)state;
    for (unsigned i = 0; i < N_METHODS; i++) {
        es_mi_method_t m;
        assert_int_equal(es_mi_method_parse(es_mi_method_name(all_methods[i]), &m), ES_OK);
        assert_int_equal(m, all_methods[i]);
    }
    es_mi_method_t m;
    assert_int_equal(es_mi_method_parse("JMI", &m), ES_OK);
    assert_int_equal(m, ES_MI_JMI);
    es_log_set_level(ES_LOG_QUIET);
    assert_int_equal(es_mi_method_parse("mifs", &m), ES_ERR_ARG);
    assert_int_equal(es_mi_method_parse(NULL, &m), ES_ERR_ARG);
    es_log_set_level(ES_LOG_WARN);
    assert_string_equal(es_mi_method_name(ES_MI_CONDMI), "condmi");
}

/* y = x0 xor x1 (each pattern twice), x2 constant, x3 = x0. */
static void xor_table(es_dtable_t *d)
{
    tu_dtable_init(d, 8, 4, 2);
    for (uint32_t s = 0; s < 8; s++) {
        uint16_t a = (uint16_t)(s & 1), b = (uint16_t)((s >> 1) & 1);
        X(d, 0)[s] = a;
        X(d, 1)[s] = b;
        X(d, 2)[s] = 0;
        X(d, 3)[s] = a;
        d->y[s] = a ^ b;
    }
    d->n_states[0] = d->n_states[1] = d->n_states[3] = 2;
    d->n_states[2] = 1;
}

static void test_xor(void **state)
{
    (void)state;
    es_dtable_t d;
    xor_table(&d);
    es_mi_pick_t o[4];
    uint32_t n = 0;
    /* every I(X;Y) is 0: the first pick is feature 0 (lowest index), score 0 */
    /* JMI: I(x1 x0;Y) = 1 bit, I(x2 x0;Y) = I(x3 x0;Y) = 0 */
    assert_int_equal(es_mi_select(&d, ES_MI_JMI, 2, 1, o, &n), ES_OK);
    assert_int_equal(n, 2);
    assert_int_equal(o[0].feature, 0);
    CHECK_CLOSE(o[0].score, 0.0);
    assert_int_equal(o[1].feature, 1);
    CHECK_CLOSE(o[1].score, 1.0);
    CHECK_CLOSE(o[1].relevance, 0.0);
    /* DISR: I(x1 x0;Y) / H(x1 x0 Y) = 1 / 2 */
    assert_int_equal(es_mi_select(&d, ES_MI_DISR, 2, 1, o, &n), ES_OK);
    assert_int_equal(o[1].feature, 1);
    CHECK_CLOSE(o[1].score, 0.5);
    /* CondMI: I(x1;Y|x0) = 1, then nothing adds information: stops at 2 of 4 */
    assert_int_equal(es_mi_select(&d, ES_MI_CONDMI, 4, 1, o, &n), ES_OK);
    assert_int_equal(n, 2);
    assert_int_equal(o[1].feature, 1);
    CHECK_CLOSE(o[1].score, 1.0);
    /* CMIM: min(I(x1;Y) = 0, I(x1;Y|x0) = 1) = 0 = every score: lowest index */
    assert_int_equal(es_mi_select(&d, ES_MI_CMIM, 2, 1, o, &n), ES_OK);
    assert_int_equal(o[1].feature, 1);
    CHECK_CLOSE(o[1].score, 0.0);
    /* ICAP: x1: 0 - max(0, I(x1;x0) - I(x1;x0|Y)) = 0 - max(0, 0 - 1) = 0;
     * x2: 0; x3: 0 - max(0, 1 - 1) = 0: all tie, lowest index */
    assert_int_equal(es_mi_select(&d, ES_MI_ICAP, 4, 1, o, &n), ES_OK);
    assert_int_equal(n, 4);
    for (uint32_t i = 0; i < 4; i++) {
        assert_int_equal(o[i].feature, i);
        CHECK_CLOSE(o[i].score, 0.0);
    }
    /* mRMR: x1 0 - 0; x2 0 - 0; x3 0 - I(x3;x0) = -1: x1, then x2 (0 - 0/2), then x3 */
    assert_int_equal(es_mi_select(&d, ES_MI_MRMR, 4, 1, o, &n), ES_OK);
    assert_int_equal(o[1].feature, 1);
    assert_int_equal(o[2].feature, 2);
    assert_int_equal(o[3].feature, 3);
    CHECK_CLOSE(o[3].score, -1.0 / 3);
    for (unsigned i = 0; i < N_METHODS; i++) compare_bf(&d, all_methods[i], 4, 1);
    es_dtable_free(&d);
}

/* The best feature three times: at index 1, an identical copy at 3 and a
 * relabelled copy at 4 (same MI, computed from a differently ordered table).
 * Index 1 wins the first round; 3 and 4 tie with each other in later rounds
 * and 3 always comes first. */
static void test_ties_lowest_index(void **state)
{
    (void)state;
    es_dtable_t d;
    uint32_t n = 40;
    tu_dtable_init(&d, n, 5, 2);
    uint64_t r = 11;
    for (uint32_t s = 0; s < n; s++) {
        d.y[s] = (uint16_t)(s & 1);
        uint16_t noisy = (uint16_t)(s % 5 == 0 ? 1 - (s & 1) : (s & 1));
        X(&d, 0)[s] = (uint16_t)tu_randn(&r, 3);
        X(&d, 1)[s] = noisy;
        X(&d, 2)[s] = (uint16_t)tu_randn(&r, 2);
        X(&d, 3)[s] = noisy;
        X(&d, 4)[s] = (uint16_t)(1 - noisy); /* relabelled copy: the same MI */
    }
    d.n_states[0] = 3;
    d.n_states[1] = d.n_states[2] = d.n_states[3] = d.n_states[4] = 2;
    es_mi_pick_t o[5];
    uint32_t got = 0;
    assert_int_equal(es_mi_select(&d, ES_MI_MIM, 5, 1, o, &got), ES_OK);
    assert_int_equal(o[0].feature, 1);
    assert_int_equal(o[1].feature, 3);
    assert_int_equal(o[2].feature, 4);
    CHECK_CLOSE(o[1].score, o[0].score);
    /* a later-round tie: after 1, copies 3 and 4 have the same mRMR score */
    assert_int_equal(es_mi_select(&d, ES_MI_MRMR, 5, 1, o, &got), ES_OK);
    assert_int_equal(o[0].feature, 1);
    uint32_t pos3 = 9, pos4 = 9;
    for (uint32_t i = 1; i < got; i++) {
        if (o[i].feature == 3) pos3 = i;
        if (o[i].feature == 4) pos4 = i;
    }
    assert_true(pos3 < pos4);
    for (unsigned i = 0; i < N_METHODS; i++) compare_bf(&d, all_methods[i], 5, 1);
    es_dtable_free(&d);
}

static void test_random_vs_brute_force(void **state)
{
    (void)state;
    static const uint32_t few[] = {2, 3, 5, 8};
    static const uint32_t many[] = {300, 7, 450, 2};  /* grouped counting path */
    static const uint32_t wide[] = {1000, 1000, 3};   /* > 65,536 cells per pair */
    struct {
        uint32_t n, nf, nc, k;
        const uint32_t *shapes;
        uint32_t n_shapes;
    } cases[] = {
        {200, 12, 2, 8, few, 4},  {150, 10, 5, 6, few, 4}, {300, 8, 3, 6, many, 4},
        {120, 6, 2, 5, wide, 3},  {60, 9, 7, 9, few, 4},   {500, 6, 2, 6, few, 2},
    };
    for (unsigned c = 0; c < sizeof cases / sizeof *cases; c++) {
        es_dtable_t d;
        table_random(&d, cases[c].n, cases[c].nf, cases[c].nc, cases[c].shapes, cases[c].n_shapes,
                     1000 + c);
        for (unsigned i = 0; i < N_METHODS; i++) compare_bf(&d, all_methods[i], cases[c].k, 2);
        es_dtable_free(&d);
    }
}

/* More than 65,535 samples: counts beyond the n log n table, the sweeps that
 * branch on zero cells, and CondMI's joint state over many samples. */
static void test_many_samples(void **state)
{
    (void)state;
    static const uint32_t sh[] = {2, 5, 9, 300};
    es_dtable_t d;
    table_random(&d, 70001, 6, 3, sh, 4, 5);
    for (uint32_t s = 0; s < d.n_samples; s++) /* a state with > 65,535 samples */
        if (s % 20) X(&d, 4)[s] = 0;
    for (unsigned i = 0; i < N_METHODS; i++) compare_bf(&d, all_methods[i], 4, 2);
    es_dtable_free(&d);
}

static void test_k_larger_than_features(void **state)
{
    (void)state;
    static const uint32_t sh[] = {3, 4};
    es_dtable_t d;
    table_random(&d, 100, 5, 2, sh, 2, 7);
    es_mi_pick_t o[20];
    for (unsigned i = 0; i < N_METHODS; i++) {
        uint32_t n = 0;
        assert_int_equal(es_mi_select(&d, all_methods[i], 20, 0, o, &n), ES_OK);
        if (all_methods[i] == ES_MI_CONDMI) {
            assert_true(n >= 1 && n <= 5);
        } else {
            assert_int_equal(n, 5);
            uint32_t seen = 0;
            for (uint32_t j = 0; j < n; j++) seen |= 1u << o[j].feature;
            assert_int_equal(seen, 0x1f);
        }
        compare_bf(&d, all_methods[i], 20, 1);
    }
    uint32_t n = 7;
    assert_int_equal(es_mi_select(&d, ES_MI_JMI, 0, 1, NULL, &n), ES_OK);
    assert_int_equal(n, 0);
    es_dtable_free(&d);
}

static void test_one_sample_one_feature(void **state)
{
    (void)state;
    es_dtable_t d;
    /* one sample: every MI is 0, picks in index order, CondMI stops after one */
    tu_dtable_init(&d, 1, 3, 2);
    d.n_states[0] = 2;
    d.n_states[1] = 1;
    d.n_states[2] = 3;
    X(&d, 0)[0] = 1;
    X(&d, 2)[0] = 2;
    d.y[0] = 1;
    es_mi_pick_t o[3];
    for (unsigned i = 0; i < N_METHODS; i++) {
        uint32_t n = 0;
        assert_int_equal(es_mi_select(&d, all_methods[i], 3, 1, o, &n), ES_OK);
        assert_int_equal(n, all_methods[i] == ES_MI_CONDMI ? 1 : 3);
        for (uint32_t j = 0; j < n; j++) {
            assert_int_equal(o[j].feature, j);
            assert_true(o[j].score == 0.0 || fabs(o[j].score) < 1e-12);
            assert_true(fabs(o[j].relevance) < 1e-12);
        }
    }
    es_dtable_free(&d);
    /* one feature */
    tu_dtable_init(&d, 6, 1, 3);
    d.n_states[0] = 3;
    for (uint32_t s = 0; s < 6; s++) {
        X(&d, 0)[s] = (uint16_t)(s % 3);
        d.y[s] = (uint16_t)(s % 3);
    }
    for (unsigned i = 0; i < N_METHODS; i++) {
        uint32_t n = 0;
        assert_int_equal(es_mi_select(&d, all_methods[i], 4, 1, o, &n), ES_OK);
        assert_int_equal(n, 1);
        assert_int_equal(o[0].feature, 0);
        CHECK_CLOSE(o[0].score, log2(3.0));
        CHECK_CLOSE(o[0].relevance, log2(3.0));
    }
    es_dtable_free(&d);
}

/* Constant class and features: H(Xk Xj Y) = 0, DISR's terms are 0 (not NaN). */
static void test_constant_data(void **state)
{
    (void)state;
    es_dtable_t d;
    tu_dtable_init(&d, 10, 4, 1);
    for (uint32_t f = 0; f < 4; f++) d.n_states[f] = 2;
    es_mi_pick_t o[4];
    for (unsigned i = 0; i < N_METHODS; i++) {
        uint32_t n = 0;
        assert_int_equal(es_mi_select(&d, all_methods[i], 4, 1, o, &n), ES_OK);
        assert_int_equal(n, all_methods[i] == ES_MI_CONDMI ? 1 : 4);
        for (uint32_t j = 0; j < n; j++) {
            assert_int_equal(o[j].feature, j);
            assert_false(isnan(o[j].score));
            assert_true(fabs(o[j].score) < 1e-12);
        }
    }
    es_dtable_free(&d);
}

static void test_threads_bit_identical(void **state)
{
    (void)state;
    static const uint32_t sh[] = {4, 128, 2, 700, 9};
    es_dtable_t d;
    table_random(&d, 3000, 40, 3, sh, 5, 99);
    es_mi_pick_t a[15], b[15];
    for (unsigned i = 0; i < N_METHODS; i++) {
        uint32_t na = 0, nb = 0;
        assert_int_equal(es_mi_select(&d, all_methods[i], 15, 1, a, &na), ES_OK);
        assert_int_equal(es_mi_select(&d, all_methods[i], 15, 3, b, &nb), ES_OK);
        assert_int_equal(na, nb);
        for (uint32_t j = 0; j < na; j++) {
            assert_int_equal(a[j].feature, b[j].feature);
            assert_memory_equal(&a[j].score, &b[j].score, sizeof(double));
            assert_memory_equal(&a[j].relevance, &b[j].relevance, sizeof(double));
        }
    }
    es_dtable_free(&d);
}

static void test_invalid_tables(void **state)
{
    (void)state;
    es_dtable_t d;
    tu_dtable_init(&d, 4, 2, 2);
    d.n_states[0] = 2;
    d.n_states[1] = 2;
    X(&d, 1)[2] = 2; /* out of range */
    es_mi_pick_t o[2];
    uint32_t n = 5;
    es_log_set_level(ES_LOG_QUIET);
    assert_int_equal(es_mi_select(&d, ES_MI_MRMR, 2, 1, o, &n), ES_ERR_ARG);
    assert_int_equal(n, 0);
    X(&d, 1)[2] = 1;
    d.y[3] = 2; /* class out of range */
    assert_int_equal(es_mi_select(&d, ES_MI_MRMR, 2, 1, o, &n), ES_ERR_ARG);
    d.y[3] = 1;
    d.n_states[0] = 0;
    assert_int_equal(es_mi_select(&d, ES_MI_MRMR, 2, 1, o, &n), ES_ERR_ARG);
    d.n_states[0] = 2;
    assert_int_equal(es_mi_select(&d, (es_mi_method_t)42, 2, 1, o, &n), ES_ERR_ARG);
    assert_int_equal(es_mi_select(&d, ES_MI_MRMR, 2, -1, o, &n), ES_ERR_ARG);
    d.n_samples = 0;
    assert_int_equal(es_mi_select(&d, ES_MI_MRMR, 2, 1, o, &n), ES_ERR_DATA);
    d.n_samples = 4;
    es_log_set_level(ES_LOG_WARN);
    assert_int_equal(es_mi_select(&d, ES_MI_MRMR, 2, 1, o, &n), ES_OK);
    assert_int_equal(n, 2);
    es_dtable_free(&d);
    es_dtable_free(NULL);
}

/* The message names the feature, the state, the sample and the declared states. */
static void test_invalid_message(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    assert_non_null(dir);
    tu_capture_t cap = {.saved = -1};
    tu_cap_init(&cap, dir);
    es_dtable_t d;
    tu_dtable_init(&d, 4, 2, 2);
    d.n_states[0] = d.n_states[1] = 2;
    d.names = calloc(2, sizeof *d.names);
    d.names[0] = strdup("alpha");
    d.names[1] = strdup("beta");
    X(&d, 1)[2] = 7;
    es_mi_pick_t o[2];
    uint32_t n;
    tu_cap_start(&cap);
    assert_int_equal(es_mi_select(&d, ES_MI_JMI, 2, 1, o, &n), ES_ERR_ARG);
    const char *msg = tu_cap_stop(&cap);
    if (!strstr(msg, "feature 2 (beta)") || !strstr(msg, "state 7") || !strstr(msg, "sample 3") ||
        !strstr(msg, "2 states"))
        fail_msg("unhelpful message: %s", msg);
    es_dtable_free(&d); /* frees d.names too */
    tu_rmtree(dir);
    free(dir);
    // cppcheck-suppress memleak ; es_dtable_free released d.names
}

/* es_mi_agreement(): only the features count, rank by rank for the prefix
 * and as sets for the common part. */
static void test_agreement(void **state)
{
    (void)state;
    es_mi_pick_t a[6], b[6];
    memset(a, 0, sizeof a);
    for (uint32_t i = 0; i < 6; i++) {
        a[i].feature = 10 + 3 * i;
        a[i].score = 1.0 / (i + 1);
        a[i].relevance = 0.5;
    }
    uint32_t prefix = 99, common = 99;
    memcpy(b, a, sizeof a);
    es_mi_agreement(a, 6, b, 6, &prefix, &common);
    assert_int_equal(prefix, 6);
    assert_int_equal(common, 6);
    /* other scores, same features: the same agreement */
    for (uint32_t i = 0; i < 6; i++) {
        b[i].score = -b[i].score;
        b[i].relevance = 0.25;
    }
    es_mi_agreement(a, 6, b, 6, &prefix, &common);
    assert_int_equal(prefix, 6);
    assert_int_equal(common, 6);
    /* ranks 3 and 4 swapped */
    b[2].feature = a[3].feature;
    b[3].feature = a[2].feature;
    es_mi_agreement(a, 6, b, 6, &prefix, &common);
    assert_int_equal(prefix, 2);
    assert_int_equal(common, 6);
    /* reversed: no common prefix, every feature in both */
    for (uint32_t i = 0; i < 6; i++) b[i].feature = a[5 - i].feature;
    es_mi_agreement(a, 6, b, 6, &prefix, &common);
    assert_int_equal(prefix, 0);
    assert_int_equal(common, 6);
    /* disjoint */
    for (uint32_t i = 0; i < 6; i++) b[i].feature = 11 + 3 * i;
    es_mi_agreement(a, 6, b, 6, &prefix, &common);
    assert_int_equal(prefix, 0);
    assert_int_equal(common, 0);
    /* different lengths: the shorter list is a prefix of the longer */
    es_mi_agreement(a, 6, a, 4, &prefix, &common);
    assert_int_equal(prefix, 4);
    assert_int_equal(common, 4);
    es_mi_agreement(a, 3, a, 6, &prefix, &common);
    assert_int_equal(prefix, 3);
    assert_int_equal(common, 3);
    /* different lengths and a rank that differs: b = a0 a5 a2 a3 */
    memcpy(b, a, sizeof a);
    b[1].feature = a[5].feature;
    es_mi_agreement(a, 6, b, 4, &prefix, &common);
    assert_int_equal(prefix, 1);
    assert_int_equal(common, 4);
    es_mi_agreement(b, 4, a, 2, &prefix, &common);
    assert_int_equal(prefix, 1);
    assert_int_equal(common, 1);
    /* empty lists */
    es_mi_agreement(a, 0, b, 4, &prefix, &common);
    assert_int_equal(prefix, 0);
    assert_int_equal(common, 0);
    es_mi_agreement(NULL, 0, NULL, 0, &prefix, &common);
    assert_int_equal(prefix, 0);
    assert_int_equal(common, 0);
}

static void same_bits(const es_mi_pick_t *a, uint32_t na, const es_mi_pick_t *b, uint32_t nb)
{
    assert_int_equal(na, nb);
    for (uint32_t j = 0; j < na; j++) {
        assert_int_equal(a[j].feature, b[j].feature);
        assert_memory_equal(&a[j].score, &b[j].score, sizeof(double));
        assert_memory_equal(&a[j].relevance, &b[j].relevance, sizeof(double));
    }
}

/* es_mi_select_opt() on the CPU: the defaults, the bits of es_mi_select()
 * with info asked for or not; fixed point bit-identical for every thread
 * count and within its log table's error of the double values. */
static void test_opt_cpu(void **state)
{
    (void)state;
    es_mi_opt_t o;
    memset(&o, 0x5a, sizeof o);
    es_mi_opt_init(&o);
    assert_int_equal(o.threads, 0);
    assert_int_equal(o.device, -1);
    assert_int_equal(o.fixed_point, 0);
    assert_int_equal(o.gpu_path, ES_MI_GPU_AUTO);
    assert_int_equal(o.gpu_kernel, ES_GPU_KERNEL_AUTO);
    static const uint32_t sh[] = {3, 4, 128, 2, 700};
    es_dtable_t d;
    table_random(&d, 2000, 30, 3, sh, 5, 123);
    es_mi_pick_t a[30], b[30], c[30];
    for (unsigned i = 0; i < N_METHODS; i++) {
        es_mi_method_t m = all_methods[i];
        uint32_t na = 0, nb = 0, nc = 0;
        assert_int_equal(es_mi_select(&d, m, 10, 2, a, &na), ES_OK);
        o.threads = 2;
        o.fixed_point = 0;
        es_mi_info_t info;
        memset(&info, 0, sizeof info);
        assert_int_equal(es_mi_select_opt(&d, m, 10, &o, b, &nb, &info), ES_OK);
        if (strncmp(info.where, "cpu", 3) != 0) fail_msg("ran on '%s'", info.where);
        same_bits(a, na, b, nb);
        o.threads = 1;
        assert_int_equal(es_mi_select_opt(&d, m, 10, &o, c, &nc, NULL), ES_OK);
        same_bits(a, na, c, nc);
        /* fixed point: 1 and 3 threads bit for bit */
        o.fixed_point = 1;
        assert_int_equal(es_mi_select_opt(&d, m, 10, &o, b, &nb, NULL), ES_OK);
        o.threads = 3;
        assert_int_equal(es_mi_select_opt(&d, m, 10, &o, c, &nc, NULL), ES_OK);
        same_bits(b, nb, c, nc);
    }
    /* every I(X;Y) in fixed point within 0.01 bit of the double value (a Q5.11
     * log2 is within 2^-12 of the true one: about 1e-3 bit per MI) */
    uint32_t na = 0, nb = 0;
    o.threads = 0;
    o.fixed_point = 0;
    assert_int_equal(es_mi_select_opt(&d, ES_MI_MIM, 30, &o, a, &na, NULL), ES_OK);
    o.fixed_point = 1;
    assert_int_equal(es_mi_select_opt(&d, ES_MI_MIM, 30, &o, b, &nb, NULL), ES_OK);
    assert_int_equal(na, 30);
    assert_int_equal(nb, 30);
    double rel[30];
    for (uint32_t j = 0; j < 30; j++) rel[a[j].feature] = a[j].relevance;
    for (uint32_t j = 0; j < 30; j++)
        if (!(fabs(b[j].relevance - rel[b[j].feature]) <= 0.01))
            fail_msg("feature %u: I(X;Y) %.6f in fixed point, %.6f in double", b[j].feature,
                     b[j].relevance, rel[b[j].feature]);
    es_dtable_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_xor),
        cmocka_unit_test(test_ties_lowest_index),
        cmocka_unit_test(test_random_vs_brute_force),
        cmocka_unit_test(test_many_samples),
        cmocka_unit_test(test_k_larger_than_features),
        cmocka_unit_test(test_one_sample_one_feature),
        cmocka_unit_test(test_constant_data),
        cmocka_unit_test(test_threads_bit_identical),
        cmocka_unit_test(test_invalid_tables),
        cmocka_unit_test(test_invalid_message),
        cmocka_unit_test(test_agreement),
        cmocka_unit_test(test_opt_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
