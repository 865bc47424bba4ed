/* filter.c -- sample and variant filters: --keep/--remove, --chr,
 * --from/--to, --snps, --extract/--exclude, --mind, --geno, --hwe and --maf.
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
#include <math.h>
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

/* Threads for a filter's parallel loop: threads <= 0 asks for OpenMP's
 * default (1 without OpenMP). */
static int filter_threads(int threads)
{
#ifdef _OPENMP
    return threads > 0 ? threads : omp_get_max_threads();
#else
    (void)threads;
    return 1;
#endif
}

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

/* f(key, ud) for each variant's chromosome, as a malloc'd array (NULL when
 * out of memory).  Variants come in runs of one chromosome: f runs once a run. */
static uint8_t *chr_map(const es_fileset_t *p, uint8_t (*f)(const chr_key_t *k, void *ud),
                        void *ud)
{
    uint8_t *out = malloc(p->n_variants ? p->n_variants : 1);
    if (!out) return NULL;
    const char *last = NULL;
    uint8_t val = 0;
    for (uint32_t v = 0; v < p->n_variants; v++) {
        if (!last || strcmp(last, p->chr[v]) != 0) {
            last = p->chr[v];
            chr_key_t k = chr_key(last);
            val = f(&k, ud);
        }
        out[v] = val;
    }
    return out;
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

/* --chr: whether a chromosome is in the set; marks the items it matches. */
typedef struct {
    const es_chrset_t *cs;
    uint8_t *hit;
} chr_in_t;

static uint8_t chr_in(const chr_key_t *k, void *ud)
{
    chr_in_t *c = ud;
    uint8_t in = 0;
    for (uint32_t i = 0; i < c->cs->n_item; i++) {
        if (item_match(&c->cs->item[i], k)) {
            c->hit[i] = 1;
            in = 1;
        }
    }
    return in;
}

int es_filter_chr(const char *list, const es_fileset_t *p, uint8_t *vkeep, uint32_t *n_removed)
{
    int ret = ES_OK;
    es_chrset_t cs;
    uint8_t *hit = NULL, *in = NULL;
    char b1[32], b2[32];

    *n_removed = 0;
    if ((ret = es_chrset_parse(&cs, list)) != ES_OK) return ret;
    chr_in_t ud = {&cs, NULL};
    if (!(hit = ud.hit = calloc(cs.n_item, 1)) || !(in = chr_map(p, chr_in, &ud))) {
        es_error("out of memory applying --chr");
        ret = ES_ERR_NOMEM;
        goto out;
    }
    uint32_t removed = 0;
    for (uint32_t v = 0; v < p->n_variants; v++) {
        if (!in[v] && vkeep[v]) {
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
    free(in);
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

/* ---- --snps and --from/--to ---------------------------------------------------- */

/* The one variant that a --snps, --from or --to ID names: ES_OK and *v, or
 * ES_ERR_ARG naming the ID when it is not in the input, when vkeep (if given)
 * has already left it out (only --chr runs before --snps), or when the ID is
 * not unique (PLINK 1.9 refuses duplicate IDs here too). */
static int find_unique_id(const char *opt, const char *id, const es_fileset_t *p,
                          const es_strindex_t *by_id, const uint8_t *vkeep, uint32_t *v)
{
    uint32_t s = es_strindex_find(by_id, id, NULL);
    if (s == ES_NO_ITEM) {
        es_error("%s: variant '%s' is not in %s", opt, id, variant_src(p));
        return ES_ERR_ARG;
    }
    if (by_id->next[s] != ES_NO_ITEM) {
        es_error("%s: variant ID '%s' appears more than once in %s; %s needs unique IDs (use "
                 "--extract with a list instead)", opt, id, variant_src(p), opt);
        return ES_ERR_ARG;
    }
    if (vkeep && !vkeep[s]) {
        es_error("%s: variant '%s' is on chromosome %s, which --chr leaves out", opt, id,
                 p->chr[s]);
        return ES_ERR_ARG;
    }
    *v = s;
    return ES_OK;
}

/* Trim blanks at both ends of [s, e) in place; @return the new start and
 * NUL-terminate at the new end. */
static char *trim(char *s, char *e)
{
    while (s < e && es_is_blank(*s)) s++;
    while (e > s && es_is_blank(e[-1])) e--;
    *e = '\0';
    return s;
}

int es_filter_snps(const char *list, const es_fileset_t *p, const es_strindex_t *by_id,
                   uint8_t *vkeep, uint32_t *n_removed)
{
    int ret = ES_OK;
    size_t len = strlen(list), cap = 2;
    char *buf = NULL;
    const char **name = NULL; /* the IDs as listed; a range is two consecutive names */
    uint8_t *range = NULL;    /* range[k]: name k starts a range ending at name k + 1 */
    int32_t *edge = NULL;     /* +1 where a listed span starts, -1 after it ends */
    es_strindex_t seen = {0};
    uint32_t n = p->n_variants, n_name = 0;

    *n_removed = 0;
    for (const char *c = list; *c; c++) cap += 2 * (*c == ',');
    if (!(buf = malloc(len + 1)) || !(name = malloc(cap * sizeof *name)) ||
        !(range = calloc(cap, 1)) || !(edge = calloc((size_t)n + 1, sizeof *edge))) {
        es_error("out of memory applying --snps");
        ret = ES_ERR_NOMEM;
        goto out;
    }
    memcpy(buf, list, len + 1);
    /* "ID", "ID1-ID2" (a span in file order, either way round), comma
     * separated; empty items are skipped as PLINK does */
    for (char *s = buf;;) {
        char *comma = strchr(s, ',');
        char *e = comma ? comma : s + strlen(s);
        char *item = trim(s, e);
        if (*item) {
            char *dash = strchr(item, '-');
            if (dash) {
                char *b = trim(dash + 1, dash + 1 + strlen(dash + 1));
                char *a = trim(item, dash);
                if (!*a || !*b || strchr(b, '-')) {
                    es_error("--snps '%s': '%s-%s' is neither a variant ID nor a range ID1-ID2 "
                             "(list IDs that contain '-' in an --extract file)", list, a, b);
                    ret = ES_ERR_ARG;
                    goto out;
                }
                range[n_name] = 1;
                name[n_name++] = a;
                name[n_name++] = b;
            } else {
                name[n_name++] = item;
            }
        }
        if (!comma) break;
        s = comma + 1;
    }
    if (n_name == 0) {
        es_error("--snps '%s': no variant ID (expected e.g. rs1-rs5,rs9)", list);
        ret = ES_ERR_ARG;
        goto out;
    }
    /* a name listed twice is an error in PLINK 1.9; say which */
    if ((ret = es_strindex_build(&seen, name, NULL, n_name)) != ES_OK) goto out;
    for (uint32_t k = 0; k < n_name; k++) {
        if (seen.next[k] != ES_NO_ITEM) {
            es_error("--snps '%s': '%s' is listed more than once", list, name[k]);
            ret = ES_ERR_ARG;
            goto out;
        }
    }
    for (uint32_t k = 0; k < n_name; k++) {
        uint32_t lo, hi;
        if ((ret = find_unique_id("--snps", name[k], p, by_id, vkeep, &lo)) != ES_OK) goto out;
        hi = lo;
        if (range[k]) {
            if ((ret = find_unique_id("--snps", name[++k], p, by_id, vkeep, &hi)) != ES_OK)
                goto out;
            if (lo > hi) {
                uint32_t t = lo;
                lo = hi;
                hi = t;
            }
        }
        edge[lo]++;
        edge[hi + 1]--;
    }
    uint32_t removed = 0;
    int64_t depth = 0;
    for (uint32_t v = 0; v < n; v++) {
        depth += edge[v];
        if (depth == 0 && vkeep[v]) {
            vkeep[v] = 0;
            removed++;
        }
    }
    *n_removed = removed;
out:
    es_strindex_free(&seen);
    free(edge);
    free(range);
    free(name);
    free(buf);
    return ret;
}

/* Chromosome keys name the same chromosome ("chr1" and "1" do). */
static int same_chr(const chr_key_t *a, const chr_key_t *b)
{
    if (a->numeric != b->numeric) return 0;
    return a->numeric ? a->code == b->code : strcmp(a->name, b->name) == 0;
}

static uint8_t chr_is(const chr_key_t *k, void *ud)
{
    return (uint8_t)same_chr(k, ud);
}

int es_filter_from_to(const char *from, const char *to, const es_fileset_t *p,
                      const es_strindex_t *by_id, uint8_t *vkeep, int64_t *lo_out,
                      int64_t *hi_out, uint32_t *n_removed)
{
    int ret;
    uint32_t vf = 0, vt = 0;

    *n_removed = 0;
    if (!from && !to) return ES_OK;
    if (from && (ret = find_unique_id("--from", from, p, by_id, NULL, &vf)) != ES_OK) return ret;
    if (to && (ret = find_unique_id("--to", to, p, by_id, NULL, &vt)) != ES_OK) return ret;
    chr_key_t k = chr_key(p->chr[from ? vf : vt]);
    if (from && to) {
        chr_key_t kt = chr_key(p->chr[vt]);
        if (!same_chr(&k, &kt)) {
            es_error("--from %s is on chromosome %s but --to %s on chromosome %s; both must be "
                     "on one chromosome", from, p->chr[vf], to, p->chr[vt]);
            return ES_ERR_ARG;
        }
    }
    /* PLINK 1.9: the positions of the two variants bound a window on their
     * chromosome (0 and the end when one is not given), in either order */
    int64_t lo = from ? p->pos[vf] : 0, hi = to ? p->pos[vt] : INT64_MAX;
    if (lo > hi) {
        int64_t t = lo;
        lo = hi;
        hi = t;
    }
    uint8_t *on = chr_map(p, chr_is, &k);
    if (!on) {
        es_error("out of memory applying --from/--to");
        return ES_ERR_NOMEM;
    }
    uint32_t removed = 0;
    for (uint32_t v = 0; v < p->n_variants; v++) {
        if (vkeep[v] && !(on[v] && p->pos[v] >= lo && p->pos[v] <= hi)) {
            vkeep[v] = 0;
            removed++;
        }
    }
    free(on);
    if (lo_out) *lo_out = lo;
    if (hi_out) *hi_out = hi;
    *n_removed = removed;
    return ES_OK;
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
    int nt = filter_threads(threads);
    (void)nt; /* unused without OpenMP */
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

/* ---- --mind and --hwe ----------------------------------------------------------- */

/* PLINK 1.9 compares its thresholds with this slack (SMALL_EPSILON, 2^-44),
 * so that a threshold written in decimal does not miss a value it equals. */
#define PLINK_EPSILON (1.0 / 17592186044416.0)

/* Chromosome classes that PLINK 1.9 treats apart (human numbering). */
enum { CHR_OTHER, CHR_X, CHR_Y, CHR_MT };

static uint8_t chr_class(const chr_key_t *k, void *ud)
{
    (void)ud;
    return !k->numeric ? CHR_OTHER
           : k->code == 23 ? CHR_X
           : k->code == 24 ? CHR_Y
           : k->code == 26 ? CHR_MT
                           : CHR_OTHER;
}

/* The class of each variant; NULL when out of memory. */
static uint8_t *chr_classes(const es_fileset_t *p)
{
    return chr_map(p, chr_class, NULL);
}

/* Each sample's even bit (its low code bit in a .bed row) where take(s) holds,
 * in nw 64-bit words built through a byte view (see qc_row_body). */
static void sample_mask(uint64_t *m, size_t nw, uint32_t n, const int8_t *status,
                        const int8_t *sex, const uint8_t *founder, int want)
{
    uint8_t *b = (uint8_t *)m;
    memset(m, 0, nw * sizeof *m);
    for (uint32_t s = 0; s < n; s++) {
        if (status[s] == -2) continue;
        int male = sex && sex[s] == 1, is_founder = !founder || founder[s];
        int take = want == 0   ? 1                                    /* every sample left */
                   : want == 1 ? male                                 /* males */
                   : want == 2 ? is_founder                           /* founders */
                   : want == 3 ? is_founder && status[s] == 0         /* founder controls */
                   : want == 4 ? is_founder && !male                  /* non-male founders */
                               : is_founder && !male && status[s] == 0; /* ... controls */
        if (take) b[s / 4] |= (uint8_t)(1u << (2 * (s % 4)));
    }
}

/* Words of samples per block in es_filter_mind(): 32 words = 1,024 samples,
 * 256 bytes of each row, so a block's rows stay in cache lines it reads whole. */
#define MIND_BLOCK_WORDS 32

int es_filter_mind(const es_fileset_t *p, const uint8_t *vkeep, double mind, int threads,
                   int8_t *status, uint32_t *n_removed)
{
    int ret = ES_OK;
    size_t bpv = p->bytes_per_variant, nw = (bpv + 7) / 8, full = bpv / 8;
    uint32_t n = p->n_samples, *miss = NULL, *rows = NULL;
    uint64_t *all = NULL, *male = NULL;
    uint8_t *cls = NULL;
    uint64_t n_var = 0, n_nony = 0;

    *n_removed = 0;
    if (!(mind < 1)) return ES_OK;
    if (!(miss = calloc(n ? n + 32 : 1, sizeof *miss)) ||
        !(all = calloc(nw + 1, sizeof *all)) || !(male = calloc(nw + 1, sizeof *male)) ||
        !(cls = chr_classes(p)) || !(rows = malloc((p->n_variants + 1) * sizeof *rows))) {
        es_error("out of memory applying --mind");
        ret = ES_ERR_NOMEM;
        goto out;
    }
    sample_mask(all, nw, n, status, p->fam_sex, NULL, 0);
    sample_mask(male, nw, n, status, p->fam_sex, NULL, 1);
    for (uint32_t v = 0; v < p->n_variants; v++) {
        if (!vkeep[v]) continue;
        rows[n_var++] = v;
        n_nony += cls[v] != CHR_Y;
    }
    /* Missing calls (code 01) per sample.  Blocks of sample words are
     * independent, so threads share no counter. */
    int64_t n_block = (int64_t)((nw + MIND_BLOCK_WORDS - 1) / MIND_BLOCK_WORDS);
    int nt = filter_threads(threads);
    (void)nt; /* unused without OpenMP */
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (n_block > 1 && n_var > 64)
    for (int64_t blk = 0; blk < n_block; blk++) {
        size_t w0 = (size_t)blk * MIND_BLOCK_WORDS, w1 = w0 + MIND_BLOCK_WORDS;
        if (w1 > nw) w1 = nw;
        for (uint64_t i = 0; i < n_var; i++) {
            const uint8_t *row = es_fileset_row(p, rows[i]);
            const uint64_t *m = cls[rows[i]] == CHR_Y ? male : all;
            for (size_t w = w0; w < w1; w++) {
                uint64_t x = 0;
                memcpy(&x, row + 8 * w, w < full ? 8 : bpv - 8 * full);
                uint64_t hit = x & ~(x >> 1) & m[w];
                while (hit) {
                    miss[32 * w + (size_t)__builtin_ctzll(hit) / 2]++;
                    hit &= hit - 1;
                }
            }
        }
    }
    /* PLINK 1.9: a sample goes when its missing calls exceed the truncated
     * rate x variants; non-males are not counted on chrY, so their variants
     * are the non-Y ones. */
    uint64_t lim_male = (uint64_t)(mind * (double)n_var * (1 + PLINK_EPSILON));
    uint64_t lim_other = (uint64_t)(mind * (double)n_nony * (1 + PLINK_EPSILON));
    uint32_t removed = 0;
    for (uint32_t s = 0; s < n; s++) {
        if (status[s] == -2) continue;
        int is_male = p->fam_sex && p->fam_sex[s] == 1;
        if (miss[s] > (is_male ? lim_male : lim_other)) {
            status[s] = -2;
            removed++;
        }
    }
    *n_removed = removed;
out:
    free(rows);
    free(cls);
    free(male);
    free(all);
    free(miss);
    return ret;
}

/* Add the term t (a probability relative to the observed count's) to the
 * tail when it is no more likely, ties within rounding included, else to
 * the centre.  @return 1 when the walk may stop (a tail term no longer
 * changes the sum; the next ones are smaller), -1 when the centre overflowed
 * (p = 0), 0 to go on. */
static int hwe_add(double t, double *tail, double *centre)
{
    if (t < 1 + 1e-12) {
        double before = *tail;
        *tail += t;
        return *tail == before;
    }
    *centre += t;
    return *centre == INFINITY ? -1 : 0;
}

double es_hwe_exact_p(uint32_t het, uint32_t hom1, uint32_t hom2)
{
    /* Wigginton, Cutler and Abecasis (2005): given the allele counts, the
     * probability of h heterozygotes follows
     *     P(h + 2) / P(h) = 4 homr(h) homc(h) / ((h + 2)(h + 1)),
     * homr, homc = the homozygote counts that keep the allele counts.  The
     * p-value is the mass of the het counts no more likely than the observed
     * one.  As in PLINK 1.9, probabilities are taken relative to the observed
     * one (1): walking away from it, terms below 1 (ties included) are tail,
     * the others centre; a tail is left once its terms no longer change the
     * sum, and a centre that overflows means p = 0. */
    double homr = hom1 < hom2 ? hom1 : hom2, homc = hom1 < hom2 ? hom2 : hom1;
    double h0 = het;
    if (het == 0 && homr == 0) return 1; /* monomorphic (or no genotype): no test */
    double tail = 1, centre = 0;
    int st = 0;
    /* upwards: h + 2, h + 4, ... while a rare homozygote is left */
    double t = 1, h = h0, r = homr, c = homc;
    while (r > 0.5 && st == 0) {
        t *= 4 * r * c / ((h + 2) * (h + 1));
        h += 2;
        r -= 1;
        c -= 1;
        st = hwe_add(t, &tail, &centre);
    }
    /* downwards: h - 2, h - 4, ... while two heterozygotes are left */
    t = 1, h = h0, r = homr, c = homc;
    while (h > 1.5 && st >= 0) {
        r += 1;
        c += 1;
        t *= h * (h - 1) / (4 * r * c);
        h -= 2;
        if ((st = hwe_add(t, &tail, &centre)) > 0) break;
    }
    if (st < 0) return 0;
    double pv = tail / (tail + centre);
    return pv > 1 ? 1 : pv;
}

int es_filter_hwe(const es_fileset_t *p, const int8_t *status, double hwe, int all, int threads,
                  uint8_t *vkeep, uint32_t *n_removed, int *used_all)
{
    int ret = ES_OK;
    size_t bpv = p->bytes_per_variant, full = bpv / 8, tail = bpv % 8;
    uint64_t *mA = NULL, *mX = NULL;
    uint8_t *cls = NULL;

    *n_removed = 0;
    if (!(hwe > 0)) return ES_OK;
    /* PLINK 1.9 tests the founder controls when there are controls (with
     * a case/control phenotype), and every founder otherwise or with
     * 'include-nonctrl' (all); chrX counts the non-male ones only, and chrY
     * and chrMT are not tested. */
    if (!all) {
        all = 1;
        for (uint32_t s = 0; s < p->n_samples; s++) {
            if (status[s] == 0) {
                all = 0;
                break;
            }
        }
    }
    if (used_all) *used_all = all;
    if (!(mA = calloc(full + 1, sizeof *mA)) || !(mX = calloc(full + 1, sizeof *mX)) ||
        !(cls = chr_classes(p))) {
        es_error("out of memory applying --hwe");
        ret = ES_ERR_NOMEM;
        goto out;
    }
    sample_mask(mA, full + 1, p->n_samples, status, p->fam_sex, p->fam_founder, all ? 2 : 3);
    sample_mask(mX, full + 1, p->n_samples, status, p->fam_sex, p->fam_founder, all ? 4 : 5);
    uint64_t nA = 0, nX = 0;
    for (size_t w = 0; w <= full; w++) {
        nA += (uint64_t)__builtin_popcountll(mA[w]);
        nX += (uint64_t)__builtin_popcountll(mX[w]);
    }
    qc_row_fn row_fn = qc_row_select();
    double lim = hwe * (1 - PLINK_EPSILON);
    uint64_t r_ct = 0;
    int64_t nv = p->n_variants;
    int nt = filter_threads(threads);
    (void)nt; /* unused without OpenMP */
#pragma omp parallel for schedule(dynamic, QC_CHUNK) num_threads(nt) reduction(+ : r_ct) \
    if (nv > 4 * QC_CHUNK)
    for (int64_t v = 0; v < nv; v++) {
        if (!vkeep[v] || cls[v] == CHR_Y || cls[v] == CHR_MT) continue;
        int x = cls[v] == CHR_X;
        qc_counts_t c = row_fn(es_fileset_row(p, (uint32_t)v), x ? mX : mA, full, tail);
        uint64_t hom1 = (x ? nX : nA) - c.miss - c.het - c.hom2;
        if (es_hwe_exact_p((uint32_t)c.het, (uint32_t)hom1, (uint32_t)c.hom2) < lim) {
            vkeep[v] = 0;
            r_ct++;
        }
    }
    *n_removed = (uint32_t)r_ct;
out:
    free(cls);
    free(mX);
    free(mA);
    return ret;
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
