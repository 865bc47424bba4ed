/* sched.c -- the population's evaluations spread over the devices.  With
 * one GPU (with or without the CPU) each generation is planned before it
 * starts (eval_planned() below says how); with several GPUs, or
 * EPISTREAM_NSGA_SCHED=dynamic, by
 * dynamic self-scheduling (as in Escobar, Ortega et al.'s CPU+GPU NSGA-II):
 * one host thread per device (the CPU's thread pool counts as one device)
 * claims individuals from one shared span, so a faster device simply takes
 * more.  Which device evaluated an individual never changes its values.
 *
 * The span [front, back) of unclaimed individuals is one 64-bit word, so one
 * compare-and-swap claims from either end: the GPUs take chunks from the
 * front, the CPU pool's threads one individual at a time from the back.
 * What a device claims is sized from the rates measured so far, in weight
 * per second (an individual's weight: its selected features plus a fixed
 * part, the cost of an evaluation growing with them):
 *  - a GPU claims its full chunk (every SM holding as many blocks as fit) or
 *    all that is left, as it would alone;
 *  - a CPU thread claims the back individual only when it expects to finish
 *    it before the GPUs, at their rate, would finish everything else left
 *    (their current chunks included): so the CPU only ever takes work off the
 *    GPUs, never holds their generation up.  The expectation is scaled by a
 *    margin that grows when a generation's CPU tail did outlast the GPUs and
 *    shrinks back when it did not;
 *  - GPUs among themselves: one whose next chunk would outlast the other
 *    GPUs' finishing everything left leaves the rest to them (the last GPU
 *    claiming never leaves), so every individual is always claimed.
 * Without a GPU the CPU threads claim everything, one at a time.
 *
 * With the CPU and GPUs, each generation also chooses whether the CPU takes
 * part at all: a generation's whole rate (its weight over its wall time) is
 * kept for each mode, smoothed, and the faster one runs, the other tried
 * again after PROBE_FIRST generations, then after twice as many each time
 * it is still the slower (back to PROBE_FIRST when it won).  So a
 * population whose generation
 * the GPUs finish in a few milliseconds, where the CPU threads' start and
 * claims cost more than they take off the GPUs, runs on the GPUs alone.
 *
 * EPISTREAM_NSGA_SIM_GPU=1 (tests): every gpu:N is simulated by one host
 * thread that claims chunks of 4 as a GPU does and evaluates them with the
 * CPU kernel, so that the mixed schedule runs (and is tested) without a GPU. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "nsga_internal.h"

/* An individual's weight: its features and this many more (the part of an
   evaluation that does not grow with them). */
#define W_FIXED 4.0
/* A simulated GPU's chunk. */
#define SIM_CHUNK 4
/* The slower of the two modes (with the CPU or GPUs alone) runs again after
   this many generations (doubling while it stays the slower), so that a
   change of speed is seen. */
#define PROBE_FIRST 16

/* Where a generation's time went (EPISTREAM_NSGA_TIMING=1), summed over the run. */
typedef struct {
    uint64_t gens, gens_cpu, cpu_evals, gpu_evals, launches, wide;
    double eval;      /* es_ns_sched_eval() as a whole */
    double order;     /* weights, sort and the choice of the CPU's part */
    double upload;    /* es_gkn_population() and the launch call */
    double gpu;       /* a launch's start to its values back on the host */
    double kernel;    /* the kernels alone (CUDA events) */
    double wake;      /* the CPU region's start to its first claim */
    double cpu_late;  /* the CPU's end after the GPU's (the GPU's host thread waiting) */
    double gpu_late;  /* the GPU's end after the CPU's (the CPU threads idle) */
    double scatter;   /* the GPU's values to their individuals */
    uint64_t probes;  /* generations whose CPU threads only measured their rate */
    uint64_t taken;   /* CPU individuals taken back while a CPU thread evaluated them */
    uint64_t retaken; /* CPU individuals evaluated again on the GPU (taken, or never begun) */
    double relaunch;  /* the second launch's start to its values back */
} timing_t;

typedef struct {
    int gpu;         /* -1: the CPU pool, else the CUDA device */
    int sim;         /* a GPU simulated on a host thread (tests) */
    es_gkn_t *g;
    es_ns_scratch_t sim_scr;
    uint32_t chunk;  /* the most individuals of one claim */
    /* weight per second (the CPU pool: of one thread), measured, 0 none yet */
    _Atomic double rate;
    _Atomic double busy_until; /* a GPU: when its current chunk should be done */
    double t_end;    /* when it finished its last work of the generation */
    double kernel;   /* a GPU: its kernels' time (CUDA events) */
    uint64_t launches, wide;
    es_nsga_devstat_t st;
    int err;
} device_t;

struct es_ns_sched {
    es_ns_problem_t pb;
    uint32_t words;
    int threads;
    uint32_t n_dev, n_gpu;
    int cpu;         /* the CPU pool is a device */
    device_t dev[ES_NSGA_MAX_DEVICES];
    es_ns_scratch_t *scr; /* one per CPU thread */
    double *wsum;    /* max_pop + 1: wsum[i] the weight of individuals [0, i) */
    double margin;   /* >= 1: how much longer than measured a CPU thread assumes it takes */
    double gen_rate[2]; /* weight per second of whole generations: [0] GPUs alone, [1] with the CPU */
    uint64_t gens;   /* generations evaluated */
    uint64_t probe_next, probe_gap; /* the next generation of the slower mode (the planned
                                       schedule: of a CPU probe), and the gap to it */
    /* the planned schedule (one GPU, with or without the CPU) */
    int planned;     /* 0: the chunked self-scheduling above (EPISTREAM_NSGA_SCHED=dynamic) */
    int timing;      /* EPISTREAM_NSGA_TIMING=1: the breakdown on stderr at the end */
    uint32_t *order; /* max_pop: the generation's individuals, heaviest first */
    uint32_t *ones;  /* max_pop: an individual's selected features */
    uint32_t *bucket;/* p + 1: the counting sort's first position of each count */
    double *gf;      /* 2 max_pop: the GPU's values in position order */
    double *ow;      /* max_pop: the weights in that order */
    double *load;    /* threads: the CPU threads' planned loads */
    double g_fix;    /* a GPU launch's fixed cost (s) */
    uint32_t g_chunk;/* the most individuals of one wave (the SMs times the blocks an SM holds) */
    double g_one;    /* weight per second of the heaviest individual of a launch alone */
    double g_all;    /* weight per second of a launch's whole weight (0: unknown) */
    double g_many;   /* the same for launches of several waves (0: unknown) */
    double g_solo;   /* weight per second of one individual launched alone (measured at open) */
    double c_wake;   /* seconds from the CPU region's start to its first claim */
    double c_a, c_b; /* a CPU thread alone (measured at open): c_a + c_b m seconds for m features */
    double c_slow;   /* a CPU thread with the GPU busy: c_slow times that (measured) */
    int c_loaded;    /* c_slow measured (by a probe or a share) */
    double *cw;      /* max_pop: c_a + c_b m of each position */
    uint32_t *order2;/* max_pop: the order with the CPU's share first */
    int takeback_all;/* EPISTREAM_NSGA_TAKEBACK=all (tests): every CPU individual not done
                        when the GPU's values are back is taken back and evaluated again */
    _Atomic uint32_t *state; /* max_pop: who evaluates a position of the CPU's part (TB_*) */
    double *q_t0;    /* max_pop: when a CPU thread began a position */
    _Atomic int stop;/* the CPU threads' evaluations end now (es_ns_scratch_t.stop) */
    timing_t tm;
    /* the evaluation in progress */
    const uint64_t *masks;
    double *f;
    uint32_t n;
    _Atomic uint64_t span;   /* unclaimed: [low 32 bits, high 32 bits) */
    _Atomic uint32_t active; /* GPUs still claiming */
    _Atomic int cpu_left;    /* a CPU thread left work to the GPUs this generation */
};

