/* filter.c -- sample and variant filters: --keep/--remove, --chr,
 * --extract/--exclude, --geno and --maf.
 *
 * Every filter marks, none copies: samples get status -2 (removed), variants
 * a 0 in a keep mask over the source rows, and es_filter_compact() turns the
 * mask into var_src once at the end, so the .bed rows (or the VCF rows in
 * memory) are never rewritten.  ID lists are matched through hash indexes of
 * the input's IDs, so a list costs O(lines + input), never lines x input.
 * --geno/--maf count genotype classes straight from the 2-bit rows, 32
 * samples per word, in parallel over variants. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "formats.h"

/* Variants per OpenMP chunk in es_filter_qc(): rows are a few KB each, so a
 * chunk is enough work to amortise scheduling. */
#define QC_CHUNK 256

/* Name of the input for messages: the VCF reader stores its path in the
 * same fields as the .bim/.fam paths. */
static const char *sample_src(const es_fileset_t *p)
{
    return p->fam_path ? p->fam_path : "the input";
}

static const char *variant_src(const es_fileset_t *p)
{
    return p->bim_path ? p->bim_path : "the input";
}

/* ---- --keep / --remove ------------------------------------------------------- */

/* A first line naming the columns: 2 for "FID IID ..." or PLINK 2's
 * "#FID IID ...", 1 for "IID ..." or "#IID ..." (then every line is read as
 * IID first, whatever follows), 0 for a data line. */
static int sample_header(char **f, int nf)
{
    if (nf >= 2 && (strcasecmp(f[0], "FID") == 0 || strcasecmp(f[0], "#FID") == 0) &&
        strcasecmp(f[1], "IID") == 0)
        return 2;
    if (strcasecmp(f[0], "IID") == 0 || strcasecmp(f[0], "#IID") == 0) return 1;
    return 0;
}

