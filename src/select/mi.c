/* mi.c -- greedy mutual-information feature selection: MIM, mRMR
 * (difference form), JMI, DISR, CMIM, ICAP and CondMI with the semantics of
 * FEAST (Brown, Pocock, Zhao & Lujan, JMLR 2012): the driver (the greedy loop
 * and each method's score).  doc/SELECTION.md states every rule (scores, ties,
 * stopping, what is reported); this file says why the code is shaped the way
 * it is.  The counting of a round is mi_count.c's (CPU) or mi_gpu.c's (a
 * device).
 *
 * Shape of the computation (the idea of fast-mRMR, applied to every method):
 *   - one pass computes I(Xk;Y) for all features and caches the marginal
 *     sums E(Xk) and E(Xk,Y), where E(.) = sum over cells of n log2 n;
 *   - every later round scores only the newest selected feature j against all
 *     remaining candidates k and folds the result into a per-candidate
 *     accumulator (a sum for mRMR, JMI, DISR, ICAP; a running minimum for
 *     CMIM), so a round costs one contingency table per candidate instead of
 *     |S| of them;
 *   - entropies come from E sums: H(A) = log2 N - E(A)/N, so an MI or a
 *     conditional MI is a signed sum of four E values and one table per pair
 *     gives every quantity a method needs.
 *
 * Threads split the candidates of a round; each candidate's value is computed
 * by one thread in a fixed order and the argmax is a serial scan in index
 * order, so the picks and scores are bit-identical for every thread count.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "select_internal.h"

/* Two scores tie when they differ by at most MI_TIE_REL x max(1, |best|); the
 * lowest feature index wins a tie.  Far above the rounding noise of the sums
 * (~1e-14 bits), far below any difference real data produce.  CondMI stops
 * when the best conditional MI is at most MI_TIE_REL bits. */
#define MI_TIE_REL 1e-10

/* ---- names ----------------------------------------------------------------- */

static const char *const method_names[] = {"mrmr", "jmi", "disr", "cmim", "icap", "condmi", "mim"};

int es_mi_method_parse(const char *name, es_mi_method_t *out)
{
    if (name) {
        for (int m = 0; m < (int)(sizeof method_names / sizeof *method_names); m++) {
            if (strcasecmp(name, method_names[m]) == 0) {
                *out = (es_mi_method_t)m;
                return ES_OK;
            }
        }
    }
    es_error("unknown selection method '%s' (expected mrmr, jmi, disr, cmim, icap, condmi or mim)",
             name ? name : "(null)");
    return ES_ERR_ARG;
}

const char *es_mi_method_name(es_mi_method_t m)
{
    if ((unsigned)m < sizeof method_names / sizeof *method_names) return method_names[m];
    return "unknown";
}

/* Lowest-index unselected candidate whose score is within the tie tolerance of
 * the best; *best receives the best score.  Returns UINT32_MAX if none. */
static uint32_t argmax_low(const es_mi_ctx_t *c, const double *score, double *best)
{
    double b = -INFINITY;
    for (uint32_t f = 0; f < c->nf; f++)
        if (!c->sel[f] && score[f] > b) b = score[f];
    *best = b;
    if (b == -INFINITY) return UINT32_MAX;
    double floor_ = b - MI_TIE_REL * fmax(1.0, fabs(b));
    for (uint32_t f = 0; f < c->nf; f++)
        if (!c->sel[f] && score[f] >= floor_) return f;
    return UINT32_MAX;
}

/* MIM's candidates: its scores are the relevances and never change, so a
 * pick of the first k has a score at least the floor of the k-th largest
 * relevance r_k (each round's best is at least r_k, since fewer than k are
 * picked, and the tie floor grows with the best).  The features at or
 * above a little less than that floor, in index order, into list; argmax_low
 * over them picks what it picks over all.  @return how many. */
