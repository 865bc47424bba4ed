/* screen.cu -- the MDFS tuple screen on a GPU (the door: mdfs_gpu.h).
 *
 * One thread block takes one prefix (k = 2: a variable a; k = 3: a pair a < b,
 * from this device's list) and a chunk of 256 last variables (the variables
 * after the prefix's last, then every contrast variable).  The prefix's
 * m^(k-1) AND vectors and their class counts are built in shared memory;
 * each thread counts its last variable's m - 1 stored bins against the prefix
 * cells with AND + popcount, class 0 in words [0, w0), class 1 after, and
 * sums the Hc of the table in double from the host's own c log2 c tables.
 * With few classes (m <= 4) the words run outside, every count stays in a
 * register, and only the cells whose variables are all below their last bin
 * are counted: the rest come from the last variable's bin counts (k = 2) and
 * the pairs' counts (k = 3), as on the CPU the last bin comes from the
 * prefix cell's count.  Otherwise the prefix cells run outside (any m up to
 * 16) and every cell is counted.
 *
 * The IG of the last variable is Hc(prefix) - Hc(table); of a prefix
 * variable, Hc(the table without it) - Hc(table): for k = 2 a single
 * variable's Hc (the host's), for k = 3 a pair's, computed first for every
 * pair (and its counted cells kept) by the k = 2 kernel in its "pairs" mode.
 * These doubles sum in another order than the host's, so they are within a
 * margin of its values and never compared to them.  A pre-pass over the first
 * 1/32 of the prefixes seeds each variable's maximum (an order-preserving
 * 64-bit key and atomicMax, after a plain read that skips most of them); the
 * main pass keeps the maxima and returns every tuple in which a variable's
 * IG is within two margins of its maximum so far, with its IGs; the host
 * keeps those within two margins of the final maxima (every device's) and
 * recomputes them exactly.  When the buffer overflows, a pass against the
 * final maxima returns the tuples again.  Names private to this file use gkm_. */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "gpu.h"
#include "mdfs_gpu.h"
#include "screen.cuh"

