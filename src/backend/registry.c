/* backend.c -- the backend registry: the only file that knows whether CUDA was
 * compiled in.  The CPU backend always registers. */
#include "config.h"

#include "backend.h"
#include "gpu.h"

int es_backend_gpu_count(void)
{
    int n = 0;
    if (es_gpu_device_count(&n) != ES_OK) return 0;
    return n;
}

const es_backend_t *es_backend_select(const es_opt_t *opt, int *err)
{
    *err = ES_OK;
    switch (opt->device) {
    case ES_DEVICE_CPU: return &es_backend_cpu;
    case ES_DEVICE_AUTO: {
        int n = es_backend_gpu_count();
#ifdef HAVE_CUDA
        if (n > 0) {
            es_info("%d CUDA device(s) found; scanning on the GPU", n);
            return &es_backend_gpu;
        }
        es_info("no GPU found; using the CPU");
#else
        if (n > 0) es_info("built without CUDA; using the CPU");
        else es_info("no GPU found; using the CPU");
#endif
        return &es_backend_cpu;
    }
    case ES_DEVICE_GPU: {
#ifdef HAVE_CUDA
        int n = es_backend_gpu_count();
        if (n == 0) {
            es_error("--device gpu: no CUDA device is visible");
            *err = ES_ERR_UNSUPPORTED;
            return NULL;
        }
        for (int d = n; d < 64; d++) {
            if (opt->gpu_mask >> d & 1) {
                es_error("--device gpu:%d: there is no such GPU (%d visible: 0 to %d)", d, n, n - 1);
                *err = ES_ERR_ARG;
                return NULL;
            }
        }
        return &es_backend_gpu;
#else
        es_error("--device gpu: epistream was built without CUDA (configure --with-cuda)");
        *err = ES_ERR_UNSUPPORTED;
        return NULL;
#endif
    }
    }
    *err = ES_ERR_ARG;
    return NULL;
}
