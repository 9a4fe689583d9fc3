/* incore.c -- the in-core engine (--mode incore): the whole grid in DRAM, one kernel call per step.
 *
 * It is also the reference the out-of-core engine must match bit for bit, so it follows the
 * descriptor's semantics literally:
 *   - per state field levels + 1 buffers (cur/next ping-pong; prev/cur/next rotation for two
 *     levels), per input field one buffer;
 *   - initial values: --init file, else the stencil's init, else zero; a two-level field's
 *     previous level from --init NAME.prev, else its init of level 1, else a copy of current;
 *   - neumann fields are mirrored once before the first step (both levels if they differ);
 *   - each step: step() on the interior, then boundary() of every state field on its new level,
 *     then the rotation. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "stn_ooc.h"
#include "stn_run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Large enough for transparent huge pages and O_DIRECT alike. */
#define BUF_ALIGN 4096
/* Buffers of 2 MiB or more are 2 MiB aligned and asked for transparent huge pages (THP is
 * often "madvise" only).  A 7-point update touches three planes MiBs apart; on 4 KiB pages
 * that is a TLB miss per row.  On the 2-core VM this took heat3d 256^3 in-core from
 * 1.0-1.47e9 cells/s (run to run) to 1.37-1.54e9, and 512^3 from 0.87-1.3e9 to 1.23-1.31e9
 * (docs/benchmarks.md).  Without THP the advice is ignored. */
#define HUGE_ALIGN ((size_t)2 << 20)

typedef struct field_bufs {
    void *buf[3];
    int nbuf;
    int cur, next, prev; /* indices into buf; prev = -1 for one level */
    /* dirichlet: this buffer's boundary cells already equal the initial ones, so boundary()
     * would copy nothing new and can be skipped */
    int bc_initial[3];
} field_bufs;

typedef struct tiles {
    stn_ooc_dim y, z; /* z: one tile of extent 1 in 2d */
    int64_t bt;
} tiles;

struct stn_incore {
    const stn_run *r;
    stn_result *res;
    const stn_program_desc *d;
    field_bufs *f;
    const void **src;
    void **dst;
    stn_box whole, interior;
    int tiled;
    struct tiles tl;    /* when tiled: the temporal tiles (pick_tiles) */
    stn_run_copy *part; /* MPI: the run on this rank's slab (docs/design/018), e->r points at it */
    stn_run_copy *fold; /* MPI, a 1d grid: its rows (design 014), which the slab cuts */
    int64_t chunk;      /* and the steps between the ghosts' exchanges (the ghosts are chunk x skew deep) */
};
typedef struct stn_incore engine;

/* ------------------------------------------------------------------ parallel memory helpers */

/* Thread t of T gets bytes [n*t/T, n*(t+1)/T): the same static split the kernels' outer
 * loops use, so pages are first touched by (roughly) the thread that computes on them. */
static void par_zero(void *p, size_t n) {
    STN_OMP_PARALLEL {
        size_t t = (size_t)stn_omp_thread_num(), nt = (size_t)stn_omp_num_threads(), chunk = n / nt;
        size_t lo = chunk * t, hi = t + 1 == nt ? n : lo + chunk;
        memset((char *)p + lo, 0, hi - lo);
    }
}

static void par_copy(void *dst, const void *src, size_t n, stn_stats *st) {
    double t0 = stn_now();
    STN_OMP_PARALLEL {
        size_t t = (size_t)stn_omp_thread_num(), nt = (size_t)stn_omp_num_threads(), chunk = n / nt;
        size_t lo = chunk * t, hi = t + 1 == nt ? n : lo + chunk;
        memcpy((char *)dst + lo, (const char *)src + lo, hi - lo);
    }
    stn_stats_add_time(st, STN_PHASE_COPY, t0);
}

/* ------------------------------------------------------------------ setup */

static void unmap_buffer(void *p, size_t bytes) {
    if (p)
        munmap(p, bytes);
}

/* Bytes this process made the storage layer read and write (page cache misses, writeback):
 * the flash traffic of --mode mmap, which the kernel moves without asking us. */
static void proc_io(uint64_t *rd, uint64_t *wr) {
    FILE *fp = fopen("/proc/self/io", "r");
    char line[128];
    unsigned long long v;
    while (fp && fgets(line, sizeof line, fp)) {
        if (sscanf(line, "read_bytes: %llu", &v) == 1)
            *rd = v;
        else if (sscanf(line, "write_bytes: %llu", &v) == 1)
            *wr = v;
    }
    if (fp)
        fclose(fp);
}

static int alloc_buffers(engine *e) {
    const stn_program_desc *d = e->d;
    size_t bytes = (size_t)e->r->grid_bytes;
    double t0 = stn_now();
    int mm = e->r->o->mode == STN_MODE_MMAP,
        rc = mm ? stn_map_space(e->r->o->dir, bytes, stn_total_arrays(d)) : 0;
    for (int i = 0; rc == 0 && i < d->nfields; i++) {
        const stn_field_desc *fd = &d->fields[i];
        field_bufs *fb = &e->f[i];
        fb->nbuf = fd->kind == STN_FIELD_STATE ? fd->levels + 1 : 1;
        fb->cur = 0;
        fb->next = fb->nbuf > 1 ? 1 : -1;
        fb->prev = fb->nbuf > 2 ? 2 : -1;
        for (int b = 0; b < fb->nbuf; b++) {
            if (mm && (rc = stn_map_file(e->r->o->dir, d->name, fd->name, b, bytes, &fb->buf[b])) != 0)
                return rc;
            if (!mm)
                fb->buf[b] = stn_alloc(bytes, bytes >= HUGE_ALIGN ? HUGE_ALIGN : BUF_ALIGN);
            if (fb->buf[b] && !mm && bytes >= HUGE_ALIGN)
                (void)madvise(fb->buf[b], bytes / HUGE_ALIGN * HUGE_ALIGN, MADV_HUGEPAGE);
            if (!fb->buf[b])
                return stn_error(-ENOMEM,
                                 "in-core run: cannot allocate level %d of field '%s' (%d of %d buffers of "
                                 "%zu bytes): %s",
                                 b, fd->name, b + 1, fb->nbuf, bytes, stn_errmsg());
            par_zero(fb->buf[b], bytes); /* first touch, and the zero of fields without init */
        }
    }
    stn_stats_add_time(&e->res->st, STN_PHASE_INIT, t0);
    return rc;
}

