/* report.h -- `epistream report`: the pictures and the page of a finished run.
 * Reads what a run wrote under its prefix (.top.tsv and .sig.tsv of a 2-way or
 * 3-way scan, .summary.tsv, .log, .select.tsv; PLINK's .epi.cc / .epi.qt and
 * their .summary, placed through a .bim), draws the interaction plot, the
 * per-variant (Manhattan-style) plot, the QQ plot, the heat map of the top
 * variants and the selection's ranking curve through cairo, and writes them as
 * one self-contained HTML page (inline SVG) or as SVG, PNG or PDF files.
 * Internal (not installed); between scan/select and the CLI. */
#ifndef ES_REPORT_H
#define ES_REPORT_H

#include <stddef.h>

/** What `report --format` writes into the report directory. */
typedef enum {
    ES_REPORT_HTML, /**< report.html: the log, the tables and every plot inline (SVG) */
    ES_REPORT_SVG,  /**< one NAME.svg per plot */
    ES_REPORT_PNG,  /**< one NAME.png per plot */
    ES_REPORT_PDF   /**< one NAME.pdf per plot */
} es_report_format_t;

/** Parse "html", "svg", "png" or "pdf".  @return 0, or -1 (nothing printed). */
int es_report_format_parse(const char *s, es_report_format_t *fmt);

/** @return 1 when this build draws (it was configured with cairo), else 0:
 *  then es_report_write() returns ES_ERR_UNSUPPORTED. */
int es_report_available(void);

/** The default report directory of a run: PREFIX ".report" (malloc'd; NULL
 *  when out of memory). */
char *es_report_default_dir(const char *prefix);

/**
 * Read the outputs of the run PREFIX and write its report into dir (created
 * when missing; its parent must exist).  Every input is read and checked and
 * every plot drawn before anything is written; the files are written under
 * .tmp names and renamed only when all are complete, so a failure leaves no
 * new file (and removes dir if this call created it).  A file of the run that
 * is missing leaves its plots out (the page says which); none of .top.tsv,
 * .sig.tsv, .summary.tsv and .select.tsv present is an error.
 * @param written when not NULL, the number of files written
 * @return ES_OK; ES_ERR_IO (a file that cannot be read or written, named in
 *         the log), ES_ERR_FORMAT (a malformed input, its file and line named),
 *         ES_ERR_DATA (no results under PREFIX), ES_ERR_UNSUPPORTED (built
 *         without cairo) or ES_ERR_NOMEM
 */
int es_report_write(const char *prefix, const char *dir, es_report_format_t fmt, size_t *written);

/**
 * es_report_write() with the .bim that places the variants of PLINK-format
 * results (PREFIX.epi.cc, .epi.qt and their .summary, as plink1.9 and scan
 * --format plink write them), which name variants by chromosome and ID
 * only.  bim NULL: the one the run's log names (PLINK's --bfile or --bim,
 * relative to its working directory; epistream's bfile).  Such a variant
 * missing from the .bim, or on another chromosome there, is ES_ERR_FORMAT
 * (its file, line and ID named); no .bim to be found is ES_ERR_DATA or
 * ES_ERR_IO, saying what to give.
 */
int es_report_write_bim(const char *prefix, const char *bim, const char *dir, es_report_format_t fmt,
                        size_t *written);

#endif
