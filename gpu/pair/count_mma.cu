/* count_mma.cu -- pair counting on the tensor cores with mma.sync
 * m16n8k256 .b1 AND.POPC (sm_80 and later), fused with the epilogue of
 * epilogue.cuh.
 *
 * The block planes are a row-major bit matrix: row r = plane r % NP of
 * variant r / NP, `words` 64-bit words long, cases in words [0, kw0),
 * controls from off_ctrl.  One CTA computes the products of VM x VN variants
 * (BM = VM*NP by BN = VN*NP rows) for both classes: C_y = A_y * B_y^T over the
 * class's words, which holds every plane product of every pair of the tile.
 * Operands stream through a 3-stage cp.async pipeline of 512-bit slices
 * (XOR-swizzled so ldmatrix is conflict-free); 8 warps, two CTAs per SM so
 * that one CTA's epilogue overlaps the other's MMAs.  One kernel per
 * statistic (the epilogue is specialised at compile time). */
#include <cuda_runtime.h>

#include "params.cuh"
#include "layout.cuh"
#include "epilogue.cuh"
#include "launch.cuh"
#include "mma_b1.cuh"

namespace {

constexpr int STAGES = 3;
using gk_b1::KW;   /* words per stage (512 bits) */
using gk_b1::ROWB; /* bytes per row per stage */
using gk_b1::cp_async16;
using gk_b1::smem_u32;
using gk_b1::swz;

template <int NP>
struct cfg;
/* Two planes: 64 x 32 variants (128 x 64 rows), warps 4 x 2, and the
 * products stay with the lanes that computed them (gk_lay_frag); three
 * planes: 32 x 32 variants (96 x 96 rows), warps 2 x 4, staged products. */
template <>
struct cfg<2> {
    static constexpr int VM = 64, VN = 32, MT = 2, NT = 4, WGN = 2;
    using L = gk_lay_frag<MT, NT, WGN>;
};
template <>
struct cfg<3> {
    static constexpr int VM = 32, VN = 32, MT = 3, NT = 3, WGN = 4;
    using L = gk_lay_staged<3, VM, VN>;
};

template <int NP, int STAT>
__global__ void __launch_bounds__(GK_THREADS, 2) k_mma(gk_params P)
{
    using C = cfg<NP>;
    constexpr int VM = C::VM, VN = C::VN, BM = VM * NP, BN = VN * NP;
    constexpr int MT = C::MT, NT = C::NT, WGN = C::WGN, WGM = GK_THREADS / 32 / WGN;
    constexpr int WTM = MT * 16, WTN = NT * 8;
    static_assert(WTM * WGM == BM && WTN * WGN == BN, "warp grid");
    extern __shared__ __align__(128) unsigned char smem[];
    __shared__ gk_epi_smem<VM, VN> S;

    const int a0 = blockIdx.y * VM, b0 = blockIdx.x * VN;
    if (gk_tile_none(P, a0, b0, VM, VN)) return; /* wholly below the diagonal (or beyond the band) */
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm = warp / WGN, wn = warp % WGN;
    unsigned char *sA = smem, *sB = smem + STAGES * BM * ROWB;

    gk_epi_load_consts<STAT, NP, VM, VN>(P, a0, b0, S);

    const int S0 = ((int)P.kw0 + KW - 1) / KW, S1 = ((int)P.kw1 + KW - 1) / KW, NS = S0 + S1;
    const uint64_t *baseA = P.pa + (size_t)a0 * NP * P.words;
    const uint64_t *baseB = P.pb + (size_t)b0 * NP * P.words;
    const int rowsA = ((int)P.na - a0) * NP, rowsB = ((int)P.nb - b0) * NP;

    /* each thread copies the same LPT 16-byte chunks of every stage: their
     * rows, sources and swizzled destinations are fixed, only the word offset
     * moves */
    constexpr int LPT = (BM + BN) * 4 / GK_THREADS;
    static_assert(LPT * GK_THREADS == (BM + BN) * 4, "copy split");
    const uint64_t *lsrc[LPT];
    uint32_t ldst[LPT];
    int lch[LPT];
#pragma unroll
    for (int it = 0; it < LPT; it++) {
        int k = tid + it * GK_THREADS, r = k >> 2, ch = k & 3;
        bool isA = r < BM;
        int rr = isA ? r : r - BM;
        bool ok = isA ? rr < rowsA : rr < rowsB;
        lsrc[it] = (isA ? baseA : baseB) + (size_t)(ok ? rr : 0) * P.words + 2 * ch;
        ldst[it] = smem_u32((isA ? sA : sB) + swz(rr, ch));
        lch[it] = ok ? 2 * ch : 1 << 30; /* a missing row is never in range */
    }
    const uint32_t stA = BM * ROWB, stB = BN * ROWB;
    auto load = [&](int s) {
        int buf = s % STAGES, w0, lim, woff;
        if (s < S0) {
            w0 = s * KW;
            lim = (int)P.kw0;
            woff = w0;
        } else {
            w0 = (s - S0) * KW;
            lim = (int)P.kw1;
            woff = (int)P.off_ctrl + w0;
        }
#pragma unroll
        for (int it = 0; it < LPT; it++) {
            bool ok = w0 + lch[it] < lim;
            int k = tid + it * GK_THREADS;
            uint32_t d = ldst[it] + (uint32_t)buf * ((k >> 2) < BM ? stA : stB);
            cp_async16(d, ok ? (const void *)(lsrc[it] + woff) : (const void *)lsrc[it], ok);
        }
    };

    int acc[2][MT][NT][4];
#pragma unroll
    for (int c = 0; c < 2; c++)
#pragma unroll
        for (int i = 0; i < MT; i++)
#pragma unroll
            for (int j = 0; j < NT; j++)
#pragma unroll
                for (int e = 0; e < 4; e++) acc[c][i][j][e] = 0;

#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < NS) load(s);
        asm volatile("cp.async.commit_group;\n" ::);
    }

