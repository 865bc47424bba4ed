/* state.c -- the bytes of what src/dist writes down or sends: growable write
 * buffers and bounded readers of fixed-width little-endian fields (never a
 * struct's padding, so equal states are equal files), FNV-1a, and one
 * finished tile's result as an MPI rank sends it to rank 0. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"

/* ---- write buffers ------------------------------------------------------------ */

void es_wb_free(es_wb_t *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

void es_wb_bytes(es_wb_t *b, const void *src, size_t n)
{
    if (b->err) return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n) cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p) {
            b->err = ES_ERR_NOMEM;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->n, src, n);
    b->n += n;
}

void es_wb_u32(es_wb_t *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    es_wb_bytes(b, x, 4);
}

void es_wb_u64(es_wb_t *b, uint64_t v)
{
    es_wb_u32(b, (uint32_t)v);
    es_wb_u32(b, (uint32_t)(v >> 32));
}

void es_wb_f64(es_wb_t *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    es_wb_u64(b, u);
}

void es_wb_str(es_wb_t *b, const char *s)
{
    size_t n = strlen(s);
    es_wb_u32(b, (uint32_t)n);
    es_wb_bytes(b, s, n + 1);
}

void es_wb_pair(es_wb_t *b, const es_pair_t *p)
{
    es_wb_u32(b, p->i);
    es_wb_u32(b, p->j);
    es_wb_u32(b, p->n);
    es_wb_u32(b, (uint32_t)p->df);
    es_wb_f64(b, p->stat);
    es_wb_f64(b, p->p);
    es_wb_f64(b, p->log10p);
    es_wb_f64(b, p->beta);
}

void es_wb_triple(es_wb_t *b, const es_triple_t *t)
{
    es_wb_u32(b, t->i);
    es_wb_u32(b, t->j);
    es_wb_u32(b, t->k);
    es_wb_u32(b, t->n);
    es_wb_u32(b, (uint32_t)t->df);
    es_wb_f64(b, t->stat);
    es_wb_f64(b, t->p);
    es_wb_f64(b, t->log10p);
}

/* ---- readers -------------------------------------------------------------------- */

void es_rb_bytes(es_rb_t *r, void *dst, size_t n)
{
    if (r->bad || n > r->n - r->off) {
        r->bad = 1;
        memset(dst, 0, n);
        return;
    }
    memcpy(dst, r->p + r->off, n);
    r->off += n;
}

uint32_t es_rb_u32(es_rb_t *r)
{
    uint8_t x[4];
    es_rb_bytes(r, x, 4);
    return (uint32_t)x[0] | (uint32_t)x[1] << 8 | (uint32_t)x[2] << 16 | (uint32_t)x[3] << 24;
}

uint64_t es_rb_u64(es_rb_t *r)
{
    uint64_t lo = es_rb_u32(r);
    return lo | (uint64_t)es_rb_u32(r) << 32;
}

double es_rb_f64(es_rb_t *r)
{
    uint64_t u = es_rb_u64(r);
    double v;
    memcpy(&v, &u, 8);
    return v;
}

const char *es_rb_str(es_rb_t *r)
{
    uint32_t n = es_rb_u32(r);
    if (r->bad || (size_t)n + 1 > r->n - r->off || r->p[r->off + n] != 0) {
        r->bad = 1;
        return NULL;
    }
    const char *s = (const char *)r->p + r->off;
    r->off += (size_t)n + 1;
    return s;
}

void es_rb_pair(es_rb_t *r, es_pair_t *p)
{
    p->i = es_rb_u32(r);
    p->j = es_rb_u32(r);
    p->n = es_rb_u32(r);
    p->df = (int)es_rb_u32(r);
    p->stat = es_rb_f64(r);
    p->p = es_rb_f64(r);
    p->log10p = es_rb_f64(r);
    p->beta = es_rb_f64(r);
}

void es_rb_triple(es_rb_t *r, es_triple_t *t)
{
    t->i = es_rb_u32(r);
    t->j = es_rb_u32(r);
    t->k = es_rb_u32(r);
    t->n = es_rb_u32(r);
    t->df = (int)es_rb_u32(r);
    t->stat = es_rb_f64(r);
    t->p = es_rb_f64(r);
    t->log10p = es_rb_f64(r);
}

