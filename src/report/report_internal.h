/* report_internal.h -- private to src/report/: not an interface of anything
 * outside this folder.  The run's results as the report reads them
 * (read.c), the statistics the plots need (qq.c), the drawing door (draw.c
 * with cairo, draw_stub.c without: the only files that differ between the
 * two builds) and the HTML page (html.c). */
#ifndef ES_REPORT_INTERNAL_H
#define ES_REPORT_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "epistream.h"
#include "formats.h"
#include "report.h"

/* ---- the run, as read (read.c) ----------------------------------------------- */

/** The files of a run the report reads (read.c's list). */
#define RP_N_FILES 15

/** A variant named in any of the run's files (chr, id, pos as written). */
typedef struct {
    const char *chr, *id;
    int64_t pos;
    double best;  /* summary: -log10 BEST_P (BEST_STAT without p-values); NAN if NA or absent */
    int in_summary;
} rp_var_t;

/** A line of .top.tsv or .sig.tsv (a pair or a triple), or of PLINK's
 *  .epi.cc / .epi.qt (a pair). */
typedef struct {
    uint32_t v[3];              /* rp_data_t.var indices; v[2] only for triples */
    double stat, p, log10p;     /* NAN where NA */
    double coef;                /* PLINK's OR_INT or BETA_INT; NAN in other lists */
    int df;                     /* PLINK's DF column (BOOST); -1 where there is none */
} rp_hit_t;

/** A line of .select.tsv. */
typedef struct {
    uint32_t rank;
    const char *feature;
    double score, relevance;
} rp_sel_t;

/** A line of mdfs's .mdfs.tsv: a variable's max information gain. */
typedef struct {
    const char *name;
    double ig, p, adj_p; /* p, adj_p NAN where NA */
    int relevant;        /* listed in .relevant.tsv */
} rp_mdfs_t;

/** A line of nsga's .front.tsv: one individual of the final Pareto front. */
typedef struct {
    uint32_t n_features;
    double f1, f2;
} rp_front_t;

/** A chromosome on the genome axis (layout by es_rp_layout()). */
typedef struct {
    const char *name;
    int64_t lo, hi;  /* smallest and largest position seen */
    double off, w;   /* start and width on the axis, in [0, 1] */
} rp_chr_t;

/** The rows of a TSV file kept for the page's table: its header (row 0) and
 *  the first RP_TABLE_MAX lines. */
typedef struct {
    const char **cell; /* n_rows x n_cols field pointers */
    size_t n_rows, n_total;
    int n_cols;
    int best;          /* the rows are the smallest P of the file's, not its first */
} rp_table_t;
#define RP_TABLE_MAX 1000

/** PLINK's epistasis files (.epi.cc / .epi.qt and their .summary, as
 *  plink1.9 --fast-epistasis / --epistasis and scan --format plink write
 *  them): they name variants by chromosome code and ID only, so positions
 *  come from a .bim (read_plink.c). */
typedef enum {
    RP_PK_NONE,
    RP_PK_BOOST,    /* STAT DF P: --fast-epistasis boost (and scan --format plink) */
    RP_PK_FAST,     /* STAT P: --fast-epistasis (1 df) */
    RP_PK_LOGISTIC, /* OR_INT STAT P: --epistasis on case/control (1 df) */
    RP_PK_LINEAR,   /* BETA_INT STAT P: --epistasis on a quantitative trait (1 df) */
    RP_PK_OTHER     /* STAT DF P of scan --format plink --stat chi2, mi, ig or linear4:
                     * BEST_CHISQ is no chi-square of known df, so the summary gives no p */
} rp_pk_test_t;

typedef struct {
    rp_pk_test_t test;      /* from the list's header, else from the log */
    int log;                /* the run's .log is PLINK's (lines, not key<TAB>value) */
    const char *log_bfile, *log_bim, *log_wd; /* PLINK's log: --bfile, --bim, working directory */
    char *bim_path;         /* the .bim that placed the variants */
    const char *bim_from;   /* where its path came from ("--bim", the log, ...) */
    es_fileset_t *bim;      /* the .bim alone (es_bim_open()) */
    es_strindex_t ix;       /* bim IDs -> variants */
    uint32_t *var_of;       /* bim variant -> rp_data_t.var index + 1 (0: not yet) */
    char *arena;            /* the text of the list's table cells */
    rp_table_t tab;         /* the list's best lines (no .top.tsv) */
} rp_plink_t;

