/* ceiling.cu -- the b1 tensor-core ceiling of a device, measured the way
 * bench_gpu reports "fraction of ceiling": every warp issues mma.sync
 * m16n8k256 AND.POPC on register operands (no memory traffic), eight
 * independent accumulators deep, on every SM. */
#include <cstdio>

#include <cuda_runtime.h>

#include "epistream.h"
#include "gpu.h"
#include "gpu_test.h"
#include "cuda_check.h"


__global__ void k_ceiling(int iters, uint32_t seed, int *out)
{
    uint32_t a[4], b[2];
    int acc[8][4];
    for (int k = 0; k < 4; k++) a[k] = seed * (threadIdx.x + 1 + k) ^ 0x9e3779b9u * k;
    for (int k = 0; k < 2; k++) b[k] = seed * (threadIdx.x + 7 + k) ^ 0x85ebca6bu * k;
#pragma unroll
    for (int c = 0; c < 8; c++)
#pragma unroll
        for (int e = 0; e < 4; e++) acc[c][e] = 0;
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int c = 0; c < 8; c++)
            asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc "
                         "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                         : "+r"(acc[c][0]), "+r"(acc[c][1]), "+r"(acc[c][2]), "+r"(acc[c][3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
    int s = 0;
#pragma unroll
    for (int c = 0; c < 8; c++)
#pragma unroll
        for (int e = 0; e < 4; e++) s += acc[c][e];
    if (s == 0x7fffffff) *out = s; /* keeps the work alive */
}

extern "C" int es_gpu_b1_ceiling(int dev, double *bitmac_per_s)
{
    cudaDeviceProp p;
    CHECK(cudaSetDevice(dev));
    CHECK(cudaGetDeviceProperties(&p, dev));
    if (p.major < 8) return ES_ERR_UNSUPPORTED;
    int *out;
    CHECK(cudaMalloc(&out, sizeof *out));
    int blocks = p.multiProcessorCount * 4, threads = 256, iters = 20000;
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    k_ceiling<<<blocks, threads>>>(100, 1u, out); /* warm-up */
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(e0));
    k_ceiling<<<blocks, threads>>>(iters, 2u, out);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    double mmas = (double)blocks * (threads / 32) * iters * 8;
    *bitmac_per_s = mmas * 16.0 * 8.0 * 256.0 / (ms * 1e-3);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(out);
    return ES_OK;
}
