/* fuzz_pheno.c -- the phenotype file reader, matched against a fixed fileset
 * of four samples (F1 I1 .. F4 I4).  The first input byte picks the options
 * (bit 0: PLINK's --1 coding; bits 1-2: no column name, "T2D", "2" or "x"),
 * the rest is the file. */
#include "formats.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    static const char *const names[4] = {NULL, "T2D", "2", "x"};
    const char *fid[4] = {"F1", "F2", "F3", "F4"}, *iid[4] = {"I1", "I2", "I3", "I4"};
    char fam[] = "samples.fam";
    es_fileset_t p;
    memset(&p, 0, sizeof p);
    p.n_samples = 4;
    p.fid = fid;
    p.iid = iid;
    p.fam_path = fam;
    int coding01 = data[0] & 1;
    const char *name = names[(data[0] >> 1) & 3];
    const char *path = fz_path(0, "pheno.txt");
    fz_write(path, data + 1, size - 1);
    int8_t status[4];
    (void)es_pheno_read_coded(path, name, coding01, &p, status);
    return 0;
}
