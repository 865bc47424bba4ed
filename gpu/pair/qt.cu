/* qt.cu -- the quantitative-trait pair engine (`scan --stat linear` on a
 * GPU): one device's tiles of a scan without missing calls.
 *
 * What a pair needs (src/count/qt.c, doc/QT.md): its 3x3 genotype table and
 * the sum of a*b*q over the samples (q the phenotype in 39-bit fixed point);
 * every other sum is a per-variant total when no call is missing.  The
 * kernel gets them from integer tensor cores (mma.sync m16n8k32 u8 x s8 into
 * s32, sm_80+): the rows of an A variant are the top two bytes of a*q
 * (bits 24..39: the CPU bound's slices) and the indicators [a = 1], [a = 2];
 * the rows of a B variant are b and [b = 1].  Their products give
 *     D  = sum b floor(a q / 2^24)        (256 * (byte 4 . b) + byte 3 . b)
 *     n11 = [a=1].[b=1], n12 = ([a=1].b - n11) / 2, likewise n21, n22,
 * and the rest of the table from the variants' genotype counts.  The rows
 * are not stored: each is made from the codes (one byte a sample) and four
 * per-sample byte tables of q as the fragments are loaded.
 *
 * Each pair's failure rules and its z^2 bound on the interval [2^24 D,
 * 2^24 D + (2^24 - 1) sum_{a>0} b] are then the CPU's, bit for bit
 * (qt_linear.cuh; this file is compiled with -fmad=false).  A pair is kept
 * when it fails on its table, is not certified, or its bound reaches the
 * least of: the top-k level, the significance threshold, either variant's
 * best so far -- thresholds that are lower bounds of exact z^2 of real,
 * certified pairs (per variant, device-wide, atomicMax; the top-k level
 * from a histogram of one lower bound per CTA row, as the case/control
 * engine keeps it), and the host's exact k-th best.  A second kernel sums
 * the kept pairs' a*b*q exactly (int64, CUDA cores); the host scores them
 * with the CPU's code, so the outputs are the CPU backend's bytes.
 * Every runtime call goes through CHECK (returns ES_ERR_GPU). */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#include "epistream.h"
#include "gpu.h"
#include "gpu_test.h"
#include "cuda_check.h"
#include "qt_linear.cuh"

#define GQ_THREADS 256
#define GQ_KC 128               /* sample bytes a stage */
#define GQ_LDS (GQ_KC + 16)     /* shared row stride: fragment loads without bank conflicts */
#define GQ_WA 2                 /* warps along A */
#define GQ_WB 4                 /* warps along B */
#define GQ_NG 2                 /* 8-variant groups of B a warp */
#define GQ_TA (16 * GQ_WA)      /* A variants a CTA: 32 */
#define GQ_TB (8 * GQ_NG * GQ_WB) /* B variants a CTA: 64 */
#define GQ_BINS 2048            /* the top-k histogram: non-negative float keys >> 20 */
#define GQ_CAND_INIT (1u << 20)

namespace {

struct gq_block {
    const uint8_t *code;       /* rows of ld bytes */
    const uint32_t (*cnt)[2];
    const long long (*tot)[2];
    uint32_t count, first;
};

struct gq_params {
    gq_block A, B;
    int diag;
    uint32_t ld;               /* bytes a row (a multiple of GQ_KC) */
    const uint8_t *h;          /* 4 rows of ld: bytes 3, 4 of q and of 2q */
    uint32_t n;                /* samples */
    long long sy, syy;
    double u, u2;              /* 1 / scale, 1 / scale2 */
    double tau_host, sig_min;
    uint32_t top_k;
    int update_hist, emit_all;
    int no_emit;               /* thresholds only (a diagonal tile's first pass) */
    unsigned long long *thr;   /* per variant: key of the best lower bound (0: none) */
    uint32_t *hist, *tau_bin;  /* [0] the top-k level's bin, [1] the highest bin used */
    es_gpu_qt_cand_t *cand;
    uint32_t cap, *n_cand;
};

} // namespace

__device__ __forceinline__ void gq_mma(int *c, const uint32_t *a, uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void gq_cp16(void *smem, const void *gmem, bool ok)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    int n = ok ? 16 : 0;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(n));
}

__device__ __forceinline__ void gq_cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
__device__ __forceinline__ void gq_cp_wait1() { asm volatile("cp.async.wait_group 1;\n" ::); }
__device__ __forceinline__ void gq_cp_wait0() { asm volatile("cp.async.wait_group 0;\n" ::); }

