/* testutil.h -- helpers shared by the cmocka tests: temporary directories,
 * writing small PLINK filesets from genotype matrices, deterministic random
 * numbers, a temp-dir fixture with stderr capture and message assertions.
 * Header-only so each test program stays one file; include it after
 * <cmocka.h>. */
#ifndef ES_TESTUTIL_H
#define ES_TESTUTIL_H

#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tu_rand.h" /* tu_rand(): splitmix64 */


/* uniform in [0, n) */
static inline uint32_t tu_randn(uint64_t *state, uint32_t n)
{
    return (uint32_t)(tu_rand(state) % n);
}

/* Make a fresh temporary directory; returns a malloc'd path. */
static inline char *tu_mkdtemp(void)
{
    char tmpl[] = "/tmp/es_test.XXXXXX";
    char *d = mkdtemp(tmpl);
    return d ? strdup(d) : NULL;
}

/* Remove a directory made by tu_mkdtemp and its files (no subdirectories). */
static inline void tu_rmtree(const char *dir)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

/* Write `text` to path; returns 0 on success. */
static inline int tu_write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs(text, f);
    return fclose(f);
}

/* Write raw bytes to path; returns 0 on success. */
static inline int tu_write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    if (n && fwrite(data, 1, n, f) != n) {
        fclose(f);
        return -1;
    }
    return fclose(f);
}

/*
 * Write PREFIX.bed/.bim/.fam.  geno is variant-major: geno[v*n + s] in
 * {0,1,2} = copies of A1, 3 = missing.  pheno[s] is the .fam column 6 value
 * (e.g. 1 control, 2 case, -9 missing).  Variants are on chromosome 1 at
 * positions 1000*(v+1), named rs<v+1>; samples are FAM<s> / IND<s>.
 * Returns 0 on success.
 */
static inline int tu_write_bfile(const char *prefix, const uint8_t *geno, uint32_t m, uint32_t n,
                                 const int *pheno)
{
    char path[4096];
    FILE *f;
    snprintf(path, sizeof path, "%s.fam", prefix);
    if (!(f = fopen(path, "w"))) return -1;
    for (uint32_t s = 0; s < n; s++) fprintf(f, "FAM%u IND%u 0 0 %d %d\n", s, s, 1 + (int)(s & 1), pheno[s]);
    fclose(f);
    snprintf(path, sizeof path, "%s.bim", prefix);
    if (!(f = fopen(path, "w"))) return -1;
    for (uint32_t v = 0; v < m; v++) fprintf(f, "1\trs%u\t0\t%u\tA\tG\n", v + 1, 1000 * (v + 1));
    fclose(f);
    snprintf(path, sizeof path, "%s.bed", prefix);
    if (!(f = fopen(path, "wb"))) return -1;
    const unsigned char magic[3] = {0x6c, 0x1b, 0x01};
    fwrite(magic, 1, 3, f);
    /* PLINK codes: 00 hom A1 (2 copies), 01 missing, 10 het, 11 hom A2 */
    static const uint8_t code_of[4] = {3, 2, 0, 1};
    size_t bpv = (n + 3) / 4;
    uint8_t *row = (uint8_t *)calloc(bpv ? bpv : 1, 1);
    if (!row) {
        fclose(f);
        return -1;
    }
    for (uint32_t v = 0; v < m; v++) {
        memset(row, 0, bpv);
        for (uint32_t s = 0; s < n; s++)
            row[s / 4] |= (uint8_t)(code_of[geno[(size_t)v * n + s]] << (2 * (s % 4)));
        fwrite(row, 1, bpv, f);
    }
    free(row);
    return fclose(f);
}

#ifdef CMOCKA_H_ /* the fixture parts use cmocka's assertions */
/* ---- stderr capture: the messages are part of the contract ------------- */

typedef struct {
    int saved; /* saved stderr while capturing, else -1 */
    char path[4200];
    char text[65536];
} tu_capture_t;

/* Capture into DIR/stderr.txt; not capturing yet. */
static inline void tu_cap_init(tu_capture_t *cap, const char *dir)
{
    snprintf(cap->path, sizeof cap->path, "%s/stderr.txt", dir);
    cap->saved = -1;
}

