/* util.h -- the utilities every module may use: the leveled logger, clocks,
 * number formatting, whole-file text reading and line/field splitting, a
 * string index.  Internal (not installed); depends on nothing but epistream.h. */
#ifndef ES_UTIL_H
#define ES_UTIL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "epistream.h"


/** Log one message "[L::func] text\n" to stderr if level <= current level. */
void es_log(es_log_level_t level, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define es_error(...) es_log(ES_LOG_ERROR, __func__, __VA_ARGS__)
#define es_warn(...) es_log(ES_LOG_WARN, __func__, __VA_ARGS__)
#define es_info(...) es_log(ES_LOG_INFO, __func__, __VA_ARGS__)
#define es_debug(...) es_log(ES_LOG_DEBUG, __func__, __VA_ARGS__)

/** Monotonic wall clock in seconds. */
double es_time_now(void);
/** Format n with thousands separators ("1,234,567") into buf (>= 32 bytes). */
const char *es_fmt_count(uint64_t n, char *buf);

/* ---- number formatting without printf, for the result writers (fmt.c) ------------ */

/** Write v in decimal at dst (room for 20 bytes).  @return the end (no NUL). */
char *es_fmt_u64(char *dst, uint64_t v);
/** Write v in decimal at dst (room for 20 bytes).  @return the end (no NUL). */
char *es_fmt_i64(char *dst, int64_t v);
/** s right-justified in width columns (as "%*s"; room for max(width, strlen(s))).
 *  @return the end (no NUL). */
char *es_fmt_str_w(char *dst, const char *s, int width);
/** The bytes of printf("%.*g", prec, x) at dst (room for 32 bytes), nan and
 *  inf spelt as glibc spells them.  @return the end (no NUL). */
char *es_fmt_g(char *dst, double x, int prec);
/** The bytes of printf("%*.*g", width, prec, x) (room for width + 32 bytes).
 *  @return the end (no NUL). */
char *es_fmt_g_w(char *dst, double x, int width, int prec);

/** A buffer that lines are formatted into and written out of in large
 *  blocks: es_wbuf_reserve() room for one line, fill it, advance n.  Flush
 *  before anything else writes to fp.  Not thread-safe; one writer at a time. */
typedef struct {
    FILE *fp;
    char *buf;
    size_t n, cap;
} es_wbuf_t;

/** Set b up over fp with cap bytes (at least 4,096; free with es_wbuf_free()).
 *  @return ES_OK or ES_ERR_NOMEM. */
int es_wbuf_init(es_wbuf_t *b, FILE *fp, size_t cap);
/** Room for need bytes at the returned pointer (== b->buf + b->n), flushing
 *  or growing as needed.  @return NULL on a write error or out of memory. */
char *es_wbuf_reserve(es_wbuf_t *b, size_t need);
/** Write out what is buffered.  @return ES_OK, or ES_ERR_IO (fp's error set). */
int es_wbuf_flush(es_wbuf_t *b);
/** Release the buffer (not fp; flush first). */
void es_wbuf_free(es_wbuf_t *b);

/* ---- output files, all or nothing (outfile.c) ------------------------------------ */

/** An output file being written. */
typedef struct {
    char *path;     /* final name */
    char *tmp_path; /* name while being written */
    FILE *fp;
    int committed; /* renamed into place */
    int werrno;    /* errno of the first failed write (0: none) */
} es_out_t;

/** Remove PREFIX SUFFIX.tmp for each suffix, warning for each one found: left
 *  by an earlier run that was killed (SIGKILL: no handler removed it).  Call
 *  before opening a command's outputs. */
void es_out_clear_tmp(const char *prefix, const char *const *suffix, size_t n);
/** After es_out_commit_all(): remove PREFIX SUFFIX for each suffix that is not
 *  the path of one of o[0..n_o) (an earlier run's output that this run does
 *  not write, which would not match its results), warning for each one. */
void es_out_clear_stale(const char *prefix, const char *const *suffix, size_t n,
                        es_out_t *const *o, size_t n_o);
/** Create PREFIX SUFFIX.tmp for writing (a file of that name is replaced;
 *  SIGINT, SIGTERM and SIGHUP remove it until it is committed).
 *  @return ES_OK, ES_ERR_NOMEM or ES_ERR_IO (logged, naming the file). */
int es_out_open(es_out_t *o, const char *prefix, const char *suffix);
/** After writes to o->fp: 1 (and the first time, an error naming the file
 *  and the cause) if a write failed, else 0. */
int es_out_failed(es_out_t *o);
/** Commit outputs together: flush each one to disk (fsync) and close it; only
 *  when every one is complete, rename each into place (PREFIX SUFFIX).  A
 *  failure leaves every previous file of those names as it was.  Entries never
 *  opened (zeroed) are skipped.  @return ES_OK or ES_ERR_IO (logged once,
 *  naming the file and the cause); then es_out_abort() each. */
int es_out_commit_all(es_out_t *const *o, size_t n);
/** Undo: delete the temporary file (never a committed file) and release o
 *  (safe on a zeroed es_out_t). */
void es_out_abort(es_out_t *o);
/** Release o, keeping whatever was committed. */
void es_out_close(es_out_t *o);

/* ---- CPU features (cpu.c) --------------------------------------------------- */

#if defined(__x86_64__) || defined(__i386__)
#define ES_CPU_X86 1
#else
#define ES_CPU_X86 0
#endif

/** Features a SIMD variant may need; es_cpu_has() answers for this CPU. */
enum {
    ES_CPU_POPCNT = 1u << 0,
    ES_CPU_AVX2 = 1u << 1,     /* with POPCNT */
    ES_CPU_AVX512 = 1u << 2,   /* F, BW and VPOPCNTDQ */
    ES_CPU_FAST_BMI2 = 1u << 3, /* BMI2 with a fast PEXT (x86-64; not AMD 15h/17h) */
    ES_CPU_AVX512VNNI = 1u << 4 /* ES_CPU_AVX512, AVX512-VL and AVX512-VNNI (u8 x s8 dot products) */
};

/* Function attributes of the variants (x86 only; use under #if ES_CPU_X86). */
#define ES_TARGET_POPCNT __attribute__((target("popcnt")))
#define ES_TARGET_AVX2 __attribute__((target("avx2,popcnt")))
#define ES_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512vpopcntdq,popcnt")))
#define ES_TARGET_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#define ES_TARGET_BMI2 __attribute__((target("popcnt,bmi,bmi2")))

/** @return 1 if this CPU has every feature in the mask (probed once, thread-safe). */
int es_cpu_has(unsigned feature);

/** The value of environment variable name (EPISTREAM_POPCOUNT, EPISTREAM_PACK:
 *  forcing a SIMD variant for tests and benchmarks), or NULL when unset or empty. */
const char *es_env_variant(const char *name);

/* ---- text files (text.c) ------------------------------------------------- */

/** Read a whole text file into a NUL-terminated buffer (free with free()).
 *  `what` names the expected content in messages ("phenotype file"); NULL
 *  gives the generic "text file" messages and leaves out-of-memory to the
 *  caller to report (the .bim/.fam reader).
 *  @return ES_OK, ES_ERR_IO (cannot open/read, a directory), ES_ERR_FORMAT
 *  (NUL byte) or ES_ERR_NOMEM */
int es_text_read(const char *path, const char *what, char **text, size_t *len);

/** Blanks separating fields.  CR counts as a blank so CRLF files parse like
 *  LF files without a separate pass. */
static inline int es_is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/** Split the line [ls, le) (*le a NUL) in place into a new array of its fields: *f (free with
 *  free()) gets the *nf field starts, *f NULL when the line is blank.
 *  @return ES_OK or ES_ERR_NOMEM */
int es_split_fields_alloc(char *ls, char *le, char ***f, int *nf);

/** Cut the next line off [*q, end) of a buffer from es_text_read():
 *  NUL-terminates it (*end must already be a NUL) and advances *q.
 *  @return the line start, or NULL at the end of the text */
static inline char *es_next_line(char **q, char *end, char **line_end)
{
    if (*q >= end) return NULL;
    char *ls = *q;
    char *nl = memchr(ls, '\n', (size_t)(end - ls));
    char *le = nl ? nl : end;
    *le = '\0';
    *q = le + (le < end);
    *line_end = le;
    return ls;
}

/** Split the line [p, end) in place: blanks become NULs, the first `max`
 *  field starts go to f[].  *end must already be a NUL.
 *  @return the number of fields found (may exceed max) */
static inline int es_split_fields(char *p, char *end, char **f, int max)
{
    int n = 0;
    while (p < end) {
        while (p < end && es_is_blank(*p)) p++;
        if (p == end) break;
        if (n < max) f[n] = p;
        n++;
        while (p < end && !es_is_blank(*p)) p++;
        *p = '\0'; /* p == end is already NUL */
        if (p < end) p++;
    }
    return n;
}

#define ES_NO_ITEM UINT32_MAX

/**
 * A hash index from string keys to item numbers, for matching IDs without
 * O(n^2) scans.  Item i has key key[i], or the pair (key[i], key2[i]) when
 * key2 is given (FID + IID).  Items sharing a key are chained in item order:
 * es_strindex_find() returns the first, next[i] the following one or
 * ES_NO_ITEM.  The key arrays are borrowed and must outlive the index.
 */
typedef struct {
    const char *const *key, *const *key2;
    uint64_t *tab;  /* a chain's first item + 1 (low 32 bits; 0 = empty slot) and its key's
                     * hash (high 32 bits: most unequal keys are told apart without a strcmp) */
    uint32_t *next; /* next item with the same key, or ES_NO_ITEM */
    size_t mask;
} es_strindex_t;

/** Build the index of n items (free with es_strindex_free()).  @return ES_OK or ES_ERR_NOMEM */
int es_strindex_build(es_strindex_t *ix, const char *const *key, const char *const *key2,
                      uint32_t n);
/** @return the first item with key k (and k2 when the index has key2), or ES_NO_ITEM. */
uint32_t es_strindex_find(const es_strindex_t *ix, const char *k, const char *k2);
void es_strindex_free(es_strindex_t *ix);

#endif /* ES_UTIL_H */
