/* bed_write.c -- write a dataset as a PLINK 1 fileset (.bed/.bim/.fam).
 *
 * Used by `epistream convert`: a VCF is parsed once and its .bed scanned many
 * times, and a selection of a fileset (--keep, --extract, --maf ...) can be
 * saved.  Rows come from es_fileset_row(), so the variant selection (var_src)
 * is already applied; removed samples (status -2) are squeezed out of each
 * row.  All three files are written under .tmp names and renamed only when
 * every byte is on disk (src/util/outfile.c): a failed or interrupted
 * conversion leaves nothing behind, and an earlier fileset of the same name
 * as it was. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"

enum { F_BED, F_BIM, F_FAM, F_N };
static const char *const ext[F_N] = {".bed", ".bim", ".fam"};

static int has_blank(const char *s)
{
    for (; *s; s++)
        if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\v' || *s == '\f')
            return 1;
    return 0;
}

/* A PLINK text field cannot be empty or hold a blank: the reader splits on
 * blanks.  VCF sample names and IDs may hold spaces. */
static int check_field(const char *what, const char *s, const char *src, const char *where)
{
    if (s[0] && !has_blank(s)) return ES_OK;
    es_error("%s: %s '%s' (%s) %s, which a PLINK text file cannot hold", src, what, s, where,
             s[0] ? "contains a blank" : "is empty");
    return ES_ERR_FORMAT;
}

/* Shortest decimal that reads back as the same double (.bim CM column). */
static void fmt_cm(char *buf, size_t n, double cm)
{
    if (cm == 0) {
        snprintf(buf, n, "0");
        return;
    }
    snprintf(buf, n, "%.15g", cm);
    if (strtod(buf, NULL) != cm) snprintf(buf, n, "%.17g", cm);
}

/* The PAT MAT SEX fields of a .fam line.  formats/plink.c keeps the .fam text
 * split in place: each field ends in a NUL and may be preceded by blanks, and
 * every kept line has all six fields, so they follow the IID in order. */
static void fam_parents_sex(const char *iid, const char *f[3])
{
    const char *s = iid + strlen(iid) + 1;
    for (int k = 0; k < 3; k++) {
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\v' || *s == '\f')
            s++;
        f[k] = s;
        s += strlen(s) + 1;
    }
}

static int write_fam(const es_fileset_t *p, const int8_t *status, FILE *fp)
{
    /* PLINK input: its parents and sex; VCF input has none */
    int from_fam = p->rows_owned == NULL && p->fam_text != NULL;
    for (uint32_t s = 0; s < p->n_samples; s++) {
        if (status[s] == -2) continue;
        char where[64];
        snprintf(where, sizeof where, "sample %u", s + 1);
        int ret;
        if ((ret = check_field("sample ID", p->fid[s], p->fam_path, where)) != ES_OK ||
            (ret = check_field("sample ID", p->iid[s], p->fam_path, where)) != ES_OK)
            return ret;
        const char *f[3] = {"0", "0", "0"};
        if (from_fam) fam_parents_sex(p->iid[s], f);
        int ph = status[s] == 1 ? 2 : status[s] == 0 ? 1 : -9;
        fprintf(fp, "%s %s %s %s %s %d\n", p->fid[s], p->iid[s], f[0], f[1], f[2], ph);
    }
    return ES_OK;
}

static int write_bim(const es_fileset_t *p, const int8_t *status, FILE *fp)
{
    int vcf = p->rows_owned != NULL;
    char cm[40];
    for (uint32_t v = 0; v < p->n_variants; v++) {
        char where[64];
        snprintf(where, sizeof where, "variant %u", v + 1);
        /* VCF's missing ALT "." is PLINK's missing allele code "0" (what
         * plink1.9 --vcf writes for a monomorphic site) */
        const char *a1 = vcf && strcmp(p->a1[v], ".") == 0 ? "0" : p->a1[v];
        const char *a2 = vcf && strcmp(p->a2[v], ".") == 0 ? "0" : p->a2[v];
        int ret;
        if ((ret = check_field("chromosome", p->chr[v], p->bim_path, where)) != ES_OK ||
            (ret = check_field("variant ID", p->id[v], p->bim_path, where)) != ES_OK ||
            (ret = check_field("allele", a1, p->bim_path, where)) != ES_OK ||
            (ret = check_field("allele", a2, p->bim_path, where)) != ES_OK)
            return ret;
        fmt_cm(cm, sizeof cm, p->cm[v]);
        fprintf(fp, "%s\t%s\t%s\t%lld\t%s\t%s\n", p->chr[v], p->id[v], cm, (long long)p->pos[v], a1,
                a2);
    }
    return ES_OK;
}

