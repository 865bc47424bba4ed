/* dist_internal.h -- what the files of src/dist share: the byte buffers that
 * state files and MPI messages are written into and read from (fixed-width
 * little-endian fields, never a struct's padding), the fingerprint, and the
 * MPI primitives (mpi.c, or mpi_stub.c without MPI).  Private to src/dist. */
#ifndef ES_DIST_INTERNAL_H
#define ES_DIST_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "dist.h"

/* ---- buffers (state.c) ---------------------------------------------------- */

typedef struct {
    uint8_t *p;
    size_t n, cap;
    int err; /* ES_ERR_NOMEM after a failed growth: later puts do nothing */
} es_wb_t;

void es_wb_free(es_wb_t *b);
void es_wb_bytes(es_wb_t *b, const void *src, size_t n);
void es_wb_u32(es_wb_t *b, uint32_t v);
void es_wb_u64(es_wb_t *b, uint64_t v);
void es_wb_f64(es_wb_t *b, double v);
void es_wb_str(es_wb_t *b, const char *s);
void es_wb_pair(es_wb_t *b, const es_pair_t *p);
void es_wb_triple(es_wb_t *b, const es_triple_t *t);

typedef struct {
    const uint8_t *p;
    size_t n, off;
    int bad; /* read past the end: the data is short or corrupt */
} es_rb_t;

void es_rb_bytes(es_rb_t *r, void *dst, size_t n);
uint32_t es_rb_u32(es_rb_t *r);
uint64_t es_rb_u64(es_rb_t *r);
double es_rb_f64(es_rb_t *r);
/* a string written by es_wb_str, pointing into the buffer (NULL if bad) */
const char *es_rb_str(es_rb_t *r);
void es_rb_pair(es_rb_t *r, es_pair_t *p);
void es_rb_triple(es_rb_t *r, es_triple_t *t);
/* a variant's summary over its pairs (triples) */
void es_wb_summary(es_wb_t *b, const es_summary_t *s);
void es_rb_summary(es_rb_t *r, es_summary_t *s);
void es_wb_sum3(es_wb_t *b, const es_sum3_t *s);
void es_rb_sum3(es_rb_t *r, es_sum3_t *s);

/* bytes of one record in a side file of significant pairs or triples */
#define ES_SIG_REC2 48
#define ES_SIG_REC3 44
#define ES_SIG_REC_MAX 48 /* the larger of the two */

/* FNV-1a, 64 bits, continued from h */
uint64_t es_fnv(uint64_t h, const void *data, size_t n);
#define ES_FNV_INIT 0xcbf29ce484222325ull

/* ---- tile results (state.c): one finished tile, as an MPI rank sends it ---- */

/** Write worker w's finished tile (summary slots touched, block counts,
 *  significant pairs, its heap) into b, and clear the worker's tile. */
void es_tile_result_put2(es_wb_t *b, const es_scan_ctx_t *ctx, es_worker_t *w);
/** Read one into w (a sparse worker of ctx) as if w had scored it.
 *  @return ES_OK or ES_ERR_FORMAT (a malformed message). */
int es_tile_result_get2(es_rb_t *r, const es_scan_ctx_t *ctx, es_worker_t *w);
void es_tile_result_put3(es_wb_t *b, const es_scan3_ctx_t *ctx, es_worker3_t *w);
int es_tile_result_get3(es_rb_t *r, const es_scan3_ctx_t *ctx, es_worker3_t *w);

/* ---- MPI primitives (mpi.c / mpi_stub.c) ---------------------------------- */

/** Broadcast n words from rank 0. */
int es_mpi_bcast_u64(uint64_t *v, int n);
/** Gather n words from every rank at rank 0 (out: size * n words, rank 0 only). */
int es_mpi_gather_u64(const uint64_t *v, int n, uint64_t *out);

/** Rank 0's side of the tile queue: answer requests and take results until
 *  every other rank has said it is done.  claim(ud, tile) gives the next
 *  tile (0) or none (-1); result(ud, rank, buf, n) merges a finished tile;
 *  failed(ud, rank, msg) records a rank's error (its message).  Polls without
 *  spinning a core.  @return ES_OK, or an error of its own (logged). */
typedef struct {
    void *ud;
    int (*claim)(void *ud, uint32_t tile[3]);
    int (*result)(void *ud, int rank, const uint8_t *buf, size_t n);
    void (*failed)(void *ud, int rank, const char *msg);
    uint64_t given; /* out: tiles handed to the other ranks */
} es_mpi_server_t;
int es_mpi_serve(es_mpi_server_t *srv);

/** Another rank's side (any thread; calls are serialised inside): ask for a
 *  tile (0 with it, -1: none left), send a finished tile's result, say that
 *  this rank is done (err: ES_OK or its error, with msg). */
int es_mpi_request(uint32_t tile[3]);
int es_mpi_send_result(const uint8_t *buf, size_t n);
int es_mpi_send_done(int err, const char *msg);

#endif /* ES_DIST_INTERNAL_H */
