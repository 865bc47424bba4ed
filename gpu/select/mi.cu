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
 * 16 bits.  It travels packed in as few bits a value as its states need (4
 * for 10 states: a quarter of the 16-bit table), in chunks that the caller
 * packs into pinned staging buffers while the previous chunks cross the link
 * and are unpacked here; the staging buffers, the stream and the events stay
 * with the device between selections (a pinned allocation costs about as
 * much as the upload it serves).  Two kernel shapes, 32-bit counters throughout
 * (a cell counts samples, and 16-bit counters would overflow at 65,535):
 *  - dense, one CTA per candidate: the table x * nz + z (z = g * ni + i per
 *    sample, from the newest pick and the class as the samples are read, or
 *    sent by the host, who may leave samples out: CondMI's joint states of
 *    one sample, whose cells hold one sample and add n log n = 0) in shared
 *    memory when it fits, replicated per warp when it is small (spreading the
 *    atomics of few-state features), else in a slice of global memory per
 *    CTA;
 *  - grouped, one warp per candidate, for conditioning variables whose
 *    tables the CPU does not hold densely (the joint state of CondMI, a
 *    feature of many states): the host sorts the samples by (g, i) once per
 *    round; the warp counts the candidate run by run (groups of g, then runs
 *    of (g, i)) in a histogram of the candidate's states and adds each run's
 *    sum as the CPU does. */
#include <atomic>
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
constexpr uint32_t SMEM_CELLS = 49152;   /* dense tables up to 192 KiB in shared memory (where the device has it) */
constexpr uint32_t REPL_CELLS = 4096;    /* small tables: copies of up to 16 KiB each */
constexpr uint32_t REPL_SMEM = 12288;    /* ... within 48 KiB */
constexpr uint32_t GROUP_BINS = 2048;    /* grouped histograms up to 8 KiB a warp in shared memory */
constexpr uint32_t NONE = 0xffffffffu;
constexpr unsigned FULL = 0xffffffffu;
constexpr int STAGE_SLOTS = 3;             /* staging buffers in flight */
constexpr size_t STAGE_BYTES = 2u << 20;   /* bytes of each (a multiple of 16) */
constexpr int MAX_DEV = 64;
constexpr size_t KEEP_BYTES = 256u << 20; /* a table (and scratch) kept on the device between selections */

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

/* Bytes of count values packed at bits (1, 2 or 4) a value, the first in the
 * low bits of p[0]: one packed byte a thread. */
