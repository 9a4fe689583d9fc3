/* aio.c -- the asynchronous IO queue over libaio (stn_gridio.h): requests of whole padded rows between
 * grid files (gridio.c) and memory, in groups a caller waits for, the queue kept busy by polling. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "io/stn_gridio.h"

#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <unistd.h>

typedef struct aio_req {
    struct iocb cb;
    stn_gridfile *f;
    stn_aio_group *g;
    stn_stats *st;
    char *buf;    /* start of the whole transfer */
    uint64_t off; /* its file offset */
    size_t len;   /* its length */
    size_t done;  /* bytes moved so far (short transfers resubmit the rest) */
    size_t
        piece; /* gathered (a chunked file's run): memory is pieces of `piece` bytes `plane` apart; 0: not */
    size_t plane;
    int write;
} aio_req;

/* What is left of one stn_aio_read/write call not yet cut into requests: its spans (one per
 * plane, or one for all), each cut into pieces of at most max_request bytes as slots free up. */
typedef struct aio_job {
    stn_gridfile *f;
    stn_aio_group *g;
    stn_stats *st;
    char *buf;        /* span 0 in memory */
    size_t plane;     /* bytes from one span to the next in memory */
    uint64_t off;     /* span 0 in the file */
    uint64_t stride;  /* bytes from one span to the next in the file */
    uint64_t span;    /* bytes per span */
    uint64_t nspans;  /* spans */
    uint64_t s, done; /* the next piece: span s, from byte `done` of it */
    size_t piece;     /* one span of a chunked file gathered from memory pieces `plane` apart (0: not) */
    int write;
} aio_job;

/* Calls held at once; one more waits (reaping) until the oldest is cut into requests.  The
 * engine queues a few per block (one per field, level and box). */
#define STN_AIO_JOBS 256

struct stn_aio {
    io_context_t ctx;
    int depth;
    size_t max_request;
    aio_job *jobs; /* a ring of STN_AIO_JOBS: njobs from jhead */
    int jhead, njobs;
    aio_req *reqs;
    aio_req **free_list; /* nfree of them */
    int nfree;
    struct iocb **queued; /* prepared, not yet submitted: nqueued of them */
    int nqueued;
    int inflight; /* submitted, not yet reaped */
    struct io_event *events;
    int error; /* first failure since the last wait_all */
    char msg[1024];
    stn_req_sizes *sizes;          /* where every request made is counted by size (NULL: nowhere) */
    struct iovec iov[STN_AIO_IOV]; /* the pieces of the gathered request being submitted (io_submit copies
                                    * them: one buffer serves every gathered request, submitted alone) */
};

void stn_aio_count_sizes(stn_aio *q, stn_req_sizes *h) { q->sizes = h; }

void stn_aio_group_reset(stn_aio_group *g) { memset(g, 0, sizeof *g); }

int stn_aio_in_flight(const stn_aio *q) { return q->inflight; }
int stn_aio_queued(const stn_aio *q) { return q->nqueued + q->njobs; }

static void *zalloc(size_t n) {
    void *p = stn_alloc(n, 64);
    if (p)
        memset(p, 0, n);
    return p;
}

static void read_proc_long(const char *path, long long *v) {
    FILE *fp = fopen(path, "r");
    *v = -1;
    if (fp) {
        if (fscanf(fp, "%lld", v) != 1)
            *v = -1;
        fclose(fp);
    }
}

uint64_t stn_aio_footprint(int depth) {
    /* exactly what stn_aio_create allocates through stn_alloc (the engine's budget counts it) */
    size_t d = depth > 0 ? (size_t)depth : 0;
    return sizeof(stn_aio) + STN_AIO_JOBS * sizeof(aio_job) +
           d * (sizeof(aio_req) + sizeof(aio_req *) + sizeof(struct iocb *) + sizeof(struct io_event));
}

