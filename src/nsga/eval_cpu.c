/* eval_cpu.c -- the fitness of one individual on the CPU: K-means, k-NN and
 * nearest-centroid cross-validated errors, ZDT1 (tests).
 *
 * Why the kernels are shaped so: every squared distance is a sum over the
 * selected features in ascending order, in float, each term one explicit
 * fused multiply-add of the difference (fmaf, vfmadd; nothing else is
 * contracted: the build's -ffp-contract=off), each lane of a vector holding a
 * different sample.  The GPU kernel (gpu/nsga/fitness.cu) computes each distance the
 * same way in one thread, so the CPU's scalar twin, its AVX-512 kernel and the
 * GPU produce the same floats, and the same fronts whatever the split of the
 * population between devices.  Sums over samples (centroids, objectives) are
 * in double, in slot order, on every device.  The kernels
 * read the selected columns where the data hold them (a list of column
 * pointers, no copy). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nsga_internal.h"

#if ES_CPU_X86
#include <immintrin.h>
#endif

int es_ns_scratch_alloc(es_ns_scratch_t *s, const es_ns_problem_t *pb)
{
    memset(s, 0, sizeof *s);
    const es_nsga_data_t *d = pb->d;
    uint32_t p = d->p ? d->p : 1, ns = d->n_slots ? d->n_slots : ES_NSGA_LANES;
    uint32_t kc = pb->clusters > d->n_classes ? pb->clusters : d->n_classes;
    if (kc < 1) kc = 1;
    s->idx = malloc((size_t)p * sizeof *s->idx);
    s->col = malloc((size_t)p * sizeof *s->col);
    s->dist = aligned_alloc(64, (size_t)ns * 2 * sizeof *s->dist);
    s->cent = malloc((size_t)kc * p * sizeof *s->cent);
    s->sum = malloc((size_t)kc * p * sizeof *s->sum);
    s->cnt = malloc((size_t)kc * sizeof *s->cnt);
    s->assign = malloc((size_t)ns * sizeof *s->assign);
    s->prev = malloc((size_t)ns * sizeof *s->prev);
    s->cand = malloc(((size_t)ns + 16) * sizeof *s->cand);
    s->pad = aligned_alloc(64, (size_t)ns * sizeof *s->pad);
    if (!s->pad || !s->cand || !s->idx || !s->col || !s->dist || !s->cent || !s->sum || !s->cnt || !s->assign || !s->prev) {
        es_ns_scratch_free(s);
        return ES_ERR_NOMEM;
    }
    for (uint32_t j = 0; j < ns; j++) /* no data (tests): no pad */
        s->pad[j] = d->orig && j < d->n_slots && d->orig[j] == UINT32_MAX ? INFINITY : 0.0f;
    return ES_OK;
}

void es_ns_scratch_free(es_ns_scratch_t *s)
{
    free(s->idx);
    free(s->col);
    free(s->dist);
    free(s->cent);
    free(s->sum);
    free(s->cnt);
    free(s->assign);
    free(s->prev);
    free(s->cand);
    free(s->pad);
    memset(s, 0, sizeof *s);
}

/* ---- squared distances from one point to a run of slots ------------------------------ */

/* dist[j] = sum over t < m of (cols[t][j] - x[t])^2 for j in [a, b), a and b
 * multiples of ES_NSGA_LANES: the scalar twin. */
static void dist_scalar(const float *const *cols, uint32_t m, const float *restrict x, uint32_t a,
                        uint32_t b, float *restrict dist)
{
    for (uint32_t j = a; j < b; j++) dist[j] = 0.0f;
    for (uint32_t t = 0; t < m; t++) {
        const float *col = cols[t];
        float v = x[t];
        for (uint32_t j = a; j < b; j++) {
            float e = col[j] - v;
            dist[j] = fmaf(e, e, dist[j]);
        }
    }
}

#if ES_CPU_X86
/* The squared distances of slots [j, j + 64) to x in registers, each lane's
 * sum in the scalar order (one fused multiply-add a term, as fmaf), stored at
 * dist + j.  With pad (the k-NN scan): each slot's pad[] added (+inf for a
 * pad, 0 otherwise: x + 0 = x) before the store, and the lane minima folded
 * into *vmin while the sums are in registers. */
