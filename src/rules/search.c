/* search.c -- the exact split search of one feature: walk the covered
 * examples in sorted order, accumulating the gradients and Hessians of the
 * head's labels, and score the conditions "<= t" and "> t" at every change of
 * value.  The walk is mlrl-boomer 0.15.6's (feature_based_search_numerical):
 * values below 0 ascending, values from 0 descending, then the boundary at 0
 * from the sums kept of the first part; the candidates are scored in that
 * order and a later one replaces the best only when it is strictly better, so
 * ties go to the earlier candidate.  doc/RULES.md lists the rules, the quirks
 * kept for the sake of equal models included. */
#include <string.h>

#include "rules_internal.h"

double es_rl_eval(const es_rl_ctx_t *c, const double *restrict G, const double *restrict H,
                  double *restrict p, double *restrict qk, uint32_t *lab)
{
    uint32_t n = c->n_hl;
    double l2 = c->l2;
    if (!c->single) {
        /* each label's score and quality in vector lanes (the scalar operations,
           -ffp-contract=off: no fused multiply-add), then the sum in label order */
#pragma omp simd
        for (uint32_t k = 0; k < n; k++) {
            double r = -G[k] / (H[k] + l2);
            p[k] = isfinite(r) ? r : 0.0;
            double pp = p[k] * p[k];
            qk[k] = G[k] * p[k] + 0.5 * H[k] * pp + 0.5 * l2 * pp;
        }
        double q = 0.0;
        for (uint32_t k = 0; k < n; k++) q += qk[k];
        return q;
    }
    uint32_t best = 0;
    double bp = es_rl_score(G[0], H[0], l2);
    for (uint32_t k = 1; k < n; k++) {
        double sc = es_rl_score(G[k], H[k], l2);
        if (fabs(sc) > fabs(bp)) {
            bp = sc;
            best = k;
        }
    }
    p[0] = bp;
    *lab = best;
    return es_rl_quality(bp, G[best], H[best], l2);
}

/* LAPACK's symmetric indefinite solve (Bunch-Kaufman), the routine mlrl-boomer calls. */
extern void dsysv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda,
                   int *ipiv, double *b, const int *ldb, double *work, const int *lwork, int *info);

int es_rl_exw_lwork(uint32_t K)
{
    int n = (int)K, nrhs = 1, lwork = -1, info = 0;
    double ws = 0.0, a = 0.0, b = 0.0;
    dsysv_("U", &n, &nrhs, &a, &n, NULL, &b, &n, &ws, &lwork, &info);
    return info == 0 && ws >= 1.0 ? (int)ws : 1;
}

/* Solve (H + diag) p = -G with dsysv_ ('U'; H packed, n x n) and return the quality
 * p.G + p.(H p)/2 + the regularisation term: the diagonal is l2 (when > 0) or, for
 * label bins, l2 times each bin's label count cnt[k] (a float32 product, always
 * added), and the term (l2/2) sum p^2 or (l2/2) sum cnt p^2, as mlrl-boomer's
 * complete and binned evaluations.  (mlrl-boomer: ddot_ and dspmv_ of its BLAS,
 * whose order of additions and fused multiply-adds differ; both sums here are in
 * label order.)  @return +INFINITY when dsysv_ fails */
static double solve(uint32_t n, const double *restrict G, const double *restrict H, double l2,
                    const uint32_t *restrict cnt, double *restrict p, double *restrict a,
                    int *restrict ipiv, double *restrict work, int lwork)
{
    const double *h = H;
    for (uint32_t c = 0; c < n; c++)
        for (uint32_t r = 0; r <= c; r++) a[(size_t)c * n + r] = *h++;
    for (uint32_t k = 0; k < n; k++) {
        if (cnt) a[(size_t)k * n + k] += (double)((float)cnt[k] * (float)l2);
        else if (l2 > 0) a[(size_t)k * n + k] += l2;
    }
    for (uint32_t k = 0; k < n; k++) p[k] = -G[k];
    int nn = (int)n, nrhs = 1, info = 0;
    dsysv_("U", &nn, &nrhs, a, &nn, ipiv, p, &nn, work, &lwork, &info);
    if (info != 0) return INFINITY;
    double pg = 0.0, php = 0.0, pp = 0.0;
    for (uint32_t k = 0; k < n; k++) pg += p[k] * G[k];
    for (uint32_t r = 0; r < n; r++) {
        double y = 0.0;
        for (uint32_t c = 0; c < n; c++) y += H[r <= c ? es_rl_packed(r, c) : es_rl_packed(c, r)] * p[c];
        php += p[r] * y;
    }
    double q = pg + 0.5 * php;
    if (l2 > 0) {
        for (uint32_t k = 0; k < n; k++) pp += cnt ? (p[k] * p[k]) * (double)cnt[k] : p[k] * p[k];
        q += 0.5 * l2 * pp;
    }
    return q;
}

