/* registry.c -- the backend registry: the only file that knows whether CUDA
 * was compiled in.  The CPU backend always registers; the CUDA backend when
 * it was compiled in.  Every message about a device choice comes from here,
 * so the same mistake reads the same in every command. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"

#ifdef HAVE_CUDA
static const es_backend_t *const gpu_registered = &es_backend_gpu;
#else
static const es_backend_t *const gpu_registered = NULL;
#endif
#define GPU_REGISTERED gpu_registered

const es_backend_t *es_backend_get(es_device_t dev)
{
    return dev == ES_DEVICE_CPU ? &es_backend_cpu : dev == ES_DEVICE_GPU ? GPU_REGISTERED : NULL;
}

static int gpu_n;
static pthread_once_t gpu_once = PTHREAD_ONCE_INIT;

static void gpu_probe(void)
{
    const es_backend_t *g = GPU_REGISTERED;
    gpu_n = g ? g->device_count() : 0;
    if (gpu_n < 0) gpu_n = 0;
}

int es_backend_gpu_count(void)
{
    pthread_once(&gpu_once, gpu_probe);
    return gpu_n;
}

void es_backend_settle(void)
{
    const es_backend_t *g = GPU_REGISTERED;
    if (g && g->settle) g->settle();
}

/* "--device gpu" or "--device gpu:1,3" as the user wrote it. */
static void device_text(uint64_t mask, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "--device gpu");
    for (int d = 0, k = 0; d < 64 && used < len; d++)
        if (mask >> d & 1) used += (size_t)snprintf(buf + used, len - used, "%c%d", k++ ? ',' : ':', d);
}

int es_backend_check(es_device_t dev, uint64_t gpu_mask, const char *gpu_opt)
{
    if (dev == ES_DEVICE_CPU) {
        if (gpu_opt) {
            es_error("%s goes with a GPU (--device gpu or auto); --device cpu runs on the CPU", gpu_opt);
            return ES_ERR_ARG;
        }
        return ES_OK;
    }
    if (dev != ES_DEVICE_GPU) return dev == ES_DEVICE_AUTO ? ES_OK : ES_ERR_ARG;
    char what[256];
    device_text(gpu_mask, what, sizeof what);
    if (!GPU_REGISTERED) {
        es_error("%s: epistream was built without CUDA (configure --with-cuda); use --device cpu", what);
        return ES_ERR_ARG;
    }
    int n = es_backend_gpu_count();
    if (n == 0) {
        es_error("%s: no CUDA device is visible; use --device cpu", what);
        return ES_ERR_ARG;
    }
    for (int d = n; d < 64; d++) {
        if (gpu_mask >> d & 1) {
            if (n == 1) es_error("%s: there is no such GPU (1 visible: 0)", what);
            else es_error("%s: there is no such GPU (%d visible: 0 to %d)", what, n, n - 1);
            return ES_ERR_ARG;
        }
    }
    return ES_OK;
}

/* What a piece of work is, for the log. */
static void work_text(const es_work_t *w, char *buf, size_t len)
{
    if (w->op == ES_OP_PAIR_SCAN || w->op == ES_OP_TRIPLE_SCAN)
        snprintf(buf, len, "a scan of %llu %s x %llu samples", (unsigned long long)w->pairs,
                 w->op == ES_OP_PAIR_SCAN ? "pairs" : "triples", (unsigned long long)w->n_samples);
    else
        snprintf(buf, len, "a selection of %llu rounds over %llu samples x %llu features",
                 (unsigned long long)w->rounds, (unsigned long long)w->n_samples,
                 (unsigned long long)w->features);
}

const es_backend_t *es_backend_choose(es_device_t dev, uint64_t gpu_mask, const es_work_t *w, int *err)
{
    *err = es_backend_check(dev, gpu_mask, NULL);
    if (*err) return NULL;
    if (dev != ES_DEVICE_AUTO) return es_backend_get(dev);
    const es_backend_t *cpu = &es_backend_cpu, *gpu = GPU_REGISTERED;
    int n = es_backend_gpu_count();
    if (!gpu || n == 0) {
        es_info("--device auto: %s; using the CPU", gpu ? "no GPU found" : "built without CUDA");
        return cpu;
    }
    if (!w) {
        es_info("--device auto: %d CUDA device(s) found; using the GPU", n);
        return gpu;
    }
    char what[160];
    work_text(w, what, sizeof what);
    if (!gpu->supports(w->op, w)) {
        es_info("--device auto: the GPU cannot take %s; using the CPU", what);
        return cpu;
    }
    double tc = cpu->cost(w), tg = gpu->cost(w);
    const es_backend_t *pick = tg < tc ? gpu : cpu;
    es_info("--device auto: %s on the %s (estimated %.3g s there, %.3g s on the %s)", what,
            pick == gpu ? "GPU" : "CPU", pick == gpu ? tg : tc, pick == gpu ? tc : tg,
            pick == gpu ? "CPU" : "GPU");
    return pick;
}

const es_backend_t *es_backend_select_work(const es_opt_t *opt, const es_work_t *w, int *err)
{
    return es_backend_choose(opt->device, opt->gpu_mask, w, err);
}
