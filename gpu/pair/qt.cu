/* qt.cu -- the quantitative-trait pair engine (`scan --stat linear` on a
 * GPU): one device's tiles of a scan without missing calls.
 *
 * What a pair needs (src/count/qt.c, doc/QT.md): its 3x3 genotype table and
 * the sum of a*b*q over the samples (q the phenotype in 39-bit fixed point);
 * every other sum is a per-variant total when no call is missing.  The
 * counting kernel (gq_count) gets them from integer tensor cores (mma.sync
 * m16n8k32 u8 x s8 into s32, sm_80+): the rows of an A variant are the top
 * two bytes of a*q (bits 24..39: the CPU bound's slices) and the indicators
 * [a = 1], [a = 2]; the rows of a B variant are b and [b = 1].  Their
 * products give
 *     D  = sum b floor(a q / 2^24)        (256 * (byte 4 . b) + byte 3 . b)
 *     n11 = [a=1].[b=1], n12 = ([a=1].b - n11) / 2, likewise n21, n22,
 * and the rest of the table from the variants' genotype counts.  Blocks are
 * uploaded as their bit planes and made codes (one byte a sample) by
 * gq_expand; the byte rows of a*q are built per stage in shared memory from
 * the codes and four per-sample byte tables of q.  The six products of each
 * pair go to device memory (24 bytes), for the epilogue kernel (gq_epi).
 *
 * There, each pair's failure rules and its z^2 bound on the interval [2^24 D,
 * 2^24 D + (2^24 - 1) sum_{a>0} b] are then the CPU's, bit for bit
 * (qt_linear.cuh; this file is compiled with -fmad=false).  A pair is kept
 * when it fails on its table, is not certified, or its bound reaches the
 * least of: the top-k level, the significance threshold, either variant's
 * best so far -- thresholds that are lower bounds of exact z^2 of real,
 * certified pairs (per variant, device-wide, atomicMax; the top-k level
 * from a histogram of one lower bound per CTA row, as the case/control
 * engine keeps it), and the host's exact k-th best.  A third kernel
 * (gq_exact) sums the kept pairs' a*b*q exactly (int64, CUDA cores); the
 * host scores them with the CPU's code, so the outputs are the CPU
 * backend's bytes -- while the device runs the next tile
 * (es_gpu_qt_start / es_gpu_qt_finish).
 * Every runtime call goes through CHECK (returns ES_ERR_GPU). */
#include <chrono>
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
#define GQ_NG 2                 /* 8-variant groups of B a warp (the rows loop's B ldmatrix loads two) */
#define GQ_TA (16 * GQ_WA)      /* A variants a CTA: 32 */
#define GQ_TB (8 * GQ_NG * GQ_WB) /* B variants a CTA: 64 */
#define GQ_BINS 2048            /* the top-k histogram: non-negative float keys >> 20 */
#define GQ_CAND_INIT (1u << 20)
#define GQ_CAND_FAST 16384      /* candidates copied back with a tile's pass (<= GQ_CAND_INIT) */
#define GQ_EXACT_BLOCKS 1024    /* gq_exact's grid: 8,192 warps */

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
    int *prod;                 /* the products of gq_count for gq_epi */
    uint32_t y0;               /* the band's first CTA row */
};

} // namespace

__device__ __forceinline__ void gq_mma(int *c, const uint32_t *a, uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/* four 8x8 b16 matrices (lanes 8j..8j+7 give matrix j's row addresses) */
__device__ __forceinline__ void gq_ldsm4(uint32_t *r, const void *smem)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s));
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

/* a CTA's thresholds (the epilogue's) */
struct gq_thr {
    unsigned long long rowlo[GQ_TA], collo[GQ_TB];
    double rowthr[GQ_TA], colthr[GQ_TB];
    double tau;
};

