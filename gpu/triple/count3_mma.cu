/* count3_mma.cu -- 3-way counting on the tensor cores: mma.sync m16n8k256
 * .b1 AND.POPC (sm_80 and later), two planes (no missing call), fused with
 * the epilogue of epilogue3.cuh.
 *
 * A CTA takes 16 pairs (i, j) against 128 third variants k.  The products
 * |P_i^s & P_j^t & P_k^u| (s, t, u in {P1, P2}) of a class are a binary
 * GEMM whose A rows are the pair planes P_i^s & P_j^t and whose B columns
 * are the third variants' planes.  The A rows are never stored: each
 * thread loads its fragment of the P_j^t rows with ldmatrix and ANDs it
 * with the P_i^s words of its pair (a fragment row and the row 8 below are
 * one pair's t = 1 and t = 2 planes, so a thread's four fragment registers
 * belong to one pair).  So a thread's accumulator registers hold all 8
 * products of 8 triples of its own (pair g*8 + lane/4, third variant
 * warp*16 + j*4 + lane%4), and the epilogue runs on them directly.
 * Operands stream through a 2-stage cp.async pipeline of 512-bit slices
 * (the ldmatrix rows XOR-swizzled, the P_i rows padded to 80 bytes: both
 * reads conflict-free); the cases' products wait in shared memory while the
 * controls are counted (PACK16 below says how the epilogue reads them). */
#include <cuda_runtime.h>

#include "params3.cuh"
#include "epilogue3.cuh"
#include "mma_b1.cuh"

