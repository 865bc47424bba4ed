/* mi.cu -- the counting of a feature-selection round on a device: for every
 * candidate feature X, the sums E(X, g, i) and E(X, g) of n log2 n over the
 * cells of its contingency table with the round's conditioning variable g
 * (the newest selected feature, the joint state of the selected ones, or a
 * constant) and an inner variable i (the class, or none).
 * src/select/mi_gpu.c turns them into scores exactly as on the CPU.
 *
 * The sums are the CPU's doubles, bit for bit: the counts are exact (32-bit
 * counters), every term comes from the host's own table of n log2 n (every
 * count up to the number of samples), and each candidate's terms are added
 * one after the other in the order src/select/mi_count.c adds them, which the
 * host gives per candidate (ES_GPU_MI_ROWS, _TOUCH, _GROUPS).  The counting is
 * parallel; only the additions are a chain, kept on one warp whose lanes load
 * 32 terms at a time and add them in lane order (all lanes hold the sum).
 *
 * Two kernel shapes, 32-bit counters throughout (a cell counts samples, and
 * 16-bit counters would overflow at 65,535):
 *  - dense, one CTA per candidate: the table x * nz + z (z = g * ni + i per
 *    sample, built on the device or sent by the host) in shared memory when
 *    it fits, replicated per warp when it is small (spreading the atomics of
 *    few-state features), else in a slice of global memory per CTA;
 *  - grouped, one warp per candidate, for conditioning variables whose
 *    tables the CPU does not hold densely (the joint state of CondMI, a
 *    feature of many states): the host sorts the samples by (g, i) once per
 *    round; the warp counts the candidate run by run (groups of g, then runs
 *    of (g, i)) in a histogram of the candidate's states and adds each run's
 *    sum as the CPU does. */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "gpu.h"

namespace {

constexpr int DT = 256;                  /* dense kernel threads */
constexpr int GW = 4;                    /* grouped kernel: warps (candidates) per CTA */
constexpr uint32_t SMEM_CELLS = 12288;   /* dense tables up to 48 KiB in shared memory */
constexpr uint32_t REPL_CELLS = 4096;    /* small tables: copies within 16 KiB */
constexpr uint32_t GROUP_BINS = 2048;    /* grouped histograms up to 8 KiB a warp in shared memory */
constexpr unsigned FULL = 0xffffffffu;

struct tab_t {
    const uint16_t *x;  /* n_features x n, feature-major */
    const uint32_t *nst; /* states per feature */
    const uint16_t *y;
    uint32_t n;
    const double *nl;   /* n log2 n for every count 0 .. n */
};

/* acc + v of lane 0 + v of lane 1 + ... + v of lane 31, in that order; every
 * lane returns the sum. */
__device__ __forceinline__ double chain32(double acc, double v)
{
#pragma unroll
    for (int k = 0; k < 32; k++) acc += __shfl_sync(FULL, v, k);
    return acc;
}

/* The first-touch order on one warp: each lane holds a sample's cell key
 * (ok: a sample at all); in lane order, the count of every cell that no
 * earlier sample touched is added to acc (the lowest lane of equal keys
 * takes it) and cleared, so later samples of that cell add nothing. */
__device__ __forceinline__ double touch32(double acc, bool ok, uint32_t key, uint32_t *h, const double *nl)
{
    unsigned peers = __match_any_sync(FULL, ok ? key : 0xffffffffu);
    bool first = ok && (__ffs(peers) - 1) == (int)(threadIdx.x % 32);
    uint32_t c = first ? h[key] : 0u;
    acc = chain32(acc, c ? nl[c] : 0.0);
    if (c) h[key] = 0u;
    __syncwarp();
    return acc;
}

/* z[s] = g * ni + i: g = feature gf's state (or 0), i = the class (or 0). */
__global__ void k_make_z(tab_t T, uint32_t gf, uint32_t ni, int with_y, uint32_t *z)
{
    uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= T.n) return;
    uint32_t g = gf != 0xffffffffu ? T.x[(size_t)gf * T.n + s] : 0u;
    z[s] = g * ni + (with_y ? T.y[s] : 0u);
}

struct dense_t {
    const uint32_t *cand; /* features */
    const uint8_t *mode;  /* per candidate: ES_GPU_MI_ROWS or _TOUCH */
    uint32_t n_cand;
    const uint32_t *z;
    uint32_t ng, ni, nz;
    uint32_t smem_cells;  /* dynamic shared memory, in cells */
    uint32_t *scratch;    /* gridDim.x slices of scratch_cells, all zero */
    size_t scratch_cells;
    double *e3, *e2;      /* per candidate */
};

