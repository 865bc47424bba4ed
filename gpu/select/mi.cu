/* mi.cu -- the counting of a feature-selection round on a device: for every
 * candidate feature X, the sums E(X, g, i) and E(X, g) of n log2 n over the
 * cells of its contingency table with the round's conditioning variable g
 * (the newest selected feature, the joint state of the selected ones, or a
 * constant) and an inner variable i (the class, or none).  src/mi_select.c
 * turns them into scores exactly as on the CPU.
 *
 * Two kernel shapes, one CTA per candidate, 32-bit counters throughout (a
 * cell counts samples, and 16-bit counters would overflow at 65,535):
 *  - dense: the table lives in shared memory (z = g * ni + i per sample,
 *    16-bit, built on the device or sent by the host).  When the candidate's
 *    states times the conditioning cells exceed the shared memory, the
 *    candidate's states are taken in chunks, one pass over the samples each
 *    (multi-pass); when the table is small it is replicated per warp, which
 *    spreads the atomics of few-state features over several copies.  A sweep
 *    of the cells sums n log2 n from the host's own table (the same doubles as
 *    the CPU below 65,536) and the (x, g) row totals.
 *  - grouped: for conditioning variables with more cells than shared memory
 *    (the joint state of CondMI, a feature of tens of thousands of states):
 *    the host sorts the samples by (g, i) once per round; each warp counts
 *    the candidate over one group at a time in its own 256-bin histogram
 *    (chunks of 256 states for wider features), and every sample adds
 *    log2 of its cell's count, which sums to n log2 n per cell.
 * Every sum runs in a fixed order (lanes, warps, then a fixed tree), so a
 * round's doubles are the same bytes on every run.  With the fixed-point
 * table every term is a multiple of 2^-11 and the sums are exact, hence
 * equal to the CPU's bit for bit. */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "gpu.h"

namespace {

constexpr int DT = 512;       /* dense kernel threads */
constexpr int GT = 256;       /* grouped kernel threads */
constexpr int HB = 256;       /* bins of a warp's histogram */
constexpr uint32_t NL_TAB = 65536;
constexpr int FIX_BITS = 11;  /* Q5.11 */

/* Q5.11 log2 of c >= 1, from the 16-bit table of log2 m for m < 65,536:
 * for larger c, log2 c = log2(c >> sh) + sh (the low bits dropped), the same
 * integer arithmetic on host and device (src/mi_select.c has the twin). */
__device__ __forceinline__ uint32_t lq_of(const uint16_t *lq, uint32_t c)
{
    if (c < NL_TAB) return lq[c];
    uint32_t sh = 16u - (uint32_t)__clz(c); /* c >> sh < 65,536 */
    return (uint32_t)lq[c >> sh] + (sh << FIX_BITS);
}

struct tab_t {
    const uint8_t *x8;          /* features with <= 256 states */
    const uint16_t *x16;        /* the others */
    const unsigned long long *ofs; /* per feature: element offset, bit 63: 16-bit */
    const uint32_t *nst;        /* states per feature */
    const uint16_t *y;
    uint32_t n, n_pad;
    const double *nl;           /* n log2 n (or its fixed-point value) below 65,536 */
    const uint16_t *lq;         /* Q5.11 log2 table */
    int fixed;
};

__device__ __forceinline__ double nl_of(const tab_t &T, uint32_t c)
{
    if (c < NL_TAB) return T.nl[c];
    if (T.fixed) return (double)((unsigned long long)c * lq_of(T.lq, c)) * (1.0 / (1 << FIX_BITS));
    return (double)c * log2((double)c);
}

__device__ __forceinline__ double lg_of(const tab_t &T, uint32_t c)
{
    if (T.fixed) return (double)lq_of(T.lq, c) * (1.0 / (1 << FIX_BITS));
    return log2((double)c);
}

/* Sum a and b over the CTA in a fixed order; the result in thread 0. */
template <int NT>
__device__ __forceinline__ void cta_sum2(double &a, double &b, double (*red)[NT / 32])
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        a += __shfl_down_sync(0xffffffffu, a, o);
        b += __shfl_down_sync(0xffffffffu, b, o);
    }
    const int w = threadIdx.x / 32, l = threadIdx.x % 32;
    if (l == 0) {
        red[0][w] = a;
        red[1][w] = b;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        a = b = 0.0;
        for (int k = 0; k < NT / 32; k++) {
            a += red[0][k];
            b += red[1][k];
        }
    }
}