/* key of a lower bound lo >= 0 (0 is "none") and back */
__device__ __forceinline__ unsigned long long gq_key(double lo) { return (unsigned long long)__double_as_longlong(lo) + 1ull; }
__device__ __forceinline__ double gq_unkey(unsigned long long k)
{
    return k ? __longlong_as_double((long long)(k - 1ull)) : -INFINITY;
}

struct __align__(16) gq_stage {
    uint8_t a[GQ_TA][GQ_LDS];
    uint8_t b[GQ_TB][GQ_LDS];
    uint8_t h[4][GQ_KC];
};

struct gq_smem {
    gq_stage st[2];
    unsigned long long rowlo[GQ_TA], collo[GQ_TB];
    double rowthr[GQ_TA], colthr[GQ_TB];
    double tau;
    int any;
};

/* The pair's table and sums from its products: P[kind A][kind B] with A
 * kinds byte 3, byte 4, [a=1], [a=2] and B kinds b, [b=1]. */
__device__ __forceinline__ void gq_pair_of(const gq_params &P, uint32_t ia, uint32_t ib, int p30, int p40, int p20,
                                           int p21, int p31, int p30b, uint32_t n[9], long long &hi,
                                           gq_dsums &d, double &x1)
{
    uint32_t n11 = (uint32_t)p21, n12 = (uint32_t)(p20 - p21) / 2u;
    uint32_t n21 = (uint32_t)p31, n22 = (uint32_t)(p30b - p31) / 2u;
    uint32_t a1 = P.A.cnt[ia][0], a2 = P.A.cnt[ia][1], b1 = P.B.cnt[ib][0], b2 = P.B.cnt[ib][1];
    n[4] = n11, n[5] = n12, n[7] = n21, n[8] = n22;
    n[1] = b1 - n11 - n21;
    n[2] = b2 - n12 - n22;
    n[3] = a1 - n11 - n12;
    n[6] = a2 - n21 - n22;
    n[0] = P.n - a1 - a2 - n[1] - n[2];
    hi = (long long)p40 * 256 + (long long)p30;
    long long ra0 = P.A.tot[ia][0], ra1 = P.A.tot[ia][1], cb0 = P.B.tot[ib][0], cb1 = P.B.tot[ib][1];
    long long wb = (long long)(n11 + 2 * n12 + n21 + 2 * n22);
    /* es_qt_dsums() of the interval's lower end, and the upper end as cpu.c takes it */
    d.sy = (double)P.sy * P.u;
    d.syy = (double)P.syy * P.u2;
    d.say = (double)(ra0 + 2 * ra1) * P.u;
    d.sby = (double)(cb0 + 2 * cb1) * P.u;
    d.saby = (double)(hi << 24) * P.u;
    d.quantum = 0.5 * P.u;
    x1 = (double)((hi << 24) + wb * ((1 << 24) - 1)) * P.u;
}

__global__ void __launch_bounds__(GQ_THREADS, 1) gq_tile(const gq_params P)
{
    __shared__ gq_smem S;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int wa = (warp % GQ_WA) * 16, wb = (warp / GQ_WA) * (8 * GQ_NG);
    const uint32_t a0 = blockIdx.y * GQ_TA, b0 = blockIdx.x * GQ_TB;
    if (P.diag && a0 >= b0 + GQ_TB - 1) return; /* every pair a >= b */

    int acc[4][GQ_NG][2][4];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < GQ_NG; j++)
#pragma unroll
            for (int k = 0; k < 2; k++)
