/* test_pheno.c -- PLINK phenotype files (formats/pheno.c): header and
 * headerless files, FID IID and IID-only layouts, column selection by name
 * and number, value codes, IDs missing on either side or ambiguous, and
 * every error with its return code and a message naming the file, line and
 * column. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "select.h"
#include "testutil.h"

#define NS 6 /* samples FAM0/IND0 .. FAM5/IND5 in every fixture */

typedef struct {
    tu_fixture_t base; /* first: temp dir + stderr capture (tu_fixture_new) */
    char prefix[4096], pheno[4200], fam[4200];
    es_fileset_t *p;
    int8_t status[NS];
} fx_t;

static int setup(void **state)
{
    fx_t *fx = tu_fixture_new(sizeof *fx);
    if (!fx) return -1;
    *state = fx; /* teardown cleans up even when setup fails below */
    snprintf(fx->prefix, sizeof fx->prefix, "%s/d", fx->base.dir);
    snprintf(fx->fam, sizeof fx->fam, "%s.fam", fx->prefix);
    snprintf(fx->pheno, sizeof fx->pheno, "%s/my.pheno", fx->base.dir);
    uint8_t g[2 * NS] = {0, 1, 2, 3, 0, 1, 2, 2, 1, 0, 3, 1};
    int ph[NS] = {1, 2, 1, 2, 1, 2};
    if (tu_write_bfile(fx->prefix, g, 2, NS, ph) != 0) return -1;
    if (es_plink_open(&fx->p, fx->prefix) != ES_OK) return -1;
    return 0;
}

static int teardown(void **state)
{
    fx_t *fx = *state;
    tu_cap_stop(&fx->base.cap);
    es_fileset_close(fx->p);
    tu_fixture_free(fx);
    return 0;
}

/* Write `text` as the phenotype file, read column `name`, expect rc `want`
 * and each needle (NULL-terminated) in stderr. Returns the captured text. */
static const char *read_pheno(fx_t *fx, const char *text, const char *name, int want, ...)
{
    va_list ap;
    assert_int_equal(tu_write_text(fx->pheno, text), 0);
    memset(fx->status, 0x55, sizeof fx->status);
    tu_cap_start(&fx->base.cap);
    int rc = es_pheno_read(fx->pheno, name, fx->p, fx->status);
    const char *msg = tu_cap_stop(&fx->base.cap);
    assert_int_equal(rc, want);
    va_start(ap, want);
    tu_expect_msg_va(msg, ap);
    va_end(ap);
    return msg;
}

static void expect_status(const fx_t *fx, const int8_t want[NS])
{
    assert_memory_equal(fx->status, want, NS);
}

/* ---- reading ------------------------------------------------------------- */

static void test_header_by_name_and_number(void **state)
{
    fx_t *fx = *state;
    const char *file = "FID IID height T2D cad\n"
                       "FAM0 IND0 1.73 2 1\n"
                       "FAM1 IND1 1.80 1 NA\n"
                       "FAM2 IND2 1.61 -9 2\n"
                       "FAM3 IND3 1.75 0 2\n"
                       "FAM4 IND4 1.69 NA 1\n"
                       "FAM5 IND5 1.90 2 -9\n";
    const int8_t t2d[NS] = {1, 0, -1, -1, -1, 1};
    const int8_t cad[NS] = {0, -1, 1, 1, 0, -1};
    /* the quantitative first column is fine as long as it is not chosen */
    read_pheno(fx, file, "T2D", ES_OK, END);
    expect_status(fx, t2d);
    read_pheno(fx, file, "cad", ES_OK, END);
    expect_status(fx, cad);
    read_pheno(fx, file, "2", ES_OK, END);
    expect_status(fx, t2d);
    read_pheno(fx, file, "3", ES_OK, END);
    expect_status(fx, cad);
    /* NULL = first value column, which is quantitative here: an error */
    read_pheno(fx, file, NULL, ES_ERR_FORMAT, fx->pheno, "line 2", "column 3 (height)", "'1.73'",
               END);
}

