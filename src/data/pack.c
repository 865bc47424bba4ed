/* pack.c -- PLINK 2-bit rows into per-class genotype bit planes.
 *
 * Packing runs once per variant of the whole dataset, so it is built for
 * throughput rather than per-sample decisions.  One row is handled 64
 * samples (16 bytes) at a time:
 *   1. decode: split the 2-bit codes into their low and high bits, in .fam
 *      order, which gives P1, P2 and V for 64 samples with a few word ops;
 *   2. compress: keep the bits of one class, in order (a PEXT by the class's
 *      .fam mask), and append them to that class's output planes.
 * Step 2 relies on dataset.c's slot assignment: within a class, slots follow
 * .fam order without gaps.  When a dataset breaks that (slot[] is only a
 * contract on destinations), a per-sample scatter path gives the same planes.
 *
 * PEXT is one instruction with BMI2, but microcoded and slow on AMD before
 * Zen 3, so the BMI2 packer is taken only where it is fast; elsewhere a
 * byte-wise lookup table does the same.  All packers share one always_inline
 * body, compiled once per target. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>

#include "data.h"

#if ES_CPU_X86
#include <immintrin.h>
#endif
#if defined(__x86_64__)
#define ES_PACK_PEXT 1 /* _pext_u64 is for 64-bit code only */
#endif

/* Samples per source word: 64, i.e. 16 .bed bytes. */
#define SRC_BYTES 16

/* What stays the same for every variant of one es_pack() call. */
typedef struct {
    size_t n_src;      /* source words: ceil(.fam samples / 64) */
    size_t bpv;        /* .bed bytes per variant */
    uint64_t *mask[2]; /* mask[y][w]: .fam samples 64w.. of class y (0 control, 1 case) */
    int dense;         /* slots follow .fam order without gaps within each class */
    const int64_t *slot;
    uint32_t words, w_case, n_planes;
} plan_t;

/* ---- decode ------------------------------------------------------------------ */

/* Gather bits 0, 2, 4, ..., 62 of x into the low 32 bits (portable PEXT by
 * 0x5555...). */
static inline uint64_t even_bits_soft(uint64_t x)
{
    x &= 0x5555555555555555ULL;
    x = (x | (x >> 1)) & 0x3333333333333333ULL;
    x = (x | (x >> 2)) & 0x0f0f0f0f0f0f0f0fULL;
    x = (x | (x >> 4)) & 0x00ff00ff00ff00ffULL;
    x = (x | (x >> 8)) & 0x0000ffff0000ffffULL;
    x = (x | (x >> 16)) & 0x00000000ffffffffULL;
    return x;
}

typedef uint64_t (*even_bits_fn)(uint64_t x);

static inline uint64_t load_le64(const uint8_t *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    return x;
}

/* Planes P1, P2, V of the 64 samples of source word w, in .fam order.  Bits
 * past the last sample are garbage; the class masks never select them.
 * Codes: 00 hom A1 (g=2), 01 missing, 10 het (g=1), 11 hom A2 (g=0); with
 * lo/hi the code's low/high bit: P1 = !lo, P2 = !lo & !hi, V = hi | !lo. */
static inline __attribute__((always_inline)) void
decode_word(const uint8_t *row, size_t bpv, size_t w, uint64_t p[3], even_bits_fn even)
{
    uint8_t tail[SRC_BYTES];
    const uint8_t *src = row + w * SRC_BYTES;
    size_t left = bpv - w * SRC_BYTES;
    if (left < SRC_BYTES) {
        memset(tail, 0, sizeof tail);
        memcpy(tail, src, left);
        src = tail;
    }
    uint64_t x0 = load_le64(src), x1 = load_le64(src + 8);
    uint64_t lo = even(x0) | even(x1) << 32;
    uint64_t hi = even(x0 >> 1) | even(x1 >> 1) << 32;
    p[0] = ~lo;
    p[1] = ~(lo | hi);
    p[2] = hi | ~lo;
}

/* ---- compress ---------------------------------------------------------------- */

/* compress_lut[m][x]: the bits of x selected by m, packed to the bottom. */
static uint8_t compress_lut[256][256];
static uint8_t pop8[256];
static pthread_once_t lut_once = PTHREAD_ONCE_INIT;

