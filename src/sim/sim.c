/* sim.c -- the genotype simulator: PLINK 1 filesets with planted pure-epistasis pairs and
 * triples.
 *
 * Model.  Each variant v has a population A1 (minor) allele frequency p_v drawn uniformly in
 * [maf_min, maf_max]; genotypes are drawn under Hardy-Weinberg.  For each planted pair k of
 * variants (a, b), with x = copies of A1 and c = x - E[x] the centred dosage, take the logistic
 * penetrance s_k(x_a, x_b) = 1 / (1 + exp(-ln(effect) * c_a * c_b)) and keep only its interaction
 * part (the two-way ANOVA decomposition under the genotype frequencies):
 *
 *     f_k(x_a, x_b) = s_k(x_a, x_b) - E_b s_k(x_a, .) - E_a s_k(., x_b) + E s_k
 *     P(case | genotypes) = 1/2 + scale * sum_k f_k(x_a, x_b)
 *
 * E_b f_k(x_a, .) = E_a f_k(., x_b) = 0 exactly, so P(case | x_v) = P(case) = 1/2 for every single
 * variant: no marginal effect at all, in the population and therefore in the case-control sample.
 * Near P = 1/2, f_k ~ ln(effect)/4 * c_a c_b, i.e. the interaction log odds ratio per unit of
 * c_a c_b is ln(effect), as in the logit model.  scale is 1 unless the sum could leave [0, 1]
 * (very strong effects at rare alleles, or several pairs); then it shrinks just enough, with a
 * warning.
 *
 * Planted triples.  The three variants of a triple get A1 frequency 1/2 whatever the MAF range, so
 * each is heterozygous with probability exactly 1/2 (the thresholds of the genotype draw are exact
 * at 1/2) and h_v = [x_v == 1] are three independent fair bits.  The triple adds
 *
 *     t(x_a, x_b, x_c) = +d if h_a ^ h_b ^ h_c = 1, else -d,   d = 1 / (1 + exp(-ln(effect) / 2)) - 1/2
 *
 * to P(case) (scaled with the pairs' terms), so the odds ratio between XOR 1 and XOR 0 is effect.
 * The XOR of three independent fair bits is independent of any one and of any two of them: given
 * the genotypes of any two of the three variants (and of every other variant), t averages to 0.  No
 * single variant and no pair carries any signal, in the population and in the case-control sample;
 * only the 2x27 table of the three does.
 *
 * Case-control sampling: population individuals 0, 1, 2, ... are drawn and given a status from the
 * model; each is kept while its class (floor(N/2) cases, the rest controls) is not yet full.  The
 * kept individuals are placed in shuffled .fam order.  Only the planted variants' genotypes matter
 * for the status, so only the draw index of each kept individual is stored (8 bytes per sample):
 * a planted genotype is a counter-based hash of (seed, variant, draw index), recomputed on demand.
 * Every other variant is generated from its own xoshiro256** stream, seeded from (seed, variant),
 * and is independent of status.  Missing calls come from another per-variant stream, so the same
 * seed with a different --missing gives the same genotypes with holes.
 *
 * Quantitative trait (--qt).  No ascertainment: .fam sample s is population individual s, and
 *
 *     y = effect * sum_k c_a c_b  +  effect * sum_t (XOR_t - 1/2)  +  covariate effects  +  e,
 *
 * e ~ N(0, 1), c = x - E[x] the centred dosage (E[x] from the sampled genotype frequencies, as
 * above).  E[c_a c_b | x_a] = c_a E[c_b] = 0: the pair term has no marginal effect, and in the
 * regression y ~ 1 + a + b + a*b its coefficient of a*b is exactly effect (a*b = c_a c_b plus
 * terms in a, b and 1).  A triple adds effect/2 when its heterozygosity XOR is 1 and -effect/2
 * when 0.  y goes to .fam column 6 and PREFIX.pheno (%.9g).
 *
 * Covariates (--covariates K).  Population individual k has an ancestry u ~ U(0, 1) and, in this
 * order, PC1 = sqrt(12) (u - 1/2) (mean 0, variance 1), AGE ~ 50 + 10 N(0, 1), SEX 1 or 2 (the
 * .fam's sex then agrees), PC2, PC3, ... ~ N(0, 1) with no effect; all drawn from a stream keyed
 * by k.  The written ones act on the trait (QT, per unit) or on the log odds of being a case
 * (case/control: logit P = logit(the risk above) + the same sum):
 *
 *     0.5 PC1 + 0.02 (AGE - 50) + 0.3 (SEX - 1.5)
 *
 * They confound: one in ten of the non-planted variants (chosen by a hash of seed and variant,
 * listed in PREFIX.confounded) has A1 frequency p (1/2 + u) for an individual of ancestry u
 * (mean p), so its genotypes follow PC1, and PC1 moves the trait: without adjusting for PC1
 * they show marginal association (and pairs of them can show up), with it they do not.
 *
 * The .bed is streamed in chunks of variants generated in parallel (OpenMP) and written in order:
 * memory is O(N + chunk), and the bytes do not depend on the thread count.  All four files are
 * written as PREFIX.*.tmp and renamed only when everything succeeded.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/* ---- random numbers ----------------------------------------------------- */

#define SIM_GOLDEN 0x9e3779b97f4a7c15ULL

/* Independent streams are keyed by (seed, tag, index). */
enum {
    SIM_TAG_META = 1, /* per variant: MAF, alleles, position jitter */
    SIM_TAG_GENO,     /* per variant: genotypes of a non-planted variant */
    SIM_TAG_MISS,     /* per variant: missing calls */
    SIM_TAG_PLANT,    /* per variant: key of the planted-genotype hash */
    SIM_TAG_STATUS,   /* status draws of population individuals */
    SIM_TAG_PICK,     /* choice and grouping of the planted variants */
    SIM_TAG_FAM,      /* .fam order and sex */
    SIM_TAG_COVAR,    /* per population individual: ancestry and covariates */
    SIM_TAG_CONF,     /* per variant: whether its frequency follows ancestry */
    SIM_TAG_NOISE     /* per population individual: the trait's noise */
};