namespace {

constexpr int GKM_THREADS = 128;
constexpr uint32_t GKM_CHUNK = 256;           /* last variables a block */
constexpr size_t GKM_SMEM_MAX = 160u << 10;   /* the prefix vectors in shared memory */
constexpr uint64_t GKM_CAND_DEFAULT = 1u << 22;

/* The block's prefix: a, b (k = 3) or a (k = 2, b = a); false when empty. */
template <int K>
__device__ __forceinline__ bool gkm_prefix(const gkm_args &p, uint32_t &a, uint32_t &b)
{
    if (K == 3) {
        a = p.pfx[2 * (size_t)blockIdx.x], b = p.pfx[2 * (size_t)blockIdx.x + 1];
        return true;
    }
    a = p.part + blockIdx.x * p.parts;
    b = a;
    return a < p.n_vars;
}

/* The last variables of the block: slot of index i (real after lo, then contrast). */
__device__ __forceinline__ uint32_t gkm_slot(const gkm_args &p, uint32_t lo, uint32_t i)
{
    const uint32_t nr = p.n_vars - lo;
    return i < nr ? lo + i : p.n_vars + (i - nr);
}

/* The prefix vectors and counts into shared memory; Hc(prefix) (margin
 * pseudocounts) into *h_pre. */
template <int K>
__device__ void gkm_build(const gkm_args &p, uint32_t a, uint32_t b, uint64_t *pre, uint32_t *pct,
                          double *h_pre)
{
    const uint32_t W = p.W, m = p.m, np = p.np;
    for (uint32_t x = threadIdx.x; x < np * W; x += blockDim.x) {
        const uint32_t i = x / W, w = x % W;
        uint64_t v;
        if (K == 2) {
            v = p.planes[((size_t)a * m + i) * W + w];
        } else {
            const uint32_t ia = i / m, ib = i % m;
            v = p.planes[((size_t)a * m + ia) * W + w] & p.planes[((size_t)b * m + ib) * W + w];
        }
        pre[x] = v;
    }
    __syncthreads();
    const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    for (uint32_t i = warp; i < np; i += nw) {
        uint32_t s0 = 0, s1 = 0;
        for (uint32_t w = lane; w < W; w += 32) {
            const uint32_t c = __popcll(pre[(size_t)i * W + w]);
            if (w < p.w0) s0 += c;
            else s1 += c;
        }
        for (int o = 16; o; o >>= 1) {
            s0 += __shfl_xor_sync(0xffffffffu, s0, o);
            s1 += __shfl_xor_sync(0xffffffffu, s1, o);
        }
        if (!lane) pct[2 * i] = s0, pct[2 * i + 1] = s1;
    }
    __syncthreads();
    if (!threadIdx.x) {
        double h = 0.0;
        for (uint32_t i = 0; i < np; i++) h += gkm_term(p, 1, pct[2 * i], pct[2 * i + 1]);
        *h_pre = h;
    }
    __syncthreads();
}

/* Hc of the table of prefix cells x the last variable in slot s: NB > 0
 * stored bins known here (words outside, counts in registers), or NB = 0
 * (any m: prefix cells outside).  With NB > 0 only the prefix cells whose
 * variables are all below their last bin are counted: k = 2, a's last bin
 * is s's bin counts less the others; k = 3, (ia, last) and (last, ib) are the
 * pairs (a, s) and (b, s) less the others (the pairs' counts from the pairs
 * pass, p.pc), (last, last) s's bin counts less all others.  PC: this is the
 * pairs pass (k = 2 shape): write the counted cells to p.pc. */
template <int K, int NB, bool PC>
__device__ __forceinline__ double gkm_table(const gkm_args &p, int lev, const uint64_t *pre,
                                            const uint32_t *pct, uint32_t s, uint32_t a, uint32_t b)
{
    const uint32_t W = p.W, w0 = p.w0, NS = p.NS;
    const uint64_t *ls = p.last + s;
    constexpr uint32_t NB_U = NB;
    double h = 0.0;
    if constexpr (NB > 0) {
        constexpr uint32_t M = NB + 1, NP = K == 2 ? M : M * M;
        uint32_t c[2][NP][NB];
#pragma unroll
        for (uint32_t i = 0; i < NP; i++)
#pragma unroll
            for (uint32_t j = 0; j < NB_U; j++) c[0][i][j] = c[1][i][j] = 0;
#pragma unroll
        for (int y = 0; y < 2; y++) {
            const uint32_t w_lo = y ? w0 : 0, w_hi = y ? W : w0;
            for (uint32_t w = w_lo; w < w_hi; w++) {
                uint64_t x[NB];
#pragma unroll
                for (uint32_t j = 0; j < NB_U; j++) x[j] = __ldg(ls + ((size_t)j * W + w) * NS);
#pragma unroll
                for (uint32_t i = 0; i < NP; i++) {
                    if (K == 2 ? i >= NB_U : (i / M >= NB_U || i % M >= NB_U)) continue;
                    const uint64_t q = pre[(size_t)i * W + w];
#pragma unroll
                    for (uint32_t j = 0; j < NB_U; j++) c[y][i][j] += __popcll(q & x[j]);
                }
            }
        }
#pragma unroll
        for (int y = 0; y < 2; y++)
#pragma unroll
            for (uint32_t j = 0; j < NB_U; j++) {
                uint32_t rest = __ldg(p.binct + ((size_t)s * p.m + j) * 2 + y);
                if constexpr (K == 2) {
#pragma unroll
                    for (uint32_t i = 0; i < NB_U; i++) {
                        rest -= c[y][i][j];
                        if constexpr (PC) p.pc[((size_t)a * NS + s) * (NB * NB * 2) + (i * NB + j) * 2 + y] = c[y][i][j];
                    }
                    c[y][NB][j] = rest;
                } else {
                    const uint32_t *pa = p.pc + ((size_t)a * NS + s) * (NB * NB * 2);
                    const uint32_t *pb = p.pc + ((size_t)b * NS + s) * (NB * NB * 2);
#pragma unroll
                    for (uint32_t ia = 0; ia < NB_U; ia++) {
                        uint32_t r = pa[(ia * NB + j) * 2 + y];
#pragma unroll
                        for (uint32_t ib = 0; ib < NB_U; ib++) r -= c[y][ia * M + ib][j];
                        c[y][ia * M + NB][j] = r;
                        rest -= pa[(ia * NB + j) * 2 + y];
                    }
#pragma unroll
                    for (uint32_t ib = 0; ib < NB_U; ib++) {
                        uint32_t r = pb[(ib * NB + j) * 2 + y];
#pragma unroll
                        for (uint32_t ia = 0; ia < NB_U; ia++) r -= c[y][ia * M + ib][j];
                        c[y][NB * M + ib][j] = r;
                        rest -= r;
                    }
                    c[y][NB * M + NB][j] = rest;
                }
            }
#pragma unroll
        for (uint32_t i = 0; i < NP; i++) {
            uint32_t s0 = 0, s1 = 0;
#pragma unroll
            for (uint32_t j = 0; j < NB_U; j++) {
                h += gkm_term(p, lev, c[0][i][j], c[1][i][j]);
                s0 += c[0][i][j], s1 += c[1][i][j];
            }
            h += gkm_term(p, lev, pct[2 * i] - s0, pct[2 * i + 1] - s1);
        }
        return h;
    } else {
    const uint32_t nb = p.nb;
    for (uint32_t i = 0; i < p.np; i++) {
        if (!(pct[2 * i] | pct[2 * i + 1])) {
            h += (double)(nb + 1) * p.h0[lev];
            continue;
        }
        uint32_t c0[15], c1[15];
#pragma unroll
        for (uint32_t j = 0; j < 15; j++) c0[j] = c1[j] = 0;
        const uint64_t *pi = pre + (size_t)i * W;
        for (uint32_t w = 0; w < W; w++) {
            const uint64_t q = pi[w];
            if (!q) continue;
            const bool one = w >= w0;
#pragma unroll
            for (uint32_t j = 0; j < 15; j++)
                if (j < nb) {
                    const uint32_t v = __popcll(q & __ldg(ls + ((size_t)j * W + w) * NS));
                    if (one) c1[j] += v;
                    else c0[j] += v;
                }
        }
        uint32_t s0 = 0, s1 = 0;
#pragma unroll
        for (uint32_t j = 0; j < 15; j++)
            if (j < nb) {
                h += gkm_term(p, lev, c0[j], c1[j]);
                s0 += c0[j], s1 += c1[j];
            }
        h += gkm_term(p, lev, pct[2 * i] - s0, pct[2 * i + 1] - s1);
    }
    return h;
    }
}

template <int K, int NB, int MODE>
__global__ void __launch_bounds__(GKM_THREADS) gkm_kernel(gkm_args p)
{
    extern __shared__ uint64_t smem[];
    __shared__ uint32_t pct[2 * 256];
    __shared__ double h_pre;
    __shared__ double red[2][GKM_THREADS / 32];
    uint32_t a, b;
    if (!gkm_prefix<K>(p, a, b)) return;
    const uint32_t lo = b + 1;
    const uint32_t n_last = (p.n_vars - lo) + p.n_con;
    const uint32_t first = blockIdx.y * GKM_CHUNK;
    if (first >= n_last) return;
    gkm_build<K>(p, a, b, smem, pct, &h_pre);
    const uint32_t end = min(n_last, first + GKM_CHUNK);
    double best_a = -INFINITY, best_b = -INFINITY;
    for (uint32_t i = first + threadIdx.x; i < end; i += blockDim.x) {
        const uint32_t s = gkm_slot(p, lo, i);
        if constexpr (MODE == GKM_PAIRS) {
            p.hmx[(size_t)a * p.NS + s] = gkm_table<K, NB, true>(p, 1, smem, pct, s, a, b);
            continue;
        }
        const double h = gkm_table<K, NB, false>(p, 0, smem, pct, s, a, b);
        const double ig = h_pre - h;
        const bool real = s < p.n_vars;
        double ig_a = -INFINITY, ig_b = -INFINITY;
        if (real) {
            if (K == 2) {
                ig_a = __ldg(p.hm1 + s) - h;
            } else {
                ig_a = p.hmx[(size_t)b * p.NS + s] - h;
                ig_b = p.hmx[(size_t)a * p.NS + s] - h;
            }
        }
        if constexpr (MODE == GKM_MAX || MODE == GKM_EMIT) {
            gkm_offer(p.keys + s, ig);
            best_a = fmax(best_a, ig_a);
            best_b = fmax(best_b, ig_b);
        }
        bool emit;
        if constexpr (MODE == GKM_EMIT) {
            /* within two margins of the maximum so far (a lower bound of the
             * final one, so nothing the final test keeps is missed) */
            const double d = p.two_margin;
            emit = gkm_key(ig + d) >= gkm_load(p.keys + s) ||
                   (real && (gkm_key(ig_a + d) >= gkm_load(p.keys + a) ||
                             (K == 3 && gkm_key(ig_b + d) >= gkm_load(p.keys + b))));
        } else if constexpr (MODE == GKM_CAND) {
            emit = ig >= __ldg(p.thr + s) || ig_a >= __ldg(p.thr + a) || (K == 3 && ig_b >= __ldg(p.thr + b));
        } else {
            emit = false;
        }
        if (emit) {
            const unsigned long long q = atomicAdd(p.n_cand, 1ull);
            if (q < p.cap) {
                gkm_cand c;
                c.t[0] = a;
                c.t[1] = K == 2 ? s : b;
                c.t[2] = K == 2 ? 0 : s;
                c.t[3] = 0;
                c.ig[0] = ig, c.ig[1] = ig_a, c.ig[2] = ig_b;
                p.cand[q] = c;
            }
        }
    }
    if constexpr (MODE == GKM_MAX || MODE == GKM_EMIT) {
    /* the prefix variables' maxima: a warp, then the block, then one atomic */
    for (int o = 16; o; o >>= 1) {
        best_a = fmax(best_a, __shfl_xor_sync(0xffffffffu, best_a, o));
        best_b = fmax(best_b, __shfl_xor_sync(0xffffffffu, best_b, o));
    }
    const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (!lane) red[0][warp] = best_a, red[1][warp] = best_b;
    __syncthreads();
    if (!threadIdx.x) {
        double x = red[0][0], y = red[1][0];
        for (uint32_t w = 1; w < blockDim.x / 32; w++) x = fmax(x, red[0][w]), y = fmax(y, red[1][w]);
        if (x > -INFINITY) gkm_offer(p.keys + a, x);
        if (K == 3 && y > -INFINITY) gkm_offer(p.keys + b, y);
    }
    }
}

/* The stored bins laid out by slot: last[(j * W + w) * NS + s] = planes[s][j][w]. */
__global__ void gkm_transpose(const uint64_t *planes, uint64_t *last, uint32_t m, uint32_t nb,
                              uint32_t W, uint32_t NS)
{
    const size_t n = (size_t)nb * W * NS;
    for (size_t x = blockIdx.x * (size_t)blockDim.x + threadIdx.x; x < n; x += (size_t)gridDim.x * blockDim.x) {
        const uint32_t s = (uint32_t)(x % NS);
        const size_t jw = x / NS;
        const uint32_t j = (uint32_t)(jw / W), w = (uint32_t)(jw % W);
        last[x] = planes[((size_t)s * m + j) * W + w];
    }
}

typedef void (*gkm_kernel_fn)(gkm_args);

template <int K, int MODE>
gkm_kernel_fn gkm_pick(uint32_t nb)
{
    switch (nb) {
    case 1: return gkm_kernel<K, 1, MODE>;
    case 2: return gkm_kernel<K, 2, MODE>;
    case 3: return gkm_kernel<K, 3, MODE>;
    default: return gkm_kernel<K, 0, MODE>;
    }
}

gkm_kernel_fn gkm_pick_mode(uint32_t k, uint32_t nb, int mode)
{
    if (mode == GKM_PAIRS) return gkm_pick<2, GKM_PAIRS>(nb);
    if (k == 2)
        return mode == GKM_MAX ? gkm_pick<2, GKM_MAX>(nb) : mode == GKM_EMIT ? gkm_pick<2, GKM_EMIT>(nb) : gkm_pick<2, GKM_CAND>(nb);
    return mode == GKM_MAX ? gkm_pick<3, GKM_MAX>(nb) : mode == GKM_EMIT ? gkm_pick<3, GKM_EMIT>(nb) : gkm_pick<3, GKM_CAND>(nb);
}

} // namespace

