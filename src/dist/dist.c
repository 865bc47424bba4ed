/* dist.c -- checkpoints and resume, shards and their merge, MPI ranks: the
 * scan's state written down, read back, merged, or built from tiles computed
 * elsewhere (dist.h says why that gives the bytes of one uninterrupted run).
 *
 * The state file: "EPSTATE1", u32 version, u32 order, u64 data and option
 * fingerprints (2 each), u32 shard i and n, u32 m, block, seed chunk, blocks,
 * u64 tiles, the scan's command line (u32 argc, strings); then the tiles'
 * done bytes, u64 pairs (triples) done, u64 records in the side file, u32 the
 * next row panel to write, the m summaries, (2-way) u64 per-block counts, the
 * top-k (u64 n, records), the unwritten row panels (u64 tiles done, u64 n,
 * records); last, u64 FNV-1a of everything before it. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dist_internal.h"

#define STATE_MAGIC "EPSTATE1"
#define STATE_VERSION 2u

struct es_dist {
    int order;
    es_scan_t *s;
    es_scan_ctx_t *c2;
    es_scan3_ctx_t *c3;
    uint64_t data_fp[2], opt_fp[2];
    uint32_t m, block, seed_chunk, n_blocks, n_rows;
    uint64_t n_tiles;
    uint8_t *skip, *mark;
    /* checkpoint (rank 0) */
    char *ckpt, *side;
    FILE *side_fp;
    uint64_t side_count;
    double every, last;
    unsigned n_written;
    /* the scan's own callbacks, behind ours */
    es_sig_cb ucb;
    void *uud;
    es_sig3_cb ucb3;
    void *uud3;
    /* MPI */
    int mpi, worker;
    atomic_int local_done; /* rank 0: its own backend has returned */
    es_worker_t rw;   /* rank 0: a finished remote tile, 2-way */
    es_worker3_t rw3; /* 3-way */
    int rw_ok;
};

static char *cat(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 1;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s%s", a, b);
    return s;
}

static const es_opt_t *dopt(const es_dist_t *d) { return &d->s->opt; }

/* ---- fingerprints --------------------------------------------------------------- */

typedef struct {
    uint64_t h[2];
} fp_t;

static void fp_add(fp_t *f, const void *p, size_t n)
{
    f->h[0] = es_fnv(f->h[0], p, n);
    f->h[1] = es_fnv(f->h[1], p, n);
}

static void fp_str(fp_t *f, const char *s) { fp_add(f, s ? s : "", (s ? strlen(s) : 0) + 1); }

static void fp_u64(fp_t *f, uint64_t v) { fp_add(f, &v, sizeof v); }

/* The data: the variants, the samples and their classes (a quantitative
 * trait: their values), the .bed's size,
 * and every variant's genotype counts per class (from the packed blocks). */
static void fingerprint(es_dist_t *d, const es_planes_t *blocks, uint32_t n_planes)
{
    const es_scan_t *s = d->s;
    const es_dataset_t *ds = s->ds;
    fp_t f = {{ES_FNV_INIT, ES_FNV_INIT ^ 0x5bd1e9955bd1e995ull}};
    fp_u64(&f, d->m);
    for (uint32_t v = 0; v < d->m; v++) {
        es_variant_info_t vi = es_dataset_variant(ds, v);
        fp_str(&f, vi.chr);
        fp_str(&f, vi.id);
        fp_u64(&f, (uint64_t)vi.pos);
        fp_str(&f, vi.a1);
        fp_str(&f, vi.a2);
    }
    uint32_t ns = es_dataset_n_samples_total(ds);
    fp_u64(&f, ns);
    fp_u64(&f, ds->n_case);
    fp_u64(&f, ds->n_ctrl);
    for (uint32_t q = 0; q < ns; q++) {
        fp_add(&f, &ds->status[q], 1);
        if (ds->status[q] < 0) continue;
        const char *fid, *iid;
        es_dataset_sample(ds, q, &fid, &iid);
        fp_str(&f, fid);
        fp_str(&f, iid);
        if (ds->qt) fp_add(&f, &ds->qt_y[q], sizeof ds->qt_y[q]); /* a quantitative trait's value */
    }
    fp_u64(&f, ds->plink->bed_size);
    fp_u64(&f, n_planes);
    for (uint32_t b = 0; b < d->n_blocks; b++)
        fp_add(&f, blocks[b].gcount, (size_t)blocks[b].count * sizeof *blocks[b].gcount);
    d->data_fp[0] = f.h[0];
    d->data_fp[1] = f.h[1];
    /* the options that change results */
    const es_opt_t *o = dopt(d);
    fp_t g = {{ES_FNV_INIT, ES_FNV_INIT ^ 0x5bd1e9955bd1e995ull}};
    fp_u64(&g, (uint64_t)d->order);
    fp_u64(&g, (uint64_t)o->stat);
    fp_u64(&g, o->top_k);
    double pt = o->p_threshold < 0 ? -1.0 : o->p_threshold;
    fp_add(&g, &pt, sizeof pt);
    fp_u64(&g, o->pairs_top);
    fp_u64(&g, s->n_seeds);
    if (s->n_seeds) fp_add(&g, s->seeds, 2 * s->n_seeds * sizeof *s->seeds);
    d->opt_fp[0] = g.h[0];
    d->opt_fp[1] = g.h[1];
}

/* ---- state files ---------------------------------------------------------------- */

static void put_header(es_dist_t *d, es_wb_t *b)
{
    const es_opt_t *o = dopt(d);
    es_wb_bytes(b, STATE_MAGIC, 8);
    es_wb_u32(b, STATE_VERSION);
    es_wb_u32(b, (uint32_t)d->order);
    for (int k = 0; k < 2; k++) es_wb_u64(b, d->data_fp[k]);
    for (int k = 0; k < 2; k++) es_wb_u64(b, d->opt_fp[k]);
    es_wb_u32(b, o->shard_i);
    es_wb_u32(b, o->shard_n);
    es_wb_u32(b, d->m);
    es_wb_u32(b, d->block);
    es_wb_u32(b, d->seed_chunk);
    es_wb_u32(b, d->n_blocks);
    es_wb_u64(b, d->n_tiles);
    es_wb_u32(b, (uint32_t)(o->cmd_argv ? o->cmd_argc : 0));
    for (int k = 0; o->cmd_argv && k < o->cmd_argc; k++) es_wb_str(b, o->cmd_argv[k]);
    /* the seed pairs (a --pairs-top scan's come from a 2-way scan that a
     * resume or a merge need not run again) */
    es_wb_u64(b, d->s->n_seeds);
    for (size_t k = 0; k < 2 * d->s->n_seeds; k++) es_wb_u32(b, d->s->seeds[k]);
}

