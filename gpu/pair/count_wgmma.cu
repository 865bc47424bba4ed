/* count_wgmma.cu -- the Hopper (sm_90a) kernel family: the wgmma b1 main
 * loops of wgmma_cp.cuh and wgmma_tma.cuh fused with the epilogue of
 * epilogue.cuh (the scan's tile kernels, one per statistic and plane count;
 * the loader picked by EPISTREAM_GPU_LOAD), and as host entry points
 * the raw-product test (every popcount(A_r & B_c) of both classes written
 * out, compared with the CPU in tests/test_wgmma.c) and the wgmma b1 ceiling
 * micro-benchmark.
 *
 * Both entry points first probe the device: sm_90 only, and the binary must
 * carry sm_90a code (a build whose CUDA_ARCH lacks compute_90a compiles the
 * trapping fallback, so a probe kernel reports which body the device runs). */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include <cuda_runtime.h>

#include "epistream.h"
#include "gpu.h"
#include "gpu_test.h"
#include "cuda_check.h"
#include "params.cuh"
#include "layout.cuh"
#include "epilogue.cuh"
#include "launch.cuh"
#include "wgmma_common.cuh"
#include "wgmma_cp.cuh"
#include "wgmma_tma.cuh"
#include "lay16.cuh"

namespace {

/* 1 when the device runs this file's sm_90a body, 0 for a fallback body. */
__global__ void k_wg_probe(int *ok)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) *ok = GK_WG_SM90A;
}

/* ES_OK when device dev can run the sm_90a kernels of this file,
 * ES_ERR_UNSUPPORTED when not, ES_ERR_GPU on a runtime error.  *flag is
 * device memory the caller frees. */
int probe_run(int dev, int **flag)
{
    cudaDeviceProp p;
    CHECK(cudaSetDevice(dev));
    CHECK(cudaGetDeviceProperties(&p, dev));
    if (p.major != 9 || p.minor != 0) return ES_ERR_UNSUPPORTED;
    cudaFuncAttributes fa;
    if (cudaFuncGetAttributes(&fa, k_wg_probe) != cudaSuccess) { /* no image for this device */
        (void)cudaGetLastError();
        return ES_ERR_UNSUPPORTED;
    }
    CHECK(cudaMalloc(flag, sizeof **flag));
    CHECK(cudaMemset(*flag, 0, sizeof **flag));
    k_wg_probe<<<1, 32>>>(*flag);
    CHECK(cudaGetLastError());
    int h = 0;
    CHECK(cudaMemcpy(&h, *flag, sizeof h, cudaMemcpyDeviceToHost));
    return h == 1 ? ES_OK : ES_ERR_UNSUPPORTED;
}

/* The answer per device, probed once per process (every engine open asks):
 * 0 not yet, 1 usable, 2 not.  Runtime errors are not remembered. */
int wg_known[64];

int wg_probe(int dev)
{
    CHECK(cudaSetDevice(dev)); /* callers rely on it, cached or not */
    int k = dev >= 0 && dev < 64 ? __atomic_load_n(&wg_known[dev], __ATOMIC_ACQUIRE) : 0;
    if (k) return k == 1 ? ES_OK : ES_ERR_UNSUPPORTED;
    int *flag = NULL;
    int ret = probe_run(dev, &flag);
    if (flag) cudaFree(flag);
    if ((ret == ES_OK || ret == ES_ERR_UNSUPPORTED) && dev >= 0 && dev < 64)
        __atomic_store_n(&wg_known[dev], ret == ES_OK ? 1 : 2, __ATOMIC_RELEASE);
    return ret;
}

/* ---- the fused tile kernels ---------------------------------------------------- */

/* Two planes: each thread's fragment j holds the products of its pair j,
 * stored as they are (gk_lay_wg). */
using epi2 = gk_wg_store_epi;

/* Three planes: variants straddle fragments, so products are staged by pair
 * (gk_lay_staged). */
template <int VN>
struct epi3 {
    uint32_t *prod;
    __device__ __forceinline__ void operator()(int row0, int col0, const int (&cc)[4], const int (&ct)[4])
    {
        const int lane = threadIdx.x & 31, gid = lane >> 2, tig = lane & 3;
#pragma unroll
        for (int e = 0; e < 4; e++) {
            int r = row0 + gid + ((e >> 1) << 3), c = col0 + 2 * tig + (e & 1);
            prod[gk_stage_idx<3>(r, c, 0, VN)] = (uint32_t)cc[e];
            prod[gk_stage_idx<3>(r, c, 1, VN)] = (uint32_t)ct[e];
        }
    }
    __device__ __forceinline__ void finish() {}
};

template <int NP, int STAT, bool FITS = true, bool PLAIN = false>
__global__ void __launch_bounds__(gk_wg_shape<NP>::THREADS, gk_wg_shape<NP>::MIN_CTAS) k_wgmma(gk_params P)
{
    using S = gk_wg_shape<NP>;
    constexpr int VM = S::VM, VN = S::VN;
    extern __shared__ __align__(1024) unsigned char smem[];
    __shared__ gk_epi_smem<VM, VN> E;
    const int a0 = blockIdx.y * VM, b0 = blockIdx.x * VN;
    if (gk_tile_none(P, a0, b0, VM, VN)) return; /* wholly below the diagonal (or beyond the band) */
    /* two planes: the CTA's size as a constant (the constants' copies unrolled) */
    using G = std::conditional_t<NP == 2, gk_grp_ctan<S::THREADS>, gk_grp_cta>;
    gk_epi_load_consts<STAT, NP, VM, VN, G>(P, a0, b0, E);
    uint32_t *prod = (uint32_t *)smem;
    if constexpr (NP == 2) {
        static_assert(S::THREADS == GK_THREADS, "two planes: every thread holds pairs");
        epi2 e{prod};
        gk_wg_tile<2, PLAIN>(P, a0, b0, smem, e);
        /* no barrier: the screen reads only the thread's own products (and
         * constants the main loop's barriers published); the queue's barrier
         * orders them before any other thread reads them */
        if (P.epi1) __syncthreads();
        static_assert(S::BN / 8 == gk_lay_wg::PPT && VM == 64 && VN == 32, "gk_lay_wg's shape");
        gk_epilogue<STAT, gk_lay_wg, VM, VN, G, FITS>(P, prod, a0, b0, E);
    } else {
        static_assert((size_t)VM * VN * 18 * 4 <= (size_t)S::SMEM_BYTES - 1024, "staging fits the pipeline");
        epi3<VN> e{prod};
        gk_wg_tile<3>(P, a0, b0, smem, e);
        __syncthreads();
        gk_epilogue<STAT, gk_lay_staged<3, VM, VN>, VM, VN>(P, prod, a0, b0, E);
    }
}

