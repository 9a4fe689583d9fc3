/* probe_pmem.c -- `stencilc probe --tier pmem --dir D` (docs/design/022): the pmem tier's curves, measured
 * with the copies the tier makes (pmem.c), in a test file mapped with libpmem.
 *
 * The test file (file_bytes, rounded down to a multiple of the largest request) is created in dir,
 * mapped whole and unlinked at once, then written through once.  For every request size of
 * STN_PROBE_REQUESTS: reads (memcpy from the mapping into DRAM) and writes (pmem_memcpy_nodrain into it
 * and pmem_drain, as stn_pmem_transfer does), each at a random offset (a multiple of its size), for about
 * seconds_per_point and at least STN_PROBE_MIN_PER_SLOT copies; a point that writes also counts the
 * stn_pmem_sync (pmem_persist, or pmem_msync without DAX) that makes them durable, as the commit does.
 * mixed alternates a read and a write over the written file; mixed_new writes into a second file, fresh
 * for every point, at positions never written (in order; the point ends early if they run out).
 *
 * The tier's copies are made by the engine's main thread when it queues them, never beside the kernels:
 * a copy runs at one depth whatever the queue's, so each request size's figure is the curve's point at
 * every depth of STN_PROBE_DEPTHS; compute_under_io is 1 (the kernels never share the machine with a
 * copy) and io_under_compute 0.001 (no copy progresses while the kernels run: the time model adds the
 * two, ooc_model.c's sweep_time). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "io/stn_gridio.h"
#include "io/stn_probe.h"

#include <errno.h>
#include <fcntl.h>
#include <libpmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PMEM_PROBE_ROW ((uint64_t)64 << 10)
enum { PP_READ, PP_WRITE, PP_MIXED };

typedef struct pp_ctx {
    const char *dir;
    stn_gridfile f;
    char *buf; /* STN_PROBE_MAX_REQUEST bytes of DRAM */
    uint64_t rng;
    double seconds; /* per point */
} pp_ctx;

static uint64_t pp_random(pp_ctx *c) { return stn_probe_xorshift(&c->rng); }

/* A mapped test file of `bytes` in dir (a fresh name, O_EXCL), unlinked at once. */
static int pp_open(pp_ctx *c, stn_gridfile *f, uint64_t bytes) {
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/.stencilc-probe-pmem-%ld-XXXXXX", c->dir, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof path)
        return stn_error(-ENAMETOOLONG, "cannot probe '%s': the directory's name is too long", c->dir);
    int fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return stn_error(stn_neg_errno(e), "cannot create a test file in '%s': %s", c->dir, strerror(e));
    }
    close(fd);
    int rc = stn_gridfile_open(f, path, (int64_t)PMEM_PROBE_ROW, (int64_t)(bytes / PMEM_PROBE_ROW), 1, 1, 64,
                               STN_GRIDFILE_CREATE | STN_GRIDFILE_PMEM);
    (void)unlink(path);
    if (rc)
        return stn_error(rc, "cannot create the mapped test file in '%s': %s", c->dir, stn_errmsg());
    return 0;
}

/* One point: copies of `request` bytes (reads, writes or both in turn; mixed_new's writes go to `fresh`
 * in order) for about c->seconds; the bytes moved per second, the writes made durable within the time. */
static int pp_point(pp_ctx *c, int kind, stn_gridfile *fresh, uint64_t request, double *bps) {
    uint64_t slots = (uint64_t)c->f.file_bytes / request, bytes = 0, copies = 0, next_new = 0;
    uint64_t fresh_slots = fresh ? (uint64_t)fresh->file_bytes / request : 0;
    int wrote = 0;
    double t0 = stn_now(), t = t0;
    while ((t - t0 < c->seconds || copies < STN_PROBE_MIN_PER_SLOT) && (!fresh || next_new < fresh_slots)) {
        int write = kind == PP_WRITE || (kind == PP_MIXED && copies % 2 == 1);
        char *at = c->f.map + (pp_random(c) % slots) * request;
        if (write && fresh)
            at = fresh->map + next_new++ * request;
        if (write) {
            pmem_memcpy_nodrain(at, c->buf, request);
            pmem_drain();
            wrote = 1;
        } else {
            memcpy(c->buf, at, request);
        }
        bytes += request;
        copies++;
        if (copies % 16 == 0 || copies < 16)
            t = stn_now();
    }
    int rc = wrote ? stn_pmem_sync(fresh ? fresh : &c->f) : 0;
    double s = stn_now() - t0;
    *bps = (double)bytes / (s > 0 ? s : 1e-9);
    return rc;
}