static void lut_init(void)
{
    for (unsigned m = 0; m < 256; m++) {
        unsigned k = 0;
        for (unsigned b = 0; b < 8; b++)
            k += (m >> b) & 1;
        pop8[m] = (uint8_t)k;
        for (unsigned x = 0; x < 256; x++) {
            unsigned c = 0, pos = 0;
            for (unsigned b = 0; b < 8; b++)
                if (m >> b & 1) c |= (x >> b & 1) << pos++;
            compress_lut[m][x] = (uint8_t)c;
        }
    }
}

typedef void (*compress3_fn)(uint64_t m, const uint64_t x[3], uint64_t c[3]);

/* c[i] = PEXT(x[i], m) for the three planes, one mask byte at a time. */
static void compress3_soft(uint64_t m, const uint64_t x[3], uint64_t c[3])
{
    uint64_t c0 = 0, c1 = 0, c2 = 0;
    unsigned pos = 0;
    for (unsigned j = 0; j < 64; j += 8) {
        unsigned mb = (unsigned)(m >> j) & 255;
        if (!mb) continue;
        const uint8_t *t = compress_lut[mb];
        c0 |= (uint64_t)t[(x[0] >> j) & 255] << pos;
        c1 |= (uint64_t)t[(x[1] >> j) & 255] << pos;
        c2 |= (uint64_t)t[(x[2] >> j) & 255] << pos;
        pos += pop8[mb];
    }
    c[0] = c0;
    c[1] = c1;
    c[2] = c2;
}

/* ---- bit-stream writer: appends k <= 64 bits to one class's three planes --- */

/* One class's writer.  Scalar fields, and one variable per class in
 * pack_dense, so that the compiler keeps the state in registers: with arrays
 * indexed by plane and class it stayed in memory, and packing ran at a third
 * of this speed (issue 24). */
typedef struct {
    uint64_t *o0, *o1, *o2; /* output words of the class in P1, P2, V */
    uint64_t a0, a1, a2;    /* bits not yet stored */
    uint64_t n0, n1, n2;    /* bits set so far, per plane */
    uint32_t fill;          /* valid bits in a0..a2 (< 64) */
    uint32_t wi;            /* next word to store */
    uint32_t w_end;         /* words of the class */
} writer_t;

/* Append the k low bits of c0, c1, c2 (nothing above them set).  store_v 0:
 * V is only counted (two planes; its count still finds missing calls). */
static inline __attribute__((always_inline)) void wr_put(writer_t *wr, uint64_t c0, uint64_t c1, uint64_t c2,
                                                         unsigned k, int store_v)
{
    unsigned fill = wr->fill, rem = fill + k;
    wr->n0 += (uint64_t)__builtin_popcountll(c0);
    wr->n1 += (uint64_t)__builtin_popcountll(c1);
    wr->n2 += (uint64_t)__builtin_popcountll(c2);
    wr->a0 |= c0 << fill;
    wr->a1 |= c1 << fill;
    if (store_v) wr->a2 |= c2 << fill;
    if (rem >= 64) {
        rem -= 64;
        wr->o0[wr->wi] = wr->a0;
        wr->o1[wr->wi] = wr->a1;
        if (store_v) wr->o2[wr->wi] = wr->a2;
        /* fill > 0 here unless k == 64 and fill == 0, where rem == 0 */
        wr->a0 = rem ? c0 >> (64 - fill) : 0;
        wr->a1 = rem ? c1 >> (64 - fill) : 0;
        if (store_v) wr->a2 = rem ? c2 >> (64 - fill) : 0;
        wr->wi++;
    }
    wr->fill = rem;
}

/* Store the partial word and zero the pad words up to the class end. */
static inline __attribute__((always_inline)) void wr_finish(writer_t *wr, int store_v)
{
    uint32_t k = wr->wi;
    if (wr->fill) {
        wr->o0[k] = wr->a0;
        wr->o1[k] = wr->a1;
        if (store_v) wr->o2[k] = wr->a2;
        k++;
    }
    for (; k < wr->w_end; k++) {
        wr->o0[k] = 0;
        wr->o1[k] = 0;
        if (store_v) wr->o2[k] = 0;
    }
}