/* One level of one field: the --init file, else the stencil's init, else (already) zero.
 * Returns 1 in *given when the level got values of its own. */
static int fill_level(engine *e, int f, int level, void *data, int *given) {
    const stn_run *r = e->r;
    const stn_field_desc *fd = &e->d->fields[f];
    const char *path = r->o->init_path[2 * f + level];
    int has_init = level == 0 ? fd->has_init : fd->has_prev_init;
    *given = path != NULL || has_init;
    if (path) {
        int64_t shape[3] = {r->o->size[2], r->o->size[1], r->o->size[0]};
        int64_t *sh = shape + 3 - stn_dims(e->d); /* a 1d grid is one row */
        const stn_slab *sl = &r->slab;
        int rc;
        const stn_fold *fo = &r->fold;
        if (fo->W) { /* a rank's slab of a folded 1d grid: the cells of its rows */
            int64_t c0 = sl->base * fo->W - fo->P, rows = r->view.ny, lo = c0 > 0 ? c0 : 0;
            int64_t c = stn_fold_cells(fo, sl->base, sl->base + rows), n = fo->n;
            rc =
                c ? stn_npy_load_part(path, e->d->npy_descr, 1, &n, lo, c,
                                      (char *)data + (size_t)(lo - c0) * (size_t)e->d->elem_size, &e->res->st)
                  : 0;
        } else if (sl->axis) { /* a rank's part: its slices of the whole grid's file (a ring's where they wrap
                                  to), of a cross cut (--ranks) their rows' part */
            int64_t count = sh[0], slice = (int64_t)r->grid_bytes / count, m = sl->H - sl->L;
            int64_t whole[3] = {sl->xn[2], sl->xn[1], sl->xn[0]};
            sh = whole + 3 - stn_dims(e->d);
            rc = 0;
            for (int64_t i = 0, k; rc == 0 && i < count; i = k) {
                int64_t gi = sl->base + i, d = sl->periodic && gi < sl->L    ? m
                                               : sl->periodic && gi >= sl->H ? -m
                                                                             : 0;
                k = d > 0 ? sl->L - sl->base : d < 0 || !sl->periodic ? count : sl->H - sl->base;
                k = k < count ? k : count;
                if (!sl->cut) {
                    rc = stn_npy_load_part(path, e->d->npy_descr, stn_dims(e->d), sh, gi + d, k - i,
                                           (char *)data + i * slice, &e->res->st);
                    continue;
                }
                /* a cross cut: the part's rows' parts, each piece of a ring across them from where it wraps
                 * to */
                int64_t pc[3][3][3];
                int np[3];
                const stn_view *v = &r->view;
                int64_t ext[3] = {v->nx, v->ny, v->nz};
                for (int a = 0; a < 3; a++)
                    np[a] = a == sl->axis ? (pc[a][0][0] = gi, pc[a][0][1] = gi + k - i, pc[a][0][2] = d, 1)
                                          : stn_ring_pieces(sl->xbase[a], sl->xbase[a] + ext[a],
                                                            sl->ring >> a & 1, sl->xL[a], sl->xH[a], pc[a]);
                for (int iz = 0; rc == 0 && iz < np[2]; iz++)
                    for (int iy = 0; rc == 0 && iy < np[1]; iy++)
                        for (int ix = 0; rc == 0 && ix < np[0]; ix++) {
                            const int64_t *q[3] = {pc[0][ix], pc[1][iy], pc[2][iz]};
                            int64_t lo[3], n[3], at = 0;
                            for (int a = 0; a < 3; a++) {
                                lo[a] = q[a][0] + q[a][2], n[a] = q[a][1] - q[a][0];
                                at += (q[a][0] - sl->xbase[a]) * (a == 0 ? 1 : a == 1 ? v->sy : v->sz);
                            }
                            rc = stn_npy_load_box(path, e->d->npy_descr, stn_dims(e->d), sh, lo, n,
                                                  (char *)data + (size_t)at * (size_t)e->d->elem_size, v->sy,
                                                  v->sz, &e->res->st);
                        }
            }
        } else {
            rc = stn_npy_load(path, e->d->npy_descr, stn_dims(e->d), sh, data, &e->res->st);
        }
        if (rc)
            return stn_error(rc, "--init %s%s=%s: %s", fd->name, level ? ".prev" : "", path, stn_errmsg());
    } else if (has_init) {
        double t0 = stn_now();
        stn_run_init(r, f, level, data, &r->view, &e->whole);
        stn_stats_add_time(&e->res->st, STN_PHASE_INIT, t0);
    }
    return 0;
}

static void mirror(engine *e, int f, void *data) {
    double t0 = stn_now();
    stn_run_boundary(e->r, f, &e->r->view, data, data, &e->whole);
    stn_stats_add_time(&e->res->st, STN_PHASE_COMPUTE, t0);
}

