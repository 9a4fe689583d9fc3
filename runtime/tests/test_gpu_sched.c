/* test_gpu_sched.c -- the GPU tier's schedule (engines/gpu_sched.c) over a device that is the host: memcpy
 * for the copies, the C kernels for the kernels (the hand-written heat3d, dirichlet and neumann, and the 2d
 * f32 wave with two levels and an input of test_kernels.h).  For many plans (in core, and blocks and bt
 * chosen under budgets of 1/2 to 1/16 of the grid, and given), the run gives the in-core run's bits, and the
 * bytes it moved and the planes it computed are the plan's predictions.  With sources and receivers (points
 * injected into and sampled after each step, the samples on the "device" for a sweep, or in core in pieces of
 * a few steps): the in-core run's bits and samples, the point and sample bytes as predicted.  Periodic along
 * the streamed axis (heat3d periodic along every axis, its update reading the coordinates; the 2d wave
 * periodic along x and y, its input read at its own cell): the windows wrap past the grid's faces, also with
 * cones wider than the grid's interior, and give the in-core bits and the predicted bytes (heat3d's also with
 * the points, whose copies in the cones past the faces are injected too); so does a 1d heat periodic along x,
 * streamed along x (its kernels' pointers shifted to each wrapped piece).  Tiles (blocks cut along y as well,
 * a strided copy): chosen and given, exact; never with heat3d periodic (whole planes, wrapped). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/stn_gpu_sched.h"
#include "test_kernels.h"

#include <inttypes.h>

static int h_alloc(void *ctx, void **ptr, uint64_t bytes) {
    (void)ctx;
    *ptr = malloc(bytes);
    return *ptr ? 0 : -ENOMEM;
}
static void h_release(void *ctx, void *ptr) { (void)ctx, free(ptr); }
static int h_copy(void *ctx, void *to, const void *from, uint64_t bytes, int stream) {
    (void)ctx, (void)stream;
    memcpy(to, from, bytes);
    return 0;
}
static int h_copy2d(void *ctx, void *dst, uint64_t dpitch, const void *src, uint64_t spitch, uint64_t width,
                    uint64_t height, int up, int stream) {
    (void)ctx, (void)up, (void)stream;
    CHECK(width <= dpitch && width <= spitch);
    for (uint64_t i = 0; i < height; i++)
        memcpy((char *)dst + i * dpitch, (const char *)src + i * spitch, width);
    return 0;
}
static int g_tiles;         /* the plans may cut blocks along y (the table has h_copy2d) */
static int64_t g_by, g_nyb; /* rows a tile given (0: chosen); the last plan's tiles a block */

static int h_step(void *ctx, const double *params, const stn_view *v, const void *const *src,
                  void *const *dst, const stn_box *box, int stream) {
    (void)stream;
    return ((const stn_program_desc *)ctx)->step(params, v, src, dst, box, 0, 0);
}
static int h_boundary(void *ctx, int field, const stn_view *v, const void *cur, void *next,
                      const stn_box *box, int stream) {
    (void)stream;
    ((const stn_program_desc *)ctx)->boundary(field, v, cur, next, box);
    return 0;
}
static int h_sync(void *ctx, int stream) { return (void)ctx, (void)stream, 0; }

/* ------------------------------------------------------------------ periodic along every axis
 * A periodic boundary (as the generated one): each boundary cell takes the interior cell an interior's width
 * away, x then y then z, not along the view's own_axes (a wrapped window's, which the schedule fills). */
static void wrap_any(int esize, const int lo[3], const int hi[3], const stn_view *v, void *next,
                     const stn_box *b) {
    const int64_t n[3] = {v->nx, v->ny, v->nz};
    char *a = next;
    for (int d = 0; d < 3; d++) {
        if ((v->own_axes >> d) & 1 || n[d] - lo[d] - hi[d] < 1)
            continue;
        for (int64_t z = b->lo[2]; z < b->hi[2]; z++)
            for (int64_t y = b->lo[1]; y < b->hi[1]; y++)
                for (int64_t x = b->lo[0]; x < b->hi[0]; x++) {
                    int64_t m[3] = {x, y, z};
                    const int64_t P = n[d] - lo[d] - hi[d];
                    if (m[d] < lo[d])
                        m[d] += P;
                    else if (m[d] >= n[d] - hi[d])
                        m[d] -= P;
                    else
                        continue;
                    memcpy(a + esize * idx(v, x, y, z), a + esize * idx(v, m[0], m[1], m[2]), (size_t)esize);
                }
    }
}