/* acc + n log2 n of h[0], h[1], ... h[cells - 1], in that order, on one
 * warp; clear: zero the cells too. */
__device__ __forceinline__ double cells32(double acc, uint32_t *h, uint32_t cells, const double *nl, bool clear)
{
    const uint32_t lane = threadIdx.x % 32;
    for (uint32_t c0 = 0; c0 < cells; c0 += 32) {
        uint32_t c = c0 + lane;
        acc = chain32(acc, c < cells ? nl[h[c]] : 0.0);
        if (clear && c < cells) h[c] = 0u;
    }
    return acc;
}

/* The CPU's dense sums (mi_count.c, pair_count) of the table h of nk * nz
 * cells, on one warp: E(x, g) over the rows (x, g) of ni cells, then E(x, g,
 * i) over the cells in order (rows) or in the order the samples first touch
 * them (touch, which clears h as it goes; the ROWS path leaves h as it is). */
__device__ void dense_sums(const tab_t &T, const uint16_t *x, const uint32_t *z, uint32_t *h, uint32_t nk,
                           uint32_t ng, uint32_t ni, uint32_t nz, int touch, double &e3, double &e2)
{
    const uint32_t lane = threadIdx.x % 32, rows = nk * ng;
    double a2 = 0.0;
    for (uint32_t r0 = 0; r0 < rows; r0 += 32) {
        uint32_t r = r0 + lane, tot = 0;
        if (r < rows)
            for (uint32_t i = 0; i < ni; i++) tot += h[r * ni + i];
        a2 = chain32(a2, r < rows ? T.nl[tot] : 0.0);
    }
    e2 = a2;
    if (ni == 1) { /* the rows are the cells */
        e3 = a2;
    } else if (!touch) {
        e3 = cells32(0.0, h, nk * nz, T.nl, false);
    } else {
        /* the CPU lists the cells as samples first touch them and adds
         * their counts in that order: here a cell's count is taken (and
         * cleared) by the first sample that reaches it */
        double a3 = 0.0;
        for (uint32_t s0 = 0; s0 < T.n; s0 += 32) {
            uint32_t s = s0 + lane;
            a3 = touch32(a3, s < T.n, s < T.n ? (uint32_t)x[s] * nz + z[s] : 0u, h, T.nl);
        }
        e3 = a3;
    }
}

__global__ void __launch_bounds__(DT) k_dense(tab_t T, dense_t D)
{
    extern __shared__ uint32_t sh[];
    const int tid = threadIdx.x, warp = tid / 32;
    for (uint32_t k = blockIdx.x; k < D.n_cand; k += gridDim.x) {
        const uint32_t f = D.cand[k], nk = T.nst[f], nz = D.nz, cells = nk * nz;
        const uint16_t *x = T.x + (size_t)f * T.n;
        uint32_t *h;
        uint32_t R = 1;
        if (cells <= D.smem_cells) {
            h = sh;
            R = cells <= REPL_CELLS ? min((uint32_t)(DT / 32), min(D.smem_cells, REPL_CELLS * 4) / cells) : 1;
            if (R < 1) R = 1;
            for (uint32_t i = tid; i < R * cells; i += DT) h[i] = 0u;
        } else {
            h = D.scratch + (size_t)blockIdx.x * D.scratch_cells; /* zero: left so below */
        }
        __syncthreads();
        uint32_t *hw = h + (warp % R) * cells;
        for (uint32_t s = tid; s < T.n; s += DT) atomicAdd(&hw[(uint32_t)x[s] * nz + D.z[s]], 1u);
        __syncthreads();
        if (R > 1) {
            for (uint32_t c = tid; c < cells; c += DT) {
                uint32_t t = 0;
                for (uint32_t r = 0; r < R; r++) t += h[r * cells + c];
                h[c] = t;
            }
            __syncthreads();
        }
        if (warp == 0) {
            double e3, e2;
            dense_sums(T, x, D.z, h, nk, D.ng, D.ni, nz, D.mode[k] == ES_GPU_MI_TOUCH, e3, e2);
            if (tid == 0) {
                D.e3[k] = e3;
                D.e2[k] = e2;
            }
        }
        __syncthreads();
        if (h != sh) /* leave the global slice zero for the next candidate */
            for (uint32_t i = tid; i < cells; i += DT) h[i] = 0u;
        __syncthreads();
    }
}