#pragma unroll
                for (int l = 0; l < 4; l++) acc[i][j][k][l] = 0;

    const uint32_t nk = P.ld / GQ_KC;
    auto load = [&](int st, uint32_t kc) {
        gq_stage &s = S.st[st];
        size_t k0 = (size_t)kc * GQ_KC;
        { /* A: 32 rows x 8 chunks, one a thread */
            int r = tid >> 3, c = tid & 7;
            bool ok = a0 + r < P.A.count;
            const uint8_t *src = P.A.code + (ok ? (size_t)(a0 + r) * P.ld : 0) + k0 + c * 16;
            gq_cp16(&s.a[r][c * 16], src, ok);
        }
#pragma unroll
        for (int x = 0; x < 2; x++) { /* B: 64 rows x 8 chunks */
            int e = tid + x * GQ_THREADS, r = e >> 3, c = e & 7;
            bool ok = b0 + r < P.B.count;
            const uint8_t *src = P.B.code + (ok ? (size_t)(b0 + r) * P.ld : 0) + k0 + c * 16;
            gq_cp16(&s.b[r][c * 16], src, ok);
        }
        if (tid < 32) {
            int r = tid >> 3, c = tid & 7;
            gq_cp16(&s.h[r][c * 16], P.h + (size_t)r * P.ld + k0 + c * 16, true);
        }
        gq_cp_commit();
    };

    load(0, 0);
    for (uint32_t kc = 0; kc < nk; kc++) {
        if (kc + 1 < nk) {
            load((kc + 1) & 1, kc + 1);
            gq_cp_wait1();
        } else {
            gq_cp_wait0();
        }
        __syncthreads();
        const gq_stage &s = S.st[kc & 1];
#pragma unroll
        for (int kk = 0; kk < GQ_KC; kk += 32) {
            uint32_t fa[4][4];
#pragma unroll
            for (int i = 0; i < 4; i++) {
                int row = wa + g + (i & 1) * 8, col = kk + (i >> 1) * 16 + 4 * t;
                uint32_t c = *(const uint32_t *)&s.a[row][col];
                uint32_t h13 = *(const uint32_t *)&s.h[0][col], h14 = *(const uint32_t *)&s.h[1][col];
                uint32_t h23 = *(const uint32_t *)&s.h[2][col], h24 = *(const uint32_t *)&s.h[3][col];
                /* codes are 0, 1, 2: bit 0 is [a = 1], bit 1 is [a = 2]; x 255 makes byte masks */
                uint32_t a1 = c & 0x01010101u, a2 = (c >> 1) & 0x01010101u, m1 = a1 * 0xffu, m2 = a2 * 0xffu;
                fa[0][i] = (h13 & m1) | (h23 & m2);
                fa[1][i] = (h14 & m1) | (h24 & m2);
                fa[2][i] = a1;
                fa[3][i] = a2;
            }
#pragma unroll
            for (int ng = 0; ng < GQ_NG; ng++) {
                int row = wb + 8 * ng + g;
                uint32_t c0 = *(const uint32_t *)&s.b[row][kk + 4 * t];
                uint32_t c1 = *(const uint32_t *)&s.b[row][kk + 16 + 4 * t];
                uint32_t o0 = c0 & 0x01010101u, o1 = c1 & 0x01010101u;
#pragma unroll
                for (int ka = 0; ka < 4; ka++) {
                    gq_mma(acc[ka][ng][0], fa[ka], c0, c1);
                    if (ka >= 2) gq_mma(acc[ka][ng][1], fa[ka], o0, o1);
                }
            }
        }
        __syncthreads();
    }

    /* phase A: each pair's decisions and bounds */
    if (tid < GQ_TA) S.rowlo[tid] = 0;
    if (tid < GQ_TB) S.collo[tid] = 0;
    __syncthreads();
    double zb[2][GQ_NG][2];
    uint32_t keep = 0; /* bit: the pair is kept whatever the thresholds */
    uint32_t valid = 0;