uint64_t es_fnv(uint64_t h, const void *data, size_t n)
{
    const uint8_t *p = data;
    for (size_t k = 0; k < n; k++) {
        h ^= p[k];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* ---- one finished tile ---------------------------------------------------------- */

void es_wb_summary(es_wb_t *b, const es_summary_t *s)
{
    es_wb_u32(b, s->best_partner);
    es_wb_f64(b, s->best_stat);
    es_wb_f64(b, s->best_p);
    es_wb_u64(b, s->n_sig);
    es_wb_u64(b, s->n_tot);
}

void es_rb_summary(es_rb_t *r, es_summary_t *s)
{
    s->best_partner = es_rb_u32(r);
    s->best_stat = es_rb_f64(r);
    s->best_p = es_rb_f64(r);
    s->n_sig = es_rb_u64(r);
    s->n_tot = es_rb_u64(r);
}

void es_wb_sum3(es_wb_t *b, const es_sum3_t *s)
{
    es_wb_u32(b, s->best_i);
    es_wb_u32(b, s->best_j);
    es_wb_u32(b, s->best_k);
    es_wb_u32(b, s->n);
    es_wb_u32(b, (uint32_t)s->df);
    es_wb_f64(b, s->stat);
    es_wb_u64(b, s->n_sig);
    es_wb_u64(b, s->n_tot);
}

void es_rb_sum3(es_rb_t *r, es_sum3_t *s)
{
    s->best_i = es_rb_u32(r);
    s->best_j = es_rb_u32(r);
    s->best_k = es_rb_u32(r);
    s->n = es_rb_u32(r);
    s->df = (int)es_rb_u32(r);
    s->stat = es_rb_f64(r);
    s->n_sig = es_rb_u64(r);
    s->n_tot = es_rb_u64(r);
}

static int summary_used(const es_summary_t *s) { return s->n_tot || s->n_sig || s->best_partner != UINT32_MAX; }

void es_tile_result_put2(es_wb_t *b, const es_scan_ctx_t *ctx, es_worker_t *w)
{
    size_t nslot = 2 * (size_t)ctx->block;
    es_wb_u32(b, w->bi);
    es_wb_u32(b, w->bj);
    es_wb_u64(b, w->tile_pairs);
    es_wb_u32(b, w->tmark ? w->cnt_i : 0);
    es_wb_u32(b, w->tmark ? w->cnt_j : 0);
    uint32_t n = 0;
    for (size_t s = 0; s < nslot; s++) n += (uint32_t)summary_used(&w->tsum[s]);
    es_wb_u32(b, n);
    for (size_t s = 0; s < nslot; s++) {
        if (!summary_used(&w->tsum[s])) continue;
        es_wb_u32(b, (uint32_t)s);
        es_wb_summary(b, &w->tsum[s]);
    }
    es_wb_u64(b, w->sig_n);
    for (size_t k = 0; k < w->sig_n; k++) es_wb_pair(b, &w->sig[k]);
    es_wb_u64(b, w->top.n);
    for (size_t k = 0; k < w->top.n; k++) es_wb_pair(b, &w->top.heap[k]);
    /* the worker's tile is handed over: clear it as a merge would */
    es_summary_reset(w->tsum, nslot);
    if (w->tmark) {
        memset(w->tmark, 0, nslot);
        w->n_touched = 0;
    }
    w->sig_n = 0;
    w->tile_pairs = 0;
    w->cnt_i = w->cnt_j = 0;
    es_topk_clear(&w->top);
}

int es_tile_result_get2(es_rb_t *r, const es_scan_ctx_t *ctx, es_worker_t *w)
{
    uint32_t bi = es_rb_u32(r), bj = es_rb_u32(r);
    if (r->bad || bi > bj || bj >= ctx->n_blocks) return ES_ERR_FORMAT;
    es_worker_begin_tile(ctx, w, bi, bj);
    w->tile_pairs = es_rb_u64(r);
    w->cnt_i = es_rb_u32(r);
    w->cnt_j = es_rb_u32(r);
    uint32_t n = es_rb_u32(r);
    size_t nslot = 2 * (size_t)ctx->block;
    for (uint32_t q = 0; q < n && !r->bad; q++) {
        uint32_t s = es_rb_u32(r);
        if (s >= nslot || w->tmark[s]) return ES_ERR_FORMAT;
        es_rb_summary(r, &w->tsum[s]);
        w->tmark[s] = 1;
        w->touched[w->n_touched++] = s;
    }
    uint64_t ns = es_rb_u64(r);
    if (r->bad || ns > (r->n - r->off) / ES_SIG_REC2) return ES_ERR_FORMAT;
    if (ns > w->sig_cap) {
        es_pair_t *p = realloc(w->sig, ns * sizeof *p);
        if (!p) return ES_ERR_NOMEM;
        w->sig = p;
        w->sig_cap = ns;
    }
    for (uint64_t k = 0; k < ns; k++) es_rb_pair(r, &w->sig[k]);
    w->sig_n = ns;
    uint64_t nt = es_rb_u64(r);
    if (r->bad || nt > w->top.k) return ES_ERR_FORMAT;
    es_topk_clear(&w->top);
    for (uint64_t k = 0; k < nt; k++) {
        es_pair_t p;
        es_rb_pair(r, &p);
        es_topk_push(&w->top, &p);
    }
    return r->bad ? ES_ERR_FORMAT : ES_OK;
}

void es_tile_result_put3(es_wb_t *b, const es_scan3_ctx_t *ctx, es_worker3_t *w)
{
    (void)ctx;
    es_wb_u64(b, w->tile);
    es_wb_u32(b, w->row);
    es_wb_u64(b, w->tile_triples);
    uint32_t n = 0;
    for (uint32_t q = 0; q < w->n_slots; q++) n += w->tsum[q].n_tot != 0;
    es_wb_u32(b, n);
    for (uint32_t q = 0; q < w->n_slots; q++)
        if (w->tsum[q].n_tot) {
            es_wb_u32(b, w->slot_var[q]);
            es_wb_sum3(b, &w->tsum[q]);
        }
    es_wb_u64(b, w->sig_n);
    for (size_t k = 0; k < w->sig_n; k++) es_wb_triple(b, &w->sig[k]);
    es_wb_u64(b, w->top.n);
    for (size_t k = 0; k < w->top.n; k++) es_wb_triple(b, &w->top.heap[k]);
    w->sig_n = 0;
    w->tile_triples = 0;
    w->n_slots = 0;
    es_topk3_clear(&w->top);
}

int es_tile_result_get3(es_rb_t *r, const es_scan3_ctx_t *ctx, es_worker3_t *w)
{
    w->tile = es_rb_u64(r);
    w->row = es_rb_u32(r);
    w->tile_triples = es_rb_u64(r);
    uint32_t n = es_rb_u32(r);
    if (r->bad || w->tile >= ctx->n_tiles || w->row >= ctx->n_rows || n > w->cap_slots) return ES_ERR_FORMAT;
    for (uint32_t q = 0; q < n; q++) {
        w->slot_var[q] = es_rb_u32(r);
        es_rb_sum3(r, &w->tsum[q]);
        if (w->slot_var[q] >= ctx->m) return ES_ERR_FORMAT;
    }
    w->n_slots = n;
    uint64_t ns = es_rb_u64(r);
    if (r->bad || ns > (r->n - r->off) / ES_SIG_REC3) return ES_ERR_FORMAT;
    if (ns > w->sig_cap) {
        es_triple_t *p = realloc(w->sig, ns * sizeof *p);
        if (!p) return ES_ERR_NOMEM;
        w->sig = p;
        w->sig_cap = ns;
    }
    for (uint64_t k = 0; k < ns; k++) es_rb_triple(r, &w->sig[k]);
    w->sig_n = ns;
    uint64_t nt = es_rb_u64(r);
    if (r->bad || nt > w->top.k) return ES_ERR_FORMAT;
    es_topk3_clear(&w->top);
    for (uint64_t k = 0; k < nt; k++) {
        es_triple_t t;
        es_rb_triple(r, &t);
        es_topk3_push(&w->top, &t);
    }
    return r->bad ? ES_ERR_FORMAT : ES_OK;
}