struct grouped_t {
    const uint32_t *cand;
    uint32_t n_cand;
    const uint32_t *perm, *grp, *sub;
    uint32_t n_grp, n_sub, ni;
    uint32_t bins;        /* histogram bins a warp has (>= every candidate's states) */
    uint32_t *scratch;    /* gridDim.x * GW histograms of bins when they are not in shared memory */
    double *e3, *e2;
};

/* The CPU's sum of n log2 n over the candidate's value counts in the run
 * perm[a..b) (mi_count.c, run_nl_sum), on one warp with the histogram h of
 * nk bins (all zero, and left so). */
__device__ double run_sum(const tab_t &T, const uint16_t *x, const uint32_t *perm, uint32_t a, uint32_t b,
                          uint32_t nk, uint32_t *h)
{
    const uint32_t lane = threadIdx.x % 32;
    double e = 0.0;
    for (uint32_t i = a + lane; i < b; i += 32) atomicAdd(&h[x[perm[i]]], 1u);
    __syncwarp();
    if (b - a > nk) {
        e = cells32(e, h, nk, T.nl, true); /* a long run: by value, clearing every bin */
    } else {
        /* a short run: in the order its samples first touch the values */
        for (uint32_t i0 = a; i0 < b; i0 += 32) {
            uint32_t i = i0 + lane;
            e = touch32(e, i < b, i < b ? x[perm[i]] : 0u, h, T.nl);
        }
    }
    __syncwarp();
    return e;
}

__global__ void __launch_bounds__(GW * 32) k_grouped(tab_t T, grouped_t G)
{
    extern __shared__ uint32_t gsh[];
    const uint32_t w = threadIdx.x / 32, lane = threadIdx.x % 32;
    const uint32_t slot = blockIdx.x * GW + w;
    uint32_t *h = G.scratch ? G.scratch + (size_t)slot * G.bins : gsh + (size_t)w * G.bins;
    for (uint32_t i = lane; i < G.bins; i += 32) h[i] = 0u;
    __syncwarp();
    for (uint32_t k = slot; k < G.n_cand; k += gridDim.x * GW) {
        const uint32_t f = G.cand[k], nk = T.nst[f];
        const uint16_t *x = T.x + (size_t)f * T.n;
        double e2 = 0.0, e3 = 0.0;
        for (uint32_t gi = 0; gi < G.n_grp; gi++) e2 += run_sum(T, x, G.perm, G.grp[gi], G.grp[gi + 1], nk, h);
        if (G.ni > 1)
            for (uint32_t si = 0; si < G.n_sub; si++)
                e3 += run_sum(T, x, G.perm, G.sub[2 * si], G.sub[2 * si + 1], nk, h);
        else
            e3 = e2;
        if (lane == 0) {
            G.e3[k] = e3;
            G.e2[k] = e2;
        }
    }
}

} // namespace

struct es_gpu_mi {
    int dev, n_sm;
    uint32_t n, nf, nc;
    uint16_t *d_x, *d_y;
    uint32_t *d_nst, *d_z, *d_cand, *d_perm, *d_grp, *d_sub, *d_scratch;
    uint8_t *d_mode;
    size_t cap_perm, cap_grp, cap_sub, cap_scratch; /* elements */
    uint32_t *h_cand, *h_nst; /* pinned: candidates (dense ones first) */
    uint8_t *h_mode;          /* pinned */
    double *d_nl, *d_e, *h_e;
    cudaStream_t st;
    cudaEvent_t t0, t1;
    double seconds;
    tab_t T;
};

extern "C" void es_gpu_mi_close(es_gpu_mi_t *g)
{
    if (!g) return;
    cudaSetDevice(g->dev);
    cudaFree(g->d_x);
    cudaFree(g->d_y);
    cudaFree(g->d_nst);
    cudaFree(g->d_z);
    cudaFree(g->d_cand);
    cudaFree(g->d_perm);
    cudaFree(g->d_grp);
    cudaFree(g->d_sub);
    cudaFree(g->d_scratch);
    cudaFree(g->d_mode);
    cudaFree(g->d_nl);
    cudaFree(g->d_e);
    cudaFreeHost(g->h_cand);
    cudaFreeHost(g->h_mode);
    cudaFreeHost(g->h_e);
    free(g->h_nst);
    if (g->st) cudaStreamDestroy(g->st);
    if (g->t0) cudaEventDestroy(g->t0);
    if (g->t1) cudaEventDestroy(g->t1);
    free(g);
}

