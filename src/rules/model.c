/* model.c -- a learned rule model: prediction, the versioned text file
 * (written and read back with every field validated) and the human-readable
 * rule list.
 *
 * The file, one record a line, names percent-encoded (bytes <= ' ', '%' and
 * DEL as %XX):
 *   epistream-rules-model 1
 *   loss logistic|squared-error|logistic-example-wise
 *   head complete|single
 *   features F
 *   feature NAME numeric            (F lines; or: feature NAME nominal K V1 .. VK)
 *   labels L
 *   label NAME                      (L lines)
 *   default S1 .. SL
 *   rules R
 *   rule C H F1 OP1 T1 .. FC OPC TC L1 S1 .. LH SH   (R lines; OP <=, >, ==, !=)
 *   labelvectors V                  (logistic-example-wise only: the training set's
 *   lv FREQ B1B2..BL                 distinct label vectors, V lines, as L digits 0/1)
 *   end R
 * Doubles are written with 17 significant digits and thresholds (float32)
 * with 9, so a model read back predicts exactly as the one written. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rules_internal.h"

#define MAGIC "epistream-rules-model"
#define VERSION 1
#define MAX_COUNT 100000000u

static const char *const op_str[] = {"<=", ">", "==", "!="};

/* ---- prediction ------------------------------------------------------------------ */

static int covers(const es_rules_rule_t *r, const es_rules_data_t *d, uint32_t i)
{
    size_t n = d->n_ex;
    for (uint32_t k = 0; k < r->n_cond; k++) {
        const es_rules_cond_t *c = &r->cond[k];
        float x = d->x[(size_t)c->feat * n + i];
        int ok;
        switch (c->op) {
        case ES_RULES_LE: ok = x <= c->thr; break;
        case ES_RULES_GT: ok = x > c->thr; break;
        case ES_RULES_EQ: ok = x == c->thr; break;
        default: ok = !isnan(x) && x != c->thr; break;
        }
        if (!ok) return 0;
    }
    return 1;
}

void es_rules_predict_scores(const es_rules_model_t *m, const es_rules_data_t *d, double *s)
{
    uint32_t L = m->n_lab;
#pragma omp parallel for schedule(static)
    for (uint32_t i = 0; i < d->n_ex; i++) {
        double *si = s + (size_t)i * L;
        for (uint32_t l = 0; l < L; l++) si[l] = m->def[l];
        for (uint32_t r = 0; r < m->n_rules; r++) {
            const es_rules_rule_t *ru = &m->rule[r];
            if (!covers(ru, d, i)) continue;
            for (uint32_t k = 0; k < ru->n_head; k++) si[ru->lab[k]] += ru->score[k];
        }
    }
}

void es_rules_binarize(const double *s, size_t n, uint8_t *p)
{
    for (size_t k = 0; k < n; k++) p[k] = s[k] > 0.0;
}

double es_rules_example_loss(const double *s, const uint8_t *y, uint32_t n)
{
    double max = 0.0, sum;
    for (uint32_t l = 0; l < n; l++) {
        double x = y[l] ? -s[l] : s[l];
        if (x > max) max = x;
    }
    sum = exp(0 - max);
    for (uint32_t l = 0; l < n; l++) sum += exp((y[l] ? -s[l] : s[l]) - max);
    return max + log(sum);
}

void es_rules_predict_binary(const es_rules_model_t *m, const double *s, uint32_t n_ex, uint8_t *p)
{
    uint32_t L = m->n_lab;
    if (m->loss != ES_RULES_LOSS_LOGISTIC_EXAMPLE_WISE || !m->n_lv) {
        es_rules_binarize(s, (size_t)n_ex * L, p);
        return;
    }
#pragma omp parallel for schedule(static)
    for (uint32_t i = 0; i < n_ex; i++) {
        const double *si = s + (size_t)i * L;
        uint32_t best = 0, bf = m->lv_freq[0];
        double bd = es_rules_example_loss(si, m->lv, L);
        for (uint32_t k = 1; k < m->n_lv; k++) {
            double dk = es_rules_example_loss(si, m->lv + (size_t)k * L, L);
            if (dk < bd || (dk == bd && m->lv_freq[k] > bf)) {
                best = k;
                bf = m->lv_freq[k];
                bd = dk;
            }
        }
        memcpy(p + (size_t)i * L, m->lv + (size_t)best * L, L);
    }
}

