/* minimal.c -- the smallest complete use of libepistream, through the public
 * header only: scan a PLINK fileset and print the 10 best pairs.
 *
 *   cc minimal.c $(pkg-config --cflags --libs --static epistream) -o minimal
 *   ./minimal examples/data/example
 */
#include <stdio.h>

#include "epistream.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s BFILE_PREFIX\n", argv[0]);
        return 2;
    }
    es_dataset_t *ds = NULL;
    es_scan_t *scan = NULL;
    es_opt_t opt;
    int ret = es_dataset_open_bfile(&ds, argv[1], NULL, NULL);
    if (ret) goto out;
    es_opt_init(&opt);
    opt.top_k = 10;
    opt.device = ES_DEVICE_CPU;
    if ((ret = es_scan_create(&scan, ds, &opt))) goto out;
    if ((ret = es_scan_run(scan))) goto out;
    const es_pair_t *top = es_scan_top(scan);
    printf("SNP1\tSNP2\tSTAT\tP\n");
    for (size_t r = 0; r < es_scan_top_count(scan); r++)
        printf("%s\t%s\t%.6g\t%.4g\n", es_dataset_variant(ds, top[r].i).id,
               es_dataset_variant(ds, top[r].j).id, top[r].stat, top[r].p);
out:
    if (ret) fprintf(stderr, "minimal: %s\n", es_strerror(ret));
    es_scan_destroy(scan);
    es_dataset_destroy(ds);
    return ret ? 1 : 0;
}