/* z[s] = g * ni + i: g = feature gf's state (or 0), i = the class (or 0). */
__global__ void k_make_z(tab_t T, uint32_t gf, uint32_t ni, int with_y, uint16_t *z)
{
    uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= T.n_pad) return;
    uint32_t g = 0;
    if (s < T.n && gf != 0xffffffffu) {
        unsigned long long o = T.ofs[gf];
        g = (o >> 63) ? T.x16[(o & ~(1ull << 63)) + s] : T.x8[o + s];
    }
    z[s] = (uint16_t)(s < T.n ? g * ni + (with_y ? T.y[s] : 0u) : 0u);
}

struct dense_t {
    const uint32_t *cand;
    const uint16_t *z;
    uint32_t ng, ni, nz;
    uint32_t cells; /* shared-memory cells */
    double *e3, *e2; /* per candidate */
};

/* Count 4 samples starting at s (s % 4 == 0, below n_pad) into h. */
template <typename X>
__device__ __forceinline__ void dense_count4(const X *x, const uint16_t *z, uint32_t s, uint32_t n,
                                             uint32_t x0, uint32_t xn, uint32_t nz, uint32_t *h)
{
    uint32_t xv[4];
    if (sizeof(X) == 1) {
        uchar4 v = *(const uchar4 *)(x + s);
        xv[0] = v.x, xv[1] = v.y, xv[2] = v.z, xv[3] = v.w;
    } else {
        ushort4 v = *(const ushort4 *)(x + s);
        xv[0] = v.x, xv[1] = v.y, xv[2] = v.z, xv[3] = v.w;
    }
    ushort4 zv = *(const ushort4 *)(z + s);
    const uint32_t zz[4] = {zv.x, zv.y, zv.z, zv.w};
#pragma unroll
    for (int k = 0; k < 4; k++) {
        uint32_t r = xv[k] - x0;
        if (s + k < n && r < xn) atomicAdd(&h[r * nz + zz[k]], 1u);
    }
}

__global__ void __launch_bounds__(DT) k_dense(tab_t T, dense_t D)
{
    extern __shared__ uint32_t h[];
    __shared__ double red[2][DT / 32];
    const uint32_t f = D.cand[blockIdx.x];
    const uint32_t nk = T.nst[f], nz = D.nz, ni = D.ni, ng = D.ng;
    const unsigned long long o = T.ofs[f];
    const bool wide = o >> 63;
    const uint8_t *x8 = T.x8 + (wide ? 0 : o);
    const uint16_t *x16 = T.x16 + (wide ? (o & ~(1ull << 63)) : 0);
    const uint32_t xc = min(nk, D.cells / nz); /* states per pass (>= 1) */
    const int tid = threadIdx.x, warp = tid / 32;
    double e3 = 0.0, e2 = 0.0;
    for (uint32_t x0 = 0; x0 < nk; x0 += xc) {
        const uint32_t xn = min(xc, nk - x0), used = xn * nz;
        /* copies of a small table, one per group of warps */
        const uint32_t R = min((uint32_t)(DT / 32), D.cells / used);
        for (uint32_t i = tid; i < used * R; i += DT) h[i] = 0u;
        __syncthreads();
        uint32_t *hw = h + (warp % R) * used;
        for (uint32_t s = 4u * tid; s < T.n_pad; s += 4u * DT) {
            if (wide) dense_count4(x16, D.z, s, T.n, x0, xn, nz, hw);
            else dense_count4(x8, D.z, s, T.n, x0, xn, nz, hw);
        }
        __syncthreads();
        /* rows (x, g) of ni cells: E(x, g, i) and E(x, g) */
        const uint32_t rows = xn * ng;
        for (uint32_t r = tid; r < rows; r += DT) {
            uint32_t tot = 0;
            for (uint32_t i = 0; i < ni; i++) {
                uint32_t c = 0;
                for (uint32_t k = 0; k < R; k++) c += h[k * used + r * ni + i];
                if (ni > 1) e3 += nl_of(T, c);
                tot += c;
            }
            e2 += nl_of(T, tot);
        }
        __syncthreads();
    }
    cta_sum2<DT>(e3, e2, red);
    if (tid == 0) {
        D.e3[blockIdx.x] = ni > 1 ? e3 : e2;
        D.e2[blockIdx.x] = e2;
    }
}

