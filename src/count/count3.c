/* count3.c -- the 2x27 table of a variant triple from packed bit planes.
 *
 * Per class, the table of (a, b, c) follows from the 27 "cumulative" counts
 * C(s, t, u) = |X_a^s & X_b^t & X_c^u|, s, t, u in {V, P1, P2} (V: called,
 * P1: g >= 1, P2: g == 2), by inclusion-exclusion along each variant (level 0
 * = V - P1, level 1 = P1 - P2, level 2 = P2).  A triple is counted as a pair's
 * AND planes (es_pair3_set, once per pair) against the third variant's
 * planes:
 *  - no missing call at any of the three: only the 8 counts with s, t, u in
 *    {P1, P2} are products of three variants; those with a V are the pairs'
 *    sums (es_cum2_t, counted once per pair of the tile), single genotype
 *    counts and the class size;
 *  - otherwise all 27 products with the V planes, so that a sample missing
 *    at any of the three drops out of that triple's table only.
 * The loops are compiled once for any CPU and once with POPCNT. */
#include <stdlib.h>
#include <string.h>

#include "count.h"

#if ES_CPU_X86
#define ES_COUNT3_POPCNT ES_TARGET_POPCNT
#else
#define ES_COUNT3_POPCNT
#endif

void es_cum2_from_table(const es_table2_t *t, es_cum2_t *c)
{
    for (int y = 0; y < 2; y++) {
        const uint32_t *n = t->n[y];
        c->c[y][3] = n[8];
        c->c[y][2] = n[7] + n[8];
        c->c[y][1] = n[5] + n[8];
        c->c[y][0] = n[4] + n[5] + n[7] + n[8];
    }
}

int es_pair3_alloc(es_pair3_t *p, const es_planes_t *pl)
{
    memset(p, 0, sizeof *p);
    size_t bytes = (size_t)10 * pl->words * sizeof(uint64_t); /* 9 planes and a class mask */
    p->x = aligned_alloc(64, bytes ? (bytes + 63) / 64 * 64 : 64);
    if (!p->x) return ES_ERR_NOMEM;
    memset(p->x, 0, bytes);
    p->words = pl->words;
    return ES_OK;
}

void es_pair3_free(es_pair3_t *p)
{
    free(p->x);
    p->x = NULL;
}

static inline uint32_t used_words(uint32_t n) { return (n + 63) / 64; }

void es_pair3_set(es_pair3_t *p, const es_planes_t *pa, uint32_t a, const es_planes_t *pb, uint32_t b)
{
    uint32_t w = pa->words;
    p->n_planes = pa->n_planes;
    p->cls[1] = pa->n_case;
    p->cls[0] = pa->n_ctrl;
    p->off[1] = 0;
    p->nw[1] = used_words(pa->n_case);
    p->off[0] = pa->w_case;
    p->nw[0] = used_words(pa->n_ctrl);
    memcpy(p->ga, pa->gcount[a], sizeof p->ga);
    memcpy(p->gb, pb->gcount[b], sizeof p->gb);
    p->missing = pa->miss_ct[a] || pb->miss_ct[b];

    const uint64_t *xa[3], *xb[3];
    /* all nine planes: a third variant with missing calls needs the V x V,
     * V x P and P x V ones; a variant without a V plane is called everywhere
     * (its V is the class mask) */
    uint64_t *mask = p->x + (size_t)9 * w;
    for (int s = 1; s <= 2; s++) {
        xa[s] = es_plane(pa, a, (uint32_t)(s - 1));
        xb[s] = es_plane(pb, b, (uint32_t)(s - 1));
    }
    if (!p->mask_ok || p->mask_cls[0] != p->cls[0] || p->mask_cls[1] != p->cls[1]) {
        memset(mask, 0, (size_t)w * sizeof *mask);
        for (int y = 0; y < 2; y++)
            for (uint32_t s = 0; s < p->cls[y]; s++) mask[p->off[y] + s / 64] |= (uint64_t)1 << (s % 64);
        p->mask_cls[0] = p->cls[0];
        p->mask_cls[1] = p->cls[1];
        p->mask_ok = 1;
    }
    xa[0] = pa->n_planes == 3 ? es_plane(pa, a, 2) : mask;
    xb[0] = pb->n_planes == 3 ? es_plane(pb, b, 2) : mask;
    for (int y = 0; y < 2; y++) {
        uint32_t lo = p->off[y], hi = p->off[y] + p->nw[y];
        for (int s = 0; s <= 2; s++)
            for (int t = 0; t <= 2; t++) {
                uint64_t *x = p->x + (size_t)(s * 3 + t) * w;
                for (uint32_t i = lo; i < hi; i++) x[i] = xa[s][i] & xb[t][i];
            }
        for (int s = 1; s <= 2; s++)
            for (int t = 1; t <= 2; t++) {
                const uint64_t *x = p->x + (size_t)(s * 3 + t) * w;
                uint32_t c = 0;
                for (uint32_t i = lo; i < hi; i++) c += (uint32_t)__builtin_popcountll(x[i]);
                p->cum_ab[y][(s - 1) * 2 + (t - 1)] = c;
            }
    }
}

