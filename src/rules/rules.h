/* rules.h -- gradient-boosted multi-label rules (BOOMER, Rapp et al. 2020) with
 * mlrl-boomer 0.15.6's semantics: the data a learner sees, the options, the
 * training, the model (predict, save, load, print) and the multi-label
 * metrics.  Internal module (not installed); uses util, formats and, for
 * genotype input, the dataset (data).
 * doc/RULES.md writes down every rule of the algorithm and where this code
 * differs from mlrl-boomer. */
#ifndef ES_RULES_H
#define ES_RULES_H

#include <stdint.h>
#include <stdio.h>

#include "epistream.h"
#include "table.h"
#include "util.h"

/* ---- data (src/rules/data.c) ------------------------------------------------- */

/** Multi-label data: features column-major, labels row-major. */
typedef struct {
    uint32_t n_ex, n_feat, n_lab;
    float *x;          /* x[(size_t)f * n_ex + i]: feature f of example i, NaN = missing */
    uint8_t *y;        /* y[(size_t)i * n_lab + l] in {0, 1}; NULL when the input has no labels */
    char **feat_name;  /* n_feat */
    char **lab_name;   /* n_lab */
    uint32_t *n_values; /* n_feat: declared values of a nominal feature (x holds the 0-based
                           index); 0 = numeric */
    char ***values;    /* n_feat: the nominal features' values; NULL for numeric ones */
} es_rules_data_t;

/** Free what d holds and zero it (safe on a zeroed struct). */
void es_rules_data_free(es_rules_data_t *d);

/**
 * MEKA's label attributes: when t's ARFF @relation name holds "-C n" (n > 0:
 * the first n attributes are the labels; n < 0: the last -n), *names gets
 * their names (n malloc'd strings in a malloc'd array) for
 * es_rules_data_from_table()'s lab_names; without "-C", *n = 0.
 * @return ES_OK, ES_ERR_FORMAT (a bad -C; a label name shared by another
 *         attribute) or ES_ERR_NOMEM
 */
int es_rules_meka_labels(const es_ntable_t *t, const char *path, char ***names, uint32_t *n);

/**
 * Split a table into features and labels.  The labels are the columns
 * named in lab_names (Mulan XML, read from lab_file) or listed in lab_cols (comma-separated
 * names or 1-based numbers, CSV/TSV); with neither, the columns named as
 * want_lab (a model's labels) when the table has them all, else none.  The
 * features are every other column, in file order; when want_feat is given
 * (a model's features) they must be those, in that order.  Label values must
 * be 0/1 (numeric) or a nominal attribute declared {0,1}; a text column is
 * an error.  path names the file in messages.
 * @return ES_OK, ES_ERR_ARG (an unknown column), ES_ERR_FORMAT (a label value
 *         other than 0/1 or missing, a text column, features that do not match
 *         the model) or ES_ERR_NOMEM; every error logged with the file
 */
int es_rules_data_from_table(es_ntable_t *t, const char *path, char *const *lab_names,
                             uint32_t n_lab_names, const char *lab_file, const char *lab_cols,
                             char *const *want_lab, uint32_t n_want_lab,
                             char *const *want_feat, uint32_t n_want_feat, es_rules_data_t *d);

/**
 * Genotypes as a table for es_rules_data_from_table(): one column per variant
 * var[0..n_var) of ds, named by its ID (copies of A1 0/1/2, a missing call a
 * missing value), then the labels as 0/1 columns: with lab_default, one label
 * named "pheno", the dataset's own case/control phenotype; else lab[0..n_lab)
 * read by name from the phenotype file `pheno` (case/control coding, coding01 as
 * PLINK's --1).  Rows: the samples in the analysis that have every label, in
 * input order; (*rows)[i] is row i's input sample (malloc'd), *n_dropped the
 * samples in the analysis left out for a missing label.
 * @return ES_OK, ES_ERR_DATA (no sample left; a label named as a feature
 *         variant), the phenotype reader's errors, or ES_ERR_NOMEM
 */
int es_rules_table_from_genotypes(const es_dataset_t *ds, const uint32_t *var, uint32_t n_var,
                                  const char *pheno, int coding01, char *const *lab,
                                  uint32_t n_lab, int lab_default, es_ntable_t *t,
                                  uint32_t **rows, uint32_t *n_dropped);

