/* test_topk.c -- the bounded heap keeps exactly the k best under the total order,
 * whatever the insertion order or how the heaps are split and merged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>

#include <cmocka.h>

#include "select.h"
#include "testutil.h"

/* random pairs with many ties in the statistic */
static es_pair_t *random_pairs(size_t n, uint64_t *rng)
{
    es_pair_t *p = calloc(n, sizeof *p);
    for (size_t k = 0; k < n; k++) {
        p[k].i = tu_randn(rng, 50);
        p[k].j = p[k].i + 1 + tu_randn(rng, 50);
        p[k].stat = (double)tu_randn(rng, 20) / 4.0;
    }
    return p;
}

static int cmp_hib(const void *a, const void *b) { return es_pair_rank_cmp(a, b, 1); }
static int cmp_lib(const void *a, const void *b) { return es_pair_rank_cmp(a, b, 0); }

static void check_order(int hib)
{
    uint64_t rng = 42 + (uint64_t)hib;
    for (int rep = 0; rep < 50; rep++) {
        size_t n = 1 + tu_randn(&rng, 400), k = 1 + tu_randn(&rng, 60);
        es_pair_t *p = random_pairs(n, &rng);
        /* expected: full sort, first k */
        es_pair_t *ref = malloc(n * sizeof *ref);
        memcpy(ref, p, n * sizeof *ref);
        qsort(ref, n, sizeof *ref, hib ? cmp_hib : cmp_lib);
        /* one heap */
        es_topk_t t;
        assert_int_equal(es_topk_init(&t, k, hib), ES_OK);
        for (size_t q = 0; q < n; q++) es_topk_push(&t, &p[q]);
        es_topk_sort(&t);
        size_t want = n < k ? n : k;
        assert_int_equal(t.n, want);
        for (size_t q = 0; q < want; q++) {
            assert_int_equal(t.heap[q].i, ref[q].i);
            assert_int_equal(t.heap[q].j, ref[q].j);
            assert_true(t.heap[q].stat == ref[q].stat);
        }
        /* split over 3 heaps in a scattered order, then merged */
        es_topk_t part[3], merged;
        for (int h = 0; h < 3; h++) assert_int_equal(es_topk_init(&part[h], k, hib), ES_OK);
        for (size_t q = 0; q < n; q++) es_topk_push(&part[tu_randn(&rng, 3)], &p[n - 1 - q]);
        assert_int_equal(es_topk_init(&merged, k, hib), ES_OK);
        for (int h = 2; h >= 0; h--) es_topk_merge(&merged, &part[h]);
        es_topk_sort(&merged);
        assert_int_equal(merged.n, want);
        assert_memory_equal(merged.heap, t.heap, want * sizeof *t.heap);
        for (int h = 0; h < 3; h++) es_topk_free(&part[h]);
        es_topk_free(&merged);
        es_topk_free(&t);
        free(ref);
        free(p);
    }
}

static void test_higher_better(void **state) { (void)state; check_order(1); }
static void test_lower_better(void **state) { (void)state; check_order(0); }

static void test_ties_lower_index(void **state)
{
    (void)state;
    es_topk_t t;
    assert_int_equal(es_topk_init(&t, 2, 1), ES_OK);
    es_pair_t a = {.i = 5, .j = 9, .stat = 1.0}, b = {.i = 2, .j = 7, .stat = 1.0},
              c = {.i = 2, .j = 3, .stat = 1.0};
    es_topk_push(&t, &a);
    es_topk_push(&t, &b);
    assert_true(es_topk_would_accept(&t, 1.0)); /* equal stat may still win on index */
    assert_false(es_topk_would_accept(&t, 0.5));
    es_topk_push(&t, &c);
    es_topk_sort(&t);
    assert_int_equal(t.heap[0].j, 3);
    assert_int_equal(t.heap[1].j, 7);
    es_topk_free(&t);
}

static void test_nan_ranks_last(void **state)
{
    (void)state;
    es_pair_t x = {.i = 0, .j = 1, .stat = NAN}, y = {.i = 3, .j = 4, .stat = -1e300};
    assert_true(es_pair_rank_cmp(&y, &x, 1) < 0);
    assert_true(es_pair_rank_cmp(&y, &x, 0) < 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_higher_better),
        cmocka_unit_test(test_lower_better),
        cmocka_unit_test(test_ties_lower_index),
        cmocka_unit_test(test_nan_ranks_last),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
