/* cli.h -- the subcommands of the epistream program (the only code that prints
 * usage and exits). */
#ifndef ES_CLI_H
#define ES_CLI_H

/* exit codes */
#define ES_EXIT_OK 0
#define ES_EXIT_ERROR 1
#define ES_EXIT_USAGE 2

int es_cmd_scan(int argc, char **argv);
int es_cmd_sim(int argc, char **argv);
int es_cmd_info(int argc, char **argv);

/** Parse helpers: print "[E::opt] --NAME: ..." and return non-zero on bad input. */
int es_cli_u32(const char *name, const char *s, uint32_t lo, uint32_t hi, uint32_t *out);
int es_cli_double(const char *name, const char *s, double *out);
int es_cli_u64(const char *name, const char *s, uint64_t *out);

/** The command line joined with spaces (for logs); malloc'd. */
char *es_cli_join(int argc, char **argv);

#endif
