/* mi_select.c -- greedy mutual-information feature selection: MIM, mRMR
 * (difference form), JMI, DISR, CMIM, ICAP and CondMI with the semantics of
 * FEAST (Brown, Pocock, Zhao & Lujan, JMLR 2012).  doc/SELECTION.md states
 * every rule (scores, ties, stopping, what is reported); this file says why the
 * code is shaped the way it is.
 *
 * Shape of the computation (the idea of fast-mRMR, applied to every method):
 *   - one pass computes I(Xk;Y) for all features and caches the marginal
 *     sums E(Xk) and E(Xk,Y), where E(.) = sum over cells of n log2 n;
 *   - every later round scores only the newest selected feature j against all
 *     remaining candidates k and folds the result into a per-candidate
 *     accumulator (a sum for mRMR, JMI, DISR, ICAP; a running minimum for
 *     CMIM), so a round costs one contingency table per candidate instead of
 *     |S| of them;
 *   - entropies come from E sums: H(A) = log2 N - E(A)/N, so an MI or a
 *     conditional MI is a signed sum of four E values and one table per pair
 *     gives every quantity a method needs.
 *
 * Counting one candidate against the conditioning variable g of a round (the
 * newest feature, or for CondMI the joint state of everything selected) and
 * the inner variable i (the class, or nothing for mRMR) takes one of two paths:
 *   - dense: when nk x ng x ni cells fit in a small table (DENSE_MAX), one
 *     streaming pass increments cell (x, g, i) per sample and a sweep of the
 *     cells sums n log2 n while clearing them;
 *   - grouped: otherwise the samples are sorted once per round by (g, i)
 *     (two counting-sort passes); per candidate its values are gathered in
 *     that order and counted group by group in a table of nk counters, which
 *     is cleared by revisiting the group's samples.  Groups of one sample add
 *     n log2 n = 0 and are dropped when the order is built, so CondMI rounds
 *     get cheaper as the joint state fragments.
 * Both paths are exact (integer counts) and O(N) per candidate; which one runs
 * depends only on the sizes, never on the thread count.
 *
 * Threads split the candidates of a round; each candidate's value is computed
 * by one thread in a fixed order and the argmax is a serial scan in index
 * order, so the picks and scores are bit-identical for every thread count.
 * Counters are 32-bit: a cell counts samples and n_samples is a uint32_t, so no
 * counter can overflow (the 16-bit trap of ORACLES.md does not apply).
 */
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "select.h"
#include "gpu.h"

/* Cells of the dense counting table per thread (uint32 each: 1 MiB, which stays
 * in L2 while a candidate's samples are streamed through it). */
#ifndef ES_MI_DENSE_MAX /* overridable to test the grouped path on small data */
#define ES_MI_DENSE_MAX (1u << 18)
#endif
#define DENSE_MAX ((uint32_t)(ES_MI_DENSE_MAX))
/* Tables of at most this many cells are counted in four interleaved copies
 * (4 x 16 Ki cells = 256 KiB, within the DENSE_MAX storage). */
#define SUBHIST_MAX (DENSE_MAX / 4 < 16384 ? DENSE_MAX / 4 : 16384)

/* Two scores tie when they differ by at most MI_TIE_REL x max(1, |best|); the
 * lowest feature index wins a tie.  Far above the rounding noise of the sums
 * (~1e-14 bits), far below any difference real data produce.  CondMI stops
 * when the best conditional MI is at most MI_TIE_REL bits. */
#define MI_TIE_REL 1e-10

/* ---- n log2 n table ---------------------------------------------------------- */

#define NL_TAB 65536
#define FIX_BITS 11                       /* fixed-point logs: Q5.11 */
static double nl_tab[NL_TAB];             /* n log2 n, 0 log 0 = 0 */
static double nlq_tab[NL_TAB];            /* n lq(n) / 2^11: the fixed-point twin */
static uint16_t lq_tab[NL_TAB];           /* round(log2 n x 2^11) */
static pthread_once_t nl_once = PTHREAD_ONCE_INIT;

static void nl_build(void)
{
    nl_tab[0] = nlq_tab[0] = 0.0;
    lq_tab[0] = 0;
    for (uint32_t n = 1; n < NL_TAB; n++) {
        nl_tab[n] = (double)n * log2((double)n);
        lq_tab[n] = (uint16_t)lround(log2((double)n) * (1 << FIX_BITS));
        nlq_tab[n] = (double)((uint64_t)n * lq_tab[n]) / (1 << FIX_BITS);
    }
}

/* The entropy terms of a selection: n log2 n in double, or the fixed-point
 * variant (doc/SELECTION.md): log2 n rounded to Q5.11 from a 16-bit table,
 * for n >= 65,536 from the table's value of n >> sh plus sh.  Every
 * fixed-point term is a multiple of 2^-11 below 2^48, so sums of them are
 * exact in double, in any order (gpu/mi.cu has the device twin). */
typedef struct {
    const double *tab;
    int fixed;
} nlt_t;

static inline uint32_t lq_of(uint32_t c)
{
    if (c < NL_TAB) return lq_tab[c];
    uint32_t sh = 0;
    while ((c >> sh) >= NL_TAB) sh++;
    return (uint32_t)lq_tab[c >> sh] + (sh << FIX_BITS);
}

static inline double nlx(const nlt_t *t, uint32_t c)
{
    if (c < NL_TAB) return t->tab[c];
    if (t->fixed) return (double)((uint64_t)c * lq_of(c)) / (1 << FIX_BITS);
    return (double)c * log2((double)c);
}

/* ---- names ----------------------------------------------------------------- */

static const char *const method_names[] = {"mrmr", "jmi", "disr", "cmim", "icap", "condmi", "mim"};

int es_mi_method_parse(const char *name, es_mi_method_t *out)
{
    if (name) {
        for (int m = 0; m < (int)(sizeof method_names / sizeof *method_names); m++) {
            if (strcasecmp(name, method_names[m]) == 0) {
                *out = (es_mi_method_t)m;
                return ES_OK;
            }
        }
    }
    es_error("unknown selection method '%s' (expected mrmr, jmi, disr, cmim, icap, condmi or mim)",
             name ? name : "(null)");
    return ES_ERR_ARG;
}

const char *es_mi_method_name(es_mi_method_t m)
{
    if ((unsigned)m < sizeof method_names / sizeof *method_names) return method_names[m];
    return "unknown";
}

/* ---- conditioning variable of a round ---------------------------------------- */

