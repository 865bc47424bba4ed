/* select_internal.h -- private to src/select, not API: the state of one
 * feature selection, shared by the driver (mi.c: the greedy loop and the
 * methods' scores), the counting on the CPU (mi_count.c) and the adapter that
 * counts on a device through the backend table (mi_gpu.c).
 *
 * A round counts every wanted candidate against the round's conditioning
 * variable g and an inner variable (the class, or none) and leaves two sums
 * per candidate, E(X, g, inner) in e3 and E(X, g) in e2, where E(.) is the
 * sum over the cells of a contingency table of n log2 n.  Whoever counts, the
 * sums are added in the order mi_count.c adds them (es_mi_count_order), so
 * the scores are the same doubles on every device.  Nothing here is thread-local:
 * the driver owns the context and the counting functions take their
 * per-thread work space from it. */
#ifndef ES_SELECT_INTERNAL_H
#define ES_SELECT_INTERNAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "select.h"

/* Cells of the dense counting table per thread (uint32 each: 1 MiB, which stays
 * in L2 while a candidate's samples are streamed through it). */
#ifndef ES_MI_DENSE_MAX /* overridable to test the grouped path on small data */
#define ES_MI_DENSE_MAX (1u << 18)
#endif
#define ES_MI_DENSE ((uint32_t)(ES_MI_DENSE_MAX))

/* ---- the n log2 n terms ------------------------------------------------------ */

#define ES_MI_NL_TAB 65536 /* entries of the tables below */
#define ES_MI_FIX_BITS 11  /* fixed-point logs: Q5.11 */

/** The entropy terms of a selection: n log2 n in double, or the fixed-point
 *  variant (doc/SELECTION.md): log2 n rounded to Q5.11 from a 16-bit table,
 *  for n >= 65,536 from the table's value of n >> sh plus sh.  Every
 *  fixed-point term is a multiple of 2^-11 below 2^48, so sums of them are
 *  exact in double, in any order. */
typedef struct {
    const double *tab;  /**< n log2 n (or its fixed-point value) for n < ES_MI_NL_TAB */
    const uint16_t *lq; /**< round(log2 n x 2^11) for n < ES_MI_NL_TAB */
    int fixed;
} es_mi_nlt_t;

/** The terms of one kind (built once per process; thread-safe). */
void es_mi_nlt_init(es_mi_nlt_t *t, int fixed);

static inline uint32_t es_mi_lq_of(const es_mi_nlt_t *t, uint32_t c)
{
    if (c < ES_MI_NL_TAB) return t->lq[c];
    uint32_t sh = 0;
    while ((c >> sh) >= ES_MI_NL_TAB) sh++;
    return (uint32_t)t->lq[c >> sh] + (sh << ES_MI_FIX_BITS);
}

/** n log2 n of a count (0 for 0). */
static inline double es_mi_nlx(const es_mi_nlt_t *t, uint32_t c)
{
    if (c < ES_MI_NL_TAB) return t->tab[c];
    if (t->fixed) return (double)((uint64_t)c * es_mi_lq_of(t, c)) / (1 << ES_MI_FIX_BITS);
    return (double)c * log2((double)c);
}

/* ---- the conditioning variable of a round --------------------------------------- */

typedef struct {
    es_mi_nlt_t nt;  /* entropy terms */
    uint32_t ng, ni; /* states of g; of the inner variable (n_classes, or 1 = none) */
    uint64_t nz;     /* ng * ni */
    uint32_t *z;     /* dense path: g * ni + inner, per sample (valid when has_z) */
    uint32_t *zg;    /* dense path: g, per sample (valid when has_z) */
    int has_z;
    /* grouped path (valid when has_groups) */
    uint32_t *perm; /* samples of g groups with >= 2 samples, sorted by (g, inner) */
    uint32_t m;     /* entries of perm */
    uint32_t *grp;  /* n_grp + 1 offsets into perm, one g group each */
    uint32_t n_grp;
    uint32_t *sub; /* n_sub [start, end) pairs: (g, inner) runs of >= 2 samples */
    uint32_t n_sub;
    int has_groups;
    double e_g, e_gi; /* E(g) and E(g, inner) (computed with the groups) */
    /* scratch */
    uint32_t *tmp, *bucket; /* N; max(N, 65536) + 1 */
} es_mi_cond_t;

/* Per-thread work space of the CPU counting. */
typedef struct {
    uint32_t *dense;   /* ES_MI_DENSE cells, all zero between uses */
    uint32_t *dense2;  /* ES_MI_DENSE / 2 cells, all zero between uses */
    uint32_t *touched; /* N: cells of dense that became non-zero */
    uint32_t *cnt;     /* max states of a feature, all zero between uses */
    uint16_t *xp;      /* N: a candidate's values in the order of es_mi_cond_t.perm */
} es_mi_ws_t;

typedef struct es_mi_gpu es_mi_gpu_t; /* mi_gpu.c */

/* ---- one selection ------------------------------------------------------------- */

