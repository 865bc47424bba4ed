/* screen_mma.cu -- the MDFS screen on the tensor cores: mma.sync m16n8k256
 * .b1 AND.POPC (sm_80 and later), for pairs (k = 2) with m = 2 .. 4 classes
 * and triples (k = 3) with m = 2, 3.
 *
 * Counting the inner cells is a binary GEMM, as for genotype pairs
 * (gpu/pair/count_mma.cu): the m - 1 stored bins of every slot are rows of a
 * bit matrix (gkmm_rows: class 0 in words [0, wp0), class 1 from wp0, both
 * zero-padded to 512 bits).  A thread block multiplies the rows of VM first
 * units (k = 2: variables; k = 3: prefix pairs (a, b), whose (m - 1)^2 rows
 * are the ANDs of a's and b's rows, made as they are loaded) by those of VN
 * last slots, C_y = A_y B_y^T for each class y, through a three-stage
 * pipeline of 512-bit slices (cp.async, XOR-swizzled for ldmatrix); k = 3
 * takes every tile of last slots after its prefixes in turn.  The products
 * are a tuple's counted cells; the rest of its table is derived from the bin
 * counts and (k = 3) the pairs' counted cells of the pairs pass, as the
 * CUDA-core kernel (screen.cu) and the CPU do.  The epilogue sums the
 * table's Hc and each variable's IG, and keeps the maxima and returns the tuples near them as screen.cu's
 * kernel does (its comment): the last slots' maxima are reduced in shared
 * memory before one atomic a tile, a prefix's variables' over a warp (which
 * shares them) at once, when one of its IGs reaches the threshold known at
 * the tile's start; a tuple is returned when an IG is within two margins of
 * the latest maximum the thread knows.  The Hc sums run in float from
 * shifted tables in shared memory (ftab.c: the proven margin), or in double
 * (EPISTREAM_MDFS_GPU_SUM=double). */
#include <cmath>
#include <cstdint>

#include <cuda_runtime.h>

#include "mma_b1.cuh"
#include "screen.cuh"