__global__ void k_unpack(const uint8_t *p, unsigned bits, size_t count, uint8_t *x8)
{
    const unsigned per = 8 / bits, mask = (1u << bits) - 1;
    const size_t nbytes = (count + per - 1) / per;
    for (size_t b = blockIdx.x * (size_t)blockDim.x + threadIdx.x; b < nbytes; b += (size_t)gridDim.x * blockDim.x) {
        const unsigned v = p[b];
        for (unsigned j = 0; j < per && b * per + j < count; j++) x8[b * per + j] = (uint8_t)(v >> (j * bits) & mask);
    }
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

/* A round's conditioning z = g * ni + i per sample: from the host (z; NONE:
 * the sample is left out), or as the samples are read (g the state of
 * feature gf, NONE: 0; i the class when with_y, else 0). */
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
        const uint32_t s = s0 + lane, z = s < T.n ? z_of(T, D.C, gx, s) : NONE;
        a3 = touch32(a3, z != NONE, z != NONE ? (uint32_t)x[s] * D.nz + z : 0u, h, T.nl);
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
        for (uint32_t s = tid; s < T.n; s += DT) {
            const uint32_t z = z_of(T, D.C, gx, s);
            if (z != NONE) atomicAdd(&hw[(uint32_t)x[s] * nz + z], 1u);
        }
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

/* The device buffers of a selection, by role. */
enum { B_X, B_NST, B_Y, B_NL, B_CAND, B_E, B_Z, B_PERM, B_GRP, B_SUB, B_SCRATCH, B_COUNT };

/* What a device keeps between selections: the stream, its events, the
 * staging buffers (pinned on the host, and on the device for packed chunks),
 * the pinned buffers of a round's candidates and sums, and the device
 * buffers (the table's and the scratch only up to KEEP_BYTES): allocating
 * and freeing them would cost a FEAST-sized selection on the MIM method a
 * tenth of its time.  One is parked per device; a selection takes it (or,
 * when another selection holds it, makes its own) and parks it again when
 * it closes. */
struct stage_t {
    int dev;
    cudaStream_t st;
    cudaEvent_t ev[STAGE_SLOTS]; /* slot k's buffers are free once ev[k] has passed */
    cudaEvent_t t0, t1;          /* around a round's kernels */
    uint8_t *host;               /* STAGE_SLOTS x STAGE_BYTES, pinned */
    uint8_t *dbuf;               /* STAGE_SLOTS x STAGE_BYTES on the device */
    int next;                    /* the slot to use next */
    uint32_t *h_cand;            /* pinned, cap entries: candidates (dense ones first), | order << 30 */
    double2 *h_e;                /* pinned, cap entries */
    size_t cap;
    uint32_t smem_cells;         /* dense tables in shared memory up to this many cells */
    void *buf[B_COUNT];          /* device buffers */
    size_t bytes[B_COUNT];       /* their sizes */
};

std::atomic<stage_t *> parked[MAX_DEV];

void stage_destroy(stage_t *s)
{
    if (!s) return;
    cudaSetDevice(s->dev);
    if (s->st) cudaStreamSynchronize(s->st);
    for (int k = 0; k < STAGE_SLOTS; k++)
        if (s->ev[k]) cudaEventDestroy(s->ev[k]);
    if (s->t0) cudaEventDestroy(s->t0);
    if (s->t1) cudaEventDestroy(s->t1);
    if (s->st) cudaStreamDestroy(s->st);
    cudaFreeHost(s->host);
    cudaFree(s->dbuf);
    cudaFreeHost(s->h_cand);
    cudaFreeHost(s->h_e);
    for (int b = 0; b < B_COUNT; b++) cudaFree(s->buf[b]);
    free(s);
}

/* Buffer b of s with room for count Ts (its contents lost when it grows).
 * @return ES_OK, ES_ERR_NOMEM, ES_ERR_GPU. */
template <typename T>
int room(stage_t *s, int b, size_t count, T **out)
{
    const size_t bytes = (count ? count : 1) * sizeof(T);
    if (s->bytes[b] < bytes) {
        cudaFree(s->buf[b]);
        s->buf[b] = nullptr;
        s->bytes[b] = 0;
        cudaError_t e = cudaMalloc(&s->buf[b], bytes);
        if (e != cudaSuccess) {
            fprintf(stderr, "[E::es_gpu_mi] %zu bytes on device %d: %s\n", bytes, s->dev, cudaGetErrorString(e));
            return e == cudaErrorMemoryAllocation ? ES_ERR_NOMEM : ES_ERR_GPU;
        }
        s->bytes[b] = bytes;
    }
    *out = (T *)s->buf[b];
    return ES_OK;
}

int stage_init(stage_t *s)
{
    CHECK(cudaSetDevice(s->dev));
    CHECK(cudaStreamCreateWithFlags(&s->st, cudaStreamNonBlocking));
    for (int k = 0; k < STAGE_SLOTS; k++) CHECK(cudaEventCreateWithFlags(&s->ev[k], cudaEventDisableTiming));
    CHECK(cudaEventCreate(&s->t0));
    CHECK(cudaEventCreate(&s->t1));
    CHECK(cudaMallocHost(&s->host, STAGE_SLOTS * STAGE_BYTES));
    CHECK(cudaMalloc(&s->dbuf, STAGE_SLOTS * STAGE_BYTES));
    /* the dense kernel's tables: as much shared memory as the device lends
     * a block, up to SMEM_CELLS */
    int optin = 0;
    CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, s->dev));
    uint32_t cells = (uint32_t)optin / 4;
    s->smem_cells = cells < SMEM_CELLS ? cells : SMEM_CELLS;
    CHECK(cudaFuncSetAttribute(k_dense<uint8_t>, cudaFuncAttributeMaxDynamicSharedMemorySize, s->smem_cells * 4));
    CHECK(cudaFuncSetAttribute(k_dense<uint16_t>, cudaFuncAttributeMaxDynamicSharedMemorySize, s->smem_cells * 4));
    return ES_OK;
}

