/* mpi.c -- the MPI door (Open MPI): start and end, the collectives the scan
 * needs (broadcast, gather, an agreement on errors), and the tile queue
 * between rank 0 and the others.
 *
 * Rank 0 serves from its main thread while its own backend runs in another;
 * on the other ranks, any worker thread asks for tiles and sends results,
 * one at a time (MPI_THREAD_SERIALIZED and a mutex).  Waits that may last
 * (rank 0 serving, every rank at the final agreement) poll with short sleeps
 * instead of MPI's busy wait, so that a waiting rank leaves its cores to the
 * ranks that still compute. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dist_internal.h"

enum { TAG_REQ = 101, TAG_TILE, TAG_RES, TAG_DONE };

static int g_started, g_size = 1, g_rank;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

static int launched_ranks(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"};
    for (size_t k = 0; k < sizeof vars / sizeof *vars; k++) {
        const char *v = getenv(vars[k]);
        if (v && atoi(v) > 0) return atoi(v);
    }
    return 0;
}

int es_dist_mpi_init(int *argc, char ***argv)
{
    if (g_started || launched_ranks() < 2) return ES_OK;
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
        es_error("MPI_Init_thread failed");
        return ES_ERR_UNSUPPORTED;
    }
    g_started = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    if (provided < MPI_THREAD_SERIALIZED) {
        es_error("this MPI library gives thread level %d; epistream's ranks need MPI_THREAD_SERIALIZED",
                 provided);
        return ES_ERR_UNSUPPORTED;
    }
    return ES_OK;
}

int es_dist_mpi_size(void) { return g_size; }
int es_dist_mpi_rank(void) { return g_rank; }
int es_dist_mpi_built(void) { return 1; }

void es_dist_mpi_finalize(int failed)
{
    if (!g_started) return;
    g_started = 0;
    /* a failure ends every rank (one that failed alone would leave the others
     * waiting); its message was logged before */
    if (failed) MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Finalize();
}

static void nap(long us)
{
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

/* Wait for a request without spinning a core. */
static void wait_req(MPI_Request *rq)
{
    long us = 20;
    for (;;) {
        int done = 0;
        MPI_Test(rq, &done, MPI_STATUS_IGNORE);
        if (done) return;
        nap(us);
        if (us < 2000) us *= 2;
    }
}

int es_dist_mpi_agree(int ret)
{
    if (g_size < 2) return ret;
    int mine = ret, all = 0;
    MPI_Request rq;
    MPI_Iallreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &rq);
    wait_req(&rq);
    return all;
}

int es_mpi_bcast_u64(uint64_t *v, int n)
{
    if (g_size < 2) return ES_OK;
    MPI_Request rq;
    MPI_Ibcast(v, n, MPI_UINT64_T, 0, MPI_COMM_WORLD, &rq);
    wait_req(&rq);
    return ES_OK;
}

int es_mpi_gather_u64(const uint64_t *v, int n, uint64_t *out)
{
    if (g_size < 2) {
        for (int k = 0; out && k < n; k++) out[k] = v[k];
        return ES_OK;
    }
    MPI_Request rq;
    MPI_Igather(v, n, MPI_UINT64_T, out, n, MPI_UINT64_T, 0, MPI_COMM_WORLD, &rq);
    wait_req(&rq);
    return ES_OK;
}

int es_mpi_serve(es_mpi_server_t *srv)
{
    int active = g_size - 1, ret = ES_OK;
    uint8_t *buf = NULL;
    size_t cap = 0;
    long idle = 10;
    uint64_t *given = calloc((size_t)g_size, sizeof *given);
    while (active > 0) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (!flag) {
            nap(idle);
            if (idle < 1000) idle *= 2;
            continue;
        }
        idle = 10;
        int src = st.MPI_SOURCE, n = 0;
        MPI_Get_count(&st, MPI_BYTE, &n);
        if ((size_t)n + 1 > cap) {
            size_t c = cap ? cap : 4096;
            while (c < (size_t)n + 1) c *= 2;
            uint8_t *p = realloc(buf, c);
            if (!p) {
                es_error("out of memory receiving a tile result of %d bytes from rank %d", n, src);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            buf = p;
            cap = c;
        }
        MPI_Recv(buf, n, MPI_BYTE, src, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (st.MPI_TAG == TAG_REQ) {
            uint32_t t[3] = {0, 0, 0};
            int r = srv->claim(srv->ud, t);
            uint32_t msg[4] = {r == 0, t[0], t[1], t[2]};
            if (r == 0 && given) given[src]++;
            MPI_Send(msg, 4, MPI_UINT32_T, src, TAG_TILE, MPI_COMM_WORLD);
        } else if (st.MPI_TAG == TAG_RES) {
            int r = srv->result(srv->ud, src, buf, (size_t)n);
            if (r && !ret) ret = r;
        } else if (st.MPI_TAG == TAG_DONE) {
            buf[n] = 0;
            int32_t err = 0;
            if (n >= 4) memcpy(&err, buf, 4);
            if (err) srv->failed(srv->ud, src, n > 4 ? (const char *)buf + 4 : "an error");
            active--;
        }
    }
    for (int r = 1; given && r < g_size; r++) {
        es_info("rank %d computed %llu tiles", r, (unsigned long long)given[r]);
        srv->given += given[r];
    }
    free(given);
    free(buf);
    return ret;
}

int es_mpi_request(uint32_t tile[3])
{
    int one = 1;
    uint32_t msg[4];
    pthread_mutex_lock(&g_mu);
    MPI_Send(&one, (int)sizeof one, MPI_BYTE, 0, TAG_REQ, MPI_COMM_WORLD);
    MPI_Request rq;
    MPI_Irecv(msg, 4, MPI_UINT32_T, 0, TAG_TILE, MPI_COMM_WORLD, &rq);
    wait_req(&rq);
    pthread_mutex_unlock(&g_mu);
    if (!msg[0]) return -1;
    memcpy(tile, msg + 1, 3 * sizeof *tile);
    return 0;
}

int es_mpi_send_result(const uint8_t *buf, size_t n)
{
    if (n > (size_t)INT_MAX) {
        es_error("a tile's result (%zu bytes) exceeds what one MPI message carries; use a smaller "
                 "--block or --p-threshold", n);
        return ES_ERR_UNSUPPORTED;
    }
    pthread_mutex_lock(&g_mu);
    MPI_Request rq;
    MPI_Isend(buf, (int)n, MPI_BYTE, 0, TAG_RES, MPI_COMM_WORLD, &rq);
    wait_req(&rq);
    pthread_mutex_unlock(&g_mu);
    return ES_OK;
}

int es_mpi_send_done(int err, const char *msg)
{
    size_t len = strlen(msg);
    uint8_t *b = malloc(4 + len + 1);
    if (!b) return ES_ERR_NOMEM;
    int32_t e = err;
    memcpy(b, &e, 4);
    memcpy(b + 4, msg, len + 1);
    pthread_mutex_lock(&g_mu);
    MPI_Send(b, (int)(4 + len + 1), MPI_BYTE, 0, TAG_DONE, MPI_COMM_WORLD);
    pthread_mutex_unlock(&g_mu);
    free(b);
    return ES_OK;
}
