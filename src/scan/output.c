/* output.c -- the scan's result files: TSV and PLINK .epi.cc pair lines, the
 * per-variant summary (TSV, or PLINK's .epi.cc.summary); doc/CONTRACTS.md.
 *
 * Pair lines are formatted by hand (src/util/fmt.c) into a large buffer:
 * with every pair written a scan writes millions of lines, and printf's
 * digit generation used to cost more than the scan.  The bytes are those of
 * the printf formats given at each writer (tests/test_fmt.c, golden.sh). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "scan.h"
#include "output.h"

/* PLINK 1.9's calc_plink_maxsnp(): at least 4; the first ID longer than the
 * width so far sets it to its length + 2, and the scan stops once the width
 * reaches the longest ID (so it is often the longest + 2 or + 1, depending on
 * the order of the IDs). */
int es_plink_snp_width(const es_dataset_t *ds)
{
    uint32_t m = es_dataset_n_variants(ds);
    size_t longest = 0, w = 4;
    for (uint32_t v = 0; v < m; v++) {
        size_t l = strlen(es_dataset_variant(ds, v).id);
        if (l > longest) longest = l;
    }
    for (uint32_t v = 0; v < m; v++) {
        size_t l = strlen(es_dataset_variant(ds, v).id);
        if (l > w) {
            w = l + 2;
            if (w >= longest) break;
        }
    }
    return (int)w;
}

int es_pair_writer_init(es_pair_writer_t *pw, FILE *fp, const es_dataset_t *ds, int plink_w)
{
    memset(pw, 0, sizeof *pw);
    pw->order = 2;
    pw->ds = ds;
    pw->plink = plink_w > 0;
    pw->w = plink_w;
    pw->last_i = UINT32_MAX;
    return es_wbuf_init(&pw->wb, fp, (size_t)1 << 20);
}

/* append a string literal at s */
#define PUT(s, lit) ((s) = (char *)memcpy((s), (lit), sizeof(lit) - 1) + sizeof(lit) - 1)

void es_pair_writer_beta(es_pair_writer_t *pw, es_stat_t stat) { pw->beta = stat == ES_STAT_LOGISTIC ? 2 : 1; }

int es_pair_writer_header(es_pair_writer_t *pw)
{
    char *d = es_wbuf_reserve(&pw->wb, (size_t)2 * (size_t)pw->w + 128 + 54 * 10);
    if (!d) return ES_ERR_IO;
    char *s = d;
    if (pw->plink) {
        /* "CHR1 %*s CHR2 %*s %12s %4s %12s \n" */
        memcpy(s, "CHR1 ", 5);
        s = es_fmt_str_w(s + 5, "SNP1", pw->w);
        memcpy(s, " CHR2 ", 6);
        s = es_fmt_str_w(s + 6, "SNP2", pw->w);
        static const char tail[] = "         STAT   DF            P \n";
        static const char tail_qt[] = "     BETA_INT         STAT            P \n";
        static const char tail_or[] = "       OR_INT         STAT            P \n";
        if (pw->beta == 2) PUT(s, tail_or);
        else if (pw->beta) PUT(s, tail_qt);
        else PUT(s, tail);
    } else {
        static const char h2[] = "CHR1\tSNP1\tPOS1\tCHR2\tSNP2\tPOS2\t";
        static const char h3[] = "CHR1\tSNP1\tPOS1\tCHR2\tSNP2\tPOS2\tCHR3\tSNP3\tPOS3\t";
        static const char t[] = "STAT\tP\tLOG10P\tN\tDF";
        if (pw->order == 3) PUT(s, h3);
        else PUT(s, h2);
        PUT(s, t);
        if (pw->beta) PUT(s, "\tBETA_INT");
        if (pw->adjusted) PUT(s, "\tBETA_INT\tSE_INT\tP_INT");
        if (pw->tables) {
            /* CTRL_000 .. CASE_222 (order 3), CTRL_00 .. CASE_22 (order 2) */
            int ncell = pw->order == 3 ? 27 : 9;
            for (int y = 0; y < 2; y++)
                for (int c = 0; c < ncell; c++) {
                    s += sprintf(s, "\t%s_", y ? "CASE" : "CTRL");
                    if (pw->order == 3) *s++ = (char)('0' + c / 9);
                    *s++ = (char)('0' + c / 3 % 3);
                    *s++ = (char)('0' + c % 3);
                }
        }
        *s++ = '\n';
    }
    pw->wb.n += (size_t)(s - d);
    return ES_OK;
}