/* splitmix64 output function: a bijective 64-bit mixer */
static inline uint64_t sim_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t sim_key(uint64_t seed, uint64_t tag, uint64_t idx)
{
    uint64_t z = sim_mix(seed + SIM_GOLDEN);
    z = sim_mix(z + tag * SIM_GOLDEN);
    return sim_mix(z ^ (idx * 0xd1b54a32d192ed03ULL + SIM_GOLDEN));
}

/* xoshiro256** (Blackman & Vigna), seeded through splitmix64 */
typedef struct {
    uint64_t s[4];
} sim_rng_t;

static void sim_rng_seed(sim_rng_t *r, uint64_t key)
{
    for (int i = 0; i < 4; i++) {
        key += SIM_GOLDEN;
        r->s[i] = sim_mix(key);
    }
}

static inline uint64_t sim_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t sim_next(sim_rng_t *r)
{
    uint64_t *s = r->s;
    uint64_t out = sim_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = sim_rotl(s[3], 45);
    return out;
}

/* uniform in [0, 1) with 53 random bits */
static inline double sim_unif(uint64_t x)
{
    return (double)(x >> 11) * 0x1.0p-53;
}

/* uniform in [0, n), n < 2^32 (multiply-shift; the bias is below 2^-32) */
static inline uint32_t sim_below(uint64_t x, uint32_t n)
{
    return (uint32_t)(((x >> 32) * (uint64_t)n) >> 32);
}

/* ---- per-variant parameters ---------------------------------------------- */

typedef struct {
    double maf;     /* population frequency of A1 */
    uint64_t t2;    /* u32 < t2: two copies of A1 */
    uint64_t t12;   /* t2 <= u32 < t12: one copy; otherwise none */
    char a1, a2;
    uint32_t jitter; /* position offset inside the variant's slot */
} sim_meta_t;

#define SIM_TWO32 4294967296.0
#define SIM_POS_STEP 1000u

/* A1 frequency p and the Hardy-Weinberg thresholds of the genotype draw */
static void sim_meta_maf(sim_meta_t *m, double p)
{
    m->maf = p;
    m->t2 = (uint64_t)(p * p * SIM_TWO32 + 0.5);
    m->t12 = (uint64_t)(p * (2.0 - p) * SIM_TWO32 + 0.5);
}

/* half: a variant of a planted triple, whose A1 frequency is 1/2 */
static void sim_meta(const es_sim_opt_t *opt, uint32_t v, int half, sim_meta_t *m)
{
    static const char nuc[4] = {'A', 'C', 'G', 'T'};
    sim_rng_t r;
    sim_rng_seed(&r, sim_key(opt->seed, SIM_TAG_META, v));
    double p = opt->maf_min + (opt->maf_max - opt->maf_min) * sim_unif(sim_next(&r));
    if (p > opt->maf_max) p = opt->maf_max;
    sim_meta_maf(m, half ? 0.5 : p);
    uint32_t i1 = sim_below(sim_next(&r), 4);
    uint32_t i2 = (i1 + 1 + sim_below(sim_next(&r), 3)) & 3;
    m->a1 = nuc[i1];
    m->a2 = nuc[i2];
    m->jitter = sim_below(sim_next(&r), SIM_POS_STEP);
}

/* copies of A1 for a 32-bit uniform u */
static inline int sim_copies(uint64_t u, const sim_meta_t *m)
{
    return 2 - (int)(u >= m->t2) - (int)(u >= m->t12);
}

/* PLINK 2-bit code for a 32-bit uniform u: 00 two copies of A1, 10 one, 11 none */
static inline unsigned sim_code(uint64_t u, uint64_t t2, uint64_t t12)
{
    return ((unsigned)(u >= t2) << 1) | (unsigned)(u >= t12);
}

/* the genotype uniform of population individual k at planted variant with key `key` */
static inline uint64_t sim_planted_u(uint64_t key, uint64_t k)
{
    return sim_mix(key + (k + 1) * SIM_GOLDEN) >> 32;
}

/* chromosome 1..22 of variant v (even spread) and its position */
static void sim_locus(uint32_t v, uint32_t m, uint32_t jitter, int *chr, int64_t *pos)
{
    uint64_t c = (uint64_t)v * 22 / m;              /* 0-based chromosome */
    uint64_t first = (c * m + 21) / 22;             /* its first variant */
    uint64_t per_chr = ((c + 1) * m + 21) / 22 - first;
    uint64_t step = SIM_POS_STEP;
    /* keep positions within PLINK's int32 for huge simulated chromosomes */
    if (per_chr * step > 2000000000ULL) step = 2000000000ULL / per_chr;
    if (step == 0) step = 1;
    *chr = (int)c + 1;
    *pos = (int64_t)(1 + (v - first) * step + jitter % step);
}

/* ---- the planted pairs and triples --------------------------------------------- */

typedef struct {
    uint32_t va, vb;    /* variant indices, va < vb */
    sim_meta_t ma, mb;
    uint64_t ka, kb;    /* planted-genotype hash keys */
    double f[9];        /* interaction part of the penetrance, f[xa * 3 + xb] */
    double cen[2];      /* E[x_a], E[x_b] under the sampled genotype frequencies */
} sim_pair_t;

typedef struct {
    uint32_t v[3];   /* variant indices, ascending */
    uint64_t key[3]; /* planted-genotype hash keys */
} sim_triple_t;

/* What was planted: the pairs sorted by va, the triples by v[0]; the status model's constants. */
typedef struct {
    sim_pair_t *pairs;
    sim_triple_t *triples;
    sim_meta_t half;  /* the genotype thresholds of a triple's variants (A1 frequency 1/2) */
    double tri_d;     /* a triple's term: +tri_d when its XOR is 1, -tri_d when 0 */
    double scale;     /* factor of every interaction term (1 unless P(case) would leave [0, 1]) */
} sim_plan_t;

