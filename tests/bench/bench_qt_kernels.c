/* bench_qt_kernels.c -- the pruned quantitative-trait scan's per-pair kernels
 * against this CPU's measured peaks, on one thread.  Not a test: a table for
 * doc/BENCHMARKS.md ("the kernels to this CPU's peak, and the floor").
 *
 *   bench_qt_kernels [SAMPLES [VARIANTS [ROUNDS]]]     (defaults 2000 688 5)
 *
 * 1. The clock (a chain of dependent imul, three cycles each) and the peaks
 *    of the two instructions every pair needs: vpdpbusd zmm (24 independent
 *    chains, register operands) and the triple vpandq + vpopcntq + vpaddq
 *    (24 chains).  Times are this thread's CPU time (CLOCK_THREAD_CPUTIME_ID),
 *    best of ROUNDS, so a loaded machine moves them less than the wall clock.
 * 2. The scan's group kernels on a tile of VARIANTS first variants against
 *    VARIANTS other partners (random genotypes, 1 % missing calls, a random
 *    39-bit phenotype; the blocks laid out as the scan does), in the scan's
 *    order (src/backend/cpu.c, cpu_tile_qt): groups of ES_QT_GROUP first
 *    variants against runs of ES_RUN2 partners, the partners in chunks of
 *    CHUNK ("L2": the scan's chunk, about 1 MiB of partner rows and planes;
 *    "tile": the whole block, the order before chunks).  ns a pair for
 *      dothi  es_qt_dothi_group   the bound's two byte slices (64 vpdpbusd a
 *                                 pair at 2,048 slots)
 *      table  es_count_group_listed  the four P products (16 AND + popcount a
 *                                 pair at 2,048 slots) and the nine cells
 *      miss   es_qt_sums_group    the missing-call corrections and counts
 *    and the floor of the first two at the peaks of part 1.
 *
 * Build: make tests/bench/bench_qt_kernels (in a configured tree). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "select.h"
#include "../tu_planes.h"
#include "../tu_rand.h"

#if ES_CPU_X86
#include <immintrin.h>
#endif

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static volatile uint64_t sink;

/* GHz from a chain of dependent imul (3 cycles each on Intel and AMD cores);
 * 0 elsewhere (the cycle columns then read 0) */
static double clock_ghz(int rounds)
{
#if !ES_CPU_X86
    (void)rounds;
    return 0.0;
#else
    double best = 1e30;
    for (int r = 0; r < rounds; r++) {
        uint64_t x = 3;
        const long n = 20000000;
        double t = cpu_now();
        for (long i = 0; i < n; i++) __asm__ volatile("imul %0, %0\n\timul %0, %0" : "+r"(x));
        t = cpu_now() - t;
        sink += x;
        if (t < best) best = t;
    }
    return 3.0 * 2 * 20000000 / best / 1e9;
#endif
}

#if ES_CPU_X86
#define CH24(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11) \
    M(12) M(13) M(14) M(15) M(16) M(17) M(18) M(19) M(20) M(21) M(22) M(23)

/* PEAK(name, target, lane type of the sums, init, step): ns a step of 24
 * independent accumulators a##i, best of rounds (x a constant the compiler
 * must keep in a register) */
#define PEAK(NAME, TARGET, INIT, STEP, SUM)                                                                      \
    static __attribute__((target(TARGET))) double NAME(int rounds)                                               \
    {                                                                                                            \
        double best = 1e30;                                                                                      \
        for (int r = 0; r < rounds; r++) {                                                                       \
            __m512i x = _mm512_set1_epi8(3), y = _mm512_set1_epi8(5);                                            \
            CH24(INIT)                                                                                           \
            const long n = 2000000;                                                                              \
            double t = cpu_now();                                                                                \
            for (long k = 0; k < n; k++) {                                                                       \
                CH24(STEP)                                                                                       \
                __asm__ volatile("" : "+v"(x), "+v"(y));                                                         \
            }                                                                                                    \
            t = cpu_now() - t;                                                                                   \
            __m512i s = a0;                                                                                      \
            CH24(SUM)                                                                                            \
            sink += (uint64_t)_mm512_reduce_add_epi64(s);                                                        \
            if (t < best) best = t;                                                                              \
        }                                                                                                        \
        return best * 1e9 / (2000000.0 * 24);                                                                    \
    }
#define INIT(i) __m512i a##i = _mm512_set1_epi64(i);
#define SUM(i) s = _mm512_add_epi64(s, a##i);
/* a vpdpbusd zmm (register operands, as dothi4_vnni's) */
#define DP(i) __asm__("vpdpbusd %2, %1, %0" : "+v"(a##i) : "v"(x), "v"(y));
/* a vpandq + vpopcntq + vpaddq (the and of the accumulator, so that no two chains share it) */
#define PC(i) a##i = _mm512_add_epi64(a##i, _mm512_popcnt_epi64(_mm512_and_si512(x, a##i)));
PEAK(peak_vnni, "avx512f,avx512bw,avx512vnni", INIT, DP, SUM)
PEAK(peak_popcnt, "avx512f,avx512vpopcntdq", INIT, PC, SUM)
#undef PEAK
#undef INIT
#undef SUM
#undef DP
#undef PC
#undef CH24
#endif