int stn_aio_create(stn_aio **qp, int depth, size_t max_request) {
    *qp = NULL;
    if (depth <= 0 || depth > 65536)
        return stn_error(-EINVAL, "bad asynchronous IO queue depth %d (1 to 65536)", depth);
    if (max_request == 0)
        max_request = STN_AIO_DEFAULT_MAX_REQUEST;
    if (max_request > ((size_t)1 << 30))
        max_request = (size_t)1 << 30;
    max_request &= ~(size_t)4095;
    if (max_request == 0)
        max_request = 4096;
    stn_aio *q = zalloc(sizeof *q);
    if (!q)
        return stn_error(-ENOMEM, "out of memory for an asynchronous IO queue of depth %d", depth);
    q->depth = depth;
    q->max_request = max_request;
    q->jobs = zalloc(STN_AIO_JOBS * sizeof *q->jobs);
    q->reqs = zalloc((size_t)depth * sizeof *q->reqs);
    q->free_list = zalloc((size_t)depth * sizeof *q->free_list);
    q->queued = zalloc((size_t)depth * sizeof *q->queued);
    q->events = zalloc((size_t)depth * sizeof *q->events);
    if (!q->jobs || !q->reqs || !q->free_list || !q->queued || !q->events) {
        stn_aio_destroy(q);
        return stn_error(-ENOMEM, "out of memory for an asynchronous IO queue of depth %d", depth);
    }
    for (int i = 0; i < depth; i++)
        q->free_list[i] = &q->reqs[depth - 1 - i];
    q->nfree = depth;
    int rc = io_setup(depth, &q->ctx); /* libaio returns -errno */
    if (rc < 0) {
        q->ctx = 0;
        stn_aio_destroy(q);
        if (rc == -EAGAIN) {
            long long mx, cur;
            read_proc_long("/proc/sys/fs/aio-max-nr", &mx);
            read_proc_long("/proc/sys/fs/aio-nr", &cur);
            return stn_error(rc,
                             "cannot create an asynchronous IO queue of depth %d: the system-wide limit is "
                             "reached (fs.aio-nr %lld of fs.aio-max-nr %lld in use); raise it with "
                             "'sysctl fs.aio-max-nr=%lld' or use a smaller queue",
                             depth, cur, mx, mx > 0 ? 2 * mx : 1048576LL);
        }
        if (rc == -ENOSYS)
            return stn_error(rc,
                             "cannot create an asynchronous IO queue: this kernel has no AIO support "
                             "(io_setup: %s)",
                             strerror(-rc));
        return stn_error(rc, "cannot create an asynchronous IO queue of depth %d: io_setup: %s", depth,
                         strerror(-rc));
    }
    *qp = q;
    return 0;
}

void stn_aio_destroy(stn_aio *q) {
    if (!q)
        return;
    if (q->ctx) {
        char saved[2048];
        snprintf(saved, sizeof saved, "%s", stn_errmsg()); /* destroy keeps the caller's message */
        (void)stn_aio_wait_all(q, NULL);
        stn_error(0, "%s", saved);
        io_destroy(q->ctx);
    }
    stn_free(q->jobs);
    stn_free(q->reqs);
    stn_free(q->free_list);
    stn_free(q->queued);
    stn_free(q->events);
    stn_free(q);
}

/* Record a failure of request r: in its group and in the queue (the first one each). */
static void req_fail(stn_aio *q, aio_req *r, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void req_fail(stn_aio *q, aio_req *r, int status, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->g && !r->g->error) {
        r->g->error = status;
        snprintf(r->g->msg, sizeof r->g->msg, "%s", msg);
    }
    if (!q->error) {
        q->error = status;
        snprintf(q->msg, sizeof q->msg, "%s", msg);
    }
    stn_error(status, "%s", msg);
}

/* The request is over (done or failed): its group loses a pending request, its slot is free. */
static void req_release(stn_aio *q, aio_req *r) {
    if (r->g)
        r->g->pending--;
    r->g = NULL;
    r->f = NULL;
    r->st = NULL;
    q->free_list[q->nfree++] = r;
}

