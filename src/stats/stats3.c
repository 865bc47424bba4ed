/* stats3.c -- the statistics of a triple's 2x27 table: chi2, MI, IG, K2 and
 * their p-values, written as the pair forms in stats.c are (n ln n and ln n!
 * read from the shared tables, integer differences where they avoid
 * cancellation), over 27 genotype columns instead of 9.  BOOST has no 3-way
 * form.  Every function is a pure function of the table. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "stats_internal.h"

typedef struct {
    uint64_t n0, n1, n;
    int cols, df;
} margins3_t;

static inline void margins3(const es_table3_t *t, margins3_t *m)
{
    uint64_t n0 = 0, n1 = 0;
    int cols = 0;
    for (int c = 0; c < 27; c++) {
        n0 += t->n[0][c];
        n1 += t->n[1][c];
        cols += (t->n[0][c] | t->n[1][c]) != 0;
    }
    m->n0 = n0;
    m->n1 = n1;
    m->n = n0 + n1;
    m->cols = cols;
    m->df = (n0 && n1 && cols > 1) ? cols - 1 : 0;
}

/* N * I(Y; X) in nats for a 2 x ncol table given as two rows (see stats.c's
 * n_mi_nats: column terms first, in column order, then the class terms). */
static inline __attribute__((always_inline)) double
n_mi_nats(const uint32_t *r0, const uint32_t *r1, int ncol, const margins3_t *m, int small)
{
    double s = 0.0;
    for (int c = 0; c < ncol; c++)
        s += (es_stats_nlogn(r0[c], small) + es_stats_nlogn(r1[c], small)) -
             es_stats_nlogn((uint64_t)r0[c] + r1[c], small);
    return s + (es_stats_nlogn(m->n, small) - (es_stats_nlogn(m->n0, small) + es_stats_nlogn(m->n1, small)));
}

double es_stat3_chi2(const es_table3_t *t, int *df)
{
    margins3_t m;
    margins3(t, &m);
    if (df) *df = m.df;
    if (m.df <= 0) return 0.0;
    /* sum over columns of (n0c n1 - n1c n0)^2 / nc, over n0 n1 (stats.c); 1/nc
     * from the table (an empty column adds 0 x 0) */
    es_stats_tables_init();
    double s[3] = {0.0, 0.0, 0.0};
    if (m.n < ES_STATS_TAB) {
        for (int c = 0; c < 27; c++) {
            uint64_t a = t->n[0][c], b = t->n[1][c];
            double d = (double)((int64_t)(a * m.n1) - (int64_t)(b * m.n0));
            s[c % 3] += d * d * es_stats_recip(a + b, 1);
        }
    } else {
        for (int c = 0; c < 27; c++) {
            uint64_t a = t->n[0][c], b = t->n[1][c];
            if (!(a | b)) continue;
            double d = (double)((int64_t)(a * m.n1) - (int64_t)(b * m.n0));
            s[c % 3] += d * d / (double)(a + b);
        }
    }
    return ((s[0] + s[1]) + s[2]) / ((double)m.n0 * (double)m.n1);
}

double es_stat3_mi(const es_table3_t *t, int *df)
{
    es_stats_tables_init();
    margins3_t m;
    margins3(t, &m);
    if (df) *df = m.df;
    if (m.df <= 0) return 0.0;
    double g = m.n < ES_STATS_TAB ? n_mi_nats(t->n[0], t->n[1], 27, &m, 1)
                                  : n_mi_nats(t->n[0], t->n[1], 27, &m, 0);
    return g > 0.0 ? g / ((double)m.n * M_LN2) : 0.0;
}

/* The three pair margins of the table, as 2 x 9 rows: AB (sum over c), AC
 * (over b), BC (over a). */