int es_filter_samples(const char *path, int keep, const es_fileset_t *p,
                      const es_strindex_t *by_pair, const es_strindex_t *by_iid, int8_t *status,
                      uint32_t *n_removed)
{
    int ret = ES_OK;
    char *text = NULL;
    uint8_t *listed = NULL;
    size_t len;
    uint64_t lines = 0, unknown_ct = 0, unknown_line = 0, multi_ct = 0, multi_line = 0;
    const char *unknown_id = "", *unknown_id2 = "", *multi_id = "";
    const char *opt = keep ? "--keep" : "--remove";
    char b1[32], b2[32], b3[32];

    *n_removed = 0;
    if ((ret = es_text_read(path, keep ? "--keep sample list" : "--remove sample list", &text,
                            &len)) != ES_OK)
        goto out;
    if (!(listed = calloc(p->n_samples ? p->n_samples : 1, 1))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    char *q = text, *end = text + len, *le, *ls;
    int first = 1, iid_only = 0;
    for (uint64_t line = 1; (ls = es_next_line(&q, end, &le)) != NULL; line++) {
        char *f[2];
        int nf = es_split_fields(ls, le, f, 2);
        if (nf == 0) continue;
        if (first) {
            first = 0;
            int h = sample_header(f, nf);
            iid_only = h == 1;
            if (h) continue;
        }
        if (iid_only) nf = 1;
        lines++;
        uint32_t s;
        if (nf == 1) {
            /* IID alone: every sample with this IID, whatever its family;
             * one warning when that is more than one family */
            s = es_strindex_find(by_iid, f[0], NULL);
            if (s != ES_NO_ITEM) {
                for (uint32_t t = by_iid->next[s]; t != ES_NO_ITEM; t = by_iid->next[t]) {
                    if (strcmp(p->fid[t], p->fid[s]) != 0) {
                        if (multi_ct++ == 0) {
                            multi_id = f[0];
                            multi_line = line;
                        }
                        break;
                    }
                }
            }
            for (uint32_t t = s; t != ES_NO_ITEM; t = by_iid->next[t]) listed[t] = 1;
        } else {
            s = es_strindex_find(by_pair, f[0], f[1]);
            for (uint32_t t = s; t != ES_NO_ITEM; t = by_pair->next[t]) listed[t] = 1;
        }
        if (s == ES_NO_ITEM && unknown_ct++ == 0) {
            unknown_id = f[0];
            unknown_id2 = nf == 1 ? "" : f[1];
            unknown_line = line;
        }
    }
    if (unknown_ct)
        es_warn("%s: %s of %s listed sample%s %s not in %s (ignored); first: '%s%s%s' on line "
                "%" PRIu64, path, es_fmt_count(unknown_ct, b1), es_fmt_count(lines, b2),
                lines == 1 ? "" : "s", unknown_ct == 1 ? "is" : "are", sample_src(p), unknown_id,
                *unknown_id2 ? " " : "", unknown_id2, unknown_line);
    if (multi_ct)
        es_warn("%s: %s IID-only line%s matched samples of more than one family (all of them "
                "are %s); first: '%s' on line %" PRIu64 "; give 'FID IID' to pick one",
                path, es_fmt_count(multi_ct, b1), multi_ct == 1 ? "" : "s",
                keep ? "kept" : "removed", multi_id, multi_line);
    uint32_t removed = 0;
    for (uint32_t s = 0; s < p->n_samples; s++) {
        if ((keep ? !listed[s] : listed[s]) && status[s] != -2) {
            status[s] = -2;
            removed++;
        }
    }
    *n_removed = removed;
    es_info("%s %s: %s of %s listed samples found; %s sample%s removed", opt, path,
            es_fmt_count(lines - unknown_ct, b1), es_fmt_count(lines, b2),
            es_fmt_count(removed, b3), removed == 1 ? "" : "s");
out:
    if (ret == ES_ERR_NOMEM) es_error("%s: out of memory reading the %s list", path, opt);
    free(listed);
    free(text);
    return ret;
}

/* ---- --chr ------------------------------------------------------------------- */

/* Number of the chromosome code s[0..n) (no "chr" prefix): digits, or the
 * aliases X 23, Y 24, XY 25, MT/M 26 (PLINK's numbering).
 * @return 0 and *code, or -1 if s is not a code */
static int chr_number(const char *s, size_t n, uint32_t *code)
{
    static const struct {
        const char *name;
        uint32_t code;
    } alias[] = {{"X", 23}, {"Y", 24}, {"XY", 25}, {"MT", 26}, {"M", 26}};
    if (n == 0) return -1;
    if (n <= 9 && strspn(s, "0123456789") >= n) {
        uint32_t v = 0;
        for (size_t i = 0; i < n; i++) v = v * 10 + (uint32_t)(s[i] - '0');
        *code = v;
        return 0;
    }
    for (size_t a = 0; a < sizeof alias / sizeof alias[0]; a++) {
        if (strlen(alias[a].name) == n && strncasecmp(s, alias[a].name, n) == 0) {
            *code = alias[a].code;
            return 0;
        }
    }
    return -1;
}

/* Skip a "chr" prefix (any case) when something follows it. */
static const char *strip_chr(const char *s, size_t *n)
{
    if (*n > 3 && strncasecmp(s, "chr", 3) == 0) {
        *n -= 3;
        return s + 3;
    }
    return s;
}

/* A data chromosome, normalised once: numeric code, or name. */
typedef struct {
    int numeric;
    uint32_t code;
    const char *name;
} chr_key_t;

static chr_key_t chr_key(const char *chr)
{
    chr_key_t k = {0, 0, NULL};
    size_t n = strlen(chr);
    const char *s = strip_chr(chr, &n);
    if (chr_number(s, n, &k.code) == 0) k.numeric = 1;
    else k.name = s;
    return k;
}

static int item_match(const es_chritem_t *it, const chr_key_t *k)
{
    if (it->name) return !k->numeric && strcmp(it->name, k->name) == 0;
    return k->numeric && k->code >= it->lo && k->code <= it->hi;
}

int es_chrset_parse(es_chrset_t *cs, const char *list)
{
    int ret = ES_OK;
    memset(cs, 0, sizeof *cs);
    size_t len = strlen(list), cap = 1;
    for (const char *c = list; *c; c++) cap += *c == ',';
    if (!(cs->buf = malloc(len + 1)) || !(cs->item = calloc(cap, sizeof *cs->item))) {
        es_error("out of memory parsing --chr '%s'", list);
        ret = ES_ERR_NOMEM;
        goto out;
    }
    memcpy(cs->buf, list, len + 1);
    for (char *s = cs->buf;;) {
        char *comma = strchr(s, ',');
        char *e = comma ? comma : s + strlen(s);
        while (s < e && es_is_blank(*s)) s++;
        while (e > s && es_is_blank(e[-1])) e--;
        int last = comma == NULL;
        *e = '\0';
        es_chritem_t *it = &cs->item[cs->n_item];
        it->text = s;
        if (s == e) {
            es_error("--chr '%s': empty item (expected a comma-separated list such as "
                     "1-4,7,X)", list);
            ret = ES_ERR_ARG;
            goto out;
        }
        /* A '-' makes a range; a name such as "HLA-A" whose ends are both
         * not codes stays a name, but a '-' at either end is a broken range. */
        char *dash = strchr(s, '-');
        uint32_t lo, hi;
        size_t ln = (size_t)((dash ? dash : e) - s), hn = dash ? (size_t)(e - dash - 1) : 0;
        const char *ls = strip_chr(s, &ln);
        const char *hs = dash ? strip_chr(dash + 1, &hn) : NULL;
        int lo_ok = chr_number(ls, ln, &lo) == 0, hi_ok = dash && chr_number(hs, hn, &hi) == 0;
        if (!dash && lo_ok) {
            it->lo = it->hi = lo;
        } else if (dash && lo_ok && hi_ok) {
            if (lo > hi) {
                es_error("--chr '%s': range '%s' runs backwards (%u > %u; X=23, Y=24, XY=25, "
                         "MT=26)", list, s, lo, hi);
                ret = ES_ERR_ARG;
                goto out;
            }
            it->lo = lo;
            it->hi = hi;
        } else if (dash && (lo_ok || hi_ok || dash == s || hn == 0)) {
            es_error("--chr '%s': range '%s' needs a chromosome number or X, Y, XY, MT at both "
                     "ends", list, s);
            ret = ES_ERR_ARG;
            goto out;
        } else {
            size_t n = (size_t)(e - s);
            it->name = strip_chr(s, &n);
        }
        cs->n_item++;
        if (last) break;
        s = comma + 1;
    }
out:
    if (ret != ES_OK) es_chrset_free(cs);
    return ret;
}

int es_chrset_has(const es_chrset_t *cs, const char *chr)
{
    chr_key_t k = chr_key(chr);
    for (uint32_t i = 0; i < cs->n_item; i++)
        if (item_match(&cs->item[i], &k)) return 1;
    return 0;
}

void es_chrset_free(es_chrset_t *cs)
{
    if (!cs) return;
    free(cs->item);
    free(cs->buf);
    memset(cs, 0, sizeof *cs);
}

int es_filter_chr(const char *list, const es_fileset_t *p, uint8_t *vkeep, uint32_t *n_removed)
{
    int ret = ES_OK;
    es_chrset_t cs;
    uint8_t *hit = NULL;
    char b1[32], b2[32];

    *n_removed = 0;
    if ((ret = es_chrset_parse(&cs, list)) != ES_OK) return ret;
    if (!(hit = calloc(cs.n_item, 1))) {
        es_error("out of memory applying --chr");
        ret = ES_ERR_NOMEM;
        goto out;
    }
    /* Variants come in runs of one chromosome: match each run once. */
    const char *last = NULL;
    int in = 0;
    uint32_t removed = 0;
    for (uint32_t v = 0; v < p->n_variants; v++) {
        if (!last || strcmp(last, p->chr[v]) != 0) {
            last = p->chr[v];
            chr_key_t k = chr_key(last);
            in = 0;
            for (uint32_t i = 0; i < cs.n_item; i++) {
                if (item_match(&cs.item[i], &k)) {
                    hit[i] = 1;
                    in = 1;
                }
            }
        }
        if (!in && vkeep[v]) {
            vkeep[v] = 0;
            removed++;
        }
    }
    uint32_t miss_ct = 0, first_miss = 0;
    for (uint32_t i = cs.n_item; i-- > 0;) {
        if (!hit[i]) {
            miss_ct++;
            first_miss = i;
        }
    }
    if (miss_ct)
        es_warn("--chr %s: %s of the %s listed item%s match%s no chromosome in %s; first: '%s'",
                list, es_fmt_count(miss_ct, b1), es_fmt_count(cs.n_item, b2),
                cs.n_item == 1 ? "" : "s", miss_ct == 1 ? "es" : "", variant_src(p),
                cs.item[first_miss].text);
    *n_removed = removed;
out:
    free(hit);
    es_chrset_free(&cs);
    return ret;
}

/* ---- --extract / --exclude -------------------------------------------------- */

int es_filter_variant_list(const char *path, int extract, const es_fileset_t *p,
                           const es_strindex_t *by_id, uint8_t *vkeep, uint32_t *n_removed)
{
    int ret = ES_OK;
    char *text = NULL;
    uint8_t *listed = NULL;
    size_t len;
    uint64_t lines = 0, unknown_ct = 0, unknown_line = 0;
    const char *unknown_id = "";
    char b1[32], b2[32];

    *n_removed = 0;
    if ((ret = es_text_read(path, extract ? "--extract variant list" : "--exclude variant list",
                            &text, &len)) != ES_OK)
        goto out;
    if (!(listed = calloc(p->n_variants ? p->n_variants : 1, 1))) {
        es_error("%s: out of memory reading the variant list", path);
        ret = ES_ERR_NOMEM;
        goto out;
    }
    char *q = text, *end = text + len, *le, *ls;
    for (uint64_t line = 1; (ls = es_next_line(&q, end, &le)) != NULL; line++) {
        char *f[1];
        if (es_split_fields(ls, le, f, 1) == 0) continue;
        lines++;
        uint32_t v = es_strindex_find(by_id, f[0], NULL);
        if (v == ES_NO_ITEM && unknown_ct++ == 0) {
            unknown_id = f[0];
            unknown_line = line;
        }
        for (; v != ES_NO_ITEM; v = by_id->next[v]) listed[v] = 1;
    }
    if (unknown_ct)
        es_warn("%s: %s of %s listed variant ID%s %s not in %s (ignored); first: '%s' on line "
                "%" PRIu64, path, es_fmt_count(unknown_ct, b1), es_fmt_count(lines, b2),
                lines == 1 ? "" : "s", unknown_ct == 1 ? "is" : "are", variant_src(p),
                unknown_id, unknown_line);
    uint32_t removed = 0;
    for (uint32_t v = 0; v < p->n_variants; v++) {
        if (vkeep[v] && (extract ? !listed[v] : listed[v])) {
            vkeep[v] = 0;
            removed++;
        }
    }
    *n_removed = removed;
out:
    free(listed);
    free(text);
    return ret;
}

/* ---- --geno / --maf ----------------------------------------------------------- */

/* 2-bit codes: 00 hom A1, 01 missing, 10 het, 11 hom A2.  With lo/hi the
 * code's low/high bit (at each sample's even bit position) and u the used
 * samples' even bits: missing = lo & ~hi, het = hi & ~lo, hom A2 = lo & hi.
 * Bits shifted across a byte boundary land on odd positions, which u never
 * has, so rows are loaded with memcpy whatever the byte order (the mask is
 * built through the same byte view). */
typedef struct {
    uint64_t miss, het, hom2;
} qc_counts_t;

static inline __attribute__((always_inline)) qc_counts_t
qc_row_body(const uint8_t *row, const uint64_t *u, size_t full, size_t tail)
{
    const uint64_t m5 = 0x5555555555555555ULL;
    qc_counts_t c = {0, 0, 0};
    size_t nw = full + (tail != 0);
    for (size_t w = 0; w < nw; w++) {
        uint64_t x = 0; /* the tail word is zero-padded; u has no bits there */
        memcpy(&x, row + 8 * w, w < full ? 8 : tail);
        uint64_t lo = x & m5 & u[w], hi = (x >> 1) & m5 & u[w];
        c.miss += (uint64_t)__builtin_popcountll(lo & ~hi);
        c.het += (uint64_t)__builtin_popcountll(hi & ~lo);
        c.hom2 += (uint64_t)__builtin_popcountll(lo & hi);
    }
    return c;
}

typedef qc_counts_t (*qc_row_fn)(const uint8_t *row, const uint64_t *u, size_t full, size_t tail);

static qc_counts_t qc_row_generic(const uint8_t *row, const uint64_t *u, size_t full, size_t tail)
{
    return qc_row_body(row, u, full, tail);
}

#if ES_CPU_X86
/* The same loop with the POPCNT instruction (the generic build calls libgcc). */
ES_TARGET_POPCNT static qc_counts_t
qc_row_popcnt(const uint8_t *row, const uint64_t *u, size_t full, size_t tail)
{
    return qc_row_body(row, u, full, tail);
}
#endif

static qc_row_fn qc_row_select(void)
{
#if ES_CPU_X86
    if (es_cpu_has(ES_CPU_POPCNT)) return qc_row_popcnt;
#endif
    return qc_row_generic;
}

int es_filter_qc(const es_fileset_t *p, const uint8_t *used, double maf, double geno, int threads,
                 uint8_t *vkeep, uint32_t *geno_removed, uint32_t *maf_removed)
{
    *geno_removed = *maf_removed = 0;
    int do_maf = maf > 0, do_geno = geno < 1;
    if (!do_maf && !do_geno) return ES_OK;

    size_t bpv = p->bytes_per_variant, full = bpv / 8, tail = bpv % 8;
    uint64_t *u = calloc(full + 1, sizeof *u);
    if (!u) {
        es_error("out of memory applying --maf/--geno");
        return ES_ERR_NOMEM;
    }
    uint8_t *ub = (uint8_t *)u;
    uint64_t n_used = 0;
    for (uint32_t s = 0; s < p->n_samples; s++) {
        if (!used[s]) continue;
        ub[s / 4] |= (uint8_t)(1u << (2 * (s % 4)));
        n_used++;
    }
    qc_row_fn row_fn = qc_row_select();
    uint64_t g_ct = 0, m_ct = 0;
    int64_t nv = p->n_variants;
#ifdef _OPENMP
    int nt = threads > 0 ? threads : omp_get_max_threads();
#else
    int nt = 1;
    (void)threads;
#endif
    (void)nt;
#pragma omp parallel for schedule(dynamic, QC_CHUNK) num_threads(nt) reduction(+ : g_ct, m_ct) \
    if (nv > 4 * QC_CHUNK)
    for (int64_t v = 0; v < nv; v++) {
        if (!vkeep[v]) continue;
        qc_counts_t c = row_fn(es_fileset_row(p, (uint32_t)v), u, full, tail);
        /* Rates as one correctly rounded division each, so a threshold
         * written in decimal compares exactly at the boundary (0.1 == 3/30). */
        if (do_geno && n_used && (double)c.miss / (double)n_used > geno) {
            vkeep[v] = 0;
            g_ct++;
            continue;
        }
        uint64_t called = n_used - c.miss;
        /* no call: no frequency, and PLINK 1.9 keeps such a variant under --maf
         * (--geno is what removes it) */
        if (do_maf && called) {
            uint64_t hom1 = called - c.het - c.hom2;
            uint64_t a1 = 2 * hom1 + c.het, a2 = 2 * c.hom2 + c.het;
            uint64_t minor = a1 < a2 ? a1 : a2;
            if ((double)minor / (double)(2 * called) < maf) {
                vkeep[v] = 0;
                m_ct++;
            }
        }
    }
    free(u);
    *geno_removed = (uint32_t)g_ct;
    *maf_removed = (uint32_t)m_ct;
    return ES_OK;
}

/* ---- compaction ------------------------------------------------------------- */

int es_filter_compact(es_fileset_t *p, const uint8_t *vkeep)
{
    uint32_t n = p->n_variants, k = 0;
    for (uint32_t v = 0; v < n; v++) k += vkeep[v] != 0;
    if (k == n) return ES_OK;
    /* A second selection composes with the first: map through the old var_src
     * (in place is safe: the destination never passes the source). */
    uint32_t *src = p->var_src;
    if (!src && !(src = malloc((k ? k : 1) * sizeof *src))) {
        es_error("out of memory selecting variants");
        return ES_ERR_NOMEM;
    }
    uint32_t d = 0;
    for (uint32_t v = 0; v < n; v++) {
        if (!vkeep[v]) continue;
        src[d] = p->var_src ? p->var_src[v] : v;
        p->chr[d] = p->chr[v];
        p->id[d] = p->id[v];
        p->a1[d] = p->a1[v];
        p->a2[d] = p->a2[v];
        p->pos[d] = p->pos[v];
        p->cm[d] = p->cm[v];
        d++;
    }
    p->var_src = src;
    p->n_variants = k;
    return ES_OK;
}
