/* test_table.c -- the table reader (formats/table.c): CSV/TSV with quoting,
 * missing values, integer-coded and binned columns (bin edges exact), text
 * columns, class by name/number/default; ARFF with nominal, string and
 * sparse rows; LIBSVM; format sniffing; records across read-chunk
 * boundaries; and every malformed-input class with its exact return code and
 * a message naming the file, line and column. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "select.h"
#include "testutil.h"

/* es_table_read with a chosen read size (formats/table.c) */
int es_table_read_chunk(const char *path, const es_table_opt_t *opt, es_dtable_t *out,
                        size_t chunk);

typedef struct {
    tu_fixture_t base; /* first: temp dir + stderr capture (tu_fixture_new) */
    char path[4200];
} fx_t;

static int setup(void **state)
{
    fx_t *fx = tu_fixture_new(sizeof *fx);
    if (!fx) return -1;
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    tu_fixture_free(*state);
    return 0;
}

/* Write text to DIR/name; the path is left in fx->path. */
static const char *put(fx_t *fx, const char *name, const char *text)
{
    snprintf(fx->path, sizeof fx->path, "%s/%s", fx->base.dir, name);
    assert_int_equal(tu_write_text(fx->path, text), 0);
    return fx->path;
}

static void read_ok(fx_t *fx, const char *name, const char *text, const char *cls, uint32_t bins,
                    es_dtable_t *d)
{
    es_table_opt_t o = {cls, bins, NULL, NULL};
    put(fx, name, text);
    assert_int_equal(es_table_read(fx->path, &o, d), ES_OK);
}

/* The table must fail with `want` and a message holding every fragment of
 * ap (the file name is always checked); out must come back empty. */
static void read_fail_v(fx_t *fx, const char *name, const char *text, const es_table_opt_t *o,
                        int want, va_list ap)
{
    es_dtable_t d;
    if (text) put(fx, name, text);
    else snprintf(fx->path, sizeof fx->path, "%s/%s", fx->base.dir, name);
    memset(&d, 0xab, sizeof d);
    tu_cap_start(&fx->base.cap);
    int rc = es_table_read(fx->path, o, &d);
    const char *msg = tu_cap_stop(&fx->base.cap);
    assert_int_equal(rc, want);
    assert_null(d.x);
    assert_null(d.y);
    assert_null(d.names);
    assert_int_equal(d.n_features, 0);
    assert_non_null(strstr(msg, "[E::"));
    assert_non_null(strstr(msg, name));
    tu_expect_msg_va(msg, ap);
}

static void read_fail(fx_t *fx, const char *name, const char *text, const char *cls,
                      uint32_t bins, int want, ...)
{
    es_table_opt_t o = {cls, bins, NULL, NULL};
    va_list ap;
    va_start(ap, want);
    read_fail_v(fx, name, text, &o, want, ap);
    va_end(ap);
}

/* --features / --exclude-cols: a table read with them (@return what it
 * logged), or a failure (ES_ERR_ARG) */
static const char *cols_ok(fx_t *fx, const char *name, const char *text, const char *cls,
                           const char *features, const char *exclude, es_dtable_t *d)
{
    es_table_opt_t o = {cls, 128, features, exclude};
    put(fx, name, text);
    tu_cap_start(&fx->base.cap);
    int rc = es_table_read(fx->path, &o, d);
    const char *msg = tu_cap_stop(&fx->base.cap);
    if (rc != ES_OK) fail_msg("%s: %s", name, msg);
    return msg;
}

static void cols_fail(fx_t *fx, const char *name, const char *text, const char *cls,
                      const char *features, const char *exclude, ...)
{
    es_table_opt_t o = {cls, 128, features, exclude};
    va_list ap;
    va_start(ap, exclude);
    read_fail_v(fx, name, text, &o, ES_ERR_ARG, ap);
    va_end(ap);
}

/* feature f's states as a short array */
static void expect_col(const es_dtable_t *d, uint32_t f, uint32_t n_states, const uint16_t *want)
{
    assert_true(f < d->n_features);
    assert_int_equal(d->n_states[f], n_states);
    for (uint32_t s = 0; s < d->n_samples; s++) {
        if (d->x[(size_t)f * d->n_samples + s] != want[s])
            fail_msg("feature %u (%s) sample %u: state %u, expected %u", f, d->names[f], s,
                     d->x[(size_t)f * d->n_samples + s], want[s]);
    }
}

static void expect_y(const es_dtable_t *d, uint32_t n_classes, const uint16_t *want)
{
    assert_int_equal(d->n_classes, n_classes);
    for (uint32_t s = 0; s < d->n_samples; s++) assert_int_equal(d->y[s], want[s]);
}

/* ---- CSV / TSV -------------------------------------------------------------- */

