/* ooc.c -- the out-of-core engine (--mode ooc): the reference schedule, and the paper's
 * algorithms 1 and 2 (--schedule alg1|alg2) for comparison.  docs/design/003 is the long form.
 *
 * The grid's fields live in scratch files under --dir (the Buffer layer): rows padded to the
 * O_DIRECT alignment, so any run of whole rows is one aligned transfer.  A sweep advances the
 * whole grid by T = bt steps (the last sweep may be shorter).  It reads the levels it needs from
 * a *source* file set and writes the levels the next sweep needs to a *destination* set.  The
 * source is never written during a sweep, so a sweep that dies leaves the last complete state
 * intact.  After each sweep the destination is synced and a state file is committed
 * atomically; --resume continues from there.
 *
 * Blocking.  Blocks are tiles of two dimensions (stn_ooc.h): blocks j along `r`, the dimension
 * the DRAM window slides along, in rows k along `q`.  Whole planes (by = ny in 3d, and 2d) have
 * one row; y-blocked 3d (by < ny) has r = y and rows of z.  Blocks are skewed in both so that no
 * point is computed twice.  In a dimension with skew s = max(h-, h+), block k computes step t
 * (1..T) on [A(k,t), A(k+1,t)), where A(k,t) = clamp(Z_k - (t-1)s, L, H) for inner split points
 * Z_k, A(0,t) = L (the interior's lower edge) and A(K,t) = H; a tile computes the product of its
 * two ranges.  Tiles run row by row, and each state field keeps levels+1 arrays in the DRAM
 * window, indexed by level modulo levels+1, so every level a tile reads is still there, as
 * out-of-core.md argues.
 *
 * The window is a double-mapped ring along r (ring.c): slice r lives at r mod C, and the slices
 * the next block shares with this one simply stay (forwarding along r); y-blocked, each z-plane
 * of the row has its own ring.  Only new slices are read, each exactly once per sweep.  The
 * z-planes the next row of tiles shares with this one (the z-strip) are copied, as each slice
 * leaves the ring, to a DRAM buffer, or spilled to a scratch file when the budget is short, and
 * come back from there into the next row.  Each point's final levels are written exactly once
 * per sweep.  So a sweep moves exactly kr + kw arrays of the grid, plus the spilled strip, and
 * the model (predict) is closed-form.
 *
 * Boundaries.  Dirichlet boundary cells are constant for every level >= 0: they are copied into
 * the other arrays when a slice enters the window.  Neumann boundary cells are a function of the
 * interior: before each step the engine mirrors the levels the step reads, over the cells it
 * reads.  The window always holds the mirror sources of any boundary cell it contains; files'
 * neumann boundary cells are not authoritative, and the final export mirrors again.
 *
 * Overlap.  While block j computes, the new slices of block j+1 are read (libaio, O_DIRECT)
 * straight into the ring, and block j-1's output is written straight from it.  The rings, the
 * strip and the IO queue are all the engine allocates, and plan_memory counts them against
 * --mem. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "stn_gridio.h"
#include "stn_internal.h"
#include "stn_ooc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const stn_strip_names[] = {"none", "dram", "file", NULL};

/* Where the values of one (field, level) come from at the start of the first sweep. */
enum { SRC_SCRATCH = 0, SRC_NPY, SRC_INIT, SRC_ZERO, SRC_COPY /* previous level = current */ };

typedef struct ooc_field {
    int state, levels, narr; /* narr: arrays in the window (levels + 1 for state, 1 for inputs) */
    int boundary;
    int first_src[2];           /* SRC_* for level 0 and level -1 in the first sweep */
    const char *npy[2];         /* --init files */
    int64_t npy_offset[2];      /* their data offsets */
    int npy_fd[2];              /* opened read-only */
    stn_gridfile scratch[2][2]; /* [set][level]; inputs use scratch[0][0] (imported) */
    int input_src;              /* SRC_SCRATCH (imported from npy), SRC_INIT or SRC_ZERO */
    char *ring[3];              /* window arrays: double-mapped rings (see ring.c) */
    char *strip[3];             /* the z-strip of each array, in DRAM (y-blocked) */
    stn_gridfile spill[3];      /* the z-strip of each array, in a scratch file (y-blocked) */
} ooc_field;

typedef struct ooc {
    stn_run *r;
    const stn_program_desc *d;
    stn_ooc_plan plan;
    ooc_field *f;
    stn_aio *q;
    stn_aio_group rgroup, wgroup[2];
    int64_t wr0, wr1;     /* r indices (slices) held in the window */
    int64_t qlo, qhi;     /* q indices of the current row's window */
    int64_t qnew;         /* [qlo, qnew) comes from the z-strip, [qnew, qhi) from the source */
    int64_t qnext;        /* the next row's qlo: [qnext, qhi) goes to the z-strip (none if >= qhi) */
    int64_t qbase;        /* q index of a ring's first plane (0 unless y-blocked) */
    int64_t qstride;      /* bytes from q to q + 1 in a ring: a row, or a ring plane (y-blocked) */
    int64_t row;          /* k: the current row of blocks */
    int alg2;             /* --schedule alg2: every level array of a state field in place in one file set */
    int64_t lvl0;         /* the global level at the start of this sweep (alg2 indexes arrays by it) */
    int64_t T;            /* steps in this sweep */
    stn_progress *prog;   /* the progress line, advanced after every block */
    int64_t steps_before; /* steps completed by the sweeps before this one */
    const void **src;
    void **dst;
    char state_path[4096];
    int direct_warned;
    int64_t tile[2]; /* the kernels' cache tile of one thread: iy x iz / Nc of the iBlock */
} ooc;

/* ------------------------------------------------------------------ geometry */

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* A(k, t): the lower edge of block k's region at step t (1-based). */
int64_t stn_ooc_edge(const stn_ooc_dim *g, int64_t k, int64_t t) {
    if (k <= 0)
        return g->L;
    if (k >= g->nblocks)
        return g->H;
    return clamp64(g->L + k * g->b - (t - 1) * g->skew, g->L, g->H);
}

/* Z_k: the split points of the interior (Z_0 = L, Z_K = H). */
static int64_t split(const stn_ooc_dim *g, int64_t k) {
    return k <= 0 ? g->L : k >= g->nblocks ? g->H : g->L + k * g->b;
}

/* The window of block k in a sweep of T steps: [lo, hi). */
void stn_ooc_window(const stn_ooc_plan *p, const stn_ooc_dim *g, int64_t k, int64_t T, int64_t *lo,
                    int64_t *hi) {
    int64_t a = stn_ooc_edge(g, k, T) - g->hlo, b = stn_ooc_edge(g, k + 1, 1) + g->hhi;
    if (p->schedule == STN_SCHED_ALG1) { /* overlapped halos: T*s slices on each side, all read */
        a = k == 0 ? 0 : split(g, k) - T * g->skew;
        b = k == g->nblocks - 1 ? g->n : split(g, k + 1) + T * g->skew;
    }
    /* hold the mirror sources of any boundary index the window holds */
    if (a > g->H - g->hhi)
        a = g->H - g->hhi;
    if (b < 2 * g->L)
        b = 2 * g->L;
    *lo = clamp64(a, 0, g->n);
    *hi = clamp64(b, 0, g->n);
}

/* The indices block k owns at step t: its region [A(k,t), A(k+1,t)), plus the boundary indices
 * below L if the region holds L, and those from H up if it holds H-1.  Boundary cells thus
 * follow the skew like the interior: a level is written into them by the same block, at the
 * same step, as into the interior cells next to them, so a rotating array never loses a level
 * a later block still reads (the prev level of a two-level field, with boundary values of its
 * own, is the case that needs it).  At t = T this is also what block k writes out. */
static void owned_range(const stn_ooc_dim *g, int64_t k, int64_t t, int64_t *lo, int64_t *hi) {
    int64_t a = stn_ooc_edge(g, k, t), b = stn_ooc_edge(g, k + 1, t);
    *lo = a == g->L && b > a ? 0 : a;
    *hi = b == g->H && b > a ? g->n : b;
}

/* What block k computes at step t of a sweep of T steps.  ref and alg2: [A(k,t), A(k+1,t)).
 * alg1: its own indices widened by (T-t)*s on each side, redundantly computed by the neighbours
 * too, so that after T steps its own indices are exact with nothing shared between blocks. */
static void step_region(const stn_ooc_plan *p, const stn_ooc_dim *g, int64_t k, int64_t t, int64_t T,
                        int64_t *lo, int64_t *hi) {
    if (p->schedule != STN_SCHED_ALG1) {
        *lo = stn_ooc_edge(g, k, t);
        *hi = stn_ooc_edge(g, k + 1, t);
        return;
    }
    *lo = clamp64(split(g, k) - (T - t) * g->skew, g->L, g->H);
    *hi = clamp64(split(g, k + 1) + (T - t) * g->skew, g->L, g->H);
    if (k == 0)
        *lo = g->L;
    if (k == g->nblocks - 1)
        *hi = g->H;
}

/* The indices block k writes at the end of a sweep: ref, its final region (owned_range); alg1,
 * its own indices [Z_k, Z_k+1); both with the boundary indices at the ends of the grid. */
static void out_range(const stn_ooc_plan *p, const stn_ooc_dim *g, int64_t k, int64_t T, int64_t *lo,
                      int64_t *hi) {
    if (p->schedule == STN_SCHED_ALG1) {
        *lo = k == 0 ? 0 : split(g, k);
        *hi = k == g->nblocks - 1 ? g->n : split(g, k + 1);
        return;
    }
    owned_range(g, k, T, lo, hi);
}

/* alg2 writes every array back over all the slices block k changed at any step, [A(k,T),
 * A(k+1,1)), and over the boundary slices at the ends, which the first and last blocks own. */
static void alg2_range(const stn_ooc_dim *g, int64_t k, int64_t T, int64_t *lo, int64_t *hi) {
    *lo = k == 0 ? 0 : stn_ooc_edge(g, k, T);
    *hi = k == g->nblocks - 1 ? g->n : stn_ooc_edge(g, k + 1, 1);
}

/* The indices step t of block k reads, and the mirror sources of the boundary indices among
 * them, clipped to the window [wlo, whi): where a neumann field must be mirrored. */
static void read_range(const stn_ooc_plan *p, const stn_ooc_dim *g, int64_t k, int64_t t, int64_t T,
                       int64_t wlo, int64_t whi, int64_t *lo, int64_t *hi) {
    int64_t a, b;
    step_region(p, g, k, t, T, &a, &b);
    a -= g->hlo, b += g->hhi;
    if (a < g->L && b < 2 * g->L)
        b = 2 * g->L;
    if (b > g->H && a > g->H - g->hhi)
        a = g->H - g->hhi;
    *lo = a > wlo ? a : wlo;
    *hi = b < whi ? b : whi;
}

/* The z-planes row k of a sweep of T steps passes to row k+1: [next row's window lo, this
 * row's window hi); empty for the last row. */
static void strip_range(const stn_ooc_plan *p, int64_t k, int64_t T, int64_t *lo, int64_t *hi) {
    int64_t a, b, c, d;
    *lo = *hi = 0;
    if (p->strip == STN_STRIP_NONE || k + 1 >= p->q.nblocks)
        return;
    stn_ooc_window(p, &p->q, k, T, &a, &b);
    stn_ooc_window(p, &p->q, k + 1, T, &c, &d);
    *lo = c;
    *hi = b > c ? b : c;
}

/* ------------------------------------------------------------------ the plan and its model */

/* The slices that must be in DRAM at once in a row of a sweep of T steps: while block j
 * computes, its window [lo_j, hi_j), the slices of block j+1 being read, up to hi_{j+1}, and
 * what block j-1 is writing, from its output's lower edge (its window's, when it also spills
 * the z-strip).  (Block j-2's writes are waited for before block j+1's reads are issued.)  A
 * ring this long never overwrites a slice still in use. */
