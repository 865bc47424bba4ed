/* screen_mma.cu -- the MDFS pair screen (k = 2, m = 2 .. 4 classes) on the
 * tensor cores: mma.sync m16n8k256 .b1 AND.POPC (sm_80 and later).
 *
 * Counting the pairs' inner cells is a binary GEMM, as for genotype pairs
 * (gpu/pair/count_mma.cu): the m - 1 stored bins of every slot are rows of a
 * bit matrix (gkmm_rows: class 0 in words [0, wp0), class 1 from wp0, both
 * zero-padded to 512 bits), and a thread block multiplies VM first variables'
 * rows by VN last slots' rows, C_y = A_y B_y^T for each class y, through a
 * three-stage cp.async pipeline of 512-bit slices (XOR-swizzled for
 * ldmatrix).  The (m - 1)^2 products of a pair are its inner cells; the rest
 * of its m x m table is derived from the two variables' bin counts, as the
 * CUDA-core kernel (screen.cu) and the CPU do.  The epilogue then sums the
 * table's Hc in double from the host's c log2 c tables, and the IGs of both
 * variables (Hc of the other variable alone, the host's, less Hc of the
 * table), then keeps the maxima and returns the tuples near them exactly as
 * screen.cu's kernel does (its comment): the block's maxima are reduced in
 * shared memory first, one atomic a variable a block; the tuples returned
 * are those within two margins of the maximum when the block began. */
#include <cmath>
#include <cstdint>

#include <cuda_runtime.h>

#include "screen.cuh"

namespace {

constexpr int GKMM_THREADS = 256;
constexpr int STAGES = 3;
constexpr int KW = 8;        /* words a stage (512 bits) */
constexpr int ROWB = KW * 8; /* bytes a row a stage */
constexpr uint32_t SLOT_PAD = 128;

/* VM first variables x VN last slots a block (BM = VM (m - 1) by BN = VN (m - 1)
 * rows), warps WGM x WGN, each MT x NT tiles of 16 x 8. */
template <int NB>
struct gkmm_cfg;
template <>
struct gkmm_cfg<1> {
    static constexpr int VM = 128, VN = 64, MT = 2, NT = 4, WGN = 2;
};
template <>
struct gkmm_cfg<2> {
    static constexpr int VM = 64, VN = 32, MT = 2, NT = 4, WGN = 2;
};
template <>
struct gkmm_cfg<3> {
    static constexpr int VM = 32, VN = 32, MT = 3, NT = 3, WGN = 4;
};

__device__ __forceinline__ uint32_t smem_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void cp_async16(uint32_t dst, const void *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}

/* 16-byte chunk ch (0 .. 3) of row r of a stage buffer */
__device__ __forceinline__ int swz(int r, int ch) { return r * ROWB + ((ch ^ ((r >> 1) & 3)) << 4); }

template <int NB>
constexpr size_t gkmm_smem()
{
    using C = gkmm_cfg<NB>;
    constexpr size_t BM = C::VM * NB, BN = C::VN * NB;
    constexpr size_t pipe = STAGES * (BM + BN) * ROWB, prod = 2 * BM * (BN + 8) * 4;
    return pipe > prod ? pipe : prod;
}

template <int NB, int MODE>
__global__ void __launch_bounds__(GKMM_THREADS, 2) gkmm_kernel(gkm_args p)
{
    using C = gkmm_cfg<NB>;
    constexpr int M = NB + 1, VM = C::VM, VN = C::VN, BM = VM * NB, BN = VN * NB, BNP = BN + 8;
    constexpr int MT = C::MT, NT = C::NT, WGN = C::WGN, WGM = GKMM_THREADS / 32 / WGN;
    constexpr int WTM = MT * 16, WTN = NT * 8;
    static_assert(WTM * WGM == BM && WTN * WGN == BN, "warp grid");
    static_assert(VN % 32 == 0 && GKMM_THREADS % VN == 0, "a thread keeps one last slot, a warp one first variable");
    extern __shared__ __align__(128) unsigned char smem[];
    __shared__ uint32_t sct[VM + VN][M][2];     /* bin counts: the first variables, then the last slots */
    __shared__ double shm[VM];                  /* Hc of each first variable alone (margin pseudocounts) */
    __shared__ double snear[VM];                /* its threshold for returning a tuple */
    __shared__ unsigned long long smax[VM + VN]; /* the block's maxima (keys) */

    const uint32_t ty = p.part + blockIdx.y * p.parts;
    const uint32_t a0 = ty * VM, s0 = blockIdx.x * VN;
    if (a0 >= p.n_vars || s0 + VN <= a0 + 1) return; /* no first variable, or every slot <= a */
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm = warp / WGN, wn = warp % WGN;
    unsigned char *sA = smem, *sB = smem + STAGES * BM * ROWB;
    const uint32_t Wp = p.wp0 + p.wp1;
    const int NSTG = (int)(Wp / KW);

    /* each thread copies the same LPT 16-byte chunks of every stage */
    constexpr int LPT = (BM + BN) * 4 / GKMM_THREADS;
    static_assert(LPT * GKMM_THREADS == (BM + BN) * 4, "copy split");
    const uint64_t *lsrc[LPT];
    uint32_t ldst[LPT];
#pragma unroll
    for (int it = 0; it < LPT; it++) {
        const int k = tid + it * GKMM_THREADS, r = k >> 2, ch = k & 3;
        const bool isA = r < BM;
        const int rr = isA ? r : r - BM;
        lsrc[it] = p.rows + ((size_t)(isA ? a0 : s0) * NB + rr) * Wp + 2 * ch;
        ldst[it] = smem_u32((isA ? sA : sB) + swz(rr, ch));
    }
    auto load = [&](int s) {
        const int buf = s % STAGES;
#pragma unroll
        for (int it = 0; it < LPT; it++) {
            const int k = tid + it * GKMM_THREADS;
            const uint32_t d = ldst[it] + (uint32_t)buf * ((k >> 2) < BM ? BM * ROWB : BN * ROWB);
            cp_async16(d, lsrc[it] + (size_t)s * KW);
        }
    };
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < NSTG) load(s);
        asm volatile("cp.async.commit_group;\n" ::);
    }

    /* the block's constants while the first slices arrive */
    for (int x = tid; x < VM + VN; x += GKMM_THREADS) {
        const uint32_t v = x < VM ? a0 + x : s0 + (x - VM);
        const bool ok = x < VM ? v < p.n_vars : v < p.NS;
#pragma unroll
        for (int j = 0; j < M; j++)
#pragma unroll
            for (int y = 0; y < 2; y++) sct[x][j][y] = ok ? __ldg(p.binct + ((size_t)v * M + j) * 2 + y) : 0;
        smax[x] = 0;
        if (x < VM) {
            shm[x] = ok ? __ldg(p.hm1 + v) : 0.0;
            double t = INFINITY;
            if (ok && MODE == GKM_EMIT) t = gkm_near(gkm_load(p.keys + v), p.two_margin);
            if (ok && MODE == GKM_CAND) t = __ldg(p.thr + v);
            snear[x] = t;
        }
    }

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
        const unsigned char *A = sA + buf * BM * ROWB, *B = sB + buf * BN * ROWB;
