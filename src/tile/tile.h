/* tile.h -- the scan space cut into tiles of blocks, the queue that hands them
 * out, the per-worker scoring and the top-k.  Shared by the backends
 * (src/backend), which pull tiles, score pairs through es_worker_offer() and
 * report each finished tile with es_ctx_tile_done(), and the scan driver
 * (src/scan), which owns packing, ordering, merging and output.  Internal
 * (not installed); depends on src/stats and below. */
#ifndef ES_TILE_H
#define ES_TILE_H

#include <pthread.h>
#include <stdatomic.h>

#include "stats.h"

/* ---- top-k (src/topk.c) --------------------------------------------------- */

/** Total order on pairs: better statistic first, ties to the lower (i, j).
 *  @return < 0 if a ranks before b, > 0 after, 0 if identical. */
int es_pair_rank_cmp(const es_pair_t *a, const es_pair_t *b, int higher_is_better);

/** A bounded heap keeping the k best pairs under es_pair_rank_cmp. */
typedef struct {
    es_pair_t *heap; /* worst at heap[0] */
    size_t n, k;
    int higher_is_better;
    /* a k-th best known from elsewhere (the scan's merged list): a statistic
     * ranking below it cannot enter the final list (es_topk_set_floor) */
    int has_floor;
    double floor;
} es_topk_t;

int es_topk_init(es_topk_t *t, size_t k, int higher_is_better);
void es_topk_free(es_topk_t *t);
/** @return 1 if a pair with statistic `stat` could enter (cheap pre-check). */
int es_topk_would_accept(const es_topk_t *t, double stat);
/** Offer a pair; kept if among the k best so far. */
void es_topk_push(es_topk_t *t, const es_pair_t *p);
/** Empty the heap (its floor stays). */
void es_topk_clear(es_topk_t *t);
/** Take the k-th best of a fuller list (full: its worst) as a floor: a
 *  statistic that ranks below it is never accepted.  Does nothing when
 *  full is not full. */
void es_topk_set_floor(es_topk_t *t, const es_topk_t *full);
/** The statistic below which nothing can enter (the heap's worst when it is
 *  full, or the floor, whichever is better).  @return 1, or 0 if none. */
int es_topk_kth(const es_topk_t *t, double *out);
/** Merge src into dst (src unchanged). */
void es_topk_merge(es_topk_t *dst, const es_topk_t *src);
/** Sort the kept pairs best first, in place (heap property is lost). */
void es_topk_sort(es_topk_t *t);

/* ---- triples: top-k (src/topk.c) --------------------------------------------- */

/** Total order on triples: better statistic first, ties to the lower (i, j, k). */
int es_triple_rank_cmp(const es_triple_t *a, const es_triple_t *b, int higher_is_better);

/** A bounded heap of the k best triples (as es_topk_t). */
typedef struct {
    es_triple_t *heap; /* worst at heap[0] */
    size_t n, k;
    int higher_is_better;
    int has_floor; /* as es_topk_t's */
    double floor;
} es_topk3_t;

int es_topk3_init(es_topk3_t *t, size_t k, int higher_is_better);
void es_topk3_free(es_topk3_t *t);
int es_topk3_would_accept(const es_topk3_t *t, double stat);
void es_topk3_push(es_topk3_t *t, const es_triple_t *p);
void es_topk3_merge(es_topk3_t *dst, const es_topk3_t *src);
void es_topk3_clear(es_topk3_t *t);
void es_topk3_set_floor(es_topk3_t *t, const es_topk3_t *full);
int es_topk3_kth(const es_topk3_t *t, double *out);
void es_topk3_sort(es_topk3_t *t);

/** A variant's best triple so far and its counts (a worker's or the scan's;
 *  best_i == UINT32_MAX: none yet).  The p-value is computed once, at the end,
 *  from stat, df and n. */
typedef struct {
    uint32_t best_i, best_j, best_k, n;
    int df;
    double stat;
    uint64_t n_sig, n_tot;
} es_sum3_t;

struct es_backend;