namespace {

constexpr int STAGES = 2;
using gk_b1::KW;                             /* words per stage (512 bits) */
using gk_b1::ROWB;                           /* bytes per row per stage */
using gk_b1::cp_async16;
using gk_b1::smem_u32;
using gk_b1::swz;
constexpr int RROWS = 32, LROWS = 32, KROWS = 256;
constexpr int ROWS = RROWS + LROWS + KROWS;  /* j planes, i planes, k planes */
/* A stage: the j planes' rows (ldmatrix, swz), the i planes' rows padded
 * to LROWB bytes and not swizzled (read as 32-bit words: 8 rows of a
 * 20-word stride fall in 8 distinct groups of 4 banks, so a thread's words
 * are one base and immediates), the k planes' rows (ldmatrix, swz). */
constexpr int LROWB = ROWB + 16;
constexpr int LOFF = RROWS * ROWB, KOFF = LOFF + LROWS * LROWB;
constexpr int STAGE_BYTES = KOFF + KROWS * ROWB;
constexpr int NACC = 64;                     /* accumulators a class per thread */
constexpr size_t SMEM = (size_t)STAGES * STAGE_BYTES + (size_t)NACC * GK3_THREADS * 4;
/* PACK16's two CTAs a multiprocessor on sm_90 (228 KB of shared memory, 1 KB
 * reserved a CTA; sm_80's 164 KB hold one) */
static_assert(2 * (SMEM + sizeof(gk3_cta) + 1024) <= 233472, "two CTAs a multiprocessor");

/* PACK16 (each class under 65,536 samples): both classes' products wait in
 * the stash as 16-bit halves, and the epilogue scores the thread's 8
 * triples one at a time from there (few registers: two CTAs a
 * multiprocessor, one's epilogue hiding the other's MMAs); else the
 * controls' products stay in registers and the epilogue is unrolled (one
 * CTA a multiprocessor). */
template <int STAT, bool PACK16>
__global__ void __launch_bounds__(GK3_THREADS, PACK16 ? 2 : 1) k3_mma(gk3_params P)
{
    extern __shared__ __align__(128) unsigned char smem[];
    __shared__ gk3_cta S;
    gk3_cta_setup<2>(P, S);
    __syncthreads();
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, gid = lane >> 2, tig = lane & 3;
    uint32_t *stash = (uint32_t *)(smem + (size_t)STAGES * STAGE_BYTES);

    /* rows of a stage: 0-31 the j planes (fragment order: pair group g's
     * t = 1 rows, then its t = 2 rows), 32-63 the i planes (s*16 + q),
     * 64-319 the k planes (kk*2 + u).  A thread copies chunk ch = tid % 4 of
     * rows r0 = tid / 4 (a j or i plane) and r0 + 64 it, it = 1 .. 4 (the
     * third variants' plane rows r0 + 64 (it - 1) of this CTA's 256): a row
     * pointer each, a stride of 64 rows, and swz(x + 64, ch) = swz(x, ch) +
     * 64 ROWB, so a stage's copies cost a few adds and a min (the compiler
     * rebuilt five pointers and swizzles at every stage before).  Rows past
     * the data (pairs not in the list, third variants past nc) copy a valid
     * row of the same kind instead (the third variants' last): their
     * products are never read (gk3_emit16 and gk3_emit return before
     * anything for a triple not in the tile), so no copy needs a zero fill
     * or a predicate. */
    static_assert(ROWS * 4 == 5 * GK3_THREADS && RROWS + LROWS == GK3_THREADS / 4, "copy split");
    const int r0 = tid >> 2, ch = tid & 3;
    const uint64_t *src0;
    if (r0 < RROWS) {
        int q = (r0 >> 4) * 8 + (r0 & 7), t = (r0 >> 3) & 1;
        src0 = P.rp + ((size_t)S.rrow[q] * 2 + t) * P.words + 2 * ch;
    } else {
        int x = r0 - RROWS, sx = x >> 4, q = x & 15;
        src0 = P.lp + ((size_t)S.lrow[q] * 2 + sx) * P.words + 2 * ch;
    }
    /* row r0 of this CTA's third-variant rows; dl: its rows after r0 (< 0
     * when r0 is past them: min(64 it, dl) then reaches the last) */
    const uint64_t *kb = P.cp + ((size_t)blockIdx.y * 2 * GK3_THIRD + r0) * P.words + 2 * ch;
    const int dl = (int)min(2u * (P.nc - blockIdx.y * GK3_THIRD), 2u * GK3_THIRD) - 1 - r0;
    const bool kfull = P.nc - blockIdx.y * GK3_THIRD >= GK3_THIRD; /* the same for the whole CTA */
    const size_t kstride = (size_t)64 * P.words;
    const uint32_t dst0 = smem_u32(smem + (r0 < RROWS ? swz(r0, ch) : LOFF + (r0 - RROWS) * LROWB + ch * 16));
    const uint32_t dstk = smem_u32(smem + KOFF + swz(r0, ch));
    const int S1 = (int)P.kw1 / KW, NS = S1 + (int)P.kw0 / KW;
    static_assert(STAGES == 2, "load(): the stage is s & 1");
    auto load = [&](int s) {
        const uint32_t so = (uint32_t)(s & 1) * STAGE_BYTES;
        const uint32_t w0 = s < S1 ? (uint32_t)s * KW : P.off_ctrl + (uint32_t)(s - S1) * KW;
        cp_async16(dst0 + so, src0 + w0, true);
        const uint64_t *p = kb + w0;
        if (kfull) { /* every CTA but the grid's last column: rows 64 apart */
#pragma unroll
            for (int it = 0; it < 4; it++) cp_async16(dstk + so + it * 64 * ROWB, p + it * kstride, true);
        } else {
#pragma unroll
            for (int it = 0; it < 4; it++)
                cp_async16(dstk + so + it * 64 * ROWB, p + (ptrdiff_t)min(64 * it, dl) * P.words, true);
        }
    };

    int acc[2][2][4][4]; /* [g][s-1][j][(t-1)*2 + u-1] */
#pragma unroll
    for (int g = 0; g < 2; g++)
#pragma unroll
        for (int s = 0; s < 2; s++)
#pragma unroll
            for (int j = 0; j < 4; j++)
#pragma unroll
                for (int e = 0; e < 4; e++) acc[g][s][j][e] = 0;

#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < NS) load(s);
        asm volatile("cp.async.commit_group;\n" ::);
    }

