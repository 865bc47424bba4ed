/* fuzz_libsvm.c -- the LIBSVM reader ("LABEL INDEX:VALUE ...").  The first
 * input byte picks the read-chunk size (0: 1 MiB; else that times 5 bytes, so
 * records are cut across reads), the rest is the file.  A table read is freed. */
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
    return 0;
}