static inline uint64_t span_of(uint32_t front, uint32_t back)
{
    return (uint64_t)back << 32 | front;
}

/* Parse "cpu,gpu:0,gpu:1" into s->dev (gpu = gpu:0). */
static int parse_devices(es_ns_sched_t *s, const char *spec)
{
    const char *q = spec && *spec ? spec : "cpu";
    while (*q) {
        const char *e = strchr(q, ',');
        size_t len = e ? (size_t)(e - q) : strlen(q);
        int gpu;
        if (len == 3 && !strncmp(q, "cpu", 3)) gpu = -1;
        else if (len == 3 && !strncmp(q, "gpu", 3)) gpu = 0;
        else if (len > 4 && !strncmp(q, "gpu:", 4)) {
            gpu = 0;
            for (size_t k = 4; k < len; k++) {
                if (q[k] < '0' || q[k] > '9' || gpu > 1000) {
                    gpu = -2;
                    break;
                }
                gpu = gpu * 10 + (q[k] - '0');
            }
        } else gpu = -2;
        if (gpu == -2) {
            es_error("--devices: expected cpu, gpu or gpu:N separated by commas, got '%.*s'",
                     (int)len, q);
            return ES_ERR_ARG;
        }
        for (uint32_t k = 0; k < s->n_dev; k++)
            if (s->dev[k].gpu == gpu) {
                es_error("--devices: '%.*s' listed twice", (int)len, q);
                return ES_ERR_ARG;
            }
        if (s->n_dev == ES_NSGA_MAX_DEVICES) {
            es_error("--devices: at most %d devices", ES_NSGA_MAX_DEVICES);
            return ES_ERR_ARG;
        }
        s->dev[s->n_dev++].gpu = gpu;
        q += len;
        if (*q == ',') {
            q++;
            if (!*q) {
                es_error("--devices: '%s' ends with a comma", spec);
                return ES_ERR_ARG;
            }
        }
    }
    return ES_OK;
}

/* One individual of every feature launched alone, the better of two: s->g_solo, the rate
 * that a second launch of a few taken-back individuals is planned with before a launch of
 * one wave has been measured; s->g_chunk, a wave's individuals. */
static int measure_solo(es_ns_sched_t *s, es_gkn_t *g, const es_ns_problem_t *pb, uint32_t words)
{
    uint32_t p = pb->d->p, *init = calloc(pb->clusters ? pb->clusters : 1, sizeof *init);
    uint64_t *mask = calloc(words, sizeof *mask);
    int ret = ES_OK;
    s->g_chunk = es_gkn_chunk(g);
    if (!init || !mask) ret = ES_ERR_NOMEM;
    for (uint32_t c = 0; c < pb->clusters && !ret; c++) init[c] = c < pb->d->n ? c : 0;
    for (uint32_t f = 0; f < p && !ret; f++) mask[f >> 6] |= 1ull << (f & 63);
    double fv[2], best = 0.0;
    if (!ret) ret = es_gkn_population(g, mask, 1, pb->clusters ? init : NULL, NULL);
    for (int k = 0; k < 2 && !ret; k++) {
        double t0 = es_time_now();
        ret = es_gkn_eval(g, 0, 1, fv);
        double secs = es_time_now() - t0;
        if (!k || secs < best) best = secs;
    }
    if (!ret && best > s->g_fix) s->g_solo = (W_FIXED + p) / (best - s->g_fix);
    free(init);
    free(mask);
    return ret;
}

