/* wgmma_tma.cuh -- the two-plane wgmma tile main loop fed by the bulk
 * tensor copy engine (TMA; gk_wg_tile_tma, EPISTREAM_GPU_LOAD=tma1|tma2|tma4):
 * the tensor maps, the mbarrier, bulk-copy and cluster wrappers, and the
 * loop, whose clusters share the A tile by multicast. */
#ifndef GK_WGMMA_TMA_CUH
#define GK_WGMMA_TMA_CUH

#include <stdint.h>

#include <cuda.h> /* CUtensorMap (the type only: maps are encoded through the runtime's driver entry point) */

#include "params.cuh"
#include "wgmma_common.cuh"

/* The bulk tensor copy (TMA) loader of the two-plane tile, gk_wg_tile_tma:
 * tensor maps of both blocks, one per class (index 0 cases, 1 controls),
 * encoded on the host (count_wgmma.cu) and passed by value as a
 * __grid_constant__ kernel parameter.  Elements are the 64-bit words.
 *   a[y]: 3-D {kw_y words, na variants, 2 planes}, strides (bytes) 2 words
 *         rows a variant, 1 row a plane; box {16, 8, 2}: plane 0 of eight
 *         variants, then plane 1 of the same eight -- gk_wg_arow's 16-row
 *         group, as it is;
 *   b[y]: 2-D {kw_y words, nb * 2 rows}; box {16, 64}: the tile's B rows.
 * Both based at the class's first word, 128-byte swizzle (the layout of
 * wgmma_common.cuh's header comment), out-of-range words and rows read as
 * zero, as the cp.async loader's zero fill. */
struct gk_wg_maps {
    CUtensorMap a[2], b[2];
};

/* The maps of P's blocks, encoded through the driver (count_wgmma.cu;
 * shared with the warp-specialised kernel, count_ws.cu): 0, or the
 * driver's CUresult.  gk_wg_maps_usable: 1 when the driver can encode them. */
int gk_wg_maps_make(const gk_params &P, gk_wg_maps *M);
int gk_wg_maps_usable();

/* Cluster sizes (CTAs along the B side, sharing one A tile) of the TMA
 * loader: 1 (no multicast), 2 or 4. */
#define GK_WG_CLUSTER_MAX 4

/* Shared memory of gk_wg_tile_tma: the stages, then 2 * STAGES mbarriers. */
constexpr int gk_wg_tma_smem_bytes() { return gk_wg_shape<2>::SMEM_BYTES + 2 * gk_wg_shape<2>::STAGES * 8; }

#if GK_WG_SM90A
/* mbarriers (shared::cta addresses), the bulk tensor copy and clusters. */
__device__ __forceinline__ void gk_mbar_init(uint32_t bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void gk_mbar_fence_init() { asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }
__device__ __forceinline__ void gk_mbar_expect_tx(uint32_t bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
/* Waits for the completion of the phase with parity `parity`. */
__device__ __forceinline__ void gk_mbar_wait(uint32_t bar, uint32_t parity)
{
    asm volatile("{\n"
                 ".reg .pred P1;\n"
                 "WAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
                 "@!P1 bra WAIT;\n"
                 "}\n" ::"r"(bar),
                 "r"(parity)
                 : "memory");
}
/* The same, the thread suspended until the phase completes (the hint, in
 * ns, only bounds the suspension): a waiting warp issues no instructions.
 * Without the hint try_wait returns after a few tens of cycles, and the
 * warp spinning on it takes issue slots from the others (the ws kernel's
 * producer and consumer warps: 14 % of the issued instructions of a late
 * tile, doc/BENCHMARKS.md, "The steady-state tile"). */
#define GK_MBAR_SLEEP_NS 100000u
__device__ __forceinline__ void gk_mbar_wait_sleep(uint32_t bar, uint32_t parity)
{
    asm volatile("{\n"
                 ".reg .pred P1;\n"
                 "WAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1, %2;\n"
                 "@!P1 bra WAIT;\n"
                 "}\n" ::"r"(bar),
                 "r"(parity), "n"(GK_MBAR_SLEEP_NS)
                 : "memory");
}
/* One arrival on this CTA's barrier. */
__device__ __forceinline__ void gk_mbar_arrive(uint32_t bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
/* One arrival on the barrier at the same shared offset in CTA `cta` of the
 * cluster (this CTA included), relaxed: what it announces -- this
 * warpgroup's wgmma reads of a buffer -- has retired (wgmma.wait_group)
 * before it, and a releasing arrival costs a memory barrier a stage. */
__device__ __forceinline__ void gk_mbar_arrive_cluster(uint32_t bar, uint32_t cta)
{
    asm volatile("{\n"
                 ".reg .b32 ra;\n"
                 "mapa.shared::cluster.u32 ra, %0, %1;\n"
                 "mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [ra];\n"
                 "}\n" ::"r"(bar),
                 "r"(cta)
                 : "memory");
}
/* Fetches a tensor map (kernel parameter) into the copy engine's cache. */
__device__ __forceinline__ void gk_tma_prefetch(const CUtensorMap *map)
{
    asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)map) : "memory");
}
__device__ __forceinline__ uint32_t gk_cluster_rank()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}
__device__ __forceinline__ void gk_cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;\n" ::
                     : "memory");
}
/* Box (c0, c1) of a 2-D map into this CTA's shared memory. */
__device__ __forceinline__ void gk_tma_2d(uint32_t dst, const CUtensorMap *map, uint32_t bar, int c0, int c1)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], "
                 "[%2];\n" ::"r"(dst),
                 "l"((uint64_t)map), "r"(bar), "r"(c0), "r"(c1)
                 : "memory");
}
/* Box (c0, c1, c2) of a 3-D map, into the same shared offset of every CTA in
 * `mask` (each one's barrier at offset bar completes the bytes), or of this
 * CTA alone when mask is 0. */
