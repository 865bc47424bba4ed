/* nsga_test.h -- what the NSGA-II unit tests share: a random numeric table
 * with a class (the first three features shifted by it), loading it for an
 * objective, runs on several device lists that must agree.  Include after
 * cmocka.h, nsga.h and testutil.h. */
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

/* Load path for objective obj (5 folds for the classifiers, none for K-means)
 * into *d and set *o to the defaults for obj. */
static inline void nsga_load_obj(const char *path, int obj, es_nsga_data_t *d, es_nsga_opt_t *o)
{
    es_nsga_load_opt_t lo = {0};
    lo.folds = obj ? 5 : 0;
    assert_int_equal(es_nsga_data_from_table(path, &lo, d), ES_OK);
    es_nsga_opt_init(o);
    o->obj = (es_nsga_obj_t)obj;
}

/* Run o on d once per device list dev[0..n) (n <= 8): every run's front,
 * objective values and hypervolumes the first's bytes, the devices'
 * evaluations adding up to the run's (each individual evaluated once).
 * Prints the device split of the last run. */
static inline void nsga_same_runs(const es_nsga_data_t *d, es_nsga_opt_t *o, const char *const *dev, int n)
{
    es_nsga_result_t r[8];
    memset(r, 0, sizeof r);
    assert_true(n >= 1 && n <= 8);
    for (int k = 0; k < n; k++) {
        o->devices = dev[k];
        assert_int_equal(es_nsga_run(d, o, &r[k]), ES_OK);
        uint64_t sum = 0;
        for (uint32_t q = 0; q < r[k].n_dev; q++) sum += r[k].dev[q].evaluations;
        assert_int_equal(sum, (uint64_t)o->population * (o->generations + 1));
        assert_int_equal(r[k].evaluations, sum);
    }
    for (int k = 1; k < n; k++) {
        assert_int_equal(r[0].n_front, r[k].n_front);
        assert_memory_equal(r[0].front_mask, r[k].front_mask, (size_t)r[0].n_front * r[0].words * 8);
        assert_memory_equal(r[0].front_f, r[k].front_f, (size_t)r[0].n_front * 2 * sizeof(double));
        assert_memory_equal(r[0].hv, r[k].hv, r[0].n_hv * sizeof(double));
    }
    printf("obj %d, %s:", (int)o->obj, dev[n - 1]);
    for (uint32_t q = 0; q < r[n - 1].n_dev; q++) printf(" %llu", (unsigned long long)r[n - 1].dev[q].evaluations);
    printf(" evaluations\n");
    for (int k = 0; k < n; k++) es_nsga_result_free(&r[k]);
}

#endif
