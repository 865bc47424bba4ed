/* cli.h -- the subcommands of the epistream program (the only code that prints
 * usage and exits). */
#ifndef ES_CLI_H
#define ES_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "epistream.h"
#include "output.h"
#include "report.h"
#include "scan.h"
#include "select.h"
#include "sim.h"

/* exit codes */
#define ES_EXIT_OK 0
#define ES_EXIT_ERROR 1
#define ES_EXIT_USAGE 2

int es_cmd_scan(int argc, char **argv);
int es_cmd_merge(int argc, char **argv);
/** A scan's command line (argv[0] "scan") run as the merge of its shards
 *  (cmd_merge.c): the outputs under out (NULL: its --out).  @return the exit code */
int es_cli_scan_merge(int argc, char **argv, const char *out, const char *const *shards);
int es_cmd_sim(int argc, char **argv);
int es_cmd_info(int argc, char **argv);
int es_cmd_convert(int argc, char **argv);
/** `epistream rules train|predict` (cmd_rules.c). */
int es_cmd_rules(int argc, char **argv);
int es_cmd_report(int argc, char **argv);
/** `epistream nsga`: NSGA-II feature selection (cmd_nsga.c; the library is src/nsga/). */
int es_cmd_nsga(int argc, char **argv);
/** `epistream mdfs` (cmd_mdfs.c). */
int es_cmd_mdfs(int argc, char **argv);

/* ---- the option table every subcommand declares (args.c) ------------------
 *
 * A subcommand lists its long options in tables of es_cli_opt_t, each table
 * with the context its values go into (an es_cli_group_t), and calls
 * es_cli_parse() once: one getopt_long loop for every subcommand, so that
 * abbreviations, --opt=value, -h/--help, unknown options (PLINK's flags
 * among them), missing values and stray arguments are handled alike.  The
 * values are stored as the table says, or by the option's handler; checks
 * across options stay with the subcommand. */

/** How an option's value is stored in its group's context. */
typedef enum {
    ES_CLI_FLAG,   /**< no value: the int at off becomes 1 */
    ES_CLI_STR,    /**< the const char * at off points at the value (argv's) */
    ES_CLI_U32,    /**< the uint32_t at off, an integer in [lo, hi] */
    ES_CLI_INT,    /**< the int at off, an integer in [lo, hi] (hi <= INT_MAX) */
    ES_CLI_U64,    /**< the uint64_t at off, a non-negative integer */
    ES_CLI_DOUBLE, /**< the double at off, a number */
    ES_CLI_FUNC    /**< fn(ctx, value) parses and stores the value */
} es_cli_kind_t;

/** One long option. */
typedef struct {
    const char *name;  /**< without the leading "--" */
    es_cli_kind_t kind;
    size_t off;        /**< the field's offset in the context (not ES_CLI_FUNC) */
    uint32_t lo, hi;   /**< ES_CLI_U32, ES_CLI_INT: the range */
    /** ES_CLI_FUNC: @return 0, or -1 after a "[E::options] --NAME: ..." message */
    int (*fn)(void *ctx, const char *arg);
} es_cli_opt_t;

/* The field f of struct type T, checked at compile time to have type `type`
 * (a mismatch is an array of negative size). */
#define ES_CLI_FIELD(T, f, type)                                                                   \
    (offsetof(T, f) + 0 * sizeof(char[_Generic(((T *)0)->f, type: 1, default: -1)]))
#define ES_CLI_OPT_FLAG(name, T, f) {name, ES_CLI_FLAG, ES_CLI_FIELD(T, f, int), 0, 0, NULL}
#define ES_CLI_OPT_STR(name, T, f) {name, ES_CLI_STR, ES_CLI_FIELD(T, f, const char *), 0, 0, NULL}
#define ES_CLI_OPT_U32(name, T, f, lo, hi)                                                        \
    {name, ES_CLI_U32, ES_CLI_FIELD(T, f, uint32_t), lo, hi, NULL}
#define ES_CLI_OPT_INT(name, T, f, lo, hi) {name, ES_CLI_INT, ES_CLI_FIELD(T, f, int), lo, hi, NULL}
#define ES_CLI_OPT_U64(name, T, f) {name, ES_CLI_U64, ES_CLI_FIELD(T, f, uint64_t), 0, 0, NULL}
#define ES_CLI_OPT_DOUBLE(name, T, f) {name, ES_CLI_DOUBLE, ES_CLI_FIELD(T, f, double), 0, 0, NULL}
#define ES_CLI_OPT_FUNC(name, fn) {name, ES_CLI_FUNC, 0, 0, 0, fn}

/** A table of options and the context their values go into. */
typedef struct {
    const es_cli_opt_t *opt;
    size_t n;
    void *ctx;
} es_cli_group_t;
/** The group of a table declared as an array in the same file. */
#define ES_CLI_GROUP(table, ctx) {table, sizeof table / sizeof *table, ctx}