typedef struct {
    nlt_t nt;        /* entropy terms */
    uint32_t ng, ni; /* states of g; of the inner variable (n_classes, or 1 = none) */
    uint64_t nz;     /* ng * ni */
    uint32_t *z;     /* dense path: g * ni + inner, per sample (valid when has_z) */
    uint32_t *zg;    /* dense path: g, per sample (valid when has_z) */
    int has_z;
    /* grouped path (valid when has_groups) */
    uint32_t *perm; /* samples of g groups with >= 2 samples, sorted by (g, inner) */
    uint32_t m;     /* entries of perm */
    uint32_t *grp;  /* n_grp + 1 offsets into perm, one g group each */
    uint32_t n_grp;
    uint32_t *sub; /* n_sub [start, end) pairs: (g, inner) runs of >= 2 samples */
    uint32_t n_sub;
    int has_groups;
    double e_g, e_gi; /* E(g) and E(g, inner) (computed with the groups) */
    /* scratch */
    uint32_t *tmp, *bucket; /* N; max(N, 65536) + 1 */
} cond_t;

/* Per-thread work space. */
typedef struct {
    uint32_t *dense; /* DENSE_MAX cells, all zero between uses */
    uint32_t *dense2; /* DENSE_MAX / 2 cells, all zero between uses */
    uint32_t *touched; /* N: cells of dense that became non-zero */
    uint32_t *cnt;   /* max states of a feature, all zero between uses */
    uint16_t *xp;    /* N: a candidate's values in the order of cond_t.perm */
} ws_t;

/* sum of n log n over the value counts of xp[a..b), leaving cnt (nk cells) all
 * zero again: clear by value when the run is longer than the value range,
 * else only the cells the run touched */
static inline double run_nl_sum(const nlt_t *nt, const uint16_t *restrict xp, uint32_t a, uint32_t b,
                                uint32_t *restrict cnt, uint32_t nk)
{
    double e = 0.0;
    for (uint32_t i = a; i < b; i++) cnt[xp[i]]++;
    if (b - a > nk) {
        for (uint32_t v = 0; v < nk; v++) {
            e += nlx(nt, cnt[v]);
            cnt[v] = 0;
        }
    } else {
        for (uint32_t i = a; i < b; i++) {
            uint32_t c = cnt[xp[i]];
            if (c) {
                e += nlx(nt, c);
                cnt[xp[i]] = 0;
            }
        }
    }
    return e;
}

/* Stable counting sort of idx[0..n) by key(idx) < nkeys into out. */
static void csort_u32(const uint32_t *idx, uint32_t n, const uint32_t *key32, const uint16_t *key16,
                      uint32_t nkeys, uint32_t *bucket, uint32_t *out)
{
    memset(bucket, 0, ((size_t)nkeys + 1) * sizeof *bucket);
    for (uint32_t t = 0; t < n; t++) {
        uint32_t s = idx ? idx[t] : t;
        // cppcheck-suppress nullPointer ; exactly one of the two key arrays is set
        bucket[(key32 ? key32[s] : key16[s]) + 1]++;
    }
    for (uint32_t v = 0; v < nkeys; v++) bucket[v + 1] += bucket[v];
    for (uint32_t t = 0; t < n; t++) {
        uint32_t s = idx ? idx[t] : t;
        // cppcheck-suppress nullPointer ; exactly one of the two key arrays is set
        out[bucket[key32 ? key32[s] : key16[s]]++] = s;
    }
}

/*
 * Set up the round's conditioning on g (g32 or g16, ng states) and the inner
 * variable y (NULL: none).  want_z: fill z for the dense path; want_groups:
 * build the sorted order (and e_g, e_gi) for the grouped path.
 */
static void cond_build(cond_t *cd, uint32_t n, const uint32_t *g32, const uint16_t *g16, uint32_t ng,
                       const uint16_t *y, uint32_t n_classes, int want_z, int want_groups)
{
    cd->ng = ng;
    cd->ni = y ? n_classes : 1;
    cd->nz = (uint64_t)cd->ng * cd->ni;
    cd->has_z = want_z && cd->nz <= DENSE_MAX;
    cd->has_groups = want_groups;
    if (cd->has_z) {
        uint32_t ni = cd->ni;
        for (uint32_t s = 0; s < n; s++) {
            uint32_t g = g32 ? g32[s] : g16[s];
            cd->z[s] = g * ni + (y ? y[s] : 0);
            cd->zg[s] = g;
        }
    }
    if (!want_groups) return;
    /* LSD: by the inner variable, then stably by g */
    const uint32_t *order = NULL;
    if (y) {
        csort_u32(NULL, n, NULL, y, n_classes, cd->bucket, cd->tmp);
        order = cd->tmp;
    }
    csort_u32(order, n, g32, g16, ng, cd->bucket, cd->perm);
    /* runs; compact away g groups of one sample */
    double e_g = 0.0, e_gi = 0.0;
    uint32_t m = 0, n_grp = 0, n_sub = 0;
    uint32_t a = 0;
    while (a < n) {
        // cppcheck-suppress nullPointer ; exactly one of the two key arrays is set
        uint32_t ga = g32 ? g32[cd->perm[a]] : g16[cd->perm[a]];
        uint32_t b = a + 1;
        // cppcheck-suppress nullPointer ; exactly one of the two key arrays is set
        while (b < n && (g32 ? g32[cd->perm[b]] : g16[cd->perm[b]]) == ga) b++;
        e_g += nlx(&cd->nt, b - a);
        if (b - a >= 2) {
            uint32_t base = m;
            cd->grp[n_grp++] = m;
            /* inner runs inside the group */
            uint32_t r = a;
            while (r < b) {
                uint32_t yr = y ? y[cd->perm[r]] : 0;
                uint32_t q = r + 1;
                while (q < b && (y ? y[cd->perm[q]] : 0) == yr) q++;
                e_gi += nlx(&cd->nt, q - r);
                if (q - r >= 2) {
                    cd->sub[2 * n_sub] = base + (r - a);
                    cd->sub[2 * n_sub + 1] = base + (q - a);
                    n_sub++;
                }
                r = q;
            }
            /* move in place: m <= a always */
            memmove(cd->perm + m, cd->perm + a, (size_t)(b - a) * sizeof *cd->perm);
            m += b - a;
        }
        a = b;
    }
    cd->grp[n_grp] = m;
    cd->m = m;
    cd->n_grp = n_grp;
    cd->n_sub = n_sub;
    cd->e_g = e_g;
    cd->e_gi = e_gi;
}

/* Does candidate with nk states take the dense path under cd? */
static inline int use_dense(const cond_t *cd, uint32_t nk)
{
    return cd->has_z && (uint64_t)nk * cd->nz <= DENSE_MAX;
}

/*
 * Count candidate x (nk states) against cd: *e_kgi = E(x, g, inner) and
 * *e_kg = E(x, g).  Tables are left zeroed.
 */