/* heat3d on a torus, plus a term of the cell's coordinates (a wrapped window's kernels see the grid's). */
static int heatp_step(const double *params, const stn_view *v, const void *const *src, void *const *dst,
                      const stn_box *b, int64_t iy, int64_t iz) {
    (void)iy, (void)iz;
    const double *a = src[0];
    double *out = dst[0], alpha = params[0];
    for (int64_t z = b->lo[2]; z < b->hi[2]; z++)
        for (int64_t y = b->lo[1]; y < b->hi[1]; y++)
            for (int64_t x = b->lo[0]; x < b->hi[0]; x++) {
                const int64_t i = idx(v, x, y, z);
                out[i] = heat_point(a, i, v->sy, v->sz, alpha) + 1e-3 * (double)(z % 5 + y % 3);
            }
    return 0;
}
static void heatp_boundary(int field, const stn_view *v, const void *cur, void *next, const stn_box *b) {
    CHECK(field == 0);
    (void)cur;
    wrap_any(8, heat_lo, heat_hi, v, next, b);
}
static void wavep_boundary(int field, const stn_view *v, const void *cur, void *next, const stn_box *b) {
    CHECK(field == 0);
    (void)cur;
    wrap_any(4, wave_lo, wave_hi, v, next, b);
}
static const stn_field_desc heatp_fields[] = {{.name = "u",
                                               .kind = STN_FIELD_STATE,
                                               .levels = 1,
                                               .boundary = STN_BC_DIRICHLET,
                                               .has_init = 1,
                                               .prev_slot = -1,
                                               .periodic = 7}};
static const stn_field_desc wavep_fields[] = {{.name = "u",
                                               .kind = STN_FIELD_STATE,
                                               .levels = 2,
                                               .boundary = STN_BC_DIRICHLET,
                                               .has_init = 1,
                                               .has_prev_init = 1,
                                               .prev_slot = 1,
                                               .periodic = 3},
                                              {.name = "c",
                                               .kind = STN_FIELD_INPUT,
                                               .levels = 1,
                                               .has_init = 1,
                                               .src_slot = 2,
                                               .prev_slot = -1,
                                               .dst_slot = -1,
                                               .read_across = 8}};
static stn_program_desc heat_p, wave_p; /* (heat_d and wave_d with these fields and boundaries: main) */

/* The initial arrays of every src[] slot: the init functions (prev = current without one). */
static void initial(const stn_program_desc *d, const int64_t n[3], void **a, int64_t cells) {
    const stn_view v = {n[0], n[1], n[2], n[0], n[0] * n[1], 0, 0, 0, NULL};
    const stn_box whole = {{0, 0, 0}, {n[0], n[1], n[2]}};
    const double alpha = 0.1;
    for (int f = 0; f < d->nfields; f++) {
        const stn_field_desc *fd = &d->fields[f];
        d->init(f, 0, a[fd->src_slot], &v, &alpha, &whole);
        if (fd->prev_slot >= 0) {
            if (fd->has_prev_init)
                d->init(f, 1, a[fd->prev_slot], &v, &alpha, &whole);
            else
                memcpy(a[fd->prev_slot], a[fd->src_slot], (size_t)(cells * d->elem_size));
        }
        for (int l = 0; fd->periodic && l < fd->levels;
             l++) /* (wrapped before the first step, as the engines) */
            d->boundary(f, &v, a[l ? fd->prev_slot : fd->src_slot], a[l ? fd->prev_slot : fd->src_slot],
                        &whole);
    }
}

