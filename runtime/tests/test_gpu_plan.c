/* test_gpu_plan.c -- the GPU tier's plan and byte model (plan/gpu_plan.c) on their own: no device.
 *
 * Over many random small problems (1d, 2d and 3d, one- and two-level state fields, inputs, inputs along
 * an axis, asymmetric halos and reaches, f32 and f64, a third with the points and samples of injects and
 * records: points up once a run, each step's samples down, both held on the device) and random --gpu-mem
 * budgets:
 *   - a plan that is found fits the budget (device memory), its blocks cover the grid, and past one
 *     block each, the last one included, is at least twice the boundary layer thick (a thinner
 *     remainder joins the last block);
 *   - its host-to-device and device-to-host bytes are exactly those a brute-force walk of the
 *     schedule counts: for every sweep, block, array and plane, a plane is uploaded when some
 *     plane of the block depends on it within the sweep's steps (the cone, plane by plane) and
 *     downloaded when it is the block's own;
 *   - the schedule is exact (and computes as many planes as the plan predicts): a 1d model of the stencil
 * along the streamed axis (each interior plane a hash of the planes it reads, boundary planes kept), run
 * block by block in the plan's windows with the region still exact shrinking each step, gives the whole-grid
 * run's values after every sweep;
 *   - no (bz, bt) of a brute-force search over every block size and bt <= 64 that fits the
 *     budget is predicted faster than the plan chosen (with samples, the in-core plan may not fit where
 *     a window clipped at the grid's faces does: the chooser then tries every block size);
 *   - one block is the in-core plan (--mode gpu): every array up once, every level down once;
 *   - a quarter of the problems are periodic along the streamed axis (every state field; the inputs read at
 *     their own cell): past one block the windows wrap, unrolled past the grid's faces, the brute force
 *     counts the cone's planes of the unrolled grid, and the model runs on a torus along it (the whole
 *     grid's boundary planes the wrap of its interior; a window's planes the grid's planes they wrap to);
 *     such a plan is never cut along y (tiles and wrapped windows do not combine);
 *   - no plan below the smallest is -ENOMEM, and a field periodic along the streamed axis beside one that
 *     is not, or with an input read across it, is -ENOTSUP, and so are tiles asked of a grid periodic along
 *     y or along the streamed axis (whose chooser then gives whole planes), each with a message naming the
 *     cause.
 * The seed is fixed (STN_TEST_SEED overrides it) so that a failure can be replayed. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "plan/stn_gpu.h"
#include "test_util.h"

#include <inttypes.h>

typedef struct problem {
    stn_program_desc d;
    stn_field_desc fields[3];
    stn_along_desc alongs[1];
    stn_gpu_request q;
} problem;

static void make_problem(problem *P) {
    memset(P, 0, sizeof *P);
    stn_program_desc *d = &P->d;
    d->name = "random";
    d->ndim = between(0, 2) == 0 ? 2 : 3;
    d->dims = d->ndim == 2 && between(0, 2) == 0; /* a 1d grid: one row of a 2d grid, streamed along x */
    d->elem_size = between(0, 1) ? 8 : 4;
    const int a = stn_gpu_axis(d);
    for (int k = 0; k < (d->dims ? 1 : d->ndim); k++) {
        d->halo_lo[k] = (int)between(k == a ? 1 : 0, 2);
        d->halo_hi[k] = (int)between(k == a ? 1 : 0, 2);
        d->reach_lo[k] = d->halo_lo[k] + (int)between(0, 1);
        d->reach_hi[k] = d->halo_hi[k] + (int)between(0, 1);
    }
    int nsrc = 0, ndst = 0;
    d->nfields = (int)between(1, 3);
    for (int f = 0; f < d->nfields; f++) {
        stn_field_desc *fd = &P->fields[f];
        fd->name = f == 0 ? "u" : f == 1 ? "v" : "c";
        fd->kind = f == 0 || between(0, 1) ? STN_FIELD_STATE : STN_FIELD_INPUT;
        fd->levels = fd->kind == STN_FIELD_STATE ? (int)between(1, 2) : 1;
        fd->src_slot = nsrc++;
        fd->prev_slot = fd->levels == 2 ? nsrc++ : -1;
        fd->dst_slot = fd->kind == STN_FIELD_STATE ? ndst++ : -1;
    }
    d->fields = P->fields;
    d->nsrc = nsrc, d->ndst = ndst;
    if (between(0, 3) == 0) {
        P->alongs[0] = (stn_along_desc){"k", (int)between(0, d->dims ? 0 : d->ndim - 1), 1};
        d->nalong = 1, d->alongs = P->alongs;
    }
    stn_gpu_request *q = &P->q;
    q->d = d;
    q->size[0] = d->dims ? between(8, 120) : between(3, 9);
    q->size[1] = d->dims ? 1 : d->ndim == 3 ? between(3, 7) : between(8, 60);
    q->size[2] = d->ndim == 3 ? between(8, 60) : 1;
    if (d->ndim == 3 && between(0, 1)) { /* blocks may be cut along y as well: more rows to cut */
        q->tiles = 1;
        q->size[1] = between(3, 24);
    }
    q->steps = between(0, 40);
    q->streams = (int)between(1, 3);
    const uint64_t grid = (uint64_t)(nsrc + ndst) * (uint64_t)q->size[0] * (uint64_t)q->size[1] *
                          (uint64_t)q->size[2] * (uint64_t)d->elem_size;
    q->gpu_mem = (uint64_t)between(1, (int64_t)grid * 5 / 4);
    q->h2d_bps = (double)between(5, 50) * 1e9;
    q->d2h_bps = q->h2d_bps;
    q->dev_bps = (double)between(500, 3000) * 1e9;
    if (between(0, 2) ==
        0) { /* sources and receivers: points up once, samples down each sweep (or in core) */
        q->points_bytes = (uint64_t)between(0, 200) * 24;
        q->sample_step_bytes = (uint64_t)between(1, 40) * (uint64_t)d->elem_size;
        q->gpu_mem += (uint64_t)between(0, 2) * q->sample_step_bytes * (uint64_t)q->steps;
    }
    if (between(0, 3) ==
        0) /* periodic along the streamed axis: every state field; inputs read at their cell */
        for (int f = 0; f < d->nfields; f++) {
            P->fields[f].periodic = P->fields[f].kind == STN_FIELD_STATE ? 1 << a : 0;
            P->fields[f].read_across = 8;
        }
}

