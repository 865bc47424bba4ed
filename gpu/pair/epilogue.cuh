/* epilogue.cuh -- the fused epilogue that every pair-counting kernel family
 * (count_mma.cu, count_popc.cu, count_wgmma.cu) runs on its tile's products:
 * its shared memory, the per-variant constants (built at block upload,
 * copied per CTA), and the phases S (screen), A (bounds), B (BOOST fits),
 * C (thresholds) and D (emit).
 *
 * The epilogue never writes per-pair counts to memory.  For each pair of a
 * CTA tile it builds the 2x3x3 table from the products and the per-variant
 * genotype counts, computes a float upper bound (and, where cheap, a lower
 * bound) of the statistic, and emits the pair -- indices and table -- only if
 * its upper bound could reach the top-k, either variant's best or the
 * significance threshold.  The host then scores the few candidates with the
 * CPU's exact code, so the output is the CPU backend's to the byte.
 *
 * The bounds use per-variant constants (genotype margins, their entropies,
 * the Kirkwood weights) computed once per CTA when no call is missing (two
 * planes), and the same quantities derived per pair from its table when calls
 * are missing (three planes).
 *
 * Thresholds are lower bounds of exact statistics of real pairs:
 *   - thr[v] (device-wide, per variant): the best lower bound seen for v;
 *   - the top-k level: a histogram of one lower bound per CTA row (distinct
 *     pairs), whose k-th best bin edge bounds the k-th best statistic;
 *   - the host's exact k-th best, passed at launch.
 * Every bound is in "score" orientation (higher is better; K2 is negated) and
 * kept as an order-preserving 32-bit key so atomicMax works on it. */
#ifndef GK_EPILOGUE_CUH
#define GK_EPILOGUE_CUH

#include <stdint.h>

#include "params.cuh"
#include "bounds.cuh"
#include "boost_lo.cuh"
#include "layout.cuh"
#include "screen.cuh"

/* Which threads run an epilogue and how they meet.  gk_grp_cta: the whole
 * CTA (the tile kernels); gk_grp_named<FIRST, N, BAR>: the N threads from
 * FIRST (a multiple of 32), meeting at named barrier BAR -- the epilogue
 * warpgroups of the warp-specialised kernel (count_ws.cu), while the other
 * warps of the CTA go on with the next tile.  tid() is the thread's index in
 * the group, size() the group's threads, sync() a barrier of the group that
 * orders its shared memory accesses as __syncthreads does. */
struct gk_grp_cta {
    static __device__ __forceinline__ int tid() { return (int)threadIdx.x; }
    static __device__ __forceinline__ int size() { return (int)blockDim.x; }
    static __device__ __forceinline__ void sync() { __syncthreads(); }
};
/* The whole CTA of N threads, N known when compiling: gk_grp_cta's, with
 * the constants' copy loops of gk_epi_load_consts unrolled into a few
 * predicated copies a thread (the fused two-plane wgmma tile). */
template <int N>
struct gk_grp_ctan {
    static __device__ __forceinline__ int tid() { return (int)threadIdx.x; }
    static constexpr __device__ __forceinline__ int size() { return N; }
    static __device__ __forceinline__ void sync() { __syncthreads(); }
};
/* A group's size when it is known at compile time, else 0. */
template <class G>
struct gk_grp_count {
    static constexpr int value = 0;
};
template <int N>
struct gk_grp_count<gk_grp_ctan<N>> {
    static constexpr int value = N;
};
/* f(i) for every i in [0, N), spread over the threads of group G; a group
 * of known size C runs it as ceil(N / C) predicated calls a thread. */
template <class G, int N, class F>
__device__ __forceinline__ void gk_grp_for(F f)
{
    constexpr int C = gk_grp_count<G>::value;
    if constexpr (C > 0) {
#pragma unroll
        for (int k = 0; k < (N + C - 1) / C; k++) {
            const int i = G::tid() + k * C;
            if (N % C == 0 || i < N) f(i);
        }
    } else {
        for (int i = G::tid(); i < N; i += G::size()) f(i);
    }
}
template <int FIRST, int N, int BAR>
struct gk_grp_named {
    static_assert(FIRST % 32 == 0 && N % 32 == 0 && BAR > 0 && BAR < 16, "whole warps, a named barrier");
    static __device__ __forceinline__ int tid() { return (int)threadIdx.x - FIRST; }
    static __device__ __forceinline__ int size() { return N; }
    static __device__ __forceinline__ void sync() { asm volatile("bar.sync %0, %1;\n" ::"n"(BAR), "n"(N) : "memory"); }
};

/* Shared memory of the epilogue besides the products. */
/* The screen's scalars (gk_epilogue): on, nats -> score (sc) and -> G (gc),
 * the absolute margin, and the top-k level when the CTA started. */
