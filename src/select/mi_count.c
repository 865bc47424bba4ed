/* mi_count.c -- counting a feature-selection round on the CPU: for every
 * wanted candidate X, E(X, g, inner) and E(X, g) against the round's
 * conditioning variable g (the newest pick, or for CondMI the joint state of
 * every pick) and the inner variable (the class, or nothing for mRMR), where
 * E(.) = sum over cells of n log2 n.
 *
 * Counting one candidate takes one of two paths:
 *   - dense: when nk x ng x ni cells fit in a small table (ES_MI_DENSE), one
 *     streaming pass increments cell (x, g, i) per sample and a sweep of the
 *     cells sums n log2 n while clearing them;
 *   - grouped: otherwise the samples are sorted once per round by (g, i)
 *     (two counting-sort passes); per candidate its values are gathered in
 *     that order and counted group by group in a table of nk counters, which
 *     is cleared by revisiting the group's samples.  Groups of one sample add
 *     n log2 n = 0 and are dropped when the order is built, so CondMI rounds
 *     get cheaper as the joint state fragments.
 * Both paths are exact (integer counts) and O(N) per candidate; which one runs
 * depends only on the sizes, never on the thread count.  Each candidate's sums
 * are added by one thread in a fixed order; a device that counts a round adds
 * its terms in the same order (select_internal.h), so every device gives
 * these doubles.  Counters are 32-bit: a cell counts samples and n_samples is
 * a uint32_t, so no counter can overflow (the 16-bit trap of ORACLES.md does
 * not apply). */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "select_internal.h"

#define DENSE_MAX ES_MI_DENSE
/* Tables of at most this many cells are counted in four interleaved copies
 * (4 x 16 Ki cells = 256 KiB, within the DENSE_MAX storage). */
#define SUBHIST_MAX (DENSE_MAX / 4 < 16384 ? DENSE_MAX / 4 : 16384)

/* ---- n log2 n tables ------------------------------------------------------------ */

#define NL_TAB ES_MI_NL_TAB
#define FIX_BITS ES_MI_FIX_BITS
static double nl_tab[NL_TAB];   /* n log2 n, 0 log 0 = 0 */
static double nlq_tab[NL_TAB];  /* n lq(n) / 2^11: the fixed-point twin */
static uint16_t lq_tab[NL_TAB]; /* round(log2 n x 2^11) */
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

void es_mi_nlt_init(es_mi_nlt_t *t, int fixed)
{
    pthread_once(&nl_once, nl_build);
    t->tab = fixed ? nlq_tab : nl_tab;
    t->lq = lq_tab;
    t->fixed = fixed != 0;
}

static inline double nlx(const es_mi_nlt_t *t, uint32_t c) { return es_mi_nlx(t, c); }