/* ---- options and training (src/rules/train.c, search.c) ------------------------ */

/** Losses: label-wise logistic, label-wise squared error (mlrl-boomer's logistic-decomposable,
 *  squared-error-decomposable) and example-wise logistic (its logistic-non-decomposable). */
typedef enum {
    ES_RULES_LOSS_LOGISTIC,
    ES_RULES_LOSS_SQUARED_ERROR,
    ES_RULES_LOSS_LOGISTIC_EXAMPLE_WISE
} es_rules_loss_t;
typedef enum { ES_RULES_HEAD_COMPLETE, ES_RULES_HEAD_SINGLE } es_rules_head_t;
typedef enum { ES_RULES_FS_NONE, ES_RULES_FS_WITHOUT } es_rules_fsamp_t;
typedef enum { ES_RULES_IS_NONE, ES_RULES_IS_WITH, ES_RULES_IS_WITHOUT } es_rules_isamp_t;
/** Label binning (mlrl-boomer's label_binning): auto = equal-width for the example-wise
 *  loss's complete heads (and its default rule), none otherwise, as mlrl-boomer's 'auto'. */
typedef enum { ES_RULES_LB_AUTO, ES_RULES_LB_NONE, ES_RULES_LB_EQUAL_WIDTH } es_rules_lbin_t;
/** Feature binning (mlrl-boomer's feature_binning): the histogram split search of the numeric
 *  features (src/rules/bins.c) instead of the exact one. */
typedef enum { ES_RULES_FB_NONE, ES_RULES_FB_EQUAL_WIDTH, ES_RULES_FB_EQUAL_FREQUENCY } es_rules_fbin_t;
/** Rule pruning (mlrl-boomer's rule_pruning): IREP on the examples the instance sampling
 *  left out. */
typedef enum { ES_RULES_RP_NONE, ES_RULES_RP_IREP } es_rules_rprune_t;
/** Label sampling for each rule (mlrl-boomer's output_sampling). */
typedef enum { ES_RULES_LS_NONE, ES_RULES_LS_ROUND_ROBIN, ES_RULES_LS_WITHOUT } es_rules_lsamp_t;

/** Where the split search runs: the CPU threads (default), a GPU (gpu/rules/: numerical
 *  features and the label-wise losses only), or auto (the GPU when one is visible and the
 *  data and options are ones it takes, else the CPU). */
typedef enum { ES_RULES_DEV_CPU, ES_RULES_DEV_GPU, ES_RULES_DEV_AUTO } es_rules_dev_t;

/** Progress: called by the training thread after each rule (rules learned, of at most). */
typedef void (*es_rules_progress_fn)(void *ctx, uint32_t done, uint32_t total);

typedef struct {
    es_rules_loss_t loss;         /* default logistic (label-wise); the example-wise logistic
                                     loss takes no label sampling (mlrl-boomer's would need a
                                     partial head) */
    es_rules_head_t head;         /* default complete */
    uint32_t max_rules;           /* default 1000, the default rule included; >= 1 */
    double shrinkage;             /* (0, 1], default 0.3; used as a float32, as mlrl-boomer */
    double l2;                    /* >= 0, default 1.0; used as a float32 */
    es_rules_fsamp_t feat_samp;   /* default without replacement: floor(log2(F - 1) + 1) */
    double feat_sample_size;      /* (0, 1) fraction of the features, 0 = the log2 rule */
    es_rules_fbin_t feat_binning; /* default none (= mlrl-boomer's 'auto' below 200,000 examples) */
    double bin_ratio;             /* (0, 1), default 0.33: ceil(bin_ratio n) bins, n the examples */
    uint32_t min_bins;            /* >= 2, default 2 */
    uint32_t max_bins;            /* 0 = no maximum (default), else >= min_bins */
    es_rules_isamp_t inst_samp;   /* default none */
    es_rules_rprune_t rule_pruning; /* default none; irep prunes each rule on the training
                                     examples that the instance sampling left out (so only
                                     with instance sampling or a holdout set); label-wise
                                     losses only */
    double inst_sample_size;      /* (0, 1], default 0.66 */
    es_rules_lbin_t label_binning; /* default auto; equal-width needs the example-wise loss
                                     (epistream bins no other heads) */
    es_rules_lsamp_t label_samp;  /* default none; round-robin: rule k (1 = the first after the
                                     default rule) predicts label (k - 1) mod L alone;
                                     without replacement: a sample of the labels per rule */
    double label_sample_size;     /* (0, 1], default 0.33: ceil(size L) labels, then clamped */
    uint32_t label_min_samples;   /* >= 1, default 1 */
    uint32_t label_max_samples;   /* 0 = L, else >= label_min_samples; default 1 (mlrl-boomer's) */
    double time_limit;            /* seconds, 0 = none (default); mlrl-boomer's time_limit: the
                                     clock starts before the first rule after the default rule
                                     and is read before each later rule, so at least one rule is
                                     learned; which rule it stops at depends on the machine */
    double holdout;               /* (0, 1): the fraction of the examples held out at random for
                                     early stopping (mlrl-boomer's holdout='random' with
                                     global_pruning='pre-pruning', their defaults); 0 = none
                                     (default) */
    uint64_t seed;                /* default 1 (mlrl-boomer's random_state default) */
    int threads;                  /* 0 = all (OpenMP's default) */
    es_rules_dev_t device;        /* default cpu */
    int gpu;                      /* the CUDA device of --device gpu:N (default 0) */
    int gpu_float32;              /* the GPU scores candidates in float32 (its chosen
                                     candidate's sums and head stay float64) */
    es_rules_progress_fn progress; /* may be NULL */
    void *progress_ctx;
} es_rules_opt_t;