struct grouped_t {
    const uint32_t *cand;
    const uint32_t *perm, *grp, *sub;
    uint32_t n_grp, n_sub, ni;
    double *e3, *e2;
};

/* One warp, samples perm[a..b): count the candidate's states in [x0, x0+HB)
 * into h, add log2 of each sample's cell count to acc, clear h. */
template <typename X>
__device__ __forceinline__ double warp_run(const tab_t &T, const X *x, const uint32_t *perm, uint32_t a,
                                           uint32_t b, uint32_t x0, uint32_t *h)
{
    const uint32_t lane = threadIdx.x % 32;
    double acc = 0.0;
    for (uint32_t i = a + lane; i < b; i += 32) {
        uint32_t r = (uint32_t)x[perm[i]] - x0;
        if (r < (uint32_t)HB) atomicAdd(&h[r], 1u);
    }
    __syncwarp();
    for (uint32_t i = a + lane; i < b; i += 32) {
        uint32_t r = (uint32_t)x[perm[i]] - x0;
        if (r < (uint32_t)HB) acc += lg_of(T, h[r]);
    }
    __syncwarp();
    for (uint32_t i = a + lane; i < b; i += 32) {
        uint32_t r = (uint32_t)x[perm[i]] - x0;
        if (r < (uint32_t)HB) h[r] = 0u;
    }
    __syncwarp();
    return acc;
}

template <typename X>
__device__ __forceinline__ void grouped_body(const tab_t &T, const grouped_t &G, const X *x, uint32_t nk,
                                             uint32_t *h, double &e3, double &e2)
{
    const uint32_t w = threadIdx.x / 32;
    for (uint32_t x0 = 0; x0 < nk; x0 += HB) {
        for (uint32_t gi = w; gi < G.n_grp; gi += GT / 32)
            e2 += warp_run(T, x, G.perm, G.grp[gi], G.grp[gi + 1], x0, h);
        if (G.ni > 1)
            for (uint32_t si = w; si < G.n_sub; si += GT / 32)
                e3 += warp_run(T, x, G.perm, G.sub[2 * si], G.sub[2 * si + 1], x0, h);
    }
}

__global__ void __launch_bounds__(GT) k_grouped(tab_t T, grouped_t G)
{
    __shared__ uint32_t hist[GT / 32][HB];
    __shared__ double red[2][GT / 32];
    const uint32_t f = G.cand[blockIdx.x];
    const uint32_t nk = T.nst[f];
    const unsigned long long o = T.ofs[f];
    uint32_t *h = hist[threadIdx.x / 32];
    for (int i = threadIdx.x % 32; i < HB; i += 32) h[i] = 0u;
    __syncwarp();
    double e3 = 0.0, e2 = 0.0;
    if (o >> 63) grouped_body(T, G, T.x16 + (o & ~(1ull << 63)), nk, h, e3, e2);
    else grouped_body(T, G, T.x8 + o, nk, h, e3, e2);
    cta_sum2<GT>(e3, e2, red);
    if (threadIdx.x == 0) {
        G.e3[blockIdx.x] = G.ni > 1 ? e3 : e2;
        G.e2[blockIdx.x] = e2;
    }
}

} // namespace

struct es_gpu_mi {
    int dev;
    uint32_t n, n_pad, nf, nc;
    uint8_t *d_x8;
    uint16_t *d_x16, *d_y, *d_z, *d_lq;
    unsigned long long *d_ofs;
    uint32_t *d_nst, *d_cand, *d_perm, *d_grp, *d_sub;
    uint32_t *h_cand, *h_nst;
    uint32_t cap_perm, cap_grp, cap_sub;
    double *d_nl, *d_e, *h_e;
    uint16_t *h_z;
    uint32_t cells_max; /* dense shared-memory cells */
    cudaStream_t st;
    cudaEvent_t t0, t1;
    double seconds;
    tab_t T;
};

