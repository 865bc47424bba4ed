/* fuzz_vcf.c -- the VCF/BCF reader: the input is the file (plain, BGZF or
 * BCF; htslib tells them apart by their first bytes).  Opened as a dataset
 * without a phenotype requirement, every variant decoded. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_path(0, "d.vcf");
    fz_write(path, data, size);
    es_input_opt_t in;
    es_input_opt_init(&in);
    in.vcf = path;
    in.require_pheno = 0;
    es_dataset_destroy(fz_open_decode(&in));
    return 0;
}
