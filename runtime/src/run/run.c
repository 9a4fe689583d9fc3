/* run.c -- what both engines share with the program that runs them: the run's warnings and the
 * engines' per-field arrays.  Below program.c and the engines (stn_run.h lists the layers), so
 * that neither engine calls up into program.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "run/stn_run.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void stn_warn(stn_log *log, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (log->n < STN_MAX_WARNINGS) {
        char *copy = strdup(buf);
        if (copy)
            log->msg[log->n++] = copy;
    }
    if (!log->quiet)
        fprintf(stderr, "%s: warning: %s\n", log->name, buf);
}

void stn_log_free(stn_log *log) {
    for (int k = 0; k < log->n; k++)
        free(log->msg[k]);
    log->n = 0;
}

/* A small grid of the run's rows: x as in the run (at most 2048), y and z cut so that all the
 * kernel's arrays together take at most `cap` bytes. */
static stn_view rate_grid(const stn_program_desc *d, const stn_view *g, uint64_t cap) {
    int64_t narr = d->nsrc + d->ndst, nx = g->nx < 2048 ? g->nx : 2048, ny = g->ny, nz = g->nz;
    uint64_t row = (uint64_t)nx * (uint64_t)d->elem_size * (uint64_t)(narr > 0 ? narr : 1);
    int64_t hy = d->reach_lo[1] + d->reach_hi[1] + 1, hz = d->reach_lo[2] + d->reach_hi[2] + 1;
    while ((uint64_t)ny * (uint64_t)nz * row > cap && (ny > hy || nz > hz)) {
        if (nz > hz && (nz >= ny || ny <= hy))
            nz = nz / 2 > hz ? nz / 2 : hz;
        else
            ny = ny / 2 > hy ? ny / 2 : hy;
    }
    return (stn_view){nx, ny, nz, nx, nx * ny, 0, 0, 0};
}

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
    r->series[s] = malloc((size_t)(n ? n : 1) * sizeof(double));
    if (!raw || !r->series[s]) {
        free(raw);
        return stn_error(-ENOMEM, "out of memory reading series '%s' (%zu bytes) from '%s'", name, bytes,
                         path);
    }
    rc = stn_npy_load(path, d->npy_descr, 1, &n, raw, st);
    for (int64_t i = 0; rc == 0 && i < n; i++)
        r->series[s][i] = d->elem_size == 4 ? (double)((const float *)raw)[i] : ((const double *)raw)[i];
    free(raw);
    if (rc)
        return stn_error(rc, "--init %s=%s: %s", name, path, stn_errmsg());
    r->series_len[s] = n;
    r->series_bytes += bytes;
    return 0;
}

int stn_series_load(stn_run *r, stn_stats *st) {
    const stn_program_desc *d = r->d;
    if (d->nseries == 0)
        return 0;
    r->series = calloc((size_t)d->nseries, sizeof *r->series);
    r->series_len = calloc((size_t)d->nseries, sizeof *r->series_len);
    if (!r->series || !r->series_len)
        return stn_error(-ENOMEM, "out of memory");
    int rc = 0;
    for (int s = 0; rc == 0 && s < d->nseries; s++)
        rc = load_one_series(r, s, st);
    return rc;
}

void stn_series_free(stn_run *r) {
    for (int s = 0; r->series && s < r->d->nseries; s++)
        free(r->series[s]);
    free(r->series);
    free(r->series_len);
    r->series = NULL;
    r->series_len = NULL;
}