/* The 27 cells of one class from its cumulative counts C[s*9+t*3+u]:
 * differences along u, then t, then s (modulo 2^32: every cell is a count). */
static inline __attribute__((always_inline)) void derive27(uint32_t c[27], uint32_t n[27])
{
#pragma GCC unroll 9
    for (int st = 0; st < 9; st++) {
        c[st * 3] -= c[st * 3 + 1];
        c[st * 3 + 1] -= c[st * 3 + 2];
    }
#pragma GCC unroll 9
    for (int q = 0; q < 9; q++) {
        int s = q / 3, u = q % 3;
        c[s * 9 + u] -= c[s * 9 + 3 + u];
        c[s * 9 + 3 + u] -= c[s * 9 + 6 + u];
    }
#pragma GCC unroll 9
    for (int tu = 0; tu < 9; tu++) {
        n[tu] = c[tu] - c[9 + tu];
        n[9 + tu] = c[9 + tu] - c[18 + tu];
        n[18 + tu] = c[18 + tu];
    }
}

/* Four products of one class: the pair's P x P planes against one plane k. */
static inline __attribute__((always_inline)) void
prod4(const uint64_t *restrict x, size_t w, const uint64_t *restrict k, uint32_t lo, uint32_t hi,
      uint32_t out[4])
{
    const uint64_t *x11 = x + 4 * w, *x12 = x + 5 * w, *x21 = x + 7 * w, *x22 = x + 8 * w;
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (uint32_t i = lo; i < hi; i++) {
        uint64_t q = k[i];
        s0 += (uint64_t)__builtin_popcountll(x11[i] & q);
        s1 += (uint64_t)__builtin_popcountll(x12[i] & q);
        s2 += (uint64_t)__builtin_popcountll(x21[i] & q);
        s3 += (uint64_t)__builtin_popcountll(x22[i] & q);
    }
    out[0] = (uint32_t)s0, out[1] = (uint32_t)s1, out[2] = (uint32_t)s2, out[3] = (uint32_t)s3;
}

/* All 27 products of one class (planes with V), three X rows at a time. */
static inline __attribute__((always_inline)) void
prod27(const uint64_t *restrict x, size_t w, const uint64_t *const kc[3], uint32_t lo, uint32_t hi,
       uint32_t out[27])
{
    for (int s = 0; s < 3; s++) {
        const uint64_t *x0 = x + (size_t)(s * 3) * w, *x1 = x0 + w, *x2 = x1 + w;
        const uint64_t *k0 = kc[0], *k1 = kc[1], *k2 = kc[2];
        uint64_t a[9] = {0};
        for (uint32_t i = lo; i < hi; i++) {
            uint64_t u0 = k0[i], u1 = k1[i], u2 = k2[i], v0 = x0[i], v1 = x1[i], v2 = x2[i];
            a[0] += (uint64_t)__builtin_popcountll(v0 & u0);
            a[1] += (uint64_t)__builtin_popcountll(v0 & u1);
            a[2] += (uint64_t)__builtin_popcountll(v0 & u2);
            a[3] += (uint64_t)__builtin_popcountll(v1 & u0);
            a[4] += (uint64_t)__builtin_popcountll(v1 & u1);
            a[5] += (uint64_t)__builtin_popcountll(v1 & u2);
            a[6] += (uint64_t)__builtin_popcountll(v2 & u0);
            a[7] += (uint64_t)__builtin_popcountll(v2 & u1);
            a[8] += (uint64_t)__builtin_popcountll(v2 & u2);
        }
        for (int k = 0; k < 9; k++) out[s * 9 + k] = (uint32_t)a[k];
    }
}

