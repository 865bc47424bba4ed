/* bins.c -- the histogram split search (--feature-binning): mlrl-boomer 0.15.6's
 * equal-width and equal-frequency feature binning (feature_binning_equal_width.cpp,
 * feature_binning_equal_frequency.cpp), its walk over the bins
 * (feature_based_search_binned.hpp) and its filtering of a feature's bins as a rule
 * grows (feature_vector_decorator_binned.hpp, feature_space_tabular.cpp), with the
 * quirks that decide which conditions it offers kept (doc/RULES.md lists them).
 *
 * Each numeric feature is binned once, from its sorted values (train.c's presort).
 * Each rule starts from those bins; a search after a condition was added filters the
 * feature's bins to the covered examples first (es_rl_binned_refresh(), run for the
 * sampled features as a batch of the pool before their searches, so that the searches
 * only read); a condition on a feature restricts its bins to the condition's side
 * (es_rl_binned_apply()).  The bins change from one refinement to the next, so the
 * training waits for every binned search (train.c): none is run twice, and no late
 * copy of one reads bins being rewritten. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rules_internal.h"

/* One feature's storage: its original bins, and room for the filtered ones (the same sizes). */
typedef struct {
    float *thr, *fthr;
    uint32_t *ptr, *idx, *fptr, *fidx;
} store_t;

struct es_rl_binned {
    uint32_t F;
    es_rl_bvec_t *orig, *cur; /* F each */
    uint32_t *nc;             /* F: the rule's condition count when cur was last updated */
    uint8_t *own;             /* F: cur is a filtered copy (else cur = orig) */
    store_t *st;              /* F */
};

/* mlrl-boomer's calculateBoundedFraction(n, ratio, min, max): ceil of a float32 product,
 * at least min (at most n), at most max when max >= min. */
static uint32_t bounded(uint32_t n, float ratio, uint32_t min, uint32_t max)
{
    uint32_t r = (uint32_t)ceilf(ratio * (float)n);
    uint32_t lo = min > n ? n : min;
    if (r < lo) return lo;
    if (max >= min && r > max) return max;
    return r;
}

/* The equal-width bin of value v: floor((v - min) / width) in float32, the last bin when
 * beyond it.  A value below min (the sparse value 0 of a positive feature) is a negative
 * quotient, which mlrl-boomer converts to uint32 (undefined in C++; its x86-64 build gives
 * a huge number): the last bin too. */
static uint32_t width_bin(float v, float min, float width, uint32_t nw)
{
    float q = floorf((v - min) / width);
    if (!(q >= 0.0f) || q >= (float)nw) return nw - 1;
    return (uint32_t)q;
}

/* Equal-width bins of the m sorted values val (examples idx) of n examples. */
static int bin_width(es_rl_bvec_t *v, store_t *st, const float *val, const uint32_t *idx,
                     uint32_t m, uint32_t n, const es_rules_opt_t *o)
{
    uint32_t nw = bounded(n, (float)o->bin_ratio, o->min_bins, o->max_bins);
    if (!nw) return ES_OK;
    /* the dense matrix's vector: min the first value (sorted), max the largest */
    float min = val[0], max = min;
    for (uint32_t j = 1; j < m; j++) {
        if (val[j] < min) min = val[j];
        else if (val[j] > max) max = val[j];
    }
    float width = (max - min) / (float)nw;
    uint32_t sb = width_bin(0.0f, min, width, nw);
    uint32_t *cnt = calloc(nw, sizeof *cnt), *map = malloc(nw * sizeof *map);
    if (!cnt || !map || !(st->thr = malloc(nw * sizeof *st->thr)) ||
        !(st->ptr = malloc((nw + 1) * sizeof *st->ptr)) || !(st->idx = malloc((m ? m : 1) * sizeof *st->idx))) {
        free(cnt);
        free(map);
        return ES_ERR_NOMEM;
    }
    for (uint32_t j = 0; j < m; j++) {
        uint32_t b = width_bin(val[j], min, width, nw);
        if (b != sb) cnt[b]++;
    }
    /* empty bins removed, except the sparse one; the thresholds min + (k + 1) width by the
       kept bin's position k (mlrl-boomer's, also after an empty bin was removed) */
    uint32_t nb = 0, ni = 0, S = 0;
    for (uint32_t b = 0; b < nw; b++) {
        if (b != sb && !cnt[b]) {
            map[b] = UINT32_MAX;
            continue;
        }
        st->thr[nb] = min + (float)(nb + 1) * width;
        st->ptr[nb] = ni;
        if (b != sb) ni += cnt[b];
        else S = nb;
        map[b] = nb++;
    }
    st->ptr[nb] = ni;
    /* each bin's examples, the last in sorted order first (mlrl-boomer fills a bin from its end) */
    for (uint32_t j = 0; j < m; j++) {
        uint32_t b = width_bin(val[j], min, width, nw);
        if (b == sb) continue;
        st->idx[st->ptr[map[b]] + --cnt[b]] = idx[j];
    }
    free(cnt);
    free(map);
    if (nb > 1) *v = (es_rl_bvec_t){nb, S, 0, st->thr, st->ptr, st->idx};
    return ES_OK;
}