struct es_scan_t {
    es_dataset_t *ds;
    es_opt_t opt;
    const struct es_backend *backend; /* set by the driver (src/scan) */
    es_sig_cb sig_cb;
    void *sig_ud;
    es_progress_cb prog_cb;
    void *prog_ud;
    es_topk_t top;         /* final ranked list (sorted after the run) */
    es_summary_t *summary; /* n_variants entries */
    uint64_t pairs_done;
    double t_pack, t_scan;
    /* the packed blocks of the last run, freed by a thread of their own while
     * the results are written (src/scan; joined by the next run or destroy) */
    pthread_t unpack;
    int unpack_on;
    char device_info[512]; /* set by a GPU backend */
    /* order 3 */
    es_sig3_cb sig3_cb;
    void *sig3_ud;
    uint32_t *seeds;        /* 2 per seed pair, i < j, sorted, unique; NULL: exhaustive */
    size_t n_seeds;
    es_topk3_t top3;
    es_summary3_t *summary3;
    es_qt_y_t qt_y; /* a quantitative trait's fixed-point phenotype (set by the run) */
};

/* Finished-but-not-yet-emitted significant pairs of one row panel of tiles. */
typedef struct {
    es_pair_t *pairs;
    size_t n, cap;
    uint32_t tiles_done;
    uint32_t need; /* tiles of the row this run covers (the row is complete at need) */
} es_row_pending_t;

typedef struct es_worker es_worker_t;

/** The order in which es_ctx_claim_tile hands out a pair scan's tiles
 *  (bi <= bj): by rows; the n_blocks diagonal tiles first, then the rest by
 *  rows, each row the other way from the one before (bj rising in row 0,
 *  falling in row 1, ...); or by growing squares, (k, k) then (0, k) .. (k - 1, k) for
 *  k = 0, 1, ...  Both of the last two hand out every tile after both of its
 *  blocks' diagonal tiles (the GPU's per-variant thresholds rely on it). */
typedef enum { ES_TILES_ROWS = 0, ES_TILES_DIAG_FIRST, ES_TILES_SQUARES } es_tile_order_t;

/** Everything a backend needs to run its share of the scan. */
typedef struct es_scan_ctx {
    es_scan_t *scan;
    const es_dataset_t *ds;
    es_stat_t stat;
    const es_qt_y_t *qt; /* a quantitative trait's fixed-point phenotype (linear, linear4), or NULL */
    int higher_is_better;
    int do_sig;         /* p_threshold given */
    double p_threshold;
#define ES_MAX_DF 8
    double sig_crit[ES_MAX_DF + 1]; /* per df: G below this is never significant */
    double sig_min;                 /* min over df of sig_crit */
    uint32_t m;         /* variants */
    uint32_t block;     /* variants per block (tile side) */
    uint32_t n_blocks;
    es_planes_t *blocks; /* n_blocks packed blocks */
    /* set while the blocks are still being packed (a backend with
     * pack_overlap, src/scan): before it reads block b's planes, counts or
     * first variant, the backend calls wait_block, which returns when the
     * block is packed: ES_OK, or the packing's error.  NULL: all are. */
    int (*wait_block)(struct es_scan_ctx *ctx, uint32_t b);
    void *wait_ud;
    uint64_t n_tiles;    /* tiles (bi <= bj), row-major */
    uint64_t *row_start; /* first tile index of row bi (n_blocks + 1 entries) */
    _Atomic uint64_t next_tile;
    es_tile_order_t order; /* how es_ctx_claim_tile hands the tiles out (set before any claim) */
    /* set by the first tile claimed here: the backend has set `order` for
     * good (an MPI run's rank 0 hands out the other ranks' tiles only from
     * then on, or once its own backend has returned: src/dist) */
    atomic_int claims_begun;
    atomic_int stop;     /* set on error or abort: workers stop taking tiles */
    int n_threads;
    /* below: guarded by lock */
    pthread_mutex_t lock;
    es_row_pending_t *rows;
    uint32_t next_row; /* next row panel to emit */
    uint64_t pairs_done;
    double t_start, t_last_progress;
    int err;           /* first error */
    es_topk_t *top;    /* merged top-k */
    es_summary_t *summary;
    /* pairs counted per block by sparse tile owners (every variant of block b
     * has blk_ntot[b] more in its N_TOT; folded in when the run ends) */
    uint64_t *blk_ntot;
    /* ---- runs beyond one process (src/dist sets these; NULL: none) ---- */
    const uint8_t *tile_skip; /* per tile (es_ctx_tile_index): 1 = not this run's */
    uint8_t *tile_mark;       /* per tile: set when its result is merged (lock held) */
    /* called with the lock held after each merged tile (a checkpoint) */
    int (*on_tile)(void *ud);
    void *on_tile_ud;
    /* another process hands out the tiles and takes their results: claim
     * asks it (0, or -1: none left), sink sends a finished tile (and clears
     * the worker's tile) instead of merging it here */
    int (*claim_remote)(void *ud, uint32_t *bi, uint32_t *bj);
    int (*tile_sink)(void *ud, struct es_scan_ctx *ctx, es_worker_t *w);
    void *claim_ud;
} es_scan_ctx_t;

