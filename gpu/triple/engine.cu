/* engine.cu -- one device's share of a 3-way scan.
 *
 * A tile (exhaustive: blocks a <= b <= c; seeded: seed pairs x block c) runs
 * as one stream of kernels:
 *   1. k3_pairsum: the pair sums the two-plane counting needs (lr: the
 *      tile's pairs; xc: their variants against the third block);
 *   2. the counting kernel (count3_mma.cu or count3_popc.cu): every triple's
 *      table, a float bound of its statistic, its upper score key into
 *      score[] (~0 where it may be significant), and the best lower key of
 *      each variant (vbest, kept for the whole scan) and of each pair
 *      (pbest, this tile);
 *   3. k3_tau: a lower bound of the k-th best score: the k-th best pair
 *      maximum of the tile (exhaustive: each triple has one pair of the
 *      tile), or the 3k-th best variant maximum (each triple is the best of
 *      at most three variants), kept for the scan, and the host's exact one;
 *   4. k3_select: the triples whose upper key reaches that bound or the
 *      best lower key of one of their variants, or that may be significant:
 *      the only ones that can change the top-k, a variant's summary or the
 *      significant list;
 *   5. k3_tables: their exact 2x27 tables (plain popcounts of all 27
 *      cumulative counts), which the host scores with the CPU's own code.
 * Blocks stay on the device when they fit (else a cache of slots that the
 * tiles in flight hold); two tiles are in flight, so the host scores one
 * while the next runs.  Every runtime call goes through CHECK. */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#include "epistream.h"
#include "params3.cuh"
#include "epilogue3.cuh"
#include "gpu_test.h"
#include "cuda_check.h"

namespace {

constexpr uint32_t CAND_CAP = 32768; /* tables computed with the tile; more in chunks at collect */

/* ---- kernels ------------------------------------------------------------------ */

/* Pair sums of two-plane rows: warp w sums rows x, y of X and Y (pairs:
 * x = 2w, y = 2w + 1 of X; else x = w / ny, y = w % ny); out[w * 8 +
 * cls * 4 + (s-1)*2 + t-1] = |P_x^s & P_y^t| over class cls. */
__global__ void k3_pairsum(const uint64_t *X, const uint64_t *Y, uint32_t ny, uint32_t njobs, int pairs,
                           uint32_t words, uint32_t off_ctrl, uint32_t kw1, uint32_t kw0, uint32_t *out)
{
    const uint32_t w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x & 31;
    if (w >= njobs) return;
    uint32_t x = pairs ? 2 * w : w / ny, y = pairs ? 2 * w + 1 : w % ny;
    const uint64_t *a = X + (size_t)x * 2 * words, *b = (pairs ? X : Y) + (size_t)y * 2 * words;
    for (int cls = 1; cls >= 0; cls--) {
        uint32_t w0 = cls ? 0 : off_ctrl, w1 = w0 + (cls ? kw1 : kw0);
        uint32_t c[4] = {0, 0, 0, 0};
        for (uint32_t k = w0 + lane; k < w1; k += 32) {
            uint64_t a1 = a[k], a2 = a[words + k], b1 = b[k], b2 = b[words + k];
            c[0] += __popcll(a1 & b1);
            c[1] += __popcll(a1 & b2);
            c[2] += __popcll(a2 & b1);
            c[3] += __popcll(a2 & b2);
        }
#pragma unroll
        for (int e = 0; e < 4; e++)
#pragma unroll
            for (int o = 16; o; o >>= 1) c[e] += __shfl_xor_sync(0xffffffffu, c[e], o);
        if (lane < 4) out[(size_t)w * 8 + cls * 4 + lane] = c[lane];
    }
}

/* Of 4096 histogram bins counted from the top (bin 4095 first) with
 * `above` more counted before them, the bin where the count reaches rank:
 * *s_bin, with the count above it in *s_above; *s_found = 0 when the bins
 * do not reach rank.  All 1024 threads call it; thread t owns bins 4 (1023 -
 * t) .. + 3, so a block-wide prefix sum over threads counts from the top. */
__device__ void find_rank(const uint32_t *h, uint32_t above, uint32_t rank, uint32_t *s_bin, uint32_t *s_above,
                          uint32_t *s_found, uint32_t *wsum)
{
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5, b0 = 4 * (1023 - t);
    if (t == 0) *s_found = 0;
    uint32_t loc = h[b0] + h[b0 + 1] + h[b0 + 2] + h[b0 + 3], x = loc;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        uint32_t y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o) x += y;
    }
    if (lane == 31) wsum[warp] = x;
    __syncthreads();
    if (warp == 0) {
        uint32_t w = wsum[lane];
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            uint32_t y = __shfl_up_sync(0xffffffffu, w, o);
            if (lane >= o) w += y;
        }
        wsum[lane] = w;
    }
    __syncthreads();
    uint32_t excl = x - loc + (warp ? wsum[warp - 1] : 0u) + above;
    if (excl < rank && excl + loc >= rank) { /* the one thread whose bins reach rank */
        uint32_t cum = excl;
        for (int b = b0 + 3; b >= b0; b--) {
            if (cum + h[b] >= rank) {
                *s_bin = (uint32_t)b;
                *s_above = cum;
                *s_found = 1;
                break;
            }
            cum += h[b];
        }
    }
    __syncthreads();
}

/* A lower bound of the rank-th largest of n keys (0: none): two histogram
 * passes (the top 12 bits, then the next 12 within the bin reached); the
 * scan's bound is the largest seen; tau_out = max(it, the host's).  One CTA
 * of 1024 threads. */
