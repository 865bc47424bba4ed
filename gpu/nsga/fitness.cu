/* fitness.cu -- NSGA-II fitness on a GPU: K-means, k-NN and nearest-centroid
 * cross-validated errors, one individual per thread block.
 *
 * The data are uploaded once in both layouts (column-major for the distance
 * loops, where the threads of a warp read consecutive samples of one
 * feature; row-major for copying a sample's selected features into an
 * initial centroid), the population once per generation with the host's
 * order of it (position -> individual: the scheduler puts the heaviest first,
 * so that the blocks of a launch longer than one wave end together), and a
 * launch evaluates a range of positions.  K-means launches of at most one
 * block an SM use a 1,024-thread block an individual (gkn_kmeans_wide), the
 * others 256 threads, several individuals an SM.
 * Every value is the CPU's (src/nsga/eval_cpu.c) bit for bit:
 * a squared distance is the sum over the selected features in ascending
 * order of __fsub_rn then __fmaf_rn(e, e, s) (the CPU's fmaf / vfmadd), in
 * one thread; sums over samples (centroids, objectives) are doubles added in
 * slot order by one thread; sqrtf and the divisions are IEEE (no fast-math).
 * Names private to this file use gkn_. */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "gpu.h"
#include "nsga_gpu.h"

namespace {

constexpr int GKN_THREADS = 256;
constexpr uint32_t GKN_NONE = 0xffffffffu;
constexpr int GKN_KNN_MAX = 64;

/* What every kernel reads (by value). */
struct gkn_args {
    const float *xc, *xr;
    const uint32_t *orig;
    const uint16_t *y;
    const uint64_t *masks;
    const uint32_t *init;
    const uint32_t *order; /* position -> individual (the host's order of the generation) */
    uint32_t n, p, ns, n_classes, n_folds, words, knn_k, clusters, kmeans_iter, kc;
    uint32_t fold_off[33], fold_n[32];
    uint32_t first;        /* the chunk's first position in order */
    /* per block (position - first) scratch */
    uint32_t *idx;   /* p */
    float *cent;     /* kc * p */
    uint32_t *cnt;   /* kc */
    float *best;     /* ns */
    uint16_t *assign;/* ns */
    double *f;       /* 2 per individual of the chunk */
};

/* The block's selected features into idx (in ascending order), every thread
 * a word: its ones counted, the counts scanned over the block, each thread
 * writing its features at its offset (the same list as one thread walking the
 * words in order).  @return m (the same in every thread) */
__device__ uint32_t gkn_gather(const gkn_args &a, const uint64_t *mask, uint32_t *idx)
{
    __shared__ uint32_t s_warp[32]; /* a block has at most 1,024 threads */
    uint32_t lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5, base = 0;
    for (uint32_t w0 = 0; w0 < a.words; w0 += blockDim.x) {
        uint32_t w = w0 + threadIdx.x;
        uint64_t v = w < a.words ? mask[w] : 0;
        uint32_t c = (uint32_t)__popcll(v), x = c; /* x: the inclusive scan in the warp */
        for (uint32_t o = 1; o < 32; o <<= 1) {
            uint32_t y = __shfl_up_sync(0xffffffffu, x, o);
            if (lane >= o) x += y;
        }
        if (lane == 31) s_warp[wid] = x;
        __syncthreads();
        uint32_t before = 0, total = 0;
        for (uint32_t q = 0; q < nw; q++) {
            uint32_t t = s_warp[q];
            before += q < wid ? t : 0;
            total += t;
        }
        uint32_t at = base + before + x - c;
        while (v) {
            idx[at++] = w * 64 + (uint32_t)(__ffsll((long long)v) - 1);
            v &= v - 1;
        }
        base += total;
        __syncthreads(); /* idx complete, s_warp free again */
    }
    return base;
}

/* sum over t < m of (xc[idx[t]][j] - x(t))^2, t ascending; x(t) = xc[idx[t]][i] */
__device__ float gkn_dist_slots(const gkn_args &a, const uint32_t *idx, uint32_t m, uint32_t i,
                                uint32_t j)
{
    float s = 0.0f;
    for (uint32_t t = 0; t < m; t++) {
        const float *col = a.xc + (size_t)idx[t] * a.ns;
        float e = __fsub_rn(col[j], col[i]);
        s = __fmaf_rn(e, e, s);
    }
    return s;
}

/* Slot j's squared distances to the centroids c0 .. c0 + nc - 1 (nc <= GKN_CGROUP) in one pass
 * over the features: each sample value read once, nc independent sums, each the sum over the
 * selected features in ascending order of gkn_dist_slots (the CPU's floats). */
constexpr uint32_t GKN_CGROUP = 8;
__device__ void gkn_dist_cents(const gkn_args &a, const uint32_t *idx, uint32_t m, uint32_t j,
                               const float *cent, uint32_t c0, uint32_t nc, float *dv)
{
    float s[GKN_CGROUP];
#pragma unroll
    for (uint32_t c = 0; c < GKN_CGROUP; c++) s[c] = 0.0f;
    const float *cb = cent + (size_t)c0 * m;
    for (uint32_t t = 0; t < m; t++) {
        float x = a.xc[(size_t)idx[t] * a.ns + j];
#pragma unroll
        for (uint32_t c = 0; c < GKN_CGROUP; c++)
            if (c < nc) {
                float e = __fsub_rn(x, cb[(size_t)c * m + t]);
                s[c] = __fmaf_rn(e, e, s[c]);
            }
    }
#pragma unroll
    for (uint32_t c = 0; c < GKN_CGROUP; c++)
        if (c < nc) dv[c] = s[c];
}

/* The mean of feature idx[t] over the slots j < n with key[j] == c, a double sum in slot
 * order, read from the row-major copy (the threads of a warp take neighbouring features of
 * one sample: nearby addresses); *n_c the slots counted.  Skips fold `skip` (none: n_folds). */
__device__ double gkn_mean_rows(const gkn_args &a, uint32_t f, const uint16_t *key, uint16_t c,
                                uint32_t skip, uint32_t *n_c)
{
    double s = 0.0;
    uint32_t n = 0;
    if (a.n_folds == 0) {
        for (uint32_t j = 0; j < a.n; j++)
            if (key[j] == c) {
                s += a.xr[(size_t)j * a.p + f];
                n++;
            }
    } else {
        for (uint32_t g = 0; g < a.n_folds; g++) {
            if (g == skip) continue;
            uint32_t j1 = a.fold_off[g] + a.fold_n[g];
            for (uint32_t j = a.fold_off[g]; j < j1; j++)
                if (key[j] == c) {
                    s += a.xr[(size_t)j * a.p + f];
                    n++;
                }
        }
    }
    *n_c = n;
    return s;
}

/* Feature f's sums over the slots j < n for every cluster c < kc (kc <= GKN_KM_FEAT) in one
 * pass over the samples: each cluster's sum the doubles of gkn_mean_rows(), added in the same
 * slot order, so the same values, with one read of each sample instead of kc; the means into
 * cent[c * m + t] (a cluster with no sample keeps its centroid). */
constexpr uint32_t GKN_KM_FEAT = 4;
__device__ void gkn_means_feature(const gkn_args &a, uint32_t f, const uint16_t *key, uint32_t kc,
                                  float *cent, uint32_t m, uint32_t t)
{
    double s[GKN_KM_FEAT];
    uint32_t n[GKN_KM_FEAT];
#pragma unroll
    for (uint32_t c = 0; c < GKN_KM_FEAT; c++) {
        s[c] = 0.0;
        n[c] = 0;
    }
    for (uint32_t j = 0; j < a.n; j++) {
        uint32_t k = key[j];
        float x = a.xr[(size_t)j * a.p + f];
#pragma unroll
        for (uint32_t c = 0; c < GKN_KM_FEAT; c++)
            if (c == k) {
                s[c] += x;
                n[c]++;
            }
    }
#pragma unroll
    for (uint32_t c = 0; c < GKN_KM_FEAT; c++)
        if (c < kc && n[c]) cent[(size_t)c * m + t] = (float)(s[c] / n[c]);
}

__device__ uint32_t gkn_block_sum(uint32_t v)
{
    __shared__ uint32_t s_sum;
    if (threadIdx.x == 0) s_sum = 0;
    __syncthreads();
    atomicAdd(&s_sum, v);
    __syncthreads();
    uint32_t r = s_sum;
    __syncthreads();
    return r;
}

/* A classifier's objectives: F1 = m / p, F2 = err / n (1 with no feature). */
__device__ void gkn_put_error(const gkn_args &a, uint32_t b, uint32_t m, uint32_t err)
{
    if (threadIdx.x) return;
    a.f[2 * b] = (double)m / a.p;
    a.f[2 * b + 1] = m ? (double)err / a.n : 1.0;
}

__global__ void gkn_knn(gkn_args a)
{
    uint32_t b = blockIdx.x, ind = a.order[a.first + b];
    uint32_t *idx = a.idx + (size_t)b * a.p;
    uint32_t m = gkn_gather(a, a.masks + (size_t)ind * a.words, idx);
    if (!m) {
        gkn_put_error(a, b, 0, 0); /* no feature: F = (0, 1) */
        return;
    }
    uint32_t err = 0, k = a.knn_k;
    float bd[GKN_KNN_MAX];
    uint32_t bo[GKN_KNN_MAX];
    uint16_t bc[GKN_KNN_MAX];
    for (uint32_t i = threadIdx.x; i < a.ns; i += blockDim.x) {
        if (a.orig[i] == GKN_NONE) continue;
        uint32_t fo = 0;
        while (i >= a.fold_off[fo + 1]) fo++;
        for (uint32_t q = 0; q < k; q++) {
            bd[q] = INFINITY;
            bo[q] = GKN_NONE;
            bc[q] = 0;
        }
        for (uint32_t g = 0; g < a.n_folds; g++) {
            if (g == fo) continue;
            uint32_t j1 = a.fold_off[g] + a.fold_n[g];
            for (uint32_t j = a.fold_off[g]; j < j1; j++) {
                float dv = gkn_dist_slots(a, idx, m, i, j);
                uint32_t o = a.orig[j];
                if (dv > bd[k - 1] || (dv == bd[k - 1] && o >= bo[k - 1])) continue;
                uint32_t q = k - 1;
                while (q > 0 && (dv < bd[q - 1] || (dv == bd[q - 1] && o < bo[q - 1]))) {
                    bd[q] = bd[q - 1];
                    bo[q] = bo[q - 1];
                    bc[q] = bc[q - 1];
                    q--;
                }
                bd[q] = dv;
                bo[q] = o;
                bc[q] = a.y[j];
            }
        }
        /* the vote: the most frequent class, the lower on ties (0 with no neighbour) */
        uint32_t best = 0, best_v = 0;
        for (uint32_t q = 0; q < k; q++) {
            if (bo[q] == GKN_NONE) continue;
            uint32_t v = 0;
            for (uint32_t r = 0; r < k; r++) v += bo[r] != GKN_NONE && bc[r] == bc[q];
            if (v > best_v || (v == best_v && bc[q] < best)) {
                best = bc[q];
                best_v = v;
            }
        }
        err += best != a.y[i];
    }
    gkn_put_error(a, b, m, gkn_block_sum(err));
}

__global__ void gkn_nc(gkn_args a)
{
    uint32_t b = blockIdx.x, ind = a.order[a.first + b];
    uint32_t *idx = a.idx + (size_t)b * a.p;
    float *cent = a.cent + (size_t)b * a.kc * a.p;
    uint32_t *cnt = a.cnt + (size_t)b * a.kc;
    uint32_t m = gkn_gather(a, a.masks + (size_t)ind * a.words, idx);
    if (!m) {
        gkn_put_error(a, b, 0, 0); /* no feature: F = (0, 1) */
        return;
    }
    uint32_t err = 0, nc = a.n_classes;
    for (uint32_t fo = 0; fo < a.n_folds; fo++) {
        /* each (class, feature) mean over the other folds, a double sum in slot order */
        for (uint32_t ct = threadIdx.x; ct < nc * m; ct += blockDim.x) {
            uint32_t c = ct / m, t = ct % m, n_c;
            double s = gkn_mean_rows(a, idx[t], a.y, (uint16_t)c, fo, &n_c);
            cent[(size_t)c * m + t] = n_c ? (float)(s / n_c) : 0.0f;
            if (t == 0) cnt[c] = n_c;
        }
        __syncthreads();
        uint32_t a0 = a.fold_off[fo], a1 = a0 + a.fold_n[fo];
        for (uint32_t i = a0 + threadIdx.x; i < a1; i += blockDim.x) {
            float best = INFINITY, dv[GKN_CGROUP];
            uint32_t pred = 0;
            for (uint32_t c0 = 0; c0 < nc; c0 += GKN_CGROUP) {
                uint32_t g = nc - c0 < GKN_CGROUP ? nc - c0 : GKN_CGROUP;
                gkn_dist_cents(a, idx, m, i, cent, c0, g, dv);
                for (uint32_t c = 0; c < g; c++)
                    if (cnt[c0 + c] && dv[c] < best) {
                        best = dv[c];
                        pred = c0 + c;
                    }
            }
            err += pred != a.y[i];
        }
        __syncthreads();
    }
    gkn_put_error(a, b, m, gkn_block_sum(err));
}

/* The K-means centroid update of the block's individual (every cluster's mean of each selected
 * feature over its samples; an empty cluster keeps its centroid), then a block barrier: a
 * thread per feature (every cluster in one pass) when that keeps the block busy, else a thread
 * per (cluster, feature): the same values either way. */
__device__ void gkn_km_update(const gkn_args &a, const uint32_t *idx, uint32_t m, const uint16_t *assign,
                              float *cent)
{
    uint32_t kc = a.clusters;
    if (kc <= GKN_KM_FEAT && kc * m > blockDim.x && a.n_folds == 0) {
        for (uint32_t t = threadIdx.x; t < m; t += blockDim.x) gkn_means_feature(a, idx[t], assign, kc, cent, m, t);
    } else {
        for (uint32_t ct = threadIdx.x; ct < kc * m; ct += blockDim.x) {
            uint32_t c = ct / m, t = ct - c * m, n_c;
            double s = gkn_mean_rows(a, idx[t], assign, (uint16_t)c, 0, &n_c);
            if (n_c) cent[ct] = (float)(s / n_c);
        }
    }
    __syncthreads();
}

/* Every slot to its nearest centroid; @return (block-wide) the samples that moved */
__device__ uint32_t gkn_km_assign(const gkn_args &a, const uint32_t *idx, uint32_t m,
                                  const float *cent, float *best, uint16_t *assign)
{
    uint32_t changed = 0;
    for (uint32_t j = threadIdx.x; j < a.ns; j += blockDim.x) {
        float bv = INFINITY, dv[GKN_CGROUP];
        uint16_t bc = 0;
        for (uint32_t c0 = 0; c0 < a.clusters; c0 += GKN_CGROUP) {
            uint32_t g = a.clusters - c0 < GKN_CGROUP ? a.clusters - c0 : GKN_CGROUP;
            gkn_dist_cents(a, idx, m, j, cent, c0, g, dv);
            for (uint32_t c = 0; c < g; c++)
                if (dv[c] < bv) {
                    bv = dv[c];
                    bc = (uint16_t)(c0 + c);
                }
        }
        if (j < a.n) changed += assign[j] != bc;
        best[j] = bv;
        assign[j] = bc;
    }
    return gkn_block_sum(changed);
}

__global__ void gkn_kmeans(gkn_args a)
{
    uint32_t b = blockIdx.x, ind = a.order[a.first + b];
    uint32_t *idx = a.idx + (size_t)b * a.p;
    float *cent = a.cent + (size_t)b * a.kc * a.p;
    float *best = a.best + (size_t)b * a.ns;
    uint16_t *assign = a.assign + (size_t)b * a.ns;
    uint32_t m = gkn_gather(a, a.masks + (size_t)ind * a.words, idx);
    if (!m) {
        if (threadIdx.x == 0) a.f[2 * b] = a.f[2 * b + 1] = 0.0;
        return;
    }
    uint32_t kc = a.clusters;
    /* the initial centroids: the generation's samples, from the row-major copy */
    for (uint32_t ct = threadIdx.x; ct < kc * m; ct += blockDim.x) {
        uint32_t c = ct / m, t = ct % m;
        cent[ct] = a.xr[(size_t)a.init[c] * a.p + idx[t]];
    }
    for (uint32_t j = threadIdx.x; j < a.ns; j += blockDim.x) assign[j] = 0;
    __syncthreads();
    gkn_km_assign(a, idx, m, cent, best, assign);
    for (uint32_t it = 0; it < a.kmeans_iter; it++) {
        gkn_km_update(a, idx, m, assign, cent);
        if (!gkn_km_assign(a, idx, m, cent, best, assign)) break;
    }
    if (threadIdx.x == 0) {
        double intra = 0.0, inter = 0.0;
        for (uint32_t j = 0; j < a.n; j++) intra += sqrtf(best[j]);
        for (uint32_t c = 0; c < kc; c++)
            for (uint32_t l = c + 1; l < kc; l++) {
                float q = 0.0f;
                for (uint32_t t = 0; t < m; t++) {
                    float e = __fsub_rn(cent[(size_t)c * m + t], cent[(size_t)l * m + t]);
                    q = __fmaf_rn(e, e, q);
                }
                inter += sqrtf(q);
            }
        a.f[2 * b] = intra / a.n;
        a.f[2 * b + 1] = kc > 1 ? -inter / ((double)kc * (kc - 1) / 2) : 0.0;
    }
}

/* ---- K-means with one wide block an individual (small populations) ----------------------
 *
 * With fewer individuals than SMs (the paper's population of 120 on a 132-SM H200) a
 * 256-thread block an individual leaves each SM with 6 to 8 busy warps and the others idle.
 * gkn_kmeans_wide gives an individual GKN_WIDE threads and keeps what it reads over and
 * over in shared memory (the selected features, the centroids, the assignment): every
 * (centroid, slot) distance is a thread of its own (kc x n_slots of them, where the
 * 256-thread kernel has a thread a slot summing kc distances side by side), the centroid
 * update a thread per feature, the centroid pairs of F2 a thread each.  Each value is
 * computed by the same operations in the same order as gkn_kmeans (each distance the sum
 * over the selected features in ascending order, each mean the doubles in slot order, the
 * nearest centroid the first of the minima, F1 and F2 summed by one thread in slot and
 * pair order): the same bits. */
constexpr int GKN_WIDE = 1024;

/* The shared memory of one wide block (bytes, 16-aligned): idx p, cent kc p, dist
 * max(kc ns, pairs), best ns, assign ns. */
__host__ __device__ inline size_t gkn_wide_smem(uint32_t p, uint32_t kc, uint32_t ns)
{
    size_t dist = (size_t)kc * ns, pairs = (size_t)kc * (kc - 1) / 2;
    if (pairs > dist) dist = pairs;
    size_t b = ((size_t)p + (size_t)kc * p + dist + ns) * 4 + (size_t)ns * 2;
    return (b + 15) & ~(size_t)15;
}

/* Every slot to its nearest centroid, a thread a (centroid, slot) distance; @return
 * (block-wide) the samples that moved */
__device__ uint32_t gkn_kmw_assign(const gkn_args &a, const uint32_t *idx, uint32_t m, const float *cent,
                                   float *dist, float *best, uint16_t *assign)
{
    uint32_t kc = a.clusters, ns = a.ns;
    for (uint32_t q = threadIdx.x; q < kc * ns; q += blockDim.x) {
        uint32_t c = q / ns, j = q - c * ns;
        const float *cc = cent + (size_t)c * m;
        const float *xj = a.xc + j;
        float s = 0.0f;
#pragma unroll 8
        for (uint32_t t = 0; t < m; t++) {
            float e = __fsub_rn(xj[(size_t)idx[t] * ns], cc[t]);
            s = __fmaf_rn(e, e, s);
        }
        dist[q] = s;
    }
    __syncthreads();
    uint32_t changed = 0;
    for (uint32_t j = threadIdx.x; j < ns; j += blockDim.x) {
        float bv = INFINITY;
        uint16_t bc = 0;
        for (uint32_t c = 0; c < kc; c++) {
            float dv = dist[(size_t)c * ns + j];
            if (dv < bv) {
                bv = dv;
                bc = (uint16_t)c;
            }
        }
        if (j < a.n) changed += assign[j] != bc;
        best[j] = bv;
        assign[j] = bc;
    }
    return gkn_block_sum(changed);
}

__global__ void __launch_bounds__(GKN_WIDE, 1) gkn_kmeans_wide(gkn_args a)
{
    extern __shared__ __align__(16) unsigned char gkn_smem[];
    uint32_t kc = a.clusters, ns = a.ns;
    size_t nd = (size_t)kc * ns, pairs = (size_t)kc * (kc - 1) / 2;
    uint32_t *idx = (uint32_t *)gkn_smem;
    float *cent = (float *)(idx + a.p);
    float *dist = cent + (size_t)kc * a.p;
    float *best = dist + (nd > pairs ? nd : pairs);
    uint16_t *assign = (uint16_t *)(best + ns);
    uint32_t b = blockIdx.x, ind = a.order[a.first + b];
    uint32_t m = gkn_gather(a, a.masks + (size_t)ind * a.words, idx);
    if (!m) {
        if (threadIdx.x == 0) a.f[2 * b] = a.f[2 * b + 1] = 0.0;
        return;
    }
    for (uint32_t ct = threadIdx.x; ct < kc * m; ct += blockDim.x) {
        uint32_t c = ct / m, t = ct - c * m;
        cent[ct] = a.xr[(size_t)a.init[c] * a.p + idx[t]];
    }
    for (uint32_t j = threadIdx.x; j < ns; j += blockDim.x) assign[j] = 0;
    __syncthreads();
    gkn_kmw_assign(a, idx, m, cent, dist, best, assign);
    for (uint32_t it = 0; it < a.kmeans_iter; it++) {
        gkn_km_update(a, idx, m, assign, cent);
        if (!gkn_kmw_assign(a, idx, m, cent, dist, best, assign)) break;
    }
    /* the centroid pairs (c, l), c < l, in the order of the serial loops: a thread each */
    for (uint32_t q = threadIdx.x; q < pairs; q += blockDim.x) {
        uint32_t c = 0, r = q;
        while (r >= kc - 1 - c) {
            r -= kc - 1 - c;
            c++;
        }
        const float *x = cent + (size_t)c * m, *y = cent + (size_t)(c + 1 + r) * m;
        float s = 0.0f;
        for (uint32_t t = 0; t < m; t++) {
            float e = __fsub_rn(x[t], y[t]);
            s = __fmaf_rn(e, e, s);
        }
        dist[q] = sqrtf(s);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        double intra = 0.0, inter = 0.0;
        for (uint32_t j = 0; j < a.n; j++) intra += sqrtf(best[j]);
        for (uint32_t q = 0; q < pairs; q++) inter += dist[q];
        a.f[2 * b] = intra / a.n;
        a.f[2 * b + 1] = kc > 1 ? -inter / ((double)kc * (kc - 1) / 2) : 0.0;
    }
}

} // namespace