static void test_csv_kinds(void **state)
{
    fx_t *fx = *state;
    es_dtable_t d;
    /* int: integers with a missing value; num: binned; txt: text with quotes
     * and a doubled quote; cls: last column by default, text sorted */
    read_ok(fx, "k.csv",
            "int,num,\"the txt\",cls\n"
            "3,0.5,\"b, \"\"q\"\"\",yes\n"
            "-2,NA,a,no\n"
            "3,2.5,,yes\n"
            "?,1.5,\"b, \"\"q\"\"\",no\n"
            "100,nan,c,no\n",
            NULL, 4, &d);
    assert_int_equal(d.n_samples, 5);
    assert_int_equal(d.n_features, 3);
    assert_string_equal(d.names[0], "int");
    assert_string_equal(d.names[1], "num");
    assert_string_equal(d.names[2], "the txt");
    assert_string_equal(d.class_name, "cls");
    /* int: distinct -2 < 3 < 100 -> 0,1,2; missing -> 3 */
    expect_col(&d, 0, 4, (const uint16_t[]){1, 0, 1, 3, 2});
    /* num: [0.5, 2.5] in 4 bins of 0.5: 0.5 -> 0, 1.5 -> 2, 2.5 (max) -> 3; missing -> 4 */
    expect_col(&d, 1, 5, (const uint16_t[]){0, 4, 3, 2, 4});
    /* text sorted by bytes: 'a' < 'b, "q"' < 'c'; empty is missing -> 3 */
    expect_col(&d, 2, 4, (const uint16_t[]){1, 0, 3, 1, 2});
    expect_y(&d, 2, (const uint16_t[]){1, 0, 1, 0, 0});
    es_dtable_free(&d);
}

static void test_csv_bin_edges(void **state)
{
    fx_t *fx = *state;
    es_dtable_t d;
    /* [0, 10] in 5 bins of width 2: edges belong to the upper bin, 10 to the last;
     * const: one state (+ missing); c2: a constant with a missing value */
    read_ok(fx, "b.csv",
            "x,const,c2,y\n"
            "0,1.5,0.25,1\n"
            "0.5,1.5,?,1\n"
            "2,1.5,0.25,1\n"
            "3.999,1.5,0.25,2\n"
            "4,1.5,0.25,2\n"
            "6,1.5,0.25,2\n"
            "7.5,1.5,0.25,2\n"
            "10,1.5,0.25,2\n",
            NULL, 5, &d);
    expect_col(&d, 0, 5, (const uint16_t[]){0, 0, 1, 1, 2, 3, 3, 4});
    expect_col(&d, 1, 1, (const uint16_t[]){0, 0, 0, 0, 0, 0, 0, 0});
    expect_col(&d, 2, 2, (const uint16_t[]){0, 1, 0, 0, 0, 0, 0, 0});
    expect_y(&d, 2, (const uint16_t[]){0, 0, 0, 1, 1, 1, 1, 1});
    es_dtable_free(&d);
    /* the default 128 bins: 1/128 steps of [0, 1] land exactly on their bin */
    char *t = malloc(20000);
    assert_non_null(t);
    size_t n = (size_t)sprintf(t, "v,c\n");
    for (int k = 0; k <= 128; k++) n += (size_t)sprintf(t + n, "%.10g,%d\n", k / 128.0, k & 1);
    read_ok(fx, "b128.csv", t, NULL, 128, &d);
    assert_int_equal(d.n_states[0], 128);
    for (int k = 0; k <= 128; k++) assert_int_equal(d.x[k], k < 128 ? k : 127);
    es_dtable_free(&d);
    free(t);
}

static void test_csv_integers(void **state)
{
    fx_t *fx = *state;
    es_dtable_t d;
    /* wide: integers over a range above the lookup table (sorted path);
     * big: an integer beyond 2^24 is not exact in a float -> binned;
     * dec: 1.0 and 2.00 are integers written as decimals -> integer-coded */
    read_ok(fx, "i.csv",
            "wide,big,dec,c\n"
            "-3000000,1,1.0,a\n"
            "5000000,20000000,2.00,b\n"
            "16777216,1,1e0,a\n"
            "5000000,2,2,b\n",
            NULL, 4, &d);
    expect_col(&d, 0, 3, (const uint16_t[]){0, 1, 2, 1});
    expect_col(&d, 1, 4, (const uint16_t[]){0, 3, 0, 0});
    expect_col(&d, 2, 2, (const uint16_t[]){0, 1, 0, 1});
    es_dtable_free(&d);

    /* more than 65,535 distinct integers: binned */
    uint32_t rows = 70000;
    char *t = malloc((size_t)rows * 16 + 16);
    assert_non_null(t);
    size_t n = (size_t)sprintf(t, "id;c\n");
    for (uint32_t r = 0; r < rows; r++) n += (size_t)sprintf(t + n, "%u;%u\n", r, r % 3);
    read_ok(fx, "many.csv", t, NULL, 7, &d);
    assert_int_equal(d.n_samples, rows);
    assert_int_equal(d.n_states[0], 7);
    assert_int_equal(d.x[0], 0);
    assert_int_equal(d.x[rows - 1], 6);
    assert_int_equal(d.x[rows / 2], (uint16_t)((double)(rows / 2) * 7 / (rows - 1)));
    assert_int_equal(d.n_classes, 3);
    es_dtable_free(&d);
    /* exactly 65,535 distinct integers: still integer-coded (+ missing = 65,536 states) */
    rows = 65536;
    n = (size_t)sprintf(t, "id,c\n");
    for (uint32_t r = 0; r < rows; r++)
        n += (size_t)(r ? sprintf(t + n, "%u,0\n", 1000 + r - 1) : sprintf(t + n, "NA,1\n"));
    read_ok(fx, "max.csv", t, NULL, 7, &d);
    assert_int_equal(d.n_states[0], 65536);
    assert_int_equal(d.x[0], 65535);
    assert_int_equal(d.x[1], 0);
    assert_int_equal(d.x[rows - 1], 65534);
    es_dtable_free(&d);
    free(t);
}

