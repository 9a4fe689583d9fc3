/* gridchunks.c -- grid files chunked along y (docs/design/023, stn_gridio.h): the chunk table, and where a
 * row of a plane lies through it.  aio.c and pmem.c place every transfer with these. */
#include "io/stn_gridio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The table of f (edges checked) set to the n inner edges e. */
static int set_table(stn_gridfile *f, const int64_t *e, int n);

/* A file in parts (gridparts.c): its table is e with the slabs' inner edges added, each part's the edges
 * inside its slab, from its first row. */
static int set_parts_table(stn_gridfile *f, const int64_t *e, int n) {
    int m = 0, rc = 0;
    int64_t *u = malloc((size_t)(n + f->nparts) * sizeof *u);
    if (!u)
        return stn_error(-ENOMEM, "out of memory for the chunks of '%s'", f->path ? f->path : "?");
    for (int i = 0, k = 1; i < n || k < f->nparts;) {
        int64_t v = k >= f->nparts || (i < n && e[i] < f->part_y[k]) ? e[i++] : f->part_y[k++];
        if (m == 0 || u[m - 1] < v)
            u[m++] = v;
    }
    rc = set_table(f, u, m);
    for (int k = 0, j = 0; rc == 0 && k < f->nparts; k++) {
        int64_t lo = f->part_y[k], hi = f->part_y[k + 1];
        while (j < m && u[j] <= lo)
            j++;
        int c = 0;
        while (j + c < m && u[j + c] < hi)
            u[j + c] -= lo, c++; /* (each edge is inside one slab: made relative once) */
        rc = set_table(&f->part[k], u + j, c);
        j += c;
    }
    free(u);
    return rc;
}

int stn_gridfile_set_chunks(stn_gridfile *f, const int64_t *e, int n) {
    if (n < 0 || (n > 0 && !e))
        return stn_error(-EINVAL, "bad chunk table of %d edges for '%s'", n, f->path ? f->path : "?");
    for (int c = 0; c < n; c++)
        if (e[c] <= (c ? e[c - 1] : 0) || e[c] >= f->ny)
            return stn_error(
                -EINVAL, "bad chunk table for '%s': edge %d is %lld, not in (%lld, %lld) (rows 0 to %lld)",
                f->path ? f->path : "?", c, (long long)e[c], (long long)(c ? e[c - 1] : 0), (long long)f->ny,
                (long long)f->ny);
    return f->nparts > 1 ? set_parts_table(f, e, n) : set_table(f, e, n);
}

static int set_table(stn_gridfile *f, const int64_t *e, int n) {
    int64_t *y = NULL;
    if (n > 0) {
        y = malloc((size_t)(n + 2) * sizeof *y);
        if (!y)
            return stn_error(-ENOMEM, "out of memory for the %d chunks of '%s'", n + 1,
                             f->path ? f->path : "?");
        y[0] = 0;
        memcpy(y + 1, e, (size_t)n * sizeof *y);
        y[n + 1] = f->ny;
    }
    free(f->chunk_y);
    f->chunk_y = y;
    f->nchunks = n + 1;
    return 0;
}

int stn_gridfile_chunk(const stn_gridfile *f, int64_t y, int64_t *lo, int64_t *hi) {
    if (!f->chunk_y || f->nchunks <= 1) {
        *lo = 0, *hi = f->ny;
        return 0;
    }
    int a = 0, b = f->nchunks; /* Y_a <= y < Y_b */
    while (b - a > 1) {
        int m = (a + b) / 2;
        if (f->chunk_y[m] <= y)
            a = m;
        else
            b = m;
    }
    *lo = f->chunk_y[a], *hi = f->chunk_y[a + 1];
    return a;
}

uint64_t stn_gridfile_offset(const stn_gridfile *f, int64_t z, int64_t y) {
    int64_t lo, hi;
    stn_gridfile_chunk(f, y, &lo, &hi);
    return ((uint64_t)lo * (uint64_t)f->nz + (uint64_t)z * (uint64_t)(hi - lo) + (uint64_t)(y - lo)) *
           (uint64_t)f->row_bytes;
}

/* (gridparts.c's files in parts: which part, from which byte of the whole) */
stn_gridfile *stn_gridfile_place(stn_gridfile *f, int64_t y, uint64_t *base) {
    *base = 0;
    if (f->nparts <= 1)
        return f;
    int k = 0;
    while (k + 1 < f->nparts && f->part_y[k + 1] <= y)
        k++;
    *base = (uint64_t)f->part_y[k] * (uint64_t)f->nz * (uint64_t)f->row_bytes;
    return &f->part[k];
}
