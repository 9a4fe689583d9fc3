/* gridchunks.c -- grid files chunked along y (docs/design/023, stn_gridio.h): the chunk table, and where a
 * row of a plane lies through it.  aio.c and pmem.c place every transfer with these. */
#include "io/stn_gridio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int stn_gridfile_set_chunks(stn_gridfile *f, const int64_t *e, int n) {
    if (n < 0 || (n > 0 && !e))
        return stn_error(-EINVAL, "bad chunk table of %d edges for '%s'", n, f->path ? f->path : "?");
    for (int c = 0; c < n; c++)
        if (e[c] <= (c ? e[c - 1] : 0) || e[c] >= f->ny)
            return stn_error(
                -EINVAL, "bad chunk table for '%s': edge %d is %lld, not in (%lld, %lld) (rows 0 to %lld)",
                f->path ? f->path : "?", c, (long long)e[c], (long long)(c ? e[c - 1] : 0), (long long)f->ny,
                (long long)f->ny);
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
