/* outfile.c -- output files written all or nothing: each is written to
 * PATH.tmp; when the whole run succeeded every one of them is flushed to disk
 * (fsync) and closed, and only then are they renamed into place, so a failure
 * (a full disk included) leaves the previous run's files as they were.
 * Failures name the file and the cause (errno of the first failed write). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* PREFIX SUFFIX [.tmp] in a new string (NULL: out of memory). */
static char *join(const char *prefix, const char *suffix, const char *tail)
{
    size_t n = strlen(prefix) + strlen(suffix) + strlen(tail) + 1;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s%s%s", prefix, suffix, tail);
    return s;
}

/* Remove path if it is a regular file (never a directory or what a link
 * points to); @return 1 if removed. */
static int remove_file(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) &&
           unlink(path) == 0;
}

void es_out_clear_tmp(const char *prefix, const char *const *suffix, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        char *t = join(prefix, suffix[k], ".tmp");
        /* a run killed with SIGKILL (no handler runs) leaves its .tmp files */
        if (t && remove_file(t)) es_warn("%s: removed, left by an earlier run that did not finish", t);
        free(t);
    }
}

void es_out_clear_stale(const char *prefix, const char *const *suffix, size_t n,
                        es_out_t *const *o, size_t n_o)
{
    for (size_t k = 0; k < n; k++) {
        char *t = join(prefix, suffix[k], "");
        int ours = 0;
        for (size_t i = 0; t && i < n_o; i++) ours |= o[i]->path && !strcmp(o[i]->path, t);
        if (t && !ours && remove_file(t))
            es_warn("%s: removed, an earlier run's output that this run does not write (it "
                    "would not match this run's results)", t);
        free(t);
    }
}

int es_out_open(es_out_t *o, const char *prefix, const char *suffix)
{
    memset(o, 0, sizeof *o);
    o->path = join(prefix, suffix, "");
    o->tmp_path = join(prefix, suffix, ".tmp");
    if (!o->path || !o->tmp_path) {
        es_out_abort(o);
        return ES_ERR_NOMEM;
    }
    /* a .tmp left by a killed run (es_out_clear_tmp() says so) is replaced:
     * removed, then created anew (O_EXCL: never written through a link) */
    remove_file(o->tmp_path);
    /* registered first: a signal between creating and registering would
     * leave the file */
    pending_add(o->tmp_path);
    int fd = open(o->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 || !(o->fp = fdopen(fd, "w"))) {
        es_error("%s: cannot create: %s", o->tmp_path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(o->tmp_path);
        }
        es_out_abort(o);
        return ES_ERR_IO;
    }
    /* large buffer: the significant-pair file can be big */
    setvbuf(o->fp, NULL, _IOFBF, 1 << 20);
    return ES_OK;
}

/* Record the first failure of o (its errno names the cause: ENOSPC is "No
 * space left on device") and report it once, naming the file being written. */
static void out_fail(es_out_t *o, int err)
{
    if (o->werrno) return;
    o->werrno = err ? err : EIO;
    es_log(ES_LOG_ERROR, "es_out", "%s: write failed: %s", o->path, strerror(o->werrno));
}

int es_out_failed(es_out_t *o)
{
    if (o->werrno) return 1;
    if (!o->fp || !ferror(o->fp)) return 0;
    out_fail(o, errno);
    return 1;
}

/* Flush o to disk and close it, keeping its .tmp name.  @return ES_OK or
 * ES_ERR_IO (reported once). */
static int out_finish(es_out_t *o)
{
    if (!o->fp) return o->werrno ? ES_ERR_IO : ES_OK;
    if (!es_out_failed(o) && fflush(o->fp) != 0) out_fail(o, errno);
    if (!o->werrno && fsync(fileno(o->fp)) != 0 && errno != EINVAL && errno != EROFS)
        out_fail(o, errno); /* EINVAL/EROFS: a file system without fsync (nothing to wait for) */
    if (fclose(o->fp) != 0) out_fail(o, errno);
    o->fp = NULL;
    return o->werrno ? ES_ERR_IO : ES_OK;
}

/* fsync the directory holding path, so the renames into it are on disk too
 * (best effort: some file systems refuse a directory fsync). */
static void sync_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
    if (!dir) return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

int es_out_commit_all(es_out_t *const *o, size_t n)
{
    /* every file complete and on disk before any replaces its predecessor;
     * the first failure ends it (the caller aborts the rest) */
    for (size_t k = 0; k < n; k++)
        if (out_finish(o[k]) != ES_OK) return ES_ERR_IO;
    const char *last = NULL;
    for (size_t k = 0; k < n; k++) {
        if (!o[k]->tmp_path || o[k]->committed) continue;
        if (rename(o[k]->tmp_path, o[k]->path) != 0) {
            /* unlikely (the files are complete and in the same directory as
             * their names); the ones already renamed hold this run's results */
            es_error("%s: cannot rename to %s: %s", o[k]->tmp_path, o[k]->path, strerror(errno));
            return ES_ERR_IO;
        }
        pending_remove(o[k]->tmp_path);
        o[k]->committed = 1;
        last = o[k]->path;
    }
    if (last) sync_dir(last);
    return ES_OK;
}

void es_out_abort(es_out_t *o)
{
    if (o->fp) {
        fclose(o->fp);
        o->fp = NULL;
    }
    /* the .tmp only: a file renamed into place is complete, and its
     * predecessor is gone already */
    if (o->tmp_path && !o->committed) unlink(o->tmp_path);
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
