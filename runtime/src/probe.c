/* probe.c -- measure the flash device's bandwidth curves through the runtime's own IO queue
 * (stn_probe.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "stn_probe.h"

#include "stn_gridio.h"
#include "stn_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

/* The test file is a grid of one plane of rows of PROBE_ROW bytes: a request of R bytes at offset
 * O is rows [O / PROBE_ROW, (O + R) / PROBE_ROW), one aligned transfer (stn_gridio.h). */
#define PROBE_ROW ((uint64_t)64 << 10)
#define STAMP_EVERY 4096 /* a write stamps its sequence number every this many bytes */
#define PROBE_TMPFS_MAGIC 0x01021994
#define PROBE_RAMFS_MAGIC 0x858458f6

const uint64_t stn_probe_requests[STN_PROBE_NREQUESTS] = {(uint64_t)64 << 10, (uint64_t)256 << 10,
                                                          (uint64_t)1 << 20, (uint64_t)4 << 20};
const int stn_probe_depths[STN_PROBE_NDEPTHS] = {1, 8, 32};

typedef struct probe_ctx {
    const char *dir;
    stn_gridfile f;
    char *buf;    /* STN_PROBE_MAX_DEPTH slots of STN_PROBE_MAX_REQUEST bytes */
    uint64_t rng; /* xorshift64 state */
    uint64_t seq; /* the stamp of the next write */
} probe_ctx;

static uint64_t next_random(probe_ctx *c) {
    uint64_t x = c->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return c->rng = x;
}

/* One slot's buffer region of `request` bytes, stamped so that no two writes carry the same data. */
static void stamp(probe_ctx *c, char *p, uint64_t request) {
    uint64_t s = ++c->seq;
    for (uint64_t at = 0; at < request; at += STAMP_EVERY)
        memcpy(p + at, &s, sizeof s);
}

typedef struct point_run {
    uint64_t requests; /* completed */
    uint64_t bytes;    /* moved */
    double seconds;    /* first submission to last completion (write: and the fdatasync) */
} point_run;

/* Keep `depth` requests of `request` bytes in flight (write or read) -- at random offsets that are
 * multiples of the request size, for about `seconds` and at least STN_PROBE_MIN_PER_SLOT per slot;
 * or, with fill, once through the whole file in order -- and time it.  Each slot has its own buffer
 * and completion group; a freed slot is refilled at once (stn_aio_poll), and when none is free the
 * oldest request is waited for (the device completes equal requests roughly in order). */
static int run_point(probe_ctx *c, int write, uint64_t request, int depth, double seconds, int fill,
                     point_run *out) {
    stn_aio *q = NULL;
    stn_aio_group g[STN_PROBE_MAX_DEPTH];
    uint64_t issued_at[STN_PROBE_MAX_DEPTH]; /* issue order of the request in the slot */
    int busy[STN_PROBE_MAX_DEPTH];
    const uint64_t positions = (uint64_t)c->f.file_bytes / request, rows = request / PROBE_ROW;
    const uint64_t min_requests = fill ? positions : (uint64_t)STN_PROBE_MIN_PER_SLOT * (uint64_t)depth;
    uint64_t issued = 0, next_fill = 0;
    int rc = stn_aio_create(&q, depth, (size_t)request);
    if (rc)
        return rc;
    memset(out, 0, sizeof *out);
    for (int s = 0; s < depth; s++) {
        g[s] = STN_AIO_GROUP_INIT;
        busy[s] = 0;
    }
    double t0 = stn_now();
    int stopping = 0, in_flight = 0;
    for (;;) {
        /* collect finished slots and refill them */
        int freed = 0;
        for (int s = 0; s < depth && !rc; s++) {
            if (busy[s] && g[s].pending == 0) {
                if (g[s].error) {
                    rc = stn_error(g[s].error, "%s", g[s].msg);
                    break;
                }
                out->bytes += g[s].bytes;
                out->requests++;
                busy[s] = 0;
                in_flight--;
                freed++;
            }
            if (busy[s])
                continue;
            if (!stopping)
                stopping =
                    fill ? next_fill >= positions : issued >= min_requests && stn_now() - t0 >= seconds;
            if (stopping)
                continue;
            uint64_t pos = fill ? next_fill++ : next_random(c) % positions;
            int64_t y0 = (int64_t)(pos * rows);
            char *p = c->buf + (size_t)s * STN_PROBE_MAX_REQUEST;
            stn_aio_group_reset(&g[s]);
            if (write) {
                stamp(c, p, request);
                rc = stn_aio_write(q, &c->f, y0, y0 + (int64_t)rows, 0, 1, p, (size_t)request, &g[s], NULL);
            } else {
                rc = stn_aio_read(q, &c->f, y0, y0 + (int64_t)rows, 0, 1, p, (size_t)request, &g[s], NULL);
            }
            busy[s] = 1;
            issued_at[s] = issued++;
            in_flight++;
        }
        if (rc || in_flight == 0)
            break;
        if (freed == 0) {
            /* nothing had finished: wait for the oldest request (reaping the others on the way) */
            int oldest = -1;
            for (int s = 0; s < depth; s++)
                if (busy[s] && (oldest < 0 || issued_at[s] < issued_at[oldest]))
                    oldest = s;
            rc = stn_aio_wait(q, &g[oldest], NULL);
            if (rc)
                break;
        }
        rc = stn_aio_poll(q, NULL);
        if (rc)
            break;
    }
    if (!rc && write)
        rc = stn_gridfile_sync(&c->f);
    out->seconds = stn_now() - t0;
    stn_aio_destroy(q); /* waits for anything still in flight after a failure */
    return rc;
}