int es_ns_sched_open(es_ns_sched_t **out, const char *spec, int threads,
                     const es_ns_problem_t *pb, uint32_t max_pop, uint32_t words)
{
    es_ns_sched_t *s = calloc(1, sizeof *s);
    int ret;
    *out = NULL;
    if (!s) return ES_ERR_NOMEM;
    s->pb = *pb;
    s->words = words;
    s->margin = 1.0;
#ifdef _OPENMP
    s->threads = threads > 0 ? threads : omp_get_max_threads();
#else
    s->threads = 1;
    (void)threads;
#endif
    if ((ret = parse_devices(s, spec))) goto fail;
    if (!(s->wsum = malloc(((size_t)max_pop + 1) * sizeof *s->wsum))) {
        ret = ES_ERR_NOMEM;
        goto fail;
    }
    for (uint32_t k = 0; k < s->n_dev; k++) {
        s->n_gpu += s->dev[k].gpu >= 0;
        s->cpu |= s->dev[k].gpu < 0;
    }
#ifdef _OPENMP
    /* by default each GPU's host thread keeps a core of its own: with every core
       in the CPU pool, a GPU thread waiting on its device was descheduled and
       CPU+GPU ran slower than either (H200 host, 32 cores, 2026-11-27) */
    if (threads <= 0 && s->n_gpu && s->threads > (int)s->n_gpu) s->threads -= (int)s->n_gpu;
#endif
    const char *sim = es_env_variant("EPISTREAM_NSGA_SIM_GPU"), *sv = es_env_variant("EPISTREAM_NSGA_SCHED"),
               *tv = es_env_variant("EPISTREAM_NSGA_TIMING");
    s->planned = s->n_gpu == 1 && !(sv && !strcmp(sv, "dynamic"));
    s->timing = tv && !strcmp(tv, "1");
    const char *kv = es_env_variant("EPISTREAM_NSGA_TAKEBACK");
    s->takeback_all = kv && !strcmp(kv, "all");
    if (s->planned &&
        (!(s->order = malloc((size_t)max_pop * sizeof *s->order)) ||
         !(s->ones = malloc((size_t)max_pop * sizeof *s->ones)) ||
         !(s->bucket = malloc(((size_t)pb->d->p + 1) * sizeof *s->bucket)) ||
         !(s->gf = malloc((size_t)max_pop * 2 * sizeof *s->gf)) ||
         !(s->ow = malloc((size_t)max_pop * sizeof *s->ow)) ||
         !(s->load = malloc(((size_t)s->threads + 1) * sizeof *s->load)) ||
         !(s->state = calloc((size_t)max_pop, sizeof *s->state)) ||
         !(s->q_t0 = calloc((size_t)max_pop, sizeof *s->q_t0)) ||
         !(s->cw = calloc((size_t)max_pop, sizeof *s->cw)) ||
         !(s->order2 = calloc((size_t)max_pop, sizeof *s->order2)))) {
        ret = ES_ERR_NOMEM;
        goto fail;
    }
    for (uint32_t k = 0; k < s->n_dev; k++) {
        device_t *v = &s->dev[k];
        if (v->gpu < 0) {
            int n_scr = s->threads; /* one a CPU thread */
            if (!(s->scr = calloc((size_t)n_scr, sizeof *s->scr))) {
                ret = ES_ERR_NOMEM;
                goto fail;
            }
            for (int t = 0; t < n_scr; t++)
                if ((ret = es_ns_scratch_alloc(&s->scr[t], pb))) goto fail;
            v->chunk = 1;
            snprintf(v->st.name, sizeof v->st.name, "cpu (%d thread%s, %s)", s->threads,
                     s->threads == 1 ? "" : "s", es_ns_cpu_kernel_name());
            continue;
        }
        if (pb->obj == ES_NSGA_ZDT1) {
            es_error("--devices: zdt1 is evaluated on the CPU only");
            ret = ES_ERR_ARG;
            goto fail;
        }
        if (sim && !strcmp(sim, "1")) {
            v->sim = 1;
            if ((ret = es_ns_scratch_alloc(&v->sim_scr, pb))) goto fail;
            v->chunk = SIM_CHUNK;
            s->g_chunk = SIM_CHUNK;
            snprintf(v->st.name, sizeof v->st.name, "gpu:%d (simulated on a host thread)", v->gpu);
            continue;
        }
        int n_gpu = 0;
        if (es_gkn_device_count(&n_gpu) || v->gpu >= n_gpu) {
            es_error("--devices: no GPU %d (%d visible)", v->gpu, n_gpu);
            ret = ES_ERR_UNSUPPORTED;
            goto fail;
        }
        const es_nsga_data_t *d = pb->d;
        uint32_t one_fold[2] = {0, d->n_slots};
        es_gkn_config_t cfg = {.obj = (int)pb->obj,
                               .n = d->n,
                               .p = d->p,
                               .n_slots = d->n_slots,
                               .n_classes = d->n_classes,
                               .n_folds = d->n_folds,
                               .fold_off = d->n_folds ? d->fold_off : one_fold,
                               .fold_n = d->fold_n,
                               .xc = d->xc,
                               .xr = d->xr,
                               .orig = d->orig,
                               .y = d->y,
                               .knn_k = pb->knn_k,
                               .clusters = pb->clusters,
                               .kmeans_iter = pb->kmeans_iter,
                               .max_pop = max_pop,
                               .words = words};
        if ((ret = es_gkn_open(v->gpu, &cfg, &v->g))) goto fail;
        v->chunk = es_gkn_chunk(v->g);
        s->g_fix = es_gkn_launch_overhead(v->g);
        if (s->planned && (ret = measure_solo(s, v->g, pb, words))) goto fail;
        snprintf(v->st.name, sizeof v->st.name, "%s", es_gkn_name(v->g));
    }
    if (s->planned && s->cpu) {
        /* the CPU threads started here, not in a generation */
#pragma omp parallel num_threads(s->threads + 1)
        {
            (void)0;
        }
        /* and a thread's time for an individual of m features, c_a + c_b m, measured with
           the threads idle (the better of two evaluations of every other feature and of
           every eighth: the plan's first guess, then scaled by c_slow as measured with
           the GPU busy) */
        uint32_t p = pb->d->p, *init = calloc(pb->clusters ? pb->clusters : 1, sizeof *init);
        uint64_t *mask = calloc(words, sizeof *mask);
        if (!init || !mask) {
            free(init);
            free(mask);
            ret = ES_ERR_NOMEM;
            goto fail;
        }
        for (uint32_t c = 0; c < pb->clusters; c++) init[c] = c < pb->d->n ? c : 0; /* as measure_solo */
        es_ns_problem_t pc = *pb;
        pc.init = init;
        double fv[2], secs[2] = {0.0, 0.0};
        uint32_t m[2] = {0, 0};
        for (int z = 0; z < 2; z++) {
            uint32_t step = z ? 2 : 8;
            memset(mask, 0, words * sizeof *mask);
            for (uint32_t f = 0; f < p; f += step) mask[f >> 6] |= 1ull << (f & 63);
            m[z] = (p + step - 1) / step;
            for (int k = 0; k < 2; k++) {
                double t0 = es_time_now();
                es_ns_eval_cpu(&pc, mask, &s->scr[0], 1, fv);
                double t = es_time_now() - t0;
                if (!k || t < secs[z]) secs[z] = t;
            }
        }
        if (secs[1] > 0) {
            for (uint32_t k = 0; k < s->n_dev; k++)
                if (s->dev[k].gpu < 0) atomic_store(&s->dev[k].rate, (W_FIXED + m[1]) / secs[1]);
            s->c_b = m[1] > m[0] && secs[1] > secs[0] ? (secs[1] - secs[0]) / (m[1] - m[0]) : secs[1] / (m[1] ? m[1] : 1);
            s->c_a = secs[1] - s->c_b * m[1] > 0 ? secs[1] - s->c_b * m[1] : 0.0;
        }
        s->c_slow = 1.0;
        s->margin = 1.15;
        free(init);
        free(mask);
    }
    *out = s;
    return ES_OK;
fail:
    es_ns_sched_close(s);
    return ret;
}

static void print_timing(const es_ns_sched_t *s);

void es_ns_sched_close(es_ns_sched_t *s)
{
    if (!s) return;
    for (uint32_t k = 0; k < s->n_dev; k++) {
        es_gkn_close(s->dev[k].g);
        if (s->dev[k].sim) es_ns_scratch_free(&s->dev[k].sim_scr);
    }
    if (s->scr)
        for (int t = 0; t < s->threads; t++) es_ns_scratch_free(&s->scr[t]);
    if (s->timing) print_timing(s);
    free(s->scr);
    free(s->wsum);
    free(s->order);
    free(s->ones);
    free(s->bucket);
    free(s->gf);
    free(s->ow);
    free(s->load);
    free(s->state);
    free(s->q_t0);
    free(s->cw);
    free(s->order2);
    free(s);
}

/* The GPUs' expected finish of the work left, now + (the weight of [front,
 * back) + what their current chunks still hold) / their rates together; 0
 * while a GPU's rate is unknown. */
static double gpus_finish(const es_ns_sched_t *s, double now, uint32_t front, uint32_t back)
{
    double r = 0.0, busy = 0.0;
    for (uint32_t k = 0; k < s->n_dev; k++) {
        const device_t *v = &s->dev[k];
        if (v->gpu < 0) continue;
        double rv = atomic_load(&v->rate), until = atomic_load(&v->busy_until);
        if (rv <= 0) return 0.0;
        r += rv;
        if (until > now) busy += rv * (until - now);
    }
    return now + (s->wsum[back] - s->wsum[front] + busy) / r;
}

/* A CPU thread: claim the back individual *i unless, at the rates measured,
 * the thread would still be busy with it when the GPUs had finished all the
 * rest.  @return 0 when the thread is done for this generation */
