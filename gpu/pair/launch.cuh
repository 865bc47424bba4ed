/* launch.cuh -- launching the tile kernels: the common launcher of a VM x VN
 * CTA grid, and each kernel family's entry point (one per count_*.cu), which
 * engine.cu calls. */
#ifndef GK_LAUNCH_CUH
#define GK_LAUNCH_CUH

#include <cuda_runtime.h>

#include "params.cuh"

/* Has the driver load kernel k on the calling thread's device now, as its
 * first launch would (CUDA loads kernels lazily); an error is left for the
 * launch to report.  (The gk_*_warm functions below.) */
template <class K>
static inline void gk_kernel_load(K k)
{
    cudaFuncAttributes a;
    if (cudaFuncGetAttributes(&a, k) != cudaSuccess) (void)cudaGetLastError();
}

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
/* Load a family's kernels for statistic stat (GK_*) and np planes on the
 * calling thread's device, as their first launch would (the driver loads a
 * kernel when first used, a few milliseconds each): the ones a scan's first
 * tiles launch first.  Errors are left to the launches.  (engine.cu's
 * warm_main, beside the opening of a scan.) */
void gk_wgmma_warm(int stat, int np, uint32_t kw0, uint32_t kw1); /* kw0, kw1 as gk_params' */
void gk_ws_warm(int stat, int np, uint32_t kw0, uint32_t kw1); /* kw0, kw1 as gk_params' */
void gk_exact_warm(int stat, int two_pass);
/* 1 when `--gpu-kernel auto` runs ws rather than the wgmma tiles on a
 * device where both run: statistic stat (GK_*) of np planes, kw0 and kw1
 * words counted a class (doc/BENCHMARKS.md, "The consumers' pipeline"). */
int gk_ws_auto(int stat, int np, uint32_t kw0, uint32_t kw1);

/* The second stage (exact.cu): a tile's candidates scored with the exact
 * statistic in double (exact.cuh), each variant's threshold raised to the
 * lower bounds, and only the candidates that may still matter copied to out
 * (in no particular order).  Run after the tile kernel on its stream. */
struct gk_exact_params {
    const es_gpu_cand_t *in;
    uint32_t *n_in;          /* the tile's candidates; nothing is done when > cap (re-run) */
    uint32_t cap;
    es_gpu_cand_t *out;      /* cap entries */
    uint32_t *n_out;         /* zeroed before */
    uint32_t *thr;           /* per-variant keys, global index */
    const uint32_t *tau_bin; /* [0] the device's top-k bin */
    uint32_t tau_host;       /* key of the host's exact k-th best */
    float sig_min_g;
    const double *nlogn;     /* n ln n below GK_EX_NLOGN_TAB, the host's (mi, ig) */
    unsigned long long *count; /* [0] candidates decided here, [1] of them dropped */
    uint32_t *key;           /* cap entries: two passes (every threshold raised first, then
                                every candidate judged against them); NULL: one pass */
    double *fit_out;         /* BOOST: 18 doubles an out entry, its fit (exact.cuh; fit[0] NaN
                                where there is none); NULL: not written */
    double *fit_in;          /* two passes with fit_out: 18 doubles an in entry (cap), where the
                                first pass leaves each candidate's fit for the second to copy;
                                NULL: the second pass fits its survivors again */
    uint32_t *n_host;        /* mapped host memory: the last pass's last CTA writes *n_in and
                                *n_out there, then zeroes them and *ticket for the flight's next
                                tile (no memset and no copy a tile); NULL: neither */
    uint32_t *ticket;        /* zero before: the last pass's CTAs that are done */
};
/* stat: GK_BOOST, GK_CHI2, GK_MI or GK_IG.  @return 0, or a cudaError_t. */
int gk_launch_exact(int stat, const gk_exact_params &R, int n_sm, void *stream);
/* The statistics with a device twin (exact.cuh): boost, chi2, and mi and ig
 * given the host's n ln n table of at least GK_EX_NLOGN_TAB entries. */
int gk_exact_stat_ok(int stat, const double *nlogn, uint32_t n_nlogn);

#endif