struct es_gkm {
    int dev;
    char name[192];
    es_gkm_config_t cfg;
    gkm_args a;
    int mma;                /* on the tensor cores (screen_mma.cu) */
    uint64_t *d_planes, *d_last, *d_rows;
    float *d_ftab;          /* the float screen's tables (es_gkm_ftab_t) */
    uint32_t *d_binct;
    uint32_t *d_pfx;        /* k = 3: this device's prefixes (a, b) */
    uint64_t n_pfx;
    double *d_tab, *d_hm1, *d_hmx, *d_thr;
    uint32_t *d_pc;
    unsigned long long *d_keys, *d_ncand;
    gkm_cand *d_cand, *h_raw;
    es_gkm_cand_t *h_cand;
    uint64_t n_emit;          /* tuples the last pass returned (maybe beyond max_cand) */
    double margin, seconds;
    cudaEvent_t ev[2];
};

/* Bytes a pair (k = 3) needs on the device: its Hc, and its counted cells when m <= 4. */
static double gkm_pair_bytes(uint32_t m)
{
    return 8.0 + (m <= 4 ? 8.0 * (m - 1) * (m - 1) : 0.0);
}

extern "C" int es_gkm_device_count(int *n)
{
    return es_gpu_device_count(n);
}

extern "C" const char *es_gkm_unsupported(uint32_t k, uint32_t m, uint32_t n_vars, uint32_t n_con, uint32_t n_obj)
{
    if (k != 2 && k != 3) return "the GPU counts --dim 2 and 3 only";
    if (m < 2 || m > 16) return "the GPU takes --divisions 1 to 15";
    const double W = (double)(n_obj / 64 + 2);
    if (pow((double)m, k - 1.0) * W * 8.0 > (double)GKM_SMEM_MAX)
        return "the prefix vectors of this --dim and --divisions exceed the GPU's shared memory";
    if (k == 3 && (double)n_vars * ((double)n_vars + n_con) * gkm_pair_bytes(m) > 24e9)
        return "too many variables at --dim 3: the pairs' table would exceed 24 GB of GPU memory";
    return NULL;
}