/* The grid's plane that plane u of the unrolled torus is (the test's own). */
static int64_t torus(const stn_gpu_plan *p, int64_t u) {
    int64_t m = u;
    while (m < p->L)
        m += p->H - p->L;
    while (m >= p->H)
        m -= p->H - p->L;
    return m;
}

/* Whether a plane (or row) `at` is read by some of [z0, z1) within T steps reaching lo below and hi above. */
static int in_cone(int64_t at, int64_t z0, int64_t z1, int64_t T, int64_t lo, int64_t hi) {
    for (int64_t z = z0; z < z1; z++)
        if (at >= z - T * lo && at <= z + T * hi)
            return 1;
    return 0;
}

/* Brute force: the bytes the schedule moves, row by row of every plane (a tile's rows; whole planes: every
 * row), from the dependency cone. */
static void count_bytes(const stn_gpu_plan *p, const stn_gpu_request *q, uint64_t *h2d, uint64_t *d2h) {
    *h2d = p->along_bytes + q->points_bytes, *d2h = 0; /* (the points: once a run) */
    for (int64_t s = 0; s < p->nsweeps; s++) {
        const int64_t T = s * p->bt + p->bt <= p->steps ? p->bt : p->steps - s * p->bt;
        *d2h += (uint64_t)T * q->sample_step_bytes; /* the sweep's samples */
        for (int64_t k = 0; k < p->nblocks * p->nyb; k++) {
            const int64_t kz = k / p->nyb, ky = k % p->nyb;
            const int64_t z0 = p->nblocks == 1 ? 0 : kz * p->bz; /* bz each, the last block the rest */
            const int64_t z1 = p->nblocks == 1 || kz == p->nblocks - 1 ? p->n : z0 + p->bz;
            const int64_t y0 = p->nyb == 1 ? 0 : ky * p->by; /* by each, the last tile the rest */
            const int64_t y1 = p->nyb == 1 || ky == p->nyb - 1 ? p->ny : y0 + p->by;
            const int64_t far = p->wrap ? p->n + (T + 1) * (p->rlo + p->rhi) : 0; /* (unrolled planes) */
            for (int64_t pl = -far; pl < p->n + far; pl++)
                for (int64_t row = 0; row < p->ny; row++) {
                    if ((p->nblocks == 1 || in_cone(pl, z0, z1, T, p->rlo, p->rhi)) &&
                        (p->nyb == 1 || in_cone(row, y0, y1, T, p->yrlo, p->yrhi)))
                        *h2d += (uint64_t)p->in_arrays * (uint64_t)p->row_bytes;
                    if (pl >= z0 && pl < z1 && row >= y0 && row < y1)
                        *d2h += (uint64_t)p->out_arrays * (uint64_t)p->row_bytes;
                }
        }
    }
}