/* The whole state (the scan's lock held, or no worker running). */
static void put_state(es_dist_t *d, es_wb_t *b)
{
    put_header(d, b);
    es_wb_bytes(b, d->mark, d->n_tiles);
    if (d->order == 2) {
        es_scan_ctx_t *c = d->c2;
        es_wb_u64(b, c->pairs_done);
        es_wb_u64(b, d->side_count);
        es_wb_u32(b, c->next_row);
        for (uint32_t v = 0; v < d->m; v++) es_wb_summary(b, &c->summary[v]);
        for (uint32_t k = 0; k < d->n_blocks; k++) es_wb_u64(b, c->blk_ntot[k]);
        es_wb_u64(b, c->top->n);
        for (size_t k = 0; k < c->top->n; k++) es_wb_pair(b, &c->top->heap[k]);
        for (uint32_t r = c->next_row; r < d->n_rows; r++) {
            es_wb_u64(b, c->rows[r].tiles_done);
            es_wb_u64(b, c->rows[r].n);
            for (size_t k = 0; k < c->rows[r].n; k++) es_wb_pair(b, &c->rows[r].pairs[k]);
        }
    } else {
        es_scan3_ctx_t *c = d->c3;
        es_wb_u64(b, c->done);
        es_wb_u64(b, d->side_count);
        es_wb_u32(b, c->next_row);
        for (uint32_t v = 0; v < d->m; v++) es_wb_sum3(b, &c->sum[v]);
        es_wb_u64(b, c->top->n);
        for (size_t k = 0; k < c->top->n; k++) es_wb_triple(b, &c->top->heap[k]);
        for (uint32_t r = c->next_row; r < d->n_rows; r++) {
            es_wb_u64(b, c->rows[r].tiles_done);
            es_wb_u64(b, c->rows[r].n);
            for (size_t k = 0; k < c->rows[r].n; k++) es_wb_triple(b, &c->rows[r].t[k]);
        }
    }
    es_wb_u64(b, es_fnv(ES_FNV_INIT, b->p, b->n));
}

/* A test hook: EPISTREAM_TEST_KILL_CHECKPOINT=N kills the process (SIGKILL)
 * half-way through writing its N-th checkpoint, as a node failing would. */
static int kill_at(unsigned n)
{
    const char *e = getenv("EPISTREAM_TEST_KILL_CHECKPOINT");
    return e && (unsigned)strtoul(e, NULL, 10) == n;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Write the state to path atomically: path.tmp, fsync, rename, fsync the
 * directory.  The side file is flushed to disk first: the state counts its
 * records.  @return ES_OK or ES_ERR_IO (logged). */
static int state_write(es_dist_t *d, const char *path)
{
    if (d->side_fp && (fflush(d->side_fp) || fsync(fileno(d->side_fp)))) {
        es_error("%s: cannot write: %s", d->side, strerror(errno));
        return ES_ERR_IO;
    }
    es_wb_t b = {0};
    put_state(d, &b);
    if (b.err) {
        es_wb_free(&b);
        es_error("%s: out of memory writing the scan's state", path);
        return ES_ERR_NOMEM;
    }
    char *tmp = cat(path, ".tmp");
    int ret = ES_ERR_IO, fd = -1;
    if (!tmp) goto out;
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) goto fail;
    d->n_written++;
    if (kill_at(d->n_written)) {
        (void)write_all(fd, b.p, b.n / 2);
        raise(SIGKILL);
    }
    if (write_all(fd, b.p, b.n) || fsync(fd)) goto fail;
    if (close(fd)) {
        fd = -1;
        goto fail;
    }
    fd = -1;
    if (rename(tmp, path)) goto fail;
    /* the rename itself reaches the disk with its directory */
    char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
    if (dir) {
        int dfd = open(dir, O_RDONLY | O_CLOEXEC);
        if (dfd >= 0) {
            (void)fsync(dfd);
            close(dfd);
        }
        free(dir);
    }
    ret = ES_OK;
    goto out;
fail:
    es_error("%s: cannot write the scan's state: %s", tmp, strerror(errno));
    if (fd >= 0) close(fd);
    unlink(tmp);
out:
    free(tmp);
    es_wb_free(&b);
    return ret;
}

typedef struct {
    uint32_t order, shard_i, shard_n, m, block, seed_chunk, n_blocks, argc;
    uint64_t data_fp[2], opt_fp[2], n_tiles;
    size_t argv_off, argv_end; /* where the command line's strings are */
    uint64_t n_seeds;
    size_t seeds_off; /* where the seed pairs are (2 u32 each) */
} hdr_t;

/* Read a state file whole and check its magic, version and checksum.
 * @return ES_OK, ES_ERR_IO (cannot read), ES_ERR_FORMAT (logged). */
static int state_read(const char *path, uint8_t **buf, size_t *len)
{
    *buf = NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        es_error("%s: cannot open: %s", path, strerror(errno));
        return ES_ERR_IO;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *p = malloc(cap);
    while (p) {
        size_t got = fread(p + n, 1, cap - n, fp);
        n += got;
        if (n < cap) break;
        uint8_t *q = realloc(p, cap * 2);
        if (!q) {
            free(p);
            p = NULL;
            break;
        }
        p = q;
        cap *= 2;
    }
    int rerr = ferror(fp);
    fclose(fp);
    if (!p) return ES_ERR_NOMEM;
    if (rerr) {
        free(p);
        es_error("%s: read error", path);
        return ES_ERR_IO;
    }
    if (n < 8 + 4 + 8 || memcmp(p, STATE_MAGIC, 8)) {
        free(p);
        es_error("%s: not an epistream state file (checkpoint or shard)", path);
        return ES_ERR_FORMAT;
    }
    es_rb_t r = {p, n, n - 8, 0};
    if (es_rb_u64(&r) != es_fnv(ES_FNV_INIT, p, n - 8)) {
        free(p);
        es_error("%s: damaged (its checksum does not match: cut short or altered)", path);
        return ES_ERR_FORMAT;
    }
    *buf = p;
    *len = n - 8;
    return ES_OK;
}