static inline void pair_margins(const es_table3_t *t, uint32_t r[3][2][9], int cols[3])
{
    for (int y = 0; y < 2; y++) {
        const uint32_t *n = t->n[y];
        for (int u = 0; u < 3; u++)
            for (int v = 0; v < 3; v++) {
                r[0][y][u * 3 + v] = n[u * 9 + v * 3] + n[u * 9 + v * 3 + 1] + n[u * 9 + v * 3 + 2];
                r[1][y][u * 3 + v] = n[u * 9 + v] + n[u * 9 + 3 + v] + n[u * 9 + 6 + v];
                r[2][y][u * 3 + v] = n[u * 3 + v] + n[9 + u * 3 + v] + n[18 + u * 3 + v];
            }
    }
    for (int p = 0; p < 3; p++) {
        cols[p] = 0;
        for (int c = 0; c < 9; c++) cols[p] += (r[p][0][c] | r[p][1][c]) != 0;
    }
}

/* N * IG in nats and its G-test's df: IG = I(Y;A,B,C) - I(Y;P) with P the
 * pair of the largest MI (on a tie the one with fewer non-empty columns, the
 * larger df; then the first of AB, AC, BC).  G = 2 N IG is the likelihood
 * ratio of Y ~ A x B x C against Y ~ P. */
static inline __attribute__((always_inline)) double n_ig_nats(const es_table3_t *t, const margins3_t *m,
                                                              int small, int *df)
{
    uint32_t r[3][2][9];
    int cols[3];
    pair_margins(t, r, cols);
    double g_abc = fmax(n_mi_nats(t->n[0], t->n[1], 27, m, small), 0.0);
    int best = 0;
    double gb = fmax(n_mi_nats(r[0][0], r[0][1], 9, m, small), 0.0);
    for (int p = 1; p < 3; p++) {
        double g = fmax(n_mi_nats(r[p][0], r[p][1], 9, m, small), 0.0);
        if (g > gb || (g == gb && cols[p] < cols[best])) {
            gb = g;
            best = p;
        }
    }
    *df = m->cols - cols[best];
    return g_abc - gb;
}

/* n_ig_nats() with the three pair parts given (AB, AC, BC). */
static inline double n_ig_nats_given(const es_table3_t *t, const margins3_t *m, int small, const es_ig_pair_t *p[3],
                                     int *df)
{
    double g_abc = fmax(n_mi_nats(t->n[0], t->n[1], 27, m, small), 0.0);
    int best = 0;
    double gb = p[0]->g;
    for (int q = 1; q < 3; q++) {
        double g = p[q]->g;
        if (g > gb || (g == gb && p[q]->cols < p[best]->cols)) {
            gb = g;
            best = q;
        }
    }
    *df = m->cols - p[best]->cols;
    return g_abc - gb;
}

void es_stat3_ig_pair(const es_table2_t *t, es_ig_pair_t *out)
{
    es_stats_tables_init();
    margins3_t m = {0, 0, 0, 0, 0};
    for (int c = 0; c < 9; c++) {
        m.n0 += t->n[0][c];
        m.n1 += t->n[1][c];
        m.cols += (t->n[0][c] | t->n[1][c]) != 0;
    }
    m.n = m.n0 + m.n1;
    out->g = fmax(m.n < ES_STATS_TAB ? n_mi_nats(t->n[0], t->n[1], 9, &m, 1) : n_mi_nats(t->n[0], t->n[1], 9, &m, 0),
                  0.0);
    out->cols = m.cols;
}

double es_stat3_ig(const es_table3_t *t, int *df)
{
    es_stats_tables_init();
    margins3_t m;
    int d;
    margins3(t, &m);
    if (df) *df = m.df;
    if (m.df <= 0) return 0.0;
    double g = m.n < ES_STATS_TAB ? n_ig_nats(t, &m, 1, &d) : n_ig_nats(t, &m, 0, &d);
    if (df) *df = d;
    return g / ((double)m.n * M_LN2);
}

static inline __attribute__((always_inline)) double k2_sum(const es_table3_t *t, int small)
{
    /* ln Gamma(n_c + 2) = ln (n_c + 1)!; an empty column adds ln 1! = 0 */
    double s[3] = {0.0, 0.0, 0.0};
    for (int c = 0; c < 27; c++) {
        uint64_t a = t->n[0][c], b = t->n[1][c];
        s[c % 3] += es_stats_lnfact(a + b + 1, small) - (es_stats_lnfact(a, small) + es_stats_lnfact(b, small));
    }
    return (s[0] + s[1]) + s[2];
}

