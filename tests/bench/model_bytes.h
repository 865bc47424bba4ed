/* model_bytes.h -- the rule benchmarks' model in memory, as es_rules_model_write()
 * writes it, to compare two fits byte for byte (not a library interface). */
#ifndef ES_BENCH_MODEL_BYTES_H
#define ES_BENCH_MODEL_BYTES_H

#include <stdio.h>
#include <stdlib.h>

#include "rules.h"

/* The model file's bytes (*len of them; free() them); exits on failure. */
static inline char *bench_model_bytes(const es_rules_model_t *m, size_t *len)
{
    char *buf = NULL;
    FILE *fp = open_memstream(&buf, len);
    if (!fp || es_rules_model_write(m, fp)) exit(1);
    fclose(fp);
    return buf;
}

#endif
