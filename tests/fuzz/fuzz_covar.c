/* fuzz_covar.c -- the covariate file reader (src/regress/covar.c), matched against four samples
 * (F1 I1 .. F4 I4).  The first input byte picks --covar-name (bits 0-2: none, "PC1", "2",
 * "PC1-PC3", "1-2,AGE", "x", "3-1", ","), the rest is the file. */
#include "regress.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    static const char *const names[8] = {NULL, "PC1", "2", "PC1-PC3", "1-2,AGE", "x", "3-1", ","};
    const char *fid[4] = {"F1", "F2", "F3", "F4"}, *iid[4] = {"I1", "I2", "I3", "I4"};
    const char *path = fz_path(0, "covar.txt");
    fz_write(path, data + 1, size - 1);
    es_covar_t c;
    if (es_covar_read(path, names[data[0] & 7], 4, fid, iid, &c) == ES_OK) {
        /* what a caller reads: every value and flag, every name */
        volatile double sum = 0;
        for (uint32_t i = 0; i < 4 * c.k; i++) sum += c.val[i];
        for (uint32_t s = 0; s < 4; s++) sum += c.missing[s];
        for (uint32_t j = 0; j < c.k; j++) sum += (double)strlen(c.names[j]);
        (void)sum;
    }
    es_covar_free(&c);
    return 0;
}
