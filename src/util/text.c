/* text.c -- whole text files read into one buffer (the .bim/.fam, phenotype
 * and list readers split them in place) and a hash index from string keys to
 * item numbers, so matching IDs costs O(items + lookups). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* ---- text files ------------------------------------------------------------ */

int es_text_read(const char *path, const char *what, char **text, size_t *len)
{
    int ret = ES_OK, fd = -1;
    char *buf = NULL;
    size_t cap, n = 0;
    struct stat st;
    /* messages keep the tag they had before the .bim/.fam reader shared this */
    const char *fn = what ? __func__ : "read_text";

    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        es_log(ES_LOG_ERROR, fn, "%s: cannot open%s%s: %s", path, what ? " " : "", what ? what : "",
               strerror(errno));
        ret = ES_ERR_IO;
        goto out;
    }
    if (fstat(fd, &st) != 0) {
        es_log(ES_LOG_ERROR, fn, "%s: cannot stat: %s", path, strerror(errno));
        ret = ES_ERR_IO;
        goto out;
    }
    if (S_ISDIR(st.st_mode)) {
        es_log(ES_LOG_ERROR, fn, "%s: is a directory, expected a %s", path,
               what ? what : "text file");
        ret = ES_ERR_IO;
        goto out;
    }
    /* +2: room for the NUL and for the read() that returns 0 without a realloc;
     * pipes and other non-regular files grow the buffer as needed */
    cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 2 : 65536;
    if (!(buf = malloc(cap))) {
        ret = ES_ERR_NOMEM;
        goto out;
    }
    for (;;) {
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                ret = ES_ERR_NOMEM;
                goto out;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0) {
            if (errno == EINTR) continue;
            es_log(ES_LOG_ERROR, fn, "%s: read failed: %s", path, strerror(errno));
            ret = ES_ERR_IO;
            goto out;
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    buf[n] = '\0';
    /* A NUL inside would silently cut a field short: the file is not text. */
    const char *nul = memchr(buf, '\0', n);
    if (nul) {
        es_log(ES_LOG_ERROR, fn, "%s: NUL byte at offset %zu: expected a %s%s", path,
               (size_t)(nul - buf), what ? what : "text file", what ? " (text)" : "");
        ret = ES_ERR_FORMAT;
        goto out;
    }
    *text = buf;
    *len = n;
    buf = NULL;
out:
    if (ret == ES_ERR_NOMEM && what)
        es_log(ES_LOG_ERROR, fn, "%s: out of memory reading the %s", path, what);
    free(buf);
    if (fd >= 0) close(fd);
    return ret;
}

/* ---- string index ------------------------------------------------------------ */

/* FNV-1a; the second key after a separator byte, so ("ab", "c") and
 * ("a", "bc") hash apart. */
static uint64_t key_hash(const char *k, const char *k2)
{
    const uint64_t prime = 1099511628211ULL;
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *s = (const unsigned char *)k; *s; s++) h = (h ^ *s) * prime;
    if (k2) {
        h = (h ^ 0x1f) * prime;
        for (const unsigned char *s = (const unsigned char *)k2; *s; s++) h = (h ^ *s) * prime;
    }
    /* fold the high bits in: the table index uses the low ones */
    return h ^ (h >> 29);
}

static int key_equal(const es_strindex_t *ix, uint32_t i, const char *k, const char *k2)
{
    return strcmp(ix->key[i], k) == 0 && (!ix->key2 || strcmp(ix->key2[i], k2) == 0);
}

int es_strindex_build(es_strindex_t *ix, const char *const *key, const char *const *key2,
                      uint32_t n)
{
    size_t cap = 16;
    while (cap < (size_t)n * 2) cap <<= 1; /* load <= 1/2: short linear probes */
    memset(ix, 0, sizeof *ix);
    ix->key = key;
    ix->key2 = key2;
    ix->mask = cap - 1;
    ix->tab = calloc(cap, sizeof *ix->tab);
    ix->next = malloc((n ? n : 1) * sizeof *ix->next);
    if (!ix->tab || !ix->next) {
        es_strindex_free(ix);
        return ES_ERR_NOMEM;
    }
    /* Insert in reverse so that each chain runs in item order from its head. */
    for (uint32_t i = n; i-- > 0;) {
        uint64_t hk = key_hash(key[i], key2 ? key2[i] : NULL), tag = hk >> 32 << 32;
        size_t h = (size_t)hk & ix->mask;
        ix->next[i] = ES_NO_ITEM;
        for (;;) {
            uint64_t t = ix->tab[h];
            if (t == 0) {
                ix->tab[h] = tag | (i + 1);
                break;
            }
            uint32_t j = (uint32_t)t - 1;
            if ((t >> 32 << 32) == tag && key_equal(ix, j, key[i], key2 ? key2[i] : NULL)) {
                ix->next[i] = j;
                ix->tab[h] = tag | (i + 1);
                break;
            }
            h = (h + 1) & ix->mask;
        }
    }
    return ES_OK;
}

uint32_t es_strindex_find(const es_strindex_t *ix, const char *k, const char *k2)
{
    uint64_t hk = key_hash(k, ix->key2 ? k2 : NULL), tag = hk >> 32 << 32;
    size_t h = (size_t)hk & ix->mask;
    for (;;) {
        uint64_t t = ix->tab[h];
        if (t == 0) return ES_NO_ITEM;
        if ((t >> 32 << 32) == tag && key_equal(ix, (uint32_t)t - 1, k, k2)) return (uint32_t)t - 1;
        h = (h + 1) & ix->mask;
    }
}

void es_strindex_free(es_strindex_t *ix)
{
    if (!ix) return;
    free(ix->tab);
    free(ix->next);
    ix->tab = NULL;
    ix->next = NULL;
}

/* the number of blank-separated fields of [ls, le) */
static int count_fields(const char *ls, const char *le)
{
    int nf = 0;
    for (const char *c = ls; c < le; c++)
        if (!es_is_blank(*c) && (c == ls || es_is_blank(c[-1]))) nf++;
    return nf;
}

int es_split_fields_alloc(char *ls, char *le, char ***f, int *nf)
{
    *f = NULL;
    *nf = count_fields(ls, le);
    if (*nf == 0) return ES_OK;
    if (!(*f = malloc((size_t)*nf * sizeof **f))) return ES_ERR_NOMEM;
    es_split_fields(ls, le, *f, *nf);
    return ES_OK;
}