typedef struct {
    const char *prefix;
    char *buf[RP_N_FILES];   /* the files' texts (fields point into them) */
    /* .log: key<TAB>value lines (a line without a tab: the key alone) */
    const char **log_key, **log_val;
    size_t n_log;
    const char *stat;        /* "boost", "k2", ...; NULL: unknown (no log) */
    int has_p;               /* the statistic has p-values */
    int order;               /* 2 or 3 (0: no pair file) */
    uint64_t n_tests;        /* tests of the run (log: valid_tests, pairs or triples); 0 unknown */
    const char *tests_key;   /* the log key n_tests came from */
    int have_top, have_sig, have_sum, have_log, have_sel, have_rules, have_metrics;
    int have_mdfs, have_front, have_hv;
    rp_hit_t *top, *sig;     /* sig: with a top list, only its lines among the top's variants */
    size_t n_top, n_sig;
    size_t n_sig_lines;      /* lines of .sig.tsv */
    double *qq;              /* the QQ plot's -log10 p, largest first: .sig.tsv's, else .top.tsv's */
    size_t n_qq;
    int qq_from_sig;
    rp_table_t top_tab, sel_tab;
    rp_var_t *var;
    size_t n_var, cap_var;
    uint32_t *hash;          /* open addressing over var, index + 1 */
    size_t hash_cap;
    rp_sel_t *sel;
    size_t n_sel;
    char **rules;            /* rules train's PREFIX.rules.txt, one rule a line */
    size_t n_rules;
    rp_table_t metrics_tab;  /* rules predict's PREFIX.metrics.tsv */
    rp_mdfs_t *mdfs;         /* mdfs's PREFIX.mdfs.tsv, in its order */
    size_t n_mdfs;
    rp_table_t mdfs_tab;
    rp_front_t *front;       /* nsga's PREFIX.front.tsv */
    size_t n_front;
    rp_table_t front_tab;
    double *hv;              /* nsga's PREFIX.hv.tsv: hypervolume of generation 0, 1, ... */
    size_t n_hv;
    rp_chr_t *chr;
    size_t n_chr;
    /* the run's significant list and summary: epistream's .sig.tsv and
     * .summary.tsv, or PLINK's (read_plink.c) */
    const char *sig_suf, *sum_suf;
    double list_thr;         /* PLINK's list's threshold (--epi1); NAN unknown */
    double list_cut;         /* list_thr as PLINK prints P (4 digits): a P above it is above list_thr */
    size_t n_qq_above;       /* listed p-values above list_thr, left out of the QQ plot */
    rp_plink_t pk;
} rp_data_t;

/** The file names the report reads, relative to PREFIX. */
#define RP_SUF_TOP ".top.tsv"
#define RP_SUF_SIG ".sig.tsv"
#define RP_SUF_SUM ".summary.tsv"
#define RP_SUF_LOG ".log"
#define RP_SUF_SEL ".select.tsv"
#define RP_SUF_RULES ".rules.txt"
#define RP_SUF_METRICS ".metrics.tsv"
#define RP_SUF_MDFS ".mdfs.tsv"
#define RP_SUF_RELEVANT ".relevant.tsv"
#define RP_SUF_FRONT ".front.tsv"
#define RP_SUF_HV ".hv.tsv"

/** Read what exists of PREFIX's files into d (free with es_rp_free()).
 *  bim: the .bim that places the variants of PLINK-format files (NULL: the
 *  one the run's log names).
 *  @return ES_OK, ES_ERR_IO, ES_ERR_FORMAT (file and line logged),
 *          ES_ERR_DATA (no result file) or ES_ERR_NOMEM */
