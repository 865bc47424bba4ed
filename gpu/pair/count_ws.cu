/* count_ws.cu -- the persistent, warp-specialised Hopper (sm_90a) tile
 * kernel of two-plane scans (--gpu-kernel ws): the statistic of one tile
 * runs while the tensor cores compute the next.
 *
 * One CTA per SM, 20 warps in five warpgroups, each with one role:
 *   warps 0-7   (threads 0-255)   two consumer warpgroups: wgmma of the
 *               tile (the 64 x 32-variant, BM 128 x BN 64 two-plane tile of
 *               wgmma_common.cuh), then the accumulators as products into
 *               shared memory (gk_lay_wg, as k_wgmma stores them);
 *   warps 8-15  (threads 256-511) the epilogue group: gk_epilogue on those
 *               products (named barrier 1; gk_grp_named), the per-tile
 *               constants of the next tile loaded while this one is scored;
 *   warps 16-19 the producer's warpgroup: one lane issuing the bulk tensor
 *               copies (wgmma_tma.cuh's maps, no cluster) into a ring of
 *               WS_STAGES stages of 24 KB; the warpgroup gives its registers
 *               to the others (setmaxnreg).
 * The CTAs take tiles t = blockIdx.x, blockIdx.x + gridDim.x, ... of the
 * row-major tile grid (consecutive CTAs share an A tile in L2), skipping
 * those wholly below the diagonal; every role walks the same list, so no
 * tile index is handed between them.  Static striding rather than an
 * atomic queue: the roles of a CTA must agree on the tile sequence ahead of
 * time (the producer runs stages ahead, the epilogue loads the next tile's
 * constants early), and with ~1,000 tiles a CTA the imbalance is a tile.
 *
 * Synchronisation, all by mbarriers in shared memory (phase parities count
 * the uses of each barrier; a fresh barrier's wait on parity 1 passes):
 *   full[b]   1 arrival (the producer's expect_tx) + the stage's bytes;
 *   empty[b]  one arrival per consumer warpgroup once its wgmma reads of
 *             buffer b retired;
 *   efull     256 arrivals: the consumers' products of a tile are stored;
 *   eempty    256 arrivals: the epilogue group no longer reads them.
 * Shared memory (dynamic, 1024-aligned by the kernel): ring | products
 * (64 KB) | two gk_epi_smem (double-buffered constants) | barriers:
 * 225,744 bytes with 4 stages. */
#include <cstdio>
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

