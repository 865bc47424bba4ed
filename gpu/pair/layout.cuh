/* layout.cuh -- where a tile's products lie and which pairs a thread
 * scores: the staged layout (any plane count), the mma fragment layout and
 * the wgmma accumulator layout (two planes), their stores, and a pair's
 * 2x3x3 table from its products and the variants' genotype counts. */
#ifndef GK_LAYOUT_CUH
#define GK_LAYOUT_CUH

#include <stdint.h>

#include "params.cuh"

/* ---- pair layouts ----------------------------------------------------------
 *
 * Which pairs a thread scores and where their products lie.
 *
 * gk_lay_staged: products staged as prod[((a * VN + b) * 2 + c) * NP^2 + p NP + q]
 * (c 0 cases, 1 controls; planes p of a, q of b); TPR consecutive threads
 * share row a and take columns b = lane_r + q TPR.
 *
 * gk_lay_frag (two planes, mma fragments): each m16n8 accumulator fragment
 * covers 8 variants of a x 4 of b; after one exchange between lanes l and
 * l ^ 4 (gk_frag_pair) every lane holds the 2 x 2 x 2 products of one pair,
 * stored as prod[(q * 8 + k) * THREADS + tid] (conflict-free) by
 * gk_frag_store.  Warps form a grid of WGN columns, each MT x NT fragments;
 * the wgmma tiles (warp w holds rows 16 w .. 16 w + 15 and every 8-column
 * chunk) would be gk_lay_frag<1, BN / 8, 1>; they use gk_lay_wg instead.
 *
 * pair(q, t, a, b) gives thread t's q-th pair, load(prod, q, t, a, b, x) its
 * products: after the screen a pair may be scored by another thread.
 *
 * Pairs are scored by the first GK_THREADS threads; a CTA of more
 * threads (the wgmma kernels' three warpgroups) joins only the barriers. */
template <int NP>
__device__ __forceinline__ int gk_pidx(int a, int b, int VN)
{
    return (a * VN + b) * 2 * NP * NP;
}

/* Staged index of class cls's product of tile rows r (A) and c (B). */
template <int NP>
__device__ __forceinline__ int gk_stage_idx(int r, int c, int cls, int VN)
{
    return gk_pidx<NP>(r / NP, c / NP, VN) + cls * NP * NP + (r % NP) * NP + c % NP;
}

template <int NP_, int VM, int VN>
struct gk_lay_staged {
    static constexpr int NP = NP_, TPR = GK_THREADS / VM, PPT = VN / TPR;
    static constexpr int ROWQ = PPT; /* a thread's pairs share one row */
    __device__ static void pair(int q, int t, int &a, int &b)
    {
        a = t / TPR;
        b = t % TPR + q * TPR;
    }
    __device__ static void load(const uint32_t *prod, int q, int t, int a, int b, uint32_t x[2 * NP * NP])
    {
        (void)q;
        (void)t;
        const uint32_t *p = prod + gk_pidx<NP>(a, b, VN);
#pragma unroll
        for (int k = 0; k < 2 * NP * NP; k++) x[k] = p[k];
    }
};

template <int MT, int NT, int WGN>
struct gk_lay_frag {
    static constexpr int NP = 2, PPT = MT * NT;
    static constexpr int ROWQ = NT; /* pairs q and q' share a row when q / NT == q' / NT */
    __device__ static void pair(int q, int t, int &a, int &b)
    {
        int warp = t >> 5, lane = t & 31, gid = lane >> 2;
        int row0 = (warp / WGN) * MT * 16 + (q / NT) * 16, col0 = (warp % WGN) * NT * 8 + (q % NT) * 8;
        a = row0 / 2 + (gid & 1) * 4 + (gid >> 1);
        b = col0 / 2 + (lane & 3);
    }
    __device__ static void load(const uint32_t *prod, int q, int t, int a, int b, uint32_t x[8])
    {
        (void)a;
        (void)b;
#pragma unroll
        for (int k = 0; k < 8; k++) x[k] = prod[(q * 8 + k) * GK_THREADS + t];
    }
};

/* gk_lay_wg (two planes, the wgmma kernels, whose A rows come in the order
 * of gk_wg_arow): a thread's accumulator rows gid and gid + 8 are planes 0
 * and 1 of one row variant, so its fragment j = q holds the four products of
 * pair (a, 4 q + tig) as they are, cases in the first, controls in the
 * second fragment.  They are staged as two 16-byte words,
 * prod[((q * 2 + class) * THREADS + tid) * 4 + k] (conflict-free) by
 * gk_wg_store.  Warpgroup g holds rows 32 g .. 32 g + 31, warp w of it the
 * eight from 32 g + 8 w. */
struct gk_lay_wg {
    static constexpr int NP = 2, PPT = 8;
    static constexpr int ROWQ = PPT; /* a thread's pairs share one row */
    __device__ static void pair(int q, int t, int &a, int &b)
    {
        a = (t >> 7) * 32 + ((t >> 5) & 3) * 8 + ((t & 31) >> 2);
        b = 4 * q + (t & 3);
    }
    __device__ static void load(const uint32_t *prod, int q, int t, int a, int b, uint32_t x[8])
    {
        (void)a;
        (void)b;
        const uint4 c = ((const uint4 *)prod)[(q * 2) * GK_THREADS + t];
        const uint4 u = ((const uint4 *)prod)[(q * 2 + 1) * GK_THREADS + t];
        x[0] = c.x;
        x[1] = c.y;
        x[2] = c.z;
        x[3] = c.w;
        x[4] = u.x;
        x[5] = u.y;
        x[6] = u.z;
        x[7] = u.w;
    }
};

