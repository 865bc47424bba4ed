/* exact.cu -- the pair engine's second stage: a tile's candidates scored
 * on the device with the exact statistic (exact.cuh: the host's arithmetic
 * in double, with a proven margin), so that the host scores only those that
 * may still change an output.
 *
 * After the tile kernel, one thread per candidate computes v and its margin
 * eps (|v - the host's value| <= eps), raises both variants' thresholds to
 * the lower bound v - eps (a lower bound of a real pair's exact statistic,
 * as every threshold is), and keeps the candidate when v + eps reaches any
 * of (in a second pass, once every candidate of the tile has raised them,
 * where the tile ran without BOOST's fits: gk_params.tilefit): the top-k
 * level (the device's histogram level or the host's exact k-th best, both
 * lower bounds of the k-th best statistic), either variant's threshold as
 * it now stands, or -- through G's upper bound -- the
 * significance threshold.  A dropped candidate's exact statistic is below a
 * real pair's of each of its variants (so it is neither variant's best,
 * ties included), below the k-th best (not in the top-k) and not
 * significant: it is in no output, and the host counts it in N_TOT with the
 * rest of the tile.  Candidates the device cannot decide (exact.cuh) are
 * kept.  Compiled with -fmad=false (exact.cuh's arithmetic must not be
 * fused). */
#include <cmath>
#include <cstdio>
#include <cstring>

#include <cuda_runtime.h>

#include "epistream.h"
#include "params.cuh"
#include "exact.cuh"
#include "launch.cuh"
#include "gpu_test.h"
#include "cuda_check.h"

