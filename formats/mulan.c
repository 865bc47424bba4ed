/* mulan.c -- the label file of a Mulan multi-label dataset: an XML document
 * whose <label name="..."> elements (nested for hierarchies) name the ARFF
 * attributes that are labels.  Only what Mulan writes is read: elements,
 * attributes in single or double quotes, comments, the XML declaration and
 * the five predefined entities plus character references; no DTDs. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

#define merror(...) es_log(ES_LOG_ERROR, "es_mulan_labels_read", __VA_ARGS__)

/* The line of p in text. */
static uint64_t line_of(const char *text, const char *p)
{
    uint64_t ln = 1;
    for (const char *q = text; q < p; q++) ln += *q == '\n';
    return ln;
}

/* Append the UTF-8 encoding of code point u to *d.  @return 0, -1 if invalid */
static int put_utf8(char **d, unsigned long u)
{
    char *o = *d;
    if (u == 0 || u > 0x10FFFF || (u >= 0xD800 && u <= 0xDFFF)) return -1;
    if (u < 0x80) *o++ = (char)u;
    else if (u < 0x800) {
        *o++ = (char)(0xC0 | (u >> 6));
        *o++ = (char)(0x80 | (u & 0x3F));
    } else if (u < 0x10000) {
        *o++ = (char)(0xE0 | (u >> 12));
        *o++ = (char)(0x80 | ((u >> 6) & 0x3F));
        *o++ = (char)(0x80 | (u & 0x3F));
    } else {
        *o++ = (char)(0xF0 | (u >> 18));
        *o++ = (char)(0x80 | ((u >> 12) & 0x3F));
        *o++ = (char)(0x80 | ((u >> 6) & 0x3F));
        *o++ = (char)(0x80 | (u & 0x3F));
    }
    *d = o;
    return 0;
}

/* Decode the attribute value [s, e) (entities, character references) into a
 * new string.  @return it, or NULL with *bad set (a bad reference) or not
 * (out of memory) */
static char *decode(const char *s, const char *e, int *bad)
{
    static const struct {
        const char *name;
        char c;
    } ent[] = {{"amp;", '&'}, {"lt;", '<'}, {"gt;", '>'}, {"quot;", '"'}, {"apos;", '\''}};
    char *out = malloc((size_t)(e - s) + 1), *d = out;
    *bad = 0;
    if (!out) return NULL;
    while (s < e) {
        if (*s != '&') {
            *d++ = *s++;
            continue;
        }
        s++;
        size_t k, n = 0;
        for (k = 0; k < sizeof ent / sizeof *ent; k++) {
            n = strlen(ent[k].name);
            if ((size_t)(e - s) >= n && !memcmp(s, ent[k].name, n)) break;
        }
        if (k < sizeof ent / sizeof *ent) {
            *d++ = ent[k].c;
            s += n;
            continue;
        }
        if (s < e && *s == '#') {
            int hex = s + 1 < e && (s[1] == 'x' || s[1] == 'X');
            const char *q = s + 1 + hex;
            unsigned long u = 0;
            int digits = 0;
            for (; q < e && *q != ';' && digits < 8; q++, digits++) {
                int v = *q >= '0' && *q <= '9' ? *q - '0'
                        : hex && (*q | 32) >= 'a' && (*q | 32) <= 'f' ? (*q | 32) - 'a' + 10
                                                                      : -1;
                if (v < 0) break;
                u = u * (hex ? 16u : 10u) + (unsigned long)v;
            }
            if (digits && q < e && *q == ';' && !put_utf8(&d, u)) {
                s = q + 1;
                continue;
            }
        }
        *bad = 1;
        free(out);
        return NULL;
    }
    *d = '\0';
    return out;
}