/* The 2d model (planes x rows; whole planes: the rows go along): an interior cell's new value mixes the
 * cells it reads (a read past the grid's face reads the face: a reach wider than the halo, as sub-steps
 * have); boundary cells keep theirs, or along a torus (wrap 2: the whole grid) the boundary planes are the
 * wrap of the interior; a wrapped window (wrap 1) computes every plane of its region, unrolled.  A window
 * holds planes [wz0, ...) of rows [wy0, wy0 + wy), packed. */
typedef struct win {
    int64_t z0, y0, wy;
    int wrap;
} win;

static uint64_t mix(const stn_gpu_plan *p, const uint64_t *old, int64_t z, int64_t y, const win *w) {
    uint64_t h = 0x243F6A8885A308D3ull;
    for (int64_t o = -p->rlo; o <= p->rhi; o++)
        for (int64_t oy = -p->yrlo; oy <= p->yrhi; oy++) {
            const int64_t az = w->wrap == 2    ? torus(p, z + o)
                               : w->wrap       ? z + o
                               : z + o < 0     ? 0
                               : z + o >= p->n ? p->n - 1
                                               : z + o;
            const int64_t ay = y + oy < 0 ? 0 : y + oy >= p->ny ? p->ny - 1 : y + oy;
            h = (h ^ old[(az - w->z0) * w->wy + ay - w->y0]) * 0x100000001B3ull +
                (uint64_t)(o * 16 + oy + 77);
        }
    return h;
}

static void step_range(const stn_gpu_plan *p, const uint64_t *old, uint64_t *nw, const int64_t v[4],
                       const win *w) {
    for (int64_t z = v[0]; z < v[1]; z++)
        for (int64_t y = v[2]; y < v[3]; y++) {
            const int64_t i = (z - w->z0) * w->wy + y - w->y0;
            nw[i] = (w->wrap == 1 || (z >= p->L && z < p->H)) && y >= p->yL && y < p->yH
                        ? mix(p, old, z, y, w)
                        : old[i];
        }
    for (int64_t z = v[0]; w->wrap == 2 && z < v[1]; z++) /* the whole torus: its boundary planes wrap */
        if (z < p->L || z >= p->H)
            memcpy(nw + (z - w->z0) * w->wy, nw + (torus(p, z) - w->z0) * w->wy, (size_t)w->wy * 8);
}

/* Tile k of a sweep of T steps on the model: up from host, T steps on what stays exact, its own cells down
 * into next; *planes, *cells: what it computed (planes summed over steps, and plane-rows). */
