/* vcf.c -- VCF, bgzipped VCF and BCF reader (through htslib) into .bed rows.
 *
 * The reader turns a VCF into exactly what formats/plink.c makes of a .bed
 * fileset: sample and variant tables plus one PLINK 2-bit row per variant,
 * so everything after opening (selection, packing, scans, conversion) has a
 * single code path.  The rows live in rows_owned, which bed_map points to.
 *
 * Speed.  htslib's vcf_parse() decodes every FORMAT field of every sample
 * into typed arrays; for genotypes that is most of the cost of reading a VCF
 * (about 18 ns per call on the development VM, 3.7 of 4.4 s for 2,000 samples
 * x 100,000 sites).  Text records are therefore split in two: htslib
 * parses the eight site columns (the header is switched to "no samples", so
 * vcf_parse() stops at FORMAT and leaves the sample columns untouched), and
 * the GT subfield of each sample column is read here, with a 4-byte fast
 * path for the common "0/1" shape and a full parser for everything else.
 * BCF records are decoded by htslib and their GT arrays read directly, with
 * no copy into int32 (bcf_get_genotypes would make one).  Decompression runs
 * on htslib's thread pool (`threads`), overlapping the parsing.
 *
 * Semantics (see es_vcf_open() in formats.h):
 *   - diploid calls give the ALT dosage, phased or not;
 *   - missing calls ("./.", ".|.", ".") and half-missing ones ("./1") are
 *     missing; half-missing calls are counted (PLINK 1.9 refuses them unless
 *     told --vcf-half-call);
 *   - haploid calls at a site that has diploid calls are set missing and
 *     counted; sites whose called genotypes are all haploid are skipped;
 *   - calls with more than two alleles (ploidy > 2) are set missing and
 *     counted: a diploid scan has no genotype code for them;
 *   - a site with more than two alleles is split, as bcftools norm -m- does,
 *     into one biallelic variant per ALT allele k (A1 = k, the record's ID
 *     kept): a call's genotype is its copies of k, any other ALT counting as
 *     REF, a missing allele staying missing; each such variant then follows
 *     the rules here on its own.  With ES_VCF_MULTIALLELIC_SKIP such sites
 *     are skipped instead;
 *   - records without GT are skipped;
 *   - a site whose calls are all missing is kept (all missing);
 *   - a monomorphic site (ALT ".") is kept with A1 "." (all calls 0/0;
 *     formats/bed_write.c writes it as PLINK's missing allele "0");
 *   - ID "." becomes CHR:POS:REF:ALT, so IDs stay usable for --extract;
 *   - an allele index beyond the site's alleles, a malformed GT, a wrong
 *     number of columns or a non-numeric POS is a malformed record
 *     (ES_ERR_FORMAT), reported with the file, line/record and CHR:POS.
 * Skipped multi-allelic records and records without GT are skipped after the
 * column count is checked but before their sample columns are parsed; a
 * split record's sample columns are parsed once per ALT allele. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <htslib/bgzf.h>
#include <htslib/hts_endian.h>
#include <htslib/hfile.h>
#include <htslib/hts.h>
#include <htslib/kstring.h>
#include <htslib/tbx.h>
#include <htslib/thread_pool.h>
#include <htslib/vcf.h>

#include "formats.h"

/* PLINK 2-bit codes (copies of A1 = ALT): 00 two, 01 missing, 10 one, 11 none */
#define CODE_MISSING 1u
static const uint8_t code_of_dosage[3] = {3, 2, 0};

/* Room for "CHR:POS" in messages; longer contig names are cut. */
#define LOC_LEN 160

/* One requested region, 0-based half-open, with the index's contig id. */
typedef struct {
    const char *text; /* as given, for messages */
    int tid;
    hts_pos_t beg, end;
} region_t;

/* Per-site call classes, for deciding what a site is (see the top comment). */
typedef struct {
    uint32_t dip;       /* diploid calls with at least one allele called */
    uint32_t half;      /* ... of which one allele is missing */
    uint32_t hap;       /* haploid calls with the allele called */
    uint32_t poly;      /* calls with more than two alleles, at least one called */
    uint32_t first_hap; /* sample of the first haploid call (for the message) */
} site_ct_t;

typedef struct {
    const char *path;
    htsFile *fp;
    htsThreadPool pool; /* decompression threads; pool.pool NULL when none */
    bcf_hdr_t *hdr;
    bcf1_t *rec;
    kstring_t line;
    int is_bcf;
    int gt_id;  /* BCF: header ID of the GT key, -1 if the header has none */
    uint32_t n; /* samples */
    /* where the reader is, for messages */
    uint64_t rec_no;    /* records read, the current one included */
    uint64_t line_no;   /* data lines read (text, sequential) */
    int64_t hdr_lines;  /* header lines (computed on the first error; -1 = not yet) */
    const char *region; /* region being read, or NULL when reading sequentially */
    /* progress: bytes read of the file's size */
    es_progress_cb progress;
    void *progress_ud;
    uint64_t file_size;
    uint64_t max_bytes; /* BCF: most decompressed bytes the file can hold (0: unknown) */
    int fits_err;       /* the length check's error inside an index iterator (ES_OK: none) */
    double t0, t_last;
    char loc[LOC_LEN];  /* "CHR:POS" of the current record */
    /* the fileset being built */
    es_fileset_t *p;
    size_t var_cap;    /* capacity of pos, var_off, var_rid, rows (variants) */
    uint64_t *var_off; /* arena offset of "ID\0A1\0A2\0" of each variant */
    int32_t *var_rid;  /* contig (header rid) of each variant */
    char *arena;       /* all variant strings */
    size_t arena_len, arena_cap;
    uint64_t *ctg_off; /* arena offset + 1 of each contig's name, by rid (0: not yet) */
    size_t n_ctg;
    int split; /* 1: a multi-allelic record is split into one biallelic variant per ALT */
    /* what was skipped */
    es_vcf_stats_t st;
    uint64_t half_calls, poly_calls;
    char first_multi[LOC_LEN], first_split[LOC_LEN], first_nogt[LOC_LEN], first_hapsite[LOC_LEN];
    char first_hapcall[LOC_LEN + 64], first_half[LOC_LEN + 64], first_poly[LOC_LEN + 64];
} rd_t;

/* ---- messages --------------------------------------------------------------- */

/* Header lines of a text VCF, counted by reading the file again: only on
 * the error path, so the normal path never pays for line numbers. */
static int64_t count_header_lines(const char *path)
{
    htsFile *fp = hts_open(path, "r");
    kstring_t ks = {0, 0, NULL};
    int64_t n = 0;
    if (!fp) return -1;
    while (hts_getline(fp, '\n', &ks) >= 0 && ks.l > 0 && ks.s[0] == '#')
        n++;
    free(ks.s);
    hts_close(fp);
    return n;
}

/* "line L (record N, CHR:POS)", "record N (CHR:POS)" or
 * "record at CHR:POS (region R)": where the current record is. */
