/* engine.cu -- one device's share of a pair scan: the block cache (streaming
 * when the data do not fit), two streams (copies, kernels), two candidate
 * buffers so the host scores one tile while the next runs, and the
 * per-variant / top-k thresholds that the kernels keep on the device.
 * Every runtime call goes through CHECK, which logs and returns ES_ERR_GPU. */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <pthread.h>
#include <ctime>

#include <cuda_runtime.h>

#include "epistream.h"
#include "params.cuh"
#include "bounds.cuh"
#include "boost_lo.cuh"
#include "screen.cuh"
#include "epilogue.cuh"
#include "exact.cuh"
#include "launch.cuh"
#include "gpu_test.h"
#include "cuda_check.h"


namespace {

struct slot_t {
    long block;         /* block held, -1: none */
    uint64_t *planes;
    uint32_t *gcount;
    gk_vpre pre;        /* its per-variant constants (k_vpre) */
    cudaEvent_t ready;  /* upload done */
    cudaEvent_t used;   /* last kernel reading it done */
    unsigned long long lru;
    int loading;        /* its upload is being queued by another thread (es_gpu_preload) */
};

struct flight_t {
    es_gpu_cand_t *d_cand, *h_cand; /* h_cand: pinned, h_cand_cap entries, grown as needed */
    uint32_t h_cand_cap;
    es_gpu_cand_t *d_keep; /* the second stage's survivors (exact.cu) */
    double *d_fit, *h_fit; /* BOOST: the survivors' fits, 18 doubles each (es_gpu_t.fits) */
    double *d_fit_in;      /* and every candidate's, between the two passes (cap entries) */
    uint32_t h_fit_cap;    /* entries h_fit holds (pinned, grown as needed) */
    uint32_t *d_key;       /* its keep keys, between its two passes (tilefit 0) */
    uint32_t *d_n;         /* [0] the tile's candidates, [1] the survivors, [2] the second
                              stage's ticket (gk_exact_params), [3] the pre-pass's count
                              (never read: its room is 0) */
    uint32_t *h_n;         /* [0], [1] to the host (mapped: the second stage publishes them;
                              without it, copied) */
    uint32_t *h_n_dev;     /* h_n as the device addresses it */
    uint32_t cap;
    cudaEvent_t start, mid, done; /* mid: between the tile kernel and the second stage */
    cudaEvent_t pre;              /* after a diagonal tile's pre-pass */
    int ran_pre;                  /* the last run had one */
    gk_params P;     /* to re-run the tile when the buffer overflowed */
    es_gpu_block_t a, b;
    uint32_t tau_key;
    uint32_t bi, bj;
};

} // namespace

#define GK_TPRE 3 /* a streamed cache's sets of constants (es_gpu_t.lite): a row's block and two columns' */
#define GK_GRAVE 32                  /* replaced pinned buffers kept until the closing (host_room) */
#define GK_GRAVE_BYTES (64u << 20)   /* ... and their bytes at most */

struct es_gpu {
    int dev;
    es_gpu_config_t cfg;
    int kernel;
    cudaStream_t s_comp, s_copy;
    cudaStream_t s_back; /* candidates to the host: not behind the next tile's kernel */
    slot_t *slots;
    int n_slots;
    unsigned char *cache; /* every slot's memory in one allocation (NULL: one each) */
    /* es_gpu_preload: a second host thread queues uploads on s_pre; the
     * slots' block, lru and loading fields are shared under up_lock */
    cudaStream_t s_pre;
    pthread_mutex_t up_lock;
    pthread_cond_t up_cond;
    double t_upload; /* seconds the submitting thread spent queueing uploads */
    unsigned char *had_tile; /* a block's tile was queued on this device, so its variants have
                                thresholds in d_thr (gk_params.nofit): by block, not slot,
                                since d_thr outlives a slot's eviction (--gpu-mem streaming) */
    unsigned long long clock;
    uint32_t *d_thr, *d_hist, *d_tau;
    unsigned long long *d_screen; /* gk_params.screen */
    double *d_lnf;    /* ln n! (K2 bounds) */
    double *d_nlogn;  /* the host's n ln n (the second stage: mi, ig) */
    unsigned long long *d_exact; /* gk_exact_params.count */
    int exact;        /* the second stage runs (exact.cu; EPISTREAM_GPU_EXACT=0: off) */
    int side;         /* ... on s_side, beside the next tile's kernel (run_flight;
                         EPISTREAM_GPU_STAGE2=inline: on s_comp after its tile, as before) */
    cudaStream_t s_side;
    int prepass;      /* the diagonal tiles run twice (run_flight; EPISTREAM_GPU_PREPASS) */
    int publish;      /* the second stage hands each tile's counts to the host and zeroes them
                         (gk_exact_params.n_host; EPISTREAM_GPU_PUBLISH=0: a memset and a copy
                         a tile, as before, for same-run comparisons) */
    int band;         /* their pre-pass's band (gk_params.band; EPISTREAM_GPU_PREPASS_BAND) */
    int fits;         /* BOOST: it sends each survivor's fit with it, so the host skips the
                         fit (EPISTREAM_GPU_FITS=0: off, for same-run comparisons) */
    const double *last_fit; /* the fits of the tile es_gpu_collect gave last, or NULL */
    int n_sm;
    unsigned long long n_emitted; /* the tile kernels' candidates */
    flight_t fl[ES_GPU_FLIGHTS];
    double t_kernel; /* seconds in the tile kernels (event-timed) */
    double t_exact; /* seconds in the second stage */
    double t_prepass; /* of t_kernel, the diagonal tiles' pre-passes */
    double t_gap;     /* the kernel stream's time from a tile's end to the next tile's start */
    float last_done;  /* when the last collected tile ended, ms after origin (< 0: none yet) */
    cudaEvent_t origin; /* recorded at the opening: the events' common origin */
    int screen1;     /* EPISTREAM_GPU_SCREEN=1: the older first-stage screen (comparisons) */
    int epi1;        /* EPISTREAM_GPU_EPILOGUE=1: the previous tile epilogue (gk_params.epi1; comparisons) */
    int tilefit;     /* BOOST's fits in every tile (gk_params.tilefit) and a one-pass second stage:
                        without the second stage, or EPISTREAM_GPU_TILEFIT=1 (comparisons) */
    int head, n_flight; /* oldest flight, tiles in flight */
    pthread_t warm;      /* warm_main, from the opening to the closing */
    int warm_on;
    int warm_bufs;       /* warm_main also makes the flights' host buffers (es_gpu_collect joins it first) */
    int warm_go;         /* (atomic) the buffers may be made now: from the opening, or (EPISTREAM_GPU_WARM=late)
                            once the device holds ES_GPU_FLIGHTS tiles, a tile is being collected, or the
                            engine closes */
    void *grave[GK_GRAVE]; /* pinned buffers replaced by larger ones, freed at the closing (host_room) */
    int n_grave;
    size_t grave_bytes;
    void *arena;           /* the flights' first host buffers, one allocation (host_first) */
    size_t arena_bytes;
    /* A streamed cache (fewer slots than blocks): the slots hold the planes
     * and counts only, and the tiles' per-variant constants are built into
     * GK_TPRE sets beside the cache, a set per block, kept while its block's
     * tiles follow (a row's block, for the whole row): tpre_use, below
     * (EPISTREAM_GPU_SLOTPRE=1: in the slots at the upload, as before) */
    int lite;
    gk_vpre tpre[GK_TPRE];
    long tpre_blk[GK_TPRE];               /* the block whose constants a set holds (-1: none) */
    unsigned long long tpre_lru[GK_TPRE]; /* (tpre_clock) */
    unsigned long long tpre_clock;        /* the submitting thread's own (clock is under up_lock) */
    cudaEvent_t tpre_ready[GK_TPRE];      /* on s_copy, after the set was built */
    cudaEvent_t tpre_used[GK_TPRE];       /* on s_comp, after the last tile that read it */
    unsigned char *tpre_mem;
};

static int launch(es_gpu_t *g, const gk_params &P)
{
    int np = (int)g->cfg.n_planes;
    switch (g->kernel) {
    case ES_GPU_KERNEL_POPC: return gk_launch_popc(P, np, g->s_comp);
    case ES_GPU_KERNEL_WGMMA: return gk_launch_wgmma(P, np, g->s_comp);
    case ES_GPU_KERNEL_WS: return gk_launch_ws(P, np, g->s_comp);
    default: return gk_launch_mma(P, np, g->s_comp);
    }
}

extern "C" void es_gpu_host_register(void *p, size_t bytes)
{
    if (cudaHostRegister(p, bytes, cudaHostRegisterPortable) != cudaSuccess) (void)cudaGetLastError();
}

extern "C" void es_gpu_host_unregister(void *p)
{
    if (cudaHostUnregister(p) != cudaSuccess) (void)cudaGetLastError();
}

/* auto: on compute capability 9.0 ws where gk_ws_auto measured it faster,
 * else wgmma; mma from 8.0; popc below */
