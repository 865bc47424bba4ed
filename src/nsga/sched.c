/* sched.c -- the population's evaluations spread over the devices by
 * dynamic self-scheduling (as in Escobar, Ortega et al.'s CPU+GPU NSGA-II):
 * one host thread per device (the CPU's thread pool counts as one device)
 * claims the next chunk of individuals from one atomic counter, so a faster
 * device simply takes more chunks.  The CPU pool's threads claim one
 * individual at a time (a chunk of one per thread); a GPU chunk one per SM, one individual per thread block, the population
 * uploaded once per generation.  Which device evaluated an individual never
 * changes its values.
 *
 * The tail of a generation: a device that would still be busy with its next
 * chunk when the others, at the rates measured so far, would have finished
 * everything left, leaves the rest to them (a CPU chunk of a slow kernel
 * would otherwise hold a GPU's generation up).  It leaves by taking itself
 * off the count of active devices, which the last active device cannot
 * do, so every individual is always claimed. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "nsga_internal.h"

typedef struct {
    int gpu;         /* -1: the CPU pool, else the CUDA device */
    es_gkn_t *g;
    uint32_t chunk;
    uint32_t par;    /* individuals it evaluates at once */
    _Atomic double rate; /* individuals per second at full width, measured (0: none yet) */
    es_nsga_devstat_t st;
    int err;
} device_t;

struct es_ns_sched {
    es_ns_problem_t pb;
    uint32_t words;
    int threads;
    uint32_t n_dev;
    device_t dev[ES_NSGA_MAX_DEVICES];
    es_ns_scratch_t *scr; /* one per CPU thread */
    /* the evaluation in progress */
    const uint64_t *masks;
    double *f;
    uint32_t n;
    _Atomic uint32_t next;
    _Atomic uint32_t active; /* devices still claiming */
};

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