static inline void tu_cap_start(tu_capture_t *cap)
{
    fflush(stderr);
    int fd = open(cap->path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    cap->saved = dup(2);
    assert_true(cap->saved >= 0);
    dup2(fd, 2);
    close(fd);
}

/* Stop capturing; returns the captured text (also echoed, for the test log). */
static inline const char *tu_cap_stop(tu_capture_t *cap)
{
    if (cap->saved < 0) return cap->text;
    fflush(stderr);
    dup2(cap->saved, 2);
    close(cap->saved);
    cap->saved = -1;
    cap->text[0] = '\0';
    FILE *f = fopen(cap->path, "r");
    if (f) {
        size_t n = fread(cap->text, 1, sizeof cap->text - 1, f);
        cap->text[n] = '\0';
        fclose(f);
    }
    fputs(cap->text, stderr);
    return cap->text;
}

/* Each needle (NULL-terminated list) must occur in text. */
static inline void tu_expect_msg_va(const char *text, va_list ap)
{
    const char *needle;
    while ((needle = va_arg(ap, const char *)) != NULL) {
        if (!strstr(text, needle)) fail_msg("message lacks '%s':\n%s", needle, text);
    }
}

static inline int tu_count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

/* ---- temp-dir fixture core --------------------------------------------- */

/* ends a list of expected message fragments (a typed NULL: variadic) */
#define END ((const char *)NULL)

/* The first member of each test's own fixture struct. */
typedef struct {
    char *dir;
    tu_capture_t cap;
} tu_fixture_t;

/* Allocate a zeroed fixture of `size` bytes that starts with a tu_fixture_t,
 * make its directory and arm the capture; NULL on failure. */
static inline void *tu_fixture_new(size_t size)
{
    tu_fixture_t *b = calloc(1, size);
    if (!b) return NULL;
    if (!(b->dir = tu_mkdtemp())) {
        free(b);
        return NULL;
    }
    tu_cap_init(&b->cap, b->dir);
    return b;
}

/* Stop any capture, remove the directory, free the fixture. */
static inline void tu_fixture_free(void *fx)
{
    tu_fixture_t *b = fx;
    tu_cap_stop(&b->cap);
    tu_rmtree(b->dir);
    free(b->dir);
    free(b);
}
#endif /* CMOCKA_H_ */

/* ---- scan fixtures (test_scan.c, test_gpu.c); need epistream's es_pair_t ---- */
#ifdef EPISTREAM_H
/* Significant pairs as a scan streams them; order_ok stays 1 while they come
 * in (i, j) order. */
typedef struct {
    es_pair_t *p;
    size_t n, cap;
    int order_ok;
} tu_sig_list_t;

static inline int tu_sig_collect(const es_pair_t *p, void *ud)
{
    tu_sig_list_t *l = ud;
    if (l->n && (l->p[l->n - 1].i > p->i || (l->p[l->n - 1].i == p->i && l->p[l->n - 1].j >= p->j)))
        l->order_ok = 0;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->p = realloc(l->p, l->cap * sizeof *l->p);
    }
    l->p[l->n++] = *p;
    return 0;
}

typedef struct {
    char *dir, prefix[512];
    uint32_t m, n;
    uint8_t *geno;
    int *pheno;
} tu_geno_t;

/* m variants x n samples, some missing calls, a monomorphic and an all-missing
 * variant, a few samples without phenotype */
static inline tu_geno_t *tu_geno_make(uint32_t m, uint32_t n, double miss, uint64_t seed)
{
    tu_geno_t *f = calloc(1, sizeof *f);
    f->m = m;
    f->n = n;
    f->dir = tu_mkdtemp();
    snprintf(f->prefix, sizeof f->prefix, "%s/d", f->dir);
    f->geno = malloc((size_t)m * n);
    f->pheno = malloc(n * sizeof *f->pheno);
    uint64_t rng = seed;
    for (uint32_t s = 0; s < n; s++) {
        uint32_t r = tu_randn(&rng, 100);
        f->pheno[s] = r < 3 ? -9 : r < 50 ? 1 : 2;
    }
    for (uint32_t v = 0; v < m; v++) {
        uint32_t maf = 5 + tu_randn(&rng, 45);
        for (uint32_t s = 0; s < n; s++) {
            uint8_t g = (uint8_t)((tu_randn(&rng, 100) < maf) + (tu_randn(&rng, 100) < maf));
            if ((double)tu_randn(&rng, 1000000) < miss * 1e6) g = 3;
            if (v == 3) g = 0;                   /* monomorphic */
            if (v == 5 && miss > 0) g = 3;       /* all missing */
            f->geno[(size_t)v * n + s] = g;
        }
    }
    assert_int_equal(tu_write_bfile(f->prefix, f->geno, m, n, f->pheno), 0);
    return f;
}

static inline void tu_geno_free(tu_geno_t *f)
{
    tu_rmtree(f->dir);
    free(f->dir);
    free(f->geno);
    free(f->pheno);
    free(f);
}

