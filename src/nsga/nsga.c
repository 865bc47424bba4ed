/* nsga.c -- the NSGA-II loop (Deb et al. 2002): initial population, binary
 * tournaments by the crowded comparison, uniform crossover, asymmetric
 * bit-flip mutation, the elitist (mu + lambda) survival by non-dominated
 * sort and crowding distance, and the results.
 *
 * Every draw comes from the stream of (seed, generation, mating pair), so the
 * population never depends on which device evaluated what.  Offspring that
 * repeat a parent or an earlier offspring are drawn again (as pymoo's
 * eliminate_duplicates does), up to DUP_TRIES times. */
#define _GNU_SOURCE /* qsort_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nsga_internal.h"

#define DUP_TRIES 100

/* ---- random streams ------------------------------------------------------------------- */

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void es_ns_rng_seed(es_ns_rng_t *r, uint64_t seed, uint32_t gen, uint32_t idx)
{
    uint64_t x = seed;
    uint64_t h = splitmix(&x);
    x = h ^ ((uint64_t)gen << 32 | idx);
    for (int k = 0; k < 4; k++) r->s[k] = splitmix(&x);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t es_ns_rng_next(es_ns_rng_t *r)
{
    uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

uint32_t es_ns_rng_below(es_ns_rng_t *r, uint32_t n)
{
    /* rejection from the top of the range: unbiased */
    uint64_t lim = UINT64_MAX - UINT64_MAX % n;
    uint64_t v;
    while ((v = es_ns_rng_next(r)) >= lim) continue;
    return (uint32_t)(v % n);
}

double es_ns_rng_unit(es_ns_rng_t *r)
{
    return (double)(es_ns_rng_next(r) >> 11) * 0x1.0p-53;
}

void es_ns_kmeans_init(uint64_t seed, uint32_t gen, uint32_t n, uint32_t k, uint32_t *out)
{
    es_ns_rng_t r;
    es_ns_rng_seed(&r, seed, gen, ES_NS_STREAM_KMEANS);
    for (uint32_t c = 0; c < k; c++) {
        uint32_t v;
        int again;
        do {
            v = es_ns_rng_below(&r, n);
            again = 0;
            for (uint32_t q = 0; q < c; q++) again |= out[q] == v;
        } while (again);
        out[c] = v;
    }
}

/* ---- options ------------------------------------------------------------------------------ */

static const struct {
    const char *name, *alias;
    es_nsga_obj_t o;
} objs[] = {
    {"kmeans", NULL, ES_NSGA_KMEANS},
    {"knn-error,size", "knn", ES_NSGA_KNN},
    {"nc-error,size", "nc", ES_NSGA_NC},
    {"zdt1", NULL, ES_NSGA_ZDT1},
};

int es_nsga_obj_parse(const char *s, es_nsga_obj_t *out)
{
    for (size_t k = 0; k < sizeof objs / sizeof *objs; k++)
        if (!strcasecmp(s, objs[k].name) || (objs[k].alias && !strcasecmp(s, objs[k].alias))) {
            *out = objs[k].o;
            return ES_OK;
        }
    return ES_ERR_ARG;
}

const char *es_nsga_obj_name(es_nsga_obj_t o)
{
    for (size_t k = 0; k < sizeof objs / sizeof *objs; k++)
        if (objs[k].o == o) return objs[k].name;
    return "?";
}

void es_nsga_opt_init(es_nsga_opt_t *o)
{
    memset(o, 0, sizeof *o);
    o->obj = ES_NSGA_KNN;
    o->population = 100;
    o->generations = 100;
    o->seed = 1;
    o->crossover = 0.75;
    o->mut_on = -1.0;
    o->mut_off = -1.0;
    o->max_ones = UINT32_MAX;
    o->knn_k = 5;
    o->clusters = 3;
    o->kmeans_iter = 20;
    o->zdt_vars = 30;
}

int es_nsga_opt_check(const es_nsga_opt_t *o, const es_nsga_data_t *d)
{
    if (o->population < 4 || o->population % 2 || o->population > 1000000) {
        es_error("the population must be even, from 4 to 1,000,000 (got %u)", o->population);
        return ES_ERR_ARG;
    }
    if (o->generations > 10000000) {
        es_error("at most 10,000,000 generations (got %u)", o->generations);
        return ES_ERR_ARG;
    }
    if (!(o->crossover >= 0.0 && o->crossover <= 1.0) || o->mut_on > 1.0 || o->mut_off > 1.0) {
        es_error("crossover and mutation probabilities must be in [0, 1]");
        return ES_ERR_ARG;
    }
    if (!d->p) {
        es_error("no feature");
        return ES_ERR_ARG;
    }
    if (o->obj == ES_NSGA_ZDT1) {
        if (o->zdt_vars < 2 || d->p % o->zdt_vars || d->p / o->zdt_vars > 52) {
            es_error("zdt1: %u bits do not make %u variables of at most 52 bits", d->p,
                     o->zdt_vars);
            return ES_ERR_ARG;
        }
        return ES_OK;
    }
    if (o->obj == ES_NSGA_KMEANS) {
        if (o->clusters < 1 || o->clusters > d->n || o->clusters > 65535) {
            es_error("kmeans: %u clusters for %u samples", o->clusters, d->n);
            return ES_ERR_ARG;
        }
        return ES_OK;
    }
    if (!d->n_classes || d->n_folds < 2) {
        es_error("%s needs a class column and at least 2 folds", es_nsga_obj_name(o->obj));
        return ES_ERR_ARG;
    }
    if (o->obj == ES_NSGA_KNN && (o->knn_k < 1 || o->knn_k > ES_NSGA_KNN_MAX)) {
        es_error("k-NN: k must be from 1 to %d (got %u)", ES_NSGA_KNN_MAX, o->knn_k);
        return ES_ERR_ARG;
    }
    return ES_OK;
}

void es_nsga_result_free(es_nsga_result_t *r)
{
    free(r->front_mask);
    free(r->front_f);
    free(r->hv);
    memset(r, 0, sizeof *r);
}

/* ---- the population ------------------------------------------------------------------------ */

/* A set of masks by hash (open addressing, linear probing) to find repeats. */
typedef struct {
    uint32_t *slot; /* individual + 1; 0 empty */
    uint32_t mask_bits;
    const uint64_t *masks;
    uint32_t words;
} dupset_t;

static uint64_t mask_hash(const uint64_t *m, uint32_t words)
{
    uint64_t h = 0x243f6a8885a308d3ull;
    for (uint32_t w = 0; w < words; w++) {
        h ^= m[w] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
        h *= 0xff51afd7ed558ccdull;
    }
    return h ^ (h >> 33);
}

/* Is m in the set? */
static int dup_has(const dupset_t *s, const uint64_t *m)
{
    size_t mask = ((size_t)1 << s->mask_bits) - 1, k = mask_hash(m, s->words) & mask;
    for (; s->slot[k]; k = (k + 1) & mask)
        if (!memcmp(s->masks + (size_t)(s->slot[k] - 1) * s->words, m, s->words * 8)) return 1;
    return 0;
}

static void dup_add(dupset_t *s, uint32_t i)
{
    const uint64_t *m = s->masks + (size_t)i * s->words;
    size_t mask = ((size_t)1 << s->mask_bits) - 1, k = mask_hash(m, s->words) & mask;
    while (s->slot[k]) k = (k + 1) & mask;
    s->slot[k] = i + 1;
}

static void dup_clear(dupset_t *s)
{
    memset(s->slot, 0, ((size_t)1 << s->mask_bits) * sizeof *s->slot);
}

/* The bits past p in the last word stay 0. */
static inline void clear_tail(uint64_t *m, uint32_t p, uint32_t words)
{
    if (p & 63) m[words - 1] &= (1ull << (p & 63)) - 1;
}

/* A random initial individual: 1..max_ones distinct features, or each bit at 1/2. */
static void random_mask(es_ns_rng_t *r, uint32_t p, uint32_t words, uint32_t max_ones,
                        uint32_t *perm, uint64_t *m)
{
    memset(m, 0, words * 8);
    if (!max_ones) {
        for (uint32_t w = 0; w < words; w++) m[w] = es_ns_rng_next(r);
        clear_tail(m, p, words);
        return;
    }
    uint32_t u = 1 + es_ns_rng_below(r, max_ones < p ? max_ones : p);
    for (uint32_t f = 0; f < p; f++) perm[f] = f;
    for (uint32_t q = 0; q < u; q++) { /* a partial Fisher-Yates shuffle */
        uint32_t j = q + es_ns_rng_below(r, p - q), t = perm[q];
        perm[q] = perm[j];
        perm[j] = t;
        m[perm[q] >> 6] |= 1ull << (perm[q] & 63);
    }
}

/* Deb's crowded comparison in a binary tournament: lower rank, then larger
 * crowding distance, then the first drawn. */
static uint32_t tournament(es_ns_rng_t *r, uint32_t n, const uint32_t *rank, const double *crowd)
{
    uint32_t a = es_ns_rng_below(r, n), b = es_ns_rng_below(r, n);
    if (rank[b] < rank[a] || (rank[b] == rank[a] && crowd[b] > crowd[a])) return b;
    return a;
}

/* Asymmetric bit flips: a 0 becomes 1 with probability on, a 1 becomes 0 with
 * probability off.  The candidates are drawn at the larger rate by geometric
 * gaps (a few draws per individual, not one per feature), each kept with the
 * ratio of its own rate to that one. */
static void mutate(es_ns_rng_t *r, uint64_t *m, uint32_t p, double on, double off)
{
    double top = on > off ? on : off;
    if (top <= 0.0) return;
    double lg = top < 1.0 ? log1p(-top) : 0.0;
    for (uint64_t f = 0;; f++) {
        if (top < 1.0) f += (uint64_t)floor(log1p(-es_ns_rng_unit(r)) / lg);
        if (f >= p) break;
        uint64_t bit = 1ull << (f & 63);
        double rate = (m[f >> 6] & bit) ? off : on;
        if (rate >= top || es_ns_rng_unit(r) * top < rate) m[f >> 6] ^= bit;
    }
}

/* by crowding distance, larger first, then index */
static int cmp_crowd(const void *a, const void *b, void *ctx)
{
    const double *cd = ctx;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    if (cd[i] != cd[j]) return cd[i] > cd[j] ? -1 : 1;
    return (i > j) - (i < j);
}

/* Survival of the fittest P of the n in f (Deb's elitist replacement):
 * rank and crowding of all n, then whole fronts, the last one cut by
 * crowding (larger first, ties by index).  keep[] gets the survivors in
 * index order; rank/crowd the values of all n. */
static int survive(const double *f, uint32_t n, uint32_t P, uint32_t *rank, double *crowd,
                   uint32_t *keep, uint32_t *tmp)
{
    int fronts = es_nsga_sort(f, n, rank);
    if (fronts < 0) return fronts;
    uint32_t kept = 0;
    uint8_t *take = (uint8_t *)(tmp + n);
    memset(take, 0, n);
    for (uint32_t r = 0; r < (uint32_t)fronts; r++) {
        uint32_t m = 0;
        for (uint32_t i = 0; i < n; i++)
            if (rank[i] == r) tmp[m++] = i;
        double *cd = crowd + n; /* scratch past the n */
        int ret = es_nsga_crowding(f, tmp, m, cd);
        if (ret) return ret;
        for (uint32_t q = 0; q < m; q++) crowd[tmp[q]] = cd[q];
        if (kept >= P) continue;
        if (kept + m <= P) {
            for (uint32_t q = 0; q < m; q++) take[tmp[q]] = 1;
            kept += m;
            continue;
        }
        /* the last front: the P - kept farthest apart (ties by index) */
        qsort_r(tmp, m, sizeof *tmp, cmp_crowd, crowd);
        for (uint32_t q = 0; kept < P; q++, kept++) take[tmp[q]] = 1;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (take[i]) keep[k++] = i;
    return ES_OK;
}

/* The reference point of the hypervolumes. */
static void hv_ref(const es_nsga_opt_t *o, const double *f0, uint32_t n, double ref[2])
{
    if (o->obj == ES_NSGA_ZDT1) {
        ref[0] = ref[1] = 1.1;
    } else if (o->obj == ES_NSGA_KMEANS) {
        double mx = 0.0;
        for (uint32_t i = 0; i < n; i++)
            if (f0[2 * i] > mx) mx = f0[2 * i];
        ref[0] = 1.1 * mx;
        ref[1] = 0.0;
    } else {
        ref[0] = ref[1] = 1.0;
    }
}

/* The first front's hypervolume among the n individuals with rank[]. */
static double front_hv(const double *f, const uint32_t *rank, const uint32_t *sel, uint32_t n,
                       const double ref[2], double *buf)
{
    uint32_t m = 0;
    for (uint32_t q = 0; q < n; q++) {
        uint32_t i = sel ? sel[q] : q;
        if (!rank[i]) {
            buf[2 * m] = f[2 * i];
            buf[2 * m + 1] = f[2 * i + 1];
            m++;
        }
    }
    return es_nsga_hv(buf, m, ref);
}

/* A member of the final front, for sorting by (F1, F2, mask). */
typedef struct {
    double f0, f1;
    const uint64_t *m;
    uint32_t words, i;
} front_key_t;

static int cmp_front(const void *a, const void *b)
{
    const front_key_t *x = a, *y = b;
    if (x->f0 != y->f0) return x->f0 < y->f0 ? -1 : 1;
    if (x->f1 != y->f1) return x->f1 < y->f1 ? -1 : 1;
    for (uint32_t w = 0; w < x->words; w++)
        if (x->m[w] != y->m[w]) return x->m[w] < y->m[w] ? -1 : 1;
    return 0;
}

int es_nsga_run(const es_nsga_data_t *d, const es_nsga_opt_t *o, es_nsga_result_t *res)
{
    memset(res, 0, sizeof *res);
    int ret = es_nsga_opt_check(o, d);
    if (ret) return ret;
    double t_start = es_time_now();
    uint32_t P = o->population, N = 2 * P, p = d->p, words = (p + 63) / 64;
    double on = o->mut_on >= 0 ? o->mut_on : 1.0 / p;
    double off = o->mut_off >= 0 ? o->mut_off : (2.0 / p < 1.0 ? 2.0 / p : 1.0);
    uint32_t max_ones = o->max_ones == UINT32_MAX ? p : o->max_ones;
    uint32_t mask_bits = 4;
    while (((size_t)1 << mask_bits) < (size_t)4 * N) mask_bits++;

    es_ns_problem_t pb = {.d = d,
                          .obj = o->obj,
                          .knn_k = o->knn_k,
                          .clusters = o->clusters,
                          .kmeans_iter = o->kmeans_iter,
                          .zdt_vars = o->zdt_vars};
    es_ns_sched_t *sched = NULL;
    uint64_t *pop = malloc((size_t)N * words * 8), *next = malloc((size_t)P * words * 8);
    double *f = malloc((size_t)N * 2 * sizeof *f), *fnext = malloc((size_t)P * 2 * sizeof *fnext);
    double *crowd = malloc((size_t)2 * N * sizeof *crowd), *buf = malloc((size_t)N * 2 * sizeof *buf);
    uint32_t *rank = malloc((size_t)N * sizeof *rank), *keep = malloc((size_t)N * sizeof *keep);
    uint32_t *tmp = malloc((size_t)N * sizeof *tmp + N), *perm = malloc((size_t)p * sizeof *perm);
    uint32_t *init = calloc(o->clusters ? o->clusters : 1, sizeof *init);
    dupset_t ds = {calloc((size_t)1 << mask_bits, sizeof(uint32_t)), mask_bits, pop, words};
    res->hv = malloc(((size_t)o->generations + 1) * sizeof *res->hv);
    if (!pop || !next || !f || !fnext || !crowd || !buf || !rank || !keep || !tmp || !perm ||
        !init || !ds.slot || !res->hv) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    memset(pop, 0, (size_t)N * words * 8);
    if ((ret = es_ns_sched_open(&sched, o->devices, o->threads, &pb, P, words))) goto out;

    /* generation 0: P distinct random individuals */
    for (uint32_t i = 0; i < P; i++) {
        es_ns_rng_t r;
        es_ns_rng_seed(&r, o->seed, 0, i);
        uint64_t *m = pop + (size_t)i * words;
        for (int t = 0; t < DUP_TRIES; t++) {
            random_mask(&r, p, words, max_ones, perm, m);
            if (!dup_has(&ds, m)) break;
        }
        dup_add(&ds, i);
    }
    int kmeans = o->obj == ES_NSGA_KMEANS;
    if (kmeans) es_ns_kmeans_init(o->seed, 0, d->n, o->clusters, init);
    double t_eval = es_time_now();
    if ((ret = es_ns_sched_eval(sched, pop, P, kmeans ? init : NULL, f))) goto out;
    res->seconds_eval += es_time_now() - t_eval;
    res->evaluations += P;
    for (uint32_t i = 0; i < P; i++) keep[i] = i;
    if ((ret = survive(f, P, P, rank, crowd, keep, tmp))) goto out;
    hv_ref(o, f, P, res->hv_ref);
    res->hv[0] = front_hv(f, rank, NULL, P, res->hv_ref, buf);
    res->n_hv = 1;
    if (o->progress) o->progress(0, o->generations, es_time_now() - t_start, o->progress_ud);

    for (uint32_t g = 1; g <= o->generations; g++) {
        /* offspring P..2P-1, pair by pair, each pair from its own stream */
        dup_clear(&ds);
        for (uint32_t i = 0; i < P; i++) dup_add(&ds, i);
        for (uint32_t i = 0; i < P; i += 2) {
            es_ns_rng_t r;
            es_ns_rng_seed(&r, o->seed, g, i / 2);
            uint64_t *c1 = pop + (size_t)(P + i) * words, *c2 = c1 + words;
            for (int t = 0; t < DUP_TRIES; t++) {
                const uint64_t *a = pop + (size_t)tournament(&r, P, rank, crowd) * words;
                const uint64_t *b = pop + (size_t)tournament(&r, P, rank, crowd) * words;
                if (es_ns_rng_unit(&r) < o->crossover) {
                    for (uint32_t w = 0; w < words; w++) {
                        uint64_t x = es_ns_rng_next(&r);
                        c1[w] = (a[w] & ~x) | (b[w] & x);
                        c2[w] = (b[w] & ~x) | (a[w] & x);
                    }
                } else {
                    memcpy(c1, a, words * 8);
                    memcpy(c2, b, words * 8);
                }
                mutate(&r, c1, p, on, off);
                mutate(&r, c2, p, on, off);
                if (!dup_has(&ds, c1) && !dup_has(&ds, c2) && memcmp(c1, c2, words * 8)) break;
            }
            dup_add(&ds, P + i);
            dup_add(&ds, P + i + 1);
        }
        if (kmeans) es_ns_kmeans_init(o->seed, g, d->n, o->clusters, init);
        t_eval = es_time_now();
        if ((ret = es_ns_sched_eval(sched, pop + (size_t)P * words, P, kmeans ? init : NULL,
                                    f + 2 * (size_t)P)))
            goto out;
        res->seconds_eval += es_time_now() - t_eval;
        res->evaluations += P;
        if ((ret = survive(f, N, P, rank, crowd, keep, tmp))) goto out;
        res->hv[g] = front_hv(f, rank, keep, P, res->hv_ref, buf);
        res->n_hv = g + 1;
        /* the survivors become parents 0..P-1, with their rank and crowding */
        for (uint32_t q = 0; q < P; q++) {
            uint32_t i = keep[q];
            memcpy(next + (size_t)q * words, pop + (size_t)i * words, words * 8);
            fnext[2 * q] = f[2 * i];
            fnext[2 * q + 1] = f[2 * i + 1];
            tmp[q] = rank[i];
            buf[q] = crowd[i];
        }
        memcpy(pop, next, (size_t)P * words * 8);
        memcpy(f, fnext, (size_t)P * 2 * sizeof *f);
        memcpy(rank, tmp, P * sizeof *rank);
        memcpy(crowd, buf, P * sizeof *crowd);
        if (o->progress) o->progress(g, o->generations, es_time_now() - t_start, o->progress_ud);
    }

    /* the final first front, distinct, sorted */
    uint32_t m = 0;
    front_key_t *fk = malloc((size_t)P * sizeof *fk);
    if (!fk) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < P; i++)
        if (!rank[i]) fk[m++] = (front_key_t){f[2 * i], f[2 * i + 1], pop + (size_t)i * words, words, i};
    qsort(fk, m, sizeof *fk, cmp_front);
    for (uint32_t q = 0; q < m; q++) keep[q] = fk[q].i;
    free(fk);
    res->front_mask = malloc((size_t)(m ? m : 1) * words * 8);
    res->front_f = malloc((size_t)(m ? m : 1) * 2 * sizeof *res->front_f);
    if (!res->front_mask || !res->front_f) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t q = 0; q < m; q++) {
        uint32_t i = keep[q];
        if (res->n_front && !memcmp(res->front_mask + (size_t)(res->n_front - 1) * words,
                                    pop + (size_t)i * words, words * 8))
            continue;
        memcpy(res->front_mask + (size_t)res->n_front * words, pop + (size_t)i * words, words * 8);
        res->front_f[2 * res->n_front] = f[2 * i];
        res->front_f[2 * res->n_front + 1] = f[2 * i + 1];
        res->n_front++;
    }
    res->p = p;
    res->words = words;
    es_ns_sched_stats(sched, res->dev, &res->n_dev);
    res->seconds_total = es_time_now() - t_start;
out:
    es_ns_sched_close(sched);
    free(pop);
    free(next);
    free(f);
    free(fnext);
    free(crowd);
    free(buf);
    free(rank);
    free(keep);
    free(tmp);
    free(perm);
    free(init);
    free(ds.slot);
    if (ret) es_nsga_result_free(res);
    return ret;
}

/* ---- outputs ------------------------------------------------------------------------------------ */

int es_nsga_write_front(FILE *fp, const es_nsga_result_t *r, const es_nsga_data_t *d)
{
    char num[64];
    fputs("N_FEATURES\tF1\tF2\tFEATURES\n", fp);
    for (uint32_t q = 0; q < r->n_front; q++) {
        const uint64_t *m = r->front_mask + (size_t)q * r->words;
        fprintf(fp, "%u\t", es_ns_ones(m, r->words));
        *es_fmt_g(num, r->front_f[2 * q], 10) = '\0';
        fprintf(fp, "%s\t", num);
        *es_fmt_g(num, r->front_f[2 * q + 1], 10) = '\0';
        fprintf(fp, "%s\t", num);
        int first = 1;
        for (uint32_t f = 0; f < r->p; f++)
            if (es_ns_bit(m, f)) {
                if (!first) fputc(',', fp);
                first = 0;
                if (d->names) fputs(d->names[f], fp);
                else fprintf(fp, "%u", f + 1);
            }
        if (first) fputc('-', fp);
        fputc('\n', fp);
    }
    return ferror(fp) ? ES_ERR_IO : ES_OK;
}

int es_nsga_write_hv(FILE *fp, const es_nsga_result_t *r)
{
    char a[64];
    fputs("GENERATION\tHV\n", fp);
    for (uint32_t g = 0; g < r->n_hv; g++) {
        *es_fmt_g(a, r->hv[g], 10) = '\0';
        fprintf(fp, "%u\t%s\n", g, a);
    }
    return ferror(fp) ? ES_ERR_IO : ES_OK;
}

int es_nsga_eval_one(const es_nsga_data_t *d, const es_nsga_opt_t *o, const uint64_t *mask,
                     const uint32_t *init, int simd, double f[2])
{
    es_ns_problem_t pb = {.d = d,
                          .obj = o->obj,
                          .knn_k = o->knn_k,
                          .clusters = o->clusters,
                          .kmeans_iter = o->kmeans_iter,
                          .zdt_vars = o->zdt_vars,
                          .init = init};
    es_ns_scratch_t s;
    int ret = es_ns_scratch_alloc(&s, &pb);
    if (ret) return ret;
    es_ns_eval_cpu(&pb, mask, &s, simd, f);
    es_ns_scratch_free(&s);
    return ES_OK;
}