namespace {

constexpr int GKMM_THREADS = 256;
constexpr int STAGES = 3;
using gk_b1::KW;   /* words a stage (512 bits) */
using gk_b1::ROWB; /* bytes a row a stage */
using gk_b1::smem_u32;
using gk_b1::swz;
constexpr uint32_t SLOT_PAD = 128;

/* A block: VM first units (k = 2: variables; k = 3: prefix pairs from this
 * device's list) of RA rows each (their m - 1 bins; a pair's (m - 1)^2 bin
 * ANDs) by VN last slots of NB rows: BM = VM RA by BN = VN NB rows, warps
 * WGM x WGN, each MT x NT tiles of 16 x 8. */
template <int K, int NB>
struct gkmm_cfg;
template <>
struct gkmm_cfg<2, 1> {
    static constexpr int VM = 128, VN = 64, MT = 2, NT = 4, WGN = 2;
};
template <>
struct gkmm_cfg<2, 2> {
    static constexpr int VM = 64, VN = 32, MT = 2, NT = 4, WGN = 2;
};
template <>
struct gkmm_cfg<2, 3> {
    static constexpr int VM = 32, VN = 32, MT = 3, NT = 3, WGN = 4;
};
template <>
struct gkmm_cfg<3, 1> {
    static constexpr int VM = 128, VN = 64, MT = 2, NT = 4, WGN = 2;
};
template <>
struct gkmm_cfg<3, 2> {
    static constexpr int VM = 32, VN = 32, MT = 2, NT = 4, WGN = 2;
};

template <int K, int NB>
__host__ __device__ constexpr size_t gkmm_smem()
{
    using C = gkmm_cfg<K, NB>;
    constexpr size_t BM = C::VM * (K == 2 ? NB : NB * NB), BN = C::VN * NB;
    constexpr size_t pipe = STAGES * (BM + BN) * ROWB, prod = 2 * BM * (BN + 8) * 4;
    return pipe > prod ? pipe : prod;
}

template <int K, int NB, int MODE>
__global__ void __launch_bounds__(GKMM_THREADS, 2) gkmm_kernel(gkm_args p)
{
    using C = gkmm_cfg<K, NB>;
    constexpr int M = NB + 1, RA = K == 2 ? NB : NB * NB, NP = K == 2 ? M : M * M;
    constexpr int VM = C::VM, VN = C::VN, BM = VM * RA, BN = VN * NB, BNP = BN + 8;
    constexpr int MT = C::MT, NT = C::NT, WGN = C::WGN, WGM = GKMM_THREADS / 32 / WGN;
    constexpr int WTM = MT * 16, WTN = NT * 8;
    static_assert(WTM * WGM == BM && WTN * WGN == BN, "warp grid");
    static_assert(VN % 32 == 0 && GKMM_THREADS % VN == 0, "a thread keeps one last slot, a warp one first unit");
    extern __shared__ __align__(128) unsigned char smem[];
    __shared__ uint32_t sct[VN][M][2];            /* the last slots' bin counts */
    __shared__ uint32_t pct[VM][NP][2];           /* each first unit's cells' counts */
    __shared__ uint32_t sva[VM], svb[VM];         /* its variables (k = 2: a = b) */
    __shared__ double shm[VM];                    /* its Hc (margin pseudocounts) */
    __shared__ unsigned long long smax_s[VN];     /* of the last slots */
    __shared__ double snear[2][VM];               /* the first units' a, b thresholds at the tile's start */
    __shared__ uint32_t slo;                      /* the lowest last slot any first unit takes */

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm = warp / WGN, wn = warp % WGN;
    /* the first units: k = 2, variables u0 .. u0 + VM - 1 of tile part +
     * blockIdx.y * parts; k = 3, prefixes u0 .. of this device's list */
    const uint64_t u0 = K == 2 ? (uint64_t)(p.part + blockIdx.y * p.parts) * VM : (uint64_t)blockIdx.x * VM;
    const uint64_t n_units = K == 2 ? p.n_vars : p.n_pfx;
    if (u0 >= n_units) return;
    if (!tid) slo = 0xffffffffu;
    /* the float screen's tables: into shared memory after the pipeline's
     * buffers when they fit (gkmm_launch_nb sized it), else through L1 */
    float *stab = (float *)(smem + gkmm_smem<K, NB>());
    if (p.tf && p.tf_smem)
        for (uint32_t x = tid; x < p.tf_len; x += GKMM_THREADS) stab[x] = __ldg(p.tf + x);
    const float *tfg = p.tf_smem ? stab : p.tf;
    __syncthreads();
    for (int x = tid; x < VM; x += GKMM_THREADS) {
        const bool ok = u0 + x < n_units;
        uint32_t a = 0, b = 0;
        if (ok && K == 2) a = b = (uint32_t)(u0 + x);
        if (ok && K == 3) a = __ldg(p.pfx + 2 * (u0 + x)), b = __ldg(p.pfx + 2 * (u0 + x) + 1);
        sva[x] = a, svb[x] = b;
        uint32_t ca[M][2], cb[M][2];
#pragma unroll
        for (int j = 0; j < M; j++)
#pragma unroll
            for (int y = 0; y < 2; y++) {
                ca[j][y] = ok ? __ldg(p.binct + ((size_t)a * M + j) * 2 + y) : 0;
                cb[j][y] = ok ? __ldg(p.binct + ((size_t)b * M + j) * 2 + y) : 0;
            }
        if constexpr (K == 2) {
#pragma unroll
            for (int j = 0; j < M; j++) pct[x][j][0] = ca[j][0], pct[x][j][1] = ca[j][1];
            shm[x] = ok ? __ldg(p.hm1 + a) : 0.0;
        } else {
            /* the pair's cells: its counted ones (the pairs pass), the rest derived */
            const uint32_t *pab = p.pc + ((size_t)a * p.NS + b) * (NB * NB * 2);
#pragma unroll
            for (int y = 0; y < 2; y++) {
                uint32_t last = ok ? ca[NB][y] : 0;
#pragma unroll
                for (int ib = 0; ib < NB; ib++) {
                    uint32_t r = cb[ib][y];
#pragma unroll
                    for (int ia = 0; ia < NB; ia++) {
                        const uint32_t v = ok ? __ldg(pab + (ia * NB + ib) * 2 + y) : 0;
                        pct[x][ia * M + ib][y] = v;
                        r -= v;
                    }
                    pct[x][NB * M + ib][y] = r;
                    last -= r;
                }
                pct[x][NB * M + NB][y] = last;
#pragma unroll
                for (int ia = 0; ia < NB; ia++) {
                    uint32_t r = ca[ia][y];
#pragma unroll
                    for (int ib = 0; ib < NB; ib++) r -= pct[x][ia * M + ib][y];
                    pct[x][ia * M + NB][y] = r;
                }
            }
            shm[x] = ok ? p.hmx[(size_t)a * p.NS + b] : 0.0;
        }
        if (ok) atomicMin(&slo, b + 1);
    }
    __syncthreads();
    const uint32_t Wp = p.wp0 + p.wp1;
    const int NSTG = (int)(Wp / KW), S0 = (int)(p.wp0 / KW);
    /* k = 2: this block's tile of last slots; k = 3: every tile after the
     * lowest b (the same prefixes' rows again for each) */
    uint32_t st = K == 2 ? blockIdx.x : slo / VN;
    const uint32_t st_end = K == 2 ? blockIdx.x + 1 : (p.NS + VN - 1) / VN;
    if (K == 2 && (st + 1) * VN <= slo) return; /* every slot <= a */
    unsigned char *sA = smem, *sB = smem + STAGES * BM * ROWB;

    /* each thread copies the same 16-byte chunks of every stage: LPA of the
     * first units' rows (k = 3: the AND of two rows), LPB of the last slots' */
    constexpr int LPA = (BM * 4 + GKMM_THREADS - 1) / GKMM_THREADS, LPB = (BN * 4 + GKMM_THREADS - 1) / GKMM_THREADS;
    const uint64_t *asrc[LPA][K == 2 ? 1 : 2];
    uint32_t adst[LPA];
#pragma unroll
    for (int it = 0; it < LPA; it++) {
        const int k = min(tid + it * GKMM_THREADS, BM * 4 - 1), r = k >> 2, ch = k & 3;
        const int q = r / RA, cell = r % RA;
        if constexpr (K == 2) {
            asrc[it][0] = p.rows + ((size_t)sva[q] * NB + cell) * Wp + 2 * ch;
        } else {
            asrc[it][0] = p.rows + ((size_t)sva[q] * NB + cell / NB) * Wp + 2 * ch;
            asrc[it][1] = p.rows + ((size_t)svb[q] * NB + cell % NB) * Wp + 2 * ch;
        }
        adst[it] = smem_u32(sA + swz(r, ch));
    }
    uint32_t bdst[LPB];
    int brow[LPB];
#pragma unroll
    for (int it = 0; it < LPB; it++) {
        const int k = min(tid + it * GKMM_THREADS, BN * 4 - 1), r = k >> 2, ch = k & 3;
        brow[it] = r * (int)Wp + 2 * ch;
        bdst[it] = smem_u32(sB + swz(r, ch));
    }

    /* each thread one last slot, the first units in turn (a warp shares one) */
    const uint32_t is = (uint32_t)tid % VN;
    for (; st < st_end; st++) {
        const uint32_t s0 = st * VN;
        const uint64_t *bbase = p.rows + (size_t)s0 * NB * Wp;
        auto load = [&](int sg) {
            const int buf = sg % STAGES;
            const size_t w = (size_t)sg * KW;
#pragma unroll
            for (int it = 0; it < LPA; it++) {
                if ((BM * 4) % GKMM_THREADS && tid + it * GKMM_THREADS >= BM * 4) break;
                const uint32_t d = adst[it] + (uint32_t)buf * (BM * ROWB);
                if constexpr (K == 2) {
                    gk_b1::cp_async16(d, asrc[it][0] + w, true);
                } else {
                    /* first units beyond the list read row 0: never counted */
                    const uint4 x = __ldg((const uint4 *)(asrc[it][0] + w));
                    const uint4 y = __ldg((const uint4 *)(asrc[it][1] + w));
                    asm volatile("st.shared.v4.u32 [%0], {%1,%2,%3,%4};\n" ::"r"(d), "r"(x.x & y.x),
                                 "r"(x.y & y.y), "r"(x.z & y.z), "r"(x.w & y.w));
                }
            }
#pragma unroll
            for (int it = 0; it < LPB; it++) {
                if ((BN * 4) % GKMM_THREADS && tid + it * GKMM_THREADS >= BN * 4) break;
                gk_b1::cp_async16(bdst[it] + (uint32_t)buf * (BN * ROWB), bbase + brow[it] + w, true);
            }
        };
#pragma unroll
        for (int sg = 0; sg < STAGES - 1; sg++) {
            if (sg < NSTG) load(sg);
            asm volatile("cp.async.commit_group;\n" ::);
        }
        if (tid < VN) smax_s[tid] = 0;

        int acc[2][MT][NT][4];
#pragma unroll
        for (int c = 0; c < 2; c++)
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int j = 0; j < NT; j++)
#pragma unroll
                    for (int e = 0; e < 4; e++) acc[c][i][j][e] = 0;

        auto compute = [&](int buf, int (&ac)[MT][NT][4]) {
            gk_b1::mma_slice<MT, NT>(sA + buf * BM * ROWB, sB + buf * BN * ROWB, wm * WTM, wn * WTN, lane, ac);
        };

        for (int sg = 0; sg < NSTG; sg++) {
            asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2));
            __syncthreads();
            if (sg + STAGES - 1 < NSTG) load(sg + STAGES - 1);
            asm volatile("cp.async.commit_group;\n" ::);
            if (sg < S0) compute(sg % STAGES, acc[0]);
            else compute(sg % STAGES, acc[1]);
        }
        asm volatile("cp.async.wait_group 0;\n" ::);
        __syncthreads();

        /* the products over the pipeline buffers: prod[(y * BM + row) * BNP + col] */
        uint32_t *prod = (uint32_t *)smem;
        {
            const int gid = lane >> 2, tig = lane & 3;
#pragma unroll
            for (int c = 0; c < 2; c++)
#pragma unroll
                for (int i = 0; i < MT; i++)
#pragma unroll
                    for (int j = 0; j < NT; j++)
#pragma unroll
                        for (int e = 0; e < 4; e++) {
                            const int r = wm * WTM + i * 16 + gid + ((e >> 1) << 3);
                            const int col = wn * WTN + j * 8 + tig * 2 + (e & 1);
                            prod[(c * BM + r) * BNP + col] = (uint32_t)acc[c][i][j][e];
                        }
        }
        if (tid < VN) {
            const uint32_t v = s0 + tid;
#pragma unroll
            for (int j = 0; j < M; j++)
#pragma unroll
                for (int y = 0; y < 2; y++) sct[tid][j][y] = v < p.NS ? __ldg(p.binct + ((size_t)v * M + j) * 2 + y) : 0;
        }
        /* the prefix variables' maxima so far, once a tile (lower bounds of
         * the latest: a threshold from them returns more tuples, never fewer) */
        if (MODE != GKM_CAND && tid < VM) {
            snear[0][tid] = gkm_near(gkm_load(p.keys + sva[tid]), p.two_margin);
            snear[1][tid] = K == 3 ? gkm_near(gkm_load(p.keys + svb[tid]), p.two_margin) : INFINITY;
        }
        __syncthreads();

        const uint32_t s = s0 + is;
        const bool s_ok = s < p.NS, real = s < p.n_vars;
        uint32_t cs[M][2];