int es_mulan_labels_read(const char *path, char ***names_out, uint32_t *n_out)
{
    char *text = NULL, **names = NULL;
    size_t len = 0;
    uint32_t n = 0, cap = 0;
    int ret, in_labels = 0, seen_labels = 0;
    *names_out = NULL;
    *n_out = 0;
    if ((ret = es_text_read(path, "Mulan label file", &text, &len))) return ret;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *lt = memchr(p, '<', (size_t)(end - p));
        if (!lt) break;
        p = lt + 1;
        if (end - p >= 3 && !memcmp(p, "!--", 3)) { /* comment */
            const char *c = p + 3, *q = NULL;
            for (; c + 3 <= end; c++)
                if (!memcmp(c, "-->", 3)) {
                    q = c;
                    break;
                }
            if (!q) {
                merror("%s: line %" PRIu64 ": comment not closed by '-->'", path,
                       line_of(text, lt));
                ret = ES_ERR_FORMAT;
                goto out;
            }
            p = q + 3;
            continue;
        }
        const char *gt = p;
        char quote = 0;
        for (; gt < end && (quote || *gt != '>'); gt++)
            if (quote && *gt == quote) quote = 0;
            else if (!quote && (*gt == '"' || *gt == '\'')) quote = *gt;
        if (gt >= end) {
            merror("%s: line %" PRIu64 ": markup '<%.20s' not closed by '>'", path,
                   line_of(text, lt), p);
            ret = ES_ERR_FORMAT;
            goto out;
        }
        if (*p == '?' || *p == '!') { /* declaration, processing instruction */
            p = gt + 1;
            continue;
        }
        int closing = *p == '/';
        const char *nm = p + closing, *ne = nm;
        while (ne < gt && *ne != ' ' && *ne != '\t' && *ne != '\n' && *ne != '\r' && *ne != '/')
            ne++;
        size_t nl = (size_t)(ne - nm);
        if (nl == 6 && !memcmp(nm, "labels", 6)) {
            if (closing) in_labels = 0;
            else {
                in_labels = gt[-1] != '/';
                seen_labels = 1;
            }
        } else if (nl == 5 && !memcmp(nm, "label", 5) && !closing) {
            if (!in_labels) {
                merror("%s: line %" PRIu64 ": <label> outside the <labels> element", path,
                       line_of(text, lt));
                ret = ES_ERR_FORMAT;
                goto out;
            }
            /* the name="..." attribute */
            const char *a = ne, *vs = NULL, *ve = NULL;
            while (a < gt) {
                while (a < gt && (*a == ' ' || *a == '\t' || *a == '\n' || *a == '\r')) a++;
                const char *an = a;
                while (a < gt && *a != '=' && *a != ' ' && *a != '/') a++;
                size_t al = (size_t)(a - an);
                while (a < gt && *a == ' ') a++;
                if (a >= gt || *a != '=') break;
                a++;
                while (a < gt && *a == ' ') a++;
                if (a >= gt || (*a != '"' && *a != '\'')) break;
                char q = *a++;
                const char *s = a;
                while (a < gt && *a != q) a++;
                if (a >= gt) break;
                if (al == 4 && !memcmp(an, "name", 4)) {
                    vs = s;
                    ve = a;
                }
                a++;
            }
            if (!vs || ve == vs) {
                merror("%s: line %" PRIu64 ": <label> without a name=\"...\" attribute", path,
                       line_of(text, lt));
                ret = ES_ERR_FORMAT;
                goto out;
            }
            int bad;
            char *name = decode(vs, ve, &bad);
            if (!name) {
                if (bad)
                    merror("%s: line %" PRIu64 ": label name '%.*s': unknown entity or bad "
                           "character reference", path, line_of(text, lt),
                           (int)(ve - vs < 60 ? ve - vs : 60), vs);
                ret = bad ? ES_ERR_FORMAT : ES_ERR_NOMEM;
                goto out;
            }
            for (uint32_t k = 0; k < n; k++)
                if (!strcmp(names[k], name)) {
                    merror("%s: line %" PRIu64 ": label '%s' is named twice", path,
                           line_of(text, lt), name);
                    free(name);
                    ret = ES_ERR_FORMAT;
                    goto out;
                }
            if (n == cap) {
                uint32_t nc = cap ? 2 * cap : 16;
                char **t = realloc(names, nc * sizeof *t);
                if (!t) {
                    free(name);
                    ret = ES_ERR_NOMEM;
                    goto out;
                }
                names = t;
                cap = nc;
            }
            names[n++] = name;
        }
        p = gt + 1;
    }
    if (!seen_labels) {
        merror("%s: no <labels> element: not a Mulan label file", path);
        ret = ES_ERR_FORMAT;
    } else if (in_labels) {
        merror("%s: the <labels> element is not closed by </labels> (truncated?)", path);
        ret = ES_ERR_FORMAT;
    } else if (!n) {
        merror("%s: no <label name=\"...\"> element inside <labels>", path);
        ret = ES_ERR_FORMAT;
    }
out:
    if (ret == ES_ERR_NOMEM) merror("%s: out of memory", path);
    if (ret) {
        for (uint32_t k = 0; k < n; k++) free(names[k]);
        free(names);
    } else {
        *names_out = names;
        *n_out = n;
    }
    free(text);
    return ret;
}
