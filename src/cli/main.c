/* main.c -- the epistream program: dispatches to subcommands. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "epistream.h"

static void usage(FILE *fp)
{
    fprintf(fp,
            "epistream %s -- genome-wide epistasis scans on CPUs and GPUs\n"
            "\n"
            "Usage: epistream <command> [options]\n"
            "\n"
            "Commands:\n"
            "  scan     exhaustive 2-way interaction scan of a PLINK fileset or VCF/BCF\n"
            "  convert  VCF/BCF (or a selection of a fileset) to a PLINK .bed/.bim/.fam\n"
            "  select   mutual-information feature selection (mRMR, JMI, DISR, CMIM, ...)\n"
            "  sim      simulate a case/control PLINK fileset with planted interacting pairs\n"
            "  info     describe a dataset (samples, cases/controls, MAF, missingness)\n"
            "\n"
            "Options:\n"
            "  -h, --help     this help; 'epistream <command> --help' for a command's options\n"
            "  -V, --version  print the version\n"
            "\n"
            "See 'man epistream' for the statistics and output formats.\n",
            ES_VERSION);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "[E::main] no command given\n\n");
        usage(stderr);
        return ES_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        usage(stdout);
        return ES_EXIT_OK;
    }
    if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
        printf("epistream %s\n", ES_VERSION);
        return ES_EXIT_OK;
    }
    if (!strcmp(cmd, "scan")) return es_cmd_scan(argc - 1, argv + 1);
    if (!strcmp(cmd, "sim")) return es_cmd_sim(argc - 1, argv + 1);
    if (!strcmp(cmd, "info")) return es_cmd_info(argc - 1, argv + 1);
    if (!strcmp(cmd, "convert")) return es_cmd_convert(argc - 1, argv + 1);
    if (!strcmp(cmd, "select")) return es_cmd_select(argc - 1, argv + 1);
    fprintf(stderr, "[E::main] unknown command '%s'; try 'epistream --help'\n", cmd);
    return ES_EXIT_USAGE;
}

int es_cli_u32(const char *name, const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v < lo || v > hi) {
        fprintf(stderr, "[E::options] --%s: expected an integer in [%u, %u], got '%s'\n", name, lo,
                hi, s);
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

int es_cli_u64(const char *name, const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-') {
        fprintf(stderr, "[E::options] --%s: expected a non-negative integer, got '%s'\n", name, s);
        return -1;
    }
    *out = v;
    return 0;
}

int es_cli_double(const char *name, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || v != v) {
        fprintf(stderr, "[E::options] --%s: expected a number, got '%s'\n", name, s);
        return -1;
    }
    *out = v;
    return 0;
}

char *es_cli_join(int argc, char **argv)
{
    size_t n = 1;
    for (int k = 0; k < argc; k++) n += strlen(argv[k]) + 1;
    char *s = malloc(n), *p = s;
    if (!s) return NULL;
    for (int k = 0; k < argc; k++) p += sprintf(p, k ? " %s" : "%s", argv[k]);
    *p = '\0';
    return s;
}