static void pair_count(const uint16_t *restrict x, const uint8_t *restrict x8, uint32_t nk,
                       uint32_t n, const cond_t *cd, ws_t *w, double *e_kgi, double *e_kg)
{
    double e3 = 0.0, e2 = 0.0;
    const nlt_t *nt = &cd->nt;
    const double *restrict tab = nt->tab;
    if (use_dense(cd, nk)) {
        uint32_t *restrict t = w->dense;
        const uint32_t *restrict z = cd->z;
        uint32_t nz = (uint32_t)cd->nz, ni = cd->ni;
        uint32_t cells = nk * nz;
        if (cells <= SUBHIST_MAX && n >= 4 * cells) {
            /* small table, many samples: consecutive samples often hit the same
             * cell, and each increment would wait for the previous store; four
             * interleaved copies break that chain and are summed afterwards */
            uint32_t *restrict t1 = t + cells, *restrict t2 = t1 + cells, *restrict t3 = t2 + cells;
            uint32_t s = 0;
            if (x8) {
                for (; s + 4 <= n; s += 4) {
                    t[(uint32_t)x8[s] * nz + z[s]]++;
                    t1[(uint32_t)x8[s + 1] * nz + z[s + 1]]++;
                    t2[(uint32_t)x8[s + 2] * nz + z[s + 2]]++;
                    t3[(uint32_t)x8[s + 3] * nz + z[s + 3]]++;
                }
                for (; s < n; s++) t[(uint32_t)x8[s] * nz + z[s]]++;
            } else {
                for (; s + 4 <= n; s += 4) {
                    t[(uint32_t)x[s] * nz + z[s]]++;
                    t1[(uint32_t)x[s + 1] * nz + z[s + 1]]++;
                    t2[(uint32_t)x[s + 2] * nz + z[s + 2]]++;
                    t3[(uint32_t)x[s + 3] * nz + z[s + 3]]++;
                }
                for (; s < n; s++) t[(uint32_t)x[s] * nz + z[s]]++;
            }
            for (uint32_t c = 0; c < cells; c++) {
                t[c] += t1[c] + t2[c] + t3[c];
                t1[c] = t2[c] = t3[c] = 0;
            }
        } else if (ni > 1 && cells > n) {
            /* sparse table (more cells than samples): list the cells that
             * become non-zero and sum only those; E(x, g) comes from a second,
             * ni times smaller table swept whole */
            uint32_t *restrict t2 = w->dense2, *restrict list = w->touched, n_touch = 0, ng = cd->ng;
            const uint32_t *restrict zg = cd->zg;
            for (uint32_t s = 0; s < n; s++) {
                uint32_t xv = x8 ? x8[s] : x[s];
                uint32_t key = xv * nz + z[s];
                uint32_t old = t[key];
                t[key] = old + 1;
                list[n_touch] = key;
                n_touch += old == 0;
                t2[xv * ng + zg[s]]++;
            }
            for (uint32_t i = 0; i < n_touch; i++) {
                e3 += nlx(nt, t[list[i]]);
                t[list[i]] = 0;
            }
            uint32_t rows2 = nk * ng;
            for (uint32_t r = 0; r < rows2; r++) {
                uint32_t v = t2[r];
                e2 += nlx(nt, v);
                t2[r] = 0;
            }
            *e_kgi = e3;
            *e_kg = e2;
            return;
        } else if (x8) {
            for (uint32_t s = 0; s < n; s++) t[(uint32_t)x8[s] * nz + z[s]]++;
        } else {
            for (uint32_t s = 0; s < n; s++) t[(uint32_t)x[s] * nz + z[s]]++;
        }
        uint32_t rows = nk * cd->ng;
        if (n < NL_TAB) {
            /* every count is a table index: no branches (zero cells are the
             * majority of a sparse table and would be mispredicted) */
            if (ni == 1) {
                for (uint32_t c = 0; c < rows; c++) {
                    e3 += tab[t[c]];
                    t[c] = 0;
                }
                e2 = e3;
            } else {
                for (uint32_t r = 0; r < rows; r++) {
                    uint32_t *row = t + (size_t)r * ni, tot = 0;
                    for (uint32_t i = 0; i < ni; i++) {
                        e3 += tab[row[i]];
                        tot += row[i];
                        row[i] = 0;
                    }
                    e2 += tab[tot];
                }
            }
        } else if (ni == 1) {
            for (uint32_t c = 0; c < rows; c++) {
                uint32_t v = t[c];
                if (v) {
                    e3 += nlx(nt, v);
                    t[c] = 0;
                }
            }
            e2 = e3;
        } else {
            for (uint32_t r = 0; r < rows; r++) {
                uint32_t *row = t + (size_t)r * ni, tot = 0;
                for (uint32_t i = 0; i < ni; i++) {
                    uint32_t v = row[i];
                    if (v) {
                        e3 += nlx(nt, v);
                        tot += v;
                        row[i] = 0;
                    }
                }
                e2 += nlx(nt, tot);
            }
        }
    } else {
        uint16_t *restrict xp = w->xp;
        uint32_t *restrict cnt = w->cnt;
        const uint32_t *restrict perm = cd->perm;
        if (x8)
            for (uint32_t i = 0; i < cd->m; i++) xp[i] = x8[perm[i]];
        else
            for (uint32_t i = 0; i < cd->m; i++) xp[i] = x[perm[i]];
        /* E(x, g): group by group */
        for (uint32_t gi = 0; gi < cd->n_grp; gi++)
            e2 += run_nl_sum(nt, xp, cd->grp[gi], cd->grp[gi + 1], cnt, nk);
        if (cd->ni == 1) {
            e3 = e2;
        } else {
            for (uint32_t si = 0; si < cd->n_sub; si++)
                e3 += run_nl_sum(nt, xp, cd->sub[2 * si], cd->sub[2 * si + 1], cnt, nk);
        }
    }
    *e_kgi = e3;
    *e_kg = e2;
}

/* ---- selection ------------------------------------------------------------- */

/* The pair engine's view of a table whose features have at most 4 states and
 * whose class has 2: every feature is a "variant" with genotype planes
 * (states 0, 1, 2 as genotypes, state 3 as a missing call), so a round's
 * tables of the newest feature against every candidate are one row of pair
 * tables (gpu/engine.cu), and the cells with state 3 follow from the
 * per-class state counts. */
typedef struct {
    es_gpu_rows_t *rows;
    uint32_t (*cnt)[2][4];    /* per feature: samples per class and state */
    uint32_t (*gcount)[2][3]; /* the engine's genotype counts */
    uint64_t *planes;
    es_gpu_cand_t *tab;       /* a round's tables */
} pairs_t;

