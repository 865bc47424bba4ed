/* output.c -- the scan's result files: TSV and PLINK .epi.cc pair lines and the
 * per-variant summary (doc/CONTRACTS.md). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scan.h"
#include "output.h"


void es_write_pair_header(FILE *fp)
{
    fputs("CHR1\tSNP1\tPOS1\tCHR2\tSNP2\tPOS2\tSTAT\tP\tLOG10P\tN\tDF\n", fp);
}

void es_write_pair(FILE *fp, const es_dataset_t *ds, const es_pair_t *p)
{
    es_variant_info_t a = es_dataset_variant(ds, p->i), b = es_dataset_variant(ds, p->j);
    fprintf(fp, "%s\t%s\t%lld\t%s\t%s\t%lld\t%.12g\t", a.chr, a.id, (long long)a.pos, b.chr, b.id,
            (long long)b.pos, p->stat);
    if (isnan(p->p)) fprintf(fp, "NA\tNA\t%u\tNA\n", p->n);
    else fprintf(fp, "%.10g\t%.10g\t%u\t%d\n", p->p, p->log10p + 0.0, p->n, p->df);
}

/* PLINK pads identifiers to the longest one; we do the same so files line up. */
int es_plink_snp_width(const es_dataset_t *ds)
{
    size_t w = 4;
    for (uint32_t v = 0; v < es_dataset_n_variants(ds); v++) {
        size_t l = strlen(es_dataset_variant(ds, v).id);
        if (l > w) w = l;
    }
    return (int)w;
}

void es_write_plink_header(FILE *fp, int w)
{
    fprintf(fp, "CHR1 %*s CHR2 %*s %12s %4s %12s \n", w, "SNP1", w, "SNP2", "STAT", "DF", "P");
}

void es_write_plink_pair(FILE *fp, const es_dataset_t *ds, const es_pair_t *p, int w)
{
    es_variant_info_t a = es_dataset_variant(ds, p->i), b = es_dataset_variant(ds, p->j);
    fprintf(fp, "%4s %*s %4s %*s %12.6g %4d %12.4g \n", a.chr, w, a.id, b.chr, w, b.id, p->stat,
            p->df, p->p);
}

int es_write_summary(FILE *fp, const es_dataset_t *ds, const es_summary_t *s)
{
    fputs("CHR\tSNP\tPOS\tN_SIG\tN_TOT\tBEST_STAT\tBEST_P\tBEST_CHR\tBEST_SNP\tBEST_POS\n", fp);
    for (uint32_t v = 0; v < es_dataset_n_variants(ds); v++) {
        es_variant_info_t a = es_dataset_variant(ds, v);
        fprintf(fp, "%s\t%s\t%lld\t%llu\t%llu\t", a.chr, a.id, (long long)a.pos,
                (unsigned long long)s[v].n_sig, (unsigned long long)s[v].n_tot);
        if (s[v].best_partner == UINT32_MAX) {
            fputs("NA\tNA\tNA\tNA\tNA\n", fp);
            continue;
        }
        es_variant_info_t b = es_dataset_variant(ds, s[v].best_partner);
        fprintf(fp, "%.12g\t", s[v].best_stat);
        if (isnan(s[v].best_p)) fputs("NA", fp);
        else fprintf(fp, "%.10g", s[v].best_p);
        fprintf(fp, "\t%s\t%s\t%lld\n", b.chr, b.id, (long long)b.pos);
    }
    return ferror(fp) ? ES_ERR_IO : ES_OK;
}
