/* args.c -- the argument parsers every subcommand shares: numbers with their
 * ranges, and the command line joined for the logs.  Each prints one
 * "[E::options] --NAME: ..." line naming what was expected and what was found. */
#include <errno.h>
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