/* The samples of source word w that mask m keeps, appended to wr. */
static inline __attribute__((always_inline)) void wr_class(writer_t *wr, uint64_t m, const uint64_t p[3],
                                                           compress3_fn compress, int store_v)
{
    if (m == ~0ULL) {
        wr_put(wr, p[0], p[1], p[2], 64, store_v);
    } else if (m) {
        uint64_t c[3];
        compress(m, p, c);
        wr_put(wr, c[0], c[1], c[2], (unsigned)__builtin_popcountll(m), store_v);
    }
}

/* ---- one variant, dense slots ---------------------------------------------- */

static inline __attribute__((always_inline)) void wr_init(writer_t *r, uint64_t *planes, uint32_t words,
                                                          uint32_t off, uint32_t w_end, int store_v)
{
    memset(r, 0, sizeof *r);
    r->o0 = planes + off;
    r->o1 = planes + words + off;
    r->o2 = store_v ? planes + 2 * (size_t)words + off : NULL;
    r->w_end = w_end;
}

/* planes: the variant's planes (P1, P2 at +words, V at +2*words when
 * n_planes == 3); cnt[y][i]: set bits of plane i in class y. */
static inline __attribute__((always_inline)) void pack_dense(const plan_t *pn, const uint8_t *row,
                                                             uint64_t *planes, uint64_t cnt[2][3],
                                                             even_bits_fn even, compress3_fn compress)
{
    const int store_v = pn->n_planes == 3;
    writer_t wc, wn; /* cases (class 1) first in the planes, then controls (class 0) */
    wr_init(&wc, planes, pn->words, 0, pn->w_case, store_v);
    wr_init(&wn, planes, pn->words, pn->w_case, pn->words - pn->w_case, store_v);
    const uint64_t *m0 = pn->mask[0], *m1 = pn->mask[1];
    for (size_t w = 0; w < pn->n_src; w++) {
        uint64_t p[3];
        decode_word(row, pn->bpv, w, p, even);
        wr_class(&wc, m1[w], p, compress, store_v);
        wr_class(&wn, m0[w], p, compress, store_v);
    }
    wr_finish(&wc, store_v);
    wr_finish(&wn, store_v);
    cnt[1][0] = wc.n0;
    cnt[1][1] = wc.n1;
    cnt[1][2] = wc.n2;
    cnt[0][0] = wn.n0;
    cnt[0][1] = wn.n1;
    cnt[0][2] = wn.n2;
}

/* Variants [first, first + count) into pl: the body of every packer. */
static inline __attribute__((always_inline)) void
pack_rows_body(const plan_t *pn, const es_fileset_t *pk, uint32_t first, uint32_t count,
               es_planes_t *pl, uint64_t (*cnt)[2][3], even_bits_fn even,
               compress3_fn compress)
{
    for (uint32_t v = 0; v < count; v++) {
        uint64_t *planes = pl->planes + (size_t)v * pl->n_planes * pl->words;
        pack_dense(pn, es_fileset_row(pk, first + v), planes, cnt[v], even, compress);
    }
}

typedef void (*pack_rows_fn)(const plan_t *pn, const es_fileset_t *pk, uint32_t first, uint32_t count,
                             es_planes_t *pl, uint64_t (*cnt)[2][3]);

static void pack_rows_generic(const plan_t *pn, const es_fileset_t *pk, uint32_t first,
                              uint32_t count, es_planes_t *pl,
                              uint64_t (*cnt)[2][3])
{
    pack_rows_body(pn, pk, first, count, pl, cnt, even_bits_soft, compress3_soft);
}

#if ES_CPU_X86
/* The same code with the POPCNT instruction (for gcount). */
ES_TARGET_POPCNT static void
pack_rows_popcnt(const plan_t *pn, const es_fileset_t *pk, uint32_t first, uint32_t count,
                 es_planes_t *pl, uint64_t (*cnt)[2][3])
{
    pack_rows_body(pn, pk, first, count, pl, cnt, even_bits_soft, compress3_soft);
}

#endif

#ifdef ES_PACK_PEXT

static inline ES_TARGET_BMI2 uint64_t even_bits_bmi2(uint64_t x)
{
    return _pext_u64(x, 0x5555555555555555ULL);
}