static const char *where(rd_t *r, char *buf, size_t len)
{
    if (r->region) {
        snprintf(buf, len, "record at %s (region %s)", r->loc[0] ? r->loc : "?", r->region);
    } else if (!r->is_bcf) {
        if (r->hdr_lines < 0) r->hdr_lines = count_header_lines(r->path);
        if (r->hdr_lines >= 0)
            snprintf(buf, len, "line %" PRIu64 " (record %" PRIu64 ", %s)",
                     (uint64_t)r->hdr_lines + r->line_no, r->rec_no, r->loc[0] ? r->loc : "?");
        else
            snprintf(buf, len, "record %" PRIu64 " (%s)", r->rec_no, r->loc[0] ? r->loc : "?");
    } else {
        snprintf(buf, len, "record %" PRIu64 " (%s)", r->rec_no, r->loc[0] ? r->loc : "?");
    }
    return buf;
}

#define BAD_RECORD(r, ...)                                                                         \
    do {                                                                                           \
        char where_buf_[LOC_LEN + 96], what_buf_[512];                                             \
        snprintf(what_buf_, sizeof what_buf_, __VA_ARGS__);                                        \
        es_error("%s: %s: %s", (r)->path, where((r), where_buf_, sizeof where_buf_), what_buf_);   \
    } while (0)

/* Remember the first record of a category for its summary warning. */
static void note_first(char *dst, size_t len, const char *loc)
{
    if (!dst[0]) snprintf(dst, len, "%s", loc);
}

/* ---- growing storage -------------------------------------------------------- */

/* Append n bytes and a NUL to the arena; *off receives where they start. */
static int arena_put(rd_t *r, const char *s, size_t n, uint64_t *off)
{
    if (r->arena_len + n + 1 > r->arena_cap) {
        size_t cap = r->arena_cap ? r->arena_cap : 1 << 16;
        while (r->arena_len + n + 1 > cap)
            cap *= 2;
        char *a = realloc(r->arena, cap);
        if (!a) return ES_ERR_NOMEM;
        r->arena = a;
        r->arena_cap = cap;
    }
    *off = r->arena_len;
    memcpy(r->arena + r->arena_len, s, n);
    r->arena[r->arena_len + n] = '\0';
    r->arena_len += n + 1;
    return ES_OK;
}

/* Make room for one more variant: its row and its metadata.  Capacities
 * double, so a stream of unknown length costs O(1) amortised per variant. */
static int reserve_variant(rd_t *r)
{
    es_fileset_t *p = r->p;
    if (p->n_variants < r->var_cap) return ES_OK;
    if (p->n_variants >= UINT32_MAX - 1) {
        es_error("%s: more than 4,294,967,294 variants are not supported", r->path);
        return ES_ERR_FORMAT;
    }
    size_t cap = r->var_cap ? r->var_cap * 2 : 1024;
    if (cap > UINT32_MAX) cap = UINT32_MAX;
    if (cap > (SIZE_MAX - 3) / p->bytes_per_variant) return ES_ERR_NOMEM;
    uint8_t *rows = realloc(p->rows_owned, 3 + cap * p->bytes_per_variant);
    if (!rows) return ES_ERR_NOMEM;
    p->rows_owned = rows;
    int64_t *pos = realloc(p->pos, cap * sizeof *pos);
    if (!pos) return ES_ERR_NOMEM;
    p->pos = pos;
    uint64_t *off = realloc(r->var_off, cap * sizeof *off);
    if (!off) return ES_ERR_NOMEM;
    r->var_off = off;
    int32_t *rid = realloc(r->var_rid, cap * sizeof *rid);
    if (!rid) return ES_ERR_NOMEM;
    r->var_rid = rid;
    r->var_cap = cap;
    return ES_OK;
}

/* The row the current record is decoded into: the next free one.  A skipped
 * site simply leaves it to be overwritten. */
static inline uint8_t *next_row(rd_t *r)
{
    return r->p->rows_owned + 3 + (size_t)r->p->n_variants * r->p->bytes_per_variant;
}

/* Keep the current record (site strings unpacked) as the next variant, with
 * ALT allele alt_idx as A1 (1 but at a split multi-allelic site). */
static int add_variant(rd_t *r, int alt_idx)
{
    int ret;
    bcf1_t *rec = r->rec;
    es_fileset_t *p = r->p;
    int rid = rec->rid;
    uint32_t v = p->n_variants;

    if ((size_t)rid >= r->n_ctg) {
        size_t n = r->n_ctg ? r->n_ctg : 64;
        while (n <= (size_t)rid)
            n *= 2;
        uint64_t *c = realloc(r->ctg_off, n * sizeof *c);
        if (!c) return ES_ERR_NOMEM;
        memset(c + r->n_ctg, 0, (n - r->n_ctg) * sizeof *c);
        r->ctg_off = c;
        r->n_ctg = n;
    }
    if (!r->ctg_off[rid]) {
        const char *name = bcf_hdr_id2name(r->hdr, rid);
        uint64_t off;
        if ((ret = arena_put(r, name, strlen(name), &off)) != ES_OK) return ret;
        r->ctg_off[rid] = off + 1;
    }
    /* "ID\0A1\0A2\0" in one piece: one offset per variant, split at the end; the
     * variants of a split record keep its ID, as bcftools norm -m- does */
    const char *ref = rec->d.allele[0];
    const char *alt = rec->n_allele > 1 ? rec->d.allele[alt_idx] : ".";
    const char *id = rec->d.id;
    uint64_t off, o2;
    if (id[0] == '.' && id[1] == '\0') {
        /* a missing ID is named CHR:POS:REF:ALT, so --extract and the outputs
         * can still tell variants apart */
        const char *chr = bcf_hdr_id2name(r->hdr, rid);
        char num[32];
        int nn = snprintf(num, sizeof num, "%" PRId64, (int64_t)rec->pos + 1);
        size_t lc = strlen(chr), lr = strlen(ref), la = strlen(alt);
        if ((ret = arena_put(r, chr, lc, &off)) != ES_OK) return ret;
        r->arena[r->arena_len - 1] = ':'; /* overwrite the NUL: the pieces join */
        if ((ret = arena_put(r, num, (size_t)nn, &o2)) != ES_OK) return ret;
        r->arena[r->arena_len - 1] = ':';
        if ((ret = arena_put(r, ref, lr, &o2)) != ES_OK) return ret;
        r->arena[r->arena_len - 1] = ':';
        if ((ret = arena_put(r, alt, la, &o2)) != ES_OK) return ret;
    } else if ((ret = arena_put(r, id, strlen(id), &off)) != ES_OK) {
        return ret;
    }
    if ((ret = arena_put(r, alt, strlen(alt), &o2)) != ES_OK) return ret;
    if ((ret = arena_put(r, ref, strlen(ref), &o2)) != ES_OK) return ret;
    r->var_off[v] = off;
    r->var_rid[v] = rid;
    p->pos[v] = (int64_t)rec->pos + 1;
    p->n_variants = v + 1;
    return ES_OK;
}

/* ---- calls ------------------------------------------------------------------ */

/* The PLINK code of one call from its shape: ploidy, called alleles, and
 * how many of them are ALT. */
static inline uint8_t classify(uint32_t s, int ploidy, int called, int alt, site_ct_t *ct)
{
    if (called == 0) return CODE_MISSING; /* ".", "./.", ".|.", ... */
    if (ploidy == 1) {
        if (ct->hap++ == 0) ct->first_hap = s;
        return CODE_MISSING;
    }
    if (ploidy > 2) {
        ct->poly++;
        return CODE_MISSING;
    }
    ct->dip++;
    if (called < 2) {
        ct->half++;
        return CODE_MISSING;
    }
    return code_of_dosage[alt];
}