static int get_header(es_rb_t *r, hdr_t *h, const char *path)
{
    char magic[8];
    es_rb_bytes(r, magic, 8);
    uint32_t version = es_rb_u32(r);
    if (version != STATE_VERSION) {
        es_error("%s: state file version %u; this epistream reads version %u", path, version, STATE_VERSION);
        return ES_ERR_FORMAT;
    }
    h->order = es_rb_u32(r);
    for (int k = 0; k < 2; k++) h->data_fp[k] = es_rb_u64(r);
    for (int k = 0; k < 2; k++) h->opt_fp[k] = es_rb_u64(r);
    h->shard_i = es_rb_u32(r);
    h->shard_n = es_rb_u32(r);
    h->m = es_rb_u32(r);
    h->block = es_rb_u32(r);
    h->seed_chunk = es_rb_u32(r);
    h->n_blocks = es_rb_u32(r);
    h->n_tiles = es_rb_u64(r);
    h->argc = es_rb_u32(r);
    h->argv_off = r->off;
    for (uint32_t k = 0; k < h->argc && !r->bad; k++) (void)es_rb_str(r);
    h->argv_end = r->off;
    h->n_seeds = es_rb_u64(r);
    h->seeds_off = r->off;
    if (!r->bad && h->n_seeds > (r->n - r->off) / 8) r->bad = 1;
    else r->off += (size_t)h->n_seeds * 8;
    if (r->bad) {
        es_error("%s: damaged header", path);
        return ES_ERR_FORMAT;
    }
    return ES_OK;
}

/* Does the file's scan match this one?  Each mismatch has its message. */
static int check_header(const es_dist_t *d, const hdr_t *h, const char *path, const char *what)
{
    if (h->data_fp[0] != d->data_fp[0] || h->data_fp[1] != d->data_fp[1] || h->m != d->m) {
        es_error("%s: %s of a scan of other data (the variants, samples, phenotypes or genotypes "
                 "differ from this run's)", path, what);
        return ES_ERR_DATA;
    }
    if (h->order != (uint32_t)d->order || h->opt_fp[0] != d->opt_fp[0] || h->opt_fp[1] != d->opt_fp[1]) {
        es_error("%s: %s of a scan with other options (--order, --stat, --top, --p-threshold/--epi1/"
                 "--epi2 or the seed pairs differ from this run's)", path, what);
        return ES_ERR_ARG;
    }
    if (h->block != d->block || h->seed_chunk != d->seed_chunk || h->n_tiles != d->n_tiles) {
        es_error("%s: %s cut into tiles of %u variants (seed chunks of %u) where this run's are %u (%u): "
                 "give the same --block", path, what, h->block, h->seed_chunk, d->block, d->seed_chunk);
        return ES_ERR_ARG;
    }
    return ES_OK;
}

/* Merge a state's body into the scan (the reader after the header).
 * resume: the rows not yet written and the next row come back too.
 * *side: the records of its side file.  @return ES_OK or ES_ERR_FORMAT. */
static int merge_body(es_dist_t *d, es_rb_t *r, const char *path, int resume, uint64_t *side)
{
    const uint8_t *marks = r->p + r->off;
    if (d->n_tiles > r->n - r->off) goto bad;
    for (uint64_t t = 0; t < d->n_tiles; t++) {
        if (!marks[t]) continue;
        if (d->mark[t]) {
            es_error("%s: holds tiles that another shard given holds too (a shard given twice?)", path);
            return ES_ERR_DATA;
        }
        d->mark[t] = 1;
    }
    r->off += d->n_tiles;
    int hib = es_stat_higher_is_better(dopt(d)->stat);
    if (d->order == 2) {
        es_scan_ctx_t *c = d->c2;
        c->pairs_done += es_rb_u64(r);
        *side = es_rb_u64(r);
        uint32_t next_row = es_rb_u32(r);
        if (r->bad || next_row > d->n_rows) goto bad;
        for (uint32_t v = 0; v < d->m; v++) {
            es_summary_t s;
            es_rb_summary(r, &s);
            es_summary_merge(&c->summary[v], &s, hib);
        }
        for (uint32_t k = 0; k < d->n_blocks; k++) c->blk_ntot[k] += es_rb_u64(r);
        uint64_t nt = es_rb_u64(r);
        if (r->bad || nt > c->top->k) goto bad;
        for (uint64_t k = 0; k < nt; k++) {
            es_pair_t p;
            es_rb_pair(r, &p);
            es_topk_push(c->top, &p);
        }
        for (uint32_t row = next_row; row < d->n_rows; row++) {
            uint64_t td = es_rb_u64(r), n = es_rb_u64(r);
            if (r->bad || n > (r->n - r->off) / ES_SIG_REC2) goto bad;
            es_row_pending_t *rp = &c->rows[row];
            rp->tiles_done += (uint32_t)td;
            if (n && !resume) goto bad; /* a finished shard has written every row */
            if (n) {
                es_pair_t *np = realloc(rp->pairs, (rp->n + n) * sizeof *np);
                if (!np) return ES_ERR_NOMEM;
                rp->pairs = np;
                rp->cap = rp->n + n;
                for (uint64_t k = 0; k < n; k++) es_rb_pair(r, &rp->pairs[rp->n++]);
            }
        }
        if (resume) c->next_row = next_row;
    } else {
        es_scan3_ctx_t *c = d->c3;
        c->done += es_rb_u64(r);
        *side = es_rb_u64(r);
        uint32_t next_row = es_rb_u32(r);
        if (r->bad || next_row > d->n_rows) goto bad;
        for (uint32_t v = 0; v < d->m; v++) {
            es_sum3_t s;
            es_rb_sum3(r, &s);
            if (s.n_tot) es_sum3_merge(&c->sum[v], &s, hib);
        }
        uint64_t nt = es_rb_u64(r);
        if (r->bad || nt > c->top->k) goto bad;
        for (uint64_t k = 0; k < nt; k++) {
            es_triple_t t;
            es_rb_triple(r, &t);
            es_topk3_push(c->top, &t);
        }
        for (uint32_t row = next_row; row < d->n_rows; row++) {
            uint64_t td = es_rb_u64(r), n = es_rb_u64(r);
            if (r->bad || n > (r->n - r->off) / ES_SIG_REC3) goto bad;
            es_row3_t *rp = &c->rows[row];
            rp->tiles_done += td;
            if (n && !resume) goto bad;
            if (n) {
                es_triple_t *np = realloc(rp->t, (rp->n + n) * sizeof *np);
                if (!np) return ES_ERR_NOMEM;
                rp->t = np;
                rp->cap = rp->n + n;
                for (uint64_t k = 0; k < n; k++) es_rb_triple(r, &rp->t[rp->n++]);
            }
        }
        if (resume) c->next_row = next_row;
    }
    if (r->bad || r->off != r->n) goto bad;
    return ES_OK;
bad:
    es_error("%s: damaged or inconsistent state (its parts do not fit this scan)", path);
    return ES_ERR_FORMAT;
}

