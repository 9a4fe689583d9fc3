/* probe.c -- measure the flash device's bandwidth curves through the runtime's own IO queue
 * (stn_probe.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "io/stn_probe.h"

#include "base/stn_internal.h"
#include "io/stn_gridio.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
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
    char *buf;     /* STN_PROBE_MAX_DEPTH slots of `slot` bytes */
    uint64_t slot; /* the largest request measured: STN_PROBE_MAX_REQUEST (a calibration: 1M) */
    uint64_t rng;  /* xorshift64 state */
    uint64_t seq;  /* the stamp of the next write */
    int quick;     /* stn_probe_calibrate: the points of quick_point only, one request per slot at least */
} probe_ctx;

/* The points a calibration measures: 64K and 1M at depths 8 and 32 (those a run's plans use most). */
static int quick_point(int k, int d) {
    return (stn_probe_requests[k] == (uint64_t)64 << 10 || stn_probe_requests[k] == (uint64_t)1 << 20) &&
           stn_probe_depths[d] >= 8;
}

uint64_t stn_probe_xorshift(uint64_t *state) {
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

static uint64_t next_random(probe_ctx *c) { return stn_probe_xorshift(&c->rng); }

/* One slot's buffer region of `request` bytes, stamped so that no two writes carry the same data. */
static void stamp(probe_ctx *c, char *p, uint64_t request) {
    uint64_t s = ++c->seq;
    for (uint64_t at = 0; at < request; at += STAMP_EVERY)
        memcpy(p + at, &s, sizeof s);
}

typedef struct point_run {
    uint64_t requests;      /* completed */
    uint64_t bytes;         /* moved, both ways */
    uint64_t bytes_written; /* of which written */
    double seconds;         /* first submission to last completion (and the fdatasync of any writes) */
} point_run;

enum { PROBE_READ, PROBE_WRITE, PROBE_MIXED };

/* IO kept running by the probe: `depth` slots, each with its own buffer and completion group, each
 * refilled at once when its request completes.  PROBE_READ and PROBE_WRITE: every slot reads
 * (writes) the test file; PROBE_MIXED: even slots read the test file, odd slots write wf -- the
 * test file again (overwrites), or a fresh file never written (fresh: every write at a position
 * not written before, so every one lands in an unwritten extent).  Random offsets are multiples of
 * the request size; with fill, the slots instead go once through the whole file in order.
 * Issuing stops after about `seconds` and at least STN_PROBE_MIN_PER_SLOT requests per slot, when
 * the fill or the fresh positions run out, or when the caller sets `stopping` (seconds HUGE_VAL);
 * the requests in flight still complete. */
typedef struct io_load {
    probe_ctx *c;
    stn_aio *q;
    stn_gridfile *wf; /* where writes go */
    int mode, depth, fill, fresh;
    uint64_t request, rows, positions, min_requests;
    uint64_t stride, offset; /* fresh positions: (k * stride + offset) mod positions, stride coprime */
    double seconds, t0;
    uint64_t issued, next; /* next: the fill's next position, or k of the next fresh write */
    int stopping, in_flight;
    stn_aio_group g[STN_PROBE_MAX_DEPTH];
    uint64_t issued_at[STN_PROBE_MAX_DEPTH]; /* issue order of the request in the slot */
    int busy[STN_PROBE_MAX_DEPTH];
    point_run run;
} io_load;

static uint64_t gcd_u64(uint64_t a, uint64_t b) {
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* What a point of the probe runs: PROBE_READ, _WRITE or _MIXED requests of `request` bytes at `depth`,
 * the writes into wf (NULL: the test file; fresh: a fresh file's unwritten extents, in a permutation of
 * its positions), for `seconds` (fill: once over the whole file instead). */
typedef struct point_spec {
    int mode;
    stn_gridfile *wf;
    int fresh;
    uint64_t request;
    int depth;
    double seconds;
    int fill;
} point_spec;

static int load_start(io_load *l, probe_ctx *c, const point_spec *ps) {
    stn_gridfile *wf = ps->wf;
    int mode = ps->mode, fresh = ps->fresh, depth = ps->depth, fill = ps->fill;
    uint64_t request = ps->request;
    double seconds = ps->seconds;
    memset(l, 0, sizeof *l);
    l->c = c;
    l->wf = wf ? wf : &c->f;
    l->mode = mode;
    l->depth = depth;
    l->fill = fill;
    l->fresh = fresh;
    l->request = request;
    l->rows = request / PROBE_ROW;
    l->positions = (uint64_t)c->f.file_bytes / request;
    l->min_requests =
        fill ? l->positions : (uint64_t)(c->quick ? 1 : STN_PROBE_MIN_PER_SLOT) * (uint64_t)depth;
    l->seconds = seconds;
    if (fresh) {
        /* a multiplier coprime with the count makes k -> k * stride a permutation of the positions
         * (whatever the count, not only powers of two); near the golden section it also scatters
         * successive writes over the whole file, as random offsets would */
        uint64_t n = (uint64_t)l->wf->file_bytes / request;
        l->stride = (uint64_t)((double)n * 0.6180339887) | 1;
        while (gcd_u64(l->stride, n) != 1)
            l->stride += 2;
        l->offset = next_random(c) % n;
    }
    for (int s = 0; s < depth; s++)
        l->g[s] = STN_AIO_GROUP_INIT;
    int rc = stn_aio_create(&l->q, depth, (size_t)request);
    l->t0 = stn_now();
    return rc;
}

static int slot_writes(const io_load *l, int s) {
    return l->mode == PROBE_WRITE || (l->mode == PROBE_MIXED && (s & 1));
}

/* Collect the finished slots and refill every free one (unless issuing has stopped); *freed: how
 * many had finished.  Never waits for the device. */
static int load_refill(io_load *l, int *freed) {
    probe_ctx *c = l->c;
    int rc = 0;
    *freed = 0;
    for (int s = 0; s < l->depth && !rc; s++) {
        stn_aio_group *g = &l->g[s];
        if (l->busy[s] && g->pending == 0) {
            if (g->error)
                return stn_error(g->error, "%s", g->msg);
            l->run.bytes += g->bytes;
            if (slot_writes(l, s))
                l->run.bytes_written += g->bytes;
            l->run.requests++;
            l->busy[s] = 0;
            l->in_flight--;
            ++*freed;
        }
        if (l->busy[s])
            continue;
        int w = slot_writes(l, s);
        uint64_t wpositions = (uint64_t)l->wf->file_bytes / l->request;
        if (!l->stopping)
            l->stopping = l->fill ? l->next >= l->positions
                                  : (l->fresh && l->next >= wpositions) ||
                                        (l->issued >= l->min_requests && stn_now() - l->t0 >= l->seconds);
        if (l->stopping)
            continue;
        uint64_t pos = l->fill         ? l->next++
                       : l->fresh && w ? (l->next++ * l->stride + l->offset) % wpositions
                                       : next_random(c) % l->positions;
        int64_t y0 = (int64_t)(pos * l->rows), y1 = y0 + (int64_t)l->rows;
        char *p = c->buf + (size_t)s * c->slot;
        stn_aio_group_reset(g);
        if (w) {
            stamp(c, p, l->request);
            rc = stn_aio_write(l->q, l->wf, &(stn_span){y0, y1, 0, 1}, p, (size_t)l->request, g, NULL);
        } else {
            rc = stn_aio_read(l->q, &c->f, &(stn_span){y0, y1, 0, 1}, p, (size_t)l->request, g, NULL);
        }
        l->busy[s] = 1;
        l->issued_at[s] = l->issued++;
        l->in_flight++;
    }
    return rc;
}

/* Keep the load going until a slot frees (refilling it): when none had finished, wait for the
 * oldest request (the device completes equal requests roughly in order), reaping the others on
 * the way.  *done: nothing is in flight any more (issuing has stopped). */
static int load_advance(io_load *l, int *done) {
    int freed;
    int rc = load_refill(l, &freed);
    *done = l->in_flight == 0;
    if (rc || *done)
        return rc;
    if (freed == 0) {
        int oldest = -1;
        for (int s = 0; s < l->depth; s++)
            if (l->busy[s] && (oldest < 0 || l->issued_at[s] < l->issued_at[oldest]))
                oldest = s;
        rc = stn_aio_wait(l->q, &l->g[oldest], NULL);
        if (rc)
            return rc;
    }
    return stn_aio_poll(l->q, NULL);
}

/* Stop issuing, let what is in flight complete, make the writes durable (a device's volatile cache
 * is not its bandwidth), time it all, free the queue.  rc: the load's failure so far, if any. */
static int load_finish(io_load *l, int rc, point_run *out) {
    l->stopping = 1;
    for (int done = 0; !rc && !done;)
        rc = load_advance(l, &done);
    if (!rc && l->mode != PROBE_READ)
        rc = stn_gridfile_sync(l->wf);
    l->run.seconds = stn_now() - l->t0;
    stn_aio_destroy(l->q); /* waits for anything still in flight after a failure */
    l->q = NULL;
    *out = l->run;
    return rc;
}

/* One point: the load of `mode` (io_load) run until it stops by itself, timed. */
static int run_point(probe_ctx *c, const point_spec *ps, point_run *out) {
    io_load *l = malloc(sizeof *l); /* 32 completion groups with their messages: not for the stack */
    if (!l)
        return stn_error(-ENOMEM, "cannot probe: out of memory");
    int rc = load_start(l, c, ps);
    if (rc) {
        free(l);
        return rc;
    }
    for (int done = 0; !rc && !done;)
        rc = load_advance(l, &done);
    rc = load_finish(l, rc, out);
    free(l);
    return rc;
}

/* ------------------------------------------------------------------ compute under IO */

/* A 7-point Jacobi step on a JACOBI_N^3 grid of doubles (two of them: 4 MiB, in the last-level
 * cache of any machine that runs out-of-core stencils), z split over the OpenMP threads as the
 * generated kernels split it: a stand-in for the kernels whose slowdown under IO is measured. */
#define JACOBI_N 64
#define COMPUTE_SECONDS 0.5 /* each of the two rates is measured this long in all */
#define COMPUTE_ROUNDS 4    /* ... in this many alternating pieces (a calibration: 0.2 s in 4) */

static void jacobi_step(const double *restrict a, double *restrict b) {
    const int64_t n = JACOBI_N, sy = n, sz = n * n;
    STN_OMP_PARALLEL {
        int nt = stn_omp_num_threads(), t = stn_omp_thread_num();
        int64_t z0 = 1 + (n - 2) * t / nt, z1 = 1 + (n - 2) * (t + 1) / nt;
        for (int64_t z = z0; z < z1; z++)
            for (int64_t y = 1; y < n - 1; y++) {
                const double *p = a + z * sz + y * sy;
                double *q = b + z * sz + y * sy;
                for (int64_t x = 1; x < n - 1; x++)
                    q[x] = 0.4 * p[x] +
                           0.1 * (p[x - 1] + p[x + 1] + p[x - sy] + p[x + sy] + p[x - sz] + p[x + sz]);
            }
    }
}

typedef struct compute_run {
    double *g[2];      /* the two grids, swapped after each step */
    uint64_t steps;    /* all steps so far (which grid is the newest) */
    double sink;       /* a cell of every piece's result, so that the compiler cannot drop a step */
    double cells[2];   /* [alone, under IO]: interior cells computed */
    double seconds[2]; /* ... in this many seconds */
} compute_run;

/* Steps for at least `seconds`, counted as alone (l NULL) or under IO; under IO the main thread
 * services the queue between steps (stn_aio_poll, then refilling the freed slots), as the
 * out-of-core engine polls between its kernel steps -- that time counts, the engine pays it too. */
static int compute_piece(compute_run *cr, double seconds, io_load *l) {
    const double cells = (double)(JACOBI_N - 2) * (JACOBI_N - 2) * (JACOBI_N - 2);
    int rc = 0;
    uint64_t steps = 0;
    double t0 = stn_now(), t = t0;
    while (!rc && (t - t0 < seconds || steps < 4)) {
        jacobi_step(cr->g[cr->steps & 1], cr->g[(cr->steps + 1) & 1]);
        cr->steps++, steps++;
        if (l) {
            int freed;
            rc = stn_aio_poll(l->q, NULL);
            if (!rc)
                rc = load_refill(l, &freed);
        }
        t = stn_now();
    }
    cr->sink += cr->g[cr->steps & 1][(JACOBI_N / 2) * (JACOBI_N * JACOBI_N + JACOBI_N + 1)];
    cr->cells[l != NULL] += cells * (double)steps;
    cr->seconds[l != NULL] += t - t0;
    return rc;
}

/* compute_under_io (stn_device.h): the kernel's rate while mixed IO of `req` bytes at depth 32 runs
 * over the test file, over its rate alone, in (0, 1] -- at least 0.05, so that a disturbed measurement
 * cannot make the model believe the kernels stop.  The two are measured in alternating pieces, so
 * that whatever else slows the machine meanwhile (other processes, the host) weighs on both, and each
 * is the median of its pieces' rates: one disturbed piece does not move it (a calibration in a bench
 * once pooled two pieces into 0.16 at 1M where the same machine gives 0.67-0.96, and Blk-Tune chose a
 * plan twice as slow). */
static int measure_compute_under_io(probe_ctx *c, uint64_t req, double *share, double *io_rate, int verbose) {
    size_t bytes = (size_t)JACOBI_N * JACOBI_N * JACOBI_N * sizeof(double);
    compute_run cr = {{stn_alloc(bytes, 64), stn_alloc(bytes, 64)}, 0, 0, {0, 0}, {0, 0}};
    io_load *l = malloc(sizeof *l);
    int rc = 0;
    if (!cr.g[0] || !cr.g[1] || !l)
        rc = stn_error(-ENOMEM, "cannot measure the compute rate under IO: out of memory");
    for (size_t i = 0; !rc && i < bytes / sizeof(double); i++)
        cr.g[0][i] = cr.g[1][i] = (double)(i % 1000) * 1e-3;
    if (!rc) {
        compute_piece(&cr, 0.05, NULL); /* page faults, OpenMP threads, clocks: not counted */
        cr.cells[0] = cr.seconds[0] = 0;
    }
    uint64_t io_bytes = 0;
    double io_seconds = 0;
    double piece = (c->quick ? 0.2 : COMPUTE_SECONDS) / COMPUTE_ROUNDS, rates[2][COMPUTE_ROUNDS];
    int rounds = 0;
    for (; rounds < COMPUTE_ROUNDS && !rc; rounds++) {
        double c0 = cr.cells[0], s0 = cr.seconds[0], c1 = cr.cells[1], s1 = cr.seconds[1];
        rc = compute_piece(&cr, piece, NULL);
        if (!rc)
            rc = load_start(l, c, &(point_spec){PROBE_MIXED, NULL, 0, req, 32, HUGE_VAL, 0});
        if (rc)
            break;
        int freed;
        rc = load_refill(l, &freed); /* the device is busy before the first step */
        if (!rc)
            rc = compute_piece(&cr, piece, l);
        point_run r;
        rc = load_finish(l, rc, &r);
        io_bytes += r.bytes;
        io_seconds += r.seconds;
        rates[0][rounds] = (cr.cells[0] - c0) / (cr.seconds[0] - s0);
        rates[1][rounds] = (cr.cells[1] - c1) / (cr.seconds[1] - s1);
    }
    if (!rc) {
        double alone = stn_median(rates[0], rounds), under = stn_median(rates[1], rounds), s = under / alone;
        *share = !(s > 0.05) ? 0.05 : s > 1 ? 1 : s; /* a NaN too gives 0.05 */
        *io_rate = io_seconds > 0 ? (double)io_bytes / io_seconds : 0;
        if (verbose)
            fprintf(stderr,
                    "stencilc probe: compute   %.3g cells/s alone, %.3g under mixed IO of %lluK @ 32 (%.1f "
                    "MiB/s): %.3f of the rate (%d threads; checksum %.3g)\n",
                    alone, under, (unsigned long long)(req >> 10), (double)io_bytes / io_seconds / (1 << 20),
                    *share, stn_omp_max_threads(), cr.sink);
    }
    stn_free(cr.g[0]);
    stn_free(cr.g[1]);
    free(l);
    return rc;
}

static const char *size_text(uint64_t v, char *buf, size_t n) {
    if (v >= ((uint64_t)1 << 20) && v % ((uint64_t)1 << 20) == 0)
        snprintf(buf, n, "%lluM", (unsigned long long)(v >> 20));
    else
        snprintf(buf, n, "%lluK", (unsigned long long)(v >> 10));
    return buf;
}

/* Append a measured point (request size k, depth d) to a curve; its bandwidth. */
static double add_point(stn_dev_curve *curve, int k, int d, const point_run *r) {
    double bps = (double)r->bytes / (r->seconds > 0 ? r->seconds : 1e-9);
    curve->p[curve->n++] = (stn_dev_point){stn_probe_requests[k], stn_probe_depths[d], bps};
    return bps;
}

/* A test file: a fresh name in dir (O_EXCL, so never somebody else's file), then opened and sized
 * as a grid file into *f (fallocated: space reserved, never written) and unlinked at once. */
static int open_test_file(probe_ctx *c, stn_gridfile *f, uint64_t bytes, size_t align) {
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
    int rc = stn_gridfile_open(f, path, (int64_t)PROBE_ROW, (int64_t)(bytes / PROBE_ROW), 1, 1, align,
                               STN_GRIDFILE_CREATE);
    /* gridio unlinks a file it fails to size; the name is ours either way */
    (void)unlink(path);
    if (rc)
        return stn_error(rc, "cannot create the test file in '%s': %s", c->dir, stn_errmsg());
    if (!f->direct) {
        stn_gridfile_close(f);
        return stn_error(
            -EOPNOTSUPP,
            "the file system of '%s' refuses O_DIRECT (tmpfs before Linux 6.6, some FUSE and "
            "network file systems): a buffered probe would measure the page cache, not the device; probe a "
            "directory on the device itself",
            c->dir);
    }
    return 0;
}

int stn_probe_check_args(const char *dir, uint64_t file_bytes, double seconds_per_point) {
    char hb[32], hb2[32];
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
    return 0;
}

/* The arguments checked (stn_probe_check_args), and a directory on a device (not in memory) whose
 * O_DIRECT alignment (*align) allows the smallest request. */
static int probe_checks(const char *dir, uint64_t file_bytes, double seconds_per_point, size_t *align) {
    int rc = stn_probe_check_args(dir, file_bytes, seconds_per_point);
    if (rc)
        return rc;
    /* tmpfs takes O_DIRECT since Linux 6.6, and would give the speed of memory */
    struct statfs sfs;
    if (statfs(dir, &sfs) == 0 &&
        ((unsigned long)sfs.f_type == PROBE_TMPFS_MAGIC || (unsigned long)sfs.f_type == PROBE_RAMFS_MAGIC))
        return stn_error(-EOPNOTSUPP,
                         "cannot probe '%s': it is in memory (tmpfs or ramfs), not on a device; probe a "
                         "directory on the flash device itself",
                         dir);
    char align_src[512];
    rc = stn_dio_alignment(dir, align, align_src, sizeof align_src);
    if (rc)
        return rc;
    if (*align > PROBE_ROW)
        return stn_error(
            -EINVAL,
            "cannot probe '%s': its O_DIRECT alignment is %zu bytes (%s), more than the smallest "
            "request measured (%llu bytes)",
            dir, *align, align_src, (unsigned long long)PROBE_ROW);
    return 0;
}

/* Every point of the read and the write curves, reads first. */
static int probe_curves(probe_ctx *c, double seconds_per_point, stn_device *out, int verbose) {
    int rc = 0;
    point_run r = {0};
    char hb[32];
    for (int w = 0; w < 2 && !rc; w++) {
        stn_dev_curve *curve = w ? &out->write : &out->read;
        for (int d = 0; d < STN_PROBE_NDEPTHS && !rc; d++)
            for (int k = 0; k < STN_PROBE_NREQUESTS && !rc; k++) {
                if (c->quick && !quick_point(k, d))
                    continue;
                rc = run_point(c,
                               &(point_spec){w ? PROBE_WRITE : PROBE_READ, NULL, 0, stn_probe_requests[k],
                                             stn_probe_depths[d], seconds_per_point, 0},
                               &r);
                if (rc)
                    break;
                double bps = add_point(curve, k, d, &r);
                if (verbose)
                    fprintf(stderr, "stencilc probe: %-9s %5s @ %2d: %9.1f MiB/s (%llu requests in %.2f s)\n",
                            w ? "write" : "read", size_text(stn_probe_requests[k], hb, sizeof hb),
                            stn_probe_depths[d], bps / (1 << 20), (unsigned long long)r.requests, r.seconds);
            }
    }
    return rc;
}

/* Reads and writes at once, as an out-of-core sweep moves them: over written data (mixed), then with the
 * writes going into a fresh file's unwritten extents (mixed_new; at depth 32 only, to keep the probe
 * short; each fresh file of file_bytes, aligned to `align`). */
static int probe_mixed(probe_ctx *c, uint64_t file_bytes, size_t align, double seconds_per_point,
                       stn_device *out, int verbose) {
    char hb[32];
    point_run r;
    memset(&r, 0, sizeof r);
    int rc = 0;
    for (int m = 0; m < 2 && !rc; m++) {
        stn_dev_curve *curve = m ? &out->mixed_new : &out->mixed;
        for (int d = m ? STN_PROBE_NDEPTHS - 1 : STN_PROBE_MIXED_FIRST_DEPTH; d < STN_PROBE_NDEPTHS && !rc;
             d++) {
            for (int k = 0; k < STN_PROBE_NREQUESTS && !rc; k++) {
                if (c->quick && !quick_point(k, d))
                    continue;
                stn_gridfile fresh = {.fd = -1};
                if (m && (rc = open_test_file(c, &fresh, file_bytes, align)) != 0)
                    break;
                rc = run_point(c,
                               &(point_spec){PROBE_MIXED, m ? &fresh : NULL, m, stn_probe_requests[k],
                                             stn_probe_depths[d], seconds_per_point, 0},
                               &r);
                stn_gridfile_close(&fresh); /* unlinked already: its blocks go back now */
                if (rc)
                    break;
                double bps = add_point(curve, k, d, &r);
                if (verbose)
                    fprintf(
                        stderr,
                        "stencilc probe: %-9s %5s @ %2d: %9.1f MiB/s, %.0f%% of it written (%llu requests "
                        "in %.2f s)\n",
                        m ? "mixed_new" : "mixed", size_text(stn_probe_requests[k], hb, sizeof hb),
                        stn_probe_depths[d], bps / (1 << 20),
                        r.bytes ? 100.0 * (double)r.bytes_written / (double)r.bytes : 0.0,
                        (unsigned long long)r.requests, r.seconds);
            }
        }
    }
    return rc;
}

static int probe_run(const char *dir, uint64_t file_bytes, double seconds_per_point, int quick,
                     stn_device *out, int verbose) {
    char hb[32];
    if (!dir || !*dir)
        return stn_error(-EINVAL, "cannot probe: no directory given");
    if (file_bytes == 0)
        file_bytes = STN_PROBE_DEFAULT_BYTES;
    if (seconds_per_point == 0)
        seconds_per_point = STN_PROBE_DEFAULT_SECONDS;
    size_t align = 0;
    int rc = probe_checks(dir, file_bytes, seconds_per_point, &align);
    if (rc)
        return rc;

    probe_ctx c;
    memset(&c, 0, sizeof c);
    c.dir = dir;
    c.f.fd = -1;
    c.rng = 0x9E3779B97F4A7C15ULL;
    c.quick = quick;
    file_bytes -= file_bytes % STN_PROBE_MAX_REQUEST;

    c.slot = quick ? (uint64_t)1 << 20 : STN_PROBE_MAX_REQUEST; /* (a calibration's buffers: 32 MiB) */
    size_t buf_bytes = (size_t)STN_PROBE_MAX_DEPTH * c.slot;
    c.buf = stn_io_alloc(buf_bytes, align); /* (as the engine's rings: 2 MiB pages) */
    if (!c.buf)
        return stn_error(-ENOMEM, "cannot probe '%s': %s", dir, stn_errmsg());
    /* random bytes: storage that compresses or deduplicates must do the real work */
    for (size_t k = 0; k < buf_bytes / sizeof(uint64_t); k++) {
        uint64_t v = next_random(&c);
        memcpy(c.buf + k * sizeof v, &v, sizeof v);
    }

    rc = open_test_file(&c, &c.f, file_bytes, align);
    if (rc) {
        stn_free(c.buf);
        return rc;
    }
    double t_start = stn_now();
    memset(out, 0, sizeof *out);

    /* 1. write the whole file once, so that reads find real data on the device */
    point_run r = {0};
    rc = run_point(&c, &(point_spec){PROBE_WRITE, NULL, 0, c.slot, 8, 0, 1}, &r);
    if (!rc && verbose)
        fprintf(stderr, "stencilc probe: wrote the %s test file in '%s' in %.2f s (%.0f MiB/s)\n",
                stn_fmt_bytes(hb, sizeof hb, file_bytes), dir, r.seconds,
                (double)r.bytes / r.seconds / (1 << 20));
    /* 2. every point, reads first; 3. reads and writes at once */
    if (!rc)
        rc = probe_curves(&c, seconds_per_point, out, verbose);
    if (!rc)
        rc = probe_mixed(&c, file_bytes, align, seconds_per_point, out, verbose);

    /* 4. how much of the kernels' speed is left while the device is busy, and how much of the
     * device's while the kernels run: the same mixed loads (64K and 1M @ 32) as their points of the
     * curve, timed the same way (issued, drained, made durable) */
    for (int k = 0; k < 2 && !rc; k++) {
        uint64_t req = k ? (uint64_t)1 << 20 : (uint64_t)64 << 10;
        double io_rate = 0, *f = k ? &out->compute_under_io_1m : &out->compute_under_io;
        rc = measure_compute_under_io(&c, req, f, &io_rate, verbose);
        double alone = stn_dev_bandwidth(&out->mixed, req, 32), g = alone > 0 ? io_rate / alone : 1;
        *(k ? &out->io_under_compute_1m : &out->io_under_compute) = !(g > 0.05) ? 0.05 : g > 1 ? 1 : g;
    }
    if (rc)
        rc = stn_error(rc, "probing '%s' failed: %s", dir, stn_errmsg());

    char date[64] = "";
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &tm);
    snprintf(out->source, sizeof out->source,
             "%s in '%s' on %s: a %s file, %.2f s per point, %.1f s in all (read, write, mixed, "
             "mixed_new, compute_under_io and io_under_compute at 64K and 1M, the removal of a file%s)",
             quick ? "calibrated" : "probed", dir, date, stn_fmt_bytes(hb, sizeof hb, file_bytes),
             seconds_per_point, stn_now() - t_start, quick ? "; 64K and 1M at depths 8 and 32" : "");
    /* 5. the test file removed (unlinked at its creation: its last descriptor closed), every byte of it
     * written: the file system frees its blocks now, as it will a run's scratch files at its end */
    double t_rm = stn_now();
    stn_gridfile_close(&c.f);
    t_rm = stn_now() - t_rm;
    if (!rc) {
        double gib = (double)file_bytes / (double)(1ULL << 30), s = t_rm / gib;
        out->remove_seconds_per_gib = s > 1e-6 ? s : 1e-6; /* (0 means not measured) */
        if (verbose)
            fprintf(stderr, "stencilc probe: removed the %s test file in %.3f s (%.3f s per GiB written)\n",
                    stn_fmt_bytes(hb, sizeof hb, file_bytes), t_rm, out->remove_seconds_per_gib);
    }
    stn_free(c.buf);
    return rc;
}

int stn_probe(const char *dir, uint64_t file_bytes, double seconds_per_point, stn_device *out, int verbose) {
    return probe_run(dir, file_bytes, seconds_per_point, 0, out, verbose);
}

int stn_probe_calibrate(const char *dir, stn_device *out) {
    return probe_run(dir, STN_CALIBRATE_BYTES, STN_CALIBRATE_SECONDS, 1, out, 0);
}

/* ------------------------------------------------------------------ a load for the plan's kernels */

struct stn_io_load {
    probe_ctx c;
    io_load l;
    uint64_t request;
    int depth, running;
    int ring; /* its buffer is a ring's (stn_ring_alloc), else stn_io_alloc's */
};

int stn_io_load_open(const char *dir, uint64_t file_bytes, uint64_t request, int depth, stn_io_load **out) {
    *out = NULL;
    size_t align = 0;
    if (request < PROBE_ROW || request % PROBE_ROW || request > STN_PROBE_MAX_REQUEST || depth < 2 ||
        depth > STN_PROBE_MAX_DEPTH || file_bytes < (uint64_t)depth * request)
        return stn_error(-EINVAL,
                         "an IO load of %llu-byte requests at depth %d over %llu bytes: out of range",
                         (unsigned long long)request, depth, (unsigned long long)file_bytes);
    int rc = probe_checks(dir, STN_PROBE_MIN_BYTES, 1, &align);
    stn_io_load *l = rc ? NULL : calloc(1, sizeof *l);
    if (rc)
        return rc;
    if (!l)
        return stn_error(-ENOMEM, "cannot start an IO load in '%s': out of memory", dir);
    probe_ctx *c = &l->c;
    c->dir = dir;
    c->f.fd = -1;
    c->rng = 0x9E3779B97F4A7C15ULL;
    c->quick = 1;
    c->slot = request;
    l->request = request;
    l->depth = depth;
    /* mapped as the window's rings are (a memfd in 2 MiB folios, mapped by 4 KiB entries), so that each of
     * its requests costs the CPU what the loop's do: pinned page by page.  From an anonymous buffer mapped by
     * 2 MiB entries, heat3d's long run measured a share of 0.87-0.88; from a ring, 0.79-0.83, its loop
     * keeping 0.79-0.92 of its rate alone (docs/design/026) */
    long page = sysconf(_SC_PAGESIZE);
    l->ring = page > 0 && align <= (size_t)page;
    c->buf =
        l->ring ? stn_ring_alloc((size_t)depth * request, 1) : stn_io_alloc((size_t)depth * request, align);
    if (!c->buf) {
        free(l);
        return stn_error(-ENOMEM, "cannot start an IO load in '%s': %s", dir, stn_errmsg());
    }
    for (size_t k = 0; k < (size_t)depth * request / sizeof(uint64_t); k++) {
        uint64_t v = next_random(c);
        memcpy(c->buf + k * sizeof v, &v, sizeof v);
    }
    rc = open_test_file(c, &c->f, file_bytes - file_bytes % request, align);
    point_run r;
    if (!rc) /* written through once: reads find data on the device */
        rc = run_point(c, &(point_spec){PROBE_WRITE, NULL, 0, request, depth, 0, 1}, &r);
    if (rc) {
        stn_io_load_close(l);
        return rc;
    }
    *out = l;
    return 0;
}

int stn_io_load_begin(stn_io_load *l) {
    int rc = load_start(&l->l, &l->c, &(point_spec){PROBE_MIXED, NULL, 0, l->request, l->depth, HUGE_VAL, 0});
    l->running = rc == 0;
    int freed;
    return rc ? rc : load_refill(&l->l, &freed);
}

int stn_io_load_service(stn_io_load *l) {
    int freed, rc = stn_aio_poll(l->l.q, NULL);
    return rc ? rc : load_refill(&l->l, &freed);
}

int stn_io_load_end(stn_io_load *l, uint64_t *bytes, double *seconds) {
    point_run r = {0};
    int rc = l->running ? load_finish(&l->l, 0, &r) : 0;
    l->running = 0;
    *bytes = r.bytes;
    *seconds = r.seconds;
    return rc;
}

void stn_io_load_close(stn_io_load *l) {
    if (!l)
        return;
    if (l->running) { /* (a failure between begin and end: nothing left in flight into the buffers) */
        point_run r;
        (void)load_finish(&l->l, 0, &r);
    }
    stn_gridfile_close(&l->c.f);
    if (l->ring)
        stn_ring_free(l->c.buf, (size_t)l->depth * l->request, 1);
    else
        stn_free(l->c.buf);
    free(l);
}
