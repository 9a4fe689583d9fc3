/*
 * stn_ooc_engine.h -- the out-of-core engine's state, shared by its files: ooc_api.c (the engine held
 * open, its table of operations), ooc_sweep.c (the executor: sweeps, rows, blocks), ooc_reader.c (the
 * --init reader thread), ooc_wedge.c (a wrapped sweep's wedge), ooc_ghosts.c (the ranks' ghosts),
 * ooc_setup.c (sources, plan, files, lock, records, buffers), ooc_window.c (the window: views, and
 * boxes of rows moved in and out), ooc_xfer.c (the import of inputs and the export of --out),
 * ooc_state.c (the state file --resume reads), ooc_refine.c (re-planning between sweeps).  Private to
 * those files.
 */
#ifndef STN_OOC_ENGINE_H
#define STN_OOC_ENGINE_H

#include "engines/stn_engine.h"
#include "io/stn_gridio.h"
#include "plan/stn_ooc.h"

#include <errno.h>
#include <stdio.h>

/* The engine held open (ooc.c): the executor's state below, and what the program's calls keep. */
typedef struct stn_ooc stn_ooc;

/* One field in the engine. */
typedef struct ooc_field {
    const stn_ooc_fsrc *m;      /* its arrays and the sources of its levels (the model's) */
    int boundary;               /* STN_BC_* */
    const char *npy[2];         /* --init files */
    int64_t npy_offset[2];      /* their data offsets */
    int npy_fd[2];              /* opened read-only */
    int npy_dfd[2];             /* ... and again with O_DIRECT (-1: read through the page cache) */
    size_t npy_align[2];        /* the O_DIRECT reads' alignment */
    stn_gridfile scratch[2][2]; /* [set][level]; inputs use scratch[0][0] (imported) */
    char *ring[3];              /* window arrays: double-mapped rings (see ring.c) */
    char *strip[3];             /* the z-strip of each array, in DRAM (y-blocked) */
    stn_gridfile spill[3];      /* the z-strip of each array, in a scratch file (y-blocked) */
    char *wedge;                /* a wrapped sweep's slices for its last block (ooc.c): level l of */
    int64_t *wedge_off;         /* stn_ooc_wedge_range at slice wedge_off[l] (bt + 1 entries) */
} ooc_field;

/* The files a run keeps under --dir besides its grids' (ooc_setup.c). */
typedef struct ooc_files {
    char state[4096];   /* DIR/NAME.ooc-state: the sweeps committed, for --resume (ooc_state.c) */
    char records[4096]; /* the records' samples of the committed sweeps, for --resume */
    int records_fd;     /* -1: no records */
    char lock[4096];    /* DIR/NAME.lock: one run at a time on a --dir */
    int lock_fd;        /* held (flock) from setup to the end; -1: none */
    int direct_warned;  /* the file system refused O_DIRECT (warned once) */
    int ndirs;          /* --dir a,b (ooc_dirs.c): the directories, one a NUMA node; 1: one --dir */
    int64_t slab[STN_NUMA_MAX_NODES + 1]; /* directory k holds the grid files' rows [slab[k], slab[k+1]) */
    char *dlock[STN_NUMA_MAX_NODES];      /* the lock files of directories 1 .. ndirs - 1 */
    int dlock_fd[STN_NUMA_MAX_NODES];     /* held as lock_fd; -1: none */
    stn_groups groups; /* ndirs > 1: each node's threads compute the tiles of its slab (the views carry it) */
} ooc_files;

/* A block's cache tiles (ooc_setup.c chooses them, compute_block runs them). */
typedef struct ooc_tiles {
    int64_t w[2]; /* r x q widths */
    int64_t t;    /* the steps each advances at a time (0: the block's T) */
} ooc_tiles;

/* MPI, stn_part.defer: the way down of the ghosts' exchange in flight beside the next sweep
 * (ooc_ghosts.c). */
typedef struct ooc_ghosts {
    char *buf;       /* the low edge sent down, then the high ghosts received */
    stn_par_req req; /* those messages in flight */
    int pending;     /* received ghosts not yet written to file set `set` */
    int64_t set;
} ooc_ghosts;