static inline ES_TARGET_BMI2 void compress3_bmi2(uint64_t m, const uint64_t x[3], uint64_t c[3])
{
    c[0] = _pext_u64(x[0], m);
    c[1] = _pext_u64(x[1], m);
    c[2] = _pext_u64(x[2], m);
}

static ES_TARGET_BMI2 void pack_rows_bmi2(const plan_t *pn, const es_fileset_t *pk, uint32_t first,
                                   uint32_t count, es_planes_t *pl,
                                   uint64_t (*cnt)[2][3])
{
    pack_rows_body(pn, pk, first, count, pl, cnt, even_bits_bmi2, compress3_bmi2);
}
#endif

/* ---- packer selection ---------------------------------------------------------- */

typedef struct {
    const char *name;
    pack_rows_fn fn;
} packer_t;

static packer_t packers[4];
static size_t n_packers;
static pthread_once_t packers_once = PTHREAD_ONCE_INIT;

static void packers_init(void)
{
    size_t n = 0;
    packers[n++] = (packer_t){"generic", pack_rows_generic};
#if ES_CPU_X86
    if (es_cpu_has(ES_CPU_POPCNT)) packers[n++] = (packer_t){"popcnt", pack_rows_popcnt};
#endif
#ifdef ES_PACK_PEXT
    if (es_cpu_has(ES_CPU_FAST_BMI2)) packers[n++] = (packer_t){"bmi2", pack_rows_bmi2};
#endif
    n_packers = n;
}

/* The fastest packer, unless EPISTREAM_PACK (generic, popcnt, bmi2) names another
 * this CPU has; read on every call so tests can compare all packers in one
 * process.  A name it does not have selects the fastest. */
static pack_rows_fn packer_best(void)
{
    pthread_once(&packers_once, packers_init);
    const char *want = es_env_variant("EPISTREAM_PACK");
    if (want)
        for (size_t k = 0; k < n_packers; k++)
            if (!strcmp(packers[k].name, want)) return packers[k].fn;
    return packers[n_packers - 1].fn;
}

/* ---- the plan and the scatter path ------------------------------------------------ */

static void plan_free(plan_t *pn)
{
    free(pn->mask[0]);
    free(pn->mask[1]);
}

/* Check ds->slot against the layout of pl and build the class masks. */
static int plan_build(plan_t *pn, const es_dataset_t *ds, const es_planes_t *pl)
{
    const es_fileset_t *pk = ds->plink;
    uint64_t case_end = ds->n_case, ctrl_begin = (uint64_t)pl->w_case * 64;
    uint64_t ctrl_end = ctrl_begin + ds->n_ctrl;
    memset(pn, 0, sizeof *pn);
    pn->n_src = ((size_t)pk->n_samples + 63) / 64;
    pn->bpv = pk->bytes_per_variant;
    pn->slot = ds->slot;
    pn->words = pl->words;
    pn->w_case = pl->w_case;
    pn->n_planes = pl->n_planes;
    pn->mask[0] = calloc(pn->n_src ? pn->n_src : 1, sizeof(uint64_t));
    pn->mask[1] = calloc(pn->n_src ? pn->n_src : 1, sizeof(uint64_t));
    if (!pn->mask[0] || !pn->mask[1]) return ES_ERR_NOMEM;

    int64_t next[2] = {(int64_t)ctrl_begin, 0};
    pn->dense = 1;
    for (uint32_t s = 0; s < pk->n_samples; s++) {
        int64_t d = ds->slot[s];
        if (d < 0) continue;
        int y;
        if ((uint64_t)d < case_end)
            y = 1;
        else if ((uint64_t)d >= ctrl_begin && (uint64_t)d < ctrl_end)
            y = 0;
        else {
            es_error("sample %u has plane slot %lld, outside the %u cases and %u controls", s,
                     (long long)d, ds->n_case, ds->n_ctrl);
            return ES_ERR_ARG;
        }
        if (d != next[y]) pn->dense = 0;
        next[y]++;
        pn->mask[y][s / 64] |= 1ULL << (s % 64);
    }
    uint64_t kept_ctrl = (uint64_t)(next[0] - (int64_t)ctrl_begin), kept_case = (uint64_t)next[1];
    if (kept_ctrl != ds->n_ctrl || kept_case != ds->n_case) {
        es_error("slots name %llu cases and %llu controls, but the dataset has %u and %u",
                 (unsigned long long)kept_case, (unsigned long long)kept_ctrl, ds->n_case,
                 ds->n_ctrl);
        return ES_ERR_ARG;
    }
    if (!pn->dense) {
        /* The scatter path ORs bits into place: a slot used twice would
         * lose a sample silently, so check that none is. */
        uint64_t *seen = calloc(pl->words ? pl->words : 1, sizeof(uint64_t));
        if (!seen) return ES_ERR_NOMEM;
        for (uint32_t s = 0; s < pk->n_samples; s++) {
            int64_t d = ds->slot[s];
            if (d < 0) continue;
            if (seen[d / 64] >> (d % 64) & 1) {
                es_error("plane slot %lld is given to more than one sample (sample %u)",
                         (long long)d, s);
                free(seen);
                return ES_ERR_ARG;
            }
            seen[d / 64] |= 1ULL << (d % 64);
        }
        free(seen);
    }
    return ES_OK;
}

