/* mpi_stub.c -- the MPI door of a build without MPI: one process, rank 0 of
 * 1; launched by mpirun anyway, it says so instead of letting every copy
 * write the same files. */
#include <stdlib.h>

#include "dist_internal.h"

/* The ranks mpirun (Open MPI, or a PMI launcher) says this job has. */
static int launched_ranks(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"};
    for (size_t k = 0; k < sizeof vars / sizeof *vars; k++) {
        const char *v = getenv(vars[k]);
        if (v && atoi(v) > 1) return atoi(v);
    }
    return 1;
}

int es_dist_mpi_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    int n = launched_ranks();
    if (n > 1) {
        es_error("launched as %d MPI ranks, but this epistream was built without MPI (install "
                 "libopenmpi-dev, then ./configure --with-mpi and build again)", n);
        return ES_ERR_UNSUPPORTED;
    }
    return ES_OK;
}

int es_dist_mpi_size(void) { return 1; }
int es_dist_mpi_rank(void) { return 0; }
int es_dist_mpi_built(void) { return 0; }
void es_dist_mpi_finalize(int failed) { (void)failed; }
int es_dist_mpi_agree(int ret) { return ret; }
int es_mpi_bcast_u64(uint64_t *v, int n)
{
    (void)v;
    (void)n;
    return ES_OK;
}
int es_mpi_gather_u64(const uint64_t *v, int n, uint64_t *out)
{
    for (int k = 0; out && k < n; k++) out[k] = v[k];
    return ES_OK;
}
int es_mpi_serve(es_mpi_server_t *srv)
{
    (void)srv;
    return ES_OK; /* no other rank to serve */
}
int es_mpi_request(uint32_t tile[3])
{
    (void)tile;
    return -1;
}
int es_mpi_send_result(const uint8_t *buf, size_t n)
{
    (void)buf;
    (void)n;
    return ES_ERR_UNSUPPORTED;
}
int es_mpi_send_done(int err, const char *msg)
{
    (void)err;
    (void)msg;
    return ES_OK;
}
