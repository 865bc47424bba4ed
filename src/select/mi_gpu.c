/* mi_gpu.c -- counting the rounds of a feature selection on a device: the
 * adapter between the selection's context (select_internal.h) and the
 * device's two ways of counting, reached through the backend table
 * (src/backend/backend.h):
 *   - the pair engine, for tables whose features have at most 4 states and
 *     whose class has 2 (scan survivors): a round is one row of pair tables
 *     of the newest pick against every candidate;
 *   - the histogram kernels, for any table: a round's conditioning built on
 *     the device from the newest pick, or sent from the host (dense codes, or
 *     the grouped order of mi_count.c).  The table goes up packed in as few
 *     bits a value as its states need, packed here by the selection's
 *     threads chunk by chunk while the device's link moves the chunk before;
 *     the same pass checks every value against its feature's states.
 * Either way the device's counts become the CPU's sums (select_internal.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select_internal.h"

/* The pair engine's view of a table whose features have at most 4 states and
 * whose class has 2: every feature is a "variant" with genotype planes
 * (states 0, 1, 2 as genotypes, state 3 as a missing call), so a round's
 * tables of the newest feature against every candidate are one row of pair
 * tables (gpu/pair/engine.cu), and the cells with state 3 follow from the
 * per-class state counts. */
typedef struct {
    es_gpu_rows_t *rows;
    uint32_t (*cnt)[2][4];    /* per feature: samples per class and state */
    uint32_t (*gcount)[2][3]; /* the engine's genotype counts */
    uint64_t *planes;
    es_gpu_cand_t *tab;       /* a round's tables */
} pairs_t;

struct es_mi_gpu {
    enum { ON_HIST, ON_PAIRS } on;
    int dev;
    const es_backend_t *be; /* the GPU backend */
    es_gpu_mi_t *gm;        /* the histogram kernels */
    uint8_t *order;         /* per feature: how a round adds its terms (ES_GPU_MI_*; 0: not counted) */
    uint32_t *zc;           /* CondMI: the joint state's codes without its one-sample states (N) */
    pairs_t pr;             /* the pair engine */
};

/* ---- the CPU's order of the terms ----------------------------------------------- */

/* For every wanted candidate, the order in which the CPU would add its terms
 * under a conditioning of nz cells, ni of them inner (es_mi_count_order).
 * @return whether any candidate takes the grouped path. */
static int mark_orders(es_mi_ctx_t *c, uint64_t nz, uint32_t ni)
{
    int groups = 0;
    for (uint32_t f = 0; f < c->nf; f++) {
        uint8_t o = c->want[f] ? (uint8_t)es_mi_count_order(nz, ni, c->d->n_states[f], c->n) : 0;
        c->gpu->order[f] = o;
        groups |= o == ES_GPU_MI_GROUPS;
    }
    return groups;
}

/* The CPU's sums (mi_count.c) of one small table t[x][g][i] -- x the
 * candidate's state, g the conditioning's, i the class, all < 4 resp. 2 --
 * over a conditioning with ni inner states: E(x, g) over the rows (x, g) in
 * order; E(x, g, i) over the cells in order, or (ES_GPU_MI_TOUCH) in the
 * order the samples (xk[s], xg[s] or 0, y[s]) first touch them.  States the
 * table does not have add n log n = 0, which changes no sum.  Clears the
 * cells it visits in touch order. */
static void small_sums(const es_mi_nlt_t *nt, uint32_t t[4][4][2], uint32_t ni, int order, const uint16_t *xk,
                       const uint16_t *xg, const uint16_t *y, uint32_t n, double *e3, double *e2)
{
    double a3 = 0.0, a2 = 0.0;
    for (int x = 0; x < 4; x++)
        for (int g = 0; g < 4; g++) {
            a2 += es_mi_nlx(nt, t[x][g][0] + t[x][g][1]);
            if (ni > 1 && order == ES_GPU_MI_ROWS) {
                a3 += es_mi_nlx(nt, t[x][g][0]);
                a3 += es_mi_nlx(nt, t[x][g][1]);
            }
        }
    if (ni > 1 && order == ES_GPU_MI_TOUCH) {
        for (uint32_t s = 0; s < n; s++) {
            uint32_t *cell = &t[xk[s]][xg ? xg[s] : 0][y[s]];
            if (*cell) {
                a3 += es_mi_nlx(nt, *cell);
                *cell = 0;
            }
        }
    }
    *e3 = ni > 1 ? a3 : a2;
    *e2 = a2;
}

