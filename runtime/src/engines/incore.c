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
#include "engines/stn_incore.h"
#include "io/stn_hdf5.h"
#include "plan/stn_ooc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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
    const stn_incore_kind *kind; /* its memory: DRAM (stn_incore_engine) or mapped files (mmap.c) */
    const stn_run *given;        /* the run it was opened on (e->r: a rank's part of it under MPI) */
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
    int64_t since;      /* the steps since the last exchange (a chunk an advance left open at a saved step) */
    stn_incore_loop loop; /* the steps run elsewhere (stn_incore_set_loop), else NULL: time_loop */
    void *loop_ctx;
};
typedef struct stn_incore engine;

/* ------------------------------------------------------------------ DRAM */

/* Large enough for transparent huge pages and O_DIRECT alike. */
#define BUF_ALIGN 4096
/* Buffers of 2 MiB or more are 2 MiB aligned and asked for transparent huge pages (THP is
 * often "madvise" only).  A 7-point update touches three planes MiBs apart; on 4 KiB pages
 * that is a TLB miss per row.  On the 2-core VM this took heat3d 256^3 in-core from
 * 1.0-1.47e9 cells/s (run to run) to 1.37-1.54e9, and 512^3 from 0.87-1.3e9 to 1.23-1.31e9
 * (docs/benchmarks.md).  Without THP the advice is ignored. */
#define HUGE_ALIGN ((size_t)2 << 20)

static int dram_alloc(const stn_run *r, int f, int b, size_t bytes, void **out) {
    (void)r, (void)f, (void)b;
    void *p = stn_alloc(bytes, bytes >= HUGE_ALIGN ? HUGE_ALIGN : BUF_ALIGN);
    if (p && bytes >= HUGE_ALIGN)
        (void)madvise(p, bytes / HUGE_ALIGN * HUGE_ALIGN, MADV_HUGEPAGE);
    *out = p;
    return 0;
}

static void dram_release(void *p, size_t bytes) {
    (void)bytes;
    stn_free(p);
}

static const stn_incore_kind dram = {"incore", NULL, dram_alloc, dram_release, NULL};

/* ------------------------------------------------------------------ setup */

