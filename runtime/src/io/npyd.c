/* npyd.c -- a --init .npy's rows read with O_DIRECT through a bounce buffer (stn_npyd.h): every slot of
 * the bounce in flight on a libaio context of its own, each slot's aligned read copied into the rows of
 * the piece it holds as it lands. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "io/stn_npyd.h"

#include "io/stn_gridio.h"

#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NPYD_SLOTS STN_NPY_BOUNCE_SLOTS /* the bounce's slots at the least (stn_mem_npy_bounce) */
#define NPYD_MAX_DEPTH 64               /* ... and up to this many where the runs are short */
#define NPYD_ALIGN 4096                 /* the bounce's own alignment: any file's that stn_npyd_fits takes */

struct stn_npyd {
    io_context_t ctx;
    char *buf;    /* `bytes` of bounce, cut into slots as each call's runs need */
    size_t bytes; /* NPYD_SLOTS times a multiple of NPYD_ALIGN */
};

int stn_npyd_open(stn_npyd **out, uint64_t bytes) {
    *out = NULL;
    stn_npyd *d = calloc(1, sizeof *d);
    if (!d)
        return stn_error(-ENOMEM, "out of memory reading --init files");
    d->bytes = (size_t)(bytes / NPYD_SLOTS / NPYD_ALIGN * NPYD_ALIGN) * NPYD_SLOTS;
    d->buf = d->bytes ? stn_io_alloc(d->bytes, NPYD_ALIGN) : NULL;
    if (!d->buf) {
        free(d);
        return stn_error(-ENOMEM, "out of memory for the --init files' read buffer of %llu bytes",
                         (unsigned long long)bytes);
    }
    int rc = io_setup(NPYD_MAX_DEPTH, &d->ctx); /* (libaio: -errno) */
    if (rc < 0) {
        stn_free(d->buf);
        free(d);
        return stn_error(rc, "cannot create an asynchronous IO queue for the --init files: io_setup: %s",
                         strerror(-rc));
    }
    *out = d;
    return 0;
}

void stn_npyd_close(stn_npyd *d) {
    if (!d)
        return;
    io_destroy(d->ctx);
    stn_free(d->buf);
    free(d);
}

int stn_npyd_open_file(const char *path, size_t *align) {
    int fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = stn_dio_align_of(fd, align);
    if (rc) {
        close(fd);
        return rc;
    }
    return fd;
}

int stn_npyd_fits(const stn_npyd *d, size_t align) {
    return d && align <= NPYD_ALIGN && NPYD_ALIGN % align == 0 &&
           d->bytes / NPYD_SLOTS >= 4 * (size_t)NPYD_ALIGN;
}

/* The piece a slot holds: bytes [pos, pos + len) of runs[run], `head` bytes into the slot's read. */
typedef struct npyd_piece {
    size_t run, pos, len, head, asked;
} npyd_piece;

/* Copy a landed piece from the slot into its rows (the run's bytes from pos on, rows `padded` apart). */
static void scatter(const stn_npyd_run *r, const npyd_piece *p, const char *src) {
    size_t pos = p->pos, left = p->len;
    while (left) {
        size_t row = pos / r->rowb, col = pos % r->rowb, n = r->rowb - col < left ? r->rowb - col : left;
        memcpy(r->dst + row * r->padded + col, src, n);
        src += n, pos += n, left -= n;
    }
}