static int claim_back(es_ns_sched_t *s, const device_t *cpu, uint32_t *i)
{
    uint64_t sp = atomic_load(&s->span);
    for (;;) {
        uint32_t front = (uint32_t)sp, back = (uint32_t)(sp >> 32);
        if (back <= front) return 0;
        double r = atomic_load(&cpu->rate);
        if (s->n_gpu && r > 0) {
            double now = es_time_now(), t_gpu = gpus_finish(s, now, front, back - 1);
            double w = s->wsum[back] - s->wsum[back - 1];
            if (t_gpu > 0 && now + s->margin * w / r > t_gpu) {
                atomic_store(&s->cpu_left, 1);
                return 0;
            }
        }
        if (atomic_compare_exchange_weak(&s->span, &sp, span_of(front, back - 1))) {
            *i = back - 1;
            return 1;
        }
    }
}

/* A GPU: claim the next chunk from the front, [*a, *b): a full chunk, or
 * all that is left (a launch of fewer blocks takes little less time: the
 * CPU, not a smaller launch, trims the GPUs' tail).  @return 0 when the GPU
 * is done */
static int claim_front(es_ns_sched_t *s, device_t *v, uint32_t *a, uint32_t *b)
{
    uint64_t sp = atomic_load(&s->span);
    for (;;) {
        uint32_t front = (uint32_t)sp, back = (uint32_t)(sp >> 32);
        if (back <= front) return 0;
        uint32_t left = back - front, c = v->chunk < left ? v->chunk : left;
        double rv = atomic_load(&v->rate), gpus = 0.0;
        int known = rv > 0;
        for (uint32_t k = 0; k < s->n_dev; k++) {
            const device_t *u = &s->dev[k];
            if (u->gpu < 0 || u == v) continue;
            double r = atomic_load(&u->rate);
            known &= r > 0;
            gpus += r;
        }
        if (known && gpus > 0) {
            /* the next chunk would outlast the other GPUs finishing everything left */
            double w = s->wsum[front + c] - s->wsum[front];
            if (w / rv > (s->wsum[back] - s->wsum[front]) / gpus) {
                uint32_t act = atomic_load(&s->active);
                if (act > 1 && atomic_compare_exchange_weak(&s->active, &act, act - 1)) return 0;
                if (act > 1) continue; /* the count moved: look again */
            }
        }
        if (atomic_compare_exchange_weak(&s->span, &sp, span_of(front + c, back))) {
            *a = front;
            *b = front + c;
            return 1;
        }
    }
}

/* A rate sample (weight w in secs), smoothed. */
static void measured(device_t *v, double w, double secs)
{
    if (secs <= 0) return;
    double r = w / secs, old = atomic_load(&v->rate);
    atomic_store(&v->rate, old > 0 ? 0.5 * old + 0.5 * r : r);
}

/* The CPU pool: its threads, in one parallel region per generation, each
 * claim one individual at a time from the back and evaluate it. */
static void run_cpu(es_ns_sched_t *s, device_t *v)
{
    uint64_t done = 0;
    double t_end = 0.0;
#pragma omp parallel num_threads(s->threads) reduction(+ : done) reduction(max : t_end)
    {
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#endif
        uint32_t i;
        while (claim_back(s, v, &i)) {
            double t0 = es_time_now();
            es_ns_eval_cpu(&s->pb, s->masks + (size_t)i * s->words, &s->scr[t], 1, s->f + 2 * (size_t)i);
            t_end = es_time_now();
            measured(v, s->wsum[i + 1] - s->wsum[i], t_end - t0);
            done++;
        }
    }
    v->t_end = t_end;
    v->st.evaluations += done;
    v->st.chunks += done;
}

static void run_gpu(es_ns_sched_t *s, device_t *v)
{
    uint32_t a, b;
    if (!v->sim && (v->err = es_gkn_population(v->g, s->masks, s->n, s->pb.init, NULL))) {
        atomic_fetch_sub(&s->active, 1);
        return;
    }
    while (claim_front(s, v, &a, &b)) {
        double t0 = es_time_now(), w = s->wsum[b] - s->wsum[a], r = atomic_load(&v->rate);
        atomic_store(&v->busy_until, r > 0 ? t0 + w / r : 0.0);
        if (v->sim) {
            for (uint32_t i = a; i < b; i++)
                es_ns_eval_cpu(&s->pb, s->masks + (size_t)i * s->words, &v->sim_scr, 1,
                               s->f + 2 * (size_t)i);
        } else if ((v->err = es_gkn_eval(v->g, a, b - a, s->f + 2 * (size_t)a))) {
            atomic_fetch_sub(&s->active, 1);
            return;
        } else {
            int wide;
            v->kernel += es_gkn_kernel_seconds(v->g, &wide);
            v->launches++;
            v->wide += (uint64_t)wide;
        }
        v->t_end = es_time_now();
        measured(v, w, v->t_end - t0);
        atomic_store(&v->busy_until, 0.0);
        v->st.evaluations += b - a;
        v->st.chunks++;
    }
}

typedef struct {
    es_ns_sched_t *s;
    device_t *v;
} job_t;

static void *device_main(void *arg)
{
    job_t *j = arg;
    double t0 = es_time_now();
    j->v->t_end = 0.0;
    if (j->v->gpu < 0) run_cpu(j->s, j->v);
    else run_gpu(j->s, j->v);
    j->v->st.seconds += es_time_now() - t0;
    return NULL;
}

/* After a generation on the CPU and GPUs: when the CPU's last individual
 * ended after the GPUs' last chunk (the GPUs waited for it, by more than 2 %
 * of the generation), the CPU threads assume more time per individual from
 * now on; when the CPU left work to the GPUs and still ended first, a little
 * less (never below what was measured). */
static void adapt_margin(es_ns_sched_t *s, double t_start)
{
    double cpu_end = 0.0, gpu_end = 0.0;
    for (uint32_t k = 0; k < s->n_dev; k++) {
        const device_t *v = &s->dev[k];
        if (v->gpu < 0) cpu_end = v->t_end;
        else if (v->t_end > gpu_end) gpu_end = v->t_end;
    }
    if (cpu_end > 0 && gpu_end > 0 && cpu_end - gpu_end > 0.02 * (gpu_end - t_start))
        s->margin = s->margin * 1.5 < 64.0 ? s->margin * 1.5 : 64.0;
    else if (atomic_load(&s->cpu_left))
        s->margin = s->margin * 0.9 > 1.0 ? s->margin * 0.9 : 1.0;
}