int es_rp_read(rp_data_t *d, const char *prefix, const char *bim);
void es_rp_free(rp_data_t *d);
/** Lay the chromosomes of every variant out on [0, 1] in natural order
 *  (1, 2, ..., 22, X, Y, XY, MT, then others by name), each as wide as its
 *  span of positions (at least a tenth of the mean span).  @return ES_OK or ES_ERR_NOMEM */
int es_rp_layout(rp_data_t *d);
/** The position of variant v on [0, 1] (after es_rp_layout()). */
double es_rp_x(const rp_data_t *d, uint32_t v);
/** The index in d->chr of variant v's chromosome (after es_rp_layout()). */
size_t es_rp_chr_of(const rp_data_t *d, uint32_t v);
/** The log's value for key, or NULL. */
const char *es_rp_log(const rp_data_t *d, const char *key);

/* read.c's pieces that read_plink.c reads with */

/** A number, or NA (NAN; so are nan and inf).  @return 0, or -1 */
int es_rp_parse_num(const char *s, double *out);
/** A count or position: digits only.  @return 0, or -1 */
int es_rp_parse_pos(const char *s, int64_t *out);
/** The index of variant (chr, id, pos), added when new.  @return ES_OK or ES_ERR_NOMEM */
int es_rp_var_get(rp_data_t *d, const char *chr, const char *id, int64_t pos, uint32_t *idx);
/** The index of variant (chr, id, pos).  @return 0, or -1 when it is not indexed */
int es_rp_var_find(const rp_data_t *d, const char *chr, const char *id, int64_t pos, uint32_t *idx);
/** One line [line, le) of a file read line by line (line 1: its header),
 *  NUL-terminated, without its newline.  @return ES_OK or an error (logged) */
typedef int (*rp_line_fn)(rp_data_t *d, void *ctx, const char *path, size_t ln, char *line, char *le);
/** Read path line by line through fn (a file far larger than memory: a
 *  significant list).  A NUL byte, a read error or an empty file is an error
 *  naming the file (and the line).  @return ES_OK or an error (logged) */
int es_rp_stream(rp_data_t *d, const char *path, rp_line_fn fn, void *ctx);
/** A significant list being read: add (its variants are indexed, as there
 *  is no top list; else a line of other variants is not kept), and the
 *  capacities of d->sig and d->qq. */
typedef struct {
    int add;
    size_t cap, qcap;
} rp_sig_state_t;
/** A checked line x of the significant list: counted, its -log10 p kept for
 *  the QQ plot (p <= d->list_cut), the line kept when known.
 *  @return ES_OK or ES_ERR_NOMEM */
int es_rp_sig_keep(rp_data_t *d, rp_sig_state_t *st, const rp_hit_t *x, int known);

/* ---- PLINK's files (read_plink.c) ------------------------------------------------ */

/** The file names of PLINK's epistasis results, relative to PREFIX. */
#define RP_SUF_EPI_CC ".epi.cc"
#define RP_SUF_EPI_CC_SUM ".epi.cc.summary"
#define RP_SUF_EPI_QT ".epi.qt"
#define RP_SUF_EPI_QT_SUM ".epi.qt.summary"

/** The log's lines as PLINK writes them: its test, its .bim, its count of
 *  valid tests and its --epi1 into d (after read.c has split the lines). */
void es_rp_plink_log(rp_data_t *d);
/** Open the .bim that places PLINK-format files' variants: bim when given,
 *  else the one the run's log names (PLINK: --bfile/--bim, relative to its
 *  working directory; epistream: bfile).  @return ES_OK, ES_ERR_IO,
 *  ES_ERR_FORMAT (its path or its lines named) or ES_ERR_NOMEM */
int es_rp_plink_bim(rp_data_t *d, const char *bim, const char *why);
/** PLINK's pair list at path (.epi.cc, .epi.qt), line by line: each line
 *  checked, its variants placed through the .bim, kept as .sig.tsv's lines
 *  are; without a .top.tsv, its best lines kept for the page's table. */
int es_rp_plink_list(rp_data_t *d, const char *path);
/** PLINK's summary (.epi.cc.summary, .epi.qt.summary): each variant's
 *  -log10 p of BEST_CHISQ at the test's df. */
