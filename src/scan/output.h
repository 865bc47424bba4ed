/* output.h -- the scan's result files: pair lines (.top.tsv, .sig.tsv, PLINK
 * .epi.cc), the per-variant summary (.summary.tsv, PLINK .epi.cc.summary);
 * see doc/CONTRACTS.md.  Internal. */
#ifndef ES_OUTPUT_H
#define ES_OUTPUT_H

#include <stdio.h>

#include "scan.h"

/** Width PLINK 1.9 pads variant IDs to (its calc_plink_maxsnp(): at least 4,
 *  often the longest ID + 2); taken before --plink-compat skips variants. */
int es_plink_snp_width(const es_dataset_t *ds);

/** Writes pair lines into a buffer over fp: TSV (.top.tsv, .sig.tsv; the
 *  bytes of "%s\t%s\t%lld\t%s\t%s\t%lld\t%.12g\t%.10g\t%.10g\t%u\t%d\n") or
 *  PLINK .epi.cc ("%4s %*s %4s %*s %12.6g %4d %12.4g \n", IDs padded to the
 *  longest).  A failed test (df 0 for a statistic with a p-value: a variant
 *  left with one genotype level in the pair's table) is written as PLINK
 *  writes it, "nan 0 NA", or in TSV as STAT, P, LOG10P NA and DF 0, and
 *  counted in n_failed.  One thread at a time; call es_pair_writer_finish()
 *  before anything else writes to fp, and es_pair_writer_free() after. */
typedef struct {
    es_wbuf_t wb;
    const es_dataset_t *ds;
    int plink;         /* .epi.cc lines, else TSV */
    int w;             /* PLINK: ID width */
    uint32_t last_i;   /* the variant whose columns are in pre */
    char *pre;         /* the first variant's columns of the line */
    size_t pre_n, pre_cap;
    uint64_t n_failed; /* failed tests written */
    const char *chr_raw, *chr_code; /* PLINK: the last chromosome and its code */
    int order;         /* 2: pair lines, 3: triple lines (TSV only; set before the header) */
    int tables;        /* --tables: each line's cell counts (es_pair_writer_tables()) */
    int beta;          /* a BETA_INT column (es_pair_writer_beta()): 1 linear, 2 logistic */
    int adjusted;      /* BETA_INT SE_INT P_INT of the exact model with covariates */
    uint8_t *rc_g[3];  /* --tables: decoded calls of the line's variants */
    uint32_t rc_var[3];
} es_pair_writer_t;

/** plink_w: PLINK lines with IDs padded to plink_w (es_plink_snp_width()),
 *  0: TSV.  @return ES_OK or ES_ERR_NOMEM. */
int es_pair_writer_init(es_pair_writer_t *pw, FILE *fp, const es_dataset_t *ds, int plink_w);
/** The header line.  @return ES_OK or ES_ERR_IO. */
int es_pair_writer_header(es_pair_writer_t *pw);
/** Add the cell counts of each line's table (TSV only; before the header):
 *  CTRL_00 .. CTRL_22, CASE_00 .. CASE_22 (order 3: CTRL_000 .. CASE_222, the
 *  third variant's genotype fastest), recounted from the dataset's calls.
 *  @return ES_OK or ES_ERR_NOMEM. */
int es_pair_writer_tables(es_pair_writer_t *pw);
/** Add the interaction coefficient (--stat linear or logistic; before the
 *  header): TSV column BETA_INT after DF (logistic: the log odds ratio);
 *  PLINK lines become PLINK 1.9 --epistasis's ("%4s %*s %4s %*s %12.6g %12.6g
 *  %12.4g \n": BETA_INT STAT P in .epi.qt, OR_INT STAT P in .epi.cc). */
void es_pair_writer_beta(es_pair_writer_t *pw, es_stat_t stat);
/** Add the exact model's columns (--covar; TSV only; before the header):
 *  BETA_INT SE_INT P_INT after DF, written by es_pair_writer_put_adjusted(). */
void es_pair_writer_adjusted(es_pair_writer_t *pw);
/** One pair line with the exact model's estimate (ok 0: a failed fit, NA). */
int es_pair_writer_put_adjusted(es_pair_writer_t *pw, const es_pair_t *p, int ok, double beta, double se,
                                double pval);
/** One triple line (order 3: "CHR1 SNP1 POS1 CHR2 SNP2 POS2 CHR3 SNP3 POS3"
 *  then the pair lines' STAT P LOG10P N DF).  @return ES_OK or ES_ERR_IO. */
int es_pair_writer_put3(es_pair_writer_t *pw, const es_triple_t *t);
/** One pair line.  @return ES_OK, ES_ERR_IO or ES_ERR_NOMEM. */
int es_pair_writer_put(es_pair_writer_t *pw, const es_pair_t *p);
/** Write out what is buffered.  @return ES_OK or ES_ERR_IO. */
int es_pair_writer_finish(es_pair_writer_t *pw);
void es_pair_writer_free(es_pair_writer_t *pw);

/** Per-variant summary (.summary.tsv); N_SIG from n_sig when not NULL (pairs
 *  below --epi2), else from s.  Rows are formatted on up to threads threads
 *  (the same bytes for any count).  @return ES_OK, ES_ERR_IO or ES_ERR_NOMEM. */
int es_write_summary(FILE *fp, const es_dataset_t *ds, const es_summary_t *s, const uint64_t *n_sig, int threads);
/** PLINK 1.9's .epi.cc.summary (IDs padded to w): N_SIG from n_sig, N_TOT the valid tests (s's
 *  pairs less n_failed, when not NULL), PROP, BEST_CHISQ, BEST_CHR, BEST_SNP; rows formatted
 *  on up to threads threads.  @return ES_OK, ES_ERR_IO or ES_ERR_NOMEM. */
int es_write_plink_summary(FILE *fp, const es_dataset_t *ds, int w, const es_summary_t *s,
                           const uint64_t *n_sig, const uint64_t *n_failed, int threads);

/** Per-variant summary of a 3-way scan (.summary.tsv): CHR SNP POS N_SIG
 *  N_TOT BEST_STAT BEST_P, then the other two variants of the best triple
 *  (CHR_B SNP_B POS_B CHR_C SNP_C POS_C, in index order).  @return ES_OK or ES_ERR_IO. */
int es_write_summary3(FILE *fp, const es_dataset_t *ds, const es_summary3_t *s);

/* ---- PLINK 1.9 --fast-epistasis conventions (plink.c) ---------------------- */

/** The chromosome as PLINK 1.9 writes it: X 23, Y 24, XY 25, MT/M 26, numbers
 *  without leading zeros, a "chr" prefix dropped; other names unchanged. */
const char *es_plink_chr_code(const char *chr);
/** Drop what PLINK's --fast-epistasis boost skips (--plink-compat): variants
 *  on X and Y (haploid), and variants with fewer than two called genotypes
 *  among the samples in the analysis.  *n_mono, *n_haploid: how many of each.
 *  @return ES_OK, ES_ERR_DATA (fewer than 2 left; logged), ES_ERR_NOMEM. */
int es_plink_epi_skip(es_dataset_t *ds, uint32_t *n_mono, uint32_t *n_haploid);
/** The BOOST tests that fail (a variant left with one genotype level among the
 *  samples called at both; df 0): failed[v] (n_variants entries) for each
 *  variant, *total pairs.  @return ES_OK, ES_ERR_NOMEM. */
int es_plink_epi_failed(const es_dataset_t *ds, uint64_t *failed, uint64_t *total);

#endif