static void gkm_free(es_gkm_t *g)
{
    cudaSetDevice(g->dev);
    cudaFree(g->d_planes), cudaFree(g->d_last), cudaFree(g->d_rows), cudaFree(g->d_binct), cudaFree(g->d_pfx), cudaFree(g->d_tab);
    cudaFree(g->d_hm1), cudaFree(g->d_hmx), cudaFree(g->d_pc), cudaFree(g->d_thr), cudaFree(g->d_keys);
    cudaFree(g->d_ncand), cudaFree(g->d_cand), cudaFree(g->d_ftab);
    if (g->ev[0]) cudaEventDestroy(g->ev[0]);
    if (g->ev[1]) cudaEventDestroy(g->ev[1]);
    free(g->h_cand), free(g->h_raw);
    free(g);
}

static int gkm_open(es_gkm_t *g, int dev, const es_gkm_config_t *c)
{
    char info[128];
    CHECK(cudaSetDevice(dev));
    int r = es_gpu_device_describe(dev, info, sizeof info);
    if (r) return r;
    const uint32_t NS = c->n_vars + c->n_con, m = c->m, nb = m - 1, W = c->W;
    uint32_t np = 1;
    for (uint32_t j = 1; j < c->k; j++) np *= m;
    const size_t nv = NS;
    /* pairs with at most 4 classes and triples with at most 3 on the tensor
     * cores (b1 mma.sync: sm_80 and later), unless the CUDA-core kernel is
     * asked for */
    int major = 0;
    CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    g->mma = c->kernel == 0 && gkmm_takes(c->k, m) && major >= 8;
    snprintf(g->name, sizeof g->name, "gpu:%d %s (%s)", dev, info,
             g->mma ? (c->sum ? "tensor cores, double sums" : "tensor cores, float sums") : "popcount");
    g->a.wp0 = (c->w0 + 7) / 8 * 8, g->a.wp1 = (W - c->w0 + 7) / 8 * 8;
    CHECK(cudaMalloc(&g->d_planes, sizeof(uint64_t) * nv * m * W));
    if (g->mma)
        CHECK(cudaMalloc(&g->d_rows, sizeof(uint64_t) * gkmm_slots(NS) * nb * (g->a.wp0 + g->a.wp1)));
    /* the CUDA-core kernel's layout (k = 3: the pairs pass's too) */
    if (!g->mma || c->k == 3) CHECK(cudaMalloc(&g->d_last, sizeof(uint64_t) * nv * nb * W));
    CHECK(cudaMalloc(&g->d_binct, sizeof(uint32_t) * nv * m * 2));
    CHECK(cudaMalloc(&g->d_keys, sizeof(unsigned long long) * (nv + 1)));
    CHECK(cudaMalloc(&g->d_thr, sizeof(double) * (nv + 1)));
    CHECK(cudaMalloc(&g->d_ncand, sizeof(unsigned long long)));
    g->cfg.max_cand = c->max_cand ? c->max_cand : GKM_CAND_DEFAULT;
    CHECK(cudaMalloc(&g->d_cand, sizeof(gkm_cand) * g->cfg.max_cand));
    g->h_cand = (es_gkm_cand_t *)malloc(sizeof(es_gkm_cand_t) * g->cfg.max_cand);
    g->h_raw = (gkm_cand *)malloc(sizeof(gkm_cand) * g->cfg.max_cand);
    if (!g->h_cand || !g->h_raw) return ES_ERR_NOMEM;
    /* the tables: [lev][G, F0, F1] */
    const size_t n = (size_t)c->cls[0] + c->cls[1];
    const size_t tn = 2 * ((n + 1) + (c->cls[0] + 1) + (c->cls[1] + 1));
    CHECK(cudaMalloc(&g->d_tab, sizeof(double) * tn));
    double *t = g->d_tab;
    double gmax = 0.0;
    for (int lev = 0; lev < 2; lev++) {
        CHECK(cudaMemcpy(t, c->G[lev], sizeof(double) * (n + 1), cudaMemcpyHostToDevice));
        g->a.G[lev] = t, t += n + 1;
        CHECK(cudaMemcpy(t, c->F[lev][0], sizeof(double) * (c->cls[0] + 1), cudaMemcpyHostToDevice));
        g->a.F0[lev] = t, t += c->cls[0] + 1;
        CHECK(cudaMemcpy(t, c->F[lev][1], sizeof(double) * (c->cls[1] + 1), cudaMemcpyHostToDevice));
        g->a.F1[lev] = t, t += c->cls[1] + 1;
        for (size_t q = 0; q <= n; q++) gmax = fmax(gmax, fabs(c->G[lev][q]));
        for (int y = 0; y < 2; y++)
            for (size_t q = 0; q <= c->cls[y]; q++) gmax = fmax(gmax, fabs(c->F[lev][y][q]));
        g->a.h0[lev] = c->G[lev][0] - c->F[lev][0][0] - c->F[lev][1][0];
    }
    /* each Hc sums at most m^k cells of three table values each, with an
     * error below (cells + 2) * 3 * gmax * 2^-52 here and there in another
     * order; an IG subtracts two of them: 16 times that is ample */
    const double cells = (double)np * m;
    g->margin = 16.0 * (cells + 2.0) * 3.0 * gmax * ldexp(1.0, -52);
    if (g->mma && c->sum == 0) {
        /* the tensor-core screen sums each table's Hc in float: its proven
         * error (doc/MDFS.md, "The float screen's margin") on top */
        es_gkm_ftab_t ft;
        if (es_gkm_ftab_build(c, &ft)) return ES_ERR_NOMEM;
        cudaError_t e = cudaMalloc(&g->d_ftab, sizeof(float) * ft.len);
        if (e == cudaSuccess) e = cudaMemcpy(g->d_ftab, ft.t, sizeof(float) * ft.len, cudaMemcpyHostToDevice);
        g->a.tf = g->d_ftab, g->a.tf_len = ft.len, g->a.tf_o0 = ft.o0, g->a.tf_o1 = ft.o1;
        /* in shared memory up to 24 KB (about 3,000 objects): two blocks an
         * SM still fit; else read through L1 */
        g->a.tf_smem = sizeof(float) * ft.len <= 24u * 1024;
        g->margin += es_gkm_ftab_bound(&ft, (uint32_t)cells);
        es_gkm_ftab_free(&ft);
        CHECK(e);
    }
    g->a.two_margin = 2.0 * g->margin;
    if (c->k == 2) {
        CHECK(cudaMalloc(&g->d_hm1, sizeof(double) * (c->n_vars + 1)));
    } else {
        CHECK(cudaMalloc(&g->d_hmx, sizeof(double) * (size_t)c->n_vars * NS));
        if (m <= 4) CHECK(cudaMalloc(&g->d_pc, sizeof(uint32_t) * 2 * nb * nb * (size_t)c->n_vars * NS));
        /* this device's prefixes, first variables part, part + parts, ... */
        uint64_t np2 = 0;
        for (uint32_t x = c->part; x < c->n_vars; x += c->parts) np2 += c->n_vars - 1 - x;
        g->n_pfx = np2;
        uint32_t *h = (uint32_t *)malloc(sizeof(uint32_t) * 2 * (np2 + 1));
        if (!h) return ES_ERR_NOMEM;
        uint64_t q = 0;
        for (uint32_t x = c->part; x < c->n_vars; x += c->parts)
            for (uint32_t y = x + 1; y < c->n_vars; y++) h[2 * q] = x, h[2 * q + 1] = y, q++;
        cudaError_t e = cudaMalloc(&g->d_pfx, sizeof(uint32_t) * 2 * (np2 + 1));
        if (e == cudaSuccess) e = cudaMemcpy(g->d_pfx, h, sizeof(uint32_t) * 2 * np2, cudaMemcpyHostToDevice);
        free(h);
        CHECK(e);
    }
    CHECK(cudaEventCreate(&g->ev[0]));
    CHECK(cudaEventCreate(&g->ev[1]));
    gkm_args &a = g->a;
    a.planes = g->d_planes, a.last = g->d_last, a.binct = g->d_binct, a.pfx = g->d_pfx, a.hm1 = g->d_hm1, a.hmx = g->d_hmx;
    a.pc = g->d_pc, a.rows = g->d_rows, a.n_pfx = g->n_pfx;
    a.keys = g->d_keys, a.thr = g->d_thr, a.cand = g->d_cand, a.n_cand = g->d_ncand, a.cap = g->cfg.max_cand;
    a.m = m, a.nb = nb, a.np = np, a.n_vars = c->n_vars, a.n_con = c->n_con, a.NS = NS;
    a.w0 = c->w0, a.W = W, a.part = c->part, a.parts = c->parts;
    /* dynamic shared memory beyond 48 KB must be asked for, per kernel */
    const size_t smem = sizeof(uint64_t) * np * W;
    if (smem > 48u * 1024)
        for (int mode = 0; mode < 4; mode++) {
            if (mode == GKM_PAIRS ? c->k != 3 : g->mma) continue;
            const size_t s = mode == GKM_PAIRS ? sizeof(uint64_t) * m * W : smem;
            if (s > 48u * 1024)
                CHECK(cudaFuncSetAttribute(gkm_pick_mode(c->k, nb, mode),
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s));
        }
    return ES_OK;
}