/* ------------------------------------------------------------------ sources and receivers
 * NPTS cells (two the same, several along z: in several blocks); step t adds 0.01 (t + 1) to the field's new
 * level at each (an inject), then samples it there (a record); the samples of the steps [0, STEPS). */
#define NPTS 6
#define STEPS 13
static const int64_t pts_[3 * NPTS] = {3, 3, 2, 3, 3, 2, 4, 2, 100, 4, 2, 100, 2, 5, 101, 5, 4, 198};
static double rec_ref[STEPS * NPTS], rec_got[STEPS * NPTS];
typedef struct pts_dev {
    const stn_program_desc *d;
    int64_t t;       /* the step queued (at_step) */
    double *samples; /* the device's: sample_rows rows */
    int64_t rows;
} pts_dev;

static void inject_record(const stn_view *v, void *const *dst, const stn_box *box, const stn_box *own,
                          int64_t t, double *out) {
    double *u = dst[0];
    for (int i = 0; i < NPTS; i++) {
        const int64_t *c = &pts_[3 * i];
        const int64_t at = (c[2] - v->z0) * v->sz + (c[1] - v->y0) * v->sy + c[0];
        int in = 1, mine = 1;
        for (int e = 0; e < 3; e++)
            in &= c[e] >= box->lo[e] && c[e] < box->hi[e], mine &= c[e] >= own->lo[e] && c[e] < own->hi[e];
        if (in)
            u[at] += 0.01 * (double)(t + 1);
        (void)mine;
    }
    for (int i = 0; i < NPTS; i++) {
        const int64_t *c = &pts_[3 * i];
        int mine = 1;
        for (int e = 0; e < 3; e++)
            mine &= c[e] >= own->lo[e] && c[e] < own->hi[e];
        if (mine)
            out[i] = u[(c[2] - v->z0) * v->sz + (c[1] - v->y0) * v->sy + c[0]];
    }
}

static int h_pstep(void *ctx, const double *params, const stn_view *v, const void *const *src,
                   void *const *dst, const stn_box *box, int stream) {
    (void)stream;
    return ((pts_dev *)ctx)->d->step(params, v, src, dst, box, 0, 0);
}
static int h_pboundary(void *ctx, int field, const stn_view *v, const void *cur, void *next,
                       const stn_box *box, int stream) {
    (void)stream;
    ((pts_dev *)ctx)->d->boundary(field, v, cur, next, box);
    return 0;
}
static void h_at_step(void *ctx, int64_t t) { ((pts_dev *)ctx)->t = t; }
static int h_points(void *ctx, uint64_t *bytes) {
    pts_dev *g = ctx;
    *bytes = sizeof pts_;
    g->samples = calloc((size_t)(g->rows ? g->rows : 1) * NPTS, sizeof(double));
    return g->samples ? 0 : -ENOMEM;
}
static int h_point_ops(void *ctx, const stn_view *v, const void *const *src, void *const *dst,
                       const stn_box *box, const stn_box *own, int64_t row, int stream) {
    pts_dev *g = ctx;
    (void)src, (void)stream;
    CHECK(row >= 0 && row < g->rows);
    inject_record(v, dst, box, own, g->t, g->samples + row * NPTS);
    return 0;
}
static int h_samples(void *ctx, int64_t t, int64_t rows, uint64_t *bytes) {
    pts_dev *g = ctx;
    CHECK(rows <= g->rows && t + rows <= STEPS);
    memcpy(rec_got + t * NPTS, g->samples, (size_t)rows * NPTS * sizeof(double));
    *bytes = (uint64_t)rows * NPTS * sizeof(double);
    return 0;
}

/* The in-core run: the whole grid, step by step (the plan of one block with bt = steps, run as the
 * in-core engine does: the interior, then the boundary, then the rotation). */
