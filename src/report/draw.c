/* draw.c -- the report's plots, drawn with cairo into SVG, PNG or PDF (only
 * built when configure found cairo; draw_stub.c stands in otherwise).
 *
 * What each plot is made of, so that tests can count it in the SVG that cairo
 * writes (one <path> per stroke or fill):
 *   - interaction: one stroke with round line caps per arc (nothing else in
 *     that plot has round caps); a pair is one arc, a triple three (its pairs);
 *   - manhattan and qq: one fill of opacity 0.8 per point (nothing else is
 *     drawn at that opacity), the variants of the summary with a value, the
 *     p-values of the list, up to RP_POINTS_ALL points; beyond, the points are
 *     one embedded image at twice the resolution; the QQ band is a fill of
 *     opacity 0.3;
 *   - every plot: a title and axis labels as text (glyph outlines in SVG: the
 *     page and the SVG files also carry them in <title> and <desc>). */
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "util.h"

int es_rp_can_draw(void) { return 1; }

typedef struct {
    char *p;
    size_t n, cap;
    int err;
} membuf_t;

static cairo_status_t mem_write(void *cl, const unsigned char *data, unsigned int len)
{
    membuf_t *b = cl;
    if (b->n + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap < b->n + len + 1) cap *= 2;
        char *np = realloc(b->p, cap);
        if (!np) {
            b->err = 1;
            return CAIRO_STATUS_WRITE_ERROR;
        }
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->n, data, len);
    b->n += len;
    b->p[b->n] = '\0';
    return CAIRO_STATUS_SUCCESS;
}

/* ---- text ------------------------------------------------------------------------ */

/* s as valid UTF-8 (other bytes and controls as '?'), at most max characters
 * (then an ellipsis), into out (room for 4 * max + 4 bytes) */
static void clean_utf8(const char *s, char *out, int max)
{
    const unsigned char *u = (const unsigned char *)s;
    int chars = 0;
    char *o = out;
    while (*u && chars < max) {
        int len = es_rp_utf8_len(u);
        if (len) {
            memcpy(o, u, (size_t)len);
            o += len;
            u += len;
        } else {
            *o++ = '?';
            u++;
        }
        chars++;
    }
    if (*u) o += sprintf(o, "\xe2\x80\xa6"); /* ... */
    *o = '\0';
}

/* s (at most max characters) at x, y: align 0 left, 1 centre, 2 right of x */
static void text_max(cairo_t *cr, double x, double y, const char *s, int align, double size,
                     int max)
{
    char buf[4 * 160 + 4];
    clean_utf8(s, buf, max < 160 ? max : 160);
    cairo_set_font_size(cr, size);
    cairo_text_extents_t e;
    cairo_text_extents(cr, buf, &e);
    cairo_move_to(cr, x - (align == 1 ? e.x_advance / 2 : align == 2 ? e.x_advance : 0), y);
    cairo_show_text(cr, buf);
    cairo_new_path(cr);
}

/* our own text (titles, axes) */
static void text(cairo_t *cr, double x, double y, const char *s, int align, double size)
{
    text_max(cr, x, y, s, align, size, 160);
}

/* a name from the data (a variant ID, a chromosome): 24 characters at most */
static void label(cairo_t *cr, double x, double y, const char *s, int align, double size)
{
    text_max(cr, x, y, s, align, size, 24);
}

static void text_up(cairo_t *cr, double x, double y, const char *s, double size)
{
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_rotate(cr, -M_PI / 2);
    text(cr, 0, 0, s, 1, size);
    cairo_restore(cr);
}

/* ---- scales ----------------------------------------------------------------------- */

typedef struct {
    double x0, x1, y0, y1;     /* the plot area (pixels; y0 at the bottom) */
    double lo_x, hi_x, lo_y, hi_y; /* data ranges */
} frame_t;

static double fx(const frame_t *f, double v)
{
    return f->x0 + (f->x1 - f->x0) * (v - f->lo_x) / (f->hi_x - f->lo_x);
}
static double fy(const frame_t *f, double v)
{
    return f->y0 - (f->y0 - f->y1) * (v - f->lo_y) / (f->hi_y - f->lo_y);
}

static double nice_step(double range)
{
    if (!(range > 0)) return 1;
    double s = pow(10, floor(log10(range / 5)));
    if (range / s > 25) s *= 5;
    else if (range / s > 10) s *= 2;
    return s;
}

static void fmt_tick(char *b, size_t n, double v, double step)
{
    if (step >= 1) snprintf(b, n, "%.0f", v);
    else snprintf(b, n, "%.*f", (int)ceil(-log10(step) - 1e-9), v);
}

