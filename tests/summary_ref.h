/* summary_ref.h -- the per-variant summary writers' former printf code
 * (src/scan/output.c before the rows were formatted by hand on several
 * threads), kept as the oracle of tests/test_plink.c and the baseline of
 * tests/bench/bench_summary.c.  Include after output.h. */
#ifndef ES_TESTS_SUMMARY_REF_H
#define ES_TESTS_SUMMARY_REF_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

static inline void ref_summary(FILE *fp, const es_dataset_t *ds, const es_summary_t *s, const uint64_t *n_sig)
{
    fputs("CHR\tSNP\tPOS\tN_SIG\tN_TOT\tBEST_STAT\tBEST_P\tBEST_CHR\tBEST_SNP\tBEST_POS\n", fp);
    for (uint32_t v = 0; v < es_dataset_n_variants(ds); v++) {
        es_variant_info_t a = es_dataset_variant(ds, v);
        fprintf(fp, "%s\t%s\t%lld\t%llu\t%llu\t", a.chr, a.id, (long long)a.pos,
                (unsigned long long)(n_sig ? n_sig[v] : s[v].n_sig), (unsigned long long)s[v].n_tot);
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
}

static inline void ref_plink_summary(FILE *fp, const es_dataset_t *ds, int w, const es_summary_t *s, const uint64_t *n_sig,
                              const uint64_t *n_failed)
{
    fprintf(fp, " CHR %*s        N_SIG        N_TOT         PROP   BEST_CHISQ BEST_CHR %*s \n", w, "SNP", w,
            "BEST_SNP");
    for (uint32_t v = 0; v < es_dataset_n_variants(ds); v++) {
        es_variant_info_t a = es_dataset_variant(ds, v);
        uint64_t tot = s[v].n_tot - (n_failed ? n_failed[v] : 0);
        fprintf(fp, "%4s %*s   %10llu   %10llu ", es_plink_chr_code(a.chr), w, a.id, (unsigned long long)n_sig[v],
                (unsigned long long)tot);
        if (!tot || s[v].best_partner == UINT32_MAX) {
            fprintf(fp, "%12s           NA   NA%*sNA \n", "nan", w - 1, "");
            continue;
        }
        es_variant_info_t b = es_dataset_variant(ds, s[v].best_partner);
        fprintf(fp, "%12.4g %12.4g %4s %*s \n", (double)n_sig[v] / (double)tot, s[v].best_stat,
                es_plink_chr_code(b.chr), w, b.id);
    }
}

#endif
