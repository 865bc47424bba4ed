/* nsga_internal.h -- not public API: what the files of src/nsga/ share (the
 * random streams, the CPU fitness kernels and their scratch, the devices'
 * scheduler). */
#ifndef ES_NSGA_INTERNAL_H
#define ES_NSGA_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>

#include "nsga.h"
#include "nsga_gpu.h"

/* ---- random numbers: one stream per (seed, generation, individual) ----------- */

/** xoshiro256** seeded through splitmix64 from (seed, gen, idx): the draws
 *  of an individual never depend on which thread or device made them. */
typedef struct {
    uint64_t s[4];
} es_ns_rng_t;

/* Streams that are not an individual's. */
#define ES_NS_STREAM_KMEANS UINT32_MAX

void es_ns_rng_seed(es_ns_rng_t *r, uint64_t seed, uint32_t gen, uint32_t idx);
uint64_t es_ns_rng_next(es_ns_rng_t *r);
/** Uniform in [0, n) (n >= 1), unbiased. */
uint32_t es_ns_rng_below(es_ns_rng_t *r, uint32_t n);
/** Uniform in [0, 1) with 53 bits. */
double es_ns_rng_unit(es_ns_rng_t *r);

/** The K-means initial centroids of generation gen: k distinct samples of n,
 *  in draw order. */
void es_ns_kmeans_init(uint64_t seed, uint32_t gen, uint32_t n, uint32_t k, uint32_t *out);

/* ---- masks ----------------------------------------------------------------------- */

static inline int es_ns_bit(const uint64_t *m, uint32_t f)
{
    return (int)(m[f >> 6] >> (f & 63) & 1u);
}

static inline uint32_t es_ns_ones(const uint64_t *m, uint32_t words)
{
    uint32_t c = 0;
    for (uint32_t w = 0; w < words; w++) c += (uint32_t)__builtin_popcountll(m[w]);
    return c;
}

/* ---- the CPU kernels (eval_cpu.c) ------------------------------------------------- */

/** What one evaluation reads besides its mask (fixed for a generation). */
typedef struct {
    const es_nsga_data_t *d;
    es_nsga_obj_t obj;
    uint32_t knn_k, clusters, kmeans_iter, zdt_vars;
    const uint32_t *init; /* clusters initial centroid slots (K-means) */
} es_ns_problem_t;

/** A thread's buffers (es_ns_scratch_alloc(); free with es_ns_scratch_free()). */
typedef struct {
    uint32_t *idx;   /* p selected features */
    const float **col; /* p: the selected columns of the data */
    float *dist;     /* n_slots */
    float *cent;     /* max(clusters, classes) * p centroids */
    double *sum;     /* same, the sums */
    uint32_t *cnt;   /* max(clusters, classes) */
    uint16_t *assign;/* n_slots: a slot's cluster or predicted class */
    uint16_t *prev;  /* n_slots: the previous assignment (K-means) */
    uint32_t *cand;  /* n_slots + 16: k-NN candidates */
    float *pad;      /* n_slots: 0 for a sample's slot, +inf for a pad (k-NN) */
    /* NULL, or a flag that, once set, ends an evaluation early with values to discard
       (the scheduler's take-back, sched.c; polled every K-means iteration and cluster,
       k-NN test sample and nearest-centroid fold) */
    const _Atomic int *stop;
} es_ns_scratch_t;

int es_ns_scratch_alloc(es_ns_scratch_t *s, const es_ns_problem_t *pb);
void es_ns_scratch_free(es_ns_scratch_t *s);

/** The two objectives of one mask.  simd: 0 the scalar twin, 1 the best this
 *  CPU has (AVX-512 where present): the same values bit for bit.  Where s->stop
 *  is set during the evaluation, f may be left anything: the caller discards it. */
void es_ns_eval_cpu(const es_ns_problem_t *pb, const uint64_t *mask, es_ns_scratch_t *s,
                    int simd, double f[2]);

/** "avx512" or "scalar": the kernel es_ns_eval_cpu(simd = 1) uses. */
const char *es_ns_cpu_kernel_name(void);

/* ---- the devices (sched.c) ---------------------------------------------------------- */

typedef struct es_ns_sched es_ns_sched_t;

/** Open the devices listed in spec ("cpu,gpu:0"; NULL = "cpu") for pb's data.
 *  @return ES_OK, ES_ERR_ARG (a bad list), ES_ERR_UNSUPPORTED (no such GPU),
 *          ES_ERR_GPU, ES_ERR_NOMEM */
int es_ns_sched_open(es_ns_sched_t **out, const char *spec, int threads,
                     const es_ns_problem_t *pb, uint32_t max_pop, uint32_t words);
/** Evaluate n masks (words each) into f[2i..]: devices claim chunks of them
 *  from one counter.  init: the generation's K-means centroids (or NULL).
 *  @return ES_OK or ES_ERR_GPU / ES_ERR_NOMEM */
int es_ns_sched_eval(es_ns_sched_t *s, const uint64_t *masks, uint32_t n, const uint32_t *init,
                     double *f);
/** The devices' counts and times so far. */
void es_ns_sched_stats(const es_ns_sched_t *s, es_nsga_devstat_t *dev, uint32_t *n_dev);
void es_ns_sched_close(es_ns_sched_t *s);

#endif /* ES_NSGA_INTERNAL_H */