static void test_csv_dialects(void **state)
{
    fx_t *fx = *state;
    es_dtable_t d;
    const uint16_t a[] = {0, 1, 0}, y[] = {1, 0, 1};
    /* tab-separated, CRLF, blank lines, spaces around fields, no final newline */
    read_ok(fx, "t.tsv", "a\t b \tc\r\n1\t x \tp\r\n\r\n2\ty\tn\r\n  \n1\tx\tp", NULL, 128, &d);
    assert_string_equal(d.names[1], "b");
    expect_col(&d, 0, 2, a);
    expect_col(&d, 1, 2, a);
    expect_y(&d, 2, y);
    es_dtable_free(&d);
    /* a UTF-8 byte-order mark (spreadsheet exports) is not part of the first name */
    read_ok(fx, "bom.csv", "\xEF\xBB\xBF" "a,b,c\r\n1,x,p\r\n2,y,n\r\n1,x,p\r\n", "a", 128, &d);
    assert_string_equal(d.class_name, "a");
    assert_string_equal(d.names[0], "b");
    es_dtable_free(&d);
    put(fx, "bom_arff", "\xEF\xBB\xBF" "@relation r\n@attribute a numeric\n@attribute c {p,q}\n"
                        "@data\n1,p\n2,q\n");
    assert_int_equal(es_table_read(fx->path, NULL, &d), ES_OK);
    assert_string_equal(d.class_name, "c");
    es_dtable_free(&d);
    /* semicolons, commas inside values; .txt is delimited too */
    read_ok(fx, "s.txt", "a;b;c\n1;x,1;p\n2;y,2;n\n1;x,1;p\n", NULL, 128, &d);
    expect_col(&d, 1, 2, a);
    es_dtable_free(&d);
    /* a column whose first value is not a number is text; numbers in it are warned about */
    put(fx, "typo.csv", "a,b,c\n1,2.5.1,p\n2,2.5,n\n1,3,p\n");
    tu_cap_start(&fx->base.cap);
    assert_int_equal(es_table_read(fx->path, NULL, &d), ES_OK);
    const char *msg = tu_cap_stop(&fx->base.cap);
    assert_non_null(strstr(msg, "[W::"));
    assert_non_null(strstr(msg, "typo.csv: column 2 ('b') is coded as text"));
    assert_non_null(strstr(msg, "on line 2, is not a number, but 2 of its 3 values are numbers"));
    /* text sorted by bytes: "2.5" < "2.5.1" < "3" */
    expect_col(&d, 1, 3, (const uint16_t[]){1, 0, 2});
    es_dtable_free(&d);
    /* an unnamed first column (row names) is named col1 */
    read_ok(fx, "r.csv", ",b,c\n1,x,p\n2,y,n\n1,x,p\n", NULL, 128, &d);
    assert_string_equal(d.names[0], "col1");
    es_dtable_free(&d);
    /* a quoted field running over two lines, and a quoted header name with a comma */
    read_ok(fx, "m.csv", "\"a,1\",b,c\n\"x\ny\",1,p\nz,2,n\n\"x\ny\",1,p\n", NULL, 128, &d);
    assert_string_equal(d.names[0], "a,1");
    expect_col(&d, 0, 2, a);
    es_dtable_free(&d);
}

static void test_csv_class(void **state)
{
    fx_t *fx = *state;
    es_dtable_t d;
    const char *t = "id,grade,f,g\n1,10,a,0\n2,9,b,0\n3,2,a,1\n4,10.0,b,1\n";
    /* by name: numeric class sorted by value, 10 and 10.0 one class */
    read_ok(fx, "c.csv", t, "grade", 128, &d);
    assert_string_equal(d.class_name, "grade");
    assert_int_equal(d.n_features, 3);
    assert_string_equal(d.names[0], "id");
    assert_string_equal(d.names[1], "f");
    expect_y(&d, 3, (const uint16_t[]){2, 1, 0, 2});
    es_dtable_free(&d);
    /* by number */
    read_ok(fx, "c.csv", t, "3", 128, &d);
    assert_string_equal(d.class_name, "f");
    expect_y(&d, 2, (const uint16_t[]){0, 1, 0, 1});
    es_dtable_free(&d);
    /* the default: the last column */
    read_ok(fx, "c.csv", t, NULL, 128, &d);
    assert_string_equal(d.class_name, "g");
    expect_y(&d, 2, (const uint16_t[]){0, 0, 1, 1});
    es_dtable_free(&d);
    /* a name that looks like a number wins over the number */
    read_ok(fx, "n.csv", "1,2,3\n5,a,0\n6,b,1\n", "1", 128, &d);
    assert_string_equal(d.class_name, "1");
    expect_y(&d, 2, (const uint16_t[]){0, 1});
    es_dtable_free(&d);
    /* text classes sort by bytes; a class may be any text */
    read_ok(fx, "s.csv", "f,c\n1,b\n2,B\n3,a b\n", NULL, 128, &d);
    expect_y(&d, 3, (const uint16_t[]){2, 0, 1});
    es_dtable_free(&d);
}