static inline int thread_num(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* ---- the paths ------------------------------------------------------------------ */

/* sum of n log n over the value counts of xp[a..b), leaving cnt (nk cells) all
 * zero again: clear by value when the run is longer than the value range,
 * else only the cells the run touched */
static inline double run_nl_sum(const es_mi_nlt_t *nt, const uint16_t *restrict xp, uint32_t a, uint32_t b,
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

/* select_internal.h */
void es_mi_cond_build(es_mi_cond_t *cd, uint32_t n, const uint32_t *g32, const uint16_t *g16, uint32_t ng,
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

/*
 * Count candidate x (nk states) against cd: *e_kgi = E(x, g, inner) and
 * *e_kg = E(x, g).  Tables are left zeroed.
 */
static void pair_count(const uint16_t *restrict x, const uint8_t *restrict x8, uint32_t nk,
                       uint32_t n, const es_mi_cond_t *cd, es_mi_ws_t *w, double *e_kgi, double *e_kg)
{
    double e3 = 0.0, e2 = 0.0;
    const es_mi_nlt_t *nt = &cd->nt;
    const double *restrict tab = nt->tab;
    /* the dense codes exist whenever nz <= DENSE_MAX (es_mi_cond_build) */
    const int order = cd->has_z ? es_mi_count_order(cd->nz, cd->ni, nk, n) : ES_GPU_MI_GROUPS;
    if (order != ES_GPU_MI_GROUPS) {
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
        } else if (order == ES_GPU_MI_TOUCH) {
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


/* ---- a round ---------------------------------------------------------------------- */

static inline const uint8_t *col8(const es_mi_ctx_t *c, uint32_t f)
{
    return c->x8_ofs[f] == SIZE_MAX ? NULL : c->x8 + c->x8_ofs[f];
}

/* select_internal.h */
int es_mi_need_groups(const es_mi_ctx_t *c, uint64_t nz)
{
    for (uint32_t f = 0; f < c->nf; f++)
        if (!c->sel[f] && (nz > DENSE_MAX || (uint64_t)c->d->n_states[f] * nz > DENSE_MAX)) return 1;
    return 0;
}

/* The CPU: each candidate by one thread (pair_count). */
void es_mi_round_cpu(es_mi_ctx_t *c)
{
#pragma omp parallel for num_threads(c->nt) schedule(dynamic, 8)
    for (int64_t f = 0; f < (int64_t)c->nf; f++) {
        if (!c->want[f]) continue;
        pair_count(es_mi_col(c, (uint32_t)f), col8(c, (uint32_t)f), c->d->n_states[f], c->n, &c->cd,
                   &c->ws[thread_num()], &c->e3[f], &c->e2[f]);
    }
}

/* Uses perm and tmp as scratch. */
void es_mi_joint_refine(es_mi_ctx_t *c, uint32_t *s_lab, uint32_t *ns, uint32_t w)
{
    es_mi_cond_t *cd = &c->cd;
    const uint16_t *xw = es_mi_col(c, w);
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


void es_mi_cond_relevance(es_mi_ctx_t *c, int groups, int dense)
{
    /* g is constant (one group, the whole sample); the inner runs are the
     * classes.  z's storage serves as the all-zero g while the groups are
     * built, then receives the dense codes g * n_classes + y = y. */
    es_mi_cond_t *cd = &c->cd;
    memset(cd->z, 0, (size_t)c->n * sizeof *cd->z);
    es_mi_cond_build(cd, c->n, cd->z, NULL, 1, c->d->y, c->nc, 0, groups);
    for (uint32_t s = 0; s < c->n; s++) cd->z[s] = c->d->y[s];
    memset(cd->zg, 0, (size_t)c->n * sizeof *cd->zg);
    cd->has_z = dense && cd->nz <= DENSE_MAX;
}

int es_mi_cpu_open(es_mi_ctx_t *c)
{
    const size_t n = c->n, nf = c->nf;
    const es_dtable_t *d = c->d;
    for (int t = 0; t < c->nt; t++) {
        es_mi_ws_t *w = &c->ws[t];
        w->dense = calloc(DENSE_MAX, sizeof *w->dense);
        w->dense2 = calloc(DENSE_MAX / 2 + 1, sizeof *w->dense2);
        w->touched = malloc(n * sizeof *w->touched);
        w->cnt = calloc(c->max_states, sizeof *w->cnt);
        w->xp = malloc(n * sizeof *w->xp);
        if (!w->dense || !w->dense2 || !w->touched || !w->cnt || !w->xp) return ES_ERR_NOMEM;
    }
    c->x8_ofs = malloc(nf * sizeof *c->x8_ofs);
    if (!c->x8_ofs) return ES_ERR_NOMEM;
    size_t n8 = 0;
    for (uint32_t f = 0; f < c->nf; f++) c->x8_ofs[f] = d->n_states[f] <= 256 ? n * n8++ : SIZE_MAX;
    if (n8 && !(c->x8 = malloc(n8 * n))) {
        /* only a speed-up: go on with the 16-bit columns */
        for (uint32_t f = 0; f < c->nf; f++) c->x8_ofs[f] = SIZE_MAX;
    }
#pragma omp parallel for num_threads(c->nt) schedule(static)
    for (int64_t f = 0; f < (int64_t)nf; f++) {
        if (c->x8_ofs[f] == SIZE_MAX) continue;
        const uint16_t *x = es_mi_col(c, (uint32_t)f);
        uint8_t *x8 = c->x8 + c->x8_ofs[f];
        for (size_t s = 0; s < n; s++) x8[s] = (uint8_t)x[s];
    }
    return ES_OK;
}

void es_mi_cpu_close(es_mi_ctx_t *c)
{
    if (c->ws) {
        for (int t = 0; t < c->nt; t++) {
            free(c->ws[t].dense);
            free(c->ws[t].dense2);
            free(c->ws[t].touched);
            free(c->ws[t].cnt);
            free(c->ws[t].xp);
        }
    }
    free(c->x8);
    free(c->x8_ofs);
    c->x8 = NULL;
    c->x8_ofs = NULL;
}
