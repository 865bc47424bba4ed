/* test_popcount.c -- every popcount kernel this CPU supports gives the same sums
 * as a bit-by-bit count and as the scalar twin: for any word count (tails of
 * every SIMD width), unaligned pointers, bit densities from empty to full, and
 * with out[] added to rather than overwritten. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "select.h"
#include "testutil.h"

/* Word counts around every vector width and the AVX2 byte-counter flush
 * (31 steps of 4 words). */
static const size_t lengths[] = {0,   1,   2,   3,   4,   5,   7,    8,    9,    15,   16,  17,
                                 23,  24,  31,  32,  33,  63,  64,   65,   100,  123,  124, 125,
                                 127, 128, 129, 255, 256, 257, 1000, 1024, 1031, 4096, 4099};
#define N_LENGTHS (sizeof lengths / sizeof lengths[0])
#define MAX_WORDS 4099
/* Allocated words: room for the offsets, a multiple of 8 (aligned_alloc). */
#define BUF_WORDS 4160
/* Start offsets in words: 0 keeps 64-byte alignment, the others break it. */
static const size_t offsets[] = {0, 1, 3, 7};
#define N_OFFSETS (sizeof offsets / sizeof offsets[0])

/* Six operand arrays; density picks sparse, random, dense, empty or full words. */
static uint64_t *buf[6];

static uint64_t random_word(uint64_t *rng, int density)
{
    switch (density) {
    case 0: return tu_rand(rng) & tu_rand(rng) & tu_rand(rng);
    case 1: return tu_rand(rng);
    case 2: return tu_rand(rng) | tu_rand(rng) | tu_rand(rng);
    case 3: return 0;
    default: return ~0ULL;
    }
}

static void fill(uint64_t *rng, int density)
{
    for (int k = 0; k < 6; k++)
        for (size_t i = 0; i < BUF_WORDS; i++)
            buf[k][i] = random_word(rng, density);
}

/* The oracle of the oracle: count bit by bit. */
static uint64_t and_bits(const uint64_t *x, const uint64_t *y, size_t nw)
{
    uint64_t c = 0;
    for (size_t i = 0; i < nw; i++)
        for (int b = 0; b < 64; b++)
            c += (x[i] >> b) & (y[i] >> b) & 1;
    return c;
}

static int setup(void **state)
{
    (void)state;
    for (int k = 0; k < 6; k++) {
        buf[k] = aligned_alloc(64, BUF_WORDS * sizeof(uint64_t));
        if (!buf[k]) return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int k = 0; k < 6; k++)
        free(buf[k]);
    return 0;
}

/* The scalar twin against bit-by-bit counts on short inputs. */
static void test_scalar_exact(void **state)
{
    (void)state;
    uint64_t rng = 1;
    for (int density = 0; density < 5; density++) {
        fill(&rng, density);
        for (size_t li = 0; li < N_LENGTHS && lengths[li] <= 257; li++) {
            size_t nw = lengths[li];
            const uint64_t *a1 = buf[0], *a2 = buf[1], *av = buf[2];
            const uint64_t *b1 = buf[3], *b2 = buf[4], *bv = buf[5];
            uint64_t o4[4] = {0}, o9[9] = {0};
            es_popcount_scalar.and4(a1, a2, b1, b2, nw, o4);
            es_popcount_scalar.and9(a1, a2, av, b1, b2, bv, nw, o9);
            const uint64_t *x[9] = {a1, a1, a2, a2, a1, a2, av, av, av};
            const uint64_t *y[9] = {b1, b2, b1, b2, bv, bv, b1, b2, bv};
            for (int k = 0; k < 9; k++) {
                uint64_t want = and_bits(x[k], y[k], nw);
                if (k < 4) assert_int_equal(o4[k], want);
                assert_int_equal(o9[k], want);
            }
        }
    }
}

/* Every implementation against the scalar twin. */
static void test_all_vs_scalar(void **state)
{
    (void)state;
    const es_popcount_impl_t *const *impls = es_popcount_all();
    uint64_t rng = 2;
    for (int density = 0; density < 5; density++) {
        fill(&rng, density);
        for (size_t oi = 0; oi < N_OFFSETS; oi++)
            for (size_t li = 0; li < N_LENGTHS; li++) {
                size_t nw = lengths[li], o = offsets[oi];
                /* each operand at its own offset, so pointers differ in alignment */
                const uint64_t *a1 = buf[0] + o, *a2 = buf[1] + (o + 1) % 8, *av = buf[2] + o;
                const uint64_t *b1 = buf[3], *b2 = buf[4] + o, *bv = buf[5] + (o + 5) % 8;
                uint64_t r4[4] = {0}, r9[9] = {0};
                es_popcount_scalar.and4(a1, a2, b1, b2, nw, r4);
                es_popcount_scalar.and9(a1, a2, av, b1, b2, bv, nw, r9);
                for (size_t k = 0; impls[k]; k++) {
                    uint64_t o4[4] = {0}, o9[9] = {0};
                    impls[k]->and4(a1, a2, b1, b2, nw, o4);
                    impls[k]->and9(a1, a2, av, b1, b2, bv, nw, o9);
                    for (int c = 0; c < 4; c++) {
                        if (o4[c] != r4[c])
                            fail_msg("%s and4 nw=%zu off=%zu density=%d out[%d]=%llu want %llu",
                                     impls[k]->name, nw, o, density, c, (unsigned long long)o4[c],
                                     (unsigned long long)r4[c]);
                    }
                    for (int c = 0; c < 9; c++) {
                        if (o9[c] != r9[c])
                            fail_msg("%s and9 nw=%zu off=%zu density=%d out[%d]=%llu want %llu",
                                     impls[k]->name, nw, o, density, c, (unsigned long long)o9[c],
                                     (unsigned long long)r9[c]);
                    }
                }
            }
    }
}

