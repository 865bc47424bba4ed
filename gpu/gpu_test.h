/* gpu_test.h -- NOT the production interface: the entry points of the CUDA
 * side that only tests/ and tests/bench/ call (kernels checked against their
 * CPU twins, device ceilings and feed rates, the wgmma loader switch).  The
 * program and the library go through gpu/gpu.h alone; these hooks live here
 * so that gpu.h says what a scan needs and nothing else.  Plain C, no CUDA
 * types, like gpu.h; implemented by the gpu/ .cu files when configured with
 * CUDA, by gpu/gpu_stub.c otherwise. */
#ifndef ES_GPU_TEST_H
#define ES_GPU_TEST_H

#include <stddef.h>
#include <stdint.h>

#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The b1 tensor-core rate of device dev (mma.sync m16n8k256 AND.POPC on
 *  register operands) in bit multiply-accumulates per second (benchmarks).
 *  @return ES_OK, ES_ERR_UNSUPPORTED before sm_80, ES_ERR_GPU. */
int es_gpu_b1_ceiling(int dev, double *bitmac_per_s);

/** Count tables of all pairs of variants of a and b on the device with the
 *  given kernel, without any statistic (tests: compared with the CPU twin).
 *  out: a->count * b->count tables, row-major. */
int es_gpu_count_tables(int dev, int kernel, const es_gpu_config_t *cfg, const es_gpu_block_t *a,
                        const es_gpu_block_t *b, es_gpu_cand_t *out);

/** Device bytes one cached block of `block` variants takes (planes, genotype
 *  counts, per-variant constants): --gpu-mem must hold two. */
size_t es_gpu_slot_bytes(uint32_t block, uint32_t n_planes, uint32_t words);
/** The same for a streamed cache whose slots hold the planes and counts
 *  only (es_gpu_cache_lite). */
size_t es_gpu_slot_bytes_lite(uint32_t block, uint32_t n_planes, uint32_t words);

/** Raw products of the sm_90a wgmma b1 main loops (gpu/pair/wgmma_cp.cuh,
 *  and wgmma_tma.cuh where es_gpu_wgmma_loader() says; tests): for np-plane
 *  blocks a (na variants) and b (nb variants), row-major bit matrices of
 *  words-word rows (row r = plane r % np of variant r / np), writes
 *  popcount(a_r & b_c) over the words of class y -- y 0: cases, [0, kw0);
 *  y 1: controls, [off_ctrl, off_ctrl + kw1) -- to
 *  out[(y * na*np + r) * nb*np + c] (2 * na*np * nb*np values).  words,
 *  off_ctrl, kw0 and kw1 must be even.
 *  @return ES_OK, ES_ERR_ARG, ES_ERR_UNSUPPORTED when device dev is not sm_90
 *          or the build has no sm_90a code, ES_ERR_GPU on a CUDA error. */
int es_gpu_b1_gemm_test(int dev, int np, const uint64_t *a, uint32_t na, const uint64_t *b, uint32_t nb,
                        uint32_t words, uint32_t off_ctrl, uint32_t kw0, uint32_t kw1, uint32_t *out);

/** The wgmma b1 rate of device dev: wgmma m64n256k256 AND.POPC from shared
 *  memory back to back on every SM (no global traffic), in bit
 *  multiply-accumulates per second (64 * 256 * 256 per wgmma; benchmarks).
 *  @return ES_OK, ES_ERR_UNSUPPORTED as es_gpu_b1_gemm_test(), ES_ERR_GPU. */
int es_gpu_b1_ceiling_wgmma(int dev, double *bitmac_per_s);

/** The scan's two-plane wgmma tile mainloop alone -- same tile shape,
 *  pipeline and occupancy, no epilogue -- over random blocks of 16,384
 *  variants with n_samples samples (half cases), in pairs per second: the
 *  rate at which the operands can be fed to the tensor cores (benchmarks).
 *  @return ES_OK, ES_ERR_ARG, ES_ERR_UNSUPPORTED as es_gpu_b1_gemm_test(),
 *          ES_ERR_GPU. */
int es_gpu_wgmma_feed_rate(int dev, uint32_t n_samples, double *pairs_per_s);

/** How the two-plane wgmma tiles (the scan's, es_gpu_b1_gemm_test's np = 2
 *  and es_gpu_wgmma_feed_rate's) load their operands, for the whole process:
 *  0 per-thread cp.async (its copy code picked per scan shape); 8 or 9 the
 *  same with the copy code forced: chunk sources in registers and a
 *  full-stage path (8), or rebuilt at every stage (9, the older one); 1, 2
 *  or 4 the bulk tensor copy engine (TMA) in clusters of that many CTAs
 *  sharing the A tile by multicast.  The first use reads EPISTREAM_GPU_LOAD
 *  (cp, cp-regs, cp-plain, tma1, tma2, tma4; default cp).  Any other mode
 *  only queries.  Outputs are the same with every loader.
 *  @return the mode before the call. */
int es_gpu_wgmma_loader(int mode);

/** The largest total count of n tables: es_gpu_bounds() reads ln n! up to
 *  that + 1. */
static inline uint32_t es_gpu_cand_max_total(const es_gpu_cand_t *tables, size_t n)
{
    uint32_t maxn = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t s = 0;
        for (int y = 0; y < 2; y++)
            for (int i = 0; i < 9; i++) s += tables[k].n[y][i];
        if (s > maxn) maxn = s;
    }
    return maxn;
}

