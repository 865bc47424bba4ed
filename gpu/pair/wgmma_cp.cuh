/* wgmma_cp.cuh -- the wgmma tile main loop fed by per-thread cp.async
 * (gk_wg_tile, both plane counts; the scan's default loader): every thread
 * copies the same chunks of every stage into the swizzled layout of
 * wgmma_common.cuh, STAGES - 1 stages ahead.
 *
 * Ordering: cp.async writes through the generic proxy and wgmma reads
 * through the async proxy, so every thread runs cp.async.wait_group, then
 * fence.proxy.async.shared::cta, then the CTA barrier before a stage is
 * consumed.  A stage buffer is refilled only after every warpgroup's
 * wgmma.wait_group has retired the group that read it (the barrier of the
 * following step orders it). */
#ifndef GK_WGMMA_CP_CUH
#define GK_WGMMA_CP_CUH

#include <stdint.h>

#include "params.cuh"
#include "wgmma_common.cuh"

__device__ __forceinline__ void gk_wg_cp16(uint32_t dst, const void *src, bool valid)
{
    int n = valid ? 16 : 0; /* 0: zero-fill the 16 bytes, read nothing */
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(n)
                 : "memory");
}

/* The same, every byte read (no size operand to compute). */
__device__ __forceinline__ void gk_wg_cp16_full(uint32_t dst, const void *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}

__device__ __forceinline__ void gk_wg_cp_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

template <int N>
__device__ __forceinline__ void gk_wg_cp_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/* The CTA tile of variants [a0, a0 + VM) of block A by [b0, b0 + VN) of block
 * B (gk_wg_shape<NP>::THREADS threads; smem: gk_wg_smem_bytes(NP) bytes of
 * dynamic shared memory, any 16-byte alignment).
 *
 * After the mainloop, every thread calls, once for each m16n8 fragment of
 * its warp (all lanes together, so epi may use __shfl_sync),
 *     epi(row0, col0, c_case, c_ctrl)      (const int (&)[4] each)
 * with row0 in [0, BM) and col0 in [0, BN) tile-relative (A-row and B-row
 * spaces) and, for lane l, gid = l >> 2, tig = l & 3:
 *     c[0] = C[row0 + gid][col0 + 2 tig],     c[1] = C[row0 + gid][col0 + 2 tig + 1],
 *     c[2] = C[row0 + gid + 8][col0 + 2 tig], c[3] = C[row0 + gid + 8][col0 + 2 tig + 1],
 * then epi.finish() once (all threads of the CTA).  The pipeline's shared
 * memory is free (all copies and wgmma reads retired, CTA barrier passed)
 * when the first epi() call is made, so the epilogue may reuse smem.
 *
 * That is the wgmma accumulator layout itself (PTX ISA "Matrix Fragments
 * for wgmma.mma_async.m64nNk256", accumulator D; CUTLASS CLayout_64xN =
 * ((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512)) over m + 64 n): thread t of
 * the warpgroup, warp w = t / 32, holds d[4j + 2i + e] = D[16 w + gid + 8 i]
 * [8 j + 2 tig + e], i.e. per warp and per 8-column chunk j exactly the
 * m16n8 C fragment {d[4j], d[4j+1], d[4j+2], d[4j+3]} at row0 = 64 g + 16 w,
 * col0 = 8 j.
 *
 * PLAIN picks the copy code (a measurement switch, EPISTREAM_GPU_LOAD=cp-regs
 * or cp-plain; the same bytes land in the same places either way):
 * false keeps the chunk sources in registers and copies a stage whose chunks
 * all exist without size operands (epi24d); true is the loader before it
 * (602f606): sources rebuilt at every stage, every chunk with its size
 * operand.  count_wgmma.cu picks one per scan shape (wg_cp_plain). */