typedef struct {
    es_planes_t pl;
    es_qt_block_t blk;
} side_t;

/* m variants of n samples (one class), 1 % missing calls */
static int side_make(side_t *d, uint32_t m, uint32_t n, const es_qt_y_t *y, uint64_t seed)
{
    memset(d, 0, sizeof *d);
    if (tu_planes_alloc(&d->pl, m, n)) return -1;
    const uint32_t words = d->pl.words;
    d->pl.gcount = calloc(m, sizeof *d->pl.gcount);
    if (!d->pl.gcount) return -1;
    for (uint32_t v = 0; v < m; v++) {
        double maf = 0.05 + 0.4 * (double)(tu_rand(&seed) % 1000) / 1000.0;
        uint64_t *p = d->pl.planes + (size_t)v * 3 * words;
        for (uint32_t s = 0; s < n; s++) {
            unsigned g = 0;
            if (tu_rand(&seed) % 100 == 0) {
                g = 3;
            } else {
                for (int k = 0; k < 2; k++) g += (double)(tu_rand(&seed) % 100000) / 100000.0 < maf;
                d->pl.gcount[v][0][g]++;
            }
            tu_plane_set(p, words, s, g);
        }
    }
    return es_qt_block_fill(&d->blk, &d->pl, 0, m, y, 0);
}

static void side_free(side_t *d)
{
    free(d->pl.planes);
    free(d->pl.gcount);
    es_qt_block_free(&d->blk);
}

typedef struct {
    int64_t *hi;
    es_qt_sums_t *sg;
    uint32_t (*mc)[5];
    es_table2_t *tg;
    es_qt_scratch_t sc;
} bufs_t;

/* ns a pair over A x B, partners in chunks of `chunk`: which = 7 runs the
 * three kernels in turn on each run (the scan's order, one time for the
 * three), 1, 2 or 4 one of them alone (dothi, table, miss); + 8: the table
 * from B's planes side by side (tr), as the scan */
static double time_kernels(const side_t *A, const side_t *B, const es_planes_tr_t *tr, const es_qt_y_t *y,
                           uint32_t chunk, int rounds, int which)
{
    const es_planes_tr_t *tb = which & 8 ? tr : NULL;
    bufs_t b;
    memset(&b, 0, sizeof b);
    b.hi = calloc((size_t)ES_QT_GROUP * ES_RUN2, sizeof *b.hi);
    b.sg = calloc((size_t)ES_QT_GROUP * ES_RUN2, sizeof *b.sg);
    b.mc = calloc((size_t)ES_QT_GROUP * ES_RUN2, sizeof *b.mc);
    b.tg = calloc((size_t)ES_QT_GROUP * ES_RUN2, sizeof *b.tg);
    if (!b.hi || !b.sg || !b.mc || !b.tg) {
        fprintf(stderr, "bench_qt_kernels: out of memory\n");
        exit(1);
    }
    const es_popcount_impl_t *impl = es_popcount_best();
    const uint32_t m = A->pl.count, mb = B->pl.count;
    double best = 1e30;
    for (int r = 0; r < rounds; r++) {
        double t = cpu_now();
        for (uint32_t c0 = 0; c0 < mb; c0 += chunk) {
            uint32_t c1 = mb - c0 < chunk ? mb : c0 + chunk;
            for (uint32_t a0 = 0; a0 < m; a0 += ES_QT_GROUP) {
                uint32_t na = m - a0 < ES_QT_GROUP ? m - a0 : ES_QT_GROUP;
                for (uint32_t r0 = c0; r0 < c1; r0 += ES_RUN2) {
                    uint32_t nr = c1 - r0 < ES_RUN2 ? c1 - r0 : ES_RUN2;
                    if (which & 1) es_qt_dothi_group(&A->blk, a0, na, &B->blk, r0, nr, b.hi, ES_RUN2, 0);
                    if (which & 4)
                        es_qt_sums_group(&A->blk, a0, na, &B->blk, r0, nr, y, &b.sc, b.hi, b.sg, b.mc, ES_RUN2, 0);
                    if (which & 2)
                        es_count_group_listed(impl, &A->pl, a0, na, &B->pl, tb, r0, nr,
                                              (const uint32_t(*)[5])b.mc, ES_RUN2, b.tg);
                    sink += (uint64_t)b.hi[0] + b.tg[0].n[0][4] + (uint64_t)b.sg[0].sy;
                }
            }
        }
        t = cpu_now() - t;
        if (t < best) best = t;
    }
    es_qt_scratch_free(&b.sc);
    free(b.hi);
    free(b.sg);
    free(b.mc);
    free(b.tg);
    return best * 1e9 / ((double)m * mb);
}

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 2000;
    uint32_t m = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 688;
    int rounds = argc > 3 ? atoi(argv[3]) : 5;
    if (n < 64 || m < 64 || rounds < 1) {
        fprintf(stderr, "usage: bench_qt_kernels [SAMPLES >= 64 [VARIANTS >= 64 [ROUNDS]]]\n");
        return 1;
    }
    double ghz = clock_ghz(rounds);
    printf("# bench_qt_kernels: %u samples, %u x %u pairs a tile, one thread, CPU time, best of %d\n", n, m, m,
           rounds);
    printf("%-48s %10s %10s\n", "measure", "ns", "cycles");
    if (ghz > 0) printf("%-48s %10.3f %10s\n", "clock (imul chain)", 1.0 / ghz, "1");
    double p_dp = 0, p_pc = 0;
