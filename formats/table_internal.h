/* table_internal.h -- what the parts of es_table_read share (not installed):
 * table.c (streaming reader, CSV/TSV, ARFF, entry points), table_libsvm.c (the
 * LIBSVM reader) and table_code.c (coding the columns into states).  See the
 * comment at the top of table.c for the steps. */
#ifndef ES_TABLE_INTERNAL_H
#define ES_TABLE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "table.h"

#define MAX_VALUES 65535u                  /* values of a coded column; + missing = 65536 states */
#define INT_EXACT 16777216.0               /* integers up to 2^24 are exact in a float */
#define NO_REC UINT64_MAX
#define NO_ID UINT32_MAX

/* Every message comes from the one public function, whichever helper finds it. */
#define terror(...) es_log(ES_LOG_ERROR, "es_table_read", __VA_ARGS__)

enum { F_DELIM, F_ARFF, F_LIBSVM };
enum { K_UNDET, K_NUM, K_TEXT, K_NOMINAL };

/* Missing values: empty, "?", "NA", and "nan" in any case. */
static inline int is_missing(const char *s)
{
    switch (s[0]) {
    case '\0': return 1;
    case '?': return s[1] == '\0';
    case 'N':
        if (s[1] == 'A' && s[2] == '\0') return 1;
        /* fall through */
    case 'n': return (s[1] | 32) == 'a' && (s[2] | 32) == 'n' && s[3] == '\0';
    default: return 0;
    }
}

/* Blanks between LIBSVM tokens (the table sniffer uses them too). */
static inline int is_ls_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Distinct strings with ids in order of insertion; the strings live in an
 * arena of large blocks, so interning costs no malloc per value. */
typedef struct {
    char **str;
    uint32_t n, cap;
    uint32_t *tab; /* id + 1; 0 = empty slot */
    size_t mask;
    char **blk;
    size_t n_blk, blk_left;
    char *blk_at;
} dict_t;

typedef struct {
    char delim;    /* ',', '\t' or ';' (ARFF ','; LIBSVM ' ' = blanks) */
    char q1, q2;   /* quote characters, 0 = none */
    int backslash; /* ARFF: backslash escapes inside quotes; CSV doubles the quote */
    char comment;  /* lines starting with it are skipped; 0 = none */
} dialect_t;

/* A record: [start, end) of the buffer, NUL at end; line = its first line. */
typedef struct {
    uint32_t start, end;
    uint64_t line;
} rec_t;

typedef struct {
    const char *path;
    int fd;
    char *buf;       /* cap + 1 bytes: there is always room for a NUL */
    size_t cap, len; /* allocated (less the NUL), filled */
    size_t pos;      /* start of what is not consumed yet */
    uint64_t line;   /* line number of buf[pos] */
    uint64_t off;    /* file offset of buf[0] */
    int eof;
} rdr_t;

typedef struct {
    char *name;
    int kind;
    int must_num;        /* K_TEXT holding a numeric attribute (ARFF numeric class) */
    uint8_t nonint;      /* some value is not an integer of magnitude <= 2^24 */
    uint64_t first_line; /* CSV: line of the value that fixed the kind */
    uint64_t n_text, n_numlike; /* CSV text column: values, and those that are numbers */
    dict_t dict;         /* K_TEXT: values by first appearance; K_NOMINAL: declared values */
} tcol_t;

typedef struct {
    float *v; /* n_rows x n_cols, row-major; NaN = missing; text/nominal: the dictionary id */
    uint32_t n_rows;
} tblk_t;

/* A first error found in a parallel step. */
typedef struct {
    uint64_t rec; /* record index in the batch; NO_REC = none */
    uint32_t col; /* 0-based column, UINT32_MAX = the record as a whole */
    int what;
    uint64_t a, b;
    const char *val;
} terr_t;

enum {
    E_FIELDS, E_UNCLOSED, E_AFTER_QUOTE, E_NOT_NUM, E_RANGE, E_NOT_DECL, E_CLASS_MISSING,
    E_TOO_MANY, E_SPARSE_SYNTAX, E_SPARSE_INDEX, E_SPARSE_DUP, E_LS_TOKEN, E_LS_INDEX, E_LS_ORDER,
    E_NOMEM
};

typedef struct {
    const char *path;
    int fmt;
    dialect_t d;
    uint32_t n_cols, class_col; /* class_col NO_ID: no class (es_ntable_read) */
    int raw;                    /* es_ntable_read: every column kept as read, no class */
    uint32_t *feat, n_feat; /* the feature columns, ascending (pick_features in table.c) */
    uint64_t header_line;
    char *relation;   /* ARFF: the @relation name (unquoted), or NULL */
    tcol_t *col;
    tblk_t *blk;
    size_t n_blk, cap_blk;
    uint64_t n_rows;
    int nt;           /* threads */
    uint8_t *nonint;  /* nt x n_cols flags, merged into col[] after each batch */
    uint32_t *cell;   /* batch scratch: n_rec x n_cols field offsets */
    size_t cap_cell;
    rec_t *rec;
    size_t cap_rec;
    terr_t *err;      /* nt slots */
} tstore_t;