struct es_gkn {
    int dev, obj;
    uint32_t sms, max_pop, chunk;
    int wide;             /* gkn_kmeans_wide: 0 never, 1 launches of at most sms blocks, 2 always */
    size_t wide_smem;
    gkn_args a;
    float *d_xc, *d_xr, *d_cent, *d_best;
    uint32_t *d_orig, *d_idx, *d_cnt, *d_init, *d_order;
    uint16_t *d_y, *d_assign;
    uint64_t *d_masks;
    double *d_f, *h_f;    /* h_f pinned: the last launch's values */
    uint32_t *h_order;    /* pinned: the identity, or the order of es_gkn_population() */
    uint32_t last_count;
    int last_wide;
    cudaEvent_t ev0, ev1;
    double overhead;
    cudaStream_t st;
    char name[192];
};

namespace {

int gkn_alloc(es_gkn_t *g, const es_gkn_config_t *c)
{
    size_t ns = c->n_slots, p = c->p, kc = c->clusters > c->n_classes ? c->clusters : c->n_classes;
    if (kc < 1) kc = 1;
    size_t blocks = c->max_pop;
    CHECK(cudaMalloc(&g->d_xc, p * ns * sizeof(float)));
    CHECK(cudaMalloc(&g->d_xr, p * ns * sizeof(float)));
    CHECK(cudaMalloc(&g->d_orig, ns * sizeof(uint32_t)));
    CHECK(cudaMalloc(&g->d_y, ns * sizeof(uint16_t)));
    CHECK(cudaMalloc(&g->d_masks, blocks * c->words * sizeof(uint64_t)));
    CHECK(cudaMalloc(&g->d_init, (c->clusters ? c->clusters : 1) * sizeof(uint32_t)));
    CHECK(cudaMalloc(&g->d_idx, blocks * p * sizeof(uint32_t)));
    CHECK(cudaMalloc(&g->d_cent, blocks * kc * p * sizeof(float)));
    CHECK(cudaMalloc(&g->d_cnt, blocks * kc * sizeof(uint32_t)));
    CHECK(cudaMalloc(&g->d_best, blocks * ns * sizeof(float)));
    CHECK(cudaMalloc(&g->d_assign, blocks * ns * sizeof(uint16_t)));
    CHECK(cudaMalloc(&g->d_f, blocks * 2 * sizeof(double)));
    CHECK(cudaMalloc(&g->d_order, blocks * sizeof(uint32_t)));
    CHECK(cudaMallocHost(&g->h_f, blocks * 2 * sizeof(double)));
    CHECK(cudaMallocHost(&g->h_order, blocks * sizeof(uint32_t)));
    for (size_t i = 0; i < blocks; i++) g->h_order[i] = (uint32_t)i;
    CHECK(cudaMemcpy(g->d_order, g->h_order, blocks * sizeof(uint32_t), cudaMemcpyHostToDevice));
    CHECK(cudaEventCreate(&g->ev0));
    CHECK(cudaEventCreate(&g->ev1));
    CHECK(cudaMemcpy(g->d_xc, c->xc, p * ns * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(g->d_xr, c->xr, p * ns * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(g->d_orig, c->orig, ns * sizeof(uint32_t), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(g->d_y, c->y, ns * sizeof(uint16_t), cudaMemcpyHostToDevice));
    gkn_args &a = g->a;
    memset(&a, 0, sizeof a);
    a.xc = g->d_xc;
    a.xr = g->d_xr;
    a.orig = g->d_orig;
    a.y = g->d_y;
    a.masks = g->d_masks;
    a.init = g->d_init;
    a.order = g->d_order;
    a.n = c->n;
    a.p = c->p;
    a.ns = c->n_slots;
    a.n_classes = c->n_classes;
    a.n_folds = c->n_folds;
    a.words = c->words;
    a.knn_k = c->knn_k;
    a.clusters = c->clusters;
    a.kmeans_iter = c->kmeans_iter;
    a.kc = (uint32_t)kc;
    for (uint32_t k = 0; k <= c->n_folds && k < 33; k++) a.fold_off[k] = c->fold_off[k];
    for (uint32_t k = 0; k < c->n_folds && k < 32; k++) a.fold_n[k] = c->fold_n[k];
    a.idx = g->d_idx;
    a.cent = g->d_cent;
    a.cnt = g->d_cnt;
    a.best = g->d_best;
    a.assign = g->d_assign;
    return ES_OK;
}

} // namespace

extern "C" int es_gkn_device_count(int *n)
{
    return es_gpu_device_count(n);
}

extern "C" int es_gkn_open(int dev, const es_gkn_config_t *cfg, es_gkn_t **out)
{
    *out = nullptr;
    if (cfg->obj < ES_GKN_KMEANS || cfg->obj > ES_GKN_NC || cfg->n_slots % 16 || cfg->n_folds > 32 ||
        cfg->knn_k > (uint32_t)GKN_KNN_MAX || !cfg->max_pop)
        return ES_ERR_ARG;
    es_gkn_t *g = (es_gkn_t *)calloc(1, sizeof *g);
    if (!g) return ES_ERR_NOMEM;
    g->dev = dev;
    g->obj = cfg->obj;
    g->max_pop = cfg->max_pop;
    int ret = ES_OK;
    cudaDeviceProp prop;
    if (cudaSetDevice(dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess ||
        cudaStreamCreate(&g->st) != cudaSuccess) {
        fprintf(stderr, "[E::es_gkn_open] cannot open CUDA device %d: %s\n", dev,
                cudaGetErrorString(cudaGetLastError()));
        free(g);
        return ES_ERR_GPU;
    }
    g->sms = (uint32_t)prop.multiProcessorCount;
    /* a chunk fills every SM with as many blocks as fit at once: one block an SM
       left most of each SM's warp slots idle, and a block's loads waiting */
    int per_sm = 0;
    cudaError_t oe = cfg->obj == ES_GKN_KNN ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gkn_knn, GKN_THREADS, 0)
                     : cfg->obj == ES_GKN_NC ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gkn_nc, GKN_THREADS, 0)
                                             : cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gkn_kmeans, GKN_THREADS, 0);
    if (oe != cudaSuccess || per_sm < 1) per_sm = 1;
    g->chunk = g->sms * (uint32_t)per_sm;
    /* the wide K-means block: where its shared memory fits, for launches of at most one
       block an SM (EPISTREAM_NSGA_GPU_WIDE=0: never, 2: every launch) */
    const char *wv = getenv("EPISTREAM_NSGA_GPU_WIDE");
    g->wide = wv && !strcmp(wv, "0") ? 0 : wv && !strcmp(wv, "2") ? 2 : 1;
    if (cfg->obj != ES_GKN_KMEANS || !cfg->clusters) g->wide = 0;
    if (g->wide) {
        g->wide_smem = gkn_wide_smem(cfg->p, cfg->clusters, cfg->n_slots);
        int wb = 0;
        if (g->wide_smem + 1024 > prop.sharedMemPerBlockOptin ||
            cudaFuncSetAttribute(gkn_kmeans_wide, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)g->wide_smem) != cudaSuccess ||
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&wb, gkn_kmeans_wide, GKN_WIDE, g->wide_smem) !=
                cudaSuccess ||
            wb < 1) {
            cudaGetLastError(); /* not an error: the 256-thread kernel does it all */
            g->wide = 0;
        }
    }
    snprintf(g->name, sizeof g->name, "gpu:%d (%.64s, %u SMs, %d blocks an SM%s)", dev, prop.name, g->sms,
             per_sm, g->wide == 1 ? ", a 1024-thread block an individual up to one an SM"
                     : g->wide == 2 ? ", a 1024-thread block an individual" : "");
    if ((ret = gkn_alloc(g, cfg))) {
        es_gkn_close(g);
        return ret;
    }
    /* every kernel of the objective launched once on an empty mask (its module loaded
       here, not in the first generation), the second launch timed: a launch's fixed cost */
    double f0[2];
    if ((ret = es_gkn_population(g, nullptr, 0, nullptr, nullptr)) == ES_OK) {
        if (cudaMemsetAsync(g->d_masks, 0, cfg->words * sizeof(uint64_t), g->st) != cudaSuccess) ret = ES_ERR_GPU;
        for (int w = 0; w < (g->wide ? 2 : 1) && ret == ES_OK; w++) {
            int keep = g->wide;
            g->wide = w ? 2 : 0;
            ret = es_gkn_eval(g, 0, 1, f0);
            g->wide = keep;
        }
        if (ret == ES_OK) {
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            ret = es_gkn_eval(g, 0, 1, f0);
            clock_gettime(CLOCK_MONOTONIC, &t1);
            g->overhead = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        }
    }
    if (ret) {
        es_gkn_close(g);
        return ret;
    }
    *out = g;
    return ES_OK;
}