/* ---- two-plane tiles that score several column tiles a CTA ----------------- */

/* Where each class is one slice (kw0, kw1 <= 16 words: up to 1,024 samples
 * a class), a fused tile's CTA spends a third of its instructions and half
 * of its stall samples on fixed work: the constants' and the operands'
 * loads, the main loop's waits and barriers (doc/BENCHMARKS.md, "The fused
 * tile at N = 1,024").  k_wgmma_mc's CTA keeps the 64 rows' operands
 * (both classes) and constants in shared memory and scores J column tiles
 * of 32 variants in turn: the next column tile's operand is copied while
 * the current one is screened, and the products are 16-bit (gk_lay_wg16),
 * so that two CTAs still share an SM.  Only the k256 steps that hold words
 * are loaded and issued (C chunks of 16 bytes a row: 4 where both classes
 * fit 8 words, else 8).  Each column tile is scored exactly as the
 * one-tile kernel scores it (gk_epilogue, the same constants and
 * thresholds' reads at its start), so the candidates are the same set of
 * pairs up to the thresholds' timing, which never changes an output.
 *
 * Shared memory (dynamic, 1024-aligned by the kernel): the rows' two
 * classes (2 x 128 rows x 128 bytes) | the column tile's two classes (2 x
 * 64 rows) | its 16-bit products (32 KB): 81,920 bytes + the alignment. */
constexpr int MC_A = 2 * gk_wg_shape<2>::BM * 128, MC_B = 2 * gk_wg_shape<2>::BN * 128;
constexpr int MC_PROD = 8 * 2 * GK_THREADS * 8; /* gk_lay_p16: 8 fragments x 2 classes x 8 bytes */
constexpr int MC_SMEM = 1024 + MC_A + MC_B + MC_PROD;

template <int STAT, bool FITS, int J, int C>
__global__ void __launch_bounds__(GK_THREADS, 2) k_wgmma_mc(gk_params P)
{
#if GK_WG_SM90A
    using S = gk_wg_shape<2>;
    constexpr int VM = S::VM, VN = S::VN, BM = S::BM, BN = S::BN, ROWB = S::ROWB;
    static_assert(S::THREADS == GK_THREADS && VM == 64 && VN == 32, "gk_lay_wg's shape");
    static_assert(C == 4 || C == 8, "chunks a row");
    using G = gk_grp_ctan<GK_THREADS>;
    extern __shared__ __align__(1024) unsigned char smem[];
    __shared__ gk_epi_smem<VM, VN> E;
    const int a0 = blockIdx.y * VM, jt0 = blockIdx.x * J, ncol = ((int)P.nb + VN - 1) / VN;
    /* column tile j of the CTA has pairs (the same for every thread) */
    auto has = [&](int j) { return jt0 + j < ncol && !gk_tile_none(P, a0, (jt0 + j) * VN, VM, VN); };
    int j = 0;
    while (j < J && !has(j)) j++;
    if (j == J) return; /* wholly below the diagonal (or beyond the band) */

    const int tid = threadIdx.x, wg = tid >> 7;
    const uint32_t s0 = gk_wg_smem_u32(smem), base = (s0 + 1023u) & ~1023u;
    const uint32_t sA = base, sB = base + MC_A;
    uint32_t *prod = (uint32_t *)(smem + (base - s0) + MC_A + MC_B);
    const int nk0 = gk_wg_nk((int)P.kw0, 0), nk1 = gk_wg_nk((int)P.kw1, 0);

    /* chunk ch = tid % C of rows r0 + i RP (RP a multiple of 16: the
     * swizzle and gk_wg_arow's order are the same for all of them) */
    constexpr int RP = GK_THREADS / C;
    static_assert(RP % 16 == 0 && BM % RP == 0 && BN % RP == 0, "the loader's rows");
    const int ch = tid % C, r0 = tid / C, ra0 = gk_wg_arow<2>(r0);
    const uint32_t dst0 = (uint32_t)(r0 * ROWB + ((ch ^ (r0 & 7)) << 4));
    const bool ok0 = 2 * ch < (int)P.kw0, ok1 = 2 * ch < (int)P.kw1;
    const size_t words = P.words, off1 = P.off_ctrl, rstride = (size_t)RP * words;
    /* NR rows from src (row r of the thread's first, rows of them exist)
     * into both classes' halves at d0 and d0 + NR rows; the chunks that
     * are not read name `first_word`, the block's */
    auto copy_rows = [&](auto nr, uint32_t d0, const uint64_t *first_word, const uint64_t *src, int r, int rows) {
        constexpr int NR = decltype(nr)::value;
#pragma unroll
        for (int i = 0; i < NR / RP; i++) {
            const bool ok = r + i * RP < rows;
            const uint64_t *sp = src + (size_t)i * rstride;
            const uint32_t d = d0 + (uint32_t)(i * RP * ROWB);
            gk_wg_cp16(d, ok && ok0 ? sp : first_word, ok && ok0);
            gk_wg_cp16(d + (uint32_t)(NR * ROWB), ok && ok1 ? sp + off1 : first_word, ok && ok1);
        }
    };
    copy_rows(std::integral_constant<int, BM>(), sA + dst0, P.pa, P.pa + ((size_t)a0 * 2 + ra0) * words + 2 * ch,
              ra0, ((int)P.na - a0) * 2);
    auto load_b = [&](int b0) {
        copy_rows(std::integral_constant<int, BN>(), sB + dst0, P.pb, P.pb + ((size_t)b0 * 2 + r0) * words + 2 * ch,
                  r0, ((int)P.nb - b0) * 2);
    };
    load_b((jt0 + j) * VN);
    gk_wg_cp_commit();

    for (bool first = true;; first = false) {
        const int b0 = (jt0 + j) * VN;
        gk_wg_cp_wait<0>(); /* the column's operand (and, first, the rows') */
        gk_wg_fence_proxy_async();
        /* the operand published; every thread is past the previous column
         * tile's epilogue, so its constants and products are free */
        __syncthreads();
        /* the column tile's constants and the thresholds as they stand (the
         * rows' constants once), in flight during the main loop */
        gk_epi_load_consts<STAT, 2, VM, VN, G>(P, a0, b0, E, first);
        int acc0[S::ACC], acc1[S::ACC];
        gk_wg_acc_pin(acc0, acc1, true);
        gk_wg_issue_ab<BN>(sA + (uint32_t)(wg * 64 * ROWB), sB, acc0, nk0);
        gk_wg_issue_ab<BN>(sA + (uint32_t)((BM + wg * 64) * ROWB), sB + (uint32_t)(BN * ROWB), acc1, nk1);
        gk_wg_wait<0>();
        gk_wg_acc_pin(acc0, acc1, false);
        gk_store16(prod, 0, acc0);
        gk_store16(prod, 1, acc1);
        gk_wg_cp_wait<0>();
        /* the constants published; every warpgroup's reads of the column
         * operand retired: its buffer takes the next one during the screen */
        __syncthreads();
        int jn = j + 1;
        while (jn < J && !has(jn)) jn++;
        if (jn < J) load_b((jt0 + jn) * VN);
        gk_wg_cp_commit();
        gk_epilogue<STAT, gk_lay_wg16, VM, VN, G, FITS>(P, prod, a0, b0, E);
        if (jn >= J) break;
        j = jn;
    }
#else
    (void)P;
    __trap(); /* built without sm_90a: launchers probe first */
#endif
}

