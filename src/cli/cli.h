/* cli.h -- the subcommands of the epistream program (the only code that prints
 * usage and exits). */
#ifndef ES_CLI_H
#define ES_CLI_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "epistream.h"
#include "output.h"
#include "scan.h"
#include "select.h"
#include "sim.h"

/* exit codes */
#define ES_EXIT_OK 0
#define ES_EXIT_ERROR 1
#define ES_EXIT_USAGE 2

int es_cmd_scan(int argc, char **argv);
int es_cmd_sim(int argc, char **argv);
int es_cmd_info(int argc, char **argv);
int es_cmd_convert(int argc, char **argv);

/* ---- input options shared by scan, info and convert (cli_input.c) ---------- */

#define ES_CLI_MAX_REGIONS 256
enum {
    ES_OPT_BFILE = 1000, ES_OPT_VCF, ES_OPT_PHENO, ES_OPT_PHENO_NAME, ES_OPT_KEEP, ES_OPT_REMOVE,
    ES_OPT_EXTRACT, ES_OPT_EXCLUDE, ES_OPT_CHR, ES_OPT_REGION, ES_OPT_MAF, ES_OPT_GENO
};
/* getopt_long entries for the input options (put them first in a subcommand's table) */
#define ES_CLI_INPUT_LONGOPTS                                                                      \
    {"bfile", required_argument, 0, ES_OPT_BFILE}, {"vcf", required_argument, 0, ES_OPT_VCF},     \
        {"pheno", required_argument, 0, ES_OPT_PHENO},                                            \
        {"pheno-name", required_argument, 0, ES_OPT_PHENO_NAME},                                  \
        {"keep", required_argument, 0, ES_OPT_KEEP}, {"remove", required_argument, 0, ES_OPT_REMOVE}, \
        {"extract", required_argument, 0, ES_OPT_EXTRACT},                                        \
        {"exclude", required_argument, 0, ES_OPT_EXCLUDE},                                        \
        {"chr", required_argument, 0, ES_OPT_CHR}, {"region", required_argument, 0, ES_OPT_REGION}, \
        {"maf", required_argument, 0, ES_OPT_MAF}, {"geno", required_argument, 0, ES_OPT_GENO}

typedef struct {
    es_input_opt_t in;
    const char *regions[ES_CLI_MAX_REGIONS];
} es_cli_input_t;

void es_cli_input_init(es_cli_input_t *ci);
/** @return 1 if c was an input option (parsed into ci), 0 if not, -1 on a bad value (printed). */
int es_cli_input_option(es_cli_input_t *ci, int c, const char *arg);
/** Cross-option checks after parsing; @return 0 or -1 (printed). */
int es_cli_input_check(const es_cli_input_t *ci, const char *cmd);
/** Print the input/selection part of a subcommand's usage. */
void es_cli_input_usage(FILE *fp, int need_pheno);

/** Parse helpers (args.c): print "[E::options] --NAME: ..." and return non-zero on bad input. */
int es_cli_u32(const char *name, const char *s, uint32_t lo, uint32_t hi, uint32_t *out);
int es_cli_double(const char *name, const char *s, double *out);
int es_cli_u64(const char *name, const char *s, uint64_t *out);

/** The command line joined with spaces (for logs); malloc'd. */
char *es_cli_join(int argc, char **argv);

/* ---- mutual-information selection, shared by select and scan --refine
 *      (cmd_select.c) --------------------------------------------------------- */

int es_cmd_select(int argc, char **argv);

/** What a selection did, for the log and the closing line. */
typedef struct {
    uint32_t n_samples, n_features, n_classes;
    uint32_t n_selected; /* < min(k, n_features) when CondMI stopped early */
    double seconds;      /* building the table (variants) and selecting */
    char where[160];     /* what counted ("cpu (4 threads)", "gpu 0 (...)") */
    double seconds_gpu;  /* in the device's round kernels */
    int fixed_point;     /* the output comes from the fixed-point entropies */
    uint32_t n_double, agree_prefix, agree_common; /* the double selection and the agreement */
} es_select_info_t;

/** How a selection runs: threads, device (-1: CPU), fixed point, GPU path
 *  and kernel (es_mi_opt_t) chosen from --device/--gpu-kernel/--gpu-path/
 *  --fixed-point. */
typedef es_mi_opt_t es_select_opt_t;

/** The device of a selection from a scan's --device choice: -1 (CPU), or
 *  the lowest GPU of gpu_mask (every visible one when 0); auto takes GPU 0
 *  when there is one. */
int es_select_device(es_device_t dev, uint64_t gpu_mask);

/** Parse --gpu-path auto|hist|pairs.  @return 0, or -1 after a message. */
int es_cli_gpu_path(const char *s, int *path);

/** --method NAME: print "[E::options] --OPT: ..." and return -1 when unknown. */
int es_cli_method(const char *opt, const char *s, es_mi_method_t *m);
/** --refine METHOD:K (K in [1, 10^8]); prints the error and returns -1 when bad. */
int es_cli_refine(const char *s, es_mi_method_t *m, uint32_t *k);

/**
 * The distinct variants of n_pairs pairs, in ascending index order (the
 * survivors of a scan).  @param var receives a malloc'd array (free()).
 * @return ES_OK or ES_ERR_NOMEM
 */
int es_select_pair_variants(const es_dataset_t *ds, const es_pair_t *pairs, size_t n_pairs,
                            uint32_t **var, uint32_t *n_var);

/**
 * Select up to k features of d with method m (as so says) and write the
 * .select.tsv lines (header included) to fp: RANK FEATURE SCORE RELEVANCE,
 * scores %.12g.  k above the number of features selects them all (warned).
 * With fixed point, the double selection runs too and the agreement of the
 * two goes to info and the log.
 */
int es_select_table(const es_dtable_t *d, es_mi_method_t m, uint32_t k, const es_select_opt_t *so,
                    FILE *fp, es_select_info_t *info);

/**
 * es_select_table() over variants var[0..n_var) of ds (distinct, ascending):
 * one feature per variant, states 0/1/2 copies of A1 and 3 = missing call,
 * over the samples in the analysis (es_dataset_sample_used()); the class is
 * case (1) / control (0).  scan --refine and select --from build the same
 * table from the same variants, so their outputs are byte-identical.
 */
int es_select_variants(const es_dataset_t *ds, const uint32_t *var, uint32_t n_var,
                       es_mi_method_t m, uint32_t k, const es_select_opt_t *so, FILE *fp,
                       es_select_info_t *info);

/** The selection's lines of a PREFIX.log (method, k, counts, seconds). */
void es_select_write_log(FILE *fp, es_mi_method_t m, uint32_t k, const es_select_info_t *info);

#endif
