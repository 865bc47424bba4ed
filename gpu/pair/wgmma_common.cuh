/* wgmma_common.cuh -- what the two Hopper (sm_90a) b1 GEMM main loops of the
 * pair counting share: wgmma.mma_async m64nNk256 .s32.b1.b1.and.popc with
 * both operands in shared memory, handing the accumulators to an epilogue
 * functor in the mma.sync m16n8 C layout.  The loops differ in how operands
 * reach shared memory: per-thread cp.async (wgmma_cp.cuh, gk_wg_tile) or the
 * bulk tensor copy engine (wgmma_tma.cuh, gk_wg_tile_tma).
 *
 * Data (as count_mma.cu): a block is a row-major bit matrix, row r = plane
 * r % NP of variant r / NP, P.words 64-bit words a row; cases in words
 * [0, kw0), controls in [off_ctrl, off_ctrl + kw1).  A CTA tile is BM rows
 * of block A (VM variants from a0) by BN rows of block B (VN variants from
 * b0); it computes C_y[r][c] = popcount(A_r & B_c) over class y's words for
 * both classes, into separate accumulators.  Tile row r is block row
 * gk_wg_arow<NP>(r) (two planes: the planes of eight variants in turn).  Rows past na*NP / nb*NP and
 * words past kw_y read as zero.  Needs P.words and P.off_ctrl even and
 * kw0, kw1 even (16-byte cp.async chunks); a class is consumed in slices of
 * 16 words (1024 bits: four k256 steps), a partial last slice zero-filled.
 *
 * Tiles (one warpgroup = 4 warps = 128 threads per 64 A rows):
 *   NP = 2: VM = 64, VN = 32, BM = 128, BN = 64, 2 warpgroups (256 threads),
 *           wgmma m64n64k256, 2 x 32 accumulator registers a thread, 3
 *           stages, two CTAs per SM;
 *   NP = 3: VM = 64, VN = 32, BM = 192, BN = 96, 3 warpgroups (384 threads),
 *           wgmma m64n96k256, 2 x 48 accumulator registers a thread.
 * Warpgroup g owns A rows [64g, 64g + 64) and all BN columns.
 *
 * Shared memory (dynamic; the tile aligns its base up to 1024 bytes itself,
 * gk_wg_smem_bytes() includes that slack).  STAGES stages, each
 *   [ A: BM rows x 128 bytes | B: BN rows x 128 bytes ],
 * one row's 16-word slice per 128-byte line, in the canonical K-major
 * 128-byte-swizzle layout of the PTX ISA ("Shared Memory Matrix Layout";
 * CUTLASS Layout_K_SW128_Atom, Swizzle<3,4,3>): 16-byte chunk c (words 2c,
 * 2c+1 of the slice) of row r is stored at
 *      r * 128 + ((c ^ (r & 7)) << 4),
 * so each 8-row group is one 1024-byte swizzle atom.  Every stage, A and B
 * part, and warpgroup's 64-row A slab start on a 1024-byte boundary, so the
 * descriptors' base offset is 0.
 *
 * Matrix descriptor (PTX ISA "Matrix Descriptor Format", sm_90 wgmma):
 *   bits  0-13  start address >> 4
 *   bits 16-29  leading byte offset >> 4: unused for swizzled K-major, 1
 *   bits 32-45  stride byte offset >> 4: 8-row group to the next, 1024 -> 64
 *   bits 49-51  base offset: 0 (atoms 1024-aligned)
 *   bits 62-63  swizzle: 1 = 128-byte
 * The k256 step ks (0..3) of a slice is bytes [32 ks, 32 ks + 32) of each
 * row: its descriptor is the slice's with start address + 32 ks (field +2 ks);
 * the hardware applies the XOR swizzle to the address bits [4,7) ^= [7,10),
 * which reproduces the store formula above (as CUTLASS / DeepGEMM advance
 * k within a 128-byte swizzle atom).
 *
 * All sm_90a code is under GK_WG_SM90A; the sm_80 and compute_90 passes of
 * CUDA_ARCH compile a body that traps (launchers must check first:
 * count_wgmma.cu's probe). */