static void test_no_header(void **state)
{
    fx_t *fx = *state;
    /* tabs, CRLF, rows out of .fam order, a blank line, no final newline */
    const char *file = "FAM5\tIND5\t2\t1\r\n"
                       "FAM0 IND0 1 1\r\n"
                       "\r\n"
                       "FAM3 IND3  2  2\r\n"
                       "FAM1 IND1 -9 2";
    const int8_t c1[NS] = {0, -1, -1, 1, -1, 1};
    const int8_t c2[NS] = {0, 1, -1, 1, -1, 0};
    const char *msg = read_pheno(fx, file, NULL, ES_OK, END);
    assert_int_equal(tu_count_lines(msg), 0); /* absent samples are not a warning */
    expect_status(fx, c1);
    read_pheno(fx, file, "2", ES_OK, END);
    expect_status(fx, c2);
    /* a name needs a header */
    read_pheno(fx, file, "T2D", ES_ERR_ARG, fx->pheno, "no header line", "'T2D'", "1..2", END);
}

/* A header is recognised case-insensitively, also as PLINK 2's #FID. */
static void test_header_variants(void **state)
{
    fx_t *fx = *state;
    const int8_t want[NS] = {1, 0, -1, -1, -1, -1};
    read_pheno(fx, "fid iid P\nFAM0 IND0 2\nFAM1 IND1 1\n", "P", ES_OK, END);
    expect_status(fx, want);
    read_pheno(fx, "#FID IID P\nFAM0 IND0 2\nFAM1 IND1 1\n", NULL, ES_OK, END);
    expect_status(fx, want);
    /* a header only: everyone missing (the dataset then reports no cases) */
    const int8_t none[NS] = {-1, -1, -1, -1, -1, -1};
    read_pheno(fx, "FID IID P\n", NULL, ES_OK, END);
    expect_status(fx, none);
}

/* Numbers a header names take priority; other numbers select by position. */
static void test_numeric_header_names(void **state)
{
    fx_t *fx = *state;
    const char *file = "FID IID 2 1\nFAM0 IND0 1 2\n";
    read_pheno(fx, file, "2", ES_OK, END);
    assert_int_equal(fx->status[0], 0); /* the column named "2", the first */
    read_pheno(fx, file, "1", ES_OK, END);
    assert_int_equal(fx->status[0], 1);
}

/* ---- errors -------------------------------------------------------------- */

static void test_bad_values(void **state)
{
    fx_t *fx = *state;
    read_pheno(fx, "FAM0 IND0 1\nFAM1 IND1 2\nFAM2 IND2 3\n", NULL, ES_ERR_FORMAT, fx->pheno,
               "line 3", "column 3", "'3'", "1 (control), 2 (case)", END);
    read_pheno(fx, "FID IID a b\nFAM0 IND0 1 1\nFAM1 IND1 2 case\n", "b", ES_ERR_FORMAT,
               fx->pheno, "line 3", "column 4 (b)", "'case'", END);
    read_pheno(fx, "FAM0 IND0 1.5\n", NULL, ES_ERR_FORMAT, "line 1", "'1.5'", END);
    read_pheno(fx, "FAM0 IND0 -1\n", NULL, ES_ERR_FORMAT, "'-1'", END);
    read_pheno(fx, "FAM0 IND0 inf\n", NULL, ES_ERR_FORMAT, "'inf'", END);
    /* bad values are errors even for IDs that are not in the .fam */
    read_pheno(fx, "FAM0 IND0 1\nNOPE NOPE x\n", NULL, ES_ERR_FORMAT, "line 2", "'x'", END);
}

