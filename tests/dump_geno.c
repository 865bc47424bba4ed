/* dump_geno.c -- print a PLINK fileset's decoded genotypes, for the oracle
 * tests (tests/oracle_decode.sh).  Uses only the public API.
 *
 *   dump_geno PREFIX [PHENO_FILE]
 *
 * One line per variant in .bim order, one space-separated value per sample in
 * .fam order: 0, 1, 2 copies of A1, or NA when missing (as plink1.9
 * --recode A counts).  A phenotype file is accepted because opening a dataset
 * needs cases and controls, which some test data lack in .fam column 6. */
#include <stdio.h>
#include <stdlib.h>

#include "epistream.h"

int main(int argc, char **argv)
{
    int ret = 1;
    es_dataset_t *ds = NULL;
    uint8_t *g = NULL;
    char *line = NULL;

    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: dump_geno PREFIX [PHENO_FILE]\n");
        return 2;
    }
    int rc = es_dataset_open_bfile(&ds, argv[1], argc == 3 ? argv[2] : NULL, NULL);
    if (rc != ES_OK) {
        fprintf(stderr, "dump_geno: %s: %s\n", argv[1], es_strerror(rc));
        goto out;
    }
    uint32_t m = es_dataset_n_variants(ds), n = es_dataset_n_samples_total(ds);
    g = malloc(n);
    line = malloc(3 * (size_t)n + 1); /* "NA " is the longest entry */
    if (!g || !line) {
        fprintf(stderr, "dump_geno: out of memory\n");
        goto out;
    }
    for (uint32_t v = 0; v < m; v++) {
        if ((rc = es_dataset_decode(ds, v, g)) != ES_OK) {
            fprintf(stderr, "dump_geno: variant %u: %s\n", v, es_strerror(rc));
            goto out;
        }
        char *p = line;
        for (uint32_t s = 0; s < n; s++) {
            if (s) *p++ = ' ';
            if (g[s] == 3) {
                *p++ = 'N';
                *p++ = 'A';
            } else {
                *p++ = (char)('0' + g[s]);
            }
        }
        *p++ = '\n';
        if (fwrite(line, 1, (size_t)(p - line), stdout) != (size_t)(p - line)) {
            perror("dump_geno: write");
            goto out;
        }
    }
    if (fflush(stdout) != 0) {
        perror("dump_geno: write");
        goto out;
    }
    ret = 0;
out:
    free(g);
    free(line);
    es_dataset_destroy(ds);
    return ret;
}
