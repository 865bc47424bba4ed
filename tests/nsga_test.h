/* nsga_test.h -- what the NSGA-II unit tests share: a random numeric table
 * with a class (the first three features shifted by it).  Include after
 * testutil.h. */
#ifndef ES_NSGA_TEST_H
#define ES_NSGA_TEST_H

/* Write dir/tN_P.csv: n samples, p features, c classes; @return its path (malloc'd). */
static inline char *nsga_random_table(const char *dir, uint32_t n, uint32_t p, uint32_t c,
                                      uint64_t *rng)
{
    char *path = malloc(strlen(dir) + 32);
    sprintf(path, "%s/t%u_%u.csv", dir, n, p);
    FILE *fp = fopen(path, "w");
    for (uint32_t f = 0; f < p; f++) fprintf(fp, "x%u,", f);
    fprintf(fp, "y\n");
    for (uint32_t s = 0; s < n; s++) {
        uint32_t y = (uint32_t)tu_randn(rng, c);
        for (uint32_t f = 0; f < p; f++)
            fprintf(fp, "%.6f,", (double)tu_randn(rng, 100000) / 1000.0 + (f < 3 ? 20.0 * y : 0));
        fprintf(fp, "%u\n", y);
    }
    fclose(fp);
    return path;
}

#endif