#pragma unroll
        for (int j = 0; j < M; j++) cs[j][0] = sct[is][j][0], cs[j][1] = sct[is][j][1];
        const double hs = K == 2 && real ? __ldg(p.hm1 + s) : 0.0;
        double near_s = INFINITY;
        if (s_ok && MODE == GKM_EMIT) near_s = gkm_near(gkm_load(p.keys + s), p.two_margin);
        if (s_ok && MODE == GKM_CAND) near_s = __ldg(p.thr + s);
        double best_s = -INFINITY;
#pragma unroll 1
        for (uint32_t q = (uint32_t)tid / VN; q < (uint32_t)VM; q += GKMM_THREADS / VN) {
            const uint32_t a = sva[q], b = svb[q];
            const bool ok = s_ok && u0 + q < n_units && s > b;
            double ig = -INFINITY, ig_a = -INFINITY, ig_b = -INFINITY;
            if (ok) {
                /* c[y][prefix cell][last bin] */
                uint32_t c[2][NP][M];
#pragma unroll
                for (int y = 0; y < 2; y++) {
#pragma unroll
                    for (int r = 0; r < RA; r++) {
                        const int i = K == 2 ? r : (r / NB) * M + r % NB;
#pragma unroll
                        for (int j = 0; j < NB; j++) c[y][i][j] = prod[(y * BM + q * RA + r) * BNP + is * NB + j];
                    }
#pragma unroll
                    for (int j = 0; j < NB; j++) {
                        uint32_t rest = cs[j][y];
                        if constexpr (K == 2) {
                            /* a's last bin: s's bin counts less the counted cells */
#pragma unroll
                            for (int i = 0; i < NB; i++) rest -= c[y][i][j];
                            c[y][NB][j] = rest;
                        } else {
                            /* (ia, last) and (last, ib): the pairs (a, s) and (b, s) less the
                             * counted cells; (last, last): s's bin less all others */
                            const uint32_t *pa = p.pc + ((size_t)a * p.NS + s) * (NB * NB * 2);
                            const uint32_t *pb = p.pc + ((size_t)b * p.NS + s) * (NB * NB * 2);
#pragma unroll
                            for (int ia = 0; ia < NB; ia++) {
                                const uint32_t v = __ldg(pa + (ia * NB + j) * 2 + y);
                                uint32_t r = v;
#pragma unroll
                                for (int ib = 0; ib < NB; ib++) r -= c[y][ia * M + ib][j];
                                c[y][ia * M + NB][j] = r;
                                rest -= v;
                            }
#pragma unroll
                            for (int ib = 0; ib < NB; ib++) {
                                uint32_t r = __ldg(pb + (ib * NB + j) * 2 + y);
#pragma unroll
                                for (int ia = 0; ia < NB; ia++) r -= c[y][ia * M + ib][j];
                                c[y][NB * M + ib][j] = r;
                                rest -= r;
                            }
                            c[y][NB * M + NB][j] = rest;
                        }
                    }
                    /* the last variable's last bin: the prefix cell's count less the others */
#pragma unroll
                    for (int i = 0; i < NP; i++) {
                        uint32_t r = pct[q][i][y];
#pragma unroll
                        for (int j = 0; j < NB; j++) r -= c[y][i][j];
                        c[y][i][NB] = r;
                    }
                }
                double h = 0.0;
                if (p.tf) {
                    /* in float from the shifted tables: a partial sum a last
                     * bin, then those in order (es_gkm_ftab_hc is the CPU
                     * twin); within es_gkm_ftab_bound of the double sum */
                    const float *f0 = tfg + p.tf_o0, *f1 = tfg + p.tf_o1;
                    float acc[M];
#pragma unroll
                    for (int j = 0; j < M; j++) acc[j] = 0.0f;
#pragma unroll
                    for (int i = 0; i < NP; i++)
#pragma unroll
                        for (int j = 0; j < M; j++) {
                            const uint32_t a0 = c[0][i][j], a1 = c[1][i][j];
                            const float sf = f0[a0] + f1[a1];
                            acc[j] += tfg[a0 + a1] - sf;
                        }
                    float hf = acc[0];
#pragma unroll
                    for (int j = 1; j < M; j++) hf += acc[j];
                    h = (double)hf;
                } else {
#pragma unroll
                    for (int i = 0; i < NP; i++)
#pragma unroll
                        for (int j = 0; j < M; j++) h += gkm_term(p, 0, c[0][i][j], c[1][i][j]);
                }
                ig = shm[q] - h;
                if (real) {
                    if constexpr (K == 2) {
                        ig_a = hs - h;
                    } else {
                        ig_a = p.hmx[(size_t)b * p.NS + s] - h;
                        ig_b = p.hmx[(size_t)a * p.NS + s] - h;
                    }
                }
            }
            /* the thresholds of returning a tuple: two margins below each
             * variable's maximum so far as known (the last slot's when the
             * tile began or this thread's own; the prefix variables' when
             * the tile began or the warp's own), or the given ones
             * (GKM_CAND).  Each is at most the final maximum, so every tuple
             * the host keeps is returned. */
            double t_s = INFINITY, t_a = INFINITY, t_b = INFINITY;
            if constexpr (MODE == GKM_MAX || MODE == GKM_EMIT) {
                best_s = fmax(best_s, ig);
                const double tm = p.two_margin;
                t_a = snear[0][q], t_b = snear[1][q];
                /* the warp's maxima of the prefix variables only when a lane
                 * reaches a threshold: else each IG is below the maximum
                 * known (nothing to offer) and below its threshold either way */
                if (__any_sync(0xffffffffu, ig_a >= t_a || (K == 3 && ig_b >= t_b))) {
                    double x = ig_a, y = ig_b;
#pragma unroll
                    for (int o = 16; o; o >>= 1) {
                        x = fmax(x, __shfl_xor_sync(0xffffffffu, x, o));
                        if (K == 3) y = fmax(y, __shfl_xor_sync(0xffffffffu, y, o));
                    }
                    t_a = fmax(t_a, x - tm);
                    if (K == 3) t_b = fmax(t_b, y - tm);
                    /* at once, so that the other blocks of this prefix see them */
                    if (!lane && x > -INFINITY) gkm_offer(p.keys + a, x);
                    if (K == 3 && !lane && y > -INFINITY) gkm_offer(p.keys + b, y);
                }
                if (MODE == GKM_EMIT) t_s = fmax(near_s, best_s - tm);
            } else if constexpr (MODE == GKM_CAND) {
                t_s = near_s, t_a = __ldg(p.thr + a);
                if (K == 3) t_b = __ldg(p.thr + b);
            }
            if constexpr (MODE == GKM_EMIT || MODE == GKM_CAND) {
                if (ok && (ig >= t_s || (real && (ig_a >= t_a || (K == 3 && ig_b >= t_b))))) {
                    const unsigned long long n = atomicAdd(p.n_cand, 1ull);
                    if (n < p.cap) {
                        gkm_cand cd;
                        cd.t[0] = a, cd.t[1] = K == 2 ? s : b, cd.t[2] = K == 2 ? 0 : s, cd.t[3] = 0;
                        cd.ig[0] = ig, cd.ig[1] = ig_a, cd.ig[2] = ig_b;
                        p.cand[n] = cd;
                    }
                }
            }
        }
        if constexpr (MODE == GKM_MAX || MODE == GKM_EMIT)
            if (best_s > -INFINITY) atomicMax(&smax_s[is], gkm_key(best_s));
        /* every thread done with the products and sct before the next tile's loads */
        __syncthreads();
        if (MODE != GKM_CAND && tid < VN && smax_s[tid]) gkm_offer_key(p.keys + s0 + tid, smax_s[tid]);
    }
}