/** Per-worker scratch (one per thread or device stream).  Aligned to 128
 *  bytes: workers in one array are written by different threads, and must not
 *  share cache lines. */
struct es_worker {
    _Alignas(128) es_topk_t top; /* the current tile's best (floored by the scan's list) */
    es_pair_t *sig;         /* significant pairs of the current tile */
    size_t sig_n, sig_cap;
    es_summary_t *tsum;     /* summary of the current tile's variants (2 * block) */
    double *known;          /* BOOST, linear: the tile's variants' best in the merged summary when
                             * the tile began (2 * block), a floor for pruning */
    int known_ok;           /* known holds the current tile's (es_ctx_next_tile) */
    /* sparse workers (es_worker_set_sparse): the tsum slots scored since the
     * last merge, so that merging and clearing cost what was touched */
    uint8_t *tmark;
    uint32_t *touched, n_touched;
    uint32_t bi, bj;        /* current tile */
    uint64_t tile_pairs;
    uint32_t cnt_i, cnt_j;  /* sparse owner: pairs of each variant of bi, bj in the tile */
    int err;
};

/** The index of tile (bi <= bj) in row-major order (tile_skip, tile_mark). */
static inline uint64_t es_ctx_tile_index(const es_scan_ctx_t *ctx, uint32_t bi, uint32_t bj)
{
    return ctx->row_start[bi] + (bj - bi);
}

int es_worker_init(es_worker_t *w, const es_scan_ctx_t *ctx);

/** Make w sparse: es_worker_begin_tile() no longer clears its whole summary;
 *  es_worker_merge() and es_ctx_tile_done() fold and clear only the slots it
 *  scored, and es_worker_count_tile() counts the tile's pairs per block
 *  (folded into N_TOT when the run ends), so that a tile whose few pairs are
 *  scored costs what they touch, not the size of its blocks.  For helpers
 *  that score part of another worker's tile, and for tile owners that score
 *  only a device's candidates. */
int es_worker_set_sparse(es_worker_t *w, const es_scan_ctx_t *ctx);
void es_worker_free(es_worker_t *w);

/** Take the next tile: 0 with its blocks, -1 when none is left (or the scan stops). */
int es_ctx_next_tile(es_scan_ctx_t *ctx, es_worker_t *w, uint32_t *bi, uint32_t *bj);

/** Take the next tile without starting it in a worker (a device claims its
 *  next tile while the host still scores the previous one): 0, or -1. */
int es_ctx_claim_tile(es_scan_ctx_t *ctx, uint32_t *bi, uint32_t *bj);

/** Start tile (bi, bj) in w: clears the tile's summary and pair lists. */
void es_worker_begin_tile(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t bi, uint32_t bj);

/** Score one pair (global indices i < j) from its table. */
void es_worker_offer(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t i, uint32_t j,
                     const es_table2_t *t);

