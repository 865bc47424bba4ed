/* count3_popc.cu -- the portable 3-way counting kernel: 64-bit AND +
 * __popcll on the CUDA cores, fused with the epilogue of epilogue3.cuh.
 *
 * A CTA takes 16 pairs against 128 third variants (the CTA shape of every
 * 3-way family, so that they share gk3_cta and the epilogue); each thread
 * owns 8 of its triples and counts them one after the other, straight from
 * global memory (the planes of a tile stay in L1/L2): the 8 products of P
 * planes a class with two planes, all 27 with the V planes. */
#include <cuda_runtime.h>

#include "params3.cuh"
#include "epilogue3.cuh"

namespace {

/* plane of level s (0 V, 1 P1, 2 P2) in a variant's NP planes */
template <int NP>
__device__ __forceinline__ int plane_of(int s)
{
    return NP == 3 ? (s + 2) % 3 : s - 1;
}

template <int NP, int STAT>
__global__ void __launch_bounds__(GK3_THREADS) k3_popc(gk3_params P)
{
    __shared__ gk3_cta S;
    gk3_cta_setup<NP>(P, S);
    __syncthreads();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, gid = lane >> 2, tig = lane & 3;
    constexpr int L0 = NP == 3 ? 0 : 1; /* lowest level counted */
    const size_t vw = (size_t)NP * P.words;
    uint32_t bq[2] = {0, 0}, bk[4] = {0, 0, 0, 0};
#pragma unroll
    for (int g = 0; g < 2; g++) {
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int q = g * 8 + gid, kk = warp * 16 + j * 4 + tig;
            uint32_t c[2][27];
#pragma unroll
            for (int y = 0; y < 2; y++)
#pragma unroll
                for (int e = 0; e < 27; e++) c[y][e] = 0;
            if (S.pin[q] && S.kg[kk] != 0xffffffffu) {
                const uint64_t *L = P.lp + S.lrow[q] * vw, *R = P.rp + S.rrow[q] * vw;
                const uint64_t *K = P.cp + (size_t)(blockIdx.y * GK3_THIRD + kk) * vw;
                for (int y = 1; y >= 0; y--) {
                    const uint32_t w0 = y ? 0 : P.off_ctrl, w1 = w0 + (y ? P.kw1 : P.kw0);
                    uint32_t acc[27];
#pragma unroll
                    for (int e = 0; e < 27; e++) acc[e] = 0;
                    for (uint32_t w = w0; w < w1; w++) {
                        uint64_t l[3], r[3], k[3];
#pragma unroll
                        for (int s = L0; s < 3; s++) {
                            l[s] = __ldg(L + (size_t)plane_of<NP>(s) * P.words + w);
                            r[s] = __ldg(R + (size_t)plane_of<NP>(s) * P.words + w);
                            k[s] = __ldg(K + (size_t)plane_of<NP>(s) * P.words + w);
                        }
#pragma unroll
                        for (int s = L0; s < 3; s++)
#pragma unroll
                            for (int t = L0; t < 3; t++) {
                                uint64_t x = l[s] & r[t];
#pragma unroll
                                for (int u = L0; u < 3; u++) acc[s * 9 + t * 3 + u] += (uint32_t)__popcll(x & k[u]);
                            }
                    }
#pragma unroll
                    for (int e = 0; e < 27; e++) c[y][e] = acc[e];
                }
            }
            uint32_t lo = gk3_finish<NP, STAT>(P, S, q, kk, c);
            bq[g] = max(bq[g], lo);
            bk[j] = max(bk[j], lo);
        }
    }
    gk3_cta_best(S, bq, bk);
    __syncthreads();
    gk3_cta_flush(P, S);
}

template <int STAT>
int launch(const gk3_params &P, int np, cudaStream_t st)
{
    dim3 grid(P.mode == GK3_SEED ? (P.n_pairs + GK3_PAIRS - 1) / GK3_PAIRS : P.na * P.ngb,
              (P.nc + GK3_THIRD - 1) / GK3_THIRD);
    if (np == 2) k3_popc<2, STAT><<<grid, GK3_THREADS, 0, st>>>(P);
    else k3_popc<3, STAT><<<grid, GK3_THREADS, 0, st>>>(P);
    return (int)cudaGetLastError();
}

} // namespace

int gk3_launch_popc(const gk3_params &P, int np, void *stream)
{
    return GK3_STAT_DISPATCH(P.stat, launch, P, np, (cudaStream_t)stream);
}