/* rows[(s * nb + j) * (wp0 + wp1) + w] from planes[(s * m + j) * W + w'] */
__global__ void gkmm_rows_kernel(gkm_args p, uint32_t n_slots)
{
    const uint32_t Wp = p.wp0 + p.wp1, w1 = p.W - p.w0;
    const size_t n = (size_t)n_slots * p.nb * Wp;
    for (size_t x = blockIdx.x * (size_t)blockDim.x + threadIdx.x; x < n; x += (size_t)gridDim.x * blockDim.x) {
        const uint32_t w = (uint32_t)(x % Wp);
        const size_t row = x / Wp;
        const uint32_t s = (uint32_t)(row / p.nb), j = (uint32_t)(row % p.nb);
        uint64_t v = 0;
        if (s < p.NS) {
            const uint64_t *src = p.planes + ((size_t)s * p.m + j) * p.W;
            if (w < p.wp0) v = w < p.w0 ? src[w] : 0;
            else v = w - p.wp0 < w1 ? src[p.w0 + (w - p.wp0)] : 0;
        }
        p.rows[x] = v;
    }
}

typedef void (*gkmm_fn)(gkm_args);

template <int K, int NB>
gkmm_fn gkmm_pick(int mode)
{
    return mode == GKM_MAX ? gkmm_kernel<K, NB, GKM_MAX> : mode == GKM_EMIT ? gkmm_kernel<K, NB, GKM_EMIT> : gkmm_kernel<K, NB, GKM_CAND>;
}