__global__ void __launch_bounds__(1024) k3_tau(const uint32_t *keys, uint32_t n, uint32_t rank, uint32_t host,
                                               uint32_t *tau_scan, uint32_t *tau_out)
{
    __shared__ uint32_t h[4096], wsum[32];
    __shared__ uint32_t s_bin, s_above, s_found;
    uint32_t found = 0;
    if (rank > 0 && rank <= n) {
        for (int b = threadIdx.x; b < 4096; b += blockDim.x) h[b] = 0;
        __syncthreads();
        for (uint32_t v = threadIdx.x; v < n; v += blockDim.x) {
            uint32_t k = keys[v];
            if (k) atomicAdd(&h[k >> 20], 1u);
        }
        __syncthreads();
        find_rank(h, 0, rank, &s_bin, &s_above, &s_found, wsum);
        if (s_found) {
            const uint32_t bin = s_bin, above = s_above;
            for (int b = threadIdx.x; b < 4096; b += blockDim.x) h[b] = 0;
            __syncthreads();
            for (uint32_t v = threadIdx.x; v < n; v += blockDim.x) {
                uint32_t k = keys[v];
                if (k && (k >> 20) == bin) atomicAdd(&h[(k >> 8) & 4095u], 1u);
            }
            __syncthreads();
            find_rank(h, above, rank, &s_bin, &s_above, &s_found, wsum);
            /* the keys of bin `bin` reach rank, so a sub-bin does */
            found = (bin << 20) | (s_bin << 8);
        }
    }
    if (threadIdx.x == 0) {
        uint32_t t = *tau_scan > found ? *tau_scan : found;
        *tau_scan = t;
        *tau_out = t > host ? t : host;
    }
}

__device__ __forceinline__ void pair_of(const gk3_params &P, uint32_t p, uint32_t &gi, uint32_t &gj, size_t &lrow,
                                        size_t &rrow)
{
    if (P.mode == GK3_SEED) {
        lrow = 2 * (size_t)p;
        rrow = lrow + 1;
        gi = P.sidx[lrow];
        gj = P.sidx[rrow];
    } else {
        lrow = p / P.nb;
        rrow = p % P.nb;
        gi = P.first_l + (uint32_t)lrow;
        gj = P.first_r + (uint32_t)rrow;
    }
}

/* tau[1] = the smallest best lower key of the tile's variants (after its
 * counting kernel): a triple below it and below tau[0] goes nowhere, and
 * k3_select rejects it without reading its variants' keys.  One CTA. */
__global__ void __launch_bounds__(1024) k3_vmin(gk3_params P, uint32_t *tau)
{
    __shared__ uint32_t w[32];
    uint32_t m = 0xffffffffu;
    if (P.mode == GK3_SEED) {
        for (uint32_t v = threadIdx.x; v < 2 * P.n_pairs; v += blockDim.x) m = min(m, P.vbest[P.sidx[v]]);
    } else {
        for (uint32_t v = threadIdx.x; v < P.na; v += blockDim.x) m = min(m, P.vbest[P.first_l + v]);
        for (uint32_t v = threadIdx.x; v < P.nb; v += blockDim.x) m = min(m, P.vbest[P.first_r + v]);
    }
    for (uint32_t v = threadIdx.x; v < P.nc; v += blockDim.x) m = min(m, P.vbest[P.first_c + v]);
#pragma unroll
    for (int o = 16; o; o >>= 1) m = min(m, __shfl_xor_sync(0xffffffffu, m, o));
    if ((threadIdx.x & 31) == 0) w[threadIdx.x >> 5] = m;
    __syncthreads();
    if (threadIdx.x < 32) {
        m = w[threadIdx.x];
#pragma unroll
        for (int o = 16; o; o >>= 1) m = min(m, __shfl_xor_sync(0xffffffffu, m, o));
        if (threadIdx.x == 0) tau[1] = m;
    }
}

/* The triples worth a table: upper key >= min(tau, the best lower key of
 * each of its variants). */
__global__ void k3_select(gk3_params P, const uint32_t *tau, int all, uint2 *idx, uint32_t *n_out)
{
    const size_t total = (size_t)P.n_pairs * P.nc;
    const uint32_t t0 = all ? 0u : tau[0], tmin = all ? 0u : min(tau[0], tau[1]);
    for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (size_t)gridDim.x * blockDim.x) {
        uint32_t key = P.score[t];
        if (key < tmin || !key) continue;
        uint32_t p = (uint32_t)(t / P.nc), kk = (uint32_t)(t % P.nc);
        if (key < t0) {
            uint32_t gi, gj;
            size_t lr, rr;
            pair_of(P, p, gi, gj, lr, rr);
            uint32_t v = min(min(P.vbest[gi], P.vbest[gj]), P.vbest[P.first_c + kk]);
            if (key < v) continue;
        }
        uint32_t at = atomicAdd(n_out, 1u);
        idx[at] = make_uint2(p, kk);
    }
}

/* Exact tables of candidates [off, min(*n, off + cap)): a warp each, all 27
 * cumulative counts a class (V: the V plane, or the class's samples). */