#if ES_CPU_X86
    if (es_cpu_has(ES_CPU_AVX512VNNI)) {
        p_dp = peak_vnni(rounds);
        printf("%-48s %10.3f %10.2f\n", "peak vpdpbusd zmm (24 chains)", p_dp, p_dp * ghz);
    }
    if (es_cpu_has(ES_CPU_AVX512)) {
        p_pc = peak_popcnt(rounds);
        printf("%-48s %10.3f %10.2f\n", "peak vpandq+vpopcntq+vpaddq zmm (24 chains)", p_pc, p_pc * ghz);
    }
#endif
    es_qt_y_t y;
    memset(&y, 0, sizeof y);
    uint32_t words = (n + 255) / 256 * 4;
    y.slots = words * 64;
    y.n = n;
    y.scale = 1;
    y.scale2 = 1;
    y.q = calloc(y.slots, sizeof *y.q);
    y.q2 = calloc(y.slots, sizeof *y.q2);
    y.yd = calloc(y.slots, sizeof *y.yd);
    if (!y.q || !y.q2 || !y.yd) return 1;
    uint64_t seed = 21;
    for (uint32_t s = 0; s < n; s++) {
        y.q[s] = tu_rand(&seed) >> (64 - ES_QT_BITS);
        y.q2[s] = tu_rand(&seed) >> (64 - ES_QT_BITS);
        y.yd[s] = (double)y.q[s];
    }
    side_t A, B;
    if (side_make(&A, m, n, &y, 1) || side_make(&B, m, n, &y, 2)) {
        fprintf(stderr, "bench_qt_kernels: cannot lay out the blocks\n");
        return 1;
    }
    es_planes_tr_t tr;
    memset(&tr, 0, sizeof tr);
    if (es_planes_tr_fill(&tr, &B.pl)) {
        fprintf(stderr, "bench_qt_kernels: cannot lay out the partners' planes\n");
        return 1;
    }
    /* the scan's chunk (src/backend/cpu.c, qt_chunk): about 1 MiB of rows and planes */
    size_t len = y.slots;
    uint32_t chunk = (uint32_t)(((size_t)1 << 20) / (len + len / 4 + 1) / ES_RUN2 * ES_RUN2);
    if (chunk < 2 * ES_RUN2) chunk = 2 * ES_RUN2;
    static const struct {
        int which;
        const char *name;
    } runs[] = {{1, "dothi (es_qt_dothi_group)"},
                {10, "table (es_count_group_listed)"},
                {2, "table, horizontal sums (before)"},
                {4, "miss (es_qt_sums_group)"},
                {15, "the three in turn (the scan)"},
                {7, "three in turn, horizontal table (before)"}};
    for (int order = 0; order < 2; order++)
        for (size_t k = 0; k < sizeof runs / sizeof *runs; k++) {
            double ns = time_kernels(&A, &B, &tr, &y, order ? m : chunk, rounds, runs[k].which);
            char lab[96];
            snprintf(lab, sizeof lab, "%s, %s %u", runs[k].name, order ? "tile" : "chunk", order ? m : chunk);
            printf("%-48s %10.3f %10.1f\n", lab, ns, ns * ghz);
        }
    /* the floor: 2 slices x len / 64 vpdpbusd and 4 x len / 512 triples a pair */
    if (p_dp > 0 && p_pc > 0) {
        double fd = 2.0 * (double)len / 64 * p_dp, ft = 4.0 * (double)len / 512 * p_pc;
        printf("%-48s %10.3f %10.1f\n", "floor dothi (2 len/64 vpdpbusd at peak)", fd, fd * ghz);
        printf("%-48s %10.3f %10.1f\n", "floor table (4 len/512 triples at peak)", ft, ft * ghz);
        printf("%-48s %10.3f %10.1f\n", "floor dothi + table", fd + ft, (fd + ft) * ghz);
    }
    es_planes_tr_free(&tr);
    side_free(&A);
    side_free(&B);
    es_qt_y_free(&y);
    return 0;
}