static int initial_values(engine *e) {
    const stn_program_desc *d = e->d;
    size_t bytes = (size_t)e->r->grid_bytes;
    for (int i = 0; i < d->nfields; i++) {
        field_bufs *fb = &e->f[i];
        int neumann = d->fields[i].kind == STN_FIELD_STATE && (d->fields[i].boundary == STN_BC_NEUMANN ||
                                                               d->fields[i].periodic); /* set before step 1 */
        int given, prev_given = 0;
        int rc = fill_level(e, i, 0, fb->buf[fb->cur], &given);
        if (rc == 0 && fb->prev >= 0)
            rc = fill_level(e, i, 1, fb->buf[fb->prev], &prev_given);
        if (rc)
            return rc;
        if (neumann)
            mirror(e, i, fb->buf[fb->cur]);
        if (neumann && prev_given)
            mirror(e, i, fb->buf[fb->prev]);
        if (fb->prev >= 0 && !prev_given)
            par_copy(fb->buf[fb->prev], fb->buf[fb->cur], bytes, &e->res->st);
        if (fb->next >= 0)
            par_copy(fb->buf[fb->next], fb->buf[fb->cur], bytes, &e->res->st);
        fb->bc_initial[fb->cur] = 1;
        if (fb->next >= 0)
            fb->bc_initial[fb->next] = 1;
        if (fb->prev >= 0)
            fb->bc_initial[fb->prev] = !prev_given;
    }
    return 0;
}

/* ------------------------------------------------------------------ the time loop */

static void bind_slots(engine *e) {
    for (int i = 0; i < e->d->nfields; i++) {
        const stn_field_desc *fd = &e->d->fields[i];
        field_bufs *fb = &e->f[i];
        if (fd->src_slot >= 0)
            e->src[fd->src_slot] = fb->buf[fb->cur];
        if (fd->prev_slot >= 0 && fb->prev >= 0)
            e->src[fd->prev_slot] = fb->buf[fb->prev];
        if (fd->dst_slot >= 0 && fb->next >= 0)
            e->dst[fd->dst_slot] = fb->buf[fb->next];
    }
}

/* Whether this step must set the boundary cells of state field fd's next level (neumann: always;
 * dirichlet: unless they already hold the initial ones), and what they hold afterwards: a
 * dirichlet copy of cur's boundary, which is the initial one when cur's is. */
static int boundary_due(const stn_field_desc *fd, field_bufs *fb) {
    int dirichlet = fd->boundary == STN_BC_DIRICHLET && !fd->periodic; /* a wrap changes every step */
    if (dirichlet && fb->bc_initial[fb->next])
        return 0;
    fb->bc_initial[fb->next] = dirichlet && fb->bc_initial[fb->cur];
    return 1;
}

static void boundaries(engine *e) {
    for (int i = 0; i < e->d->nfields; i++) {
        field_bufs *fb = &e->f[i];
        if (e->d->fields[i].kind == STN_FIELD_STATE && boundary_due(&e->d->fields[i], fb))
            stn_run_boundary(e->r, i, &e->r->view, fb->buf[fb->cur], fb->buf[fb->next], &e->whole);
    }
}

/* The loop's rotation of one field's buffers after a step: cur <-> next, or prev <- cur <- next. */
static void rotate_one(field_bufs *fb) {
    if (fb->nbuf == 2) {
        int t = fb->cur;
        fb->cur = fb->next;
        fb->next = t;
    } else if (fb->nbuf == 3) {
        int t = fb->prev;
        fb->prev = fb->cur;
        fb->cur = fb->next;
        fb->next = t;
    }
}

static void rotate(engine *e) {
    for (int i = 0; i < e->d->nfields; i++)
        rotate_one(&e->f[i]);
}

/* ------------------------------------------------------------------ temporal tiles
 *
 * The loop above streams every array through DRAM once a step.  Tiled, the interior is cut into
 * tiles of by x bz rows (y and z; rows of y in 2d), skewed like the out-of-core blocks
 * (docs/out-of-core.md: tile k computes [A(k,t), A(k+1,t)) at step t, the edges moving down by
 * the skew every step), and each tile advances bt steps while its rows are in cache before the
 * next one starts; tiles go z-row by z-row, y within.  Every level keeps its array, so a tile
 * never overwrites what a later one still reads, and the result is bit-identical to the loop.
 * Boundaries as out-of-core: neumann cells are mirrored lazily, before a step, over the cells
 * it reads (and over everything after the last step); dirichlet cells are copied, where the loop
 * copies them, over the cells the tile owns. */

static void tile_dim(const stn_program_desc *d, const stn_view *v, int axis, int64_t b, stn_ooc_dim *g) {
    int64_t n = axis == 1 ? v->ny : v->nz;
    memset(g, 0, sizeof *g);
    g->axis = axis;
    g->n = n;
    if (axis >= d->ndim) { /* 2d: z is one tile of everything */
        g->L = 0, g->H = n, g->b = n, g->nblocks = 1;
        return;
    }
    g->hlo = d->halo_lo[axis], g->hhi = d->halo_hi[axis];
    g->rlo = d->reach_lo[axis] > g->hlo ? d->reach_lo[axis] : g->hlo;
    g->rhi = d->reach_hi[axis] > g->hhi ? d->reach_hi[axis] : g->hhi;
    g->skew = g->rlo > g->rhi ? g->rlo : g->rhi;
    g->L = g->hlo, g->H = n - g->hhi;
    g->b = b < 1 ? 1 : b;
    g->nblocks = g->H > g->L ? (g->H - g->L + g->b - 1) / g->b : 0;
}

/* The tiles: --time-tiles, else stn_time_window's (a tile's window for bt steps fills the
 * last-level cache); 0 when tiling does not pay (no such tile fits, or fewer than two steps). */
