/* count_ws.cu -- the persistent, warp-specialised Hopper (sm_90a) tile
 * kernel of two-plane scans (--gpu-kernel ws): the statistic of two tiles
 * runs while the tensor cores compute the next.
 *
 * One CTA per SM, 28 warps in seven warpgroups, each with one role:
 *   warps 0-7   (threads 0-255)   two consumer warpgroups: wgmma of the
 *               tile (the 64 x 32-variant, BM 128 x BN 64 two-plane tile of
 *               wgmma_common.cuh), then the accumulators as 16-bit products
 *               into the tile's product buffer (gk_lay_ws16, lay16.cuh); two
 *               stages' wgmma groups in flight (stage s + 1 issued before
 *               stage s retires), so the tensor cores never wait for the
 *               consumers between the stages of a class;
 *   warps 8-15  (threads 256-511) epilogue group 0 and
 *   warps 16-23 (threads 512-767) epilogue group 1: gk_epilogue on the
 *               products, group g on the CTA's tiles k with k % 2 == g (its
 *               own named barrier g + 1, ws_grp; its own product buffer
 *               and gk_epi_smem), so two tiles are scored at once, as by the
 *               fused kernel's two CTAs an SM, while the consumers compute a
 *               third;
 *   warps 24-27 the producer's warpgroup: lane 0 of each warp issues a
 *               quarter of the bulk tensor copies (wgmma_tma.cuh's maps, no
 *               cluster) into a ring of WS_STAGES stages of 24 KB; the
 *               warpgroup gives its registers to the epilogue (setmaxnreg).
 * The CTAs take tiles t = blockIdx.x, blockIdx.x + gridDim.x, ... of the
 * row-major tile grid (consecutive CTAs share an A tile in L2), skipping
 * those wholly below the diagonal; every role walks the same list, so no
 * tile index is handed between them.  Static striding rather than an
 * atomic queue: the roles of a CTA must agree on the tile sequence ahead of
 * time (the producer runs stages ahead, an epilogue group loads its next
 * tile's constants early), and with ~1,000 tiles a CTA the imbalance is a
 * tile.
 *
 * Synchronisation, all by mbarriers in shared memory (phase parities count
 * the uses of each barrier; a fresh barrier's wait on parity 1 passes):
 *   full[b]   1 arrival (producer warp 0's expect_tx) + the stage's bytes
 *             (the four producer warps' copies);
 *   empty[b]  one arrival per consumer warpgroup once its wgmma reads of
 *             buffer b retired (wait_group 1 after the next stage's issue,
 *             wait_group 0 at a class's last stage);
 *   efull[g]  256 arrivals: the consumers' products of a tile of group g
 *             are stored in product buffer g;
 *   eempty[g] 256 arrivals: group g no longer reads them.
 * Every wait sleeps until its phase completes (gk_mbar_wait_sleep): a
 * waiting warp takes no issue slots from the epilogue groups, which set the
 * pace of the late tiles (doc/BENCHMARKS.md, "The steady-state tile").
 * BOOST launches whose blocks both had a tile on the device run without the
 * in-tile fits (k_ws<STAT, false>, launch_ws), as the fused kernel's do.
 *
 * Budget of an SM (issue 24): 896 threads launched at 72 registers a thread
 * (65,536 / 896, rounded down to 8); the producer's warpgroup drops to 24
 * and the consumers, which accumulate one class at a time (32 registers),
 * to 64; the epilogue groups take what that frees, up to 88 (the fused
 * kernel's epilogue has 128; at 72 the screen spilled to local memory).
 * Shared memory (dynamic, 1024-aligned by the kernel): ring (4 x 24 KB) |
 * two product buffers of 32 KB (16-bit products: the launch falls back to
 * the wgmma tiles when a class's padded words could count 65,536) | two
 * gk_epi_smem (one a group: a group loads its next tile's constants once
 * its current tile is scored, while the consumers still compute that next
 * tile) | barriers: 225,760 bytes (a fifth stage would need 24,576 of the
 * 6,688 left). */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#include "epistream.h"
#include "gpu.h"
#include "cuda_check.h"
#include "params.cuh"
#include "layout.cuh"
#include "epilogue.cuh"
#include "launch.cuh"
#include "wgmma_common.cuh"
#include "wgmma_tma.cuh"
#include "lay16.cuh"