/* out[] is added to: two calls over the halves of a range sum to one call
 * over all of it, on top of whatever out[] held. */
static void test_accumulates(void **state)
{
    (void)state;
    const es_popcount_impl_t *const *impls = es_popcount_all();
    uint64_t rng = 3;
    fill(&rng, 1);
    const uint64_t *a1 = buf[0], *a2 = buf[1], *av = buf[2];
    const uint64_t *b1 = buf[3], *b2 = buf[4], *bv = buf[5];
    for (size_t k = 0; impls[k]; k++)
        for (size_t split = 0; split <= 100; split += 7) {
            size_t nw = 100;
            uint64_t whole4[4] = {0}, whole9[9] = {0}, part4[4], part9[9];
            impls[k]->and4(a1, a2, b1, b2, nw, whole4);
            impls[k]->and9(a1, a2, av, b1, b2, bv, nw, whole9);
            for (int c = 0; c < 9; c++) {
                if (c < 4) part4[c] = 1000 + (uint64_t)c;
                part9[c] = 5000 + (uint64_t)c;
            }
            impls[k]->and4(a1, a2, b1, b2, split, part4);
            impls[k]->and4(a1 + split, a2 + split, b1 + split, b2 + split, nw - split, part4);
            impls[k]->and9(a1, a2, av, b1, b2, bv, split, part9);
            impls[k]->and9(a1 + split, a2 + split, av + split, b1 + split, b2 + split, bv + split,
                           nw - split, part9);
            for (int c = 0; c < 9; c++) {
                if (c < 4) assert_int_equal(part4[c], whole4[c] + 1000 + (uint64_t)c);
                assert_int_equal(part9[c], whole9[c] + 5000 + (uint64_t)c);
            }
        }
}

/* Aliased operands (the same plane on both sides) are how count.c asks for
 * |x & x| = |x|; restrict is about writes, and these kernels write only out[]. */
static void test_same_operand(void **state)
{
    (void)state;
    const es_popcount_impl_t *const *impls = es_popcount_all();
    uint64_t rng = 4;
    fill(&rng, 1);
    for (size_t k = 0; impls[k]; k++) {
        uint64_t o4[4] = {0};
        impls[k]->and4(buf[0], buf[0], buf[1], buf[1], 77, o4);
        uint64_t want = and_bits(buf[0], buf[1], 77);
        for (int c = 0; c < 4; c++)
            assert_int_equal(o4[c], want);
    }
}

/* The registry: scalar first, NULL-terminated, names unique, and the choice
 * forced through EPISTREAM_POPCOUNT (set in main() before the first call). */
static void test_registry(void **state)
{
    (void)state;
    const es_popcount_impl_t *const *impls = es_popcount_all();
    assert_ptr_equal(impls[0], &es_popcount_scalar);
    size_t n = 0;
    for (; impls[n]; n++) {
        assert_non_null(impls[n]->name);
        assert_non_null(impls[n]->and4);
        assert_non_null(impls[n]->and9);
        for (size_t k = 0; k < n; k++)
            assert_string_not_equal(impls[k]->name, impls[n]->name);
    }
    assert_true(n >= 1 && n <= 4);
    assert_ptr_equal(es_popcount_best(), &es_popcount_scalar);
    print_message("popcount kernels on this CPU:");
    for (size_t k = 0; impls[k]; k++)
        print_message(" %s", impls[k]->name);
    print_message("\n");
}

int main(void)
{
    /* Forces es_popcount_best() to the scalar twin; es_popcount_all() still
     * lists every supported kernel, which the other tests use. */
    setenv("EPISTREAM_POPCOUNT", "scalar", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),      cmocka_unit_test(test_scalar_exact),
        cmocka_unit_test(test_all_vs_scalar), cmocka_unit_test(test_accumulates),
        cmocka_unit_test(test_same_operand),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
