/* bench_kernels.c -- prints how fast packing and pair counting run, per
 * kernel, on one thread.  Not a test: a table for doc/BENCHMARKS.md.
 *
 *   bench_kernels [VARIANTS [SECONDS]]
 *
 * For N in {1000, 5000, 10000} samples (half cases), a random genotype
 * matrix is packed in memory (no files), then every pair i < j of VARIANTS
 * variants is counted with es_count_pair() and es_count_block()
 * under each popcount kernel, without and with missing calls (1% of calls missing at every
 * variant, so every pair takes the 9-product path).  VARIANTS defaults to
 * what fills about 256 KiB of planes (at most 512), as the scan's tiles keep
 * their blocks in L2; larger sets measure the memory system instead.  Packing is timed per
 * pack variant (EPISTREAM_PACK) with cases and controls interleaved in .fam order.
 *
 * Build (from a configured tree):
 *   gcc -O2 -std=gnu11 -fopenmp -Isrc tests/bench/bench_kernels.c libepistream.a -lhts -lm */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select.h"

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

typedef struct {
    es_fileset_t pk;
    es_dataset_t ds;
    uint8_t *bed;
    int8_t *status;
    int64_t *slot;
} bench_data_t;

/* Cases and controls alternate in .fam order, as in a real study's .fam
 * (which is what makes packing a compress, not a copy). */
static int data_make(bench_data_t *d, uint32_t n, uint32_t m, double miss, uint64_t seed)
{
    static const uint8_t code_of[4] = {3, 2, 0, 1};
    memset(d, 0, sizeof *d);
    size_t bpv = (n + 3) / 4;
    d->bed = calloc(3 + (size_t)m * bpv, 1);
    d->status = malloc(n);
    d->slot = malloc((size_t)n * sizeof *d->slot);
    if (!d->bed || !d->status || !d->slot) return -1;
    uint32_t n_case = n / 2, n_ctrl = n - n_case;
    int64_t w_case = ((int64_t)n_case + ES_PAD_BITS - 1) / ES_PAD_BITS * ES_PAD_WORDS;
    int64_t next[2] = {w_case * 64, 0};
    for (uint32_t s = 0; s < n; s++) {
        d->status[s] = (int8_t)(s % 2 == 0 && s / 2 < n_case);
        d->slot[s] = next[d->status[s]]++;
    }
    for (uint32_t v = 0; v < m; v++) {
        uint8_t *row = d->bed + 3 + (size_t)v * bpv;
        double maf = 0.05 + 0.45 * (double)(rng_next(&seed) % 1000) / 1000.0;
        for (uint32_t s = 0; s < n; s++) {
            double u = (double)(rng_next(&seed) >> 11) / 9007199254740992.0;
            uint8_t g = (u < maf * maf) + (u < 1 - (1 - maf) * (1 - maf));
            if (miss > 0 && (double)(rng_next(&seed) >> 11) / 9007199254740992.0 < miss) g = 3;
            row[s / 4] |= (uint8_t)(code_of[g] << (2 * (s % 4)));
        }
    }
    d->pk.n_variants = m;
    d->pk.n_samples = n;
    d->pk.bed_map = d->bed;
    d->pk.bed_size = 3 + (size_t)m * bpv;
    d->pk.bytes_per_variant = bpv;
    d->ds.plink = &d->pk;
    d->ds.status = d->status;
    d->ds.n_case = n_case;
    d->ds.n_ctrl = n_ctrl;
    d->ds.slot = d->slot;
    d->ds.pad_words = ES_PAD_WORDS;
    return 0;
}

static void data_free(bench_data_t *d)
{
    free(d->bed);
    free(d->status);
    free(d->slot);
}

/* ns per pair over all pairs i < j, by es_count_pair (block = 0) or by
 * es_count_block (block = 1); the best of 11 rounds of >= secs / 11,
 * so other load on the machine disturbs less. */
static double time_pairs(const es_popcount_impl_t *impl, const es_planes_t *pl, int block,
                         double secs, uint64_t *sink)
{
    es_table2_t *tab = malloc(pl->count * sizeof *tab);
    double best = 1e30;
    if (!tab) return 0;
    for (int round = 0; round < 11; round++) {
        uint64_t pairs = 0;
        double t0 = es_time_now(), t;
        do {
            for (uint32_t a = 0; a + 1 < pl->count; a++) {
                uint32_t nb = pl->count - a - 1;
                if (block) {
                    es_count_block(impl, pl, a, pl, a + 1, nb, tab);
                } else {
                    for (uint32_t k = 0; k < nb; k++)
                        es_count_pair(impl, pl, a, pl, a + 1 + k, tab + k);
                }
                *sink += tab[0].n[0][0] + tab[nb - 1].n[1][8];
            }
            pairs += (uint64_t)pl->count * (pl->count - 1) / 2;
        } while ((t = es_time_now() - t0) < secs / 11);
        double ns = t * 1e9 / (double)pairs;
        if (ns < best) best = ns;
    }
    free(tab);
    return best;
}