namespace {

using WS = gk_wg_shape<2>;
constexpr int WS_STAGES = 4;
constexpr int WS_CONS = 256;                /* consumer threads: 0 .. 255 */
constexpr int WS_EPI0 = 256, WS_EPI = 256;  /* epilogue group g: threads WS_EPI0 + g * WS_EPI .. */
constexpr int WS_GROUPS = 2;
constexpr int WS_PROD0 = WS_EPI0 + WS_GROUPS * WS_EPI; /* the producer's warpgroup */
constexpr int WS_THREADS = WS_PROD0 + 128;
/* Registers a thread after setmaxnreg.  The CTA is launched at 72 a thread
 * (65,536 / 896, rounded down to 8); registers given back by one warpgroup
 * go to the CTA's pool, the only source of another's increase.  The
 * consumers accumulate one class at a time (32 accumulators) and keep 64;
 * so the producer's warpgroup returns 128 x 48 = 6,144, the consumers
 * 256 x 8 = 2,048, and the epilogue groups take 512 x 16 = 8,192: 88 a
 * thread. */
constexpr int WS_REG_LAUNCH = 72, WS_REG_PROD = 24, WS_REG_CONS = 64, WS_REG_EPI = 88;
static_assert(WS_REG_LAUNCH * WS_THREADS <= 65536 && (WS_REG_LAUNCH + 8) * WS_THREADS > 65536, "the launch's cap");
static_assert(128 * (WS_REG_LAUNCH - WS_REG_PROD) + WS_CONS * (WS_REG_LAUNCH - WS_REG_CONS) >=
                  WS_GROUPS * WS_EPI * (WS_REG_EPI - WS_REG_LAUNCH),
              "the pool covers the epilogue");
constexpr int WS_RING = WS_STAGES * WS::STAGE_BYTES;
constexpr int WS_PROD = WS::BN / 8 * 2 * GK_THREADS * 8; /* gk_lay_ws16: 8 fragments x 2 classes x 8 bytes */
constexpr int WS_EPIB = (int)((sizeof(gk_epi_smem<WS::VM, WS::VN>) + 15) / 16 * 16);
constexpr int WS_BARS = (2 * WS_STAGES + 2 * WS_GROUPS) * 8;
constexpr int WS_SMEM = 1024 + WS_RING + WS_GROUPS * (WS_PROD + WS_EPIB) + WS_BARS;
static_assert(WS_SMEM <= 227 * 1024, "fits an SM's shared memory");
static_assert(WS_CONS == GK_THREADS && WS_CONS == WS::THREADS, "the consumers store gk_lay_ws16 by threadIdx.x");
static_assert(WS_EPI == GK_THREADS, "an epilogue group scores a tile as a CTA does");
/* 16-bit products (lay16.cuh) */
constexpr uint32_t WS_KW_MAX = GK_P16_KW_MAX;
/* Measurement probes (EPISTREAM_GPU_WS, read at each launch; wrong outputs,
 * timing only: doc/BENCHMARKS.md, "The steady-state tile"):
 * WS_PROBE_NOEPI the epilogue groups hand each product buffer back at once
 * (the consumers' and the producer's pace alone); WS_PROBE_NOMMA the
 * consumers compute a CTA's first two tiles only and then hand the same
 * products to the epilogue again (no ring traffic: the epilogue's pace
 * alone, on real products of other pairs). */
constexpr int WS_PROBE_NOEPI = 1, WS_PROBE_NOMMA = 2, WS_FITS = 4, WS_SPIN = 8;

#if GK_WG_SM90A
/* Pins (zero: zeroes) a class's accumulators, as gk_wg_acc_pin does. */
__device__ __forceinline__ void ws_acc_pin(int (&acc)[WS::ACC], bool zero)
{
#pragma unroll
    for (int i = 0; i < WS::ACC; i++) {
        if (zero) acc[i] = 0;
        gk_wg_fence_reg(acc[i]);
    }
}

/* The first of tiles t, t + step, ... with pairs to score (not wholly below
 * the diagonal or beyond a pre-pass's band: n if none); its first variants
 * in *a0, *b0. */
__device__ __forceinline__ int ws_next(const gk_params &P, int nx, int n, int t, int step, int *a0, int *b0)
{
    for (; t < n; t += step) {
        *a0 = t / nx * WS::VM;
        *b0 = t % nx * WS::VN;
        if (!gk_tile_none(P, *a0, *b0, WS::VM, WS::VN)) break;
    }
    return t;
}

template <int R>
__device__ __forceinline__ void ws_reg_dec()
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R));
}
template <int R>
__device__ __forceinline__ void ws_reg_inc()
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(R));
}