static int run_tile_model(const stn_gpu_plan *p, int64_t k, int64_t T, const uint64_t *host, uint64_t *next,
                          uint64_t *wa, uint64_t *wb, uint64_t *planes, uint64_t *cells) {
    int64_t w0, w1, z0, z1, r0, r1, y0, y1;
    stn_gpu_window(p, k / p->nyb, T, &w0, &w1);
    stn_gpu_block(p, k / p->nyb, &z0, &z1);
    stn_gpu_rows_window(p, k % p->nyb, T, &r0, &r1);
    stn_gpu_rows(p, k % p->nyb, &y0, &y1);
    const win w = {w0, r0, r1 - r0, p->wrap};
    const int64_t ny = p->ny, n = p->n;
    int ok = !(p->wrap && p->nyb > 1); /* (tiles and wrapped windows do not combine) */
    for (int64_t z = w0; z < w1; z++)  /* up (a wrapped window: the planes it wraps to) */
        memcpy(wa + (z - w0) * w.wy, host + (p->wrap ? torus(p, z) : z) * ny + r0, (size_t)w.wy * 8);
    for (int64_t t = 1; t <= T; t++) {
        const int64_t v[4] = {w0 == 0 && !p->wrap ? 0 : w0 + t * p->rlo,
                              w1 == n && !p->wrap ? n : w1 - t * p->rhi, r0 == 0 ? 0 : r0 + t * p->yrlo,
                              r1 == ny ? ny : r1 - t * p->yrhi};
        if (v[0] > z0 || v[1] < z1 || v[2] > y0 || v[3] < y1) {
            fprintf(stderr, "tile %" PRId64 " not exact after step %" PRId64 "\n", k, t);
            ok = 0;
        }
        step_range(p, wa, wb, v, &w);
        *planes += (uint64_t)(v[1] - v[0]), *cells += (uint64_t)((v[1] - v[0]) * (v[3] - v[2]));
        memcpy(wa, wb, (size_t)((w1 - w0) * w.wy) * 8);
    }
    for (int64_t z = z0; z < z1; z++) /* down, into the other copy */
        memcpy(next + z * ny + y0, wa + (z - w0) * w.wy + (y0 - r0), (size_t)(y1 - y0) * 8);
    return ok;
}

/* Runs the plan's schedule on the 2d model and compares with the whole grid after each sweep. */
static int schedule_exact(const stn_gpu_plan *p, uint64_t *planes, uint64_t *cells) {
    const int64_t n = p->n * p->ny, wn = (p->window_max > p->n ? p->window_max : p->n) * p->ny;
    uint64_t *ref = calloc((size_t)n, 8), *rtmp = calloc((size_t)n, 8), *host = calloc((size_t)n, 8);
    uint64_t *next = calloc((size_t)n, 8), *wa = calloc((size_t)wn, 8), *wb = calloc((size_t)wn, 8);
    int ok = ref && rtmp && host && next && wa && wb;
    for (int64_t z = 0; ok && z < n; z++)
        ref[z] = host[z] = rnd();
    const win whole = {0, 0, p->ny, p->wrap ? 2 : 0};
    const int64_t all[4] = {0, p->n, 0, p->ny};
    for (int64_t s = 0; ok && s < p->nsweeps; s++) {
        const int64_t T = s * p->bt + p->bt <= p->steps ? p->bt : p->steps - s * p->bt;
        for (int64_t t = 0; t < T; t++) { /* the whole grid */
            step_range(p, ref, rtmp, all, &whole);
            memcpy(ref, rtmp, (size_t)n * 8);
        }
        for (int64_t k = 0; k < p->nblocks * p->nyb; k++)
            ok &= run_tile_model(p, k, T, host, next, wa, wb, planes, cells);
        memcpy(host, next, (size_t)n * 8);
        for (int64_t z = 0; ok && z < n; z++)
            if (host[z] != ref[z]) {
                fprintf(stderr,
                        "sweep %" PRId64 ": plane %" PRId64 " row %" PRId64
                        " differs from the whole-grid run\n",
                        s, z / p->ny, z % p->ny);
                ok = 0;
            }
    }
    free(ref), free(rtmp), free(host), free(next), free(wa), free(wb);
    return ok;
}