/** Score pairs (i, j0 + k), k < nb, from a cell-by-cell run of tables
 *  (es_count_run()), as es_worker_offer() scores each; mib: their
 *  es_stat_boost_bound_mi() (es_stat_boost_bound_mi_run()) for BOOST, or
 *  NULL.  A pair the bound screens out is never converted to a table. */
void es_worker_offer_run(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t i, uint32_t j0, uint32_t nb,
                         const es_table2_soa_t *s, const double *mib);

/** Keep one pair (global indices i < j) scored elsewhere (a quantitative
 *  trait's tests): its full result, the samples in its table and the
 *  interaction coefficient (NaN: none).  A failed fit (df 0) counts among
 *  the tile's pairs but not in the variants' N_TOT, as PLINK counts.  A p
 *  that is NaN (linear: es_stat_linear_p()) is computed only for the pairs
 *  that may be significant or enter the top-k or a summary. */
void es_worker_offer_result(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t i, uint32_t j,
                            const es_stat_result_t *r, uint32_t n, double beta);
/** es_worker_offer_result() of a pair that a device screen passed on: not
 *  counted among the tile's pairs (es_worker_count_tile() counts them all);
 *  a failed fit still leaves the variants' N_TOT. */
void es_worker_offer_result_screened(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t i, uint32_t j,
                                     const es_stat_result_t *r, uint32_t n, double beta);
/** A statistic below which pair (i, j) of the current tile can change
 *  nothing but the counts: not the top-k (its k-th best, or the scan's), not
 *  either variant's best (in the tile and, for BOOST and linear, in the
 *  scan's summary when the tile came from es_ctx_next_tile()), and not the
 *  significant list (the smallest critical value); -inf while the top-k is
 *  not full.  Higher-is-better statistics. */
double es_worker_prune_below(const es_scan_ctx_t *ctx, const es_worker_t *w, uint32_t i, uint32_t j);
/** es_worker_prune_below() of pairs (i, j0 + k), k < nb, into lim[k] at
 *  once (as the worker stands: offers made after it can only raise them). */
void es_worker_prune_run(const es_scan_ctx_t *ctx, const es_worker_t *w, uint32_t i, uint32_t j0, uint32_t nb,
                         double *lim);
/** es_worker_offer_pruned() of the pairs (i, j0 + k) with pruned[k] set. */
void es_worker_count_pruned(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t i, uint32_t j0, uint32_t nb,
                            const uint8_t *pruned);
/** Count pair (i, j) of the current tile, a test that did not fail (N_TOT),
 *  whose statistic is below es_worker_prune_below(): nothing else to keep. */
void es_worker_offer_pruned(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t i, uint32_t j);
/** Score a pair that a device screen passed on: as es_worker_offer(), except
 *  that the pair is not counted; es_worker_count_tile() counts every pair of
 *  the tile (those screened out could matter to nothing but the counts). */
void es_worker_offer_screened(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t i, uint32_t j,
                              const es_table2_t *t);
/** es_worker_offer_screened() of a BOOST pair whose fit the device made
 *  (mu: es_stat_boost_fitted's 18 values, boost.c's fit bit for bit): the
 *  same outputs, without the host's bounds and fit. */
void es_worker_offer_fitted(const es_scan_ctx_t *ctx, es_worker_t *w, uint32_t i, uint32_t j,
                            const es_table2_t *t, const double mu[18]);

/** Fold src's part of a tile (same tile as dst) into dst and clear it:
 *  summary, significant pairs, counts and its top-k heap (src keeps dst's
 *  floor).  Lets several threads score one tile's candidates. */
void es_worker_merge(const es_scan_ctx_t *ctx, es_worker_t *dst, es_worker_t *src);

/** Count all pairs of the worker's tile in its summary (a sparse worker: per
 *  block, for es_ctx_tile_done()) and pair total. */
void es_worker_count_tile(const es_scan_ctx_t *ctx, es_worker_t *w);

/** Hand a finished tile to the driver (summary merge, significant pairs, progress).
 *  @return ES_OK, or an error that stops the scan. */