__attribute__((target("avx512f"))) static inline void dist64(const float *const *cols, uint32_t m,
                                                             const float *x, uint32_t j, float *dist,
                                                             const float *pad, __m512 *vmin)
{
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    for (uint32_t t = 0; t < m; t++) {
        const float *col = cols[t] + j;
        __m512 v = _mm512_set1_ps(x[t]);
        __m512 e0 = _mm512_sub_ps(_mm512_load_ps(col), v);
        __m512 e1 = _mm512_sub_ps(_mm512_load_ps(col + 16), v);
        __m512 e2 = _mm512_sub_ps(_mm512_load_ps(col + 32), v);
        __m512 e3 = _mm512_sub_ps(_mm512_load_ps(col + 48), v);
        s0 = _mm512_fmadd_ps(e0, e0, s0);
        s1 = _mm512_fmadd_ps(e1, e1, s1);
        s2 = _mm512_fmadd_ps(e2, e2, s2);
        s3 = _mm512_fmadd_ps(e3, e3, s3);
    }
    if (pad) {
        s0 = _mm512_add_ps(s0, _mm512_load_ps(pad + j));
        s1 = _mm512_add_ps(s1, _mm512_load_ps(pad + j + 16));
        s2 = _mm512_add_ps(s2, _mm512_load_ps(pad + j + 32));
        s3 = _mm512_add_ps(s3, _mm512_load_ps(pad + j + 48));
        *vmin = _mm512_min_ps(*vmin, _mm512_min_ps(_mm512_min_ps(s0, s1), _mm512_min_ps(s2, s3)));
    }
    _mm512_store_ps(dist + j, s0);
    _mm512_store_ps(dist + j + 16, s1);
    _mm512_store_ps(dist + j + 32, s2);
    _mm512_store_ps(dist + j + 48, s3);
}

/* The same for slots [j, j + 16 nb), nb = 1, 2 or 3, with nb independent sums
 * (so that a run's tail is not one dependent chain of multiply-adds). */
__attribute__((target("avx512f"))) static inline void dist_tail(const float *const *cols, uint32_t m,
                                                                const float *x, uint32_t j, uint32_t nb,
                                                                float *dist, const float *pad,
                                                                __m512 *vmin)
{
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0;
    for (uint32_t t = 0; t < m; t++) { /* nb is the same all along: the branches predict */
        const float *col = cols[t] + j;
        __m512 v = _mm512_set1_ps(x[t]);
        __m512 e0 = _mm512_sub_ps(_mm512_load_ps(col), v);
        s0 = _mm512_fmadd_ps(e0, e0, s0);
        if (nb > 1) {
            __m512 e1 = _mm512_sub_ps(_mm512_load_ps(col + 16), v);
            s1 = _mm512_fmadd_ps(e1, e1, s1);
        }
        if (nb > 2) {
            __m512 e2 = _mm512_sub_ps(_mm512_load_ps(col + 32), v);
            s2 = _mm512_fmadd_ps(e2, e2, s2);
        }
    }
    if (pad) {
        s0 = _mm512_add_ps(s0, _mm512_load_ps(pad + j));
        *vmin = _mm512_min_ps(*vmin, s0);
    }
    _mm512_store_ps(dist + j, s0);
    if (nb > 1) {
        if (pad) {
            s1 = _mm512_add_ps(s1, _mm512_load_ps(pad + j + 16));
            *vmin = _mm512_min_ps(*vmin, s1);
        }
        _mm512_store_ps(dist + j + 16, s1);
    }
    if (nb > 2) {
        if (pad) {
            s2 = _mm512_add_ps(s2, _mm512_load_ps(pad + j + 32));
            *vmin = _mm512_min_ps(*vmin, s2);
        }
        _mm512_store_ps(dist + j + 32, s2);
    }
}