/**
 * Parse argv[1..argc) (argv[0] is the subcommand's name) against the groups'
 * options, in order, and -h/--help.  Every value goes where its option says
 * as it is met; the first bad one ends the parse with its message.  An
 * option not in the tables is reported by es_cli_bad_option() (with usage
 * when that asks for it); an argument that is not an option is an error.
 * @param cmd the subcommand's name, for the messages
 * @param usage prints the subcommand's usage (stdout for --help, stderr)
 * @return -1 when the command should go on, else its exit code: ES_EXIT_OK
 *         after --help, ES_EXIT_USAGE after an error (printed), ES_EXIT_ERROR
 *         when out of memory
 */
int es_cli_parse(const char *cmd, int argc, char **argv, const es_cli_group_t *groups,
                 size_t n_groups, void (*usage)(FILE *fp));

/** es_cli_parse() for a subcommand that takes up to max_pos arguments that
 *  are not options (anywhere on the line): they go to pos[0..*n_pos), in
 *  order; one more is an error. */
int es_cli_parse_pos(const char *cmd, int argc, char **argv, const es_cli_group_t *groups,
                     size_t n_groups, void (*usage)(FILE *fp), const char **pos, int max_pos,
                     int *n_pos);

/* ---- input options shared by scan, info, convert and select (input.c) ------- */

#define ES_CLI_MAX_REGIONS 256

typedef struct {
    es_input_opt_t in;
    const char *regions[ES_CLI_MAX_REGIONS];
    const char *pheno_name, *mpheno; /* as given (in.pheno_name holds the one given) */
    const char *multiallelic;        /* --vcf-multiallelic as given, or NULL */
    int allow_no_sex;                /* given; no effect (sex never leaves a sample out) */
} es_cli_input_t;

void es_cli_input_init(es_cli_input_t *ci);
/** The input options, into ci (put them first: the usage lists them first). */
es_cli_group_t es_cli_input_group(es_cli_input_t *ci);
/** PLINK's --from/--to, into ci, for the subcommands whose --from is free
 *  (scan, info, convert; select's --from is a scan result). */
es_cli_group_t es_cli_range_group(es_cli_input_t *ci);
/** Cross-option checks after parsing; @return 0 or -1 (printed). */
int es_cli_input_check(const es_cli_input_t *ci, const char *cmd);
/** Print the input/selection part of a subcommand's usage. */
void es_cli_input_usage(FILE *fp, int need_pheno);
/** The variants a --from FILE names (nsga, rules): those of a scan's pair list
 *  (.top.tsv/.sig.tsv/.epi.cc, es_select_read_pairs(): distinct, ascending), or
 *  the FEATURE column of a .select.tsv in its order; *var is malloc'd.
 *  @return ES_OK, ES_ERR_DATA (an ID not in ds, or twice), the readers' errors */
int es_cli_variants_from(const es_dataset_t *ds, const char *path, uint32_t **var, uint32_t *n_var);

/** A progress line ("[read] bytes ...") while a VCF/BCF is read, when on
 *  (the command's progress: not --quiet, stderr a terminal). */
void es_cli_input_progress(es_cli_input_t *ci, int on);

/**
 * What es_cli_parse() says of an option not in the tables (plink_flags.c):
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
/** es_cli_double() of a number in [lo, hi] ((lo, hi] when lo_open); else a
 *  message naming the option and the range.  @return 0 or -1 */
int es_cli_double_in(const char *name, const char *s, double lo, double hi, int lo_open, double *out);
int es_cli_u64(const char *name, const char *s, uint64_t *out);

/** Check an --out PREFIX: the part after the last '/' must be a file name
 *  (not empty, "." or ".."), else PREFIX.top.tsv and the like would be hidden
 *  files in a directory.  @return 0, or -1 after a message naming cmd. */
int es_cli_out_prefix(const char *cmd, const char *out);

/** The progress line of a long command on a terminal: "\r[tag] done / total
 *  unit (%), rate unit/s, ETA", ended with a newline when done >= total.
 *  Callers show it only when stderr is a terminal and not --quiet. */
void es_cli_progress(const char *tag, const char *unit, uint64_t done, uint64_t total,
                     double secs);

/** A selection's picks on a terminal: es_cli_picks_progress() is an
 *  es_mi_opt_t.progress callback whose ud is an es_cli_picks_t; call
 *  es_cli_picks_end() after the selection, which ends the line when it
 *  stopped before its total (condmi, an error); a second call does nothing. */
typedef struct {
    uint32_t done, total;
} es_cli_picks_t;
void es_cli_picks_progress(uint32_t picked, uint32_t k, double secs, void *ud);
void es_cli_picks_end(es_cli_picks_t *p);

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