/* "plane z, row y" of a file offset, for messages (through the file's chunks). */
static void where_of(const aio_req *r, uint64_t off, char *buf, size_t n) {
    const stn_gridfile *f = r->f;
    uint64_t rb = (uint64_t)f->row_bytes, nz = (uint64_t)f->nz, lo = 0, hi = (uint64_t)f->ny;
    for (int c = 0; f->chunk_y && c < f->nchunks; c++)
        if (off >= (uint64_t)f->chunk_y[c] * nz * rb)
            lo = (uint64_t)f->chunk_y[c], hi = (uint64_t)f->chunk_y[c + 1];
    uint64_t row = (off - lo * nz * rb) / rb;
    snprintf(buf, n, "plane %llu, row %llu", (unsigned long long)(row / (hi - lo)),
             (unsigned long long)(f->y_base + lo + row % (hi - lo)));
}

/* A request's iocb: a plain one now; a gathered one (r->piece) only its data, its pieces are put in the
 * queue's iovecs when it is submitted (stn_aio_submit, gather). */
static void prep(aio_req *r) {
    char *p = r->buf + r->done;
    size_t left = r->len - r->done;
    long long off = (long long)(r->off + r->done);
    if (r->piece)
        memset(&r->cb, 0, sizeof r->cb);
    else if (r->write)
        io_prep_pwrite(&r->cb, r->f->fd, p, left, off);
    else
        io_prep_pread(&r->cb, r->f->fd, p, left, off);
    r->cb.data = r;
}

/* The iocb of gathered request r over the queue's iovecs: the pieces of what is left of it, the first
 * maybe cut by a short transfer. */
static void gather(stn_aio *q, aio_req *r) {
    int n = 0;
    for (size_t at = r->done; at < r->len && n < STN_AIO_IOV; n++) {
        size_t k = at / r->piece, in = at % r->piece, len = r->piece - in;
        q->iov[n] = (struct iovec){r->buf + k * r->plane + in, len < r->len - at ? len : r->len - at};
        at += q->iov[n].iov_len;
    }
    long long off = (long long)(r->off + r->done);
    if (r->write)
        io_prep_pwritev(&r->cb, r->f->fd, q->iov, n, off);
    else
        io_prep_preadv(&r->cb, r->f->fd, q->iov, n, off);
    r->cb.data = r;
}

/* One completion: count it, finish, resubmit the rest of a short transfer, or fail. */
static void complete(stn_aio *q, struct io_event *ev) {
    aio_req *r = (aio_req *)ev->data;
    long res = (long)ev->res;
    size_t left = r->len - r->done;
    uint64_t at = r->off + r->done;
    const char *what = r->write ? "write" : "read";
    char where[64];
    if (res < 0) {
        int e = (int)-res;
        where_of(r, at, where, sizeof where);
        if (e == ENOSPC || e == EDQUOT) {
            struct statvfs vs;
            unsigned long long avail =
                fstatvfs(r->f->fd, &vs) == 0 ? (unsigned long long)vs.f_bavail * vs.f_frsize : 0ULL;
            req_fail(q, r, -e,
                     "cannot write %zu bytes at offset %llu (%s) of '%s': %s (%llu bytes available)", left,
                     (unsigned long long)at, where, r->f->path, strerror(e), avail);
        } else {
            req_fail(q, r, -e, "cannot %s %zu bytes at offset %llu (%s) of '%s': %s", what, left,
                     (unsigned long long)at, where, r->f->path, strerror(e));
        }
        req_release(q, r);
        return;
    }
    size_t got = (size_t)res;
    if (got > left)
        got = left; /* cannot happen; never count more than was asked for */
    r->done += got;
    if (r->g)
        r->g->bytes += got;
    if (r->st) {
        if (r->write)
            r->st->bytes_written += got;
        else
            r->st->bytes_read += got;
    }
    if (r->done == r->len) {
        req_release(q, r);
        return;
    }
    /* short: go on if that is possible, else say exactly what happened */
    if (got > 0 && (!r->f->direct || (r->done % r->f->align) == 0)) {
        prep(r);
        q->queued[q->nqueued++] = &r->cb;
        return;
    }
    struct stat sb;
    long long fsize = fstat(r->f->fd, &sb) == 0 ? (long long)sb.st_size : -1LL;
    where_of(r, r->off, where, sizeof where);
    req_fail(q, r, -EIO,
             "short %s of '%s': %zu bytes expected at offset %llu (%s), %zu moved (the file is %lld bytes, "
             "expected %lld)",
             what, r->f->path, r->len, (unsigned long long)r->off, where, r->done, fsize,
             (long long)r->f->file_bytes);
    req_release(q, r);
}