/* Slots [a, b), 64 at a time, then the last 16, 32 or 48 (pad, vmin: as dist64). */
__attribute__((target("avx512f"))) static inline void dist_run(const float *const *cols, uint32_t m,
                                                               const float *x, uint32_t a, uint32_t b,
                                                               float *dist, const float *pad,
                                                               __m512 *vmin)
{
    uint32_t j = a;
    for (; j + 64 <= b; j += 64) dist64(cols, m, x, j, dist, pad, vmin);
    if (j < b) dist_tail(cols, m, x, j, (b - j) / 16, dist, pad, vmin);
}

/* dist_scalar()'s values. */
__attribute__((target("avx512f"))) static void
dist_avx512(const float *const *cols, uint32_t m, const float *restrict x, uint32_t a, uint32_t b,
            float *restrict dist)
{
    dist_run(cols, m, x, a, b, dist, NULL, NULL);
}
#endif

typedef void (*dist_fn)(const float *const *, uint32_t, const float *restrict, uint32_t, uint32_t,
                        float *restrict);
typedef void (*scan_fn)(const es_nsga_data_t *, es_ns_scratch_t *, uint32_t, const float *,
                        uint32_t, float *, uint32_t *, uint16_t *, uint32_t);

static dist_fn pick_dist(int simd)
{
#if ES_CPU_X86
    const char *force = es_env_variant("EPISTREAM_NSGA_KERNEL");
    if (simd && !(force && !strcmp(force, "scalar")) && __builtin_cpu_supports("avx512f"))
        return dist_avx512;
#else
    (void)simd;
#endif
    return dist_scalar;
}

const char *es_ns_cpu_kernel_name(void)
{
    return pick_dist(1) == dist_scalar ? "scalar" : "avx512";
}

/* ---- the objectives -------------------------------------------------------------------- */

/* The scheduler took this evaluation back (its values will be discarded). */
static inline int stopped(const es_ns_scratch_t *s)
{
    return s->stop && atomic_load_explicit(s->stop, memory_order_relaxed);
}

/* The selected columns, in ascending order; @return m */
static uint32_t gather(const es_nsga_data_t *d, const uint64_t *mask, es_ns_scratch_t *s)
{
    uint32_t m = 0;
    for (uint32_t f = 0; f < d->p; f++)
        if (es_ns_bit(mask, f)) {
            s->idx[m] = f;
            s->col[m++] = d->xc + (size_t)f * d->n_slots;
        }
    return m;
}

/* Insert (dv, o, c) into the k best (ascending by distance, then input
 * sample) when it belongs there. */
static inline void knn_offer(float *bd, uint32_t *bo, uint16_t *bc, uint32_t k, float dv,
                             uint32_t o, uint16_t c)
{
    if (dv > bd[k - 1] || (dv == bd[k - 1] && o >= bo[k - 1])) return;
    uint32_t q = k - 1;
    while (q > 0 && (dv < bd[q - 1] || (dv == bd[q - 1] && o < bo[q - 1]))) {
        bd[q] = bd[q - 1];
        bo[q] = bo[q - 1];
        bc[q] = bc[q - 1];
        q--;
    }
    bd[q] = dv;
    bo[q] = o;
    bc[q] = c;
}

/* The k best of the slots of every fold but fo: the scalar twin offers them
 * one by one. */
static void scan_scalar(const es_nsga_data_t *d, es_ns_scratch_t *s, uint32_t m, const float *xi,
                        uint32_t fo, float *bd, uint32_t *bo, uint16_t *bc, uint32_t k)
{
    uint32_t ns = d->n_slots, a = d->fold_off[fo], b = d->fold_off[fo + 1];
    const float *dist = s->dist;
    if (a > 0) dist_scalar(s->col, m, xi, 0, a, s->dist);
    if (b < ns) dist_scalar(s->col, m, xi, b, ns, s->dist);
    for (uint32_t g = 0; g < d->n_folds; g++) {
        if (g == fo) continue;
        uint32_t j1 = d->fold_off[g] + d->fold_n[g];
        for (uint32_t j = d->fold_off[g]; j < j1; j++)
            if (dist[j] <= bd[k - 1]) knn_offer(bd, bo, bc, k, dist[j], d->orig[j], d->y[j]);
    }
}