typedef struct {
    const es_dtable_t *d;
    uint32_t n, nf, nc;
    double L;        /* log2 N */
    double e_y;      /* E(Y) */
    int y_const;     /* one observed class */
    double *e_x;     /* E(Xk) */
    double *e_xy;    /* E(Xk, Y) */
    uint8_t *x_const; /* one observed state */
    double *rel;     /* I(Xk; Y) */
    double *acc;     /* per-method accumulator */
    double *score;   /* this round's score per candidate */
    double *e3, *e2; /* this round's E(Xk, g, inner) and E(Xk, g) per candidate */
    uint8_t *sel;
    uint8_t *want;   /* candidates of the round (1 - sel) */
    /* byte copies of the features with at most 256 states: half the memory
     * traffic per round, which bounds the speed once the data leave the caches */
    uint8_t *x8;
    size_t *x8_ofs; /* per feature: offset into x8, or SIZE_MAX */
    uint32_t max_states;
    int nt;
    ws_t *ws;
    cond_t cd;
    /* where the rounds are counted */
    enum { ON_CPU, ON_HIST, ON_PAIRS } on;
    es_gpu_mi_t *gm;
    uint32_t gpu_dense_max;
    pairs_t pr;
} mi_ctx_t;

static inline const uint16_t *col(const mi_ctx_t *c, uint32_t f)
{
    return c->d->x + (size_t)f * c->n;
}

static inline const uint8_t *col8(const mi_ctx_t *c, uint32_t f)
{
    return c->x8_ofs[f] == SIZE_MAX ? NULL : c->x8 + c->x8_ofs[f];
}

/* Count feature f against the round's conditioning (see pair_count). */
static inline void count_feature(const mi_ctx_t *c, uint32_t f, ws_t *w, double *e3, double *e2)
{
    pair_count(col(c, f), col8(c, f), c->d->n_states[f], c->n, &c->cd, w, e3, e2);
}

/* Lowest-index unselected candidate whose score is within the tie tolerance of
 * the best; *best receives the best score.  Returns UINT32_MAX if none. */
static uint32_t argmax_low(const mi_ctx_t *c, const double *score, double *best)
{
    double b = -INFINITY;
    for (uint32_t f = 0; f < c->nf; f++)
        if (!c->sel[f] && score[f] > b) b = score[f];
    *best = b;
    if (b == -INFINITY) return UINT32_MAX;
    double floor_ = b - MI_TIE_REL * fmax(1.0, fabs(b));
    for (uint32_t f = 0; f < c->nf; f++)
        if (!c->sel[f] && score[f] >= floor_) return f;
    return UINT32_MAX;
}

/* Does any unselected candidate need the grouped path under a conditioning
 * variable with nz cells per candidate state? */
static int need_groups(const mi_ctx_t *c, uint64_t nz)
{
    for (uint32_t f = 0; f < c->nf; f++)
        if (!c->sel[f] && (nz > DENSE_MAX || (uint64_t)c->d->n_states[f] * nz > DENSE_MAX)) return 1;
    return 0;
}

/* E(xs, y) and E(xs) of one 2 x 4 table of class and state counts. */
static void pairs_e_of(const nlt_t *nt, const uint32_t t[2][4], double *exy, double *ex)
{
    double a = 0.0, b = 0.0;
    for (int v = 0; v < 4; v++) {
        a += nlx(nt, t[0][v]) + nlx(nt, t[1][v]);
        b += nlx(nt, t[0][v] + t[1][v]);
    }
    *exy = a;
    *ex = b;
}

/* ---- counting a round ---------------------------------------------------------- */

/* The CPU: each candidate by one thread (pair_count). */
static void round_cpu(mi_ctx_t *c)
{
#pragma omp parallel for num_threads(c->nt) schedule(dynamic, 8)
    for (int64_t f = 0; f < (int64_t)c->nf; f++) {
        if (!c->want[f]) continue;
        count_feature(c, (uint32_t)f, &c->ws[omp_get_thread_num()], &c->e3[f], &c->e2[f]);
    }
}

/* The histogram kernels, with the conditioning the CPU's cond_t describes
 * (dense codes when it has them and they fit the device, else the groups). */
static int round_hist_cd(mi_ctx_t *c)
{
    const cond_t *cd = &c->cd;
    es_gpu_mi_cond_t gc;
    memset(&gc, 0, sizeof gc);
    gc.ng = cd->ng;
    gc.ni = cd->ni;
    if (cd->has_z && cd->nz <= c->gpu_dense_max) {
        gc.z = cd->z;
    } else {
        gc.perm = cd->perm;
        gc.m = cd->m;
        gc.grp = cd->grp;
        gc.n_grp = cd->n_grp;
        gc.sub = cd->sub;
        gc.n_sub = cd->n_sub;
    }
    return es_gpu_mi_round(c->gm, &gc, c->want, c->e3, c->e2);
}

/* The pair engine: the tables of feature j against every candidate. */
static int round_pairs(mi_ctx_t *c, uint32_t j)
{
    pairs_t *p = &c->pr;
    int ret = es_gpu_rows_count(p->rows, j, p->tab);
    if (ret) return ret;
    const uint32_t(*cj)[4] = p->cnt[j];
    const nlt_t *nt = &c->cd.nt;
#pragma omp parallel for num_threads(c->nt) schedule(static)
    for (int64_t f = 0; f < (int64_t)c->nf; f++) {
        if (!c->want[f]) continue;
        const es_gpu_cand_t *t = &p->tab[f];
        const uint32_t(*ck)[4] = p->cnt[f];
        uint32_t T[2][4][4];
        double e3 = 0.0, e2 = 0.0;
        for (int y = 0; y < 2; y++) {
            /* both called from the engine; a missing call on one side from
             * that side's other variant's state counts, both missing last */
            uint32_t both_missing = cj[y][3];
            for (int a = 0; a < 3; a++) {
                uint32_t row = 0;
                for (int b = 0; b < 3; b++) row += T[y][a][b] = t->n[y][a * 3 + b];
                T[y][a][3] = cj[y][a] - row; /* j called, f missing */
            }
            for (int b = 0; b < 3; b++) {
                T[y][3][b] = ck[y][b] - (T[y][0][b] + T[y][1][b] + T[y][2][b]); /* j missing, f called */
                both_missing -= T[y][3][b];
            }
            T[y][3][3] = both_missing;
        }
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++) {
                e3 += nlx(nt, T[0][a][b]) + nlx(nt, T[1][a][b]);
                e2 += nlx(nt, T[0][a][b] + T[1][a][b]);
            }
        c->e3[f] = e3;
        c->e2[f] = e2;
    }
    return ES_OK;
}

/* Set up the pair engine: planes of every feature, per-class state counts,
 * the rows engine on device dev.  @return ES_OK, ES_ERR_NOMEM, or the
 * engine's error. */