#ifndef GK_WGMMA_COMMON_CUH
#define GK_WGMMA_COMMON_CUH

#include <stdint.h>

#include "params.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GK_WG_SM90A 1
#else
#define GK_WG_SM90A 0
#endif

#define GK_WG_STAGES 4       /* pipeline depth (loads run STAGES - 1 stages ahead) */
#define GK_WG_SLICE_WORDS 16 /* words of a row per stage: one 128-byte line */

template <int NP>
struct gk_wg_cfg;
template <>
struct gk_wg_cfg<2> {
    /* 64 x 32 variants, 3 stages: 64 accumulator registers and ~97 KB, so
     * two CTAs share an SM (measured: they hide little of each other's
     * epilogue; kernel time is about main loop plus epilogue,
     * doc/BENCHMARKS.md, fifth pass) */
    static constexpr int VM = 64, VN = 32, STAGES = 3, MIN_CTAS = 2;
};
template <>
struct gk_wg_cfg<3> {
    static constexpr int VM = 64, VN = 32, STAGES = GK_WG_STAGES, MIN_CTAS = 1;
};

/* Derived shape of the tile for NP planes. */
template <int NP>
struct gk_wg_shape {
    static constexpr int VM = gk_wg_cfg<NP>::VM, VN = gk_wg_cfg<NP>::VN;
    static constexpr int BM = VM * NP, BN = VN * NP;
    static constexpr int WGS = BM / 64;               /* warpgroups */
    static constexpr int THREADS = WGS * 128;
    static constexpr int ROWB = GK_WG_SLICE_WORDS * 8; /* 128 bytes */
    static constexpr int STAGE_BYTES = (BM + BN) * ROWB;
    static constexpr int STAGES = gk_wg_cfg<NP>::STAGES, MIN_CTAS = gk_wg_cfg<NP>::MIN_CTAS;
    static constexpr int SMEM_BYTES = STAGES * STAGE_BYTES + 1024; /* + alignment slack */
    static constexpr int ACC = BN / 2;                /* accumulator registers per class */
    static_assert(BM % 64 == 0 && BN % 16 == 0 && BN <= 256, "wgmma m64nN shape");
    static_assert(((BM + BN) * 8) % THREADS == 0, "loader");
};

/* The block-A row (tile-relative) that tile row r holds.  Three planes: r.
 * Two planes: rows come in groups of 16, plane 0 of eight variants then
 * plane 1 of the same eight, so that the accumulator rows gid and gid + 8 of
 * a warp (the wgmma accumulator layout: gk_wg_tile, wgmma_cp.cuh) are the
 * two planes of one variant and each thread holds all four products of its
 * pairs (gk_lay_wg). */
template <int NP>
__host__ __device__ constexpr int gk_wg_arow(int r)
{
    return NP == 2 ? (r & ~15) | ((r & 7) << 1) | ((r >> 3) & 1) : r;
}

/* Dynamic shared memory bytes and threads per CTA of gk_wg_tile<np>. */
__host__ __device__ constexpr int gk_wg_smem_bytes(int np)
{
    return np == 2 ? gk_wg_shape<2>::SMEM_BYTES : gk_wg_shape<3>::SMEM_BYTES;
}
__host__ __device__ constexpr int gk_wg_threads(int np)
{
    return np == 2 ? gk_wg_shape<2>::THREADS : gk_wg_shape<3>::THREADS;
}

/* ---- PTX wrappers ---------------------------------------------------------- */

__device__ __forceinline__ uint32_t gk_wg_smem_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* K-major, 128-byte swizzle descriptor of a matrix at shared address saddr
 * (1024-aligned up to the k-step offset): see the header comment. */
__device__ __forceinline__ uint64_t gk_wg_desc(uint32_t saddr)
{
    return (uint64_t)((saddr & 0x3FFFFu) >> 4) | ((uint64_t)1 << 16) | ((uint64_t)(1024 >> 4) << 32) |
           ((uint64_t)1 << 62);
}