static int64_t live_slices(const stn_ooc_plan *p, int64_t T) {
    const stn_ooc_dim *g = &p->r;
    int spills = p->strip == STN_STRIP_FILE && p->q.nblocks > 1;
    int64_t need = 0, lo, hi, nlo, nhi, olo = 0, ohi = 0;
    for (int64_t k = 0; k < g->nblocks; k++) {
        stn_ooc_window(p, g, k, T, &lo, &hi);
        nhi = hi;
        if (k + 1 < g->nblocks)
            stn_ooc_window(p, g, k + 1, T, &nlo, &nhi);
        int64_t low = k > 0 && olo < lo ? olo : lo;
        need = max64(need, max64(hi, nhi) - low);
        if (spills)
            olo = lo;
        else
            out_range(p, g, k, T, &olo, &ohi);
    }
    return need;
}

/* Slices per ring: every sweep's live set, and the import/export chunk, which must hold the
 * mirror sources of both ends of a short grid at once (min(n, 2*hlo + 2*hhi)); rounded up so
 * that a ring is a whole number of pages. */
static int64_t ring_slices(const stn_ooc_plan *p) {
    const stn_ooc_dim *g = &p->r;
    int64_t c = live_slices(p, p->bt), ends = 2 * g->hlo + 2 * g->hhi;
    if (p->steps % p->bt)
        c = max64(c, live_slices(p, p->steps % p->bt));
    c = max64(c, min64(ends, g->n));
    c = max64(c, 1);
    uint64_t sb = p->slice_bytes, per = 4096; /* slices per page-aligned group: 4096 / gcd */
    while (per % 2 == 0 && sb % 2 == 0)
        per /= 2, sb /= 2;
    return (c + (int64_t)per - 1) / (int64_t)per * (int64_t)per;
}

/* y-blocked: the z-planes a ring array holds (the widest row window, and the export's chunk),
 * and the widest z-strip, over the sweeps of bt steps and the last shorter one. */
static void row_extents(const stn_ooc_plan *p, int64_t *planes, int64_t *strip) {
    const stn_ooc_dim *g = &p->q;
    int64_t Ts[2] = {p->bt, p->steps % p->bt ? p->steps % p->bt : p->bt}, lo, hi;
    *planes = min64(2 * g->hlo + 2 * g->hhi, g->n);
    *strip = 0;
    for (int i = 0; i < 2; i++)
        for (int64_t k = 0; k < g->nblocks; k++) {
            stn_ooc_window(p, g, k, Ts[i], &lo, &hi);
            *planes = max64(*planes, hi - lo);
            strip_range(p, k, Ts[i], &lo, &hi);
            *strip = max64(*strip, hi - lo);
        }
    *planes = max64(*planes, 1);
}

/* Bytes of DRAM the engine allocates for this plan (the budget constraint): one ring per array
 * (levels + 1 per state field, one per input), the z-strip when it stays in DRAM, and the IO
 * queue. */
static uint64_t plan_memory(const stn_ooc_plan *p, const stn_program_desc *d) {
    uint64_t arrays = stn_total_arrays(d);
    uint64_t ring = (uint64_t)p->qplanes * (uint64_t)p->ring_slices * p->slice_bytes;
    uint64_t strip = p->strip == STN_STRIP_DRAM
                         ? (uint64_t)p->strip_planes * (uint64_t)p->r.n * (uint64_t)p->row_bytes
                         : 0;
    return arrays * (ring + strip) + stn_aio_footprint(STN_AIO_DEFAULT_DEPTH);
}

static void dim_init(stn_ooc_dim *g, int axis, int64_t n, int64_t hlo, int64_t hhi, int64_t b) {
    g->axis = axis;
    g->n = n;
    g->hlo = hlo;
    g->hhi = hhi;
    g->skew = hlo > hhi ? hlo : hhi;
    g->L = hlo;
    g->H = n - hhi;
    g->b = b < 1 ? 1 : b;
    g->nblocks = (g->H - g->L + g->b - 1) / g->b;
    if (g->nblocks < 1)
        g->nblocks = 1;
}

int stn_ooc_make_plan(const stn_program_desc *d, const int64_t size[3], int64_t steps, int schedule,
                      int64_t by, int64_t bz, int64_t bt, int strip, size_t align, stn_ooc_plan *p) {
    memset(p, 0, sizeof *p);
    p->schedule = schedule < 0 ? STN_SCHED_REF : schedule;
    int64_t whole = INT64_MAX / 4;
    if (d->ndim == 2) {
        dim_init(&p->r, 1, size[1], d->halo_lo[1], d->halo_hi[1], by);
        dim_init(&p->q, 2, 1, 0, 0, whole);
    } else if (by >= size[1]) { /* whole planes */
        dim_init(&p->r, 2, size[2], d->halo_lo[2], d->halo_hi[2], bz);
        dim_init(&p->q, 1, size[1], d->halo_lo[1], d->halo_hi[1], whole);
    } else { /* y-blocked: tiles of y x z */
        dim_init(&p->r, 1, size[1], d->halo_lo[1], d->halo_hi[1], by);
        dim_init(&p->q, 2, size[2], d->halo_lo[2], d->halo_hi[2], bz);
        p->strip = strip == STN_STRIP_FILE ? STN_STRIP_FILE : STN_STRIP_DRAM;
    }
    p->steps = steps;
    p->bt = bt < 1 ? 1 : bt;
    p->align = align;
    p->row_bytes = stn_grid_row_bytes(size[0], d->elem_size, align);
    p->grid_bytes = (uint64_t)p->row_bytes * (uint64_t)size[1] * (uint64_t)(d->ndim == 3 ? size[2] : 1);
    p->slice_bytes = (uint64_t)p->row_bytes * (uint64_t)(p->r.axis == 2 ? size[1] : 1);
    p->nsweeps = steps == 0 ? 0 : (steps + p->bt - 1) / p->bt;
    p->ring_slices = ring_slices(p);
    if (p->strip != STN_STRIP_NONE) {
        row_extents(p, &p->qplanes, &p->strip_planes);
        p->qcap = p->qplanes;
    } else {
        p->qplanes = 1;
        p->qcap = p->q.n;
    }
    p->mem_bytes = plan_memory(p, d);
    return 0;
}

/* ------------------------------------------------------------------ small helpers */

/* Where row (r, q) of a ring lives: slice r at r mod C, q within the slice (whole planes) or
 * in the ring's plane q - qbase (y-blocked).  The next C slices follow contiguously. */
static char *at(const ooc *e, char *ring, int64_t r, int64_t q) {
    return ring + (size_t)(r % e->plan.ring_slices) * e->plan.slice_bytes +
           (size_t)(q - e->qbase) * (size_t)e->qstride;
}

/* The window of array a of field f: the data pointer for window_view(). */
static char *win(const ooc *e, const ooc_field *f, int a) { return at(e, f->ring[a], e->wr0, e->qbase); }

static stn_view window_view(const ooc *e) {
    const stn_view *g = &e->r->view;
    int64_t el = e->d->elem_size, row = e->plan.row_bytes / el;
    if (e->d->ndim == 2)
        return (stn_view){g->nx, g->ny, 1, row, row * g->ny, e->wr0, 0};
    if (e->plan.r.axis == 2)
        return (stn_view){g->nx, g->ny, g->nz, row, (int64_t)e->plan.slice_bytes / el, 0, e->wr0};
    return (stn_view){g->nx, g->ny, g->nz, row, e->qstride / el, e->wr0, e->qbase};
}

/* The box of r indices [r0, r1) and q indices [q0, q1), all of x. */
static stn_box tile_box(const ooc *e, int64_t r0, int64_t r1, int64_t q0, int64_t q1) {
    const stn_view *g = &e->r->view;
    stn_box b = {{0, 0, 0}, {g->nx, g->ny, g->nz}};
    b.lo[e->plan.r.axis] = r0;
    b.hi[e->plan.r.axis] = r1;
    b.lo[e->plan.q.axis] = q0;
    b.hi[e->plan.q.axis] = q1;
    return b;
}

/* Rows [r0, r1) x [q0, q1) as runs contiguous both in the grid's row order (z * ny + y) and in
 * the ring: one run for whole planes (q covers all of y), one per z-plane otherwise. */
typedef struct rows_run {
    char *buf;
    int64_t rows;
    uint64_t row0; /* the first row's index in the grid's row order */
} rows_run;

static int64_t nruns(const ooc *e, int64_t q0, int64_t q1) { return e->plan.r.axis == 2 ? 1 : q1 - q0; }

static rows_run get_run(const ooc *e, char *ring, int64_t r0, int64_t r1, int64_t q0, int64_t i) {
    int64_t ny = e->r->view.ny;
    if (e->plan.r.axis == 2)
        return (rows_run){at(e, ring, r0, 0), (r1 - r0) * ny, (uint64_t)r0 * (uint64_t)ny};
    int64_t z = q0 + i;
    return (rows_run){at(e, ring, r0, z), r1 - r0, (uint64_t)z * (uint64_t)ny + (uint64_t)r0};
}

static int arr_index(const ooc_field *f, int64_t level) {
    return (int)(((level % f->narr) + f->narr) % f->narr);
}

static void scratch_name(char *buf, size_t n, const ooc *e, int f, int set, int level) {
    const stn_field_desc *fd = &e->d->fields[f];
    if (fd->kind == STN_FIELD_INPUT)
        snprintf(buf, n, "%s/%s.%s.input.grid", e->r->o->dir, e->d->name, fd->name);
    else if (e->alg2) /* array a = 2 * set + level: the in-place arrays of the paper's algorithm 2 */
        snprintf(buf, n, "%s/%s.%s.array%d.grid", e->r->o->dir, e->d->name, fd->name, 2 * set + level);
    else
        snprintf(buf, n, "%s/%s.%s%s.%c.grid", e->r->o->dir, e->d->name, fd->name, level ? ".prev" : "",
                 set ? 'B' : 'A');
}

/* Queue IO of rows [r0, r1) x [q0, q1) between grid file gf and `ring`.  `qfile` is the file's
 * index of q0 (q0 itself for grid files; the strip's plane for a spill file). */
static int io_box(ooc *e, int write, stn_gridfile *gf, char *ring, int64_t r0, int64_t r1, int64_t q0,
                  int64_t q1, int64_t qfile, stn_aio_group *g) {
    stn_run *r = e->r;
    if (r1 <= r0 || q1 <= q0)
        return 0;
    char *buf = at(e, ring, r0, q0);
    int64_t y0, y1, z0, z1;
    size_t plane;
    if (e->plan.r.axis == 2) /* whole planes: r = z, q = y */
        y0 = q0, y1 = q1, z0 = r0, z1 = r1, plane = e->plan.slice_bytes;
    else if (e->d->ndim == 3) /* y-blocked: r = y, q = z, one ring plane per z */
        y0 = r0, y1 = r1, z0 = qfile, z1 = qfile + (q1 - q0), plane = (size_t)e->qstride;
    else /* 2d */
        y0 = r0, y1 = r1, z0 = 0, z1 = 1, plane = (size_t)(r1 - r0) * (size_t)e->plan.row_bytes;
    return write ? stn_aio_write(e->q, gf, y0, y1, z0, z1, buf, plane, g, &r->st)
                 : stn_aio_read(e->q, gf, y0, y1, z0, z1, buf, plane, g, &r->st);
}

/* Read rows [r0, r1) x [q0, q1) of a --init .npy (buffered pread, unpadded rows) into padded
 * rows, run by run: one read into the tail of the run, then the rows spread out in place, first
 * to last (row i moves down from D + i*rowb to i*row_bytes, D = rows * padding, never over a
 * row not yet moved), so no buffer outside the plan is needed. */
