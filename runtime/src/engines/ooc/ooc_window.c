/* ooc_window.c -- the out-of-core engine's window: the views and boxes of the rings the kernels
 * see, and moving a box of rows into or out of them: from and to grid files (libaio), from a
 * --init .npy, from an init expression, zeros or another level.  The executor (ooc.c) and the
 * import and export (ooc_xfer.c) both use these; they call nothing of theirs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/ooc/stn_ooc_engine.h"
#include "io/stn_npyd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

/* While wrap-around slices move (rshift != 0) the view and the boxes are those of the slices they
 * wrap to, at the same memory: an init expression is evaluated where the data comes from. */
stn_view stn_ooc_view(const ooc *e) {
    const stn_view *g = &e->r->view;
    int64_t el = e->d->elem_size, row = e->plan.row_bytes / el, r0 = e->wr0 + e->rshift;
    const stn_groups *gr =
        e->fs.groups.n > 1
            ? &e->fs.groups
            : NULL; /* (--dir a,b, or whole planes on several nodes: a node's rows, its threads) */
    if (e->d->ndim == 2)
        return (stn_view){g->nx, g->ny, 1, row, row * g->ny, r0, 0, e->own_axes, gr};
    if (e->plan.r.axis == 2)
        return (stn_view){g->nx, g->ny, g->nz,       row, (int64_t)e->plan.slice_bytes / el,
                          0,     r0,    e->own_axes, gr};
    return (stn_view){g->nx, g->ny, g->nz, row, e->qstride / el, r0, e->qbase, e->own_axes, gr};
}

/* The box of r indices [r0, r1) and q indices [q0, q1), all of x. */
stn_box stn_ooc_box(const ooc *e, int64_t r0, int64_t r1, int64_t q0, int64_t q1) {
    const stn_view *g = &e->r->view;
    stn_box b = {{0, 0, 0}, {g->nx, g->ny, g->nz}};
    b.lo[e->plan.r.axis] = r0 + e->rshift;
    b.hi[e->plan.r.axis] = r1 + e->rshift;
    b.lo[e->plan.q.axis] = q0;
    b.hi[e->plan.q.axis] = q1;
    return b;
}

/* Queue IO of rows [r0, r1) x [q0, q1) between grid file gf and `ring`.  `qfile` is the file's
 * index of q0 (q0 itself for grid files; the strip's plane for a spill file). */
int stn_ooc_io_box(ooc *e, int write, stn_gridfile *gf, char *ring, const ooc_rows *rows, int64_t qfile,
                   stn_aio_group *g) {
    int64_t r0 = rows->r0, r1 = rows->r1, q0 = rows->q0, q1 = rows->q1;
    if (r1 <= r0 || q1 <= q0)
        return 0;
    char *buf = ooc_at(e, ring, r0, q0);
    int64_t y0, y1, z0, z1;
    size_t plane;
    int64_t f0 = r0 + e->rshift, f1 = r1 + e->rshift; /* where the slices lie in the file */
    if (e->plan.r.axis == 2)                          /* whole planes: r = z, q = y */
        y0 = q0, y1 = q1, z0 = f0, z1 = f1, plane = e->plan.slice_bytes;
    else if (e->d->ndim == 3) /* y-blocked: r = y, q = z, one ring plane per z */
        y0 = f0, y1 = f1, z0 = qfile, z1 = qfile + (q1 - q0), plane = (size_t)e->qstride;
    else /* 2d */
        y0 = f0, y1 = f1, z0 = 0, z1 = 1, plane = (size_t)(r1 - r0) * (size_t)e->plan.row_bytes;
    return write ? stn_aio_write(e->q, gf, &(stn_span){y0, y1, z0, z1}, buf, plane, g, &e->res->st)
                 : stn_aio_read(e->q, gf, &(stn_span){y0, y1, z0, z1}, buf, plane, g, &e->res->st);
}

/* Read rows [r0, r1) x [q0, q1) of a --init .npy (unpadded rows) into padded rows: with O_DIRECT through
 * the run's bounce (io/stn_npyd.h), else by pread, run by run (npy_range). */
