/* table.h -- numeric and categorical tables (CSV/TSV/ARFF/LIBSVM) read into a
 * discrete, feature-major table for feature selection.  Internal (not
 * installed); depends on src/util only. */
#ifndef ES_TABLE_H
#define ES_TABLE_H

#include <stdint.h>

#include "util.h"


/** A discrete dataset, feature-major: x[(size_t)f * n_samples + s] is the state
 *  (0 .. n_states[f]-1) of feature f in sample s; y[s] the class (0 .. n_classes-1).
 *  Missing values are a state of their own (the caller codes them). */
typedef struct {
    uint32_t n_samples, n_features;
    uint16_t *x;
    uint32_t *n_states;  /* per feature, >= 1 */
    uint16_t *y;
    uint32_t n_classes;  /* >= 1 */
    char **names;        /* feature names (may be NULL) */
    char *class_name;    /* class column name (may be NULL) */
} es_dtable_t;

/** Free the arrays of a table (the struct itself is the caller's). */
void es_dtable_free(es_dtable_t *d);

/* ---- numeric tables (formats/table.c) ------------------------------------- */

/** Options for reading a table. */
typedef struct {
    const char *class_col; /* class column name or 1-based number; NULL = last column
                              (CSV/TSV/ARFF) */
    uint32_t bins;         /* equal-width bins for numeric features (default 128) */
    const char *features;  /* the feature columns: comma-separated names or 1-based
                              numbers (a name first, as for class_col), in any order;
                              NULL = every column but the class */
    const char *exclude_cols; /* columns left out of the features, listed the same
                                 way; NULL = none */
} es_table_opt_t;

/**
 * Read a CSV/TSV (header line; delimiter detected), ARFF or LIBSVM file
 * (format from the extension, .csv/.tsv/.txt/.arff/.libsvm/.svm/.svmlight, else
 * sniffed) into a discrete table.  Numeric columns whose values are all integers
 * (within +-2^24, at most 65,535 distinct) keep their distinct values in
 * ascending order; other numeric columns are cut into `bins` equal-width bins
 * over [min, max] (max in the last bin; a constant column is one state); ARFF
 * nominal attributes keep their declared order; text columns are coded in byte
 * order.  Missing values (empty, ?, NA, nan) are a state of their own (the
 * last).  The features are the columns opt->features lists (else all but the
 * class) less those opt->exclude_cols lists, in file order; columns left out
 * are still read (the file must be well formed) but not coded.  An unknown,
 * ambiguous or repeated column in a list, an empty list item, the class in a
 * list, or no feature left is ES_ERR_ARG naming the option and the column.
 * Errors name the file, line and column; on error *out is zeroed.
 */
int es_table_read(const char *path, const es_table_opt_t *opt, es_dtable_t *out);
/** es_table_read with a given read-chunk size in bytes (tests use tiny ones). */
int es_table_read_chunk(const char *path, const es_table_opt_t *opt, es_dtable_t *out,
                        size_t chunk);

/* ---- numeric tables as read (formats/table.c), for the rule learner ------------ */

/** What a column of an es_ntable_t holds. */
typedef enum {
    ES_NCOL_NUMERIC, /**< numbers (a column with only missing values too) */
    ES_NCOL_NOMINAL, /**< ARFF {a,b,...}: v holds the 0-based index of the declared value */
    ES_NCOL_TEXT     /**< CSV text or ARFF string/date: v holds a value id (not usable as a number) */
} es_ncol_kind_t;

/** A table as read, column-major: v[(size_t)c * n_rows + r] is column c of
 *  row r as a float, NaN = missing (sparse ARFF: a value left out is 0, for a
 *  nominal column its first declared value). */
typedef struct {
    uint32_t n_rows, n_cols;
    float *v;
    char **names;            /* n_cols column names */
    es_ncol_kind_t *kind;    /* n_cols */
    uint32_t *n_values;      /* n_cols: ES_NCOL_NOMINAL: the declared values; else 0 */
    char ***values;          /* n_cols: ES_NCOL_NOMINAL: the declared values in order; else NULL */
    char *relation;          /* ARFF: the @relation name, unquoted (MEKA puts its options,
                                "-C n", there); else NULL */
} es_ntable_t;

/**
 * Read a CSV/TSV (header line) or ARFF file (dense or sparse rows) into a
 * column-major table of floats, every column kept, none taken as a class.
 * The dialects, missing values and errors are es_table_read()'s; a LIBSVM file
 * is ES_ERR_UNSUPPORTED.  On error *out is zeroed; else free it with
 * es_ntable_free().
 * @return ES_OK, ES_ERR_IO, ES_ERR_FORMAT, ES_ERR_UNSUPPORTED or ES_ERR_NOMEM
 *         (each logged, naming the file)
 */
int es_ntable_read(const char *path, es_ntable_t *out);

/**
 * Read a multi-label LIBSVM file ("L1,L2,... I:V I:V ..." a line: labels are
 * 0-based numbers, comma-separated, or absent; indices 1-based and increasing;
 * a '#' starts a comment) into a numeric table: the features f1..fD (D = the
 * largest index, at least min_feat; a value left out is 0), then the labels
 * label0..label(L-1) as 0/1 columns (L = the largest label + 1, at least
 * min_lab).  *n_lab = L.  On error *out is zeroed; else free it with
 * es_ntable_free().
 * @return ES_OK, ES_ERR_IO, ES_ERR_FORMAT (line and token named) or ES_ERR_NOMEM
 */
int es_ntable_read_libsvm(const char *path, uint32_t min_feat, uint32_t min_lab, es_ntable_t *out,
                          uint32_t *n_lab);

/** Free what a table holds and zero it (safe on a zeroed table). */
void es_ntable_free(es_ntable_t *t);

/* ---- Mulan label files (formats/mulan.c) ------------------------------------------ */

/**
 * Read the label names of a Mulan XML file (<labels><label name="..."/>...;
 * nested hierarchies are flattened in document order; &amp; &lt; &gt; &quot;
 * &apos; and numeric character references are decoded).
 * @param names out: n malloc'd names in a malloc'd array (free each, then it)
 * @return ES_OK, ES_ERR_IO, ES_ERR_FORMAT (no <labels> element, a <label>
 *         without a name, a repeated name, no label, unclosed markup: logged
 *         with the file and line) or ES_ERR_NOMEM
 */
int es_mulan_labels_read(const char *path, char ***names, uint32_t *n);

#endif /* ES_TABLE_H */