/* the y axis with ticks and label; x ticks when xticks */
static void axes(cairo_t *cr, const frame_t *f, const char *xlabel, const char *ylabel, int xticks)
{
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_set_line_width(cr, 1);
    cairo_move_to(cr, f->x0, f->y1);
    cairo_line_to(cr, f->x0, f->y0);
    cairo_line_to(cr, f->x1, f->y0);
    cairo_stroke(cr);
    char b[32];
    double st = nice_step(f->hi_y - f->lo_y);
    for (double v = ceil(f->lo_y / st) * st; v <= f->hi_y + st * 1e-9; v += st) {
        double y = fy(f, v);
        cairo_move_to(cr, f->x0 - 4, y);
        cairo_line_to(cr, f->x0, y);
        cairo_stroke(cr);
        fmt_tick(b, sizeof b, fabs(v) < st * 1e-9 ? 0 : v, st);
        text(cr, f->x0 - 6, y + 4, b, 2, 10);
    }
    if (xticks) {
        st = nice_step(f->hi_x - f->lo_x);
        for (double v = ceil(f->lo_x / st) * st; v <= f->hi_x + st * 1e-9; v += st) {
            double x = fx(f, v);
            cairo_move_to(cr, x, f->y0);
            cairo_line_to(cr, x, f->y0 + 4);
            cairo_stroke(cr);
            fmt_tick(b, sizeof b, fabs(v) < st * 1e-9 ? 0 : v, st);
            text(cr, x, f->y0 + 16, b, 1, 10);
        }
    }
    if (xlabel) text(cr, (f->x0 + f->x1) / 2, f->y0 + (xticks ? 34 : 40), xlabel, 1, 12);
    if (ylabel) text_up(cr, f->x0 - 54, (f->y0 + f->y1) / 2, ylabel, 12);
}

/* a perceptually ordered map (viridis' ends and middle) of t in [0, 1] */
static void cmap(double t, double *r, double *g, double *b)
{
    static const double s[5][3] = {{0.267, 0.005, 0.329}, {0.231, 0.322, 0.545},
                                   {0.129, 0.569, 0.549}, {0.369, 0.788, 0.384},
                                   {0.993, 0.906, 0.144}};
    if (!(t >= 0)) t = 0;
    if (t > 1) t = 1;
    double u = t * 4;
    int k = u >= 4 ? 3 : (int)u;
    double w = u - k;
    *r = s[k][0] + (s[k + 1][0] - s[k][0]) * w;
    *g = s[k][1] + (s[k + 1][1] - s[k][1]) * w;
    *b = s[k][2] + (s[k + 1][2] - s[k][2]) * w;
}

/* a vertical colour bar from lo (bottom) to hi at x, with its label */
static void colour_bar(cairo_t *cr, double x, double ytop, double ybot, double lo, double hi,
                       const char *label)
{
    cairo_pattern_t *g = cairo_pattern_create_linear(0, ybot, 0, ytop);
    for (int k = 0; k <= 8; k++) {
        double r, gg, b;
        cmap(k / 8.0, &r, &gg, &b);
        cairo_pattern_add_color_stop_rgb(g, k / 8.0, r, gg, b);
    }
    cairo_rectangle(cr, x, ytop, 14, ybot - ytop);
    cairo_set_source(cr, g);
    cairo_fill(cr);
    cairo_pattern_destroy(g);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    char b[32];
    snprintf(b, sizeof b, "%.3g", hi);
    text(cr, x + 18, ytop + 8, b, 0, 10);
    snprintf(b, sizeof b, "%.3g", lo);
    text(cr, x + 18, ybot, b, 0, 10);
    text_up(cr, x + 50, (ytop + ybot) / 2, label, 11);
}

/* The value a hit is ranked and coloured by: -log10 p, or without p-values
 * minus the statistic (K2: lower is better) */
static double hit_value(const rp_data_t *d, const rp_hit_t *h)
{
    return d->has_p ? h->log10p : -h->stat;
}

static const char *value_label(const rp_data_t *d)
{
    return d->has_p ? "\xe2\x88\x92log10 p" : "\xe2\x88\x92K2 score (higher is better)";
}

/* The hits the interaction plot and the heat map use: the top list (best
 * first), else the significant list's best by value (ties to the earlier
 * line); at most max, each with a value.  @return the count (*idx malloc'd),
 * or -1 when out of memory */
typedef struct {
    double v;
    size_t i;
} ranked_t;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked_t *x = a, *y = b;
    if (x->v != y->v) return x->v > y->v ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static long best_hits(const rp_data_t *d, size_t max, const rp_hit_t **hits, size_t **idx)
{
    const rp_hit_t *h = d->n_top ? d->top : d->sig;
    size_t n = d->n_top ? d->n_top : d->n_sig, k = 0;
    *hits = h;
    ranked_t *r = malloc((n ? n : 1) * sizeof *r);
    if (!r || !(*idx = malloc((n ? n : 1) * sizeof **idx))) {
        free(r);
        return -1;
    }
    for (size_t q = 0; q < n; q++) {
        double v = hit_value(d, &h[q]);
        if (isfinite(v)) r[k++] = (ranked_t){v, q};
    }
    if (!d->n_top) qsort(r, k, sizeof *r, cmp_ranked);
    for (size_t q = 0; q < k; q++) (*idx)[q] = r[q].i;
    free(r);
    return (long)(k < max ? k : max);
}