/* Any other slot assignment (one sample per slot, checked by plan_build()):
 * decode as usual, then move the bits one sample at a time. */
static void pack_scatter(const plan_t *pn, const uint8_t *row, uint64_t *planes, uint64_t *vbuf,
                         uint64_t cnt[2][3])
{
    uint64_t *o[3] = {planes, planes + pn->words,
                      pn->n_planes == 3 ? planes + 2 * (size_t)pn->words : vbuf};
    for (int i = 0; i < 3; i++)
        memset(o[i], 0, (size_t)pn->words * sizeof(uint64_t));
    for (size_t w = 0; w < pn->n_src; w++) {
        uint64_t p[3];
        uint64_t m = pn->mask[0][w] | pn->mask[1][w];
        decode_word(row, pn->bpv, w, p, even_bits_soft);
        while (m) {
            unsigned b = (unsigned)__builtin_ctzll(m);
            m &= m - 1;
            uint64_t d = (uint64_t)pn->slot[w * 64 + b];
            for (int i = 0; i < 3; i++)
                o[i][d / 64] |= (p[i] >> b & 1) << (d % 64);
        }
    }
    for (int y = 0; y < 2; y++) {
        uint32_t lo = y ? 0 : pn->w_case, hi = y ? pn->w_case : pn->words;
        for (int i = 0; i < 3; i++) {
            uint64_t c = 0;
            for (uint32_t k = lo; k < hi; k++)
                c += (uint64_t)__builtin_popcountll(o[i][k]);
            cnt[y][i] = c;
        }
    }
}

/* ---- public ------------------------------------------------------------------ */

size_t es_planes_bytes(const es_dataset_t *ds, uint32_t count, uint32_t n_planes)
{
    uint64_t w_case = es_class_words(ds, ds->n_case), w_ctrl = es_class_words(ds, ds->n_ctrl);
    return (size_t)count * n_planes * (w_case + w_ctrl) * sizeof(uint64_t);
}

/* Everything but the planes themselves. */
static int planes_init(es_planes_t *pl, const es_dataset_t *ds, uint32_t count, uint32_t n_planes)
{
    if (!pl || !ds || (n_planes != 2 && n_planes != 3)) {
        es_error("invalid arguments (n_planes %u: must be 2 or 3)", n_planes);
        return ES_ERR_ARG;
    }
    memset(pl, 0, sizeof *pl);
    pl->count = count;
    pl->n_case = ds->n_case;
    pl->n_ctrl = ds->n_ctrl;
    pl->w_case = es_class_words(ds, ds->n_case);
    pl->w_ctrl = es_class_words(ds, ds->n_ctrl);
    pl->words = pl->w_case + pl->w_ctrl;
    pl->n_planes = n_planes;
    pl->gcount = malloc((count ? count : 1) * sizeof *pl->gcount);
    pl->miss_ct = malloc((count ? count : 1) * sizeof *pl->miss_ct);
    if (!pl->gcount || !pl->miss_ct) {
        es_error("out of memory allocating counts for %u variants", count);
        es_planes_free(pl);
        return ES_ERR_NOMEM;
    }
    return ES_OK;
}

