/* gpu.h -- plain C interface of the CUDA side (no CUDA types): what the
 * program and the library call, nothing more (the test and benchmark hooks
 * are in gpu_test.h).  Implemented by the gpu/ .cu files when configured
 * with CUDA, by gpu/gpu_stub.c otherwise. */
#ifndef ES_GPU_H
#define ES_GPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Number of visible CUDA devices in *n (0 when none or no driver).
 *  @return ES_OK, or ES_ERR_GPU when the runtime fails for another reason. */
int es_gpu_device_count(int *n);

/** Describe device dev ("NVIDIA H100 80GB HBM3, sm_90, 132 SMs, 79.1 GiB") into buf.
 *  @return ES_OK, ES_ERR_ARG for a bad index, ES_ERR_GPU on a runtime error. */
int es_gpu_device_describe(int dev, char *buf, size_t len);


/* ---- the pair-scan engine (gpu/pair/engine.cu) -------------------------- */

/** A pair whose statistic may matter: its indices and 2x3x3 table
 *  (n[y][a*3+b], y 0 control / 1 case), the layout of es_table2_t. */
typedef struct {
    uint32_t i, j;
    uint32_t n[2][9];
} es_gpu_cand_t;

/** Counting kernel families (WS: the persistent warp-specialised Hopper
 *  kernel of two-plane scans; three planes run the wgmma tiles). */
enum { ES_GPU_KERNEL_AUTO = 0, ES_GPU_KERNEL_WGMMA, ES_GPU_KERNEL_MMA, ES_GPU_KERNEL_POPC, ES_GPU_KERNEL_WS };

/** What a device needs to know about the scan (fixed for the whole run). */
typedef struct {
    int stat;            /**< es_stat_t */
    uint32_t top_k;
    float sig_min_g;     /**< smallest G that may be significant; INFINITY: no test */
    uint32_t n_variants; /**< dataset variants (per-variant thresholds) */
    uint32_t block;      /**< variants per block */
    uint32_t n_planes;   /**< 2 or 3 */
    uint32_t words;      /**< words per plane */
    uint32_t off_ctrl;   /**< first control word */
    uint32_t kw_case, kw_ctrl; /**< words to count per class (multiples of 4) */
    size_t mem_limit;    /**< device bytes to use at most; 0: what is free */
    int kernel;          /**< ES_GPU_KERNEL_* */
    /** K2 only: ln n! for n < n_lnfact, the host's own values (stats.h's
     *  es_lnfact()), so that the device's bounds start from the numbers the
     *  host scores with.  Read by es_gpu_open() alone (copied to the
     *  device); the caller keeps and frees it. */
    const double *lnfact;
    uint32_t n_lnfact;   /**< entries of lnfact: ES_GPU_LNFACT_N(kw_case, kw_ctrl) */
    /** mi and ig: n ln n for n < n_nlogn, the host's own table (stats.h's
     *  es_nlogn_table(), ES_NLOGN_TAB entries), with which the device
     *  computes the candidates' exact statistic bit for bit as the host
     *  does (gpu/pair/exact.cuh); NULL: mi and ig candidates all go to the
     *  host.  Read by es_gpu_open() alone (copied); the caller keeps it. */
    const double *nlogn;
    uint32_t n_nlogn;
} es_gpu_config_t;

/** Entries of es_gpu_config_t.lnfact a K2 scan needs: every count a cell can
 *  hold, plus one (K2 uses (n + 1)!). */
#define ES_GPU_LNFACT_N(kw_case, kw_ctrl) (64u * ((kw_case) + (kw_ctrl)) + 2u)

/** One block of variants as the host packed it (es_planes_t). */
typedef struct {
    uint32_t index;         /**< block number */
    uint32_t first, count;  /**< variants */
    const uint64_t *planes; /**< count * n_planes * words words */
    const uint32_t *gcount; /**< count * 6: [v][y][g] */
} es_gpu_block_t;

typedef struct es_gpu es_gpu_t;

/** Open device dev for a scan.  @return ES_OK, ES_ERR_GPU, ES_ERR_NOMEM,
 *  ES_ERR_UNSUPPORTED, ES_ERR_ARG (a K2 scan without its lnfact table). */
