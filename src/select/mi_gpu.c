/* mi_gpu.c -- counting the rounds of a feature selection on a device: the
 * adapter between the selection's context (select_internal.h) and the
 * device's two ways of counting (gpu/gpu.h):
 *   - the pair engine, for tables whose features have at most 4 states and
 *     whose class has 2 (scan survivors): a round is one row of pair tables
 *     of the newest pick against every candidate;
 *   - the histogram kernels, for any table: a round's conditioning built on
 *     the device from the newest pick, or sent from the host (dense codes, or
 *     the grouped order of mi_count.c).
 * Either way the device's counts become the CPU's sums (select_internal.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select_internal.h"
#include "gpu.h"

/* The pair engine's view of a table whose features have at most 4 states and
 * whose class has 2: every feature is a "variant" with genotype planes
 * (states 0, 1, 2 as genotypes, state 3 as a missing call), so a round's
 * tables of the newest feature against every candidate are one row of pair
 * tables (gpu/engine.cu), and the cells with state 3 follow from the
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
    es_gpu_mi_t *gm;    /* the histogram kernels */
    uint32_t dense_max; /* the largest dense conditioning they take */
    pairs_t pr;         /* the pair engine */
};

/* E(xs, y) and E(xs) of one 2 x 4 table of class and state counts. */
static void pairs_e_of(const es_mi_nlt_t *nt, const uint32_t t[2][4], double *exy, double *ex)
{
    double a = 0.0, b = 0.0;
    for (int v = 0; v < 4; v++) {
        a += es_mi_nlx(nt, t[0][v]) + es_mi_nlx(nt, t[1][v]);
        b += es_mi_nlx(nt, t[0][v] + t[1][v]);
    }
    *exy = a;
    *ex = b;
}

/* The histogram kernels, with the conditioning the CPU's es_mi_cond_t describes
 * (dense codes when it has them and they fit the device, else the groups). */
static int round_hist_cd(es_mi_ctx_t *c)
{
    const es_mi_cond_t *cd = &c->cd;
    es_gpu_mi_cond_t gc;
    memset(&gc, 0, sizeof gc);
    gc.ng = cd->ng;
    gc.ni = cd->ni;
    if (cd->has_z && cd->nz <= c->gpu->dense_max) {
        gc.z = cd->z;
    } else {
        gc.perm = cd->perm;
        gc.m = cd->m;
        gc.grp = cd->grp;
        gc.n_grp = cd->n_grp;
        gc.sub = cd->sub;
        gc.n_sub = cd->n_sub;
    }
    return es_gpu_mi_round(c->gpu->gm, &gc, c->want, c->e3, c->e2);
}

/* The pair engine: the tables of feature j against every candidate. */
static int round_pairs(es_mi_ctx_t *c, uint32_t j)
{
    pairs_t *p = &c->gpu->pr;
    int ret = es_gpu_rows_count(p->rows, j, p->tab);
    if (ret) return ret;
    const uint32_t(*cj)[4] = p->cnt[j];
    const es_mi_nlt_t *nt = &c->cd.nt;
#pragma omp parallel for num_threads(c->nt) schedule(static)
    for (int64_t f = 0; f < (int64_t)c->nf; f++) {
        if (!c->want[f]) continue;
        const es_gpu_cand_t *t = &p->tab[f];
        const uint32_t(*ck)[4] = p->cnt[f];
        uint32_t T[2][4][4];
        double e3 = 0.0, e2 = 0.0;
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
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++) {
                e3 += es_mi_nlx(nt, T[0][a][b]) + es_mi_nlx(nt, T[1][a][b]);
                e2 += es_mi_nlx(nt, T[0][a][b] + T[1][a][b]);
            }
        c->e3[f] = e3;
        c->e2[f] = e2;
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
    /* class 1 plays "case" (words [0, w_case)), class 0 "control" */
    const uint32_t w_case = (ny[1] + ES_PAD_BITS - 1) / ES_PAD_BITS * ES_PAD_WORDS;
    const uint32_t w_ctrl = (ny[0] + ES_PAD_BITS - 1) / ES_PAD_BITS * ES_PAD_WORDS;
    const size_t words = (size_t)w_case + w_ctrl, per = (size_t)np * words;
    uint32_t *pos = malloc(n * sizeof *pos);
    p->cnt = calloc(nf, sizeof *p->cnt);
    p->gcount = calloc(nf, sizeof *p->gcount);
    p->tab = malloc(nf * sizeof *p->tab);
    p->planes = aligned_alloc(128, nf * per * sizeof(uint64_t));
    if (!pos || !p->cnt || !p->gcount || !p->tab || !p->planes) {
        free(pos);
        return ES_ERR_NOMEM;
    }
    uint32_t k0 = 0, k1 = 0;
    for (size_t s = 0; s < n; s++) pos[s] = d->y[s] ? k1++ : (uint32_t)w_case * 64 + k0++;
#pragma omp parallel for num_threads(c->nt) schedule(static)
    for (int64_t f = 0; f < (int64_t)nf; f++) {
        uint64_t *pl = p->planes + (size_t)f * per;
        memset(pl, 0, per * sizeof *pl);
        const uint16_t *x = es_mi_col(c, (uint32_t)f);
        uint32_t(*cn)[4] = p->cnt[f];
        for (size_t s = 0; s < n; s++) {
            uint32_t v = x[s];
            uint64_t bit = 1ull << (pos[s] & 63);
            size_t w = pos[s] >> 6;
            cn[d->y[s]][v]++;
            if (v == 1 || v == 2) pl[w] |= bit;
            if (v == 2) pl[words + w] |= bit;
            if (np == 3 && v < 3) pl[2 * words + w] |= bit;
        }
        for (int y = 0; y < 2; y++)
            for (int g = 0; g < 3; g++) p->gcount[f][y][g] = cn[y][g];
    }
    free(pos);
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
    return es_gpu_rows_open(dev, kernel, &cfg, &all, &p->rows);
}

