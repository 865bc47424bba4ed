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
    pw->ds = ds;
    pw->plink = plink_w > 0;
    pw->w = plink_w;
    pw->last_i = UINT32_MAX;
    return es_wbuf_init(&pw->wb, fp, (size_t)1 << 20);
}

int es_pair_writer_header(es_pair_writer_t *pw)
{
    char *d = es_wbuf_reserve(&pw->wb, (size_t)2 * (size_t)pw->w + 128);
    if (!d) return ES_ERR_IO;
    char *s = d;
    if (pw->plink) {
        /* "CHR1 %*s CHR2 %*s %12s %4s %12s \n" */
        memcpy(s, "CHR1 ", 5);
        s = es_fmt_str_w(s + 5, "SNP1", pw->w);
        memcpy(s, " CHR2 ", 6);
        s = es_fmt_str_w(s + 6, "SNP2", pw->w);
        static const char tail[] = "         STAT   DF            P \n";
        memcpy(s, tail, sizeof tail - 1);
        s += sizeof tail - 1;
    } else {
        static const char h[] = "CHR1\tSNP1\tPOS1\tCHR2\tSNP2\tPOS2\tSTAT\tP\tLOG10P\tN\tDF\n";
        memcpy(s, h, sizeof h - 1);
        s += sizeof h - 1;
    }
    pw->wb.n += (size_t)(s - d);
    return ES_OK;
}

/* append a string literal at s */
#define PUT(s, lit) ((s) = (char *)memcpy((s), (lit), sizeof(lit) - 1) + sizeof(lit) - 1)

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
    char *d = es_wbuf_reserve(&pw->wb, pw->pre_n + variant_cols_max(pw, p->j) + 160);
    if (!d) return ES_ERR_IO;
    char *s = d;
    memcpy(s, pw->pre, pw->pre_n);
    s = variant_cols(pw, s + pw->pre_n, p->j);
    if (pw->plink) {
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
    } else if (failed || isnan(p->p)) {
        /* a failed test: STAT, P, LOG10P NA, DF 0; no p-value (k2): STAT,
         * then P, LOG10P and DF NA */
        if (failed) PUT(s, "NA");
        else s = es_fmt_g(s, p->stat, 12);
        PUT(s, "\tNA\tNA\t");
        s = es_fmt_u64(s, p->n);
        if (failed) PUT(s, "\t0\n");
        else PUT(s, "\tNA\n");
    } else {
        /* "%.12g\t%.10g\t%.10g\t%u\t%d\n" */
        s = es_fmt_g(s, p->stat, 12);
        *s++ = '\t';
        s = es_fmt_g(s, p->p, 10);
        *s++ = '\t';
        s = es_fmt_g(s, p->log10p + 0.0, 10);
        *s++ = '\t';
        s = es_fmt_u64(s, p->n);
        *s++ = '\t';
        s = es_fmt_i64(s, p->df);
        *s++ = '\n';
    }
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
    free(pw->pre);
    pw->pre = NULL;
    pw->pre_cap = pw->pre_n = 0;
}

int es_write_summary(FILE *fp, const es_dataset_t *ds, const es_summary_t *s, const uint64_t *n_sig)
{
    fputs("CHR\tSNP\tPOS\tN_SIG\tN_TOT\tBEST_STAT\tBEST_P\tBEST_CHR\tBEST_SNP\tBEST_POS\n", fp);
    for (uint32_t v = 0; v < es_dataset_n_variants(ds); v++) {
        es_variant_info_t a = es_dataset_variant(ds, v);
        fprintf(fp, "%s\t%s\t%lld\t%llu\t%llu\t", a.chr, a.id, (long long)a.pos,
                (unsigned long long)(n_sig ? n_sig[v] : s[v].n_sig),
                (unsigned long long)s[v].n_tot);
        if (s[v].best_partner == UINT32_MAX) {
            fputs("NA\tNA\tNA\tNA\tNA\n", fp);
            continue;
        }
        es_variant_info_t b = es_dataset_variant(ds, s[v].best_partner);
        fprintf(fp, "%.12g\t", s[v].best_stat);
        if (isnan(s[v].best_p)) fputs("NA", fp);
        else fprintf(fp, "%.10g", s[v].best_p);
        fprintf(fp, "\t%s\t%s\t%lld\n", b.chr, b.id, (long long)b.pos);
    }
    return ferror(fp) ? ES_ERR_IO : ES_OK;
}

int es_write_plink_summary(FILE *fp, const es_dataset_t *ds, int w, const es_summary_t *s,
                           const uint64_t *n_sig, const uint64_t *n_failed)
{
    /* PLINK 1.9's header and columns: CHR (4) SNP (w) N_SIG (10) N_TOT (10)
     * PROP (%12.4g) BEST_CHISQ (%12.4g) BEST_CHR (4) BEST_SNP (w) */
    fprintf(fp, " CHR %*s        N_SIG        N_TOT         PROP   BEST_CHISQ BEST_CHR %*s \n", w,
            "SNP", w, "BEST_SNP");
    for (uint32_t v = 0; v < es_dataset_n_variants(ds); v++) {
        es_variant_info_t a = es_dataset_variant(ds, v);
        uint64_t tot = s[v].n_tot - (n_failed ? n_failed[v] : 0);
        fprintf(fp, "%4s %*s   %10llu   %10llu ", es_plink_chr_code(a.chr), w, a.id, (unsigned long long)n_sig[v],
                (unsigned long long)tot);
        if (!tot || s[v].best_partner == UINT32_MAX) {
            fprintf(fp, "%12s           NA   NA%*sNA \n", "nan", w - 1, "");
            continue;
        }
        es_variant_info_t b = es_dataset_variant(ds, s[v].best_partner);
        fprintf(fp, "%12.4g %12.4g %4s %*s \n", (double)n_sig[v] / (double)tot, s[v].best_stat,
                es_plink_chr_code(b.chr), w, b.id);
    }
    return ferror(fp) ? ES_ERR_IO : ES_OK;
}