int es_gpu_open(int dev, const es_gpu_config_t *cfg, es_gpu_t **out);
/** Load, on the calling thread, the kernels a scan of cfg opened on device
 *  dev launches first, as es_gpu_open's own thread would (the driver loads
 *  a kernel when first used, a few milliseconds each), so that a later
 *  es_gpu_open finds them loaded (and its first host buffers made: see
 *  es_gpu_warm_release).  cfg needs stat, n_planes, kw_case,
 *  kw_ctrl, kernel, top_k, nlogn and n_nlogn only.  Prints nothing; a
 *  choice es_gpu_open would refuse is left for it to report.
 *  @return ES_OK, ES_ERR_ARG, ES_ERR_GPU, ES_ERR_NOMEM, ES_ERR_UNSUPPORTED */
int es_gpu_warm(int dev, const es_gpu_config_t *cfg);
/** es_gpu_warm also makes the flights' first pinned host buffers, which
 *  the next es_gpu_open of that shape on device dev adopts: free them if
 *  none did (after that es_gpu_open, or when the scan ended before it). */
void es_gpu_warm_release(int dev);
void es_gpu_close(es_gpu_t *g);
/** The kernel family in use ("wgmma", "mma", "popc") and the device's description. */
const char *es_gpu_kernel_name(const es_gpu_t *g);
/** Seconds the device spent in tile kernels so far (event-timed). */
double es_gpu_kernel_seconds(const es_gpu_t *g);
/** Seconds in the second stage (the candidates' exact statistic) so far. */
double es_gpu_exact_seconds(const es_gpu_t *g);
/** Of es_gpu_kernel_seconds, the diagonal tiles' pre-passes (EPISTREAM_GPU_PREPASS). */
double es_gpu_prepass_seconds(const es_gpu_t *g);
/** Seconds the device's kernel stream spent between one tile's end and the
 *  next one's start (the tiles es_gpu_collect gave, in order). */
double es_gpu_gap_seconds(const es_gpu_t *g);
/* The first-stage screen so far (two planes; every statistic but K2): out[0]
 * CTAs screened, out[1] of them whose survivors fit the queue, out[2] pairs
 * that passed; out[3] BOOST's CTA tiles run without the in-tile fits (the
 * wgmma and ws kernels' fit-less code, gk_boost_fitless).  Waits for the
 * device.  @return ES_OK or ES_ERR_GPU. */
int es_gpu_screen_stats(es_gpu_t *g, unsigned long long out[4]);
/* The second stage so far (gpu/pair/exact.cu: the candidates' exact
 * statistic on the device; boost, chi2, mi, ig): out[0] candidates the
 * tile kernels emitted, out[1] of them decided on the device, out[2] of
 * those dropped (the host scores out[0] - out[2]).  Waits for the device.
 * @return ES_OK, ES_ERR_GPU. */
int es_gpu_exact_stats(es_gpu_t *g, unsigned long long out[3]);
/** 1 when a tile's second stage runs on a stream of its own, beside the
 *  next tile's kernel; 0 after its tile on the kernel stream (no second
 *  stage, or EPISTREAM_GPU_STAGE2=inline). */
int es_gpu_stage2_side(const es_gpu_t *g);
/** Device blocks held at once (the streaming cache). */
int es_gpu_cache_slots(const es_gpu_t *g);
/** 1 when the cache's slots hold the planes and counts only, the blocks'
 *  per-variant constants built beside them (three blocks' sets, reused while
 *  a block's tiles follow): where slots holding the constants
 *  too would be fewer than the blocks and fewer than these (the data then
 *  stream through more slots, or fit after all); EPISTREAM_GPU_SLOTPRE=1:
 *  0, the constants in the slots. */
int es_gpu_cache_lite(const es_gpu_t *g);
/** Upload block b into a free slot of g's block cache ahead of its first
 *  tile, from a host thread other than the one that submits (at most one
 *  such thread per engine; es_gpu_submit waits for a block on its way).
 *  Does nothing when b is resident or no slot is free (the submitting
 *  thread then uploads, evicting as it needs).  From pageable memory this
 *  costs the calling thread about a copy's time, which it takes off the
 *  submitting thread.  @return ES_OK, or ES_ERR_GPU. */
int es_gpu_preload(es_gpu_t *g, const es_gpu_block_t *b);
/** Seconds the submitting thread spent queueing block uploads (from
 *  pageable memory, about the copies' time). */
double es_gpu_upload_seconds(const es_gpu_t *g);
/** Pin host memory for asynchronous copies (all devices); failures are not
 *  errors (copies are then synchronous). */