/* What to do with a decoded site: 1 keep, 0 skip (all called genotypes
 * haploid).  Counts the calls set missing at kept sites. */
static int site_verdict(rd_t *r, const site_ct_t *ct)
{
    if (ct->hap > 0 && ct->dip == 0 && ct->poly == 0) {
        r->st.haploid_sites++;
        note_first(r->first_hapsite, sizeof r->first_hapsite, r->loc);
        return 0;
    }
    if (ct->hap) {
        if (!r->first_hapcall[0])
            snprintf(r->first_hapcall, sizeof r->first_hapcall, "%s, sample %s", r->loc,
                     r->p->iid[ct->first_hap]);
        r->st.haploid_calls += ct->hap;
    }
    if (ct->half) {
        note_first(r->first_half, sizeof r->first_half, r->loc);
        r->half_calls += ct->half;
    }
    if (ct->poly) {
        note_first(r->first_poly, sizeof r->first_poly, r->loc);
        r->poly_calls += ct->poly;
    }
    return 1;
}

/* ---- text records ------------------------------------------------------------- */

/* Number of tabs in [s, end): 8 bytes at a time (rows of thousands of
 * samples are only counted for records that are skipped unparsed). */
static size_t count_tabs(const char *s, const char *end)
{
    const uint64_t ones = 0x0101010101010101ULL, low7 = 0x7f7f7f7f7f7f7f7fULL;
    size_t n = 0;
    while (end - s >= 8) {
        uint64_t x;
        memcpy(&x, s, 8);
        x ^= ones * '\t';
        /* high bit of each byte set iff that byte is non-zero (exact, no carries) */
        uint64_t nz = (((x & low7) + low7) | x) & ~low7;
        n += 8 - (size_t)__builtin_popcountll(nz);
        s += 8;
    }
    for (; s < end; s++)
        n += *s == '\t';
    return n;
}

/* Parse one GT subfield at s (it ends at ':', a tab or the line's NUL);
 * *alt counts the copies of allele alt_idx.
 * @return 0 and the call's shape, -1 bad syntax, -2 allele index out of
 *         range (*bad_allele set) */
static int parse_gt_text(const char *s, int n_allele, unsigned alt_idx, const char **stop,
                         int *ploidy, int *called, int *alt, unsigned *bad_allele)
{
    int pl = 0, c = 0, a = 0;
    for (;;) {
        if (*s == '.') {
            s++;
        } else if (*s >= '0' && *s <= '9') {
            unsigned v = 0;
            int nd = 0;
            while (*s >= '0' && *s <= '9') {
                if (nd++ < 9) v = v * 10 + (unsigned)(*s - '0');
                s++;
            }
            if (nd > 9 || v >= (unsigned)n_allele) {
                *bad_allele = nd > 9 ? 999999999u : v;
                return -2;
            }
            c++;
            a += v == alt_idx;
        } else {
            return -1;
        }
        pl++;
        if (*s == '/' || *s == '|') {
            s++;
            continue;
        }
        break;
    }
    if (*s != ':' && *s != '\t' && *s != '\0') return -1;
    *stop = s;
    *ploidy = pl;
    *called = c;
    *alt = a;
    return 0;
}

/* Shorten a field for a message: at most 40 characters up to a tab. */
static int field_len(const char *s)
{
    int n = 0;
    while (s[n] && s[n] != '\t' && n < 40)
        n++;
    return n;
}

/* Decode the sample columns of a text record into row, as copies of allele
 * alt_idx (1 but at a split multi-allelic site).  q is the first sample
 * column, end the line's end, gt_idx the position of GT among the FORMAT
 * keys.  @return ES_OK or ES_ERR_FORMAT (logged) */
static int text_samples(rd_t *r, const char *q, const char *end, int gt_idx, int n_allele,
                        int alt_idx, uint8_t *row, site_ct_t *ct)
{
    const uint32_t n = r->n;
    const int fast = gt_idx == 0 && n_allele == 2;
    unsigned acc = 0;
    for (uint32_t s = 0; s < n; s++) {
        const char *f = q;
        unsigned code;
        /* fast path: "a/b" or "a|b", a and b in {0, 1}, then ':' tab or end */
        unsigned c0 = (unsigned)(unsigned char)f[0] - '0';
        if (fast && c0 <= 1 && (f[1] == '/' || f[1] == '|') &&
            (unsigned)(unsigned char)f[2] - '0' <= 1 &&
            (f[3] == '\t' || f[3] == '\0' || f[3] == ':')) {
            code = code_of_dosage[c0 + (unsigned)(f[2] - '0')];
            ct->dip++;
            q = f + 3;
        } else {
            const char *g = f;
            int ploidy = 0, called = 0, alt = 0, k = 0;
            while (k < gt_idx) { /* to the GT subfield when it is not first */
                while (*g && *g != '\t' && *g != ':')
                    g++;
                if (*g != ':') break;
                g++;
                k++;
            }
            if (k < gt_idx) {
                /* fewer subfields than FORMAT keys: GT was dropped, so missing */
                code = CODE_MISSING;
                q = g;
            } else {
                unsigned bad = 0;
                int rc = parse_gt_text(g, n_allele, (unsigned)alt_idx, &q, &ploidy, &called,
                                       &alt, &bad);
                if (rc == -2) {
                    char alts[32];
                    snprintf(alts, sizeof alts, " and %d ALTs", n_allele - 1);
                    BAD_RECORD(r,
                               "sample %s (column %" PRIu64 "): GT '%.*s' has allele %u but "
                               "the site has %d allele%s (REF%s)",
                               r->p->iid[s], (uint64_t)s + 10, field_len(g), g, bad, n_allele,
                               n_allele == 1 ? "" : "s",
                               n_allele == 1   ? " only, ALT is '.'"
                               : n_allele == 2 ? " and one ALT"
                                               : alts);
                    return ES_ERR_FORMAT;
                }
                if (rc != 0) {
                    BAD_RECORD(r,
                               "sample %s (column %" PRIu64 "): GT '%.*s' is not a genotype "
                               "(expected allele numbers or '.' separated by '/' or '|')",
                               r->p->iid[s], (uint64_t)s + 10, field_len(g), g);
                    return ES_ERR_FORMAT;
                }
                code = classify(s, ploidy, called, alt, ct);
            }
        }
        /* to the end of this sample's column */
        if (*q == ':') {
            const char *t = memchr(q, '\t', (size_t)(end - q));
            q = t ? t : end;
        }
        if (s + 1 < n) {
            if (q >= end) {
                BAD_RECORD(r, "expected %" PRIu64 " columns (9 + %u samples) but found %" PRIu64,
                           (uint64_t)n + 9, n, (uint64_t)s + 10);
                return ES_ERR_FORMAT;
            }
            if (*q != '\t') { /* a NUL inside the line */
                BAD_RECORD(r, "sample %s (column %" PRIu64 "): NUL byte in the text", r->p->iid[s],
                           (uint64_t)s + 10);
                return ES_ERR_FORMAT;
            }
            q++; /* the tab */
        } else if (q < end) {
            BAD_RECORD(r, "expected %" PRIu64 " columns (9 + %u samples) but found %" PRIu64,
                       (uint64_t)n + 9, n, (uint64_t)n + 9 + count_tabs(q, end));
            return ES_ERR_FORMAT;
        }
        acc |= code << (2 * (s & 3));
        if ((s & 3) == 3) {
            row[s >> 2] = (uint8_t)acc;
            acc = 0;
        }
    }
    if (n & 3) row[n >> 2] = (uint8_t)acc; /* pad bits stay zero */
    return ES_OK;
}

