/* cuda_check.h -- the CHECK and CHECK_LAUNCH macros of the gpu/ .cu files: a failing CUDA
 * runtime call is logged with file and line and the function returns
 * ES_ERR_GPU (the library never aborts).  Not logged: the runtime unloading
 * at the process's exit, which a thread opening a device ahead of the work
 * (src/backend/gpu.c's gpu_prepare) meets when a command fails early. */
#ifndef ES_CUDA_CHECK_H
#define ES_CUDA_CHECK_H

#include <cstdio>

#include <cuda_runtime.h>

#include "epistream.h"

#define CHECK(call)                                                                            \
    do {                                                                                       \
        cudaError_t e_ = (call);                                                               \
        if (e_ != cudaSuccess) {                                                               \
            if (e_ != cudaErrorCudartUnloading) /* the process exiting: not news */            \
                fprintf(stderr, "[E::%s] %s:%d: %s: %s\n", __func__, __FILE__, __LINE__, #call,\
                        cudaGetErrorString(e_));                                               \
            return ES_ERR_GPU;                                                                 \
        }                                                                                      \
    } while (0)

/* The same for a launcher's return value (0, or a cudaError_t). */
#define CHECK_LAUNCH(ret)                                                                      \
    do {                                                                                       \
        int r_ = (ret);                                                                        \
        if (r_) {                                                                              \
            fprintf(stderr, "[E::%s] %s:%d: kernel launch: %s\n", __func__, __FILE__, __LINE__, \
                    cudaGetErrorString((cudaError_t)r_));                                      \
            return ES_ERR_GPU;                                                                 \
        }                                                                                      \
    } while (0)

#endif