double es_rl_exw_head(uint32_t K, const double *restrict G, const double *restrict H, double l2,
                      double *restrict p, double *restrict a, int *restrict ipiv,
                      double *restrict work, int lwork)
{
    return solve(K, G, H, l2, NULL, p, a, ipiv, work, lwork);
}

/* mlrl-boomer's calculateBoundedFraction(n, 0.04f, 1, 0): ceil of a float32 product */
static uint32_t n_bins(uint32_t n)
{
    uint32_t r = (uint32_t)ceilf(0.04f * (float)n);
    return r < 1 ? 1 : r;
}

double es_rl_exw_head_binned(uint32_t K, const double *restrict G, const double *restrict H,
                             double l2, double *restrict p, es_rl_bins_t *b, double *restrict a,
                             int *restrict ipiv, double *restrict work, int lwork)
{
    double *crit = b->crit;
    uint32_t nneg = 0, npos = 0;
    double minn = 0.0, maxn = -INFINITY, minp = INFINITY, maxp = 0.0;
    for (uint32_t k = 0; k < K; k++) {
        double r = -G[k] / (H[es_rl_packed(k, k)] + l2);
        double x = crit[k] = isfinite(r) ? r : 0.0;
        if (x < 0) {
            nneg++;
            if (x < minn) minn = x;
            if (x > maxn) maxn = x;
        } else if (x > 0) {
            npos++;
            if (x < minp) minp = x;
            if (x > maxp) maxp = x;
        }
    }
    if (nneg) nneg = n_bins(nneg);
    if (npos) npos = n_bins(npos);
    uint32_t nb = nneg + npos, none = UINT32_MAX;
    if (!nb) {
        for (uint32_t k = 0; k < K; k++) p[k] = 0.0;
        return 0.0;
    }
    double spn = minn < 0 ? (maxn - minn) / nneg : 0, spp = maxp > 0 ? (maxp - minp) / npos : 0;
    for (uint32_t j = 0; j < nb; j++) b->nel[j] = 0;
    for (uint32_t k = 0; k < K; k++) {
        double x = crit[k], f;
        uint32_t j;
        if (x == 0) {
            b->bidx[k] = none;
            continue;
        }
        /* a NaN (0 / 0: equal criteria) converts to bin 0 in mlrl-boomer's build */
        f = x < 0 ? floor((x - minn) / spn) : floor((x - minp) / spp);
        j = f >= 0 && f < 4294967296.0 ? (uint32_t)f : 0;
        if (x < 0 && j >= nneg) j = nneg - 1;
        if (x > 0 && j >= npos) j = npos - 1;
        if (x > 0) j += nneg;
        b->nel[j]++;
        b->bidx[k] = j;
    }
    uint32_t m = 0; /* drop the empty bins */
    for (uint32_t j = 0; j < nb; j++) {
        b->bmap[j] = m;
        if (b->nel[j]) b->nel[m++] = b->nel[j];
    }
    nb = m;
    double *bg = b->bg, *bh = b->bh;
    for (uint32_t j = 0; j < nb; j++) bg[j] = 0.0;
    for (size_t j = 0; j < (size_t)nb * (nb + 1) / 2; j++) bh[j] = 0.0;
    for (uint32_t k = 0; k < K; k++) {
        if (b->bidx[k] == none) continue;
        uint32_t j = b->bidx[k] = b->bmap[b->bidx[k]];
        bg[j] += G[k];
        bh[es_rl_packed(j, j)] += H[es_rl_packed(k, k)];
    }
    for (uint32_t i = 1; i < K; i++) {
        uint32_t bi = b->bidx[i];
        if (bi == none) continue;
        for (uint32_t j = 0; j < i; j++) {
            uint32_t bj = b->bidx[j];
            if (bj == none || bj == bi) continue;
            bh[bi < bj ? es_rl_packed(bi, bj) : es_rl_packed(bj, bi)] += H[es_rl_packed(j, i)];
        }
    }
    /* the system over the bins; l2 weighted by each bin's label count; the criteria are
       no longer needed and hold the bins' scores */
    double *pb = b->crit;
    double q = solve(nb, bg, bh, l2, b->nel, pb, a, ipiv, work, lwork);
    if (!isfinite(q)) return q;
    for (uint32_t k = 0; k < K; k++) p[k] = b->bidx[k] == none ? 0.0 : pb[b->bidx[k]];
    return q;
}