static void check_problem(problem *P, int i) {
    stn_gpu_plan p;
    const int rc = stn_gpu_plan_for(&P->q, &p);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", stn_errmsg());
    const stn_gpu_request *q = &P->q;
    /* brute force over every (bz, bt): the best that fits (in core whenever it fits: the policy) */
    stn_gpu_plan ic;
    const int in_core =
        stn_gpu_make_plan(q, q->size[stn_gpu_axis(&P->d)], 1, &ic) == 0 && ic.dev_bytes <= q->gpu_mem;
    stn_gpu_plan b, best;
    memset(&best, 0, sizeof best);
    int found = 0;
    const int64_t ny = q->tiles ? q->size[1] : 1; /* (by = ny: whole planes) */
    for (int64_t bt = 1; bt <= 64 && bt <= (q->steps > 0 ? q->steps : 1); bt++)
        for (int64_t bz = 1; bz <= q->size[stn_gpu_axis(&P->d)]; bz++)
            for (int64_t by = 1; by <= ny; by++) {
                if (stn_gpu_make_tiled(q, bz, q->tiles ? by : 0, bt, &b) == 0 && b.dev_bytes <= q->gpu_mem &&
                    (b.nblocks > 1 || in_core) && (!found || b.predicted_s < best.predicted_s))
                    best = b, found = 1;
            }
    if (rc != 0) {
        CHECK(rc == -ENOMEM);
        CHECK_HAS(msg, "--gpu-mem");
        if (found)
            fprintf(stderr,
                    "problem %d: no plan, but bz %" PRId64 " by %" PRId64 " bt %" PRId64 " fits (%" PRIu64
                    " <= %" PRIu64 ")\n",
                    i, best.bz, best.by, best.bt, best.dev_bytes, q->gpu_mem);
        CHECK(!found);
        return;
    }
    CHECK(found);
    CHECK(p.dev_bytes <= q->gpu_mem);
    CHECK(p.nblocks == 1 || (p.nblocks - 1) * p.bz < p.n);
    /* past one block, each at least twice the boundary layer: a neumann face mirrors from its own block */
    const int64_t last = p.n - (p.nblocks - 1) * p.bz;
    const int64_t need = 2 * (p.L > p.n - p.H ? p.L : p.n - p.H);
    CHECK(p.nblocks == 1 || (p.bz >= need && last >= need && last < p.bz + need));
    CHECK((p.nblocks == 1) == in_core);
    const int64_t last_y = p.ny - (p.nyb - 1) * p.by,
                  need_y = p.yL + p.ny - p.yH > 0 ? 2 * (p.yL > p.ny - p.yH ? p.yL : p.ny - p.yH) : 1;
    CHECK(p.nyb == 1 || (q->tiles && p.nblocks > 1 && !p.wrap && p.by >= need_y && last_y >= need_y &&
                         last_y < p.by + need_y));
    if (!in_core && p.predicted_s > best.predicted_s * (1 + 1e-12)) {
        fprintf(stderr,
                "problem %d: chosen bz %" PRId64 " by %" PRId64 " bt %" PRId64
                " %.6g s, brute force bz %" PRId64 " by %" PRId64 " bt %" PRId64 " %.6g s\n",
                i, p.bz, p.by, p.bt, p.predicted_s, best.bz, best.by, best.bt, best.predicted_s);
        t_failures++;
    }
    uint64_t h2d, d2h;
    count_bytes(&p, q, &h2d, &d2h);
    if (h2d != p.h2d_bytes || d2h != p.d2h_bytes) {
        fprintf(stderr,
                "problem %d: predicted %" PRIu64 "/%" PRIu64 " bytes up/down, counted %" PRIu64 "/%" PRIu64
                "\n",
                i, p.h2d_bytes, p.d2h_bytes, h2d, d2h);
        t_failures++;
    }
    uint64_t planes = 0, cells = 0;
    if (!schedule_exact(&p, &planes, &cells)) {
        fprintf(stderr,
                "problem %d: the schedule of bz %" PRId64 " by %" PRId64 " bt %" PRId64 " is not exact\n", i,
                p.bz, p.by, p.bt);
        t_failures++;
    }
    if (planes != p.planes_computed || cells * (uint64_t)(p.plane_cells / p.ny) != p.cells_computed) {
        fprintf(stderr,
                "problem %d: predicted %" PRIu64 " planes, %" PRIu64
                " cells computed, the schedule computed %" PRIu64 " planes, %" PRIu64 " plane-rows\n",
                i, p.planes_computed, p.cells_computed, planes, cells);
        t_failures++;
    }
    if (p.nblocks == 1 && q->steps > 0) { /* in core: everything up once, down once */
        CHECK(p.nsweeps == 1);
        CHECK(p.h2d_bytes ==
              (uint64_t)p.in_arrays * (uint64_t)(p.n * p.plane_bytes) + p.along_bytes + q->points_bytes);
        CHECK(p.d2h_bytes == (uint64_t)p.out_arrays * (uint64_t)(p.n * p.plane_bytes) +
                                 (uint64_t)q->steps * q->sample_step_bytes);
    }
}