#pragma unroll
    for (int r = 0; r < 2; r++) {
        unsigned long long rbest = 0;
#pragma unroll
        for (int ng = 0; ng < GQ_NG; ng++)
#pragma unroll
            for (int e = 0; e < 2; e++) {
                const int bit = (r * GQ_NG + ng) * 2 + e;
                const uint32_t la = wa + g + 8 * r, lb = wb + 8 * ng + 2 * t + e;
                const uint32_t ia = a0 + la, ib = b0 + lb;
                zb[r][ng][e] = INFINITY;
                if (ia >= P.A.count || ib >= P.B.count || (P.diag && ia >= ib)) continue;
                valid |= 1u << bit;
                const int c = 2 * r + e;
                uint32_t n[9];
                long long hi;
                gq_dsums d;
                double x1;
                gq_pair_of(P, ia, ib, acc[0][ng][0][c], acc[1][ng][0][c], acc[2][ng][0][c], acc[2][ng][1][c],
                           acc[3][ng][1][c], acc[3][ng][0][c], n, hi, d, x1);
                gq_prep p;
                if (gq_prep_of(n, p)) {
                    keep |= 1u << bit;
                    continue;
                }
                double z, lo;
                if (!gq_bound(n, p, d, x1, &z, &lo)) {
                    keep |= 1u << bit;
                    continue;
                }
                zb[r][ng][e] = z;
                unsigned long long k = gq_key(lo);
                if (k > rbest) rbest = k;
                atomicMax(&S.collo[lb], k);
            }
        if (rbest) atomicMax(&S.rowlo[wa + g + 8 * r], rbest);
    }
    __syncthreads();

    /* phase B: publish the lower bounds (per variant; rows to the top-k
     * histogram), read back the thresholds */
    if (tid < GQ_TA + GQ_TB) {
        bool is_row = tid < GQ_TA;
        int r = is_row ? tid : tid - GQ_TA;
        unsigned long long k = is_row ? S.rowlo[r] : S.collo[r];
        uint32_t v = is_row ? a0 + r : b0 + r;
        bool ok = v < (is_row ? P.A.count : P.B.count);
        double thr = -INFINITY;
        if (ok) {
            unsigned long long *gp = &P.thr[(is_row ? P.A.first : P.B.first) + v];
            unsigned long long old = k ? atomicMax(gp, k) : *(volatile unsigned long long *)gp;
            if (old > k) k = old;
            thr = gq_unkey(k);
            if (is_row && P.update_hist && S.rowlo[r]) {
                float f = __double2float_rd(gq_unkey(S.rowlo[r]));
                uint32_t bin = __float_as_uint(f) >> 20;
                atomicAdd(&P.hist[bin], 1u);
                atomicMax(&P.tau_bin[1], bin);
            }
        }
        if (is_row) S.rowthr[r] = thr;
        else S.colthr[r] = thr;
    }
    __threadfence();
    __syncthreads();
    if (warp == 0) {
        /* the top-k level: the highest bin whose suffix count reaches k */
        uint32_t tb = *(volatile uint32_t *)&P.tau_bin[0];
        int top = (int)*(volatile uint32_t *)&P.tau_bin[1];
        uint32_t accn = 0;
        for (int base = top; base > (int)tb; base -= 32) {
            int bin = base - lane;
            uint32_t c = bin > (int)tb ? *(volatile uint32_t *)&P.hist[bin] : 0u;
            uint32_t s = c;
#pragma unroll
            for (int o = 1; o < 32; o <<= 1) {
                uint32_t v = __shfl_up_sync(0xffffffffu, s, o);
                if (lane >= o) s += v;
            }
            unsigned hit = __ballot_sync(0xffffffffu, accn + s >= P.top_k && bin > (int)tb);
            if (hit) {
                int l = __ffs(hit) - 1;
                tb = (uint32_t)(base - l);
                if (lane == 0) atomicMax(&P.tau_bin[0], tb);
                break;
            }
            accn += __shfl_sync(0xffffffffu, s, 31);
        }
        if (lane == 0) {
            double lvl = tb ? (double)__uint_as_float(tb << 20) : -INFINITY;
            S.tau = lvl > P.tau_host ? lvl : P.tau_host;
        }
    }
    __syncthreads();

    /* phase C: emit what may matter */
    if (P.no_emit) return;
    const double tau = S.tau < P.sig_min ? S.tau : P.sig_min;
#pragma unroll
    for (int r = 0; r < 2; r++)
#pragma unroll
        for (int ng = 0; ng < GQ_NG; ng++)
#pragma unroll
            for (int e = 0; e < 2; e++) {
                const int bit = (r * GQ_NG + ng) * 2 + e;
                if (!((valid >> bit) & 1u)) continue;
                const uint32_t la = wa + g + 8 * r, lb = wb + 8 * ng + 2 * t + e;
                double lim = tau;
                if (S.rowthr[la] < lim) lim = S.rowthr[la];
                if (S.colthr[lb] < lim) lim = S.colthr[lb];
                if (!P.emit_all && !((keep >> bit) & 1u) && zb[r][ng][e] < lim) continue;
                uint32_t pos = atomicAdd(P.n_cand, 1u);
                if (pos >= P.cap) continue;
                const int c = 2 * r + e;
                es_gpu_qt_cand_t o;
                long long hi;
                gq_dsums d;
                double x1;
                gq_pair_of(P, a0 + la, b0 + lb, acc[0][ng][0][c], acc[1][ng][0][c], acc[2][ng][0][c],
                           acc[2][ng][1][c], acc[3][ng][1][c], acc[3][ng][0][c], o.n, hi, d, x1);
                o.i = P.A.first + a0 + la;
                o.j = P.B.first + b0 + lb;
                o.saby = hi;
                P.cand[pos] = o;
            }
}

/* The candidates' exact sums of a*b*q: one warp a candidate. */
__global__ void gq_exact(es_gpu_qt_cand_t *cand, uint32_t n, gq_block A, gq_block B, uint32_t ld,
                         const unsigned long long *q)
{
    uint32_t w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (w >= n) return;
    const uint8_t *ca = A.code + (size_t)(cand[w].i - A.first) * ld, *cb = B.code + (size_t)(cand[w].j - B.first) * ld;
    unsigned long long s = 0;
    for (uint32_t k = lane * 16; k < ld; k += 32 * 16) {
        uint4 va = *(const uint4 *)(ca + k), vb = *(const uint4 *)(cb + k);
        const uint32_t wa[4] = {va.x, va.y, va.z, va.w}, wbv[4] = {vb.x, vb.y, vb.z, vb.w};
#pragma unroll
        for (int x = 0; x < 4; x++)
#pragma unroll
            for (int y = 0; y < 4; y++) {
                uint32_t p = ((wa[x] >> (8 * y)) & 0xffu) * ((wbv[x] >> (8 * y)) & 0xffu);
                s += (unsigned long long)p * q[k + 4 * x + y];
            }
    }
#pragma unroll
    for (int o = 16; o; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) cand[w].saby = (int64_t)s;
}