static const char *size_text(uint64_t v, char *buf, size_t n) {
    if (v >= ((uint64_t)1 << 20) && v % ((uint64_t)1 << 20) == 0)
        snprintf(buf, n, "%lluM", (unsigned long long)(v >> 20));
    else
        snprintf(buf, n, "%lluK", (unsigned long long)(v >> 10));
    return buf;
}

/* The test file: a fresh name in dir (O_EXCL, so never somebody else's file), then opened and sized
 * as a grid file and unlinked at once. */
static int open_test_file(probe_ctx *c, uint64_t bytes, size_t align) {
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/.stencilc-probe-%ld-XXXXXX", c->dir, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof path)
        return stn_error(-ENAMETOOLONG, "cannot probe '%s': the directory's name is too long", c->dir);
    int fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return stn_error(stn_neg_errno(e), "cannot create a test file in '%s': %s", c->dir, strerror(e));
    }
    close(fd);
    int rc = stn_gridfile_open(&c->f, path, (int64_t)PROBE_ROW, (int64_t)(bytes / PROBE_ROW), 1, 1, align,
                               STN_GRIDFILE_CREATE);
    /* gridio unlinks a file it fails to size; the name is ours either way */
    (void)unlink(path);
    if (rc)
        return stn_error(rc, "cannot create the test file in '%s': %s", c->dir, stn_errmsg());
    if (!c->f.direct) {
        stn_gridfile_close(&c->f);
        return stn_error(
            -EOPNOTSUPP,
            "the file system of '%s' refuses O_DIRECT (tmpfs before Linux 6.6, some FUSE and "
            "network file systems): a buffered probe would measure the page cache, not the device; probe a "
            "directory on the device itself",
            c->dir);
    }
    return 0;
}