extern "C" int es_gkm_open(int dev, const es_gkm_config_t *cfg, es_gkm_t **out)
{
    *out = NULL;
    if (es_gkm_unsupported(cfg->k, cfg->m, cfg->n_vars, cfg->n_con, cfg->cls[0] + cfg->cls[1])) return ES_ERR_UNSUPPORTED;
    es_gkm_t *g = (es_gkm_t *)calloc(1, sizeof *g);
    if (!g) return ES_ERR_NOMEM;
    g->dev = dev;
    g->cfg = *cfg;
    if (!g->cfg.parts) g->cfg.parts = 1;
    int r = gkm_open(g, dev, &g->cfg);
    if (r) {
        gkm_free(g);
        return r;
    }
    *out = g;
    return ES_OK;
}

/* Launch the kernel of mode over this device's prefixes (the first 1/frac of them). */
static int gkm_launch(es_gkm_t *g, int mode, uint64_t frac)
{
    const es_gkm_config_t *c = &g->cfg;
    const uint32_t k = mode == GKM_PAIRS ? 2 : c->k;
    uint32_t np = 1;
    for (uint32_t j = 1; j < k; j++) np *= c->m;
    const size_t smem = sizeof(uint64_t) * np * c->W;
    /* the most last variables a prefix has: after variable 0 (k = 2) or pair (0, 1) */
    const uint32_t most = c->n_vars - (k == 3 && mode != GKM_PAIRS ? 2 : 1) + c->n_con;
    const uint32_t chunks = (most + GKM_CHUNK - 1) / GKM_CHUNK;
    gkm_args a = g->a;
    a.np = np;
    if (g->mma && mode != GKM_PAIRS) {
        CHECK_LAUNCH(gkmm_launch(a, (int)c->k, mode, frac));
        return ES_OK;
    }
    if (mode == GKM_PAIRS) {
        /* every pair on every device (each needs them all) */
        a.part = 0, a.parts = 1;
    }
    uint64_t nx = k == 3 ? g->n_pfx : mode == GKM_PAIRS ? c->n_vars : (c->n_vars - c->part + c->parts - 1) / c->parts;
    nx = (nx + frac - 1) / frac;
    if (!nx || !chunks) return ES_OK;
    /* grid.y holds at most 65535 chunks, grid.x 2^31 - 1 prefixes */
    if (chunks > 65535 || nx > 0x7fffffffu) {
        fprintf(stderr, "[E::gkm_launch] too many tuples for one launch\n");
        return ES_ERR_UNSUPPORTED;
    }
    dim3 grid((uint32_t)nx, chunks);
    gkm_pick_mode(c->k, c->m - 1, mode)<<<grid, GKM_THREADS, smem>>>(a);
    CHECK(cudaGetLastError());
    return ES_OK;
}