/** Defaults (mlrl-boomer 0.15.6's BoomerClassifier()). */
void es_rules_opt_init(es_rules_opt_t *o);
/** @return ES_OK, or ES_ERR_ARG after logging what is out of range. */
int es_rules_opt_check(const es_rules_opt_t *o);
/** Option value names (for the CLI and the model file). */
const char *es_rules_loss_name(es_rules_loss_t l);
const char *es_rules_head_name(es_rules_head_t h);

/* ---- the model (src/rules/model.c) --------------------------------------------- */

enum { ES_RULES_LE, ES_RULES_GT, ES_RULES_EQ, ES_RULES_NE };

/** One condition: feature op threshold; EQ/NE compare a nominal feature's value index. */
typedef struct {
    uint32_t feat;
    uint8_t op;      /* ES_RULES_LE ... ES_RULES_NE */
    float thr;       /* LE/GT: the threshold; EQ/NE: the value index */
} es_rules_cond_t;

/** One rule: IF every condition THEN add score[k] to label lab[k]. */
typedef struct {
    uint32_t n_cond, n_head;
    es_rules_cond_t *cond;
    uint32_t *lab;
    double *score;
} es_rules_rule_t;

/** Why the training stopped (es_rules_model_t.stop; not saved in the model file). */
typedef enum {
    ES_RULES_STOP_MAX_RULES,   /* --max-rules reached */
    ES_RULES_STOP_NO_REFINE,   /* no refinement of an empty rule improves the loss */
    ES_RULES_STOP_TIME_LIMIT,  /* the time limit was reached */
    ES_RULES_STOP_EARLY        /* early stopping on the holdout set (the best rules kept) */
} es_rules_stop_t;

typedef struct {
    uint32_t n_feat, n_lab;
    char **feat_name, **lab_name;
    uint32_t *n_values;  /* per feature, 0 = numeric */
    char ***values;      /* nominal features' value names */
    es_rules_loss_t loss;
    es_rules_head_t head;
    double *def;         /* n_lab scores of the default rule */
    uint32_t n_rules, cap_rules;
    es_rules_rule_t *rule;
    es_rules_stop_t stop; /* set by es_rules_train(); not saved (a read model has MAX_RULES) */
    int on_gpu;           /* set by es_rules_train(): the split search ran on a GPU; not saved */
    /* the example-wise logistic loss: the distinct label vectors of the training set in order
       of first appearance (n_lv x n_lab, row-major) and how often each appears, which its
       binary predictions choose from; NULL / 0 for the other losses */
    uint32_t n_lv;
    uint8_t *lv;
    uint32_t *lv_freq;
} es_rules_model_t;

/**
 * Learn a model from d (d->y required) with options o (checked here).  One
 * OpenMP parallel region for the whole training: its threads split the
 * features of every refinement; the best refinement is reduced in feature
 * order, so the model is the same for any thread count.
 * @param m out: free with es_rules_model_free()
 * @return ES_OK, ES_ERR_ARG, ES_ERR_DATA (no examples, no labels) or ES_ERR_NOMEM
 */