extern "C" void es_gpu_mi_close(es_gpu_mi_t *g)
{
    if (!g) return;
    cudaSetDevice(g->dev);
    cudaFree(g->d_x8);
    cudaFree(g->d_x16);
    cudaFree(g->d_y);
    cudaFree(g->d_z);
    cudaFree(g->d_lq);
    cudaFree(g->d_ofs);
    cudaFree(g->d_nst);
    cudaFree(g->d_cand);
    cudaFree(g->d_perm);
    cudaFree(g->d_grp);
    cudaFree(g->d_sub);
    cudaFree(g->d_nl);
    cudaFree(g->d_e);
    cudaFreeHost(g->h_cand);
    free(g->h_nst);
    cudaFreeHost(g->h_e);
    cudaFreeHost(g->h_z);
    if (g->st) cudaStreamDestroy(g->st);
    if (g->t0) cudaEventDestroy(g->t0);
    if (g->t1) cudaEventDestroy(g->t1);
    free(g);
}

static int mi_open(es_gpu_mi_t *g, const uint16_t *x, const uint32_t *n_states, const uint16_t *y,
                   int fixed, const double *nl, const uint16_t *lq)
{
    const size_t n = g->n, n_pad = g->n_pad, nf = g->nf;
    cudaDeviceProp p;
    CHECK(cudaSetDevice(g->dev));
    CHECK(cudaGetDeviceProperties(&p, g->dev));
    /* the dense kernel's table: what one CTA may have, less its static part */
    size_t smem = p.sharedMemPerBlockOptin > 4096 ? p.sharedMemPerBlockOptin - 2048 : p.sharedMemPerBlock - 2048;
    g->cells_max = (uint32_t)(smem / 4);
    CHECK(cudaFuncSetAttribute(k_dense, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)(g->cells_max * 4)));
    CHECK(cudaStreamCreateWithFlags(&g->st, cudaStreamNonBlocking));
    CHECK(cudaEventCreate(&g->t0));
    CHECK(cudaEventCreate(&g->t1));

    /* columns: bytes for <= 256 states, else 16-bit; each padded to a
     * multiple of 16 samples (vector loads) */
    unsigned long long *ofs = (unsigned long long *)malloc(nf * sizeof *ofs);
    if (!ofs) return ES_ERR_NOMEM;
    size_t n8 = 0, n16 = 0;
    for (size_t f = 0; f < nf; f++) {
        if (n_states[f] <= 256) ofs[f] = n8++ * n_pad;
        else ofs[f] = (n16++ * n_pad) | (1ull << 63);
    }
    int ret = ES_OK;
    if (!(g->h_nst = (uint32_t *)malloc(nf * 4))) {
        free(ofs);
        return ES_ERR_NOMEM;
    }
    memcpy(g->h_nst, n_states, nf * 4);
    uint8_t *h8 = NULL;
    uint16_t *h16 = NULL;
    cudaError_t e = cudaMalloc(&g->d_x8, (n8 ? n8 : 1) * n_pad);
    if (e == cudaSuccess) e = cudaMalloc(&g->d_x16, (n16 ? n16 : 1) * n_pad * 2);
    if (e == cudaSuccess) e = cudaMalloc(&g->d_ofs, nf * sizeof *ofs);
    if (e == cudaSuccess) e = cudaMemcpy(g->d_ofs, ofs, nf * sizeof *ofs, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaMalloc(&g->d_nst, nf * 4);
    if (e == cudaSuccess) e = cudaMemcpy(g->d_nst, n_states, nf * 4, cudaMemcpyHostToDevice);
    /* copy feature by feature through a staging buffer of one column */
    h8 = (uint8_t *)calloc(n_pad, 1);
    h16 = (uint16_t *)calloc(n_pad, 2);
    if (!h8 || !h16) ret = ES_ERR_NOMEM;
    for (size_t f = 0; f < nf && e == cudaSuccess && !ret; f++) {
        const uint16_t *c = x + f * n;
        if (ofs[f] >> 63) {
            memcpy(h16, c, n * 2);
            e = cudaMemcpy(g->d_x16 + (ofs[f] & ~(1ull << 63)), h16, n_pad * 2, cudaMemcpyHostToDevice);
        } else {
            for (size_t s = 0; s < n; s++) h8[s] = (uint8_t)c[s];
            e = cudaMemcpy(g->d_x8 + ofs[f], h8, n_pad, cudaMemcpyHostToDevice);
        }
    }
    if (e == cudaSuccess && !ret) {
        memcpy(h16, y, n * 2);
        e = cudaMalloc(&g->d_y, n_pad * 2);
        if (e == cudaSuccess) e = cudaMemcpy(g->d_y, h16, n_pad * 2, cudaMemcpyHostToDevice);
    }
    if (e == cudaSuccess && !ret) {
        e = cudaMalloc(&g->d_lq, NL_TAB * 2);
        if (e == cudaSuccess) e = cudaMemcpy(g->d_lq, lq, NL_TAB * 2, cudaMemcpyHostToDevice);
        if (e == cudaSuccess) e = cudaMalloc(&g->d_nl, NL_TAB * 8);
        if (e == cudaSuccess) e = cudaMemcpy(g->d_nl, nl, NL_TAB * 8, cudaMemcpyHostToDevice);
    }
    if (e == cudaSuccess && !ret) e = cudaMalloc(&g->d_z, n_pad * 2);
    if (e == cudaSuccess && !ret) e = cudaMalloc(&g->d_cand, nf * 4);
    if (e == cudaSuccess && !ret) e = cudaMalloc(&g->d_e, nf * 2 * 8);
    if (e == cudaSuccess && !ret) e = cudaMallocHost(&g->h_cand, nf * 4);
    if (e == cudaSuccess && !ret) e = cudaMallocHost(&g->h_e, nf * 2 * 8);
    if (e == cudaSuccess && !ret) e = cudaMallocHost(&g->h_z, n_pad * 2);
    free(ofs);
    free(h8);
    free(h16);
    if (e != cudaSuccess) {
        fprintf(stderr, "[E::es_gpu_mi_open] %s (a table of %u samples x %u features)\n",
                cudaGetErrorString(e), g->n, g->nf);
        return e == cudaErrorMemoryAllocation ? ES_ERR_NOMEM : ES_ERR_GPU;
    }
    if (ret) return ret;
    tab_t &T = g->T;
    T.x8 = g->d_x8;
    T.x16 = g->d_x16;
    T.ofs = g->d_ofs;
    T.nst = g->d_nst;
    T.y = g->d_y;
    T.n = g->n;
    T.n_pad = g->n_pad;
    T.nl = g->d_nl;
    T.lq = g->d_lq;
    T.fixed = fixed;
    return ES_OK;
}