int stn_ooc_npy_box(ooc *e, int f, int level, char *ring, const ooc_rows *rows) {
    double t0 = stn_now();
    stn_ooc_npy_ahead(e, f, level, ring, rows); /* (the box's runs queued at once, then read) */
    int rc = stn_ooc_npy_box_st(e, f, level, ring, rows, &e->res->st);
    e->res->import_seconds += stn_now() - t0;
    return rc;
}

enum { NPY_READ, NPY_AHEAD, NPY_COLLECT };

/* Where npy_walk sends each run of a --init file: read at once (pread), asked of the kernel ahead
 * (WILLNEED: its readahead queues all the runs at once, where the preads that follow would wait request by
 * request), or collected for the O_DIRECT reader (io/stn_npyd.h). */
typedef struct npy_sink {
    int mode;
    stn_npyd_run *runs;
    size_t n, cap;
} npy_sink;

/* One run: with pread, read into the tail of its rows' memory and spread out in place, first to last (row
 * i moves down from D + i*rowb to i*padded, D = rows * (padded - rowb), never over a row not yet moved), so
 * no buffer outside the plan is needed. */
static int npy_range(int fd, npy_sink *k, const stn_npyd_run *r, const char *path, stn_stats *st) {
    if (k->mode == NPY_AHEAD) {
        posix_fadvise(fd, (off_t)r->off, (off_t)r->len, POSIX_FADV_WILLNEED);
        return 0;
    }
    if (k->mode == NPY_COLLECT) {
        if (k->n == k->cap) {
            size_t cap = k->cap ? 2 * k->cap : 64;
            stn_npyd_run *m = realloc(k->runs, cap * sizeof *m);
            if (!m)
                return stn_error(-ENOMEM, "out of memory reading '%s'", path);
            k->runs = m, k->cap = cap;
        }
        k->runs[k->n++] = *r;
        return 0;
    }
    size_t rows = r->len / r->rowb, tail = rows * (r->padded - r->rowb);
    int rc = stn_pread_full(fd, r->dst + tail, r->len, r->off, path);
    if (rc == 0) {
        st->bytes_read += r->len;
        for (size_t i = 0; tail && i < rows; i++)
            memmove(r->dst + i * r->padded, r->dst + tail + i * r->rowb, r->rowb);
    }
    posix_fadvise(fd, (off_t)r->off, (off_t)r->len, POSIX_FADV_DONTNEED);
    return rc;
}

/* A cross cut's runs: each row's part of the file's row, each piece of a ring from where it wraps to. */
static int npy_cross(const ooc *e, const ooc_field *of, int level, const rows_run *run, npy_sink *k,
                     stn_stats *st) {
    size_t es = (size_t)e->d->elem_size, padded = (size_t)e->plan.row_bytes;
    int rc = 0;
    for (int64_t j = 0; rc == 0 && j < run->rows; j++) {
        int64_t z, y;
        stn_row_piece pc[9];
        ooc_row_at(e, run, j, &z, &y);
        for (int c = 0, n = stn_part_row_places(e->r->part, e->d->ndim, z, y, 0, pc); rc == 0 && c < n; c++) {
            size_t len = (size_t)(pc[c].x1 - pc[c].x0) * es;
            stn_npyd_run r = {run->buf + (size_t)j * padded + (size_t)pc[c].x0 * es,
                              (uint64_t)of->npy_offset[level] + pc[c].cell * es, len, len, len};
            rc = npy_range(of->npy_fd[level], k, &r, of->npy[level], st);
        }
    }
    return rc;
}

