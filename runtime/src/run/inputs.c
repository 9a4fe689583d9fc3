/* inputs.c -- what a run reads before its engine opens: the series (one value per step), the sets of
 * points and their records' samples, the inputs along an axis (docs/design/010, 011, 012). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "run/stn_run.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The most a series is read ahead of the step: the largest k of its terms, 0 at least. */
static int series_ahead(const stn_program_desc *d, int s) {
    int hi = 0;
    for (int j = 0; j < d->nterms; j++)
        if (d->terms[j].series == s && d->terms[j].k > hi)
            hi = d->terms[j].k;
    return hi;
}

static int load_one_series(stn_run *r, int s, stn_stats *st) {
    const stn_program_desc *d = r->d;
    const char *name = d->series[s].name, *path = r->o->series_path[s];
    int64_t need = r->o->steps + series_ahead(d, s);
    if (!path)
        return stn_error(
            -EINVAL,
            "series '%s' has no values: give them with --init %s=FILE.npy (a 1d '%s' array of at "
            "least %" PRId64 " values, one per step from t = 0)",
            name, name, d->npy_descr, need);
    int fd = stn_open_input(path);
    if (fd < 0)
        return stn_error(fd, "--init %s=%s: %s", name, path, stn_errmsg());
    stn_npy_header h;
    int rc = stn_npy_read_header(path, fd, &h);
    close(fd);
    if (rc == 0 && h.ndim != 1)
        rc = stn_error(-EINVAL, "'%s' has %d dimensions; a series is a 1d array (one value per step)", path,
                       h.ndim);
    if (rc == 0)
        rc = stn_npy_check(path, &h, d->npy_descr, 1, h.shape);
    if (rc == 0 && h.shape[0] < need)
        rc = stn_error(-EINVAL,
                       "'%s' holds %" PRId64 " values, but --steps %" PRId64 " reads %s up to index %" PRId64
                       ": it needs at least %" PRId64,
                       path, h.shape[0], r->o->steps, name, need - 1, need);
    if (rc)
        return stn_error(rc, "--init %s=%s: %s", name, path, stn_errmsg());
    int64_t n = h.shape[0];
    size_t bytes = (size_t)n * (size_t)d->elem_size;
    void *raw = malloc(bytes ? bytes : 1);
    r->inputs.series[s] = malloc((size_t)(n ? n : 1) * sizeof(double));
    if (!raw || !r->inputs.series[s]) {
        free(raw);
        return stn_error(-ENOMEM, "out of memory reading series '%s' (%zu bytes) from '%s'", name, bytes,
                         path);
    }
    rc = stn_npy_load(path, d->npy_descr, 1, &n, raw, st);
    for (int64_t i = 0; rc == 0 && i < n; i++)
        r->inputs.series[s][i] =
            d->elem_size == 4 ? (double)((const float *)raw)[i] : ((const double *)raw)[i];
    free(raw);
    if (rc)
        return stn_error(rc, "--init %s=%s: %s", name, path, stn_errmsg());
    r->inputs.series_len[s] = n;
    r->inputs.series_bytes += bytes;
    return 0;
}

int stn_series_load(stn_run *r, stn_stats *st) {
    const stn_program_desc *d = r->d;
    if (d->nseries == 0)
        return 0;
    r->inputs.series = calloc((size_t)d->nseries, sizeof *r->inputs.series);
    r->inputs.series_len = calloc((size_t)d->nseries, sizeof *r->inputs.series_len);
    if (!r->inputs.series || !r->inputs.series_len)
        return stn_error(-ENOMEM, "out of memory");
    int rc = 0;
    for (int s = 0; rc == 0 && s < d->nseries; s++)
        rc = load_one_series(r, s, st);
    return rc;
}

void stn_series_free(stn_run *r) {
    for (int s = 0; r->inputs.series && s < r->d->nseries; s++)
        free(r->inputs.series[s]);
    free(r->inputs.series);
    free(r->inputs.series_len);
    r->inputs.series = NULL;
    r->inputs.series_len = NULL;
}