/* The device's parked staging, or a new one.  @return ES_OK, ES_ERR_GPU. */
int stage_take(int dev, stage_t **out)
{
    *out = dev < MAX_DEV ? parked[dev].exchange(nullptr) : nullptr;
    if (*out) return ES_OK;
    stage_t *s = (stage_t *)calloc(1, sizeof *s);
    if (!s) return ES_ERR_NOMEM;
    s->dev = dev;
    int ret = stage_init(s);
    if (ret) {
        stage_destroy(s);
        return ret;
    }
    *out = s;
    return ES_OK;
}

/* Park s for the next selection on its device (or free it when one is
 * parked already). */
void stage_give(stage_t *s)
{
    stage_t *none = nullptr;
    if (!s || s->dev >= MAX_DEV || !parked[s->dev].compare_exchange_strong(none, s)) stage_destroy(s);
}

/* The round buffers for nf candidates. */
int stage_room(stage_t *s, size_t nf)
{
    if (s->cap >= nf) return ES_OK;
    cudaFreeHost(s->h_cand);
    cudaFreeHost(s->h_e);
    s->h_cand = NULL;
    s->h_e = NULL;
    s->cap = 0;
    CHECK(cudaMallocHost(&s->h_cand, nf * sizeof *s->h_cand));
    CHECK(cudaMallocHost(&s->h_e, nf * sizeof *s->h_e));
    s->cap = nf;
    return ES_OK;
}

/* The next staging slot, once the work that last used it is done. */
int stage_slot(stage_t *s, int *slot)
{
    *slot = s->next;
    s->next = (s->next + 1) % STAGE_SLOTS;
    CHECK(cudaEventSynchronize(s->ev[*slot]));
    return ES_OK;
}

/* Copy bytes from pageable host memory to dst on the device through the
 * staging buffers (asynchronous on s->st: the host may reuse src at once). */
int stage_put(stage_t *s, void *dst, const void *src, size_t bytes)
{
    for (size_t o = 0; o < bytes; o += STAGE_BYTES) {
        const size_t b = bytes - o < STAGE_BYTES ? bytes - o : STAGE_BYTES;
        int slot, ret;
        if ((ret = stage_slot(s, &slot))) return ret;
        uint8_t *h = s->host + (size_t)slot * STAGE_BYTES;
        memcpy(h, (const uint8_t *)src + o, b);
        CHECK(cudaMemcpyAsync((uint8_t *)dst + o, h, b, cudaMemcpyHostToDevice, s->st));
        CHECK(cudaEventRecord(s->ev[slot], s->st));
    }
    return ES_OK;
}

} // namespace

struct es_gpu_mi {
    int dev, n_sm;
    uint32_t n, nf, nc;
    /* the stage's device buffers */
    uint8_t *d_x8;
    uint16_t *d_x16, *d_y;
    uint32_t *d_nst, *d_z, *d_cand, *d_perm, *d_grp, *d_sub, *d_scratch;
    uint32_t *h_nst;
    double *d_nl;
    double2 *d_e;
    stage_t *sg;         /* the stream, staging and round buffers */
    double seconds;      /* in the round kernels */
    double seconds_call; /* in es_gpu_mi_round */
    uint32_t rounds;
    tab_t T;
};

extern "C" void es_gpu_mi_close(es_gpu_mi_t *g)
{
    if (!g) return;
    const double t = es_now();
    cudaSetDevice(g->dev);
    stage_t *s = g->sg;
    if (s && cudaStreamSynchronize(s->st) == cudaSuccess && s->bytes[B_X] + s->bytes[B_SCRATCH] > KEEP_BYTES) {
        for (int b : {B_X, B_SCRATCH}) {
            cudaFree(s->buf[b]);
            s->buf[b] = nullptr;
            s->bytes[b] = 0;
        }
    }
    free(g->h_nst);
    stage_give(s);
    if (trace_on())
        fprintf(stderr, "[mi-trace] %u rounds: %.4f s in es_gpu_mi_round, %.4f s of it in kernels; closed in %.4f s\n",
                g->rounds, g->seconds_call, g->seconds, es_now() - t);
    free(g);
}

extern "C" int es_gpu_mi_prepare(int dev)
{
    CHECK(cudaSetDevice(dev));
    CHECK(cudaFree(0));
    /* load the kernels now rather than at their first launch */
    cudaFuncAttributes a;
    CHECK(cudaFuncGetAttributes(&a, k_unpack));
    CHECK(cudaFuncGetAttributes(&a, k_dense<uint8_t>));
    CHECK(cudaFuncGetAttributes(&a, k_dense<uint16_t>));
    CHECK(cudaFuncGetAttributes(&a, k_grouped<uint8_t>));
    CHECK(cudaFuncGetAttributes(&a, k_grouped<uint16_t>));
    /* and the staging, parked for the first selection */
    stage_t *s;
    int ret = stage_take(dev, &s);
    if (ret) return ret;
    stage_give(s);
    return ES_OK;
}

