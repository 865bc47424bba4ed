/* output.c -- TSV and PLINK-style writers. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scan.h"
#include "output.h"

/* ---- interrupted runs ------------------------------------------------------
 * Temporary files being written are registered here so that SIGINT, SIGTERM or
 * SIGHUP removes them before the process dies: an interrupted run leaves
 * nothing behind.  The registry is process-wide by nature (a signal handler has
 * no other way in); only the CLI's main thread opens and closes outputs. */
#define ES_OUT_MAX_PENDING 16
static const char *volatile pending[ES_OUT_MAX_PENDING];

static void on_signal(int sig)
{
    for (int k = 0; k < ES_OUT_MAX_PENDING; k++)
        if (pending[k]) unlink(pending[k]); /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void pending_add(const char *path)
{
    static int installed;
    if (!installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
        installed = 1;
    }
    for (int k = 0; k < ES_OUT_MAX_PENDING; k++)
        if (!pending[k]) {
            pending[k] = path;
            return;
        }
}

static void pending_remove(const char *path)
{
    for (int k = 0; k < ES_OUT_MAX_PENDING; k++)
        if (pending[k] == path) pending[k] = NULL;
}

int es_out_open(es_out_t *o, const char *prefix, const char *suffix)
{
    memset(o, 0, sizeof *o);
    size_t n = strlen(prefix) + strlen(suffix) + 8;
    o->path = malloc(n);
    o->tmp_path = malloc(n);
    if (!o->path || !o->tmp_path) {
        es_out_abort(o);
        return ES_ERR_NOMEM;
    }
    snprintf(o->path, n, "%s%s", prefix, suffix);
    snprintf(o->tmp_path, n, "%s%s.tmp", prefix, suffix);
    o->fp = fopen(o->tmp_path, "w");
    if (!o->fp) {
        es_error("%s: cannot create: %s", o->tmp_path, strerror(errno));
        es_out_abort(o);
        return ES_ERR_IO;
    }
    /* large buffer: the significant-pair file can be big */
    setvbuf(o->fp, NULL, _IOFBF, 1 << 20);
    pending_add(o->tmp_path);
    return ES_OK;
}

int es_out_commit(es_out_t *o)
{
    int ret = ES_OK;
    if (!o->fp) return ES_OK;
    if (ferror(o->fp) | (fclose(o->fp) != 0)) {
        es_error("%s: write failed: %s", o->tmp_path, strerror(errno));
        ret = ES_ERR_IO;
    } else if (rename(o->tmp_path, o->path) != 0) {
        es_error("%s: cannot rename to %s: %s", o->tmp_path, o->path, strerror(errno));
        ret = ES_ERR_IO;
    }
    o->fp = NULL;
    pending_remove(o->tmp_path);
    if (ret) unlink(o->tmp_path);
    else o->committed = 1;
    return ret;
}

void es_out_abort(es_out_t *o)
{
    if (o->fp) {
        fclose(o->fp);
        o->fp = NULL;
        unlink(o->tmp_path);
    } else if (o->committed) {
        unlink(o->path); /* a later file failed: take this one back too */
    }
    es_out_close(o);
}

void es_out_close(es_out_t *o)
{
    if (o->tmp_path) pending_remove(o->tmp_path);
    if (o->fp) fclose(o->fp);
    free(o->path);
    free(o->tmp_path);
    memset(o, 0, sizeof *o);
}

void es_write_pair_header(FILE *fp)
{
    fputs("CHR1\tSNP1\tPOS1\tCHR2\tSNP2\tPOS2\tSTAT\tP\tLOG10P\tN\tDF\n", fp);
}

void es_write_pair(FILE *fp, const es_dataset_t *ds, const es_pair_t *p)
{
    es_variant_info_t a = es_dataset_variant(ds, p->i), b = es_dataset_variant(ds, p->j);
    fprintf(fp, "%s\t%s\t%lld\t%s\t%s\t%lld\t%.12g\t", a.chr, a.id, (long long)a.pos, b.chr, b.id,
            (long long)b.pos, p->stat);
    if (isnan(p->p)) fprintf(fp, "NA\tNA\t%u\tNA\n", p->n);
    else fprintf(fp, "%.10g\t%.10g\t%u\t%d\n", p->p, p->log10p + 0.0, p->n, p->df);
}

/* PLINK pads identifiers to the longest one; we do the same so files line up. */
int es_plink_snp_width(const es_dataset_t *ds)
{
    size_t w = 4;
    for (uint32_t v = 0; v < es_dataset_n_variants(ds); v++) {
        size_t l = strlen(es_dataset_variant(ds, v).id);
        if (l > w) w = l;
    }
    return (int)w;
}

void es_write_plink_header(FILE *fp, int w)
{
    fprintf(fp, "CHR1 %*s CHR2 %*s %12s %4s %12s \n", w, "SNP1", w, "SNP2", "STAT", "DF", "P");
}

void es_write_plink_pair(FILE *fp, const es_dataset_t *ds, const es_pair_t *p, int w)
{
    es_variant_info_t a = es_dataset_variant(ds, p->i), b = es_dataset_variant(ds, p->j);
    fprintf(fp, "%4s %*s %4s %*s %12.6g %4d %12.4g \n", a.chr, w, a.id, b.chr, w, b.id, p->stat,
            p->df, p->p);
}

int es_write_summary(FILE *fp, const es_dataset_t *ds, const es_summary_t *s)
{
    fputs("CHR\tSNP\tPOS\tN_SIG\tN_TOT\tBEST_STAT\tBEST_P\tBEST_CHR\tBEST_SNP\tBEST_POS\n", fp);
    for (uint32_t v = 0; v < es_dataset_n_variants(ds); v++) {
        es_variant_info_t a = es_dataset_variant(ds, v);
        fprintf(fp, "%s\t%s\t%lld\t%llu\t%llu\t", a.chr, a.id, (long long)a.pos,
                (unsigned long long)s[v].n_sig, (unsigned long long)s[v].n_tot);
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