typedef struct ooc {
    const stn_run *r;
    const stn_program_desc *d;
    stn_result *res;     /* counters, predictions, timings */
    stn_ooc_result *out; /* the plan, as reported */
    stn_ooc_plan plan;
    stn_ooc_model model;
    stn_ooc_fsrc *fsrc; /* the model's fields */
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
    ooc_files fs;
    struct ooc_reader *reader; /* the --init reads of the next block, on a thread of their own */
    struct stn_npyd *npyd;     /* the --init files' O_DIRECT reader (NULL: none reads so) */
    int reader_warned;         /* the reader thread could not be started (warned once) */
    ooc_tiles sub;
    int64_t own_axes;      /* the r axis's bit when a state field is periodic along it: the window
                            * holds its wrap-around slices itself (the view tells the kernels) */
    int64_t rshift;        /* while moving wrap-around slices: the file's r index minus the ring's */
    int exporting;         /* the export: every field's slices are their own (stn_ooc_wrap_parts) */
    int64_t steps_resumed; /* --resume: the steps the sweeps before this run made */
    int64_t
        *chunk_e[3]; /* each file set's chunk edges along y (ooc_chunks.c): the state levels' sets 0 and */
    int chunk_n[3];  /* 1, the inputs' files (2); n edges (0: the plain layout) */
    ooc_ghosts gh;
    stn_time_pred time0;   /* re-planned: the time model's prediction at the start (the report's) */
    double refine_seconds; /* the last re-planning's search (ooc_refine.c) */
    double startup;        /* the job's seconds before its time model was made (stn_time_pred.startup) */
    int share_tried;       /* the plan's compute share under IO was measured, or found not to be (once) */
    double init_state,
        init_input; /* the init expressions' seconds over the grid (ooc_setup.c, init_seconds) */
    int init_measured;
    double hist_cells, hist_compute; /* the loop's cells updated and its kernels' seconds (ooc_history.c) */
    double hist_wall;                /* and its sweeps' seconds (the loop without the import of inputs) */
    double hist_startup;             /* the kernels' rate its startup measured (before earlier runs') */
} ooc;

/* ------------------------------------------------------------------ ring addressing (inline) */

/* Where row (r, q) of a ring lives: slice r at r mod C, q within the slice (whole planes) or
 * in the ring's plane q - qbase (y-blocked).  The next C slices follow contiguously. */
static inline char *ooc_at(const ooc *e, char *ring, int64_t r, int64_t q) {
    return ring + (size_t)(r % e->plan.ring_slices) * e->plan.slice_bytes +
           (size_t)(q - e->qbase) * (size_t)e->qstride;
}

/* The window of array a of field f: the data pointer for stn_ooc_view(). */
static inline char *ooc_win(const ooc *e, const ooc_field *f, int a) {
    return ooc_at(e, f->ring[a], e->wr0, e->qbase);
}

/* The array of field f that holds `level` (levels rotate through narr arrays). */
static inline int ooc_arr(const ooc_field *f, int64_t level) {
    return (int)(((level % f->m->narr) + f->m->narr) % f->m->narr);
}

/* The in-place file of array a of a state field (alg2). */
static inline stn_gridfile *ooc_inplace(ooc_field *f, int a) { return &f->scratch[a / 2][a % 2]; }

/* Rows [r0, r1) x [q0, q1) as runs contiguous both in the grid's row order (z * ny + y) and in
 * the ring: one run for whole planes (q covers all of y), one per z-plane otherwise. */
typedef struct rows_run {
    char *buf;
    int64_t rows;
    uint64_t row0; /* the first row's index in the grid's row order */
} rows_run;

static inline int64_t ooc_nruns(const ooc *e, int64_t q0, int64_t q1) {
    return e->plan.r.axis == 2 ? 1 : q1 - q0;
}