/* ---- the engine ---------------------------------------------------------------- */

namespace {
struct gq_slot {
    long block; /* -1: none */
    uint8_t *code;
    uint32_t (*cnt)[2];
    long long (*tot)[2];
    unsigned long long lru;
};
} // namespace

struct es_gpu_qt {
    int dev;
    es_gpu_qt_config_t cfg;
    uint32_t ld;
    cudaStream_t s;
    uint8_t *d_h;
    unsigned long long *d_q;
    gq_slot *slots;
    int n_slots;
    unsigned long long clock;
    unsigned long long *d_thr;
    uint32_t *d_hist, *d_tau, *d_n, *h_n;
    es_gpu_qt_cand_t *d_cand, *h_cand;
    uint32_t cap;
    cudaEvent_t e0, e1;
    double t_kernel;
};

extern "C" void es_gpu_qt_close(es_gpu_qt_t *g)
{
    if (!g) return;
    cudaSetDevice(g->dev);
    if (g->s) cudaStreamSynchronize(g->s);
    for (int i = 0; i < g->n_slots; i++)
        if (g->slots[i].code) cudaFree(g->slots[i].code);
    free(g->slots);
    cudaFree(g->d_h);
    cudaFree(g->d_q);
    cudaFree(g->d_thr);
    cudaFree(g->d_hist);
    cudaFree(g->d_tau);
    cudaFree(g->d_n);
    cudaFree(g->d_cand);
    if (g->h_n) cudaFreeHost(g->h_n);
    if (g->h_cand) cudaFreeHost(g->h_cand);
    if (g->e0) cudaEventDestroy(g->e0);
    if (g->e1) cudaEventDestroy(g->e1);
    if (g->s) cudaStreamDestroy(g->s);
    free(g);
}

static size_t slot_bytes(uint32_t block, uint32_t ld)
{
    return ((size_t)block * ld + 255) / 256 * 256 + (size_t)block * (sizeof(uint32_t[2]) + sizeof(long long[2]));
}