/* the chromosome bands under a genome axis, and their names */
static void genome_axis(cairo_t *cr, const rp_data_t *d, double x0, double x1, double y,
                        double band_h)
{
    size_t every = d->n_chr > 30 ? (d->n_chr + 29) / 30 : 1;
    for (size_t k = 0; k < d->n_chr; k++) {
        const rp_chr_t *c = &d->chr[k];
        double a = x0 + (x1 - x0) * c->off, w = (x1 - x0) * c->w;
        if (k % 2) cairo_set_source_rgb(cr, 0.55, 0.55, 0.6);
        else cairo_set_source_rgb(cr, 0.3, 0.3, 0.38);
        cairo_rectangle(cr, a, y, w > 1 ? w : 1, band_h);
        cairo_fill(cr);
        if (k % every == 0) {
            cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
            label(cr, a + w / 2, y + band_h + 12, c->name, 1, 9);
        }
    }
}

/* ---- the plots ---------------------------------------------------------------------- */

static int draw_interaction(cairo_t *cr, const rp_data_t *d, double W, double H)
{
    const rp_hit_t *h;
    size_t *idx;
    long n = best_hits(d, RP_ARCS_MAX, &h, &idx);
    if (n < 0) return ES_ERR_NOMEM;
    double x0 = 40, x1 = W - 110, y0 = H - 56, top = 40;
    double lo = INFINITY, hi = -INFINITY;
    for (long q = 0; q < n; q++) {
        double v = hit_value(d, &h[idx[q]]);
        if (v < lo) lo = v;
        if (v > hi) hi = v;
    }
    if (!(hi > lo)) {
        lo = n ? lo - 1 : 0;
        hi = n ? hi : 1;
    }
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    char title[160];
    snprintf(title, sizeof title, "Interactions: the best %ld %s on the genome", n,
             d->order == 3 ? "triples (three arcs each)" : "pairs");
    text(cr, x0, 22, title, 0, 14);
    genome_axis(cr, d, x0, x1, y0, 8);
    text(cr, (x0 + x1) / 2, H - 12, "chromosome (position)", 1, 12);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    /* weakest first, so that the strongest are on top */
    for (long q = n - 1; q >= 0; q--) {
        const rp_hit_t *x = &h[idx[q]];
        double t = (hit_value(d, x) - lo) / (hi - lo), r, g, b;
        cmap(t, &r, &g, &b);
        cairo_set_source_rgba(cr, r, g, b, 0.35 + 0.65 * t);
        cairo_set_line_width(cr, 0.6 + 2.4 * t);
        static const int ends[3][2] = {{0, 1}, {1, 2}, {0, 2}};
        for (int e = 0; e < (d->order == 3 ? 3 : 1); e++) {
            double a = x0 + (x1 - x0) * es_rp_x(d, x->v[ends[e][0]]);
            double c = x0 + (x1 - x0) * es_rp_x(d, x->v[ends[e][1]]);
            double hh = fabs(c - a) / 2;
            if (hh > y0 - top) hh = y0 - top;
            if (hh < 4) hh = 4;
            cairo_move_to(cr, a, y0);
            cairo_curve_to(cr, a, y0 - hh * 4 / 3, c, y0 - hh * 4 / 3, c, y0);
            cairo_stroke(cr);
        }
    }
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
    colour_bar(cr, W - 90, top, y0, lo, hi, value_label(d));
    free(idx);
    return ES_OK;
}

/* Where a plot's points go: onto the plot itself (one fill each) up to
 * RP_POINTS_ALL of them, else onto an image at twice the plot's resolution
 * that is then painted onto it as one picture (SVG and PDF stay small).  On
 * the image, a point is a copy of a small image of the point (a stamp, drawn
 * by cairo once per colour): far cheaper than a fill per point. */
typedef struct {
    cairo_t *main, *cr;
    cairo_surface_t *img, *stamp;
    double r;
} points_t;

/* @return 0, or -1 when out of memory */
static int points_begin(points_t *pt, cairo_t *cr, size_t n, double W, double H, double r)
{
    memset(pt, 0, sizeof *pt);
    pt->main = pt->cr = cr;
    pt->r = r;
    if (n <= RP_POINTS_ALL) return 0;
    pt->img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)(2 * W), (int)(2 * H));
    pt->cr = cairo_create(pt->img);
    if (cairo_status(pt->cr)) {
        cairo_destroy(pt->cr);
        cairo_surface_destroy(pt->img);
        return -1;
    }
    return 0;
}