/* ---- side files of significant pairs ------------------------------------------- */

static size_t rec_size(const es_dist_t *d) { return d->order == 2 ? ES_SIG_REC2 : ES_SIG_REC3; }

static int side_put(es_dist_t *d, const void *rec, int three)
{
    es_wb_t b = {0};
    uint8_t mem[ES_SIG_REC_MAX];
    b.p = mem;
    b.cap = sizeof mem;
    if (three) es_wb_triple(&b, rec);
    else es_wb_pair(&b, rec);
    if (fwrite(mem, 1, b.n, d->side_fp) != b.n) {
        es_error("%s: cannot write: %s", d->side, strerror(errno));
        return -1;
    }
    d->side_count++;
    return 0;
}

static int side_cb2(const es_pair_t *p, void *ud)
{
    es_dist_t *d = ud;
    if (side_put(d, p, 0)) return -1;
    return d->ucb ? d->ucb(p, d->uud) : 0;
}

static int side_cb3(const es_triple_t *t, void *ud)
{
    es_dist_t *d = ud;
    if (side_put(d, t, 1)) return -1;
    return d->ucb3 ? d->ucb3(t, d->uud3) : 0;
}

/* A reader of one side file's first `count` records. */
typedef struct {
    FILE *fp;
    const char *path;
    uint64_t left;
    uint8_t rec[ES_SIG_REC_MAX];
    es_pair_t p;
    es_triple_t t;
} side_rd_t;

static int side_next(const es_dist_t *d, side_rd_t *s)
{
    if (!s->left) return 0;
    size_t n = rec_size(d);
    if (fread(s->rec, 1, n, s->fp) != n) {
        es_error("%s: shorter than its state says (%s)", s->path,
                 ferror(s->fp) ? strerror(errno) : "cut short");
        return -1;
    }
    s->left--;
    es_rb_t r = {s->rec, n, 0, 0};
    if (d->order == 2) es_rb_pair(&r, &s->p);
    else es_rb_triple(&r, &s->t);
    return 1;
}

/* Is a's current record before b's in (i, j[, k]) order? */
static int side_before(const es_dist_t *d, const side_rd_t *a, const side_rd_t *b)
{
    if (d->order == 2) {
        if (a->p.i != b->p.i) return a->p.i < b->p.i;
        return a->p.j < b->p.j;
    }
    if (a->t.i != b->t.i) return a->t.i < b->t.i;
    if (a->t.j != b->t.j) return a->t.j < b->t.j;
    return a->t.k < b->t.k;
}

/* Write the records of n side files again through the scan's callbacks, in
 * (i, j[, k]) order (each file is in that order; a merge interleaves them:
 * a heap of the readers).  @return ES_OK or an error (logged). */
