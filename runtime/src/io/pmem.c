/* pmem.c -- --tier pmem (docs/design/022): a grid file mapped whole with libpmem (PMDK), its rows moved
 * by copies instead of libaio requests, made durable with pmem_persist (or pmem_msync where the mapping
 * is not persistent memory).  gridio.c maps and unmaps, aio.c hands a mapped file's transfers here. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "io/stn_gridio.h"

#include <errno.h>
#include <libpmem.h>
#include <stdio.h>
#include <string.h>

int stn_pmem_map(stn_gridfile *f) {
    size_t len = 0;
    int is_pmem = 0;
    errno = 0;
    void *p = pmem_map_file(f->path, 0, 0, 0, &len, &is_pmem);
    if (!p) {
        int e = errno ? errno : EIO;
        const char *why = pmem_errormsg();
        return stn_error(stn_neg_errno(e), "cannot map grid file '%s' (%lld bytes) for --tier pmem: %s",
                         f->path, (long long)f->file_bytes, why && *why ? why : strerror(e));
    }
    if ((int64_t)len < f->file_bytes) {
        pmem_unmap(p, len);
        return stn_error(-EINVAL, "grid file '%s' maps %zu bytes for --tier pmem, expected %lld", f->path,
                         len, (long long)f->file_bytes);
    }
    f->map = p;
    f->map_len = len;
    f->is_pmem = is_pmem;
    return 0;
}

void stn_pmem_unmap(stn_gridfile *f) {
    if (f->map)
        pmem_unmap(f->map, f->map_len);
    f->map = NULL;
    f->map_len = 0;
}

int stn_pmem_sync(stn_gridfile *f) {
    if (f->is_pmem) {
        pmem_persist(f->map, f->map_len);
        return 0;
    }
    if (pmem_msync(f->map, f->map_len) != 0) {
        int e = errno ? errno : EIO;
        return stn_error(stn_neg_errno(e), "cannot sync grid file '%s' (%zu bytes mapped): msync: %s",
                         f->path, f->map_len, strerror(e));
    }
    return 0;
}

int stn_pmem_transfer(stn_gridfile *f, int write, const stn_span *sp, char *buf, size_t plane,
                      stn_aio_group *g, stn_stats *st) {
    uint64_t rb = (uint64_t)f->row_bytes, rows = (uint64_t)(sp->y1 - sp->y0);
    size_t span = (size_t)(rows * rb);
    double t0 = stn_now();
    for (int64_t z = sp->z0; z < sp->z1; z++)
        for (int64_t a = sp->y0, lo, hi; a < sp->y1; a = hi < sp->y1 ? hi : sp->y1) { /* each chunk's rows */
            stn_gridfile_chunk(f, a, &lo, &hi);
            size_t len = (size_t)(((hi < sp->y1 ? hi : sp->y1) - a) * (int64_t)rb);
            char *mem = buf + (size_t)(z - sp->z0) * plane + (size_t)(a - sp->y0) * rb;
            uint64_t base;
            stn_gridfile *pf = stn_gridfile_place(f, a, &base); /* (its part: gridparts.c) */
            char *at = pf->map + (stn_gridfile_offset(f, z, a) - base);
            if (write)
                pmem_memcpy_nodrain(at, mem, len);
            else
                memcpy(mem, at, len);
        }
    if (write)
        pmem_drain();
    stn_stats_add_time(st, write ? STN_PHASE_WRITE : STN_PHASE_READ, t0);
    uint64_t bytes = (uint64_t)span * (uint64_t)(sp->z1 - sp->z0);
    if (g)
        g->bytes += bytes;
    if (st) {
        if (write)
            st->bytes_written += bytes;
        else
            st->bytes_read += bytes;
    }
    return 0;
}