/* Equal-frequency bins of the m sorted values val (examples idx) of n examples. */
static int bin_frequency(es_rl_bvec_t *v, store_t *st, const float *val, const uint32_t *idx,
                         uint32_t m, uint32_t n, const es_rules_opt_t *o)
{
    uint32_t nbins = bounded(n, (float)o->bin_ratio, o->min_bins, o->max_bins);
    if (nbins <= 1) return ES_OK;
    if (!(st->thr = malloc(nbins * sizeof *st->thr)) || !(st->ptr = malloc((nbins + 1) * sizeof *st->ptr)) ||
        !(st->idx = malloc((m ? m : 1) * sizeof *st->idx)))
        return ES_ERR_NOMEM;
    uint32_t per = (uint32_t)ceil((double)m / (double)nbins);
    float prev = 0.0f; /* the sparse value */
    uint32_t in_bin = 0, b = 0, S = UINT32_MAX;
    st->ptr[0] = 0;
    for (uint32_t j = 0; j < m; j++) {
        float x = val[j];
        /* the sparse bin: the bin open when the first value >= 0 comes (a dense feature lists
           its examples; the walks skip it and take them as the rest) */
        if (S == UINT32_MAX && !(x < 0.0f)) S = b;
        /* an equal value never starts a new bin */
        if (!es_rl_fequal(x, prev)) {
            if (in_bin >= per) {
                st->thr[b] = es_rl_mean(prev, x);
                st->ptr[++b] = j;
                in_bin = 0;
            }
            prev = x;
        }
        st->idx[j] = idx[j];
        in_bin++;
    }
    if (S == UINT32_MAX) S = b;
    if (!b) return ES_OK;
    st->thr[b] = INFINITY; /* the last bin's threshold: never read (mlrl-boomer has none) */
    st->ptr[b + 1] = m;
    *v = (es_rl_bvec_t){b + 1, S, 0, st->thr, st->ptr, st->idx};
    return ES_OK;
}

int es_rl_binned_init(es_rl_ctx_t *c, const es_rules_opt_t *o)
{
    uint32_t F = c->F;
    es_rl_binned_t *bn = calloc(1, sizeof *bn);
    if (!bn) return ES_ERR_NOMEM;
    c->bn = bn;
    bn->F = F;
    if (!(bn->orig = calloc(F, sizeof *bn->orig)) || !(bn->cur = calloc(F, sizeof *bn->cur)) ||
        !(bn->nc = calloc(F, sizeof *bn->nc)) || !(bn->own = calloc(F, 1)) ||
        !(bn->st = calloc(F, sizeof *bn->st)))
        return ES_ERR_NOMEM;
    for (uint32_t f = 0; f < F; f++) {
        es_rl_bvec_t *v = &bn->orig[f];
        v->equal = 1;
        if (c->d->n_values[f]) continue; /* nominal: its own search */
        const float *val = c->sval + c->soff[f];
        const uint32_t *idx = c->sorted + c->soff[f];
        uint32_t m = (uint32_t)(c->soff[f + 1] - c->soff[f]);
        /* every value equal (or none): nothing to split */
        if (!m || es_rl_fequal(val[0], val[m - 1])) continue;
        store_t *st = &bn->st[f];
        int ret = o->feat_binning == ES_RULES_FB_EQUAL_WIDTH ? bin_width(v, st, val, idx, m, c->n, o)
                                                              : bin_frequency(v, st, val, idx, m, c->n, o);
        if (ret) return ret;
        if (v->equal) continue;
        uint32_t nb = v->nb, ni = v->ptr[nb];
        if (!(st->fthr = malloc(nb * sizeof *st->fthr)) || !(st->fptr = malloc((nb + 1) * sizeof *st->fptr)) ||
            !(st->fidx = malloc((ni ? ni : 1) * sizeof *st->fidx)))
            return ES_ERR_NOMEM;
    }
    es_rl_binned_reset(c);
    return ES_OK;
}

