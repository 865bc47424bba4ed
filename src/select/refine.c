/* refine.c -- what `select` and `scan --refine` share: a scan's surviving
 * variants (from its top pairs in memory, or read back from its .top.tsv or
 * .summary.tsv), the table of them (one feature per variant, the class
 * case/control), the selection over a table written as .select.tsv lines,
 * the selection's lines of a PREFIX.log, and the device a selection runs on.
 * Both commands call these, so a refinement in the same run and a selection
 * afterwards build the same table and write the same bytes. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "select.h"

int es_select_pair_variants(const es_dataset_t *ds, const es_pair_t *pairs, size_t n_pairs,
                            uint32_t **var, uint32_t *n_var)
{
    uint32_t nv = es_dataset_n_variants(ds), n = 0;
    uint8_t *mark = calloc(nv ? nv : 1, 1);
    *var = NULL;
    *n_var = 0;
    if (!mark) return ES_ERR_NOMEM;
    for (size_t k = 0; k < n_pairs; k++) {
        if (pairs[k].i < nv) mark[pairs[k].i] = 1;
        if (pairs[k].j < nv) mark[pairs[k].j] = 1;
    }
    for (uint32_t v = 0; v < nv; v++) n += mark[v];
    uint32_t *out = malloc((n ? n : 1) * sizeof *out);
    if (!out) {
        free(mark);
        return ES_ERR_NOMEM;
    }
    n = 0;
    for (uint32_t v = 0; v < nv; v++)
        if (mark[v]) out[n++] = v;
    free(mark);
    *var = out;
    *n_var = n;
    return ES_OK;
}

/* ---- survivors from a scan's files (select --from, --from-summary) --------- */

/* Columns of a header line: index of each wanted name, or -1. */
static void find_cols(char **f, int nf, const char *const *want, int *col, int n_want)
{
    for (int w = 0; w < n_want; w++) {
        col[w] = -1;
        for (int c = 0; c < nf; c++)
            if (strcmp(f[c], want[w]) == 0) {
                col[w] = c;
                break;
            }
    }
}

/* The variant named id (with chr and pos when given, to tell apart variants
 * sharing an ID).  @return ES_OK, or ES_ERR_DATA with the message logged. */
static int map_variant(const es_dataset_t *ds, const es_strindex_t *ix, const char *path,
                       uint64_t line, const char *what, const char *id, const char *chr,
                       const char *pos, uint32_t *out)
{
    uint32_t hit = ES_NO_ITEM, n_hit = 0;
    for (uint32_t v = es_strindex_find(ix, id, NULL); v != ES_NO_ITEM; v = ix->next[v]) {
        es_variant_info_t vi = es_dataset_variant(ds, v);
        if (chr && strcmp(vi.chr, chr) != 0) continue;
        if (pos) {
            char buf[32];
            snprintf(buf, sizeof buf, "%" PRId64, vi.pos);
            if (strcmp(buf, pos) != 0) continue;
        }
        if (!n_hit++) hit = v;
    }
    if (n_hit == 1) {
        *out = hit;
        return ES_OK;
    }
    if (!n_hit)
        es_error("%s: line %" PRIu64 ": variant '%s' (%s%s%s%s%s) is not in the dataset (with "
                 "the input and selection options given)", path, line, id, what,
                 chr ? ", chromosome " : "", chr ? chr : "", pos ? ", position " : "",
                 pos ? pos : "");
    else
        es_error("%s: line %" PRIu64 ": variant '%s' (%s) matches %u variants of the dataset; "
                 "give each variant a distinct ID", path, line, id, what, n_hit);
    return ES_ERR_DATA;
}

/* The text of a scan output, its header split into fields, and the index of
 * the dataset's variant IDs that its lines are looked up in. */
typedef struct {
    char *text, *q, *end;
    uint64_t line;
    char *f[64];
    int nf;
    int max_c; /* the largest column index wanted (scanfile_columns) */
    es_strindex_t ix;
} scanfile_t;