/* ---- the planned schedule: one GPU, with or without the CPU ---------------------------
 *
 * Chunks of self-scheduling cost a GPU a launch and a wait each, and a launch of fewer
 * blocks than the SMs hold takes about as long as a full one: on one H200 a generation
 * of the paper's shape takes the GPU 0.3-1.7 ms, and the CPU threads' claims between its
 * chunks never shortened it.  So with one GPU each generation is planned before it
 * starts, from the times measured so far:
 *  - the individuals are ordered heaviest first (weight: selected features + W_FIXED);
 *  - the CPU threads take c consecutive ones of that order, the heaviest c or, where
 *    those would outlast the GPU, the heaviest c from the first that fits (moved to the
 *    front of the order); the GPU the others in one launch, heaviest first (so that a
 *    launch of more blocks than the SMs hold ends together);
 *  - the CPU's share minimises the later of the two ends: the CPU's, its threads taking
 *    the individuals in order each as it is free (its planned makespan that list
 *    schedule's, a thread's time for m features c_a + c_b m measured at open, times
 *    c_slow measured with the GPU busy, times a margin that grows when the CPU ended
 *    late and shrinks when it ended early, plus its threads' start); the GPU's, a
 *    launch's fixed cost plus, for a launch of one wave, the longer of its heaviest
 *    individual at the rate of one individual alone and its whole weight at the rate of
 *    a full device, for several waves its whole weight at the rate of such launches
 *    (each rate re-measured on the launches where it was the longer).  No share (the
 *    GPU alone, no CPU thread woken) unless the plan ends at least 5 % sooner;
 *  - the GPU's launch is started before the CPU threads.  When its values are back,
 *    the GPU's host thread never waits for a CPU individual that the GPU could evaluate
 *    sooner: each one no thread has begun, and each one begun whose expected rest is
 *    longer than a second launch, is taken back (its thread stops, its values are
 *    discarded) and evaluated by a second launch of those positions.  Who evaluates
 *    an individual is decided by one compare-and-swap on its position (TB_*), and its
 *    values are the same bits on either device: the front never depends on who won.
 * The CPU is given a share only once c_slow was measured with the GPU busy: by a probe,
 * every PROBE_CPU-th generation and only where the plan with the threads as fast as
 * alone (c_slow 1, no margin) would end sooner, in which the GPU evaluates the whole
 * generation and the CPU threads a few of its individuals as well, only to time them
 * (stopped when the GPU's values are back: a probe costs the GPU nothing but its
 * threads' start). */

/* A position of the CPU's part: free, begun by a CPU thread, done by it, or the GPU's. */
enum { TB_FREE = 0, TB_CPU = 1, TB_DONE = 2, TB_GPU = 3 };
/* What a generation's plan gives the CPU. */
enum { PLAN_GPU = 0, PLAN_SHARE = 1, PLAN_PROBE = 2 };

/* The GPU's planned time for a launch of count positions of weight w_all whose heaviest
 * individual is w_one (INFINITY while the rates of that kind of launch are unknown).  (A
 * launch of one wave planned by its heaviest individual alone left the CPU out of the
 * digits problem on the H200: 1.00x the GPU alone, where the longer of the two gave
 * 1.17x.) */
static double gpu_plan(const es_ns_sched_t *s, uint32_t count, double w_one, double w_all)
{
    if (!count) return 0.0;
    if (count > s->g_chunk) return s->g_many > 0 ? s->g_fix + w_all / s->g_many : INFINITY;
    if (s->g_all <= 0) return INFINITY;
    double a = w_one / s->g_one, b = w_all / s->g_all;
    return s->g_fix + (a > b ? a : b);
}

/* A second launch of a few taken-back individuals: as a launch of one wave where one was
 * measured, else at the rate of one individual alone (measured at open). */
static double gpu_relaunch(const es_ns_sched_t *s, uint32_t count, double w_one, double w_all)
{
    double t = gpu_plan(s, count, w_one, w_all);
    if (t == INFINITY && s->g_solo > 0) t = s->g_fix + w_one / s->g_solo;
    return t;
}

/* How often (generations) the CPU threads are probed while the plan leaves them out. */
#define PROBE_CPU 16
/* A share (or a probe) only where the plan ends at least 5 % sooner than the GPU alone:
 * what the plan does not model costs about that much.  On one H200 at population 960
 * (2026-11-29, 1,410 us of GPU a generation alone) shares planned to save 1-3 % saved
 * 49 us of the first launch and cost about 120: the upload slowed by the busy threads
 * (74 against 64 us), the wait for late CPU individuals (27 us) and the second launch of
 * those taken back (282 us for one individual, in 13 of 49 generations): 0.90-0.95x the
 * GPU alone.  Where the CPU can take a larger part (breast_cancer, digits: 17-30 %
 * faster) the threshold changes nothing. */
#define SHARE_GAIN 0.95

/* The CPU threads' share of the n individuals (GPU weights w, a thread's times cw times
 * x, heaviest first) from position s0: the c that make the plan end soonest, 0 unless it
 * ends sooner than SHARE_GAIN times the GPU alone; *end that plan's end. */
static uint32_t plan_from(es_ns_sched_t *s, const double *w, const double *cw, uint32_t n, uint32_t s0,
                          double x, double *end)
{
    double total = s->wsum[n], best = SHARE_GAIN * gpu_plan(s, n, w[0], total), mk = 0.0, wc = 0.0;
    uint32_t T = (uint32_t)s->threads, c_best = 0;
    for (uint32_t t = 0; t < T; t++) s->load[t] = 0.0;
    for (uint32_t c = 1; s0 + c <= n; c++) {
        uint32_t l = 0; /* the thread free first takes the next */
        for (uint32_t t = 1; t < T; t++)
            if (s->load[t] < s->load[l]) l = t;
        s->load[l] += cw[s0 + c - 1];
        if (s->load[l] > mk) mk = s->load[l];
        wc += w[s0 + c - 1];
        double tc = s->c_wake + x * mk;
        if (tc >= best) break; /* only grows from here */
        double tg = c < n ? gpu_plan(s, n - c, s0 ? w[0] : w[c], total - wc) : 0.0, t = tc > tg ? tc : tg;
        if (t < best) {
            best = t;
            c_best = c;
        }
    }
    *end = best;
    return c_best;
}

/* The better of the shares from the heaviest and, for a launch of several waves (whose
 * time is its whole weight's: a launch of one wave takes its heaviest individual's at
 * least), from the first individual a thread would end within the GPU's time alone:
 * *s0 its first position, @return its size */
static uint32_t plan_share(es_ns_sched_t *s, const double *w, const double *cw, uint32_t n, double x,
                           uint32_t *s0)
{
    double t_gpu = gpu_plan(s, n, w[0], s->wsum[n]), e0, e1;
    uint32_t c0 = plan_from(s, w, cw, n, 0, x, &e0), q = 0;
    *s0 = 0;
    while (q < n && s->c_wake + x * cw[q] >= 0.99 * t_gpu) q++;
    if (q == 0 || q == n || n <= s->g_chunk) return c0;
    uint32_t c1 = plan_from(s, w, cw, n, q, x, &e1);
    if (c1 && (!c0 || e1 < e0)) {
        *s0 = q;
        return c1;
    }
    return c0;
}

/* The CPU's part of the n individuals in s->order (GPU weights w, a thread's times cw,
 * heaviest first): positions [*lo, *hi), a share (from *lo, moved to the front by the
 * caller) or a probe. */
