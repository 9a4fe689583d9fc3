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
 * Blocking (this increment): blocks are ranges of the outermost dimension (z in 3d, y in 2d),
 * each `bz` slices wide (a slice is a whole plane in 3d, a row in 2d), with all of the inner
 * dimensions.  Blocks are skewed so that no point is computed twice.  With s = max(h-, h+) of
 * the outer dimension, block k computes step t (1..T) on [A(k,t), A(k+1,t)), where
 * A(k,t) = clamp(Z_k - (t-1)s, L, H) for inner split points Z_k, A(0,t) = L (the interior's lower
 * edge) and A(K,t) = H.  Each state field keeps levels+1 arrays in the DRAM window, indexed by
 * level modulo levels+1.  Every level a block reads is therefore still there, as out-of-core.md
 * argues.  The window is a double-mapped ring (ring.c): slice z lives at z mod C, and the slices
 * the next block shares with this one simply stay (forwarding); only new slices are read, each
 * exactly once per sweep, and each slice's final level is written exactly once per sweep.  So
 * the sweep's traffic is exactly kr + kw arrays of the grid, and the model (predict) is
 * closed-form.
 *
 * Boundaries.  Dirichlet boundary cells are constant for every level >= 0: they are copied into
 * the other arrays when a slice enters the window.  Neumann boundary cells are a function of the
 * interior: before each step the engine mirrors the levels the step reads, over the slices it
 * reads.  The window always holds the mirror sources of any boundary slice it contains; files'
 * neumann boundary cells are not authoritative, and the final export mirrors again.
 *
 * Overlap.  While block k computes, the new slices of block k+1 are read (libaio, O_DIRECT)
 * straight into the ring, and block k-1's output is written straight from it.  The ring and the
 * IO queue are all the engine allocates, and plan_memory counts them against --mem. */
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
} ooc_field;

typedef struct ooc {
    stn_run *r;
    const stn_program_desc *d;
    stn_ooc_plan plan;
    ooc_field *f;
    stn_aio *q;
    stn_aio_group rgroup, wgroup[2];
    int wbuf;             /* write group of the next block (two alternate) */
    int64_t wz0, wz1;     /* slices held in the window */
    int64_t ring_slices;  /* slices per ring: slice z lives at z mod ring_slices */
    int alg2;             /* --schedule alg2: every level array of a state field in place in one file set */
    int64_t lvl0;         /* the global level at the start of this sweep (alg2 indexes arrays by it) */
    int64_t T;            /* steps in this sweep */
    stn_progress *prog;   /* the progress line, advanced after every block */
    int64_t steps_before; /* steps completed by the sweeps before this one */
    const void **src;
    void **dst;
    char state_path[4096];
    int direct_warned;
} ooc;

/* ------------------------------------------------------------------ geometry */

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* A(k, t): the lower edge of block k's region at step t (1-based). */
int64_t stn_ooc_edge(const stn_ooc_plan *p, int64_t k, int64_t t) {
    if (k <= 0)
        return p->L;
    if (k >= p->nblocks)
        return p->H;
    return clamp64(p->L + k * p->bz - (t - 1) * p->skew, p->L, p->H);
}

/* The window of block k in a sweep of T steps: [lo, hi). */
/* Z_k: the split points of the interior (Z_0 = L, Z_K = H). */
static int64_t split(const stn_ooc_plan *p, int64_t k) {
    return k <= 0 ? p->L : k >= p->nblocks ? p->H : p->L + k * p->bz;
}

void stn_ooc_window(const stn_ooc_plan *p, int64_t k, int64_t T, int64_t *lo, int64_t *hi) {
    int64_t a = stn_ooc_edge(p, k, T) - p->hlo, b = stn_ooc_edge(p, k + 1, 1) + p->hhi;
    if (p->schedule == STN_SCHED_ALG1) { /* overlapped halos: T*s slices on each side, all read */
        a = k == 0 ? 0 : split(p, k) - T * p->skew;
        b = k == p->nblocks - 1 ? p->n : split(p, k + 1) + T * p->skew;
    }
    /* hold the mirror sources of any boundary slice the window holds */
    if (a > p->H - p->hhi)
        a = p->H - p->hhi;
    if (b < 2 * p->L)
        b = 2 * p->L;
    *lo = clamp64(a, 0, p->n);
    *hi = clamp64(b, 0, p->n);
}

/* The slices block k owns at step t: its region [A(k,t), A(k+1,t)), plus the boundary slices
 * below L if the region holds L, and those from H up if it holds H-1.  Boundary slices thus
 * follow the skew like the interior: a level is written into them by the same block, at the
 * same step, as into the interior slices next to them, so a rotating array never loses a level
 * a later block still reads (the prev level of a two-level field, with boundary values of its
 * own, is the case that needs it).  At t = T this is also what block k writes out. */
static void owned_range(const stn_ooc_plan *p, int64_t k, int64_t t, int64_t *lo, int64_t *hi) {
    int64_t a = stn_ooc_edge(p, k, t), b = stn_ooc_edge(p, k + 1, t);
    *lo = a == p->L && b > a ? 0 : a;
    *hi = b == p->H && b > a ? p->n : b;
}

/* What block k computes at step t of a sweep of T steps.  ref and alg2: [A(k,t), A(k+1,t)).
 * alg1: its own slices widened by (T-t)*s on each side, redundantly computed by the neighbours
 * too, so that after T steps its own slices are exact with nothing shared between blocks. */