template <int NP>
__global__ void k3_tables(gk3_params P, const uint2 *idx, const uint32_t *n, uint32_t off, uint32_t cap,
                          es_gpu_cand3_t *out)
{
    const uint32_t w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x & 31;
    if (w >= cap || off + w >= *n) return;
    uint2 e = idx[off + w];
    uint32_t gi, gj;
    size_t lrow, rrow;
    pair_of(P, e.x, gi, gj, lrow, rrow);
    const size_t vw = (size_t)NP * P.words;
    const uint64_t *L = P.lp + lrow * vw, *R = P.rp + rrow * vw, *K = P.cp + (size_t)e.y * vw;
    uint32_t c[2][27];
    for (int y = 1; y >= 0; y--) {
        const uint32_t w0 = y ? 0 : P.off_ctrl, nw = y ? P.kw1 : P.kw0, ny = y ? P.n_case : P.n_ctrl;
        uint32_t acc[27];
#pragma unroll
        for (int x = 0; x < 27; x++) acc[x] = 0;
        for (uint32_t k = lane; k < nw; k += 32) {
            uint64_t l[3], r[3], q[3];
            if (NP == 3) {
                l[0] = L[2 * (size_t)P.words + w0 + k];
                r[0] = R[2 * (size_t)P.words + w0 + k];
                q[0] = K[2 * (size_t)P.words + w0 + k];
            } else {
                int64_t bits = (int64_t)ny - 64 * (int64_t)k;
                uint64_t m = bits >= 64 ? ~0ull : bits > 0 ? (1ull << bits) - 1 : 0ull;
                l[0] = r[0] = q[0] = m;
            }
#pragma unroll
            for (int s = 1; s < 3; s++) {
                l[s] = L[(size_t)(s - 1) * P.words + w0 + k];
                r[s] = R[(size_t)(s - 1) * P.words + w0 + k];
                q[s] = K[(size_t)(s - 1) * P.words + w0 + k];
            }
#pragma unroll
            for (int s = 0; s < 3; s++)
#pragma unroll
                for (int t = 0; t < 3; t++) {
                    uint64_t x = l[s] & r[t];
#pragma unroll
                    for (int u = 0; u < 3; u++) acc[s * 9 + t * 3 + u] += (uint32_t)__popcll(x & q[u]);
                }
        }
#pragma unroll
        for (int x = 0; x < 27; x++) {
            uint32_t v = acc[x];
#pragma unroll
            for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
            c[y][x] = v;
        }
    }
    if (lane == 0) {
        es_gpu_cand3_t *o = &out[w];
        o->i = gi;
        o->j = gj;
        o->k = P.first_c + e.y;
        gk3_derive27(c[0]);
        gk3_derive27(c[1]);
        memcpy(o->n, c, sizeof o->n);
    }
}

/* P16: a table whose classes are each under 65,536 goes through the
 * packed path of the PACK16 kernels (gk3_bound16, its class sizes the
 * table's sums), the others through gk3_bound */
template <int STAT, bool P16>
__global__ void k3_bounds(const uint32_t *tables, size_t n, const double *lnf, float *out)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    uint32_t c[2][27], s0 = 0, s1 = 0;
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 27; x++) c[y][x] = tables[t * 54 + y * 27 + x];
    for (int x = 0; x < 27; x++) {
        s0 += c[0][x];
        s1 += c[1][x];
    }
    gk3_bounds b;
    if (P16 && s0 < 65536u && s1 < 65536u) {
        uint32_t v[27];
        for (int x = 0; x < 27; x++) v[x] = gk3_pk(c[0][x], c[1][x]);
        b = gk3_bound16<STAT>(v, lnf, s0, s1, true);
    } else {
        b = gk3_bound<STAT>(c, lnf);
    }
    out[t * 4] = b.up;
    out[t * 4 + 1] = b.lo;
    out[t * 4 + 2] = b.gup;
    out[t * 4 + 3] = (float)b.df;
}

/* ---- the engine --------------------------------------------------------------- */

struct slot3_t {
    long block; /* held, -1: none */
    uint64_t *planes;
    uint32_t *gcount;
    unsigned long long lru;
    int refs;   /* tiles in flight reading it */
};

struct flight3_t {
    gk3_params P;
    int slot[3], n_slot;
    uint32_t tag[3];
    uint32_t *d_score, *d_pbest, *d_xc, *d_lr, *d_n, *h_n, *d_tau;
    uint2 *d_idx;
    uint64_t *d_splanes, *h_splanes; /* seeded: the seeds' planes (2 rows a seed) */
    uint32_t *d_sg, *h_sg, *d_sidx, *h_sidx;
    es_gpu_cand3_t *d_cand, *h_cand;
    cudaEvent_t start, done;
};

} // namespace

struct es_gpu3 {
    int dev;
    es_gpu3_config_t cfg;
    int kernel; /* ES_GPU_KERNEL_MMA or _POPC */
    int do_sig;
    float sig_min; /* gk3_params.sig_min: the smallest cfg.sig_crit[df], df >= 1 (set at the opening) */
    uint32_t kw1, kw0;
    cudaStream_t s_comp, s_back;
    slot3_t *slots;
    int n_slots;
    unsigned long long clock;
    uint32_t *d_vbest, *d_tau_scan;
    double *d_lnf;
    flight3_t fl[ES_GPU3_FLIGHTS];
    int head, n_flight;
    double t_kernel;
    es_gpu_cand3_t *h_big;
    size_t big_cap;
    size_t max_pairs, max_rows;
    int emit_all; /* EPISTREAM_GPU3_ALL=1: every triple back to the host (a check of the screen) */
};

static size_t slot_bytes3(const es_gpu3_config_t *c)
{
    return (size_t)c->block * c->n_planes * c->words * 8 + (size_t)c->block * 24;
}

/* Device bytes of one tile in flight. */
static size_t flight_bytes(const es_gpu3_t *g)
{
    size_t tri = g->max_pairs * g->cfg.block;
    return tri * (4 + 8) + g->max_pairs * (4 + 32) + g->max_rows * g->cfg.block * 32 +
           (size_t)CAND_CAP * sizeof(es_gpu_cand3_t) +
           (g->cfg.max_seeds ? (size_t)2 * g->cfg.max_seeds * (g->cfg.n_planes * g->cfg.words * 8 + 32) : 0) + 64;
}