static int pairs_open(mi_ctx_t *c, int dev, int kernel)
{
    pairs_t *p = &c->pr;
    const es_dtable_t *d = c->d;
    const size_t nf = c->nf, n = c->n;
    uint32_t ny[2] = {0, 0};
    for (size_t s = 0; s < n; s++) ny[d->y[s]]++;
    int np = 2;
    for (size_t f = 0; f < nf && np == 2; f++) {
        const uint16_t *x = col(c, (uint32_t)f);
        for (size_t s = 0; s < n; s++)
            if (x[s] == 3) {
                np = 3;
                break;
            }
    }
    /* class 1 plays "case" (words [0, w_case)), class 0 "control" */
    const uint32_t w_case = (ny[1] + ES_PAD_BITS - 1) / ES_PAD_BITS * ES_PAD_WORDS;
    const uint32_t w_ctrl = (ny[0] + ES_PAD_BITS - 1) / ES_PAD_BITS * ES_PAD_WORDS;
    const size_t words = (size_t)w_case + w_ctrl, per = (size_t)np * words;
    uint32_t *pos = malloc(n * sizeof *pos);
    p->cnt = calloc(nf, sizeof *p->cnt);
    p->gcount = calloc(nf, sizeof *p->gcount);
    p->tab = malloc(nf * sizeof *p->tab);
    p->planes = aligned_alloc(128, nf * per * sizeof(uint64_t));
    if (!pos || !p->cnt || !p->gcount || !p->tab || !p->planes) {
        free(pos);
        return ES_ERR_NOMEM;
    }
    uint32_t k0 = 0, k1 = 0;
    for (size_t s = 0; s < n; s++) pos[s] = d->y[s] ? k1++ : (uint32_t)w_case * 64 + k0++;
#pragma omp parallel for num_threads(c->nt) schedule(static)
    for (int64_t f = 0; f < (int64_t)nf; f++) {
        uint64_t *pl = p->planes + (size_t)f * per;
        memset(pl, 0, per * sizeof *pl);
        const uint16_t *x = col(c, (uint32_t)f);
        uint32_t(*cn)[4] = p->cnt[f];
        for (size_t s = 0; s < n; s++) {
            uint32_t v = x[s];
            uint64_t bit = 1ull << (pos[s] & 63);
            size_t w = pos[s] >> 6;
            cn[d->y[s]][v]++;
            if (v == 1 || v == 2) pl[w] |= bit;
            if (v == 2) pl[words + w] |= bit;
            if (np == 3 && v < 3) pl[2 * words + w] |= bit;
        }
        for (int y = 0; y < 2; y++)
            for (int g = 0; g < 3; g++) p->gcount[f][y][g] = cn[y][g];
    }
    free(pos);
    es_gpu_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.n_planes = (uint32_t)np;
    cfg.words = (uint32_t)words;
    cfg.off_ctrl = w_case;
    cfg.kw_case = ((ny[1] + 63) / 64 + 3) / 4 * 4;
    cfg.kw_ctrl = ((ny[0] + 63) / 64 + 3) / 4 * 4;
    es_gpu_block_t all;
    all.index = 0;
    all.first = 0;
    all.count = c->nf;
    all.planes = p->planes;
    all.gcount = (const uint32_t *)p->gcount;
    int ret = es_gpu_rows_open(dev, kernel, &cfg, &all, &p->rows);
    if (ret) return ret;
    /* E(Xk, Y) and E(Xk) for the relevance pass, from the counts */
    for (size_t f = 0; f < nf; f++) pairs_e_of(&c->cd.nt, (const uint32_t(*)[4])p->cnt[f], &c->e3[f], &c->e2[f]);
    return ES_OK;
}

static void pairs_close(pairs_t *p)
{
    es_gpu_rows_close(p->rows);
    free(p->cnt);
    free(p->gcount);
    free(p->planes);
    free(p->tab);
}

/* One pass: I(Xk;Y), E(Xk), E(Xk,Y) for every feature. */
static int relevance_pass(mi_ctx_t *c)
{
    const es_dtable_t *d = c->d;
    cond_t *cd = &c->cd;
    int ret = ES_OK;
    /* g is constant (one group, the whole sample); the inner runs are the classes.
     * z's storage serves as the all-zero g while the groups are built, then
     * receives the dense codes g * n_classes + y = y. */
    int host_cond = c->on == ON_CPU || (c->on == ON_HIST && c->nc > c->gpu_dense_max);
    if (host_cond) {
        int groups = c->on == ON_HIST || need_groups(c, c->nc);
        memset(cd->z, 0, (size_t)c->n * sizeof *cd->z);
        cond_build(cd, c->n, cd->z, NULL, 1, d->y, c->nc, 0, groups);
        for (uint32_t s = 0; s < c->n; s++) cd->z[s] = d->y[s];
        memset(cd->zg, 0, (size_t)c->n * sizeof *cd->zg);
        cd->has_z = c->on == ON_CPU && cd->nz <= DENSE_MAX;
    }
    /* E(Y) and whether Y is constant */
    {
        uint32_t *bk = cd->bucket;
        memset(bk, 0, (size_t)c->nc * sizeof *bk);
        for (uint32_t s = 0; s < c->n; s++) bk[d->y[s]]++;
        double e = 0.0;
        uint32_t obs = 0;
        for (uint32_t v = 0; v < c->nc; v++) {
            e += nlx(&cd->nt, bk[v]);
            obs += bk[v] != 0;
        }
        c->e_y = e;
        c->y_const = obs <= 1;
    }
    memset(c->want, 1, c->nf);
    if (c->on == ON_CPU) {
        round_cpu(c);
    } else if (c->on == ON_HIST && host_cond) {
        ret = round_hist_cd(c); /* more classes than the dense kernel takes: the groups */
    } else if (c->on == ON_HIST) {
        /* g constant, the class inside: z = y, built on the device */
        es_gpu_mi_cond_t gc;
        memset(&gc, 0, sizeof gc);
        gc.ng = 1;
        gc.ni = c->nc;
        gc.feature = UINT32_MAX;
        gc.with_y = 1;
        ret = es_gpu_mi_round(c->gm, &gc, c->want, c->e3, c->e2);
    }
    /* ON_PAIRS: pairs_open left E(Xk, Y) and E(Xk) in e3 and e2 */
    if (ret) return ret;
#pragma omp parallel for num_threads(c->nt) schedule(dynamic, 8)
    for (int64_t f = 0; f < (int64_t)c->nf; f++) {
        const uint16_t *x = col(c, (uint32_t)f);
        double e3 = c->e3[f], e2 = c->e2[f];
        c->e_x[f] = e2;
        c->e_xy[f] = e3;
        c->rel[f] = c->L + (e3 - e2 - c->e_y) / c->n;
        uint16_t x0 = x[0];
        uint8_t k1 = 1;
        for (uint32_t s = 1; s < c->n && k1; s++) k1 = x[s] == x0;
        c->x_const[f] = k1;
    }
    return ES_OK;
}

/* CondMI: refine the joint state s (ns states) by feature w: new labels are
 * the ranks of the distinct (s, x_w) pairs.  Uses perm and tmp as scratch. */