/* The table, chunk by chunk: pack() fills a pinned slot while the slots
 * before it travel; packed chunks are unpacked into the byte table. */
static int upload_table(es_gpu_mi_t *g, unsigned bits, es_gpu_mi_pack_fn pack, void *arg, double *t_pack)
{
    stage_t *s = g->sg;
    const uint64_t total = (uint64_t)g->n * g->nf, chunk = STAGE_BYTES * 8 / bits;
    int ret = ES_OK;
    for (uint64_t e0 = 0; e0 < total && !ret; e0 += chunk) {
        const uint64_t cnt = total - e0 < chunk ? total - e0 : chunk;
        const size_t bytes = (size_t)((cnt * bits + 7) / 8);
        int slot;
        if ((ret = stage_slot(s, &slot))) break;
        uint8_t *h = s->host + (size_t)slot * STAGE_BYTES;
        const double t = es_now();
        ret = pack(arg, e0, cnt, bits, h);
        *t_pack += es_now() - t;
        if (ret) break;
        if (bits == 16) {
            CHECK(cudaMemcpyAsync(g->d_x16 + e0, h, bytes, cudaMemcpyHostToDevice, s->st));
        } else if (bits == 8) {
            CHECK(cudaMemcpyAsync(g->d_x8 + e0, h, bytes, cudaMemcpyHostToDevice, s->st));
        } else {
            uint8_t *d = s->dbuf + (size_t)slot * STAGE_BYTES;
            CHECK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, s->st));
            const unsigned grid = (unsigned)((bytes + 255) / 256 < (size_t)g->n_sm * 8 ? (bytes + 255) / 256 : g->n_sm * 8);
            k_unpack<<<grid, 256, 0, s->st>>>(d, bits, cnt, g->d_x8 + e0);
            CHECK(cudaGetLastError());
        }
        CHECK(cudaEventRecord(s->ev[slot], s->st));
    }
    return ret;
}