static uint32_t mim_candidates(const es_mi_ctx_t *c, uint32_t k, double *heap, uint32_t *list)
{
    /* r_k: the least of the k largest, kept in a min-heap */
    uint32_t h = 0;
    for (uint32_t f = 0; f < c->nf; f++) {
        double v = c->rel[f];
        if (h == k && !(v > heap[0])) continue;
        uint32_t i;
        if (h < k) { /* sift up */
            for (i = h++; i > 0 && heap[(i - 1) / 2] > v; i = (i - 1) / 2) heap[i] = heap[(i - 1) / 2];
        } else { /* replace the least, sift down */
            for (i = 0;;) {
                uint32_t l = 2 * i + 1, r = l + 1, m = i;
                double mv = v;
                if (l < h && heap[l] < mv) m = l, mv = heap[l];
                if (r < h && heap[r] < mv) m = r;
                if (m == i) break;
                heap[i] = heap[m];
                i = m;
            }
        }
        heap[i] = v;
    }
    double floor_ = heap[0] - 2 * MI_TIE_REL * fmax(1.0, fabs(heap[0]));
    uint32_t n = 0;
    for (uint32_t f = 0; f < c->nf; f++)
        if (c->rel[f] >= floor_) list[n++] = f;
    return n;
}

/* argmax_low over the features of list (in index order) alone. */
static uint32_t argmax_low_in(const es_mi_ctx_t *c, const double *score, const uint32_t *list, uint32_t n,
                              double *best)
{
    double b = -INFINITY;
    for (uint32_t i = 0; i < n; i++)
        if (!c->sel[list[i]] && score[list[i]] > b) b = score[list[i]];
    *best = b;
    if (b == -INFINITY) return UINT32_MAX;
    double floor_ = b - MI_TIE_REL * fmax(1.0, fabs(b));
    for (uint32_t i = 0; i < n; i++)
        if (!c->sel[list[i]] && score[list[i]] >= floor_) return list[i];
    return UINT32_MAX;
}

/* One pass: I(Xk;Y), E(Xk), E(Xk,Y) for every feature. */
static int relevance_pass(es_mi_ctx_t *c)
{
    const es_dtable_t *d = c->d;
    es_mi_cond_t *cd = &c->cd;
    int ret = ES_OK;
    /* E(Y) and whether Y is constant */
    {
        uint32_t *bk = cd->bucket;
        memset(bk, 0, (size_t)c->nc * sizeof *bk);
        for (uint32_t s = 0; s < c->n; s++) bk[d->y[s]]++;
        double e = 0.0;
        uint32_t obs = 0;
        for (uint32_t v = 0; v < c->nc; v++) {
            e += es_mi_nlx(&cd->nt, bk[v]);
            obs += bk[v] != 0;
        }
        c->e_y = e;
        c->y_const = obs <= 1;
    }
    memset(c->want, 1, c->nf);
    if (c->gpu) {
        ret = es_mi_gpu_relevance(c);
    } else {
        es_mi_cond_relevance(c, es_mi_need_groups(c, c->nc), 1);
        es_mi_round_cpu(c);
    }
    if (ret) return ret;
#pragma omp parallel for num_threads(c->nt) schedule(dynamic, 8)
    for (int64_t f = 0; f < (int64_t)c->nf; f++) {
        const uint16_t *x = es_mi_col(c, (uint32_t)f);
        double e3 = c->e3[f], e2 = c->e2[f];
        c->e_x[f] = e2;
        c->e_xy[f] = e3;
        c->rel[f] = c->L + (e3 - e2 - c->e_y) / c->n;
        uint16_t x0 = x[0];
        uint8_t k1 = 1;
        for (uint32_t s = 1; s < c->n && k1; s++) k1 = x[s] == x0;
        c->x_const[f] = k1;
    }
    return ES_OK;
}

/* select_internal.h: the first feature, in order, that declares an
 * impossible number of states or holds a value at or above them, logged
 * (serial: only a bad table gets here). */
int es_mi_table_bad(const es_dtable_t *d)
{
    for (uint32_t f = 0; f < d->n_features; f++) {
        uint32_t ns = d->n_states[f];
        const char *nm = d->names && d->names[f] ? d->names[f] : "";
        if (ns < 1 || ns > 65536) {
            es_error("feature %u%s%s%s declares %u states, expected 1 to 65,536", f + 1,
                     *nm ? " (" : "", nm, *nm ? ")" : "", ns);
            return ES_ERR_ARG;
        }
        const uint16_t *x = d->x + (size_t)f * d->n_samples;
        for (uint32_t s = 0; s < d->n_samples; s++) {
            if (x[s] >= ns) {
                es_error("feature %u%s%s%s has state %u in sample %u but declares %u states", f + 1,
                         *nm ? " (" : "", nm, *nm ? ")" : "", x[s], s + 1, ns);
                return ES_ERR_ARG;
            }
        }
    }
    return ES_ERR_ARG;
}