/* Locate the wanted header columns (col[w], -1 when absent); the first two are
 * required ("the header has no A and B columns; expected ..." otherwise).
 * sf->max_c is the largest column index found.  @return ES_OK or ES_ERR_FORMAT. */
static int scanfile_columns(scanfile_t *sf, const char *path, const char *const *want, int *col,
                            int n_want, const char *expected)
{
    find_cols(sf->f, sf->nf < 64 ? sf->nf : 64, want, col, n_want);
    if (col[0] < 0 || col[1] < 0) {
        es_error("%s: line %" PRIu64 ": the header has no %s and %s columns; expected %s", path,
                 sf->line, want[0], want[1], expected);
        return ES_ERR_FORMAT;
    }
    sf->max_c = 0;
    for (int w = 0; w < n_want; w++)
        if (col[w] > sf->max_c) sf->max_c = col[w];
    return ES_OK;
}

/* Index the variant IDs of ds, read path and its first non-blank line (the
 * header), and locate the wanted columns there (scanfile_columns: col[w], the
 * first two required, `expected` says which file).  Close sf with
 * scanfile_close() whatever this returns.  @return ES_OK or an error (logged) */
static int scanfile_open(scanfile_t *sf, const es_dataset_t *ds, const char *path,
                         const char *what, const char *const *want, int *col, int n_want,
                         const char *expected)
{
    size_t len;
    char *ls, *le;
    memset(sf, 0, sizeof *sf);
    int ret = es_strindex_build(&sf->ix, (const char *const *)ds->plink->id, NULL,
                                es_dataset_n_variants(ds));
    if (ret) return ret;
    if ((ret = es_text_read(path, what, &sf->text, &len))) return ret;
    sf->q = sf->text;
    sf->end = sf->text + len;
    while ((ls = es_next_line(&sf->q, sf->end, &le))) {
        sf->line++;
        sf->nf = es_split_fields(ls, le, sf->f, 64);
        if (sf->nf) return scanfile_columns(sf, path, want, col, n_want, expected);
    }
    es_error("%s: empty file, expected a %s with a header line", path, what);
    return ES_ERR_FORMAT;
}

static void scanfile_close(scanfile_t *sf)
{
    free(sf->text);
    es_strindex_free(&sf->ix);
}

/* The next non-blank line after the header, split into f[64].  A line too
 * short for the wanted columns is an error, logged under the caller's name
 * (func).  @return the number of fields, 0 at the end, -1 on a short line */
static int scanfile_next(scanfile_t *sf, const char *path, char **f, const char *func)
{
    char *ls, *le;
    while ((ls = es_next_line(&sf->q, sf->end, &le))) {
        sf->line++;
        int nf = es_split_fields(ls, le, f, 64);
        if (!nf) continue;
        if (nf <= sf->max_c) {
            es_log(ES_LOG_ERROR, func,
                   "%s: line %" PRIu64 ": %d fields, expected at least %d as in the header",
                   path, sf->line, nf, sf->max_c + 1);
            return -1;
        }
        return nf;
    }
    return 0;
}