static int flight_init(es_gpu3_t *g, flight3_t *f)
{
    size_t tri = g->max_pairs * g->cfg.block;
    CHECK(cudaMalloc(&f->d_score, tri * 4));
    CHECK(cudaMalloc(&f->d_idx, tri * sizeof(uint2)));
    CHECK(cudaMalloc(&f->d_pbest, g->max_pairs * 4));
    CHECK(cudaMalloc(&f->d_lr, g->max_pairs * 32));
    CHECK(cudaMalloc(&f->d_xc, g->max_rows * g->cfg.block * 32));
    CHECK(cudaMalloc(&f->d_n, 3 * sizeof(uint32_t)));
    f->d_tau = f->d_n + 1; /* [0] the k-th best bound, [1] the tile's smallest variant best */
    CHECK(cudaMallocHost(&f->h_n, sizeof(uint32_t)));
    CHECK(cudaMalloc(&f->d_cand, (size_t)CAND_CAP * sizeof(es_gpu_cand3_t)));
    CHECK(cudaMallocHost(&f->h_cand, (size_t)CAND_CAP * sizeof(es_gpu_cand3_t)));
    if (g->cfg.max_seeds) {
        size_t rows = 2 * (size_t)g->cfg.max_seeds, rb = (size_t)g->cfg.n_planes * g->cfg.words * 8;
        CHECK(cudaMalloc(&f->d_splanes, rows * rb));
        CHECK(cudaMallocHost(&f->h_splanes, rows * rb));
        CHECK(cudaMalloc(&f->d_sg, rows * 24));
        CHECK(cudaMallocHost(&f->h_sg, rows * 24));
        CHECK(cudaMalloc(&f->d_sidx, rows * 4));
        CHECK(cudaMallocHost(&f->h_sidx, rows * 4));
    }
    CHECK(cudaEventCreate(&f->start));
    CHECK(cudaEventCreate(&f->done));
    return ES_OK;
}

static void flight_free(flight3_t *f)
{
    cudaFree(f->d_score);
    cudaFree(f->d_idx);
    cudaFree(f->d_pbest);
    cudaFree(f->d_lr);
    cudaFree(f->d_xc);
    cudaFree(f->d_n);
    cudaFreeHost(f->h_n);
    cudaFree(f->d_cand);
    cudaFreeHost(f->h_cand);
    cudaFree(f->d_splanes);
    cudaFreeHost(f->h_splanes);
    cudaFree(f->d_sg);
    cudaFreeHost(f->h_sg);
    cudaFree(f->d_sidx);
    cudaFreeHost(f->h_sidx);
    if (f->start) cudaEventDestroy(f->start);
    if (f->done) cudaEventDestroy(f->done);
    memset(f, 0, sizeof *f);
}

extern "C" void es_gpu3_close(es_gpu3_t *g)
{
    if (!g) return;
    cudaSetDevice(g->dev);
    if (g->s_comp) cudaStreamSynchronize(g->s_comp);
    if (g->s_back) cudaStreamSynchronize(g->s_back);
    for (int k = 0; k < ES_GPU3_FLIGHTS; k++) flight_free(&g->fl[k]);
    for (int k = 0; k < g->n_slots; k++) {
        cudaFree(g->slots[k].planes);
        cudaFree(g->slots[k].gcount);
    }
    free(g->slots);
    cudaFree(g->d_vbest);
    cudaFree(g->d_lnf);
    if (g->s_comp) cudaStreamDestroy(g->s_comp);
    if (g->s_back) cudaStreamDestroy(g->s_back);
    free(g->h_big);
    free(g);
}

static uint32_t round8(uint32_t n) { return ((n + 63) / 64 + 7) / 8 * 8; }