/* ---- table_store.c: the machinery every reader shares ------------------------- */

/** This thread's index in an OpenMP team (0 without OpenMP). */
int es_tbl_thread_id(void);
/** Threads a parallel step will use (1 without OpenMP). */
int es_tbl_n_threads(void);

/** Padding around a delimited field: blanks and CR, and tabs unless the
 *  delimiter is a tab. */
static inline int is_pad(char c, char delim)
{
    return c == ' ' || c == '\r' || (c == '\t' && delim != '\t');
}

/** Open path for chunked reading (chunk bytes a step).  @return ES_OK or ES_ERR_IO (logged). */
int es_tbl_rdr_open(rdr_t *r, const char *path, size_t chunk);
void es_tbl_rdr_close(rdr_t *r);
/** Read the next chunk behind what is left of the buffer.  @return ES_OK or ES_ERR_IO/NOMEM. */
int es_tbl_rdr_fill(rdr_t *r);
/** The next line (header parsing): 1 with *line NUL-terminated, 0 at the end, < 0 on error. */
int es_tbl_rdr_line(rdr_t *r, char **line, uint64_t *lineno);
/** Cut the next field of a delimited record in place (quotes removed);
 *  *more is set when another field follows.  @return 0, or < 0 for a quote error. */
int es_tbl_cut_field(const dialect_t *d, char **pp, char *end, char **fs_out, int *more);
/** @return the id of s in d, or NO_ID when absent. */
uint32_t es_tbl_dict_find(const dict_t *d, const char *s);
/** @return 1 if [s, e) is blank or a comment line of the dialect. */
int es_tbl_blank_or_comment(const dialect_t *d, const char *s, const char *e);
/** Free everything the store holds. */
void es_tbl_store_free(tstore_t *st);

/** Parse a whole NUL-terminated field as a plain decimal number ([+-]digits
 * [.digits][e[+-]digits]; no hex, inf or nan).  @return 1 with *v finite,
 * 0 if not a number. */
int es_tbl_parse_num(const char *s, double *v);

/** Free a dictionary's strings and tables and zero it. */
void es_tbl_dict_free(dict_t *d);

/** Add s unless present.  @return ES_OK with *id, ES_ERR_NOMEM, or 1 when the
 * dictionary is full (MAX_VALUES strings) and s is new. */
int es_tbl_dict_add(dict_t *d, const char *s, uint32_t *id);

/** The next batch of complete records in the buffer (blank and comment lines
 * skipped), reading more when none is complete; *n_out = 0 at the end of the
 * file.  @return ES_OK or an error (already logged). */
int es_tbl_rdr_records(rdr_t *r, const dialect_t *d, rec_t **recs, size_t *cap, size_t *n_out);

/** Allocate n_cols columns and the per-thread nonint flags.  @return ES_OK or ES_ERR_NOMEM. */
int es_tbl_store_cols(tstore_t *st, uint32_t n_cols);

/** Clear every thread's error slot before a parallel step. */
void es_tbl_err_reset(tstore_t *st);

/** The first error of the batch in file order (record, then column), or NULL. */
const terr_t *es_tbl_err_first(const tstore_t *st);

/** Log error e found in batch records rec[].  @return its ES_ERR_* code. */
int es_tbl_report(const tstore_t *st, const rec_t *rec, const terr_t *e);

/** Append a row-major block of n rows (the store takes v).  @return ES_OK or ES_ERR_NOMEM. */
int es_tbl_add_block(tstore_t *st, float *v, size_t n);

/* ---- table_libsvm.c ------------------------------------------------------------- */

/** Read a LIBSVM file from r into st: one block, features f1..fD, the class
 * last.  No data lines leaves st->n_rows 0 for the caller to report.
 * @return ES_OK or an error (logged, except ES_ERR_NOMEM). */
int es_tbl_read_libsvm(tstore_t *st, rdr_t *r, const es_table_opt_t *opt);

/* ---- table_code.c --------------------------------------------------------------- */

/** Code the read table st into d (its feature columns st->feat, bins
 * equal-width bins for non-integer ones; the class column by value) and log a
 * summary.  @return ES_OK,
 * ES_ERR_FORMAT (no data rows) or ES_ERR_NOMEM. */
int es_tbl_code_store(tstore_t *st, uint32_t bins, es_dtable_t *d);

#endif /* ES_TABLE_INTERNAL_H */
