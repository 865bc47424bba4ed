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
 * The table is uploaded once and kept a byte a value when every feature has
 * at most 256 states (the rounds read every value: half the traffic), else
 * 16 bits.  Two kernel shapes, 32-bit counters throughout
 * (a cell counts samples, and 16-bit counters would overflow at 65,535):
 *  - dense, one CTA per candidate: the table x * nz + z (z = g * ni + i per
 *    sample, from the newest pick and the class as the samples are read, or
 *    sent by the host) in shared memory when it fits, replicated per warp
 *    when it is small (spreading the atomics of few-state features), else in
 *    a slice of global memory per CTA;
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

#include <ctime>

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "gpu.h"

namespace {

constexpr int DT = 256;                  /* dense kernel threads */
constexpr int GW = 4;                    /* grouped kernel: warps (candidates) per CTA */
constexpr uint32_t SMEM_CELLS = 12288;   /* dense tables up to 48 KiB in shared memory */
constexpr uint32_t REPL_CELLS = 4096;    /* small tables: copies within 16 KiB */
constexpr uint32_t GROUP_BINS = 2048;    /* grouped histograms up to 8 KiB a warp in shared memory */
constexpr uint32_t NONE = 0xffffffffu;
constexpr unsigned FULL = 0xffffffffu;

struct tab_t {
    const uint8_t *x8;   /* n_features x n, feature-major: bytes, or NULL */
    const uint16_t *x16; /* ... or 16 bits */
    const uint32_t *nst; /* states per feature */
    const uint16_t *y;
    uint32_t n;
    const double *nl;    /* n log2 n for every count 0 .. n */
};

template <typename X> __device__ __forceinline__ const X *col(const tab_t &T, uint32_t f);
template <> __device__ __forceinline__ const uint8_t *col<uint8_t>(const tab_t &T, uint32_t f)
{
    return T.x8 + (size_t)f * T.n;
}
template <> __device__ __forceinline__ const uint16_t *col<uint16_t>(const tab_t &T, uint32_t f)
{
    return T.x16 + (size_t)f * T.n;
}

/* The byte copy of a 16-bit table whose values are all below 256. */
__global__ void k_bytes(const uint16_t *x, uint8_t *x8, size_t count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        x8[i] = (uint8_t)x[i];
}

/* acc + v of lane 0 + v of lane 1 + ... + v of lane 31, in that order; every
 * lane returns the sum.  Adding 0 changes no sum (every term is >= 0): a
 * mostly-zero group (sparse tables) adds only its non-zero terms, one after
 * the other; any other adds all 32, whose exchanges need not wait for the
 * additions. */
__device__ __forceinline__ double chain32(double acc, double v)
{
    unsigned m = __ballot_sync(FULL, v != 0.0);
    if (__popc(m) > 8) {
#pragma unroll
        for (int k = 0; k < 32; k++) acc += __shfl_sync(FULL, v, k);
    } else {
        for (; m; m &= m - 1) acc += __shfl_sync(FULL, v, __ffs(m) - 1);
    }
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

/* A round's conditioning z = g * ni + i per sample: from the host (z), or
 * as the samples are read (g the state of feature gf, NONE: 0; i the class
 * when with_y, else 0). */
struct cond_t {
    const uint32_t *z;
    uint32_t gf, ni;
    int with_y;
};

template <typename X>
__device__ __forceinline__ uint32_t z_of(const tab_t &T, const cond_t &C, const X *gx, uint32_t s)
{
    if (C.z) return C.z[s];
    return (gx ? (uint32_t)gx[s] : 0u) * C.ni + (C.with_y ? (uint32_t)T.y[s] : 0u);
}

struct dense_t {
    const uint32_t *cand; /* feature | order << 30 (ES_GPU_MI_ROWS or _TOUCH) */
    uint32_t n_cand;
    cond_t C;
    uint32_t ng, ni, nz;
    uint32_t smem_cells;  /* dynamic shared memory, in cells */
    uint32_t *scratch;    /* gridDim.x slices of scratch_cells */
    size_t scratch_cells;
    double2 *e;           /* per candidate: (E(X, g, i), E(X, g)) */
};

/* The CPU's dense sums (mi_count.c, pair_count) of the table h of nk * nz
 * cells, on one warp: E(x, g) over the rows (x, g) of ni cells, then E(x, g,
 * i) over the cells in order (rows) or in the order the samples first touch
 * them (touch, which clears h as it goes). */
template <typename X>
__device__ double2 dense_sums(const tab_t &T, const dense_t &D, const X *x, const X *gx, uint32_t *h, uint32_t nk,
                              int touch)
{
    const uint32_t lane = threadIdx.x % 32, rows = nk * D.ng, ni = D.ni;
    double a2 = 0.0;
    for (uint32_t r0 = 0; r0 < rows; r0 += 32) {
        uint32_t r = r0 + lane, tot = 0;
        if (r < rows)
            for (uint32_t i = 0; i < ni; i++) tot += h[r * ni + i];
        a2 = chain32(a2, r < rows ? T.nl[tot] : 0.0);
    }
    if (ni == 1) return make_double2(a2, a2); /* the rows are the cells */
    if (!touch) return make_double2(cells32(0.0, h, nk * D.nz, T.nl, false), a2);
    /* the CPU lists the cells as samples first touch them and adds their
     * counts in that order: here a cell's count is taken (and cleared) by
     * the first sample that reaches it */
    double a3 = 0.0;
    for (uint32_t s0 = 0; s0 < T.n; s0 += 32) {
        uint32_t s = s0 + lane;
        a3 = touch32(a3, s < T.n, s < T.n ? (uint32_t)x[s] * D.nz + z_of(T, D.C, gx, s) : 0u, h, T.nl);
    }
    return make_double2(a3, a2);
}

template <typename X>
__global__ void __launch_bounds__(DT) k_dense(tab_t T, dense_t D)
{
    extern __shared__ uint32_t sh[];
    const int tid = threadIdx.x, warp = tid / 32;
    const X *gx = D.C.gf != NONE ? col<X>(T, D.C.gf) : nullptr;
    for (uint32_t k = blockIdx.x; k < D.n_cand; k += gridDim.x) {
        const uint32_t f = D.cand[k] & 0x3fffffffu, nk = T.nst[f], nz = D.nz, cells = nk * nz;
        const X *x = col<X>(T, f);
        uint32_t *h = sh, R = 1;
        if (cells <= D.smem_cells) {
            if (cells <= REPL_CELLS) R = min((uint32_t)(DT / 32), D.smem_cells / cells);
        } else {
            h = D.scratch + (size_t)blockIdx.x * D.scratch_cells;
        }
        for (uint32_t i = tid; i < R * cells; i += DT) h[i] = 0u;
        __syncthreads();
        uint32_t *hw = h + (warp % R) * cells;
        for (uint32_t s = tid; s < T.n; s += DT) atomicAdd(&hw[(uint32_t)x[s] * nz + z_of(T, D.C, gx, s)], 1u);
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
            double2 e = dense_sums(T, D, x, gx, h, nk, (D.cand[k] >> 30) == ES_GPU_MI_TOUCH);
            if (tid == 0) D.e[k] = e;
        }
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
    double2 *e;
};

/* The CPU's sum of n log2 n over the candidate's value counts in the run
 * perm[a..b) (mi_count.c, run_nl_sum), on one warp with the histogram h of
 * nk bins (all zero, and left so). */
template <typename X>
__device__ double run_sum(const tab_t &T, const X *x, const uint32_t *perm, uint32_t a, uint32_t b, uint32_t nk,
                          uint32_t *h)
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

template <typename X>
__global__ void __launch_bounds__(GW * 32) k_grouped(tab_t T, grouped_t G)
{
    extern __shared__ uint32_t gsh[];
    const uint32_t w = threadIdx.x / 32, lane = threadIdx.x % 32;
    const uint32_t slot = blockIdx.x * GW + w;
    uint32_t *h = G.scratch ? G.scratch + (size_t)slot * G.bins : gsh + (size_t)w * G.bins;
    for (uint32_t i = lane; i < G.bins; i += 32) h[i] = 0u;
    __syncwarp();
    for (uint32_t k = slot; k < G.n_cand; k += gridDim.x * GW) {
        const uint32_t f = G.cand[k] & 0x3fffffffu, nk = T.nst[f];
        const X *x = col<X>(T, f);
        double e2 = 0.0, e3 = 0.0;
        for (uint32_t gi = 0; gi < G.n_grp; gi++) e2 += run_sum(T, x, G.perm, G.grp[gi], G.grp[gi + 1], nk, h);
        if (G.ni > 1)
            for (uint32_t si = 0; si < G.n_sub; si++)
                e3 += run_sum(T, x, G.perm, G.sub[2 * si], G.sub[2 * si + 1], nk, h);
        else
            e3 = e2;
        if (lane == 0) G.e[k] = make_double2(e3, e2);
    }
}

/* EPISTREAM_MI_TRACE=1: where the time of a selection on the device goes,
 * on stderr (doc/SELECTION.md). */
bool trace_on()
{
    const char *t = getenv("EPISTREAM_MI_TRACE");
    return t && *t && strcmp(t, "0") != 0;
}

double es_now()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

} // namespace

struct es_gpu_mi {
    int dev, n_sm;
    uint32_t n, nf, nc;
    uint8_t *d_x8;
    uint16_t *d_x16, *d_y;
    uint32_t *d_nst, *d_z, *d_cand, *d_perm, *d_grp, *d_sub, *d_scratch;
    size_t cap_z, cap_perm, cap_grp, cap_sub, cap_scratch; /* elements */
    uint32_t *h_cand, *h_nst; /* pinned: candidates (dense ones first), | order << 30 */
    double *d_nl;
    double2 *d_e, *h_e;       /* pinned */
    cudaStream_t st;
    cudaEvent_t t0, t1;
    double seconds;      /* in the round kernels */
    double seconds_call; /* in es_gpu_mi_round */
    uint32_t rounds;
    tab_t T;
};

extern "C" void es_gpu_mi_close(es_gpu_mi_t *g)
{
    if (!g) return;
    if (trace_on())
        fprintf(stderr, "[mi-trace] %u rounds: %.4f s in es_gpu_mi_round, %.4f s of it in kernels\n", g->rounds,
                g->seconds_call, g->seconds);
    cudaSetDevice(g->dev);
    cudaFree(g->d_x8);
    cudaFree(g->d_x16);
    cudaFree(g->d_y);
    cudaFree(g->d_nst);
    cudaFree(g->d_z);
    cudaFree(g->d_cand);
    cudaFree(g->d_perm);
    cudaFree(g->d_grp);
    cudaFree(g->d_sub);
    cudaFree(g->d_scratch);
    cudaFree(g->d_nl);
    cudaFree(g->d_e);
    cudaFreeHost(g->h_cand);
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
    CHECK(cudaFuncGetAttributes(&a, k_bytes));
    CHECK(cudaFuncGetAttributes(&a, k_dense<uint8_t>));
    CHECK(cudaFuncGetAttributes(&a, k_dense<uint16_t>));
    CHECK(cudaFuncGetAttributes(&a, k_grouped<uint8_t>));
    CHECK(cudaFuncGetAttributes(&a, k_grouped<uint16_t>));
    return ES_OK;
}

/* Allocate and fill the device side of g; the table goes up once. */
static int mi_open(es_gpu_mi_t *g, const uint16_t *x, const uint32_t *n_states, const uint16_t *y, const double *nl,
                   uint32_t n_nl)
{
    const size_t n = g->n, nf = g->nf;
    const bool trace = trace_on();
    const double t_start = trace ? es_now() : 0.0;
    CHECK(cudaSetDevice(g->dev));
    CHECK(cudaDeviceGetAttribute(&g->n_sm, cudaDevAttrMultiProcessorCount, g->dev));
    CHECK(cudaStreamCreateWithFlags(&g->st, cudaStreamNonBlocking));
    CHECK(cudaEventCreate(&g->t0));
    CHECK(cudaEventCreate(&g->t1));
    if (!(g->h_nst = (uint32_t *)malloc(nf * 4))) return ES_ERR_NOMEM;
    memcpy(g->h_nst, n_states, nf * 4);
    uint32_t max_nk = 0;
    for (size_t f = 0; f < nf; f++) max_nk = n_states[f] > max_nk ? n_states[f] : max_nk;
    double t0 = trace ? es_now() : 0.0;
    /* the 16-bit table goes up as it is; bytes are made on the device.  The
     * copy goes on g->st, the stream of every kernel that reads it: a
     * cudaMemcpy from pageable memory returns before its DMA has landed,
     * and g->st (non-blocking) would not wait for it */
    cudaError_t e = cudaMalloc(&g->d_x16, nf * n * 2);
    if (e == cudaSuccess) e = cudaMemcpyAsync(g->d_x16, x, nf * n * 2, cudaMemcpyHostToDevice, g->st);
    if (e == cudaSuccess && trace) e = cudaStreamSynchronize(g->st); /* time the upload alone */
    double t1 = trace ? es_now() : 0.0;
    if (e == cudaSuccess && max_nk <= 256) {
        e = cudaMalloc(&g->d_x8, nf * n);
        if (e == cudaSuccess) {
            k_bytes<<<g->n_sm * 8, 256, 0, g->st>>>(g->d_x16, g->d_x8, nf * n);
            e = cudaGetLastError();
        }
        if (e == cudaSuccess) e = cudaStreamSynchronize(g->st);
        if (e == cudaSuccess) {
            cudaFree(g->d_x16);
            g->d_x16 = NULL;
        }
    }
    if (e == cudaSuccess) e = cudaMalloc(&g->d_nst, nf * 4);
    if (e == cudaSuccess) e = cudaMemcpyAsync(g->d_nst, n_states, nf * 4, cudaMemcpyHostToDevice, g->st);
    if (e == cudaSuccess) e = cudaMalloc(&g->d_y, n * 2);
    if (e == cudaSuccess) e = cudaMemcpyAsync(g->d_y, y, n * 2, cudaMemcpyHostToDevice, g->st);
    if (e == cudaSuccess) e = cudaMalloc(&g->d_nl, (size_t)n_nl * 8);
    if (e == cudaSuccess) e = cudaMemcpyAsync(g->d_nl, nl, (size_t)n_nl * 8, cudaMemcpyHostToDevice, g->st);
    if (e == cudaSuccess) e = cudaMalloc(&g->d_cand, nf * 4);
    if (e == cudaSuccess) e = cudaMalloc(&g->d_e, nf * sizeof *g->d_e);
    if (e == cudaSuccess) e = cudaMallocHost(&g->h_cand, nf * 4);
    if (e == cudaSuccess) e = cudaMallocHost(&g->h_e, nf * sizeof *g->h_e);
    if (e == cudaSuccess) e = cudaStreamSynchronize(g->st);
    if (trace)
        fprintf(stderr, "[mi-trace] open: set-up %.4f s, %.2f MB up in %.4f s, %s on the device, the rest %.4f s\n",
                t0 - t_start, nf * n * 2 / 1e6, t1 - t0, g->d_x8 ? "bytes" : "16 bits", es_now() - t1);
    if (e != cudaSuccess) {
        fprintf(stderr, "[E::es_gpu_mi_open] %s (a table of %u samples x %u features)\n", cudaGetErrorString(e),
                g->n, g->nf);
        return e == cudaErrorMemoryAllocation ? ES_ERR_NOMEM : ES_ERR_GPU;
    }
    tab_t &T = g->T;
    T.x8 = g->d_x8;
    T.x16 = g->d_x16;
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
    if (!n_samples || !n_features || n_features >= (1u << 30) || !x || !n_states || !y || !nl ||
        n_nl <= n_samples || n_classes < 1)
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
    dense_t D;
    memset(&D, 0, sizeof D);
    D.cand = g->d_cand;
    D.n_cand = nd;
    D.C.gf = c->z ? NONE : c->feature;
    D.C.ni = c->ni;
    D.C.with_y = c->with_y;
    if (c->z) {
        int ret = ensure(&g->d_z, &g->cap_z, g->n);
        if (ret) return ret;
        CHECK(cudaMemcpyAsync(g->d_z, c->z, (size_t)g->n * 4, cudaMemcpyHostToDevice, g->st));
        D.C.z = g->d_z;
    }
    D.ng = c->ng;
    D.ni = c->ni;
    D.nz = c->ng * c->ni;
    /* small tables get copies within 16 KiB (several CTAs an SM); tables of
     * more than SMEM_CELLS go to global scratch, one slice per CTA */
    uint64_t sm = max_cells <= REPL_CELLS ? max_cells * (DT / 32) : max_cells;
    if (max_cells <= REPL_CELLS && sm > REPL_CELLS * 4) sm = REPL_CELLS * 4;
    if (sm > SMEM_CELLS) sm = SMEM_CELLS;
    D.smem_cells = (uint32_t)sm;
    uint32_t grid = nd;
    if (max_cells > SMEM_CELLS) {
        uint32_t slots = (uint32_t)g->n_sm * 4;
        if (grid > slots) grid = slots;
        int ret = ensure(&g->d_scratch, &g->cap_scratch, (size_t)grid * max_cells);
        if (ret) return ret;
        D.scratch = g->d_scratch;
        D.scratch_cells = max_cells;
    }
    D.e = g->d_e;
    if (g->T.x8) k_dense<uint8_t><<<grid, DT, (size_t)D.smem_cells * 4, g->st>>>(g->T, D);
    else k_dense<uint16_t><<<grid, DT, (size_t)D.smem_cells * 4, g->st>>>(g->T, D);
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
    G.e = g->d_e + nd;
    uint32_t grid = (ngr + GW - 1) / GW;
    size_t smem = (size_t)GW * max_nk * 4;
    if (max_nk > GROUP_BINS) {
        /* wide features: each warp's histogram in global memory */
        uint32_t slots = (uint32_t)g->n_sm * 4;
        if (grid > slots) grid = slots;
        if ((ret = ensure(&g->d_scratch, &g->cap_scratch, (size_t)grid * GW * max_nk))) return ret;
        G.scratch = g->d_scratch;
        smem = 0;
    }
    if (g->T.x8) k_grouped<uint8_t><<<grid, GW * 32, smem, g->st>>>(g->T, G);
    else k_grouped<uint16_t><<<grid, GW * 32, smem, g->st>>>(g->T, G);
    CHECK(cudaGetLastError());
    return ES_OK;
}

extern "C" int es_gpu_mi_round(es_gpu_mi_t *g, const es_gpu_mi_cond_t *c, const uint8_t *want, double *e3,
                               double *e2)
{
    const double t_call = es_now();
    CHECK(cudaSetDevice(g->dev));
    /* the dense candidates first, then the grouped ones */
    const uint64_t nz = (uint64_t)c->ng * c->ni;
    uint32_t nd = 0, ngr = 0, max_nk = 1;
    uint64_t max_cells = 1;
    for (uint32_t f = 0; f < g->nf; f++) {
        if (want[f] == ES_GPU_MI_ROWS || want[f] == ES_GPU_MI_TOUCH) {
            uint64_t cells = (uint64_t)g->h_nst[f] * nz;
            if (cells > max_cells) max_cells = cells;
            g->h_cand[nd++] = f | (uint32_t)want[f] << 30;
        } else if (want[f] > ES_GPU_MI_GROUPS) {
            fprintf(stderr, "[E::es_gpu_mi_round] feature %u: unknown order %u\n", f, want[f]);
            return ES_ERR_ARG;
        }
    }
    for (uint32_t f = 0; f < g->nf; f++) {
        if (want[f] == ES_GPU_MI_GROUPS) {
            if (g->h_nst[f] > max_nk) max_nk = g->h_nst[f];
            g->h_cand[nd + ngr++] = f;
        }
    }
    if (!nd && !ngr) return ES_OK;
    if ((nd && (nz == 0 || max_cells > 0xffffffffu)) || (ngr && !c->perm)) {
        fprintf(stderr, "[E::es_gpu_mi_round] %s\n",
                ngr && !c->perm ? "grouped candidates without the grouped form"
                                : "a dense table of no cells or of more than 2^32");
        return ES_ERR_ARG;
    }
    if (nd && ngr && max_cells > SMEM_CELLS && max_nk > GROUP_BINS) {
        /* both kernels would want the scratch: not a case the CPU's sizes make */
        fprintf(stderr, "[E::es_gpu_mi_round] dense tables of %llu cells and histograms of %u states at once\n",
                (unsigned long long)max_cells, max_nk);
        return ES_ERR_ARG;
    }
    const uint32_t nc = nd + ngr;
    CHECK(cudaMemcpyAsync(g->d_cand, g->h_cand, (size_t)nc * 4, cudaMemcpyHostToDevice, g->st));
    CHECK(cudaEventRecord(g->t0, g->st));
    int ret;
    if (nd && (ret = launch_dense(g, c, nd, max_cells))) return ret;
    if (ngr && (ret = launch_grouped(g, c, nd, ngr, max_nk))) return ret;
    CHECK(cudaEventRecord(g->t1, g->st));
    CHECK(cudaMemcpyAsync(g->h_e, g->d_e, (size_t)nc * sizeof *g->h_e, cudaMemcpyDeviceToHost, g->st));
    CHECK(cudaStreamSynchronize(g->st));
    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, g->t0, g->t1));
    g->seconds += ms * 1e-3;
    for (uint32_t k = 0; k < nc; k++) {
        uint32_t f = g->h_cand[k] & 0x3fffffffu;
        e3[f] = g->h_e[k].x;
        e2[f] = g->h_e[k].y;
    }
    g->rounds++;
    g->seconds_call += es_now() - t_call;
    return ES_OK;
}