static int open_engine(int dev, const es_gpu3_config_t *cfg, uint32_t n_blocks, int n_flights, es_gpu3_t **out)
{
    *out = NULL;
    if (cfg->n_planes < 2 || cfg->n_planes > 3 || !cfg->block || cfg->off_ctrl > cfg->words) return ES_ERR_ARG;
    if (cfg->stat < GK3_CHI2 || cfg->stat > GK3_K2) return ES_ERR_ARG;
    uint32_t kw1 = round8(cfg->n_case), kw0 = round8(cfg->n_ctrl);
    if (kw1 > cfg->off_ctrl || cfg->off_ctrl + kw0 > cfg->words) {
        fprintf(stderr, "[E::es_gpu3_open] the planes must pad each class to 512 bits (%u words, %u cases, "
                        "%u controls)\n", cfg->words, cfg->n_case, cfg->n_ctrl);
        return ES_ERR_ARG;
    }
    if (cfg->stat == GK3_K2 && (!cfg->lnfact || cfg->n_lnfact < cfg->n_case + cfg->n_ctrl + 2)) return ES_ERR_ARG;
    cudaDeviceProp prop;
    CHECK(cudaSetDevice(dev));
    CHECK(cudaGetDeviceProperties(&prop, dev));
    es_gpu3_t *g = (es_gpu3_t *)calloc(1, sizeof *g);
    if (!g) return ES_ERR_NOMEM;
    g->dev = dev;
    g->cfg = *cfg;
    g->cfg.lnfact = NULL;
    g->kw1 = kw1;
    g->kw0 = kw0;
    {
        const char *ea = getenv("EPISTREAM_GPU3_ALL");
        g->emit_all = ea && *ea && strcmp(ea, "0") != 0;
    }
    int cc = prop.major * 10 + prop.minor;
    g->kernel = cfg->kernel == ES_GPU_KERNEL_POPC || cc < 80 || cfg->n_planes == 3 ? ES_GPU_KERNEL_POPC
                                                                                  : ES_GPU_KERNEL_MMA;
    g->sig_min = INFINITY;
    for (int d = 0; d < 27; d++) {
        if (cfg->sig_crit[d] < INFINITY) g->do_sig = 1;
        if (d >= 1 && cfg->sig_crit[d] < g->sig_min) g->sig_min = cfg->sig_crit[d];
    }
    g->max_pairs = cfg->max_seeds ? cfg->max_seeds : (size_t)cfg->block * cfg->block;
    g->max_rows = cfg->max_seeds ? 2 * (size_t)cfg->max_seeds : 2 * (size_t)cfg->block;
    int ret = ES_OK;
    size_t freeb = 0, total = 0, need_fixed, per_slot = slot_bytes3(cfg), avail;
    int min_slots = cfg->max_seeds ? n_flights + 1 : 3 * n_flights;
    if (min_slots > (int)n_blocks) min_slots = (int)n_blocks;
    if (cudaStreamCreateWithFlags(&g->s_comp, cudaStreamNonBlocking) != cudaSuccess ||
        cudaStreamCreateWithFlags(&g->s_back, cudaStreamNonBlocking) != cudaSuccess ||
        cudaMemGetInfo(&freeb, &total) != cudaSuccess) {
        ret = ES_ERR_GPU;
        goto fail;
    }
    need_fixed = (size_t)n_flights * flight_bytes(g) + (size_t)cfg->n_variants * 4 + 64 +
                 (size_t)cfg->n_lnfact * 8 + ((size_t)64 << 20); /* the runtime's own */
    avail = freeb - freeb / 16;
    if (avail < need_fixed + (size_t)min_slots * per_slot) {
        fprintf(stderr, "[E::es_gpu3_open] device %d: a 3-way scan with blocks of %u variants needs %.1f MiB "
                        "(%d tiles in flight and %d blocks), but only %.1f MiB are free; use a smaller "
                        "--block\n", dev, cfg->block,
                (double)(need_fixed + (size_t)min_slots * per_slot) / 1048576.0, n_flights, min_slots,
                (double)avail / 1048576.0);
        ret = ES_ERR_NOMEM;
        goto fail;
    }
    /* --gpu-mem caps the block cache, as for pairs; the tiles in flight are
     * the scan's working memory */
    avail -= need_fixed;
    if (cfg->mem_limit && cfg->mem_limit < avail) avail = cfg->mem_limit;
    if (avail < (size_t)min_slots * per_slot) {
        fprintf(stderr, "[E::es_gpu3_open] --gpu-mem %zu bytes cannot hold %d blocks of %u variants (%zu bytes "
                        "each), the fewest a 3-way scan streams through\n", cfg->mem_limit, min_slots, cfg->block,
                per_slot);
        ret = ES_ERR_ARG;
        goto fail;
    }
    g->n_slots = (int)(avail / per_slot);
    if (g->n_slots > (int)n_blocks) g->n_slots = (int)n_blocks;
    g->slots = (slot3_t *)calloc((size_t)g->n_slots, sizeof *g->slots);
    if (!g->slots) {
        ret = ES_ERR_NOMEM;
        goto fail;
    }
    for (int k = 0; k < g->n_slots; k++) {
        g->slots[k].block = -1;
        if (cudaMalloc(&g->slots[k].planes, (size_t)cfg->block * cfg->n_planes * cfg->words * 8) != cudaSuccess ||
            cudaMalloc(&g->slots[k].gcount, (size_t)cfg->block * 24) != cudaSuccess) {
            ret = ES_ERR_GPU;
            goto fail;
        }
    }
    for (int k = 0; k < n_flights; k++)
        if ((ret = flight_init(g, &g->fl[k]))) goto fail;
    if (cudaMalloc(&g->d_vbest, (size_t)cfg->n_variants * 4 + 64) != cudaSuccess ||
        cudaMemset(g->d_vbest, 0, (size_t)cfg->n_variants * 4 + 64) != cudaSuccess) {
        ret = ES_ERR_GPU;
        goto fail;
    }
    g->d_tau_scan = g->d_vbest + cfg->n_variants;
    if (cfg->stat == GK3_K2) {
        if (cudaMalloc(&g->d_lnf, (size_t)cfg->n_lnfact * 8) != cudaSuccess ||
            cudaMemcpy(g->d_lnf, cfg->lnfact, (size_t)cfg->n_lnfact * 8, cudaMemcpyHostToDevice) != cudaSuccess) {
            ret = ES_ERR_GPU;
            goto fail;
        }
    }
    /* the memset above ran on the legacy default stream, which the
     * non-blocking streams do not wait for: let it finish first */
    if (cudaDeviceSynchronize() != cudaSuccess) {
        ret = ES_ERR_GPU;
        goto fail;
    }
    *out = g;
    return ES_OK;
fail:
    if (ret == ES_ERR_GPU) fprintf(stderr, "[E::es_gpu3_open] device %d: %s\n", dev, cudaGetErrorString(cudaGetLastError()));
    es_gpu3_close(g);
    return ret;
}

extern "C" int es_gpu3_open(int dev, const es_gpu3_config_t *cfg, uint32_t n_blocks, es_gpu3_t **out)
{
    return open_engine(dev, cfg, n_blocks, ES_GPU3_FLIGHTS, out);
}

extern "C" const char *es_gpu3_kernel_name(const es_gpu3_t *g)
{
    return g->kernel == ES_GPU_KERNEL_MMA ? "mma" : "popc";
}

extern "C" double es_gpu3_kernel_seconds(const es_gpu3_t *g) { return g->t_kernel; }
extern "C" int es_gpu3_cache_slots(const es_gpu3_t *g) { return g->n_slots; }
extern "C" int es_gpu3_in_flight(const es_gpu3_t *g) { return g->n_flight; }

/* The slot holding block b (uploaded if needed; on s_comp, so after the
 * kernels that read what it held), one reference more.  -1: none free. */
static int get_slot(es_gpu3_t *g, const es_gpu_block_t *b)
{
    int pick = -1;
    for (int k = 0; k < g->n_slots; k++) {
        slot3_t *s = &g->slots[k];
        if (s->block == (long)b->index) {
            pick = k;
            break;
        }
        if (s->refs) continue;
        if (pick < 0 || s->block < 0 || (g->slots[pick].block >= 0 && s->lru < g->slots[pick].lru)) pick = k;
    }
    if (pick < 0) return -1;
    slot3_t *s = &g->slots[pick];
    if (s->block != (long)b->index) {
        const es_gpu3_config_t *c = &g->cfg;
        s->block = -1;
        if (cudaMemcpyAsync(s->planes, b->planes, (size_t)b->count * c->n_planes * c->words * 8,
                            cudaMemcpyHostToDevice, g->s_comp) != cudaSuccess ||
            cudaMemcpyAsync(s->gcount, b->gcount, (size_t)b->count * 24, cudaMemcpyHostToDevice, g->s_comp) !=
                cudaSuccess)
            return -2;
        s->block = (long)b->index;
    }
    s->lru = ++g->clock;
    s->refs++;
    return pick;
}