/* --features and --exclude-cols: which columns are features, by name or
 * number, in file order; the class and malformed lists are errors naming
 * the option and the column. */
static void test_feature_columns(void **state)
{
    fx_t *fx = *state;
    es_dtable_t d;
    /* a multi-label file: the other label must not become a feature */
    const char *t = "id,x,y,note,l1,l2\n"
                    "1,0,1,a,yes,no\n"
                    "2,1,1,2,no,no\n"
                    "3,0,0,3,yes,yes\n"
                    "4,1,0,4,no,yes\n";
    const char *msg = cols_ok(fx, "m.csv", t, "l1", NULL, "id,l2", &d);
    assert_non_null(strstr(msg, "column 4 ('note') is coded as text"));
    assert_int_equal(d.n_features, 3);
    assert_string_equal(d.names[0], "x");
    assert_string_equal(d.names[1], "y");
    assert_string_equal(d.names[2], "note");
    assert_string_equal(d.class_name, "l1");
    expect_col(&d, 0, 2, (const uint16_t[]){0, 1, 0, 1});
    expect_col(&d, 1, 2, (const uint16_t[]){1, 1, 0, 0});
    expect_y(&d, 2, (const uint16_t[]){1, 0, 1, 0});
    es_dtable_free(&d);
    /* --features in any order, names and numbers: file order in the table;
     * the text column 'note' (mostly numbers) is left out, so not warned of */
    msg = cols_ok(fx, "m.csv", t, "l1", "y,2", NULL, &d);
    assert_int_equal(d.n_features, 2);
    assert_string_equal(d.names[0], "x");
    assert_string_equal(d.names[1], "y");
    assert_null(strstr(msg, "coded as text"));
    expect_col(&d, 1, 2, (const uint16_t[]){1, 1, 0, 0});
    es_dtable_free(&d);
    /* by number, with the default class (the last column) */
    cols_ok(fx, "m.csv", t, NULL, NULL, "1,4,5", &d);
    assert_int_equal(d.n_features, 2);
    assert_string_equal(d.names[1], "y");
    assert_string_equal(d.class_name, "l2");
    es_dtable_free(&d);
    /* LIBSVM features are f1..fD (column numbers 1..D); ARFF attributes by name */
    cols_ok(fx, "s.libsvm", "1 1:1 2:3 3:1\n0 2:1\n1 1:2 3:4\n", NULL, "f3,1", NULL, &d);
    assert_int_equal(d.n_features, 2);
    assert_string_equal(d.names[0], "f1");
    assert_string_equal(d.names[1], "f3");
    expect_col(&d, 1, 3, (const uint16_t[]){1, 0, 2});
    es_dtable_free(&d);
    cols_ok(fx, "a.arff",
            "@relation r\n@attribute a {x,y}\n@attribute b numeric\n@attribute c {p,q}\n"
            "@data\nx,1,p\ny,2,q\n",
            NULL, NULL, "a", &d);
    assert_int_equal(d.n_features, 1);
    assert_string_equal(d.names[0], "b");
    es_dtable_free(&d);

    cols_fail(fx, "m.csv", t, "l1", "x,zz", NULL,
              "--features: no column 'zz'; columns: id, x, y, note, l1, l2 (or a number 1..6)",
              END);
    cols_fail(fx, "m.csv", t, "l1", NULL, "9",
              "--exclude-cols: column 9 is out of range: the table has 6 columns", END);
    cols_fail(fx, "m.csv", t, "l1", "x,l1", NULL,
              "--features: column 5 ('l1') is the class; it cannot be a feature too", END);
    cols_fail(fx, "m.csv", t, NULL, NULL, "id,l2",
              "--exclude-cols: column 6 ('l2') is the class, which cannot be left out", END);
    cols_fail(fx, "m.csv", t, "l1", "x,2", NULL, "--features: column 2 ('x') is listed twice",
              END);
    cols_fail(fx, "m.csv", t, "l1", "x,,y", NULL, "--features: empty column name in 'x,,y'",
              END);
    cols_fail(fx, "m.csv", t, "l1", "x,", NULL, "--features: empty column name in 'x,'", END);
    cols_fail(fx, "m.csv", t, "l1", "", NULL, "--features: empty column name in ''", END);
    cols_fail(fx, "m.csv", t, "l1", NULL, "1,2,3,4,6", "--exclude-cols leaves no feature column",
              END);
    cols_fail(fx, "d.csv", "a,a,c\n1,2,x\n3,4,y\n", NULL, "a", NULL,
              "--features: the column name 'a' is used by columns 1 and 2; give its number", END);
    cols_fail(fx, "s.libsvm", "1 1:1 2:3\n0 2:1\n", NULL, NULL, "f9",
              "--exclude-cols: no column 'f9'; columns: f1, f2, label", END);
}

