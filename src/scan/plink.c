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

/* v's genotypes have fewer than two levels whatever is dropped */
static int one_level(const uint32_t lev[3]) { return (lev[0] > 0) + (lev[1] > 0) + (lev[2] > 0) < 2; }

/* Every variant's levels and missing samples, and the variants missing at
 * every sample (the index epi_losers walks). */
typedef struct {
    uint32_t (*lev)[3];
    size_t *moff, *soff;
    uint32_t *mpos, *svar;
    size_t max_miss;
} epi_miss_t;

/* The partners j, not monomorphic, at whose missing samples candidate i
 * (not monomorphic either, genotypes gi) keeps fewer than two levels.  For
 * each level L whose complement S_L among i's called samples could fit in
 * a partner's missing samples, only the variants missing at the sample of
 * S_L that the fewest variants miss can hold it.  Each j found gets
 * stamp[j] = i and is appended to out.  @return how many */
static uint32_t epi_losers(const es_dataset_t *ds, const epi_miss_t *x, uint32_t i, const uint8_t *gi,
                           uint32_t *stamp, uint32_t *out)
{
    uint32_t n = es_dataset_n_samples_total(ds), found = 0;
    const uint32_t *lv = x->lev[i];
    for (int L = 0; L < 3; L++) {
        uint32_t size = lv[0] + lv[1] + lv[2] - lv[L], best = UINT32_MAX;
        size_t fewest = SIZE_MAX;
        if (size == 0 || size > x->max_miss) continue;
        for (uint32_t s = 0; s < n; s++)
            if (gi[s] < 3 && gi[s] != L && x->soff[s + 1] - x->soff[s] < fewest && es_dataset_sample_used(ds, s)) {
                fewest = x->soff[s + 1] - x->soff[s];
                best = s;
            }
        if (best == UINT32_MAX) continue;
        for (size_t k = x->soff[best]; k < x->soff[best + 1]; k++) {
            uint32_t j = x->svar[k];
            if (j == i || stamp[j] == i || one_level(x->lev[j])) continue;
            if (loses_levels(lv, gi, x->mpos + x->moff[j], (uint32_t)(x->moff[j + 1] - x->moff[j]))) {
                stamp[j] = i;
                out[found++] = j;
            }
        }
    }
    return found;
}

/* Which pairs fail: a pair fails when either variant is left with one
 * genotype level among the samples called at both.  A monomorphic variant
 * fails with every partner (those pairs are counted by arithmetic).  A
 * variant i with two or more levels is left with one by partner j when,
 * for some level L, the set S_L of samples called at i with another
 * genotype is inside j's missing samples; that needs j to have at least
 * |S_L| missing calls, so only variants whose minor levels are no larger
 * than the largest missing count of any variant are candidates, and each
 * finds its partners through epi_losers' index.  A pair of two candidates
 * that both fail is counted by the first.  Candidates run in parallel;
 * the counts are sums of integers, the same for any thread count. */
int es_plink_epi_failed(const es_dataset_t *ds, uint64_t *failed, uint64_t *total)
{
    uint32_t m = es_dataset_n_variants(ds), n = es_dataset_n_samples_total(ds);
    int ret = ES_OK;
    epi_miss_t x = {NULL, NULL, NULL, NULL, NULL, 0};
    uint8_t *cand = calloc(m ? m : 1, 1);
    x.lev = malloc((size_t)(m ? m : 1) * sizeof *x.lev);
    x.moff = malloc(((size_t)m + 1) * sizeof *x.moff);
    x.soff = calloc((size_t)n + 2, sizeof *x.soff);
    *total = 0;
    if (!cand || !x.lev || !x.moff || !x.soff) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    memset(failed, 0, (size_t)m * sizeof *failed);
    /* pass 1: level counts and missing samples of every variant */
    if ((ret = es_dataset_levels(ds, x.lev, x.moff, &x.mpos))) goto out;
    uint64_t n_mono = 0, n_cand = 0;
    for (uint32_t v = 0; v < m; v++) {
        if (x.moff[v + 1] - x.moff[v] > x.max_miss) x.max_miss = x.moff[v + 1] - x.moff[v];
        n_mono += (uint64_t)one_level(x.lev[v]);
    }
    for (uint32_t v = 0; v < m; v++) {
        uint32_t c0 = x.lev[v][0], c1 = x.lev[v][1], c2 = x.lev[v][2];
        uint32_t big = c0 > c1 ? (c0 > c2 ? c0 : c2) : (c1 > c2 ? c1 : c2);
        cand[v] = !one_level(x.lev[v]) && c0 + c1 + c2 - big <= x.max_miss;
        n_cand += cand[v];
    }
    /* pairs with a monomorphic variant: all of them */
    for (uint32_t v = 0; v < m; v++) failed[v] = one_level(x.lev[v]) ? m - 1 : n_mono;
    *total = n_mono * (n_mono - (n_mono > 0)) / 2 + n_mono * (m - n_mono);
    if (!n_cand) goto out;
    /* the variants missing at each sample, in variant order (soff[s + 2]
     * counts first, then, shifted, is each sample's fill position) */
    for (size_t k = 0; k < x.moff[m]; k++) x.soff[x.mpos[k] + 2]++;
    for (uint32_t s = 0; s < n; s++) x.soff[s + 2] += x.soff[s + 1];
    if (!(x.svar = malloc((x.moff[m] ? x.moff[m] : 1) * sizeof *x.svar))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t v = 0; v < m; v++)
        for (size_t k = x.moff[v]; k < x.moff[v + 1]; k++) x.svar[x.soff[x.mpos[k] + 1]++] = v;
    /* pass 2: each candidate against the partners that could drop its levels */
    uint64_t pairs = 0;
    int err = ES_OK;
#pragma omp parallel reduction(+ : pairs)
    {
        uint8_t *gi = malloc(n ? n : 1), *gj = malloc(n ? n : 1);
        uint32_t *stamp = malloc((size_t)m * sizeof *stamp), *found = malloc((size_t)m * sizeof *found);
        int e = gi && gj && stamp && found ? ES_OK : ES_ERR_NOMEM;
        if (stamp)
            for (uint32_t v = 0; v < m; v++) stamp[v] = UINT32_MAX;
#pragma omp for schedule(dynamic, 64)
        for (int64_t ii = 0; ii < (int64_t)m; ii++) {
            uint32_t i = (uint32_t)ii;
            if (e || !cand[i]) continue;
            if ((e = es_dataset_decode(ds, i, gi))) continue;
            uint32_t nf = epi_losers(ds, &x, i, gi, stamp, found);
            for (uint32_t f = 0; f < nf; f++) {
                uint32_t j = found[f];
                /* a candidate j before i has counted the pair if j fails too */
                if (j < i && cand[j]) {
                    if ((e = es_dataset_decode(ds, j, gj))) break;
                    if (loses_levels(x.lev[j], gj, x.mpos + x.moff[i], (uint32_t)(x.moff[i + 1] - x.moff[i])))
                        continue;
                }
#pragma omp atomic
                failed[i]++;
#pragma omp atomic
                failed[j]++;
                pairs++;
            }
        }
        if (e) {
#pragma omp critical(es_epi_failed)
            if (!err) err = e;
        }
        free(gi);
        free(gj);
        free(stamp);
        free(found);
    }
    *total += pairs;
    ret = err;
out:
    free(cand);
    free(x.lev);
    free(x.moff);
    free(x.soff);
    free(x.mpos);
    free(x.svar);
    return ret;
}
