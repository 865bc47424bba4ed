/* train.c -- the boosting loop: the default rule, then one rule at a time
 * grown top-down (the greedy refinement of mlrl-boomer's
 * GreedyTopDownRuleInduction), its head shrunk and added to the scores of the
 * examples it covers, and the gradients and Hessians of the loss updated.
 *
 * Threads: one OpenMP parallel region for the whole training.  Thread 0
 * grows the rules; the others are workers (pool.c) that claim the jobs it
 * publishes: the sampled features of each refinement, the example chunks of
 * each rule's update.  Every feature's best candidate goes to its own slot,
 * and the training thread reduces the slots in feature order with the same
 * strict comparison as a sequential search, so the model does not depend on
 * the thread count, nor on which thread ran which job. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "rules_gpu.h"
#include "rules_internal.h"

#define terr(...) es_log(ES_LOG_ERROR, "es_rules_train", __VA_ARGS__)

void es_rules_opt_init(es_rules_opt_t *o)
{
    memset(o, 0, sizeof *o);
    o->loss = ES_RULES_LOSS_LOGISTIC;
    o->head = ES_RULES_HEAD_COMPLETE;
    o->max_rules = 1000;
    o->shrinkage = 0.3;
    o->l2 = 1.0;
    o->feat_samp = ES_RULES_FS_WITHOUT;
    o->feat_sample_size = 0.0;
    o->feat_binning = ES_RULES_FB_NONE;
    o->bin_ratio = 0.33;
    o->min_bins = 2;
    o->max_bins = 0;
    o->inst_samp = ES_RULES_IS_NONE;
    o->rule_pruning = ES_RULES_RP_NONE;
    o->inst_sample_size = 0.66;
    o->label_samp = ES_RULES_LS_NONE;
    o->label_sample_size = 0.33;
    o->label_min_samples = 1;
    o->label_max_samples = 1;
    o->seed = 1;
}

int es_rules_opt_check(const es_rules_opt_t *o)
{
    if (o->max_rules < 1) terr("the maximum number of rules must be at least 1 (the default rule)");
    else if (!(o->shrinkage > 0.0 && o->shrinkage <= 1.0))
        terr("the shrinkage must be in (0, 1], got %g", o->shrinkage);
    else if (!(o->l2 >= 0.0 && isfinite(o->l2)))
        terr("the L2 regularization weight must be >= 0, got %g", o->l2);
    else if (!(o->feat_sample_size >= 0.0 && o->feat_sample_size < 1.0))
        terr("the feature sample size must be in (0, 1) (0: log2 of the features), got %g",
             o->feat_sample_size);
    else if (!(o->inst_sample_size > 0.0 && o->inst_sample_size <= 1.0))
        terr("the instance sample size must be in (0, 1], got %g", o->inst_sample_size);
    else if ((unsigned)o->loss > ES_RULES_LOSS_LOGISTIC_EXAMPLE_WISE || (unsigned)o->head > ES_RULES_HEAD_SINGLE ||
             (unsigned)o->feat_samp > ES_RULES_FS_WITHOUT || (unsigned)o->inst_samp > ES_RULES_IS_WITHOUT)
        terr("unknown loss, head type or sampling method");
    else if (o->threads < 0) terr("the number of threads must be >= 0 (0: all)");
    else if (!(o->label_sample_size > 0.0 && o->label_sample_size <= 1.0))
        terr("the label sample size must be in (0, 1], got %g", o->label_sample_size);
    else if (o->label_min_samples < 1 ||
             (o->label_max_samples && o->label_max_samples < o->label_min_samples))
        terr("the label sampling needs min_samples >= 1 and max_samples 0 (all) or >= "
             "min_samples, got %u and %u", o->label_min_samples, o->label_max_samples);
    else if ((unsigned)o->label_samp > ES_RULES_LS_WITHOUT) terr("unknown label sampling method");
    else if ((unsigned)o->label_binning > ES_RULES_LB_EQUAL_WIDTH) terr("unknown label binning method");
    else if (o->label_binning == ES_RULES_LB_EQUAL_WIDTH && o->loss != ES_RULES_LOSS_LOGISTIC_EXAMPLE_WISE)
        terr("equal-width label binning is offered for the example-wise logistic loss only");
    else if (o->loss == ES_RULES_LOSS_LOGISTIC_EXAMPLE_WISE && o->label_samp != ES_RULES_LS_NONE)
        terr("the example-wise logistic loss takes no label sampling (mlrl-boomer's heads for it "
             "would be partial ones, which epistream does not offer)");
    else if ((unsigned)o->feat_binning > ES_RULES_FB_EQUAL_FREQUENCY) terr("unknown feature binning method");
    else if (!(o->bin_ratio > 0.0 && o->bin_ratio < 1.0))
        terr("the feature binning's bin_ratio must be in (0, 1), got %g", o->bin_ratio);
    else if (o->min_bins < 2 || (o->max_bins && o->max_bins < o->min_bins))
        terr("the feature binning needs min_bins >= 2 and max_bins 0 (no maximum) or >= min_bins, "
             "got %u and %u", o->min_bins, o->max_bins);
    else if ((unsigned)o->rule_pruning > ES_RULES_RP_IREP) terr("unknown rule pruning method");
    else if (o->rule_pruning == ES_RULES_RP_IREP && o->loss == ES_RULES_LOSS_LOGISTIC_EXAMPLE_WISE)
        terr("IREP rule pruning is offered for the label-wise losses only");
    else if (!(o->holdout >= 0.0 && o->holdout < 1.0))
        terr("the holdout set size must be in (0, 1) (0: none), got %g", o->holdout);
    else if ((unsigned)o->device > ES_RULES_DEV_AUTO || o->gpu < 0) terr("unknown device");
    else if (!(o->time_limit >= 0.0 && isfinite(o->time_limit)))
        terr("the time limit must be a number of seconds >= 0 (0: none), got %g", o->time_limit);
    else return ES_OK;
    return ES_ERR_ARG;
}

const char *es_rules_loss_name(es_rules_loss_t l)
{
    return l == ES_RULES_LOSS_SQUARED_ERROR               ? "squared-error"
           : l == ES_RULES_LOSS_LOGISTIC_EXAMPLE_WISE ? "logistic-example-wise"
                                                       : "logistic";
}

const char *es_rules_head_name(es_rules_head_t h)
{
    return h == ES_RULES_HEAD_SINGLE ? "single" : "complete";
}

/* ---- random numbers: xoshiro256** seeded by splitmix64 (not mlrl-boomer's RNG) -------- */

typedef struct {
    uint64_t s[4];
} rng_t;

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void rng_seed(rng_t *r, uint64_t seed)
{
    for (int k = 0; k < 4; k++) r->s[k] = splitmix(&seed);
}

static uint64_t rng_next(rng_t *r)
{
    uint64_t *s = r->s, x = s[1] * 5;
    uint64_t res = ((x << 7) | (x >> 57)) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return res;
}