/* A random table with quoted, multi-line, missing and numeric fields read
 * with read sizes that cut records everywhere gives the same table. */
static void test_chunk_boundaries(void **state)
{
    fx_t *fx = *state;
    uint64_t seed = 42;
    size_t cap = 1 << 20, n = 0;
    char *t = malloc(cap);
    assert_non_null(t);
    n += (size_t)sprintf(t, "a,\"b\"\"\",c,d,cls\n");
    for (int r = 0; r < 400; r++) {
        uint32_t k = tu_randn(&seed, 10);
        n += (size_t)sprintf(t + n, "%u,", tu_randn(&seed, 7));
        n += (size_t)sprintf(t + n, k == 0 ? "," : "%.3f,", tu_randn(&seed, 10000) / 7.0);
        n += (size_t)sprintf(t + n, k == 1 ? "\"v\n%u\"," : k == 2 ? "\"v,\"\"%u\"\"\"," : "v%u,",
                             tu_randn(&seed, 5));
        n += (size_t)sprintf(t + n, k == 3 ? "NA," : "%d,", (int)tu_randn(&seed, 100) - 50);
        n += (size_t)sprintf(t + n, "%s\n", tu_randn(&seed, 2) ? "case" : "control");
    }
    put(fx, "chunks.csv", t);
    es_dtable_t ref, d;
    assert_int_equal(es_table_read(fx->path, NULL, &ref), ES_OK);
    assert_int_equal(ref.n_samples, 400);
    static const size_t sizes[] = {1, 7, 13, 64, 100, 1000, 4096};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        assert_int_equal(es_table_read_chunk(fx->path, NULL, &d, sizes[k]), ES_OK);
        assert_int_equal(d.n_samples, ref.n_samples);
        assert_int_equal(d.n_features, ref.n_features);
        assert_int_equal(d.n_classes, ref.n_classes);
        assert_memory_equal(d.n_states, ref.n_states, ref.n_features * sizeof *ref.n_states);
        assert_memory_equal(d.x, ref.x, (size_t)ref.n_features * ref.n_samples * 2);
        assert_memory_equal(d.y, ref.y, (size_t)ref.n_samples * 2);
        for (uint32_t f = 0; f < d.n_features; f++) assert_string_equal(d.names[f], ref.names[f]);
        es_dtable_free(&d);
    }
    assert_string_equal(ref.names[1], "b\"");
    es_dtable_free(&ref);
    free(t);
}

/* ---- ARFF ----------------------------------------------------------------------- */

static void test_arff(void **state)
{
    fx_t *fx = *state;
    es_dtable_t d;
    read_ok(fx, "w.arff",
            "% a comment\n"
            "@RELATION weather\n"
            "\n"
            "@attribute outlook {sunny, overcast, 'light rain'}\n"
            "@attribute 'temp C' numeric\n"
            "@attribute\thumidity\tinteger\n"
            "@attribute note string\n"
            "@attribute play {yes,no}\n"
            "@data\n"
            "sunny,30.5,85,'it\\'s hot',no\n"
            "'light rain',20,?,\"wet\",yes\n"
            "% a comment between rows\n"
            "overcast,?,70,wet,yes\n"
            "{0 sunny, 1 25.5, 4 no}\n"
            "{}\n",
            NULL, 4, &d);
    assert_int_equal(d.n_samples, 5);
    assert_int_equal(d.n_features, 4);
    assert_string_equal(d.names[1], "temp C");
    assert_string_equal(d.names[2], "humidity");
    assert_string_equal(d.class_name, "play");
    /* nominal: declared order; a sparse row leaves out the first declared value */
    expect_col(&d, 0, 3, (const uint16_t[]){0, 2, 1, 0, 0});
    /* numeric [0, 30.5] in 4 bins (left out = 0) */
    expect_col(&d, 1, 5, (const uint16_t[]){3, 2, 4, 3, 0});
    /* integer: 0 (left out), 70, 85; missing -> 3 */
    expect_col(&d, 2, 4, (const uint16_t[]){2, 3, 1, 0, 0});
    /* string: sorted, left out = "0": "0" < "it's hot" < "wet" */
    expect_col(&d, 3, 3, (const uint16_t[]){1, 2, 2, 0, 0});
    /* the class keeps its declared order: yes = 0, no = 1; left out = yes */
    expect_y(&d, 2, (const uint16_t[]){1, 0, 0, 1, 0});
    es_dtable_free(&d);
    /* class by name (a numeric class: distinct values sorted), no extension (sniffed) */
    read_ok(fx, "arff_noext",
            "@relation r\n@attribute a {x,y}\n@attribute score real\n@attribute b {p,q}\n"
            "@data\nx,3.5,p\ny,-1,q\nx,3.50,q\n",
            "score", 128, &d);
    assert_string_equal(d.class_name, "score");
    assert_string_equal(d.names[1], "b");
    expect_y(&d, 2, (const uint16_t[]){1, 0, 1});
    es_dtable_free(&d);
}