extern "C" int es_gpu_mi_open(int dev, uint32_t n_samples, uint32_t n_features, const uint16_t *x,
                              const uint32_t *n_states, const uint16_t *y, uint32_t n_classes, int fixed,
                              const double *nl, const uint16_t *lq, es_gpu_mi_t **out)
{
    *out = NULL;
    if (!n_samples || !n_features || !x || !n_states || !y || !nl || !lq || n_classes < 1) return ES_ERR_ARG;
    es_gpu_mi_t *g = (es_gpu_mi_t *)calloc(1, sizeof *g);
    if (!g) return ES_ERR_NOMEM;
    g->dev = dev;
    g->n = n_samples;
    g->n_pad = (n_samples + 15u) / 16u * 16u;
    g->nf = n_features;
    g->nc = n_classes;
    int ret = mi_open(g, x, n_states, y, fixed, nl, lq);
    if (ret) {
        es_gpu_mi_close(g);
        return ret;
    }
    *out = g;
    return ES_OK;
}

extern "C" uint32_t es_gpu_mi_dense_max(const es_gpu_mi_t *g)
{
    /* z is 16-bit */
    return g->cells_max < 65536u ? g->cells_max : 65536u;
}

extern "C" double es_gpu_mi_seconds(const es_gpu_mi_t *g) { return g->seconds; }

/* Grow a device buffer of uint32 to hold n entries. */
static int ensure_u32(uint32_t **p, uint32_t *cap, size_t n)
{
    if (*p && *cap >= n) return ES_OK;
    cudaFree(*p);
    *p = NULL;
    *cap = 0;
    CHECK(cudaMalloc(p, (n ? n : 1) * 4));
    *cap = (uint32_t)n;
    return ES_OK;
}