static int plan_cpu(es_ns_sched_t *s, const device_t *cpu, const double *w, const double *cw, uint32_t n,
                    uint32_t *lo, uint32_t *hi)
{
    *lo = *hi = 0;
#ifndef _OPENMP
    /* no CPU thread runs beside the GPU's host thread: the GPU alone */
    if (cpu) return PLAN_GPU;
#endif
    double t_gpu = n ? gpu_plan(s, n, w[0], s->wsum[n]) : INFINITY;
    if (!cpu || t_gpu == INFINITY || s->c_b <= 0) return PLAN_GPU; /* the GPU's rate first */
    uint32_t s0 = 0, c = s->c_loaded ? plan_share(s, w, cw, n, s->c_slow * s->margin, &s0) : 0;
    if (c) {
        *lo = s0;
        *hi = s0 + c;
        return PLAN_SHARE;
    }
    /* a probe: due, and the CPU as fast as alone could shorten the generation; its threads
       take the heaviest individuals each should end within half the GPU's time */
    if (s->gens < s->probe_next || !plan_share(s, w, cw, n, 1.0, &s0)) return PLAN_GPU;
    uint32_t q = 0, T = (uint32_t)s->threads;
    while (q + 1 < n && s->c_wake + cw[q] > 0.5 * t_gpu) q++;
    *lo = q;
    *hi = q + T < n ? q + T : n;
    return PLAN_PROBE;
}

/* A GPU launch of count positions, weight w_all (heaviest w_one), took secs: the rate of
 * the longer part of its plan measured again (both the first time). */
static void gpu_measured(es_ns_sched_t *s, uint32_t count, double w_one, double w_all, double secs)
{
    double x = secs - s->g_fix;
    if (x < 1e-7) x = 1e-7;
    if (count > s->g_chunk) s->g_many = s->g_many > 0 ? 0.5 * s->g_many + 0.5 * w_all / x : w_all / x;
    else if (s->g_all <= 0) {
        s->g_one = w_one / x;
        s->g_all = w_all / x;
    } else if (w_all / s->g_all >= w_one / s->g_one) s->g_all = 0.5 * s->g_all + 0.5 * w_all / x;
    else s->g_one = 0.5 * s->g_one + 0.5 * w_one / x;
}

/* The GPU's host thread, its values back, in a generation where the CPU has positions
 * [0, hi): every position no CPU thread has begun, and those begun whose expected rest
 * is longer than a second launch (all of them with EPISTREAM_NSGA_TAKEBACK=all), become
 * the GPU's; the begun ones taken are stopped.  @return the first position taken (hi:
 * none), *taken the begun ones among them */
static uint32_t take_back(es_ns_sched_t *s, const double *w, const double *cw, uint32_t hi, uint64_t *taken)
{
    double now = es_time_now(), x = s->c_slow * s->margin, rest = 0.0, w_all = 0.0;
    uint32_t first = hi, first_any = hi, begun = 0;
    *taken = 0;
    for (uint32_t q = 0; q < hi; q++) {
        uint32_t e = TB_FREE;
        if (atomic_compare_exchange_strong(&s->state[q], &e, TB_GPU)) {
            if (q < first) first = q;
        } else if (e == TB_CPU) {
            /* its expected rest: as planned, and at least a quarter of what it took so far */
            double el = now - s->q_t0[q], left = x * cw[q] - el;
            if (left < 0.25 * el) left = 0.25 * el;
            if (left > rest) rest = left;
            begun++;
        } else continue;
        if (q < first_any) first_any = q;
    }
    if (!begun) return first;
    for (uint32_t q = first_any; q < hi; q++) w_all += w[q];
    if (!s->takeback_all && !(gpu_relaunch(s, hi - first_any, w[first_any], w_all) < rest)) return first;
    for (uint32_t q = first_any; q < hi; q++) {
        uint32_t e = TB_CPU;
        if (atomic_compare_exchange_strong(&s->state[q], &e, TB_GPU)) {
            (*taken)++;
            if (q < first) first = q;
        }
    }
    if (*taken) atomic_store(&s->stop, 1);
    return first;
}

/* The weights of s->order's positions: the GPU's w and a thread's time alone cw. */
static void order_weights(es_ns_sched_t *s, uint32_t n)
{
    for (uint32_t q = 0; q < n; q++) {
        uint32_t i = s->order[q];
        s->ow[q] = s->wsum[i + 1] - s->wsum[i];
        s->cw[q] = s->c_a + s->c_b * s->ones[i];
    }
}

