/* output.h -- the scan's result files: pair lines (.top.tsv, .sig.tsv, PLINK
 * .epi.cc) and the per-variant summary; see doc/CONTRACTS.md.  Internal. */
#ifndef ES_OUTPUT_H
#define ES_OUTPUT_H

#include <stdio.h>

#include "scan.h"

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