static void test_field_counts(void **state)
{
    fx_t *fx = *state;
    read_pheno(fx, "FAM0 IND0 1 2\nFAM1 IND1 2\n", NULL, ES_ERR_FORMAT, fx->pheno, "line 2",
               "expected 4 fields", "found 3", END);
    read_pheno(fx, "FID IID P\nFAM0 IND0 1\n\nFAM1 IND1 2 2\n", NULL, ES_ERR_FORMAT, fx->pheno,
               "line 4", "expected 3 fields", "found 4", END);
    /* two fields per line is "IID value": a FID IID list without values
     * fails on its first "value", with a hint at how the file was read */
    read_pheno(fx, "FAM0 IND0\nFAM1 IND1\n", NULL, ES_ERR_FORMAT, fx->pheno, "line 1",
               "column 2", "'IND0'", "read as 'IID value'", END);
    read_pheno(fx, "IND0 1\nFAM1 IND1 2\n", NULL, ES_ERR_FORMAT, fx->pheno, "line 2",
               "expected 2 fields (IID and 1 phenotype column", "found 3", END);
    read_pheno(fx, "IND0\nIND1\n", NULL, ES_ERR_FORMAT, fx->pheno, "line 1", "found 1 field",
               END);
    read_pheno(fx, "FID IID\nFAM0 IND0\n", NULL, ES_ERR_FORMAT, fx->pheno, "line 1",
               "header names no phenotype column", END);
    read_pheno(fx, "#IID\nIND0\n", NULL, ES_ERR_FORMAT, "header names no phenotype", END);
    read_pheno(fx, "", NULL, ES_ERR_FORMAT, fx->pheno, "empty", END);
    read_pheno(fx, "\n \r\n", NULL, ES_ERR_FORMAT, fx->pheno, "empty", END);
}

static void test_unknown_column(void **state)
{
    fx_t *fx = *state;
    const char *file = "FID IID T2D cad\nFAM0 IND0 1 2\n";
    read_pheno(fx, file, "ibd", ES_ERR_ARG, fx->pheno, "'ibd'", "available: T2D, cad", END);
    read_pheno(fx, file, "t2d", ES_ERR_ARG, "available", END); /* names are case-sensitive */
    read_pheno(fx, file, "3", ES_ERR_ARG, fx->pheno, "out of range", "2 phenotype columns",
               END);
    read_pheno(fx, file, "0", ES_ERR_ARG, "out of range", END);
    /* many columns: the list is cut short */
    char big[4096] = "FID IID";
    for (int c = 0; c < 30; c++) snprintf(big + strlen(big), sizeof big - strlen(big), " c%d", c);
    strcat(big, "\n");
    read_pheno(fx, big, "zz", ES_ERR_ARG, "c0, c1", "c19, ... (10 more)", END);
}

static void test_unknown_ids_and_duplicates(void **state)
{
    fx_t *fx = *state;
    const char *msg = read_pheno(fx,
                                 "FAM0 IND0 2\nX1 Y1 1\nFAM1 IND1 1\nFAM2 IND9 2\n"
                                 "FAM9 IND2 2\n",
                                 NULL, ES_OK, fx->pheno, "3 of 5 samples are not in", fx->fam,
                                 "'X1 Y1' on line 2", END);
    assert_int_equal(tu_count_lines(msg), 1);
    const int8_t want[NS] = {1, 0, -1, -1, -1, -1};
    expect_status(fx, want);
    /* a sample listed twice: the last value wins, one warning */
    msg = read_pheno(fx, "FAM0 IND0 2\nFAM1 IND1 1\nFAM0 IND0 1\n", NULL, ES_OK,
                     "listed more than once", "'FAM0 IND0' on line 3", END);
    assert_int_equal(tu_count_lines(msg), 1);
    assert_int_equal(fx->status[0], 0);
}

/* ---- IID-only files ------------------------------------------------------- */