static int pick_kernel(const es_gpu_config_t *cfg, int dev, const cudaDeviceProp &p, int *out, int quiet = 0)
{
    int cc = p.major * 10 + p.minor, want = cfg->kernel;
    switch (want) {
    case ES_GPU_KERNEL_AUTO:
        *out = cc == 90 && gk_wgmma_usable(dev)
                   ? (gk_ws_auto(cfg->stat, (int)cfg->n_planes, cfg->kw_case, cfg->kw_ctrl) && gk_ws_usable(dev)
                          ? ES_GPU_KERNEL_WS
                          : ES_GPU_KERNEL_WGMMA)
               : cc >= 80 ? ES_GPU_KERNEL_MMA
                          : ES_GPU_KERNEL_POPC;
        return ES_OK;
    case ES_GPU_KERNEL_WGMMA:
        if (cc != 90 || !gk_wgmma_usable(dev)) {
            if (!quiet) fprintf(stderr, "[E::es_gpu_open] --gpu-kernel wgmma needs a compute capability 9.0 device "
                            "(H100/H200) and a build with sm_90a code; %s is %d.%d\n", p.name, p.major, p.minor);
            return ES_ERR_UNSUPPORTED;
        }
        *out = want;
        return ES_OK;
    case ES_GPU_KERNEL_WS:
        if (cc != 90 || !gk_ws_usable(dev)) {
            if (!quiet) fprintf(stderr, "[E::es_gpu_open] --gpu-kernel ws needs a compute capability 9.0 device "
                            "(H100/H200), a build with sm_90a code and a driver that encodes tensor maps; "
                            "%s is %d.%d\n", p.name, p.major, p.minor);
            return ES_ERR_UNSUPPORTED;
        }
        *out = want;
        return ES_OK;
    case ES_GPU_KERNEL_MMA:
        if (cc < 80) {
            if (!quiet) fprintf(stderr, "[E::es_gpu_open] --gpu-kernel mma needs compute capability 8.0 or later; "
                            "%s is %d.%d\n", p.name, p.major, p.minor);
            return ES_ERR_UNSUPPORTED;
        }
        *out = want;
        return ES_OK;
    case ES_GPU_KERNEL_POPC: *out = want; return ES_OK;
    default:
        if (!quiet) fprintf(stderr, "[E::es_gpu_open] this build has no such GPU kernel (%d)\n", want);
        return ES_ERR_UNSUPPORTED;
    }
}

/* flight_alloc's exact: 0 no second stage, 1 one pass, 2 two passes (with
 * their keys); plus 4 where the survivors' fits come back (es_gpu_t.fits;
 * with two passes every candidate's fit is kept between them) */
static int exact_mode(const es_gpu_t *g) { return g->exact ? (g->tilefit ? 1 : 2) | (g->fits ? 4 : 0) : 0; }

static int flight_alloc(flight_t *f, uint32_t cap, int exact)
{
    CHECK(cudaMalloc(&f->d_cand, (size_t)cap * sizeof(es_gpu_cand_t)));
    if (exact) CHECK(cudaMalloc(&f->d_keep, (size_t)cap * sizeof(es_gpu_cand_t)));
    if ((exact & 3) == 2) CHECK(cudaMalloc(&f->d_key, (size_t)cap * sizeof(uint32_t)));
    if (exact & 4) CHECK(cudaMalloc(&f->d_fit, (size_t)cap * 18 * sizeof(double)));
    if ((exact & 3) == 2 && (exact & 4)) CHECK(cudaMalloc(&f->d_fit_in, (size_t)cap * 18 * sizeof(double)));
    f->cap = cap;
    return ES_OK;
}

/* Pinned host room *p of at least `need` entries of `size` bytes (*cap
 * entries now): grown to 1.25 need + 1,024, at least GK_HOST_FIRST, when
 * short.  The host holds only what comes back, usually the second stage's
 * few thousand survivors a tile, so this is not sized by the device's
 * buffers (which pinned about 80 MB at every open).  A buffer it replaces
 * is freed at the closing (g->grave), for cudaFreeHost waits for the
 * device and a scan's first tiles grow theirs while the next tiles run; at
 * once past GK_GRAVE of them or GK_GRAVE_BYTES (a scan that brings many
 * candidates back grows them to hundreds of MB: those are not kept pinned);
 * one from the arena (host_first) is freed with the arena.  g NULL: no
 * buffer to replace. */
#define GK_HOST_FIRST 16384u
static bool in_arena(const es_gpu_t *g, const void *p)
{
    return g && g->arena && (const char *)p >= (const char *)g->arena &&
           (const char *)p < (const char *)g->arena + g->arena_bytes;
}

static int host_room(es_gpu_t *g, void **p, uint32_t *cap, uint32_t need, size_t size)
{
    if (need <= *cap) return ES_OK;
    if (*p && !in_arena(g, *p)) {
        const size_t old = (size_t)*cap * size;
        if (g && g->n_grave < GK_GRAVE && g->grave_bytes + old <= GK_GRAVE_BYTES) {
            g->grave[g->n_grave++] = *p;
            g->grave_bytes += old;
        } else {
            CHECK(cudaFreeHost(*p));
        }
    }
    *p = NULL;
    *cap = 0;
    uint32_t want = need + need / 4 + 1024;
    if (want < GK_HOST_FIRST) want = GK_HOST_FIRST;
    CHECK(cudaMallocHost(p, (size_t)want * size));
    *cap = want;
    return ES_OK;
}

static void host_free(const es_gpu_t *g, void *p)
{
    if (p && !in_arena(g, p)) cudaFreeHost(p);
}

/* One flight's share of host_first's allocation: candidates, then fits. */
static size_t host_first_share(const es_gpu_t *g, size_t *cand_bytes)
{
    const size_t cb = (size_t)GK_HOST_FIRST * sizeof(es_gpu_cand_t);
    *cand_bytes = cb;
    return cb + (g->fits ? (size_t)GK_HOST_FIRST * 18 * sizeof(double) : 0);
}

/* An allocation of host_first's made ahead by es_gpu_warm while the scan's
 * blocks are packed, one per device, which host_first adopts when its size
 * is the engine's (else makes its own); es_gpu_warm_release frees one not
 * adopted. */
#define GK_SPARE_DEVS 64
static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    void *p;
    size_t bytes;
} spare[GK_SPARE_DEVS];

static void *spare_take(int dev, size_t bytes)
{
    void *p = NULL;
    if (dev < 0 || dev >= GK_SPARE_DEVS) return NULL;
    pthread_mutex_lock(&spare_lock);
    if (spare[dev].p && spare[dev].bytes == bytes) {
        p = spare[dev].p;
        spare[dev].p = NULL;
    }
    pthread_mutex_unlock(&spare_lock);
    return p;
}

/* @return 1 when p was kept as dev's spare (else the caller frees it) */
static int spare_put(int dev, void *p, size_t bytes)
{
    int kept = 0;
    if (dev < 0 || dev >= GK_SPARE_DEVS) return 0;
    pthread_mutex_lock(&spare_lock);
    if (!spare[dev].p) {
        spare[dev].p = p;
        spare[dev].bytes = bytes;
        kept = 1;
    }
    pthread_mutex_unlock(&spare_lock);
    return kept;
}

/* The flights' first host buffers (GK_HOST_FIRST candidates, and BOOST's
 * fits) carved from one pinned allocation (the spare, where es_gpu_warm
 * made it): cudaMallocHost costs about 1 ms a call on the H200 hosts, and
 * holds the driver's locks meanwhile, so eight of them delayed the first
 * tiles' launches or collections. */
static int host_first(es_gpu_t *g)
{
    size_t cb = 0;
    const size_t share = host_first_share(g, &cb), fb = share - cb;
    void *a = spare_take(g->dev, ES_GPU_FLIGHTS * share);
    if (!a && cudaMallocHost(&a, ES_GPU_FLIGHTS * share) != cudaSuccess) {
        (void)cudaGetLastError();
        for (int k = 0; k < ES_GPU_FLIGHTS; k++) { /* one at a time, then */
            flight_t *f = &g->fl[k];
            if (host_room(NULL, (void **)&f->h_cand, &f->h_cand_cap, 1, sizeof(es_gpu_cand_t)) ||
                (g->fits && host_room(NULL, (void **)&f->h_fit, &f->h_fit_cap, 1, 18 * sizeof(double))))
                return ES_ERR_GPU;
        }
        return ES_OK;
    }
    g->arena = a;
    g->arena_bytes = ES_GPU_FLIGHTS * (cb + fb);
    for (int k = 0; k < ES_GPU_FLIGHTS; k++) {
        flight_t *f = &g->fl[k];
        char *base = (char *)a + (size_t)k * (cb + fb);
        f->h_cand = (es_gpu_cand_t *)base;
        f->h_cand_cap = GK_HOST_FIRST;
        if (fb) {
            f->h_fit = (double *)(base + cb);
            f->h_fit_cap = GK_HOST_FIRST;
        }
    }
    return ES_OK;
}

static void flight_free_bufs(const es_gpu_t *g, flight_t *f)
{
    if (f->d_cand) cudaFree(f->d_cand);
    if (f->d_keep) cudaFree(f->d_keep);
    if (f->d_key) cudaFree(f->d_key);
    if (f->d_fit) cudaFree(f->d_fit);
    if (f->d_fit_in) cudaFree(f->d_fit_in);
    host_free(g, f->h_cand);
    host_free(g, f->h_fit);
    f->d_cand = NULL;
    f->d_keep = NULL;
    f->d_key = NULL;
    f->d_fit = NULL;
    f->d_fit_in = NULL;
    f->h_cand = NULL;
    f->h_fit = NULL;
    f->cap = f->h_fit_cap = f->h_cand_cap = 0;
}