static int pick_tiles(engine *e, tiles *tl, char *source, size_t n) {
    const stn_run *r = e->r;
    const stn_program_desc *d = e->d;
    const int64_t *f = r->o->time_tiles;
    int64_t steps = r->o->steps, by, bz, bt;
    if (f[2] < 0) {
        snprintf(source, n, "off (--time-tiles off)");
        return 0;
    }
    for (int i = 0; i < d->nfields; i++) /* (x, never cut, wraps inside a tile) */
        if (d->fields[i].periodic & ~1) {
            snprintf(source, n,
                     "off: '%s' is periodic along %c (its boundary cells come from across the grid)",
                     d->fields[i].name, d->fields[i].periodic & 2 ? 'y' : 'z');
            if (f[2] > 0)
                stn_warn(r->log,
                         "--time-tiles: '%s' is periodic along %c, and time tiles do not wrap around it yet: "
                         "running the plain loop",
                         d->fields[i].name, d->fields[i].periodic & 2 ? 'y' : 'z');
            return 0;
        }
    if (f[2] > 0) {
        by = f[0], bz = f[1], bt = f[2] < steps ? f[2] : steps;
        snprintf(source, n, "--time-tiles");
    } else {
        uint64_t arrays = 0;
        for (int i = 0; i < d->nfields; i++)
            arrays += (uint64_t)e->f[i].nbuf;
        int64_t s = 0;
        for (int k = 1; k < d->ndim; k++)
            s = d->reach_lo[k] > s ? d->reach_lo[k] : d->reach_hi[k] > s ? d->reach_hi[k] : s;
        stn_time_window_t w;
        stn_time_window(&r->hw, (uint64_t)r->view.nx * (uint64_t)d->elem_size, arrays, s, d->ndim == 3, &w);
        bt = w.bt > steps ? steps : w.bt;
        by = (int64_t)w.side - 2 * w.skew * bt;
        bz = d->ndim == 3 ? by : 1;
        if (steps < 2) {
            snprintf(source, n, "off: fewer than 2 steps");
            return 0;
        }
        if (bt < 2 || by < 2 * w.skew) {
            snprintf(source, n, "off: a tile of %d steps does not fit the cache (%llu bytes)",
                     bt < 2 ? 2 : (int)bt, (unsigned long long)w.cache);
            return 0;
        }
        snprintf(source, n, "auto: one tile's window for bt steps in the last-level cache (%llu bytes)",
                 (unsigned long long)w.cache);
    }
    tile_dim(d, &r->view, 1, by, &tl->y);
    tile_dim(d, &r->view, 2, bz, &tl->z);
    tl->bt = bt;
    if (tl->y.nblocks < 1 || tl->z.nblocks < 1 || bt < 1) {
        snprintf(source, n, "off: the grid has no interior");
        return 0;
    }
    return 1;
}

/* The array of field f that holds level l of the sweep (0: its current level at the start,
 * -1 its previous one): the loop's rotation, cur -> next -> prev. */
static void *level_buf(const field_bufs *fb, int64_t l) {
    if (fb->nbuf == 1)
        return fb->buf[0];
    int seq[3] = {fb->cur, fb->next, fb->prev};
    return fb->buf[seq[((l % fb->nbuf) + fb->nbuf) % fb->nbuf]];
}

/* Clip [a, b) to [0, n). */
static void clip(int64_t *a, int64_t *b, int64_t n) {
    *a = *a < 0 ? 0 : *a;
    *b = *b > n ? n : *b;
}

/* Tile (j, k) for steps 1..T of a sweep starting at step t0.  copy[i * (T + 1) + t]: field i's dirichlet
 * boundary must be copied into level t (the loop's bc_initial bookkeeping, computed ahead). */
static int run_tile(engine *e, const tiles *tl, int64_t j, int64_t k, int64_t t0, int64_t T,
                    const unsigned char *copy) {
    const stn_program_desc *d = e->d;
    const stn_view *v = &e->r->view;
    const int64_t *tile = e->res->ib.tile;
    for (int64_t t = 1; t <= T; t++) {
        stn_box b = e->interior, own = e->whole, rd = e->whole;
        b.lo[1] = stn_ooc_edge(&tl->y, j, t), b.hi[1] = stn_ooc_edge(&tl->y, j + 1, t);
        b.lo[2] = stn_ooc_edge(&tl->z, k, t), b.hi[2] = stn_ooc_edge(&tl->z, k + 1, t);
        if (d->ndim == 2)
            b.lo[2] = 0, b.hi[2] = 1;
        int empty = b.hi[1] <= b.lo[1] || b.hi[2] <= b.lo[2];
        for (int a = 1; a < 3; a++) { /* what the step reads */
            rd.lo[a] = b.lo[a] - d->reach_lo[a], rd.hi[a] = b.hi[a] + d->reach_hi[a];
            clip(&rd.lo[a], &rd.hi[a], a == 1 ? v->ny : v->nz);
        }
        for (int i = 0; !empty && i < d->nfields; i++) { /* neumann, periodic x: mirror, wrap what it reads */
            const field_bufs *fb = &e->f[i];
            if (d->fields[i].kind != STN_FIELD_STATE ||
                (d->fields[i].boundary != STN_BC_NEUMANN && !d->fields[i].periodic))
                continue;
            for (int l = 1; l <= d->fields[i].levels; l++) {
                void *arr = level_buf(fb, t - l);
                stn_run_boundary(e->r, i, v, arr, arr, &rd);
            }
        }
        if (!empty) {
            for (int i = 0; i < d->nfields; i++) {
                const stn_field_desc *fd = &d->fields[i];
                const field_bufs *fb = &e->f[i];
                if (fd->src_slot >= 0)
                    e->src[fd->src_slot] = level_buf(fb, t - 1);
                if (fd->prev_slot >= 0)
                    e->src[fd->prev_slot] = level_buf(fb, t - 2);
                if (fd->dst_slot >= 0)
                    e->dst[fd->dst_slot] = level_buf(fb, t);
            }
            int rc = stn_step(e->r, t0 + t - 1, v, e->src, e->dst, &b, tile);
            if (rc)
                return rc;
        }
        stn_ooc_owned_range(&tl->y, j, t, &own.lo[1], &own.hi[1]);
        stn_ooc_owned_range(&tl->z, k, t, &own.lo[2], &own.hi[2]);
        if (d->ndim == 2)
            own.lo[2] = 0, own.hi[2] = 1;
        if (own.hi[1] <= own.lo[1] || own.hi[2] <= own.lo[2])
            continue;
        for (int i = 0; i < d->nfields; i++) /* dirichlet: where the loop copies */
            if (copy[(size_t)i * (size_t)(T + 1) + (size_t)t])
                stn_run_boundary(e->r, i, v, level_buf(&e->f[i], t - 1), level_buf(&e->f[i], t), &own);
    }
    return 0;
}