#endif

/* ---- whole scans compared (test_scan.c, test_gpu.c) ---------------------------- */
#if defined(CMOCKA_H_) && defined(ES_UTIL_H)
/* A scan's whole result, to compare two scans byte for byte. */
typedef struct {
    es_pair_t *top;
    size_t n_top;
    es_summary_t *sum;
    tu_sig_list_t sig;
} tu_result_t;

/* Run a scan (backend: NULL for the one opt chooses) into r. */
static inline void tu_run_scan(es_dataset_t *ds, const es_opt_t *opt, const es_backend_t *backend, tu_result_t *r)
{
    es_scan_t *scan = NULL;
    memset(r, 0, sizeof *r);
    r->sig.order_ok = 1;
    assert_int_equal(es_scan_create(&scan, ds, opt), ES_OK);
#ifdef ES_TILE_H
    if (backend) scan->backend = backend;
#else
    assert_null(backend);
#endif
    es_scan_set_sig_callback(scan, tu_sig_collect, &r->sig);
    assert_int_equal(es_scan_run(scan), ES_OK);
    r->n_top = es_scan_top_count(scan);
    r->top = malloc((r->n_top + 1) * sizeof *r->top);
    memcpy(r->top, es_scan_top(scan), r->n_top * sizeof *r->top);
    uint32_t m = es_dataset_n_variants(ds);
    r->sum = malloc(m * sizeof *r->sum);
    memcpy(r->sum, es_scan_summary(scan), m * sizeof *r->sum);
    es_scan_destroy(scan);
}

static inline void tu_free_result(tu_result_t *r)
{
    free(r->top);
    free(r->sum);
    free(r->sig.p);
}

/* byte-identical: every field, NaN p-values included */
static inline void tu_same_result(const tu_result_t *a, const tu_result_t *b, uint32_t m, const char *what)
{
    if (a->n_top != b->n_top) fail_msg("%s: top-k of %zu and %zu pairs", what, a->n_top, b->n_top);
    if (memcmp(a->top, b->top, a->n_top * sizeof *a->top) != 0) fail_msg("%s: top-k differs", what);
    for (uint32_t v = 0; v < m; v++) {
        const es_summary_t *x = &a->sum[v], *y = &b->sum[v];
        if (x->best_partner != y->best_partner || x->n_sig != y->n_sig || x->n_tot != y->n_tot ||
            memcmp(&x->best_stat, &y->best_stat, sizeof x->best_stat) != 0 ||
            memcmp(&x->best_p, &y->best_p, sizeof x->best_p) != 0)
            fail_msg("%s: summary of variant %u differs", what, v);
    }
    if (a->sig.n != b->sig.n) fail_msg("%s: %zu and %zu significant pairs", what, a->sig.n, b->sig.n);
    if (a->sig.n && memcmp(a->sig.p, b->sig.p, a->sig.n * sizeof *a->sig.p) != 0)
        fail_msg("%s: significant pairs differ", what);
    assert_true(b->sig.order_ok);
}
#endif

/* ---- discrete tables (test_mi.c, test_gpu_mi.c) ------------------------------ */
#if defined(CMOCKA_H_) && defined(ES_UTIL_H)
/* An all-zero n x nf table with nc classes (fill x, y and n_states). */
static inline void tu_dtable_init(es_dtable_t *d, uint32_t n, uint32_t nf, uint32_t nc)
{
    memset(d, 0, sizeof *d);
    d->n_samples = n;
    d->n_features = nf;
    d->n_classes = nc;
    d->x = calloc((size_t)n * nf + 1, sizeof *d->x);
    d->y = calloc((size_t)n + 1, sizeof *d->y);
    d->n_states = calloc((size_t)nf + 1, sizeof *d->n_states);
    assert_non_null(d->x);
    assert_non_null(d->y);
    assert_non_null(d->n_states);
}
#endif

/* ---- adversarial pairs for the linear tests' bounds (test_qt.c, test_gpu_qt.c) ---- */
#ifdef ES_COUNT_H
static inline double tu_unif(uint64_t *r) { return (double)(tu_rand(r) >> 11) / 9007199254740992.0; }