void es_gpu_host_register(void *p, size_t bytes);
void es_gpu_host_unregister(void *p);
/** Tiles a device may have in flight: the host scores the oldest while the
 *  others run, so a run of tiles with many candidates (the first ones of a
 *  scan) overlaps the kernels of the next. */
#define ES_GPU_FLIGHTS 4
/** Queue the tile of blocks a, b (a->index <= b->index) with the host's
 *  exact k-th best as a score key (0: none).  At most ES_GPU_FLIGHTS tiles
 *  are in flight; collect one before submitting another. */
int es_gpu_submit(es_gpu_t *g, const es_gpu_block_t *a, const es_gpu_block_t *b, uint32_t tau_key);
/** Wait for the oldest tile in flight; *cand (valid until the next submit)
 *  receives its candidates.  @return ES_OK, or ES_ERR_GPU. */
int es_gpu_collect(es_gpu_t *g, const es_gpu_cand_t **cand, size_t *n, uint32_t *bi, uint32_t *bj);
/** BOOST: the fits of the candidates es_gpu_collect gave last (valid as
 *  they are), 18 doubles each, fit[18 * k .. 18 * k + 17] for candidate k,
 *  as es_stat_boost_fitted() takes them; fit[18 * k] NaN where the device
 *  made none.  NULL when the device sends none (another statistic, no
 *  second stage, EPISTREAM_GPU_FITS=0). */
const double *es_gpu_collect_fits(const es_gpu_t *g);
/** Tiles in flight. */
int es_gpu_in_flight(const es_gpu_t *g);


/* ---- the quantitative-trait pair engine (gpu/pair/qt.cu) ---------------- */

/** A pair of a quantitative-trait scan (`--stat linear`) that the device's
 *  bound could not drop: its indices, its 3x3 genotype table n[a*3+b] and
 *  its exact sum of a*b*q (the fixed-point phenotype q of count.h's
 *  es_qt_y_t).  Every other sum of the pair is a per-variant total (no
 *  call is missing on this path), so the host scores it exactly as the CPU
 *  backend does. */
typedef struct {
    uint32_t i, j;
    uint32_t n[9];
    int64_t saby;
} es_gpu_qt_cand_t;

/** What the QT engine needs to know about the scan (fixed for the run). */
typedef struct {
    uint32_t n_variants; /**< dataset variants (per-variant thresholds) */
    uint32_t block;      /**< variants per block at most */
    uint32_t slots;      /**< sample slots per variant row (a multiple of 64) */
    uint32_t n;          /**< samples (slots [0, n) hold them; no call missing) */
    const uint64_t *q;   /**< the fixed-point phenotype, `slots` values < 2^39 (copied by open) */
    int64_t sy, syy;     /**< sum of q, of q2 over the samples */
    double scale, scale2; /**< the fixed point's (es_qt_y_t) */
    uint32_t top_k;
    /** z^2 at or above which a pair may be significant: INFINITY, no test
     *  (never below the scan's smallest critical value) */
    double sig_min;
    size_t mem_limit;    /**< device bytes to use at most; 0: what is free */
    int emit_all;        /**< tests: every pair of a tile comes back (no screen) */
    uint32_t band_rows;  /**< tests: CTA rows of a tile a band at most (0: as memory allows) */
} es_gpu_qt_config_t;

/** One block of variants for the QT engine: genotype codes (0, 1, 2 copies
 *  of A1; no missing call) of `count` variants, `slots` bytes each, and per
 *  variant its counts of codes 1 and 2 and its sums of q over them.  The
 *  codes come as bytes (`code`) or, where `code` is NULL, as the block's two
 *  bit planes (`planes`, es_planes_t's layout: plane p of variant v at
 *  planes + (2 v + p) * words; code = bit of P1 + bit of P2, slots < `slots`),
 *  a quarter of the bytes to upload, made codes on the device. */
typedef struct {
    uint32_t index;        /**< block number */
    uint32_t first, count; /**< variants */
    const uint8_t *code;   /**< count * slots, or NULL */
    const uint64_t *planes; /**< where code is NULL: count * 2 * words */
    uint32_t words;        /**< words a plane (>= slots / 64) */
    const uint32_t (*cnt)[2];
    const int64_t (*tot)[2];
} es_gpu_qt_block_t;

typedef struct es_gpu_qt es_gpu_qt_t;