extern "C" int es_gpu_mi_prepare(int dev)
{
    CHECK(cudaSetDevice(dev));
    CHECK(cudaFree(0));
    /* load the kernels now rather than at their first launch */
    cudaFuncAttributes a;
    CHECK(cudaFuncGetAttributes(&a, k_make_z));
    CHECK(cudaFuncGetAttributes(&a, k_dense));
    CHECK(cudaFuncGetAttributes(&a, k_grouped));
    return ES_OK;
}

/* Allocate and fill the device side of g; the table goes up in one copy. */
static int mi_open(es_gpu_mi_t *g, const uint16_t *x, const uint32_t *n_states, const uint16_t *y,
                   const double *nl, uint32_t n_nl)
{
    const size_t n = g->n, nf = g->nf;
    CHECK(cudaSetDevice(g->dev));
    CHECK(cudaDeviceGetAttribute(&g->n_sm, cudaDevAttrMultiProcessorCount, g->dev));
    CHECK(cudaStreamCreateWithFlags(&g->st, cudaStreamNonBlocking));
    CHECK(cudaEventCreate(&g->t0));
    CHECK(cudaEventCreate(&g->t1));
    if (!(g->h_nst = (uint32_t *)malloc(nf * 4))) return ES_ERR_NOMEM;
    memcpy(g->h_nst, n_states, nf * 4);
    cudaError_t e = cudaMalloc(&g->d_x, nf * n * 2);
    if (e == cudaSuccess) e = cudaMemcpyAsync(g->d_x, x, nf * n * 2, cudaMemcpyHostToDevice, g->st);
    if (e == cudaSuccess) e = cudaMalloc(&g->d_nst, nf * 4);
    if (e == cudaSuccess) e = cudaMemcpyAsync(g->d_nst, n_states, nf * 4, cudaMemcpyHostToDevice, g->st);
    if (e == cudaSuccess) e = cudaMalloc(&g->d_y, n * 2);
    if (e == cudaSuccess) e = cudaMemcpyAsync(g->d_y, y, n * 2, cudaMemcpyHostToDevice, g->st);
    if (e == cudaSuccess) e = cudaMalloc(&g->d_nl, (size_t)n_nl * 8);
    if (e == cudaSuccess) e = cudaMemcpyAsync(g->d_nl, nl, (size_t)n_nl * 8, cudaMemcpyHostToDevice, g->st);
    if (e == cudaSuccess) e = cudaMalloc(&g->d_z, n * 4);
    if (e == cudaSuccess) e = cudaMalloc(&g->d_cand, nf * 4);
    if (e == cudaSuccess) e = cudaMalloc(&g->d_mode, nf);
    if (e == cudaSuccess) e = cudaMalloc(&g->d_e, nf * 2 * 8);
    if (e == cudaSuccess) e = cudaMallocHost(&g->h_cand, nf * 4);
    if (e == cudaSuccess) e = cudaMallocHost(&g->h_mode, nf);
    if (e == cudaSuccess) e = cudaMallocHost(&g->h_e, nf * 2 * 8);
    if (e == cudaSuccess) e = cudaStreamSynchronize(g->st);
    if (e != cudaSuccess) {
        fprintf(stderr, "[E::es_gpu_mi_open] %s (a table of %u samples x %u features)\n", cudaGetErrorString(e),
                g->n, g->nf);
        return e == cudaErrorMemoryAllocation ? ES_ERR_NOMEM : ES_ERR_GPU;
    }
    tab_t &T = g->T;
    T.x = g->d_x;
    T.nst = g->d_nst;
    T.y = g->d_y;
    T.n = g->n;
    T.nl = g->d_nl;
    return ES_OK;
}

extern "C" int es_gpu_mi_open(int dev, uint32_t n_samples, uint32_t n_features, const uint16_t *x,
                              const uint32_t *n_states, const uint16_t *y, uint32_t n_classes, const double *nl,
                              uint32_t n_nl, es_gpu_mi_t **out)
{
    *out = NULL;
    if (!n_samples || !n_features || !x || !n_states || !y || !nl || n_nl <= n_samples || n_classes < 1)
        return ES_ERR_ARG;
    es_gpu_mi_t *g = (es_gpu_mi_t *)calloc(1, sizeof *g);
    if (!g) return ES_ERR_NOMEM;
    g->dev = dev;
    g->n = n_samples;
    g->nf = n_features;
    g->nc = n_classes;
    int ret = mi_open(g, x, n_states, y, nl, n_nl);
    if (ret) {
        es_gpu_mi_close(g);
        return ret;
    }
    *out = g;
    return ES_OK;
}

