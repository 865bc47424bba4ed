/* output.h -- result files of the CLI: written to PATH.tmp and renamed into place
 * only when the whole run succeeded, so a failed run leaves nothing half-written. */
#ifndef ES_OUTPUT_H
#define ES_OUTPUT_H

#include <stdio.h>

#include "epistream.h"

/** An output file being written. */
typedef struct {
    char *path;     /* final name */
    char *tmp_path; /* name while being written */
    FILE *fp;
    int committed; /* renamed into place */
} es_out_t;

/** Open PATH.tmp for writing.  @return ES_OK or ES_ERR_IO (logged, naming the file). */
int es_out_open(es_out_t *o, const char *prefix, const char *suffix);
/** Flush, close and rename into place.  @return ES_OK or ES_ERR_IO. */
int es_out_commit(es_out_t *o);
/** Undo: delete the temporary file, or the committed file, and release o
 *  (safe on a zeroed es_out_t). */
void es_out_abort(es_out_t *o);
/** Release o, keeping whatever was committed. */
void es_out_close(es_out_t *o);

/** Pair table header / line (.top.tsv, .sig.tsv); see doc/CONTRACTS.md. */
void es_write_pair_header(FILE *fp);
void es_write_pair(FILE *fp, const es_dataset_t *ds, const es_pair_t *p);
/** Width PLINK pads variant IDs to (the longest ID, at least 4). */
int es_plink_snp_width(const es_dataset_t *ds);
/** PLINK .epi.cc header / line, IDs padded to width w. */
void es_write_plink_header(FILE *fp, int w);
void es_write_plink_pair(FILE *fp, const es_dataset_t *ds, const es_pair_t *p, int w);
/** Per-variant summary (.summary.tsv). */
int es_write_summary(FILE *fp, const es_dataset_t *ds, const es_summary_t *s);

#endif