struct gk_scr_k {
    int on;
    float sc, gc, abs;
    uint32_t tau0;
};

/* The screen's scalars from the class split (n0 cases, n1 controls) and the
 * top-k histogram's bin, for a two-plane tile of statistic STAT. */
template <int STAT>
__device__ __forceinline__ gk_scr_k gk_scr_make(uint32_t n0, uint32_t n1, uint32_t tb, uint32_t tau_host)
{
    const float N = (float)n0 + (float)n1, LN2 = 0.69314718f;
    gk_scr_k K;
    /* products and counts must stay exact in float (gk_u2f) */
    K.on = STAT != GK_K2 && N < 8388608.0f;
    K.sc = STAT == GK_BOOST ? 2.0f : STAT == GK_CHI2 ? 1.0f : 1.0f / (LN2 * fmaxf(N, 1.0f));
    K.gc = STAT == GK_CHI2 ? 1.0f : 2.0f;
    K.abs = 2e-6f * N + 1e-3f;
    K.tau0 = gk_tau_of_bin(tb, tau_host);
    return K;
}

template <int VM, int VN>
struct gk_epi_smem {
    gk_vc va[VM], vb[VN];
    gk_cc cc;
    gk_srow srow[VM]; /* the screen's constants (two planes) */
    gk_scol scol[VN];
    uint32_t rthr[VM], cthr[VN]; /* the variants' thresholds when the CTA started */
    unsigned long long rowbest[VM], colbest[VN]; /* (key << 32) | index */
    uint32_t rowlo[VM], collo[VN];               /* keys */
    uint32_t tau;
    uint32_t tb0;  /* the top-k histogram's bin when the CTA started */
    uint32_t g6[6]; /* the first row variant's class x genotype counts: the class split */
    gk_scr_k scr;   /* the screen's scalars as thread 0 built them (gk_params.epi1) */
    int hist_touched;
    /* the screen's survivors: (q << 8) | owner thread, bit 31 set when the
     * pair is significant; qup: the key of its upper bound */
    int nq;
    uint32_t qent[GK_QCAP], qup[GK_QCAP];
    /* BOOST: pairs whose exact fit is wanted (phase B) */
    int n_fit;
    uint32_t fit_n[VM + VN][2][9];
    uint32_t fit_who[VM + VN]; /* row + 1 << 8 | column + 1 (0: none) */
};

/* One variant's constants from its class x genotype counts g (zero past
 * the block): as a row and as a column, and (two planes) the screen's (v1:
 * the older form's).  Called once per variant and block upload (k_vpre). */
template <int STAT, int NP>
__device__ __forceinline__ void gk_vpre_build(const uint32_t g[6], int v1, gk_vc &r, gk_vc &c, gk_srow &R,
                                              gk_scol &C)
{
    float cn[2][3], ny[2];
#pragma unroll
    for (int i = 0; i < 6; i++) {
        r.g[i] = c.g[i] = g[i];
        cn[i / 3][i % 3] = (float)g[i];
    }
    ny[0] = cn[0][0] + cn[0][1] + cn[0][2];
    ny[1] = cn[1][0] + cn[1][1] + cn[1][2];
    gk_vc_build<true>(cn, ny, false, r);
    gk_vc_build<true>(cn, ny, true, c);
    if (NP == 2) gk_screen_build<STAT>(g, cn, ny, r.h, v1, R, C);
}

/* N 16-byte words from global src to shared dst, by all threads of group G,
 * as asynchronous copies (sm_80+): they complete by gk_consts_wait() or any
 * cp.async.wait_group that retires a group committed after them. */
template <class G, int N>
__device__ __forceinline__ void gk_copy16(void *dst, const void *src)
{
    gk_grp_for<G, N>([&](int i) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"((uint32_t)__cvta_generic_to_shared(
                         (int4 *)dst + i)),
                     "l"((const int4 *)src + i)
                     : "memory");
#else
        ((int4 *)dst)[i] = __ldg((const int4 *)src + i);
#endif
    });
}

/* Waits for this thread's copies of gk_epi_load_consts (a kernel whose main
 * loop does not wait for every cp.async group calls it before the barrier
 * that precedes the epilogue). */
__device__ __forceinline__ void gk_consts_wait()
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

/* One 4-byte word from global src to shared dst, by this thread, as an
 * asynchronous copy (sm_80+; cached in L1: a value another CTA changed since
 * may read old, which for the thresholds and the top-k bin, that only rise,
 * is a lower and so still valid threshold). */
__device__ __forceinline__ void gk_copy4(uint32_t *dst, const uint32_t *src)
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"((uint32_t)__cvta_generic_to_shared(dst)),
                 "l"(src)
                 : "memory");
#else
    *dst = *(const volatile uint32_t *)src;
#endif
}