extern "C" void es_gpu_close(es_gpu_t *g)
{
    if (!g) return;
    if (g->warm_on) {
        __atomic_store_n(&g->warm_go, 1, __ATOMIC_RELEASE);
        pthread_join(g->warm, NULL);
    }
    cudaSetDevice(g->dev);
    if (g->s_comp) cudaStreamSynchronize(g->s_comp);
    if (g->s_copy) cudaStreamSynchronize(g->s_copy);
    if (g->s_back) cudaStreamSynchronize(g->s_back);
    if (g->s_pre) cudaStreamSynchronize(g->s_pre);
    if (g->s_side) cudaStreamSynchronize(g->s_side);
    for (int i = 0; i < g->n_slots; i++) {
        if (!g->cache && g->slots[i].planes) cudaFree(g->slots[i].planes); /* the slot's one allocation */
        if (g->slots[i].ready) cudaEventDestroy(g->slots[i].ready);
        if (g->slots[i].used) cudaEventDestroy(g->slots[i].used);
    }
    if (g->cache) cudaFree(g->cache);
    if (g->tpre_mem) cudaFree(g->tpre_mem);
    for (int k = 0; k < GK_TPRE; k++) {
        if (g->tpre_ready[k]) cudaEventDestroy(g->tpre_ready[k]);
        if (g->tpre_used[k]) cudaEventDestroy(g->tpre_used[k]);
    }
    free(g->slots);
    free(g->had_tile);
    for (int k = 0; k < ES_GPU_FLIGHTS; k++) {
        flight_free_bufs(g, &g->fl[k]);
        if (g->fl[k].d_n) cudaFree(g->fl[k].d_n);
        if (g->fl[k].h_n) cudaFreeHost(g->fl[k].h_n);
        if (g->fl[k].done) cudaEventDestroy(g->fl[k].done);
        if (g->fl[k].start) cudaEventDestroy(g->fl[k].start);
        if (g->fl[k].mid) cudaEventDestroy(g->fl[k].mid);
        if (g->fl[k].pre) cudaEventDestroy(g->fl[k].pre);
    }
    for (int k = 0; k < g->n_grave; k++) cudaFreeHost(g->grave[k]);
    g->n_grave = 0;
    g->grave_bytes = 0;
    if (g->arena) cudaFreeHost(g->arena);
    g->arena = NULL;
    if (g->origin) cudaEventDestroy(g->origin);
    if (g->d_thr) cudaFree(g->d_thr);
    if (g->d_hist) cudaFree(g->d_hist);
    if (g->d_tau) cudaFree(g->d_tau);
    if (g->d_screen) cudaFree(g->d_screen);
    if (g->d_lnf) cudaFree(g->d_lnf);
    if (g->d_nlogn) cudaFree(g->d_nlogn);
    if (g->d_exact) cudaFree(g->d_exact);
    if (g->s_comp) cudaStreamDestroy(g->s_comp);
    if (g->s_copy) cudaStreamDestroy(g->s_copy);
    if (g->s_back) cudaStreamDestroy(g->s_back);
    if (g->s_pre) cudaStreamDestroy(g->s_pre);
    if (g->s_side) cudaStreamDestroy(g->s_side);
    pthread_mutex_destroy(&g->up_lock);
    pthread_cond_destroy(&g->up_cond);
    free(g);
}

#define GK_CAND_INIT (1u << 18) /* per flight; grows when a tile needs more */
#define GK_PREPASS_BAND 1024    /* gk_params.band of the diagonal tiles' pre-passes */

/* A device copy in *out of the caller's table of ln n! for n < count (the
 * host's values, so the K2 bounds start from what the host scores with). */
static int lnf_upload(const double *h, uint32_t count, double **out)
{
    CHECK(cudaMalloc(out, (size_t)count * sizeof *h));
    CHECK(cudaMemcpy(*out, h, (size_t)count * sizeof *h, cudaMemcpyHostToDevice));
    /* from pageable memory cudaMemcpy returns before the DMA lands, and the
     * kernels run on non-blocking streams that would not wait for it */
    CHECK(cudaDeviceSynchronize());
    return ES_OK;
}

/* A cache slot's single allocation: offsets of its planes, genotype counts
 * and per-variant constants (block + GK_VPRE_PAD entries each, gk_vpre); returns
 * its bytes. */
static size_t slot_layout(uint32_t block, uint32_t n_planes, uint32_t words, size_t off[6], int with_pre = 1)
{
    const size_t n_pre = with_pre ? (size_t)block + GK_VPRE_PAD : 0;
    const size_t sz[6] = {(size_t)block * n_planes * words * 8, (size_t)block * 6 * 4, n_pre * sizeof(gk_vc),
                          n_pre * sizeof(gk_vc), n_pre * sizeof(gk_srow), n_pre * sizeof(gk_scol)};
    size_t at = 0;
    for (int i = 0; i < 6; i++) {
        off[i] = at;
        at += (sz[i] + 255) / 256 * 256;
    }
    return at;
}

extern "C" size_t es_gpu_slot_bytes(uint32_t block, uint32_t n_planes, uint32_t words)
{
    size_t off[6];
    return slot_layout(block, n_planes, words, off);
}

extern "C" size_t es_gpu_slot_bytes_lite(uint32_t block, uint32_t n_planes, uint32_t words)
{
    size_t off[6];
    return slot_layout(block, n_planes, words, off, 0);
}

/* cand_init: the candidates a tile in flight holds before it grows. */
static int gpu_open(int dev, const es_gpu_config_t *cfg, uint32_t cand_init, es_gpu_t *g)
{
    cudaDeviceProp p;
    CHECK(cudaSetDevice(dev));
    CHECK(cudaGetDeviceProperties(&p, dev));
    int ret = pick_kernel(cfg, dev, p, &g->kernel);
    if (ret) return ret;
    g->n_sm = p.multiProcessorCount;
    CHECK(cudaStreamCreateWithFlags(&g->s_comp, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&g->s_copy, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&g->s_back, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&g->s_pre, cudaStreamNonBlocking));
    if (g->side) CHECK(cudaStreamCreateWithFlags(&g->s_side, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&g->d_thr, (size_t)cfg->n_variants * 4));
    CHECK(cudaMemset(g->d_thr, 0, (size_t)cfg->n_variants * 4));
    CHECK(cudaMalloc(&g->d_hist, GK_HIST_BINS * 4));
    CHECK(cudaMemset(g->d_hist, 0, GK_HIST_BINS * 4));
    CHECK(cudaMalloc(&g->d_tau, 2 * 4));
    CHECK(cudaMemset(g->d_tau, 0, 2 * 4));
    /* the screen's counts, then the same for the diagonal pre-passes */
    /* and [6] the BOOST CTA tiles without the in-tile fits ([9] would be the
     * pre-passes', which always have them) */
    CHECK(cudaMalloc(&g->d_screen, 10 * sizeof *g->d_screen));
    CHECK(cudaMemset(g->d_screen, 0, 10 * sizeof *g->d_screen));
    if (cfg->stat == ES_STAT_K2) {
        /* every count a cell can hold, plus one (K2 uses (n + 1)!) */
        ret = lnf_upload(cfg->lnfact, ES_GPU_LNFACT_N(cfg->kw_case, cfg->kw_ctrl), &g->d_lnf);
        if (ret) return ret;
    }
    if (g->exact) {
        CHECK(cudaMalloc(&g->d_exact, 2 * sizeof *g->d_exact));
        CHECK(cudaMemset(g->d_exact, 0, 2 * sizeof *g->d_exact));
        if (cfg->stat == ES_STAT_MI || cfg->stat == ES_STAT_IG) {
            ret = lnf_upload(cfg->nlogn, GK_EX_NLOGN_TAB, &g->d_nlogn);
            if (ret) return ret;
        }
    }
    for (int k = 0; k < ES_GPU_FLIGHTS; k++) {
        flight_t *f = &g->fl[k];
        ret = flight_alloc(f, cand_init, exact_mode(g));
        if (ret) return ret;
        CHECK(cudaMalloc(&f->d_n, 16));
        CHECK(cudaMemset(f->d_n, 0, 16));
        CHECK(cudaHostAlloc(&f->h_n, 8, cudaHostAllocMapped));
        CHECK(cudaHostGetDevicePointer((void **)&f->h_n_dev, f->h_n, 0));
        CHECK(cudaEventCreate(&f->start));
        CHECK(cudaEventCreate(&f->mid));
        CHECK(cudaEventCreate(&f->pre));
        CHECK(cudaEventCreate(&f->done));
    }
    CHECK(cudaEventCreate(&g->origin));
    CHECK(cudaEventRecord(g->origin, g->s_comp));
    g->last_done = -1.0f;
    /* the block cache: what the limit (or the free memory, less a reserve)
     * holds, at least three blocks so that copies overlap kernels */
    /* A cache with fewer slots than blocks keeps the per-variant constants
     * out of its slots where that makes room for more slots (es_gpu_t.lite):
     * at N = 1,024 they are a third of a slot, and 1/8 of the data held two
     * slots with them, so that each tile's block could be uploaded only once
     * the tile before it had ended (doc/BENCHMARKS.md).  Where the slots are
     * as many either way (N = 8,192: three), building the constants beside
     * the slots would cost more than it saves. */
    size_t off[6], off_lite[6];
    const size_t per_full = slot_layout(cfg->block, cfg->n_planes, cfg->words, off);
    const size_t per_lite = slot_layout(cfg->block, cfg->n_planes, cfg->words, off_lite, 0);
    size_t fr = 0, tot = 0;
    CHECK(cudaMemGetInfo(&fr, &tot));
    size_t reserve = (size_t)256 << 20;
    size_t avail = fr > reserve ? fr - reserve : 0;
    if (cfg->mem_limit && cfg->mem_limit < avail) avail = cfg->mem_limit;
    uint32_t n_blocks = (cfg->n_variants + cfg->block - 1) / cfg->block;
    const char *spv = getenv("EPISTREAM_GPU_SLOTPRE");
    const size_t n_full = avail / per_full, n_lite = avail / per_lite;
    g->lite = n_full < n_blocks && n_lite > n_full && !(spv && strcmp(spv, "1") == 0);
    const size_t per = g->lite ? per_lite : per_full;
    if (g->lite) memcpy(off, off_lite, sizeof off);
    /* the cap is on the block cache, where the data live; the buffers
     * beside it are a few hundred MiB at most */
    if (cfg->mem_limit && cfg->mem_limit < 2 * per) { /* (the size quoted: the least a slot can take) */
        fprintf(stderr, "[E::es_gpu_open] --gpu-mem %zu bytes cannot hold two blocks of %u "
                        "variants (%zu bytes each); raise it or lower --block\n",
                cfg->mem_limit, cfg->block, spv && strcmp(spv, "1") == 0 ? per_full : per_lite);
        return ES_ERR_ARG;
    }
    size_t want = avail / per;
    if (want > n_blocks) want = n_blocks;
    if (want < 2) want = 2;
    g->slots = (slot_t *)calloc(want, sizeof *g->slots);
    g->had_tile = (unsigned char *)calloc(n_blocks, 1);
    if (!g->slots || !g->had_tile) return ES_ERR_NOMEM;
    g->n_slots = (int)want;
    /* one allocation for the cache where it can be had: one cudaFree at the
     * end instead of one per block (each synchronises the device) */
    if (cudaMalloc(&g->cache, per * want) != cudaSuccess) {
        (void)cudaGetLastError();
        g->cache = NULL;
    }
    for (int i = 0; i < g->n_slots; i++) {
        slot_t *s = &g->slots[i];
        s->block = -1;
        unsigned char *m = g->cache ? g->cache + per * (size_t)i : NULL;
        if (!m) CHECK(cudaMalloc(&m, per));
        s->planes = (uint64_t *)m;
        s->gcount = (uint32_t *)(m + off[1]);
        if (!g->lite) {
            s->pre.vrow = (gk_vc *)(m + off[2]);
            s->pre.vcol = (gk_vc *)(m + off[3]);
            s->pre.srow = (gk_srow *)(m + off[4]);
            s->pre.scol = (gk_scol *)(m + off[5]);
        }
        CHECK(cudaEventCreateWithFlags(&s->ready, cudaEventDisableTiming));
        CHECK(cudaEventCreateWithFlags(&s->used, cudaEventDisableTiming));
    }
    if (g->lite) { /* the tiles' sets of constants, beside the cache */
        size_t o[6];
        const size_t one = slot_layout(cfg->block, cfg->n_planes, cfg->words, o) - o[2];
        CHECK(cudaMalloc(&g->tpre_mem, GK_TPRE * one));
        for (int k = 0; k < GK_TPRE; k++) {
            unsigned char *m = g->tpre_mem + (size_t)k * one;
            g->tpre[k].vrow = (gk_vc *)m;
            g->tpre[k].vcol = (gk_vc *)(m + (o[3] - o[2]));
            g->tpre[k].srow = (gk_srow *)(m + (o[4] - o[2]));
            g->tpre[k].scol = (gk_scol *)(m + (o[5] - o[2]));
            g->tpre_blk[k] = -1;
            CHECK(cudaEventCreateWithFlags(&g->tpre_ready[k], cudaEventDisableTiming));
            CHECK(cudaEventCreateWithFlags(&g->tpre_used[k], cudaEventDisableTiming));
        }
    }
    /* the memsets above ran on the legacy default stream, which the
     * non-blocking streams do not wait for: let them finish first */
    CHECK(cudaDeviceSynchronize());
    return ES_OK;
}

