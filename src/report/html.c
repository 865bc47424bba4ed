/* html.c -- the report page: one self-contained file (inline SVG, inline
 * style and one small inline script for sorting tables; a Content-Security-
 * Policy that forbids every fetch), every ID, path and log value escaped. */
#include <stdio.h>
#include <string.h>

#include "report_internal.h"
#include "util.h"

int es_rp_utf8_len(const unsigned char *u)
{
    int len = 0;
    if (*u < 0x80) return *u >= 0x20 && *u != 0x7f ? 1 : 0;
    if ((*u & 0xe0) == 0xc0 && *u >= 0xc2) len = 2;
    else if ((*u & 0xf0) == 0xe0) len = 3;
    else if ((*u & 0xf8) == 0xf0 && *u <= 0xf4) len = 4;
    for (int k = 1; k < len; k++)
        if ((u[k] & 0xc0) != 0x80) return 0;
    /* overlong 3-byte forms, surrogates, beyond U+10FFFF */
    if (len == 3 && ((u[0] == 0xe0 && u[1] < 0xa0) || (u[0] == 0xed && u[1] >= 0xa0))) return 0;
    if (len == 4 && ((u[0] == 0xf0 && u[1] < 0x90) || (u[0] == 0xf4 && u[1] >= 0x90))) return 0;
    return len;
}

void es_rp_html_escape(FILE *fp, const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    while (*u) {
        switch (*u) {
        case '&': fputs("&amp;", fp); u++; continue;
        case '<': fputs("&lt;", fp); u++; continue;
        case '>': fputs("&gt;", fp); u++; continue;
        case '"': fputs("&quot;", fp); u++; continue;
        case '\'': fputs("&#39;", fp); u++; continue;
        case '\t': case '\n': fputc(*u++, fp); continue;
        default: break;
        }
        int len = es_rp_utf8_len(u);
        if (len) {
            fwrite(u, 1, (size_t)len, fp);
            u += len;
        } else {
            fputs("\xef\xbf\xbd", fp); /* U+FFFD */
            u++;
        }
    }
}

void es_rp_svg_put(FILE *fp, const char *svg, size_t len, const char *idp, const char *title,
                   const char *desc)
{
    const char *end = svg + len, *p = strstr(svg, "<svg");
    if (!p) return;
    if (!idp) fwrite(svg, 1, (size_t)(p - svg), fp); /* the XML declaration */
    const char *gt = memchr(p, '>', (size_t)(end - p));
    if (!gt) return;
    fwrite(p, 1, (size_t)(gt + 1 - p), fp);
    fputs("\n<title>", fp);
    es_rp_html_escape(fp, title);
    fputs("</title>\n<desc>", fp);
    es_rp_html_escape(fp, desc);
    fputs("</desc>", fp);
    p = gt + 1;
    if (!idp) {
        fwrite(p, 1, (size_t)(end - p), fp);
        return;
    }
    /* cairo's ids (glyph0-1, clip1, surface5, ...) repeat in each of its SVGs */
    static const char *const refs[] = {"id=\"", "href=\"#", "url(#"};
    while (p < end) {
        const char *hit = NULL;
        size_t hl = 0;
        for (int k = 0; k < 3; k++) {
            const char *h = strstr(p, refs[k]);
            if (h && (!hit || h < hit)) {
                hit = h;
                hl = strlen(refs[k]);
            }
        }
        if (!hit) {
            fwrite(p, 1, (size_t)(end - p), fp);
            break;
        }
        fwrite(p, 1, (size_t)(hit + hl - p), fp);
        fputs(idp, fp);
        p = hit + hl;
    }
}

static const char *const css =
    "body{font-family:sans-serif;margin:2em auto;max-width:1000px;color:#222;line-height:1.4}"
    "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}"
    "table{border-collapse:collapse;font-size:.85em}td,th{padding:2px 8px;border-bottom:1px "
    "solid #eee;text-align:left}th{background:#f2f2f5}table.sortable th{cursor:pointer}"
    "th[aria-sort=ascending]::after{content:' \\25B2'}th[aria-sort=descending]::after{content:"
    "' \\25BC'}figure{margin:1em 0}figure svg{max-width:100%;height:auto}figcaption{font-size:"
    ".9em;color:#444}code{background:#f4f4f4}.why{color:#844}.wrap{max-height:480px;overflow:"
    "auto;border:1px solid #ddd}";