extern "C" int es_gkm_upload(es_gkm_t *g, const uint64_t *planes, const uint32_t *bin_ct, const double *hm1)
{
    const es_gkm_config_t *c = &g->cfg;
    const size_t NS = (size_t)c->n_vars + c->n_con;
    CHECK(cudaSetDevice(g->dev));
    CHECK(cudaMemcpy(g->d_binct, bin_ct, sizeof(uint32_t) * NS * c->m * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(g->d_planes, planes, sizeof(uint64_t) * NS * c->m * c->W, cudaMemcpyHostToDevice));
    if (g->mma) CHECK_LAUNCH(gkmm_rows(g->a));
    if (g->d_last) {
        gkm_transpose<<<1024, 256>>>(g->d_planes, g->d_last, c->m, c->m - 1, c->W, (uint32_t)NS);
        CHECK(cudaGetLastError());
    }
    if (c->k == 2) {
        CHECK(cudaMemcpy(g->d_hm1, hm1, sizeof(double) * c->n_vars, cudaMemcpyHostToDevice));
    } else {
        int r = gkm_launch(g, GKM_PAIRS, 1);
        if (r) return r;
    }
    CHECK(cudaDeviceSynchronize());
    return ES_OK;
}

extern "C" int es_gkm_max(es_gkm_t *g, uint64_t *keys)
{
    const es_gkm_config_t *c = &g->cfg;
    const size_t NS = (size_t)c->n_vars + c->n_con;
    CHECK(cudaSetDevice(g->dev));
    CHECK(cudaMemset(g->d_keys, 0, sizeof(unsigned long long) * NS));
    CHECK(cudaMemset(g->d_ncand, 0, sizeof(unsigned long long)));
    CHECK(cudaEventRecord(g->ev[0]));
    /* the maxima of the first 1/32 of the prefixes (those with the most last
     * variables) first: the pass that returns tuples near the maxima so far
     * then starts from good bounds, not from nothing */
    int r = gkm_launch(g, GKM_MAX, 32);
    if (!r) r = gkm_launch(g, GKM_EMIT, 1);
    if (r) return r;
    CHECK(cudaEventRecord(g->ev[1]));
    CHECK(cudaMemcpy(keys, g->d_keys, sizeof(uint64_t) * NS, cudaMemcpyDeviceToHost));
    unsigned long long ne = 0;
    CHECK(cudaMemcpy(&ne, g->d_ncand, sizeof ne, cudaMemcpyDeviceToHost));
    g->n_emit = ne;
    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, g->ev[0], g->ev[1]));
    g->seconds = ms / 1e3;
    return ES_OK;
}