static int sim_cmp_pair(const void *x, const void *y)
{
    const sim_pair_t *a = x, *b = y;
    return (a->va > b->va) - (a->va < b->va);
}

static int sim_cmp_triple(const void *x, const void *y)
{
    const sim_triple_t *a = x, *b = y;
    return (a->v[0] > b->v[0]) - (a->v[0] < b->v[0]);
}

static int sim_cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* the double-centred logistic penetrance of one pair (see the file comment) */
static void sim_pair_table(sim_pair_t *pr, double beta)
{
    double w[2][3], c[2][3], s[9], row[3] = {0}, col[3] = {0}, all = 0;
    const sim_meta_t *m[2] = {&pr->ma, &pr->mb};
    for (int q = 0; q < 2; q++) {
        /* the genotype frequencies actually sampled (rounded thresholds), so that the
         * marginal cancellation is exact for the generator, not just for the model */
        w[q][2] = (double)m[q]->t2 / SIM_TWO32;
        w[q][1] = (double)(m[q]->t12 - m[q]->t2) / SIM_TWO32;
        w[q][0] = 1.0 - (double)m[q]->t12 / SIM_TWO32;
        double mean = w[q][1] + 2 * w[q][2];
        pr->cen[q] = mean;
        for (int x = 0; x < 3; x++) c[q][x] = x - mean;
    }
    for (int x = 0; x < 3; x++)
        for (int y = 0; y < 3; y++) {
            double sv = 1.0 / (1.0 + exp(-beta * c[0][x] * c[1][y]));
            s[x * 3 + y] = sv;
            row[x] += w[1][y] * sv;
            col[y] += w[0][x] * sv;
            all += w[0][x] * w[1][y] * sv;
        }
    for (int x = 0; x < 3; x++)
        for (int y = 0; y < 3; y++) pr->f[x * 3 + y] = s[x * 3 + y] - row[x] - col[y] + all;
}

/* Choose 2 * n_pairs + 3 * n_triples distinct variants (Floyd's algorithm with an open-addressing
 * set), shuffle them, take the pairs from the front and the triples from the rest, and fill the
 * model's constants.  With no triples the draws are those of a pairs-only simulation. */
static int sim_pick(const es_sim_opt_t *opt, sim_plan_t *plan)
{
    int ret = ES_OK;
    uint32_t k = 2 * opt->n_pairs + 3 * opt->n_triples, m = opt->n_variants;
    uint32_t *pick = NULL, *set = NULL;
    size_t cap = 16;
    double beta = log(opt->effect), hi = 0, lo = 0;
    plan->scale = 1.0;
    sim_meta_maf(&plan->half, 0.5);
    plan->tri_d = 1.0 / (1.0 + exp(-beta / 2)) - 0.5;
    if (k == 0) return ES_OK;
    while (cap < 2 * (size_t)k) cap <<= 1;
    pick = malloc((size_t)k * sizeof *pick);
    set = malloc(cap * sizeof *set);
    if (!pick || !set) {
        es_error("cannot allocate the planted-variant tables (%u pairs, %u triples)", opt->n_pairs,
                 opt->n_triples);
        ret = ES_ERR_NOMEM;
        goto out;
    }
    memset(set, 0xff, cap * sizeof *set); /* UINT32_MAX = empty; never a variant index */
    sim_rng_t r;
    sim_rng_seed(&r, sim_key(opt->seed, SIM_TAG_PICK, 0));
    for (uint32_t i = 0, j = m - k; i < k; i++, j++) {
        uint32_t t = sim_below(sim_next(&r), j + 1);
        for (int pass = 0; pass < 2; pass++) {
            size_t h = (size_t)(sim_mix(t) & (cap - 1));
            while (set[h] != UINT32_MAX && set[h] != t) h = (h + 1) & (cap - 1);
            if (set[h] == UINT32_MAX) {
                set[h] = t;
                pick[i] = t;
                break;
            }
            t = j; /* t already taken: Floyd takes j, which cannot be */
        }
    }
    /* Floyd's output order is not a uniform permutation: shuffle before grouping */
    for (uint32_t i = k - 1; i > 0; i--) {
        uint32_t t = sim_below(sim_next(&r), i + 1), tmp = pick[i];
        pick[i] = pick[t];
        pick[t] = tmp;
    }
    for (uint32_t p = 0; p < opt->n_pairs; p++) {
        sim_pair_t *pr = &plan->pairs[p];
        uint32_t a = pick[2 * p], b = pick[2 * p + 1];
        pr->va = a < b ? a : b;
        pr->vb = a < b ? b : a;
        sim_meta(opt, pr->va, 0, &pr->ma);
        sim_meta(opt, pr->vb, 0, &pr->mb);
        pr->ka = sim_key(opt->seed, SIM_TAG_PLANT, pr->va);
        pr->kb = sim_key(opt->seed, SIM_TAG_PLANT, pr->vb);
        sim_pair_table(pr, beta);
        double fmax = pr->f[0], fmin = pr->f[0];
        for (int c = 1; c < 9; c++) {
            if (pr->f[c] > fmax) fmax = pr->f[c];
            if (pr->f[c] < fmin) fmin = pr->f[c];
        }
        hi += fmax;
        lo += fmin;
    }
    qsort(plan->pairs, opt->n_pairs, sizeof *plan->pairs, sim_cmp_pair);
    const uint32_t *tp = pick + 2 * (size_t)opt->n_pairs;
    for (uint32_t t = 0; t < opt->n_triples; t++) {
        sim_triple_t *tr = &plan->triples[t];
        memcpy(tr->v, tp + 3 * (size_t)t, sizeof tr->v);
        qsort(tr->v, 3, sizeof *tr->v, sim_cmp_u32);
        for (int q = 0; q < 3; q++) tr->key[q] = sim_key(opt->seed, SIM_TAG_PLANT, tr->v[q]);
        hi += fabs(plan->tri_d);
        lo -= fabs(plan->tri_d);
    }
    qsort(plan->triples, opt->n_triples, sizeof *plan->triples, sim_cmp_triple);
    /* every genotype combination is possible, so hi and lo are the attainable extremes */
    if (opt->qt) goto out; /* additive trait: nothing to keep in [0, 1] */
    if (hi > 0.5) plan->scale = 0.5 / hi;
    if (lo < -0.5 && 0.5 / -lo < plan->scale) plan->scale = 0.5 / -lo;
    if (plan->scale < 1.0)
        es_warn("effect %g with %u pair(s) and %u triple(s) would push P(case) outside [0, 1] at "
                "these allele frequencies: interaction terms scaled by %.4g",
                opt->effect, opt->n_pairs, opt->n_triples, plan->scale);
out:
    free(pick);
    free(set);
    return ret;
}