static void test_iid_only(void **state)
{
    fx_t *fx = *state;
    const int8_t want[NS] = {1, 0, -1, -1, -1, 1};
    /* no header: every line has two fields */
    const char *msg = read_pheno(fx, "IND0 2\nIND1 1\nIND5\t2\r\n\n", NULL, ES_OK, END);
    assert_int_equal(tu_count_lines(msg), 0);
    expect_status(fx, want);
    /* headers: IID and PLINK 2's #IID, with names */
    read_pheno(fx, "IID T2D cad\nIND0 2 1\nIND1 1 1\nIND5 2 -9\n", "T2D", ES_OK, END);
    expect_status(fx, want);
    read_pheno(fx, "#IID T2D cad\nIND0 1 2\nIND1 1 1\nIND5 -9 2\n", "cad", ES_OK, END);
    expect_status(fx, want);
    read_pheno(fx, "iid P\nIND0 2\nIND1 1\nIND5 2\n", "1", ES_OK, END);
    expect_status(fx, want);
    /* a header IID file may have one value column and still be IID-only */
    read_pheno(fx, "IID P Q\nIND0 2 x\nIND1 1 y\nIND5 2 z\n", "P", ES_OK, END);
    expect_status(fx, want);
    /* the FID is not looked at: a FAM0-like IID matches nothing */
    msg = read_pheno(fx, "IND0 2\nFAM1 1\nIND1 1\n", NULL, ES_OK, "1 of 3 samples",
                     "'FAM1' on line 2", END);
    assert_int_equal(tu_count_lines(msg), 1);
    msg = read_pheno(fx, "IND0 2\nIND1 1\nIND0 1\n", NULL, ES_OK, "listed more than once",
                     "'IND0' on line 3", END);
    assert_int_equal(fx->status[0], 0);
    /* bad values: file, line, column (2 in an IID file) */
    read_pheno(fx, "IID P\nIND0 2\nIND1 case\n", NULL, ES_ERR_FORMAT, fx->pheno, "line 3",
               "column 2 (P)", "'case'", END);
    /* a name needs a header */
    read_pheno(fx, "IND0 2\n", "P", ES_ERR_ARG, "no header line ('IID name ...')", END);
}

/* An IID shared by samples of different families: ambiguous, an error;
 * shared by duplicates of one FID+IID: all take the value. */
static void test_iid_only_ambiguous(void **state)
{
    fx_t *fx = *state;
    assert_int_equal(tu_write_text(fx->fam, "F1 A 0 0 0 -9\nF1 B 0 0 0 -9\nF2 A 0 0 0 -9\n"
                                            "F1 C 0 0 0 -9\nF1 C 0 0 0 -9\nF1 D 0 0 0 -9\n"), 0);
    es_fileset_close(fx->p);
    fx->p = NULL;
    tu_cap_start(&fx->base.cap);
    assert_int_equal(es_plink_open(&fx->p, fx->prefix), ES_OK); /* warns: duplicate F1 C */
    tu_cap_stop(&fx->base.cap);
    read_pheno(fx, "B 2\nA 1\n", NULL, ES_ERR_FORMAT, fx->pheno, "line 2", "IID 'A'",
               "more than one family", "'F1 A' and 'F2 A'", "FID IID value", END);
    const int8_t want[NS] = {-1, 1, -1, 0, 0, -1};
    read_pheno(fx, "B 2\nC 1\n", NULL, ES_OK, END);
    expect_status(fx, want);
    /* with FIDs the same file is unambiguous */
    const int8_t want2[NS] = {0, 1, 1, -1, -1, -1};
    read_pheno(fx, "F1 B 2\nF1 A 1\nF2 A 2\n", NULL, ES_OK, END);
    expect_status(fx, want2);
}

/* A FID IID file whose FIDs match nothing gets a hint at IID-only files. */
static void test_no_line_matches(void **state)
{
    fx_t *fx = *state;
    read_pheno(fx, "0 IND0 2\n0 IND1 1\n", NULL, ES_OK, "2 of 2 samples", "'0 IND0' on line 1",
               "no line matched", "'IID value'", END);
}

static void test_missing_file(void **state)
{
    fx_t *fx = *state;
    char path[4300];
    snprintf(path, sizeof path, "%s/nope.txt", fx->base.dir);
    tu_cap_start(&fx->base.cap);
    int rc = es_pheno_read(path, NULL, fx->p, fx->status);
    const char *msg = tu_cap_stop(&fx->base.cap);
    assert_int_equal(rc, ES_ERR_IO);
    assert_non_null(strstr(msg, path));
    assert_non_null(strstr(msg, "No such file"));
    tu_cap_start(&fx->base.cap);
    rc = es_pheno_read(fx->base.dir, NULL, fx->p, fx->status);
    tu_cap_stop(&fx->base.cap);
    assert_int_equal(rc, ES_ERR_IO);
}