static int npy_box(ooc *e, int f, int level, char *ring, int64_t r0, int64_t r1, int64_t q0, int64_t q1) {
    ooc_field *of = &e->f[f];
    size_t rowb = (size_t)e->r->view.nx * (size_t)e->d->elem_size, padded = (size_t)e->plan.row_bytes;
    double t0 = stn_now();
    int rc = 0;
    for (int64_t i = 0; rc == 0 && r1 > r0 && i < nruns(e, q0, q1); i++) {
        rows_run run = get_run(e, ring, r0, r1, q0, i);
        size_t rows = (size_t)run.rows, tail = rows * (padded - rowb);
        uint64_t off = (uint64_t)of->npy_offset[level] + run.row0 * rowb;
        rc = stn_pread_full(of->npy_fd[level], run.buf + tail, rows * rowb, off, of->npy[level]);
        if (rc == 0) {
            e->r->st.bytes_read += rows * rowb;
            for (size_t k = 0; tail && k < rows; k++)
                memmove(run.buf + k * padded, run.buf + tail + k * rowb, rowb);
        }
        posix_fadvise(of->npy_fd[level], (off_t)off, (off_t)(rows * rowb), POSIX_FADV_DONTNEED);
    }
    stn_stats_add_time(&e->r->st, STN_PHASE_READ, t0);
    return rc;
}

/* Copy (or zero, src NULL) rows [r0, r1) x [q0, q1) of one ring array from another. */
static void copy_box(const ooc *e, char *dst, char *src, int64_t r0, int64_t r1, int64_t q0, int64_t q1) {
    for (int64_t i = 0; r1 > r0 && i < nruns(e, q0, q1); i++) {
        rows_run d = get_run(e, dst, r0, r1, q0, i);
        size_t bytes = (size_t)d.rows * (size_t)e->plan.row_bytes;
        if (src)
            memcpy(d.buf, get_run(e, src, r0, r1, q0, i).buf, bytes);
        else
            memset(d.buf, 0, bytes);
    }
}

/* ------------------------------------------------------------------ the model */

/* Bytes each source kind moves for one whole level of one field. */
static uint64_t level_bytes(const ooc *e, int src) {
    const stn_view *g = &e->r->view;
    switch (src) {
    case SRC_SCRATCH:
        return e->plan.grid_bytes;
    case SRC_NPY:
        return (uint64_t)g->nx * (uint64_t)g->ny * (uint64_t)g->nz * (uint64_t)e->d->elem_size;
    default:
        return 0;
    }
}

/* Steps in sweep s: bt, except a shorter last sweep when bt does not divide the steps. */
static int64_t sweep_steps(const stn_ooc_plan *p, int64_t s) {
    return s == p->nsweeps - 1 && p->steps % p->bt ? p->steps % p->bt : p->bt;
}

/* Bytes of one state level a sweep reads from a source moving `whole` bytes for the whole
 * level: all of it once (ref), or every block's window (alg1, whose windows overlap by 2*T*s;
 * whole planes only, so a slice is whole / n). */
static uint64_t sweep_read_bytes(const stn_ooc_plan *p, int64_t s, uint64_t whole) {
    if (p->schedule != STN_SCHED_ALG1)
        return whole;
    int64_t T = sweep_steps(p, s), lo, hi;
    uint64_t n = 0;
    for (int64_t k = 0; k < p->r.nblocks; k++) {
        stn_ooc_window(p, &p->r, k, T, &lo, &hi);
        n += (uint64_t)(hi - lo);
    }
    return whole / (uint64_t)p->r.n * n;
}

/* Bytes of one array a sweep of T steps spills to the z-strip file (and reads back). */
static uint64_t spill_bytes(const stn_ooc_plan *p, int64_t T) {
    uint64_t planes = 0;
    int64_t lo, hi;
    if (p->strip != STN_STRIP_FILE)
        return 0;
    for (int64_t k = 0; k + 1 < p->q.nblocks; k++) {
        strip_range(p, k, T, &lo, &hi);
        planes += (uint64_t)(hi - lo);
    }
    return planes * (uint64_t)p->r.n * (uint64_t)p->row_bytes; /* y-blocked: r is y */
}

/* Where (field, level) comes from in sweep `sweep`; sweep == nsweeps is the final export.
 * The engine and the model both ask this, so they cannot disagree about what moves. */
static int source_of(const ooc *e, int f, int level, int64_t sweep) {
    const ooc_field *of = &e->f[f];
    if (!of->state) {
        if (of->input_src == SRC_SCRATCH && e->plan.nsweeps == 0)
            return SRC_NPY; /* no sweep, no import: the export copies the user's file */
        return of->input_src;
    }
    if (e->alg2 && e->plan.nsweeps > 0)
        return SRC_SCRATCH; /* the import put every level in the in-place files */
    return sweep == 0 ? of->first_src[level] : SRC_SCRATCH;
}

/* What sweep s moves for field i, added to rd and wr `times` times. */
static void sweep_bytes(const ooc *e, int i, int64_t s, uint64_t times, uint64_t *rd, uint64_t *wr) {
    const stn_ooc_plan *p = &e->plan;
    const ooc_field *f = &e->f[i];
    uint64_t scratch = level_bytes(e, SRC_SCRATCH), r = 0, w = 0;
    int64_t T = sweep_steps(p, s);
    uint64_t spill = (uint64_t)f->narr * spill_bytes(p, T); /* the z-strip, every array */
    r += spill, w += spill;
    if (f->state && e->alg2) {
        for (int64_t k = 0; k < p->r.nblocks; k++) { /* each block reads its window, writes */
            int64_t lo, hi, wlo, whi;
            stn_ooc_window(p, &p->r, k, T, &lo, &hi);
            alg2_range(&p->r, k, T, &wlo, &whi);
            r += (uint64_t)f->narr * (uint64_t)(hi - lo) * p->slice_bytes;
            w += (uint64_t)f->narr * (uint64_t)(whi - wlo) * p->slice_bytes;
        }
    } else {
        /* ref reads each point once a sweep; alg1 reads every block's whole window */
        for (int l = 0; l < (f->state ? f->levels : 1); l++) {
            uint64_t whole = level_bytes(e, source_of(e, i, l, s));
            r += f->state ? sweep_read_bytes(p, s, whole) : whole;
            w += f->state ? scratch : 0;
        }
    }
    *rd += times * r;
    *wr += times * w;
}

/* Predict every byte the run will read and write, from the plan alone: sweeps first_sweep..
 * nsweeps-1, the import of input files (first sweep only) and the export of each --out.
 * Sweeps between the first and the last are alike (bt steps from scratch), so this costs one
 * pass over the blocks of three sweeps, whatever the steps: the tuner calls it for every
 * plan it weighs. */
static void predict(const ooc *e, int64_t first_sweep, uint64_t *rd, uint64_t *wr) {
    const stn_program_desc *d = e->d;
    const stn_ooc_plan *p = &e->plan;
    uint64_t scratch = level_bytes(e, SRC_SCRATCH), npy = level_bytes(e, SRC_NPY);
    int64_t last = p->nsweeps - 1;
    *rd = *wr = 0;
    for (int i = 0; i < d->nfields; i++) {
        const ooc_field *f = &e->f[i];
        if (!f->state && f->input_src == SRC_SCRATCH && first_sweep == 0 && p->nsweeps > 0)
            *rd += npy, *wr += scratch; /* the import */
        if (f->state && e->alg2 && first_sweep == 0 && p->nsweeps > 0) {
            for (int l = 0; l < f->levels; l++) /* the import: every array of the field */
                *rd += level_bytes(e, f->first_src[l]);
            *wr += (uint64_t)f->narr * scratch;
        }
        if (first_sweep > last)
            continue;
        sweep_bytes(e, i, first_sweep, 1, rd, wr);
        if (last - first_sweep > 1)
            sweep_bytes(e, i, first_sweep + 1, (uint64_t)(last - first_sweep - 1), rd, wr);
        if (last > first_sweep)
            sweep_bytes(e, i, last, 1, rd, wr);
    }
    for (int s = 0; s < 2 * d->nfields; s++)
        if (e->r->o->out_path[s]) {
            *rd += level_bytes(e, source_of(e, s / 2, s % 2, p->nsweeps));
            *wr += npy;
        }
}

/* ------------------------------------------------------------------ loading slices */

/* Put rows [r0, r1) x [q0, q1) of (field f, level) into its ring from source kind `src`
 * (SRC_*).  Data from scratch files is prefetched there by the caller. */
static int place_from(ooc *e, int f, int level, int src, int64_t r0, int64_t r1, int64_t q0, int64_t q1) {
    ooc_field *of = &e->f[f];
    int a = arr_index(of, -level);
    if (r1 <= r0 || q1 <= q0)
        return 0;
    double t0 = stn_now();
    switch (src) {
    case SRC_SCRATCH: /* prefetched straight into the ring */
        return 0;
    case SRC_NPY:
        return npy_box(e, f, level, of->ring[a], r0, r1, q0, q1);
    case SRC_INIT: {
        stn_view v = window_view(e);
        stn_box b = tile_box(e, r0, r1, q0, q1);
        e->d->init(f, level, win(e, of, a), &v, e->r->o->params, &b);
        stn_stats_add_time(&e->r->st, STN_PHASE_INIT, t0);
        return 0;
    }
    case SRC_ZERO:
        copy_box(e, of->ring[a], NULL, r0, r1, q0, q1);
        stn_stats_add_time(&e->r->st, STN_PHASE_INIT, t0);
        return 0;
    case SRC_COPY: /* the previous level starts equal to the current one (placed first) */
        copy_box(e, of->ring[a], of->ring[arr_index(of, 0)], r0, r1, q0, q1);
        stn_stats_add_time(&e->r->st, STN_PHASE_COPY, t0);
        return 0;
    }
    return stn_error(-EINVAL, "internal error: unknown source");
}

static int nlevels_read(const ooc_field *f) { return f->state ? f->levels : 1; }

/* The in-place file of array a of a state field (alg2). */
static stn_gridfile *inplace(ooc_field *f, int a) { return &f->scratch[a / 2][a % 2]; }