/* Column tiles a CTA of k_wgmma_mc scores: 0 the one-tile kernel
 * (EPISTREAM_GPU_MC=0, same-run comparisons), else 2, 4, 8 or 16; -1 until
 * first read. */
int wg_mc_mode = -1;
constexpr int WG_MC_DEFAULT = 16;

int wg_mc()
{
    int m = __atomic_load_n(&wg_mc_mode, __ATOMIC_ACQUIRE);
    if (m < 0) {
        const char *v = getenv("EPISTREAM_GPU_MC");
        m = WG_MC_DEFAULT;
        if (v && *v) {
            if (!strcmp(v, "0") || !strcmp(v, "2") || !strcmp(v, "4") || !strcmp(v, "8") || !strcmp(v, "16"))
                m = atoi(v);
            else
                fprintf(stderr, "[W::epistream] EPISTREAM_GPU_MC=%s: not 0, 2, 4, 8 or 16; using %d\n", v, m);
        }
        __atomic_store_n(&wg_mc_mode, m, __ATOMIC_RELEASE);
    }
    return m;
}

/* Whether two-plane tiles of classes of kw0 and kw1 words run k_wgmma_mc
 * (with the default cp.async loader and EPISTREAM_GPU_MC not 0): each class
 * one slice, which 16-bit products hold (the plain copy code's shapes,
 * wg_cp_plain). */
bool wg_mc_fits(uint32_t kw0, uint32_t kw1)
{
    return kw0 >= 1 && kw1 >= 1 && kw0 <= GK_WG_SLICE_WORDS && kw1 <= GK_WG_SLICE_WORDS;
}

/* f(std::integral_constant<int, J>(), std::integral_constant<int, C>())
 * for cols column tiles a CTA (2, 4, 8, 16) and the chunks a row of
 * classes of kw0 and kw1 words (4 where both fit 8 words, two k256 steps;
 * else 8): the one place that turns them into k_wgmma_mc's template
 * arguments (its launch and its loading, as with_cluster does). */
template <class F>
int with_mc(int cols, uint32_t kw0, uint32_t kw1, F f)
{
    auto chunks = [&](auto j) {
        return kw0 <= 8 && kw1 <= 8 ? f(j, std::integral_constant<int, 4>()) : f(j, std::integral_constant<int, 8>());
    };
    switch (cols) {
    case 2: return chunks(std::integral_constant<int, 2>());
    case 4: return chunks(std::integral_constant<int, 4>());
    case 16: return chunks(std::integral_constant<int, 16>());
    default: return chunks(std::integral_constant<int, 8>());
    }
}

/* k_wgmma_mc over P's blocks: a CTA's J column tiles are one tile of VN J
 * variants to gk_launch_tile's grid. */
template <int STAT, bool FITS>
int launch_mc(const gk_params &P, int cols, cudaStream_t st)
{
    using S = gk_wg_shape<2>;
    return with_mc(cols, P.kw0, P.kw1, [&](auto j, auto c) {
        static thread_local int configured = -1;
        return gk_launch_tile<S::VM, S::VN * decltype(j)::value>(k_wgmma_mc<STAT, FITS, j, c>, P, MC_SMEM, st,
                                                                  &configured);
    });
}

/* ---- the two-plane tile with the bulk tensor copy loader ------------------- */

/* The process's loader of two-plane wgmma tiles: 0 per-thread cp.async
 * with the copy code wg_cp_plain picks for the scan's shape; 1, 2 or 4 the
 * TMA loader in clusters of that many CTAs; WG_LOAD_CP_REGS and
 * WG_LOAD_CP_PLAIN cp.async with that copy code whatever the shape (a
 * measurement switch, gk_wg_tile's PLAIN); -1 until first read
 * (EPISTREAM_GPU_LOAD, else the default). */