/* Each request size once: its figure at every depth the curve lists from depth index d0 on. */
static int pp_curve(pp_ctx *c, int kind, int fresh_files, int d0, stn_dev_curve *curve, const char *name,
                    int verbose) {
    double bps[STN_PROBE_NREQUESTS];
    for (int k = 0; k < STN_PROBE_NREQUESTS; k++) {
        stn_gridfile fresh = {.fd = -1};
        int rc = fresh_files ? pp_open(c, &fresh, (uint64_t)c->f.file_bytes) : 0;
        if (rc == 0)
            rc = pp_point(c, kind, fresh_files ? &fresh : NULL, stn_probe_requests[k], &bps[k]);
        stn_gridfile_close(&fresh);
        if (rc)
            return rc;
        if (verbose)
            fprintf(stderr, "stencilc probe: pmem %-9s %7lluK: %9.1f MiB/s\n", name,
                    (unsigned long long)(stn_probe_requests[k] >> 10), bps[k] / (1 << 20));
    }
    for (int d = d0; d < STN_PROBE_NDEPTHS; d++)
        for (int k = 0; k < STN_PROBE_NREQUESTS; k++)
            curve->p[curve->n++] = (stn_dev_point){stn_probe_requests[k], stn_probe_depths[d], bps[k]};
    return 0;
}

static int pp_checks(const char *dir, uint64_t file_bytes, double seconds_per_point) {
    if (!dir || !*dir)
        return stn_error(-EINVAL, "cannot probe: no directory given");
    return stn_probe_check_args(dir, file_bytes, seconds_per_point);
}

int stn_probe_pmem(const char *dir, uint64_t file_bytes, double seconds_per_point, stn_device *out,
                   int verbose) {
    char hb[32];
    file_bytes = file_bytes ? file_bytes : STN_PROBE_DEFAULT_BYTES;
    seconds_per_point = seconds_per_point != 0 ? seconds_per_point : STN_PROBE_DEFAULT_SECONDS;
    int rc = pp_checks(dir, file_bytes, seconds_per_point);
    if (rc)
        return rc;
    file_bytes -= file_bytes % STN_PROBE_MAX_REQUEST;
    pp_ctx c = {.dir = dir, .f = {.fd = -1}, .rng = 0x9E3779B97F4A7C15ULL, .seconds = seconds_per_point};
    c.buf = stn_alloc(STN_PROBE_MAX_REQUEST, 4096);
    if (!c.buf)
        return stn_error(-ENOMEM, "cannot probe '%s': %s", dir, stn_errmsg());
    for (size_t k = 0; k < STN_PROBE_MAX_REQUEST / sizeof(uint64_t); k++) { /* random bytes */
        uint64_t v = pp_random(&c);
        memcpy(c.buf + k * sizeof v, &v, sizeof v);
    }
    memset(out, 0, sizeof *out);
    double t_start = stn_now();
    rc = pp_open(&c, &c.f, file_bytes);
    for (uint64_t at = 0; rc == 0 && at < file_bytes; at += STN_PROBE_MAX_REQUEST) /* written through once */
        pmem_memcpy_nodrain(c.f.map + at, c.buf, STN_PROBE_MAX_REQUEST);
    if (rc == 0) {
        pmem_drain();
        rc = stn_pmem_sync(&c.f);
    }
    if (rc == 0 && verbose)
        fprintf(stderr, "stencilc probe: pmem: a %s test file mapped in '%s' (is_pmem %s)\n",
                stn_fmt_bytes(hb, sizeof hb, file_bytes), dir, c.f.is_pmem ? "true" : "false");
    if (rc == 0)
        rc = pp_curve(&c, PP_READ, 0, 0, &out->read, "read", verbose);
    if (rc == 0)
        rc = pp_curve(&c, PP_WRITE, 0, 0, &out->write, "write", verbose);
    if (rc == 0)
        rc = pp_curve(&c, PP_MIXED, 0, STN_PROBE_MIXED_FIRST_DEPTH, &out->mixed, "mixed", verbose);
    if (rc == 0)
        rc = pp_curve(&c, PP_MIXED, 1, STN_PROBE_NDEPTHS - 1, &out->mixed_new, "mixed_new", verbose);
    out->compute_under_io = 1;
    out->io_under_compute = 0.001;
    if (rc)
        rc = stn_error(rc, "probing '%s' for --tier pmem failed: %s", dir, stn_errmsg());
    snprintf(out->source, sizeof out->source,
             "probed for --tier pmem in '%s' (is_pmem %s): a %s mapped file, %.2f s per point, %.1f s in all",
             dir, c.f.is_pmem ? "true" : "false", stn_fmt_bytes(hb, sizeof hb, file_bytes), seconds_per_point,
             stn_now() - t_start);
    stn_gridfile_close(&c.f);
    stn_free(c.buf);
    return rc;
}