static void in_core(const stn_program_desc *d, const int64_t n[3], void **a, int64_t steps, int64_t cells,
                    int points) {
    const stn_view v = {n[0], n[1], n[2], n[0], n[0] * n[1], 0, 0, 0, NULL};
    const stn_box whole = {{0, 0, 0}, {n[0], n[1], n[2]}};
    stn_box in;
    for (int e = 0; e < 3; e++)
        in.lo[e] = d->halo_lo[e], in.hi[e] = n[e] - d->halo_hi[e];
    const double alpha = 0.1;
    void *dst[4];
    for (int s = 0; s < d->ndst; s++)
        dst[s] = calloc((size_t)cells, (size_t)d->elem_size);
    for (int64_t t = 0; t < steps; t++) {
        d->step(&alpha, &v, (const void *const *)a, dst, &in, 0, 0);
        if (points)
            inject_record(&v, dst, &in, &in, t, rec_ref + t * NPTS);
        for (int f = 0; f < d->nfields; f++) {
            const stn_field_desc *fd = &d->fields[f];
            if (fd->kind != STN_FIELD_STATE)
                continue;
            d->boundary(f, &v, a[fd->src_slot], dst[fd->dst_slot], &whole);
            void *old = a[fd->prev_slot >= 0 ? fd->prev_slot : fd->src_slot];
            if (fd->prev_slot >= 0)
                a[fd->prev_slot] = a[fd->src_slot];
            a[fd->src_slot] = dst[fd->dst_slot];
            dst[fd->dst_slot] = old;
        }
    }
    for (int s = 0; s < d->ndst; s++)
        free(dst[s]);
}

/* Returns the plan's blocks (0: no plan). */
static int64_t check(const stn_program_desc *d, const int64_t n[3], int64_t steps, int64_t div, int64_t bz,
                     int64_t bt) {
    const int64_t cells = n[0] * n[1] * n[2];
    void *ref[4], *host[4], *other[4];
    for (int s = 0; s < d->nsrc; s++) {
        ref[s] = calloc((size_t)cells, (size_t)d->elem_size);
        host[s] = calloc((size_t)cells, (size_t)d->elem_size);
        other[s] = calloc((size_t)cells, (size_t)d->elem_size);
    }
    for (int f = 0; f < d->nfields; f++) /* inputs have no second copy */
        if (d->fields[f].kind != STN_FIELD_STATE) {
            free(other[d->fields[f].src_slot]);
            other[d->fields[f].src_slot] = NULL;
        }
    initial(d, n, ref, cells);
    initial(d, n, host, cells);
    in_core(d, n, ref, steps, cells, 0);
    const uint64_t grid = (uint64_t)(d->nsrc + d->ndst) * (uint64_t)cells * (uint64_t)d->elem_size;
    const uint64_t budget =
        bz ? (uint64_t)1 << 40 : grid / (uint64_t)div; /* (given: a wrapped window may be wider) */
    stn_gpu_request q = {d, {n[0], n[1], n[2]}, steps, budget, 2, bz, bt, 25e9, 25e9, 2e12};
    q.tiles = g_tiles, q.by = g_by;
    stn_gpu_plan p;
    int rc = stn_gpu_plan_for(&q, &p);
    if (rc) {
        fprintf(stderr, "%s %" PRId64 "x%" PRId64 "x%" PRId64 " 1/%" PRId64 ": no plan: %s\n", d->name, n[0],
                n[1], n[2], div, stn_errmsg());
        t_failures++;
        return 0;
    }
    const stn_gpu_dev_ops ops = {(void *)d,
                                 h_alloc,
                                 h_release,
                                 h_copy,
                                 h_copy,
                                 h_step,
                                 h_boundary,
                                 h_sync,
                                 NULL,
                                 NULL,
                                 NULL,
                                 NULL,
                                 g_tiles ? h_copy2d : NULL};
    g_nyb = p.nyb;
    stn_gpu_counts c;
    rc = stn_gpu_run(&p, d, n, (const double[]){0.1}, host, other, &ops, &c);
    CHECK(rc == 0);
    int same = 1;
    for (int s = 0; s < d->nsrc; s++)
        same &= !memcmp(host[s], ref[s], (size_t)(cells * d->elem_size));
    if (!same || c.h2d_bytes != p.h2d_bytes || c.d2h_bytes != p.d2h_bytes ||
        c.planes_computed != p.planes_computed || c.cells_computed != p.cells_computed) {
        fprintf(stderr,
                "%s 1/%" PRId64 " bz %" PRId64 " by %" PRId64 " bt %" PRId64 " blocks %" PRId64
                ": %s; bytes up %" PRIu64 "/%" PRIu64 " down %" PRIu64 "/%" PRIu64 " planes %" PRIu64
                "/%" PRIu64 " (counted/predicted)\n",
                d->name, div, p.bz, p.by, p.bt, p.nblocks, same ? "the in-core bits" : "NOT the in-core bits",
                c.h2d_bytes, p.h2d_bytes, c.d2h_bytes, p.d2h_bytes, c.planes_computed, p.planes_computed);
        t_failures++;
    }
    for (int s = 0; s < d->nsrc; s++)
        free(ref[s]), free(host[s]), free(other[s]);
    return p.nblocks;
}