extern "C" int es_gkn_population(es_gkn_t *g, const uint64_t *masks, uint32_t n, const uint32_t *init,
                                 const uint32_t *order)
{
    if (n > g->max_pop) return ES_ERR_ARG;
    CHECK(cudaSetDevice(g->dev));
    if (n)
        CHECK(cudaMemcpyAsync(g->d_masks, masks, (size_t)n * g->a.words * sizeof(uint64_t),
                              cudaMemcpyHostToDevice, g->st));
    if (init && g->a.clusters)
        CHECK(cudaMemcpyAsync(g->d_init, init, g->a.clusters * sizeof(uint32_t), cudaMemcpyHostToDevice,
                              g->st));
    /* the order through the pinned buffer (the identity when none is given) */
    CHECK(cudaStreamSynchronize(g->st)); /* h_order may still be in a copy */
    for (uint32_t i = 0; i < n; i++) g->h_order[i] = order ? order[i] : i;
    if (n)
        CHECK(cudaMemcpyAsync(g->d_order, g->h_order, (size_t)n * sizeof(uint32_t), cudaMemcpyHostToDevice,
                              g->st));
    return ES_OK;
}

extern "C" int es_gkn_launch(es_gkn_t *g, uint32_t first, uint32_t count)
{
    g->last_count = 0;
    if (!count) return ES_OK;
    if (first + count > g->max_pop) return ES_ERR_ARG;
    CHECK(cudaSetDevice(g->dev));
    gkn_args a = g->a;
    a.first = first;
    a.f = g->d_f;
    int wide = g->wide == 2 || (g->wide == 1 && count <= g->sms);
    CHECK(cudaEventRecord(g->ev0, g->st));
    if (g->obj == ES_GKN_KNN) gkn_knn<<<count, GKN_THREADS, 0, g->st>>>(a);
    else if (g->obj == ES_GKN_NC) gkn_nc<<<count, GKN_THREADS, 0, g->st>>>(a);
    else if (wide) gkn_kmeans_wide<<<count, GKN_WIDE, g->wide_smem, g->st>>>(a);
    else gkn_kmeans<<<count, GKN_THREADS, 0, g->st>>>(a);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(g->ev1, g->st));
    CHECK(cudaMemcpyAsync(g->h_f, g->d_f, (size_t)count * 2 * sizeof(double), cudaMemcpyDeviceToHost, g->st));
    g->last_count = count;
    g->last_wide = wide;
    return ES_OK;
}