double es_rl_exw_eval(const es_rl_ctx_t *c, es_rl_scratch_t *s, const double *G, const double *H,
                      double *p)
{
    if (c->lbin)
        return es_rl_exw_head_binned(c->L, G, H, c->l2, p, &s->bins, s->a, s->ipiv, s->work, s->lwork);
    return es_rl_exw_head(c->L, G, H, c->l2, p, s->a, s->ipiv, s->work, s->lwork);
}

typedef es_rl_walk_t walk_t;
#define add_ex es_rl_add_ex
#define candidate es_rl_candidate

void es_rl_candidate(walk_t *wk, const double *G, const double *H, int uncov, uint8_t op,
                      int inverse, float thr, uint32_t lo, uint32_t hi, uint32_t n_cov)
{
    const es_rl_ctx_t *c = wk->c;
    es_rl_scratch_t *s = wk->s;
    uint32_t n = c->n_hl, lab = 0;
    const double *g = G, *h = H;
    if (uncov) {
        double *restrict ug = s->ug, *restrict uh = s->uh;
        uint32_t nH = c->exw ? c->nH : n;
#pragma omp simd
        for (uint32_t k = 0; k < n; k++) ug[k] = s->tg[k] - G[k];
#pragma omp simd
        for (uint32_t k = 0; k < nH; k++) uh[k] = s->th[k] - H[k];
        g = ug;
        h = uh;
    }
    double q = c->exw ? es_rl_exw_eval(c, s, g, h, s->p) : es_rl_eval(c, g, h, s->p, s->qk, &lab);
    if (!(q < wk->best_q)) return;
    es_rl_cand_t *o = wk->out;
    wk->best_q = q;
    o->found = 1;
    o->q = q;
    o->op = op;
    o->inverse = (uint8_t)inverse;
    o->thr = thr;
    o->lo = lo;
    o->hi = hi;
    o->n_cov = n_cov;
    o->lab = lab;
    memcpy(o->head, s->p, (c->single ? 1 : n) * sizeof *o->head);
}

void es_rl_feature_total(const es_rl_ctx_t *c, es_rl_scratch_t *s, uint32_t f)
{
    uint32_t n = c->n_hl;
    uint32_t nH = c->exw ? c->nH : n;
    memcpy(s->tg, c->tot_g, n * sizeof *s->tg);
    memcpy(s->th, c->tot_h, nH * sizeof *s->th);
    const uint32_t *m = c->miss + c->moff[f], *me = c->miss + c->moff[f + 1];
    for (; m < me; m++) {
        uint32_t i = *m;
        if (!c->cov[i] || !c->w[i]) continue;
        if (c->exw) {
            const double *gi = c->g + (size_t)i * c->L, *hx = c->h + (size_t)i * nH;
            double w = (double)c->w[i];
            for (uint32_t k = 0; k < n; k++) s->tg[k] -= gi[k] * w;
            for (uint32_t k = 0; k < nH; k++) s->th[k] -= hx[k] * w;
            continue;
        }
        const double *gi = c->g + (size_t)i * c->L, *hi = c->h + (size_t)i * c->L;
        double w = (double)c->w[i];
        for (uint32_t k = 0; k < n; k++) {
            uint32_t l = c->hl[k];
            s->tg[k] -= gi[l] * w;
            s->th[k] -= hi[l] * w;
        }
    }
}

static void zero(double *a, uint32_t n) { memset(a, 0, n * sizeof *a); }