static void step_region(const stn_ooc_plan *p, int64_t k, int64_t t, int64_t T, int64_t *lo, int64_t *hi) {
    if (p->schedule != STN_SCHED_ALG1) {
        *lo = stn_ooc_edge(p, k, t);
        *hi = stn_ooc_edge(p, k + 1, t);
        return;
    }
    *lo = clamp64(split(p, k) - (T - t) * p->skew, p->L, p->H);
    *hi = clamp64(split(p, k + 1) + (T - t) * p->skew, p->L, p->H);
    if (k == 0)
        *lo = p->L;
    if (k == p->nblocks - 1)
        *hi = p->H;
}

/* The slices block k writes at the end of a sweep: ref, its final region (owned_range); alg1,
 * its own slices [Z_k, Z_k+1); both with the boundary slices at the ends of the grid. */
static void out_range(const stn_ooc_plan *p, int64_t k, int64_t T, int64_t *lo, int64_t *hi) {
    if (p->schedule == STN_SCHED_ALG1) {
        *lo = k == 0 ? 0 : split(p, k);
        *hi = k == p->nblocks - 1 ? p->n : split(p, k + 1);
        return;
    }
    owned_range(p, k, T, lo, hi);
}

/* alg2 writes every array back over all the slices block k changed at any step, [A(k,T),
 * A(k+1,1)), and over the boundary slices at the ends, which the first and last blocks own. */
static void alg2_range(const stn_ooc_plan *p, int64_t k, int64_t T, int64_t *lo, int64_t *hi) {
    *lo = k == 0 ? 0 : stn_ooc_edge(p, k, T);
    *hi = k == p->nblocks - 1 ? p->n : stn_ooc_edge(p, k + 1, 1);
}

