/* mma_b1.cuh -- what the b1 mma.sync kernels share (device code): a stage
 * buffer of 512-bit row slices (64 bytes a row, its four 16-byte chunks
 * XOR-swizzled so that ldmatrix is conflict-free), the cp.async copy into it,
 * and one warp's m16n8k256 .b1 AND.POPC products over a slice: rows
 * arow .. arow + 16 MT of A by brow .. brow + 8 NT of B, accumulated in the
 * m16n8 fragment layout (element e of tile (i, j): row arow + 16 i + lane / 4
 * + 8 (e / 2), column brow + 8 j + 2 (lane % 4) + e % 2).  Used by the pair counter (count_mma.cu), the 3-way counter's
 * copies (gpu/triple/count3_mma.cu) and the MDFS screen
 * (gpu/mdfs/screen_mma.cu). */
#ifndef ES_GK_MMA_B1_CUH
#define ES_GK_MMA_B1_CUH

#include <cstdint>

#include <cuda_runtime.h>

namespace gk_b1 {

constexpr int KW = 8;        /* words a stage (512 bits) */
constexpr int ROWB = KW * 8; /* bytes a row a stage */

__device__ __forceinline__ uint32_t smem_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* 16 bytes from src, or zeros when !valid */
__device__ __forceinline__ void cp_async16(uint32_t dst, const void *src, bool valid)
{
    int n = valid ? 16 : 0;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(n));
}

/* the byte offset of 16-byte chunk ch (0 .. 3) of row r */
__device__ __forceinline__ int swz(int r, int ch) { return r * ROWB + ((ch ^ ((r >> 1) & 3)) << 4); }

template <int MT, int NT>
__device__ __forceinline__ void mma_slice(const unsigned char *A, const unsigned char *B, int arow, int brow, int lane,
                                          int (&ac)[MT][NT][4])
{
#pragma unroll
    for (int ks = 0; ks < 2; ks++) {
        uint32_t af[MT][4], bf[NT][2];
#pragma unroll
        for (int i = 0; i < MT; i++) {
            const int mat = lane >> 3;
            const int r = arow + i * 16 + (lane & 7) + ((mat & 1) << 3);
            const uint32_t addr = smem_u32(A + swz(r, 2 * ks + (mat >> 1)));
            asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                         : "=r"(af[i][0]), "=r"(af[i][1]), "=r"(af[i][2]), "=r"(af[i][3])
                         : "r"(addr));
        }
#pragma unroll
        for (int j = 0; j < NT; j++) {
            const int l = lane & 15;
            const int r = brow + j * 8 + (l & 7);
            const uint32_t addr = smem_u32(B + swz(r, 2 * ks + (l >> 3)));
            asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n"
                         : "=r"(bf[j][0]), "=r"(bf[j][1])
                         : "r"(addr));
        }
#pragma unroll
        for (int i = 0; i < MT; i++)
#pragma unroll
            for (int j = 0; j < NT; j++)
                asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc "
                             "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                             : "+r"(ac[i][j][0]), "+r"(ac[i][j][1]), "+r"(ac[i][j][2]), "+r"(ac[i][j][3])
                             : "r"(af[i][0]), "r"(af[i][1]), "r"(af[i][2]), "r"(af[i][3]), "r"(bf[j][0]),
                               "r"(bf[j][1]));
    }
}

} // namespace gk_b1

#endif /* ES_GK_MMA_B1_CUH */