int es_rules_probabilities(const es_rules_model_t *m, const double *s, size_t n, double *p)
{
    if (m->loss == ES_RULES_LOSS_SQUARED_ERROR) {
        es_log(ES_LOG_ERROR, "es_rules_probabilities",
               "probabilities need a model trained with the logistic loss, this one has the %s "
               "loss (mlrl-boomer offers none for it either); use scores or binary predictions",
               es_rules_loss_name(m->loss));
        return ES_ERR_ARG;
    }
    if (m->loss == ES_RULES_LOSS_LOGISTIC_EXAMPLE_WISE && m->n_lv) {
        /* mlrl-boomer's marginalized probabilities (its default for a non-decomposable loss):
           each training label vector's joint probability by the chain rule of the
           labels' logistic probabilities, normalised over the vectors; a label's
           probability is the sum over the vectors that hold it */
        uint32_t L = m->n_lab, V = m->n_lv;
        double *joint = malloc(V * sizeof *joint), *row = malloc(L * sizeof *row);
        if (!joint || !row) {
            free(joint);
            free(row);
            es_log(ES_LOG_ERROR, "es_rules_probabilities", "out of memory (%u label vectors)", V);
            return ES_ERR_NOMEM;
        }
        for (size_t i = 0; i + L <= n; i += L) {
            double sum = 0.0;
            for (uint32_t k = 0; k < V; k++) {
                const uint8_t *y = m->lv + (size_t)k * L;
                double jp = 1.0;
                for (uint32_t l = 0; l < L; l++) {
                    double mp = es_rl_logistic(s[i + l]);
                    jp *= y[l] ? mp : 1 - mp;
                }
                joint[k] = jp;
                sum += jp;
            }
            for (uint32_t l = 0; l < L; l++) row[l] = 0.0;
            for (uint32_t k = 0; k < V; k++) {
                double jp = joint[k] / sum;
                if (!isfinite(jp)) jp = 0.0;
                for (uint32_t l = 0; l < L; l++)
                    if (m->lv[(size_t)k * L + l]) row[l] += jp;
            }
            memcpy(p + i, row, L * sizeof *row);
        }
        free(joint);
        free(row);
        return ES_OK;
    }
    for (size_t k = 0; k < n; k++) p[k] = es_rl_logistic(s[k]);
    return ES_OK;
}

/* ---- writing ---------------------------------------------------------------------- */

static void put_name(FILE *fp, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p <= ' ' || *p == '%' || *p == 0x7f) fprintf(fp, "%%%02X", *p);
        else fputc(*p, fp);
}

int es_rules_model_write(const es_rules_model_t *m, FILE *fp)
{
    fprintf(fp, "%s %d\nloss %s\nhead %s\nfeatures %u\n", MAGIC, VERSION,
            es_rules_loss_name(m->loss), es_rules_head_name(m->head), m->n_feat);
    for (uint32_t f = 0; f < m->n_feat; f++) {
        fputs("feature ", fp);
        put_name(fp, m->feat_name[f]);
        if (!m->n_values[f]) {
            fputs(" numeric\n", fp);
            continue;
        }
        fprintf(fp, " nominal %u", m->n_values[f]);
        for (uint32_t k = 0; k < m->n_values[f]; k++) {
            fputc(' ', fp);
            put_name(fp, m->values[f][k]);
        }
        fputc('\n', fp);
    }
    fprintf(fp, "labels %u\n", m->n_lab);
    for (uint32_t l = 0; l < m->n_lab; l++) {
        fputs("label ", fp);
        put_name(fp, m->lab_name[l]);
        fputc('\n', fp);
    }
    fputs("default", fp);
    for (uint32_t l = 0; l < m->n_lab; l++) fprintf(fp, " %.17g", m->def[l]);
    fprintf(fp, "\nrules %u\n", m->n_rules);
    for (uint32_t r = 0; r < m->n_rules; r++) {
        const es_rules_rule_t *ru = &m->rule[r];
        fprintf(fp, "rule %u %u", ru->n_cond, ru->n_head);
        for (uint32_t k = 0; k < ru->n_cond; k++) {
            const es_rules_cond_t *c = &ru->cond[k];
            if (c->op >= ES_RULES_EQ) fprintf(fp, " %u %s %u", c->feat, op_str[c->op], (unsigned)c->thr);
            else fprintf(fp, " %u %s %.9g", c->feat, op_str[c->op], (double)c->thr);
        }
        for (uint32_t k = 0; k < ru->n_head; k++) fprintf(fp, " %u %.17g", ru->lab[k], ru->score[k]);
        fputc('\n', fp);
    }
    if (m->loss == ES_RULES_LOSS_LOGISTIC_EXAMPLE_WISE) {
        fprintf(fp, "labelvectors %u\n", m->n_lv);
        for (uint32_t k = 0; k < m->n_lv; k++) {
            fprintf(fp, "lv %u ", m->lv_freq[k]);
            for (uint32_t l = 0; l < m->n_lab; l++) fputc('0' + m->lv[(size_t)k * m->n_lab + l], fp);
            fputc('\n', fp);
        }
    }
    fprintf(fp, "end %u\n", m->n_rules);
    return ferror(fp) ? ES_ERR_IO : ES_OK;
}