/* sorts a table.sortable by the clicked column: numbers as numbers (NA
 * last), the rest as text; a second click reverses */
static const char *const script =
    "(function(){\n"
    "function key(s){var v=Number(s);return s!==''&&isFinite(v)?v:null;}\n"
    "function sortBy(t,c,h){var b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows);\n"
    " var asc=h.getAttribute('aria-sort')!=='ascending';\n"
    " rows.sort(function(x,y){var a=x.cells[c].textContent,d=y.cells[c].textContent,"
    "ka=key(a),kd=key(d),r;\n"
    "  if(ka!==null&&kd!==null)r=ka-kd;else if(ka!==null)r=-1;else if(kd!==null)r=1;"
    "else r=a<d?-1:a>d?1:0;\n"
    "  return asc?r:-r;});\n"
    " var hs=t.tHead.rows[0].cells;for(var k=0;k<hs.length;k++)hs[k].removeAttribute('aria-sort');\n"
    " h.setAttribute('aria-sort',asc?'ascending':'descending');\n"
    " for(var k=0;k<rows.length;k++)b.appendChild(rows[k]);}\n"
    "var ts=document.querySelectorAll('table.sortable');\n"
    "for(var i=0;i<ts.length;i++)(function(t){var hs=t.tHead.rows[0].cells;\n"
    " for(var c=0;c<hs.length;c++)(function(c){hs[c].addEventListener('click',"
    "function(){sortBy(t,c,hs[c]);});})(c);})(ts[i]);\n"
    "document.documentElement.setAttribute('data-ready','1');\n"
    "})();\n";

/* a table of the rows kept from a file (row 0: its header) */
static void put_table(FILE *fp, const char *id, const rp_table_t *t, const char *file)
{
    if (!t->n_rows) return;
    size_t shown = t->n_rows - 1;
    fprintf(fp, "<p>%zu line%s of <code>", t->n_total, t->n_total == 1 ? "" : "s");
    es_rp_html_escape(fp, file);
    fputs("</code>", fp);
    if (shown < t->n_total) fprintf(fp, " (the %s %zu shown)", t->best ? "smallest P's" : "first", shown);
    fputs("; click a column to sort.</p>\n<div class=\"wrap\"><table class=\"sortable\" id=\"", fp);
    fputs(id, fp);
    fputs("\"><thead><tr>", fp);
    for (int c = 0; c < t->n_cols; c++) {
        fputs("<th>", fp);
        es_rp_html_escape(fp, t->cell[c]);
        fputs("</th>", fp);
    }
    fputs("</tr></thead>\n<tbody>\n", fp);
    for (size_t r = 1; r < t->n_rows; r++) {
        fputs("<tr>", fp);
        for (int c = 0; c < t->n_cols; c++) {
            fputs("<td>", fp);
            es_rp_html_escape(fp, t->cell[r * (size_t)t->n_cols + (size_t)c]);
            fputs("</td>", fp);
        }
        fputs("</tr>\n", fp);
    }
    fputs("</tbody></table></div>\n", fp);
}

/* a section with its heading (id h2id) and the table of PREFIX SUFFIX, when it has rows */
static void table_section(FILE *fp, const rp_data_t *d, const char *h2id, const char *title, const char *id,
                          const rp_table_t *t, const char *suffix)
{
    if (!t->n_rows) return;
    fprintf(fp, "<h2 id=\"%s\">%s</h2>\n", h2id, title);
    char file[4096];
    snprintf(file, sizeof file, "%s%s", d->prefix, suffix);
    put_table(fp, id, t, file);
}