/** Open device dev for a QT scan.  Close with es_gpu_qt_close().
 *  @return ES_OK, ES_ERR_GPU, ES_ERR_NOMEM, ES_ERR_UNSUPPORTED (before
 *  sm_80: the kernel is integer mma.sync), ES_ERR_ARG. */
int es_gpu_qt_open(int dev, const es_gpu_qt_config_t *cfg, es_gpu_qt_t **out);
void es_gpu_qt_close(es_gpu_qt_t *g);
/** Count and screen the tile of blocks a, b (a->index <= b->index; a == b:
 *  pairs i < j) with the host's exact k-th best `tau` (-INFINITY: none);
 *  *cand (valid until the next call on g) receives the pairs that may
 *  matter, with their exact sums.  Blocks stay cached on the device while
 *  they fit; `a` and `b` are read only when not cached (the caller may then
 *  fill them lazily: es_gpu_qt_cached() says).  @return ES_OK, ES_ERR_GPU,
 *  ES_ERR_NOMEM. */
int es_gpu_qt_tile(es_gpu_qt_t *g, const es_gpu_qt_block_t *a, const es_gpu_qt_block_t *b, double tau,
                   const es_gpu_qt_cand_t **cand, size_t *n);
/** es_gpu_qt_tile() in two halves, so that the host can score one tile's
 *  candidates while the device counts the next: start uploads the blocks
 *  and queues the tile's kernels; finish waits for them and gives the
 *  candidates (valid until the finish after the next: two buffers
 *  alternate).  One tile pending at a time.  @return as es_gpu_qt_tile();
 *  ES_ERR_ARG: start with a tile pending, finish with none. */
int es_gpu_qt_start(es_gpu_qt_t *g, const es_gpu_qt_block_t *a, const es_gpu_qt_block_t *b, double tau);
int es_gpu_qt_finish(es_gpu_qt_t *g, const es_gpu_qt_cand_t **cand, size_t *n);
/** Is block `index` on the device now (es_gpu_qt_tile() will not read it)? */
int es_gpu_qt_cached(const es_gpu_qt_t *g, uint32_t index);
/** Seconds in the tile kernels so far (event-timed). */
double es_gpu_qt_seconds(const es_gpu_qt_t *g);
/** Of those, the seconds in the counting kernel (the split kernels, tiles
 *  that ran in one band; 0 with EPISTREAM_GPU_QT_KERNEL=fused). */
double es_gpu_qt_count_seconds(const es_gpu_qt_t *g);
/** Seconds uploading blocks (codes, or planes made codes on the device). */
double es_gpu_qt_upload_seconds(const es_gpu_qt_t *g);


/* ---- the triple-scan engine (gpu/triple/engine.cu) ---------------------- */

/** A triple whose statistic may matter, with its exact 2x27 table
 *  (n[y][a*9+b*3+c], the layout of es_table3_t): i, j are the tile's pair
 *  (i < j), k the third variant (exhaustive tiles: j < k; seeded tiles: any
 *  variant but i and j, its table's axes in the order i, j, k). */
typedef struct {
    uint32_t i, j, k;
    uint32_t n[2][27];
} es_gpu_cand3_t;

/** What a device needs to know about a 3-way scan (fixed for the run). */
typedef struct {
    int stat;            /**< es_stat_t: chi2, mi, ig or k2 */
    uint32_t top_k;
    uint32_t n_variants; /**< dataset variants (per-variant thresholds) */
    uint32_t block;      /**< variants per block (third variants of a seeded tile) */
    uint32_t max_seeds;  /**< seed pairs per seeded tile at most (0: exhaustive scan) */
    uint32_t n_planes;   /**< 2 or 3 */
    uint32_t words;      /**< words per plane */
    uint32_t off_ctrl;   /**< first control word */
    uint32_t n_case, n_ctrl;
    size_t mem_limit;    /**< device bytes to use at most; 0: what is free */
    int kernel;          /**< ES_GPU_KERNEL_* (wgmma: the mma.sync kernel) */
    /** Per df (0..26): the smallest G that may be significant at this df
     *  or any larger one, rounded down to a float (INFINITY: none can be;
     *  every entry INFINITY: no significance test). */
    float sig_crit[27];
    /** K2 only: ln n! for n < n_lnfact (stats.h's es_lnfact()), n_lnfact >=
     *  n_case + n_ctrl + 2; copied by es_gpu3_open(), the caller frees it. */
    const double *lnfact;
    uint32_t n_lnfact;
} es_gpu3_config_t;