static gk3_params base_params(const es_gpu3_t *g, flight3_t *f)
{
    gk3_params P;
    memset(&P, 0, sizeof P);
    P.words = g->cfg.words;
    P.off_ctrl = g->cfg.off_ctrl;
    P.kw1 = g->kw1;
    P.kw0 = g->kw0;
    P.n_case = g->cfg.n_case;
    P.n_ctrl = g->cfg.n_ctrl;
    P.xc = f->d_xc;
    P.lr = f->d_lr;
    P.score = f->d_score;
    P.vbest = g->d_vbest;
    P.lnf = g->d_lnf;
    P.stat = g->cfg.stat;
    P.do_sig = g->do_sig;
    P.sig_min = g->sig_min;
    static_assert(sizeof P.sig_crit == sizeof g->cfg.sig_crit, "a critical value per df");
    memcpy(P.sig_crit, g->cfg.sig_crit, sizeof P.sig_crit);
    return P;
}

static int pairsums(es_gpu3_t *g, const uint64_t *X, const uint64_t *Y, uint32_t ny, uint32_t njobs, int pairs,
                    uint32_t *out, cudaStream_t st)
{
    if (!njobs) return ES_OK;
    k3_pairsum<<<(njobs + 7) / 8, 256, 0, st>>>(X, Y, ny, njobs, pairs, g->cfg.words, g->cfg.off_ctrl, g->kw1, g->kw0,
                                                out);
    CHECK(cudaGetLastError());
    return ES_OK;
}

/* The blocks of an exhaustive (or every-combination) tile in slots sl[3]. */
static void blocks_params(const es_gpu3_t *g, const int sl[3], const es_gpu_block_t *a, const es_gpu_block_t *b,
                          const es_gpu_block_t *c, gk3_params &P)
{
    P.lp = g->slots[sl[0]].planes;
    P.rp = g->slots[sl[1]].planes;
    P.cp = g->slots[sl[2]].planes;
    P.lg = g->slots[sl[0]].gcount;
    P.rg = g->slots[sl[1]].gcount;
    P.cg = g->slots[sl[2]].gcount;
    P.first_l = a->first;
    P.first_r = b->first;
    P.first_c = c->first;
    P.na = a->count;
    P.nb = b->count;
    P.nc = c->count;
    P.ngb = (b->count + GK3_PAIRS - 1) / GK3_PAIRS;
    P.n_pairs = a->count * b->count;
}

/* Two planes: the pair sums of an exhaustive tile (a x b; a x c and b x c). */
static int exh_pairsums(es_gpu3_t *g, flight3_t *f, const gk3_params &P)
{
    int ret = ES_OK;
    if (g->cfg.n_planes != 2) return ES_OK;
    if ((ret = pairsums(g, P.lp, P.rp, P.nb, P.n_pairs, 0, f->d_lr, g->s_comp)) ||
        (ret = pairsums(g, P.lp, P.cp, P.nc, P.na * P.nc, 0, f->d_xc, g->s_comp)))
        return ret;
    return pairsums(g, P.rp, P.cp, P.nc, P.nb * P.nc, 0, f->d_xc + (size_t)P.na * P.nc * 8, g->s_comp);
}

static int count_kernel(es_gpu3_t *g, const gk3_params &P, int kernel, cudaStream_t st)
{
    if (!P.n_pairs || !P.nc) return ES_OK;
    int r = kernel == ES_GPU_KERNEL_MMA && g->cfg.n_planes == 2 ? gk3_launch_mma(P, st)
                                                                : gk3_launch_popc(P, (int)g->cfg.n_planes, st);
    CHECK_LAUNCH(r);
    return ES_OK;
}

static int launch_tables(es_gpu3_t *g, flight3_t *f, uint32_t off, uint32_t cap, es_gpu_cand3_t *out,
                         cudaStream_t st)
{
    unsigned grid = (cap + 7) / 8;
    if (g->cfg.n_planes == 3) k3_tables<3><<<grid, 256, 0, st>>>(f->P, f->d_idx, f->d_n, off, cap, out);
    else k3_tables<2><<<grid, 256, 0, st>>>(f->P, f->d_idx, f->d_n, off, cap, out);
    CHECK(cudaGetLastError());
    return ES_OK;
}

/* Steps 3-5 of a tile and the count back to the host. */
static int finish_tile(es_gpu3_t *g, flight3_t *f, uint32_t tau_key)
{
    const gk3_params &P = f->P;
    if (P.mode == GK3_EXH) k3_tau<<<1, 1024, 0, g->s_comp>>>(f->d_pbest, P.n_pairs, g->cfg.top_k, tau_key,
                                                              g->d_tau_scan, f->d_tau);
    else k3_tau<<<1, 1024, 0, g->s_comp>>>(g->d_vbest, g->cfg.n_variants,
                                           g->cfg.top_k > 0x55555555u ? 0xffffffffu : 3 * g->cfg.top_k, tau_key,
                                           g->d_tau_scan, f->d_tau);
    CHECK(cudaGetLastError());
    k3_vmin<<<1, 1024, 0, g->s_comp>>>(P, f->d_tau);
    CHECK(cudaGetLastError());
    CHECK(cudaMemsetAsync(f->d_n, 0, sizeof(uint32_t), g->s_comp));
    size_t total = (size_t)P.n_pairs * P.nc;
    unsigned grid = (unsigned)((total + 255) / 256 < 4096 ? (total + 255) / 256 : 4096);
    if (grid) {
        k3_select<<<grid, 256, 0, g->s_comp>>>(P, f->d_tau, g->emit_all, f->d_idx, f->d_n);
        CHECK(cudaGetLastError());
    }
    int ret = launch_tables(g, f, 0, CAND_CAP, f->d_cand, g->s_comp);
    if (ret) return ret;
    CHECK(cudaMemcpyAsync(f->h_n, f->d_n, sizeof(uint32_t), cudaMemcpyDeviceToHost, g->s_comp));
    CHECK(cudaEventRecord(f->done, g->s_comp));
    g->n_flight++;
    return ES_OK;
}