static int qt_open(int dev, const es_gpu_qt_config_t *cfg, es_gpu_qt_t *g)
{
    CHECK(cudaSetDevice(dev));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, dev));
    if (prop.major < 8) {
        fprintf(stderr, "[E::es_gpu_qt_open] the quantitative-trait kernel needs compute capability 8.0 or later "
                        "(integer mma.sync); %s is %d.%d\n", prop.name, prop.major, prop.minor);
        return ES_ERR_UNSUPPORTED;
    }
    g->ld = (cfg->slots + GQ_KC - 1) / GQ_KC * GQ_KC;
    if (!g->ld) g->ld = GQ_KC;
    CHECK(cudaStreamCreateWithFlags(&g->s, cudaStreamNonBlocking));
    CHECK(cudaEventCreate(&g->e0));
    CHECK(cudaEventCreate(&g->e1));
    /* the per-sample bytes of q: bytes 3 and 4 of q (a = 1) and of 2q (a = 2) */
    {
        uint8_t *h = (uint8_t *)calloc((size_t)4 * g->ld, 1);
        if (!h) return ES_ERR_NOMEM;
        for (uint32_t s = 0; s < cfg->slots; s++) {
            uint64_t q = cfg->q[s], q2 = 2 * q;
            h[s] = (uint8_t)(q >> 24);
            h[g->ld + s] = (uint8_t)(q >> 32);
            h[2 * (size_t)g->ld + s] = (uint8_t)(q2 >> 24);
            h[3 * (size_t)g->ld + s] = (uint8_t)(q2 >> 32);
        }
        cudaError_t e = cudaMalloc(&g->d_h, (size_t)4 * g->ld);
        if (e == cudaSuccess) e = cudaMemcpy(g->d_h, h, (size_t)4 * g->ld, cudaMemcpyHostToDevice);
        free(h);
        CHECK(e);
        CHECK(cudaMalloc(&g->d_q, (size_t)g->ld * 8));
        CHECK(cudaMemset(g->d_q, 0, (size_t)g->ld * 8));
        CHECK(cudaMemcpy(g->d_q, cfg->q, (size_t)cfg->slots * 8, cudaMemcpyHostToDevice));
    }
    CHECK(cudaMalloc(&g->d_thr, (size_t)(cfg->n_variants ? cfg->n_variants : 1) * 8));
    CHECK(cudaMemset(g->d_thr, 0, (size_t)(cfg->n_variants ? cfg->n_variants : 1) * 8));
    CHECK(cudaMalloc(&g->d_hist, GQ_BINS * 4));
    CHECK(cudaMemset(g->d_hist, 0, GQ_BINS * 4));
    CHECK(cudaMalloc(&g->d_tau, 8));
    CHECK(cudaMemset(g->d_tau, 0, 8));
    CHECK(cudaMalloc(&g->d_n, 4));
    CHECK(cudaMallocHost(&g->h_n, 4));
    g->cap = GQ_CAND_INIT;
    CHECK(cudaMalloc(&g->d_cand, (size_t)g->cap * sizeof(es_gpu_qt_cand_t)));
    CHECK(cudaMallocHost(&g->h_cand, (size_t)g->cap * sizeof(es_gpu_qt_cand_t)));
    /* the block cache: every block when they fit, else as many as do (at least two) */
    size_t fr = 0, tot = 0;
    CHECK(cudaMemGetInfo(&fr, &tot));
    size_t avail = cfg->mem_limit && cfg->mem_limit < fr ? cfg->mem_limit : fr;
    avail = avail > ((size_t)512 << 20) ? avail - ((size_t)512 << 20) : avail / 2; /* room for candidates */
    size_t sb = slot_bytes(cfg->block, g->ld);
    uint32_t n_blocks = cfg->block ? (cfg->n_variants + cfg->block - 1) / cfg->block : 1;
    size_t fit = avail / sb;
    if (fit < 2) {
        fprintf(stderr, "[E::es_gpu_qt_open] two blocks of %u variants x %u samples need %zu MiB of device "
                        "memory; %zu MiB are available (--block smaller, or --gpu-mem)\n", cfg->block, cfg->slots,
                (2 * sb) >> 20, avail >> 20);
        return ES_ERR_NOMEM;
    }
    g->n_slots = (int)(fit < n_blocks ? fit : n_blocks);
    if (g->n_slots < 2) g->n_slots = 2;
    g->slots = (gq_slot *)calloc((size_t)g->n_slots, sizeof *g->slots);
    if (!g->slots) return ES_ERR_NOMEM;
    for (int i = 0; i < g->n_slots; i++) {
        gq_slot &s = g->slots[i];
        s.block = -1;
        CHECK(cudaMalloc(&s.code, sb));
        CHECK(cudaMemset(s.code, 0, sb)); /* the pad past the samples stays 0 */
        size_t off = ((size_t)cfg->block * g->ld + 255) / 256 * 256;
        s.cnt = (uint32_t(*)[2])(s.code + off);
        s.tot = (long long(*)[2])(s.code + off + (size_t)cfg->block * sizeof(uint32_t[2]));
    }
    /* the memsets above ran on the legacy default stream, which g->s (non-
     * blocking) does not wait for: a block's upload on g->s could land
     * before its slot's clearing and be zeroed (seen with the GPU shared by
     * other processes).  Let them finish first. */
    CHECK(cudaDeviceSynchronize());
    return ES_OK;
}

extern "C" int es_gpu_qt_open(int dev, const es_gpu_qt_config_t *cfg, es_gpu_qt_t **out)
{
    *out = NULL;
    if (!cfg->q || !cfg->block || !cfg->slots || cfg->slots % 64 || cfg->n > cfg->slots) return ES_ERR_ARG;
    /* the s32 accumulators: 255 * 2 per sample */
    if (cfg->slots > (1u << 22)) {
        fprintf(stderr, "[E::es_gpu_qt_open] %u sample slots: the kernel's 32-bit sums hold up to 4,194,304\n",
                cfg->slots);
        return ES_ERR_UNSUPPORTED;
    }
    es_gpu_qt_t *g = (es_gpu_qt_t *)calloc(1, sizeof *g);
    if (!g) return ES_ERR_NOMEM;
    g->dev = dev;
    g->cfg = *cfg;
    g->cfg.q = NULL;
    int ret = qt_open(dev, cfg, g);
    if (ret) {
        es_gpu_qt_close(g);
        return ret;
    }
    *out = g;
    return ES_OK;
}

extern "C" int es_gpu_qt_cached(const es_gpu_qt_t *g, uint32_t index)
{
    for (int i = 0; i < g->n_slots; i++)
        if (g->slots[i].block == (long)index) return 1;
    return 0;
}