/* Every wait of the kernel's roles on its mbarriers: suspended until the
 * phase completes (mode WS_SPIN: the spinning try_wait, as before). */
__device__ __forceinline__ void ws_wait(int mode, uint32_t bar, uint32_t parity)
{
    if (mode & WS_SPIN) gk_mbar_wait(bar, parity);
    else gk_mbar_wait_sleep(bar, parity);
}

/* The epilogue groups as gk_epilogue's thread group: group g is threads
 * 256 (g + 1) .. 256 (g + 2) - 1, meeting at named barrier g + 1 (so the id
 * is threadIdx.x / 256).  One type for both groups: the epilogue is compiled
 * once, and both groups run the same instructions (one copy in the
 * instruction cache). */
struct ws_grp {
    static_assert(WS_EPI0 == WS_EPI && WS_EPI == 256 && WS_GROUPS == 2, "group g + 1 = threadIdx.x / 256");
    static __device__ __forceinline__ int tid() { return (int)threadIdx.x & (WS_EPI - 1); }
    static __device__ __forceinline__ int size() { return WS_EPI; }
    static __device__ __forceinline__ void sync()
    {
        asm volatile("bar.sync %0, %1;\n" ::"r"(threadIdx.x >> 8), "n"(WS_EPI) : "memory");
    }
};

/* Epilogue group grp: the CTA's tiles k = grp, grp + 2, ... (every role's
 * k-th tile of ws_next's list), scored from its product buffer with its own
 * gk_epi_smem.  Its next tile's constants are loaded as soon as the
 * current one is scored: the consumers are then still computing it. */
template <int STAT, bool FITS>
__device__ __forceinline__ void ws_epi_group(const gk_params &P, int nx, int n, int grp, const uint32_t *prod,
                                             gk_epi_smem<WS::VM, WS::VN> &E, uint32_t efull, uint32_t eempty,
                                             int mode)
{
    const int step = (int)gridDim.x;
    int a0, b0;
    int t = ws_next(P, nx, n, (int)blockIdx.x, step, &a0, &b0);
    if (grp && t < n) t = ws_next(P, nx, n, t + step, step, &a0, &b0);
    if (mode & WS_PROBE_NOEPI) {
        for (uint32_t u = 0; t < n; u++) {
            ws_wait(mode, efull, u & 1u);
            gk_mbar_arrive(eempty);
            for (int i = 0; i < WS_GROUPS && t < n; i++) t = ws_next(P, nx, n, t + step, step, &a0, &b0);
        }
        return;
    }
    for (uint32_t u = 0; t < n; u++) {
        ws_grp::sync(); /* every thread of the group is done with E (the tile before) */
        gk_epi_load_consts<STAT, 2, WS::VM, WS::VN, ws_grp>(P, a0, b0, E);
        ws_wait(mode, efull, u & 1u);
        gk_consts_wait();
        ws_grp::sync(); /* the constants are published */
        gk_epilogue<STAT, gk_lay_ws16, WS::VM, WS::VN, ws_grp, FITS>(P, prod, a0, b0, E);
        gk_mbar_arrive(eempty);
        for (int i = 0; i < WS_GROUPS && t < n; i++) t = ws_next(P, nx, n, t + step, step, &a0, &b0);
    }
}
#endif

