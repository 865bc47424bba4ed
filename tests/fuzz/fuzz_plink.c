/* fuzz_plink.c -- the PLINK fileset reader (.fam, .bim, .bed) and what reads
 * its rows: the input is FAM SEP BIM SEP BED (SEP = FZ_SEP in fuzz.h).  The
 * fileset is opened without a phenotype requirement and every variant decoded,
 * then with PLINK's QC filters; each dataset that opens and is small is
 * scanned. */
#include "fuzz.h"

/* A small dataset is scanned: packing, counting, statistics and the top-k
 * see what the readers let through (a dataset without cases or controls
 * included: es_scan_create() must refuse it). */
static void scan_small(es_dataset_t *ds)
{
    if (es_dataset_n_variants(ds) > 64 || es_dataset_n_samples_total(ds) > 4096) return;
    es_opt_t opt;
    es_opt_init(&opt);
    opt.device = ES_DEVICE_CPU;
    opt.threads = 1;
    opt.top_k = 5;
    opt.p_threshold = 0.5;
    es_scan_t *scan = NULL;
    if (es_scan_create(&scan, ds, &opt) == ES_OK) (void)es_scan_run(scan);
    es_scan_destroy(scan);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *part[3];
    size_t part_n[3];
    static const char *const ext[3] = {"d.fam", "d.bim", "d.bed"};
    for (int k = 0; k < 3; k++) {
        fz_cut(&data, &size, &part[k], &part_n[k]);
        fz_write(fz_path(k, ext[k]), part[k], part_n[k]);
    }
    char prefix[128];
    snprintf(prefix, sizeof prefix, "%s/d", fz_root);

    es_input_opt_t in;
    es_input_opt_init(&in);
    in.bfile = prefix;
    in.require_pheno = 0;
    es_dataset_t *ds = fz_open_decode(&in);
    if (ds) {
        scan_small(ds);
        es_dataset_destroy(ds);
    }

    es_input_opt_init(&in);
    in.bfile = prefix;
    in.maf = 0.01;
    in.geno = 0.5;
    in.mind = 0.9;
    in.hwe = 1e-6;
    if (es_dataset_open(&ds, &in) == ES_OK) {
        scan_small(ds);
        es_dataset_destroy(ds);
    }
    return 0;
}