static int load_points(stn_run *r, int s, stn_stats *st) {
    const stn_program_desc *d = r->d;
    const char *name = d->pointsets[s].name, *path = r->o->points_path[s];
    const int dims = stn_dims(d); /* coordinates per point: a 1d grid's are x alone (y = 0, its row) */
    if (!path)
        return stn_error(-EINVAL,
                         "points '%s' have no coordinates: give them with --init %s=FILE.npy (an (n, %d) %s "
                         "array, x first)",
                         name, name, dims, d->pointsets[s].offgrid ? "f64" : "integer");
    int fd = stn_open_input(path);
    if (fd < 0)
        return stn_error(fd, "--init %s=%s: %s", name, path, stn_errmsg());
    stn_npy_header h;
    int rc = stn_npy_read_header(path, fd, &h);
    close(fd);
    int four = rc == 0 && strcmp(h.descr, "<i4") == 0, off = d->pointsets[s].offgrid;
    if (rc == 0 && off && strcmp(h.descr, "<f8") != 0)
        rc = stn_error(-EINVAL,
                       "'%s' holds '%s'; off-grid points are reals ('<f8'): convert with a.astype('<f8')",
                       path, h.descr);
    else if (rc == 0 && !off && !four && strcmp(h.descr, "<i8") != 0)
        rc = stn_error(-EINVAL,
                       "'%s' holds '%s'; points are integers ('<i8' or '<i4'): convert with "
                       "a.astype('<i8')",
                       path, h.descr);
    if (rc == 0 && (h.ndim != 2 || h.shape[1] != dims))
        rc = stn_error(-EINVAL, "'%s' is not an (n, %d) array (one row of %d coordinates per point, x first)",
                       path, dims, dims);
    if (rc == 0)
        rc = stn_npy_check(path, &h, h.descr, 2, h.shape);
    int64_t n = rc == 0 ? h.shape[0] : 0;
    size_t bytes = (size_t)(n * dims) * (four ? 4 : 8);
    void *raw = rc == 0 ? malloc(bytes ? bytes : 1) : NULL;
    r->inputs.pts[s] = rc == 0 && !off ? calloc((size_t)(n ? n : 1) * 3, sizeof(int64_t)) : NULL;
    if (rc == 0 && (!raw || (!off && !r->inputs.pts[s])))
        rc = stn_error(-ENOMEM, "out of memory reading %" PRId64 " points from '%s'", n, path);
    if (rc == 0)
        rc = stn_npy_load(path, h.descr, 2, h.shape, raw, st);
    if (rc == 0 && off)
        rc = stn_offgrid_expand(r, s, raw, n);
    for (int64_t i = 0; rc == 0 && !off && i < n; i++)
        for (int k = 0; rc == 0 && k < dims; k++) {
            int64_t c = four ? ((const int32_t *)raw)[i * dims + k] : ((const int64_t *)raw)[i * dims + k];
            int64_t size = r->o->size[k], lo = d->halo_lo[k], hi = size - d->halo_hi[k];
            r->inputs.pts[s][3 * i + k] = c;
            if (c < 0 || c >= size)
                rc = stn_error(-EINVAL,
                               "point %" PRId64 " has %c = %" PRId64 ", outside the grid (0 to %" PRId64 ")",
                               i, "xyz"[k], c, size - 1);
            else if (c < lo || c >= hi)
                rc = stn_error(-EINVAL,
                               "point %" PRId64 " has %c = %" PRId64
                               ", in the boundary layer; the interior is %c in "
                               "[%" PRId64 ", %" PRId64 ")",
                               i, "xyz"[k], c, "xyz"[k], lo, hi);
        }
    free(raw);
    if (rc)
        return stn_error(rc, "--init %s=%s: %s", name, path, stn_errmsg());
    if (!off)
        r->inputs.npts[s] = n, r->inputs.corners[s] = 1;
    r->inputs.points_bytes += bytes;
    return 0;
}