double es_stat3_k2(const es_table3_t *t)
{
    es_stats_tables_init();
    uint64_t n = 0;
    for (int c = 0; c < 27; c++) n += (uint64_t)t->n[0][c] + t->n[1][c];
    return n + 1 < ES_STATS_TAB ? k2_sum(t, 1) : k2_sum(t, 0);
}

void es_stat3_value(es_stat_t s, const es_table3_t *t, es_stat_result_t *r)
{
    r->df = 0;
    r->p = NAN;
    r->log10p = NAN;
    switch (s) {
    case ES_STAT_CHI2: r->stat = es_stat3_chi2(t, &r->df); break;
    case ES_STAT_MI: r->stat = es_stat3_mi(t, &r->df); break;
    case ES_STAT_IG: r->stat = es_stat3_ig(t, &r->df); break;
    case ES_STAT_K2: r->stat = es_stat3_k2(t); break;
    default: r->stat = NAN; break; /* boost: refused by the scan's checks */
    }
}

double es_stat3_g(es_stat_t s, const es_table3_t *t, double stat)
{
    margins3_t m;
    switch (s) {
    case ES_STAT_CHI2: return stat;
    case ES_STAT_MI:
    case ES_STAT_IG:
        margins3(t, &m);
        return 2.0 * (double)m.n * M_LN2 * stat;
    default: return NAN;
    }
}

void es_stat_p_from(es_stat_t s, double stat, int df, uint64_t n, es_stat_result_t *r)
{
    r->stat = stat;
    r->df = df;
    if (!es_stat_has_p(s)) {
        r->p = NAN;
        r->log10p = NAN;
        return;
    }
    double g = s == ES_STAT_MI || s == ES_STAT_IG ? 2.0 * (double)n * M_LN2 * stat : stat;
    es_stats_set_g_test(g, df, r);
}

void es_stat3_pvalue(es_stat_t s, const es_table3_t *t, es_stat_result_t *r)
{
    uint64_t n = 0;
    for (int c = 0; c < 27; c++) n += (uint64_t)t->n[0][c] + t->n[1][c];
    es_stat_p_from(s, r->stat, r->df, n, r);
}

void es_stat3_compute(es_stat_t s, const es_table3_t *t, es_stat_result_t *r)
{
    es_stat3_value(s, t, r);
    es_stat3_pvalue(s, t, r);
}

/* ---- runs of triples ----------------------------------------------------- */

static void batch_one(es_stat_t s, const es_table3_soa_t *t, uint32_t q, double *stat, int *df, uint32_t *n)
{
    es_table3_t one;
    es_stat_result_t r;
    es_table3_from_soa(t, q, &one);
    es_stat3_value(s, &one, &r);
    uint32_t sum = 0;
    for (int c = 0; c < 27; c++) sum += one.n[0][c] + one.n[1][c];
    stat[q] = r.stat;
    df[q] = r.df;
    n[q] = sum;
}

#if ES_CPU_X86
#include <immintrin.h>

/* Eight triples q0 .. q0+7 (lanes past nq masked off, read as empty): the
 * scalar functions above lane by lane.  Counts are below ES_STATS_TAB (the
 * caller checks n), so a * n1 is below 2^32 and exact in a double, and the
 * table lookups need no range check.  @return 0, or -1 when a lane's n is
 * too large for the tables (the caller takes the scalar path). */
/* N * I(Y; X) in nats of 8 tables (n_mi_nats()): columns r0[c], r1[c], the
 * class terms cls. */
ES_TARGET_AVX512 static inline __attribute__((always_inline)) __m512d mi8_avx512(const __m256i *r0, const __m256i *r1,
                                                                                int ncol, __m512d cls)
{
    __m512d g = _mm512_setzero_pd();
    for (int c = 0; c < ncol; c++) {
        __m512d la = _mm512_i32gather_pd(r0[c], es_stats_nlogn_tab, 8), lb = _mm512_i32gather_pd(r1[c], es_stats_nlogn_tab, 8);
        __m512d lab = _mm512_i32gather_pd(_mm256_add_epi32(r0[c], r1[c]), es_stats_nlogn_tab, 8);
        g = _mm512_add_pd(g, _mm512_sub_pd(_mm512_add_pd(la, lb), lab));
    }
    return _mm512_add_pd(g, cls);
}

