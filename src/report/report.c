/* report.c -- `epistream report`: read the run, decide what each plot can
 * show and say what it is computed from, draw, then write every file of the
 * report or none. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report_internal.h"
#include "util.h"

int es_report_format_parse(const char *s, es_report_format_t *fmt)
{
    static const char *const names[] = {"html", "svg", "png", "pdf"};
    for (int k = 0; k < 4; k++)
        if (!strcmp(s, names[k])) {
            *fmt = (es_report_format_t)k;
            return 0;
        }
    return -1;
}

int es_report_available(void) { return es_rp_can_draw(); }

char *es_report_default_dir(const char *prefix)
{
    size_t n = strlen(prefix) + sizeof ".report";
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s.report", prefix);
    return s;
}

#define MAX_NOTES 16

typedef struct {
    char text[MAX_NOTES][1024];
    const char *ptr[MAX_NOTES];
    size_t n;
} notes_t;

static void note(notes_t *nt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(notes_t *nt, const char *fmt, ...)
{
    if (nt->n == MAX_NOTES) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(nt->text[nt->n], sizeof nt->text[nt->n], fmt, ap);
    va_end(ap);
    nt->ptr[nt->n] = nt->text[nt->n];
    nt->n++;
}

static size_t count_value(const rp_data_t *d, const rp_hit_t *h, size_t n)
{
    size_t k = 0;
    for (size_t q = 0; q < n; q++) k += d->has_p ? !isnan(h[q].log10p) : !isnan(h[q].stat);
    return k;
}

/* What each plot shows (desc) or why it is not drawn (why). */
static void plan(const rp_data_t *d, rp_fig_t *fig, notes_t *nt)
{
    const char *P = d->prefix;
    const char *what = d->order == 3 ? "triples" : "pairs";
    const char *val = d->has_p ? "-log10 p" : "-K2 score";
    size_t nv_top = count_value(d, d->top, d->n_top), nv_sig = count_value(d, d->sig, d->n_sig);
    /* the arcs and the heat map: the top list's best, else (no top list) the significant list's */
    const char *src = d->n_top ? RP_SUF_TOP : d->sig_suf;
    size_t nsrc = d->n_top ? nv_top : nv_sig;
    if (d->pk.bim)
        note(nt, "%s%s%s names variants by chromosome and ID only: their positions are those of "
                 "%s (%s).%s%s",
             P, d->have_sig && strcmp(d->sig_suf, RP_SUF_SIG) ? d->sig_suf : d->sum_suf,
             d->have_sig && strcmp(d->sig_suf, RP_SUF_SIG) && d->have_sum ? " (and its summary)" : "",
             d->pk.bim_path, d->pk.bim_from, d->pk.test ? " The test: " : "",
             d->pk.test ? es_rp_plink_test_name(d->pk.test) : "");
    if (d->n_qq_above)
        note(nt, "%zu listed pairs of %s%s have P above the list's threshold %g (PLINK's BOOST lists "
                 "the pairs its screening statistic passes, then prints their exact P): they are in "
                 "the table and on the interaction plot and heat map, not on the QQ plot.",
             d->n_qq_above, P, d->sig_suf, d->list_thr);
    if (!d->has_p)
        note(nt, "The statistic is k2, which has no p-value: the plots show the K2 score (lower is "
                 "better; arcs and heat map are coloured by -K2), the per-variant plot has no "
                 "significance line and there is no QQ plot.");
    /* interaction */
    rp_fig_t *f = &fig[RP_PLOT_INTERACTION];
    if (!d->have_top && !d->have_sig)
        snprintf(f->why, sizeof f->why, "neither %s%s nor %s%s exists.", P, RP_SUF_TOP, P,
                 d->sig_suf);
    else if (!nsrc)
        snprintf(f->why, sizeof f->why, "the run listed no %s with a %s.", what,
                 d->has_p ? "p-value" : "score");
    else
        snprintf(f->desc, sizeof f->desc,
                 "The chromosomes side by side in order (1-22, X, Y, XY, MT, others), each as wide "
                 "as the span of positions seen; an arc joins the variants of each of the best "
                 "%zu %s of %s%s (%s), coloured and thickened by %s%s.",
                 nsrc < RP_ARCS_MAX ? nsrc : (size_t)RP_ARCS_MAX, what, P, src,
                 nsrc <= RP_ARCS_MAX ? "all of them" : "the best first", val,
                 d->order == 3 ? "; a triple is drawn as the three arcs of its pairs" : "");
    /* per variant */
    f = &fig[RP_PLOT_MANHATTAN];
    size_t n_sum = 0;
    for (size_t v = 0; v < d->n_var; v++) n_sum += d->var[v].in_summary && !isnan(d->var[v].best);
    int pk_sum = d->have_sum && strcmp(d->sum_suf, RP_SUF_SUM) != 0;
    if (!d->have_sum)
        snprintf(f->why, sizeof f->why, "neither %s%s nor PLINK's %s%s exists.", P, RP_SUF_SUM, P,
                 RP_SUF_EPI_CC_SUM);
    else if (pk_sum && d->pk.test == RP_PK_OTHER)
        snprintf(f->why, sizeof f->why, "%s%s gives each variant's best statistic (BEST_CHISQ) of "
                 "--stat %s, which is not a chi-square of known df: no p-value can be drawn "
                 "(scan --format tsv writes BEST_P).", P, d->sum_suf, d->stat ? d->stat : "?");
    else if (pk_sum && !d->pk.test)
        snprintf(f->why, sizeof f->why, "the test behind %s%s is unknown (no pair list, no log), so "
                 "its BEST_CHISQ has no df and no p-value.", P, d->sum_suf);
    else if (!n_sum)
        snprintf(f->why, sizeof f->why, "no variant of %s%s has a value.", P, RP_SUF_SUM);
    else {
        char line[400] = "";
        if (d->has_p && d->n_tests)
            snprintf(line, sizeof line, " The dashed line is the Bonferroni threshold p = 0.05 / "
                     "%llu, the run's tests (%s in the log).", (unsigned long long)d->n_tests,
                     d->tests_key);
        else if (d->has_p)
            snprintf(line, sizeof line, " No significance line: the number of tests is unknown "
                     "(no %s%s).", P, RP_SUF_LOG);
        char from[700];
        if (pk_sum)
            snprintf(from, sizeof from, "at its position in %s, at -log10 of the chi-square tail (%d df) "
                     "of its best pair's statistic (BEST_CHISQ, as PLINK prints it: 4 significant "
                     "digits%s)", d->pk.bim_path, es_rp_plink_df(d->pk.test),
                     d->pk.test == RP_PK_BOOST ? "; a best pair whose table had empty cells has fewer "
                                                 "df, and is drawn a little low" : "");
        else
            snprintf(from, sizeof from, "at its position, at the %s of its best %s (BEST_%s)",
                     d->has_p ? "-log10" : "K2 score", d->order == 3 ? "triple" : "pair",
                     d->has_p ? "P" : "STAT");
        snprintf(f->desc, sizeof f->desc,
                 "Each of the %zu variants of %s%s %s; chromosomes in alternating bands.%s%s",
                 n_sum, P, d->sum_suf, from, line,
                 n_sum > RP_POINTS_ALL ? " The points are one image at twice the plot's "
                                         "resolution (there are too many to draw one by one)." : "");
    }
    /* QQ */
    f = &fig[RP_PLOT_QQ];
    size_t np_sig = d->qq_from_sig ? d->n_qq : 0;
    if (!d->has_p) snprintf(f->why, sizeof f->why, "k2 has no p-values.");
    else if (!d->n_qq)
        snprintf(f->why, sizeof f->why, "no p-value was written (%s%s, %s%s).", P, RP_SUF_TOP, P,
                 d->sig_suf);
    else {
        size_t n = d->n_qq;
        uint64_t m = d->n_tests >= n ? d->n_tests : n;
        char which[400];
        if (np_sig && !isnan(d->list_thr))
            snprintf(which, sizeof which, "every listed test with P <= %g, PLINK's --epi1, a complete "
                     "tail of the run's p-values%s", d->list_thr,
                     d->n_qq_above ? "; the listed pairs above it, which BOOST's screen let through, "
                                     "are left out" : "");
        else
            snprintf(which, sizeof which, "%s", np_sig ? "every test with p <= the run's --p-threshold, a "
                     "complete tail of the run's p-values" : "the top list, ranked by the statistic: "
                     "when the tests' df differ it is only approximately the run's smallest p-values");
        char mline[300];
        if (d->n_tests >= n)
            snprintf(mline, sizeof mline, "M = %llu, the run's tests (%s in the log)",
                     (unsigned long long)m, d->tests_key);
        else
            snprintf(mline, sizeof mline, "M = %llu: the number of tests is unknown (no log), so "
                     "the list is taken to hold every test", (unsigned long long)m);
        snprintf(f->desc, sizeof f->desc,
                 "The %zu p-values of %s%s (%s), smallest first, against the expected -log10 of "
                 "the i-th smallest of M uniform p-values, -log10(i / (M + 1)), %s. The grey band "
                 "is the pointwise 95%% interval of that order statistic, Beta(i, M - i + 1); the "
                 "red line is y = x.",
                 n, P, np_sig ? d->sig_suf : RP_SUF_TOP, which, mline);
        if (d->n_tests && n >= d->n_tests / 2 + 1)
            note(nt, "lambda (the genomic inflation factor, on the QQ plot) = the chi-square (1 df) "
                     "quantile of the median p-value of all %llu tests / 0.4549; the median is "
                     "known because %s%s holds the %zu smallest p-values, at least half of them.",
                 (unsigned long long)d->n_tests, P, np_sig ? d->sig_suf : RP_SUF_TOP, n);
        else
            note(nt, "lambda (the genomic inflation factor) is not shown: it is defined by the "
                     "median p-value of all the run's tests, and the written lists hold only the "
                     "smallest ones (%zu of %llu). A run with %s 1 lists every test "
                     "and gets it. The summary's best p per variant is the minimum over that "
                     "variant's tests, not a sample of them, so it cannot stand in.",
                 n, (unsigned long long)m, d->pk.log ? "--epi1" : "--p-threshold");
    }
    /* heat map */
    f = &fig[RP_PLOT_HEATMAP];
    if (!nsrc) snprintf(f->why, sizeof f->why, "%s", fig[RP_PLOT_INTERACTION].why);
    else
        snprintf(f->desc, sizeof f->desc,
                 "The first %d distinct variants of the best %s of %s%s, in genome order; a cell is "
                 "the best %s of the listed %s (%s%s and %s%s) that hold both variants; light "
                 "grey: none listed.",
                 RP_HEAT_MAX, what, P, src, val, what, P, RP_SUF_TOP, P, d->sig_suf);
    /* ranking */
    f = &fig[RP_PLOT_RANKING];
    if (!d->have_sel) snprintf(f->why, sizeof f->why, "%s%s does not exist (a run without "
                               "--refine, and no select --out %s).", P, RP_SUF_SEL, P);
    else if (!d->n_sel) snprintf(f->why, sizeof f->why, "%s%s lists no feature.", P, RP_SUF_SEL);
    else
        snprintf(f->desc, sizeof f->desc,
                 "The %zu features of %s%s in the order they were picked: the method's score at "
                 "each pick (solid) and the feature's relevance I(X;Y) (dashed), in bits.",
                 d->n_sel, P, RP_SUF_SEL);
    /* the genome's plots and the ranking belong to scans and selections */
    int genome = d->have_top || d->have_sig || d->have_sum || d->have_sel;
    for (int k = RP_PLOT_INTERACTION; k <= RP_PLOT_RANKING; k++) fig[k].hide = !genome;
    /* plink1.9's own run has no selection to miss */
    if (d->pk.log && !d->have_sel) fig[RP_PLOT_RANKING].hide = 1;
    /* mdfs */
    f = &fig[RP_PLOT_MDFS];
    f->hide = !d->have_mdfs;
    size_t n_rel = 0;
    for (size_t k = 0; k < d->n_mdfs; k++) n_rel += (size_t)d->mdfs[k].relevant;
    if (!d->n_mdfs) snprintf(f->why, sizeof f->why, "%s%s lists no variable.", P, RP_SUF_MDFS);
    else
        snprintf(f->desc, sizeof f->desc,
                 "The %zu variables of %s%s by their maximum information gain over every tuple "
                 "and discretisation (MDFS's units), largest first; red: the %zu listed in "
                 "%s%s (adjusted p-value at the run's --level).",
                 d->n_mdfs, P, RP_SUF_MDFS, n_rel, P, RP_SUF_RELEVANT);
    /* nsga */
    f = &fig[RP_PLOT_FRONT];
    f->hide = !d->have_front;
    if (!d->n_front) snprintf(f->why, sizeof f->why, "%s%s lists no individual.", P, RP_SUF_FRONT);
    else
        snprintf(f->desc, sizeof f->desc,
                 "The %zu individuals of the final first front in %s%s: objective F1 against F2 "
                 "(both minimised, as the run's --objectives define them: its log says), joined as "
                 "the staircase that bounds what they dominate.",
                 d->n_front, P, RP_SUF_FRONT);
    f = &fig[RP_PLOT_HV];
    f->hide = !d->have_hv;
    if (!d->n_hv) snprintf(f->why, sizeof f->why, "%s%s lists no generation.", P, RP_SUF_HV);
    else
        snprintf(f->desc, sizeof f->desc,
                 "The hypervolume of each generation's first front (%s%s; the reference point is "
                 "the run's, see its log), %zu generations.",
                 P, RP_SUF_HV, d->n_hv);
}