int es_rp_html(FILE *fp, const rp_data_t *d, const rp_fig_t *fig, size_t n_fig,
               const char *const *notes, size_t n_notes)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>"
          "epistream report: ", fp);
    es_rp_html_escape(fp, d->prefix);
    fprintf(fp, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>epistream report: <code>", css);
    es_rp_html_escape(fp, d->prefix);
    fputs("</code></h1>\n", fp);
    /* the run */
    fputs("<h2 id=\"run\">Run</h2>\n", fp);
    if (d->have_log && d->pk.log) {
        /* PLINK's log: its lines as they are */
        fputs("<pre id=\"log\">", fp);
        for (size_t k = 0; k < d->n_log; k++) {
            es_rp_html_escape(fp, d->log_key[k]);
            fputc('\n', fp);
        }
        fputs("</pre>\n", fp);
    } else if (d->have_log) {
        fputs("<table id=\"log\"><tbody>\n", fp);
        for (size_t k = 0; k < d->n_log; k++) {
            fputs("<tr><th>", fp);
            es_rp_html_escape(fp, d->log_key[k]);
            fputs("</th><td>", fp);
            es_rp_html_escape(fp, d->log_val[k]);
            fputs("</td></tr>\n", fp);
        }
        fputs("</tbody></table>\n", fp);
    } else {
        fputs("<p class=\"why\">No <code>", fp);
        es_rp_html_escape(fp, d->prefix);
        fputs(".log</code>: the run's inputs, counts and timings are unknown.</p>\n", fp);
    }
    if (n_notes) {
        fputs("<h2 id=\"notes\">What the plots show</h2>\n<ul>\n", fp);
        for (size_t k = 0; k < n_notes; k++) {
            fputs("<li>", fp);
            es_rp_html_escape(fp, notes[k]);
            fputs("</li>\n", fp);
        }
        fputs("</ul>\n", fp);
    }
    /* the plots of the kinds of results the run has (a rules run alone: none) */
    for (size_t k = 0; k < n_fig; k++) {
        const rp_fig_t *f = &fig[k];
        if (f->hide) continue;
        fprintf(fp, "<h2 id=\"%s\">", f->stem);
        es_rp_html_escape(fp, f->title);
        fputs("</h2>\n", fp);
        if (!f->svg) {
            fputs("<p class=\"why\">Not drawn: ", fp);
            es_rp_html_escape(fp, f->why);
            fputs("</p>\n", fp);
            continue;
        }
        char idp[32];
        snprintf(idp, sizeof idp, "%s-", f->stem);
        fputs("<figure>\n", fp);
        es_rp_svg_put(fp, f->svg, f->len, idp, f->title, f->desc);
        fputs("\n<figcaption>", fp);
        es_rp_html_escape(fp, f->desc);
        fputs("</figcaption>\n</figure>\n", fp);
    }
    if (d->top_tab.n_rows) {
        fprintf(fp, "<h2 id=\"top\">Top %s</h2>\n", d->order == 3 ? "triples" : "pairs");
        char file[4096];
        snprintf(file, sizeof file, "%s%s", d->prefix, RP_SUF_TOP);
        put_table(fp, "top-table", &d->top_tab, file);
    }
    table_section(fp, d, "listed", "Listed pairs", "list-table", &d->pk.tab, d->sig_suf);
    table_section(fp, d, "selected", "Selected features", "select-table", &d->sel_tab, RP_SUF_SEL);
    table_section(fp, d, "mdfs-table", "MDFS: variables", "mdfs-vars", &d->mdfs_tab, RP_SUF_MDFS);
    table_section(fp, d, "front-table", "NSGA-II: the Pareto front", "front-individuals", &d->front_tab,
                  RP_SUF_FRONT);
    if (d->n_rules) {
        /* rules train's model, as its .rules.txt has it (the first is the default rule) */
        fprintf(fp, "<h2 id=\"rules\">Rules (%zu)</h2>\n<ol class=\"rules\">\n", d->n_rules);
        for (size_t k = 0; k < d->n_rules; k++) {
            fputs("<li><code>", fp);
            es_rp_html_escape(fp, d->rules[k]);
            fputs("</code></li>\n", fp);
        }
        fputs("</ol>\n", fp);
    }
    table_section(fp, d, "metrics", "Prediction metrics (percent)", "metrics-table", &d->metrics_tab,
                  RP_SUF_METRICS);
    fprintf(fp, "<p><small>Written by epistream %s (<code>epistream report</code>).</small></p>\n"
                "<script>\n%s</script>\n</body>\n</html>\n", ES_VERSION, script);
    return ferror(fp) ? ES_ERR_IO : ES_OK;
}