static inline rows_run ooc_run_at(const ooc *e, char *ring, int64_t r0, int64_t r1, int64_t q0, int64_t i,
                                  int64_t fshift) {
    int64_t ny = e->r->view.ny;
    const stn_part *p = e->r->part; /* (a rank's part: its base along r, or along q = z when y-blocked) */
    int along_q = p && p->split == e->plan.q.axis;
    int64_t base = p ? stn_part_slab(p)->base : 0;
    int64_t f0 = r0 + e->rshift + (along_q ? 0 : base) + fshift; /* the --init (or --out) file's r0 */
    if (e->plan.r.axis == 2)
        return (rows_run){ooc_at(e, ring, r0, 0), (r1 - r0) * ny, (uint64_t)f0 * (uint64_t)ny};
    int64_t z = q0 + i, zf = z + (along_q ? base + fshift : 0);
    return (rows_run){ooc_at(e, ring, r0, z), r1 - r0, (uint64_t)zf * (uint64_t)ny + (uint64_t)f0};
}

/* Row j of a run, under a cross cut (--ranks cutting x, or y in 3d; docs/design/019): *z, its plane in
 * the whole grid (0 in 2d), and *y, its row: in 2d the whole grid's (the split axis), in 3d the part's. */
static inline void ooc_row_at(const ooc *e, const rows_run *run, int64_t j, int64_t *z, int64_t *y) {
    int64_t ny = e->r->view.ny, row = (int64_t)run->row0 + j;
    *z = e->d->ndim == 3 ? row / ny : 0;
    *y = e->d->ndim == 3 ? row % ny : row;
}

static inline rows_run ooc_run_of(const ooc *e, char *ring, int64_t r0, int64_t r1, int64_t q0, int64_t i) {
    return ooc_run_at(e, ring, r0, r1, q0, i, 0);
}

/* A ring's part (MPI, periodic along the split axis): slices [r0, r1) in up to three parts, each with
 * the shift from its whole-grid index to where its values lie in an --init file ([L, H)). */
static inline int ooc_ring_parts(const ooc *e, int64_t r0, int64_t r1, int64_t part[3][3]) {
    const stn_cut *s = e->r->part ? stn_part_slab(e->r->part) : NULL;
    return s ? stn_ring_pieces(r0, r1, s->ring, s->L - s->base, s->H - s->base, part)
             : stn_ring_pieces(r0, r1, 0, 0, 0, part);
}

/* ------------------------------------------------------------------ ooc_window.c */

/* Rows [r0, r1) x [q0, q1) of the window: r indices (slices), q indices (planes of y-blocked rows, or the
 * rows of a slice), all of x. */
typedef struct ooc_rows {
    int64_t r0, r1, q0, q1;
} ooc_rows;

/* The view of the window (the kernels' stn_view), and the box of r indices [r0, r1) and q
 * indices [q0, q1), all of x. */
stn_view stn_ooc_view(const ooc *e);
stn_box stn_ooc_box(const ooc *e, int64_t r0, int64_t r1, int64_t q0, int64_t q1);
/* Queue IO of rows [r0, r1) x [q0, q1) between grid file gf and `ring`; `qfile` is the file's
 * index of q0 (q0 itself for grid files; the strip's plane for a spill file). */
int stn_ooc_io_box(ooc *e, int write, stn_gridfile *gf, char *ring, const ooc_rows *rows, int64_t qfile,
                   stn_aio_group *g);
/* The parts of slices [r0, r1) of field f and the file index each part comes from: part k is
 * [part[k][0], part[k][1]), its data at r + part[k][2].  A boundary slice of an r axis field f is
 * periodic along holds the interior slice an interior's width away (in every level and every
 * file); every other slice its own.  Returns the number of parts (0 to 3). */
int stn_ooc_wrap_parts(const ooc *e, int f, int64_t r0, int64_t r1, int64_t part[3][3]);
/* Queue IO of rows [r0, r1) x [q0, q1) of field f between grid file gf and `ring`, wrap-around
 * slices (and a wrapped sweep's slices past H) from and to where they wrap to (stn_ooc_io_box
 * otherwise). */
int stn_ooc_io_wrapped(ooc *e, int write, int f, stn_gridfile *gf, char *ring, const ooc_rows *rows,
                       stn_aio_group *g);
/* stn_ooc_place, wrap-around slices from where they wrap to. */
int stn_ooc_place_wrapped(ooc *e, int f, int level, int src, const ooc_rows *rows);
/* Read rows [r0, r1) x [q0, q1) of field f's --init .npy of `level` into padded ring rows. */
int stn_ooc_npy_box(ooc *e, int f, int level, char *ring, const ooc_rows *rows);
/* The same, counting into `st`; touches nothing of e but the ring's rows, so the .npy reader
 * thread (ooc.c) can run it while the kernels compute another block. */