template <int NP, bool PLAIN = false, class Epi>
__device__ __forceinline__ void gk_wg_tile(const gk_params &P, int a0, int b0, unsigned char *smem, Epi &epi)
{
#if GK_WG_SM90A
    using S = gk_wg_shape<NP>;
    constexpr int BM = S::BM, BN = S::BN, ROWB = S::ROWB, STAGE = S::STAGE_BYTES, ACC = S::ACC;
    constexpr int STAGES = S::STAGES, SW = GK_WG_SLICE_WORDS;
    static_assert(STAGES >= 2, "the refill runs STAGES - 1 ahead");
    const int tid = threadIdx.x, wg = tid >> 7;

    /* 1024-byte aligned base in the shared window (the swizzle atoms) */
    uint32_t base = gk_wg_smem_u32(smem);
    base = (base + 1023u) & ~1023u;

    const int S0 = ((int)P.kw0 + SW - 1) / SW, S1 = ((int)P.kw1 + SW - 1) / SW, NS = S0 + S1;
    const size_t words = P.words;
    const int rowsA = ((int)P.na - a0) * NP, rowsB = ((int)P.nb - b0) * NP;

    /* Every thread copies the same LD 16-byte chunks of every stage: chunk
     * ch = tid % 8 of rows r_i = tid / 8 + i * RS (RS = THREADS / 8), the
     * first LA of them in A, the rest in B.  Rows step by a multiple of 8, so
     * the swizzle (ch ^ (r & 7)) is the same for all of them: sources and
     * destinations are a per-thread base plus i times a constant stride, and
     * only the word offset moves from stage to stage. */
    constexpr int LD = (BM + BN) * 8 / S::THREADS, RS = S::THREADS / 8, LA = BM / RS;
    static_assert(BM % RS == 0 && BN % RS == 0, "loader rows split between A and B");
    static_assert(RS % 16 == 0, "the A row order repeats every 16 rows");
    const int ch = tid & 7, r0 = tid >> 3, ra0 = gk_wg_arow<NP>(r0); /* ra0 + i RS = gk_wg_arow(r0 + i RS) */
    const uint32_t dst0 = (uint32_t)(r0 * ROWB + ((ch ^ (r0 & 7)) << 4));
    const uint64_t *srcA = P.pa + ((size_t)a0 * NP + ra0) * words + 2 * ch;
    const uint64_t *srcB = P.pb + ((size_t)b0 * NP + r0) * words + 2 * ch;
    const size_t rstride = (size_t)RS * words; /* words from one of a thread's rows to the next */
    uint32_t rows_ok = 0;                      /* bit i: row r_i exists */
    const uint64_t *src[LD];                   /* row r_i's first word */
#pragma unroll
    for (int i = 0; i < LD; i++) {
        if (i < LA ? ra0 + i * RS < rowsA : r0 + (i - LA) * RS < rowsB) rows_ok |= 1u << i;
        src[i] = i < LA ? srcA + (size_t)i * rstride : srcB + (size_t)(i - LA) * rstride;
    }
    /* kept in registers: the compiler would rebuild them at every stage */
    if constexpr (!PLAIN) {
#pragma unroll
        for (int i = 0; i < LD; i++) asm volatile("" : "+l"(src[i]));
        asm volatile("" : "+r"(rows_ok));
    }
    const bool rows_all = rows_ok == (1u << LD) - 1u;

    /* Stage s (cases first, then controls) into buffer buf; each row's 128
     * bytes are one coalesced read by 8 consecutive threads. */
    auto load = [&](int s, int buf) {
        const bool ctrl = s >= S0;
        const int w0 = (ctrl ? s - S0 : s) * SW;
        const bool wok = w0 + 2 * ch < (ctrl ? (int)P.kw1 : (int)P.kw0);
        const size_t woff = (size_t)((ctrl ? (int)P.off_ctrl : 0) + w0);
        const uint32_t st = base + (uint32_t)(buf * STAGE) + dst0;
        /* every chunk (all but the tiles' edges and a class's last slice):
         * decided for the whole slice, not by wok, so that the lanes of a
         * warp agree (a half slice, N/2 < 1024 samples a class, would
         * otherwise run both paths in every warp) */
        if constexpr (PLAIN) {
#pragma unroll
            for (int i = 0; i < LD; i++) {
                const bool ok = wok && ((rows_ok >> i) & 1u);
                const uint64_t *sp = i < LA ? srcA + woff + (size_t)i * rstride
                                            : srcB + woff + (size_t)(i - LA) * rstride;
                gk_wg_cp16(st + (uint32_t)(i * RS * ROWB), ok ? sp : P.pa, ok); /* B rows follow A's */
            }
            return;
        }
        const bool full = w0 + SW <= (ctrl ? (int)P.kw1 : (int)P.kw0);
        if (full && rows_all) {
#pragma unroll
            for (int i = 0; i < LD; i++) gk_wg_cp16_full(st + (uint32_t)(i * RS * ROWB), src[i] + woff);
            return;
        }
#pragma unroll
        for (int i = 0; i < LD; i++) {
            const bool ok = wok && ((rows_ok >> i) & 1u);
            gk_wg_cp16(st + (uint32_t)(i * RS * ROWB), ok ? src[i] + woff : P.pa, ok); /* B rows follow A's */
        }
    };

    int acc0[ACC], acc1[ACC];
    gk_wg_acc_pin(acc0, acc1, true);

    /* Loads run STAGES - 1 stages ahead: every step retires its own wgmma
     * group before the next step's barrier, so the buffer read one step ago
     * is free to refill (the two warpgroups of a CTA and the other CTA of the
     * SM keep the tensor cores busy meanwhile). */
    const bool two = PLAIN && STAGES >= 3 && S0 == 1 && S1 == 1;
    if (two) {
        /* each class one slice (the plain code's shapes: N / 2 up to 1,024
         * samples a class): the whole operand is two stages that differ only
         * by the word offset and the class's width, so each chunk's source
         * and validity are built once and serve both (about half the
         * address arithmetic of two load() calls), the cases' stage issued
         * first, in the same commit groups as the loop below; both are then
         * consumed in one step (below) */
        const bool ok0 = 2 * ch < (int)P.kw0, ok1 = 2 * ch < (int)P.kw1;
        const uint32_t st0 = base + dst0;
        const uint64_t *sp[LD];
#pragma unroll
        for (int i = 0; i < LD; i++) {
            /* built here, whether or not the chunk exists (without the pin
             * ptxas builds it under a branch of its own, chunk by chunk) */
            sp[i] = src[i];
            asm volatile("" : "+l"(sp[i]));
            const bool ok = ok0 && ((rows_ok >> i) & 1u);
            gk_wg_cp16(st0 + (uint32_t)(i * RS * ROWB), ok ? sp[i] : P.pa, ok);
        }
        gk_wg_cp_commit();
#pragma unroll
        for (int i = 0; i < LD; i++) {
            const bool ok = ok1 && ((rows_ok >> i) & 1u);
            gk_wg_cp16(st0 + (uint32_t)(STAGE + i * RS * ROWB), ok ? sp[i] + P.off_ctrl : P.pa, ok);
        }
        gk_wg_cp_commit();
#pragma unroll
        for (int s = 2; s < STAGES - 1; s++) gk_wg_cp_commit();
    } else {
#pragma unroll
        for (int s = 0; s < STAGES - 1; s++) {
            if (s < NS) load(s, s);
            gk_wg_cp_commit();
        }
    }

    /* One stage: wait for its copies, refill the buffer retired one step
     * ago, issue its four k256 steps, retire them. */
    auto step = [&](int s, int buf, int(&acc)[ACC]) {
        gk_wg_cp_wait<STAGES - 2>();
        gk_wg_fence_proxy_async();
        __syncthreads();
        if (s + STAGES - 1 < NS) load(s + STAGES - 1, buf == 0 ? STAGES - 1 : buf - 1);
        gk_wg_cp_commit();
        const int nk = s < S0 ? gk_wg_nk((int)P.kw0, s) : gk_wg_nk((int)P.kw1, s - S0);
        gk_wg_issue<BM, BN>(base + (uint32_t)(buf * STAGE), wg, acc, nk);
        gk_wg_wait<0>();
    };

    int s = 0, buf = 0;
    if (two) {
        /* both stages in one step: one wait for every copy (they were issued
         * together), one barrier, and both classes' wgmma groups in flight
         * at once (one wgmma wait and one CTA barrier fewer than two steps) */
        gk_wg_cp_wait<0>();
        gk_wg_fence_proxy_async();
        __syncthreads();
        gk_wg_issue<BM, BN>(base, wg, acc0, gk_wg_nk((int)P.kw0, 0));
        gk_wg_issue<BM, BN>(base + (uint32_t)STAGE, wg, acc1, gk_wg_nk((int)P.kw1, 0));
        gk_wg_wait<0>();
        s = NS;
    }
    for (; s < S0; s++) {
        step(s, buf, acc0);
        buf = buf + 1 == STAGES ? 0 : buf + 1;
    }
    for (; s < NS; s++) {
        step(s, buf, acc1);
        buf = buf + 1 == STAGES ? 0 : buf + 1;
    }
    gk_wg_wait<0>();
    gk_wg_cp_wait<0>();
    gk_wg_acc_pin(acc0, acc1, false);
    __syncthreads(); /* every warpgroup's wgmma reads retired: smem is the epilogue's */
    gk_wg_handoff<BN>(acc0, acc1, epi);
#else
    (void)P;
    (void)a0;
    (void)b0;
    (void)smem;
    __trap(); /* built without sm_90a: launchers probe first (count_wgmma.cu) */
    const int z[4] = {0, 0, 0, 0};
    epi(0, 0, z, z); /* not reached; keeps the functor referenced in every pass */
    epi.finish();
#endif
}

#endif