static void joint_refine(mi_ctx_t *c, uint32_t *s_lab, uint32_t *ns, uint32_t w)
{
    cond_t *cd = &c->cd;
    const uint16_t *xw = col(c, w);
    csort_u32(NULL, c->n, NULL, xw, c->d->n_states[w], cd->bucket, cd->tmp);
    csort_u32(cd->tmp, c->n, s_lab, NULL, *ns, cd->bucket, cd->perm);
    uint32_t lab = 0;
    uint32_t prev_s = 0, prev_x = 0;
    for (uint32_t t = 0; t < c->n; t++) {
        uint32_t smp = cd->perm[t];
        uint32_t sv = s_lab[smp], xv = xw[smp];
        if (t > 0 && (sv != prev_s || xv != prev_x)) lab++;
        prev_s = sv;
        prev_x = xv;
        cd->tmp[smp] = lab;
    }
    memcpy(s_lab, cd->tmp, (size_t)c->n * sizeof *s_lab);
    *ns = c->n ? lab + 1 : 1;
}

static int check_table(const es_dtable_t *d, int nt)
{
    if (!d || (d->n_features && (!d->x || !d->n_states)) || (d->n_samples && !d->y)) {
        es_error("incomplete table (missing arrays)");
        return ES_ERR_ARG;
    }
    if (d->n_samples == 0) {
        es_error("the table has no samples");
        return ES_ERR_DATA;
    }
    if (d->n_classes < 1 || d->n_classes > 65536) {
        es_error("n_classes is %u, expected 1 to 65,536", d->n_classes);
        return ES_ERR_ARG;
    }
    for (uint32_t s = 0; s < d->n_samples; s++) {
        if (d->y[s] >= d->n_classes) {
            es_error("sample %u has class %u but the table declares %u classes", s + 1, d->y[s],
                     d->n_classes);
            return ES_ERR_ARG;
        }
    }
    int bad = 0;
#pragma omp parallel for num_threads(nt) schedule(static) reduction(| : bad)
    for (int64_t f = 0; f < (int64_t)d->n_features; f++) {
        uint32_t ns = d->n_states[f];
        if (ns < 1 || ns > 65536) {
            bad |= 1;
            continue;
        }
        const uint16_t *x = d->x + (size_t)f * d->n_samples;
        uint16_t mx = 0;
        for (uint32_t s = 0; s < d->n_samples; s++) mx = x[s] > mx ? x[s] : mx;
        if (mx >= ns) bad |= 1;
    }
    if (!bad) return ES_OK;
    /* find the first offender serially, for the message */
    for (uint32_t f = 0; f < d->n_features; f++) {
        uint32_t ns = d->n_states[f];
        const char *nm = d->names && d->names[f] ? d->names[f] : "";
        if (ns < 1 || ns > 65536) {
            es_error("feature %u%s%s%s declares %u states, expected 1 to 65,536", f + 1,
                     *nm ? " (" : "", nm, *nm ? ")" : "", ns);
            return ES_ERR_ARG;
        }
        const uint16_t *x = d->x + (size_t)f * d->n_samples;
        for (uint32_t s = 0; s < d->n_samples; s++) {
            if (x[s] >= ns) {
                es_error("feature %u%s%s%s has state %u in sample %u but declares %u states", f + 1,
                         *nm ? " (" : "", nm, *nm ? ")" : "", x[s], s + 1, ns);
                return ES_ERR_ARG;
            }
        }
    }
    return ES_ERR_ARG;
}

void es_mi_opt_init(es_mi_opt_t *o)
{
    memset(o, 0, sizeof *o);
    o->device = -1;
    o->gpu_path = ES_MI_GPU_AUTO;
}

void es_mi_agreement(const es_mi_pick_t *a, uint32_t na, const es_mi_pick_t *b, uint32_t nb,
                     uint32_t *prefix, uint32_t *common)
{
    uint32_t p = 0, q = 0;
    while (p < na && p < nb && a[p].feature == b[p].feature) p++;
    for (uint32_t i = 0; i < na; i++)
        for (uint32_t j = 0; j < nb; j++)
            if (a[i].feature == b[j].feature) {
                q++;
                break;
            }
    *prefix = p;
    *common = q;
}

int es_mi_select(const es_dtable_t *d, es_mi_method_t m, uint32_t k, int threads,
                 es_mi_pick_t *out, uint32_t *n_out)
{
    es_mi_opt_t o;
    es_mi_opt_init(&o);
    o.threads = threads;
    return es_mi_select_opt(d, m, k, &o, out, n_out, NULL);
}

/* Does the table suit the pair engine (every feature <= 4 states, 2 classes
 * both present)?  NULL: yes, else why not. */
static const char *pairs_unsuited(const es_dtable_t *d, es_mi_method_t m)
{
    if (m == ES_MI_CONDMI) return "CondMI conditions on a joint state of many values";
    if (d->n_classes != 2) return "the class does not have exactly 2 states";
    uint32_t ny1 = 0;
    for (uint32_t s = 0; s < d->n_samples; s++) ny1 += d->y[s] == 1;
    if (ny1 == 0 || ny1 == d->n_samples) return "one of the 2 classes has no sample";
    for (uint32_t f = 0; f < d->n_features; f++)
        if (d->n_states[f] > 4) return "a feature has more than 4 states";
    return NULL;
}

/* Choose and open the device path.  ES_OK with c->on set. */
static int gpu_setup(mi_ctx_t *c, es_mi_method_t m, const es_mi_opt_t *o)
{
    const es_dtable_t *d = c->d;
    int nd = 0;
    if (es_gpu_device_count(&nd) != ES_OK || o->device >= nd) {
        es_error("no CUDA device %d for the selection (%d visible%s)", o->device, nd,
                 nd ? "" : "; built without CUDA or no GPU");
        return ES_ERR_UNSUPPORTED;
    }
    const char *why = pairs_unsuited(d, m);
    int pairs = o->gpu_path == ES_MI_GPU_PAIRS || (o->gpu_path == ES_MI_GPU_AUTO && !why);
    if (o->gpu_path == ES_MI_GPU_PAIRS && why) {
        es_error("the pair engine cannot count this selection: %s", why);
        return ES_ERR_ARG;
    }
    if (m == ES_MI_MIM) pairs = 0; /* one pass of relevance: the histogram kernel */
    if (pairs) {
        c->on = ON_PAIRS;
        return pairs_open(c, o->device, o->gpu_kernel);
    }
    c->on = ON_HIST;
    int ret = es_gpu_mi_open(o->device, d->n_samples, d->n_features, d->x, d->n_states, d->y,
                             d->n_classes, o->fixed_point, c->cd.nt.tab, lq_tab, &c->gm);
    if (ret) return ret;
    c->gpu_dense_max = es_gpu_mi_dense_max(c->gm);
    return ES_OK;
}