/* heat_n (or heat_p, periodic: the windows wrap, a point's copies in the cones past the faces injected too)
 * with the points of pts_: in core (the samples down in pieces of `chunk` steps when > 0) or within 1/div of
 * the grid (or in given tiles of `by` rows): the in-core bits and samples, the bytes as predicted. */
static void check_points(const stn_program_desc *d, int64_t div, int64_t chunk, int64_t by) {
    const int64_t n[3] = {8, 7, 201}, cells = n[0] * n[1] * n[2];
    void *ref[1] = {calloc((size_t)cells, 8)}, *host[1] = {calloc((size_t)cells, 8)},
         *other[1] = {calloc((size_t)cells, 8)};
    initial(d, n, ref, cells);
    initial(d, n, host, cells);
    memset(rec_ref, 0, sizeof rec_ref), memset(rec_got, 0, sizeof rec_got);
    in_core(d, n, ref, STEPS, cells, 1);
    const uint64_t grid = 2 * (uint64_t)cells * 8;
    stn_gpu_request q = {
        d,           {n[0], n[1], n[2]},   STEPS, grid / (uint64_t)div + 4096, 2, 0, 0, 25e9, 25e9, 2e12,
        sizeof pts_, NPTS * sizeof(double)};
    if (by > 0) /* given tiles of `by` rows: points in several tiles, and in the cones of others */
        q.bz = 20, q.bt = 3, q.by = by, q.tiles = 1;
    stn_gpu_plan p;
    CHECK(stn_gpu_plan_for(&q, &p) == 0);
    CHECK((by > 0) == (p.nyb > 1));
    CHECK(p.points_bytes == sizeof pts_ && p.sample_rows == (p.nblocks > 1 ? p.bt : STEPS));
    CHECK((div == 1 && by == 0) == (p.nblocks == 1));
    if (chunk > 0)
        p.sample_rows = chunk; /* (the in-core plan's pieces of a long run) */
    pts_dev g = {d, 0, NULL, p.sample_rows};
    const stn_gpu_dev_ops ops = {&g,     h_alloc,   h_release, h_copy,      h_copy,    h_pstep, h_pboundary,
                                 h_sync, h_at_step, h_points,  h_point_ops, h_samples, h_copy2d};
    stn_gpu_counts c;
    CHECK(stn_gpu_run(&p, d, n, (const double[]){0.1}, host, other, &ops, &c) == 0);
    const int same = !memcmp(host[0], ref[0], (size_t)cells * 8) && !memcmp(rec_got, rec_ref, sizeof rec_ref);
    if (!same || c.h2d_bytes != p.h2d_bytes || c.d2h_bytes != p.d2h_bytes || rec_ref[STEPS * NPTS - 1] == 0) {
        fprintf(stderr,
                "%s points 1/%" PRId64 " chunk %" PRId64 ": %s; bytes up %" PRIu64 "/%" PRIu64
                " down %" PRIu64 "/%" PRIu64 " (counted/predicted)\n",
                d->name, div, chunk,
                same ? "the in-core bits and samples" : "NOT the in-core bits and samples", c.h2d_bytes,
                p.h2d_bytes, c.d2h_bytes, p.d2h_bytes);
        t_failures++;
    }
    free(g.samples), free(ref[0]), free(host[0]), free(other[0]);
}