/* ---- through the dataset ------------------------------------------------- */

/* Samples that share an FID+IID in the .fam all take the file's value. */
static void test_dataset_duplicate_fam_ids(void **state)
{
    fx_t *fx = *state;
    assert_int_equal(tu_write_text(fx->fam, "F A 0 0 0 -9\nF B 0 0 0 -9\nF A 0 0 0 -9\n"
                                            "F C 0 0 0 -9\nF A 0 0 0 -9\nF D 0 0 0 -9\n"), 0);
    assert_int_equal(tu_write_text(fx->pheno, "F A 2\nF D 1\n"), 0);
    es_dataset_t *ds = NULL;
    tu_cap_start(&fx->base.cap);
    int rc = es_dataset_open_bfile(&ds, fx->prefix, fx->pheno, NULL);
    const char *msg = tu_cap_stop(&fx->base.cap);
    assert_int_equal(rc, ES_OK);
    assert_non_null(strstr(msg, "2 duplicate sample IDs"));
    const int8_t want[NS] = {1, -1, 1, -1, 1, 0};
    assert_memory_equal(ds->status, want, NS);
    assert_int_equal(es_dataset_n_cases(ds), 3);
    assert_int_equal(es_dataset_n_controls(ds), 1);
    es_dataset_destroy(ds);
}

static void test_dataset_errors(void **state)
{
    fx_t *fx = *state;
    es_dataset_t *ds = (es_dataset_t *)0x1;
    struct {
        const char *text, *name;
        int want;
        const char *needle;
    } cases[] = {
        {"FID IID P\nFAM0 IND0 1\nFAM1 IND1 1\n", NULL, ES_ERR_DATA, "no cases"},
        {"FAM0 IND0 2\nFAM1 IND1 2\n", NULL, ES_ERR_DATA, "no controls"},
        {"FID IID P\n", NULL, ES_ERR_DATA, "no cases"},
        {"FAM0 IND0 7\n", NULL, ES_ERR_FORMAT, "'7'"},
        {"FID IID P\nFAM0 IND0 1\n", "Q", ES_ERR_ARG, "available: P"},
        {"FAM0 IND0 1 2\nFAM1 IND1 1\n", NULL, ES_ERR_FORMAT, "line 2"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        assert_int_equal(tu_write_text(fx->pheno, cases[k].text), 0);
        tu_cap_start(&fx->base.cap);
        int rc = es_dataset_open_bfile(&ds, fx->prefix, fx->pheno, cases[k].name);
        const char *msg = tu_cap_stop(&fx->base.cap);
        assert_int_equal(rc, cases[k].want);
        assert_null(ds);
        assert_non_null(strstr(msg, fx->pheno));
        if (!strstr(msg, cases[k].needle)) fail_msg("lacks '%s':\n%s", cases[k].needle, msg);
    }
    /* and a good file: counts from the file, not from .fam column 6 */
    assert_int_equal(tu_write_text(fx->pheno, "FAM0 IND0 2\nFAM1 IND1 2\nFAM2 IND2 1\n"), 0);
    assert_int_equal(es_dataset_open_bfile(&ds, fx->prefix, fx->pheno, NULL), ES_OK);
    assert_int_equal(es_dataset_n_cases(ds), 2);
    assert_int_equal(es_dataset_n_controls(ds), 1);
    assert_int_equal(ds->slot[0], 0);
    assert_int_equal(ds->slot[1], 1);
    assert_int_equal(ds->slot[2], 16 * 64);
    assert_int_equal(ds->slot[3], -1);
    es_dataset_destroy(ds);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_header_by_name_and_number, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_header, setup, teardown),
        cmocka_unit_test_setup_teardown(test_header_variants, setup, teardown),
        cmocka_unit_test_setup_teardown(test_numeric_header_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_field_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_column, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_ids_and_duplicates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_iid_only, setup, teardown),
        cmocka_unit_test_setup_teardown(test_iid_only_ambiguous, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_line_matches, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dataset_duplicate_fam_ids, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dataset_errors, setup, teardown),
    };
    es_log_set_level(ES_LOG_WARN);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