#if ES_CPU_X86
/* One step of the bitonic network: each lane and its partner w (a lane's
 * partner differs from it in one bit) ordered, the lanes of upper taking the
 * larger.  The values are squared distances: never negative, never NaN, so
 * their bits order as unsigned integers, whose min and max take one cycle. */
#define SORT16_STEP(v, w, upper)                                                                   \
    v = _mm512_mask_blend_epi32((__mmask16)(upper), _mm512_min_epu32(v, w), _mm512_max_epu32(v, w))

/* The 16 lanes of x in ascending order: Batcher's bitonic network, 10 steps
 * of a shuffle, a min, a max and a blend, no branch (partners 1 and 2 lanes
 * away by in-lane shuffles, 4 and 8 by 128-bit block shuffles). */
__attribute__((target("avx512f"))) static inline __m512 sort16(__m512 x)
{
    __m512i v = _mm512_castps_si512(x);
#define P1(v) _mm512_shuffle_epi32(v, (_MM_PERM_ENUM)0xb1)
#define P2(v) _mm512_shuffle_epi32(v, (_MM_PERM_ENUM)0x4e)
#define P4(v) _mm512_shuffle_i32x4(v, v, 0xb1)
#define P8(v) _mm512_shuffle_i32x4(v, v, 0x4e)
    SORT16_STEP(v, P1(v), 0x6666);
    SORT16_STEP(v, P2(v), 0x3c3c);
    SORT16_STEP(v, P1(v), 0x5a5a);
    SORT16_STEP(v, P4(v), 0x0ff0);
    SORT16_STEP(v, P2(v), 0x33cc);
    SORT16_STEP(v, P1(v), 0x55aa);
    SORT16_STEP(v, P8(v), 0xff00);
    SORT16_STEP(v, P4(v), 0xf0f0);
    SORT16_STEP(v, P2(v), 0xcccc);
    SORT16_STEP(v, P1(v), 0xaaaa);
#undef P1
#undef P2
#undef P4
#undef P8
    return _mm512_castsi512_ps(v);
}
#undef SORT16_STEP

/* The same set (the k best under a total order do not depend on the order in
 * which they are found), with few offers.  The minimum of each of the 16
 * lanes over all blocks gives 16 distinct samples, the k-th smallest of which
 * (the bound) is at or above the k-th best distance, so the slots within the
 * bound hold the k best.  Mostly there are exactly k of them: they are the
 * answer, with no offer and no sort.  Up to 16 are ranked at once in
 * registers (distance, then input sample); more (ties, or k > 16) are offered
 * one by one.  Pads are +inf (s->pad), so no block needs a mask. */
