/* plink.c -- PLINK 1 binary fileset reader (.bed/.bim/.fam).
 *
 * The .bim and .fam are read with one read() each into one buffer, split in
 * place (blanks become NULs) and indexed by pointer arrays: no per-field
 * allocation, so a 1,000,000-variant .bim costs one buffer and six arrays.
 * The .bed is memory-mapped read-only and never copied: the packer reads the
 * 2-bit rows straight from the mapping. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats.h"

static char *path_with_ext(const char *prefix, const char *ext)
{
    size_t n = strlen(prefix), e = strlen(ext);
    char *s = malloc(n + e + 1);
    if (!s) return NULL;
    memcpy(s, prefix, n);
    memcpy(s + n, ext, e + 1);
    return s;
}

/* Upper bound on the number of lines of a text (for sizing the arrays). */
static size_t count_lines(const char *text, size_t len)
{
    size_t n = 0;
    const char *p = text, *end = text + len;
    while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        n++;
        p++;
    }
    return n + 1;
}

/* Strict integer: the whole field, base 10, optional sign. */
static int parse_i64(const char *s, int64_t *out)
{
    char *e;
    errno = 0;
    long long v = strtoll(s, &e, 10);
    if (e == s || *e != '\0' || errno == ERANGE) return -1;
    *out = (int64_t)v;
    return 0;
}