int stn_ooc_npy_box_st(const ooc *e, int f, int level, char *ring, const ooc_rows *rows, stn_stats *st);
void stn_ooc_npy_ahead(const ooc *e, int f, int level, char *ring, const ooc_rows *rows);
/* Copy (or zero, src NULL) rows [r0, r1) x [q0, q1) of one ring array from another. */
void stn_ooc_copy_box(const ooc *e, char *dst, char *src, const ooc_rows *rows);
/* Put rows [r0, r1) x [q0, q1) of (field f, level) into its ring from source kind `src`
 * (STN_SRC_*); scratch data is prefetched there by the caller. */
int stn_ooc_place(ooc *e, int f, int level, int src, const ooc_rows *rows);

/* The levels a sweep reads of field f: all of a state field's, an input's one. */
static inline int ooc_nlevels_read(const ooc_field *f) { return f->m->state ? f->m->levels : 1; }

/* ------------------------------------------------------------------ ooc_sweep.c, ooc_reader.c, ooc_wedge.c
 */

/* Sweep `sweep` of T steps, every row of blocks, from source set sweep % 2 into the other; with
 * `durable`, its destination synced (the caller commits the state file). */
int stn_ooc_sweep(ooc *e, int64_t sweep, int64_t T, int durable);

/* ------------------------------------------------------------------ ooc_snap.c: snapshots as tiles compute
 */

/* Whether this engine, as opened, puts the snapshots itself (every schedule; an MPI part, its sweeps wrapped
 * or not, under parallel HDF5 or rank 0 gathering; else engine.c stops its advances at the saved steps). */
int stn_ooc_snap_saves(const ooc *e);
/* After a cache tile computed step t (sweep-local) on [r0, r1) x [q0, q1): the snapshot cells it owns of
 * every field that saves step steps_before + t, put from the ring. */
int stn_ooc_snap_tile(ooc *e, int64_t r0, int64_t r1, int64_t q0, int64_t q1, int64_t t);
/* ooc_xfer.c: the current levels (step k: the levels at open) of the fields that save step k, put chunk by
 * chunk of the window, each chunk of each level read once from its source; the bytes read as the model
 * counts them added to *model_read.  An MPI part puts its own cells (parallel HDF5 only).  Not for a folded
 * 1d grid. */
int stn_ooc_snap_levels(ooc *e, int64_t k, uint64_t *model_read);
/* Start reading the --init rows of slices [r0, r1) of the current row on the reader thread, if the
 * sweep has any (and the reads can run beside the compute); join it (its bytes counted, its failure
 * returned) before the rows are used. */
int stn_ooc_reader_start(ooc *e, int64_t sweep, int64_t r0, int64_t r1);
int stn_ooc_reader_join(ooc *e);
/* The wedge of a sweep of T steps wrapped around r: each level's offset in the fields' wedges; level l
 * of slices [a, b) kept; before step t of a cache tile of the last block computing [r0, r1), the levels
 * it reads past H placed; the inputs' slices past n placed when the last block enters. */
void stn_ooc_wedge_offsets(ooc *e, int64_t T);
void stn_ooc_wedge_keep(ooc *e, int64_t l, int64_t a, int64_t b);
void stn_ooc_wedge_place(ooc *e, int64_t t, int64_t r0, int64_t r1);
void stn_ooc_wedge_place_inputs(ooc *e);

/* ------------------------------------------------------------------ ooc_ghosts.c */

/* Under MPI: the outcome every rank agrees on after a step of a sweep (rc, or an error naming what failed
 * elsewhere when this rank's part went well); rc without MPI. */
int stn_ooc_agree(const ooc *e, int rc, const char *what);
/* What one exchange moves, as modelled (stn_ooc_exchange): the bytes read from the part's files (and
 * as many written); *msg: the message bytes. */
uint64_t stn_ooc_ghosts_bytes(const ooc *e, uint64_t *msg);
/* After a sweep (its state in scratch set `set`): each rank's own edge slices into its neighbours'
 * ghosts, in every level of every state field (stn_ghosts_swap), through two of each field's ring
 * arrays (the window is idle between sweeps); with `defer` the way down is posted to run beside the
 * next sweep (e->gh).  *msg: the message bytes sent, added. */