static flight3_t *next_flight(es_gpu3_t *g)
{
    if (g->n_flight >= ES_GPU3_FLIGHTS) return NULL;
    return &g->fl[(g->head + g->n_flight) % ES_GPU3_FLIGHTS];
}

extern "C" int es_gpu3_submit(es_gpu3_t *g, const es_gpu_block_t *a, const es_gpu_block_t *b, const es_gpu_block_t *c,
                              uint32_t tau_key)
{
    flight3_t *f = next_flight(g);
    if (!f || g->cfg.max_seeds || a->count > g->cfg.block || b->count > g->cfg.block || c->count > g->cfg.block)
        return ES_ERR_ARG;
    CHECK(cudaSetDevice(g->dev));
    const es_gpu_block_t *blk[3] = {a, b, c};
    f->n_slot = 0;
    for (int e = 0; e < 3; e++) {
        int s = get_slot(g, blk[e]);
        if (s < 0) {
            for (int q = 0; q < f->n_slot; q++) g->slots[f->slot[q]].refs--;
            fprintf(stderr, "[E::es_gpu3_submit] %s\n", s == -1 ? "no free block slot" : "block upload failed");
            return ES_ERR_GPU;
        }
        f->slot[f->n_slot++] = s;
        f->tag[e] = blk[e]->index;
    }
    CHECK(cudaEventRecord(f->start, g->s_comp));
    gk3_params P = base_params(g, f);
    blocks_params(g, f->slot, a, b, c, P);
    P.mode = GK3_EXH;
    P.pbest = f->d_pbest;
    f->P = P;
    int ret = exh_pairsums(g, f, P);
    if (ret) return ret;
    CHECK(cudaMemsetAsync(f->d_pbest, 0, (size_t)P.n_pairs * 4, g->s_comp));
    if ((ret = count_kernel(g, P, g->kernel, g->s_comp))) return ret;
    return finish_tile(g, f, tau_key);
}

extern "C" int es_gpu3_submit_seeds(es_gpu3_t *g, uint32_t n, const uint32_t *idx, const uint64_t *const *planes,
                                    const uint32_t *const *gcount, const es_gpu_block_t *c, uint32_t tau_key)
{
    flight3_t *f = next_flight(g);
    if (!f || n > g->cfg.max_seeds || c->count > g->cfg.block) return ES_ERR_ARG;
    CHECK(cudaSetDevice(g->dev));
    int s = get_slot(g, c);
    if (s < 0) {
        fprintf(stderr, "[E::es_gpu3_submit_seeds] %s\n", s == -1 ? "no free block slot" : "block upload failed");
        return ES_ERR_GPU;
    }
    f->slot[0] = s;
    f->n_slot = 1;
    f->tag[0] = f->tag[1] = 0;
    f->tag[2] = c->index;
    const size_t rb = (size_t)g->cfg.n_planes * g->cfg.words;
    for (uint32_t r = 0; r < 2 * n; r++) {
        memcpy(f->h_splanes + r * rb, planes[r], rb * 8);
        memcpy(f->h_sg + (size_t)r * 6, gcount[r], 24);
        f->h_sidx[r] = idx[r];
    }
    CHECK(cudaEventRecord(f->start, g->s_comp));
    CHECK(cudaMemcpyAsync(f->d_splanes, f->h_splanes, 2 * (size_t)n * rb * 8, cudaMemcpyHostToDevice, g->s_comp));
    CHECK(cudaMemcpyAsync(f->d_sg, f->h_sg, 2 * (size_t)n * 24, cudaMemcpyHostToDevice, g->s_comp));
    CHECK(cudaMemcpyAsync(f->d_sidx, f->h_sidx, 2 * (size_t)n * 4, cudaMemcpyHostToDevice, g->s_comp));
    gk3_params P = base_params(g, f);
    P.mode = GK3_SEED;
    P.lp = P.rp = f->d_splanes;
    P.lg = P.rg = f->d_sg;
    P.sidx = f->d_sidx;
    P.cp = g->slots[s].planes;
    P.cg = g->slots[s].gcount;
    P.first_c = c->first;
    P.na = P.nb = n;
    P.nc = c->count;
    P.n_pairs = n;
    P.pbest = NULL;
    f->P = P;
    int ret = ES_OK;
    if (g->cfg.n_planes == 2) {
        if ((ret = pairsums(g, P.lp, P.lp, 0, n, 1, f->d_lr, g->s_comp)) ||
            (ret = pairsums(g, P.lp, P.cp, P.nc, 2 * n * P.nc, 0, f->d_xc, g->s_comp)))
            return ret;
    }
    if ((ret = count_kernel(g, P, g->kernel, g->s_comp))) return ret;
    return finish_tile(g, f, tau_key);
}