extern "C" double es_gpu_mi_seconds(const es_gpu_mi_t *g) { return g->seconds; }

/* Grow a device buffer of T to hold n entries (its contents are lost). */
template <typename X>
static int ensure(X **p, size_t *cap, size_t n)
{
    if (*p && *cap >= n) return ES_OK;
    cudaFree(*p);
    *p = NULL;
    *cap = 0;
    CHECK(cudaMalloc(p, (n ? n : 1) * sizeof(X)));
    *cap = n;
    return ES_OK;
}

/* The dense candidates h_cand[0..nd): one CTA each (a slice of global
 * scratch for the tables that do not fit in shared memory). */
static int launch_dense(es_gpu_mi_t *g, const es_gpu_mi_cond_t *c, uint32_t nd, uint64_t max_cells)
{
    const uint64_t nz = (uint64_t)c->ng * c->ni;
    if (c->z) {
        CHECK(cudaMemcpyAsync(g->d_z, c->z, (size_t)g->n * 4, cudaMemcpyHostToDevice, g->st));
    } else {
        k_make_z<<<(g->n + 255) / 256, 256, 0, g->st>>>(g->T, c->feature, c->ni, c->with_y, g->d_z);
        CHECK(cudaGetLastError());
    }
    dense_t D;
    memset(&D, 0, sizeof D);
    D.cand = g->d_cand;
    D.mode = g->d_mode;
    D.n_cand = nd;
    D.z = g->d_z;
    D.ng = c->ng;
    D.ni = c->ni;
    D.nz = (uint32_t)nz;
    /* small tables get copies within 16 KiB (several CTAs an SM); tables of
     * more than SMEM_CELLS go to global scratch, one slice per CTA */
    uint64_t sm = max_cells <= REPL_CELLS ? max_cells * (DT / 32) : max_cells;
    if (sm > REPL_CELLS * 4 && max_cells <= REPL_CELLS) sm = REPL_CELLS * 4;
    if (sm > SMEM_CELLS) sm = SMEM_CELLS;
    D.smem_cells = (uint32_t)sm;
    uint32_t grid = nd;
    if (max_cells > SMEM_CELLS) {
        uint32_t slots = (uint32_t)g->n_sm * 4;
        if (grid > slots) grid = slots;
        int ret = ensure(&g->d_scratch, &g->cap_scratch, (size_t)grid * max_cells);
        if (ret) return ret;
        CHECK(cudaMemsetAsync(g->d_scratch, 0, (size_t)grid * max_cells * 4, g->st));
        D.scratch = g->d_scratch;
        D.scratch_cells = max_cells;
    }
    D.e3 = g->d_e;
    D.e2 = g->d_e + g->nf;
    k_dense<<<grid, DT, (size_t)D.smem_cells * 4, g->st>>>(g->T, D);
    CHECK(cudaGetLastError());
    return ES_OK;
}