__device__ __forceinline__ void gk_tma_3d(uint32_t dst, const CUtensorMap *map, uint32_t bar, int c0, int c1, int c2,
                                          uint16_t mask)
{
    if (mask)
        asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
                     "[%0], [%1, {%3, %4, %5}], [%2], %6;\n" ::"r"(dst),
                     "l"((uint64_t)map), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "h"(mask)
                     : "memory");
    else
        asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, "
                     "%4, %5}], [%2];\n" ::"r"(dst),
                     "l"((uint64_t)map), "r"(bar), "r"(c0), "r"(c1), "r"(c2)
                     : "memory");
}
#endif /* GK_WG_SM90A */

/* gk_wg_tile's two-plane tile, its operands brought by the bulk tensor copy
 * engine instead of per-thread cp.async: same tile, accumulators and
 * epilogue hand-off (see gk_wg_tile), with maps M (gk_wg_maps) of the same
 * blocks as P.  Launched in clusters of CL CTAs (1, 2 or 4) along the B side
 * (blockIdx.x; gridDim.x a multiple of CL): the CTAs of a cluster share a0,
 * each loads 8 / CL of the A tile's eight 16-row groups and multicasts them
 * to all, and loads its own B rows.  So the A tile leaves L2 once per
 * cluster: a pair reads (BM / CL + BN) / (VM VN) rows' slices instead of
 * (BM + BN) / (VM VN).
 *
 * Pipeline: STAGES buffers, each with a `full` mbarrier (one arrival: the
 * CTA's own thread 0 posting the stage's bytes; the copies, its own and the
 * other CTAs' multicasts, complete them) and an `empty` one (an arrival from
 * each warpgroup of each CTA of the cluster once its wgmma reads of the
 * buffer retired: WGS * CL).  Thread 0 loads STAGES stages ahead at the
 * start, then refills the buffer of stage s - 1 at step s once every CTA of
 * the cluster has released it.  A cluster barrier after the barriers' set-up
 * and another after the main loop keep every CTA alive while another may
 * still write its shared memory.  smem: gk_wg_tma_smem_bytes() bytes of
 * dynamic shared memory, any 16-byte alignment. */