template <int K, int NB>
int gkmm_launch_nb(const gkm_args &p, int mode, uint64_t frac)
{
    using C = gkmm_cfg<K, NB>;
    const gkmm_fn fn = gkmm_pick<K, NB>(mode);
    /* the pipeline's buffers, then the float screen's tables when in shared memory */
    const size_t sm = gkmm_smem<K, NB>() + (p.tf && p.tf_smem ? (sizeof(float) * p.tf_len + 15) / 16 * 16 : 0);
    cudaError_t e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm);
    if (e != cudaSuccess) return (int)e;
    dim3 grid;
    if (K == 2) {
        /* this device's tiles of first variables: part, part + parts, ... */
        const uint64_t tiles = (p.n_vars + C::VM - 1) / C::VM;
        uint64_t ny = tiles > p.part ? (tiles - p.part + p.parts - 1) / p.parts : 0;
        ny = (ny + frac - 1) / frac;
        const uint64_t nx = (p.NS + C::VN - 1) / C::VN;
        if (!ny || !nx) return 0;
        if (ny > 65535 || nx > 0x7fffffffu) return (int)cudaErrorInvalidConfiguration;
        grid = dim3((uint32_t)nx, (uint32_t)ny);
    } else {
        /* this device's prefixes, VM a block, each with every last slot after it */
        uint64_t nx = (p.n_pfx + C::VM - 1) / C::VM;
        nx = (nx + frac - 1) / frac;
        if (!nx) return 0;
        if (nx > 0x7fffffffu) return (int)cudaErrorInvalidConfiguration;
        grid = dim3((uint32_t)nx);
    }
    fn<<<grid, GKMM_THREADS, sm>>>(p);
    return (int)cudaGetLastError();
}

} // namespace

uint32_t gkmm_slots(uint32_t NS)
{
    return (NS + SLOT_PAD - 1) / SLOT_PAD * SLOT_PAD;
}

int gkmm_rows(const gkm_args &p)
{
    gkmm_rows_kernel<<<1024, 256>>>(p, gkmm_slots(p.NS));
    return (int)cudaGetLastError();
}

int gkmm_launch(const gkm_args &p, int k, int mode, uint64_t frac)
{
    if (k == 2 && p.nb == 1) return gkmm_launch_nb<2, 1>(p, mode, frac);
    if (k == 2 && p.nb == 2) return gkmm_launch_nb<2, 2>(p, mode, frac);
    if (k == 2 && p.nb == 3) return gkmm_launch_nb<2, 3>(p, mode, frac);
    if (k == 3 && p.nb == 1) return gkmm_launch_nb<3, 1>(p, mode, frac);
    if (k == 3 && p.nb == 2) return gkmm_launch_nb<3, 2>(p, mode, frac);
    return (int)cudaErrorInvalidValue;
}