#if GK_WG_SM90A
__device__ __forceinline__ void gk_wg_fence_proxy_async()
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
__device__ __forceinline__ void gk_wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void gk_wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void gk_wg_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
/* Keeps the compiler from moving accesses of r across the wgmma waits. */
__device__ __forceinline__ void gk_wg_fence_reg(int &r) { asm volatile("" : "+r"(r)::"memory"); }

/* D[64 x 96] += A[64 x 256] AND.POPC B[96 x 256]^T, both from shared memory. */
__device__ __forceinline__ void gk_wg_mma_n96(int (&d)[48], uint64_t da, uint64_t db)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n96k256.s32.b1.b1.and.popc "
                 "{"
                 "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
                 "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
                 "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47"
                 "}, %48, %49, 1;\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]),
                   "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]),
                   "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]),
                   "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]),
                   "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]),
                   "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47])
                 : "l"(da), "l"(db));
}

/* D[64 x 64] += A[64 x 256] AND.POPC B[64 x 256]^T, both from shared memory. */
__device__ __forceinline__ void gk_wg_mma_n64(int (&d)[32], uint64_t da, uint64_t db)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n64k256.s32.b1.b1.and.popc "
                 "{"
                 "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
                 "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31"
                 "}, %32, %33, 1;\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]),
                   "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]),
                   "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]),
                   "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
                 : "l"(da), "l"(db));
}

/* D[64 x 128] += A[64 x 256] AND.POPC B[128 x 256]^T, both from shared memory. */
__device__ __forceinline__ void gk_wg_mma_n128(int (&d)[64], uint64_t da, uint64_t db)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n128k256.s32.b1.b1.and.popc "
                 "{"
                 "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
                 "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
                 "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"
                 "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63"
                 "}, %64, %65, 1;\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]),
                   "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]),
                   "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]),
                   "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]),
                   "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]),
                   "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]),
                   "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]),
                   "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63])
                 : "l"(da), "l"(db));
}

/* D[64 x 256] += A[64 x 256] AND.POPC B[256 x 256]^T, both from shared memory. */
__device__ __forceinline__ void gk_wg_mma_n256(int (&d)[128], uint64_t da, uint64_t db)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n256k256.s32.b1.b1.and.popc "
                 "{"
                 "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
                 "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
                 "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"
                 "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,"
                 "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,"
                 "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,"
                 "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,"
                 "%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127"
                 "}, %128, %129, 1;\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]),
                   "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]),
                   "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]),
                   "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]),
                   "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]),
                   "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]),
                   "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]),
                   "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63]),
                   "+r"(d[64]), "+r"(d[65]), "+r"(d[66]), "+r"(d[67]), "+r"(d[68]), "+r"(d[69]), "+r"(d[70]), "+r"(d[71]),
                   "+r"(d[72]), "+r"(d[73]), "+r"(d[74]), "+r"(d[75]), "+r"(d[76]), "+r"(d[77]), "+r"(d[78]), "+r"(d[79]),
                   "+r"(d[80]), "+r"(d[81]), "+r"(d[82]), "+r"(d[83]), "+r"(d[84]), "+r"(d[85]), "+r"(d[86]), "+r"(d[87]),
                   "+r"(d[88]), "+r"(d[89]), "+r"(d[90]), "+r"(d[91]), "+r"(d[92]), "+r"(d[93]), "+r"(d[94]), "+r"(d[95]),
                   "+r"(d[96]), "+r"(d[97]), "+r"(d[98]), "+r"(d[99]), "+r"(d[100]), "+r"(d[101]), "+r"(d[102]), "+r"(d[103]),
                   "+r"(d[104]), "+r"(d[105]), "+r"(d[106]), "+r"(d[107]), "+r"(d[108]), "+r"(d[109]), "+r"(d[110]), "+r"(d[111]),
                   "+r"(d[112]), "+r"(d[113]), "+r"(d[114]), "+r"(d[115]), "+r"(d[116]), "+r"(d[117]), "+r"(d[118]), "+r"(d[119]),
                   "+r"(d[120]), "+r"(d[121]), "+r"(d[122]), "+r"(d[123]), "+r"(d[124]), "+r"(d[125]), "+r"(d[126]), "+r"(d[127])
                 : "l"(da), "l"(db));
}

