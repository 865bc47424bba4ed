/* device.cu -- CUDA device discovery.  Every runtime call goes through CHECK,
 * which logs file and line and returns ES_ERR_GPU: the library never aborts. */
#include <cstdio>

#include <cuda_runtime.h>

#include "epistream.h"
#include "gpu.h"
#include "cuda_check.h"


extern "C" int es_gpu_device_count(int *n)
{
    *n = 0;
    cudaError_t e = cudaGetDeviceCount(n);
    /* no driver or no device is not an error: there are simply no GPUs */
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) {
        (void)cudaGetLastError();
        *n = 0;
        return ES_OK;
    }
    CHECK(e);
    return ES_OK;
}

extern "C" int es_gpu_device_describe(int dev, char *buf, size_t len)
{
    int n = 0;
    if (es_gpu_device_count(&n) != ES_OK) return ES_ERR_GPU;
    if (dev < 0 || dev >= n) {
        if (len) snprintf(buf, len, "no CUDA device %d", dev);
        return ES_ERR_ARG;
    }
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, dev));
    if (len)
        snprintf(buf, len, "%s, sm_%d%d, %d SMs, %.1f GiB", p.name, p.major, p.minor,
                 p.multiProcessorCount, (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
    return ES_OK;
}
