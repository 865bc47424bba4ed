/* lay16.cuh -- two-plane tiles' pair products as 16 bits (gk_lay_wg's
 * pairs, half the shared memory of its 32-bit products): the layout the
 * epilogue reads (gk_lay_p16, with its screen's loader), and the store of a
 * thread's wgmma accumulators into it (gk_store16).  Products count at most a
 * class's padded samples, so a launcher uses it only where a class's words
 * number at most GK_P16_KW_MAX.  Users: the persistent warp-specialised
 * kernel (count_ws.cu, gk_lay_ws16) and the fused wgmma tiles that score
 * several column tiles a CTA (count_wgmma.cu, gk_lay_wg16). */
#ifndef GK_LAY16_CUH
#define GK_LAY16_CUH

#include <stdint.h>

#include "params.cuh"
#include "layout.cuh"
#include "epilogue.cuh"

/* Products count at most the class's padded samples (kw words of 64 bits):
 * 16 bits hold them below 65,536. */
#define GK_P16_KW_MAX (65535u / 64u)

/* gk_lay_wg's pairs with 16-bit products: a thread's fragment q is stored
 * as two 8-byte words (cases, then controls: products 0, 1 and 2, 3 in the
 * low and high halves), prod16[((q * 2 + class) * THREADS + tid)]
 * (conflict-free), by gk_store16.  S3: the screen sums a stratum with one
 * reciprocal (gk_lay_screen's S3). */
template <bool S3>
struct gk_lay_p16 {
    static constexpr int NP = 2, PPT = 8;
    static constexpr int ROWQ = PPT; /* a thread's pairs share one row */
    __device__ static void pair(int q, int t, int &a, int &b) { gk_lay_wg::pair(q, t, a, b); }
    __device__ static void load(const uint32_t *prod, int q, int t, int a, int b, uint32_t x[8])
    {
        (void)a;
        (void)b;
        const uint2 c = ((const uint2 *)prod)[(q * 2) * GK_THREADS + t];
        const uint2 u = ((const uint2 *)prod)[(q * 2 + 1) * GK_THREADS + t];
        x[0] = c.x & 0xffffu;
        x[1] = c.x >> 16;
        x[2] = c.y & 0xffffu;
        x[3] = c.y >> 16;
        x[4] = u.x & 0xffffu;
        x[5] = u.x >> 16;
        x[6] = u.y & 0xffffu;
        x[7] = u.y >> 16;
    }
};
/* The ws kernel's tiles: one reciprocal a stratum (1.03x its tile kernels);
 * the fused tiles keep three (one was 0.965x there). */
using gk_lay_ws16 = gk_lay_p16<true>;
using gk_lay_wg16 = gk_lay_p16<false>;

/* Half h (0: bits 0-15) of x as a float: one I2F.U16 with its half
 * selector, no unpacking. */
template <int H>
__device__ __forceinline__ float gk_h2f(uint32_t x)
{
    float f;
    if (H)
        asm("{.reg .u16 l, h;\n mov.b32 {l, h}, %1;\n cvt.rn.f32.u16 %0, h;\n}" : "=f"(f) : "r"(x));
    else
        asm("{.reg .u16 l, h;\n mov.b32 {l, h}, %1;\n cvt.rn.f32.u16 %0, l;\n}" : "=f"(f) : "r"(x));
    return f;
}

/* The same on the integer and float pipes: the half's two bytes under the
 * exponent of 2^23 (one PRMT), less 2^23 (one FADD; exact).  (An AND or a
 * shift and I2FP would be the same count, but ptxas turns them into
 * I2F.U16.) */
template <int H>
__device__ __forceinline__ float gk_h2f_alu(uint32_t x)
{
    return __int_as_float((int)__byte_perm(x, 0x4B000000u, H ? 0x7632u : 0x7610u)) - 8388608.0f;
}

/* The screen's floats from the 16-bit products (gk_lay_screen): the cases'
 * four by I2F.U16 of each half (the conversion unit, beside the screen's
 * reciprocals), the controls' by gk_h2f_alu (PRMT, FADD), the totals as
 * float sums (exact: below 2^17): 16 instructions, the same floats as
 * gk_screen_f's on gk_lay_p16::load's unpacked words (about 18 there: 4 of
 * them I2F.U16 by ptxas's choice; 121.1 against 122.4 SASS instructions a
 * pair in the ws kernel's boost screen).  All eight by I2F.U16 would be 12
 * (116.1 a pair), but would give the conversion unit 17 of a pair's
 * instructions (16 lanes a cycle an SM, an eighth of a scheduler's issue
 * rate: 136 of its cycles for 32 pairs against about 115 issue cycles). */
template <bool S3v>
struct gk_lay_screen<gk_lay_p16<S3v>> {
    static constexpr bool S3 = S3v; /* one reciprocal a stratum (screen.cuh, gk_screen_s3) */
    __device__ static __forceinline__ void load(const uint32_t *prod, int q, int t, int a, int b, float c[4],
                                                float tt[4])
    {
        (void)a;
        (void)b;
        const uint2 cw = ((const uint2 *)prod)[(q * 2) * GK_THREADS + t];
        const uint2 uw = ((const uint2 *)prod)[(q * 2 + 1) * GK_THREADS + t];
        c[0] = gk_h2f<0>(cw.x);
        c[1] = gk_h2f<1>(cw.x);
        c[2] = gk_h2f<0>(cw.y);
        c[3] = gk_h2f<1>(cw.y);
        tt[0] = c[0] + gk_h2f_alu<0>(uw.x);
        tt[1] = c[1] + gk_h2f_alu<1>(uw.x);
        tt[2] = c[2] + gk_h2f_alu<0>(uw.y);
        tt[3] = c[3] + gk_h2f_alu<1>(uw.y);
    }
};

/* A thread's accumulators of class cls for the 64 x 32-variant two-plane
 * wgmma tile (gk_wg_handoff's fragment order: fragment q is acc[4 q .. 4 q +
 * 3]; threads 0 .. GK_THREADS - 1) into gk_lay_p16 at prod. */
__device__ __forceinline__ void gk_store16(uint32_t *prod, int cls, const int (&acc)[32])
{
#pragma unroll
    for (int q = 0; q < 8; q++)
        ((uint2 *)prod)[(q * 2 + cls) * GK_THREADS + threadIdx.x] =
            make_uint2((uint32_t)acc[4 * q] | (uint32_t)acc[4 * q + 1] << 16,
                       (uint32_t)acc[4 * q + 2] | (uint32_t)acc[4 * q + 3] << 16);
}

#endif
