/* backend.c -- the backend registry: the only file that knows whether CUDA was
 * compiled in.  The CPU backend always registers. */
#include "config.h"

#include "es_internal.h"
#include "gpu.h"

int es_backend_gpu_count(void)
{
    int n = 0;
    if (es_gpu_device_count(&n) != ES_OK) return 0;
    return n;
}

const es_backend_t *es_backend_select(es_device_t dev, int *err)
{
    *err = ES_OK;
    switch (dev) {
    case ES_DEVICE_CPU: return &es_backend_cpu;
    case ES_DEVICE_AUTO: {
        int n = es_backend_gpu_count();
        /* The GPU scan kernels are not part of this release: with GPUs present,
         * say so once and use the CPUs. */
        if (n > 0) es_info("%d CUDA device(s) found; no GPU scan backend in this release, using CPU", n);
        else es_info("no GPU found; using CPU");
        return &es_backend_cpu;
    }
    case ES_DEVICE_GPU:
#ifdef HAVE_CUDA
        es_error("--device gpu: this release has no GPU scan backend yet (%d CUDA device(s) "
                 "visible); use --device cpu or auto", es_backend_gpu_count());
#else
        es_error("--device gpu: epistream was built without CUDA (configure --with-cuda)");
#endif
        *err = ES_ERR_UNSUPPORTED;
        return NULL;
    }
    *err = ES_ERR_ARG;
    return NULL;
}