/* ---- LIBSVM ------------------------------------------------------------------- */

static void test_libsvm(void **state)
{
    fx_t *fx = *state;
    es_dtable_t d;
    read_ok(fx, "s.libsvm",
            "+1 1:0.5 3:2\n"
            "-1 2:1\n"
            "# a comment line\n"
            "+1\n"
            "-1 1:1 2:?  3:4 # trailing comment\n"
            "2 4:7\n",
            NULL, 4, &d);
    assert_int_equal(d.n_samples, 5);
    assert_int_equal(d.n_features, 4);
    assert_string_equal(d.names[0], "f1");
    assert_string_equal(d.names[3], "f4");
    assert_string_equal(d.class_name, "label");
    /* f1: 0.5 -> binned over [0, 1]; absent values are 0 */
    expect_col(&d, 0, 4, (const uint16_t[]){2, 0, 0, 3, 0});
    /* f2: integers 0, 1 and a missing value */
    expect_col(&d, 1, 3, (const uint16_t[]){0, 1, 0, 2, 0});
    expect_col(&d, 2, 3, (const uint16_t[]){1, 0, 0, 2, 0});
    expect_col(&d, 3, 2, (const uint16_t[]){0, 0, 0, 0, 1});
    /* labels by value: -1 < +1 < 2 */
    expect_y(&d, 3, (const uint16_t[]){1, 0, 1, 0, 2});
    es_dtable_free(&d);
    /* sniffed without an extension; same table through tiny read sizes */
    put(fx, "svm_noext", "1 1:1 2:3.5\n0 2:1\n1 1:2\n");
    es_dtable_t c;
    assert_int_equal(es_table_read(fx->path, NULL, &d), ES_OK);
    assert_int_equal(es_table_read_chunk(fx->path, NULL, &c, 5), ES_OK);
    assert_int_equal(d.n_features, 2);
    expect_col(&d, 0, 3, (const uint16_t[]){1, 0, 2});
    assert_memory_equal(c.x, d.x, 2 * 3 * 2);
    es_dtable_free(&c);
    es_dtable_free(&d);
}

/* ---- malformed input ----------------------------------------------------------- */