void es_rl_binned_free(es_rl_ctx_t *c)
{
    es_rl_binned_t *bn = c->bn;
    if (!bn) return;
    if (bn->st)
        for (uint32_t f = 0; f < bn->F; f++) {
            store_t *st = &bn->st[f];
            free(st->thr);
            free(st->ptr);
            free(st->idx);
            free(st->fthr);
            free(st->fptr);
            free(st->fidx);
        }
    free(bn->st);
    free(bn->orig);
    free(bn->cur);
    free(bn->nc);
    free(bn->own);
    free(bn);
    c->bn = NULL;
}

void es_rl_binned_reset(es_rl_ctx_t *c)
{
    es_rl_binned_t *bn = c->bn;
    memcpy(bn->cur, bn->orig, bn->F * sizeof *bn->cur);
    memset(bn->nc, 0, bn->F * sizeof *bn->nc);
    memset(bn->own, 0, bn->F);
}

/* Filter the bins of v to the covered examples (mlrl-boomer's
 * createFilteredBinnedFeatureVectorDecorator): bins left without a covered example are
 * dropped; the sparse index starts at v's and moves to each kept bin whose new position
 * is at or beyond it, and is then lowered to the last bin when beyond it (its
 * AllocatedBinnedFeatureVector::resize): so it always ends on the last kept bin; each
 * kept bin keeps its threshold.  Written into st's filtered arrays, which v may already
 * be (a bin is read before its place is written: in place is safe). */
static void filter_covered(es_rl_bvec_t *out, const es_rl_bvec_t *v, store_t *st, const uint8_t *cov)
{
    uint32_t nb = 0, ni = 0, S = v->S;
    for (uint32_t k = 0; k < v->nb; k++) {
        uint32_t a = v->ptr[k], e = v->ptr[k + 1], start = ni;
        float t = v->thr[k];
        for (uint32_t j = a; j < e; j++) {
            uint32_t i = v->idx[j];
            if (cov[i]) st->fidx[ni++] = i;
        }
        if (ni > start) {
            if (nb >= S) S = nb;
            st->fptr[nb] = start;
            st->fthr[nb] = t;
            nb++;
        }
    }
    st->fptr[nb] = ni;
    if (nb && S >= nb) S = nb - 1;
    *out = (es_rl_bvec_t){nb, S, ni == 0, st->fthr, st->fptr, st->fidx};
}

void es_rl_binned_refresh(es_rl_ctx_t *c, uint32_t f)
{
    es_rl_binned_t *bn = c->bn;
    es_rl_bvec_t *v = &bn->cur[f];
    if (v->equal || c->n_cond <= bn->nc[f]) return;
    filter_covered(v, v, &bn->st[f], c->cov);
    bn->own[f] = 1;
    bn->nc[f] = c->n_cond;
}

/* Add bin k's examples with a weight to the sums; @return how many (mlrl-boomer's
 * addAllToSubset). */
static uint32_t add_bin(es_rl_walk_t *wk, const es_rl_bvec_t *v, int64_t k)
{
    const es_rl_ctx_t *c = wk->c;
    es_rl_scratch_t *s = wk->s;
    uint32_t n = 0;
    for (uint32_t j = v->ptr[k]; j < v->ptr[k + 1]; j++) {
        uint32_t i = v->idx[j];
        if (!c->w[i]) continue;
        es_rl_add_ex(c, i, s->sg, s->sh);
        n++;
    }
    return n;
}