int es_rules_train(const es_rules_data_t *d, const es_rules_opt_t *o, es_rules_model_t *m);

void es_rules_model_free(es_rules_model_t *m);

/** Scores of every example: s[(size_t)i * n_lab + l] = default + the heads of the
 *  rules that cover example i (a missing value satisfies no condition). */
void es_rules_predict_scores(const es_rules_model_t *m, const es_rules_data_t *d, double *s);

/** Binary predictions from scores: 1 when the score is > 0 (label-wise sign). */
void es_rules_binarize(const double *s, size_t n, uint8_t *p);

/**
 * Binary predictions of n_ex examples from their scores s (n_ex x n_lab), as
 * mlrl-boomer's predict() with its defaults: label-wise sign
 * (es_rules_binarize()) for the label-wise losses; for the example-wise
 * logistic loss its example-wise predictor: the training set's label vector
 * closest to the scores, the distance being the example-wise logistic loss of
 * the scores for that vector (ties: the more frequent one, then the first
 * seen).  p: n_ex x n_lab.
 */
void es_rules_predict_binary(const es_rules_model_t *m, const double *s, uint32_t n_ex, uint8_t *p);

/** The example-wise logistic loss of n scores s for the label vector y:
 *  log(1 + sum_l exp(-y'_l s_l)), y'_l = +-1, computed as mlrl-boomer does
 *  (max + log(sum exp(x - max)), max over 0 and every x). */
double es_rules_example_loss(const double *s, const uint8_t *y, uint32_t n);

/**
 * Marginal probabilities from the n scores s of a model with the logistic loss:
 * p[k] = 1 / (1 + exp(-s[k])), computed as mlrl-boomer's logistic function
 * (from exp(-|s|), so it never overflows), which is its predict_proba() with
 * the default settings (no calibration model).  For the example-wise logistic
 * loss, its default marginalized probabilities: the joint probability of each
 * training label vector (the product of the labels' logistic probabilities or
 * their complements), normalised over the vectors, summed per label; n is then
 * a multiple of n_lab (rows of scores).  s and p may be the same array.
 * @return ES_OK, ES_ERR_NOMEM, or ES_ERR_ARG (logged) for a squared-error model: mlrl-boomer
 *         offers no probabilities for that loss either
 */
int es_rules_probabilities(const es_rules_model_t *m, const double *s, size_t n, double *p);

/** Write the model as versioned text ("epistream-rules-model 1").  @return ES_OK or ES_ERR_IO */
int es_rules_model_write(const es_rules_model_t *m, FILE *fp);

/**
 * Read a model written by es_rules_model_write(), validating everything: the
 * magic line, the version, counts, indices and ranges, finite numbers and the
 * closing line (a truncated file).  Errors name the file and the line.
 * @return ES_OK, ES_ERR_IO, ES_ERR_FORMAT or ES_ERR_NOMEM (logged)
 */
int es_rules_model_read(const char *path, es_rules_model_t *m);

/** The rules, one a line: "IF f3 <= 0.5 AND f7 > 1.2 THEN label1 +0.41, label2 -0.13"
 *  (the default rule first, as "IF TRUE THEN ...").  @return ES_OK or ES_ERR_IO */
int es_rules_write_text(const es_rules_model_t *m, FILE *fp);

/* ---- metrics (src/rules/metrics.c) ---------------------------------------------- */

enum { ES_RULES_HAMMING, ES_RULES_SUBSET_ACC, ES_RULES_EXAMPLE_F1, ES_RULES_MICRO_F1,
       ES_RULES_MACRO_F1, ES_RULES_N_METRICS };

/** The metric names in order: hamming_loss subset_accuracy example_f1 micro_f1 macro_f1. */
extern const char *const es_rules_metric_names[ES_RULES_N_METRICS];

/** The metrics in percent, as scikit-learn computes them with zero_division=1
 *  (an F1 whose denominator is 0 counts as 1).  y, p: n x n_lab, row-major. */
void es_rules_metrics(const uint8_t *y, const uint8_t *p, uint32_t n, uint32_t n_lab,
                      double out[ES_RULES_N_METRICS]);

#endif /* ES_RULES_H */