template <int STAT, bool FITS>
__global__ void __launch_bounds__(WS_THREADS, 1) k_ws(gk_params P, const __grid_constant__ gk_wg_maps M, int mode)
{
#if GK_WG_SM90A
    constexpr int VM = WS::VM, VN = WS::VN, BM = WS::BM, BN = WS::BN, ROWB = WS::ROWB, STAGE = WS::STAGE_BYTES;
    constexpr int ACC = WS::ACC, SW = GK_WG_SLICE_WORDS;
    extern __shared__ __align__(1024) unsigned char smem[];
    const uint32_t raw = gk_wg_smem_u32(smem);
    const uint32_t pad = ((raw + 1023u) & ~1023u) - raw;
    unsigned char *sm = smem + pad;
    const uint32_t ring = raw + pad;
    uint32_t *prod = (uint32_t *)(sm + WS_RING); /* buffer g at prod + g * WS_PROD / 4 */
    gk_epi_smem<VM, VN> *E = (gk_epi_smem<VM, VN> *)(sm + WS_RING + WS_GROUPS * WS_PROD);
    const uint32_t full = ring + (uint32_t)(WS_RING + WS_GROUPS * (WS_PROD + WS_EPIB)), empty = full + 8u * WS_STAGES;
    const uint32_t efull = empty + 8u * WS_STAGES, eempty = efull + 8u * WS_GROUPS; /* + 8 g */

    const int tid = threadIdx.x;
    const int nx = ((int)P.nb + VN - 1) / VN, n = nx * (((int)P.na + VM - 1) / VM);
    const int S0 = ((int)P.kw0 + SW - 1) / SW, NS = S0 + ((int)P.kw1 + SW - 1) / SW;

    if (tid == 0) {
        for (int i = 0; i < WS_STAGES; i++) {
            gk_mbar_init(full + 8u * i, 1u);
            gk_mbar_init(empty + 8u * i, (uint32_t)WS::WGS);
        }
        for (int g = 0; g < WS_GROUPS; g++) {
            gk_mbar_init(efull + 8u * g, (uint32_t)WS_CONS);
            gk_mbar_init(eempty + 8u * g, (uint32_t)WS_EPI);
        }
        gk_mbar_fence_init();
    }
    __syncthreads(); /* the last CTA-wide barrier: the roles part here */

    if (tid >= WS_PROD0) {
        /* the producer: lane 0 of each of the warpgroup's four warps (one
         * on each scheduler) issues a quarter of every stage's copies --
         * the A tile's 16-row groups gg with gg % 4 == its warp, warp 0
         * the stage's expected bytes, warp 3 the B rows.  One issuing
         * thread was the ring's limit: about 140 instructions a stage
         * (every copy is a uniform-datapath sequence), one stage every
         * 800-1,150 cycles (doc/BENCHMARKS.md, "The steady-state tile").
         * Copies may complete bytes on full[b] before warp 0's expect_tx:
         * the phase needs its one arrival, which comes with the expect. */
        static_assert(BM / 16 % 4 == 0 && WS_THREADS - WS_PROD0 == 128, "four producer warps, A groups in fours");
        ws_reg_dec<WS_REG_PROD>();
        const int pw = (tid - WS_PROD0) >> 5;
        if ((tid & 31) != 0) return;
        for (int y = 0; y < 2; y++) {
            gk_tma_prefetch(&M.a[y]);
            gk_tma_prefetch(&M.b[y]);
        }
        uint32_t g = 0, k = 0;
        int a0, b0;
        for (int t = ws_next(P, nx, n, (int)blockIdx.x, (int)gridDim.x, &a0, &b0); t < n;
             t = ws_next(P, nx, n, t + (int)gridDim.x, (int)gridDim.x, &a0, &b0), k++) {
            if ((mode & WS_PROBE_NOMMA) && k >= 2) break;
            for (int s = 0; s < NS; s++, g++) {
                const uint32_t buf = g % WS_STAGES, ph = (g / WS_STAGES) & 1u;
                ws_wait(mode, empty + 8u * buf, ph ^ 1u);
                const int y = s >= S0, w0 = (y ? s - S0 : s) * SW;
                const uint32_t st = ring + buf * (uint32_t)STAGE, bar = full + 8u * buf;
                if (pw == 0) gk_mbar_expect_tx(bar, (uint32_t)STAGE);
#pragma unroll
                for (int gg = 0; gg < BM / 16; gg += 4)
                    gk_tma_3d(st + (uint32_t)((gg + pw) * 16 * ROWB), &M.a[y], bar, w0, a0 + 8 * (gg + pw), 0, 0);
                if (pw == 3) gk_tma_2d(st + (uint32_t)(BM * ROWB), &M.b[y], bar, w0, 2 * b0);
            }
        }
        return;
    }

    if (tid < WS_CONS) {
        /* the consumers: the cases' products, stored as soon as the
         * tile's buffer is free, then the controls' in the same registers */
        ws_reg_dec<WS_REG_CONS>();
        const int wg = tid >> 7;
        uint32_t g = 0, k = 0;
        int a0, b0;
        for (int t = ws_next(P, nx, n, (int)blockIdx.x, (int)gridDim.x, &a0, &b0); t < n;
             t = ws_next(P, nx, n, t + (int)gridDim.x, (int)gridDim.x, &a0, &b0), k++) {
            const uint32_t e = k % WS_GROUPS, u = k / WS_GROUPS;
            uint32_t *pb = prod + e * (WS_PROD / 4);
            if ((mode & WS_PROBE_NOMMA) && k >= 2) {
                ws_wait(mode, eempty + 8u * e, (u & 1u) ^ 1u);
                gk_mbar_arrive(efull + 8u * e);
                continue;
            }
            int acc[ACC];
            /* stages s0 .. s1 - 1 of the ring into acc: stage s + 1's wgmma
             * group is issued before stage s's retires (wait_group 1), and
             * stage s is released once it has, so the tensor cores always
             * have the next stage queued; the class's last group is waited
             * for (wait_group 0) before acc is read */
            auto run = [&](int s0, int s1) {
                uint32_t prev = 0;
                for (int s = s0; s < s1; s++, g++) {
                    const uint32_t buf = g % WS_STAGES, ph = (g / WS_STAGES) & 1u;
                    ws_wait(mode, full + 8u * buf, ph);
                    gk_wg_issue<BM, BN>(ring + buf * (uint32_t)STAGE, wg, acc);
                    if (s > s0) {
                        gk_wg_wait<1>();
                        if ((tid & 127) == 0) gk_mbar_arrive(empty + 8u * prev);
                    }
                    prev = buf;
                }
                gk_wg_wait<0>();
                if (s1 > s0 && (tid & 127) == 0) gk_mbar_arrive(empty + 8u * prev);
            };
            ws_acc_pin(acc, true);
            run(0, S0);
            ws_acc_pin(acc, false);
            ws_wait(mode, eempty + 8u * e, (u & 1u) ^ 1u); /* group e is done with its last tile's products */
            gk_store16(pb, 0, acc);
            ws_acc_pin(acc, true);
            run(S0, NS);
            ws_acc_pin(acc, false);
            gk_store16(pb, 1, acc);
            gk_mbar_arrive(efull + 8u * e);
        }
        return;
    }

    /* the epilogue groups */
    ws_reg_inc<WS_REG_EPI>();
    const int grp = (tid - WS_EPI0) / WS_EPI;
    ws_epi_group<STAT, FITS>(P, nx, n, grp, prod + grp * (WS_PROD / 4), E[grp], efull + 8u * (uint32_t)grp,
                             eempty + 8u * (uint32_t)grp, mode);
#else
    (void)P;
    (void)M;
    (void)mode;
    __trap(); /* built without sm_90a: gk_ws_usable says so first */
#endif
}

