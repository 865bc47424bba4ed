/* main.c -- the epistream program: one table of subcommands (name, function,
 * one-line help) from which the dispatch and the usage are made. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "epistream.h"
#include "backend.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
} commands[] = {
    {"scan", es_cmd_scan, "2-way (or --order 3: 3-way) interaction scan of a PLINK fileset or VCF/BCF\n           (case/control, or a quantitative trait with covariates)"},
    {"merge", es_cmd_merge, "join the shards of a scan (scan --shard I/N) into its outputs"},
    {"convert", es_cmd_convert, "VCF/BCF (or a selection of a fileset) to a PLINK .bed/.bim/.fam"},
    {"select", es_cmd_select, "mutual-information feature selection (mRMR, JMI, DISR, CMIM, ...)"},
    {"nsga", es_cmd_nsga, "multi-objective feature selection (NSGA-II), CPU+GPU self-scheduled"},
    {"mdfs", es_cmd_mdfs, "multidimensional feature selection (MDFS): IG over k-tuples, p-values"},
    {"rules", es_cmd_rules, "learn boosted multi-label rules (BOOMER) or predict with them"},
    {"report", es_cmd_report, "plots and a self-contained HTML page of a finished run's results"},
    {"sim", es_cmd_sim, "simulate a PLINK fileset (case/control or --qt) with planted pairs or triples"},
    {"info", es_cmd_info, "describe a dataset (samples, cases/controls, MAF, missingness)"},
};
#define N_COMMANDS (sizeof commands / sizeof *commands)

static void usage(FILE *fp)
{
    fprintf(fp,
            "epistream %s -- genome-wide epistasis scans on CPUs and GPUs\n"
            "\n"
            "Usage: epistream <command> [options]\n"
            "\n"
            "Commands:\n",
            ES_VERSION);
    for (size_t k = 0; k < N_COMMANDS; k++) fprintf(fp, "  %-8s %s\n", commands[k].name, commands[k].help);
    fprintf(fp, "\n"
                "Options:\n"
                "  -h, --help     this help; 'epistream <command> --help' for a command's options\n"
                "  -V, --version  print the version\n"
                "\n"
                "See 'man epistream' for the statistics and output formats.\n");
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
    for (size_t k = 0; k < N_COMMANDS; k++)
        if (!strcmp(cmd, commands[k].name)) {
            int rc = commands[k].run(argc - 1, argv + 1);
            es_backend_settle(); /* a device opened ahead of the work and never used */
            return rc;
        }
    fprintf(stderr, "[E::main] unknown command '%s'; try 'epistream --help'\n", cmd);
    return ES_EXIT_USAGE;
}