/* Reap at least min_nr completions (blocking), and process them. */
static int reap(stn_aio *q, int min_nr, stn_stats *st) {
    if (q->inflight == 0)
        return 0;
    if (min_nr > q->inflight)
        min_nr = q->inflight;
    double t0 = stn_now();
    int n;
    do
        n = io_getevents(q->ctx, min_nr, q->depth, q->events, NULL);
    while (n == -EINTR);
    stn_stats_add_time(st, STN_PHASE_WAIT, t0);
    if (n < 0)
        return stn_error(n, "waiting for asynchronous IO failed: io_getevents: %s", strerror(-n));
    q->inflight -= n;
    for (int i = 0; i < n; i++)
        complete(q, &q->events[i]);
    return 0;
}

int stn_aio_submit(stn_aio *q, stn_stats *st) {
    int first = 0;
    char first_msg[1024] = "";
    while (q->nqueued > 0) {
        double t0 = stn_now();
        int nr =
            0; /* a gathered request alone (the iovecs are the queue's), else the plain ones before one */
        aio_req *r0 = (aio_req *)q->queued[0]->data;
        if (r0->piece)
            gather(q, r0), nr = 1;
        while (!r0->piece && nr < q->nqueued && !((aio_req *)q->queued[nr]->data)->piece)
            nr++;
        int n = io_submit(q->ctx, nr, q->queued);
        stn_stats_add_time(st, STN_PHASE_WAIT, t0);
        if (n > 0) {
            q->inflight += n;
            q->nqueued -= n;
            memmove(q->queued, q->queued + n, (size_t)q->nqueued * sizeof *q->queued);
            continue;
        }
        if (n == -EINTR)
            continue;
        if ((n == -EAGAIN || n == 0) && q->inflight > 0) {
            int rc = reap(q, 1, st); /* the kernel is short of something: make room */
            if (rc)
                return rc;
            continue;
        }
        /* the first queued request cannot be submitted: fail it and go on with the others */
        aio_req *r = (aio_req *)q->queued[0]->data;
        int e = n < 0 ? -n : EAGAIN;
        char where[64];
        where_of(r, r->off + r->done, where, sizeof where);
        req_fail(q, r, -e, "cannot submit the %s of %zu bytes at offset %llu (%s) of '%s': io_submit: %s",
                 r->write ? "write" : "read", r->len - r->done, (unsigned long long)(r->off + r->done), where,
                 r->f->path, strerror(e));
        if (!first) {
            first = -e;
            snprintf(first_msg, sizeof first_msg, "%s", stn_errmsg());
        }
        req_release(q, r);
        q->nqueued--;
        memmove(q->queued, q->queued + 1, (size_t)q->nqueued * sizeof *q->queued);
    }
    if (first)
        stn_error(first, "%s", first_msg);
    return first;
}

/* Cut held calls into requests while slots are free, oldest first, and queue them for
 * io_submit.  Never blocks.  A call's group counts it as one pending request until it is all cut
 * up, then each request on its own. */