int wg_load_mode = -1;
constexpr int WG_LOAD_DEFAULT = 0; /* cp.async: the fastest measured (doc/BENCHMARKS.md, sixth pass) */
constexpr int WG_LOAD_CP_REGS = 8, WG_LOAD_CP_PLAIN = 9;

int wg_load_parse(const char *v)
{
    if (!v || !*v) return WG_LOAD_DEFAULT;
    if (!strcmp(v, "cp")) return 0;
    if (!strcmp(v, "cp-regs")) return WG_LOAD_CP_REGS;
    if (!strcmp(v, "cp-plain")) return WG_LOAD_CP_PLAIN;
    if (!strcmp(v, "tma1")) return 1;
    if (!strcmp(v, "tma2")) return 2;
    if (!strcmp(v, "tma4")) return 4;
    fprintf(stderr, "[W::epistream] EPISTREAM_GPU_LOAD=%s: not cp, cp-regs, cp-plain, tma1, tma2 or tma4; using cp\n",
            v);
    return WG_LOAD_DEFAULT;
}

int wg_load()
{
    int m = __atomic_load_n(&wg_load_mode, __ATOMIC_ACQUIRE);
    if (m < 0) {
        m = wg_load_parse(getenv("EPISTREAM_GPU_LOAD"));
        __atomic_store_n(&wg_load_mode, m, __ATOMIC_RELEASE);
    }
    return m;
}

/* The cp.async copy code of the default per shape (gk_wg_tile's PLAIN):
 * SHORT where no class fills a stage (kw0 and kw1 under 16 words, at most
 * 768 samples a class: the full-stage path never runs), LONG otherwise.
 * Chosen from the SASS (doc/BENCHMARKS.md, "The cp.async loader's two copy
 * codes"): with partial stages the registers' code issues its first copy
 * about 70 instructions a warp later (167 against 97 in k_feed) and about
 * 20 more before the main loop, and the plain code is the one that fed the
 * main loop at 3.0e11 pairs/s at N = 1,024 (2.67e11 with the registers');
 * with full stages the registers' code saves 22 (k_feed) to 38 (the fused
 * boost kernel) instructions of a refilling stage's 121-144.  Not yet
 * alternated in one device run (scripts/device-load.sh does). */
constexpr bool WG_CP_PLAIN_SHORT = true, WG_CP_PLAIN_LONG = false;

/* Whether two-plane cp.async tiles of P run the plain copy code. */
bool wg_cp_plain(const gk_params &P)
{
    const int m = wg_load();
    if (m == WG_LOAD_CP_REGS || m == WG_LOAD_CP_PLAIN) return m == WG_LOAD_CP_PLAIN;
    return P.kw0 < GK_WG_SLICE_WORDS && P.kw1 < GK_WG_SLICE_WORDS ? WG_CP_PLAIN_SHORT : WG_CP_PLAIN_LONG;
}

/* cuTensorMapEncodeTiled through the runtime (no link against the driver
 * library); NULL where the driver has none. */
typedef CUresult (*encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                              const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                              CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

encode_fn wg_encoder()
{
    static encode_fn fn = NULL;
    static int tried = 0;
    if (!__atomic_load_n(&tried, __ATOMIC_ACQUIRE)) {
        void *f = NULL;
        cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q) !=
                cudaSuccess ||
            q != cudaDriverEntryPointSuccess)
            f = NULL;
        (void)cudaGetLastError();
        __atomic_store_n(&fn, (encode_fn)f, __ATOMIC_RELEASE);
        __atomic_store_n(&tried, 1, __ATOMIC_RELEASE);
    }
    return __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
}

/* The tensor maps of P's blocks (gk_wg_maps); 0, or the driver's error. */
int wg_maps_build(const gk_params &P, gk_wg_maps *M)
{
    encode_fn enc = wg_encoder();
    if (!enc) return (int)CUDA_ERROR_NOT_SUPPORTED;
    const cuuint64_t row = (cuuint64_t)P.words * 8; /* bytes from one plane row to the next */
    const cuuint32_t one[3] = {1, 1, 1};
    for (int y = 0; y < 2; y++) {
        const uint32_t off = y ? P.off_ctrl : 0u, kw = y ? P.kw1 : P.kw0;
        const cuuint64_t kwd = kw ? kw : 2; /* a class with no words is never loaded */
        const cuuint64_t adim[3] = {kwd, P.na ? P.na : 1u, 2}, astr[2] = {2 * row, row};
        const cuuint32_t abox[3] = {GK_WG_SLICE_WORDS, 8, 2};
        const cuuint64_t bdim[2] = {kwd, (cuuint64_t)(P.nb ? P.nb : 1u) * 2}, bstr[1] = {row};
        const cuuint32_t bbox[2] = {GK_WG_SLICE_WORDS, (cuuint32_t)gk_wg_shape<2>::BN};
        const struct {
            CUtensorMap *map;
            cuuint32_t rank;
            const uint64_t *base;
            const cuuint64_t *dim, *str;
            const cuuint32_t *box;
        } m[2] = {{&M->a[y], 3, P.pa, adim, astr, abox}, {&M->b[y], 2, P.pb, bdim, bstr, bbox}};
        for (int i = 0; i < 2; i++) {
            CUresult r = enc(m[i].map, CU_TENSOR_MAP_DATA_TYPE_UINT64, m[i].rank, (void *)(m[i].base + off), m[i].dim,
                             m[i].str, m[i].box, one, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                             CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
            if (r != CUDA_SUCCESS) return (int)r;
        }
    }
    return 0;
}

/* The TMA loader's maps for P, or 0 when the cp.async loader must serve
 * (chosen, or the driver cannot encode the maps: said once, and the
 * process's loader is cp.async from then on). */
int wg_maps_for(const gk_params &P, gk_wg_maps *M)
{
    int cl = wg_load();
    if (cl != 1 && cl != 2 && cl != 4) return 0;
    int r = wg_maps_build(P, M);
    if (r) {
        static int said = 0;
        __atomic_store_n(&wg_load_mode, 0, __ATOMIC_RELEASE);
        if (!__atomic_exchange_n(&said, 1, __ATOMIC_ACQ_REL))
            fprintf(stderr, "[W::epistream] the GPU's tensor maps cannot be built (driver error %d): wgmma tiles "
                            "load with cp.async\n", r);
        return 0;
    }
    return cl;
}

/* f(std::integral_constant<int, cl>()) for a TMA cluster size cl (1, 2 or
 * 4): the one place that turns the run-time loader into a kernel template
 * argument. */
template <class F>
int with_cluster(int cl, F f)
{
    switch (cl) {
    case 1: return f(std::integral_constant<int, 1>());
    case 2: return f(std::integral_constant<int, 2>());
    case 4: return f(std::integral_constant<int, 4>());
    default: return (int)cudaErrorInvalidValue;
    }
}

/* Launches kernel over grid (x rounded up to the cluster) in clusters of cl
 * CTAs along x, raising its shared memory limit once per device and thread. */
template <class... Args>
int cluster_launch(void (*kernel)(Args...), int cl, dim3 grid, int threads, int smem, cudaStream_t st,
                   int *configured, Args... args)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return (int)e;
    if (*configured != dev) {
        e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
        if (e != cudaSuccess) return (int)e;
        *configured = dev;
    }
    grid.x = (grid.x + cl - 1) / cl * cl;
    cudaLaunchConfig_t c = {};
    c.gridDim = grid;
    c.blockDim = dim3(threads);
    c.dynamicSmemBytes = (size_t)smem;
    c.stream = st;
    cudaLaunchAttribute at[1] = {};
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = (unsigned)cl;
    at[0].val.clusterDim.y = 1;
    at[0].val.clusterDim.z = 1;
    c.attrs = at;
    c.numAttrs = 1;
    e = cudaLaunchKernelEx(&c, kernel, args...);
    return (int)(e != cudaSuccess ? e : cudaGetLastError());
}