/* PLINK's name of chromosome chr; the last one is kept (consecutive variants
 * share their chromosome). */
static const char *chr_code(es_pair_writer_t *pw, const char *chr)
{
    if (!pw->chr_raw || (chr != pw->chr_raw && strcmp(chr, pw->chr_raw) != 0)) {
        pw->chr_raw = chr;
        pw->chr_code = es_plink_chr_code(chr);
    }
    return pw->chr_code;
}

/* The columns of variant v that open a line (TSV: "CHR\tSNP\tPOS\t"; PLINK:
 * "%4s %*s "): the first variant's are the same for long runs of lines. */
static char *variant_cols(es_pair_writer_t *pw, char *s, uint32_t v)
{
    es_variant_info_t a = es_dataset_variant(pw->ds, v);
    if (pw->plink) {
        s = es_fmt_str_w(s, chr_code(pw, a.chr), 4);
        *s++ = ' ';
        s = es_fmt_str_w(s, a.id, pw->w);
        *s++ = ' ';
    } else {
        size_t l = strlen(a.chr);
        memcpy(s, a.chr, l);
        s += l;
        *s++ = '\t';
        l = strlen(a.id);
        memcpy(s, a.id, l);
        s += l;
        *s++ = '\t';
        s = es_fmt_i64(s, (int64_t)a.pos);
        *s++ = '\t';
    }
    return s;
}

/* "%*d" */
static char *int_w(char *s, int v, int width)
{
    char tmp[24];
    *es_fmt_i64(tmp, v) = '\0';
    return es_fmt_str_w(s, tmp, width);
}

static size_t variant_cols_max(const es_pair_writer_t *pw, uint32_t v)
{
    es_variant_info_t a = es_dataset_variant(pw->ds, v);
    return strlen(a.chr) + strlen(a.id) + (size_t)pw->w + 32;
}

/* The TSV columns STAT P LOG10P N DF of a line, without the newline: "%.12g\t%.10g\t%.10g\t%u\t%d";
 * a failed test (df 0 where the statistic has a p-value) STAT, P, LOG10P NA and
 * DF 0; no p-value (k2): P, LOG10P and DF NA. */
static char *tsv_stat_cols(char *s, double stat, double p, double log10p, uint32_t n, int df, int failed)
{
    if (failed || isnan(p)) {
        if (failed) PUT(s, "NA");
        else s = es_fmt_g(s, stat, 12);
        PUT(s, "\tNA\tNA\t");
        s = es_fmt_u64(s, n);
        if (failed) PUT(s, "\t0");
        else PUT(s, "\tNA");
        return s;
    }
    s = es_fmt_g(s, stat, 12);
    *s++ = '\t';
    s = es_fmt_g(s, p, 10);
    *s++ = '\t';
    s = es_fmt_g(s, log10p + 0.0, 10);
    *s++ = '\t';
    s = es_fmt_u64(s, n);
    *s++ = '\t';
    return es_fmt_i64(s, df);
}

/* --tables: the counts of a line's table, recounted from the genotypes (the
 * variants' decoded calls are kept while consecutive lines share them). */
static void recount(es_pair_writer_t *pw, uint32_t i, uint32_t j, uint32_t k, uint32_t *cells)
{
    uint32_t want[3] = {i, j, k};
    int nv = k == UINT32_MAX ? 2 : 3;
    for (int q = 0; q < nv; q++) {
        if (pw->rc_var[q] == want[q]) continue;
        es_dataset_decode(pw->ds, want[q], pw->rc_g[q]);
        pw->rc_var[q] = want[q];
    }
    uint32_t n = es_dataset_n_samples_total(pw->ds);
    if (nv == 3) {
        es_table3_t t;
        es_count_triple_naive(pw->rc_g[0], pw->rc_g[1], pw->rc_g[2], pw->ds->status, n, &t);
        memcpy(cells, t.n, sizeof t.n);
    } else {
        es_table2_t t;
        es_count_pair_naive(pw->rc_g[0], pw->rc_g[1], pw->ds->status, n, &t);
        memcpy(cells, t.n, sizeof t.n);
    }
}