/* Per-variant constants of the CTA's rows and columns (copied from the
 * blocks' gk_vpre), their thresholds, the top-k histogram's bin and the
 * class split, all as asynchronous copies (one cp.async group, committed
 * here, so the main loop's first loads queue behind it instead of waiting
 * for a global load: gk_epilogue derives the rest).  Call by all threads of
 * group G before the main loop; the copies are complete once a later
 * cp.async group is waited for (or gk_consts_wait), and the group's next
 * barrier publishes.  P.epi1: the previous form (the thresholds, the bin and
 * the class split read by plain loads, the scalars built here). */
template <int STAT, int NP, int VM, int VN, class G = gk_grp_cta>
__device__ __forceinline__ void gk_epi_load_consts(const gk_params &P, int a0, int b0,
                                                   gk_epi_smem<VM, VN> &S, bool rows = true)
{
    static_assert(sizeof(gk_vc) % 16 == 0 && sizeof(gk_srow) % 16 == 0 && sizeof(gk_scol) % 16 == 0, "int4 copies");
    /* rows false: S.va and S.srow already hold the rows' (a CTA that scores
     * several column tiles of the same rows) */
    if (rows) gk_copy16<G, VM * (int)sizeof(gk_vc) / 16>(S.va, P.prea.vrow + a0);
    gk_copy16<G, VN * (int)sizeof(gk_vc) / 16>(S.vb, P.preb.vcol + b0);
    if (NP == 2) {
        if (rows) gk_copy16<G, VM * (int)sizeof(gk_srow) / 16>(S.srow, P.prea.srow + a0);
        gk_copy16<G, VN * (int)sizeof(gk_scol) / 16>(S.scol, P.preb.scol + b0);
    }
    const bool async = !P.epi1;
    gk_grp_for<G, VM + VN>([&](int k) {
        bool row = k < VM;
        int v = row ? k : k - VM;
        int gv = (row ? a0 : b0) + v;
        bool ok = gv < (int)(row ? P.na : P.nb);
        /* the thresholds serve the screen only (two planes) */
        uint32_t *dst = row ? &S.rthr[v] : &S.cthr[v];
        const uint32_t *src = &P.thr[(row ? P.first_a : P.first_b) + gv];
        if (NP == 2 && ok && async) gk_copy4(dst, src);
        else *dst = NP == 2 && ok ? *((const volatile uint32_t *)src) : 0xffffffffu;
        if (row) {
            S.rowbest[v] = 0ull;
            S.rowlo[v] = 0u;
        } else {
            S.colbest[v] = 0ull;
            S.collo[v] = 0u;
        }
    });
    if (NP == 2 && async && G::tid() >= 32 && G::tid() < 38) /* not the thread below */
        gk_copy4(&S.g6[G::tid() - 32], P.ga + (size_t)a0 * 6 + (G::tid() - 32));
    if (NP == 2 && async && G::tid() == 38) gk_copy4(&S.tb0, &P.tau_bin[0]);
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
    if (G::tid() == 0) {
        if (NP == 2 && !async) {
            /* the class split: every variant's, no call being missing */
            const uint32_t *g = P.ga + (size_t)a0 * 6;
            gk_cc cc;
            gk_cc_build<true>((float)(g[0] + g[1] + g[2]), (float)(g[3] + g[4] + g[5]), cc);
            S.cc = cc;
            S.scr = gk_scr_make<STAT>(g[0] + g[1] + g[2], g[3] + g[4] + g[5],
                                      *((volatile uint32_t *)&P.tau_bin[0]), P.tau_host);
        } else if (NP != 2) {
            S.scr.on = 0;
        }
        S.hist_touched = 0;
        S.n_fit = 0;
        S.nq = 0;
    }
}

template <int STAT, int NP, int VM, int VN>
__device__ __forceinline__ gk_bounds gk_pair_bound(const uint32_t n[2][9], int a, int b,
                                                   const gk_epi_smem<VM, VN> &S, const gk_params &P)
{
    if (NP == 2 || STAT == GK_K2 || STAT == GK_CHI2) return gk_bound<STAT>(n, S.va[a], S.vb[b], S.cc, P);
    gk_vc A, B;
    gk_cc C;
    gk_margins_of(n, A, B, C);
    return gk_bound<STAT>(n, A, B, C, P);
}

/* The default screen's view of a pair's products in layout L: the cases'
 * and the totals' counts as floats (gk_screen_f).  A layout may specialise
 * it with a cheaper conversion (count_ws.cu's 16-bit products); the floats
 * must be the same.  S3: the screen sums a stratum with one reciprocal
 * (gk_screen_s3; the ws kernel's tiles) instead of three. */
template <class L>
struct gk_lay_screen {
    static constexpr bool S3 = false;
    __device__ static __forceinline__ void load(const uint32_t *prod, int q, int t, int a, int b, float c[4],
                                                float tt[4])
    {
        uint32_t x[8];
        L::load(prod, q, t, a, b, x);
        gk_screen_f(x, c, tt);
    }
};

