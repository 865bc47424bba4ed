/* fuzz.h -- what the fuzz harnesses share: each harness is one libFuzzer
 * entry point, LLVMFuzzerTestOneInput(), that writes the input where a reader
 * expects a file (the readers take paths) and reads it.  Built with clang's
 * -fsanitize=fuzzer by tests/fuzz/run.sh, or with replay.c (any compiler) to
 * run a corpus in `make check`.  Header-only; include once per harness. */
#ifndef ES_FUZZ_H
#define ES_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "epistream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One directory per process, in /dev/shm where there is one (inputs are
 * written many times a second), removed at exit with the files named here. */
static char fz_root[64];
static char fz_files[4][96];

static inline void fz_cleanup(void)
{
    for (int k = 0; k < 4; k++)
        if (fz_files[k][0]) unlink(fz_files[k]);
    if (fz_root[0]) rmdir(fz_root);
}

/* The path of file k (0..3) named NAME in the process's directory. */
static inline const char *fz_path(int k, const char *name)
{
    if (!fz_root[0]) {
        const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(fz_root, sizeof fz_root, "%s/es_fuzz.XXXXXX", base);
        if (!mkdtemp(fz_root)) abort();
        atexit(fz_cleanup);
        es_log_set_level(ES_LOG_QUIET); /* messages of bad input by the million */
    }
    snprintf(fz_files[k], sizeof fz_files[k], "%s/%s", fz_root, name);
    return fz_files[k];
}

/* Write n bytes to path (abort on failure: the harness is broken, not the input). */
static inline void fz_write(const char *path, const uint8_t *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(d, 1, n, f) != n) || fclose(f) != 0) abort();
}

/* Cut [*d, *d + *n) at the first SEP: the part before goes to part/part_n,
 * *d and *n move past it (no SEP: everything is the part). */
#define FZ_SEP "\n##es-fuzz##\n"
static inline void fz_cut(const uint8_t **d, size_t *n, const uint8_t **part, size_t *part_n)
{
    const size_t sl = sizeof FZ_SEP - 1;
    *part = *d;
    for (size_t i = 0; i + sl <= *n; i++)
        if (memcmp(*d + i, FZ_SEP, sl) == 0) {
            *part_n = i;
            *d += i + sl;
            *n -= i + sl;
            return;
        }
    *part_n = *n;
    *d += *n;
    *n = 0;
}

/* Open the dataset in (NULL on failure) and decode every variant of it. */
static inline es_dataset_t *fz_open_decode(const es_input_opt_t *in)
{
    es_dataset_t *ds = NULL;
    if (es_dataset_open(&ds, in) != ES_OK) return NULL;
    uint32_t n = es_dataset_n_samples_total(ds);
    uint8_t *g = malloc(n ? n : 1);
    for (uint32_t v = 0; g && v < es_dataset_n_variants(ds); v++)
        if (es_dataset_decode(ds, v, g) != ES_OK) break;
    free(g);
    return ds;
}

#endif