int es_planes_alloc(es_planes_t *pl, const es_dataset_t *ds, uint32_t count, uint32_t n_planes)
{
    int ret = planes_init(pl, ds, count, n_planes);
    if (ret) return ret;
    /* aligned_alloc wants a size that is a multiple of the alignment (with
     * padding below 512 bits a class, the planes' bytes need not be);
     * never ask for 0 bytes, which may return NULL. */
    size_t bytes = es_planes_bytes(ds, count, n_planes);
    pl->planes = aligned_alloc(64, bytes ? (bytes + 63) / 64 * 64 : 64);
    if (!pl->planes) {
        es_error("out of memory allocating bit planes for %u variants (%zu bytes)", count, bytes);
        es_planes_free(pl);
        return ES_ERR_NOMEM;
    }
    return ES_OK;
}

int es_planes_alloc_mapped(es_planes_t *pl, const es_dataset_t *ds, uint32_t count, uint32_t n_planes,
                           int fd, size_t offset)
{
    int ret = planes_init(pl, ds, count, n_planes);
    if (ret) return ret;
    size_t bytes = es_planes_bytes(ds, count, n_planes);
    void *p = mmap(NULL, bytes ? bytes : 64, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
    if (p == MAP_FAILED) {
        es_error("cannot map %zu bytes of the temporary planes file: %s", bytes, strerror(errno));
        es_planes_free(pl);
        return ES_ERR_IO;
    }
    pl->planes = p;
    pl->mapped = bytes ? bytes : 64;
    return ES_OK;
}

void es_planes_free(es_planes_t *pl)
{
    if (!pl) return;
    if (pl->mapped) munmap(pl->planes, pl->mapped);
    else free(pl->planes);
    free(pl->gcount);
    free(pl->miss_ct);
    free(pl->miss_off);
    free(pl->miss_pos);
    free(pl->miss_word);
    free(pl->miss_mask);
    free(pl->miss_nw);
    pl->miss_off = pl->miss_pos = pl->miss_word = NULL;
    pl->miss_mask = NULL;
    pl->miss_nw = NULL;
    pl->planes = NULL;
    pl->gcount = NULL;
    pl->miss_ct = NULL;
    pl->mapped = 0;
}

/* List the slots of each variant's missing calls where there are at most
 * ES_SPARSE_MISS of them: the kept samples of a class whose V bit is 0. */
static int list_missing(es_planes_t *pl)
{
    const uint32_t cap = ES_SPARSE_MISS(pl->words);
    size_t total = 0;
    free(pl->miss_off);
    free(pl->miss_pos);
    pl->miss_pos = NULL;
    if (!(pl->miss_off = malloc(((size_t)pl->count + 1) * sizeof *pl->miss_off))) return ES_ERR_NOMEM;
    for (uint32_t v = 0; v < pl->count; v++)
        if (pl->miss_ct[v] <= cap) total += pl->miss_ct[v];
    if (!(pl->miss_pos = calloc(total + 1, sizeof *pl->miss_pos))) return ES_ERR_NOMEM;
    /* the words holding each variant's missing calls, when there are at most
     * ES_MISS_WORDS of them (unused entries: word 0, mask 0) */
    free(pl->miss_word);
    free(pl->miss_mask);
    free(pl->miss_nw);
    pl->miss_word = calloc((size_t)pl->count * ES_MISS_WORDS + 1, sizeof *pl->miss_word);
    pl->miss_mask = calloc((size_t)pl->count * ES_MISS_WORDS + 1, sizeof *pl->miss_mask);
    pl->miss_nw = calloc((size_t)pl->count + 1, 1);
    if (!pl->miss_word || !pl->miss_mask || !pl->miss_nw) return ES_ERR_NOMEM;
    uint32_t k = 0;
    for (uint32_t v = 0; v < pl->count; v++) {
        uint32_t nw = 0;
        pl->miss_off[v] = k;
        if (!pl->miss_ct[v] || pl->miss_ct[v] > cap) {
            pl->miss_nw[v] = pl->miss_ct[v] ? 255 : 0;
            continue;
        }
        const uint64_t *vp = es_plane(pl, v, 2);
        for (int y = 1; y >= 0; y--) { /* cases first: slot order */
            uint32_t lo = y ? 0 : pl->w_case, n = y ? pl->n_case : pl->n_ctrl;
            for (uint32_t w = 0; w * 64 < n; w++) {
                uint64_t kept = n - w * 64 >= 64 ? ~0ULL : (1ULL << (n - w * 64)) - 1;
                uint64_t mw = ~vp[lo + w] & kept;
                if (mw && nw < ES_MISS_WORDS) {
                    pl->miss_word[(size_t)v * ES_MISS_WORDS + nw] = lo + w;
                    pl->miss_mask[(size_t)v * ES_MISS_WORDS + nw] = mw;
                }
                nw += mw != 0;
                for (uint64_t m = mw; m; m &= m - 1)
                    pl->miss_pos[k++] = (lo + w) * 64 + (uint32_t)__builtin_ctzll(m);
            }
        }
        pl->miss_nw[v] = (uint8_t)(nw < 255 ? nw : 255);
    }
    pl->miss_off[pl->count] = k;
    return ES_OK;
}

int es_pack(const es_dataset_t *ds, uint32_t first, uint32_t count, es_planes_t *pl)
{
    int ret = ES_OK;
    plan_t pn;
    uint64_t *vbuf = NULL;
    uint64_t(*cnt)[2][3] = NULL;

    memset(&pn, 0, sizeof pn);
    if (!ds || !pl || !pl->planes || (uint64_t)first + count > ds->plink->n_variants) {
        es_error("variants %u..%llu out of range (%u variants)", first,
                 (unsigned long long)first + count, ds ? ds->plink->n_variants : 0);
        return ES_ERR_ARG;
    }
    if (pl->n_case != ds->n_case || pl->n_ctrl != ds->n_ctrl) {
        es_error("planes were allocated for %u cases and %u controls, the dataset has %u and %u",
                 pl->n_case, pl->n_ctrl, ds->n_case, ds->n_ctrl);
        return ES_ERR_ARG;
    }
    pthread_once(&lut_once, lut_init);
    if ((ret = plan_build(&pn, ds, pl)) != ES_OK) goto out;
    vbuf = aligned_alloc(64, ((size_t)pl->words + 8 + 7) / 8 * 8 * sizeof(uint64_t));
    cnt = malloc((count ? count : 1) * sizeof *cnt);
    if (!vbuf || !cnt) {
        ret = ES_ERR_NOMEM;
        goto out;
    }

    if (pn.dense) {
        packer_best()(&pn, ds->plink, first, count, pl, cnt);
    } else {
        for (uint32_t v = 0; v < count; v++)
            pack_scatter(&pn, es_fileset_row(ds->plink, first + v),
                         pl->planes + (size_t)v * pl->n_planes * pl->words, vbuf, cnt[v]);
    }

    /* Genotype counts from plane counts: g2 = |P2|, g1 = |P1| - |P2|,
     * g0 = |V| - |P1|; a kept sample outside V is a missing call. */
    for (uint32_t v = 0; v < count; v++) {
        uint64_t called = 0;
        for (int y = 0; y < 2; y++) {
            const uint64_t *c = cnt[v][y];
            pl->gcount[v][y][2] = (uint32_t)c[1];
            pl->gcount[v][y][1] = (uint32_t)(c[0] - c[1]);
            pl->gcount[v][y][0] = (uint32_t)(c[2] - c[0]);
            called += c[2];
        }
        pl->miss_ct[v] = (uint32_t)(ds->n_case + ds->n_ctrl - called);
        if (pl->miss_ct[v] && pl->n_planes == 2) {
            es_error("variant %u (%s) has %u missing calls, but its planes were allocated "
                     "without a called plane (n_planes 2)",
                     first + v, ds->plink->id ? ds->plink->id[first + v] : "?", pl->miss_ct[v]);
            ret = ES_ERR_ARG;
            goto out;
        }
    }
    pl->first = first;
    pl->count = count;
    ret = list_missing(pl);
out:
    if (ret == ES_ERR_NOMEM)
        es_error("out of memory packing variants %u..%u", first, first + count);
    plan_free(&pn);
    free(vbuf);
    free(cnt);
    return ret;
}
