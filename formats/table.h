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

#endif /* ES_TABLE_H */