/* One sweep of T steps, tile by tile; then the levels rotate as T steps of the loop would.
 * The loop's dirichlet bookkeeping is run ahead on a copy of the fields' buffer state. */
static int tiled_sweep(engine *e, const tiles *tl, int64_t t0, int64_t T) {
    const stn_program_desc *d = e->d;
    unsigned char *copy = calloc((size_t)d->nfields * (size_t)(T + 1), 1);
    if (!copy)
        return stn_error(-ENOMEM, "out of memory");
    for (int i = 0; i < d->nfields; i++) {
        const stn_field_desc *fd = &d->fields[i];
        field_bufs fb = e->f[i]; /* the loop's steps, on a copy */
        for (int64_t t = 1; t <= T && fd->kind == STN_FIELD_STATE; t++) {
            int due = boundary_due(fd, &fb); /* neumann is mirrored lazily instead (run_tile) */
            copy[(size_t)i * (size_t)(T + 1) + (size_t)t] = due && fd->boundary == STN_BC_DIRICHLET;
            rotate_one(&fb);
        }
        memcpy(e->f[i].bc_initial, fb.bc_initial, sizeof fb.bc_initial);
    }
    int rc = 0;
    for (int64_t k = 0; rc == 0 && k < tl->z.nblocks; k++)
        for (int64_t j = 0; rc == 0 && j < tl->y.nblocks; j++)
            rc = run_tile(e, tl, j, k, t0, T, copy);
    for (int64_t t = 0; rc == 0 && t < T; t++)
        rotate(e);
    free(copy);
    return rc;
}

/* The tiles, once per engine (pick_tiles): tiled, and tl. */
static void choose_tiles(engine *e) {
    const stn_run *r = e->r;
    /* Blk-Tune's step 1 in-core too: the same cache tiles as out-of-core */
    stn_iblock_choose(r, stn_tuned_applies(r), &e->res->ib);
    if (r->o->mode == STN_MODE_INCORE)
        e->tiled = pick_tiles(e, &e->tl, e->res->tiles_source, sizeof e->res->tiles_source);
    else /* mmap is the baseline of the kernel's own loop over paged memory */
        snprintf(e->res->tiles_source, sizeof e->res->tiles_source, "off (--mode mmap runs the plain loop)");
    if (e->tiled) {
        e->res->time_tiles[0] = e->tl.y.b, e->res->time_tiles[1] = e->d->ndim == 3 ? e->tl.z.b : -1;
        e->res->time_tiles[2] = e->tl.bt;
    }
}

/* Steps t0 .. t0 + steps - 1 from the current levels, which they leave as the loop would: every
 * boundary cell set (the neumann and periodic ones mirrored and wrapped). */
static int time_loop(engine *e, int64_t t0, int64_t steps) {
    const stn_run *r = e->r;
    stn_progress prog;
    stn_progress_start(&prog, e->d->name, steps, (double)stn_grid_cells(r->o), r->o->quiet);
    const int64_t *tile = e->res->ib.tile;
    int rc = 0;
    double c0 = stn_now();
    for (int64_t t = 0; rc == 0 && t < steps;) {
        if (e->tiled) {
            int64_t T = steps - t < e->tl.bt ? steps - t : e->tl.bt;
            rc = tiled_sweep(e, &e->tl, t0 + t, T);
            t += T;
        } else {
            bind_slots(e);
            rc = stn_step(r, t0 + t, &r->view, e->src, e->dst, &e->interior, tile);
            if (rc)
                break;
            boundaries(e);
            rotate(e);
            t++;
        }
        stn_progress_step(&prog, t);
    }
    for (int i = 0; rc == 0 && e->tiled && i < e->d->nfields; i++) { /* the final levels' mirrors */
        const stn_field_desc *fd = &e->d->fields[i];
        if (fd->kind == STN_FIELD_STATE && (fd->boundary == STN_BC_NEUMANN || fd->periodic))
            for (int l = 0; l < fd->levels; l++)
                stn_run_boundary(r, i, &r->view, level_buf(&e->f[i], -l), level_buf(&e->f[i], -l), &e->whole);
    }
    double dt = stn_now() - c0;
    e->res->loop_seconds += dt;
    e->res->st.seconds[STN_PHASE_COMPUTE] += dt;
    stn_progress_end(&prog);
    return rc;
}

/* Local slices [a0, a1) along the split axis of `data` (the own part of the other axes) into an --out
 * at their whole-grid place moved by fshift slices: whole slices at once, rows' parts of a cross cut
 * (and along a ring across the rows also the parts the boundary layer copies, stn_slab_out). */