/* The two-plane tile kernel with the TMA loader in clusters of CL. */
template <int STAT, int CL>
__global__ void __launch_bounds__(gk_wg_shape<2>::THREADS, gk_wg_shape<2>::MIN_CTAS)
    k_wgmma_tma(gk_params P, const __grid_constant__ gk_wg_maps M)
{
    using S = gk_wg_shape<2>;
    constexpr int VM = S::VM, VN = S::VN;
    extern __shared__ __align__(1024) unsigned char smem[];
    __shared__ gk_epi_smem<VM, VN> E;
    const int a0 = blockIdx.y * VM, b0 = blockIdx.x * VN;
    /* wholly below the diagonal (or beyond the band), for every CTA of the
     * cluster alike: the cluster's last column tile below it, its first
     * beyond the band */
    if (P.diag && (int)(blockIdx.x | (CL - 1)) * VN + VN <= a0) return;
    if (P.diag && P.band > 0 && (int)(blockIdx.x & ~(unsigned)(CL - 1)) * VN - (a0 + VM - 1) > P.band) return;
    gk_epi_load_consts<STAT, 2, VM, VN>(P, a0, b0, E);
    uint32_t *prod = (uint32_t *)smem;
    epi2 e{prod};
    gk_wg_tile_tma<CL>(P, M, a0, b0, smem, e);
    gk_consts_wait(); /* the TMA main loop waits for no cp.async group */
    __syncthreads();
    gk_epilogue<STAT, gk_lay_wg, VM, VN>(P, prod, a0, b0, E);
}

/* The grid of two-plane tiles over P's blocks. */
dim3 tile_grid2(const gk_params &P)
{
    using S = gk_wg_shape<2>;
    return dim3((P.nb + S::VN - 1) / S::VN, (P.na + S::VM - 1) / S::VM);
}

/* k_wgmma<NP, STAT, FITS> with the copy code wg_cp_plain picks (three
 * planes: always the default one). */
template <int NP, int STAT, bool FITS>
int launch_cp(const gk_params &P, cudaStream_t st)
{
    using S = gk_wg_shape<NP>;
    if constexpr (NP == 2)
        if (const int cols = wg_mc(); cols && wg_mc_fits(P.kw0, P.kw1) && wg_load() == 0)
            return launch_mc<STAT, FITS>(P, cols, st);
    if (NP == 2 && wg_cp_plain(P)) {
        static thread_local int configured = -1;
        return gk_launch_tile<S::VM, S::VN>(k_wgmma<NP, STAT, FITS, NP == 2>, P, S::SMEM_BYTES, st, &configured,
                                            S::THREADS);
    }
    static thread_local int configured = -1;
    return gk_launch_tile<S::VM, S::VN>(k_wgmma<NP, STAT, FITS>, P, S::SMEM_BYTES, st, &configured, S::THREADS);
}

template <int STAT, int NP>
int launch_fused(const gk_params &P, cudaStream_t st)
{
    using S = gk_wg_shape<NP>;
    gk_wg_maps M;
    if (int cl = NP == 2 ? wg_maps_for(P, &M) : 0)
        return with_cluster(cl, [&](auto c) {
            static thread_local int configured = -1;
            return cluster_launch(k_wgmma_tma<STAT, decltype(c)::value>, c.value, tile_grid2(P), gk_wg_shape<2>::THREADS,
                                  gk_wg_tma_smem_bytes(), st, &configured, P, M);
        });
    /* BOOST's in-tile fits (gk_epilogue's FITS) compiled in only where they
     * can run in many CTAs: the previous path, fits in every tile, a diagonal
     * tile's pre-pass, a block's first tile on the device (its variants'
     * thresholds still 0: without fits every pair of the tile would be a
     * candidate), three planes (no queue) */
    if constexpr (STAT == GK_BOOST && NP == 2)
        if (gk_boost_fitless(P)) return launch_cp<NP, STAT, false>(P, st);
    return launch_cp<NP, STAT, true>(P, st);
}