static void pump(stn_aio *q) {
    while (q->njobs > 0 && q->nfree > 0) {
        aio_job *j = &q->jobs[q->jhead];
        size_t chunk = q->max_request & ~(j->f->align - 1);
        if (chunk == 0)
            chunk = j->f->align;
        if (j->piece) /* whole pieces, at most STN_AIO_IOV of them (transfer: piece <= max_request) */
            chunk = (chunk < STN_AIO_IOV * j->piece ? chunk : STN_AIO_IOV * j->piece) / j->piece * j->piece;
        uint64_t left = j->span - j->done;
        size_t len = left < chunk ? (size_t)left : chunk;
        aio_req *r = q->free_list[--q->nfree];
        r->f = j->f;
        r->g = j->g;
        r->st = j->st;
        r->piece = j->piece;
        r->plane = j->plane;
        r->buf = j->piece ? j->buf + j->done / j->piece * j->plane : j->buf + j->s * j->plane + j->done;
        r->off = j->off + j->s * j->stride + j->done;
        r->len = len;
        r->done = 0;
        r->write = j->write;
        if (q->sizes) /* (once per request: the rest of a short transfer is the same request) */
            stn_req_count(q->sizes, r->write, len);
        prep(r);
        if (r->g)
            r->g->pending++;
        q->queued[q->nqueued++] = &r->cb;
        j->done += len;
        if (j->done == j->span) {
            j->done = 0;
            if (++j->s == j->nspans) {
                if (j->g)
                    j->g->pending--;
                q->jhead = (q->jhead + 1) % STN_AIO_JOBS;
                q->njobs--;
            }
        }
    }
}

/* Cut what slots allow and hand it to the kernel: the queue's one step forward. */
static int advance(stn_aio *q, stn_stats *st) {
    pump(q);
    return q->nqueued > 0 ? stn_aio_submit(q, st) : 0;
}

/* Hold job j (a call's spans in one chunk) until it is cut into requests; queue what slots allow. */
static int hold(stn_aio *q, const aio_job *j, stn_stats *st) {
    while (q->njobs == STN_AIO_JOBS) { /* every call slot held: make room (blocking) */
        int rc = advance(q, st);
        if (rc && q->nqueued > 0)
            return rc;
        if (q->njobs < STN_AIO_JOBS)
            break;
        if (q->inflight == 0)
            return stn_error(-EIO, "asynchronous IO queue: %d calls held and nothing in flight", q->njobs);
        rc = reap(q, 1, st);
        if (rc)
            return rc;
    }
    q->jobs[(q->jhead + q->njobs++) % STN_AIO_JOBS] = *j;
    if (j->g)
        j->g->pending++;
    return advance(q, st);
}

static int transfer(stn_aio *q, int write, stn_gridfile *f, const stn_span *sp, char *buf, size_t plane,
                    stn_aio_group *g, stn_stats *st) {
    const char *what = write ? "write" : "read";
    int64_t y0 = sp->y0, y1 = sp->y1, z0 = sp->z0, z1 = sp->z1;
    if (!f || !f->path)
        return stn_error(-EINVAL, "asynchronous %s from a grid file that is not open", what);
    if (y0 < 0 || y1 > f->ny || y0 > y1 || z0 < 0 || z1 > f->nz || z0 > z1)
        return stn_error(
            -EINVAL,
            "cannot %s rows [%lld, %lld) of planes [%lld, %lld) of '%s': the grid has %lld rows and "
            "%lld planes",
            what, (long long)y0, (long long)y1, (long long)z0, (long long)z1, f->path, (long long)f->ny,
            (long long)f->nz);
    if (y0 == y1 || z0 == z1)
        return 0;
    uint64_t rb = (uint64_t)f->row_bytes, rows = (uint64_t)(y1 - y0), nz = (uint64_t)(z1 - z0);
    if ((uintptr_t)buf % f->align != 0 || (nz > 1 && (plane % f->align != 0 || plane < rows * rb)))
        return stn_error(
            -EINVAL,
            "cannot %s rows [%lld, %lld) of planes [%lld, %lld) of '%s': the buffer %p with planes "
            "%zu bytes apart is not aligned to %zu bytes or too small for %llu rows of %llu bytes",
            what, (long long)y0, (long long)y1, (long long)z0, (long long)z1, f->path, (void *)buf, plane,
            f->align, (unsigned long long)rows, (unsigned long long)rb);
    if (f->map || (f->nparts > 0 && f->part[0].map)) /* --tier pmem: a copy, done now (nothing pending) */
        return stn_pmem_transfer(f, write, sp, buf, plane, g, st);
    /* one job per chunk the rows cross (the plain layout: one), in the file of its part (gridparts.c) */
    for (int64_t a = y0; a < y1;) {
        int64_t lo, hi;
        uint64_t base;
        stn_gridfile_chunk(f, a, &lo, &hi);
        int64_t b = hi < y1 ? hi : y1;
        uint64_t span = (uint64_t)(b - a) * rb;
        aio_job j = {stn_gridfile_place(f, a, &base),
                     g,
                     st,
                     buf + (size_t)(a - y0) * rb,
                     plane,
                     stn_gridfile_offset(f, z0, a) - base,
                     (uint64_t)(hi - lo) * rb,
                     span,
                     nz,
                     0,
                     0,
                     0,
                     write};
        if (nz == 1 || (a == lo && b == hi && plane == span)) /* both sides contiguous */
            j.span *= nz, j.nspans = 1;
        else if (f->nchunks > 1 && a == lo && b == hi && span <= q->max_request) /* a run, gathered */
            j.piece = (size_t)span, j.span *= nz, j.nspans = 1;
        int rc = hold(q, &j, st);
        if (rc)
            return rc;
        a = b;
    }
    return 0;
}