/* Thread t's q-th pair: its bounds (phase A), from the products. */
template <int STAT, class L, int VM, int VN>
__device__ __forceinline__ gk_bounds gk_epi_bound(const gk_params &P, const uint32_t *prod, int q, int t, int a,
                                                  int b, const gk_epi_smem<VM, VN> &S)
{
    constexpr int NP = L::NP;
    uint32_t x[2 * NP * NP], n[2][9];
    L::load(prod, q, t, a, b, x);
    gk_cells<NP>(x, S.va[a].g, S.vb[b].g, n);
    return gk_pair_bound<STAT, NP, VM, VN>(n, a, b, S, P);
}

/* Phase B for one pair (BOOST): queue its table for the exact fit when it is
 * its row's or column's most promising pair and could raise that variant's
 * threshold.  Not against the top-k level: every variant's best partner is
 * wanted, and a variant without a bound would emit all its pairs. */
template <class L, int VM, int VN>
__device__ __forceinline__ void gk_epi_fit_want(const gk_params &P, const uint32_t *prod, int q, int t, int a,
                                                int b, uint32_t ku, int a0, int b0, gk_epi_smem<VM, VN> &S)
{
    constexpr int NP = L::NP;
    unsigned long long kup = (unsigned long long)ku << 32;
    bool rb = S.rowbest[a] == (kup | (uint32_t)b), cb = S.colbest[b] == (kup | (uint32_t)a);
    if (!rb && !cb) return;
    if (rb) rb = ku > *((volatile uint32_t *)&P.thr[P.first_a + a0 + a]);
    if (cb) cb = ku > *((volatile uint32_t *)&P.thr[P.first_b + b0 + b]);
    if (!rb && !cb) return;
    uint32_t x[2 * NP * NP], n[2][9];
    L::load(prod, q, t, a, b, x);
    gk_cells<NP>(x, S.va[a].g, S.vb[b].g, n);
    int slot = atomicAdd(&S.n_fit, 1);
#pragma unroll
    for (int y = 0; y < 2; y++)
#pragma unroll
        for (int k = 0; k < 9; k++) S.fit_n[slot][y][k] = n[y][k];
    S.fit_who[slot] = (rb ? (uint32_t)a + 1u : 0u) | (cb ? ((uint32_t)b + 1u) << 8 : 0u);
}

/* A candidate slot for each lane of the warp that emits: every lane calls
 * (emit may be false), the warp reserves its slots with one atomic.  True
 * when this lane emits and its slot is below the buffer's capacity. */
__device__ __forceinline__ bool gk_epi_slot(const gk_params &P, bool emit, uint32_t &slot)
{
    unsigned m = __ballot_sync(0xffffffffu, emit);
    if (!m) return false;
    uint32_t base = 0;
    const int lane = threadIdx.x & 31, leader = __ffs(m) - 1;
    if (lane == leader) base = atomicAdd(P.n_cand, (uint32_t)__popc(m));
    base = __shfl_sync(0xffffffffu, base, leader);
    slot = base + __popc(m & ((1u << lane) - 1u));
    return emit && slot < P.cap;
}

/* Writes candidate (i, j) with table n to slot. */
__device__ __forceinline__ void gk_epi_put(const gk_params &P, uint32_t slot, uint32_t i, uint32_t j,
                                           const uint32_t (&n)[2][9])
{
    es_gpu_cand_t *c = &P.cand[slot];
    c->i = i;
    c->j = j;
#pragma unroll
    for (int y = 0; y < 2; y++)
#pragma unroll
        for (int k = 0; k < 9; k++) c->n[y][k] = n[y][k];
}

/* Phase D for one candidate slot of the warp (all lanes call; the table is
 * rebuilt from the products by the lanes that emit). */
template <class L, int VM, int VN>
__device__ __forceinline__ void gk_epi_emit(const gk_params &P, const uint32_t *prod, bool emit, int q, int t,
                                            int a, int b, int a0, int b0, const gk_epi_smem<VM, VN> &S)
{
    constexpr int NP = L::NP;
    uint32_t slot;
    if (!gk_epi_slot(P, emit, slot)) return;
    uint32_t x[2 * NP * NP], n[2][9];
    L::load(prod, q, t, a, b, x);
    gk_cells<NP>(x, S.va[a].g, S.vb[b].g, n);
    gk_epi_put(P, slot, P.first_a + (uint32_t)(a0 + a), P.first_b + (uint32_t)(b0 + b), n);
}