/* Allocate and fill the device side of g; the table goes up once. */
static int mi_open(es_gpu_mi_t *g, unsigned bits, es_gpu_mi_pack_fn pack, void *arg, const uint32_t *n_states,
                   const uint16_t *y, const double *nl)
{
    const size_t n = g->n, nf = g->nf;
    const bool trace = trace_on();
    const double t_start = es_now();
    CHECK(cudaSetDevice(g->dev));
    CHECK(cudaDeviceGetAttribute(&g->n_sm, cudaDevAttrMultiProcessorCount, g->dev));
    int ret = stage_take(g->dev, &g->sg);
    if (!ret) ret = stage_room(g->sg, nf);
    if (ret) return ret;
    stage_t *s = g->sg;
    if (!(g->h_nst = (uint32_t *)malloc(nf * 4))) return ES_ERR_NOMEM;
    memcpy(g->h_nst, n_states, nf * 4);
    uint32_t max_nk = 0;
    for (size_t f = 0; f < nf; f++) max_nk = n_states[f] > max_nk ? n_states[f] : max_nk;
    /* bytes on the device whenever every feature has at most 256 states;
     * they come packed in 1, 2, 4 or 8 bits, else 16 bits come as they are */
    if ((bits != 1 && bits != 2 && bits != 4 && bits != 8 && bits != 16) || (bits < 16 && max_nk > 1u << bits) ||
        (bits == 16) != (max_nk > 256)) {
        fprintf(stderr, "[E::es_gpu_mi_open] %u bits a value for at most %u states\n", bits, max_nk);
        return ES_ERR_ARG;
    }
    ret = max_nk <= 256 ? room(s, B_X, nf * n, &g->d_x8) : room(s, B_X, nf * n, &g->d_x16);
    if (!ret) ret = room(s, B_NST, nf, &g->d_nst);
    if (!ret) ret = room(s, B_Y, n, &g->d_y);
    if (!ret) ret = room(s, B_NL, n + 1, &g->d_nl);
    if (!ret) ret = room(s, B_CAND, nf, &g->d_cand);
    if (!ret) ret = room(s, B_E, nf, &g->d_e);
    if (ret) {
        fprintf(stderr, "[E::es_gpu_mi_open] a table of %u samples x %u features: %s\n", g->n, g->nf,
                es_strerror(ret));
        return ret;
    }
    /* every count is at most n: the terms of 0 .. n */
    const double t_alloc = es_now();
    if ((ret = stage_put(s, g->d_nst, n_states, nf * 4)) || (ret = stage_put(s, g->d_y, y, n * 2)) ||
        (ret = stage_put(s, g->d_nl, nl, (n + 1) * 8)))
        return ret;
    const double t0 = es_now();
    double t_pack = 0.0;
    ret = upload_table(g, bits, pack, arg, &t_pack);
    if (trace && !ret) CHECK(cudaStreamSynchronize(s->st)); /* time the upload alone */
    if (trace)
        fprintf(stderr,
                "[mi-trace] open: set-up %.4f s (%.4f s allocating); the table, %.2f MB at %u bits a value, up in %.4f s (%.4f s of it "
                "packing on the host); %s on the device\n",
                t0 - t_start, t_alloc - t_start, (double)nf * n * bits / 8e6, bits, es_now() - t0, t_pack,
                g->d_x8 ? "bytes" : "16 bits");
    if (ret) {
        cudaStreamSynchronize(s->st);
        return ret;
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

extern "C" int es_gpu_mi_open(int dev, uint32_t n_samples, uint32_t n_features, unsigned bits,
                              es_gpu_mi_pack_fn pack, void *pack_arg, const uint32_t *n_states, const uint16_t *y,
                              uint32_t n_classes, const double *nl, uint32_t n_nl, es_gpu_mi_t **out)
{
    *out = NULL;
    if (!n_samples || !n_features || n_features >= (1u << 30) || !pack || !n_states || !y || !nl ||
        n_nl <= n_samples || n_classes < 1 || dev < 0)
        return ES_ERR_ARG;
    es_gpu_mi_t *g = (es_gpu_mi_t *)calloc(1, sizeof *g);
    if (!g) return ES_ERR_NOMEM;
    g->dev = dev;
    g->n = n_samples;
    g->nf = n_features;
    g->nc = n_classes;
    int ret = mi_open(g, bits, pack, pack_arg, n_states, y, nl);
    if (ret) {
        es_gpu_mi_close(g);
        return ret;
    }
    *out = g;
    return ES_OK;
}

extern "C" double es_gpu_mi_seconds(const es_gpu_mi_t *g) { return g->seconds; }

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
        int ret = room(g->sg, B_Z, g->n, &g->d_z);
        if (ret) return ret;
        if ((ret = stage_put(g->sg, g->d_z, c->z, (size_t)g->n * 4))) return ret;
        D.C.z = g->d_z;
    }
    D.ng = c->ng;
    D.ni = c->ni;
    D.nz = c->ng * c->ni;
    /* small tables get copies within 16 KiB (several CTAs an SM); tables of
     * more than the shared memory's cells go to global scratch, one slice
     * per CTA */
    const uint32_t smem_max = g->sg->smem_cells;
    uint64_t sm = max_cells <= REPL_CELLS ? max_cells * (DT / 32) : max_cells;
    if (max_cells <= REPL_CELLS && sm > REPL_SMEM) sm = REPL_SMEM;
    if (sm > smem_max) sm = smem_max;
    D.smem_cells = (uint32_t)sm;
    uint32_t grid = nd;
    if (max_cells > smem_max) {
        uint32_t slots = (uint32_t)g->n_sm * 4;
        if (grid > slots) grid = slots;
        int ret = room(g->sg, B_SCRATCH, (size_t)grid * max_cells, &g->d_scratch);
        if (ret) return ret;
        D.scratch = g->d_scratch;
        D.scratch_cells = max_cells;
    }
    D.e = g->d_e;
    if (g->T.x8) k_dense<uint8_t><<<grid, DT, (size_t)D.smem_cells * 4, g->sg->st>>>(g->T, D);
    else k_dense<uint16_t><<<grid, DT, (size_t)D.smem_cells * 4, g->sg->st>>>(g->T, D);
    CHECK(cudaGetLastError());
    return ES_OK;
}