static int eval_planned(es_ns_sched_t *s, double t_start)
{
    uint32_t n = s->n;
    device_t *gv = NULL, *cv = NULL;
    for (uint32_t k = 0; k < s->n_dev; k++) {
        if (s->dev[k].gpu < 0) cv = &s->dev[k];
        else gv = &s->dev[k];
    }
    /* heaviest first, then by number: a counting sort on the selected features */
    uint32_t p = s->pb.d->p, *b = s->bucket;
    memset(b, 0, ((size_t)p + 1) * sizeof *b);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t o = (uint32_t)(s->wsum[i + 1] - s->wsum[i] - W_FIXED);
        s->ones[i] = o <= p ? o : p;
        b[s->ones[i]]++;
    }
    for (uint32_t o = p + 1, at = 0; o-- > 0;) { /* the first position of each count, most first */
        uint32_t k = b[o];
        b[o] = at;
        at += k;
    }
    for (uint32_t i = 0; i < n; i++) s->order[b[s->ones[i]]++] = i;
    double *w = s->ow, *cw = s->cw;
    order_weights(s, n);
    uint32_t lo, hi; /* the CPU's positions; the GPU's: [g0, n) */
    int mode = plan_cpu(s, cv, w, cw, n, &lo, &hi);
    if (mode == PLAN_SHARE && lo) { /* the share to the front: positions [0, c), the rest heaviest first */
        uint32_t c = hi - lo, *o2 = s->order2;
        memcpy(o2, s->order + lo, (size_t)c * sizeof *o2);
        memcpy(o2 + c, s->order, (size_t)lo * sizeof *o2);
        memcpy(s->order, o2, (size_t)(lo + c) * sizeof *o2);
        order_weights(s, lo + c);
        lo = 0;
        hi = c;
    }
    uint32_t g0 = mode == PLAN_SHARE ? hi : 0, n_gpu = n - g0;
    if (mode == PLAN_SHARE) s->probe_next = s->gens + PROBE_CPU;
    double w_one = 0.0, w_all = 0.0;
    for (uint32_t q = g0; q < n; q++) {
        w_all += w[q];
        if (w[q] > w_one) w_one = w[q];
    }
    double t_plan = es_time_now();
    s->tm.order += t_plan - t_start;
    /* the GPU's part, positions [g0, n), started */
    if (!gv->sim && ((gv->err = es_gkn_population(gv->g, s->masks, n, s->pb.init, s->order)) ||
                     (gv->err = es_gkn_launch(gv->g, g0, n_gpu))))
        return gv->err;
    double t_launch = es_time_now(), t_gpu_end = t_launch, t_gpu_first = t_launch, t_cpu_end = 0.0,
           t_first = 0.0, kernel = 0.0;
    s->tm.upload += t_launch - t_plan;
    uint32_t first = hi; /* the positions of the CPU's part taken back: TB_GPU in [first, hi) */
    uint64_t cpu_done = 0, taken = 0;
    int err = ES_OK, wide = 0;
    if (mode == PLAN_GPU) {
        if (gv->sim) {
            for (uint32_t q = 0; q < n; q++)
                es_ns_eval_cpu(&s->pb, s->masks + (size_t)s->order[q] * s->words, &gv->sim_scr, 1,
                               s->f + 2 * (size_t)s->order[q]);
        } else if (!(err = es_gkn_wait(gv->g, s->gf))) kernel = es_gkn_kernel_seconds(gv->g, &wide);
        t_gpu_end = t_gpu_first = es_time_now();
    } else {
        const int T = s->threads, share = mode == PLAN_SHARE;
        (void)T; /* the region's thread count: unused without OpenMP */
        double t_par = es_time_now(), took = 0.0, want = 0.0, took_lb = 0.0, want_lb = 0.0;
        _Atomic uint32_t next = lo;
        atomic_store(&s->stop, 0);
        for (uint32_t q = lo; q < hi; q++) atomic_store_explicit(&s->state[q], TB_FREE, memory_order_relaxed);
#pragma omp parallel num_threads(T + 1) reduction(+ : cpu_done, took, want, took_lb, want_lb) \
    reduction(max : t_cpu_end)
        {
            /* the last thread the region has (T + 1 asked; fewer without OpenMP,
             * or where OpenMP gives fewer) is the GPU's: without it nothing would
             * collect the launch, and with one thread it takes the whole part back */
            int t = 0, nth = 1;
#ifdef _OPENMP
            t = omp_get_thread_num();
            nth = omp_get_num_threads();
#endif
            if (t == nth - 1) { /* the GPU's host thread: its values back, then the CPU's part it takes back */
                int e = ES_OK;
                if (gv->sim) {
                    for (uint32_t q = g0; q < n; q++)
                        es_ns_eval_cpu(&s->pb, s->masks + (size_t)s->order[q] * s->words, &gv->sim_scr,
                                       1, s->f + 2 * (size_t)s->order[q]);
                } else if (!(e = es_gkn_wait(gv->g, s->gf))) kernel = es_gkn_kernel_seconds(gv->g, &wide);
                t_gpu_end = t_gpu_first = es_time_now();
                if (!share) atomic_store(&s->stop, 1); /* a probe: its threads stop now */
                else if (!e && (first = take_back(s, w, cw, hi, &taken)) < hi) {
                    /* positions [first, hi) again (those the CPU did: the same values, not used) */
                    double *g2 = s->gf + 2 * (size_t)n_gpu;
                    if (gv->sim) {
                        for (uint32_t q = first; q < hi; q++)
                            if (atomic_load(&s->state[q]) == TB_GPU)
                                es_ns_eval_cpu(&s->pb, s->masks + (size_t)s->order[q] * s->words,
                                               &gv->sim_scr, 1, g2 + 2 * (size_t)(q - first));
                    } else if (!(e = es_gkn_eval(gv->g, first, hi - first, g2)))
                        kernel += es_gkn_kernel_seconds(gv->g, NULL);
                    t_gpu_end = es_time_now();
                }
                if (e) {
#pragma omp critical(es_ns_err)
                    err = e;
                }
            } else {
                es_ns_scratch_t *sc = &s->scr[t];
                sc->stop = &s->stop;
                uint32_t q;
                while (!atomic_load(&s->stop) && (q = atomic_fetch_add(&next, 1)) < hi) {
                    double t0 = es_time_now(), fv[2];
                    if (q == lo) t_first = t0;
                    s->q_t0[q] = t0;
                    uint32_t e = TB_FREE, i = s->order[q];
                    if (share && !atomic_compare_exchange_strong(&s->state[q], &e, TB_CPU))
                        break; /* the GPU took the rest back */
                    es_ns_eval_cpu(&s->pb, s->masks + (size_t)i * s->words, sc, 1, fv);
                    double t1 = es_time_now();
                    t_cpu_end = t1;
                    e = TB_CPU;
                    if (!atomic_load(&s->stop)) { /* not stopped: its whole time */
                        took += t1 - t0;
                        want += cw[q];
                    } else { /* stopped: at least this long */
                        took_lb += t1 - t0;
                        want_lb += cw[q];
                    }
                    if (share && atomic_compare_exchange_strong(&s->state[q], &e, TB_DONE)) {
                        s->f[2 * (size_t)i] = fv[0];
                        s->f[2 * (size_t)i + 1] = fv[1];
                        cpu_done++;
                    }
                }
                sc->stop = NULL;
            }
        }
        if (t_cpu_end < t_par) t_cpu_end = t_par; /* no thread began an individual */
        /* c_slow: the threads' time over their time alone, with the GPU busy */
        if (want > 0) {
            double slow = took / want;
            s->c_slow = s->c_loaded ? 0.5 * s->c_slow + 0.5 * slow : slow;
            s->c_loaded = 1;
        } else if (want_lb > 0 && took_lb / want_lb > s->c_slow)
            s->c_slow = 0.5 * s->c_slow + 0.5 * took_lb / want_lb;
        if (!share) { /* a probe that timed nothing (the GPU was done first) again soon */
            s->probe_gap = want > 0 || 2 * s->probe_gap > PROBE_CPU ? PROBE_CPU : s->probe_gap ? 2 * s->probe_gap : 1;
            s->probe_next = s->gens + s->probe_gap;
        }
        double wake = t_first > t_par ? t_first - t_par : 0.0;
        s->c_wake = s->c_wake > 0 ? 0.5 * s->c_wake + 0.5 * wake : wake;
        s->tm.wake += wake;
        cv->st.evaluations += cpu_done;
        cv->st.chunks += cpu_done;
        cv->st.seconds += t_cpu_end - t_par;
        double gen = (t_gpu_end > t_cpu_end ? t_gpu_end : t_cpu_end) - t_start;
        if (t_cpu_end > t_gpu_end) s->tm.cpu_late += t_cpu_end - t_gpu_end;
        else s->tm.gpu_late += t_gpu_end - t_cpu_end;
        /* the margin: a share late (individuals taken back, or the GPU waited by more than
           2 % of the generation), or early (by more than 5 %) */
        if (share && (taken || t_cpu_end - t_gpu_end > 0.02 * gen)) s->margin = s->margin * 1.3 < 16.0 ? s->margin * 1.3 : 16.0;
        else if (share && first == hi && t_gpu_end - t_cpu_end > 0.05 * gen)
            s->margin = s->margin * 0.9 > 0.5 ? s->margin * 0.9 : 0.5;
        s->tm.gens_cpu++;
        s->tm.probes += !share;
        s->tm.cpu_evals += cpu_done;
        s->tm.taken += taken;
        if (first < hi) s->tm.relaunch += t_gpu_end - t_gpu_first;
    }
    if (err) return gv->err = err;
    double t_sc = es_time_now();
    uint32_t again = 0;
    if (!gv->sim) {
        for (uint32_t q = g0; q < n; q++) {
            uint32_t i = s->order[q];
            s->f[2 * (size_t)i] = s->gf[2 * (size_t)(q - g0)];
            s->f[2 * (size_t)i + 1] = s->gf[2 * (size_t)(q - g0) + 1];
        }
        s->tm.kernel += kernel;
        s->tm.wide += (uint64_t)wide;
        s->tm.launches += (n_gpu > 0) + (first < hi);
    }
    for (uint32_t q = first; q < hi; q++) /* the CPU's part taken back: the second launch's values */
        if (atomic_load_explicit(&s->state[q], memory_order_relaxed) == TB_GPU) {
            uint32_t i = s->order[q];
            const double *g2 = s->gf + 2 * (size_t)n_gpu + 2 * (size_t)(q - first);
            s->f[2 * (size_t)i] = g2[0];
            s->f[2 * (size_t)i + 1] = g2[1];
            again++;
        }
    s->tm.scatter += es_time_now() - t_sc;
    s->tm.retaken += again;
    if (n_gpu) gpu_measured(s, n_gpu, w_one, w_all, t_gpu_first - t_launch);
    if (n_gpu || again) {
        gv->st.evaluations += n_gpu + again;
        gv->st.chunks += (n_gpu > 0) + (again > 0);
        gv->st.seconds += t_gpu_end - t_launch;
        s->tm.gpu += t_gpu_end - t_launch;
        s->tm.gpu_evals += n_gpu + again;
    }
    return ES_OK;
}