int es_ns_sched_open(es_ns_sched_t **out, const char *spec, int threads,
                     const es_ns_problem_t *pb, uint32_t max_pop, uint32_t words)
{
    es_ns_sched_t *s = calloc(1, sizeof *s);
    int ret;
    *out = NULL;
    if (!s) return ES_ERR_NOMEM;
    s->pb = *pb;
    s->words = words;
#ifdef _OPENMP
    s->threads = threads > 0 ? threads : omp_get_max_threads();
#else
    s->threads = 1;
    (void)threads;
#endif
    if ((ret = parse_devices(s, spec))) goto fail;
#ifdef _OPENMP
    /* by default each GPU's host thread keeps a core of its own: with every core
       in the CPU pool, a GPU thread waiting on its device was descheduled and
       CPU+GPU ran slower than either (H200 host, 32 cores, 2026-11-27) */
    if (threads <= 0) {
        int n_gpu = 0;
        for (uint32_t k = 0; k < s->n_dev; k++) n_gpu += s->dev[k].gpu >= 0;
        if (n_gpu && s->threads > n_gpu) s->threads -= n_gpu;
    }
#endif
    for (uint32_t k = 0; k < s->n_dev; k++) {
        device_t *v = &s->dev[k];
        if (v->gpu < 0) {
            if (!(s->scr = calloc((size_t)s->threads, sizeof *s->scr))) {
                ret = ES_ERR_NOMEM;
                goto fail;
            }
            for (int t = 0; t < s->threads; t++)
                if ((ret = es_ns_scratch_alloc(&s->scr[t], pb))) goto fail;
            v->chunk = v->par = (uint32_t)s->threads;
            snprintf(v->st.name, sizeof v->st.name, "cpu (%d thread%s, %s)", s->threads,
                     s->threads == 1 ? "" : "s", es_ns_cpu_kernel_name());
            continue;
        }
        if (pb->obj == ES_NSGA_ZDT1) {
            es_error("--devices: zdt1 is evaluated on the CPU only");
            ret = ES_ERR_ARG;
            goto fail;
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
        v->chunk = v->par = es_gkn_chunk(v->g);
        snprintf(v->st.name, sizeof v->st.name, "%s", es_gkn_name(v->g));
    }
    *out = s;
    return ES_OK;
fail:
    es_ns_sched_close(s);
    return ret;
}

void es_ns_sched_close(es_ns_sched_t *s)
{
    if (!s) return;
    for (uint32_t k = 0; k < s->n_dev; k++) es_gkn_close(s->dev[k].g);
    if (s->scr)
        for (int t = 0; t < s->threads; t++) es_ns_scratch_free(&s->scr[t]);
    free(s->scr);
    free(s);
}

/* Claim the next individuals, up to want of them, for v: [*a, *b).
 * @return 0 when the caller is done */
static int claim(es_ns_sched_t *s, device_t *v, uint32_t want, uint32_t *a, uint32_t *b)
{
    double others = 0.0, rate = atomic_load(&v->rate);
    int known = rate > 0;
    for (uint32_t k = 0; k < s->n_dev; k++)
        if (&s->dev[k] != v) {
            double r = atomic_load(&s->dev[k].rate);
            others += r;
            known &= r > 0;
        }
    uint32_t at = atomic_load(&s->next);
    for (;;) {
        if (at >= s->n) return 0;
        uint32_t left = s->n - at, c = want < left ? want : left;
        if (known && s->n_dev > 1) {
            /* v's next chunk takes ceil(c / par) rounds of par / rate seconds */
            double t_v = (double)((c + v->par - 1) / v->par) * v->par / rate;
            if (t_v > left / others) {
                uint32_t act = atomic_load(&s->active);
                if (act > 1 && atomic_compare_exchange_weak(&s->active, &act, act - 1)) return 0;
                if (act > 1) continue; /* the count moved: look again */
            }
        }
        if (atomic_compare_exchange_weak(&s->next, &at, at + c)) {
            *a = at;
            *b = at + c;
            return 1;
        }
    }
}

/* After a chunk of c individuals in secs: the device's rate, smoothed. */
static void measured(device_t *v, uint32_t c, double secs)
{
    if (secs <= 0) return;
    /* a short chunk takes as long as a full one: the rate at full width */
    double r = (double)((c + v->par - 1) / v->par) * v->par / secs, old = atomic_load(&v->rate);
    atomic_store(&v->rate, old > 0 ? 0.5 * old + 0.5 * r : r);
}

/* The CPU pool: its threads, in one parallel region per generation, each
 * claim one individual at a time (the pool's chunk: one per thread) and
 * evaluate it; the pool's rate is measured at its full width. */
static void run_cpu(es_ns_sched_t *s, device_t *v)
{
    uint64_t done = 0;
#pragma omp parallel num_threads(s->threads) reduction(+ : done)
    {
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#endif
        uint32_t a, b;
        while (claim(s, v, 1, &a, &b)) {
            double t0 = es_time_now();
            es_ns_eval_cpu(&s->pb, s->masks + (size_t)a * s->words, &s->scr[t], 1, s->f + 2 * (size_t)a);
            measured(v, 1, es_time_now() - t0);
            done++;
        }
    }
    v->st.evaluations += done;
    v->st.chunks += done;
}

static void run_gpu(es_ns_sched_t *s, device_t *v)
{
    uint32_t a, b;
    if ((v->err = es_gkn_population(v->g, s->masks, s->n, s->pb.init))) {
        atomic_fetch_sub(&s->active, 1);
        return;
    }
    while (claim(s, v, v->chunk, &a, &b)) {
        double t0 = es_time_now();
        if ((v->err = es_gkn_eval(v->g, a, b - a, s->f + 2 * (size_t)a))) {
            atomic_fetch_sub(&s->active, 1);
            return;
        }
        measured(v, b - a, es_time_now() - t0);
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
    if (j->v->gpu < 0) run_cpu(j->s, j->v);
    else run_gpu(j->s, j->v);
    j->v->st.seconds += es_time_now() - t0;
    return NULL;
}

int es_ns_sched_eval(es_ns_sched_t *s, const uint64_t *masks, uint32_t n, const uint32_t *init,
                     double *f)
{
    s->masks = masks;
    s->f = f;
    s->n = n;
    s->pb.init = init;
    atomic_store(&s->next, 0);
    uint32_t claimers = 0; /* each CPU thread claims for itself */
    for (uint32_t k = 0; k < s->n_dev; k++) claimers += s->dev[k].gpu < 0 ? (uint32_t)s->threads : 1;
    atomic_store(&s->active, claimers);
    job_t job[ES_NSGA_MAX_DEVICES];
    pthread_t th[ES_NSGA_MAX_DEVICES];
    int started[ES_NSGA_MAX_DEVICES] = {0};
    for (uint32_t k = 0; k < ES_NSGA_MAX_DEVICES; k++) job[k] = (job_t){s, &s->dev[k]};
    if (s->n_dev == 1) {
        device_main(&job[0]);
    } else {
        /* device 0 runs on this thread, the others on their own */
        for (uint32_t k = 1; k < s->n_dev; k++)
            started[k] = !pthread_create(&th[k], NULL, device_main, &job[k]);
        device_main(&job[0]);
        for (uint32_t k = 1; k < s->n_dev; k++)
            if (started[k]) pthread_join(th[k], NULL);
            else device_main(&job[k]); /* no thread: run its share here */
    }
    for (uint32_t k = 0; k < s->n_dev; k++)
        if (s->dev[k].err) return s->dev[k].err;
    return ES_OK;
}

void es_ns_sched_stats(const es_ns_sched_t *s, es_nsga_devstat_t *dev, uint32_t *n_dev)
{
    *n_dev = s->n_dev;
    for (uint32_t k = 0; k < s->n_dev; k++) dev[k] = s->dev[k].st;
}