/* ------------------------------------------------------------------ the plan and its model */

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* The slices that must be in DRAM at once in a sweep of T steps: while block k computes, its
 * window [lo_k, hi_k), the slices of block k+1 being read, up to hi_{k+1}, and the output of
 * block k-1 being written, from olo_{k-1}.  (Block k-2's writes are waited for before block
 * k+1's reads are issued.)  A ring this long never overwrites a slice still in use. */
static int64_t live_slices(const stn_ooc_plan *p, int64_t T) {
    int64_t need = 0, lo, hi, nlo, nhi, olo = 0, ohi = 0;
    for (int64_t k = 0; k < p->nblocks; k++) {
        stn_ooc_window(p, k, T, &lo, &hi);
        nhi = hi;
        if (k + 1 < p->nblocks)
            stn_ooc_window(p, k + 1, T, &nlo, &nhi);
        int64_t low = k > 0 && olo < lo ? olo : lo;
        need = max64(need, max64(hi, nhi) - low);
        out_range(p, k, T, &olo, &ohi);
    }
    return need;
}

/* Slices per ring: every sweep's live set, and the export's chunk, which must hold the mirror
 * sources of both ends of a short grid at once (min(n, 2*hlo + 2*hhi)); rounded up so that a
 * ring is a whole number of pages. */
static int64_t ring_slices(const stn_ooc_plan *p) {
    int64_t c = live_slices(p, p->bt), ends = 2 * p->hlo + 2 * p->hhi;
    if (p->steps % p->bt)
        c = max64(c, live_slices(p, p->steps % p->bt));
    c = max64(c, ends < p->n ? ends : p->n);
    c = max64(c, 1);
    uint64_t g = p->slice_bytes, per = 4096; /* slices per page-aligned group: 4096 / gcd */
    while (per % 2 == 0 && g % 2 == 0)
        per /= 2, g /= 2;
    return (c + (int64_t)per - 1) / (int64_t)per * (int64_t)per;
}

/* Bytes of DRAM the engine allocates for this plan (the budget constraint): one ring per
 * array (levels + 1 per state field, one per input) and the IO queue. */
static uint64_t plan_memory(const stn_ooc_plan *p, const stn_program_desc *d) {
    uint64_t arrays = 0;
    for (int i = 0; i < d->nfields; i++)
        arrays += d->fields[i].kind == STN_FIELD_STATE ? (uint64_t)d->fields[i].levels + 1 : 1;
    return arrays * (uint64_t)ring_slices(p) * p->slice_bytes + stn_aio_footprint(STN_AIO_DEFAULT_DEPTH);
}

int stn_ooc_make_plan(const stn_program_desc *d, const int64_t size[3], int64_t steps, int schedule,
                      int64_t bz, int64_t bt, size_t align, stn_ooc_plan *p) {
    memset(p, 0, sizeof *p);
    int o = d->ndim - 1; /* the outer dimension */
    p->schedule = schedule < 0 ? STN_SCHED_REF : schedule;
    p->outer = o;
    p->n = size[o];
    p->hlo = d->halo_lo[o];
    p->hhi = d->halo_hi[o];
    p->skew = p->hlo > p->hhi ? p->hlo : p->hhi;
    p->L = p->hlo;
    p->H = p->n - p->hhi;
    p->steps = steps;
    p->bt = bt < 1 ? 1 : bt;
    p->bz = bz < 1 ? 1 : bz;
    p->nblocks = (p->H - p->L + p->bz - 1) / p->bz;
    if (p->nblocks < 1)
        p->nblocks = 1;
    p->align = align;
    p->row_bytes = stn_grid_row_bytes(size[0], d->elem_size, align);
    p->rows_per_slice = d->ndim == 3 ? size[1] : 1;
    p->slice_bytes = (uint64_t)p->row_bytes * (uint64_t)p->rows_per_slice;
    p->nsweeps = steps == 0 ? 0 : (steps + p->bt - 1) / p->bt;
    p->mem_bytes = plan_memory(p, d);
    return 0;
}

/* ------------------------------------------------------------------ small helpers */

/* Where slice z lives in a ring; the next ring_slices slices follow it contiguously. */
static char *slice_ptr(const ooc *e, char *ring, int64_t z) {
    return ring + (size_t)(z % e->ring_slices) * e->plan.slice_bytes;
}

/* The window of array a of field f: the data pointer for window_view(). */
static char *win(const ooc *e, const ooc_field *f, int a) { return slice_ptr(e, f->ring[a], e->wz0); }

static stn_view window_view(const ooc *e) {
    const stn_view *g = &e->r->view;
    int64_t row = e->plan.row_bytes / e->d->elem_size;
    if (e->d->ndim == 3)
        return (stn_view){g->nx, g->ny, g->nz, row, row * g->ny, 0, e->wz0};
    return (stn_view){g->nx, g->ny, 1, row, row * g->ny, e->wz0, 0};
}

/* The box of slices [z0, z1) with all of the inner dimensions. */
static stn_box slices_box(const ooc *e, int64_t z0, int64_t z1) {
    const stn_view *g = &e->r->view;
    stn_box b = {{0, 0, 0}, {g->nx, g->ny, g->nz}};
    b.lo[e->plan.outer] = z0;
    b.hi[e->plan.outer] = z1;
    return b;
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

/* io on slices [z0, z1) of file f, buffer laid out slice after slice */
static int io_slices(ooc *e, int write, stn_gridfile *gf, int64_t z0, int64_t z1, void *buf,
                     stn_aio_group *g) {
    stn_run *r = e->r;
    if (e->d->ndim == 3)
        return write ? stn_aio_write(e->q, gf, 0, gf->ny, z0, z1, buf, e->plan.slice_bytes, g, &r->st)
                     : stn_aio_read(e->q, gf, 0, gf->ny, z0, z1, buf, e->plan.slice_bytes, g, &r->st);
    size_t plane = (size_t)(z1 - z0) * e->plan.row_bytes;
    return write ? stn_aio_write(e->q, gf, z0, z1, 0, 1, buf, plane, g, &r->st)
                 : stn_aio_read(e->q, gf, z0, z1, 0, 1, buf, plane, g, &r->st);
}

/* Read slices [z0, z1) of a --init .npy (buffered pread, unpadded rows) into padded slices:
 * one read into the tail of `dst`, then the rows spread out in place, first to last (row i
 * moves down from D + i*rowb to i*row_bytes, D = rows * padding, never over a row not yet
 * moved), so no buffer outside the plan is needed. */
static int npy_slices(ooc *e, int f, int level, int64_t z0, int64_t z1, char *dst) {
    ooc_field *of = &e->f[f];
    size_t rowb = (size_t)e->r->view.nx * (size_t)e->d->elem_size, padded = (size_t)e->plan.row_bytes;
    size_t rows = (size_t)((z1 - z0) * e->plan.rows_per_slice);
    size_t tail = rows * (padded - rowb);
    uint64_t off = (uint64_t)of->npy_offset[level] + (uint64_t)z0 * (uint64_t)e->plan.rows_per_slice * rowb;
    double t0 = stn_now();
    int rc = stn_pread_full(of->npy_fd[level], dst + tail, rows * rowb, off, of->npy[level]);
    if (rc == 0) {
        e->r->st.bytes_read += rows * rowb;
        for (size_t i = 0; tail && i < rows; i++)
            memmove(dst + i * padded, dst + tail + i * rowb, rowb);
    }
    posix_fadvise(of->npy_fd[level], (off_t)off, (off_t)(rows * rowb), POSIX_FADV_DONTNEED);
    stn_stats_add_time(&e->r->st, STN_PHASE_READ, t0);
    return rc;
}

/* ------------------------------------------------------------------ the model */

/* Bytes each source kind moves for one whole level of one field. */
static uint64_t level_bytes(const ooc *e, int src) {
    const stn_view *g = &e->r->view;
    uint64_t slices = (uint64_t)e->plan.n;
    switch (src) {
    case SRC_SCRATCH:
        return slices * e->plan.slice_bytes;
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

/* Slices of each state level a sweep reads: the grid once (ref), or every block's window
 * (alg1, whose windows overlap by 2*T*s). */
static uint64_t sweep_read_slices(const stn_ooc_plan *p, int64_t s) {
    if (p->schedule != STN_SCHED_ALG1)
        return (uint64_t)p->n;
    int64_t T = sweep_steps(p, s), lo, hi;
    uint64_t n = 0;
    for (int64_t k = 0; k < p->nblocks; k++) {
        stn_ooc_window(p, k, T, &lo, &hi);
        n += (uint64_t)(hi - lo);
    }
    return n;
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

/* Predict every byte the run will read and write, from the plan alone: sweeps first_sweep..
 * nsweeps-1, the import of input files (first sweep only) and the export of each --out. */
static void predict(const ooc *e, int64_t first_sweep, uint64_t *rd, uint64_t *wr) {
    const stn_program_desc *d = e->d;
    uint64_t scratch = level_bytes(e, SRC_SCRATCH), npy = level_bytes(e, SRC_NPY);
    *rd = *wr = 0;
    for (int i = 0; i < d->nfields; i++) {
        const ooc_field *f = &e->f[i];
        if (!f->state && f->input_src == SRC_SCRATCH && first_sweep == 0 && e->plan.nsweeps > 0)
            *rd += npy, *wr += scratch; /* the import */
        if (f->state && e->alg2) {
            if (first_sweep == 0 && e->plan.nsweeps > 0) /* the import: every array of the field */
                for (int l = 0; l < f->levels; l++)
                    *rd += level_bytes(e, f->first_src[l]);
            *wr += first_sweep == 0 && e->plan.nsweeps > 0 ? (uint64_t)f->narr * scratch : 0;
            for (int64_t s = first_sweep; s < e->plan.nsweeps; s++) {
                int64_t T = sweep_steps(&e->plan, s);
                for (int64_t k = 0; k < e->plan.nblocks; k++) { /* each block reads its window, writes */
                    int64_t lo, hi, wlo, whi;
                    stn_ooc_window(&e->plan, k, T, &lo, &hi);
                    alg2_range(&e->plan, k, T, &wlo, &whi);
                    *rd += (uint64_t)f->narr * (uint64_t)(hi - lo) * e->plan.slice_bytes;
                    *wr += (uint64_t)f->narr * (uint64_t)(whi - wlo) * e->plan.slice_bytes;
                }
            }
            continue;
        }
        for (int64_t s = first_sweep; s < e->plan.nsweeps; s++) {
            /* ref reads each slice once a sweep; alg1 reads every block's whole window */
            uint64_t slices = f->state ? sweep_read_slices(&e->plan, s) : (uint64_t)e->plan.n;
            for (int l = 0; l < (f->state ? f->levels : 1); l++) {
                *rd += level_bytes(e, source_of(e, i, l, s)) / (uint64_t)e->plan.n * slices;
                *wr += f->state ? scratch : 0;
            }
        }
    }
    for (int s = 0; s < 2 * d->nfields; s++)
        if (e->r->o->out_path[s]) {
            *rd += level_bytes(e, source_of(e, s / 2, s % 2, e->plan.nsweeps));
            *wr += npy;
        }
}

/* ------------------------------------------------------------------ loading slices */

/* Put slices [z0, z1) of (field f, level) for sweep `sweep` into its ring.  Data from scratch
 * files was prefetched there already; the other sources are placed now. */
static int place_from(ooc *e, int f, int level, int src, int64_t z0, int64_t z1);

static int place(ooc *e, int f, int level, int64_t sweep, int64_t z0, int64_t z1) {
    return place_from(e, f, level, source_of(e, f, level, sweep), z0, z1);
}

/* The same, from an explicit source kind (SRC_*). */
static int place_from(ooc *e, int f, int level, int src, int64_t z0, int64_t z1) {
    ooc_field *of = &e->f[f];
    int a = arr_index(of, -level);
    char *dst = slice_ptr(e, of->ring[a], z0);
    size_t bytes = (size_t)(z1 - z0) * e->plan.slice_bytes;
    if (z1 <= z0)
        return 0;
    double t0 = stn_now();
    switch (src) {
    case SRC_SCRATCH: /* prefetched straight into the ring */
        return 0;
    case SRC_NPY:
        return npy_slices(e, f, level, z0, z1, dst);
    case SRC_INIT: {
        stn_view v = window_view(e);
        stn_box b = slices_box(e, z0, z1);
        e->d->init(f, level, win(e, of, a), &v, e->r->o->params, &b);
        stn_stats_add_time(&e->r->st, STN_PHASE_INIT, t0);
        return 0;
    }
    case SRC_ZERO:
        memset(dst, 0, bytes);
        stn_stats_add_time(&e->r->st, STN_PHASE_INIT, t0);
        return 0;
    case SRC_COPY: /* the previous level starts equal to the current one (placed first) */
        memcpy(dst, slice_ptr(e, of->ring[arr_index(of, 0)], z0), bytes);
        stn_stats_add_time(&e->r->st, STN_PHASE_COPY, t0);
        return 0;
    }
    return stn_error(-EINVAL, "internal error: unknown source");
}

static int nlevels_read(const ooc_field *f) { return f->state ? f->levels : 1; }

/* The in-place file of array a of a state field (alg2). */
static stn_gridfile *inplace(ooc_field *f, int a) { return &f->scratch[a / 2][a % 2]; }

/* Queue reads of slices [z0, z1) of every array alg2 keeps in place (state fields only). */
static int read_inplace(ooc *e, int64_t z0, int64_t z1, stn_aio_group *g) {
    for (int i = 0; z1 > z0 && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        for (int a = 0; f->state && a < f->narr; a++) {
            int rc = io_slices(e, 0, inplace(f, a), z0, z1, slice_ptr(e, f->ring[a], z0), g);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* Queue the reads of block k's new slices [z0, z1) from the source set into the ring. */
static int prefetch(ooc *e, int64_t sweep, int64_t z0, int64_t z1) {
    stn_aio_group_reset(&e->rgroup);
    if (z1 <= z0)
        return 0;
    if (e->alg2) {
        int rc = read_inplace(e, z0, z1, &e->rgroup);
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
            int rc = io_slices(e, 0, gf, z0, z1, slice_ptr(e, f->ring[arr_index(f, -l)], z0), &e->rgroup);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* Move the window to [lo, hi): the slices it keeps are already in the ring, and so are the new
 * ones read from scratch (once their reads complete); place the others. */
static int enter_block(ooc *e, int64_t sweep, int64_t lo, int64_t hi) {
    int64_t new_lo = e->wz1 > lo ? e->wz1 : lo;
    e->wz0 = lo;
    e->wz1 = hi;
    int rc = stn_aio_wait(e->q, &e->rgroup, &e->r->st);
    for (int i = 0; rc == 0 && i < e->d->nfields; i++)
        for (int l = 0; rc == 0 && l < nlevels_read(&e->f[i]); l++)
            rc = place(e, i, l, sweep, new_lo, hi);
    /* dirichlet: the level-1 array of a new slice gets the boundary cells of level 0 (which every
     * level >= 0 shares); the kernels never write them, so this holds for the whole sweep */
    stn_view v = window_view(e);
    stn_box nb = slices_box(e, new_lo, hi);
    double t0 = stn_now();
    for (int i = 0; rc == 0 && !e->alg2 && hi > new_lo && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        if (f->state && f->boundary == STN_BC_DIRICHLET)
            e->d->boundary(i, &v, win(e, f, 0), win(e, f, 1), &nb);
    }
    stn_stats_add_time(&e->r->st, STN_PHASE_COMPUTE, t0);
    return rc;
}

/* ------------------------------------------------------------------ one block */

/* The slices step t of block k reads, and the mirror sources of the boundary slices among them,
 * clipped to the window: where a neumann field must be mirrored before the step. */
static void read_range(const ooc *e, int64_t k, int64_t t, int64_t *lo, int64_t *hi) {
    const stn_ooc_plan *p = &e->plan;
    int64_t a, b;
    step_region(p, k, t, e->T, &a, &b);
    a -= p->hlo, b += p->hhi;
    if (a < p->L && b < 2 * p->L)
        b = 2 * p->L;
    if (b > p->H && a > p->H - p->hhi)
        a = p->H - p->hhi;
    *lo = a > e->wz0 ? a : e->wz0;
    *hi = b < e->wz1 ? b : e->wz1;
}

/* Boundary cells before step t.  Neumann: mirror the levels the step reads (current, and
 * previous for two levels) over the slices it reads; mirroring is idempotent on valid data, and
 * the slices a step reads hold valid levels.  Dirichlet: the new level's boundary cells were
 * copied when the slice was placed (all levels >= 0 share them); only a previous level with
 * boundary values of its own, read at step 1, is converted at step 2, where this block owns
 * the slices (see owned_range). */
static void before_step(ooc *e, int64_t k, int64_t t) {
    stn_view v = window_view(e);
    int64_t lo, hi;
    double t0 = stn_now();
    for (int i = 0; i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        if (!f->state)
            continue;
        if (f->boundary == STN_BC_NEUMANN) {
            read_range(e, k, t, &lo, &hi);
            int64_t rlo, rhi;
            step_region(&e->plan, k, t, e->T, &rlo, &rhi);
            if (hi <= lo || rhi <= rlo)
                continue; /* the step computes nothing here */
            stn_box b = slices_box(e, lo, hi);
            for (int l = 1; l <= f->levels; l++) {
                char *a = win(e, f, arr_index(f, e->lvl0 + t - l));
                e->d->boundary(i, &v, a, a, &b);
            }
        } else if (f->levels == 2 && e->lvl0 + t == 2) {
            owned_range(&e->plan, k, t, &lo, &hi);
            if (e->plan.schedule == STN_SCHED_ALG1) /* alg1 blocks share nothing: the whole window */
                lo = e->wz0, hi = e->wz1;
            stn_box own = slices_box(e, lo, hi);
            if (hi > lo)
                e->d->boundary(i, &v, win(e, f, arr_index(f, 1)), win(e, f, arr_index(f, 2)), &own);
        }
    }
    stn_stats_add_time(&e->r->st, STN_PHASE_COMPUTE, t0);
}

static void compute_block(ooc *e, int64_t k, int64_t T) {
    const stn_program_desc *d = e->d;
    const stn_view *g = &e->r->view;
    stn_view v = window_view(e);
    for (int64_t t = 1; t <= T; t++) {
        before_step(e, k, t);
        stn_box b = {{d->halo_lo[0], d->halo_lo[1], d->halo_lo[2]},
                     {g->nx - d->halo_hi[0], g->ny - d->halo_hi[1], g->nz - d->halo_hi[2]}};
        step_region(&e->plan, k, t, T, &b.lo[e->plan.outer], &b.hi[e->plan.outer]);
        if (b.hi[e->plan.outer] <= b.lo[e->plan.outer])
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
        d->step(e->r->o->params, &v, e->src, e->dst, &b, 0, 0);
        stn_stats_add_time(&e->r->st, STN_PHASE_COMPUTE, t0);
    }
}

/* Write block k's final slices (levels T and, for two-level fields, T-1) to the destination,
 * straight from the ring.  Block k uses write group k % 2, after block k-2's writes finished. */
static int write_block(ooc *e, int64_t sweep, int64_t k, int64_t T) {
    int64_t lo, hi;
    stn_aio_group *g = &e->wgroup[k % 2];
    int rc = stn_aio_wait(e->q, g, &e->r->st);
    if (rc)
        return rc;
    stn_aio_group_reset(g);
    if (e->alg2) { /* every array back in place, over all the slices this block changed */
        alg2_range(&e->plan, k, T, &lo, &hi);
        for (int i = 0; rc == 0 && hi > lo && i < e->d->nfields; i++) {
            ooc_field *f = &e->f[i];
            for (int a = 0; rc == 0 && f->state && a < f->narr; a++)
                rc = io_slices(e, 1, inplace(f, a), lo, hi, slice_ptr(e, f->ring[a], lo), g);
        }
        return rc;
    }
    out_range(&e->plan, k, T, &lo, &hi);
    for (int i = 0; rc == 0 && hi > lo && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        for (int l = 0; rc == 0 && f->state && l < f->levels; l++)
            rc = io_slices(e, 1, &f->scratch[(sweep + 1) % 2][l], lo, hi,
                           slice_ptr(e, f->ring[arr_index(f, T - l)], lo), g);
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

/* alg1: read slices [z0, z1) of every state level again from the sweep's source. */
static int reread_alg1(ooc *e, int64_t sweep, int64_t z0, int64_t z1) {
    stn_aio_group g = STN_AIO_GROUP_INIT;
    int rc = 0;
    for (int i = 0; rc == 0 && z1 > z0 && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        for (int l = 0; rc == 0 && f->state && l < f->levels; l++) {
            int src = source_of(e, i, l, sweep);
            if (src == SRC_SCRATCH)
                rc = io_slices(e, 0, &f->scratch[sweep % 2][l], z0, z1,
                               slice_ptr(e, f->ring[arr_index(f, -l)], z0), &g);
            else
                rc = place_from(e, i, l, src, z0, z1);
        }
    }
    int rc2 = stn_aio_wait(e->q, &g, &e->r->st);
    return rc ? rc : rc2;
}

static int run_sweep(ooc *e, int64_t sweep, int64_t T) {
    const stn_ooc_plan *p = &e->plan;
    int64_t lo, hi, nlo, nhi;
    e->T = T;
    e->wz0 = e->wz1 = 0;
    stn_ooc_window(p, 0, T, &lo, &hi);
    int rc = prefetch(e, sweep, lo, hi);
    for (int64_t k = 0; rc == 0 && k < p->nblocks; k++) {
        stn_ooc_window(p, k, T, &lo, &hi);
        rc = enter_block(e, sweep, lo, hi);
        if (rc == 0 && k + 1 < p->nblocks) {
            /* block k+1's reads may land where block k-2 was written from: wait for those writes */
            rc = stn_aio_wait(e->q, &e->wgroup[k % 2], &e->r->st);
            stn_ooc_window(p, k + 1, T, &nlo, &nhi);
            if (rc == 0)
                rc = prefetch(e, sweep, hi > nlo ? hi : nlo, nhi);
        }
        if (rc == 0) {
            compute_block(e, k, T);
            rc = write_block(e, sweep, k, T);
            if (e->prog) /* a sweep can be long: report the fraction of its blocks done */
                stn_progress_step(e->prog, e->steps_before + T * (k + 1) / p->nblocks);
        }
        if (rc == 0 && p->schedule == STN_SCHED_ALG1 && k + 1 < p->nblocks) {
            /* alg1 advanced the slices it shares with block k+1's window: they come back at level 0
             * from the source, after block k's writes (from the same ring positions) have landed */
            rc = stn_aio_wait(e->q, &e->wgroup[k % 2], &e->r->st);
            stn_ooc_window(p, k + 1, T, &nlo, &nhi);
            if (rc == 0)
                rc = reread_alg1(e, sweep, nlo, hi < nhi ? hi : nhi);
        }
        if (rc == 0 && e->alg2 && k + 1 < p->nblocks) {
            /* alg2 keeps nothing between blocks: the part of block k+1's window that block k also
             * held comes back from the files, once block k's writes have landed there */
            stn_aio_group g = STN_AIO_GROUP_INIT;
            rc = stn_aio_wait(e->q, &e->wgroup[k % 2], &e->r->st);
            stn_ooc_window(p, k + 1, T, &nlo, &nhi);
            if (rc == 0)
                rc = read_inplace(e, nlo, hi < nhi ? hi : nhi, &g);
            int rc2 = stn_aio_wait(e->q, &g, &e->r->st);
            rc = rc ? rc : rc2;
        }
    }
    if (rc == 0)
        rc = sync_destination(e, sweep);
    else
        stn_aio_wait_all(e->q, &e->r->st); /* nothing may be in flight into freed buffers */
    return rc;
}

/* Copy each input given as a .npy into its scratch file once, so that sweeps read it with
 * O_DIRECT (the user's file stays untouched and out of the page cache). */
static int import_inputs(ooc *e) {
    int64_t chunk = e->ring_slices;
    for (int i = 0; i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        if (f->state || f->input_src != SRC_SCRATCH)
            continue;
        for (int64_t z0 = 0; z0 < e->plan.n; z0 += chunk) {
            int64_t z1 = z0 + chunk < e->plan.n ? z0 + chunk : e->plan.n;
            e->wz0 = z0, e->wz1 = z1;
            stn_aio_group g = STN_AIO_GROUP_INIT;
            int rc = npy_slices(e, i, 0, z0, z1, slice_ptr(e, f->ring[0], z0));
            if (rc == 0)
                rc = io_slices(e, 1, &f->scratch[0][0], z0, z1, slice_ptr(e, f->ring[0], z0), &g);
            if (rc == 0)
                rc = stn_aio_wait(e->q, &g, &e->r->st);
            if (rc)
                return rc;
        }
        int rc = stn_gridfile_sync(&f->scratch[0][0]);
        if (rc)
            return rc;
    }
    return 0;
}

/* alg2: write every array of every state field to its in-place file before the first sweep:
 * level 0, level -1 (two levels), and level 0 again in the array level 1 will use, so that
 * the boundary cells, which no kernel writes, are right in every array. */
static int import_state_alg2(ooc *e) {
    for (int64_t z0 = 0; z0 < e->plan.n; z0 += e->ring_slices) {
        int64_t z1 = z0 + e->ring_slices < e->plan.n ? z0 + e->ring_slices : e->plan.n;
        e->wz0 = z0, e->wz1 = z1;
        stn_aio_group g = STN_AIO_GROUP_INIT;
        int rc = 0;
        for (int i = 0; rc == 0 && i < e->d->nfields; i++) {
            ooc_field *f = &e->f[i];
            if (!f->state)
                continue;
            rc = place_from(e, i, 0, f->first_src[0], z0, z1);
            if (rc == 0 && f->levels == 2)
                rc = place_from(e, i, 1, f->first_src[1], z0, z1);
            if (rc == 0)
                memcpy(slice_ptr(e, f->ring[1], z0), slice_ptr(e, f->ring[0], z0),
                       (size_t)(z1 - z0) * e->plan.slice_bytes);
            for (int a = 0; rc == 0 && a < f->narr; a++)
                rc = io_slices(e, 1, inplace(f, a), z0, z1, slice_ptr(e, f->ring[a], z0), &g);
        }
        int rc2 = stn_aio_wait(e->q, &g, &e->r->st);
        if (rc || rc2)
            return rc ? rc : rc2;
    }
    return 0;
}

/* ------------------------------------------------------------------ export */

/* Chunks of the outer dimension for the export: each holds the mirror sources of the
 * boundary slices it contains (first chunk >= 2*hlo slices, last >= 2*hhi).  With a capacity
 * of at least min(n, 2*hlo + 2*hhi) (ring_slices) moving the last edge down keeps the first
 * chunk >= 2*hlo. */
static int64_t export_edge(const ooc *e, int64_t c, int64_t cap, int64_t nchunks) {
    const stn_ooc_plan *p = &e->plan;
    if (c >= nchunks)
        return p->n;
    int64_t z = c * cap;
    if (c == nchunks - 1 && p->n - z < 2 * p->hhi)
        z = p->n - 2 * p->hhi;
    return z;
}

static int export_one(ooc *e, int f, int level, stn_npy_writer *w, int64_t cap) {
    ooc_field *of = &e->f[f];
    const stn_view *g = &e->r->view;
    int64_t nchunks = (e->plan.n + cap - 1) / cap;
    int src = source_of(e, f, level, e->plan.nsweeps);
    if (src == SRC_COPY) /* steps = 0 and no previous level of its own: it is the current one */
        level = 0, src = source_of(e, f, 0, e->plan.nsweeps);
    size_t rowb = (size_t)g->nx * (size_t)e->d->elem_size;
    for (int64_t c = 0; c < nchunks; c++) {
        int64_t z0 = export_edge(e, c, cap, nchunks), z1 = export_edge(e, c + 1, cap, nchunks);
        e->wz0 = z0, e->wz1 = z1;
        char *arr = slice_ptr(e, of->ring[0], z0); /* the chunk, contiguous in the ring */
        int rc = 0;
        double t0 = stn_now();
        if (src == SRC_SCRATCH) {
            stn_gridfile *gf = !of->state ? &of->scratch[0][0]
                               : e->alg2  ? inplace(of, arr_index(of, e->plan.steps - level))
                                          : &of->scratch[e->plan.nsweeps % 2][level];
            stn_aio_group grp = STN_AIO_GROUP_INIT;
            rc = io_slices(e, 0, gf, z0, z1, arr, &grp);
            if (rc == 0)
                rc = stn_aio_wait(e->q, &grp, &e->r->st);
        } else if (src == SRC_NPY) {
            rc = npy_slices(e, f, level, z0, z1, arr);
        } else if (src == SRC_INIT) {
            stn_view v = window_view(e);
            stn_box b = slices_box(e, z0, z1);
            e->d->init(f, level, arr, &v, e->r->o->params, &b);
            stn_stats_add_time(&e->r->st, STN_PHASE_INIT, t0);
        } else {
            memset(arr, 0, (size_t)(z1 - z0) * e->plan.slice_bytes);
        }
        if (rc)
            return rc;
        if (of->state && of->boundary == STN_BC_NEUMANN) {
            stn_view v = window_view(e);
            stn_box b = slices_box(e, z0, z1);
            t0 = stn_now();
            e->d->boundary(f, &v, arr, arr, &b);
            stn_stats_add_time(&e->r->st, STN_PHASE_COMPUTE, t0);
        }
        /* compact the padded rows in place (each row moves down or stays) and append */
        t0 = stn_now();
        int64_t rows = (z1 - z0) * e->plan.rows_per_slice;
        for (int64_t i = 1; i < rows; i++)
            memmove(arr + (size_t)i * rowb, arr + (size_t)i * e->plan.row_bytes, rowb);
        stn_stats_add_time(&e->r->st, STN_PHASE_COPY, t0);
        rc = stn_npy_writer_write(w, arr, (size_t)rows * rowb, &e->r->st);
        if (rc)
            return rc;
    }
    return 0;
}

static int export_outputs(ooc *e) {
    int64_t cap = e->ring_slices; /* >= min(n, 2*hlo + 2*hhi), see ring_slices */
    for (int s = 0; s < 2 * e->d->nfields; s++) {
        if (!e->r->writers[s])
            continue;
        int rc = export_one(e, s / 2, s % 2, e->r->writers[s], cap);
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
    h = fnv(h, &e->plan.bz, sizeof e->plan.bz);
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

static int64_t outer_block_opt(const stn_run *r) { return r->d->ndim == 3 ? r->o->block[1] : r->o->block[0]; }

/* Until Blk-Tune: the reference schedule moves (kr + kw) arrays of the grid per sweep whatever
 * the blocks, so fewer sweeps is what matters.  Take the largest bt whose thinnest block fits the
 * budget, balance it (the same number of sweeps with the smallest bt), then the widest block
 * that fits with it (fewer, larger kernel calls). */
static int default_plan(ooc *e, size_t align) {
    const stn_run *r = e->r;
    stn_ooc_plan p;
    int64_t steps = r->o->steps < 1 ? 1 : r->o->steps;
    stn_ooc_make_plan(e->d, r->o->size, r->o->steps, sched_of(r), 1, 1, align, &p);
    if (p.mem_bytes > r->mem_budget)
        return -ENOMEM;
    int64_t span = p.H - p.L, lo = 1, hi = steps;
    while (lo < hi) { /* largest bt with bz = 1 */
        int64_t mid = (lo + hi + 1) / 2;
        stn_ooc_make_plan(e->d, r->o->size, r->o->steps, sched_of(r), 1, mid, align, &p);
        if (p.mem_bytes <= r->mem_budget)
            lo = mid;
        else
            hi = mid - 1;
    }
    int64_t sweeps = (steps + lo - 1) / lo, bt = (steps + sweeps - 1) / sweeps;
    lo = 1, hi = span > 1 ? span : 1;
    while (lo < hi) { /* largest bz with that bt */
        int64_t mid = (lo + hi + 1) / 2;
        stn_ooc_make_plan(e->d, r->o->size, r->o->steps, sched_of(r), mid, bt, align, &p);
        if (p.mem_bytes <= r->mem_budget)
            lo = mid;
        else
            hi = mid - 1;
    }
    stn_ooc_make_plan(e->d, r->o->size, r->o->steps, sched_of(r), lo, bt, align, &e->plan);
    return 0;
}

static int choose_plan(ooc *e, size_t align) {
    stn_run *r = e->r;
    char need[32], have[32];
    if (r->o->have_block) {
        if (r->d->ndim == 3 && r->o->block[0] != r->o->size[1])
            return stn_error(-EINVAL,
                             "--block %" PRId64 ",%" PRId64 ",%" PRId64
                             ": this build blocks z only, with whole "
                             "planes: by must be ny = %" PRId64 " (y-blocking is a later milestone)",
                             r->o->block[0], r->o->block[1], r->o->block[2], r->o->size[1]);
        stn_ooc_make_plan(r->d, r->o->size, r->o->steps, sched_of(r), outer_block_opt(r), r->o->block[2],
                          align, &e->plan);
        if (e->plan.mem_bytes <= r->mem_budget)
            return 0;
    } else if (default_plan(e, align) == 0) {
        return 0;
    }
    stn_ooc_plan smallest;
    stn_ooc_make_plan(r->d, r->o->size, r->o->steps, sched_of(r), 1, 1, align, &smallest);
    stn_fmt_bytes(have, sizeof have, r->mem_budget);
    if (r->o->have_block && smallest.mem_bytes <= r->mem_budget)
        return stn_error(-ENOMEM, "--block: these blocks need %s of DRAM, more than the budget of %s (%s)",
                         stn_fmt_bytes(need, sizeof need, e->plan.mem_bytes), have, r->mem_source);
    return stn_error(
        -ENOMEM,
        "the DRAM budget of %s (%s) is too small: the smallest block (1 slice, bt = 1) needs %s; "
        "give --mem %" PRIu64 " or more",
        have, r->mem_source, stn_fmt_bytes(need, sizeof need, smallest.mem_bytes), smallest.mem_bytes);
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
    uint64_t need = 0, avail = 0, file = (uint64_t)e->plan.n * e->plan.slice_bytes;
    for (int i = 0; i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        uint64_t arrays = e->alg2 ? (uint64_t)f->narr : 2 * (uint64_t)f->levels;
        need += f->state ? arrays * file : f->input_src == SRC_SCRATCH ? file : 0;
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

static int alloc_buffers(ooc *e) {
    e->ring_slices = ring_slices(&e->plan);
    size_t bytes = (size_t)e->ring_slices * e->plan.slice_bytes;
    for (int i = 0; i < e->d->nfields; i++)
        for (int a = 0; a < e->f[i].narr; a++)
            if (!(e->f[i].ring[a] = stn_ring_alloc(bytes)))
                return -ENOMEM;
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
        for (int a = 0; a < 3; a++)
            stn_ring_free(f->ring[a], (size_t)e->ring_slices * e->plan.slice_bytes);
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

static int ooc_setup(ooc *e, int64_t *first_sweep) {
    stn_run *r = e->r;
    size_t align;
    char source[160];
    e->alg2 = r->o->schedule == STN_SCHED_ALG2;
    if (e->alg2 && r->o->resume)
        return stn_error(-EINVAL,
                         "--resume: --schedule alg2 updates its files in place (the paper's algorithm 2), "
                         "so an interrupted run cannot be resumed; use the default schedule (ref) for that");
    struct stat sb;
    if (stat(r->o->dir, &sb) != 0)
        return stn_error(stn_neg_errno(errno), "--dir %s: %s (the scratch files of --mode ooc go there)",
                         r->o->dir, errno == ENOENT ? "no such directory" : strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return stn_error(-ENOTDIR, "--dir %s: not a directory", r->o->dir);
    int rc = stn_dio_alignment(r->o->dir, &align, source, sizeof source);
    if (rc == 0)
        rc = classify_sources(e);
    if (rc == 0)
        rc = choose_plan(e, align);
    if (rc)
        return rc;
    snprintf(r->dio_source, sizeof r->dio_source, "%s", source);
    r->dio_align = align;
    r->have_plan = 1;
    r->blk[0] = r->d->ndim == 3 ? r->o->size[1] : e->plan.bz;
    r->blk[1] = r->d->ndim == 3 ? e->plan.bz : -1;
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
    rc = stn_aio_create(&e->q, STN_AIO_DEFAULT_DEPTH, STN_AIO_DEFAULT_MAX_REQUEST);
    if (rc == 0 && e->plan.nsweeps > 0)
        rc = check_space(e, resuming);
    if (rc == 0 && e->plan.nsweeps > 0)
        rc = open_scratch(e, resuming);
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
    e.f = calloc((size_t)r->d->nfields, sizeof *e.f);
    e.src = calloc((size_t)r->d->nsrc + 1, sizeof *e.src);
    e.dst = calloc((size_t)r->d->ndst + 1, sizeof *e.dst);
    if (!e.f || !e.src || !e.dst) {
        ooc_free(&e);
        return stn_error(-ENOMEM, "out of memory setting up the out-of-core engine");
    }
    for (int i = 0; i < r->d->nfields; i++)
        e.f[i].npy_fd[0] = e.f[i].npy_fd[1] = -1;
    int64_t first = 0;
    int rc = ooc_setup(&e, &first);
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