__attribute__((target("avx512f"))) static void scan_avx512(const es_nsga_data_t *d,
                                                           es_ns_scratch_t *s, uint32_t m,
                                                           const float *xi, uint32_t fo,
                                                           float *bd, uint32_t *bo, uint16_t *bc,
                                                           uint32_t k)
{
    /* the distances of the other folds' slots (two runs of whole vectors: the
       folds are laid out one after another) and their lane minima */
    float *dist = s->dist;
    uint32_t ns = d->n_slots, a = d->fold_off[fo], b = d->fold_off[fo + 1];
    __m512 vmin = _mm512_set1_ps(INFINITY);
    if (a > 0) dist_run(s->col, m, xi, 0, a, dist, s->pad, &vmin);
    if (b < ns) dist_run(s->col, m, xi, b, ns, dist, s->pad, &vmin);
    /* the k-th smallest lane minimum, from the 16 sorted in registers */
    float bound = k <= 16 ? _mm512_cvtss_f32(_mm512_permutexvar_ps(_mm512_set1_epi32((int)k - 1),
                                                                     sort16(vmin)))
                          : INFINITY;
    /* the slots within the bound (a pad only with an infinite bound) */
    __m512 vb = _mm512_set1_ps(bound);
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    uint32_t nc = 0;
    for (int run = 0; run < 2; run++) {
        uint32_t j0 = run ? b : 0, j1 = run ? ns : a;
        for (uint32_t j = j0; j < j1; j += 16) {
            __mmask16 hit = _mm512_cmp_ps_mask(_mm512_load_ps(dist + j), vb, _CMP_LE_OQ);
            /* compress in a register, store whole (a compress to memory is slow on
               some CPUs, Zen 4 among them), with no branch: cand has 16 spare entries */
            _mm512_storeu_si512(s->cand + nc, _mm512_maskz_compress_epi32(
                                                  hit, _mm512_add_epi32(lane, _mm512_set1_epi32((int)j))));
            nc += (uint32_t)__builtin_popcount(hit);
        }
    }
    if (nc == k && bound < INFINITY) { /* exactly the k best */
        for (uint32_t q = 0; q < k; q++) {
            uint32_t j = s->cand[q];
            bd[q] = dist[j];
            bo[q] = d->orig[j];
            bc[q] = d->y[j];
        }
        return;
    }
    if (nc <= 16 && bound < INFINITY) {
        /* rank each candidate: the candidates before it by (distance, input sample) */
        __mmask16 valid = (__mmask16)((1u << nc) - 1);
        __m512i vj = _mm512_maskz_loadu_epi32(valid, s->cand);
        __m512 vd = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), valid, vj, dist, 4);
        __m512i vo = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), valid, vj,
                                                 (const int *)d->orig, 4);
        __m512i rank = _mm512_setzero_si512();
        const __m512i one = _mm512_set1_epi32(1);
        for (uint32_t r = 0; r < nc; r++) {
            uint32_t j = s->cand[r];
            __m512 dr = _mm512_set1_ps(dist[j]);
            __m512i orr = _mm512_set1_epi32((int)d->orig[j]);
            __mmask16 after = _mm512_cmp_ps_mask(vd, dr, _CMP_GT_OQ) |
                              (_mm512_cmp_ps_mask(vd, dr, _CMP_EQ_OQ) & _mm512_cmpgt_epu32_mask(vo, orr));
            rank = _mm512_mask_add_epi32(rank, after, rank, one);
        }
        uint32_t sel = _mm512_mask_cmplt_epu32_mask(valid, rank, _mm512_set1_epi32((int)k)), q = 0;
        for (; sel; sel &= sel - 1, q++) {
            uint32_t j = s->cand[__builtin_ctz(sel)];
            bd[q] = dist[j];
            bo[q] = d->orig[j];
            bc[q] = d->y[j];
        }
        return;
    }
    for (uint32_t q = 0; q < nc; q++) {
        uint32_t j = s->cand[q];
        if (dist[j] <= bd[k - 1]) knn_offer(bd, bo, bc, k, dist[j], d->orig[j], d->y[j]);
    }
}
#endif

/* The most frequent class among the k (lower class on ties), the k-NN vote. */
static uint32_t knn_vote(const uint32_t *bo, const uint16_t *bc, uint32_t k, uint32_t *votes,
                         uint32_t n_classes)
{
    memset(votes, 0, n_classes * sizeof *votes);
    for (uint32_t q = 0; q < k; q++)
        if (bo[q] != UINT32_MAX) votes[bc[q]]++;
    uint32_t best = 0;
    for (uint32_t c = 1; c < n_classes; c++)
        if (votes[c] > votes[best]) best = c;
    return best;
}

/* k-NN: each sample predicted from the k nearest samples of the other folds
 * (ties by input order), majority vote; @return the errors */
static uint32_t knn_errors(const es_ns_problem_t *pb, es_ns_scratch_t *s, uint32_t m,
                           scan_fn scan)
{
    const es_nsga_data_t *d = pb->d;
    uint32_t k = pb->knn_k, err = 0;
    float bd[ES_NSGA_KNN_MAX];
    uint32_t bo[ES_NSGA_KNN_MAX];
    uint16_t bc[ES_NSGA_KNN_MAX];
    float *xi = s->cent; /* the test sample's m values */
    for (uint32_t fo = 0; fo < d->n_folds; fo++) {
        uint32_t a = d->fold_off[fo];
        for (uint32_t i = a; i < a + d->fold_n[fo]; i++) {
            if (stopped(s)) return err;
            for (uint32_t t = 0; t < m; t++) xi[t] = s->col[t][i];
            for (uint32_t q = 0; q < k; q++) {
                bd[q] = INFINITY;
                bo[q] = UINT32_MAX;
                bc[q] = 0;
            }
            scan(d, s, m, xi, fo, bd, bo, bc, k);
            err += knn_vote(bo, bc, k, s->cnt, d->n_classes) != d->y[i];
        }
    }
    return err;
}

