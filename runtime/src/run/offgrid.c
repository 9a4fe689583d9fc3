/* offgrid.c -- off-grid sets of points (`points NAME real;`, docs/design/025 section 3): each point turned
 * once, at load, into its 2^dims corner cells and their bilinear/trilinear weights; a record's samples at
 * those corners summed into the point's sample when the run's outputs are written. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "run/stn_run.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The point's coordinates as given, for a message: "x = 1.5, y = 2.25". */
static const char *coords_text(const double *c, int dims, char *buf, size_t n) {
    int at = 0;
    for (int k = 0; k < dims && at < (int)n; k++)
        at += snprintf(buf + at, n - (size_t)at, "%s%c = %.17g", k ? ", " : "", "xyz"[k], c[k]);
    return buf;
}

/* Point i's cell coordinates (coord / spacing), its lower corner and fractions; an error naming the
 * point, its coordinates and the axis where a corner leaves the interior. */
static int point_cells(const stn_run *r, const char *name, int64_t i, const double *c, double h,
                       int64_t lo[3], double f[3]) {
    const stn_program_desc *d = r->d;
    int dims = stn_dims(d);
    char buf[160];
    for (int k = 0; k < dims; k++) {
        double x = c[k] / h, fl = floor(x);
        int64_t in_lo = d->halo_lo[k], in_hi = r->o->size[k] - d->halo_hi[k];
        if (!isfinite(x) || fl < (double)in_lo || fl + 1 >= (double)in_hi)
            return stn_error(
                -EINVAL,
                "point %" PRId64 " of '%s' (%s) reaches the boundary layer or beyond: its corner "
                "cells along %c are %.17g and %.17g, and the interior is %c in [%" PRId64 ", %" PRId64 ")",
                i, name, coords_text(c, dims, buf, sizeof buf), "xyz"[k], fl, fl + 1, "xyz"[k], in_lo, in_hi);
        lo[k] = (int64_t)fl;
        f[k] = x - fl;
    }
    return 0;
}

int stn_offgrid_expand(stn_run *r, int s, const double *raw, int64_t n) {
    const stn_program_desc *d = r->d;
    const stn_points_desc *ps = &d->pointsets[s];
    int dims = stn_dims(d), C = 1 << dims;
    double h = ps->spacing >= 0 ? r->o->params[ps->spacing] : 1.0;
    if (ps->spacing >= 0 && !(h > 0 && isfinite(h)))
        return stn_error(-EINVAL, "points '%s' are in units of param '%s', which is %.17g: a spacing is > 0",
                         ps->name, d->params[ps->spacing].name, h);
    int64_t m = n * C;
    r->inputs.pts[s] = calloc((size_t)(m ? m : 1) * 3, sizeof(int64_t));
    r->inputs.wts[s] = calloc((size_t)(m ? m : 1), sizeof(double));
    if (!r->inputs.pts[s] || !r->inputs.wts[s])
        return stn_error(-ENOMEM, "out of memory for the %" PRId64 " corner cells of points '%s'", m,
                         ps->name);
    for (int64_t i = 0; i < n; i++) {
        int64_t lo[3] = {0, 0, 0};
        double f[3] = {0, 0, 0};
        int rc = point_cells(r, ps->name, i, raw + i * dims, h, lo, f);
        if (rc)
            return rc;
        for (int c = 0; c < C; c++) { /* corner c: bit k of c is +1 along axis k (x the lowest) */
            int64_t *p = r->inputs.pts[s] + 3 * (i * C + c);
            double w = 1.0;
            for (int k = 0; k < dims; k++) {
                int up = (c >> k) & 1;
                p[k] = lo[k] + up;
                w *= up ? f[k] : 1.0 - f[k];
            }
            r->inputs.wts[s][i * C + c] = w;
        }
    }
    r->inputs.npts[s] = m;
    r->inputs.corners[s] = C;
    return 0;
}

int64_t stn_record_points(const stn_run *r, int k) {
    int s = r->d->records[k].points;
    return r->inputs.npts ? r->inputs.npts[s] / (r->inputs.corners[s] ? r->inputs.corners[s] : 1) : 0;
}

void stn_record_combine(const stn_run *r, int k) {
    int s = r->d->records[k].points, C = r->inputs.corners ? r->inputs.corners[s] : 1;
    if (C <= 1)
        return;
    int64_t n = stn_record_points(r, k), rows = r->o->steps;
    const double *w = r->inputs.wts[s];
    /* in place, forward: sample (t, i) lands at or below the first of its slots, read before */
    for (int64_t j = 0; j < rows * n; j++) {
        int64_t i = j % n;
        if (r->d->elem_size == 4) {
            float *a = r->rec[k];
            float acc = (float)w[i * C] * a[j * C];
            for (int c = 1; c < C; c++)
                acc += (float)w[i * C + c] * a[j * C + c];
            a[j] = acc;
        } else {
            double *a = r->rec[k];
            double acc = w[i * C] * a[j * C];
            for (int c = 1; c < C; c++)
                acc += w[i * C + c] * a[j * C + c];
            a[j] = acc;
        }
    }
}