int es_rp_plink_summary(rp_data_t *d, const char *path, char *text, size_t len);
/** The test's name, for the page; its df (BOOST 4, the others 1). */
const char *es_rp_plink_test_name(rp_pk_test_t t);
int es_rp_plink_df(rp_pk_test_t t);
void es_rp_plink_free(rp_plink_t *pk);

/* ---- what the plots show (qq.c) -------------------------------------------- */

/** The q-quantile of Beta(a, b) (a, b >= 1).  */
double es_rp_beta_quantile(double a, double b, double q);
/** The pointwise 95 % band of the i-th smallest of m uniform p-values, as
 *  -log10: *hi from the 2.5 % quantile of Beta(i, m - i + 1), *lo from the
 *  97.5 % one (exact Beta for m <= 1e5, else its Gamma or normal limit). */
void es_rp_qq_band(double i, double m, double *lo, double *hi);
/** lambda = qchisq(1 - median p, 1) / qchisq(0.5, 1) over m tests, from the
 *  n smallest of their p-values (ascending); needs n >= floor(m / 2) + 1.
 *  @return 1 with *lambda set, 0 when the median is not among them */
int es_rp_lambda(const double *p_sorted, size_t n, uint64_t m, double *lambda);
/** Sort the -log10 p values v[0..n) largest first. */
void es_rp_sort_desc(double *v, size_t n);

/* ---- the plots (draw.c with cairo; draw_stub.c without) ---------------------- */

typedef enum {
    RP_PLOT_INTERACTION,
    RP_PLOT_MANHATTAN,
    RP_PLOT_QQ,
    RP_PLOT_HEATMAP,
    RP_PLOT_RANKING,
    RP_PLOT_MDFS,
    RP_PLOT_FRONT,
    RP_PLOT_HV,
    RP_N_PLOTS
} rp_plot_t;

/** The most pairs (triples) the interaction plot draws: the best ones. */
#define RP_ARCS_MAX 300
/** The most variants the heat map shows. */
#define RP_HEAT_MAX 30
/** Above this many points a plot draws them as one image (2x resolution). */
#define RP_POINTS_ALL 20000

/** 1 when built with cairo. */
int es_rp_can_draw(void);
/** Draw plot k of d in fmt (SVG for HTML) into a malloc'd buffer (*buf, *len).
 *  @return ES_OK, ES_ERR_NOMEM, ES_ERR_UNSUPPORTED (no cairo) or ES_ERR_IO
 *  (cairo failed; logged) */
int es_rp_render(const rp_data_t *d, rp_plot_t k, es_report_format_t fmt, char **buf,
                 size_t *len);

/* ---- the page (html.c) ------------------------------------------------------- */

/** The length of the UTF-8 character at u (1 to 4), or 0 for a byte that does
 *  not start a valid one or a control character (tab and newline included). */
int es_rp_utf8_len(const unsigned char *u);
/** s with & < > " ' as entities, bytes that are not UTF-8 and control
 *  characters but tab and newline as U+FFFD. */
void es_rp_html_escape(FILE *fp, const char *s);
/** Write an SVG from cairo with a <title> and <desc> after its opening tag;
 *  inline (into HTML): without the XML declaration, every id prefixed with
 *  idp (cairo names glyphs and clips alike in each of its SVGs). */
void es_rp_svg_put(FILE *fp, const char *svg, size_t len, const char *idp, const char *title,
                   const char *desc);

/** One plot of the page: its file stem, title, what it shows (HTML-escaped
 *  when written), and its SVG (NULL: left out, why says why). */
typedef struct {
    const char *stem, *title;
    char desc[1024];
    char why[512];
    int hide;  /* a plot of a kind of run this is not (no "not drawn" note either) */
    char *svg;
    size_t len;
} rp_fig_t;

/** The page: run log, notes, the figures, the tables.  @return ES_OK or ES_ERR_IO */
int es_rp_html(FILE *fp, const rp_data_t *d, const rp_fig_t *fig, size_t n_fig,
               const char *const *notes, size_t n_notes);

#endif