/* Nearest centroid: per fold, each class's mean over the other folds (sums
 * in double, slot order), each test sample to the nearest (lower class on
 * ties; a class absent from the training folds is never predicted).
 * @return the errors */
static uint32_t nc_errors(const es_ns_problem_t *pb, es_ns_scratch_t *s, uint32_t m, dist_fn dist)
{
    const es_nsga_data_t *d = pb->d;
    uint32_t ns = d->n_slots, nc = d->n_classes, err = 0;
    float *best = s->dist + ns;
    for (uint32_t fo = 0; fo < d->n_folds; fo++) {
        uint32_t a = d->fold_off[fo], b = d->fold_off[fo + 1];
        if (stopped(s)) return err;
        /* each (class, feature) sum in slot order (slot by slot, as K-means) */
        memset(s->sum, 0, (size_t)nc * m * sizeof *s->sum);
        memset(s->cnt, 0, nc * sizeof *s->cnt);
        for (uint32_t g = 0; g < d->n_folds; g++) {
            if (g == fo) continue;
            uint32_t j1 = d->fold_off[g] + d->fold_n[g];
            for (uint32_t j = d->fold_off[g]; j < j1; j++) {
                double *sm = s->sum + (size_t)d->y[j] * m;
                for (uint32_t t = 0; t < m; t++) sm[t] += s->col[t][j];
                s->cnt[d->y[j]]++;
            }
        }
        for (uint32_t c = 0; c < nc; c++)
            for (uint32_t t = 0; t < m; t++)
                s->cent[(size_t)c * m + t] =
                    s->cnt[c] ? (float)(s->sum[(size_t)c * m + t] / s->cnt[c]) : 0.0f;
        for (uint32_t j = a; j < b; j++) {
            best[j] = INFINITY;
            s->assign[j] = 0;
        }
        for (uint32_t c = 0; c < nc; c++) {
            if (!s->cnt[c]) continue;
            dist(s->col, m, s->cent + (size_t)c * m, a, b, s->dist);
            for (uint32_t j = a; j < b; j++)
                if (s->dist[j] < best[j]) {
                    best[j] = s->dist[j];
                    s->assign[j] = (uint16_t)c;
                }
        }
        for (uint32_t j = a; j < a + d->fold_n[fo]; j++) err += s->assign[j] != d->y[j];
    }
    return err;
}

/* Assign every slot to its nearest centroid (lower cluster on ties): best[]
 * its squared distance.  @return the samples whose cluster changed */
static uint32_t km_assign(const es_nsga_data_t *d, es_ns_scratch_t *s, uint32_t m, uint32_t kc,
                          dist_fn dist)
{
    uint32_t ns = d->n_slots, changed = 0;
    float *best = s->dist + ns;
    uint16_t *prev = s->prev;
    memcpy(prev, s->assign, (size_t)d->n * sizeof *prev);
    for (uint32_t j = 0; j < ns; j++) {
        best[j] = INFINITY;
        s->assign[j] = 0;
    }
    for (uint32_t c = 0; c < kc; c++) {
        if (stopped(s)) return 0;
        dist(s->col, m, s->cent + (size_t)c * m, 0, ns, s->dist);
        for (uint32_t j = 0; j < ns; j++)
            if (s->dist[j] < best[j]) {
                best[j] = s->dist[j];
                s->assign[j] = (uint16_t)c;
            }
    }
    for (uint32_t j = 0; j < d->n; j++) changed += prev[j] != s->assign[j];
    return changed;
}

/* K-means from the generation's initial centroids (samples), Lloyd
 * iterations until no sample changes cluster or kmeans_iter updates; an
 * empty cluster keeps its centroid.  f[0] the mean distance of a sample to
 * its centroid, f[1] minus the mean distance between two centroids. */