static int load_points(stn_run *r, int s, stn_stats *st) {
    const stn_program_desc *d = r->d;
    const char *name = d->pointsets[s].name, *path = r->o->points_path[s];
    const int dims = stn_dims(d); /* coordinates per point: a 1d grid's are x alone (y = 0, its row) */
    if (!path)
        return stn_error(
            -EINVAL,
            "points '%s' have no coordinates: give them with --init %s=FILE.npy (an (n, %d) integer "
            "array, x first)",
            name, name, dims);
    int fd = stn_open_input(path);
    if (fd < 0)
        return stn_error(fd, "--init %s=%s: %s", name, path, stn_errmsg());
    stn_npy_header h;
    int rc = stn_npy_read_header(path, fd, &h);
    close(fd);
    int four = rc == 0 && strcmp(h.descr, "<i4") == 0;
    if (rc == 0 && !four && strcmp(h.descr, "<i8") != 0)
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
    r->pts[s] = rc == 0 ? calloc((size_t)(n ? n : 1) * 3, sizeof(int64_t)) : NULL;
    if (rc == 0 && (!raw || !r->pts[s]))
        rc = stn_error(-ENOMEM, "out of memory reading %" PRId64 " points from '%s'", n, path);
    if (rc == 0)
        rc = stn_npy_load(path, h.descr, 2, h.shape, raw, st);
    for (int64_t i = 0; rc == 0 && i < n; i++)
        for (int k = 0; rc == 0 && k < dims; k++) {
            int64_t c = four ? ((const int32_t *)raw)[i * dims + k] : ((const int64_t *)raw)[i * dims + k];
            int64_t size = r->o->size[k], lo = d->halo_lo[k], hi = size - d->halo_hi[k];
            r->pts[s][3 * i + k] = c;
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
    r->npts[s] = n;
    r->points_bytes += bytes;
    return 0;
}

int stn_points_load(stn_run *r, stn_stats *st) {
    const stn_program_desc *d = r->d;
    if (d->npointsets == 0)
        return 0;
    r->pts = calloc((size_t)d->npointsets, sizeof *r->pts);
    r->npts = calloc((size_t)d->npointsets, sizeof *r->npts);
    r->rec = calloc((size_t)d->nrecords + 1, sizeof *r->rec);
    if (!r->pts || !r->npts || !r->rec)
        return stn_error(-ENOMEM, "out of memory");
    int rc = 0;
    for (int s = 0; rc == 0 && s < d->npointsets; s++)
        rc = load_points(r, s, st);
    for (int k = 0; rc == 0 && k < d->nrecords; k++) {
        size_t bytes = (size_t)r->o->steps * (size_t)r->npts[d->records[k].points] * (size_t)d->elem_size;
        if (!(r->rec[k] = calloc(bytes ? bytes : 1, 1)))
            rc = stn_error(-ENOMEM, "out of memory for the samples of record '%s' (%zu bytes)",
                           d->records[k].name, bytes);
    }
    return rc;
}

void stn_points_free(stn_run *r) {
    for (int s = 0; r->pts && s < r->d->npointsets; s++)
        free(r->pts[s]);
    for (int k = 0; r->rec && k < r->d->nrecords; k++)
        free(r->rec[k]);
    free(r->pts);
    free(r->npts);
    free(r->rec);
    r->pts = NULL;
    r->npts = NULL;
    r->rec = NULL;
}

uint64_t stn_record_row_bytes(const stn_run *r) {
    uint64_t b = 0;
    for (int k = 0; r->npts && k < r->d->nrecords; k++)
        b += (uint64_t)r->npts[r->d->records[k].points] * (uint64_t)r->d->elem_size;
    return b;
}

int stn_along_load(stn_run *r, stn_stats *st) {
    const stn_program_desc *d = r->d;
    if (d->nalong == 0)
        return 0;
    if (!(r->along = calloc((size_t)d->nalong, sizeof *r->along)))
        return stn_error(-ENOMEM, "out of memory");
    for (int j = 0; j < d->nalong; j++) {
        const stn_along_desc *a = &d->alongs[j];
        const char *path = r->o->along_path[j];
        int64_t n = r->o->size[a->axis];
        if (!(r->along[j] = calloc((size_t)n, (size_t)d->elem_size)))
            return stn_error(-ENOMEM, "out of memory for input '%s' (%" PRId64 " values)", a->name, n);
        if (path) {
            int rc = stn_npy_load(path, d->npy_descr, 1, &n, r->along[j], st);
            if (rc)
                return stn_error(rc, "--init %s=%s: %s (an input along %c: one value per index of %c)",
                                 a->name, path, stn_errmsg(), "xyz"[a->axis], "xyz"[a->axis]);
            r->along_bytes += (uint64_t)n * (uint64_t)d->elem_size;
        } else if (a->has_init) {
            d->along_init(j, r->along[j], &r->view, r->o->params);
        }
    }
    return 0;
}

void stn_along_free(stn_run *r) {
    for (int j = 0; r->along && j < r->d->nalong; j++)
        free(r->along[j]);
    free(r->along);
    r->along = NULL;
}

/* ------------------------------------------------------------------ a 1d grid folded into rows */

void stn_fold_make(int64_t n, int64_t hlo, int64_t hhi, int64_t reach, int64_t elem, size_t align,
                   stn_fold *f) {
    int64_t a = (int64_t)align > elem ? (int64_t)align / elem : 1; /* cells of one alignment unit */
    int64_t least = 4096 / elem, m = n - hlo - hhi;                /* m: the interior's cells */
    least = least > reach ? least : reach;
    least = least > hlo ? least : hlo;
    least = least > hhi ? least : hhi;
    int64_t W = (least + a - 1) / a * a;
    /* the last interior row (row 1 + (m-1)/W) holds at least hhi cells of the interior, or is the
     * first: the trailing cells' mirror sources are never two rows before them */
    while (m > 1 && (m - 1) / W >= 1 && (m - 1) % W < hhi - 1)
        W += a;
    f->W = W;
    f->P = W - hlo;
    f->n = n;
    f->lo = hlo;
    f->hi = n - hhi;
    f->rows = (m < 1 ? 0 : (m - 1) / W) + 3;
}

int64_t stn_fold_cells(const stn_fold *f, int64_t r0, int64_t r1) {
    int64_t lo = r0 * f->W - f->P, hi = r1 * f->W - f->P;
    lo = lo > 0 ? lo : 0;
    hi = hi < f->n ? hi : f->n;
    return hi > lo ? hi - lo : 0;
}

int stn_fold_map(const stn_fold *f, const stn_view *v, const stn_box *box, int interior, stn_view *v1,
                 stn_box *b1, int64_t *shift) {
    int64_t lo = box->lo[1] * f->W - f->P, hi = box->hi[1] * f->W - f->P;
    int64_t a = interior ? f->lo : 0, b = interior ? f->hi : f->n;
    lo = lo > a ? lo : a;
    hi = hi < b ? hi : b;
    *v1 = (stn_view){f->n, 1, 1, f->n, f->n, 0, 0, 0};
    *b1 = (stn_box){{lo, 0, 0}, {hi, 1, 1}};
    *shift = v->y0 * f->W - f->P;
    return hi > lo && box->hi[2] > box->lo[2] && box->hi[0] > box->lo[0];
}

int stn_ring_pieces(int64_t lo, int64_t hi, int ring, int64_t L, int64_t H, int64_t out[3][3]) {
    if (hi <= lo)
        return 0;
    if (!ring) {
        out[0][0] = lo, out[0][1] = hi, out[0][2] = 0;
        return 1;
    }
    int64_t m = H - L, d[3] = {m, 0, -m}, cut[4] = {lo, L, H, hi}; /* [below L) [L, H) [from H) */
    cut[1] = lo > L ? lo : hi < L ? hi : L;
    cut[2] = hi < H ? hi : lo > H ? lo : H;
    int n = 0;
    for (int p = 0; p < 3; p++)
        if (cut[p + 1] > cut[p])
            out[n][0] = cut[p], out[n][1] = cut[p + 1], out[n][2] = d[p], n++;
    return n;
}

int stn_map_call(const stn_run *r, const stn_view *v, const stn_box *box, int interior,
                 stn_view v1[STN_MAP_MAX], stn_box b1[STN_MAP_MAX], int64_t shift[STN_MAP_MAX],
                 int wrap[STN_MAP_MAX]) {
    wrap[0] = 0, shift[0] = 0;
    if (r->fold.W) { /* (a rank's slab of a folded grid: its rows are the whole grid's from base) */
        stn_view w = *v;
        stn_box b = *box;
        w.y0 += r->slab.base, b.lo[1] += r->slab.base, b.hi[1] += r->slab.base;
        return stn_fold_map(&r->fold, &w, &b, interior, &v1[0], &b1[0], &shift[0]);
    }
    for (int k = 0; k < 3; k++)
        if (box->hi[k] <= box->lo[k])
            return 0;
    const stn_slab *s = &r->slab;
    v1[0] = *v, b1[0] = *box;
    if (!s->axis)
        return 1;
    /* every axis: the box's whole-grid indices (local + the part's base), on a ring in up to three
     * pieces, each moved by the ring's width into [L, H); the calls are their products */
    int64_t pc[3][3][3];
    int np[3];
    for (int k = 0; k < 3; k++)
        np[k] = stn_ring_pieces(box->lo[k] + s->xbase[k], box->hi[k] + s->xbase[k], s->ring >> k & 1,
                                s->xL[k], s->xH[k], pc[k]);
    int n = 0;
    for (int iz = 0; iz < np[2]; iz++)
        for (int iy = 0; iy < np[1]; iy++)
            for (int ix = 0; ix < np[0]; ix++) {
                const int64_t *px = pc[0][ix], *py = pc[1][iy], *pz = pc[2][iz];
                stn_view w = *v;
                stn_box b = {{px[0] + px[2], py[0] + py[2], pz[0] + pz[2]},
                             {px[1] + px[2], py[1] + py[2], pz[1] + pz[2]}};
                /* x through the pointers (the kernels index x globally), y and z through the view */
                w.nx = s->xn[0], w.ny = s->xn[1], w.nz = s->xn[2];
                w.y0 += s->xbase[1] + py[2], w.z0 += s->xbase[2] + pz[2];
                w.own_axes |= s->ring; /* (the ghosts hold the far side: no wrap in the kernels) */
                v1[n] = w, b1[n] = b, shift[n] = s->xbase[0] + px[2];
                wrap[n] = px[2] || py[2] || pz[2];
                n++;
            }
    return n;
}

void stn_run_boundary(const stn_run *r, int field, const stn_view *v, const void *cur, void *next,
                      const stn_box *box) {
    stn_view v1[STN_MAP_MAX];
    stn_box b1[STN_MAP_MAX];
    int64_t sh[STN_MAP_MAX];
    int wrap[STN_MAP_MAX];
    ptrdiff_t es = r->d->elem_size;
    for (int k = 0, n = stn_map_call(r, v, box, 0, v1, b1, sh, wrap); k < n; k++)
        r->d->boundary(field, &v1[k], (const char *)cur - sh[k] * es, (char *)next - sh[k] * es, &b1[k]);
}

void stn_run_init(const stn_run *r, int field, int level, void *data, const stn_view *v, const stn_box *box) {
    stn_view v1[STN_MAP_MAX];
    stn_box b1[STN_MAP_MAX];
    int64_t sh[STN_MAP_MAX];
    int wrap[STN_MAP_MAX];
    for (int k = 0, n = stn_map_call(r, v, box, 0, v1, b1, sh, wrap); k < n; k++)
        r->d->init(field, level, (char *)data - sh[k] * (ptrdiff_t)r->d->elem_size, &v1[k], r->o->params,
                   &b1[k]);
}

int stn_fold_run(const stn_run *r, size_t align, stn_run_copy *c) {
    const stn_program_desc *d = r->d;
    const stn_opts *o = r->o;
    int periodic = 0;
    for (int i = 0; i < d->nfields; i++)
        periodic |= d->fields[i].periodic & 1;
    c->run = *r;
    c->opts = *o;
    c->run.o = &c->opts;
    if (periodic) {
        if (o->have_block && o->block[0] > 0)
            return stn_error(
                -EINVAL,
                "--block %" PRId64 ",%" PRId64
                ": this 1d grid is periodic, so it runs out of core as one block (its wrap moves "
                "by the interior's width, not whole rows): give --block BT",
                o->block[0], o->block[2]);
        c->opts.block[0] = 1; /* its one row */
        return 0;
    }
    int64_t n = o->size[0], reach = d->reach_lo[0] > d->reach_hi[0] ? d->reach_lo[0] : d->reach_hi[0];
    stn_fold *f = &c->run.fold;
    stn_fold_make(n, d->halo_lo[0], d->halo_hi[0], reach, d->elem_size, align, f);
    c->desc = *d;
    c->desc.dims = 0;
    for (int k = 0; k < 3; k++) {
        c->desc.halo_lo[k] = c->desc.halo_hi[k] = k == 1;
        c->desc.reach_lo[k] = c->desc.reach_hi[k] = k == 1;
    }
    if (!(c->fields = calloc((size_t)d->nfields, sizeof *c->fields)))
        return stn_error(-ENOMEM, "out of memory");
    for (int i = 0; i < d->nfields; i++) { /* a read across x reads across rows */
        c->fields[i] = d->fields[i];
        if (c->fields[i].read_across & 1)
            c->fields[i].read_across |= 2;
    }
    c->desc.fields = c->fields;
    c->run.d = &c->desc;
    c->opts.size[0] = f->W, c->opts.size[1] = f->rows, c->opts.size[2] = 1;
    c->run.view = (stn_view){f->W, f->rows, 1, f->W, f->W * f->rows, 0, 0, 0};
    c->run.grid_bytes = (uint64_t)f->W * (uint64_t)f->rows * (uint64_t)d->elem_size;
    /* --block BX,BT: BX cells, whole rows (0: one block, --block BT) */
    c->opts.block[0] = o->block[0] > 0 ? (o->block[0] + f->W - 1) / f->W : f->rows;
    f->held = (uint64_t)d->nalong * (uint64_t)n * (uint64_t)d->elem_size; /* the inputs along x, in DRAM */
    return 0;
}

/* ------------------------------------------------------------------ a rank's slab (MPI) */

static int slab_wraps(const stn_program_desc *d, int axis) {
    for (int i = 0; i < d->nfields; i++)
        if (d->fields[i].periodic & (1 << axis))
            return 1;
    return 0;
}

/* Some state field wraps the axis and another does not: no ring of ranks along it (its boundary layer
 * would be the far side's for one field and a rank's own for the other). */
static int mixed_wrap(const stn_program_desc *d, int axis, char *which, size_t n) {
    int wraps = -1, keeps = -1;
    for (int i = 0; i < d->nfields; i++)
        if (d->fields[i].kind == STN_FIELD_STATE) {
            if (d->fields[i].periodic & (1 << axis))
                wraps = wraps < 0 ? i : wraps;
            else
                keeps = keeps < 0 ? i : keeps;
        }
    if (wraps < 0 || keeps < 0)
        return 0;
    snprintf(which, n, "'%s' wraps %c and '%s' does not", d->fields[wraps].name, "xyz"[axis],
             d -> fields[keeps].name);
    return 1;
}

static int stream_axis(const stn_program_desc *d) { return d->ndim == 3 ? 2 : 1; }

static int rank_dims(const stn_run *r, int dims[3]);

/* The split axis is a ring of one rank when a field wraps it and a ring across the rows is cut: the
 * engine's part then wraps no axis (a Dirichlet field's wrap along the split axis needs every axis
 * wrapped in the engine, stn_ooc_wedge_ok), its ghosts along the split axis come from itself. */
static int self_ring(const stn_run *r, int axis) {
    int dims[3], s = stream_axis(r->d);
    char which[160];
    if (axis != s || !slab_wraps(r->d, s) || mixed_wrap(r->d, s, which, sizeof which) || rank_dims(r, dims) ||
        dims[s] > 1)
        return 0;
    for (int k = 0; k < 3; k++)
        if (k != s && dims[k] > 1 && slab_wraps(r->d, k))
            return 1;
    return 0;
}

/* Part c of D along `axis`: the interior [L, L + w) in D parts as equal as whole indices allow, the
 * first and last with the boundary layer (not on a ring, whose boundary layer is the far side's):
 * the own indices [a, b). */
static void part_of(const stn_run *r, int axis, int c, int D, int64_t *a, int64_t *b) {
    const stn_program_desc *d = r->d;
    int64_t n = r->o->size[axis], L = d->halo_lo[axis], w = n - d->halo_hi[axis] - L;
    int ring = (D > 1 || self_ring(r, axis)) && slab_wraps(d, axis);
    *a = c == 0 && !ring ? 0 : L + c * w / D;
    *b = c == D - 1 && !ring ? n : L + (c + 1) * w / D;
}

/* How far a step reads along the axis below and above (at least the halo); the skew is the larger. */
static void slab_reach(const stn_program_desc *d, int axis, int64_t *lo, int64_t *hi) {
    *lo = d->reach_lo[axis] > d->halo_lo[axis] ? d->reach_lo[axis] : d->halo_lo[axis];
    *hi = d->reach_hi[axis] > d->halo_hi[axis] ? d->reach_hi[axis] : d->halo_hi[axis];
}

static int64_t slab_skew(const stn_program_desc *d, int axis) {
    int64_t lo, hi;
    slab_reach(d, axis, &lo, &hi);
    return lo > hi ? lo : hi;
}

/* The thinnest part along `axis` when D ranks cut it (INT64_MAX when D = 1). */
static int64_t thinnest(const stn_run *r, int axis, int D) {
    int64_t least = INT64_MAX, a, b;
    if (D == 1 && self_ring(r, axis)) {
        part_of(r, axis, 0, 1, &a, &b);
        return b - a;
    }
    for (int k = 0; D > 1 && k < D; k++) {
        part_of(r, axis, k, D, &a, &b);
        least = b - a < least ? b - a : least;
    }
    return least;
}

/* Why `dims` cannot split r (a message in why), or 0: parts thinner than one step's ghosts. */
static int dims_refused(const stn_run *r, const int dims[3], char *why, size_t n) {
    const stn_program_desc *d = r->d;
    for (int k = 0; k < 3; k++) {
        if (dims[k] <= 1)
            continue;
        char which[160];
        if (mixed_wrap(d, k, which, sizeof which)) {
            snprintf(why, n,
                     "%d ranks along %c: %s, and the ranks along an axis are a ring (a field wraps it) or a "
                     "line (none does), not both; give --ranks with 1 along %c",
                     dims[k], "xyz"[k], which, "xyz"[k]);
            return 1;
        }
        int64_t w = r->o->size[k] - d->halo_lo[k] - d->halo_hi[k], t = thinnest(r, k, dims[k]),
                g = slab_skew(d, k);
        if (w < dims[k] || t < g) {
            snprintf(why, n,
                     "%d ranks along %c give the interior's %" PRId64 " %c-indices parts of %" PRId64
                     ", fewer than one step's ghosts (%" PRId64 ")",
                     dims[k], "xyz"[k], w, "xyz"[k], w < dims[k] ? 0 : t, g);
            return 1;
        }
    }
    return 0;
}

/* The modelled cost of a split, per rank (docs/design/019): out of core the flash bytes of a sweep
 * over the largest extended part (each state level read and written once), doubled when an axis
 * other than the streaming one is cut (its ghosts' exchange is a pass over the part's files), plus
 * the ghosts' message bytes; in-core the message bytes, the part's cells breaking ties. */
static double dims_cost(const stn_run *r, const int dims[3]) {
    const stn_program_desc *d = r->d;
    int s = stream_axis(d), cross = 0;
    double ext[3];
    int sides[3];
    for (int k = 0; k < 3; k++) {
        int64_t a, b, most = 0, g = dims[k] > 1 ? slab_skew(d, k) : 0;
        for (int c = 0; c < dims[k]; c++) {
            if (dims[k] > 1)
                part_of(r, k, c, dims[k], &a, &b);
            else /* (whole: part_of would ask for the split being chosen) */
                a = 0, b = r->o->size[k];
            most = b - a > most ? b - a : most;
        }
        sides[k] = dims[k] == 1 ? 0 : dims[k] == 2 && !slab_wraps(d, k) ? 1 : 2; /* (the busiest rank's) */
        ext[k] = (double)most + sides[k] * (double)g;
        cross |= k != s && dims[k] > 1;
    }
    double cells = ext[0] * ext[1] * ext[2], msg = 0;
    for (int k = 0; k < 3; k++)
        msg += sides[k] * (double)slab_skew(d, k) * cells / ext[k];
    if (r->o->mode == STN_MODE_INCORE)
        return msg + cells * 1e-6;
    return cells * (cross ? 2 : 1) + msg;
}

int stn_slab_dims(const stn_run *r, int dims[3], char *why, size_t n) {
    const stn_program_desc *d = r->d;
    const stn_opts *o = r->o;
    int P = stn_par_size(), s = stream_axis(d);
    why[0] = 0;
    dims[0] = dims[1] = dims[2] = 1;
    if (r->fold.W) { /* a folded 1d grid: the ranks split its rows */
        if (o->ranks[0] && o->ranks[0] != P) {
            snprintf(why, n, "--ranks %" PRId64 ": mpirun started %d ranks", o->ranks[0], P);
            return -EINVAL;
        }
        dims[1] = P;
        return dims_refused(r, dims, why, n) ? -EINVAL : 0;
    }
    if (o->ranks[0]) {
        int64_t prod = 1;
        for (int k = 0; k < 3; k++)
            dims[k] = (int)o->ranks[k], prod *= o->ranks[k];
        if (prod != P) {
            char given[80];
            if (d->ndim == 3)
                snprintf(given, sizeof given, "%" PRId64 ",%" PRId64 ",%" PRId64, o->ranks[0], o->ranks[1],
                         o->ranks[2]);
            else
                snprintf(given, sizeof given, "%" PRId64 ",%" PRId64, o->ranks[0], o->ranks[1]);
            snprintf(why, n, "--ranks %s: %" PRId64 " ranks, but mpirun started %d", given, prod, P);
            return -EINVAL;
        }
        return dims_refused(r, dims, why, n) ? -EINVAL : 0;
    }
    /* every factorization of P over the grid's axes, the cheapest (then the streaming axis' most) */
    double best = -1;
    int t[3];
    char first[256] = "";
    for (t[0] = 1; t[0] <= P; t[0]++)
        for (t[1] = 1; t[1] <= P / t[0]; t[1]++) {
            if (P % (t[0] * t[1]))
                continue;
            t[2] = P / (t[0] * t[1]);
            if (d->ndim == 2 && t[2] != 1)
                continue;
            if (dims_refused(r, t, why, n)) {
                if (!first[0])
                    snprintf(first, sizeof first, "%s", why);
                continue;
            }
            double c = dims_cost(r, t);
            if (best < 0 || c < best * (1 - 1e-9) || (c <= best * (1 + 1e-9) && t[s] > dims[s])) {
                best = c;
                for (int k = 0; k < 3; k++)
                    dims[k] = t[k];
            }
        }
    if (best < 0) {
        snprintf(why, n, "no split of the grid among %d ranks gives each part one step's ghosts (%s)", P,
                 first);
        return -EINVAL;
    }
    why[0] = 0;
    return 0;
}

static int rank_dims(const stn_run *r, int dims[3]) {
    char why[256];
    return stn_slab_dims(r, dims, why, sizeof why);
}

int64_t stn_slab_most_bt(const stn_run *r) {
    int dims[3];
    char why[256];
    if (stn_slab_dims(r, dims, why, sizeof why))
        return 1; /* (stn_slab_run says why) */
    int64_t most = INT64_MAX;
    for (int k = 0; k < 3; k++)
        if (dims[k] > 1 || self_ring(r, k)) {
            int64_t s = slab_skew(r->d, k), m = thinnest(r, k, dims[k]) / (s > 0 ? s : 1);
            most = m < most ? m : most;
        }
    return most == INT64_MAX ? r->o->steps : most;
}

int stn_slab_out(const stn_slab *s, int k, int64_t out[3][3], int *n) {
    int64_t lo = s->xlo[k], hi = s->xhi[k], total = hi - lo, m = s->xH[k] - s->xL[k];
    int c = 0;
    out[c][0] = lo, out[c][1] = hi, out[c][2] = 0, c++;
    /* along a ring the boundary layer copies [H - L, H) (to [0, L)) and [L, L + n - H) (to [H, n)) */
    if (s->ring >> k & 1) {
        int64_t src[2][2] = {{s->xH[k] - s->xL[k], s->xH[k]}, {s->xL[k], s->xL[k] + s->xn[k] - s->xH[k]}};
        for (int j = 0; j < 2; j++) {
            int64_t a = src[j][0] - s->xbase[k], b = src[j][1] - s->xbase[k];
            a = a > lo ? a : lo, b = b < hi ? b : hi;
            if (b > a)
                out[c][0] = a, out[c][1] = b, out[c][2] = j ? m : -m, c++, total += b - a;
        }
    }
    if (n)
        *n = c;
    return total;
}

uint64_t stn_slab_out_cells(const stn_slab *s) {
    uint64_t cells = 1;
    for (int k = 0; k < 3; k++) {
        int64_t out[3][3];
        cells *= (uint64_t)stn_slab_out(s, k, out, NULL);
    }
    return cells;
}

/* The world rank at coordinates c (x fastest), or -1 outside the grid of ranks. */
static int rank_at(const int dims[3], const int c[3]) {
    for (int k = 0; k < 3; k++)
        if (c[k] < 0 || c[k] >= dims[k])
            return -1;
    return (c[2] * dims[1] + c[1]) * dims[0] + c[0];
}

int stn_slab_run(const stn_run *r, int64_t bt, stn_run_copy *c) {
    const stn_program_desc *d = r->d;
    const stn_opts *o = r->o;
    int rank = stn_par_rank(), axis = stream_axis(d), dims[3], coord[3];
    char why[512];
    if (stn_slab_dims(r, dims, why, sizeof why))
        return stn_error(-EINVAL, "%d MPI ranks: %s", stn_par_size(), why);
    coord[0] = rank % dims[0], coord[1] = rank / dims[0] % dims[1], coord[2] = rank / (dims[0] * dims[1]);
    bt = bt < o->steps ? bt : o->steps;
    bt = bt < 1 ? 1 : bt;
    for (int k = 0; k < 3; k++) { /* every part holds the ghosts its neighbours take from it */
        int64_t skew = slab_skew(d, k), g = bt * skew, t = thinnest(r, k, dims[k]);
        if ((dims[k] > 1 || self_ring(r, k)) && t < g)
            return stn_error(-EINVAL,
                             "%d MPI ranks: %d along %c give a rank %" PRId64
                             " of the interior's %c-indices, "
                             "fewer than the ghost depth bt x skew = %" PRId64 " x %" PRId64
                             " a neighbour takes from it; use fewer ranks along %c or a smaller bt",
                             stn_par_size(), dims[k], "xyz"[k], t, "xyz"[k], bt, skew, "xyz"[k]);
    }
    c->run = *r;
    c->opts = *o;
    c->desc = *d;
    c->run.o = &c->opts;
    c->run.d = &c->desc;
    stn_slab *sl = &c->run.slab;
    memset(sl, 0, sizeof *sl);
    int64_t ext[3];
    for (int k = 0; k < 3; k++) {
        int ring = (dims[k] > 1 || self_ring(r, k)) && slab_wraps(d, k);
        int64_t n = o->size[k], oa = 0, ob = n, g = dims[k] > 1 || ring ? bt * slab_skew(d, k) : 0;
        if (dims[k] > 1 || ring)
            part_of(r, k, coord[k], dims[k], &oa, &ob);
        int lo_cut = ring || (dims[k] > 1 && coord[k] > 0),
            hi_cut = ring || (dims[k] > 1 && coord[k] < dims[k] - 1);
        int64_t ea = lo_cut ? oa - g : 0, eb = hi_cut ? ob + g : n;
        ext[k] = eb - ea;
        int64_t rlo, rhi;
        slab_reach(d, k, &rlo, &rhi);
        if (lo_cut)
            c->desc.halo_lo[k] = (int)rlo; /* the frozen layer below: never computed */
        if (hi_cut)
            c->desc.halo_hi[k] = (int)rhi;
        int nc[3] = {coord[0], coord[1], coord[2]};
        nc[k] = ring ? (coord[k] + dims[k] - 1) % dims[k] : coord[k] - 1;
        int below = dims[k] > 1 || ring ? rank_at(dims, nc) : -1;
        nc[k] = ring ? (coord[k] + 1) % dims[k] : coord[k] + 1;
        int above = dims[k] > 1 || ring ? rank_at(dims, nc) : -1;
        sl->xn[k] = n, sl->xbase[k] = ea, sl->xlo[k] = oa - ea, sl->xhi[k] = ob - ea, sl->xg[k] = g;
        sl->xnb[k][0] = below, sl->xnb[k][1] = above;
        sl->ring |= ring << k, sl->xL[k] = d->halo_lo[k], sl->xH[k] = n - d->halo_hi[k];
        sl->dims[k] = dims[k], sl->coord[k] = coord[k], sl->skew[k] = slab_skew(d, k), sl->bt = bt;
        if (k == axis) {
            sl->axis = axis, sl->rank = coord[k], sl->nranks = dims[k], sl->n = n, sl->base = ea;
            sl->own_lo = oa - ea, sl->own_hi = ob - ea, sl->g = g, sl->periodic = ring;
            sl->L = d->halo_lo[k], sl->H = n - d->halo_hi[k], sl->below = below, sl->above = above;
        } else if (dims[k] > 1) {
            sl->cut |= 1 << k;
        }
        c->opts.size[k] = ext[k];
    }
    c->run.view = (stn_view){ext[0], ext[1], ext[2], ext[0], ext[0] * ext[1], 0, 0, r->view.own_axes};
    if (d->ndim == 2)
        c->run.view.nz = 1, c->run.view.sz = ext[0] * ext[1];
    c->run.grid_bytes = (uint64_t)stn_grid_cells(&c->opts) * (uint64_t)d->elem_size;
    if (sl->ring) { /* the engine's part does not wrap its rings: their ghosts hold the far side */
        c->fields = calloc((size_t)d->nfields, sizeof *c->fields);
        if (!c->fields)
            return stn_error(-ENOMEM, "out of memory");
        for (int i = 0; i < d->nfields; i++)
            c->fields[i] = d->fields[i], c->fields[i].periodic &= ~sl->ring;
        c->desc.fields = c->fields;
    }
    snprintf(c->name, sizeof c->name, "%s.r%d", d->name, rank); /* (a --dir the ranks share works too) */
    c->desc.name = c->name;
    /* an --out: the own part, and along a ring also the indices the boundary layer copies (stn_slab_out) */
    uint64_t own = stn_slab_out_cells(sl) * (uint64_t)d->elem_size;
    if (r->fold.W) /* a folded 1d grid's .npy holds its cells */
        own = (uint64_t)stn_fold_cells(&r->fold, sl->base + sl->own_lo, sl->base + sl->own_hi) *
              (uint64_t)d->elem_size;
    for (int k = 0; r->writers && k < 2 * d->nfields; k++) /* each rank writes its own part of an --out */
        if (r->writers[k])
            stn_npy_writer_expect(r->writers[k], own);
    return 0;
}

/* The injections after step t's kernel on `box`, then the records (docs/design/011). */
static void point_ops(const stn_run *r, int64_t t, const double *pv, const stn_view *v,
                      const void *const *src, void *const *dst, const stn_box *box, int wrapped) {
    const stn_program_desc *d = r->d;
    for (int k = 0; k < d->ninjects; k++) {
        int s = d->injects[k].points;
        d->inject(k, pv, v, src, dst, box, r->pts[s], r->npts[s]);
    }
    stn_box own = *box; /* a rank records the points of its own slices only (its ghosts' may be stale) */
    const stn_slab *sl = &r->slab;
    if (sl->axis) {
        if (wrapped)
            return;
        int64_t lo = sl->base + sl->own_lo, hi = sl->base + sl->own_hi;
        int a = r->fold.W ? 0 : sl->axis; /* (a folded grid's own rows are cells by now) */
        if (r->fold.W)
            lo = lo * r->fold.W - r->fold.P, hi = hi * r->fold.W - r->fold.P;
        own.lo[a] = own.lo[a] > lo ? own.lo[a] : lo;
        own.hi[a] = own.hi[a] < hi ? own.hi[a] : hi;
        for (int k = 0; k < 3; k++) /* (the other axes the ranks cut) */
            if (sl->cut >> k & 1) {
                int64_t xa = sl->xbase[k] + sl->xlo[k], xb = sl->xbase[k] + sl->xhi[k];
                own.lo[k] = own.lo[k] > xa ? own.lo[k] : xa;
                own.hi[k] = own.hi[k] < xb ? own.hi[k] : xb;
            }
        for (int k = 0; k < 3; k++)
            if (own.hi[k] <= own.lo[k])
                return;
    }
    for (int k = 0; t < r->o->steps && k < d->nrecords; k++) {
        int s = d->records[k].points;
        char *row = (char *)r->rec[k] + (size_t)t * (size_t)r->npts[s] * (size_t)d->elem_size;
        d->record(k, pv, v, src, dst, &own, r->pts[s], r->npts[s], row);
    }
}

static int step_call(const stn_run *r, int64_t t, const double *pv, const stn_view *v, const void *const *src,
                     void *const *dst, const stn_box *box, const int64_t tile[2], int wrapped);

int stn_step(const stn_run *r, int64_t t, const stn_view *v, const void *const *src, void *const *dst,
             const stn_box *box, const int64_t tile[2]) {
    const stn_program_desc *d = r->d;
    double pv[d->nparams + 1 + d->nterms]; /* the params, t, the series terms (stn_series_term) */
    for (int k = 0; k < d->nparams; k++)
        pv[k] = r->o->params[k];
    pv[d->nparams] = t < 0 ? 0 : (double)t;
    for (int j = 0; j < d->nterms; j++) {
        const stn_series_term *term = &d->terms[j];
        int64_t i = (t < 0 ? 0 : t) + term->k;
        pv[d->nparams + 1 + j] =
            r->series && i >= 0 && i < r->series_len[term->series] ? r->series[term->series][i] : 0;
    }
    /* a folded 1d grid: the kernels see its cells, the window's pointers moved to its first cell; a
     * rank's slab: the whole grid's coordinates, of a ring in pieces (stn_map_call) */
    stn_view v1[STN_MAP_MAX];
    stn_box b1[STN_MAP_MAX];
    int64_t sh[STN_MAP_MAX];
    int wrap[STN_MAP_MAX];
    if (r->fold.W || r->slab.axis) {
        int n = stn_map_call(r, v, box, 1, v1, b1, sh, wrap), rc = 0;
        for (int k = 0; rc == 0 && k < n; k++) {
            const void *fsrc[d->nsrc + 1];
            void *fdst[d->ndst + 1];
            ptrdiff_t off = sh[k] * (ptrdiff_t)d->elem_size;
            for (int i = 0; i < d->nsrc; i++)
                fsrc[i] = src[i] ? (const char *)src[i] - off : NULL;
            for (int i = 0; i < d->ndst; i++)
                fdst[i] = dst[i] ? (char *)dst[i] - off : NULL;
            rc = step_call(r, t, pv, &v1[k], fsrc, fdst, &b1[k], tile, wrap[k]);
        }
        return rc;
    }
    return step_call(r, t, pv, v, src, dst, box, tile, 0);
}

/* One call of the step on the kernels' view and box, then the injects and records there (records
 * only where no wrap moved the box: a rank records its own slices, never ghosts). */
static int step_call(const stn_run *r, int64_t t, const double *pv, const stn_view *v, const void *const *src,
                     void *const *dst, const stn_box *box, const int64_t tile[2], int wrapped) {
    const stn_program_desc *d = r->d;
    const void *all[d->nsrc + d->nalong + 1]; /* the grid slots, then the inputs along an axis */
    if (d->nalong) {
        for (int k = 0; k < d->nsrc; k++)
            all[k] = src[k];
        for (int j = 0; j < d->nalong; j++)
            all[d->nsrc + j] = r->along ? r->along[j] : NULL;
        src = all;
    }
    /* (t < 0: a rate measured on a grid of its own, where the points are not) */
    const int64_t *const *pts = t >= 0 ? (const int64_t *const *)r->pts : NULL;
    int rc = d->step_pts ? d->step_pts(pv, v, src, dst, box, tile[0], tile[1], pts, pts ? r->npts : NULL)
                         : d->step(pv, v, src, dst, box, tile[0], tile[1]);
    if (rc == 0 && t >= 0 && r->pts) {
        /* a wrapped sweep's box runs on past H along the axis the engine wraps (v->own_axes): its
         * points there are those an interior's width below, held at the same memory */
        int ax = v->own_axes & 4 ? 2 : v->own_axes & 2 ? 1 : -1;
        int64_t H = ax < 0 ? 0 : (ax == 2 ? v->nz : v->ny) - d->halo_hi[ax],
                P = ax < 0 ? 0 : H - d->halo_lo[ax];
        if (ax >= 0 && box->hi[ax] > H) {
            stn_box below = *box, past = *box;
            stn_view w = *v;
            below.hi[ax] = H;
            past.lo[ax] = (box->lo[ax] > H ? box->lo[ax] : H) - P;
            past.hi[ax] -= P;
            if (ax == 2)
                w.z0 -= P;
            else
                w.y0 -= P;
            if (below.hi[ax] > below.lo[ax])
                point_ops(r, t, pv, v, src, dst, &below, wrapped);
            point_ops(r, t, pv, &w, src, dst, &past, wrapped);
        } else {
            point_ops(r, t, pv, v, src, dst, box, wrapped);
        }
    }
    if (rc)
        return stn_error(rc < 0 ? rc : -EIO,
                         "the kernel of '%s' failed on cells [%" PRId64 ",%" PRId64 ") x [%" PRId64
                         ",%" PRId64 ") x [%" PRId64 ",%" PRId64 ") of rows %" PRId64
                         " cells long: %s (the scratch of its "
                         "sub-steps' cache tiles could not be allocated)",
                         r->d->name, box->lo[0], box->hi[0], box->lo[1], box->hi[1], box->lo[2], box->hi[2],
                         v->nx, strerror(rc < 0 ? -rc : EIO));
    return 0;
}

int stn_measure_rate(const stn_run *r, const int64_t tile[2], uint64_t cap, double *cps, char *source,
                     size_t n) {
    const stn_program_desc *d = r->d;
    stn_view v = rate_grid(d, &r->view, cap);
    size_t bytes = (size_t)(v.nx * v.ny * v.nz) * (size_t)d->elem_size;
    int narr = d->nsrc + d->ndst;
    void **arr = calloc((size_t)narr + 1, sizeof *arr);
    int rc = arr ? 0 : -ENOMEM;
    for (int k = 0; rc == 0 && k < narr; k++)
        if (!(arr[k] = calloc(1, bytes)))
            rc = -ENOMEM;
    stn_box b = {{d->halo_lo[0], d->halo_lo[1], d->halo_lo[2]},
                 {v.nx - d->halo_hi[0], v.ny - d->halo_hi[1], v.nz - d->halo_hi[2]}};
    double cells = 1;
    for (int k = 0; k < 3; k++)
        cells *= (double)(b.hi[k] > b.lo[k] ? b.hi[k] - b.lo[k] : 0);
    *cps = 0;
    if (rc == 0 && cells > 0) {
        const void *const *src = (const void *const *)arr;
        void *const *dst = arr + d->nsrc;
        int krc = stn_step(r, -1, &v, src, dst, &b, tile); /* first touch, warm-up */
        int64_t steps = 0;
        double t0 = stn_now(), t = 0;
        while (krc == 0 && (steps < 2 || (t < 0.05 && steps < 1000))) {
            krc = stn_step(r, -1, &v, src, dst, &b, tile);
            steps++;
            t = stn_now() - t0;
        }
        if (krc) {
            for (int k = 0; k < narr; k++)
                free(arr[k]);
            free(arr);
            return krc;
        }
        *cps = cells * (double)steps / (t > 0 ? t : 1e-9);
        snprintf(source, n,
                 "measured at startup: %" PRId64 " steps of a %" PRId64 "x%" PRId64 "x%" PRId64
                 " grid in %.3f s",
                 steps, v.nx, v.ny, v.nz, t);
    }
    for (int k = 0; arr && k < narr; k++)
        free(arr[k]);
    free(arr);
    if (rc)
        return stn_error(rc, "out of memory measuring the compute rate (%zu bytes a grid)", bytes);
    if (*cps <= 0)
        snprintf(source, n, "not measured: the grid has no interior");
    return 0;
}

int stn_kernel_rate(const stn_run *r, stn_result *res) {
    if (res->cells_per_second > 0)
        return 0;
    if (r->hw.cells_per_second > 0) {
        res->cells_per_second = r->hw.cells_per_second;
        snprintf(res->rate_source, sizeof res->rate_source, "--machine %s", r->o->machine);
        return 0;
    }
    uint64_t cap = r->mem_budget / 4 < ((uint64_t)16 << 20) ? r->mem_budget / 4 : (uint64_t)16 << 20;
    return stn_measure_rate(r, res->ib.tile, cap, &res->cells_per_second, res->rate_source,
                            sizeof res->rate_source);
}

/* One parallel copy of n bytes, split among the threads as the engine's strip copies are. */
static void copy_round(char *dst, const char *src, size_t n) {
    STN_OMP_PARALLEL {
        size_t t = (size_t)stn_omp_thread_num(), nt = (size_t)stn_omp_num_threads();
        size_t lo = n * t / nt, hi = n * (t + 1) / nt;
        memcpy(dst + lo, src + lo, hi - lo);
    }
}

int stn_copy_rate(const stn_run *r, stn_result *res) {
    if (res->copy_bytes_per_second > 0)
        return 0;
    if (r->hw.copy_bytes_per_second > 0) {
        res->copy_bytes_per_second = r->hw.copy_bytes_per_second;
        snprintf(res->copy_source, sizeof res->copy_source, "--machine %s", r->o->machine);
        return 0;
    }
    if (r->hw.described) { /* another machine's memory: nothing here to measure it on */
        snprintf(res->copy_source, sizeof res->copy_source,
                 "not modelled: --machine %s gives no copy_bytes_per_second", r->o->machine);
        return 0;
    }
    /* two buffers, each at least twice the last-level cache (the strip and the ring are DRAM),
     * at most 64 MiB and an eighth of the budget */
    size_t n = 2 * (size_t)r->hw.l3.value;
    n = n < ((size_t)16 << 20) ? (size_t)16 << 20 : n > ((size_t)64 << 20) ? (size_t)64 << 20 : n;
    if (n > r->mem_budget / 8)
        n = (size_t)(r->mem_budget / 8);
    n = n < ((size_t)1 << 20) ? (size_t)1 << 20 : n;
    char *a = malloc(n), *b = malloc(n);
    if (!a || !b) {
        free(a);
        free(b);
        return stn_error(-ENOMEM, "out of memory measuring the DRAM copy rate (2 buffers of %zu bytes)", n);
    }
    memset(a, 1, n); /* every page touched: no page fault is timed */
    memset(b, 0, n);
    copy_round(b, a, n); /* untimed: the thread pool started */
    double t = 0;
    int rounds = 0;
    while (rounds < 3 || (t < 0.03 && rounds < 100)) {
        double t0 = stn_now();
        copy_round(rounds % 2 ? a : b, rounds % 2 ? b : a, n);
        t += stn_now() - t0;
        rounds++;
    }
    free(a);
    free(b);
    res->copy_bytes_per_second = t > 0 ? (double)n * rounds / t : 0;
    snprintf(res->copy_source, sizeof res->copy_source,
             "measured at startup: %d copies of %zu MiB on %d threads, %.3f s", rounds, n >> 20,
             stn_omp_max_threads(), t);
    return 0;
}