/* k_wgmma_mc<STAT, FITS, cols, C> for classes of kw0 and kw1 words. */
template <int STAT, bool FITS>
void mc_warm(int cols, uint32_t kw0, uint32_t kw1)
{
    (void)with_mc(cols, kw0, kw1, [](auto j, auto c) {
        gk_kernel_load(k_wgmma_mc<STAT, FITS, j, c>);
        return 0;
    });
}

/* gk_wgmma_warm's kernels: the per-thread cp.async tiles with the in-tile
 * fits (a scan's first tiles), then (BOOST) without; two planes both copy
 * codes (wg_cp_plain decides per launch), or the column tiles' kernels
 * where launch_cp runs them */
template <int STAT>
int wgmma_warm(int np, uint32_t kw0, uint32_t kw1)
{
    if (const int cols = wg_mc(); np == 2 && cols && wg_mc_fits(kw0, kw1) && wg_load() == 0) {
        mc_warm<STAT, true>(cols, kw0, kw1);
        if constexpr (STAT == GK_BOOST) mc_warm<STAT, false>(cols, kw0, kw1);
    } else if (np == 2) {
        gk_kernel_load(k_wgmma<2, STAT, true, true>);
        gk_kernel_load(k_wgmma<2, STAT, true>);
        if constexpr (STAT == GK_BOOST) {
            gk_kernel_load(k_wgmma<2, STAT, false, true>);
            gk_kernel_load(k_wgmma<2, STAT, false>);
        }
    } else {
        gk_kernel_load(k_wgmma<3, STAT, true>);
    }
    return 0;
}

template <int STAT>
int launch_np(const gk_params &P, int np, cudaStream_t st)
{
    return np == 2 ? launch_fused<STAT, 2>(P, st) : launch_fused<STAT, 3>(P, st);
}

/* ---- raw products ------------------------------------------------------------ */

/* Writes C_y[r][c] to out[(y * ra + r) * rb + c] (global rows r < ra, c < rb;
 * tile row r is block row gk_wg_arow<NP>(r)). */
template <int NP>
struct raw_epi {
    uint32_t *out;
    int ra, rb;    /* na * NP, nb * NP */
    int r0, c0;    /* first row of the tile in each block */
    __device__ __forceinline__ void operator()(int row0, int col0, const int (&cc)[4], const int (&ct)[4])
    {
        const int lane = threadIdx.x & 31, gid = lane >> 2, tig = lane & 3;
#pragma unroll
        for (int e = 0; e < 4; e++) {
            const int r = r0 + gk_wg_arow<NP>(row0 + gid + ((e >> 1) << 3)), c = c0 + col0 + 2 * tig + (e & 1);
            if (r < ra && c < rb) {
                out[(size_t)r * rb + c] = (uint32_t)cc[e];
                out[((size_t)ra + r) * rb + c] = (uint32_t)ct[e];
            }
        }
    }
    __device__ __forceinline__ void finish() {}
};

template <int NP, bool PLAIN = false>
__global__ void __launch_bounds__(gk_wg_shape<NP>::THREADS, 1) k_gemm_test(gk_params P, uint32_t *out)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    using S = gk_wg_shape<NP>;
    const int a0 = blockIdx.y * S::VM, b0 = blockIdx.x * S::VN;
    raw_epi<NP> e{out, (int)P.na * NP, (int)P.nb * NP, a0 * NP, b0 * NP};
    gk_wg_tile<NP, PLAIN>(P, a0, b0, smem, e);
}

template <int CL>
__global__ void __launch_bounds__(gk_wg_shape<2>::THREADS, 1)
    k_gemm_test_tma(gk_params P, const __grid_constant__ gk_wg_maps M, uint32_t *out)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    using S = gk_wg_shape<2>;
    const int a0 = blockIdx.y * S::VM, b0 = blockIdx.x * S::VN;
    raw_epi<2> e{out, (int)P.na * 2, (int)P.nb * 2, a0 * 2, b0 * 2};
    gk_wg_tile_tma<CL>(P, M, a0, b0, smem, e);
}

/* Launches the two-plane raw-product kernel with the process's loader. */
int gemm_launch2(const gk_params &P, uint32_t *out)
{
    using S = gk_wg_shape<2>;
    const dim3 grid = tile_grid2(P);
    gk_wg_maps M;
    if (int cl = wg_maps_for(P, &M))
        return with_cluster(cl, [&](auto c) {
            static thread_local int configured = -1;
            return cluster_launch(k_gemm_test_tma<decltype(c)::value>, c.value, grid, S::THREADS,
                                  gk_wg_tma_smem_bytes(), 0, &configured, P, M, out);
        });
    void (*k)(gk_params, uint32_t *) = wg_cp_plain(P) ? k_gemm_test<2, true> : k_gemm_test<2>;
    cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, S::SMEM_BYTES);
    if (e != cudaSuccess) return (int)e;
    k<<<grid, S::THREADS, S::SMEM_BYTES>>>(P, out);
    return (int)cudaGetLastError();
}

struct gemm_bufs {
    uint64_t *a, *b;
    uint32_t *out;
};

template <int NP>
int gemm_run(const uint64_t *a, uint32_t na, const uint64_t *b, uint32_t nb, uint32_t words, uint32_t off_ctrl,
             uint32_t kw0, uint32_t kw1, uint32_t *out, gemm_bufs *d)
{
    using S = gk_wg_shape<NP>;
    const size_t wa = (size_t)na * NP * words, wb = (size_t)nb * NP * words;
    const size_t n_out = (size_t)2 * na * NP * nb * NP;
    CHECK(cudaMalloc(&d->a, wa * sizeof *a));
    CHECK(cudaMalloc(&d->b, wb * sizeof *b));
    CHECK(cudaMalloc(&d->out, n_out * sizeof *out));
    CHECK(cudaMemcpy(d->a, a, wa * sizeof *a, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d->b, b, wb * sizeof *b, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d->out, 0xff, n_out * sizeof *out)); /* poison: every product must be written */

    gk_params P;
    memset(&P, 0, sizeof P);
    P.pa = d->a;
    P.pb = d->b;
    P.na = na;
    P.nb = nb;
    P.words = words;
    P.off_ctrl = off_ctrl;
    P.kw0 = kw0;
    P.kw1 = kw1;

    if (NP == 2) {
        CHECK((cudaError_t)gemm_launch2(P, d->out));
    } else {
        CHECK(cudaFuncSetAttribute(k_gemm_test<NP>, cudaFuncAttributeMaxDynamicSharedMemorySize, S::SMEM_BYTES));
        dim3 grid((nb + S::VN - 1) / S::VN, (na + S::VM - 1) / S::VM);
        k_gemm_test<NP><<<grid, S::THREADS, S::SMEM_BYTES>>>(P, d->out);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(out, d->out, n_out * sizeof *out, cudaMemcpyDeviceToHost));
    return ES_OK;
}