/* ---- a site's variants ------------------------------------------------------ */

/* Where the current record's calls are: text sample columns, or a BCF GT array. */
typedef struct {
    const char *q, *end; /* text: the first sample column, the line's end */
    int gt_idx;          /* text: GT's position among the FORMAT keys */
    const bcf_fmt_t *fmt; /* BCF */
} samples_t;

static int bcf_samples(rd_t *r, const bcf_fmt_t *fmt, int n_allele, int alt_idx, uint8_t *row,
                       site_ct_t *ct);

/* Keep the current record's variants: one (ALT dosage) for a biallelic or
 * monomorphic site; for a multi-allelic one that is split, one per ALT
 * allele k, its genotype the copies of k, any other ALT counting as REF and
 * a missing allele staying missing, as bcftools norm -m- writes GT.  Each
 * variant is judged alone (all-haploid ones skipped), and the calls are
 * read again for each.  @return ES_OK or an error (logged) */
static int keep_site(rd_t *r, const samples_t *sm)
{
    const int n_allele = r->rec->n_allele, n_var = n_allele > 2 ? n_allele - 1 : 1;
    uint64_t kept = 0;
    int ret;
    for (int k = 1; k <= n_var; k++) {
        if ((ret = reserve_variant(r)) != ES_OK) return ret;
        site_ct_t ct = {0, 0, 0, 0, 0};
        ret = r->is_bcf ? bcf_samples(r, sm->fmt, n_allele, k, next_row(r), &ct)
                        : text_samples(r, sm->q, sm->end, sm->gt_idx, n_allele, k, next_row(r),
                                       &ct);
        if (ret != ES_OK) return ret;
        if (!site_verdict(r, &ct)) continue;
        if ((ret = add_variant(r, k)) != ES_OK) return ret;
        kept++;
    }
    if (n_allele > 2) {
        r->st.split_records++;
        r->st.split_variants += kept;
        note_first(r->first_split, sizeof r->first_split, r->loc);
    }
    return ES_OK;
}

/* One text record in r->line.  @return ES_OK (kept or skipped) or an error */
static int text_record(rd_t *r)
{
    char *s = r->line.s;
    size_t len = r->line.l;
    if (len && s[len - 1] == '\r') s[--len] = '\0'; /* CRLF files */
    if (len == 0) return ES_OK;                     /* a blank line: nothing to read */
    const char *end = s + len;
    r->rec_no++;
    r->st.records++;

    /* the first nine columns: CHROM POS ID REF ALT QUAL FILTER INFO FORMAT */
    const char *col[10];
    int nc = 1;
    col[0] = s;
    while (nc < 10) {
        const char *t = memchr(col[nc - 1], '\t', (size_t)(end - col[nc - 1]));
        if (!t) break;
        col[nc++] = t + 1;
    }
    {
        int lc = (int)((nc > 1 ? col[1] - 1 : end) - s);
        int lp = nc > 1 ? (int)((nc > 2 ? col[2] - 1 : end) - col[1]) : 0;
        snprintf(r->loc, sizeof r->loc, "%.*s:%.*s", lc > 60 ? 60 : lc, s, lp > 40 ? 40 : lp,
                 nc > 1 ? col[1] : "");
    }
    if (nc < 10) {
        BAD_RECORD(r, "expected %" PRIu64 " columns (9 + %u samples) but found %d",
                   (uint64_t)r->n + 9, r->n, nc);
        return ES_ERR_FORMAT;
    }
    /* htslib reads a POS of "abc" or "-5" as a position without complaint */
    const char *ps = col[1];
    if (ps == col[2] - 1) {
        BAD_RECORD(r, "POS (column 2) is empty");
        return ES_ERR_FORMAT;
    }
    for (const char *c = ps; c < col[2] - 1; c++) {
        if (*c < '0' || *c > '9') {
            BAD_RECORD(r, "POS (column 2) '%.*s' is not a position (expected digits)",
                       field_len(ps), ps);
            return ES_ERR_FORMAT;
        }
    }
    /* where GT is among the FORMAT keys (the spec puts it first) */
    int gt_idx = -1;
    {
        const char *f = col[8], *fe = col[9] - 1;
        for (int k = 0; f < fe; k++) {
            const char *c = memchr(f, ':', (size_t)(fe - f));
            if (!c) c = fe;
            if (c - f == 2 && f[0] == 'G' && f[1] == 'T') {
                gt_idx = k;
                break;
            }
            f = c + 1;
        }
    }
    /* site columns through htslib; it writes NULs up to the end of FORMAT only */
    if (vcf_parse(&r->line, r->hdr, r->rec) < 0 ||
        (r->rec->errcode & ~(BCF_ERR_CTG_UNDEF | BCF_ERR_TAG_UNDEF))) {
        BAD_RECORD(r, "htslib cannot parse the site columns (error code %d%s)", r->rec->errcode,
                   r->rec->errcode & BCF_ERR_NCOLS ? ": too few columns" : "");
        return ES_ERR_FORMAT;
    }
    bcf1_t *rec = r->rec;
    if ((rec->n_allele > 2 && !r->split) || gt_idx < 0) {
        /* skipped unparsed, but a wrong column count is still an error */
        size_t cols = 10 + count_tabs(col[9], end);
        if (cols != (size_t)r->n + 9) {
            BAD_RECORD(r, "expected %" PRIu64 " columns (9 + %u samples) but found %zu",
                       (uint64_t)r->n + 9, r->n, cols);
            return ES_ERR_FORMAT;
        }
        if (rec->n_allele > 2 && !r->split) {
            r->st.multiallelic++;
            note_first(r->first_multi, sizeof r->first_multi, r->loc);
        } else {
            r->st.no_gt++;
            note_first(r->first_nogt, sizeof r->first_nogt, r->loc);
        }
        return ES_OK;
    }
    if (bcf_unpack(rec, BCF_UN_STR) < 0) {
        BAD_RECORD(r, "htslib cannot unpack the ID/REF/ALT columns");
        return ES_ERR_FORMAT;
    }
    const samples_t sm = {.q = col[9], .end = end, .gt_idx = gt_idx};
    return keep_site(r, &sm);
}

/* ---- BCF records -------------------------------------------------------------- */

/* Decode one BCF GT array of element type T.  The allele encoding is
 * htslib's: (index + 1) << 1 | phased, 0 or the type's missing value for a
 * missing allele, vector_end after the last allele of a shorter call. */
