/* gridparts.c -- a grid file in parts along y (stn_gridio.h; --dir a,b, docs/design/022): part k holds the
 * rows of slab k in a file of its own, at the offsets the whole file's chunk table gives, less the slab's
 * first byte.  aio.c and pmem.c find a transfer's part with stn_gridfile_place (gridchunks.c). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "io/stn_gridio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* fsync the directory that holds path: its new entry survives a crash. */
static int sync_dir_of(const char *path) {
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (slash == path ? 1 : (int)(slash - path)) : 1,
             slash ? path : ".");
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || fsync(fd) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return stn_error(stn_neg_errno(e), "cannot sync the directory '%s' of '%s': %s", dir, path,
                         strerror(e));
    }
    close(fd);
    return 0;
}

int stn_gridfile_open_parts(stn_gridfile *f, const char *const *paths, const int64_t *slab, int n, int64_t nx,
                            int64_t ny, int64_t nz, int64_t esz, size_t align, int flags) {
    if (n <= 1 || !slab)
        return stn_gridfile_open(f, paths[0], nx, ny, nz, esz, align, flags);
    memset(f, 0, sizeof *f);
    f->fd = -1;
    f->nchunks = 1;
    if (slab[0] != 0 || slab[n] != ny)
        return stn_error(-EINVAL, "cannot open '%s' in %d parts: the slabs do not cover rows 0 to %lld",
                         paths[0], n, (long long)ny);
    for (int k = 0; k < n; k++)
        if (slab[k + 1] <= slab[k])
            return stn_error(-EINVAL, "cannot open '%s' in %d parts: slab %d, rows [%lld, %lld), is empty",
                             paths[0], n, k, (long long)slab[k], (long long)slab[k + 1]);
    f->part = calloc((size_t)n, sizeof *f->part);
    f->part_y = malloc((size_t)(n + 1) * sizeof *f->part_y);
    f->path = strdup(paths[0]);
    if (!f->part || !f->part_y || !f->path) {
        stn_gridfile_close(f);
        return stn_error(-ENOMEM, "out of memory while opening '%s'", paths[0]);
    }
    memcpy(f->part_y, slab, (size_t)(n + 1) * sizeof *slab);
    f->direct = 1, f->is_pmem = 1;
    int rc = 0;
    for (int k = 0; rc == 0 && k < n; k++) {
        stn_gridfile *p = &f->part[k];
        rc = stn_gridfile_open(p, paths[k], nx, slab[k + 1] - slab[k], nz, esz, align, flags);
        if (rc == 0 && (flags & STN_GRIDFILE_CREATE))
            rc = sync_dir_of(paths[k]);
        if (rc)
            break;
        f->nparts = k + 1; /* (the parts open so far: close closes them) */
        p->y_base = slab[k];
        f->direct &= p->direct, f->is_pmem &= p->is_pmem;
        f->map_len += p->map_len;
        f->row_bytes = p->row_bytes;
    }
    if (rc) {
        if ((flags & STN_GRIDFILE_CREATE) && f->nparts > 0) /* (the parts this call created) */
            stn_gridfile_unlink(f);
        stn_gridfile_close(f);
        return rc;
    }
    f->nx = nx, f->ny = ny, f->nz = nz, f->esz = esz, f->align = align;
    f->file_bytes = nz * ny * f->row_bytes;
    f->nparts = n;
    rc = stn_gridfile_set_chunks(f, NULL, 0); /* (the slabs' edges) */
    if (rc)
        stn_gridfile_close(f);
    return rc;
}

void stn_gridfile_unlink(const stn_gridfile *f) {
    if (f->nparts > 0) {
        for (int k = 0; k < f->nparts; k++)
            stn_gridfile_unlink(&f->part[k]);
    } else if (f->path) {
        unlink(f->path);
    }
}
