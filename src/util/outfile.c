/* outfile.c -- output files written all or nothing: each is written to
 * PATH.tmp and renamed into place only when the whole run succeeded, so a
 * failed run leaves nothing half-written.  Failures name the file and the
 * cause (errno of the first failed write). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/* ---- interrupted runs ------------------------------------------------------
 * Temporary files being written are registered here so that SIGINT, SIGTERM or
 * SIGHUP removes them before the process dies: an interrupted run leaves
 * nothing behind.  The registry is process-wide by nature (a signal handler has
 * no other way in); only the CLI's main thread opens and closes outputs. */
#define ES_OUT_MAX_PENDING 16
static const char *volatile pending[ES_OUT_MAX_PENDING];

static void on_signal(int sig)
{
    for (int k = 0; k < ES_OUT_MAX_PENDING; k++)
        if (pending[k]) unlink(pending[k]); /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void pending_add(const char *path)
{
    static int installed;
    if (!installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
        installed = 1;
    }
    for (int k = 0; k < ES_OUT_MAX_PENDING; k++)
        if (!pending[k]) {
            pending[k] = path;
            return;
        }
}

static void pending_remove(const char *path)
{
    for (int k = 0; k < ES_OUT_MAX_PENDING; k++)
        if (pending[k] == path) pending[k] = NULL;
}

int es_out_open(es_out_t *o, const char *prefix, const char *suffix)
{
    memset(o, 0, sizeof *o);
    size_t n = strlen(prefix) + strlen(suffix) + 8;
    o->path = malloc(n);
    o->tmp_path = malloc(n);
    if (!o->path || !o->tmp_path) {
        es_out_abort(o);
        return ES_ERR_NOMEM;
    }
    snprintf(o->path, n, "%s%s", prefix, suffix);
    snprintf(o->tmp_path, n, "%s%s.tmp", prefix, suffix);
    /* a run killed with SIGKILL (no handler runs) leaves its .tmp files: say
     * so and write over them */
    if (access(o->tmp_path, F_OK) == 0)
        es_warn("%s: left by an earlier run that did not finish; writing over it", o->tmp_path);
    o->fp = fopen(o->tmp_path, "w");
    if (!o->fp) {
        es_error("%s: cannot create: %s", o->tmp_path, strerror(errno));
        es_out_abort(o);
        return ES_ERR_IO;
    }
    /* large buffer: the significant-pair file can be big */
    setvbuf(o->fp, NULL, _IOFBF, 1 << 20);
    pending_add(o->tmp_path);
    return ES_OK;
}

int es_out_failed(es_out_t *o)
{
    if (!o->fp || !ferror(o->fp)) return 0;
    if (!o->werrno) {
        o->werrno = errno ? errno : EIO;
        es_error("%s: write failed: %s", o->tmp_path, strerror(o->werrno));
    }
    return 1;
}

int es_out_commit(es_out_t *o)
{
    int ret = ES_OK;
    if (!o->fp) return ES_OK;
    /* the first failure's errno names the cause (ENOSPC: "No space left on
     * device"); a later fclose() would report something else or nothing */
    if (!es_out_failed(o) && fflush(o->fp) != 0) {
        o->werrno = errno ? errno : EIO;
        es_error("%s: write failed: %s", o->tmp_path, strerror(o->werrno));
    }
    if (fclose(o->fp) != 0 && !o->werrno) {
        o->werrno = errno ? errno : EIO;
        es_error("%s: write failed: %s", o->tmp_path, strerror(o->werrno));
    }
    if (o->werrno) {
        ret = ES_ERR_IO;
    } else if (rename(o->tmp_path, o->path) != 0) {
        es_error("%s: cannot rename to %s: %s", o->tmp_path, o->path, strerror(errno));
        ret = ES_ERR_IO;
    }
    o->fp = NULL;
    pending_remove(o->tmp_path);
    if (ret) unlink(o->tmp_path);
    else o->committed = 1;
    return ret;
}

void es_out_abort(es_out_t *o)
{
    if (o->fp) {
        fclose(o->fp);
        o->fp = NULL;
        unlink(o->tmp_path);
    } else if (o->committed) {
        unlink(o->path); /* a later file failed: take this one back too */
    }
    es_out_close(o);
}

void es_out_close(es_out_t *o)
{
    if (o->tmp_path) pending_remove(o->tmp_path);
    if (o->fp) fclose(o->fp);
    free(o->path);
    free(o->tmp_path);
    memset(o, 0, sizeof *o);
}