static int alloc_buffers(engine *e) {
    const stn_program_desc *d = e->d;
    size_t bytes = (size_t)e->r->grid_bytes;
    double t0 = stn_now();
    char **bufs = calloc((size_t)stn_total_arrays(d) + 1, sizeof *bufs);
    int n = 0, rc = bufs ? 0 : stn_error(-ENOMEM, "out of memory");
    if (rc == 0 && e->kind->reserve)
        rc = e->kind->reserve(e->r, bytes, stn_total_arrays(d));
    for (int i = 0; rc == 0 && i < d->nfields; i++) {
        const stn_field_desc *fd = &d->fields[i];
        field_bufs *fb = &e->f[i];
        fb->nbuf = fd->kind == STN_FIELD_STATE ? fd->levels + 1 : 1;
        fb->cur = 0;
        fb->next = fb->nbuf > 1 ? 1 : -1;
        fb->prev = fb->nbuf > 2 ? 2 : -1;
        for (int b = 0; b < fb->nbuf; b++) {
            if ((rc = e->kind->alloc(e->r, i, b, bytes, &fb->buf[b])) != 0)
                break;
            if (!fb->buf[b]) {
                rc = stn_error(-ENOMEM,
                               "in-core run: cannot allocate level %d of field '%s' (%d of %d buffers of "
                               "%zu bytes): %s",
                               b, fd->name, b + 1, fb->nbuf, bytes, stn_errmsg());
                break;
            }
            bufs[n++] = fb->buf[b];
        }
    }
    if (rc == 0 &&
        e->kind == &dram) /* several NUMA nodes: each node's slab of every array bound to it, untouched */
        stn_numa_bind_slabs(&e->res->numa, bufs, n, e->r->view.nx, e->r->view.ny, e->r->view.nz,
                            d->elem_size);
    for (int k = 0; rc == 0 && k < n; k++)
        stn_engine_par_zero(bufs[k], bytes); /* first touch, and the zero of fields without init */
    free(bufs);
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
        double t0 = stn_now();
        int64_t shape[3] = {r->o->size[2], r->o->size[1], r->o->size[0]};
        int64_t *sh = shape + 3 - stn_dims(e->d);                    /* a 1d grid is one row */
        int rc = r->part ? stn_part_load(r, path, data, &e->res->st) /* (a rank's part of the file) */
                         : stn_npy_load(path, e->d->npy_descr, stn_dims(e->d), sh, data, &e->res->st);
        e->res->import_seconds += stn_now() - t0;
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
        int neumann = stn_bc_mirrors(&d->fields[i]); /* set before step 1 */
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
            stn_engine_par_copy(fb->buf[fb->prev], fb->buf[fb->cur], bytes, &e->res->st);
        if (fb->next >= 0)
            stn_engine_par_copy(fb->buf[fb->next], fb->buf[fb->cur], bytes, &e->res->st);
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
 * dirichlet copy of cur's boundary, which is the initial one when cur's is.  A mixed field: whether
 * its dirichlet cells must be copied (its copy touches no wrapped cell). */
static int boundary_due(const stn_field_desc *fd, field_bufs *fb) {
    int dirichlet = (fd->boundary == STN_BC_DIRICHLET && !fd->periodic) || /* a wrap changes every step */
                    fd->boundary == STN_BC_MIXED;
    if (dirichlet && fb->bc_initial[fb->next])
        return 0;
    fb->bc_initial[fb->next] = dirichlet && fb->bc_initial[fb->cur];
    return 1;
}

static void boundaries(engine *e) {
    for (int i = 0; i < e->d->nfields; i++) {
        field_bufs *fb = &e->f[i];
        if (e->d->fields[i].kind != STN_FIELD_STATE)
            continue;
        int due = boundary_due(&e->d->fields[i], fb);
        if (due ||
            stn_bc_mirrors(&e->d->fields[i])) /* (a mixed field's kept cells: mirrored in place only) */
            stn_run_boundary(e->r, i, &e->r->view, fb->buf[due ? fb->cur : fb->next], fb->buf[fb->next],
                             &e->whole);
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
        int k = snprintf(source, n, "auto: one tile's window for bt steps in ");
        stn_time_window_cache(&w, r->hw.cores.value, source + k, n - (size_t)k);
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
            if (!stn_bc_mirrors(&d->fields[i]))
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
                stn_run_boundary_op(e->r, i, stn_bc_copy_op(&d->fields[i]), v, level_buf(&e->f[i], t - 1),
                                    level_buf(&e->f[i], t), &own);
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
            copy[(size_t)i * (size_t)(T + 1) + (size_t)t] = due && stn_bc_copies(fd);
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
    if (!e->kind->paging)
        e->tiled = pick_tiles(e, &e->tl, e->res->tiles_source, sizeof e->res->tiles_source);
    else /* mmap is the baseline of the kernel's own loop over paged memory */
        snprintf(e->res->tiles_source, sizeof e->res->tiles_source, "off (--mode %s runs the plain loop)",
                 e->kind->mode);
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
        if (stn_bc_mirrors(fd))
            for (int l = 0; l < fd->levels; l++)
                stn_run_boundary(r, i, &r->view, level_buf(&e->f[i], -l), level_buf(&e->f[i], -l), &e->whole);
    }
    double dt = stn_now() - c0;
    e->res->loop_seconds += dt;
    e->res->st.seconds[STN_PHASE_COMPUTE] += dt;
    stn_progress_end(&prog);
    return rc;
}

static int write_outputs(engine *e) {
    const stn_run *r = e->r;
    for (int s = 0; s < 2 * e->d->nfields; s++) {
        if (!r->writers[s])
            continue;
        field_bufs *fb = &e->f[s / 2];
        char *data = fb->buf[s % 2 ? fb->prev : fb->cur];
        int rc = r->part ? stn_part_save(r, r->writers[s], data, &e->res->st) /* (a rank's own cells) */
                         : stn_npy_writer_write(r->writers[s], data, (size_t)r->grid_bytes, &e->res->st);
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
            if (e->f[i].buf[b])
                e->kind->release(e->f[i].buf[b], (size_t)e->r->grid_bytes);
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
    if (e->kind->paging)
        snprintf(why, sizeof why, "--mode %s", e->kind->mode);
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
    int64_t most = stn_part_most_bt(r, STN_SPLIT_DRAM), chunk = most / 4;
    e->chunk = chunk < 1 ? 1 : chunk > 16 ? 16 : chunk;
    if (!(e->part = calloc(1, sizeof *e->part)))
        return stn_error(-ENOMEM, "out of memory");
    int rc = stn_part_run(r, STN_SPLIT_DRAM, e->chunk, e->part);
    for (int k = 0; rc == 0 && k < 3; k++)
        e->res->dims[k] = e->part->part->ax[k].ranks;
    e->r = &e->part->run;
    e->d = e->part->run.d;
    return rc;
}

/* MPI, after each chunk of steps: every level the next step reads of every state field, its ghosts
 * swapped with the neighbours (stn_part_swap_dense). */
static int exchange(engine *e) {
    char *levels[2048];
    int n = 0;
    for (int i = 0; i < e->d->nfields; i++) {
        const stn_field_desc *fd = &e->d->fields[i];
        for (int l = 0; fd->kind == STN_FIELD_STATE && l < fd->levels && n < 2048; l++)
            levels[n++] = level_buf(&e->f[i], -l);
    }
    double t0 = stn_now();
    e->res->msg_predicted +=
        stn_ghosts_dense_bytes(e->r->part, &e->r->view, (size_t)e->d->elem_size, stn_state_levels(e->d));
    e->since = 0;
    int rc = stn_part_swap_dense(e->r, levels, n, &e->res->msg_sent);
    stn_stats_add_time(&e->res->st, STN_PHASE_WAIT, t0);
    return rc;
}

int stn_incore_open(const stn_run *r, stn_result *res, const stn_incore_kind *kind, void **out) {
    engine *e = calloc(1, sizeof *e);
    *out = NULL;
    if (!e)
        return stn_error(-ENOMEM, "out of memory");
    e->kind = kind;
    e->given = r;
    e->r = r;
    e->res = res;
    e->d = r->d;
    int rc = stn_par_size() > 1 ? part_of(e, r) : 0;
    r = e->r;
    /* The in-core IO model: each --init file is read once (a rank's slab of it), each --out written once
     * (a rank's own slices). */
    uint64_t own = r->grid_bytes, in = r->grid_bytes;
    if (r->part)
        stn_part_file_bytes(r, &in, &own);
    for (int s = 0; rc == 0 && s < 2 * r->d->nfields; s++) {
        res->predicted_read += r->o->init_path[s] ? in : 0;
        res->predicted_written += r->o->out_path[s] ? own : 0;
    }
    if (rc == 0)
        rc = stn_engine_arrays(r->d, sizeof *e->f, (void **)&e->f, &e->src, &e->dst, "in-core");
    if (rc == 0) {
        set_boxes(e);
        if (!kind->paging)
            check_budget(r);
        rc = alloc_buffers(e);
    }
    if (rc == 0)
        rc = initial_values(e);
    if (rc == 0)
        choose_tiles(e);
    if (rc) {
        stn_incore_close(e, 0);
        return rc;
    }
    *out = e;
    return 0;
}

int stn_incore_advance(void *state, int64_t t0, int64_t steps) {
    engine *e = state;
    uint64_t r0 = 0, w0 = 0, r1 = 0, w1 = 0;
    if (e->kind->paging)
        e->kind->paging(&r0, &w0);
    int rc = 0;
    /* MPI: chunks of steps, each followed by the ghosts' exchange.  An advance that ends at a saved step
     * before the last (engine.c's stops) leaves its chunk open: the next one goes on with the ghosts' depth
     * left, so the saved steps add no exchange (the part's own cells, which the snapshot reads, are right
     * after any step of a chunk).  A write into an open chunk swaps the ghosts before the next step. */
    int64_t end = t0 + steps;
    int open = e->r->snap && stn_h5_wants_any(e->r->snap, end) && end < e->r->o->steps;
    for (int64_t done = 0; e->part && rc == 0 && done < steps;) {
        if (e->since == e->chunk)
            rc = exchange(e);
        int64_t T = steps - done < e->chunk - e->since ? steps - done : e->chunk - e->since;
        if (rc == 0)
            rc = e->loop ? e->loop(e->loop_ctx, t0 + done, T) : time_loop(e, t0 + done, T);
        if (stn_par_any(rc) && rc == 0)
            rc = stn_error(-EIO, "another rank failed in its steps (its error is above)");
        done += T, e->since += T;
        if (rc == 0 && (e->since == e->chunk || (done == steps && !open)))
            rc = exchange(e);
    }
    if (!e->part)
        rc = e->loop ? e->loop(e->loop_ctx, t0, steps) : time_loop(e, t0, steps);
    if (e->kind->paging) { /* the kernel's paging during the time loop */
        e->kind->paging(&r1, &w1);
        e->res->have_paging = 1;
        e->res->paging_read += r1 - r0;
        e->res->paging_written += w1 - w0;
    }
    return rc;
}

/* The array of field f's current level (level 0) or previous one (1; the current one for a field of one
 * level): the whole grid, laid out as the run's view. */
static void *level_of(engine *e, int f, int level) {
    field_bufs *fb = &e->f[f];
    return fb->buf[level == 1 && fb->prev >= 0 ? fb->prev : fb->cur];
}

/* The caller changed cells of that level: its mirrors and wraps again (as after an --init file), and a
 * dirichlet field's boundary cells as written are those its steps keep. */
static void written(engine *e, int f, int level) {
    const stn_field_desc *fd = &e->d->fields[f];
    field_bufs *fb = &e->f[f];
    if (fd->kind != STN_FIELD_STATE)
        return;
    if (stn_bc_mirrors(fd)) /* as after an --init file */
        mirror(e, f, level_of(e, f, level));
    if (level == 1 && fb->prev >= 0) {
        fb->bc_initial[fb->prev] = 0;
        return;
    }
    for (int b = 0; b < fb->nbuf; b++) /* dirichlet: the written level's boundary is the one kept */
        fb->bc_initial[b] = b == fb->cur;
}

void stn_incore_set_loop(void *state, stn_incore_loop loop, void *ctx) {
    engine *e = state;
    e->loop = loop, e->loop_ctx = ctx;
}

const stn_run *stn_incore_run(const void *state) { return ((const engine *)state)->r; }

void stn_incore_slots(void *state, void **slot, void **spare) {
    engine *e = state;
    for (int i = 0; i < e->d->nfields; i++) {
        const stn_field_desc *fd = &e->d->fields[i];
        const field_bufs *fb = &e->f[i];
        if (fd->src_slot < 0)
            continue;
        slot[fd->src_slot] = fb->buf[fb->cur];
        spare[fd->src_slot] = fb->next >= 0 ? fb->buf[fb->next] : NULL;
        if (fb->prev >= 0 && fd->prev_slot >= 0)
            slot[fd->prev_slot] = fb->buf[fb->prev], spare[fd->prev_slot] = NULL;
    }
}

void stn_incore_rebind(void *state, void *const *slot, void *const *spare) {
    engine *e = state;
    for (int i = 0; i < e->d->nfields; i++) {
        const stn_field_desc *fd = &e->d->fields[i];
        field_bufs *fb = &e->f[i];
        if (fd->src_slot < 0)
            continue;
        fb->buf[fb->cur] = slot[fd->src_slot];
        if (fb->next >= 0)
            fb->buf[fb->next] = spare[fd->src_slot];
        if (fb->prev >= 0 && fd->prev_slot >= 0)
            fb->buf[fb->prev] = slot[fd->prev_slot];
        memset(fb->bc_initial, 0, sizeof fb->bc_initial);
    }
}

int64_t stn_incore_steps_done(const void *state) {
    (void)state;
    return 0;
}

int stn_incore_box(void *state, const stn_box_io *b) {
    engine *e = state;
    double t0 = stn_now();
    /* (MPI: the part's local indices, as its arrays; a slab of a folded 1d grid's rows: local cell i is
     * its arrays' cell i + P, stn_engine_ops.part) */
    const stn_view *v = e->part && !e->fold ? &e->r->view : &e->given->view;
    stn_box_io c = *b;
    if (e->fold)
        c.lo[0] += e->r->fold.P, c.hi[0] += e->r->fold.P;
    stn_engine_copy_box(v, (size_t)e->d->elem_size, level_of(e, b->f, b->level), &c);
    if (b->write)
        written(e, b->f, b->level);
    if (b->write && e->part && e->since > 0) /* (its ghosts swapped before the next step) */
        e->since = e->chunk;
    stn_stats_add_time(&e->res->st, STN_PHASE_COPY, t0);
    return 0;
}

const struct stn_part *stn_incore_part(const void *state, const stn_fold **fold) {
    const engine *e = state;
    *fold = e->part && e->fold ? &e->r->fold : NULL;
    return e->part ? e->part->part : NULL;
}

int stn_incore_account(void *state, stn_result *out) {
    const engine *e = state;
    *out = *e->res;
    return 0;
}

int stn_incore_finish(void *state) { return write_outputs(state); }

void stn_incore_close(void *state, int keep) {
    engine *e = state;
    (void)keep;
    if (!e)
        return;
    e->res->engine_bytes = stn_peak_allocated_bytes();
    engine_free(e);
    stn_run_copy_free(e->part);
    free(e->part);
    stn_run_copy_free(e->fold);
    free(e->fold);
    free(e);
}

static int incore_open(const stn_run *r, stn_result *res, stn_ooc_result *plan, int program, void **state) {
    (void)plan, (void)program;
    return stn_incore_open(r, res, &dram, state);
}

const stn_engine_ops stn_incore_engine = STN_INCORE_OPS("incore", 1, incore_open);