static void kmeans(const es_ns_problem_t *pb, es_ns_scratch_t *s, uint32_t m, dist_fn dist,
                   double f[2])
{
    const es_nsga_data_t *d = pb->d;
    uint32_t ns = d->n_slots, kc = pb->clusters;
    float *best = s->dist + ns;
    for (uint32_t c = 0; c < kc; c++)
        for (uint32_t t = 0; t < m; t++)
            s->cent[(size_t)c * m + t] = s->col[t][pb->init[c]];
    memset(s->assign, 0, (size_t)ns * sizeof *s->assign);
    km_assign(d, s, m, kc, dist);
    for (uint32_t it = 0; it < pb->kmeans_iter && !stopped(s); it++) {
        /* each (cluster, feature) sum in sample order (sample by sample: the m sums
           of a sample are independent, which keeps the adds in flight) */
        memset(s->sum, 0, (size_t)kc * m * sizeof *s->sum);
        memset(s->cnt, 0, kc * sizeof *s->cnt);
        for (uint32_t j = 0; j < d->n; j++) {
            if (!(j & 15) && stopped(s)) return;
            double *sm = s->sum + (size_t)s->assign[j] * m;
            for (uint32_t t = 0; t < m; t++) sm[t] += s->col[t][j];
            s->cnt[s->assign[j]]++;
        }
        for (uint32_t c = 0; c < kc; c++)
            if (s->cnt[c])
                for (uint32_t t = 0; t < m; t++)
                    s->cent[(size_t)c * m + t] = (float)(s->sum[(size_t)c * m + t] / s->cnt[c]);
        if (!km_assign(d, s, m, kc, dist)) break;
    }
    double intra = 0.0, inter = 0.0;
    for (uint32_t j = 0; j < d->n; j++) intra += sqrtf(best[j]);
    for (uint32_t c = 0; c < kc; c++)
        for (uint32_t l = c + 1; l < kc; l++) {
            float q = 0.0f;
            for (uint32_t t = 0; t < m; t++) {
                float e = s->cent[(size_t)c * m + t] - s->cent[(size_t)l * m + t];
                q = fmaf(e, e, q);
            }
            inter += sqrtf(q);
        }
    f[0] = intra / d->n;
    f[1] = kc > 1 ? -inter / ((double)kc * (kc - 1) / 2) : 0.0;
}

/* ZDT1 over vars variables of p / vars bits each (most significant first). */
static void zdt1(const uint64_t *mask, uint32_t p, uint32_t vars, double f[2])
{
    uint32_t bits = p / vars;
    double top = ldexp(1.0, (int)bits) - 1.0, g = 0.0, x0 = 0.0;
    for (uint32_t v = 0; v < vars; v++) {
        double u = 0.0;
        for (uint32_t q = 0; q < bits; q++) u = 2.0 * u + es_ns_bit(mask, v * bits + q);
        if (v == 0) x0 = u / top;
        else g += u / top;
    }
    g = 1.0 + 9.0 * g / (vars - 1);
    f[0] = x0;
    f[1] = g * (1.0 - sqrt(x0 / g));
}

void es_ns_eval_cpu(const es_ns_problem_t *pb, const uint64_t *mask, es_ns_scratch_t *s,
                    int simd, double f[2])
{
    if (pb->obj == ES_NSGA_ZDT1) {
        zdt1(mask, pb->d->p, pb->zdt_vars, f);
        return;
    }
    const es_nsga_data_t *d = pb->d;
    dist_fn dist = pick_dist(simd);
    uint32_t m = gather(d, mask, s);
    if (pb->obj == ES_NSGA_KMEANS) {
        if (!m) {
            f[0] = f[1] = 0.0;
            return;
        }
        kmeans(pb, s, m, dist, f);
        return;
    }
    f[0] = (double)m / d->p;
    if (!m) {
        f[1] = 1.0; /* no feature: every prediction wrong, by convention */
        return;
    }
    scan_fn scan = scan_scalar;
#if ES_CPU_X86
    if (dist == dist_avx512) scan = scan_avx512;
#endif
    uint32_t err = pb->obj == ES_NSGA_KNN ? knn_errors(pb, s, m, scan) : nc_errors(pb, s, m, dist);
    f[1] = (double)err / d->n;
}