int es_rules_write_text(const es_rules_model_t *m, FILE *fp)
{
    fputs("IF TRUE THEN", fp);
    for (uint32_t l = 0; l < m->n_lab; l++)
        fprintf(fp, "%s %s %+.4f", l ? "," : "", m->lab_name[l], m->def[l]);
    fputc('\n', fp);
    for (uint32_t r = 0; r < m->n_rules; r++) {
        const es_rules_rule_t *ru = &m->rule[r];
        fputs("IF", fp);
        for (uint32_t k = 0; k < ru->n_cond; k++) {
            const es_rules_cond_t *c = &ru->cond[k];
            fprintf(fp, "%s %s %s ", k ? " AND" : "", m->feat_name[c->feat], op_str[c->op]);
            if (c->op >= ES_RULES_EQ) fputs(m->values[c->feat][(uint32_t)c->thr], fp);
            else fprintf(fp, "%.9g", (double)c->thr);
        }
        fputs(" THEN", fp);
        for (uint32_t k = 0; k < ru->n_head; k++)
            fprintf(fp, "%s %s %+.4f", k ? "," : "", m->lab_name[ru->lab[k]], ru->score[k]);
        fputc('\n', fp);
    }
    return ferror(fp) ? ES_ERR_IO : ES_OK;
}

/* ---- reading ---------------------------------------------------------------------- */

typedef struct {
    const char *path;
    char *p, *end; /* what is left of the text */
    char *line;    /* the current line, NUL-terminated */
    uint64_t ln;
    char *tok;     /* the next token of the line */
} mrd_t;

#define rerr(r, ...) mrd_err(r, __VA_ARGS__)