#define LOAD8(m, p) _mm512_castsi512_si256(_mm512_maskz_loadu_epi32((__mmask16)(m), (p)))
#define STORE8(m, p, v) _mm512_mask_storeu_epi32((p), (__mmask16)(m), _mm512_castsi256_si512(v))

ES_TARGET_AVX512 static int batch8_avx512(es_stat_t s, const es_table3_soa_t *t, uint32_t q0, uint32_t nq,
                                          double *stat, int *df, uint32_t *n)
{
    uint32_t left = nq - q0;
    __mmask8 m = left >= 8 ? (__mmask8)0xff : (__mmask8)((1u << left) - 1);
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1);
    __m256i n0 = zero, n1 = zero, cols = zero;
    for (int c = 0; c < 27; c++) {
        __m256i a = LOAD8(m, &t->n[0][c][q0]), b = LOAD8(m, &t->n[1][c][q0]);
        n0 = _mm256_add_epi32(n0, a);
        n1 = _mm256_add_epi32(n1, b);
        /* + 1, - 1 where the column is empty */
        cols = _mm256_add_epi32(cols, _mm256_add_epi32(one, _mm256_cmpeq_epi32(_mm256_or_si256(a, b), zero)));
    }
    __m256i nn = _mm256_add_epi32(n0, n1);
    /* k2 reads ln (n + 1)! */
    if (_mm256_movemask_epi8(_mm256_cmpgt_epi32(nn, _mm256_set1_epi32(ES_STATS_TAB - 2)))) return -1;
    STORE8(m, n + q0, nn);
    __m512d d_n0 = _mm512_cvtepu32_pd(n0), d_n1 = _mm512_cvtepu32_pd(n1), zd = _mm512_setzero_pd();
    __m512d res;
    if (s == ES_STAT_K2) {
        __m512d acc0 = zd, acc1 = zd, acc2 = zd;
#define K2_TERM(c)                                                                                        \
    ({                                                                                                    \
        __m256i a = LOAD8(m, &t->n[0][c][q0]), b = LOAD8(m, &t->n[1][c][q0]);                              \
        __m512d f = _mm512_i32gather_pd(_mm256_add_epi32(_mm256_add_epi32(a, b), one), es_stats_lnfact_tab, 8); \
        __m512d fa = _mm512_i32gather_pd(a, es_stats_lnfact_tab, 8);                                       \
        __m512d fb = _mm512_i32gather_pd(b, es_stats_lnfact_tab, 8);                                       \
        _mm512_sub_pd(f, _mm512_add_pd(fa, fb));                                                          \
    })
        for (int c = 0; c < 27; c += 3) { /* s[c % 3] of the scalar code */
            acc0 = _mm512_add_pd(acc0, K2_TERM(c));
            acc1 = _mm512_add_pd(acc1, K2_TERM(c + 1));
            acc2 = _mm512_add_pd(acc2, K2_TERM(c + 2));
        }
#undef K2_TERM
        res = _mm512_add_pd(_mm512_add_pd(acc0, acc1), acc2);
        _mm512_mask_storeu_pd(stat + q0, m, res);
        STORE8(m, df + q0, zero);
        return 0;
    }
    /* df = cols - 1 where both classes are present and cols > 1, else 0 */
    __m256i ok = _mm256_andnot_si256(_mm256_or_si256(_mm256_cmpeq_epi32(n0, zero), _mm256_cmpeq_epi32(n1, zero)),
                                     _mm256_cmpgt_epi32(cols, one));
    __m256i dfv = _mm256_and_si256(ok, _mm256_sub_epi32(cols, one));
    __mmask8 has = (__mmask8)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(dfv, zero)));
    if (s == ES_STAT_CHI2) {
        __m512d acc0 = zd, acc1 = zd, acc2 = zd;
#define CHI2_TERM(c)                                                                                      \
    ({                                                                                                    \
        __m256i a = LOAD8(m, &t->n[0][c][q0]), b = LOAD8(m, &t->n[1][c][q0]);                              \
        __m512d da = _mm512_cvtepu32_pd(a), db = _mm512_cvtepu32_pd(b);                                   \
        __m512d d = _mm512_sub_pd(_mm512_mul_pd(da, d_n1), _mm512_mul_pd(db, d_n0));                      \
        __m512d r = _mm512_i32gather_pd(_mm256_add_epi32(a, b), es_stats_recip_tab, 8);                   \
        _mm512_mul_pd(_mm512_mul_pd(d, d), r);                                                            \
    })
        for (int c = 0; c < 27; c += 3) { /* s[c % 3] of the scalar code */
            acc0 = _mm512_add_pd(acc0, CHI2_TERM(c));
            acc1 = _mm512_add_pd(acc1, CHI2_TERM(c + 1));
            acc2 = _mm512_add_pd(acc2, CHI2_TERM(c + 2));
        }
#undef CHI2_TERM
        res = _mm512_div_pd(_mm512_add_pd(_mm512_add_pd(acc0, acc1), acc2), _mm512_mul_pd(d_n0, d_n1));
    } else { /* ES_STAT_MI, ES_STAT_IG: n_mi_nats() and n_ig_nats() lane by lane */
        __m512d ln = _mm512_i32gather_pd(nn, es_stats_nlogn_tab, 8), l0 = _mm512_i32gather_pd(n0, es_stats_nlogn_tab, 8);
        __m512d l1 = _mm512_i32gather_pd(n1, es_stats_nlogn_tab, 8);
        __m512d cls = _mm512_sub_pd(ln, _mm512_add_pd(l0, l1));
        __m256i a[27], b[27];
        for (int c = 0; c < 27; c++) a[c] = LOAD8(m, &t->n[0][c][q0]), b[c] = LOAD8(m, &t->n[1][c][q0]);
        __m512d g = mi8_avx512(a, b, 27, cls);
        __m512d den = _mm512_mul_pd(_mm512_cvtepu32_pd(nn), _mm512_set1_pd(M_LN2));
        if (s == ES_STAT_MI) {
            res = _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(g, zd, _CMP_GT_OQ), _mm512_div_pd(g, den));
        } else {
            /* the pair margins AB (over c), AC (over b), BC (over a) */
            __m256i r[3][2][9];
            for (int u = 0; u < 3; u++)
                for (int v = 0; v < 3; v++) {
                    int q = u * 3 + v;
                    r[0][0][q] = _mm256_add_epi32(_mm256_add_epi32(a[u * 9 + v * 3], a[u * 9 + v * 3 + 1]), a[u * 9 + v * 3 + 2]);
                    r[0][1][q] = _mm256_add_epi32(_mm256_add_epi32(b[u * 9 + v * 3], b[u * 9 + v * 3 + 1]), b[u * 9 + v * 3 + 2]);
                    r[1][0][q] = _mm256_add_epi32(_mm256_add_epi32(a[u * 9 + v], a[u * 9 + 3 + v]), a[u * 9 + 6 + v]);
                    r[1][1][q] = _mm256_add_epi32(_mm256_add_epi32(b[u * 9 + v], b[u * 9 + 3 + v]), b[u * 9 + 6 + v]);
                    r[2][0][q] = _mm256_add_epi32(_mm256_add_epi32(a[u * 3 + v], a[9 + u * 3 + v]), a[18 + u * 3 + v]);
                    r[2][1][q] = _mm256_add_epi32(_mm256_add_epi32(b[u * 3 + v], b[9 + u * 3 + v]), b[18 + u * 3 + v]);
                }
            __m256i pcols[3];
            for (int pp = 0; pp < 3; pp++) {
                pcols[pp] = zero;
                for (int q = 0; q < 9; q++)
                    pcols[pp] = _mm256_add_epi32(
                        pcols[pp], _mm256_add_epi32(one, _mm256_cmpeq_epi32(_mm256_or_si256(r[pp][0][q], r[pp][1][q]), zero)));
            }
            __m512d gabc = _mm512_max_pd(g, zd); /* fmax(x, 0.0) */
            __m512d gb = _mm512_max_pd(mi8_avx512(r[0][0], r[0][1], 9, cls), zd);
            __m256i bcols = pcols[0];
            for (int pp = 1; pp < 3; pp++) {
                __m512d gp = _mm512_max_pd(mi8_avx512(r[pp][0], r[pp][1], 9, cls), zd);
                __mmask8 fewer = (__mmask8)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(bcols, pcols[pp])));
                __mmask8 upd = _mm512_cmp_pd_mask(gp, gb, _CMP_GT_OQ) | (_mm512_cmp_pd_mask(gp, gb, _CMP_EQ_OQ) & fewer);
                gb = _mm512_mask_mov_pd(gb, upd, gp);
                bcols = _mm512_castsi512_si256(_mm512_mask_mov_epi32(_mm512_castsi256_si512(bcols), (__mmask16)upd,
                                                                     _mm512_castsi256_si512(pcols[pp])));
            }
            res = _mm512_div_pd(_mm512_sub_pd(gabc, gb), den);
            /* df: the triple's columns less the pair's, where the table has a df */
            dfv = _mm256_and_si256(ok, _mm256_sub_epi32(cols, bcols));
        }
    }
    res = _mm512_maskz_mov_pd(has, res);
    _mm512_mask_storeu_pd(stat + q0, m, res);
    STORE8(m, df + q0, dfv);
    return 0;
}
/* IG of 8 triples with their pair parts given: batch8_avx512()'s IG lanes
 * with the three pair MIs read instead of computed. */