/* The table's arrays, sizes, classes and declared states; the values are
 * check_values()'s (or, on the GPU's histogram kernels, the upload's). */
static int check_table(const es_dtable_t *d)
{
    if (!d || (d->n_features && (!d->x || !d->n_states)) || (d->n_samples && !d->y)) {
        es_error("incomplete table (missing arrays)");
        return ES_ERR_ARG;
    }
    if (d->n_samples == 0) {
        es_error("the table has no samples");
        return ES_ERR_DATA;
    }
    if (d->n_classes < 1 || d->n_classes > 65536) {
        es_error("n_classes is %u, expected 1 to 65,536", d->n_classes);
        return ES_ERR_ARG;
    }
    for (uint32_t s = 0; s < d->n_samples; s++) {
        if (d->y[s] >= d->n_classes) {
            es_error("sample %u has class %u but the table declares %u classes", s + 1, d->y[s],
                     d->n_classes);
            return ES_ERR_ARG;
        }
    }
    for (uint32_t f = 0; f < d->n_features; f++)
        if (d->n_states[f] < 1 || d->n_states[f] > 65536) return es_mi_table_bad(d);
    return ES_OK;
}

/* Every value below its feature's declared states. */
static int check_values(const es_dtable_t *d, int nt)
{
    int bad = 0;
#pragma omp parallel for num_threads(nt) schedule(static) reduction(| : bad)
    for (int64_t f = 0; f < (int64_t)d->n_features; f++) {
        const uint16_t *x = d->x + (size_t)f * d->n_samples;
        uint16_t mx = 0;
        for (uint32_t s = 0; s < d->n_samples; s++) mx = x[s] > mx ? x[s] : mx;
        if (mx >= d->n_states[f]) bad |= 1;
    }
    return bad ? es_mi_table_bad(d) : ES_OK;
}

void es_mi_opt_init(es_mi_opt_t *o)
{
    memset(o, 0, sizeof *o);
    o->device = -1;
    o->gpu_path = ES_MI_GPU_AUTO;
}

void es_mi_agreement(const es_mi_pick_t *a, uint32_t na, const es_mi_pick_t *b, uint32_t nb,
                     uint32_t *prefix, uint32_t *common)
{
    uint32_t p = 0, q = 0;
    while (p < na && p < nb && a[p].feature == b[p].feature) p++;
    for (uint32_t i = 0; i < na; i++)
        for (uint32_t j = 0; j < nb; j++)
            if (a[i].feature == b[j].feature) {
                q++;
                break;
            }
    *prefix = p;
    *common = q;
}

int es_mi_select(const es_dtable_t *d, es_mi_method_t m, uint32_t k, int threads,
                 es_mi_pick_t *out, uint32_t *n_out)
{
    es_mi_opt_t o;
    es_mi_opt_init(&o);
    o.threads = threads;
    return es_mi_select_opt(d, m, k, &o, out, n_out, NULL);
}

/* --device auto: the device whose estimated cost is lower for this selection
 * (the backend table's cost(); the registry logs which and why). */
static int auto_device(const es_mi_ctx_t *c, es_mi_method_t m, uint32_t k, const es_mi_opt_t *o)
{
    es_work_t w;
    memset(&w, 0, sizeof w);
    w.op = es_mi_gpu_op(c->d, m, o->gpu_path);
    w.n_samples = c->n;
    w.features = c->nf;
    w.rounds = m == ES_MI_MIM ? 1 : k;
    /* a round's table: the candidate's states x the newest pick's (x the class) */
    w.cells = (uint64_t)c->max_states * c->max_states * (m == ES_MI_MRMR ? 1 : c->nc);
    w.threads = c->nt;
    int err;
    const es_backend_t *be = es_backend_choose(ES_DEVICE_AUTO, 0, &w, &err);
    return be && be == es_backend_get(ES_DEVICE_GPU) ? 0 : -1;
}