static inline double tu_gauss(uint64_t *r)
{
    double u = tu_unif(r) + 1e-300, v = tu_unif(r);
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

/* Pair number `it`: genotypes ga, gb and phenotype y of its n samples
 * (returned; at most 2,000): tiny n, rare and near-fixed genotypes, equal or
 * mirrored ones; phenotypes (kind it % 7) normal, constant but one, exactly
 * and nearly fitted by the model, heavy-tailed, far from 0, few values.
 * *lo, *hi: y's range (hi > lo), and the fixed point's scales of a scan. */
static inline uint32_t tu_qt_draw(uint64_t *r, int it, uint8_t *ga, uint8_t *gb, double *y, double *lo,
                                  double *scale, double *scale2)
{
    static const uint32_t ns[] = {5, 6, 7, 9, 12, 20, 40, 100, 300, 2000};
    uint32_t n = ns[tu_randn(r, 10)];
    int gmode = (int)tu_randn(r, 7), ymode = it % 7;
    double pa = tu_unif(r) * 0.5, pb = tu_unif(r) * 0.5;
    if (gmode == 1) pa = pb = 0.002 + 0.02 * tu_unif(r); /* rare */
    if (gmode == 2) pa = 0.97 + 0.03 * tu_unif(r);       /* A1 the major allele */
    double l = INFINITY, hi = -INFINITY;
    double b0 = tu_gauss(r) * 100, b1 = tu_gauss(r), b2 = tu_gauss(r), b3 = tu_randn(r, 3) ? tu_gauss(r) : 0;
    for (uint32_t s = 0; s < n; s++) {
        uint8_t a = (uint8_t)((tu_unif(r) < pa) + (tu_unif(r) < pa)), b = (uint8_t)((tu_unif(r) < pb) + (tu_unif(r) < pb));
        if (gmode == 3) b = a;                           /* identical */
        if (gmode == 4) b = (uint8_t)(2 - a);            /* mirrored */
        if (gmode == 5 && tu_unif(r) < 0.9) b = a;       /* nearly identical */
        if (gmode == 6) a = (uint8_t)(s % 3 ? 1 : a);    /* nearly fixed */
        ga[s] = a;
        gb[s] = b;
        double fit = b0 + b1 * a + b2 * b + b3 * a * b, v;
        switch (ymode) {
        case 0: v = tu_gauss(r); break;
        case 1: v = 5 + (s == 0 ? 1e-9 : 0); break;                 /* constant but one */
        case 2: v = fit; break;                                      /* fitted exactly */
        case 3: v = fit + 1e-9 * tu_gauss(r); break;                 /* nearly so */
        case 4: v = tu_gauss(r) / (tu_unif(r) + 1e-3); break;        /* heavy tail */
        case 5: v = 1e6 + tu_gauss(r) + b3 * a * b; break;           /* far from 0 */
        default: v = (double)tu_randn(r, 3) + 0.5 * a * b; break;    /* few values */
        }
        y[s] = v;
        if (v < l) l = v;
        if (v > hi) hi = v;
    }
    if (!(hi > l)) hi = l + 1;
    /* the scan's fixed point: q < 2^39, q2 < 2^39 */
    int e;
    frexp(hi - l, &e);
    *scale = ldexp(1.0, ES_QT_BITS - e);
    frexp((hi - l) * (hi - l), &e);
    *scale2 = ldexp(1.0, ES_QT_BITS - e);
    *lo = l;
    return n;
}
#endif

/* ---- GPU tests (test_gpu.c, test_gpu_mi.c) ----------------------------------- */
#ifdef ES_GPU_H
#include "gpu_test.h" /* es_gpu_b1_gemm_test */
#ifdef ES_DATA_H
/* The engines' view of packed block pl (es_gpu_block_t), as block `index`. */
static inline void tu_gpu_block_of(const es_planes_t *pl, uint32_t index, es_gpu_block_t *b)
{
    b->index = index;
    b->first = pl->first;
    b->count = pl->count;
    b->planes = pl->planes;
    b->gcount = (const uint32_t *)pl->gcount;
}
#endif

/* 0 when a CUDA device is visible, else 77 after a line saying so: the
 * test's exit status. */
static inline int tu_gpu_none(void)
{
    int n = 0;
    if (es_gpu_device_count(&n) == ES_OK && n > 0) return 0;
    printf("no CUDA device visible: skipped\n");
    return 77;
}

/* tu_gpu_none(), and *have_wgmma: the sm_90a kernels run on device 0. */
static inline int tu_gpu_probe(int *have_wgmma)
{
    int skip = tu_gpu_none();
    if (skip) return skip;
    uint64_t z[4] = {0, 0, 0, 0};
    uint32_t prod[2] = {0, 0};
    *have_wgmma = es_gpu_b1_gemm_test(0, 2, z, 1, z, 1, 2, 0, 2, 0, prod) == ES_OK;
    printf("# wgmma kernel: %s\n", *have_wgmma ? "tested" : "not usable on this device or build");
    return 0;
}
#endif

#endif
