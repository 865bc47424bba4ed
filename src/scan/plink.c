/* plink.c -- PLINK 1.9 --fast-epistasis conventions that are not the
 * statistic itself: the variants it skips, the tests it counts as failed,
 * and how it names chromosomes (plink-ng 1.9/plink_ld.c, epistasis_report()).
 *
 * PLINK skips, before any pair, every variant of a haploid chromosome (X and
 * Y for human data; MT, XY and 0 are scanned) and, for BOOST, every variant
 * with fewer than two distinct called genotypes among the samples with a
 * phenotype.  A test fails when a variant of the pair is left with one
 * genotype level among the samples called at both (two empty levels); PLINK
 * writes it as nan and leaves it out of N_TOT and of its count of valid
 * tests. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scan.h"
#include "output.h"

/* the chromosome name without a "chr" prefix */
static const char *chr_bare(const char *c)
{
    return strncasecmp(c, "chr", 3) == 0 && c[3] ? c + 3 : c;
}

const char *es_plink_chr_code(const char *chr)
{
    const char *c = chr_bare(chr);
    if (!strcasecmp(c, "X")) return "23";
    if (!strcasecmp(c, "Y")) return "24";
    if (!strcasecmp(c, "XY")) return "25";
    if (!strcasecmp(c, "MT") || !strcasecmp(c, "M")) return "26";
    /* digits: without leading zeros, as PLINK prints chromosome numbers */
    const char *d = c;
    while (*d == '0' && d[1]) d++;
    for (const char *q = d; *q; q++)
        if (!isdigit((unsigned char)*q)) return chr;
    return d;
}

static int is_haploid(const char *chr)
{
    const char *c = es_plink_chr_code(chr);
    return !strcmp(c, "23") || !strcmp(c, "24");
}

int es_plink_epi_skip(es_dataset_t *ds, uint32_t *n_mono, uint32_t *n_haploid)
{
    uint32_t m = es_dataset_n_variants(ds);
    int ret = ES_OK;
    uint8_t *keep = malloc(m ? m : 1);
    uint32_t(*lev)[3] = malloc((size_t)(m ? m : 1) * sizeof *lev), *mpos = NULL;
    size_t *moff = malloc(((size_t)m + 1) * sizeof *moff);
    *n_mono = *n_haploid = 0;
    if (!keep || !lev || !moff) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    if ((ret = es_dataset_levels(ds, lev, moff, &mpos))) goto out;
    uint32_t kept = 0;
    for (uint32_t v = 0; v < m; v++) {
        keep[v] = 0;
        if (is_haploid(es_dataset_variant(ds, v).chr)) {
            (*n_haploid)++;
            continue;
        }
        if ((lev[v][0] > 0) + (lev[v][1] > 0) + (lev[v][2] > 0) < 2) {
            (*n_mono)++;
            continue;
        }
        keep[v] = 1;
        kept++;
    }
    if (kept < 2) {
        es_error("--plink-compat: %u variant(s) left after skipping %u with fewer than two "
                 "genotypes and %u on chromosomes X and Y, as PLINK does; a pair scan needs 2",
                 kept, *n_mono, *n_haploid);
        ret = ES_ERR_DATA;
        goto out;
    }
    if (kept < m) ret = es_filter_compact(ds->plink, keep);
out:
    free(keep);
    free(lev);
    free(moff);
    free(mpos);
    return ret;
}

/* Is variant v left with fewer than two genotype levels when the samples
 * missing at partner w are dropped?  lev: v's level counts; gv: v's
 * genotypes; miss: w's missing samples. */
static int loses_levels(const uint32_t lev[3], const uint8_t *gv, const uint32_t *miss,
                        uint32_t n_miss)
{
    uint32_t gone[3] = {0, 0, 0};
    for (uint32_t k = 0; k < n_miss; k++)
        if (gv[miss[k]] < 3) gone[gv[miss[k]]]++;
    return (lev[0] > gone[0]) + (lev[1] > gone[1]) + (lev[2] > gone[2]) < 2;
}

/* Which pairs fail: variant i is left with one genotype level by partner j
 * when, for some level L, every sample called at i with another genotype is
 * missing at j.  That needs j to have at least (called at i) - (largest
 * level of i) missing calls, so only variants whose minor levels are no
 * larger than the largest missing count of any variant (monomorphic ones
 * among them) are candidates; each is checked against every partner's list
 * of missing samples.  A pair is counted once, by its first candidate. */
int es_plink_epi_failed(const es_dataset_t *ds, uint64_t *failed, uint64_t *total)
{
    uint32_t m = es_dataset_n_variants(ds), n = es_dataset_n_samples_total(ds);
    int ret = ES_OK;
    uint8_t *gi = malloc(n ? n : 1), *gj = malloc(n ? n : 1);
    size_t *moff = malloc(((size_t)m + 1) * sizeof *moff), max_miss = 0;
    uint32_t *mpos = NULL;
    uint32_t(*lev)[3] = malloc((size_t)(m ? m : 1) * sizeof *lev);
    uint8_t *cand = calloc(m ? m : 1, 1);
    *total = 0;
    if (!gi || !gj || !moff || !lev || !cand) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    memset(failed, 0, (size_t)m * sizeof *failed);
    /* pass 1: level counts and missing samples of every variant */
    if ((ret = es_dataset_levels(ds, lev, moff, &mpos))) goto out;
    for (uint32_t v = 0; v < m; v++)
        if (moff[v + 1] - moff[v] > max_miss) max_miss = moff[v + 1] - moff[v];
    for (uint32_t v = 0; v < m; v++) {
        uint32_t c0 = lev[v][0], c1 = lev[v][1], c2 = lev[v][2];
        uint32_t big = c0 > c1 ? (c0 > c2 ? c0 : c2) : (c1 > c2 ? c1 : c2);
        cand[v] = c0 + c1 + c2 - big <= max_miss;
    }
/* pass 2: every candidate against every partner */
    for (uint32_t i = 0; i < m; i++) {
        if (!cand[i]) continue;
        if ((ret = es_dataset_decode(ds, i, gi))) goto out;
        for (uint32_t j = 0; j < m; j++) {
            if (j == i || !loses_levels(lev[i], gi, mpos + moff[j], (uint32_t)(moff[j + 1] - moff[j])))
                continue;
            /* a candidate j before i has counted the pair if j fails too */
            if (j < i && cand[j]) {
                if ((ret = es_dataset_decode(ds, j, gj))) goto out;
                if (loses_levels(lev[j], gj, mpos + moff[i], (uint32_t)(moff[i + 1] - moff[i]))) continue;
            }
            failed[i]++;
            failed[j]++;
            (*total)++;
        }
    }
out:
    free(gi);
    free(gj);
    free(moff);
    free(mpos);
    free(lev);
    free(cand);
    return ret;
}