#pragma unroll
        for (int ks = 0; ks < 2; ks++) {
            uint32_t af[MT][4], bf[NT][2];
#pragma unroll
            for (int i = 0; i < MT; i++) {
                const int mat = lane >> 3;
                const int r = wm * WTM + i * 16 + (lane & 7) + ((mat & 1) << 3);
                const uint32_t addr = smem_u32(A + swz(r, 2 * ks + (mat >> 1)));
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                             : "=r"(af[i][0]), "=r"(af[i][1]), "=r"(af[i][2]), "=r"(af[i][3])
                             : "r"(addr));
            }
#pragma unroll
            for (int j = 0; j < NT; j++) {
                const int l = lane & 15;
                const int r = wn * WTN + j * 8 + (l & 7);
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
    };

    const int S0 = (int)(p.wp0 / KW);
    for (int s = 0; s < NSTG; s++) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2));
        __syncthreads();
        if (s + STAGES - 1 < NSTG) load(s + STAGES - 1);
        asm volatile("cp.async.commit_group;\n" ::);
        if (s < S0) compute(s % STAGES, acc[0]);
        else compute(s % STAGES, acc[1]);
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
    __syncthreads();

    /* each thread one last slot s, the first variables a in turn (a warp
     * shares a) */
    const uint32_t is = (uint32_t)tid % VN, s = s0 + is;
    const bool s_ok = s < p.NS, real = s < p.n_vars;
    uint32_t cs[M][2];
#pragma unroll
    for (int j = 0; j < M; j++) cs[j][0] = sct[VM + is][j][0], cs[j][1] = sct[VM + is][j][1];
    const double hs = real ? __ldg(p.hm1 + s) : 0.0;
    double near_s = INFINITY;
    if (s_ok && MODE == GKM_EMIT) near_s = gkm_near(gkm_load(p.keys + s), p.two_margin);
    if (s_ok && MODE == GKM_CAND) near_s = __ldg(p.thr + s);
    double best_s = -INFINITY;