/* ---- the histogram kernels ---------------------------------------------------- */

/* CondMI's dense codes for the device: g the rank of the sample's joint
 * state among the states of two samples or more (the groups of c->cd), the
 * class inside; UINT32_MAX for a sample alone in its joint state.  Such a
 * sample's cells (x, g, y) and rows (x, g) hold it alone and add n log2 n =
 * 0 to either sum, whatever their order, and the ranks keep the order of
 * the states, so the device adds the CPU's non-zero terms in the CPU's
 * order from a table of n_grp instead of ng states (the joint state
 * fragments as picks are added: most states end with one sample).
 * @return the states of the codes' g. */
static uint32_t compact_codes(es_mi_ctx_t *c)
{
    const es_mi_cond_t *cd = &c->cd;
    uint32_t *zc = c->gpu->zc;
    memset(zc, 0xff, (size_t)c->n * sizeof *zc);
    for (uint32_t gi = 0; gi < cd->n_grp; gi++)
        for (uint32_t t = cd->grp[gi]; t < cd->grp[gi + 1]; t++) {
            uint32_t s = cd->perm[t];
            zc[s] = gi * cd->ni + c->d->y[s];
        }
    return cd->n_grp ? cd->n_grp : 1;
}

/* A round on the histogram kernels: the dense codes built on the device
 * (feature j, UINT32_MAX: constant; with the class when with_y) or, for
 * CondMI (host_z), from c->cd's groups, and c->cd's groups when a
 * candidate needs them. */
static int round_hist(es_mi_ctx_t *c, uint32_t j, int with_y, int host_z, int groups)
{
    const es_mi_cond_t *cd = &c->cd;
    es_gpu_mi_cond_t gc;
    memset(&gc, 0, sizeof gc);
    gc.ng = cd->ng;
    gc.ni = cd->ni;
    gc.feature = j;
    gc.with_y = with_y;
    if (host_z && cd->has_z) {
        gc.ng = compact_codes(c);
        gc.z = c->gpu->zc;
    }
    if (groups) {
        gc.perm = cd->perm;
        gc.m = cd->m;
        gc.grp = cd->grp;
        gc.n_grp = cd->n_grp;
        gc.sub = cd->sub;
        gc.n_sub = cd->n_sub;
    }
    return c->gpu->be->mi_round(c->gpu->gm, &gc, c->gpu->order, c->e3, c->e2);
}

/* Values a thread packs at a time: a multiple of 8, so that every block
 * starts on a byte at any width; 8 KiB of 16-bit values. */
#define PACK_BLOCK 4096

typedef struct {
    const es_dtable_t *d;
    int nt;
    int bad; /* a value at or above its feature's states was seen */
} pack_arg_t;