int stn_points_load(stn_run *r, stn_stats *st) {
    const stn_program_desc *d = r->d;
    if (d->npointsets == 0)
        return 0;
    r->inputs.pts = calloc((size_t)d->npointsets, sizeof *r->inputs.pts);
    r->inputs.npts = calloc((size_t)d->npointsets, sizeof *r->inputs.npts);
    r->inputs.wts = calloc((size_t)d->npointsets, sizeof *r->inputs.wts);
    r->inputs.corners = calloc((size_t)d->npointsets, sizeof *r->inputs.corners);
    r->rec = calloc((size_t)d->nrecords + 1, sizeof *r->rec);
    if (!r->inputs.pts || !r->inputs.npts || !r->inputs.wts || !r->inputs.corners || !r->rec)
        return stn_error(-ENOMEM, "out of memory");
    int rc = 0;
    for (int s = 0; rc == 0 && s < d->npointsets; s++)
        rc = load_points(r, s, st);
    for (int k = 0; rc == 0 && k < d->nrecords; k++) {
        size_t bytes =
            (size_t)r->o->steps * (size_t)r->inputs.npts[d->records[k].points] * (size_t)d->elem_size;
        if (!(r->rec[k] = calloc(bytes ? bytes : 1, 1)))
            rc = stn_error(-ENOMEM, "out of memory for the samples of record '%s' (%zu bytes)",
                           d->records[k].name, bytes);
    }
    return rc;
}

void stn_points_free(stn_run *r) {
    for (int s = 0; r->inputs.pts && s < r->d->npointsets; s++)
        free(r->inputs.pts[s]);
    for (int s = 0; r->inputs.wts && s < r->d->npointsets; s++)
        free(r->inputs.wts[s]);
    free(r->inputs.wts);
    free(r->inputs.corners);
    r->inputs.wts = NULL;
    r->inputs.corners = NULL;
    for (int k = 0; r->rec && k < r->d->nrecords; k++)
        free(r->rec[k]);
    free(r->inputs.pts);
    free(r->inputs.npts);
    free(r->rec);
    r->inputs.pts = NULL;
    r->inputs.npts = NULL;
    r->rec = NULL;
}

uint64_t stn_record_row_bytes(const stn_run *r) {
    uint64_t b = 0;
    for (int k = 0; r->inputs.npts && k < r->d->nrecords; k++)
        b += (uint64_t)r->inputs.npts[r->d->records[k].points] * (uint64_t)r->d->elem_size;
    return b;
}

int stn_along_load(stn_run *r, stn_stats *st) {
    const stn_program_desc *d = r->d;
    if (d->nalong == 0)
        return 0;
    if (!(r->inputs.along = calloc((size_t)d->nalong, sizeof *r->inputs.along)))
        return stn_error(-ENOMEM, "out of memory");
    for (int j = 0; j < d->nalong; j++) {
        const stn_along_desc *a = &d->alongs[j];
        const char *path = r->o->along_path[j];
        int64_t n = r->o->size[a->axis];
        if (!(r->inputs.along[j] = calloc((size_t)n, (size_t)d->elem_size)))
            return stn_error(-ENOMEM, "out of memory for input '%s' (%" PRId64 " values)", a->name, n);
        if (path) {
            int rc = stn_npy_load(path, d->npy_descr, 1, &n, r->inputs.along[j], st);
            if (rc)
                return stn_error(rc, "--init %s=%s: %s (an input along %c: one value per index of %c)",
                                 a->name, path, stn_errmsg(), "xyz"[a->axis], "xyz"[a->axis]);
            r->inputs.along_bytes += (uint64_t)n * (uint64_t)d->elem_size;
        } else if (a->has_init) {
            d->along_init(j, r->inputs.along[j], &r->view, r->o->params);
        }
    }
    return 0;
}

void stn_along_free(stn_run *r) {
    for (int j = 0; r->inputs.along && j < r->d->nalong; j++)
        free(r->inputs.along[j]);
    free(r->inputs.along);
    r->inputs.along = NULL;
}
