/* count.c -- the 2x3x3 table of a variant pair from packed bit planes.
 *
 * Per class, the nine cells of the 3x3 genotype table follow from AND +
 * popcount of the two variants' planes.  With no missing call at either
 * variant only the four inner products |P1a&P1b|, |P1a&P2b|, |P2a&P1b|,
 * |P2a&P2b| are counted; the rest comes from the per-variant genotype counts
 * (es_planes_t.gcount), which pack.c computed once.  With a missing call the
 * pair's table holds only samples called at both variants, so the margins
 * depend on the pair and five more products with the called planes (V) are
 * needed.  Both paths feed one derivation (derive()) from nine sums. */
#include "es_internal.h"

/* The nine sums of one class, in the order of es_and9_fn's out[]. */
enum { X11, X12, X21, X22, A1V, A2V, VB1, VB2, VV };

/* Cells n[a*3+b] of the samples called at both variants, by
 * inclusion-exclusion.  A missing call has P1 = P2 = V = 0, so the products
 * of the P planes already exclude samples missing at either variant. */
static inline void derive(const uint64_t x[9], uint32_t n[9])
{
    n[2 * 3 + 2] = (uint32_t)x[X22];
    n[2 * 3 + 1] = (uint32_t)(x[X21] - x[X22]);
    n[1 * 3 + 2] = (uint32_t)(x[X12] - x[X22]);
    n[1 * 3 + 1] = (uint32_t)(x[X11] - x[X12] - x[X21] + x[X22]);
    n[2 * 3 + 0] = (uint32_t)(x[A2V] - x[X21]);
    n[1 * 3 + 0] = (uint32_t)(x[A1V] - x[A2V] - x[X11] + x[X21]);
    n[0 * 3 + 2] = (uint32_t)(x[VB2] - x[X12]);
    n[0 * 3 + 1] = (uint32_t)(x[VB1] - x[VB2] - x[X11] + x[X12]);
    n[0 * 3 + 0] = (uint32_t)(x[VV] - x[A1V] - x[VB1] + x[X11]);
}

/* Fill the marginal sums a variant without missing calls contributes:
 * against such a variant, "called" is every kept sample of the class. */
static inline void margins_a(const uint32_t g[3], uint64_t x[9])
{
    x[A1V] = (uint64_t)g[1] + g[2];
    x[A2V] = g[2];
}

static inline void margins_b(const uint32_t g[3], uint64_t x[9])
{
    x[VB1] = (uint64_t)g[1] + g[2];
    x[VB2] = g[2];
}

void es_count_pair(const es_popcount_impl_t *impl, const es_planes_t *pa, uint32_t a,
                   const es_planes_t *pb, uint32_t b, es_table2_t *t)
{
    /* Both blocks come from one dataset, so they share the class layout. */
    const size_t wc = pa->w_case, wt = pa->w_ctrl;
    const uint64_t *a1 = es_plane(pa, a, 0), *a2 = es_plane(pa, a, 1);
    const uint64_t *b1 = es_plane(pb, b, 0), *b2 = es_plane(pb, b, 1);
    const uint32_t(*ga)[3] = pa->gcount[a], (*gb)[3] = pb->gcount[b];
    const int miss_a = pa->miss_ct[a] != 0, miss_b = pb->miss_ct[b] != 0;
    /* x[y]: the nine sums of class y (0 control, 1 case); cases are words [0, wc). */
    uint64_t x[2][9] = {{0}};

    if (!miss_a && !miss_b) {
        impl->and4(a1, a2, b1, b2, wc, x[1]);
        impl->and4(a1 + wc, a2 + wc, b1 + wc, b2 + wc, wt, x[0]);
        for (int y = 0; y < 2; y++) {
            margins_a(ga[y], x[y]);
            margins_b(gb[y], x[y]);
            x[y][VV] = (uint64_t)ga[y][0] + ga[y][1] + ga[y][2];
        }
    } else if (pa->n_planes == 3 && pb->n_planes == 3) {
        const uint64_t *av = es_plane(pa, a, 2), *bv = es_plane(pb, b, 2);
        impl->and9(a1, a2, av, b1, b2, bv, wc, x[1]);
        impl->and9(a1 + wc, a2 + wc, av + wc, b1 + wc, b2 + wc, bv + wc, wt, x[0]);
    } else if (miss_a) {
        /* b's block has no V plane (so b has no missing call): against b
         * every kept sample is called; only a's V plane meets b's planes.
         * and4(av, av, b1, b2) yields |av&b1|, |av&b2| twice each. */
        const uint64_t *av = es_plane(pa, a, 2);
        uint64_t v[2][4] = {{0}};
        impl->and4(a1, a2, b1, b2, wc, x[1]);
        impl->and4(a1 + wc, a2 + wc, b1 + wc, b2 + wc, wt, x[0]);
        impl->and4(av, av, b1, b2, wc, v[1]);
        impl->and4(av + wc, av + wc, b1 + wc, b2 + wc, wt, v[0]);
        for (int y = 0; y < 2; y++) {
            margins_a(ga[y], x[y]);
            x[y][VB1] = v[y][0];
            x[y][VB2] = v[y][1];
            x[y][VV] = (uint64_t)ga[y][0] + ga[y][1] + ga[y][2];
        }
    } else {
        /* The mirror image: a has no V plane, b has missing calls. */
        const uint64_t *bv = es_plane(pb, b, 2);
        uint64_t v[2][4] = {{0}};
        impl->and4(a1, a2, b1, b2, wc, x[1]);
        impl->and4(a1 + wc, a2 + wc, b1 + wc, b2 + wc, wt, x[0]);
        impl->and4(a1, a2, bv, bv, wc, v[1]);
        impl->and4(a1 + wc, a2 + wc, bv + wc, bv + wc, wt, v[0]);
        for (int y = 0; y < 2; y++) {
            margins_b(gb[y], x[y]);
            x[y][A1V] = v[y][0];
            x[y][A2V] = v[y][2];
            x[y][VV] = (uint64_t)gb[y][0] + gb[y][1] + gb[y][2];
        }
    }
    derive(x[0], t->n[0]);
    derive(x[1], t->n[1]);
}

void es_count_pair_naive(const uint8_t *ga, const uint8_t *gb, const int8_t *status, uint32_t n,
                         es_table2_t *t)
{
    for (int y = 0; y < 2; y++)
        for (int c = 0; c < 9; c++) t->n[y][c] = 0;
    for (uint32_t s = 0; s < n; s++) {
        if (status[s] < 0 || ga[s] > 2 || gb[s] > 2) continue;
        t->n[status[s] ? 1 : 0][ga[s] * 3 + gb[s]]++;
    }
}