static void print_timing(const es_ns_sched_t *s)
{
    const timing_t *m = &s->tm;
    double g = m->gens ? (double)m->gens : 1.0;
    uint64_t launches = m->launches, wide = m->wide;
    double kernel = m->kernel;
    for (uint32_t k = 0; k < s->n_dev; k++) {
        launches += s->dev[k].launches;
        wide += s->dev[k].wide;
        kernel += s->dev[k].kernel;
    }
    fprintf(stderr,
            "nsga-timing\tschedule %s\tgenerations %llu\twith_cpu %llu\tcpu_evals %llu\tgpu_evals %llu\t"
            "launches %llu\twide %llu\tlaunch_fixed_us %.1f\tprobes %llu\ttaken_back %llu\trelaunched %llu\t"
            "relaunch_us_total %.1f\tcpu_alone_us %.1f+%.4fm\tcpu_slow %.2f\tmargin %.2f\n"
            "nsga-timing-us-per-generation\teval %.1f\torder %.1f\tupload+launch %.1f\tgpu %.1f\tkernel %.1f\t"
            "scatter %.1f\tcpu_wake %.1f\tcpu_late %.1f\tgpu_late %.1f\n",
            s->planned ? "planned" : s->n_gpu ? "dynamic" : "cpu", (unsigned long long)m->gens, (unsigned long long)m->gens_cpu,
            (unsigned long long)m->cpu_evals, (unsigned long long)m->gpu_evals, (unsigned long long)launches,
            (unsigned long long)wide, 1e6 * s->g_fix, (unsigned long long)m->probes, (unsigned long long)m->taken,
            (unsigned long long)m->retaken, 1e6 * m->relaunch, 1e6 * s->c_a, 1e6 * s->c_b, s->c_slow, s->margin, 1e6 * m->eval / g, 1e6 * m->order / g,
            1e6 * m->upload / g, 1e6 * m->gpu / g, 1e6 * kernel / g, 1e6 * m->scatter / g,
            m->gens_cpu ? 1e6 * m->wake / (double)m->gens_cpu : 0.0,
            m->gens_cpu ? 1e6 * m->cpu_late / (double)m->gens_cpu : 0.0,
            m->gens_cpu ? 1e6 * m->gpu_late / (double)m->gens_cpu : 0.0);
}

int es_ns_sched_eval(es_ns_sched_t *s, const uint64_t *masks, uint32_t n, const uint32_t *init,
                     double *f)
{
    s->masks = masks;
    s->f = f;
    s->n = n;
    s->pb.init = init;
    s->wsum[0] = 0.0;
    for (uint32_t i = 0; i < n; i++)
        s->wsum[i + 1] = s->wsum[i] + W_FIXED + es_ns_ones(masks + (size_t)i * s->words, s->words);
    double t_start = es_time_now();
    if (s->planned) {
        int ret = eval_planned(s, t_start);
        s->gens++;
        s->tm.gens++;
        s->tm.eval += es_time_now() - t_start;
        return ret;
    }
    atomic_store(&s->span, span_of(0, n));
    atomic_store(&s->active, s->n_gpu);
    atomic_store(&s->cpu_left, 0);
    int rated = 1; /* every device's rate known: the schedule above applied all along */
    for (uint32_t k = 0; k < s->n_dev; k++) rated &= atomic_load(&s->dev[k].rate) > 0;
    /* the CPU with the GPUs, or the GPUs alone: each mode measured once,
     * then the faster, the other again every PROBE_EVERY generations */
    int mixed = s->cpu && s->n_gpu, with_cpu = 1;
    if (mixed) {
        if (s->gen_rate[1] <= 0) with_cpu = 1;
        else if (s->gen_rate[0] <= 0) with_cpu = 0;
        else with_cpu = (s->gen_rate[1] >= s->gen_rate[0]) != (s->gens == s->probe_next);
    }
    job_t job[ES_NSGA_MAX_DEVICES];
    pthread_t th[ES_NSGA_MAX_DEVICES];
    int started[ES_NSGA_MAX_DEVICES] = {0}, runs[ES_NSGA_MAX_DEVICES], n_run = 0;
    for (uint32_t k = 0; k < s->n_dev; k++)
        if (with_cpu || s->dev[k].gpu >= 0) runs[n_run++] = (int)k;
    for (uint32_t k = 0; k < ES_NSGA_MAX_DEVICES; k++) job[k] = (job_t){s, &s->dev[k]};
    /* the first device runs on this thread, the others on their own */
    for (int r = 1; r < n_run; r++) started[r] = !pthread_create(&th[r], NULL, device_main, &job[runs[r]]);
    device_main(&job[runs[0]]);
    for (int r = 1; r < n_run; r++)
        if (started[r]) pthread_join(th[r], NULL);
        else device_main(&job[runs[r]]); /* no thread: run its share here */
    for (uint32_t k = 0; k < s->n_dev; k++)
        if (s->dev[k].err) return s->dev[k].err;
    s->tm.gens_cpu += (uint64_t)(with_cpu && s->cpu);
    if (mixed) {
        double secs = es_time_now() - t_start, *gr = &s->gen_rate[with_cpu];
        int probe = s->gens == s->probe_next && s->gen_rate[0] > 0 && s->gen_rate[1] > 0;
        if (secs > 0) *gr = *gr > 0 ? 0.5 * *gr + 0.5 * s->wsum[n] / secs : s->wsum[n] / secs;
        if (with_cpu && rated) adapt_margin(s, t_start);
        if (s->gen_rate[0] > 0 && s->gen_rate[1] > 0 && (probe || !s->probe_gap)) {
            /* the probed mode still the slower: wait twice as long for the next */
            int lost = (s->gen_rate[1] >= s->gen_rate[0]) != with_cpu;
            s->probe_gap = !s->probe_gap || !lost ? PROBE_FIRST : 2 * s->probe_gap;
            s->probe_next = s->gens + s->probe_gap;
        }
    }
    s->gens++;
    s->tm.gens++;
    s->tm.eval += es_time_now() - t_start;
    return ES_OK;
}

void es_ns_sched_stats(const es_ns_sched_t *s, es_nsga_devstat_t *dev, uint32_t *n_dev)
{
    *n_dev = s->n_dev;
    for (uint32_t k = 0; k < s->n_dev; k++) dev[k] = s->dev[k].st;
}