namespace {

using WS = gk_wg_shape<2>;
constexpr int WS_STAGES = 4;
constexpr int WS_CONS = 256;                /* consumer threads: 0 .. 255 */
constexpr int WS_EPI0 = 256, WS_EPI = 256;  /* the epilogue group */
constexpr int WS_THREADS = WS_CONS + WS_EPI + 128; /* + the producer's warpgroup */
/* Registers a thread after setmaxnreg.  The CTA is launched at 96 a thread
 * (65,536 / 640, rounded down to 8); registers given back by one warpgroup
 * go to the CTA's pool, the only source of another's increase.  So the
 * producer's warpgroup returns 128 x 72 = 9,216, the epilogue (the fused
 * kernels' 128) takes 256 x 32 = 8,192, and the consumers (64
 * accumulators) keep their 96. */
constexpr int WS_REG_LAUNCH = 96, WS_REG_PROD = 24, WS_REG_EPI = 128;
static_assert(128 * (WS_REG_LAUNCH - WS_REG_PROD) >= WS_EPI * (WS_REG_EPI - WS_REG_LAUNCH), "the pool covers the epilogue");
constexpr int WS_RING = WS_STAGES * WS::STAGE_BYTES;
constexpr int WS_PROD = WS::BN / 8 * 2 * GK_THREADS * 16; /* gk_lay_wg: 8 fragments x 2 classes x 16 bytes */
constexpr int WS_EPIB = (int)((sizeof(gk_epi_smem<WS::VM, WS::VN>) + 15) / 16 * 16);
constexpr int WS_BARS = (2 * WS_STAGES + 2) * 8;
constexpr int WS_SMEM = 1024 + WS_RING + WS_PROD + 2 * WS_EPIB + WS_BARS;
static_assert(WS_SMEM <= 227 * 1024, "fits an SM's shared memory");
static_assert(WS_CONS == GK_THREADS && WS_CONS == WS::THREADS, "the consumers store gk_lay_wg by threadIdx.x");
using ws_grp = gk_grp_named<WS_EPI0, WS_EPI, 1>;

#if GK_WG_SM90A
/* The first of tiles t, t + step, ... that is not wholly below the
 * diagonal (n: none); its first variants in *a0, *b0. */
__device__ __forceinline__ int ws_next(const gk_params &P, int nx, int n, int t, int step, int *a0, int *b0)
{
    for (; t < n; t += step) {
        *a0 = t / nx * WS::VM;
        *b0 = t % nx * WS::VN;
        if (!(P.diag && *b0 + WS::VN <= *a0)) break;
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
template <int N>
__device__ __forceinline__ void ws_cp_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
#endif

template <int STAT>
__global__ void __launch_bounds__(WS_THREADS, 1) k_ws(gk_params P, const __grid_constant__ gk_wg_maps M)
{
#if GK_WG_SM90A
    constexpr int VM = WS::VM, VN = WS::VN, BM = WS::BM, BN = WS::BN, ROWB = WS::ROWB, STAGE = WS::STAGE_BYTES;
    constexpr int ACC = WS::ACC, SW = GK_WG_SLICE_WORDS;
    extern __shared__ __align__(1024) unsigned char smem[];
    const uint32_t raw = gk_wg_smem_u32(smem);
    const uint32_t pad = ((raw + 1023u) & ~1023u) - raw;
    unsigned char *sm = smem + pad;
    const uint32_t ring = raw + pad;
    uint32_t *prod = (uint32_t *)(sm + WS_RING);
    gk_epi_smem<VM, VN> *E = (gk_epi_smem<VM, VN> *)(sm + WS_RING + WS_PROD);
    const uint32_t full = ring + (uint32_t)(WS_RING + WS_PROD + 2 * WS_EPIB), empty = full + 8u * WS_STAGES;
    const uint32_t efull = empty + 8u * WS_STAGES, eempty = efull + 8u;

    const int tid = threadIdx.x;
    const int nx = ((int)P.nb + VN - 1) / VN, n = nx * (((int)P.na + VM - 1) / VM);
    const int S0 = ((int)P.kw0 + SW - 1) / SW, NS = S0 + ((int)P.kw1 + SW - 1) / SW;

    if (tid == 0) {
        for (int i = 0; i < WS_STAGES; i++) {
            gk_mbar_init(full + 8u * i, 1u);
            gk_mbar_init(empty + 8u * i, (uint32_t)WS::WGS);
        }
        gk_mbar_init(efull, (uint32_t)WS_CONS);
        gk_mbar_init(eempty, (uint32_t)WS_EPI);
        gk_mbar_fence_init();
    }
    __syncthreads(); /* the last CTA-wide barrier: the roles part here */

    if (tid >= WS_CONS + WS_EPI) {
        /* the producer */
        ws_reg_dec<WS_REG_PROD>();
        if (tid != WS_CONS + WS_EPI) return;
        for (int y = 0; y < 2; y++) {
            gk_tma_prefetch(&M.a[y]);
            gk_tma_prefetch(&M.b[y]);
        }
        uint32_t g = 0;
        int a0, b0;
        for (int t = ws_next(P, nx, n, (int)blockIdx.x, (int)gridDim.x, &a0, &b0); t < n;
             t = ws_next(P, nx, n, t + (int)gridDim.x, (int)gridDim.x, &a0, &b0)) {
            for (int s = 0; s < NS; s++, g++) {
                const uint32_t buf = g % WS_STAGES, ph = (g / WS_STAGES) & 1u;
                gk_mbar_wait(empty + 8u * buf, ph ^ 1u);
                const int y = s >= S0, w0 = (y ? s - S0 : s) * SW;
                const uint32_t st = ring + buf * (uint32_t)STAGE, bar = full + 8u * buf;
                gk_mbar_expect_tx(bar, (uint32_t)STAGE);
#pragma unroll
                for (int gg = 0; gg < BM / 16; gg++)
                    gk_tma_3d(st + (uint32_t)(gg * 16 * ROWB), &M.a[y], bar, w0, a0 + 8 * gg, 0, 0);
                gk_tma_2d(st + (uint32_t)(BM * ROWB), &M.b[y], bar, w0, 2 * b0);
            }
        }
        return;
    }

    if (tid < WS_CONS) {
        /* the consumers */
        const int wg = tid >> 7;
        uint32_t g = 0, k = 0;
        int a0, b0;
        gk_wg_store_epi st{prod}; /* gk_lay_wg, as k_wgmma stores it */
        for (int t = ws_next(P, nx, n, (int)blockIdx.x, (int)gridDim.x, &a0, &b0); t < n;
             t = ws_next(P, nx, n, t + (int)gridDim.x, (int)gridDim.x, &a0, &b0), k++) {
            int acc0[ACC], acc1[ACC];
            gk_wg_acc_pin(acc0, acc1, true);
            auto step = [&](int(&acc)[ACC]) {
                const uint32_t buf = g % WS_STAGES, ph = (g / WS_STAGES) & 1u;
                gk_mbar_wait(full + 8u * buf, ph);
                gk_wg_issue<BM, BN>(ring + buf * (uint32_t)STAGE, wg, acc);
                gk_wg_wait<0>();
                if ((tid & 127) == 0) gk_mbar_arrive(empty + 8u * buf);
                g++;
            };
            int s = 0;
            for (; s < S0; s++) step(acc0);
            for (; s < NS; s++) step(acc1);
            gk_wg_acc_pin(acc0, acc1, false);
            gk_mbar_wait(eempty, (k & 1u) ^ 1u); /* the epilogue is done with the last tile's products */
            gk_wg_handoff<BN>(acc0, acc1, st);
            gk_mbar_arrive(efull);
        }
        return;
    }

    /* the epilogue group */
    ws_reg_inc<WS_REG_EPI>();
    uint32_t k = 0;
    int a0, b0, na0, nb0;
    int t = ws_next(P, nx, n, (int)blockIdx.x, (int)gridDim.x, &a0, &b0);
    if (t < n) gk_epi_load_consts<STAT, 2, VM, VN, ws_grp>(P, a0, b0, E[0]);
    while (t < n) {
        const int tn = ws_next(P, nx, n, t + (int)gridDim.x, (int)gridDim.x, &na0, &nb0);
        ws_grp::sync(); /* every thread is done with the other buffer (the tile before) */
        if (tn < n) {
            gk_epi_load_consts<STAT, 2, VM, VN, ws_grp>(P, na0, nb0, E[(k + 1) & 1u]);
            ws_cp_wait<1>(); /* this tile's constants landed, the next tile's may not */
        } else {
            ws_cp_wait<0>();
        }
        ws_grp::sync();
        gk_mbar_wait(efull, k & 1u);
        gk_epilogue<STAT, gk_lay_wg, VM, VN, ws_grp>(P, prod, a0, b0, E[k & 1u]);
        gk_mbar_arrive(eempty);
        t = tn;
        a0 = na0;
        b0 = nb0;
        k++;
    }
#else
    (void)P;
    (void)M;
    __trap(); /* built without sm_90a: gk_ws_usable says so first */
#endif
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
    static thread_local int configured = -1;
    if (configured != dev) {
        e = cudaFuncSetAttribute(k_ws<STAT>, cudaFuncAttributeMaxDynamicSharedMemorySize, WS_SMEM);
        if (e != cudaSuccess) return (int)e;
        configured = dev;
    }
    k_ws<STAT><<<n < sms ? n : sms, WS_THREADS, WS_SMEM, st>>>(P, M);
    return (int)cudaGetLastError();
}

} // namespace

int gk_launch_ws(const gk_params &P, int np, void *stream)
{
    if (np != 2) return gk_launch_wgmma(P, np, stream); /* three planes: the wgmma tiles */
    return GK_STAT_DISPATCH(P.stat, launch_ws, P, (cudaStream_t)stream);
}

int gk_ws_usable(int dev) { return gk_wgmma_usable(dev) && gk_wg_maps_usable(); }
