/* cmd_merge.c -- `epistream merge SHARD...`: the shards of one scan (scan
 * --shard I/N) joined into the outputs of one uninterrupted run.  The scan's
 * command line comes from the shards' state; src/dist checks that they
 * belong together and are complete. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dist.h"

static void merge_usage(FILE *fp)
{
    fprintf(fp,
            "Usage: epistream merge [--out PREFIX] SHARD.state...\n"
            "\n"
            "Joins the shards of one scan ('epistream scan --shard I/N ...', each writing\n"
            "PREFIX.shard-I-of-N.state and, with --p-threshold, PREFIX.shard-I-of-N.state.sig)\n"
            "into the files that scan would have written in one run, byte for byte.  The\n"
            "scan's options come from the shards; its input files are read again (they must\n"
            "be the ones the shards read: their fingerprints are checked).  Refused: a shard\n"
            "missing, given twice, unfinished, or of another scan (other data, options, split\n"
            "or tiles).\n"
            "\n"
            "Options:\n"
            "  --out PREFIX   write the outputs under PREFIX (default: the scan's --out)\n"
            "  --quiet        only errors on stderr\n"
            "  --verbose      informational messages on stderr\n"
            "  -h, --help     this help\n");
}

/* Is word w (with its value in the next word, or after '=') one of the
 * options a shard's command line has that its merge must not? *skip: the
 * words it takes. */
static int shard_only(const char *w, int *skip)
{
    static const char *const with_value[] = {"--shard", "--checkpoint", "--checkpoint-every"};
    *skip = 1;
    if (!strcmp(w, "--resume")) return 1;
    for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++) {
        size_t n = strlen(with_value[k]);
        if (!strncmp(w, with_value[k], n) && (w[n] == '=' || !w[n])) {
            *skip = w[n] ? 1 : 2;
            return 1;
        }
    }
    return 0;
}

int es_cmd_merge(int argc, char **argv)
{
    const char *out = NULL;
    int quiet = 0, verbose = 0, n = 0;
    const char **shards = calloc((size_t)argc + 1, sizeof *shards);
    if (!shards) return ES_EXIT_ERROR;
    for (int k = 1; k < argc; k++) {
        const char *w = argv[k];
        if (!strcmp(w, "-h") || !strcmp(w, "--help")) {
            merge_usage(stdout);
            free(shards);
            return ES_EXIT_OK;
        } else if (!strcmp(w, "--out") && k + 1 < argc) {
            out = argv[++k];
        } else if (!strncmp(w, "--out=", 6)) {
            out = w + 6;
        } else if (!strcmp(w, "--quiet")) {
            quiet = 1;
        } else if (!strcmp(w, "--verbose")) {
            verbose = 1;
        } else if (w[0] == '-') {
            fprintf(stderr, "[E::options] merge: unknown option '%s'\n\n", w);
            merge_usage(stderr);
            free(shards);
            return ES_EXIT_USAGE;
        } else {
            shards[n++] = w;
        }
    }
    if (!n) {
        fprintf(stderr, "[E::options] merge: no shard given\n\n");
        merge_usage(stderr);
        free(shards);
        return ES_EXIT_USAGE;
    }
    if (out && es_cli_out_prefix("merge", out)) {
        free(shards);
        return ES_EXIT_USAGE;
    }
    es_log_set_level(quiet ? ES_LOG_ERROR : verbose ? ES_LOG_INFO : ES_LOG_WARN);
    int sargc = 0;
    char **sargv = NULL;
    if (es_dist_state_argv(shards[0], &sargc, &sargv)) {
        free(shards);
        return ES_EXIT_ERROR;
    }
    /* the scan's words without the shard's own, with --quiet / --verbose */
    char **v = calloc((size_t)sargc + 3, sizeof *v);
    int vn = 0, rc = ES_EXIT_ERROR;
    if (v) {
        for (int k = 0; k < sargc; k++) {
            int skip;
            if (k > 0 && shard_only(sargv[k], &skip)) {
                k += skip - 1;
                continue;
            }
            if (!strcmp(sargv[k], "--quiet") || !strcmp(sargv[k], "--verbose")) continue;
            v[vn++] = sargv[k];
        }
        if (quiet) v[vn++] = "--quiet";
        if (verbose) v[vn++] = "--verbose";
        rc = es_cli_scan_merge(vn, v, out, shards);
    }
    free(v);
    free(sargv);
    free(shards);
    return rc;
}