static void points_colour(points_t *pt, double r, double g, double b)
{
    if (!pt->img) {
        cairo_set_source_rgba(pt->cr, r, g, b, 0.8);
        return;
    }
    if (pt->stamp) cairo_surface_destroy(pt->stamp);
    int side = (int)ceil(4 * pt->r) + 2;
    pt->stamp = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, side, side);
    cairo_t *sc = cairo_create(pt->stamp);
    cairo_set_source_rgba(sc, r, g, b, 0.8);
    cairo_arc(sc, side / 2.0, side / 2.0, 2 * pt->r, 0, 2 * M_PI);
    cairo_fill(sc);
    cairo_destroy(sc);
}

/* one point: a fill of its own on the plot, or a stamp on the image */
static void point(points_t *pt, double x, double y)
{
    if (!pt->img) {
        cairo_arc(pt->cr, x, y, pt->r, 0, 2 * M_PI);
        cairo_fill(pt->cr);
        return;
    }
    int side = cairo_image_surface_get_width(pt->stamp);
    double sx = floor(2 * x - side / 2.0 + 0.5), sy = floor(2 * y - side / 2.0 + 0.5);
    cairo_set_source_surface(pt->cr, pt->stamp, sx, sy);
    cairo_rectangle(pt->cr, sx, sy, side, side);
    cairo_fill(pt->cr);
}

/* @return ES_OK, or ES_ERR_NOMEM when the image could not be drawn */
static int points_end(points_t *pt)
{
    if (!pt->img) return ES_OK;
    int bad = cairo_status(pt->cr) != CAIRO_STATUS_SUCCESS;
    cairo_destroy(pt->cr);
    if (pt->stamp) {
        bad |= cairo_surface_status(pt->stamp) != CAIRO_STATUS_SUCCESS;
        cairo_surface_destroy(pt->stamp);
    }
    cairo_surface_flush(pt->img);
    if (!bad) {
        cairo_save(pt->main);
        cairo_scale(pt->main, 0.5, 0.5);
        cairo_set_source_surface(pt->main, pt->img, 0, 0);
        cairo_paint(pt->main);
        cairo_restore(pt->main);
    }
    cairo_surface_destroy(pt->img);
    return bad ? ES_ERR_NOMEM : ES_OK;
}

static int draw_manhattan(cairo_t *cr, const rp_data_t *d, double W, double H)
{
    frame_t f = {70, W - 20, H - 62, 40, 0, 1, 0, 1};
    size_t n = 0;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t v = 0; v < d->n_var; v++) {
        if (!d->var[v].in_summary || isnan(d->var[v].best)) continue;
        n++;
        if (d->var[v].best < lo) lo = d->var[v].best;
        if (d->var[v].best > hi) hi = d->var[v].best;
    }
    double bonf = d->has_p && d->n_tests ? -log10(0.05 / (double)d->n_tests) : NAN;
    if (d->has_p) {
        lo = 0;
        if (!(hi > 0)) hi = 1;
        if (bonf > hi) hi = bonf;
        hi *= 1.05;
    } else if (!(hi > lo)) {
        lo = n ? lo - 1 : 0;
        hi = n ? hi + 1 : 1;
    }
    f.lo_y = lo;
    f.hi_y = hi;
    /* alternating chromosome bands behind the points */
    for (size_t k = 1; k < d->n_chr; k += 2) {
        cairo_set_source_rgb(cr, 0.93, 0.93, 0.95);
        cairo_rectangle(cr, f.x0 + (f.x1 - f.x0) * d->chr[k].off, f.y1,
                        (f.x1 - f.x0) * d->chr[k].w, f.y0 - f.y1);
        cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    char title[200], num[32];
    snprintf(title, sizeof title, "Per variant: the best %s of its %s (%s variants)",
             d->has_p ? "p-value" : "K2 score", d->order == 3 ? "triples" : "pairs",
             es_fmt_count(n, num));
    text(cr, f.x0, 22, title, 0, 14);
    axes(cr, &f, NULL, d->has_p ? "\xe2\x88\x92log10 best p" : "best K2 score (lower is better)", 0);
    genome_axis(cr, d, f.x0, f.x1, f.y0 + 2, 6);
    text(cr, (f.x0 + f.x1) / 2, H - 12, "chromosome (position)", 1, 12);
    points_t pt;
    if (points_begin(&pt, cr, n, W, H, 2.2)) return ES_ERR_NOMEM;
    size_t last_c = (size_t)-1;
    for (size_t v = 0; v < d->n_var; v++) {
        const rp_var_t *x = &d->var[v];
        if (!x->in_summary || isnan(x->best)) continue;
        double px = f.x0 + (f.x1 - f.x0) * es_rp_x(d, (uint32_t)v);
        /* the colour of its chromosome's band */
        size_t c = es_rp_chr_of(d, (uint32_t)v);
        if (c != last_c) {
            if (c % 2) points_colour(&pt, 0.42, 0.68, 0.84);
            else points_colour(&pt, 0.03, 0.27, 0.58);
            last_c = c;
        }
        point(&pt, px, fy(&f, x->best));
    }
    if (points_end(&pt)) return ES_ERR_NOMEM;
    if (!isnan(bonf)) {
        double dash[] = {6, 4};
        cairo_set_dash(cr, dash, 2, 0);
        cairo_set_source_rgb(cr, 0.8, 0.1, 0.1);
        cairo_set_line_width(cr, 1.2);
        cairo_move_to(cr, f.x0, fy(&f, bonf));
        cairo_line_to(cr, f.x1, fy(&f, bonf));
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        char b[96];
        snprintf(b, sizeof b, "Bonferroni: p = 0.05 / %s tests", es_fmt_count(d->n_tests, num));
        text(cr, f.x1 - 4, fy(&f, bonf) - 5, b, 2, 10);
    }
    return ES_OK;
}