static int write_part(engine *e, stn_npy_writer *w, const char *data, int64_t a0, int64_t a1,
                      int64_t fshift) {
    const stn_slab *sl = &e->r->slab;
    const stn_view *v = &e->r->view;
    size_t es = (size_t)e->d->elem_size;
    if (!sl->cut) {
        size_t slice = (size_t)e->r->grid_bytes / (size_t)(sl->axis == 2 ? v->nz : v->ny);
        return stn_npy_writer_pwrite(w, data + (size_t)a0 * slice, (size_t)(a1 - a0) * slice,
                                     (uint64_t)(sl->base + a0 + fshift) * slice, &e->res->st);
    }
    int64_t pc[3][3][3];
    int np[3];
    for (int k = 0; k < 3; k++)
        if (k == sl->axis)
            pc[k][0][0] = a0, pc[k][0][1] = a1, pc[k][0][2] = fshift, np[k] = 1;
        else
            stn_slab_out(sl, k, pc[k], &np[k]);
    int rc = 0;
    for (int iz = 0; iz < np[2]; iz++)
        for (int iy = 0; iy < np[1]; iy++)
            for (int64_t z = pc[2][iz][0]; rc == 0 && z < pc[2][iz][1]; z++)
                for (int64_t y = pc[1][iy][0]; rc == 0 && y < pc[1][iy][1]; y++)
                    for (int ix = 0; rc == 0 && ix < np[0]; ix++) {
                        const int64_t *px = pc[0][ix];
                        int64_t gz = z + sl->xbase[2] + pc[2][iz][2], gy = y + sl->xbase[1] + pc[1][iy][2];
                        uint64_t cell =
                            (uint64_t)((gz * sl->xn[1] + gy) * sl->xn[0] + px[0] + sl->xbase[0] + px[2]);
                        rc = stn_npy_writer_pwrite(w, data + (size_t)(z * v->sz + y * v->sy + px[0]) * es,
                                                   (size_t)(px[1] - px[0]) * es, cell * es, &e->res->st);
                    }
    return rc;
}