static uint16_t max_u16(const uint16_t *restrict x, size_t n)
{
    uint16_t m = 0;
#pragma omp simd reduction(max : m)
    for (size_t i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
    return m;
}

static inline uint16_t max2(uint16_t a, uint16_t b) { return a > b ? a : b; }

/* n values (n a multiple of 8 but at the table's end) at bits a value, the
 * first in the low bits of out[0], in one pass with their maximum (the
 * check's), which it returns. */
static uint16_t pack_block(const uint16_t *restrict x, size_t n, unsigned bits, uint8_t *restrict out)
{
    uint16_t m = 0;
    size_t i; /* the first value not packed by the whole-byte loop: a simd
               * loop's own variable has no defined value after it */
    switch (bits) {
    case 1:
#pragma omp simd reduction(max : m)
        for (size_t j = 0; j < n / 8; j++) {
            const uint16_t *v = x + 8 * j;
            m = max2(m, max2(max2(max2(v[0], v[1]), max2(v[2], v[3])), max2(max2(v[4], v[5]), max2(v[6], v[7]))));
            out[j] = (uint8_t)(v[0] | v[1] << 1 | v[2] << 2 | v[3] << 3 | v[4] << 4 | v[5] << 5 | v[6] << 6 |
                               v[7] << 7);
        }
        i = n / 8 * 8;
        break;
    case 2:
#pragma omp simd reduction(max : m)
        for (size_t j = 0; j < n / 4; j++) {
            const uint16_t *v = x + 4 * j;
            m = max2(m, max2(max2(v[0], v[1]), max2(v[2], v[3])));
            out[j] = (uint8_t)(v[0] | v[1] << 2 | v[2] << 4 | v[3] << 6);
        }
        i = n / 4 * 4;
        break;
    case 4:
#pragma omp simd reduction(max : m)
        for (size_t j = 0; j < n / 2; j++) {
            m = max2(m, max2(x[2 * j], x[2 * j + 1]));
            out[j] = (uint8_t)(x[2 * j] | x[2 * j + 1] << 4);
        }
        i = n / 2 * 2;
        break;
    case 8:
#pragma omp simd reduction(max : m)
        for (size_t j = 0; j < n; j++) {
            m = max2(m, x[j]);
            out[j] = (uint8_t)x[j];
        }
        i = n;
        break;
    default:
        memcpy(out, x, n * sizeof *x);
        return max_u16(x, n);
    }
    if (i < n) { /* the table's last, partial byte */
        unsigned v = 0;
        for (size_t k = i; k < n; k++) {
            m = max2(m, x[k]);
            v |= (unsigned)x[k] << ((k - i) * bits);
        }
        out[i * bits / 8] = (uint8_t)v;
    }
    return m;
}

/* es_gpu_mi_pack_fn: the table's values [first, first + count) at bits a
 * value, on the selection's threads, each value checked against its
 * feature's states (ES_ERR_ARG, without a message, when one is not below):
 * a block whose largest value is below the states of every feature it
 * touches is good, else each feature's part is checked apart. */
static int pack_values(void *arg, uint64_t first, uint64_t count, unsigned bits, uint8_t *buf)
{
    pack_arg_t *a = arg;
    const es_dtable_t *d = a->d;
    const uint64_t n = d->n_samples, nblk = (count + PACK_BLOCK - 1) / PACK_BLOCK;
    int bad = 0;
#pragma omp parallel for num_threads(a->nt) schedule(static) reduction(| : bad)
    for (int64_t b = 0; b < (int64_t)nblk; b++) {
        const uint64_t e0 = first + (uint64_t)b * PACK_BLOCK;
        const uint64_t e1 = e0 + PACK_BLOCK < first + count ? e0 + PACK_BLOCK : first + count;
        const uint16_t mx = pack_block(d->x + e0, e1 - e0, bits, buf + (e0 - first) * bits / 8);
        uint32_t lo = UINT32_MAX;
        for (uint64_t f = e0 / n; f <= (e1 - 1) / n; f++) lo = d->n_states[f] < lo ? d->n_states[f] : lo;
        if (mx < lo) continue;
        for (uint64_t e = e0; e < e1;) {
            const uint64_t f = e / n, end = (f + 1) * n < e1 ? (f + 1) * n : e1;
            if (max_u16(d->x + e, end - e) >= d->n_states[f]) bad = 1;
            e = end;
        }
    }
    a->bad |= bad;
    return bad ? ES_ERR_ARG : ES_OK;
}

/* Open the histogram kernels with the device's terms (the CPU's n log2 n,
 * or fixed-point, value of every count up to N), the table packed in the
 * fewest of 1, 2, 4, 8 bits a value that hold its states, or 16. */
static int hist_open(es_mi_ctx_t *c, int dev)
{
    const es_dtable_t *d = c->d;
    uint32_t n_nl = c->n + 1;
    double *nl = malloc((size_t)n_nl * sizeof *nl);
    if (!nl) return ES_ERR_NOMEM;
    for (uint32_t k = 0; k < n_nl; k++) nl[k] = es_mi_nlx(&c->cd.nt, k);
    unsigned bits = 1;
    while (bits < 16 && (1u << bits) < c->max_states) bits *= 2;
    pack_arg_t pa = {d, c->nt, 0};
    int ret = c->gpu->be->mi_open(dev, d->n_samples, d->n_features, bits, pack_values, &pa, d->n_states, d->y,
                                  d->n_classes, nl, n_nl, &c->gpu->gm);
    free(nl);
    /* a value out of its feature's range: the driver's message names it */
    if (pa.bad) return es_mi_table_bad(d);
    return ret;
}

/* ---- the pair engine ------------------------------------------------------------ */

/* The pair engine: the tables of feature j against every candidate. */
static int round_pairs(es_mi_ctx_t *c, es_mi_method_t m, uint32_t j)
{
    pairs_t *p = &c->gpu->pr;
    int ret = c->gpu->be->rows_count(p->rows, j, p->tab);
    if (ret) return ret;
    const uint32_t(*cj)[4] = p->cnt[j];
    const es_mi_nlt_t *nt = &c->cd.nt;
    const uint32_t ni = m == ES_MI_MRMR ? 1 : 2, nz = c->d->n_states[j] * ni;
#pragma omp parallel for num_threads(c->nt) schedule(static)
    for (int64_t f = 0; f < (int64_t)c->nf; f++) {
        if (!c->want[f]) continue;
        const es_gpu_cand_t *t = &p->tab[f];
        const uint32_t(*ck)[4] = p->cnt[f];
        uint32_t T[2][4][4], X[4][4][2];
        for (int y = 0; y < 2; y++) {
            /* both called from the engine; a missing call on one side from
             * that side's other variant's state counts, both missing last */
            uint32_t both_missing = cj[y][3];
            for (int a = 0; a < 3; a++) {
                uint32_t row = 0;
                for (int b = 0; b < 3; b++) row += T[y][a][b] = t->n[y][a * 3 + b];
                T[y][a][3] = cj[y][a] - row; /* j called, f missing */
            }
            for (int b = 0; b < 3; b++) {
                T[y][3][b] = ck[y][b] - (T[y][0][b] + T[y][1][b] + T[y][2][b]); /* j missing, f called */
                both_missing -= T[y][3][b];
            }
            T[y][3][3] = both_missing;
        }
        /* the CPU's table: the candidate's state outermost, then j's, then the class */
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++)
                for (int y = 0; y < 2; y++) X[b][a][y] = T[y][a][b];
        int order = es_mi_count_order(nz, ni, c->d->n_states[f], c->n);
        small_sums(nt, X, ni, order, es_mi_col(c, (uint32_t)f), es_mi_col(c, j), c->d->y, c->n, &c->e3[f],
                   &c->e2[f]);
    }
    return ES_OK;
}