extern "C" int es_gpu3_collect(es_gpu3_t *g, const es_gpu_cand3_t **cand, size_t *n, uint32_t tag[3])
{
    if (!g->n_flight) return ES_ERR_ARG;
    CHECK(cudaSetDevice(g->dev));
    flight3_t *f = &g->fl[g->head];
    CHECK(cudaEventSynchronize(f->done));
    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, f->start, f->done));
    g->t_kernel += ms * 1e-3;
    uint32_t nc = *f->h_n;
    es_gpu_cand3_t *dst = f->h_cand;
    if (nc > CAND_CAP) {
        if (g->big_cap < nc) {
            es_gpu_cand3_t *p = (es_gpu_cand3_t *)realloc(g->h_big, (size_t)nc * sizeof *p);
            if (!p) return ES_ERR_NOMEM;
            g->h_big = p;
            g->big_cap = nc;
        }
        dst = g->h_big;
    }
    uint32_t first = nc < CAND_CAP ? nc : CAND_CAP;
    if (first) CHECK(cudaMemcpyAsync(dst, f->d_cand, (size_t)first * sizeof *dst, cudaMemcpyDeviceToHost, g->s_back));
    CHECK(cudaStreamSynchronize(g->s_back));
    /* the rest, chunk by chunk, on the copy stream (the tile's blocks stay
     * held until it is collected) */
    for (uint32_t off = CAND_CAP; off < nc; off += CAND_CAP) {
        uint32_t m = nc - off < CAND_CAP ? nc - off : CAND_CAP;
        int ret = launch_tables(g, f, off, m, f->d_cand, g->s_back);
        if (ret) return ret;
        CHECK(cudaMemcpyAsync(dst + off, f->d_cand, (size_t)m * sizeof *dst, cudaMemcpyDeviceToHost, g->s_back));
        CHECK(cudaStreamSynchronize(g->s_back));
    }
    for (int q = 0; q < f->n_slot; q++) g->slots[f->slot[q]].refs--;
    memcpy(tag, f->tag, sizeof f->tag);
    *cand = dst;
    *n = nc;
    g->head = (g->head + 1) % ES_GPU3_FLIGHTS;
    g->n_flight--;
    return ES_OK;
}

/* ---- test hooks (gpu_test.h) ---------------------------------------------------- */

extern "C" int es_gpu3_count_tables(int dev, int kernel, const es_gpu3_config_t *cfg, const es_gpu_block_t *a,
                                    const es_gpu_block_t *b, const es_gpu_block_t *c, uint32_t *out)
{
    es_gpu3_config_t cf = *cfg;
    cf.kernel = kernel;
    cf.max_seeds = 0;
    es_gpu3_t *g = NULL;
    int ret = open_engine(dev, &cf, 3, 1, &g);
    if (ret) return ret;
    flight3_t *f = &g->fl[0];
    uint32_t *d_t = NULL;
    size_t nt = (size_t)a->count * b->count * c->count;
    gk3_params P = base_params(g, f);
    es_gpu_block_t blk[3] = {*a, *b, *c};
    int sl[3];
    for (int e = 0; e < 3; e++) {
        blk[e].index = (uint32_t)e; /* three slots even where the caller passes one block twice */
        if ((sl[e] = get_slot(g, &blk[e])) < 0) {
            ret = ES_ERR_GPU;
            goto out;
        }
    }
    if (cudaMalloc(&d_t, nt * 54 * 4 + 4) != cudaSuccess) {
        ret = ES_ERR_GPU;
        goto out;
    }
    blocks_params(g, sl, a, b, c, P);
    P.mode = GK3_ALL;
    P.tables = d_t;
    if ((ret = exh_pairsums(g, f, P))) goto out;
    if ((ret = count_kernel(g, P, g->kernel, g->s_comp))) goto out;
    if (cudaMemcpyAsync(out, d_t, nt * 54 * 4, cudaMemcpyDeviceToHost, g->s_comp) != cudaSuccess ||
        cudaStreamSynchronize(g->s_comp) != cudaSuccess)
        ret = ES_ERR_GPU;
out:
    if (ret == ES_ERR_GPU) fprintf(stderr, "[E::es_gpu3_count_tables] %s\n", cudaGetErrorString(cudaGetLastError()));
    cudaFree(d_t);
    es_gpu3_close(g);
    return ret;
}

template <int STAT>
static int bounds_launch(const uint32_t *t, size_t n, const double *lnf, float *o, bool p16)
{
    if (p16) k3_bounds<STAT, true><<<(unsigned)((n + 255) / 256), 256>>>(t, n, lnf, o);
    else k3_bounds<STAT, false><<<(unsigned)((n + 255) / 256), 256>>>(t, n, lnf, o);
    return (int)cudaGetLastError();
}

extern "C" int es_gpu3_bounds(int dev, int stat, const uint32_t *tables, size_t n, const double *lnfact,
                              uint32_t n_lnfact, float *out)
{
    const bool p16 = (stat & ES_GPU3_BOUNDS_P16) != 0;
    stat &= ~ES_GPU3_BOUNDS_P16;
    if (stat < GK3_CHI2 || stat > GK3_K2 || !n) return ES_ERR_ARG;
    uint32_t maxn = 0;
    for (size_t t = 0; t < n; t++) {
        uint32_t s = 0;
        for (int x = 0; x < 54; x++) s += tables[t * 54 + x];
        maxn = s > maxn ? s : maxn;
    }
    if (stat == GK3_K2 && (!lnfact || n_lnfact < maxn + 2)) return ES_ERR_ARG;
    CHECK(cudaSetDevice(dev));
    uint32_t *d_t = NULL;
    float *d_o = NULL;
    double *d_l = NULL;
    int ret = ES_ERR_GPU;
    if (cudaMalloc(&d_t, n * 54 * 4) == cudaSuccess && cudaMalloc(&d_o, n * 16) == cudaSuccess &&
        cudaMemcpy(d_t, tables, n * 54 * 4, cudaMemcpyHostToDevice) == cudaSuccess &&
        (stat != GK3_K2 || (cudaMalloc(&d_l, (size_t)n_lnfact * 8) == cudaSuccess &&
                            cudaMemcpy(d_l, lnfact, (size_t)n_lnfact * 8, cudaMemcpyHostToDevice) == cudaSuccess)) &&
        GK3_STAT_DISPATCH(stat, bounds_launch, d_t, n, d_l, d_o, p16) == 0 &&
        cudaMemcpy(out, d_o, n * 16, cudaMemcpyDeviceToHost) == cudaSuccess)
        ret = ES_OK;
    if (ret) fprintf(stderr, "[E::es_gpu3_bounds] %s\n", cudaGetErrorString(cudaGetLastError()));
    cudaFree(d_t);
    cudaFree(d_o);
    cudaFree(d_l);
    return ret;
}