typedef struct es_gpu3 es_gpu3_t;

/** Open device dev for a 3-way scan of n_blocks blocks.  Close with
 *  es_gpu3_close().  @return ES_OK, ES_ERR_GPU, ES_ERR_NOMEM (the device
 *  memory cannot hold the tiles in flight and their blocks: the message
 *  says how much is needed), ES_ERR_UNSUPPORTED, ES_ERR_ARG. */
int es_gpu3_open(int dev, const es_gpu3_config_t *cfg, uint32_t n_blocks, es_gpu3_t **out);
void es_gpu3_close(es_gpu3_t *g);
/** The counting kernel in use ("mma", "popc"). */
const char *es_gpu3_kernel_name(const es_gpu3_t *g);
/** Seconds the device spent on tiles so far (event-timed). */
double es_gpu3_kernel_seconds(const es_gpu3_t *g);
/** Device blocks held at once (all of them, or a streaming cache). */
int es_gpu3_cache_slots(const es_gpu3_t *g);
/** Tiles a 3-way engine keeps in flight. */
#define ES_GPU3_FLIGHTS 2
/** Queue the exhaustive tile of blocks a <= b <= c (by index; triples i < j
 *  < k with i in a, j in b, k in c) with the host's exact k-th best as a
 *  score key (0: none).  At most ES_GPU3_FLIGHTS tiles are in flight. */
int es_gpu3_submit(es_gpu3_t *g, const es_gpu_block_t *a, const es_gpu_block_t *b, const es_gpu_block_t *c,
                   uint32_t tau_key);
/** Queue a seeded tile: the n seed pairs (idx[2p] < idx[2p+1], global
 *  indices; planes[2p + e] and gcount[2p + e] the packed planes and
 *  genotype counts of variant idx[2p + e], as in its block) against every
 *  variant of block c but the pair's own two.  The caller's arrays may be
 *  reused once the call returns. */
int es_gpu3_submit_seeds(es_gpu3_t *g, uint32_t n, const uint32_t *idx, const uint64_t *const *planes,
                         const uint32_t *const *gcount, const es_gpu_block_t *c, uint32_t tau_key);
/** Wait for the oldest tile in flight; *cand (valid until the next call on
 *  g) receives its candidates with their exact tables, tag[0..2] the
 *  tile's block indices (seeded: 0, 0, c).  @return ES_OK or ES_ERR_GPU. */
int es_gpu3_collect(es_gpu3_t *g, const es_gpu_cand3_t **cand, size_t *n, uint32_t tag[3]);
/** Tiles in flight. */
int es_gpu3_in_flight(const es_gpu3_t *g);


/* ---- feature-selection counting (gpu/select/mi.cu) ---------------------- */

/** A discrete table on a device (see es_dtable_t): histogram kernels count
 *  one feature against a round's conditioning variable. */
typedef struct es_gpu_mi es_gpu_mi_t;

/** How a candidate's sums are added, so that they are the very doubles of
 *  the CPU's counting (src/select/mi_count.c): the value of want[f] in
 *  es_gpu_mi_round(), 0 for a feature that is not counted. */
enum {
    ES_GPU_MI_ROWS = 1,  /**< dense table x * nz + z: cells in order, rows of ni for E(X, g) */
    ES_GPU_MI_TOUCH = 2, /**< dense table: E(X, g) by rows, E(X, g, i) over the cells in the
                              order samples first touch them */
    ES_GPU_MI_GROUPS = 3 /**< the grouped form: run by run, each run's sum by value when the run
                              is longer than the candidate's states, else in first-touch order */
};

/** The conditioning of a round, in two forms; a round uses the dense form
 *  for candidates marked ES_GPU_MI_ROWS or ES_GPU_MI_TOUCH and the grouped
 *  form for those marked ES_GPU_MI_GROUPS:
 *  - dense: z[s] = g * ni + inner per sample from the host (UINT32_MAX:
 *    sample s is left out; every cell it would fall in must hold it alone,
 *    so that its term n log2 n is 0 and the order of the others stays the
 *    CPU's), or (z == NULL) built on the device: g = feature `feature`
 *    (UINT32_MAX: constant), inner = the class when with_y, else none;
 *  - grouped: perm holds m samples sorted by g then inner (g groups of one
 *    sample dropped), grp n_grp + 1 offsets into perm (one g group each),
 *    sub n_sub [start, end) pairs of (g, inner) runs of >= 2 samples. */