struct __align__(16) gq_smem {
    gq_stage st[2];
    uint8_t x[2][GQ_TA][GQ_LDS]; /* the rows main loop: the stage's bytes 3 and 4 of a*q */
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

/* The main loop: acc[ka][kb] (c-fragments of 16 A x 8 B variants, GQ_NG
 * groups of B) gets the products of A kind ka (byte 3 and byte 4 of a*q,
 * [a = 1], [a = 2]) with B kind kb (b, [b = 1]); (0, 1) and (1, 1) stay 0.
 * ROWS = false builds each A fragment from the codes and the per-sample
 * bytes of q as it is loaded (every warp along B again: the first kernel's
 * way); ROWS = true builds the stage's byte-3 and byte-4 rows of its 32 A
 * variants once into shared memory, and every fragment is an ldmatrix. */
template <bool ROWS>
__device__ __forceinline__ void gq_mainloop(const gq_params &P, gq_smem &S, uint32_t a0, uint32_t b0,
                                            int acc[4][GQ_NG][2][4])
{
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int wa = (warp % GQ_WA) * 16, wb = (warp / GQ_WA) * (8 * GQ_NG);
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
        if (ROWS) { /* the 32 A rows' bytes 3 and 4 of a*q: 16 samples a thread */
            int r = tid >> 3, c = (tid & 7) * 16;
            const uint4 cv = *(const uint4 *)&s.a[r][c];
            const uint4 h13 = *(const uint4 *)&s.h[0][c], h14 = *(const uint4 *)&s.h[1][c];
            const uint4 h23 = *(const uint4 *)&s.h[2][c], h24 = *(const uint4 *)&s.h[3][c];
            const uint32_t cw[4] = {cv.x, cv.y, cv.z, cv.w};
            const uint32_t w13[4] = {h13.x, h13.y, h13.z, h13.w}, w14[4] = {h14.x, h14.y, h14.z, h14.w};
            const uint32_t w23[4] = {h23.x, h23.y, h23.z, h23.w}, w24[4] = {h24.x, h24.y, h24.z, h24.w};
            uint32_t x3[4], x4[4];
#pragma unroll
            for (int w = 0; w < 4; w++) {
                uint32_t m1 = (cw[w] & 0x01010101u) * 0xffu, m2 = ((cw[w] >> 1) & 0x01010101u) * 0xffu;
                x3[w] = (w13[w] & m1) | (w23[w] & m2);
                x4[w] = (w14[w] & m1) | (w24[w] & m2);
            }
            *(uint4 *)&S.x[0][r][c] = make_uint4(x3[0], x3[1], x3[2], x3[3]);
            *(uint4 *)&S.x[1][r][c] = make_uint4(x4[0], x4[1], x4[2], x4[3]);
            __syncthreads();
        }
#pragma unroll
        for (int kk = 0; kk < GQ_KC; kk += 32) {
            uint32_t fa[4][4];
            if (ROWS) {
                /* ldmatrix x4: lanes 8j..8j+7 address matrix j's rows (j = 0..3:
                 * rows 0-7 / 8-15 of the warp's 16, samples kk / kk + 16) */
                const int row = wa + (lane & 7) + ((lane >> 3) & 1) * 8, col = kk + (lane >> 4) * 16;
                uint32_t c[4];
                gq_ldsm4(fa[0], &S.x[0][row][col]);
                gq_ldsm4(fa[1], &S.x[1][row][col]);
                gq_ldsm4(c, &s.a[row][col]);
#pragma unroll
                for (int i = 0; i < 4; i++) {
                    fa[2][i] = c[i] & 0x01010101u;
                    fa[3][i] = (c[i] >> 1) & 0x01010101u;
                }
            } else {
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
            }
            uint32_t fb[2 * GQ_NG];
            if (ROWS) {
                /* matrices: group 0 samples kk, kk + 16; group 1 the same */
                const int row = wb + (lane & 7) + (lane >> 4) * 8, col = kk + ((lane >> 3) & 1) * 16;
                gq_ldsm4(fb, &s.b[row][col]);
            } else {
#pragma unroll
                for (int ng = 0; ng < GQ_NG; ng++) {
                    int row = wb + 8 * ng + g;
                    fb[2 * ng] = *(const uint32_t *)&s.b[row][kk + 4 * t];
                    fb[2 * ng + 1] = *(const uint32_t *)&s.b[row][kk + 16 + 4 * t];
                }
            }
#pragma unroll
            for (int ng = 0; ng < GQ_NG; ng++) {
                uint32_t c0 = fb[2 * ng], c1 = fb[2 * ng + 1];
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
}

/* This CTA's tile corner (rows from P.y0: a tile may run in bands of CTA
 * rows); 0 when it holds no pair (a diagonal tile's pairs are a < b). */
__device__ __forceinline__ int gq_corner(const gq_params &P, uint32_t *a0, uint32_t *b0)
{
    *a0 = (blockIdx.y + P.y0) * GQ_TA;
    *b0 = blockIdx.x * GQ_TB;
    return !(P.diag && *a0 >= *b0 + GQ_TB - 1);
}

/* The products of a CTA's pairs: GQ_PROD ints a thread, thread-minor (a
 * warp's loads and stores are 128 coalesced bytes); the thread's pair (r,
 * ng, e) has its six at [((ng * 6 + k) * 4 + 2 r + e) * GQ_THREADS], k =
 * byte 3 . b, byte 4 . b, [a=1] . b, [a=1] . [b=1], [a=2] . b, [a=2] . [b=1]. */
#define GQ_PROD (24 * GQ_NG)
__device__ __forceinline__ int *gq_prod_of(const gq_params &P)
{
    return P.prod + (size_t)(blockIdx.y * gridDim.x + blockIdx.x) * GQ_PROD * GQ_THREADS + threadIdx.x;
}

/* The first kernel: the main loop, two CTAs an SM (101 to 106 registers);
 * its six products a pair to P.prod (24 bytes a pair, through L2). */
template <bool ROWS>
__global__ void __launch_bounds__(GQ_THREADS, 2) gq_count(const gq_params P)
{
    __shared__ gq_smem S;
    uint32_t a0, b0;
    if (!gq_corner(P, &a0, &b0)) return;
    int acc[4][GQ_NG][2][4];
    gq_mainloop<ROWS>(P, S, a0, b0, acc);
    int *o = gq_prod_of(P);
#pragma unroll
    for (int ng = 0; ng < GQ_NG; ng++) {
        const int *v[6] = {acc[0][ng][0], acc[1][ng][0], acc[2][ng][0], acc[2][ng][1], acc[3][ng][0], acc[3][ng][1]};
#pragma unroll
        for (int k = 0; k < 6; k++)
#pragma unroll
            for (int c = 0; c < 4; c++) o[((ng * 6 + k) * 4 + c) * GQ_THREADS] = v[k][c];
    }
}

/* pair (ng, c = 2 r + e)'s table and sums from its products */
__device__ __forceinline__ void gq_pair_at(const gq_params &P, const int *o, int ng, int c, uint32_t ia, uint32_t ib,
                                           uint32_t n[9], long long &hi, gq_dsums &d, double &x1)
{
    int v[6];
#pragma unroll
    for (int k = 0; k < 6; k++) v[k] = o[((ng * 6 + k) * 4 + c) * GQ_THREADS];
    gq_pair_of(P, ia, ib, v[0], v[1], v[2], v[3], v[5], v[4], n, hi, d, x1);
}

/* The second kernel: each pair's decisions and bound, the thresholds, and
 * the pairs that may matter out (run twice on a diagonal tile: thresholds,
 * then the pairs).  A thread's eight pairs one after the other, their
 * products loaded as they are needed: CTAS CTAs an SM hide the latencies
 * of the double-precision rules and bound (2: 128 registers, 4 bytes of
 * spills; 3, the default: 80 registers, 308 bytes, and 1-3 % faster whole
 * scans on the H200). */
template <int CTAS>
__global__ void __launch_bounds__(GQ_THREADS, CTAS) gq_epi(const gq_params P)
{
    __shared__ gq_thr T;
    __shared__ double zb[4 * GQ_NG][GQ_THREADS]; /* the pairs' bounds (INFINITY: none) */
    uint32_t a0, b0;
    if (!gq_corner(P, &a0, &b0)) return;
    const int *o = gq_prod_of(P);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int wa = (warp % GQ_WA) * 16, wb = (warp / GQ_WA) * (8 * GQ_NG);
    /* phase A: each pair's decisions and bounds; bit = (r GQ_NG + ng) 2 + e */
    if (tid < GQ_TA) T.rowlo[tid] = 0;
    if (tid < GQ_TB) T.collo[tid] = 0;
    __syncthreads();
    uint32_t keep = 0; /* bit: the pair is kept whatever the thresholds */
    uint32_t valid = 0;
    unsigned long long rbest0 = 0, rbest1 = 0; /* r = 0, 1 */
#pragma unroll 1
    for (int bit = 0; bit < 4 * GQ_NG; bit++) {
        const int r = bit / (2 * GQ_NG), ng = (bit >> 1) % GQ_NG, e = bit & 1;
        const uint32_t la = wa + g + 8 * r, lb = wb + 8 * ng + 2 * t + e;
        const uint32_t ia = a0 + la, ib = b0 + lb;
        zb[bit][tid] = INFINITY;
        if (ia >= P.A.count || ib >= P.B.count || (P.diag && ia >= ib)) continue;
        valid |= 1u << bit;
        uint32_t n[9];
        long long hi;
        gq_dsums d;
        double x1;
        gq_pair_at(P, o, ng, 2 * r + e, ia, ib, n, hi, d, x1);
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
        zb[bit][tid] = z;
        unsigned long long k = gq_key(lo);
        if (r) rbest1 = k > rbest1 ? k : rbest1;
        else rbest0 = k > rbest0 ? k : rbest0;
        atomicMax(&T.collo[lb], k);
    }
    if (rbest0) atomicMax(&T.rowlo[wa + g], rbest0);
    if (rbest1) atomicMax(&T.rowlo[wa + g + 8], rbest1);
    __syncthreads();

    /* phase B: publish the lower bounds (per variant; rows to the top-k
     * histogram), read back the thresholds */
    if (tid < GQ_TA + GQ_TB) {
        bool is_row = tid < GQ_TA;
        int r = is_row ? tid : tid - GQ_TA;
        unsigned long long k = is_row ? T.rowlo[r] : T.collo[r];
        uint32_t v = is_row ? a0 + r : b0 + r;
        bool ok = v < (is_row ? P.A.count : P.B.count);
        double thr = -INFINITY;
        if (ok) {
            unsigned long long *gp = &P.thr[(is_row ? P.A.first : P.B.first) + v];
            unsigned long long old = k ? atomicMax(gp, k) : *(volatile unsigned long long *)gp;
            if (old > k) k = old;
            thr = gq_unkey(k);
            if (is_row && P.update_hist && T.rowlo[r]) {
                float f = __double2float_rd(gq_unkey(T.rowlo[r]));
                uint32_t bin = __float_as_uint(f) >> 20;
                atomicAdd(&P.hist[bin], 1u);
                atomicMax(&P.tau_bin[1], bin);
            }
        }
        if (is_row) T.rowthr[r] = thr;
        else T.colthr[r] = thr;
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
            T.tau = lvl > P.tau_host ? lvl : P.tau_host;
        }
    }
    __syncthreads();

    /* phase C: emit what may matter */

    /* phase C: emit what may matter */
    if (P.no_emit) return;
    const double tau = T.tau < P.sig_min ? T.tau : P.sig_min;
#pragma unroll 1
    for (int bit = 0; bit < 4 * GQ_NG; bit++) {
        if (!((valid >> bit) & 1u)) continue;
        const int r = bit / (2 * GQ_NG), ng = (bit >> 1) % GQ_NG, e = bit & 1;
        const uint32_t la = wa + g + 8 * r, lb = wb + 8 * ng + 2 * t + e;
        double lim = tau;
        if (T.rowthr[la] < lim) lim = T.rowthr[la];
        if (T.colthr[lb] < lim) lim = T.colthr[lb];
        if (!P.emit_all && !((keep >> bit) & 1u) && zb[bit][tid] < lim) continue;
        uint32_t pos = atomicAdd(P.n_cand, 1u);
        if (pos >= P.cap) continue;
        es_gpu_qt_cand_t c;
        long long hi;
        gq_dsums d;
        double x1;
        gq_pair_at(P, o, ng, 2 * r + e, a0 + la, b0 + lb, c.n, hi, d, x1);
        c.i = P.A.first + a0 + la;
        c.j = P.B.first + b0 + lb;
        c.saby = hi;
        P.cand[pos] = c;
    }
}

/* The candidates' exact sums of a*b*q: one warp a candidate. */
/* candidate w's sum, by the lanes of one warp */
__device__ __forceinline__ void gq_exact1(es_gpu_qt_cand_t *cand, uint32_t w, uint32_t lane, const gq_block &A,
                                          const gq_block &B, uint32_t ld, const unsigned long long *q)
{
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

__global__ void gq_exact(es_gpu_qt_cand_t *cand, const uint32_t *n_cand, uint32_t cap, gq_block A, gq_block B,
                         uint32_t ld, const unsigned long long *q)
{
    const uint32_t n = *n_cand < cap ? *n_cand : cap, lane = threadIdx.x & 31;
    for (uint32_t w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; w < n; w += (gridDim.x * blockDim.x) >> 5)
        gq_exact1(cand, w, lane, A, B, ld, q);
}

/* A block's codes from its bit planes: 16 samples a thread, a variant a
 * grid column (code = bit of P1 + bit of P2 at slots < slots, else 0). */
__global__ void gq_expand(uint8_t *code, uint32_t ld, const uint64_t *planes, uint32_t words, uint32_t slots)
{
    const uint32_t v = blockIdx.x, s0 = (blockIdx.y * blockDim.x + threadIdx.x) * 16;
    if (s0 >= ld) return;
    uint32_t b1 = 0, b2 = 0;
    if (s0 < slots) {
        const uint64_t *p = planes + (size_t)v * 2 * words + s0 / 64;
        b1 = (uint32_t)(p[0] >> (s0 % 64)) & 0xffffu;
        b2 = (uint32_t)(p[words] >> (s0 % 64)) & 0xffffu;
    }
    uint32_t w[4];
#pragma unroll
    for (int k = 0; k < 4; k++) {
        uint32_t x = 0;
#pragma unroll
        for (int j = 0; j < 4; j++) x |= (((b1 >> (4 * k + j)) & 1u) + ((b2 >> (4 * k + j)) & 1u)) << (8 * j);
        w[k] = x;
    }
    *(uint4 *)(code + (size_t)v * ld + s0) = make_uint4(w[0], w[1], w[2], w[3]);
}

/* ---- the engine ---------------------------------------------------------------- */

enum { GQ_SPLIT, GQ_ROWS };

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
    es_gpu_qt_cand_t *d_cand, *h_cand[2]; /* host: two tiles' (one scored while the next runs) */
    uint32_t cap;              /* d_cand's */
    size_t h_cap[2];
    int hb;                    /* the host buffer of the pending tile */
    int pending;               /* a tile started, not finished */
    gq_params pend;
    dim3 pend_grid;
    int kernel;                /* GQ_ROWS, GQ_SPLIT */
    int epi_ctas;              /* gq_epi's CTAs an SM: 1, 2, 3 (default) */
    int *d_prod;               /* gq_count's products: prod_rows CTA rows of a tile */
    uint32_t prod_rows;
    cudaEvent_t e0, e1, em;
    double t_kernel, t_count, t_upload;
    uint64_t *d_planes;        /* a block's planes on their way to codes */
    size_t planes_cap;         /* bytes */
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
    cudaFree(g->d_prod);
    cudaFree(g->d_planes);
    if (g->h_n) cudaFreeHost(g->h_n);
    for (int b = 0; b < 2; b++)
        if (g->h_cand[b]) cudaFreeHost(g->h_cand[b]);
    if (g->e0) cudaEventDestroy(g->e0);
    if (g->e1) cudaEventDestroy(g->e1);
    if (g->em) cudaEventDestroy(g->em);
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
    CHECK(cudaEventCreate(&g->em));
    /* the kernels: the rows main loop and the epilogue at three CTAs an SM
     * (H200, same run: whole scans 1-3 % faster than at two, 20 % than at
     * one) unless EPISTREAM_GPU_QT_KERNEL says split (the A fragments built
     * as they are loaded) and/or /1 or /2 (the epilogue's CTAs an SM): for
     * comparisons */
    g->kernel = GQ_ROWS;
    g->epi_ctas = 3;
    if (const char *k = getenv("EPISTREAM_GPU_QT_KERNEL")) {
        size_t l = strcspn(k, "/");
        int ok = 1;
        if (l == 5 && !strncmp(k, "split", 5)) g->kernel = GQ_SPLIT;
        else if (l && !(l == 4 && !strncmp(k, "rows", 4))) ok = 0;
        if (k[l]) {
            if (k[l + 1] >= '1' && k[l + 1] <= '3' && !k[l + 2]) g->epi_ctas = k[l + 1] - '0';
            else ok = 0;
        }
        if (!ok) {
            fprintf(stderr, "[E::es_gpu_qt_open] EPISTREAM_GPU_QT_KERNEL=%s: not rows or split, then /1, /2 "
                            "or /3\n", k);
            return ES_ERR_ARG;
        }
    }
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
    for (int b = 0; b < 2; b++) { /* pinned memory is slow to get: what a pass sends back, grown when needed */
        CHECK(cudaMallocHost(&g->h_cand[b], (size_t)GQ_CAND_FAST * sizeof(es_gpu_qt_cand_t)));
        g->h_cap[b] = GQ_CAND_FAST;
    }
    /* the block cache: every block when they fit, else as many as do (at least two) */
    size_t fr = 0, tot = 0;
    CHECK(cudaMemGetInfo(&fr, &tot));
    size_t avail = cfg->mem_limit && cfg->mem_limit < fr ? cfg->mem_limit : fr;
    avail = avail > ((size_t)512 << 20) ? avail - ((size_t)512 << 20) : avail / 2; /* room for candidates */
    {
        /* the products of a whole tile's CTAs when they take at most an eighth
         * of what is left and 2 GiB; else bands of CTA rows */
        size_t row = (size_t)((cfg->block + GQ_TB - 1) / GQ_TB) * GQ_PROD * GQ_THREADS * sizeof(int);
        uint32_t rows = (cfg->block + GQ_TA - 1) / GQ_TA;
        size_t cap = avail / 8 < ((size_t)2 << 30) ? avail / 8 : ((size_t)2 << 30);
        g->prod_rows = cap / row < rows ? (uint32_t)(cap / row) : rows;
        if (cfg->band_rows && cfg->band_rows < g->prod_rows) g->prod_rows = cfg->band_rows;
        if (!g->prod_rows) g->prod_rows = 1;
        CHECK(cudaMalloc(&g->d_prod, row * g->prod_rows));
        avail -= avail > row * g->prod_rows ? row * g->prod_rows : avail;
    }
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
extern "C" double es_gpu_qt_count_seconds(const es_gpu_qt_t *g) { return g ? g->t_count : 0.0; }
extern "C" double es_gpu_qt_upload_seconds(const es_gpu_qt_t *g) { return g ? g->t_upload : 0.0; }

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
    if (!b->code && (!b->planes || (uint64_t)b->words * 64 < g->cfg.slots)) return ES_ERR_ARG;
    auto t0 = std::chrono::steady_clock::now();
    if (b->code) {
        CHECK(cudaMemcpy2DAsync(s.code, g->ld, b->code, g->cfg.slots, g->cfg.slots, b->count, cudaMemcpyHostToDevice,
                                g->s));
    } else if (b->count) {
        size_t bytes = (size_t)b->count * 2 * b->words * 8;
        if (bytes > g->planes_cap) {
            CHECK(cudaStreamSynchronize(g->s));
            cudaFree(g->d_planes);
            g->d_planes = NULL;
            g->planes_cap = 0;
            CHECK(cudaMalloc(&g->d_planes, bytes));
            g->planes_cap = bytes;
        }
        CHECK(cudaMemcpyAsync(g->d_planes, b->planes, bytes, cudaMemcpyHostToDevice, g->s));
        dim3 grid(b->count, (g->ld / 16 + 127) / 128);
        gq_expand<<<grid, 128, 0, g->s>>>(s.code, g->ld, g->d_planes, b->words, g->cfg.slots);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaMemcpyAsync(s.cnt, b->cnt, (size_t)b->count * sizeof(uint32_t[2]), cudaMemcpyHostToDevice, g->s));
    CHECK(cudaMemcpyAsync(s.tot, b->tot, (size_t)b->count * sizeof(long long[2]), cudaMemcpyHostToDevice, g->s));
    CHECK(cudaStreamSynchronize(g->s)); /* the caller may reuse its buffers */
    g->t_upload += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
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

/* One pass of the tile in g->pend (count, epilogue; both on a diagonal
 * tile's first), every band, its candidates' exact sums, and the copy of
 * their number back. */
static int tile_pass(es_gpu_qt_t *g, int pass)
{
    gq_params P = g->pend;
    const dim3 grid = g->pend_grid;
    /* A diagonal tile is where its variants first meet (the queue hands
     * them out first): without thresholds, the CTAs of its first waves
     * would send back nearly every pair.  A first pass that only publishes
     * the lower bounds (per variant, and to the top-k histogram) lets the
     * second send back little more than each variant's best: the
     * products are counted once, the epilogue runs twice.  A tile too
     * large for the products buffer runs in bands of CTA rows, each band's
     * passes in turn. */
    const int warm = P.diag && !P.emit_all;
    const uint32_t band = g->prod_rows;
    P.prod = g->d_prod;
    P.cand = g->d_cand;
    P.cap = g->cap;
    CHECK(cudaMemsetAsync(g->d_n, 0, 4, g->s));
    for (uint32_t y0 = 0; y0 < grid.y; y0 += band) {
        dim3 gb(grid.x, grid.y - y0 < band ? grid.y - y0 : band);
        P.y0 = y0;
        if (g->kernel == GQ_ROWS) gq_count<true><<<gb, GQ_THREADS, 0, g->s>>>(P);
        else gq_count<false><<<gb, GQ_THREADS, 0, g->s>>>(P);
        CHECK(cudaGetLastError());
        if (y0 == 0 && pass == 0 && band >= grid.y) CHECK(cudaEventRecord(g->em, g->s));
        for (int w = warm && pass == 0; w >= 0; w--) {
            P.no_emit = w;
            P.update_hist = pass == 0 && (w || !warm); /* a re-run's pairs are in the histogram already */
            if (g->epi_ctas == 1) gq_epi<1><<<gb, GQ_THREADS, 0, g->s>>>(P);
            else if (g->epi_ctas == 3) gq_epi<3><<<gb, GQ_THREADS, 0, g->s>>>(P);
            else gq_epi<2><<<gb, GQ_THREADS, 0, g->s>>>(P);
            CHECK(cudaGetLastError());
        }
    }
    gq_exact<<<GQ_EXACT_BLOCKS, 256, 0, g->s>>>(g->d_cand, g->d_n, g->cap, P.A, P.B, g->ld, g->d_q);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(g->h_n, g->d_n, 4, cudaMemcpyDeviceToHost, g->s));
    return ES_OK;
}

/* host candidate buffer b holding n at least; *fresh = 1 when it had to be
 * allocated again (what it held is gone) */
static int host_room(es_gpu_qt_t *g, int b, size_t n, int *fresh)
{
    *fresh = 0;
    if (n <= g->h_cap[b]) return ES_OK;
    *fresh = 1;
    cudaFreeHost(g->h_cand[b]);
    g->h_cand[b] = NULL;
    g->h_cap[b] = 0;
    CHECK(cudaMallocHost(&g->h_cand[b], n * sizeof(es_gpu_qt_cand_t)));
    g->h_cap[b] = n;
    return ES_OK;
}

extern "C" int es_gpu_qt_start(es_gpu_qt_t *g, const es_gpu_qt_block_t *a, const es_gpu_qt_block_t *b, double tau)
{
    if (g->pending) return ES_ERR_ARG;
    CHECK(cudaSetDevice(g->dev));
    int sa, sb, pb = -1;
    for (int i = 0; i < g->n_slots; i++)
        if (g->slots[i].block == (long)b->index) pb = i; /* not evicted for a */
    int ret = slot_of(g, a, pb, &sa);
    if (!ret) ret = slot_of(g, b, sa, &sb);
    if (ret) return ret;
    gq_params &P = g->pend;
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
    g->pend_grid = dim3((b->count + GQ_TB - 1) / GQ_TB, (a->count + GQ_TA - 1) / GQ_TA);
    g->pending = 1;
    *g->h_n = 0;
    if (!g->pend_grid.x || !g->pend_grid.y) return ES_OK;
    CHECK(cudaEventRecord(g->e0, g->s));
    ret = tile_pass(g, 0);
    if (ret) return ret;
    /* the first candidates come back with the pass (the rest, if any, in
     * es_gpu_qt_finish()) */
    CHECK(cudaMemcpyAsync(g->h_cand[g->hb], g->d_cand, (size_t)GQ_CAND_FAST * sizeof(es_gpu_qt_cand_t),
                          cudaMemcpyDeviceToHost, g->s));
    CHECK(cudaEventRecord(g->e1, g->s));
    return ES_OK;
}

extern "C" int es_gpu_qt_finish(es_gpu_qt_t *g, const es_gpu_qt_cand_t **cand, size_t *n)
{
    *cand = NULL;
    *n = 0;
    if (!g->pending) return ES_ERR_ARG;
    g->pending = 0;
    if (!g->pend_grid.x || !g->pend_grid.y) return ES_OK;
    CHECK(cudaSetDevice(g->dev));
    CHECK(cudaStreamSynchronize(g->s));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, g->e0, g->e1));
    g->t_kernel += ms * 1e-3;
    if (g->prod_rows >= g->pend_grid.y) { /* one band: the counting kernel's own time */
        CHECK(cudaEventElapsedTime(&ms, g->e0, g->em));
        g->t_count += ms * 1e-3;
    }
    const int hb = g->hb;
    uint32_t nc = *g->h_n;
    if (nc <= GQ_CAND_FAST) { /* all back already */
        *cand = g->h_cand[hb];
        *n = nc;
        g->hb ^= 1; /* the next tile's candidates go to the other buffer */
        return ES_OK;
    }
    CHECK(cudaEventRecord(g->e0, g->s));
    int grew = 0;
    for (int pass = 1; *g->h_n > g->cap; pass++) {
        /* more candidates than room: grow, and count the tile again (the
         * thresholds only rose, so no pair that mattered is lost) */
        uint32_t want = *g->h_n + *g->h_n / 4;
        cudaFree(g->d_cand);
        g->d_cand = NULL;
        g->cap = 0;
        CHECK(cudaMalloc(&g->d_cand, (size_t)want * sizeof(es_gpu_qt_cand_t)));
        g->cap = want;
        int ret = tile_pass(g, pass);
        if (ret) return ret;
        CHECK(cudaStreamSynchronize(g->s));
        grew = 1;
    }
    nc = *g->h_n;
    int fresh;
    int ret = host_room(g, hb, nc, &fresh);
    if (ret) return ret;
    size_t done = grew || fresh ? 0 : GQ_CAND_FAST; /* the pass's first candidates, unless they are gone */
    CHECK(cudaMemcpyAsync(g->h_cand[hb] + done, g->d_cand + done, (size_t)(nc - done) * sizeof(es_gpu_qt_cand_t),
                          cudaMemcpyDeviceToHost, g->s));
    CHECK(cudaEventRecord(g->e1, g->s));
    CHECK(cudaStreamSynchronize(g->s));
    CHECK(cudaEventElapsedTime(&ms, g->e0, g->e1));
    g->t_kernel += ms * 1e-3;
    *cand = g->h_cand[hb];
    *n = nc;
    g->hb ^= 1; /* the next tile's candidates go to the other buffer */
    return ES_OK;
}

extern "C" int es_gpu_qt_tile(es_gpu_qt_t *g, const es_gpu_qt_block_t *a, const es_gpu_qt_block_t *b, double tau,
                              const es_gpu_qt_cand_t **cand, size_t *n)
{
    *cand = NULL;
    *n = 0;
    int ret = es_gpu_qt_start(g, a, b, tau);
    if (ret) {
        g->pending = 0;
        return ret;
    }
    return es_gpu_qt_finish(g, cand, n);
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