/* ------------------------------------------------------------------ a 1d grid (one row of a 2d grid, dims 1)
 * u' = u + alpha (u[-1] + u[1] - 2u), streamed along x in blocks of cells. */
static const int heat1_lo[3] = {1, 0, 0}, heat1_hi[3] = {1, 0, 0};

static int heat1_step(const double *params, const stn_view *v, const void *const *src, void *const *dst,
                      const stn_box *b, int64_t iy, int64_t iz) {
    (void)iy, (void)iz, (void)v;
    const double *a = src[0];
    double *out = dst[0], alpha = params[0];
    CHECK(b->lo[1] == 0 && b->hi[1] == 1 && b->lo[2] == 0 && b->hi[2] == 1);
    for (int64_t x = b->lo[0]; x < b->hi[0]; x++)
        out[x] = a[x] + alpha * (a[x - 1] + a[x + 1] - 2.0 * a[x]);
    return 0;
}
static void heat1_boundary_d(int field, const stn_view *v, const void *cur, void *next, const stn_box *b) {
    CHECK(field == 0);
    boundary_any(8, heat1_lo, heat1_hi, 0, v, cur, next, b);
}
static void heat1_boundary_n(int field, const stn_view *v, const void *cur, void *next, const stn_box *b) {
    CHECK(field == 0);
    boundary_any(8, heat1_lo, heat1_hi, 1, v, cur, next, b);
}

static void heat1_boundary_p(int field, const stn_view *v, const void *cur, void *next, const stn_box *b) {
    CHECK(field == 0);
    (void)cur;
    wrap_any(8, heat1_lo, heat1_hi, v, next, b);
}
static const stn_field_desc heat1p_fields[] = {{.name = "u",
                                                .kind = STN_FIELD_STATE,
                                                .levels = 1,
                                                .boundary = STN_BC_DIRICHLET,
                                                .has_init = 1,
                                                .prev_slot = -1,
                                                .periodic = 1}};

/* heat_d or heat_n as a 1d grid (reach: how far one step reads along x, 1 or more, as sub-steps have). */
static stn_program_desc heat1(const stn_program_desc *like, int neumann, int reach) {
    stn_program_desc d = *like;
    d.name = neumann ? "heat1dn" : "heat1d";
    d.ndim = 2, d.dims = 1;
    for (int k = 0; k < 3; k++)
        d.halo_lo[k] = d.halo_hi[k] = heat1_lo[k], d.reach_lo[k] = d.reach_hi[k] = k ? 0 : reach;
    d.step = heat1_step;
    d.boundary = neumann ? heat1_boundary_n : heat1_boundary_d;
    return d;
}

/* Blocks cut along y as well (tiles): chosen under budgets of 1/2 to 1/32 (some tiled), and given (tiles of
 * 10 rows, the last of 8: 5 a block; of 2 rows, the thinnest); heat_p (periodic along y and z) under the same
 * budgets (to 1/8: whole planes need more below): never tiled (tiles and wrapped windows do not combine), the
 * in-core bits still. */
static void check_tiles(void) {
    static const int64_t n3[3] = {5, 48, 64};
    const stn_program_desc *ds[] = {&heat_d, &heat_n};
    int tiled = 0;
    g_tiles = 1;
    for (int i = 0; i < 2; i++) {
        for (int64_t div = 1; div <= 32; div *= 2) {
            check(ds[i], n3, 13, div, 0, 0);
            tiled += g_nyb > 1;
        }
        g_by = 10;
        check(ds[i], n3, 13, 1, 9, 3);
        CHECK(g_nyb == 5);
        g_by = 2;
        check(ds[i], n3, 13, 1, 7, 2);
        CHECK(g_nyb == 24);
        g_by = 0;
    }
    for (int64_t div = 1; div <= 8; div *= 2) { /* periodic along y and z: whole planes, the windows wrap */
        check(&heat_p, n3, 13, div, 0, 0);
        CHECK(g_nyb == 1);
    }
    g_tiles = 0;
    CHECK(tiled >= 2);
    printf("test_gpu_sched: %d of the chosen plans cut along y\n", tiled);
}