ES_TARGET_AVX512 static int ig8_avx512(const es_table3_soa_t *t, uint32_t q0, uint32_t nq, const es_ig_pair_t *ab,
                                       const es_ig_pair_t *ik, const es_ig_pair_t *jk, double *stat, int *df,
                                       uint32_t *n)
{
    uint32_t left = nq - q0;
    __mmask8 m = left >= 8 ? (__mmask8)0xff : (__mmask8)((1u << left) - 1);
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1);
    __m256i n0 = zero, n1 = zero, cols = zero, a[27], b[27];
    for (int c = 0; c < 27; c++) {
        a[c] = LOAD8(m, &t->n[0][c][q0]);
        b[c] = LOAD8(m, &t->n[1][c][q0]);
        n0 = _mm256_add_epi32(n0, a[c]);
        n1 = _mm256_add_epi32(n1, b[c]);
        cols = _mm256_add_epi32(cols, _mm256_add_epi32(one, _mm256_cmpeq_epi32(_mm256_or_si256(a[c], b[c]), zero)));
    }
    __m256i nn = _mm256_add_epi32(n0, n1);
    if (_mm256_movemask_epi8(_mm256_cmpgt_epi32(nn, _mm256_set1_epi32(ES_STATS_TAB - 2)))) return -1;
    STORE8(m, n + q0, nn);
    __m512d zd = _mm512_setzero_pd();
    __m256i ok = _mm256_andnot_si256(_mm256_or_si256(_mm256_cmpeq_epi32(n0, zero), _mm256_cmpeq_epi32(n1, zero)),
                                     _mm256_cmpgt_epi32(cols, one));
    __m256i dfv = _mm256_and_si256(ok, _mm256_sub_epi32(cols, one));
    __mmask8 has = (__mmask8)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(dfv, zero)));
    __m512d ln = _mm512_i32gather_pd(nn, es_stats_nlogn_tab, 8), l0 = _mm512_i32gather_pd(n0, es_stats_nlogn_tab, 8);
    __m512d l1 = _mm512_i32gather_pd(n1, es_stats_nlogn_tab, 8);
    __m512d cls = _mm512_sub_pd(ln, _mm512_add_pd(l0, l1));
    __m512d gabc = _mm512_max_pd(mi8_avx512(a, b, 27, cls), zd); /* fmax(x, 0.0) */
    __m512d den = _mm512_mul_pd(_mm512_cvtepu32_pd(nn), _mm512_set1_pd(M_LN2));
    /* the pair parts: AB for every lane, AC and BC per lane */
    double gp[2][8];
    int cp[2][8];
    for (int q = 0; q < 8; q++) {
        uint32_t r = q0 + (uint32_t)q < nq ? q0 + (uint32_t)q : q0;
        gp[0][q] = ik[r].g;
        cp[0][q] = ik[r].cols;
        gp[1][q] = jk[r].g;
        cp[1][q] = jk[r].cols;
    }
    __m512d gb = _mm512_set1_pd(ab->g);
    __m256i bcols = _mm256_set1_epi32(ab->cols);
    for (int pp = 0; pp < 2; pp++) {
        __m512d g = _mm512_loadu_pd(gp[pp]);
        __m256i pc = _mm256_loadu_si256((const __m256i *)cp[pp]);
        __mmask8 fewer = (__mmask8)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(bcols, pc)));
        __mmask8 upd = _mm512_cmp_pd_mask(g, gb, _CMP_GT_OQ) | (_mm512_cmp_pd_mask(g, gb, _CMP_EQ_OQ) & fewer);
        gb = _mm512_mask_mov_pd(gb, upd, g);
        bcols = _mm512_castsi512_si256(
            _mm512_mask_mov_epi32(_mm512_castsi256_si512(bcols), (__mmask16)upd, _mm512_castsi256_si512(pc)));
    }
    __m512d res = _mm512_maskz_mov_pd(has, _mm512_div_pd(_mm512_sub_pd(gabc, gb), den));
    dfv = _mm256_and_si256(ok, _mm256_sub_epi32(cols, bcols));
    _mm512_mask_storeu_pd(stat + q0, m, res);
    STORE8(m, df + q0, dfv);
    return 0;
}
#undef LOAD8
#undef STORE8
#endif