extern "C" int es_gpu_mi_round(es_gpu_mi_t *g, const es_gpu_mi_cond_t *c, const uint8_t *want,
                               double *e3, double *e2)
{
    CHECK(cudaSetDevice(g->dev));
    uint32_t nc = 0, max_nk = 1;
    for (uint32_t f = 0; f < g->nf; f++) {
        if (!want[f]) continue;
        g->h_cand[nc++] = f;
        if (g->h_nst[f] > max_nk) max_nk = g->h_nst[f];
    }
    if (!nc) return ES_OK;
    const uint64_t nz = (uint64_t)c->ng * c->ni;
    const bool grouped = !c->z && c->perm;
    if (!grouped && (nz > es_gpu_mi_dense_max(g) || !nz)) {
        fprintf(stderr, "[E::es_gpu_mi_round] %llu conditioning cells: the dense kernel takes 1 to %u\n",
                (unsigned long long)nz, es_gpu_mi_dense_max(g));
        return ES_ERR_ARG;
    }
    int ret;
    CHECK(cudaMemcpyAsync(g->d_cand, g->h_cand, (size_t)nc * 4, cudaMemcpyHostToDevice, g->st));
    double *d_e3 = g->d_e, *d_e2 = g->d_e + g->nf;
    CHECK(cudaEventRecord(g->t0, g->st));
    if (!grouped) {
        if (c->z) {
            for (uint32_t s = 0; s < g->n; s++) g->h_z[s] = (uint16_t)c->z[s];
            for (uint32_t s = g->n; s < g->n_pad; s++) g->h_z[s] = 0;
            CHECK(cudaMemcpyAsync(g->d_z, g->h_z, (size_t)g->n_pad * 2, cudaMemcpyHostToDevice, g->st));
        } else {
            k_make_z<<<(g->n_pad + 255) / 256, 256, 0, g->st>>>(g->T, c->feature, c->ni, c->with_y, g->d_z);
            CHECK(cudaGetLastError());
        }
        dense_t D;
        D.cand = g->d_cand;
        D.z = g->d_z;
        D.ng = c->ng;
        D.ni = c->ni;
        D.nz = (uint32_t)nz;
        /* the largest table a candidate needs; small tables get up to 16
         * copies within 16 KiB (several CTAs per SM), large ones take
         * chunks of the shared memory a CTA may have */
        uint64_t need = (uint64_t)max_nk * nz;
        uint64_t cells = need * 16 < 4096 ? need * 16 : (need > 4096 ? need : 4096);
        if (cells > g->cells_max) cells = g->cells_max;
        D.cells = (uint32_t)cells;
        D.e3 = d_e3;
        D.e2 = d_e2;
        k_dense<<<nc, DT, (size_t)D.cells * 4, g->st>>>(g->T, D);
        CHECK(cudaGetLastError());
    } else {
        if ((ret = ensure_u32(&g->d_perm, &g->cap_perm, c->m)) ||
            (ret = ensure_u32(&g->d_grp, &g->cap_grp, (size_t)c->n_grp + 1)) ||
            (ret = ensure_u32(&g->d_sub, &g->cap_sub, 2 * (size_t)c->n_sub)))
            return ret;
        if (c->m) CHECK(cudaMemcpyAsync(g->d_perm, c->perm, (size_t)c->m * 4, cudaMemcpyHostToDevice, g->st));
        CHECK(cudaMemcpyAsync(g->d_grp, c->grp, ((size_t)c->n_grp + 1) * 4, cudaMemcpyHostToDevice, g->st));
        if (c->n_sub)
            CHECK(cudaMemcpyAsync(g->d_sub, c->sub, 2 * (size_t)c->n_sub * 4, cudaMemcpyHostToDevice, g->st));
        grouped_t G;
        G.cand = g->d_cand;
        G.perm = g->d_perm;
        G.grp = g->d_grp;
        G.sub = g->d_sub;
        G.n_grp = c->n_grp;
        G.n_sub = c->n_sub;
        G.ni = c->ni;
        G.e3 = d_e3;
        G.e2 = d_e2;
        k_grouped<<<nc, GT, 0, g->st>>>(g->T, G);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaEventRecord(g->t1, g->st));
    CHECK(cudaMemcpyAsync(g->h_e, d_e3, (size_t)nc * 8, cudaMemcpyDeviceToHost, g->st));
    CHECK(cudaMemcpyAsync(g->h_e + g->nf, d_e2, (size_t)nc * 8, cudaMemcpyDeviceToHost, g->st));
    CHECK(cudaStreamSynchronize(g->st));
    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, g->t0, g->t1));
    g->seconds += ms * 1e-3;
    for (uint32_t k = 0; k < nc; k++) {
        e3[g->h_cand[k]] = g->h_e[k];
        e2[g->h_cand[k]] = g->h_e[g->nf + k];
    }
    return ES_OK;
}