    /* a thread's shared-memory offsets in a stage: its i-plane words (lwo;
     * pair group g, plane s, chunk c at + (s*16 + g*8) LROWB + c*16), its
     * ldmatrix rows of the j planes (rfo: group g at + g*16 ROWB) and of the
     * k planes (bfo: j at + 8j ROWB), chunk 2 ks + h; swz(r + 8n, c) =
     * swz(r, c) + 8n ROWB and the second k256 step's chunks are the first's
     * XOR 2 (offsets XOR 32) */
    const int mat = lane >> 3, l16 = lane & 15;
    const uint32_t lwo = LOFF + gid * LROWB + tig * 4;
    const uint32_t rfo = swz((lane & 7) + ((mat & 1) << 3), mat >> 1);
    const uint32_t bfo = KOFF + swz(warp * 32 + (l16 & 7), l16 >> 3);
    auto compute = [&](int buf) {
        const unsigned char *base = smem + (size_t)buf * STAGE_BYTES;
#pragma unroll
        for (int ks = 0; ks < 2; ks++) {
            uint32_t lw[2][2][2], rf[2][4], bf[4][2];
#pragma unroll
            for (int g = 0; g < 2; g++)
#pragma unroll
                for (int s = 0; s < 2; s++)
#pragma unroll
                    for (int h = 0; h < 2; h++)
                        lw[g][s][h] = *(const uint32_t *)(base + lwo + (s * 16 + g * 8) * LROWB + (2 * ks + h) * 16);
#pragma unroll
            for (int g = 0; g < 2; g++) {
                uint32_t addr = smem_u32(base + ((rfo ^ (uint32_t)(32 * ks)) + g * 16 * ROWB));
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                             : "=r"(rf[g][0]), "=r"(rf[g][1]), "=r"(rf[g][2]), "=r"(rf[g][3])
                             : "r"(addr));
            }
#pragma unroll
            for (int j = 0; j < 4; j++) {
                uint32_t addr = smem_u32(base + ((bfo ^ (uint32_t)(32 * ks)) + j * 8 * ROWB));
                asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n"
                             : "=r"(bf[j][0]), "=r"(bf[j][1])
                             : "r"(addr));
            }
#pragma unroll
            for (int g = 0; g < 2; g++)
#pragma unroll
                for (int s = 0; s < 2; s++) {
                    uint32_t a0 = rf[g][0] & lw[g][s][0], a1 = rf[g][1] & lw[g][s][0];
                    uint32_t a2 = rf[g][2] & lw[g][s][1], a3 = rf[g][3] & lw[g][s][1];
#pragma unroll
                    for (int j = 0; j < 4; j++)
                        asm volatile(
                            "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc "
                            "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                            : "+r"(acc[g][s][j][0]), "+r"(acc[g][s][j][1]), "+r"(acc[g][s][j][2]),
                              "+r"(acc[g][s][j][3])
                            : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(bf[j][0]), "r"(bf[j][1]));
                }
        }
    };

    for (int s = 0; s < NS; s++) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2));
        __syncthreads();
        if (s + STAGES - 1 < NS) load(s + STAGES - 1);
        asm volatile("cp.async.commit_group;\n" ::);
        compute(s % STAGES);
        if (s == S1 - 1) { /* the cases are counted: keep them, count the controls */
#pragma unroll
            for (int g = 0; g < 2; g++)
#pragma unroll
                for (int x = 0; x < 2; x++)
#pragma unroll
                    for (int j = 0; j < 4; j++)
#pragma unroll
                        for (int e = 0; e < 4; e++) {
                            stash[(((g * 2 + x) * 4 + j) * 4 + e) * GK3_THREADS + tid] = (uint32_t)acc[g][x][j][e];
                            acc[g][x][j][e] = 0;
                        }
        }
    }
    asm volatile("cp.async.wait_group 0;\n" ::);

    uint32_t bq[2] = {0, 0}, bk[4] = {0, 0, 0, 0};
    if constexpr (PACK16) {
#pragma unroll
        for (int g = 0; g < 2; g++)
#pragma unroll
            for (int x = 0; x < 2; x++)
#pragma unroll
                for (int j = 0; j < 4; j++)
#pragma unroll
                    for (int e = 0; e < 4; e++) {
                        uint32_t *p = &stash[(((g * 2 + x) * 4 + j) * 4 + e) * GK3_THREADS + tid];
                        *p = *p << 16 | (uint32_t)acc[g][x][j][e];
                    }
        /* the next triple's pair sums are loaded while this one is scored;
         * both classes stay in one word through the derivation (gk3_emit16) */
        uint4 xn[4];
        gk3_xc_load(P, S, gid, warp * 16 + tig, xn);
        const uint32_t cls16 = gk3_pk(P.n_ctrl, P.n_case);
#pragma unroll 1
        for (int t8 = 0; t8 < 8; t8++) {
            const int g = t8 >> 2, j = t8 & 3, q = g * 8 + gid, kk = warp * 16 + j * 4 + tig;
            uint4 xc[4] = {xn[0], xn[1], xn[2], xn[3]};
            if (t8 < 7) gk3_xc_load(P, S, ((t8 + 1) >> 2) * 8 + gid, warp * 16 + ((t8 + 1) & 3) * 4 + tig, xn);
            uint32_t v[27];
#pragma unroll
            for (int s = 1; s <= 2; s++)
#pragma unroll
                for (int t = 1; t <= 2; t++)
#pragma unroll
                    for (int u = 1; u <= 2; u++) {
                        int e = (t - 1) * 2 + (u - 1);
                        v[s * 9 + t * 3 + u] = stash[(((g * 2 + s - 1) * 4 + j) * 4 + e) * GK3_THREADS + tid];
                    }
            const uint32_t ik16[4] = {gk3_pk(xc[0].x, xc[1].x), gk3_pk(xc[0].y, xc[1].y), gk3_pk(xc[0].z, xc[1].z),
                                      gk3_pk(xc[0].w, xc[1].w)};
            const uint32_t jk16[4] = {gk3_pk(xc[2].x, xc[3].x), gk3_pk(xc[2].y, xc[3].y), gk3_pk(xc[2].z, xc[3].z),
                                      gk3_pk(xc[2].w, xc[3].w)};
            const bool ok = gk3_valid(P, S, q, kk);
            gk3_complete16(v, S.lr16[q], ik16, jk16, S.ga16[q], S.gb16[q], S.gc16[kk], cls16);
            uint32_t lo = gk3_emit16<STAT>(P, S, q, kk, ok, v);
            if (g) bq[1] = max(bq[1], lo);
            else bq[0] = max(bq[0], lo);
#pragma unroll
            for (int jj = 0; jj < 4; jj++)
                if (jj == j) bk[jj] = max(bk[jj], lo);
        }
    } else {
#pragma unroll
        for (int g = 0; g < 2; g++)
#pragma unroll
            for (int j = 0; j < 4; j++) {
                uint32_t c[2][27];
#pragma unroll
                for (int s = 1; s <= 2; s++)
#pragma unroll
                    for (int t = 1; t <= 2; t++)
#pragma unroll
                        for (int u = 1; u <= 2; u++) {
                            int e = (t - 1) * 2 + (u - 1), x = s * 9 + t * 3 + u;
                            c[0][x] = (uint32_t)acc[g][s - 1][j][e];
                            c[1][x] = stash[(((g * 2 + s - 1) * 4 + j) * 4 + e) * GK3_THREADS + tid];
                        }
                uint32_t lo = gk3_finish<2, STAT>(P, S, g * 8 + gid, warp * 16 + j * 4 + tig, c);
                bq[g] = max(bq[g], lo);
                bk[j] = max(bk[j], lo);
            }
    }
    gk3_cta_best(S, bq, bk);
    __syncthreads();
    gk3_cta_flush(P, S);
}

template <int STAT, bool PACK16>
int launch_one(const gk3_params &P, cudaStream_t st)
{
    static thread_local int configured = -1;
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return (int)e;
    if (configured != dev) {
        e = cudaFuncSetAttribute(k3_mma<STAT, PACK16>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM);
        if (e != cudaSuccess) return (int)e;
        configured = dev;
    }
    dim3 grid(P.mode == GK3_SEED ? (P.n_pairs + GK3_PAIRS - 1) / GK3_PAIRS : P.na * P.ngb,
              (P.nc + GK3_THIRD - 1) / GK3_THIRD);
    k3_mma<STAT, PACK16><<<grid, GK3_THREADS, SMEM, st>>>(P);
    return (int)cudaGetLastError();
}

template <int STAT>
int launch(const gk3_params &P, cudaStream_t st)
{
    return P.n_case < 65536u && P.n_ctrl < 65536u ? launch_one<STAT, true>(P, st) : launch_one<STAT, false>(P, st);
}

} // namespace

int gk3_launch_mma(const gk3_params &P, void *stream)
{
    return GK3_STAT_DISPATCH(P.stat, launch, P, (cudaStream_t)stream);
}