static void test_bad_csv(void **state)
{
    fx_t *fx = *state;
    read_fail(fx, "none.csv", NULL, NULL, 128, ES_ERR_IO, "cannot open", END);
    snprintf(fx->path, sizeof fx->path, "%s/dir.csv", fx->base.dir);
    assert_int_equal(mkdir(fx->path, 0700), 0);
    read_fail(fx, "dir.csv", NULL, NULL, 128, ES_ERR_IO, "is a directory", END);
    read_fail(fx, "empty.csv", "", NULL, 128, ES_ERR_FORMAT, "empty file", END);
    read_fail(fx, "blank.csv", "\n  \n", NULL, 128, ES_ERR_FORMAT, "empty file", END);
    read_fail(fx, "hdr.csv", "a,b\n\n", NULL, 128, ES_ERR_FORMAT, "no data rows", END);
    read_fail(fx, "one.csv", "abc\n1\n", NULL, 128, ES_ERR_FORMAT, "line 1", "one column", END);
    read_fail(fx, "short.csv", "a,b,c\n1,2,3\n1,2\n", NULL, 128, ES_ERR_FORMAT,
              "line 3: 2 fields, expected 3", "header (line 1)", END);
    read_fail(fx, "long.csv", "a,b,c\n1,2,3,4\n", NULL, 128, ES_ERR_FORMAT,
              "line 2: 4 fields, expected 3", END);
    read_fail(fx, "num.csv", "a,b,c\n1,2,x\n1,abc,y\n", NULL, 128, ES_ERR_FORMAT,
              "line 3, column 2 ('b'): expected a number, found 'abc'", "from line 2", END);
    read_fail(fx, "typo.csv", "a,b,c\n1,2.5,x\n1,2.5.1,y\n", NULL, 128, ES_ERR_FORMAT,
              "line 3, column 2 ('b')", "found '2.5.1'", END);
    read_fail(fx, "inf.csv", "a,b,c\n1,2,x\n1,inf,y\n", NULL, 128, ES_ERR_FORMAT,
              "line 3, column 2 ('b'): expected a number, found 'inf'", END);
    read_fail(fx, "hex.csv", "a,b,c\n1,2,x\n1,0x1A,y\n", NULL, 128, ES_ERR_FORMAT,
              "found '0x1A'", END);
    read_fail(fx, "huge.csv", "a,b,c\n1,2,x\n1,1e39,y\n", NULL, 128, ES_ERR_FORMAT,
              "line 3, column 2 ('b')", "single-precision", END);
    read_fail(fx, "mcls.csv", "a,b,cls\n1,2,x\n\n1,3,NA\n", NULL, 128, ES_ERR_FORMAT,
              "line 4, column 3 ('cls'): the class value is missing", END);
    read_fail(fx, "mcls2.csv", "a,b,cls\n1,2,\n", NULL, 128, ES_ERR_FORMAT,
              "line 2, column 3 ('cls')", "class value is missing", END);
    read_fail(fx, "quote.csv", "a,b,c\n1,2,x\n1,\"2,y\n", NULL, 128, ES_ERR_FORMAT,
              "line 3", "not closed", END);
    read_fail(fx, "after.csv", "a,b,c\n1,\"2\"x,y\n", NULL, 128, ES_ERR_FORMAT,
              "line 2, field 2", "after the closing quote", END);
    read_fail(fx, "hquote.csv", "a,\"b,c\n1,2,3\n", NULL, 128, ES_ERR_FORMAT, "line 1",
              "header", END);
    put(fx, "nul.csv", "a,b\n1,2\n");
    FILE *f = fopen(fx->path, "ab");
    assert_non_null(f);
    fputs("3,", f);
    fputc(0, f);
    fputs("\n", f);
    fclose(f);
    read_fail(fx, "nul.csv", NULL, NULL, 128, ES_ERR_FORMAT, "NUL byte at offset 10", END);
    /* the class column */
    read_fail(fx, "cname.csv", "a,b,c\n1,2,3\n", "zz", 128, ES_ERR_ARG,
              "no column 'zz' for the class", "columns: a, b, c", END);
    read_fail(fx, "cnum.csv", "a,b,c\n1,2,3\n", "4", 128, ES_ERR_ARG,
              "class column 4 is out of range", "3 columns", END);
    read_fail(fx, "cnum0.csv", "a,b,c\n1,2,3\n", "0", 128, ES_ERR_ARG, "out of range", END);
    read_fail(fx, "cdup.csv", "a,b,a\n1,2,3\n", "a", 128, ES_ERR_ARG,
              "used by columns 1 and 3", END);
    /* bins */
    read_fail(fx, "bins.csv", "a,b\n1,2\n", NULL, 1, ES_ERR_ARG, "bins", "[2, 65535]", END);
    read_fail(fx, "bins2.csv", "a,b\n1,2\n", NULL, 65536, ES_ERR_ARG, "bins", END);
    /* a text column of more than 65,535 distinct values */
    size_t cap = 70000 * 16, n = 0;
    char *t = malloc(cap);
    assert_non_null(t);
    n += (size_t)sprintf(t, "name,c\n");
    for (uint32_t r = 0; r < 70000; r++) n += (size_t)sprintf(t + n, "s%u,%u\n", r, r & 1);
    read_fail(fx, "ids.csv", t, NULL, 128, ES_ERR_FORMAT,
              "line 65537, column 1 ('name'): more than 65535 distinct values", END);
    free(t);
}