/* Wait for at least one read; copy each landed one out of its slot (`slot` bytes each) and free it. */
static int reap(stn_npyd *d, size_t slot, const stn_npyd_run *runs, npyd_piece *pc, int *free_slots,
                int *nfree, int *inflight, const char *path, stn_stats *st) {
    struct io_event ev[NPYD_MAX_DEPTH];
    int n;
    do
        n = io_getevents(d->ctx, 1, NPYD_MAX_DEPTH, ev, NULL);
    while (n == -EINTR);
    if (n < 0)
        return stn_error(n, "reading '%s' failed: io_getevents: %s", path, strerror(-n));
    int rc = 0;
    for (int i = 0; i < n; i++) {
        int s = (int)(intptr_t)ev[i].data;
        long res = (long)ev[i].res;
        const npyd_piece *p = &pc[s];
        if (res < 0 && rc == 0)
            rc = stn_error((int)res, "reading '%s' failed at byte %llu (%zu bytes): %s", path,
                           (unsigned long long)(runs[p->run].off + p->pos), p->len, strerror((int)-res));
        else if ((size_t)res < p->head + p->len && rc == 0)
            rc = stn_error(
                -EIO, "reading '%s': the file ends at byte %llu, before the %zu bytes its header says", path,
                (unsigned long long)(runs[p->run].off + p->pos - p->head + (size_t)res), p->len);
        else if (rc == 0) {
            scatter(&runs[p->run], p, d->buf + (size_t)s * slot + p->head);
            st->bytes_read += p->len;
        }
        free_slots[(*nfree)++] = s;
        (*inflight)--;
    }
    return rc;
}

int stn_npyd_read(stn_npyd *d, int fd, size_t align, const stn_npyd_run *runs, size_t n, const char *path,
                  stn_stats *st) {
    struct iocb cb[NPYD_MAX_DEPTH];
    npyd_piece pc[NPYD_MAX_DEPTH];
    /* slots as large as the longest run and its alignment either side, at most a 16th of the bounce; as
     * many as fit, at most NPYD_MAX_DEPTH (short runs: more reads in flight) */
    size_t longest = 0, slot = d->bytes / NPYD_SLOTS;
    for (size_t i = 0; i < n; i++)
        longest = runs[i].len > longest ? runs[i].len : longest;
    size_t want = (longest + 3 * align - 1) / NPYD_ALIGN * NPYD_ALIGN + NPYD_ALIGN;
    slot = want < slot ? want : slot;
    int nslots = (int)(d->bytes / slot < NPYD_MAX_DEPTH ? d->bytes / slot : NPYD_MAX_DEPTH);
    int free_slots[NPYD_MAX_DEPTH], nfree = nslots, inflight = 0, rc = 0;
    for (int s = 0; s < nslots; s++)
        free_slots[s] = nslots - 1 - s;
    size_t k = 0, pos = 0, most = slot - 2 * align; /* (a piece and the alignment either side) */
    while (rc == 0 && (k < n || inflight)) {
        while (rc == 0 && nfree && k < n) {
            if (pos >= runs[k].len) {
                k++, pos = 0;
                continue;
            }
            int s = free_slots[--nfree];
            uint64_t at = runs[k].off + pos, from = at / align * align;
            size_t len = runs[k].len - pos < most ? runs[k].len - pos : most, head = (size_t)(at - from);
            size_t asked = (head + len + align - 1) / align * align;
            pc[s] = (npyd_piece){k, pos, len, head, asked};
            io_prep_pread(&cb[s], fd, d->buf + (size_t)s * slot, asked, (long long)from);
            cb[s].data = (void *)(intptr_t)s;
            struct iocb *one = &cb[s];
            int got = io_submit(d->ctx, 1, &one);
            if (got != 1) {
                free_slots[nfree++] = s;
                rc = stn_error(got < 0 ? got : -EIO, "reading '%s' failed: io_submit: %s", path,
                               strerror(got < 0 ? -got : EIO));
                break;
            }
            inflight++;
            pos += len;
        }
        if (inflight) {
            int r = reap(d, slot, runs, pc, free_slots, &nfree, &inflight, path, st);
            rc = rc ? rc : r;
        }
    }
    while (inflight) { /* (after a failure: nothing may land in the bounce later) */
        struct io_event ev[NPYD_MAX_DEPTH];
        int got = io_getevents(d->ctx, 1, NPYD_MAX_DEPTH, ev, NULL);
        if (got < 0 && got != -EINTR)
            break;
        inflight -= got > 0 ? got : 0;
    }
    return rc;
}