/* The grouped candidates h_cand[nd..nd + ngr): one warp each. */
static int launch_grouped(es_gpu_mi_t *g, const es_gpu_mi_cond_t *c, uint32_t nd, uint32_t ngr, uint32_t max_nk)
{
    int ret;
    if ((ret = room(g->sg, B_PERM, c->m, &g->d_perm)) || (ret = room(g->sg, B_GRP, (size_t)c->n_grp + 1, &g->d_grp)) ||
        (ret = room(g->sg, B_SUB, 2 * (size_t)c->n_sub, &g->d_sub)))
        return ret;
    if ((ret = stage_put(g->sg, g->d_perm, c->perm, (size_t)c->m * 4)) ||
        (ret = stage_put(g->sg, g->d_grp, c->grp, ((size_t)c->n_grp + 1) * 4)) ||
        (ret = stage_put(g->sg, g->d_sub, c->sub, 2 * (size_t)c->n_sub * 4)))
        return ret;
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
        if ((ret = room(g->sg, B_SCRATCH, (size_t)grid * GW * max_nk, &g->d_scratch))) return ret;
        G.scratch = g->d_scratch;
        smem = 0;
    }
    if (g->T.x8) k_grouped<uint8_t><<<grid, GW * 32, smem, g->sg->st>>>(g->T, G);
    else k_grouped<uint16_t><<<grid, GW * 32, smem, g->sg->st>>>(g->T, G);
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
            g->sg->h_cand[nd++] = f | (uint32_t)want[f] << 30;
        } else if (want[f] > ES_GPU_MI_GROUPS) {
            fprintf(stderr, "[E::es_gpu_mi_round] feature %u: unknown order %u\n", f, want[f]);
            return ES_ERR_ARG;
        }
    }
    for (uint32_t f = 0; f < g->nf; f++) {
        if (want[f] == ES_GPU_MI_GROUPS) {
            if (g->h_nst[f] > max_nk) max_nk = g->h_nst[f];
            g->sg->h_cand[nd + ngr++] = f;
        }
    }
    if (!nd && !ngr) return ES_OK;
    if ((nd && (nz == 0 || max_cells > 0xffffffffu)) || (ngr && !c->perm)) {
        fprintf(stderr, "[E::es_gpu_mi_round] %s\n",
                ngr && !c->perm ? "grouped candidates without the grouped form"
                                : "a dense table of no cells or of more than 2^32");
        return ES_ERR_ARG;
    }
    if (nd && ngr && max_cells > g->sg->smem_cells && max_nk > GROUP_BINS) {
        /* both kernels would want the scratch: not a case the CPU's sizes make */
        fprintf(stderr, "[E::es_gpu_mi_round] dense tables of %llu cells and histograms of %u states at once\n",
                (unsigned long long)max_cells, max_nk);
        return ES_ERR_ARG;
    }
    const uint32_t nc = nd + ngr;
    CHECK(cudaMemcpyAsync(g->d_cand, g->sg->h_cand, (size_t)nc * 4, cudaMemcpyHostToDevice, g->sg->st));
    CHECK(cudaEventRecord(g->sg->t0, g->sg->st));
    int ret;
    if (nd && (ret = launch_dense(g, c, nd, max_cells))) return ret;
    if (ngr && (ret = launch_grouped(g, c, nd, ngr, max_nk))) return ret;
    CHECK(cudaEventRecord(g->sg->t1, g->sg->st));
    CHECK(cudaMemcpyAsync(g->sg->h_e, g->d_e, (size_t)nc * sizeof *g->sg->h_e, cudaMemcpyDeviceToHost, g->sg->st));
    CHECK(cudaStreamSynchronize(g->sg->st));
    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, g->sg->t0, g->sg->t1));
    g->seconds += ms * 1e-3;
    if (trace_on())
        fprintf(stderr,
                "[mi-trace] round %u: %u dense (%llu cells at most), %u grouped (m %u, %u groups, %u runs); "
                "kernels %.4f s, call %.4f s\n",
                g->rounds, nd, (unsigned long long)max_cells, ngr, c->m, c->n_grp, c->n_sub, ms * 1e-3,
                es_now() - t_call);
    for (uint32_t k = 0; k < nc; k++) {
        uint32_t f = g->sg->h_cand[k] & 0x3fffffffu;
        e3[f] = g->sg->h_e[k].x;
        e2[f] = g->sg->h_e[k].y;
    }
    g->rounds++;
    g->seconds_call += es_now() - t_call;
    return ES_OK;
}