static char *table_cols(char *s, const uint32_t *cells, int n)
{
    for (int c = 0; c < n; c++) {
        *s++ = '\t';
        s = es_fmt_u64(s, cells[c]);
    }
    return s;
}

int es_pair_writer_tables(es_pair_writer_t *pw)
{
    uint32_t n = es_dataset_n_samples_total(pw->ds);
    for (int q = 0; q < 3; q++) {
        pw->rc_g[q] = malloc(n ? n : 1);
        pw->rc_var[q] = UINT32_MAX;
        if (!pw->rc_g[q]) return ES_ERR_NOMEM;
    }
    pw->tables = 1;
    return ES_OK;
}

int es_pair_writer_put3(es_pair_writer_t *pw, const es_triple_t *t)
{
    size_t need = variant_cols_max(pw, t->i) + variant_cols_max(pw, t->j) + variant_cols_max(pw, t->k) +
                  160 + (pw->tables ? 54 * 11 : 0);
    char *d = es_wbuf_reserve(&pw->wb, need);
    if (!d) return ES_ERR_IO;
    int failed = t->df == 0 && !isnan(t->p);
    pw->n_failed += (uint64_t)failed;
    char *s = variant_cols(pw, d, t->i);
    s = variant_cols(pw, s, t->j);
    s = variant_cols(pw, s, t->k);
    s = tsv_stat_cols(s, t->stat, t->p, t->log10p, t->n, t->df, failed);
    if (pw->tables) {
        uint32_t cells[54];
        recount(pw, t->i, t->j, t->k, cells);
        s = table_cols(s, cells, 54);
    }
    *s++ = '\n';
    pw->wb.n += (size_t)(s - d);
    return ES_OK;
}

int es_pair_writer_put(es_pair_writer_t *pw, const es_pair_t *p)
{
    if (p->i != pw->last_i) {
        size_t need = variant_cols_max(pw, p->i);
        if (need > pw->pre_cap) {
            char *np = realloc(pw->pre, need);
            if (!np) return ES_ERR_NOMEM;
            pw->pre = np;
            pw->pre_cap = need;
        }
        pw->pre_n = (size_t)(variant_cols(pw, pw->pre, p->i) - pw->pre);
        pw->last_i = p->i;
    }
    /* a failed test: the table left a variant with one genotype level (PLINK:
     * nan); df 0 where the statistic has a p-value */
    int failed = p->df == 0 && !isnan(p->p);
    pw->n_failed += (uint64_t)failed;
    char *d = es_wbuf_reserve(&pw->wb, pw->pre_n + variant_cols_max(pw, p->j) + 160 + (pw->tables ? 18 * 11 : 0));
    if (!d) return ES_ERR_IO;
    char *s = d;
    memcpy(s, pw->pre, pw->pre_n);
    s = variant_cols(pw, s + pw->pre_n, p->j);
    if (pw->plink && pw->beta) {
        /* PLINK's .epi.qt: "%12.6g %12.6g %12.4g \n"; a failed fit as PLINK
         * writes it under --epi1 1 */
        if (failed) {
            PUT(s, "         nan          nan          nan \n");
        } else {
            s = es_fmt_g_w(s, pw->beta == 2 ? exp(p->beta) : p->beta, 12, 6);
            *s++ = ' ';
            s = es_fmt_g_w(s, p->stat, 12, 6);
            *s++ = ' ';
            s = es_fmt_g_w(s, p->p, 12, 4);
            *s++ = ' ';
            *s++ = '\n';
        }
    } else if (pw->plink) {
        /* "%12.6g %4d %12.4g \n"; a failed test as PLINK writes it */
        if (failed) {
            PUT(s, "         nan    0           NA \n");
        } else {
            s = es_fmt_g_w(s, p->stat, 12, 6);
            *s++ = ' ';
            s = int_w(s, p->df, 4);
            *s++ = ' ';
            s = es_fmt_g_w(s, p->p, 12, 4);
            *s++ = ' ';
            *s++ = '\n';
        }
    } else {
        s = tsv_stat_cols(s, p->stat, p->p, p->log10p, p->n, p->df, failed);
        if (pw->beta) {
            *s++ = '\t';
            if (isnan(p->beta)) PUT(s, "NA");
            else s = es_fmt_g(s, p->beta, 10);
        }
        if (pw->tables) {
            uint32_t cells[18];
            recount(pw, p->i, p->j, UINT32_MAX, cells);
            s = table_cols(s, cells, 18);
        }
        *s++ = '\n';
    }
    pw->wb.n += (size_t)(s - d);
    return ES_OK;
}