/* Set up the pair engine: planes of every feature, per-class state counts,
 * the rows engine on device dev.  @return ES_OK, ES_ERR_NOMEM, or the
 * engine's error. */
static int pairs_open(es_mi_ctx_t *c, int dev, int kernel)
{
    pairs_t *p = &c->gpu->pr;
    const es_dtable_t *d = c->d;
    const size_t nf = c->nf, n = c->n;
    uint32_t ny[2] = {0, 0};
    for (size_t s = 0; s < n; s++) ny[d->y[s]]++;
    int np = 2;
    for (size_t f = 0; f < nf && np == 2; f++) {
        const uint16_t *x = es_mi_col(c, (uint32_t)f);
        for (size_t s = 0; s < n; s++)
            if (x[s] == 3) {
                np = 3;
                break;
            }
    }
    const double t0 = es_time_now();
    const uint32_t w_case = (ny[1] + ES_PAD_BITS - 1) / ES_PAD_BITS * ES_PAD_WORDS;
    const uint32_t w_ctrl = (ny[0] + ES_PAD_BITS - 1) / ES_PAD_BITS * ES_PAD_WORDS;
    const size_t words = (size_t)w_case + w_ctrl, per = (size_t)np * words;
    /* each class's samples in order: class 1 plays "case" (words [0, w_case)), class 0 "control" */
    uint32_t *idx = malloc(n * sizeof *idx);
    p->cnt = calloc(nf, sizeof *p->cnt);
    p->gcount = calloc(nf, sizeof *p->gcount);
    p->tab = malloc(nf * sizeof *p->tab);
    p->planes = aligned_alloc(128, nf * per * sizeof(uint64_t));
    if (!idx || !p->cnt || !p->gcount || !p->tab || !p->planes) {
        free(idx);
        return ES_ERR_NOMEM;
    }
    uint32_t k0 = ny[1], k1 = 0;
    for (size_t s = 0; s < n; s++) idx[d->y[s] ? k1++ : k0++] = (uint32_t)s;
    /* a word of each plane at a time, from 64 samples of one class held in
     * registers (no read-modify-write chains through memory); the counts
     * from the words' popcounts */
#pragma omp parallel for num_threads(c->nt) schedule(static)
    for (int64_t f = 0; f < (int64_t)nf; f++) {
        uint64_t *pl = p->planes + (size_t)f * per;
        const uint16_t *x = es_mi_col(c, (uint32_t)f);
        uint32_t(*cn)[4] = p->cnt[f];
        for (int y = 0; y < 2; y++) {
            const uint32_t *id = y ? idx : idx + ny[1], cls = ny[y];
            const uint32_t off = y ? 0 : w_case, nw = y ? w_case : w_ctrl;
            uint32_t n1 = 0, n2 = 0, nv = 0;
            for (uint32_t w = 0; w < nw; w++) {
                uint64_t a = 0, b = 0, m = 0;
                const uint32_t k = w * 64, end = k >= cls ? 0 : cls - k < 64 ? cls - k : 64;
                for (uint32_t i = 0; i < end; i++) {
                    uint32_t v = x[id[k + i]];
                    a |= (uint64_t)(v - 1u < 2u) << i;
                    b |= (uint64_t)(v == 2) << i;
                    m |= (uint64_t)(v < 3) << i;
                }
                pl[off + w] = a;
                pl[words + off + w] = b;
                if (np == 3) pl[2 * words + off + w] = m;
                n1 += (uint32_t)__builtin_popcountll(a & ~b);
                n2 += (uint32_t)__builtin_popcountll(b);
                nv += (uint32_t)__builtin_popcountll(m);
            }
            cn[y][1] = n1;
            cn[y][2] = n2;
            cn[y][3] = cls - nv;
            cn[y][0] = nv - n1 - n2;
            for (int g = 0; g < 3; g++) p->gcount[f][y][g] = cn[y][g];
        }
    }
    free(idx);
    es_gpu_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.n_planes = (uint32_t)np;
    cfg.words = (uint32_t)words;
    cfg.off_ctrl = w_case;
    cfg.kw_case = ((ny[1] + 63) / 64 + 3) / 4 * 4;
    cfg.kw_ctrl = ((ny[0] + 63) / 64 + 3) / 4 * 4;
    es_gpu_block_t all;
    all.index = 0;
    all.first = 0;
    all.count = c->nf;
    all.planes = p->planes;
    all.gcount = (const uint32_t *)p->gcount;
    const double t1 = es_time_now();
    int ret = c->gpu->be->rows_open(dev, kernel, &cfg, &all, &p->rows);
    const char *tr = getenv("EPISTREAM_MI_TRACE");
    if (tr && *tr && strcmp(tr, "0") != 0)
        fprintf(stderr, "[mi-trace] pair engine: planes made in %.4f s, engine open in %.4f s\n", t1 - t0,
                es_time_now() - t1);
    return ret;
}