int main(int argc, char **argv)
{
    uint32_t m_arg = argc > 1 ? (uint32_t)atoi(argv[1]) : 0;
    double secs = argc > 2 ? atof(argv[2]) : 0.5;
    static const uint32_t sizes[] = {1000, 5000, 10000};
    static const char *packers[] = {"generic", "popcnt", "bmi2"};
    const es_popcount_impl_t *const *impls = es_popcount_all();
    uint64_t sink = 0;

    printf("Pair tables, one thread, all pairs i<j of a block of planes, ns per pair\n");
    printf("(pair: es_count_pair per pair; block: es_count_block per row of partners)\n");
    printf("%-12s %-8s %10s %10s %10s %10s\n", "", "", "no missing", "", "1% missing", "");
    printf("%-12s %-8s %10s %10s %10s %10s\n", "N (M)", "kernel", "pair", "block", "pair", "block");
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        bench_data_t d[2];
        es_planes_t pl[2];
        /* 3 planes of 2 classes of ceil(N/2048) * 1024 bits */
        uint32_t m = m_arg ? m_arg : 256 * 1024 / (3 * 2 * ((sizes[si] + 2047) / 2048) * 128);
        if (m > 512) m = 512;
        if (m < 2) m = 2;
        for (int mi = 0; mi < 2; mi++) {
            if (data_make(&d[mi], sizes[si], m, mi ? 0.01 : 0, 1 + si) ||
                es_planes_alloc(&pl[mi], &d[mi].ds, m, mi ? 3 : 2) ||
                es_pack(&d[mi].ds, 0, m, &pl[mi])) {
                fprintf(stderr, "bench_kernels: setup failed\n");
                return 1;
            }
        }
        for (size_t k = 0; impls[k]; k++) {
            double ns[2][2];
            for (int mi = 0; mi < 2; mi++)
                for (int bl = 0; bl < 2; bl++)
                    ns[mi][bl] = time_pairs(impls[k], &pl[mi], bl, secs, &sink);
            char lab[32];
            snprintf(lab, sizeof lab, "%u (%u)", sizes[si], m);
            printf("%-12s %-8s %10.1f %10.1f %10.1f %10.1f\n", lab, impls[k]->name, ns[0][0],
                   ns[0][1], ns[1][0], ns[1][1]);
        }
        for (int mi = 0; mi < 2; mi++) {
            es_planes_free(&pl[mi]);
            data_free(&d[mi]);
        }
    }

    printf("\nes_pack, one thread, ns per sample (cases and controls interleaved)\n");
    printf("%-8s %-8s %12s %12s\n", "N", "packer", "no missing", "1% missing");
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        uint32_t pm = 2000;
        bench_data_t d[2];
        for (int mi = 0; mi < 2; mi++)
            if (data_make(&d[mi], sizes[si], pm, mi ? 0.01 : 0, 7 + si)) return 1;
        for (size_t p = 0; p < sizeof packers / sizeof packers[0]; p++) {
            double ns[2];
            setenv("EPISTREAM_PACK", packers[p], 1);
            for (int mi = 0; mi < 2; mi++) {
                es_planes_t pl;
                if (es_planes_alloc(&pl, &d[mi].ds, pm, 3)) return 1;
                int reps = 0;
                double t0 = es_time_now(), t;
                do {
                    if (es_pack(&d[mi].ds, 0, pm, &pl)) return 1;
                    sink += pl.gcount[pm - 1][1][1];
                    reps++;
                } while ((t = es_time_now() - t0) < secs);
                ns[mi] = t * 1e9 / ((double)reps * pm * sizes[si]);
                es_planes_free(&pl);
            }
            printf("%-8u %-8s %12.3f %12.3f\n", sizes[si], packers[p], ns[0], ns[1]);
        }
        for (int mi = 0; mi < 2; mi++)
            data_free(&d[mi]);
    }
    unsetenv("EPISTREAM_PACK");
    fprintf(stderr, "(checksum %llu)\n", (unsigned long long)sink);
    return 0;
}