/* es_stat3_ig() of triple q of a run with its pair parts given */
static void batch_one_ig(const es_table3_soa_t *t, uint32_t q, const es_ig_pair_t *p[3], double *stat, int *df,
                         uint32_t *n)
{
    es_table3_t one;
    es_table3_from_soa(t, q, &one);
    margins3_t m;
    margins3(&one, &m);
    n[q] = (uint32_t)m.n;
    df[q] = m.df;
    stat[q] = 0.0;
    if (m.df <= 0) return;
    int d;
    double g = m.n < ES_STATS_TAB ? n_ig_nats_given(&one, &m, 1, p, &d) : n_ig_nats_given(&one, &m, 0, p, &d);
    df[q] = d;
    stat[q] = g / ((double)m.n * M_LN2);
}

void es_stat3_batch_ig(const es_table3_soa_t *t, uint32_t nq, const es_ig_pair_t *ab, const es_ig_pair_t *ik,
                       const es_ig_pair_t *jk, double *stat, int *df, uint32_t *n)
{
    es_stats_tables_init();
    uint32_t q = 0;
#if ES_CPU_X86
    if (es_cpu_has(ES_CPU_AVX512))
        for (; q < nq; q += 8)
            if (ig8_avx512(t, q, nq, ab, ik, jk, stat, df, n))
                for (uint32_t r = q; r < q + 8 && r < nq; r++) {
                    const es_ig_pair_t *p[3] = {ab, &ik[r], &jk[r]};
                    batch_one_ig(t, r, p, stat, df, n);
                }
#endif
    for (; q < nq; q++) {
        const es_ig_pair_t *p[3] = {ab, &ik[q], &jk[q]};
        batch_one_ig(t, q, p, stat, df, n);
    }
}

void es_stat3_batch(es_stat_t s, const es_table3_soa_t *t, uint32_t nq, double *stat, int *df, uint32_t *n)
{
    es_stats_tables_init();
#if ES_CPU_X86
    if (s != ES_STAT_BOOST && es_cpu_has(ES_CPU_AVX512)) {
        for (uint32_t q0 = 0; q0 < nq; q0 += 8)
            if (batch8_avx512(s, t, q0, nq, stat, df, n))
                for (uint32_t q = q0; q < q0 + 8 && q < nq; q++) batch_one(s, t, q, stat, df, n);
        return;
    }
#endif
    for (uint32_t q = 0; q < nq; q++) batch_one(s, t, q, stat, df, n);
}