int stn_aio_poll(stn_aio *q, stn_stats *st) {
    if (q->inflight > 0) {
        struct timespec zero = {0, 0};
        int n;
        do
            n = io_getevents(q->ctx, 0, q->depth, q->events, &zero);
        while (n == -EINTR);
        if (n < 0)
            return stn_error(n, "polling asynchronous IO failed: io_getevents: %s", strerror(-n));
        q->inflight -= n;
        for (int i = 0; i < n; i++)
            complete(q, &q->events[i]);
    }
    return advance(q, st);
}

int stn_aio_read(stn_aio *q, stn_gridfile *f, const stn_span *sp, void *buf, size_t buf_plane_bytes,
                 stn_aio_group *g, stn_stats *st) {
    return transfer(q, 0, f, sp, (char *)buf, buf_plane_bytes, g, st);
}

int stn_aio_write(stn_aio *q, stn_gridfile *f, const stn_span *sp, const void *buf, size_t buf_plane_bytes,
                  stn_aio_group *g, stn_stats *st) {
    /* the kernel only reads a write's buffer; iocbs take a plain void * */
    return transfer(q, 1, f, sp, (char *)(uintptr_t)buf, buf_plane_bytes, g, st);
}

int stn_aio_wait(stn_aio *q, stn_aio_group *g, stn_stats *st) {
    while (g->pending > 0) {
        pump(q);
        if (q->nqueued > 0) {
            int rc = stn_aio_submit(q, st); /* failures are recorded in their groups */
            if (rc && q->nqueued > 0)
                return rc;
            continue;
        }
        if (q->inflight == 0)
            return stn_error(
                -EIO, "asynchronous IO queue: %d requests of a group are pending but nothing is in flight",
                g->pending);
        int rc = reap(q, 1, st);
        if (rc)
            return rc;
    }
    if (q->nqueued > 0) /* other groups' resubmitted remainders: do not let them sit idle */
        (void)stn_aio_submit(q, st);
    if (g->error)
        return stn_error(g->error, "%s", g->msg);
    return 0;
}

int stn_aio_wait_all(stn_aio *q, stn_stats *st) {
    while (q->inflight > 0 || q->nqueued > 0 || q->njobs > 0) {
        pump(q);
        if (q->nqueued > 0) {
            int rc = stn_aio_submit(q, st);
            if (rc && q->nqueued > 0)
                return rc;
        }
        if (q->inflight > 0) {
            int rc = reap(q, q->njobs > 0 ? 1 : q->inflight, st);
            if (rc)
                return rc; /* io_getevents itself failed: nothing more can be waited for */
        }
    }
    int e = q->error;
    if (e)
        stn_error(e, "%s", q->msg);
    q->error = 0;
    q->msg[0] = '\0';
    return e;
}