/* The grouped candidates h_cand[nd..nd + ngr): one warp each. */
static int launch_grouped(es_gpu_mi_t *g, const es_gpu_mi_cond_t *c, uint32_t nd, uint32_t ngr, uint32_t max_nk)
{
    int ret;
    if ((ret = ensure(&g->d_perm, &g->cap_perm, c->m)) ||
        (ret = ensure(&g->d_grp, &g->cap_grp, (size_t)c->n_grp + 1)) ||
        (ret = ensure(&g->d_sub, &g->cap_sub, 2 * (size_t)c->n_sub)))
        return ret;
    if (c->m) CHECK(cudaMemcpyAsync(g->d_perm, c->perm, (size_t)c->m * 4, cudaMemcpyHostToDevice, g->st));
    CHECK(cudaMemcpyAsync(g->d_grp, c->grp, ((size_t)c->n_grp + 1) * 4, cudaMemcpyHostToDevice, g->st));
    if (c->n_sub)
        CHECK(cudaMemcpyAsync(g->d_sub, c->sub, 2 * (size_t)c->n_sub * 4, cudaMemcpyHostToDevice, g->st));
    grouped_t G;
    memset(&G, 0, sizeof G);
    G.cand = g->d_cand + nd;
    G.n_cand = ngr;
    G.perm = g->d_perm;
    G.grp = g->d_grp;
    G.sub = g->d_sub;
    G.n_grp = c->n_grp;
    G.n_sub = c->n_sub;
    G.ni = c->ni;
    G.bins = max_nk;
    G.e3 = g->d_e + nd;
    G.e2 = g->d_e + g->nf + nd;
    uint32_t grid = (ngr + GW - 1) / GW;
    size_t smem = (size_t)GW * max_nk * 4;
    if (max_nk > GROUP_BINS) {
        /* wide features: each warp's histogram in global memory */
        uint32_t slots = (uint32_t)g->n_sm * 16;
        if (grid > slots) grid = slots;
        if ((ret = ensure(&g->d_scratch, &g->cap_scratch, (size_t)grid * GW * max_nk))) return ret;
        G.scratch = g->d_scratch;
        smem = 0;
    }
    k_grouped<<<grid, GW * 32, smem, g->st>>>(g->T, G);
    CHECK(cudaGetLastError());
    return ES_OK;
}

extern "C" int es_gpu_mi_round(es_gpu_mi_t *g, const es_gpu_mi_cond_t *c, const uint8_t *want, double *e3,
                               double *e2)
{
    CHECK(cudaSetDevice(g->dev));
    /* the dense candidates first, then the grouped ones */
    const uint64_t nz = (uint64_t)c->ng * c->ni;
    uint32_t nd = 0, ngr = 0, max_nk = 1;
    uint64_t max_cells = 1;
    for (uint32_t f = 0; f < g->nf; f++) {
        if (want[f] == ES_GPU_MI_ROWS || want[f] == ES_GPU_MI_TOUCH) {
            uint64_t cells = (uint64_t)g->h_nst[f] * nz;
            if (cells > max_cells) max_cells = cells;
            g->h_mode[nd] = want[f];
            g->h_cand[nd++] = f;
        }
    }
    for (uint32_t f = 0; f < g->nf; f++) {
        if (want[f] == ES_GPU_MI_GROUPS) {
            if (g->h_nst[f] > max_nk) max_nk = g->h_nst[f];
            g->h_cand[nd + ngr++] = f;
        } else if (want[f] > ES_GPU_MI_GROUPS) {
            fprintf(stderr, "[E::es_gpu_mi_round] feature %u: unknown order %u\n", f, want[f]);
            return ES_ERR_ARG;
        }
    }
    if (!nd && !ngr) return ES_OK;
    if ((nd && (nz == 0 || nz > 0xffffffffu || max_cells > 0xffffffffu)) || (ngr && !c->perm)) {
        fprintf(stderr, "[E::es_gpu_mi_round] %s\n",
                ngr && !c->perm ? "grouped candidates without the grouped form"
                                : "a dense table of more than 2^32 cells");
        return ES_ERR_ARG;
    }
    if (nd && ngr && max_cells > SMEM_CELLS && max_nk > GROUP_BINS) {
        /* both kernels would want the scratch: not a case the CPU's sizes make */
        fprintf(stderr, "[E::es_gpu_mi_round] dense tables of %llu cells and histograms of %u states at once\n",
                (unsigned long long)max_cells, max_nk);
        return ES_ERR_ARG;
    }
    CHECK(cudaMemcpyAsync(g->d_cand, g->h_cand, (size_t)(nd + ngr) * 4, cudaMemcpyHostToDevice, g->st));
    if (nd) CHECK(cudaMemcpyAsync(g->d_mode, g->h_mode, nd, cudaMemcpyHostToDevice, g->st));
    CHECK(cudaEventRecord(g->t0, g->st));
    int ret;
    if (nd && (ret = launch_dense(g, c, nd, max_cells))) return ret;
    if (ngr && (ret = launch_grouped(g, c, nd, ngr, max_nk))) return ret;
    CHECK(cudaEventRecord(g->t1, g->st));
    const uint32_t nc = nd + ngr;
    CHECK(cudaMemcpyAsync(g->h_e, g->d_e, (size_t)nc * 8, cudaMemcpyDeviceToHost, g->st));
    CHECK(cudaMemcpyAsync(g->h_e + g->nf, g->d_e + g->nf, (size_t)nc * 8, cudaMemcpyDeviceToHost, g->st));
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
