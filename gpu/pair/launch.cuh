/* launch.cuh -- launching the tile kernels: the common launcher of a VM x VN
 * CTA grid, and each kernel family's entry point (one per count_*.cu), which
 * engine.cu calls. */
#ifndef GK_LAUNCH_CUH
#define GK_LAUNCH_CUH

#include <cuda_runtime.h>

#include "params.cuh"

/* Launch a tile kernel of VM x VN-variant CTAs with `smem` bytes of dynamic
 * shared memory (raising the kernel's limit once per device and thread). */
template <int VM, int VN>
static int gk_launch_tile(void (*kernel)(gk_params), const gk_params &P, size_t smem,
                          cudaStream_t st, int *configured, int threads = GK_THREADS)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return (int)e;
    if (*configured != dev) {
        e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess) return (int)e;
        *configured = dev;
    }
    dim3 grid((P.nb + VN - 1) / VN, (P.na + VM - 1) / VM);
    kernel<<<grid, threads, smem, st>>>(P);
    return (int)cudaGetLastError();
}

/* Every kernel family's launcher (one per .cu); np is 2 or 3.
 * @return 0, or a cudaError_t. */
int gk_launch_mma(const gk_params &P, int np, void *stream);
int gk_launch_wgmma(const gk_params &P, int np, void *stream);
/* 1 when device dev runs the sm_90a wgmma kernels (an sm_90 device and a
 * binary built with compute_90a), else 0. */
int gk_wgmma_usable(int dev);
int gk_launch_popc(const gk_params &P, int np, void *stream);
/* The persistent warp-specialised kernel (count_ws.cu): two planes; three
 * planes go to gk_launch_wgmma.  gk_ws_usable: 1 when device dev runs it
 * (gk_wgmma_usable, and the driver encodes tensor maps). */
int gk_launch_ws(const gk_params &P, int np, void *stream);
int gk_ws_usable(int dev);

#endif