/* Remove a directory this call created (empty again after an abort). */
static void undo_dir(const char *dir, int created)
{
    if (created) rmdir(dir);
}

int es_report_write(const char *prefix, const char *dir, es_report_format_t fmt, size_t *written)
{
    return es_report_write_bim(prefix, NULL, dir, fmt, written);
}

int es_report_write_bim(const char *prefix, const char *bim, const char *dir, es_report_format_t fmt,
                        size_t *written)
{
    static const char *const stem[RP_N_PLOTS] = {"interaction", "manhattan", "qq", "heatmap",
                                                  "ranking", "mdfs", "front", "hypervolume"};
    static const char *const title[RP_N_PLOTS] = {"Interaction plot", "Per-variant plot",
                                                   "QQ plot", "Heat map of the top variants",
                                                   "Selection ranking", "MDFS: information gain",
                                                   "NSGA-II: Pareto front", "NSGA-II: hypervolume"};
    static const char *const ext[] = {".html", ".svg", ".png", ".pdf"};
    if (written) *written = 0;
    if (!es_rp_can_draw()) {
        es_error("this epistream was built without cairo, which 'report' draws with: install "
                 "cairo (Debian: libcairo2-dev), then configure and build again");
        return ES_ERR_UNSUPPORTED;
    }
    rp_data_t d;
    int ret = es_rp_read(&d, prefix, bim);
    if (ret) return ret;
    rp_fig_t fig[RP_N_PLOTS];
    memset(fig, 0, sizeof fig);
    notes_t *nt = calloc(1, sizeof *nt);
    es_out_t out[RP_N_PLOTS + 1];
    memset(out, 0, sizeof out);
    char *base = NULL;
    int created = 0;
    if (!nt) {
        ret = ES_ERR_NOMEM;
        goto done;
    }
    for (int k = 0; k < RP_N_PLOTS; k++) {
        fig[k].stem = stem[k];
        fig[k].title = title[k];
    }
    plan(&d, fig, nt);
    if (fmt != ES_REPORT_HTML) /* no page to say why */
        for (int k = 0; k < RP_N_PLOTS; k++)
            if (fig[k].why[0] && !fig[k].hide) es_warn("%s not drawn: %s", stem[k], fig[k].why);
    /* draw everything before writing anything */
    for (int k = 0; k < RP_N_PLOTS; k++) {
        if (fig[k].why[0] || fig[k].hide) continue;
        if ((ret = es_rp_render(&d, (rp_plot_t)k, fmt == ES_REPORT_HTML ? ES_REPORT_SVG : fmt,
                                &fig[k].svg, &fig[k].len)))
            goto done;
    }
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            es_error("%s: exists and is not a directory; give the report another --out", dir);
            ret = ES_ERR_IO;
            goto done;
        }
    } else if (errno != ENOENT || mkdir(dir, 0777) != 0) {
        es_error("%s: cannot create the report directory: %s", dir, strerror(errno));
        ret = ES_ERR_IO;
        goto done;
    } else {
        created = 1;
    }
    size_t n_out = 0, blen = strlen(dir) + 32;
    if (!(base = malloc(blen))) {
        ret = ES_ERR_NOMEM;
        goto done;
    }
    if (fmt == ES_REPORT_HTML) {
        snprintf(base, blen, "%s/report", dir);
        if ((ret = es_out_open(&out[0], base, ext[fmt]))) goto done;
        n_out = 1;
        ret = es_rp_html(out[0].fp, &d, fig, RP_N_PLOTS, nt->ptr, nt->n);
        if (ret || es_out_failed(&out[0])) {
            ret = ES_ERR_IO;
            goto done;
        }
    } else {
        for (int k = 0; k < RP_N_PLOTS; k++) {
            if (!fig[k].svg) continue;
            snprintf(base, blen, "%s/%s", dir, stem[k]);
            if ((ret = es_out_open(&out[n_out], base, ext[fmt]))) goto done;
            if (fmt == ES_REPORT_SVG)
                es_rp_svg_put(out[n_out].fp, fig[k].svg, fig[k].len, NULL, title[k], fig[k].desc);
            else
                fwrite(fig[k].svg, 1, fig[k].len, out[n_out].fp);
            if (es_out_failed(&out[n_out++])) {
                ret = ES_ERR_IO;
                goto done;
            }
        }
    }
    if (!n_out) {
        es_error("nothing to draw for '%s': %s", prefix, fig[RP_PLOT_INTERACTION].why);
        ret = ES_ERR_DATA;
        goto done;
    }
    es_out_t *all[RP_N_PLOTS + 1];
    for (size_t k = 0; k < n_out; k++) all[k] = &out[k];
    if ((ret = es_out_commit_all(all, n_out))) goto done;
    if (written) *written = n_out;
done:
    for (int k = 0; k <= RP_N_PLOTS; k++) {
        if (ret) es_out_abort(&out[k]);
        else es_out_close(&out[k]);
    }
    if (ret) undo_dir(dir, created);
    for (int k = 0; k < RP_N_PLOTS; k++) free(fig[k].svg);
    free(base);
    free(nt);
    es_rp_free(&d);
    return ret;
}