/* This round's conditioning for the histogram kernels and the CPU: the newest
 * pick j (with the class unless mRMR), or the joint state s_lab (CondMI). */
static int count_round(mi_ctx_t *c, es_mi_method_t m, uint32_t j, const uint32_t *s_lab, uint32_t ns)
{
    const es_dtable_t *d = c->d;
    cond_t *cd = &c->cd;
    for (uint32_t f = 0; f < c->nf; f++) c->want[f] = !c->sel[f];
    if (m == ES_MI_CONDMI) {
        uint64_t nz = (uint64_t)ns * c->nc;
        /* E(S) and E(S,Y) come with the groups, so they are always built */
        cond_build(cd, c->n, s_lab, NULL, ns, d->y, c->nc, nz <= DENSE_MAX, 1);
        if (c->on == ON_HIST) return round_hist_cd(c);
        round_cpu(c);
        return ES_OK;
    }
    if (c->on == ON_PAIRS) return round_pairs(c, j);
    int with_y = m != ES_MI_MRMR;
    uint64_t nz = (uint64_t)d->n_states[j] * (with_y ? c->nc : 1);
    if (c->on == ON_HIST && nz <= c->gpu_dense_max) {
        es_gpu_mi_cond_t gc;
        memset(&gc, 0, sizeof gc);
        gc.ng = d->n_states[j];
        gc.ni = with_y ? c->nc : 1;
        gc.feature = j;
        gc.with_y = with_y;
        return es_gpu_mi_round(c->gm, &gc, c->want, c->e3, c->e2);
    }
    if (c->on == ON_HIST) {
        cond_build(cd, c->n, NULL, col(c, j), d->n_states[j], with_y ? d->y : NULL, c->nc, 0, 1);
        return round_hist_cd(c);
    }
    cond_build(cd, c->n, NULL, col(c, j), d->n_states[j], with_y ? d->y : NULL, c->nc,
               nz <= DENSE_MAX, need_groups(c, nz));
    round_cpu(c);
    return ES_OK;
}

/* Fold the round's counts into the accumulators and scores (FEAST's
 * formulas, doc/SELECTION.md). */
static void score_round(mi_ctx_t *c, es_mi_method_t m, uint32_t j, uint32_t n_sel)
{
    const double N = (double)c->n;
    const cond_t *cd = &c->cd;
    if (m == ES_MI_CONDMI) {
        const double e_s = cd->e_g, e_sy = cd->e_gi;
        for (uint32_t f = 0; f < c->nf; f++)
            if (c->want[f]) c->score[f] = (c->e3[f] + e_s - c->e2[f] - e_sy) / N;
        return;
    }
    const double ej = c->e_x[j], ejy = c->e_xy[j], ey = c->e_y, L = c->L;
    const int jy_const = c->x_const[j] && c->y_const;
#pragma omp parallel for num_threads(c->nt) schedule(static)
    for (int64_t f = 0; f < (int64_t)c->nf; f++) {
        if (!c->want[f]) continue;
        double e3 = c->e3[f], e2 = c->e2[f];
        double ek = c->e_x[f], eky = c->e_xy[f], a = c->acc[f], s;
        switch (m) {
        case ES_MI_MRMR: /* e2 = E(Xk,Xj) */
            a += L + (e2 - ek - ej) / N;
            s = c->rel[f] - a / n_sel;
            break;
        case ES_MI_JMI: /* I(XkXj;Y) */
            a += L + (e3 - e2 - ey) / N;
            s = a;
            break;
        case ES_MI_DISR: {
            /* H(XkXjY) = 0 only when all three are constant; then the
             * MI is 0 too and the term is taken as 0 (FEAST: 0/0) */
            if (!(jy_const && c->x_const[f])) {
                double mi = L + (e3 - e2 - ey) / N;
                double h = L - e3 / N;
                a += mi / h;
            }
            s = a;
            break;
        }
        case ES_MI_ICAP: {
            double mi = L + (e2 - ek - ej) / N;     /* I(Xk;Xj) */
            double cmi = (e3 + ey - eky - ejy) / N; /* I(Xk;Xj|Y) */
            double t = cmi - mi;
            if (t < 0) a += t;
            s = c->rel[f] + a;
            break;
        }
        case ES_MI_CMIM: {
            double cmi = (e3 + ej - e2 - ejy) / N; /* I(Xk;Y|Xj) */
            if (cmi < a) a = cmi;
            s = a;
            break;
        }
        default: s = 0; break;
        }
        c->acc[f] = a;
        c->score[f] = s;
    }
}

