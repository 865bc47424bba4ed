/* gpu.h -- plain C interface of the CUDA side (no CUDA types).  Implemented by
 * the gpu/ .cu files when configured with CUDA, by gpu/gpu_stub.c otherwise. */
#ifndef ES_GPU_H
#define ES_GPU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Number of visible CUDA devices in *n (0 when none or no driver).
 *  @return ES_OK, or ES_ERR_GPU when the runtime fails for another reason. */
int es_gpu_device_count(int *n);

/** Describe device dev ("NVIDIA H100 80GB HBM3, sm_90, 132 SMs, 79.1 GiB") into buf.
 *  @return ES_OK, ES_ERR_ARG for a bad index, ES_ERR_GPU on a runtime error. */
int es_gpu_device_describe(int dev, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
