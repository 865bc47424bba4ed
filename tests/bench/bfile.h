/* bfile.h -- the random PLINK filesets the GPU benchmarks scan (bench_gpu,
 * bench_triple_gpu): half cases, genotypes 0, 1, 2 without missing calls
 * (codes 00, 10, 11), from a splitmix64 stream.  Header-only, static. */
#ifndef ES_BENCH_BFILE_H
#define ES_BENCH_BFILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* PREFIX.bed/.bim/.fam of m variants x n samples.  @return 0, or -1. */
static int write_bfile(const char *prefix, uint32_t n, uint32_t m, uint64_t seed)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.fam", prefix);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    for (uint32_t s = 0; s < n; s++) fprintf(f, "F%u I%u 0 0 0 %d\n", s, s, s % 2 ? 2 : 1);
    fclose(f);
    snprintf(path, sizeof path, "%s.bim", prefix);
    f = fopen(path, "w");
    if (!f) return -1;
    for (uint32_t v = 0; v < m; v++) fprintf(f, "1\trs%u\t0\t%u\tA\tG\n", v + 1, v + 1);
    fclose(f);
    snprintf(path, sizeof path, "%s.bed", prefix);
    f = fopen(path, "wb");
    if (!f) return -1;
    static const unsigned char magic[3] = {0x6c, 0x1b, 0x01};
    fwrite(magic, 1, 3, f);
    size_t bpv = (n + 3) / 4;
    unsigned char *row = malloc(bpv + 8);
    if (!row) {
        fclose(f);
        return -1;
    }
    for (uint32_t v = 0; v < m; v++) {
        for (size_t k = 0; k < bpv; k += 8) {
            uint64_t x = rng_next(&seed), y = rng_next(&seed) | rng_next(&seed); /* 3/4 ones */
            uint64_t hi = x & 0x5555555555555555ULL, lo = y & 0x5555555555555555ULL;
            uint64_t code = (hi << 1) | (hi & lo); /* per 2 bits: 00, 10 or 11 */
            memcpy(row + k, &code, bpv - k < 8 ? bpv - k : 8);
        }
        if (n % 4) row[bpv - 1] &= (unsigned char)((1u << (2 * (n % 4))) - 1);
        fwrite(row, 1, bpv, f);
    }
    free(row);
    return fclose(f);
}

#endif