/* A numerical feature (mlrl-boomer's walk; positions are in the sorted order
 * of all examples, the uncovered ones skipped). */
static void search_numeric(walk_t *wk, uint32_t f)
{
    const es_rl_ctx_t *c = wk->c;
    es_rl_scratch_t *s = wk->s;
    const uint32_t *idx = c->sorted + c->soff[f];
    const float *val = c->sval + c->soff[f];
    uint32_t m = (uint32_t)(c->soff[f + 1] - c->soff[f]), k = c->n_neg[f], nh = c->n_hl;
    uint32_t nH = c->exw ? c->nH : nh; /* Hessians in the sums */
    uint32_t nnz = c->n_nz, ncov = 0;
    const uint8_t *cov = c->cov;
    const uint32_t *w = c->w;
    float prev = 0.0f; /* the sparse value */
    uint32_t j = 0;

    /* every covered value equal: nothing to split (mlrl-boomer's EqualFeatureVector) */
    {
        uint32_t a = 0, b = m;
        while (a < m && !cov[idx[a]]) a++;
        while (b > a && !cov[idx[b - 1]]) b--;
        if (a == b || es_rl_fequal(val[a], val[b - 1])) return;
    }
    zero(s->sg, nh);
    zero(s->sh, nH);
    /* values < 0, ascending: the first example with a weight opens the subset */
    for (; j < k; j++) {
        uint32_t i = idx[j];
        if (!cov[i] || !w[i]) continue;
        add_ex(c, i, s->sg, s->sh);
        ncov = 1;
        prev = val[j];
        break;
    }
    if (ncov) {
        for (j = j + 1; j < k; j++) {
            uint32_t i = idx[j];
            if (!cov[i]) continue;
            float v = val[j];
            if (w[i]) {
                if (!es_rl_fequal(prev, v)) {
                    float t = es_rl_mean(prev, v);
                    candidate(wk, s->sg, s->sh, 0, ES_RULES_LE, 0, t, 0, j, ncov);
                    if (nnz - ncov >= 1)
                        candidate(wk, s->sg, s->sh, 1, ES_RULES_GT, 1, t, 0, j, nnz - ncov);
                }
                add_ex(c, i, s->sg, s->sh);
                ncov++;
            }
            prev = v;
        }
    }
    /* keep the sums of the values < 0 */
    memcpy(s->ag, s->sg, nh * sizeof *s->ag);
    memcpy(s->ah, s->sh, nH * sizeof *s->ah);
    zero(s->sg, nh);
    zero(s->sh, nH);
    float last_less = prev;
    uint32_t ncov_less = ncov;
    ncov = 0;
    /* values >= 0, descending */
    int64_t jj = (int64_t)m - 1;
    for (; jj >= (int64_t)k; jj--) {
        uint32_t i = idx[jj];
        if (!cov[i] || !w[i]) continue;
        add_ex(c, i, s->sg, s->sh);
        ncov = 1;
        prev = val[jj];
        break;
    }
    /* mlrl-boomer's walk stops before the first covered value >= 0 (kc in the sorted
       order of all examples) */
    uint32_t kc = k;
    while (kc < m && !cov[idx[kc]]) kc++;
    if (ncov && jj > 0) {
        float vk = kc < m ? val[kc] : 0.0f;
        for (jj = jj - 1; jj > (int64_t)kc; jj--) {
            uint32_t i = idx[jj];
            if (!cov[i]) continue;
            float v = val[jj];
            /* the rest down to position kc+1 all hold this value: no candidate left, and the
               subset's sums are not used after this walk */
            if (v == vk && prev == v) {
                prev = v;
                break;
            }
            if (w[i]) {
                if (!es_rl_fequal(prev, v)) {
                    float t = es_rl_mean(v, prev);
                    candidate(wk, s->sg, s->sh, 0, ES_RULES_GT, 0, t, (uint32_t)jj + 1, m, ncov);
                    if (nnz - ncov >= 1)
                        candidate(wk, s->sg, s->sh, 1, ES_RULES_LE, 1, t, (uint32_t)jj + 1, m,
                                  nnz - ncov);
                }
                add_ex(c, i, s->sg, s->sh);
                ncov++;
            }
            prev = v;
        }
    }
    /* the boundary at the sparse value 0, from the kept sums */
    if (ncov_less > 0 && ncov_less < nnz) {
        float t = es_rl_mean(last_less, prev);
        candidate(wk, s->ag, s->ah, 0, ES_RULES_LE, 0, t, 0, k, ncov_less);
        candidate(wk, s->ag, s->ah, 1, ES_RULES_GT, 1, t, 0, k, nnz - ncov_less);
    }
}