/* Count a round: every candidate against the newest pick j (with the class
 * unless mRMR), or against the joint state s_lab of every pick (CondMI). */
static int count_round(es_mi_ctx_t *c, es_mi_method_t m, uint32_t j, const uint32_t *s_lab, uint32_t ns)
{
    const es_dtable_t *d = c->d;
    es_mi_cond_t *cd = &c->cd;
    for (uint32_t f = 0; f < c->nf; f++) c->want[f] = !c->sel[f];
    if (m == ES_MI_CONDMI) {
        uint64_t nz = (uint64_t)ns * c->nc;
        /* E(S) and E(S,Y) come with the groups, so they are always built */
        es_mi_cond_build(cd, c->n, s_lab, NULL, ns, d->y, c->nc, nz <= ES_MI_DENSE, 1);
        if (c->gpu) return es_mi_gpu_round(c, m, j);
        es_mi_round_cpu(c);
        return ES_OK;
    }
    if (c->gpu) return es_mi_gpu_round(c, m, j);
    int with_y = m != ES_MI_MRMR;
    uint64_t nz = (uint64_t)d->n_states[j] * (with_y ? c->nc : 1);
    es_mi_cond_build(cd, c->n, NULL, es_mi_col(c, j), d->n_states[j], with_y ? d->y : NULL, c->nc,
                     nz <= ES_MI_DENSE, es_mi_need_groups(c, nz));
    es_mi_round_cpu(c);
    return ES_OK;
}

/* Fold the round's counts into the accumulators and scores (FEAST's
 * formulas, doc/SELECTION.md). */
static void score_round(es_mi_ctx_t *c, es_mi_method_t m, uint32_t j, uint32_t n_sel)
{
    const double N = (double)c->n;
    const es_mi_cond_t *cd = &c->cd;
    if (m == ES_MI_CONDMI) {
        const double e_s = cd->e_g, e_sy = cd->e_gi;
        for (uint32_t f = 0; f < c->nf; f++)
            if (c->want[f]) c->score[f] = (c->e3[f] + e_s - c->e2[f] - e_sy) / N;
        return;
    }
    const double ej = c->e_x[j], ejy = c->e_xy[j], ey = c->e_y, L = c->L;
    const int jy_const = c->x_const[j] && c->y_const;
    /* a few ns a candidate: threads only where they pay for waking up */
#pragma omp parallel for num_threads(c->nt) schedule(static) if (c->nf >= 65536)
    for (int64_t f = 0; f < (int64_t)c->nf; f++) {
        if (!c->want[f]) continue;
        double e3 = c->e3[f], e2 = c->e2[f];
        double ek = c->e_x[f], eky = c->e_xy[f], a = c->acc[f], s;
        switch (m) {
        case ES_MI_MRMR: /* e2 = E(Xk,Xj) */
            a += L + (e2 - ek - ej) / N;
            s = c->rel[f] - a / n_sel;
            break;
        case ES_MI_JMI: /* I(XkXj;Y) */
            a += L + (e3 - e2 - ey) / N;
            s = a;
            break;
        case ES_MI_DISR: {
            /* H(XkXjY) = 0 only when all three are constant; then the
             * MI is 0 too and the term is taken as 0 (FEAST: 0/0) */
            if (!(jy_const && c->x_const[f])) {
                double mi = L + (e3 - e2 - ey) / N;
                double h = L - e3 / N;
                a += mi / h;
            }
            s = a;
            break;
        }
        case ES_MI_ICAP: {
            double mi = L + (e2 - ek - ej) / N;     /* I(Xk;Xj) */
            double cmi = (e3 + ey - eky - ejy) / N; /* I(Xk;Xj|Y) */
            double t = cmi - mi;
            if (t < 0) a += t;
            s = c->rel[f] + a;
            break;
        }
        case ES_MI_CMIM: {
            double cmi = (e3 + ej - e2 - ejy) / N; /* I(Xk;Y|Xj) */
            if (cmi < a) a = cmi;
            s = a;
            break;
        }
        default: s = 0; break;
        }
        c->acc[f] = a;
        c->score[f] = s;
    }
}