/* Fragment q of a thread's pairs in gk_lay_wg: both classes' products. */
__device__ __forceinline__ void gk_wg_store(uint32_t *prod, int q, const int cases[4], const int ctrls[4])
{
    ((uint4 *)prod)[(q * 2) * GK_THREADS + threadIdx.x] =
        make_uint4((uint32_t)cases[0], (uint32_t)cases[1], (uint32_t)cases[2], (uint32_t)cases[3]);
    ((uint4 *)prod)[(q * 2 + 1) * GK_THREADS + threadIdx.x] =
        make_uint4((uint32_t)ctrls[0], (uint32_t)ctrls[1], (uint32_t)ctrls[2], (uint32_t)ctrls[3]);
}

/* The wgmma tiles' epilogue functor for two planes (count_wgmma.cu,
 * count_ws.cu): each thread's fragment j holds the products of its pair j
 * (gk_wg_arow's row order), stored as they are by gk_wg_store. */
struct gk_wg_store_epi {
    uint32_t *prod;
    __device__ __forceinline__ void operator()(int row0, int col0, const int (&cc)[4], const int (&ct)[4])
    {
        (void)row0;
        gk_wg_store(prod, col0 / 8, cc, ct);
    }
    __device__ __forceinline__ void finish() {}
};

/* One m16n8 fragment of class c's products (mma C layout: c[0], c[1] at row
 * gid, columns 2 tig, 2 tig + 1; c[2], c[3] at row gid + 8) into the lane's
 * pair products x[c * 4 + p * 2 + q].  Rows of even gid are plane 0 of their
 * variant, odd gid plane 1; lanes l and l ^ 4 swap the halves they lack. */
__device__ __forceinline__ void gk_frag_pair(const int acc[4], uint32_t x[4])
{
    int p = (threadIdx.x >> 2) & 1;
    uint32_t s0 = (uint32_t)(p ? acc[0] : acc[2]), s1 = (uint32_t)(p ? acc[1] : acc[3]);
    uint32_t r0 = __shfl_xor_sync(0xffffffffu, s0, 4), r1 = __shfl_xor_sync(0xffffffffu, s1, 4);
    if (!p) {
        x[0] = (uint32_t)acc[0];
        x[1] = (uint32_t)acc[1];
        x[2] = r0;
        x[3] = r1;
    } else {
        x[0] = r0;
        x[1] = r1;
        x[2] = (uint32_t)acc[2];
        x[3] = (uint32_t)acc[3];
    }
}

/* Fragment q of a lane's pairs, both classes, into gk_lay_frag's staging. */
__device__ __forceinline__ void gk_frag_store(uint32_t *prod, int q, const int cases[4], const int ctrls[4])
{
    uint32_t x[8];
    gk_frag_pair(cases, x);
    gk_frag_pair(ctrls, x + 4);
#pragma unroll
    for (int k = 0; k < 8; k++) prod[(q * 8 + k) * GK_THREADS + threadIdx.x] = x[k];
}

/* The nine sums of one class (count.c's order) -> the nine cells. */
__device__ __forceinline__ void gk_derive(const uint32_t x[9], uint32_t n[9])
{
    enum { X11, X12, X21, X22, A1V, A2V, VB1, VB2, VV };
    n[8] = x[X22];
    n[7] = x[X21] - x[X22];
    n[5] = x[X12] - x[X22];
    n[4] = x[X11] - x[X12] - x[X21] + x[X22];
    n[6] = x[A2V] - x[X21];
    n[3] = x[A1V] - x[A2V] - x[X11] + x[X21];
    n[2] = x[VB2] - x[X12];
    n[1] = x[VB1] - x[VB2] - x[X11] + x[X12];
    n[0] = x[VV] - x[A1V] - x[VB1] + x[X11];
}

/* The pair's table from its products x[c * NP^2 + p NP + q] (c 0 cases) and
 * the genotype counts ga, gb ([y][g], y 0 control, 1 case). */
template <int NP>
__device__ __forceinline__ void gk_cells(const uint32_t *x, const uint32_t *ga, const uint32_t *gb,
                                         uint32_t n[2][9])
{
#pragma unroll
    for (int c = 0; c < 2; c++) {
        const uint32_t *p = x + c * NP * NP;
        int y = c == 0 ? 1 : 0;
        uint32_t s[9];
        if (NP == 2) {
            s[0] = p[0];
            s[1] = p[1];
            s[2] = p[2];
            s[3] = p[3];
            s[4] = ga[y * 3 + 1] + ga[y * 3 + 2];
            s[5] = ga[y * 3 + 2];
            s[6] = gb[y * 3 + 1] + gb[y * 3 + 2];
            s[7] = gb[y * 3 + 2];
            s[8] = ga[y * 3 + 0] + ga[y * 3 + 1] + ga[y * 3 + 2];
        } else {
            /* planes P1, P2, V */
            s[0] = p[0];
            s[1] = p[1];
            s[4] = p[2];
            s[2] = p[3];
            s[3] = p[4];
            s[5] = p[5];
            s[6] = p[6];
            s[7] = p[7];
            s[8] = p[8];
        }
        gk_derive(s, n[y]);
    }
}

#endif