/* The fused epilogue.  prod: the CTA tile's products in layout L; a0, b0:
 * first variant of the tile in each block.  Called by all threads of group G
 * (by default the CTA) after the products are in shared memory.  FITS false:
 * phase B is not compiled in (BOOST's fits, in double, would set the
 * kernel's register budget and spill the screen's state to local memory), for
 * launches that would not run it but in CTAs with more survivors than their
 * queue holds, which then emit against the thresholds as they stand, as
 * the queue's CTAs do (gk_launch_wgmma picks it: two planes, the second
 * stage on, not a diagonal tile's pre-pass).
 *
 * Phase S screens every pair (two planes, not K2); the survivors go to the
 * CTA's queue.  When they fit it (dense mode) phases A, B and D walk the
 * queue, one survivor per thread; otherwise (the first tiles of a scan, when
 * no threshold is known yet; three planes; K2) every thread walks its own
 * surviving pairs. */
template <int STAT, class L, int VM, int VN, class G = gk_grp_cta, bool FITS = true>
__device__ void gk_epilogue(const gk_params &P, const uint32_t *prod, int a0, int b0,
                            gk_epi_smem<VM, VN> &S)
{
    constexpr int NP = L::NP, PPT = L::PPT;
    constexpr bool boost = STAT == GK_BOOST, screen = NP == 2 && STAT != GK_K2;
    static_assert(VM + VN <= GK_THREADS && VM < 255 && VN < 255, "phase B/C: a thread per row and column");
    static_assert(PPT <= 32 && GK_THREADS <= 256, "survivor masks and queue entries");
    const int tid = G::tid();
    const bool act = tid < GK_THREADS; /* warp-uniform */

    /* the screen's scalars: each thread's own from the class split (two
     * planes; P.epi1: as gk_epi_load_consts's thread 0 built them) */
    gk_scr_k K = {0, 0.0f, 0.0f, 0.0f, 0u};
    if (NP == 2 && P.epi1) {
        K = S.scr;
    } else if (NP == 2) {
        /* every thread derives them rather than wait at a barrier for one thread's */
        const uint32_t n0 = S.g6[0] + S.g6[1] + S.g6[2], n1 = S.g6[3] + S.g6[4] + S.g6[5];
        K = gk_scr_make<STAT>(n0, n1, S.tb0, P.tau_host);
        /* for phases A and B, after the queue's barrier: only where there is
         * one (K2 has no screen, and its bound reads no class split) */
        if (screen && tid == 0) {
            gk_cc cc;
            gk_cc_build<true>((float)n0, (float)n1, cc);
            S.cc = cc;
        }
    }

    /* a BOOST CTA tile of a kernel without the in-tile fits (gk_boost_fitless:
     * counted for the log and the tests, P.screen[6]) */
    if constexpr (boost && !FITS)
        if (tid == 0) atomicAdd(&P.screen[6], 1ull);

    /* phase S: the pairs that could matter (mask bit q: thread's pair q).
     * Which pairs exist (in both blocks, above the diagonal of a diagonal
     * tile) is one mask, built before the screen: nothing about a pair's
     * existence is decided inside the loop, so no pair's screen sits under a
     * branch of its own and ptxas may interleave the pairs' independent
     * chains (loads, conversions, nine reciprocals each).  A CTA wholly
     * inside both blocks and above the diagonal (nearly all) builds it with
     * no per-pair test at all. */
    uint32_t vmask = 0;
    {
        const int gi0 = (int)P.first_a + a0, gj0 = (int)P.first_b + b0;
        const bool inner = a0 + VM <= (int)P.na && b0 + VN <= (int)P.nb && (!P.diag || gi0 + VM - 1 < gj0);
        if (inner) {
            vmask = act ? (PPT == 32 ? 0xffffffffu : (1u << PPT) - 1u) : 0u;
        } else {
#pragma unroll
            for (int q = 0; q < PPT; q++) {
                int a, b;
                L::pair(q, tid, a, b);
                const bool ok = act && a0 + a < (int)P.na && b0 + b < (int)P.nb && (!P.diag || gi0 + a < gj0 + b);
                vmask |= (uint32_t)ok << q;
            }
        }
    }
    /* (V: the screen's form, gk_screen_nats; one loop for each) */
    /* BOOST and chi2 score the screen's nats in G's scale (gk_scr_make: sc
     * = gc, 2 and 1), so the significance test is one more threshold key,
     * folded into the row's: one comparison a pair instead of two, an OR
     * and a product */
    constexpr bool one_scale = STAT == GK_BOOST || STAT == GK_CHI2;
    constexpr float one_sc = STAT == GK_BOOST ? 2.0f : 1.0f;
    auto phase_s = [&](auto V) -> uint32_t {
        if (!(screen && K.on)) return vmask;
        uint32_t pass = 0;
        gk_srow R;
        /* the lowest of the top-k level, the row's threshold and (one_scale)
         * the significance threshold's key */
        uint32_t mrow = 0u;
        const uint32_t ksig = gk_fkey(P.sig_min_g);
#pragma unroll
        for (int q = 0; q < PPT; q++) {
            int a, b;
            L::pair(q, tid, a, b);
            if (q % L::ROWQ == 0) {
                R = S.srow[a];
                mrow = K.tau0 < S.rthr[a] ? K.tau0 : S.rthr[a];
                if (one_scale) mrow = mrow < ksig ? mrow : ksig;
            }
            /* every pair is screened, valid or not (a pair past the block
             * has zero products and zero constants), and its verdict is
             * kept whatever vmask says: its bound is computed on every
             * path, so it needs no branch */
            float nats;
            if constexpr (decltype(V)::value == 1) {
                uint32_t x[8];
                L::load(prod, q, tid, a, b, x);
                nats = gk_screen_nats<1>(x, R, S.scol[b], K.abs);
            } else {
                float c[4], t[4];
                gk_lay_screen<L>::load(prod, q, tid, a, b, c, t);
                nats = gk_screen_nats2f<gk_lay_screen<L>::S3>(c, t, R, S.scol[b]);
            }
            const uint32_t ct = S.cthr[b], m = mrow < ct ? mrow : ct;
            /* nats > 0 (a sum that is never negative plus a positive
             * margin), so its key is its bits with the top set (gk_fkey), and
             * key order is float order: >= ksig is nats * gc >= sig_min_g */
            uint32_t hit;
            if constexpr (one_scale)
                hit = (uint32_t)((__float_as_uint(nats * one_sc) | 0x80000000u) >= m);
            else
                hit = (uint32_t)((__float_as_uint(nats * K.sc) | 0x80000000u) >= m) |
                      (uint32_t)(nats * K.gc >= P.sig_min_g);
            pass |= hit << q;
        }
        return pass & vmask;
    };
    const uint32_t mask = screen && P.screen1 ? phase_s(gk_screen_v<1>()) : phase_s(gk_screen_v<2>());
    bool dense = false;
    if (screen) {
        /* queue the survivors: one shared atomic per warp */
        const int lane = tid & 31;
        uint32_t cnt = (uint32_t)__popc(mask), inc = cnt;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            uint32_t v = __shfl_up_sync(0xffffffffu, inc, o);
            if (lane >= o) inc += v;
        }
        uint32_t tot = __shfl_sync(0xffffffffu, inc, 31), base = 0;
        if (lane == 31 && tot) base = (uint32_t)atomicAdd(&S.nq, (int)tot);
        base = __shfl_sync(0xffffffffu, base, 31) + inc - cnt;
        for (uint32_t m = mask; m; m &= m - 1, base++)
            if (base < GK_QCAP) S.qent[base] = ((uint32_t)(__ffs(m) - 1) << 8) | (uint32_t)tid;
        G::sync();
        dense = S.nq <= GK_QCAP;
        if (tid == 0 && K.on) {
            atomicAdd(&P.screen[0], 1ull);
            if (dense) atomicAdd(&P.screen[1], 1ull);
            atomicAdd(&P.screen[2], (unsigned long long)S.nq);
        }
    }
    const int nq = dense ? S.nq : 0;
    /* nothing survived: phases A-D would publish no bound and emit nothing */
    if (dense && nq == 0) return;

    /* BOOST where the second stage scores the tile's candidates (P.tilefit
     * 0, not the pre-pass of a diagonal tile) and the CTA scores its queue:
     * phase A would find no lower bound (those are the fits'), so phase C
     * would publish none and read the thresholds back unchanged but for
     * what other CTAs raised since the CTA started, phase D emit against
     * them.  Each queued pair is bounded and judged at once instead, against
     * the thresholds as the CTA read them when it started (lower or equal,
     * so every pair the phases would emit is emitted; the second stage then
     * drops what reaches no output), with no barrier and no global read after
     * the queue's. */
    if (boost && dense && !P.tilefit && P.cap != 0 && !P.epi1) {
        if (!act) return;
        for (int r = 0; r < nq; r += GK_THREADS) {
            const int i = r + tid;
            bool emit = false;
            uint32_t n[2][9], gi = 0, gj = 0;
            if (i < nq) {
                const uint32_t e = S.qent[i];
                const int q = (int)(e >> 8), t = (int)(e & 0xffu);
                int a, b;
                L::pair(q, t, a, b);
                uint32_t x[2 * NP * NP];
                L::load(prod, q, t, a, b, x);
                gk_cells<NP>(x, S.va[a].g, S.vb[b].g, n);
                const gk_bounds bd = gk_pair_bound<STAT, NP, VM, VN>(n, a, b, S, P);
                const uint32_t k = gk_fkey(bd.up), ra = S.rthr[a], cb = S.cthr[b];
                emit = k >= K.tau0 || k >= ra || k >= cb || bd.gup >= P.sig_min_g;
                gi = P.first_a + (uint32_t)(a0 + a);
                gj = P.first_b + (uint32_t)(b0 + b);
            }
            uint32_t slot;
            if (gk_epi_slot(P, emit, slot)) gk_epi_put(P, slot, gi, gj, n);
        }
        return;
    }

    /* phase A: bounds of the surviving pairs; row and column bests */
    float up[PPT], gup[PPT];
    if (dense) {
        for (int i = tid; i < nq && act; i += GK_THREADS) {
            uint32_t e = S.qent[i];
            int q = (int)(e >> 8), t = (int)(e & 0xffu), a, b;
            L::pair(q, t, a, b);
            gk_bounds bd = gk_epi_bound<STAT, L, VM, VN>(P, prod, q, t, a, b, S);
            uint32_t kup = gk_fkey(bd.up);
            S.qup[i] = kup;
            if (bd.gup >= P.sig_min_g) S.qent[i] = e | 0x80000000u;
            if (boost) {
                atomicMax(&S.rowbest[a], ((unsigned long long)kup << 32) | (uint32_t)b);
                atomicMax(&S.colbest[b], ((unsigned long long)kup << 32) | (uint32_t)a);
            } else {
                uint32_t klo = gk_fkey(bd.lo);
                atomicMax(&S.rowlo[a], klo);
                atomicMax(&S.collo[b], klo);
            }
        }
    } else {
        /* row bests run over a thread's consecutive pairs of one row */
        int cur = -1;
        unsigned long long rbest = 0ull;
        uint32_t rlo = 0u;
#pragma unroll
        for (int q = 0; q < PPT; q++) {
            int a, b;
            L::pair(q, tid, a, b);
            if (a != cur) {
                if (cur >= 0) {
                    if (boost && rbest) atomicMax(&S.rowbest[cur], rbest);
                    if (!boost && rlo) atomicMax(&S.rowlo[cur], rlo);
                }
                cur = a;
                rbest = 0ull;
                rlo = 0u;
            }
            up[q] = gup[q] = 0.0f;
            if (!((mask >> q) & 1u)) continue;
            gk_bounds bd = gk_epi_bound<STAT, L, VM, VN>(P, prod, q, tid, a, b, S);
            up[q] = bd.up;
            gup[q] = bd.gup;
            if (boost) {
                uint32_t kup = gk_fkey(bd.up);
                unsigned long long kb = ((unsigned long long)kup << 32) | (uint32_t)b;
                if (kb > rbest) rbest = kb;
                atomicMax(&S.colbest[b], ((unsigned long long)kup << 32) | (uint32_t)a);
            } else {
                uint32_t klo = gk_fkey(bd.lo);
                if (klo > rlo) rlo = klo;
                atomicMax(&S.collo[b], klo);
            }
        }
        if (cur >= 0 && act) {
            if (boost && rbest) atomicMax(&S.rowbest[cur], rbest);
            if (!boost && rlo) atomicMax(&S.rowlo[cur], rlo);
        }
    }
    G::sync();

    /* phase B (BOOST): the exact fit (IPF in double) of each row's and
     * column's most promising pair gives the lower bounds -- only where that
     * pair could raise its variant's threshold.  The owners of such pairs
     * queue their tables; the fits then run one per thread, in parallel.
     * Where the CTA scores its queue and the second stage (exact.cu) scores
     * the tile's candidates (P.tilefit 0), the fits are left to it: a row
     * without a lower bound here emits against the thresholds as phase C
     * reads them, the second stage raises them with every candidate's exact
     * value and drops what then reaches no output (two passes), and the CTA
     * is spared the divergent fits and the two barriers around them.  The
     * pre-pass of a diagonal tile (cap 0) and the CTAs that score in place
     * (the first tiles) still fit where FITS is compiled in: their thresholds
     * are the scan's first.  The wgmma tiles of the cp.async loader are also
     * built without FITS, for tiles whose blocks have had a tile on the device
     * (gk_params.nofit): no fit runs there at all. */
    if (FITS && boost && (!dense || P.tilefit || P.cap == 0)) {
        if (dense) {
            for (int i = tid; i < nq && act; i += GK_THREADS) {
                uint32_t e = S.qent[i];
                int q = (int)((e >> 8) & 0xffu), t = (int)(e & 0xffu), a, b;
                L::pair(q, t, a, b);
                gk_epi_fit_want<L, VM, VN>(P, prod, q, t, a, b, S.qup[i], a0, b0, S);
            }
        } else {
#pragma unroll
            for (int q = 0; q < PPT; q++) {
                if (!((mask >> q) & 1u)) continue;
                int a, b;
                L::pair(q, tid, a, b);
                gk_epi_fit_want<L, VM, VN>(P, prod, q, tid, a, b, gk_fkey(up[q]), a0, b0, S);
            }
        }
        G::sync();
        if (tid < S.n_fit) {
            uint32_t who = S.fit_who[tid];
            uint32_t lo = gk_fkey((float)gk_boost_lo(S.fit_n[tid]) * (1.0f - 1e-6f));
            if (who & 0xffu) S.rowlo[(who & 0xffu) - 1u] = lo;
            if (who >> 8) S.collo[(who >> 8) - 1u] = lo;
        }
        G::sync();
    }

    /* phase C: publish the lower bounds (per variant, and rows to the top-k
     * histogram), read back the thresholds */
    if (tid < VM + VN) {
        bool is_row = tid < VM;
        int r = is_row ? tid : tid - VM;
        bool ok = is_row ? (a0 + r < (int)P.na) : (b0 + r < (int)P.nb);
        uint32_t lo = is_row ? S.rowlo[r] : S.collo[r];
        /* only rows/columns with at least one surviving pair have a bound */
        bool has = boost ? (is_row ? S.rowbest[r] : S.colbest[r]) != 0ull : lo != 0u;
        if (ok && has) {
            int g = is_row ? (int)P.first_a + a0 + r : (int)P.first_b + b0 + r;
            uint32_t old = lo ? atomicMax(&P.thr[g], lo) : *((volatile uint32_t *)&P.thr[g]);
            uint32_t own = lo;
            if (old > lo) lo = old;
            if (is_row && P.update_hist && own) {
                uint32_t bin = own >> GK_HIST_SHIFT;
                atomicAdd(&P.hist[bin], 1u);
                atomicMax(&P.tau_bin[1], bin);
                if (bin > *((volatile uint32_t *)&P.tau_bin[0])) S.hist_touched = 1;
            }
        } else {
            lo = 0xffffffffu; /* no pair: nothing to emit for this row */
        }
        if (is_row) S.rowlo[r] = lo;
        else S.collo[r] = lo;
    }
    G::sync();
    if (tid < 32) {
        uint32_t tb = *((volatile uint32_t *)&P.tau_bin[0]);
        if (S.hist_touched) {
            __threadfence();
            /* highest bin whose suffix count reaches k, scanning down from the
             * highest bin used */
            int top = (int)*((volatile uint32_t *)&P.tau_bin[1]);
            uint32_t acc = 0;
            for (int base = top; base > (int)tb; base -= 32) {
                int bin = base - tid;
                uint32_t c = bin > (int)tb ? *((volatile uint32_t *)&P.hist[bin]) : 0u;
                /* inclusive prefix over lanes (lane 0 is the highest bin) */
                uint32_t s = c;
#pragma unroll
                for (int o = 1; o < 32; o <<= 1) {
                    uint32_t v = __shfl_up_sync(0xffffffffu, s, o);
                    if (tid >= o) s += v;
                }
                unsigned hit = __ballot_sync(0xffffffffu, acc + s >= P.top_k && bin > (int)tb);
                if (hit) {
                    int l = __ffs(hit) - 1;
                    int nb = base - l;
                    if (tid == 0) atomicMax(&P.tau_bin[0], (uint32_t)nb);
                    tb = (uint32_t)nb;
                    break;
                }
                acc += __shfl_sync(0xffffffffu, s, 31);
            }
        }
        if (tid == 0) S.tau = gk_tau_of_bin(tb, P.tau_host);
    }
    G::sync();

    /* phase D: emit the candidates (none in a diagonal tile's pre-pass,
     * whose room is 0: it only raises the thresholds) */
    if (P.cap == 0) return;
    const uint32_t tau = S.tau;
    if (dense) {
        if (!act) return;
        for (int r = 0; r < nq; r += GK_THREADS) {
            const int i = r + tid;
            int q = 0, t = 0, a = 0, b = 0;
            bool emit = false;
            if (i < nq) {
                uint32_t e = S.qent[i], k = S.qup[i];
                q = (int)((e >> 8) & 0xffu);
                t = (int)(e & 0xffu);
                L::pair(q, t, a, b);
                emit = k >= tau || k >= S.rowlo[a] || k >= S.collo[b] || (e >> 31);
            }
            gk_epi_emit<L, VM, VN>(P, prod, emit, q, t, a, b, a0, b0, S);
        }
    } else {
#pragma unroll
        for (int q = 0; q < PPT; q++) {
            int a, b;
            L::pair(q, tid, a, b);
            bool emit = false;
            if ((mask >> q) & 1u) {
                uint32_t k = gk_fkey(up[q]);
                emit = k >= tau || k >= S.rowlo[a] || k >= S.collo[b] || gup[q] >= P.sig_min_g;
            }
            gk_epi_emit<L, VM, VN>(P, prod, emit, q, tid, a, b, a0, b0, S);
        }
    }
}

#endif