    auto compute = [&](int buf, int (&ac)[MT][NT][4]) {
        gk_b1::mma_slice<MT, NT>(sA + buf * BM * ROWB, sB + buf * BN * ROWB, wm * WTM, wn * WTN, lane, ac);
    };

    for (int s = 0; s < NS; s++) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2));
        __syncthreads();
        if (s + STAGES - 1 < NS) load(s + STAGES - 1);
        asm volatile("cp.async.commit_group;\n" ::);
        if (s < S0) compute(s % STAGES, acc[0]);
        else compute(s % STAGES, acc[1]);
    }
    asm volatile("cp.async.wait_group 0;\n" ::);
    __syncthreads();

    /* stage the products (over the pipeline buffers) */
    uint32_t *prod = (uint32_t *)smem;
    if constexpr (NP == 2) {
#pragma unroll
        for (int i = 0; i < MT; i++)
#pragma unroll
            for (int j = 0; j < NT; j++) gk_frag_store(prod, i * NT + j, acc[0][i][j], acc[1][i][j]);
    } else {
        const int gid = lane >> 2, tig = lane & 3;
#pragma unroll
        for (int c = 0; c < 2; c++)
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int j = 0; j < NT; j++)
#pragma unroll
                    for (int e = 0; e < 4; e++) {
                        int r = wm * WTM + i * 16 + gid + ((e >> 1) << 3);
                        int col = wn * WTN + j * 8 + tig * 2 + (e & 1);
                        prod[gk_stage_idx<NP>(r, col, c, VN)] = (uint32_t)acc[c][i][j][e];
                    }
    }
    __syncthreads();
    gk_epilogue<STAT, typename C::L, VM, VN>(P, prod, a0, b0, S);
}

template <int NP>
size_t smem_bytes()
{
    using C = cfg<NP>;
    size_t pipe = (size_t)STAGES * (C::VM + C::VN) * NP * ROWB;
    size_t prod = (size_t)C::VM * C::VN * 2 * NP * NP * 4;
    return pipe > prod ? pipe : prod;
}

template <int STAT, int NP>
int launch(const gk_params &P, cudaStream_t st)
{
    using C = cfg<NP>;
    size_t sm = smem_bytes<NP>();
    static thread_local int configured = -1;
    return gk_launch_tile<C::VM, C::VN>(k_mma<NP, STAT>, P, sm, st, &configured);
}

template <int STAT>
int launch_np(const gk_params &P, int np, cudaStream_t st)
{
    return np == 2 ? launch<STAT, 2>(P, st) : launch<STAT, 3>(P, st);
}

} // namespace

int gk_launch_mma(const gk_params &P, int np, void *stream)
{
    return GK_STAT_DISPATCH(P.stat, launch_np, P, np, (cudaStream_t)stream);
}