int stn_ooc_ghosts_swap(ooc *e, int64_t set, uint64_t *msg, int defer);
/* The deferred half of an exchange: once its messages have arrived, the high ghosts of every level
 * into file set gh.set (before the sweep reads them).  Every rank posted its half in the same
 * exchange, so the wait ends even on a failed path (write = 0: only the wait). */
int stn_ooc_ghosts_land(ooc *e, int write);

/* ------------------------------------------------------------------ ooc_setup.c */

/* The name of the scratch file of (field f, set, level) in --dir's directory (or each of its list's). */
void stn_ooc_scratch_name(char *buf, size_t n, const ooc *e, int f, int set, int level);

/* ooc_dirs.c: --dir a,b, one directory a NUMA node (docs/design/022).  slabs: the rows of each node (in
 * proportion to its threads), into e->fs and the report's numa object; a node without rows or threads is
 * refused; the kernels' groups (e->fs.groups), each node's threads the tiles of its slab.  open_grid: the
 * grid file `name` of nz planes, opened (flags and the run's tier) in --dir or in parts, a node's slab in its
 * directory (io/gridparts.c).  lock: the other directories' lock files (the first's is ooc_setup.c's);
 * unlock: released and removed.  space: `need` bytes of files whose rows split as the slabs, against each
 * directory's free space.  text / check: the state file's `dirs` lines (only with a list) and --resume's
 * check that the list is the one the files were written in. */
/* ooc_inplace.c: --tier pmem, inputs read where they lie in the mapping (docs/design/022).  pre: which
 * inputs may be (e->fsrc[i].in_place), before the plan is chosen (whose DRAM leaves their rings out); choose:
 * kept only if the first plan allows it (before the model predicts), the DRAM left out noted.  in_place:
 * field f is on this plan (the model's stn_ooc_reads_in_place), so its rows are not read into the ring; win:
 * the pointer the kernels get instead of the ring's (the view's window); count: the rows [r0, r1) of a
 * block's new slices that are not copied, added to the bytes read in place (an internal error if the file is
 * not the mapping the plan needs).  import: such an input's --init .npy straight into its mapped file (it has
 * no ring). */
void stn_ooc_in_place_pre(ooc *e);
void stn_ooc_in_place_choose(ooc *e);
int stn_ooc_in_place_import(ooc *e, int f);
int stn_ooc_in_place(const ooc *e, int f);
char *stn_ooc_in_place_win(const ooc *e, const ooc_field *f);
int stn_ooc_in_place_count(ooc *e, int f, int64_t r0, int64_t r1);

int stn_ooc_dirs_slabs(ooc *e);
/* --dir a,b on a plan of whole planes: node k's rows of every ring slot bound to node k (base/numa.c's
 * stn_numa_bind_rows), counted in its buffer_bytes; a y-blocked or 2d plan's are not (the report says why).
 */
int stn_ooc_dirs_bind(ooc *e);
/* The rows each node's threads computed so far (the kernels' counts, stn_groups.seen), into the report's numa
 * nodes (with a list only). */
void stn_ooc_dirs_computed(ooc *e);
int stn_ooc_open_grid(ooc *e, stn_gridfile *gf, const char *name, int64_t nz, int flags);
int stn_ooc_dirs_lock(ooc *e, int (*lock)(const char *dir, const char *name, char *path, size_t n, int *fd));
void stn_ooc_dirs_unlock(ooc *e);
int stn_ooc_dirs_space(ooc *e, uint64_t need);
int stn_ooc_dirs_text(const ooc *e, char *buf, size_t n);
int stn_ooc_dirs_check(const ooc *e, FILE *fp);
/* The grid files' flag of the run's tier (--tier pmem: STN_GRIDFILE_PMEM, docs/design/022), and what a
 * file opened with it adds to the result (its mapping's bytes; is_pmem only while every file's is). */
static inline int ooc_tier(const ooc *e) { return e->r->o->tier == STN_TIER_PMEM ? STN_GRIDFILE_PMEM : 0; }
void stn_ooc_tier_note(ooc *e, const stn_gridfile *gf);
/* Everything before the first sweep: the lock on --dir, the fields' sources, the plan (resumed: the
 * saved one), the cache tiles, the IO and time models of the whole run (*first_sweep: the sweeps a
 * --resume finds done), then (unless --plan-only) the queue, the scratch, spill and records files and
 * the buffers. */