/* --from: the variants of the pairs of a .top.tsv or .epi.cc, ascending. */
static int survivors_of_pairs(const es_dataset_t *ds, const char *path, uint32_t **var,
                              uint32_t *n_var, uint32_t **pairs, size_t *n_pairs_out)
{
    size_t cap = 0;
    static const char *const want[] = {"SNP1", "SNP2", "CHR1", "CHR2", "POS1", "POS2", "SNP3", "CHR3", "POS3"};
    int col[9], ret, nf;
    scanfile_t sf;
    uint32_t nv = es_dataset_n_variants(ds), n_pairs = 0;
    uint8_t *mark = calloc(nv ? nv : 1, 1);
    char *f[64];
    *var = NULL;
    *n_var = 0;
    if (pairs) *pairs = NULL;
    if (!mark) return ES_ERR_NOMEM;
    if ((ret = scanfile_open(&sf, ds, path, "pair list (.top.tsv or .epi.cc)", want, col, 9,
                             "the PREFIX.top.tsv (or .epi.cc) of 'epistream scan'")))
        goto out;
    /* a 3-way result: its survivors are the variants of its triples; it
     * cannot seed a 3-way scan, which extends pairs */
    int third = col[6] >= 0;
    if (third && pairs) {
        es_error("%s: a 3-way scan's result (it has an SNP3 column); seeds are the pairs of a 2-way "
                 "scan's .top.tsv or .sig.tsv", path);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    while ((nf = scanfile_next(&sf, path, f, __func__)) > 0) {
        if (pairs && n_pairs == cap) {
            cap = cap ? 2 * cap : 1024;
            uint32_t *np = realloc(*pairs, cap * 2 * sizeof *np);
            if (!np) {
                ret = ES_ERR_NOMEM;
                goto out;
            }
            *pairs = np;
        }
        for (int side = 0; side < 2 + third; side++) {
            static const char *const name[3] = {"SNP1", "SNP2", "SNP3"};
            static const int c_snp[3] = {0, 1, 6}, c_chr[3] = {2, 3, 7}, c_pos[3] = {4, 5, 8};
            uint32_t v;
            const char *chr = col[c_chr[side]] >= 0 ? f[col[c_chr[side]]] : NULL;
            const char *pos = col[c_pos[side]] >= 0 ? f[col[c_pos[side]]] : NULL;
            if ((ret = map_variant(ds, &sf.ix, path, sf.line, name[side], f[col[c_snp[side]]], chr, pos, &v)))
                goto out;
            mark[v] = 1;
            if (pairs) (*pairs)[2 * n_pairs + side] = v;
        }
        if (pairs && (*pairs)[2 * n_pairs] == (*pairs)[2 * n_pairs + 1]) {
            es_error("%s: line %" PRIu64 ": SNP1 and SNP2 are the same variant '%s': not a pair", path, sf.line,
                     f[col[0]]);
            ret = ES_ERR_FORMAT;
            goto out;
        }
        n_pairs++;
    }
    if (nf < 0) {
        ret = ES_ERR_FORMAT;
        goto out;
    }
    if (!n_pairs) {
        es_error("%s: no %s after the header", path, third ? "triples" : "pairs");
        ret = ES_ERR_FORMAT;
        goto out;
    }
    uint32_t n = 0;
    for (uint32_t v = 0; v < nv; v++) n += mark[v];
    if (!(*var = malloc(n * sizeof **var))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t v = 0; v < nv; v++)
        if (mark[v]) (*var)[(*n_var)++] = v;
    es_info("%s: %u %s, %u distinct variants", path, n_pairs, third ? "triples" : "pairs", n);
    if (n_pairs_out) *n_pairs_out = n_pairs;
out:
    scanfile_close(&sf);
    free(mark);
    if (ret && pairs) {
        free(*pairs);
        *pairs = NULL;
    }
    return ret;
}

typedef struct {
    double stat;
    uint64_t order;
    uint32_t v;
} ranked_t;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked_t *x = a, *y = b;
    if (x->stat != y->stat) return x->stat > y->stat ? -1 : 1; /* higher first */
    return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* --from-summary FILE --n N: the N variants with the highest BEST_STAT (ties
 * in file order; NA never chosen), ascending. */
static int survivors_of_summary(const es_dataset_t *ds, const char *path, uint32_t want_n,
                                uint32_t **var, uint32_t *n_var)
{
    static const char *const want[] = {"SNP", "BEST_STAT", "CHR", "POS"};
    int col[4], ret, nf;
    scanfile_t sf;
    ranked_t *rk = NULL;
    size_t n_rk = 0, cap = 0;
    uint32_t nv = es_dataset_n_variants(ds);
    uint8_t *seen = calloc(nv ? nv : 1, 1);
    char *f[64], *e;
    *var = NULL;
    *n_var = 0;
    if (!seen) return ES_ERR_NOMEM;
    if ((ret = scanfile_open(&sf, ds, path, "per-variant summary (.summary.tsv)", want, col, 4,
                             "the PREFIX.summary.tsv of 'epistream scan'")))
        goto out;
    while ((nf = scanfile_next(&sf, path, f, __func__)) > 0) {
        uint32_t v;
        const char *st = f[col[1]];
        if (strcmp(st, "NA") == 0) continue; /* no pair tested */
        errno = 0;
        double x = strtod(st, &e);
        if (e == st || *e || errno == ERANGE || isnan(x)) {
            es_error("%s: line %" PRIu64 ": BEST_STAT '%s' is not a number", path, sf.line, st);
            ret = ES_ERR_FORMAT;
            goto out;
        }
        if ((ret = map_variant(ds, &sf.ix, path, sf.line, "SNP", f[col[0]],
                               col[2] >= 0 ? f[col[2]] : NULL, col[3] >= 0 ? f[col[3]] : NULL,
                               &v)))
            goto out;
        if (seen[v]) continue;
        seen[v] = 1;
        if (n_rk == cap) {
            size_t nc = cap ? 2 * cap : 1024;
            ranked_t *nr = realloc(rk, nc * sizeof *nr);
            if (!nr) {
                ret = ES_ERR_NOMEM;
                goto out;
            }
            rk = nr;
            cap = nc;
        }
        rk[n_rk] = (ranked_t){x, n_rk, v};
        n_rk++;
    }
    if (nf < 0) {
        ret = ES_ERR_FORMAT;
        goto out;
    }
    if (!n_rk) {
        es_error("%s: no variant with a BEST_STAT (every line is NA or the file has no lines "
                 "after the header)", path);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    if (n_rk < want_n)
        es_warn("%s: --n %u but only %zu variants have a BEST_STAT: taking them all", path,
                want_n, n_rk);
    qsort(rk, n_rk, sizeof *rk, cmp_ranked);
    uint32_t n = n_rk < want_n ? (uint32_t)n_rk : want_n;
    if (!(*var = malloc(n * sizeof **var))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < n; i++) (*var)[i] = rk[i].v;
    qsort(*var, n, sizeof **var, cmp_u32);
    *n_var = n;
out:
    scanfile_close(&sf);
    free(rk);
    free(seen);
    return ret;
}

/* The public names: the two above keep theirs, which the log lines carry
 * ("[E::survivors_of_pairs] ..."). */
int es_select_read_pairs(const es_dataset_t *ds, const char *path, uint32_t **var,
                         uint32_t *n_var)
{
    return survivors_of_pairs(ds, path, var, n_var, NULL, NULL);
}

int es_select_read_pair_list(const es_dataset_t *ds, const char *path, uint32_t **pairs,
                             size_t *n_pairs)
{
    uint32_t *var = NULL, n_var = 0;
    int ret = survivors_of_pairs(ds, path, &var, &n_var, pairs, n_pairs);
    free(var);
    return ret;
}

int es_select_read_summary(const es_dataset_t *ds, const char *path, uint32_t n, uint32_t **var,
                           uint32_t *n_var)
{
    return survivors_of_summary(ds, path, n, var, n_var);
}

/* Feature names go in a tab-separated column: tabs and line breaks (possible
 * in quoted CSV headers) become spaces. */
static void put_name(FILE *fp, const char *s)
{
    for (; *s; s++) fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, fp);
}

int es_select_device(es_device_t dev, uint64_t gpu_mask)
{
    if (dev == ES_DEVICE_CPU) return -1;
    /* auto: decided when the table is known (es_mi_select_opt) */
    if (dev == ES_DEVICE_AUTO) return es_backend_gpu_count() > 0 ? ES_MI_DEVICE_AUTO : -1;
    /* the lowest GPU asked for; one that is not there is the selection's error */
    int g = 0;
    while (g < 64 && !(gpu_mask >> g & 1)) g++;
    if (g == 64) g = 0;
    /* open it while the input is read */
    const es_backend_t *be = es_backend_get(ES_DEVICE_GPU);
    if (be && be->prepare) be->prepare(g);
    return g;
}

int es_select_table(const es_dtable_t *d, es_mi_method_t m, uint32_t k, const es_select_opt_t *so,
                    FILE *fp, es_select_info_t *info)
{
    uint32_t kk = k < d->n_features ? k : d->n_features, n = 0, n2 = 0;
    double t0 = es_time_now();
    int ret = ES_OK;
    es_mi_info_t mi, mi2;
    memset(&mi, 0, sizeof mi);
    memset(&mi2, 0, sizeof mi2);
    if (k > d->n_features)
        es_warn("--k %u but there are only %u features: selecting %s", k, d->n_features,
                d->n_features ? "all of them" : "none");
    es_mi_pick_t *pick = malloc((kk ? kk : 1) * sizeof *pick);
    es_mi_pick_t *pick2 = so->fixed_point ? malloc((kk ? kk : 1) * sizeof *pick2) : NULL;
    if (!pick || (so->fixed_point && !pick2)) {
        free(pick);
        return ES_ERR_NOMEM;
    }
    if (kk && (ret = es_mi_select_opt(d, m, kk, so, pick, &n, &mi))) goto out;
    if (kk && so->fixed_point) {
        /* the same selection with double entropies, for the agreement */
        es_select_opt_t o2 = *so;
        o2.fixed_point = 0;
        o2.progress = NULL; /* a check of the first: no second progress line */
        if ((ret = es_mi_select_opt(d, m, kk, &o2, pick2, &n2, &mi2))) goto out;
        uint32_t pre, com;
        es_mi_agreement(pick, n, pick2, n2, &pre, &com);
        es_info("fixed point vs double: the first %u of %u picks agree, %u features in common",
                pre, n, com);
        if (info) {
            info->agree_prefix = pre;
            info->agree_common = com;
            info->n_double = n2;
        }
    }
    es_info("%s counted on %s", es_mi_method_name(m), mi.where);
    if (n < kk)
        es_info("%s stopped after %u of %u features: no candidate adds information",
                es_mi_method_name(m), n, kk);
    fputs("RANK\tFEATURE\tSCORE\tRELEVANCE\n", fp);
    for (uint32_t r = 0; r < n; r++) {
        const char *name = d->names && d->names[pick[r].feature] ? d->names[pick[r].feature] : "";
        fprintf(fp, "%u\t", r + 1);
        if (*name) put_name(fp, name);
        else fprintf(fp, "f%u", pick[r].feature + 1);
        /* + 0.0: no "-0" in the file */
        fprintf(fp, "\t%.12g\t%.12g\n", pick[r].score + 0.0, pick[r].relevance + 0.0);
    }
    if (ferror(fp)) ret = ES_ERR_IO;
    if (info) {
        info->n_samples = d->n_samples;
        info->n_features = d->n_features;
        info->n_classes = d->n_classes;
        info->n_selected = n;
        info->seconds += es_time_now() - t0;
        snprintf(info->where, sizeof info->where, "%s", mi.where);
        info->seconds_gpu = mi.seconds_gpu;
        info->fixed_point = so->fixed_point;
    }
out:
    free(pick);
    free(pick2);
    return ret;
}

/* One feature per variant over the samples in the analysis. */
static int variants_dtable(const es_dataset_t *ds, const uint32_t *var, uint32_t n_var,
                           int threads, es_dtable_t *d)
{
    uint32_t n_all = es_dataset_n_samples_total(ds), n = 0;
    uint32_t *used = malloc((n_all ? n_all : 1) * sizeof *used);
    int ret = ES_OK, fail = 0;
    memset(d, 0, sizeof *d);
    if (!used) return ES_ERR_NOMEM;
    for (uint32_t s = 0; s < n_all; s++)
        if (es_dataset_sample_used(ds, s)) used[n++] = s;
    d->n_samples = n;
    d->n_features = n_var;
    d->n_classes = 2;
    size_t cells = (size_t)n_var * n;
    d->x = malloc((cells ? cells : 1) * sizeof *d->x);
    d->n_states = malloc((n_var ? n_var : 1) * sizeof *d->n_states);
    d->y = malloc((n ? n : 1) * sizeof *d->y);
    d->names = calloc(n_var ? n_var : 1, sizeof *d->names);
    d->class_name = strdup("phenotype");
    if (!d->x || !d->n_states || !d->y || !d->names || !d->class_name) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < n; i++) d->y[i] = ds->status[used[i]] == 1; /* case = 1 */
    for (uint32_t f = 0; f < n_var; f++)
        if (!(d->names[f] = strdup(es_dataset_variant(ds, var[f]).id))) {
            ret = ES_ERR_NOMEM;
            goto out;
        }
    int nt = threads;
#ifdef _OPENMP
    if (nt <= 0) nt = omp_get_max_threads();
#endif
    if (nt <= 0) nt = 1;
#pragma omp parallel num_threads(nt)
    {
        uint8_t *g = malloc(n_all ? n_all : 1);
        if (!g) {
#pragma omp atomic write
            fail = 1;
        }
#pragma omp for schedule(dynamic, 16)
        for (uint32_t f = 0; f < n_var; f++) {
            if (!g || es_dataset_decode(ds, var[f], g) != ES_OK) {
#pragma omp atomic write
                fail = 1;
                continue;
            }
            uint16_t *x = d->x + (size_t)f * n;
            uint32_t miss = 0;
            for (uint32_t i = 0; i < n; i++) {
                x[i] = g[used[i]]; /* 0, 1, 2 copies of A1; 3 missing */
                miss |= x[i] == 3;
            }
            d->n_states[f] = 3 + miss;
        }
        free(g);
    }
    if (fail) ret = ES_ERR_NOMEM;
out:
    free(used);
    if (ret) es_dtable_free(d);
    return ret;
}