static int write_outputs(engine *e) {
    const stn_run *r = e->r;
    for (int s = 0; s < 2 * e->d->nfields; s++) {
        if (!r->writers[s])
            continue;
        field_bufs *fb = &e->f[s / 2];
        char *data = fb->buf[s % 2 ? fb->prev : fb->cur];
        const stn_slab *sl = &r->slab;
        const stn_fold *fo = &r->fold;
        if (fo->W) { /* a folded 1d grid's own rows: their cells */
            int64_t c0 = (sl->base + sl->own_lo) * fo->W - fo->P, lo = c0 > 0 ? c0 : 0;
            int64_t c = stn_fold_cells(fo, sl->base + sl->own_lo, sl->base + sl->own_hi);
            size_t es = (size_t)e->d->elem_size;
            int rc = stn_npy_writer_pwrite(r->writers[s], data + (size_t)(lo - sl->base * fo->W + fo->P) * es,
                                           (size_t)c * es, (uint64_t)lo * es, &e->res->st);
            if (rc)
                return rc;
            continue;
        }
        int64_t pc[3][3]; /* (a rank's own slices, and along a ring those its boundary layer copies) */
        int np = 0,
            rc = sl->axis ? 0 : stn_npy_writer_write(r->writers[s], data, (size_t)r->grid_bytes, &e->res->st);
        if (sl->axis)
            stn_slab_out(sl, sl->axis, pc, &np);
        for (int k = 0; rc == 0 && k < np; k++)
            rc = write_part(e, r->writers[s], data, pc[k][0], pc[k][1], pc[k][2]);
        if (rc)
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------------ entry */

static void set_boxes(engine *e) {
    const stn_view *v = &e->r->view;
    int64_t n[3] = {v->nx, v->ny, v->nz};
    for (int k = 0; k < 3; k++) {
        e->whole.lo[k] = 0;
        e->whole.hi[k] = n[k];
        e->interior.lo[k] = e->d->halo_lo[k];
        e->interior.hi[k] = n[k] - e->d->halo_hi[k];
    }
}

static void engine_free(engine *e) {
    for (int i = 0; e->f && i < e->d->nfields; i++)
        for (int b = 0; b < 3; b++)
            if (e->r->o->mode == STN_MODE_MMAP)
                unmap_buffer(e->f[i].buf[b], (size_t)e->r->grid_bytes);
            else
                stn_free(e->f[i].buf[b]);
    free(e->f);
    free(e->src);
    free(e->dst);
}

/* In-core needs every buffer at once; say so when that is more than the budget (a warning,
 * not a refusal: the budget is a plan for the out-of-core engine, the kernel decides here). */
static void check_budget(const stn_run *r) {
    uint64_t need = 0;
    for (int i = 0; i < r->d->nfields; i++)
        need += r->grid_bytes *
                (uint64_t)(r->d->fields[i].kind == STN_FIELD_STATE ? r->d->fields[i].levels + 1 : 1);
    if (need > r->mem_budget) {
        char a[32], b[32];
        stn_warn(r->log, "the in-core run needs %s for its buffers, more than the DRAM budget of %s (%s)",
                 stn_fmt_bytes(a, sizeof a, need), stn_fmt_bytes(b, sizeof b, r->mem_budget), r->mem_source);
    }
}

/* MPI: the rank's slab, with ghosts of `chunk` steps: about a quarter of the thinnest slab, at most 16
 * (the redundant work of the ghosts against the messages' count; design 018). */
static int part_of(engine *e, const stn_run *r) {
    const stn_program_desc *d = r->d;
    char why[160] = "";
    if (r->o->mode != STN_MODE_INCORE)
        snprintf(why, sizeof why, "--mode mmap");
    if (why[0])
        return stn_error(-ENOTSUP, "%d MPI ranks: this version splits in-core runs only without %s",
                         stn_par_size(), why);
    if (stn_dims(d) == 1) { /* a 1d grid: folded into rows, which the ranks split (design 014) */
        if (!(e->fold = calloc(1, sizeof *e->fold)))
            return stn_error(-ENOMEM, "out of memory");
        int rc = stn_fold_run(r, 8, e->fold);
        if (rc == 0 && !e->fold->run.fold.W)
            rc = stn_error(-ENOTSUP,
                           "%d MPI ranks: this 1d grid is periodic, so it runs as one row, which the "
                           "ranks cannot split",
                           stn_par_size());
        if (rc)
            return rc;
        r = &e->fold->run;
    }
    int64_t most = stn_slab_most_bt(r), chunk = most / 4;
    e->chunk = chunk < 1 ? 1 : chunk > 16 ? 16 : chunk;
    if (!(e->part = calloc(1, sizeof *e->part)))
        return stn_error(-ENOMEM, "out of memory");
    int rc = stn_slab_run(r, e->chunk, e->part);
    for (int k = 0; k < 3; k++)
        e->res->dims[k] = e->part->run.slab.dims[k];
    e->r = &e->part->run;
    e->d = e->part->run.d;
    return rc;
}

/* Copy indices [k0, k1) along axis k (0: x, 1: y) of the dense box v between a and buf (x fastest,
 * the other axes whole): into buf (out != 0) or from it. */
static void pack_cross(char *buf, char *a, const stn_view *v, int k, int64_t k0, int64_t k1, size_t es,
                       int out) {
    int64_t nx = k == 0 ? k1 - k0 : v->nx, ny = k == 1 ? k1 - k0 : v->ny;
    size_t run = (size_t)nx * es;
    for (int64_t z = 0; z < v->nz; z++)
        for (int64_t y = 0; y < ny; y++) {
            char *p = a + (size_t)((z * v->ny + y + (k == 1 ? k0 : 0)) * v->nx + (k == 0 ? k0 : 0)) * es;
            char *b = buf + (size_t)(z * ny + y) * run;
            memcpy(out ? b : p, out ? p : b, run);
        }
}

/* A cross cut's ghosts (--ranks, axis k): the last g own indices along k to the rank above, the first
 * g to the rank below, of every slice the rank holds (its ghosts along the other axes included, so the
 * corners come from the diagonal neighbours). */
static int exchange_cross(engine *e, char *a, int k) {
    const stn_slab *sl = &e->r->slab;
    const stn_view *v = &e->r->view;
    int below = sl->xnb[k][0], above = sl->xnb[k][1];
    int64_t g = sl->xg[k];
    size_t es = (size_t)e->d->elem_size,
           bytes = (size_t)g * es * (size_t)(k == 0 ? v->ny * v->nz : v->nx * v->nz);
    char *out = malloc(bytes ? bytes : 1), *in = malloc(bytes ? bytes : 1);
    if (!out || !in) {
        free(out);
        free(in);
        return stn_error(-ENOMEM, "out of memory for the ghosts along %c (2 buffers of %zu bytes)", "xyz"[k],
                         bytes);
    }
    int rc = 0;
    for (int up = 1; rc == 0 && up >= 0; up--) {
        int dest = up ? above : below, src = up ? below : above;
        if (dest >= 0)
            pack_cross(out, a, v, k, up ? sl->xhi[k] - g : sl->xlo[k], up ? sl->xhi[k] : sl->xlo[k] + g, es,
                       1);
        rc = stn_par_sendrecv(out, dest >= 0 ? bytes : 0, dest, in, src >= 0 ? bytes : 0, src);
        if (rc == 0 && src >= 0)
            pack_cross(in, a, v, k, up ? sl->xlo[k] - g : sl->xhi[k], up ? sl->xlo[k] : sl->xhi[k] + g, es,
                       0);
        uint64_t sent = dest >= 0 ? (uint64_t)bytes : 0;
        e->res->msg_sent += sent;
    }
    free(out);
    free(in);
    return rc;
}

/* MPI, after each chunk of steps: every level the next step reads of every state field, the rank's
 * last g own slices to the rank above (its ghosts below) and its first g to the rank below. */
static int exchange(engine *e) {
    const stn_slab *sl = &e->r->slab;
    int below = sl->below, above = sl->above; /* (a ring: cyclic) */
    size_t slice = (size_t)e->r->grid_bytes / (size_t)(sl->axis == 2 ? e->r->view.nz : e->r->view.ny);
    size_t bytes = (size_t)sl->g * slice;
    int rc = 0;
    double t0 = stn_now();
    for (int i = 0; rc == 0 && i < e->d->nfields; i++) {
        const stn_field_desc *fd = &e->d->fields[i];
        for (int l = 0; rc == 0 && fd->kind == STN_FIELD_STATE && l < fd->levels; l++) {
            char *a = level_buf(&e->f[i], -l);
            rc = stn_par_sendrecv(a + (size_t)(sl->own_hi - sl->g) * slice, above >= 0 ? bytes : 0, above,
                                  a + (size_t)(sl->own_lo - sl->g) * slice, below >= 0 ? bytes : 0, below);
            if (rc == 0)
                rc = stn_par_sendrecv(a + (size_t)sl->own_lo * slice, below >= 0 ? bytes : 0, below,
                                      a + (size_t)sl->own_hi * slice, above >= 0 ? bytes : 0, above);
            uint64_t sent = (uint64_t)bytes * (uint64_t)((above >= 0) + (below >= 0));
            e->res->msg_sent += sent;
            for (int k = 0; rc == 0 && k < 2; k++) /* then x and y, over the other axes' ghosts too */
                if (sl->cut >> k & 1)
                    rc = exchange_cross(e, a, k);
        }
    }
    stn_stats_add_time(&e->res->st, STN_PHASE_WAIT, t0);
    return rc;
}

int stn_incore_open(const stn_run *r, stn_result *res, stn_incore **out) {
    engine *e = calloc(1, sizeof *e);
    *out = NULL;
    if (!e)
        return stn_error(-ENOMEM, "out of memory");
    e->r = r;
    e->res = res;
    e->d = r->d;
    int rc = stn_par_size() > 1 ? part_of(e, r) : 0;
    r = e->r;
    /* The in-core IO model: each --init file is read once (a rank's slab of it), each --out written once
     * (a rank's own slices). */
    uint64_t own = r->slab.axis ? stn_slab_out_cells(&r->slab) * (uint64_t)r->d->elem_size : r->grid_bytes;
    uint64_t in = r->grid_bytes;
    if (r->fold.W) /* (a folded 1d grid: the cells of its rows) */
        in = (uint64_t)stn_fold_cells(&r->fold, r->slab.base, r->slab.base + r->view.ny) * r->d->elem_size,
        own =
            (uint64_t)stn_fold_cells(&r->fold, r->slab.base + r->slab.own_lo, r->slab.base + r->slab.own_hi) *
            r->d->elem_size;
    for (int s = 0; rc == 0 && s < 2 * r->d->nfields; s++) {
        res->predicted_read += r->o->init_path[s] ? in : 0;
        res->predicted_written += r->o->out_path[s] ? own : 0;
    }
    if (rc == 0)
        rc = stn_engine_arrays(r->d, sizeof *e->f, (void **)&e->f, &e->src, &e->dst, "in-core");
    if (rc == 0) {
        set_boxes(e);
        if (r->o->mode == STN_MODE_INCORE)
            check_budget(r);
        rc = alloc_buffers(e);
    }
    if (rc == 0)
        rc = initial_values(e);
    if (rc == 0)
        choose_tiles(e);
    if (rc) {
        stn_incore_close(e);
        return rc;
    }
    *out = e;
    return 0;
}

/* The model of one exchange's message bytes, from the part's geometry: every state level, g slices of
 * the split axis to each neighbour along it, then g_k indices of every row (x) or plane row (y) of
 * the part, ghosts included, to each neighbour along a cross cut. */
static uint64_t exchange_model(const engine *e) {
    const stn_slab *sl = &e->r->slab;
    const stn_view *v = &e->r->view;
    uint64_t es = (uint64_t)e->d->elem_size, n[3] = {(uint64_t)v->nx, (uint64_t)v->ny, (uint64_t)v->nz};
    uint64_t each = 0;
    for (int k = 0; k < 3; k++) {
        int split = k == sl->axis,
            sides = split ? (sl->below >= 0) + (sl->above >= 0)
                          : (sl->cut >> k & 1) * ((sl->xnb[k][0] >= 0) + (sl->xnb[k][1] >= 0));
        uint64_t g = (uint64_t)(split ? sl->g : sl->xg[k]);
        each += (uint64_t)sides * g * (n[0] * n[1] * n[2] / n[k]) * es;
    }
    return stn_state_levels(e->d) * each;
}

int stn_incore_advance(stn_incore *e, int64_t t0, int64_t steps) {
    uint64_t r0 = 0, w0 = 0, r1 = 0, w1 = 0;
    proc_io(&r0, &w0);
    int rc = 0;
    if (e->part) /* (an exchange after every chunk) */
        e->res->msg_predicted += (uint64_t)((steps + e->chunk - 1) / e->chunk) * exchange_model(e);
    for (int64_t done = 0; e->part && rc == 0 && done < steps;) { /* MPI: chunks, then the ghosts */
        int64_t T = steps - done < e->chunk ? steps - done : e->chunk;
        rc = time_loop(e, t0 + done, T);
        if (stn_par_any(rc) && rc == 0)
            rc = stn_error(-EIO, "another rank failed in its steps (its error is above)");
        if (rc == 0)
            rc = exchange(e);
        done += T;
    }
    if (!e->part)
        rc = time_loop(e, t0, steps);
    proc_io(&r1, &w1);
    if (e->r->o->mode == STN_MODE_MMAP) { /* the kernel's paging during the time loop */
        e->res->have_paging = 1;
        e->res->paging_read += r1 - r0;
        e->res->paging_written += w1 - w0;
    }
    return rc;
}

void *stn_incore_level(stn_incore *e, int f, int level) {
    field_bufs *fb = &e->f[f];
    return fb->buf[level == 1 && fb->prev >= 0 ? fb->prev : fb->cur];
}

void stn_incore_written(stn_incore *e, int f, int level) {
    const stn_field_desc *fd = &e->d->fields[f];
    field_bufs *fb = &e->f[f];
    if (fd->kind != STN_FIELD_STATE)
        return;
    if (fd->boundary == STN_BC_NEUMANN || fd->periodic) /* as after an --init file */
        mirror(e, f, stn_incore_level(e, f, level));
    if (level == 1 && fb->prev >= 0) {
        fb->bc_initial[fb->prev] = 0;
        return;
    }
    for (int b = 0; b < fb->nbuf; b++) /* dirichlet: the written level's boundary is the one kept */
        fb->bc_initial[b] = b == fb->cur;
}

int stn_incore_export(stn_incore *e) { return write_outputs(e); }

void stn_incore_close(stn_incore *e) {
    if (!e)
        return;
    e->res->engine_bytes = stn_peak_allocated_bytes();
    engine_free(e);
    if (e->part)
        free(e->part->fields);
    free(e->part);
    if (e->fold)
        free(e->fold->fields);
    free(e->fold);
    free(e);
}