/* The runs of rows [r0, r1) x [q0, q1) of a --init .npy, each sent to k. */
static int npy_walk(const ooc *e, int f, int level, char *ring, const ooc_rows *rows, stn_stats *st,
                    npy_sink *k) {
    int64_t r0 = rows->r0, r1 = rows->r1, q0 = rows->q0, q1 = rows->q1;
    const ooc_field *of = &e->f[f];
    size_t rowb = (size_t)e->r->view.nx * (size_t)e->d->elem_size, padded = (size_t)e->plan.row_bytes;
    const stn_fold *fo = &e->r->fold;
    if (fo->W && r1 > r0 && q1 > q0) { /* a folded 1d grid: the rows' cells, at their place in the rows */
        int64_t base = e->r->part ? stn_part_slab(e->r->part)->base : 0; /* (a rank's slab of the rows) */
        int64_t c0 = (r0 + base) * fo->W - fo->P, c = stn_fold_cells(fo, r0 + base, r1 + base),
                lo = c0 > 0 ? c0 : 0;
        size_t es = (size_t)e->d->elem_size, len = (size_t)c * es;
        stn_npyd_run r = {ooc_at(e, ring, r0, q0) + (size_t)(lo - c0) * es,
                          (uint64_t)of->npy_offset[level] + (uint64_t)lo * es, len, len, len};
        return c ? npy_range(of->npy_fd[level], k, &r, of->npy[level], st) : 0;
    }
    int64_t part[3][3]; /* (a ring's slab: its slices where the file holds their values) */
    int nparts = ooc_ring_parts(e, r0, r1, part), rc = 0;
    for (int64_t j = 0, i = 0; rc == 0 && j < nparts; i = i + 1 < ooc_nruns(e, q0, q1) ? i + 1 : (j++, 0)) {
        rows_run run = ooc_run_at(e, ring, part[j][0], part[j][1], q0, i, part[j][2]);
        if (stn_part_cross(e->r->part)) {
            rc = npy_cross(e, of, level, &run, k, st);
            continue;
        }
        stn_npyd_run r = {run.buf, (uint64_t)of->npy_offset[level] + run.row0 * rowb, (size_t)run.rows * rowb,
                          rowb, padded};
        rc = npy_range(of->npy_fd[level], k, &r, of->npy[level], st);
    }
    return rc;
}

/* Ask the kernel for rows [r0, r1) x [q0, q1) of a --init .npy ahead of stn_ooc_npy_box_st reading them
 * (nothing to ask where they are read with O_DIRECT). */
void stn_ooc_npy_ahead(const ooc *e, int f, int level, char *ring, const ooc_rows *rows) {
    stn_stats st = {0};
    npy_sink k = {NPY_AHEAD, NULL, 0, 0};
    if (e->f[f].npy_dfd[level] < 0)
        npy_walk(e, f, level, ring, rows, &st, &k);
}

int stn_ooc_npy_box_st(const ooc *e, int f, int level, char *ring, const ooc_rows *rows, stn_stats *st) {
    const ooc_field *of = &e->f[f];
    double t0 = stn_now();
    npy_sink k = {of->npy_dfd[level] >= 0 ? NPY_COLLECT : NPY_READ, NULL, 0, 0};
    int rc = npy_walk(e, f, level, ring, rows, st, &k);
    if (rc == 0 && k.mode == NPY_COLLECT) {
        uint64_t before = st->bytes_read;
        rc =
            stn_npyd_read(e->npyd, of->npy_dfd[level], of->npy_align[level], k.runs, k.n, of->npy[level], st);
        __atomic_fetch_add(&e->res->init_direct_bytes, st->bytes_read - before, __ATOMIC_RELAXED);
    }
    free(k.runs);
    stn_stats_add_time(st, STN_PHASE_READ, t0);
    return rc;
}

/* Copy (or zero, src NULL) rows [r0, r1) x [q0, q1) of one ring array from another. */
void stn_ooc_copy_box(const ooc *e, char *dst, char *src, const ooc_rows *rows) {
    int64_t r0 = rows->r0, r1 = rows->r1, q0 = rows->q0, q1 = rows->q1;
    for (int64_t i = 0; r1 > r0 && i < ooc_nruns(e, q0, q1); i++) {
        rows_run d = ooc_run_of(e, dst, r0, r1, q0, i);
        size_t bytes = (size_t)d.rows * (size_t)e->plan.row_bytes;
        if (src)
            memcpy(d.buf, ooc_run_of(e, src, r0, r1, q0, i).buf, bytes);
        else
            memset(d.buf, 0, bytes);
    }
}

/* Put rows [r0, r1) x [q0, q1) of (field f, level) into its ring from source kind `src`
 * (SRC_*).  Data from scratch files is prefetched there by the caller. */