static int write_bed(const es_fileset_t *p, const int8_t *status, FILE *fp)
{
    int ret = ES_OK;
    uint32_t n = p->n_samples, n_keep = 0;
    uint32_t *keep = malloc((size_t)(n ? n : 1) * sizeof *keep);
    uint8_t *row = NULL;
    if (!keep) return ES_ERR_NOMEM;
    for (uint32_t s = 0; s < n; s++)
        if (status[s] != -2) keep[n_keep++] = s;
    size_t out_bpv = ((size_t)n_keep + 3) / 4;
    if (!(row = malloc(out_bpv ? out_bpv : 1))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    static const uint8_t magic[3] = {0x6c, 0x1b, 0x01};
    fwrite(magic, 1, 3, fp);
    /* pad bits of the last byte are written as zero, whatever the source had */
    uint8_t last_mask = (uint8_t)(n_keep % 4 ? (1u << (2 * (n_keep % 4))) - 1 : 0xff);
    for (uint32_t v = 0; v < p->n_variants; v++) {
        const uint8_t *src = es_fileset_row(p, v);
        if (n_keep == n) {
            memcpy(row, src, out_bpv); /* nobody removed: the row as it is */
        } else {
            memset(row, 0, out_bpv);
            for (uint32_t k = 0; k < n_keep; k++) {
                uint32_t s = keep[k];
                unsigned code = (src[s >> 2] >> (2 * (s & 3))) & 3u;
                row[k >> 2] |= (uint8_t)(code << (2 * (k & 3)));
            }
        }
        row[out_bpv - 1] &= last_mask;
        if (fwrite(row, 1, out_bpv, fp) != out_bpv) break; /* ferror() is checked on close */
    }
out:
    free(keep);
    free(row);
    return ret;
}

int es_plink_write(const es_fileset_t *p, const int8_t *status, const char *prefix)
{
    int ret = ES_OK;
    es_out_t f[F_N];
    es_out_t *const all[F_N] = {&f[F_BED], &f[F_BIM], &f[F_FAM]};
    char a[32], b[32];

    memset(f, 0, sizeof f);
    if (!p || !status || !prefix || !*prefix) {
        es_error("no dataset or output prefix given");
        return ES_ERR_ARG;
    }
    uint32_t n_keep = 0;
    for (uint32_t s = 0; s < p->n_samples; s++)
        n_keep += status[s] != -2;
    if (n_keep == 0 || p->n_variants == 0) {
        es_error("%s: nothing to write (%u samples, %u variants after selection)", prefix, n_keep,
                 p->n_variants);
        return ES_ERR_DATA;
    }
    es_out_clear_tmp(prefix, ext, F_N);
    for (int k = 0; k < F_N; k++)
        if ((ret = es_out_open(&f[k], prefix, ext[k])) != ES_OK) goto out;
    if ((ret = write_fam(p, status, f[F_FAM].fp)) != ES_OK) goto out;
    if ((ret = write_bim(p, status, f[F_BIM].fp)) != ES_OK) goto out;
    if ((ret = write_bed(p, status, f[F_BED].fp)) != ES_OK) goto out;
    if ((ret = es_fileset_check(p)) != ES_OK) goto out;
    if ((ret = es_out_commit_all(all, F_N)) != ES_OK) goto out;
    es_info("%s.bed/.bim/.fam: %s samples, %s variants written", prefix, es_fmt_count(n_keep, a),
            es_fmt_count(p->n_variants, b));
out:
    if (ret == ES_ERR_NOMEM) es_error("out of memory writing %s", prefix);
    for (int k = 0; k < F_N; k++) {
        if (ret != ES_OK) es_out_abort(&f[k]);
        else es_out_close(&f[k]);
    }
    return ret;
}
