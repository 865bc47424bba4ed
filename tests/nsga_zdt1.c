/* nsga_zdt1.c -- NSGA-II on ZDT1 over a binary coding, for the comparison
 * with pymoo (tests/nsga_zdt1.sh, tests/bench/bench_nsga.sh).
 *
 *   nsga_zdt1 VARS BITS POPULATION GENERATIONS SEED...
 *
 * Prints "SEED HV" per seed: the final first front's hypervolume, reference
 * point (1.1, 1.1).  Uniform random initial bits, uniform crossover with
 * probability 0.9, bit flips at 1/(VARS*BITS) both ways. */
#include <stdio.h>
#include <stdlib.h>

#include "nsga.h"

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: nsga_zdt1 VARS BITS POPULATION GENERATIONS SEED...\n");
        return 2;
    }
    es_nsga_data_t d = {0};
    es_nsga_opt_t o;
    es_nsga_opt_init(&o);
    o.obj = ES_NSGA_ZDT1;
    o.zdt_vars = (uint32_t)atoi(argv[1]);
    d.p = o.zdt_vars * (uint32_t)atoi(argv[2]);
    o.population = (uint32_t)atoi(argv[3]);
    o.generations = (uint32_t)atoi(argv[4]);
    o.max_ones = 0;
    o.crossover = 0.9;
    o.mut_on = o.mut_off = 1.0 / d.p;
    o.threads = 1;
    for (int a = 5; a < argc; a++) {
        es_nsga_result_t r;
        o.seed = strtoull(argv[a], NULL, 10);
        if (es_nsga_run(&d, &o, &r)) return 1;
        printf("%s %.10g\n", argv[a], r.hv[r.n_hv - 1]);
        es_nsga_result_free(&r);
    }
    return 0;
}