/* exact: the scan may run the second stage (exact.cu); rows of tables for
 * selection and the tests' count_tables want every pair, and pass 0. */
static void *warm_main(void *arg);
static void warm_kernels(const es_gpu_t *g);

/* EPISTREAM_GPU_WARM's word: @return whether an engine's warming thread
 * runs at all (=0: not); *bufs, whether it makes the flights' first host
 * buffers (=kernels: not, as the first tiles need them); *go, whether
 * right after the kernels (=late: once the device holds its first tiles,
 * as before) */
static int warm_env(int *bufs, int *go)
{
    const char *wv = getenv("EPISTREAM_GPU_WARM");
    *bufs = !(wv && strcmp(wv, "kernels") == 0);
    *go = !(wv && strcmp(wv, "late") == 0);
    return !(wv && strcmp(wv, "0") == 0);
}

/* The engine's choices that the environment may change (same-run
 * comparisons), for configuration cfg; exact as engine_open's. */
static void engine_flags(es_gpu_t *g, const es_gpu_config_t *cfg, int exact)
{
    const char *sv = getenv("EPISTREAM_GPU_SCREEN");
    g->screen1 = sv && strcmp(sv, "1") == 0;
    const char *pv = getenv("EPISTREAM_GPU_EPILOGUE");
    g->epi1 = pv && strcmp(pv, "1") == 0;
    /* the second stage: statistics with a device twin (exact.cuh); mi and
     * ig need the host's n ln n table; EPISTREAM_GPU_EXACT=0 turns it off
     * (same-run comparisons; the same outputs) */
    const char *ev = getenv("EPISTREAM_GPU_EXACT");
    g->exact = exact && !(ev && strcmp(ev, "0") == 0) && cfg->top_k != UINT32_MAX &&
               gk_exact_stat_ok((int)cfg->stat, cfg->nlogn, cfg->n_nlogn);
    /* the tile's BOOST fits: left to the second stage where it runs
     * (EPISTREAM_GPU_TILEFIT=1: in the tile, for same-run comparisons; the
     * same outputs) */
    const char *fv = getenv("EPISTREAM_GPU_TILEFIT");
    g->tilefit = !g->exact || (fv && *fv ? strcmp(fv, "0") != 0 : 0);
    /* the diagonal tiles' pre-pass pays where the host's exact score is
     * dear: BOOST's fit, the logarithms of MI and IG (chi2 and K2 score
     * faster than it runs); EPISTREAM_GPU_PREPASS=0 / 1: never / always */
    const char *pp = getenv("EPISTREAM_GPU_PREPASS");
    g->prepass = pp && *pp ? strcmp(pp, "0") != 0
                           : cfg->stat == ES_STAT_BOOST || cfg->stat == ES_STAT_MI || cfg->stat == ES_STAT_IG;
    /* the pre-pass's band: each variant's thresholds from its 2 x band
     * nearest partners of the block (a quarter of an 8,192-variant diagonal
     * tile's pairs); the emitting run and the second stage then see every
     * pair.  EPISTREAM_GPU_PREPASS_BAND=N (0: the whole tile, as before) */
    const char *pb = getenv("EPISTREAM_GPU_PREPASS_BAND");
    g->band = pb && *pb ? atoi(pb) : GK_PREPASS_BAND;
    if (g->band < 0) g->band = 0;
    /* BOOST's fits back with the survivors (EPISTREAM_GPU_FITS=0: not, for
     * same-run comparisons; the same outputs) */
    const char *tv = getenv("EPISTREAM_GPU_FITS");
    g->fits = g->exact && cfg->stat == ES_STAT_BOOST && !(tv && strcmp(tv, "0") == 0);
    const char *hv = getenv("EPISTREAM_GPU_PUBLISH");
    g->publish = g->exact && !(hv && strcmp(hv, "0") == 0);
    const char *xv = getenv("EPISTREAM_GPU_STAGE2");
    g->side = g->exact && !(xv && strcmp(xv, "inline") == 0);
}

static int engine_open(int dev, const es_gpu_config_t *cfg, uint32_t cand_init, int exact, es_gpu_t **out)
{
    *out = NULL;
    if (cfg->n_planes != 2 && cfg->n_planes != 3) return ES_ERR_ARG;
    if ((cfg->kw_case | cfg->kw_ctrl) & 3) return ES_ERR_ARG;
    if (cfg->stat == ES_STAT_K2 && (!cfg->lnfact || cfg->n_lnfact < ES_GPU_LNFACT_N(cfg->kw_case, cfg->kw_ctrl))) {
        fprintf(stderr, "[E::es_gpu_open] K2 needs the host's ln n! table (es_gpu_config_t.lnfact, %u entries)\n",
                ES_GPU_LNFACT_N(cfg->kw_case, cfg->kw_ctrl));
        return ES_ERR_ARG;
    }
    es_gpu_t *g = (es_gpu_t *)calloc(1, sizeof *g);
    if (!g) return ES_ERR_NOMEM;
    pthread_mutex_init(&g->up_lock, NULL);
    pthread_cond_init(&g->up_cond, NULL);
    g->dev = dev;
    g->cfg = *cfg;
    engine_flags(g, cfg, exact);
    g->cfg.lnfact = NULL; /* the caller's: read by gpu_open only */
    g->cfg.nlogn = NULL;
    int ret = gpu_open(dev, cfg, cand_init, g);
    if (ret) {
        es_gpu_close(g);
        return ret;
    }
    /* the kernels loaded and the flights' host buffers made beside the rest
     * of the scan's opening (its host workers, the first block's upload)
     * rather than by the first tiles' launches and collections;
     * EPISTREAM_GPU_WARM=0: neither, =kernels: the kernels only, =late:
     * the buffers once the device holds its first tiles (comparisons) */
    if (warm_env(&g->warm_bufs, &g->warm_go)) g->warm_on = pthread_create(&g->warm, NULL, warm_main, g) == 0;
    *out = g;
    return ES_OK;
}