template <int CL, class Epi>
__device__ __forceinline__ void gk_wg_tile_tma(const gk_params &P, const gk_wg_maps &M, int a0, int b0,
                                               unsigned char *smem, Epi &epi)
{
#if GK_WG_SM90A
    using S = gk_wg_shape<2>;
    constexpr int BM = S::BM, BN = S::BN, ROWB = S::ROWB, STAGE = S::STAGE_BYTES, ACC = S::ACC;
    constexpr int STAGES = S::STAGES, SW = GK_WG_SLICE_WORDS, WGS = S::WGS;
    constexpr int GROUPS = BM / 16, GPC = GROUPS / CL; /* A's 16-row groups, per CTA of the cluster */
    static_assert(CL == 1 || CL == 2 || CL == 4, "cluster size");
    static_assert(GROUPS % CL == 0 && BN <= 256, "A groups split over the cluster; one B box");
    const int tid = threadIdx.x, wg = tid >> 7;

    uint32_t base = gk_wg_smem_u32(smem);
    base = (base + 1023u) & ~1023u;
    const uint32_t full = base + (uint32_t)(STAGES * STAGE), empty = full + 8u * STAGES;

    const int S0 = ((int)P.kw0 + SW - 1) / SW, S1 = ((int)P.kw1 + SW - 1) / SW, NS = S0 + S1;
    const uint32_t rank = CL > 1 ? gk_cluster_rank() : 0u;
    const uint16_t mask = CL > 1 ? (uint16_t)((1u << CL) - 1u) : (uint16_t)0;

    if (tid == 0) {
        for (int y = 0; y < 2; y++) {
            gk_tma_prefetch(&M.a[y]);
            gk_tma_prefetch(&M.b[y]);
        }
        for (int i = 0; i < STAGES; i++) {
            gk_mbar_init(full + 8u * i, 1u);
            gk_mbar_init(empty + 8u * i, (uint32_t)(WGS * CL));
        }
        gk_mbar_fence_init();
    }
    if (CL > 1) gk_cluster_sync(); /* every CTA's barriers exist before a multicast signals them */
    else __syncthreads();

    /* Stage s (cases first, then controls) into buffer buf (thread 0). */
    auto produce = [&](int s, int buf) {
        const int y = s >= S0;
        const int w0 = (y ? s - S0 : s) * SW;
        const uint32_t st = base + (uint32_t)(buf * STAGE), bar = full + 8u * buf;
        gk_mbar_expect_tx(bar, (uint32_t)STAGE);
#pragma unroll
        for (int g = 0; g < GPC; g++) {
            const int gg = (int)rank * GPC + g;
            gk_tma_3d(st + (uint32_t)(gg * 16 * ROWB), &M.a[y], bar, w0, a0 + 8 * gg, 0, mask);
        }
        gk_tma_2d(st + (uint32_t)(BM * ROWB), &M.b[y], bar, w0, 2 * b0);
    };
    if (tid == 0)
        for (int s = 0; s < STAGES && s < NS; s++) produce(s, s);

    int acc0[ACC], acc1[ACC];
    gk_wg_acc_pin(acc0, acc1, true);

    /* One stage: wait for its bytes, issue its four k256 steps; meanwhile
     * thread 0 refills the buffer of the stage before; retire the steps and
     * release the buffer to every CTA of the cluster (only where it will be
     * refilled, so no arrival is left in flight at the end). */
    auto step = [&](int s, int buf, uint32_t ph, int(&acc)[ACC]) {
        gk_mbar_wait(full + 8u * buf, ph);
        gk_wg_issue<BM, BN>(base + (uint32_t)(buf * STAGE), wg, acc);
        if (tid == 0 && s >= 1 && s - 1 + STAGES < NS) {
            const int pb = buf == 0 ? STAGES - 1 : buf - 1;
            gk_mbar_wait(empty + 8u * pb, ph ^ (buf == 0 ? 1u : 0u)); /* stage s - 1's phase */
            produce(s - 1 + STAGES, pb);
        }
        __syncwarp();
        gk_wg_wait<0>();
        if (s + STAGES < NS) {
            /* lane c of each warpgroup's first warp releases CTA c's buffer */
            if (CL == 1 && (tid & 127) == 0) gk_mbar_arrive(empty + 8u * buf);
            if (CL > 1 && (tid & 127) < CL) gk_mbar_arrive_cluster(empty + 8u * buf, (uint32_t)(tid & 127));
        }
    };

    int s = 0, buf = 0;
    uint32_t ph = 0;
    for (; s < S0; s++) {
        step(s, buf, ph, acc0);
        if (++buf == STAGES) buf = 0, ph ^= 1u;
    }
    for (; s < NS; s++) {
        step(s, buf, ph, acc1);
        if (++buf == STAGES) buf = 0, ph ^= 1u;
    }
    gk_wg_acc_pin(acc0, acc1, false);
    /* every wgmma read retired and every copy into this CTA landed */
    if (CL > 1) gk_cluster_sync();
    else __syncthreads();
    gk_wg_handoff<BN>(acc0, acc1, epi);
#else
    (void)P;
    (void)M;
    (void)a0;
    (void)b0;
    (void)smem;
    __trap(); /* built without sm_90a: launchers probe first (count_wgmma.cu) */
    const int z[4] = {0, 0, 0, 0};
    epi(0, 0, z, z);
    epi.finish();
#endif
}

#endif