/* A nominal feature: "== v" then "!= v" for each declared value v present
 * among the covered examples, in declared order, the value held by the most
 * covered examples (the first such) last, and not at all when only two values
 * are present (its conditions are the other value's).  Its sums are the
 * feature's total less the others', so a sparse binary feature costs its
 * minority only (doc/RULES.md). */
static void search_nominal(walk_t *wk, uint32_t f)
{
    const es_rl_ctx_t *c = wk->c;
    es_rl_scratch_t *s = wk->s;
    const uint32_t *idx = c->sorted + c->soff[f];
    const float *val = c->sval + c->soff[f];
    uint32_t m = (uint32_t)(c->soff[f + 1] - c->soff[f]), nh = c->n_hl;
    uint32_t nH = c->exw ? c->nH : nh; /* Hessians in the sums */
    const uint8_t *cov = c->cov;
    const uint32_t *w = c->w;
    uint32_t n_present = 0, n_nm = 0, maj_cnt = 0, maj_lo = 0;
    /* covered examples with a weight per value: the majority value's group */
    for (uint32_t j = 0; j < m;) {
        uint32_t e = j, cnt = 0;
        for (; e < m && val[e] == val[j]; e++) cnt += cov[idx[e]] && w[idx[e]];
        if (cnt) n_present++;
        if (cnt > maj_cnt) {
            maj_cnt = cnt;
            maj_lo = j;
        }
        n_nm += cnt;
        j = e;
    }
    if (n_present < 2) return;
    /* the minority groups' sums, kept: ag/ah their sum */
    double *mg = s->ag, *mh = s->ah;
    zero(mg, nh);
    zero(mh, nH);
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t j = 0; j < m;) {
            uint32_t e = j, cnt = 0;
            float v = val[j];
            int maj = j == maj_lo;
            if (maj && pass == 0) { /* skip it for now */
                while (e < m && val[e] == v) e++;
                j = e;
                continue;
            }
            /* the others were done in pass 0; with two values the majority's conditions
               are the minority's (== a is != b), so they are not offered twice */
            if (pass == 1 && (!maj || n_present == 2)) {
                while (e < m && val[e] == v) e++;
                j = e;
                continue;
            }
            zero(s->sg, nh);
            zero(s->sh, nH);
            if (maj) {
                for (uint32_t k = 0; k < nh; k++) s->sg[k] = s->tg[k] - mg[k];
                for (uint32_t k = 0; k < nH; k++) s->sh[k] = s->th[k] - mh[k];
                while (e < m && val[e] == v) e++;
                cnt = maj_cnt;
            } else {
                for (; e < m && val[e] == v; e++) {
                    uint32_t i = idx[e];
                    if (!cov[i] || !w[i]) continue;
                    add_ex(c, i, s->sg, s->sh);
                    cnt++;
                }
                for (uint32_t k = 0; k < nh; k++) mg[k] += s->sg[k];
                for (uint32_t k = 0; k < nH; k++) mh[k] += s->sh[k];
            }
            if (cnt) {
                candidate(wk, s->sg, s->sh, 0, ES_RULES_EQ, 0, v, j, e, cnt);
                candidate(wk, s->sg, s->sh, 1, ES_RULES_NE, 1, v, j, e, n_nm - cnt);
            }
            j = e;
        }
}

void es_rl_search(const es_rl_ctx_t *c, es_rl_scratch_t *s, uint32_t f, double best_q,
                  es_rl_cand_t *out)
{
    walk_t wk = {c, s, out, best_q};
    out->found = 0;
    es_rl_feature_total(c, s, f);
    if (c->d->n_values[f]) search_nominal(&wk, f);
    else if (c->bn) es_rl_search_binned(&wk, f);
    else search_numeric(&wk, f);
}