/* Uniform in [0, n) without bias (Lemire's rejection). */
static uint32_t rng_below(rng_t *r, uint32_t n)
{
    uint64_t m = (uint64_t)(uint32_t)(rng_next(r) >> 32) * n;
    uint32_t lo = (uint32_t)m;
    if (lo < n) {
        uint32_t t = (uint32_t)(-n) % n;
        while (lo < t) {
            m = (uint64_t)(uint32_t)(rng_next(r) >> 32) * n;
            lo = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

/* ---- early stopping: mlrl-boomer's pre-pruning (doc/RULES.md) ------------------------ */

int es_rl_prune_init(es_rl_prune_t *p, uint32_t min_rules, uint32_t update_interval,
                     uint32_t stop_interval, uint32_t num_past, uint32_t num_recent,
                     double min_improvement)
{
    /* the buffers are full when min_rules is reached, or from the start on */
    uint64_t buf = ((uint64_t)num_past + num_recent) * update_interval;
    *p = (es_rl_prune_t){.min_rules = min_rules, .update_interval = update_interval,
                         .stop_interval = stop_interval, .num_past = num_past,
                         .num_recent = num_recent, .min_improvement = min_improvement,
                         .offset = buf < min_rules ? (uint32_t)(min_rules - buf) : 0,
                         .best = INFINITY};
    if (!(p->past = malloc(num_past * sizeof *p->past)) ||
        !(p->recent = malloc(num_recent * sizeof *p->recent))) {
        es_rl_prune_free(p);
        return ES_ERR_NOMEM;
    }
    return ES_OK;
}

void es_rl_prune_free(es_rl_prune_t *p)
{
    free(p->past);
    free(p->recent);
    p->past = p->recent = NULL;
}

int es_rl_prune_due(const es_rl_prune_t *p, uint32_t n_rules)
{
    return n_rules > p->offset && (n_rules - p->offset) % p->update_interval == 0;
}

/* The mean of a ring buffer, from the oldest. */
static double ring_mean(const double *b, uint32_t cap, uint32_t head, uint32_t n)
{
    double s = 0.0;
    for (uint32_t k = 0; k < n; k++) s += b[(head + k) % cap];
    return s / n;
}

uint32_t es_rl_prune_test(es_rl_prune_t *p, uint32_t n_rules, double score)
{
    uint32_t cur = n_rules - p->offset, keep = 0;
    if (p->n_past == p->num_past) {
        /* the best model counts from here on, before the test (mlrl-boomer's order,
           checked against it: doc/RULES.md) */
        if (score < p->best) {
            p->best = score;
            p->best_n = n_rules;
        }
        if (cur % p->stop_interval == 0) {
            double past = ring_mean(p->past, p->num_past, p->h_past, p->n_past);
            double recent = ring_mean(p->recent, p->num_recent, p->h_recent, p->n_recent);
            if ((past - recent) / recent <= p->min_improvement) keep = p->best_n;
        }
    }
    /* the score joins the recent buffer; the oldest recent one moves to the past */
    if (p->n_recent < p->num_recent) {
        p->recent[(p->h_recent + p->n_recent++) % p->num_recent] = score;
    } else {
        double old = p->recent[p->h_recent];
        p->recent[p->h_recent] = score;
        p->h_recent = (p->h_recent + 1) % p->num_recent;
        if (p->n_past < p->num_past) {
            p->past[(p->h_past + p->n_past++) % p->num_past] = old;
        } else {
            p->past[p->h_past] = old;
            p->h_past = (p->h_past + 1) % p->num_past;
        }
    }
    return keep;
}

/* ---- losses -------------------------------------------------------------------- */

/* The gradient and Hessian of example i, label l from its score: mlrl-boomer's
 * formulas (the logistic function and its square from one exponential). */
static void update_stat(es_rl_ctx_t *c, size_t il, uint8_t y)
{
    double x = c->score[il];
    if (c->loss == ES_RULES_LOSS_LOGISTIC) {
        double lg, sq;
        if (x < 0) {
            double e = exp(x);
            lg = e / (1 + e);
            sq = (e * e) / ((e + 1) * (e + 1));
        } else {
            double e = exp(-x);
            lg = 1 / (1 + e);
            sq = 1 / ((e + 1) * (e + 1));
        }
        c->g[il] = y ? lg - 1.0 : lg;
        c->h[il] = lg - sq;
    } else {
        c->g[il] = x - (y ? 1.0 : -1.0);
        c->h[il] = 1.0;
    }
}

/* x / d, or 0 when that is not finite (mlrl-boomer's divideOrZero) */
static inline double div0(double x, double d)
{
    double r = x / d;
    return isfinite(r) ? r : 0.0;
}

void es_rl_exw_stats(const double *restrict s, const uint8_t *restrict y, uint32_t L,
                     double *restrict g, double *restrict h, int packed)
{
    /* x_c = -y'_c s_c, kept in g for now; the largest and the second largest (both >= 0,
       for the 1 = exp(0) in the sum) */
    double max = 0.0, max2 = 0.0;
    for (uint32_t c = 0; c < L; c++) {
        double x = y[c] ? -s[c] : s[c];
        g[c] = x;
        if (x > max) {
            max2 = max;
            max = x;
        } else if (x > max2) {
            max2 = x;
        }
    }
    /* exp(x_c + x_r) off the diagonal is at most exp(max + max2) */
    max2 += max;
    double sum = exp(0.0 - max), zero = exp(0.0 - max2), sum2 = zero;
    for (uint32_t c = 0; c < L; c++) {
        sum += exp(g[c] - max);
        if (packed) sum2 += exp(g[c] - max2);
    }
    zero = div0(zero, sum2);
    double *hp = h;
    for (uint32_t c = 0; c < L; c++) {
        double inv = y[c] ? -1.0 : 1.0, x = s[c] * inv;
        if (packed)
            for (uint32_t r = 0; r < c; r++) {
                double e2 = y[r] ? 1.0 : -1.0, x2 = s[r] * -e2;
                *hp++ = inv * e2 * div0(exp(x + x2 - max2), sum2) * zero;
            }
        double t = div0(exp(x - max), sum);
        g[c] = inv * t;
        if (packed) *hp++ = t * (1 - t);
        else h[c] = t * (1 - t);
    }
}

/* The statistics of example i (every label) at its scores, with the example-wise loss:
 * packed Hessians while c->exw, else their diagonal. */
static void update_example(es_rl_ctx_t *c, uint32_t i)
{
    size_t L = c->L;
    es_rl_exw_stats(c->score + i * L, c->d->y + i * L, c->L, c->g + i * L,
                    c->h + (size_t)i * c->nH, c->exw);
}

/* ---- the model under construction ---------------------------------------------- */

void es_rules_model_free(es_rules_model_t *m)
{
    if (!m) return;
    for (uint32_t r = 0; r < m->n_rules; r++) {
        free(m->rule[r].cond);
        free(m->rule[r].lab);
        free(m->rule[r].score);
    }
    free(m->rule);
    es_rl_free_names(m->feat_name, m->n_feat);
    es_rl_free_names(m->lab_name, m->n_lab);
    es_rl_free_values(m->values, m->n_values, m->n_feat);
    free(m->def);
    free(m->lv);
    free(m->lv_freq);
    memset(m, 0, sizeof *m);
}

/* The model's names and value lists, copied from the data. */
static int model_init(es_rules_model_t *m, const es_rules_data_t *d, const es_rules_opt_t *o)
{
    memset(m, 0, sizeof *m);
    m->loss = o->loss;
    m->head = o->head;
    m->n_feat = d->n_feat;
    m->n_lab = d->n_lab;
    if (!(m->feat_name = calloc(d->n_feat, sizeof *m->feat_name)) ||
        !(m->lab_name = calloc(d->n_lab, sizeof *m->lab_name)) ||
        !(m->n_values = calloc(d->n_feat, sizeof *m->n_values)) ||
        !(m->values = calloc(d->n_feat, sizeof *m->values)) ||
        !(m->def = calloc(d->n_lab, sizeof *m->def)))
        return ES_ERR_NOMEM;
    for (uint32_t f = 0; f < d->n_feat; f++) {
        if (!(m->feat_name[f] = strdup(d->feat_name[f]))) return ES_ERR_NOMEM;
        if (!d->n_values[f]) continue;
        if (!(m->values[f] = calloc(d->n_values[f], sizeof *m->values[f]))) return ES_ERR_NOMEM;
        m->n_values[f] = d->n_values[f];
        for (uint32_t k = 0; k < d->n_values[f]; k++)
            if (!(m->values[f][k] = strdup(d->values[f][k]))) return ES_ERR_NOMEM;
    }
    for (uint32_t l = 0; l < d->n_lab; l++)
        if (!(m->lab_name[l] = strdup(d->lab_name[l]))) return ES_ERR_NOMEM;
    return ES_OK;
}

/* ---- presorting ---------------------------------------------------------------- */

typedef struct {
    float v;
    uint32_t i;
} vi_t;

static int cmp_vi(const void *a, const void *b)
{
    const vi_t *x = a, *y = b;
    if (x->v != y->v) return x->v < y->v ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* Each feature's non-missing examples by ascending value (ties by index). */
static int presort(es_rl_ctx_t *c, int nt)
{
    const es_rules_data_t *d = c->d;
    uint32_t n = c->n, F = c->F;
    uint64_t tot = 0, tmiss = 0;
    (void)nt; /* without OpenMP */
    for (uint32_t f = 0; f < F; f++)
        for (uint32_t i = 0; i < n; i++) {
            if (isnan(d->x[(size_t)f * n + i])) tmiss++;
            else tot++;
        }
    if (!(c->sorted = malloc((tot ? tot : 1) * sizeof *c->sorted)) ||
        !(c->sval = malloc((tot ? tot : 1) * sizeof *c->sval)) ||
        !(c->miss = malloc((tmiss ? tmiss : 1) * sizeof *c->miss)) ||
        !(c->soff = malloc(((size_t)F + 1) * sizeof *c->soff)) ||
        !(c->moff = malloc(((size_t)F + 1) * sizeof *c->moff)) ||
        !(c->n_neg = calloc(F, sizeof *c->n_neg)))
        return ES_ERR_NOMEM;
    uint64_t so = 0, mo = 0;
    for (uint32_t f = 0; f < F; f++) {
        c->soff[f] = so;
        c->moff[f] = mo;
        const float *x = d->x + (size_t)f * n;
        for (uint32_t i = 0; i < n; i++) {
            if (isnan(x[i])) c->miss[mo++] = i;
            else c->sorted[so++] = i;
        }
    }
    c->soff[F] = so;
    c->moff[F] = mo;
    int fail = 0;
#pragma omp parallel num_threads(nt)
    {
        vi_t *buf = malloc((size_t)n * sizeof *buf);
        if (!buf) {
#pragma omp atomic write
            fail = 1;
        }
#pragma omp for schedule(dynamic, 16)
        for (uint32_t f = 0; f < F; f++) {
            if (!buf) continue;
            const float *x = d->x + (size_t)f * n;
            uint64_t o = c->soff[f];
            uint32_t m = (uint32_t)(c->soff[f + 1] - o), neg = 0;
            for (uint32_t j = 0; j < m; j++) buf[j] = (vi_t){x[c->sorted[o + j]], c->sorted[o + j]};
            qsort(buf, m, sizeof *buf, cmp_vi);
            for (uint32_t j = 0; j < m; j++) {
                c->sorted[o + j] = buf[j].i;
                c->sval[o + j] = buf[j].v;
                neg += buf[j].v < 0.0f;
            }
            c->n_neg[f] = neg;
        }
        free(buf);
    }
    return fail ? ES_ERR_NOMEM : ES_OK;
}

/* ---- one rule ------------------------------------------------------------------- */

/* The shared state of the parallel region. */
typedef struct {
    es_rl_ctx_t c;
    const es_rules_opt_t *o;
    es_rules_model_t *m;
    rng_t rng;
    uint32_t *fperm, n_fs, *fsel;  /* feature sampling: the identity between draws, the sample */
    uint32_t *fswap;               /* the draws' swaps, undone after each sample */
    es_rl_cand_t *res;             /* per thread, one slot per sampled feature: nt x F */
    double *res_head;              /* their heads: nt x F x L */
    es_rl_scratch_t *scr;          /* per thread */
    double best_q;
    es_rules_cond_t *cond;         /* the rule's conditions so far */
    es_rl_cand_t *crng;            /* and what each covers (--rule-pruning replays them) */
    uint8_t *bestcov;              /* --rule-pruning: the pruned rule's coverage (n) */
    uint32_t n_cond, cap_cond;
    es_rl_cand_t best;             /* its best refinement */
    double *best_head;
    uint32_t best_lab;
    int more, stop, err;
    int has_zero_w;
    es_rl_pool_t *pool;
    _Atomic uint64_t *fin;         /* the pool's job stamps */
    uint32_t *ids, *all_ids;       /* examples whose statistics change the totals; 0..n-1 */
    const uint32_t *tot_ids;       /* the totals' batch: its examples, their number, the sign, */
    uint32_t tot_n, tot_nb;        /* its blocks of labels */
    int tot_sign;
    int nt;                        /* threads */
    uint8_t *hold;                 /* --holdout: 1 for the held-out examples; NULL without */
    uint32_t *train_ids, n_train;  /* the training examples, ascending (all without holdout) */
    es_rl_prune_t prune;           /* early stopping, with a holdout set */
    uint32_t rule_no;              /* the rule being grown: 1 = the first after the default */
    uint32_t *lperm;               /* label sampling: L slots */
    uint32_t early_at;             /* the rule count whose test stopped the training */
    es_gkr_t *gpu;                 /* the GPU's split search; NULL: the CPU's */
} train_t;

static void totals(train_t *t, const uint32_t *ids, uint32_t m, int sign);

/* The head's labels for the next rule (c->hl, ascending; c->n_hl): every label, or
 * mlrl-boomer's output sampling (drawn after the instances). */
static void sample_labels(train_t *t)
{
    es_rl_ctx_t *c = &t->c;
    uint32_t L = c->L;
    const es_rules_opt_t *o = t->o;
    if (o->label_samp == ES_RULES_LS_ROUND_ROBIN) {
        c->n_hl = 1;
        c->hl[0] = (t->rule_no - 1) % L;
        return;
    }
    c->n_hl = L;
    for (uint32_t l = 0; l < L; l++) c->hl[l] = l;
    if (o->label_samp != ES_RULES_LS_WITHOUT) return;
    uint32_t ns = (uint32_t)ceilf((float)o->label_sample_size * (float)L);
    if (ns < o->label_min_samples) ns = o->label_min_samples;
    if (o->label_max_samples && ns > o->label_max_samples) ns = o->label_max_samples;
    if (ns > L) ns = L;
    uint32_t *p = t->lperm;
    for (uint32_t l = 0; l < L; l++) p[l] = l;
    for (uint32_t k = 0; k < ns; k++) { /* a partial Fisher-Yates shuffle */
        uint32_t r = k + rng_below(&t->rng, L - k), x = p[k];
        p[k] = p[r];
        p[r] = x;
    }
    /* ascending: mark the sample in c->hl, then collect it */
    for (uint32_t l = 0; l < L; l++) c->hl[l] = 0;
    for (uint32_t k = 0; k < ns; k++) c->hl[p[k]] = 1;
    c->n_hl = 0;
    for (uint32_t l = 0; l < L; l++)
        if (c->hl[l]) p[c->n_hl++] = l;
    memcpy(c->hl, p, ns * sizeof *c->hl);
}

/* Instance weights for the next rule and the totals of the empty rule. */
static void begin_rule(train_t *t)
{
    es_rl_ctx_t *c = &t->c;
    uint32_t n = c->n;
    /* the instances are sampled from the training examples (all of them without a
       holdout set; then the draws are those of earlier versions) */
    uint32_t nt = t->n_train;
    const uint32_t *tid = t->train_ids;
    if (t->o->inst_samp == ES_RULES_IS_NONE) {
        for (uint32_t i = 0; i < n; i++) c->w[i] = t->hold ? !t->hold[i] : 1;
        t->has_zero_w = t->hold != NULL;
    } else {
        uint32_t ns = (uint32_t)ceilf((float)t->o->inst_sample_size * (float)nt);
        if (ns < 1) ns = 1;
        if (ns > nt) ns = nt;
        memset(c->w, 0, n * sizeof *c->w);
        if (t->o->inst_samp == ES_RULES_IS_WITH) {
            for (uint32_t k = 0; k < ns; k++) c->w[tid[rng_below(&t->rng, nt)]]++;
        } else { /* a partial Fisher-Yates shuffle of the training examples */
            uint32_t *p = t->fperm + c->F; /* n slots after the feature permutation */
            for (uint32_t i = 0; i < nt; i++) p[i] = tid[i];
            for (uint32_t k = 0; k < ns; k++) {
                uint32_t r = k + rng_below(&t->rng, nt - k), x = p[k];
                p[k] = p[r];
                p[r] = x;
                c->w[p[k]] = 1;
            }
        }
        t->has_zero_w = 0;
        for (uint32_t i = 0; i < n; i++) t->has_zero_w |= !c->w[i];
    }
    memset(c->cov, 1, n);
    c->n_cond = 0;
    if (c->bn) es_rl_binned_reset(c);
    c->n_nz = 0;
    c->single = t->o->head == ES_RULES_HEAD_SINGLE;
    sample_labels(t);
    for (uint32_t i = 0; i < n; i++) c->n_nz += c->w[i] != 0;
    totals(t, t->all_ids, n, 1);
    t->best_q = 0.0; /* mlrl-boomer's minimum quality: a rule must beat the empty head */
    t->n_cond = 0;
    t->best.found = 0;
    t->more = 1;
}

/* The features of the next refinement, in ascending order.  t->fperm[0..F) is the
 * identity between calls: the partial shuffle's swaps are undone afterwards, so a
 * refinement costs the sample, not the features. */
static void sample_features(train_t *t)
{
    uint32_t F = t->c.F;
    if (t->o->feat_samp == ES_RULES_FS_NONE) {
        t->n_fs = F;
        for (uint32_t f = 0; f < F; f++) t->fsel[f] = f;
        return;
    }
    uint32_t ns;
    if (t->o->feat_sample_size > 0) ns = (uint32_t)ceilf((float)t->o->feat_sample_size * (float)F);
    else ns = F > 1 ? (uint32_t)(log2((double)(F - 1)) + 1) : 1;
    if (ns < 1) ns = 1;
    if (ns > F) ns = F;
    uint32_t *p = t->fperm, *sw = t->fswap, *sel = t->fsel;
    for (uint32_t k = 0; k < ns; k++) {
        uint32_t r = k + rng_below(&t->rng, F - k), x = p[k];
        p[k] = p[r];
        p[r] = x;
        sw[k] = r;
    }
    /* ascending: an insertion sort of a small sample, else mark and collect */
    if (ns <= 64) {
        for (uint32_t k = 0; k < ns; k++) {
            uint32_t v = p[k], j = k;
            for (; j > 0 && sel[j - 1] > v; j--) sel[j] = sel[j - 1];
            sel[j] = v;
        }
        t->n_fs = ns;
    } else {
        uint8_t *mark = t->c.cov + t->c.n; /* F spare bytes after the coverage mask */
        memset(mark, 0, F);
        for (uint32_t k = 0; k < ns; k++) mark[p[k]] = 1;
        t->n_fs = 0;
        for (uint32_t f = 0; f < F; f++)
            if (mark[f]) sel[t->n_fs++] = f;
    }
    for (uint32_t k = ns; k-- > 0;) { /* the identity again */
        uint32_t r = sw[k], x = p[k];
        p[k] = p[r];
        p[r] = x;
    }
}

/* Apply condition r on feature f to the coverage; the examples whose coverage changes go
 * to ids (in the order mlrl-boomer updates the totals with them): positions [lo, hi) of
 * f's sorted order (or of its bins) are the covered examples, or, inverse, those examples
 * and the ones missing f leave the coverage.  @return how many */
static uint32_t cover(train_t *t, uint32_t f, const es_rl_cand_t *r, uint32_t *ids)
{
    es_rl_ctx_t *c = &t->c;
    const uint32_t *idx = c->sorted + c->soff[f];
    uint32_t n = c->n, m = 0;
    if (c->bn && !c->d->n_values[f]) { /* a binned feature: its bins say which examples */
        m = es_rl_binned_apply(c, f, r, ids, c->cov + n);
    } else if (!r->inverse) {
        uint8_t *keep = c->cov + n; /* spare bytes */
        memset(keep, 0, n);
        for (uint32_t j = r->lo; j < r->hi; j++) {
            uint32_t i = idx[j];
            if (!c->cov[i]) continue;
            keep[i] = 1;
            ids[m++] = i;
        }
        memcpy(c->cov, keep, n);
    } else {
        for (uint32_t j = r->lo; j < r->hi; j++) {
            uint32_t i = idx[j];
            if (!c->cov[i]) continue;
            c->cov[i] = 0;
            ids[m++] = i;
        }
    }
    if (r->inverse)
        for (uint64_t j = c->moff[f]; j < c->moff[f + 1]; j++) {
            uint32_t i = c->miss[j];
            if (!c->cov[i]) continue;
            c->cov[i] = 0;
            ids[m++] = i;
        }
    return m;
}

/* The totals over the head's labels: set to the weighted sums over the
 * examples ids[0..m) (sign > 0), or less them (sign < 0), each label summed
 * in the order of ids (mlrl-boomer's).  Each label is its own sum, so the
 * labels split into blocks that threads sum apart with the same bits: a large
 * update (the empty rule's totals over every example, a condition that keeps
 * many) is one job per thread for the pool, each block summed in its thread's
 * scratch and stored once (no cache line written by two threads); a small one
 * stays on the training thread (a batch of jobs too short costs more than it
 * saves, as blocks of 8 labels did on enron). */
#define TOT_PAR_WORK 16384u /* examples x values from which the pool sums the totals */

/* Sum the gradients [g0, g1) and the Hessians [h0, h1) of the totals (positions of
 * the head's labels; Hessians of the packed matrix with exw) into tg, th, over the
 * batch's examples t->tot_ids[0..tot_n) as totals() says; ag, ah: scratch of
 * g1 - g0 and h1 - h0 values. */
static void totals_range(train_t *t, uint32_t g0, uint32_t g1, uint32_t h0, uint32_t h1,
                         double *restrict ag, double *restrict ah)
{
    const es_rl_ctx_t *c = &t->c;
    const uint32_t *ids = t->tot_ids, *hl = c->hl;
    uint32_t m = t->tot_n, ng = g1 - g0, nhs = h1 - h0;
    int sign = t->tot_sign;
    size_t L = c->L, rowH = c->exw ? c->nH : L;
    /* the head's labels are every label, in order: contiguous (vector lanes, each label's
       sum in the scalar order; -ffp-contract=off) */
    int contig = c->exw || c->n_hl == L; /* an ascending sample of every label: all */
    for (uint32_t k = 0; k < ng; k++) ag[k] = sign > 0 ? 0.0 : c->tot_g[g0 + k];
    for (uint32_t k = 0; k < nhs; k++) ah[k] = sign > 0 ? 0.0 : c->tot_h[h0 + k];
    for (uint32_t j = 0; j < m; j++) {
        uint32_t i = ids[j];
        if (!c->w[i]) continue;
        const double *restrict gi = c->g + i * L, *restrict hi = c->h + i * rowH;
        double w = (double)c->w[i];
        if (contig) {
            gi += g0;
            hi += h0;
            if (sign > 0) {
#pragma omp simd
                for (uint32_t k = 0; k < ng; k++) ag[k] += gi[k] * w;
#pragma omp simd
                for (uint32_t k = 0; k < nhs; k++) ah[k] += hi[k] * w;
            } else {
#pragma omp simd
                for (uint32_t k = 0; k < ng; k++) ag[k] -= gi[k] * w;
#pragma omp simd
                for (uint32_t k = 0; k < nhs; k++) ah[k] -= hi[k] * w;
            }
        } else if (sign > 0) {
            for (uint32_t k = 0; k < ng; k++) {
                ag[k] += gi[hl[g0 + k]] * w;
                ah[k] += hi[hl[g0 + k]] * w;
            }
        } else {
            for (uint32_t k = 0; k < ng; k++) {
                ag[k] -= gi[hl[g0 + k]] * w;
                ah[k] -= hi[hl[g0 + k]] * w;
            }
        }
    }
    memcpy(c->tot_g + g0, ag, ng * sizeof *ag);
    memcpy(c->tot_h + h0, ah, nhs * sizeof *ah);
}

/* Block k of t->tot_nb: its share of the gradients and of the Hessians. */
static void totals_job(void *arg, uint32_t k, void *scratch, int slot)
{
    train_t *t = arg;
    es_rl_scratch_t *s = scratch;
    uint32_t nb = t->tot_nb, ng = t->c.n_hl, nH = t->c.exw ? t->c.nH : ng;
    (void)slot;
    /* blocks of whole cache lines of the totals (8 values), the last one shorter */
    uint32_t bg = (ng + nb - 1) / nb, bh = (nH + nb - 1) / nb;
    bg = (bg + 7) & ~7u;
    bh = (bh + 7) & ~7u;
    uint32_t g0 = k * bg < ng ? k * bg : ng, g1 = g0 + bg < ng ? g0 + bg : ng;
    uint32_t h0 = k * bh < nH ? k * bh : nH, h1 = h0 + bh < nH ? h0 + bh : nH;
    if (!t->c.exw) h0 = g0, h1 = g1; /* the Hessians of the same labels */
    totals_range(t, g0, g1, h0, h1, s->sg, s->sh);
}

static void totals(train_t *t, const uint32_t *ids, uint32_t m, int sign)
{
    es_rl_ctx_t *c = &t->c;
    uint32_t ng = c->n_hl, nH = c->exw ? c->nH : ng;
    t->tot_ids = ids;
    t->tot_n = m;
    t->tot_sign = sign;
    /* blocks of at least 8 values, one a thread */
    uint32_t nb = (uint32_t)t->nt, most = (nH + 7) / 8;
    if (nb > most) nb = most;
    if (nb < 2 || (uint64_t)m * (ng + nH) < TOT_PAR_WORK) {
        totals_range(t, 0, ng, 0, nH, t->scr[0].sg, t->scr[0].sh);
        return;
    }
    t->tot_nb = nb;
    es_rl_pool_run(t->pool, nb, totals_job, t, 0, &t->scr[0]);
}

static void apply_best(train_t *t, uint32_t bk, const es_rl_cand_t *r);

/* Reduce the features' candidates in order; apply the best as a condition.
 * Sets t->more. */
static void reduce_and_apply(train_t *t)
{
    es_rl_ctx_t *c = &t->c;
    int32_t bk = -1;
    double bq = t->best_q;
    const es_rl_cand_t *r = NULL;
    for (uint32_t k = 0; k < t->n_fs; k++) {
        const es_rl_cand_t *x = &t->res[(size_t)es_rl_pool_slot(t->pool, k) * c->F + k];
        if (x->found && x->q < bq) {
            bq = x->q;
            bk = (int32_t)k;
            r = x;
        }
    }
    if (bk < 0) {
        t->more = 0;
        return;
    }
    apply_best(t, (uint32_t)bk, r);
}

/* Apply candidate r of feature fsel[bk] (the refinement's best) as a condition.
 * Sets t->more. */
static void apply_best(train_t *t, uint32_t bk, const es_rl_cand_t *r)
{
    es_rl_ctx_t *c = &t->c;
    double bq = r->q;
    uint32_t f = t->fsel[bk], nh = c->single ? 1 : c->n_hl;
    t->best_q = bq;
    t->best = *r;
    memcpy(t->best_head, r->head, nh * sizeof *t->best_head);
    t->best_lab = c->single ? c->hl[r->lab] : 0;
    if (t->n_cond == t->cap_cond) {
        uint32_t nc = t->cap_cond ? 2 * t->cap_cond : 8;
        es_rules_cond_t *x = realloc(t->cond, nc * sizeof *x);
        if (x) t->cond = x;
        es_rl_cand_t *y = x ? realloc(t->crng, nc * sizeof *y) : NULL;
        if (!y) {
            t->err = ES_ERR_NOMEM;
            t->more = 0;
            return;
        }
        t->crng = y;
        t->cap_cond = nc;
    }
    t->cond[t->n_cond++] = (es_rules_cond_t){f, r->op, r->thr};
    /* single-label heads: the label is fixed by the first condition */
    if (c->single && t->n_cond == 1) {
        /* the totals of that label alone, as they were */
        double g0 = c->tot_g[r->lab], h0 = c->tot_h[r->lab];
        c->hl[0] = t->best_lab;
        c->n_hl = 1;
        c->tot_g[0] = g0;
        c->tot_h[0] = h0;
    }
    /* the new coverage, and the totals updated as mlrl-boomer updates them (the same
       order of additions) */
    t->crng[t->n_cond - 1] = *r;
    uint32_t m = cover(t, f, r, t->ids);
    totals(t, t->ids, m, r->inverse ? -1 : 1);
    c->n_nz = r->n_cov;
    t->more = r->n_cov > 1; /* mlrl-boomer stops refining at min_coverage (1) */
}

/* ---- IREP rule pruning (mlrl-boomer's rule_pruning='irep', rule_pruning_irep.cpp) -------- */

/* The quality of the rule's best head on the prune set, the training examples that the
 * instance sampling left out (weight 0; mlrl-boomer's OutOfSampleWeightVector), covered by
 * c->cov: their unweighted sums over the head's labels, scored as a refinement's head. */
static double prune_quality(train_t *t)
{
    es_rl_ctx_t *c = &t->c;
    es_rl_scratch_t *s = &t->scr[0];
    uint32_t nh = c->n_hl, L = c->L, lab = 0;
    memset(s->sg, 0, nh * sizeof *s->sg);
    memset(s->sh, 0, nh * sizeof *s->sh);
    for (uint32_t i = 0; i < c->n; i++) {
        if (c->w[i] || !c->cov[i] || (t->hold && t->hold[i])) continue;
        const double *gi = c->g + (size_t)i * L, *hi = c->h + (size_t)i * L;
        for (uint32_t k = 0; k < nh; k++) {
            s->sg[k] += gi[c->hl[k]];
            s->sh[k] += hi[c->hl[k]];
        }
    }
    return es_rl_eval(c, s->sg, s->sh, s->p, s->qk, &lab);
}

/* Prune the grown rule (more than one condition): its quality on the prune set, then
 * that of its first k conditions for k = 1 .. n-1, replayed from the empty rule; the best
 * wins, a later one only when strictly better, except that the first k to reach at least
 * the full rule's quality wins (fewer conditions); the conditions after it are removed.
 * t->bestcov gets the pruned rule's coverage (its head is recomputed over it); c->cov is
 * left as the replay leaves it, the coverage of the first n-1 conditions, which is what
 * mlrl-boomer 0.15.6 then adds the head to (its applyPrediction reads the feature
 * subspace's coverage after the replay; doc/RULES.md). */
static void irep(train_t *t)
{
    es_rl_ctx_t *c = &t->c;
    uint32_t n = c->n, nc = t->n_cond, pruned = 0;
    double best = prune_quality(t);
    memcpy(t->bestcov, c->cov, n);
    memset(c->cov, 1, n);
    if (c->bn) es_rl_binned_reset(c);
    for (uint32_t k = 1; k < nc; k++) {
        uint32_t f = t->cond[k - 1].feat;
        c->n_cond = k - 1;
        if (c->bn) es_rl_binned_refresh(c, f);
        cover(t, f, &t->crng[k - 1], t->ids);
        double q = prune_quality(t);
        if (q < best || (!pruned && !(best < q))) {
            best = q;
            memcpy(t->bestcov, c->cov, n);
            pruned = nc - k;
        }
    }
    t->n_cond -= pruned;
}

/* The head of the grown rule (recomputed over every covered example when the
 * sample left some out), shrunk, added to the model.  Sets t->stop when no
 * condition was found. */
static void finish_rule(train_t *t)
{
    es_rl_ctx_t *c = &t->c;
    uint32_t n = c->n, L = c->L;
    if (!t->n_cond || t->err) {
        t->stop = 1;
        return;
    }
    uint32_t nh = c->single ? 1 : c->n_hl;
    /* the coverage the head is recomputed over: the pruned rule's */
    const uint8_t *rcov = c->cov;
    if (t->o->rule_pruning == ES_RULES_RP_IREP && t->has_zero_w && t->n_cond > 1) {
        irep(t);
        rcov = t->bestcov;
    }
    if (t->has_zero_w && c->exw) { /* the same, with the example-wise loss's solve */
        es_rl_scratch_t *s = &t->scr[0];
        uint32_t nH = c->nH;
        memset(s->sg, 0, L * sizeof *s->sg);
        memset(s->sh, 0, nH * sizeof *s->sh);
        for (uint32_t i = 0; i < n; i++) {
            if (!c->cov[i] || (t->hold && t->hold[i])) continue;
            const double *gi = c->g + (size_t)i * L, *hx = c->h + (size_t)i * nH;
            for (uint32_t k = 0; k < L; k++) s->sg[k] += gi[k];
            for (uint32_t k = 0; k < nH; k++) s->sh[k] += hx[k];
        }
        if (!isfinite(es_rl_exw_eval(c, s, s->sg, s->sh, t->best_head)))
            for (uint32_t k = 0; k < L; k++) t->best_head[k] = 0.0;
    } else if (t->has_zero_w) { /* mlrl-boomer's recalculate_predictions (over the training set) */
        double *G = t->scr[0].sg, *H = t->scr[0].sh;
        memset(G, 0, nh * sizeof *G);
        memset(H, 0, nh * sizeof *H);
        for (uint32_t i = 0; i < n; i++) {
            if (!rcov[i] || (t->hold && t->hold[i])) continue; /* training examples only */
            for (uint32_t k = 0; k < nh; k++) {
                uint32_t l = c->single ? t->best_lab : c->hl[k];
                G[k] += c->g[(size_t)i * L + l];
                H[k] += c->h[(size_t)i * L + l];
            }
        }
        for (uint32_t k = 0; k < nh; k++) t->best_head[k] = es_rl_score(G[k], H[k], c->l2);
    }
    es_rules_model_t *m = t->m;
    if (m->n_rules == m->cap_rules) {
        uint32_t nc = m->cap_rules ? 2 * m->cap_rules : 64;
        es_rules_rule_t *x = realloc(m->rule, nc * sizeof *x);
        if (!x) {
            t->err = ES_ERR_NOMEM;
            t->stop = 1;
            return;
        }
        m->rule = x;
        m->cap_rules = nc;
    }
    es_rules_rule_t *r = &m->rule[m->n_rules];
    memset(r, 0, sizeof *r);
    if (!(r->cond = malloc(t->n_cond * sizeof *r->cond)) || !(r->lab = malloc(nh * sizeof *r->lab)) ||
        !(r->score = malloc(nh * sizeof *r->score))) {
        free(r->cond);
        free(r->lab);
        free(r->score);
        t->err = ES_ERR_NOMEM;
        t->stop = 1;
        return;
    }
    memcpy(r->cond, t->cond, t->n_cond * sizeof *r->cond);
    r->n_cond = t->n_cond;
    r->n_head = nh;
    for (uint32_t k = 0; k < nh; k++) {
        r->lab[k] = c->single ? t->best_lab : c->hl[k];
        r->score[k] = t->best_head[k] * (double)c->shrink;
    }
    m->n_rules++;
}

/* Add the new rule's head to the score of example i when the rule covers it,
 * and update its statistics. */
static void apply_rule(train_t *t, uint32_t i)
{
    es_rl_ctx_t *c = &t->c;
    if (!c->cov[i]) return;
    const es_rules_rule_t *r = &t->m->rule[t->m->n_rules - 1];
    size_t L = c->L;
    if (c->loss == ES_RULES_LOSS_LOGISTIC_EXAMPLE_WISE) { /* every label's statistics change */
        for (uint32_t k = 0; k < r->n_head; k++) c->score[(size_t)i * L + r->lab[k]] += r->score[k];
        update_example(c, i);
        return;
    }
    for (uint32_t k = 0; k < r->n_head; k++) {
        size_t il = (size_t)i * L + r->lab[k];
        c->score[il] += r->score[k];
        update_stat(c, il, t->c.d->y[il]);
    }
}

/* The refinement's search on the GPU: it picks the candidate (gpu/rules/search.cu) and
 * returns the sums of its scanned subset in search.c's order of additions; the head and
 * the quality are computed here from them as search.c's candidate() computes them, so
 * the rule is the CPU's bit for bit whenever the GPU picked the CPU's candidate. */
static void gpu_refine(train_t *t)
{
    es_rl_ctx_t *c = &t->c;
    es_rl_scratch_t *s = &t->scr[0];
    es_gkr_refine_t rq = {c->cov, c->n_nz, c->hl, c->n_hl, c->single, c->tot_g, c->tot_h,
                          c->l2, t->fsel, t->n_fs};
    es_gkr_best_t b;
    if (es_gkr_search(t->gpu, &rq, &b, s->sg, s->sh)) {
        t->err = ES_ERR_GPU;
        t->more = 0;
        return;
    }
    if (!b.found) {
        t->more = 0;
        return;
    }
    uint32_t f = t->fsel[b.k], n = c->n_hl, lab = 0;
    const double *G = s->sg, *H = s->sh;
    if (b.sub) { /* the inverse: the feature's total less the subset */
        es_rl_feature_total(c, s, f);
        for (uint32_t k = 0; k < n; k++) {
            s->ug[k] = s->tg[k] - G[k];
            s->uh[k] = s->th[k] - H[k];
        }
        G = s->ug;
        H = s->uh;
    }
    es_rl_cand_t *x = &t->res[0];
    double q = es_rl_eval(c, G, H, s->p, s->qk, &lab);
    if (!(q < t->best_q)) { /* what the GPU saw as better is not, summed in the CPU's order */
        t->more = 0;
        return;
    }
    uint32_t m = (uint32_t)(c->soff[f + 1] - c->soff[f]), n_sub = b.n_sub;
    x->found = 1;
    x->q = q;
    x->inverse = (uint8_t)b.sub;
    x->n_cov = b.sub ? c->n_nz - n_sub : n_sub;
    x->lab = lab;
    if (b.part == 1) { /* values >= 0, descending: "> t" covers the walk's subset */
        x->op = b.sub ? ES_RULES_LE : ES_RULES_GT;
        x->thr = es_rl_mean(b.v1, b.v0);
        x->lo = b.pos + 1;
        x->hi = m;
    } else { /* values < 0 ascending, or the boundary at 0: "<= t" covers it */
        x->op = b.sub ? ES_RULES_GT : ES_RULES_LE;
        x->thr = es_rl_mean(b.v0, b.v1);
        x->lo = 0;
        x->hi = b.part == 0 ? b.pos : c->n_neg[f];
    }
    memcpy(x->head, s->p, (c->single ? 1 : n) * sizeof *x->head);
    apply_best(t, b.k, x);
}

/* The GPU's split search, when o->device asks for it and it can take the data: @return
 * ES_OK with t->gpu open or NULL (auto, or nothing to do), or an error (logged) */
static int gpu_open(train_t *t, const es_rules_opt_t *o)
{
    es_rl_ctx_t *c = &t->c;
    const es_rules_data_t *d = c->d;
    int n_dev = 0, need = o->device == ES_RULES_DEV_GPU;
    const char *why = NULL;
    char buf[256];
    if (o->device == ES_RULES_DEV_CPU) return ES_OK;
    if (o->loss == ES_RULES_LOSS_LOGISTIC_EXAMPLE_WISE)
        why = "the GPU's split search takes the label-wise losses only (logistic, squared-error)";
    else if (o->feat_binning != ES_RULES_FB_NONE)
        why = "the GPU's split search is the exact one: no --feature-binning";
    else if (o->rule_pruning != ES_RULES_RP_NONE)
        why = "the GPU path does not prune rules: no --rule-pruning";
    for (uint32_t f = 0; !why && f < c->F; f++)
        if (d->n_values[f]) {
            snprintf(buf, sizeof buf, "the GPU's split search takes numerical features only, and "
                     "feature '%s' is nominal", d->feat_name[f]);
            why = buf;
        }
    if (!why && (es_gkr_device_count(&n_dev) || o->gpu >= n_dev)) {
        snprintf(buf, sizeof buf, "no CUDA device %d (%d visible%s)", o->gpu, n_dev,
                 n_dev ? "" : "; this build or machine has none");
        why = buf;
    }
    /* auto: the GPU pays from about 10^8 example-feature-label cells */
    if (!why && !need && (double)c->n * c->F * c->L < 1e8) why = "the data are small (auto)";
    if (why) {
        if (need) {
            terr("--device gpu: %s; use --device cpu", why);
            return ES_ERR_UNSUPPORTED;
        }
        es_log(ES_LOG_INFO, "es_rules_train", "--device auto: the CPU (%s)", why);
        return ES_OK;
    }
    /* EPISTREAM_RULES_GPU_SLICE: the scratch budget in bytes (tests: 1 = a feature a slice) */
    const char *env = getenv("EPISTREAM_RULES_GPU_SLICE");
    es_gkr_config_t cfg = {c->n, c->F, c->L, c->sorted, c->sval, c->soff, c->n_neg,
                           c->miss, c->moff, o->gpu_float32, env ? (size_t)strtoull(env, NULL, 10) : 0};
    int ret = es_gkr_open(o->gpu, &cfg, &t->gpu);
    if (ret) {
        terr("--device %s: the GPU could not be opened (%s)", need ? "gpu" : "auto", es_strerror(ret));
        return ret;
    }
    es_log(ES_LOG_INFO, "es_rules_train", "split search on %s%s", es_gkr_name(t->gpu),
           o->gpu_float32 ? ", candidates scored in float32" : "");
    return ES_OK;
}

/* The jobs the workers share: a feature's search, a chunk of examples' update (small
 * enough that the chunks of a rule's covered examples spread evenly over the threads). */
#define APPLY_CHUNK 64u

static void search_job(void *arg, uint32_t k, void *scratch, int slot)
{
    train_t *t = arg;
    es_rl_search(&t->c, scratch, t->fsel[k], t->best_q, &t->res[(size_t)slot * t->c.F + k]);
}

static void refresh_job(void *arg, uint32_t k, void *scratch, int slot)
{
    train_t *t = arg;
    (void)scratch;
    (void)slot;
    es_rl_binned_refresh(&t->c, t->fsel[k]);
}

static void apply_job(void *arg, uint32_t k, void *scratch, int slot)
{
    train_t *t = arg;
    (void)slot;
    uint32_t lo = k * APPLY_CHUNK, hi = lo + APPLY_CHUNK < t->c.n ? lo + APPLY_CHUNK : t->c.n;
    (void)scratch;
    for (uint32_t i = lo; i < hi; i++) apply_rule(t, i);
}

/* The mean loss of the held-out examples at their current scores (the scale does
 * not matter to the stopping test: it compares ratios and minima): label-wise
 * logistic log(1 + exp(-x)) for a relevant label, log(1 + exp(x)) otherwise, or
 * the squared error, summed in example and label order; or the example-wise
 * logistic loss of each example (mean over the examples). */
static double holdout_loss(const train_t *t)
{
    const es_rl_ctx_t *c = &t->c;
    size_t L = c->L;
    double s = 0.0;
    uint32_t nh = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        if (!t->hold[i]) continue;
        nh++;
        if (c->loss == ES_RULES_LOSS_LOGISTIC_EXAMPLE_WISE) {
            s += es_rules_example_loss(c->score + i * L, c->d->y + i * L, c->L);
            continue;
        }
        for (size_t l = 0; l < L; l++) {
            size_t il = (size_t)i * L + l;
            double x = c->score[il];
            uint8_t y = c->d->y[il];
            if (c->loss == ES_RULES_LOSS_LOGISTIC) {
                double z = y ? -x : x; /* log(1 + exp(z)), without overflow */
                s += z > 0 ? z + log1p(exp(-z)) : log1p(exp(z));
            } else {
                double e = x - (y ? 1.0 : -1.0);
                s += e * e;
            }
        }
    }
    return s / ((double)nh * (c->loss == ES_RULES_LOSS_LOGISTIC_EXAMPLE_WISE ? 1.0 : (double)L));
}

/* Drop the model's rules after the first keep - 1 (keep counts the default rule). */
static void truncate_model(es_rules_model_t *m, uint32_t keep)
{
    while (m->n_rules + 1 > keep) {
        es_rules_rule_t *r = &m->rule[--m->n_rules];
        free(r->cond);
        free(r->lab);
        free(r->score);
    }
}

/* The rules after the default rule, on the training thread; the searches and
 * the updates go to the pool. */
static void grow_rules(train_t *t)
{
    const es_rules_opt_t *o = t->o;
    uint32_t n_chunks = (t->c.n + APPLY_CHUNK - 1) / APPLY_CHUNK;
    double t_start = 0.0;
    for (uint32_t r = 1; r < o->max_rules; r++) {
        /* mlrl-boomer's TimeStoppingCriterion: its first test starts the clock, each
           later one (before each rule) stops once the limit is reached */
        if (o->time_limit > 0) {
            if (r == 1) t_start = es_time_now();
            else if (es_time_now() - t_start >= o->time_limit) {
                t->m->stop = ES_RULES_STOP_TIME_LIMIT;
                break;
            }
        }
        /* mlrl-boomer's pre-pruning, tested before each rule with the model so far */
        if (t->hold && es_rl_prune_due(&t->prune, r)) {
            uint32_t keep = es_rl_prune_test(&t->prune, r, holdout_loss(t));
            if (keep) {
                truncate_model(t->m, keep);
                t->m->stop = ES_RULES_STOP_EARLY;
                t->early_at = r;
                break;
            }
        }
        t->rule_no = r;
        begin_rule(t);
        if (t->gpu && es_gkr_stats(t->gpu, t->c.g, t->c.h, t->c.w)) {
            t->err = ES_ERR_GPU;
            t->more = 0;
        }
        while (t->more) {
            sample_features(t);
            if (t->gpu) {
                gpu_refine(t);
                continue;
            }
            if (t->c.bn) { /* the sampled features' bins filtered to the coverage first */
                t->c.n_cond = t->n_cond;
                es_rl_pool_run(t->pool, t->n_fs, refresh_job, t, 0, &t->scr[0]);
            }
            /* a search held too long by a worker is run again here, and the worker's copy
               finishes whenever it does: harmless where a search only reads what stays, but
               the bins are rewritten by the next refinement, so binned searches are all
               waited for */
            es_rl_pool_run(t->pool, t->n_fs, search_job, t, !t->c.bn, &t->scr[0]);
            reduce_and_apply(t);
        }
        finish_rule(t);
        if (t->stop) {
            if (!t->err) t->m->stop = ES_RULES_STOP_NO_REFINE;
            break;
        }
        es_rl_pool_run(t->pool, n_chunks, apply_job, t, 0, &t->scr[0]);
        if (o->progress) o->progress(o->progress_ctx, r + 1, o->max_rules);
    }
}

/* grow_rules as the pool team's lead (es_rl_pool_team) */
static void grow_rules_lead(void *t) { grow_rules(t); }

/* The distinct label vectors of the training set in order of first appearance and
 * their frequencies (mlrl-boomer's LabelVectorSet), for the example-wise predictor. */
static int label_vectors(es_rules_model_t *m, const es_rules_data_t *d)
{
    uint32_t n = d->n_ex, L = d->n_lab, nv = 0;
    if (!(m->lv = malloc((size_t)n * L)) || !(m->lv_freq = malloc(n * sizeof *m->lv_freq)))
        return ES_ERR_NOMEM;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *y = d->y + (size_t)i * L;
        uint32_t k = 0;
        while (k < nv && memcmp(m->lv + (size_t)k * L, y, L)) k++;
        if (k < nv) {
            m->lv_freq[k]++;
            continue;
        }
        memcpy(m->lv + (size_t)nv * L, y, L);
        m->lv_freq[nv++] = 1;
    }
    m->n_lv = nv;
    return ES_OK;
}

/* ---- the training --------------------------------------------------------------- */

int es_rules_train(const es_rules_data_t *d, const es_rules_opt_t *o, es_rules_model_t *m)
{
    train_t t;
    int ret;
    memset(&t, 0, sizeof t);
    memset(m, 0, sizeof *m);
    if ((ret = es_rules_opt_check(o))) return ret;
    if (!d->y || !d->n_lab) {
        terr("the training data has no labels");
        return ES_ERR_DATA;
    }
    if (!d->n_ex || !d->n_feat) {
        terr("the training data has no %s", d->n_ex ? "features" : "examples");
        return ES_ERR_DATA;
    }
    int nt = o->threads;
#ifdef _OPENMP
    if (nt <= 0) nt = omp_get_max_threads();
#else
    nt = 1;
#endif
    es_rl_ctx_t *c = &t.c;
    uint32_t n = d->n_ex, F = d->n_feat, L = d->n_lab;
    c->d = d;
    c->n = n;
    c->F = F;
    c->L = L;
    c->loss = o->loss;
    int exwl = o->loss == ES_RULES_LOSS_LOGISTIC_EXAMPLE_WISE;
    /* the example-wise loss's default rule solves a complete head, whatever the head type */
    c->exw = exwl;
    c->nH = exwl ? (uint32_t)((uint64_t)L * (L + 1) / 2) : L;
    c->lbin = exwl && o->label_binning != ES_RULES_LB_NONE;
    size_t nH = c->nH;
    c->l2 = (double)(float)o->l2;
    c->shrink = (float)o->shrinkage;
    t.o = o;
    t.m = m;
    rng_seed(&t.rng, o->seed);
    size_t nl = (size_t)n * L;
    /* the most jobs a batch has: features, example chunks or blocks of labels (one a thread) */
    size_t n_jobs_max = (size_t)F + (n + APPLY_CHUNK - 1) / APPLY_CHUNK + (size_t)nt;
    if ((ret = model_init(m, d, o))) goto out;
    if (!(c->score = calloc(nl, sizeof *c->score)) || !(c->g = malloc(nl * sizeof *c->g)) ||
        !(c->h = malloc((size_t)n * nH * sizeof *c->h)) || !(c->w = malloc(n * sizeof *c->w)) ||
        !(c->cov = malloc(2 * (size_t)n + F)) || !(c->tot_g = malloc(L * sizeof *c->tot_g)) ||
        !(c->tot_h = malloc(nH * sizeof *c->tot_h)) || !(c->hl = malloc(L * sizeof *c->hl)) ||
        !(t.fperm = malloc(((size_t)F + n) * sizeof *t.fperm)) ||
        !(t.fsel = malloc(F * sizeof *t.fsel)) || !(t.fswap = malloc(F * sizeof *t.fswap)) ||
        !(t.res = calloc((size_t)nt * F, sizeof *t.res)) ||
        !(t.res_head = malloc((size_t)nt * F * L * sizeof *t.res_head)) ||
        !(t.fin = calloc(n_jobs_max, sizeof *t.fin)) ||
        !(t.ids = malloc(n * sizeof *t.ids)) || !(t.all_ids = malloc(n * sizeof *t.all_ids)) ||
        !(t.best_head = malloc(L * sizeof *t.best_head)) ||
        !(t.train_ids = malloc(n * sizeof *t.train_ids)) ||
        !(t.lperm = malloc(L * sizeof *t.lperm)) || !(t.bestcov = malloc(n)) ||
        !(t.scr = calloc((size_t)nt, sizeof *t.scr))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    /* the holdout set, drawn first: a partial Fisher-Yates shuffle of 0..n-1 (mlrl-boomer's
       random bi-partition; its generator differs) */
    t.n_train = n;
    for (uint32_t i = 0; i < n; i++) t.train_ids[i] = i;
    if (o->holdout > 0) {
        uint32_t n_hold = (uint32_t)((float)o->holdout * (float)n);
        if (n_hold < 1 || n_hold >= n) {
            terr("a holdout set of %g of %u examples has %u examples: it needs at least one, and "
                 "one must be left to learn from", o->holdout, n, n_hold);
            ret = ES_ERR_ARG;
            goto out;
        }
        if (!(t.hold = calloc(n, 1))) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
        uint32_t *p = t.fperm;
        for (uint32_t i = 0; i < n; i++) p[i] = i;
        for (uint32_t k = 0; k < n_hold; k++) {
            uint32_t r = k + rng_below(&t.rng, n - k), x = p[k];
            p[k] = p[r];
            p[r] = x;
            t.hold[p[k]] = 1;
        }
        t.n_train = 0;
        for (uint32_t i = 0; i < n; i++)
            if (!t.hold[i]) t.train_ids[t.n_train++] = i;
        /* mlrl-boomer 0.15.6's pre-pruning defaults */
        if ((ret = es_rl_prune_init(&t.prune, 100, 1, 1, 50, 50, 0.005))) goto out;
    }
    for (uint32_t f = 0; f < F; f++) t.fperm[f] = f; /* the feature sampling's identity */
    for (size_t k = 0; k < (size_t)nt * F; k++) t.res[k].head = t.res_head + k * L;
    for (int k = 0; k < nt; k++) {
        es_rl_scratch_t *s = &t.scr[k];
        /* whole cache lines of its own: threads updating sums in one line would
           take it from each other at every example (false sharing) */
        s->lwork = exwl ? es_rl_exw_lwork(L) : 0;
        /* the solve's matrix and workspace; the binning's criteria, bin sums, bin indices */
        size_t nK = exwl ? (size_t)L * L + (size_t)s->lwork + 2 * (size_t)L + nH : 0;
        size_t bytes = ((6 * (size_t)L + 4 * nH + nK) * sizeof *s->sg + 63) / 64 * 64;
        if (!(s->sg = aligned_alloc(64, bytes)) ||
            (exwl && (!(s->ipiv = malloc(L * sizeof *s->ipiv)) ||
                      !(s->bins.bidx = malloc(3 * (size_t)L * sizeof *s->bins.bidx))))) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
        double *q = s->sg;
        s->sg = q, q += L;
        s->ag = q, q += L;
        s->tg = q, q += L;
        s->ug = q, q += L;
        s->p = q, q += L;
        s->qk = q, q += L;
        s->sh = q, q += nH;
        s->ah = q, q += nH;
        s->th = q, q += nH;
        s->uh = q, q += nH;
        s->a = exwl ? q : NULL, q += exwl ? (size_t)L * L : 0;
        s->work = exwl ? q : NULL;
        if (exwl) {
            q += s->lwork;
            s->bins.crit = q, q += L;
            s->bins.bg = q, q += L;
            s->bins.bh = q;
            s->bins.nel = s->bins.bidx + L;
            s->bins.bmap = s->bins.nel + L;
        }
    }
    if ((ret = presort(c, nt))) goto out;
    if ((ret = gpu_open(&t, o))) goto out;
    m->on_gpu = t.gpu != NULL;
    if (o->feat_binning != ES_RULES_FB_NONE && (ret = es_rl_binned_init(c, o))) goto out;

    /* the default rule: a complete head over every example at score 0, not shrunk */
    if (exwl) {
        es_rl_scratch_t *s = &t.scr[0];
        for (uint32_t i = 0; i < n; i++) update_example(c, i);
        memset(s->sg, 0, L * sizeof *s->sg);
        memset(s->sh, 0, nH * sizeof *s->sh);
        for (uint32_t i = 0; i < n; i++) {
            for (uint32_t l = 0; l < L; l++) s->sg[l] += c->g[(size_t)i * L + l];
            for (size_t k = 0; k < nH; k++) s->sh[k] += c->h[(size_t)i * nH + k];
        }
        if (!isfinite(es_rl_exw_eval(c, s, s->sg, s->sh, m->def))) memset(m->def, 0, L * sizeof *m->def);
        /* single-label heads: from here on mlrl-boomer's statistics are decomposable (the
           gradients and the Hessians' diagonal, of every label at each update) */
        if (o->head == ES_RULES_HEAD_SINGLE) {
            c->exw = 0;
            c->nH = L;
        }
        for (size_t il = 0; il < nl; il++) c->score[il] = m->def[il % L];
        for (uint32_t i = 0; i < n; i++) update_example(c, i);
        if ((ret = label_vectors(m, d))) goto out;
    } else {
        for (size_t il = 0; il < nl; il++) update_stat(c, il, d->y[il]);
        double *G = t.scr[0].sg, *H = t.scr[0].sh;
        memset(G, 0, L * sizeof *G);
        memset(H, 0, L * sizeof *H);
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t l = 0; l < L; l++) {
                G[l] += c->g[(size_t)i * L + l];
                H[l] += c->h[(size_t)i * L + l];
            }
        for (uint32_t l = 0; l < L; l++) m->def[l] = es_rl_score(G[l], H[l], c->l2);
        for (size_t il = 0; il < nl; il++) {
            c->score[il] = m->def[il % L];
            update_stat(c, il, d->y[il]);
        }
    }
    if (o->progress) o->progress(o->progress_ctx, 1, o->max_rules);

    es_rl_pool_t pool;
    memset(&pool, 0, sizeof pool);
    es_rl_pool_init(&pool, t.fin, n_jobs_max);
    for (uint32_t i = 0; i < n; i++) t.all_ids[i] = i;
    t.pool = &pool;
    t.nt = nt;
    es_rl_pool_team(&pool, nt, grow_rules_lead, &t, t.scr, sizeof *t.scr);
    ret = t.err;
    if (!ret && m->stop == ES_RULES_STOP_NO_REFINE)
        es_log(ES_LOG_INFO, "es_rules_train",
               "stopped after %u rules: no refinement of an empty rule improves the loss",
               m->n_rules + 1);
    else if (!ret && m->stop == ES_RULES_STOP_EARLY)
        es_log(ES_LOG_INFO, "es_rules_train",
               "early stopping on the holdout set: stopped before rule %u, kept the best %u rules "
               "(the default rule included)",
               t.early_at + 1, m->n_rules + 1);
    else if (!ret && m->stop == ES_RULES_STOP_TIME_LIMIT)
        es_log(ES_LOG_WARN, "es_rules_train",
               "stopped early after %u of at most %u rules (the default rule included): "
               "the time limit of %g s was reached",
               m->n_rules + 1, o->max_rules, o->time_limit);
out:
    if (ret == ES_ERR_NOMEM) terr("out of memory (%u examples, %u features, %u labels)", n, F, L);
    if (ret) es_rules_model_free(m);
    if (t.scr)
        for (int k = 0; k < nt; k++) {
            free(t.scr[k].sg);
            free(t.scr[k].ipiv);
            free(t.scr[k].bins.bidx);
        }
    es_gkr_close(t.gpu);
    free(t.scr);
    free(t.best_head);
    free(t.res_head);
    free((void *)t.fin);
    free(t.ids);
    free(t.all_ids);
    free(t.hold);
    free(t.lperm);
    free(t.train_ids);
    es_rl_prune_free(&t.prune);
    free(t.res);
    free(t.fsel);
    free(t.fswap);
    free(t.fperm);
    free(t.cond);
    free(t.crng);
    free(t.bestcov);
    free(c->score);
    free(c->g);
    free(c->h);
    free(c->w);
    free(c->cov);
    free(c->tot_g);
    free(c->tot_h);
    free(c->hl);
    free(c->sorted);
    free(c->sval);
    free(c->miss);
    free(c->soff);
    free(c->moff);
    free(c->n_neg);
    es_rl_binned_free(c);
    return ret;
}