int stn_ooc_setup(ooc *e, int64_t *first_sweep);
/* Plan np in place of e->plan between sweeps: the old plan's rings, z-strips, spill files and wedges
 * freed, the new one's made, its cache tiles chosen (ooc_setup.c).  The scratch files stay. */
int stn_ooc_rebuffer(ooc *e, const stn_ooc_plan *np);

/* ooc_fit.c: the time model of what is left of a run (no exchanges, no import or export), and the figures
 * that make it match what ran.  A device whose every curve is dev's with its bandwidths times k: */
void stn_ooc_scaled_device(const stn_device *dev, double k, stn_device *out);
/* The kernels' share of their rate under the run's IO: the plan's own, measured at startup, else the
 * device's at the plan's request size (what the time model takes): */
double stn_ooc_share(const ooc *e);
/* The run's time model on device dev with the kernels at cells_per_second (its measured copy rate, share,
 * init expressions' seconds and snapshots): */
stn_time_model stn_ooc_run_model(const ooc *e, const stn_device *dev, double cells_per_second);
/* The seconds the model tm gives plan p's sweeps from sweep s0 on for `steps` steps (the sweeps s0, s0 + 1,
 * ... of p's bt, the last shorter), without the import and export: */
double stn_ooc_part_seconds(const ooc *e, const stn_ooc_plan *p, int64_t s0, int64_t steps,
                            const stn_time_model *tm);
/* The device's scale that makes the model's time of sweep s (T steps) of e->plan its measured `wall`
 * seconds, with the kernels at `rate`: a bisection in log scale over [2^-12, 2^12] (the model's time falls
 * as the device speeds up; at an end when the sweep is out of the model's reach). */
double stn_ooc_fit_device(const ooc *e, int64_t s, int64_t T, double rate, double wall);
/* The kernels' rate at which the model gives e->plan's sweeps from s0 on, `steps` steps, `wall` seconds,
 * the device's curves as they are: a bisection in log scale within 16x of `rate` either way; 0 where the
 * model's IO alone takes longer than `wall`. */
double stn_ooc_fit_rate(const ooc *e, int64_t s0, int64_t steps, double wall, double rate);
/* Whether at the kernels' rate `rate` the model's kernels take longer than its device in e->plan's sweeps
 * from s0 on (each slowed by the other's share): the loop is the kernels'. */
int stn_ooc_kernels_bound(const ooc *e, int64_t s0, int64_t steps, double rate);

/* ooc_refine.c: what a sweep measured, and the re-plan it may lead to. */
#define STN_REPLAN_GAIN 0.10 /* another plan re-plans the rest when predicted at least 10% faster */
typedef struct ooc_measured {
    int64_t sweep;  /* the sweep's index */
    int64_t steps;  /* its steps */
    int64_t done;   /* the run's steps after it */
    int64_t left;   /* and the steps left */
    double wall;    /* its seconds */
    double compute; /* of which the kernels' (the compute phase) */
    double cells;   /* the cells it updated: the grid's x its steps */
} ooc_measured;
/* After sweep m->sweep of the program's run: its measured kernels' rate (over compute_under_io: the
 * kernels alone) and the device's curves scaled to fit its time replace the assumed figures; Blk-Tune
 * plans the steps left with them, and when that plan differs and is predicted at least STN_REPLAN_GAIN
 * faster than the current one for the same steps, it replaces it (stn_ooc_rebuffer) and the re-plan is
 * recorded in e->res->replans.  0 when nothing changed or the re-plan is done; an allocation's failure. */
int stn_ooc_refine(ooc *e, const ooc_measured *m, int program);
/* The time model of the sweeps from first_sweep on: the kernels' rate on the plan's blocks (measured
 * unless known), the copy rate, the device's curves, the ranks' exchanges. */
int stn_ooc_model_time(ooc *e, int64_t first_sweep);
/* ooc_history.c: the kernels' rate earlier runs of this program, grid and plan sustained in their loops on
 * this machine.  use: their median in place of the startup sample in e->res (cells_per_second and its
 * source), when there are some; note: this run's loop added (when it is long enough).  Neither fails the
 * run. */