int stn_ooc_place(ooc *e, int f, int level, int src, const ooc_rows *rows) {
    int64_t r0 = rows->r0, r1 = rows->r1, q0 = rows->q0, q1 = rows->q1;
    ooc_field *of = &e->f[f];
    int a = ooc_arr(of, -level);
    if (r1 <= r0 || q1 <= q0)
        return 0;
    double t0 = stn_now();
    switch (src) {
    case STN_SRC_SCRATCH: /* prefetched straight into the ring */
        return 0;
    case STN_SRC_NPY:
        return stn_ooc_npy_box(e, f, level, of->ring[a], &(ooc_rows){r0, r1, q0, q1});
    case STN_SRC_INIT: {
        stn_view v = stn_ooc_view(e);
        stn_box b = stn_ooc_box(e, r0, r1, q0, q1);
        stn_run_init(e->r, f, level, ooc_win(e, of, a), &v, &b);
        stn_stats_add_time(&e->res->st, STN_PHASE_INIT, t0);
        return 0;
    }
    case STN_SRC_ZERO:
        stn_ooc_copy_box(e, of->ring[a], NULL, &(ooc_rows){r0, r1, q0, q1});
        stn_stats_add_time(&e->res->st, STN_PHASE_INIT, t0);
        return 0;
    case STN_SRC_COPY: /* the previous level starts equal to the current one (placed first) */
        stn_ooc_copy_box(e, of->ring[a], of->ring[ooc_arr(of, 0)], &(ooc_rows){r0, r1, q0, q1});
        stn_stats_add_time(&e->res->st, STN_PHASE_COPY, t0);
        return 0;
    }
    return stn_error(-EINVAL, "internal error: unknown source");
}

int stn_ooc_wrap_parts(const ooc *e, int f, int64_t r0, int64_t r1, int64_t part[3][3]) {
    const stn_ooc_dim *g = &e->plan.r;
    int n = 0;
    if (r1 <= r0)
        return 0;
    /* (an input of a wrapped sweep, read at its own cell along r: the slices past H are the far
     * side's, under the last block's unrolled indices; its boundary slices are never read) */
    int input = e->plan.r.wrap && e->d->fields[f].kind == STN_FIELD_INPUT && !e->exporting;
    if (!input && !(e->own_axes && e->d->fields[f].kind == STN_FIELD_STATE &&
                    (e->d->fields[f].periodic >> g->axis) & 1)) {
        part[0][0] = r0, part[0][1] = r1, part[0][2] = 0;
        return 1;
    }
    int64_t cut[4] = {r0, r0 > g->L ? r0 : g->L < r1 ? g->L : r1, 0, r1}, w = g->H - g->L;
    cut[2] = r1 < g->H ? r1 : g->H > cut[1] ? g->H : cut[1];
    int64_t shift[3] = {w, 0, -w};
    for (int k = 0; k < 3; k++)
        if (cut[k + 1] > cut[k])
            part[n][0] = cut[k], part[n][1] = cut[k + 1], part[n][2] = shift[k], n++;
    return n;
}

int stn_ooc_io_wrapped(ooc *e, int write, int f, stn_gridfile *gf, char *ring, const ooc_rows *rows,
                       stn_aio_group *g) {
    int64_t r0 = rows->r0, r1 = rows->r1, q0 = rows->q0, q1 = rows->q1;
    int64_t part[3][3];
    int n = stn_ooc_wrap_parts(e, f, r0, r1, part), rc = 0;
    for (int k = 0; rc == 0 && k < n; k++) {
        e->rshift = part[k][2];
        rc = stn_ooc_io_box(e, write, gf, ring, &(ooc_rows){part[k][0], part[k][1], q0, q1}, q0, g);
    }
    e->rshift = 0;
    return rc;
}

int stn_ooc_place_wrapped(ooc *e, int f, int level, int src, const ooc_rows *rows) {
    int64_t r0 = rows->r0, r1 = rows->r1, q0 = rows->q0, q1 = rows->q1;
    int64_t part[3][3];
    int n = stn_ooc_wrap_parts(e, f, r0, r1, part), rc = 0;
    for (int k = 0; rc == 0 && k < n; k++) {
        e->rshift = src == STN_SRC_COPY || src == STN_SRC_ZERO ? 0 : part[k][2]; /* (ring to ring) */
        rc = stn_ooc_place(e, f, level, src, &(ooc_rows){part[k][0], part[k][1], q0, q1});
    }
    e->rshift = 0;
    return rc;
}