typedef struct {
    const es_dtable_t *d;
    uint32_t n, nf, nc;
    double L;         /* log2 N */
    double e_y;       /* E(Y) */
    int y_const;      /* one observed class */
    double *e_x;      /* E(Xk) */
    double *e_xy;     /* E(Xk, Y) */
    uint8_t *x_const; /* one observed state */
    double *rel;      /* I(Xk; Y) */
    double *acc;      /* per-method accumulator */
    double *score;    /* this round's score per candidate */
    double *e3, *e2;  /* this round's E(Xk, g, inner) and E(Xk, g) per candidate */
    uint8_t *sel;
    uint8_t *want;    /* candidates of the round (1 - sel) */
    /* byte copies of the features with at most 256 states: half the memory
     * traffic per round, which bounds the speed once the data leave the caches */
    uint8_t *x8;
    size_t *x8_ofs; /* per feature: offset into x8, or SIZE_MAX */
    uint32_t max_states;
    int nt;
    es_mi_ws_t *ws; /* nt work spaces (CPU counting only) */
    es_mi_cond_t cd;
    es_mi_gpu_t *gpu; /* NULL: the rounds are counted on the CPU */
} es_mi_ctx_t;

static inline const uint16_t *es_mi_col(const es_mi_ctx_t *c, uint32_t f)
{
    return c->d->x + (size_t)f * c->n;
}

/** Log the first feature (in order) that declares fewer than 1 or more than
 *  65,536 states or holds a value at or above them (mi.c).  @return ES_ERR_ARG. */
int es_mi_table_bad(const es_dtable_t *d);

/* ---- counting on the CPU (mi_count.c) ------------------------------------------ */

/** Set up the round's conditioning on g (g32 or g16, ng states) and the
 *  inner variable y (NULL: none).  want_z: fill z for the dense path;
 *  want_groups: build the sorted order (and e_g, e_gi) for the grouped path. */
void es_mi_cond_build(es_mi_cond_t *cd, uint32_t n, const uint32_t *g32, const uint16_t *g16, uint32_t ng,
                      const uint16_t *y, uint32_t n_classes, int want_z, int want_groups);

/** The order in which the counting of a candidate of nk states, under a
 *  conditioning of nz cells (ni of them the inner variable's) over n
 *  samples, adds its terms: the dense table in cell order (ES_GPU_MI_ROWS),
 *  a dense table sparser than its samples in first-touch order
 *  (ES_GPU_MI_TOUCH), or the grouped path (ES_GPU_MI_GROUPS).  A device
 *  that counts a round adds each candidate's terms in this order. */
static inline int es_mi_count_order(uint64_t nz, uint32_t ni, uint32_t nk, uint32_t n)
{
    uint64_t cells = (uint64_t)nk * nz;
    if (cells > ES_MI_DENSE) return ES_GPU_MI_GROUPS;
    if (ni > 1 && cells > n) return ES_GPU_MI_TOUCH; /* a sparse table: cells as samples touch them */
    return ES_GPU_MI_ROWS;
}

/** Does any unselected candidate need the grouped path under a conditioning
 *  variable with nz cells per candidate state? */
int es_mi_need_groups(const es_mi_ctx_t *c, uint64_t nz);

/** Allocate the per-thread work spaces and the byte copies.  @return ES_OK or ES_ERR_NOMEM. */
int es_mi_cpu_open(es_mi_ctx_t *c);
void es_mi_cpu_close(es_mi_ctx_t *c);

/** Count every wanted candidate against c->cd into e3 and e2 (OpenMP). */
void es_mi_round_cpu(es_mi_ctx_t *c);

/** The relevance pass's conditioning: g constant, the class inside.  groups:
 *  build the grouped form too; dense: the dense codes (z = the class) serve
 *  the counting (has_z). */
void es_mi_cond_relevance(es_mi_ctx_t *c, int groups, int dense);

/** CondMI: refine the joint state s_lab (*ns states) by feature w: new
 *  labels are the ranks of the distinct (s, x_w) pairs. */
void es_mi_joint_refine(es_mi_ctx_t *c, uint32_t *s_lab, uint32_t *ns, uint32_t w);

/* ---- counting on a device (mi_gpu.c) -------------------------------------------- */

/** Which way a device would count method m on table d (gpu_path:
 *  es_mi_gpu_path_t): ES_OP_MI_ROWS (the pair engine) or ES_OP_MI_HIST. */
es_op_t es_mi_gpu_op(const es_dtable_t *d, es_mi_method_t m, int gpu_path);
/** Open the device o->device for method m: the pair engine or the histogram
 *  kernels (o->gpu_path), leaving c->gpu set.  @return ES_OK, or an error
 *  (logged). */
int es_mi_gpu_open(es_mi_ctx_t *c, es_mi_method_t m, const es_mi_opt_t *o);
/** The relevance pass: E(Xk, Y) in e3 and E(Xk) in e2 for every feature. */
int es_mi_gpu_relevance(es_mi_ctx_t *c);
/** A round (want set; for CondMI, c->cd built with its groups): e3, e2 of
 *  every wanted candidate against feature j (with the class unless mRMR) or
 *  the joint state. */
int es_mi_gpu_round(es_mi_ctx_t *c, es_mi_method_t m, uint32_t j);
/** What counts ("gpu 0 (histogram kernels)") and its kernel seconds. */
void es_mi_gpu_describe(const es_mi_ctx_t *c, char *buf, size_t len, double *seconds);
void es_mi_gpu_close(es_mi_ctx_t *c);

#endif /* ES_SELECT_INTERNAL_H */