#pragma unroll 1
    for (uint32_t ia = (uint32_t)tid / VN; ia < (uint32_t)VM; ia += GKMM_THREADS / VN) {
        const uint32_t a = a0 + ia;
        const bool ok = s_ok && a < p.n_vars && s > a;
        double ig = -INFINITY, ig_a = -INFINITY;
        if (ok) {
            uint32_t c[2][M][M];
#pragma unroll
            for (int y = 0; y < 2; y++) {
#pragma unroll
                for (int i = 0; i < NB; i++)
#pragma unroll
                    for (int j = 0; j < NB; j++) c[y][i][j] = prod[(y * BM + ia * NB + i) * BNP + is * NB + j];
                /* a's last bin: s's bin counts less the counted cells */
#pragma unroll
                for (int j = 0; j < NB; j++) {
                    uint32_t r = cs[j][y];
#pragma unroll
                    for (int i = 0; i < NB; i++) r -= c[y][i][j];
                    c[y][NB][j] = r;
                }
                /* s's last bin: a's bin counts less the others */
#pragma unroll
                for (int i = 0; i < M; i++) {
                    uint32_t r = sct[ia][i][y];
#pragma unroll
                    for (int j = 0; j < NB; j++) r -= c[y][i][j];
                    c[y][i][NB] = r;
                }
            }
            double h = 0.0;
#pragma unroll
            for (int i = 0; i < M; i++)
#pragma unroll
                for (int j = 0; j < M; j++) h += gkm_term(p, 0, c[0][i][j], c[1][i][j]);
            ig = shm[ia] - h;
            if (real) ig_a = hs - h;
        }
        if constexpr (MODE == GKM_MAX || MODE == GKM_EMIT) {
            best_s = fmax(best_s, ig);
            double b = ig_a;
#pragma unroll
            for (int o = 16; o; o >>= 1) b = fmax(b, __shfl_xor_sync(0xffffffffu, b, o));
            if (!lane && b > -INFINITY) atomicMax(&smax[ia], gkm_key(b));
        }
        if constexpr (MODE == GKM_EMIT || MODE == GKM_CAND) {
            if (ok && (ig >= near_s || ig_a >= snear[ia])) {
                const unsigned long long q = atomicAdd(p.n_cand, 1ull);
                if (q < p.cap) {
                    gkm_cand cd;
                    cd.t[0] = a, cd.t[1] = s, cd.t[2] = 0, cd.t[3] = 0;
                    cd.ig[0] = ig, cd.ig[1] = ig_a, cd.ig[2] = -INFINITY;
                    p.cand[q] = cd;
                }
            }
        }
    }
    if constexpr (MODE == GKM_MAX || MODE == GKM_EMIT) {
        if (best_s > -INFINITY) atomicMax(&smax[VM + is], gkm_key(best_s));
        __syncthreads();
        for (int x = tid; x < VM + VN; x += GKMM_THREADS)
            if (smax[x]) gkm_offer_key(p.keys + (x < VM ? a0 + x : s0 + (x - VM)), smax[x]);
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

template <int NB>
gkmm_fn gkmm_pick(int mode)
{
    return mode == GKM_MAX ? gkmm_kernel<NB, GKM_MAX> : mode == GKM_EMIT ? gkmm_kernel<NB, GKM_EMIT> : gkmm_kernel<NB, GKM_CAND>;
}

template <int NB>
int gkmm_launch_nb(const gkm_args &p, int mode, uint64_t frac)
{
    using C = gkmm_cfg<NB>;
    const gkmm_fn fn = gkmm_pick<NB>(mode);
    constexpr size_t sm = gkmm_smem<NB>();
    cudaError_t e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm);
    if (e != cudaSuccess) return (int)e;
    /* this device's tiles of first variables: part, part + parts, ... */
    const uint64_t tiles = (p.n_vars + C::VM - 1) / C::VM;
    uint64_t ny = tiles > p.part ? (tiles - p.part + p.parts - 1) / p.parts : 0;
    ny = (ny + frac - 1) / frac;
    const uint64_t nx = (p.NS + C::VN - 1) / C::VN;
    if (!ny || !nx) return 0;
    if (ny > 65535 || nx > 0x7fffffffu) return (int)cudaErrorInvalidConfiguration;
    fn<<<dim3((uint32_t)nx, (uint32_t)ny), GKMM_THREADS, sm>>>(p);
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

int gkmm_launch(const gkm_args &p, int mode, uint64_t frac)
{
    switch (p.nb) {
    case 1: return gkmm_launch_nb<1>(p, mode, frac);
    case 2: return gkmm_launch_nb<2>(p, mode, frac);
    case 3: return gkmm_launch_nb<3>(p, mode, frac);
    default: return (int)cudaErrorInvalidValue;
    }
}