void es_pair_writer_adjusted(es_pair_writer_t *pw) { pw->adjusted = 1; }

int es_pair_writer_put_adjusted(es_pair_writer_t *pw, const es_pair_t *p, int ok, double beta, double se,
                                double pval)
{
    int ret = es_pair_writer_put(pw, p);
    if (ret) return ret;
    pw->wb.n--; /* the line's newline: the exact model's columns go before it */
    char *d = es_wbuf_reserve(&pw->wb, 96);
    if (!d) return ES_ERR_IO;
    char *s = d;
    if (ok) {
        *s++ = '\t';
        s = es_fmt_g(s, beta, 10);
        *s++ = '\t';
        s = es_fmt_g(s, se, 10);
        *s++ = '\t';
        s = es_fmt_g(s, pval, 10);
    } else {
        PUT(s, "\tNA\tNA\tNA");
    }
    *s++ = '\n';
    pw->wb.n += (size_t)(s - d);
    return ES_OK;
}

int es_pair_writer_finish(es_pair_writer_t *pw)
{
    return es_wbuf_flush(&pw->wb);
}

void es_pair_writer_free(es_pair_writer_t *pw)
{
    es_wbuf_free(&pw->wb);
    for (int q = 0; q < 3; q++) {
        free(pw->rc_g[q]);
        pw->rc_g[q] = NULL;
    }
    free(pw->pre);
    pw->pre = NULL;
    pw->pre_cap = pw->pre_n = 0;
}

/* ---- the per-variant summaries, formatted in parallel -------------------- */

/* A summary writer's rows: row() formats variant v at dst (room for
 * room(v) bytes) and returns the end. */
typedef struct {
    const es_dataset_t *ds;
    const es_summary_t *s;
    const uint64_t *n_sig, *n_failed;
    int w; /* PLINK's ID width */
    size_t (*room)(const void *ctx, uint32_t v);
    char *(*row)(const void *ctx, char *dst, uint32_t v);
} summary_rows_t;

#define SUM_CHUNK 8192u /* rows a thread formats at a time */

/* Rows [0, m) in chunks of SUM_CHUNK, a chunk a thread formatted at once
 * into buffers of their own (the memory held: threads chunks, not the file),
 * then written in order: the bytes do not depend on the thread count.  (One thread formatting 1,000,000 rows took
 * about 1 s on the H200 host, 2 s with printf on the build VM.) */
static int write_rows(FILE *fp, uint32_t m, int threads, const summary_rows_t *r)
{
#ifdef _OPENMP
    if (threads <= 0) threads = omp_get_max_threads();
#endif
    if (threads < 1) threads = 1;
    const uint32_t n_chunks = (m + SUM_CHUNK - 1) / SUM_CHUNK;
    uint32_t per_round = (uint32_t)threads; /* a chunk a thread at a time: memory bounded */
    if (per_round > n_chunks) per_round = n_chunks ? n_chunks : 1;
    char **buf = calloc(per_round, sizeof *buf);
    size_t *len = calloc(per_round, sizeof *len);
    int ret = buf && len ? ES_OK : ES_ERR_NOMEM;
    for (uint32_t c0 = 0; c0 < n_chunks && !ret; c0 += per_round) {
        const uint32_t nc = n_chunks - c0 < per_round ? n_chunks - c0 : per_round;
        int bad = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) reduction(| : bad)
        for (uint32_t k = 0; k < nc; k++) {
            const uint32_t v0 = (c0 + k) * SUM_CHUNK, v1 = v0 + SUM_CHUNK < m ? v0 + SUM_CHUNK : m;
            size_t need = 0;
            for (uint32_t v = v0; v < v1; v++) need += r->room(r, v);
            char *b = realloc(buf[k], need ? need : 1), *e = b;
            if (!b) {
                bad = 1;
                continue;
            }
            buf[k] = b;
            for (uint32_t v = v0; v < v1; v++) e = r->row(r, e, v);
            len[k] = (size_t)(e - b);
        }
        if (bad) ret = ES_ERR_NOMEM;
        for (uint32_t k = 0; k < nc && !ret; k++)
            if (len[k] && fwrite(buf[k], 1, len[k], fp) != len[k]) ret = ES_ERR_IO;
    }
    if (buf)
        for (uint32_t k = 0; k < per_round; k++) free(buf[k]);
    free(buf);
    free(len);
    if (ret) return ret;
    return ferror(fp) ? ES_ERR_IO : ES_OK;
}