/* ---- ceiling ----------------------------------------------------------------- */

constexpr int CEIL_WGS = 3;          /* warpgroups per CTA, one CTA per SM */
constexpr int CEIL_KSTEPS = 4;       /* wgmma per commit group */
constexpr int CEIL_SMEM = (64 + 256) * 128 + 1024;

/* Every warpgroup issues m64n256k256 b1 wgmma back to back from one A
 * (64 x 1024 bits) and one B (256 x 1024 bits) tile in shared memory, four
 * per commit group with one group in flight, no global traffic. */
__global__ void __launch_bounds__(CEIL_WGS * 128, 1) k_ceiling_wg(int iters, uint32_t seed, int *out)
{
#if GK_WG_SM90A
    extern __shared__ __align__(1024) unsigned char smem[];
    uint32_t sbase = (gk_wg_smem_u32(smem) + 1023u) & ~1023u;
    unsigned char *sm = smem + (sbase - gk_wg_smem_u32(smem));
    for (int i = threadIdx.x; i < (64 + 256) * 128 / 4; i += blockDim.x) {
        uint32_t x = (uint32_t)i * 0x9e3779b9u + seed;
        x ^= x >> 16;
        x *= 0x85ebca6bu;
        ((uint32_t *)sm)[i] = x ^ (x >> 13);
    }
    gk_wg_fence_proxy_async();
    __syncthreads();
    int acc[128];
#pragma unroll
    for (int i = 0; i < 128; i++) acc[i] = 0;
    const uint64_t da = gk_wg_desc(sbase), db = gk_wg_desc(sbase + 64 * 128);
    for (int it = 0; it < iters; it++) {
        gk_wg_fence();
#pragma unroll
        for (int ks = 0; ks < CEIL_KSTEPS; ks++) gk_wg_mma_n256(acc, da + 2 * ks, db + 2 * ks);
        gk_wg_commit();
        gk_wg_wait<1>();
    }
    gk_wg_wait<0>();
    int s = 0;
#pragma unroll
    for (int i = 0; i < 128; i++) {
        gk_wg_fence_reg(acc[i]);
        s += acc[i];
    }
    if (s == 0x7fffffff) *out = s; /* keeps the work alive */
#else
    (void)iters;
    (void)seed;
    (void)out;
    __trap();
#endif
}

int ceiling_run(int dev, double *bitmac_per_s, int **out, cudaEvent_t ev[2])
{
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, dev));
    CHECK(cudaMalloc(out, sizeof **out));
    CHECK(cudaEventCreate(&ev[0]));
    CHECK(cudaEventCreate(&ev[1]));
    const int blocks = p.multiProcessorCount, threads = CEIL_WGS * 128, iters = 10000;
    k_ceiling_wg<<<blocks, threads, CEIL_SMEM>>>(100, 1u, *out); /* warm-up */
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(ev[0]));
    k_ceiling_wg<<<blocks, threads, CEIL_SMEM>>>(iters, 2u, *out);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(ev[1]));
    CHECK(cudaEventSynchronize(ev[1]));
    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, ev[0], ev[1]));
    const double wgmmas = (double)blocks * CEIL_WGS * iters * CEIL_KSTEPS;
    *bitmac_per_s = wgmmas * 64.0 * 256.0 * 256.0 / (ms * 1e-3);
    return ES_OK;
}

/* ---- the operand feed: the tile mainloop alone ---------------------------- */

/* Folds a fragment's accumulators so the work stays alive. */
struct fold_epi {
    int s;
    __device__ __forceinline__ void operator()(int row0, int col0, const int (&cc)[4], const int (&ct)[4])
    {
        (void)row0;
        (void)col0;
        s += cc[0] ^ cc[1] ^ cc[2] ^ cc[3] ^ ct[0] ^ ct[1] ^ ct[2] ^ ct[3];
    }
    __device__ __forceinline__ void finish() {}
};

/* The scan's two-plane tile mainloop (same shape, pipeline and occupancy),
 * with no epilogue. */
template <bool PLAIN>
__global__ void __launch_bounds__(gk_wg_shape<2>::THREADS, gk_wg_shape<2>::MIN_CTAS) k_feed(gk_params P, int *out)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    fold_epi e{0};
    gk_wg_tile<2, PLAIN>(P, (int)blockIdx.y * gk_wg_shape<2>::VM, (int)blockIdx.x * gk_wg_shape<2>::VN, smem, e);
    if (e.s == 0x7fffffff) *out = e.s; /* keeps the work alive */
}

template <int CL>
__global__ void __launch_bounds__(gk_wg_shape<2>::THREADS, gk_wg_shape<2>::MIN_CTAS)
    k_feed_tma(gk_params P, const __grid_constant__ gk_wg_maps M, int *out)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    fold_epi e{0};
    gk_wg_tile_tma<CL>(P, M, (int)blockIdx.y * gk_wg_shape<2>::VM, (int)blockIdx.x * gk_wg_shape<2>::VN, smem, e);
    if (e.s == 0x7fffffff) *out = e.s;
}