namespace {

constexpr int RT = 128; /* threads a CTA */

/* The second stage in one of three passes.  PASS 0 (one pass): each
 * thread scores its candidate, raises both thresholds and judges it against
 * them as they stand (a candidate scored before its variant's better
 * partner of the tile is kept).  PASS 1: scores, raises the thresholds and
 * writes the candidate's keep key to R.key (the key of v + eps rounded up;
 * all ones when it must be kept whatever the thresholds: undecided, or
 * possibly significant), and BOOST's fit to R.fit_in, which PASS 2 copies
 * to its survivors' R.fit_out (each candidate fitted once).  PASS 2, after
 * every PASS 1 thread: judges each key against the thresholds that then
 * hold all of the tile's exact lower bounds.  Both ways a dropped candidate
 * is below a real pair's exact statistic of each of its variants, below the
 * k-th best and not significant. */
template <int STAT, int PASS>
__global__ void __launch_bounds__(RT) k_stage2(gk_exact_params R)
{
    /* the buffer overflowed: the tile runs again (nothing is done here but
     * the publishing below) */
    const uint32_t n_all = *R.n_in, n = n_all <= R.cap ? n_all : 0u;
    const uint32_t tb = *((volatile const uint32_t *)&R.tau_bin[0]);
    const uint32_t tau = gk_tau_of_bin(tb, R.tau_host);
    const int lane = threadIdx.x & 31;
    uint32_t dec = 0, drop = 0;
    /* the loop bound is a whole CTA's: every lane reaches the ballot */
    for (uint32_t k0 = blockIdx.x * RT; k0 < n; k0 += gridDim.x * RT) {
        const uint32_t k = k0 + threadIdx.x;
        bool keep = false;
        es_gpu_cand_t c = {};
        if (k < n && PASS == 2) {
            c = R.in[k];
            const uint32_t ku = R.key[k];
            keep = ku >= tau || ku >= *((volatile const uint32_t *)&R.thr[c.i]) ||
                   ku >= *((volatile const uint32_t *)&R.thr[c.j]);
            drop += !keep; /* an undecided candidate's key is all ones */
        } else if (k < n) {
            c = R.in[k];
            /* the first of two passes leaves the fit for the second */
            double *fit = PASS == 1 && R.fit_in ? R.fit_in + (size_t)k * 18 : nullptr;
            const gk_exact_r e = gk_exact<STAT>(c.n, R.nlogn, fit);
            keep = true;
            uint32_t kk = 0xffffffffu;
            if (e.ok && e.v == e.v && e.eps == e.eps) {
                dec++;
                const double hi = __dadd_ru(e.v, e.eps), lo = __dadd_rd(e.v, -e.eps);
                const uint32_t ku = gk_fkey(__double2float_ru(hi)), kl = gk_fkey(__double2float_rd(lo));
                uint32_t ti = atomicMax(&R.thr[c.i], kl), tj = atomicMax(&R.thr[c.j], kl);
                ti = ti > kl ? ti : kl;
                tj = tj > kl ? tj : kl;
                const bool sig = gk_exact_gup<STAT>(c.n, hi) >= (double)R.sig_min_g;
                keep = ku >= tau || ku >= ti || ku >= tj || sig;
                if (!sig) kk = ku;
                if (PASS == 0) drop += !keep;
            }
            if (PASS == 1) R.key[k] = kk;
        }
        if (PASS == 1) continue;
        const unsigned m = __ballot_sync(0xffffffffu, keep);
        if (!m) continue;
        const int leader = __ffs(m) - 1;
        uint32_t base = 0;
        if (lane == leader) base = atomicAdd(R.n_out, (uint32_t)__popc(m));
        base = __shfl_sync(0xffffffffu, base, leader);
        const uint32_t slot = base + __popc(m & ((1u << lane) - 1u));
        if (keep) R.out[slot] = c;
        if (STAT == GK_BOOST && keep && R.fit_out) {
            double *to = R.fit_out + (size_t)slot * 18;
            if (PASS == 2 && R.fit_in) { /* the first pass's fit, copied */
                const double2 *from = (const double2 *)(R.fit_in + (size_t)k * 18);
#pragma unroll
                for (int w = 0; w < 9; w++) ((double2 *)to)[w] = from[w];
            } else {
                (void)gk_exact_boost(c.n, to); /* the fit again */
            }
        }
    }
    /* the counts: one atomic a warp (decided in pass 0 or 1, dropped in 0 or 2) */
    for (int o = 16; o; o >>= 1) {
        dec += __shfl_down_sync(0xffffffffu, dec, o);
        drop += __shfl_down_sync(0xffffffffu, drop, o);
    }
    if (lane == 0 && dec) atomicAdd(&R.count[0], (unsigned long long)dec);
    if (lane == 0 && drop) atomicAdd(&R.count[1], (unsigned long long)drop);
    /* the last pass: its last CTA publishes the tile's two counts to the
     * host and zeroes them for the flight's next tile (every CTA has read
     * *n_in and added to *n_out before it takes its ticket) */
    if (PASS != 1 && R.n_host) {
        __syncthreads();
        if (threadIdx.x == 0) {
            __threadfence();
            if (atomicAdd(R.ticket, 1u) == gridDim.x - 1) {
                __threadfence();
                volatile uint32_t *cnt_in = R.n_in, *cnt_out = R.n_out;
                volatile uint32_t *h = R.n_host;
                h[0] = *cnt_in;
                h[1] = *cnt_out;
                __threadfence_system();
                *cnt_in = 0u;
                *cnt_out = 0u;
                *(volatile uint32_t *)R.ticket = 0u;
            }
        }
    }
}

template <int STAT>
int launch_stage2(const gk_exact_params &R, unsigned blocks, cudaStream_t st)
{
    if (!R.key) {
        k_stage2<STAT, 0><<<blocks, RT, 0, st>>>(R);
        return (int)cudaGetLastError();
    }
    k_stage2<STAT, 1><<<blocks, RT, 0, st>>>(R);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return (int)e;
    k_stage2<STAT, 2><<<blocks, RT, 0, st>>>(R);
    return (int)cudaGetLastError();
}

/* Test hook kernel: every table's exact value, margin and whether decided. */
template <int STAT>
__global__ void k_exact(const es_gpu_cand_t *t, uint32_t n, const double *T, double *v, double *eps, int *ok,
                        double *fit)
{
    const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const gk_exact_r e = gk_exact<STAT>(t[k].n, T, fit ? fit + (size_t)k * 18 : nullptr);
    v[k] = e.v;
    eps[k] = e.eps;
    ok[k] = e.ok;
}

template <int STAT>
int launch_exact(const es_gpu_cand_t *t, uint32_t n, const double *T, double *v, double *eps, int *ok, double *fit)
{
    k_exact<STAT><<<(n + 127) / 128, 128>>>(t, n, T, v, eps, ok, fit);
    return (int)cudaGetLastError();
}

template <int STAT>
int exact_host(const es_gpu_cand_t *t, size_t n, const double *T, double *v, double *eps, int *ok, double *fit)
{
    for (size_t k = 0; k < n; k++) {
        const gk_exact_r e = gk_exact<STAT>(t[k].n, T, fit ? fit + k * 18 : nullptr);
        v[k] = e.v;
        eps[k] = e.eps;
        ok[k] = e.ok;
    }
    return 0;
}

} // namespace

int gk_launch_exact(int stat, const gk_exact_params &R, int n_sm, void *stream)
{
    /* a few CTAs an SM: a tile's candidates are a few thousand at most
     * once thresholds are known, and the threads walk the rest */
    const unsigned blocks = (unsigned)(n_sm > 0 ? n_sm : 1) * 4u;
    const cudaStream_t st = (cudaStream_t)stream;
    switch (stat) {
    case GK_BOOST: return launch_stage2<GK_BOOST>(R, blocks, st);
    case GK_CHI2: return launch_stage2<GK_CHI2>(R, blocks, st);
    case GK_MI: return launch_stage2<GK_MI>(R, blocks, st);
    case GK_IG: return launch_stage2<GK_IG>(R, blocks, st);
    default: return (int)cudaErrorInvalidValue;
    }
}