/* EPISTREAM_GPU_WS (a measurement switch, read at each launch so that
 * bench_gpu -e can set it for one scan): noepi, nomma (the probes above;
 * wrong outputs), fits (BOOST's in-tile fits compiled into every launch,
 * as before), spin (the mbarrier waits without gk_mbar_wait_sleep's
 * suspension, as before): the same outputs; unset or empty: the kernel. */
int ws_mode()
{
    const char *v = getenv("EPISTREAM_GPU_WS");
    if (!v || !*v) return 0;
    static int warned = 0, probe_warned = 0;
    int probe = !strcmp(v, "noepi") ? WS_PROBE_NOEPI : !strcmp(v, "nomma") ? WS_PROBE_NOMMA : 0;
    if (probe) {
        if (!__atomic_exchange_n(&probe_warned, 1, __ATOMIC_RELAXED))
            fprintf(stderr, "[W::epistream] EPISTREAM_GPU_WS=%s: a timing probe of the ws kernel; its outputs "
                            "are wrong\n", v);
        return probe;
    }
    if (!strcmp(v, "fits")) return WS_FITS;
    if (!strcmp(v, "spin")) return WS_SPIN;
    if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
        fprintf(stderr, "[W::epistream] EPISTREAM_GPU_WS=%s: not noepi, nomma, fits or spin; ignored\n", v);
    return 0;
}

