/* kernel.c -- the counting kernel of the MDFS engine: the cells of a tuple's
 * table one variable deeper, |P_i & B_b| for every prefix cell i and every
 * counted bin b of the next variable, both classes in one call.
 *
 * The count module's and4 kernels do this four products and one class at a
 * time; with a thousand objects a class is eight words, and the calls, not the
 * words, were the cost (four calls a pair at m = 3).  One fused loop per
 * (prefix cell, bin) over both classes' words keeps the sums in registers.
 * The body is compiled twice: the scalar twin (any CPU; the oracle in tests)
 * and inside target("popcnt") (the POPCNT instruction; four a cycle on Zen
 * 4, faster here than 512-bit vectors whose horizontal sums cost more than
 * eight words of counting).  Both give the same counts. */
#include <string.h>

#include "mdfs.h"
#include "mdfs_internal.h"
#include "util.h"

static inline __attribute__((always_inline)) void
cells_body(const uint64_t *const *pre, uint32_t np, const uint64_t *const *bin, uint32_t nb,
           uint32_t w0, uint32_t W, uint32_t *const *out)
{
    for (uint32_t i = 0; i < np; i++) {
        const uint64_t *p = pre[i];
        for (uint32_t b = 0; b < nb; b++) {
            const uint64_t *x = bin[b];
            uint64_t s0 = 0, s1 = 0;
            for (uint32_t w = 0; w < w0; w++) s0 += (uint64_t)__builtin_popcountll(p[w] & x[w]);
            for (uint32_t w = w0; w < W; w++) s1 += (uint64_t)__builtin_popcountll(p[w] & x[w]);
            out[i][2 * b] = (uint32_t)s0;
            out[i][2 * b + 1] = (uint32_t)s1;
        }
    }
}

static void cells_scalar(const uint64_t *const *pre, uint32_t np, const uint64_t *const *bin,
                         uint32_t nb, uint32_t w0, uint32_t W, uint32_t *const *out)
{
    cells_body(pre, np, bin, nb, w0, W, out);
}

#if ES_CPU_X86
ES_TARGET_POPCNT static void cells_popcnt(const uint64_t *const *pre, uint32_t np,
                                          const uint64_t *const *bin, uint32_t nb, uint32_t w0,
                                          uint32_t W, uint32_t *const *out)
{
    cells_body(pre, np, bin, nb, w0, W, out);
}
#endif

es_mdfs_cells_fn es_mdfs_cells_scalar(void) { return cells_scalar; }

es_mdfs_cells_fn es_mdfs_cells_best(void)
{
    const char *force = es_env_variant("EPISTREAM_POPCOUNT");
    if (force && !strcmp(force, "scalar")) return cells_scalar;
#if ES_CPU_X86
    if (es_cpu_has(ES_CPU_POPCNT)) return cells_popcnt;
#endif
    return cells_scalar;
}