static size_t tsv_room(const void *ctx, uint32_t v)
{
    const summary_rows_t *r = ctx;
    es_variant_info_t a = es_dataset_variant(r->ds, v);
    size_t n = strlen(a.chr) + strlen(a.id) + 4 * 21 + 2 * 32 + 16;
    if (r->s[v].best_partner != UINT32_MAX) {
        es_variant_info_t b = es_dataset_variant(r->ds, r->s[v].best_partner);
        n += strlen(b.chr) + strlen(b.id);
    }
    return n;
}

static char *put_str(char *d, const char *s)
{
    size_t n = strlen(s);
    memcpy(d, s, n);
    return d + n;
}

/* The bytes of "%s\t%s\t%lld\t%llu\t%llu\t" and then "NA\tNA\tNA\tNA\tNA\n"
 * or "%.12g\t", "NA" or "%.10g", "\t%s\t%s\t%lld\n". */
static char *tsv_row(const void *ctx, char *d, uint32_t v)
{
    const summary_rows_t *r = ctx;
    const es_summary_t *x = &r->s[v];
    es_variant_info_t a = es_dataset_variant(r->ds, v);
    d = put_str(d, a.chr);
    *d++ = '\t';
    d = put_str(d, a.id);
    *d++ = '\t';
    d = es_fmt_i64(d, (int64_t)a.pos);
    *d++ = '\t';
    d = es_fmt_u64(d, r->n_sig ? r->n_sig[v] : x->n_sig);
    *d++ = '\t';
    d = es_fmt_u64(d, x->n_tot);
    *d++ = '\t';
    if (x->best_partner == UINT32_MAX) return put_str(d, "NA\tNA\tNA\tNA\tNA\n");
    es_variant_info_t b = es_dataset_variant(r->ds, x->best_partner);
    d = es_fmt_g(d, x->best_stat, 12);
    *d++ = '\t';
    d = isnan(x->best_p) ? put_str(d, "NA") : es_fmt_g(d, x->best_p, 10);
    *d++ = '\t';
    d = put_str(d, b.chr);
    *d++ = '\t';
    d = put_str(d, b.id);
    *d++ = '\t';
    d = es_fmt_i64(d, (int64_t)b.pos);
    *d++ = '\n';
    return d;
}

int es_write_summary(FILE *fp, const es_dataset_t *ds, const es_summary_t *s, const uint64_t *n_sig, int threads)
{
    fputs("CHR\tSNP\tPOS\tN_SIG\tN_TOT\tBEST_STAT\tBEST_P\tBEST_CHR\tBEST_SNP\tBEST_POS\n", fp);
    const summary_rows_t r = {ds, s, n_sig, NULL, 0, tsv_room, tsv_row};
    return write_rows(fp, es_dataset_n_variants(ds), threads, &r);
}

static uint64_t plink_tot(const summary_rows_t *r, uint32_t v)
{
    return r->s[v].n_tot - (r->n_failed ? r->n_failed[v] : 0);
}

static size_t plink_room(const void *ctx, uint32_t v)
{
    const summary_rows_t *r = ctx;
    es_variant_info_t a = es_dataset_variant(r->ds, v);
    size_t n = strlen(es_plink_chr_code(a.chr)) + strlen(a.id) + 2 * (size_t)r->w + 4 * 21 + 4 * 44 + 32;
    if (plink_tot(r, v) && r->s[v].best_partner != UINT32_MAX) {
        es_variant_info_t b = es_dataset_variant(r->ds, r->s[v].best_partner);
        n += strlen(es_plink_chr_code(b.chr)) + strlen(b.id);
    }
    return n;
}