int es_mi_select_opt(const es_dtable_t *d, es_mi_method_t m, uint32_t k, const es_mi_opt_t *o,
                     es_mi_pick_t *out, uint32_t *n_out, es_mi_info_t *info)
{
    int ret = ES_OK;
    es_mi_ctx_t c;
    memset(&c, 0, sizeof c);
    uint32_t *s_lab = NULL, *mim_list = NULL, n_mim = 0;
    es_mi_opt_t dflt;
    if (!o) {
        es_mi_opt_init(&dflt);
        o = &dflt;
    }
    if (n_out) *n_out = 0;
    if (info) {
        info->where[0] = 0;
        info->seconds_gpu = info->seconds_open = info->seconds_rounds = info->seconds_count = 0.0;
    }
    if (!d || !n_out || (k && !out) || (unsigned)m > ES_MI_MIM) {
        es_error("invalid arguments (table %p, method %d, k %u, out %p, n_out %p)", (const void *)d,
                 (int)m, k, (void *)out, (void *)n_out);
        return ES_ERR_ARG;
    }
    if (o->threads < 0) {
        es_error("threads must be >= 0 (0 = all), got %d", o->threads);
        return ES_ERR_ARG;
    }
    if ((unsigned)o->gpu_path > ES_MI_GPU_PAIRS) {
        es_error("unknown GPU path %d", o->gpu_path);
        return ES_ERR_ARG;
    }
    int nt = o->threads;
#ifdef _OPENMP
    if (nt <= 0) nt = omp_get_max_threads();
#endif
    if (nt < 1) nt = 1;
    if ((ret = check_table(d)) != ES_OK) return ret;
    if (k == 0 || d->n_features == 0) return check_values(d, nt);

    c.d = d;
    c.n = d->n_samples;
    c.nf = d->n_features;
    c.nc = d->n_classes;
    c.L = log2((double)c.n);
    c.nt = nt;
    es_mi_nlt_init(&c.cd.nt, o->fixed_point);
    for (uint32_t f = 0; f < c.nf; f++)
        if (d->n_states[f] > c.max_states) c.max_states = d->n_states[f];
    if (k > c.nf) k = c.nf;
    es_mi_opt_t oo = *o; /* o with the device chosen */
    if (oo.device == ES_MI_DEVICE_AUTO) oo.device = auto_device(&c, m, k, o);
    o = &oo;
    /* the histogram kernels' upload checks every value as it packs them */
    if (!(o->device >= 0 && es_mi_gpu_op(d, m, o->gpu_path) == ES_OP_MI_HIST) &&
        (ret = check_values(d, nt)) != ES_OK)
        return ret;

    size_t n = c.n, nf = c.nf;
    size_t nbucket = (n > 65536 ? n : 65536) + 1;
    c.e_x = malloc(nf * sizeof *c.e_x);
    c.e_xy = malloc(nf * sizeof *c.e_xy);
    c.rel = malloc(nf * sizeof *c.rel);
    c.acc = calloc(nf, sizeof *c.acc);
    c.score = malloc(nf * sizeof *c.score);
    c.e3 = malloc(nf * sizeof *c.e3);
    c.e2 = malloc(nf * sizeof *c.e2);
    c.sel = calloc(nf, 1);
    c.want = calloc(nf, 1);
    c.x_const = malloc(nf);
    c.cd.z = malloc(n * sizeof *c.cd.z);
    c.cd.zg = malloc(n * sizeof *c.cd.zg);
    c.cd.perm = malloc(n * sizeof *c.cd.perm);
    c.cd.tmp = malloc(n * sizeof *c.cd.tmp);
    c.cd.grp = malloc((n + 1) * sizeof *c.cd.grp);
    c.cd.sub = malloc((n + 1) * sizeof *c.cd.sub);
    c.cd.bucket = malloc(nbucket * sizeof *c.cd.bucket);
    c.ws = calloc((size_t)c.nt, sizeof *c.ws);
    if (!c.e_x || !c.e_xy || !c.rel || !c.acc || !c.score || !c.e3 || !c.e2 || !c.sel || !c.want ||
        !c.x_const || !c.cd.z || !c.cd.zg || !c.cd.perm || !c.cd.tmp || !c.cd.grp || !c.cd.sub ||
        !c.cd.bucket || !c.ws) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    double t_open = es_time_now();
    if (o->device >= 0) ret = es_mi_gpu_open(&c, m, o);
    else ret = es_mi_cpu_open(&c);
    if (ret) goto out;
    double t_rounds = es_time_now(), t_count = 0.0;
    if (info) info->seconds_open = t_rounds - t_open;
    if (info) {
        if (c.gpu)
            es_mi_gpu_describe(&c, info->where, sizeof info->where, NULL);
        else
            snprintf(info->where, sizeof info->where, "cpu (%d thread%s)", c.nt, c.nt == 1 ? "" : "s");
    }

    if ((ret = relevance_pass(&c)) != ES_OK) goto out;

    /* first pick, every method: argmax I(X;Y), ties to the lowest index */
    double best;
    uint32_t w = argmax_low(&c, c.rel, &best);
    out[0].feature = w;
    out[0].score = c.rel[w];
    out[0].relevance = c.rel[w];
    c.sel[w] = 1;
    uint32_t picked = 1;
    if (o->progress) o->progress(picked, k, es_time_now() - t_rounds, o->progress_ud);

    uint32_t ns = 1;
    if (m == ES_MI_CONDMI) {
        s_lab = calloc(n, sizeof *s_lab);
        if (!s_lab) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
        es_mi_joint_refine(&c, s_lab, &ns, w);
    }
    if (m == ES_MI_CMIM)
        for (uint32_t f = 0; f < c.nf; f++) c.acc[f] = c.rel[f];

    if (m == ES_MI_MIM) {
        /* the scores are the relevances: no rounds, and few candidates */
        memcpy(c.score, c.rel, nf * sizeof *c.score);
        mim_list = malloc(nf * sizeof *mim_list);
        double *heap = malloc((size_t)k * sizeof *heap);
        if (!mim_list || !heap) {
            free(heap);
            ret = ES_ERR_NOMEM;
            goto out;
        }
        n_mim = mim_candidates(&c, k, heap, mim_list);
        free(heap);
    }
    while (picked < k) {
        uint32_t j = out[picked - 1].feature;
        if (m != ES_MI_MIM) {
            double t = es_time_now();
            if ((ret = count_round(&c, m, j, s_lab, ns)) != ES_OK) goto out;
            t_count += es_time_now() - t;
            score_round(&c, m, j, picked);
        }
        w = mim_list ? argmax_low_in(&c, c.score, mim_list, n_mim, &best) : argmax_low(&c, c.score, &best);
        if (w == UINT32_MAX) break;
        if (m == ES_MI_CONDMI && !(best > MI_TIE_REL)) break; /* nothing adds information */
        out[picked].feature = w;
        out[picked].score = c.score[w];
        out[picked].relevance = c.rel[w];
        c.sel[w] = 1;
        picked++;
        if (o->progress) o->progress(picked, k, es_time_now() - t_rounds, o->progress_ud);
        if (m == ES_MI_CONDMI && picked < k) es_mi_joint_refine(&c, s_lab, &ns, w);
    }
    *n_out = picked;
    if (info) {
        info->seconds_rounds = es_time_now() - t_rounds;
        info->seconds_count = t_count;
    }

out:
    if (ret == ES_ERR_NOMEM)
        es_error("out of memory selecting from %u samples x %u features", d->n_samples,
                 d->n_features);
    if (info && c.gpu) es_mi_gpu_describe(&c, info->where, sizeof info->where, &info->seconds_gpu);
    es_mi_gpu_close(&c);
    es_mi_cpu_close(&c);
    free(c.ws);
    free(s_lab);
    free(mim_list);
    free(c.e_x);
    free(c.e_xy);
    free(c.rel);
    free(c.acc);
    free(c.score);
    free(c.e3);
    free(c.e2);
    free(c.sel);
    free(c.want);
    free(c.x_const);
    free(c.cd.z);
    free(c.cd.zg);
    free(c.cd.perm);
    free(c.cd.tmp);
    free(c.cd.grp);
    free(c.cd.sub);
    free(c.cd.bucket);
    return ret;
}