/* Queue reads of slices [r0, r1) of every array alg2 keeps in place (state fields only). */
static int read_inplace(ooc *e, int64_t r0, int64_t r1, stn_aio_group *g) {
    for (int i = 0; r1 > r0 && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        for (int a = 0; f->state && a < f->narr; a++) {
            int rc = io_box(e, 0, inplace(f, a), f->ring[a], r0, r1, e->qlo, e->qhi, e->qlo, g);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* The z-strip (y-blocked).  Save: rows [r0, r1) of planes [qnext, qhi), every array, as they
 * leave the ring.  Restore: rows [r0, r1) of planes [qlo, qnew) into a new row's ring.  In DRAM
 * the strip is ny rows per plane, plane z at z minus the row's first strip plane; in the spill
 * file, plane z - that is the file's plane.  A position is saved only after its restore (it
 * leaves the ring after it entered), so one buffer serves both rows. */
static char *strip_at(const ooc *e, const ooc_field *f, int a, int64_t y, int64_t zrel) {
    return f->strip[a] + ((size_t)zrel * (size_t)e->r->view.ny + (size_t)y) * (size_t)e->plan.row_bytes;
}

static int strip_io(ooc *e, int save, int64_t r0, int64_t r1, stn_aio_group *g) {
    int64_t q0 = save ? e->qnext : e->qlo, q1 = save ? e->qhi : e->qnew;
    if (r1 <= r0 || q1 <= q0)
        return 0;
    double t0 = stn_now();
    int rc = 0;
    for (int i = 0; rc == 0 && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        for (int a = 0; rc == 0 && a < f->narr; a++) {
            if (e->plan.strip == STN_STRIP_FILE) {
                rc = io_box(e, save, &f->spill[a], f->ring[a], r0, r1, q0, q1, 0, g);
                continue;
            }
            for (int64_t z = q0; z < q1; z++) {
                char *ring = at(e, f->ring[a], r0, z), *strip = strip_at(e, f, a, r0, z - q0);
                size_t bytes = (size_t)(r1 - r0) * (size_t)e->plan.row_bytes;
                memcpy(save ? strip : ring, save ? ring : strip, bytes);
            }
        }
    }
    if (e->plan.strip == STN_STRIP_DRAM)
        stn_stats_add_time(&e->r->st, STN_PHASE_COPY, t0);
    return rc;
}

/* Queue the reads of block j's new slices [r0, r1) from the source set (and the spilled strip)
 * into the ring. */
static int prefetch(ooc *e, int64_t sweep, int64_t r0, int64_t r1) {
    stn_aio_group_reset(&e->rgroup);
    if (r1 <= r0)
        return 0;
    if (e->alg2) {
        int rc = read_inplace(e, r0, r1, &e->rgroup);
        if (rc)
            return rc;
    }
    if (e->plan.strip == STN_STRIP_FILE) {
        int rc = strip_io(e, 0, r0, r1, &e->rgroup);
        if (rc)
            return rc;
    }
    for (int i = 0; i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        if (e->alg2 && f->state)
            continue;
        for (int l = 0; l < nlevels_read(f); l++) {
            if (source_of(e, i, l, sweep) != SRC_SCRATCH)
                continue;
            stn_gridfile *gf = f->state ? &f->scratch[sweep % 2][l] : &f->scratch[0][0];
            int rc =
                io_box(e, 0, gf, f->ring[arr_index(f, -l)], r0, r1, e->qnew, e->qhi, e->qnew, &e->rgroup);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* Move the window to [lo, hi): the slices it keeps are already in the ring, and so are the new
 * ones read from files (once their reads complete); place the others. */
static int enter_block(ooc *e, int64_t sweep, int64_t lo, int64_t hi) {
    int64_t new_lo = e->wr1 > lo ? e->wr1 : lo;
    e->wr0 = lo;
    e->wr1 = hi;
    int rc = stn_aio_wait(e->q, &e->rgroup, &e->r->st);
    if (rc == 0 && e->plan.strip == STN_STRIP_DRAM)
        rc = strip_io(e, 0, new_lo, hi, NULL);
    for (int i = 0; rc == 0 && i < e->d->nfields; i++)
        for (int l = 0; rc == 0 && l < nlevels_read(&e->f[i]); l++)
            rc = place_from(e, i, l, source_of(e, i, l, sweep), new_lo, hi, e->qnew, e->qhi);
    /* dirichlet: the level-1 array of a new slice gets the boundary cells of level 0 (which every
     * level >= 0 shares); the kernels never write them, so this holds for the whole sweep */
    stn_view v = window_view(e);
    stn_box nb = tile_box(e, new_lo, hi, e->qnew, e->qhi);
    double t0 = stn_now();
    for (int i = 0; rc == 0 && !e->alg2 && hi > new_lo && e->qhi > e->qnew && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        if (f->state && f->boundary == STN_BC_DIRICHLET)
            e->d->boundary(i, &v, win(e, f, 0), win(e, f, 1), &nb);
    }
    stn_stats_add_time(&e->r->st, STN_PHASE_COMPUTE, t0);
    return rc;
}

/* ------------------------------------------------------------------ one block */

/* Boundary cells before step t of block j (of row e->row).  Neumann: mirror the levels the step
 * reads (current, and previous for two levels) over the cells it reads; mirroring is idempotent
 * on valid data, and the cells a step reads hold valid levels.  Dirichlet: the new level's
 * boundary cells were copied when the slice was placed (all levels >= 0 share them); only a
 * previous level with boundary values of its own, read at step 1, is converted at step 2, where
 * this block owns the cells (see owned_range). */
static void before_step(ooc *e, int64_t j, int64_t t) {
    const stn_ooc_plan *p = &e->plan;
    stn_view v = window_view(e);
    double t0 = stn_now();
    for (int i = 0; i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        if (!f->state)
            continue;
        int64_t rlo, rhi, qlo, qhi, a, b, c, d;
        if (f->boundary == STN_BC_NEUMANN) {
            step_region(p, &p->r, j, t, e->T, &a, &b);
            step_region(p, &p->q, e->row, t, e->T, &c, &d);
            if (b <= a || d <= c)
                continue; /* the step computes nothing here */
            read_range(p, &p->r, j, t, e->T, e->wr0, e->wr1, &rlo, &rhi);
            read_range(p, &p->q, e->row, t, e->T, e->qlo, e->qhi, &qlo, &qhi);
            if (rhi <= rlo || qhi <= qlo)
                continue;
            stn_box box = tile_box(e, rlo, rhi, qlo, qhi);
            for (int l = 1; l <= f->levels; l++) {
                char *arr = win(e, f, arr_index(f, e->lvl0 + t - l));
                e->d->boundary(i, &v, arr, arr, &box);
            }
        } else if (f->levels == 2 && e->lvl0 + t == 2) {
            owned_range(&p->r, j, t, &rlo, &rhi);
            owned_range(&p->q, e->row, t, &qlo, &qhi);
            if (p->schedule == STN_SCHED_ALG1) /* alg1 blocks share nothing: the whole window */
                rlo = e->wr0, rhi = e->wr1, qlo = e->qlo, qhi = e->qhi;
            stn_box own = tile_box(e, rlo, rhi, qlo, qhi);
            if (rhi > rlo && qhi > qlo)
                e->d->boundary(i, &v, win(e, f, arr_index(f, 1)), win(e, f, arr_index(f, 2)), &own);
        }
    }
    stn_stats_add_time(&e->r->st, STN_PHASE_COMPUTE, t0);
}

static void compute_block(ooc *e, int64_t j, int64_t T) {
    const stn_program_desc *d = e->d;
    const stn_ooc_plan *p = &e->plan;
    const stn_view *g = &e->r->view;
    stn_view v = window_view(e);
    for (int64_t t = 1; t <= T; t++) {
        before_step(e, j, t);
        stn_box b = {{d->halo_lo[0], d->halo_lo[1], d->halo_lo[2]},
                     {g->nx - d->halo_hi[0], g->ny - d->halo_hi[1], g->nz - d->halo_hi[2]}};
        step_region(p, &p->r, j, t, T, &b.lo[p->r.axis], &b.hi[p->r.axis]);
        step_region(p, &p->q, e->row, t, T, &b.lo[p->q.axis], &b.hi[p->q.axis]);
        if (b.hi[p->r.axis] <= b.lo[p->r.axis] || b.hi[p->q.axis] <= b.lo[p->q.axis])
            continue;
        for (int i = 0; i < d->nfields; i++) {
            const stn_field_desc *fd = &d->fields[i];
            ooc_field *f = &e->f[i];
            if (fd->src_slot >= 0)
                e->src[fd->src_slot] = win(e, f, f->state ? arr_index(f, e->lvl0 + t - 1) : 0);
            if (fd->prev_slot >= 0)
                e->src[fd->prev_slot] = win(e, f, arr_index(f, e->lvl0 + t - 2));
            if (fd->dst_slot >= 0)
                e->dst[fd->dst_slot] = win(e, f, arr_index(f, e->lvl0 + t));
        }
        double t0 = stn_now();
        d->step(e->r->o->params, &v, e->src, e->dst, &b, e->tile[0], e->tile[1]);
        stn_stats_add_time(&e->r->st, STN_PHASE_COMPUTE, t0);
    }
}

/* Write block j's final cells (levels T and, for two-level fields, T-1) to the destination,
 * straight from the ring.  Block j uses write group j % 2, after block j-2's writes finished. */
static int write_block(ooc *e, int64_t sweep, int64_t j, int64_t T) {
    const stn_ooc_plan *p = &e->plan;
    int64_t lo, hi, qlo, qhi;
    stn_aio_group *g = &e->wgroup[j % 2];
    int rc = stn_aio_wait(e->q, g, &e->r->st);
    if (rc)
        return rc;
    stn_aio_group_reset(g);
    if (e->alg2) { /* every array back in place, over all the slices this block changed */
        alg2_range(&p->r, j, T, &lo, &hi);
        for (int i = 0; rc == 0 && hi > lo && i < e->d->nfields; i++) {
            ooc_field *f = &e->f[i];
            for (int a = 0; rc == 0 && f->state && a < f->narr; a++)
                rc = io_box(e, 1, inplace(f, a), f->ring[a], lo, hi, e->qlo, e->qhi, e->qlo, g);
        }
        return rc;
    }
    out_range(p, &p->r, j, T, &lo, &hi);
    out_range(p, &p->q, e->row, T, &qlo, &qhi);
    for (int i = 0; rc == 0 && hi > lo && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        for (int l = 0; rc == 0 && f->state && l < f->levels; l++)
            rc = io_box(e, 1, &f->scratch[(sweep + 1) % 2][l], f->ring[arr_index(f, T - l)], lo, hi, qlo, qhi,
                        qlo, g);
    }
    return rc;
}

/* ------------------------------------------------------------------ sweeps */

static int sync_destination(ooc *e, int64_t sweep) {
    double t0 = stn_now();
    int rc = stn_aio_wait_all(e->q, &e->r->st);
    for (int i = 0; rc == 0 && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        for (int a = 0; rc == 0 && f->state && a < (e->alg2 ? f->narr : f->levels); a++)
            rc = stn_gridfile_sync(e->alg2 ? inplace(f, a) : &f->scratch[(sweep + 1) % 2][a]);
    }
    stn_stats_add_time(&e->r->st, STN_PHASE_WRITE, t0);
    return rc;
}

/* alg1: read slices [r0, r1) of every state level again from the sweep's source. */
static int reread_alg1(ooc *e, int64_t sweep, int64_t r0, int64_t r1) {
    stn_aio_group g = STN_AIO_GROUP_INIT;
    int rc = 0;
    for (int i = 0; rc == 0 && r1 > r0 && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        for (int l = 0; rc == 0 && f->state && l < f->levels; l++) {
            int src = source_of(e, i, l, sweep);
            if (src == SRC_SCRATCH)
                rc = io_box(e, 0, &f->scratch[sweep % 2][l], f->ring[arr_index(f, -l)], r0, r1, e->qlo,
                            e->qhi, e->qlo, &g);
            else
                rc = place_from(e, i, l, src, r0, r1, e->qlo, e->qhi);
        }
    }
    int rc2 = stn_aio_wait(e->q, &g, &e->r->st);
    return rc ? rc : rc2;
}

/* Row k of blocks: set the row's q window and strip ranges. */
static void enter_row(ooc *e, int64_t k, int64_t T) {
    const stn_ooc_plan *p = &e->plan;
    int64_t lo, hi;
    e->row = k;
    stn_ooc_window(p, &p->q, k, T, &e->qlo, &e->qhi);
    e->qnew = e->qlo;
    if (k > 0) {
        strip_range(p, k - 1, T, &lo, &hi);
        e->qnew = max64(e->qlo, hi);
    }
    strip_range(p, k, T, &lo, &hi); /* empty for the last row and without a strip */
    e->qnext = hi > lo ? lo : e->qhi;
    e->qbase = p->strip != STN_STRIP_NONE ? e->qlo : 0;
    e->wr0 = e->wr1 = 0;
}

static int run_row(ooc *e, int64_t sweep, int64_t k, int64_t T) {
    const stn_ooc_plan *p = &e->plan;
    int64_t lo, hi, nlo, nhi, nblocks = p->r.nblocks;
    enter_row(e, k, T);
    stn_ooc_window(p, &p->r, 0, T, &lo, &hi);
    int rc = prefetch(e, sweep, lo, hi);
    for (int64_t j = 0; rc == 0 && j < nblocks; j++) {
        stn_ooc_window(p, &p->r, j, T, &lo, &hi);
        rc = enter_block(e, sweep, lo, hi);
        if (rc == 0 && j + 1 < nblocks) {
            /* block j+1's reads may land where block j-2 was written from: wait for those writes */
            rc = stn_aio_wait(e->q, &e->wgroup[j % 2], &e->r->st);
            stn_ooc_window(p, &p->r, j + 1, T, &nlo, &nhi);
            if (rc == 0)
                rc = prefetch(e, sweep, hi > nlo ? hi : nlo, nhi);
        }
        if (rc == 0) {
            compute_block(e, j, T);
            rc = write_block(e, sweep, j, T);
        }
        if (rc == 0 && e->qnext < e->qhi) { /* the slices leaving the ring: their z-strip */
            int64_t leave = hi;
            if (j + 1 < nblocks)
                stn_ooc_window(p, &p->r, j + 1, T, &leave, &nhi);
            rc = strip_io(e, 1, lo, leave, &e->wgroup[j % 2]);
        }
        if (rc == 0 && e->prog) { /* a sweep can be long: report the fraction of its blocks done */
            int64_t done = k * nblocks + j + 1, all = p->q.nblocks * nblocks;
            stn_progress_step(e->prog, e->steps_before + T * done / all);
        }
        if (rc == 0 && p->schedule == STN_SCHED_ALG1 && j + 1 < nblocks) {
            /* alg1 advanced the slices it shares with block j+1's window: they come back at level 0
             * from the source, after block j's writes (from the same ring positions) have landed */
            rc = stn_aio_wait(e->q, &e->wgroup[j % 2], &e->r->st);
            stn_ooc_window(p, &p->r, j + 1, T, &nlo, &nhi);
            if (rc == 0)
                rc = reread_alg1(e, sweep, nlo, hi < nhi ? hi : nhi);
        }
        if (rc == 0 && e->alg2 && j + 1 < nblocks) {
            /* alg2 keeps nothing between blocks: the part of block j+1's window that block j also
             * held comes back from the files, once block j's writes have landed there */
            stn_aio_group g = STN_AIO_GROUP_INIT;
            rc = stn_aio_wait(e->q, &e->wgroup[j % 2], &e->r->st);
            stn_ooc_window(p, &p->r, j + 1, T, &nlo, &nhi);
            if (rc == 0)
                rc = read_inplace(e, nlo, hi < nhi ? hi : nhi, &g);
            int rc2 = stn_aio_wait(e->q, &g, &e->r->st);
            rc = rc ? rc : rc2;
        }
    }
    if (rc == 0 && k + 1 < p->q.nblocks) { /* the next row starts the ring afresh */
        rc = stn_aio_wait(e->q, &e->wgroup[0], &e->r->st);
        int rc2 = stn_aio_wait(e->q, &e->wgroup[1], &e->r->st);
        rc = rc ? rc : rc2;
    }
    return rc;
}

static int run_sweep(ooc *e, int64_t sweep, int64_t T) {
    e->T = T;
    int rc = 0;
    for (int64_t k = 0; rc == 0 && k < e->plan.q.nblocks; k++)
        rc = run_row(e, sweep, k, T);
    if (rc == 0)
        rc = sync_destination(e, sweep);
    else
        stn_aio_wait_all(e->q, &e->r->st); /* nothing may be in flight into freed buffers */
    return rc;
}

/* ------------------------------------------------------------------ import and export */

/* Chunks of dimension g of at most `cap` indices for the import and export: each holds the
 * mirror sources of the boundary indices it contains (first chunk >= 2*hlo, last >= 2*hhi).
 * With cap >= min(n, 2*hlo + 2*hhi) (ring_slices, row_extents) moving the last edge down keeps
 * the first chunk >= 2*hlo. */
static int64_t chunk_edge(const stn_ooc_dim *g, int64_t c, int64_t cap, int64_t nchunks) {
    if (c >= nchunks)
        return g->n;
    int64_t z = c * cap;
    if (c == nchunks - 1 && g->n - z < 2 * g->hhi)
        z = g->n - 2 * g->hhi;
    return z;
}

/* Call fn for every chunk of the grid the window holds at once: q chunks of qcap (one, unless
 * y-blocked), r chunks of ring_slices, with the window set to the chunk. */
typedef int (*chunk_fn)(ooc *e, void *arg);

static int for_chunks(ooc *e, chunk_fn fn, void *arg) {
    const stn_ooc_plan *p = &e->plan;
    int64_t cr = p->ring_slices, cq = p->qcap;
    int64_t nr = (p->r.n + cr - 1) / cr, nq = (p->q.n + cq - 1) / cq;
    for (int64_t a = 0; a < nq; a++) {
        e->qlo = e->qnew = chunk_edge(&p->q, a, cq, nq);
        e->qhi = e->qnext = chunk_edge(&p->q, a + 1, cq, nq);
        e->qbase = p->strip != STN_STRIP_NONE ? e->qlo : 0;
        for (int64_t b = 0; b < nr; b++) {
            e->wr0 = chunk_edge(&p->r, b, cr, nr);
            e->wr1 = chunk_edge(&p->r, b + 1, cr, nr);
            int rc = fn(e, arg);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* Copy each input given as a .npy into its scratch file once, so that sweeps read it with
 * O_DIRECT (the user's file stays untouched and out of the page cache). */
static int import_chunk(ooc *e, void *arg) {
    int i = *(int *)arg;
    ooc_field *f = &e->f[i];
    stn_aio_group g = STN_AIO_GROUP_INIT;
    int rc = npy_box(e, i, 0, f->ring[0], e->wr0, e->wr1, e->qlo, e->qhi);
    if (rc == 0)
        rc = io_box(e, 1, &f->scratch[0][0], f->ring[0], e->wr0, e->wr1, e->qlo, e->qhi, e->qlo, &g);
    int rc2 = stn_aio_wait(e->q, &g, &e->r->st);
    return rc ? rc : rc2;
}

static int import_inputs(ooc *e) {
    for (int i = 0; i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        if (f->state || f->input_src != SRC_SCRATCH)
            continue;
        int rc = for_chunks(e, import_chunk, &i);
        if (rc == 0)
            rc = stn_gridfile_sync(&f->scratch[0][0]);
        if (rc)
            return rc;
    }
    return 0;
}

/* alg2: write every array of every state field to its in-place file before the first sweep:
 * level 0, level -1 (two levels), and level 0 again in the array level 1 will use, so that
 * the boundary cells, which no kernel writes, are right in every array. */
static int import_alg2_chunk(ooc *e, void *arg) {
    (void)arg;
    stn_aio_group g = STN_AIO_GROUP_INIT;
    int64_t r0 = e->wr0, r1 = e->wr1, q0 = e->qlo, q1 = e->qhi;
    int rc = 0;
    for (int i = 0; rc == 0 && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        if (!f->state)
            continue;
        rc = place_from(e, i, 0, f->first_src[0], r0, r1, q0, q1);
        if (rc == 0 && f->levels == 2)
            rc = place_from(e, i, 1, f->first_src[1], r0, r1, q0, q1);
        if (rc == 0)
            copy_box(e, f->ring[1], f->ring[0], r0, r1, q0, q1);
        for (int a = 0; rc == 0 && a < f->narr; a++)
            rc = io_box(e, 1, inplace(f, a), f->ring[a], r0, r1, q0, q1, q0, &g);
    }
    int rc2 = stn_aio_wait(e->q, &g, &e->r->st);
    return rc ? rc : rc2;
}

static int import_state_alg2(ooc *e) { return for_chunks(e, import_alg2_chunk, NULL); }

typedef struct export_job {
    int f, level, src;
    stn_npy_writer *w;
} export_job;

static int export_chunk(ooc *e, void *arg) {
    export_job *x = arg;
    ooc_field *of = &e->f[x->f];
    const stn_view *g = &e->r->view;
    int64_t r0 = e->wr0, r1 = e->wr1, q0 = e->qlo, q1 = e->qhi;
    char *ring = of->ring[0];
    int rc = 0;
    double t0 = stn_now();
    if (x->src == SRC_SCRATCH) {
        stn_gridfile *gf = !of->state ? &of->scratch[0][0]
                           : e->alg2  ? inplace(of, arr_index(of, e->plan.steps - x->level))
                                      : &of->scratch[e->plan.nsweeps % 2][x->level];
        stn_aio_group grp = STN_AIO_GROUP_INIT;
        rc = io_box(e, 0, gf, ring, r0, r1, q0, q1, q0, &grp);
        int rc2 = stn_aio_wait(e->q, &grp, &e->r->st);
        rc = rc ? rc : rc2;
    } else if (x->src == SRC_NPY) {
        rc = npy_box(e, x->f, x->level, ring, r0, r1, q0, q1);
    } else if (x->src == SRC_INIT) {
        stn_view v = window_view(e);
        stn_box b = tile_box(e, r0, r1, q0, q1);
        e->d->init(x->f, x->level, win(e, of, 0), &v, e->r->o->params, &b);
        stn_stats_add_time(&e->r->st, STN_PHASE_INIT, t0);
    } else {
        copy_box(e, ring, NULL, r0, r1, q0, q1);
    }
    if (rc)
        return rc;
    if (of->state && of->boundary == STN_BC_NEUMANN) {
        stn_view v = window_view(e);
        stn_box b = tile_box(e, r0, r1, q0, q1);
        t0 = stn_now();
        e->d->boundary(x->f, &v, win(e, of, 0), win(e, of, 0), &b);
        stn_stats_add_time(&e->r->st, STN_PHASE_COMPUTE, t0);
    }
    /* compact each run's padded rows in place (each row moves down or stays) and write it */
    size_t rowb = (size_t)g->nx * (size_t)e->d->elem_size;
    for (int64_t i = 0; i < nruns(e, q0, q1); i++) {
        rows_run run = get_run(e, ring, r0, r1, q0, i);
        t0 = stn_now();
        for (int64_t k = 1; k < run.rows; k++)
            memmove(run.buf + (size_t)k * rowb, run.buf + (size_t)k * (size_t)e->plan.row_bytes, rowb);
        stn_stats_add_time(&e->r->st, STN_PHASE_COPY, t0);
        rc = stn_npy_writer_pwrite(x->w, run.buf, (size_t)run.rows * rowb, run.row0 * rowb, &e->r->st);
        if (rc)
            return rc;
    }
    return 0;
}

static int export_outputs(ooc *e) {
    for (int s = 0; s < 2 * e->d->nfields; s++) {
        if (!e->r->writers[s])
            continue;
        export_job x = {s / 2, s % 2, source_of(e, s / 2, s % 2, e->plan.nsweeps), e->r->writers[s]};
        if (x.src == SRC_COPY) /* steps = 0 and no previous level of its own: it is the current one */
            x.level = 0, x.src = source_of(e, x.f, 0, e->plan.nsweeps);
        int rc = for_chunks(e, export_chunk, &x);
        if (rc)
            return stn_error(rc, "--out %s%s=%s: %s", e->d->fields[s / 2].name, s % 2 ? ".prev" : "",
                             e->r->o->out_path[s], stn_errmsg());
    }
    return 0;
}

/* ------------------------------------------------------------------ the state file (--resume) */

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 1099511628211ull;
    return h;
}

/* Everything that decides the content of the scratch files: a resumed run must match it. */
static uint64_t fingerprint(const ooc *e) {
    const stn_opts *o = e->r->o;
    uint64_t h = 14695981039346656037ull;
    h = fnv(h, e->d->name, strlen(e->d->name));
    h = fnv(h, o->size, sizeof o->size);
    h = fnv(h, &o->steps, sizeof o->steps);
    h = fnv(h, &e->plan.r.b, sizeof e->plan.r.b);
    h = fnv(h, &e->plan.q.b, sizeof e->plan.q.b);
    h = fnv(h, &e->plan.strip, sizeof e->plan.strip);
    h = fnv(h, &e->plan.bt, sizeof e->plan.bt);
    h = fnv(h, &e->plan.row_bytes, sizeof e->plan.row_bytes);
    h = fnv(h, o->params, sizeof(double) * (size_t)e->d->nparams);
    for (int s = 0; s < 2 * e->d->nfields; s++) {
        const char *p = o->init_path[s];
        struct stat sb;
        if (p && stat(p, &sb) == 0) {
            h = fnv(h, p, strlen(p));
            h = fnv(h, &sb.st_size, sizeof sb.st_size);
            h = fnv(h, &sb.st_mtim, sizeof sb.st_mtim);
        }
    }
    return h;
}

static int save_state(ooc *e, int64_t sweeps_done) {
    char text[256];
    int n = snprintf(text, sizeof text,
                     "stencilc-ooc-state 1\nfingerprint %016" PRIx64 "\nsweeps_done %" PRId64 "\n",
                     fingerprint(e), sweeps_done);
    stn_afile af;
    int rc = stn_afile_open(&af, e->state_path, 0);
    if (rc == 0) {
        rc = stn_afile_write(&af, text, (size_t)n);
        rc = rc ? (stn_afile_abort(&af), rc) : stn_afile_commit(&af);
    }
    return rc ? stn_error(rc, "cannot save the run's state '%s': %s", e->state_path, stn_errmsg()) : 0;
}

/* The number of sweeps a previous run completed, or -1 if there is nothing to resume. */
static int load_state(ooc *e, int64_t *done) {
    *done = -1;
    FILE *fp = fopen(e->state_path, "r");
    if (!fp)
        return 0;
    uint64_t fp_hash = 0;
    long long n = -1;
    int ok = fscanf(fp, "stencilc-ooc-state 1\nfingerprint %" SCNx64 "\nsweeps_done %lld", &fp_hash, &n) == 2;
    fclose(fp);
    if (!ok || n < 0)
        return stn_error(-EINVAL, "--resume: '%s' is not a state file this program wrote", e->state_path);
    if (fp_hash != fingerprint(e))
        return stn_error(
            -EINVAL,
            "--resume: the run saved in '%s' had other parameters (size, steps, block, params or "
            "--init files differ); run without --resume to start over",
            e->state_path);
    *done = n;
    return 0;
}

/* ------------------------------------------------------------------ choosing the plan */

static int sched_of(const stn_run *r) { return r->o->schedule < 0 ? STN_SCHED_REF : r->o->schedule; }

/* The smallest plan there is (for the message when nothing fits): 1 x 1 tiles with the strip
 * spilled (unless --strip dram), or one slice where only whole planes are allowed; bt = 1. */
static void smallest_plan(ooc *e, size_t align, stn_ooc_plan *p) {
    const stn_run *r = e->r;
    int yb = r->d->ndim == 3 && sched_of(r) == STN_SCHED_REF;
    int strip = !yb ? STN_STRIP_NONE : r->o->strip == STN_STRIP_DRAM ? STN_STRIP_DRAM : STN_STRIP_FILE;
    int64_t by = yb || r->d->ndim == 2 ? 1 : r->o->size[1];
    stn_ooc_make_plan(e->d, r->o->size, r->o->steps, sched_of(r), by, 1, 1, strip, align, p);
}

/* ------------------------------------------------------------------ Blk-Tune */

/* The cost of a plan: every byte predict() says the run moves, the same function the report
 * sets against the counters, so the tuner minimises exactly what the engine will do. */
static uint64_t plan_cost(ooc *e, const stn_ooc_plan *p) {
    stn_ooc_plan keep = e->plan;
    uint64_t rd, wr;
    e->plan = *p;
    predict(e, 0, &rd, &wr);
    e->plan = keep;
    return rd + wr;
}

typedef struct tune_best {
    stn_ooc_plan p;
    uint64_t cost;
    int ok;
    int64_t weighed; /* plans evaluated */
} tune_best;

/* Keep p if it fits and beats the best so far: fewer bytes; then whole planes over y-blocked
 * tiles (which copy their z-strip out and back at every row: DRAM traffic the flash bytes do
 * not show, measured in docs/design/004-blk-tune.md); then less DRAM (the paper's step 3: leave
 * the most room to the system). */
static void consider(ooc *e, tune_best *b, const stn_ooc_plan *p) {
    b->weighed++;
    if (p->mem_bytes > e->r->mem_budget)
        return;
    uint64_t c = plan_cost(e, p);
    int tiles = p->strip != STN_STRIP_NONE, best_tiles = b->p.strip != STN_STRIP_NONE;
    if (!b->ok || c < b->cost ||
        (c == b->cost && (tiles < best_tiles || (tiles == best_tiles && p->mem_bytes < b->p.mem_bytes))))
        b->p = *p, b->cost = c, b->ok = 1;
}

typedef struct tune_space {
    ooc *e;
    size_t align;
    int64_t by_min; /* the shortest y-range weighed (see tune_limits) */
    int64_t depth;  /* the depth of one thread's tile of the iBlock (iz / Nc; iy / Nc in 2d): the
                     * searched block (bz in 3d, by in 2d) is a multiple of it, so that every
                     * kernel call gives each thread whole tiles (paper eq. 2, constraints a-b),
                     * unless class_unit has to halve it */
} tune_space;

/* The searched block of `m` units, clipped to the span (one block: anything wider is the same). */
static int64_t space_b(int64_t unit, int64_t m, int64_t span) {
    int64_t b = m * unit;
    return b < span ? b : span;
}

static void space_plan(const tune_space *t, int strip, int64_t b, int64_t bt, stn_ooc_plan *p);

/* The unit for one placement of the strip and one bt: the tile depth, halved until the thinnest
 * block of that kind fits.  Each (kind, bt) relaxes on its own: thin whole planes that allow one
 * sweep beat whole tiles that need two (docs/design/004-blk-tune.md). */
static int64_t class_unit(const tune_space *t, int strip, int64_t bt) {
    const stn_run *r = t->e->r;
    int64_t bmin = strip == STN_STRIP_NONE && r->d->ndim == 2 ? t->by_min : 1, unit = t->depth;
    for (; unit > 1; unit /= 2) {
        stn_ooc_plan p;
        space_plan(t, strip, (bmin + unit - 1) / unit * unit, bt, &p);
        if (p.mem_bytes <= r->mem_budget)
            break;
    }
    return unit;
}

/* strip NONE: whole planes, b = bz (3d) or by (2d); else y-blocked tiles of by_min x b. */
static void space_plan(const tune_space *t, int strip, int64_t b, int64_t bt, stn_ooc_plan *p) {
    const stn_run *r = t->e->r;
    int64_t by = strip == STN_STRIP_NONE ? (r->d->ndim == 3 ? r->o->size[1] : b) : t->by_min;
    stn_ooc_make_plan(t->e->d, r->o->size, r->o->steps, sched_of(r), by, b, bt, strip, t->align, p);
}

/* y-ranges shorter than an efficient IO request are not weighed (unless nothing else fits): the
 * byte count cannot see their overhead.  by is also a multiple of the iBlock's iy (eq. 2, b). */
static void tune_limits(tune_space *t) {
    const stn_run *r = t->e->r;
    int64_t row = stn_grid_row_bytes(r->o->size[0], r->d->elem_size, t->align);
    int64_t ny = r->o->size[1], iy = r->iblk[0] > 0 ? r->iblk[0] : 1;
    t->by_min = (STN_TUNE_MIN_REQUEST + row - 1) / row;
    if (r->d->ndim == 3)
        t->by_min = (t->by_min + iy - 1) / iy * iy;
    t->by_min = t->by_min < 1 ? 1 : t->by_min >= ny ? ny : t->by_min;
}

/* The next balanced bt: for each sweep count S, the smallest bt giving S sweeps (step 3). */
static int64_t next_bt(int64_t steps, int64_t bt) {
    int64_t S = (steps + bt - 1) / bt; /* sweeps with this bt */
    if (S <= 1)
        return 0;
    S--; /* one sweep fewer: the smallest bt that gives it */
    return (steps + S - 1) / S;
}

/* The global minimum over (by, bz, bt, strip).  Memory grows with every block dimension and bt,
 * and the bytes fall (or stay) as the block along the sweep's rows grows, so for each balanced
 * bt and strip choice the widest block that fits gives the least traffic, and the smallest block
 * with that same traffic the least DRAM (two binary searches); by changes only the DRAM of a
 * y-blocked plan, so by_min is the tie's answer.  O(sqrt(steps) x log(n)) plans: well under a
 * second for any grid.  stn_tune_brute checks it against every combination. */
static int tune_blk(tune_space *t, tune_best *b) {
    const stn_run *r = t->e->r;
    int64_t steps = r->o->steps < 1 ? 1 : r->o->steps;
    for (int strip = STN_STRIP_NONE; strip <= STN_STRIP_FILE; strip++) {
        if (strip != STN_STRIP_NONE &&
            (r->d->ndim != 3 || sched_of(r) != STN_SCHED_REF || t->by_min >= r->o->size[1]))
            break;
        if (strip != STN_STRIP_NONE && r->o->strip >= 0 && r->o->strip != strip)
            continue;
        /* ref: the bytes depend on the sweep count alone (the strip's grow linearly with T), so the
         * balanced bt of each count is the cheapest in DRAM; alg1 and alg2 re-read a window that
         * grows with T, and an unbalanced division can move less (paper, fig. 18): every bt */
        int every = sched_of(r) != STN_SCHED_REF;
        int64_t bmin = strip == STN_STRIP_NONE && r->d->ndim == 2 ? t->by_min : 1; /* 2d: rows */
        for (int64_t bt = 1; bt > 0 && bt <= steps; bt = every ? bt + 1 : next_bt(steps, bt)) {
            int64_t unit = class_unit(t, strip, bt), mmin = (bmin + unit - 1) / unit;
            stn_ooc_plan p;
            space_plan(t, strip, 1, bt, &p);
            int64_t span = (strip == STN_STRIP_NONE ? p.r.H - p.r.L : p.q.H - p.q.L);
            span = span > bmin ? span : bmin;
            space_plan(t, strip, space_b(unit, mmin, span), bt, &p);
            b->weighed++;
            if (p.mem_bytes > r->mem_budget)
                break; /* larger bt needs more */
            int64_t lo = mmin, hi = max64(mmin, (span + unit - 1) / unit);
            while (lo < hi) { /* the widest block that fits */
                int64_t mid = lo + (hi - lo + 1) / 2;
                space_plan(t, strip, space_b(unit, mid, span), bt, &p);
                b->weighed++;
                if (p.mem_bytes <= r->mem_budget)
                    lo = mid;
                else
                    hi = mid - 1;
            }
            space_plan(t, strip, space_b(unit, lo, span), bt, &p);
            uint64_t cmin = plan_cost(t->e, &p);
            int64_t a = mmin, z = lo;
            while (a < z) { /* the smallest block with the same bytes */
                int64_t mid = a + (z - a) / 2;
                space_plan(t, strip, space_b(unit, mid, span), bt, &p);
                b->weighed++;
                if (plan_cost(t->e, &p) <= cmin)
                    z = mid;
                else
                    a = mid + 1;
            }
            space_plan(t, strip, space_b(unit, a, span), bt, &p);
            consider(t->e, b, &p);
        }
    }
    return b->ok ? 0 : -ENOMEM;
}

/* Every feasible combination (by, bz, bt, strip): for checking tune_blk on small grids. */
static int tune_brute(tune_space *t, tune_best *b) {
    const stn_run *r = t->e->r;
    const stn_opts *o = r->o;
    int64_t steps = o->steps < 1 ? 1 : o->steps, ny = o->size[1], nz = r->d->ndim == 3 ? o->size[2] : 1;
    for (int strip = STN_STRIP_NONE; strip <= STN_STRIP_FILE; strip++) {
        if (strip != STN_STRIP_NONE && (r->d->ndim != 3 || sched_of(r) != STN_SCHED_REF))
            break;
        if (strip != STN_STRIP_NONE && o->strip >= 0 && o->strip != strip)
            continue;
        /* whole planes: by = ny (3d) or every row block (2d); y-blocked: every by < ny */
        int64_t bymax = strip == STN_STRIP_NONE ? ny : ny - 1, iy = r->iblk[0] > 0 ? r->iblk[0] : 1;
        for (int64_t bt = 1; bt <= steps; bt++) {
            int64_t unit = class_unit(t, strip, bt);
            int64_t ystep = r->d->ndim == 2 ? unit : iy, zstep = r->d->ndim == 3 ? unit : 1;
            int64_t by0 = strip == STN_STRIP_NONE && r->d->ndim == 3 ? ny
                          : r->d->ndim == 2                          ? (t->by_min + ystep - 1) / ystep * ystep
                                                                     : t->by_min;
            for (int64_t by = by0; by <= bymax; by += ystep)
                for (int64_t bz = zstep; bz < nz + zstep; bz += zstep) {
                    stn_ooc_plan p;
                    stn_ooc_make_plan(r->d, o->size, o->steps, sched_of(r), by, bz, bt, strip, t->align, &p);
                    consider(t->e, b, &p);
                }
        }
    }
    return b->ok ? 0 : -ENOMEM;
}

/* The paper's Naive-Tune (section VI.B) for a DRAM capacity `budget`: by and bz powers of two,
 * equal or one twice the other, as large as the "typical" block volume (eq. 2f') allows; then
 * the largest bt the typical volume (eq. 2g') allows, balanced (step 3). */
static void naive_pick(const tune_space *t, double budget, int64_t *by, int64_t *bz, int64_t *bt) {
    const stn_run *r = t->e->r;
    const stn_opts *o = r->o;
    double esz = (double)r->d->elem_size * (double)stn_total_arrays(r->d), nx = (double)o->size[0];
    int64_t nz = r->d->ndim == 3 ? o->size[2] : 1, steps = o->steps < 1 ? 1 : o->steps;
    double vol = 0;
    *by = *bz = 1;
    for (int64_t z = 1; z <= 2 * nz; z *= 2) /* step 1 */
        for (int k = 0; k < 3; k++) {
            int64_t y = k == 0 ? z : k == 1 ? 2 * z : z / 2;
            if (y < 1 || (r->d->ndim == 2 && z > 1))
                continue;
            double v = (nx + 2) * (double)(y + 2) * (double)(z + 2);
            if (v * esz <= budget && v > vol)
                vol = v, *by = y, *bz = z;
        }
    *bt = 1;
    while (*bt < steps &&
           (nx + 2) * (double)(*by + 2 + *bt + 1) * (double)(*bz + 2 + *bt + 1) * esz <= budget)
        ++*bt; /* step 2 */
    int64_t sweeps = (steps + *bt - 1) / *bt;
    *bt = (steps + sweeps - 1) / sweeps; /* step 3 */
}

/* Naive-Tune sizes blocks by typical volumes, not by the engine's real buffers: where its choice
 * does not fit after all, it is run again for a 10% smaller DRAM capacity, until it does. */
static int tune_naive(tune_space *t, tune_best *b) {
    const stn_run *r = t->e->r;
    const stn_opts *o = r->o;
    int64_t ny = o->size[1];
    for (double budget = (double)r->mem_budget; budget >= 1.0; budget *= 0.9) {
        int64_t by, bz, bt;
        naive_pick(t, budget, &by, &bz, &bt);
        if (r->d->ndim == 3)
            by = by >= ny ? ny : by;
        int strip = r->d->ndim == 3 && by < ny ? STN_STRIP_DRAM : STN_STRIP_NONE;
        if (strip != STN_STRIP_NONE && sched_of(r) != STN_SCHED_REF)
            by = ny, strip = STN_STRIP_NONE;
        stn_ooc_plan p;
        stn_ooc_make_plan(r->d, o->size, o->steps, sched_of(r), by, r->d->ndim == 3 ? bz : by, bt, strip,
                          t->align, &p);
        if (p.mem_bytes > r->mem_budget && strip == STN_STRIP_DRAM)
            stn_ooc_make_plan(r->d, o->size, o->steps, sched_of(r), by, bz, bt, STN_STRIP_FILE, t->align, &p);
        b->weighed++;
        if (p.mem_bytes <= r->mem_budget) {
            b->p = p, b->cost = plan_cost(t->e, &p), b->ok = 1;
            return 0;
        }
        if (by == 1 && bz == 1 && bt == 1)
            break;
    }
    return -ENOMEM;
}

static int tune(ooc *e, size_t align) {
    stn_run *r = e->r;
    tune_space t = {e, align, 1, e->tile[r->d->ndim == 3 ? 1 : 0]};
    tune_limits(&t);
    double t0 = stn_now();
    int tuner = r->o->tuner < 0 ? STN_TUNER_BLK : r->o->tuner;
    int (*fn)(tune_space *, tune_best *) = tuner == STN_TUNER_NAIVE   ? tune_naive
                                           : tuner == STN_TUNER_BRUTE ? tune_brute
                                                                      : tune_blk;
    int64_t weighed = 0;
    tune_best b;
    int rc;
    for (;;) { /* nothing fits with efficient requests: allow shorter ones */
        memset(&b, 0, sizeof b);
        rc = fn(&t, &b);
        weighed += b.weighed;
        if (rc != -ENOMEM || t.by_min == 1)
            break;
        t.by_min = 1;
    }
    b.weighed = weighed;
    const stn_ooc_dim *g = b.p.strip != STN_STRIP_NONE ? &b.p.q : &b.p.r; /* the searched block */
    if (rc == 0 && tuner != STN_TUNER_NAIVE && g->b % t.depth && g->b < g->H - g->L)
        snprintf(r->iblk_source + strlen(r->iblk_source), sizeof r->iblk_source - strlen(r->iblk_source),
                 "; the budget fits no block of whole tiles: blocks of %" PRId64, g->b);
    if (rc == 0) {
        e->plan = b.p;
        e->r->tune_cost = b.cost;
        e->r->tune_weighed = b.weighed;
        e->r->tune_seconds = stn_now() - t0;
    }
    return rc;
}

static int choose_plan(ooc *e, size_t align) {
    stn_run *r = e->r;
    const stn_opts *o = r->o;
    char need[32], have[32];
    stn_iblock_choose(r, e->tile);
    const stn_tuned_desc *tu = r->d->tuned;
    if (stn_tuned_wanted(r)) {
        if (!stn_tuned_applies(r)) {
            stn_warn(r,
                     "the built-in blocks were tuned offline for %s with --size %" PRId64 ",%" PRId64
                     ",%" PRId64 " --schedule %s; this run differs, so Blk-Tune chooses its blocks now",
                     tu->machine, tu->size[0], tu->size[1], tu->size[2], tu->schedule);
        } else {
            int strip = strcmp(tu->strip, "file") == 0 ? STN_STRIP_FILE : STN_STRIP_DRAM;
            stn_ooc_make_plan(r->d, o->size, o->steps, sched_of(r), tu->block[0], tu->block[1], tu->block[2],
                              strip, align, &e->plan);
            if (e->plan.mem_bytes <= r->mem_budget) {
                r->chooser = "built-in";
                return 0;
            }
            stn_warn(
                r,
                "the built-in blocks (tuned offline for %s) need %s of DRAM, more than the budget of %s; "
                "Blk-Tune chooses its blocks now",
                tu->machine, stn_fmt_bytes(need, sizeof need, e->plan.mem_bytes),
                stn_fmt_bytes(have, sizeof have, r->mem_budget));
            r->tuned_off = 1;
            stn_iblock_choose(r, e->tile); /* eq. 1a for this machine, then */
        }
    }
    r->chooser = o->have_block ? "manual" : stn_tuner_names[o->tuner < 0 ? STN_TUNER_BLK : o->tuner];
    if (o->have_block) {
        int yb = r->d->ndim == 3 && o->block[0] < o->size[1];
        if (yb && sched_of(r) != STN_SCHED_REF)
            return stn_error(-EINVAL,
                             "--block %" PRId64 ",%" PRId64 ",%" PRId64
                             ": --schedule %s blocks whole planes (the paper's algorithms block z only): "
                             "by must be ny = %" PRId64 "; y-blocking needs the default schedule (ref)",
                             o->block[0], o->block[1], o->block[2], stn_schedule_names[sched_of(r)],
                             o->size[1]);
        int strip = o->strip >= 0 ? o->strip : STN_STRIP_DRAM;
        stn_ooc_make_plan(r->d, o->size, o->steps, sched_of(r), o->block[0], o->block[1], o->block[2], strip,
                          align, &e->plan);
        if (yb && o->strip < 0 && e->plan.mem_bytes > r->mem_budget) /* the strip does not fit: spill it */
            stn_ooc_make_plan(r->d, o->size, o->steps, sched_of(r), o->block[0], o->block[1], o->block[2],
                              STN_STRIP_FILE, align, &e->plan);
        if (e->plan.mem_bytes <= r->mem_budget)
            return 0;
    } else if (tune(e, align) == 0) {
        return 0;
    }
    stn_ooc_plan smallest;
    smallest_plan(e, align, &smallest);
    stn_fmt_bytes(have, sizeof have, r->mem_budget);
    if (o->have_block && smallest.mem_bytes <= r->mem_budget)
        return stn_error(-ENOMEM, "--block: these blocks need %s of DRAM, more than the budget of %s (%s)",
                         stn_fmt_bytes(need, sizeof need, e->plan.mem_bytes), have, r->mem_source);
    return stn_error(-ENOMEM,
                     "the DRAM budget of %s (%s) is too small: the smallest block (%s, bt = 1) needs %s; "
                     "give --mem %" PRIu64 " or more",
                     have, r->mem_source, smallest.strip != STN_STRIP_NONE ? "1 x 1 rows" : "1 slice",
                     stn_fmt_bytes(need, sizeof need, smallest.mem_bytes), smallest.mem_bytes);
}

/* ------------------------------------------------------------------ setup and teardown */

static int open_npy(ooc *e, int f, int level, const char *path) {
    ooc_field *of = &e->f[f];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return stn_error(stn_neg_errno(errno), "cannot open '%s': %s", path, strerror(errno));
    stn_npy_header h;
    int rc = stn_npy_read_header(path, fd, &h);
    if (rc) {
        close(fd);
        return rc;
    }
    of->npy[level] = path;
    of->npy_fd[level] = fd;
    of->npy_offset[level] = h.data_offset;
    return 0;
}

static int classify_sources(ooc *e) {
    const stn_program_desc *d = e->d;
    const stn_opts *o = e->r->o;
    for (int i = 0; i < d->nfields; i++) {
        const stn_field_desc *fd = &d->fields[i];
        ooc_field *f = &e->f[i];
        f->npy_fd[0] = f->npy_fd[1] = -1;
        f->state = fd->kind == STN_FIELD_STATE;
        f->levels = f->state ? fd->levels : 1;
        f->narr = f->state ? fd->levels + 1 : 1;
        f->boundary = fd->boundary;
        for (int l = 0; l < f->levels; l++) {
            const char *path = o->init_path[2 * i + l];
            int has = l == 0 ? fd->has_init : fd->has_prev_init;
            int src = path ? SRC_NPY : has ? SRC_INIT : l == 0 ? SRC_ZERO : SRC_COPY;
            if (path) {
                int rc = open_npy(e, i, l, path);
                if (rc)
                    return stn_error(rc, "--init %s%s=%s: %s", fd->name, l ? ".prev" : "", path,
                                     stn_errmsg());
            }
            f->first_src[l] = src;
        }
        if (!f->state)
            f->input_src = f->first_src[0] == SRC_NPY ? SRC_SCRATCH : f->first_src[0];
    }
    return 0;
}

static int check_space(ooc *e, int resuming) {
    uint64_t need = 0, avail = 0, file = e->plan.grid_bytes;
    uint64_t spill =
        e->plan.strip == STN_STRIP_FILE
            ? (uint64_t)e->plan.strip_planes * (uint64_t)e->r->view.ny * (uint64_t)e->plan.row_bytes
            : 0;
    for (int i = 0; i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        uint64_t arrays = e->alg2 ? (uint64_t)f->narr : 2 * (uint64_t)f->levels;
        need += f->state ? arrays * file : f->input_src == SRC_SCRATCH ? file : 0;
        need += (uint64_t)f->narr * spill;
    }
    if (resuming || need == 0)
        return 0; /* the files exist already */
    int rc = stn_statvfs_free(e->r->o->dir, &avail);
    if (rc)
        return rc;
    if (need > avail) {
        char a[32], b[32];
        return stn_error(-ENOSPC, "--dir %s: the scratch files need %s, but only %s is free there",
                         e->r->o->dir, stn_fmt_bytes(a, sizeof a, need), stn_fmt_bytes(b, sizeof b, avail));
    }
    return 0;
}

static int open_scratch(ooc *e, int resuming) {
    const stn_view *g = &e->r->view;
    char path[4096];
    for (int i = 0; i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        int narrays = !f->state ? (f->input_src == SRC_SCRATCH) : e->alg2 ? f->narr : 2 * f->levels;
        for (int a = 0; a < narrays; a++) {
            /* ref: set a / levels, level a % levels; alg2 and inputs: array a = 2 * set + level */
            int ref = f->state && !e->alg2;
            int set = ref ? a / f->levels : a / 2, l = ref ? a % f->levels : a % 2;
            scratch_name(path, sizeof path, e, i, set, l);
            int rc = stn_gridfile_open(&f->scratch[set][l], path, g->nx, g->ny, g->nz, e->d->elem_size,
                                       e->plan.align, resuming ? 0 : STN_GRIDFILE_CREATE);
            if (rc)
                return rc;
            if (!f->scratch[set][l].direct && !e->direct_warned) {
                e->direct_warned = 1;
                stn_warn(e->r,
                         "the file system under --dir %s refuses O_DIRECT; scratch IO goes through "
                         "the page cache (buffered), which competes with the DRAM budget",
                         e->r->o->dir);
            }
        }
    }
    return 0;
}

/* y-blocked with the z-strip spilled: one scratch file per array, strip_planes planes of ny
 * rows, unlinked at once (its content lives only within a sweep). */
static int open_spill(ooc *e) {
    const stn_view *g = &e->r->view;
    char path[4096];
    for (int i = 0; e->plan.strip == STN_STRIP_FILE && e->plan.strip_planes > 0 && i < e->d->nfields; i++)
        for (int a = 0; a < e->f[i].narr; a++) {
            snprintf(path, sizeof path, "%s/%s.%s.strip%d.grid", e->r->o->dir, e->d->name,
                     e->d->fields[i].name, a);
            int rc = stn_gridfile_open(&e->f[i].spill[a], path, g->nx, g->ny, e->plan.strip_planes,
                                       e->d->elem_size, e->plan.align, STN_GRIDFILE_CREATE);
            if (rc)
                return rc;
            unlink(path);
        }
    return 0;
}

static int alloc_buffers(ooc *e) {
    const stn_ooc_plan *p = &e->plan;
    size_t bytes = (size_t)p->ring_slices * p->slice_bytes;
    size_t strip = (size_t)p->strip_planes * (size_t)e->r->view.ny * (size_t)p->row_bytes;
    e->qstride = p->strip != STN_STRIP_NONE ? 2 * (int64_t)bytes : e->d->ndim == 3 ? p->row_bytes : 0;
    for (int i = 0; i < e->d->nfields; i++)
        for (int a = 0; a < e->f[i].narr; a++) {
            if (!(e->f[i].ring[a] = stn_ring_alloc(bytes, p->qplanes)))
                return -ENOMEM;
            if (p->strip == STN_STRIP_DRAM && strip > 0 && !(e->f[i].strip[a] = stn_alloc(strip, 4096)))
                return -ENOMEM;
        }
    return 0;
}

static void remove_scratch(ooc *e) {
    for (int i = 0; i < e->d->nfields; i++)
        for (int set = 0; set < 2; set++)
            for (int l = 0; l < 2; l++)
                if (e->f[i].scratch[set][l].path)
                    unlink(e->f[i].scratch[set][l].path);
    unlink(e->state_path);
}

static void ooc_free(ooc *e) {
    if (e->q)
        stn_aio_destroy(e->q);
    for (int i = 0; e->f && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        for (int a = 0; a < 3; a++) {
            stn_ring_free(f->ring[a], (size_t)e->plan.ring_slices * e->plan.slice_bytes, e->plan.qplanes);
            stn_free(f->strip[a]);
            stn_gridfile_close(&f->spill[a]);
        }
        for (int l = 0; l < 2; l++) {
            if (f->npy_fd[l] >= 0)
                close(f->npy_fd[l]);
            for (int set = 0; set < 2; set++)
                stn_gridfile_close(&f->scratch[set][l]);
        }
    }
    free(e->f);
    free(e->src);
    free(e->dst);
}

/* ------------------------------------------------------------------ entry */

/* --plan-only: the plan and what it will move, on one line. */
static void print_plan(const ooc *e) {
    const stn_run *r = e->r;
    char mem[32];
    printf("by %" PRId64 " bz %" PRId64 " bt %" PRId64 " strip %s tuner %s predicted_bytes_read %" PRIu64
           " predicted_bytes_written %" PRIu64 " mem_plan_bytes %" PRIu64 " (%s) mem_budget_bytes %" PRIu64
           "\n",
           r->blk[0], r->blk[1], r->blk[2], r->strip, r->chooser, r->predicted_read, r->predicted_written,
           e->plan.mem_bytes, stn_fmt_bytes(mem, sizeof mem, e->plan.mem_bytes), r->mem_budget);
}

static int ooc_setup(ooc *e, int64_t *first_sweep) {
    stn_run *r = e->r;
    size_t align = 0;
    e->alg2 = r->o->schedule == STN_SCHED_ALG2;
    if (e->alg2 && r->o->resume)
        return stn_error(-EINVAL,
                         "--resume: --schedule alg2 updates its files in place (the paper's algorithm 2), "
                         "so an interrupted run cannot be resumed; use the default schedule (ref) for that");
    int rc = 0;
    stn_hw_fig *block = &r->hw.block; /* --machine: its device_block, and no directory is touched */
    if (!r->hw.described) {
        struct stat sb;
        if (stat(r->o->dir, &sb) != 0)
            return stn_error(stn_neg_errno(errno), "--dir %s: %s (the scratch files of --mode ooc go there)",
                             r->o->dir, errno == ENOENT ? "no such directory" : strerror(errno));
        if (!S_ISDIR(sb.st_mode))
            return stn_error(-ENOTDIR, "--dir %s: not a directory", r->o->dir);
        rc = stn_dio_alignment(r->o->dir, &align, block->source, sizeof block->source);
        block->value = rc == 0 ? align : 0;
    }
    align = (size_t)block->value;
    if (rc == 0)
        rc = classify_sources(e);
    if (rc == 0)
        rc = choose_plan(e, align);
    if (rc)
        return rc;
    r->have_plan = 1;
    r->blk[0] = e->plan.r.axis == 1 ? e->plan.r.b : r->o->size[1];
    r->blk[1] = r->d->ndim == 2 ? -1 : e->plan.r.axis == 2 ? e->plan.r.b : e->plan.q.b;
    r->strip = stn_strip_names[e->plan.strip];
    r->blk[2] = e->plan.bt;
    snprintf(e->state_path, sizeof e->state_path, "%s/%s.ooc-state", r->o->dir, e->d->name);
    *first_sweep = 0;
    if (r->o->resume) {
        int64_t done;
        rc = load_state(e, &done);
        if (rc)
            return rc;
        if (done < 0)
            stn_warn(r, "--resume: no completed sweep saved in %s; starting from the beginning", r->o->dir);
        *first_sweep = done < 0 ? 0 : done;
    } else {
        unlink(e->state_path); /* a stale state must never be trusted by a later --resume */
    }
    int resuming = *first_sweep > 0;
    predict(e, *first_sweep, &r->predicted_read, &r->predicted_written);
    if (r->o->plan_only)
        return 0; /* no queue, no file: stn_ooc_run prints the plan */
    rc = stn_aio_create(&e->q, STN_AIO_DEFAULT_DEPTH, STN_AIO_DEFAULT_MAX_REQUEST);
    if (rc == 0 && e->plan.nsweeps > 0)
        rc = check_space(e, resuming);
    if (rc == 0 && e->plan.nsweeps > 0)
        rc = open_scratch(e, resuming);
    if (rc == 0 && e->plan.nsweeps > 0)
        rc = open_spill(e);
    if (rc == 0 && (rc = alloc_buffers(e)) != 0) {
        char a[32];
        rc = stn_error(rc, "cannot allocate the out-of-core buffers (%s)",
                       stn_fmt_bytes(a, sizeof a, e->plan.mem_bytes));
    }
    return rc;
}

int stn_ooc_run(stn_run *r) {
    ooc e;
    memset(&e, 0, sizeof e);
    e.r = r;
    e.d = r->d;
    int rc = stn_engine_arrays(r->d, sizeof *e.f, (void **)&e.f, &e.src, &e.dst, "out-of-core");
    if (rc != 0) {
        ooc_free(&e);
        return rc;
    }
    for (int i = 0; i < r->d->nfields; i++)
        e.f[i].npy_fd[0] = e.f[i].npy_fd[1] = -1;
    int64_t first = 0;
    rc = ooc_setup(&e, &first);
    if (rc == 0 && r->o->plan_only) {
        print_plan(&e);
        r->mem_plan_bytes = e.plan.mem_bytes;
        ooc_free(&e);
        return 0;
    }
    stn_progress prog;
    stn_progress_start(&prog, r->d->name, r->o->steps, (double)stn_grid_cells(r->o), r->o->quiet);
    double t0 = stn_now();
    if (rc == 0 && first == 0 && e.plan.nsweeps > 0)
        rc = import_inputs(&e);
    if (rc == 0 && e.alg2 && e.plan.nsweeps > 0)
        rc = import_state_alg2(&e);
    for (int64_t s = first; rc == 0 && s < e.plan.nsweeps; s++) {
        int64_t T = sweep_steps(&e.plan, s);
        e.lvl0 = e.alg2 ? s * e.plan.bt : 0;
        e.prog = &prog;
        e.steps_before = s * e.plan.bt;
        rc = run_sweep(&e, s, T);
        if (rc == 0 && !e.alg2) /* alg2 updates its files in place: there is no state to resume */
            rc = save_state(&e, s + 1);
        uint64_t pss = stn_pss_bytes(); /* the rings are fully touched by now */
        if (pss > r->peak_pss)
            r->peak_pss = pss;
        stn_progress_step(&prog, s * e.plan.bt + T);
    }
    r->loop_seconds = stn_now() - t0;
    stn_progress_end(&prog);
    if (rc == 0)
        rc = export_outputs(&e);
    if (rc == 0)
        remove_scratch(&e);
    r->engine_bytes = stn_peak_allocated_bytes();
    r->mem_plan_bytes = e.plan.mem_bytes;
    ooc_free(&e);
    return rc;
}