/* Strict finite number: the whole field. */
static int parse_double(const char *s, double *out)
{
    char *e;
    if (s[0] == '0' && s[1] == '\0') { /* the common .bim CM value, without strtod */
        *out = 0.0;
        return 0;
    }
    errno = 0;
    double v = strtod(s, &e);
    if (e == s || *e != '\0' || errno == ERANGE || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

/* FNV-1a over FID, a separator and IID; used to find duplicate samples. */
static uint64_t id_hash(const char *fid, const char *iid)
{
    const uint64_t prime = 1099511628211ULL;
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *s = (const unsigned char *)fid; *s; s++) h = (h ^ *s) * prime;
    h = (h ^ 0x1f) * prime; /* FID "ab" + IID "c" must differ from "a" + "bc" */
    for (const unsigned char *s = (const unsigned char *)iid; *s; s++) h = (h ^ *s) * prime;
    return h;
}

/* One warning for all duplicated FID+IID pairs: PLINK refuses them, but a
 * case/control scan still works when they are left in, so warn, not fail. */
static int check_duplicate_samples(const es_fileset_t *p, const uint64_t *line_of)
{
    size_t cap = 16;
    while (cap < (size_t)p->n_samples * 2) cap <<= 1;
    uint32_t *tab = calloc(cap, sizeof *tab); /* sample index + 1; 0 = empty */
    if (!tab) return ES_ERR_NOMEM;
    uint64_t dup_ct = 0;
    uint32_t first_dup = 0, first_orig = 0;
    for (uint32_t s = 0; s < p->n_samples; s++) {
        size_t h = (size_t)id_hash(p->fid[s], p->iid[s]) & (cap - 1);
        for (;;) {
            uint32_t t = tab[h];
            if (t == 0) {
                tab[h] = s + 1;
                break;
            }
            if (strcmp(p->fid[t - 1], p->fid[s]) == 0 && strcmp(p->iid[t - 1], p->iid[s]) == 0) {
                if (dup_ct++ == 0) {
                    first_dup = s;
                    first_orig = t - 1;
                }
                break;
            }
            h = (h + 1) & (cap - 1);
        }
    }
    if (dup_ct) {
        char b[32];
        es_warn("%s: %s duplicate sample ID%s (FID IID); first: '%s %s' on line %" PRIu64
                " (also on line %" PRIu64 "); each is kept as a separate sample",
                p->fam_path, es_fmt_count(dup_ct, b), dup_ct == 1 ? "" : "s", p->fid[first_dup],
                p->iid[first_dup], line_of[first_dup], line_of[first_orig]);
    }
    free(tab);
    return ES_OK;
}

int es_fileset_warn_dup_variants(const es_fileset_t *p, const uint64_t *line_of)
{
    es_strindex_t ix;
    int ret = es_strindex_build(&ix, (const char *const *)p->id, NULL, p->n_variants);
    if (ret) return ret;
    /* A variant repeats an earlier ID exactly when it follows another in
     * its ID's chain (ix.next runs in variant order from the first): marked
     * in one pass over the chains instead of a lookup of every ID, whose
     * random reads of the table and the IDs cost about 0.3 s for 10^6
     * variants (issue 24) */
    uint64_t dup_ct = 0;
    uint32_t first_dup = UINT32_MAX, first_orig = 0;
    uint8_t *later = calloc(p->n_variants ? p->n_variants : 1, 1);
    if (!later) {
        es_strindex_free(&ix);
        return ES_ERR_NOMEM;
    }
    for (uint32_t v = 0; v < p->n_variants; v++)
        if (ix.next[v] != ES_NO_ITEM) later[ix.next[v]] = 1;
    for (uint32_t v = 0; v < p->n_variants; v++)
        if (later[v] && dup_ct++ == 0) first_dup = v;
    free(later);
    if (dup_ct) first_orig = es_strindex_find(&ix, p->id[first_dup], NULL);
    es_strindex_free(&ix);
    if (!dup_ct) return ES_OK;
    char b[32], where[96];
    if (line_of)
        snprintf(where, sizeof where, "on line %" PRIu64 " (also on line %" PRIu64 ")",
                 line_of[first_dup], line_of[first_orig]);
    else
        snprintf(where, sizeof where, "at %s:%" PRId64 " (also at %s:%" PRId64 ")",
                 p->chr[first_dup], p->pos[first_dup], p->chr[first_orig], p->pos[first_orig]);
    es_warn("%s: %s duplicate variant ID%s; first: '%s' %s; each is kept as a separate variant, "
            "and an ID names all of them in --extract/--exclude (--snps, --from and --to refuse "
            "it)", p->bim_path, es_fmt_count(dup_ct, b), dup_ct == 1 ? "" : "s", p->id[first_dup],
            where);
    return ES_OK;
}

/* .fam column 6 -> 0 control, 1 case, -1 missing; *quant set for numbers
 * other than 0/1/2/-9 (a quantitative phenotype). */
static int fam_pheno_code(const char *s, int8_t *code, int *quant)
{
    double v;
    if (strcasecmp(s, "NA") == 0 || strcasecmp(s, "nan") == 0) {
        *code = -1;
        return 0;
    }
    if (parse_double(s, &v) != 0) return -1;
    if (v == 1.0) *code = 0;
    else if (v == 2.0) *code = 1;
    else if (v == 0.0 || v == -9.0) *code = -1;
    else {
        *code = -1;
        *quant = 1;
    }
    return 0;
}

/* .fam column 6 under PLINK's --1 -> 0 control (0), 1 case (1), -1 missing
 * (-9, NA), -3 any other value (missing as well, as PLINK 1.9 reads it, but
 * worth a warning: a 2 under --1 is usually a file coded 1/2). */
static int8_t fam_pheno01_code(const char *s)
{
    double v;
    if (strcasecmp(s, "NA") == 0 || strcasecmp(s, "nan") == 0) return -1;
    if (parse_double(s, &v) != 0) return -3;
    return v == 0.0 ? 0 : v == 1.0 ? 1 : v == -9.0 ? -1 : -3;
}

/* .fam column 6 as a quantitative value: NaN for PLINK's missing -9 and for
 * NA/nan (a value that is no number was refused by fam_pheno_code). */
static double fam_qt_value(const char *s)
{
    double v;
    if (parse_double(s, &v) != 0 || v == -9.0) return NAN;
    return v;
}

/* .fam column 5 as PLINK reads it: exactly "1" male, "2" female, else unknown. */
static int8_t fam_sex_code(const char *s)
{
    return strcmp(s, "1") == 0 ? 1 : strcmp(s, "2") == 0 ? 2 : 0;
}

static int parse_fam(es_fileset_t *p)
{
    int ret = ES_OK;
    size_t len, cap;
    uint64_t *line_of = NULL;
    uint32_t n = 0;

    if ((ret = es_text_read(p->fam_path, NULL, &p->fam_text, &len)) != ES_OK) goto out;
    cap = count_lines(p->fam_text, len);
    p->fid = malloc(cap * sizeof *p->fid);
    p->iid = malloc(cap * sizeof *p->iid);
    p->fam_pheno = malloc(cap * sizeof *p->fam_pheno);
    p->fam_pheno01 = malloc(cap * sizeof *p->fam_pheno01);
    p->fam_qt = malloc(cap * sizeof *p->fam_qt);
    p->fam_sex = malloc(cap * sizeof *p->fam_sex);
    p->fam_founder = malloc(cap * sizeof *p->fam_founder);
    line_of = malloc(cap * sizeof *line_of);
    if (!p->fid || !p->iid || !p->fam_pheno || !p->fam_pheno01 || !p->fam_qt || !p->fam_sex ||
        !p->fam_founder || !line_of) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    char *q = p->fam_text, *end = p->fam_text + len;
    char *ls, *le;
    for (uint64_t line = 1; (ls = es_next_line(&q, end, &le)) != NULL; line++) {
        char *f[6];
        int nf = es_split_fields(ls, le, f, 6);
        if (nf == 0) continue; /* blank line (e.g. a trailing one) */
        if (nf != 6) {
            es_error("%s: line %" PRIu64 ": expected 6 columns (FID IID PAT MAT SEX PHENO) but "
                     "found %d", p->fam_path, line, nf);
            ret = ES_ERR_FORMAT;
            goto out;
        }
        if (n == UINT32_MAX) {
            es_error("%s: more than 4,294,967,294 samples are not supported", p->fam_path);
            ret = ES_ERR_FORMAT;
            goto out;
        }
        if (fam_pheno_code(f[5], &p->fam_pheno[n], &p->fam_pheno_quantitative) != 0) {
            es_error("%s: line %" PRIu64 ": phenotype (column 6) '%s' is not a number; expected "
                     "1 (control), 2 (case) or 0/-9/NA (missing)", p->fam_path, line, f[5]);
            ret = ES_ERR_FORMAT;
            goto out;
        }
        p->fam_pheno01[n] = fam_pheno01_code(f[5]);
        p->fam_qt[n] = fam_qt_value(f[5]);
        p->fam_sex[n] = fam_sex_code(f[4]);
        /* a founder has no parent in the file: PLINK asks for both IDs "0" */
        p->fam_founder[n] = strcmp(f[2], "0") == 0 && strcmp(f[3], "0") == 0;
        p->fid[n] = f[0];
        p->iid[n] = f[1];
        line_of[n] = line;
        n++;
    }
    p->n_samples = n;
    if (n == 0) {
        es_error("%s: no samples (the file has no lines with 6 columns)", p->fam_path);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    ret = check_duplicate_samples(p, line_of);
out:
    free(line_of);
    return ret;
}

static int parse_bim(es_fileset_t *p)
{
    int ret = ES_OK;
    size_t len, cap;
    uint32_t n = 0;
    uint64_t *line_of = NULL;

    if ((ret = es_text_read(p->bim_path, NULL, &p->bim_text, &len)) != ES_OK) goto out;
    cap = count_lines(p->bim_text, len);
    p->chr = malloc(cap * sizeof *p->chr);
    p->id = malloc(cap * sizeof *p->id);
    p->a1 = malloc(cap * sizeof *p->a1);
    p->a2 = malloc(cap * sizeof *p->a2);
    p->pos = malloc(cap * sizeof *p->pos);
    p->cm = malloc(cap * sizeof *p->cm);
    line_of = malloc(cap * sizeof *line_of);
    if (!p->chr || !p->id || !p->a1 || !p->a2 || !p->pos || !p->cm || !line_of) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    char *q = p->bim_text, *end = p->bim_text + len;
    char *ls, *le;
    for (uint64_t line = 1; (ls = es_next_line(&q, end, &le)) != NULL; line++) {
        char *f[6];
        int nf = es_split_fields(ls, le, f, 6);
        if (nf == 0) continue;
        if (nf != 6) {
            es_error("%s: line %" PRIu64 ": expected 6 columns (CHR ID CM POS A1 A2) but found %d",
                     p->bim_path, line, nf);
            ret = ES_ERR_FORMAT;
            goto out;
        }
        if (n == UINT32_MAX) {
            es_error("%s: more than 4,294,967,294 variants are not supported", p->bim_path);
            ret = ES_ERR_FORMAT;
            goto out;
        }
        if (parse_double(f[2], &p->cm[n]) != 0) {
            es_error("%s: line %" PRIu64 ": genetic position (column 3) '%s' is not a number",
                     p->bim_path, line, f[2]);
            ret = ES_ERR_FORMAT;
            goto out;
        }
        if (parse_i64(f[3], &p->pos[n]) != 0) {
            es_error("%s: line %" PRIu64 ": base-pair position (column 4) '%s' is not an integer",
                     p->bim_path, line, f[3]);
            ret = ES_ERR_FORMAT;
            goto out;
        }
        p->chr[n] = f[0];
        p->id[n] = f[1];
        p->a1[n] = f[4];
        p->a2[n] = f[5];
        line_of[n] = line;
        n++;
    }
    p->n_variants = n;
    if (n == 0) {
        es_error("%s: no variants (the file has no lines with 6 columns)", p->bim_path);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    ret = es_fileset_warn_dup_variants(p, line_of);
out:
    free(line_of);
    return ret;
}

/* ---- a .bed that shrinks while mapped -------------------------------------
 * Reading a page of a mapping that lies wholly past the end of its file raises
 * SIGBUS, which would kill the process with no word about why.  The mapped
 * .beds are registered here; the handler replaces the pages from the faulting
 * one to the end of that mapping with zeros, flags the fileset and returns, so
 * the read goes on and es_fileset_check() reports the damage afterwards.  A
 * SIGBUS elsewhere goes to the handler that was there before (or kills as
 * usual).  The registry is process-wide by nature: a signal handler has no
 * other way in. */
#define BED_MAX_MAPS 64
static struct {
    uintptr_t lo, hi;        /* [lo, hi): the mapping, page-aligned */
    es_fileset_t *p;
} bed_maps[BED_MAX_MAPS];
static pthread_mutex_t bed_maps_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction bed_old_action;
static uintptr_t bed_page;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    uintptr_t a = (uintptr_t)si->si_addr;
    for (int k = 0; k < BED_MAX_MAPS; k++) {
        es_fileset_t *p = __atomic_load_n(&bed_maps[k].p, __ATOMIC_ACQUIRE);
        if (!p || a < bed_maps[k].lo || a >= bed_maps[k].hi) continue;
        uintptr_t from = a & ~(bed_page - 1);
        /* mmap is a plain system call: safe here in practice */
        if (mmap((void *)from, bed_maps[k].hi - from, PROT_READ,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
            break;
        p->bed_fault = 1;
        return;
    }
    if (bed_old_action.sa_flags & SA_SIGINFO) {
        bed_old_action.sa_sigaction(sig, si, uc);
    } else if (bed_old_action.sa_handler != SIG_DFL && bed_old_action.sa_handler != SIG_IGN) {
        bed_old_action.sa_handler(sig);
    } else {
        /* the access is retried when the handler returns and kills as before */
        signal(sig, SIG_DFL);
    }
}

static void bed_guard_add(es_fileset_t *p)
{
    struct sigaction cur;
    int installed = 0;
    pthread_mutex_lock(&bed_maps_lock);
    /* (again when a program replaced it since: the handler chains to it) */
    if (sigaction(SIGBUS, NULL, &cur) == 0) {
        installed = (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_sigbus;
        if (!installed) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_sigaction = on_sigbus;
            sa.sa_flags = SA_SIGINFO;
            sigemptyset(&sa.sa_mask);
            bed_page = (uintptr_t)sysconf(_SC_PAGESIZE);
            bed_old_action = cur;
            installed = sigaction(SIGBUS, &sa, NULL) == 0;
        }
    }
    for (int k = 0; installed && k < BED_MAX_MAPS; k++)
        if (!bed_maps[k].p) {
            bed_maps[k].lo = (uintptr_t)p->bed_map;
            bed_maps[k].hi = ((uintptr_t)p->bed_map + p->bed_size + bed_page - 1) & ~(bed_page - 1);
            __atomic_store_n(&bed_maps[k].p, p, __ATOMIC_RELEASE);
            break;
        }
    pthread_mutex_unlock(&bed_maps_lock);
}

static void bed_guard_remove(const es_fileset_t *p)
{
    pthread_mutex_lock(&bed_maps_lock);
    for (int k = 0; k < BED_MAX_MAPS; k++)
        if (bed_maps[k].p == p) __atomic_store_n(&bed_maps[k].p, NULL, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&bed_maps_lock);
}

int es_fileset_check(const es_fileset_t *p)
{
    if (!p->bed_fault) return ES_OK;
    struct stat st;
    char a[32], b[32];
    if (stat(p->bed_path, &st) == 0)
        es_error("%s: the file shrank to %s bytes while it was being read (it had %s): "
                 "truncated or rewritten by another program? Its genotypes cannot be used",
                 p->bed_path, es_fmt_count((uint64_t)st.st_size, a), es_fmt_count(p->bed_size, b));
    else
        es_error("%s: the file shrank while it was being read (it had %s bytes; now: %s): "
                 "truncated or rewritten by another program? Its genotypes cannot be used",
                 p->bed_path, es_fmt_count(p->bed_size, b), strerror(errno));
    return ES_ERR_IO;
}

/* Map the .bed and check that it is a SNP-major PLINK 1 file whose size
 * matches the .bim and .fam exactly. */
static int open_bed(es_fileset_t *p, const char *prefix)
{
    int ret = ES_OK, fd = -1;
    struct stat st;
    char b1[32], b2[32], b3[32], b4[32];

    p->bytes_per_variant = ((size_t)p->n_samples + 3) / 4;
    size_t need = 3 + (size_t)p->n_variants * p->bytes_per_variant;

    /* O_NONBLOCK: opening a FIFO for reading would wait for a writer forever;
     * this way it opens at once and the type check below refuses it */
    fd = open(p->bed_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        es_error("%s: cannot open: %s", p->bed_path, strerror(errno));
        ret = ES_ERR_IO;
        goto out;
    }
    if (fstat(fd, &st) != 0) {
        es_error("%s: cannot stat: %s", p->bed_path, strerror(errno));
        ret = ES_ERR_IO;
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        es_error("%s: not a regular file but a %s; the .bed is memory-mapped and must be a "
                 "regular file", p->bed_path,
                 S_ISFIFO(st.st_mode) ? "FIFO (named pipe)" : S_ISDIR(st.st_mode) ? "directory"
                 : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "device" : S_ISSOCK(st.st_mode)
                 ? "socket" : "special file");
        ret = ES_ERR_IO;
        goto out;
    }
    size_t size = (size_t)st.st_size;
    if (size == 0) {
        es_error("%s: 0 bytes (empty file) but %s variants x %s samples need %s", p->bed_path,
                 es_fmt_count(p->n_variants, b2), es_fmt_count(p->n_samples, b3),
                 es_fmt_count(need, b4));
        ret = ES_ERR_FORMAT;
        goto out;
    }
    void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
        es_error("%s: cannot memory-map %s bytes: %s", p->bed_path, es_fmt_count(size, b1),
                 strerror(errno));
        ret = ES_ERR_IO;
        goto out;
    }
    p->bed_map = m;
    p->bed_size = size;
    bed_guard_add(p);
    /* Rows are read in order when packing; advice only, failure is harmless. */
    (void)madvise(m, size, MADV_SEQUENTIAL);

    const uint8_t *b = p->bed_map;
    if (size >= 2 && b[0] == 0x6c && b[1] == 0x1b) {
        if (size >= 3 && b[2] == 0x00) {
            es_error("%s: sample-major .bed (mode byte 00) is not supported; rewrite it as "
                     "SNP-major with `plink1.9 --bfile %s --make-bed --out NEWPREFIX`",
                     p->bed_path, prefix);
            ret = ES_ERR_FORMAT;
            goto out;
        }
        if (size >= 3 && b[2] != 0x01) {
            es_error("%s: unknown .bed mode byte %02x after the magic number (expected 01 = "
                     "SNP-major)", p->bed_path, b[2]);
            ret = ES_ERR_FORMAT;
            goto out;
        }
    } else {
        es_error("%s: no PLINK magic number (expected bytes 6c 1b 01, found %02x %02x%s): "
                 "pre-1.0 PLINK .bed (no magic number) is not supported, or this is not a "
                 ".bed file; rewrite it with `plink1.9 --bfile %s --make-bed --out NEWPREFIX`",
                 p->bed_path, b[0], size >= 2 ? b[1] : 0, size >= 2 ? "" : " (1 byte file)",
                 prefix);
        ret = ES_ERR_FORMAT;
        goto out;
    }
    if (size != need) {
        es_error("%s: %s bytes but %s variants x %s samples need %s (%s)", p->bed_path,
                 es_fmt_count(size, b1), es_fmt_count(p->n_variants, b2),
                 es_fmt_count(p->n_samples, b3), es_fmt_count(need, b4),
                 size < need ? "truncated, or the .bim/.fam list more than the .bed holds"
                             : "the .bim/.fam list fewer variants or samples than the .bed holds");
        ret = ES_ERR_FORMAT;
        goto out;
    }
out:
    if (fd >= 0) close(fd);
    return ret;
}

int es_plink_open(es_fileset_t **out, const char *prefix)
{
    int ret = ES_OK;
    es_fileset_t *p = NULL;

    if (!out || !prefix || !*prefix) {
        es_error("no PLINK fileset prefix given");
        ret = ES_ERR_ARG;
        goto out;
    }
    *out = NULL;
    if (!(p = calloc(1, sizeof *p))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    p->bed_path = path_with_ext(prefix, ".bed");
    p->bim_path = path_with_ext(prefix, ".bim");
    p->fam_path = path_with_ext(prefix, ".fam");
    if (!p->bed_path || !p->bim_path || !p->fam_path) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    /* .fam first: the .bed size check needs both counts. */
    if ((ret = parse_fam(p)) != ES_OK) goto out;
    if ((ret = parse_bim(p)) != ES_OK) goto out;
    if ((ret = open_bed(p, prefix)) != ES_OK) goto out;
    *out = p;
    p = NULL;
out:
    if (ret == ES_ERR_NOMEM) es_error("out of memory reading PLINK fileset %s", prefix);
    es_fileset_close(p);
    return ret;
}

int es_bim_open(es_fileset_t **out, const char *path)
{
    int ret = ES_OK;
    es_fileset_t *p = NULL;
    *out = NULL;
    if (!(p = calloc(1, sizeof *p)) || !(p->bim_path = strdup(path))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    if ((ret = parse_bim(p)) != ES_OK) goto out;
    *out = p;
    p = NULL;
out:
    if (ret == ES_ERR_NOMEM) es_error("out of memory reading %s", path);
    es_fileset_close(p);
    return ret;
}

void es_fileset_close(es_fileset_t *p)
{
    if (!p) return;
    /* VCF input keeps its rows in memory; a .bed is mapped */
    if (p->rows_owned) {
        free(p->rows_owned);
    } else if (p->bed_map) {
        bed_guard_remove(p);
        munmap((void *)p->bed_map, p->bed_size);
    }
    free(p->var_src);
    free(p->bed_path);
    free(p->bim_path);
    free(p->fam_path);
    free(p->bim_text);
    free(p->chr);
    free(p->id);
    free(p->a1);
    free(p->a2);
    free(p->pos);
    free(p->cm);
    free(p->fam_text);
    free(p->fid);
    free(p->iid);
    free(p->fam_pheno);
    free(p->fam_pheno01);
    free(p->fam_qt);
    free(p->fam_sex);
    free(p->fam_founder);
    free(p);
}
