/* fuzz_libsvm.c -- the LIBSVM readers: the class reader ("LABEL INDEX:VALUE
 * ...") and the rule learner's multi-label one ("L1,L2 INDEX:VALUE ...").  The
 * first input byte picks the read-chunk size (0: 1 MiB; else that times 5
 * bytes, so records are cut across reads) and, by its low bit, the widths the
 * multi-label reader is asked for; the rest is the file.  Tables read are freed. */
#include "fuzz.h"
#include "table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const char *path = fz_path(0, "t.libsvm");
    fz_write(path, data + 1, size - 1);
    es_table_opt_t opt = {NULL, 16, NULL, NULL};
    size_t chunk = data[0] ? (size_t)data[0] * 5 : (size_t)1 << 20;
    es_dtable_t d;
    if (es_table_read_chunk(path, &opt, &d, chunk) == ES_OK) es_dtable_free(&d);
    es_ntable_t t;
    uint32_t n_lab;
    if (es_ntable_read_libsvm(path, data[0] & 1 ? 3 : 0, data[0] & 1 ? 2 : 0, &t, &n_lab) == ES_OK)
        es_ntable_free(&t);
    return 0;
}