/** The device's float bounds of the statistic stat (es_stat_t) for n given
 *  tables (tests: compared with the exact CPU value).  out: 9 floats per
 *  table: up, lo, gup with the two-plane per-variant constants, up, lo, gup
 *  with the per-pair margins (calls missing), the BOOST IPF lower bound, and
 *  the first-stage screen's bound in nats as es_gpu_screen_host() with s3 0
 *  and 1 (0 for K2).
 *  lnfact: ln n! for n < n_lnfact, the caller's values (stats.h's
 *  es_lnfact(), as es_gpu_config_t.lnfact), at least
 *  es_gpu_cand_max_total() + 2 of them.
 *  @return ES_OK, ES_ERR_ARG (lnfact too short), ES_ERR_GPU. */
int es_gpu_bounds(int dev, int stat, const es_gpu_cand_t *tables, size_t n, const double *lnfact,
                  uint32_t n_lnfact, float *out);

/** The first-stage screen's upper bound (gpu/pair/screen.cuh,
 *  gk_screen_sum2 with its margins) of stat (boost, chi2, mi or ig) for n
 *  tables, in nats (boost: G / 2; chi2: X^2; mi, ig: N I in nats), computed
 *  on the host with exact reciprocals where the device takes rcp.approx
 *  (tests: never below the exact statistic).  s3: each stratum's sum with
 *  one reciprocal (gk_screen_s3, the ws kernel's form), else three (the
 *  other kernels').  Needs no GPU.
 *  @return ES_OK, ES_ERR_ARG (stat), ES_ERR_UNSUPPORTED without CUDA. */
int es_gpu_screen_host(int stat, int s3, const es_gpu_cand_t *tables, size_t n, float *out);

/** The pair engine's exact statistic (gpu/pair/exact.cuh, the second stage
 *  of exact.cu) of n tables for stat (boost, chi2, mi or ig): val[k], its
 *  proven margin eps[k] (|val - the host's es_stat_value()| <= eps) and
 *  ok[k] (0: not decided on the device; val and eps are then meaningless).
 *  nlogn: the host's n ln n table (stats.h es_nlogn_table()), n_nlogn >=
 *  ES_NLOGN_TAB entries, needed by mi and ig.  es_gpu_exact() runs it on
 *  device dev; es_gpu_exact_host() runs the same code on the host, with the
 *  host's log() (needs no GPU).  fit (may be NULL; boost): 18 doubles a
 *  table, its fit as es_stat_boost_fitted() takes it (the second stage
 *  sends these to the host; fit[18 * k] NaN where none: undecided, or a
 *  degenerate table).
 *  @return ES_OK, ES_ERR_ARG (stat, or no table for mi and ig), ES_ERR_GPU,
 *          ES_ERR_UNSUPPORTED without CUDA. */
int es_gpu_exact(int dev, int stat, const es_gpu_cand_t *tables, size_t n, const double *nlogn, uint32_t n_nlogn,
                 double *val, double *eps, int *ok, double *fit);
int es_gpu_exact_host(int stat, const es_gpu_cand_t *tables, size_t n, const double *nlogn, uint32_t n_nlogn,
                      double *val, double *eps, int *ok, double *fit);

/** The 2x27 tables of every (x, y, z), x of a, y of b, z of c, on the
 *  device with the given kernel and the counting path of the 3-way scan
 *  (tests: compared with es_count_triple()).  out: a->count * b->count *
 *  c->count tables of 54 counts (n[y][27], es_table3_t's layout), index
 *  (x * b->count + y) * c->count + z.  cfg as for es_gpu3_open(); a scan's
 *  blocks have at most cfg->block variants.
 *  @return ES_OK, ES_ERR_ARG, ES_ERR_UNSUPPORTED, ES_ERR_GPU. */
int es_gpu3_count_tables(int dev, int kernel, const es_gpu3_config_t *cfg, const es_gpu_block_t *a,
                         const es_gpu_block_t *b, const es_gpu_block_t *c, uint32_t *out);

/** The device's float bounds of 3-way statistic stat (es_stat_t) for n
 *  tables of 54 counts each (tests: compared with the exact CPU value).
 *  out: 4 floats a table: up, lo (of the score: the statistic, or -K2),
 *  the upper bound of G (chi2, mi, ig), and the df the significance test
 *  uses at least.  lnfact as es_gpu3_config_t's (K2).  stat |
 *  ES_GPU3_BOUNDS_P16: the tables whose classes are each under 65,536 go
 *  through the mma kernel's path with both classes in one word (their sums
 *  as the class sizes), the others as without it.
 *  @return ES_OK, ES_ERR_ARG, ES_ERR_GPU. */
#define ES_GPU3_BOUNDS_P16 0x100
int es_gpu3_bounds(int dev, int stat, const uint32_t *tables, size_t n, const double *lnfact,
                   uint32_t n_lnfact, float *out);

/** One pair for es_gpu_qt_bound_test(): its 3x3 table and its integer
 *  sums with ABq known only to lie in [hi * 2^24, hi * 2^24 + (2^24 - 1) *
 *  sum_{a>0} b] (as src/backend/cpu.c's bound takes them). */
typedef struct {
    uint32_t n[9];
    int64_t sy, syy, ra[2], cb[2], hi;
} es_gpu_qt_pair_t;

/** The QT engine's per-pair decisions on the device (gpu/pair/qt_linear.cuh)
 *  for n pairs, in the phenotype units of scale, scale2: fail[k] the
 *  table's failure rules (es_stat_linear_prep), cert[k] and zsq[k] the
 *  bound (es_stat_linear_bound), zlo[k] a lower bound of z^2 where cert
 *  (tests: compared bit for bit with the CPU's twins).
 *  @return ES_OK, ES_ERR_GPU, ES_ERR_UNSUPPORTED (no device). */
int es_gpu_qt_bound_test(int dev, const es_gpu_qt_pair_t *p, size_t n, double scale, double scale2, uint8_t *fail,
                         uint8_t *cert, double *zsq, double *zlo);

#ifdef __cplusplus
}
#endif

#endif
