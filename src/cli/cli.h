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

/* ---- input options shared by scan, info, convert and select (input.c) ------- */

#define ES_CLI_MAX_REGIONS 256
enum {
    ES_OPT_BFILE = 1000, ES_OPT_VCF, ES_OPT_PHENO, ES_OPT_PHENO_NAME, ES_OPT_KEEP, ES_OPT_REMOVE,
    ES_OPT_EXTRACT, ES_OPT_EXCLUDE, ES_OPT_CHR, ES_OPT_REGION, ES_OPT_MAF, ES_OPT_GENO,
    /* PLINK 1.9's, with its meaning */
    ES_OPT_MIND, ES_OPT_HWE, ES_OPT_HWE_ALL, ES_OPT_SNPS, ES_OPT_MPHENO, ES_OPT_ONE,
    ES_OPT_ALLOW_NO_SEX, ES_OPT_FROM, ES_OPT_TO
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
        {"maf", required_argument, 0, ES_OPT_MAF}, {"geno", required_argument, 0, ES_OPT_GENO},   \
        {"mind", required_argument, 0, ES_OPT_MIND}, {"hwe", required_argument, 0, ES_OPT_HWE},   \
        {"hwe-all", no_argument, 0, ES_OPT_HWE_ALL}, {"snps", required_argument, 0, ES_OPT_SNPS}, \
        {"mpheno", required_argument, 0, ES_OPT_MPHENO}, {"1", no_argument, 0, ES_OPT_ONE},       \
        {"allow-no-sex", no_argument, 0, ES_OPT_ALLOW_NO_SEX}
/* PLINK's --from/--to, for the subcommands whose --from is free (scan, info,
 * convert; select's --from is a scan result) */
#define ES_CLI_RANGE_LONGOPTS                                                                      \
    {"from", required_argument, 0, ES_OPT_FROM}, {"to", required_argument, 0, ES_OPT_TO}

typedef struct {
    es_input_opt_t in;
    const char *regions[ES_CLI_MAX_REGIONS];
    const char *pheno_name, *mpheno; /* as given (in.pheno_name holds the one given) */
} es_cli_input_t;

void es_cli_input_init(es_cli_input_t *ci);
/** @return 1 if c was an input option (parsed into ci), 0 if not, -1 on a bad value (printed). */
int es_cli_input_option(es_cli_input_t *ci, int c, const char *arg);
/** Cross-option checks after parsing; @return 0 or -1 (printed). */
int es_cli_input_check(const es_cli_input_t *ci, const char *cmd);
/** Print the input/selection part of a subcommand's usage. */
void es_cli_input_usage(FILE *fp, int need_pheno);

/**
 * The `default:` branch of every subcommand's getopt_long loop (plink_flags.c):
 * report the option at arg (argv[optind - 1]) on stderr: a PLINK 1.9 flag
 * epistream lacks as "PLINK's --X is not supported; <what to use>", a known
 * option without its value as such, anything else as unknown.
 * @return 1 when the caller should print its usage too (an unknown option), 0
 *         when the message is enough; the caller exits with ES_EXIT_USAGE
 */
int es_cli_bad_option(const char *cmd, const char *arg);

/** Parse helpers (args.c): print "[E::options] --NAME: ..." and return non-zero on bad input. */
int es_cli_u32(const char *name, const char *s, uint32_t lo, uint32_t hi, uint32_t *out);
int es_cli_double(const char *name, const char *s, double *out);
int es_cli_u64(const char *name, const char *s, uint64_t *out);

/** Check an --out PREFIX: the part after the last '/' must be a file name
 *  (not empty, "." or ".."), else PREFIX.top.tsv and the like would be hidden
 *  files in a directory.  @return 0, or -1 after a message naming cmd. */
int es_cli_out_prefix(const char *cmd, const char *out);

/** The command line joined with spaces (for logs); malloc'd. */
char *es_cli_join(int argc, char **argv);

/* ---- mutual-information selection (cmd_select.c): the subcommand and the
 *      option parsers scan --refine shares; the library part is in
 *      src/select/select.h (refine.c) ------------------------------------------ */

int es_cmd_select(int argc, char **argv);

/** Parse --gpu-path auto|hist|pairs.  @return 0, or -1 after a message. */
int es_cli_gpu_path(const char *s, int *path);

/** --method NAME: print "[E::options] --OPT: ..." and return -1 when unknown. */
int es_cli_method(const char *opt, const char *s, es_mi_method_t *m);
/** --refine METHOD:K (K in [1, 10^8]); prints the error and returns -1 when bad. */
int es_cli_refine(const char *s, es_mi_method_t *m, uint32_t *k);

#endif