typedef struct {
    uint32_t ng, ni;         /**< states of g (of the dense form's g); of the inner variable (1: none) */
    uint32_t feature;        /**< device-built dense form */
    int with_y;
    const uint32_t *z;       /**< dense form from the host */
    const uint32_t *perm, *grp, *sub; /**< grouped form */
    uint32_t m, n_grp, n_sub;
} es_gpu_mi_cond_t;

/** The caller's half of es_gpu_mi_open()'s upload: write the table's values
 *  [first, first + count) -- value e is feature e / n_samples, sample e %
 *  n_samples -- into buf, `bits` bits a value (1, 2, 4, 8 or 16), value
 *  `first` in the lowest bits of buf[0] (16: a uint16_t a value); first is
 *  a multiple of 8.  Called chunk after chunk from the opening thread, while
 *  the chunks before travel.  @return ES_OK, or an error: the open stops and
 *  returns it. */
typedef int (*es_gpu_mi_pack_fn)(void *arg, uint64_t first, uint64_t count, unsigned bits, uint8_t *buf);

/** Upload a table of n_features x n_samples states, feature-major, that
 *  pack(pack_arg, ...) writes `bits` bits a value (2^bits >= every
 *  n_states; 16 only where some feature has more than 256 states, else at
 *  most 8); n_states per feature; y: classes < n_classes.  nl: the host's n
 *  log2 n (or its fixed-point value) for every count 0 .. n_nl - 1, n_nl >
 *  n_samples, so that the device adds the very terms the host does.  The
 *  caller keeps and frees its arrays.  Close with es_gpu_mi_close().
 *  @return ES_OK, ES_ERR_GPU, ES_ERR_NOMEM, ES_ERR_ARG, or pack's error. */
int es_gpu_mi_open(int dev, uint32_t n_samples, uint32_t n_features, unsigned bits, es_gpu_mi_pack_fn pack,
                   void *pack_arg, const uint32_t *n_states, const uint16_t *y, uint32_t n_classes,
                   const double *nl, uint32_t n_nl, es_gpu_mi_t **out);
/** Close a table: the device keeps its buffers (up to 256 MiB of them) for
 *  the next selection, as it keeps the staging buffers. */
void es_gpu_mi_close(es_gpu_mi_t *g);
/** Open device dev ahead of es_gpu_mi_open() (the runtime, its context,
 *  these kernels and the upload's pinned staging buffers, which stay with
 *  the device for the life of the process), from any thread.
 *  @return ES_OK or ES_ERR_GPU. */
int es_gpu_mi_prepare(int dev);
/** One round: for every feature f with want[f] (an ES_GPU_MI_* order),
 *  e3[f] = E(Xf, g, inner) and e2[f] = E(Xf, g), E = sum over cells of
 *  n log2 n (exact 32-bit counts, terms from nl, added in want[f]'s order).
 *  @return ES_OK, ES_ERR_ARG (a form the round needs is missing), ES_ERR_GPU,
 *          ES_ERR_NOMEM. */
int es_gpu_mi_round(es_gpu_mi_t *g, const es_gpu_mi_cond_t *c, const uint8_t *want, double *e3,
                    double *e2);
/** Seconds in the round kernels so far (event-timed). */
double es_gpu_mi_seconds(const es_gpu_mi_t *g);

/** The pair engine for a feature-selection round (two classes, variants as
 *  planes): tables of variant `row` of the block against every variant of
 *  the block.  The engine stays open between rounds; the block is uploaded
 *  once.  out[k]: the table of (row, k), as es_gpu_count_tables() writes it. */
typedef struct es_gpu_rows es_gpu_rows_t;
int es_gpu_rows_open(int dev, int kernel, const es_gpu_config_t *cfg, const es_gpu_block_t *all,
                     es_gpu_rows_t **out);
int es_gpu_rows_count(es_gpu_rows_t *r, uint32_t row, es_gpu_cand_t *out);
const char *es_gpu_rows_kernel(const es_gpu_rows_t *r);
/** Seconds in the engine's kernels so far (event-timed). */
double es_gpu_rows_seconds(const es_gpu_rows_t *r);
void es_gpu_rows_close(es_gpu_rows_t *r);

#ifdef __cplusplus
}
#endif
#endif
