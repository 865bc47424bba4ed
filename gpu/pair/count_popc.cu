/* count_popc.cu -- the portable CUDA-core counting kernel: 64-bit AND +
 * __popcll on the CUDA cores, fused with the epilogue of epilogue.cuh.
 *
 * Same CTA tiles and product staging as count_mma.cu, so the two share the
 * epilogue bit for bit.  Operand slices of 16 words per row are staged in
 * shared memory; each thread owns the PPT pairs of one row it will later
 * score, and accumulates their NP x NP products class by class. */
#include <cuda_runtime.h>

#include "params.cuh"
#include "layout.cuh"
#include "epilogue.cuh"
#include "launch.cuh"

namespace {

constexpr int KW = 16; /* words per slice */

template <int NP>
struct cfg;
template <>
struct cfg<2> {
    static constexpr int VM = 64, VN = 64;
};
template <>
struct cfg<3> {
    static constexpr int VM = 32, VN = 32;
};

template <int NP, int STAT>
__global__ void __launch_bounds__(GK_THREADS) k_popc(gk_params P)
{
    using C = cfg<NP>;
    constexpr int VM = C::VM, VN = C::VN, BM = VM * NP, BN = VN * NP;
    constexpr int TPR = GK_THREADS / VM, PPT = VN / TPR;
    extern __shared__ __align__(128) unsigned char smem[];
    __shared__ gk_epi_smem<VM, VN> S;
    /* operand slices after the products in dynamic shared memory */
    uint64_t(*sA)[KW + 1] = (uint64_t(*)[KW + 1])(smem + (size_t)VM * VN * 2 * NP * NP * 4);
    uint64_t(*sB)[KW + 1] = sA + BM;

    const int a0 = blockIdx.y * VM, b0 = blockIdx.x * VN;
    if (gk_tile_none(P, a0, b0, VM, VN)) return;
    const int tid = threadIdx.x, a = tid / TPR, lr = tid % TPR;
    uint32_t *prod = (uint32_t *)smem;
    gk_epi_load_consts<STAT, NP, VM, VN>(P, a0, b0, S);
    const int rowsA = ((int)P.na - a0) * NP, rowsB = ((int)P.nb - b0) * NP;
    const uint64_t *baseA = P.pa + (size_t)a0 * NP * P.words;
    const uint64_t *baseB = P.pb + (size_t)b0 * NP * P.words;

    for (int c = 0; c < 2; c++) {
        const int kw = c == 0 ? (int)P.kw0 : (int)P.kw1;
        const int off = c == 0 ? 0 : (int)P.off_ctrl;
        uint32_t acc[PPT][NP * NP];
#pragma unroll
        for (int q = 0; q < PPT; q++)
#pragma unroll
            for (int k = 0; k < NP * NP; k++) acc[q][k] = 0;
        for (int w0 = 0; w0 < kw; w0 += KW) {
            __syncthreads();
            for (int k = tid; k < (BM + BN) * KW; k += GK_THREADS) {
                int r = k / KW, w = k % KW;
                bool isA = r < BM;
                int rr = isA ? r : r - BM;
                bool ok = (isA ? rr < rowsA : rr < rowsB) && w0 + w < kw;
                uint64_t v = ok ? __ldg((isA ? baseA : baseB) + (size_t)rr * P.words + off + w0 + w) : 0ull;
                if (isA) sA[rr][w] = v;
                else sB[rr][w] = v;
            }
            __syncthreads();
#pragma unroll 4
            for (int w = 0; w < KW; w++) {
                uint64_t x[NP];
#pragma unroll
                for (int p = 0; p < NP; p++) x[p] = sA[a * NP + p][w];
#pragma unroll
                for (int q = 0; q < PPT; q++) {
                    int b = lr + q * TPR;
#pragma unroll
                    for (int pq = 0; pq < NP; pq++) {
                        uint64_t y = sB[b * NP + pq][w];
#pragma unroll
                        for (int p = 0; p < NP; p++) acc[q][p * NP + pq] += __popcll(x[p] & y);
                    }
                }
            }
        }
#pragma unroll
        for (int q = 0; q < PPT; q++) {
            int b = lr + q * TPR;
#pragma unroll
            for (int p = 0; p < NP; p++)
#pragma unroll
                for (int pq = 0; pq < NP; pq++)
                    prod[gk_stage_idx<NP>(a * NP + p, b * NP + pq, c, VN)] = acc[q][p * NP + pq];
        }
    }
    gk_consts_wait();
    __syncthreads();
    gk_epilogue<STAT, gk_lay_staged<NP, VM, VN>, VM, VN>(P, prod, a0, b0, S);
}

template <int STAT, int NP>
int launch(const gk_params &P, cudaStream_t st)
{
    using C = cfg<NP>;
    size_t sm = (size_t)C::VM * C::VN * 2 * NP * NP * 4 + (size_t)(C::VM + C::VN) * NP * (KW + 1) * 8;
    static thread_local int configured = -1;
    return gk_launch_tile<C::VM, C::VN>(k_popc<NP, STAT>, P, sm, st, &configured);
}

template <int STAT>
int launch_np(const gk_params &P, int np, cudaStream_t st)
{
    return np == 2 ? launch<STAT, 2>(P, st) : launch<STAT, 3>(P, st);
}

} // namespace

int gk_launch_popc(const gk_params &P, int np, void *stream)
{
    return GK_STAT_DISPATCH(P.stat, launch_np, P, np, (cudaStream_t)stream);
}