static int draw_qq(cairo_t *cr, const rp_data_t *d, double W, double H)
{
    const double *o = d->qq;
    size_t n = d->n_qq;
    double m = (double)(d->n_tests >= n ? d->n_tests : n);
    frame_t f = {70, W - 20, H - 56, 40, 0, 1, 0, 1};
    double emax = n ? -log10(1 / (m + 1)) : 1, omax = n ? o[0] : 1;
    double hi = (emax > omax ? emax : omax) * 1.05;
    double bl, bh;
    es_rp_qq_band(1, m, &bl, &bh);
    if (n && bh * 1.05 > hi && bh < 2 * hi) hi = bh * 1.05;
    f.hi_x = emax * 1.05;
    f.hi_y = hi;
    if (!(f.hi_x > 0)) f.hi_x = 1;
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    text(cr, f.x0, 22, "QQ plot of the written p-values", 0, 14);
    axes(cr, &f, "expected \xe2\x88\x92log10 p (of all the run's tests)", "observed \xe2\x88\x92log10 p", 1);
    cairo_save(cr);
    cairo_rectangle(cr, f.x0, f.y1, f.x1 - f.x0, f.y0 - f.y1);
    cairo_clip(cr);
    if (n) {
        /* the band at up to 120 ranks, evenly spaced in log rank */
        int nb = n < 120 ? (int)n : 120;
        double *ex = malloc(3 * (size_t)nb * sizeof *ex);
        if (!ex) {
            cairo_restore(cr);
            return ES_ERR_NOMEM;
        }
        for (int k = 0; k < nb; k++) {
            double i = nb == 1 ? 1 : floor(exp(log((double)n) * k / (nb - 1)) + 0.5);
            ex[3 * k] = -log10(i / (m + 1));
            es_rp_qq_band(i, m, &ex[3 * k + 1], &ex[3 * k + 2]);
        }
        for (int k = 0; k < nb; k++) cairo_line_to(cr, fx(&f, ex[3 * k]), fy(&f, ex[3 * k + 2]));
        for (int k = nb - 1; k >= 0; k--) cairo_line_to(cr, fx(&f, ex[3 * k]), fy(&f, ex[3 * k + 1]));
        cairo_close_path(cr);
        cairo_set_source_rgba(cr, 0.5, 0.5, 0.5, 0.3);
        cairo_fill(cr);
        free(ex);
    }
    cairo_set_source_rgb(cr, 0.6, 0.1, 0.1);
    cairo_set_line_width(cr, 1);
    cairo_move_to(cr, fx(&f, 0), fy(&f, 0));
    cairo_line_to(cr, fx(&f, f.hi_x), fy(&f, f.hi_x));
    cairo_stroke(cr);
    points_t pt;
    if (points_begin(&pt, cr, n, W, H, 2.2)) {
        cairo_restore(cr);
        return ES_ERR_NOMEM;
    }
    points_colour(&pt, 0.03, 0.27, 0.58);
    for (size_t k = 0; k < n; k++)
        point(&pt, fx(&f, -log10((double)(k + 1) / (m + 1))), fy(&f, o[k]));
    int perr = points_end(&pt);
    cairo_restore(cr);
    if (perr) return perr;
    /* lambda, where the list holds the median p of all the tests */
    double *p = malloc((n ? n : 1) * sizeof *p), lambda;
    if (!p) return ES_ERR_NOMEM;
    for (size_t k = 0; k < n; k++) p[k] = pow(10, -o[k]);
    char b[96];
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    if (d->n_tests && es_rp_lambda(p, n, d->n_tests, &lambda)) {
        snprintf(b, sizeof b, "\xce\xbb = %.4f", lambda);
        text(cr, f.x0 + 10, f.y1 + 14, b, 0, 12);
    }
    free(p);
    return ES_OK;
}