static void mrd_err(const mrd_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void mrd_err(const mrd_t *r, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    es_log(ES_LOG_ERROR, "es_rules_model_read", "%s: line %" PRIu64 ": %s", r->path, r->ln, msg);
}

/* The next line; 0 at the end of the text. */
static int next_line(mrd_t *r)
{
    if (r->p >= r->end) return 0;
    char *e = memchr(r->p, '\n', (size_t)(r->end - r->p));
    if (!e) e = r->end;
    *e = '\0';
    if (e > r->p && e[-1] == '\r') e[-1] = '\0';
    r->line = r->tok = r->p;
    r->p = e + 1;
    r->ln++;
    return 1;
}

/* The next token of the line (NUL-terminated in place), or NULL. */
static char *token(mrd_t *r)
{
    char *s = r->tok;
    while (*s == ' ' || *s == '\t') s++;
    if (!*s) return NULL;
    char *e = s;
    while (*e && *e != ' ' && *e != '\t') e++;
    if (*e) *e++ = '\0';
    r->tok = e;
    return s;
}

/* The next line, which must start with KEY.  @return 0, or -1 after a message */
static int expect_key(mrd_t *r, const char *key)
{
    if (!next_line(r)) {
        r->ln++;
        rerr(r, "the file ends before the '%s' line: truncated model", key);
        return -1;
    }
    char *t = token(r);
    if (!t || strcmp(t, key)) {
        rerr(r, "expected a '%s' line, found '%.40s'", key, r->line);
        return -1;
    }
    return 0;
}

static int u32_tok(mrd_t *r, const char *what, uint32_t hi, uint32_t *v)
{
    char *t = token(r), *e;
    errno = 0;
    unsigned long long x = t ? strtoull(t, &e, 10) : 0;
    if (!t || t[0] == '-' || errno || *e || x > hi) {
        rerr(r, "%s: expected an integer in [0, %u], found '%.40s'", what, hi, t ? t : "(end of line)");
        return -1;
    }
    *v = (uint32_t)x;
    return 0;
}

static int dbl_tok(mrd_t *r, const char *what, double *v)
{
    char *t = token(r), *e;
    errno = 0;
    double x = t ? strtod(t, &e) : 0;
    if (!t || *e || !isfinite(x) || (errno == ERANGE && fabs(x) > 1)) {
        rerr(r, "%s: expected a finite number, found '%.40s'", what, t ? t : "(end of line)");
        return -1;
    }
    *v = x;
    return 0;
}

/* A percent-encoded name token, decoded into a new string. */
static char *name_tok(mrd_t *r, const char *what)
{
    char *t = token(r);
    if (!t) {
        rerr(r, "expected %s", what);
        return NULL;
    }
    char *o = malloc(strlen(t) + 1), *d = o;
    if (!o) return NULL;
    for (char *s = t; *s; s++) {
        if (*s != '%') {
            *d++ = *s;
            continue;
        }
        unsigned v = 0;
        for (int k = 1; k <= 2; k++) {
            char c = s[k];
            int x = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (x < 0) {
                rerr(r, "%s '%.40s': bad %%XX escape", what, t);
                free(o);
                return NULL;
            }
            v = v * 16 + (unsigned)x;
        }
        if (!v) {
            rerr(r, "%s '%.40s': %%00 in a name", what, t);
            free(o);
            return NULL;
        }
        *d++ = (char)v;
        s += 2;
    }
    *d = '\0';
    return o;
}

static int line_done(mrd_t *r)
{
    char *t = token(r);
    if (t) {
        rerr(r, "unexpected '%.40s' at the end of the line", t);
        return -1;
    }
    return 0;
}

static int read_rule(mrd_t *r, es_rules_model_t *m, es_rules_rule_t *ru)
{
    uint32_t nc, nh;
    if (expect_key(r, "rule") || u32_tok(r, "conditions", 65535, &nc) ||
        u32_tok(r, "head size", m->n_lab, &nh))
        return ES_ERR_FORMAT;
    if (!nc || !nh) {
        rerr(r, "a rule needs at least one condition and one label in its head");
        return ES_ERR_FORMAT;
    }
    if (!(ru->cond = calloc(nc, sizeof *ru->cond)) || !(ru->lab = calloc(nh, sizeof *ru->lab)) ||
        !(ru->score = calloc(nh, sizeof *ru->score)))
        return ES_ERR_NOMEM;
    ru->n_cond = nc;
    ru->n_head = nh;
    for (uint32_t k = 0; k < nc; k++) {
        es_rules_cond_t *c = &ru->cond[k];
        if (u32_tok(r, "condition feature", m->n_feat - 1, &c->feat)) return ES_ERR_FORMAT;
        char *op = token(r);
        int o = -1;
        for (int j = 0; op && j < 4; j++)
            if (!strcmp(op, op_str[j])) o = j;
        if (o < 0) {
            rerr(r, "expected a comparison (<=, >, ==, !=), found '%.20s'", op ? op : "(end of line)");
            return ES_ERR_FORMAT;
        }
        c->op = (uint8_t)o;
        uint32_t nv = m->n_values[c->feat];
        if ((o >= ES_RULES_EQ) != (nv > 0)) {
            rerr(r, "'%s' on the %s feature '%s'", op_str[o], nv ? "nominal" : "numeric",
                 m->feat_name[c->feat]);
            return ES_ERR_FORMAT;
        }
        if (nv) {
            uint32_t v;
            if (u32_tok(r, "nominal value index", nv - 1, &v)) return ES_ERR_FORMAT;
            c->thr = (float)v;
        } else {
            double t;
            if (dbl_tok(r, "threshold", &t)) return ES_ERR_FORMAT;
            c->thr = (float)t;
            if (!isfinite(c->thr)) {
                rerr(r, "threshold beyond the float range");
                return ES_ERR_FORMAT;
            }
        }
    }
    for (uint32_t k = 0; k < nh; k++)
        if (u32_tok(r, "head label", m->n_lab - 1, &ru->lab[k]) ||
            dbl_tok(r, "head score", &ru->score[k]))
            return ES_ERR_FORMAT;
    return line_done(r) ? ES_ERR_FORMAT : ES_OK;
}

static int read_body(mrd_t *r, es_rules_model_t *m)
{
    int ret;
    char *t;
    if (!next_line(r)) {
        r->ln = 1;
        rerr(r, "empty file: not an epistream rules model");
        return ES_ERR_FORMAT;
    }
    t = token(r);
    if (!t || strcmp(t, MAGIC)) {
        rerr(r, "not an epistream rules model (expected '%s %d', found '%.40s')", MAGIC, VERSION,
             r->line);
        return ES_ERR_FORMAT;
    }
    uint32_t ver;
    if (u32_tok(r, "version", UINT32_MAX, &ver)) return ES_ERR_FORMAT;
    if (ver != VERSION) {
        rerr(r, "model format version %u; this epistream reads version %d", ver, VERSION);
        return ES_ERR_FORMAT;
    }
    if (line_done(r) || expect_key(r, "loss")) return ES_ERR_FORMAT;
    t = token(r);
    if (t && !strcmp(t, "logistic")) m->loss = ES_RULES_LOSS_LOGISTIC;
    else if (t && !strcmp(t, "squared-error")) m->loss = ES_RULES_LOSS_SQUARED_ERROR;
    else if (t && !strcmp(t, "logistic-example-wise")) m->loss = ES_RULES_LOSS_LOGISTIC_EXAMPLE_WISE;
    else {
        rerr(r, "unknown loss '%.40s'", t ? t : "");
        return ES_ERR_FORMAT;
    }
    if (line_done(r) || expect_key(r, "head")) return ES_ERR_FORMAT;
    t = token(r);
    if (t && !strcmp(t, "complete")) m->head = ES_RULES_HEAD_COMPLETE;
    else if (t && !strcmp(t, "single")) m->head = ES_RULES_HEAD_SINGLE;
    else {
        rerr(r, "unknown head type '%.40s'", t ? t : "");
        return ES_ERR_FORMAT;
    }
    uint32_t nf, nl, nr, ne;
    if (line_done(r) || expect_key(r, "features") || u32_tok(r, "features", MAX_COUNT, &nf) ||
        line_done(r))
        return ES_ERR_FORMAT;
    if (!nf) {
        rerr(r, "a model needs at least one feature");
        return ES_ERR_FORMAT;
    }
    if (!(m->feat_name = calloc(nf, sizeof *m->feat_name)) ||
        !(m->n_values = calloc(nf, sizeof *m->n_values)) ||
        !(m->values = calloc(nf, sizeof *m->values)))
        return ES_ERR_NOMEM;
    m->n_feat = nf;
    for (uint32_t f = 0; f < nf; f++) {
        if (expect_key(r, "feature")) return ES_ERR_FORMAT;
        if (!(m->feat_name[f] = name_tok(r, "a feature name"))) return ES_ERR_FORMAT;
        t = token(r);
        if (t && !strcmp(t, "numeric")) {
            if (line_done(r)) return ES_ERR_FORMAT;
            continue;
        }
        if (!t || strcmp(t, "nominal")) {
            rerr(r, "feature '%s': expected 'numeric' or 'nominal', found '%.40s'",
                 m->feat_name[f], t ? t : "(end of line)");
            return ES_ERR_FORMAT;
        }
        uint32_t nv;
        if (u32_tok(r, "nominal values", 65535, &nv)) return ES_ERR_FORMAT;
        if (!nv) {
            rerr(r, "nominal feature '%s' without values", m->feat_name[f]);
            return ES_ERR_FORMAT;
        }
        if (!(m->values[f] = calloc(nv, sizeof *m->values[f]))) return ES_ERR_NOMEM;
        m->n_values[f] = nv;
        for (uint32_t k = 0; k < nv; k++)
            if (!(m->values[f][k] = name_tok(r, "a nominal value"))) return ES_ERR_FORMAT;
        if (line_done(r)) return ES_ERR_FORMAT;
    }
    if (expect_key(r, "labels") || u32_tok(r, "labels", MAX_COUNT, &nl) || line_done(r))
        return ES_ERR_FORMAT;
    if (!nl) {
        rerr(r, "a model needs at least one label");
        return ES_ERR_FORMAT;
    }
    if (!(m->lab_name = calloc(nl, sizeof *m->lab_name)) || !(m->def = calloc(nl, sizeof *m->def)))
        return ES_ERR_NOMEM;
    m->n_lab = nl;
    for (uint32_t l = 0; l < nl; l++)
        if (expect_key(r, "label") || !(m->lab_name[l] = name_tok(r, "a label name")) ||
            line_done(r))
            return ES_ERR_FORMAT;
    if (expect_key(r, "default")) return ES_ERR_FORMAT;
    for (uint32_t l = 0; l < nl; l++)
        if (dbl_tok(r, "default score", &m->def[l])) return ES_ERR_FORMAT;
    if (line_done(r) || expect_key(r, "rules") || u32_tok(r, "rules", MAX_COUNT, &nr) ||
        line_done(r))
        return ES_ERR_FORMAT;
    if (nr && !(m->rule = calloc(nr, sizeof *m->rule))) return ES_ERR_NOMEM;
    m->cap_rules = nr;
    for (uint32_t k = 0; k < nr; k++) {
        ret = read_rule(r, m, &m->rule[k]);
        m->n_rules = k + 1; /* freed with the model, complete or not */
        if (ret) return ret;
    }
    if (m->loss == ES_RULES_LOSS_LOGISTIC_EXAMPLE_WISE) {
        uint32_t nv;
        if (expect_key(r, "labelvectors") || u32_tok(r, "label vectors", MAX_COUNT, &nv) ||
            line_done(r))
            return ES_ERR_FORMAT;
        if (!nv) {
            rerr(r, "an example-wise logistic model needs at least one label vector");
            return ES_ERR_FORMAT;
        }
        if (!(m->lv = malloc((size_t)nv * nl)) || !(m->lv_freq = malloc(nv * sizeof *m->lv_freq)))
            return ES_ERR_NOMEM;
        m->n_lv = nv;
        for (uint32_t k = 0; k < nv; k++) {
            if (expect_key(r, "lv") || u32_tok(r, "label vector frequency", MAX_COUNT, &m->lv_freq[k]))
                return ES_ERR_FORMAT;
            t = token(r);
            if (!t || strlen(t) != nl || strspn(t, "01") != nl || !m->lv_freq[k]) {
                rerr(r, "expected a frequency >= 1 and %u digits 0/1 (a label vector), found '%.40s'",
                     nl, t ? t : "(end of line)");
                return ES_ERR_FORMAT;
            }
            for (uint32_t l = 0; l < nl; l++) m->lv[(size_t)k * nl + l] = (uint8_t)(t[l] - '0');
            if (line_done(r)) return ES_ERR_FORMAT;
        }
    }
    if (expect_key(r, "end") || u32_tok(r, "end", MAX_COUNT, &ne) || line_done(r))
        return ES_ERR_FORMAT;
    if (ne != nr) {
        rerr(r, "'end %u' after %u rules", ne, nr);
        return ES_ERR_FORMAT;
    }
    while (next_line(r)) {
        if (token(r)) {
            rerr(r, "text after the 'end' line: '%.40s'", r->line);
            return ES_ERR_FORMAT;
        }
    }
    return ES_OK;
}

int es_rules_model_read(const char *path, es_rules_model_t *m)
{
    char *text = NULL;
    size_t len = 0;
    int ret;
    memset(m, 0, sizeof *m);
    if ((ret = es_text_read(path, "rules model", &text, &len))) return ret;
    mrd_t r = {path, text, text + len, NULL, 0, NULL};
    ret = read_body(&r, m);
    if (ret == ES_ERR_NOMEM)
        es_log(ES_LOG_ERROR, "es_rules_model_read", "%s: out of memory", path);
    if (ret) es_rules_model_free(m);
    free(text);
    return ret;
}