extern "C" int es_gkm_candidates(es_gkm_t *g, const uint64_t *keys, const es_gkm_cand_t **cand, uint64_t *n)
{
    const es_gkm_config_t *c = &g->cfg;
    const size_t NS = (size_t)c->n_vars + c->n_con;
    *cand = NULL, *n = 0;
    g->seconds = 0.0;
    CHECK(cudaSetDevice(g->dev));
    double *thr = (double *)malloc(sizeof(double) * (NS + 1));
    if (!thr) return ES_ERR_NOMEM;
    /* a key of 0: the variable was in no tuple (nothing qualifies) */
    for (size_t v = 0; v < NS; v++) thr[v] = keys[v] ? es_gkm_unkey(keys[v]) - 2.0 * g->margin : INFINITY;
    if (g->n_emit > g->cfg.max_cand) {
        /* es_gkm_max's pass returned too many: a pass against the final thresholds */
        cudaError_t e = cudaMemcpy(g->d_thr, thr, sizeof(double) * NS, cudaMemcpyHostToDevice);
        if (e == cudaSuccess) e = cudaMemset(g->d_ncand, 0, sizeof(unsigned long long));
        if (e == cudaSuccess) e = cudaEventRecord(g->ev[0]);
        int r = e == cudaSuccess ? gkm_launch(g, GKM_CAND, 1) : ES_OK;
        if (e == cudaSuccess && !r) e = cudaEventRecord(g->ev[1]);
        unsigned long long ne = 0;
        if (e == cudaSuccess && !r) e = cudaMemcpy(&ne, g->d_ncand, sizeof ne, cudaMemcpyDeviceToHost);
        float ms = 0.0f;
        if (e == cudaSuccess && !r) e = cudaEventElapsedTime(&ms, g->ev[0], g->ev[1]);
        if (e != cudaSuccess || r) free(thr);
        CHECK(e);
        if (r) return r;
        g->seconds = ms / 1e3;
        g->n_emit = ne;
        if (ne > g->cfg.max_cand) {
            free(thr);
            *n = ne;
            return ES_ERR_UNSUPPORTED;
        }
    }
    cudaError_t e = cudaMemcpy(g->h_raw, g->d_cand, sizeof(gkm_cand) * g->n_emit, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) free(thr);
    CHECK(e);
    /* those near the final maxima (every device's) */
    uint64_t k = 0;
    const uint32_t last = c->k - 1;
    for (uint64_t i = 0; i < g->n_emit; i++) {
        const gkm_cand *q = &g->h_raw[i];
        if (q->ig[0] >= thr[q->t[last]] || q->ig[1] >= thr[q->t[0]] || (c->k == 3 && q->ig[2] >= thr[q->t[1]])) {
            memcpy(g->h_cand[k].t, q->t, sizeof g->h_cand[k].t);
            k++;
        }
    }
    free(thr);
    *cand = g->h_cand;
    *n = k;
    return ES_OK;
}

extern "C" double es_gkm_margin(const es_gkm_t *g)
{
    return g->margin;
}

extern "C" const char *es_gkm_name(const es_gkm_t *g)
{
    return g->name;
}

extern "C" double es_gkm_kernel_seconds(const es_gkm_t *g)
{
    return g->seconds;
}

extern "C" void es_gkm_close(es_gkm_t *g)
{
    if (g) gkm_free(g);
}

extern "C" int es_gkm_pin(void *p, size_t bytes)
{
    /* portable: every device's uploads see it as page-locked; a failure
     * (no memory to lock) is no error of the run: cleared, not logged */
    if (cudaHostRegister(p, bytes, cudaHostRegisterPortable) != cudaSuccess) {
        cudaGetLastError();
        return ES_ERR_GPU;
    }
    return ES_OK;
}

extern "C" void es_gkm_unpin(void *p)
{
    cudaHostUnregister(p);
}