static int draw_heatmap(cairo_t *cr, const rp_data_t *d, double W, double H)
{
    const rp_hit_t *h;
    size_t *idx;
    long n = best_hits(d, (size_t)-1, &h, &idx);
    if (n < 0) return ES_ERR_NOMEM;
    int ret = ES_OK;
    int32_t *slot = malloc((d->n_var ? d->n_var : 1) * sizeof *slot);
    uint32_t var[RP_HEAT_MAX];
    double *cell = NULL;
    int nv = 0;
    if (!slot) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (size_t v = 0; v < d->n_var; v++) slot[v] = -1;
    /* the variants of the best hits, in order of first appearance */
    for (long q = 0; q < n && nv < RP_HEAT_MAX; q++)
        for (int e = 0; e < (d->order == 3 ? 3 : 2) && nv < RP_HEAT_MAX; e++) {
            uint32_t v = h[idx[q]].v[e];
            if (slot[v] < 0) {
                slot[v] = nv;
                var[nv++] = v;
            }
        }
    /* shown in genome order */
    for (int a = 1; a < nv; a++)
        for (int b = a; b > 0 && es_rp_x(d, var[b]) < es_rp_x(d, var[b - 1]); b--) {
            uint32_t t = var[b];
            var[b] = var[b - 1];
            var[b - 1] = t;
        }
    for (int a = 0; a < nv; a++) slot[var[a]] = a;
    if (!(cell = malloc((size_t)(nv ? nv * nv : 1) * sizeof *cell))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (int k = 0; k < nv * nv; k++) cell[k] = NAN;
    double lo = INFINITY, hi = -INFINITY;
    for (int list = 0; list < 2; list++) {
        const rp_hit_t *L = list ? d->sig : d->top;
        size_t nl = list ? d->n_sig : d->n_top;
        for (size_t q = 0; q < nl; q++) {
            double val = hit_value(d, &L[q]);
            if (!isfinite(val)) continue;
            int o3 = d->order == 3 ? 3 : 2;
            for (int e = 0; e < o3; e++)
                for (int g = e + 1; g < o3; g++) {
                    int a = slot[L[q].v[e]], b = slot[L[q].v[g]];
                    if (a < 0 || b < 0 || a == b) continue;
                    if (isnan(cell[a * nv + b]) || val > cell[a * nv + b])
                        cell[a * nv + b] = cell[b * nv + a] = val;
                    if (val < lo) lo = val;
                    if (val > hi) hi = val;
                }
        }
    }
    if (!(hi > lo)) {
        lo = isfinite(lo) ? lo - 1 : 0;
        hi = isfinite(hi) ? hi : 1;
    }
    double x0 = 120, y0 = 44, side = W - x0 - 100;
    if (H - y0 - 110 < side) side = H - y0 - 110;
    double cs = nv ? side / nv : side;
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    char title[160];
    snprintf(title, sizeof title, "Heat map: the %d variants of the best %s", nv,
             d->order == 3 ? "triples (best triple per pair)" : "pairs");
    text(cr, 20, 22, title, 0, 14);
    for (int a = 0; a < nv; a++)
        for (int b = 0; b < nv; b++) {
            double v = cell[a * nv + b], r, g, bl;
            if (a == b) cairo_set_source_rgb(cr, 0.75, 0.75, 0.75);
            else if (isnan(v)) cairo_set_source_rgb(cr, 0.95, 0.95, 0.95);
            else {
                cmap((v - lo) / (hi - lo), &r, &g, &bl);
                cairo_set_source_rgb(cr, r, g, bl);
            }
            cairo_rectangle(cr, x0 + b * cs, y0 + a * cs, cs - 0.5, cs - 0.5);
            cairo_fill(cr);
        }
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    double fs = cs < 10 ? 7 : cs > 16 ? 10 : cs * 0.7;
    for (int a = 0; a < nv; a++) {
        const rp_var_t *x = &d->var[var[a]];
        label(cr, x0 - 4, y0 + a * cs + cs / 2 + fs / 3, x->id, 2, fs);
        cairo_save(cr);
        cairo_translate(cr, x0 + a * cs + cs / 2 + fs / 3, y0 + nv * cs + 4);
        cairo_rotate(cr, M_PI / 2);
        label(cr, 0, 0, x->id, 0, fs);
        cairo_restore(cr);
    }
    colour_bar(cr, W - 80, y0, y0 + side, lo, hi, value_label(d));
out:
    free(cell);
    free(slot);
    free(idx);
    return ret;
}

static int draw_ranking(cairo_t *cr, const rp_data_t *d, double W, double H)
{
    frame_t f = {70, W - 20, H - 56, 40, 0.5, 1.5, 0, 1};
    uint32_t maxr = 1;
    double hi = 0, lo = 0;
    for (size_t k = 0; k < d->n_sel; k++) {
        if (d->sel[k].rank > maxr) maxr = d->sel[k].rank;
        double v[2] = {d->sel[k].score, d->sel[k].relevance};
        for (int j = 0; j < 2; j++) {
            if (v[j] > hi) hi = v[j];
            if (v[j] < lo) lo = v[j];
        }
    }
    f.hi_x = maxr + 0.5;
    f.lo_y = lo;
    f.hi_y = hi > lo ? lo + (hi - lo) * 1.08 : lo + 1;
    const char *method = es_rp_log(d, "select_method");
    char title[160];
    snprintf(title, sizeof title, "Selection%s%s: the score of each pick", method ? " by " : "",
             method ? method : "");
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    text(cr, f.x0, 22, title, 0, 14);
    axes(cr, &f, "rank (order of selection)", "bits", 1);
    for (int s = 0; s < 2; s++) {
        if (s) {
            double dash[] = {5, 3};
            cairo_set_dash(cr, dash, 2, 0);
            cairo_set_source_rgb(cr, 0.85, 0.45, 0.05);
        } else {
            cairo_set_source_rgb(cr, 0.03, 0.27, 0.58);
        }
        cairo_set_line_width(cr, 1.5);
        for (size_t k = 0; k < d->n_sel; k++) {
            double v = s ? d->sel[k].relevance : d->sel[k].score;
            if (isnan(v)) continue;
            cairo_line_to(cr, fx(&f, d->sel[k].rank), fy(&f, v));
        }
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        for (size_t k = 0; k < d->n_sel; k++) {
            double v = s ? d->sel[k].relevance : d->sel[k].score;
            if (isnan(v)) continue;
            cairo_arc(cr, fx(&f, d->sel[k].rank), fy(&f, v), 2.5, 0, 2 * M_PI);
            cairo_fill(cr);
        }
        text(cr, f.x1 - 150, f.y1 + 14 + 14 * s, s ? "- - relevance I(X;Y)" : "\xe2\x80\x94 score at the pick", 0, 11);
    }
    return ES_OK;
}

/* mdfs: every variable's max IG, largest first; the relevant ones in red */
static int draw_mdfs(cairo_t *cr, const rp_data_t *d, double W, double H)
{
    size_t n = d->n_mdfs;
    double *ig = malloc((n ? n : 1) * sizeof *ig);
    int *rel = malloc((n ? n : 1) * sizeof *rel);
    if (!ig || !rel) {
        free(ig);
        free(rel);
        return ES_ERR_NOMEM;
    }
    /* ranks by IG, ties in file order (a stable insertion of indices) */
    size_t *ix = malloc((n ? n : 1) * sizeof *ix);
    if (!ix) {
        free(ig);
        free(rel);
        return ES_ERR_NOMEM;
    }
    for (size_t k = 0; k < n; k++) {
        size_t j = k;
        while (j > 0 && d->mdfs[ix[j - 1]].ig < d->mdfs[k].ig) {
            ix[j] = ix[j - 1];
            j--;
        }
        ix[j] = k;
    }
    double hi = 0;
    for (size_t k = 0; k < n; k++) {
        ig[k] = d->mdfs[ix[k]].ig;
        rel[k] = d->mdfs[ix[k]].relevant;
        if (ig[k] > hi) hi = ig[k];
    }
    frame_t f = {70, W - 20, H - 56, 40, 0.5, n + 0.5, 0, hi > 0 ? hi * 1.08 : 1};
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    text(cr, f.x0, 22, "MDFS: each variable's maximum information gain, largest first", 0, 14);
    axes(cr, &f, "rank of the variable", "max IG (MDFS units)", n <= 60);
    for (size_t k = 0; k < n; k++) {
        if (rel[k]) cairo_set_source_rgb(cr, 0.80, 0.10, 0.10);
        else cairo_set_source_rgb(cr, 0.45, 0.45, 0.45);
        cairo_arc(cr, fx(&f, (double)k + 1), fy(&f, ig[k]), n > 2000 ? 1.2 : 2.5, 0, 2 * M_PI);
        cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0.80, 0.10, 0.10);
    text(cr, f.x1 - 170, f.y1 + 14, "\xe2\x97\x8f relevant (PREFIX.relevant.tsv)", 0, 11);
    free(ix);
    free(ig);
    free(rel);
    return ES_OK;
}

/* nsga: the final Pareto front, F1 against F2, as a staircase */
static int draw_front(cairo_t *cr, const rp_data_t *d, double W, double H)
{
    double lx = INFINITY, hx = -INFINITY, ly = INFINITY, hy = -INFINITY;
    for (size_t k = 0; k < d->n_front; k++) {
        const rp_front_t *p = &d->front[k];
        if (p->f1 < lx) lx = p->f1;
        if (p->f1 > hx) hx = p->f1;
        if (p->f2 < ly) ly = p->f2;
        if (p->f2 > hy) hy = p->f2;
    }
    double px = hx > lx ? (hx - lx) * 0.06 : 0.5, py = hy > ly ? (hy - ly) * 0.06 : 0.5;
    frame_t f = {70, W - 20, H - 56, 40, lx - px, hx + px, ly - py, hy + py};
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    text(cr, f.x0, 22, "NSGA-II: the final Pareto front (both objectives minimised)", 0, 14);
    axes(cr, &f, "F1", "F2", 1);
    /* the front sorted by F1: a staircase from each point to the next */
    size_t n = d->n_front, *ix = malloc((n ? n : 1) * sizeof *ix);
    if (!ix) return ES_ERR_NOMEM;
    for (size_t k = 0; k < n; k++) {
        size_t j = k;
        while (j > 0 && d->front[ix[j - 1]].f1 > d->front[k].f1) {
            ix[j] = ix[j - 1];
            j--;
        }
        ix[j] = k;
    }
    cairo_set_source_rgb(cr, 0.03, 0.27, 0.58);
    cairo_set_line_width(cr, 1.2);
    for (size_t k = 0; k < n; k++) {
        const rp_front_t *p = &d->front[ix[k]];
        if (!k) cairo_move_to(cr, fx(&f, p->f1), fy(&f, p->f2));
        else {
            cairo_line_to(cr, fx(&f, p->f1), fy(&f, d->front[ix[k - 1]].f2));
            cairo_line_to(cr, fx(&f, p->f1), fy(&f, p->f2));
        }
    }
    cairo_stroke(cr);
    for (size_t k = 0; k < n; k++) {
        cairo_arc(cr, fx(&f, d->front[k].f1), fy(&f, d->front[k].f2), 3, 0, 2 * M_PI);
        cairo_fill(cr);
    }
    free(ix);
    return ES_OK;
}

/* nsga: the hypervolume of each generation's front */
static int draw_hv(cairo_t *cr, const rp_data_t *d, double W, double H)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t k = 0; k < d->n_hv; k++) {
        if (d->hv[k] < lo) lo = d->hv[k];
        if (d->hv[k] > hi) hi = d->hv[k];
    }
    double pad = hi > lo ? (hi - lo) * 0.08 : 0.05;
    frame_t f = {70, W - 20, H - 56, 40, 0, d->n_hv > 1 ? (double)d->n_hv - 1 : 1, lo - pad, hi + pad};
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    text(cr, f.x0, 22, "NSGA-II: hypervolume of the first front, by generation", 0, 14);
    axes(cr, &f, "generation", "hypervolume", 1);
    cairo_set_source_rgb(cr, 0.03, 0.27, 0.58);
    cairo_set_line_width(cr, 1.5);
    for (size_t k = 0; k < d->n_hv; k++) cairo_line_to(cr, fx(&f, (double)k), fy(&f, d->hv[k]));
    cairo_stroke(cr);
    return ES_OK;
}