extern "C" int es_gkn_wait(es_gkn_t *g, double *f)
{
    if (!g->last_count) return ES_OK;
    CHECK(cudaSetDevice(g->dev));
    CHECK(cudaStreamSynchronize(g->st));
    memcpy(f, g->h_f, (size_t)g->last_count * 2 * sizeof(double));
    return ES_OK;
}

extern "C" int es_gkn_eval(es_gkn_t *g, uint32_t first, uint32_t count, double *f)
{
    int ret = es_gkn_launch(g, first, count);
    return ret ? ret : es_gkn_wait(g, f);
}

extern "C" double es_gkn_kernel_seconds(es_gkn_t *g, int *wide)
{
    float ms = 0.0f;
    if (wide) *wide = g->last_wide;
    if (!g->last_count || cudaEventElapsedTime(&ms, g->ev0, g->ev1) != cudaSuccess) {
        cudaGetLastError();
        return 0.0;
    }
    return 1e-3 * ms;
}

extern "C" double es_gkn_launch_overhead(const es_gkn_t *g)
{
    return g->overhead;
}

extern "C" uint32_t es_gkn_chunk(const es_gkn_t *g)
{
    return g->chunk ? g->chunk : 1;
}

extern "C" uint32_t es_gkn_sms(const es_gkn_t *g)
{
    return g->sms;
}

extern "C" const char *es_gkn_name(const es_gkn_t *g)
{
    return g->name;
}

extern "C" void es_gkn_close(es_gkn_t *g)
{
    if (!g) return;
    cudaSetDevice(g->dev);
    if (g->st) cudaStreamSynchronize(g->st);
    cudaFree(g->d_xc);
    cudaFree(g->d_xr);
    cudaFree(g->d_orig);
    cudaFree(g->d_y);
    cudaFree(g->d_masks);
    cudaFree(g->d_init);
    cudaFree(g->d_idx);
    cudaFree(g->d_cent);
    cudaFree(g->d_cnt);
    cudaFree(g->d_best);
    cudaFree(g->d_assign);
    cudaFree(g->d_f);
    cudaFree(g->d_order);
    cudaFreeHost(g->h_f);
    cudaFreeHost(g->h_order);
    if (g->ev0) cudaEventDestroy(g->ev0);
    if (g->ev1) cudaEventDestroy(g->ev1);
    if (g->st) cudaStreamDestroy(g->st);
    free(g);
}