static void check_refusals(void) {
    problem P;
    *stn_test_rng() = 7;
    make_problem(&P);
    P.q.steps = 10;
    P.q.gpu_mem = 1;
    stn_gpu_plan p;
    CHECK(stn_gpu_plan_for(&P.q, &p) == -ENOMEM);
    CHECK_HAS(stn_errmsg(), "--gpu-mem 1 bytes is below the smallest plan");
    P.q.gpu_mem = (uint64_t)1 << 40;
    CHECK(stn_gpu_plan_for(&P.q, &p) == 0 && p.nblocks == 1); /* in core, periodic or not */
    const int a = stn_gpu_axis(&P.d);
    P.fields[0].periodic = 1 << a; /* u periodic along the streamed axis, v a state field that is not */
    P.fields[1] = (stn_field_desc){.name = "v",
                                   .kind = STN_FIELD_STATE,
                                   .levels = 1,
                                   .src_slot = P.d.nsrc,
                                   .prev_slot = -1,
                                   .dst_slot = P.d.ndst};
    P.fields[2] = (stn_field_desc){.name = "c",
                                   .kind = STN_FIELD_INPUT,
                                   .levels = 1,
                                   .src_slot = P.d.nsrc + 1,
                                   .prev_slot = -1,
                                   .dst_slot = -1,
                                   .read_across = 8};
    P.d.nfields = 3, P.d.nsrc += 2, P.d.ndst++, P.d.nalong = 0;
    CHECK(stn_gpu_plan_for(&P.q, &p) == 0 && p.nblocks == 1 && !p.wrap); /* in core, periodic or not */
    P.q.gpu_mem = p.dev_bytes / 2;
    CHECK(stn_gpu_plan_for(&P.q, &p) == -ENOTSUP);
    CHECK_HAS(stn_errmsg(), "field 'u' is periodic along");
    CHECK_HAS(stn_errmsg(), "'v' is not");
    P.fields[1].periodic = 1 << a; /* both: the windows wrap (blocks of half the grid, 2 steps a sweep) */
    P.q.gpu_mem = (uint64_t)1 << 40, P.q.bz = P.q.size[a] / 2, P.q.bt = 2;
    const int rc = stn_gpu_plan_for(&P.q, &p);
    if (rc)
        fprintf(stderr, "wrapped: %s\n", stn_errmsg());
    CHECK(rc == 0 && p.nblocks > 1 && p.wrap);
    CHECK(stn_gpu_wrap_plane(&p, p.L - 1) == p.H - 1 && stn_gpu_wrap_plane(&p, p.H) == p.L);
    P.fields[2].read_across = 8 | (1 << a); /* an input read across it */
    CHECK(stn_gpu_plan_for(&P.q, &p) == -ENOTSUP);
    CHECK_HAS(stn_errmsg(), "the input 'c' is read at an offset along it");
}

/* Tiles beside periodic fields (docs/design/024-gpu-tier.md §3d): a small heat3d whose budget the chooser
 * answers with tiles; periodic along y or along z (the windows wrap), the chooser gives whole planes and
 * tiles asked for are -ENOTSUP, saying why. */
static void check_tile_refusals(void) {
    stn_field_desc u[] = {
        {.name = "u", .kind = STN_FIELD_STATE, .levels = 1, .src_slot = 0, .prev_slot = -1, .dst_slot = 0}};
    stn_program_desc d = {.name = "heat3d", .ndim = 3, .elem_size = 8, .nfields = 1, .fields = u};
    for (int k = 0; k < 3; k++)
        d.halo_lo[k] = d.halo_hi[k] = d.reach_lo[k] = d.reach_hi[k] = 1;
    d.nsrc = d.ndst = 1;
    stn_gpu_request q = {.d = &d, .size = {16, 64, 64}, .steps = 8, .streams = 3, .tiles = 1};
    q.gpu_mem = 2ull * 16 * 64 * 64 * 8 / 4; /* (whole planes fit: windows of 5 planes) */
    stn_gpu_plan p;
    int rc = stn_gpu_plan_for(&q, &p);
    CHECK(rc == 0 && p.nblocks > 1 && p.nyb > 1 && !p.wrap); /* (not periodic: tiles) */
    for (int axis = 1; axis <= 2; axis++) {
        u[0].periodic = 1 << axis, q.bz = q.by = q.bt = 0;
        rc = stn_gpu_plan_for(&q, &p);
        if (rc)
            fprintf(stderr, "periodic along %c: %s\n", "xyz"[axis], stn_errmsg());
        CHECK(rc == 0 && p.nblocks > 1 && p.nyb == 1 && p.wrap == (axis == 2)); /* whole planes */
        q.bz = 16, q.by = 16, q.bt = 2;
        CHECK(stn_gpu_plan_for(&q, &p) == -ENOTSUP);
        CHECK_HAS(stn_errmsg(), axis == 2 ? "tiles cut along y are not carried with wrapped windows"
                                          : "is periodic along y: tiles cut along y are not carried");
    }
}