int stn_ooc_history_use(ooc *e);
void stn_ooc_history_note(ooc *e, int64_t s0, int64_t steps);
/* Whether a sweep's result is made durable and committed for --resume: every one, except the program's
 * last when nothing reads it afterwards (no --out). */
int stn_ooc_commits(const ooc *e, int program, int last);
/* The samples of steps [t0, t1) of every record, to (write) or from the records file. */
int stn_ooc_records_io(ooc *e, int write, int64_t t0, int64_t t1);
void stn_ooc_remove_scratch(ooc *e); /* the scratch, state and records files */
void stn_ooc_free(ooc *e);           /* the queue, the lock, the files' descriptors, the buffers */

/* ------------------------------------------------------------------ ooc_xfer.c */

/* Copy each input given as a .npy into its scratch file once, before the first sweep. */
int stn_ooc_import_inputs(ooc *e);
/* alg2: every array of every state field to its in-place file before the first sweep. */
int stn_ooc_import_alg2(ooc *e);
/* Write every --out from the final state (the writers' temporaries; program.c commits them). */
int stn_ooc_export(ooc *e);
/* The simulation API: the state levels from the first sweep's sources into scratch set 0 (which the
 * first sweep then reads), the bytes the model counts for it added to *rd and *wr. */
int stn_ooc_materialize(ooc *e, uint64_t *rd, uint64_t *wr);
/* Input i, of init expressions or zero, into its scratch file (scratch[0][0], opened by the caller),
 * so that a simulation may write it; from then on the model reads it from there (*wr: the bytes). */
int stn_ooc_make_input(ooc *e, int i, uint64_t *wr);
/* A box of (f, level) of the state after plan.nsweeps sweeps, between the files and a caller's buffer
 * (element (x, y, z) at buf[(x - lo[0]) st[0] + (y - lo[1]) st[1] + (z - lo[2]) st[2]]); a write goes
 * to scratch files only (stn_ooc_materialize first). */
typedef struct stn_ooc_boxio {
    int f, level, write;
    int64_t lo[3], hi[3];
    char *buf;
    int64_t st[3];
    int src;                            /* set by stn_ooc_box_io */
    uint64_t model_read, model_written; /* the bytes it moved, as the model counts them (added) */
} stn_ooc_boxio;
int stn_ooc_box_io(ooc *e, stn_ooc_boxio *b);

/* ------------------------------------------------------------------ ooc_state.c */

/* Commit the state file: `sweeps_done` sweeps of this run's parameters are in the files, the last one
 * ending at step steps_before + T. */
int stn_ooc_save_state(ooc *e, int64_t sweeps_done);

/* ooc_chunks.c: the scratch files' chunks along y (docs/design/023).  Every file set gets its table
 * when it is about to be written whole, so the files' content is always in the table recorded for it:
 * sweep: before sweep `sweep` of T steps, its destination set (by its writes and the next sweep's
 * reads) and the z-strip's spill files; inputs: before the import, the inputs' files (by the sweeps'
 * reads).  apply: the recorded tables onto the open files (--resume).  text / parse: the state
 * file's lines `chunks SET N E1 ... EN`. */
int stn_ooc_chunk_sweep(ooc *e, int64_t sweep, int64_t T);
int stn_ooc_chunk_inputs(ooc *e);
int stn_ooc_chunk_apply(ooc *e);
void stn_ooc_chunk_free(ooc *e);
int stn_ooc_chunk_text(const ooc *e, char **text);
int stn_ooc_chunk_parse(ooc *e, FILE *fp);
/* The sweeps a previous run of the same parameters completed and the steps they made, or -1 when there
 * is no state file; an error when it is not this program's or its parameters differ. */
int stn_ooc_load_state(ooc *e, int64_t *done, int64_t *steps);
/* The plan the state file at `path` records (version 2; --resume goes on with it): 1 and sv set,
 * 0 when there is no state file or it records none (version 1), or -EINVAL. */
int stn_ooc_saved_plan(const char *path, stn_saved_plan *sv);

#endif /* STN_OOC_ENGINE_H */