namespace {
template <int STAT>
int exact_warm(int two_pass)
{
    if (two_pass) {
        gk_kernel_load(k_stage2<STAT, 1>);
        gk_kernel_load(k_stage2<STAT, 2>);
    } else {
        gk_kernel_load(k_stage2<STAT, 0>);
    }
    return 0;
}
} // namespace

void gk_exact_warm(int stat, int two_pass)
{
    switch (stat) {
    case GK_BOOST: exact_warm<GK_BOOST>(two_pass); break;
    case GK_CHI2: exact_warm<GK_CHI2>(two_pass); break;
    case GK_MI: exact_warm<GK_MI>(two_pass); break;
    case GK_IG: exact_warm<GK_IG>(two_pass); break;
    default: break;
    }
}

int gk_exact_stat_ok(int stat, const double *nlogn, uint32_t n_nlogn)
{
    if (stat != GK_BOOST && stat != GK_CHI2 && stat != GK_MI && stat != GK_IG) return 0;
    if ((stat == GK_MI || stat == GK_IG) && (!nlogn || n_nlogn < GK_EX_NLOGN_TAB)) return 0;
    return 1;
}

extern "C" int es_gpu_exact_host(int stat, const es_gpu_cand_t *tables, size_t n, const double *nlogn,
                                 uint32_t n_nlogn, double *val, double *eps, int *ok, double *fit)
{
    if (!gk_exact_stat_ok(stat, nlogn, n_nlogn)) return ES_ERR_ARG;
    if (fit)
        for (size_t k = 0; k < n; k++) fit[18 * k] = NAN;
    switch (stat) {
    case GK_BOOST: return exact_host<GK_BOOST>(tables, n, nlogn, val, eps, ok, fit);
    case GK_CHI2: return exact_host<GK_CHI2>(tables, n, nlogn, val, eps, ok, nullptr);
    case GK_MI: return exact_host<GK_MI>(tables, n, nlogn, val, eps, ok, nullptr);
    default: return exact_host<GK_IG>(tables, n, nlogn, val, eps, ok, nullptr);
    }
}

extern "C" int es_gpu_exact(int dev, int stat, const es_gpu_cand_t *tables, size_t n, const double *nlogn,
                            uint32_t n_nlogn, double *val, double *eps, int *ok, double *fit)
{
    if (!gk_exact_stat_ok(stat, nlogn, n_nlogn)) return ES_ERR_ARG;
    if (fit)
        for (size_t k = 0; k < n; k++) fit[18 * k] = NAN;
    if (!n) return ES_OK;
    CHECK(cudaSetDevice(dev));
    es_gpu_cand_t *dt = NULL;
    double *dT = NULL, *dv = NULL, *de = NULL, *df = NULL;
    int *dok = NULL, ret = ES_OK;
    cudaError_t e = cudaMalloc(&dt, n * sizeof *dt);
    if (e == cudaSuccess && fit && stat == GK_BOOST) e = cudaMalloc(&df, n * 18 * sizeof *df);
    if (e == cudaSuccess) e = cudaMalloc(&dv, n * sizeof *dv);
    if (e == cudaSuccess) e = cudaMalloc(&de, n * sizeof *de);
    if (e == cudaSuccess) e = cudaMalloc(&dok, n * sizeof *dok);
    if (e == cudaSuccess && nlogn) e = cudaMalloc(&dT, (size_t)GK_EX_NLOGN_TAB * sizeof *dT);
    if (e == cudaSuccess && nlogn)
        e = cudaMemcpy(dT, nlogn, (size_t)GK_EX_NLOGN_TAB * sizeof *dT, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaMemcpy(dt, tables, n * sizeof *dt, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) {
        int r = 0;
        switch (stat) {
        case GK_BOOST: r = launch_exact<GK_BOOST>(dt, (uint32_t)n, dT, dv, de, dok, df); break;
        case GK_CHI2: r = launch_exact<GK_CHI2>(dt, (uint32_t)n, dT, dv, de, dok, nullptr); break;
        case GK_MI: r = launch_exact<GK_MI>(dt, (uint32_t)n, dT, dv, de, dok, nullptr); break;
        default: r = launch_exact<GK_IG>(dt, (uint32_t)n, dT, dv, de, dok, nullptr); break;
        }
        e = (cudaError_t)r;
    }
    if (e == cudaSuccess) e = cudaMemcpy(val, dv, n * sizeof *dv, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess) e = cudaMemcpy(eps, de, n * sizeof *de, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess) e = cudaMemcpy(ok, dok, n * sizeof *dok, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess && df) e = cudaMemcpy(fit, df, n * 18 * sizeof *df, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        fprintf(stderr, "[E::es_gpu_exact] %s\n", cudaGetErrorString(e));
        ret = ES_ERR_GPU;
    }
    cudaFree(dt);
    cudaFree(dT);
    cudaFree(dv);
    cudaFree(de);
    cudaFree(dok);
    cudaFree(df);
    return ret;
}