static int side_replay(es_dist_t *d, side_rd_t *rd, size_t n)
{
    size_t *heap = malloc((n ? n : 1) * sizeof *heap), h = 0;
    if (!heap) return ES_ERR_NOMEM;
    int ret = ES_OK;
    for (size_t q = 0; q < n; q++) {
        int g = side_next(d, &rd[q]);
        if (g < 0) {
            ret = ES_ERR_FORMAT;
            goto out;
        }
        if (!g) continue;
        size_t i = h++;
        while (i && side_before(d, &rd[q], &rd[heap[(i - 1) / 2]])) {
            heap[i] = heap[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        heap[i] = q;
    }
    while (h) {
        side_rd_t *top = &rd[heap[0]];
        int stop = d->order == 2 ? (d->ucb && d->ucb(&top->p, d->uud))
                                 : (d->ucb3 && d->ucb3(&top->t, d->uud3));
        if (stop) {
            ret = ES_ERR_IO;
            goto out;
        }
        int g = side_next(d, top);
        if (g < 0) {
            ret = ES_ERR_FORMAT;
            goto out;
        }
        size_t moving = heap[0];
        if (!g) moving = heap[--h];
        /* sift down from the root */
        size_t i = 0;
        for (;;) {
            size_t l = 2 * i + 1, r = l + 1, w = i;
            const side_rd_t *wr = &rd[moving];
            if (l < h && side_before(d, &rd[heap[l]], wr)) w = l, wr = &rd[heap[l]];
            if (r < h && side_before(d, &rd[heap[r]], wr)) w = r;
            if (w == i) break;
            heap[i] = heap[w];
            i = w;
        }
        if (h) heap[i] = moving;
    }
out:
    free(heap);
    return ret;
}

/* ---- the checkpoint hook (the scan's lock held) ------------------------------- */

static int on_tile(void *ud)
{
    es_dist_t *d = ud;
    if (!d->ckpt) return ES_OK;
    double now = es_time_now();
    if (now - d->last < d->every) return ES_OK;
    int ret = state_write(d, d->ckpt);
    d->last = es_time_now();
    if (!ret) es_info("checkpoint written to %s (%.3f s)", d->ckpt, d->last - now);
    return ret;
}

/* ---- set-up ------------------------------------------------------------------ */

/* Which tiles this run computes: not those done before, not another shard's;
 * and how many tiles each row panel of this run has. */
static void plan_tiles(es_dist_t *d)
{
    const es_opt_t *o = dopt(d);
    for (uint64_t t = 0; t < d->n_tiles; t++)
        d->skip[t] = d->mark[t] || (o->shard_n && t % o->shard_n != o->shard_i) || o->merge;
    if (!o->shard_n) return;
    for (uint32_t r = 0; r < d->n_rows; r++) {
        uint64_t lo, hi;
        if (d->order == 2) {
            lo = d->c2->row_start[r];
            hi = d->c2->row_start[r + 1];
        } else if (d->c3->seeds) {
            lo = 0;
            hi = d->n_tiles;
        } else {
            lo = d->c3->row_start[r];
            hi = d->c3->row_start[r + 1];
        }
        uint64_t need = 0;
        for (uint64_t t = lo; t < hi; t++) need += t % o->shard_n == o->shard_i;
        if (d->order == 2) d->c2->rows[r].need = (uint32_t)need;
        else d->c3->rows[r].need = need;
    }
}

/* Open the side file: fresh, or (resume) cut back to the records the state
 * counts, after writing those again through the scan's callbacks. */
static int side_open(es_dist_t *d, uint64_t keep, int resume)
{
    d->side = cat(d->ckpt, ".sig");
    if (!d->side) return ES_ERR_NOMEM;
    int fd = open(d->side, O_RDWR | O_CREAT | O_CLOEXEC | (resume ? 0 : O_TRUNC), 0666);
    if (fd < 0 || !(d->side_fp = fdopen(fd, "r+b"))) {
        es_error("%s: cannot create: %s", d->side, strerror(errno));
        if (fd >= 0) close(fd);
        return ES_ERR_IO;
    }
    if (resume && keep) {
        side_rd_t rd = {.fp = d->side_fp, .path = d->side, .left = keep};
        int ret = side_replay(d, &rd, 1);
        if (ret) return ret;
    }
    off_t len = (off_t)(keep * rec_size(d));
    if (ftruncate(fd, len) || fseeko(d->side_fp, len, SEEK_SET)) {
        es_error("%s: cannot cut back to the checkpoint's %llu records: %s", d->side,
                 (unsigned long long)keep, strerror(errno));
        return ES_ERR_IO;
    }
    d->side_count = keep;
    return ES_OK;
}

/* --resume: load the checkpoint when there is one.  *keep: its side records. */
static int load_checkpoint(es_dist_t *d, uint64_t *keep)
{
    *keep = 0;
    struct stat st;
    if (stat(d->ckpt, &st)) {
        es_warn("%s: no checkpoint yet; starting from the beginning", d->ckpt);
        return ES_OK;
    }
    uint8_t *buf;
    size_t len;
    int ret = state_read(d->ckpt, &buf, &len);
    if (ret) return ret;
    es_rb_t r = {buf, len, 0, 0};
    hdr_t h;
    const es_opt_t *o = dopt(d);
    ret = get_header(&r, &h, d->ckpt);
    if (!ret) ret = check_header(d, &h, d->ckpt, "a checkpoint");
    if (!ret && (h.shard_i != o->shard_i || h.shard_n != o->shard_n)) {
        es_error("%s: a checkpoint of shard %u/%u, not of this run's %u/%u", d->ckpt, h.shard_i, h.shard_n,
                 o->shard_i, o->shard_n);
        ret = ES_ERR_ARG;
    }
    if (!ret) ret = merge_body(d, &r, d->ckpt, 1, keep);
    free(buf);
    if (!ret) {
        uint64_t done = 0;
        for (uint64_t t = 0; t < d->n_tiles; t++) done += d->mark[t];
        es_info("resuming from %s: %llu of %llu tiles done", d->ckpt, (unsigned long long)done,
                (unsigned long long)d->n_tiles);
    }
    return ret;
}

/* `merge`: every shard of one scan, each complete, merged into the scan. */
static int load_shards(es_dist_t *d, side_rd_t **rd_out, size_t *n_out)
{
    const es_opt_t *o = dopt(d);
    size_t n = 0;
    while (o->merge[n]) n++;
    side_rd_t *rd = calloc(n ? n : 1, sizeof *rd);
    uint8_t *seen = NULL;
    uint32_t shard_n = 0;
    int ret = rd ? ES_OK : ES_ERR_NOMEM;
    *rd_out = rd;
    *n_out = 0;
    for (size_t q = 0; q < n && !ret; q++) {
        const char *path = o->merge[q];
        uint8_t *buf;
        size_t len;
        if ((ret = state_read(path, &buf, &len))) break;
        es_rb_t r = {buf, len, 0, 0};
        hdr_t h;
        ret = get_header(&r, &h, path);
        if (!ret) ret = check_header(d, &h, path, "a shard");
        if (!ret && !h.shard_n) {
            es_error("%s: a checkpoint of a whole scan, not a shard (resume it with --resume)", path);
            ret = ES_ERR_ARG;
        }
        if (!ret && !seen) {
            shard_n = h.shard_n;
            if (!(seen = calloc(shard_n, 1))) ret = ES_ERR_NOMEM;
        }
        if (!ret && h.shard_n != shard_n) {
            es_error("%s: shard %u of %u, where %s is one of %u: shards of different splits", path,
                     h.shard_i + 1, h.shard_n, o->merge[0], shard_n);
            ret = ES_ERR_ARG;
        }
        if (!ret && seen[h.shard_i]) {
            es_error("%s: shard %u of %u is given twice", path, h.shard_i + 1, h.shard_n);
            ret = ES_ERR_ARG;
        }
        uint64_t side = 0;
        if (!ret) {
            seen[h.shard_i] = 1;
            /* complete: it holds every tile of its share */
            const uint8_t *marks = r.p + r.off;
            uint64_t want = 0, have = 0;
            for (uint64_t t = 0; t < d->n_tiles; t++) {
                int mine = t % h.shard_n == h.shard_i;
                want += (uint64_t)mine;
                have += (uint64_t)(mine && marks[t]);
                if (marks[t] && !mine) ret = ES_ERR_FORMAT;
            }
            if (ret) es_error("%s: holds tiles outside its shard: damaged", path);
            else if (have != want) {
                es_error("%s: shard %u of %u is not finished (%llu of its %llu tiles): run it again "
                         "with --resume", path, h.shard_i + 1, h.shard_n, (unsigned long long)have,
                         (unsigned long long)want);
                ret = ES_ERR_DATA;
            }
        }
        if (!ret) ret = merge_body(d, &r, path, 0, &side);
        free(buf);
        if (ret) break;
        rd[q].path = path; /* its side file is opened below */
        rd[q].left = side;
        *n_out = q + 1;
    }
    for (uint32_t i = 0; !ret && i < shard_n; i++)
        if (!seen[i]) {
            es_error("shard %u of %u is missing (%s of %u given)", i + 1, shard_n,
                     n == 1 ? "one" : "some", shard_n);
            ret = ES_ERR_DATA;
            break;
        }
    free(seen);
    for (size_t q = 0; !ret && q < *n_out; q++) {
        char *side = cat(rd[q].path, ".sig");
        if (!side) {
            ret = ES_ERR_NOMEM;
            break;
        }
        if (rd[q].left || dopt(d)->p_threshold >= 0) {
            rd[q].fp = fopen(side, "rb");
            if (!rd[q].fp) {
                es_error("%s: cannot open (the significant pairs of %s): %s", side, rd[q].path,
                         strerror(errno));
                ret = ES_ERR_IO;
            }
        }
        free(side);
    }
    return ret;
}

static void side_readers_close(side_rd_t *rd, size_t n)
{
    for (size_t q = 0; rd && q < n; q++)
        if (rd[q].fp) fclose(rd[q].fp);
    free(rd);
}

/* ---- MPI: the other ranks' side -------------------------------------------------- */

static int remote_claim2(void *ud, uint32_t *bi, uint32_t *bj)
{
    es_dist_t *d = ud;
    uint32_t t[3];
    if (atomic_load(&d->c2->stop) || es_mpi_request(t)) return -1;
    *bi = t[0];
    *bj = t[1];
    return 0;
}

static int remote_claim3(void *ud, uint32_t *a, uint32_t *b, uint32_t *c)
{
    es_dist_t *d = ud;
    uint32_t t[3];
    if (atomic_load(&d->c3->stop) || es_mpi_request(t)) return -1;
    *a = t[0];
    *b = t[1];
    *c = t[2];
    return 0;
}

static int remote_sink2(void *ud, es_scan_ctx_t *ctx, es_worker_t *w)
{
    (void)ud;
    int err = w->err;
    es_wb_t b = {0};
    es_tile_result_put2(&b, ctx, w);
    int ret = err ? err : b.err ? b.err : es_mpi_send_result(b.p, b.n);
    es_wb_free(&b);
    if (ret) es_ctx_fail(ctx, ret);
    return ret;
}

static int remote_sink3(void *ud, es_scan3_ctx_t *ctx, es_worker3_t *w)
{
    (void)ud;
    int err = w->err;
    es_wb_t b = {0};
    es_tile_result_put3(&b, ctx, w);
    int ret = err ? err : b.err ? b.err : es_mpi_send_result(b.p, b.n);
    es_wb_free(&b);
    if (ret) es_ctx3_fail(ctx, ret);
    return ret;
}

/* ---- MPI: rank 0's side ---------------------------------------------------------- */

static int serve_claim(void *ud, uint32_t t[3])
{
    es_dist_t *d = ud;
    if (d->order == 2) {
        t[2] = 0;
        /* a tile's number means a tile only once rank 0's backend has set
         * the order it hands them out in (the GPU backend picks it after
         * opening its devices): until its first claim, or its return, the
         * other ranks wait (before, a rank's early claims were numbered in
         * one order and later ones in another, so some tiles were scanned
         * twice and others not at all) */
        while (!atomic_load(&d->c2->claims_begun) && !atomic_load(&d->local_done) &&
               !atomic_load(&d->c2->stop)) {
            struct timespec ts = {0, 200000};
            nanosleep(&ts, NULL);
        }
        return es_ctx_claim_tile(d->c2, &t[0], &t[1]);
    }
    return es_ctx3_next_tile(d->c3, &t[0], &t[1], &t[2]);
}

static int serve_result(void *ud, int rank, const uint8_t *buf, size_t n)
{
    es_dist_t *d = ud;
    es_rb_t r = {buf, n, 0, 0};
    int ret;
    if (d->order == 2) {
        ret = es_tile_result_get2(&r, d->c2, &d->rw);
        if (!ret) ret = es_ctx_tile_done(d->c2, &d->rw);
        else es_ctx_fail(d->c2, ret);
    } else {
        ret = es_tile_result_get3(&r, d->c3, &d->rw3);
        if (!ret) ret = es_ctx3_tile_done(d->c3, &d->rw3);
        else es_ctx3_fail(d->c3, ret);
    }
    if (ret == ES_ERR_FORMAT) es_error("rank %d sent a malformed tile result", rank);
    return ret;
}

static void serve_failed(void *ud, int rank, const char *msg)
{
    es_dist_t *d = ud;
    es_error("rank %d failed: %s", rank, msg);
    if (d->order == 2) es_ctx_fail(d->c2, ES_ERR_DATA);
    else es_ctx3_fail(d->c3, ES_ERR_DATA);
}

typedef struct {
    es_dist_t *d;
    int ret;
} local_run_t;

static void *local_run(void *arg)
{
    local_run_t *l = arg;
    es_dist_t *d = l->d;
    l->ret = d->order == 2 ? d->s->backend->run(d->c2) : d->s->backend->run3(d->c3);
    atomic_store(&d->local_done, 1);
    return NULL;
}

/* ---- the driver's calls ------------------------------------------------------- */

int es_dist_is_worker(void) { return es_dist_mpi_size() > 1 && es_dist_mpi_rank() != 0; }

int es_dist_geometry(const es_scan_t *s, uint32_t *block, uint32_t *seed_chunk)
{
    const es_opt_t *o = &s->opt;
    int ret = ES_OK;
    int rank0 = es_dist_mpi_rank() == 0 || o->local;
    /* a checkpoint of a run with an automatic tile size: its tiles (the
     * header is checked in full after packing) */
    if (rank0 && o->resume && o->checkpoint && !o->block_variants) {
        FILE *fp = fopen(o->checkpoint, "rb");
        if (fp) {
            uint8_t head[8 + 4 * 2 + 8 * 4 + 4 * 6 + 8];
            if (fread(head, 1, sizeof head, fp) == sizeof head && !memcmp(head, STATE_MAGIC, 8)) {
                es_rb_t r = {head, sizeof head, 8 + 4 * 2 + 8 * 4 + 4 * 3, 0};
                uint32_t b = es_rb_u32(&r), c = es_rb_u32(&r);
                if (b) *block = b;
                if (c) *seed_chunk = c;
            }
            fclose(fp);
        }
    }
    if (!o->local && es_dist_mpi_size() > 1) {
        uint64_t g[2] = {*block, *seed_chunk};
        ret = es_mpi_bcast_u64(g, 2);
        *block = (uint32_t)g[0];
        *seed_chunk = (uint32_t)g[1];
    }
    return ret;
}

static int dist_start(es_dist_t **out, es_scan_t *s, es_scan_ctx_t *c2, es_scan3_ctx_t *c3,
                      const es_planes_t *blocks, uint32_t n_planes, int ret)
{
    const es_opt_t *o = &s->opt;
    *out = NULL;
    int mpi = !o->local && es_dist_mpi_size() > 1;
    if (!mpi && (ret || (!o->checkpoint && !o->merge))) return ret;
    es_dist_t *d = calloc(1, sizeof *d);
    if (!d) return mpi ? es_dist_mpi_agree(ES_ERR_NOMEM) : ES_ERR_NOMEM;
    *out = d;
    d->order = c2 ? 2 : 3;
    d->s = s;
    d->c2 = c2;
    d->c3 = c3;
    d->mpi = mpi;
    d->worker = mpi && es_dist_mpi_rank() != 0;
    d->every = o->checkpoint_every;
    d->last = es_time_now();
    if (c2) {
        d->m = c2->m;
        d->block = c2->block;
        d->n_blocks = c2->n_blocks;
        d->n_tiles = c2->n_tiles;
        d->n_rows = c2->n_blocks;
    } else {
        d->m = c3->m;
        d->block = c3->block;
        d->seed_chunk = c3->seeds ? c3->seed_chunk : 0;
        d->n_blocks = c3->n_blocks;
        d->n_tiles = c3->n_tiles;
        d->n_rows = c3->n_rows;
    }
    if (!ret) {
        d->skip = calloc(d->n_tiles ? d->n_tiles : 1, 1);
        d->mark = calloc(d->n_tiles ? d->n_tiles : 1, 1);
        if (!d->skip || !d->mark) ret = ES_ERR_NOMEM;
    }
    if (!ret) fingerprint(d, blocks, n_planes);
    if (mpi) {
        /* every rank read the same data with the same options: rank 0 checks */
        uint64_t mine[4] = {d->data_fp[0], d->data_fp[1], d->opt_fp[0], d->opt_fp[1]};
        uint64_t *all = NULL;
        if (!d->worker && !(all = malloc((size_t)es_dist_mpi_size() * sizeof mine))) ret = ES_ERR_NOMEM;
        int g = es_dist_mpi_agree(ret);
        if (!g) g = es_mpi_gather_u64(mine, 4, all);
        for (int r = 1; !g && !d->worker && r < es_dist_mpi_size(); r++)
            if (memcmp(all + 4 * r, mine, sizeof mine)) {
                es_error("rank %d read other data or options than rank 0 (every rank must see the same "
                         "files: a shared file system, the same command line)", r);
                g = ES_ERR_DATA;
            }
        free(all);
        ret = es_dist_mpi_agree(g ? g : ret);
        if (ret) return ret;
    }
    if (d->worker) {
        /* tiles come from rank 0 and go back to it; nothing is written here */
        s->prog_cb = NULL;
        if (c2) {
            c2->claim_remote = remote_claim2;
            c2->tile_sink = remote_sink2;
            c2->claim_ud = d;
        } else {
            c3->claim_remote = remote_claim3;
            c3->tile_sink = remote_sink3;
            c3->claim_ud = d;
        }
        return es_dist_mpi_agree(ES_OK); /* rank 0's set-up went well too? */
    }
    if (mpi) {
        if (c2) {
            ret = es_worker_init(&d->rw, c2);
            if (!ret) ret = es_worker_set_sparse(&d->rw, c2);
        } else {
            ret = es_worker3_init(&d->rw3, c3);
        }
        d->rw_ok = !ret;
    }
    d->ucb = s->sig_cb;
    d->uud = s->sig_ud;
    d->ucb3 = s->sig3_cb;
    d->uud3 = s->sig3_ud;
    side_rd_t *rd = NULL;
    size_t n_rd = 0;
    uint64_t keep = 0;
    if (!ret && o->checkpoint) {
        if (!(d->ckpt = strdup(o->checkpoint))) ret = ES_ERR_NOMEM;
        if (!ret && o->resume) ret = load_checkpoint(d, &keep);
        if (!ret && (c2 ? c2->do_sig : c3->do_sig)) ret = side_open(d, keep, o->resume);
        if (!ret && d->side_fp) {
            /* every pair written from now on also goes to the side file */
            if (c2) s->sig_cb = side_cb2, s->sig_ud = d;
            else s->sig3_cb = side_cb3, s->sig3_ud = d;
        }
    } else if (!ret && o->merge) {
        ret = load_shards(d, &rd, &n_rd);
        if (!ret) ret = side_replay(d, rd, n_rd);
        side_readers_close(rd, n_rd);
        if (c2) c2->next_row = d->n_rows;
        else if (!c3->seeds) c3->next_row = d->n_rows;
    }
    if (!ret) {
        plan_tiles(d);
        if (c2) {
            c2->tile_skip = d->skip;
            c2->tile_mark = d->mark;
            c2->on_tile = on_tile;
            c2->on_tile_ud = d;
        } else {
            c3->tile_skip = d->skip;
            c3->tile_mark = d->mark;
            c3->on_tile = on_tile;
            c3->on_tile_ud = d;
        }
    }
    return mpi ? es_dist_mpi_agree(ret) : ret;
}

int es_dist_start2(es_dist_t **out, es_scan_ctx_t *ctx, uint32_t n_planes, int ret)
{
    return dist_start(out, ctx->scan, ctx, NULL, ctx->blocks, n_planes, ret);
}

int es_dist_start3(es_dist_t **out, es_scan3_ctx_t *ctx, uint32_t n_planes, int ret)
{
    return dist_start(out, ctx->scan, NULL, ctx, ctx->blocks, n_planes, ret);
}

static int tiles_left(const es_dist_t *d)
{
    for (uint64_t t = 0; t < d->n_tiles; t++)
        if (!d->skip[t]) return 1;
    return 0;
}

static int dist_run(es_dist_t *d)
{
    es_scan_t *s = d->s;
    if (d->worker) {
        int ret = d->order == 2 ? s->backend->run(d->c2) : s->backend->run3(d->c3);
        if (!ret) ret = d->order == 2 ? d->c2->err : d->c3->err;
        int r2 = es_mpi_send_done(ret, ret ? es_strerror(ret) : "");
        return es_dist_mpi_agree(ret ? ret : r2);
    }
    if (!d->mpi) {
        if (!tiles_left(d)) return ES_OK; /* resumed after the last tile, or a merge */
        return d->order == 2 ? s->backend->run(d->c2) : s->backend->run3(d->c3);
    }
    /* rank 0: its own backend in a thread, the other ranks served here */
    local_run_t l = {d, ES_OK};
    pthread_t th;
    int started = pthread_create(&th, NULL, local_run, &l) == 0;
    if (!started) local_run(&l);
    es_mpi_server_t srv = {.ud = d, .claim = serve_claim, .result = serve_result, .failed = serve_failed};
    uint64_t planned = 0;
    for (uint64_t t = 0; t < d->n_tiles; t++) planned += !d->skip[t];
    int ret = es_mpi_serve(&srv);
    if (started) pthread_join(th, NULL);
    if (!ret && srv.given <= planned)
        es_info("rank 0 computed %llu tiles", (unsigned long long)(planned - srv.given));
    if (!ret) ret = l.ret;
    if (!ret) ret = d->order == 2 ? d->c2->err : d->c3->err;
    return es_dist_mpi_agree(ret);
}

int es_dist_run2(es_dist_t *d, es_scan_ctx_t *ctx)
{
    return d ? dist_run(d) : ctx->scan->backend->run(ctx);
}

int es_dist_run3(es_dist_t *d, es_scan3_ctx_t *ctx)
{
    return d ? dist_run(d) : ctx->scan->backend->run3(ctx);
}

int es_dist_end(es_dist_t *d, int ret)
{
    if (!d) return ret;
    es_scan_t *s = d->s;
    if (!d->worker && (d->ucb || d->ucb3)) {
        s->sig_cb = d->ucb;
        s->sig_ud = d->uud;
        s->sig3_cb = d->ucb3;
        s->sig3_ud = d->uud3;
    }
    /* a shard's result: its final state */
    if (!ret && !d->worker && d->ckpt && s->opt.shard_n) ret = state_write(d, d->ckpt);
    if (d->side_fp && fclose(d->side_fp) && !ret) {
        es_error("%s: cannot write: %s", d->side, strerror(errno));
        ret = ES_ERR_IO;
    }
    if (d->rw_ok) {
        if (d->order == 2) es_worker_free(&d->rw);
        else es_worker3_free(&d->rw3);
    }
    if (d->c2) {
        d->c2->tile_skip = NULL;
        d->c2->tile_mark = NULL;
        d->c2->on_tile = NULL;
        d->c2->claim_remote = NULL;
        d->c2->tile_sink = NULL;
    } else {
        d->c3->tile_skip = NULL;
        d->c3->tile_mark = NULL;
        d->c3->on_tile = NULL;
        d->c3->claim_remote = NULL;
        d->c3->tile_sink = NULL;
    }
    free(d->skip);
    free(d->mark);
    free(d->ckpt);
    free(d->side);
    free(d);
    return ret;
}

void es_dist_remove_checkpoint(const char *path)
{
    char *side = cat(path, ".sig"), *tmp = cat(path, ".tmp");
    unlink(path);
    if (side) unlink(side);
    if (tmp) unlink(tmp);
    free(side);
    free(tmp);
}

int es_dist_state_argv(const char *path, int *argc, char ***argv)
{
    uint8_t *buf;
    size_t len;
    *argv = NULL;
    *argc = 0;
    int ret = state_read(path, &buf, &len);
    if (ret) return ret;
    es_rb_t r = {buf, len, 0, 0};
    hdr_t h;
    ret = get_header(&r, &h, path);
    if (!ret && !h.shard_n) {
        es_error("%s: a checkpoint of a whole scan, not a shard (resume it with scan --resume)", path);
        ret = ES_ERR_ARG;
    }
    if (!ret && !h.argc) {
        es_error("%s: holds no command line to merge with", path);
        ret = ES_ERR_FORMAT;
    }
    if (!ret) {
        /* the pointers, then the strings copied after them: one allocation */
        size_t n = h.argv_end - h.argv_off;
        char **v = malloc((h.argc + 1) * sizeof *v + n);
        if (!v) ret = ES_ERR_NOMEM;
        else {
            char *chars = (char *)(v + h.argc + 1);
            memcpy(chars, buf + h.argv_off, n);
            es_rb_t t = {(const uint8_t *)chars, n, 0, 0};
            for (uint32_t k = 0; k < h.argc; k++) v[k] = (char *)es_rb_str(&t);
            v[h.argc] = NULL;
            *argv = v;
            *argc = (int)h.argc;
        }
    }
    free(buf);
    return ret;
}

int es_dist_state_seeds(const char *path, uint32_t **pairs, size_t *n_pairs)
{
    uint8_t *buf;
    size_t len;
    *pairs = NULL;
    *n_pairs = 0;
    int ret = state_read(path, &buf, &len);
    if (ret) return ret;
    es_rb_t r = {buf, len, 0, 0};
    hdr_t h;
    ret = get_header(&r, &h, path);
    if (!ret) {
        uint32_t *p = malloc((h.n_seeds ? h.n_seeds : 1) * 2 * sizeof *p);
        if (!p) ret = ES_ERR_NOMEM;
        else {
            es_rb_t q = {buf, len, h.seeds_off, 0};
            for (uint64_t k = 0; k < 2 * h.n_seeds; k++) p[k] = es_rb_u32(&q);
            *pairs = p;
            *n_pairs = (size_t)h.n_seeds;
        }
    }
    free(buf);
    return ret;
}

int es_dist_bcast_seeds(uint32_t **pairs, size_t *n_pairs)
{
    if (es_dist_mpi_size() < 2) return ES_OK;
    uint64_t n = *n_pairs;
    int ret = es_mpi_bcast_u64(&n, 1);
    if (ret) return ret;
    uint64_t *w = malloc((n ? n : 1) * sizeof *w);
    if (!w) return ES_ERR_NOMEM; /* every rank allocates the same: all fail alike */
    if (es_dist_mpi_rank() == 0)
        for (uint64_t k = 0; k < n; k++) w[k] = (uint64_t)(*pairs)[2 * k] << 32 | (*pairs)[2 * k + 1];
    ret = es_mpi_bcast_u64(w, (int)n);
    if (!ret && es_dist_mpi_rank() != 0) {
        uint32_t *p = malloc((n ? n : 1) * 2 * sizeof *p);
        if (!p) ret = ES_ERR_NOMEM;
        else {
            for (uint64_t k = 0; k < n; k++) {
                p[2 * k] = (uint32_t)(w[k] >> 32);
                p[2 * k + 1] = (uint32_t)w[k];
            }
            free(*pairs);
            *pairs = p;
            *n_pairs = (size_t)n;
        }
    }
    free(w);
    return ret;
}