#define BCF_GT_DECODE(T, VEND, MISS)                                                               \
    do {                                                                                           \
        const T *base = (const T *)fmt->p;                                                         \
        for (uint32_t s = 0; s < n; s++) {                                                         \
            const T *g = base + (size_t)s * (size_t)fmt->n;                                        \
            unsigned code;                                                                         \
            if (fast && (uint32_t)g[0] - 2u < 4u && (uint32_t)g[1] - 2u < 4u) {                    \
                code =                                                                             \
                    code_of_dosage[(((uint32_t)g[0] - 2u) >> 1) + (((uint32_t)g[1] - 2u) >> 1)];   \
                ct->dip++;                                                                         \
            } else {                                                                               \
                int ploidy = 0, called = 0, alt = 0;                                               \
                for (int k = 0; k < fmt->n && g[k] != (VEND); k++) {                               \
                    ploidy++;                                                                      \
                    if (g[k] == (MISS) || g[k] == 0 || g[k] == 1) continue; /* missing allele */   \
                    int32_t idx = g[k] < 0 ? -1 : (int32_t)(g[k] >> 1) - 1;                        \
                    if (idx < 0 || idx >= n_allele) {                                              \
                        BAD_RECORD(r,                                                              \
                                   "sample %s: GT allele value %d is not an allele of the "        \
                                   "site (%d allele%s)",                                           \
                                   r->p->iid[s], (int)g[k], n_allele, n_allele == 1 ? "" : "s");   \
                        return ES_ERR_FORMAT;                                                      \
                    }                                                                              \
                    called++;                                                                      \
                    alt += idx == alt_idx;                                                         \
                }                                                                                  \
                code = classify(s, ploidy, called, alt, ct);                                       \
            }                                                                                      \
            acc |= code << (2 * (s & 3));                                                          \
            if ((s & 3) == 3) {                                                                    \
                row[s >> 2] = (uint8_t)acc;                                                        \
                acc = 0;                                                                           \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* Decode a BCF GT array into row, as copies of allele alt_idx (see
 * text_samples).  @return ES_OK or ES_ERR_FORMAT (logged) */
static int bcf_samples(rd_t *r, const bcf_fmt_t *fmt, int n_allele, int alt_idx, uint8_t *row,
                       site_ct_t *ct)
{
    const uint32_t n = r->n;
    const int fast = fmt->n == 2 && n_allele == 2;
    unsigned acc = 0;
    switch (fmt->type) {
    case BCF_BT_INT8: BCF_GT_DECODE(int8_t, bcf_int8_vector_end, bcf_int8_missing); break;
    case BCF_BT_INT16: BCF_GT_DECODE(int16_t, bcf_int16_vector_end, bcf_int16_missing); break;
    case BCF_BT_INT32: BCF_GT_DECODE(int32_t, bcf_int32_vector_end, bcf_int32_missing); break;
    default:
        BAD_RECORD(r, "GT is stored as BCF type %d, not as integers", fmt->type);
        return ES_ERR_FORMAT;
    }
    if (n & 3) row[n >> 2] = (uint8_t)acc;
    return ES_OK;
}

/* One BCF record in r->rec. */
static int bcf_record(rd_t *r)
{
    bcf1_t *rec = r->rec;
    r->rec_no++;
    r->st.records++;
    snprintf(r->loc, sizeof r->loc, "%.60s:%" PRId64, bcf_seqname_safe(r->hdr, rec),
             (int64_t)rec->pos + 1);
    if (rec->errcode & ~(BCF_ERR_CTG_UNDEF | BCF_ERR_TAG_UNDEF)) {
        BAD_RECORD(r, "htslib reports a malformed record (error code %d)", rec->errcode);
        return ES_ERR_FORMAT;
    }
    if (rec->pos < -1) {
        BAD_RECORD(r, "negative position");
        return ES_ERR_FORMAT;
    }
    if (rec->n_allele > 2 && !r->split) {
        r->st.multiallelic++;
        note_first(r->first_multi, sizeof r->first_multi, r->loc);
        return ES_OK;
    }
    if (bcf_unpack(rec, BCF_UN_STR | BCF_UN_FMT) < 0) {
        BAD_RECORD(r, "htslib cannot unpack the record");
        return ES_ERR_FORMAT;
    }
    if (rec->n_sample != r->n) {
        BAD_RECORD(r, "%u samples but the header has %u", rec->n_sample, r->n);
        return ES_ERR_FORMAT;
    }
    const bcf_fmt_t *fmt = NULL;
    for (int k = 0; r->gt_id >= 0 && k < rec->n_fmt; k++)
        if (rec->d.fmt[k].id == r->gt_id) fmt = &rec->d.fmt[k];
    if (!fmt || fmt->n <= 0) {
        r->st.no_gt++;
        note_first(r->first_nogt, sizeof r->first_nogt, r->loc);
        return ES_OK;
    }
    const samples_t sm = {.fmt = fmt};
    return keep_site(r, &sm);
}

/* ---- reading: the whole file, or regions through the index -------------------------- */

static int read_error(rd_t *r, int rc)
{
    char w[LOC_LEN + 96];
    if (r->rec_no == 0)
        snprintf(w, sizeof w, "before the first record");
    else
        snprintf(w, sizeof w, "after record %" PRIu64 " (%s)", r->rec_no, r->loc);
    es_error("%s: read error %s (htslib code %d): %s", r->path, w, rc,
             r->is_bcf ? "truncated or corrupt BCF (a record or compressed block cut short)"
                       : "truncated or corrupt compressed data");
    return ES_ERR_FORMAT;
}

/* Compressed bytes read so far (BGZF and BCF: the block's offset; plain
 * text: the stream's). */
static uint64_t bytes_read(const rd_t *r)
{
    BGZF *bg = hts_get_bgzfp(r->fp);
    if (bg) return (uint64_t)(bgzf_tell(bg) >> 16);
    off_t o = htell(r->fp->fp.hfile);
    return o > 0 ? (uint64_t)o : 0;
}

/* Every 4,096 records: the progress callback, at most twice a second. */
static void tick(rd_t *r, int last)
{
    if (!r->progress || (!last && (r->rec_no & 4095))) return;
    double now = es_time_now();
    if (!last && now - r->t_last < 0.5) return;
    r->t_last = now;
    uint64_t done = last ? r->file_size : bytes_read(r);
    if (done > r->file_size) done = r->file_size;
    r->progress(done, r->file_size, now - r->t0, r->progress_ud);
}

/* BCF: the next record's two lengths (l_shared, l_indiv: its first 8 bytes),
 * looked at before bcf_read() allocates them, against r->max_bytes: a corrupt
 * length asked htslib for gigabytes (found by fuzzing: 2.6 GB for a 754-byte
 * file).  The bytes are not consumed: read from the BGZF block in memory (the
 * next block loaded first when the last one is used up, as bgzf_read() would),
 * or, when they straddle two blocks, read and sought back. */
static int bcf_next_fits(rd_t *r)
{
    BGZF *bg = hts_get_bgzfp(r->fp);
    if (!r->max_bytes || !bg) return ES_OK;
    if (bg->block_offset >= bg->block_length) {
        /* a block that fails is the read's error (left to bcf_read(), it would
         * go on with the block after it) */
        if (bgzf_read_block(bg) != 0) return read_error(r, -2);
        if (bg->block_length == 0) return ES_OK; /* the end */
    }
    uint8_t x[8];
    if (bg->block_offset + 8 <= bg->block_length) {
        memcpy(x, (const uint8_t *)bg->uncompressed_block + bg->block_offset, 8);
    } else {
        int64_t at = bgzf_tell(bg);
        ssize_t got = bgzf_read(bg, x, 8);
        if (got < 0 || bgzf_seek(bg, at, SEEK_SET) < 0) return read_error(r, -2);
        if (got != 8) return ES_OK; /* cut short: bcf_read() reports it */
    }
    uint64_t ls = le_to_u32(x), li = le_to_u32(x + 4);
    if (ls + li <= r->max_bytes) return ES_OK;
    char w[LOC_LEN + 96];
    if (r->region && r->loc[0])
        snprintf(w, sizeof w, "the record after %s (region %s)", r->loc, r->region);
    else if (r->region)
        snprintf(w, sizeof w, "a record read for region %s", r->region);
    else
        snprintf(w, sizeof w, "record %" PRIu64, r->rec_no + 1);
    es_error("%s: corrupt BCF: %s claims %" PRIu64 " bytes, more than the whole file can hold "
             "decompressed (%" PRIu64 ")",
             r->path, w, ls + li, r->max_bytes);
    return ES_ERR_FORMAT;
}

/* The index iterator's record reader: bcf_readrec() after the same length
 * check (the iterator seeks into the file, so the check must come at each
 * record it reads, not only in read_all()'s loop).  The check's error is kept
 * in r->fits_err (already reported), told apart from htslib's by the caller. */
static int bcf_readrec_checked(BGZF *fp, void *data, void *rec, int *tid, hts_pos_t *beg,
                               hts_pos_t *end)
{
    rd_t *r = data;
    if ((r->fits_err = bcf_next_fits(r)) != ES_OK) return -2;
    return bcf_readrec(fp, NULL, rec, tid, beg, end);
}

static int read_all(rd_t *r)
{
    int ret = ES_OK, rc = 0;
    if (r->is_bcf) {
        while ((ret = bcf_next_fits(r)) == ES_OK && (rc = bcf_read(r->fp, r->hdr, r->rec)) >= 0) {
            if ((ret = bcf_record(r)) != ES_OK) return ret;
            tick(r, 0);
        }
        if (ret != ES_OK) return ret;
    } else {
        while ((rc = hts_getline(r->fp, '\n', &r->line)) >= 0) {
            r->line_no++;
            if ((ret = text_record(r)) != ES_OK) return ret;
            tick(r, 0);
        }
    }
    if (rc == -1) tick(r, 1);
    return rc == -1 ? ES_OK : read_error(r, rc);
}

/* Strict decimal for region bounds: digits only, at least 1. */
static int parse_pos(const char *s, const char *e, hts_pos_t *out)
{
    hts_pos_t v = 0;
    if (s == e) return -1;
    for (; s < e; s++) {
        if (*s < '0' || *s > '9' || v > (HTS_POS_MAX - 9) / 10) return -1;
        v = v * 10 + (*s - '0');
    }
    if (v < 1) return -1;
    *out = v;
    return 0;
}

/* Parse CHR, CHR:POS, CHR:FROM- or CHR:FROM-TO (1-based, inclusive).  A
 * whole string that names a contig wins, so names with ':' work.
 * name2id gives the index's contig id (-1 if absent).
 * @return ES_OK (tid -1: contig not in the index) or ES_ERR_ARG */
static int parse_region(rd_t *r, const char *text, region_t *reg, void *ix,
                        int (*name2id)(void *, const char *))
{
    char *chr = NULL;
    int ret = ES_OK;
    reg->text = text;
    reg->tid = name2id(ix, text);
    reg->beg = 0;
    reg->end = HTS_POS_MAX;
    if (reg->tid >= 0) return ES_OK;
    const char *colon = strrchr(text, ':');
    if (!colon) return ES_OK; /* a contig the index does not know */
    const char *dash = strchr(colon + 1, '-');
    hts_pos_t from, to = HTS_POS_MAX;
    if (colon == text ||
        parse_pos(colon + 1, dash ? dash : colon + 1 + strlen(colon + 1), &from) != 0 ||
        (dash && dash[1] && parse_pos(dash + 1, dash + 1 + strlen(dash + 1), &to) != 0)) {
        es_error("%s: bad region '%s': expected CHR:FROM-TO (1-based, inclusive, FROM >= 1), "
                 "CHR:POS or CHR",
                 r->path, text);
        ret = ES_ERR_ARG;
        goto out;
    }
    if (!dash) to = from;
    if (to < from) {
        es_error("%s: bad region '%s': end %" PRId64 " is before start %" PRId64, r->path, text,
                 (int64_t)to, (int64_t)from);
        ret = ES_ERR_ARG;
        goto out;
    }
    if (!(chr = strndup(text, (size_t)(colon - text)))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    reg->tid = name2id(ix, chr);
    reg->beg = from - 1;
    reg->end = to;
out:
    free(chr);
    return ret;
}

static int tbx_name2id_cb(void *ix, const char *name) { return tbx_name2id(ix, name); }

/* BCF indices number contigs as the header does. */
static int bcf_name2id_cb(void *hdr, const char *name)
{
    return bcf_hdr_name2id((const bcf_hdr_t *)hdr, name);
}

static int cmp_region(const void *a, const void *b)
{
    const region_t *x = a, *y = b;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    return (x->beg > y->beg) - (x->beg < y->beg);
}

/* Read the records overlapping the regions, each once, in file order:
 * regions are sorted and overlapping ones merged; a record that spans two
 * merged regions is returned by both queries and kept the first time (its
 * start lies before the end of the earlier region). */
static int read_regions(rd_t *r, const char *const *regions, int n_regions)
{
    int ret = ES_OK, rc = -1;
    tbx_t *tbx = NULL;
    hts_idx_t *idx = NULL;
    hts_itr_t *itr = NULL;
    region_t *reg = NULL;
    const htsFormat *fmt = hts_get_format(r->fp);

    if (r->is_bcf)
        idx = bcf_index_load3(r->path, NULL, HTS_IDX_SILENT_FAIL);
    else if (fmt->compression == bgzf)
        tbx = tbx_index_load3(r->path, NULL, HTS_IDX_SILENT_FAIL);
    if (!idx && !tbx) {
        if (!r->is_bcf && fmt->compression == gzip)
            es_error("%s: --region needs an index, which a gzip (not bgzip) file cannot have: "
                     "recompress and index it (zcat %s | bgzip > NEW.vcf.gz && bcftools index "
                     "NEW.vcf.gz)",
                     r->path, r->path);
        else if (!r->is_bcf && fmt->compression != bgzf)
            es_error("%s: --region needs an index, which a plain-text VCF cannot have: compress "
                     "and index it (bgzip %s && bcftools index %s.gz)",
                     r->path, r->path, r->path);
        else
            es_error("%s: --region needs an index (make one with bcftools index %s)", r->path,
                     r->path);
        ret = ES_ERR_ARG;
        goto out;
    }
    if (!(reg = calloc((size_t)n_regions, sizeof *reg))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    int n = 0;
    for (int k = 0; k < n_regions; k++) {
        if (tbx)
            ret = parse_region(r, regions[k], &reg[n], tbx, tbx_name2id_cb);
        else
            ret = parse_region(r, regions[k], &reg[n], r->hdr, bcf_name2id_cb);
        if (ret != ES_OK) goto out;
        if (reg[n].tid < 0) {
            es_warn("%s: region '%s': contig not in the index; no records from it", r->path,
                    regions[k]);
            continue;
        }
        n++;
    }
    qsort(reg, (size_t)n, sizeof *reg, cmp_region);
    int m = 0; /* merge overlapping and touching regions */
    for (int k = 0; k < n; k++) {
        if (m > 0 && reg[m - 1].tid == reg[k].tid && reg[k].beg <= reg[m - 1].end) {
            if (reg[k].end > reg[m - 1].end) reg[m - 1].end = reg[k].end;
        } else {
            reg[m++] = reg[k];
        }
    }
    for (int k = 0; k < m; k++) {
        hts_pos_t prev_end = k > 0 && reg[k - 1].tid == reg[k].tid ? reg[k - 1].end : -1;
        r->region = reg[k].text;
        r->loc[0] = '\0'; /* the index jumps: the previous region's records are not "before" */
        itr = tbx ? tbx_itr_queryi(tbx, reg[k].tid, reg[k].beg, reg[k].end)
                  : hts_itr_query(idx, reg[k].tid, reg[k].beg, reg[k].end, bcf_readrec_checked);
        if (!itr) {
            es_error("%s: cannot query the index for region '%s'", r->path, reg[k].text);
            ret = ES_ERR_FORMAT;
            goto out;
        }
        for (;;) {
            if (tbx)
                rc = tbx_itr_next(r->fp, tbx, itr, &r->line);
            else
                rc = hts_itr_next(hts_get_bgzfp(r->fp), itr, r->rec, r);
            if (r->fits_err != ES_OK) {
                ret = r->fits_err;
                goto out;
            }
            if (rc < 0) break;
            if (r->is_bcf) {
                if (r->rec->pos < prev_end) continue; /* returned by the previous region */
                ret = bcf_record(r);
            } else {
                /* the start is in column 2; the text is parsed in full only once */
                const char *t = memchr(r->line.s, '\t', r->line.l);
                if (t && prev_end >= 0 && strtoll(t + 1, NULL, 10) - 1 < prev_end) continue;
                ret = text_record(r);
            }
            if (ret != ES_OK) goto out;
        }
        hts_itr_destroy(itr);
        itr = NULL;
        if (rc < -1) {
            ret = read_error(r, rc);
            goto out;
        }
    }
    r->region = NULL;
out:
    hts_itr_destroy(itr);
    if (tbx) tbx_destroy(tbx);
    if (idx) hts_idx_destroy(idx);
    free(reg);
    return ret;
}

/* ---- open ----------------------------------------------------------------------- */

/* Samples: FID = IID = the VCF name, in one text buffer like a .fam's. */
static int take_samples(rd_t *r)
{
    es_fileset_t *p = r->p;
    size_t total = 0;
    uint32_t n = r->n;
    for (uint32_t s = 0; s < n; s++)
        total += strlen(r->hdr->samples[s]) + 1;
    p->fam_text = malloc(total ? total : 1);
    p->fid = malloc((size_t)n * sizeof *p->fid);
    p->iid = malloc((size_t)n * sizeof *p->iid);
    p->fam_pheno = malloc(n);
    if (!p->fam_text || !p->fid || !p->iid || !p->fam_pheno) return ES_ERR_NOMEM;
    char *t = p->fam_text;
    for (uint32_t s = 0; s < n; s++) {
        size_t l = strlen(r->hdr->samples[s]) + 1;
        memcpy(t, r->hdr->samples[s], l);
        p->fid[s] = p->iid[s] = t;
        t += l;
    }
    memset(p->fam_pheno, -1, n);
    p->fam_pheno_quantitative = 0;
    p->n_samples = n;
    p->bytes_per_variant = ((size_t)n + 3) / 4;
    return ES_OK;
}

/* Turn offsets into the pointer arrays of es_fileset_t and shrink the rows. */
static int finish(rd_t *r)
{
    es_fileset_t *p = r->p;
    uint32_t m = p->n_variants;
    p->chr = malloc((size_t)m * sizeof *p->chr);
    p->id = malloc((size_t)m * sizeof *p->id);
    p->a1 = malloc((size_t)m * sizeof *p->a1);
    p->a2 = malloc((size_t)m * sizeof *p->a2);
    p->cm = calloc(m, sizeof *p->cm);
    if (!p->chr || !p->id || !p->a1 || !p->a2 || !p->cm) return ES_ERR_NOMEM;
    /* the arena no longer grows: pointers into it stay valid */
    p->bim_text = r->arena;
    r->arena = NULL;
    for (uint32_t v = 0; v < m; v++) {
        const char *s = p->bim_text + r->var_off[v];
        p->chr[v] = p->bim_text + r->ctg_off[r->var_rid[v]] - 1;
        p->id[v] = s;
        s += strlen(s) + 1;
        p->a1[v] = s;
        s += strlen(s) + 1;
        p->a2[v] = s;
    }
    p->bed_size = 3 + (size_t)m * p->bytes_per_variant;
    uint8_t *rows = realloc(p->rows_owned, p->bed_size); /* give back the growth slack */
    if (rows) p->rows_owned = rows;
    p->rows_owned[0] = 0x6c;
    p->rows_owned[1] = 0x1b;
    p->rows_owned[2] = 0x01;
    p->bed_map = p->rows_owned;
    return ES_OK;
}

static void log_summary(const rd_t *r)
{
    char a[32], b[32], c[32];
    const es_vcf_stats_t *st = &r->st;
    if (st->multiallelic)
        es_warn("%s: skipped %s of %s records with more than two alleles (as asked: only "
                "biallelic sites are read, as bcftools view --max-alleles 2; first at %s)",
                r->path, es_fmt_count(st->multiallelic, a), es_fmt_count(st->records, b),
                r->first_multi);
    if (st->split_records)
        es_info("%s: split %s of %s records with more than two alleles into %s biallelic "
                "variants, one per ALT allele (as bcftools norm -m-; first at %s)",
                r->path, es_fmt_count(st->split_records, a), es_fmt_count(st->records, b),
                es_fmt_count(st->split_variants, c), r->first_split);
    if (st->no_gt)
        es_warn("%s: skipped %s record%s without a GT field (first at %s)", r->path,
                es_fmt_count(st->no_gt, a), st->no_gt == 1 ? "" : "s", r->first_nogt);
    if (st->haploid_sites)
        es_warn("%s: skipped %s site%s whose called genotypes are all haploid (first at %s)",
                r->path, es_fmt_count(st->haploid_sites, a), st->haploid_sites == 1 ? "" : "s",
                r->first_hapsite);
    if (st->haploid_calls)
        es_warn("%s: set %s haploid call%s at diploid sites to missing (first at %s)", r->path,
                es_fmt_count(st->haploid_calls, a), st->haploid_calls == 1 ? "" : "s",
                r->first_hapcall);
    if (r->half_calls)
        es_warn("%s: set %s half-missing call%s (such as ./1) to missing (first at %s)", r->path,
                es_fmt_count(r->half_calls, a), r->half_calls == 1 ? "" : "s", r->first_half);
    if (r->poly_calls)
        es_warn("%s: set %s call%s with more than two alleles (ploidy > 2) to missing (first at "
                "%s)",
                r->path, es_fmt_count(r->poly_calls, a), r->poly_calls == 1 ? "" : "s",
                r->first_poly);
}

int es_vcf_open(es_fileset_t **out, const char *path, const char *const *regions, int n_regions,
                int threads, es_vcf_multiallelic_t multi, es_vcf_stats_t *stats)
{
    return es_vcf_open_progress(out, path, regions, n_regions, threads, multi, stats, NULL, NULL);
}

int es_vcf_open_progress(es_fileset_t **out, const char *path, const char *const *regions, int n_regions,
                         int threads, es_vcf_multiallelic_t multi, es_vcf_stats_t *stats,
                         es_progress_cb progress, void *progress_ud)
{
    int ret = ES_OK;
    rd_t r;
    char a[32], b[32], c[32], d[32];
    double t0 = es_time_now();

    memset(&r, 0, sizeof r);
    r.t0 = r.t_last = t0;
    /* the file's size: the bound of a BCF record's length (0: unknown, a
     * pipe) and, read from start to end, the progress reports' total
     * (regions are read through the index: no byte count to report) */
    uint64_t size = 0;
    struct stat st;
    if (path && stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
        size = (uint64_t)st.st_size;
    if (progress && size && !n_regions) {
        r.progress = progress;
        r.progress_ud = progress_ud;
        r.file_size = size;
    }
    if (out) *out = NULL;
    r.hdr_lines = -1;
    r.gt_id = -1;
    if (stats) memset(stats, 0, sizeof *stats);
    if (!out || !path || !*path) {
        es_error("no VCF/BCF path given");
        ret = ES_ERR_ARG;
        goto out;
    }
    if (n_regions < 0 || (n_regions > 0 && !regions)) {
        es_error("%s: %d regions given without a region list", path, n_regions);
        ret = ES_ERR_ARG;
        goto out;
    }
    if (multi != ES_VCF_MULTIALLELIC_SPLIT && multi != ES_VCF_MULTIALLELIC_SKIP) {
        es_error("%s: unknown multi-allelic mode %d", path, (int)multi);
        ret = ES_ERR_ARG;
        goto out;
    }
    r.split = multi == ES_VCF_MULTIALLELIC_SPLIT;
    r.path = path;
    if (!(r.p = calloc(1, sizeof *r.p)) || !(r.p->bed_path = strdup(path)) ||
        !(r.p->bim_path = strdup(path)) || !(r.p->fam_path = strdup(path))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    errno = 0;
    if (!(r.fp = hts_open(path, "r"))) {
        if (errno == ENOEXEC) { /* htslib's answer for data it cannot identify */
            es_error("%s: not a VCF or BCF file (htslib cannot tell its format)", path);
            ret = ES_ERR_FORMAT;
        } else {
            es_error("%s: cannot open: %s", path, errno ? strerror(errno) : "unknown error");
            ret = ES_ERR_IO;
        }
        goto out;
    }
    const htsFormat *fmt = hts_get_format(r.fp);
    if (fmt->format != vcf && fmt->format != bcf) {
        char *desc = hts_format_description(fmt);
        es_error("%s: not a VCF or BCF file (htslib sees: %s)", path, desc ? desc : "unknown");
        free(desc);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    r.is_bcf = fmt->format == bcf;
    if (r.is_bcf && size && hts_get_bgzfp(r.fp)) {
        /* a record can be no longer than the file decompressed: a BGZF block
         * (28 bytes at least) holds at most 64 KiB, and gzip's deflate expands
         * at most 1,032 to 1; uncompressed BCF, the file's size */
        r.max_bytes = hts_get_bgzfp(r.fp)->is_compressed ? (size / 28 + 1) * 65536 : size;
    }
    /* our own pool rather than hts_set_threads(): it is joined and freed here,
     * after the file is closed, so no thread outlives the call */
    if (threads > 1 && (!(r.pool.pool = hts_tpool_init(threads)) ||
                        hts_set_opt(r.fp, HTS_OPT_THREAD_POOL, &r.pool) != 0))
        es_warn("%s: cannot start %d decompression threads; reading with one", path, threads);
    if (!(r.hdr = bcf_hdr_read(r.fp))) {
        es_error("%s: cannot read the %s header (see htslib's message above)", path,
                 r.is_bcf ? "BCF" : "VCF");
        ret = ES_ERR_FORMAT;
        goto out;
    }
    int ns = bcf_hdr_nsamples(r.hdr);
    if (ns <= 0) {
        es_error("%s: no samples (a sites-only %s has no genotypes to analyse)", path,
                 r.is_bcf ? "BCF" : "VCF");
        ret = ES_ERR_DATA;
        goto out;
    }
    r.n = (uint32_t)ns;
    if ((ret = take_samples(&r)) != ES_OK) goto out;
    r.gt_id = bcf_hdr_id2int(r.hdr, BCF_DT_ID, "GT");
    /* text: htslib parses the site columns only, the sample columns are ours */
    if (!r.is_bcf && bcf_hdr_set_samples(r.hdr, NULL, 0) != 0) {
        es_error("%s: htslib cannot set up sites-only parsing", path);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    if (!(r.rec = bcf_init())) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    if (n_regions > 0)
        ret = read_regions(&r, regions, n_regions);
    else
        ret = read_all(&r);
    if (ret != ES_OK) goto out;

    if (r.p->n_variants == 0) {
        if (r.st.records == 0)
            es_error("%s: no variant records%s", path, n_regions ? " in the regions given" : "");
        else
            es_error("%s: none of the %s records is a biallelic site with diploid GT calls (%s "
                     "with more than two alleles, %s without GT, %s all haploid)",
                     path, es_fmt_count(r.st.records, a), es_fmt_count(r.st.multiallelic, b),
                     es_fmt_count(r.st.no_gt, c), es_fmt_count(r.st.haploid_sites, d));
        ret = ES_ERR_DATA;
        goto out;
    }
    if ((ret = finish(&r)) != ES_OK) goto out;
    log_summary(&r);
    if ((ret = es_fileset_warn_dup_variants(r.p, NULL)) != ES_OK) goto out;
    es_info("%s: %s samples, %s variants from %s records in %.2f s (%s, %d decompression "
            "threads)",
            path, es_fmt_count(r.n, a), es_fmt_count(r.p->n_variants, b),
            es_fmt_count(r.st.records, c), es_time_now() - t0, r.is_bcf ? "BCF" : "VCF",
            threads > 1 ? threads : 0);
    r.p->vcf_stats = r.st;
    if (stats) *stats = r.st;
    *out = r.p;
    r.p = NULL;
out:
    if (ret == ES_ERR_NOMEM) es_error("out of memory reading %s", path ? path : "(null)");
    if (r.rec) bcf_destroy(r.rec);
    if (r.hdr) bcf_hdr_destroy(r.hdr);
    if (r.fp) hts_close(r.fp);
    if (r.pool.pool) hts_tpool_destroy(r.pool.pool);
    free(r.line.s);
    free(r.var_off);
    free(r.var_rid);
    free(r.arena);
    free(r.ctg_off);
    es_fileset_close(r.p);
    return ret;
}