extern "C" double es_gpu_qt_seconds(const es_gpu_qt_t *g) { return g ? g->t_kernel : 0.0; }

/* The slot of block b, uploaded when it is not cached (the least recently
 * used slot that `pin` is not). */
static int slot_of(es_gpu_qt_t *g, const es_gpu_qt_block_t *b, int pin, int *out)
{
    int lru = -1;
    for (int i = 0; i < g->n_slots; i++) {
        if (g->slots[i].block == (long)b->index) {
            g->slots[i].lru = ++g->clock;
            *out = i;
            return ES_OK;
        }
        if (i != pin && (lru < 0 || g->slots[i].lru < g->slots[lru].lru)) lru = i;
    }
    gq_slot &s = g->slots[lru];
    s.block = -1;
    if (b->count > g->cfg.block) return ES_ERR_ARG;
    CHECK(cudaMemcpy2DAsync(s.code, g->ld, b->code, g->cfg.slots, g->cfg.slots, b->count, cudaMemcpyHostToDevice,
                            g->s));
    CHECK(cudaMemcpyAsync(s.cnt, b->cnt, (size_t)b->count * sizeof(uint32_t[2]), cudaMemcpyHostToDevice, g->s));
    CHECK(cudaMemcpyAsync(s.tot, b->tot, (size_t)b->count * sizeof(long long[2]), cudaMemcpyHostToDevice, g->s));
    CHECK(cudaStreamSynchronize(g->s)); /* the caller may reuse its buffers */
    s.block = (long)b->index;
    s.lru = ++g->clock;
    *out = lru;
    return ES_OK;
}

static gq_block dev_block(const es_gpu_qt_t *g, int slot, const es_gpu_qt_block_t *b)
{
    gq_block o;
    o.code = g->slots[slot].code;
    o.cnt = g->slots[slot].cnt;
    o.tot = g->slots[slot].tot;
    o.count = b->count;
    o.first = b->first;
    return o;
}

extern "C" int es_gpu_qt_tile(es_gpu_qt_t *g, const es_gpu_qt_block_t *a, const es_gpu_qt_block_t *b, double tau,
                              const es_gpu_qt_cand_t **cand, size_t *n)
{
    *cand = NULL;
    *n = 0;
    CHECK(cudaSetDevice(g->dev));
    int sa, sb, pb = -1;
    for (int i = 0; i < g->n_slots; i++)
        if (g->slots[i].block == (long)b->index) pb = i; /* not evicted for a */
    int ret = slot_of(g, a, pb, &sa);
    if (!ret) ret = slot_of(g, b, sa, &sb);
    if (ret) return ret;
    gq_params P;
    memset(&P, 0, sizeof P);
    P.A = dev_block(g, sa, a);
    P.B = dev_block(g, sb, b);
    P.diag = a->index == b->index;
    P.ld = g->ld;
    P.h = g->d_h;
    P.n = g->cfg.n;
    P.sy = g->cfg.sy;
    P.syy = g->cfg.syy;
    P.u = 1.0 / g->cfg.scale;
    P.u2 = 1.0 / g->cfg.scale2;
    P.tau_host = tau;
    P.sig_min = g->cfg.sig_min;
    P.top_k = g->cfg.top_k ? g->cfg.top_k : 1;
    P.emit_all = g->cfg.emit_all;
    P.thr = g->d_thr;
    P.hist = g->d_hist;
    P.tau_bin = g->d_tau;
    P.n_cand = g->d_n;
    dim3 grid((b->count + GQ_TB - 1) / GQ_TB, (a->count + GQ_TA - 1) / GQ_TA);
    if (!grid.x || !grid.y) return ES_OK;
    CHECK(cudaEventRecord(g->e0, g->s));
    /* A diagonal tile is where its variants first meet (the queue hands
     * them out first): without thresholds, the CTAs of its first waves
     * would send back nearly every pair.  A first pass that only publishes
     * the lower bounds (per variant, and to the top-k histogram) lets the
     * second send back little more than each variant's best. */
    int warm = P.diag && !P.emit_all;
    if (warm) {
        P.no_emit = 1;
        P.update_hist = 1;
        gq_tile<<<grid, GQ_THREADS, 0, g->s>>>(P);
        CHECK(cudaGetLastError());
        P.no_emit = 0;
    }
    for (int pass = 0;; pass++) {
        P.update_hist = pass == 0 && !warm; /* a re-run's pairs are in the histogram already */
        P.cand = g->d_cand;
        P.cap = g->cap;
        CHECK(cudaMemsetAsync(g->d_n, 0, 4, g->s));
        gq_tile<<<grid, GQ_THREADS, 0, g->s>>>(P);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(g->h_n, g->d_n, 4, cudaMemcpyDeviceToHost, g->s));
        CHECK(cudaStreamSynchronize(g->s));
        if (*g->h_n <= g->cap) break;
        /* more candidates than room: grow, and count the tile again (the
         * thresholds only rose, so no pair that mattered is lost) */
        uint32_t want = *g->h_n + *g->h_n / 4;
        cudaFree(g->d_cand);
        cudaFreeHost(g->h_cand);
        g->d_cand = NULL;
        g->h_cand = NULL;
        g->cap = 0;
        CHECK(cudaMalloc(&g->d_cand, (size_t)want * sizeof(es_gpu_qt_cand_t)));
        CHECK(cudaMallocHost(&g->h_cand, (size_t)want * sizeof(es_gpu_qt_cand_t)));
        g->cap = want;
    }
    uint32_t nc = *g->h_n;
    if (nc) {
        unsigned blocks = (unsigned)(((size_t)nc * 32 + 255) / 256);
        gq_exact<<<blocks, 256, 0, g->s>>>(g->d_cand, nc, P.A, P.B, g->ld, g->d_q);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(g->h_cand, g->d_cand, (size_t)nc * sizeof(es_gpu_qt_cand_t), cudaMemcpyDeviceToHost,
                              g->s));
    }
    CHECK(cudaEventRecord(g->e1, g->s));
    CHECK(cudaStreamSynchronize(g->s));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, g->e0, g->e1));
    g->t_kernel += ms * 1e-3;
    *cand = g->h_cand;
    *n = nc;
    return ES_OK;
}