/* The model's figure (predicted, not measured) of docs/benchmarks.md §12: heat3d 512³ f64, 256 steps, gpu-ooc
 * within 1/4 and 1/8 of the grid's two arrays on 3 streams, against --mode gpu (in core: up, steps, down),
 * with the H100's figures measured there (PCIe ~45 GB/s each way, the kernels 2061 GB/s at 16 bytes a cell):
 * whole planes (before) and tiles (now).  Tiles must be predicted faster; the chooser must be quick. */
static void model_figure(void) {
    static const stn_field_desc u[] = {
        {.name = "u", .kind = STN_FIELD_STATE, .levels = 1, .src_slot = 0, .prev_slot = -1, .dst_slot = 0}};
    stn_program_desc d = {.name = "heat3d", .ndim = 3, .elem_size = 8, .nfields = 1, .fields = u};
    for (int k = 0; k < 3; k++)
        d.halo_lo[k] = d.halo_hi[k] = d.reach_lo[k] = d.reach_hi[k] = 1;
    d.nsrc = d.ndst = 1;
    const uint64_t arrays = 2ull * 512 * 512 * 512 * 8;
    stn_gpu_request q = {.d = &d,
                         .size = {512, 512, 512},
                         .steps = 256,
                         .gpu_mem = arrays,
                         .streams = 3,
                         .h2d_bps = 45e9,
                         .d2h_bps = 45e9,
                         .dev_bps = 2061e9};
    stn_gpu_plan gpu, p;
    CHECK(stn_gpu_make_plan(&q, 512, 1, &gpu) == 0 && gpu.nblocks == 1);
    for (int div = 4; div <= 8; div *= 2) {
        q.gpu_mem = arrays / (uint64_t)div;
        for (int tiles = 0; tiles <= 1; tiles++) {
            q.tiles = tiles;
            const double c0 = stn_now();
            CHECK(stn_gpu_plan_for(&q, &p) == 0 && (p.nyb > 1) == tiles);
            const double dt = stn_now() - c0;
            printf("model: heat3d 512^3 gpu-ooc 1/%d, %s: bz %" PRId64 " by %" PRId64 " (%" PRId64
                   " x %" PRId64 " tiles) bt %" PRId64
                   ", %.1f GB up, predicted %.3f s, gpu %.3f s: predicted ratio %.2f (chosen "
                   "in %.2f s)\n",
                   div, tiles ? "tiles" : "whole planes", p.bz, p.by, p.nblocks, p.nyb, p.bt,
                   (double)p.h2d_bytes / 1e9, p.predicted_s, gpu.predicted_s, gpu.predicted_s / p.predicted_s,
                   dt);
            CHECK(dt < 2.0);
        }
    }
}

int main(void) {
    const char *seed = getenv("STN_TEST_SEED");
    const uint64_t s0 = seed ? strtoull(seed, NULL, 0) : 20261127;
    const int count = 400;
    int in_core = 0, blocked = 0, tiled = 0, wrapped = 0;
    for (int i = 0; i < count; i++) {
        *stn_test_rng() = s0 + (uint64_t)i * 7919;
        problem P;
        make_problem(&P);
        check_problem(&P, i);
        stn_gpu_plan p;
        if (stn_gpu_plan_for(&P.q, &p) == 0)
            p.nblocks == 1 ? in_core++ : blocked++, tiled += p.nyb > 1, wrapped += p.wrap;
    }
    check_refusals();
    check_tile_refusals();
    model_figure();
    printf(
        "test_gpu_plan: %d problems: %d in core, %d blocked (%d cut along y as well, %d wrapped), %d without "
        "a plan; %d failures\n",
        count, in_core, blocked, tiled, wrapped, count - in_core - blocked, t_failures);
    CHECK(blocked > count / 10 && in_core > count / 10 && tiled > count / 40 && wrapped > count / 40);
    return t_failures ? 1 : 0;
}