int es_ctx_tile_done(es_scan_ctx_t *ctx, es_worker_t *w);


/** Add the pairs that sparse tile owners counted per block (blk_ntot) to
 *  the N_TOT of every variant of those blocks; once, when the run ends. */
void es_ctx_fold_block_counts(es_scan_ctx_t *ctx);

/** Fold src into dst: counts added, the better best kept (ties to the lower
 *  partner), as the workers' merges do. */
void es_summary_merge(es_summary_t *dst, const es_summary_t *src, int higher_is_better);
/** The same for triple summaries (ties to the lower triple). */
void es_sum3_merge(es_sum3_t *dst, const es_sum3_t *src, int higher_is_better);

/** Set n summaries to "no partner yet": NaN statistic, zero counts. */
void es_summary_reset(es_summary_t *s, size_t n);

/** Record an error from a backend; stops the scan. */
void es_ctx_fail(es_scan_ctx_t *ctx, int err);

/* ---- triples: the tile queue and the workers (src/tile3.c) -------------------
 * Exhaustive: tiles are block triples bi <= bj <= bk in lexicographic order;
 * a row is every tile of one bi, and the significant triples of a row are
 * emitted, sorted by (i, j, k), once the row is complete.  Seeded: a tile is
 * a chunk of seed pairs against one block of third variants, and the
 * significant triples are sorted and emitted when the run ends. */

typedef struct {
    es_triple_t *t;
    size_t n, cap;
    uint64_t tiles_done;
    uint64_t need; /* tiles of the row this run covers (complete at need) */
} es_row3_t;

typedef struct es_worker3 es_worker3_t;

typedef struct es_scan3_ctx {
    es_scan_t *scan;
    const es_dataset_t *ds;
    es_stat_t stat;
    int higher_is_better;
    int do_sig;
    double p_threshold;
#define ES_MAX_DF3 26
    double sig_crit[ES_MAX_DF3 + 1]; /* per df: G below this is never significant */
    uint32_t m, block, n_blocks;
    es_planes_t *blocks;
    /* exhaustive */
    uint64_t n_tiles;
    uint64_t *row_start;     /* n_rows + 1 */
    uint32_t n_rows;
    /* seeded: seeds[2p], seeds[2p+1]; excl[excl_off[p] .. excl_off[p+1]) the
     * third variants whose triple an earlier seed already scores (sorted) */
    const uint32_t *seeds;
    uint32_t n_seeds, seed_chunk;
    uint32_t *excl, *excl_off;
    _Atomic uint64_t next_tile;
    atomic_int stop;
    int n_threads;
    pthread_mutex_t lock;
    es_row3_t *rows;
    uint32_t next_row;
    uint64_t done;           /* triples scored */
    uint64_t total;          /* triples to score */
    double t_start, t_last_progress;
    int err;
    es_topk3_t *top;
    es_sum3_t *sum;          /* m entries */
    /* ---- runs beyond one process: as es_scan_ctx_t's (src/dist) ---- */
    const uint8_t *tile_skip;
    uint8_t *tile_mark;
    int (*on_tile)(void *ud);
    void *on_tile_ud;
    int (*claim_remote)(void *ud, uint32_t *a, uint32_t *b, uint32_t *c);
    int (*tile_sink)(void *ud, struct es_scan3_ctx *ctx, es_worker3_t *w);
    void *claim_ud;
} es_scan3_ctx_t;

/** Per-worker scratch for triples (one per thread). */
struct es_worker3 {
    _Alignas(128) es_topk3_t top; /* the current tile's best (floored by the scan's list) */
    es_triple_t *sig;
    size_t sig_n, sig_cap;
    es_sum3_t *tsum;         /* the current tile's variants, by slot */
    uint32_t *slot_var;      /* variant of each slot */
    uint32_t n_slots, cap_slots;
    uint64_t tile_triples;
    uint32_t row;            /* the tile's row (exhaustive) */
    uint64_t tile;           /* its index (es_ctx3_tile_index) */
    int err;
};