/* ---- case-control sampling -------------------------------------------------- */

#define SIM_DRAW_BATCH 16384

/* ---- covariates ------------------------------------------------------------------ */

/* their effects, on the trait (QT) or the log odds (case/control): see the file comment */
#define SIM_B_PC1 0.5
#define SIM_B_AGE 0.02
#define SIM_B_SEX 0.3
#define SIM_CONF_FRACTION 0.1

/* a standard normal draw (Box-Muller; one of the pair) */
static double sim_gauss(sim_rng_t *r)
{
    double u1 = ((double)(sim_next(r) >> 11) + 0.5) * 0x1.0p-53; /* (0, 1) */
    double u2 = sim_unif(sim_next(r));
    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* The first k covariates of population individual `ind` into cov (k may be 0).  @return its
 * ancestry u. */
static double sim_covars(const es_sim_opt_t *opt, uint64_t ind, double *cov, uint32_t k)
{
    sim_rng_t r;
    sim_rng_seed(&r, sim_key(opt->seed, SIM_TAG_COVAR, ind));
    double u = sim_unif(sim_next(&r));
    double age = 50 + 10 * sim_gauss(&r);
    double sex = (double)(1 + (sim_next(&r) >> 63));
    for (uint32_t j = 0; j < k; j++)
        cov[j] = j == 0 ? sqrt(12.0) * (u - 0.5) : j == 1 ? age : j == 2 ? sex : sim_gauss(&r);
    return u;
}

/* the written covariates' effect for individual ind */
static double sim_cov_effect(const es_sim_opt_t *opt, uint64_t ind)
{
    double cov[3];
    uint32_t k = opt->n_covariates < 3 ? opt->n_covariates : 3;
    sim_covars(opt, ind, cov, k);
    double e = 0;
    if (k >= 1) e += SIM_B_PC1 * cov[0];
    if (k >= 2) e += SIM_B_AGE * (cov[1] - 50);
    if (k >= 3) e += SIM_B_SEX * (cov[2] - 1.5);
    return e;
}

/* whether non-planted variant v's A1 frequency follows ancestry */
static int sim_confounded(const es_sim_opt_t *opt, uint32_t v)
{
    return opt->n_covariates > 0 &&
           sim_unif(sim_key(opt->seed, SIM_TAG_CONF, v)) < SIM_CONF_FRACTION;
}

/* P(case) of population individual k under the plan */
static double sim_risk(const es_sim_opt_t *opt, const sim_plan_t *plan, uint64_t k)
{
    double risk = 0;
    for (uint32_t p = 0; p < opt->n_pairs; p++) {
        const sim_pair_t *pr = &plan->pairs[p];
        int xa = sim_copies(sim_planted_u(pr->ka, k), &pr->ma);
        int xb = sim_copies(sim_planted_u(pr->kb, k), &pr->mb);
        risk += pr->f[xa * 3 + xb];
    }
    for (uint32_t t = 0; t < opt->n_triples; t++) {
        const sim_triple_t *tr = &plan->triples[t];
        int z = 0;
        for (int q = 0; q < 3; q++) z ^= sim_copies(sim_planted_u(tr->key[q], k), &plan->half) == 1;
        risk += z ? plan->tri_d : -plan->tri_d;
    }
    double r = 0.5 + plan->scale * risk;
    if (!opt->n_covariates) return r;
    /* the covariates shift the log odds; clamp so that a risk of exactly 0 or 1 stays finite */
    if (r < 1e-12) r = 1e-12;
    if (r > 1 - 1e-12) r = 1 - 1e-12;
    return 1 / (1 + exp(-(log(r / (1 - r)) + sim_cov_effect(opt, k))));
}

/* QT: .fam sample s is population individual s; its trait into y[s] */
static void sim_trait(const es_sim_opt_t *opt, const sim_plan_t *plan, uint64_t *idx, double *y)
{
    uint32_t n = opt->n_samples;
#pragma omp parallel for schedule(static)
    for (uint32_t s = 0; s < n; s++) {
        uint64_t k = s;
        double v = 0;
        idx[s] = k;
        for (uint32_t p = 0; p < opt->n_pairs; p++) {
            const sim_pair_t *pr = &plan->pairs[p];
            int xa = sim_copies(sim_planted_u(pr->ka, k), &pr->ma);
            int xb = sim_copies(sim_planted_u(pr->kb, k), &pr->mb);
            v += opt->effect * (xa - pr->cen[0]) * (xb - pr->cen[1]);
        }
        for (uint32_t t = 0; t < opt->n_triples; t++) {
            const sim_triple_t *tr = &plan->triples[t];
            int z = 0;
            for (int q = 0; q < 3; q++) z ^= sim_copies(sim_planted_u(tr->key[q], k), &plan->half) == 1;
            v += opt->effect * (z ? 0.5 : -0.5);
        }
        if (opt->n_covariates) v += sim_cov_effect(opt, k);
        sim_rng_t r;
        sim_rng_seed(&r, sim_key(opt->seed, SIM_TAG_NOISE, k));
        y[s] = v + sim_gauss(&r);
    }
}

/* Draw population individuals until floor(N/2) cases and the rest controls are kept; place them
 * in shuffled order: idx[s] = draw index of .fam sample s, status[s] = 1 case / 0 control. */
static int sim_sample(const es_sim_opt_t *opt, const sim_plan_t *plan, uint64_t *idx,
                      uint8_t *status)
{
    int ret = ES_OK;
    uint32_t n = opt->n_samples, n_case = n / 2, n_ctrl = n - n_case, got_case = 0, got_ctrl = 0;
    uint64_t *case_idx = malloc((size_t)n_case * sizeof *case_idx);
    uint64_t *ctrl_idx = malloc((size_t)n_ctrl * sizeof *ctrl_idx);
    uint8_t *st = malloc(SIM_DRAW_BATCH);
    if (!case_idx || !ctrl_idx || !st) {
        es_error("cannot allocate the sample tables (%u samples)", n);
        ret = ES_ERR_NOMEM;
        goto out;
    }
    uint64_t skey = sim_key(opt->seed, SIM_TAG_STATUS, 0);
    for (uint64_t base = 0; got_case < n_case || got_ctrl < n_ctrl; base += SIM_DRAW_BATCH) {
        /* statuses are a pure function of the draw index: parallel and deterministic */
#pragma omp parallel for schedule(static)
        for (int t = 0; t < SIM_DRAW_BATCH; t++) {
            uint64_t k = base + (uint64_t)t;
            st[t] = sim_unif(sim_mix(skey + (k + 1) * SIM_GOLDEN)) < sim_risk(opt, plan, k);
        }
        for (uint32_t t = 0; t < SIM_DRAW_BATCH; t++) {
            if (st[t] && got_case < n_case) case_idx[got_case++] = base + t;
            else if (!st[t] && got_ctrl < n_ctrl) ctrl_idx[got_ctrl++] = base + t;
        }
    }
    /* shuffled .fam order, so that cases are not contiguous */
    sim_rng_t r;
    sim_rng_seed(&r, sim_key(opt->seed, SIM_TAG_FAM, 0));
    for (uint32_t s = 0; s < n; s++) status[s] = s < n_case;
    for (uint32_t s = n - 1; s > 0; s--) {
        uint32_t t = sim_below(sim_next(&r), s + 1);
        uint8_t tmp = status[s];
        status[s] = status[t];
        status[t] = tmp;
    }
    got_case = got_ctrl = 0;
    for (uint32_t s = 0; s < n; s++)
        idx[s] = status[s] ? case_idx[got_case++] : ctrl_idx[got_ctrl++];
out:
    free(case_idx);
    free(ctrl_idx);
    free(st);
    return ret;
}

/* ---- genotype rows ---------------------------------------------------------- */

/* One .bed row of variant v.  planted: NULL, or the hash key of a planted variant.  anc: NULL,
 * or the ancestry of each .fam sample, which a confounded variant's frequency follows. */
static void sim_row(const es_sim_opt_t *opt, uint32_t v, const sim_meta_t *m,
                    const uint64_t *planted_key, const uint64_t *idx, const double *anc,
                    uint8_t *row)
{
    uint32_t n = opt->n_samples, full = n / 4, rest = n % 4;
    uint64_t t2 = m->t2, t12 = m->t12;
    if (!planted_key && anc && sim_confounded(opt, v)) {
        sim_rng_t g;
        sim_rng_seed(&g, sim_key(opt->seed, SIM_TAG_GENO, v));
        memset(row, 0, full + (rest != 0));
        for (uint32_t s = 0; s < n; s++) {
            double p = m->maf * (0.5 + anc[s]);
            uint64_t u = sim_next(&g) >> 32;
            unsigned code = sim_code(u, (uint64_t)(p * p * SIM_TWO32 + 0.5),
                                     (uint64_t)(p * (2.0 - p) * SIM_TWO32 + 0.5));
            row[s >> 2] |= (uint8_t)(code << (2 * (s & 3)));
        }
    } else if (!planted_key) {
        sim_rng_t g;
        sim_rng_seed(&g, sim_key(opt->seed, SIM_TAG_GENO, v));
        for (uint32_t b = 0; b < full; b++) {
            uint64_t x = sim_next(&g), y = sim_next(&g);
            row[b] = (uint8_t)(sim_code(x & 0xffffffffu, t2, t12) |
                               sim_code(x >> 32, t2, t12) << 2 |
                               sim_code(y & 0xffffffffu, t2, t12) << 4 |
                               sim_code(y >> 32, t2, t12) << 6);
        }
        if (rest) {
            uint64_t x = sim_next(&g), y = sim_next(&g);
            uint64_t u[4] = {x & 0xffffffffu, x >> 32, y & 0xffffffffu, y >> 32};
            unsigned byte = 0;
            for (uint32_t i = 0; i < rest; i++) byte |= sim_code(u[i], t2, t12) << (2 * i);
            row[full] = (uint8_t)byte;
        }
    } else {
        uint64_t key = *planted_key;
        memset(row, 0, full + (rest != 0));
        for (uint32_t s = 0; s < n; s++) {
            unsigned code = sim_code(sim_planted_u(key, idx[s]), t2, t12);
            row[s >> 2] |= (uint8_t)(code << (2 * (s & 3)));
        }
    }
    if (opt->missing > 0) {
        uint64_t tm = (uint64_t)(opt->missing * SIM_TWO32 + 0.5);
        sim_rng_t g;
        sim_rng_seed(&g, sim_key(opt->seed, SIM_TAG_MISS, v));
        for (uint32_t s = 0; s < n; s += 2) {
            uint64_t x = sim_next(&g);
            for (uint32_t h = 0; h < 2 && s + h < n; h++) {
                uint64_t u = h ? x >> 32 : x & 0xffffffffu;
                if (u < tm) {
                    unsigned sh = 2 * ((s + h) & 3);
                    row[(s + h) >> 2] = (uint8_t)((row[(s + h) >> 2] & ~(3u << sh)) | (1u << sh));
                }
            }
        }
    }
}

/* ---- files ---------------------------------------------------------------------- */

/* the first four always; .pheno with --qt; .covar and .confounded with covariates */
enum { SIM_BED, SIM_BIM, SIM_FAM, SIM_TRUTH, SIM_PHENO, SIM_COVAR, SIM_CONF, SIM_NFILES };
static const char *const sim_ext[SIM_NFILES] = {".bed", ".bim", ".fam", ".truth",
                                                ".pheno", ".covar", ".confounded"};

static int sim_write_fail(const char *path)
{
    es_error("%s: write failed: %s", path, strerror(errno));
    return ES_ERR_IO;
}

/* Case/control: status; QT: y (column 6, %.9g).  With a SEX covariate the .fam's sex is it. */
static int sim_write_fam(const es_sim_opt_t *opt, const uint8_t *status, const double *y,
                         const uint64_t *idx, FILE *f, const char *path)
{
    sim_rng_t r;
    sim_rng_seed(&r, sim_key(opt->seed, SIM_TAG_FAM, 1));
    for (uint32_t s = 0; s < opt->n_samples; s++) {
        int sex = 1 + (int)sim_below(sim_next(&r), 2);
        if (opt->n_covariates >= 3) {
            double cov[3];
            sim_covars(opt, idx[s], cov, 3);
            sex = (int)cov[2];
        }
        int w = y ? fprintf(f, "ind%u ind%u 0 0 %d %.9g\n", s + 1, s + 1, sex, y[s])
                  : fprintf(f, "ind%u ind%u 0 0 %d %d\n", s + 1, s + 1, sex, status[s] ? 2 : 1);
        if (w < 0) return sim_write_fail(path);
    }
    return ES_OK;
}

/* PREFIX.pheno: "FID IID QT" and a line per sample */
static int sim_write_pheno(const es_sim_opt_t *opt, const double *y, FILE *f, const char *path)
{
    if (fputs("FID IID QT\n", f) < 0) return sim_write_fail(path);
    for (uint32_t s = 0; s < opt->n_samples; s++)
        if (fprintf(f, "ind%u ind%u %.9g\n", s + 1, s + 1, y[s]) < 0) return sim_write_fail(path);
    return ES_OK;
}

/* PREFIX.covar: "FID IID PC1 AGE SEX PC2 ..." and a line per sample */
static int sim_write_covar(const es_sim_opt_t *opt, const uint64_t *idx, FILE *f, const char *path)
{
    uint32_t k = opt->n_covariates;
    double *cov = malloc(k * sizeof *cov);
    if (!cov) {
        es_error("out of memory");
        return ES_ERR_NOMEM;
    }
    int ret = ES_OK;
    if (fputs("FID IID", f) < 0) ret = sim_write_fail(path);
    for (uint32_t j = 0; j < k && ret == ES_OK; j++) {
        int w = j == 0 ? fputs(" PC1", f) : j == 1 ? fputs(" AGE", f) : j == 2 ? fputs(" SEX", f)
                                                                      : fprintf(f, " PC%u", j - 1);
        if (w < 0) ret = sim_write_fail(path);
    }
    if (ret == ES_OK && fputc('\n', f) == EOF) ret = sim_write_fail(path);
    for (uint32_t s = 0; s < opt->n_samples && ret == ES_OK; s++) {
        sim_covars(opt, idx[s], cov, k);
        if (fprintf(f, "ind%u ind%u", s + 1, s + 1) < 0) ret = sim_write_fail(path);
        for (uint32_t j = 0; j < k && ret == ES_OK; j++)
            if (fprintf(f, " %.9g", cov[j]) < 0) ret = sim_write_fail(path);
        if (ret == ES_OK && fputc('\n', f) == EOF) ret = sim_write_fail(path);
    }
    free(cov);
    return ret;
}

/* The pairs' header and rows; then, only when triples were planted (so that a pairs-only file is
 * what it always was), the triples' own header and rows (11 fields against 8).  EFFECT is the
 * requested odds ratio; SCALE the factor the interaction terms were shrunk by to keep P(case) in
 * [0, 1] (1 when they were not). */
static int sim_write_truth(const es_sim_opt_t *opt, const sim_plan_t *plan, FILE *f,
                           const char *path)
{
    if (fputs("SNP1\tSNP2\tINDEX1\tINDEX2\tMAF1\tMAF2\tEFFECT\tSCALE\n", f) < 0)
        return sim_write_fail(path);
    for (uint32_t p = 0; p < opt->n_pairs; p++) {
        const sim_pair_t *pr = &plan->pairs[p];
        if (fprintf(f, "snp%u\tsnp%u\t%u\t%u\t%.6f\t%.6f\t%g\t%.4g\n", pr->va + 1, pr->vb + 1,
                    pr->va, pr->vb, pr->ma.maf, pr->mb.maf, opt->effect, plan->scale) < 0)
            return sim_write_fail(path);
    }
    if (opt->n_triples &&
        fputs("SNP1\tSNP2\tSNP3\tINDEX1\tINDEX2\tINDEX3\tMAF1\tMAF2\tMAF3\tEFFECT\tSCALE\n", f) < 0)
        return sim_write_fail(path);
    for (uint32_t t = 0; t < opt->n_triples; t++) {
        const uint32_t *v = plan->triples[t].v;
        double maf = plan->half.maf;
        if (fprintf(f, "snp%u\tsnp%u\tsnp%u\t%u\t%u\t%u\t%.6f\t%.6f\t%.6f\t%g\t%.4g\n", v[0] + 1,
                    v[1] + 1, v[2] + 1, v[0], v[1], v[2], maf, maf, maf, opt->effect,
                    plan->scale) < 0)
            return sim_write_fail(path);
    }
    return ES_OK;
}

static int sim_cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* the first position in the sorted planted list pv[0..np) whose variant is >= v */
static uint32_t sim_planted_pos(const uint64_t *pv, uint32_t np, uint32_t v)
{
    uint32_t lo = 0, hi = np;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (pv[mid] >> 1 < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static int sim_planted(const uint64_t *pv, uint32_t np, uint32_t v)
{
    uint32_t lo = sim_planted_pos(pv, np, v);
    return lo < np && pv[lo] >> 1 == v;
}

/* bytes of .bed generated per chunk (then written in order) */
#define SIM_CHUNK_BYTES (64u << 20)

static int sim_write_bed_bim(const es_sim_opt_t *opt, const sim_plan_t *plan, const uint64_t *idx,
                             const double *anc, FILE *bed, const char *bed_path, FILE *bim,
                             const char *bim_path, FILE *conf, const char *conf_path)
{
    int ret = ES_OK;
    uint32_t m = opt->n_variants, np = 2 * opt->n_pairs + 3 * opt->n_triples;
    size_t bpv = ((size_t)opt->n_samples + 3) / 4;
    size_t chunk = SIM_CHUNK_BYTES / bpv;
    if (chunk < 1) chunk = 1;
    if (chunk > m) chunk = m;
    uint8_t *buf = malloc(chunk * bpv);
    sim_meta_t *meta = malloc(chunk * sizeof *meta);
    uint64_t *pv = malloc((np ? np : 1) * sizeof *pv);      /* planted variants, sorted: index << 1
                                                                | 1 for a triple's (MAF 1/2) */
    uint64_t *pkey = malloc((np ? np : 1) * sizeof *pkey);  /* their hash keys */
    if (!buf || !meta || !pv || !pkey) {
        es_error("cannot allocate the %zu-byte genotype buffer", chunk * bpv);
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t p = 0; p < opt->n_pairs; p++) {
        pv[2 * p] = (uint64_t)plan->pairs[p].va << 1;
        pv[2 * p + 1] = (uint64_t)plan->pairs[p].vb << 1;
    }
    for (uint32_t t = 0; t < opt->n_triples; t++)
        for (int q = 0; q < 3; q++)
            pv[2 * (size_t)opt->n_pairs + 3 * (size_t)t + q] = (uint64_t)plan->triples[t].v[q] << 1 | 1;
    qsort(pv, np, sizeof *pv, sim_cmp_u64);
    for (uint32_t i = 0; i < np; i++) pkey[i] = sim_key(opt->seed, SIM_TAG_PLANT, pv[i] >> 1);

    static const uint8_t magic[3] = {0x6c, 0x1b, 0x01};
    if (fwrite(magic, 1, 3, bed) != 3) {
        ret = sim_write_fail(bed_path);
        goto out;
    }
    for (uint32_t first = 0; first < m; first += (uint32_t)chunk) {
        uint32_t count = (uint32_t)(m - first < chunk ? m - first : chunk);
#pragma omp parallel for schedule(dynamic, 1)
        for (uint32_t i = 0; i < count; i++) {
            uint32_t v = first + i;
            uint32_t lo = sim_planted_pos(pv, np, v);
            int planted = lo < np && pv[lo] >> 1 == v;
            const uint64_t *key = planted ? &pkey[lo] : NULL;
            sim_meta(opt, v, planted && (pv[lo] & 1), &meta[i]);
            sim_row(opt, v, &meta[i], key, idx, anc, buf + (size_t)i * bpv);
        }
        if (fwrite(buf, bpv, count, bed) != count) {
            ret = sim_write_fail(bed_path);
            goto out;
        }
        for (uint32_t i = 0; i < count; i++) {
            int chr;
            int64_t pos;
            sim_locus(first + i, m, meta[i].jitter, &chr, &pos);
            if (fprintf(bim, "%d\tsnp%u\t0\t%lld\t%c\t%c\n", chr, first + i + 1, (long long)pos,
                        meta[i].a1, meta[i].a2) < 0) {
                ret = sim_write_fail(bim_path);
                goto out;
            }
            if (conf && !sim_planted(pv, np, first + i) && sim_confounded(opt, first + i) &&
                fprintf(conf, "snp%u\n", first + i + 1) < 0) {
                ret = sim_write_fail(conf_path);
                goto out;
            }
        }
    }
out:
    free(buf);
    free(meta);
    free(pv);
    free(pkey);
    return ret;
}

/* ---- public ------------------------------------------------------------------- */

void es_sim_opt_init(es_sim_opt_t *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->n_samples = 0;  /* must be set */
    opt->n_variants = 0; /* must be set */
    opt->n_pairs = 1;
    opt->n_triples = 0;
    opt->effect = 2.0;
    opt->missing = 0.0;
    opt->maf_min = 0.05;
    opt->maf_max = 0.5;
    opt->seed = 1;
    opt->qt = 0;
    opt->n_covariates = 0;
}

#define SIM_MAX_COVARIATES 1000u

static int sim_opt_check(const es_sim_opt_t *opt)
{
    if (opt->n_samples < 2) {
        es_error("the number of samples must be at least 2 (got %u)", opt->n_samples);
        return ES_ERR_ARG;
    }
    if (opt->n_variants < 1) {
        es_error("the number of variants must be at least 1 (got 0)");
        return ES_ERR_ARG;
    }
    unsigned long long need = 2 * (unsigned long long)opt->n_pairs + 3 * (unsigned long long)opt->n_triples;
    if (opt->n_variants < need) {
        if (opt->n_triples)
            es_error("%u planted pairs and %u planted triples need at least %llu variants (2 a pair, "
                     "3 a triple, all distinct; got %u)", opt->n_pairs, opt->n_triples, need,
                     opt->n_variants);
        else
            es_error("%u planted pairs need at least %llu variants (got %u)", opt->n_pairs, need,
                     opt->n_variants);
        return ES_ERR_ARG;
    }
    if (opt->qt && !isfinite(opt->effect)) {
        es_error("the interaction coefficient must be a finite number (got %g)", opt->effect);
        return ES_ERR_ARG;
    }
    if (!opt->qt && (!(opt->effect > 0) || !isfinite(opt->effect))) {
        es_error("the interaction odds ratio must be a finite number > 0 (got %g)", opt->effect);
        return ES_ERR_ARG;
    }
    if (opt->n_covariates > SIM_MAX_COVARIATES) {
        es_error("at most %u covariates (got %u)", SIM_MAX_COVARIATES, opt->n_covariates);
        return ES_ERR_ARG;
    }
    if (!(opt->missing >= 0 && opt->missing < 1)) {
        es_error("the missing-call rate must be in [0, 1) (got %g)", opt->missing);
        return ES_ERR_ARG;
    }
    if (!(opt->maf_min > 0 && opt->maf_min <= opt->maf_max && opt->maf_max <= 0.5)) {
        es_error("minor allele frequencies need 0 < maf-min <= maf-max <= 0.5 "
                 "(got %g and %g)", opt->maf_min, opt->maf_max);
        return ES_ERR_ARG;
    }
    return ES_OK;
}

int es_sim_write(const es_sim_opt_t *opt, const char *prefix)
{
    int ret = ES_OK, renamed = 0;
    char *path[SIM_NFILES] = {NULL}, *tmp[SIM_NFILES] = {NULL};
    FILE *f[SIM_NFILES] = {NULL};
    sim_plan_t plan = {NULL, NULL, {0}, 0.0, 1.0};
    uint64_t *idx = NULL;
    uint8_t *status = NULL;
    double *y = NULL, *anc = NULL; /* the QT; each sample's ancestry (with covariates) */
    int want[SIM_NFILES] = {1, 1, 1, 1, 0, 0, 0};

    if (!opt || !prefix || !*prefix) {
        es_error("no options or no output prefix");
        return ES_ERR_ARG;
    }
    if ((ret = sim_opt_check(opt)) != ES_OK) return ret;
    want[SIM_PHENO] = opt->qt != 0;
    want[SIM_COVAR] = want[SIM_CONF] = opt->n_covariates > 0;

    size_t plen = strlen(prefix);
    for (int i = 0; i < SIM_NFILES; i++) {
        path[i] = malloc(plen + 16);
        tmp[i] = malloc(plen + 16);
        if (!path[i] || !tmp[i]) {
            es_error("out of memory");
            ret = ES_ERR_NOMEM;
            goto out;
        }
        snprintf(path[i], plen + 16, "%s%s", prefix, sim_ext[i]);
        snprintf(tmp[i], plen + 16, "%s%s.tmp", prefix, sim_ext[i]);
    }
    plan.pairs = calloc(opt->n_pairs ? opt->n_pairs : 1, sizeof *plan.pairs);
    plan.triples = calloc(opt->n_triples ? opt->n_triples : 1, sizeof *plan.triples);
    idx = malloc((size_t)opt->n_samples * sizeof *idx);
    status = malloc(opt->n_samples);
    if (!plan.pairs || !plan.triples || !idx || !status) {
        es_error("cannot allocate the simulator's tables (%u samples, %u pairs, %u triples)",
                 opt->n_samples, opt->n_pairs, opt->n_triples);
        ret = ES_ERR_NOMEM;
        goto out;
    }
    if ((opt->qt && !(y = malloc((size_t)opt->n_samples * sizeof *y))) ||
        (opt->n_covariates && !(anc = malloc((size_t)opt->n_samples * sizeof *anc)))) {
        es_error("cannot allocate the trait and covariates of %u samples", opt->n_samples);
        ret = ES_ERR_NOMEM;
        goto out;
    }
    if ((ret = sim_pick(opt, &plan)) != ES_OK) goto out;
    if (opt->qt) sim_trait(opt, &plan, idx, y);
    else if ((ret = sim_sample(opt, &plan, idx, status)) != ES_OK) goto out;
    for (uint32_t s = 0; anc && s < opt->n_samples; s++) anc[s] = sim_covars(opt, idx[s], NULL, 0);

    for (int i = 0; i < SIM_NFILES; i++) {
        if (!want[i]) continue;
        f[i] = fopen(tmp[i], i == SIM_BED ? "wb" : "w");
        if (!f[i]) {
            es_error("cannot create %s: %s", tmp[i], strerror(errno));
            ret = ES_ERR_IO;
            goto out;
        }
    }
    if ((ret = sim_write_fam(opt, status, y, idx, f[SIM_FAM], tmp[SIM_FAM])) != ES_OK) goto out;
    if ((ret = sim_write_truth(opt, &plan, f[SIM_TRUTH], tmp[SIM_TRUTH])) != ES_OK) goto out;
    if (y && (ret = sim_write_pheno(opt, y, f[SIM_PHENO], tmp[SIM_PHENO])) != ES_OK) goto out;
    if (anc && (ret = sim_write_covar(opt, idx, f[SIM_COVAR], tmp[SIM_COVAR])) != ES_OK) goto out;
    if ((ret = sim_write_bed_bim(opt, &plan, idx, anc, f[SIM_BED], tmp[SIM_BED], f[SIM_BIM],
                                 tmp[SIM_BIM], f[SIM_CONF], tmp[SIM_CONF])) != ES_OK)
        goto out;
    for (int i = 0; i < SIM_NFILES; i++) {
        if (!want[i]) continue;
        FILE *fi = f[i];
        f[i] = NULL;
        if (fclose(fi) != 0) {
            ret = sim_write_fail(tmp[i]);
            goto out;
        }
    }
    for (; renamed < SIM_NFILES; renamed++) {
        if (!want[renamed]) continue;
        if (rename(tmp[renamed], path[renamed]) != 0) {
            es_error("cannot rename %s to %s: %s", tmp[renamed], path[renamed], strerror(errno));
            ret = ES_ERR_IO;
            goto out;
        }
    }
out:
    for (int i = 0; i < SIM_NFILES; i++) {
        if (f[i]) fclose(f[i]);
        if (ret != ES_OK) {
            /* leave nothing half-written: neither temporaries nor a partial renamed set */
            if (want[i] && tmp[i]) remove(tmp[i]);
            if (i < renamed && want[i] && path[i]) remove(path[i]);
        } else if (!want[i] && remove(path[i]) == 0) {
            /* an earlier run's file that this run's data would contradict */
            es_warn("removed %s, written by an earlier run with other options", path[i]);
        }
        free(path[i]);
        free(tmp[i]);
    }
    free(plan.pairs);
    free(plan.triples);
    free(idx);
    free(status);
    free(y);
    free(anc);
    return ret;
}
