/* cmd_report.c -- `epistream report PREFIX`: the plots and page of a finished
 * run (src/report/); argument parsing only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void report_usage(FILE *fp)
{
    fprintf(fp,
            "Usage: epistream report PREFIX [--out DIR] [--format html|svg|png|pdf]\n"
            "                        [--bfile PREFIX | --bim FILE]\n"
            "\n"
            "Draws the results of the run written under PREFIX (by scan, select, rules, mdfs\n"
            "or nsga): whatever exists of PREFIX.top.tsv and PREFIX.sig.tsv (2-way or 3-way),\n"
            "PREFIX.summary.tsv, PREFIX.log, PREFIX.select.tsv, PREFIX.rules.txt (rules train:\n"
            "the rules, listed in the page), PREFIX.metrics.tsv (rules predict: a table),\n"
            "PREFIX.mdfs.tsv and PREFIX.relevant.tsv (mdfs: the variables' information gain,\n"
            "ranked, the relevant ones marked; a table), PREFIX.front.tsv and PREFIX.hv.tsv\n"
            "(nsga: the Pareto front, the hypervolume by generation; a table).\n"
            "PLINK's epistasis results are read too, as plink1.9 and scan --format plink\n"
            "write them: PREFIX.epi.cc (--fast-epistasis boost: STAT DF P; --fast-epistasis:\n"
            "STAT P; --epistasis: OR_INT STAT P) or PREFIX.epi.qt (--epistasis on a\n"
            "quantitative trait: BETA_INT STAT P), in place of PREFIX.sig.tsv, and\n"
            "PREFIX.epi.cc.summary or PREFIX.epi.qt.summary, in place of PREFIX.summary.tsv\n"
            "(each variant's BEST_CHISQ drawn as the p-value of its test's df: 4 for BOOST, 1\n"
            "for the others; none for scan --format plink --stat chi2, mi, ig or linear4);\n"
            "PLINK's PREFIX.log gives the count of valid tests and --epi1.  These files name\n"
            "variants by chromosome and ID only: positions come from the .bim the run's log\n"
            "names (PLINK's --bfile or --bim, epistream's bfile) or from --bfile/--bim; an ID\n"
            "that is not in it, or on another chromosome there, is an error naming the file,\n"
            "line and ID.\n"
            "The plots: the interaction plot (chromosomes in order, an arc between the\n"
            "variants of each of the best 300 pairs, coloured by -log10 p), the per-variant\n"
            "plot of the summary (best -log10 p by position, the Bonferroni line for the\n"
            "run's tests), the QQ plot of the written p-values (95%% band; lambda only when\n"
            "the list holds the median p of all tests), the heat map of the top 30 variants,\n"
            "and the selection's ranking curve.  k2 has no p-value: its plots show the K2\n"
            "score.  A malformed file stops the report (its file and line named) before\n"
            "anything is written.\n"
            "\n"
            "Options:\n"
            "  --out DIR      the report directory (default: PREFIX.report); created if\n"
            "                 missing, files of the same names in it replaced\n"
            "  --format F     html (default): DIR/report.html, one self-contained page (the\n"
            "                 run's log, what each plot is computed from, the plots as inline\n"
            "                 SVG, the top results and the selection as sortable tables; no\n"
            "                 network access); svg, png or pdf: one file per plot drawn\n"
            "                 (interaction, manhattan, qq, heatmap, ranking)\n"
            "  --bfile PREFIX the .bim of PLINK-format results is PREFIX.bim\n"
            "  --bim FILE     the .bim of PLINK-format results (default: the one the run's\n"
            "                 log names)\n"
            "  --quiet        only errors on stderr\n"
            "  -h, --help     this help\n"
            "%s",
            es_report_available() ? ""
                                  : "\nThis build has no cairo: report only says so (install "
                                    "libcairo2-dev and build again).\n");
}

typedef struct {
    const char *out, *format, *bfile, *bim;
    int quiet;
} report_args_t;

static const es_cli_opt_t report_opts[] = {
    ES_CLI_OPT_STR("out", report_args_t, out),
    ES_CLI_OPT_STR("format", report_args_t, format),
    ES_CLI_OPT_STR("bfile", report_args_t, bfile),
    ES_CLI_OPT_STR("bim", report_args_t, bim),
    ES_CLI_OPT_FLAG("quiet", report_args_t, quiet),
};

int es_cmd_report(int argc, char **argv)
{
    report_args_t a;
    memset(&a, 0, sizeof a);
    const es_cli_group_t groups[] = {ES_CLI_GROUP(report_opts, &a)};
    const char *prefix = NULL;
    int n_pos = 0;
    int r = es_cli_parse_pos("report", argc, argv, groups, 1, report_usage, &prefix, 1, &n_pos);
    if (r >= 0) return r;
    if (!n_pos || !*prefix) {
        fprintf(stderr, "[E::options] report: give the PREFIX of a run (its --out)\n");
        report_usage(stderr);
        return ES_EXIT_USAGE;
    }
    es_report_format_t fmt = ES_REPORT_HTML;
    if (a.format && es_report_format_parse(a.format, &fmt)) {
        fprintf(stderr, "[E::options] --format: expected html, svg, png or pdf, got '%s'\n",
                a.format);
        return ES_EXIT_USAGE;
    }
    if (a.out && !*a.out) {
        fprintf(stderr, "[E::options] report: --out is empty\n");
        return ES_EXIT_USAGE;
    }
    if (a.bfile && a.bim) {
        fprintf(stderr, "[E::options] report: give --bfile PREFIX or --bim FILE, not both\n");
        return ES_EXIT_USAGE;
    }
    if ((a.bfile && !*a.bfile) || (a.bim && !*a.bim)) {
        fprintf(stderr, "[E::options] report: --%s is empty\n", a.bfile ? "bfile" : "bim");
        return ES_EXIT_USAGE;
    }
    if (!es_report_available()) {
        fprintf(stderr, "[E::report] this epistream was built without cairo, which 'report' "
                        "draws with: install cairo (Debian: libcairo2-dev), then configure and "
                        "build again\n");
        return ES_EXIT_ERROR;
    }
    es_log_set_level(a.quiet ? ES_LOG_ERROR : ES_LOG_WARN);
    char *dir = a.out ? NULL : es_report_default_dir(prefix);
    if (!a.out && !dir) {
        fprintf(stderr, "[E::report] out of memory\n");
        return ES_EXIT_ERROR;
    }
    char *bim = NULL;
    if (a.bfile) {
        size_t bl = strlen(a.bfile) + sizeof ".bim";
        if (!(bim = malloc(bl))) {
            fprintf(stderr, "[E::report] out of memory\n");
            free(dir);
            return ES_EXIT_ERROR;
        }
        snprintf(bim, bl, "%s.bim", a.bfile);
    }
    size_t n = 0;
    int ret = es_report_write_bim(prefix, bim ? bim : a.bim, a.out ? a.out : dir, fmt, &n);
    if (ret) {
        if (ret == ES_ERR_NOMEM) fprintf(stderr, "[E::report] failed: %s\n", es_strerror(ret));
    } else if (!a.quiet) {
        fprintf(stderr, "[report] %zu file%s in %s%s\n", n, n == 1 ? "" : "s",
                a.out ? a.out : dir, fmt == ES_REPORT_HTML ? "/report.html" : "");
    }
    free(dir);
    free(bim);
    return ret ? ES_EXIT_ERROR : ES_EXIT_OK;
}
