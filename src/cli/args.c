/* args.c -- what every subcommand's parsing shares: the one option loop over
 * the subcommands' tables (es_cli_parse), numbers with their ranges, and the
 * command line joined for the logs.  Each parser prints one
 * "[E::options] --NAME: ..." line naming what was expected and what was found. */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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

int es_cli_double_in(const char *name, const char *s, double lo, double hi, int lo_open, double *out)
{
    double v;
    if (es_cli_double(name, s, &v)) return -1;
    if ((lo_open ? !(v > lo) : !(v >= lo)) || !(v <= hi)) {
        fprintf(stderr, "[E::options] --%s: expected a number in %c%g, %g], got '%s'\n", name,
                lo_open ? '(' : '[', lo, hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

void es_cli_progress(const char *tag, const char *unit, uint64_t done, uint64_t total, double secs)
{
    double rate = secs > 0 ? (double)done / secs : 0;
    double eta = rate > 0 ? (double)(total - done) / rate : 0;
    char a[32], b[32];
    fprintf(stderr, "\r[%s] %s / %s %s (%.1f%%), %.3g %s/s, ETA %.0f s   ", tag,
            es_fmt_count(done, a), es_fmt_count(total, b), unit,
            total ? 100.0 * (double)done / (double)total : 100.0, rate, unit, eta);
    if (done >= total) fputc('\n', stderr);
}

void es_cli_picks_progress(uint32_t picked, uint32_t k, double secs, void *ud)
{
    es_cli_picks_t *p = ud;
    p->done = picked;
    p->total = k;
    es_cli_progress("select", "picks", picked, k, secs);
}

void es_cli_picks_end(es_cli_picks_t *p)
{
    if (p->done < p->total) fputc('\n', stderr);
    p->done = p->total; /* ended: a second call prints nothing */
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

/* Store arg as o says in ctx.  @return 0, or -1 after the message */
static int set_option(const es_cli_opt_t *o, void *ctx, const char *arg)
{
    char *field = (char *)ctx + o->off;
    uint32_t u;
    switch (o->kind) {
    case ES_CLI_FLAG: *(int *)(void *)field = 1; return 0;
    case ES_CLI_STR: *(const char **)(void *)field = arg; return 0;
    case ES_CLI_U32: return es_cli_u32(o->name, arg, o->lo, o->hi, (uint32_t *)(void *)field);
    case ES_CLI_INT:
        if (es_cli_u32(o->name, arg, o->lo, o->hi, &u)) return -1;
        *(int *)(void *)field = (int)u;
        return 0;
    case ES_CLI_U64: return es_cli_u64(o->name, arg, (uint64_t *)(void *)field);
    case ES_CLI_DOUBLE: return es_cli_double(o->name, arg, (double *)(void *)field);
    case ES_CLI_FUNC: return o->fn(ctx, arg);
    }
    return -1;
}

/* getopt_long's code of the k-th option of the tables: above every short
 * option, so that es_cli_bad_option() tells "needs a value" (optopt > 255) */
#define OPT_CODE0 256

int es_cli_parse(const char *cmd, int argc, char **argv, const es_cli_group_t *groups,
                 size_t n_groups, void (*usage)(FILE *fp))
{
    return es_cli_parse_pos(cmd, argc, argv, groups, n_groups, usage, NULL, 0, NULL);
}

int es_cli_parse_pos(const char *cmd, int argc, char **argv, const es_cli_group_t *groups,
                     size_t n_groups, void (*usage)(FILE *fp), const char **pos, int max_pos,
                     int *n_pos)
{
    size_t n = 0, k = 0;
    for (size_t g = 0; g < n_groups; g++) n += groups[g].n;
    /* the getopt_long table: every group's options in order, then --help */
    struct option *lopts = calloc(n + 2, sizeof *lopts);
    if (!lopts) {
        fprintf(stderr, "[E::options] %s: out of memory\n", cmd);
        return ES_EXIT_ERROR;
    }
    for (size_t g = 0; g < n_groups; g++)
        for (size_t i = 0; i < groups[g].n; i++, k++) {
            const es_cli_opt_t *o = &groups[g].opt[i];
            lopts[k] = (struct option){o->name, o->kind == ES_CLI_FLAG ? no_argument
                                                                       : required_argument,
                                       NULL, (int)(OPT_CODE0 + k)};
        }
    lopts[n] = (struct option){"help", no_argument, NULL, 'h'};
    int ret = -1, c;
    optind = 1;
    opterr = 0;
    while (ret < 0 && (c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            ret = ES_EXIT_OK;
        } else if (c < OPT_CODE0 || (size_t)(c - OPT_CODE0) >= n) {
            if (es_cli_bad_option(cmd, argv[optind - 1])) usage(stderr);
            ret = ES_EXIT_USAGE;
        } else {
            size_t i = (size_t)(c - OPT_CODE0), g = 0;
            while (i >= groups[g].n) i -= groups[g++].n;
            if (set_option(&groups[g].opt[i], groups[g].ctx, optarg)) ret = ES_EXIT_USAGE;
        }
    }
    /* getopt_long has moved the arguments that are not options to the end */
    if (n_pos) *n_pos = 0;
    for (; ret < 0 && optind < argc; optind++) {
        if (!n_pos || *n_pos >= max_pos) {
            fprintf(stderr, "[E::options] %s: unexpected argument '%s'\n", cmd, argv[optind]);
            ret = ES_EXIT_USAGE;
        } else {
            pos[(*n_pos)++] = argv[optind];
        }
    }
    free(lopts);
    return ret;
}

int es_cli_out_prefix(const char *cmd, const char *out)
{
    const char *base = strrchr(out, '/');
    base = base ? base + 1 : out;
    if (*base && strcmp(base, ".") != 0 && strcmp(base, "..") != 0) return 0;
    fprintf(stderr,
            "[E::options] %s: --out '%s' %s; give a PREFIX that ends in a file name, such as "
            "'%sresults'\n",
            cmd, out, !*out ? "is empty" : "names a directory (its files would be hidden ones)",
            *out && !*base ? out : "");
    return -1;
}