extern "C" int es_gpu_open(int dev, const es_gpu_config_t *cfg, es_gpu_t **out)
{
    return engine_open(dev, cfg, GK_CAND_INIT, 1, out);
}

/* (es_gpu_warm) The flights' first host buffers made ahead, as host_first
 * would make them, unless EPISTREAM_GPU_WARM keeps them for later. */
static void spare_make(const es_gpu_t *g)
{
    int bufs = 0, go = 0;
    if (!warm_env(&bufs, &go) || !bufs || !go) return;
    size_t cb = 0;
    const size_t bytes = ES_GPU_FLIGHTS * host_first_share(g, &cb);
    void *a = NULL;
    if (cudaMallocHost(&a, bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        return;
    }
    if (!spare_put(g->dev, a, bytes)) cudaFreeHost(a);
}

extern "C" void es_gpu_warm_release(int dev)
{
    void *p = NULL;
    if (dev < 0 || dev >= GK_SPARE_DEVS) return;
    pthread_mutex_lock(&spare_lock);
    p = spare[dev].p;
    spare[dev].p = NULL;
    pthread_mutex_unlock(&spare_lock);
    int cur = 0; /* (the caller's device, kept) */
    if (p && cudaGetDevice(&cur) == cudaSuccess && cudaSetDevice(dev) == cudaSuccess) {
        cudaFreeHost(p);
        cudaSetDevice(cur);
    }
    (void)cudaGetLastError();
}

/* es_gpu_open's kernel choice and flags, without its allocations: a scan's
 * first kernels loaded while its blocks are packed (src/backend/gpu.c's
 * warm); errors are left to es_gpu_open, which reports them. */
extern "C" int es_gpu_warm(int dev, const es_gpu_config_t *cfg)
{
    if (cfg->n_planes != 2 && cfg->n_planes != 3) return ES_ERR_ARG;
    es_gpu_t *g = (es_gpu_t *)calloc(1, sizeof *g);
    if (!g) return ES_ERR_NOMEM;
    g->dev = dev;
    g->cfg = *cfg;
    engine_flags(g, cfg, 1);
    cudaDeviceProp p;
    int ret = ES_ERR_GPU;
    if (cudaSetDevice(dev) == cudaSuccess && cudaGetDeviceProperties(&p, dev) == cudaSuccess) {
        ret = pick_kernel(cfg, dev, p, &g->kernel, 1);
        if (!ret) warm_kernels(g);
        if (!ret) spare_make(g);
    }
    (void)cudaGetLastError();
    free(g);
    return ret;
}

extern "C" const char *es_gpu_kernel_name(const es_gpu_t *g)
{
    switch (g->kernel) {
    case ES_GPU_KERNEL_WGMMA: return "wgmma";
    case ES_GPU_KERNEL_WS: return "ws";
    case ES_GPU_KERNEL_MMA: return "mma";
    case ES_GPU_KERNEL_POPC: return "popc";
    default: return "?";
    }
}

extern "C" double es_gpu_kernel_seconds(const es_gpu_t *g) { return g->t_kernel; }
extern "C" double es_gpu_exact_seconds(const es_gpu_t *g) { return g->t_exact; }
extern "C" double es_gpu_prepass_seconds(const es_gpu_t *g) { return g->t_prepass; }
extern "C" double es_gpu_gap_seconds(const es_gpu_t *g) { return g->t_gap; }
extern "C" const double *es_gpu_collect_fits(const es_gpu_t *g) { return g->last_fit; }

extern "C" int es_gpu_exact_stats(es_gpu_t *g, unsigned long long out[3])
{
    out[0] = g->n_emitted;
    out[1] = out[2] = 0;
    if (!g->exact) return ES_OK;
    unsigned long long c[2];
    CHECK(cudaSetDevice(g->dev));
    CHECK(cudaStreamSynchronize(g->s_comp));
    if (g->side) CHECK(cudaStreamSynchronize(g->s_side));
    CHECK(cudaMemcpy(c, g->d_exact, sizeof c, cudaMemcpyDeviceToHost));
    out[1] = c[0];
    out[2] = c[1];
    return ES_OK;
}

extern "C" int es_gpu_screen_stats(es_gpu_t *g, unsigned long long out[4])
{
    CHECK(cudaSetDevice(g->dev));
    CHECK(cudaStreamSynchronize(g->s_comp));
    CHECK(cudaMemcpy(out, g->d_screen, 3 * sizeof *out, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(out + 3, g->d_screen + 6, sizeof *out, cudaMemcpyDeviceToHost));
    return ES_OK;
}
extern "C" int es_gpu_stage2_side(const es_gpu_t *g) { return g->side; }
extern "C" int es_gpu_cache_slots(const es_gpu_t *g) { return g->n_slots; }
extern "C" int es_gpu_cache_lite(const es_gpu_t *g) { return g->lite; }
extern "C" int es_gpu_in_flight(const es_gpu_t *g) { return g->n_flight; }

/* A block's per-variant constants (gk_vpre_build), for n entries: its
 * count variants, then zero counts. */
template <int STAT, int NP>
__global__ void k_vpre(const uint32_t *gcount, uint32_t count, uint32_t n, int v1, gk_vpre out)
{
    const uint32_t v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    uint32_t gc[6];
    for (int i = 0; i < 6; i++) gc[i] = v < count ? gcount[(size_t)v * 6 + i] : 0u;
    gk_vc r, c;
    gk_srow R = {};
    gk_scol C = {};
    gk_vpre_build<STAT, NP>(gc, v1, r, c, R, C);
    out.vrow[v] = r;
    out.vcol[v] = c;
    if (NP == 2) {
        out.srow[v] = R;
        out.scol[v] = C;
    }
}

template <int STAT>
static int launch_vpre(int np, const uint32_t *gcount, uint32_t count, uint32_t n, int v1, const gk_vpre &o,
                       cudaStream_t st)
{
    const unsigned blocks = (n + 127) / 128;
    if (np == 2) k_vpre<STAT, 2><<<blocks, 128, 0, st>>>(gcount, count, n, v1, o);
    else k_vpre<STAT, 3><<<blocks, 128, 0, st>>>(gcount, count, n, v1, o);
    return (int)cudaGetLastError();
}

template <int STAT>
static int vpre_warm(int np)
{
    if (np == 2) gk_kernel_load(k_vpre<STAT, 2>);
    else gk_kernel_load(k_vpre<STAT, 3>);
    return 0;
}

/* The kernels a scan's first tiles launch, in that order: the blocks'
 * constants, the tile kernels, the second stage (g's device current). */
static void warm_kernels(const es_gpu_t *g)
{
    const int stat = (int)g->cfg.stat, np = (int)g->cfg.n_planes;
    (void)GK_STAT_DISPATCH(stat, vpre_warm, np);
    if (g->kernel == ES_GPU_KERNEL_WS) gk_ws_warm(stat, np, g->cfg.kw_case, g->cfg.kw_ctrl);
    else if (g->kernel == ES_GPU_KERNEL_WGMMA) gk_wgmma_warm(stat, np, g->cfg.kw_case, g->cfg.kw_ctrl);
    if (g->exact) gk_exact_warm(stat, !g->tilefit);
}

/* The driver loads a kernel when it is first used (CUDA's lazy loading):
 * about 3 ms for a tile kernel, on the thread that launches it and so
 * between a scan's first tiles (their events timed it: the first ws
 * pre-pass 3.7 ms against 0.6, the first tile without fits 2.5 against
 * 1.0).  This thread loads the ones a scan's first tiles use, in that
 * order -- the blocks' constants, the tile kernels, the second stage --
 * while the opening goes on; a launch that finds its kernel still loading
 * waits for it.  Then (warm_bufs) the flights' pinned host buffers at their
 * first size, in one allocation (host_first), which the first tiles'
 * es_gpu_collect calls made before (cudaMallocHost: about 1 ms each, 4 to 8
 * of them, on the thread that scores).  With EPISTREAM_GPU_WARM=late, not
 * before the device holds its first tiles (warm_go), as before: the first
 * launches do not wait for the driver's locks then, but the first
 * collection does, while the device runs out of queued tiles (12-16 ms
 * between the first tiles at N = 1,024 against 1-6 ms).  es_gpu_collect
 * joins this thread before it touches the buffers (their failures are left
 * to it).  Not g's streams or device memory. */
static void *warm_main(void *arg)
{
    es_gpu_t *g = (es_gpu_t *)arg;
    if (cudaSetDevice(g->dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    warm_kernels(g);
    const struct timespec nap = {0, 50000};
    while (g->warm_bufs && !__atomic_load_n(&g->warm_go, __ATOMIC_ACQUIRE)) nanosleep(&nap, NULL);
    if (g->warm_bufs && host_first(g)) (void)cudaGetLastError();
    return NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Build the per-variant constants of a block's count genotype counts
 * (device gcount) into pre on stream st (k_vpre, padded to the block). */
static int build_vpre(const es_gpu_t *g, const uint32_t *gcount, uint32_t count, const gk_vpre &pre,
                      cudaStream_t st)
{
    CHECK_LAUNCH(GK_STAT_DISPATCH((int)g->cfg.stat, launch_vpre, (int)g->cfg.n_planes, gcount, count,
                                  g->cfg.block + GK_VPRE_PAD, g->screen1, pre, st));
    return ES_OK;
}

/* Queue block b's upload into slot s on stream st: its planes, counts and
 * per-variant constants; s->ready is recorded after them.  From pageable
 * memory the copy returns only when the host has staged every byte, so it
 * costs the calling thread about a copy's time. */
static int upload_block(es_gpu_t *g, slot_t *s, const es_gpu_block_t *b, cudaStream_t st)
{
    size_t bytes = (size_t)b->count * g->cfg.n_planes * g->cfg.words * 8;
    /* the copy may not start before the kernels reading the old block end */
    CHECK(cudaStreamWaitEvent(st, s->used, 0));
    CHECK(cudaMemcpyAsync(s->planes, b->planes, bytes, cudaMemcpyHostToDevice, st));
    CHECK(cudaMemcpyAsync(s->gcount, b->gcount, (size_t)b->count * 24, cudaMemcpyHostToDevice, st));
    int ret;
    if (!g->lite && (ret = build_vpre(g, s->gcount, b->count, s->pre, st))) /* (lite: tpre_use) */
        return ret;
    CHECK(cudaEventRecord(s->ready, st));
    return ES_OK;
}

/* Give slot s to block b and upload it on stream st: called with up_lock
 * held, which it releases while the upload is queued (the slot marked
 * loading meanwhile; a failed upload leaves the slot empty).  @return
 * upload_block's status. */
static int slot_fill(es_gpu_t *g, slot_t *s, const es_gpu_block_t *b, cudaStream_t st)
{
    s->block = (long)b->index;
    s->lru = ++g->clock;
    s->loading = 1;
    pthread_mutex_unlock(&g->up_lock);
    int ret = upload_block(g, s, b, st);
    pthread_mutex_lock(&g->up_lock);
    s->loading = 0;
    if (ret) s->block = -1;
    pthread_cond_broadcast(&g->up_cond);
    pthread_mutex_unlock(&g->up_lock);
    return ret;
}

/* The slot holding block b, uploading it if needed (never evicting `keep`).
 * A block that es_gpu_preload is uploading is waited for. */
static int ensure_block(es_gpu_t *g, const es_gpu_block_t *b, int keep, int *out)
{
    int victim = -1;
    pthread_mutex_lock(&g->up_lock);
    for (int i = 0; i < g->n_slots; i++) {
        if (g->slots[i].block == (long)b->index) {
            while (g->slots[i].loading) pthread_cond_wait(&g->up_cond, &g->up_lock);
            if (g->slots[i].block != (long)b->index) break; /* its upload failed */
            g->slots[i].lru = ++g->clock;
            pthread_mutex_unlock(&g->up_lock);
            *out = i;
            return ES_OK;
        }
    }
    for (int i = 0; i < g->n_slots; i++) {
        if (i == keep || g->slots[i].loading) continue;
        if (victim < 0 || g->slots[i].lru < g->slots[victim].lru) victim = i;
    }
    if (victim < 0) { /* every other slot is being loaded: cannot happen with two slots or more
                         (es_gpu_preload runs only where every block has a slot) */
        pthread_mutex_unlock(&g->up_lock);
        fprintf(stderr, "[E::gpu] no device block slot free for block %u\n", (unsigned)b->index);
        return ES_ERR_GPU;
    }
    double t0 = now_s();
    int ret = slot_fill(g, &g->slots[victim], b, g->s_copy);
    g->t_upload += now_s() - t0;
    if (ret) return ret;
    *out = victim;
    return ES_OK;
}

extern "C" int es_gpu_preload(es_gpu_t *g, const es_gpu_block_t *b)
{
    int free_slot = -1;
    if (cudaSetDevice(g->dev) != cudaSuccess) return ES_ERR_GPU; /* (this thread's device) */
    pthread_mutex_lock(&g->up_lock);
    for (int i = 0; i < g->n_slots; i++) {
        if (g->slots[i].block == (long)b->index) {
            pthread_mutex_unlock(&g->up_lock);
            return ES_OK; /* resident, or on its way */
        }
        if (free_slot < 0 && g->slots[i].block < 0 && !g->slots[i].loading) free_slot = i;
    }
    if (free_slot < 0) {
        pthread_mutex_unlock(&g->up_lock);
        return ES_OK; /* the cache is full: the submitting thread uploads (and evicts) */
    }
    return slot_fill(g, &g->slots[free_slot], b, g->s_pre);
}

extern "C" double es_gpu_upload_seconds(const es_gpu_t *g) { return g->t_upload; }

static void fill_params(es_gpu_t *g, gk_params *P, const slot_t *sa, const slot_t *sb,
                        const es_gpu_block_t *a, const es_gpu_block_t *b, uint32_t tau_key)
{
    memset(P, 0, sizeof *P);
    P->pa = sa->planes;
    P->pb = sb->planes;
    P->ga = sa->gcount;
    P->gb = sb->gcount;
    P->prea = sa->pre;
    P->preb = sb->pre;
    P->na = a->count;
    P->nb = b->count;
    P->first_a = a->first;
    P->first_b = b->first;
    P->diag = a->index == b->index;
    P->words = g->cfg.words;
    P->off_ctrl = g->cfg.off_ctrl;
    P->kw0 = g->cfg.kw_case;
    P->kw1 = g->cfg.kw_ctrl;
    P->stat = g->cfg.stat;
    P->tau_host = tau_key;
    P->sig_min_g = g->cfg.sig_min_g;
    P->top_k = g->cfg.top_k;
    P->update_hist = 1;
    P->thr = g->d_thr;
    P->hist = g->d_hist;
    P->tau_bin = g->d_tau;
    P->lnf = g->d_lnf;
    P->screen = g->d_screen;
    P->screen1 = g->screen1;
    P->epi1 = g->epi1;
    P->tilefit = g->tilefit;
}

/* Queue flight f's kernel.  prepass: run the tile first with no room for
 * candidates, only to raise the thresholds (the variants' bests and the top-k
 * histogram), then again -- as a re-run, counting nothing twice -- to emit
 * its candidates against thresholds that already hold the tile's bounds.
 * Used for the diagonal tiles, the first a variant meets, whose candidates
 * are otherwise judged against thresholds that most of the tile has not
 * raised yet: about half as many reach the host.  The pre-pass covers the
 * CTA tiles within g->band of the diagonal only: where no variant has a
 * threshold every pair passes the screen and is bounded and fitted, so the
 * whole tile cost about three late tiles' pairs; its band gives each variant
 * the best of about 2,048 partners, and the second stage raises them with
 * every candidate's exact value before judging any. */
static int run_flight(es_gpu_t *g, flight_t *f, int prepass)
{
    /* the flight's last second stage (beside the kernels) has read its
     * candidates and handed over its counts */
    if (g->side) CHECK(cudaStreamWaitEvent(g->s_comp, f->done, 0));
    f->P.cand = f->d_cand;
    f->P.cap = f->cap;
    f->P.n_cand = f->d_n;
    /* with the second stage, its last CTA hands the counts to the host and
     * zeroes them (gk_exact_params.n_host, es_gpu_t.publish): no memset and
     * no copy between the tiles' kernels */
    if (!g->publish) CHECK(cudaMemsetAsync(f->d_n, 0, 8, g->s_comp));
    CHECK(cudaEventRecord(f->start, g->s_comp));
    f->ran_pre = prepass;
    if (prepass) {
        gk_params Q = f->P;
        Q.cap = 0;                 /* no room: the epilogue stops before phase D */
        Q.n_cand = f->d_n + 3;     /* (so it emits nothing, and counts nothing in [0]) */
        Q.screen = g->d_screen + 3; /* not in the screen's reported counts */
        Q.band = g->band;
        CHECK_LAUNCH(launch(g, Q));
        CHECK(cudaEventRecord(f->pre, g->s_comp));
        f->P.update_hist = 0;
    }
    CHECK_LAUNCH(launch(g, f->P));
    cudaStream_t st = g->s_comp; /* the stream done is recorded on */
    if (g->exact) {
        /* the second stage, against the thresholds after the whole tile */
        gk_exact_params R;
        R.in = f->d_cand;
        R.n_in = f->d_n;
        R.cap = f->cap;
        R.out = f->d_keep;
        R.n_out = f->d_n + 1;
        R.thr = g->d_thr;
        R.tau_bin = g->d_tau;
        R.tau_host = f->P.tau_host;
        R.sig_min_g = f->P.sig_min_g;
        R.nlogn = g->d_nlogn;
        R.count = g->d_exact;
        R.key = g->tilefit ? NULL : f->d_key;
        R.fit_out = f->d_fit;
        R.fit_in = R.key ? f->d_fit_in : NULL;
        R.n_host = g->publish ? f->h_n_dev : NULL;
        R.ticket = f->d_n + 2;
        CHECK(cudaEventRecord(f->mid, g->s_comp));
        /* A tile's second stage is a few thousand candidates, a fit each,
         * so that its time is about one fit's whatever the tile (25-45 us
         * at N = 1,024): on a stream of its own it runs beside the next
         * tile's kernel, which reads the thresholds it raises whenever
         * they come (every value is a bound) and writes another
         * flight's buffers */
        if (g->side) {
            CHECK(cudaStreamWaitEvent(g->s_side, f->mid, 0));
            st = g->s_side;
        }
        CHECK_LAUNCH(gk_launch_exact((int)g->cfg.stat, R, g->n_sm, st));
    }
    if (!g->publish) CHECK(cudaMemcpyAsync(f->h_n, f->d_n, 8, cudaMemcpyDeviceToHost, st));
    CHECK(cudaEventRecord(f->done, st));
    return ES_OK;
}

/* The set holding block's constants, or -1 (es_gpu_t.lite). */
static int tpre_find(const es_gpu_t *g, uint32_t block)
{
    for (int i = 0; i < GK_TPRE; i++)
        if (g->tpre_blk[i] == (long)block) return i;
    return -1;
}

/* A streamed cache's set holding block b's constants (es_gpu_t.lite): the
 * set that holds them, or the least recently used one other than `keep`
 * (the tile's other block's), built anew on the copy stream once b's
 * upload into slot s and the last tile reading the set are done; the
 * kernel stream waits for it.  Built there,
 * the constants of a tile's new block are ready beside the tile before it
 * instead of between the two (about 19 us a tile at N = 1,024), and a row's
 * block is built once for the row.  *out: the set.  @return ES_OK or
 * ES_ERR_GPU. */
static int tpre_use(es_gpu_t *g, const slot_t *s, const es_gpu_block_t *b, int keep, int *out)
{
    int k = tpre_find(g, b->index);
    if (k < 0) {
        for (int i = 0; i < GK_TPRE; i++)
            if (i != keep && (k < 0 || g->tpre_lru[i] < g->tpre_lru[k])) k = i;
        g->tpre_blk[k] = -1;
        CHECK(cudaStreamWaitEvent(g->s_copy, g->tpre_used[k], 0));
        CHECK(cudaStreamWaitEvent(g->s_copy, s->ready, 0));
        int ret = build_vpre(g, s->gcount, b->count, g->tpre[k], g->s_copy);
        if (ret) return ret;
        CHECK(cudaEventRecord(g->tpre_ready[k], g->s_copy));
        g->tpre_blk[k] = (long)b->index;
    }
    g->tpre_lru[k] = ++g->tpre_clock;
    CHECK(cudaStreamWaitEvent(g->s_comp, g->tpre_ready[k], 0));
    *out = k;
    return ES_OK;
}

/* Make both blocks resident and queue the tile's kernel for flight f. */
static int queue_tile(es_gpu_t *g, flight_t *f, int update_hist)
{
    int ia, ib, ret;
    ret = ensure_block(g, &f->a, -1, &ia);
    if (!ret) ret = ensure_block(g, &f->b, ia, &ib);
    if (ret) return ret;
    slot_t *sa = &g->slots[ia], *sb = &g->slots[ib];
    CHECK(cudaStreamWaitEvent(g->s_comp, sa->ready, 0));
    CHECK(cudaStreamWaitEvent(g->s_comp, sb->ready, 0));
    fill_params(g, &f->P, sa, sb, &f->a, &f->b, f->tau_key);
    int ka = -1, kb = -1;
    if (g->lite) { /* the blocks' constants, in sets of their own */
        if ((ret = tpre_use(g, sa, &f->a, tpre_find(g, f->b.index), &ka))) return ret;
        kb = ka;
        if (ib != ia && (ret = tpre_use(g, sb, &f->b, ka, &kb))) return ret;
        f->P.prea = g->tpre[ka];
        f->P.preb = g->tpre[kb];
    }
    f->P.update_hist = update_hist;
    f->P.nofit = g->had_tile[f->a.index] && g->had_tile[f->b.index];
    ret = run_flight(g, f, update_hist && f->P.diag && g->prepass);
    if (ret) return ret;
    g->had_tile[f->a.index] = g->had_tile[f->b.index] = 1;
    CHECK(cudaEventRecord(sa->used, g->s_comp));
    CHECK(cudaEventRecord(sb->used, g->s_comp));
    if (ka >= 0) CHECK(cudaEventRecord(g->tpre_used[ka], g->s_comp));
    if (kb >= 0 && kb != ka) CHECK(cudaEventRecord(g->tpre_used[kb], g->s_comp));
    return ES_OK;
}

extern "C" int es_gpu_submit(es_gpu_t *g, const es_gpu_block_t *a, const es_gpu_block_t *b,
                             uint32_t tau_key)
{
    if (g->n_flight >= ES_GPU_FLIGHTS) return ES_ERR_ARG;
    CHECK(cudaSetDevice(g->dev));
    flight_t *f = &g->fl[(g->head + g->n_flight) % ES_GPU_FLIGHTS];
    f->a = *a;
    f->b = *b;
    f->tau_key = tau_key;
    f->bi = a->index;
    f->bj = b->index;
    int ret = queue_tile(g, f, 1);
    if (ret) return ret;
    g->n_flight++;
    if (g->n_flight == ES_GPU_FLIGHTS) __atomic_store_n(&g->warm_go, 1, __ATOMIC_RELEASE);
    return ES_OK;
}

extern "C" int es_gpu_collect(es_gpu_t *g, const es_gpu_cand_t **cand, size_t *n, uint32_t *bi,
                              uint32_t *bj)
{
    if (!g->n_flight) return ES_ERR_ARG;
    CHECK(cudaSetDevice(g->dev));
    if (g->warm_on && g->warm_bufs) { /* it makes the flights' host buffers: wait for it */
        __atomic_store_n(&g->warm_go, 1, __ATOMIC_RELEASE);
        pthread_join(g->warm, NULL);
        g->warm_on = 0;
    }
    flight_t *f = &g->fl[g->head];
    CHECK(cudaEventSynchronize(f->done));
    const volatile uint32_t *hn = f->h_n; /* written by the device */
    uint32_t cnt = hn[0];
    float ms = 0.0f;
    if (f->ran_pre) {
        CHECK(cudaEventElapsedTime(&ms, f->start, f->pre));
        g->t_prepass += ms * 1e-3;
    }
    if (g->exact) {
        CHECK(cudaEventElapsedTime(&ms, f->start, f->mid));
        g->t_kernel += ms * 1e-3;
        CHECK(cudaEventElapsedTime(&ms, f->mid, f->done));
        g->t_exact += ms * 1e-3;
    } else {
        CHECK(cudaEventElapsedTime(&ms, f->start, f->done));
        g->t_kernel += ms * 1e-3;
    }
    if (cnt > f->cap) {
        /* more candidates than room (early tiles of a scan, or a
         * --p-threshold that admits many pairs): grow and run the tile again,
         * without counting its pairs in the top-k histogram twice.  A later
         * tile may have evicted its blocks: queue_tile uploads them again. */
        CHECK(cudaStreamSynchronize(g->s_comp));
        flight_free_bufs(g, f);
        uint32_t cap = cnt + cnt / 4 + 1024;
        int ret = flight_alloc(f, cap, exact_mode(g));
        if (ret) return ret;
        ret = queue_tile(g, f, 0);
        if (ret) return ret;
        CHECK(cudaEventSynchronize(f->done));
        cnt = hn[0];
        if (cnt > f->cap) {
            fprintf(stderr, "[E::es_gpu_collect] candidate count grew on a re-run (%u > %u)\n", cnt, f->cap);
            return ES_ERR_GPU;
        }
    }
    g->n_emitted += cnt;
    /* the kernel stream's time between the last tile and this one (its
     * last event: the second stage runs beside it) */
    float t_start = 0.0f, t_done = 0.0f;
    CHECK(cudaEventElapsedTime(&t_start, g->origin, f->start));
    CHECK(cudaEventElapsedTime(&t_done, g->origin, g->side ? f->mid : f->done));
    if (g->last_done >= 0.0f && t_start > g->last_done) g->t_gap += (t_start - g->last_done) * 1e-3;
    g->last_done = t_done;
    /* the second stage's survivors, or every candidate */
    const es_gpu_cand_t *src = f->d_cand;
    if (g->exact) {
        cnt = hn[1];
        src = f->d_keep;
    }
    g->last_fit = NULL;
    if (cnt) {
        int ret = host_room(g, (void **)&f->h_cand, &f->h_cand_cap, cnt, sizeof(es_gpu_cand_t));
        if (!ret && g->fits) ret = host_room(g, (void **)&f->h_fit, &f->h_fit_cap, cnt, 18 * sizeof(double));
        if (ret) return ret;
        /* s_comp already runs the next tile: copy on a stream of its own */
        CHECK(cudaStreamWaitEvent(g->s_back, f->done, 0));
        CHECK(cudaMemcpyAsync(f->h_cand, src, (size_t)cnt * sizeof(es_gpu_cand_t),
                              cudaMemcpyDeviceToHost, g->s_back));
        if (g->fits) {
            CHECK(cudaMemcpyAsync(f->h_fit, f->d_fit, (size_t)cnt * 18 * sizeof(double), cudaMemcpyDeviceToHost,
                                  g->s_back));
            g->last_fit = f->h_fit;
        }
        CHECK(cudaStreamSynchronize(g->s_back));
    }
    *cand = f->h_cand;
    *n = cnt;
    *bi = f->bi;
    *bj = f->bj;
    g->head = (g->head + 1) % ES_GPU_FLIGHTS;
    g->n_flight--;
    return ES_OK;
}

extern "C" int es_gpu_count_tables(int dev, int kernel, const es_gpu_config_t *cfg,
                                   const es_gpu_block_t *a, const es_gpu_block_t *b,
                                   es_gpu_cand_t *out)
{
    es_gpu_config_t c = *cfg;
    c.kernel = kernel;
    c.top_k = UINT32_MAX;
    c.n_variants = (a->first + a->count > b->first + b->count ? a->first + a->count : b->first + b->count);
    c.block = a->count > b->count ? a->count : b->count;
    es_gpu_t *g = NULL;
    int ret = es_gpu_open(dev, &c, &g);
    if (ret) return ret;
    size_t n = 0;
    const es_gpu_cand_t *cd = NULL;
    uint32_t bi, bj;
    ret = es_gpu_submit(g, a, b, 0u);
    if (!ret) ret = es_gpu_collect(g, &cd, &n, &bi, &bj);
    if (!ret) {
        size_t want = (size_t)a->count * b->count;
        if (a->index == b->index) want = (size_t)a->count * (a->count - 1) / 2;
        if (n != want) {
            fprintf(stderr, "[E::es_gpu_count_tables] %zu tables, expected %zu\n", n, want);
            ret = ES_ERR_GPU;
        }
        for (size_t k = 0; k < n && !ret; k++) {
            uint32_t ia = cd[k].i - a->first, ib = cd[k].j - b->first;
            out[(size_t)ia * b->count + ib] = cd[k];
        }
    }
    es_gpu_close(g);
    return ret;
}

/* ---- bounds of given tables (tests) --------------------------------------- */

/* The first-stage screen's bound (gk_screen_sum2, margins included; S3: a
 * stratum's sum with one reciprocal) of a table, in nats, as a tile
 * computes it: its products, and the row's and column's constants from the
 * table's margins (host: exact reciprocals). */
template <int STAT, bool S3 = false>
__host__ __device__ static float gk_screen_of_table(const uint32_t n[2][9])
{
    uint32_t ga[6], gb[6], x[8];
    for (int y = 0; y < 2; y++) {
        for (int k = 0; k < 3; k++) {
            ga[y * 3 + k] = n[y][3 * k] + n[y][3 * k + 1] + n[y][3 * k + 2];
            gb[y * 3 + k] = n[y][k] + n[y][k + 3] + n[y][k + 6];
        }
        /* products of the planes [g>=1], [g==2]: cases first */
        uint32_t *p = x + (y == 1 ? 0 : 4);
        p[0] = n[y][4] + n[y][5] + n[y][7] + n[y][8];
        p[1] = n[y][5] + n[y][8];
        p[2] = n[y][7] + n[y][8];
        p[3] = n[y][8];
    }
    const double n0 = (double)ga[0] + ga[1] + ga[2], n1 = (double)ga[3] + ga[4] + ga[5];
    gk_srow2 R, Rb;
    gk_scol2 C, Ca;
    gk_srow2_build<STAT>(ga, n0, n1, R, Ca);
    gk_srow2_build<STAT>(gb, n0, n1, Rb, C);
    return fmaf(gk_screen_sum2<S3>(x, R, C), 1.0f + 1e-5f, R.base);
}

template <int STAT>
static void screen_host_k(const es_gpu_cand_t *t, size_t n, int s3, float *out)
{
    for (size_t k = 0; k < n; k++)
        out[k] = s3 ? gk_screen_of_table<STAT, true>(t[k].n) : gk_screen_of_table<STAT>(t[k].n);
}

extern "C" int es_gpu_screen_host(int stat, int s3, const es_gpu_cand_t *tables, size_t n, float *out)
{
    if (stat < GK_BOOST || stat > GK_IG) return ES_ERR_ARG;
    GK_STAT_DISPATCH(stat, screen_host_k, tables, n, s3, out);
    return ES_OK;
}

template <int STAT>
__global__ void k_bounds(const es_gpu_cand_t *t, uint32_t n, gk_params P, float *out)
{
    uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    uint32_t c[2][9];
    for (int y = 0; y < 2; y++)
        for (int i = 0; i < 9; i++) c[y][i] = t[k].n[y][i];
    /* two planes: the variants' constants from the table's margins with
     * accurate logarithms, as the kernels build them from the genotype
     * counts; then the per-pair form used when calls are missing */
    gk_vc A, B;
    gk_cc C;
    gk_margins_of<true>(c, A, B, C);
    gk_bounds b2 = gk_bound<STAT>(c, A, B, C, P);
    gk_margins_of<false>(c, A, B, C);
    gk_bounds b3 = gk_bound<STAT>(c, A, B, C, P);
    float lo = 0.0f;
    if (STAT == GK_BOOST) lo = (float)gk_boost_lo(c) * (1.0f - 1e-6f);
    float *o = out + (size_t)k * 9;
    o[0] = b2.up;
    o[1] = b2.lo;
    o[2] = b2.gup;
    o[3] = b3.up;
    o[4] = b3.lo;
    o[5] = b3.gup;
    o[6] = lo;
    o[7] = STAT == GK_K2 ? 0.0f : gk_screen_of_table<STAT>(c);
    o[8] = STAT == GK_K2 ? 0.0f : gk_screen_of_table<STAT, true>(c);
}

template <int STAT>
static void launch_bounds_k(const es_gpu_cand_t *t, uint32_t n, const gk_params &P, float *out)
{
    k_bounds<STAT><<<(n + 127) / 128, 128>>>(t, n, P, out);
}

extern "C" int es_gpu_bounds(int dev, int stat, const es_gpu_cand_t *tables, size_t n, const double *lnfact,
                             uint32_t n_lnfact, float *out)
{
    gk_params P;
    memset(&P, 0, sizeof P);
    if (!lnfact || n_lnfact < es_gpu_cand_max_total(tables, n) + 2u) return ES_ERR_ARG;
    CHECK(cudaSetDevice(dev));
    es_gpu_cand_t *dt = NULL;
    float *dout = NULL;
    double *dl = NULL;
    int ret = lnf_upload(lnfact, n_lnfact, &dl);
    if (ret) return ret;
    cudaError_t e = cudaMalloc(&dt, (n ? n : 1) * sizeof *dt);
    if (e == cudaSuccess) e = cudaMalloc(&dout, (n ? n : 1) * 9 * sizeof(float));
    if (e == cudaSuccess && n) e = cudaMemcpy(dt, tables, n * sizeof *dt, cudaMemcpyHostToDevice);
    if (e == cudaSuccess && n) {
        P.lnf = dl;
        GK_STAT_DISPATCH(stat, launch_bounds_k, dt, (uint32_t)n, P, dout);
        e = cudaGetLastError();
        if (e == cudaSuccess) e = cudaMemcpy(out, dout, n * 9 * sizeof(float), cudaMemcpyDeviceToHost);
    }
    if (e != cudaSuccess) {
        fprintf(stderr, "[E::es_gpu_bounds] %s\n", cudaGetErrorString(e));
        ret = ES_ERR_GPU;
    }
    cudaFree(dt);
    cudaFree(dout);
    cudaFree(dl);
    return ret;
}

/* ---- rows of pair tables for feature selection ------------------------------ */

/* The engine kept open across the rounds of a selection: the variants are
 * one block (uploaded once, index 0); each round's row is a block of one
 * variant with a fresh index, so the cache replaces only it.  With no top-k
 * level (top_k UINT32_MAX, host key 0) the level stays 0 and every pair is
 * emitted with its table. */
struct es_gpu_rows {
    es_gpu_t *g;
    es_gpu_block_t all;
    uint32_t round;
    size_t plane_words; /* words of one variant's planes */
};

extern "C" int es_gpu_rows_open(int dev, int kernel, const es_gpu_config_t *cfg, const es_gpu_block_t *all,
                                es_gpu_rows_t **out)
{
    *out = NULL;
    if (!all->count) return ES_ERR_ARG;
    es_gpu_rows_t *r = (es_gpu_rows_t *)calloc(1, sizeof *r);
    if (!r) return ES_ERR_NOMEM;
    es_gpu_config_t c = *cfg;
    c.kernel = kernel;
    c.stat = ES_STAT_CHI2;
    c.top_k = UINT32_MAX;
    c.sig_min_g = INFINITY;
    c.n_variants = all->first + all->count;
    c.block = all->count;
    c.mem_limit = 0;
    r->all = *all;
    r->all.index = 0;
    r->plane_words = (size_t)c.n_planes * c.words;
    /* a round's tile is one row against the block: all.count tables, never
     * more, where a scan's flights start at GK_CAND_INIT (pinned: 21 MB
     * each, some 40 ms to allocate for the four) */
    int ret = engine_open(dev, &c, all->count, 0, &r->g);
    if (ret) {
        free(r);
        return ret;
    }
    *out = r;
    return ES_OK;
}

extern "C" int es_gpu_rows_count(es_gpu_rows_t *r, uint32_t row, es_gpu_cand_t *out)
{
    if (row >= r->all.count) return ES_ERR_ARG;
    es_gpu_block_t a;
    a.index = 1u + (r->round++ % 0x7fffffffu);
    a.first = r->all.first + row;
    a.count = 1;
    a.planes = r->all.planes + row * r->plane_words;
    a.gcount = r->all.gcount + (size_t)row * 6;
    const es_gpu_cand_t *cd = NULL;
    size_t n = 0;
    uint32_t bi, bj;
    int ret = es_gpu_submit(r->g, &a, &r->all, 0u);
    if (!ret) ret = es_gpu_collect(r->g, &cd, &n, &bi, &bj);
    if (ret) return ret;
    if (n != r->all.count) {
        fprintf(stderr, "[E::es_gpu_rows_count] %zu tables, expected %u\n", n, r->all.count);
        return ES_ERR_GPU;
    }
    for (size_t k = 0; k < n; k++) out[cd[k].j - r->all.first] = cd[k];
    return ES_OK;
}

extern "C" const char *es_gpu_rows_kernel(const es_gpu_rows_t *r) { return es_gpu_kernel_name(r->g); }
extern "C" double es_gpu_rows_seconds(const es_gpu_rows_t *r) { return es_gpu_kernel_seconds(r->g); }

extern "C" void es_gpu_rows_close(es_gpu_rows_t *r)
{
    if (!r) return;
    es_gpu_close(r->g);
    free(r);
}