/* ---- the test hook: the per-pair decisions alone ------------------------------- */

__global__ void gq_bound_kernel(const es_gpu_qt_pair_t *p, size_t n, double u, double u2, uint8_t *fail,
                                uint8_t *cert, double *zsq, double *zlo)
{
    size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k >= n) return;
    const es_gpu_qt_pair_t &x = p[k];
    uint32_t nn[9];
    for (int c = 0; c < 9; c++) nn[c] = x.n[c];
    gq_dsums d;
    d.sy = (double)x.sy * u;
    d.syy = (double)x.syy * u2;
    d.say = (double)(x.ra[0] + 2 * x.ra[1]) * u;
    d.sby = (double)(x.cb[0] + 2 * x.cb[1]) * u;
    d.saby = (double)(x.hi << 24) * u;
    d.quantum = 0.5 * u;
    long long wb = (long long)(nn[4] + 2 * nn[5] + nn[7] + 2 * nn[8]);
    double x1 = (double)((x.hi << 24) + wb * ((1 << 24) - 1)) * u;
    gq_prep pr;
    fail[k] = (uint8_t)gq_prep_of(nn, pr);
    cert[k] = 0;
    zsq[k] = zlo[k] = 0;
    if (!fail[k]) {
        double z = 0, lo = 0;
        cert[k] = (uint8_t)gq_bound(nn, pr, d, x1, &z, &lo);
        zsq[k] = z;
        zlo[k] = lo;
    }
}

static int bound_test(int dev, const es_gpu_qt_pair_t *p, size_t n, double scale, double scale2, uint8_t *fail,
                      uint8_t *cert, double *zsq, double *zlo, void **mem)
{
    CHECK(cudaSetDevice(dev));
    size_t bytes = n * (sizeof *p + 2 + 2 * sizeof(double));
    CHECK(cudaMalloc(mem, bytes ? bytes : 1));
    es_gpu_qt_pair_t *dp = (es_gpu_qt_pair_t *)*mem;
    double *dz = (double *)(dp + n), *dl = dz + n;
    uint8_t *df = (uint8_t *)(dl + n), *dc = df + n;
    CHECK(cudaMemcpy(dp, p, n * sizeof *p, cudaMemcpyHostToDevice));
    if (n) {
        gq_bound_kernel<<<(unsigned)((n + 127) / 128), 128>>>(dp, n, 1.0 / scale, 1.0 / scale2, df, dc, dz, dl);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaMemcpy(fail, df, n, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(cert, dc, n, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(zsq, dz, n * sizeof(double), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(zlo, dl, n * sizeof(double), cudaMemcpyDeviceToHost));
    return ES_OK;
}

extern "C" int es_gpu_qt_bound_test(int dev, const es_gpu_qt_pair_t *p, size_t n, double scale, double scale2,
                                    uint8_t *fail, uint8_t *cert, double *zsq, double *zlo)
{
    void *mem = NULL;
    int ret = bound_test(dev, p, n, scale, scale2, fail, cert, zsq, zlo, &mem);
    if (mem) cudaFree(mem);
    return ret;
}