int es_mi_select_opt(const es_dtable_t *d, es_mi_method_t m, uint32_t k, const es_mi_opt_t *o,
                     es_mi_pick_t *out, uint32_t *n_out, es_mi_info_t *info)
{
    int ret = ES_OK;
    mi_ctx_t c;
    memset(&c, 0, sizeof c);
    uint32_t *s_lab = NULL;
    es_mi_opt_t dflt;
    if (!o) {
        es_mi_opt_init(&dflt);
        o = &dflt;
    }
    if (n_out) *n_out = 0;
    if (info) {
        info->where[0] = 0;
        info->seconds_gpu = 0.0;
    }
    if (!d || !n_out || (k && !out) || (unsigned)m > ES_MI_MIM) {
        es_error("invalid arguments (table %p, method %d, k %u, out %p, n_out %p)", (const void *)d,
                 (int)m, k, (void *)out, (void *)n_out);
        return ES_ERR_ARG;
    }
    if (o->threads < 0) {
        es_error("threads must be >= 0 (0 = all), got %d", o->threads);
        return ES_ERR_ARG;
    }
    if ((unsigned)o->gpu_path > ES_MI_GPU_PAIRS) {
        es_error("unknown GPU path %d", o->gpu_path);
        return ES_ERR_ARG;
    }
    int nt = o->threads > 0 ? o->threads : omp_get_max_threads();
    if (nt < 1) nt = 1;
    if ((ret = check_table(d, nt)) != ES_OK) return ret;
    if (k == 0 || d->n_features == 0) return ES_OK;
    pthread_once(&nl_once, nl_build);

    c.d = d;
    c.n = d->n_samples;
    c.nf = d->n_features;
    c.nc = d->n_classes;
    c.L = log2((double)c.n);
    c.nt = nt;
    c.on = ON_CPU;
    c.cd.nt.tab = o->fixed_point ? nlq_tab : nl_tab;
    c.cd.nt.fixed = o->fixed_point != 0;
    for (uint32_t f = 0; f < c.nf; f++)
        if (d->n_states[f] > c.max_states) c.max_states = d->n_states[f];
    if (k > c.nf) k = c.nf;

    size_t n = c.n, nf = c.nf;
    size_t nbucket = (n > 65536 ? n : 65536) + 1;
    c.e_x = malloc(nf * sizeof *c.e_x);
    c.e_xy = malloc(nf * sizeof *c.e_xy);
    c.rel = malloc(nf * sizeof *c.rel);
    c.acc = calloc(nf, sizeof *c.acc);
    c.score = malloc(nf * sizeof *c.score);
    c.e3 = malloc(nf * sizeof *c.e3);
    c.e2 = malloc(nf * sizeof *c.e2);
    c.sel = calloc(nf, 1);
    c.want = calloc(nf, 1);
    c.x_const = malloc(nf);
    c.cd.z = malloc(n * sizeof *c.cd.z);
    c.cd.zg = malloc(n * sizeof *c.cd.zg);
    c.cd.perm = malloc(n * sizeof *c.cd.perm);
    c.cd.tmp = malloc(n * sizeof *c.cd.tmp);
    c.cd.grp = malloc((n + 1) * sizeof *c.cd.grp);
    c.cd.sub = malloc((n + 1) * sizeof *c.cd.sub);
    c.cd.bucket = malloc(nbucket * sizeof *c.cd.bucket);
    c.ws = calloc((size_t)c.nt, sizeof *c.ws);
    if (!c.e_x || !c.e_xy || !c.rel || !c.acc || !c.score || !c.e3 || !c.e2 || !c.sel || !c.want ||
        !c.x_const || !c.cd.z || !c.cd.zg || !c.cd.perm || !c.cd.tmp || !c.cd.grp || !c.cd.sub ||
        !c.cd.bucket || !c.ws) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    if (o->device >= 0) {
        if ((ret = gpu_setup(&c, m, o)) != ES_OK) goto out;
    } else {
        for (int t = 0; t < c.nt; t++) {
            c.ws[t].dense = calloc(DENSE_MAX, sizeof *c.ws[t].dense);
            c.ws[t].dense2 = calloc(DENSE_MAX / 2 + 1, sizeof *c.ws[t].dense2);
            c.ws[t].touched = malloc(n * sizeof *c.ws[t].touched);
            c.ws[t].cnt = calloc(c.max_states, sizeof *c.ws[t].cnt);
            c.ws[t].xp = malloc(n * sizeof *c.ws[t].xp);
            if (!c.ws[t].dense || !c.ws[t].dense2 || !c.ws[t].touched || !c.ws[t].cnt ||
                !c.ws[t].xp) {
                ret = ES_ERR_NOMEM;
                goto out;
            }
        }
        c.x8_ofs = malloc(nf * sizeof *c.x8_ofs);
        if (!c.x8_ofs) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
        size_t n8 = 0;
        for (uint32_t f = 0; f < c.nf; f++) c.x8_ofs[f] = d->n_states[f] <= 256 ? n * n8++ : SIZE_MAX;
        if (n8 && !(c.x8 = malloc(n8 * n))) {
            /* only a speed-up: go on with the 16-bit columns */
            for (uint32_t f = 0; f < c.nf; f++) c.x8_ofs[f] = SIZE_MAX;
        }
#pragma omp parallel for num_threads(c.nt) schedule(static)
        for (int64_t f = 0; f < (int64_t)nf; f++) {
            if (c.x8_ofs[f] == SIZE_MAX) continue;
            const uint16_t *x = col(&c, (uint32_t)f);
            uint8_t *x8 = c.x8 + c.x8_ofs[f];
            for (size_t s = 0; s < n; s++) x8[s] = (uint8_t)x[s];
        }
    }
    if (info) {
        if (c.on == ON_CPU)
            snprintf(info->where, sizeof info->where, "cpu (%d thread%s)", c.nt, c.nt == 1 ? "" : "s");
        else if (c.on == ON_HIST)
            snprintf(info->where, sizeof info->where, "gpu %d (histogram kernels)", o->device);
        else
            snprintf(info->where, sizeof info->where, "gpu %d (pair engine, %s kernel)", o->device,
                     es_gpu_rows_kernel(c.pr.rows));
    }

    if ((ret = relevance_pass(&c)) != ES_OK) goto out;

    /* first pick, every method: argmax I(X;Y), ties to the lowest index */
    double best;
    uint32_t w = argmax_low(&c, c.rel, &best);
    out[0].feature = w;
    out[0].score = c.rel[w];
    out[0].relevance = c.rel[w];
    c.sel[w] = 1;
    uint32_t picked = 1;

    uint32_t ns = 1;
    if (m == ES_MI_CONDMI) {
        s_lab = calloc(n, sizeof *s_lab);
        if (!s_lab) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
        joint_refine(&c, s_lab, &ns, w);
    }
    if (m == ES_MI_CMIM)
        for (uint32_t f = 0; f < c.nf; f++) c.acc[f] = c.rel[f];

    while (picked < k) {
        uint32_t j = out[picked - 1].feature;
        if (m == ES_MI_MIM) {
            memcpy(c.score, c.rel, nf * sizeof *c.score);
        } else {
            if ((ret = count_round(&c, m, j, s_lab, ns)) != ES_OK) goto out;
            score_round(&c, m, j, picked);
        }
        w = argmax_low(&c, c.score, &best);
        if (w == UINT32_MAX) break;
        if (m == ES_MI_CONDMI && !(best > MI_TIE_REL)) break; /* nothing adds information */
        out[picked].feature = w;
        out[picked].score = c.score[w];
        out[picked].relevance = c.rel[w];
        c.sel[w] = 1;
        picked++;
        if (m == ES_MI_CONDMI && picked < k) joint_refine(&c, s_lab, &ns, w);
    }
    *n_out = picked;

out:
    if (ret == ES_ERR_NOMEM)
        es_error("out of memory selecting from %u samples x %u features", d->n_samples,
                 d->n_features);
    if (info && c.gm) info->seconds_gpu = es_gpu_mi_seconds(c.gm);
    if (info && c.pr.rows) info->seconds_gpu = es_gpu_rows_seconds(c.pr.rows);
    es_gpu_mi_close(c.gm);
    pairs_close(&c.pr);
    if (c.ws) {
        for (int t = 0; t < c.nt; t++) {
            free(c.ws[t].dense);
            free(c.ws[t].dense2);
            free(c.ws[t].touched);
            free(c.ws[t].cnt);
            free(c.ws[t].xp);
        }
    }
    free(c.ws);
    free(s_lab);
    free(c.e_x);
    free(c.e_xy);
    free(c.rel);
    free(c.acc);
    free(c.score);
    free(c.e3);
    free(c.e2);
    free(c.sel);
    free(c.want);
    free(c.x_const);
    free(c.x8);
    free(c.x8_ofs);
    free(c.cd.z);
    free(c.cd.zg);
    free(c.cd.perm);
    free(c.cd.tmp);
    free(c.cd.grp);
    free(c.cd.sub);
    free(c.cd.bucket);
    return ret;
}