int es_rp_render(const rp_data_t *d, rp_plot_t k, es_report_format_t fmt, char **buf, size_t *len)
{
    static const double size[RP_N_PLOTS][2] = {{960, 400}, {960, 400}, {480, 480}, {640, 640},
                                               {640, 360}, {720, 360}, {560, 420}, {640, 320}};
    double W = size[k][0], H = size[k][1];
    membuf_t mb = {NULL, 0, 0, 0};
    cairo_surface_t *s;
    if (fmt == ES_REPORT_PNG) s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)W, (int)H);
    else if (fmt == ES_REPORT_PDF) s = cairo_pdf_surface_create_for_stream(mem_write, &mb, W, H);
    else s = cairo_svg_surface_create_for_stream(mem_write, &mb, W, H);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    int ret;
    switch (k) {
    case RP_PLOT_INTERACTION: ret = draw_interaction(cr, d, W, H); break;
    case RP_PLOT_MANHATTAN: ret = draw_manhattan(cr, d, W, H); break;
    case RP_PLOT_QQ: ret = draw_qq(cr, d, W, H); break;
    case RP_PLOT_HEATMAP: ret = draw_heatmap(cr, d, W, H); break;
    case RP_PLOT_RANKING: ret = draw_ranking(cr, d, W, H); break;
    case RP_PLOT_MDFS: ret = draw_mdfs(cr, d, W, H); break;
    case RP_PLOT_FRONT: ret = draw_front(cr, d, W, H); break;
    default: ret = draw_hv(cr, d, W, H); break;
    }
    cairo_status_t st = cairo_status(cr);
    cairo_destroy(cr);
    if (!ret && !st && fmt == ES_REPORT_PNG) st = cairo_surface_write_to_png_stream(s, mem_write, &mb);
    cairo_surface_finish(s);
    if (!st) st = cairo_surface_status(s);
    cairo_surface_destroy(s);
    if (!ret && (mb.err || !mb.p)) ret = ES_ERR_NOMEM;
    if (!ret && st) {
        es_error("cairo: %s", cairo_status_to_string(st));
        ret = ES_ERR_IO;
    }
    if (ret) {
        free(mb.p);
        return ret;
    }
    *buf = mb.p;
    *len = mb.n;
    return ES_OK;
}
