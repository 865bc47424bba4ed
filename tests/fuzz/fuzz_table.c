/* fuzz_table.c -- the CSV/TSV/ARFF table reader.  The first input byte picks
 * the options (bits 0-1: the extension .csv, .tsv, .arff or none (sniffed);
 * bits 2-3: the class column: the last, "1", "class" or "2"; bits 4-7: the
 * read-chunk size, small ones cutting records across reads), the rest is the
 * file.  A table read is freed. */
#include "fuzz.h"
#include "table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    static const char *const ext[4] = {"t.csv", "t.tsv", "t.arff", "t"};
    static const char *const cls[4] = {NULL, "1", "class", "2"};
    const char *path = fz_path(0, ext[data[0] & 3]);
    fz_write(path, data + 1, size - 1);
    es_table_opt_t opt = {cls[(data[0] >> 2) & 3], 8, NULL, NULL};
    unsigned c = data[0] >> 4;
    size_t chunk = c ? (size_t)c * 7 : (size_t)1 << 20;
    es_dtable_t d;
    if (es_table_read_chunk(path, &opt, &d, chunk) == ES_OK) es_dtable_free(&d);
    return 0;
}