int es_select_variants(const es_dataset_t *ds, const uint32_t *var, uint32_t n_var,
                       es_mi_method_t m, uint32_t k, const es_select_opt_t *so, FILE *fp,
                       es_select_info_t *info)
{
    es_dtable_t d;
    double t0 = es_time_now();
    int ret = variants_dtable(ds, var, n_var, so->threads, &d);
    if (ret) return ret;
    if (info) info->seconds = es_time_now() - t0;
    ret = es_select_table(&d, m, k, so, fp, info);
    es_dtable_free(&d);
    return ret;
}

void es_select_write_log(FILE *fp, es_mi_method_t m, uint32_t k, const es_select_info_t *info)
{
    fprintf(fp, "select_method\t%s\n", es_mi_method_name(m));
    fprintf(fp, "select_k\t%u\n", k);
    fprintf(fp, "select_samples\t%u\n", info->n_samples);
    fprintf(fp, "select_features\t%u\n", info->n_features);
    fprintf(fp, "select_classes\t%u\n", info->n_classes);
    fprintf(fp, "selected\t%u\n", info->n_selected);
    fprintf(fp, "select_device\t%s\n", info->where);
    if (info->where[0] == 'g') fprintf(fp, "seconds_select_gpu\t%.3f\n", info->seconds_gpu);
    fprintf(fp, "select_entropy\t%s\n", info->fixed_point ? "fixed-point Q5.11" : "double");
    if (info->fixed_point)
        fprintf(fp, "fixed_point_agreement\t%u of %u picks equal from rank 1 (double: %u picks, "
                    "%u features in common)\n",
                info->agree_prefix, info->n_selected, info->n_double, info->agree_common);
    fprintf(fp, "seconds_select\t%.3f\n", info->seconds);
}