int stn_probe(const char *dir, uint64_t file_bytes, double seconds_per_point, stn_device *out, int verbose) {
    char hb[32], hb2[32];
    if (!dir || !*dir)
        return stn_error(-EINVAL, "cannot probe: no directory given");
    if (file_bytes == 0)
        file_bytes = STN_PROBE_DEFAULT_BYTES;
    if (seconds_per_point == 0)
        seconds_per_point = STN_PROBE_DEFAULT_SECONDS;
    if (file_bytes < STN_PROBE_MIN_BYTES)
        return stn_error(-EINVAL, "cannot probe '%s' with a test file of %s: it needs at least %s", dir,
                         stn_fmt_bytes(hb, sizeof hb, file_bytes),
                         stn_fmt_bytes(hb2, sizeof hb2, STN_PROBE_MIN_BYTES));
    if (!(seconds_per_point > 0) || seconds_per_point > STN_PROBE_MAX_SECONDS)
        return stn_error(-EINVAL,
                         "cannot probe '%s' for %g seconds per point: expected more than 0 and at most %g",
                         dir, seconds_per_point, STN_PROBE_MAX_SECONDS);
    struct stat sb;
    if (stat(dir, &sb) != 0) {
        int e = errno;
        return stn_error(stn_neg_errno(e), "cannot probe '%s': %s", dir, strerror(e));
    }
    if (!S_ISDIR(sb.st_mode))
        return stn_error(-ENOTDIR, "cannot probe '%s': not a directory", dir);
    /* tmpfs takes O_DIRECT since Linux 6.6, and would give the speed of memory */
    struct statfs sfs;
    if (statfs(dir, &sfs) == 0 &&
        ((unsigned long)sfs.f_type == PROBE_TMPFS_MAGIC || (unsigned long)sfs.f_type == PROBE_RAMFS_MAGIC))
        return stn_error(-EOPNOTSUPP,
                         "cannot probe '%s': it is in memory (tmpfs or ramfs), not on a device; probe a "
                         "directory on the flash device itself",
                         dir);

    size_t align = 0;
    char align_src[512];
    int rc = stn_dio_alignment(dir, &align, align_src, sizeof align_src);
    if (rc)
        return rc;
    if (align > PROBE_ROW)
        return stn_error(
            -EINVAL,
            "cannot probe '%s': its O_DIRECT alignment is %zu bytes (%s), more than the smallest "
            "request measured (%llu bytes)",
            dir, align, align_src, (unsigned long long)PROBE_ROW);

    probe_ctx c;
    memset(&c, 0, sizeof c);
    c.dir = dir;
    c.f.fd = -1;
    c.rng = 0x9E3779B97F4A7C15ULL;
    file_bytes -= file_bytes % STN_PROBE_MAX_REQUEST;

    size_t buf_bytes = (size_t)STN_PROBE_MAX_DEPTH * STN_PROBE_MAX_REQUEST;
    c.buf = stn_alloc(buf_bytes, align > 4096 ? align : 4096);
    if (!c.buf)
        return stn_error(-ENOMEM, "cannot probe '%s': %s", dir, stn_errmsg());
    /* random bytes: storage that compresses or deduplicates must do the real work */
    for (size_t k = 0; k < buf_bytes / sizeof(uint64_t); k++) {
        uint64_t v = next_random(&c);
        memcpy(c.buf + k * sizeof v, &v, sizeof v);
    }

    rc = open_test_file(&c, file_bytes, align);
    if (rc) {
        stn_free(c.buf);
        return rc;
    }
    double t_start = stn_now();
    memset(out, 0, sizeof *out);

    /* 1. write the whole file once, so that reads find real data on the device */
    point_run r;
    rc = run_point(&c, 1, STN_PROBE_MAX_REQUEST, 8, 0, 1, &r);
    if (!rc && verbose)
        fprintf(stderr, "stencilc probe: wrote the %s test file in '%s' in %.2f s (%.0f MiB/s)\n",
                stn_fmt_bytes(hb, sizeof hb, file_bytes), dir, r.seconds,
                (double)r.bytes / r.seconds / (1 << 20));

    /* 2. every point, reads first */
    for (int w = 0; w < 2 && !rc; w++) {
        stn_dev_curve *curve = w ? &out->write : &out->read;
        for (int d = 0; d < STN_PROBE_NDEPTHS && !rc; d++)
            for (int k = 0; k < STN_PROBE_NREQUESTS && !rc; k++) {
                rc = run_point(&c, w, stn_probe_requests[k], stn_probe_depths[d], seconds_per_point, 0, &r);
                if (rc)
                    break;
                double bps = (double)r.bytes / (r.seconds > 0 ? r.seconds : 1e-9);
                curve->p[curve->n++] = (stn_dev_point){stn_probe_requests[k], stn_probe_depths[d], bps};
                if (verbose)
                    fprintf(stderr, "stencilc probe: %-5s %5s @ %2d: %9.1f MiB/s (%llu requests in %.2f s)\n",
                            w ? "write" : "read", size_text(stn_probe_requests[k], hb, sizeof hb),
                            stn_probe_depths[d], bps / (1 << 20), (unsigned long long)r.requests, r.seconds);
            }
    }
    if (rc)
        rc = stn_error(rc, "probing '%s' failed: %s", dir, stn_errmsg());

    char date[64] = "";
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &tm);
    snprintf(out->source, sizeof out->source,
             "probed in '%s' on %s: a %s file, %.2f s per point, %.1f s in all", dir, date,
             stn_fmt_bytes(hb, sizeof hb, file_bytes), seconds_per_point, stn_now() - t_start);
    stn_gridfile_close(&c.f);
    stn_free(c.buf);
    return rc;
}