static void test_bad_arff(void **state)
{
    fx_t *fx = *state;
    const char *h = "@relation r\n@attribute a numeric\n@attribute n {x,y}\n@attribute c {p,q}\n";
    char t[1024];
    read_fail(fx, "e.arff", "", NULL, 128, ES_ERR_FORMAT, "empty file", END);
    read_fail(fx, "nodata.arff", "@relation r\n@attribute a numeric\n", NULL, 128, ES_ERR_FORMAT,
              "no @data", END);
    read_fail(fx, "junk.arff", "@relation r\nhello\n", NULL, 128, ES_ERR_FORMAT,
              "line 2: expected @relation, @attribute or @data, found 'hello'", END);
    read_fail(fx, "type.arff", "@relation r\n@attribute a numbr\n@data\n", NULL, 128,
              ES_ERR_FORMAT, "line 2", "unknown type 'numbr'", END);
    read_fail(fx, "rel.arff", "@relation r\n@attribute a relational\n@data\n", NULL, 128,
              ES_ERR_UNSUPPORTED, "line 2", "relational", END);
    read_fail(fx, "brace.arff", "@relation r\n@attribute a {x,y\n@data\n", NULL, 128,
              ES_ERR_FORMAT, "line 2", "not closed", END);
    read_fail(fx, "dupv.arff", "@relation r\n@attribute a {x,y,x}\n@data\n", NULL, 128,
              ES_ERR_FORMAT, "line 2", "'x' declared twice", END);
    read_fail(fx, "noname.arff", "@relation r\n@attribute\n@data\n", NULL, 128, ES_ERR_FORMAT,
              "line 2", "expected a name and a type", END);
    read_fail(fx, "onlyclass.arff", "@relation r\n@attribute c {p,q}\n@data\np\n", NULL, 128,
              ES_ERR_FORMAT, "one @attribute", END);
    read_fail(fx, "norows.arff", h, NULL, 128, ES_ERR_FORMAT, "no @data", END);
    snprintf(t, sizeof t, "%s@data\n%% c\n", h);
    read_fail(fx, "empty_data.arff", t, NULL, 128, ES_ERR_FORMAT, "no data rows", END);
    snprintf(t, sizeof t, "%s@data\n1,x,p\n1,z,q\n", h);
    read_fail(fx, "decl.arff", t, NULL, 128, ES_ERR_FORMAT,
              "line 7, column 2 ('n'): 'z' is not one of the 2 values declared", END);
    snprintf(t, sizeof t, "%s@data\n1,x,p\n1,x\n", h);
    read_fail(fx, "fields.arff", t, NULL, 128, ES_ERR_FORMAT,
              "line 7: 2 fields, expected 3 (one per @attribute)", END);
    snprintf(t, sizeof t, "%s@data\nabc,x,p\n", h);
    read_fail(fx, "num.arff", t, NULL, 128, ES_ERR_FORMAT,
              "line 6, column 1 ('a'): expected a number, found 'abc'", END);
    snprintf(t, sizeof t, "%s@data\n1,x,?\n", h);
    read_fail(fx, "cls.arff", t, NULL, 128, ES_ERR_FORMAT,
              "line 6, column 3 ('c'): the class value is missing", END);
    snprintf(t, sizeof t, "%s@data\n{0 1, 3 p}\n", h);
    read_fail(fx, "sidx.arff", t, NULL, 128, ES_ERR_FORMAT,
              "line 6: sparse row: index 3 is out of range (3 attributes", END);
    snprintf(t, sizeof t, "%s@data\n{0 1, 0 2}\n", h);
    read_fail(fx, "sdup.arff", t, NULL, 128, ES_ERR_FORMAT, "line 6", "index 0 given twice",
              END);
    snprintf(t, sizeof t, "%s@data\n{0 1, x 2}\n", h);
    read_fail(fx, "ssyn.arff", t, NULL, 128, ES_ERR_FORMAT, "line 6: sparse row", END);
    snprintf(t, sizeof t, "%s@data\n{0 1\n", h);
    read_fail(fx, "sbrace.arff", t, NULL, 128, ES_ERR_FORMAT, "line 6: sparse row", END);
    snprintf(t, sizeof t, "%s@data\n1,x,p\n", h);
    read_fail(fx, "acls.arff", t, "nope", 128, ES_ERR_ARG, "no column 'nope'", END);
    snprintf(t, sizeof t,
             "@relation r\n@attribute a numeric\n@attribute c numeric\n@data\n1,2\n1,two\n");
    read_fail(fx, "ncls.arff", t, NULL, 128, ES_ERR_FORMAT,
              "line 6, column 2 ('c'): expected a number, found 'two'", END);
}

static void test_bad_libsvm(void **state)
{
    fx_t *fx = *state;
    read_fail(fx, "e.libsvm", "", NULL, 128, ES_ERR_FORMAT, "empty file", END);
    read_fail(fx, "c.libsvm", "\n# only a comment\n", NULL, 128, ES_ERR_FORMAT, "no data lines",
              END);
    read_fail(fx, "tok.libsvm", "1 1:2\n0 qid:3 1:2\n", NULL, 128, ES_ERR_FORMAT,
              "line 2: expected INDEX:VALUE, found 'qid:3'", END);
    read_fail(fx, "zero.libsvm", "1 0:2\n", NULL, 128, ES_ERR_FORMAT,
              "line 1: feature index in '0:2' must be an integer in [1,", END);
    read_fail(fx, "order.libsvm", "1 1:2\n1 3:1 2:1\n", NULL, 128, ES_ERR_FORMAT,
              "line 2: feature indices must increase: 2 after 3", END);
    read_fail(fx, "dup.libsvm", "1 2:2 2:1\n", NULL, 128, ES_ERR_FORMAT,
              "line 1: feature indices must increase: 2 after 2", END);
    read_fail(fx, "val.libsvm", "1 1:2\n1 1:x\n", NULL, 128, ES_ERR_FORMAT,
              "line 2, feature 1: expected a number, found 'x'", END);
    read_fail(fx, "nolab.libsvm", "1 1:2\n1:3 2:1\n", NULL, 128, ES_ERR_FORMAT,
              "line 2: the class label is missing", END);
    read_fail(fx, "nofeat.libsvm", "1\n0\n", NULL, 128, ES_ERR_FORMAT, "no features", END);
    read_fail(fx, "cls.libsvm", "1 1:2\n", "1", 128, ES_ERR_ARG,
              "--class does not apply to a LIBSVM file", END);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_csv_kinds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_csv_bin_edges, setup, teardown),
        cmocka_unit_test_setup_teardown(test_csv_integers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_csv_dialects, setup, teardown),
        cmocka_unit_test_setup_teardown(test_csv_class, setup, teardown),
        cmocka_unit_test_setup_teardown(test_feature_columns, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chunk_boundaries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_arff, setup, teardown),
        cmocka_unit_test_setup_teardown(test_libsvm, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_csv, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_arff, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_libsvm, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