void es_rl_search_binned(es_rl_walk_t *wk, uint32_t f)
{
    const es_rl_ctx_t *c = wk->c;
    es_rl_scratch_t *s = wk->s;
    const es_rl_bvec_t *v = &c->bn->cur[f];
    if (v->equal) return;
    uint32_t nh = c->n_hl, nH = c->exw ? c->nH : nh, nnz = c->n_nz, nb = v->nb;
    int64_t S = v->S, i = 0;
    uint32_t ncov = 0;
    memset(s->sg, 0, nh * sizeof *s->sg);
    memset(s->sh, 0, nH * sizeof *s->sh);
    /* bins below the sparse one, ascending; the first one opens the subset */
    if (i < S) ncov += add_bin(wk, v, i);
    if (ncov > 0) {
        for (i = 1; i < S; i++) {
            float t = v->thr[i - 1];
            es_rl_candidate(wk, s->sg, s->sh, 0, ES_RULES_LE, 0, t, 0, (uint32_t)i, ncov);
            if (nnz - ncov >= 1)
                es_rl_candidate(wk, s->sg, s->sh, 1, ES_RULES_GT, 1, t, 0, (uint32_t)i, nnz - ncov);
            ncov += add_bin(wk, v, i);
        }
        /* the subset's sums kept (mlrl-boomer's resetSubset) */
        memcpy(s->ag, s->sg, nh * sizeof *s->ag);
        memcpy(s->ah, s->sh, nH * sizeof *s->ah);
        memset(s->sg, 0, nh * sizeof *s->sg);
        memset(s->sh, 0, nH * sizeof *s->sh);
    }
    uint32_t less = ncov;
    ncov = 0;
    /* bins above the sparse one, descending; the last one opens the subset */
    i = (int64_t)nb - 1;
    if (i > S) ncov += add_bin(wk, v, i);
    if (ncov > 0)
        for (i = i - 1; i > S; i--) {
            float t = v->thr[i];
            es_rl_candidate(wk, s->sg, s->sh, 0, ES_RULES_GT, 0, t, (uint32_t)i + 1, nb, ncov);
            if (nnz - ncov >= 1)
                es_rl_candidate(wk, s->sg, s->sh, 1, ES_RULES_LE, 1, t, (uint32_t)i + 1, nb, nnz - ncov);
            ncov += add_bin(wk, v, i);
        }
    /* every bin above the sparse one; mlrl-boomer then scores the same sums again as the
       inverse (<=) condition, which can never be strictly better: left out */
    if (ncov >= 1)
        es_rl_candidate(wk, s->sg, s->sh, 0, ES_RULES_GT, 0, v->thr[S], (uint32_t)S + 1, nb, ncov);
    /* every bin below the sparse one, from the kept sums */
    if (less > 0 && less < nnz) {
        float t = v->thr[S - 1];
        es_rl_candidate(wk, s->ag, s->ah, 0, ES_RULES_LE, 0, t, 0, (uint32_t)S, less);
        es_rl_candidate(wk, s->ag, s->ah, 1, ES_RULES_GT, 1, t, 0, (uint32_t)S, nnz - less);
    }
}

uint32_t es_rl_binned_apply(es_rl_ctx_t *c, uint32_t f, const es_rl_cand_t *r, uint32_t *ids,
                            uint8_t *keep)
{
    es_rl_binned_t *bn = c->bn;
    es_rl_bvec_t *v = &bn->cur[f];
    uint32_t n = c->n, m = 0, lo = r->lo, hi = r->hi < v->nb ? r->hi : v->nb;
    /* mlrl-boomer's updateCoverageMaskAndStatisticsBasedOnBinnedFeatureVector: every example
       listed in the range's bins (the sparse bin lists none and is never in a range) */
    if (!r->inverse) {
        memset(keep, 0, n);
        for (uint32_t k = lo; k < hi; k++)
            for (uint32_t j = v->ptr[k]; j < v->ptr[k + 1]; j++) {
                keep[v->idx[j]] = 1;
                ids[m++] = v->idx[j];
            }
        memcpy(c->cov, keep, n);
    } else {
        for (uint32_t k = lo; k < hi; k++)
            for (uint32_t j = v->ptr[k]; j < v->ptr[k + 1]; j++) {
                c->cov[v->idx[j]] = 0;
                ids[m++] = v->idx[j];
            }
    }
    /* the bins on the condition's side (mlrl-boomer's getStartAndEndOfOpenInterval and
       createFilteredBinnedFeatureVectorView): the sparse index shifted with them, 0 when it
       was before them, the last when beyond */
    uint32_t a, e;
    if (r->inverse) {
        if (r->lo > 0) a = 0, e = r->lo;
        else a = r->hi, e = v->nb;
    } else {
        a = r->lo;
        e = a > 0 ? v->nb : r->hi;
    }
    if (e > a) {
        uint32_t S = v->S >= a ? v->S - a : 0;
        if (S >= e - a) S = e - a - 1;
        *v = (es_rl_bvec_t){e - a, S, 0, v->thr + a, v->ptr + a, v->idx};
    } else {
        v->equal = 1;
    }
    bn->nc[f] = c->n_cond + 1;
    return m;
}