/* The feed kernel with the process's loader. */
int feed_launch(const gk_params &P, dim3 grid, int *out)
{
    using S = gk_wg_shape<2>;
    gk_wg_maps M;
    if (int cl = wg_maps_for(P, &M))
        return with_cluster(cl, [&](auto c) {
            static thread_local int configured = -1;
            return cluster_launch(k_feed_tma<decltype(c)::value>, c.value, grid, S::THREADS, gk_wg_tma_smem_bytes(),
                                  0, &configured, P, M, out);
        });
    void (*k)(gk_params, int *) = wg_cp_plain(P) ? k_feed<true> : k_feed<false>;
    cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, S::SMEM_BYTES);
    if (e != cudaSuccess) return (int)e;
    k<<<grid, S::THREADS, S::SMEM_BYTES>>>(P, out);
    return (int)cudaGetLastError();
}

__global__ void k_feed_fill(uint64_t *p, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t z = (i + 1) * 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        p[i] = z ^ (z >> 27);
    }
}

struct feed_bufs {
    uint64_t *planes;
    int *out;
    cudaEvent_t ev[2];
};

int feed_run(uint32_t n_samples, double *pairs_per_s, feed_bufs *d)
{
    using S = gk_wg_shape<2>;
    const uint32_t nv = 16384, half = n_samples / 2;
    /* each class padded to 1024 bits, as the scan packs it */
    const uint32_t cls_words = (half + 1023) / 1024 * 16, kw = (half + 255) / 256 * 4;
    const size_t n_words = (size_t)nv * 2 * cls_words * 2;
    CHECK(cudaMalloc(&d->planes, n_words * sizeof *d->planes));
    CHECK(cudaMalloc(&d->out, sizeof *d->out));
    CHECK(cudaEventCreate(&d->ev[0]));
    CHECK(cudaEventCreate(&d->ev[1]));
    k_feed_fill<<<1024, 256>>>(d->planes, n_words);
    CHECK(cudaGetLastError());
    gk_params P;
    memset(&P, 0, sizeof P);
    P.pa = P.pb = d->planes;
    P.na = P.nb = nv;
    P.words = 2 * cls_words;
    P.off_ctrl = cls_words;
    P.kw0 = P.kw1 = kw;
    const dim3 grid(nv / S::VN, nv / S::VM);
    CHECK((cudaError_t)feed_launch(P, grid, d->out)); /* warm-up */
    CHECK(cudaEventRecord(d->ev[0]));
    CHECK((cudaError_t)feed_launch(P, grid, d->out));
    CHECK(cudaEventRecord(d->ev[1]));
    CHECK(cudaEventSynchronize(d->ev[1]));
    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, d->ev[0], d->ev[1]));
    *pairs_per_s = (double)nv * nv / (ms * 1e-3);
    return ES_OK;
}

} // namespace

extern "C" int es_gpu_wgmma_feed_rate(int dev, uint32_t n_samples, double *pairs_per_s)
{
    *pairs_per_s = 0.0;
    if (n_samples < 2) return ES_ERR_ARG;
    int ret = wg_probe(dev);
    if (ret != ES_OK) return ret;
    feed_bufs d = {NULL, NULL, {NULL, NULL}};
    ret = feed_run(n_samples, pairs_per_s, &d);
    if (d.ev[0]) cudaEventDestroy(d.ev[0]);
    if (d.ev[1]) cudaEventDestroy(d.ev[1]);
    cudaFree(d.planes);
    cudaFree(d.out);
    return ret;
}

extern "C" int es_gpu_b1_gemm_test(int dev, int np, const uint64_t *a, uint32_t na, const uint64_t *b, uint32_t nb,
                                   uint32_t words, uint32_t off_ctrl, uint32_t kw0, uint32_t kw1, uint32_t *out)
{
    if ((np != 2 && np != 3) || (words & 1) || (off_ctrl & 1) || (kw0 & 1) || (kw1 & 1) || kw0 > words ||
        (uint64_t)off_ctrl + kw1 > words)
        return ES_ERR_ARG;
    int ret = wg_probe(dev);
    if (ret != ES_OK || na == 0 || nb == 0) return ret;
    gemm_bufs d = {NULL, NULL, NULL};
    ret = np == 2 ? gemm_run<2>(a, na, b, nb, words, off_ctrl, kw0, kw1, out, &d)
                  : gemm_run<3>(a, na, b, nb, words, off_ctrl, kw0, kw1, out, &d);
    cudaFree(d.a);
    cudaFree(d.b);
    cudaFree(d.out);
    return ret;
}

extern "C" int es_gpu_b1_ceiling_wgmma(int dev, double *bitmac_per_s)
{
    *bitmac_per_s = 0.0;
    int ret = wg_probe(dev);
    if (ret != ES_OK) return ret;
    int *out = NULL;
    cudaEvent_t ev[2] = {NULL, NULL};
    ret = ceiling_run(dev, bitmac_per_s, &out, ev);
    if (ev[0]) cudaEventDestroy(ev[0]);
    if (ev[1]) cudaEventDestroy(ev[1]);
    if (out) cudaFree(out);
    return ret;
}

extern "C" int es_gpu_wgmma_loader(int mode)
{
    int prev = wg_load();
    if (mode == 0 || mode == 1 || mode == 2 || mode == 4 || mode == WG_LOAD_CP_REGS || mode == WG_LOAD_CP_PLAIN)
        __atomic_store_n(&wg_load_mode, mode, __ATOMIC_RELEASE);
    return prev;
}

int gk_launch_wgmma(const gk_params &P, int np, void *stream)
{
    return GK_STAT_DISPATCH(P.stat, launch_np, P, np, (cudaStream_t)stream);
}

void gk_wgmma_warm(int stat, int np, uint32_t kw0, uint32_t kw1)
{
    (void)GK_STAT_DISPATCH(stat, wgmma_warm, np, kw0, kw1);
}

int gk_wgmma_usable(int dev) { return wg_probe(dev) == ES_OK; }

int gk_wg_maps_make(const gk_params &P, gk_wg_maps *M) { return wg_maps_build(P, M); }

int gk_wg_maps_usable() { return wg_encoder() != NULL; }