template <int STAT, bool FITS>
int launch_k(const gk_params &P, const gk_wg_maps &M, int grid, int mode, cudaStream_t st)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return (int)e;
    static thread_local int configured = -1;
    if (configured != dev) {
        e = cudaFuncSetAttribute(k_ws<STAT, FITS>, cudaFuncAttributeMaxDynamicSharedMemorySize, WS_SMEM);
        if (e != cudaSuccess) return (int)e;
        configured = dev;
    }
    k_ws<STAT, FITS><<<grid, WS_THREADS, WS_SMEM, st>>>(P, M, mode);
    return (int)cudaGetLastError();
}

template <int STAT>
int launch_ws(const gk_params &P, cudaStream_t st)
{
    const int nx = ((int)P.nb + WS::VN - 1) / WS::VN, n = nx * (((int)P.na + WS::VM - 1) / WS::VM);
    if (n == 0) return 0;
    gk_wg_maps M;
    if (gk_wg_maps_make(P, &M)) return (int)cudaErrorNotSupported;
    int dev = 0, sms = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess) return (int)e;
    const int mode = ws_mode(), grid = n < sms ? n : sms;
    /* BOOST's in-tile fits compiled in only where they can run, as for the
     * fused kernel (count_wgmma.cu's launch_fused): without them the
     * epilogue groups' 88 registers hold the screen (no spill, no stack) */
    if constexpr (STAT == GK_BOOST)
        if (!(mode & WS_FITS) && gk_boost_fitless(P))
            return launch_k<STAT, false>(P, M, grid, mode, st);
    return launch_k<STAT, true>(P, M, grid, mode, st);
}

} // namespace

int gk_launch_ws(const gk_params &P, int np, void *stream)
{
    /* three planes, or classes whose products need more than 16 bits: the
     * wgmma tiles */
    if (np != 2 || P.kw0 > WS_KW_MAX || P.kw1 > WS_KW_MAX) return gk_launch_wgmma(P, np, stream);
    return GK_STAT_DISPATCH(P.stat, launch_ws, P, (cudaStream_t)stream);
}

int gk_ws_usable(int dev) { return gk_wgmma_usable(dev) && gk_wg_maps_usable(); }

namespace {
template <int STAT>
int ws_warm()
{
    /* with the in-tile fits first: a scan's first tiles (and pre-passes) */
    gk_kernel_load(k_ws<STAT, true>);
    if constexpr (STAT == GK_BOOST) gk_kernel_load(k_ws<STAT, false>);
    return 0;
}
} // namespace

void gk_ws_warm(int stat, int np, uint32_t kw0, uint32_t kw1)
{
    /* the launches' choice (gk_launch_ws) */
    if (np != 2 || kw0 > WS_KW_MAX || kw1 > WS_KW_MAX) gk_wgmma_warm(stat, np, kw0, kw1);
    else (void)GK_STAT_DISPATCH(stat, ws_warm);
}

/* Measured on an H200 (doc/BENCHMARKS.md, 2026-11-29, branch ws24e), boost
 * and chi2: ws ran 1.10x the wgmma tiles' rate at N = 8,192 (four slices a
 * class) and its tile kernels 1.12x at 1,000,000 x 10,000 (five), and
 * 0.98-1.00x at N = 1,024 (one slice a class: nothing for the consumers'
 * pipeline to overlap).  With the fused kernel's cheaper epilogue (branch
 * epi24d) in the same tree and run (the lead's check): boost 1.03x at
 * N = 8,192 and tile kernels 1.02x at 1,000,000 x 10,000, chi2 0.98x.  So:
 * two planes, boost (chi2 no longer gains; the others are not measured),
 * 16-bit products, and at least eight slices of 16 words (1,024 samples) in
 * the two classes together. */
int gk_ws_auto(int stat, int np, uint32_t kw0, uint32_t kw1)
{
    const uint32_t sw = GK_WG_SLICE_WORDS;
    return np == 2 && stat == GK_BOOST && kw0 <= WS_KW_MAX && kw1 <= WS_KW_MAX &&
           (kw0 + sw - 1) / sw + (kw1 + sw - 1) / sw >= 8;
}