template <int N>
struct gk_wg_mma;
template <>
struct gk_wg_mma<64> {
    static __device__ __forceinline__ void run(int (&d)[32], uint64_t da, uint64_t db) { gk_wg_mma_n64(d, da, db); }
};
template <>
struct gk_wg_mma<96> {
    static __device__ __forceinline__ void run(int (&d)[48], uint64_t da, uint64_t db) { gk_wg_mma_n96(d, da, db); }
};
template <>
struct gk_wg_mma<128> {
    static __device__ __forceinline__ void run(int (&d)[64], uint64_t da, uint64_t db) { gk_wg_mma_n128(d, da, db); }
};
#endif /* GK_WG_SM90A */

#if GK_WG_SM90A
/* Hands a thread's accumulators of both classes to the epilogue functor, one
 * m16n8 fragment at a time (see gk_wg_tile). */
template <int BN, class Epi>
__device__ __forceinline__ void gk_wg_handoff(const int (&acc0)[BN / 2], const int (&acc1)[BN / 2], Epi &epi)
{
    const int tid = threadIdx.x, row0 = (tid >> 7) * 64 + ((tid >> 5) & 3) * 16;
#pragma unroll
    for (int j = 0; j < BN / 8; j++) {
        const int cc[4] = {acc0[4 * j], acc0[4 * j + 1], acc0[4 * j + 2], acc0[4 * j + 3]};
        const int ct[4] = {acc1[4 * j], acc1[4 * j + 1], acc1[4 * j + 2], acc1[4 * j + 3]};
        epi(row0, 8 * j, cc, ct);
    }
    epi.finish();
}

/* Zeroes (zero = true) or only pins a thread's accumulators: ptxas
 * serializes the wgmma pipeline if accumulators are defined inside it
 * (C7515), and the fences keep accesses from moving across the waits. */
template <int ACC>
__device__ __forceinline__ void gk_wg_acc_pin(int (&acc0)[ACC], int (&acc1)[ACC], bool zero)
{
#pragma unroll
    for (int i = 0; i < ACC; i++) {
        if (zero) acc0[i] = acc1[i] = 0;
        gk_wg_fence_reg(acc0[i]);
        gk_wg_fence_reg(acc1[i]);
    }
}

/* Issues warpgroup wg's k256 steps of the stage at shared address st (A
 * rows first, BM of them, then B) into acc, as one commit group: the first
 * nk of the slice's four (gk_wg_nk: a class's last slice may hold fewer
 * words; the steps past its words would add products of zeros).
 * gk_wg_issue_ab: the same from the warpgroup's 64 A rows at sa and the B
 * rows at sb, both 1024-aligned slices of 128-byte rows. */
template <int BN>
__device__ __forceinline__ void gk_wg_issue_ab(uint32_t sa, uint32_t sb, int (&acc)[BN / 2], int nk)
{
    const uint64_t da = gk_wg_desc(sa), db = gk_wg_desc(sb);
    gk_wg_fence();
#pragma unroll
    for (int ks = 0; ks < GK_WG_SLICE_WORDS / 4; ks++)
        if (ks < nk) gk_wg_mma<BN>::run(acc, da + 2 * ks, db + 2 * ks);
    gk_wg_commit();
}
template <int BM, int BN>
__device__ __forceinline__ void gk_wg_issue(uint32_t st, int wg, int (&acc)[BN / 2], int nk = GK_WG_SLICE_WORDS / 4)
{
    constexpr int ROWB = GK_WG_SLICE_WORDS * 8;
    gk_wg_issue_ab<BN>(st + (uint32_t)(wg * 64 * ROWB), st + (uint32_t)(BM * ROWB), acc, nk);
}
#endif

/* The k256 steps (of four) that slice sl of a class of kw words needs: those
 * holding any of its words (the loader zero-fills the rest of the step). */
__host__ __device__ __forceinline__ int gk_wg_nk(int kw, int sl)
{
    const int w = kw - sl * GK_WG_SLICE_WORDS, n = (w + 3) / 4;
    return n < GK_WG_SLICE_WORDS / 4 ? n : GK_WG_SLICE_WORDS / 4;
}

#endif