static void pairs_close(const es_backend_t *be, pairs_t *p)
{
    if (p->rows) be->rows_close(p->rows);
    free(p->cnt);
    free(p->gcount);
    free(p->planes);
    free(p->tab);
}

/* Does the table suit the pair engine (every feature <= 4 states, 2 classes
 * both present)?  NULL: yes, else why not. */
static const char *pairs_unsuited(const es_dtable_t *d, es_mi_method_t m)
{
    if (m == ES_MI_CONDMI) return "CondMI conditions on a joint state of many values";
    if (d->n_classes != 2) return "the class does not have exactly 2 states";
    uint32_t ny1 = 0;
    for (uint32_t s = 0; s < d->n_samples; s++) ny1 += d->y[s] == 1;
    if (ny1 == 0 || ny1 == d->n_samples) return "one of the 2 classes has no sample";
    for (uint32_t f = 0; f < d->n_features; f++)
        if (d->n_states[f] > 4) return "a feature has more than 4 states";
    return NULL;
}

es_op_t es_mi_gpu_op(const es_dtable_t *d, es_mi_method_t m, int gpu_path)
{
    int pairs = gpu_path == ES_MI_GPU_PAIRS || (gpu_path == ES_MI_GPU_AUTO && !pairs_unsuited(d, m));
    return pairs && m != ES_MI_MIM ? ES_OP_MI_ROWS : ES_OP_MI_HIST;
}