int es_worker3_init(es_worker3_t *w, const es_scan3_ctx_t *ctx);
void es_worker3_free(es_worker3_t *w);
/** Start tile (a, b, c) of es_ctx3_next_tile() in w, with n summary slots,
 *  slot s for variant var[s]. */
void es_worker3_begin(const es_scan3_ctx_t *ctx, es_worker3_t *w, uint32_t a, uint32_t b, uint32_t c,
                      const uint32_t *var, uint32_t n);
/** The index of tile (a, b, c) in the queue's order (tile_skip, tile_mark). */
uint64_t es_ctx3_tile_index(const es_scan3_ctx_t *ctx, uint32_t a, uint32_t b, uint32_t c);
/** Take the next tile: exhaustive (bi, bj, bk), seeded (chunk, bk, -): 0, or -1. */
int es_ctx3_next_tile(es_scan3_ctx_t *ctx, uint32_t *a, uint32_t *b, uint32_t *c);
/** Score one triple (global indices i < j < k; si, sj, sk their slots). */
void es_worker3_offer(const es_scan3_ctx_t *ctx, es_worker3_t *w, uint32_t i, uint32_t j, uint32_t k,
                      uint32_t si, uint32_t sj, uint32_t sk, const es_table3_t *t);
/** Score a triple that a device's screen passed on: as es_worker3_offer(),
 *  except that the triple is not counted; es_worker3_count_tile() (or
 *  es_worker3_count_seed_tile()) counts every triple of the tile, those
 *  screened out included (they could change nothing but the counts).  The
 *  CPU path never calls these. */
void es_worker3_offer_screened(const es_scan3_ctx_t *ctx, es_worker3_t *w, uint32_t i, uint32_t j, uint32_t k,
                               uint32_t si, uint32_t sj, uint32_t sk, const es_table3_t *t);
/** Count every triple of exhaustive tile (bi, bj, bk) in the slots' N_TOT
 *  and the tile's triples, with the CPU backend's slot layout (block bi at
 *  slot 0, bj at block if it differs, bk at 2 * block if it differs from bj). */
void es_worker3_count_tile(const es_scan3_ctx_t *ctx, es_worker3_t *w, uint32_t bi, uint32_t bj, uint32_t bk);
/** The same for seeded tile (chunk, bk): block bk at slots 0 .., seed p of
 *  the chunk at block + 2 (p - first seed) and the slot after; excluded
 *  third variants and the seeds' own two are not triples of the seed. */
void es_worker3_count_seed_tile(const es_scan3_ctx_t *ctx, es_worker3_t *w, uint32_t chunk, uint32_t bk);
/** es_worker3_offer() of a triple whose statistic is known (es_stat3_value()'s
 *  stat and df, n the samples in its table). */
void es_worker3_offer_stat(const es_scan3_ctx_t *ctx, es_worker3_t *w, uint32_t i, uint32_t j, uint32_t k,
                           uint32_t si, uint32_t sj, uint32_t sk, double stat, int df, uint32_t n);
/** es_worker3_offer_stat() of the run of triples (i, j, k0+q), q < nk, slots
 *  (si, sj, sk0+q): the same result, the pair's two summaries updated once.
 *  The statistics are numbers (never NaN). */
void es_worker3_offer_run(const es_scan3_ctx_t *ctx, es_worker3_t *w, uint32_t i, uint32_t j, uint32_t k0,
                          uint32_t si, uint32_t sj, uint32_t sk0, uint32_t nk, const double *stat, const int *df,
                          const uint32_t *n);
/** Hand a finished tile to the driver.  @return ES_OK or an error that stops the scan. */
int es_ctx3_tile_done(es_scan3_ctx_t *ctx, es_worker3_t *w);
void es_ctx3_fail(es_scan3_ctx_t *ctx, int err);
/** After the run: the seeded mode's significant triples, sorted, to the callback. */
int es_ctx3_finish(es_scan3_ctx_t *ctx);

#endif /* ES_TILE_H */