int main(void) {
    static const int64_t n3[3] = {8, 7, 201}, n2[3] = {17, 301, 1};
    heat_p = heat_d, heat_p.name = "heat3d_periodic", heat_p.fields = heatp_fields, heat_p.step = heatp_step;
    heat_p.boundary = heatp_boundary;
    wave_p = wave_d, wave_p.name = "wave2d_periodic", wave_p.fields = wavep_fields,
    wave_p.boundary = wavep_boundary;
    const stn_program_desc *ds[] = {&heat_d, &heat_n, &wave_d, &wave_n, &heat_p, &wave_p};
    for (int i = 0; i < 6; i++) {
        const int64_t *n = ds[i]->ndim == 3 ? n3 : n2;
        for (int64_t div = 1; div <= 16; div *= 2)
            check(ds[i], n, 13, div, 0, 0);
        check(ds[i], n, 13, 1, 7, 3); /* given: 7 planes a block, 3 steps a sweep (the last sweep 1) */
        check(ds[i], n, 13, 1, 9, 2); /* (the last block of 3 or 4 planes) */
    }
    /* a remainder thinner than twice the boundary layer joins the last block (a neumann face mirrors within
     * it) */
    check(&heat_n, n3, 13, 1, 2, 1);
    /* wrapped windows whose cone is wider than the grid's interior (several wraps a window) */
    check(&heat_p, (const int64_t[]){6, 5, 12}, 13, 1, 4, 6);
    check(&wave_p, (const int64_t[]){9, 11, 1}, 13, 1, 3, 7);
    stn_gpu_request q = {&heat_n, {8, 7, 201}, 13, 1ull << 30, 2, 2, 1, 0, 0, 0};
    stn_gpu_plan p;
    int64_t z0, z1;
    CHECK(stn_gpu_plan_for(&q, &p) == 0 && p.nblocks == 100);
    stn_gpu_block(&p, 99, &z0, &z1);
    CHECK(z0 == 198 && z1 == 201);
    static const int64_t n1[3] = {403, 1, 1};
    for (int k = 0; k < 4; k++) { /* a 1d grid, cut into blocks of cells */
        const stn_program_desc d1 = heat1(k & 1 ? &heat_n : &heat_d, k & 1, 1 + k / 2);
        for (int64_t div = 1; div <= 16; div *= 2)
            CHECK((check(&d1, n1, 13, div, 0, 0) > 1) == (div > 1));
        CHECK(check(&d1, n1, 13, 1, 40, 3) == 11); /* (the last of 3 cells) */
    }
    stn_program_desc d1p = heat1(&heat_d, 0, 1); /* periodic along x: its windows wrap, cells shifted */
    d1p.name = "heat1d_periodic", d1p.fields = heat1p_fields, d1p.boundary = heat1_boundary_p;
    for (int64_t div = 1; div <= 16; div *= 2)
        CHECK((check(&d1p, n1, 13, div, 0, 0) > 1) == (div > 1));
    CHECK(check(&d1p, n1, 13, 1, 40, 3) == 11);
    check(&d1p, (const int64_t[]){12, 1, 1}, 13, 1, 4, 6); /* (cones wider than the interior) */
    for (int64_t div = 1; div <= 8; div *= 2)
        check_points(&heat_n, div, 0, 0), check_points(&heat_p, div, 0, 0);
    check_points(&heat_n, 1, 3, 0); /* in core, the samples down every 3 steps (and the last 1) */
    check_points(&heat_n, 1, 1, 0);
    check_points(&heat_n, 1, 0, 2); /* tiles of 2 rows (the last 3), and of 3 */
    check_points(&heat_n, 1, 0, 3);
    check_tiles();
    printf("test_gpu_sched: %d failures\n", t_failures);
    return t_failures ? 1 : 0;
}