int es_mi_gpu_open(es_mi_ctx_t *c, es_mi_method_t m, const es_mi_opt_t *o)
{
    const es_dtable_t *d = c->d;
    const es_backend_t *be = es_backend_get(ES_DEVICE_GPU);
    /* a device that is not there: the registry's message */
    if (o->device >= 64 || es_backend_check(ES_DEVICE_GPU, (uint64_t)1 << o->device, NULL)) return ES_ERR_ARG;
    const char *why = pairs_unsuited(d, m);
    if (o->gpu_path == ES_MI_GPU_PAIRS && why) {
        es_error("the pair engine cannot count this selection: %s", why);
        return ES_ERR_ARG;
    }
    if (!(c->gpu = calloc(1, sizeof *c->gpu)) || !(c->gpu->order = calloc(c->nf, 1))) return ES_ERR_NOMEM;
    if (m == ES_MI_CONDMI && !(c->gpu->zc = malloc((size_t)c->n * sizeof *c->gpu->zc))) return ES_ERR_NOMEM;
    c->gpu->dev = o->device;
    c->gpu->be = be;
    if (es_mi_gpu_op(d, m, o->gpu_path) == ES_OP_MI_ROWS) {
        c->gpu->on = ON_PAIRS;
        return pairs_open(c, o->device, o->gpu_kernel);
    }
    c->gpu->on = ON_HIST;
    return hist_open(c, o->device);
}

int es_mi_gpu_relevance(es_mi_ctx_t *c)
{
    es_mi_gpu_t *g = c->gpu;
    if (g->on == ON_PAIRS) {
        /* E(Xk, Y) and E(Xk) from the per-class state counts: tables of the
         * candidate against a constant, the class inside */
        for (uint32_t f = 0; f < c->nf; f++) {
            uint32_t X[4][4][2];
            memset(X, 0, sizeof X);
            for (int x = 0; x < 4; x++)
                for (int y = 0; y < 2; y++) X[x][0][y] = g->pr.cnt[f][y][x];
            int order = es_mi_count_order(c->nc, c->nc, c->d->n_states[f], c->n);
            small_sums(&c->cd.nt, X, c->nc, order, es_mi_col(c, f), NULL, c->d->y, c->n, &c->e3[f], &c->e2[f]);
        }
        return ES_OK;
    }
    /* g constant, the class inside: z = y, built on the device; the groups
     * for candidates the CPU counts grouped */
    int groups = mark_orders(c, c->nc, c->nc);
    if (groups) es_mi_cond_relevance(c, 1, 0);
    c->cd.ng = 1;
    c->cd.ni = c->nc;
    return round_hist(c, UINT32_MAX, 1, 0, groups);
}

int es_mi_gpu_round(es_mi_ctx_t *c, es_mi_method_t m, uint32_t j)
{
    es_mi_gpu_t *g = c->gpu;
    const es_dtable_t *d = c->d;
    es_mi_cond_t *cd = &c->cd;
    if (m == ES_MI_CONDMI) {
        /* the driver built the joint state's codes and groups */
        int groups = mark_orders(c, cd->nz, cd->ni);
        return round_hist(c, UINT32_MAX, 0, 1, groups);
    }
    if (g->on == ON_PAIRS) return round_pairs(c, m, j);
    int with_y = m != ES_MI_MRMR;
    uint32_t ni = with_y ? c->nc : 1;
    int groups = mark_orders(c, (uint64_t)d->n_states[j] * ni, ni);
    if (groups) es_mi_cond_build(cd, c->n, NULL, es_mi_col(c, j), d->n_states[j], with_y ? d->y : NULL, c->nc, 0, 1);
    cd->ng = d->n_states[j];
    cd->ni = ni;
    return round_hist(c, j, with_y, 0, groups);
}

void es_mi_gpu_describe(const es_mi_ctx_t *c, char *buf, size_t len, double *seconds)
{
    const es_mi_gpu_t *g = c->gpu;
    if (g->on == ON_HIST) {
        snprintf(buf, len, "gpu %d (histogram kernels)", g->dev);
        if (seconds) *seconds = g->gm ? g->be->mi_seconds(g->gm) : 0.0;
    } else {
        snprintf(buf, len, "gpu %d (pair engine, %s kernel)", g->dev,
                 g->pr.rows ? g->be->rows_kernel(g->pr.rows) : "no");
        if (seconds) *seconds = g->pr.rows ? g->be->rows_seconds(g->pr.rows) : 0.0;
    }
}

void es_mi_gpu_close(es_mi_ctx_t *c)
{
    if (!c->gpu) return;
    if (c->gpu->gm) c->gpu->be->mi_close(c->gpu->gm);
    pairs_close(c->gpu->be, &c->gpu->pr);
    free(c->gpu->order);
    free(c->gpu->zc);
    free(c->gpu);
    c->gpu = NULL;
}