static void pairs_close(pairs_t *p)
{
    es_gpu_rows_close(p->rows);
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

int es_mi_gpu_open(es_mi_ctx_t *c, es_mi_method_t m, const es_mi_opt_t *o)
{
    const es_dtable_t *d = c->d;
    int nd = 0;
    if (es_gpu_device_count(&nd) != ES_OK || o->device >= nd) {
        es_error("no CUDA device %d for the selection (%d visible%s)", o->device, nd,
                 nd ? "" : "; built without CUDA or no GPU");
        return ES_ERR_UNSUPPORTED;
    }
    const char *why = pairs_unsuited(d, m);
    int pairs = o->gpu_path == ES_MI_GPU_PAIRS || (o->gpu_path == ES_MI_GPU_AUTO && !why);
    if (o->gpu_path == ES_MI_GPU_PAIRS && why) {
        es_error("the pair engine cannot count this selection: %s", why);
        return ES_ERR_ARG;
    }
    if (m == ES_MI_MIM) pairs = 0; /* one pass of relevance: the histogram kernel */
    if (!(c->gpu = calloc(1, sizeof *c->gpu))) return ES_ERR_NOMEM;
    c->gpu->dev = o->device;
    if (pairs) {
        c->gpu->on = ON_PAIRS;
        return pairs_open(c, o->device, o->gpu_kernel);
    }
    c->gpu->on = ON_HIST;
    int ret = es_gpu_mi_open(o->device, d->n_samples, d->n_features, d->x, d->n_states, d->y,
                             d->n_classes, o->fixed_point, c->cd.nt.tab, c->cd.nt.lq, &c->gpu->gm);
    if (ret) return ret;
    c->gpu->dense_max = es_gpu_mi_dense_max(c->gpu->gm);
    return ES_OK;
}


int es_mi_gpu_relevance(es_mi_ctx_t *c)
{
    es_mi_gpu_t *g = c->gpu;
    if (g->on == ON_PAIRS) {
        /* E(Xk, Y) and E(Xk) from the per-class state counts */
        for (uint32_t f = 0; f < c->nf; f++)
            pairs_e_of(&c->cd.nt, (const uint32_t(*)[4])g->pr.cnt[f], &c->e3[f], &c->e2[f]);
        return ES_OK;
    }
    if (c->nc > g->dense_max) {
        /* more classes than the dense kernel takes: the groups */
        es_mi_cond_relevance(c, 1, 0);
        return round_hist_cd(c);
    }
    /* g constant, the class inside: z = y, built on the device */
    es_gpu_mi_cond_t gc;
    memset(&gc, 0, sizeof gc);
    gc.ng = 1;
    gc.ni = c->nc;
    gc.feature = UINT32_MAX;
    gc.with_y = 1;
    return es_gpu_mi_round(g->gm, &gc, c->want, c->e3, c->e2);
}

int es_mi_gpu_round(es_mi_ctx_t *c, es_mi_method_t m, uint32_t j)
{
    es_mi_gpu_t *g = c->gpu;
    const es_dtable_t *d = c->d;
    if (m == ES_MI_CONDMI) return round_hist_cd(c); /* the driver built the joint state's groups */
    if (g->on == ON_PAIRS) return round_pairs(c, j);
    int with_y = m != ES_MI_MRMR;
    uint64_t nz = (uint64_t)d->n_states[j] * (with_y ? c->nc : 1);
    if (nz <= g->dense_max) {
        es_gpu_mi_cond_t gc;
        memset(&gc, 0, sizeof gc);
        gc.ng = d->n_states[j];
        gc.ni = with_y ? c->nc : 1;
        gc.feature = j;
        gc.with_y = with_y;
        return es_gpu_mi_round(g->gm, &gc, c->want, c->e3, c->e2);
    }
    es_mi_cond_build(&c->cd, c->n, NULL, es_mi_col(c, j), d->n_states[j], with_y ? d->y : NULL, c->nc, 0, 1);
    return round_hist_cd(c);
}

void es_mi_gpu_describe(const es_mi_ctx_t *c, char *buf, size_t len, double *seconds)
{
    const es_mi_gpu_t *g = c->gpu;
    if (g->on == ON_HIST) {
        snprintf(buf, len, "gpu %d (histogram kernels)", g->dev);
        if (seconds) *seconds = g->gm ? es_gpu_mi_seconds(g->gm) : 0.0;
    } else {
        snprintf(buf, len, "gpu %d (pair engine, %s kernel)", g->dev,
                 g->pr.rows ? es_gpu_rows_kernel(g->pr.rows) : "no");
        if (seconds) *seconds = g->pr.rows ? es_gpu_rows_seconds(g->pr.rows) : 0.0;
    }
}

void es_mi_gpu_close(es_mi_ctx_t *c)
{
    if (!c->gpu) return;
    es_gpu_mi_close(c->gpu->gm);
    pairs_close(&c->gpu->pr);
    free(c->gpu);
    c->gpu = NULL;
}