static inline __attribute__((always_inline)) void
run_body(const es_pair3_t *p, const es_planes_t *pc, uint32_t c0, uint32_t nc, const es_cum2_t *ac,
         const es_cum2_t *bc, es_table3_t *t)
{
    size_t w = p->words;
    for (uint32_t k = 0; k < nc; k++) {
        uint32_t c = c0 + k;
        const uint32_t(*gc)[3] = pc->gcount[c];
        int full = p->missing || pc->miss_ct[c];
        for (int y = 0; y < 2; y++) {
            uint32_t C[27];
            uint32_t lo = p->off[y], hi = p->off[y] + p->nw[y];
            if (full) {
                const uint64_t *kc[3] = {pc->n_planes == 3 ? es_plane(pc, c, 2) : p->x + 9 * w,
                                         es_plane(pc, c, 0), es_plane(pc, c, 1)};
                prod27(p->x, w, kc, lo, hi, C);
            } else {
                uint32_t q1[4], q2[4];
                prod4(p->x, w, es_plane(pc, c, 0), lo, hi, q1);
                prod4(p->x, w, es_plane(pc, c, 1), lo, hi, q2);
                /* s, t, u >= 1: the products (q1: u = 1, q2: u = 2; s t = 11 12 21 22) */
                C[13] = q1[0], C[14] = q2[0], C[16] = q1[1], C[17] = q2[1];
                C[22] = q1[2], C[23] = q2[2], C[25] = q1[3], C[26] = q2[3];
                /* u = V: the pair (a, b) */
                C[12] = p->cum_ab[y][0], C[15] = p->cum_ab[y][1];
                C[21] = p->cum_ab[y][2], C[24] = p->cum_ab[y][3];
                /* t = V: the pair (a, c) */
                C[10] = ac[k].c[y][0], C[11] = ac[k].c[y][1];
                C[19] = ac[k].c[y][2], C[20] = ac[k].c[y][3];
                /* s = V: the pair (b, c) */
                C[4] = bc[k].c[y][0], C[5] = bc[k].c[y][1];
                C[7] = bc[k].c[y][2], C[8] = bc[k].c[y][3];
                /* two V: single variants; three: the class */
                C[9] = p->ga[y][1] + p->ga[y][2], C[18] = p->ga[y][2];
                C[3] = p->gb[y][1] + p->gb[y][2], C[6] = p->gb[y][2];
                C[1] = gc[y][1] + gc[y][2], C[2] = gc[y][2];
                C[0] = p->cls[y];
            }
            derive27(C, t[k].n[y]);
        }
    }
}

static void run_generic(const es_pair3_t *p, const es_planes_t *pc, uint32_t c0, uint32_t nc,
                        const es_cum2_t *ac, const es_cum2_t *bc, es_table3_t *t)
{
    run_body(p, pc, c0, nc, ac, bc, t);
}

#if ES_CPU_X86
ES_COUNT3_POPCNT static void run_popcnt(const es_pair3_t *p, const es_planes_t *pc, uint32_t c0,
                                        uint32_t nc, const es_cum2_t *ac, const es_cum2_t *bc,
                                        es_table3_t *t)
{
    run_body(p, pc, c0, nc, ac, bc, t);
}
#endif

void es_count3_run(const es_pair3_t *p, const es_planes_t *pc, uint32_t c0, uint32_t nc,
                   const es_cum2_t *ac, const es_cum2_t *bc, es_table3_t *t)
{
#if ES_CPU_X86
    if (es_cpu_has(ES_CPU_POPCNT)) {
        run_popcnt(p, pc, c0, nc, ac, bc, t);
        return;
    }
#endif
    run_generic(p, pc, c0, nc, ac, bc, t);
}

void es_table3_permute(const es_table3_t *in, const int rank[3], es_table3_t *out)
{
    for (int y = 0; y < 2; y++)
        for (int g0 = 0; g0 < 3; g0++)
            for (int g1 = 0; g1 < 3; g1++)
                for (int g2 = 0; g2 < 3; g2++) {
                    int g[3] = {0, 0, 0};
                    g[rank[0]] = g0;
                    g[rank[1]] = g1;
                    g[rank[2]] = g2;
                    out->n[y][g[0] * 9 + g[1] * 3 + g[2]] = in->n[y][g0 * 9 + g1 * 3 + g2];
                }
}

int es_count_triple(const es_planes_t *pa, uint32_t a, const es_planes_t *pb, uint32_t b,
                    const es_planes_t *pc, uint32_t c, es_table3_t *t)
{
    es_pair3_t p;
    es_table2_t tac, tbc;
    es_cum2_t ac, bc;
    int ret = es_pair3_alloc(&p, pa);
    if (ret) return ret;
    es_pair3_set(&p, pa, a, pb, b);
    es_count_pair(es_popcount_best(), pa, a, pc, c, &tac);
    es_count_pair(es_popcount_best(), pb, b, pc, c, &tbc);
    es_cum2_from_table(&tac, &ac);
    es_cum2_from_table(&tbc, &bc);
    es_count3_run(&p, pc, c, 1, &ac, &bc, t);
    es_pair3_free(&p);
    return ES_OK;
}

void es_count_triple_naive(const uint8_t *ga, const uint8_t *gb, const uint8_t *gc,
                           const int8_t *status, uint32_t n, es_table3_t *t)
{
    memset(t, 0, sizeof *t);
    for (uint32_t s = 0; s < n; s++) {
        if (status[s] < 0 || ga[s] > 2 || gb[s] > 2 || gc[s] > 2) continue;
        t->n[status[s]][ga[s] * 9 + gb[s] * 3 + gc[s]]++;
    }
}