/* u right-justified in width columns ("%*llu") */
static char *put_u64_w(char *d, uint64_t u, int width)
{
    char tmp[24];
    *es_fmt_u64(tmp, u) = '\0';
    return es_fmt_str_w(d, tmp, width);
}

/* The bytes of "%4s %*s   %10llu   %10llu " and then
 * "%12s           NA   NA%*sNA \n" (nan, w - 1, "") or
 * "%12.4g %12.4g %4s %*s \n". */
static char *plink_row(const void *ctx, char *d, uint32_t v)
{
    const summary_rows_t *r = ctx;
    const es_summary_t *x = &r->s[v];
    es_variant_info_t a = es_dataset_variant(r->ds, v);
    const uint64_t tot = plink_tot(r, v);
    d = es_fmt_str_w(d, es_plink_chr_code(a.chr), 4);
    *d++ = ' ';
    d = es_fmt_str_w(d, a.id, r->w);
    d = put_str(d, "   ");
    d = put_u64_w(d, r->n_sig[v], 10);
    d = put_str(d, "   ");
    d = put_u64_w(d, tot, 10);
    *d++ = ' ';
    if (!tot || x->best_partner == UINT32_MAX) {
        d = es_fmt_str_w(d, "nan", 12);
        d = put_str(d, "           NA   NA");
        d = es_fmt_str_w(d, "", r->w - 1);
        return put_str(d, "NA \n");
    }
    es_variant_info_t b = es_dataset_variant(r->ds, x->best_partner);
    d = es_fmt_g_w(d, (double)r->n_sig[v] / (double)tot, 12, 4);
    *d++ = ' ';
    d = es_fmt_g_w(d, x->best_stat, 12, 4);
    *d++ = ' ';
    d = es_fmt_str_w(d, es_plink_chr_code(b.chr), 4);
    *d++ = ' ';
    d = es_fmt_str_w(d, b.id, r->w);
    return put_str(d, " \n");
}

int es_write_plink_summary(FILE *fp, const es_dataset_t *ds, int w, const es_summary_t *s,
                           const uint64_t *n_sig, const uint64_t *n_failed, int threads)
{
    /* PLINK 1.9's header and columns: CHR (4) SNP (w) N_SIG (10) N_TOT (10)
     * PROP (%12.4g) BEST_CHISQ (%12.4g) BEST_CHR (4) BEST_SNP (w) */
    fprintf(fp, " CHR %*s        N_SIG        N_TOT         PROP   BEST_CHISQ BEST_CHR %*s \n", w,
            "SNP", w, "BEST_SNP");
    const summary_rows_t r = {ds, s, n_sig, n_failed, w, plink_room, plink_row};
    return write_rows(fp, es_dataset_n_variants(ds), threads, &r);
}

int es_write_summary3(FILE *fp, const es_dataset_t *ds, const es_summary3_t *s)
{
    fputs("CHR\tSNP\tPOS\tN_SIG\tN_TOT\tBEST_STAT\tBEST_P\tCHR_B\tSNP_B\tPOS_B\tCHR_C\tSNP_C\tPOS_C\n", fp);
    for (uint32_t v = 0; v < es_dataset_n_variants(ds); v++) {
        es_variant_info_t a = es_dataset_variant(ds, v);
        fprintf(fp, "%s\t%s\t%lld\t%llu\t%llu\t", a.chr, a.id, (long long)a.pos,
                (unsigned long long)s[v].n_sig, (unsigned long long)s[v].n_tot);
        if (s[v].best_i == UINT32_MAX) {
            fputs("NA\tNA\tNA\tNA\tNA\tNA\tNA\tNA\n", fp);
            continue;
        }
        fprintf(fp, "%.12g\t", s[v].best_stat);
        if (isnan(s[v].best_p)) fputs("NA", fp);
        else fprintf(fp, "%.10g", s[v].best_p);
        const uint32_t t[3] = {s[v].best_i, s[v].best_j, s[v].best_k};
        for (int q = 0; q < 3; q++) {
            if (t[q] == v) continue;
            es_variant_info_t b = es_dataset_variant(ds, t[q]);
            fprintf(fp, "\t%s\t%s\t%lld", b.chr, b.id, (long long)b.pos);
        }
        fputc('\n', fp);
    }
    return ferror(fp) ? ES_ERR_IO : ES_OK;
}
