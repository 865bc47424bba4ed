/* gpu_stub.c -- gpu.h for builds without CUDA: no devices. */
#include <stdio.h>

#include "epistream.h"
#include "gpu.h"

int es_gpu_device_count(int *n)
{
    *n = 0;
    return ES_OK;
}

int es_gpu_device_describe(int dev, char *buf, size_t len)
{
    if (len) snprintf(buf, len, "no CUDA support in this build (device %d)", dev);
    return ES_ERR_ARG;
}
