/* dist.h -- scans beyond one uninterrupted process: checkpoints and resume,
 * shards and their merge, MPI ranks.  Internal (not installed); depends on
 * src/backend and below; the scan driver (src/scan) calls it.
 *
 * All three rest on one fact of the tile layer: a scan's state after any set
 * of finished tiles is the merge of those tiles' results (per-variant
 * summaries, counts, the top-k, the significant pairs of each row panel), and
 * the merge does not depend on the order.  So the state can be written down
 * (a checkpoint; a shard's result), read back and merged with others (a
 * resume; `epistream merge`), or built from tiles computed elsewhere (MPI
 * ranks send rank 0 each finished tile), and the outputs are the bytes of one
 * uninterrupted run.
 *
 * The state file (doc/CONTRACTS.md, "state files"): a header (magic, version,
 * fingerprints of the data and of the options, the tile geometry, the shard,
 * the command line of the scan), the finished tiles, the summaries, the top-k,
 * the row panels not yet written, a checksum.  The significant pairs already
 * written go to a side file (FILE.sig: fixed-size records in the order they
 * were written), flushed to disk before the state that counts them. */
#ifndef ES_DIST_H
#define ES_DIST_H

#include "backend.h"

typedef struct es_dist es_dist_t;

/* ---- the scan driver's calls (2-way: es_scan_ctx_t; 3-way: es_scan3_ctx_t) -- */

/** Before packing: the tile geometry a run beyond one process must share --
 *  a resumed checkpoint's, rank 0's under MPI (broadcast).  *block and
 *  *seed_chunk hold the run's own choice on entry.  @return ES_OK or an error
 *  (logged). */
int es_dist_geometry(const es_scan_t *s, uint32_t *block, uint32_t *seed_chunk);

/** After packing (ret: how it went; under MPI every rank comes here, and
 *  all fail if one did): set up what the options ask for (a resumed or
 *  merged state loaded into ctx, its significant pairs written again through
 *  the scan's callback; the tiles to skip; the checkpoint hook; the MPI
 *  roles).  *out is NULL when nothing beyond one plain run was asked; free it
 *  with es_dist_end().  @return ES_OK or an error (logged, naming the file
 *  and what is wrong). */
int es_dist_start2(es_dist_t **out, es_scan_ctx_t *ctx, uint32_t n_planes, int ret);
int es_dist_start3(es_dist_t **out, es_scan3_ctx_t *ctx, uint32_t n_planes, int ret);

/** Run the backend over this process's tiles (as rank 0 with the other
 *  ranks' tiles merged in, or as another rank sending its tiles to rank 0).
 *  @return ES_OK or the first error of any rank. */
int es_dist_run2(es_dist_t *d, es_scan_ctx_t *ctx);
int es_dist_run3(es_dist_t *d, es_scan3_ctx_t *ctx);

/** 1 if this process writes no results (an MPI rank other than 0). */
int es_dist_is_worker(void);

/** End: a shard's final state written (atomically), the callback restored.
 *  ret: the run's status so far.  @return ret, or the error of the final
 *  write. */
int es_dist_end(es_dist_t *d, int ret);

/* ---- files ------------------------------------------------------------------ */

/** Remove a checkpoint and its side file once the outputs it led to are in
 *  place (a missing file is not an error). */
void es_dist_remove_checkpoint(const char *path);

/** The command line (argc words) stored in a state file's header, for
 *  `epistream merge`: *argv is one allocation (free it).  @return ES_OK or an
 *  error naming the file. */
int es_dist_state_argv(const char *path, int *argc, char ***argv);

/** The seed pairs a state file was written with (2 per pair; *pairs is
 *  one allocation).  @return ES_OK or an error naming the file. */
int es_dist_state_seeds(const char *path, uint32_t **pairs, size_t *n_pairs);

/** Under MPI: rank 0's seed pairs to every rank (*pairs replaced on the
 *  others).  Without MPI nothing.  @return ES_OK or an error. */
int es_dist_bcast_seeds(uint32_t **pairs, size_t *n_pairs);

/* ---- MPI (mpi.c; mpi_stub.c without MPI) --------------------------------------- */

/** Start MPI when this process was launched by mpirun (Open MPI's or a PMI
 *  environment); else nothing.  @return ES_OK, or ES_ERR_UNSUPPORTED when
 *  launched by mpirun but built without MPI (logged). */
int es_dist_mpi_init(int *argc, char ***argv);
/** Ranks in the job (1 without MPI) and this one's (0 without MPI). */
int es_dist_mpi_size(void);
int es_dist_mpi_rank(void);
/** 1 if MPI support is built in. */
int es_dist_mpi_built(void);
/** End MPI (when started); failed: this rank ends with an error. */
void es_dist_mpi_finalize(int failed);
/** Every rank's status agreed: ES_OK where all are, else the first error (an
 *  allreduce; without MPI, ret). */
int es_dist_mpi_agree(int ret);

#endif /* ES_DIST_H */
